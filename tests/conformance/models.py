"""models.py - the model zoo of the conformance suite: one registry.

Every entry: name -> Entry(family, build, ...).  build() returns a Built:
the eager module (eval mode, random weights from a fixed seed, no download
ever), the example inputs (set 1), and where the model allows it a second
set of other sizes (set 2).  Per-operator models live in opmodels.py.

Families: classification, detection, segmentation, transformer, rnn,
control_flow, reference (../shared/reference's examples), op (opmodels.py),
torch2 (archives torch 2.11 saved, copied, never built here: torch2.py).
"""
import math
from dataclasses import dataclass, field
from typing import Callable, List, Optional, Tuple

import torch
import torch.nn as nn
import torch.nn.functional as F

GB = 1 << 30
MAX_WEIGHT_BYTES = 2 * GB  # models above this stay out (bench's transformer aside)


@dataclass
class Built:
    module: nn.Module
    inputs1: List[Tuple[str, torch.Tensor]]
    inputs2: Optional[List[Tuple[str, torch.Tensor]]] = None
    # a module to script instead of `module` (a ScriptModule class, a wrapper)
    script_module: Optional[object] = None
    # when tracing must not run under no_grad, or needs strict=False
    trace_strict: bool = True
    compare: str = "values"   # "shape" for random ops, "detections" (evaluate.py)
    notes: str = ""
    # trace under torch.no_grad(): eval + no_grad is what sends
    # nn.TransformerEncoder / nn.MultiheadAttention down torch's fast path
    # (aten::_transformer_encoder_layer_fwd, aten::_native_multi_head_attention);
    # everything else is traced in grad mode, as torch.onnx.export traces
    trace_no_grad: bool = False


@dataclass
class Entry:
    name: str
    family: str
    build: Callable[[], Built]
    fast: bool = False          # in the CI subset
    timeout: int = 1800         # seconds for generation (archives + torch's exports)
    weight_bytes: int = 0       # estimate, from torchvision's metadata where known
    isolate: bool = True        # torch.onnx.export: one child per export (timings)
    notes: str = ""
    copied: bool = False        # not built by torch: generate.py copies it (torch2.py)


REGISTRY = {}


def register(e: Entry):
    assert e.name not in REGISTRY, e.name
    REGISTRY[e.name] = e
    return e


def seeded(seed=0):
    torch.manual_seed(seed)
    g = torch.Generator().manual_seed(seed + 1)
    return g


# --- torchvision ------------------------------------------------------------
def _tv():
    import torchvision  # noqa: F401  (imported only when a model is built)
    import torchvision.models as M
    return M


def _tv_meta_params(name):
    try:
        M = _tv()
        return list(M.get_model_weights(name))[0].meta.get("num_params")
    except Exception:
        return None


# second-set spatial size per classification model; None: batch only
CLS_FIXED_SIZE = {"vit_b_16", "vit_b_32", "vit_l_16", "vit_l_32", "vit_h_14", "maxvit_t"}
CLS_SIZE = {"inception_v3": 299}
CLS_FAST = {"resnet18", "mobilenet_v3_small", "squeezenet1_1"}


class FirstOutput(nn.Module):
    """googlenet and inception_v3 return a namedtuple when scripted: the
    wrapper returns the logits in both worlds."""

    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = self.m(x)
        if isinstance(out, torch.Tensor):
            return out
        return out[0]


def _unzero_weights(m, g):
    """Give every all-zero weight matrix or kernel (vit's head is
    initialised to zeros) small seeded random values: a model whose output
    is all zeros for every input proves nothing when compared."""
    with torch.no_grad():
        for p in m.parameters():
            if p.dim() >= 2 and not p.any():
                p.copy_(torch.randn(p.shape, generator=g) * 0.02)


def classification(name):
    def build():
        M = _tv()
        g = seeded()
        kw = {}
        if name in ("googlenet", "inception_v3"):
            kw = {"aux_logits": False, "init_weights": True}
        m = M.get_model(name, weights=None, **kw).eval()
        _unzero_weights(m, g)
        if name in ("googlenet", "inception_v3"):
            m = FirstOutput(m).eval()
        s = CLS_SIZE.get(name, 224)
        x1 = torch.randn(1, 3, s, s, generator=g)
        if name in CLS_FIXED_SIZE:
            x2 = torch.randn(2, 3, s, s, generator=g)
        else:
            x2 = torch.randn(2, 3, s - 32, s + 32, generator=g)
        return Built(m, [("x", x1)], [("x", x2)])
    return build


# --- detection and segmentation ----------------------------------------------
class Detector(nn.Module):
    """One image in, the first image's detections out as a flat tuple
    (boxes, labels, scores)."""

    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        out = self.m([x])
        if torch.jit.is_scripting():
            dets = out[1]
        else:
            dets = out
        d = dets[0]
        return d["boxes"], d["labels"], d["scores"]


class MaskDetector(Detector):
    def forward(self, x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        out = self.m([x])
        if torch.jit.is_scripting():
            dets = out[1]
        else:
            dets = out
        d = dets[0]
        return d["boxes"], d["labels"], d["scores"], d["masks"]


class KeypointDetector(Detector):
    def forward(self, x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        out = self.m([x])
        if torch.jit.is_scripting():
            dets = out[1]
        else:
            dets = out
        d = dets[0]
        return d["boxes"], d["labels"], d["scores"], d["keypoints"], d["keypoints_scores"]


DET_FAST = {"ssdlite320_mobilenet_v3_large"}


def detection(name):
    def build():
        M = _tv()
        g = seeded()
        kw = {"weights": None, "weights_backbone": None}
        if "rcnn" in name:
            kw.update(min_size=320, max_size=320, box_score_thresh=0.0)
            size = 320
        elif name.startswith(("retinanet", "fcos")):
            kw.update(min_size=320, max_size=320, score_thresh=0.0)
            size = 320
        elif name.startswith("ssd300"):
            kw.update(score_thresh=0.0)
            size = 300
        else:
            kw.update(score_thresh=0.0)
            size = 320
        m = M.get_model(name, **kw).eval()
        # random weights leave the backbone's BatchNorm statistics at 0/1, the
        # features degenerate and every score tied (the order of tied boxes is
        # arbitrary, no oracle can fix it): a few forward passes in train mode
        # on random images set the statistics (data-free BN calibration)
        with torch.no_grad():
            m.backbone.train()
            for _ in range(8):
                m.backbone((torch.rand(2, 3, size, size, generator=g) - 0.45) / 0.225)
            m.backbone.eval()
        cls = {"maskrcnn": MaskDetector, "keypointrcnn": KeypointDetector}.get(name.split("_")[0], Detector)
        w = cls(m).eval()
        x1 = torch.rand(3, size, size, generator=g)
        x2 = torch.rand(3, size - 40, size + 40, generator=g)
        # compared as detections: rows whose scores tie to 1e-5 may come in
        # either order (evaluate.py: compare_detections)
        return Built(w, [("x", x1)], [("x", x2)], trace_strict=False, compare="detections")
    return build


class Segmenter(nn.Module):
    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.m(x)["out"]


SEG_FAST = {"lraspp_mobilenet_v3_large"}


def segmentation(name):
    def build():
        M = _tv()
        g = seeded()
        kw = {"weights": None, "weights_backbone": None}
        if not name.startswith("lraspp"):
            kw["aux_loss"] = False
        m = Segmenter(M.get_model(name, **kw).eval()).eval()
        x1 = torch.randn(1, 3, 224, 224, generator=g)
        x2 = torch.randn(2, 3, 160, 192, generator=g)
        return Built(m, [("x", x1)], [("x", x2)])
    return build


# --- transformers in plain torch ---------------------------------------------
class CausalSelfAttention(nn.Module):
    def __init__(self, d, heads, n_ctx):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.register_buffer("mask", torch.tril(torch.ones(n_ctx, n_ctx)).view(1, 1, n_ctx, n_ctx))

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.qkv(x).split(C, dim=2)
        h = self.heads
        q = q.view(B, T, h, C // h).transpose(1, 2)
        k = k.view(B, T, h, C // h).transpose(1, 2)
        v = v.view(B, T, h, C // h).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(C // h))
        att = att.masked_fill(self.mask[:, :, :T, :T] == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
        return self.proj(y)


class GPTBlock(nn.Module):
    def __init__(self, d, heads, n_ctx):
        super().__init__()
        self.ln1 = nn.LayerNorm(d)
        self.attn = CausalSelfAttention(d, heads, n_ctx)
        self.ln2 = nn.LayerNorm(d)
        self.fc = nn.Linear(d, 4 * d)
        self.out = nn.Linear(4 * d, d)

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        x = x + self.out(F.gelu(self.fc(self.ln2(x)), approximate="tanh"))
        return x


class GPT(nn.Module):
    """A GPT-2-style decoder: token + position embeddings, pre-LN blocks with
    causal attention, tied LM head."""

    def __init__(self, vocab=512, n_ctx=64, d=128, heads=4, layers=2):
        super().__init__()
        self.wte = nn.Embedding(vocab, d)
        self.wpe = nn.Embedding(n_ctx, d)
        self.blocks = nn.ModuleList([GPTBlock(d, heads, n_ctx) for _ in range(layers)])
        self.ln_f = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)
        self.head.weight = self.wte.weight
        for p in self.parameters():  # GPT-2's init scale keeps logits sane
            if p.dim() > 1:
                nn.init.normal_(p, 0.0, 0.02)

    def forward(self, idx):
        T = idx.size(1)
        pos = torch.arange(0, T, dtype=torch.long, device=idx.device).unsqueeze(0)
        x = self.wte(idx) + self.wpe(pos)
        for b in self.blocks:
            x = b(x)
        return self.head(self.ln_f(x))


class BertLayer(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.q = nn.Linear(d, d)
        self.k = nn.Linear(d, d)
        self.v = nn.Linear(d, d)
        self.o = nn.Linear(d, d)
        self.ln1 = nn.LayerNorm(d, eps=1e-12)
        self.fc = nn.Linear(d, 4 * d)
        self.out = nn.Linear(4 * d, d)
        self.ln2 = nn.LayerNorm(d, eps=1e-12)

    def forward(self, x, ext_mask):
        B, T, C = x.shape
        h = self.heads
        q = self.q(x).view(B, T, h, C // h).permute(0, 2, 1, 3)
        k = self.k(x).view(B, T, h, C // h).permute(0, 2, 3, 1)
        v = self.v(x).view(B, T, h, C // h).permute(0, 2, 1, 3)
        s = torch.matmul(q, k) / math.sqrt(C // h) + ext_mask
        p = torch.softmax(s, dim=-1)
        c = torch.matmul(p, v).permute(0, 2, 1, 3).reshape(B, T, C)
        x = self.ln1(x + self.o(c))
        return self.ln2(x + self.out(F.gelu(self.fc(x))))


class Bert(nn.Module):
    """A BERT-style encoder: word + position + token-type embeddings,
    post-LN layers with a padding mask, a tanh pooler."""

    def __init__(self, vocab=512, n_pos=64, d=128, heads=4, layers=2):
        super().__init__()
        self.word = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(n_pos, d)
        self.tok = nn.Embedding(2, d)
        self.ln = nn.LayerNorm(d, eps=1e-12)
        self.layers = nn.ModuleList([BertLayer(d, heads) for _ in range(layers)])
        self.pool = nn.Linear(d, d)

    def forward(self, input_ids, attention_mask, token_type_ids):
        T = input_ids.size(1)
        pos = torch.arange(T, dtype=torch.long).unsqueeze(0).expand_as(input_ids)
        x = self.ln(self.word(input_ids) + self.pos(pos) + self.tok(token_type_ids))
        ext = (1.0 - attention_mask[:, None, None, :].to(x.dtype)) * -10000.0
        for layer in self.layers:
            x = layer(x, ext)
        return x, torch.tanh(self.pool(x[:, 0]))


def gpt_build(**cfg):
    def build():
        g = seeded()
        m = GPT(**cfg).eval()
        v = cfg.get("vocab", 512)
        return Built(m, [("idx", torch.randint(0, v, (1, 16), generator=g))],
                     [("idx", torch.randint(0, v, (2, 24), generator=g))])
    return build


def bert_build():
    g = seeded()
    m = Bert().eval()

    def ins(b, t):
        ids = torch.randint(0, 512, (b, t), generator=g)
        mask = torch.ones(b, t, dtype=torch.long)
        mask[:, t - 3:] = 0
        tt = torch.zeros(b, t, dtype=torch.long)
        tt[:, t // 2:] = 1
        return [("input_ids", ids), ("attention_mask", mask), ("token_type_ids", tt)]
    return Built(m, ins(1, 16), ins(2, 24))


def encoder_fastpath(with_mask):
    def build():
        g = seeded()
        layer = nn.TransformerEncoderLayer(64, 4, dim_feedforward=128, batch_first=True)
        m = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False).eval()
        if not with_mask:
            return Built(m, [("src", torch.randn(2, 10, 64, generator=g))],
                         [("src", torch.randn(3, 7, 64, generator=g))], trace_no_grad=True,
                         notes="eval + no_grad + batch_first: torch takes the fast path "
                               "(aten::_transformer_encoder_layer_fwd)")

        class Masked(nn.Module):
            def __init__(self, enc):
                super().__init__()
                self.enc = enc

            def forward(self, src, pad):
                return self.enc(src, src_key_padding_mask=pad)
        w = Masked(m).eval()

        def ins(b, t):
            pad = torch.zeros(b, t, dtype=torch.bool)
            pad[:, t - 2:] = True
            return [("src", torch.randn(b, t, 64, generator=g)), ("pad", pad)]
        return Built(w, ins(2, 10), ins(3, 7), trace_no_grad=True,
                     notes="eval + no_grad + batch_first + padding mask: the fast path")
    return build


class MHA(nn.Module):
    def __init__(self):
        super().__init__()
        self.mha = nn.MultiheadAttention(64, 4, batch_first=True)

    def forward(self, q, kv):
        return self.mha(q, kv, kv, need_weights=False)[0]


def mha_build():
    g = seeded()
    return Built(MHA().eval(),
                 [("q", torch.randn(2, 5, 64, generator=g)), ("kv", torch.randn(2, 7, 64, generator=g))],
                 [("q", torch.randn(3, 4, 64, generator=g)), ("kv", torch.randn(3, 9, 64, generator=g))])


# --- recurrent --------------------------------------------------------------
class LSTMModel(nn.Module):
    def __init__(self, **kw):
        super().__init__()
        self.rnn = nn.LSTM(16, 32, **kw)

    def forward(self, x):
        y, (h, c) = self.rnn(x)
        return y, h, c


class LSTMState(nn.Module):
    def __init__(self, **kw):
        super().__init__()
        self.rnn = nn.LSTM(16, 32, **kw)

    def forward(self, x, h0, c0):
        y, (h, c) = self.rnn(x, (h0, c0))
        return y, h, c


class GRUModel(nn.Module):
    def __init__(self, **kw):
        super().__init__()
        self.rnn = nn.GRU(16, 32, **kw)

    def forward(self, x):
        y, h = self.rnn(x)
        return y, h


class GRUState(nn.Module):
    def __init__(self, **kw):
        super().__init__()
        self.rnn = nn.GRU(16, 32, **kw)

    def forward(self, x, h0):
        y, h = self.rnn(x, h0)
        return y, h


class RNNModel(nn.Module):
    def __init__(self, **kw):
        super().__init__()
        self.rnn = nn.RNN(16, 32, **kw)

    def forward(self, x):
        y, h = self.rnn(x)
        return y, h


def rnn_build(cls, state=0, batch_first=False, **kw):
    def build():
        g = seeded()
        m = cls(batch_first=batch_first, **kw).eval()
        L = kw.get("num_layers", 1) * (2 if kw.get("bidirectional") else 1)

        def ins(T, B):
            x = torch.randn(B, T, 16, generator=g) if batch_first else torch.randn(T, B, 16, generator=g)
            r = [("x", x)]
            if state >= 1:
                r.append(("h0", torch.randn(L, B, 32, generator=g)))
            if state >= 2:
                r.append(("c0", torch.randn(L, B, 32, generator=g)))
            return r
        return Built(m, ins(7, 2), ins(11, 3))
    return build


# --- control flow (for the script path) --------------------------------------
class IfModel(nn.Module):
    def forward(self, x):
        if bool(x.sum() > 0):
            y = x * 2.0
        else:
            y = x - 1.0
        return y


class LoopRangeModel(nn.Module):
    def forward(self, x, n):
        acc = torch.zeros_like(x)
        for i in range(int(n)):
            acc = acc + x * float(i)
        return acc


class WhileModel(nn.Module):
    def forward(self, x):
        k = 0
        while bool(x.abs().sum() < 100.0) and k < 20:
            x = x * 2.0
            k += 1
        return x, torch.tensor(k)


class NestedModel(nn.Module):
    def forward(self, x):
        out = x
        for i in range(x.size(0)):
            if bool(out[i].mean() > 0):
                out = out + torch.relu(x)
            else:
                out = out - x.sigmoid()
            for j in range(2):
                out = out * 0.5
        return out


class BreakModel(nn.Module):
    def forward(self, x):
        total = torch.zeros(1)
        for i in range(x.size(0)):
            if bool(x[i].sum() > 1.0):
                break
            total = total + x[i].sum()
        return total


class ListTupleModel(nn.Module):
    def forward(self, x):
        parts = torch.chunk(x, 3, dim=1)
        outs: List[torch.Tensor] = []
        for p in parts:
            outs.append(p.max(dim=1)[0])
        return torch.stack(outs, 0), torch.tensor(len(outs))


def cf_build(cls, sets):
    def build():
        g = seeded()
        return Built(cls().eval(), sets(g, 1), sets(g, 2))
    return build


# --- ../shared/reference's examples -------------------------------------------
class LoopModel(nn.Module):
    """torch.onnx docs, 'Tracing vs Scripting': trace-based only."""

    def forward(self, x, y):
        for i in range(y):
            x = x + i
        return x


@torch.jit.script
def loop(x, y: int):
    for i in range(int(y)):
        x = x + i
    return x


class LoopModel2(nn.Module):
    """torch.onnx docs: mixing tracing and scripting (a scripted loop)."""

    def forward(self, x, y):
        return loop(x, y)


class ListLoopModel(nn.Module):
    """torch.onnx FAQ, 'Is tensor list exportable': as printed the docs write
    `res = res.append(...)`, which TorchScript refuses (append returns None);
    this is the evident intent."""

    def forward(self, x):
        res = []
        res1 = []
        arr = x.split(2, 0)
        res2 = torch.zeros(3, 4, dtype=torch.long)
        for i in range(len(arr)):
            res.append(arr[i].sum(0, False))
            res1.append(arr[-1 - i].sum(0, False))
            res2 += 1
        return torch.stack(res), torch.stack(res1), res2


class InPlaceIndexedAssignment(nn.Module):
    """torch.onnx docs, Limitations: data[index] = new_data."""

    def forward(self, data, index, new_data):
        data = data.clone()
        data[index] = new_data
        return data


class InPlaceIndexedAssignmentONNX(nn.Module):
    """torch.onnx docs, Limitations: the scatter_ workaround."""

    def forward(self, data, index, new_data):
        new_data = new_data.unsqueeze(0)
        index = index.expand(1, new_data.size(1))
        data = data.clone()
        data.scatter_(0, index, new_data)
        return data


class ImplicitCastType(torch.jit.ScriptModule):
    """torch.onnx docs: implicit scalar type casting (x + 2, then + 3)."""

    @torch.jit.script_method
    def forward(self, x):
        y = x + 2
        return y + 3


class ImplicitCastTypeEager(nn.Module):
    def forward(self, x):
        y = x + 2
        return y + 3


def ref_build(which):
    def build():
        g = seeded()
        if which == "loop":
            return Built(LoopModel().eval(),
                         [("x", torch.ones(2, 3, dtype=torch.long)), ("y", torch.tensor(5, dtype=torch.long))],
                         [("x", torch.ones(4, 3, dtype=torch.long)), ("y", torch.tensor(9, dtype=torch.long))])
        if which == "loop2":
            return Built(LoopModel2().eval(),
                         [("x", torch.ones(2, 3, dtype=torch.long)), ("y", torch.tensor(5, dtype=torch.long))],
                         [("x", torch.ones(4, 3, dtype=torch.long)), ("y", torch.tensor(9, dtype=torch.long))])
        if which == "list_loop":
            return Built(ListLoopModel().eval(), [("x", torch.randn(16, generator=g))],
                         [("x", torch.randn(10, generator=g))])
        if which == "inplace_index":
            return Built(InPlaceIndexedAssignment().eval(),
                         [("data", torch.zeros(3, 4)), ("index", torch.tensor(1)),
                          ("new_data", torch.arange(4).to(torch.float32))],
                         [("data", torch.zeros(5, 4)), ("index", torch.tensor(3)),
                          ("new_data", torch.arange(4).to(torch.float32) + 1)])
        if which == "inplace_scatter":
            return Built(InPlaceIndexedAssignmentONNX().eval(),
                         [("data", torch.zeros(3, 4)), ("index", torch.tensor(1)),
                          ("new_data", torch.arange(4).to(torch.float32))],
                         [("data", torch.zeros(5, 4)), ("index", torch.tensor(3)),
                          ("new_data", torch.arange(4).to(torch.float32) + 1)])
        if which == "implicit_cast":
            return Built(ImplicitCastTypeEager().eval(), [("x", torch.tensor([1.0]))],
                         [("x", torch.tensor([1.5, -2.0, 3.0]))], script_module=ImplicitCastType())
        raise KeyError(which)
    return build


# --- the registry -------------------------------------------------------------
def _register_all():
    try:
        M = _tv()
        cls_names = M.list_models(module=M)
        det_names = M.list_models(module=M.detection)
        seg_names = M.list_models(module=M.segmentation)
    except Exception:  # torchvision missing: the rest still works
        cls_names = det_names = seg_names = []
    for n in cls_names:
        p = _tv_meta_params(n) or 0
        if p * 4 >= MAX_WEIGHT_BYTES:
            continue  # vit_h_14, regnet_y_128gf: over 2 GB of fp32 weights
        register(Entry(n, "classification", classification(n), fast=n in CLS_FAST,
                       weight_bytes=p * 4, timeout=3600 if p * 4 > 400e6 else 1800))
    for n in det_names:
        p = _tv_meta_params(n) or 0
        register(Entry(n, "detection", detection(n), fast=n in DET_FAST, weight_bytes=p * 4))
    for n in seg_names:
        p = _tv_meta_params(n) or 0
        register(Entry(n, "segmentation", segmentation(n), fast=n in SEG_FAST, weight_bytes=p * 4))

    register(Entry("gpt_tiny", "transformer", gpt_build(), fast=True))
    register(Entry("bert_tiny", "transformer", bert_build, fast=True))
    register(Entry("transformer_encoder_fastpath", "transformer", encoder_fastpath(False), fast=True))
    register(Entry("transformer_encoder_fastpath_mask", "transformer", encoder_fastpath(True)))
    register(Entry("multihead_attention", "transformer", mha_build))

    register(Entry("lstm_2l_bi", "rnn", rnn_build(LSTMModel, num_layers=2, bidirectional=True), fast=True))
    register(Entry("lstm_2l_bi_state", "rnn", rnn_build(LSTMState, state=2, num_layers=2, bidirectional=True)))
    register(Entry("lstm_batch_first", "rnn", rnn_build(LSTMModel, batch_first=True, num_layers=1)))
    register(Entry("gru_2l_bi", "rnn", rnn_build(GRUModel, num_layers=2, bidirectional=True), fast=True))
    register(Entry("gru_2l_bi_state", "rnn", rnn_build(GRUState, state=1, num_layers=2, bidirectional=True)))
    register(Entry("rnn_tanh_2l", "rnn", rnn_build(RNNModel, num_layers=2)))
    register(Entry("rnn_relu_bi", "rnn", rnn_build(RNNModel, nonlinearity="relu", bidirectional=True)))

    # set 2 takes the other branch / another trip count: a trace is then wrong
    register(Entry("cf_if", "control_flow", cf_build(
        IfModel, lambda g, s: [("x", (1 if s == 1 else -1) * torch.rand(2, 3, generator=g) + (0.1 if s == 1 else -0.1))]),
        fast=True))
    register(Entry("cf_loop_range", "control_flow", cf_build(
        LoopRangeModel, lambda g, s: [("x", torch.randn(2, 3, generator=g)), ("n", torch.tensor(3 if s == 1 else 6))]),
        fast=True))
    register(Entry("cf_while", "control_flow", cf_build(
        WhileModel, lambda g, s: [("x", torch.randn(3, 4, generator=g) * (1.0 if s == 1 else 0.01))])))
    register(Entry("cf_nested", "control_flow", cf_build(
        NestedModel, lambda g, s: [("x", torch.randn(3 if s == 1 else 5, 4, generator=g))])))
    register(Entry("cf_break", "control_flow", cf_build(
        BreakModel, lambda g, s: [("x", torch.rand(6 if s == 1 else 9, 3, generator=g) * (0.3 if s == 1 else 0.5))])))
    register(Entry("cf_list", "control_flow", cf_build(
        ListTupleModel, lambda g, s: [("x", torch.randn(2, 6 if s == 1 else 9, generator=g))])))

    for w in ("loop", "loop2", "list_loop", "inplace_index", "inplace_scatter", "implicit_cast"):
        register(Entry(f"ref_{w}", "reference", ref_build(w), fast=w in ("loop2", "list_loop", "implicit_cast")))

    # saved by torch 2.11 elsewhere (tests/conformance/torch2/): all in the
    # CI subset, they convert in seconds
    import torch2
    for n in torch2.names():
        register(Entry(torch2.PREFIX + n, "torch2", None, fast=True, copied=True,
                       notes="saved by torch 2.11; oracle: its ref_K.npy"))
    # torch.export archives of the same models, read in place from
    # ../shared/torch2/models (not committed; none when it is absent)
    for n in torch2.pt2_names():
        register(Entry(torch2.PT2_PREFIX + n, "pt2", None, fast=True, copied=True,
                       notes="torch.export archive saved by torch 2.11; oracle: its ref_K.npy"))


_register_all()


# --- the bench's models (never in the conformance set) -------------------------
def bench_gpt():
    """GPT-2-small-sized (124M parameters, ~0.5 GB)."""
    return gpt_build(vocab=50257, n_ctx=1024, d=768, heads=12, layers=12)


def bench_big_transformer():
    """~2.7 GB of fp32 weights (12 layers, d=2048, vocab 32000, tied head);
    every layer its own random values."""
    return gpt_build(vocab=32000, n_ctx=512, d=2048, heads=16, layers=12)

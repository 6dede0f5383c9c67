#!/usr/bin/python3
"""make_models.py OUTDIR - builds the TorchScript archives that
tests/201-script.bats compiles with `script` (a small CNN traced and scripted,
an MLP, a model with a data-dependent if, a for and a while loop, a tiny
GPT-like block, a 2-layer LSTM, a TransformerEncoder, torchvision's resnet18 traced and
scripted and mobilenet_v3_small), and the oracle for each: the set of aten op
kinds in torch's own graph after inlining, freezing (eval mode, without
torch.jit.freeze's conv-bn folding) and constant propagation, counting only
the nodes the outputs depend on with raising branches removed, as `script`
does; and the number of state_dict entries that inference uses.

Writes OUTDIR/NAME.pt, OUTDIR/NAME.ops (one kind a line, sorted) and
OUTDIR/NAME.nweights.  Needs Debian's python3-torch (and torchvision for
the torchvision models).  Random weights, fixed seed."""
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 16, 3, stride=2)
        self.pool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(16, 10)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = F.max_pool2d(x, 2)
        x = torch.relu(self.conv2(x))
        x = self.pool(x)
        x = torch.flatten(x, 1)
        return self.fc(x)


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(20, 64), nn.ReLU(),
                                    nn.Linear(64, 32), nn.Tanh(),
                                    nn.Linear(32, 5))

    def forward(self, x):
        return F.softmax(self.layers(x), dim=-1)


class Control(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.n = 3

    def forward(self, x, k: int):
        y = x
        for i in range(self.n):
            y = self.fc(y) + i
        if bool(y.sum() > 0):
            y = y * 2
        else:
            y = -y
        j = 0
        while j < k:
            y = torch.sigmoid(y)
            j += 1
        return y


# nodes kept for their side effects (on lists, or raising)
MUTATING = {"prim::RaiseException", "aten::append", "aten::insert",
            "aten::_set_item", "aten::extend", "aten::pop", "aten::clear",
            "aten::warn"}


class TinyGPT(nn.Module):
    """embedding, layer norm, attention-like matmuls, softmax, cat, view"""
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(100, 32)
        self.ln = nn.LayerNorm(32)
        self.q = nn.Linear(32, 32)

    def forward(self, ids):
        h = self.ln(self.emb(ids))
        a = torch.matmul(self.q(h), h.transpose(1, 2)) / 5.0
        a = torch.softmax(a, -1)
        return torch.cat([h, torch.matmul(a, h)], 2).view(-1, 7, 64)


def oracle(scripted, path):
    # freezing without torch.jit.freeze's extra optimisations (conv-bn
    # folding would remove aten::batch_norm, which `script` keeps)
    frozen = torch._C._freeze_module(scripted.eval()._c)
    try:
        g = frozen._get_method("forward").graph
    except RuntimeError:  # overloaded (nn.LSTM): the tensor overload
        g = frozen._get_method("forward__0").graph
    torch._C._jit_pass_inline(g)
    torch._C._jit_pass_constant_propagation(g)
    # The kinds of the nodes the outputs depend on, where an If with one
    # raising arm counts as its other arm (script removes such branches,
    # as torch's EliminateExceptions does; the checks feeding the condition
    # go with them).
    kinds = set()
    seen = set()

    def raises(block):
        return any(n.kind() == "prim::RaiseException" for n in block.nodes())

    def need_value(v):
        need_node(v.node())

    def need_block(b):
        for v in b.outputs():
            need_value(v)
        for n in b.nodes():
            if n.kind() in MUTATING or (
                    n.kind().endswith("_") and not n.kind().endswith("__")):
                need_node(n)

    def need_node(n):
        if n in seen or n.kind() == "prim::Param":
            return
        seen.add(n)
        if n.kind() == "prim::If":
            bs = list(n.blocks())
            r = [raises(b) for b in bs]
            if r[0] != r[1]:
                need_block(bs[1] if r[0] else bs[0])
                return
        if n.kind().startswith("aten::"):
            kinds.add(n.kind())
        for v in n.inputs():
            need_value(v)
        for b in n.blocks():
            need_block(b)
    need_block(g.block())
    with open(path + ".ops", "w") as f:
        for k in sorted(kinds):
            f.write(k + "\n")


def save(name, mod, example, outdir, traced):
    torch.manual_seed(0)
    mod = mod.eval()
    if traced:
        sm = torch.jit.trace(mod, example)
    else:
        sm = torch.jit.script(mod)
    path = os.path.join(outdir, name)
    sm.save(path + ".pt")
    with open(path + ".nweights", "w") as f:
        f.write("%d\n" % len([k for k in mod.state_dict()
                               if not k.endswith("num_batches_tracked")]))
    loaded = torch.jit.load(path + ".pt")
    oracle(loaded, path)
    print(name)


def main():
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    torch.manual_seed(0)
    x = torch.randn(1, 3, 32, 32)
    save("cnn_traced", SmallCNN(), x, outdir, True)
    save("cnn_scripted", SmallCNN(), x, outdir, False)
    save("mlp_scripted", MLP(), torch.randn(2, 20), outdir, False)
    save("control_scripted", Control(), None, outdir, False)
    torch.manual_seed(0)
    save("gpt_scripted", TinyGPT(), None, outdir, False)
    save("lstm_scripted", nn.LSTM(8, 16, 2), None, outdir, False)
    layer = nn.TransformerEncoderLayer(32, 4, 64, batch_first=True)
    save("transformer_scripted", nn.TransformerEncoder(layer, 2), None,
         outdir, False)
    try:
        import torchvision
    except ImportError:
        return
    r = torchvision.models.resnet18()
    save("resnet18_traced", r, torch.randn(1, 3, 64, 64), outdir, True)
    save("resnet18_scripted", torchvision.models.resnet18(), None, outdir,
         False)
    save("mobilenet_v3_small_scripted", torchvision.models.mobilenet_v3_small(),
         None, outdir, False)


if __name__ == "__main__":
    main()

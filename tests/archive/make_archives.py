#!/usr/bin/python3
"""make_archives.py - writes real TorchScript archives and what torch says
is in them, for tests/unit/test_torch_archive.c (run by tests/100-archive.bats).

    /usr/bin/python3 tests/archive/make_archives.py OUTDIR [--resnet50]

Writes OUTDIR/<name>.pt for a small CNN with buffers of every common dtype
(scripted), torchvision resnet18 with random weights (traced), a module of
views (a transposed parameter, slices sharing one storage at offsets, an
expanded stride-0 buffer), a 2-layer LSTM (scripted), a dynamically quantized
Linear and a statically quantized Conv2d (scripted), and with --resnet50 a
traced resnet50 (for timing).  OUTDIR/expected.json lists, per archive, every
tensor torch reports (named_parameters and named_buffers of the module that
torch.jit.load returns, plus the quantized weights kept in __getstate__
tuples) with dtype, shape, strides, storage offset and the sum of its values
as torch computes it in double (int_repr() for quantized tensors).

Paths are dot-separated: an attribute of a module object, or an index into
a tuple or list (a module whose state is a __getstate__ tuple is indexed).
Needs Debian's python3-torch and python3-torchvision: never the pyenv python3.
Costs: a few seconds and ~60 MB of disk (~100 MB more with --resnet50).
"""
import json
import os
import sys

import torch
import torch.nn as nn

torch.manual_seed(0)

TYPE_NAMES = {
    torch.float32: "Float", torch.float64: "Double", torch.float16: "Half",
    torch.bfloat16: "BFloat16", torch.int64: "Long", torch.int32: "Int",
    torch.int16: "Short", torch.int8: "Char", torch.uint8: "Byte",
    torch.bool: "Bool", torch.qint8: "QInt8", torch.quint8: "QUInt8",
    torch.qint32: "QInt32",
}


class Cnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.fc = nn.Linear(8, 10)
        self.register_buffer("b_half", torch.randn(5).half())
        self.register_buffer("b_bf16", torch.randn(2, 3).bfloat16())
        self.register_buffer("b_double", torch.randn(4, dtype=torch.float64))
        self.register_buffer("b_long", torch.arange(-3, 9))
        self.register_buffer("b_int", torch.arange(7, dtype=torch.int32) * -1000)
        self.register_buffer("b_short", torch.arange(5, dtype=torch.int16) - 2)
        self.register_buffer("b_char", torch.tensor([-128, -1, 0, 127], dtype=torch.int8))
        self.register_buffer("b_byte", torch.tensor([0, 1, 255], dtype=torch.uint8))
        self.register_buffer("b_bool", torch.tensor([True, False, True]))
        self.register_buffer("b_scalar", torch.tensor(3.25))

    def forward(self, x):
        y = torch.relu(self.bn(self.conv(x)))
        y = torch.nn.functional.adaptive_avg_pool2d(y, 1).flatten(1)
        return self.fc(y) + self.b_double.sum().float()


class Views(nn.Module):
    def __init__(self):
        super().__init__()
        self.wt = nn.Parameter(torch.randn(4, 6).t())      # strides (1, 6)
        base = torch.randn(10, 3)
        self.register_buffer("rows", base[2:5])            # offset 6
        self.register_buffer("col", base[:, 1])            # stride 3, offset 1
        self.register_buffer("whole", base)                # same storage
        self.register_buffer("expanded", torch.randn(3, 1).expand(3, 4))
        self.register_buffer("empty", torch.zeros(0, 5))
        self.register_buffer("narrow_tail", torch.randn(100)[90:])

    def forward(self, x):
        return x @ self.wt + self.rows.sum() + self.col.sum()


class Lstm(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(8, 16, num_layers=2)
        self.head = nn.Linear(16, 3)

    def forward(self, x):
        y, _ = self.lstm(x)
        return self.head(y)


class QDyn(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 4)

    def forward(self, x):
        return self.fc(x)


class QStatic(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = torch.quantization.QuantStub()
        self.conv = nn.Conv2d(3, 4, 3)
        self.dequant = torch.quantization.DeQuantStub()

    def forward(self, x):
        return self.dequant(self.conv(self.quant(x)))


def describe(path, t):
    d = {
        "path": path,
        "dtype": TYPE_NAMES[t.dtype],
        "shape": list(t.shape),
        "strides": list(t.stride()),
        "offset": t.storage_offset(),
        "requires_grad": bool(t.requires_grad),
    }
    if t.is_quantized:
        d["sum"] = t.int_repr().double().sum().item()
        qs = t.qscheme()
        if qs in (torch.per_tensor_affine, torch.per_tensor_symmetric):
            d["q_scale"] = t.q_scale()
            d["q_zero_point"] = t.q_zero_point()
        else:
            d["q_axis"] = t.q_per_channel_axis()
            d["q_scales_sum"] = t.q_per_channel_scales().double().sum().item()
            d["q_zero_points_sum"] = t.q_per_channel_zero_points().double().sum().item()
    else:
        d["sum"] = t.detach().double().sum().item()
    return d


def expected_for(path, extra):
    m = torch.jit.load(path)
    out = []
    for name, t in list(m.named_parameters()) + list(m.named_buffers()):
        out.append(describe(name, t))
    for name, t in extra(m):
        out.append(describe(name, t))
    return out


def no_extra(m):
    return []


def qdyn_extra(m):
    packed = m.fc._packed_params._packed_params
    w, b = torch.ops.quantized.linear_unpack(packed)
    return [("fc._packed_params._packed_params.0", w),
            ("fc._packed_params._packed_params.1", b)]


def qstatic_extra(m):
    state = m.conv._c._get_method("__getstate__")()
    return [("conv.10", state[10]), ("conv.11", state[11])]


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: make_archives.py OUTDIR [--resnet50]")
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    import torchvision

    models = []
    models.append(("cnn", torch.jit.script(Cnn().eval()), no_extra))
    r18 = torchvision.models.resnet18(weights=None).eval()
    models.append(("resnet18", torch.jit.trace(r18, torch.randn(1, 3, 64, 64)), no_extra))
    models.append(("views", torch.jit.script(Views()), no_extra))
    models.append(("lstm", torch.jit.script(Lstm().eval()), no_extra))

    qd = torch.quantization.quantize_dynamic(QDyn().eval(), {nn.Linear}, dtype=torch.qint8)
    models.append(("qdyn", torch.jit.script(qd), qdyn_extra))
    qs = QStatic().eval()
    qs.qconfig = torch.quantization.get_default_qconfig("fbgemm")
    prepared = torch.quantization.prepare(qs)
    prepared(torch.randn(4, 3, 8, 8))
    models.append(("qstatic", torch.jit.script(torch.quantization.convert(prepared)),
                   qstatic_extra))
    if "--resnet50" in sys.argv:
        r50 = torchvision.models.resnet50(weights=None).eval()
        models.append(("resnet50", torch.jit.trace(r50, torch.randn(1, 3, 64, 64)), no_extra))

    expected = {}
    for name, module, extra in models:
        path = os.path.join(outdir, name + ".pt")
        torch.jit.save(module, path)
        expected[name + ".pt"] = expected_for(path, extra)
    with open(os.path.join(outdir, "expected.json"), "w") as f:
        f.write("{\n")
        for i, (name, tensors) in enumerate(expected.items()):
            f.write(" %s: [\n" % json.dumps(name))
            f.write(",\n".join("  " + json.dumps(t) for t in tensors))
            f.write("\n ]%s\n" % ("," if i + 1 < len(expected) else ""))
        f.write("}\n")
    print("wrote %d archives to %s" % (len(models), outdir))


if __name__ == "__main__":
    import warnings
    warnings.filterwarnings("ignore")
    main()

#!/usr/bin/python3
"""opset_cases.py - the models of tests/495-lower-opsets.bats: real torch
1.13 modules whose ONNX form changes from opset 18 on (fused
LayerNormalization, GroupNormalization, Gelu and Mish; reductions with
axes as an input; Split's num_outputs; Pad; Resize; DFT; GridSample;
Col2Im; ScatterElements' reductions), plus a small residual network and a
transformer encoder layer.

  opset_cases.py OUTDIR

writes OUTDIR/MODE/NAME/NAME.pt for MODE script and trace
(torch.jit.script and torch.jit.trace of each model), with each input
INPUT.npy, NAME.in.txt and torch's outputs want_NAME_K.npy beside it
(export_cases.save), and OUTDIR/MODE.txt, its models one a line.  The
trace path leaves out SCRIPT_ONLY's models (why beside each); REFUSED's
models are refused by lower (the test checks the reason).
"""
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

import export_cases


class Norms(nn.Module):
    """one layer_norm, two group_norms (affine, not), both gelus"""
    def __init__(self):
        super().__init__()
        self.ln = nn.LayerNorm([6, 5])
        self.gn = nn.GroupNorm(2, 4)
        self.gn0 = nn.GroupNorm(4, 4, affine=False, eps=1e-3)

    def forward(self, x):
        return (self.ln(x), self.gn(x), self.gn0(x), F.gelu(x),
                F.gelu(x, approximate="tanh"))


class Mish(nn.Module):
    """F.mish: one Mish node from opset 18"""
    def forward(self, x):
        return F.mish(x), F.mish(x * 8.0)


class Reductions(nn.Module):
    """every reduction lower writes, keepdim and not"""
    def red(self, x, k: bool):
        return (x.mean(dim=(1, 2), keepdim=k), x.sum(dim=1, keepdim=k),
                x.prod(dim=2, keepdim=k),
                torch.amax(x, dim=(0, 2), keepdim=k),
                torch.amin(x, dim=1, keepdim=k),
                x.max(dim=2, keepdim=k)[0], x.min(dim=0, keepdim=k)[0],
                torch.norm(x, p=1, dim=1, keepdim=k),
                torch.norm(x, p=2, dim=2, keepdim=k),
                torch.logsumexp(x, dim=1, keepdim=k),
                x.var(dim=1, keepdim=k), x.std(dim=2, keepdim=k))

    def forward(self, x):
        return self.red(x, False) + self.red(x, True) + (
            x.mean(), x.sum(), x.amax(), x.max(), x.min())


class Splits(nn.Module):
    """even and uneven splits, chunk, unbind"""
    def forward(self, x):
        a, b = torch.split(x, 3, dim=1)
        c, d, e = torch.split(x, 2, dim=1)
        f, g = torch.split(x, [1, 5], dim=2)
        h, i, j = torch.chunk(x, 3, dim=2)
        u = torch.unbind(x, dim=0)
        return a, b, c, d, e * 2.0, f, g, h, i, j, u[0], u[1]


class Pads(nn.Module):
    """F.pad in the modes every opset has"""
    def forward(self, x):
        return (F.pad(x, (1, 2, 0, 1)), F.pad(x, (1, 2, 2, 1), value=0.5),
                F.pad(x, (2, 1, 1, 2), mode="reflect"),
                F.pad(x, (1, 2, 2, 1), mode="replicate"))


class Circular(nn.Module):
    """circular padding: Pad's wrap mode from opset 19, Slices and Concats
    before"""
    def forward(self, x):
        return F.pad(x, (1, 2, 2, 1), mode="circular")


class Antialias(nn.Module):
    """interpolate(antialias=True): refused (Resize-18's antialias
    disagrees with torch in ONNX Runtime 1.30)"""
    def forward(self, x):
        return (F.interpolate(x, size=(3, 2), mode="bilinear",
                              antialias=True, align_corners=False),
                F.interpolate(x, scale_factor=0.5, mode="bicubic",
                              antialias=True, align_corners=False),
                F.interpolate(x, size=(4, 3), mode="bilinear",
                              antialias=True, align_corners=True))


class Interp(nn.Module):
    """F.interpolate in each mode, by scale and by size"""
    def forward(self, x):
        return (F.interpolate(x, scale_factor=2.0, mode="nearest"),
                F.interpolate(x, size=(7, 9), mode="nearest"),
                F.interpolate(x, scale_factor=2.0, mode="bilinear",
                              align_corners=False),
                F.interpolate(x, size=(7, 9), mode="bilinear",
                              align_corners=True),
                F.interpolate(x, scale_factor=2.0, mode="bicubic",
                              align_corners=False),
                F.interpolate(x, size=(3, 4), mode="area"))


class Spectral(nn.Module):
    """DFT: its axis an input from opset 20"""
    def forward(self, x):
        return (torch.fft.rfft(x).abs(),
                torch.view_as_real(torch.fft.fft(x, dim=1)),
                torch.fft.irfft(torch.fft.rfft(x, dim=2), n=6, dim=2))


class Grid(nn.Module):
    """GridSample: bilinear and bicubic are linear and cubic from 20"""
    def forward(self, x, g):
        return (F.grid_sample(x, g, mode="bilinear", align_corners=False),
                F.grid_sample(x, g, mode="bicubic", align_corners=True),
                F.grid_sample(x, g, mode="nearest", padding_mode="border",
                              align_corners=False))


class ScatterReduce(nn.Module):
    """scatter_reduce: ScatterElements' add and mul (16), max and min (18);
    repeated indices, src larger than index"""
    def forward(self, x, i, s):
        return (x.scatter_reduce(1, i, s, "sum"),
                x.scatter_reduce(1, i, s, "prod"),
                x.scatter_reduce(0, i, s, "amax"),
                x.scatter_reduce(1, i, s, "amin"))


class Col2Im(nn.Module):
    """nn.Fold: Col2Im, from opset 18 (batched and not)"""
    def __init__(self):
        super().__init__()
        self.fold = nn.Fold((5, 6), (2, 3), padding=(1, 0), stride=(1, 2))

    def forward(self, x):
        return self.fold(x), self.fold(x[0])


class Block(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.c1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.b1 = nn.BatchNorm2d(cout)
        self.c2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.b2 = nn.BatchNorm2d(cout)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride,
                                                bias=False),
                                      nn.BatchNorm2d(cout))

    def forward(self, x):
        y = F.relu(self.b1(self.c1(x)))
        y = self.b2(self.c2(y))
        s = x if self.down is None else self.down(x)
        return F.relu(y + s)


class ResNet(nn.Module):
    """a small resnet: stem, two basic blocks, pooling, classifier"""
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, 2, 1, bias=False),
                                  nn.BatchNorm2d(8), nn.ReLU(),
                                  nn.MaxPool2d(3, 2, 1))
        self.l1 = Block(8, 8, 1)
        self.l2 = Block(8, 16, 2)
        self.fc = nn.Linear(16, 10)

    def forward(self, x):
        y = self.l2(self.l1(self.stem(x)))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(y, 1), 1))


class Encoder(nn.Module):
    """nn.TransformerEncoderLayer (batch first, gelu)"""
    def __init__(self):
        super().__init__()
        self.layer = nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0,
                                                activation="gelu",
                                                batch_first=True)

    def forward(self, x):
        return self.layer(x)


REFUSED = ("antialias",)
SCRIPT_ONLY = {"spectral": "trace has no aten::fft_rfft",
               "antialias": "trace has no aten::_upsample_bilinear2d_aa"}


def models():
    torch.manual_seed(0)
    x3 = torch.randn(3, 6, 6)
    x4 = torch.randn(2, 4, 6, 5)
    return {
        "norms": (Norms(), [("x", x4, "f32[2,4,6,5]")]),
        "mish": (Mish(), [("x", x4, "f32[2,4,6,5]")]),
        "reductions": (Reductions(), [("x", torch.rand(3, 4, 5) + 0.5,
                                       "f32[3,4,5]")]),
        "splits": (Splits(), [("x", x3, "f32[3,6,6]")]),
        "pads": (Pads(), [("x", x4, "f32[2,4,6,5]")]),
        "circular": (Circular(), [("x", x4, "f32[2,4,6,5]")]),
        "antialias": (Antialias(), [("x", torch.randn(2, 3, 9, 8),
                                     "f32[2,3,9,8]")]),
        "interp": (Interp(), [("x", x4, "f32[2,4,6,5]")]),
        "spectral": (Spectral(), [("x", x3, "f32[3,6,6]")]),
        "grid": (Grid(), [("x", x4, "f32[2,4,6,5]"),
                          ("g", torch.rand(2, 3, 4, 2) * 2 - 1,
                           "f32[2,3,4,2]")]),
        "scatter": (ScatterReduce(), [
            ("x", torch.randn(3, 5), "f32[3,5]"),
            ("i", torch.tensor([[0, 1, 0], [2, 2, 1], [1, 0, 1]]),
             "i64[3,3]"),
            ("s", torch.randn(3, 4), "f32[3,4]")]),
        "col2im": (Col2Im(), [("x", torch.randn(2, 18, 12),
                               "f32[2,18,12]")]),
        "resnet": (ResNet(), [("x", torch.randn(1, 3, 32, 32),
                               "f32[1,3,32,32]")]),
        "encoder": (Encoder(), [("x", torch.randn(2, 5, 16),
                                 "f32[2,5,16]")]),
    }


def main():
    out = os.path.abspath(sys.argv[1])
    ms = models()
    for mode in ("script", "trace"):
        names = [n for n in ms if mode == "script" or n not in SCRIPT_ONLY]
        for name in names:
            d = os.path.join(out, mode, name)
            os.makedirs(d, exist_ok=True)
            os.chdir(d)
            export_cases.save(ms, name, mode)
        with open(os.path.join(out, mode + ".txt"), "w") as f:
            f.write("".join(n + "\n" for n in names))


if __name__ == "__main__":
    main()

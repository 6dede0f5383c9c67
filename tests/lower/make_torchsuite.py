# make_torchsuite.py - the models of tests/441-lower-torchsuite.bats: the
# causes fixed from torch 1.13's exporter test suite (issue 14's measured
# set, tests/conformance/torchsuite.py): arithmetic on uint8, int8 and
# int16 (no kernels before opset 14), ReduceProd of integers (torch
# multiplies them in Long), Relu of an integer, arange with float bounds
# and an integer dtype, binary_cross_entropy_with_logits with an integer
# weight, linear and cubic interpolation to an output of length 1,
# instance norm in eval with running statistics, arange with out=,
# argmax/argmin with keepdim and no dim, a trace of thousands of in-place
# writes into views (lower's view lookup was quadratic).  Each case one module traced and scripted by torch 1.13, with
# torch's eager outputs as the oracle (opcases.py writes them).
#
#   make_torchsuite.py NAME DIR
import sys

import torch
import torch.nn.functional as F

from opcases import write_case

torch.manual_seed(0)
name, d = sys.argv[1], sys.argv[2]


class LowPrecision(torch.nn.Module):
    """Add, Sub, Mul, Pow, prod of uint8, int8, int16 (values that do not
    overflow), prod of int32, relu of int32"""
    def forward(self, u, i8, i16, i32):
        return (u + u, u * 2, u - torch.ones_like(u), u.pow(torch.tensor([2], dtype=torch.uint8)),
                i8 + i8, i8 - 3, i8 * i8, i8.pow(2), 1 - i8, i16 + i16, i16 * i16, i16 - i16 * 2,
                torch.prod(u, -1), torch.prod(i8, 0), torch.prod(i16, -1), torch.prod(i32, -1),
                torch.relu(i32))


class ArangeInt(torch.nn.Module):
    """arange with float bounds and an integer dtype: constant (torch
    truncates for Long: 8.5 counts as 8; int32 counts from the floats)
    and from a 0-d float tensor"""
    def forward(self, x, end):
        return (torch.arange(8.5, dtype=torch.int64), torch.arange(x.size(0), 8.5, 1.5, dtype=torch.int64),
                torch.arange(0.5, 5, 1.7, dtype=torch.int32), torch.arange(-3.7, 4.2, 2.5, dtype=torch.int64),
                torch.arange(end, dtype=torch.int64), torch.arange(x.size(0), end, 1.5, dtype=torch.int64))


class BceIntWeight(torch.nn.Module):
    """binary_cross_entropy_with_logits with an int64 weight (torch
    promotes it to the input's float type) and a float pos_weight"""
    def forward(self, x, y, w, pw):
        return (F.binary_cross_entropy_with_logits(x, y, weight=w, reduction="none"),
                F.binary_cross_entropy_with_logits(x, y, weight=w, pos_weight=pw, reduction="mean"),
                F.binary_cross_entropy_with_logits(x, y, weight=w, reduction="sum"))


class InterpOne(torch.nn.Module):
    """linear, bilinear, trilinear, bicubic (align_corners False) to
    sizes with a 1 in them (torch reads the source's middle: half_pixel,
    not pytorch_half_pixel), and to larger and smaller sizes"""
    def forward(self, x1, x2, x3):
        return (F.interpolate(x1, size=[1], mode="linear"), F.interpolate(x2, size=[1, 6], mode="bilinear"),
                F.interpolate(x2, size=[4, 1], mode="bicubic"), F.interpolate(x3, size=[4, 1, 6], mode="trilinear"),
                F.interpolate(x2, size=[7, 3], mode="bilinear"), F.interpolate(x2, size=[2, 9], mode="bicubic"),
                F.interpolate(x2, scale_factor=1.5, mode="bilinear"))


class InstanceNormStats(torch.nn.Module):
    """InstanceNorm1d/2d with track_running_stats in eval: torch
    normalizes by the running statistics (set away from 0 and 1 here)"""
    def __init__(self):
        super().__init__()
        self.a = torch.nn.InstanceNorm1d(5, affine=True, track_running_stats=True)
        self.b = torch.nn.InstanceNorm2d(3, affine=False, track_running_stats=True)
        g = torch.Generator().manual_seed(2)
        for m in (self.a, self.b):
            m.running_mean.uniform_(-1, 1, generator=g)
            m.running_var.uniform_(0.5, 2, generator=g)
        self.a.weight.data.uniform_(0.5, 1.5, generator=g)
        self.a.bias.data.uniform_(-1, 1, generator=g)

    def forward(self, x, y):
        return self.a(x), self.b(y)


class ArangeOut(torch.nn.Module):
    """arange.out and arange.start_out: the result takes the out tensor's
    dtype (float, and Long from float bounds)"""
    def forward(self, end, x):
        a = torch.arange(end, out=torch.tensor([1], dtype=torch.float))
        b = torch.arange(x.size(0), end, out=torch.tensor([1], dtype=torch.float))
        c = torch.arange(x.size(0), end, 1.5, out=torch.tensor([1], dtype=torch.int64))
        return a, b, c


class ArgKeep(torch.nn.Module):
    """argmax/argmin over the whole input: keepdim keeps every dim as 1
    (none for a 0-d input)"""
    def forward(self, x, s):
        return (torch.argmin(x), torch.argmax(x, keepdim=True), torch.argmin(x, keepdim=True),
                torch.argmax(x, dim=1, keepdim=True), torch.argmax(s, keepdim=True))


class ViewWrites(torch.nn.Module):
    """a mask written element by element through views in nested loops
    of constant bounds, scaled between writes, then 3000 writes in a row:
    traced, about 6000 selects and fills of a [3, 500] tensor"""
    def forward(self, x):
        m = torch.zeros(3, 500)
        for r in range(3):
            for k in range(500):
                m = m * 0.5
                m[r, k] = 1.0
                m[0, 0] = 2.0
        for r in range(3):
            for k in range(500):
                m[r, k] = m[r, k] + 0.25
                m[0, k] = 3.0
        return x + m.sum(0)


if name == "lowprec":
    g = torch.Generator().manual_seed(1)
    write_case(LowPrecision(), [
        ("u", torch.randint(1, 10, (3, 4), dtype=torch.uint8, generator=g), None, []),
        ("i8", torch.randint(-5, 6, (3, 4), dtype=torch.int8, generator=g), None, []),
        ("i16", torch.randint(-20, 21, (3, 4), dtype=torch.int16, generator=g), None, []),
        ("i32", torch.randint(-9, 10, (3, 4), dtype=torch.int32, generator=g), None, [])], d)
elif name == "arange_int":
    write_case(ArangeInt(), [("x", torch.randn(2, 3), None, []),
                             ("end", torch.tensor(8.5), None, [])], d)
elif name == "bce_int_weight":
    write_case(BceIntWeight(), [("x", torch.randn(3, 4), None, []),
                                ("y", torch.empty(3, 4).random_(2), None, []),
                                ("w", torch.tensor([3]), None, []),
                                ("pw", torch.rand(4) * 2, None, [])], d)
elif name == "interp_one":
    write_case(InterpOne(), [("x1", torch.randn(1, 2, 6), None, []), ("x2", torch.randn(1, 2, 4, 6), None, []),
                             ("x3", torch.randn(1, 2, 4, 4, 6), None, [])], d)
elif name == "instnorm_stats":
    write_case(InstanceNormStats(), [("x", torch.randn(2, 5, 16), None, []), ("y", torch.randn(2, 3, 4, 5), None, [])], d)
elif name == "arange_out":
    write_case(ArangeOut(), [("end", torch.tensor(8.5), None, []), ("x", torch.randn(2, 3), None, [])], d)
elif name == "argkeep":
    write_case(ArgKeep(), [("x", torch.randn(7, 3, 5), None, []), ("s", torch.tensor(2.5), None, [])], d)
elif name == "view_writes":
    write_case(ViewWrites(), [("x", torch.randn(2, 500), None, [])], d)
else:
    sys.exit(f"make_torchsuite.py: unknown case {name}")

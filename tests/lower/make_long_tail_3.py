# make_long_tail_3.py - the models of tests/438-lower-long-tail-3.bats:
# more of issue 14's long tail (igamma and igammac with their
# special_gammainc(c) names; frexp, nextafter; gradient; stft, istft;
# fractional_max_pool2d/3d; segment_reduce; mT,
# mH of 0-d tensors, matrix_H, uniform), each case one
# module traced and scripted by torch 1.13, with torch's eager outputs as
# the oracle (opcases.py writes them).  The "igamma_wide" cases are the
# measurement of docs/operators.md's igamma row (special_error.py).
#
#   make_long_tail_3.py NAME DIR
import sys

import numpy as np
import torch
import torch.nn.functional as F

from opcases import write_case

torch.manual_seed(0)
name, d = sys.argv[1], sys.argv[2]
nan, inf = float("nan"), float("inf")
S = torch.special


class Igamma(torch.nn.Module):
    """igamma, igammac and special_gammainc(c), float32 and float64:
    torch's boundary values (a or x 0, below 0, inf, NaN), both the
    series and the continued fraction"""
    def forward(self, a, x, e):
        return (torch.igamma(a, x), torch.igammac(a, x), S.gammainc(a.double(), x.double()),
                S.gammaincc(a.double(), x.double()), torch.igamma(a[:4].reshape(4, 1), x[:6]),
                torch.igammac(e, e))


class IgammaWide(torch.nn.Module):
    def forward(self, a, x):
        return torch.igamma(a, x), torch.igammac(a, x)


def igamma_grid(dt):
    """a and x over 1e-3..1e3 (logarithmically), 0..30, and a near x
    for a 20..1000 (where torch takes its asymptotic series)"""
    g = np.random.default_rng(1)
    a = np.concatenate([10 ** g.uniform(-3, 3, 3000), g.uniform(0, 30, 1000), g.uniform(20, 1000, 1000)])
    x = np.concatenate([10 ** g.uniform(-3, 3, 3000), g.uniform(0, 30, 1000), np.zeros(1000)])
    x[4000:] = a[4000:] * g.uniform(0.7, 1.3, 1000)
    return torch.tensor(a, dtype=dt), torch.tensor(x, dtype=dt)


class FBits(torch.nn.Module):
    """frexp (0, -0, infinities, NaN, denormals, the largest, powers of
    two) and nextafter (toward either side, equal arguments, 0 and -0,
    denormals, the largest toward inf, infinities, NaN), float32 and
    float64"""
    def forward(self, x, y, x64, y64):
        m, e = torch.frexp(x)
        m64, e64 = torch.frexp(x64)
        return (m, e, m64, e64, torch.nextafter(x, y), torch.nextafter(x64, y64),
                torch.nextafter(y, x), torch.nextafter(y64, x64))


def fbits(dt):
    fi = torch.finfo(dt)
    tiny = fi.tiny * fi.eps  # the smallest denormal
    x = [0.0, -0.0, inf, -inf, nan, tiny, -tiny, 3 * tiny, fi.tiny, -fi.tiny, fi.tiny * 0.5, fi.max,
         -fi.max, 1.0, -1.0, 0.5, 2.0 ** 20, -(2.0 ** -30), 0.1, -7.3, 1e30 if dt == torch.float32 else 1e300,
         fi.max, 1.0, 0.0, -0.0, 1.5, -1.0, 2.0 ** -60, tiny, fi.tiny]
    y = [1.0, -1.0, 0.0, 0.0, 1.0, 0.0, 0.0, -1.0, 0.0, 1.0, 1.0, inf,
         -inf, 2.0, -2.0, 0.0, -inf, 0.0, nan, 0.0, inf,
         0.0, 1.0, -0.0, 0.0, 1.5, 0.0, 1.0, tiny, -1.0]
    x = torch.tensor(x, dtype=dt)
    y = torch.tensor(y, dtype=dt)
    return torch.cat([x, torch.randn(10, dtype=dt) * 1e3]), torch.cat([y, torch.randn(10, dtype=dt) * 1e3])


class Mats(torch.nn.Module):
    """mT, mH, adjoint of a 0-d tensor (the tensor itself, as torch
    1.13), matrix_H (.H) of a 2-d one"""
    def forward(self, s, m):
        return s.mT, s.mH, s.adjoint(), m.H, m.mT * 2


class Uniform(torch.nn.Module):
    """uniform_ (functionalized: uniform) of float and double"""
    def forward(self, x, y):
        return x.clone().uniform_(-2.0, 3.0), y.clone().uniform_()


class Gradient(torch.nn.Module):
    """gradient: spacing None (every dim of a 3-d tensor), a number with
    an int dim, coordinate tensors (edge_order 1 and 2, a dim of 2 at
    order 1, negative dims), an int64 input, a 1-d input at order 2"""
    def forward(self, x, c0, c2, i, v):
        g = torch.gradient(x)
        h = torch.gradient(x, spacing=2.5, dim=1)
        k = torch.gradient(x, spacing=[c0, c2], dim=[0, -1], edge_order=2)
        m = torch.gradient(x, spacing=[c0], dim=[0])
        q = torch.gradient(i, dim=1)
        w = torch.gradient(v, spacing=0.5, edge_order=2)
        return g[0], g[1], g[2], h[0], k[0], k[1], m[0], q[0], w[0]


class Stft(torch.nn.Module):
    """stft (return_complex=False: (re, im) pairs): centred with reflect
    padding and a Hann window shorter than n_fft, normalized, two-sided,
    a batch (not float64: ONNX Runtime 1.30 has no double Conv); istft of (re, im) pairs (torch 1.13's real form):
    centred, a window, length, normalized, two-sided"""
    def forward(self, x, b, w, z, z2):
        return (torch.stft(x, 16, 4, 12, w, return_complex=False),
                torch.stft(b, 8, 3, normalized=True, onesided=False, center=False, return_complex=False),
                torch.stft(x, 10, return_complex=False),
                torch.istft(z, 8, 2, window=torch.hann_window(8)),
                torch.istft(z, 8, 3, length=20, center=False, normalized=True),
                torch.istft(z2, 6, onesided=False))


class FracPool(torch.nn.Module):
    """fractional_max_pool2d/3d given their samples (kernel and output
    sizes per dim, output_ratio, indices, unbatched, a NaN and -inf in the
    input, float64)"""
    def forward(self, x, s, v, t, q):
        a, ai = F.fractional_max_pool2d(x, 2, output_size=3, return_indices=True, _random_samples=s)
        b = F.fractional_max_pool2d(x, (3, 2), output_ratio=(0.5, 0.7), _random_samples=s)
        cc, ci = F.fractional_max_pool3d(v, (2, 1, 2), output_size=(3, 2, 2), return_indices=True,
                                         _random_samples=t)
        e, ei = F.fractional_max_pool2d(x[0].double(), 2, output_size=(4, 2), return_indices=True,
                                        _random_samples=q.double())
        return a, ai, b, cc, ci, e, ei


class Segments(torch.nn.Module):
    """segment_reduce along axis 0: lengths (an empty segment) and
    offsets, sum, mean, max, min, prod, initial, a NaN in a max and a
    min segment, 2-d data"""
    def forward(self, x, m, ln, off):
        return (torch.segment_reduce(x, "sum", lengths=ln),
                torch.segment_reduce(x, "mean", lengths=ln),
                torch.segment_reduce(x, "mean", lengths=ln, initial=2.0),
                torch.segment_reduce(x, "max", lengths=ln),
                torch.segment_reduce(x, "min", offsets=off, initial=-0.5),
                torch.segment_reduce(x, "prod", offsets=off),
                torch.segment_reduce(m, "max", lengths=ln, initial=0.25),
                torch.segment_reduce(m, "sum", offsets=off, initial=1.0))


x32, y32 = fbits(torch.float32)
x64, y64 = fbits(torch.float64)
aw, xw = igamma_grid(torch.float32)
aw64, xw64 = igamma_grid(torch.float64)
cases = {
    "igamma": (Igamma(), [("a", torch.cat([torch.tensor([0.0, 0.0, 0.0, 1.0, inf, inf, nan, 1.0, -1.0, 2.0, nan, 0.5, 3.0,
                                                          25.0, 150.0, 1e-3, 4.0, 1.0, 2.5, 0.0]),
                                            torch.rand(20) * 10]), None, []),
                          ("x", torch.cat([torch.tensor([1.0, 0.0, nan, 0.0, 1.0, inf, 0.0, nan, 1.0, -1.0, inf, inf, 3.5,
                                                         26.0, 140.0, 2.0, 0.1, 30.0, 1e-4, -0.0]),
                                           torch.rand(20) * 12]), None, []),
                          ("e", torch.zeros(0, 3), None, [])]),
    "igamma_wide": (IgammaWide(), [("a", aw, None, []), ("x", xw, None, [])]),
    "igamma_wide64": (IgammaWide(), [("a", aw64, None, []), ("x", xw64, None, [])]),
    "gradient": (Gradient(), [("x", torch.randn(3, 2, 5), None, []),
                              ("c0", torch.tensor([0.0, 0.5, 2.0]), None, []),
                              ("c2", torch.tensor([1.0, 1.1, 3.0, 3.5, 7.0]), None, []),
                              ("i", torch.randint(-9, 9, (2, 4)), None, []), ("v", torch.randn(6), None, [])]),
    "stft": (Stft(), [("x", torch.randn(40), None, []), ("b", torch.randn(2, 30), None, []),
                      ("w", torch.hann_window(12), None, []), ("z", torch.randn(5, 9, 2), None, []),
                      ("z2", torch.randn(6, 4, 2), None, [])]),
    "fracpool": (FracPool(), [("x", torch.cat([torch.randn(2, 3, 7, 6), torch.full((2, 3, 1, 6), -float("inf"))], 2)
                                        .index_put_((torch.tensor([1]), torch.tensor([2]), torch.tensor([3]),
                                                     torch.tensor([4])), torch.tensor(float("nan")))
                                        .index_put_((torch.tensor([0]), torch.tensor([0]), torch.tensor([0]),
                                                     torch.tensor([0])), torch.tensor(float("nan"))), None, []),
                              ("s", torch.rand(2, 3, 2), None, []), ("v", torch.randn(1, 2, 5, 4, 6), None, []),
                              ("t", torch.rand(1, 2, 3), None, []), ("q", torch.rand(1, 3, 2), None, [])]),
    "segments": (Segments(), [("x", torch.tensor([1.0, -2.0, float("nan"), 4.0, 0.5, -3.0, 2.0, 7.0]), None, []),
                              ("m", torch.randn(8, 3), None, []), ("ln", torch.tensor([2, 0, 3, 1, 2]), None, []),
                              ("off", torch.tensor([0, 3, 3, 5, 8]), None, [])]),
    "mats": (Mats(), [("s", torch.tensor(1.5), None, []), ("m", torch.randn(3, 4), None, [])]),
    "uniform": (Uniform(), [("x", torch.zeros(50, 40), None, []), ("y", torch.zeros(7, dtype=torch.float64), None, [])]),
    "fbits": (FBits(), [("x", x32, None, []), ("y", y32, None, []), ("x64", x64, None, []), ("y64", y64, None, [])]),
}
m, ins = cases[name]
write_case(m, ins, d)
if name.startswith("igamma_wide"):
    with open(f"{d}/names.txt", "w") as f:
        f.write("igamma\nigammac\n")

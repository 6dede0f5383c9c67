# make_long_tail_5.py - the models of tests/437-lower-long-tail-5.bats:
# the OpInfo family's last operators of issue 14 (isin; linalg_matrix_exp
# and matrix_exp; histogramdd; ctc_loss), each case one module traced and
# scripted by torch 1.13, with torch's eager outputs as the oracle
# (opcases.py writes them).
#
#   make_long_tail_5.py NAME DIR
import sys
from typing import List

import torch
import torch.nn.functional as F

from opcases import write_case

torch.manual_seed(0)
name, d = sys.argv[1], sys.argv[2]
nan, inf = float("nan"), float("inf")


class Isin(torch.nn.Module):
    """isin, Tensor_Tensor (float against float, NaN and -0 in both, long
    against double, int32 against int64, an empty test set, 2-d test
    elements), Tensor_Scalar (int and float numbers against long),
    Scalar_Tensor, assume_unique, invert"""
    def forward(self, x, t, i, j, k):
        return (torch.isin(x, t), torch.isin(i, t.double()), torch.isin(j, i, invert=True),
                torch.isin(i, t[:0].long()), torch.isin(x, t.reshape(2, 3), assume_unique=True),
                torch.isin(i, 3), torch.isin(i, 2.5, invert=True), torch.isin(4, i),
                torch.isin(x[:0], t), torch.isin(k, 1.0))


class Hdd(torch.nn.Module):
    """histogramdd: bin counts per dim with a range (a point outside it,
    one on the last edge), weight and density; one count for every dim
    over the data's range (an equal range widened); edge tensors; float64
    of rank 3; an empty input (range [0, 1], density NaN)"""
    def forward(self, x, w, e0, e1, y, z):
        a = torch.histogramdd(x, bins=[3, 4], range=[0.0, 1.0, -1.0, 2.0], weight=w, density=True)
        b = torch.histogramdd(x, bins=3)
        c = torch.histogramdd(x, bins=[e0, e1], weight=w)
        d = torch.histogramdd(y, bins=2, density=True)
        f = torch.histogramdd(z, bins=[2, 3], density=True)
        g = torch.histogramdd(x[:, :1], bins=4, range=[0.5, 0.5])
        return (a[0], a[1][0], a[1][1], b[0], b[1][1], c[0], c[1][0], d[0], d[1][2], f[0], f[1][1],
                g[0], g[1][0])


class HddParts(torch.nn.Module):
    """histogramdd's parts, as torch.histogramdd's Python calls them"""
    def forward(self, x, w, e0, e1):
        ed = torch._histogramdd_bin_edges(x, [2, 3], range=[0.0, 1.0, -1.0, 2.0], weight=w)
        return (torch._histogramdd_from_bin_cts(x, [2, 3], range=[0.0, 1.0, -1.0, 2.0], weight=w, density=True),
                ed[0], ed[1], torch._histogramdd_from_bin_tensors(x, [e0, e1], density=False))


class Mexp(torch.nn.Module):
    """linalg_matrix_exp and matrix_exp: a batch whose 1-norms reach every
    Taylor form (degree 1 to 18, and 18 with squarings), float32 and
    float64, a 1-by-1 matrix (exp), a batch of rank 2, an empty batch"""
    def forward(self, a, d, o, b, e):
        return (torch.linalg.matrix_exp(a), torch.matrix_exp(d), torch.linalg.matrix_exp(o),
                torch.matrix_exp(b), torch.linalg.matrix_exp(e))


class MexpWide(torch.nn.Module):
    """matrix_exp of sizes 1 to 16 (the measurement)"""
    def forward(self, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15, m16):
        E = torch.linalg.matrix_exp
        return (E(m1), E(m2), E(m3), E(m4), E(m5), E(m6), E(m7), E(m8), E(m9), E(m10), E(m11), E(m12),
                E(m13), E(m14), E(m15), E(m16))


def normed(k, norms, dt, seed):
    """matrices k by k of the given 1-norms"""
    g = torch.Generator().manual_seed(seed)
    a = torch.randn(len(norms), k, k, generator=g, dtype=torch.float64)
    a = a / a.abs().sum(-2).amax(-1)[:, None, None] * torch.tensor(norms, dtype=torch.float64)[:, None, None]
    return a.to(dt)


# every Taylor form of float32 and float64 (torch's thetas), squarings
NORMS = [1e-8, 1e-7, 5e-6, 1e-4, 0.02, 0.2, 0.5, 1.0, 2.0, 4.0, 9.0, 30.0]


class Ctc(torch.nn.Module):
    """ctc_loss: padded targets with tensor lengths (reductions none,
    mean, sum; input lengths below T; a target of length 0; repeated
    labels; an alignment too long for its input: inf, or 0 with
    zero_infinity; blank 2), concatenated targets with int[] lengths,
    float64, unbatched"""
    def forward(self, lp, tg, il, tl, lp64, tc, u):
        return (torch.ctc_loss(lp, tg, il, tl, 0, 0, False), torch.ctc_loss(lp, tg, il, tl, 0, 1, True),
                torch.ctc_loss(lp, tg, il, tl, 0, 2, True), torch.ctc_loss(lp, tg + 1, il, tl, 2, 0, True),
                torch.ctc_loss(lp64, tc, [7, 5, 6, 7], [3, 1, 0, 2], 0, 0, False),
                torch.ctc_loss(lp64, tc, [7, 5, 6, 7], [3, 1, 0, 2], 3, 1, False),
                torch.ctc_loss(u, tg[0, :3], [6], [3], 0, 0, False),
                torch.ctc_loss(u, tg[1, :2], [7], [2], 0, 1, False))


class CtcWide(torch.nn.Module):
    """ctc_loss of OpInfo's size (the measurement)"""
    def forward(self, lp, tg, il, tl):
        return torch.ctc_loss(lp, tg, il, tl, 0, 0, False)


def ctc_wide(dt):
    g = torch.Generator().manual_seed(5)
    return [("lp", torch.randn(50, 16, 20, generator=g, dtype=torch.float64).log_softmax(-1).to(dt), None, []),
            ("tg", torch.randint(1, 20, (16, 30), generator=g), None, []),
            ("il", torch.randint(40, 51, (16,), generator=g), None, []),
            ("tl", torch.randint(10, 31, (16,), generator=g), None, [])]


def log_probs(*shape, dt=torch.float32):
    return torch.randn(*shape, dtype=torch.float64).log_softmax(-1).to(dt)


def hdd_x():
    x = torch.rand(12, 2) * torch.tensor([1.0, 3.0]) - torch.tensor([0.0, 1.0])
    x[0] = torch.tensor([1.0, 2.0])   # on the last edges
    x[1] = torch.tensor([1.5, 0.0])   # outside the range
    x[2, 1] = x[3, 1] = 0.5
    return x


CASES = {
    "isin": (Isin(), [("x", torch.tensor([[1.0, -0.0, nan, 2.5], [7.0, 3.0, -1.0, inf]]), None, []),
                      ("t", torch.tensor([0.0, nan, 2.5, 3.0, 8.0, inf]), None, []),
                      ("i", torch.tensor([1, 3, 4, 8, -2, 3]), None, []),
                      ("j", torch.tensor([[3, 5], [1, 8]], dtype=torch.int32), None, []),
                      ("k", torch.tensor(1.0, dtype=torch.float64), None, [])]),
    "hdd": (Hdd(), [("x", hdd_x(), None, []), ("w", torch.rand(12), None, []),
                    ("e0", torch.tensor([0.0, 0.25, 0.5, 1.0]), None, []),
                    ("e1", torch.tensor([-1.0, 0.5, 2.0]), None, []),
                    ("y", torch.rand(3, 2, 3, dtype=torch.float64), None, []), ("z", torch.rand(0, 2), None, [])]),
    "mexp": (Mexp(), [("a", normed(4, NORMS, torch.float32, 1), None, []),
                      ("d", normed(3, NORMS, torch.float64, 2), None, []),
                      ("o", torch.tensor([[[0.5]], [[-3.0]]]), None, []),
                      ("b", normed(5, [0.1, 3.0, 1e-3, 12.0], torch.float32, 3).reshape(2, 2, 5, 5), None, []),
                      ("e", torch.zeros(0, 3, 3), None, [])]),
    "mexp_wide": (MexpWide(), [(f"m{k}", normed(k, NORMS, torch.float32, k), None, []) for k in range(1, 17)]),
    "mexp_wide64": (MexpWide(), [(f"m{k}", normed(k, NORMS, torch.float64, k), None, []) for k in range(1, 17)]),
    "ctc": (Ctc(), [("lp", log_probs(7, 5, 5), None, []),
                    ("tg", torch.tensor([[1, 2, 2, 3], [3, 3, 1, 0], [3, 0, 0, 0], [1, 2, 3, 1], [2, 2, 2, 2]]), None, []),
                    ("il", torch.tensor([7, 6, 5, 7, 3]), None, []), ("tl", torch.tensor([4, 3, 0, 4, 3]), None, []),
                    ("lp64", log_probs(7, 4, 6, dt=torch.float64), None, []),
                    ("tc", torch.tensor([1, 5, 5, 2, 4, 1], dtype=torch.int32), None, []),
                    ("u", log_probs(7, 5), None, [])]),
    "ctc_wide": (CtcWide(), ctc_wide(torch.float32)),
    "ctc_wide64": (CtcWide(), ctc_wide(torch.float64)),
    "hddparts": (HddParts(), [("x", hdd_x(), None, []), ("w", torch.rand(12), None, []),
                              ("e0", torch.tensor([0.0, 0.25, 0.5, 1.0]), None, []),
                              ("e1", torch.tensor([-1.0, 0.5, 2.0]), None, [])]),
}

m, ins = CASES[name]
write_case(m, ins, d)

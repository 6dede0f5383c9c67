# make_long_tail_4.py - the models of tests/439-lower-long-tail-4.bats:
# the opinfo family's remaining lower and fold failures (issue 14):
# convolutions with padding='same' / 'valid' (aten::_convolution_mode and
# the string-padding overloads of conv1d/2d/3d), native_batch_norm's
# saved statistics, index_add / index_copy, grid_sample below opset 16,
# det of singular matrices and linalg.cond with p = +-1 / +-inf; each
# case one module traced and scripted by torch 1.13, with torch's eager
# outputs as the oracle (opcases.py writes them).
#
#   make_long_tail_4.py NAME DIR
import sys

import torch
import torch.nn.functional as F

from opcases import write_case

torch.manual_seed(0)
name, d = sys.argv[1], sys.argv[2]


class ConvMode(torch.nn.Module):
    """conv1d/2d/3d with padding 'same' (odd and even kernels, dilation:
    torch pads the odd extra on the right) and 'valid', groups, no bias,
    an unbatched conv1d"""
    def forward(self, x1, w1, b1, x2, w2, x3, w3):
        return (F.conv1d(x1, w1, b1, padding="same", dilation=3),
                F.conv1d(x1, w1, None, padding="valid", dilation=2),
                F.conv1d(x1[0], w1, b1, padding="same"),
                F.conv2d(x2, w2, None, padding="same", dilation=(2, 1), groups=2),
                F.conv2d(x2, w2, None, padding="valid", groups=2),
                F.conv3d(x3, w3, None, padding="same", dilation=(1, 2, 3)))


class NativeBN(torch.nn.Module):
    """native_batch_norm's three outputs: training (the batch's mean and
    invstd, with and without weight and bias, one channel) and eval (torch
    saves nothing: two empty tensors); training updates the running
    statistics in place (read after it, by an eval batch_norm too)"""
    def forward(self, x, w, b, rm, rv, y):
        e = torch.native_batch_norm(x, w, b, rm, rv, False, 0.1, 1e-5)
        a = torch.native_batch_norm(x, w, b, rm, rv, True, 0.5, 0.6)
        n = torch.native_batch_norm(y, None, None, None, None, True, 0.1, 1e-5)
        f = F.batch_norm(x[1:], rm, rv, None, None, True, 0.3)
        return (a[0], a[1], a[2], e[0], e[1], e[2], n[0], n[1], n[2], f, rm + 0, rv + 0,
                F.batch_norm(x, rm, rv, w, b, False))


class Index0d(torch.nn.Module):
    """index_add (alpha), index_copy and index_fill of a 0-d self (one
    element along dim 0 or -1), and of a 2-d one along dim -1"""
    def forward(self, s, i, t, x, j, u):
        return (torch.index_add(s, 0, i, t, alpha=-2), torch.index_copy(s, -1, i, t),
                torch.index_fill(s, 0, i, 1.5), torch.index_add(s, -1, i, t.reshape(1)),
                torch.index_add(x, -1, j, u, alpha=3), torch.index_copy(x, 1, j[:2], u[:, :2]))


class Grid(torch.nn.Module):
    """grid_sample below opset 16 (4-d): bilinear and nearest, padding
    zeros, border and reflection, align_corners both ways, float64, a
    1-pixel-wide input; the grid reaches past the image on every side and
    holds rounding ties"""
    def forward(self, x, g, y, gy):
        gs = F.grid_sample
        return (gs(x, g, "bilinear", "zeros", False), gs(x, g, "bilinear", "zeros", True),
                gs(x, g, "bilinear", "border", False), gs(x, g, "bilinear", "border", True),
                gs(x, g, "bilinear", "reflection", False), gs(x, g, "bilinear", "reflection", True),
                gs(x, g, "nearest", "zeros", False), gs(x, g, "nearest", "zeros", True),
                gs(x, g, "nearest", "border", False), gs(x, g, "nearest", "border", True),
                gs(x, g, "nearest", "reflection", False), gs(x, g, "nearest", "reflection", True),
                gs(x.double(), g.double(), "bilinear", "reflection", False),
                gs(y, gy, "bilinear", "reflection", True), gs(y, gy, "nearest", "border", False))


class GridCubic(torch.nn.Module):
    """bicubic grid_sample: refused below opset 16"""
    def forward(self, x, g):
        return F.grid_sample(x, g, "bicubic", "zeros", False)


def grid(n, h, w):
    """uniform over [-3, 3], with the exact ties -1, 0, 1, 0.5 mixed in"""
    g = torch.rand(n, h, w, 2) * 6 - 3
    ties = torch.tensor([-1.0, 0.0, 1.0, 0.5, -0.5, 0.25, 2.0, -2.2])
    g.view(-1)[::5] = ties.repeat(g.numel() // 40 + 1)[:g.view(-1)[::5].numel()]
    return g


class Cond(torch.nn.Module):
    """linalg.cond with p 1, -1, inf, -inf (a batch, float64, a singular
    matrix: torch's inf)"""
    def forward(self, a, b, z):
        L = torch.linalg
        return (L.cond(a, 1), L.cond(a, -1), L.cond(a, float("inf")), L.cond(a, -float("inf")),
                L.cond(b, 1), L.cond(z, float("inf")))


class Det(torch.nn.Module):
    """det, slogdet, logdet: singular 2x2 and 5x5 (rank 3) matrices
    (torch's values are LU rounding noise: getrf of A^T in OpenBLAS's
    order), a batch, float64"""
    def forward(self, s, a, t):
        sg, la = torch.linalg.slogdet(a)
        return torch.linalg.det(s), torch.det(t), sg, la, torch.logdet(a), torch.linalg.det(a.double())


def singular(k, n, rank):
    g = torch.Generator().manual_seed(k)
    u = torch.randn(k, n, rank, generator=g)
    return u @ torch.randn(k, rank, n, generator=g)


cases = {
    "convmode": (ConvMode(), [("x1", torch.randn(2, 3, 11), None, []), ("w1", torch.randn(4, 3, 4), None, []),
                              ("b1", torch.randn(4), None, []), ("x2", torch.randn(1, 4, 7, 6), None, []),
                              ("w2", torch.randn(6, 2, 2, 3), None, []), ("x3", torch.randn(1, 2, 5, 6, 7), None, []),
                              ("w3", torch.randn(3, 2, 2, 3, 2), None, [])]),
    "nbn": (NativeBN(), [("x", torch.randn(4, 3, 5) * 3 + 1, None, []), ("w", torch.randn(3), None, []),
                         ("b", torch.randn(3), None, []), ("rm", torch.randn(3), None, []),
                         ("rv", torch.rand(3) + 0.5, None, []), ("y", torch.randn(6, 1), None, [])]),
    "index0d": (Index0d(), [("s", torch.tensor(1.25), None, []), ("i", torch.tensor([0]), None, []),
                            ("t", torch.tensor(-0.5), None, []), ("x", torch.randn(3, 4), None, []),
                            ("j", torch.tensor([3, 0, 3]), None, []), ("u", torch.randn(3, 3), None, [])]),
    "grid": (Grid(), [("x", torch.randn(2, 3, 5, 4), None, []), ("g", grid(2, 6, 7), None, []),
                      ("y", torch.randn(1, 2, 3, 1), None, []), ("gy", grid(1, 4, 3), None, [])]),
    "gridcubic": (GridCubic(), [("x", torch.randn(1, 2, 3, 4), None, []), ("g", grid(1, 2, 3), None, [])]),
    "cond": (Cond(), [("a", torch.randn(3, 4, 4), None, []), ("b", torch.randn(5, 5, dtype=torch.float64), None, []),
                      ("z", torch.tensor([[1.0, 2.0], [2.0, 4.0]]), None, [])]),
    "det": (Det(), [("s", singular(6, 2, 1), None, []), ("a", torch.randn(2, 3, 4, 4), None, []),
                    ("t", singular(4, 5, 3) * 3, None, [])]),
}
m, ins = cases[name]
write_case(m, ins, d)

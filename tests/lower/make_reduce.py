# make_reduce.py - the models of tests/425-lower-reduce.bats and 426: more
# of issue 14's long tail (reductions and statistics: median, mode,
# quantile, nanquantile, nansum, nanmean, sum_to_size, logspace,
# trapezoid, cumulative_trapezoid, renorm; losses; elementwise), each case
# one module of several operators, traced and scripted by torch 1.13,
# with torch's eager outputs as the oracle (opcases.py writes them).
#
#   make_reduce.py NAME DIR
import sys
from typing import Final

import torch
import torch.nn.functional as F

from opcases import write_case

torch.manual_seed(0)
name, d = sys.argv[1], sys.argv[2]
r = torch.randn
nan = float("nan")
inf = float("inf")


class Order(torch.nn.Module):
    """median (all; dim, keepdim; NaN rows: NaN and the first NaN's
    index; ties), mode (ties of count: the smallest value, its last
    index), quantile and nanquantile (q a number, a 0-d and a 1-d tensor;
    dim None, a dim, keepdim; the five interpolations; NaN rows)"""
    def forward(self, x, m, t, q, q0):
        return (torch.median(x), torch.median(x, 1)[0], torch.median(x, 1)[1],
                torch.median(m, 0, True)[0], torch.median(m, 0, True)[1], torch.median(m),
                torch.mode(t)[0], torch.mode(t)[1], torch.mode(t, 0, True)[0], torch.mode(t, 0, True)[1],
                torch.quantile(x, 0.3), torch.quantile(x, q, 1), torch.quantile(x, q0, 0, True),
                torch.quantile(m, q, 1, interpolation="lower"),
                torch.quantile(x, 0.4, 1, interpolation="higher"),
                torch.quantile(x, q, None, True, interpolation="midpoint"),
                torch.quantile(x, q, 0, interpolation="nearest"),
                torch.nanquantile(m, q, 1), torch.nanquantile(m, 0.75),
                torch.nanquantile(m, q0, 0, interpolation="nearest"),
                torch.nanquantile(m, q, 1, True, interpolation="midpoint"))


class Sums(torch.nn.Module):
    """nansum and nanmean (all, a dim, dims, keepdim, dtype; integers;
    all-NaN rows), sum_to_size (leading dims, 1s, integers), logspace
    (bases, one step, integer dtype), trapezoid, trapz and
    cumulative_trapezoid (x 1-d, x of y's shape, a shorter x; dx; dims),
    renorm (p 2, 1, inf, 3; dims; rows under maxnorm)"""
    def forward(self, x, m, i, y, t, t2):
        return (torch.nansum(m), torch.nansum(m, 1), torch.nansum(m, [0, 1], True),
                torch.nansum(i), torch.nansum(i, 0), torch.nansum(m, 0, dtype=torch.float64),
                torch.nanmean(m), torch.nanmean(m, 1), torch.nanmean(m, [0], True),
                x.sum_to_size(3, 1), x.sum_to_size(1), i.sum_to_size(1, 4), x.sum_to_size(2, 3, 4),
                torch.logspace(0, 3, 5), torch.logspace(-1, 2, 4, 2.0), torch.logspace(0, -3, 1),
                torch.logspace(2.5, -3, 3, dtype=torch.int64), torch.logspace(0, 3, 5, 2.0, dtype=torch.int32),
                torch.trapezoid(y), torch.trapezoid(y, t), torch.trapezoid(y, dx=0.5, dim=0),
                torch.trapezoid(y, t2, dim=0), torch.trapz(y, t), torch.trapz(y, dx=2.0),
                torch.trapezoid(y, y * 2, dim=1), torch.trapezoid(i),
                torch.cumulative_trapezoid(y), torch.cumulative_trapezoid(y, t),
                torch.cumulative_trapezoid(y, dx=0.5, dim=0), torch.cumulative_trapezoid(y, y * 2, dim=0),
                torch.renorm(x, 2, 0, 1.0), torch.renorm(x, 1, 1, 2.0), torch.renorm(x, float("inf"), 2, 0.5),
                torch.renorm(y, 3, 1, 1.5), torch.renorm(t2, 2, 0, 0.5))


class LossSet(torch.nn.Module):
    """the losses of one reduction"""
    red: Final[str]

    def __init__(self, red: str):
        super().__init__()
        self.red = red

    def forward(self, x, y, pm, t1, a, b, ct, u, v, w, cl, wt, ml, x1):
        red = self.red
        return (F.huber_loss(x, y, reduction=red), F.huber_loss(x, y, reduction=red, delta=0.5),
                F.hinge_embedding_loss(x, pm, reduction=red), F.hinge_embedding_loss(x, pm, 0.3, reduction=red),
                F.margin_ranking_loss(x[0], y[0], t1, reduction=red),
                F.margin_ranking_loss(x, y, pm.expand(4, 5), 0.2, reduction=red),
                F.poisson_nll_loss(x, y.abs(), reduction=red),
                F.poisson_nll_loss(x.abs(), y.abs() * 3, False, True, reduction=red, eps=1e-4),
                F.soft_margin_loss(x, pm, reduction=red),
                F.cosine_embedding_loss(a, b, ct, reduction=red),
                F.cosine_embedding_loss(a, b, ct, 0.25, reduction=red),
                F.cosine_embedding_loss(a[0], b[0], ct[0], -0.5, reduction=red),
                F.triplet_margin_loss(u, v, w, reduction=red),
                F.triplet_margin_loss(u, v, w, 0.5, 1.0, reduction=red),
                F.triplet_margin_loss(u, v, w, 2.0, 3.0, 1e-3, True, reduction=red),
                F.multi_margin_loss(a, cl, reduction=red),
                F.multi_margin_loss(a, cl, 2, 0.5, wt, reduction=red),
                F.multi_margin_loss(a[1], cl[1], reduction=red),
                F.multilabel_margin_loss(x1, ml, reduction=red),
                F.multilabel_margin_loss(x1[2], ml[2], reduction=red))


class Losses(torch.nn.Module):
    """huber (delta), hinge_embedding (margin; targets +-1 and others),
    margin_ranking (broadcast target), poisson_nll (log_input, full, eps),
    soft_margin, cosine_embedding (batched, unbatched, margin),
    triplet_margin (p 2, 1, 3; swap), multi_margin (p 1, 2; margin,
    weight; 1-d input), multilabel_margin (labels ended by -1; 1-d), each
    with reduction none, mean and sum"""
    def __init__(self):
        super().__init__()
        self.none, self.mean, self.sum = LossSet("none"), LossSet("mean"), LossSet("sum")

    def forward(self, x, y, pm, t1, a, b, ct, u, v, w, cl, wt, ml, x1):
        return (self.none(x, y, pm, t1, a, b, ct, u, v, w, cl, wt, ml, x1)
                + self.mean(x, y, pm, t1, a, b, ct, u, v, w, cl, wt, ml, x1)
                + self.sum(x, y, pm, t1, a, b, ct, u, v, w, cl, wt, ml, x1))


class Pointwise(torch.nn.Module):
    """signbit (-0, infinities, integers), isposinf, isneginf, isreal,
    angle, real and positive of real tensors, heaviside, ldexp (integer
    and float exponents), isclose (rtol, atol, equal_nan, integers), gcd
    and lcm (negatives, zeros, int64 past 2^53, int32, broadcast)"""
    def forward(self, x, v, i, j, e, k, l):
        return (torch.signbit(x), torch.signbit(i), torch.isposinf(x), torch.isneginf(x),
                torch.isposinf(i), torch.isreal(x), torch.angle(x), torch.angle(i), torch.real(x),
                torch.positive(x), torch.positive(i), torch.heaviside(x, v), torch.heaviside(i, j),
                torch.ldexp(x, e), torch.ldexp(x, v), torch.ldexp(i, e),
                torch.isclose(x, x + 1e-6), torch.isclose(x, v, 0.5, 0.1), torch.isclose(x, x, equal_nan=True),
                torch.isclose(x, x * (1 + 1e-5), rtol=0.0, atol=0.0), torch.isclose(i, j, 0.0, 2.0),
                torch.gcd(i, j), torch.lcm(i, j), torch.gcd(k, l), torch.lcm(k, l), torch.gcd(k, l[0]),
                torch.gcd(i.to(torch.int32), j.to(torch.int32)), torch.lcm(i.to(torch.int32), j[0].to(torch.int32)))


class Products(torch.nn.Module):
    """kron (ranks 1, 2, 3; integers), vdot, linalg.vecdot (dims,
    broadcast), linalg.vander (N; integers), linalg.multi_dot (2, 3, 4
    matrices; 1-d ends), linalg.matrix_power and matrix_power (n 0, 1, 2,
    3, 5, 6; batched), combinations (r 1, 2, 3, 0, past the length; with
    replacement), narrow_copy (negative start), as_strided_scatter (a
    view reading places twice), fft.fftshift and ifftshift (dims),
    new_empty_strided (its shape and dtype)"""
    def forward(self, a, b, v, w, m, i, s):
        return (torch.kron(a, b), torch.kron(v, a), torch.kron(i, i[:2]), torch.kron(s, a),
                torch.vdot(v, w), torch.linalg.vecdot(a, b), torch.linalg.vecdot(a, b[0], dim=0),
                torch.linalg.vander(v), torch.linalg.vander(w, N=5), torch.linalg.vander(i[0]),
                torch.linalg.multi_dot([a, b.t()]), torch.linalg.multi_dot([v[:3], a, b.t()]),
                torch.linalg.multi_dot([a, b.t(), m, v[:3]]), torch.linalg.multi_dot([a.t(), a, b.t(), m]),
                torch.linalg.matrix_power(m, 0), torch.linalg.matrix_power(m, 1), torch.linalg.matrix_power(m, 2),
                torch.linalg.matrix_power(m, 3), torch.linalg.matrix_power(m, 5), torch.matrix_power(s, 6),
                torch.combinations(v), torch.combinations(v, 1), torch.combinations(v[:4], 3),
                torch.combinations(v[:3], 2, True), torch.combinations(v[:2], 3), torch.combinations(i[0], 0),
                torch.narrow_copy(a, 1, 1, 2), torch.narrow_copy(s, 2, -2, 2),
                torch.as_strided_scatter(a, b[:2, :2], (2, 2), (1, 2), 1),
                torch.as_strided_scatter(m, w[:4].reshape(2, 2), (2, 2), (1, 1)),
                torch.fft.fftshift(a), torch.fft.ifftshift(a), torch.fft.fftshift(s, dim=(0, 2)),
                torch.fft.ifftshift(v, dim=0), torch.zeros_like(a.new_empty_strided((2, 5), (5, 1))),
                torch.zeros_like(i.new_empty_strided((3,), (1,), dtype=torch.float64)))


class MatrixPowerNeg(torch.nn.Module):
    """matrix_power of a negative n: of the inverse (an ONNX Loop of LU,
    lib/lower/symbolic_linalg.c, from opset 11)"""
    def forward(self, m):
        return torch.linalg.matrix_power(m, -2), torch.matrix_power(m, -3)


mm = torch.tensor([[1.0, nan, 3.0, -2.0, 0.5, 2.0],
                   [nan] * 6,
                   [4.0, 2.0, -1.0, 7.0, nan, inf],
                   [0.25, -3.0, 9.0, 1.5, 2.5, 1.5]])
cases = {
    "mpneg": (MatrixPowerNeg(), [("m", r(2, 3, 3) + 3 * torch.eye(3), None, [])]),
    "products": (Products(), [("a", r(3, 4), None, []), ("b", r(3, 4), None, []), ("v", r(5), None, []),
                              ("w", r(5), None, []), ("m", r(3, 3) / 2, None, []),
                              ("i", torch.randint(-5, 6, (2, 3)), None, []), ("s", r(2, 3, 3) / 2, None, [])]),
    "pointwise": (Pointwise(), [("x", torch.tensor([[0.0, -0.0, 1.5, -2.0, inf, -inf], [nan, 3.0, -1e-3, 0.0, 7.5, -4.0]]), None, []),
                                ("v", torch.tensor([[0.5, 2.0, -1.0, 0.25, 0.0, 3.0], [1.0, nan, 0.0, -2.0, 7.4, -4.2]]), None, []),
                                ("i", torch.tensor([[0, -12, 18, 7, 35, -9], [100, 0, -48, 13, 1, 6]]), None, []),
                                ("j", torch.tensor([[5, 8, -27, 0, 21, -6], [75, 0, 36, 26, -1, 4]]), None, []),
                                ("e", torch.tensor([[0, 1, -2, 3, 5, -1], [2, 10, -20, 0, 1, 4]]), None, []),
                                ("k", torch.tensor([2 ** 62, 3 * 2 ** 54 + 3, -(2 ** 60), 1234567891011, 2 ** 53 + 1, 0]), None, []),
                                ("l", torch.tensor([[2 ** 40, 3 * 2 ** 20, 6, 10987654321, 3, -17]]), None, [])]),
    "losses": (Losses(), [("x", r(4, 5), None, []), ("y", r(4, 5), None, []),
                          ("pm", torch.tensor([1.0, -1.0, 1.0, 0.0, -1.0]), None, []),
                          ("t1", torch.tensor([1.0, -1.0, -1.0, 1.0, 1.0]), None, []),
                          ("a", r(3, 6), None, []), ("b", r(3, 6), None, []),
                          ("ct", torch.tensor([1.0, -1.0, -1.0]), None, []),
                          ("u", r(4, 7), None, []), ("v", r(4, 7), None, []), ("w", r(4, 7), None, []),
                          ("cl", torch.tensor([2, 0, 5]), None, []), ("wt", torch.rand(6) + 0.5, None, []),
                          ("ml", torch.tensor([[3, 0, -1, 1, 2], [1, 2, 3, 4, 0], [-1, 2, 0, 1, 1], [4, 4, -1, 0, 0]]),
                           None, []),
                          ("x1", r(4, 5), None, [])]),
    "sums": (Sums(), [("x", r(2, 3, 4), None, []), ("m", mm, None, []),
                      ("i", torch.randint(-9, 9, (3, 4)), None, []), ("y", r(3, 5), None, []),
                      ("t", torch.rand(5).cumsum(0), None, []), ("t2", torch.rand(3, 1).cumsum(0), None, [])]),
    "order": (Order(), [("x", r(4, 6), r(4, 6), []), ("m", mm, None, []),
                        ("t", torch.tensor([[1.0, 2.0, 2.0], [3.0, 2.0, 1.0], [1.0, 1.0, 3.0], [3.0, 2.0, 2.0],
                                            [1.0, 4.0, 3.0]]), None, []),
                        ("q", torch.tensor([0.0, 0.25, 0.5, 1.0, 0.9]), None, []),
                        ("q0", torch.tensor(0.6), None, [])]),
}
m, ins = cases[name]
write_case(m, ins, d)

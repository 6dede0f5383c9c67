# make_long_tail.py - the models of tests/418-lower-long-tail.bats and
# 419: the long tail of aten operators (issue 14: elementwise functions
# with no ONNX op of their own, fused products, matrix views, stacking and
# flipping), each case one module of several operators, traced and
# scripted by torch 1.13, with torch's eager outputs as the oracle
# (opcases.py writes them).
#
#   make_long_tail.py NAME DIR
import sys

import torch
import torch.nn.functional as F

from opcases import write_case

torch.manual_seed(0)
name, d = sys.argv[1], sys.argv[2]
r = torch.randn


class Hyper(torch.nn.Module):
    """hyperbolic functions and their inverses, trunc, frac, logit (with
    and without eps), expm1, atan2 (zeros of both signs and infinities included)"""
    def forward(self, x, a, u, y, z):
        return (torch.cosh(x), torch.sinh(x), torch.acosh(a), torch.asinh(x),
                torch.atanh(u), torch.trunc(x * 3), torch.fix(x * 3),
                torch.frac(x * 3), torch.logit(u.abs()), torch.logit(u.abs(), 0.2),
                torch.expm1(x), torch.atan2(y, z), torch.arctan2(x, y))


class Funcs(torch.nn.Module):
    """erfc, exp2, logaddexp(2), copysign (-0 included), deg2rad, rad2deg,
    hypot, xlogy (x 0, y NaN), sgn, special_ aliases; integer inputs
    promoted to Float"""
    def forward(self, x, y, n):
        return (torch.erfc(x), torch.exp2(x), torch.exp2(n),
                torch.logaddexp(x, y), torch.logaddexp2(x, y),
                torch.copysign(x, y), torch.copysign(n, -0.0), torch.deg2rad(x),
                torch.rad2deg(x), torch.rad2deg(n), torch.hypot(x, y),
                torch.xlogy(torch.relu(x), y), torch.xlogy(n, y.abs()), torch.sgn(x),
                torch.special.erfc(y), torch.special.exp2(y), torch.special.xlogy(x, 2.0))


class Products(torch.nn.Module):
    """addcdiv (value), addmv, addbmm (beta, alpha; beta 0 drops self's
    NaNs), addr"""
    def forward(self, s, t1, t2, m, v, b1, b2, sm, w1, w2, sn):
        return (torch.addcdiv(s, t1, t2), torch.addcdiv(s, t1, t2, value=-0.5),
                torch.addmv(v[:4], m, v), torch.addmv(v[:4], m, v, beta=0.5, alpha=2.0),
                torch.addbmm(sm, b1, b2), torch.addbmm(sm, b1, b2, beta=2.0, alpha=0.25),
                torch.addbmm(sn, b1, b2, beta=0.0),
                torch.addr(sm, w1, w2), torch.addr(sm, w1, w2, beta=-1.0, alpha=3.0))


class Views(torch.nn.Module):
    """mT, mH, adjoint, broadcast_to, atleast_1d/2d/3d of 0-d, 1-d and
    2-d, hstack, vstack, dstack, column_stack of mixed ranks, fliplr,
    flipud, rot90 of k 1, 2, 3, -1 and other dims"""
    def forward(self, x, v, s, m):
        return (x.mT, x.mH, x.adjoint(), torch.broadcast_to(v, (3, 4, 5)),
                torch.atleast_1d(s), torch.atleast_2d(s), torch.atleast_3d(s),
                torch.atleast_2d(v), torch.atleast_3d(v), torch.atleast_3d(m),
                torch.atleast_1d(x), torch.hstack([v, v * 2]), torch.hstack([m, m]),
                torch.vstack([v, v]), torch.vstack([m, v]), torch.dstack([v, v]),
                torch.dstack([m, m * 3]), torch.column_stack([v, m.t()]),
                torch.column_stack([v, v]), torch.fliplr(m), torch.flipud(x),
                torch.rot90(m), torch.rot90(x, 2, [1, 2]), torch.rot90(x, 3, [2, 0]),
                torch.rot90(x, -1))


class BitsBool(torch.nn.Module):
    def forward(self, p, q):
        return (torch.bitwise_and(p, q), torch.bitwise_or(p, q),
                torch.bitwise_xor(p, q), p & q, p | q, p ^ q)


class BitsInt(torch.nn.Module):
    def forward(self, i, j):
        return (torch.bitwise_and(i, j), torch.bitwise_or(i, j),
                torch.bitwise_xor(i, j), torch.bitwise_and(i, 6))


class Diags(torch.nn.Module):
    """diag of a vector (offsets 0, 2, -1) and of a matrix, diag_embed
    (offset, batched), count_nonzero (all, a dim, dims), cumprod (dims,
    a dtype, integers), argwhere"""
    def forward(self, v, m, x, n):
        return (torch.diag(v), torch.diag(v, 2), torch.diag(v, -1), torch.diag(m),
                torch.diag(m, 1), torch.diag_embed(x), torch.diag_embed(x, -2),
                torch.count_nonzero(x), torch.count_nonzero(x, 1),
                torch.count_nonzero(x, (0, 2)), torch.cumprod(x, 1),
                torch.cumprod(x, -1, dtype=torch.float64), torch.cumprod(n, 0),
                torch.argwhere(x))


class Scans(torch.nn.Module):
    """diagflat, dist (p 2, 1, inf, 0, 3), cummax, cummin (ties: the last
    index; NaNs), logcumsumexp"""
    def forward(self, x, m, p):
        xn = torch.where(x > 0.8, torch.full_like(x, float("nan")), x)
        return (torch.diagflat(m), torch.diagflat(x[0], 1), torch.diagflat(x[1, 0], -2),
                torch.dist(x[0], m[:3, :4]), torch.dist(x[0], m[:3, :4], 1),
                torch.dist(x, x * 2, float("inf")), torch.dist(x, x.round(), 0), torch.dist(x, m[0], 3),
                torch.cummax(x, 1)[0], torch.cummax(x, 1)[1], torch.cummin(m, 0)[0],
                torch.cummin(m, 0)[1], torch.cummax(m.round(), -1)[1],
                torch.logcumsumexp(x, 2), torch.logcumsumexp(m, 0),
                # NaNs: taken and held, the index on the last NaN so far
                torch.cummax(xn, 1)[0], torch.cummax(xn, 1)[1],
                torch.cummin(xn, 2)[0], torch.cummin(xn, 2)[1])


class Core(torch.nn.Module):
    """torch 2.x's core ATen operators that torch 1.13 can record too:
    select_scatter (negative index), slice_scatter (start, end, negative
    end, dim), _softmax, _log_softmax, _to_copy (dtype and none)"""
    def forward(self, x, s, t, u):
        return (torch.select_scatter(x, s, 1, 0), torch.select_scatter(x, s, 1, -1),
                torch.slice_scatter(x, t, dim=1, start=1, end=3, step=1), torch.slice_scatter(x, u, dim=0, step=1),
                torch.slice_scatter(x, t, dim=1, start=-3, end=-1, step=1), torch._softmax(x, 1, False),
                torch._log_softmax(x, -1, False),
                torch.ops.aten._to_copy(x, dtype=torch.float64),
                torch.ops.aten._to_copy(x))


class Special(torch.nn.Module):
    """special_ndtr, sinc (0 included), special_entr (0, negative, NaN)"""
    def forward(self, x, p):
        return (torch.special.ndtr(x), torch.sinc(x), torch.special.sinc(p),
                torch.special.entr(p))


class Refused(torch.nn.Module):
    """linalg_eig: complex outputs, no ONNX meaning"""
    def forward(self, x):
        w, v = torch.linalg.eig(x)
        return torch.view_as_real(w), torch.view_as_real(v)


class Runtime(torch.nn.Module):
    """operators given run-time values: repeat_interleave with tensor
    repeats (and a dim), full / full_like of a value computed, linspace
    of run-time ends, baddbmm with tensor alpha and beta (a beta of 0
    ignores a self of NaN, as torch)"""
    def forward(self, x, rep, b1, b2, a):
        v = x.sum()
        return (torch.repeat_interleave(x, rep, dim=0), torch.repeat_interleave(rep),
                torch.full((2, 3), v.item()), torch.full_like(x, v.item()),
                torch.linspace(v.item(), v.item() + 4.0, 5),
                torch.baddbmm(x[:2, :3].unsqueeze(0), b1, b2, beta=a[0].item(), alpha=a[1].item()),
                # a beta that is 0 at run time: torch ignores self, NaN and all
                torch.baddbmm((x[:2, :3] / 0 * 0).unsqueeze(0), b1, b2, beta=(a[0] * 0).item(),
                              alpha=a[1].item()))


class Unfold(torch.nn.Module):
    """im2col (F.unfold: kernel, dilation, padding, stride; batched and
    not), max_unpool2d and max_unpool3d of max_pool's indices (with an
    output_size larger than the pool's)"""
    def forward(self, x, v):
        y, i = F.max_pool2d(x, 2, return_indices=True)
        z, j = F.max_pool3d(v, 2, stride=2, return_indices=True)
        return (F.unfold(x, (2, 3)), F.unfold(x, 3, dilation=2, padding=1, stride=2),
                F.unfold(x[0], 2), F.max_unpool2d(y, i, 2), F.max_unpool2d(y, i, 2, output_size=[9, 9]),
                F.max_unpool3d(z, j, 2))


class Core2(torch.nn.Module):
    """more core ATen operators: grid_sampler_2d (bilinear, zeros;
    nearest, border, align_corners), _cdist_forward, _local_scalar_dense,
    _adaptive_avg_pool2d/3d"""
    def forward(self, x, g, a, b):
        return (torch.grid_sampler_2d(x, g, 0, 0, False), torch.grid_sampler_2d(x, g, 1, 1, True),
                torch.ops.aten._cdist_forward(a, b, 2.0, None),
                torch.ops.aten._cdist_forward(a, b, 1.0, None),
                x * torch.ops.aten._local_scalar_dense(a.sum()),
                torch._adaptive_avg_pool2d(x, [2, 3]), torch._adaptive_avg_pool3d(x, [1, 5, 3]))


class Diffs(torch.nn.Module):
    """diff (n, dim, prepend, append, bool)"""
    def forward(self, x, p):
        return (torch.diff(x), torch.diff(x, 2, 2),
                torch.diff(x, dim=1, prepend=x[:, :2], append=x[:, :1] * 2),
                torch.diff(p, dim=0))


class Blocks(torch.nn.Module):
    """block_diag (0-d, 1-d, 2-d and empty blocks, an int block
    promoted), cartesian_prod (two and three tensors, one),
    diagonal_scatter (offsets 0, 2, -1, dims 1 and 2, negative dims),
    hsplit/vsplit/dsplit (sections and indices, hsplit of a 1-d)"""
    def forward(self, a, b, v, w, x, s, s2, s3, i):
        return (torch.block_diag(a, b, v), torch.block_diag(a, v[0], torch.zeros(0, 2), b),
                torch.block_diag(a, i), torch.block_diag(v),
                torch.cartesian_prod(v, w), torch.cartesian_prod(w, v[:2], w), torch.cartesian_prod(w),
                torch.diagonal_scatter(a, s), torch.diagonal_scatter(b.t(), s2, 1),
                torch.diagonal_scatter(x, s3, -1, 1, 2), torch.diagonal_scatter(x, s3[:, :1], 2, -1, -2),
                torch.hsplit(x, 3)[1], torch.hsplit(x, [1, 2])[2], torch.hsplit(v, 2)[0],
                torch.vsplit(x, 2)[1], torch.vsplit(a, [1])[0], torch.dsplit(x, [1, 3])[1],
                torch.dsplit(x, 2)[0])


class Stats(torch.nn.Module):
    """cov (correction 0 and 2, fweights, aweights, both, a 1-d input, a
    single variable, too few observations: infinities), corrcoef (a
    constant row: NaN; 1-d), nanmedian (NaNs, an all-NaN row, dim,
    keepdim, integers)"""
    def forward(self, x, fw, aw, y, k, m):
        return (torch.cov(x), torch.cov(x, correction=0), torch.cov(x, correction=2),
                torch.cov(x, fweights=fw), torch.cov(x, aweights=aw),
                torch.cov(x, correction=3, fweights=fw, aweights=aw), torch.cov(x[0]),
                torch.cov(x[:1]), torch.cov(x[:, :2], correction=3),
                torch.corrcoef(x), torch.corrcoef(y), torch.corrcoef(x[1]),
                # the index of an all-NaN row is left to nth_element in torch:
                # only the other rows' indices are compared
                torch.nanmedian(m), torch.nanmedian(m, 1)[0], torch.nanmedian(m, 1)[1][[0, 2, 3]],
                torch.nanmedian(m, 0, True)[0], torch.nanmedian(m, 0, True)[1],
                torch.nanmedian(k), torch.nanmedian(k, -1)[0], torch.nanmedian(k, -1)[1],
                torch.nanmedian(m[3]))


class Pdist(torch.nn.Module):
    """pdist (p 2, 1, 0, inf, 3) and the core _pdist_forward"""
    def forward(self, x):
        return (torch.pdist(x), torch.pdist(x, 1.0), torch.pdist(x.round(), 0.0),
                torch.pdist(x, float("inf")), torch.pdist(x, 3.0),
                torch.ops.aten._pdist_forward(x, 2.0))


class Copies(torch.nn.Module):
    """the *_copy forms of the view ops (functionalized graphs), and an
    in-place write into a copy that must not reach its input"""
    def forward(self, x, v):
        a = torch.ops.aten
        y = a.t_copy(x[0])
        y.add_(1.0)
        parts = a.split_copy(x, 1, 1)
        return (a.view_copy(x, [6, 4]), a.permute_copy(x, [2, 0, 1]), a.expand_copy(v, [3, 4]),
                a.squeeze_copy(x[:, :1], 1), a.unsqueeze_copy(x, 1), y, x[0] * 1,
                a.transpose_copy(x, 0, 2), a.slice_copy(x, 2, 1, 3), a.select_copy(x, 1, -1),
                a.detach_copy(x), a.alias_copy(v), a.diagonal_copy(x, 1, 1, 2),
                a.unbind_copy(x, 0)[1], parts[2], a.split_with_sizes_copy(x, [1, 3], 2)[1],
                a.as_strided_copy(x, [2, 2], [1, 4]))


class ZeroD(torch.nn.Module):
    """reductions over dim 0 or -1 of a 0-d tensor (torch: the tensor
    itself), ArgMax/ArgMin of one, aminmax (keepdim: torch's [1]),
    count_nonzero over an empty dim list, logical_not of floats (NaN,
    -0) and ints, bitwise_not of int64 (its extremes) and uint8"""
    def forward(self, s, x, n):
        u = n.abs().to(torch.uint8)
        return (torch.sum(s, 0, True), torch.all(s, 0), torch.any(s, -1, True),
                torch.prod(s, 0), torch.amin(s, 0, True), torch.amax(s, -1),
                torch.mean(s, 0, True), torch.logsumexp(s, 0), torch.norm(s, dim=0),
                torch.argmax(s, 0, True), torch.argmin(s, -1), torch.max(s, 0)[0],
                torch.max(s, 0, True)[1], torch.min(s, -1)[1],
                torch.aminmax(s, dim=0, keepdim=True)[0], torch.aminmax(s, dim=-1)[1],
                torch.count_nonzero(x, dim=()), torch.count_nonzero(s, 0),
                torch.logical_not(x), torch.logical_not(n), torch.bitwise_not(n), ~n,
                torch.bitwise_not(u))


class ZeroDOps(torch.nn.Module):
    """ops over dim 0 or -1 of a 0-d tensor that are the tensor itself,
    or a [1] made 0-d (softmax: 1, log_softmax: 0, the scans: x, their
    index 0, transpose, topk), index_select, one_hot, nonzero, argwhere of a 0-d, flip,
    fliplr of an empty dim"""
    def forward(self, s, i, e):
        return (torch.softmax(s, 0), torch.log_softmax(s, -1), F.softmin(s, 0),
                torch.cumprod(s, 0), torch.cumprod(i, -1), torch.cummax(s, 0)[0],
                torch.cummax(s, 0)[1], torch.cummin(s, -1)[1], torch.logcumsumexp(s, 0),
                torch.transpose(s, 0, -1), torch.topk(s, 1)[0], torch.topk(s, 1)[1],
                torch.index_select(s, 0, torch.zeros(1, dtype=torch.long)),
                F.one_hot(i, 6), torch.flip(e, (0, 1, 2)), torch.fliplr(e), torch.flipud(e),
                torch.nonzero(s), torch.nonzero(s * 0), torch.argwhere(s))


class Tail2(torch.nn.Module):
    """tile (fewer, more and no dims than the rank), ravel, trace (wide,
    tall, integer: Long), msort, kthvalue (dims, keepdim, a 0-d),
    l1_loss, mse_loss, smooth_l1_loss (beta 1, 0.5, 0), binary_cross_entropy
    (weight, probabilities 0 and 1: torch's -100 clamp), cross_entropy of
    class probabilities (weight, label_smoothing), nll_loss and
    cross_entropy unbatched, each reduction"""
    def forward(self, x, m, i, p, t, w):
        return (torch.tile(x, (2,)), torch.tile(x, (2, 1, 3, 1)), torch.tile(x, ()),
                torch.ravel(x), torch.trace(m), torch.trace(m.t()), torch.trace(i),
                torch.msort(m), torch.kthvalue(x, 2)[0], torch.kthvalue(x, 2)[1],
                torch.kthvalue(x, 1, 0, True)[0], torch.kthvalue(x, 2, 1)[1],
                torch.kthvalue(x[0, 0, 0], 1)[0],
                F.l1_loss(x, x * 0.5), F.l1_loss(m, m.flip(0), reduction="none"),
                F.mse_loss(x, x.round(), reduction="sum"), F.mse_loss(m, m * 2),
                F.smooth_l1_loss(x, x * 3), F.smooth_l1_loss(x, x * 3, beta=0.5, reduction="none"),
                F.smooth_l1_loss(m, m * 3, reduction="sum", beta=0.0),
                F.binary_cross_entropy(p, t), torch.ops.aten.binary_cross_entropy(p, t, w, 2),
                F.binary_cross_entropy(p, t, reduction="none"),
                # class probabilities: weight, label_smoothing, reductions
                F.cross_entropy(x, torch.softmax(x * 2, 1)),
                F.cross_entropy(x, torch.softmax(-x, 1), weight=w[:3], reduction="sum"),
                F.cross_entropy(m, torch.softmax(m, 1), label_smoothing=0.2, reduction="none"),
                # unbatched: an input [C], a 0-d target
                F.nll_loss(m[0], i[0, 0].abs() % 5, reduction="none"), F.cross_entropy(m[1], i[1, 1].abs() % 5))


class Tail3(torch.nn.Module):
    """take_along_dim (a dim, broadcasting either side,
    no dim: flattened), tril_indices / triu_indices (offsets, empty),
    bilinear (batched, 1-d, no bias)"""
    def forward(self, x, i, j, a, b, w, bias):
        return (torch.take_along_dim(x, i, 1), torch.take_along_dim(x[:, :1], j, 0),
                torch.take_along_dim(x, i[:1], 1), torch.take_along_dim(x, j),
                torch.tril_indices(4, 5), torch.tril_indices(5, 3, -1), torch.tril_indices(0, 0),
                torch.triu_indices(4, 6, 2), torch.triu_indices(3, 3, -5),
                F.bilinear(a, b, w, bias), F.bilinear(a[0], b[0], w, bias), F.bilinear(a, b, w))


class BitsWide(torch.nn.Module):
    """bitwise_and/or/xor of integers before opset 18 (bit by bit):
    int64 extremes and negatives, a number operand on either side,
    int32, int16, int8 and uint8 operands (each dtype's own bits),
    broadcasting"""
    def forward(self, i, j, k):
        u, v = i.abs().to(torch.uint8), j.abs().to(torch.uint8)
        s, t = k.to(torch.int8), k.flip(0).to(torch.int8)
        h = k.to(torch.int16)
        return (torch.bitwise_and(i, j), torch.bitwise_or(i, j), torch.bitwise_xor(i, j),
                i & 6, -7 | j, i ^ -1, k & k[:1], (k | 12345), k ^ k.flip(0),
                u & v, u | v, u ^ v, i[:, None] & j[None, :2],
                s & t, s | -3, s ^ t, h & h.flip(1), h | -12345, h ^ 255)


class FBits(torch.nn.Module):
    """fmax/fmin (a NaN on either side, both, integers), float_power
    (float, integer and scalar exponents: double), bitwise shifts of
    signed int64 by 0..62 (torch: wraps; right: floor)"""
    def forward(self, a, b, i, j, k):
        return (torch.fmax(a, b), torch.fmin(a, b), torch.fmax(i, j), torch.fmin(i, j * 2),
                torch.float_power(a.abs(), b), torch.float_power(i, 2), torch.float_power(a, j),
                torch.bitwise_left_shift(i, k), torch.bitwise_right_shift(i, k),
                torch.bitwise_right_shift(j * 1000, 3), i << k, j >> k)


class ShiftWide(torch.nn.Module):
    """arithmetic right shifts of int64 past 2^53 (a double is inexact
    there), by 0..63 (63: 0 or -1), int32 past 2^24, int16 and uint8"""
    def forward(self, x, y, z, u):
        return (x >> y, torch.bitwise_right_shift(x, 3), z >> 2,
                torch.bitwise_right_shift(z, y[:4].to(torch.int32)), u.to(torch.uint8) >> 1,
                ((u - 100).to(torch.int16) >> 2).to(torch.int32))


zy = r(4, 5)
zy[0, :2] = 0.0
zy[0, 1] = -0.0
zz = r(4, 5)
zz[0, 0] = 0.0
zz[0, 1] = -0.0
zz[1, 0] = -0.0
# both infinite (+-pi/4, +-3pi/4), one infinite
zy[2, :4] = torch.tensor([float("inf"), float("inf"), -float("inf"), -float("inf")])
zz[2, :4] = torch.tensor([float("inf"), -float("inf"), float("inf"), -float("inf")])
zy[3, 0], zz[3, 0] = float("inf"), 2.0
zy[3, 1], zz[3, 1] = 1.0, -float("inf")
cases = {
    "hyper": (Hyper(), [("x", r(4, 5), r(2, 5), [0]), ("a", r(4, 5).abs() + 1, r(2, 5).abs() + 1, [0]),
                        ("u", torch.rand(4, 5) * 1.8 - 0.9, torch.rand(2, 5) - 0.5, [0]),
                        ("y", zy, r(2, 5), [0]), ("z", zz, r(2, 5), [0])]),
    "funcs": (Funcs(), [("x", torch.cat([r(3, 5) * 2, torch.tensor([[0.0, -0.0, 1.0, 0.0, -2.0]])]), None, []),
                        ("y", torch.cat([r(3, 5), torch.tensor([[1.0, -0.0, float("nan"), -0.0, 0.0]])]), None, []),
                        ("n", torch.randint(-5, 5, (4, 5)), None, [])]),
    "products": (Products(), [("s", r(3, 4), None, []), ("t1", r(3, 4), None, []),
                              ("t2", r(3, 4).abs() + 0.5, None, []), ("m", r(4, 6), None, []),
                              ("v", r(6), None, []), ("b1", r(5, 3, 2), None, []),
                              ("b2", r(5, 2, 4), None, []), ("sm", r(3, 4), None, []),
                              ("w1", r(3), None, []), ("w2", r(4), None, []),
                              ("sn", torch.full((3, 4), float("nan")), None, [])]),
    "views": (Views(), [("x", r(2, 3, 4), None, []), ("v", r(5), None, []),
                        ("s", r(()), None, []), ("m", r(4, 5), None, [])]),
    "bits_bool": (BitsBool(), [("p", r(3, 4) > 0, None, []), ("q", r(3, 4) > 0, None, [])]),
    "bits_int": (BitsInt(), [("i", torch.randint(-20, 20, (3, 4)), None, []),
                             ("j", torch.randint(-20, 20, (3, 4)), None, [])]),
    "diags": (Diags(), [("v", r(4), None, []), ("m", r(3, 4), None, []),
                        ("x", torch.tensor([[[0.0, 1.5, -2.0], [0.5, 0.0, 0.0]], [[3.0, -1.0, 0.0], [0.0, 2.0, 1.0]]]), None, []),
                        ("n", torch.randint(-3, 4, (4, 3)), None, [])]),
    "scans": (Scans(), [("x", r(2, 3, 4), None, []), ("m", r(4, 4) * 2, None, []),
                        ("p", r(5, 2) > 0, None, [])]),
    "core": (Core(), [("x", r(4, 5, 3), None, []), ("s", r(4, 3), None, []),
                      ("t", r(4, 2, 3), None, []), ("u", r(4, 5, 3), None, [])]),
    "special": (Special(), [("x", torch.cat([r(11) * 3, torch.tensor([0.0])]), None, []),
                            ("p", torch.tensor([0.0, 0.5, 1.0, 2.5, -1.0, float("nan"), 1e-3, 7.0]), None, [])]),
    "refused": (Refused(), [("x", r(3, 3), None, [])]),
    "runtime": (Runtime(), [("x", r(3, 4), None, []), ("rep", torch.tensor([1, 0, 3]), None, []),
                            ("b1", r(1, 2, 5), None, []), ("b2", r(1, 5, 3), None, []),
                            ("a", torch.tensor([0.5, 2.0]), None, [])]),
    "unfold": (Unfold(), [("x", r(2, 3, 8, 8), None, []), ("v", r(1, 2, 4, 4, 6), None, [])]),
    "core2": (Core2(), [("x", r(1, 2, 5, 6), None, []), ("g", torch.rand(1, 3, 4, 2) * 2.2 - 1.1, None, []),
                        ("a", r(2, 4, 3), None, []), ("b", r(2, 5, 3), None, [])]),
    "blocks": (Blocks(), [("a", r(2, 3), None, []), ("b", r(3, 2), None, []), ("v", r(4), None, []),
                          ("w", r(3), None, []), ("x", r(2, 3, 4), None, []), ("s", r(2), None, []),
                          ("s2", r(2), None, []), ("s3", r(2, 2), None, []),
                          ("i", torch.randint(-5, 5, (2, 2)), None, [])]),
    "stats": (Stats(), [("x", r(3, 5), None, []), ("fw", torch.tensor([1, 2, 0, 3, 1]), None, []),
                        ("aw", torch.rand(5) + 0.1, None, []),
                        ("y", torch.cat([r(2, 4), torch.full((1, 4), 2.0)]), None, []),
                        ("k", torch.randperm(12).reshape(3, 4), None, []),
                        ("m", torch.tensor([[1.0, float("nan"), 3.0, -2.0, 0.5],
                                            [float("nan")] * 5,
                                            [4.0, 2.0, -1.0, 7.0, float("nan")],
                                            [0.25, -3.0, 9.0, 1.5, 2.5]]), None, [])]),
    "pdist": (Pdist(), [("x", r(5, 3) * 2, None, [])]),
    "copies": (Copies(), [("x", r(2, 3, 4), None, []), ("v", r(4), None, [])]),
    "zerod": (ZeroD(), [("s", torch.tensor(-1.5), None, []),
                        ("x", torch.tensor([[0.0, -0.0, float("nan")], [2.0, 0.0, -3.0]]), None, []),
                        ("n", torch.tensor([0, -1, 7, -(2 ** 63), 2 ** 63 - 1, 5]), None, [])]),
    "zerod_ops": (ZeroDOps(), [("s", torch.tensor(0.75), None, []), ("i", torch.tensor(4), None, []),
                               ("e", r(3, 0, 4), None, [])]),
    "tail2": (Tail2(), [("x", r(2, 3, 4), None, []), ("m", r(3, 5), None, []),
                        ("i", torch.randint(-9, 9, (4, 3)), None, []),
                        ("p", torch.tensor([0.0, 0.25, 0.5, 1.0, 0.9, 1e-3]), None, []),
                        ("t", torch.tensor([0.0, 1.0, 0.5, 1.0, 0.0, 1.0]), None, []),
                        ("w", torch.rand(6), None, [])]),
    "tail3": (Tail3(), [("x", r(4, 5), None, []), ("i", torch.randint(0, 5, (4, 3)), None, []),
                        ("j", torch.randint(0, 4, (2, 5)), None, []), ("a", r(2, 3, 4), None, []),
                        ("b", r(2, 3, 6), None, []), ("w", r(5, 4, 6), None, []), ("bias", r(5), None, [])]),
    "bits_wide": (BitsWide(), [("i", torch.tensor([0, -1, 2 ** 63 - 1, -(2 ** 63), 12345678901, -98765, 255, 7]), None, []),
                               ("j", torch.tensor([-1, -1, -(2 ** 63), 2 ** 63 - 1, -12345678901, 4321, -256, 5]), None, []),
                               ("k", torch.randint(-2 ** 31, 2 ** 31 - 1, (3, 4)).to(torch.int32), None, [])]),
    "fbits": (FBits(), [("a", torch.tensor([1.0, float("nan"), -2.0, float("nan"), 0.5, -0.0]), None, []),
                        ("b", torch.tensor([float("nan"), 3.0, 1.5, float("nan"), -4.0, 2.0]), None, []),
                        ("i", torch.tensor([5, -7, 0, -1, 123456789, -2 ** 40]), None, []),
                        ("j", torch.tensor([-3, 2, 9, -8, 1, 4]), None, []),
                        ("k", torch.tensor([0, 3, 62, 1, 20, 7]), None, [])]),
    "shift_wide": (ShiftWide(), [("x", torch.tensor([2 ** 62 + 12345, -(2 ** 62) - 7, -1, -5, 7, 2 ** 53 + 1,
                                                     -(2 ** 53) - 1, -2 ** 63]), None, []),
                                 ("y", torch.tensor([1, 3, 0, 1, 2, 5, 1, 63]), None, []),
                                 ("z", torch.tensor([2 ** 30 + 3, -(2 ** 30) - 5, -1, 2 ** 24 + 1],
                                                    dtype=torch.int32), None, []),
                                 ("u", torch.tensor([0, 1, 127, 200, 255], dtype=torch.int32), None, [])]),
    "diffs": (Diffs(), [("x", r(2, 3, 4), None, []), ("p", r(5, 2) > 0, None, [])]),
}
m, ins = cases[name]
write_case(m, ins, d)

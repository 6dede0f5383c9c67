# make_index_gaps.py - the models of tests/427-lower-index-gaps.bats: the
# reducing scatters and index ops of issue 14 (scatter_reduce of every
# reduce with and without self, index_reduce, index_put, put), each case one module,
# traced and scripted by torch 1.13, with torch's eager outputs as the
# oracle (opcases.py writes them).
#
#   make_index_gaps.py NAME DIR
import sys

import torch
import torch.nn.functional as F

from opcases import write_case

torch.manual_seed(0)
name, d = sys.argv[1], sys.argv[2]
r = torch.randn


class ScatterReduce(torch.nn.Module):
    """scatter_reduce of sum prod mean amax amin, include_self True and
    False, dims 0 and -1, repeated indices, src larger than
    the index, rows no index hits"""
    def forward(self, x, i, s, j):
        return (x.scatter_reduce(0, i, s, "sum"),
                x.scatter_reduce(0, i, s, "sum", include_self=False),
                x.scatter_reduce(-1, j, s, "sum", include_self=False),
                x.scatter_reduce(0, i, s, "prod"),
                x.scatter_reduce(0, i, s, "prod", include_self=False),
                x.scatter_reduce(-1, j, s, "prod", include_self=False),
                x.scatter_reduce(0, i, s, "mean"),
                x.scatter_reduce(0, i, s, "mean", include_self=False),
                x.scatter_reduce(-1, j, s, "mean", include_self=False),
                x.scatter_reduce(0, i, s, "amax"),
                x.scatter_reduce(0, i, s, "amax", include_self=False),
                x.scatter_reduce(-1, j, s, "amax", include_self=False),
                x.scatter_reduce(0, i, s, "amin"),
                x.scatter_reduce(0, i, s, "amin", include_self=False),
                x.scatter_reduce(-1, j, s, "amin", include_self=False),
                x.scatter_add(0, i, s), torch.scatter_add(x, 1, j, s))


class ScatterReduceInt(torch.nn.Module):
    """integer scatter_reduce: mean's floor division (negative sums),
    amax and amin from the dtype's extremes, prod"""
    def forward(self, x, i, s, y, k, t):
        return (x.scatter_reduce(1, i, s, "sum", include_self=False),
                x.scatter_reduce(1, i, s, "prod"),
                x.scatter_reduce(1, i, s, "mean"),
                x.scatter_reduce(1, i, s, "mean", include_self=False),
                y.scatter_reduce(0, k, t, "mean", include_self=False),
                x.scatter_reduce(1, i, s, "amax", include_self=False),
                y.scatter_reduce(0, k, t, "amax", include_self=False),
                x.scatter_reduce(1, i, s, "amin"),
                y.scatter_reduce(0, k, t, "amin", include_self=False))


class IndexReduce(torch.nn.Module):
    """index_reduce of prod mean amax amin, include_self True and False,
    along dims 0 and 1, a repeated index"""
    def forward(self, x, i, s, t, k):
        return (x.index_reduce(0, i, s, "prod"),
                x.index_reduce(0, i, s, "prod", include_self=False),
                x.index_reduce(0, i, s, "mean"),
                x.index_reduce(1, k, t, "mean", include_self=False),
                x.index_reduce(0, i, s, "amax", include_self=False),
                x.index_reduce(1, k, t, "amax"),
                x.index_reduce(0, i, s, "amin"),
                x.index_reduce(1, k, t, "amin", include_self=False))


class IndexPut(torch.nn.Module):
    """index_put with accumulate (repeated indices add up), several index
    tensors broadcast together, negative indices, a bool mask, None before
    and between the index tensors (x[:, i], x[i, :, j])"""
    def forward(self, x, i, j, v, w, m, y):
        a = x.index_put([i], v, accumulate=True)
        b = x.index_put([i, j], w)
        c = x.index_put([i, j], w, accumulate=True)
        d = x.index_put([m], v[0], accumulate=True)
        e = y.clone()
        e[:, i] = 2.5
        f = y.clone()
        f[:, i] += y[:, i] * 3
        g = y.clone()
        g[i, :, j] = -1.0
        h = y.index_put([i, j % 3], w.unsqueeze(-1), accumulate=True)
        return a, b, c, d, e, f, g, h


class Put(torch.nn.Module):
    """put (flat indices, negatives from the end) with and without
    accumulate (repeats add up), of a 2-d and a 0-d tensor, integers"""
    def forward(self, x, i, s, z, n):
        return (x.put(i[0], s[0]), x.put(i, s, accumulate=True),
                z.put(torch.zeros_like(i[:1]), s[:1], True),
                n.put(i, (s * 10).long(), accumulate=True))


class Search(torch.nn.Module):
    """searchsorted left and right (right=, side=), out_int32, sorter, 1-d
    and n-d boundaries, ties and values outside, a scalar value; bucketize
    (right, a NaN value)"""
    def forward(self, b, v, nb, nv, u, srt, q):
        return (torch.searchsorted(b, v), torch.searchsorted(b, v, right=True),
                torch.searchsorted(b, v, side="right", out_int32=True),
                torch.searchsorted(nb, nv), torch.searchsorted(nb, nv, right=True),
                torch.searchsorted(u, v, sorter=srt),
                torch.searchsorted(u, v, side="right", sorter=srt),
                torch.searchsorted(b, 2.0),
                torch.bucketize(q, b), torch.bucketize(q, b, right=True, out_int32=True))


class UniqueConsecutive(torch.nn.Module):
    """unique_consecutive of the flattened tensor (inverse, counts, NaNs
    all differ) and along a dim"""
    def forward(self, x, m):
        a = torch.unique_consecutive(x)
        b, bi, bc = torch.unique_consecutive(x, return_inverse=True, return_counts=True)
        c, ci = torch.unique_consecutive(m, return_inverse=True)
        d, dc = torch.unique_consecutive(m, return_counts=True)
        e, ei, ec = torch.unique_consecutive(m, return_inverse=True, return_counts=True, dim=1)
        f, fi, fc = torch.unique_consecutive(m, return_inverse=True, return_counts=True, dim=0)
        return a, b, bi, bc, c, ci, d, dc, e, ei, ec, f, fi, fc


class Pools(torch.nn.Module):
    """avg_pool2d/3d with divisor_override (padding, ceil_mode, a window
    starting in the padding dropped), unbatched; adaptive_max_pool1d/2d/3d
    whose windows overlap or differ (indices, ties: the first), unbatched"""
    def forward(self, x, v, w, t):
        a = F.avg_pool2d(x, 3, 2, 1, divisor_override=5)
        b = F.avg_pool2d(x, 2, 2, 1, ceil_mode=True, divisor_override=3)
        c = F.avg_pool2d(x[0], (3, 2), (1, 2), (1, 0), True, False, 7)
        d = F.avg_pool3d(w, 2, 2, 0, ceil_mode=True, divisor_override=2)
        e, ei = F.adaptive_max_pool2d(x, (3, 4), return_indices=True)
        f, fi = F.adaptive_max_pool1d(v, 3, return_indices=True)
        g, gi = F.adaptive_max_pool3d(w, (2, 3, 2), return_indices=True)
        h, hi = F.adaptive_max_pool2d(t, (2, 3), return_indices=True)
        k = F.adaptive_max_pool2d(x[0], (4, 3))
        return a, b, c, d, e, ei, f, fi, g, gi, h, hi, k


class Det(torch.nn.Module):
    """det, linalg_det, logdet, slogdet and linalg_slogdet (sign and
    log|det|) of batches of matrices, 1x1 and 0x0 included"""
    def forward(self, a, b, e):
        s, l = torch.slogdet(a)
        s2, l2 = torch.linalg.slogdet(b)
        return (torch.det(a), torch.linalg.det(b), s, l, s2, l2,
                torch.logdet(a @ a.mT + 0.5), torch.det(e), torch.linalg.slogdet(e)[1])


def singular(n, k, count):
    """count n x n float32 matrices of rank n - k (scaled randomly), with
    a zero row and two equal rows among them"""
    g = torch.Generator().manual_seed(n * 10 + k)
    u = torch.randn(count, n, n - k, generator=g, dtype=torch.float64)
    v = torch.randn(count, n - k, n, generator=g, dtype=torch.float64)
    m = (u @ v) * torch.logspace(-2, 2, count, dtype=torch.float64)[:, None, None]
    m[0, 1] = 0
    m[1, 2] = m[1, 0]
    return m.float()


class EmptyReshapes(torch.nn.Module):
    """ops whose Reshapes meet empty tensors (OpInfo's samples that ONNX's
    checker rejected: a 0 past the input's rank, a -1 beside a 0):
    group_norm of a [0, C], unfold of an empty batch, pixel_shuffle and
    pixel_unshuffle of a zero height or width; reshape and view to sizes
    with a 0 (a size to torch, a copy to ONNX without allowzero)"""
    def forward(self, g, w, b, u, p, q):
        return (F.group_norm(g, 1, w, b), F.unfold(u, 2), F.unfold(u, (2, 3), padding=1),
                F.pixel_shuffle(p, 1), F.pixel_unshuffle(p, 1), F.pixel_shuffle(q, 2),
                F.pixel_unshuffle(q[:, :, :, :0], 1), g.reshape(1, 0, 2), g.t().reshape(2, 0),
                g.view(2, 1, 0))


class InPlace(torch.nn.Module):
    """the in-place forms: scatter_reduce_, index_reduce_, put_ and
    index_put_ with accumulate, on clones"""
    def forward(self, x, i, s):
        y = x.clone()
        y.scatter_reduce_(0, i, s, "amax", include_self=False)
        z = x.clone()
        z.index_reduce_(0, i[1, :2], s, "mean")
        w = x.clone()
        w.put_(i, s, accumulate=True)
        v = x.clone()
        v.index_put_([i[1]], s[0], accumulate=True)
        return y, z, w, v


cases = {
    "scatter_reduce": (ScatterReduce(), [
        ("x", r(5, 4), None, []),
        ("i", torch.tensor([[0, 1, 0, 4], [2, 0, 0, 1], [0, 2, 3, 0]]), None, []),
        ("s", r(4, 5), None, []),
        ("j", torch.tensor([[0, 3, 0], [1, 1, 3], [2, 2, 2]]), None, [])]),
    "scatter_reduce_int": (ScatterReduceInt(), [
        ("x", torch.randint(-9, 9, (3, 6)), None, []),
        ("i", torch.tensor([[0, 5, 0, 2], [1, 1, 1, 4], [3, 3, 5, 0]]), None, []),
        ("s", torch.randint(-20, 20, (3, 5)), None, []),
        ("y", torch.randint(-9, 9, (6,), dtype=torch.int32), None, []),
        ("k", torch.tensor([4, 0, 4, 1]), None, []),
        ("t", torch.randint(-99, 99, (4,), dtype=torch.int32), None, [])]),
    "index_reduce": (IndexReduce(), [
        ("x", r(4, 5), None, []),
        ("i", torch.tensor([0, 2, 0, 3]), None, []),
        ("s", r(4, 5), None, []),
        ("t", r(4, 3), None, []),
        ("k", torch.tensor([4, 1, 4]), None, [])]),
    "index_put": (IndexPut(), [
        ("x", r(4, 5), None, []),
        ("i", torch.tensor([0, 2, 0, -1]), None, []),
        ("j", torch.tensor([[1], [4], [1]]), None, []),
        ("v", r(4, 5), None, []),
        ("w", r(3, 4), None, []),
        ("m", torch.tensor([True, False, True, True]), None, []),
        ("y", r(4, 3, 5), None, [])]),
    "inplace": (InPlace(), [
        ("x", r(4, 3), None, []),
        ("i", torch.tensor([[0, 1, 0], [3, 3, 1]]), None, []),
        ("s", r(2, 3), None, [])]),
    "put": (Put(), [
        ("x", r(3, 4), None, []),
        ("i", torch.tensor([[0, 11, -2], [5, 0, -12]]), None, []),
        ("s", r(2, 3), None, []),
        ("z", torch.tensor(1.5), None, []),
        ("n", torch.randint(-50, 50, (2, 6)), None, [])]),
    "search": (Search(), [
        ("b", torch.tensor([-1.0, 0.0, 0.0, 2.0, 2.0, 5.0]), None, []),
        ("v", torch.tensor([[-3.0, 0.0, 2.0], [5.0, 7.0, 1.0]]), None, []),
        ("nb", torch.tensor([[1, 3, 3, 9], [0, 2, 4, 6]]), None, []),
        ("nv", torch.tensor([[3, 0, 10], [4, 5, -1]]), None, []),
        ("u", torch.tensor([5.0, -1.0, 2.0, 0.0, 2.0, 0.0]), None, []),
        ("srt", torch.tensor([1, 3, 5, 2, 4, 0]), None, []),
        ("q", torch.tensor([0.0, float("nan"), 2.0, 9.0, -4.0]), None, [])]),
    "unique_consecutive": (UniqueConsecutive(), [
        ("x", torch.tensor([[1.0, 1.0, 2.0], [2.0, float("nan"), float("nan")],
                            [3.0, 3.0, 1.0]]), None, []),
        ("m", torch.tensor([[1, 1, 2, 2, 2], [1, 1, 2, 3, 3], [0, 0, 5, 5, 5],
                            [0, 0, 5, 5, 5]]), None, [])]),
    "pools": (Pools(), [
        ("x", r(2, 3, 7, 6), None, []),
        ("v", r(2, 4, 7), None, []),
        ("w", r(1, 2, 5, 4, 3), None, []),
        ("t", torch.tensor([[[[1.0, 2.0, 2.0, 0.0], [2.0, 1.0, 2.0, 2.0],
                              [0.0, 0.0, 0.0, 0.0]]]]), None, [])]),
    "det": (Det(), [
        ("a", r(3, 4, 4), None, []),
        ("b", r(2, 3, 1, 1), None, []),
        ("e", r(2, 0, 0), None, [])]),
    "det_singular": (Det(), [
        ("a", torch.cat([singular(4, 1, 30), singular(4, 2, 30)]), None, []),
        ("b", torch.cat([singular(6, 1, 30), singular(6, 3, 30)]), None, []),
        ("e", singular(3, 1, 40), None, [])]),
    "empty_reshape": (EmptyReshapes(), [
        ("g", r(0, 2), None, []),
        ("w", r(2), None, []),
        ("b", r(2), None, []),
        ("u", r(0, 1, 5, 5), None, []),
        ("p", r(1, 1, 0, 1), None, []),
        ("q", r(2, 4, 1, 3), None, [])]),
}
m, ins = cases[name]
write_case(m, ins, d)

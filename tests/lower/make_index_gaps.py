# make_index_gaps.py - the models of tests/427-lower-index-gaps.bats: the
# reducing scatters and index ops of issue 14 (scatter_reduce of every
# reduce with and without self, index_reduce), each case one module,
# traced and scripted by torch 1.13, with torch's eager outputs as the
# oracle (opcases.py writes them).
#
#   make_index_gaps.py NAME DIR
import sys

import torch

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
                x.scatter_reduce(-1, j, s, "amin", include_self=False))


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
}
m, ins = cases[name]
write_case(m, ins, d)

# make_torchsuite_gaps.py - the models of tests/440-lower-torchsuite-gaps.bats:
# small models of our own reproducing failures that torch 1.13's exporter
# test suite showed (tests/conformance/torchsuite.py, issue 14), each case
# one module traced and scripted by torch 1.13, with torch's eager outputs
# as the oracle (opcases.py writes them).
#
#   make_torchsuite_gaps.py NAME DIR
import sys
from typing import List

import torch

from opcases import write_case

torch.manual_seed(0)
name, d = sys.argv[1], sys.argv[2]


class ArangeOut(torch.nn.Module):
    """arange.out and arange.start_out (the result in out's dtype) with a
    tensor end and a size start; an integral dtype truncates start, end
    and step first (arange(8.5, dtype=int64) has 8 elements)"""
    def forward(self, x, e):
        a = torch.arange(e, out=torch.zeros(1))
        b = torch.arange(x.size(0), e, out=torch.zeros(1, dtype=torch.int64))
        c = torch.arange(x.size(0), e, 1.5, out=torch.zeros(1))
        return a, b, c, torch.arange(e, dtype=torch.int64), torch.arange(x.size(0), e, 1.5, dtype=torch.int64)


class ArgKeep(torch.nn.Module):
    """argmax/argmin over all of the input with keepdim: every dim 1, the
    input's rank (not 0-d)"""
    def forward(self, x, v):
        return (torch.argmax(x, keepdim=True), torch.argmin(x, keepdim=True), torch.argmax(x),
                torch.argmin(v, keepdim=True))


class SelectScalar(torch.nn.Module):
    """index_select with a 0-d index (a constant and an input): the dim
    stays, of size 1"""
    def forward(self, x, i):
        return torch.index_select(x, 1, torch.tensor(2)), torch.index_select(x, 0, i + 1)


class IndexAddBroadcast(torch.nn.Module):
    """index_add with a source whose slices broadcast to self's (torch
    1.13 adds source.select(dim, i) to self.select(dim, index[i])): a
    lower-rank source, size-1 dims, and a source of self's own shape"""
    def __init__(self):
        super().__init__()
        self.s0 = torch.arange(6.0).reshape(6, 1)
        self.s1 = torch.randn(1, 3, 4)
        self.s2 = torch.randn(1, 3, 2)

    def forward(self, x, full):
        a = x.index_add(0, torch.tensor([0, 2, 3, 1, 5, 2]), self.s0)
        b = x.index_add(1, torch.tensor([2, 0, 2]), self.s1, alpha=2)
        c = x.index_add(2, torch.tensor([3, 1]), self.s2)
        return a, b, c, x.index_add(1, torch.tensor([1, 1, 0]), full)


class TensorData(torch.nn.Module):
    """torch.tensor of nested lists (ints as a bool mask, ints and floats
    mixed: Float) and of [float(x)] with x of one element, not 0-d"""
    def forward(self, x, one):
        m = torch.tensor([[0, 0, 1], [1, 1, 0]], dtype=torch.bool)
        return x.masked_fill(m, 2.0), torch.tensor([[1.5, 2], [3, 4]]) * 2, torch.tensor([float(one)])


class EinsumShapes(torch.nn.Module):
    """einsum outputs whose shapes lower infers: an ellipsis (with a
    space; an input without one) and an implicit
    output (the letters used once, in order)"""
    def forward(self, x, v, w, a, b):
        return (torch.einsum("...ii ->...i", x), torch.einsum("i,i", v, v), torch.einsum("ba,ac", a, w),
                torch.einsum("...ij,jk->...ik", w, b), torch.einsum("...ij,...jk", x, x))


class SizeListAdd(torch.nn.Module):
    """list + list and list * n where a list is a slice of size() (a
    1-d Long tensor in lower): joined and repeated, not added
    element-wise"""
    def forward(self, x, y):
        return (y.reshape(x.size()[:3] + y.size()[2:3]), x.new_zeros(y.size()[1:] + x.size()[:2]),
                x.new_ones(x.size()[2:] * 2))


class TensorOfAppends(torch.nn.Module):
    """torch.tensor of lists built by appends in a loop over a size
    (sequences in the scripted archive): ints with a dtype, floats,
    bools"""
    def forward(self, x):
        a: List[int] = []
        f: List[float] = []
        b: List[bool] = []
        for i in range(x.size(0)):
            a.append(i * 3)
            f.append(float(i) / 4)
            b.append(i % 2 == 0)
        return torch.tensor(a, dtype=torch.int32), torch.tensor(f), torch.tensor(b)


cases = {
    "arange_out": (ArangeOut(), [("x", torch.randn(2, 3), None, []), ("e", torch.tensor(8.5), None, [])]),
    "argkeep": (ArgKeep(), [("x", torch.randn(4, 3, 5), None, []), ("v", torch.randn(6), None, [])]),
    "select_scalar": (SelectScalar(), [("x", torch.randn(3, 4), None, []), ("i", torch.tensor(1), None, [])]),
    "index_add_bcast": (IndexAddBroadcast(), [("x", torch.randn(6, 3, 4), None, []),
                                              ("full", torch.randn(6, 3, 4), None, [])]),
    "tensor_data": (TensorData(), [("x", torch.randn(2, 3), None, []), ("one", torch.tensor([[0.25]]), None, [])]),
    "einsum_shapes": (EinsumShapes(), [("x", torch.randn(2, 3, 3), None, []), ("v", torch.randn(4), None, []),
                                        ("w", torch.randn(3, 4), None, []), ("a", torch.randn(5, 3), None, []),
                                        ("b", torch.randn(4, 2), None, [])]),
    "size_list_add": (SizeListAdd(), [("x", torch.randn(2, 3, 4, 5), None, []), ("y", torch.randn(3, 4, 5, 2), None, [])]),
    "tensor_appends": (TensorOfAppends(), [("x", torch.randn(5, 2), None, [])]),
}
m, ins = cases[name]
write_case(m, ins, d)

# make_hist.py - the models of tests/431-lower-histograms.bats: bincount
# (weights, minlength, an empty input), histc (bins, min, max; min == max
# taking the data's range; values on the edges and outside them; empty inputs,
# fixed and at run time) and
# histogram (a bin count with and without a range, a tensor of edges,
# weight, density; both outputs), traced and scripted by torch 1.13, with
# torch's eager outputs as the oracle (opcases.py writes them).
#
#   make_hist.py NAME DIR
import sys
from typing import List

import torch

from opcases import write_case

torch.manual_seed(0)
name, d = sys.argv[1], sys.argv[2]


class Bincount(torch.nn.Module):
    def forward(self, x, w, i, e):
        return (torch.bincount(x), torch.bincount(x, minlength=12),
                torch.bincount(x, w), torch.bincount(i, w.double(), 3),
                torch.bincount(i), torch.bincount(e, minlength=3), torch.bincount(e))


class Histc(torch.nn.Module):
    def forward(self, x, y, k, e, v):
        return (torch.histc(x, 5, -1.0, 1.0), torch.histc(x, 4, 0.0, 0.5),
                torch.histc(y, 4), torch.histc(y.double(), 7), torch.histc(k, 3),
                torch.histc(e, 4), torch.histc(y, 6, 0.25, 0.25), torch.histc(v, 3))


class Histogram(torch.nn.Module):
    def forward(self, x, y, w, b, k, e, v):
        r: List[float] = [-1.0, 1.0]
        h1, e1 = torch.histogram(x, 5, range=r)
        h2, e2 = torch.histogram(y, 4, weight=w, density=True)
        h3, e3 = torch.histogram(y, b)
        h4, e4 = torch.histogram(y, b, weight=w, density=True)
        h5, e5 = torch.histogram(k, 3)
        h6, e6 = torch.histogram(y.double(), 6)
        h7, e7 = torch.histogram(e, 3)
        h8, e8 = torch.histogram(v, 3)
        return h1, e1, h2, e2, h3, e3, h4, e4, h5, e5, h6, e6, h7, e7, h8, e8


# values on the edges of 5 bins over [-1, 1] (and of 4 over [0, 0.5]),
# outside them.  No NaN: torch 1.13 casts a NaN's bin to int64 (undefined
# behaviour; torch 2.x skips NaNs, as pt2onnx does)
X = torch.tensor([-1.0, -0.6, -0.2, 0.2, 0.6, 1.0, 0.0, 0.5, 0.125, 0.375,
                  1.5, -3.0, 0.9999, -0.99, 0.25])
Y = torch.randn(3, 5)
cases = {
    "bincount": (Bincount(), [("x", torch.tensor([0, 3, 3, 7, 1, 0, 0, 9]), torch.tensor([2, 1, 1, 4, 0, 0, 5, 6, 3]), [0]),
                              ("w", torch.rand(8), torch.rand(9), [0]),
                              ("i", torch.tensor([4, 0, 2, 4, 4, 1, 0, 2], dtype=torch.int32), torch.tensor([1, 1, 0, 0, 2, 2, 1, 0, 5], dtype=torch.int32), [0]),
                              ("e", torch.zeros(0, dtype=torch.int64), None, [])]),
    "histc": (Histc(), [("x", X, None, []), ("y", Y, None, []),
                        ("k", torch.full((4,), 2.5), None, []),
                        ("e", torch.zeros(0), None, []),
                        ("v", torch.randn(5), torch.zeros(0), [0])]),
    "histogram": (Histogram(), [("x", X, None, []), ("y", Y, None, []), ("w", torch.rand(3, 5), None, []),
                                ("b", torch.tensor([-2.0, -0.5, 0.0, 0.3, 2.0]), None, []),
                                ("k", torch.full((2, 2), -1.5), None, []),
                                ("e", torch.zeros(0), None, []),
                                ("v", torch.randn(5), torch.zeros(0), [0])]),
}
m, ins = cases[name]
write_case(m, ins, d)

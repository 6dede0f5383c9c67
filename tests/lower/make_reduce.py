# make_reduce.py - the models of tests/425-lower-reduce.bats and 426: more
# of issue 14's long tail (reductions and statistics: median, mode,
# quantile, nanquantile, nansum, nanmean, sum_to_size, logspace,
# trapezoid, cumulative_trapezoid, renorm; losses; elementwise), each case
# one module of several operators, traced and scripted by torch 1.13,
# with torch's eager outputs as the oracle (opcases.py writes them).
#
#   make_reduce.py NAME DIR
import sys
from typing import List

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


mm = torch.tensor([[1.0, nan, 3.0, -2.0, 0.5, 2.0],
                   [nan] * 6,
                   [4.0, 2.0, -1.0, 7.0, nan, inf],
                   [0.25, -3.0, 9.0, 1.5, 2.5, 1.5]])
cases = {
    "order": (Order(), [("x", r(4, 6), r(4, 6), []), ("m", mm, None, []),
                        ("t", torch.tensor([[1.0, 2.0, 2.0], [3.0, 2.0, 1.0], [1.0, 1.0, 3.0], [3.0, 2.0, 2.0],
                                            [1.0, 4.0, 3.0]]), None, []),
                        ("q", torch.tensor([0.0, 0.25, 0.5, 1.0, 0.9]), None, []),
                        ("q0", torch.tensor(0.6), None, [])]),
}
m, ins = cases[name]
write_case(m, ins, d)

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


CASES = {
    "isin": (Isin(), [("x", torch.tensor([[1.0, -0.0, nan, 2.5], [7.0, 3.0, -1.0, inf]]), None, []),
                      ("t", torch.tensor([0.0, nan, 2.5, 3.0, 8.0, inf]), None, []),
                      ("i", torch.tensor([1, 3, 4, 8, -2, 3]), None, []),
                      ("j", torch.tensor([[3, 5], [1, 8]], dtype=torch.int32), None, []),
                      ("k", torch.tensor(1.0, dtype=torch.float64), None, [])]),
}

m, ins = CASES[name]
write_case(m, ins, d)

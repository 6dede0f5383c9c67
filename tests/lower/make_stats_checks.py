# make_stats_checks.py - the models of tests/429-stats-checks.bats:
# pdist, diagonal_scatter and trace at the sizes their old fixed-size masks
# refused (pdist past 2048 rows, a diagonal or matrix past 4096) and at
# the edges (0 rows, 1 row), with torch's eager outputs as the oracle
# (opcases.py writes them); and cov with weights torch refuses, scripted,
# for trace's and lower's errors.
#
#   make_stats_checks.py NAME DIR
import os
import sys

import numpy as np
import torch

from opcases import write_case

torch.manual_seed(0)
name, d = sys.argv[1], sys.argv[2]
r = torch.randn


class Pdist(torch.nn.Module):
    def forward(self, x):
        return torch.pdist(x), torch.pdist(x, 1.0)


class DiagScatter(torch.nn.Module):
    def forward(self, x, s, t):
        return (torch.diagonal_scatter(x, s, 1), torch.diagonal_scatter(x.t(), t, -1))


class DiagScatter3(torch.nn.Module):
    def forward(self, x, s):
        return torch.diagonal_scatter(x, s, 0, 1, 2)


class Trace(torch.nn.Module):
    def forward(self, x, n):
        return torch.trace(x), torch.trace(n)


class CovF(torch.nn.Module):
    def forward(self, x, fw):
        return torch.cov(x, fweights=fw)


class CovA(torch.nn.Module):
    def forward(self, x, aw):
        return torch.cov(x, aweights=aw)


cases = {
    # 2050 rows: past the old cap of 2048
    "pdist_big": (Pdist(), [("x", r(2050, 2), None, [])]),
    "pdist_0": (Pdist(), [("x", r(0, 3), None, [])]),
    "pdist_1": (Pdist(), [("x", r(1, 3), None, [])]),
    # a diagonal of 2 past columns 4096 wide, then [4100, 2] offset -1
    "dscatter_big": (DiagScatter(), [("x", r(2, 4100), None, []), ("s", r(2), None, []),
                                     ("t", r(2), None, [])]),
    "dscatter_1": (DiagScatter(), [("x", r(1, 3), None, []), ("s", r(1), None, []),
                                   ("t", r(1), None, [])]),
    # no matrix at all: [0, 3, 4] along dims 1 and 2
    "dscatter_empty": (DiagScatter3(), [("x", r(0, 3, 4), None, []), ("s", r(0, 3), None, [])]),
    "trace_big": (Trace(), [("x", r(3, 5000), None, []),
                            ("n", torch.randint(-9, 9, (4100, 2)), None, [])]),
    "trace_edge": (Trace(), [("x", r(0, 3), None, []), ("n", torch.randint(-9, 9, (1, 4)), None, [])]),
}

if name in cases:
    m, ins = cases[name]
    write_case(m, ins, d)
else:
    # cov's refusals: the scripted modules, and for each case its inputs
    # and torch's message (cases.txt: NAME MODULE, then NAME.msg)
    os.makedirs(d, exist_ok=True)
    torch.jit.script(CovF()).save(f"{d}/covf.pt")
    torch.jit.script(CovA()).save(f"{d}/cova.pt")
    x = r(2, 5)
    bad = {
        "f_numel": ("covf", torch.tensor([1, 1, 1])),
        "f_dims": ("covf", torch.ones(1, 5, dtype=torch.long)),
        "f_float": ("covf", torch.ones(5)),
        "f_neg": ("covf", torch.tensor([1, 2, -1, 1, 1])),
        "a_numel": ("cova", torch.rand(3)),
        "a_dims": ("cova", torch.rand(1, 5)),
        "a_long": ("cova", torch.ones(5, dtype=torch.long)),
        "a_neg": ("cova", torch.tensor([0.5, 1.0, -0.25, 1.0, 2.0])),
        "a_nan": ("cova", torch.tensor([0.5, float("nan"), 1.0, 1.0, 2.0])),
    }
    np.save(f"{d}/x.npy", x.numpy())
    with open(f"{d}/cases.txt", "w") as f:
        for k, (mod, w) in bad.items():
            np.save(f"{d}/{k}.npy", w.numpy())
            try:
                torch.jit.load(f"{d}/{mod}.pt")(x, w)
                raise SystemExit(f"{k}: torch accepted it")
            except RuntimeError as e:
                msg = [ln[ln.index("cov():"):] for ln in str(e).splitlines() if "cov(): " in ln][-1]
            with open(f"{d}/{k}.msg", "w") as g:
                g.write(msg + "\n")
            f.write(f"{k} {mod}\n")

# long_tail_5_error.py - the measured error of pt2onnx's matrix_exp and
# ctc_loss (tests/437) against torch 1.13's eager values: the "_wide"
# cases of make_long_tail_5.py run by ONNX Runtime, or by trace's kernel.
# matrix_exp (sizes 1 to 16, 1-norms 1e-8 to 30, every Taylor form and
# squarings): per matrix the worst |got - torch| over torch's largest
# |entry|; ctc_loss (T 50, a batch of 16, 20 classes, targets of 10 to 30,
# reduction none): per element |got - torch| / |torch|.  The worst over
# every output within the bound given (docs/operators.md states them).
#
#   long_tail_5_error.py CASEDIR GOTDIR MODEL.onnx|- matrix_exp|ctc_loss f32|f64
# ("-": GOTDIR holds trace --save-outputs' out0.npy, out1.npy...)
import os
import sys

import numpy as np
import onnx

case, got, model, op, kind = sys.argv[1:6]
# the worst error measured (2026-11-27, ONNX Runtime 1.30, torch 1.13),
# about twice as bound: matrix_exp f32 2.7e-6 ONNX, 3.5e-6 trace; f64
# 6.5e-15 ONNX, 7.4e-15 trace; ctc_loss f32 0 (torch's bits) on both,
# f64 1.5e-16 ONNX (ONNX Runtime's double Exp and Log against glibc's), 0
# trace: its bound one float ulp and two double ulps
BOUND = {"matrix_exp": {"f32": 7e-6, "f64": 1.5e-14},
         "ctc_loss": {"f32": 1.2e-7, "f64": 3e-16}}[op][kind]
nout = len(os.listdir(f"{case}/out1"))
names = ([o.name for o in onnx.load(model).graph.output] if model != "-"
         else [f"out{j}" for j in range(nout)])
worst = 0.0
for j, nm in enumerate(names):
    g, w = np.load(f"{got}/{nm}.npy"), np.load(f"{case}/out1/{j}.npy")
    assert g.shape == w.shape and g.dtype == w.dtype, f"{nm}: {g.dtype}{g.shape}, torch's {w.dtype}{w.shape}"
    g, w = g.astype(np.float64), w.astype(np.float64)
    if op == "matrix_exp":
        scale = np.abs(w).reshape(len(w), -1).max(1)
        err = (np.abs(g - w).reshape(len(w), -1).max(1) / scale).max()
    else:
        err = (np.abs(g - w) / np.abs(w)).max()
    worst = max(worst, err)
print(f"{op} {kind} {'trace kernel' if model == '-' else 'ONNX'}: worst error {worst:.3g} (bound {BOUND:g})")
assert worst <= BOUND, f"{op} {kind}: worst error {worst:.3g} above {BOUND:g}"

# mexp_error.py - the measured error of pt2onnx's matrix_exp (tests/437):
# the "mexp_wide" cases of make_long_tail_5.py (sizes 1 to 16, 1-norms
# 1e-8 to 30, every Taylor form and squarings) run by ONNX Runtime, or by
# trace's kernel, against torch 1.13's eager values: per matrix the worst
# |got - torch| over torch's largest |entry|, its worst over every matrix
# within the bound given (docs/operators.md states them).
#
#   mexp_error.py CASEDIR GOTDIR MODEL.onnx|- f32|f64
# ("-": GOTDIR holds trace --save-outputs' out0.npy, out1.npy...)
import sys

import numpy as np
import onnx

case, got, model, kind = sys.argv[1:5]
# the worst error measured (2026-11-27, ONNX Runtime 1.30, torch 1.13:
# f32 2.7e-6 ONNX, 3.5e-6 trace; f64 6.5e-15 ONNX, 7.4e-15 trace),
# about twice as bound
BOUND = {"f32": 7e-6, "f64": 1.5e-14}[kind]
names = ([o.name for o in onnx.load(model).graph.output] if model != "-"
         else [f"out{j}" for j in range(16)])
worst = 0.0
for j, nm in enumerate(names):
    g, w = np.load(f"{got}/{nm}.npy"), np.load(f"{case}/out1/{j}.npy")
    assert g.shape == w.shape and g.dtype == w.dtype, f"{nm}: {g.dtype}{g.shape}, torch's {w.dtype}{w.shape}"
    g, w = g.astype(np.float64), w.astype(np.float64)
    scale = np.abs(w).reshape(len(w), -1).max(1)
    err = (np.abs(g - w).reshape(len(w), -1).max(1) / scale).max()
    worst = max(worst, err)
print(f"matrix_exp {kind} {'trace kernel' if model == '-' else 'ONNX'}: worst error {worst:.3g} (bound {BOUND:g})")
assert worst <= BOUND, f"matrix_exp {kind}: worst error {worst:.3g} above {BOUND:g}"

# special_error.py - the measured error of pt2onnx's special functions
# (tests/424): ONNX Runtime's outputs of the "wide" case of
# make_special.py against torch 1.13's, per function: NaNs and infinities
# where torch has them, and the worst error of the finite values,
# |got - torch| / max(|torch|, 1) (relative, absolute below 1), within
# the bound given (the bounds docs/operators.md states).
#
#   special_error.py CASEDIR GOTDIR MODEL.onnx|- f32|f64
# (CASEDIR/names.txt: the functions, one a line, in output order; "-":
# GOTDIR holds trace --save-outputs' out0.npy, out1.npy..., the trace
# kernels' values, held to the same bounds)
import sys

import numpy as np
import onnx

case, got, model, kind = sys.argv[1:5]
want = f"{case}/out1"
WIDE_NAMES = open(f"{case}/names.txt").read().split()
# the worst error measured (2026-11-27, ONNX Runtime 1.30, torch 1.13),
# about twice as bound
BOUND = {"f32": {"lgamma": 1.2e-5, "digamma": 1.5e-6, "mvlgamma_p3": 2e-5, "i0": 1e-6, "i0e": 8e-7,
                 "i1": 2e-6, "i1e": 3e-7, "modified_bessel_i0": 1e-6, "modified_bessel_i1": 2e-6,
                 "spherical_bessel_j0": 3e-7, "modified_bessel_k0": 1.2e-6, "modified_bessel_k1": 6e-7,
                 "scaled_modified_bessel_k0": 2e-6, "scaled_modified_bessel_k1": 1.2e-6,
                 "bessel_j0": 3e-7, "bessel_j1": 3e-7, "bessel_y0": 8e-7, "bessel_y1": 1e-6,
                 "ndtri": 1e-6, "erfinv": 2e-6, "special_erfinv": 2e-6, "erfcx": 1e-6, "log_ndtr": 8e-7,
                 "airy_ai": 3e-7, "polygamma_n1": 1e-6, "polygamma_n3": 1e-7,
                 "igamma": 1.5e-6, "igammac": 1.5e-6},
         "f64": {"lgamma": 1e-11, "digamma": 3e-10, "mvlgamma_p3": 1e-11, "i0": 1e-14, "i0e": 1e-14,
                 "i1": 1e-14, "i1e": 1e-14, "modified_bessel_i0": 1e-14, "modified_bessel_i1": 1e-14,
                 "spherical_bessel_j0": 1e-14, "modified_bessel_k0": 1e-14, "modified_bessel_k1": 1e-14,
                 "scaled_modified_bessel_k0": 1e-14, "scaled_modified_bessel_k1": 1e-14,
                 "bessel_j0": 1e-14, "bessel_j1": 1e-14, "bessel_y0": 1e-14, "bessel_y1": 1e-14,
                 "ndtri": 2e-15, "airy_ai": 1e-14, "polygamma_n1": 3e-9, "polygamma_n3": 1e-15,
                 "igamma": 8e-10, "igammac": 8e-10}}[kind]
# trigamma at its poles (nonpositive integers): torch's float64 value is
# pi^2 / sin(fl(pi x))^2, about 1e32, where ONNX Runtime's double Sin
# gives 0 and so inf; both count as the pole
POLES = {"polygamma_n1"}
x = np.load(f"{case}/in1/x.npy").astype(np.float64)
files = ([f"{got}/out{j}.npy" for j in range(len(WIDE_NAMES))] if model == "-" else
         [f"{got}/{o.name}.npy" for o in onnx.load(model).graph.output])
bad = 0
for j, (name, path) in enumerate(zip(WIDE_NAMES, files)):
    g = np.load(path).astype(np.float64)
    w = np.load(f"{want}/{j}.npy").astype(np.float64)
    if name in POLES:
        pole = (x <= 0) & (x == np.floor(x)) & (np.abs(g) >= 1e30) & (np.abs(w) >= 1e30)
        g[pole] = w[pole] = np.inf
    nan_ok = (np.isnan(g) == np.isnan(w)).all()
    inf_ok = (g[np.isinf(w)] == w[np.isinf(w)]).all()
    fin = np.isfinite(w)
    err = float(np.max(np.abs(g[fin] - w[fin]) / np.maximum(np.abs(w[fin]), 1)))
    ok = nan_ok and inf_ok and err <= BOUND[name]
    print(f"{kind} {name}: worst error {err:.3g} (bound {BOUND[name]:g}), NaNs {'same' if nan_ok else 'DIFFER'}, "
          f"infinities {'same' if inf_ok else 'DIFFER'}")
    bad += not ok
sys.exit(1 if bad else 0)

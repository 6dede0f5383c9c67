#!/usr/bin/env bats
# 497-lower-erfc.bats - erfc keeps its relative precision where 1 - erf(x)
# cancels (lib/lower/symbolic_long_tail.c, sym_erfc: Numerical Recipes'
# fit above 0.5, docs/opsets.md's neighbour README "Limits"): float32
# erfc of 200001 points in [-12, 30] and of the infinities, NaN and -0,
# converted at 9, 17 and 26 (script path, a traced archive), run in ONNX Runtime 1.30 and
# compared with torch 1.13's erfc: the relative error under 5e-7 wherever
# torch's value is a normal float (1 - Erf gave 0 from x = 3.92, a
# relative error of 1), at most float32's smallest normal where torch's is
# below it, NaN where torch has NaN, and 2 and 0 at -inf and inf.

# bats file_tags=tier:standard

load helper

@test "lower: erfc of float32 within 5e-7 (relative) of torch's over [-12, 30], infinities and NaN, 9 17 26" {
	need_torch
	need_ort
	local d="$BATS_TEST_TMPDIR" v
	run -0 "$PYTHON" - "$d" <<'PY'
import os, sys
import numpy as np
import torch
d = sys.argv[1]
x = np.concatenate([np.linspace(-12, 30, 200001), [np.inf, -np.inf, np.nan, -0.0]]).astype(np.float32)
np.save(os.path.join(d, "x.npy"), x)
# traced: a here-document has no source for torch.jit.script
class Erfc(torch.nn.Module):
    def forward(self, x):
        return torch.erfc(x)
torch.jit.save(torch.jit.trace(Erfc(), torch.from_numpy(x)), os.path.join(d, "erfc.pt"))
with torch.no_grad():
    np.save(os.path.join(d, "ref.npy"), torch.jit.load(os.path.join(d, "erfc.pt"))(torch.from_numpy(x)).numpy())
PY
	for v in 9 17 26; do
		run -0 pt2onnx "$d/erfc.pt" -o "$d/e$v.onnx" --opset-version "$v" --input "$d/x.npy"
		run -0 check "$d/e$v.onnx"
		run -0 ort_run "$d/e$v.onnx" "$d/o$v" "x=$d/x.npy"
		run -0 "$PYTHON" - "$d/ref.npy" "$d/o$v" <<'PY'
import glob, sys
import numpy as np
ref = np.load(sys.argv[1])
out, = [np.load(f) for f in glob.glob(sys.argv[2] + "/*.npy")]
assert out.dtype == ref.dtype and out.shape == ref.shape, (out.dtype, out.shape)
r, o = ref.astype(np.float64), out.astype(np.float64)
assert (np.isnan(r) == np.isnan(o)).all(), "NaNs differ"
assert (o[np.isinf(r)] == r[np.isinf(r)]).all()
tiny = np.finfo(np.float32).tiny
m = np.isfinite(r) & (np.abs(r) >= tiny)
rel = np.abs(o[m] - r[m]) / np.abs(r[m])
assert rel.max() < 5e-7, (rel.max(), r[m][rel.argmax()], o[m][rel.argmax()])
small = np.isfinite(r) & (np.abs(r) < tiny)
assert small.any() and (np.abs(o[small]) <= tiny).all()
assert o[-4] == 0 and o[-3] == 2     # erfc(inf), erfc(-inf)
print("worst relative error", rel.max())
PY
	done
}

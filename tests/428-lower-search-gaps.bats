#!/usr/bin/env bats
# 428-lower-search-gaps.bats - more of issue 14's refused forms:
# searchsorted (right, side, sorter, n-d boundaries, out_int32) and
# bucketize, unique_consecutive (inverse, counts, dim)
# (lib/lower/symbolic_extra_shape.c), avg_pool with divisor_override
# (symbolic_opset9.c: window sums by a Conv of ones) and adaptive_max_pool
# of windows that overlap (symbolic_extra_nn.c: torch's windows, indices
# by masks), det and slogdet (symbolic_extra_math.c: getrf of A^T, as
# torch factors it, symbolic_linalg.c).  Models
# traced and scripted by torch
# 1.13 (tests/lower/make_index_gaps.py), converted on the three paths
# (trace: lib/trace/ops_index.c, ops_sort.c), run in ONNX Runtime and
# compared with eager torch (tests/lower/opcases.bash).
# bats file_tags=tier:full

load helper

OPCASES_GEN=make_index_gaps.py
load lower/opcases

@test "lower: searchsorted (right, side, out_int32, sorter, 1-d and n-d boundaries, a scalar) and bucketize (a NaN value) on the three paths, 11 13 18" {
	run all search 11 13 18
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: unique_consecutive (inverse, counts, NaNs, dim 0 and 1) on the three paths, 11 13 18" {
	run all unique_consecutive 11 13 18
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: avg_pool2d/3d with divisor_override (padding, ceil_mode), adaptive_max_pool1d/2d/3d of windows that overlap (indices, ties), unbatched, on the three paths, 9 13 18" {
	run all pools 9 13 18
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: det, linalg_det, logdet, slogdet, linalg_slogdet (batches, 1x1, 0x0) of random matrices on the three paths, 11 13 18" {
	run all det 11 13 18
	echo "$output"
	[ "$status" -eq 0 ]
}

# float32 determinants of singular matrices are rounding noise in torch's
# LU and in ours (getrf of A^T in OpenBLAS's order, in a Loop) alike: they
# agree within a small multiple of float's epsilon times Hadamard's bound
# (the product of the row norms); measured 6.8e-9, the 3x3 determinants
# bit for bit (ONNX's Det: 4.6e-8) (det and sign * exp(log|det|), ranks n-1 to
# n-3, sizes 3 to 6, scales 1e-2 to 1e2, a zero row: both exactly 0)
@test "lower: det and slogdet of singular float32 matrices agree with torch within 2e-7 of Hadamard's bound, trace and script paths, 13" {
	build det_singular
	local p m
	for p in trace script:scripted; do
		convert det_singular "$p" 13
		m="det_singular/${p/:/_}-13.onnx"
		rm -rf det_singular/got
		ort_run "$m" det_singular/got a=det_singular/in1/a.npy \
			b=det_singular/in1/b.npy e=det_singular/in1/e.npy > /dev/null
		run -0 "$PYTHON" - "$m" <<'PY'
import sys
import numpy as np
import onnx
names = [o.name for o in onnx.load(sys.argv[1]).graph.output]
got = [np.load(f"det_singular/got/{n}.npy").astype(np.float64) for n in names]
want = [np.load(f"det_singular/out1/{j}.npy").astype(np.float64) for j in range(len(names))]
x = {k: np.load(f"det_singular/in1/{k}.npy").astype(np.float64) for k in "abe"}
h = {k: np.prod(np.linalg.norm(v, axis=-1), axis=-1) for k, v in x.items()}
worst = 0.0
# (det, matrices), sign * exp(log|det|) for the slogdets
pairs = [(got[0], want[0], "a"), (got[1], want[1], "b"), (got[7], want[7], "e"),
         (got[2] * np.exp(got[3]), want[2] * np.exp(want[3]), "a"),
         (got[4] * np.exp(got[5]), want[4] * np.exp(want[5]), "b")]
for g, w, k in pairs:
    z = h[k] == 0
    assert (g[z] == w[z]).all(), "a zero row: det not 0"
    worst = max(worst, float(np.max(np.abs(g[~z] - w[~z]) / h[k][~z])))
print(f"worst {worst:.3g}")
assert worst <= 2e-7, worst
PY
		echo "$p: $output"
	done
}

@test "lower: Reshapes of empty tensors (group_norm, unfold, pixel_shuffle, pixel_unshuffle, reshape and view to a 0 size) pass onnx.checker and match torch on the three paths, 9 13 14" {
	run all empty_reshape 9 13 14
	echo "$output"
	[ "$status" -eq 0 ]
}

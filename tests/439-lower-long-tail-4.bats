#!/usr/bin/env bats
# 439-lower-long-tail-4.bats - the opinfo family's remaining lower and
# fold failures (issue 14): convolutions with padding='same' / 'valid'
# (aten::_convolution_mode and conv1d/2d/3d's string padding, unbatched;
# lib/lower/symbolic_opset9.c, script's shape rule), native_batch_norm's
# saved statistics (symbolic_opset9.c), index_add/copy/fill of a 0-d self
# (symbolic_extra_shape.c), grid_sample below opset 16
# (symbolic_extra_nn.c), linalg.cond with p +-1, +-inf
# (symbolic_linalg_orth.c; trace: ops_linalg_orth_host.c), det, slogdet
# and logdet by getrf of A^T in OpenBLAS's order (symbolic_extra_math.c,
# symbolic_linalg.c).  Models traced and scripted by torch 1.13
# (tests/lower/make_long_tail_4.py), converted on the three paths, run in
# ONNX Runtime and compared with eager torch (tests/lower/opcases.bash);
# singular determinants bit for bit.
# bats file_tags=tier:full

load helper

OPCASES_GEN=make_long_tail_4.py
load lower/opcases

@test "lower: conv1d/2d/3d padding='same' (even kernels, dilation) and 'valid', groups, unbatched on the three paths, 9 13" {
	run all convmode 9 13
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: native_batch_norm's saved mean and invstd (training, no weight, one channel) and eval's empty ones, training's running statistics update read after it, on the three paths, 9 13" {
	run all nbn 9 13
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: index_add, index_copy, index_fill of a 0-d self and along dim -1 on the three paths, 9 13" {
	run all index0d 9 13
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: grid_sample below opset 16 (bilinear, nearest; zeros, border, reflection; align_corners; float64; width 1) on the three paths, 11 13; bicubic refused at 13, all at 10" {
	run all grid 11 13
	echo "$output"
	[ "$status" -eq 0 ]
	run -4 pt2onnx grid/scripted.pt -i x=f32[2,3,5,4] -i g=f32[2,6,7,2] -i y=f32[1,2,3,1] -i gy=f32[1,4,3,2] -o r.onnx --opset-version 10
	[[ "$output" == *"aten::grid_sampler"*"has no symbolic for opset 10: needs opset 11"* ]]
	[ ! -e r.onnx ]
	build gridcubic
	for p in trace script:scripted; do
		run -4 convert gridcubic "$p" 13
		[[ "$output" == *"aten::grid_sampler"*"bicubic grid_sample needs GridSample (--opset-version 16)"* ]]
	done
	convert gridcubic trace 16
}

@test "lower: linalg.cond with p 1, -1, inf, -inf (batch, float64, singular) on the three paths, 11 13" {
	run all cond 11 13
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: det, slogdet, logdet as torch factors them (A^T, OpenBLAS's order): singular 2x2 and 5x5 float32 determinants torch's to the bit, batches, float64 on the three paths, 11 13" {
	run all det 11 13
	echo "$output"
	[ "$status" -eq 0 ]
	local p
	for p in trace script_scripted; do
		rm -rf det/got
		ort_run "det/$p-13.onnx" det/got s=det/in1/s.npy a=det/in1/a.npy t=det/in1/t.npy > /dev/null
		run -0 "$PYTHON" - "det/$p-13.onnx" <<'PY'
import sys
import numpy as np
import onnx
for j, o in enumerate(onnx.load(sys.argv[1]).graph.output[:2]):
    g, w = np.load(f"det/got/{o.name}.npy"), np.load(f"det/out1/{j}.npy")
    assert g.dtype == w.dtype and (g == w).all(), f"det {j}: {g} torch {w}"
PY
	done
}

#!/usr/bin/env bats
# 438-lower-long-tail-3.bats - more of issue 14's long tail: igamma and
# igammac (special_gammainc(c); lib/lower/symbolic_special.c, an
# approximation measured against torch), frexp and nextafter
# (lib/lower/symbolic_pointwise.c, exact), gradient and segment_reduce
# (lib/lower/symbolic_stats.c), stft and istft (symbolic_fft.c),
# fractional_max_pool2d/3d (symbolic_extra_nn.c), mT/mH of 0-d tensors,
# matrix_H, uniform.  Models traced and scripted by torch 1.13
# (tests/lower/make_long_tail_3.py), converted on the three paths (trace:
# lib/trace/ops_special_host.c, ops_math_host.c, ops_fft_host.c,
# ops_view.c, ops_tensor.c), run in ONNX Runtime and compared with eager
# torch (tests/lower/opcases.bash); igamma's worst error over a wide range
# within docs/operators.md's bounds (tests/lower/special_error.py), frexp
# and nextafter bit for bit, uniform's draws in their range.
# bats file_tags=tier:full

load helper

OPCASES_GEN=make_long_tail_3.py
load lower/opcases

# feeds NAME MODEL: MODEL's inputs fed NAME/in1's arrays, in order
feeds() {
	"$PYTHON" - "$1" "$2" <<'PY'
import json, sys
import onnx
d, m = sys.argv[1:3]
order = [i["name"] for i in json.load(open(f"{d}/meta.json"))["inputs"]]
print(" ".join(f"{g.name}={d}/in1/{n}.npy" for g, n in zip(onnx.load(m).graph.input, order)))
PY
}

# bits NAME PATH OPSET: the converted model's outputs are torch's bit for
# bit (NaNs where torch's, -0 where torch's)
bits() {
	local m="$1/${2/:/_}-$3.onnx"
	rm -rf "$1/bits"
	ort_run "$m" "$1/bits" $(feeds "$1" "$m") > /dev/null || return 1
	"$PYTHON" - "$m" "$1" <<'PY'
import sys
import numpy as np
import onnx
m, d = sys.argv[1:3]
for j, o in enumerate(onnx.load(m).graph.output):
    g, w = np.load(f"{d}/bits/{o.name}.npy"), np.load(f"{d}/out1/{j}.npy")
    assert g.dtype == w.dtype and g.shape == w.shape, f"{m} {o.name}: {g.dtype}{g.shape}, torch's {w.dtype}{w.shape}"
    nan = np.isnan(w) if w.dtype.kind == "f" else np.zeros(w.shape, bool)
    same = (g.reshape(-1).view(np.uint8).reshape(g.size, -1) == w.reshape(-1).view(np.uint8).reshape(w.size, -1)).all(1)
    assert (np.isnan(g[nan]).all() and same[~nan.reshape(-1)].all()), f"{m} {o.name}: not torch's bits at {np.nonzero(~same & ~nan.reshape(-1))[0]}"
PY
}

@test "lower: igamma, igammac, special_gammainc(c) (a or x 0, below 0, inf, NaN; series and continued fraction; float64; broadcast; empty) on the three paths, 11 17; refused at 10" {
	run all igamma 11 17
	echo "$output"
	[ "$status" -eq 0 ]
	run -4 pt2onnx igamma/scripted.pt -i a=f32[40] -i x=f32[40] -i e=f32[0,3] -o r.onnx --opset-version 10
	[[ "$output" == *"aten::igamma"*"has no symbolic for opset 10: needs opset 11"* ]]
	[ ! -e r.onnx ]
}

# measured NAME KIND: NAME's trace-path model at opset 13 in ONNX Runtime,
# and trace's own kernel values, within special_error.py's bounds
measured() {
	build "$1" || return 1
	convert "$1" trace 13 || return 1
	rm -rf "$1/got" "$1/kern"
	ort_run "$1/trace-13.onnx" "$1/got" $(feeds "$1" "$1/trace-13.onnx") > /dev/null || return 1
	"$PYTHON" "$TESTS_DIR/lower/special_error.py" "$1" "$1/got" "$1/trace-13.onnx" "$2" || return 1
	tool trace "$1/traced.pt" --input "$1/in1/a.npy" --input "$1/in1/x.npy" --save-outputs "$1/kern" -o /dev/null || return 1
	"$PYTHON" "$TESTS_DIR/lower/special_error.py" "$1" "$1/kern" - "$2"
}

@test "lower: igamma and igammac's worst error against torch over a 1e-3..1e3 grid and a near x up to 1000, float32 and float64, ONNX and trace's kernel, within the documented bounds" {
	run measured igamma_wide f32
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(grep -c "worst error" <<< "$output")" -eq 4 ]
	run measured igamma_wide64 f64
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(grep -c "worst error" <<< "$output")" -eq 4 ]
}

@test "lower: frexp and nextafter (0, -0, denormals, the largest, infinities, NaN, equal arguments), float32 and float64, bit for bit on the three paths, 11 17; frexp from 10, nextafter refused at 10" {
	run all fbits 11 17
	echo "$output"
	[ "$status" -eq 0 ]
	for p in trace script:traced script:scripted; do
		for o in 11 17; do
			run bits fbits "$p" "$o"
			echo "$output"
			[ "$status" -eq 0 ]
		done
	done
	run -4 pt2onnx fbits/scripted.pt -i x=f32[40] -i y=f32[40] -i x64=f64[40] -i y64=f64[40] -o r.onnx --opset-version 10
	[[ "$output" == *"aten::nextafter"*"has no symbolic for opset 10: needs opset 11"* ]]
	[[ "$output" != *"aten::frexp"* ]]
	[ ! -e r.onnx ]
}

# drawn NAME PATH OPSET: the converted model's draws have torch's dtype
# and shape and lie in [-2, 3) and [0, 1), not all equal
drawn() {
	local m="$1/${2/:/_}-$3.onnx"
	rm -rf "$1/drawn"
	ort_run "$m" "$1/drawn" $(feeds "$1" "$m") > /dev/null || return 1
	"$PYTHON" - "$m" "$1" <<'PY'
import sys
import numpy as np
import onnx
m, d = sys.argv[1:3]
for j, (o, lo, hi) in enumerate(zip(onnx.load(m).graph.output, (-2, 0), (3, 1))):
    g, w = np.load(f"{d}/drawn/{o.name}.npy"), np.load(f"{d}/out1/{j}.npy")
    assert g.dtype == w.dtype and g.shape == w.shape, f"{m} {o.name}: {g.dtype}{g.shape}, torch's {w.dtype}{w.shape}"
    assert (g >= lo).all() and (g < hi).all() and np.unique(g).size > 1, f"{m} {o.name}: draws outside [{lo}, {hi})"
PY
}

@test "lower: mT, mH, adjoint of a 0-d tensor, matrix_H; uniform_ (its draws' range, dtype, shape) on the three paths, 13 17" {
	run all mats 13 17
	echo "$output"
	[ "$status" -eq 0 ]
	build uniform
	for p in trace script:traced script:scripted; do
		for o in 13 17; do
			run convert uniform "$p" "$o"
			[ "$status" -eq 0 ]
			run drawn uniform "$p" "$o"
			echo "$output"
			[ "$status" -eq 0 ]
		done
	done
}

@test "lower: gradient (spacing none, a number, coordinates; edge_order 1 and 2; dims; an int64 input) on the three paths, 9 17" {
	run all gradient 9 17
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: stft (reflect-centred, windows, normalized, two-sided, batched) and istft of (re, im) pairs (window, length, center, normalized, two-sided) on the three paths, 9 17" {
	run all stft 9 17
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: fractional_max_pool2d/3d given their samples (sizes per dim, output_ratio, indices, unbatched, NaN and -inf windows, float64) on the three paths, 11 17; refused at 10" {
	run all fracpool 11 17
	echo "$output"
	[ "$status" -eq 0 ]
	run -4 pt2onnx fracpool/scripted.pt -i x=f32[2,3,8,6] -i s=f32[2,3,2] -i v=f32[1,2,5,4,6] -i t=f32[1,2,3] -i q=f32[1,3,2] -o r.onnx --opset-version 10
	[[ "$output" == *"aten::fractional_max_pool2d"*"has no symbolic for opset 10: needs opset 11"* ]]
	[ ! -e r.onnx ]
}

@test "lower: segment_reduce (lengths with an empty segment, offsets; sum, mean, max, min, prod; initial; NaN; 2-d data) on the three paths, 11 17" {
	run all segments 11 17
	echo "$output"
	[ "$status" -eq 0 ]
}

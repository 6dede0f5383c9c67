#!/usr/bin/env bats
# 424-lower-special-functions.bats - issue 14's long tail: the special
# functions pt2onnx approximates (lib/lower/symbolic_special.c: lgamma,
# digamma, polygamma, mvlgamma, i0, i0e, i1, i1e, Bessel j0, j1, y0, y1,
# modified Bessel i0, i1, k0, k1 and k scaled, spherical Bessel j0, zeta,
# ndtri, erfinv, erfcx, log_ndtr, airy_ai; trace:
# lib/trace/ops_special_host.c).  Models traced and scripted by torch 1.13
# (tests/lower/make_special.py), converted on the three paths and compared
# with eager torch (tests/lower/opcases.bash); the worst error over a wide
# range, float32 and float64, measured against torch and held to the
# bounds docs/operators.md states (tests/lower/special_error.py).
# bats file_tags=tier:full

load helper

OPCASES_GEN=make_special.py
load lower/opcases

@test "lower: lgamma, digamma, mvlgamma (p 1 2 3), polygamma (n 0 1 2 4), special_ names, integer inputs on the three paths, 11 13 17" {
	run all gamma 11 13 17
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: i0, i0e, i1, i1e, Bessel j0 j1 y0 y1, modified Bessel i0 i1 k0 k1 (and k scaled), spherical Bessel j0, airy_ai, integer inputs on the three paths, 11 13 17" {
	run all bessel 11 13 17
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: special_zeta (x 1 and below, q nonpositive, NaN, inf, a number q), float32 and float64, on the three paths, 11 13 17" {
	run all zeta 11 13 17
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: special_ndtri, erfinv and special_erfinv (0, 1, outside, tails), erfcx, log_ndtr on the three paths, 11 13 17" {
	run all normal 11 13 17
	echo "$output"
	[ "$status" -eq 0 ]
}

# measured NAME KIND: NAME's trace-path model at opset 13 in ONNX Runtime,
# its worst error per function within special_error.py's bounds
measured() {
	build "$1" || return 1
	convert "$1" trace 13 || return 1
	rm -rf "$1/got"
	ort_run "$1/trace-13.onnx" "$1/got" "x=$1/in1/x.npy" > /dev/null || return 1
	"$PYTHON" "$TESTS_DIR/lower/special_error.py" "$1" "$1/got" "$1/trace-13.onnx" "$2"
}

# kernel NAME KIND: trace's own values of NAME (its kernels in double,
# lib/trace/ops_special_host.c) within the same bounds
kernel() {
	build "$1" || return 1
	rm -rf "$1/kern"
	tool trace "$1/traced.pt" --input "$1/in1/x.npy" --save-outputs "$1/kern" -o /dev/null || return 1
	"$PYTHON" "$TESTS_DIR/lower/special_error.py" "$1" "$1/kern" - "$2"
}

@test "lower: the special functions' worst error against torch over a wide range, float32, within the documented bounds" {
	run measured wide f32
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(grep -c "worst error" <<< "$output")" -eq 21 ]
	run measured unit f32
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(grep -c "worst error" <<< "$output")" -eq 3 ]
	run measured wide_erf f32
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(grep -c "worst error" <<< "$output")" -eq 2 ]
}

@test "lower: the special functions' worst error against torch over a wide range, float64, within the documented bounds" {
	run measured wide64 f64
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(grep -c "worst error" <<< "$output")" -eq 21 ]
	run measured unit64 f64
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(grep -c "worst error" <<< "$output")" -eq 1 ]
}

@test "trace: the special functions' kernels against torch over a wide range, float64, within the same bounds" {
	run kernel wide64 f64
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(grep -c "worst error" <<< "$output")" -eq 21 ]
	run kernel unit64 f64
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: erfinv of float64 is refused (ONNX Runtime has no double Erf), no model written" {
	need_torch
	build unit
	run -4 pt2onnx unit/scripted.pt -i x=f64[7] -o u.onnx
	echo "$output"
	[[ "$output" == *"aten::erfinv"*"float32 only: ONNX Runtime 1.30 has no Erf of other dtypes"* ]]
	[ ! -e u.onnx ]
}

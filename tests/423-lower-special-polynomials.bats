#!/usr/bin/env bats
# 423-lower-special-polynomials.bats - issue 14's long tail: torch's
# orthogonal polynomials (special_{,shifted_}chebyshev_polynomial_{t,u,v,w},
# special_hermite_polynomial_{h,he}, special_laguerre_polynomial_l,
# special_legendre_polynomial_p: torch's special cases as Where masks,
# the recurrence in an ONNX Loop; lib/lower/symbolic_special.c) and
# special_xlog1py.  Models traced and scripted by torch 1.13
# (tests/lower/make_special.py), converted on the three paths (trace:
# lib/trace/ops_special_host.c, ops_math_host.c), run in ONNX Runtime and
# compared with eager torch (tests/lower/opcases.bash).
# bats file_tags=tier:full

load helper

OPCASES_GEN=make_special.py
load lower/opcases

@test "lower: the Chebyshev polynomials T U V W and shifted (n tensor, number, NaN, inf, fractions, |x| == 1, the cos form) on the three paths, 11 13 17" {
	run all chebyshev 11 13 17
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: hermite h and he, laguerre, legendre (integer n, broadcast), xlog1py (x 0, y NaN, y tiny, numbers) on the three paths, 11 13 17" {
	run all classical 11 13 17
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: the polynomials of an empty x on the three paths, 13" {
	run all empty 13
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: a polynomial at opset 10 is refused (Equal of floats needs 11), no model written" {
	need_torch
	build chebyshev
	run -4 pt2onnx chebyshev/traced.pt --trace --input chebyshev/in1/x.npy --input chebyshev/in1/n.npy \
		--input chebyshev/in1/xs.npy --input chebyshev/in1/nd.npy -o chebyshev/o10.onnx --opset-version 10
	echo "$output"
	[[ "$output" == *"aten::special_chebyshev_polynomial_t"*"has no symbolic for opset 10: needs opset 11"* ]]
	[ ! -e chebyshev/o10.onnx ]
}

#!/usr/bin/env bats
# 435-lower-linalg-refusals.bats - what the factorizations of
# lib/lower/symbolic_linalg.c refuse, each with one line and no model:
# a matrix that is not square (trace: lib/trace/ops_linalg_host.c's
# kernel; script: lower), an opset below 11 (Loop, Range,
# GatherElements), linalg_ldl_factor (Bunch-Kaufman pivoting, not
# built).  Models traced and scripted by torch 1.13
# (tests/lower/make_linalg_lu.py).
# bats file_tags=tier:full

load helper

OPCASES_GEN=make_linalg_lu.py
load lower/opcases

@test "lower: cholesky of a matrix that is not square, opset 10, and linalg_ldl_factor are refused with one line on the trace and script paths, no model written" {
	build chol
	"$PYTHON" -c 'import numpy as np, sys; np.save(sys.argv[1], np.ones((2, 3, 4, 5), np.float32))' ns.npy
	run -4 pt2onnx chol/traced.pt --trace --input ns.npy --input chol/in1/b.npy --input chol/in1/np_.npy -o ns-trace.onnx
	[[ "$output" == *"aten::linalg_cholesky_ex"*"A must be batches of square matrices, but they are 4 by 5 matrices"* ]]
	[ ! -e ns-trace.onnx ]
	run -4 pt2onnx chol/scripted.pt --script --input 'a=f32[2,3,4,5]' --input 'b=f64[5,5]' --input 'np_=f32[2,4,4]' -o ns-script.onnx
	[[ "$output" == *"aten::cholesky at"*"A must be batches of square matrices (torch raises)"* ]]
	[ ! -e ns-script.onnx ]
	run -4 convert chol trace 10
	[[ "$output" == *"aten::linalg_cholesky_ex"*"has no symbolic for opset 10: needs opset 11"* ]]
	[ ! -e chol/trace-10.onnx ]
	run -4 convert chol script:scripted 10
	[[ "$output" == *"aten::linalg_cholesky_ex"*"has no symbolic for opset 10: needs opset 11"* ]]
	[ ! -e chol/script_scripted-10.onnx ]
	build ldl
	run -4 convert ldl script:scripted 13
	[[ "$output" == *"aten::linalg_ldl_factor"*"Bunch-Kaufman pivoting"* ]]
	[ ! -e ldl/script_scripted-13.onnx ]
	run -4 convert ldl trace 13
	[[ "$output" == *"aten::linalg_ldl_factor"* ]]
	[ ! -e ldl/trace-13.onnx ]
}

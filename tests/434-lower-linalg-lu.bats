#!/usr/bin/env bats
# 434-lower-linalg-lu.bats - the direct factorizations of torch's linear
# algebra as ONNX Loops (issue 14): cholesky, linalg_cholesky(_ex),
# cholesky_solve, cholesky_inverse, triangular_solve,
# linalg_solve_triangular, linalg_lu_factor(_ex), torch.lu, linalg_lu,
# lu_unpack, lu_solve, linalg_lu_solve, linalg_solve(_ex), linalg_inv(_ex),
# linalg_tensorinv, linalg_tensorsolve
# (lib/lower/symbolic_linalg.c).  Models traced and scripted by torch 1.13
# (tests/lower/make_linalg_lu.py), converted on the three paths (trace:
# lib/trace/ops_linalg_host.c), run in ONNX Runtime and compared with
# eager torch's LAPACK (tests/lower/opcases.bash): 1e-5 of the largest
# output, pivots and infos exact; the trace kernels' own values too.
# bats file_tags=tier:full

load helper

OPCASES_GEN=make_linalg_lu.py
load lower/opcases

@test "lower: cholesky, linalg_cholesky (upper; batched; float64), linalg_cholesky_ex (info of a matrix that is not positive definite) on the three paths, 11 13 17" {
	run all chol 11 13 17
	echo "$output"
	[ "$status" -eq 0 ]
	run trace_kernels_match chol
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: cholesky_solve and cholesky_inverse (upper, broadcast B, float64) on the three paths, 11 13 17" {
	run all cholsolve 11 13 17
	echo "$output"
	[ "$status" -eq 0 ]
	run trace_kernels_match cholsolve
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: triangular_solve (upper, lower, transpose, unitriangular), linalg_solve_triangular (left=False, float64) on the three paths, 11 13 17" {
	run all tri 11 13 17
	echo "$output"
	[ "$status" -eq 0 ]
	run trace_kernels_match tri
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: linalg_lu_factor(_ex) (pivoting, a zero pivot), torch.lu, linalg_lu and lu_unpack (square, wide, tall, float64) on the three paths, 11 13 17" {
	run all lu 11 13 17
	echo "$output"
	[ "$status" -eq 0 ]
	run trace_kernels_match lu
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: lu_solve, linalg_lu_solve (left, adjoint), linalg_solve(_ex) (vector B, left=False), linalg_inv(_ex) (empty), inverse, linalg_tensorinv, linalg_tensorsolve (dims) on the three paths, 11 13 17" {
	run all solve 11 13 17
	echo "$output"
	[ "$status" -eq 0 ]
	run trace_kernels_match solve
	echo "$output"
	[ "$status" -eq 0 ]
}

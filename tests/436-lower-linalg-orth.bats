#!/usr/bin/env bats
# 436-lower-linalg-orth.bats - issue 14's orthogonal linear algebra
# (lib/lower/symbolic_linalg_orth.c; trace: lib/trace/ops_linalg_orth_host.c):
# Householder QR as LAPACK computes it (linalg_qr, qr, geqrf,
# householder_product, ormqr), symmetric eigenvalues and singular values by
# a fixed number of Jacobi sweeps (eigvalsh, svdvals) and what is built on
# them (matrix_rank, pinv, pinverse, the 'nuc' and 2-norms, nuclear_norm,
# cond, lstsq).  Models traced and scripted by torch 1.13
# (tests/lower/make_linalg_orth.py), converted on the three paths, run in
# ONNX Runtime and compared with eager torch within 1e-5 of torch's largest
# value (tests/lower/opcases.bash): the Jacobi results too, computed in
# doubles (docs/operators.md gives the errors measured).
# bats file_tags=tier:full

load helper

OPCASES_GEN=make_linalg_orth.py
load lower/opcases

@test "lower: linalg_qr (reduced, complete, r), qr, geqrf (a zero column, a column zero below the diagonal), householder_product, ormqr on the three paths, 11 13 17" {
	run all qr 11 13 17
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: eigvalsh (L, U, float64, batched), svdvals (tall, wide, batched), symeig without eigenvectors, svd without compute_uv by Jacobi on the three paths, 11 13 17" {
	run all eig 11 13 17
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: matrix_rank and pinv (default, tol, rcond, atol/rtol, hermitian), pinverse on rank-deficient matrices on the three paths, 11 13 17" {
	run all rank 11 13 17
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: matrix norms 'nuc', 2, -2 (dims, keepdim), nuclear_norm, cond (None, -2, 'fro', 'nuc') on the three paths, 11 13 17" {
	run all norms 11 13 17
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: lstsq (gelsy tall, wide and batched, gels residuals, gelsd rank and singular values) on the three paths, 11 13 17" {
	run all lstsq 11 13 17
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: eigvalsh and svdvals of 400 random 8x8, 8x5 and 5x8 matrices (graded spectra among them) within 1e-5 of torch's largest value, trace path, 17" {
	# measured (docs/operators.md): 8.8e-7 (float32) and 3.7e-15 (float64)
	PATHS=trace run all many 17
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: refused with their reasons, exit 4, no model: eigh's, linalg_svd's and svd's vectors (LAPACK's signs), gelsd's residuals of a tall A; trace: eigh has no kernel; linalg_qr at opset 10 needs 11" {
	build refused
	local i=(-i s=f32[4,4] -i t=f32[5,3] -i b=f32[5,2])
	for a in refused/scripted.pt refused/traced.pt; do
		run pt2onnx "$a" "${i[@]}" -o r.onnx
		echo "$a: $status $output"
		[ "$status" -eq 4 ]
		[[ "$output" == *"aten::linalg_eigh at Refused"*"has no symbolic for opset 14: the eigenvectors' (singular vectors') signs depend on LAPACK's algorithm"* ]]
		[[ "$output" == *"aten::linalg_svd at Refused"*"signs depend on LAPACK's algorithm"* ]]
		[[ "$output" == *"aten::svd at Refused"*"signs depend on LAPACK's algorithm"* ]]
		[[ "$output" == *"aten::linalg_lstsq at Refused"*"residuals' shape depends on whether every A has full rank"* ]]
		[ ! -e r.onnx ]
	done
	run -4 pt2onnx refused/traced.pt --trace --input refused/in1/s.npy \
		--input refused/in1/t.npy --input refused/in1/b.npy -o r.onnx
	[[ "$output" == *"aten::linalg_eigh (Refused): no implementation"* ]]
	[ ! -e r.onnx ]
	build qr
	run -4 pt2onnx qr/scripted.pt -i t=f32[5,3] -i w=f64[2,3,5] -i b=f32[2,4,4] \
		-i z=f32[2,4,3] -i c=f32[5,2] -o r.onnx --opset-version 10
	[[ "$output" == *"aten::linalg_qr at QR"*"has no symbolic for opset 10: needs opset 11"* ]]
	[ ! -e r.onnx ]
}

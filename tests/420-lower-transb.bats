#!/usr/bin/env bats
# 420-lower-transb.bats - lower reads a Linear's (and addmm's, matmul's and
# mm's of t(w)) weight as torch holds it, with Gemm's transB=1: no
# Transpose for fold to turn into a transposed copy, so the weight's bytes
# pass to the output untouched.  x of rank 3 and 4: Reshape, Gemm, Reshape.
# Oracles: torch 1.13's outputs (ONNX Runtime within 1e-5 relative) and
# python3-onnx reading the model (tests/lower/transb_check.py).
# bats file_tags=tier:standard

load helper

setup_file() {
	need_torch || return 0
	need_ort || return 0
}

@test "lower: Linear without a bias on x of rank 2 is one Gemm with transB=1, no Transpose, as torch computes" {
	run -0 transb_export lin2nb
	run -0 "$PYTHON" "$TESTS_DIR/lower/transb_check.py" lin2nb.onnx lin2nb
}

@test "lower: Linear on x of rank 3 (with a bias) and 4 (without): Gemm with transB=1 between Reshapes, as torch computes" {
	run -0 transb_export mlp3
	run -0 "$PYTHON" "$TESTS_DIR/lower/transb_check.py" mlp3.onnx mlp3
	run -0 transb_export mlp4nb
	run -0 "$PYTHON" "$TESTS_DIR/lower/transb_check.py" mlp4nb.onnx mlp4nb
}

@test "lower: addmm, matmul and mm of t(w) read w with transB=1, as torch computes" {
	run -0 transb_export mm
	run -0 "$PYTHON" "$TESTS_DIR/lower/transb_check.py" mm.onnx mm
}

@test "lower: at opset 9 (Gemm's C not optional) a Linear without a bias stays MatMul by the transposed weight, as torch computes" {
	run -0 transb_export lin2nb --opset-version 9
	run -0 "$PYTHON" "$TESTS_DIR/lower/transb_check.py" lin2nb.onnx lin2nb --matmul
}

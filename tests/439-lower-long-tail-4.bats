#!/usr/bin/env bats
# 439-lower-long-tail-4.bats - the opinfo family's remaining lower and
# fold failures (issue 14): convolutions with padding='same' / 'valid'
# (aten::_convolution_mode and conv1d/2d/3d's string padding,
# lib/lower/symbolic_opset9.c).  Models traced and scripted by torch 1.13
# (tests/lower/make_long_tail_4.py), converted on the three paths, run in
# ONNX Runtime and compared with eager torch (tests/lower/opcases.bash).
# bats file_tags=tier:full

load helper

OPCASES_GEN=make_long_tail_4.py
load lower/opcases

@test "lower: conv1d/2d/3d padding='same' (even kernels, dilation) and 'valid', groups, unbatched on the three paths, 9 13" {
	run all convmode 9 13
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: native_batch_norm's saved mean and invstd (training, no weight, one channel) and eval's empty ones on the three paths, 9 13" {
	run all nbn 9 13
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: index_add, index_copy, index_fill of a 0-d self and along dim -1 on the three paths, 9 13" {
	run all index0d 9 13
	echo "$output"
	[ "$status" -eq 0 ]
}

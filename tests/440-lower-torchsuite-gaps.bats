#!/usr/bin/env bats
# 440-lower-torchsuite-gaps.bats - failures that torch 1.13's exporter test
# suite showed (tests/conformance/torchsuite.py, issue 14), each reproduced
# by a small model of our own (tests/lower/make_torchsuite_gaps.py, traced
# and scripted by torch 1.13), converted on the three paths, run in ONNX
# Runtime and compared with eager torch in dtype, shape and value
# (tests/lower/opcases.bash).
# bats file_tags=tier:full

load helper

OPCASES_GEN=make_torchsuite_gaps.py
load lower/opcases

@test "lower: arange.out and arange.start_out take out's dtype; an integral arange truncates its bounds first (trace: lib/trace/ops_tensor.c, lower: symbolic_shape.c)" {
	run all arange_out 13
	echo "$output"
	[ "$status" -eq 0 ]
}

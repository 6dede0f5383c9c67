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

@test "lower: argmax/argmin over the whole input with keepdim have the input's rank, every dim 1 (symbolic_shape.c)" {
	run all argkeep 13
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: index_select with a 0-d index (constant or input) keeps the dim, of size 1 (symbolic_shape.c)" {
	run all select_scalar 13
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: index_add with a source whose slices broadcast to self's (lower rank, size-1 dims; alpha) as torch 1.13 adds them (trace: ops_index.c, lower: symbolic_extra_shape.c)" {
	run all index_add_bcast 13
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: torch.tensor of nested lists of numbers and of float() of a one-element tensor (symbolic_misc.c)" {
	run all tensor_data 13
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: einsum's output shape with an ellipsis (a space; an input without one) and with an implicit output, so the model passes the check (build.c)" {
	run all einsum_shapes 13
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: list + list and list * n of slices of size() are joined and repeated, not added element-wise (symbolic_opset9.c)" {
	run all size_list_add 13
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: torch.tensor of a list built by appends in a loop (a sequence of numbers) is stacked, ints, floats and bools (symbolic_misc.c)" {
	run all tensor_appends 13
	echo "$output"
	[ "$status" -eq 0 ]
}

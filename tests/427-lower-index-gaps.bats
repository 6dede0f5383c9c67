#!/usr/bin/env bats
# 427-lower-index-gaps.bats - issue 14's indexing forms: scatter_reduce of
# every reduce with and without self, index_reduce, index_put (accumulate,
# several index tensors, bool masks, None before and between), put
# (lib/lower/symbolic_extra_shape.c: ScatterElements' reductions from
# opset 16 and 18, an exact one-hot decomposition below).  Models traced
# and scripted by torch 1.13 (tests/lower/make_index_gaps.py), converted
# on the three paths (trace: lib/trace/ops_index_host.c), run in ONNX
# Runtime and compared with eager torch (tests/lower/opcases.bash).
# bats file_tags=tier:full

load helper

OPCASES_GEN=make_index_gaps.py
load lower/opcases

@test "lower: scatter_reduce sum prod mean amax amin, include_self True and False, scatter_add of repeated indices, on the three paths, 11 13 16 18" {
	run all scatter_reduce 11 13 16 18
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: integer scatter_reduce (mean's floor division, int32 amax amin) on the three paths, 13 16 18" {
	run all scatter_reduce_int 13 16 18
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: index_reduce prod mean amax amin, include_self True and False, on the three paths, 13 16 18" {
	run all index_reduce 13 16 18
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: index_put with accumulate, several and negative index tensors, a bool mask, None before and between, on the three paths, 11 13 16 18" {
	run all index_put 11 13 16 18
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: put with and without accumulate, negative indices, 0-d and integer tensors; the in-place forms scatter_reduce_ index_reduce_ put_ index_put_, on the three paths, 11 13 16" {
	run all put 11 13 16
	echo "$output"
	[ "$status" -eq 0 ]
	run all inplace 13 16
	echo "$output"
	[ "$status" -eq 0 ]
}

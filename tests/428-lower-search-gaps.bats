#!/usr/bin/env bats
# 428-lower-search-gaps.bats - more of issue 14's refused forms:
# searchsorted (right, side, sorter, n-d boundaries, out_int32) and
# bucketize, unique_consecutive (inverse, counts, dim)
# (lib/lower/symbolic_extra_shape.c), avg_pool with divisor_override
# (symbolic_opset9.c: window sums by a Conv of ones) and adaptive_max_pool
# of windows that overlap (symbolic_extra_nn.c: torch's windows, indices
# by masks).  Models traced and scripted by torch
# 1.13 (tests/lower/make_index_gaps.py), converted on the three paths
# (trace: lib/trace/ops_index.c, ops_sort.c), run in ONNX Runtime and
# compared with eager torch (tests/lower/opcases.bash).
# bats file_tags=tier:standard

load helper

OPCASES_GEN=make_index_gaps.py
load lower/opcases

@test "lower: searchsorted (right, side, out_int32, sorter, 1-d and n-d boundaries, a scalar) and bucketize (a NaN value) on the three paths, 11 13 18" {
	run all search 11 13 18
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: unique_consecutive (inverse, counts, NaNs, dim 0 and 1) on the three paths, 11 13 18" {
	run all unique_consecutive 11 13 18
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: avg_pool2d/3d with divisor_override (padding, ceil_mode), adaptive_max_pool1d/2d/3d of windows that overlap (indices, ties), unbatched, on the three paths, 9 13 18" {
	run all pools 9 13 18
	echo "$output"
	[ "$status" -eq 0 ]
}

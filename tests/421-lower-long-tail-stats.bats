#!/usr/bin/env bats
# 421-lower-long-tail-stats.bats - more of issue 14's long tail:
# block_diag, cartesian_prod, diagonal_scatter, hsplit/vsplit/dsplit, cov
# (correction, fweights, aweights), corrcoef, nanmedian, pdist and the
# *_copy forms of the view ops
# (lib/lower/symbolic_stats.c).  Models traced and scripted by torch 1.13
# (tests/lower/make_long_tail.py), converted on the three paths (trace:
# lib/trace/ops_stats_host.c, ops_view.c, ops_math_host.c), run in ONNX
# Runtime and compared with eager torch
# (tests/lower/opcases.bash).
# bats file_tags=tier:full

load helper

OPCASES_GEN=make_long_tail.py
load lower/opcases

@test "lower: block_diag (0-d, 1-d, empty, int blocks), cartesian_prod, diagonal_scatter (offsets, dims), hsplit vsplit dsplit on the three paths, 11 13 17" {
	run all blocks 11 13 17
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: cov (correction, fweights, aweights), corrcoef (NaN of a constant row), nanmedian (NaNs, dim, keepdim, integers) on the three paths, 11 13 17" {
	run all stats 11 13 17
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: pdist (p 2 1 0 inf 3) and _pdist_forward on the three paths, 11 13 17" {
	run all pdist 11 13 17
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: the *_copy forms of view ops (view_copy ... as_strided_copy), a write into a copy not reaching its input, on the three paths, 11 13 17" {
	run all copies 11 13 17
	echo "$output"
	[ "$status" -eq 0 ]
}

#!/usr/bin/env bats
# 431-lower-histograms.bats - issue 14's histograms: bincount (weights,
# minlength, an empty input, a second input set of another length), histc
# and histogram (both overloads, range, weight, density, both outputs)
# (lib/lower/symbolic_hist.c).  Models traced and scripted by torch 1.13
# (tests/lower/make_hist.py), converted on the three paths (trace:
# lib/trace/ops_hist_host.c), run in ONNX Runtime and compared with eager
# torch (tests/lower/opcases.bash).
# bats file_tags=tier:full

load helper

OPCASES_GEN=make_hist.py
load lower/opcases

@test "lower: bincount (weights Float and Double, minlength, int32, empty, a longer second input) on the three paths, 9 13 17" {
	run all bincount 9 13 17
	echo "$output"
	[ "$status" -eq 0 ]
	run trace_kernels_match bincount
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: histc (edges, outside values, the data's range, a constant input, empty fixed and at run time, Double) on the three paths, 11 13 17" {
	run all histc 11 13 17
	echo "$output"
	[ "$status" -eq 0 ]
	run trace_kernels_match histc
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: histogram (bin count with and without range, a tensor of edges, weight, density, empty fixed and at run time, Double) on the three paths, 11 13 17" {
	run all histogram 11 13 17
	echo "$output"
	[ "$status" -eq 0 ]
	run trace_kernels_match histogram
	echo "$output"
	[ "$status" -eq 0 ]
}

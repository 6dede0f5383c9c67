#!/usr/bin/env bats
# 437-lower-long-tail-5.bats - the OpInfo family's last operators of issue
# 14: isin (lib/lower/symbolic_extra_shape.c, exact; trace:
# lib/trace/ops_index_host.c), histogramdd and its _histogramdd_* parts
# (lib/lower/symbolic_hist.c, exact; trace: lib/trace/ops_hist_host.c).
# Models traced and scripted by torch 1.13
# (tests/lower/make_long_tail_5.py), converted on the three paths, run in
# ONNX Runtime and compared with eager torch (tests/lower/opcases.bash).
# bats file_tags=tier:full

load helper

OPCASES_GEN=make_long_tail_5.py
load lower/opcases

@test "lower: isin (tensor, number either side; NaN, -0, inf; promoted dtypes; an empty test set, empty elements; assume_unique, invert) on the three paths, 11 17; refused at 10" {
	run all isin 11 17
	echo "$output"
	[ "$status" -eq 0 ]
	run -4 pt2onnx isin/scripted.pt -i x=f32[2,4] -i t=f32[6] -i i=i64[6] -i j=i32[2,2] -i k=f64[] -o r.onnx --opset-version 10
	[[ "$output" == *"aten::isin"*"has no symbolic for opset 10: needs opset 11"* ]]
	[ ! -e r.onnx ]
}

@test "lower: histogramdd (bin counts with a range, weight, density; one count over the data's range; edge tensors; float64 of rank 3; empty) and its _histogramdd_* parts on the three paths, 11 17" {
	run all hdd 11 17
	echo "$output"
	[ "$status" -eq 0 ]
	run all hddparts 11 17
	echo "$output"
	[ "$status" -eq 0 ]
}

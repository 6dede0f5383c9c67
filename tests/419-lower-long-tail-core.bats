#!/usr/bin/env bats
# 419-lower-long-tail-core.bats - issue 14's core ATen operators that
# torch 1.13 records too (select_scatter, slice_scatter, _softmax,
# _to_copy), the special functions with an exact ONNX form (special_ndtr,
# sinc, special_entr), and the refusal of those with none (digamma,
# special_i0e ...: lower says why, no model is written).  Models from
# tests/lower/make_long_tail.py, compared with torch 1.13's outputs in
# ONNX Runtime (tests/lower/opcases.bash) at opsets 13, 17 and 20.
# bats file_tags=tier:standard

load helper

setup_file() {
	need_torch || return 0
	need_ort || return 0
}

OPCASES_GEN=make_long_tail.py
load lower/opcases

@test "lower: select_scatter (negative index), slice_scatter (bounds, dims), _softmax, _log_softmax, _to_copy; scripted and traced archives, 13 17 20" {
	PATHS="script:traced script:scripted" run all core 13 17 20
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: special_ndtr, sinc and special_sinc (1 at 0), special_entr (0, -inf below 0, NaN), 13 17 20" {
	PATHS="script:traced script:scripted" run all special 13 17 20
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: digamma and special_i0e are refused: no exact ONNX form, no model written" {
	build refused
	run -4 pt2onnx refused/scripted.pt -i x=f32[3] -o r.onnx
	[[ "$output" == *"aten::digamma"*"no exact ONNX form"* ]]
	[[ "$output" == *"aten::special_i0e"*"no exact ONNX form"* ]]
	[ ! -e r.onnx ]
}

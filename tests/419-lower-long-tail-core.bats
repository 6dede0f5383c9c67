#!/usr/bin/env bats
# 419-lower-long-tail-core.bats - issue 14's core ATen operators that
# torch 1.13 records too (select_scatter, slice_scatter, _softmax,
# grid_sampler_2d, _cdist_forward, _local_scalar_dense, _adaptive_avg_pool,
# _to_copy), the special functions with an exact ONNX form (special_ndtr,
# sinc, special_entr), operators given run-time values (repeat_interleave
# with tensor repeats, full, full_like, linspace, baddbmm), im2col and
# max_unpool, and the
# refusal of an operator with no ONNX meaning (linalg_eig: complex
# outputs; lower says it has no symbolic, no model is written).  Models from
# tests/lower/make_long_tail.py, compared with torch 1.13's outputs in
# ONNX Runtime (tests/lower/opcases.bash) at opsets 13, 17 and 20.
# bats file_tags=tier:full

load helper

OPCASES_GEN=make_long_tail.py
load lower/opcases

@test "lower: select_scatter (negative index), slice_scatter (bounds, dims), _softmax, _log_softmax, _to_copy on the three paths, 13 17 20" {
	run all core 13 17 20
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: special_ndtr, sinc and special_sinc (1 at 0), special_entr (0, -inf below 0, NaN), 13 17 20" {
	run all special 13 17 20
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: linalg_eig (complex outputs) is refused, no model written" {
	build refused
	run -4 pt2onnx refused/scripted.pt -i x=f32[3,3] -o r.onnx
	[[ "$output" == *"aten::linalg_eig"*"has no symbolic"* ]]
	[ ! -e r.onnx ]
}

@test "lower: run-time values: repeat_interleave with tensor repeats (and alone), full and full_like of an item(), linspace of run-time ends, baddbmm with run-time alpha and beta, 13 17 20; tensor repeats refused at 10" {
	run all runtime 13 17 20
	echo "$output"
	[ "$status" -eq 0 ]
	tool script runtime/scripted.pt -i x=f32[3,4] -i rep=i64[3] -i b1=f32[1,2,5] -i b2=f32[1,5,3] -i a=f32[2] -o r.air
	run -4 tool lower --opset 10 r.air
	[[ "$output" == *"aten::repeat_interleave"*"need opset 11"* ]]
}

@test "lower: im2col (F.unfold: dilation, padding, stride, unbatched) as a grouped Conv; max_unpool2d/3d (output_size) as ScatterElements, 13 17 20; max_unpool refused at 10" {
	run all unfold 13 17 20
	echo "$output"
	[ "$status" -eq 0 ]
	tool script unfold/scripted.pt -i x=f32[2,3,8,8] -i v=f32[1,2,4,4,6] -o u.air
	run -4 tool lower --opset 10 u.air
	[[ "$output" == *"aten::max_unpool2d"*"opset 10"* ]]
}

@test "lower: grid_sampler_2d (modes, padding, align_corners), _cdist_forward (p 2, 1), _local_scalar_dense, _adaptive_avg_pool2d/3d on the three paths, 16 17 20; grid_sampler_2d refused at 10" {
	run all core2 16 17 20
	echo "$output"
	[ "$status" -eq 0 ]
	tool script core2/scripted.pt -i x=f32[1,2,5,6] -i g=f32[1,3,4,2] -i a=f32[2,4,3] -i b=f32[2,5,3] -o g.air
	run -4 tool lower --opset 10 g.air
	[[ "$output" == *"aten::grid_sampler_2d"*"needs opset 11"* ]]
}

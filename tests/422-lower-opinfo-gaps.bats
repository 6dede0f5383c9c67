#!/usr/bin/env bats
# 422-lower-opinfo-gaps.bats - lower's gaps that torch 1.13's OpInfo
# samples found (the opinfo conformance family, issue 14): reductions,
# ArgMax/ArgMin over dim 0 or -1 of a 0-d tensor (models the ONNX checker
# rejected), logical_not of non-bools, bitwise_not of integers, fmax,
# fmin, float_power, bitwise shifts; softmax, the scans, transpose, topk,
# index_select, one_hot of a 0-d; flips of an empty dim; tile, ravel,
# trace, msort, kthvalue and the l1, mse, smooth_l1 and binary cross
# entropy losses, take_along_dim, tril_indices, triu_indices, bilinear;
# bitwise and/or/xor of integers before opset 18, bit by bit.
# Models are traced and scripted by
# torch 1.13 (tests/lower/make_long_tail.py), converted on every path,
# run in ONNX Runtime and compared with eager torch (tests/lower/opcases.bash).
# bats file_tags=tier:full

load helper

OPCASES_GEN=make_long_tail.py
load lower/opcases

@test "lower: reductions, argmax/argmin, max/min, aminmax over dim 0/-1 of a 0-d tensor; count_nonzero over (); logical_not, bitwise_not of ints and uint8; 13 17 20" {
	run all zerod 13 17 20
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: fmax fmin (NaNs), float_power (double), bitwise_left_shift/right_shift of int64, 13 17 20" {
	run all fbits 13 17 20
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: softmax log_softmax softmin cumprod cummax cummin logcumsumexp transpose topk index_select one_hot nonzero argwhere of a 0-d; flip fliplr flipud of an empty dim; 13 17 20" {
	run all zerod_ops 13 17 20
	echo "$output"
	[ "$status" -eq 0 ]
}

# the scripted archive of F.l1_loss & co. has their size warnings
# (aten::format): the traced archive on both paths
@test "lower: tile ravel trace msort kthvalue, l1_loss mse_loss smooth_l1_loss binary_cross_entropy, cross_entropy of probabilities, unbatched nll_loss/cross_entropy (each reduction), trace and script of the traced, 13 17 20" {
	PATHS="trace script:traced" run all tail2 13 17 20
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: take_along_dim (broadcast, flattened), tril_indices triu_indices (offsets, empty), bilinear, 13 17 20" {
	run all tail3 13 17 20
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: bitwise_and/or/xor of int64 (extremes), int32, int16, int8 and uint8 bit by bit before opset 18 (11 13 17), BitwiseAnd... at 18; refused at 9" {
	run all bits_wide 11 13 17 18
	echo "$output"
	[ "$status" -eq 0 ]
	tool script bits_wide/scripted.pt -i i=i64[8] -i j=i64[8] -i k=i32[3,4] -o w.air
	run -4 tool lower --opset 9 w.air
	[[ "$output" == *"aten::bitwise_and"*"need opset 10"* ]]
}

@test "lower: right shifts exact past 2^53 (int64 by 0..63, int32 past 2^24, int16, uint8), 11 13 17; an int64 one refused at 9" {
	run all shift_wide 11 13 17
	echo "$output"
	[ "$status" -eq 0 ]
	build shift_wide
	run -4 convert shift_wide trace 9
	[[ "$output" == *"aten::__rshift__"*"has no symbolic for opset 9: an int64 right shift is exact from opset 10 (Mod)"* ]]
}

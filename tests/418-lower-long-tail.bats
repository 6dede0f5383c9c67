#!/usr/bin/env bats
# 418-lower-long-tail.bats - the long tail of aten operators (issue 14):
# elementwise functions ONNX has no op for (cosh ... atanh, atan2, trunc,
# frac, logit, expm1, erfc, exp2, logaddexp(2), copysign, deg2rad,
# rad2deg, hypot, xlogy, sgn), bitwise ops, fused products (addcdiv,
# addmv, addbmm, addr), matrix views (mT, mH, adjoint), broadcast_to,
# atleast_Nd, the stacks (hstack, vstack, dstack, column_stack), fliplr,
# flipud, rot90.  Models are traced and scripted by torch 1.13
# (tests/lower/make_long_tail.py), converted on every path at opsets 13,
# 17 and a newer one, run in ONNX Runtime and compared with eager torch
# (tests/lower/opcases.bash).
# bats file_tags=tier:full

load helper

OPCASES_GEN=make_long_tail.py
load lower/opcases

@test "lower: cosh sinh acosh asinh atanh, trunc fix frac, logit (eps), expm1, atan2 (signed zeros, infinities), trace and script, 13 17 20" {
	run all hyper 13 17 20
	echo "$output"
	[ "$status" -eq 0 ]
	# atan2 compares floats with Equal: refused before opset 11
	tool script hyper/scripted.pt -i x=f32[4,5] -i a=f32[4,5] -i u=f32[4,5] -i y=f32[4,5] -i z=f32[4,5] -o h.air
	run -4 tool lower --opset 10 h.air
	[[ "$output" == *"aten::atan2"* ]]
}

@test "lower: erfc exp2 logaddexp logaddexp2 copysign deg2rad rad2deg hypot xlogy sgn and special_ aliases (NaN, -0, integers), 13 17 20" {
	run all funcs 13 17 20
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: addcdiv addmv addbmm addr with beta and alpha (beta 0 drops self's NaNs), 13 17 20" {
	run all products 13 17 20
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: mT mH adjoint broadcast_to atleast_1d/2d/3d hstack vstack dstack column_stack fliplr flipud rot90, 13 17 20" {
	run all views 13 17 20
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: bitwise_and/or/xor of bools (And/Or/Xor) at 13 17; of integers (BitwiseAnd ...) at 18 20, bit by bit at 17 (422), refused at 9" {
	run all bits_bool 13 17
	echo "$output"
	[ "$status" -eq 0 ]
	run all bits_int 17 18 20
	echo "$output"
	[ "$status" -eq 0 ]
	build bits_int
	tool script bits_int/scripted.pt -i i=i64[3,4] -i j=i64[3,4] -o b.air
	run -4 tool lower --opset 9 b.air
	[[ "$output" == *"need opset 10"* ]]
}

@test "lower: diag (vector, offsets, matrix), diag_embed, count_nonzero, cumprod (dtype, integers), argwhere, 13 17 20" {
	run all diags 13 17 20
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: diagflat, dist (p 2 1 inf 0 3), cummax/cummin (last index of ties, NaNs held), logcumsumexp on the three paths, 13 17 20; cummax refused at 11" {
	run all scans 13 17 20
	echo "$output"
	[ "$status" -eq 0 ]
	tool script scans/scripted.pt -i x=f32[2,3,4] -i m=f32[4,4] -i p=bool[5,2] -o s.air
	run -4 tool lower --opset 11 s.air
	[[ "$output" == *"aten::cummax"*"needs opset 12"* ]]
}

@test "lower: diff (n, dim, prepend, append, bool: Xor) on the three paths, 13 17 20" {
	run all diffs 13 17 20
	echo "$output"
	[ "$status" -eq 0 ]
}

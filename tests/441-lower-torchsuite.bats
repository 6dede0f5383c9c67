#!/usr/bin/env bats
# 441-lower-torchsuite.bats - causes found by issue 14's measured set, torch
# 1.13's exporter test suite (tests/conformance/torchsuite.py): Add, Sub,
# Mul, Pow of uint8/int8/int16 computed in Long before opset 14, Relu of an
# integer in Float, instance norm in eval with running statistics as
# BatchNormalization (lib/lower/symbolic_opset9.c); prod of integers in
# Long, arange with float bounds and an integer dtype, arange.out's dtype,
# argmax/argmin with keepdim and no dim (lib/lower/symbolic_shape.c,
# lib/trace/ops_tensor.c); a trace of 6000 in-place writes through views
# (lower's view records looked up by value: lib/lower/lower_alias.c);
# binary_cross_entropy_with_logits with an
# integer weight, linear and cubic Resize in half_pixel (an output of
# length 1 reads the middle of the input, as torch) (symbolic_extra_nn.c).
# Models traced and scripted by torch 1.13 (tests/lower/make_torchsuite.py),
# converted on the three paths, run in ONNX Runtime and compared with eager
# torch (tests/lower/opcases.bash).
# bats file_tags=tier:full

load helper

OPCASES_GEN=make_torchsuite.py
load lower/opcases

@test "lower: uint8, int8, int16 Add/Sub/Mul/Pow, prod of small integers and int32, relu of int32 on the three paths, 9 13 17" {
	run all lowprec 9 13 17
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: arange with float bounds and an integer dtype (constant and from a tensor) on the three paths, 11 13 17" {
	run all arange_int 11 13 17
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: binary_cross_entropy_with_logits with an int64 weight on the three paths, 9 13 17" {
	run all bce_int_weight 9 13 17
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: linear, bilinear, trilinear, bicubic interpolation to an output of length 1 (half_pixel) and to other sizes on the three paths, 11 13 17" {
	run all interp_one 11 13 17
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: instance norm in eval with running statistics (track_running_stats, affine and not) on the three paths, 9 13 17" {
	run all instnorm_stats 9 13 17
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: arange.out and arange.start_out take the out tensor's dtype (float, Long from float bounds) on the three paths, 11 13 17" {
	run all arange_out 11 13 17
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: argmax and argmin with keepdim and no dim keep every dim as 1 (a 0-d input none) on the three paths, 9 13 17" {
	run all argkeep 9 13 17
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: a trace of 6000 in-place writes through views converts in seconds and matches torch, trace and script of the traced archive, 13 (each write searched every view record: minutes)" {
	# (the scripted archive keeps its loops: writes into views of a value
	# of the enclosing block are refused there, with one line)
	PATHS="trace script:traced" run all view_writes 13
	echo "$output"
	[ "$status" -eq 0 ]
	# lower alone on the traced model (the build's torch time excluded)
	SECONDS=0
	run -0 timeout 120 sh -c "\"$BINDIR/trace\" view_writes/traced.pt -i view_writes/in1/x.npy | \"$BINDIR/lower\" --opset 13 > /dev/null"
	echo "trace | lower: $SECONDS s"
	[ "$SECONDS" -lt 30 ]
}

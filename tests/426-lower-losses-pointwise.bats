#!/usr/bin/env bats
# 426-lower-losses-pointwise.bats - more of issue 14's long tail: the
# losses torch 1.13 records as one operator: huber, hinge_embedding,
# margin_ranking, poisson_nll, soft_margin, cosine_embedding,
# triplet_margin, multi_margin, multilabel_margin (lib/lower/
# symbolic_loss.c; trace: lib/trace/ops_nn_seq.c), with reduction none,
# mean and sum; elementwise signbit, isposinf, isneginf, isreal, angle,
# real, positive, heaviside, ldexp, isclose, gcd, lcm (lib/lower/
# symbolic_pointwise.c; trace: lib/trace/ops_math_host.c).  Models
# traced and scripted by torch 1.13 (tests/lower/make_reduce.py), converted
# on the three paths, run in ONNX Runtime and compared with eager torch
# (tests/lower/opcases.bash).
# bats file_tags=tier:full

load helper

OPCASES_GEN=make_reduce.py
load lower/opcases

@test "lower: huber, hinge_embedding, margin_ranking, poisson_nll, soft_margin, cosine_embedding, triplet_margin, multi_margin, multilabel_margin losses (none, mean, sum) on the three paths, 11 13 17" {
	run all losses 11 13 17
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: signbit isposinf isneginf isreal angle real positive, heaviside, ldexp, isclose (tolerances, equal_nan, integers), gcd and lcm (int64 past 2^53, int32, broadcast) on the three paths, 11 13 17" {
	run all pointwise 11 13 17
	echo "$output"
	[ "$status" -eq 0 ]
}

#!/usr/bin/env bats
# 425-lower-reduce-products.bats - more of issue 14's long tail,
# reductions and statistics: median, mode, quantile, nanquantile
# (lib/lower/symbolic_stats.c), nansum, nanmean, sum_to_size, logspace,
# trapezoid, trapz, cumulative_trapezoid, renorm (lib/lower/
# symbolic_reduce.c); shapes and products: kron, vdot, linalg_vecdot,
# linalg_vander, linalg_multi_dot, linalg_matrix_power, combinations,
# narrow_copy, new_empty_strided, as_strided_scatter (lib/lower/
# symbolic_products.c), fft_fftshift, fft_ifftshift.  Models traced and
# scripted by torch 1.13 (tests/lower/make_reduce.py), converted on the
# three paths (trace: lib/trace/ops_stats_host.c, ops_reduce_host.c,
# ops_products_host.c), run in ONNX Runtime and compared with eager torch
# (tests/lower/opcases.bash).
# bats file_tags=tier:full

load helper

OPCASES_GEN=make_reduce.py
load lower/opcases

@test "lower: median (all, dim, NaN rows, ties), mode (count ties), quantile and nanquantile (q number, 0-d, 1-d; dims; five interpolations; NaN rows) on the three paths, 11 13 17" {
	run all order 11 13 17
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: nansum, nanmean (dims, keepdim, dtype, integers), sum_to_size, logspace (bases, one step, integers), trapezoid trapz cumulative_trapezoid (x and dx forms), renorm on the three paths, 11 13 17" {
	run all sums 11 13 17
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: kron, vdot, linalg vecdot vander multi_dot matrix_power, combinations, narrow_copy, as_strided_scatter (places read twice), fftshift ifftshift, new_empty_strided on the three paths, 11 13 17" {
	run all products 11 13 17
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: matrix_power of a negative n (the inverse) matches torch on the three paths at 11 and 17, and is refused with one line at 10, no model written" {
	run all mpneg 11 17
	echo "$output"
	[ "$status" -eq 0 ]
	run -4 convert mpneg trace 10
	[[ "$output" == *"aten::linalg_matrix_power"*"needs the inverse"*"opset 11"* ]]
	[ ! -e mpneg/trace-10.onnx ]
	run -4 convert mpneg script:scripted 10
	[[ "$output" == *"aten::linalg_matrix_power"*"needs the inverse"*"opset 11"* ]]
	[ ! -e mpneg/script_scripted-10.onnx ]
}

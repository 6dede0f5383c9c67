#!/usr/bin/env bats
# 460-lower-hostile.bats - lower's reproducers (tests/data/repro):
# lower's integer constant folding refuses INT64_MIN // -1 (it died with
# SIGFPE), from text IR and from the default export; dims of INT64_MAX do
# not overflow its small-tensor folding; a matrix of 20 dims is swapped
# by any-rank perms (the linalg lowerings had an int64_t[16]); a list
# times INT64_MAX neither overflows nor loops 2^63 times; a fractional
# max pool of 2^63-size constants is refused; so are 2^61 histogram bins
# (their edges' size overflowed) and a conv padding string torch refuses
# (it was lowered as 'same'); Reshape's inference of H x W past int64
# leaves the dim unknown (it wrapped negative).
# bats file_tags=tier:check

load helper

R="$ROOT_DIR/tests/data/repro"

@test "lower: INT64_MIN // -1 is refused with a line (exit 4), from IR and through pt2onnx" {
	run -4 tool lower "$R/ir_lower_floordiv_intmin.txt" -o out.ir
	[ "$output" = "lower: $R/ir_lower_floordiv_intmin.txt: aten::floordiv: integer overflow: -9223372036854775808 // -1 has no int64 result" ]
	[ ! -e out.ir ]
	run -4 pt2onnx "$R/ts_intmin_floordiv.pt" -i 'x=f32[2,8]' -o m.onnx
	[ "${lines[0]}" = "lower: <stdin>: aten::floordiv at code/__torch__.py:12:9: integer overflow: -9223372036854775808 // -1 has no int64 result" ]
	[ ! -e m.onnx ]
	run -4 pt2onnx "$R/ts_intmin_mod.pt" -i 'x=f32[2,8]' -o m.onnx
	[ "${lines[0]}" = "lower: <stdin>: aten::remainder at code/__torch__.py:12:9: integer overflow: -9223372036854775808 % -1 has no int64 result" ]
	[ ! -e m.onnx ]
}

@test "lower: a Float(INT64_MAX, INT64_MAX) input lowers (no fold of it is tried)" {
	run -0 tool lower "$R/ir_lower_dims_int64max.txt" -o out.ir
	run -0 tool fold out.ir -o /dev/null
}

@test "lower: a batched matrix of 20 dims (cholesky upper=True: two mT) swaps its last two dims, no fixed-size perm" {
	# the linalg lowerings built mT's perm in an int64_t[16] (ASan: a
	# stack overflow from rank 17); b_swap_last2 takes any rank
	run -0 tool lower --opset 17 -S "$R/ir_lower_cholesky_rank20.txt"
	local perm="0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 19, 18"
	[ "$(grep -c "onnx::Transpose\[perm=\[$perm\]" <<< "$output")" -eq 2 ]
}

@test "lower: a list times INT64_MAX is refused in one line when it has entries, and is the empty list when it has none (it crashed and hung)" {
	# [1, 1] * INT64_MAX: the entry count overflowed (SIGSEGV)
	run -4 tool lower --opset 17 "$R/ir_lower_list_repeat_overflow.txt" -o out.ir
	[ "$output" = "lower: $R/ir_lower_list_repeat_overflow.txt: aten::mul at M (code/__torch__.py:8:9) has no symbolic for opset 17: a repeated list of more than 256 entries" ]
	[ ! -e out.ir ]
	# [] * INT64_MAX: 2^63 empty copies (it never ended); torch's [] is
	# what reshape gets with the -1 appended: x flattened
	run -0 timeout 60 "$BINDIR/lower" --opset 17 -S "$R/ir_lower_list_repeat_empty.txt"
	[[ "$output" == *"Long(1){-1}"* ]]
	[[ "$output" == *"Float(6) = onnx::Reshape(%x, "* ]]
}

@test "lower: fractional_max_pool2d with a kernel of 2^63 - 2 on an input of 2^63 - 1 rows is refused in one line (it asked for 2^64 bytes)" {
	run -4 tool lower --opset 17 "$R/ir_lower_fractional_pool_huge.txt" -o out.ir
	[ "$output" = "lower: $R/ir_lower_fractional_pool_huge.txt: aten::fractional_max_pool2d at M (code/__torch__/torch/nn/functional.py:54:14) has no symbolic for opset 17: kernel_size or output_size over 2^24" ]
	[ ! -e out.ir ]
}

@test "lower: histc and histogramdd with 2^61 bins are refused in one line (the edges' size overflowed: SIGSEGV)" {
	run -4 tool lower --opset 17 "$R/ir_lower_histc_bins_2e61.txt" -o out.ir
	[ "$output" = "lower: $R/ir_lower_histc_bins_2e61.txt: aten::histc at C (code/__torch__.py:8:12) has no symbolic for opset 17: histc: more than 2^24 bins" ]
	[ ! -e out.ir ]
	run -4 tool lower --opset 17 "$R/ir_lower_histogramdd_bins_2e61.txt" -o out.ir
	[ "$output" = "lower: $R/ir_lower_histogramdd_bins_2e61.txt: aten::histogramdd at M (code/__torch__.py:8:14) has no symbolic for opset 17: histogramdd: more than 2^24 bins in all" ]
	[ ! -e out.ir ]
}

@test "lower: conv2d with padding='bogus' is refused in one line (it was lowered as 'same': a model torch refuses to run)" {
	run -4 tool lower --opset 17 "$R/ir_lower_conv_padding_bogus.txt" -o out.ir
	[ "$output" = "lower: $R/ir_lower_conv_padding_bogus.txt: aten::conv2d at M (code/__torch__.py:10:10) has no symbolic for opset 17: invalid padding string: 'bogus'" ]
	[ ! -e out.ir ]
}

@test "lower: grid_sample below opset 16 on a Float(1, 1, 2^62, 2^63 - 1) input lowers (Reshape's inferred H*W wrapped to a negative dim that lower then could not write)" {
	run -0 tool lower --opset 11 "$R/ir_lower_grid_sample11_dims_2e62.txt" -o out.ir
	run -0 tool fold out.ir -o /dev/null
}

@test "lower: ctc_loss with blank -1 and the class count unknown is refused (GatherElements took the last class: a model where torch raises)" {
	run -4 tool lower --opset 17 "$R/ir_lower_ctc_blank_neg.txt" -o out.ir
	[ "$output" = "lower: $R/ir_lower_ctc_blank_neg.txt: aten::ctc_loss at C (code/__torch__.py:11:10) has no symbolic for opset 17: blank must be in label range" ]
	[ ! -e out.ir ]
}

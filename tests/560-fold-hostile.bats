#!/usr/bin/env bats
# 560-fold-hostile.bats - issue 16's fold reproducer (tests/data/repro): an
# Expand whose shape's product passes int64 is left unfolded, without
# overflowing the broadcast strides.
# bats file_tags=tier:check

load helper

R="$ROOT_DIR/tests/data/repro"

@test "fold: Expand of [1] to [2^32, 2^32, 2] stays a node" {
	run -0 tool fold -S "$R/ir_fold_expand_overflow.txt"
	[[ "$output" == *"onnx::Expand(%a, %s)"* ]]
}

#!/usr/bin/env bats
# 211-script-lists.bats - list operations in scripted code (issue 14): list
# `+` (of tensors and of ints), `x in l` (a dynamic size in an int list, a
# str attribute in a str list), lists built in loops and indexed, and
# torch's own RnnModelWithPackedSequenceWithoutState (`list([ret] +
# list(rets))` around a packed LSTM taking a PackedSequence argument), in
# archives scripted by torch 1.13 (tests/args/make_list_models.py).  Each is
# exported by `script` with a dynamic dim and run by ONNX Runtime at two
# sizes (taking the other side of `in`) against torch's outputs; and by
# `trace` at the first size.
# bats file_tags=tier:standard

load helper

setup_file() {
	need_torch || return 0
	need_ort || return 0
}

# lists_run NAME STAGE K...: STAGE NAME.pt (script: NAME.spec; trace: the
# first size's .npy) | lower | fold | emit, checked, then ONNX Runtime on
# each size K against torch
lists_run() {
	local name=$1 stage=$2 specs=() l k feeds
	shift 2
	if [ "$stage" = script ]; then
		while IFS= read -r l; do
			specs+=(-i "$l")
		done < "$name.spec"
	else
		specs=(-i "x=$name-0.x.npy")
		[ ! -e "$name-0.lengths.npy" ] ||
			specs+=(-i "lengths=$name-0.lengths.npy")
	fi
	(set -o pipefail
	 tool "$stage" "$name.pt" "${specs[@]}" | tool lower --opset 14 |
		tool fold | emit -o "$name-$stage.onnx") || return 1
	onnx_checker "$name-$stage.onnx" || return 1
	for k in "$@"; do
		feeds=("x=$name-$k.x.npy")
		[ ! -e "$name-$k.lengths.npy" ] ||
			feeds+=("lengths=$name-$k.lengths.npy")
		rm -rf "out-$name-$k"
		ort_run "$name-$stage.onnx" "out-$name-$k" "${feeds[@]}" \
			> /dev/null || return 1
		"$PYTHON" "$ORACLE_DIR/export_cases.py" compare "$name-$k" \
			"out-$name-$k" "$name-$stage.onnx" || return 1
	done
}

build() {
	fixture_run "$TESTS_DIR/args/make_list_models.py"
}

@test "lists: list + of tensors and of ints, at two sizes of a dynamic dim" {
	build
	lists_run list_add script 0 1
	lists_run list_add trace 0
}

@test "lists: x.size(1) in an int list (dynamic: both answers), a str attribute in a str list" {
	build
	lists_run contains script 0 1
	lists_run contains trace 0
	# the str test is settled by script; the int one stays an Equal
	run -0 "$PYTHON" -c 'import onnx
g = onnx.load("contains-script.onnx").graph
print(sorted({n.op_type for n in g.node} & {"Equal", "Or", "If"}))'
	[ "$output" = "['Equal', 'If', 'Or']" ]
}

@test "lists: lists built in loops, indexed (l[1], l[-1]) and concatenated" {
	build
	lists_run loops script 0 1
	lists_run loops trace 0
}

@test "lists: torch's RnnModelWithPackedSequenceWithoutState (list + list(tuple) around a packed LSTM)" {
	build
	lists_run packed_list script 0 1
	lists_run packed_list trace 0
}

@test "lists: x in a list not known element-wise is refused by lower, naming the op" {
	need_torch
	cat > bad.py <<'PY'
from typing import List

import torch
import torch.nn as nn


class M(nn.Module):
    def forward(self, x):
        ks: List[int] = []
        for i in range(x.size(0)):
            ks.append(i * 2)
        return x + 1 if x.size(1) in ks else x
PY
	cat >> bad.py <<'PY'


torch.jit.script(M()).save("m.pt")
PY
	fixture_run bad.py
	run -0 tool script m.pt -i 'x=f32[n,3]' -o m.air
	run -4 tool lower m.air -o m.oir
	[[ "$output" == *"aten::__contains__"*"not known element-wise"* ]]
	[ ! -e m.oir ]
}

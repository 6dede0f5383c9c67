#!/usr/bin/env bats
# 212-script-dicts.bats - what torchvision's scripted detectors do with
# loops, lists and dicts (issue 14), in small models scripted by torch 1.13
# (tests/script/make_dict_models.py): a loop carrying an Optional that is
# None (dropped from the ONNX Loop), loops of a known trip count writing
# into lists of tensors (unrolled), dicts of constant keys built, changed
# in a loop and read (keys, values, items, len, `in`, update), a list of dicts
# returned (flattened: each dict's values in insertion order), a tensor
# written in place in a loop of a dynamic trip count (carried), the rpn's
# x[batch_idx, top_n_idx] and split by one size.  Each is
# exported by `script` with a dynamic dim and run by ONNX Runtime at two
# sizes against torch's outputs; a dict changed in a loop of a dynamic
# trip count is refused with one line.  Then torchvision's FCOS
# (tests/script/make_fcos_small.py), scripted whole: its detections at two
# sizes against torch's, opsets 11 and 17.
# bats file_tags=tier:standard

load helper

setup_file() {
	need_torch || return 0
	need_ort || return 0
}

build() {
	fixture_run "$TESTS_DIR/script/make_dict_models.py"
}

# dicts_run NAME OPSET: script NAME.pt (NAME.spec) | lower | fold | emit,
# checked, then ONNX Runtime at both sizes against torch
dicts_run() {
	local name=$1 opset=$2 k
	(set -o pipefail
	 tool script "$name.pt" -i "$(cat "$name.spec")" |
		tool lower --opset "$opset" | tool fold |
		emit -o "$name-$opset.onnx") || return 1
	onnx_checker "$name-$opset.onnx" || return 1
	for k in 0 1; do
		rm -rf "out-$name-$k"
		ort_run "$name-$opset.onnx" "out-$name-$k" "x=$name-$k.x.npy" \
			> /dev/null || return 1
		"$PYTHON" "$ORACLE_DIR/export_cases.py" compare "$name-$k" \
			"out-$name-$k" "$name-$opset.onnx" || return 1
	done
}

@test "dicts: a loop carrying None (GeneralizedRCNNTransform's targets) stays an ONNX Loop without it, 11 14" {
	build
	run -0 dicts_run noneloop 11
	run -0 dicts_run noneloop 14
	run -0 "$PYTHON" -c 'import onnx
g = onnx.load("noneloop-14.onnx").graph
l = [n for n in g.node if n.op_type == "Loop"]
print(len(l), len(l[0].input))'
	[ "$output" = "1 3" ]
}

@test "dicts: loops of a known trip count writing into lists of tensors are unrolled, 11 14" {
	build
	run -0 dicts_run listwrite 11
	run -0 dicts_run listwrite 14
}

@test "dicts: a dict built, changed in a loop, read by keys/values/items/len/in; str(i) keys, 11 14" {
	build
	run -0 dicts_run dictops 11
	run -0 dicts_run dictops 14
	run -0 dicts_run strkeys 14
}

@test "dicts: a returned list of dicts is flattened into each dict's values in order, 14" {
	build
	run -0 dicts_run dictlist 14
	run -0 "$PYTHON" -c 'import onnx
print(len(onnx.load("dictlist-14.onnx").graph.output))'
	[ "$output" = 4 ]
}

@test "dicts: a tensor written in place in a loop of a dynamic trip count is carried by the ONNX Loop; min() of a dynamic size, 11 14" {
	build
	run -0 dicts_run loopwrite 11
	run -0 dicts_run loopwrite 14
}

@test "dicts: x[batch_idx, top_n_idx] whose len bounds a loop, a split by one size not constant (torchvision's rpn), 11 14" {
	build
	run -0 dicts_run indexsplit 11
	run -0 dicts_run indexsplit 14
}

@test "dicts: a dict changed in a loop of a dynamic trip count is refused by lower, naming the op" {
	need_torch
	cat > bad.py <<'PY'
from typing import Dict

import torch
import torch.nn as nn


class M(nn.Module):
    def forward(self, x):
        d: Dict[str, torch.Tensor] = {"a": x}
        for i in range(x.size(0)):
            d["a"] = d["a"] + 1.0
        return d["a"]


torch.jit.script(M()).save("m.pt")
PY
	fixture_run bad.py
	run -0 tool script m.pt -i 'x=f32[n,3]' -o m.air
	run -4 tool lower --opset 14 m.air -o m.oir
	[[ "$output" == *"aten::_set_item"*"a dict changed in a loop"* ]]
	[ ! -e m.oir ]
}

@test "dicts: torchvision's FCOS scripted (transform, FPN dict, heads, anchors, batched_nms, postprocess) matches torch, 11 17" {
	fixture_run "$TESTS_DIR/script/make_fcos_small.py"
	run -0 dicts_run fcos 11
	run -0 dicts_run fcos 17
}

#!/usr/bin/env bats
# 990-torch2.bats - the torch2 family: the 11 TorchScript archives torch
# 2.11 saved (tests/conformance/torch2/NAME: traced.pt, scripted.pt,
# in_K.npy, ref_K.npy; copied from ../shared/torch2/models).  Every model,
# both archives, script and trace paths, opsets 13, 17 and 23: converted by
# pt2onnx, checked by onnx.checker (full_check), run in ONNX Runtime on
# in_K.npy and compared with torch 2.11's ref_K.npy (fp32: max |a-b| /
# max |ref| <= 1e-4; integers exact), by tests/conformance/torch2.py.

# bats file_tags=tier:standard

load helper

setup_file() {
	need_ort || return 0
}

T2="$TESTS_DIR/conformance/torch2.py"

@test "torch2: script path, traced.pt and scripted.pt of the 11 models, opsets 13 and 17, match torch 2.11's outputs" {
	run -0 "$PYTHON" "$T2" --paths script --opsets 13,17 --pt2onnx "$BINDIR/pt2onnx"
	[[ "$output" == *"torch2: 44 passed, 0 failed"* ]]
}

@test "torch2: trace path, traced.pt and scripted.pt of the 11 models, opsets 13 and 17, match torch 2.11's outputs" {
	run -0 "$PYTHON" "$T2" --paths trace --opsets 13,17 --pt2onnx "$BINDIR/pt2onnx"
	[[ "$output" == *"torch2: 44 passed, 0 failed"* ]]
}

@test "torch2: the 11 models at opset 23 (sdpa as Attention, layer_norm as LayerNormalization), both paths, match torch 2.11's outputs" {
	run -0 "$PYTHON" "$T2" --opsets 23 --pt2onnx "$BINDIR/pt2onnx"
	[[ "$output" == *"torch2: 44 passed, 0 failed"* ]]
}

@test "torch2: attention models at opsets 9 and 14 too (SDPA causal and with a mask, MHA, GQA via repeat_interleave)" {
	run -0 "$PYTHON" "$T2" --opsets 9,14 --pt2onnx "$BINDIR/pt2onnx" \
		--only kv_cache_step,llama_block,multihead_attention
	[[ "$output" == *"torch2: 24 passed, 0 failed"* ]]
}

@test "torch2: cumsum at opset 9 (ONNX CumSum is opset 11) is refused with lower's message and no file" {
	local d="$TESTS_DIR/conformance/torch2/index_add_cumsum"
	run -4 pt2onnx "$d/traced.pt" -o c9.onnx --opset-version 9 --trace \
		--input "$d/in_0.npy" --input "$d/in_1.npy"
	[[ "$output" == *"lower: <stdin>: aten::cumsum at Scatterish"*"has no symbolic for opset 9"* ]]
	[[ "$output" == *"pt2onnx: the lower stage failed (exit 4); no model written"* ]]
	[ ! -e c9.onnx ]
}

@test "torch2: the family is in the conformance suite's fast subset (make conformance-fast)" {
	run -0 "$PYTHON" "$TESTS_DIR/conformance/generate.py" --subset fast --family torch2 --list \
		--work "$WORK/cw"
	[ "$(grep -c '^torch2 ' <<<"$output")" -eq 11 ]
}

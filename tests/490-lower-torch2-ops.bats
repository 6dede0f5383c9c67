#!/usr/bin/env bats
# 490-lower-torch2-ops.bats - operators torch 2.x writes and torch 1.13
# lacks: aten::rms_norm (weight, eps given or None, two normalized dims)
# and aten::scaled_dot_product_attention with
# each of its arguments (no mask, a bool mask broadcast over batch and
# heads, a float mask, is_causal with L != S, scale, a negative scale,
# enable_gqa, rank 3, dropout_p in eval), lowered at opsets 9, 13, 14 and
# 17, and at 23 and 26 where sdpa is one Attention node and rms_norm one
# RMSNormalization wherever their semantics match torch's, on the script
# path and the trace path (trace's CPU kernel).  torch 1.13 has no such
# op: tests/lower/make_torch2_ops.py rewrites a scripted
# placeholder's call into the torch 2.x call and computes the expected
# output with torch from the op's math-path definition; each conversion
# is checked by onnx.checker (full_check; `check` above onnx 1.12's
# opsets) and run in ONNX Runtime (tests/conformance/torch2.py, max
# relative error 1e-4).  torch 2.x's core ATen ops of torch.export graphs
# (native_group_norm, the _native_batch_norm_legit family, _unsafe_index,
# _unsafe_index_put, _embedding_bag) against the torch 1.13 ops they
# compute; randperm, backward ops, sym_stride (and the stride and
# storage_offset lib/pt2 reads sym_stride and sym_storage_offset as),
# sym_is_contiguous and resize_ refused with their reasons.

# bats file_tags=tier:standard

load helper

T2="$TESTS_DIR/conformance/torch2.py"

setup_file() {
	need_torch || return 0
	need_ort || return 0
	/usr/bin/python3 "$BATS_TEST_DIRNAME/lower/make_torch2_ops.py" "$BATS_FILE_TMPDIR/sdpa"
}

@test "lower: scaled_dot_product_attention's arguments (masks, is_causal, scale, enable_gqa, rank 3), script and trace paths, 9 13 14 17" {
	run -0 "$PYTHON" "$T2" --src "$BATS_FILE_TMPDIR/sdpa" --archives scripted --opsets 9,13,14,17 \
		--pt2onnx "$BINDIR/pt2onnx" \
		--only plain,causal,scale,neg_scale,bool_mask,float_mask,gqa,gqa_causal,rank3_causal
	[[ "$output" == *"torch2: 72 passed, 0 failed"* ]]
}

@test "lower: dropout_p != 0 converts as inference (torch's exporter: Dropout is the identity); trace refuses the random op" {
	run -0 "$PYTHON" "$T2" --src "$BATS_FILE_TMPDIR/sdpa" --archives scripted --opsets 13,17 \
		--paths script --pt2onnx "$BINDIR/pt2onnx" --only dropout_eval
	[[ "$output" == *"torch2: 2 passed, 0 failed"* ]]
	local d="$BATS_FILE_TMPDIR/sdpa/dropout_eval"
	run -4 pt2onnx "$d/scripted.pt" -o t.onnx --trace --input "$d/in_0.npy" --input "$d/in_1.npy" \
		--input "$d/in_2.npy"
	[[ "$output" == *"aten::scaled_dot_product_attention (Placeholder3): attention dropout is random"* ]]
	[ ! -e t.onnx ]
}

@test "lower: is_causal with lengths known only at run time (Range from 11, NonZero at 9), script path, 9 13 17" {
	local d="$BATS_FILE_TMPDIR/sdpa/causal" v
	for v in 9 13 17; do
		run -0 pt2onnx "$d/scripted.pt" -o "c$v.onnx" --opset-version "$v" \
			--input 'q=f32[2,4,L,8]' --input 'k=f32[2,4,S,8]' --input 'v=f32[2,4,S,6]'
		run -0 onnx_checker "c$v.onnx"
		run -0 ort_run "c$v.onnx" "o$v" "q=$d/in_0.npy" "k=$d/in_1.npy" "v=$d/in_2.npy"
		run -0 "$PYTHON" - "$d/ref_0.npy" "o$v" <<'PY'
import glob, sys
import numpy as np
ref = np.load(sys.argv[1])
out, = [np.load(f) for f in glob.glob(sys.argv[2] + "/*.npy")]
assert out.shape == ref.shape and out.dtype == ref.dtype, (out.shape, out.dtype)
rel = np.abs(out - ref).max() / np.abs(ref).max()
assert rel <= 1e-4, rel
PY
	done
}

@test "lower: rms_norm (weight and eps, eps None as float32's epsilon, two normalized dims, no weight), script and trace paths, 9 13 17" {
	run -0 "$PYTHON" "$T2" --src "$BATS_FILE_TMPDIR/sdpa" --archives scripted --opsets 9,13,17 \
		--pt2onnx "$BINDIR/pt2onnx" --only rms_weight_eps,rms_default_eps,rms_two_dims
	[[ "$output" == *"torch2: 18 passed, 0 failed"* ]]
}

@test "lower: opsets 23 and 26: sdpa is one Attention node and rms_norm one RMSNormalization, verified in ONNX Runtime, script and trace paths" {
	run -0 "$PYTHON" "$T2" --src "$BATS_FILE_TMPDIR/sdpa" --archives scripted --opsets 23,26 \
		--pt2onnx "$BINDIR/pt2onnx" \
		--only plain,causal,scale,neg_scale,bool_mask,float_mask,gqa,gqa_causal,rank3_causal,rms_weight_eps,rms_default_eps,rms_two_dims
	[[ "$output" == *"torch2: 48 passed, 0 failed"* ]]
}

@test "lower: Attention and RMSNormalization only from 23 and only where they match torch (rank 4, a positive scale, a mask ORT takes as it is, not double)" {
	local case v want
	# case:opset:the fused node expected (- for none)
	for want in plain:23:Attention causal:23:Attention gqa:26:Attention bool_mask:23:Attention \
		    scale:26:Attention plain:17:- neg_scale:23:- float_mask:23:- rank3_causal:23:- \
		    rms_weight_eps:23:RMSNormalization rms_two_dims:26:RMSNormalization rms_weight_eps:17:-; do
		IFS=: read -r case v op <<<"$want"
		local d="$BATS_FILE_TMPDIR/sdpa/$case" ins=()
		for f in "$d"/in_*.npy; do ins+=(--input "$f"); done
		run -0 pt2onnx "$d/scripted.pt" -o "$case$v.onnx" --opset-version "$v" --trace "${ins[@]}"
		run -0 "$PYTHON" - "$case$v.onnx" "$op" <<'PY'
import sys, onnx
ops = [n.op_type for n in onnx.load(sys.argv[1]).graph.node]
fused = [o for o in ops if o in ("Attention", "RMSNormalization")]
want = [] if sys.argv[2] == "-" else [sys.argv[2]]
assert fused == want, (sys.argv[1], ops)
if want == ["Attention"]:
    assert "Softmax" not in ops, ops
PY
	done
}

@test "lower: torch 2.x core ops (native_group_norm with its mean and rstd, the _native_batch_norm_legit family, native_batch_norm), script and trace paths, 9 13 17" {
	run -0 "$PYTHON" "$T2" --src "$BATS_FILE_TMPDIR/sdpa" --archives scripted --opsets 9,13,17 \
		--pt2onnx "$BINDIR/pt2onnx" \
		--only native_group_norm,native_group_norm_mean,native_group_norm_rstd,native_group_norm_3d_nw,bn_legit_no_training,bn_legit_eval,bn_legit_functional,bn_legit_no_stats,native_batch_norm
	[[ "$output" == *"torch2: 54 passed, 0 failed"* ]]
}

@test "lower: torch 2.x core ops _unsafe_index, _unsafe_index_put (from 11, ScatterND) and _embedding_bag, script and trace paths, 11 17" {
	run -0 "$PYTHON" "$T2" --src "$BATS_FILE_TMPDIR/sdpa" --archives scripted --opsets 11,17 \
		--pt2onnx "$BINDIR/pt2onnx" \
		--only unsafe_index,unsafe_index_put,embedding_bag_mean,embedding_bag_max,embedding_bag_sum_last
	[[ "$output" == *"torch2: 20 passed, 0 failed"* ]]
}

@test "lower: randperm is refused with its reason (no ONNX random permutation)" {
	cat > rp.py <<'PY'
import torch


class M(torch.nn.Module):
    def forward(self, x):
        return x[torch.randperm(x.shape[0])]


torch.jit.script(M()).save("rp.pt")
PY
	run -0 "$PYTHON" rp.py
	run -0 tool script rp.pt -i 'x=f32[5,3]' -o rp.air
	run -4 tool lower rp.air -o rp.oir
	[[ "$output" == *"aten::randperm"*"random permutation"* ]]
	[ ! -e rp.oir ]
}

@test "lower: core ops with no ONNX meaning are refused with their reason: backward ops, sym_stride, stride and storage_offset (lib/pt2's reading of sym_stride, sym_storage_offset), sym_is_contiguous, resize_ (no model written)" {
	cat > ref.ir <<'IR'
ir 1.0 aten
graph M(%x : Float(2, 3), %m : Float(2, 1)):
  %ns : int[] = prim::Constant[value=[3]]()
  %none : NoneType = prim::Constant()
  %mask : bool[] = prim::Constant[value=[1, 0, 0]]()
  %g : Tensor, %gw : Tensor, %gb : Tensor = aten::native_layer_norm_backward(%x, %x, %ns, %m, %m, %none, %none, %mask)
  %one : int = prim::Constant[value=1]()
  %st : int = aten::sym_stride(%x, %one)
  %st2 : int = aten::stride(%x, %one)
  %so : int = aten::storage_offset(%x)
  %zero : int = prim::Constant[value=0]()
  %ic : bool = aten::sym_is_contiguous(%x, %zero)
  %gs : Tensor = aten::mul(%g, %st)
  %gs2 : Tensor = aten::mul(%gs, %st2)
  %gs3 : Tensor = aten::mul(%gs2, %so)
  %gs4 : Tensor = aten::mul(%gs3, %ic)
  %sz : int[] = prim::Constant[value=[6]]()
  %r : Tensor = aten::resize_(%x, %sz, %none)
  return (%gs4, %r)
IR
	run -4 tool lower ref.ir -o ref.oir
	[[ "$output" == *"aten::native_layer_norm_backward"*"a gradient (backward) op"* ]]
	[[ "$output" == *"aten::sym_stride"*"memory layout"*"no ONNX meaning"* ]]
	[[ "$output" == *"aten::stride has"*"memory layout"*"no ONNX meaning"* ]]
	[[ "$output" == *"aten::storage_offset"*"memory layout"*"no ONNX meaning"* ]]
	[[ "$output" == *"aten::sym_is_contiguous"*"memory layout"*"no ONNX meaning"* ]]
	[[ "$output" == *"aten::resize_"*"resizes a tensor's storage in place"* ]]
	[ ! -e ref.oir ]
}

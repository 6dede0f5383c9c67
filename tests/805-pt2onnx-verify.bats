#!/usr/bin/env bats
# 805-pt2onnx-verify.bats - issue 16 section 4: pt2onnx --verify runs the
# exported model with ONNX Runtime's C API (libonnxruntime.so.1 loaded with
# dlopen: the npm package's, through PT2ONNX_ORT_LIB) and compares its
# outputs with trace's on the same inputs.  The models are torch 1.13's
# (tests/oracle/surface_models.py, cached); a model that verifies is also
# run by ONNX Runtime from node and compared with torch's outputs, and a
# model made wrong on purpose (a user's lower that turns every Relu into a
# LeakyRelu, examples/user-stage) fails --verify, as it fails against
# torch's outputs.  On the script path trace runs the archive for the
# reference outputs (--seed seeds its random inputs).
# bats file_tags=tier:standard

load helper
SURFACE_NEEDS_ORT=1
load oracle/surface

setup() {
	surface_setup || return 1
	export PT2ONNX_ORT_LIB="$ORACLE_DIR/node_modules/onnxruntime-node/bin/napi-v6/linux/x64/libonnxruntime.so.1"
	[ -f "$PT2ONNX_ORT_LIB" ] || skip "needs onnxruntime-node's libonnxruntime.so.1 (make deps)"
	ORT_VERSION=$(cd "$ORACLE_DIR" && node -p 'require("onnxruntime-node/package.json").version')
}

# torch's outputs for x.npy, against ONNX Runtime's (node) of MODEL
torch_agrees() {
	ort_run "$1" out x="$F/x.npy" > /dev/null || return 1
	local outs=(out/*.npy)
	[ "${#outs[@]}" = 2 ] || return 1
	"$PYTHON" "$ORACLE_DIR/reference.py" compare "${outs[0]}" "$F/want0.npy" 1e-4 &&
	"$PYTHON" "$ORACLE_DIR/reference.py" compare "${outs[1]}" "$F/want1.npy" 1e-4
}

@test "verify: the script path's model matches (and torch agrees)" {
	run -0 "$BINDIR/pt2onnx" "$F/net.pt" -i x="$F/x.npy" -o m.onnx --verify
	[ "$output" = "pt2onnx: --verify: 2 outputs match the trace (ONNX Runtime $ORT_VERSION, rtol 0.001, atol 1e-07)" ]
	torch_agrees m.onnx
}

@test "verify: the trace path, random inputs of the shapes given, dynamic batch" {
	run -0 "$BINDIR/pt2onnx" --trace "$F/net_traced.pt" -i x=f32[3,3,8,8] --seed 7 \
		--dynamic-axes 'x:0=batch' -o m.onnx --verify=True
	[ "$output" = "pt2onnx: --verify: 2 outputs match the trace (ONNX Runtime $ORT_VERSION, rtol 0.001, atol 1e-07)" ]
	torch_agrees m.onnx
	# torch's spelling, and a report that records it
	run -0 "$BINDIR/pt2onnx" "$F/net.pt" -i x=f32[2,3,8,8] -o r.onnx --verify True --report r.md -v
	grep -qx '## Verification' r.md
	grep -qE '^--verify: output 0: 10 elements match \(largest difference [0-9.e+-]+\)$' r.md
	grep -qE '^--verify: output 1: 1 elements match' r.md
}

@test "verify: a wrong model fails with the outputs that differ, exit 1, and is kept" {
	mkdir stages
	for s in script fold emit check trace; do ln -s "$BINDIR/$s" stages/$s; done
	printf '#!/bin/sh\nset -e\n"%s/lower" -S "$@" | "%s/examples/user-stage/leaky-relu.sh" 0.5\n' \
		"$BINDIR" "$ROOT_DIR" > stages/lower
	chmod +x stages/lower
	PT2ONNX_EXEC_PATH=$PWD/stages run -1 "$BINDIR/pt2onnx" "$F/net.pt" -i x="$F/x.npy" -o m.onnx --verify \
		--report --artifacts-dir art
	[[ "${lines[0]}" =~ ^"pt2onnx: --verify: output 0: "[0-9]+" of 10 elements differ (largest at "[0-9]+": " ]]
	[[ "${lines[1]}" =~ ^"pt2onnx: --verify: output 1: 1 of 1 elements differ" ]]
	[ "${lines[2]}" = "pt2onnx: --verify: 'm.onnx' does not match the trace (ONNX Runtime $ORT_VERSION, rtol 0.001, atol 1e-07); it was written all the same" ]
	[ "${#lines[@]}" = 3 ]
	# written and valid, and wrong as torch sees it too
	run -0 onnx_checker m.onnx
	run -0 "$PYTHON" -c 'import onnx; print(sum(n.op_type == "LeakyRelu" for n in onnx.load("m.onnx").graph.node))'
	[ "$output" = 1 ]
	if torch_agrees m.onnx; then false; fi
	# the report is named after torch 2.x's accuracy step
	run -0 ls art
	[[ "$output" =~ ^onnx_export_[0-9_-]+_accuracy\.md$ ]]
}

@test "verify: without ONNX Runtime, one line, exit 4, the model kept" {
	PT2ONNX_ORT_LIB=$PWD/none/libonnxruntime.so.1 run -4 "$BINDIR/pt2onnx" "$F/net.pt" -i x=f32[2,3,8,8] -o m.onnx --verify
	[[ "${lines[0]}" == "pt2onnx: ONNX Runtime is not available: cannot load $PWD/none/libonnxruntime.so.1 ("*"); set PT2ONNX_ORT_LIB to its libonnxruntime.so.1" ]]
	[ "${lines[1]}" = "pt2onnx: --verify: cannot verify without ONNX Runtime; the model was written unverified" ]
	[ "${#lines[@]}" = 2 ]
	run -0 onnx_checker m.onnx
	torch_agrees m.onnx
	# a file that is not ONNX Runtime
	echo no > fake.so
	PT2ONNX_ORT_LIB=$PWD/fake.so run -4 "$BINDIR/pt2onnx" "$F/net.pt" -i x=f32[2,3,8,8] -o m.onnx --verify
	[[ "${lines[0]}" == "pt2onnx: ONNX Runtime is not available: cannot load $PWD/fake.so ("* ]]
}

@test "verify: the script path with --seed: trace computes the reference outputs on random inputs" {
	run -0 "$BINDIR/pt2onnx" "$F/net.pt" -i x=f32[2,3,8,8] --seed 7 -o m.onnx --verify
	[ "$output" = "pt2onnx: --verify: 2 outputs match the trace (ONNX Runtime $ORT_VERSION, rtol 0.001, atol 1e-07)" ]
	torch_agrees m.onnx
	# without --verify, a seed has nothing to seed on the script path
	run -2 "$BINDIR/pt2onnx" "$F/net.pt" -i x=f32[3,3,8,8] --seed 7 -o n.onnx
	[ "$output" = "pt2onnx: --device and --seed need --trace (or --verify, whose reference outputs trace computes)" ]
	[ ! -e n.onnx ]
}

@test "verify: refused up front without the weights in the model" {
	run -2 "$BINDIR/pt2onnx" "$F/net.pt" -i x=f32[2,3,8,8] -o m.onnx --verify --export-params=false
	[ "$output" = "pt2onnx: --verify needs the weights in the model (not --export-params=false)" ]
	[ ! -e m.onnx ]
}

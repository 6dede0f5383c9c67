#!/usr/bin/env bats
# 872-pt2onnx-custom-symbolic.bats - `pt2onnx --custom-symbolic FILE.so`
# (docs/plugins.md) on archives that call custom C++ ops defined with
# torch.library in torch 1.13 (tests/lower/make_custom_ops.py):
# mynamespace::myop exported into the custom domain with --custom-opsets
# (onnx.checker passes it, the opset import is there), mynamespace::myswish
# lowered to standard ops, which ONNX Runtime runs and matches torch at
# two batch sizes; the script stage carries an op it has no schema for
# through, the trace stage refuses it in one line; a plugin that cannot be
# loaded fails the export with no output.
# bats file_tags=tier:standard

load helper

setup_file() {
	need_torch || return 0
	need_ort || return 0
	export FIX="$BATS_FILE_TMPDIR/fix"
	FIXTURE_DEST="$FIX" fixture_run "$TESTS_DIR/lower/make_custom_ops.py"
	for p in myop myswish; do
		cc -std=c11 -Wall -Wextra -Werror -shared -fPIC \
			-I"$ROOT_DIR/lib/lower" -o "$FIX/$p.so" \
			"$ROOT_DIR/examples/plugins/$p.c"
	done
}

@test "custom symbolic: myop into domain mynamespace with --custom-opsets; onnx.checker passes" {
	run -0 pt2onnx "$FIX/myop_scripted.pt" -i 'x=f32[batch,3]' \
		--custom-symbolic "$FIX/myop.so" --custom-opsets mynamespace=1 -o m.onnx
	run -0 onnx_checker m.onnx
	run -0 "$PYTHON" - <<'PY'
import onnx
m = onnx.load("m.onnx")
imp = {o.domain: o.version for o in m.opset_import}
assert imp.get("mynamespace") == 1, imp
nodes = [(n.domain, n.op_type) for n in m.graph.node]
assert nodes == [("mynamespace", "myop"), ("", "Relu")], nodes
# the plugin declared the output's type: the input's
t = m.graph.output[0].type.tensor_type
assert t.elem_type == onnx.TensorProto.FLOAT, t
assert [d.dim_param or d.dim_value for d in t.shape.dim] == ["batch", 3], t
PY
}

@test "custom symbolic: --custom-opsets sets the custom domain's version" {
	run -0 pt2onnx "$FIX/myop_scripted.pt" -i 'x=f32[2,3]' \
		--custom-symbolic "$FIX/myop.so" --custom-opsets mynamespace=3 -o m.onnx
	run -0 "$PYTHON" -c '
import onnx
m = onnx.load("m.onnx")
assert {o.domain: o.version for o in m.opset_import}["mynamespace"] == 3'
}

@test "custom symbolic: myswish lowered to standard ops; ONNX Runtime matches torch" {
	run -0 pt2onnx "$FIX/swish_scripted.pt" -i 'x=f32[batch,3]' \
		--custom-symbolic "$FIX/myswish.so" -o s.onnx
	run -0 onnx_checker s.onnx
	run -0 ort_run s.onnx out x="$FIX/x.npy"
	run -0 "$PYTHON" "$ORACLE_DIR/reference.py" compare out/*.npy "$FIX/swish_want.npy" 1e-5
	# no custom domain is left in the model
	run -0 "$PYTHON" -c '
import onnx
m = onnx.load("s.onnx")
assert all(n.domain == "" for n in m.graph.node), m.graph.node
assert "Sigmoid" in [n.op_type for n in m.graph.node]'
}

@test "custom symbolic: without the plugin the op is named as having no symbolic, exit 4" {
	run -4 pt2onnx "$FIX/myop_scripted.pt" -i 'x=f32[2,3]' -o m.onnx
	[[ "$output" == *'mynamespace::myop'*'has no symbolic for opset 14'* ]]
	[ ! -e m.onnx ]
}

@test "custom symbolic: a plugin that cannot be loaded fails the export, no output" {
	run -2 pt2onnx "$FIX/myop_scripted.pt" -i 'x=f32[2,3]' \
		--custom-symbolic ./nope.so -o m.onnx
	[ "${lines[0]}" = "lower: plugin './nope.so': cannot load it: ./nope.so: cannot open shared object file: No such file or directory" ]
	[ ! -e m.onnx ]
}

@test "custom symbolic: script carries an op with no schema through; trace refuses it in one line" {
	run -0 tool script -S "$FIX/myop_scripted.pt" -i 'x=f32[2,3]'
	[[ "$output" == *'%0 : Any = mynamespace::myop(%x)'* ]]
	run -0 tool script "$FIX/myop_traced.pt" -i 'x=f32[2,3]' -o s.ir
	run -0 tool lower -S --plugin "$FIX/myop.so" s.ir
	[[ "$output" == *'Float(2, 3) = mynamespace::myop(%x)'* ]]
	run -4 pt2onnx --trace "$FIX/myop_traced.pt" -i 'x=f32[2,3]' \
		--custom-symbolic "$FIX/myop.so" -o t.onnx
	[[ "$output" == *'trace: mynamespace::myop (MyOp): no implementation for this op in `trace`'* ]]
	[ ! -e t.onnx ]
}

@test "custom symbolic: pt2onnx --help names --custom-symbolic" {
	run -0 pt2onnx x.pt --help
	[[ "$output" == *'--custom-symbolic FILE.so'* ]]
}

#!/usr/bin/env bats
# 770-check-input-types.bats - check refuses a main-graph input whose tensor
# type has no elem_type, or elem_type 0 (UNDEFINED), as onnx.checker does;
# the models are built with python onnx's helper.
# bats file_tags=tier:check

load helper

build() {
	"$PYTHON" - <<'PY'
import onnx
from onnx import helper, TensorProto
out = helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])
def save(name, vi):
    g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g",
                          [vi], [out])
    onnx.save(helper.make_model(
        g, opset_imports=[helper.make_opsetid("", 14)]), name)
vi = onnx.ValueInfoProto(name="x")
vi.type.tensor_type.elem_type = TensorProto.UNDEFINED
vi.type.tensor_type.shape.dim.add().dim_value = 4
save("undefined.onnx", vi)
vi = onnx.ValueInfoProto(name="x")
vi.type.tensor_type.shape.dim.add().dim_value = 4
save("missing.onnx", vi)
save("typed.onnx", helper.make_tensor_value_info("x", TensorProto.FLOAT, [4]))
PY
}

@test "check: a main-graph input without elem_type is refused, as onnx.checker does" {
	build
	for m in undefined missing; do
		run -1 onnx_checker "$m.onnx"
		run -1 check "$m.onnx"
		[ "$output" = "check: $m.onnx: graph \"g\": input \"x\" has no elem_type
check: $m.onnx: invalid (1 problem)" ]
	done
	run -0 onnx_checker typed.onnx
	run -0 check typed.onnx
	[ "$output" = "typed.onnx: ok" ]
}

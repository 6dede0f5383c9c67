#!/usr/bin/env bats
# 471-lower-aten-fallback.bats - operator_export_type onnx_aten_fallback and
# onnx_fallthrough: an aten op with no symbolic (linalg_eig: complex
# outputs, no ONNX meaning; view_as_real of them) becomes a
# custom node of domain org.pytorch.aten (ATen with its "operator", or the
# op itself), as torch 1.13 exports it; the model has typed outputs and
# passes check and onnx.checker; a warning says that standard runtimes
# cannot run it, and ONNX Runtime indeed refuses it.
# bats file_tags=tier:standard

load helper

setup_file() {
	need_torch || return 0
	need_ort || return 0
	cd "$BATS_FILE_TMPDIR" || return 1
	cat > m.py <<'PY'
import warnings
warnings.filterwarnings("ignore")
import torch
class M(torch.nn.Module):
    def forward(self, x):
        w, v = torch.linalg.eig(x.relu() + 1.0)
        return torch.view_as_real(w).sum() * 2.0 + x.sum()
m = M()
torch.jit.save(torch.jit.script(m), "m.pt")
T = torch.onnx.OperatorExportTypes
for name in ("ONNX_ATEN_FALLBACK", "ONNX_FALLTHROUGH"):
    torch.onnx.export(m, (torch.randn(3, 3),), f"torch_{name.lower()}.onnx",
                      opset_version=14, operator_export_type=getattr(T, name),
                      input_names=["x"])
PY
	"$PYTHON" m.py
}

# the custom nodes in order: domain, op type, "operator"; then the standard
# ops' types but Constant (torch passes constant arguments as Constant
# inputs, pt2onnx as attributes)
nodes() {
	"$PYTHON" -c '
import onnx, sys
g = onnx.load(sys.argv[1]).graph
print([(n.domain, n.op_type, [a.s.decode() for a in n.attribute if a.name == "operator"]) for n in g.node if n.domain])
print([n.op_type for n in g.node if not n.domain and n.op_type != "Constant"])
print([(o.name != "", o.type.tensor_type.elem_type, len(o.type.tensor_type.shape.dim)) for o in g.output])' "$1"
}

@test "pt2onnx --operator-export-type onnx_aten_fallback / onnx_fallthrough: torch's custom nodes, checked" {
	D="$BATS_FILE_TMPDIR"
	for t in onnx_aten_fallback onnx_fallthrough; do
		run -0 pt2onnx "$D/m.pt" -i 'x=f32[3,3]' -o m.onnx \
			--opset-version 14 --operator-export-type "$t"
		[ "${#lines[@]}" = 2 ]
		[[ "${lines[0]}" == "lower: <stdin>: warning: aten::linalg_eig at M: exported as the custom node org.pytorch.aten::"*", which standard ONNX runtimes cannot run" ]]
		[[ "${lines[1]}" == "lower: <stdin>: warning: aten::view_as_real at M: exported as the custom node org.pytorch.aten::"* ]]
		run -0 check m.onnx
		run -0 onnx_checker m.onnx
		run -0 nodes "$D/torch_$t.onnx"
		want=$output
		run -0 nodes m.onnx
		[ "$output" = "$want" ]
		# what the warning says: ONNX Runtime cannot run it
		"$PYTHON" -c 'import numpy as np; np.save("x.npy", np.ones((3, 3), np.float32))'
		run ort_run m.onnx out x=x.npy
		[ "$status" -ne 0 ]
	done
	# without a fallback, still refused in one line per op
	run -4 pt2onnx "$D/m.pt" -i 'x=f32[3,3]' -o m2.onnx --opset-version 14
	[[ "$output" == *"aten::linalg_eig at M (code/__torch__.py:"*") has no symbolic for opset 14"* ]]
	[ ! -e m2.onnx ]
}

#!/usr/bin/env bats
# 871-pt2onnx-user-stage.bats - a stage of the user's own in the pipeline:
# examples/user-stage/leaky-relu.sh rewrites the text IR between lower and
# fold (every Relu a LeakyRelu); ONNX Runtime's result is torch's for the
# same weights with leaky_relu.  A stage that writes an op ONNX does not
# have is refused by emit, in one line naming the op and the node.
# bats file_tags=tier:standard

load helper

setup_file() {
	need_torch || return 0
	need_ort || return 0
}

STAGE="$ROOT_DIR/examples/user-stage/leaky-relu.sh"
EX="$ROOT_DIR/examples"

@test "user stage: leaky-relu.sh between lower and fold; ORT matches torch's leaky_relu" {
	"$PYTHON" - "$EX/cnn.pt" <<'PY'
import sys
import numpy as np, torch
import torch.nn.functional as F
m = torch.jit.load(sys.argv[1])
torch.manual_seed(3)
x = torch.randn(2, 3, 8, 8)
with torch.no_grad():
    y = F.max_pool2d(F.leaky_relu(m.conv(x), 0.1), 2)
    y = m.fc(torch.flatten(y, 1))
np.save("x.npy", x.numpy())
np.save("want.npy", y.numpy())
PY
	set -o pipefail
	"$BINDIR/pt2onnx" script "$EX/cnn.pt" -i 'x=f32[batch,3,8,8]' |
		"$BINDIR/pt2onnx" lower --opset 13 -S | "$STAGE" 0.1 |
		"$BINDIR/pt2onnx" fold | "$BINDIR/pt2onnx" emit -o m.onnx
	run -0 onnx_checker m.onnx
	run -0 "$PYTHON" -c 'import onnx; print(sorted(n.op_type for n in onnx.load("m.onnx").graph.node))'
	[ "$output" = "['Conv', 'Flatten', 'Gemm', 'LeakyRelu', 'MaxPool']" ]
	run -0 ort_run m.onnx out x=x.npy
	run -0 "$PYTHON" "$ORACLE_DIR/reference.py" compare out/*.npy want.npy 1e-5
}

@test "user stage: a bad argument is one line and exit 2" {
	run -2 "$STAGE" fast < /dev/null
	[ "$output" = "leaky-relu.sh: 'fast' is not a number" ]
}

@test "user stage: an op ONNX does not have is refused by emit, naming op and node" {
	"$BINDIR/pt2onnx" script "$EX/cnn.pt" -i 'x=f32[1,3,8,8]' |
		"$BINDIR/pt2onnx" lower --opset 13 -S |
		sed 's/= onnx::Relu(/= onnx::LeakyReLU(/' > typo.ir
	# fold passes it on (it folds what it knows)
	run -0 tool fold -S typo.ir -o folded.ir
	run -3 emit folded.ir -o m.onnx
	[ "$output" = 'emit: folded.ir: node onnx::LeakyReLU at SmallCNN/ReLU[relu]: LeakyReLU is not an ONNX op at opset 13 of domain "" (a custom op needs a domain of its own)' ]
	[ ! -e m.onnx ]
	# onnx.checker agrees that no such op exists
	sed 's/onnx::LeakyReLU/onnx::Relu/' folded.ir | emit -o ok.onnx
	run -0 "$PYTHON" -c '
import onnx
m = onnx.load("ok.onnx")
n = [n for n in m.graph.node if n.op_type == "Relu"][0]
n.op_type = "LeakyReLU"
try:
    onnx.checker.check_model(m)
except onnx.checker.ValidationError as e:
    assert "LeakyReLU" in str(e), e
else:
    raise SystemExit("onnx.checker accepted LeakyReLU")'
	# an op in a domain of its own is a custom op: written, declared
	sed 's/= onnx::Relu(/= my.ops::Swish(/' folded.ir | sed 's/onnx::LeakyReLU/my.ops::Swish/' |
		emit -o custom.onnx
	run -0 "$PYTHON" -c '
import onnx
m = onnx.load("custom.onnx")
assert [(o.domain, o.version) for o in m.opset_import if o.domain] == [("my.ops", 1)]
assert [n.domain for n in m.graph.node if n.op_type == "Swish"] == ["my.ops"]
onnx.checker.check_model(m)'
}

#!/bin/sh
# run.sh - the main job on the bundled example (`make example`): the small
# CNN archive examples/cnn.pt (torch.jit.script + torch.jit.save, written by
# examples/make_cnn.py) is exported to examples/out/cnn.onnx by `pt2onnx`
# (script | lower | fold | emit, then check), printed as text IR, and, where
# the test oracles are installed (`make deps`), run by ONNX Runtime and
# compared with torch's own output on the same input.
set -eu
cd "$(dirname "$0")/.."
BIN=${PT2ONNX_BINDIR:-bin}
mkdir -p examples/out

"$BIN/pt2onnx" examples/cnn.pt --input 'x=f32[1,3,8,8]' \
	--dynamic-axes 'x:0=batch' --opset-version 17 -o examples/out/cnn.onnx
echo "example: wrote examples/out/cnn.onnx"
"$BIN/check" examples/out/cnn.onnx
# the graph, with the weights' data cut short
"$BIN/check" --print examples/out/cnn.onnx | cut -c1-150

if [ -d tests/oracle/node_modules/onnxruntime-node ] && [ -x /usr/bin/python3 ]; then
	node tests/oracle/ort_run.js examples/out/cnn.onnx examples/out \
		x=examples/cnn_input.npy
	out=$(ls examples/out/*.npy | head -1)
	/usr/bin/python3 tests/oracle/reference.py compare \
		"$out" examples/cnn_expected.npy 1e-4
	echo "example: ONNX Runtime's output matches torch's (max relative error <= 1e-4)"
fi

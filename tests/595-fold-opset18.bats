#!/usr/bin/env bats
# 595-fold-opset18.bats - fold on the forms of opset 18 and later: Reduce*
# with axes as an input (tests/data/fold-opset18.ir).  The unfolded model
# is the oracle: ONNX Runtime 1.30 runs both on the same input, the outputs
# must agree (1e-5), and the folded one must have fewer nodes; check (onnx
# 1.23.1's schemas) validates both.

# bats file_tags=tier:standard

load helper

setup_file() {
	need_ort || return 0
}
load fold_helper

@test "fold at opset 18: Reduce{Mean,Max,Min,Prod} with axes inputs (and none) fold to what ONNX Runtime computes" {
	local f
	set -o pipefail
	reference input x.npy 5 float32 2,3
	emit "$DATA/fold-opset18.ir" -o unfolded.onnx
	fold "$DATA/fold-opset18.ir" | emit -o folded.onnx
	run -0 check unfolded.onnx folded.onnx
	ort_run unfolded.onnx want x=x.npy
	ort_run folded.onnx got x=x.npy
	for f in want/*.npy; do
		reference compare "got/${f#want/}" "$f" 1e-5
	done
	# every Reduce folded: only the five ops on %x are left
	run -0 node_count unfolded.onnx
	[ "$output" = 14 ]
	run -0 node_count folded.onnx
	[ "$output" = 5 ]
}

#!/usr/bin/env bats
# 433-lower-roi-align.bats - torchvision's roi_align where ONNX Runtime
# 1.30 has no RoiAlign (opset 22 and above: docs/opsets.md, "Where ONNX
# Runtime 1.30 does not run what pt2onnx writes"): lib/lower/
# symbolic_vision.c decomposes it (Gather of the four neighbours of each
# sample, MatMul by their weights), RoiAlign nodes up to 21 as before.
# Models traced and scripted by torch (tests/lower/make_roi_align.py: rois
# from several images, partly or wholly outside the map, thinner than a
# pixel, reversed; aligned both ways; spatial scales 1 to 1/8; sampling
# ratios 1 to 4; double input; a spatial scale known at run time; no rois)
# are converted by pt2onnx on the three paths at 17, 21, 22, 23 and 26,
# run in ONNX Runtime and compared with eager torch 1.13 (1e-5 of the
# largest, tests/lower/opcases.bash).  The first test asks ONNX Runtime
# itself why: RoiAlign runs at 21 and not at 22 (if a newer runtime runs
# it, ROI_ALIGN_NODE_LAST should move).
# bats file_tags=tier:full

load helper

OPCASES_GEN=make_roi_align.py
load lower/opcases

setup_file() {
	need_torch torchvision || return 0
	need_ort || return 0
}

@test "ONNX Runtime 1.30: RoiAlign runs at 16 and 21 (float, double, half) and is refused at 22, 23 and 26" {
	run -0 "$PYTHON" - "$BATS_TEST_TMPDIR" <<'PY'
import os, sys
import numpy as np
import onnx
from onnx import helper as h, TensorProto as T
d = sys.argv[1]
for v in (16, 21, 22, 23, 26):
    for dt, s in ((T.FLOAT, "f"), (T.DOUBLE, "d"), (T.FLOAT16, "h")):
        ins = [h.make_tensor_value_info("x", T.FLOAT, [1, 1, 4, 4]),
               h.make_tensor_value_info("r", T.FLOAT, [1, 4]),
               h.make_tensor_value_info("b", T.INT64, [1])]
        nodes = [h.make_node("Cast", ["x"], ["xc"], to=dt),
                 h.make_node("Cast", ["r"], ["rc"], to=dt),
                 h.make_node("RoiAlign", ["xc", "rc", "b"], ["yc"], output_height=2,
                             output_width=2, sampling_ratio=2,
                             coordinate_transformation_mode="half_pixel"),
                 h.make_node("Cast", ["yc"], ["y"], to=T.FLOAT)]
        g = h.make_graph(nodes, "g", ins, [h.make_tensor_value_info("y", T.FLOAT, None)])
        m = h.make_model(g, opset_imports=[h.make_opsetid("", v)])
        m.ir_version = 8
        onnx.save(m, os.path.join(d, f"ra_{v}_{s}.onnx"))
np.save(os.path.join(d, "x.npy"), np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4))
np.save(os.path.join(d, "r.npy"), np.array([[0, 0, 3, 3]], np.float32))
np.save(os.path.join(d, "b.npy"), np.array([0], np.int64))
PY
	local v s f=("x=$BATS_TEST_TMPDIR/x.npy" "r=$BATS_TEST_TMPDIR/r.npy" "b=$BATS_TEST_TMPDIR/b.npy")
	for s in f d h; do
		for v in 16 21; do
			run -0 ort_run "$BATS_TEST_TMPDIR/ra_${v}_$s.onnx" "$BATS_TEST_TMPDIR/o" "${f[@]}"
		done
		for v in 22 23 26; do
			run -1 ort_run "$BATS_TEST_TMPDIR/ra_${v}_$s.onnx" "$BATS_TEST_TMPDIR/o" "${f[@]}"
			[[ "$output" == *"RoiAlign(22)"* ]]
		done
	done
}

@test "lower: roi_align, four settings (aligned both ways, scales 1 to 1/8, sampling ratios 1 to 4), rois in and out of the map, two sizes; three paths at 17 21 22 23 26" {
	run all mix 17 21 22 23 26
	echo "$output"
	[ "$status" -eq 0 ]
	# a RoiAlign node up to 21, none from 22
	check mix/trace-21.onnx --print | grep -q RoiAlign
	run -0 check mix/trace-22.onnx --print
	[[ "$output" != *RoiAlign* && "$output" == *Gather* ]]
}

@test "lower: roi_align of doubles, a spatial scale known at run time (scripted), 7x7 bins, no rois (second set); three paths at 17 21 22 23 26" {
	run all dyn 17 21 22 23 26
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: roi_align with adaptive sampling (sampling_ratio 0) converts at 21 (matches torch) and is refused at 22 with one line naming opset 21" {
	PATHS=script:scripted run all adaptive 21
	echo "$output"
	[ "$status" -eq 0 ]
	run -4 pt2onnx adaptive/scripted.pt --script -i x=f32[1,2,6,6] -i r=f32[4,5] -o a22.onnx --opset-version 22
	[[ "$output" == *torchvision::roi_align*"sampling_ratio"*"--opset-version 21"* ]]
	[ ! -e a22.onnx ]
}

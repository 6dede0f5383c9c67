#!/usr/bin/env bats
# 416-lower-vision.bats - lower's symbolics for torchvision's detection ops
# (lib/lower/symbolic_vision.c): torchvision::nms and batched_nms
# (NonMaxSuppression), roi_align (RoiAlign, aligned and adaptive sampling),
# roi_pool (MaxRoiPool), repeat with run-time repeats, boolean-mask and multi-tensor indexing (NonZero,
# GatherND), torch.where(cond), split_with_sizes of traced sizes and
# unbind of a dim of unknown size.  Each model is built and run by real
# torch and torchvision (tests/lower/make_vision.py); then script | lower |
# fold | emit, onnx.checker, ONNX Runtime, compared with torch's eager
# outputs (1e-4 relative error, integers exact).
# bats file_tags=tier:standard

load helper

setup_file() {
	need_torch torchvision || return 0
	need_ort || return 0
}

build() {
	run_export_build "$TESTS_DIR/lower/make_vision.py" "$1" "$2"
}

check_model() { export_check_model "$@"; }

@test "lower: torchvision nms (NonMaxSuppression), traced and scripted" {
	run -0 check_model nms trace 11 13 17
	run -0 check_model nms script 11 17
}

@test "lower: torchvision batched_nms (the coordinate trick), traced" {
	run -0 check_model bnms trace 11 13 17
}

@test "lower: nms is refused below opset 10" {
	build nms trace
	tool script nms.pt -i b=f32[12,4] -i s=f32[12] -o nms.air
	run -4 tool lower --opset 9 nms.air
	[[ "$output" == *torchvision::nms*"opset 10"* ]]
}

@test "lower: roi_align (RoiAlign), aligned=False, sampling_ratio 2 and adaptive" {
	run -0 check_model roialign trace 11 13 16 17
	run -0 check_model roialign_adaptive script 11 17
}

@test "lower: roi_align aligned=True: shifted rois below opset 16, half_pixel from 16" {
	run -0 check_model roialign_aligned trace 11 13 16 17
	tool lower --opset 17 roialign_aligned.air -S | grep -q 'coordinate_transformation_mode="half_pixel"'
}

@test "lower: roi_align with a spatial_scale known at run time (scaled boxes)" {
	run -0 check_model roialign_scale script 11 13 16 17
}

@test "lower: roi_pool (MaxRoiPool), its aten IR written here" {
	# `script` does not read roi_pool's (output, argmax) tuple yet: the
	# archive gives the inputs and torch's output, the graph is typed in
	build roipool trace
	cat > roipool.ir <<'IR'
ir 1.0 aten
graph RoiPool(%x : Float(2, 3, 10, 12),
      %r : Float(4, 5)):
  %0 : float = prim::Constant[value=0.5]()
  %1 : int = prim::Constant[value=3]()
  %2 : int = prim::Constant[value=2]()
  %5 : Tensor, %6 : Tensor = torchvision::roi_pool(%x, %r, %0, %1, %2)
  return (%5)
IR
	run -0 export_run_onnx roipool roipool.ir 11
	run -0 export_run_onnx roipool roipool.ir 17
}

@test "lower: boolean-mask indexing (NonZero, GatherND / Gather)" {
	run -0 check_model mask trace 11 13 17
	run -0 check_model mask script 11 17
}

@test "lower: torch.where(cond) as index tensors" {
	run -0 check_model wherecond trace 11 13 17
	run -0 check_model wherecond script 11 17
}

@test "lower: several index tensors, broadcast, consecutive or apart" {
	run -0 check_model multiindex trace 11 13 17
	run -0 check_model multiindex script 11 17
}

@test "lower: split_with_sizes of traced sizes, unbind of an unknown dim" {
	run -0 check_model splitsizes trace 11 13 17
	run -0 check_model splitsizes script 11 17
}

@test "lower: repeat with repeats known at run time (Tile)" {
	run -0 check_model repeat trace 11 13 17
	run -0 check_model repeat script 11 17
}

@test "lower: bicubic and bilinear interpolation to sizes known at run time" {
	# keypointrcnn's heatmaps: Resize with sizes from Concat
	run -0 check_model resizedyn trace 11 13 17
	run -0 check_model resizedyn script 11 17
}

#!/usr/bin/env bats
# 407-lower-extra-symnn.bats - lower's symbolics for nn ops the opset tables
# do not have (lib/lower/symbolic_extra_nn.c): max_pool2d_with_indices,
# pixel_shuffle, reflection padding, native_layer_norm, cross_entropy,
# bicubic interpolation, cosine_similarity.  Each model is built and run by
# torch here; then script | lower | fold | emit, onnx.checker, ONNX Runtime,
# compared with torch's outputs (1e-4 relative error, integers exact).
# bats file_tags=tier:standard

load helper

setup_file() {
	need_torch || return 0
	need_ort || return 0
}

# build NAME MODE: NAME.pt (MODE script or trace), the inputs NAME.in.txt
# (name=spec) with NAME.npy files, torch's outputs want_NAME_K.npy.
build() {
	cat > build55.py <<'PY'
import sys
import numpy as np
import export_cases
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
name, mode = sys.argv[1:3]


class Pool(nn.Module):
    def forward(self, x):
        y, i = F.max_pool2d(x, 3, stride=2, padding=1, return_indices=True)
        return y, i


class Shuffle(nn.Module):
    def forward(self, x):
        y = F.pixel_shuffle(x, 2)
        return y, F.pixel_unshuffle(y, 2) * 2.0


class Pads(nn.Module):
    def forward(self, x):
        return (F.pad(x, [1, 2, 2, 1], mode="reflect"),
                F.pad(x, [2, 1, 0, 3], mode="replicate"))


class NativeLN(nn.Module):
    def forward(self, x, w, b):
        return torch.native_layer_norm(x, [4, 5], w, b, 1e-5)


class CE(nn.Module):
    def forward(self, x, t):
        return F.cross_entropy(x, t), F.cross_entropy(x, t, reduction="none")


class Bicubic(nn.Module):
    def forward(self, x):
        return F.interpolate(x, scale_factor=2.0, mode="bicubic",
                             align_corners=False)


class Cos(nn.Module):
    def forward(self, a, b):
        return F.cosine_similarity(a, b, dim=1), F.pairwise_distance(a, b)


models = {
    "pool": (Pool(), [("x", torch.randn(2, 3, 9, 8), "f32[2,3,9,8]")]),
    "shuffle": (Shuffle(), [("x", torch.randn(2, 8, 3, 5), "f32[2,8,3,5]")]),
    "pads": (Pads(), [("x", torch.randn(1, 2, 5, 6), "f32[1,2,5,6]")]),
    "nativeln": (NativeLN(), [("x", torch.randn(3, 4, 5), "f32[3,4,5]"),
                              ("w", torch.randn(4, 5), "f32[4,5]"),
                              ("b", torch.randn(4, 5), "f32[4,5]")]),
    "ce": (CE(), [("x", torch.randn(6, 5), "f32[6,5]"),
                  ("t", torch.randint(0, 5, (6,)), "i64[6]")]),
    "bicubic": (Bicubic(), [("x", torch.randn(1, 2, 4, 5), "f32[1,2,4,5]")]),
    "cos": (Cos(), [("a", torch.randn(4, 7), "f32[4,7]"),
                    ("b", torch.randn(4, 7), "f32[4,7]")]),
}
export_cases.save(models, name, mode)
PY
	run_export_build build55.py "$1" "$2"
}

# run_onnx NAME AIR OPSET, check_model NAME MODE OPSETS...: see helper.bash
run_onnx() { export_run_onnx "$@"; }
check_model() { export_check_model "$@"; }

@test "lower: max_pool2d_with_indices gives torch's per-channel indices" {
	run -0 check_model pool trace 9 17
}

@test "lower: pixel_shuffle and pixel_unshuffle (Reshape, Transpose)" {
	run -0 check_model shuffle script 9 17
}

@test "lower: reflection and replication padding (Pad reflect / edge)" {
	run -0 check_model pads trace 9 17
}

@test "lower: native_layer_norm's three outputs" {
	run -0 check_model nativeln script 9 17
}

@test "lower: cross_entropy_loss from opset 12, refused below" {
	run -0 check_model ce trace 12 17
	run -4 tool lower --opset 11 ce.air
	[[ "$output" == *aten::cross_entropy_loss*"opset 12"* ]]
}

@test "lower: bicubic interpolation (Resize cubic, -0.75)" {
	run -0 check_model bicubic trace 11 17
}

@test "lower: cosine_similarity and pairwise_distance" {
	run -0 check_model cos script 9 17
}

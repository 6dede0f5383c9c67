#!/usr/bin/env bats
# 406-lower-extra-symmath.bats - lower's symbolics for math ops the opset
# tables do not have (lib/lower/symbolic_extra_math.c): inverse trig and
# log variants, fmod, lerp, addcmul, nan_to_num and the isinf family,
# any/all, aminmax, var_mean, norms, shrink activations, glu, prelu,
# creation ops, fake quantisation, dot/mv/outer.  Each model is built and
# run by torch here; then script | lower | fold | emit, onnx.checker, ONNX
# Runtime, compared with torch's outputs (1e-4 relative error, integers and
# bools exact).
# bats file_tags=tier:standard

load helper

setup_file() {
	need_torch || return 0
	need_ort || return 0
}

# build NAME MODE: NAME.pt (MODE script or trace), the inputs NAME.in.txt
# (name=spec) with NAME.npy files, torch's outputs want_NAME_K.npy.
build() {
	cat > build55m.py <<'PY'
import sys
import numpy as np
import export_cases
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
name, mode = sys.argv[1:3]


class Elem(nn.Module):
    def forward(self, x, y):
        a = x.clamp(-0.9, 0.9)
        return (torch.acos(a) + torch.asin(a) * torch.atan(x), torch.tan(a),
                torch.log10(x.abs() + 0.1) + torch.log2(x.abs() + 0.5),
                torch.log1p(x.abs()), torch.square(x),
                torch.fmod(x * 5.0, y), torch.lerp(x, y, 0.3),
                torch.addcmul(x, x, y, value=0.5),
                torch.logical_xor(x > 0, y > 0))


class Round(nn.Module):
    def forward(self, x):
        return torch.round(x * 4.0), torch.round(x * 4.0, decimals=1)


class Special(nn.Module):
    def forward(self, x):
        y = x / (x - x.floor())
        return (torch.isnan(y), torch.isinf(y), torch.isfinite(y),
                torch.nan_to_num(y, nan=0.5), torch.nan_to_num(y, 1.0, 2.0, -3.0))


class Reduce(nn.Module):
    def forward(self, x):
        v, m = torch.var_mean(x, [1], keepdim=True)
        s, m2 = torch.std_mean(x)
        lo, hi = torch.aminmax(x, dim=2)
        return (v, m, s, m2, lo, hi, torch.logsumexp(x, (1,), True),
                torch.any(x > 1.0), torch.all(x > -5.0, 1),
                torch.norm(x), torch.linalg.norm(x[0]),
                torch.linalg.matrix_norm(x, 'fro'),
                torch.linalg.matrix_norm(x, 1))


class Act(nn.Module):
    def forward(self, x, w):
        return (F.celu(x, 0.7), F.selu(x), F.hardshrink(x, 0.4),
                F.softshrink(x, 0.3), F.threshold(x, 0.1, -2.0),
                F.glu(x, 1), F.prelu(x, w), F.rrelu(x, training=False))


class Create(nn.Module):
    def forward(self, x):
        return (x.new_zeros((2, 3)), x.new_ones((3,)), x.new_full((2, 2), 1.5),
                torch.zeros_like(x).fill_(2.5), x + torch.scalar_tensor(2.5),
                torch.eye(3, 4), torch.linspace(-1.0, 2.0, 7),
                x[0] * torch.hann_window(6), torch._dim_arange(x, 1))


class Quant(nn.Module):
    def forward(self, x):
        return (torch.fake_quantize_per_tensor_affine(x, 0.05, 10, 0, 255),
                torch.fake_quantize_per_channel_affine(
                    x, torch.tensor([0.05, 0.1, 0.2, 0.1, 0.3, 0.02]),
                    torch.tensor([0, 5, 10, 1, 2, 3], dtype=torch.int32), 1, -128, 127))


class Lin(nn.Module):
    def forward(self, a, b, m):
        return torch.dot(a, b), torch.mv(m, a), torch.outer(a, b)


class Rand(nn.Module):
    def forward(self, x):
        return (torch.rand_like(x).shape[0] + 0 * x, (torch.randn(4, 5) * 0).shape[1] + x,
                torch.bernoulli(x * 0.0), torch.bernoulli(x * 0.0 + 1.0))


models = {
    "elem": (Elem(), [("x", torch.randn(4, 5), "f32[4,5]"),
                      ("y", torch.rand(4, 5) + 0.5, "f32[4,5]")]),
    "round": (Round(), [("x", torch.randn(6, 5), "f32[6,5]")]),
    "special": (Special(), [("x", torch.tensor([0.0, 1.0, -2.0, 0.25, -0.7, 3.0]), "f32[6]")]),
    "reduce": (Reduce(), [("x", torch.randn(3, 4, 5), "f32[3,4,5]")]),
    "act": (Act(), [("x", torch.randn(2, 6, 3), "f32[2,6,3]"),
                    ("w", torch.rand(6), "f32[6]")]),
    "create": (Create(), [("x", torch.randn(2, 6), "f32[2,6]")]),
    "quant": (Quant(), [("x", torch.randn(2, 6, 3), "f32[2,6,3]")]),
    "lin": (Lin(), [("a", torch.randn(5), "f32[5]"), ("b", torch.randn(5), "f32[5]"),
                    ("m", torch.randn(3, 5), "f32[3,5]")]),
    "rand": (Rand(), [("x", torch.rand(3, 5), "f32[3,5]")]),
}
export_cases.save(models, name, mode)
PY
	run_export_build build55m.py "$1" "$2"
}

# run_onnx NAME AIR OPSET, check_model NAME MODE OPSETS...: see helper.bash
run_onnx() { export_run_onnx "$@"; }
check_model() { export_check_model "$@"; }

@test "lower: inverse trig, log variants, fmod, lerp, addcmul, logical_xor" {
	run -0 check_model elem trace 9 13 17
}

@test "lower: round from opset 11 (with decimals), refused below" {
	run -0 check_model round script 11 17
	run -4 tool lower --opset 10 round.air
	[[ "$output" == *aten::round*"opset 11"* ]]
}

@test "lower: isnan, isinf, isfinite, nan_to_num (opset 9 without IsInf)" {
	run -0 check_model special trace 9 10 17
}

@test "lower: var_mean, std_mean, aminmax, logsumexp, any, all, norms" {
	run -0 check_model reduce script 9 13 17
}

@test "lower: celu, selu, hard/softshrink, threshold, glu, prelu, rrelu" {
	run -0 check_model act trace 9 13 17
}

@test "lower: new_zeros/ones/full, fill_, scalar_tensor, eye, linspace, hann_window" {
	run -0 check_model create trace 9 13 17
}

@test "lower: fake quantisation per tensor (10) and per channel (13)" {
	run -0 check_model quant trace 13 17
	run -4 tool lower --opset 12 quant.air
	[[ "$output" == *fake_quantize_per_channel_affine*"opset 13"* ]]
}

@test "lower: dot, mv, outer" {
	run -0 check_model lin script 9 17
}

@test "lower: random ops keep shapes; bernoulli of 0 and 1 is exact" {
	run -0 check_model rand trace 9 17
}

#!/usr/bin/env bats
# 412-lower-sweep.bats - regressions found by running the conformance set's
# classification and segmentation models (lib/lower/symbolic_opset9.c):
# einsum below opset 12 as a MatMul between Transposes (maxvit's batched
# products), and upsample_bilinear2d below opset 11 (no Resize with
# pytorch_half_pixel there) as torch's interpolation matrices, one spatial
# axis at a time, over static, dynamic and computed sizes (fcn, deeplabv3,
# lraspp).  Each model is built by torch here with its dims dynamic where
# the spec says so, exported once per opset, and that one ONNX file is run
# by ONNX Runtime at several input sizes, each compared with torch's
# outputs for that size (1e-4 relative error).
# bats file_tags=tier:standard

load helper

setup_file() {
	need_torch || return 0
	need_ort || return 0
}

# build NAME MODE: the model NAME of the table below, saved by
# tests/oracle/sizes.py for sizes_check_model (tests/helper.bash)
build() {
	cat > build58.py <<'PY'
import sys
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
name, mode = sys.argv[1:3]


class Einsum(nn.Module):
    def forward(self, q, k, v):
        a = torch.einsum("B G H I D, B G H J D -> B G H I J", q, k)
        b = torch.einsum("bghij,bghjd->bghid", a, v)
        return (a, b, torch.einsum("ij,kj->ik", q[0, 0, 0], k[0, 0, 0]),
                torch.einsum("bij,bjk->bki", q[0, 0],
                             v[0, 0].transpose(1, 2)))


class Bilinear(nn.Module):
    def forward(self, x, y):
        s = y.shape[-2:]
        return (F.interpolate(x, size=s, mode="bilinear",
                              align_corners=False),
                F.interpolate(x, size=s, mode="bilinear",
                              align_corners=True),
                F.interpolate(x, size=(5, 9), mode="bilinear",
                              align_corners=False),
                F.interpolate(x, size=(1, 3), mode="bilinear",
                              align_corners=True))


class BilinearScale(nn.Module):
    def forward(self, x):
        return (F.interpolate(x, scale_factor=2.0, mode="bilinear",
                              align_corners=False),
                F.interpolate(x, scale_factor=(0.5, 1.7), mode="bilinear",
                              align_corners=False),
                F.interpolate(x, scale_factor=3.0, mode="bilinear",
                              align_corners=True))


class Linear13(nn.Module):
    def forward(self, x, y):
        return (F.interpolate(x, size=7, mode="linear"),
                F.interpolate(x, scale_factor=1.5, mode="linear",
                              align_corners=True),
                F.interpolate(y, size=(3, 5, 4), mode="trilinear"),
                F.interpolate(y, scale_factor=(2.0, 0.5, 1.0),
                              mode="trilinear", align_corners=True))


class ZeroSlice(nn.Module):
    """swin_v2's qkv bias: a slice of a copy zeroed in place"""
    def __init__(self):
        super().__init__()
        self.b = nn.Parameter(torch.randn(12))

    def forward(self, x):
        b = self.b.clone()
        b[4:8].zero_()
        y = x * 2
        y[:, 1].zero_()
        return y + b, y


# name: module, [(input name, spec, [shape per size]) per input]
models = {
    "einsum": (Einsum(), [("q", "f32[b,2,3,i,4]", [(1, 2, 3, 5, 4),
                                                  (2, 2, 3, 7, 4)]),
                          ("k", "f32[b,2,3,j,4]", [(1, 2, 3, 6, 4),
                                                  (2, 2, 3, 7, 4)]),
                          ("v", "f32[b,2,3,j,4]", [(1, 2, 3, 6, 4),
                                                  (2, 2, 3, 7, 4)])]),
    "bilin": (Bilinear(), [("x", "f32[n,3,h,w]", [(1, 3, 7, 9), (2, 3, 16, 4),
                                                  (1, 3, 1, 1)]),
                           ("y", "f32[1,1,p,q]", [(1, 1, 28, 30),
                                                  (1, 1, 5, 11),
                                                  (1, 1, 3, 2)])]),
    "bilins": (Bilinear(), [("x", "f32[2,3,7,9]", [(2, 3, 7, 9)]),
                            ("y", "f32[1,1,13,4]", [(1, 1, 13, 4)])]),
    "lin13": (Linear13(), [("x", "f32[n,2,l]", [(1, 2, 5), (2, 2, 11)]),
                           ("y", "f32[n,2,d,h,w]", [(1, 2, 4, 6, 3),
                                                    (2, 2, 2, 3, 9)])]),
    "zero": (ZeroSlice(), [("x", "f32[n,3,12]", [(1, 3, 12), (2, 3, 12)])]),
    "bilinsc": (BilinearScale(), [("x", "f32[n,3,h,w]",
                                   [(1, 3, 7, 9), (2, 3, 10, 6)])]),
}
sys.path.insert(0, sys.argv[3])
from sizes import save_sizes  # noqa: E402
save_sizes(name, mode, models)
PY
	fixture_run build58.py "$1" "$2" "$ORACLE_DIR"
}

# the ONNX ops of FILE, one a line
onnx_ops() {
	"$PYTHON" -c 'import onnx, sys
for n in onnx.load(sys.argv[1]).graph.node: print(n.op_type)' "$1"
}

@test "lower: einsum below opset 12 as MatMul (batched products, transposed operands and output)" {
	run -0 sizes_check_model einsum script 9 11 13
	run -0 onnx_ops einsum-9.onnx
	[[ "$output" == *MatMul* ]]
	[[ "$output" != *Einsum* ]]
}

@test "lower: einsum below opset 12 that is no matrix product is refused with a reason" {
	cat > es.py <<'PY'
import torch
class M(torch.nn.Module):
    def forward(self, x):
        return torch.einsum("ii->i", x)
torch.jit.script(M()).save("es.pt")
PY
	"$PYTHON" es.py
	tool script es.pt -i 'x=f32[4,4]' -o es.air
	run -4 tool lower --opset 9 es.air
	[[ "$output" == *aten::einsum*"opset 12"* ]]
	[ "${#lines[@]}" -le 3 ]
}

@test "lower: upsample_bilinear2d to a computed size, dynamic (fcn, deeplabv3), opsets 9 10 11 17" {
	run -0 sizes_check_model bilin trace 9 10 11 17
	run -0 onnx_ops bilin-9.onnx
	[[ "$output" != *Upsample* ]]
}

@test "lower: upsample_bilinear2d at opset 9, scripted, dynamic" {
	run -0 sizes_check_model bilin script 9 10
}

@test "lower: upsample_bilinear2d at opset 9, static sizes" {
	run -0 sizes_check_model bilins script 9 17
}

@test "lower: upsample_bilinear2d at opset 9 by scale factors (torch's 1/scale coordinates)" {
	run -0 sizes_check_model bilinsc trace 9 10 13
}

@test "lower: upsample_linear1d and upsample_trilinear3d below opset 11, dynamic" {
	run -0 sizes_check_model lin13 trace 9 10 13
}

@test "lower: zero_ on slices reaches the tensor sliced (swin_v2's qkv bias), opsets 9 13 17" {
	run -0 sizes_check_model zero trace 9 13 17
	run -0 sizes_check_model zero script 9 13 17
}

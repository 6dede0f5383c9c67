#!/usr/bin/env bats
# 409-lower-pool.bats - lower's pooling over dynamic (symbolic) sizes
# (lib/lower/symbolic_opset9.c, symbolic_extra_nn.c): adaptive_avg_pool
# {1,2,3}d on sizes that are unknown or not a multiple of output_size (the
# exact separable product with an averaging matrix built from Shape), and
# max_pool / avg_pool with ceil_mode: below opset 10 floor mode over extra
# end padding, and at every opset torch's window count (ONNX's ceil_mode
# keeps a last window that starts in the padding, torch drops it) and
# torch's count_include_pad divisor (ONNX Runtime divides a window
# reaching past the padding by the whole kernel).  Each model is built by
# torch here with its batch and spatial dims dynamic, exported once per
# opset, and that one ONNX file is run by ONNX Runtime at several input
# sizes, each compared with torch's outputs for that size (1e-4 relative
# error, indices exactly).
# bats file_tags=tier:standard

load helper

setup_file() {
	need_torch || return 0
	need_ort || return 0
}

# build NAME MODE: the model NAME of the table below, saved by
# tests/oracle/sizes.py for sizes_check_model (tests/helper.bash)
build() {
	cat > build56.py <<'PY'
import sys
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
name, mode = sys.argv[1:3]


class Ad1(nn.Module):
    def forward(self, x):
        return F.adaptive_avg_pool1d(x, 5), F.adaptive_avg_pool1d(x, 1)


class Ad2(nn.Module):
    def forward(self, x):
        return (F.adaptive_avg_pool2d(x, (6, 6)),
                F.adaptive_avg_pool2d(x, (3, 1)),
                F.adaptive_avg_pool2d(x, 1))


class Ad3(nn.Module):
    def forward(self, x):
        return F.adaptive_avg_pool3d(x, (2, 3, 4))


class MaxCeil(nn.Module):
    def forward(self, x):
        return (F.max_pool2d(x, 3, 2, ceil_mode=True),
                F.max_pool2d(x, 3, 2, 1, ceil_mode=True),
                F.max_pool2d(x, (2, 3), (2, 2), ceil_mode=True))


class MaxCeil13(nn.Module):
    def forward(self, x, y):
        return (F.max_pool1d(x, 2, 2, ceil_mode=True),
                F.max_pool3d(y, 3, 2, 1, ceil_mode=True))


class MaxCeilIdx(nn.Module):
    def forward(self, x):
        return F.max_pool2d(x, 3, 2, ceil_mode=True, return_indices=True)


class CeilPadIdx(nn.Module):
    def forward(self, x):
        return F.max_pool2d(x, 2, 2, 1, ceil_mode=True, return_indices=True)


class CeilPad(nn.Module):
    """kernel < padding + stride: torch drops a last window that would
    start in the padding, ONNX's ceil_mode does not"""
    def forward(self, x):
        return (F.max_pool2d(x, 2, 2, 1, ceil_mode=True),
                F.avg_pool2d(x, 2, 2, 1, ceil_mode=True),
                F.avg_pool2d(x, 2, 2, 1, ceil_mode=True,
                             count_include_pad=False))


class AvgCeil(nn.Module):
    def forward(self, x):
        return (F.avg_pool2d(x, 3, 2, 1, ceil_mode=True),
                F.avg_pool2d(x, 3, 2, 1, ceil_mode=True,
                             count_include_pad=False),
                F.avg_pool2d(x, 3, 2, ceil_mode=True))


# name: module, [(input name, spec, [shape per size]) per input]
models = {
    "ad1": (Ad1(), [("x", "f32[n,3,l]", [(2, 3, 7), (1, 3, 20), (2, 3, 3)])]),
    "ad2": (Ad2(), [("x", "f32[n,3,h,w]",
                     [(2, 3, 13, 17), (1, 3, 12, 12), (2, 3, 5, 7)])]),
    "ad2t": (Ad2(), [("x", "f32[n,3,h,w]", [(1, 3, 9, 11), (2, 3, 24, 18)])]),
    "ad2s": (Ad2(), [("x", "f32[2,3,13,17]", [(2, 3, 13, 17)])]),
    "ad2u": (Ad2(), [("x", "f32[3,h,w]", [(3, 13, 17), (3, 6, 9)])]),
    "ad3": (Ad3(), [("x", "f32[n,2,d,h,w]",
                     [(1, 2, 5, 7, 9), (2, 2, 4, 6, 8), (1, 2, 3, 3, 3)])]),
    "maxceil": (MaxCeil(), [("x", "f32[n,2,h,w]",
                             [(1, 2, 8, 9), (2, 2, 11, 6), (1, 2, 7, 10)])]),
    "maxceil13": (MaxCeil13(), [("x", "f32[n,2,l]", [(1, 2, 9), (2, 2, 6),
                                                (1, 2, 7)]),
                                ("y", "f32[n,2,d,h,w]", [(1, 2, 6, 7, 8),
                                                    (2, 2, 5, 5, 4),
                                                    (1, 2, 8, 9, 6)])]),
    "maxceilidx": (MaxCeilIdx(), [("x", "f32[n,2,h,w]",
                                   [(1, 2, 8, 9), (2, 2, 11, 6)])]),
    "ceilpad": (CeilPad(), [("x", "f32[n,2,h,w]",
                             [(1, 2, 8, 9), (2, 2, 9, 8), (1, 2, 7, 7)])]),
    "ceilpadidx": (CeilPadIdx(), [("x", "f32[n,2,h,w]",
                                   [(1, 2, 8, 9), (2, 2, 9, 8), (1, 2, 7, 7)])]),
    "ceilpads": (CeilPad(), [("x", "f32[1,2,7,9]", [(1, 2, 7, 9)])]),
    "avgceils": (AvgCeil(), [("x", "f32[1,2,8,9]", [(1, 2, 8, 9)])]),
    "avgceil": (AvgCeil(), [("x", "f32[n,2,h,w]",
                             [(1, 2, 8, 9), (2, 2, 11, 6), (1, 2, 7, 10)])]),
}
sys.path.insert(0, sys.argv[3])
from sizes import save_sizes  # noqa: E402
save_sizes(name, mode, models)
PY
	fixture_run build56.py "$1" "$2" "$ORACLE_DIR"
}

# the ONNX ops of NAME-OPSET.onnx, one a line
onnx_ops() {
	"$PYTHON" -c 'import onnx, sys
for n in onnx.load(sys.argv[1]).graph.node: print(n.op_type)' "$1"
}

@test "lower: adaptive_avg_pool1d over an unknown length (5 and 1 cells)" {
	run -0 sizes_check_model ad1 script 9 13 17
}

@test "lower: adaptive_avg_pool2d over unknown H, W: exact at 13x17, 12x12, 5x7" {
	run -0 sizes_check_model ad2 script 9 13 17
	# the product, not an AveragePool that would fit one size only
	run -0 onnx_ops ad2-9.onnx
	[[ "$output" == *MatMul* ]]
	! grep -qx AveragePool <<< "$output"
}

@test "lower: adaptive_avg_pool2d of a traced model, dynamic H, W" {
	run -0 sizes_check_model ad2t trace 9 17
}

@test "lower: adaptive_avg_pool2d on static sizes that do not divide (torch refuses)" {
	run -0 sizes_check_model ad2s script 9 17
}

@test "lower: adaptive_avg_pool2d keeps AveragePool / GlobalAveragePool on divisible static sizes" {
	cat > div.py <<'PY'
import torch
import torch.nn.functional as F
class M(torch.nn.Module):
    def forward(self, x):
        return F.adaptive_avg_pool2d(x, (6, 6)), F.adaptive_avg_pool2d(x, 1)
torch.jit.script(M()).save("div.pt")
PY
	"$PYTHON" div.py
	tool script div.pt -i 'x=f32[n,3,12,18]' -o div.air
	run -0 tool lower -S --opset 9 div.air
	[[ "$output" == *"onnx::AveragePool[kernel_shape=[2, 3]"* ]]
	[[ "$output" == *onnx::GlobalAveragePool* ]]
	[[ "$output" != *onnx::MatMul* ]]
}

@test "lower: adaptive_avg_pool2d of an unbatched input [C, H, W]" {
	run -0 sizes_check_model ad2u script 9 17
}

@test "lower: adaptive_avg_pool3d over unknown D, H, W" {
	run -0 sizes_check_model ad3 script 9 13 17
}

@test "lower: torch's ceil_mode output size equals floor mode with stride - 1 more end padding when kernel >= pad + stride" {
	# the identity the opset-9 max_pool rests on, on every small case,
	# checked against torch's own output sizes
	run -0 "$PYTHON" - <<'PY'
import torch
import torch.nn.functional as F
n = bad = 0
for k in range(1, 6):
    for s in range(1, 5):
        for p in range(0, k // 2 + 1):
            for L in range(max(k - 2 * p, 1), 24):
                x = torch.zeros(1, 1, L)
                ceil = F.max_pool1d(x, k, s, p, ceil_mode=True).shape[-1]
                floor = F.max_pool1d(F.pad(x, (p, p + s - 1)), k, s, 0)
                if k >= p + s:
                    assert ceil == floor.shape[-1], (k, s, p, L)
                    n += 1
                elif ceil != floor.shape[-1]:
                    bad += 1
# and the condition is needed: without it the sizes can differ
assert n > 500 and bad > 0, (n, bad)
PY
}

@test "lower: max_pool2d ceil_mode at opset 9 over unknown sizes (sizes where ceil and floor differ)" {
	run -0 sizes_check_model maxceil script 9 10 17
	# the sizes of the test differ between ceil and floor mode
	run -0 "$PYTHON" -c 'import numpy as np
for k in range(3):
    x = np.load(f"maxceil-{k}.x.npy")
    y = np.load(f"want_maxceil-{k}_0.npy")
    assert y.shape[2] == (x.shape[2] - 3 + 1) // 2 + 1, (x.shape, y.shape)
    if k == 0: assert y.shape[2] != (x.shape[2] - 3) // 2 + 1'
}

@test "lower: max_pool1d and max_pool3d ceil_mode at opset 9, dynamic" {
	run -0 sizes_check_model maxceil13 script 9 13
}

@test "lower: max_pool2d ceil_mode with indices at opset 9, dynamic" {
	run -0 sizes_check_model maxceilidx trace 9 17
}

@test "lower: max_pool2d ceil_mode at opset 9 refused when the last window could start in the padding" {
	build ceilpad script
	sizes_script_model ceilpad
	run -4 tool lower --opset 9 ceilpad.air
	[[ "$output" == *aten::max_pool2d*"kernel >= padding + stride"* ]]
	[ "${#lines[@]}" -le 3 ]
}

@test "lower: ceil_mode where torch drops a window starting in the padding, dynamic (opset 10+: Slice to torch's count)" {
	run -0 sizes_check_model ceilpad script 10 13 17
}

@test "lower: max_pool2d with indices where torch drops a window starting in the padding, dynamic" {
	run -0 sizes_check_model ceilpadidx trace 10 17
}

@test "lower: ceil_mode where torch drops a window starting in the padding, static sizes" {
	run -0 sizes_check_model ceilpads script 9 10 17
}

@test "lower: avg_pool2d ceil_mode, dynamic, with and without count_include_pad (torch's divisor)" {
	run -0 sizes_check_model avgceil script 9 10 17
}

@test "lower: avg_pool2d ceil_mode with count_include_pad, static sizes (torch's divisor)" {
	run -0 sizes_check_model avgceils script 9 17
}

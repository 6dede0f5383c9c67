#!/usr/bin/env bats
# 55-lower-extra-symnn.bats - lower's symbolics for nn ops the opset tables
# do not have (lib/lower/symbolic_extra_nn.c): max_pool2d_with_indices,
# pixel_shuffle, reflection padding, native_layer_norm, cross_entropy,
# bicubic interpolation, cosine_similarity.  Each model is built and run by
# torch here; then script | lower | fold | emit, onnx.checker, ONNX Runtime,
# compared with torch's outputs (1e-4 relative error, integers exact).

load helper

# build NAME MODE: NAME.pt (MODE script or trace), the inputs NAME.in.txt
# (name=spec) with NAME.npy files, torch's outputs want_NAME_K.npy.
build() {
	cat > build55.py <<'PY'
import sys
import numpy as np
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
m, ins = models[name]
m.eval()
args = tuple(t for _, t, _ in ins)
with torch.no_grad():
    if mode == "script":
        sm = torch.jit.script(m)
    else:
        sm = torch.jit.trace(m, args, check_trace=False)
    sm.save(f"{name}.pt")
    out = m(*args)
outs = list(out) if isinstance(out, tuple) else [out]
for k, o in enumerate(outs):
    np.save(f"want_{name}_{k}.npy", o.numpy())
with open(f"{name}.in.txt", "w") as f:
    for n, t, spec in ins:
        np.save(f"{n}.npy", t.numpy())
        f.write(f"{n}={spec}\n")
PY
	"$PYTHON" build55.py "$1" "$2"
}

# compare NAME OUTDIR ONNX: ONNX Runtime's outputs against torch's
compare() {
	"$PYTHON" - "$@" <<'PY'
import glob, sys
import numpy as np
import onnx
name, out, path = sys.argv[1:4]
names = [o.name for o in onnx.load(path).graph.output]
wants = sorted(glob.glob(f"want_{name}_*.npy"), key=lambda p: int(p.rsplit("_", 1)[1][:-4]))
assert len(names) == len(wants), (names, wants)
for n, w in zip(names, wants):
    g, w = np.load(f"{out}/{n}.npy"), np.load(w)
    assert g.shape == w.shape, (n, g.shape, w.shape)
    if w.dtype.kind in "biu":
        assert (g == w).all(), n
        continue
    scale = max(float(np.max(np.abs(w))), 1e-30)
    err = float(np.max(np.abs(g.astype(np.float64) - w))) / scale
    assert err <= 1e-4, f"{n}: relative error {err:.3g}"
PY
}

# run_onnx NAME AIR OPSET: lower | fold | emit, checked, run, compared
run_onnx() {
	local name=$1 air=$2 o=$3 feeds=()
	while IFS= read -r l; do
		feeds+=("${l%%=*}=${l%%=*}.npy")
	done < "$name.in.txt"
	set -o pipefail
	tool lower --opset "$o" "$air" | tool fold | emit -o "$name-$o.onnx"
	onnx_checker "$name-$o.onnx"
	rm -rf "out-$o"
	ort_run "$name-$o.onnx" "out-$o" "${feeds[@]}" > /dev/null
	compare "$name" "out-$o" "$name-$o.onnx"
}

# check_model NAME MODE OPSETS...: script | lower | fold | emit at each
check_model() {
	local name=$1 mode=$2 o specs=()
	shift 2
	build "$name" "$mode"
	while IFS= read -r l; do
		specs+=(-i "$l")
	done < "$name.in.txt"
	tool script "$name.pt" "${specs[@]}" -o "$name.air"
	for o in "$@"; do
		run_onnx "$name" "$name.air" "$o"
	done
}

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

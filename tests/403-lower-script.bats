#!/usr/bin/env bats
# 403-lower-script.bats - the script path on archives torch.jit.script
# writes (and torch.jit.trace where said): torch's Python fast-path checks
# (nn.MultiheadAttention, nn.TransformerEncoder) folded as an eval-mode
# export sees them, scripted control flow with `and`, torch.tensor(int),
# in-place index assignment (index_put_, select + copy_, scatter_), and
# opsets 7 and 8.  Each model is built by torch here, its outputs computed
# by torch; then script | lower | emit, onnx.checker, ONNX Runtime,
# compared with 1e-4 relative error.
# bats file_tags=tier:standard

load helper

setup_file() {
	need_torch || return 0
	need_ort || return 0
}

# build NAME MODE: NAME.pt (MODE script or trace), the inputs NAME.in.txt
# (name=spec) with NAME.npy files, torch's outputs want_NAME_K.npy.
# torch.jit.script reads the classes' source: the script goes to a file.
build() {
	cat > build53.py <<'PY'
import sys
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from typing import List

torch.manual_seed(0)
name, mode = sys.argv[1:3]


class Cross(nn.Module):
    """query is not key: the slow path, in_proj split three ways"""
    def __init__(self):
        super().__init__()
        self.mha = nn.MultiheadAttention(32, 4, batch_first=True)

    def forward(self, q, kv):
        return self.mha(q, kv, kv, need_weights=False)[0]


class Enc(nn.Module):
    def __init__(self, mask):
        super().__init__()
        layer = nn.TransformerEncoderLayer(32, 4, dim_feedforward=64, batch_first=True)
        self.enc = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.mask = mask

    def forward(self, x, pad):
        return self.enc(x, src_key_padding_mask=pad if self.mask else None)


class Break(nn.Module):
    def forward(self, x):
        total = torch.zeros(1)
        for i in range(x.size(0)):
            if x[i].sum() > 1.0:
                break
            total = total + x[i].sum()
        return total


class While(nn.Module):
    def forward(self, x):
        k = 0
        while bool(x.abs().sum() < 100.0) and k < 20:
            x = x * 2.0
            k += 1
        return x, torch.tensor(k)


class IndexPut(nn.Module):
    def forward(self, data, index, new_data):
        data = data.clone()
        data[index] = new_data
        return data


class Scatter(nn.Module):
    def forward(self, data, index, new_data):
        new_data = new_data.unsqueeze(0)
        index = index.expand(1, new_data.size(1))
        data = data.clone()
        data.scatter_(0, index, new_data)
        return data


class Small(nn.Module):
    """a CNN with BatchNorm, max pool, nearest upsampling, Gemm"""
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.fc = nn.Linear(4 * 8 * 8, 5)

    def forward(self, x):
        y = F.max_pool2d(F.relu(self.bn(self.conv(x))), 2)
        y = F.interpolate(y, scale_factor=2.0, mode="nearest")
        return self.fc(torch.flatten(y, 1))


class Erf(nn.Module):
    def forward(self, x):
        return torch.erf(x)


x = torch.randn(2, 6, 32)
pad = torch.zeros(2, 6, dtype=torch.bool)
pad[:, 4:] = True
idx = torch.tensor(1)
models = {
    "cross": (Cross(), [("q", torch.randn(2, 5, 32), "f32[b,5,32]"), ("kv", torch.randn(2, 7, 32), "f32[b,7,32]")]),
    "enc": (Enc(False), [("x", x, "f32[b,t,32]"), ("pad", pad, "bool[b,t]")]),
    "enc_mask": (Enc(True), [("x", x, "f32[b,t,32]"), ("pad", pad, "bool[b,t]")]),
    "brk": (Break(), [("x", torch.rand(6, 3) * 0.3, "f32[n,3]")]),
    "whl": (While(), [("x", torch.randn(3, 4), "f32[3,4]")]),
    "iput": (IndexPut(), [("data", torch.randn(3, 4), "f32[n,4]"), ("index", idx, "i64[]"),
                          ("new_data", torch.randn(4), "f32[4]")]),
    "scat": (Scatter(), [("data", torch.randn(3, 4), "f32[n,4]"), ("index", idx, "i64[]"),
                         ("new_data", torch.randn(4), "f32[4]")]),
    "small": (Small(), [("x", torch.randn(2, 3, 8, 8), "f32[2,3,8,8]")]),
    "erf": (Erf(), [("x", torch.randn(2, 3), "f32[2,3]")]),
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
    # the fast path as torch takes it in this mode (traced: its kinds)
    tr = torch.jit.trace(m, args, check_trace=False)
    kinds = sorted({n.kind() for n in tr.inlined_graph.nodes()
                    if n.kind().startswith("aten::")})
    with open(f"{name}.kinds", "w") as f:
        f.write("\n".join(kinds) + "\n")
    out = m(*args)
outs = list(out) if isinstance(out, tuple) else [out]
for k, o in enumerate(outs):
    np.save(f"want_{name}_{k}.npy", o.numpy())
with open(f"{name}.in.txt", "w") as f:
    for n, t, spec in ins:
        np.save(f"{n}.npy", t.numpy())
        f.write(f"{n}={spec}\n")
PY
	fixture_run build53.py "$1" "$2"
}

# check NAME MODE OPSETS...: script | lower | fold | emit at each opset,
# checked, run, compared with torch
check_model() {
	local name=$1 mode=$2 o specs=() feeds=()
	shift 2
	build "$name" "$mode" || return 1
	while IFS= read -r l; do
		specs+=(-i "$l")
		feeds+=("${l%%=*}=${l%%=*}.npy")
	done < "$name.in.txt" || return 1
	tool script "$name.pt" "${specs[@]}" -o "$name.air" || return 1
	for o in "$@"; do
		set -o pipefail
		tool lower --opset "$o" "$name.air" | tool fold | emit -o "$name-$o.onnx" || return 1
		onnx_checker "$name-$o.onnx" || return 1
		rm -rf "out-$o"
		ort_run "$name-$o.onnx" "out-$o" "${feeds[@]}" > /dev/null ||
			return 1
		"$PYTHON" - "$name" "out-$o" "$name-$o.onnx" <<'PY'
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
		[ $? -eq 0 ] || return 1
	done
}

# the aten ops of script's graph (prim:: left out)
aten_kinds() {
	tool script "$1.pt" $(sed 's/^/-i /' "$1.in.txt") -S |
		grep -o '= aten::[A-Za-z_0-9]*' | sed 's/^= //' | sort -u
}

@test "script: MultiheadAttention's fast-path checks fold (query is not key: the slow path), 9 13 17" {
	run -0 check_model cross script 9 13 17
	run -0 aten_kinds cross
	[[ "$output" != *aten::format* && "$output" != *aten::__isnot__* &&
	   "$output" != *aten::is_grad_enabled* && "$output" != *aten::append* ]]
}

@test "script: scripted TransformerEncoder reduces to the fast path torch traces, 9 13 17" {
	for m in enc enc_mask; do
		run -0 check_model $m script 9 13 17
		run -0 aten_kinds $m
		# the aten ops equal those of torch's own trace (eval, no_grad)
		[ "$output" = "$(cat $m.kinds)" ]
	done
}

@test "script: a loop with break (aten::__and__ of bools) and a while loop with torch.tensor(k)" {
	run -0 check_model brk script 9 13 17
	run -0 check_model whl script 9 13 17
}

@test "lower: in-place index assignment (index_put_, select + copy_) and scatter_, scripted and traced" {
	for mode in script trace; do
		run -0 check_model iput $mode 9 11 13 17
		run -0 check_model scat $mode 9 11 13 17
	done
	run -0 tool lower --opset 9 -S scat.air
	[[ "$output" == *onnx::Scatter\[* ]]
	run -0 tool lower --opset 11 -S scat.air
	[[ "$output" == *onnx::ScatterElements* ]]
}

@test "lower: opsets 7 and 8 (BatchNormalization, MaxPool, Upsample with scales, Gemm)" {
	run -0 check_model small trace 7 8 9
	run -0 tool lower --opset 8 -S small.air
	[[ "$output" == *'onnx::Upsample[scales=[1., 1., 2., 2.]'* ]]
	[[ "$output" == *'opset "" 8'* ]]
}

@test "lower: an op that needs a later opset is refused naming the op and the opset" {
	build erf script
	tool script erf.pt -i x=f32[2,3] -o erf.air
	run -4 tool lower --opset 8 erf.air
	[[ "$output" == *aten::erf* && "$output" == *"no symbolic for opset 8: needs opset 9"* ]]
	run -0 tool lower --opset 9 erf.air
	run -2 tool lower --opset 6 erf.air
}

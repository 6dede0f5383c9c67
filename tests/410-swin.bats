#!/usr/bin/env bats
# 410-swin.bats - what torchvision's swin_t needs of trace and lower, in
# small models built by torch here: writes into slice/select views (the
# shifted-window mask, x[a:b, c:d] = v, x[:, i] += v), carried back into
# the base tensor (lib/lower/lower.c); a list copied and changed in an if
# (shift_size.copy(); shift_size[0] = 0 under a run-time condition);
# roll by shifts computed at run time; pads computed at run time; slices
# with a step and slices with bounds computed at run time at opset 9, and
# int remainder there (no Mod); traced size arithmetic folded.  Each model goes
# through pt2onnx --trace and the script path (traced and scripted
# archives, dynamic H and W where the model allows it), onnx.checker, and
# ONNX Runtime on one or two input sets, compared with torch's outputs
# (1e-4 relative error).
# bats file_tags=tier:standard

load helper

setup_file() {
	need_torch torchvision || return 0
	need_ort || return 0
}

# build: every model of this file into the current directory (built once
# per test: they are small), with tests/oracle/export_cases.py's layout:
# NAME.pt, inputs NAME.K.x.npy, torch's outputs want_NAME.K_J.npy.
build() {
	cat > build57.py <<'PY'
import sys
import warnings
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torchvision.models.swin_transformer import (
    PatchMerging, ShiftedWindowAttention, SwinTransformerBlock)

torch.manual_seed(0)
names = sys.argv[1:]


class Mask(nn.Module):
    # the shifted-window mask as torchvision builds it, added to x
    def forward(self, x):
        ph, pw = x.shape[1], x.shape[2]
        m = x.new_zeros((ph, pw))
        count = 0
        for h in ((0, -4), (-4, -2), (-2, None)):
            for w in ((0, -4), (-4, -2), (-2, None)):
                m[h[0]:h[1], w[0]:w[1]] = count
                count += 1
        m = m.view(ph // 4, 4, pw // 4, 4).permute(0, 2, 1, 3)
        m = m.reshape(-1, 16)
        m = m.unsqueeze(1) - m.unsqueeze(2)
        m = m.masked_fill(m != 0, float(-100.0)).masked_fill(m == 0, 0.0)
        return x.sum(-1).reshape(-1, 16).unsqueeze(1) + m


class Views(nn.Module):
    # in-place ops on views: copy_ and fill_ into slices with steps and
    # negative bounds, add_ into a select, a view of a view
    def forward(self, x, y):
        z = x.clone()
        z[1:3, ::2] = y
        z[:, -1] += 1.0
        z[0][1:-1] = -2.0
        z[-1, 1::3].mul_(3.0)
        return z, z.sum()


class ListIf(nn.Module):
    # a list copied and changed under a run-time condition, then used as
    # the shifts of a roll (torchvision's shift_size handling)
    def __init__(self):
        super().__init__()
        self.shift = [2, 3]

    def forward(self, x):
        s = self.shift.copy()
        if x.size(1) <= 4:
            s[0] = 0
        if x.size(2) <= 4:
            s[1] = 0
        return torch.roll(x, shifts=(-s[0], -s[1]), dims=(1, 2)), sum(s)


class ListView(nn.Module):
    # int lists changed in place (straight-line and in an if) as shapes
    def forward(self, x):
        s = [x.size(0), 6, -1]
        s[1] = 4
        t = s.copy()
        t[1] = 3
        if x.size(0) > 2:
            t[2] = 4
            t[0] = -1
        return x.reshape(s), x.reshape(t), torch.tensor(t)


class Pad(nn.Module):
    # pads computed from the sizes, as the window attention pads
    def forward(self, x):
        h, w = x.shape[1], x.shape[2]
        pr = (4 - w % 4) % 4
        pb = (4 - h % 4) % 4
        return F.pad(x, (0, 0, 0, pr, 0, pb)) * 2.0


class Rem(nn.Module):
    # python's remainder of ints (the sign of the divisor)
    def forward(self, a, b):
        return torch.remainder(a, b), a % 3, torch.remainder(a, -4)


def r(*s):
    return torch.randn(*s)


# name: (module, mode, [input sets: [(name, tensor)]], spec for script)
models = {
    "mask": (Mask(), "trace", [[("x", r(1, 8, 12, 3))]], None),
    "rem": (Rem(), "script",
            [[("a", torch.arange(-9, 9).reshape(3, 6)),
              ("b", torch.tensor([[4, -4, 5, -5, 7, -3]]))]], None),
    "views": (Views(), "trace",
              [[("x", r(4, 6)), ("y", r(2, 3))]], None),
    "views_s": (Views(), "script",
                [[("x", r(4, 6)), ("y", r(2, 3))]], None),
    "listif": (ListIf(), "script",
               [[("x", r(1, 7, 6, 2))], [("x", r(1, 3, 9, 2))]],
               "x=f32[1,h,w,2]"),
    "listview": (ListView(), "script",
                 [[("x", r(2, 24))], [("x", r(4, 24))]], "x=f32[n,24]"),
    "pad": (Pad(), "script",
            [[("x", r(1, 7, 6, 2))], [("x", r(1, 8, 5, 2))]],
            "x=f32[1,h,w,2]"),
    "swa": (ShiftedWindowAttention(16, [4, 4], [2, 2], 2), "script",
            [[("x", r(1, 7, 6, 16))], [("x", r(1, 3, 4, 16))],
             [("x", r(1, 8, 8, 16))]],
            "x=f32[1,h,w,16]"),
    "swa_t": (ShiftedWindowAttention(16, [4, 4], [2, 2], 2), "trace",
              [[("x", r(1, 7, 6, 16))]], None),
    "block": (SwinTransformerBlock(16, 2, [4, 4], [2, 2]), "trace",
              [[("x", r(1, 8, 8, 16))]], None),
    "block_s": (SwinTransformerBlock(16, 2, [4, 4], [2, 2]), "script",
                [[("x", r(1, 8, 8, 16))], [("x", r(1, 5, 7, 16))]],
                "x=f32[1,h,w,16]"),
    "merge": (PatchMerging(8), "trace", [[("x", r(1, 7, 6, 8))]], None),
    "merge_s": (PatchMerging(8), "script",
                [[("x", r(1, 7, 6, 8))], [("x", r(1, 4, 5, 8))]],
                "x=f32[1,h,w,8]"),
}

for name in names:
    m, mode, sets, spec = models[name]
    m.eval()
    args = tuple(t for _, t in sets[0])
    with torch.no_grad():
        if mode == "script":
            sm = torch.jit.script(m)
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                sm = torch.jit.trace(m, args, check_trace=False)
        sm.save(f"{name}.pt")
        for k, ins in enumerate(sets):
            out = m(*[t.clone() for _, t in ins])
            outs = list(out) if isinstance(out, tuple) else [out]
            for j, o in enumerate(outs):
                o = torch.as_tensor(o)
                np.save(f"want_{name}.{k}_{j}.npy", o.numpy())
            for n, t in ins:
                np.save(f"{name}.{k}.{n}.npy", t.numpy())
    with open(f"{name}.sets", "w") as f:
        f.write(f"{len(sets)} {' '.join(n for n, _ in sets[0])}\n")
        f.write(f"{spec or ''}\n")
PY
	run_export_build build57.py "$@"
}

# convert NAME OPSET HOW: pt2onnx on NAME.pt, HOW trace (--trace on input
# set 0) or script (the static spec of set 0, or the model's dynamic
# spec); then onnx.checker, and ONNX Runtime on every input set (one for
# trace and a static spec) compared with torch's outputs.
convert() {
	local name=$1 o=$2 how=$3 n ins spec args=() feeds k i sets
	{ read -r n ins; read -r spec; } < "$name.sets"
	sets=$n
	if [ "$how" = trace ]; then
		args=(--trace)
		for i in $ins; do
			args+=(--input "$i=$name.0.$i.npy")
		done
		sets=1
	elif [ -n "$spec" ]; then
		args=(--input "$spec")
	else
		for i in $ins; do
			args+=(--input "$i=$name.0.$i.npy")
		done
		sets=1
	fi
	pt2onnx "$name.pt" "${args[@]}" --opset-version "$o" \
		-o "$name-$how-$o.onnx" || return 1
	onnx_checker "$name-$how-$o.onnx" || return 1
	for ((k = 0; k < sets; k++)); do
		feeds=()
		for i in $ins; do
			feeds+=("$i=$name.$k.$i.npy")
		done
		rm -rf "out-$k"
		ort_run "$name-$how-$o.onnx" "out-$k" "${feeds[@]}" > /dev/null ||
			return 1
		"$PYTHON" "$ORACLE_DIR/export_cases.py" compare "$name.$k" \
			"out-$k" "$name-$how-$o.onnx" || return 1
	done
}

# check NAME HOW OPSETS...
check() {
	local name=$1 how=$2 o
	shift 2
	for o in "$@"; do
		convert "$name" "$o" "$how" || { echo "opset $o"; return 1; }
	done
}

@test "swin: the shifted-window mask (fill_ into slice views) via trace and the traced archive" {
	run -0 build mask
	run -0 check mask trace 9 13 17
	run -0 check mask script 9 13 17
}

@test "swin: copy_, fill_, add_, mul_ into slices and selects carry back to the base" {
	run -0 build views views_s
	run -0 check views trace 9 11 17
	run -0 check views script 9 11 17
	run -0 check views_s script 9 11 17
}

@test "swin: a list copied and changed in an if feeds roll's shifts (dynamic H, W; Gather before 10)" {
	run -0 build listif
	run -0 check listif script 9 13 17
}

@test "swin: int lists changed in place, also in an if, as reshape's shape" {
	run -0 build listview
	run -0 check listview script 9 13 17
}

@test "swin: pads computed from dynamic sizes keep the rank (Concat before 11)" {
	run -0 build pad
	run -0 check pad script 9 11 17
}

@test "swin: shifted-window attention with padding, both archives, every path" {
	run -0 build swa swa_t
	run -0 check swa script 9 13 17
	run -0 check swa_t trace 9 13 17
	run -0 check swa_t script 9 13 17
}

@test "swin: SwinTransformerBlock via trace, the traced archive and the scripted one" {
	run -0 build block block_s
	run -0 check block trace 9 13 17
	run -0 check block script 9 13 17
	run -0 check block_s script 9 13 17
}

@test "swin: PatchMerging (slices with a step, also at opset 9)" {
	run -0 build merge merge_s
	run -0 check merge trace 9 13 17
	run -0 check merge script 9 13 17
	run -0 check merge_s script 9 13 17
}

@test "swin: remainder of ints, negative operands, before Mod (opset 9) and with it" {
	run -0 build rem
	run -0 check rem script 9 10 17
}

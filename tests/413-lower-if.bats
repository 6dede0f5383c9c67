#!/usr/bin/env bats
# 413-lower-if.bats - `lower` and prim::If: an if whose condition is known
# at export (x.is_floating_point(), a dtype or rank test, frozen flags with
# and/or/not/xor) becomes the branch it takes, with no onnx::If and that
# branch's types, as torch's exporter folds it; an if on data whose
# branches return different dtypes (or ranks where ONNX needs one) is
# refused with one line instead of a model that declares a wrong type.
# Models are scripted by torch here (x.to / x.type_as leave script's types
# open, so the ifs reach lower), torch's outputs are the oracle: script |
# lower | fold | emit, onnx.checker, ONNX Runtime, compared with torch in
# dtype, shape and value, and each declared output type with what runs.
# bats file_tags=tier:standard

load helper

setup_file() {
	need_torch || return 0
	need_ort || return 0
}

build() {
	cat > build59.py <<'PY'
import sys
import numpy as np
import torch
import torch.nn as nn
from typing import List

torch.manual_seed(0)
name = sys.argv[1]


# x.to(...) and x.type_as(...) leave script's types open, so the ifs on
# them reach lower (script itself folds the ones on typed inputs)
class IsFloat(nn.Module):
    """torch's div upgrader: each branch gives another dtype"""
    def forward(self, x, n):
        i = x.type_as(n)
        m = n.to(torch.int32)
        if i.is_floating_point() or m.is_floating_point():
            q = i / m
        else:
            q = torch.div(i, m, rounding_mode="trunc")
        if not m.is_floating_point():
            r = m * 2
        else:
            r = m * 0.5
        a = x.to(torch.float64)
        outs: List[torch.Tensor] = []
        if a.is_floating_point():
            outs.append(a + 1.0)
        else:
            outs.append(a.long())
        return q, r, outs[0]


class Dtype(nn.Module):
    def forward(self, x, n):
        a = x.to(torch.float64)
        if a.dtype == torch.float32:
            y = a + 1.0
        else:
            y = a.float() * 2.0
        b = n.type_as(x)
        if b.dtype != torch.int64 and b.dtype == torch.float32:
            z = b * 2
        else:
            z = b.long()
        return y, z


class Rank(nn.Module):
    def forward(self, x):
        c = x.to(torch.float64)
        if c.dim() == 4:
            y = c.mean([2, 3])
        else:
            y = c.mean(1)
        if c.dim() < 3 and c.size(0) > 1:
            z = c.sum()
        else:
            z = c.flatten(1)
        return y, z


class Flags(nn.Module):
    """frozen flags, with and/or/not/xor and a rank test"""
    def __init__(self):
        super().__init__()
        self.flag = True
        self.other = False

    def forward(self, x):
        c = x.to(torch.float32)
        if self.flag and not self.other and c.dim() == 2:
            y = c.argmax(1)
        else:
            y = c.sum(1)
        if (self.other or c.dim() == 2) ^ self.flag:
            z = c
        else:
            z = c.abs().max(0)[1]
        if not (c.dim() != 2 or self.other):
            w = c.clamp(min=0.0).long()
        else:
            w = c
        return y, z, w


class DataDtype(nn.Module):
    def forward(self, x):
        if bool(x.sum() > 0):
            y = x * 2.0
        else:
            y = (x * 3.0).long()
        return y


class DataRank(nn.Module):
    def forward(self, x):
        if bool(x.sum() > 0):
            y = x * 2.0
        else:
            y = x.sum(0)
        return y


class DataSame(nn.Module):
    def forward(self, x):
        if bool(x.sum() > 0):
            y = x * 2.0
        else:
            y = x - 1.0
        return y


class DataRankSum(nn.Module):
    """branches of different ranks inside the graph: the If's output has
    no rank, and what is made of it (a reshape) has one"""
    def forward(self, x):
        if bool(x.sum() > 0):
            y = x * 2.0
        else:
            y = x.sum(0)
        return y.reshape(-1), y.reshape(2, -1).sum(1)


x4 = torch.randn(2, 3, 4, 5)
x2 = torch.randn(3, 4)
models = {
    "isfloat": (IsFloat(), [("x", torch.tensor([7.5, -7.5, 5.0, -3.2, 9.9, -11.0]), "f32[6]"),
                            ("n", torch.tensor([2, 2, -2, 2, -4, 3]), "i64[6]")]),
    "dtype": (Dtype(), [("x", x2, "f32[3,4]"), ("n", torch.tensor([1, 2, 3]), "i64[3]")]),
    "rank4": (Rank(), [("x", x4, "f32[b,3,4,5]")]),
    "rank2": (Rank(), [("x", x2, "f32[3,4]")]),
    "flags": (Flags(), [("x", x2, "f32[3,4]")]),
    "data_dtype": (DataDtype(), [("x", x2, "f32[3,4]")]),
    "data_rank": (DataRank(), [("x", x2, "f32[3,4]")]),
    "data_same": (DataSame(), [("x", x2, "f32[3,4]")]),
    "data_rank_sum": (DataRankSum(), [("x", x2.abs(), "f32[3,4]")]),
    "data_rank_sum_neg": (DataRankSum(), [("x", -x2.abs(), "f32[3,4]")]),
}
m, ins = models[name]
m.eval()
args = tuple(t for _, t, _ in ins)
with torch.no_grad():
    sm = torch.jit.script(m)
    sm.save(f"{name}.pt")
    out = sm(*args)
outs = list(out) if isinstance(out, tuple) else [out]
for k, o in enumerate(outs):
    np.save(f"want_{name}_{k}.npy", o.numpy())
with open(f"{name}.in.txt", "w") as f:
    for n, t, spec in ins:
        np.save(f"{n}.npy", t.numpy())
        f.write(f"{n}={spec}\n")
PY
	fixture_run build59.py "$1"
}

# convert NAME OPSET: script | lower | fold | emit of NAME.pt to NAME-OPSET.onnx
convert() {
	local specs=() l
	while IFS= read -r l; do
		specs+=(-i "$l")
	done < "$1.in.txt"
	set -o pipefail
	tool script "$1.pt" "${specs[@]}" | tool lower --opset "$2" |
		tool fold | emit -o "$1-$2.onnx"
}

# same NAME OPSET: NAME-OPSET.onnx checked, run, compared with torch
same() {
	local feeds=() l
	while IFS= read -r l; do
		feeds+=("${l%%=*}=${l%%=*}.npy")
	done < "$1.in.txt"
	onnx_checker "$1-$2.onnx" || return 1
	rm -rf "out-$2"
	ort_run "$1-$2.onnx" "out-$2" "${feeds[@]}" > /dev/null || return 1
	"$PYTHON" - "$1" "out-$2" "$1-$2.onnx" <<'PY'
import glob, sys
import numpy as np
import onnx
from onnx.mapping import TENSOR_TYPE_TO_NP_TYPE
name, out, path = sys.argv[1:4]
outs = onnx.load(path).graph.output
wants = sorted(glob.glob(f"want_{name}_*.npy"), key=lambda p: int(p.rsplit("_", 1)[1][:-4]))
assert len(outs) == len(wants), ([o.name for o in outs], wants)
for o, w in zip(outs, wants):
    g, w = np.load(f"{out}/{o.name}.npy"), np.load(w)
    declared = TENSOR_TYPE_TO_NP_TYPE[o.type.tensor_type.elem_type]
    assert declared == g.dtype, f"{o.name}: declared {declared}, runs as {g.dtype}"
    assert g.dtype == w.dtype, f"{o.name}: dtype {g.dtype}, torch's {w.dtype}"
    assert g.shape == w.shape, f"{o.name}: shape {g.shape}, torch's {w.shape}"
    if w.dtype.kind in "biu":
        assert (g == w).all(), f"{o.name}: {g} != torch's {w}"
        continue
    scale = max(float(np.max(np.abs(w))), 1e-30)
    err = float(np.max(np.abs(g.astype(np.float64) - w))) / scale
    assert err <= 1e-5, f"{o.name}: relative error {err:.3g}"
PY
}

# folded NAME: the aten graph has prim::If, and at opsets 9 13 17 the ONNX
# has no If and matches torch
folded() {
	build "$1" || return 1
	tool script -S "$1.pt" $(sed 's/^/-i /' "$1.in.txt") > "$1.air.txt" ||
		return 1
	grep -q 'prim::If' "$1.air.txt" ||
		{ echo "$1: no prim::If reaches lower"; return 1; }
	for o in 9 13 17; do
		convert "$1" "$o" || return 1
		if tool check "$1-$o.onnx" --print | grep -q 'onnx::If\|= If'; then
			echo "$1-$o: an If is left"
			return 1
		fi
		tool check "$1-$o.onnx" --print | grep -q '%' ||
			{ echo "$1-$o: check --print printed no graph"; return 1; }
		same "$1" "$o" || return 1
	done
}

@test "lower: ifs on is_floating_point take the branch torch takes (div's upgrader: Long, not the then-branch's Float), 9 13 17" {
	run folded isfloat
	echo "$output"
	[ "$status" -eq 0 ]
	# the condition's op was lowered to a constant, not refused
	grep -q 'aten::is_floating_point' isfloat.air.txt
}

@test "lower: ifs on a dtype test (prim::dtype == / != a dtype, with and) fold, 9 13 17" {
	run folded dtype
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q 'prim::dtype' dtype.air.txt
}

@test "lower: ifs on x.dim() (and x.size(0) > 1) fold; the output's rank is the branch's, 9 13 17" {
	run folded rank4
	echo "$output"
	[ "$status" -eq 0 ]
	run folded rank2
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q 'aten::dim' rank2.air.txt
}

@test "lower: frozen flags combined with and/or/not/xor and a rank test fold, 9 13 17" {
	run folded flags
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: an if on data whose branches return Float and Long is refused with one line naming the output and both dtypes" {
	build data_dtype
	tool script data_dtype.pt -i x=f32[3,4] -o data_dtype.air
	# torch.onnx.export writes an If onnx.checker rejects (then Float,
	# else Long); here: exit 4, one line
	for o in 9 13 17; do
		run -4 --separate-stderr tool lower --opset "$o" data_dtype.air
		[ "${#stderr_lines[@]}" -eq 1 ]
		[[ "$stderr" == *prim::If* && "$stderr" == *'output 0'* &&
		   "$stderr" == *Float* && "$stderr" == *Long* ]]
		[ -z "$output" ]
	done
	run -4 pt2onnx data_dtype.pt -i x=f32[3,4] -o dd.onnx
	[ ! -e dd.onnx ]
}

@test "lower: an if on data whose branches differ in rank: no rank inside the graph (11+), refused as a graph output or before opset 11" {
	for n in data_rank_sum data_rank_sum_neg; do
		build "$n"
		# both branches run (x > 0 and x < 0), each matches torch
		for o in 13 17; do
			run -0 convert "$n" "$o"
			run same "$n" "$o"
			echo "$output"
			[ "$status" -eq 0 ]
		done
		tool script "$n.pt" -i x=f32[3,4] -o "$n.air"
		run -4 --separate-stderr tool lower --opset 9 "$n.air"
		[ "${#stderr_lines[@]}" -eq 1 ]
		[[ "$stderr" == *prim::If* && "$stderr" == *'rank 2'* &&
		   "$stderr" == *'rank 1'* && "$stderr" == *'opset 11'* ]]
	done
	build data_rank
	tool script data_rank.pt -i x=f32[3,4] -o data_rank.air
	run -4 --separate-stderr tool lower --opset 13 data_rank.air
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ "$stderr" == *prim::If* && "$stderr" == *'graph output'* ]]
}

@test "lower: an if on data whose branches agree still becomes an onnx::If and matches torch" {
	build data_same
	for o in 9 13 17; do
		run -0 convert data_same "$o"
		run -0 tool check "data_same-$o.onnx" --print
		[[ "$output" == *If* ]]
		run -0 same data_same "$o"
	done
}

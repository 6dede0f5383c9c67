#!/usr/bin/env bats
# 503-fold-opcount.bats - node counts at or below torch.onnx.export's for
# the patterns torch's own passes shorten (fold's peephole pass,
# lib/fold/fold_peep.c, and the symbolics that now write torch's forms):
# returned constants, Identity after a split, Slice chains (flip,
# max_pool's indices), x + 0 in an unrolled loop, LogSoftmax + NLLLoss,
# common subexpressions, LessOrEqual, Einsum, Resize without roi,
# ConstantOfShape fills, bilinear upsampling from one element below opset
# 11.  Each model is built and traced by torch here, and its node count is
# torch.onnx.export's on the same archive in this run (never a typed-in
# number); then trace | lower | fold | emit, onnx.checker, ONNX Runtime
# against torch's outputs, and ours <= torch's.
# bats file_tags=tier:standard

load helper

setup_file() {
	need_torch || return 0
	need_ort || return 0
}

build() {
	cat > build62.py <<'PY'
import sys
import export_cases
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
name, mode = sys.argv[1:3]


class F1(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, x):
        return self.fn(x)


class F2(F1):
    def forward(self, x, y):
        return self.fn(x, y)


class F3(F1):
    def forward(self, x, y, z):
        return self.fn(x, y, z)


def loop_add(x):
    for i in range(4):
        x = x + i
    return x


def cse(x):
    a = x.sum(0)
    b = x.sum(0)
    return a * b + x.sum(0)


def up1(x):
    p = F.adaptive_avg_pool2d(x, 1)
    return F.interpolate(p, size=(6, 8), mode="bilinear",
                         align_corners=False) + x


x345 = torch.randn(3, 4, 5)
models = {
    "split": (lambda x: x.split(2), [("x", torch.randn(5, 3), "")]),
    "ones": (lambda x: (x * 2, torch.ones(3, 4)), [("x", torch.randn(2), "")]),
    "flip": (lambda x: torch.flip(x, [0, 1, 2]), [("x", x345, "")]),
    "maxpool": (lambda x: F.max_pool2d(x, 2, return_indices=True),
                [("x", torch.randn(1, 2, 6, 6), "")]),
    "narrow": (lambda x: x.narrow(1, 1, 2), [("x", x345, "")]),
    "nll": (lambda x, t: F.nll_loss(F.log_softmax(x, 1), t),
            [("x", torch.randn(3, 5, 4), ""),
             ("y", torch.randint(0, 5, (3, 4)), "")]),
    "loopadd": (loop_add, [("x", torch.randn(3), "")]),
    "cse": (cse, [("x", torch.randn(4, 3), "")]),
    "cmp": (lambda x, y: (x >= y, x <= y),
            [("x", torch.randn(3, 4), ""), ("y", torch.randn(3, 4), "")]),
    "outer": (torch.outer, [("x", torch.randn(4), ""), ("y", torch.randn(3), "")]),
    "nearest": (lambda x: F.interpolate(x, scale_factor=2.0, mode="nearest"),
                [("x", torch.randn(1, 2, 3, 4), "")]),
    "fill": (lambda x: x.clone().fill_(2.5), [("x", torch.randn(3, 2), "")]),
    "lshift": (lambda x, y: x << y,
               [("x", torch.randint(-50, 50, (6,)), ""),
                ("y", torch.randint(0, 8, (6,)), "")]),
    "unique": (lambda x: torch.unique(x, sorted=True, return_inverse=True),
               [("x", torch.randint(0, 5, (10,)), "")]),
    "scatteradd": (lambda x, i, s: torch.scatter_add(x, 0, i, s),
                   [("x", torch.randn(4, 3), ""),
                    ("y", torch.randint(0, 4, (2, 3)), ""),
                    ("z", torch.randn(2, 3), "")]),
    "up1": (up1, [("x", torch.randn(1, 2, 6, 8), "")]),
}
fn, ins = models[name]
export_cases.save({name: ((F1, F2, F3)[len(ins) - 1](fn), ins)}, name, mode)
PY
	run_export_build build62.py "$@"
}

# counts NAME OPSET...: prints "OPSET OURS TORCH" a line: pt2onnx's node
# count for NAME-OPSET.onnx and torch.onnx.export's for NAME.pt at OPSET
# (torch imported once for all the opsets)
counts() {
	"$PYTHON" - "$@" <<'PY' 2> torch.err
import sys
import numpy as np
import onnx
import torch
name = sys.argv[1]
names = [l.split("=")[0] for l in open(f"{name}.in.txt").read().split()]
args = tuple(torch.from_numpy(np.load(f"{n}.npy")) for n in names)
m = torch.jit.load(f"{name}.pt")
for opset in map(int, sys.argv[2:]):
    torch.onnx.export(m, args, f"torch-{name}-{opset}.onnx", opset_version=opset,
                      input_names=names)
    ours = len(onnx.load(f"{name}-{opset}.onnx").graph.node)
    theirs = len(onnx.load(f"torch-{name}-{opset}.onnx").graph.node)
    print(opset, ours, theirs)
PY
}

# check NAME OPSETS...: build and trace NAME, then at each opset trace |
# lower | fold | emit, checked and run against torch, with no more nodes
# than torch.onnx.export writes
check_counts() {
	local name=$1 ins=() l c o ours theirs
	shift
	build "$name" trace || return 1
	while IFS= read -r l; do
		ins+=(--input "${l%%=*}.npy")
	done < "$name.in.txt"
	tool trace "$name.pt" "${ins[@]}" -o "$name.air" || return 1
	export_run_onnx "$name" "$name.air" "$@" || return 1
	c=$(counts "$name" "$@") || { cat torch.err; return 1; }
	[ "$(wc -l <<< "$c")" -eq $# ] || { echo "counts: $c"; return 1; }
	while read -r o ours theirs; do
		echo "$name opset $o: ours, torch: $ours $theirs"
		[ "$ours" -le "$theirs" ] || return 1
	done <<< "$c"
}

# counts_ok NAME OPSETS...: check_counts, its log shown when it fails
counts_ok() {
	run check_counts "$@"
	printf '%s\n' "$output"
	[ "$status" -eq 0 ]
}

@test "opcount: split outputs without Identity; a returned constant is one Constant node" {
	counts_ok split 9 13
	counts_ok ones 9 13
}

@test "opcount: Slice chains merge (flip, max_pool's indices); steps of ones are left out (narrow)" {
	counts_ok flip 13 17
	counts_ok maxpool 9 13
	counts_ok narrow 13
}

@test "opcount: x + 0 goes; equal nodes merge; LogSoftmax + NLLLoss is SoftmaxCrossEntropyLoss" {
	counts_ok loopadd 13
	counts_ok cse 9 13
	counts_ok nll 13
}

@test "opcount: torch's forms: LessOrEqual, Einsum, Resize without roi, ConstantOfShape, shift, unique" {
	counts_ok cmp 13
	counts_ok outer 13
	counts_ok nearest 13 17
	counts_ok fill 13
	counts_ok lshift 13
	counts_ok unique 13
}

# scatter_add below 16 is no longer torch's scatter onto zeros (a repeated
# index added once) but an exact decomposition (tests/427): compared at 16
@test "opcount: scatter_add is one ScatterElements (add) at 16; bilinear upsampling from one element at opset 9" {
	counts_ok scatteradd 16
	counts_ok up1 9
}

@test "opcount: the peephole pass keeps a returned name and never merges random ops" {
	cat > rnd.ir <<-'EOF'
	ir 1.0 onnx
	opset "" 13
	graph g(%x : Float(2, 3)):
	  %a : Float(2, 3) = onnx::RandomNormalLike(%x)
	  %b : Float(2, 3) = onnx::RandomNormalLike(%x)
	  %s : Float(2, 3) = onnx::Add(%a, %b)
	  %c : Float(2, 3) = onnx::Relu(%x)
	  %d : Float(2, 3) = onnx::Relu(%x)
	  %e : Float(2, 3) = onnx::Identity(%c)
	  %f : Float(2, 3) = onnx::Add(%e, %d)
	  %g : Float(2, 3) = onnx::Relu(%x)
	  return (%s, %f, %g)
	EOF
	run -0 tool fold -S rnd.ir
	# two draws stay two; the Relus merge except the returned one
	[ "$(grep -c 'onnx::RandomNormalLike' <<<"$output")" = 2 ]
	[[ "$output" == *'%f : Float(2, 3) = onnx::Add(%c, %c)'* ]]
	[[ "$output" == *'%g : Float(2, 3) = onnx::Relu(%x)'* ]]
	[ "$(grep -c 'onnx::Relu' <<<"$output")" = 2 ]
}

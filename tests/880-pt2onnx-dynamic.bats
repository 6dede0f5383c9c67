#!/usr/bin/env bats
# 880-pt2onnx-dynamic.bats - issue 16 section 1: no silently wrong model on
# the default path.  An axis --dynamic-axes names is a symbol in every stage
# (script and trace write it so, so lower and fold never see the example's
# size), and the graph inputs and outputs are declared with symbolic dims
# where the size varies.  Each model here is built by torch 1.13 (scripted
# and traced archives of the same module), exported once by `pt2onnx` with
# the example's sizes and --dynamic-axes, on the script path and with
# --trace, checked by onnx.checker, its declared dims compared with torch's
# shapes at every size (tests/oracle/sizes.py declared), and run by ONNX
# Runtime at three sizes (batch, and sequence or spatial dims where
# dynamic), each compared with torch's outputs (1e-4 relative).

# bats file_tags=tier:standard

load helper

setup_file() {
	need_torch || return 0
	need_ort || return 0
	cd "$BATS_FILE_TMPDIR" || return 1
	cat > models.py <<'PY'
import sys, math
import torch, torch.nn as nn, torch.nn.functional as F
torch.manual_seed(0)

class View(nn.Module):
    def __init__(self):
        super().__init__(); self.fc = nn.Linear(12, 5)
    def forward(self, x):
        return self.fc(x.view(x.shape[0], -1))

class Flat(nn.Module):
    def __init__(self):
        super().__init__(); self.fc = nn.Linear(12, 5)
    def forward(self, x):
        return self.fc(torch.flatten(x, 1)), x.flatten(1).sum(1)

class ViewN(nn.Module):
    def __init__(self):
        super().__init__(); self.fc = nn.Linear(4, 3)
    def forward(self, x):
        y = self.fc(x.view(-1, 4))
        return y.view(x.size(0), -1, 3)

class Arith(nn.Module):
    def __init__(self):
        super().__init__(); self.fc = nn.Linear(8, 8)
    def forward(self, x):
        b, s = x.size(0), x.size(1)
        y = self.fc(x.reshape(b * s, -1))
        y = y.reshape(b, s, 2, 4).sum(2)
        return y / x.shape[0] + s, torch.zeros(b, s // 2 + 1).sum(0)

class Mean(nn.Module):
    # the size used as a number: baked, it gives wrong values, not an error
    def forward(self, x):
        return x.sum(0) / x.shape[0], x * x.size(1)

class Ops(nn.Module):
    # ops that take sizes: arange, new_zeros, expand, repeat, slicing
    def forward(self, x):
        n = x.size(0)
        i = torch.arange(n).float()
        z = x.new_zeros(n, 2) + i.unsqueeze(1)
        e = x[:, :1].expand(n, 4)
        r = x.mean(1, keepdim=True).repeat(1, x.size(1))
        s = x[:, : x.size(1) // 2]
        return z, e, r, s, torch.ones_like(x).sum(0) + x.shape[0]

class FloatN(nn.Module):
    # float(n) of a size (torch.jit.trace bakes it: scripted archive only)
    def forward(self, x):
        n = x.size(0)
        return x * float(n) + int(x.size(1))

class Cnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(8 * 4 * 4, 10)
    def forward(self, x):
        x = self.pool(F.relu(self.conv(x)))
        return self.fc(torch.flatten(x, 1))

class CnnGap(nn.Module):
    # batch, height and width dynamic
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.fc = nn.Linear(8, 10)
    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv(x)), 2)
        x = F.adaptive_avg_pool2d(x, 1)
        return self.fc(x.view(x.size(0), -1))

class Block(nn.Module):
    def __init__(self, d=16, h=4):
        super().__init__()
        self.h = h
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln1 = nn.LayerNorm(d)
        self.ln2 = nn.LayerNorm(d)
        self.ff = nn.Sequential(nn.Linear(d, 32), nn.GELU(), nn.Linear(32, d))
    def forward(self, x):
        b, s, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).chunk(3, dim=-1)
        q = q.reshape(b, s, self.h, d // self.h).transpose(1, 2)
        k = k.reshape(b, s, self.h, d // self.h).transpose(1, 2)
        v = v.reshape(b, s, self.h, d // self.h).transpose(1, 2)
        a = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(d // self.h), -1)
        y = (a @ v).transpose(1, 2).reshape(b, s, d)
        x = x + self.proj(y)
        return x + self.ff(self.ln2(x))

# name: module, [(input, spec at the example size, [shape per size])],
# dynamic axes
models = {
    "view": (View(), [("x", "f32[1,3,4]", [(1, 3, 4), (4, 3, 4), (2, 3, 4)])],
             "x:0=batch"),
    "flat": (Flat(), [("x", "f32[2,3,4]", [(2, 3, 4), (5, 3, 4), (1, 3, 4)])],
             "x:0=batch"),
    "viewn": (ViewN(), [("x", "f32[2,3,4]", [(2, 3, 4), (3, 3, 4), (1, 3, 4)])],
              "x:0=batch"),
    "arith": (Arith(), [("x", "f32[2,3,8]", [(2, 3, 8), (3, 5, 8), (1, 2, 8)])],
              "x:0=batch,1=seq"),
    "mean": (Mean(), [("x", "f32[1,3]", [(1, 3), (4, 5), (3, 2)])],
             "x:0,1"),
    "ops": (Ops(), [("x", "f32[2,6]", [(2, 6), (5, 8), (1, 4)])], "x:0=n,1=m"),
    "floatn": (FloatN(), [("x", "f32[2,6]", [(2, 6), (5, 8), (1, 4)])],
               "x:0=n,1=m"),
    "cnn": (Cnn(), [("x", "f32[1,3,8,8]", [(1, 3, 8, 8), (3, 3, 8, 8), (2, 3, 8, 8)])],
            "x:0=batch"),
    "cnngap": (CnnGap(), [("x", "f32[1,3,8,8]",
                           [(1, 3, 8, 8), (2, 3, 12, 10), (3, 3, 6, 14)])],
               "x:0=batch,2=h,3=w"),
    "block": (Block(), [("x", "f32[1,5,16]",
                         [(1, 5, 16), (3, 7, 16), (2, 2, 16)])],
              "x:0=batch,1=seq"),
}

# models.py ORACLE_DIR NAME...: each NAME's archives, sizes and axes (one
# torch import for all; each model's weights are made at import, in the
# same order whichever are saved)
if __name__ == "__main__":
    sys.path.insert(0, sys.argv[1])
    from sizes import save_sizes
    for name in sys.argv[2:]:
        m, ins, dyn = models[name]
        with open(f"{name}.dyn", "w") as f:
            f.write(dyn + "\n")
        for mode in ("script", "trace"):
            torch.manual_seed(1)
            save_sizes(name + mode[0], mode, {name + mode[0]: (m, ins)})
PY
	"$PYTHON" models.py "$ORACLE_DIR" view flat viewn arith mean ops floatn \
		cnn cnngap block > models.log 2>&1 || { cat models.log >&2; return 1; }
}

setup() {
	skip_missing
	cd "$BATS_FILE_TMPDIR" || return 1
}

# dyn NAME PATH [ARCHIVES]: NAME's scripted (NAMEs) and traced (NAMEt)
# archives (ARCHIVES: "s t" unless given), each exported with its example
# sizes and NAME.dyn's axes by pt2onnx (PATH script, or trace for --trace),
# verified at every size by sizes_export
dyn() {
	local name=$1 path=$2 a extra=()
	[ "$path" = trace ] && extra=(--trace)
	for a in ${3:-s t}; do
		sizes_export "$name$a" --dynamic-axes "$(cat "$name.dyn")" \
			"${extra[@]}" || { echo "$name$a ($path path) failed"; return 1; }
	done
}

@test "pt2onnx --dynamic-axes, Linear(x.view(x.shape[0], -1)) (the issue's model): batch 1, 4, 2" {
	run -0 dyn view script
	run -0 dyn view trace
}

@test "pt2onnx --dynamic-axes: flatten(x, 1) into a Linear, and a sum over it" {
	run -0 dyn flat script
	run -0 dyn flat trace
}

@test "pt2onnx --dynamic-axes: view(-1, n) and back to view(x.size(0), -1, n)" {
	run -0 dyn viewn script
	run -0 dyn viewn trace
}

@test "pt2onnx --dynamic-axes: reshape by size() arithmetic, batch and seq dynamic, sizes as numbers and zeros(b, s // 2 + 1)" {
	run -0 dyn arith script
	run -0 dyn arith trace
}

@test "pt2onnx --dynamic-axes: a size used as a number (x.sum(0) / x.shape[0]) gives the right values at every size" {
	run -0 dyn mean script
	run -0 dyn mean trace
}

@test "pt2onnx --dynamic-axes: arange(n), new_zeros(n, 2), expand(n, 4), repeat(1, m), x[:, :m // 2], + x.shape[0]" {
	run -0 dyn ops script
	run -0 dyn ops trace
}

@test "pt2onnx --dynamic-axes: float(n) and int(m) of sizes stay computed on both paths (scripted archive)" {
	# torch.jit.trace bakes float(n) into a traced archive's constants,
	# so only the scripted one can be right at every size
	run -0 dyn floatn script s
	run -0 dyn floatn trace s
}

@test "pt2onnx --dynamic-axes: conv + pool + flatten + linear classifier, batch dynamic" {
	run -0 dyn cnn script
	run -0 dyn cnn trace
}

@test "pt2onnx --dynamic-axes: conv + pool + adaptive pool + view classifier, batch, height and width dynamic" {
	run -0 dyn cnngap script
	run -0 dyn cnngap trace
}

@test "pt2onnx --dynamic-axes: an attention block (qkv chunk, per-head reshape by x.shape, layer norms), batch and seq dynamic" {
	run -0 dyn block script
	run -0 dyn block trace
}

@test "script --dynamic-axes: the graph input's axis is the symbol, whatever size --input gives" {
	run -0 tool script views.pt -i 'x=f32[1,3,4]' --dynamic-axes 'x:0=batch' -S
	[[ "$output" == *"%x : Float(batch, 3, 4)"* ]]
	run -0 tool script views.pt -i 'f32[1,3,4]' --dynamic-axes 'x:0,2' -S
	[[ "$output" == *"%x : Float(x_dynamic_axes_1, 3, x_dynamic_axes_2)"* ]]
	# named by --input-names, as emit renames the inputs
	run -0 tool script views.pt -i 'x=f32[1,3,4]' --input-names image \
		--dynamic-axes '{"image": {0: "n"}}' -S
	[[ "$output" == *"%x : Float(n, 3, 4)"* ]]
	run -2 tool script views.pt -i 'x=f32[1,3,4]' --dynamic-axes 'x:3=w' -S
	[ "$output" = "script: views.pt: --dynamic-axes: input 'x' has rank 3, no axis 3" ]
}

@test "pt2onnx --input-names with --dynamic-axes on the new name: symbolic on both paths" {
	for p in "" --trace; do
		run -0 pt2onnx views.pt -i 'x=f32[1,3,4]' --input-names image \
			--dynamic-axes 'image:0=batch' $p -o named.onnx
		run -0 "$PYTHON" -c 'import onnx, sys
m = onnx.load(sys.argv[1])
print([[d.dim_param or d.dim_value for d in v.type.tensor_type.shape.dim] for v in list(m.graph.input) + list(m.graph.output)])' named.onnx
		[ "$output" = "[['batch', 3, 4], ['batch', 5]]" ]
	done
}

@test "declared output dims: symbolic wherever torch.onnx.export's are, for the same arguments" {
	local n a
	for n in view arith cnn block; do
		for a in s t; do
			run -0 pt2onnx "$n$a.pt" -i "$(cat "$n$a.spec")" \
				--dynamic-axes "$(cat "$n.dyn")" -o "cmp_$n$a.onnx"
			run -0 "$PYTHON" - "$n" "$a" <<'PY'
import sys, json
import numpy as np
import onnx
import torch
sys.argv = sys.argv[1:]
name, arch = sys.argv
sys.path.insert(0, ".")
import models  # noqa: E402  (the table above)
m, ins, dyn = models.models[name]
m.eval()
axes = {}
for part in dyn.split(";"):
    v, spec = part.split(":")
    axes[v] = {}
    for i, item in enumerate(spec.split(",")):
        k, _, nm = item.partition("=")
        axes[v][int(k)] = nm or f"{v}_dynamic_axes_{i + 1}"
args = tuple(torch.from_numpy(np.load(f"{name}{arch}-0.{n}.npy"))
             for n, _, _ in ins)
torch.onnx.export(torch.jit.load(f"{name}{arch}.pt"), args, f"torch_{name}{arch}.onnx",
                  input_names=[n for n, _, _ in ins], dynamic_axes=axes,
                  opset_version=14)
theirs = onnx.load(f"torch_{name}{arch}.onnx").graph.output
ours = onnx.load(f"cmp_{name}{arch}.onnx").graph.output
assert len(theirs) == len(ours), (len(theirs), len(ours))
for t, o in zip(theirs, ours):
    td, od = t.type.tensor_type.shape.dim, o.type.tensor_type.shape.dim
    assert len(td) == len(od), (t.name, len(td), len(od))
    for k, (a, b) in enumerate(zip(td, od)):
        assert not (a.dim_param and b.HasField("dim_value")), (
            f"output {o.name} axis {k}: torch {a.dim_param}, ours {b.dim_value}")
print("ok")
PY
		done
	done
}

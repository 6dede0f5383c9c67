#!/usr/bin/env bats
# 300-trace.bats - the `trace` stage: runs an archive once and records what
# ran.  Its saved outputs against torch's (the bundled example, control
# flow, dynamic shapes), the recorded graph through lower | fold | emit in
# ONNX Runtime against torch, pt2onnx --trace, dynamic axes at another
# batch size, and every error path (exit code, one line, no output left).
# bats file_tags=tier:standard
load helper

EX="$ROOT_DIR/examples"
trace() { tool trace "$@"; }
compare() { "$PYTHON" "$ORACLE_DIR/reference.py" compare "$@"; }

# Models made by torch once for the whole file, with torch's outputs.
setup_file() {
	need_torch || return 0
	need_ort || return 0
	export M="$BATS_FILE_TMPDIR"
	# torch.jit.script reads the classes' source: a file, not stdin
	cat > "$M/gen.py" <<'EOF'
import sys, numpy as np, torch
from typing import Dict, List, Optional
d = sys.argv[1]
torch.manual_seed(0)

class Flow(torch.nn.Module):
    """if on a tensor value, a for loop, a while loop, list ops"""
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)
    def forward(self, x):
        if bool(x.sum() > 0):
            y = self.lin(x)
        else:
            y = -x
        acc: List[torch.Tensor] = []
        for i in range(3):
            y = y * 0.5 + float(i)
            acc.append(y)
        k = 0
        while k < 2:
            y = torch.relu(y) - 1.0
            k += 1
        return y + acc[1], acc[0]

class Dyn(torch.nn.Module):
    """sizes used as values: x.view(x.size(0), -1)"""
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(12, 5)
    def forward(self, x):
        n = x.size(0)
        return torch.relu(self.lin(x.view(n, -1))) * 2.0

class Missing(torch.nn.Module):
    def forward(self, x):
        return torch.linalg.eig(x.view(2, 4)[:, :2])[0].abs().sum() + torch.relu(x).sum()

class Dicts(torch.nn.Module):
    """dict construction, lookups, mutation, iteration; a dict output"""
    def forward(self, x):
        d: Dict[str, torch.Tensor] = {}
        d["a"] = x
        d["b"] = x * 2.0
        d["c"] = x + 1.0
        d["z"] = x - 1.0
        acc = torch.zeros_like(x)
        for k in d.keys():
            acc = acc + d[k]
        for kv in d.items():
            if kv[0] != "a":
                acc = acc * 0.5 + kv[1]
        n = len(d)
        d.pop("b")
        p = d.pop("c")
        q = d.get("missing", x * 3.0)
        r = d.setdefault("w", x * 4.0)
        last = d.popitem()
        d[last[0]] = last[1] + 1.0
        vals = list(d.values())
        e = d.copy()
        e.clear()
        out = acc + p + q + r + float(n) + float(len(vals)) + float(len(e))
        if "a" in d and "b" not in d:
            out = out + 1.0
        m: Dict[int, float] = {}
        m[1] = 0.5
        m[2] = 0.25
        return out * m[2] + m.get(3, 1.0), d

class Defaults(torch.nn.Module):
    """forward arguments with defaults that --input leaves out"""
    def forward(self, x, mask: Optional[torch.Tensor] = None,
                scale: float = 2.0):
        if mask is not None:
            x = x.masked_fill(mask, 0.0)
        return x * scale

class Index(torch.nn.Module):
    """an integer the caller passes as a 0-d tensor, used as an index"""
    def forward(self, data, index):
        return data.select(0, int(index)) * 2.0

for name, m in (("flow", Flow()), ("dyn", Dyn()), ("missing", Missing()),
                ("dicts", Dicts()), ("defaults", Defaults()),
                ("index", Index())):
    m.eval()
    torch.jit.save(torch.jit.script(m), f"{d}/{name}.pt")
x = torch.randn(2, 4).abs()
np.save(f"{d}/flow_x.npy", x.numpy())
np.save(f"{d}/flow_xneg.npy", -x.abs().numpy())
with torch.no_grad():
    m = torch.jit.load(f"{d}/flow.pt")
    for tag, inp in (("", x), ("neg", -x.abs())):
        outs = m(inp)
        for i, o in enumerate(outs):
            np.save(f"{d}/flow{tag}_out{i}.npy", o.numpy())
    m = torch.jit.load(f"{d}/dyn.pt")
    for b in (2, 5):
        xb = torch.randn(b, 3, 4)
        np.save(f"{d}/dyn_x{b}.npy", xb.numpy())
        np.save(f"{d}/dyn_out{b}.npy", m(xb).numpy())
    x = torch.randn(2, 3)
    np.save(f"{d}/dict_x.npy", x.numpy())
    out, dd = torch.jit.load(f"{d}/dicts.pt")(x)
    # torch.onnx flattens a dict output into its values, in order
    for i, o in enumerate([out] + list(dd.values())):
        np.save(f"{d}/dicts_out{i}.npy", o.numpy())
    m = torch.jit.load(f"{d}/index.pt")
    data = torch.randn(5, 3)
    np.save(f"{d}/index_data.npy", data.numpy())
    for i in (1, 3):
        np.save(f"{d}/index_i{i}.npy", np.array(i, dtype=np.int64))
        np.save(f"{d}/index_out{i}.npy", m(data, torch.tensor(i)).numpy())
    m = torch.jit.load(f"{d}/defaults.pt")
    np.save(f"{d}/defaults_out0.npy", m(x).numpy())
    mask = x > 0
    np.save(f"{d}/defaults_mask.npy", mask.numpy())
    np.save(f"{d}/defaults_outm.npy", m(x, mask).numpy())
EOF
	FIXTURE_DEST="$M" fixture_run "$M/gen.py" @OUT
}

@test "trace: the example CNN's outputs equal torch's" {
	run -0 trace "$EX/cnn.pt" --input "x=$EX/cnn_input.npy" \
		--save-outputs out -o cnn.ir
	[ -s cnn.ir ]
	run -0 compare out/out0.npy "$EX/cnn_expected.npy" 1e-4
	# positional input and text output; weights stay references
	run -0 trace "$EX/cnn.pt" --input "$EX/cnn_input.npy" -S
	[[ "$output" == *'%conv.weight : Float(8, 3, 3, 3) = weight('*'cnn.pt"'* ]]
	[[ "$output" == *"aten::conv2d("*"scope: SmallCNN/Conv2d[conv]"* ]]
	[[ "$output" != *"prim::If"* ]]
}

@test "trace: trace | lower | fold | emit runs in ONNX Runtime as torch" {
	trace "$EX/cnn.pt" --input "x=f32[1,3,8,8]" | tool lower --opset 13 |
		tool fold | emit -o cnn.onnx
	run -0 onnx_checker cnn.onnx
	mkdir ort
	run -0 ort_run cnn.onnx ort "x=$EX/cnn_input.npy"
	run -0 compare ort/*.npy "$EX/cnn_expected.npy" 1e-4
}

@test "trace: pt2onnx --trace exports, checked, matching torch" {
	run -0 pt2onnx "$EX/cnn.pt" --trace --input "$EX/cnn_input.npy" \
		-o cnn.onnx --opset-version 17 --seed 3 --device cpu
	run -0 onnx_checker cnn.onnx
	mkdir ort
	run -0 ort_run cnn.onnx ort "x=$EX/cnn_input.npy"
	run -0 compare ort/*.npy "$EX/cnn_expected.npy" 1e-4
	run -2 pt2onnx "$EX/cnn.pt" --script --seed 3 -o x.onnx
	[[ "$output" == *"need --trace"* ]]
}

@test "trace: control flow is resolved as the inputs take it" {
	for tag in "" neg; do
		x="$M/flow_x.npy"
		[ -z "$tag" ] || x="$M/flow_xneg.npy"
		rm -rf out
		run -0 trace "$M/flow.pt" -i "x=$x" --save-outputs out -S
		[[ "$output" != *"prim::If"* && "$output" != *"prim::Loop"* ]]
		[ -z "$tag" ] || [[ "$output" != *"aten::linear"* ]]
		[ -n "$tag" ] || [[ "$output" == *"aten::linear"* ]]
		run -0 compare out/out0.npy "$M/flow${tag}_out0.npy" 1e-4
		run -0 compare out/out1.npy "$M/flow${tag}_out1.npy" 1e-4
	done
	# the recorded graph gives torch's outputs for that input in ORT
	trace "$M/flow.pt" -i "x=$M/flow_x.npy" | tool lower --opset 13 |
		tool fold | emit -o flow.onnx --output-names a,b
	mkdir ort
	run -0 ort_run flow.onnx ort "x=$M/flow_x.npy"
	run -0 compare ort/a.npy "$M/flow_out0.npy" 1e-4
	run -0 compare ort/b.npy "$M/flow_out1.npy" 1e-4
}

@test "trace: dynamic axes: sizes stay ops, another batch runs in ORT" {
	run -0 trace "$M/dyn.pt" -i "x=$M/dyn_x2.npy" --dynamic-axes 'x:0=batch' \
		--save-outputs out -S
	[[ "$output" == *"%x : Float(batch, 3, 4)"* ]]
	[[ "$output" == *"aten::size("* ]]
	# past the input, dims may depend on the symbol: left unknown
	[[ "$output" == *"Float(*, *) = aten::linear"* ]]
	run -0 compare out/out0.npy "$M/dyn_out2.npy" 1e-4
	# the symbol can also be given in the input spec
	run -0 trace "$M/dyn.pt" -i "x=f32[n:2,3,4]" -S
	[[ "$output" == *"%x : Float(n, 3, 4)"* ]]
	trace "$M/dyn.pt" -i "$M/dyn_x2.npy" --dynamic-axes 'x:0=batch' |
		tool lower --opset 13 | tool fold |
		emit -o dyn.onnx --dynamic-axes 'x:0=batch'
	mkdir ort
	run -0 ort_run dyn.onnx ort "x=$M/dyn_x5.npy"
	run -0 compare ort/*.npy "$M/dyn_out5.npy" 1e-4
	# the same through pt2onnx, with torch's dict form
	run -0 pt2onnx "$M/dyn.pt" --trace -i "$M/dyn_x2.npy" -o dyn2.onnx \
		--dynamic-axes '{"x": {"0": "batch"}}'
	mkdir ort2
	run -0 ort_run dyn2.onnx ort2 "x=$M/dyn_x5.npy"
	run -0 compare ort2/*.npy "$M/dyn_out5.npy" 1e-4
}

@test "trace: dicts: built, read, mutated, iterated; a dict output" {
	run -0 trace "$M/dicts.pt" -i "x=$M/dict_x.npy" --save-outputs out -S
	[[ "$output" != *"prim::DictConstruct"* && "$output" != *"prim::Loop"* ]]
	for i in 0 1 2 3; do
		run -0 compare "out/out$i.npy" "$M/dicts_out$i.npy" 1e-4
	done
	[ ! -e out/out4.npy ]
	# the recorded graph in ORT: the dict's values are outputs 1 to 3
	trace "$M/dicts.pt" -i "x=$M/dict_x.npy" | tool lower --opset 13 |
		tool fold | emit -o dicts.onnx --output-names o0,o1,o2,o3
	mkdir ort
	run -0 ort_run dicts.onnx ort "x=$M/dict_x.npy"
	for i in 0 1 2 3; do
		run -0 compare "ort/o$i.npy" "$M/dicts_out$i.npy" 1e-4
	done
}

@test "trace: forward arguments left out take their defaults" {
	run -0 trace "$M/defaults.pt" -i "x=$M/dict_x.npy" --save-outputs out -S
	# the defaulted ones are no inputs of the recorded graph
	[[ "$output" == *"graph Defaults(%x : Float(2, 3)):"* ]]
	[[ "$output" != *"mask"* && "$output" != *"masked_fill"* ]]
	run -0 compare out/out0.npy "$M/defaults_out0.npy" 1e-4
	# one without a default still has to be given
	run -2 trace "$M/defaults.pt" -i "mask=$M/defaults_mask.npy" -o x.ir
	[[ "$output" == *"'x'"*"not given"* ]]
	[ ! -e x.ir ]
}

@test "trace: an Optional[Tensor] argument given is an input again" {
	run tool script "$M/defaults.pt" -i "x=$M/dict_x.npy" \
		-i "mask=$M/defaults_mask.npy" -o /dev/null
	if [[ "$output" == *"is a Optional, not a Tensor"* ]]; then
		skip "script refuses a tensor for an Optional[Tensor] argument"
	fi
	run -0 trace "$M/defaults.pt" -i "x=$M/dict_x.npy" \
		-i "mask=$M/defaults_mask.npy" --save-outputs outm -S
	[[ "$output" == *"%mask : Bool(2, 3)"* && "$output" == *"masked_fill"* ]]
	run -0 compare outm/out0.npy "$M/defaults_outm.npy" 1e-4
}

@test "trace: int() of a 0-d integer input stays an op (another index in ORT)" {
	run -0 trace "$M/index.pt" -i "data=$M/index_data.npy" \
		-i "index=$M/index_i1.npy" --save-outputs out -S
	[[ "$output" == *"= aten::Int(%index)"* ]]
	run -0 compare out/out0.npy "$M/index_out1.npy" 1e-4
	trace "$M/index.pt" -i "data=$M/index_data.npy" \
		-i "index=$M/index_i1.npy" | tool lower --opset 13 | tool fold |
		emit -o index.onnx
	mkdir ort
	run -0 ort_run index.onnx ort "data=$M/index_data.npy" \
		"index=$M/index_i3.npy"
	run -0 compare ort/*.npy "$M/index_out3.npy" 1e-4
}

@test "trace: random inputs are reproducible from --seed" {
	trace "$EX/cnn.pt" -i "x=f32[2,3,8,8]" --seed 7 --save-outputs a >/dev/null
	trace "$EX/cnn.pt" -i "x=f32[2,3,8,8]" --seed 7 --save-outputs b >/dev/null
	trace "$EX/cnn.pt" -i "x=f32[2,3,8,8]" --seed 8 --save-outputs c >/dev/null
	cmp a/out0.npy b/out0.npy
	! cmp -s a/out0.npy c/out0.npy
	run -0 "$PYTHON" -c '
import numpy as np
a = np.load("a/out0.npy")
assert a.shape == (2, 10) and a.dtype == np.float32, (a.shape, a.dtype)'
}

@test "trace: inputs that do not fit forward are usage errors naming it" {
	run -2 trace "$EX/cnn.pt" -i "f32[1,3,8,8]" -i "f32[2]" -o x.ir
	[[ "$output" == *"forward(x)"* ]]
	[ "${#lines[@]}" = 1 ]
	run -2 trace "$EX/cnn.pt" -i "y=f32[1,3,8,8]" -o x.ir
	[[ "$output" == *"forward(x) has no input"* ]]
	run -2 trace "$EX/cnn.pt" -o x.ir
	[[ "$output" == *"'x' of forward(x) is not given"* ]]
	run -2 trace "$EX/cnn.pt" -i "x=f33[1,3]" -o x.ir
	[[ "$output" == *"unknown dtype 'f33'"* ]]
	run -2 trace "$EX/cnn.pt" -i "x=f32[batch,3,8,8]" -o x.ir
	[[ "$output" == *"needs a size"* ]]
	run -2 trace "$EX/cnn.pt" -i "x=f32[1,3,8" -o x.ir
	run -2 trace "$EX/cnn.pt" -i "x=f32[1,3,8,8]" --device tpu -o x.ir
	run -2 trace "$EX/cnn.pt" -i "x=f32[1,3,8,8]" --seed abc -o x.ir
	run -2 trace "$EX/cnn.pt" -i "x=f32[1,3,8,8]" --dynamic-axes 'x:7' -o x.ir
	[ ! -e x.ir ]
}

@test "trace: --device cuda without a GPU is a usage error" {
	if [ -n "$(command -v nvidia-smi)" ] && nvidia-smi -L >/dev/null 2>&1; then
		skip "a GPU is present"
	fi
	run -2 trace "$EX/cnn.pt" -i "x=f32[1,3,8,8]" --device cuda -o x.ir
	[[ "$output" == *"--device cuda"* ]]
	[ ! -e x.ir ]
	# auto takes the CPU for a model this small (CUDA's start-up would
	# dominate; a build without nvcc, as CI's, has no CUDA at all); -v
	# says which and why, through pt2onnx too
	local why="device cpu (auto: @(the CPU, CUDA's start-up would dominate|no CUDA device, the CPU); "
	shopt -s extglob
	run -0 --separate-stderr trace -v "$EX/cnn.pt" -i "x=f32[1,3,8,8]" -o x.ir
	[[ "$stderr" == *$why*" batch 1, "* ]]
	[ -s x.ir ]
	run -0 --separate-stderr pt2onnx -v "$EX/cnn.pt" --trace -i "x=f32[1,3,8,8]" -o x.onnx
	[[ "$stderr" == *$why* ]]
	[ -s x.onnx ]
}

@test "trace: an op with no implementation: exit 4; --list-missing lists it" {
	run -4 trace "$M/missing.pt" -i "x=f32[8]" -o x.ir
	[[ "$output" == *"aten::linalg_eig"*"no implementation"* ]]
	[ ! -e x.ir ]
	run -4 trace "$M/missing.pt" --list-missing
	[[ "$output" == *"aten::linalg_eig (Missing"* ]]
	[[ "$output" != *"aten::relu"* ]]
	run -0 trace "$EX/cnn.pt" --list-missing
	[[ "$output" == *"every op"* ]]
}

@test "trace: corrupt archives and bad .npy files: exit 3, nothing written" {
	head -c 3000 "$EX/cnn.pt" > bad.pt
	run -3 trace bad.pt -i "x=f32[1,3,8,8]" -o x.ir
	[ "${#lines[@]}" -ge 1 ]
	printf 'not numpy' > bad.npy
	run -3 trace "$EX/cnn.pt" -i "x=bad.npy" -o x.ir
	[[ "$output" == *"bad.npy"* ]]
	head -c 100 "$EX/cnn_input.npy" > short.npy
	run -3 trace "$EX/cnn.pt" -i "x=short.npy" -o x.ir
	"$PYTHON" -c 'import numpy as np; np.save("c.npy", np.zeros((2, 2), dtype=np.complex64))'
	run -3 trace "$EX/cnn.pt" -i "x=c.npy" -o x.ir
	[[ "$output" == *"dtype"* ]]
	run -5 trace missing.pt -i "x=f32[1]" -o x.ir
	[ ! -e x.ir ]
	echo stale > x.ir
	run -3 trace bad.pt -i "x=f32[1,3,8,8]" -o x.ir
	[ "$(cat x.ir)" = stale ]
}

@test "trace: --save-outputs writes .npy numpy reads, dtypes kept" {
	run -0 trace "$M/flow.pt" -i "x=$M/flow_x.npy" --save-outputs deep/o -o x.ir
	[ -s deep/o/out0.npy ] && [ -s deep/o/out1.npy ]
	run -0 trace "$M/flow.pt" -i "x=$M/flow_x.npy" --save-outputs outs -o x.ir
	run -0 "$PYTHON" -c '
import numpy as np
a, b = np.load("outs/out0.npy"), np.load("outs/out1.npy")
assert a.dtype == np.float32 and a.shape == (2, 4), (a.dtype, a.shape)'
}

@test "trace: --help and --version" {
	run -0 trace --help
	[[ "$output" == *"usage: trace"* ]]
	run -0 trace -V
	[[ "$output" == "trace "* ]]
	run -2 trace
}

#!/usr/bin/env bats
# 201-script.bats - the `script` stage (lib/script/compile*.c, passes.c,
# shapes.c) on real archives: tests/script/make_models.py builds a small CNN
# (traced and scripted), an MLP, a model with a data-dependent if, a for
# loop and a while loop, a tiny GPT block, a TransformerEncoder, and
# torchvision's resnet18 (traced and scripted) and mobilenet_v3_small,
# and writes torch's own oracle for each: the aten op kinds of the frozen,
# inlined, constant-propagated graph (raising branches removed) and the
# number of state_dict entries inference uses.  tests/script/compare_ops.py
# checks `script -S` against it.
#
# Needs Debian's python3-torch (torchvision for resnet18); skipped without.
# bats file_tags=tier:standard

bats_require_minimum_version 1.5.0
load helper

MODELS="${BATS_FILE_TMPDIR:-/tmp}/models"

setup_file() {
	(need_torch) >/dev/null 2>&1 || return 0
	FIXTURE_DEST="$BATS_FILE_TMPDIR/models" fixture_run \
		"$BATS_TEST_DIRNAME/script/make_models.py" @OUT >/dev/null 2>&1 || true
}

need() {
	need_torch torchvision
	[ -f "$MODELS/$1.pt" ] || skip "no $1.pt (python3-torch or torchvision missing)"
}

# script -S MODEL, then the op-set and weight-count comparison with torch
agree() {
	need "$1"
	shift_name=$1
	shift
	run -0 tool script -S "$MODELS/$shift_name.pt" "$@"
	printf '%s\n' "$output" > "$WORK/$shift_name.ir"
	run -0 "$PYTHON" "$TESTS_DIR/script/compare_ops.py" \
		"$WORK/$shift_name.ir" "$MODELS/$shift_name"
	echo "$output"
}

@test "script: small CNN, traced: op set and weights agree with torch" {
	agree cnn_traced
}

@test "script: small CNN, scripted: op set, weights, input and output types" {
	agree cnn_scripted --input 'x=f32[batch,3,32,32]'
	run -0 grep -F 'graph SmallCNN(%x : Float(batch, 3, 32, 32),' \
		"$WORK/cnn_scripted.ir"
	# the output is the fc's: Float(batch, 10)
	out=$(grep -o 'return (%[^)]*)' "$WORK/cnn_scripted.ir")
	v=${out#return (}
	v=${v%)}
	run -0 grep -F "$v : Float(batch, 10) = aten::linear" \
		"$WORK/cnn_scripted.ir"
	# scopes as torch writes them, source locations into code/
	run -0 grep -F 'scope: SmallCNN/Conv2d[conv1] # code/__torch__/' \
		"$WORK/cnn_scripted.ir"
	# weights are references into the archive, named by module path
	run -0 grep -F '%conv1.weight : Float(8, 3, 3, 3) = weight("' \
		"$WORK/cnn_scripted.ir"
	# no control flow is left: training branches and checks are gone
	run -1 grep -E 'prim::(If|Loop|RaiseException)' "$WORK/cnn_scripted.ir"
}

@test "script: positional --input gives the same graph" {
	need cnn_scripted
	run -0 tool script -S "$MODELS/cnn_scripted.pt" --input 'x=f32[2,3,32,32]'
	a=$output
	run -0 tool script -S "$MODELS/cnn_scripted.pt" --input 'f32[2,3,32,32]'
	[ "$a" = "$output" ]
	[[ "$output" == *"Float(2, 10) = aten::linear"* ]]
}

@test "script: MLP in a Sequential" {
	agree mlp_scripted --input 'x=f32[batch,20]'
	run -0 grep -F 'Float(batch, 5) = aten::softmax' "$WORK/mlp_scripted.ir"
	run -0 grep -F 'scope: MLP/Sequential[layers]/Linear[0]' \
		"$WORK/mlp_scripted.ir"
}

@test "script: data-dependent if, for and while loops" {
	agree control_scripted
	run -0 grep -c 'prim::Loop' "$WORK/control_scripted.ir"
	[ "$output" = 2 ]
	run -0 grep -c 'prim::If' "$WORK/control_scripted.ir"
	[ "$output" = 1 ]
	run -0 grep -F 'graph Control(%x : Tensor,' "$WORK/control_scripted.ir"
	run -0 grep -F '%k : int' "$WORK/control_scripted.ir"
}

@test "script: tiny GPT block: embedding, layer_norm, matmul, softmax, cat, view" {
	agree gpt_scripted --input 'ids=i64[batch,7]'
	run -0 grep -F '%ids : Long(batch, 7)' "$WORK/gpt_scripted.ir"
	run -0 grep -F 'Float(batch, 7, 32) = aten::embedding' "$WORK/gpt_scripted.ir"
	run -0 grep -F 'Float(batch, 32, 7) = aten::transpose' "$WORK/gpt_scripted.ir"
	run -0 grep -F 'Float(batch, 7, 7) = aten::softmax' "$WORK/gpt_scripted.ir"
	run -0 grep -F 'Float(batch, 7, 64) = aten::cat' "$WORK/gpt_scripted.ir"
	# view(-1, 7, 64) of a batch-sized tensor: the -1 is not guessed
	run -0 grep -F 'Float(*, 7, 64) = aten::view' "$WORK/gpt_scripted.ir"
}

@test "script: TransformerEncoder (optional inputs, fast-path checks)" {
	need transformer_scripted
	run -0 tool script -S "$MODELS/transformer_scripted.pt"
	printf '%s\n' "$output" > "$WORK/transformer_scripted.ir"
	run -1 "$PYTHON" "$TESTS_DIR/script/compare_ops.py" \
		"$WORK/transformer_scripted.ir" "$MODELS/transformer_scripted"
	# torch's frozen graph keeps the fast-path checks that an export
	# settles (is_grad_enabled() is False under its no_grad, tensors are
	# on the CPU): script folds them, and nothing else differs
	[[ "$output" == *"only in script: []"* ]]
	[[ "$output" == *"only in torch:  ['aten::all', 'aten::any', 'aten::append', 'aten::find', 'aten::is_autocast_enabled', 'aten::is_grad_enabled', 'aten::str']"* ]]
	run -0 grep -F '%mask : Tensor?' "$WORK/transformer_scripted.ir"
}

@test "script: LSTM (overloaded forward, weights named as parameters)" {
	agree lstm_scripted
	run -0 grep -F '%weight_ih_l0 : Float(64, 8) = weight(' \
		"$WORK/lstm_scripted.ir"
	run -0 grep -F '%hx : (Tensor, Tensor)?' "$WORK/lstm_scripted.ir"
	# with the rank known, aten::dim folds and the unbatched branches go
	run -0 tool script -S "$MODELS/lstm_scripted.pt" --input 'input=f32[5,batch,8]'
	[[ "$output" != *"aten::unsqueeze"* ]]
	[[ "$output" == *"aten::lstm"* ]]
}

@test "script: mobilenet_v3_small, scripted" {
	agree mobilenet_v3_small_scripted --input 'x=f32[1,3,224,224]'
	run -0 grep -F 'Float(1, 1000) = aten::linear' \
		"$WORK/mobilenet_v3_small_scripted.ir"
}

@test "script: resnet18, traced" {
	agree resnet18_traced
}

@test "script: resnet18, scripted, in-place ops made out-of-place" {
	agree resnet18_scripted --input 'x=f32[batch,3,224,224]'
	run -1 grep -E 'aten::(relu_|add_)\(' "$WORK/resnet18_scripted.ir"
	run -0 grep -F 'Float(batch, 1000) = aten::linear' \
		"$WORK/resnet18_scripted.ir"
	run -0 grep -F 'scope: ResNet/Sequential[layer1]/BasicBlock[0]/Conv2d[conv1]' \
		"$WORK/resnet18_scripted.ir"
}

@test "script: -o writes binary (a msgpack map first), -S text" {
	need cnn_scripted
	run -0 tool script "$MODELS/cnn_scripted.pt" -o "$WORK/g.ir"
	[ -s "$WORK/g.ir" ]
	run -0 tool script -S "$MODELS/cnn_scripted.pt" -o "$WORK/g.txt"
	run -0 head -n1 "$WORK/g.txt"
	[ "$output" = "ir 1.0 aten" ]
	head -c1 "$WORK/g.ir" | od -An -tx1 | grep -Eq '8[0-9a-f]|de|df'
}

@test "script: a truncated archive is exit 3, one line" {
	need cnn_scripted
	head -c 3000 "$MODELS/cnn_scripted.pt" > "$WORK/trunc.pt"
	run -3 tool script -S "$WORK/trunc.pt"
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "script: "* ]]
	[ ! -e "$WORK/out.ir" ]
}

@test "script: an unknown --method is a usage error, exit 2" {
	need cnn_scripted
	run -2 tool script -S --method nope "$MODELS/cnn_scripted.pt"
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"no method 'nope'"* ]]
}

@test "script: recursion is cut at the inlining limit, exit 4" {
	need control_scripted
	"$PYTHON" - "$MODELS/control_scripted.pt" "$WORK/rec.pt" <<'PY'
import sys, zipfile
zin = zipfile.ZipFile(sys.argv[1])
zout = zipfile.ZipFile(sys.argv[2], "w")
for n in zin.namelist():
    d = zin.read(n)
    if n.endswith("code/__torch__.py"):
        d = d.replace(b"(fc).forward(y, )", b"(self).forward(y, k, )")
    zout.writestr(n, d)
zout.close()
PY
	run -4 tool script -S "$WORK/rec.pt"
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"calls nested deeper than 256"* ]]
}

@test "script: an unsupported construct is exit 4 naming file, line and construct" {
	need_torch
	cat > "$WORK/u.py" <<'PY'
import sys, torch
class U(torch.nn.Module):
    def forward(self, x, k: str):
        d = {k: x}
        return d[k]
torch.jit.script(U()).save(sys.argv[1])
PY
	run -0 "$PYTHON" "$WORK/u.py" "$WORK/u.pt"
	run -4 tool script -S "$WORK/u.pt" -o "$WORK/u.ir"
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"code/__torch__.py:"*":"*": unsupported construct: a dict key that is not a constant"* ]]
	[ ! -e "$WORK/u.ir" ]
}

@test "script: bad --input specs are usage errors" {
	need cnn_scripted
	run -2 tool script -S "$MODELS/cnn_scripted.pt" --input 'x=q7[1,2]'
	[[ "$output" == *"unknown dtype"* ]]
	run -2 tool script -S "$MODELS/cnn_scripted.pt" --input 'x=f32[1,,2]'
	run -2 tool script -S "$MODELS/cnn_scripted.pt" --input 'y=f32[1]'
	[[ "$output" == *"no such argument"* ]]
}

@test "script: --input from a .npy header" {
	need cnn_scripted
	"$PYTHON" -c 'import numpy' 2>/dev/null || skip "no numpy"
	"$PYTHON" -c 'import numpy as np, sys; np.save(sys.argv[1], np.zeros((4, 3, 32, 32), np.float32))' "$WORK/x.npy"
	run -0 tool script -S "$MODELS/cnn_scripted.pt" --input "x=$WORK/x.npy"
	[[ "$output" == *"Float(4, 10) = aten::linear"* ]]
}

@test "script: end to end, script | lower | fold | emit, matches torch under ONNX Runtime" {
	need resnet18_scripted
	[ -x "$BINDIR/lower" ] && [ -x "$BINDIR/fold" ] || skip "no lower or fold"
	need_ort
	for m in cnn_scripted resnet18_scripted gpt_scripted; do
		spec='x=f32[batch,3,64,64]'
		[ $m = gpt_scripted ] && spec='ids=i64[batch,7]'
		set -o pipefail
		tool script "$MODELS/$m.pt" --input "$spec" |
			tool lower --opset 17 | tool fold |
			tool emit -o "$WORK/$m.onnx"
		set +o pipefail
		run -0 "$PYTHON" - "$MODELS/$m.pt" "$WORK/$m" <<'PY'
import sys, numpy as np, torch
torch.manual_seed(1)
m = torch.jit.load(sys.argv[1]).eval()
if "gpt" in sys.argv[1]:
    x = np.random.randint(0, 100, (2, 7)).astype(np.int64)
else:
    x = np.random.randn(2, 3, 64, 64).astype(np.float32)
np.save(sys.argv[2] + "_in.npy", x)
np.save(sys.argv[2] + "_ref.npy", m(torch.from_numpy(x)).detach().numpy())
PY
		name=x
		[ $m = gpt_scripted ] && name=ids
		mkdir -p "$WORK/out_$m"
		run -0 ort_run "$WORK/$m.onnx" "$WORK/out_$m" "$name=$WORK/${m}_in.npy"
		run -0 "$PYTHON" -c '
import sys, glob, numpy as np
r = np.load(sys.argv[1]); o = np.load(glob.glob(sys.argv[2] + "/*.npy")[0])
err = float(np.abs(r - o).max() / (np.abs(r).max() + 1e-12))
print(sys.argv[1], err)
sys.exit(0 if r.shape == o.shape and err < 1e-4 else 1)' \
			"$WORK/${m}_ref.npy" "$WORK/out_$m"
		echo "$output"
	done
}

@test "script_ops.py: its IR parsing and comparison rules (self-test)" {
	run -0 "$PYTHON" "$TESTS_DIR/conformance/script_ops.py" --self-test
}

@test "script_ops.py: the control-flow conformance archives agree with torch" {
	[ -f "$TESTS_DIR/../build/conformance/models/cf_if/traced.pt" ] ||
		skip "conformance models not generated (make conformance-fast)"
	run -0 "$PYTHON" "$TESTS_DIR/conformance/script_ops.py" \
		--script "$BINDIR/script" --only 'cf_.*' --check
}

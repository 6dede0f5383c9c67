#!/usr/bin/env bats
# 800-pt2onnx.bats - the wrapper: the one-command export (script | lower |
# fold | emit, then check) on the bundled example archive, its failures
# (the failing stage's message and status, no output file), running stages
# by name, and `make install`'s layout.
# bats file_tags=tier:standard
load helper

setup_file() {
	need_ort || return 0
}

EX="$ROOT_DIR/examples"

@test "pt2onnx: exports the example archive; ONNX Runtime matches torch" {
	run -0 pt2onnx "$EX/cnn.pt" --input 'x=f32[1,3,8,8]' -o cnn.onnx \
		--opset-version 13
	[ -s cnn.onnx ]
	run -0 onnx_checker cnn.onnx
	mkdir out
	run -0 ort_run cnn.onnx out "x=$EX/cnn_input.npy"
	run -0 "$PYTHON" "$ORACLE_DIR/reference.py" compare out/*.npy \
		"$EX/cnn_expected.npy" 1e-4
}

@test "pt2onnx: torch's options reach the stages (names, dynamic axes, opset)" {
	run -0 pt2onnx "$EX/cnn.pt" --input 'x=f32[1,3,8,8]' -o cnn.onnx \
		--opset-version 17 --input-names image --output-names logits \
		--dynamic-axes 'image:0=batch' --do-constant-folding=false
	run -0 "$PYTHON" -c '
import onnx, sys
m = onnx.load("cnn.onnx")
assert [i.name for i in m.graph.input] == ["image"], m.graph.input
assert [o.name for o in m.graph.output] == ["logits"], m.graph.output
assert m.graph.input[0].type.tensor_type.shape.dim[0].dim_param == "batch"
assert [o.version for o in m.opset_import if o.domain == ""] == [17]
assert m.ir_version == 8
'
}

@test "pt2onnx: --verbose prints the exported graph" {
	run -0 pt2onnx "$EX/cnn.pt" --input 'x=f32[1,3,8,8]' -o cnn.onnx -v
	[[ "$output" == *"onnx::Conv["* ]]
	[[ "$output" == *"return ("* ]]
}

@test "pt2onnx: a corrupt archive fails in script, exit 3, no model" {
	head -c 3000 "$EX/cnn.pt" > bad.pt
	run -3 pt2onnx bad.pt --input 'x=f32[1,3,8,8]' -o bad.onnx
	[[ "$output" == *"script: "*"bad.pt"* ]]
	[[ "$output" == *"the script stage failed (exit 3)"* ]]
	[ ! -e bad.onnx ]
}

@test "pt2onnx: a failure leaves an old file of the output's name as it was" {
	echo stale > out.onnx
	head -c 3000 "$EX/cnn.pt" > bad.pt
	run -3 pt2onnx bad.pt -o out.onnx
	[ "$(cat out.onnx)" = stale ]
}

@test "pt2onnx: usage errors are exit 2, a missing model 5" {
	run -2 pt2onnx "$EX/cnn.pt"
	[[ "$output" == *"no output given"* ]]
	run -2 pt2onnx "$EX/cnn.pt" -o x.onnx --do-constant-folding=maybe
	run -2 pt2onnx "$EX/cnn.pt" -o x.onnx --no-such-option
	run -2 pt2onnx "$EX/cnn.pt" -i 'x=f32[1,3,8,8]' -o x.onnx \
		--opset-version 14 --export-modules-as-functions
	[[ "$output" == *"--export-modules-as-functions needs opset 15 or later (local functions), not 14"* ]]
	run -5 pt2onnx missing.pt -o x.onnx
	[ ! -e x.onnx ]
}

@test "pt2onnx: runs a stage by name, and lists them" {
	run -0 pt2onnx --help
	[[ "$output" == *"fold"* && "$output" == *"emit"* ]]
	run -0 pt2onnx emit --version
	[[ "$output" == *"emit (pt2onnx)"* ]]
	run -2 pt2onnx nosuchstage
}

@test "make install: stages in libexec, only the wrapper in bin" {
	# the build tree under test (plain or ASan): nothing is rebuilt
	local o="$ROOT_DIR/build"
	[ -n "${PT2ONNX_UNITDIR:-}" ] && o=$(dirname "$PT2ONNX_UNITDIR")
	run -0 make -C "$ROOT_DIR" --no-print-directory -q all \
		BINDIR="$BINDIR" O="$o"
	run -0 make -C "$ROOT_DIR" --no-print-directory install \
		BINDIR="$BINDIR" O="$o" PREFIX="$WORK/inst"
	run -0 ls "$WORK/inst/bin"
	[ "$output" = pt2onnx ]
	[ -x "$WORK/inst/libexec/pt2onnx/fold" ]
	[ -x "$WORK/inst/libexec/pt2onnx/script" ]
	run -0 "$WORK/inst/bin/pt2onnx" "$EX/cnn.pt" -i "x=f32[2,3,8,8]" -o cnn.onnx
	run -0 "$WORK/inst/bin/pt2onnx" check cnn.onnx
}

@test "pt2onnx: a model whose code holds tensor constants (constants/ in the archive) exports from another folder into a third; ONNX Runtime matches torch" {
	need_torch
	need_ort
	mkdir arch run out
	"$PYTHON" - <<'PY'
import numpy as np, torch
class K(torch.nn.Module):
    def forward(self, x):
        # tensors made in forward: the traced archive's constants/
        return x * torch.tensor([1.5, -2.0, 3.0]) + torch.arange(3.0)
x = torch.randn(2, 3)
torch.jit.trace(K(), x).save("arch/k.pt")
np.save("arch/x.npy", x.numpy())
np.save("want.npy", K()(x).numpy())
PY
	unzip -l arch/k.pt | grep -q '/constants/'
	for p in trace script; do
		(cd run && run -0 pt2onnx "$WORK/arch/k.pt" --$p --input "$([ $p = trace ] && echo "$WORK/arch/x.npy" || echo 'x=f32[2,3]')" -o "$WORK/out/k_$p.onnx")
		run -0 ort_run "out/k_$p.onnx" "got_$p" "x=arch/x.npy"
		"$PYTHON" -c 'import glob, numpy as np, sys
g = np.load(glob.glob(sys.argv[1] + "/*.npy")[0]); w = np.load("want.npy")
assert np.allclose(g, w, rtol=1e-6, atol=1e-6), (g, w)' "got_$p"
	done
}

#!/usr/bin/env bats
# 400-lower.bats - lower against its oracles: each aten-level model
# (tests/data/lower-*.ir) is lowered at several opsets, written by emit,
# passes onnx.checker (full_check) and runs in ONNX Runtime to the outputs
# torch computes for the same model and weights (tests/lower/make_lower.py;
# max relative error 1e-4, same dtype).  Then the error statuses.
# bats file_tags=tier:standard

load helper

setup_file() {
	need_torch torchvision || return 0
	need_ort || return 0
}

DATA="$TESTS_DIR/data"

lower() { tool lower "$@"; }

# make MODEL: weights, inputs and torch's outputs into the test directory
make_model() {
	fixture_run "$TESTS_DIR/lower/make_lower.py" "$1" "$DATA/lower-$1.ir"
}

# convert MODEL OPSET: lower | emit into MODEL-OPSET.onnx, checked
convert() {
	set -o pipefail
	lower --opset "$2" "$DATA/lower-$1.ir" | emit -o "$1-$2.onnx" || return 1
	onnx_checker "$1-$2.onnx"
}

# same GOT WANT: same dtype and values within 1e-4
same() {
	"$PYTHON" -c "import numpy as np, sys
g, w = np.load('$1'), np.load('$2')
sys.exit(0 if g.dtype == w.dtype else 'dtype %s != %s' % (g.dtype, w.dtype))" || return 1
	"$PYTHON" "$ORACLE_DIR/reference.py" compare "$1" "$2" 1e-4
}

# same_all OUTDIR NAME...: same for OUTDIR/NAME.npy vs want_NAME.npy, in
# one process
same_all() {
	"$PYTHON" - "$@" <<'PY'
import sys
import numpy as np
out, bad = sys.argv[1], 0
for k in sys.argv[2:]:
    g, w = np.load(f"{out}/{k}.npy"), np.load(f"want_{k}.npy")
    if g.dtype != w.dtype or g.shape != w.shape:
        print(f"{k}: {g.dtype}{g.shape} != {w.dtype}{w.shape}"); bad = 1
        continue
    if g.size == 0:
        continue
    scale = max(float(np.max(np.abs(w.astype(np.float64)))), 1e-30)
    err = float(np.max(np.abs(g.astype(np.float64) - w))) / scale
    if not err <= 1e-4:
        print(f"{k}: max relative error {err:.3g} > 1e-4"); bad = 1
sys.exit(bad)
PY
}

@test "lower: small CNN (conv, batch_norm, relu, pools, flatten, linear) at opsets 9 13 17" {
	make_model cnn
	for o in 9 13 17; do
		run -0 convert cnn $o
		run -0 ort_run cnn-$o.onnx out-$o x=x.npy
		run -0 same out-$o/y.npy want_y.npy
	done
}

@test "lower: MLP (linear 3-d, gelu erf/tanh, silu, layer_norm, softmax) at opsets 9 13 17" {
	make_model mlp
	for o in 9 13 17; do
		run -0 convert mlp $o
		run -0 ort_run mlp-$o.onnx out-$o x=x.npy
		run -0 same out-$o/y.npy want_y.npy
	done
	run -0 lower --opset 17 -S "$DATA/lower-mlp.ir"
	[[ "$output" == *"onnx::LayerNormalization[axis=-1, epsilon=1e-05]"* ]]
	run -0 lower --opset 13 -S "$DATA/lower-mlp.ir"
	[[ "$output" != *LayerNormalization* ]]
	[[ "$output" == *"onnx::ReduceMean"* ]]
}

@test "lower: attention (chunk+ListUnpack, dynamic view, masked_fill, softmax) at opsets 9 13 17" {
	make_model attn
	for o in 9 13 17; do
		run -0 convert attn $o
		run -0 ort_run attn-$o.onnx out-$o x=x.npy mask=mask.npy
		run -0 same out-$o/y.npy want_y.npy
	done
}

@test "lower: types stay as precise as the input's (symbols carried through view)" {
	run -0 lower --opset 13 -S "$DATA/lower-attn.ir"
	[[ "$output" == *"%q1 : Float(batch, 4, 2, 4) = onnx::Reshape"* ]]
	[[ "$output" == *"%s2 : Float(batch, 2, 4, 4) = onnx::Where"* ]]
	[[ "$output" == *"%o3 : Float(batch, 4, 8) = onnx::Reshape"* ]]
	run -0 lower --opset 9 -S "$DATA/lower-cnn.ir"
	[[ "$output" == *"%p1 : Float(batch, 4, 4, 4) = onnx::MaxPool"* ]]
	[[ "$output" != *prim::* ]]
	[[ "$output" != *aten::* ]]
}

@test "lower: prim::If becomes onnx::If, both branches, at opsets 9 13 17" {
	make_model if
	for o in 9 13 17; do
		run -0 convert if $o
		for cv in 0 1; do
			run -0 ort_run if-$o.onnx out-$o-$cv x=x.npy c=c$cv.npy
			run -0 same out-$o-$cv/z.npy want_z$cv.npy
		done
	done
}

@test "lower: prim::Loop (for and while, carried int) becomes onnx::Loop at opsets 9 13 17" {
	make_model loop
	for o in 9 13 17; do
		run -0 convert loop $o
		run -0 ort_run loop-$o.onnx out-$o x=x.npy
		run -0 same out-$o/acc2.npy want_acc2.npy
	done
}

@test "lower: implicit type promotion as torch (y + 3, int + 2.5, Long * Bool, int / int)" {
	make_model promote
	for o in 9 13 17; do
		run -0 convert promote $o
		run -0 ort_run promote-$o.onnx out-$o a=a.npy b=b.npy l=l.npy m=m.npy
		run -0 same_all out-$o y1 y2 y3 y4 y5 y6 y7 y8
	done
	# the FAQ's y + 3: the 3 is a Float constant, no Cast of y
	run -0 lower --opset 13 -S "$DATA/lower-promote.ir"
	[[ "$output" == *"onnx::Constant[value=Float(){3.}]"* ]]
}

@test "lower: tril/triu below opset 14 (mask) and from 14 (Trilu)" {
	make_model tril
	for o in 9 13 14 17; do
		run -0 convert tril $o
		run -0 ort_run tril-$o.onnx out-$o x=x.npy
		run -0 same out-$o/y1.npy want_y1.npy
		run -0 same out-$o/y2.npy want_y2.npy
	done
	run -0 lower --opset 9 -S "$DATA/lower-tril.ir"
	[[ "$output" == *onnx::Where* && "$output" != *Trilu* ]]
	run -0 lower --opset 14 -S "$DATA/lower-tril.ir"
	[[ "$output" == *onnx::Trilu* ]]
}

@test "lower: tril on dynamic dims: a mask from NonZero ranges at 9 and 10, Range at 11 and 13, Trilu at 14" {
	make_model tril-dyn
	for o in 9 10 11 13 14; do
		run -0 convert tril-dyn $o
		run -0 ort_run tril-dyn-$o.onnx out-$o x=x.npy
		run -0 same out-$o/y.npy want_y.npy
	done
	run -0 lower --opset 9 -S "$DATA/lower-tril-dyn.ir"
	[[ "$output" == *onnx::NonZero* && "$output" != *onnx::Range* ]]
}

@test "lower: onnx mode lists every unconvertible op at once, exit 4, no output" {
	run -4 lower --opset 13 "$DATA/lower-unknown.ir" -o out.ir
	[ "${#lines[@]}" -eq 2 ]
	[[ "${lines[0]}" == "lower: "*"aten::frobnicate at Net/Frob[f] (code/__torch__.py:7:8) has no symbolic for opset 13" ]]
	[[ "${lines[1]}" == *"aten::twiddle has no symbolic for opset 13" ]]
	[ ! -e out.ir ]
}

@test "lower: onnx_aten_fallback, onnx_aten and onnx_fallthrough" {
	run -0 lower --operator-export-type onnx_aten_fallback -S "$DATA/lower-unknown.ir"
	[[ "$output" == *"onnx::Relu"* ]]
	[[ "$output" == *'org.pytorch.aten::ATen[operator="frobnicate"'* ]]
	[[ "$output" == *'opset "org.pytorch.aten" 1'* ]]
	run -0 lower --operator-export-type ONNX_ATEN -S "$DATA/lower-unknown.ir"
	[[ "$output" == *'org.pytorch.aten::ATen[operator="relu"'* ]]
	run -0 lower --operator-export-type onnx_fallthrough -S "$DATA/lower-unknown.ir"
	[[ "$output" == *"org.pytorch.aten::frobnicate(%a)"* ]]
}

@test "lower: malformed input exits 3, ONNX-level input exits 3" {
	printf 'ir 1.0 aten\ngraph g(%%x : Float(2)):\n  %%y : Float(2) = aten::relu(%%z)\n  return (%%y)\n' > bad.ir
	run -3 lower bad.ir
	[[ "$output" == *"bad.ir:3"* ]]
	run -3 lower "$DATA/emit-if.ir"
	[[ "$output" == *"ONNX-level"* ]]
	# an aten node missing schema arguments is malformed, not unsupported
	printf 'ir 1.0 aten\ngraph g(%%x : Float(2, 3)):\n  %%y : Float(2, 3) = aten::softmax(%%x)\n  return (%%y)\n' > short.ir
	run -3 lower short.ir
	[[ "$output" == *"aten::softmax: 1 inputs, which no overload of its schema takes"* ]]
}

@test "lower: bad options exit 2" {
	run -2 lower --opset 99 "$DATA/lower-cnn.ir"
	[[ "$output" == *"--opset '99'"* ]]
	run -2 lower --opset 6 "$DATA/lower-cnn.ir"
	run -2 lower --operator-export-type bogus "$DATA/lower-cnn.ir"
	run -2 lower --training sometimes "$DATA/lower-cnn.ir"
	run -2 lower --no-such-option
	run -2 lower a.ir b.ir
}

@test "lower: reads stdin, binary and text alike; --list-ops" {
	set -o pipefail
	lower --opset 13 -S < "$DATA/lower-cnn.ir" > a.txt
	lower --opset 13 "$DATA/lower-cnn.ir" -o a.bin
	run -3 lower --opset 13 a.bin   # already ONNX level
	run -0 lower --list-ops
	[[ "$output" == *"aten::conv2d: 7 8 9 10 11 12 13 14 15 16 17"* ]]
	[[ "$output" == *"aten::gather: 11 12 13 14 15 16 17"* ]]
	[ "$(grep -c . a.txt)" -gt 5 ]
}

@test "lower: 62 results of 61 more operators match torch at opsets 9 11 13 14 17" {
	make_model ops
	for o in 9 11 13 14 17; do
		run -0 convert ops $o
		run -0 ort_run ops-$o.onnx out-$o x=x.npy v=v.npy e=e.npy idx=idx.npy
		run -0 same_all out-$o $(cat outputs.txt)
	done
}

@test "lower: script | lower | emit on torchvision models matches torch at opsets 9 13 17" {
	[ -x "$BINDIR/script" ] || skip "script is not built"
	set -o pipefail
	for m in mobilenet_v3_small shufflenet_v2_x0_5; do
		fixture_run "$TESTS_DIR/lower/make_lower.py" tv $m 2>/dev/null
		tool script $m.pt -i 'x=f32[1,3,96,96]' -o $m.air
		for o in 9 13 17; do
			lower --opset $o $m.air | emit -o $m-$o.onnx
			run -0 onnx_checker $m-$o.onnx
			rm -rf out
			run -0 ort_run $m-$o.onnx out x=x.npy
			got=(out/*.npy)
			run -0 same "${got[0]}" want_y.npy
		done
	done
}

@test "lower: opset-11 operators (bilinear, gather, cumsum, dynamic arange/expand/zeros) at 11 13 17" {
	make_model ops11
	for o in 11 13 17; do
		run -0 convert ops11 $o
		run -0 ort_run ops11-$o.onnx out-$o x=x.npy v=v.npy gi=gi.npy s=s.npy
		run -0 same_all out-$o $(cat outputs.txt)
	done
	run -4 lower --opset 9 "$DATA/lower-ops11.ir"
	# bilinear below 11: torch's interpolation matrices (412-lower-sweep)
	[[ "$output" != *aten::upsample_bilinear2d* ]]
	[[ "$output" == *"aten::gather has no symbolic for opset 9"* ]]
}

@test "lower: remainder, var/std, flip, norms, einsum, _scaled_dot_product_attention at 12 13 17" {
	make_model ops12
	# einsum below 12: the batched matrix product as MatMul
	for o in 11 12 13 17; do
		run -0 convert ops12 $o
		run -0 ort_run ops12-$o.onnx out-$o v=v.npy q=q.npy k=k.npy val=val.npy m=m.npy qc=qc.npy
		run -0 same_all out-$o $(cat outputs.txt)
	done
}

@test "lower: --training: eval drops dropout, train keeps it (opset 12+) and training-mode batch_norm" {
	run -0 lower --opset 13 -S "$DATA/lower-attn.ir"
	[[ "$output" != *onnx::Dropout* ]]
	run -0 lower --opset 13 --training train -S "$DATA/lower-attn.ir"
	[[ "$output" == *"onnx::Dropout"* ]]
	run -4 lower --opset 11 --training train "$DATA/lower-attn.ir"
	[[ "$output" == *"training-mode dropout needs opset 12"* ]]
	# torch's training-mode BatchNormalization (470-lower-training.bats
	# compares it with torch's export): 5 outputs below opset 14
	run -0 lower --opset 13 --training train -S "$DATA/lower-cnn.ir"
	[[ "$output" == *"= onnx::BatchNormalization[epsilon="* ]]
	[ "$(grep -c '^  %[^=]*, %[^=]*, %[^=]*, %[^=]*, %[^=]* = onnx::BatchNormalization' <<<"$output")" = 1 ]
	run -0 lower --opset 13 --training preserve -S "$DATA/lower-cnn.ir"
}

@test "lower: zeros_like, ones_like, full_like of a tensor of unknown dtype: CastLike from opset 15 (ONNX Runtime against torch, as Float and as Long), refused below" {
	need_ort
	run -0 lower --opset 15 -S "$DATA/lower-like-unknown.ir" -o like.txt
	grep -q 'onnx::CastLike' like.txt
	"$PYTHON" - <<'PY'
import numpy as np, torch
for dt, name in ((torch.float32, "f"), (torch.int64, "l")):
    x = torch.arange(6, dtype=dt).reshape(2, 3) - 2
    np.save(f"x_{name}.npy", x.numpy())
    for k, t in enumerate((torch.zeros_like(x), torch.ones_like(x), torch.full_like(x, 3))):
        np.save(f"want_{name}_{k}.npy", t.numpy())
PY
	for t in Float:f Long:l; do
		# the input (and the outputs) given the dtype the IR did not know
		sed "s/ : Tensor/ : ${t%%:*}(2, 3)/g" like.txt > like_${t#*:}.txt
		run -0 emit like_${t#*:}.txt -o like_${t#*:}.onnx
		run -0 ort_run like_${t#*:}.onnx got_${t#*:} x=x_${t#*:}.npy
		"$PYTHON" - "${t#*:}" <<'PY'
import numpy as np, sys
n = sys.argv[1]
for k, o in enumerate("abc"):
    got, want = np.load(f"got_{n}/{o}.npy"), np.load(f"want_{n}_{k}.npy")
    assert got.dtype == want.dtype and got.shape == want.shape and (got == want).all(), (n, o, got, want)
PY
	done
	run -4 lower --opset 14 "$DATA/lower-like-unknown.ir" -o /dev/null
	[ "${#lines[@]}" -eq 3 ]
	[ "${lines[0]}" = "lower: $DATA/lower-like-unknown.ir: aten::zeros_like has no symbolic for opset 14: the input's dtype is not known (CastLike: opset 15)" ]
}

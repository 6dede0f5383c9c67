#!/usr/bin/env bats
# 502-fold-numeric.bats - fold against ONNX Runtime: every folded graph
# computes what the unfolded one computes (ORT on both, same inputs, 1e-5)
# with fewer nodes.  The unfolded model is the oracle: ORT evaluates the
# very nodes fold evaluated on the CPU.
# bats file_tags=tier:standard

load helper

setup_file() {
	need_torch || return 0
	need_ort || return 0
}
load fold_helper

@test "fold numeric: every op family at opset 13 (Transpose, Reshape, Cast, Div, Slice, Gather, Where, Range, Expand, ReduceProd, MatMul, Shape...)" {
	reference input x.npy 1 float32 2,3
	run -0 same_as_unfolded "$DATA/fold-ops.ir" x=x.npy
	[ "${lines[-1]}" = "nodes: 68 -> 10" ]
	# every output but the returned nodes' own work was folded
	run -0 fold -v -S "$DATA/fold-ops.ir" -o /dev/null
	[[ "$output" == *"43 nodes folded"* ]]
}

@test "fold numeric: attribute forms at opset 9 (Unsqueeze, Squeeze, Slice)" {
	reference input x.npy 2 float32 2,3
	run -0 same_as_unfolded "$DATA/fold-legacy.ir" x=x.npy
	[ "${lines[-1]}" = "nodes: 8 -> 2" ]
}

@test "fold numeric: Conv + BatchNormalization fused (bias, no bias, grouped); a Conv used twice keeps its BN" {
	reference input x.npy 3 float32 1,3,6,6
	run -0 same_as_unfolded "$DATA/fold-bn.ir" x=x.npy
	[ "${lines[-1]}" = "nodes: 8 -> 6" ]
	run -0 fold -S "$DATA/fold-bn.ir"
	[ "$(grep -c 'onnx::BatchNormalization' <<<"$output")" = 1 ]
	[[ "$output" == *"onnx::Conv[group=2, kernel_shape=[1, 1]](%c, %onnx::Conv_2, %onnx::Conv_3)"* ]]
}

@test "fold numeric: Transpose of a strided weight by reference is a reference (nothing read); a strided weight computed on is read; one not computed on stays a reference" {
	"$PYTHON" -c "import numpy as np; np.arange(12, dtype=np.float32).tofile('fold-ref.bin')"
	cp "$DATA/fold-ref.ir" .
	reference input x.npy 4 float32 3,4
	run -0 same_as_unfolded fold-ref.ir x=x.npy
	run -0 fold -S fold-ref.ir
	[[ "$output" == *'%keep : Float(4) = weight("fold-ref.bin", offset=16, length=16)'* ]]
	# the transpose of the view [4, 3] strides [1, 4] is the file as it is
	[[ "$output" == *'%w : Float(3, 4) = weight("fold-ref.bin", offset=0, length=48)'* ]]
	# Neg computes on the strided view: read through the strides
	sed 's/onnx::Transpose\[perm=\[1, 0\]\](%wt)/onnx::Neg(%wt)/; s/%w : Float(3, 4)/%w : Float(4, 3)/; s/%x : Float(3, 4)/%x : Float(4, 3)/; s/Float(3, 4) = onnx::Add/Float(4, 3) = onnx::Add/; s/%y : Float(3, 4) = onnx::Mul(%a, %keep)/%y : Float(4, 3) = onnx::Add(%a, %x)/' fold-ref.ir > neg.ir
	reference input x43.npy 4 float32 4,3
	run -0 same_as_unfolded neg.ir x=x43.npy
	run -0 fold -S neg.ir
	# ...and folded inline (its values: ORT agreed with the unfolded graph)
	[[ "$output" == *'%w : Float(4, 3) = {-0., '* ]]
}

@test "fold numeric: a dynamic batch stays dynamic; a fixed dim of the same shape folds" {
	cat > dyn.ir <<-'EOF'
	ir 1.0 onnx
	opset "" 13
	graph dyn(%x : Float(batch, 3, 2)):
	  %s : Long(3) = onnx::Shape(%x)
	  %i0 : Long(1) = onnx::Constant[value=Long(1){0}]()
	  %i1 : Long(1) = onnx::Constant[value=Long(1){1}]()
	  %i2 : Long(1) = onnx::Constant[value=Long(1){2}]()
	  %b : Long(1) = onnx::Gather(%s, %i0)
	  %c : Long(1) = onnx::Gather(%s, %i1)
	  %d : Long(1) = onnx::Gather(%s, %i2)
	  %cd : Long(1) = onnx::Mul(%c, %d)
	  %shape : Long(2) = onnx::Concat[axis=0](%b, %cd)
	  %y : Float(batch, 6) = onnx::Reshape(%x, %shape)
	  return (%y)
	EOF
	reference input x.npy 5 float32 5,3,2
	run -0 same_as_unfolded dyn.ir x=x.npy
	[ "${lines[-1]}" = "nodes: 10 -> 5" ]
	run -0 fold -S dyn.ir
	[[ "$output" == *"%cd : Long(1) = {6}"* ]]
	[[ "$output" == *"%b : Long(1) = onnx::Gather(%s, %i0)"* ]]
	# the same graph run on another batch size
	reference input x7.npy 6 float32 7,3,2
	run -0 ort_run folded.onnx got7 x=x7.npy
	run -0 ort_run unfolded.onnx want7 x=x7.npy
	run -0 reference compare got7/y.npy want7/y.npy 1e-6
}

# lower's sample models (tests/data/lower-*.ir, weights and torch's own
# outputs from tests/lower/make_lower.py): lower | fold | emit computes what
# torch computes (1e-4), and what the unfolded model computes (1e-5)
pipeline_vs_torch() {
	local m=$1 f ins=()
	fixture_run "$TESTS_DIR/lower/make_lower.py" "$m" "$DATA/lower-$m.ir" >/dev/null
	tool lower --opset 13 "$DATA/lower-$m.ir" > lowered.bin
	for f in *.npy; do
		case $f in want_*) ;; *) ins+=("${f%.npy}=$f") ;; esac
	done
	same_as_unfolded lowered.bin "${ins[@]}" || return 1
	for f in want_*.npy; do
		reference compare "got/${f#want_}" "$f" 1e-4 || return 1
	done
}

@test "fold numeric: lower's CNN (BatchNorm fused), MLP, attention and Loop: lower | fold | emit matches torch" {
	[ -x "$BINDIR/lower" ] || skip "lower is not built"
	for m in cnn mlp attn loop; do
		mkdir "$m"
		(cd "$m" && pipeline_vs_torch "$m") || { echo "model $m"; return 1; }
	done
	cd cnn
	run -0 fold -S lowered.bin
	[[ "$output" != *"onnx::BatchNormalization"* ]]
}

@test "fold numeric: If with a constant condition is replaced by the branch taken" {
	reference input x.npy 7 float32 2
	run -0 same_as_unfolded "$DATA/fold-if.ir" x=x.npy
	[ "${lines[-1]}" = "nodes: 10 -> 3" ]
	run -0 fold -S "$DATA/fold-if.ir"
	[[ "$output" != *"onnx::If"* ]]
	# the Identity that kept %z's name went: Relu makes %z itself
	[[ "$output" == *"%z : Float(2) = onnx::Relu(%m)"* ]]
	[[ "$output" == *"%v : Float(2) = onnx::Add(%z, %x)"* ]]
}

@test "fold numeric: MatMul with broadcast batch dims and 1-D operands, float and int" {
	cat > mm.ir <<-'EOF'
	ir 1.0 onnx
	opset "" 13
	graph mm(%x : Float(2, 3, 2, 2),
	      %a : Float(2, 1, 2, 3) = {1., -2., 3., 0.5, 4., -1., 2., 2., -3., 1., 0., 1.5},
	      %b : Float(3, 3, 2) = {1., 2., 3., 4., 5., 6., -1., 0., 1., -2., 0.25, 3., 2., 1., 0., -1., 1., 1.},
	      %v : Float(3) = {1., -1., 2.},
	      %ia : Long(2, 3) = {1, 2, 3, 4, 5, 6},
	      %ib : Long(3) = {7, -8, 9}):
	  %p : Float(2, 3, 2, 2) = onnx::MatMul(%a, %b)
	  %q : Float(3, 2) = onnx::MatMul(%v, %b)
	  %iq : Long(2) = onnx::MatMul(%ia, %ib)
	  %iqf : Float(2) = onnx::Cast[to=1](%iq)
	  %ax : Long(1) = onnx::Constant[value=Long(1){1}]()
	  %qu : Float(3, 1, 2) = onnx::Unsqueeze(%q, %ax)
	  %y0 : Float(2, 3, 2, 2) = onnx::Add(%x, %p)
	  %y1 : Float(2, 3, 2, 2) = onnx::Mul(%y0, %qu)
	  %y : Float(2, 3, 2, 2) = onnx::Add(%y1, %iqf)
	  return (%y)
	EOF
	reference input x.npy 8 float32 2,3,2,2
	run -0 same_as_unfolded mm.ir x=x.npy
	[ "${lines[-1]}" = "nodes: 9 -> 3" ]
	run -0 fold -S mm.ir
	[[ "$output" == *"%iqf : Float(2) = {18., 42.}"* ]]
}

#!/usr/bin/env bats
# 500-fold.bats - the fold stage on text IR: golden outputs for dead code,
# de-duplication, Shape of static and dynamic shapes, what must not fold;
# options, streams and exact exit statuses.  Numeric checks against ONNX
# Runtime are in 502-fold-numeric.bats.
# bats file_tags=tier:standard

load helper

setup_file() {
	need_ort || return 0
}
load fold_helper

@test "fold: dead nodes, unused and duplicate initializers (references not read), subgraphs, custom ops kept" {
	run -0 fold -S "$DATA/fold-dce.ir"
	diff -u "$DATA/fold-dce.out" <(printf '%s\n' "$output")
}

@test "fold: Shape and Size fold only for static shapes, Gather of a Shape only for fixed dims (never a dynamic axis)" {
	run -0 fold -S "$DATA/fold-shape.ir"
	diff -u "$DATA/fold-shape.out" <(printf '%s\n' "$output")
}

@test "fold: division by zero, casts and indices out of range, returned values, disagreeing types stay nodes" {
	run -0 fold --no-fold -S "$DATA/fold-edge.ir" -o want.ir
	run -0 fold -S "$DATA/fold-edge.ir" -o got.ir
	# a returned value that folds stays a node: a Constant, as torch
	grep -q '%ret : Long(2) = onnx::Constant\[value=Long(2){-6, -7}\]()' got.ir
	diff -u <(grep -v '%ret :' want.ir) <(grep -v '%ret :' got.ir)
	grep -q 'onnx::Div(%i, %z)' got.ir
}

@test "fold: --no-fold passes the graph through in canonical form; binary in, binary out" {
	run -0 fold --no-fold -S "$DATA/fold-ops.ir" -o a.ir
	grep -v '^ *#' "$DATA/fold-ops.ir" > b.ir
	diff -u b.ir a.ir
	fold --no-fold "$DATA/fold-ops.ir" > a.bin
	fold --no-fold a.bin -o b.bin
	cmp a.bin b.bin
	fold a.bin | fold -S > c.ir
	run -0 fold -S "$DATA/fold-ops.ir"
	diff -u <(printf '%s\n' "$output") c.ir
}

@test "fold: reads standard input and '-', writes standard output; -o gives the same bytes" {
	fold < "$DATA/fold-dce.ir" > a.bin
	fold - -o b.bin < "$DATA/fold-dce.ir"
	fold "$DATA/fold-dce.ir" -o c.bin
	cmp a.bin b.bin
	cmp a.bin c.bin
}

@test "fold: each pass can be turned off" {
	run -0 fold -S --no-bn-fold "$DATA/fold-bn.ir"
	[ "$(grep -c 'onnx::BatchNormalization' <<<"$output")" = 3 ]
	run -0 fold -S --no-constant-folding "$DATA/fold-shape.ir"
	[[ "$output" == *"%sx : Long(3) = onnx::Shape(%x)"* ]]
	run -0 fold -S --no-dce "$DATA/fold-dce.ir"
	[[ "$output" == *"%dead2 : Float(batch, 3) = onnx::Relu(%dead1)"* ]]
	run -0 fold -S --no-dedup "$DATA/fold-dce.ir"
	[[ "$output" == *"onnx::Add(%q3, %r2)"* ]]
}

@test "fold: constant folding needs opset 9 (torch's rule); other passes still run" {
	sed 's/^opset "" 9$/opset "" 8/' "$DATA/fold-legacy.ir" > old.ir
	run -0 --separate-stderr fold -S old.ir
	[ "$stderr" = "fold: warning: constant folding needs opset 9 or later (the graph imports 8): not applied" ]
	[[ "$output" == *"onnx::Unsqueeze[axes=[0]](%v)"* ]]
}

@test "fold: a subgraph folds against outer constants; the result becomes the subgraph's initializer" {
	cat > sub.ir <<-'EOF'
	ir 1.0 onnx
	opset "" 13
	graph sub(%x : Float(2), %c : Bool(),
	      %a : Float(2) = {1., 4.}):
	  %y : Float(2) = onnx::If(%c)
	    then_branch():
	      %s : Float(2) = onnx::Sqrt(%a)
	      %t : Float(2) = onnx::Mul(%x, %s)
	      -> (%t)
	    else_branch():
	      -> (%x)
	  return (%y)
	EOF
	run -0 fold -S sub.ir
	[[ "$output" == *"then_branch(%s : Float(2) = {1., 2.}):"* ]]
	[[ "$output" != *"%a : Float(2)"* ]]
	run -0 emit sub.ir -o un.onnx
	fold sub.ir | emit -o fo.onnx
	"$PYTHON" -c "import numpy as np; np.save('x.npy', np.array([3., -5.], np.float32)); np.save('c.npy', np.array(True))"
	run -0 ort_run un.onnx want x=x.npy c=c.npy
	run -0 ort_run fo.onnx got x=x.npy c=c.npy
	run -0 reference compare got/y.npy want/y.npy 1e-6
}

@test "fold: a weight file that a fold must read but cannot: status 3, no output file" {
	cat > miss.ir <<-'EOF'
	ir 1.0 onnx
	opset "" 13
	graph miss(%x : Float(2),
	      %w : Float(2) = weight("nowhere.bin", offset=0, length=8)):
	  %n : Float(2) = onnx::Neg(%w)
	  %y : Float(2) = onnx::Add(%x, %n)
	  return (%y)
	EOF
	run -3 --separate-stderr fold miss.ir -o out.bin
	[[ "$stderr" == "fold: weight 'w': cannot open weight file 'nowhere.bin': "* ]]
	[ ! -e out.bin ]
	"$PYTHON" -c "open('short.bin', 'wb').write(b'1234')"
	sed 's/nowhere.bin/short.bin/' miss.ir > short.ir
	run -3 --separate-stderr fold short.ir -o out.bin
	[[ "$stderr" == *"weight file 'short.bin' is shorter than"* ]]
	[ ! -e out.bin ]
}

@test "fold: malformed input is status 3 with one line naming the input" {
	printf 'ir 1.0 onnx\nopset "" 13\ngraph g(%%x : Float(2)):\n  %%y : Float(2) = onnx::Neg(%%z)\n  return (%%y)\n' > bad.ir
	run -3 --separate-stderr fold bad.ir
	[ "${#stderr_lines[@]}" = 1 ]
	[[ "$stderr" == "fold: bad.ir:4: "* ]]
	printf '\x82\xa1r' > trunc.bin
	run -3 fold trunc.bin -o out.bin
	[ ! -e out.bin ]
	run -3 fold < /dev/null
}

@test "fold: aten-level input is unsupported (status 4)" {
	printf 'ir 1.0 aten\ngraph g(%%x : Float(2)):\n  %%y : Float(2) = aten::neg(%%x)\n  return (%%y)\n' > aten.ir
	run -4 --separate-stderr fold aten.ir -o out.bin
	[[ "$stderr" == "fold: "*"aten-level"* ]]
	[ ! -e out.bin ]
}

@test "fold: bad options are status 2; missing input file is 5; --help and --version are 0" {
	run -2 fold --frobnicate
	run -2 fold a.ir b.ir
	run -5 fold does-not-exist.ir
	run -0 fold --help
	[[ "$output" == "usage: fold "* ]]
	run -0 fold --version
	[[ "$output" == "fold (pt2onnx) "* ]]
}

@test "fold: a failing write leaves no output file (PT2ONNX_FAIL_WRITE)" {
	PT2ONNX_FAIL_WRITE=1 run -5 fold "$DATA/fold-ops.ir" -o out.bin
	[ ! -e out.bin ]
	run -0 ls -A
	[ -z "$output" ]
}

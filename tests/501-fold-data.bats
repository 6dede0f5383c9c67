#!/usr/bin/env bats
# 501-fold-data.bats - fold on weights by reference, as real archives give
# them: data movement of a reference stays a reference (nothing read), and
# with --data-file the weights fold computes go to a side file instead of
# the stream.  Oracles: ONNX Runtime on the unfolded graph, and the inline
# fold's model, byte for byte.
# bats file_tags=tier:standard

load helper
load fold_helper

# data.ir and w.bin: two Conv + BatchNormalization with the same weights
# (their fused weights are equal: de-duplication), a Transpose, a Flatten
# and a 3-D float16 Transpose of weights by reference; numpy's values.
# data_inline.ir: the same with the Conv weight inline (fold computes the
# fused weight itself; by reference it is a scaled view that emit
# computes).
make_data_ir() {
	"$PYTHON" - <<-'EOF'
	import numpy as np
	r = np.random.default_rng(11)
	parts, off = [], 0
	def put(a):
	    global off
	    parts.append(a.tobytes())
	    o = off
	    off += a.nbytes
	    return o, a.nbytes
	cw = put(r.standard_normal((128, 64, 3, 3)).astype(np.float32))
	g = put(r.uniform(0.5, 1.5, 128).astype(np.float32))
	b = put(r.standard_normal(128).astype(np.float32))
	m = put(r.standard_normal(128).astype(np.float32) * 0.1)
	v = put(r.uniform(0.5, 1.5, 128).astype(np.float32))
	mat = put(r.standard_normal((48, 64)).astype(np.float32))
	t3 = put(r.standard_normal((4, 5, 6)).astype(np.float16))
	open("w.bin", "wb").write(b"".join(parts))
	w = lambda p: f'weight("w.bin", offset={p[0]}, length={p[1]})'
	cwhex = 'hex"' + parts[0].hex() + '"'
	for name, cwdata in (("data.ir", w(cw)), ("data_inline.ir", cwhex)):
	  open(name, "w").write(f"""ir 1.0 onnx
	opset "" 13
	graph data(%x : Float(1, 64, 8, 8), %z : Float(1, 64, 8, 8), %v : Float(2, 64),
	      %h : Float(6, 4, 5), %q : Float(1, 3072),
	      %cw : Float(128, 64, 3, 3) = {cwdata},
	      %g : Float(128) = {w(g)}, %b : Float(128) = {w(b)},
	      %m : Float(128) = {w(m)}, %var : Float(128) = {w(v)},
	      %mat : Float(48, 64) = {w(mat)}, %t3 : Half(4, 5, 6) = {w(t3)}):
	  %a1 : Float(1, 128, 8, 8) = onnx::Conv[kernel_shape=[3, 3], pads=[1, 1, 1, 1]](%x, %cw)
	  %b1 : Float(1, 128, 8, 8) = onnx::BatchNormalization(%a1, %g, %b, %m, %var)
	  %a2 : Float(1, 128, 8, 8) = onnx::Conv[kernel_shape=[3, 3], pads=[1, 1, 1, 1]](%z, %cw)
	  %b2 : Float(1, 128, 8, 8) = onnx::BatchNormalization(%a2, %g, %b, %m, %var)
	  %y1 : Float(1, 128, 8, 8) = onnx::Add(%b1, %b2)
	  %mt : Float(64, 48) = onnx::Transpose[perm=[1, 0]](%mat)
	  %y2 : Float(2, 48) = onnx::MatMul(%v, %mt)
	  %tt : Half(6, 4, 5) = onnx::Transpose[perm=[2, 0, 1]](%t3)
	  %h16 : Half(6, 4, 5) = onnx::Cast[to=10](%h)
	  %s3 : Half(6, 4, 5) = onnx::Add(%h16, %tt)
	  %y3 : Float(6, 4, 5) = onnx::Cast[to=1](%s3)
	  %flat : Float(1, 3072) = onnx::Flatten[axis=0](%mat)
	  %y4 : Float(1, 3072) = onnx::Add(%q, %flat)
	  return (%y1, %y2, %y3, %y4)
	""".replace("\n\t", "\n"))
	EOF
	reference input x.npy 1 float32 1,64,8,8
	reference input z.npy 2 float32 1,64,8,8
	reference input v.npy 3 float32 2,64
	reference input h.npy 4 float32 6,4,5
	reference input q.npy 5 float32 1,3072
}

inputs=(x=x.npy z=z.npy v=v.npy h=h.npy q=q.npy)

@test "fold data: Transpose and Flatten of weights by reference stay references (strided views); ORT agrees with the unfolded graph" {
	need_ort
	make_data_ir
	run -0 same_as_unfolded data.ir "${inputs[@]}"
	run -0 fold -S data.ir
	[[ "$output" == *'%mt : Float(64, 48) = weight("w.bin", offset='*', length=12288, strides=[1, 64])'* ]]
	[[ "$output" == *'%flat : Float(1, 3072) = weight("w.bin", offset='*', length=12288)'* ]]
	[[ "$output" == *'%tt : Half(6, 4, 5) = weight("w.bin", offset='*', length=240, strides=[1, 30, 6])'* ]]
	# nothing of the views is read: fold succeeds with the file gone
	# (the BatchNorm fusion, which must read, is turned off)
	mv w.bin w.away
	run -0 fold --no-bn-fold data.ir -o /dev/null
}

@test "fold data: Slice of a weight by reference (and of a transposed view) reads only the bytes it spans; ORT agrees with the unfolded graph" {
	need_ort
	"$PYTHON" - <<-'EOF'
	import numpy as np
	np.random.default_rng(12).standard_normal((32, 32)).astype(np.float32).tofile("s.bin")
	open("sl.ir", "w").write("""ir 1.0 onnx
	opset "" 13
	graph sl(%p : Float(8, 12), %r : Float(32, 8),
	      %mk : Float(32, 32) = weight("s.bin", offset=0, length=4096)):
	  %st : Long(2) = onnx::Constant[value=Long(2){2, 4}]()
	  %en : Long(2) = onnx::Constant[value=Long(2){18, 28}]()
	  %ax : Long(2) = onnx::Constant[value=Long(2){0, 1}]()
	  %sp : Long(2) = onnx::Constant[value=Long(2){2, 2}]()
	  %s : Float(8, 12) = onnx::Slice(%mk, %st, %en, %ax, %sp)
	  %y : Float(8, 12) = onnx::Add(%p, %s)
	  %mt : Float(32, 32) = onnx::Transpose[perm=[1, 0]](%mk)
	  %s1 : Long(1) = onnx::Constant[value=Long(1){1}]()
	  %e1 : Long(1) = onnx::Constant[value=Long(1){9}]()
	  %a1 : Long(1) = onnx::Constant[value=Long(1){1}]()
	  %t : Float(32, 8) = onnx::Slice(%mt, %s1, %e1, %a1)
	  %z : Float(32, 8) = onnx::Add(%r, %t)
	  return (%y, %z)
	""".replace("\n\t", "\n"))
	EOF
	reference input p.npy 1 float32 8,12
	reference input r.npy 2 float32 32,8
	run -0 same_as_unfolded sl.ir p=p.npy r=r.npy
	# the slices span rows 1 to 16 of the 32: fold still folds both with
	# the file cut after element (16, 26), the last one they take
	truncate -s $(( (16 * 32 + 27) * 4 )) s.bin
	run -0 fold -S sl.ir
	[[ "$output" != *"onnx::Slice"* ]]
}

@test "fold data: --data-file holds the fused weights once (equal results share a block); the model is byte-identical to the inline fold's and to the scaled views'" {
	make_data_ir
	# inline, the fused weights are bins larger than the reader's chunk
	fold data_inline.ir | emit -o inline.onnx
	run -0 --separate-stderr fold -v --data-file side.data data_inline.ir -o folded.bin
	[[ "$stderr" == *"2 BatchNormalization fused"* ]]
	# one 128x64x3x3 float block: the second fusion's equal result shares it
	local n=$((128 * 64 * 3 * 3 * 4))
	[[ "$stderr" == *" $n bytes to the data file"* ]]
	# after fold's 64-byte header (lib/fold/fold.h FOLD_DATA_HEADER)
	[ "$(stat -c %s side.data)" = $((n + 64)) ]
	[ "$(head -c 20 side.data)" = "pt2onnx fold data 1" ]
	run -0 fold -S folded.bin
	[[ "$output" == *"weight(\"$PWD/side.data\", offset=64, length=$n)"* ]]
	[ "$(grep -c 'side.data' <<<"$output")" = 1 ]
	emit folded.bin -o side.onnx
	cmp inline.onnx side.onnx
	onnx_checker side.onnx
	# and through a pipe
	fold --data-file side2.data data_inline.ir | emit -o pipe.onnx
	cmp inline.onnx pipe.onnx
	# the weight by reference: one scaled view (the two equal ones
	# merged), nothing computed nor written by fold, emit's bytes the same
	run -0 --separate-stderr fold -v --data-file side3.data data.ir -o view.bin
	[[ "$stderr" == *"2 BatchNormalization fused"* ]]
	[ ! -e side3.data ]
	run -0 fold -S view.bin
	[ "$(grep -c 'weight("w.bin", offset=0, length=294912, scale=\[' <<<"$output")" = 1 ]
	emit view.bin -o view.onnx
	cmp inline.onnx view.onnx
}

@test "fold data: small results stay inline; no data file is made when nothing goes there" {
	run -0 fold --data-file none.data -S "$DATA/fold-bn.ir"
	[[ "$output" != *"none.data"* ]]
	[ ! -e none.data ]
	run -0 fold -S "$DATA/fold-bn.ir"
	diff <(fold --data-file none.data -S "$DATA/fold-bn.ir") <(printf '%s\n' "$output")
}

@test "fold data: failures leave neither the output nor the data file; an uncreatable data file is status 5" {
	make_data_ir
	run -5 --separate-stderr fold --data-file nodir/side.data data_inline.ir -o out.bin
	[[ "$stderr" == "fold: cannot create the data file 'nodir/side.data': "* ]]
	[ ! -e out.bin ]
	PT2ONNX_FAIL_WRITE=1 run -5 fold --data-file side.data data_inline.ir -o out.bin
	[ ! -e out.bin ]
	[ ! -e side.data ]
	# constant folding (after the fusions wrote) cannot read a weight
	sed -e 's/onnx::Flatten\[axis=0\](%mat)/onnx::Neg(%mat)/' \
	    -e 's/%mat : Float(48, 64) = weight("w.bin"/%mat : Float(48, 64) = weight("gone.bin"/' \
	    data_inline.ir > gone.ir
	run -3 --separate-stderr fold --data-file side.data gone.ir -o out.bin
	[[ "$stderr" == "fold: weight 'mat': cannot open weight file 'gone.bin': "* ]]
	[ ! -e out.bin ]
	[ ! -e side.data ]
	run -2 fold --data-file '' data.ir
}

#!/usr/bin/env bats
# 602-emit-external.bats - weights in an external data file: ONNX's layout
# (location/offset/length, data_location EXTERNAL), the side file's name,
# alignment, the automatic switch past the size limit, and atomicity: a
# failed write leaves neither the model nor its data file.
# bats file_tags=tier:standard

load helper

setup_file() {
	need_ort || return 0
}
load emit_helper

# ext.ir: four weights of 1 KiB and more (one over 1 MiB) and one smaller,
# all by reference into ext.bin; y_i = x_i * w_i, y3 = -w3, y5 = x5 + w5.
make_ext() {
	"$PYTHON" - <<-'EOF'
	import numpy as np
	sizes = {"w1": 300, "w2": 257, "w3": 1000, "w4": 262145, "w5": 10}
	rng = np.random.default_rng(11)
	off, lines, data = 0, [], b""
	for name, n in sizes.items():
	    w = rng.standard_normal(n).astype(np.float32)
	    np.save(name + ".npy", w)
	    lines.append(f'      %{name} : Float({n}) = weight("ext.bin", offset={off}, length={4 * n})')
	    data += w.tobytes()
	    off += 4 * n
	open("ext.bin", "wb").write(data)
	for name in ("x1", "x2", "x4", "x5"):
	    np.save(name + ".npy", rng.standard_normal(sizes["w" + name[1]]).astype(np.float32))
	open("ext.ir", "w").write('ir 1.0 onnx\nopset "" 13\n'
	    'graph ext(%x1 : Float(300), %x2 : Float(257), %x4 : Float(262145), %x5 : Float(10),\n'
	    + ",\n".join(lines) + "):\n"
	    "  %y1 : Float(300) = onnx::Mul(%x1, %w1)\n"
	    "  %y2 : Float(257) = onnx::Mul(%x2, %w2)\n"
	    "  %y3 : Float(1000) = onnx::Neg(%w3)\n"
	    "  %y4 : Float(262145) = onnx::Mul(%x4, %w4)\n"
	    "  %y5 : Float(10) = onnx::Add(%x5, %w5)\n"
	    "  return (%y1, %y2, %y3, %y4, %y5)\n")
	EOF
}

# runs ext.onnx (with its data wherever it says) and compares with numpy
run_ext() {
	run -0 ort_run "$1" out x1=x1.npy x2=x2.npy x4=x4.npy x5=x5.npy
	"$PYTHON" -c "import numpy as np
L = np.load
np.save('y1.npy', L('x1.npy') * L('w1.npy')); np.save('y2.npy', L('x2.npy') * L('w2.npy'))
np.save('y3.npy', -L('w3.npy')); np.save('y4.npy', L('x4.npy') * L('w4.npy'))
np.save('y5.npy', L('x5.npy') + L('w5.npy'))"
	for i in 1 2 3 4 5; do
		run -0 reference compare out/y$i.npy y$i.npy
	done
}

@test "emit --external-data: tensors of 1 KiB and more in MODEL.data, aligned, in ONNX's layout" {
	make_ext
	run -0 emit --external-data ext.ir -o ext.onnx
	[ -f ext.onnx.data ]
	run -0 onnx_py ext.onnx "[(t.name, t.data_location, [(e.key, e.value) for e in t.external_data], len(t.raw_data)) for t in m.graph.initializer]"
	[ "$output" = "[('w1', 1, [('location', 'ext.onnx.data'), ('offset', '0'), ('length', '1200')], 0), ('w2', 1, [('location', 'ext.onnx.data'), ('offset', '1216'), ('length', '1028')], 0), ('w3', 1, [('location', 'ext.onnx.data'), ('offset', '2304'), ('length', '4000')], 0), ('w4', 1, [('location', 'ext.onnx.data'), ('offset', '65536'), ('length', '1048580')], 0), ('w5', 0, [], 40)]" ]
	[ "$(stat -c %s ext.onnx.data)" -eq $((65536 + 1048580)) ]
	# the bytes at each offset are the weight's
	run -0 "$PYTHON" -c "import numpy as np, sys
d = open('ext.onnx.data', 'rb').read()
for name, off in (('w1', 0), ('w2', 1216), ('w3', 2304), ('w4', 65536)):
    w = np.load(name + '.npy')
    if d[off:off + w.nbytes] != w.tobytes(): sys.exit(name)"
	run -0 check_model ext.onnx ext.onnx.data
	run_ext ext.onnx
	only_files ext.ir ext.bin ext.onnx ext.onnx.data out check.* $(ls *.npy)
}

@test "emit --external-data=FILE: the location given, relative to the model's directory" {
	make_ext
	mkdir models
	run -0 emit --external-data=weights.bin ext.ir -o models/ext.onnx
	[ -f models/weights.bin ]
	[ ! -e weights.bin ]
	run -0 onnx_py models/ext.onnx "{e.value for t in m.graph.initializer for e in t.external_data if e.key == 'location'}"
	[ "$output" = "{'weights.bin'}" ]
	run -0 check_model models/ext.onnx models/weights.bin
	run_ext models/ext.onnx
}

@test "emit --external-data: the location must be relative, without '..'; not with standard output" {
	make_ext
	for bad in ../w.bin /tmp/w.bin a/../w.bin ./w.bin; do
		run -2 emit --external-data="$bad" ext.ir -o ext.onnx
		[ "$output" = "emit: ext.ir: external data file '$bad' must be a relative path without '..' (it is relative to the model's directory)" ]
	done
	run -2 emit --external-data=ext.onnx ext.ir -o ext.onnx
	[ "$output" = "emit: ext.ir: external data file 'ext.onnx' is the model itself" ]
	run -2 emit --external-data ext.ir -o -
	[ "$output" = "emit: ext.ir: external data needs the model in a file (-o FILE), not standard output" ]
	only_files ext.ir ext.bin $(ls *.npy)
}

@test "emit: a model over the size limit moves its weights to external data on its own" {
	reference cnn-weights cnn-fc.bin
	run -0 emit "$DATA/emit-cnn.ir" -o inline.onnx
	size=$(stat -c %s inline.onnx)
	PT2ONNX_EXTERNAL_THRESHOLD=$((size - 1)) run -0 emit "$DATA/emit-cnn.ir" -o cnn.onnx
	[ "$output" = "emit: $DATA/emit-cnn.ir: warning: the model would be $size bytes, over the $((size - 1))-byte limit: weights go to 'cnn.onnx.data'" ]
	[ "$(stat -c %s cnn.onnx.data)" -eq 5120 ]
	[ "$(stat -c %s cnn.onnx)" -lt "$size" ]
	run -0 check_model cnn.onnx cnn.onnx.data
	reference input x.npy 1 float32 1,3,8,8
	run -0 ort_run cnn.onnx out x=x.npy
	reference cnn "$DATA/emit-cnn.ir" cnn-fc.bin x.npy want.npy
	run -0 reference compare out/logits.npy want.npy
	# exactly at the limit: inline
	PT2ONNX_EXTERNAL_THRESHOLD=$size run -0 emit "$DATA/emit-cnn.ir" -o same.onnx
	cmp inline.onnx same.onnx
}

@test "emit: too large even with external data, or to standard output: refused, no files" {
	reference cnn-weights cnn-fc.bin
	PT2ONNX_EXTERNAL_THRESHOLD=100 run -4 emit "$DATA/emit-cnn.ir" -o cnn.onnx
	[[ "${lines[1]}" == "emit: $DATA/emit-cnn.ir: the model is "*" bytes even with its weights in external data, over the 100-byte limit" ]]
	PT2ONNX_EXTERNAL_THRESHOLD=100 run -4 emit "$DATA/emit-cnn.ir" -o -
	[[ "$output" == *"over protobuf's 2 GB limit: write it to a file (-o FILE) so its weights can go to external data" ]]
	only_files cnn-fc.bin
}

@test "emit: a write failing anywhere leaves neither the model nor its data file" {
	make_ext
	n=1
	while :; do
		PT2ONNX_FAIL_WRITE=$n run emit --external-data ext.ir -o ext.onnx
		[ "$status" -eq 0 ] && break
		[ "$status" -eq 5 ] || { echo "write $n: status $status: $output"; false; }
		[[ "$output" == "emit: cannot write 'ext.onnx"*"': No space left on device" ]]
		only_files ext.ir ext.bin $(ls *.npy)
		n=$((n + 1))
		[ $n -lt 500 ]
	done
	[ $n -gt 10 ] # the failures covered the data file and the model
	run_ext ext.onnx
}

@test "emit --external-data: no data file when no tensor reaches 1 KiB" {
	run -0 emit --external-data "$DATA/emit-if.ir" -o if.onnx
	only_files if.onnx
	run -0 check_model if.onnx
}

# tr.ir: transposed views of weights (what fold makes of Transpose of a
# weight: strides with the second-last dim contiguous), of sizes that take
# each path of the gather: one tile, many tiles, two threads (4 MiB and
# more), a source over 64 MiB whose pages are dropped as it goes, a batch
# of transposes (rank 3), 1-, 2- and 8-byte elements; and a contiguous
# weight over 256 KiB (copied by the kernel into a file).
make_transposed() {
	"$PYTHON" - <<-'EOF'
	import numpy as np
	rng = np.random.default_rng(5)
	# name: (source shape, dtype, IR type, perm of the view)
	specs = {
	    "small": ((7, 5), np.float32, "Float", (1, 0)),
	    "tiles": ((300, 700), np.float32, "Float", (1, 0)),
	    "threads": ((1500, 1100), np.float32, "Float", (1, 0)),
	    "big": ((8200, 2100), np.float32, "Float", (1, 0)),
	    "batch": ((3, 70, 50), np.float16, "Half", (0, 2, 1)),
	    "bytes": ((33, 1000), np.uint8, "Byte", (1, 0)),
	    "doubles": ((130, 90), np.float64, "Double", (1, 0)),
	    "plain": ((300, 400), np.float32, "Float", None),
	}
	off, params, outs, nodes, data = 0, [], [], [], []
	for name, (shape, dt, ty, perm) in specs.items():
	    a = (rng.standard_normal(shape) * 100).astype(dt)
	    v = a if perm is None else a.transpose(perm)
	    np.save(name + ".npy", np.ascontiguousarray(v))
	    es = a.itemsize
	    st = [s // es for s in v.strides]
	    dims = ", ".join(map(str, v.shape))
	    ref = f'weight("tr.bin", offset={off}, length={a.nbytes}'
	    ref += ")" if perm is None else f", strides=[{', '.join(map(str, st))}])"
	    params.append(f"      %{name} : {ty}({dims}) = {ref}")
	    nodes.append(f"  %y_{name} : {ty}({dims}) = onnx::Identity(%{name})\n")
	    outs.append(f"%y_{name}")
	    data.append(a.tobytes())
	    off += a.nbytes + 64 # not aligned
	    data.append(b"\0" * 64)
	open("tr.bin", "wb").write(b"".join(data))
	open("tr.ir", "w").write('ir 1.0 onnx\nopset "" 13\ngraph tr(\n' + ",\n".join(params) + "):\n"
	    + "".join(nodes) + "  return (" + ", ".join(outs) + ")\n")
	EOF
}

# the initializers of MODEL equal the views numpy made
same_as_numpy() {
	"$PYTHON" -c "import numpy as np, onnx, sys, os
from onnx import numpy_helper
m = onnx.load(sys.argv[1], load_external_data=True)
for t in m.graph.initializer:
    got, want = numpy_helper.to_array(t), np.load(t.name + '.npy')
    if got.dtype != want.dtype or got.shape != want.shape or not np.array_equal(got, want):
        sys.exit(t.name + ': differs from numpy')
print(len(m.graph.initializer))" "$1"
}

@test "emit: transposed references (every path of the gather) equal numpy's transposes, inline and in external data" {
	make_transposed
	run -0 emit tr.ir -o tr.onnx
	run -0 same_as_numpy tr.onnx
	[ "$output" = 8 ]
	mkdir ext
	run -0 emit --external-data tr.ir -o ext/tr.onnx
	run -0 same_as_numpy ext/tr.onnx
	[ "$output" = 8 ]
	run -0 check_model tr.onnx
	# to a pipe (no copy by the kernel): the same bytes
	emit tr.ir -o - | cmp - tr.onnx
}

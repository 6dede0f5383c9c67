#!/usr/bin/env bats
# 660-emit-hostile.bats - issue 16's emit reproducers (tests/data/repro):
# node names in linear time, a stride-0 weight claiming 1e12 elements
# refused at once, weight() files outside the model's folders and special
# files refused (docs/ir.md, "Which files a weight() may read"); scale=
# on a weight of 2^61 rows refused (its buffer's size overflowed).
# bats file_tags=tier:standard

load helper

setup_file() {
	need_torch || return 0
	need_ort || return 0
}

R="$ROOT_DIR/tests/data/repro"

# N Relu nodes in one scope, a chain, as text IR on stdout
chain() {
	"$PYTHON" -c "import sys
n = int(sys.argv[1])
print('ir 1.0 onnx\nopset \"\" 14\ngraph Ctl(%x : Float(2, 8)):')
for i in range(1, n + 1):
    print(f'  %{i} : Float(2, 8) = onnx::Relu(%{i - 1 if i > 1 else \"x\"}), scope: Ctl')
print(f'  return (%{n})')" "$1"
}

@test "emit: 8000 and 50000 nodes in one scope take seconds, with unique names /Relu, /Relu_1, ..." {
	chain 8000 > c8k.ir
	chain 50000 > c50k.ir
	SECONDS=0
	run -0 emit c8k.ir -o c8k.onnx
	run -0 emit c50k.ir -o c50k.onnx
	[ "$SECONDS" -lt 30 ] # 40 s and 510 MB for 8000 before, the 50000 never ended
	onnx_checker c8k.onnx
	"$PYTHON" -c "import onnx, sys
names = [n.name for n in onnx.load('c8k.onnx').graph.node]
want = ['/Relu'] + ['/Relu_%d' % i for i in range(1, 8000)]
sys.exit(0 if names == want else 1)"
}

@test "emit: a stride-0 weight of 4 bytes claiming 1e12 elements is refused at once (limit 1 GiB)" {
	SECONDS=0
	run -4 emit "$R/ir_emit_stride0_1e12.txt" -o m.onnx
	[ "$output" = "emit: $R/ir_emit_stride0_1e12.txt: weight 'w': its view of 4 bytes in '/tmp/fz/w_irc/w8.bin' expands to 4000000000000 bytes, over the limit of 1073741824" ]
	[ "$SECONDS" -lt 5 ]
	[ -z "$(ls -A)" ]
	run -4 pt2onnx "$R/broadcast_1e12_weight.pt" -i 'x=f32[1,3,8,8]' -o m.onnx
	[ "${lines[0]}" = "emit: <stdin>: weight 'k': its view of 4 bytes in '$R/broadcast_1e12_weight.pt' expands to 4000000000000 bytes, over the limit of 1073741824" ]
	[ -z "$(ls -A)" ]
}

@test "emit: a weight() naming /etc/passwd is refused (exit 3); --weights-from allows a folder" {
	run -3 emit "$R/ir_emit_weight_etc_passwd.txt" -o m.onnx
	[ "$output" = "emit: $R/ir_emit_weight_etc_passwd.txt: weight 'w': '/etc/passwd' is not a file emit may read: outside the model's folder, not a torch archive's data nor a fold data file (--weights-from DIR allows a folder)" ]
	[ ! -e m.onnx ]
	# a file in another folder: refused from stdin, read with --weights-from
	mkdir -p side run
	"$PYTHON" -c "import numpy as np; np.arange(64, dtype=np.uint8).tofile('side/w.bin')"
	sed "s|/etc/passwd|$PWD/side/w.bin|" "$R/ir_emit_weight_etc_passwd.txt" > run/m.ir
	cd run
	run -3 emit -o m.onnx < m.ir
	[ "$output" = "emit: <stdin>: weight 'w': '$WORK/side/w.bin' is not a file emit may read: outside the model's folder, not a torch archive's data nor a fold data file (--weights-from DIR allows a folder)" ]
	[ ! -e m.onnx ]
	run -0 emit --weights-from ../side -o m.onnx < m.ir
	"$PYTHON" -c "import onnx, numpy as np, sys
from onnx import numpy_helper
w = numpy_helper.to_array(onnx.load('m.onnx').graph.initializer[0])
sys.exit(0 if np.array_equal(w, np.fromfile('../side/w.bin', dtype=np.uint8)) else 1)"
	run -2 emit --weights-from ../nowhere -o m2.onnx < m.ir
	[ ! -e m2.onnx ]
}

@test "emit: a weight() naming a FIFO is refused, not waited on" {
	mkfifo fifo
	sed "s|/etc/passwd|$PWD/fifo|" "$R/ir_emit_weight_etc_passwd.txt" > m.ir
	run -3 timeout 20 "$BINDIR/emit" m.ir -o m.onnx
	[ "$output" = "emit: m.ir: weight 'w': '$WORK/fifo' is not a regular file" ]
	[ ! -e m.onnx ]
}

@test "emit: weights of an archive in another folder and fold's data file in /tmp are read (the export pipeline)" {
	mkdir models elsewhere
	# Conv + BatchNorm: the fused 18 KiB weight is a scaled view of the
	# archive's; k * 2 (4.5 KiB) is folded through fold's data file
	"$PYTHON" -c "import numpy as np, torch
torch.manual_seed(0)
class M(torch.nn.Module):
    def __init__(s):
        super().__init__()
        s.c = torch.nn.Conv2d(16, 32, 3)
        s.b = torch.nn.BatchNorm2d(32)
        s.register_buffer('k', torch.randn(32, 6, 6))
    def forward(s, input):
        return s.b(s.c(input)) + s.k * 2
m = M().eval()
m.b.running_mean.uniform_(-1, 1); m.b.running_var.uniform_(0.5, 2)
x = torch.randn(1, 16, 8, 8)
torch.jit.trace(m, x).save('models/cb.pt')
np.save('elsewhere/x.npy', x.numpy()); np.save('elsewhere/want.npy', m(x).detach().numpy())"
	cd elsewhere
	run -0 pt2onnx "$WORK/models/cb.pt" --input 'input=f32[1,16,8,8]' -o cb.onnx
	ort_run cb.onnx out input=x.npy > /dev/null
	"$PYTHON" -c "import numpy as np, glob, sys
got = np.load(glob.glob('out/*.npy')[0]); want = np.load('want.npy')
sys.exit(0 if np.allclose(got, want, rtol=1e-4, atol=1e-5) else 1)"
	# and the same IR as a file: fold's data file is read from anywhere
	tool script "$WORK/models/cb.pt" --input 'input=f32[1,16,8,8]' | tool lower |
		tool fold --data-file /tmp/pt2onnx-660-$$.data -o f.ir
	tool fold -S f.ir > f.txt
	grep -q "pt2onnx-660-$$.data" f.txt
	grep -q "cb.pt\", offset=[0-9]*, length=18432, scale=\[" f.txt
	# (the wrapper strips doc strings by default, as torch)
	run -0 emit --strip-doc-string f.ir -o f.onnx
	rm -f /tmp/pt2onnx-660-$$.data
	cmp f.onnx cb.onnx
}

@test "emit: a scaled view (fold's Conv + BatchNormalization) is written as numpy computes it; a malformed one is refused with one line and no file" {
	# 100 rows of 3000 floats (1.2 MB: rows straddle emit's 1 MiB chunks),
	# each times its float64 factor, rounded to float32: numpy's bytes
	"$PYTHON" -c "import numpy as np
r = np.random.default_rng(5)
w = r.standard_normal((100, 3000)).astype(np.float32)
w[0, :3] = [np.inf, -0.0, 3.4e38]
s = r.uniform(-3, 3, 100)
s[1] = 1e300
w.tofile('w.bin')
(w.astype(np.float64) * s[:, None]).astype(np.float32).tofile('want.bin')
f = ', '.join(repr(float(v)) for v in s)
open('m.ir', 'w').write(f'''ir 1.0 onnx
opset \"\" 13
graph g(%x : Float(100, 3000),
      %w : Float(100, 3000) = weight(\"w.bin\", offset=0, length=1200000, scale=[{f}])):
  %y : Float(100, 3000) = onnx::Add(%x, %w)
  return (%y)
''')"
	run -0 emit m.ir -o m.onnx
	"$PYTHON" -c "import onnx, sys
from onnx import numpy_helper
w = numpy_helper.to_array(onnx.load('m.onnx').graph.initializer[0])
sys.exit(0 if w.tobytes() == open('want.bin', 'rb').read() else 1)"
	# the same weight at an offset that is not a multiple of 4
	(printf 'ab'; cat w.bin) > w2.bin
	sed 's/weight("w.bin", offset=0,/weight("w2.bin", offset=2,/' m.ir > m2.ir
	run -0 emit m2.ir -o m2.onnx
	cmp m.onnx m2.onnx
	rm m.onnx
	# one factor short, a Double tensor, strides
	sed 's/scale=\[[^]]*\]/scale=[2.]/' m.ir > bad1.ir
	run -3 emit bad1.ir -o m.onnx
	[ "$output" = "emit: bad1.ir:4: 1 scale factors for 100 rows" ]
	sed 's/Float(100, 3000) = weight/Double(100, 3000) = weight/' m.ir > bad2.ir
	run -3 emit bad2.ir -o m.onnx
	[ "$output" = 'emit: bad2.ir:4: a scaled view ("scale") of a tensor that is not Float' ]
	sed 's/length=1200000,/length=1200000, strides=[1, 100],/' m.ir > bad3.ir
	run -3 emit bad3.ir -o m.onnx
	[ "$output" = 'emit: bad3.ir:4: a scaled view ("scale") with strides' ]
	[ ! -e m.onnx ]
}

@test "emit: scale= on a weight of 2^61 rows is refused in one line (the factors' buffer size overflowed: SIGSEGV)" {
	run -3 emit "$R/ir_emit_scale_rows_2e61.txt" -o m.onnx
	[ "$output" = "emit: $R/ir_emit_scale_rows_2e61.txt:3: 40000 scale factors for 2305843009213693952 rows" ]
	[ ! -e m.onnx ]
}

#!/usr/bin/env bats
# 660-emit-hostile.bats - issue 16's emit reproducers (tests/data/repro):
# node names in linear time, a stride-0 weight claiming 1e12 elements
# refused at once, weight() files outside the model's folders and special
# files refused (docs/ir.md, "Which files a weight() may read").
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
	# Conv + BatchNorm: the fused 18 KiB weight goes through fold's data file
	"$PYTHON" -c "import numpy as np, torch
torch.manual_seed(0)
m = torch.nn.Sequential(torch.nn.Conv2d(16, 32, 3), torch.nn.BatchNorm2d(32)).eval()
m[1].running_mean.uniform_(-1, 1); m[1].running_var.uniform_(0.5, 2)
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
	grep -q "pt2onnx-660-$$.data" <(tool fold -S f.ir)
	# (the wrapper strips doc strings by default, as torch)
	run -0 emit --strip-doc-string f.ir -o f.onnx
	rm -f /tmp/pt2onnx-660-$$.data
	cmp f.onnx cb.onnx
}

#!/usr/bin/env bats
# 402-lower-trace.bats - lower on the flat aten graphs that `trace` writes
# (and the script path has too): sizes as ops (aten::size -> int), int
# arithmetic on them (mul, add, sub, floordiv, div), prim::NumToTensor,
# aten::Int, lists mixing traced ints and constants, feeding view, reshape,
# expand; scalar weights (a traced archive's CONSTANTS.cN); metadata ops
# (prim::device, prim::dtype).  Hand-written aten IR, run in ONNX Runtime
# on an input of another batch size than any constant, compared with numpy.
# bats file_tags=tier:standard

load helper

setup_file() {
	need_ort || return 0
}

ir() {
	cat > sizes.ir <<'IR'
ir 1.0 aten
graph g(%x : Float(b, 6, 4)):
  %c0 : int = prim::Constant[value=0]()
  %c1 : int = prim::Constant[value=1]()
  %c2 : int = prim::Constant[value=2]()
  %cm1 : int = prim::Constant[value=-1]()
  %none : NoneType = prim::Constant()
  %n : int = aten::size(%x, %c0)
  %h : int = aten::size(%x, %c1)
  %w : int = aten::size(%x, %c2)
  %hw : int = aten::mul(%h, %w)
  %h2 : int = aten::floordiv(%h, %c2)
  %s1 : int[] = prim::ListConstruct(%n, %h2, %c2, %w)
  %y1 : Tensor = aten::view(%x, %s1)
  %s2 : int[] = prim::ListConstruct(%n, %hw)
  %y2 : Tensor = aten::reshape(%x, %s2)
  %nt : Tensor = prim::NumToTensor(%n)
  %n2t : Tensor = aten::mul(%nt, %c2)
  %n2 : int = aten::Int(%n2t)
  %n1 : int = aten::sub(%n2, %n)
  %w1 : int = aten::add(%w, %c1)
  %wm : int = aten::sub(%w1, %c1)
  %s3 : int[] = prim::ListConstruct(%n1, %cm1, %wm)
  %y3 : Tensor = aten::view(%x, %s3)
  %x0 : Tensor = aten::slice(%x, %c1, %c0, %c1, %c1)
  %s4 : int[] = prim::ListConstruct(%n, %h, %w)
  %f : bool = prim::Constant[value=0]()
  %y4 : Tensor = aten::expand(%x0, %s4, %f)
  %dev : Device = prim::device(%x)
  %dt : int = prim::dtype(%x)
  %q : float = aten::div(%hw, %w)
  %qt : Tensor = prim::NumToTensor(%q)
  %y5 : Tensor = aten::mul(%x, %qt)
  %y6 : Tensor = aten::zeros(%s2, %dt, %none, %dev, %none)
  return (%y1, %y2, %y3, %y4, %y5, %y6)
IR
}

@test "lower: traced sizes and int arithmetic feed view, reshape, expand at 9 13 17" {
	ir
	"$PYTHON" -c "import numpy as np; np.save('x.npy', np.random.RandomState(0).randn(3, 6, 4).astype(np.float32))"
	for o in 9 13 17; do
		set -o pipefail
		run -0 bash -c "'$BINDIR/lower' --opset $o sizes.ir | '$BINDIR/emit' -o s-$o.onnx"
		run -0 onnx_checker s-$o.onnx
		rm -rf out
		run -0 ort_run s-$o.onnx out x=x.npy
		O=$o "$PYTHON" - <<'PY'
import os, numpy as np, onnx
x = np.load("x.npy")
n, h, w = x.shape
want = [x.reshape(n, h // 2, 2, w), x.reshape(n, h * w), x.reshape(2 * n - n, -1, w),
        np.broadcast_to(x[:, 0:1], (n, h, w)), x * float(h * w / w), np.zeros((n, h * w), np.float32)]
names = [o.name for o in onnx.load(f"s-{os.environ['O']}.onnx").graph.output]
for nm, wv in zip(names, want):
    g = np.load(f"out/{nm}.npy")
    assert g.shape == wv.shape and g.dtype == wv.dtype, (nm, g.shape, wv.shape, g.dtype)
    assert np.allclose(g, wv, rtol=1e-6, atol=0), nm
PY
	done
}

@test "lower: int arithmetic on fixed sizes folds to constants (no Mul, no Shape)" {
	ir
	sed -i 's/Float(b, 6, 4)/Float(3, 6, 4)/' sizes.ir
	run -0 "$BINDIR/lower" --opset 13 -S sizes.ir
	[[ "$output" == *"onnx::Constant[value=Long(2){3, 24}]"* ]]
	[[ "$output" != *onnx::Shape* ]]
	[[ "$output" != *aten::* && "$output" != *prim::* ]]
}

@test "lower: a scalar weight of the archive is read as a constant (split sizes from CONSTANTS.c0)" {
	"$PYTHON" -c "
import numpy as np
np.save('x.npy', np.arange(12, dtype=np.float32).reshape(6, 2))
open('c.bin', 'wb').write(np.array([7, 3], dtype=np.int64).tobytes())"
	cat > w.ir <<'IR'
ir 1.0 aten
graph g(%x : Float(6, 2),
      %CONSTANTS.c0 : Long() = weight("c.bin", offset=8, length=8)):
  %c0 : int = prim::Constant[value=0]()
  %n : int = aten::size(%x, %c0)
  %nt : Tensor = prim::NumToTensor(%n)
  %k : Tensor = aten::floor_divide(%nt, %CONSTANTS.c0)
  %ki : int = aten::Int(%k)
  %s : int[] = prim::ListConstruct(%ki, %ki)
  %w : int = prim::Constant[value=4]()
  %s2 : int[] = prim::ListConstruct(%w, %ki)
  %p : Tensor[] = aten::split_with_sizes(%x, %s2, %c0)
  %a : Tensor, %b : Tensor = prim::ListUnpack(%p)
  return (%a, %b)
IR
	run -0 "$BINDIR/lower" --opset 13 -S w.ir
	[[ "$output" == *"onnx::Split"* ]]
	set -o pipefail
	"$BINDIR/lower" --opset 13 w.ir | "$BINDIR/emit" -o w.onnx
	ort_run w.onnx out x=x.npy
	run -0 "$PYTHON" -c "
import os, numpy as np, onnx
x = np.load('x.npy')
names = [o.name for o in onnx.load('w.onnx').graph.output]
a, b = (np.load(f'out/{n}.npy') for n in names)
assert (a == x[:4]).all() and (b == x[4:]).all(), (a.shape, b.shape)"
}

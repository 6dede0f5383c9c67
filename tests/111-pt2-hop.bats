#!/usr/bin/env bats
# 111-pt2-hop.bats - torch.export's higher-order operators in unpt2: a
# program written in serde's format by tests/oracle/pt2_cases.py synthetic
# (torch 2.x is not on this machine): cond(x.sum() > 0, cos, sin, (x,))
# becomes prim::If with the two subgraphs as its blocks, ONNX If after
# lower, and wrap_with_set_grad_enabled is inlined; a while_loop becomes
# prim::Loop (ONNX Loop).  The oracle is torch
# 1.13 running the same function, compared with ONNX Runtime's outputs on
# an input taking each branch.  torch 2.x's core batch and group norms
# (native_group_norm, _native_batch_norm_legit_no_training) as
# run_decompositions() leaves them, against torch 1.13's functions.
# bats file_tags=tier:standard

load helper

CASES="$TESTS_DIR/oracle/pt2_cases.py"

setup_file() {
	need_torch || return 0
	need_ort || return 0
}

@test "pt2 hop: cond becomes prim::If (ONNX If), wrap_with_set_grad_enabled is inlined; both branches match torch 1.13" {
	"$PYTHON" "$CASES" synthetic syn.pt2
	run -0 tool unpt2 -S syn.pt2 -o syn.ir
	grep -q '^  %getitem : Float(3, 4) = prim::If(' syn.ir
	run -1 grep -c 'wrap_with\|higher_order' syn.ir
	local v
	for v in 17 26; do
		run -0 pt2onnx syn.pt2 -o syn$v.onnx --opset-version $v
		# python3-onnx's checker predates opset 26's IR version (pt2onnx ran check)
		[ $v -gt 17 ] || run -0 onnx_checker syn$v.onnx
		run -0 "$PYTHON" -c "import onnx; print(sorted({n.op_type for n in onnx.load('syn$v.onnx').graph.node}))"
		[[ "$output" == *"'If'"* ]]
		local sign
		for sign in 1 -1; do
			"$PYTHON" -c "
import numpy as np, torch
x = torch.arange(12, dtype=torch.float32).reshape(3, 4) / 7 * $sign + 0.25 * $sign
np.save('x.npy', x.numpy())
np.save('ref.npy', ((x.cos() if x.sum() > 0 else x.sin()) * 2).numpy())"
			run -0 ort_run syn$v.onnx out x=x.npy
			"$PYTHON" -c "
import numpy as np, glob
got = np.load(glob.glob('out/*.npy')[0]); ref = np.load('ref.npy')
assert got.shape == ref.shape and np.abs(got - ref).max() <= 1e-5 * np.abs(ref).max(), (got, ref)"
		done
	done
}

@test "pt2 hop: while_loop becomes prim::Loop (ONNX Loop), its carried and additional inputs matching torch 1.13's while loop" {
	"$PYTHON" "$CASES" synthetic wl.pt2 while
	run -0 tool unpt2 -S wl.pt2 -o wl.ir
	grep -q '^  %getitem : Long(), %getitem_1 : Float(3, 4) = prim::Loop(' wl.ir
	"$PYTHON" -c "
import numpy as np, torch
x = torch.arange(12, dtype=torch.float32).reshape(3, 4) / 5 - 1
i, c = torch.zeros((), dtype=torch.int64), x.cos()
while i < 3:
    i, c = i + 1, c * 0.5 + x
np.save('x.npy', x.numpy()); np.save('ref_0.npy', i.numpy()); np.save('ref_1.npy', c.numpy())"
	local v
	for v in 17 26; do
		run -0 pt2onnx wl.pt2 -o wl$v.onnx --opset-version $v
		run -0 "$PYTHON" -c "import onnx; print(sorted({n.op_type for n in onnx.load('wl$v.onnx').graph.node}))"
		[[ "$output" == *"'Loop'"* ]]
		rm -rf out && run -0 ort_run wl$v.onnx out x=x.npy
		"$PYTHON" -c "
import numpy as np
i, c = np.load('out/getitem.npy'), np.load('out/getitem_1.npy')
ri, rc = np.load('ref_0.npy'), np.load('ref_1.npy')
assert i.dtype == ri.dtype and i.shape == ri.shape and (i == ri).all(), (i, ri)
assert c.shape == rc.shape and np.abs(c - rc).max() <= 1e-5 * np.abs(rc).max(), (c, rc)"
	done
}

@test "pt2 hop: map and other higher-order operators are listed as not convertible (exit 4)" {
	"$PYTHON" "$CASES" synthetic syn.pt2
	"$PYTHON" - <<'PY'
import json, zipfile
src = zipfile.ZipFile("syn.pt2")
out = zipfile.ZipFile("loop.pt2", "w")
for i in src.infolist():
    d = src.read(i.filename)
    if i.filename.endswith("models/model.json"):
        p = json.loads(d)
        p["graph_module"]["graph"]["nodes"][2]["target"] = "torch.ops.higher_order.map_impl"
        d = json.dumps(p).encode()
    out.writestr(i.filename, d)
out.close()
PY
	run -4 tool unpt2 loop.pt2 -o out.ir
	[ "$output" = "unpt2: loop.pt2: synthetic/models/model.json: 1 call cannot be converted: torch.ops.higher_order.map_impl (node cond)" ]
	[ ! -e out.ir ]
}

@test "pt2 hop: while_loop conditions nested 30 deep (2^30 copies read naively) are refused past 100000 calls, in bounded time and memory" {
	"$PYTHON" "$CASES" synthetic nest.pt2 nested
	run -4 /usr/bin/time -f "%e %M" "$BINDIR/unpt2" nest.pt2 -o out.ir
	[[ "${lines[0]}" == "unpt2: nest.pt2: synthetic/models/model.json: node "*": the program expands past 100000 calls (nested while_loop conditions)" ]]
	# KiB: 256 MiB (147 measured); under ASan (ASAN_OPTIONS set by make
	# test-asan) its shadow memory and 256 MiB quarantine come on top
	# (336 MiB measured), so 1 GiB there
	[ "${lines[2]#* }" -lt "$([ -n "${ASAN_OPTIONS:-}" ] && echo 1048576 || echo 262144)" ]
	[ ! -e out.ir ]
}

@test "pt2 core ops: native_group_norm then _native_batch_norm_legit_no_training, as run_decompositions() leaves them, match torch 1.13's group_norm and batch_norm, 9 13 17" {
	"$PYTHON" "$CASES" synthetic core.pt2 core
	run -0 tool unpt2 -S core.pt2 -o core.ir
	grep -q 'aten::native_group_norm(' core.ir
	grep -q 'aten::_native_batch_norm_legit_no_training(' core.ir
	"$PYTHON" -c "
import numpy as np, torch
F = torch.nn.functional
g = torch.Generator().manual_seed(3)
x = torch.randn(2, 6, 4, 5, generator=g)
w, b, rm = (torch.randn(6, generator=g) for _ in range(3))
rv = torch.rand(6, generator=g) + 0.5
for n, t in zip('x w b rm rv'.split(), (x, w, b, rm, rv)):
    np.save(n + '.npy', t.numpy())
np.save('ref.npy', F.batch_norm(F.group_norm(x, 3, w, b, 1e-5), rm, rv, w, b, False, 0.1, 1e-3).numpy())"
	local v
	for v in 9 13 17; do
		run -0 pt2onnx core.pt2 -o core$v.onnx --opset-version $v
		run -0 onnx_checker core$v.onnx
		rm -rf out
		run -0 ort_run core$v.onnx out x=x.npy w=w.npy b=b.npy rm=rm.npy rv=rv.npy
		"$PYTHON" -c "
import numpy as np, glob
got = np.load(glob.glob('out/*.npy')[0]); ref = np.load('ref.npy')
assert got.shape == ref.shape and np.abs(got - ref).max() <= 1e-5 * np.abs(ref).max(), (got, ref)"
	done
}

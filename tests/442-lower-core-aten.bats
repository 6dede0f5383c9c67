#!/usr/bin/env bats
# 442-lower-core-aten.bats - torch 2.x core ATen operators that lower did
# not have a row for (docs/operators.md, "Core ATen operators"):
# _fft_r2c and _fft_c2r, torch.fft's internal forms that torch.export
# graphs call after run_decompositions() (lib/lower/symbolic_fft.c,
# fft_internal: fft_any's transforms).  The archive is written by hand in
# serde's format (tests/oracle/pt2_cases.py synthetic fft): a onesided
# r2c, its c2r back at normalization 1/n, and a full-spectrum r2c over two
# dims at 1/sqrt(n); converted at opset 9 (a DFT matrix) and 17 (onnx::DFT),
# checked by onnx.checker, run in ONNX Runtime and compared with torch
# 1.13's torch.ops.aten._fft_r2c / _fft_c2r on the same input.
# bats file_tags=tier:full

load helper

CASES="$TESTS_DIR/oracle/pt2_cases.py"

@test "pt2 core ops: _fft_r2c (onesided and full, normalization none and 1/sqrt(n), one and two dims) and _fft_c2r (1/n) match torch 1.13's, 9 17" {
	need_torch
	need_ort
	"$PYTHON" "$CASES" synthetic fft.pt2 fft
	run -0 tool unpt2 -S fft.pt2 -o fft.ir
	grep -q 'aten::_fft_r2c(' fft.ir
	grep -q 'aten::_fft_c2r(' fft.ir
	"$PYTHON" -c "
import numpy as np, torch
x = torch.randn(3, 8, generator=torch.Generator().manual_seed(5))
np.save('x.npy', x.numpy())
A = torch.ops.aten
r = A._fft_r2c(x, [1], 0, True)
np.save('vr.ref.npy', torch.view_as_real(r).numpy())
np.save('back.ref.npy', A._fft_c2r(r, [1], 2, 8).numpy())
np.save('vf.ref.npy', torch.view_as_real(A._fft_r2c(x, [0, 1], 1, False)).numpy())"
	local v
	for v in 9 17; do
		run -0 pt2onnx fft.pt2 -o fft$v.onnx --opset-version $v
		run -0 onnx_checker fft$v.onnx
		rm -rf out
		run -0 ort_run fft$v.onnx out x=x.npy
		"$PYTHON" -c "
import numpy as np
for n in ('vr', 'back', 'vf'):
    got, ref = np.load(f'out/{n}.npy'), np.load(f'{n}.ref.npy')
    assert got.dtype == ref.dtype and got.shape == ref.shape, (n, got.dtype, got.shape, ref.shape)
    assert np.abs(got - ref).max() <= 1e-5 * np.abs(ref).max(), (n, got, ref)"
	done
}

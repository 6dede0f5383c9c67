#!/usr/bin/env bats
# 260-script-hostile.bats - issue 16's script reproducers (tests/data/repro):
# a method of 100k statements binds in linear time, and int arithmetic at
# INT64_MIN folds to torch's wrapped value (the exported model agrees with
# torch in ONNX Runtime).
# bats file_tags=tier:standard

load helper

setup_file() {
	need_torch || return 0
	need_ort || return 0
}

R="$ROOT_DIR/tests/data/repro"

@test "script: 100k statements in one method compile in seconds (a linear scan per binding took minutes)" {
	SECONDS=0
	run -0 tool script "$R/ts_many_stmts_100k.pt" -i 'x=f32[2,8]' -o m.ir
	[ "$SECONDS" -lt 20 ]
	run -0 tool script "$R/ts_loop_1e6.pt" -i 'x=f32[2,8]' -o l.ir
}

@test "script: -INT64_MIN folds to torch's INT64_MIN; the model matches torch" {
	"$PYTHON" -c "import numpy as np, torch
x = (np.arange(16, dtype=np.float32).reshape(2, 8) - 5) / 3
np.save('x.npy', x)
np.save('want.npy', torch.jit.load('$R/ts_neg_intmin_script.pt')(torch.from_numpy(x)).numpy())"
	run -0 pt2onnx "$R/ts_neg_intmin_script.pt" -i 'x=f32[2,8]' -o m.onnx
	ort_run m.onnx out x=x.npy > /dev/null
	"$PYTHON" -c "import numpy as np, glob, sys
got = np.load(glob.glob('out/*.npy')[0]); want = np.load('want.npy')
sys.exit(0 if np.array_equal(got, want) else 1)"
}

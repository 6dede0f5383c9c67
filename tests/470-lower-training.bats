#!/usr/bin/env bats
# 470-lower-training.bats - `pt2onnx --training train` (lower --training
# train) exports batch_norm as torch 1.13 does with
# training=TrainingMode.TRAINING: BatchNormalization with training_mode=1
# and 3 outputs at opset 14 and later, the 5-output form below; fold does
# not fuse it into the Conv.  resnet18 (torchvision, random weights) is
# compared with torch's own export node for node, and ONNX Runtime's
# result with torch's train-mode output (batch statistics).
# bats file_tags=tier:standard

load helper

setup_file() {
	need_torch || return 0
	need_ort || return 0
	cd "$BATS_FILE_TMPDIR" || return 1
	"$PYTHON" - <<'PY'
import warnings
warnings.filterwarnings("ignore")
import numpy as np, torch, torchvision
torch.manual_seed(0)
m = torchvision.models.resnet18()
m.train()
torch.jit.save(torch.jit.script(m), "r18.pt")
x = torch.randn(2, 3, 64, 64)
np.save("x.npy", x.numpy())
with torch.no_grad():
    np.save("want.npy", m(x).numpy())
    m.eval()
    np.save("want_eval.npy", m(x).numpy())
    m.train()
for o in (13, 15):
    torch.onnx.export(m, (x,), f"torch_{o}.onnx", opset_version=o,
                      training=torch.onnx.TrainingMode.TRAINING,
                      input_names=["x"])
PY
}

# the nodes of a model: op type, output count and training_mode, in order
nodes() {
	"$PYTHON" -c '
import onnx, sys
for n in onnx.load(sys.argv[1]).graph.node:
    tm = [a.i for a in n.attribute if a.name == "training_mode"]
    print(n.op_type, len(n.output), tm)' "$1"
}

@test "pt2onnx --training train: resnet18 as torch exports it, ORT matches torch's train mode" {
	D="$BATS_FILE_TMPDIR"
	for o in 13 15; do
		run -0 pt2onnx "$D/r18.pt" -i 'x=f32[2,3,64,64]' -o r18.onnx \
			--opset-version "$o" --training train
		run -0 onnx_checker r18.onnx
		run -0 nodes "$D/torch_$o.onnx"
		want=$output
		[[ "$want" == *BatchNormalization* ]]
		run -0 nodes r18.onnx
		[ "$output" = "$want" ]
		rm -rf out
		run -0 ort_run r18.onnx out "x=$D/x.npy"
		run -0 "$PYTHON" "$ORACLE_DIR/reference.py" compare out/*.npy \
			"$D/want.npy" 1e-3
		# not the eval-mode numbers: the batch's statistics were used
		run -1 "$PYTHON" "$ORACLE_DIR/reference.py" compare out/*.npy \
			"$D/want_eval.npy" 1e-3
	done
}

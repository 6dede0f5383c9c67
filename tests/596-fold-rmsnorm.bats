#!/usr/bin/env bats
# 596-fold-rmsnorm.bats - fold fuses an RMSNorm a model writes out
# (LLaMA's x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) *
# weight) into one RMSNormalization from opset 23 (issue 13).  Models are
# built and traced by torch 1.13 here, whose outputs are the oracle: each
# conversion runs in ONNX Runtime 1.30 and must match torch (1e-5
# relative), at 23 with the fused node and at 22 without; a form that is not
# an RMSNorm over the last dims stays as it is and still matches.

# bats file_tags=tier:standard

load helper

setup_file() {
	need_torch || return 0
	need_ort || return 0
	cd "$BATS_FILE_TMPDIR"
	"$PYTHON" - <<'PY'
import numpy as np
import torch

class Llama(torch.nn.Module):       # pow(2), eps after the mean, weight
    def __init__(s):
        super().__init__()
        s.w = torch.nn.Parameter(torch.rand(16) + 0.5)
        s.lin = torch.nn.Linear(16, 16)
    def forward(s, x):
        h = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * s.w
        return s.lin(h)

class Square(torch.nn.Module):      # x * x, eps first, no weight, 2 dims
    def forward(s, x):
        return x * torch.rsqrt(1e-5 + (x * x).mean((-2, -1), keepdim=True))

class Middle(torch.nn.Module):      # over dim 1: not an RMSNormalization
    def forward(s, x):
        return x * torch.rsqrt(x.pow(2).mean(1, keepdim=True) + 1e-6)

torch.manual_seed(0)
x = torch.randn(2, 5, 16)
for name, m in (("llama", Llama()), ("square", Square()), ("middle", Middle())):
    m.eval()
    torch.jit.trace(m, x).save(name + ".pt")
    np.save(name + "_ref.npy", m(x).detach().numpy())
np.save("x.npy", x.numpy())
PY
}

# fused NAME OPSET: converts NAME.pt at OPSET, checks it, runs it in ONNX
# Runtime against torch's output, and prints its RMSNormalization count
fused() {
	local d="$BATS_FILE_TMPDIR"
	pt2onnx "$d/$1.pt" --input 'x=f32[2,5,16]' --opset-version "$2" -o "$1$2.onnx" >&2 || return 1
	check "$1$2.onnx" >&2 || return 1
	ort_run "$1$2.onnx" "o$1$2" "x=$d/x.npy" >&2 || return 1
	"$PYTHON" - "$d/$1_ref.npy" "o$1$2" "$1$2.onnx" <<'PY'
import glob, sys
import numpy as np
import onnx
ref = np.load(sys.argv[1])
out, = [np.load(f) for f in glob.glob(sys.argv[2] + "/*.npy")]
assert out.shape == ref.shape, (out.shape, ref.shape)
rel = np.abs(out - ref).max() / np.abs(ref).max()
assert rel <= 1e-5, rel
ops = [n.op_type for n in onnx.load(sys.argv[3]).graph.node]
print(ops.count("RMSNormalization"), "Sqrt" in ops, "Mul" in ops)
PY
}

@test "fold: LLaMA's written-out RMSNorm and its weight are one RMSNormalization at 23, the written form at 22, both match torch" {
	run -0 --separate-stderr fused llama 23
	[ "$output" = "1 False False" ]
	run -0 --separate-stderr fused llama 26
	[ "$output" = "1 False False" ]
	run -0 --separate-stderr fused llama 22
	[ "$output" = "0 True True" ]
}

@test "fold: x * x and eps before the mean, over the last two dims, no weight: RMSNormalization with a scale of ones at 23" {
	run -0 --separate-stderr fused square 23
	[ "$output" = "1 False False" ]
}

@test "fold: a mean over a middle dim is no RMSNormalization and stays as written, matching torch" {
	run -0 --separate-stderr fused middle 23
	[ "$output" = "0 True True" ]
}

#!/usr/bin/env bats
# 304-trace-cuda.bats - `trace --device cuda` against `trace --device cpu`:
# the bundled example CNN and a torchvision resnet18 (made by torch here)
# traced on both backends, their saved outputs compared (and the CPU ones
# with torch's own); --device auto says what it chose with -v.  Every test
# is tagged gpu and skips where `trace --device cuda` exits 2 (no device,
# or built without CUDA).
# bats file_tags=tier:standard
load helper

EX="$ROOT_DIR/examples"
trace() { tool trace "$@"; }
compare() { "$PYTHON" "$ORACLE_DIR/reference.py" compare "$@"; }

need_cuda() {
	run trace "$EX/cnn.pt" -i "x=f32[1,3,8,8]" --device cuda -o /dev/null
	if [ "$status" -eq 2 ]; then
		skip "no CUDA device: ${lines[0]}"
	fi
	[ "$status" -eq 0 ]
}

setup_file() {
	export M="$BATS_FILE_TMPDIR"
	# only where a GPU can run: resnet18 takes torch a few seconds
	if "$BINDIR/trace" "$EX/cnn.pt" -i "x=f32[1,3,8,8]" --device cuda \
		-o /dev/null 2>/dev/null; then
		need_torch torchvision || return 0
		"$PYTHON" - "$M" <<'EOF'
import sys, numpy as np, torch, torchvision
d = sys.argv[1]
torch.manual_seed(0)
m = torchvision.models.resnet18(weights=None).eval()
x = torch.randn(2, 3, 64, 64)
with torch.no_grad():
    t = torch.jit.trace(m, x)
    t.save(f"{d}/resnet18.pt")
    np.save(f"{d}/resnet18_x.npy", x.numpy())
    np.save(f"{d}/resnet18_out.npy", t(x).numpy())
EOF
	fi
}

# bats test_tags=gpu
@test "trace cuda: the example CNN gives the CPU's outputs" {
	need_cuda
	run -0 trace "$EX/cnn.pt" -i "x=$EX/cnn_input.npy" --device cpu \
		--save-outputs cpu -o cpu.ir
	run -0 trace "$EX/cnn.pt" -i "x=$EX/cnn_input.npy" --device cuda \
		--save-outputs cuda -o cuda.ir
	run -0 compare cuda/out0.npy cpu/out0.npy 1e-4
	run -0 compare cpu/out0.npy "$EX/cnn_expected.npy" 1e-4
	# the same graph is recorded on either device
	cmp cpu.ir cuda.ir
}

# bats test_tags=gpu
@test "trace cuda: resnet18 gives the CPU's outputs" {
	need_cuda
	[ -s "$M/resnet18.pt" ]
	run -0 trace "$M/resnet18.pt" -i "x=$M/resnet18_x.npy" --device cpu \
		--save-outputs cpu -o cpu.ir
	run -0 trace "$M/resnet18.pt" -i "x=$M/resnet18_x.npy" --device cuda \
		--save-outputs cuda -o cuda.ir
	run -0 compare cuda/out0.npy cpu/out0.npy 1e-4
	run -0 compare cpu/out0.npy "$M/resnet18_out.npy" 1e-4
	run -0 "$PYTHON" -c '
import numpy as np
a, b = np.load("cpu/out0.npy"), np.load("cuda/out0.npy")
assert a.shape == b.shape == (2, 1000) and a.dtype == b.dtype == np.float32
assert np.allclose(b, a, rtol=1e-4, atol=1e-4 * np.abs(a).max())'
}

# bats test_tags=gpu
@test "trace cuda: --device auto takes the CPU for a small model, CUDA for a large batch, and -v says why" {
	need_cuda
	run -0 --separate-stderr trace -v "$EX/cnn.pt" -i "x=f32[1,3,8,8]" \
		--device auto -o x.ir
	[[ "$stderr" == *"device cpu (auto: the CPU, CUDA's start-up would dominate"* ]]
	[ -s "$M/resnet18.pt" ]
	run -0 --separate-stderr trace -v "$M/resnet18.pt" \
		-i "x=f32[4096,3,32,32]" --threads 1 --device auto -o x.ir
	[[ "$stderr" == *"device cuda (auto: CUDA, the work outweighs its start-up"* ]]
	run -0 --separate-stderr trace -v "$EX/cnn.pt" -i "x=f32[1,3,8,8]" \
		--device cpu -o x.ir
	[[ "$stderr" == *"device cpu (--device)"* ]]
}

# not a GPU test: where nvcc and its libcudart are installed, the build has
# the CUDA backend, so `--device cuda` fails for want of a device, not of code
@test "trace cuda: built wherever nvcc and libcudart are found" {
	case "${PT2ONNX_BUILD_NOTE:-}" in
	*sanitizer*|*NO_CUDA*) skip "$PT2ONNX_BUILD_NOTE" ;;
	esac
	local nvcc
	nvcc=$(command -v nvcc || ls /usr/local/cuda/bin/nvcc 2>/dev/null) ||
		skip "no nvcc on this machine"
	local top
	top=$(dirname "$(dirname "$(realpath "$nvcc")")")
	ls "$top"/lib64/libcudart.so "$top"/lib/libcudart.so \
		"$top"/targets/*/lib/libcudart.so >/dev/null 2>&1 ||
		skip "nvcc at $nvcc has no libcudart.so beside it"
	run trace "$EX/cnn.pt" -i "x=f32[1,3,8,8]" --device cuda -o /dev/null
	[[ "$output" != *"built without CUDA"* ]]
	[ "$status" -eq 0 ] || [[ "$output" == *"no CUDA device"* ]]
}

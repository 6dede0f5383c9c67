#!/bin/bash
# device-check.sh - the checks that need a GPU, in one run on a lent GPU
# machine (docs/testing.md, "On a GPU machine"): the CUDA backend's unit
# tests (under compute-sanitizer's four tools too), 304-trace-cuda.bats, the torch2
# family on the trace path with --device cuda and on the script and .pt2
# paths, and --device auto against cpu and cuda on resnet50.
#
#   here:   scripts/device-check.sh --pack     builds .dev/pack.tar.xz
#   there:  scripts/device-check.sh            (run with carry: [".dev"])
#
# The GPU machines have torch 2.11, onnx and onnxruntime in their python3,
# but none of this project's Debian packages and no node: the pack holds
# the tools built here (with the CUDA backend), the libraries they link,
# bats, and the torch2 models (with exported.pt2); ONNX Runtime is Python's
# (PT2ONNX_ORT_RUNNER=python).  Logs go to $OUT (the device tool's folder).
set -u
cd "$(dirname "$0")/.."
D=.dev

if [ "${1:-}" = --pack ]; then
	set -e
	rm -rf "$D/stage" && mkdir -p "$D/stage/lib" "$D/stage/bin" "$D/stage/tests" \
		"$D/stage/bats/bin" "$D/stage/bats/lib" "$D/stage/bats/libexec"
	grep -qx '/.dev/' .git/info/exclude 2>/dev/null || echo /.dev/ >> .git/info/exclude
	cp bin/check bin/emit bin/fold bin/lower bin/pt2onnx bin/script bin/trace bin/unpt2 "$D/stage/bin/"
	strip "$D/stage/bin/"*
	cp build/tests/test_gpu_cuda build/tests/test_gpu_cpu "$D/stage/tests/"
	for l in $(ldd bin/* build/tests/test_gpu_cuda | awk '/=> \//{print $3}' | sort -u); do
		# not what the GPU machine's image has: its own libc, libstdc++,
		# libz and libcudart are as new or newer, and torch there must keep
		# loading those
		case "$l" in
		*/libc.so*|*/libm.so*|*/libdl.so*|*/libpthread.so*|*/librt.so*|*/ld-linux*|*/libstdc++*|*/libgcc_s*|*/libz.so*) ;;
		*/libcudart*) mkdir -p "$D/stage/cudalib"; cp -L "$l" "$D/stage/cudalib/" ;;
		*) cp -L "$l" "$D/stage/lib/" ;;
		esac
	done
	cp /usr/bin/bats "$D/stage/bats/bin/"
	cp -r /usr/lib/bats-core "$D/stage/bats/lib/"
	cp -r /usr/libexec/bats-core "$D/stage/bats/libexec/"
	cp -r ../shared/torch2/models "$D/stage/torch2"
	tar cJf "$D/pack.tar.xz" -C "$D/stage" .
	rm -rf "$D/stage"
	ls -la "$D/pack.tar.xz"
	exit 0
fi

OUT=${OUT:-/tmp/device-check}
mkdir -p "$OUT" "$D/x"
tar xJf "$D/pack.tar.xz" -C "$D/x" || { echo "device-check: no $D/pack.tar.xz (run --pack here)"; exit 2; }
X=$PWD/$D/x
export LD_LIBRARY_PATH=$X/lib PT2ONNX_BINDIR=$X/bin PT2ONNX_PYTHON=python3 PT2ONNX_ORT_RUNNER=python
export PATH=$X/bats/bin:$PATH
# libcudart from the image (where the build's rpath, CUDA 13's default
# place, finds it), else the one carried
ldd "$X/bin/trace" | grep -q 'libcudart.*not found' && export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$X/cudalib
step() { echo; echo "=== $* ($(date +%T))"; }

step machine
nvidia-smi -L
python3 -c 'import torch, onnx, onnxruntime as o; print("torch", torch.__version__, "cuda", torch.cuda.is_available(), "onnx", onnx.__version__, "onnxruntime", o.__version__)'
"$X/bin/trace" -v examples/cnn.pt -i "x=f32[1,3,8,8]" --device cuda -o /dev/null

step unit tests of the CUDA and CPU backends
timeout 120 "$X/tests/test_gpu_cuda" 2>&1 | tail -3
timeout 120 "$X/tests/test_gpu_cpu" 2>&1 | tail -3
# API errors off: test_cuda_memory's failed cudaMalloc is deliberate
step "compute-sanitizer (memcheck, racecheck, synccheck, initcheck) on the CUDA unit tests"
for t in memcheck racecheck synccheck initcheck; do
	timeout 240 compute-sanitizer --tool $t --report-api-errors no --error-exitcode 9 \
		"$X/tests/test_gpu_cuda" > "$OUT/sanitizer-$t.log" 2>&1
	echo "$t: exit $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/sanitizer-$t.log")"
done

step 304-trace-cuda.bats
timeout 300 bats tests/304-trace-cuda.bats 2>&1 | tee "$OUT/304.log"

step "torch2 family: trace path on CUDA (opsets 17, 23)"
timeout 400 python3 tests/conformance/torch2.py --src "$X/torch2" --paths trace --device cuda \
	--archives traced,scripted --opsets 17,23 --pt2onnx "$X/bin/pt2onnx" --json "$OUT/torch2-cuda.json" \
	> "$OUT/torch2-cuda.log" 2>&1
grep -v '^PASS' "$OUT/torch2-cuda.log"
step "torch2 family: script path and .pt2 (opsets 17, 23)"
timeout 400 python3 tests/conformance/torch2.py --src "$X/torch2" --paths script \
	--archives traced,scripted,exported --opsets 17,23 --size2 --pt2onnx "$X/bin/pt2onnx" \
	> "$OUT/torch2-script.log" 2>&1
grep -v '^PASS' "$OUT/torch2-script.log"

step "--device auto against cpu and cuda: resnet50 (torch 2.11's jit.trace), batch 1 and 32"
python3 - "$X/bin/pt2onnx" > "$OUT/auto.log" 2>&1 <<'PY'
import os, statistics, subprocess, sys, tempfile, time
import torch, torchvision
w = tempfile.mkdtemp()
m = torchvision.models.resnet50(weights=None).eval()
with torch.no_grad():
    torch.jit.trace(m, torch.randn(1, 3, 224, 224)).save(f"{w}/r50.pt")
def t(cmd, n=3):
    ts = []
    for _ in range(n):
        t0 = time.perf_counter(); p = subprocess.run(cmd, capture_output=True, text=True); ts.append(time.perf_counter() - t0)
        if p.returncode:
            return f"exit {p.returncode}: {p.stderr.strip().splitlines()[-1:]}"
    return f"{statistics.median(ts):.3f} s"
for b in (1, 32):
    for dev in ("cpu", "cuda", "auto"):
        c = [sys.argv[1], f"{w}/r50.pt", "--trace", "--device", dev, "--input", f"x=f32[{b},3,224,224]", "-o", f"{w}/o.onnx"]
        print(f"resnet50 batch {b} --device {dev}: {t(c)}", flush=True)
    p = subprocess.run([sys.argv[1], "-v", f"{w}/r50.pt", "--trace", "--device", "auto", "--input", f"x=f32[{b},3,224,224]", "-o", f"{w}/o.onnx"], capture_output=True, text=True)
    print("  auto says:", [l for l in p.stderr.splitlines() if "device" in l][:2], flush=True)
c = [sys.argv[1], f"{w}/r50.pt", "--script", "--input", "x=f32[1,3,224,224]", "-o", f"{w}/o.onnx"]
print(f"resnet50 script path: {t(c)}", flush=True)
# torch 2.11's exporters, whole processes: TorchScript on the same archive,
# dynamo on the module (torch.export cannot take a ScriptModule)
for dyn, load in ((False, f"torch.jit.load('{w}/r50.pt')"), (True, "torchvision.models.resnet50(weights=None).eval()")):
    code = f"import torch, torchvision; m = {load}; torch.onnx.export(m, (torch.randn(1,3,224,224),), '{w}/t.onnx', dynamo={dyn})"
    print(f"torch.onnx.export dynamo={dyn} (whole process): {t([sys.executable, '-c', code], 1)}", flush=True)
PY
cat "$OUT/auto.log"
step done

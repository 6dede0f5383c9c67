#!/usr/bin/env bats
# 605-emit-passthrough.bats - a weight that passes through untouched (a
# Linear's, read with Gemm's transB=1) reaches the .onnx, inline or in the
# external data file, as the archive's bytes, copied by the kernel
# (copy_file_range, seen by strace) where the output is a regular file,
# through a buffer where it is not (a pipe).  Oracles: torch 1.13's
# parameter bytes and outputs, python3-onnx reading the model.
# bats file_tags=tier:standard

load helper

setup_file() {
	need_torch || return 0
	need_ort || return 0
}

@test "emit: a Linear's weight is the archive's bytes in the .onnx, inline" {
	run -0 transb_export mlp3
	run -0 "$PYTHON" "$TESTS_DIR/lower/transb_check.py" mlp3.onnx mlp3
}

@test "emit: a Linear's weight is the archive's bytes in the external data file" {
	run -0 transb_export mlp3 --external-data
	[ -s mlp3.onnx.data ]
	run -0 "$PYTHON" "$TESTS_DIR/lower/transb_check.py" mlp3.onnx mlp3
}

@test "emit: the untouched weights are copied by copy_file_range, inline and external; to a pipe through the buffer" {
	command -v strace > /dev/null || skip "needs strace"
	fixture_run "$TESTS_DIR/lower/transb_models.py"
	# mlp3's first weight: 512 x 300 floats, 600 KiB, over the 256 KiB
	# below which emit copies through its buffer.  LeakSanitizer cannot
	# run under ptrace (make test-asan): leaks are checked by the rest
	local ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
	export ASAN_OPTIONS
	run -0 strace -f -e trace=copy_file_range -o inline.st \
		"$BINDIR/pt2onnx" mlp3.pt --trace --input mlp3_in_0.npy -o a.onnx
	grep -E 'copy_file_range\(.*= 614400$' inline.st
	run -0 strace -f -e trace=copy_file_range -o ext.st \
		"$BINDIR/pt2onnx" mlp3.pt --trace --input mlp3_in_0.npy --external-data -o b.onnx
	grep -E 'copy_file_range\(.*= 614400$' ext.st
	run -0 "$PYTHON" "$TESTS_DIR/lower/transb_check.py" a.onnx mlp3
	# standard output a pipe: no copy_file_range, the same bytes
	"$BINDIR/pt2onnx" mlp3.pt --trace --input mlp3_in_0.npy -o - | cat > c.onnx
	run -0 cmp a.onnx c.onnx
}

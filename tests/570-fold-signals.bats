#!/usr/bin/env bats
# 570-fold-signals.bats - a signal that ends fold while it writes its
# --data-file (SIGTERM, SIGINT, SIGHUP) removes that half-written file, and
# fold dies of the signal (128 + N in a shell); a fold that finishes keeps
# it for the stages after it.
# bats file_tags=tier:check

load helper

# two Conv + BatchNormalization pairs: the first (its weight inline) fuses
# into the data file (its 64-byte header, then 16 KiB of computed weights;
# the second's weight, by reference, becomes a scaled view); with
# PT2ONNX_STALL=fold-data (lib/common/outfile.h) fold waits there, the data
# file open, until the signal comes
setup() {
	WORK="$BATS_TEST_TMPDIR"
	cd "$WORK" || return 1
	head -c 16384 /dev/zero > w.bin
	head -c 256 /dev/zero > p.bin
	local zeros
	zeros=$(od -An -v -tx1 w.bin | tr -d ' \n')
	cat > g.ir <<IR
ir 1.0 onnx
opset "" 13
graph g(%x : Float(1, 64, 2, 2),
      %w1 : Float(64, 64, 1, 1) = hex"$zeros",
      %w2 : Float(64, 64, 1, 1) = weight("w.bin", offset=0, length=16384),
      %s : Float(64) = weight("p.bin", offset=0, length=256),
      %v : Float(64) = weight("p.bin", offset=0, length=256)):
  %a : Float(1, 64, 2, 2) = onnx::Conv[kernel_shape=[1, 1]](%x, %w1)
  %b : Float(1, 64, 2, 2) = onnx::BatchNormalization(%a, %s, %s, %s, %v)
  %c : Float(1, 64, 2, 2) = onnx::Conv[kernel_shape=[1, 1]](%b, %w2)
  %d : Float(1, 64, 2, 2) = onnx::BatchNormalization(%c, %s, %s, %s, %v)
  return (%d)
IR
}

@test "fold: SIGTERM, SIGINT and SIGHUP while folding remove the data file" {
	export PT2ONNX_STALL=fold-data
	for sig in TERM INT HUP; do
		spawn "$BINDIR/fold" g.ir --data-file out.data -o out.ir
		# the first pair is fused: its weights are in the data file
		wait_for '[ "$(stat -c %s out.data 2> /dev/null)" = 16448 ]'
		kill -s "$sig" "$(cat pid)"
		wait_for '[ -e rc ]'
		[ "$(cat rc)" = $((128 + $(kill -l "$sig"))) ]
		[ ! -e out.data ]
		[ ! -e out.ir ]
	done
}

@test "fold: a data file that fold finished stays" {
	# no stall: fold runs to the end
	run -0 tool fold g.ir --data-file out.data -o out.ir
	[ -s out.data ]
	grep -q "out.data" out.ir
}

#!/usr/bin/env bats
# 670-emit-signals.bats - a signal that ends emit mid-write (SIGTERM, SIGINT,
# SIGHUP) removes the temporary it was writing beside the output
# (lib/common/outfile.c), and emit dies of that signal (128 + N in a shell).
# bats file_tags=tier:check

load helper

# a graph with one weight; PT2ONNX_STALL=outfile (lib/common/outfile.h)
# makes emit wait once its temporary output exists, until the signal comes
stalled_graph() {
	head -c 16 /dev/zero > w.bin
	export PT2ONNX_STALL=outfile
	cat > g.txt <<'IR'
ir 1.0 onnx
opset "" 14
graph g(%x : Float(4),
      %w : Float(4) = weight("w.bin", offset=0, length=16)):
  %y : Float(4) = onnx::Add(%x, %w)
  return (%y)
IR
}

@test "emit: SIGTERM, SIGINT and SIGHUP mid-write leave no temporary file" {
	stalled_graph
	for sig in TERM INT HUP; do
		spawn "$BINDIR/emit" g.txt -o m.onnx
		# writing: the temporary beside m.onnx exists
		wait_for 'ls -A | grep -q "^\.m\.onnx\."'
		kill -s "$sig" "$(cat pid)"
		wait_for '[ -e rc ]'
		[ "$(cat rc)" = $((128 + $(kill -l "$sig"))) ]
		run -0 ls -A
		[ "$output" = "$(printf 'g.txt\npid\nrc\nspawn.err\nspawn.out\nw.bin')" ]
	done
}

@test "emit: an existing output survives a signal mid-write unchanged" {
	stalled_graph
	echo old > m.onnx
	spawn "$BINDIR/emit" g.txt -o m.onnx
	wait_for 'ls -A | grep -q "^\.m\.onnx\."'
	kill -s TERM "$(cat pid)"
	wait_for '[ -e rc ]'
	[ "$(cat rc)" = 143 ]
	[ "$(cat m.onnx)" = old ]
	run -1 bash -c 'ls -A | grep "^\.m\.onnx\."'
}

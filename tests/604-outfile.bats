#!/usr/bin/env bats
# 604-outfile.bats - -o onto something that is not a regular file: a FIFO or
# a device is written directly, never replaced by a renamed temporary (as
# root, renaming onto /dev/null would replace the device itself); pt2onnx's
# temporary directory beside the output (a rename, not a copy); --fsync.
# bats file_tags=tier:check
load helper

# fsync_order FILE_SYNC RENAMES STRACE: in strace -f's log, RENAMES
# renames, each followed, before the next one by that process, by an
# fsync of its target's directory (opened O_DIRECTORY); with FILE_SYNC=1
# each also preceded, since the last, by an fsync of a file
fsync_order() {
	awk -v filesync="$1" -v want="$2" '
	function dirof(p) { sub(/\/[^\/]*$/, "", p); return p }
	{ pid = $1 }
	/O_DIRECTORY\) = [0-9]+$/ { split($0, q, "\""); dir[pid, $NF] = q[2] }
	/fsync\([0-9]+\) += 0$/ {
		fd = $2; sub(/^fsync\(/, "", fd); sub(/\)$/, "", fd)
		if ((pid, fd) in dir) {
			if (pending[pid] != "" && dir[pid, fd] == dirof(pending[pid]))
				pending[pid] = ""
		} else
			synced[pid] = 1
	}
	/rename\(.*\) = 0$/ {
		if (pending[pid] != "" || (filesync && !synced[pid])) bad = 1
		split($0, q, "\""); pending[pid] = q[4]; synced[pid] = 0; n++
	}
	END {
		for (p in pending) if (pending[p] != "") bad = 1
		exit bad || n != want
	}' "$3"
}

@test "outfile: -o FIFO is written through, the FIFO stays a FIFO" {
	mkfifo "$WORK/fifo"
	cat "$WORK/fifo" > "$WORK/got" &
	run tool script "$ROOT_DIR/examples/cnn.pt" -o "$WORK/fifo"
	wait
	[ "$status" -eq 0 ]
	[ -p "$WORK/fifo" ]
	tool script "$ROOT_DIR/examples/cnn.pt" -o "$WORK/want"
	cmp "$WORK/got" "$WORK/want"
}

@test "outfile: -o /dev/null leaves /dev/null a character device" {
	for t in script trace; do
		run tool $t "$ROOT_DIR/examples/cnn.pt" --input 'x=f32[1,3,8,8]' -o /dev/null
		[ "$status" -eq 0 ]
		[ -c /dev/null ]
	done
	tool script "$ROOT_DIR/examples/cnn.pt" --input 'x=f32[1,3,8,8]' | tool lower --opset 13 -o /dev/null
	[ -c /dev/null ]
}

@test "outfile: -o DIRECTORY is an I/O error naming it" {
	run tool script "$ROOT_DIR/examples/cnn.pt" -o "$WORK"
	[ "$status" -eq 5 ]
	[[ "$output" == *"$WORK"*"Is a directory"* ]]
}

@test "outfile: pt2onnx -o /dev/null or a FIFO: made and checked aside, then copied; nothing removed" {
	run tool pt2onnx "$ROOT_DIR/examples/cnn.pt" --input 'x=f32[1,3,8,8]' -o /dev/null
	[ "$status" -eq 0 ]
	[ -c /dev/null ]
	mkfifo "$WORK/fifo"
	cat "$WORK/fifo" > "$WORK/got.onnx" &
	run tool pt2onnx "$ROOT_DIR/examples/cnn.pt" --input 'x=f32[1,3,8,8]' -o "$WORK/fifo"
	wait
	[ "$status" -eq 0 ]
	[ -p "$WORK/fifo" ]
	run -0 tool check "$WORK/got.onnx"
	run -2 tool pt2onnx "$ROOT_DIR/examples/cnn.pt" --input 'x=f32[1,3,8,8]' -o /dev/null --external-data
	[ -c /dev/null ]
}

@test "outfile: pt2onnx makes its model beside the output (renamed, never copied), \$TMPDIR only for -o -" {
	mkdir "$WORK/out"
	# a $TMPDIR that cannot be used: a regular output never needs it
	TMPDIR=/nonexistent run -0 tool pt2onnx "$ROOT_DIR/examples/cnn.pt" \
		--input 'x=f32[1,3,8,8]' -o "$WORK/out/m.onnx" --external-data
	run -0 ls -A "$WORK/out"
	[ "$output" = "$(printf 'm.onnx\nm.onnx.data')" ]
	run -0 tool check "$WORK/out/m.onnx"
	# the model and its data file are renamed, not copied
	command -v strace > /dev/null || skip "needs strace"
	# LeakSanitizer cannot run under ptrace (make test-asan): leaks are
	# checked by the runs above
	local ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
	export ASAN_OPTIONS
	run -0 strace -f -e trace=rename,renameat,renameat2 \
		-o "$WORK/st" "$BINDIR/pt2onnx" "$ROOT_DIR/examples/cnn.pt" \
		--input 'x=f32[1,3,8,8]' -o "$WORK/out/m.onnx" --external-data
	grep -E 'rename.*\.pt2onnx-[^/]*/m\.onnx".*"[^"]*out/m\.onnx"' "$WORK/st"
	grep -E 'rename.*\.pt2onnx-[^/]*/m\.onnx\.data".*"[^"]*out/m\.onnx\.data"' "$WORK/st"
	# standard output is written through from a temporary in $TMPDIR
	TMPDIR=/nonexistent run -5 tool pt2onnx "$ROOT_DIR/examples/cnn.pt" \
		--input 'x=f32[1,3,8,8]' -o -
	[ "${lines[0]}" = "pt2onnx: cannot create a temporary directory in '/nonexistent': No such file or directory" ]
	[ "${#lines[@]}" -eq 1 ]
}

@test "outfile: --fsync (emit, pt2onnx) fsyncs the model and its data file before the rename, their directory after; the bytes are the same" {
	tool script "$ROOT_DIR/examples/cnn.pt" --input 'x=f32[1,3,8,8]' |
		tool lower --opset 17 | tool fold -o "$WORK/f.ir"
	run -0 tool emit "$WORK/f.ir" -o "$WORK/a.onnx"
	run -0 tool emit "$WORK/f.ir" -o "$WORK/b.onnx" --fsync
	cmp "$WORK/a.onnx" "$WORK/b.onnx"
	run -0 tool pt2onnx "$ROOT_DIR/examples/cnn.pt" --input 'x=f32[1,3,8,8]' -o "$WORK/c.onnx"
	run -0 tool pt2onnx "$ROOT_DIR/examples/cnn.pt" --input 'x=f32[1,3,8,8]' -o "$WORK/d.onnx" --fsync
	cmp "$WORK/c.onnx" "$WORK/d.onnx"
	command -v strace > /dev/null || skip "needs strace"
	local ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
	export ASAN_OPTIONS
	# without --fsync nothing is fsynced; with it, both files, each
	# before the rename that names it
	run -0 strace -f -e trace=fsync,fdatasync -o "$WORK/st0" "$BINDIR/emit" \
		"$WORK/f.ir" -o "$WORK/e.onnx" --external-data
	run -1 grep -E 'fsync|fdatasync' "$WORK/st0"
	run -0 strace -f -e trace=fsync,openat,rename,renameat,renameat2 -o "$WORK/st1" \
		"$BINDIR/emit" "$WORK/f.ir" -o "$WORK/e.onnx" --external-data --fsync
	# each file fsynced before its rename, its directory after: 2
	# renames, 4 fsyncs
	[ "$(grep -c 'fsync(' "$WORK/st1")" -eq 4 ]
	fsync_order 1 2 "$WORK/st1"
	# the wrapper renames what emit synced out of its temporary directory
	# (the data file, then the model), syncing the output's directory
	# after each
	run -0 strace -f -e trace=fsync,openat,rename,renameat,renameat2 -o "$WORK/st2" \
		"$BINDIR/pt2onnx" "$ROOT_DIR/examples/cnn.pt" --input 'x=f32[1,3,8,8]' \
		-o "$WORK/g.onnx" --external-data --fsync
	[ -s "$WORK/g.onnx" ] && [ -s "$WORK/g.onnx.data" ]
	fsync_order 0 4 "$WORK/st2"
	grep -q "rename(\"[^\"]*\", \"$WORK/g.onnx\") = 0" "$WORK/st2"
}

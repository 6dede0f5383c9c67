#!/usr/bin/env bats
# 604-outfile.bats - -o onto something that is not a regular file: a FIFO or
# a device is written directly, never replaced by a renamed temporary (as
# root, renaming onto /dev/null would replace the device itself).
# bats file_tags=tier:check
load helper

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

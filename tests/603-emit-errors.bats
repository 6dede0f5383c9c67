#!/usr/bin/env bats
# 603-emit-errors.bats - emit's failures: the exit status of each kind (diag.h),
# a one-line message naming the file, and never an output file left behind.
# bats file_tags=tier:check

load helper
load emit_helper

@test "emit: aten-level IR is refused (exit 4): run lower first" {
	run -4 emit "$DATA/emit-aten.ir" -o out.onnx
	[ "$output" = "emit: $DATA/emit-aten.ir: aten-level IR: run lower first" ]
	only_files
}

@test "emit: malformed or empty IR (exit 3)" {
	printf 'hello world\n' > bad.ir
	run -3 emit bad.ir -o out.onnx
	[[ "$output" == "emit: bad.ir:1: "* ]]
	[ "${#lines[@]}" -eq 1 ]
	: > empty.ir
	run -3 emit empty.ir -o out.onnx
	[ "$output" = "emit: empty.ir: empty input: expected an IR stream" ]
	printf '\x81\xa1x\x01' > bad.bin
	run -3 emit bad.bin -o out.onnx
	[[ "$output" == "emit: bad.bin: "* ]]
	only_files bad.ir empty.ir bad.bin
}

@test "emit: a missing weight file (exit 3), reported once for all its weights" {
	run -3 emit "$DATA/emit-cnn.ir" -o out.onnx
	[ "${lines[0]}" = "emit: $DATA/emit-cnn.ir: weight 'fc.weight': cannot open 'cnn-fc.bin': No such file or directory" ]
	[ "${#lines[@]}" -eq 1 ]
	only_files
}

@test "emit: a weight file shorter than its reference (exit 3)" {
	reference cnn-weights full.bin
	head -c 5000 full.bin > cnn-fc.bin
	run -3 emit "$DATA/emit-cnn.ir" -o out.onnx
	[ "${lines[0]}" = "emit: $DATA/emit-cnn.ir: weight 'fc.weight': 'cnn-fc.bin' is 5000 bytes, shorter than the reference (offset 0 + length 5120)" ]
	[ "${lines[1]}" = "emit: $DATA/emit-cnn.ir: weight 'fc.bias': 'cnn-fc.bin' is 5000 bytes, shorter than the reference (offset 5120 + length 40)" ]
	only_files full.bin cnn-fc.bin
}

@test "emit: a reference too short for its tensor (exit 3)" {
	reference cnn-weights cnn-fc.bin
	sed 's/length=5120/length=5000/' "$DATA/emit-cnn.ir" > len.ir
	run -3 emit len.ir -o out.onnx
	[ "$output" = "emit: len.ir: weight 'fc.weight' needs 5120 bytes but its reference into 'cnn-fc.bin' has length 5000" ]
	only_files cnn-fc.bin len.ir
}

@test "emit: a failed write (exit 5) leaves no output file" {
	reference cnn-weights cnn-fc.bin
	for n in 1 2 5; do
		PT2ONNX_FAIL_WRITE=$n run -5 emit "$DATA/emit-cnn.ir" -o out.onnx
		[ "$output" = "emit: cannot write 'out.onnx': No space left on device" ]
		only_files cnn-fc.bin
	done
	run -5 emit "$DATA/emit-cnn.ir" -o nosuchdir/out.onnx
	[[ "$output" == "emit: cannot create 'nosuchdir/out.onnx': No such file or directory" ]]
}

@test "emit: an attribute of a kind ONNX cannot hold (exit 4)" {
	cat > raw.ir <<-'EOF'
	ir 1.0 onnx
	opset "" 13
	graph raw(%x : Float(2)):
	  %y : Float(2) = onnx::Relu[weird=raw"83a16ea57765697264a16ba27a7aa17601"](%x), scope: Net/ReLU[act]
	  return (%y)
	EOF
	run -4 emit raw.ir -o out.onnx
	[ "$output" = "emit: raw.ir: node onnx::Relu at Net/ReLU[act]: attribute 'weird' is of a kind ONNX cannot hold" ]
	only_files raw.ir
}

@test "emit: graph inputs of types ONNX has not, and nested blocks, are refused (exit 4)" {
	cat > int.ir <<-'EOF'
	ir 1.0 onnx
	opset "" 13
	graph g(%x : Float(2), %n : int):
	  %y : Float(2) = onnx::Relu(%x)
	  return (%y)
	EOF
	run -4 emit int.ir -o out.onnx
	[ "$output" = "emit: int.ir: graph input 'n' is of type int, which ONNX cannot express (run lower)" ]
	cat > nested.ir <<-'EOF'
	ir 1.0 onnx
	opset "" 13
	graph g(%x : Float(2), %c : Bool()):
	  %y : Float(2) = onnx::If(%c)
	    block0():
	      -> (%x)
	    block1():
	      -> (%x)
	  return (%y)
	EOF
	run -4 emit nested.ir -o out.onnx
	[ "$output" = "emit: nested.ir: node onnx::If has nested blocks: at ONNX level subgraphs are graph attributes (run lower)" ]
	only_files int.ir nested.ir
}

@test "emit: usage errors (exit 2) and an unreadable input (exit 5)" {
	run -2 emit --no-such-option
	[[ "${lines[-1]}" == "Try 'emit --help'." ]]
	run -2 emit a.ir b.ir
	[ "$output" = "emit: one input at most (try 'emit --help')" ]
	run -5 emit nosuch.ir -o out.onnx
	[ "$output" = "emit: cannot open 'nosuch.ir': No such file or directory" ]
	only_files
}

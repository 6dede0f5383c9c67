#!/usr/bin/env bats
# 760-check-hostile.bats - issue 16's check findings: external data at an
# absolute or ".." location is a problem and `check --print` does not turn
# it into a weight() that emit would read; a symlink leading out of the
# model's folder is a problem; a graph claiming 2^62 bytes and If nested
# 100k deep stay refused (regression cases).
# bats file_tags=tier:check

load helper

made() { "$PYTHON" "$TESTS_DIR/check/make_ext_location.py" "$@"; }

@test "check: absolute and '..' external data locations are problems; --print keeps no reference to them" {
	mkdir abs dd
	made abs /etc/passwd
	made dd ../../../../../../etc/passwd
	run -1 check abs/m.onnx
	[ "${lines[0]}" = 'check: abs/m.onnx: initializer "w": external data location "/etc/passwd" must be a relative path' ]
	run -1 check dd/m.onnx
	[ "${lines[0]}" = 'check: dd/m.onnx: initializer "w": external data location "../../../../../../etc/passwd" must not contain ".."' ]
	local d
	for d in abs dd; do
		run -1 --separate-stderr check --print "$d/m.onnx" -o "$d.ir"
		[[ "${stderr_lines[1]}" == "check: $d/m.onnx: warning: initializer \"w\": external data location \""*"\" is outside the model's directory; printed without its data" ]]
		! grep -q 'weight(' "$d.ir"
		grep -q '%w : Byte(0) = {}' "$d.ir"
		# what emit makes of it holds none of the file's bytes
		emit "$d.ir" -o "$d.onnx"
		! grep -q root: "$d.onnx"
	done
}

@test "check: external data through a symlink out of the model's folder is a problem; emit refuses it too" {
	mkdir sl out
	made sl w.bin
	"$PYTHON" -c "open('out/secret', 'wb').write(b'0123456789abcdef')"
	ln -s ../out/secret sl/w.bin
	run -1 check sl/m.onnx
	[ "${lines[0]}" = 'check: sl/m.onnx: initializer "w": external data "sl/w.bin" resolves outside the model'"'"'s directory' ]
	# inside the folder, the same model is fine
	rm sl/w.bin && cp out/secret sl/w.bin
	run -0 check sl/m.onnx
	rm sl/w.bin && ln -s ../out/secret sl/w.bin
	cd sl
	run -1 check --print m.onnx -o m.ir
	grep -q 'weight("w.bin"' m.ir
	run -3 emit m.ir -o m2.onnx
	[ "$output" = "emit: m.ir: weight 'w': 'w.bin' is not a file emit may read: outside the model's folder, not a torch archive's data nor a fold data file (--weights-from DIR allows a folder)" ]
	[ ! -e m2.onnx ]
}

@test "check: a graph claiming 2^62 bytes and If nested 100000 deep are refused (exit 3)" {
	"$PYTHON" "$TESTS_DIR/check/make_hostile.py" .
	run -3 check huge_len_graph.onnx
	[ "$output" = "check: huge_len_graph.onnx: not an ONNX model (protobuf parse failed: truncated or not protobuf)" ]
	run -3 check nested_if_100k.onnx
	[ "$output" = "check: nested_if_100k.onnx: not an ONNX model (messages nested deeper than 100 levels)" ]
}

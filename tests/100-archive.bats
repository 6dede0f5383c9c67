#!/usr/bin/env bats
# 100-archive.bats - the archive layer (lib/archive: zip, pickle, torch_archive)
# on real TorchScript archives: tests/archive/make_archives.py has torch
# write a CNN, resnet18, a module of views, an LSTM and two quantized models
# with what torch says is in them (expected.json); the unit test
# test_torch_archive (test_archive_real) opens each one with the library
# and compares every tensor, summing the bytes at the offsets it computed.
#
#   PT2ONNX_UNITDIR  where the unit test binaries are (default build/tests)
#
# Needs Debian's python3-torch and python3-torchvision (skipped without);
# generating the archives takes a few seconds and ~50 MB.
# bats file_tags=tier:standard

bats_require_minimum_version 1.5.0
load helper

UNITDIR="${PT2ONNX_UNITDIR:-$ROOT_DIR/build/tests}"
ARCHIVES="$BATS_FILE_TMPDIR/archives"

setup_file() {
	need_torch torchvision || return 0
	FIXTURE_DEST="$ARCHIVES" fixture_run "$TESTS_DIR/archive/make_archives.py" @OUT >/dev/null
}

need_archives() {
	[ -x "$UNITDIR/test_torch_archive" ] ||
		skip "no $UNITDIR/test_torch_archive: run make unit first"
	[ -f "$ARCHIVES/expected.json" ] ||
		skip "python3-torch or python3-torchvision missing: no archives"
}

@test "archive: every tensor torch reports is found, bytes at the computed offsets" {
	need_archives
	run -0 env PT2ONNX_ARCHIVE_DIR="$ARCHIVES" \
		"$UNITDIR/test_torch_archive" test_archive_real
	[[ "$output" != *skipped* ]]
	[[ "$output" == *"ok test_archive_real"* ]]
	[ "${lines[-1]}" = "1 passed, 0 failed" ]
	for a in cnn resnet18 views lstm qdyn qstatic; do
		[[ "$output" == *"# $a.pt: opened in "*", 0 wrong"* ]]
	done
}

@test "archive: a truncated real archive gets one line naming the file" {
	need_archives
	mkdir cut
	head -c 1000000 "$ARCHIVES/resnet18.pt" > cut/resnet18.pt
	printf '{"resnet18.pt": []}\n' > cut/expected.json
	run -1 env PT2ONNX_ARCHIVE_DIR="$PWD/cut" \
		"$UNITDIR/test_torch_archive" test_archive_real
	[[ "$output" == *"test: $PWD/cut/resnet18.pt: not a zip archive (no end of central directory record)"* ]]
	[ "${lines[-1]}" = "0 passed, 1 failed" ]
}

@test "archive: a real archive with a data record cut short is refused" {
	need_archives
	mkdir bad
	# shrink the uncompressed size of resnet18/data/0 in the central
	# directory: the storage no longer fits its record
	"$PYTHON" - "$ARCHIVES/resnet18.pt" bad/resnet18.pt <<-'EOF'
	import struct, sys
	data = bytearray(open(sys.argv[1], "rb").read())
	name = b"resnet18/data/0"
	at = data.rfind(b"PK\x01\x02", 0, data.rfind(name))
	assert data[at + 46:at + 46 + len(name)] == name
	csize = struct.unpack_from("<I", data, at + 20)[0]
	struct.pack_into("<II", data, at + 20, csize - 4, csize - 4)
	open(sys.argv[2], "wb").write(data)
	EOF
	printf '{"resnet18.pt": []}\n' > bad/expected.json
	run -1 env PT2ONNX_ARCHIVE_DIR="$PWD/bad" \
		"$UNITDIR/test_torch_archive" test_archive_real
	[[ "$output" == *"test: $PWD/bad/resnet18.pt: record 'resnet18/data/0' holds "*" bytes, but its storage needs "* ]]
}

need_script() {
	[ -x "$BINDIR/script" ] || skip "no $BINDIR/script: run make first"
	[ -f "$ARCHIVES/expected.json" ] ||
		skip "python3-torch or python3-torchvision missing: no archives"
}

# flip.py IN OUT ENTRY: copies the archive with one bit of ENTRY's stored
# bytes (the compressed ones when it is deflated) flipped, in their middle
write_flip_py() {
	cat > flip.py <<-'EOF'
	import struct, sys, zipfile
	src, dst, name = sys.argv[1:4]
	data = bytearray(open(src, "rb").read())
	info = zipfile.ZipFile(src).getinfo(name)
	at = info.header_offset
	n, e = struct.unpack_from("<HH", data, at + 26)
	data[at + 30 + n + e + info.compress_size // 2] ^= 0x01
	open(dst, "wb").write(data)
	EOF
}

@test "archive: script reads resnet18's archive without reading its weights" {
	need_script
	# a reaped child's I/O counters are added to its parent's: the
	# difference across the wait is what script read (read/pread bytes)
	run -0 "$PYTHON" - "$BINDIR/script" "$ARCHIVES/resnet18.pt" <<-'EOF'
	import os, subprocess, sys
	def rchar():
	    with open("/proc/self/io") as f:
	        return int(dict(l.split(":") for l in f)["rchar"])
	before = rchar()
	r = subprocess.run([sys.argv[1], sys.argv[2], "-o", "/dev/null"])
	print(r.returncode, rchar() - before, os.path.getsize(sys.argv[2]))
	EOF
	read -r rc got size <<< "$output"
	echo "script exit $rc, read $got of $size bytes"
	[ "$rc" = 0 ]
	[ "$got" -gt 0 ]
	# the weights are ~99% of the archive: reading any layer's would show
	[ $((got * 50)) -lt "$size" ]
}

@test "archive: a flipped bit in a weight goes unseen; in code or data.pkl it is a CRC error" {
	need_script
	write_flip_py
	mkdir ok bad
	cp "$ARCHIVES/resnet18.pt" ok/resnet18.pt
	"$PYTHON" flip.py ok/resnet18.pt bad/resnet18.pt resnet18/data/0
	! cmp -s ok/resnet18.pt bad/resnet18.pt
	# weights are references, never read: the same graph from both
	run -0 sh -c 'cd ok && "$1" -S resnet18.pt' sh "$BINDIR/script"
	orig=$output
	# weights refer to the archive by its absolute path
	[[ "$orig" == *"= weight(\"$PWD/ok/resnet18.pt\", offset="* ]]
	run -0 sh -c 'cd bad && "$1" -S resnet18.pt' sh "$BINDIR/script"
	[ "${output//$PWD\/bad\//$PWD/ok/}" = "$orig" ]

	code=resnet18/code/__torch__/torchvision/models/resnet.py
	"$PYTHON" flip.py ok/resnet18.pt c.pt "$code"
	run -3 "$BINDIR/script" c.pt -o /dev/null
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "script: c.pt: entry '$code': "* ]]

	"$PYTHON" flip.py ok/resnet18.pt p.pt resnet18/data.pkl
	run -3 "$BINDIR/script" p.pt -o /dev/null
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "script: p.pt: entry 'resnet18/data.pkl': bad CRC-32 (computed "*", the directory says "*")" ]]
}

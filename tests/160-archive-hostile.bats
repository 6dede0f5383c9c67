#!/usr/bin/env bats
# 160-archive-hostile.bats - hostile archives of issue 16's review
# (tests/data/repro): pickles that would run code and a zip bomb are
# refused by every stage that reads an archive, with one line, exit 3 and
# no output file.
# bats file_tags=tier:check

load helper

R="$ROOT_DIR/tests/data/repro"

@test "archive: pickles calling os.system, builtins.eval, subprocess.Popen are refused (exit 3) by script, trace and pt2onnx; nothing runs" {
	local f t g
	for f in os_system:small_traced/data.pkl:os.system \
		 builtins_eval:small_traced/data.pkl:builtins.eval \
		 subprocess_popen_constants:small_traced/constants.pkl:subprocess.Popen; do
		IFS=: read -r name rec g <<<"$f"
		for t in script trace; do
			run -3 tool $t "$R/rce_$name.pt" -i 'x=f32[2,8]' -o out.ir
			[ "$output" = "$t: $R/rce_$name.pt: $rec: offset 2 (GLOBAL): refusing global '$g' (not a torch archive construct)" ]
			[ ! -e out.ir ]
		done
		run -3 pt2onnx "$R/rce_$name.pt" -i 'x=f32[2,8]' -o out.onnx
		[ "${lines[0]}" = "script: $R/rce_$name.pt: $rec: offset 2 (GLOBAL): refusing global '$g' (not a torch archive construct)" ]
		[ ! -e out.onnx ]
	done
	[ -z "$(ls)" ]
}

@test "archive: a 1 MB pickle record inflating to 1 GiB is refused before it is inflated (limit 256 MiB)" {
	local t
	for t in script trace; do
		run -3 /usr/bin/time -f "rss %M" "$BINDIR/$t" "$R/zip_bomb_1GiB_pkl.pt" -i 'x=f32[2,8]' -o out.ir
		[ "${lines[0]}" = "$t: $R/zip_bomb_1GiB_pkl.pt: entry 'small_traced/data.pkl' is 1073741824 bytes, over the limit of 268435456 for a record read into memory" ]
		[ "${lines[2]#rss }" -lt 65536 ] # KiB: nothing was inflated
		[ ! -e out.ir ]
	done
}

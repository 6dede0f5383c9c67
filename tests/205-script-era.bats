#!/usr/bin/env bats
# 205-script-era.bats - `script` binds an archive's calls against the
# schemas of the torch that saved it (issue 10).  torch 1.13 writes
# <root>/version and no byteorder; torch 2.x writes <root>/.data/version and
# <root>/byteorder.  Where torch 2.11's schema of an overload differs from
# 1.13's (aten::pad_sequence gained padding_side="right"), python_print
# leaves the trailing default out, and the reader refills it from the
# saving version's schema.  tests/script/make_era_models.py saves one model
# with torch 1.13 and lays the same records out as torch 2.x does; the
# argument counts and the default come from torch 1.13's registry and torch
# 2.11's printed schemas (third_party/torch/aten-2.11.0-schemas.txt).
#
# Needs Debian's python3-torch; skipped without.
# bats file_tags=tier:standard

load helper
load script/era

need() {
	need_torch
	if [ ! -f "$BATS_FILE_TMPDIR/gen.ok" ]; then
		cat "$BATS_FILE_TMPDIR/gen.log" >&2
		return 1
	fi
}

# inputs FILE: the number of inputs of the aten::pad_sequence node in
# script's text form of FILE
inputs() {
	local l
	l=$(grep -F ' = aten::pad_sequence(' "$1") || return 1
	l=${l#*aten::pad_sequence(}
	l=${l%%)*}
	tr ',' '\n' <<< "$l" | grep -c '%'
}

@test "script: a 1.x archive binds pad_sequence against torch 1.13's schema" {
	need
	run -0 tool script -S "$M/v1.pt" -o v1.txt
	run -0 inputs v1.txt
	[ "$output" = "$(cat "$M/nargs_1_13")" ]
}

@test "script: the same archive laid out by torch 2.x binds against 2.11's schema and refills its new default" {
	need
	run -0 tool script -S "$M/v2.pt" -o v2.txt
	run -0 inputs v2.txt
	[ "$output" = "$(cat "$M/nargs_2_11")" ]
	# the last input is a constant holding 2.11's default
	local last
	last=$(grep -F ' = aten::pad_sequence(' v2.txt)
	last=${last%%)*}
	last=${last##*, }
	grep -F "  $last : str = prim::Constant[value=$(cat "$M/default_2_11")]" v2.txt
}

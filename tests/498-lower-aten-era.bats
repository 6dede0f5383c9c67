#!/usr/bin/env bats
# 498-lower-aten-era.bats - lower's ATen fallback names a call's
# non-tensor arguments after the schema the call was bound against: the
# saving torch's (lib/lower/lower.c, graph_era).  script records a torch
# 2.x archive as the graph property torch_era "2.x" (unpt2 writes the
# same for a .pt2 of torch 2.x); lower then reads torch 2.11's row of an
# overload whose schema changed (aten::pad_sequence gained padding_side),
# where it used to name the new argument arg3 after torch 1.13's row.
# The archives are 205-script-era's (tests/script/make_era_models.py: one
# model saved by torch 1.13, the same records laid out as torch 2.x
# does); the expected names come from torch 1.13's registry and torch
# 2.11's printed schema (third_party/torch/aten-2.11.0-schemas.txt).

# bats file_tags=tier:standard

load helper
load script/era

# names SCHEMA: the argument names of a printed schema, one a line
names() {
	"$PYTHON" - "$1" <<'PY'
import re, sys
args = sys.argv[1][sys.argv[1].index("(") + 1:sys.argv[1].rindex(") ->")]
for a in args.split(", "):
    print(re.split(r"[ =]", a)[1])
PY
}

@test "lower: the ATen fallback of a torch 2.x archive's call names its arguments after 2.11's schema, of a 1.x archive's after 1.13's" {
	need_torch
	[ -f "$BATS_FILE_TMPDIR/gen.ok" ] || { cat "$BATS_FILE_TMPDIR/gen.log" >&2; return 1; }
	local s211 s113 last211 last113
	s211=$(grep '^aten::pad_sequence(' "$ROOT_DIR/third_party/torch/aten-2.11.0-schemas.txt")
	s113=$("$PYTHON" -c "import torch; print([s for s in torch._C._jit_get_all_schemas() if s.name == 'aten::pad_sequence'][0])")
	last211=$(names "$s211" | tail -1)
	last113=$(names "$s113" | tail -1)
	[ "$last211" != "$last113" ]   # the overload changed between them
	run -0 tool script "$M/v2.pt" -o v2.air
	run -0 tool lower --operator-export-type onnx_aten -S v2.air
	[[ "$output" == *'prop "torch_era" "2.x"'* ]]
	[[ "$output" == *"operator=\"pad_sequence\""*" $last211="* ]]
	[[ "$output" != *'arg3='* ]]
	run -0 tool script "$M/v1.pt" -o v1.air
	run -0 tool lower --operator-export-type onnx_aten -S v1.air
	[[ "$output" != *torch_era* ]]
	[[ "$output" == *"operator=\"pad_sequence\""*" $last113="* ]]
	[[ "$output" != *" $last211="* ]]
}

@test "unpt2: a torch 2.x .pt2 carries the same torch_era \"2.x\" that script writes, and no second key for it" {
	# the archive was saved by torch 2.11 (its torch_version says so)
	unzip -p "$ROOT_DIR/tests/data/pt2/preprocess_uint8.pt2" '*/models/model.json' |
		grep -q '"torch_version": "2\.'
	run -0 tool unpt2 "$ROOT_DIR/tests/data/pt2/preprocess_uint8.pt2" -S
	[[ "$output" == *'prop "torch_era" "2.x"'* ]]
	[[ "$output" != *torch_version* ]]
}

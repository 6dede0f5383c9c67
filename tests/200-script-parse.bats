#!/usr/bin/env bats
# 200-script-parse.bats - the TorchScript parser (lib/script/ts_parser.c) on
# real archives: tests/script/make_sources.py has torch trace and script
# resnet18, mobilenet_v3_small, a control-flow model, an LSTM, a GRU, a
# TransformerEncoder and a GPT block, saves them and extracts every code/ .py
# entry; the unit test test_ts_parser (test_real_sources) parses each file
# and must report no error.  The aten schema table is checked against torch
# itself too (every schema, not only the committed sample).
#
#   PT2ONNX_UNITDIR  where the unit test binaries are (default build/tests)
#
# Needs Debian's python3-torch and python3-torchvision (skipped without);
# building the models takes about 10 s.
# bats file_tags=tier:standard

bats_require_minimum_version 1.5.0
load helper

UNITDIR="${PT2ONNX_UNITDIR:-$ROOT_DIR/build/tests}"

need() {
	[ -x "$UNITDIR/$1" ] || skip "no $UNITDIR/$1: run make unit first"
	need_torch torchvision
}

@test "script: every code file of traced and scripted archives parses" {
	need test_ts_parser
	run -0 "$PYTHON" "$TESTS_DIR/script/make_sources.py" "$WORK/src"
	[[ "$output" == *"resnet18_traced: "* ]]
	[[ "$output" == *"transformer_encoder_scripted: "* ]]
	run -0 env PT2ONNX_SOURCES_DIR="$WORK/src" \
		"$UNITDIR/test_ts_parser" test_real_sources
	echo "$output"
	[[ "$output" == *" 0 failed to parse"* ]]
	[[ "$output" != *"skipped"* ]]
	[[ "$output" == *"1 passed, 0 failed"* ]]
}

@test "script: the aten schema table renders every schema as torch does" {
	need test_aten_schema
	local have want
	have=$("$PYTHON" -c 'import torch; print(torch.__version__)')
	want=$(sed -n 's/^#define ATEN_SCHEMAS_TORCH_VERSION "\(.*\)"$/\1/p' \
		"$ROOT_DIR/lib/aten/aten_schemas.inc")
	[ "$have" = "$want" ] ||
		skip "the table is from torch $want, torch $have is installed"
	"$PYTHON" "$ROOT_DIR/scripts/gen_aten_schemas.py" --sample 0 >"$WORK/all.txt"
	run -0 env PT2ONNX_SCHEMA_SAMPLE="$WORK/all.txt" \
		"$UNITDIR/test_aten_schema" test_render_sample
	echo "$output"
	[[ "$output" == *", 0 differ"* ]]
	[[ "$output" == *"1 passed, 0 failed"* ]]
}

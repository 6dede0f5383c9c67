#!/usr/bin/env bats
# 991-pt2-models.bats - the .pt2 family: torch.export archives of the 11
# models torch 2.11 saved (../shared/torch2/models/NAME/exported.pt2, read
# in place: nothing copied), exported by pt2onnx with no --input (the unpt2
# stage) at opset 17 and at the newest opset (26), checked by onnx.checker
# and run in ONNX Runtime against torch 2.11's ref_K.npy (fp32: max |a-b| /
# max |ref| <= 1e-4; integers exact), by tests/conformance/torch2.py.  The
# three models with a dynamic dim (meta.json pt2_dynamic) run again at a
# second size, against the trace path's model of traced.pt made at that
# size (that path is verified against ref_K.npy in 990-torch2).
# Skips with a message when ../shared/torch2 is absent.

# bats file_tags=tier:standard

load helper

SHARED=/work/shared/torch2/models
T2="$TESTS_DIR/conformance/torch2.py"

setup_file() {
	need_ort || return 0
	[ -d "$SHARED" ] || need_skip "needs ../shared/torch2/models (torch 2.11's archives)" || return 0
}

@test "pt2: the 11 exported.pt2 at opsets 17 and 26 match torch 2.11's outputs; the 3 dynamic ones at a second size too" {
	run -0 "$PYTHON" "$T2" --src "$SHARED" --archives exported --opsets 17,26 --size2 --pt2onnx "$BINDIR/pt2onnx"
	[[ "$output" == *"torch2: 22 passed, 0 failed"* ]]
	[ "$(grep -c '^PASS .*second size: max rel' <<<"$output")" -eq 6 ]
	local m
	for m in llama_block unet_tiny vit_tiny; do
		grep -q "^PASS $m exported pt2 26 .*second size" <<<"$output"
	done
}

@test "pt2: dynamic dims come out named: the range constraint's symbol, or the export's Dim name given with --dynamic-axes" {
	local sym
	sym=$("$PYTHON" -c "import json, zipfile, sys; z = zipfile.ZipFile(sys.argv[1]); print(*json.loads(z.read('exported/models/model.json'))['range_constraints'])" "$SHARED/vit_tiny/exported.pt2")
	[ "$sym" = s77 ]
	run -0 pt2onnx "$SHARED/vit_tiny/exported.pt2" -o v.onnx
	run -0 "$PYTHON" -c "import onnx; g = onnx.load('v.onnx').graph; print([d.dim_param or d.dim_value for d in g.input[0].type.tensor_type.shape.dim], [d.dim_param or d.dim_value for d in g.output[0].type.tensor_type.shape.dim])"
	[ "$output" = "['$sym', 3, 32, 32] ['$sym', 10]" ]
	# meta.json's pt2_dynamic: the Dim torch.export was given
	local dim
	dim=$("$PYTHON" -c "import json, sys; print(json.load(open(sys.argv[1]))['pt2_dynamic']['0']['0'])" "$SHARED/vit_tiny/meta.json")
	run -0 pt2onnx "$SHARED/vit_tiny/exported.pt2" -o n.onnx --input-names img --output-names logits \
		--dynamic-axes "img:0=$dim;logits:0=$dim"
	run -0 "$PYTHON" -c "import onnx; g = onnx.load('n.onnx').graph; print(g.input[0].name, [d.dim_param or d.dim_value for d in g.input[0].type.tensor_type.shape.dim], g.output[0].name, [d.dim_param or d.dim_value for d in g.output[0].type.tensor_type.shape.dim], sorted({d.dim_param for v in g.value_info for d in v.type.tensor_type.shape.dim if d.dim_param}))"
	[ "$output" = "img ['$dim', 3, 32, 32] logits ['$dim', 10] ['$dim']" ]
	# and it runs at another batch size in ONNX Runtime
	"$PYTHON" -c "import numpy as np; x = np.load('$SHARED/vit_tiny/in_0.npy'); np.save('x5.npy', np.concatenate([x] * 3)[:5])"
	run -0 ort_run n.onnx out img=x5.npy
	"$PYTHON" -c "import numpy as np; assert np.load('out/logits.npy').shape == (5, 10)"
}

@test "pt2: a malformed archive through pt2onnx leaves an existing output as it was" {
	local k
	for k in missing_weight short_weight schema9; do
		"$PYTHON" "$TESTS_DIR/oracle/pt2_cases.py" mutate "$SHARED/kv_cache_step/exported.pt2" $k $k.pt2
		echo keep > out.onnx
		run pt2onnx $k.pt2 -o out.onnx
		[ "$status" -eq 3 ] || [ "$status" -eq 4 ]
		[[ "${lines[0]}" == "unpt2: $k.pt2: "* ]]
		[ "${lines[1]}" = "pt2onnx: the unpt2 stage failed (exit $status); no model written" ]
		[ "$(cat out.onnx)" = keep ]
	done
}

@test "pt2: the family is in the conformance suite's fast subset (make conformance-fast)" {
	run -0 "$PYTHON" "$TESTS_DIR/conformance/generate.py" --subset fast --family pt2 --list \
		--work "$WORK/cw"
	[ "$(grep -c '^pt2 ' <<<"$output")" -eq 11 ]
}

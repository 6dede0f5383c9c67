#!/usr/bin/env bats
# 110-pt2-reader.bats - the unpt2 stage (lib/pt2): torch.export archives
# (.pt2) read into aten IR.  tests/data/pt2/preprocess_uint8.pt2 is torch
# 2.11's exported.pt2 of ../shared/torch2/models/preprocess_uint8 (25 KB);
# the oracle is the archive itself, read by tests/oracle/pt2_cases.py with
# Python's zipfile and json (inputs, weights with the offsets of their
# stored entries, outputs, symbols), and its malformed variants are made
# there.  No torch, no ONNX Runtime.
# bats file_tags=tier:check

load helper

P="$TESTS_DIR/data/pt2/preprocess_uint8.pt2"
CASES="$TESTS_DIR/oracle/pt2_cases.py"
SHARED=/work/shared/torch2/models

unpt2() { tool unpt2 "$@"; }

@test "unpt2: inputs, weights (references into the archive's stored entries) and outputs are the program's" {
	run -0 unpt2 -S "$P" -o p.ir
	[ -z "$output" ]
	run -0 "$PYTHON" "$CASES" summary p.ir
	local got="$output"
	run -0 "$PYTHON" "$CASES" expect "$P"
	[ "$got" = "$output" ]
	[[ "$output" == *"weight conv.weight "* ]]
	[[ "$output" == *"input img 2,40,30,3"* ]]
	# the assertion is dropped, the dtypes are serde's mapped to torch's
	run -0 grep -c '_assert_tensor_metadata' p.ir || true
	[ "$output" = 0 ]
	grep -q '%img : Byte(2, 40, 30, 3)' p.ir
	grep -q '%argmax : Long(2, 24, 24) = aten::argmax' p.ir
	# scope and source from the node's nn_module_stack and stack_trace
	local stack
	stack=$("$PYTHON" -c "
import json, zipfile, sys
p = json.loads(zipfile.ZipFile(sys.argv[1]).read('exported/models/model.json'))
n = [n for n in p['graph_module']['graph']['nodes'] if n['name'] == 'conv2d'][0]['metadata']
f = n['stack_trace'].rsplit('File \"', 1)[1]
print(n['nn_module_stack'], f.split('\"')[0] + ':' + f.split(', line ')[1].split(',')[0])" "$P")
	[ "$stack" = "L__self__,,devset.Preprocess;L__self__conv,conv,torch.nn.modules.conv.Conv2d ${stack##* }" ]
	grep -q "= aten::conv2d(.*), scope: Preprocess/Conv2d\[conv\] # ${stack##* }\$" p.ir
}

@test "unpt2: dynamic dims become the range constraints' symbols (vit_tiny, llama_block of ../shared/torch2)" {
	[ -d "$SHARED" ] || skip "needs ../shared/torch2/models (torch 2.11's archives)"
	local m got
	for m in vit_tiny llama_block; do
		run -0 unpt2 -S "$SHARED/$m/exported.pt2" -o "$m.ir"
		run -0 "$PYTHON" "$CASES" summary "$m.ir"
		got="$output"
		run -0 "$PYTHON" "$CASES" expect "$SHARED/$m/exported.pt2"
		[ "$got" = "$output" ]
		[[ "$output" == *"symbol s77"* ]]
	done
}

@test "unpt2: a deflated archive is read (weights inline) and gives the same graph; the sample inputs (a pickle calling os.system) are never read" {
	"$PYTHON" "$CASES" mutate "$P" deflated d.pt2
	"$PYTHON" "$CASES" mutate "$P" rce_sample r.pt2
	run -0 unpt2 -S "$P" -o p.ir
	run -0 unpt2 -S d.pt2 -o d.ir
	run -0 unpt2 -S r.pt2 -o r.ir
	[ ! -e pwned ]
	# same nodes; the deflated weights are inline, as many
	diff <(grep '^  %' p.ir) <(grep '^  %' d.ir)
	[ "$(grep -c ' = weight("' p.ir)" -eq 4 ]
	[ "$(grep -c ' = {' d.ir)" -eq 4 ]
	run -1 grep -c 'weight(' d.ir
	diff <(grep '^  %' p.ir) <(grep '^  %' r.ir)
	run -0 "$PYTHON" "$CASES" summary r.ir
	local got="$output"
	run -0 "$PYTHON" "$CASES" expect r.pt2
	[ "$got" = "$output" ]
}

@test "unpt2: malformed archives: one line each, exit 3 (4: schema version 9), no output file" {
	local k
	for k in truncated schema9 missing_weight short_weight extra_output_spec; do
		"$PYTHON" "$CASES" mutate "$P" $k $k.pt2
	done
	run -3 unpt2 truncated.pt2 -o out.ir
	[ "$output" = "unpt2: truncated.pt2: not a zip archive (no end of central directory record)" ]
	run -4 unpt2 schema9.pt2 -o out.ir
	[ "$output" = "unpt2: schema9.pt2: schema version 9.17 is not supported (only major version 8)" ]
	run -3 unpt2 missing_weight.pt2 -o out.ir
	[ "$output" = "unpt2: missing_weight.pt2: exported/models/model.json: parameter 'conv.weight': entry 'exported/data/weights/weight_0' is missing" ]
	run -3 unpt2 short_weight.pt2 -o out.ir
	[ "$output" = "unpt2: short_weight.pt2: exported/models/model.json: parameter 'conv.weight': entry 'exported/data/weights/weight_0' holds 216 bytes, its metadata needs 432" ]
	# an output spec the graph does not return (was a model of 3 outputs)
	run -3 unpt2 extra_output_spec.pt2 -o out.ir
	[ "$output" = "unpt2: extra_output_spec.pt2: exported/models/model.json: 3 output specs for 2 graph outputs" ]
	[ ! -e out.ir ]
}

@test "unpt2: calls that cannot be converted are listed all at once (exit 4), and pt2onnx shows that line" {
	"$PYTHON" "$CASES" mutate "$P" unknown_ops u.pt2
	run -4 unpt2 u.pt2 -o out.ir
	[ "$output" = "unpt2: u.pt2: exported/models/model.json: 2 calls cannot be converted: torch.ops.mylib.frobnicate.default (node permute), torch.ops.aten.no_such_op.default (node argmax)" ]
	run -4 pt2onnx u.pt2 -o out.onnx
	[ "${lines[0]}" = "unpt2: u.pt2: exported/models/model.json: 2 calls cannot be converted: torch.ops.mylib.frobnicate.default (node permute), torch.ops.aten.no_such_op.default (node argmax)" ]
	[ "${lines[1]}" = "pt2onnx: the unpt2 stage failed (exit 4); no model written" ]
	[ ! -e out.ir ] && [ ! -e out.onnx ]
}

@test "unpt2: an archive of two programs needs --model; a --model it lacks is a usage error" {
	"$PYTHON" "$CASES" mutate "$P" two_models t.pt2
	run -2 unpt2 t.pt2 -o out.ir
	[ "$output" = "unpt2: t.pt2: the archive holds 2 models (model, second_model): choose one with --model" ]
	run -2 unpt2 --model nope t.pt2 -o out.ir
	[ "$output" = "unpt2: t.pt2: no model 'nope' in the archive (models: model, second_model)" ]
	[ ! -e out.ir ]
	run -0 unpt2 --model second_model -S t.pt2 -o out.ir
	grep -q '^graph second_model(' out.ir
	run -0 "$PYTHON" "$CASES" summary out.ir
	local got="$output"
	run -0 "$PYTHON" "$CASES" expect t.pt2
	[ "$got" = "$output" ]
}

@test "pt2onnx: a .pt2 needs no --input (given, it is ignored with a warning); --trace and --model misuse are usage errors" {
	run -2 pt2onnx "$P" --trace -o out.onnx
	[ "$output" = "pt2onnx: --trace does not apply to '$P': a torch.export archive is read, not run" ]
	run -2 pt2onnx "$TESTS_DIR/data/pt2/../repro/rce_os_system.pt" --model m -o out.onnx
	[ "$output" = "pt2onnx: --model applies to a torch.export archive (.pt2) only" ]
	[ ! -e out.onnx ]
	run -0 pt2onnx "$P" -o out.onnx -i 'img=u8[2,40,30,3]'
	[ "$output" = "pt2onnx: warning: --input is not needed for '$P': the torch.export archive has the input shapes (ignored)" ]
	run -0 onnx_checker out.onnx
}

#!/usr/bin/env bats
# 700-check.bats - check: agreement with python3-onnx's onnx.checker on
# Debian's libonnx-testdata, one broken model per checker rule (built at
# test time by check/make_broken.py, each also judged by the Python
# checker), --print round trips through emit, --dot through Graphviz, and
# unreadable input.
# bats file_tags=tier:check

bats_require_minimum_version 1.5.0
load helper

TESTDATA=/usr/share/libonnx-testdata/data

setup_file() {
	export BROKEN="$BATS_FILE_TMPDIR/broken"
	"$PYTHON" "$TESTS_DIR/check/make_broken.py" "$BROKEN"
}

# verdict NAME: python3-onnx's verdict on $BROKEN/NAME.onnx (ok or fail)
verdict() {
	awk -F'\t' -v n="$1" '$1 == n { print $2 }' "$BROKEN/verdicts.tsv"
}

# broken NAME MESSAGE [strict]: the Python checker rejects NAME.onnx (or,
# for a rule of ours that onnx 1.12 does not enforce, accepts it), and
# check rejects it (exit 1) with a line naming the file that contains
# MESSAGE.
broken() {
	local name=$1 msg=$2 strict=${3:-} v
	v=$(verdict "$name")
	if [ -n "$strict" ]; then
		[ "$v" = ok ] || { echo "python3-onnx now rejects $name ($v)"; return 1; }
	else
		[ "$v" = fail ] || { echo "python3-onnx accepts $name ($v)"; return 1; }
	fi
	cd "$BROKEN"
	run -1 check "$name.onnx"
	echo "$output"
	[[ "$output" == *"check: $name.onnx: "*"$msg"* ]]
	[ "${lines[-1]}" = "check: $name.onnx: invalid (${#lines[@]} problem$([ ${#lines[@]} -gt 2 ] && echo s || true))" ] ||
		[[ "${lines[-1]}" == "check: $name.onnx: invalid ("* ]]
}

# valid NAME: both checkers accept $BROKEN/NAME.onnx
valid() {
	[ "$(verdict "$1")" = ok ]
	cd "$BROKEN"
	run -0 check "$1.onnx"
	[ "$output" = "$1.onnx: ok" ]
}

# --- (a) agreement with onnx.checker on libonnx-testdata ---------------------

@test "check: agrees with onnx.checker on every libonnx-testdata model" {
	[ -d "$TESTDATA" ] || skip "libonnx-testdata is not installed"
	run "$PYTHON" "$TESTS_DIR/check/testdata_agreement.py" "$BINDIR/check" "$TESTDATA"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"accepted by python, rejected by check: 0"* ]]
	[[ "$output" == *"rejected by python, accepted by check: 0"* ]]
}

# --- (b) one broken model per rule --------------------------------------------

@test "check: the base model and controls pass both checkers" {
	valid base
	valid external_data_valid
	valid function_valid
	valid custom_domain_valid
	valid optional_output_omitted_valid
}

@test "check: model: ir_version unset" {
	broken ir_version_unset "model: ir_version is not set"
}
@test "check: model: ir_version unknown" {
	broken ir_version_unknown "model: ir_version 99 is unknown"
}
@test "check: model: no opset_import" {
	broken no_opset_import "model: no opset_import (required from IR version 3)"
	[ "${#lines[@]}" -eq 2 ] # not once more for every node
}
@test "check: model: opset_import below IR 3" {
	broken opset_import_below_ir3 "opset_import is not allowed below IR version 3"
}
@test "check: model: duplicate metadata_props keys" {
	broken metadata_duplicate_key 'metadata_props key "k" is given twice'
}
@test "check: model: a domain imported twice (strict)" {
	broken duplicate_opset_domain 'opset_import lists domain "" twice' strict
}

@test "check: graph: unnamed" {
	broken graph_unnamed "main graph has no name"
}
@test "check: graph: input without a name" {
	broken input_unnamed 'graph "base": input #0 has no name'
}
@test "check: graph: input without a type" {
	broken input_untyped 'graph "base": input "x" has no type'
}
@test "check: graph: input without elem_type" {
	broken input_no_elem_type 'input "x" has no elem_type'
}
@test "check: graph: main-graph input without a shape" {
	broken input_without_shape 'input "x" has no shape'
}
@test "check: graph: main-graph output without a shape" {
	broken output_without_shape 'output "y" has no shape'
}
@test "check: graph: duplicate input names" {
	broken duplicate_input_names 'input "x" is given twice'
}
@test "check: graph: initializer without a name" {
	broken initializer_unnamed "initializer #0 has no name"
}
@test "check: graph: duplicate initializer names" {
	broken duplicate_initializer_names 'initializer "w" is not unique'
}
@test "check: graph: below IR 4 an initializer must be an input" {
	broken initializer_not_input_ir3 'initializer "w" is not a graph input (required below IR version 4)'
}
@test "check: graph: input used before it is defined" {
	broken input_used_before_defined "node \"lrelu0\" (LeakyRelu): input #0 'X' uses undefined value \"a\""
}
@test "check: graph: input never defined" {
	broken undefined_input "node \"add0\" (Add): input #1 'B' uses undefined value \"nope\""
}
@test "check: graph: SSA, an output defined twice" {
	broken output_defined_twice 'output "a" is already defined (SSA'
}
@test "check: graph: output not defined (strict)" {
	broken graph_output_undefined 'output "zz" is not defined by any node, input or initializer' strict
}

@test "check: node: op_type empty" {
	broken op_type_empty "op_type is empty"
}
@test "check: node: neither inputs nor outputs" {
	broken node_without_inputs_and_outputs 'node "lonely" (Relu): has no inputs and no outputs'
}
@test "check: node: domain not imported" {
	broken domain_not_imported 'domain "com.example" is not imported'
}
@test "check: node: the default domain spelled ai.onnx" {
	broken ai_onnx_domain_spelled_out 'unknown op LeakyRelu in domain "ai.onnx"'
}
@test "check: node: unknown op" {
	broken unknown_op 'unknown op NoSuchOp in domain "" at opset 13'
}
@test "check: node: op newer than the imported opset" {
	broken op_newer_than_opset 'Trilu does not exist at opset 13'
}
@test "check: node: deprecated op (Upsample at opset 10)" {
	broken deprecated_op "Upsample is deprecated at opset 10"
}
@test "check: node: too many inputs" {
	broken too_many_inputs "too many inputs: 2, LeakyRelu-6 takes at most 1"
}
@test "check: node: too few inputs" {
	broken too_few_inputs "too few inputs: 1, Add-13 needs at least 2"
}
@test "check: node: too many outputs" {
	broken too_many_outputs "too many outputs: 2, LeakyRelu-6 gives at most 1"
}
@test "check: node: empty name for a required input" {
	broken empty_required_input "input #1 'B' is empty but not optional"
}
@test "check: node: unknown attribute" {
	broken unknown_attribute 'unknown attribute "foo" for LeakyRelu-6'
}
@test "check: node: attribute of the wrong type" {
	broken wrong_attribute_type 'attribute "alpha" has the wrong type INT, LeakyRelu-6 expects FLOAT'
}
@test "check: node: attribute type and value field disagree" {
	broken attribute_type_field_mismatch "attribute \"alpha\": type FLOAT does not match the value field 'ints'"
}
@test "check: node: attribute without a type" {
	broken attribute_without_type 'attribute "alpha" has no type'
}
@test "check: node: attribute given twice" {
	broken attribute_given_twice 'attribute "alpha" is given twice'
}
@test "check: node: list attribute without values" {
	broken attribute_empty_list "attribute \"axes\" (INTS) has no value (field 'ints' is not set)"
}
@test "check: node: required attribute missing" {
	broken missing_required_attribute 'required attribute "to" is missing'
}
@test "check: node: tensor attribute without a tensor" {
	broken tensor_attribute_without_tensor "attribute \"value\" (TENSOR) has no value"
}

@test "check: tensor: data_type unset" {
	broken tensor_without_data_type 'initializer "w": data_type is not set'
}
@test "check: tensor: data_type UNDEFINED" {
	broken tensor_undefined_data_type 'initializer "w": data_type is UNDEFINED'
}
@test "check: tensor: unknown data_type" {
	broken tensor_unknown_data_type 'initializer "w": unknown data_type 99'
}
@test "check: tensor: unknown data_type with raw_data (strict)" {
	broken tensor_unknown_data_type_in_raw_data 'initializer "w": unknown data_type 99' strict
}
@test "check: tensor: two data fields" {
	broken tensor_two_data_fields "should have exactly one data field, has 2 (float_data, raw_data)"
}
@test "check: tensor: no data" {
	broken tensor_without_data "should have exactly one data field, has none"
}
@test "check: tensor: data in the wrong field for its type" {
	broken tensor_data_in_wrong_field "values of data_type float must be stored in float_data, not int32_data"
}
@test "check: tensor: strings in raw_data" {
	broken string_tensor_in_raw_data 'initializer "s": STRING data must not be stored in raw_data'
}
@test "check: tensor: empty tensor with data" {
	broken empty_tensor_with_data 'initializer "e": has 0 elements but contains data'
}
@test "check: tensor: a node attribute's tensor is checked too" {
	broken constant_tensor_two_fields 'node "const0" (Constant): attribute "value": should have exactly one data field'
}
@test "check: tensor: raw_data of the wrong length (strict)" {
	broken raw_data_length_wrong 'raw_data has 3 bytes, expected 4 elements x 4 bytes' strict
}
@test "check: tensor: typed data of the wrong count (strict)" {
	broken typed_data_count_wrong "float_data has 3 values, expected 4" strict
}
@test "check: tensor: negative dimension (strict)" {
	broken negative_dimension "has a negative dimension" strict
}
@test "check: external data: absolute location" {
	broken external_data_absolute_location "must be a relative path"
}
@test "check: external data: location with .. (strict)" {
	broken external_data_dotdot_location 'external data location "sub/../w_dd.bin" must not contain ".."' strict
}
@test "check: external data: missing file" {
	broken external_data_missing_file 'external data file "nope.bin" does not exist'
}
@test "check: external data: no location" {
	broken external_data_without_location "stored externally but has no location"
}
@test "check: external data: inline data too" {
	broken external_data_with_inline_data "stored externally but also has data in float_data"
}
@test "check: external data: shorter than the tensor (strict)" {
	broken external_data_past_end 'runs past the end of "short.bin" (8 bytes)' strict
}
@test "check: external data: found beside the model, from any directory" {
	run -0 check "$BROKEN/external_data_valid.onnx"
	run -1 check "$BROKEN/external_data_missing_file.onnx"
	[[ "$output" == *"external data file \"$BROKEN/nope.bin\" does not exist"* ]]
}

@test "check: subgraph: undefined value" {
	broken subgraph_undefined_value "node \"neg0\" (Neg) in graph \"then\": input #0 'X' uses undefined value \"nope\""
}
@test "check: subgraph: an output shadows an outer value" {
	broken subgraph_shadows_outer_value 'node "neg0" (Neg) in graph "then": output "a" is already defined'
}
@test "check: subgraph: unnamed" {
	broken subgraph_unnamed 'graph of attribute "then_branch" of node "if0" (If) has no name'
}
@test "check: subgraph: nodes are checked against their schema" {
	broken subgraph_unknown_op 'node "id0" (NoSuchOp) in graph "else": unknown op NoSuchOp'
}
@test "check: sparse initializer: index out of range" {
	broken sparse_index_out_of_range 'sparse initializer "sp": sparse index 1 (9) out of range [0, 4)'
}
@test "check: function: duplicate outputs" {
	broken function_duplicate_output 'function "F": output "o" is given twice'
}

@test "check: every problem is reported, not only the first" {
	cd "$BROKEN"
	"$PYTHON" -c '
import onnx
m = onnx.load("base.onnx")
m.graph.name = ""
m.graph.node[1].input[1] = "nope"
m.graph.node[2].op_type = "NoSuchOp"
m.graph.initializer[0].raw_data = b"\0"
onnx.save(m, "many.onnx")
' 
	run -1 check many.onnx
	[ "${#lines[@]}" -eq 5 ]
	[[ "${lines[0]}" == "check: many.onnx: main graph has no name" ]]
	[[ "${lines[4]}" == "check: many.onnx: invalid (4 problems)" ]]
}

@test "check: several files, each reported; the worst status wins" {
	cd "$BROKEN"
	run -1 check base.onnx unknown_op.onnx function_valid.onnx
	[ "${lines[0]}" = "base.onnx: ok" ]
	[ "${lines[1]}" = "check: unknown_op.onnx: node \"lrelu0\" (NoSuchOp): unknown op NoSuchOp in domain \"\" at opset 13 (no schema)" ]
	[[ "$output" == *"check: unknown_op.onnx: invalid (1 problem)"* ]]
	[[ "$output" == *"function_valid.onnx: ok"* ]]
	: > empty.onnx
	run -3 check base.onnx empty.onnx unknown_op.onnx
	run -5 check base.onnx empty.onnx no-such-file.onnx
}

@test "check: -q prints nothing" {
	cd "$BROKEN"
	run -0 check -q base.onnx
	[ -z "$output" ]
	run -1 check -q unknown_op.onnx
	[ -z "$output" ]
}

# --- (c) --print: text IR that emit reads back ------------------------------

@test "check --print: text IR of the base model" {
	cd "$BROKEN"
	run -0 check --print base.onnx
	[ "${lines[0]}" = "ir 1.0 onnx" ]
	[[ "$output" == *'opset "" 13'* ]]
	[[ "$output" == *'prop "onnx.ir_version" "7"'* ]]
	[[ "$output" == *'graph base(%x : Float(1, 4),'* ]]
	[[ "$output" == *'%w : Float(4) = {0., 1., 2., 3.}):'* ]]
	[[ "$output" == *'%cl : Any = onnx::Clip[onnx_name="clip0"](%r, _, %maxv)'* ]]
	[[ "$output" == *'then_branch then():'* ]]
	[[ "$output" == *'return (%y, %m)'* ]]
}

@test "check --print | emit | check: round trips keep the graph" {
	[ -d "$TESTDATA" ] || skip "libonnx-testdata is not installed"
	local m
	for m in "$BROKEN/base.onnx" "$BROKEN/custom_domain_valid.onnx" \
		node/test_conv_with_strides_padding node/test_if node/test_loop11 \
		node/test_scan9_sum node/test_sequence_insert_at_back \
		node/test_strnormalizer_export_monday_casesensintive_lower \
		node/test_cast_FLOAT_to_STRING node/test_constant \
		node/test_reshape_reordered_all_dims \
		simple/test_sequence_model1 pytorch-converted/test_AvgPool2d \
		pytorch-operator/test_operator_symbolic_override; do
		[[ "$m" == *.onnx ]] || m="$TESTDATA/$m/model.onnx"
		echo "== $m"
		check --print "$m" > m.ir
		emit m.ir -o m2.onnx
		run -0 check m2.onnx
		"$PYTHON" "$TESTS_DIR/check/same_model.py" "$m" m2.onnx
		onnx_checker m2.onnx
	done
}

@test "check --print: external data stays a reference" {
	cd "$BROKEN"
	run -0 check --print external_data_valid.onnx
	[[ "$output" == *'%w : Float(4) = weight("w.bin", offset=0, length=16)'* ]]
	check --print external_data_valid.onnx > ext.ir
	emit ext.ir -o "$WORK/ext.onnx"
	cd "$WORK"
	run -0 check ext.onnx
}

@test "check --print: an invalid model is still printed" {
	cd "$BROKEN"
	run -1 check --print -o out.ir undefined_input.onnx
	[[ "$output" == *'uses undefined value "nope"'* ]]
	grep -q 'onnx::Add\[onnx_name="add0"\](%xc, %nope)' out.ir
	run -1 check --print subgraph_shadows_outer_value.onnx
	[[ "$output" == *'%a.1 : Float(1, 4) = onnx::Neg'* ]]
}

# --- --dot ---------------------------------------------------------------------

@test "check --dot: Graphviz accepts it, subgraphs are clusters" {
	command -v dot >/dev/null || skip "graphviz is not installed"
	cd "$BROKEN"
	run -0 check --dot -o base.dot base.onnx
	[ -z "$output" ]
	dot -Tsvg base.dot -o base.svg 2> dot.err
	[ ! -s dot.err ]
	grep -q 'subgraph cluster_1' base.dot
	grep -q 'label="LeakyRelu\\nlrelu0"' base.dot
	grep -q -- '-> n.* \[label="maxv"\]' base.dot
	# nodes outside the subgraphs stay outside their clusters, although
	# the subgraphs use their values
	grep -q '^  n[0-9]* \[.*label="Clip\\nclip0"' base.dot
	grep -q '^    n[0-9]* \[.*label="Neg\\nneg0"' base.dot
	# an invalid model is drawn too, the undefined value in red
	run -1 check --dot -o bad.dot undefined_input.onnx
	dot -Tsvg bad.dot -o bad.svg
	grep -q 'color=red' bad.dot
	[ -d "$TESTDATA" ] || return 0
	local m
	for m in node/test_if node/test_loop13_seq node/test_scan_sum \
		node/test_lstm_defaults simple/test_sequence_model2; do
		check --dot "$TESTDATA/$m/model.onnx" > m.dot
		dot -Tsvg m.dot > /dev/null 2> dot.err
		[ ! -s dot.err ]
	done
}

# --- (d) input that is not a model ---------------------------------------------

@test "check: a missing file is an I/O error (exit 5)" {
	run -5 check no-such.onnx
	[ "$output" = "check: no-such.onnx: cannot open: No such file or directory" ]
	run -5 check .
	[ "$output" = "check: .: cannot read: Is a directory" ]
}

@test "check: empty, random and truncated files are not models (exit 3)" {
	: > empty.onnx
	run -3 check empty.onnx
	[ "$output" = "check: empty.onnx: not an ONNX model (empty file)" ]
	printf '\xff\xff\xff\xff\xff' > ff.onnx
	run -3 check ff.onnx
	[ "$output" = "check: ff.onnx: not an ONNX model (protobuf parse failed: truncated or not protobuf)" ]
	head -c 200 "$BROKEN/base.onnx" > trunc.onnx
	run -3 check trunc.onnx
	[ "$output" = "check: trunc.onnx: not an ONNX model (protobuf parse failed: truncated or not protobuf)" ]
	head -c 4096 /bin/sh > elf.onnx
	run -3 check elf.onnx
	[ "${#lines[@]}" -eq 1 ]
	# a partial --print output is not left behind
	run -3 check --print -o out.ir trunc.onnx
	[ ! -e out.ir ]
	[ -z "$(ls -A . | grep -v '\.onnx$')" ]
}

@test "check: messages nested deeper than protobuf allows are refused (exit 3)" {
	"$PYTHON" -c '
import onnx
from onnx import helper
g = helper.make_graph([], "g", [], [])
for i in range(40):
    n = helper.make_node("If", ["c"], ["o%d" % i], then_branch=g)
    g = helper.make_graph([n], "g%d" % i, [], [])
open("deep.onnx", "wb").write(helper.make_model(g).SerializeToString())
' 
	run -3 check deep.onnx
	[ "$output" = "check: deep.onnx: not an ONNX model (messages nested deeper than 100 levels)" ]
}

@test "check: usage, --help and --version" {
	run -2 check
	[ "${lines[0]}" = "check: no model given" ]
	run -2 check --bogus x.onnx
	run -2 check -o x.ir x.onnx
	[ "$output" = "check: -o needs --print or --dot" ]
	run -0 check --help
	[[ "${lines[0]}" == "usage: check [OPTIONS] MODEL.onnx..." ]]
	run -0 check --version
	[[ "$output" == *"python3-onnx 1.23.1"* ]]
}

@test "check: reads standard input as -" {
	cd "$BROKEN"
	run -0 check - < base.onnx
	[ "$output" = "<stdin>: ok" ]
}

# --- differential: mutated real models, both checkers -------------------------

@test "check: agrees with onnx.checker on 1500 mutated testdata models" {
	[ -d "$TESTDATA" ] || skip "libonnx-testdata is not installed"
	run "$PYTHON" "$TESTS_DIR/check/differential.py" "$BINDIR/check" 1500 42
	echo "$output" | grep -v '^Warning: Checker does not support'
	[ "$status" -eq 0 ]
	[[ "${lines[-1]}" == *"; disagreements 0" ]]
}

# --- large weights: read lazily ------------------------------------------------

@test "check: a model's large raw_data is not copied (RSS far below the model); sizes are still checked, --print still shows the values" {
	"$PYTHON" - <<-'EOF'
	import numpy as np, onnx
	from onnx import helper, numpy_helper, TensorProto
	rng = np.random.default_rng(3)
	big = rng.standard_normal((4096, 4096)).astype(np.float32)  # 64 MiB
	mid = rng.standard_normal((2000,)).astype(np.float32)       # 8000 bytes
	np.save("mid.npy", mid)
	def model(mid_raw):
	    t_mid = numpy_helper.from_array(mid, "mid")
	    t_mid.raw_data = mid_raw
	    g = helper.make_graph(
	        [helper.make_node("MatMul", ["x", "big"], ["y"]), helper.make_node("Add", ["z", "mid"], ["w"])],
	        "lazy", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4096]),
	                 helper.make_tensor_value_info("z", TensorProto.FLOAT, [2000])],
	        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4096]),
	         helper.make_tensor_value_info("w", TensorProto.FLOAT, [2000])],
	        [numpy_helper.from_array(big, "big"), t_mid])
	    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
	onnx.save(model(mid.tobytes()), "lazy.onnx")
	onnx.save(model(mid.tobytes() + b"\0" * 4), "lazy_bad.onnx")
	EOF
	[ "$(stat -c %s lazy.onnx)" -gt 67000000 ]
	run -0 /usr/bin/time -f "rss %M" "$BINDIR/check" lazy.onnx
	[ "${lines[0]}" = "lazy.onnx: ok" ]
	rss=${lines[1]#rss }
	[ "$rss" -lt 65536 ] # KiB: less than the weight itself (a copy: twice it)
	run -1 check lazy_bad.onnx
	[[ "$output" == *"raw_data has 8004 bytes, expected 2000 elements x 4 bytes"* ]]
	# the printed IR holds the weight's values (read from the mapping)
	run -0 check -p lazy.onnx -o lazy.ir
	run -0 "$PYTHON" -c "import numpy as np, re, sys
t = open('lazy.ir').read()
m = re.search(r'%mid : Float\(2000\) = (.*)', t)
print(m.group(1)[:40])"
	[ -n "$output" ]
	run -0 emit lazy.ir -o again.onnx
	run -0 "$PYTHON" -c "import numpy as np, onnx, sys
from onnx import numpy_helper
m = onnx.load('again.onnx')
w = {t.name: numpy_helper.to_array(t) for t in m.graph.initializer}
sys.exit(0 if np.array_equal(w['mid'], np.load('mid.npy')) and w['big'].shape == (4096, 4096) else 1)"
}

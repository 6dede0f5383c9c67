#!/usr/bin/env bats
# 601-emit-options.bats - emit's torch.onnx.export options: input/output
# names, dynamic axes (both of torch's forms and its dict), initializers as
# inputs (and their forcing below opset 9), export_params=False, custom
# opsets, --opset, ir_version per opset.  Models are checked with the ONNX
# checker and, where they can run, with ONNX Runtime against numpy.
# bats file_tags=tier:standard

load helper

setup_file() {
	need_ort || return 0
}
load emit_helper

setup() {
	skip_missing
	WORK="$BATS_TEST_TMPDIR"
	cd "$WORK" || return 1
	reference cnn-weights cnn-fc.bin
}

# the CNN at another opset: its ops are the same from opset 8 on
cnn_at_opset() {
	sed "s/^opset \"\" 13$/opset \"\" $1/" "$DATA/emit-cnn.ir" > "cnn$1.ir"
}

@test "emit --input-names/--output-names rename inputs, outputs and every use" {
	run -0 emit --input-names image --output-names scores "$DATA/emit-cnn.ir" -o cnn.onnx
	run -0 onnx_py cnn.onnx "[i.name for i in m.graph.input], [o.name for o in m.graph.output], list(m.graph.node[0].input), list(m.graph.node[4].output)"
	[ "$output" = "(['image'], ['scores'], ['image', 'conv.weight', 'conv.bias'], ['scores'])" ]
	run -0 check_model cnn.onnx
	reference input x.npy 1 float32 1,3,8,8
	run -0 ort_run cnn.onnx out image=x.npy
	reference cnn "$DATA/emit-cnn.ir" cnn-fc.bin x.npy want.npy
	run -0 reference compare out/scores.npy want.npy
}

@test "emit: Python list syntax for names" {
	run -0 emit --input-names '["image"]' --output-names "['scores']" "$DATA/emit-cnn.ir" -o cnn.onnx
	run -0 onnx_py cnn.onnx "m.graph.input[0].name, m.graph.output[0].name"
	[ "$output" = "('image', 'scores')" ]
}

@test "emit: outputs that are inputs or repeated go through Identity, renamed as asked" {
	cat > pass.ir <<-'EOF'
	ir 1.0 onnx
	opset "" 13
	graph pass(%x : Float(2)):
	  %y : Float(2) = onnx::Relu(%x)
	  return (%y, %x, %y)
	EOF
	run -0 emit pass.ir -o pass.onnx
	run -0 onnx_py pass.onnx "[o.name for o in m.graph.output], [(n.op_type, list(n.input), list(n.output)) for n in m.graph.node]"
	[ "$output" = "(['y', 'x', 'y_1'], [('Relu', ['x'], ['y']), ('Identity', ['y'], ['y_1'])])" ]
	run -0 check_model pass.onnx
	run -0 emit --output-names a,b,c pass.ir -o named.onnx
	run -0 onnx_py named.onnx "[o.name for o in m.graph.output], [(n.op_type, list(n.input), list(n.output)) for n in m.graph.node]"
	[ "$output" = "(['a', 'b', 'c'], [('Relu', ['x'], ['a']), ('Identity', ['x'], ['b']), ('Identity', ['a'], ['c'])])" ]
	run -0 check_model named.onnx
	"$PYTHON" -c "import numpy as np; np.save('x.npy', np.array([-1, 2], np.float32))"
	run -0 ort_run named.onnx out x=x.npy
	run -0 "$PYTHON" -c "import numpy as np, sys
a, b, c = (np.load(f'out/{n}.npy') for n in 'abc')
sys.exit(not (list(a) == [0, 2] and list(b) == [-1, 2] and list(c) == [0, 2]))"
}

@test "emit: more names than inputs or outputs, or a name already taken, is a usage error" {
	run -2 emit --input-names a,b "$DATA/emit-cnn.ir" -o cnn.onnx
	[ "$output" = "emit: $DATA/emit-cnn.ir: 2 input names given for 1 inputs" ]
	run -2 emit --output-names a,b "$DATA/emit-cnn.ir" -o cnn.onnx
	[ "$output" = "emit: $DATA/emit-cnn.ir: 2 output names given for 1 outputs" ]
	run -2 emit --input-names relu_out "$DATA/emit-cnn.ir" -o cnn.onnx
	[ "$output" = "emit: $DATA/emit-cnn.ir: input name 'relu_out' is already the name of another value" ]
	run -2 emit --input-names y --output-names y "$DATA/emit-cnn.ir" -o cnn.onnx
	[ "$output" = "emit: $DATA/emit-cnn.ir: output name 'y' is already the name of another value" ]
	run -2 emit --input-names 'a,,b' "$DATA/emit-cnn.ir" -o cnn.onnx
	[ "$output" = "emit: names 'a,,b': empty name" ]
	[ ! -e cnn.onnx ]
}

@test "emit --dynamic-axes, named form: dim_param on inputs and outputs, runs at another batch size" {
	run -0 emit --input-names image --output-names scores \
		--dynamic-axes 'image:0=batch,2=height;scores:0=batch' "$DATA/emit-cnn.ir" -o cnn.onnx
	run -0 onnx_py cnn.onnx "[[d.dim_param or d.dim_value for d in v.type.tensor_type.shape.dim] for v in list(m.graph.input) + list(m.graph.output)]"
	# the output's other dims were computed for batch 1 and height 8:
	# unknown (0 here), not the example's
	[ "$output" = "[['batch', 3, 'height', 8], ['batch', 0]]" ]
	# intermediate shapes were computed for batch 1: written without them
	run -0 onnx_py cnn.onnx "[v.type.tensor_type.HasField('shape') for v in m.graph.value_info]"
	[ "$output" = "[False, False, False, False]" ]
	run -0 check_model cnn.onnx
	reference input x.npy 2 float32 3,3,8,8
	run -0 ort_run cnn.onnx out image=x.npy
	reference cnn "$DATA/emit-cnn.ir" cnn-fc.bin x.npy want.npy
	run -0 reference compare out/scores.npy want.npy
}

@test "emit --dynamic-axes, list form: torch's <name>_dynamic_axes_<i> names" {
	run -0 emit --dynamic-axes 'x:0,2' --dynamic-axes 'logits:0' "$DATA/emit-cnn.ir" -o cnn.onnx
	run -0 onnx_py cnn.onnx "[[d.dim_param or d.dim_value for d in v.type.tensor_type.shape.dim] for v in list(m.graph.input) + list(m.graph.output)]"
	[ "$output" = "[['x_dynamic_axes_1', 3, 'x_dynamic_axes_2', 8], ['logits_dynamic_axes_1', 0]]" ]
	run -0 check_model cnn.onnx
}

@test "emit --dynamic-axes, torch's dict syntax, both forms mixed" {
	run -0 emit --dynamic-axes '{"x": {0: "batch", 3: "w"}, "logits": [0]}' "$DATA/emit-cnn.ir" -o cnn.onnx
	run -0 onnx_py cnn.onnx "[[d.dim_param or d.dim_value for d in v.type.tensor_type.shape.dim] for v in list(m.graph.input) + list(m.graph.output)]"
	[ "$output" = "[['batch', 3, 8, 'w'], ['logits_dynamic_axes_1', 0]]" ]
}

@test "emit --dynamic-axes, the dict json.dumps writes (quoted integer axes)" {
	spec=$(/usr/bin/python3 -c 'import json; print(json.dumps({"x": {0: "batch", 3: "w"}, "logits": {0: "batch"}}))')
	[[ "$spec" == *'"0": "batch"'* ]]
	run -0 emit --dynamic-axes "$spec" "$DATA/emit-cnn.ir" -o cnn.onnx
	run -0 onnx_py cnn.onnx "[[d.dim_param or d.dim_value for d in v.type.tensor_type.shape.dim] for v in list(m.graph.input) + list(m.graph.output)]"
	[ "$output" = "[['batch', 3, 8, 'w'], ['batch', 0]]" ]
	run -0 check_model cnn.onnx
}

@test "emit --dynamic-axes: a quoted axis that is not an integer is one clear error" {
	for bad in '{"x": {"a": "batch"}}' '{"x": {"0x": "batch"}}' '{"x": {"": "batch"}}'; do
		run -2 emit --dynamic-axes "$bad" "$DATA/emit-cnn.ir" -o cnn.onnx
		[ "${#lines[@]}" -eq 1 ]
		[[ "$output" == *"expected an axis"* ]]
	done
	[ ! -e cnn.onnx ]
}

@test "emit --dynamic-axes on a symbolic dim renames the symbol everywhere" {
	run -0 emit --dynamic-axes 'x:0=N' "$DATA/emit-dyn.ir" -o dyn.onnx
	run -0 onnx_py dyn.onnx "sorted({d.dim_param for v in list(m.graph.input) + list(m.graph.output) + list(m.graph.value_info) for d in (v.type.tensor_type.shape.dim if v.type.HasField('tensor_type') else v.type.sequence_type.elem_type.tensor_type.shape.dim) if d.dim_param})"
	[ "$output" = "['N']" ]
	run -0 check_model dyn.onnx
}

@test "emit --dynamic-axes: unknown names, bad axes and bad syntax are usage errors" {
	run -2 emit --dynamic-axes 'nosuch:0' "$DATA/emit-cnn.ir" -o cnn.onnx
	[ "$output" = "emit: $DATA/emit-cnn.ir: dynamic axes: 'nosuch' is not the name of a graph input or output" ]
	run -2 emit --dynamic-axes 'x:4=w' "$DATA/emit-cnn.ir" -o cnn.onnx
	[ "$output" = "emit: $DATA/emit-cnn.ir: dynamic axes: 'x' has rank 4, no axis 4" ]
	run -2 emit --dynamic-axes 'x' "$DATA/emit-cnn.ir" -o cnn.onnx
	[[ "$output" == "emit: dynamic axes 'x': expected NAME:AXIS=LABEL"* ]]
	run -2 emit --dynamic-axes 'x:0=a,1' "$DATA/emit-cnn.ir" -o cnn.onnx
	[[ "$output" == *"mixes named and unnamed axes"* ]]
	run -2 emit --dynamic-axes 'x:0=a;x:0=b' "$DATA/emit-cnn.ir" -o cnn.onnx
	[[ "$output" == *"axis 0 of 'x' given twice"* ]]
	run -2 emit --dynamic-axes '{"x": {0: batch}}' "$DATA/emit-cnn.ir" -o cnn.onnx
	[[ "$output" == *"expected a quoted string at offset 10"* ]]
	[ ! -e cnn.onnx ]
}

@test "emit --keep-initializers-as-inputs lists the weights as inputs after the real ones" {
	run -0 emit --keep-initializers-as-inputs "$DATA/emit-cnn.ir" -o cnn.onnx
	run -0 onnx_py cnn.onnx "[i.name for i in m.graph.input], len(m.graph.initializer), m.ir_version"
	[ "$output" = "(['x', 'conv.weight', 'conv.bias', 'fc.weight', 'fc.bias'], 4, 7)" ]
	run -0 check_model cnn.onnx
	reference input x.npy 1 float32 1,3,8,8
	run -0 ort_run cnn.onnx out x=x.npy
	reference cnn "$DATA/emit-cnn.ir" cnn-fc.bin x.npy want.npy
	run -0 reference compare out/logits.npy want.npy
}

@test "emit: below opset 9 initializers are inputs too, and ir_version is 3" {
	cnn_at_opset 8
	run -0 emit cnn8.ir -o cnn.onnx
	run -0 onnx_py cnn.onnx "[i.name for i in m.graph.input], m.ir_version, m.opset_import[0].version"
	[ "$output" = "(['x', 'conv.weight', 'conv.bias', 'fc.weight', 'fc.bias'], 3, 8)" ]
	run -0 check_model cnn.onnx
	reference input x.npy 1 float32 1,3,8,8
	run -0 ort_run cnn.onnx out x=x.npy
	reference cnn "$DATA/emit-cnn.ir" cnn-fc.bin x.npy want.npy
	run -0 reference compare out/logits.npy want.npy
	cnn_at_opset 9
	run -0 emit cnn9.ir -o cnn9.onnx
	run -0 onnx_py cnn9.onnx "[i.name for i in m.graph.input], m.ir_version"
	[ "$output" = "(['x'], 4)" ]
}

@test "emit: below opset 9 subgraph initializers move to the main graph (IR 3 wants them as inputs)" {
	sed 's/^opset "" 13$/opset "" 8/' "$DATA/emit-if.ir" > if8.ir
	run -0 emit if8.ir -o if.onnx
	run -0 onnx_py if.onnx "[i.name for i in m.graph.input], [i.name for i in m.graph.initializer], [len(a.g.initializer) for a in m.graph.node[0].attribute]"
	[ "$output" = "(['x', 'c', 'k'], ['k'], [0, 0])" ]
	run -0 check_model if.onnx
	reference input x.npy 3 float32 2,3
	"$PYTHON" -c "import numpy as np; np.save('t.npy', np.array(True))"
	run -0 ort_run if.onnx out x=x.npy c=t.npy
	reference if x.npy t.npy want.npy
	run -0 reference compare out/z.npy want.npy
}

@test "emit --no-export-params: weights become graph inputs, no initializers" {
	run -0 emit --no-export-params "$DATA/emit-cnn.ir" -o cnn.onnx
	run -0 onnx_py cnn.onnx "[i.name for i in m.graph.input], len(m.graph.initializer)"
	[ "$output" = "(['x', 'conv.weight', 'conv.bias', 'fc.weight', 'fc.bias'], 0)" ]
	run -0 check_model cnn.onnx
	# feed the weights the model no longer holds
	"$PYTHON" - "$DATA/emit-cnn.ir" <<-'EOF'
	import re, sys, numpy as np
	text = open(sys.argv[1]).read()
	for name, shape in (("conv.weight", (8, 3, 3, 3)), ("conv.bias", (8,))):
	    body = re.search("%" + re.escape(name) + r" : Float\([^)]*\) = \{([^}]*)\}", text).group(1)
	    np.save(name + ".npy", np.array([float(v) for v in body.split(",")], np.float32).reshape(shape))
	raw = np.fromfile("cnn-fc.bin", np.float32)
	np.save("fc.weight.npy", raw[:1280].reshape(10, 128))
	np.save("fc.bias.npy", raw[1280:])
	EOF
	reference input x.npy 1 float32 1,3,8,8
	run -0 ort_run cnn.onnx out x=x.npy conv.weight=conv.weight.npy conv.bias=conv.bias.npy fc.weight=fc.weight.npy fc.bias=fc.bias.npy
	reference cnn "$DATA/emit-cnn.ir" cnn-fc.bin x.npy want.npy
	run -0 reference compare out/logits.npy want.npy
}

@test "emit --no-export-params does not read the weight files" {
	run -0 emit --no-export-params "$DATA/emit-ref.ir" -o ref.onnx
	run -0 check_model ref.onnx
}

@test "emit: custom domains are imported at version 1 unless --custom-opset says" {
	run -0 emit "$DATA/emit-custom.ir" -o c.onnx
	run -0 onnx_py c.onnx "[(o.domain, o.version) for o in m.opset_import], m.graph.node[0].domain, m.graph.node[0].op_type"
	[ "$output" = "([('', 13), ('com.example', 1)], 'com.example', 'Swish')" ]
	run -0 check_model c.onnx
	run -0 emit --custom-opset com.example=3 "$DATA/emit-custom.ir" -o c3.onnx
	run -0 onnx_py c3.onnx "[(o.domain, o.version) for o in m.opset_import]"
	[ "$output" = "[('', 13), ('com.example', 3)]" ]
	run -0 emit --custom-opset '{"com.example": 2, "org.other": 5}' "$DATA/emit-custom.ir" -o c2.onnx
	run -0 onnx_py c2.onnx "[(o.domain, o.version) for o in m.opset_import]"
	[ "$output" = "[('', 13), ('com.example', 2), ('org.other', 5)]" ]
	run -0 check_model c2.onnx
}

@test "emit --custom-opset: bad specs are usage errors" {
	run -2 emit --custom-opset com.example "$DATA/emit-custom.ir" -o c.onnx
	[ "$output" = "emit: custom opset 'com.example': expected DOMAIN=VERSION" ]
	run -2 emit --custom-opset com.example=x "$DATA/emit-custom.ir" -o c.onnx
	[ "$output" = "emit: custom opset 'com.example=x': 'x' is not a version" ]
	run -2 emit --custom-opset =3 "$DATA/emit-custom.ir" -o c.onnx
	[[ "$output" == *"the default domain's version is the opset (--opset)"* ]]
	run -2 emit --custom-opset com.example=0 "$DATA/emit-custom.ir" -o c.onnx
	[[ "$output" == *"version 0 is not positive"* ]]
}

@test "emit --opset: used when the IR imports no default opset, refused when it disagrees" {
	grep -v '^opset' "$DATA/emit-cnn.ir" > noopset.ir
	run -3 emit noopset.ir -o cnn.onnx
	[ "$output" = "emit: noopset.ir: the IR imports no default-domain opset: give --opset" ]
	run -0 emit --opset 11 noopset.ir -o cnn.onnx
	run -0 onnx_py cnn.onnx "m.ir_version, [(o.domain, o.version) for o in m.opset_import]"
	[ "$output" = "(6, [('', 11)])" ]
	run -0 check_model cnn.onnx
	run -2 emit --opset 11 "$DATA/emit-cnn.ir" -o cnn.onnx
	[ "$output" = "emit: $DATA/emit-cnn.ir: the IR is for opset 13 but --opset 11 was given: emit does not convert opsets (lower --opset does)" ]
	run -2 emit --opset x "$DATA/emit-cnn.ir" -o cnn.onnx
	[ "$output" = "emit: --opset 'x' is not a positive integer" ]
}

@test "emit: ir_version follows the opset" {
	for pair in 7:3 8:3 9:4 10:5 11:6 12:7 13:7 14:7 15:8 16:8 17:8 18:8 19:9 20:9 21:10 22:10 23:11 24:12 25:13 26:13; do
		op=${pair%:*} want=${pair#*:}
		cat > relu.ir <<-EOF
		ir 1.0 onnx
		opset "" $op
		graph relu(%x : Float(2)):
		  %y : Float(2) = onnx::Relu(%x)
		  return (%y)
		EOF
		run -0 emit relu.ir -o relu$op.onnx
		run -0 onnx_py relu$op.onnx "m.ir_version"
		[ "$output" = "$want" ] || { echo "opset $op: ir_version $output, want $want"; false; }
	done
	# python3-onnx 1.12 knows opsets up to 17
	run -0 check_model relu7.onnx
	run -0 check_model relu12.onnx
	run -0 check_model relu17.onnx
	# our check has onnx 1.23.1's schemas: every opset emit writes
	for op in 18 20 23 26; do run -0 check relu$op.onnx; done
	sed -i 's/^opset "" 26$/opset "" 27/' relu.ir
	run -4 emit relu.ir -o relu27.onnx
	[ "$output" = "emit: relu.ir: opset 27 is outside the range this emit knows (1 to 26)" ]
}

@test "emit --dynamic-axes on a fixed dim: one warning that the stages before used the example's size" {
	run -0 emit --dynamic-axes 'x:0=batch' "$DATA/emit-cnn.ir" -o cnn.onnx
	[ "$output" = "emit: $DATA/emit-cnn.ir: warning: dynamic axes: 'x' axis 0 is 1 in the IR, so the stages before computed with that size; output dims not named dynamic are written unknown (give the axis to script or trace instead)" ]
	run -0 check_model cnn.onnx
}

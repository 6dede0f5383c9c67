#!/usr/bin/env bats
# 600-emit.bats - emit against its oracles: every model it writes passes
# onnx.checker (full_check) and runs in ONNX Runtime to the outputs of an
# independent numpy reference (max relative error 1e-4).
# bats file_tags=tier:standard

load helper

setup_file() {
	need_ort || return 0
}
load emit_helper

@test "emit: small CNN (inline and referenced weights) checks and runs as numpy does" {
	reference cnn-weights cnn-fc.bin
	run -0 emit "$DATA/emit-cnn.ir" -o cnn.onnx
	run -0 check_model cnn.onnx
	reference input x.npy 1 float32 1,3,8,8
	run -0 ort_run cnn.onnx out x=x.npy
	reference cnn "$DATA/emit-cnn.ir" cnn-fc.bin x.npy want.npy
	run -0 reference compare out/logits.npy want.npy
}

@test "emit: the model is protobuf's canonical serialisation" {
	reference cnn-weights cnn-fc.bin
	run -0 emit "$DATA/emit-cnn.ir" -o cnn.onnx
	run -0 "$PYTHON" -c "import onnx, sys
b = open('cnn.onnx', 'rb').read()
sys.exit(onnx.load_from_string(b).SerializeToString() != b)"
}

@test "emit: reads standard input, writes standard output, same bytes as -o" {
	reference cnn-weights cnn-fc.bin
	run -0 emit "$DATA/emit-cnn.ir" -o a.onnx
	emit < "$DATA/emit-cnn.ir" > b.onnx
	cmp a.onnx b.onnx
	emit - -o c.onnx < "$DATA/emit-cnn.ir"
	cmp a.onnx c.onnx
}

@test "emit: graph, initializers, value_info, opset, ir_version, producer" {
	reference cnn-weights cnn-fc.bin
	run -0 emit "$DATA/emit-cnn.ir" -o cnn.onnx
	run -0 onnx_py cnn.onnx "m.ir_version, [(o.domain, o.version) for o in m.opset_import], m.producer_name, m.producer_version, m.graph.name"
	[ "$output" = "(7, [('', 13)], 'pt2onnx', '0.1.0', 'small_cnn')" ]
	run -0 onnx_py cnn.onnx "[i.name for i in m.graph.initializer], [i.name for i in m.graph.input], [o.name for o in m.graph.output], [v.name for v in m.graph.value_info]"
	[ "$output" = "(['conv.weight', 'conv.bias', 'fc.weight', 'fc.bias'], ['x'], ['logits'], ['conv_out', 'relu_out', 'pool_out', 'flat'])" ]
	run -0 onnx_py cnn.onnx "[(p.key, p.value) for p in m.metadata_props]"
	[ "$output" = "[('source', 'emit-cnn')]" ]
	# float attributes narrow to float, ints stay ints
	run -0 onnx_py cnn.onnx "[(a.name, a.type, a.f, list(a.ints), a.i) for a in m.graph.node[4].attribute]"
	[ "$output" = "[('alpha', 1, 1.0, [], 0), ('beta', 1, 1.0, [], 0), ('transB', 2, 0.0, [], 1)]" ]
}

@test "emit: node names are torch's scoped names" {
	reference cnn-weights cnn-fc.bin
	run -0 emit "$DATA/emit-cnn.ir" -o cnn.onnx
	run -0 onnx_py cnn.onnx "[n.name for n in m.graph.node]"
	[ "$output" = "['/conv/Conv', '/relu/Relu', '/pool/MaxPool', '/Flatten', '/fc/Gemm']" ]
}

@test "emit: scoped names follow torch for Sequential children, repeats get _N; unscoped nodes are Kind_N; IR names win" {
	cat > names.ir <<-'EOF'
	ir 1.0 onnx
	opset "" 13
	graph names(%x : Float(2)):
	  %a : Float(2) = onnx::Relu(%x), scope: ResNet/Sequential[layer1]/BasicBlock[0]/Conv2d[conv1]
	  %b : Float(2) = onnx::Relu(%a), scope: ResNet/Sequential[layer1]/BasicBlock[0]/Conv2d[conv1]
	  %c : Float(2) = onnx::Relu(%b), scope: ResNet/Sequential[layer1]/Sequential[downsample]/BatchNorm2d[1]
	  %d : Float(2) = onnx::Relu(%c)
	  %e : Float(2) = onnx::Relu[onnx_name="my_relu"](%d)
	  return (%e)
	EOF
	run -0 emit names.ir -o names.onnx
	run -0 onnx_py names.onnx "[n.name for n in m.graph.node]"
	[ "$output" = "['/layer1/layer1.0/conv1/Relu', '/layer1/layer1.0/conv1/Relu_1', '/layer1/downsample/downsample.1/Relu', 'Relu_3', 'my_relu']" ]
	run -0 check_model names.onnx
}

@test "emit: If with graph attributes: subgraph initializer, outer value returned through Identity" {
	run -0 emit "$DATA/emit-if.ir" -o if.onnx
	run -0 check_model if.onnx
	run -0 onnx_py if.onnx "[(a.name, a.type, a.g.name, [i.name for i in a.g.initializer], [n.op_type for n in a.g.node], [o.name for o in a.g.output]) for a in m.graph.node[0].attribute]"
	[ "$output" = "[('then_branch', 5, 'sub_graph', ['k'], ['Mul'], ['t']), ('else_branch', 5, 'sub_graph1', [], ['Identity'], ['x_1'])]" ]
	reference input x.npy 3 float32 2,3
	"$PYTHON" -c "import numpy as np; np.save('t.npy', np.array(True)); np.save('f.npy', np.array(False))"
	for c in t f; do
		run -0 ort_run if.onnx "out-$c" x=x.npy c=$c.npy
		reference if x.npy $c.npy "want-$c.npy"
		run -0 reference compare "out-$c/z.npy" "want-$c.npy"
	done
}

@test "emit: Loop with a carried value and a scan output" {
	run -0 emit "$DATA/emit-loop.ir" -o loop.onnx
	run -0 check_model loop.onnx
	run -0 onnx_py loop.onnx "[i.name for i in m.graph.node[2].attribute[0].g.input], [o.name for o in m.graph.node[2].attribute[0].g.output]"
	[ "$output" = "(['i', 'c_in', 'acc_in'], ['c_in', 'acc_out', 'scaled'])" ]
	reference input x.npy 4 float32 3
	run -0 ort_run loop.onnx out x=x.npy
	reference loop x.npy acc.npy scan.npy
	run -0 reference compare out/acc.npy acc.npy
	run -0 reference compare out/scan.npy scan.npy
}

@test "emit: weights by reference, contiguous and strided (gathered), copied from the file" {
	reference ref-weights ref.bin
	run -0 emit "$DATA/emit-ref.ir" -o ref.onnx
	run -0 check_model ref.onnx
	reference input x.npy 5 float32 2,4
	run -0 ort_run ref.onnx out x=x.npy
	reference ref ref.bin x.npy want.npy
	run -0 reference compare out/y.npy want.npy
}

@test "emit: symbolic dims become dim_param, unknown dims empty, sequences sequence_type" {
	run -0 emit "$DATA/emit-dyn.ir" -o dyn.onnx
	run -0 onnx_py dyn.onnx "[[d.WhichOneof('value') and getattr(d, d.WhichOneof('value')) for d in v.type.tensor_type.shape.dim] for v in list(m.graph.input) + [m.graph.value_info[0]]]"
	[ "$output" = "[['batch', 4], ['batch', None]]" ]
	run -0 onnx_py dyn.onnx "m.graph.value_info[1].type.WhichOneof('value'), m.graph.value_info[1].type.sequence_type.elem_type.tensor_type.shape.dim[0].dim_param"
	[ "$output" = "('sequence_type', 'batch')" ]
	run -0 check_model dyn.onnx
	reference input x.npy 6 float32 5,4
	run -0 ort_run dyn.onnx out x=x.npy
	reference dyn x.npy want.npy
	run -0 reference compare out/z.npy want.npy
}

@test "emit: doc strings kept (graph doc, source locations) or stripped" {
	reference cnn-weights cnn-fc.bin
	run -0 emit "$DATA/emit-cnn.ir" -o cnn.onnx
	run -0 onnx_py cnn.onnx "m.graph.doc_string, m.graph.node[0].doc_string, m.graph.node[2].doc_string"
	[ "$output" = "(\"a small CNN for emit's tests\", 'cnn.py:10:8', '')" ]
	run -0 emit --strip-doc-string "$DATA/emit-cnn.ir" -o stripped.onnx
	run -0 onnx_py stripped.onnx "m.graph.doc_string, [n.doc_string for n in m.graph.node if n.doc_string]"
	[ "$output" = "('', [])" ]
}

@test "emit: --producer-name and --producer-version" {
	reference cnn-weights cnn-fc.bin
	run -0 emit --producer-name pytorch --producer-version 1.13.1 "$DATA/emit-cnn.ir" -o cnn.onnx
	run -0 onnx_py cnn.onnx "m.producer_name, m.producer_version"
	[ "$output" = "('pytorch', '1.13.1')" ]
}

@test "emit: --help and --version" {
	run -0 emit --help
	[[ "$output" == *"--dynamic-axes"* ]]
	[[ "$output" == *"--external-data[=FILE]"* ]]
	run -0 emit --version
	[[ "$output" == "emit (pt2onnx) "* ]]
}

@test "emit: refuses to write binary to a terminal unless forced" {
	command -v script >/dev/null || skip "no script(1) to provide a terminal"
	reference cnn-weights cnn-fc.bin
	run script -qec "$BINDIR/emit $DATA/emit-cnn.ir" /dev/null
	[ "$status" -eq 2 ]
	[[ "$output" == *"refusing to write binary output to a terminal"* ]]
	run script -qec "$BINDIR/emit --force $DATA/emit-cnn.ir" /dev/null
	[ "$status" -eq 0 ]
}

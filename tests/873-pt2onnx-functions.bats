#!/usr/bin/env bats
# 873-pt2onnx-functions.bats - pt2onnx --export-modules-as-functions=TYPES
# on a traced torch 1.13 model (tests/emit/make_functions.py): the model's
# structure is torch.onnx.export's own with export_modules_as_functions=
# {Block} (functions, calls, their names and inputs, opset imports), ONNX
# Runtime (which inlines the functions) matches torch at batch 3 and 5;
# torchvision's resnet18 with {BasicBlock}: torch's two functions (blocks
# with and without downsampling) and the same grouping of its eight calls;
# instances of one type that differ are one function per group of
# identical ones (Type, Type.1); the script path writes the same
# structure.  True (every type, nested): 874.
# bats file_tags=tier:standard

load helper
load emit/functions

# MODEL has the structure of torch's TORCH_MODEL: functions, calls, their
# names and inputs, opset imports
same_structure() {
	"$PYTHON" - "$1" "$2" <<'PY'
import sys, onnx
ours, theirs = onnx.load(sys.argv[1]), onnx.load(sys.argv[2])
def imports(m):
    return sorted((o.domain, o.version) for o in m.opset_import)
assert imports(ours) == imports(theirs), (imports(ours), imports(theirs))
def calls(m):
    # weights keep their names; activations' names differ
    return [(n.domain, n.op_type, n.name, len(n.input), list(n.input[1:]),
             len(n.output)) for n in m.graph.node]
assert calls(ours) == calls(theirs), (calls(ours), calls(theirs))
def funcs(m):
    return [(f.domain, f.name, len(f.input), len(f.output),
             [(n.domain, n.op_type) for n in f.node]) for f in m.functions]
assert funcs(ours) == funcs(theirs), (funcs(ours), funcs(theirs))
PY
}

@test "functions: the structure of torch's export with export_modules_as_functions={Block}" {
	run -0 pt2onnx --trace "$FIX/blocks_traced.pt" -i 'x=f32[batch:3,4]' \
		--dynamic-axes 'x:0=batch' --opset-version 15 \
		--export-modules-as-functions=__main__.Block -o m.onnx
	run -0 onnx_checker m.onnx
	run -0 same_structure m.onnx "$FIX/torch_block.onnx"
}

@test "functions: ONNX Runtime runs the model and matches torch at batch 3 and 5" {
	run -0 pt2onnx --trace "$FIX/blocks_traced.pt" -i 'x=f32[batch:3,4]' \
		--dynamic-axes 'x:0=batch' --opset-version 15 \
		--export-modules-as-functions=Block -o m.onnx
	run -0 check m.onnx
	ort_matches_torch m.onnx
}

@test "functions: a call with an input too many is refused by check and by ONNX Runtime" {
	run -0 pt2onnx --trace "$FIX/blocks_traced.pt" -i 'x=f32[3,4]' \
		--opset-version 15 --export-modules-as-functions=Block -o m.onnx
	"$PYTHON" -c '
import onnx
m = onnx.load("m.onnx")
m.graph.node[0].input.append("b1.fc.bias")
onnx.save(m, "call.onnx")'
	run -1 check call.onnx
	[[ "$output" == *'node "/b1/Block" (Block): 4 inputs, but function Block of domain "local" takes 3'* ]]
	run ort_run call.onnx out x="$FIX/x3.npy"
	[ "$status" -ne 0 ]
}

@test "functions: the script path: torch's structure too, ORT matches torch; spellings; False" {
	run -0 pt2onnx "$FIX/blocks_traced.pt" -i 'x=f32[batch,4]' \
		--dynamic-axes 'x:0=batch' --opset-version 15 \
		--export-modules-as-functions=__main__.Block -o m.onnx
	run -0 onnx_checker m.onnx
	run -0 same_structure m.onnx "$FIX/torch_block.onnx"
	ort_matches_torch m.onnx
	rm m.onnx
	# the types as the next word, torch's underscore spelling
	run -0 pt2onnx --trace "$FIX/blocks_traced.pt" -i 'x=f32[3,4]' \
		--opset_version 15 --export_modules_as_functions Block -o m.onnx
	run -0 "$PYTHON" -c 'import onnx; assert [f.name for f in onnx.load("m.onnx").functions] == ["Block"]'
	rm m.onnx
	# False is torch's default
	run -0 pt2onnx --trace "$FIX/blocks_traced.pt" -i 'x=f32[3,4]' \
		--export-modules-as-functions=False -o m.onnx
	run -0 "$PYTHON" -c 'import onnx; assert not onnx.load("m.onnx").functions'
}

@test "functions: instances that differ are one function per group (Scale, Scale.1); ORT matches torch" {
	run -0 pt2onnx --trace "$FIX/scaled_traced.pt" -i 'x=f32[3,4]' \
		--opset-version 15 --export-modules-as-functions=Scale -o s.onnx
	run -0 onnx_checker s.onnx
	# a function of a domain of its own is checked as a function, whatever
	# its name (Scale is also one of ONNX's old experimental ops)
	run -0 check s.onnx
	[ "$output" = "s.onnx: ok" ]
	run -0 "$PYTHON" -c '
import onnx
m = onnx.load("s.onnx")
assert [f.name for f in m.functions] == ["Scale", "Scale.1"], m.functions
assert [(n.op_type, n.name) for n in m.graph.node] == [("Scale", "/s1/Scale"), ("Scale.1", "/s2/Scale.1")], m.graph.node'
	run -0 ort_run s.onnx out x="$FIX/x3.npy"
	run -0 "$PYTHON" "$ORACLE_DIR/reference.py" compare out/*.npy "$FIX/scaled_want3.npy" 1e-6
}

@test "functions: resnet18 with BasicBlock: torch's two functions and eight calls; ORT matches torch" {
	need_torch torchvision
	FIXTURE_DEST=r fixture_run "$TESTS_DIR/emit/make_resnet_functions.py"
	run -0 pt2onnx --trace r/resnet18_traced.pt -i 'x=f32[batch:1,3,64,64]' \
		--dynamic-axes 'x:0=batch' --opset-version 15 \
		--export-modules-as-functions=torchvision.models.resnet.BasicBlock -o m.onnx
	run -0 onnx_checker m.onnx
	run -0 check m.onnx
	run -0 "$PYTHON" - r/torch_resnet18.onnx <<'PY'
import sys, onnx
ours, theirs = onnx.load("m.onnx"), onnx.load(sys.argv[1])
def bodies(m):
    return sorted((f.domain, [n.op_type for n in f.node]) for f in m.functions)
assert bodies(ours) == bodies(theirs), (bodies(ours), bodies(theirs))
def calls(m):
    return [n.domain for n in m.graph.node if n.domain]
assert calls(ours) == calls(theirs) and len(calls(ours)) == 8, (calls(ours), calls(theirs))
# the same instances share a function in both (the names may differ)
def grouping(m):
    seen = {}
    return [seen.setdefault(n.op_type, len(seen)) for n in m.graph.node if n.domain]
assert grouping(ours) == grouping(theirs), (grouping(ours), grouping(theirs))
PY
	run -0 ort_run m.onnx out x=r/x.npy
	run -0 "$PYTHON" "$ORACLE_DIR/reference.py" compare out/*.npy r/want.npy 1e-4
}

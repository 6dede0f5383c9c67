#!/usr/bin/env bats
# 874-pt2onnx-functions-true.bats - pt2onnx --export-modules-as-functions
# (True: every module type, nested, the root's included) on torch 1.13
# models: the functions and the calls in each are those of
# torch.onnx.export's own export_modules_as_functions=True (torch_true.onnx
# from tests/emit/make_functions.py, torch_resnet18_true.onnx from
# make_resnet_functions.py), and ONNX Runtime (which inlines the
# functions) matches torch, on the trace and the script paths; five of
# torch 2.11's models (../shared/torch2), traced, scripted and exported
# (.pt2), verify against its ref_0.npy.  Where ours differ from torch's,
# by design (onnx_functions.h): every domain is "local" (torch's: the
# class's Python module), and resnet18's convolutions that differ in
# stride or padding are Conv2d, Conv2d.1, ... (torch: one Conv2d with
# function attributes).
# bats file_tags=tier:standard

load helper
load emit/functions

# MODEL has TORCH_MODEL's functions (torch's True export) as a set,
# the calls and ops in each, and its graph's one call
same_as_torch_true() {
	"$PYTHON" - "$1" "$2" <<'PY'
import sys, onnx
ours, theirs = onnx.load(sys.argv[1]), onnx.load(sys.argv[2])
# the graph: one call of the root module, the input and every weight
def graph(m):
    return [(n.op_type, list(n.input[1:]), len(n.output)) for n in m.graph.node]
assert graph(ours) == graph(theirs) == [("M", ["b1.fc.weight", "b1.fc.bias", "b2.fc.weight", "b2.fc.bias", "out.weight", "out.bias"], 1)], (graph(ours), graph(theirs))
# the functions, each with the calls and ops in its body; as a set:
# torch 1.13 lists them in an order that varies between runs (one build of
# the fixture gave M, Block, Linear, ReLU, another M, Block, ReLU, Linear)
def funcs(m):
    return sorted((f.name, len(f.input), len(f.output),
                   [(n.op_type, len(n.input), len(n.output)) for n in f.node])
                  for f in m.functions)
assert funcs(ours) == funcs(theirs), (funcs(ours), funcs(theirs))
# a call's domain is its function's
for m in (ours, theirs):
    dom = {f.name: f.domain for f in m.functions}
    for f in m.functions:
        for n in f.node:
            assert n.domain == dom.get(n.op_type, ""), (f.name, n)
assert {f.domain for f in ours.functions} == {"local"}
PY
}

@test "functions True: torch's functions, nested calls and graph call; ORT matches torch at batch 3 and 5" {
	run -0 pt2onnx --trace "$FIX/blocks_traced.pt" -i 'x=f32[batch:3,4]' \
		--dynamic-axes 'x:0=batch' --opset-version 15 \
		--export-modules-as-functions -o m.onnx
	run -0 onnx_checker m.onnx
	run -0 check m.onnx
	run -0 same_as_torch_true m.onnx "$FIX/torch_true.onnx"
	ort_matches_torch m.onnx
}

@test "functions True: torch spellings (=true, --export_modules_as_functions True) are the same model" {
	run -0 pt2onnx --trace "$FIX/blocks_traced.pt" -i 'x=f32[3,4]' \
		--opset-version 15 --export-modules-as-functions -o a.onnx
	run -0 pt2onnx --trace "$FIX/blocks_traced.pt" -i 'x=f32[3,4]' \
		--opset-version 15 --export-modules-as-functions=true -o b.onnx
	run -0 pt2onnx --trace "$FIX/blocks_traced.pt" -i 'x=f32[3,4]' \
		--opset_version 15 --export_modules_as_functions True -o c.onnx
	cmp a.onnx b.onnx
	cmp a.onnx c.onnx
}

@test "functions True: the script path writes torch's functions too, ORT matches torch; opset 14 is refused" {
	run -0 pt2onnx "$FIX/blocks_traced.pt" -i 'x=f32[batch,4]' \
		--dynamic-axes 'x:0=batch' --opset-version 15 \
		--export-modules-as-functions -o m.onnx
	run -0 onnx_checker m.onnx
	run -0 same_as_torch_true m.onnx "$FIX/torch_true.onnx"
	ort_matches_torch m.onnx
	rm m.onnx
	run -2 pt2onnx --trace "$FIX/blocks_traced.pt" -i 'x=f32[3,4]' \
		--opset-version 14 --export-modules-as-functions -o m.onnx
	[ "$output" = "pt2onnx: --export-modules-as-functions needs opset 15 or later (local functions), not 14: give --opset-version 15" ]
	# torch 1.13's default opset is 14: refused before any stage runs
	run -2 pt2onnx "$FIX/blocks_traced.pt" -i 'x=f32[3,4]' \
		--export-modules-as-functions -o m.onnx
	[ "$output" = "pt2onnx: --export-modules-as-functions needs opset 15 or later (local functions), not 14: give --opset-version 15" ]
	[ ! -e m.onnx ]
}

@test "functions True: resnet18: torch's nesting (ReLU called twice per block: two calls); ORT matches torch" {
	need_torch torchvision
	FIXTURE_DEST=r fixture_run "$TESTS_DIR/emit/make_resnet_functions.py"
	run -0 pt2onnx --trace r/resnet18_traced.pt -i 'x=f32[batch:1,3,64,64]' \
		--dynamic-axes 'x:0=batch' --opset-version 15 \
		--export-modules-as-functions=True -o m.onnx
	run -0 onnx_checker m.onnx
	run -0 check m.onnx
	run -0 "$PYTHON" - r/torch_resnet18_true.onnx <<'PY'
import sys, re, onnx
ours, theirs = onnx.load("m.onnx"), onnx.load(sys.argv[1])
base = lambda s: re.sub(r"\.\d+$", "", s)
# each function's type and the types called in its body, the group
# numbers aside (torch numbers its groups in another order)
def bodies(m):
    return {(base(f.name), tuple(base(n.op_type) for n in f.node)) for f in m.functions}
assert bodies(ours) == bodies(theirs), (bodies(ours) ^ bodies(theirs))
# the graph: one call of ResNet (torch adds Identity nodes for weights)
assert [n.op_type for n in ours.graph.node] == ["ResNet"], ours.graph.node
assert [n.op_type for n in theirs.graph.node if n.op_type != "Identity"] == ["ResNet"]
# the same grouping of the blocks and layers into functions
def grouping(m, t):
    seen, out = {}, []
    def walk(f):
        for n in f.node:
            g = fns.get(n.op_type)
            if g is None:
                continue
            if base(n.op_type) == t:
                out.append(seen.setdefault(n.op_type, len(seen)))
            walk(g)
    fns = {f.name: f for f in m.functions}
    walk(fns["ResNet"])
    return out
for t in ("Sequential", "BasicBlock", "ReLU"):
    assert grouping(ours, t) == grouping(theirs, t), (t, grouping(ours, t), grouping(theirs, t))
assert len(grouping(ours, "ReLU")) == 17, grouping(ours, "ReLU")
PY
	run -0 ort_run m.onnx out x=r/x.npy
	run -0 "$PYTHON" "$ORACLE_DIR/reference.py" compare out/*.npy r/want.npy 1e-4
}

@test "functions True: torch 2.11's models, each path (trace, script, .pt2): onnx.checker, ORT matches torch's ref" {
	local shared=/work/shared/torch2/models
	[ -d "$shared" ] || need_skip "needs ../shared/torch2/models (torch 2.11's archives)" || return 0
	local m a ins feeds k name
	for a in trace:traced.pt script:scripted.pt pt2:exported.pt2; do
	for m in convnext_block lstm_tagger tiny_lm vit_tiny multihead_attention; do
		ins=() feeds=() k=0
		[ "${a%%:*}" = pt2 ] || for f in "$shared/$m"/in_*.npy; do ins+=(-i "$f"); done
		[ "${a%%:*}" != trace ] || ins+=(--trace)
		run -0 pt2onnx "$shared/$m/${a#*:}" "${ins[@]}" \
			--opset-version 17 --export-modules-as-functions -o "$m.onnx"
		run -0 onnx_checker "$m.onnx"
		run -0 "$PYTHON" -c "
import onnx
m = onnx.load('$m.onnx')
# one call, of the root module (a .pt2's sym_size nodes have no module)
assert [n.domain for n in m.graph.node if n.domain] == ['local'], m.graph.node
assert len(m.functions) > 1
print(' '.join(i.name for i in m.graph.input))"
		for name in $output; do
			[ ! -f "$shared/$m/in_$k.npy" ] || feeds+=("$name=$shared/$m/in_$k.npy")
			k=$((k + 1))
		done
		rm -rf "out_$m"
		run -0 ort_run "$m.onnx" "out_$m" "${feeds[@]}"
		run -0 "$PYTHON" -c "import onnx; print(onnx.load('$m.onnx').graph.output[0].name)"
		run -0 "$PYTHON" "$ORACLE_DIR/reference.py" compare "out_$m/$output.npy" "$shared/$m/ref_0.npy" 1e-3
	done
	done
}

#!/usr/bin/env bats
# 202-script-classes.bats - `script` on the constructs torchvision's
# detection and segmentation models are made of, each in a small model that
# torch.jit.script writes here (tests/script/make_class_models.py): class
# objects (C.__new__ + __init__, fields set and read, methods), NamedTuple,
# IntermediateLayerGetter's Dict[str, str] attribute looked up in a loop,
# Optional refinement, dicts changed in loops and ifs, lists of dicts,
# in-place ops in loops, module attributes set in forward.
#
# Oracles: torch's op set of the frozen, inlined graph
# (compare_ops.torch_oracle), extended through class objects' fields
# (see op_oracle below), and, where the graph lowers, torch's outputs
# against script | lower | fold | emit in ONNX Runtime (1e-4 relative).
#
# Needs Debian's python3-torch; skipped without.
# bats file_tags=tier:standard

bats_require_minimum_version 1.5.0
load helper

M="${BATS_FILE_TMPDIR:-/tmp}/cm"

setup_file() {
	need_torch || return 0
	need_ort || return 0
	FIXTURE_DEST="$M" fixture_run "$BATS_TEST_DIRNAME/script/make_class_models.py" \
		@OUT > "$BATS_FILE_TMPDIR/gen.log" 2>&1 || true
}

need() {
	[ -f "$M/$1.pt" ] || skip "no $1.pt (python3-torch missing?)"
}

# agree NAME [KIND...]: script -S, then the op set and weight count against
# torch's.  The KINDs named may be in torch's set and not in ours: dict
# container ops (aten::dict, aten::_set_item, aten::__getitem__) of a dict
# `script` resolves entry by entry, and checks on module attributes that
# forward sets (torch does not freeze those; `script` follows the set).
agree() {
	need "$1"
	local name=$1
	shift
	run -0 tool script -S "$M/$name.pt"
	printf '%s\n' "$output" > "$WORK/$name.ir"
	cp "$M/$name.nweights" "$WORK/$name.nweights"
	grep -vxF -f <(printf '%s\n' "$@" "#none#") "$M/$name.ops" \
		> "$WORK/$name.ops" || true
	# the kinds forgiven may be torch's (as its oracle evolves), never ours
	for k in "$@"; do
		! grep -qF "= $k(" "$WORK/$name.ir"
	done
	run -0 "$PYTHON" "$TESTS_DIR/script/compare_ops.py" \
		"$WORK/$name.ir" "$WORK/$name"
	echo "$output"
}

# runs NAME: script | lower | fold | emit at opset 13, checked, run in ONNX
# Runtime on the inputs torch saw, compared with torch's outputs
runs() {
	need "$1"
	local name=$1 specs=() feeds=() l
	while IFS= read -r l; do
		specs+=(-i "$l")
		feeds+=("${l%%=*}=$M/$name.${l%%=*}.npy")
	done < "$M/$name.in.txt"
	set -o pipefail
	tool script "$M/$name.pt" "${specs[@]}" | tool lower --opset 13 |
		tool fold | emit -o "$name.onnx" || return 1
	onnx_checker "$name.onnx" || return 1
	rm -rf out
	ort_run "$name.onnx" out "${feeds[@]}" > /dev/null || return 1
	"$PYTHON" - "$name" "$M" out "$name.onnx" <<'PY'
import glob, sys
import numpy as np
import onnx
name, m, out, path = sys.argv[1:5]
names = [o.name for o in onnx.load(path).graph.output]
wants = sorted(glob.glob(f"{m}/{name}.want_*.npy"),
               key=lambda p: int(p.rsplit("_", 1)[1][:-4]))
assert len(names) == len(wants), (names, wants)
for n, w in zip(names, wants):
    g, w = np.load(f"{out}/{n}.npy"), np.load(w)
    assert g.shape == w.shape, (n, g.shape, w.shape)
    scale = max(float(np.max(np.abs(w))), 1e-30)
    err = float(np.max(np.abs(g.astype(np.float64) - w))) / scale
    assert err <= 1e-4, f"{n}: relative error {err:.3g}"
PY
}

@test "script classes: an object made in forward, a field set again, a method called" {
	agree obj
	# no object is left in the graph: its fields are SSA values
	[[ "$(cat "$WORK/obj.ir")" != *prim::CreateObject* &&
	   "$(cat "$WORK/obj.ir")" != *Attr* ]]
	run -0 runs obj
}

@test "script classes: an object made in a submodule, returned to the caller" {
	agree objmod
	run -0 runs objmod
}

@test "script classes: a NamedTuple read by field name and by index" {
	agree ntuple
	run -0 runs ntuple
}

@test "script classes: IntermediateLayerGetter's Dict[str, str] attribute in a loop over submodules" {
	agree getter aten::dict aten::_set_item aten::__getitem__
	run -0 runs getter
}

@test "script classes: Optional refinement of an argument and of an attribute" {
	agree optional
	run -0 runs optional
}

@test "script classes: a module attribute set in forward is followed (self._has_warned)" {
	agree warn aten::__not__
	run -0 runs warn
}

@test "script classes: a dict changed in a loop and an if becomes one value with _set_item" {
	agree dictloop
	run -0 grep -c 'prim::DictConstruct' "$WORK/dictloop.ir"
	run -0 grep -F 'aten::_set_item' "$WORK/dictloop.ir"
}

@test "script classes: a list of dicts built in a loop" {
	agree listdict
	run -0 grep -F 'Dict(str, Tensor)[] = prim::ListConstruct' "$WORK/listdict.ir"
}

@test "script classes: index_put_ in a loop on a tensor from before it stays in place" {
	agree inplace
	# out of place, the loop's change would be lost (and the loop dropped)
	run -0 grep -F '= aten::index_put_(' "$WORK/inplace.ir"
	run -0 grep -F 'prim::Loop' "$WORK/inplace.ir"
}

@test "script classes: a dict made in each arm of an if is one value after it" {
	agree dictif
	run -0 grep -c 'Dict(str, Tensor) = prim::If' "$WORK/dictif.ir"
}

@test "script classes: an object's fields set inside ifs become prim::If outputs" {
	agree objif
	run -0 grep -F 'prim::If' "$WORK/objif.ir"
	run -0 runs objif
	run -0 runs objif2
}

@test "script classes: an object's field set inside a loop: the object is a value, SetAttr/GetAttr" {
	agree objloop
	run -0 grep -F '__torch__.Scaled = prim::CreateObject()' "$WORK/objloop.ir"
	# the read in the body is a GetAttr inside the loop, not the value
	# from before it
	run -0 grep -E '^      %[0-9]+ : Tensor = prim::GetAttr\[name="t"\]' \
		"$WORK/objloop.ir"
	run -0 grep -E '^      = prim::SetAttr\[name="t"\]' "$WORK/objloop.ir"
}

@test "script classes: objects in a list, methods called on its elements" {
	agree objlist
	run -0 grep -F '__torch__.Scaled[] = prim::ListConstruct()' \
		"$WORK/objlist.ir"
	run -0 grep -F 'prim::GetAttr[name="scale"]' "$WORK/objlist.ir"
}

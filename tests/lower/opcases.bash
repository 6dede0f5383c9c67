# opcases.bash - the harness of the lower tests that compare pt2onnx with
# eager torch per operator case (417, 418, 419): a case NAME is built by
# tests/lower/$OPCASES_GEN (make_opgaps.py, make_long_tail.py; through
# tests/lower/opcases.py's write_case), converted on the three paths
# (trace, script of the traced archive, script of the scripted one),
# checked by onnx.checker, run in ONNX Runtime on every input set and
# compared with torch in dtype, shape and value.  Loaded by the bats file
# after it sets OPCASES_GEN.

# every file of the harness builds with torch and runs ONNX Runtime
setup_file() {
	need_torch || return 0
	need_ort || return 0
}

# build NAME: the model's archives, inputs and torch's outputs under NAME/
build() {
	FIXTURE_DEST="$1" fixture_run "$TESTS_DIR/lower/$OPCASES_GEN" "$1" @OUT
}

# convert NAME PATH OPSET: NAME/PATH-OPSET.onnx by pt2onnx on that path
convert() {
	local args
	mapfile -t args < <("$PYTHON" - "$1" "$2" <<'PY'
import json, sys
name, path = sys.argv[1:3]
meta = json.load(open(f"{name}/meta.json"))
if path == "trace":
    print(f"{name}/traced.pt"); print("--trace")
    dyn = {}
    for i in meta["inputs"]:
        print("--input"); print(f"{name}/in1/{i['name']}.npy")
        if i["dynamic"]:
            dyn[i["name"]] = {str(k): f"{i['name']}_d{k}" for k in i["dynamic"]}
    if dyn:
        print("--dynamic-axes"); print(json.dumps(dyn))
else:
    print(f"{name}/{'traced' if path == 'script:traced' else 'scripted'}.pt")
    print("--script")
    for i in meta["inputs"]:
        dims = [f"{i['name']}_d{k}" if k in i["dynamic"] else str(s)
                for k, s in enumerate(i["shape"])]
        print("--input"); print(f"{i['name']}={i['dtype']}[{','.join(dims)}]")
PY
	)
	pt2onnx "${args[@]}" -o "$1/${2/:/_}-$3.onnx" --opset-version "$3"
}

# same NAME PATH OPSET: checked, run on every input set, compared with torch
same() {
	local m="$1/${2/:/_}-$3.onnx" k feeds n i
	# python3-onnx (1.12) knows opsets up to 17: pt2onnx's own check above
	if [ "$3" -gt 17 ]; then
		check "$m" > /dev/null || { echo "check: $m"; return 1; }
	else
		onnx_checker "$m" || return 1
	fi
	local names=($("$PYTHON" -c 'import onnx, sys
print(" ".join(i.name for i in onnx.load(sys.argv[1]).graph.input))' "$m"))
	local order=($("$PYTHON" -c 'import json, sys
print(" ".join(i["name"] for i in json.load(open(sys.argv[1]))["inputs"]))' "$1/meta.json"))
	for k in $(seq 1 "$("$PYTHON" -c 'import json, sys
m = json.load(open(sys.argv[1]))
print(1 if m["set2_scripted_only"] and sys.argv[2] != "script:scripted" else m["sets"])' "$1/meta.json" "$2")"); do
		feeds=()
		for i in "${!names[@]}"; do
			feeds+=("${names[$i]}=$1/in$k/${order[$i]}.npy")
		done
		rm -rf "$1/got"
		ort_run "$m" "$1/got" "${feeds[@]}" > /dev/null || return 1
		"$PYTHON" - "$m" "$1/got" "$1/out$k" "$k" <<'PY' || return 1
import glob, sys
import numpy as np
import onnx
from onnx.mapping import TENSOR_TYPE_TO_NP_TYPE
path, got, want, k = sys.argv[1:5]
outs = onnx.load(path).graph.output
n = len(glob.glob(f"{want}/*.npy"))
assert len(outs) == n, f"{path}: {len(outs)} outputs, torch's {n}"
for j, o in enumerate(outs):
    g, w = np.load(f"{got}/{o.name}.npy"), np.load(f"{want}/{j}.npy")
    t = o.type.tensor_type
    assert TENSOR_TYPE_TO_NP_TYPE[t.elem_type] == g.dtype, f"{path} {o.name}: declared {t.elem_type}, runs as {g.dtype}"
    if k == "1":  # the declared rank: the rank torch's example gives
        assert t.HasField("shape") and len(t.shape.dim) == w.ndim, f"{path} {o.name}: declared rank, torch's {w.ndim}"
    assert g.dtype == w.dtype, f"{path} {o.name}: dtype {g.dtype}, torch's {w.dtype}"
    assert g.shape == w.shape, f"{path} {o.name}: shape {g.shape}, torch's {w.shape}"
    if w.dtype.kind in "biu":
        assert (g == w).all(), f"{path} {o.name}: {g} != torch's {w}"
        continue
    # NaNs and infinities where torch has them, the same ones; the
    # finite values within 1e-5 of torch's largest
    fin = np.isfinite(w)
    assert (np.isnan(g) == np.isnan(w)).all(), f"{path} {o.name}: NaNs at other places than torch's"
    assert (g[np.isinf(w)] == w[np.isinf(w)]).all(), f"{path} {o.name}: infinities differ from torch's"
    g, w = g[fin], w[fin]
    scale = max(float(np.max(np.abs(w))), 1e-30) if w.size else 1
    err = float(np.max(np.abs(g.astype(np.float64) - w))) / scale if w.size else 0
    assert err <= 1e-5, f"{path} {o.name}: relative error {err:.3g} (set {k})"
PY
	done
}

# all NAME [OPSET...]: every path ($PATHS, default all three) and opset
# (default 9 13 17) converts and matches torch
all() {
	build "$1" || return 1
	local p o name=$1 opsets=("${@:2}")
	[ ${#opsets[@]} -gt 0 ] || opsets=(9 13 17)
	set -- "$name"
	for p in ${PATHS:-trace script:traced script:scripted}; do
		for o in "${opsets[@]}"; do
			convert "$1" "$p" "$o" || { echo "$1 $p $o: not converted"; return 1; }
			same "$1" "$p" "$o" || { echo "$1 $p $o: differs"; return 1; }
		done
	done
}


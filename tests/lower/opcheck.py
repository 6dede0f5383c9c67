#!/usr/bin/python3
"""opcheck.py - the Python half of tests/lower/opcases.bash, one process per
case instead of several per (path, opset):

    opcheck.py args NAME
        writes NAME/args/PATH (PATH trace, script_traced, script_scripted):
        pt2onnx's arguments on that path, one a line, from NAME/meta.json
    opcheck.py same NAME PATH OPSET [PATH OPSET...]
        each NAME/PATH-OPSET.onnx (':' in PATH as '_'): checked by
        onnx.checker up to opset 17 (above, opcases.bash ran pt2onnx's
        check), run in ONNX Runtime on each of its input sets (all of them
        in one node process: tests/oracle/ort_jobs.py) and compared with
        torch in dtype, declared rank, shape and value.  At the first failure prints why and
        "NAME PATH OPSET: differs", exit status 1.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.dirname(HERE)
PATHS = ("trace", "script:traced", "script:scripted")


def write_args(name):
    meta = json.load(open(f"{name}/meta.json"))
    os.makedirs(f"{name}/args", exist_ok=True)
    for path in PATHS:
        if path == "trace":
            args = [f"{name}/traced.pt", "--trace"]
            dyn = {}
            for i in meta["inputs"]:
                args += ["--input", f"{name}/in1/{i['name']}.npy"]
                if i["dynamic"]:
                    dyn[i["name"]] = {str(k): f"{i['name']}_d{k}" for k in i["dynamic"]}
            if dyn:
                args += ["--dynamic-axes", json.dumps(dyn)]
        else:
            args = [f"{name}/{'traced' if path == 'script:traced' else 'scripted'}.pt",
                    "--script"]
            for i in meta["inputs"]:
                dims = [f"{i['name']}_d{k}" if k in i["dynamic"] else str(s)
                        for k, s in enumerate(i["shape"])]
                args += ["--input", f"{i['name']}={i['dtype']}[{','.join(dims)}]"]
        with open(f"{name}/args/{path.replace(':', '_')}", "w") as f:
            f.write("".join(a + "\n" for a in args))


def compare(path, outs, got, want, k):
    """outs: the model's graph outputs; got: ONNX Runtime's arrays, want:
    torch's, in that order; k: the input set (1: the declared rank too)."""
    import numpy as np
    from onnx.mapping import TENSOR_TYPE_TO_NP_TYPE
    assert len(outs) == len(want), f"{path}: {len(outs)} outputs, torch's {len(want)}"
    for o, g, w in zip(outs, got, want):
        t = o.type.tensor_type
        assert TENSOR_TYPE_TO_NP_TYPE[t.elem_type] == g.dtype, f"{path} {o.name}: declared {t.elem_type}, runs as {g.dtype}"
        if k == 1:  # the declared rank: the rank torch's example gives
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


def same(name, runs):
    """runs: [(path, opset)]; 0 when every model passes, else 1."""
    import glob
    import numpy as np
    import onnx
    sys.path.insert(0, os.path.join(TESTS, "oracle"))
    import onnx_check
    import ort_jobs
    meta = json.load(open(f"{name}/meta.json"))
    order = [i["name"] for i in meta["inputs"]]
    models, jobs = [], []
    for path, opset in runs:
        m = f"{name}/{path.replace(':', '_')}-{opset}.onnx"
        # python3-onnx (1.12) knows opsets up to 17: pt2onnx's check above
        if int(opset) <= 17 and onnx_check.main([m]) != 0:
            print(f"{name} {path} {opset}: differs")
            return 1
        graph = onnx.load(m).graph
        sets = 1 if meta["set2_scripted_only"] and path != "script:scripted" else meta["sets"]
        for k in range(1, sets + 1):
            out = f"{name}/got/{path.replace(':', '_')}-{opset}-{k}"
            jobs.append((m, out, [(i.name, f"{name}/in{k}/{n}.npy")
                                  for i, n in zip(graph.input, order)]))
            models.append((path, opset, m, graph.output, k))
    answers = ort_jobs.run(jobs)
    for a, (path, opset, m, outs, k) in zip(answers, models):
        try:
            assert a.get("ok"), f"ort_run: {m}: {a.get('error')}"
            assert [o["name"] for o in a["outputs"]] == [o.name for o in outs], \
                f"{m}: ONNX Runtime's outputs {[o['name'] for o in a['outputs']]}"
            want = f"{name}/out{k}"
            compare(m, outs, [np.load(o["path"]) for o in a["outputs"]],
                    [np.load(f"{want}/{i}.npy") for i in range(len(glob.glob(f"{want}/*.npy")))], k)
        except AssertionError as e:
            print(f"AssertionError: {e}")
            print(f"{name} {path} {opset}: differs")
            return 1
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "args":
        write_args(sys.argv[2])
    elif len(sys.argv) >= 5 and sys.argv[1] == "same" and len(sys.argv) % 2 == 1:
        sys.exit(same(sys.argv[2], list(zip(sys.argv[3::2], sys.argv[4::2]))))
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)

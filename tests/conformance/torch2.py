#!/usr/bin/python3
"""torch2.py - the torch2 family: TorchScript archives saved by torch 2.11.

    /usr/bin/python3 tests/conformance/torch2.py [--only NAMES] [--opsets 13,17]
        [--paths script,trace] [--archives traced,scripted,exported]
        [--pt2onnx BIN] [--work DIR] [--json FILE] [--src DIR] [--size2]
        [--device cpu|cuda|auto]

No torch 2.x runs here: the models are copies of what torch 2.11 wrote on
a GPU machine (../shared/torch2/models, see its README), committed under
tests/conformance/torch2/NAME/: traced.pt, scripted.pt, in_K.npy (forward's
arguments in order), ref_K.npy (torch 2.11's eager outputs, flattened),
meta.json (torch's).  The oracle is ref_K.npy only.

Each (model, archive, path, opset) is converted with pt2onnx (script path:
--input DTYPE[SHAPE] per argument; trace path: --trace --input in_K.npy),
checked with python3-onnx (full_check) and run in ONNX Runtime on in_K.npy;
fp32 outputs must agree with ref_K.npy to max |a-b| / max |ref| <= 1e-4
(evaluate.compare, the suite's rule).  Prints one line per conversion,
"PASS ..." or "FAIL ...: why", then a total; exits 1 when any fails.

generate.py lays the same files out as an ordinary model of the suite
(family torch2, names torch2_NAME; lay_out below) so that run.py and
report.py treat them like the others: the three paths of run.py (trace on
traced.pt, script on both archives) at opsets 9, 13 and 17.  This runner
adds the trace path on scripted.pt.

The archive "exported" is torch.export's exported.pt2 (not committed: read
from --src ../shared/torch2/models), converted with no --input (the unpt2
stage, path "pt2").  With --size2, a model whose meta.json lists dynamic
dims (pt2_dynamic) is run again at a second size (those dims + 1, inputs
tiled from in_K.npy); the reference there is the trace path's model of
traced.pt made at that size (verified at the first size against
ref_K.npy by the trace path's own runs), run in ONNX Runtime.
"""
import argparse
import glob
import json
import os
import re
import shutil
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import HERE, ROOT, SPEC_DTYPE, error_line, measured_run, write_json  # noqa: E402

SRC = os.path.join(HERE, "torch2")
PREFIX = "torch2_"  # the suite's model names: torch2_llama_block, ...
PT2_PREFIX = "pt2_"  # the pt2 family: pt2_llama_block, ... (exported.pt2)


def pt2_src():
    """Where the exported.pt2 archives are: $PT2ONNX_TORCH2_MODELS, else
    ../shared/torch2/models beside the repository (or beside its worktree
    folder); None when absent."""
    for d in (os.environ.get("PT2ONNX_TORCH2_MODELS"), os.path.join(ROOT, "..", "shared", "torch2", "models"),
              os.path.join(ROOT, "..", "..", "shared", "torch2", "models")):
        if d and os.path.isdir(d):
            return os.path.abspath(d)
    return None


def pt2_names():
    d = pt2_src()
    return sorted(n for n in os.listdir(d) if os.path.isfile(os.path.join(d, n, "exported.pt2"))) if d else []
ARCHIVES = ("traced", "scripted")
EXPORTED = "exported"  # exported.pt2, the unpt2 stage's archive


def archive_file(d, archive):
    return os.path.join(d, f"{archive}.pt2" if archive == EXPORTED else f"{archive}.pt")


def names():
    return sorted(d for d in os.listdir(SRC) if any(os.path.isfile(archive_file(os.path.join(SRC, d), a))
                                                  for a in ARCHIVES + (EXPORTED,)))


def numbered(d, prefix):
    """[path] of d/prefix_K.npy in K's order."""
    fs = glob.glob(os.path.join(d, f"{prefix}_*.npy"))
    return sorted(fs, key=lambda f: int(re.search(r"_(\d+)\.npy$", f).group(1)))


DEVICE = None


def cmd(binary, d, archive, path, opset, out, ins=None):
    c = [binary, archive_file(d, archive), "-o", out, "--opset-version", str(opset)]
    if archive == EXPORTED:
        return c
    if path == "trace":
        c.append("--trace")
        if DEVICE:
            c += ["--device", DEVICE]
        for f in (ins or numbered(d, "in")):
            c += ["--input", f]
    else:
        c.append("--script")
        for f in numbered(d, "in"):
            a = np.load(f, mmap_mode="r")
            c += ["--input", f"{SPEC_DTYPE[str(a.dtype)]}[{','.join(map(str, a.shape))}]"]
    return c


def lay_out(work, name):
    """Lays model `name` (PREFIX + a directory of SRC, or PT2_PREFIX + one
    of pt2_src(): exported.pt2 only) out in
    WORK/models/NAME/ as generate.py lays out a model it built (in1/in_K.npy,
    out1/K.npy, traced.pt, scripted.pt, meta.json at stage "done"), from the
    committed copies; no torch runs.  torch.onnx.export has no results here
    (torch 2.11 is not on this machine)."""
    from common import GEN_VERSION, model_dir
    pt2 = name.startswith(PT2_PREFIX)
    src = os.path.join(pt2_src(), name[len(PT2_PREFIX):]) if pt2 else os.path.join(SRC, name[len(PREFIX):])
    archives = (EXPORTED,) if pt2 else ARCHIVES
    mdir = model_dir(work, name)
    for sub in ("in1", "out1"):
        shutil.rmtree(os.path.join(mdir, sub), ignore_errors=True)
        os.makedirs(os.path.join(mdir, sub))
    inputs = []
    for f in numbered(src, "in"):
        a = np.load(f, mmap_mode="r")
        n = os.path.basename(f)[:-4]
        shutil.copyfile(f, os.path.join(mdir, "in1", n + ".npy"))
        # forward's argument names are not known here (torch 1.13 cannot
        # load these archives): run.py passes the inputs positionally
        inputs.append({"name": n, "dtype": str(a.dtype), "shape1": list(a.shape), "dynamic": [],
                       "positional": True})
    refs = numbered(src, "ref")
    for k, f in enumerate(refs):
        shutil.copyfile(f, os.path.join(mdir, "out1", f"{k}.npy"))
    for a in archives:
        shutil.copyfile(archive_file(src, a), archive_file(mdir, a))
    tmeta = json.load(open(os.path.join(src, "meta.json")))
    write_json(os.path.join(mdir, "meta.json"), {
        "name": name, "family": "pt2" if pt2 else "torch2", "gen_version": GEN_VERSION, "stage": "done",
        "inputs": inputs, "n_outputs": len(refs), "has_set2": False, "compare": "values",
        "notes": f"saved by torch {tmeta.get('torch')}; oracle: its ref_K.npy",
        "weight_bytes": os.path.getsize(os.path.join(src, "traced.pt")),
        "archives": {a: {"ok": True, "bytes": os.path.getsize(archive_file(src, a))} for a in archives}})


def second_size(binary, d, opset, out, gin, work, pool):
    """Runs the dynamic model `out` at a second size against the trace
    path's model of traced.pt made at that size.  None: not a dynamic model;
    else (why, max rel): why "" when they agree."""
    from evaluate import compare
    dyn = json.load(open(os.path.join(d, "meta.json"))).get("pt2_dynamic") or {}
    if not dyn:
        return None
    ins = []
    for k, f in enumerate(numbered(d, "in")):
        a = np.load(f)
        for ax in (dyn.get(str(k)) or {}):
            ax = int(ax)
            n = a.shape[ax] + 1
            a = np.concatenate([a] * 2, axis=ax).take(range(n), axis=ax)
        p = os.path.join(work, f"size2_in_{k}.npy")
        np.save(p, np.ascontiguousarray(a))
        ins.append(p)
    ref_model = os.path.join(work, "size2_trace.onnx")
    m = measured_run(cmd(binary, d, "traced", "trace", opset, ref_model, ins), timeout=300)
    if m["rc"] != 0:
        return "size 2: trace path: " + (error_line(m["err"]) or f"exit status {m['rc']}"), None
    runs = []
    for model in (ref_model, out):
        ans = pool.run(model, list(zip(gin, ins)) if model == out else
                       [(i.name, f) for i, f in zip(model_inputs(model), ins)], os.path.join(work, "ort2"))
        if not ans.get("ok"):
            return "size 2: onnxruntime: " + ans.get("error", "failed"), None
        runs.append([np.load(o["path"]) for o in ans["outputs"]])
    if runs[0][0].shape != runs[1][0].shape or runs[0][0].shape == np.load(numbered(d, "ref")[0]).shape:
        return f"size 2: output shapes {runs[0][0].shape} and {runs[1][0].shape}", None
    ok, msg, rel = compare(runs[0], runs[1])
    return ("" if ok else "size 2: " + msg), rel


def model_inputs(path):
    import onnx
    g = onnx.load(path, load_external_data=False).graph
    inits = {i.name for i in g.initializer}
    return [i for i in g.input if i.name not in inits]


def main():
    from evaluate import OrtPool, compare, onnx_info
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", help="comma-separated model names")
    ap.add_argument("--opsets", default="13,17")
    ap.add_argument("--paths", default="script,trace")
    ap.add_argument("--archives", default=",".join(ARCHIVES))
    ap.add_argument("--pt2onnx", default=os.environ.get("PT2ONNX", os.path.join(ROOT, "bin", "pt2onnx")))
    ap.add_argument("--work", help="scratch directory (default: a temporary one)")
    ap.add_argument("--src", help="run the models of this directory (same layout) instead")
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--device", help="the trace path's --device (cpu, cuda, auto; default: pt2onnx's)")
    ap.add_argument("--size2", action="store_true",
                    help="models with dynamic dims: also at a second size (reference: the trace path)")
    args = ap.parse_args()
    global SRC, DEVICE
    DEVICE = args.device
    SRC = os.path.abspath(args.src) if args.src else SRC
    todo = names()
    if args.only:
        want = args.only.split(",")
        todo = [n for n in todo if n in want]
        if len(todo) != len(want):
            ap.error(f"unknown model in --only (models: {', '.join(names())})")
    work = args.work or tempfile.mkdtemp(prefix="pt2onnx-torch2-")
    os.makedirs(work, exist_ok=True)
    pool = OrtPool(timeout=300)
    res = {}
    npass = nfail = 0
    try:
        # every conversion first, then python3-onnx's checker on all of them
        # in one child (a Python per model was most of a run's time)
        runs = []
        for n in todo:
            d = os.path.join(SRC, n)
            refs = [np.load(f) for f in numbered(d, "ref")]
            ins = [(os.path.basename(f)[:-4], f) for f in numbered(d, "in")]
            for arch in args.archives.split(","):
                for path in (["pt2"] if arch == EXPORTED else args.paths.split(",")):
                    for v in map(int, args.opsets.split(",")):
                        key = f"{n} {arch} {path} {v}"
                        out = os.path.join(work, f"{n}_{arch}_{path}_{v}.onnx")
                        m = measured_run(cmd(args.pt2onnx, d, arch, path, v, out), timeout=300)
                        why = ""
                        if m["rc"] != 0 or not os.path.exists(out):
                            why = error_line(m["err"]) or f"exit status {m['rc']}"
                        runs.append((key, d, refs, ins, arch, v, out, why))
        infos = onnx_info([r[6] for r in runs if not r[7]])
        for key, d, refs, ins, arch, v, out, why in runs:
            if not why:
                info = infos.get(out, {})
                if not info.get("checker"):
                    why = "checker: " + info.get("error", "")
                else:
                    # ONNX Runtime names the inputs as pt2onnx did: positional
                    import onnx
                    g = onnx.load(out, load_external_data=False).graph
                    inits = {i.name for i in g.initializer}
                    gin = [i.name for i in g.input if i.name not in inits]
                    if len(gin) != len(ins):
                        why = f"{len(gin)} graph inputs, the model takes {len(ins)}"
                    else:
                        od = os.path.join(work, "ort")
                        ans = pool.run(out, [(g_, f) for g_, (_, f) in zip(gin, ins)], od)
                        if not ans.get("ok"):
                            why = "onnxruntime: " + ans.get("error", "failed")
                        else:
                            act = [np.load(o["path"]) for o in ans["outputs"]]
                            ok, msg, rel = compare(refs, act)
                            if not ok:
                                why = msg
                            res[key] = {"max_rel": rel}
                            if not why and args.size2 and arch == EXPORTED:
                                s2 = second_size(args.pt2onnx, d, v, out, gin, work, pool)
                                if s2 is not None:
                                    why, rel2 = s2
                                    res[key]["size2_max_rel"] = rel2
            res.setdefault(key, {})["status"] = "fail" if why else "pass"
            if why:
                res[key]["error"] = why
                nfail += 1
                print(f"FAIL {key}: {why}", flush=True)
            else:
                npass += 1
                s2 = res[key].get("size2_max_rel")
                s2 = f"; second size: max rel {s2:.2g}" if s2 is not None else ""
                print(f"PASS {key} (max rel {res[key].get('max_rel', 0):.2g}{s2})", flush=True)
            if os.path.exists(out):
                os.unlink(out)
    finally:
        pool.close()
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(res, f, indent=1, sort_keys=True)
    print(f"torch2: {npass} passed, {nfail} failed")
    return 1 if nfail else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""torch2.py - the torch2 family: TorchScript archives saved by torch 2.11.

    /usr/bin/python3 tests/conformance/torch2.py [--only NAMES] [--opsets 13,17]
        [--paths script,trace] [--archives traced,scripted] [--pt2onnx BIN]
        [--work DIR] [--json FILE] [--src DIR]

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
ARCHIVES = ("traced", "scripted")


def names():
    return sorted(d for d in os.listdir(SRC) if any(os.path.isfile(os.path.join(SRC, d, f"{a}.pt"))
                                                  for a in ARCHIVES))


def numbered(d, prefix):
    """[path] of d/prefix_K.npy in K's order."""
    fs = glob.glob(os.path.join(d, f"{prefix}_*.npy"))
    return sorted(fs, key=lambda f: int(re.search(r"_(\d+)\.npy$", f).group(1)))


def cmd(binary, d, archive, path, opset, out):
    c = [binary, os.path.join(d, f"{archive}.pt"), "-o", out, "--opset-version", str(opset)]
    if path == "trace":
        c.append("--trace")
        for f in numbered(d, "in"):
            c += ["--input", f]
    else:
        c.append("--script")
        for f in numbered(d, "in"):
            a = np.load(f, mmap_mode="r")
            c += ["--input", f"{SPEC_DTYPE[str(a.dtype)]}[{','.join(map(str, a.shape))}]"]
    return c


def lay_out(work, name):
    """Lays model `name` (PREFIX + a directory of SRC) out in
    WORK/models/NAME/ as generate.py lays out a model it built (in1/in_K.npy,
    out1/K.npy, traced.pt, scripted.pt, meta.json at stage "done"), from the
    committed copies; no torch runs.  torch.onnx.export has no results here
    (torch 2.11 is not on this machine)."""
    from common import GEN_VERSION, model_dir
    src = os.path.join(SRC, name[len(PREFIX):])
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
    for a in ARCHIVES:
        shutil.copyfile(os.path.join(src, f"{a}.pt"), os.path.join(mdir, f"{a}.pt"))
    tmeta = json.load(open(os.path.join(src, "meta.json")))
    write_json(os.path.join(mdir, "meta.json"), {
        "name": name, "family": "torch2", "gen_version": GEN_VERSION, "stage": "done", "inputs": inputs,
        "n_outputs": len(refs), "has_set2": False, "compare": "values",
        "notes": f"saved by torch {tmeta.get('torch')}; oracle: its ref_K.npy",
        "weight_bytes": os.path.getsize(os.path.join(src, "traced.pt")),
        "archives": {a: {"ok": True, "bytes": os.path.getsize(os.path.join(src, f"{a}.pt"))}
                     for a in ARCHIVES}})


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
    args = ap.parse_args()
    global SRC
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
        for n in todo:
            d = os.path.join(SRC, n)
            refs = [np.load(f) for f in numbered(d, "ref")]
            ins = [(os.path.basename(f)[:-4], f) for f in numbered(d, "in")]
            for arch in args.archives.split(","):
                for path in args.paths.split(","):
                    for v in map(int, args.opsets.split(",")):
                        key = f"{n} {arch} {path} {v}"
                        out = os.path.join(work, f"{n}_{arch}_{path}_{v}.onnx")
                        m = measured_run(cmd(args.pt2onnx, d, arch, path, v, out), timeout=300)
                        why = ""
                        if m["rc"] != 0 or not os.path.exists(out):
                            why = error_line(m["err"]) or f"exit status {m['rc']}"
                        else:
                            info = onnx_info([out]).get(out, {})
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
                        res.setdefault(key, {})["status"] = "fail" if why else "pass"
                        if why:
                            res[key]["error"] = why
                            nfail += 1
                            print(f"FAIL {key}: {why}", flush=True)
                        else:
                            npass += 1
                            print(f"PASS {key} (max rel {res[key].get('max_rel', 0):.2g})", flush=True)
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

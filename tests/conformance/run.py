#!/usr/bin/python3
"""run.py - runs pt2onnx over the generated model set and judges the result.

    /usr/bin/python3 tests/conformance/run.py [--work DIR] [--subset fast]
        [--family F] [--only NAMES] [--opsets 9,13,17,18,20,23,26] [--paths trace,...]
        [--pt2onnx BIN] [--update] [--check] [--keep]

Per model, per path (trace on the traced archive, script on the traced
archive, script on the scripted archive) and per opset: pt2onnx's exit
status and first error line, its wall time and peak RSS (one child each,
wait4), python3-onnx's checker (full_check), ONNX Runtime on input set 1 and,
where the archive computes it right in torch, set 2; the comparison with
torch's outputs (fp32: max relative error <= 1e-4; integers, bools: exact);
node counts next to torch.onnx.export's at the same opset.

  --update  merge this run into tests/conformance/results.json (what
            report.py renders)
  --check   compare with the committed results.json: exit 1 when a
            (model, path, opset) marked pass there does not pass now
Ends with a line "N passed, N failed, N not applicable".
"""
import argparse
import datetime
import json
import os
import re
import shutil
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import (DEFAULT_WORK, FAMILY_OPSETS, FAMILY_PATHS, ONNX_CHECKER_MAX, OPSETS, PATH_ARCHIVE, PATHS, RESULTS, ROOT, SPEC_DTYPE,  # noqa: E402
                    TORCH_OPSETS, archive_name, check_binary, error_line, first_line, log, measured_run, model_dir, read_json, safe_name)
from evaluate import OrtPool, onnx_info, run_sets  # noqa: E402


# ONNX operators that replace a decomposition at the newer opsets
FUSED_OPS = ("LayerNormalization", "GroupNormalization", "Gelu", "Attention", "RMSNormalization",
             "RotaryEmbedding")


def pt2onnx_cmd(binary, path, archive, opset, meta, mdir, out, set2):
    """The one place that knows pt2onnx's command line (torch.onnx.export's
    option names): adjust here when the CLI settles.
      trace:  pt2onnx A.pt -o OUT --opset-version N --trace --input in1/x.npy ...
              [--dynamic-axes '{"x": {"0": "x_d0"}}']   (JSON, torch's dict)
      script: pt2onnx A.pt -o OUT --opset-version N --script
              --input x=f32[x_d0,3,224,224] ...  (symbolic where set 2 differs;
              f32[...] alone, positional, for inputs marked "positional")"""
    cmd = [binary, archive, "-o", out, "--opset-version", str(opset)]
    if path == "pt2":  # the archive has the shapes: no --input
        return cmd
    if path == "trace":
        cmd.append("--trace")
        dyn = {}
        for i in meta["inputs"]:
            cmd += ["--input", os.path.join(mdir, "in1", f"{i['name']}.npy")]
            if set2 and i["dynamic"]:
                dyn[i["name"]] = {str(k): f"{i['name']}_d{k}" for k in i["dynamic"]}
        if dyn:
            cmd += ["--dynamic-axes", json.dumps(dyn, separators=(",", ":"))]
    else:
        cmd.append("--script")
        for i in meta["inputs"]:
            dims = [f"{i['name']}_d{k}" if set2 and k in i["dynamic"] else str(d)
                    for k, d in enumerate(i["shape1"])]
            # positional (no name=) where the generator does not know
            # forward's argument names (torch2: archives copied, not built)
            name = "" if i.get("positional") else f"{i['name']}="
            cmd += ["--input", f"{name}{SPEC_DTYPE.get(i['dtype'], i['dtype'])}[{','.join(dims)}]"]
    return cmd


def clean(text, work):
    """Error lines without this machine's paths (stable diffs)."""
    text = str(text or "")
    for p, r in ((os.path.join(work, "models") + "/", ""), (work + "/", "WORK/"), (ROOT + "/", "")):
        text = text.replace(p, r)
    return re.sub(r"\b0x[0-9a-fA-F]{5,}\b", "0x...", text)  # addresses change every run


def compact(r):
    """A failed conversion keeps its status and error only."""
    if r.get("status") == "pass" or r.get("converted"):
        r.pop("rc", None)
        return r
    return {k: v for k, v in r.items() if k in ("status", "error")}


def summarize_torch(meta):
    """torch.onnx.export's results, trimmed for results.json."""
    out = {}
    for arch, per in (meta.get("torch_export") or {}).items():
        for v, d in per.items():
            r = {"ok": bool(d.get("ok"))}
            if not d.get("ok"):
                r["error"] = d.get("error", "")
            else:
                r["checker"] = bool(d.get("checker"))
                if d.get("checker_error"):
                    r["error"] = "checker: " + d["checker_error"]
                ort = d.get("ort", {})
                r["match"] = {k: bool(x.get("match")) for k, x in ort.items()}
                for k, x in ort.items():
                    if not x.get("match") and "error" not in r:
                        r["error"] = f"set {k}: " + x.get("error", "")
                for k in ("nodes", "export_s", "wall_s", "rss_kb"):
                    if d.get(k) is not None:
                        r[k] = d[k]
            r["pass"] = bool(d.get("ok") and d.get("checker") and ort and all(x.get("match") for x in ort.values()))
            for k in ("wall_s", "rss_kb"):
                if d.get(k) is not None:
                    r[k] = d[k]
            out.setdefault(arch, {})[v] = r
    return out


def model_summary(meta):
    keep = ("family", "op", "opinfo", "sample", "source_kind", "sample_dtype", "registry_opsets", "op_in_trace",
            "op_in_script", "weight_bytes", "has_set2", "compare", "notes", "set2_error")
    s = {k: meta[k] for k in keep if k in meta and meta[k] not in (None, "")}
    s["stage"] = meta.get("stage")
    if (meta.get("gen") or {}).get("wall_s"):
        s["gen_s"] = meta["gen"]["wall_s"]
    if meta.get("error"):
        s["gen_error"] = meta["error"]
    arch = {}
    for k, a in (meta.get("archives") or {}).items():
        r = {"ok": bool(a.get("ok"))}
        if a.get("error"):
            r["error"] = a["error"]
        if "set2" in a:
            r["set2"] = a["set2"]
        if a.get("bytes"):
            r["bytes"] = a["bytes"]
        if a.get("oracle"):
            r["oracle"] = a["oracle"]
        arch[k] = r
    if arch:
        s["archives"] = arch
    if meta.get("inputs"):
        s["inputs"] = [f"{i['name']}={SPEC_DTYPE.get(i['dtype'], i['dtype'])}{i['shape1']}"
                       + (f"/{i['shape2']}" if i.get("shape2") is not None else "") for i in meta["inputs"]]
    return s


def family_runs(args, family):
    """The paths and opsets of this run that the family is judged at."""
    paths = [p for p in args.paths if p in FAMILY_PATHS.get(family, PATHS)]
    opsets = [v for v in args.opsets if v in FAMILY_OPSETS.get(family, OPSETS)]
    return paths, opsets


def run_model(args, name, pool, family):
    mdir = model_dir(args.work, name)
    paths, opsets = family_runs(args, family)
    meta = read_json(os.path.join(mdir, "meta.json"))
    if not meta or meta.get("stage") not in ("done", "archives"):
        why = (meta or {}).get("error") or "not generated (run generate.py)"
        # "no model": the registry names something torch 1.13 has no operator for
        st = "n/a" if "no model:" in why else "fail"
        why = clean(why, args.work)
        return {"family": family, "stage": (meta or {}).get("stage", "missing"), "gen_error": why,
                "op": (meta or {}).get("op"), "opinfo": (meta or {}).get("opinfo"),
                "sample": (meta or {}).get("sample"),
                "pt2onnx": {p: {str(v): {"status": st, "error": f"model not generated: {why}"} for v in opsets}
                            for p in paths}}
    res = model_summary(meta)
    res["torch"] = summarize_torch(meta)
    scratch = os.path.join(args.work, "runs", safe_name(name))
    os.makedirs(scratch, exist_ok=True)
    res["pt2onnx"] = {}
    for path in paths:
        arch = PATH_ARCHIVE[path]
        if (path == "pt2") != (family == "pt2"):
            continue  # exported.pt2 is the pt2 family's only archive
        a = (meta.get("archives") or {}).get(arch, {})
        per = {}
        for v in opsets:
            if not a.get("ok"):
                per[str(v)] = {"status": "n/a", "error": f"no {arch} archive: {a.get('error', '')}"}
                continue
            set2 = bool(meta.get("has_set2") and a.get("set2"))
            out = os.path.join(scratch, f"{path.replace(':', '_')}_op{v}.onnx")
            for f in (out, out + ".data"):
                if os.path.exists(f):
                    os.unlink(f)
            r = {"status": "fail"}
            archive = os.path.join(mdir, archive_name(arch))
            if not os.path.exists(args.pt2onnx):
                r["error"] = f"{os.path.relpath(args.pt2onnx, ROOT)} not found (make)"
                per[str(v)] = r
                continue
            cmd = pt2onnx_cmd(args.pt2onnx, path, archive, v, meta, mdir, out, set2)
            m = measured_run(cmd, timeout=args.timeout, nice=args.nice)
            r.update(rc=m["rc"], wall_s=m["wall_s"], rss_kb=m["rss_kb"])
            if m["timed_out"]:
                r["error"] = f"timed out after {args.timeout}s"
            elif m["rc"] != 0 or not os.path.exists(out):
                r["error"] = error_line(m["err"]) or (f"exit status {m['rc']}" if m["rc"] else "no output file")
            else:
                r["converted"] = True
                i = onnx_info([out], check=check_binary(args.pt2onnx)).get(out, {})
                r["checker"] = bool(i.get("checker"))
                if i.get("checker_tool"):
                    r["checker_tool"] = i["checker_tool"]
                for k in ("nodes", "nodes_all"):
                    if k in i:
                        r[k] = i[k]
                # the fused operators of the newer opsets, counted: the
                # evidence that a pattern became one node (report.py)
                fused = {k: c for k, c in (i.get("op_types") or {}).items() if k in FUSED_OPS}
                if fused:
                    r["fused"] = fused
                if not r["checker"]:
                    r["error"] = "checker: " + i.get("error", "")
                sets = [1, 2] if set2 else [1]
                ort = run_sets(pool, out, mdir, meta, sets, scratch, timeout=args.timeout, arch=arch)
                r["match"] = {k: bool(x.get("match")) for k, x in ort.items()}
                for k, x in ort.items():
                    if x.get("max_rel") is not None:
                        r.setdefault("max_rel", {})[k] = x["max_rel"]
                    if not x.get("match") and "error" not in r:
                        r["error"] = f"set {k}: " + x.get("error", "")
                if r["checker"] and all(r["match"].values()):
                    r["status"] = "pass"
            if not args.keep:
                for f in (out, out + ".data"):
                    if os.path.exists(f):
                        os.unlink(f)
            if r.get("error"):
                r["error"] = clean(r["error"], args.work)
            per[str(v)] = compact(r)
        res["pt2onnx"][path] = per
    for per in res["torch"].values():
        for r in per.values():
            if r.get("error"):
                r["error"] = clean(r["error"], args.work)
    for k in ("gen_error", "set2_error"):
        if res.get(k):
            res[k] = clean(res[k], args.work)
    for a in res.get("archives", {}).values():
        if a.get("error"):
            a["error"] = clean(a["error"], args.work)
    if not args.keep:
        shutil.rmtree(scratch, ignore_errors=True)
    res["ran_at"] = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    return res


def versions():
    v = {}
    try:
        import onnx
        v["onnx"] = onnx.__version__
    except Exception:
        pass
    p = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "oracle", "node_modules",
                     "onnxruntime-node", "package.json")
    try:
        v["onnxruntime-node"] = json.load(open(p))["version"]
    except Exception:
        pass
    return v


def write_results(path, results):
    """One model per line: small diffs when a model changes."""
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write("{\n\"meta\": " + json.dumps(results["meta"], sort_keys=True) + ",\n\"models\": {\n")
        names = sorted(results["models"])
        for k, n in enumerate(names):
            f.write(json.dumps(n) + ": " + json.dumps(results["models"][n], sort_keys=True, separators=(",", ":"))
                    + ("," if k + 1 < len(names) else "") + "\n")
        f.write("}\n}\n")
    os.replace(tmp, path)


def merge_results(args, baseline, run, todo, wall):
    """The models run so far merged over the baseline, written to
    args.results."""
    merged = dict(baseline)
    merged["models"] = dict(baseline.get("models", {}))
    for n, r in run.items():
        # a model regenerated with --no-torch-export has no torch
        # results of its own: keep the baseline's, made on an archive
        # of the same generator
        old = merged["models"].get(n, {})
        if not any(r.get("torch", {}).values()) and old.get("torch"):
            r = dict(r, torch=old["torch"])
        # the opsets (and paths) this run did not cover keep their results
        pt = {p: dict(per) for p, per in (old.get("pt2onnx") or {}).items()}
        for p, per in r.get("pt2onnx", {}).items():
            pt.setdefault(p, {}).update(per)
        r = dict(r, pt2onnx=pt)
        merged["models"][n] = r
    meta = dict(baseline.get("meta", {}))
    try:
        import torch  # noqa: F401  (already imported by generate.selection)
        meta["torch"] = sys.modules["torch"].__version__
    except Exception:
        pass
    meta.update(versions())
    meta["opsets"] = list(OPSETS)
    meta["torch_opsets"] = list(TORCH_OPSETS)
    meta["onnx_checker_max"] = ONNX_CHECKER_MAX
    meta["updated_at"] = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    meta["last_run"] = {"models": len(todo), "subset": args.subset, "family": args.family, "only": args.only,
                        "wall_s": round(wall), "pt2onnx_found": os.path.exists(args.pt2onnx)}
    merged["meta"] = meta
    write_results(args.results, merged)


def main():
    import generate
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--work", default=DEFAULT_WORK)
    ap.add_argument("--subset", choices=("fast", "full"), default="full")
    ap.add_argument("--family")
    ap.add_argument("--only")
    ap.add_argument("--ops", type=int)
    generate.add_opinfo_samples(ap)
    ap.add_argument("--opsets", default=",".join(map(str, OPSETS)))
    ap.add_argument("--paths", default=",".join(PATHS))
    ap.add_argument("--pt2onnx", default=os.environ.get("PT2ONNX", os.path.join(ROOT, "bin", "pt2onnx")))
    ap.add_argument("--timeout", type=int, default=600, help="seconds per conversion and per ONNX Runtime run")
    ap.add_argument("--nice", type=int, default=0)
    ap.add_argument("--results", default=RESULTS)
    ap.add_argument("--update", action="store_true", help="merge into the results file")
    ap.add_argument("--check", action="store_true", help="fail on a regression against the results file")
    ap.add_argument("--keep", action="store_true", help="keep pt2onnx's .onnx files (WORK/runs/)")
    ap.add_argument("--json", help="also write this run's results here")
    args = ap.parse_args()
    args.work = os.path.abspath(args.work)
    args.pt2onnx = os.path.abspath(args.pt2onnx)
    args.opsets = [int(v) for v in args.opsets.split(",")]
    args.paths = [p for p in args.paths.split(",") if p]
    for p in args.paths:
        if p not in PATHS:
            ap.error(f"unknown path {p} (one of {', '.join(PATHS)})")
    names, ops, opis = generate.selection(args)
    fam = {n: generate_family(n) for n in names}
    fam.update({n: "op" for n, _ in ops})
    fam.update({e["name"]: "opinfo" for e in opis})
    todo = names + [n for n, _ in ops] + [e["name"] for e in opis]
    baseline = read_json(args.results, {"meta": {}, "models": {}})
    t0 = time.time()
    pool = OrtPool(timeout=args.timeout)
    run = {}
    try:
        for k, n in enumerate(todo):
            run[n] = run_model(args, n, pool, fam[n])
            st = [r["status"] for per in run[n]["pt2onnx"].values() for r in per.values()]
            log(f"[run] {k + 1}/{len(todo)} {n}: {st.count('pass')} pass, {st.count('fail')} fail, {st.count('n/a')} n/a")
            # merged model by model: a long run stopped half-way keeps
            # what it measured
            if args.update:
                merge_results(args, baseline, run, todo, time.time() - t0)
    finally:
        pool.close()
    wall = time.time() - t0
    # totals and the regression check
    npass = nfail = nna = 0
    regressions = []
    improved = 0
    for n, r in run.items():
        for p, per in r["pt2onnx"].items():
            for v, x in per.items():
                s = x["status"]
                npass += s == "pass"
                nfail += s == "fail"
                nna += s == "n/a"
                b = baseline["models"].get(n, {}).get("pt2onnx", {}).get(p, {}).get(v, {})
                if b.get("status") == "pass" and s != "pass":
                    regressions.append(f"{n} {p} opset {v}: {x.get('error', s)}")
                elif s == "pass" and b.get("status") != "pass":
                    improved += 1
    if args.json:
        with open(args.json, "w") as f:
            json.dump(run, f, indent=1, sort_keys=True)
    if args.update:
        merge_results(args, baseline, run, todo, wall)
        log(f"[run] results merged into {os.path.relpath(args.results, ROOT)}")
    if args.check:
        for line in regressions:
            print(f"REGRESSION {line}")
        if improved:
            print(f"{improved} (model, path, opset) pass now and did not in {os.path.relpath(args.results, ROOT)} "
                  "(record them: run.py --update)")
    # worded so that CI does not read it as a test runner's tally: a
    # conversion that does not pass yet is a gap, not a failing test
    print(f"conformance: {npass} (model, path, opset) convert and match, {nfail} do not yet, {nna} not applicable"
          + (f", {len(regressions)} regressions" if args.check else "")
          + f" ({len(todo)} models, {wall:.0f}s)")
    return 1 if (args.check and regressions) else 0


def generate_family(n):
    from models import REGISTRY
    return REGISTRY[n].family


if __name__ == "__main__":
    sys.exit(main())

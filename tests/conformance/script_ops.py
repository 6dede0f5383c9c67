#!/usr/bin/python3
"""script_ops.py - issue 4's check over the whole conformance set: every
archive reads with `script`, its aten op set equals torch's, and the weights
it refers to add up to the parameters and buffers the forward uses.

    /usr/bin/python3 tests/conformance/script_ops.py [--work DIR]
        [--family F[,F]] [--only NAME[,REGEX]] [--script BIN] [--jobs N]
        [--batch N] [--json FILE] [--check] [--refresh]
    /usr/bin/python3 tests/conformance/script_ops.py --self-test

For every model in WORK/models (traced.pt and scripted.pt, where generate.py
made them; --family and --only select as run.py's do, --only matching the
model's name or its operator):
  ours   `script -S ARCHIVE` (no --input: torch's graph has no shapes
         either), its aten kinds and its weight records;
  torch  child processes (nice 10, one thread, --batch archives each; the
         archives of a child that dies are retried one child each;
         tests/script/compare_ops.py: torch_oracle): torch.jit.load, then
         what torch.onnx.export does to a ScriptModule before lowering:
         _freeze_module(preserveParameters=True), inline, constant
         propagation; the aten kinds of the nodes the outputs depend on
         (an If with one raising arm counts as its other arm; nodes with side
         effects are kept), and the parameters and buffers those nodes read.
         Cached in WORK/script_ops/ per archive (size, mtime and
         ORACLE_VERSION); --refresh recomputes.
meta.json's "kinds" is not used: it is the inlined graph before freezing,
with training branches, attribute checks and every raising branch in it.

Verdicts, one line per archive, then "N agree, N differ, N fail to read":
  agree   `script` exits 0, the op sets are equal after the rules below,
          and the weights are equal in number, elements and bytes;
  differ  `script` reads it, but something above is not equal (what is
          printed);
  fail    `script` exits non-zero (its error line is printed).
  (torch's own failure to load or freeze an archive is counted apart as
  "torch failed"; it is never an agreement.)
--json FILE writes the per-archive results; --check exits 1 when any
archive does not agree. --self-test checks the IR parsing and the
narrowness of rules 1, 3 and 4 on a hand-made graph (no torch, no models).

Comparison rules (each one a difference that is not a bug; nothing else is
forgiven; no kind is ever dropped from torch's set: rules 2 and 4 act on
single nodes of one side, rule 3 forgives a kind only on `script`'s side
and only where its condition holds, aliases rename):
 1. In-place kinds count as their out-of-place form on both sides
    (`aten::relu_` is `aten::relu`): `script` makes them out-of-place.
    prim:: kinds are not compared (`script` folds attributes, tuples and
    lists by design).
 2. What `script` settles at compile time and torch's frozen graph keeps,
    settled on torch's graph before its constant propagation, node by node
    (compare_ops.py: settle_export_facts, fold_constant_format,
    fold_constant_list_appends, fold_constant_dicts), then torch.onnx's
    peephole pass as torch.onnx.export runs it:
    - facts of the export run: aten::is_grad_enabled() is False (export runs
      under no_grad), aten::is_autocast_enabled() / is_autocast_cpu_enabled()
      are False, prim::is_cuda and prim::is_nested are False, prim::device
      is the CPU;
    - `x is x` / `x is not x` of one value; `v is None` of a value that is
      never None (typed Tensor, or an If output that is a Tensor in every
      branch that does not raise);
    - string functions of constants (aten::format, aten::find, aten::str);
    - a list of scalars built by appends of constants (one block, before any
      read) becomes a list literal; a dict filled and read with constant
      keys in one block becomes the values (tensor lists are left alone).
    So the kinds that feed only a check that settles (the transformer fast
    path's aten::all, aten::append, aten::find; torchvision's
    IntermediateLayerGetter dict) go only where the check goes.
    `a is not b` of two different inputs is NOT settled (`script` folding it
    is reported), nor is anything that depends on a value's shape or dtype.
 3. A kind only in `script`'s graph, all of whose nodes there compute on
    constants only (prim::Constant, lists of constants, the archive's
    tensor constants, such nodes' outputs; random kinds excluded) is not a
    difference: torch's freezing evaluates those nodes (torch.zeros(1),
    `.to()` of a traced constant, torch.device("cpu")), `script` leaves them
    to `fold`. Listed as "folded_by_torch" in the JSON.
 4. aten::Int / aten::ScalarImplicit / aten::Float(Implicit) /
    aten::IntImplicit of a prim::NumToTensor output are not counted on
    `script`'s side: torch's peephole pass removes the pair in its graph.
    Op aliases count as torch's
    canonical op on both sides (aten::swapaxes is aten::transpose: torch's
    NormalizeOps rewrites them when it compiles code; compare_ops.ALIASES).
 5. Weights: torch's side is the parameters and buffers its graph reads,
    and the module's other tensor attributes it reads (freezing makes those
    constants: ssd's anchor_generator._wh_pairs), each found by its
    storage. One per tensor on each side (tied parameters count once;
    `script`'s records that refer to the same bytes count once). `script`'s
    records named CONSTANTS.cN are the archive's tensor constants
    (constants.pkl, in traced archives), not parameters or buffers: counted
    apart ("archive_constants"), not compared.
"""
import argparse
import datetime
import json
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "script"))
from common import (DEFAULT_WORK, PY, ROOT, env_for_torch, error_line, log, measured_run,  # noqa: E402
                    read_json, select, write_json)
import compare_ops  # noqa: E402

ORACLE_VERSION = 7
ARCHIVES = ("traced", "scripted")
DEFAULT_JSON = os.path.join(HERE, "script_ops.json")
TORCH_VERSIONS = set()


# --- the child ----------------------------------------------------------------
def child(pairs):
    """Computes torch's side for each (archive, result file), in order; the
    parent retries, one child each, the archives of a child that died."""
    import torch
    torch.set_num_threads(1)
    for archive, out in pairs:
        try:
            r = compare_ops.torch_oracle(archive)
        except Exception as e:  # one clear line for the parent
            import traceback
            from common import first_line
            r = {"error": first_line(traceback.format_exc()) or str(e)}
        r["torch"] = torch.__version__
        with open(out + ".tmp", "w") as f:
            json.dump(r, f)
        os.replace(out + ".tmp", out)
    return 0


# --- the parent ---------------------------------------------------------------
def archive_key(path):
    st = os.stat(path)
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns, "version": ORACLE_VERSION}


def cache_path(args, name, arch):
    return os.path.join(args.work, "script_ops", f"{name}.{arch}.json")


def cached(args, name, arch, path):
    if args.refresh:
        return None
    c = read_json(cache_path(args, name, arch))
    if c and c.get("key") == archive_key(path):
        return c["oracle"]
    return None


def run_children(args, todo):
    """torch's side of the archives in todo [(name, arch, path)]: children
    of up to --batch archives each (one each on a retry), --jobs at once.
    Returns {(name, arch): oracle}."""
    out = {}

    def batch(items):
        files = []
        for name, arch, path in items:
            c = cache_path(args, name, arch)
            os.makedirs(os.path.dirname(c), exist_ok=True)
            files.append(c + f".out{os.getpid()}")
        for f in files:
            if os.path.exists(f):
                os.unlink(f)
        cmd = [PY, os.path.abspath(__file__), "--oracle"]
        for (name, arch, path), f in zip(items, files):
            cmd += [path, f]
        m = measured_run(cmd, timeout=args.timeout * len(items), env=env_for_torch(), nice=10)
        res = {}
        for (name, arch, path), f in zip(items, files):
            r = read_json(f)
            if os.path.exists(f):
                os.unlink(f)
            if r is not None:
                res[(name, arch)] = r
                if "error" not in r:
                    write_json(cache_path(args, name, arch), {"key": archive_key(path), "oracle": r})
            elif len(items) == 1:
                why = (f"timed out after {args.timeout}s" if m["timed_out"]
                       else f"exited {m['rc']}: " + error_line(m["err"]))
                res[(name, arch)] = {"error": "torch oracle " + why}
        return items, res

    groups = [todo[i:i + args.batch] for i in range(0, len(todo), max(1, args.batch))]
    retry = []
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as ex:
        for items, res in ex.map(batch, groups):
            out.update(res)
            retry += [it for it in items if (it[0], it[1]) not in res]
            log(f"[script_ops] torch: {len(out)}/{len(todo)} archives")
        for items, res in ex.map(batch, [[it] for it in retry]):
            out.update(res)
    return out


def our_side(args, path):
    # not measured_run: it keeps the first MiB of output, and a graph's text
    # is larger (swin_s: 4 MB)
    try:
        p = subprocess.run([args.script, "-S", path], stdin=subprocess.DEVNULL, capture_output=True,
                           timeout=args.timeout)
    except subprocess.TimeoutExpired:
        return {"rc": None, "error": f"timed out after {args.timeout}s"}
    except OSError as e:
        return {"rc": 127, "error": f"cannot run {args.script}: {e.strerror}"}
    err = p.stderr.decode("utf-8", "replace")
    if p.returncode != 0:
        return {"rc": p.returncode, "error": error_line(err) or f"exit status {p.returncode}"}
    text = p.stdout.decode("utf-8", "replace")
    if not re.search(r"^  return \(", text, re.M):
        return {"rc": p.returncode, "error": "script's output has no top-level return (cut short?)"}
    ws, refs, dup, nconst = [], set(), 0, 0
    for (n, dt, numel, nbytes), ref in zip(compare_ops.ir_weights(text), weight_refs(text)):
        if n.startswith("CONSTANTS."):  # rule 5: the archive's tensor constants
            nconst += 1
            continue
        if ref in refs:
            dup += 1
            continue
        refs.add(ref)
        ws.append((n, dt, numel, nbytes))
    nodes = compare_ops.ir_nodes(text)
    return {"rc": 0, "ops": sorted(compare_ops.ir_kinds(nodes)), "weights": ws, "duplicate_refs": dup,
            "constant_kinds": sorted(compare_ops.ir_constant_kinds(text, nodes)),
            "archive_constants": nconst}


def weight_refs(text):
    return [(f, rest) for _n, _t, _d, f, rest in compare_ops.WEIGHT_RE.findall(text)]


def totals(ws):
    return {"n": len(ws), "numel": sum(w[2] for w in ws), "bytes": sum(w[3] for w in ws)}


def short_names(names, limit=6):
    names = sorted(names)
    return ", ".join(names[:limit]) + (f", ... ({len(names)})" if len(names) > limit else "")


def judge(args, name, arch, path, ours, theirs):
    r = {"archive": os.path.relpath(path, args.work)}
    if ours["rc"] != 0:
        r.update(status="fail", error=ours["error"].replace(args.work + "/", "WORK/"))
        return r
    if theirs.get("torch"):
        TORCH_VERSIONS.add(theirs["torch"])
    if "error" in theirs:
        r.update(status="torch failed", error=theirs["error"], ops=ours["ops"])
        return r
    o, t = set(ours["ops"]), set(theirs["ops"])
    r["ops"] = sorted(o)
    # rule 3: constant expressions torch's freezing evaluated
    folded = (o - t) & set(ours["constant_kinds"])
    if folded:
        r["folded_by_torch"] = sorted(folded)
        o = o - folded
    if ours["archive_constants"]:
        r["archive_constants"] = ours["archive_constants"]
    r["only_script"] = sorted(o - t)
    r["only_torch"] = sorted(t - o)
    tw = [tuple(w) for w in theirs["weights"]]
    r["weights"] = {"script": totals(ours["weights"]), "torch": totals(tw),
                    "state_dict": theirs["state_dict"]}
    if ours["duplicate_refs"]:
        r["weights"]["script"]["duplicate_refs"] = ours["duplicate_refs"]
    if theirs.get("tensor_constants"):
        r["torch_tensor_constants"] = len(theirs["tensor_constants"])
    wsame = r["weights"]["script"]["n"] == r["weights"]["torch"]["n"] and \
        r["weights"]["script"]["numel"] == r["weights"]["torch"]["numel"] and \
        r["weights"]["script"]["bytes"] == r["weights"]["torch"]["bytes"]
    if not wsame:
        # by name, for the reader (the verdict is on the totals)
        sn = {w[0] for w in ours["weights"]}
        tn = {w[0] for w in tw}
        r["weights_only_script"] = sorted(sn - tn)[:20]
        r["weights_only_torch"] = sorted(tn - sn)[:20]
    r["status"] = "agree" if (o == t and wsame) else "differ"
    return r


def describe(name, arch, r):
    head = f"{r['status']:<12} {name} {arch}"
    if r["status"] == "fail":
        return f"{head}: {r['error']}"
    if r["status"] == "torch failed":
        return f"{head}: {r['error']}"
    w = r["weights"]
    ws = f"{w['script']['n']} weights, {w['script']['numel']} elements"
    if r["status"] == "agree":
        return f"{head}: {len(r['ops'])} ops, {ws}"
    parts = []
    if r["only_script"]:
        parts.append("only in script: " + " ".join(r["only_script"]))
    if r["only_torch"]:
        parts.append("only in torch: " + " ".join(r["only_torch"]))
    if (w["script"]["n"], w["script"]["numel"], w["script"]["bytes"]) != \
            (w["torch"]["n"], w["torch"]["numel"], w["torch"]["bytes"]):
        s = (f"weights: script {w['script']['n']} ({w['script']['numel']} el, {w['script']['bytes']} B), "
             f"torch {w['torch']['n']} ({w['torch']['numel']} el, {w['torch']['bytes']} B)")
        if r.get("weights_only_script"):
            s += " only script: " + short_names(r["weights_only_script"])
        if r.get("weights_only_torch"):
            s += " only torch: " + short_names(r["weights_only_torch"])
        parts.append(s)
    return f"{head}: " + "; ".join(parts)


def models(args):
    """(name, family, meta) of the generated models, selected."""
    d = os.path.join(args.work, "models")
    out = []
    for n in sorted(os.listdir(d)) if os.path.isdir(d) else []:
        meta = read_json(os.path.join(d, n, "meta.json"))
        if not meta or meta.get("stage") not in ("archives", "done"):
            continue
        fam = meta.get("family", "?")
        if args.family and fam not in args.family.split(","):
            continue
        if args.only and not select([n] + ([meta["op"]] if meta.get("op") else []), args.only):
            continue
        out.append((n, fam, meta))
    return out


def write_results(path, meta, res):
    """One model per line (small diffs), like results.json."""
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write("{\n\"meta\": " + json.dumps(meta, sort_keys=True) + ",\n\"models\": {\n")
        names = sorted(res)
        for k, n in enumerate(names):
            f.write(json.dumps(n) + ": " + json.dumps(res[n], sort_keys=True, separators=(",", ":"))
                    + ("," if k + 1 < len(names) else "") + "\n")
        f.write("}\n}\n")
    os.replace(tmp, path)


SELF_TEST_IR = """ir 1.0 aten
graph M(%x : Tensor,
      %w : Float(4, 3) = weight("m.pt", offset=64, length=48),
      %CONSTANTS.c0 : Long() = weight("m.pt", offset=128, length=8)):
  %0 : int = prim::Constant[value=1]()
  %1 : int[] = prim::ListConstruct(%0, %0)
  %2 : Tensor = aten::zeros(%1, _, _, _, _)
  %3 : int = aten::size(%x, %0)
  %4 : Tensor = prim::NumToTensor(%3)
  %5 : int = aten::Int(%4)
  %6 : Tensor = aten::relu_(%x)
  %7 : Tensor = aten::swapaxes(%6, %0, %0)
  %8 : int[] = prim::ListConstruct(%5, %0)
  %9 : Tensor = aten::ones(%8, _, _, _, _)
  %10 : Tensor = aten::rand(%1, _, _, _, _)
  %11 : Tensor = aten::Int(%x)
  %12 : Tensor = aten::to(%CONSTANTS.c0, %0)
  return (%7)
"""


def self_test():
    """The IR side's parsing and the narrowness of rules 1, 3 and 4 on a
    hand-made graph (no torch needed): exit 1 on a failure."""
    nodes = compare_ops.ir_nodes(SELF_TEST_IR)
    kinds = compare_ops.ir_kinds(nodes)
    const = compare_ops.ir_constant_kinds(SELF_TEST_IR, nodes)
    checks = [
        ("in-place and alias kinds normalised", {"aten::relu", "aten::transpose"} <= kinds
         and not {"aten::relu_", "aten::swapaxes"} & kinds),
        # aten::Int of NumToTensor is dropped, aten::Int of a tensor input is not
        ("aten::Int kept unless of prim::NumToTensor", "aten::Int" in kinds),
        ("zeros of a constant list is constant", "aten::zeros" in const),
        ("to() of an archive constant is constant", "aten::to" in const),
        ("ones of a size is not constant", "aten::ones" not in const),
        ("random kinds are never constant", "aten::rand" not in const),
        ("size of an input is not constant", "aten::size" not in const),
        ("weights parsed", compare_ops.ir_weights(SELF_TEST_IR) ==
         [("w", "Float", 12, 48), ("CONSTANTS.c0", "Long", 1, 8)]),
    ]
    nodes2 = [n for n in nodes if n[1] != ["11"]]
    checks.append(("aten::Int of prim::NumToTensor alone is dropped",
                   "aten::Int" not in compare_ops.ir_kinds(nodes2)))
    bad = [name for name, ok in checks if not ok]
    for name, ok in checks:
        print(("ok    " if ok else "FAIL  ") + name)
    return 1 if bad else 0


def main():
    if len(sys.argv) == 2 and sys.argv[1] == "--self-test":
        return self_test()
    if len(sys.argv) >= 4 and sys.argv[1] == "--oracle":
        rest = sys.argv[2:]
        return child(list(zip(rest[0::2], rest[1::2])))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--work", default=DEFAULT_WORK)
    ap.add_argument("--family")
    ap.add_argument("--only")
    ap.add_argument("--script", default=os.path.join(ROOT, "bin", "script"))
    ap.add_argument("--jobs", type=int, default=1, help="torch children at once (default 1; 2 at most "
                    "on a shared machine)")
    ap.add_argument("--batch", type=int, default=16, help="archives per torch child (default 16; "
                    "a child that dies is retried one archive per child)")
    ap.add_argument("--timeout", type=int, default=600, help="seconds per archive")
    ap.add_argument("--json", help="write the per-archive results here (tests/conformance/script_ops.json "
                    "is what report.py renders)")
    ap.add_argument("--check", action="store_true", help="exit 1 when an archive does not agree")
    ap.add_argument("--refresh", action="store_true", help="recompute torch's side (no cache)")
    args = ap.parse_args()
    args.work = os.path.abspath(args.work)
    args.script = os.path.abspath(args.script)
    if not os.access(args.script, os.X_OK):
        print(f"script_ops.py: {args.script}: not found or not executable (make)", file=sys.stderr)
        return 2
    sel = models(args)
    jobs = [(n, fam, a) for n, fam, meta in sel for a in ARCHIVES
            if (meta.get("archives") or {}).get(a, {}).get("ok")
            and os.path.exists(os.path.join(args.work, "models", n, f"{a}.pt"))]
    res = {}
    ours = {}
    for n, fam, a in jobs:
        ours[(n, a)] = our_side(args, os.path.join(args.work, "models", n, f"{a}.pt"))
    theirs = {}
    todo = []
    for n, fam, a in jobs:
        if ours[(n, a)]["rc"] != 0:
            continue
        path = os.path.join(args.work, "models", n, f"{a}.pt")
        c = cached(args, n, a, path)
        if c is not None:
            theirs[(n, a)] = c
        else:
            todo.append((n, a, path))
    if todo:
        theirs.update(run_children(args, todo))
    for n, fam, a in jobs:
        r = judge(args, n, a, os.path.join(args.work, "models", n, f"{a}.pt"), ours[(n, a)],
                  theirs.get((n, a), {"error": "torch oracle: no result"}))
        print(describe(n, a, r), flush=True)
        res.setdefault(n, {"family": fam})[a] = r
    counts = {s: sum(1 for m in res.values() for a in ARCHIVES if a in m and m[a]["status"] == s)
              for s in ("agree", "differ", "fail", "torch failed")}
    line = (f"{counts['agree']} agree, {counts['differ']} differ, {counts['fail']} fail to read"
            + (f", {counts['torch failed']} torch failed" if counts["torch failed"] else "")
            + f" ({len(jobs)} archives of {len(sel)} models)")
    print(line)
    if args.json:
        meta = {"script": os.path.relpath(args.script, ROOT) if args.script.startswith(ROOT + "/") else args.script,
                "ran_at": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
                "family": args.family, "only": args.only, "models": len(sel), "archives": len(jobs),
                "counts": counts, "oracle_version": ORACLE_VERSION}
        if TORCH_VERSIONS:
            meta["torch"] = ",".join(sorted(TORCH_VERSIONS))
        write_results(args.json, meta, res)
    if args.check and counts["agree"] != len(jobs):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

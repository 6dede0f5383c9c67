#!/usr/bin/python3
"""generate.py - builds the conformance model set into a work directory.

    /usr/bin/python3 tests/conformance/generate.py [--work DIR] [--subset fast]
        [--family F[,F]] [--only NAME[,REGEX]] [--ops N] [--jobs N]
        [--no-torch-export] [--force] [--list]

Per model, in WORK/models/NAME/:
  traced.pt            torch.jit.trace + torch.jit.save
  scripted.pt          torch.jit.script + save, where scripting works
  in1/*.npy in2/*.npy  example inputs; set 2 has other sizes where the model allows it
  out1/*.npy out2/*.npy  torch's outputs (eager), flattened in order
  torch/ARCHIVE_opN.json  torch.onnx.export of that archive at opset N: time,
                       peak RSS, its failure, checker, ONNX Runtime verdicts
  meta.json            all of the above, and the aten ops in each graph
  model.py             (per-op models) the model's source

Incremental (a model whose meta.json says done is skipped), parallel-safe (a
lock per model), with a timeout per model. Each model is built in a child
process (a crash or a hang costs one model).  Nothing is downloaded:
torchvision models are built with weights=None, weights_backbone=None.
"""
import argparse
import glob
import json
import os
import shutil
import sys
import time
import traceback
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import (DEFAULT_WORK, FAMILY_OPSETS, GEN_VERSION, HERE, PY, TORCH_OPSETS, Lock, env_for_torch, error_line,  # noqa: E402
                    first_line, log, measured_run, model_dir, read_json, safe_name, write_json)

KEEP_ONNX_BYTES = 8 << 20   # torch's own .onnx files above this are deleted once judged (disk)
EXPORT_TIMEOUT = 1800


# =============================================================================
# in the child: build one model (torch imported here only)
# =============================================================================
def _torch():
    import torch
    torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "1")))
    # no downloads, ever
    import torch.hub

    def refuse(*a, **k):
        raise RuntimeError("conformance: downloads are disabled (random weights only)")
    torch.hub.load_state_dict_from_url = refuse
    torch.hub.download_url_to_file = refuse
    return torch


def flatten(obj, out=None):
    """Outputs in the order torch.onnx.export flattens them; None dropped,
    Python numbers as 0-d tensors."""
    import torch
    if out is None:
        out = []
    if isinstance(obj, torch.Tensor):
        out.append(obj)
    elif isinstance(obj, (list, tuple)):
        for o in obj:
            flatten(o, out)
    elif isinstance(obj, dict):
        for o in obj.values():
            flatten(o, out)
    elif isinstance(obj, bool):
        out.append(torch.tensor(obj))
    elif isinstance(obj, (int, float)):
        out.append(torch.tensor(obj))
    elif obj is None:
        pass
    else:
        raise TypeError(f"output of type {type(obj).__name__}")
    return out


def np_of(t):
    import numpy as np
    t = t.detach().cpu()
    if t.dtype.is_complex:
        raise TypeError("complex output")
    if str(t.dtype) == "torch.bfloat16":
        raise TypeError("bfloat16 output (no numpy dtype)")
    if str(t.layout) != "torch.strided":
        raise TypeError(f"sparse output ({t.layout}: no numpy array)")
    return np.array(t.contiguous().numpy(), copy=True, order="C")  # keeps 0-d as 0-d


def save_set(d, pairs):
    import numpy as np
    os.makedirs(d, exist_ok=True)
    for n, t in pairs:
        np.save(os.path.join(d, f"{n}.npy"), np_of(t), allow_pickle=False)


def save_outs(d, outs):
    import numpy as np
    if os.path.isdir(d):
        shutil.rmtree(d)
    os.makedirs(d)
    for i, a in enumerate(outs):
        np.save(os.path.join(d, f"{i}.npy"), a, allow_pickle=False)


def run_module(m, pairs):
    import torch
    with torch.no_grad():
        return [np_of(t) for t in flatten(m(*[t.clone() for _, t in pairs]))]


def graph_kinds(graph, acc=None):
    if acc is None:
        acc = set()
    for n in graph.nodes():
        acc.add(n.kind())
        for b in n.blocks():
            graph_kinds(b, acc)
    return acc


def module_kinds(m):
    try:
        g = m.inlined_graph
    except Exception:
        g = m.graph
    return sorted(k for k in graph_kinds(g) if k.startswith(("aten::", "prim::", "quantized::")))


def agree(exp, act, mode):
    from evaluate import compare
    ok, msg, _ = compare(exp, act, mode)
    return ok, msg


def judge_archive(a, kind, mdir, path, inputs1, inputs2, out1, out2, compare):
    """Loads a saved archive back, runs it on both input sets and records in
    `a` whether it agrees with eager torch (the archive's own outputs become
    the oracle where it does not)."""
    import torch
    re = torch.jit.load(path).eval()
    a["kinds"] = module_kinds(re)
    own1 = run_module(re, inputs1)
    ok, msg = agree(out1, own1, compare)
    a["ok"] = True
    if not ok:
        # the archive is what gets converted: torch running it is the
        # oracle (detection with tied scores takes another NMS path)
        a["oracle"] = "archive"
        a["eager_diff"] = f"the {kind} archive disagrees with eager torch on set 1: {msg}"
        save_outs(os.path.join(mdir, f"{kind}_out1"), own1)
    a["bytes"] = os.path.getsize(path)
    if out2 is not None:
        try:
            ok2, msg2 = agree(out2, run_module(re, inputs2), compare)
        except Exception as e:
            ok2, msg2 = False, first_line(str(e))
        a["set2"] = ok2
        if not ok2:
            a["set2_error"] = msg2


def finish_model(mdir, name, family, module, inputs1, inputs2, script_module=None,
                 trace_strict=True, compare="values", extra=None, trace_no_grad=False, script=True):
    """Saves inputs, torch's outputs, the traced and scripted archives, and
    meta.json (stage 'archives').  script=False: no scripted archive (a
    family judged on the trace path only)."""
    torch = _torch()
    meta = {"name": name, "family": family, "gen_version": GEN_VERSION, "stage": "building",
            "torch": torch.__version__, "compare": compare}
    meta.update(extra or {})
    t0 = time.time()
    meta["inputs"] = [{"name": n, "dtype": str(np_of(t).dtype), "shape1": list(t.shape)} for n, t in inputs1]
    save_set(os.path.join(mdir, "in1"), inputs1)
    out1 = run_module(module, inputs1)  # an eager failure is the model's failure: raise
    save_outs(os.path.join(mdir, "out1"), out1)
    meta["n_outputs"] = len(out1)
    meta["outputs"] = [{"dtype": str(a.dtype), "shape1": list(a.shape)} for a in out1]
    meta["weight_bytes"] = int(sum(p.numel() * p.element_size() for p in module.parameters()) +
                               sum(b.numel() * b.element_size() for b in module.buffers()))
    out2 = None
    if inputs2 is not None:
        try:
            if [t.dim() for _, t in inputs2] != [t.dim() for _, t in inputs1]:
                raise ValueError("set 2 changes an input's rank (ONNX ranks are static)")
            out2 = run_module(module, inputs2)
            if len(out2) != len(out1):
                raise ValueError("set 2 gives a different number of outputs")
            save_set(os.path.join(mdir, "in2"), inputs2)
            save_outs(os.path.join(mdir, "out2"), out2)
            for i, (n, t) in zip(meta["inputs"], inputs2):
                i["shape2"] = list(t.shape)
            for o, a in zip(meta["outputs"], out2):
                o["shape2"] = list(a.shape)
        except Exception as e:
            meta["set2_error"] = first_line(str(e))
            out2 = None
    meta["has_set2"] = out2 is not None
    # dims that differ between the sets: dynamic axes for set 2
    for i in meta["inputs"]:
        s1, s2 = i["shape1"], i.get("shape2")
        i["dynamic"] = [k for k in range(len(s1)) if s2 is not None and len(s2) == len(s1) and s1[k] != s2[k]]
        if s2 is not None and len(s2) != len(s1):
            i["dynamic"] = list(range(len(s1)))
    args = tuple(t for _, t in inputs1)
    archives = {}
    # --- trace
    a = {"ok": False}
    try:
        with torch.set_grad_enabled(not trace_no_grad):
            traced = torch.jit.trace(module, args, strict=trace_strict, check_trace=False)
        meta["trace_no_grad"] = trace_no_grad
        path = os.path.join(mdir, "traced.pt")
        torch.jit.save(traced, path)
        judge_archive(a, "traced", mdir, path, inputs1, inputs2, out1, out2, compare)
    except Exception as e:
        a["error"] = first_line(traceback.format_exc())
    archives["traced"] = a
    # --- script
    a = {"ok": False}
    try:
        if not script:
            raise NotScripted(f"not scripted: the {family} family is traced only")
        target = script_module if script_module is not None else module
        scripted = target if isinstance(target, torch.jit.ScriptModule) else torch.jit.script(target)
        path = os.path.join(mdir, "scripted.pt")
        torch.jit.save(scripted, path)
        judge_archive(a, "scripted", mdir, path, inputs1, inputs2, out1, out2, compare)
    except NotScripted as e:
        a["error"] = str(e)
    except Exception as e:
        a["error"] = first_line(traceback.format_exc())
    archives["scripted"] = a
    for k, v in archives.items():
        if not v["ok"]:
            for f in (os.path.join(mdir, f"{k}.pt"),):
                if os.path.exists(f):
                    os.unlink(f)
    meta["archives"] = archives
    meta["build_s"] = round(time.time() - t0, 2)
    meta["stage"] = "archives"
    write_json(os.path.join(mdir, "meta.json"), meta)
    return meta


class NotScripted(Exception):
    pass


def worker_zoo(work, name):
    _torch()
    from models import REGISTRY
    e = REGISTRY[name]
    mdir = model_dir(work, name)
    os.makedirs(mdir, exist_ok=True)
    b = e.build()
    finish_model(mdir, name, e.family, b.module, b.inputs1, b.inputs2, b.script_module,
                 b.trace_strict, b.compare, {"notes": b.notes or e.notes}, b.trace_no_grad)


def worker_ops(work, ops):
    """Builds per-op models in this one process. A file 'building' marks the
    op under way: if this process dies there, the parent records the crash."""
    torch = _torch()
    import opmodels
    reg = opmodels.registry_ops()
    for op in ops:
        name = opmodels.model_name(op)
        mdir = model_dir(work, name)
        os.makedirs(mdir, exist_ok=True)
        with open(os.path.join(mdir, "building"), "w") as f:
            f.write(str(os.getpid()))
        extra = {"op": op, "registry_opsets": reg.get(op, [])}
        try:
            build_op(torch, opmodels, op, name, mdir, extra)
        except Exception as e:
            write_json(os.path.join(mdir, "meta.json"),
                       dict(extra, name=name, family="op", gen_version=GEN_VERSION, stage="failed",
                            error=first_line(traceback.format_exc())))
        os.unlink(os.path.join(mdir, "building"))


def worker_opinfo(work, names):
    """Builds opinfo models in this one process (opinfo.build)."""
    _torch()
    import opinfo
    opinfo.build(work, names, finish_model, nondeterministic, model_dir)


def nondeterministic(torch, m, inputs):
    """Random operators: outputs that change with the seed (5 seeds: a small
    bernoulli can agree by chance across two)."""
    outs = []
    for seed in range(1, 6):
        torch.manual_seed(seed)
        outs.append(run_module(m, inputs))
    a = outs[0]
    return any(x.shape != y.shape or x.tobytes() != y.tobytes() for b in outs[1:] for x, y in zip(a, b))


def build_op(torch, opmodels, op, name, mdir, extra):
    key = op
    src_path = os.path.join(mdir, "model.py")
    tried = []
    chosen = None
    if op in opmodels.MANUAL and opmodels.MANUAL[op] is None:
        raise RuntimeError("no model: the registry entry names no operator torch 1.13 has")
    # 1. OpInfo samples: the first sample whose traced graph has the op; else
    #    whose scripted graph has it
    fallback = None
    for o in opmodels.opinfos_for(op)[:4]:
        for dt, samples in opmodels.opinfo_samples(o):
            rendered = []
            for s in samples:
                try:
                    src, ins = opmodels.source_for_sample(o, s)
                except opmodels.Unrenderable as e:
                    tried.append(str(e))
                    continue
                rendered.append((src, ins))
            for src, ins in rendered:
                try:
                    m = opmodels.load_source(src_path, src)
                    run_module(m, ins)
                    with torch.no_grad():
                        tr = torch.jit.trace(m, tuple(t for _, t in ins), check_trace=False)
                    in_trace = key in {f(k) for k in module_kinds(tr) for f in (str, opmodels.registry_key)}
                except Exception as e:
                    tried.append(first_line(str(e)))
                    continue
                # a second sample with the same source and other shapes: set 2
                ins2 = None
                for src2, i2 in rendered:
                    if src2 == src and [t.dtype for _, t in i2] == [t.dtype for _, t in ins] and \
                            [t.dim() for _, t in i2] == [t.dim() for _, t in ins] and \
                            [list(t.shape) for _, t in i2] != [list(t.shape) for _, t in ins]:
                        ins2 = i2
                        break
                cand = (src, ins, ins2, {"opinfo": opmodels.full_name(o),
                                         "sample_dtype": str(dt).replace("torch.", ""), "source_kind": "opinfo"})
                if in_trace:
                    chosen = cand
                    break
                if fallback is None:
                    fallback = cand
            if chosen:
                break
        if chosen:
            break
    # 2. the hand-written model
    if chosen is None:
        g = torch.Generator().manual_seed(0)
        mm = opmodels.manual(op, g)
        if mm:
            chosen = (mm[0], mm[1], mm[2], {"opinfo": None, "source_kind": "manual"})
    if chosen is None:
        chosen = fallback
    if chosen is None:
        raise RuntimeError("no model: no OpInfo sample could be traced and no hand-written model"
                           + (f" ({tried[-1]})" if tried else ""))
    src, ins, ins2, info = chosen
    extra.update(info)
    m = opmodels.load_source(src_path, src)
    compare = "shape" if nondeterministic(torch, m, ins) else "values"
    torch.manual_seed(0)
    meta = finish_model(mdir, name, "op", m, ins, ins2, None, True, compare, extra)
    kt = {f(k) for k in meta["archives"]["traced"].get("kinds", []) for f in (str, opmodels.registry_key)}
    ks = {f(k) for k in meta["archives"]["scripted"].get("kinds", []) for f in (str, opmodels.registry_key)}
    meta["op_in_trace"] = key in kt
    meta["op_in_script"] = key in ks
    write_json(os.path.join(mdir, "meta.json"), meta)


# =============================================================================
# torch.onnx.export, in a child of its own (see torch_export.py)
# =============================================================================
def export_jobs(meta, opsets):
    jobs = []
    for arch in ("traced", "scripted"):
        if meta["archives"].get(arch, {}).get("ok"):
            for v in opsets:
                jobs.append((arch, v))
    return jobs


def run_exports(work, names, opsets, isolate, timeout=EXPORT_TIMEOUT):
    """torch.onnx.export of every archive at every opset, each result in
    MDIR/torch/ARCH_opN.json.  Isolated: one child per export (its wall time
    and peak RSS are the export's own); else one child per batch of models."""
    env = env_for_torch()
    todo = []
    for name in names:
        mdir = model_dir(work, name)
        meta = read_json(os.path.join(mdir, "meta.json"))
        if not meta or meta.get("stage") not in ("archives", "exported", "done"):
            continue
        for arch, v in export_jobs(meta, opsets):
            res = os.path.join(mdir, "torch", f"{arch}_op{v}.json")
            if not os.path.exists(res):
                todo.append((mdir, arch, v))
    if not todo:
        return
    script = os.path.join(HERE, "torch_export.py")
    if isolate:
        for mdir, arch, v in todo:
            r = measured_run([PY, script, f"{mdir}:{arch}:{v}"], timeout=timeout, env=env)
            _finish_export(mdir, arch, v, r)
        return
    batch = [f"{m}:{a}:{v}" for m, a, v in todo]
    while batch:
        r = measured_run([PY, script] + batch, timeout=timeout + 60 * len(batch), env=env)
        left = []
        for j in batch:
            m, a, v = j.rsplit(":", 2)
            res = os.path.join(m, "torch", f"{a}_op{v}.json")
            if os.path.exists(res):
                continue
            left.append(j)
        if not left:
            break
        # the first job without a result killed the child (crash, timeout)
        m, a, v = left[0].rsplit(":", 2)
        _finish_export(m, a, int(v), r, crashed=True)
        batch = left[1:]


def _finish_export(mdir, arch, v, r, crashed=False):
    res = os.path.join(mdir, "torch", f"{arch}_op{v}.json")
    os.makedirs(os.path.dirname(res), exist_ok=True)
    d = read_json(res) or {}
    if crashed or not d:
        why = "timed out" if r["timed_out"] else f"exit status {r['rc']}"
        d = {"ok": False, "error": f"torch.onnx.export child died ({why}): {error_line(r['err'])}"}
    else:
        d["wall_s"] = r["wall_s"]
        d["rss_kb"] = r["rss_kb"]
    write_json(res, d)


def unjudged_exports(work, name, opsets):
    """torch's exports of a model that exported and are not judged yet:
    [(arch, opset, result path, result)]."""
    meta = read_json(os.path.join(model_dir(work, name), "meta.json"))
    todo = []
    for arch, v in export_jobs(meta, opsets):
        res = os.path.join(model_dir(work, name), "torch", f"{arch}_op{v}.json")
        d = read_json(res) or {"ok": False, "error": "no result"}
        if d.get("ok") and "checker" not in d:
            todo.append((arch, v, res, d))
    return todo


def checker_infos(work, names, opsets):
    """The checker's answers on every unjudged export of these models, from
    one onnx_info child (a child per model costs an onnx import each)."""
    from evaluate import onnx_info
    paths = [d["onnx"] for n in names for _, _, _, d in unjudged_exports(work, n, opsets) if os.path.exists(d["onnx"])]
    return onnx_info(paths) if paths else {}


def judge_exports(work, name, pool, opsets, infos=None):
    """Runs the checker (infos: its answers, already asked for) and ONNX
    Runtime on torch's own .onnx files."""
    from evaluate import onnx_info, run_sets
    mdir = model_dir(work, name)
    meta = read_json(os.path.join(mdir, "meta.json"))
    todo = unjudged_exports(work, name, opsets)
    if infos is None:
        infos = onnx_info([d["onnx"] for _, _, _, d in todo if os.path.exists(d["onnx"])]) if todo else {}
    for arch, v, res, d in todo:
        p = d["onnx"]
        i = infos.get(p, {"checker": False, "error": "no .onnx file"})
        d["checker"] = bool(i.get("checker"))
        if i.get("error"):
            d["checker_error"] = i["error"]
        for k in ("nodes", "nodes_all", "op_types", "ir_version"):
            if k in i:
                d[k] = i[k]
        sets = [1]
        needs_dyn = any(i["dynamic"] for i in meta["inputs"])
        if meta.get("has_set2") and meta["archives"][arch].get("set2") and (d.get("dynamic") or not needs_dyn):
            sets.append(2)
        if os.path.exists(p):
            d["ort"] = run_sets(pool, p, mdir, meta, sets, os.path.join(mdir, "torch"), arch=arch)
            if os.path.getsize(p) > KEEP_ONNX_BYTES or glob.glob(p + ".data"):
                os.unlink(p)
                d["onnx_deleted"] = True
        write_json(res, d)


def collect(work, name, opsets):
    mdir = model_dir(work, name)
    meta = read_json(os.path.join(mdir, "meta.json"))
    t = {}
    for arch, v in export_jobs(meta, opsets):
        d = read_json(os.path.join(mdir, "torch", f"{arch}_op{v}.json"))
        if d:
            t.setdefault(arch, {})[str(v)] = d
    meta["torch_export"] = t
    meta["stage"] = "done"
    write_json(os.path.join(mdir, "meta.json"), meta)


# =============================================================================
# the parent
# =============================================================================
def selection(args):
    from models import REGISTRY
    names, fam = [], {}
    want_fam = set(args.family.split(",")) if args.family else None
    for n, e in REGISTRY.items():
        if args.subset == "fast" and not e.fast:
            continue
        fam[n] = e.family
        names.append(n)
    ops = []
    if not want_fam or "op" in want_fam:
        import opmodels
        all_ops = sorted(opmodels.registry_ops())
        if args.subset == "fast":
            all_ops = fast_ops(all_ops)
        if args.ops is not None:
            all_ops = all_ops[:args.ops]
        for op in all_ops:
            n = opmodels.model_name(op)
            fam[n] = "op"
            ops.append((n, op))
    opis = []
    if (not want_fam or "opinfo" in want_fam) and args.subset != "fast":
        # the full tier only; the first --opinfo-samples of each OpInfo
        # (opinfo.SAMPLES by default, 0: all of them, about 15000 models)
        import opinfo
        opis = opinfo.select(opinfo.index(args.work), getattr(args, "opinfo_samples", opinfo.SAMPLES))
    from common import select
    names = [n for n in names if not want_fam or fam[n] in want_fam]
    if args.only:
        names = select(names, args.only)
        ops = [(n, op) for n, op in ops if select([n, op], args.only)]
        opis = [e for e in opis if select([e["name"], e["opinfo"]], args.only)]
    return names, ops, opis


FAST_OPS_EVERY = 12
FAST_OPS_ALWAYS = ("aten::add", "aten::matmul", "aten::conv2d", "aten::softmax", "aten::relu",
                   "aten::layer_norm", "aten::cat", "aten::reshape", "aten::index_put", "aten::lstm")


def fast_ops(all_ops):
    """The CI sample: every FAST_OPS_EVERY-th operator, plus a few staples."""
    return sorted(set(all_ops[::FAST_OPS_EVERY]) | (set(FAST_OPS_ALWAYS) & set(all_ops)))


def is_done(work, name, stage="done", key=None):
    """Built (to stage) by this generator; key: the opinfo family's
    generator key the model must carry."""
    m = read_json(os.path.join(model_dir(work, name), "meta.json"))
    if key is not None and (not m or m.get("opinfo_key") != key):
        return False
    return bool(m) and m.get("gen_version") == GEN_VERSION and m.get("stage") in (stage, "done", "failed")


def build_zoo_model(args, name, opsets):
    from models import REGISTRY
    from evaluate import OrtPool
    e = REGISTRY[name]
    mdir = model_dir(args.work, name)
    os.makedirs(mdir, exist_ok=True)
    if e.copied:  # archives saved elsewhere: copied, no torch here
        if not is_done(args.work, name) or args.force:
            import torch2
            torch2.lay_out(args.work, name)
            log(f"[gen] {name}: copied")
        return
    lock = Lock(os.path.join(mdir, ".lock"))
    if not lock.acquire():
        log(f"[gen] {name}: busy (another generator holds it)")
        return
    try:
        if not is_done(args.work, name, "archives") or args.force:
            for sub in ("torch", "in1", "in2", "out1", "out2"):
                shutil.rmtree(os.path.join(mdir, sub), ignore_errors=True)
            t0 = time.time()
            r = measured_run([PY, os.path.abspath(__file__), "--work", args.work, "--worker", name],
                             timeout=e.timeout, env=env_for_torch(), nice=args.nice)
            meta = read_json(os.path.join(mdir, "meta.json"))
            if r["rc"] != 0 or not meta or meta.get("stage") != "archives":
                why = "timed out" if r["timed_out"] else f"exit {r['rc']}"
                write_json(os.path.join(mdir, "meta.json"),
                           {"name": name, "family": e.family, "gen_version": GEN_VERSION, "stage": "failed",
                            "weight_bytes": e.weight_bytes,
                            "error": f"generation failed ({why}): {error_line(r['err'])}"})
                log(f"[gen] {name}: FAILED ({why}) {error_line(r['err'])}")
                return
            meta["gen"] = {"wall_s": r["wall_s"], "rss_kb": r["rss_kb"]}
            write_json(os.path.join(mdir, "meta.json"), meta)
            log(f"[gen] {name}: archives in {time.time() - t0:.0f}s")
        if args.no_torch_export:
            return
        meta = read_json(os.path.join(mdir, "meta.json"))
        if meta.get("stage") == "failed":
            return
        t0 = time.time()
        run_exports(args.work, [name], opsets, isolate=e.isolate)
        pool = OrtPool()
        try:
            judge_exports(args.work, name, pool, opsets)
        finally:
            pool.close()
        collect(args.work, name, opsets)
        log(f"[gen] {name}: torch.onnx.export x{len(export_jobs(meta, opsets))} judged in {time.time() - t0:.0f}s")
    finally:
        lock.release()


def build_ops(args, ops, opsets):
    lock = Lock(os.path.join(args.work, "ops.lock"))
    if not lock.acquire():
        log("[gen] per-op models: busy (another generator holds WORK/ops.lock)")
        return
    try:
        _build_batch(args, ops, opsets, "op", "--op-worker")
    finally:
        lock.release()


def build_opinfo(args, entries, opsets):
    """The opinfo family: the samples with no model get their meta.json
    (not applicable, and why) here; the others are built in batches in one
    child each (opinfo.build), then torch.onnx.export at the family's opsets."""
    import opinfo
    key = opinfo.generator_key()
    lock = Lock(os.path.join(args.work, "opinfo.lock"))
    if not lock.acquire():
        log("[gen] opinfo models: busy (another generator holds WORK/opinfo.lock)")
        return
    try:
        for e in entries:
            if e.get("na") and (args.force or not is_done(args.work, e["name"], key=key)):
                d = model_dir(args.work, e["name"])
                os.makedirs(d, exist_ok=True)
                write_json(os.path.join(d, "meta.json"),
                           {"name": e["name"], "family": "opinfo", "opinfo": e["opinfo"], "sample": e["k"],
                            "sample_dtype": e.get("dtype"), "opinfo_key": key, "gen_version": GEN_VERSION,
                            "stage": "failed", "error": f"no model: {e['na']}"})
        fam_opsets = [v for v in opsets if v in FAMILY_OPSETS["opinfo"]]
        items = [(e["name"], e["name"]) for e in entries if not e.get("na")]
        for i in range(0, len(items), OPINFO_BATCH):
            _build_batch(args, items[i:i + OPINFO_BATCH], fam_opsets, "opinfo", "--opinfo-worker", key)
    finally:
        lock.release()


OPINFO_BATCH = 100  # opinfo models per child (and results sooner)


def _build_batch(args, items, opsets, family, worker, key=None):
    """Builds [(name, worker argument)] in one child for many (restarted
    past a crash), then runs and judges torch.onnx.export on them in chunks
    of 25."""
    from evaluate import OrtPool
    work = args.work
    todo = [(n, op) for n, op in items if args.force or not is_done(work, n, "archives", key)]
    while todo:
        for n, _ in todo:
            d = model_dir(work, n)
            for sub in ("torch", "in1", "in2", "out1", "out2"):
                shutil.rmtree(os.path.join(d, sub), ignore_errors=True)
            if os.path.exists(os.path.join(d, "meta.json")):
                os.unlink(os.path.join(d, "meta.json"))
        t0 = time.time()
        r = measured_run([PY, os.path.abspath(__file__), "--work", work, worker] + [op for _, op in todo],
                         timeout=args.op_timeout * len(todo), env=env_for_torch(), nice=args.nice)
        left = [(n, op) for n, op in todo if not is_done(work, n, "archives", key)]
        log(f"[gen] {family}: {len(todo) - len(left)} built in {time.time() - t0:.0f}s")
        if not left:
            break
        n, op = left[0]
        d = model_dir(work, n)
        os.makedirs(d, exist_ok=True)
        why = "timed out" if r["timed_out"] else f"exit {r['rc']}"
        crash = {"name": n, "family": family, "gen_version": GEN_VERSION, "stage": "failed",
                 "error": f"generator died on this model ({why}): {error_line(r['err'])}"}
        crash.update({"op": op} if family == "op" else {"opinfo_key": key})
        write_json(os.path.join(d, "meta.json"), crash)
        if os.path.exists(os.path.join(d, "building")):
            os.unlink(os.path.join(d, "building"))
        todo = left[1:]
    if args.no_torch_export:
        return
    names = [n for n, _ in items]
    pending = [n for n in names if not is_done(work, n, key=key)]
    for i in range(0, len(pending), 25):
        chunk = pending[i:i + 25]
        t0 = time.time()
        run_exports(work, chunk, opsets, isolate=False, timeout=300)
        infos = checker_infos(work, chunk, opsets)
        pool = OrtPool(timeout=120)
        try:
            for n in chunk:
                m = read_json(os.path.join(model_dir(work, n), "meta.json"))
                if m and m.get("stage") == "archives":
                    judge_exports(work, n, pool, opsets, infos)
                    collect(work, n, opsets)
        finally:
            pool.close()
        log(f"[gen] {family} {i + len(chunk)}/{len(pending)}: exports judged in {time.time() - t0:.0f}s")


def add_opinfo_samples(ap):
    """--opinfo-samples, shared with run.py."""
    import opinfo
    ap.add_argument("--opinfo-samples", type=int, default=opinfo.SAMPLES,
                    help=f"opinfo family: the first N samples of each OpInfo (default {opinfo.SAMPLES}; 0: all)")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--work", default=DEFAULT_WORK)
    ap.add_argument("--subset", choices=("fast", "full"), default="full")
    ap.add_argument("--family", help="comma-separated: classification,detection,segmentation,"
                                     "transformer,rnn,control_flow,reference,op,torch2,pt2,opinfo")
    ap.add_argument("--only", help="comma-separated model names or regexes (op names too: aten::add)")
    ap.add_argument("--ops", type=int, help="at most N per-op models (in registry order)")
    # torch.onnx.export's opsets: 1.13 stops at 17 (pt2onnx's are run.py's)
    ap.add_argument("--opsets", default=",".join(map(str, TORCH_OPSETS)))
    ap.add_argument("--jobs", type=int, default=1, help="models built at once (default 1)")
    ap.add_argument("--nice", type=int, default=0, help="niceness of the children")
    ap.add_argument("--op-timeout", type=int, default=120, help="seconds per per-op model")
    ap.add_argument("--no-torch-export", action="store_true")
    ap.add_argument("--force", action="store_true", help="rebuild models already built")
    ap.add_argument("--list", action="store_true", help="print the selection and exit")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--op-worker", nargs="+", help=argparse.SUPPRESS)
    ap.add_argument("--opinfo-worker", nargs="+", help=argparse.SUPPRESS)
    add_opinfo_samples(ap)
    args = ap.parse_args()
    args.work = os.path.abspath(args.work)
    if args.worker:
        return worker_zoo(args.work, args.worker)
    if args.op_worker:
        return worker_ops(args.work, args.op_worker)
    if args.opinfo_worker:
        return worker_opinfo(args.work, args.opinfo_worker)
    opsets = [int(v) for v in args.opsets.split(",")]
    names, ops, opis = selection(args)
    if args.list:
        from models import REGISTRY
        def stage(n):
            m = read_json(os.path.join(model_dir(args.work, n), "meta.json")) or {}
            return m.get("stage", "-") if m.get("gen_version", GEN_VERSION) == GEN_VERSION else "stale"
        for n in names:
            print(f"{REGISTRY[n].family:15} {stage(n):9} {n}")
        for n, op in ops:
            print(f"{'op':15} {stage(n):9} {n} ({op})")
        for e in opis:
            print(f"{'opinfo':15} {stage(e['name']):9} {e['name']} ({e['opinfo']} sample {e['k']}, "
                  f"{e.get('dtype', '-')}{', n/a: ' + e['na'] if e.get('na') else ''})")
        print(f"{len(names)} models, {len(ops)} per-op models, {len(opis)} opinfo samples", file=sys.stderr)
        return 0
    os.makedirs(os.path.join(args.work, "models"), exist_ok=True)
    t0 = time.time()
    log(f"[gen] {len(names)} models, {len(ops)} per-op models, {len(opis)} opinfo samples into {args.work}")
    from models import REGISTRY
    names.sort(key=lambda n: REGISTRY[n].weight_bytes)  # small first: results sooner
    if args.jobs > 1:
        with ThreadPoolExecutor(args.jobs) as ex:
            list(ex.map(lambda n: build_zoo_model(args, n, opsets), names))
    else:
        for n in names:
            build_zoo_model(args, n, opsets)
    if ops:
        build_ops(args, ops, opsets)
    if opis:
        build_opinfo(args, opis, opsets)
    stage = "archives" if args.no_torch_export else "done"
    done = sum(1 for n in names + [n for n, _ in ops] + [e["name"] for e in opis] if is_done(args.work, n, stage))
    log(f"[gen] {done}/{len(names) + len(ops) + len(opis)} models ready in {time.time() - t0:.0f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

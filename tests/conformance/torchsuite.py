#!/usr/bin/python3
"""torchsuite.py - issue 14's first measured set: the models of PyTorch 1.13's
test/onnx/test_pytorch_onnx_onnxruntime.py, saved as a traced and a scripted
archive, converted by pt2onnx at opset 13 and judged by ONNX Runtime against
torch's eager outputs at each test's own rtol/atol.

The test file is torch's, not ours: it is never vendored. Give its path (with
onnx_test_common.py, pytorch_test_common.py and model_defs/ beside it, as in
torch's source tree, e.g. Debian's pytorch 1.13.1 source package):

    /usr/bin/python3 tests/conformance/torchsuite.py gen  TEST_FILE [--work DIR] [--only REGEX]
    /usr/bin/python3 tests/conformance/torchsuite.py run  [--work DIR] [--pt2onnx BIN] [--only REGEX]
    /usr/bin/python3 tests/conformance/torchsuite.py report [--work DIR]

gen runs every test of the opset-13 classes (is_script False: the trace
class, True: the script class) with the test class's run_test replaced: the
test's own skips for opset 13 apply (skipScriptTest, skipTraceTest,
skipIfUnsupportedMinOpsetVersion, ...; a skipped test is counted nowhere), and
each run_test call that torch's run_test would export becomes one case: the
model as a torch.jit.trace archive (trace class) or torch.jit.script archive
(script class), its inputs (.npy, flattened as torch.jit._flatten does) and
torch's eager outputs. A case torch cannot make (trace or script raises, an
input .npy cannot hold) is "n/a" with the reason; so is a test that needs the
network. run converts each archive (pt2onnx --trace / --script, opset 13),
runs ONNX Runtime (one node process, ort_runner.js) and compares, writing
WORK/results.json and tests/conformance/torchsuite.json (statuses and first
error lines only: no test-file code). Work directory: build/torchsuite.
"""
import argparse
import copy
import inspect
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import types

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from common import (PY, ROOT, STUB, env_for_torch, error_line, first_line, log, measured_run,  # noqa: E402
                    read_json, safe_name, write_json)

OPSET = 13
DEFAULT_WORK = os.path.join(ROOT, "build", "torchsuite")
SUMMARY = os.path.join(HERE, "torchsuite.json")
PATHS = ("trace", "script")
# errors that mean the test wanted the network (pretrained weights, URLs)
NETWORK = re.compile(r"urlopen|URLError|Name or service not known|Temporary failure in name resolution|"
                     r"download|HTTP Error|no-hub|Network is unreachable", re.I)


# --- gen: the child that imports torch's test file ---------------------------
def _stub_modules():
    """Modules torch's test file imports that this machine lacks: the
    onnxruntime Python module (only set_seed is reached: run_test is ours)
    and parameterized (parameterized_class: the opset-13 classes are made
    here)."""
    ort = types.ModuleType("onnxruntime")
    ort.set_seed = lambda seed: None

    def _missing(*a, **k):
        raise RuntimeError("onnxruntime Python module is not available (stub)")
    ort.InferenceSession = _missing
    ort.SessionOptions = _missing
    sys.modules.setdefault("onnxruntime", ort)
    par = types.ModuleType("parameterized")

    class _P:
        @staticmethod
        def parameterized_class(*a, **k):
            return lambda cls: cls

        @staticmethod
        def expand(*a, **k):
            raise RuntimeError("parameterized.expand is not stubbed")
    par.parameterized = _P
    par.parameterized_class = _P.parameterized_class
    sys.modules.setdefault("parameterized", par)


class Skip(Exception):
    pass


def _np(t):
    """A tensor as numpy, or None when .npy cannot hold its dtype."""
    import torch
    t = t.detach().cpu()
    if t.dtype in (torch.bfloat16, torch.complex64, torch.complex128, torch.complex32) or t.is_quantized:
        return None
    if t.is_sparse or t.layout != torch.strided:
        return None
    return t.resolve_conj().resolve_neg().contiguous().numpy()


def input_specs(args, indir):
    """pt2onnx's --input specs for forward's positional args, the tensors
    saved as indir/iK.npy in torch.jit._flatten's order. Returns (specs,
    names) or raises Skip with the reason."""
    import numpy as np
    import torch
    names = []

    def spec(v):
        if isinstance(v, torch.Tensor):
            a = _np(v)
            if a is None:
                raise Skip(f"input of dtype {v.dtype} has no .npy form")
            name = f"i{len(names)}"
            p = os.path.join(indir, name + ".npy")
            np.save(p, a, allow_pickle=False)
            names.append(name)
            return p
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, int):
            return f"int:{v}"
        if isinstance(v, float):
            return f"float:{v!r}"
        if v is None:
            return "none"
        if isinstance(v, tuple):
            return "(" + ",".join(spec(x) for x in v) + ")"
        if isinstance(v, list):
            return "[" + ",".join(spec(x) for x in v) + "]"
        if isinstance(v, dict):
            raise Skip("FAIL:a dict argument has no --input form")
        raise Skip(f"input of type {type(v).__name__} has no --input form")
    os.makedirs(indir, exist_ok=True)
    return [spec(a) for a in args], names


def flatten_outputs(out):
    """torch's outputs as the ONNX graph has them: tuples, lists and dict
    values in order, None dropped, numbers as 0-d arrays."""
    import numpy as np
    import torch
    res = []

    def walk(v):
        if v is None:
            return
        if isinstance(v, torch.Tensor):
            a = _np(v)
            if a is None:
                raise Skip(f"output of dtype {v.dtype} has no .npy form")
            res.append(a)
        elif isinstance(v, bool):
            res.append(np.asarray(v))
        elif isinstance(v, int):
            res.append(np.asarray(v, dtype=np.int64))
        elif isinstance(v, float):
            res.append(np.asarray(v, dtype=np.float32))
        elif isinstance(v, (tuple, list)):
            for x in v:
                walk(x)
        elif isinstance(v, dict):
            for x in v.values():
                walk(x)
        else:
            raise Skip(f"output of type {type(v).__name__}")
    walk(out)
    return res


def positional(model, args, kwargs):
    """forward's arguments with kwargs bound by position (pt2onnx's --input
    is positional), defaults filled between."""
    if not kwargs:
        return tuple(args)
    fwd = getattr(model, "forward", model)
    try:
        sig = inspect.signature(fwd)
    except (TypeError, ValueError):
        raise Skip("keyword inputs to a model whose signature is unknown")
    b = sig.bind(*args, **kwargs)
    b.apply_defaults()
    return tuple(b.args) + tuple(b.kwargs.values())


class Recorder:
    """Makes the cases of one test: one per run_test call that torch's
    run_test exports on this class's path."""

    def __init__(self, work, path):
        self.work = work
        self.path = path
        self.test = None
        self.cases = []

    def record(self, model, input_args, input_kwargs, rtol, atol, check_shape, check_dtype):
        import numpy as np
        import torch
        k = len(self.cases)
        cid = f"{self.test}.{k}"
        d = os.path.join(self.work, "cases", self.path, safe_name(cid))
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        case = {"id": cid, "test": self.test, "path": self.path, "rtol": rtol, "atol": atol,
                "check_shape": bool(check_shape), "check_dtype": bool(check_dtype), "dir": os.path.relpath(d, self.work)}
        self.cases.append(case)
        try:
            args = input_args
            if isinstance(args, (torch.Tensor, dict)):
                args = (args,)
            args = positional(model, args, input_kwargs or {})
            if isinstance(model, torch.nn.Module):
                model.eval()
            case["inputs"], case["input_names"] = input_specs(args, os.path.join(d, "in"))
            arch = os.path.join(d, "model.pt")
            # torch's verification runs a copy of the model taken before the
            # export (a forward that changes the module's state, setattr,
            # is judged from the state the test built): the same here
            ref = _try_clone(model)
            try:
                if self.path == "trace":
                    m = model if isinstance(model, torch.nn.Module) else _Fn(model)
                    with torch.no_grad():
                        m = torch.jit.trace(m, copy.deepcopy(args), check_trace=False, strict=False)
                else:
                    m = model if isinstance(model, (torch.jit.ScriptModule, torch.jit.ScriptFunction)) \
                        else torch.jit.script(model)
                torch.jit.save(m, arch)
            except Exception as e:
                what = "torch.jit.trace" if self.path == "trace" else "torch.jit.script"
                raise Skip(f"{what} fails: {first_line(str(e)) or type(e).__name__}")
            if self.path == "script":
                ref = _try_clone(m)  # torch's run_test verifies script_model
            try:
                with torch.no_grad():
                    out = ref(*copy.deepcopy(args))
            except Exception as e:
                raise Skip(f"torch fails on the test's inputs: {first_line(str(e)) or type(e).__name__}")
            outs = flatten_outputs(out)
            os.makedirs(os.path.join(d, "out"))
            for j, a in enumerate(outs):
                np.save(os.path.join(d, "out", f"{j}.npy"), a, allow_pickle=False)
            case["n_outputs"] = len(outs)
            case["status"] = "ready"
        except Skip as e:
            msg = str(e)
            if msg.startswith("FAIL:"):
                case["status"], case["error"] = "fail", msg[5:]
            else:
                case["status"], case["reason"] = "n/a", msg


class _Fn:
    pass


def _try_clone(model):
    try:
        return copy.deepcopy(model)
    except Exception:
        return model


def _make_fn_wrapper():
    import torch

    class Fn(torch.nn.Module):
        def __init__(self, fn):
            super().__init__()
            self.fn = fn

        def forward(self, *args):
            return self.fn(*args)
    return Fn


def gen_child(args):
    """Runs the named tests (or all) of one path's class; one JSON line per
    test appended to WORK/gen_PATH.jsonl as each ends."""
    sys.path.insert(0, STUB)
    test_dir = os.path.dirname(os.path.abspath(args.test_file))
    sys.path.insert(0, test_dir)
    os.chdir(test_dir)  # get_image reads assets/ beside the test file
    _stub_modules()
    import unittest
    import torch
    global _Fn
    _Fn = _make_fn_wrapper()
    torch.set_num_threads(1)
    mod_name = os.path.splitext(os.path.basename(args.test_file))[0]
    mod = __import__(mod_name)
    import onnx_test_common
    base = mod.TestONNXRuntime
    cls = type(f"TestONNXRuntime_opset{OPSET}_{args.path}", (base,),
               {"opset_version": OPSET, "is_script": args.path == "script",
                "keep_initializers_as_inputs": False})
    names = sorted(n for n in dir(cls) if n.startswith("test") and callable(getattr(cls, n)))
    if args.list:
        print("\n".join(names))
        return 0
    if args.tests:
        want = set(args.tests.split(","))
        names = [n for n in names if n in want]
    rec = Recorder(args.work, args.path)

    def run_test(self, model, input_args, input_kwargs=None, rtol=1e-3, atol=1e-7, **kw):
        # torch's run_test's choice of what it exports (onnx_test_common.py)
        is_model_script = isinstance(model, (torch.jit.ScriptModule, torch.jit.ScriptFunction))
        if self.is_script_test_enabled and self.is_script:
            rec.record(model, input_args, input_kwargs, rtol, atol, self.check_shape, self.check_dtype)
        if not is_model_script and not self.is_script:
            rec.record(model, input_args, input_kwargs, rtol, atol, self.check_shape, self.check_dtype)
    onnx_test_common._TestONNXRuntime.run_test = run_test

    def alarm(signum, frame):
        raise TimeoutError(f"test ran over {args.timeout}s in torch")
    signal.signal(signal.SIGALRM, alarm)
    out = open(os.path.join(args.work, f"gen_{args.path}.jsonl"), "a")
    for n in names:
        rec.test, rec.cases = n, []
        t = cls(n)
        r = {"test": n, "path": args.path}
        t0 = time.time()
        signal.alarm(args.timeout)
        try:
            t.setUp()
            getattr(t, n)()
            r["outcome"] = "ran"
        except unittest.SkipTest as e:
            r["outcome"], r["reason"] = "skipped", first_line(str(e))
        except BaseException as e:  # noqa: B902 - the test's failure, recorded
            if isinstance(e, KeyboardInterrupt):
                raise
            r["outcome"], r["reason"] = "error", f"{type(e).__name__}: {first_line(str(e))}"[:300]
        finally:
            signal.alarm(0)
            try:
                t.tearDown()
            except Exception:
                pass
        r["cases"] = rec.cases
        r["gen_s"] = round(time.time() - t0, 2)
        out.write(json.dumps(r) + "\n")
        out.flush()
    return 0


def gen(args):
    """Drives gen_child per path; a child that dies (a crash in torch)
    costs only the test it was running."""
    os.makedirs(args.work, exist_ok=True)
    env = env_for_torch()
    me = os.path.abspath(__file__)
    for path in PATHS:
        p = subprocess.run([PY, me, "gen-child", args.test_file, "--work", args.work, "--path", path, "--list"],
                           capture_output=True, text=True, env=env)
        if p.returncode:
            sys.exit(f"torchsuite: cannot import {args.test_file}: {error_line(p.stderr)}")
        names = p.stdout.split()
        if args.only:
            names = [n for n in names if re.search(args.only, n)]
        jl = os.path.join(args.work, f"gen_{path}.jsonl")
        if os.path.exists(jl) and not args.resume:
            os.unlink(jl)
        while True:
            done = {json.loads(line)["test"] for line in open(jl)} if os.path.exists(jl) else set()
            todo = [n for n in names if n not in done]
            if not todo:
                break
            log(f"[gen] {path}: {len(done)} done, {len(todo)} to go")
            lf = open(os.path.join(args.work, f"gen_{path}.log"), "a")
            p = subprocess.run(["nice", "-n", str(args.nice), PY, me, "gen-child", args.test_file, "--work",
                                args.work, "--path", path, "--timeout", str(args.timeout), "--tests", ",".join(todo)],
                               stdout=lf, stderr=lf, env=env)
            done2 = {json.loads(line)["test"] for line in open(jl)} if os.path.exists(jl) else set()
            rest = [n for n in todo if n not in done2]
            if rest and p.returncode == 1 and len(done2) == len(done):
                sys.exit(f"torchsuite: gen-child failed (see {lf.name})")
            if rest and p.returncode != 0:
                # the first test not written is the one that took the child down
                with open(jl, "a") as f:
                    f.write(json.dumps({"test": rest[0], "path": path, "outcome": "error",
                                        "reason": f"torch crashed (status {p.returncode})", "cases": []}) + "\n")
            elif rest:
                break
    return 0


# --- run: pt2onnx and ONNX Runtime ------------------------------------------
def err_line(text):
    """pt2onnx's error line: common.error_line without the stages'
    lower-case 'warning:' lines."""
    keep = [l for l in (text or "").splitlines() if not re.search(r"\bwarning:", l, re.I)]
    return error_line("\n".join(keep) or text)


def compare(exp, act, rtol, atol, check_shape, check_dtype):
    """torch's verification: per output, dtype and shape (where the test
    checks them) and numpy's assert_allclose (|a - b| <= atol + rtol |b|,
    NaN equal to NaN)."""
    import numpy as np
    if len(exp) != len(act):
        return f"{len(act)} outputs, torch has {len(exp)}"
    for k, (e, a) in enumerate(zip(exp, act)):
        if check_dtype and e.dtype != a.dtype:
            return f"output {k}: dtype {a.dtype}, torch {e.dtype}"
        if e.shape != a.shape:
            if check_shape or e.size != a.size:
                return f"output {k}: shape {list(a.shape)}, torch {list(e.shape)}"
            a = a.reshape(e.shape)
        if e.dtype == np.bool_ or a.dtype == np.bool_:
            if not np.array_equal(e.astype(np.bool_), a.astype(np.bool_)):
                return f"output {k}: {int(np.count_nonzero(e.astype(bool) != a.astype(bool)))} of {e.size} differ"
            continue
        ef, af = e.astype(np.float64), a.astype(np.float64)
        ok = np.isclose(af, ef, rtol=rtol, atol=atol, equal_nan=True)
        if not ok.all():
            bad = int((~ok).sum())
            return f"output {k}: {bad} of {e.size} elements outside rtol {rtol:g} atol {atol:g}"
    return None


def run(args):
    import numpy as np
    from evaluate import OrtPool
    recs = []
    for path in PATHS:
        jl = os.path.join(args.work, f"gen_{path}.jsonl")
        if not os.path.exists(jl):
            sys.exit(f"torchsuite: {jl} missing (run gen first)")
        recs += [json.loads(line) for line in open(jl)]
    pool = OrtPool(timeout=args.timeout)
    scratch = os.path.join(args.work, "runs")
    os.makedirs(scratch, exist_ok=True)
    old = read_json(os.path.join(args.work, "results.json"), {}) if args.only else {}
    results = dict(old.get("cases", {})) if old else {}
    tests = dict(old.get("tests", {})) if old else {}
    n = 0
    try:
        for r in recs:
            key = f"{r['path']}:{r['test']}"
            tests[key] = {"outcome": r["outcome"], "reason": r.get("reason", ""), "cases": len(r["cases"])}
            if args.only and not re.search(args.only, r["test"]):
                continue
            if r["outcome"] == "skipped":
                continue
            if not r["cases"] and r["outcome"] != "error":
                continue  # torch's run_test exports nothing on this path
            if not r["cases"]:
                # the test raised before any run_test: nothing to convert
                why = r.get("reason", "")
                results[key + ".-"] = {"status": "n/a", "path": r["path"], "test": r["test"],
                                       "error": ("needs the network: " if NETWORK.search(why) else
                                                 "test raised before run_test: ") + why}
                continue
            for c in r["cases"]:
                res = {"path": r["path"], "test": r["test"]}
                results[f"{r['path']}:{c['id']}"] = res
                if c.get("status") != "ready":
                    res["status"] = c.get("status", "n/a")
                    res["error"] = c.get("error") or c.get("reason", "")
                    continue
                d = os.path.join(args.work, c["dir"])
                out = os.path.join(scratch, "m.onnx")
                for f in (out, out + ".data"):
                    if os.path.exists(f):
                        os.unlink(f)
                cmd = [args.pt2onnx, os.path.join(d, "model.pt"), "-o", out, "--opset-version", str(OPSET),
                       "--trace" if r["path"] == "trace" else "--script"]
                for s in c["inputs"]:
                    cmd += ["--input", s]
                if c["input_names"]:
                    cmd += ["--input-names", ",".join(c["input_names"])]
                m = measured_run(cmd, timeout=args.timeout, nice=args.nice)
                res["wall_s"] = m["wall_s"]
                n += 1
                if m["timed_out"] or m["rc"] != 0 or not os.path.exists(out):
                    res["status"] = "fail"
                    res["error"] = (f"pt2onnx timed out after {args.timeout}s" if m["timed_out"] else
                                    err_line(m["err"]) or f"pt2onnx exit status {m['rc']}")
                    res["stage"] = "convert"
                    continue
                ins = [(nm, os.path.join(d, "in", nm + ".npy")) for nm in c["input_names"]]
                od = os.path.join(scratch, "ort")
                shutil.rmtree(od, ignore_errors=True)
                ans = pool.run(out, ins, od, timeout=args.timeout)
                if not ans.get("ok"):
                    res["status"], res["stage"] = "fail", "ort"
                    res["error"] = "ONNX Runtime: " + first_line(ans.get("error", "failed"))
                    continue
                try:
                    exp = [np.load(os.path.join(d, "out", f"{j}.npy")) for j in range(c["n_outputs"])]
                    act = [np.load(o["path"]) for o in ans["outputs"]]
                    msg = compare(exp, act, c["rtol"], c["atol"], c["check_shape"], c["check_dtype"])
                except Exception as e:
                    msg = f"compare: {first_line(str(e))}"
                if msg:
                    res["status"], res["stage"], res["error"] = "fail", "compare", msg
                else:
                    res["status"] = "pass"
                if n % 100 == 0:
                    log(f"[run] {n} converted")
    finally:
        pool.close()
    for res in results.values():
        if res.get("error"):
            res["error"] = res["error"].replace(args.work + "/", "WORK/").replace(ROOT + "/", "")
    at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    write_json(os.path.join(args.work, "results.json"), {"cases": results, "tests": tests, "measured_at": at,
                                                           "test_source": args.test_source or ""})
    summary = summarize(results)
    write_summary(results, summary, at, args.test_source, args.summary)
    print_summary(summary)
    return 0


def cause(err):
    """An error line with its numbers, names in quotes and paths stripped:
    the failures' grouping key."""
    e = re.sub(r"WORK/\S+", "F", err or "")
    e = re.sub(r"code/__torch__/\S+", "CODE", e)
    # module and ONNX node names in parentheses, dtypes of ORT's type errors
    e = re.sub(r"\((/?[A-Za-z_][\w.]*(/[\w\[\].]*)*)\)", "(_)", e)
    e = re.sub(r"tensor\(\w+\)", "tensor(_)", e)
    e = re.sub(r"'[^']*'", "'_'", e)
    e = re.sub(r"\d+(\.\d+)?(e[-+]?\d+)?(?![A-Za-z\d])", "N", e)  # pt2onnx stays
    return e[:160]


def summarize(results):
    tot = {p: {"pass": 0, "fail": 0, "n/a": 0} for p in PATHS}
    causes = {p: {} for p in PATHS}
    na = {p: {} for p in PATHS}
    for res in results.values():
        p = res["path"]
        tot[p][res["status"]] += 1
        if res["status"] == "fail":
            k = cause(res.get("error", ""))
            causes[p][k] = causes[p].get(k, 0) + 1
        elif res["status"] == "n/a":
            k = cause(res.get("error", ""))
            na[p][k] = na[p].get(k, 0) + 1
    top = {p: sorted(causes[p].items(), key=lambda kv: (-kv[1], kv[0])) for p in PATHS}
    topna = {p: sorted(na[p].items(), key=lambda kv: (-kv[1], kv[0])) for p in PATHS}
    return {"totals": tot, "causes": top, "na": topna}


def write_summary(results, summary, at, source, path):
    """tests/conformance/torchsuite.json: totals, causes and one status line
    per case (test names, statuses, first error lines: no test code)."""
    import torch
    meta = {"test_file": source or "test/onnx/test_pytorch_onnx_onnxruntime.py",
            "torch": torch.__version__, "opset": OPSET,
            "updated_at": at}
    cases = {k: {x: v[x] for x in ("status", "error") if v.get(x)} for k, v in sorted(results.items())}
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write("{\n\"meta\": " + json.dumps(meta, sort_keys=True) + ",\n")
        f.write("\"totals\": " + json.dumps(summary["totals"], sort_keys=True) + ",\n")
        f.write("\"causes\": " + json.dumps({p: summary["causes"][p][:40] for p in PATHS}) + ",\n")
        f.write("\"not_applicable\": " + json.dumps({p: summary["na"][p][:20] for p in PATHS}) + ",\n")
        f.write("\"cases\": {\n")
        keys = list(cases)
        for i, k in enumerate(keys):
            f.write(json.dumps(k) + ": " + json.dumps(cases[k], sort_keys=True) + ("," if i + 1 < len(keys) else "") + "\n")
        f.write("}\n}\n")
    os.replace(tmp, path)


def print_summary(summary):
    for p in PATHS:
        t = summary["totals"][p]
        print(f"{p}: {t['pass']} pass, {t['fail']} fail, {t['n/a']} n/a "
              f"(judged {t['pass'] + t['fail']})")
        for k, c in summary["causes"][p][:15]:
            print(f"   {c:5d}  {k}")


def markdown(s, top=12):
    """docs/conformance.md's section on this set (report.py renders it from
    torchsuite.json): totals per path against issue 14's targets, and the
    failures' causes, most cases first."""
    if not s:
        return []
    L = ["## PyTorch 1.13's exporter test suite (issue 14)", "",
         "The models of torch 1.13.1's `test/onnx/test_pytorch_onnx_onnxruntime.py` at opset 13, made and judged by "
         "`tests/conformance/torchsuite.py` (one case per `run_test` call the test's opset-13 class exports: the trace "
         "class's models as `torch.jit.trace` archives, the script class's as `torch.jit.script` archives; the test's "
         "own skips apply; ONNX Runtime against torch's eager outputs at the test's rtol/atol, first input set only). "
         "A case is n/a where torch cannot make its archive (trace of a non-tensor argument, quantized or complex "
         "inputs) or the test raises before `run_test`; a dict argument is a failure (it has no `--input` form). "
         "The issue's totals (1379 traced, 1341 scripted) were counted by its filer another way and are not "
         "reproduced here; the targets are shown as the issue states them. "
         f"Measured {s['meta'].get('updated_at', '')} on {s['meta'].get('test_file', '')}; "
         "not part of `make conformance`.", "",
         "| archives | pass | fail | n/a | issue 14's target |", "|---|---|---|---|---|"]
    target = {"trace": "1300 of 1379", "script": "1250 of 1341"}
    for p in PATHS:
        t = s["totals"][p]
        L.append(f"| {p} | {t['pass']} | {t['fail']} | {t['n/a']} | {target[p]} |")
    L.append("")
    for p in PATHS:
        L += [f"First error lines of the {p} failures (numbers and quoted names stripped), most cases first:", ""]
        for k, c in s["causes"][p][:top]:
            L.append(f"- {c}: `{k.replace('`', chr(39))}`")
        L.append("")
    for p in PATHS:
        na = s.get("not_applicable", {}).get(p, [])
        if na:
            L.append(f"n/a on {p}: " + "; ".join(f"{c} `{k.replace('`', chr(39))}`" for k, c in na[:4]) + ".")
            L.append("")
    return L


def report(args):
    """The summary again: from WORK/results.json where a run left one
    (torchsuite.json rewritten, as run wrote it), else torchsuite.json."""
    w = read_json(os.path.join(args.work, "results.json"))
    if w:
        write_summary(w["cases"], summarize(w["cases"]), w.get("measured_at", ""), w.get("test_source"),
                      args.summary)
    s = read_json(args.summary)
    if not s:
        sys.exit(f"torchsuite: {args.summary} missing (run first)")
    print_summary({"totals": s["totals"], "causes": s["causes"], "na": s["not_applicable"]})
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("cmd", choices=("gen", "gen-child", "run", "report"))
    ap.add_argument("test_file", nargs="?")
    ap.add_argument("--work", default=DEFAULT_WORK)
    ap.add_argument("--only", help="tests whose name matches this regular expression")
    ap.add_argument("--path", choices=PATHS)
    ap.add_argument("--tests")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--resume", action="store_true", help="gen: keep the tests already generated")
    ap.add_argument("--timeout", type=int, default=120, help="seconds per test in torch, per conversion")
    ap.add_argument("--nice", type=int, default=10)
    ap.add_argument("--pt2onnx", default=os.environ.get("PT2ONNX", os.path.join(ROOT, "bin", "pt2onnx")))
    ap.add_argument("--summary", default=SUMMARY)
    ap.add_argument("--test-source", help="run: where the test file came from (recorded in the summary)")
    args = ap.parse_args()
    args.work = os.path.abspath(args.work)
    args.pt2onnx = os.path.abspath(args.pt2onnx)
    if args.cmd in ("gen", "gen-child") and not args.test_file:
        ap.error("gen needs the test file's path")
    if args.cmd == "gen-child":
        return gen_child(args)
    if args.cmd == "gen":
        return gen(args)
    if args.cmd == "run":
        return run(args)
    return report(args)


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""opinfo.py - the opinfo family: one traced model per (OpInfo, sample) of
torch 1.13's op_db (torch.testing._internal.common_methods_invocations), not
one model per operator.

Every OpInfo of op_db is taken, with one dtype (the first of
opmodels.PREFERRED_DTYPES it supports on the CPU: float32 where it can, as
torch's own ONNX op tests do), and every sample its sample_inputs gives for
that dtype (requires_grad False, generated after torch.manual_seed(0), so
that the k-th sample is the same in every process).  A sample becomes
Python source making the call the OpInfo's own tests make,
opinfo(sample.input, *sample.args, **sample.kwargs) (OpInfo.__call__, that
is its op: a torch function, a Tensor method or a lambda that reorders or
wraps the arguments; opmodels.source_for_sample with own_call): tensors are
the forward's arguments, everything else (numbers, lists, strings, slices,
a default-built torch.nn module) a constant in the source, so a constant of the traced graph; traced
with torch.jit.trace, judged by run.py on the trace path at opset 13 only
(common.FAMILY_OPSETS / FAMILY_PATHS) beside torch.onnx.export of the same
traced archive.

A sample with no model form (a complex, bfloat16, sparse or quantized input
pt2onnx cannot be given; an argument of a type that has no source form,
such as a module built with arguments) is recorded as not applicable with its reason, never as a
pass; so is one torch itself cannot run or trace (its eager call raises, as
a CUDA-only jiterator's does on the CPU; its output is complex or not
tensors).

The sample list is cached as WORK/opinfo/index-KEY.json, KEY a hash of this
file, opmodels.py and torch's version (generator_key): a model built under
another key is built again.  `opinfo.py --index FILE` (a child: it imports
torch) writes it.  The selection takes the first OPINFO_SAMPLES (common.py)
of each OpInfo by default (generate.py / run.py --opinfo-samples N; 0 takes them all: about
15000 models, too many for the shared machine this was measured on).
"""
import hashlib
import importlib.util
import os
import signal
import sys
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import GEN_VERSION, HERE, OPINFO_SAMPLES, PY, env_for_torch, first_line, log, measured_run, read_json, safe_name, write_json  # noqa: E402

FAMILY = "opinfo"
PREFIX = "opinfo_"
BUILD_TIMEOUT = 90  # seconds to build one model in torch (a signal: the batch goes on past it)


def _torch_version():
    """torch's version without importing it (its version.py, read as text)."""
    spec = importlib.util.find_spec("torch")
    if not spec or not spec.submodule_search_locations:
        return "none"
    p = os.path.join(list(spec.submodule_search_locations)[0], "version.py")
    try:
        with open(p, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    except OSError:
        return "none"


def generator_key():
    """The hash that names the sample list and marks every model built from
    it: this file, opmodels.py (rendering) and torch's version."""
    h = hashlib.sha256()
    for f in ("opinfo.py", "opmodels.py"):
        with open(os.path.join(HERE, f), "rb") as fh:
            h.update(fh.read())
    h.update(_torch_version().encode())
    return h.hexdigest()[:16]


def model_name(full, k):
    return f"{PREFIX}{safe_name(full)}_{k}"


# --- in a child that imports torch --------------------------------------------
def pick_dtype(torch, opmodels, o):
    try:
        dts = o.supported_dtypes("cpu")
    except Exception:
        return None
    return next((dt for dt in opmodels.PREFERRED_DTYPES if dt in dts), None)


def samples_of(torch, o, dt):
    """Every sample of o for dt, in op_db's order, seeded."""
    torch.manual_seed(0)
    return list(o.sample_inputs("cpu", dt, requires_grad=False))


def write_index(path):
    """The family's sample list: [{name, opinfo, dtype, k, na?}]; na is why
    the sample gets no model (the entry is still counted, as n/a)."""
    import torch
    torch.set_num_threads(1)
    import opmodels
    out, seen = [], set()
    for o in opmodels.op_db():
        full = opmodels.full_name(o)
        if full in seen:
            continue
        seen.add(full)
        dt = pick_dtype(torch, opmodels, o)
        if dt is None:
            out.append({"name": model_name(full, 0), "opinfo": full, "k": 0,
                        "na": f"no sample dtype pt2onnx takes (supports {sorted(map(str, o.supported_dtypes('cpu')))})"})
            continue
        dts = str(dt).replace("torch.", "")
        try:
            ss = samples_of(torch, o, dt)
        except Exception:
            out.append({"name": model_name(full, 0), "opinfo": full, "dtype": dts, "k": 0,
                        "na": "sample_inputs raised: " + first_line(traceback.format_exc())})
            continue
        for k, s in enumerate(ss):
            e = {"name": model_name(full, k), "opinfo": full, "dtype": dts, "k": k}
            try:
                opmodels.source_for_sample(o, s, own_call=True)
            except opmodels.Unrenderable as x:
                e["na"] = f"the sample has no model form: {x}"
            except Exception as x:  # a sparse tensor's clone, and the like
                e["na"] = f"the sample has no model form: {first_line(str(x))}"
            out.append(e)
    write_json(path, {"key": generator_key(), "torch": torch.__version__, "samples": out})


def index(work):
    """The sample list (cached under WORK/opinfo, built in a child when
    absent): [{name, opinfo, dtype, k, na?}]."""
    key = generator_key()
    path = os.path.join(work, "opinfo", f"index-{key}.json")
    d = read_json(path)
    if not d:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        log(f"[opinfo] listing op_db's samples into {os.path.relpath(path)}")
        r = measured_run([PY, os.path.abspath(__file__), "--index", path], timeout=1800, env=env_for_torch())
        d = read_json(path)
        if r["rc"] != 0 or not d:
            raise SystemExit(f"opinfo.py: listing op_db's samples failed: {first_line(r['err'])}")
    return d["samples"]


SAMPLES = OPINFO_SAMPLES


def select(samples, per_opinfo=None):
    """The first per_opinfo samples of each OpInfo (all when None or 0)."""
    if not per_opinfo:
        return list(samples)
    return [e for e in samples if e["k"] < per_opinfo]


def build(work, names, finish_model, nondeterministic, model_dir):
    """Builds the named models in this one process (generate.py's
    --opinfo-worker).  A file 'building' marks the model under way: if the
    process dies there, the parent records the crash."""
    import torch
    import opmodels
    key = generator_key()
    want = set(names)
    entries = [e for e in index(work) if e["name"] in want]
    byop = {}
    for e in entries:
        byop.setdefault(e["opinfo"], []).append(e)
    ops = {opmodels.full_name(o): o for o in opmodels.op_db()}
    for full, es in byop.items():
        o = ops[full]
        ss = None
        for e in es:
            mdir = model_dir(work, e["name"])
            os.makedirs(mdir, exist_ok=True)
            extra = {"opinfo": full, "sample": e["k"], "sample_dtype": e.get("dtype"), "opinfo_key": key,
                     "source_kind": "opinfo", "gen_version": GEN_VERSION}
            with open(os.path.join(mdir, "building"), "w") as f:
                f.write(str(os.getpid()))
            signal.signal(signal.SIGALRM, _too_slow)
            signal.alarm(BUILD_TIMEOUT)
            try:
                if ss is None:
                    ss = samples_of(torch, o, getattr(torch, e["dtype"]))
                src, ins = opmodels.source_for_sample(o, ss[e["k"]], own_call=True)
                m = opmodels.load_source(os.path.join(mdir, "model.py"), src)
                try:
                    compare = "shape" if nondeterministic(torch, m, ins) else "values"
                except Exception as x:
                    # generate.flatten / np_of: complex, bfloat16, not a tensor
                    if isinstance(x, TypeError) and str(x).startswith(("complex output", "bfloat16 output",
                                                                       "sparse output", "output of type")):
                        raise NotApplicable(f"output pt2onnx cannot give: {x}")
                    raise NotApplicable("torch's eager call fails on its own sample: "
                                        + first_line(traceback.format_exc()))
                torch.manual_seed(0)
                finish_model(mdir, e["name"], FAMILY, m, ins, None, None, True, compare, extra, script=False)
            except NotApplicable as x:
                write_json(os.path.join(mdir, "meta.json"),
                           dict(extra, name=e["name"], family=FAMILY, stage="failed", error=f"no model: {x}"))
            except Exception:
                write_json(os.path.join(mdir, "meta.json"),
                           dict(extra, name=e["name"], family=FAMILY, stage="failed",
                                error=first_line(traceback.format_exc())))
            signal.alarm(0)
            os.unlink(os.path.join(mdir, "building"))


class NotApplicable(Exception):
    pass


def _too_slow(signum, frame):
    raise NotApplicable(f"building it in torch took over {BUILD_TIMEOUT} s")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--index":
        write_index(sys.argv[2])
        sys.exit(0)
    print(__doc__, file=sys.stderr)
    sys.exit(2)

"""evaluate.py - judges one ONNX file against torch's outputs.

python3-onnx's checker (onnx_info.py, in a child: a malformed file must not
take the runner down), ONNX Runtime (ort_runner.js, one long-lived node
process, restarted when it dies), and the comparison with the .npy outputs
torch wrote (the only oracle: no expected value is written by hand).
"""
import json
import os
import select
import subprocess
import time

import numpy as np

from common import HERE, PY, RTOL, first_line, log

NODE = os.environ.get("NODE", "node")
# PT2ONNX_ORT_RUNNER=python: ort_runner.py (Python's onnxruntime, same
# protocol) for machines without node, such as the GPU machines
ORT_RUNNER = os.environ.get("PT2ONNX_ORT_RUNNER", "node")


# --- the checker ------------------------------------------------------------
def onnx_info(paths, timeout=600, check=None):
    """{path: info} for every path; a child that crashes on one file is
    retried one file at a time so that the others still get an answer.
    check: pt2onnx's check tool of the build under test, which judges the
    models above python3-onnx's opsets (1.12: 17; onnx_info.py says
    "checker_tool": "check" for those)."""
    out = {}
    todo = list(paths)
    env = dict(os.environ)
    if check:
        env["PT2ONNX_CHECK"] = check
    while todo:
        try:
            p = subprocess.run([PY, os.path.join(HERE, "onnx_info.py")] + todo,
                               capture_output=True, text=True, timeout=timeout, env=env)
            for line in p.stdout.splitlines():
                try:
                    r = json.loads(line)
                    out[r["path"]] = r
                except ValueError:
                    pass
            crashed = p.returncode != 0
            err = first_line(p.stderr) or f"exit status {p.returncode}"
        except subprocess.TimeoutExpired:
            crashed, err = True, f"checker timed out after {timeout}s"
        rest = [t for t in todo if t not in out]
        if not rest:
            break
        if crashed and len(rest) == 1:
            out[rest[0]] = {"path": rest[0], "checker": False, "error": f"checker crashed: {err}"}
            break
        if crashed:
            # the first unanswered path crashed it: record, go on with the rest
            out[rest[0]] = {"path": rest[0], "checker": False, "error": f"checker crashed: {err}"}
            todo = rest[1:]
        else:
            for t in rest:
                out[t] = {"path": t, "checker": False, "error": "no answer from the checker"}
            break
    return out


# --- ONNX Runtime -----------------------------------------------------------
class OrtPool:
    """One node process running tests/conformance/ort_runner.js; jobs are
    sent one at a time (a crash or a hang loses only that job)."""

    def __init__(self, timeout=600):
        self.p = None
        self.timeout = timeout
        self.n = 0

    def _start(self):
        env = dict(os.environ)
        env.setdefault("ORT_THREADS", "1")
        argv = ([PY, os.path.join(HERE, "ort_runner.py")] if ORT_RUNNER == "python"
                else [NODE, os.path.join(HERE, "ort_runner.js")])
        self.p = subprocess.Popen(argv,
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True, bufsize=1, env=env)

    def close(self):
        if self.p:
            try:
                self.p.stdin.close()
                self.p.wait(10)
            except Exception:
                self.p.kill()
            self.p = None

    def run(self, model, inputs, outdir, timeout=None):
        """inputs: [(name, npy_path)]. Returns the runner's answer."""
        if self.p is None or self.p.poll() is not None:
            self._start()
        self.n += 1
        job = {"id": self.n, "model": model, "outdir": outdir,
               "inputs": [{"name": n, "path": p} for n, p in inputs]}
        self.p.stdin.write(json.dumps(job) + "\n")
        self.p.stdin.flush()
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                self.p.kill()
                self.p.wait()
                self.p = None
                return {"ok": False, "error": f"ONNX Runtime timed out after {timeout or self.timeout}s"}
            r, _, _ = select.select([self.p.stdout], [], [], min(left, 1.0))
            if not r:
                continue
            line = self.p.stdout.readline()
            if not line:
                err = self.p.stderr.read()
                self.p.wait()
                rc = self.p.returncode
                self.p = None
                return {"ok": False, "error": f"ONNX Runtime crashed (status {rc}): {first_line(err)}"}
            try:
                ans = json.loads(line)
            except ValueError:
                continue
            if ans.get("id") == self.n:
                return ans


# --- comparison -------------------------------------------------------------
TIE_RTOL = 1e-5  # detections whose scores differ by less (relative) tie


def match_detections(expected, actual):
    """Detector outputs (boxes, labels, scores, then any per-detection
    extras: masks, keypoints): torch sorts detections by score, and two whose
    scores tie to TIE_RTOL may come in either order from a kernel that sums
    in another order (ORT's, ours).  Returns `actual` with the rows of each
    run of tied expected scores put in the order of the expected rows they
    equal (same label, every per-detection output within RTOL of the
    output's scale), or None when some row has no such partner: then the
    plain comparison reports the difference.  Nothing is reordered across
    scores that do not tie, and the counts must agree."""
    if len(expected) < 3 or len(expected) != len(actual):
        return None
    n = expected[2].shape[0] if expected[2].ndim == 1 else -1
    if n < 2 or any(a.shape[:1] != (n,) for a in actual) or \
            any(e.shape[:1] != (n,) for e in expected):
        return None
    es = expected[2].astype(np.float64)
    scale = max(float(np.abs(es).max()), 1e-30)
    scales = [max(float(np.abs(e.astype(np.float64)).max()), 1e-30) if e.dtype.kind == "f" else 0
              for e in expected]

    def same(i, j):
        for e, a, sc in zip(expected, actual, scales):
            if e.dtype.kind == "f":
                d = np.abs(e[i].astype(np.float64) - a[j].astype(np.float64))
                if d.size and float(d.max()) / sc > RTOL.get(str(e.dtype), 1e-4):
                    return False
            elif not np.array_equal(e[i], a[j]):
                return False
        return True
    perm = list(range(n))
    i = 0
    while i < n:
        k = i + 1
        while k < n and abs(es[k] - es[k - 1]) <= TIE_RTOL * scale:
            k += 1
        if k - i > 1:
            free = list(range(i, k))
            for r in range(i, k):
                j = next((j for j in free if same(r, j)), None)
                if j is None:
                    return None
                free.remove(j)
                perm[r] = j
        i = k
    return [a[perm] for a in actual]


def compare(expected, actual, mode="values"):
    """expected, actual: lists of numpy arrays (torch's, the ONNX model's).
    Returns (ok, message, worst relative error).  fp: max |a-b| / max |b|
    per tensor against RTOL by dtype; integers and bools: exact; shapes and
    dtypes: exact.  mode "shape": only shapes and dtypes (random ops);
    "detections": as "values" after tied detections are matched up
    (match_detections)."""
    if len(expected) != len(actual):
        return False, f"{len(actual)} outputs, torch has {len(expected)}", None
    if mode == "detections":
        if all(e.shape == a.shape and e.dtype == a.dtype for e, a in zip(expected, actual)):
            actual = match_detections(expected, actual) or actual
        mode = "values"
    worst = 0.0
    for k, (e, a) in enumerate(zip(expected, actual)):
        if e.dtype != a.dtype:
            return False, f"output {k}: dtype {a.dtype}, torch {e.dtype}", None
        if e.shape != a.shape:
            return False, f"output {k}: shape {list(a.shape)}, torch {list(e.shape)}", None
        if mode == "shape" or e.size == 0:
            continue
        if e.dtype.kind in "biu":
            bad = int(np.count_nonzero(e != a))
            if bad:
                return False, f"output {k}: {bad} of {e.size} elements differ (exact compare)", None
            continue
        ef = e.astype(np.float64)
        af = a.astype(np.float64)
        nan_e, nan_a = np.isnan(ef), np.isnan(af)
        if (nan_e != nan_a).any():
            return False, f"output {k}: NaN in {int((nan_e != nan_a).sum())} places where torch has none (or the reverse)", None
        fin = ~nan_e
        inf_e = np.isinf(ef) & fin
        if (ef[inf_e] != af[inf_e]).any() or np.isinf(af[fin & ~inf_e]).any():
            return False, f"output {k}: infinities differ", None
        m = fin & ~inf_e
        if not m.any():
            continue
        scale = float(np.abs(ef[m]).max())
        diff = float(np.abs(ef[m] - af[m]).max())
        rel = diff / scale if scale > 0 else diff
        worst = max(worst, rel)
        tol = RTOL.get(str(e.dtype), 1e-4)
        if rel > tol:
            return False, f"output {k}: max relative error {rel:.3g} > {tol:g}", rel
    return True, "", worst


def load_outputs(d, n):
    return [np.load(os.path.join(d, f"{i}.npy"), allow_pickle=False) for i in range(n)]


def run_sets(pool, onnx_path, mdir, meta, sets, scratch, timeout=600, arch=None):
    """Runs onnx_path under ONNX Runtime on each input set in sets (1, 2) and
    compares with torch's outputs (eager; or the archive's own in torch where
    it differs from eager, see generate.py). Returns {"1": {...}, "2": {...}}."""
    res = {}
    own = arch and meta.get("archives", {}).get(arch, {}).get("oracle") == "archive"
    names = [i["name"] for i in meta["inputs"]]
    for s in sets:
        ins = [(n, os.path.join(mdir, f"in{s}", f"{n}.npy")) for n in names]
        od = os.path.join(scratch, f"ort{s}")
        ans = pool.run(onnx_path, ins, od, timeout=timeout)
        r = {"ran": bool(ans.get("ok"))}
        if not ans.get("ok"):
            r["error"] = ans.get("error", "ONNX Runtime failed")
            r["match"] = False
        else:
            r["run_s"] = round(ans.get("run_s", 0), 4)
            try:
                exp = load_outputs(os.path.join(mdir, f"{arch}_out{s}" if own and s == 1 else f"out{s}"), meta["n_outputs"])
                act = [np.load(o["path"], allow_pickle=False) for o in ans["outputs"]]
                ok, msg, rel = compare(exp, act, meta.get("compare", "values"))
            except Exception as e:  # unreadable output: a failure, said so
                ok, msg, rel = False, f"compare: {first_line(str(e))}", None
            r["match"] = ok
            if msg:
                r["error"] = msg
            if rel is not None:
                r["max_rel"] = float(f"{rel:.3g}")
        res[str(s)] = r
        if os.path.isdir(od):
            for f in os.listdir(od):
                os.unlink(os.path.join(od, f))
            os.rmdir(od)
    return res

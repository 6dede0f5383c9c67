"""common.py - shared helpers of the conformance suite (no torch import here).

Paths, the work directory layout, .npy helpers, output comparison, and
measured subprocesses (wall time and peak RSS of one child, from wait4).
"""
import json
import os
import re
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
# PT2ONNX_PYTHON: another interpreter (the GPU machines' python3 has torch
# 2.11, onnx and onnxruntime; their /usr/bin/python3 has none)
PY = os.environ.get("PT2ONNX_PYTHON", "/usr/bin/python3")
# the opsets pt2onnx is judged at: torch 1.13's three and the newer ones up
# to the highest ONNX Runtime 1.30 runs (lib/common/version.h's
# PT2ONNX_OPSET_MAX)
OPSETS = (9, 13, 17, 18, 20, 23, 26)
# torch.onnx.export 1.13 stops at 17: above, its columns are not applicable
TORCH_OPSETS = tuple(v for v in OPSETS if v <= 17)
# python3-onnx 1.12's checker stops at 17: above, pt2onnx's own check (onnx
# 1.23.1's schemas) judges the model (onnx_info.py, checker_tool "check")
ONNX_CHECKER_MAX = 17
DEFAULT_WORK = os.path.join(ROOT, "build", "conformance")
RESULTS = os.path.join(HERE, "results.json")
STUB = os.path.join(HERE, "expecttest_stub")
# bump when the layout or the content of a model directory changes: a model
# built by an older generator is rebuilt
GEN_VERSION = 1

# the archives and the ways they are converted
#   trace:          pt2onnx --trace on the traced archive
#   script:traced   pt2onnx --script on the traced archive
#   script:scripted pt2onnx --script on the scripted archive
#   pt2             pt2onnx on torch.export's exported.pt2 (the unpt2 stage;
#                   the pt2 family only: other models have no such archive)
PATHS = ("trace", "script:traced", "script:scripted", "pt2")
# families judged on fewer paths or opsets than the others (the rest: every
# path its archives allow, every opset of OPSETS): opinfo is issue 14's
# measure, traced archives at opset 13 beside torch.onnx.export's
FAMILY_PATHS = {"opinfo": ("trace",)}
FAMILY_OPSETS = {"opinfo": (13,)}
# the opinfo family's samples per OpInfo by default (generate.py and run.py
# --opinfo-samples; 0 takes every one, about 15000 models): what
# results.json was measured on.  Not part of opinfo.py's generator key: a
# change adds or drops models, it does not rebuild those built
OPINFO_SAMPLES = 8
PATH_ARCHIVE = {"trace": "traced", "script:traced": "traced",
                "script:scripted": "scripted", "pt2": "exported"}


def archive_name(arch):
    """The file of an archive kind in a model's directory."""
    return "exported.pt2" if arch == "exported" else f"{arch}.pt"

# fp32 tolerance: max |a - b| / max |b| over a tensor (see README.md)
RTOL = {"float32": 1e-4, "float16": 1e-2, "float64": 1e-7, "bfloat16": 1e-2}

# .npy dtype -> the short names of pt2onnx's --input specs
SPEC_DTYPE = {"float32": "f32", "float64": "f64", "float16": "f16",
              "int64": "i64", "int32": "i32", "int16": "i16", "int8": "i8",
              "uint8": "u8", "bool": "bool", "bfloat16": "bf16"}


def check_binary(pt2onnx):
    """The check tool of the build under test: the one beside its pt2onnx
    ($PT2ONNX_CHECK wins, as in tests/helper.bash)."""
    return os.environ.get("PT2ONNX_CHECK") or os.path.join(os.path.dirname(os.path.abspath(pt2onnx)), "check")


def env_for_torch():
    """Environment for a child that imports torch: the expecttest stand-in
    on PYTHONPATH, no network for torch.hub, few threads (2 shared cores)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = STUB + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.setdefault("OMP_NUM_THREADS", "1")
    env.setdefault("MKL_NUM_THREADS", "1")
    env["TORCH_HOME"] = os.path.join(env.get("TMPDIR", "/tmp"), "pt2onnx-conformance-no-hub")
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def model_dir(work, name):
    return os.path.join(work, "models", safe_name(name))


def safe_name(name):
    return re.sub(r"[^A-Za-z0-9_.+-]", "_", name)


def read_json(path, default=None):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return default


def write_json(path, obj):
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w") as f:
        json.dump(obj, f, indent=1, sort_keys=True, default=str)
        f.write("\n")
    os.replace(tmp, path)


def first_line(text, limit=300):
    """The first meaningful line of an error text (skips blank lines and
    Python's 'Traceback' preamble: the last line of a traceback is kept)."""
    if not text:
        return ""
    lines = [l.strip() for l in str(text).splitlines() if l.strip()]
    if not lines:
        return ""
    if lines[0].startswith("Traceback"):
        # the exception line: the last line that starts "SomeError: ..."
        exc = [k for k, l in enumerate(lines) if re.match(r"^[\w.]+(Error|Exception|Exit|Interrupt)\b", l)]
        if exc:
            k = exc[-1]
            line = lines[k]
            if line.endswith(":") and k + 1 < len(lines):
                line += " " + lines[k + 1]
        else:
            line = lines[-1]
    else:
        line = lines[0]
    line = re.sub(r"\s+", " ", line)
    return line[:limit]


def error_line(text, limit=300):
    """The line of a tool's stderr that says what went wrong: the first line
    that mentions an error, else the first that is not a warning."""
    lines = [l.strip() for l in (text or "").splitlines() if l.strip()]
    if any(l.startswith("Traceback") for l in lines):
        return first_line("\n".join(lines[[l.startswith("Traceback") for l in lines].index(True):]), limit)
    for l in lines:
        if re.search(r"error|fatal|cannot|can't|unsupported|not supported|abort", l, re.I) and "Warning" not in l:
            return re.sub(r"\s+", " ", l)[:limit]
    for l in lines:
        if "Warning" not in l and not l.startswith("warnings.warn"):
            return re.sub(r"\s+", " ", l)[:limit]
    return first_line(text, limit)


def measured_run(cmd, timeout=None, env=None, cwd=None, stdin=None, nice=0):
    """Runs cmd as one child, returns dict(rc, wall_s, rss_kb, out, err,
    timed_out). Peak RSS is the child's own ru_maxrss (wait4), wall time is
    spawn to exit. The child leads its own process group so a timeout kills
    everything it started."""
    def pre():
        os.setsid()
        if nice:
            os.nice(nice)
    t0 = time.monotonic()
    try:
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             stdin=subprocess.DEVNULL if stdin is None else stdin,
                             env=env, cwd=cwd, preexec_fn=pre)
    except OSError as e:  # not executable, not there: the run's failure, said so
        return {"rc": 127, "wall_s": 0.0, "rss_kb": None, "cpu_s": None, "out": "",
                "err": f"cannot run {cmd[0]}: {e.strerror}", "timed_out": False}
    out_chunks, err_chunks = [], []
    import threading

    def pump(stream, sink):
        for chunk in iter(lambda: stream.read(65536), b""):
            if sum(len(c) for c in sink) < 1 << 20:
                sink.append(chunk)
        stream.close()
    th = [threading.Thread(target=pump, args=(p.stdout, out_chunks), daemon=True),
          threading.Thread(target=pump, args=(p.stderr, err_chunks), daemon=True)]
    for t in th:
        t.start()
    killed = []

    def kill():
        killed.append(True)
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    timer = threading.Timer(timeout, kill) if timeout else None
    if timer:
        timer.start()
    _, status, rusage = os.wait4(p.pid, 0)
    if timer:
        timer.cancel()
    timed_out = bool(killed)
    wall = time.monotonic() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    for t in th:
        t.join(5)
    return {"rc": p.returncode, "wall_s": round(wall, 3),
            "rss_kb": rusage.ru_maxrss if rusage else None,
            "cpu_s": round(rusage.ru_utime + rusage.ru_stime, 3) if rusage else None,
            "out": b"".join(out_chunks).decode("utf-8", "replace"),
            "err": b"".join(err_chunks).decode("utf-8", "replace"),
            "timed_out": timed_out}


def select(names, only=None, family=None, families=None):
    """Filters registry names by --only (comma-separated names or regexes)."""
    out = []
    pats = [re.compile(p.strip() + r"\Z") for p in only.split(",")] if only else None
    for n in names:
        if pats and not any(p.match(n) for p in pats):
            continue
        if family and families and families.get(n) not in family.split(","):
            continue
        out.append(n)
    return out


class Lock:
    """An exclusive, non-blocking lock on a file: two generators (or a
    generator and a runner) never work on the same model at once."""

    def __init__(self, path):
        self.path = path
        self.fd = None

    def acquire(self):
        import fcntl
        self.fd = os.open(self.path, os.O_CREAT | os.O_RDWR, 0o644)
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except OSError:
            os.close(self.fd)
            self.fd = None
            return False

    def release(self):
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def log(*a):
    print(*a, file=sys.stderr, flush=True)

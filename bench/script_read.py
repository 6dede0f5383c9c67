#!/usr/bin/python3
"""script_read.py - how fast `script` reads an archive, and that it leaves
the weights alone (issue 4's bars: resnet50 under 50 ms, a 2.5 GB archive
under 1 s with the weights untouched).

    /usr/bin/python3 bench/script_read.py build [--work build/script_read] [--big-gb 2.5]
    /usr/bin/python3 bench/script_read.py run   [--work build/script_read] [--bin bin]
                                                [--repeat 7] [--json FILE] [--no-big]

`build` makes, once (kept and reused), under --work:
  resnet50/traced.pt, resnet50/scripted.pt  torchvision resnet50, weights=None,
                                            torch.jit.trace / torch.jit.script
  big/traced.pt   a stack of square nn.Linear layers (ReLU between), traced,
                  with ~--big-gb GB of fp32 weights (never in git: --work
                  should be under build/ or /tmp; needs that much disk and
                  about twice that in RAM while torch builds it)

`run` times `BIN/script ARCHIVE -o /dev/null` (and the same with
--input x=f32[...]), each run one child: wall time from spawn to exit, peak
RSS and page faults from wait4's rusage, and the bytes the child read from
/proc/self/io (Linux adds a reaped child's I/O counters to its parent's, so
the difference of this process's counters across the wait is the child's;
rchar counts read()/pread() bytes whether or not they came from the page
cache, read_bytes what reached the disk).  The minimum wall time over
--repeat runs is the number (the minimum CPU time, user + system, is shown
too: on a shared machine it is the steadier one); rchar, RSS and faults are
the maximum over the runs.  A case passes when its time is under the bar,
rchar is under 1% of the weight bytes and the peak RSS under a quarter of
them: "weights untouched" (script does not mmap the archive, so every byte
it looks at goes through read/pread and shows in rchar).  Exit status 1
when a case misses its bar or fails.
"""
import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PY = "/usr/bin/python3"

RESNET_MS = 50.0
BIG_MS = 1000.0


def torch_env():
    env = dict(os.environ)
    env.setdefault("OMP_NUM_THREADS", "1")
    env.setdefault("MKL_NUM_THREADS", "1")
    env["TORCH_HOME"] = os.path.join(env.get("TMPDIR", "/tmp"), "pt2onnx-no-hub")
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


# --- in a child: build the archives ------------------------------------------
def build_resnet(d):
    import torch
    import torchvision
    torch.manual_seed(0)
    m = torchvision.models.resnet50(weights=None).eval()
    x = torch.randn(1, 3, 224, 224)
    os.makedirs(d, exist_ok=True)
    with torch.no_grad():
        tr = torch.jit.trace(m, (x,), check_trace=False)
    torch.jit.save(tr, os.path.join(d, "traced.pt.tmp"))
    os.replace(os.path.join(d, "traced.pt.tmp"), os.path.join(d, "traced.pt"))
    sc = torch.jit.script(m)
    torch.jit.save(sc, os.path.join(d, "scripted.pt.tmp"))
    os.replace(os.path.join(d, "scripted.pt.tmp"), os.path.join(d, "scripted.pt"))
    wb = sum(t.numel() * t.element_size() for t in m.state_dict().values())
    write_meta(d, {"weight_bytes": wb, "input": "x=f32[1,3,224,224]"})


def build_big(d, gb):
    import torch
    torch.manual_seed(0)
    layers = 10
    # layers x (n*n + n) fp32 values = gb x 1e9 bytes
    n = int(((gb * 1e9 / 4) / layers) ** 0.5)
    mods = []
    for i in range(layers):
        lin = torch.nn.Linear(n, n)
        with torch.no_grad():  # cheaper than kaiming init; values are random either way
            lin.weight.uniform_(-1.0 / n ** 0.5, 1.0 / n ** 0.5)
            lin.bias.uniform_(-1.0 / n ** 0.5, 1.0 / n ** 0.5)
        mods += [lin, torch.nn.ReLU()]
    m = torch.nn.Sequential(*mods).eval()
    os.makedirs(d, exist_ok=True)
    with torch.no_grad():
        tr = torch.jit.trace(m, (torch.randn(1, n),), check_trace=False)
    torch.jit.save(tr, os.path.join(d, "traced.pt.tmp"))
    os.replace(os.path.join(d, "traced.pt.tmp"), os.path.join(d, "traced.pt"))
    wb = sum(t.numel() * t.element_size() for t in m.state_dict().values())
    write_meta(d, {"weight_bytes": wb, "input": f"f32[1,{n}]", "layers": layers, "n": n})


def write_meta(d, meta):
    meta["archives"] = {a: os.path.getsize(os.path.join(d, a))
                        for a in ("traced.pt", "scripted.pt") if os.path.exists(os.path.join(d, a))}
    with open(os.path.join(d, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)


def cmd_build(a):
    work = os.path.abspath(a.work)
    for name, done in (("resnet50", "scripted.pt"), ("big", "traced.pt")):
        d = os.path.join(work, name)
        if os.path.exists(os.path.join(d, "meta.json")) and os.path.exists(os.path.join(d, done)):
            print(f"{name}: kept ({d})")
            continue
        if name == "big" and a.no_big:
            continue
        t0 = time.time()
        arg = "" if name == "resnet50" else f", {a.big_gb!r}"
        code = (f"import sys; sys.path.insert(0, {HERE!r}); import script_read as s; "
                f"s.build_{'resnet' if name == 'resnet50' else 'big'}({d!r}{arg})")
        r = subprocess.run([PY, "-c", code], env=torch_env())
        if r.returncode:
            sys.exit(f"script_read.py: building {name} failed (exit {r.returncode})")
        print(f"{name}: built in {time.time() - t0:.0f} s ({d})")


# --- measuring ----------------------------------------------------------------
def proc_io():
    with open("/proc/self/io") as f:
        return {k: int(v) for k, v in (line.split(":") for line in f)}


def one_run(cmd):
    """Runs cmd once: (wall seconds, rusage, io delta, exit status, stderr)."""
    io0 = proc_io()
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    p.stderr.close()
    io1 = proc_io()
    io = {k: io1[k] - io0[k] for k in ("rchar", "read_bytes", "syscr")}
    return wall, ru, io, p.returncode, err.decode(errors="replace")


def measure(cmd, repeat):
    walls, cpus, rss, maj, mnr, rchar, rbytes, syscr = [], [], [], [], [], [], [], []
    for _ in range(repeat):
        wall, ru, io, rc, err = one_run(cmd)
        if rc:
            return {"ok": False, "exit": rc, "error": err.strip().splitlines()[-1] if err.strip() else ""}
        walls.append(wall)
        cpus.append(ru.ru_utime + ru.ru_stime)
        rss.append(ru.ru_maxrss)
        maj.append(ru.ru_majflt)
        mnr.append(ru.ru_minflt)
        rchar.append(io["rchar"])
        rbytes.append(io["read_bytes"])
        syscr.append(io["syscr"])
    walls.sort()
    return {"ok": True, "min_ms": round(walls[0] * 1e3, 2), "median_ms": round(walls[len(walls) // 2] * 1e3, 2),
            "min_cpu_ms": round(min(cpus) * 1e3, 2),
            "runs": repeat, "max_rss_kb": max(rss), "major_faults": max(maj), "minor_faults": max(mnr),
            "rchar": max(rchar), "read_bytes": max(rbytes), "read_calls": max(syscr)}


def cmd_run(a):
    work = os.path.abspath(a.work)
    script = os.path.join(os.path.abspath(a.bin), "script")
    if not os.access(script, os.X_OK):
        sys.exit(f"script_read.py: {script}: not built")
    cases = [("resnet50", "traced.pt", RESNET_MS), ("resnet50", "scripted.pt", RESNET_MS)]
    if not a.no_big:
        cases.append(("big", "traced.pt", BIG_MS))
    results, ok = [], True
    for name, arch, bar in cases:
        path = os.path.join(work, name, arch)
        try:
            with open(os.path.join(work, name, "meta.json")) as f:
                meta = json.load(f)
        except OSError:
            sys.exit(f"script_read.py: {path}: not built (run `build` first)")
        for typed in (False, True):
            cmd = [script, path, "-o", "/dev/null"]
            if typed:
                cmd[2:2] = ["--input", meta["input"]]
            r = measure(cmd, a.repeat)
            r.update({"model": name, "archive": arch, "typed": typed, "bar_ms": bar,
                      "archive_bytes": os.path.getsize(path), "weight_bytes": meta["weight_bytes"]})
            if r["ok"]:
                r["pass"] = r["min_ms"] < bar and r["rchar"] < meta["weight_bytes"] / 100 \
                    and r["max_rss_kb"] * 1024 < meta["weight_bytes"] / 4
            else:
                r["pass"] = False
            ok &= r["pass"]
            results.append(r)
            show(r)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"time": time.strftime("%Y-%m-%dT%H:%M:%S"), "results": results}, f, indent=1)
    return 0 if ok else 1


def show(r):
    what = f"{r['model']}/{r['archive']}{' --input' if r['typed'] else ''}"
    if not r["ok"]:
        print(f"{what:34} FAILED exit {r['exit']}: {r['error']}")
        return
    mb = 1 << 20
    print(f"{what:34} min {r['min_ms']:8.1f} ms (median {r['median_ms']:.1f}, cpu {r['min_cpu_ms']:.1f}, bar {r['bar_ms']:.0f})  "
          f"read {r['rchar'] / mb:7.2f} MiB in {r['read_calls']} calls ({r['read_bytes'] / mb:.2f} MiB from disk)  "
          f"rss {r['max_rss_kb'] / 1024:6.1f} MiB  faults {r['major_faults']}/{r['minor_faults']}  "
          f"weights {r['weight_bytes'] / mb:8.1f} MiB  {'ok' if r['pass'] else 'MISSED'}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build")
    b.add_argument("--work", default=os.path.join(ROOT, "build", "script_read"))
    b.add_argument("--big-gb", type=float, default=2.5)
    b.add_argument("--no-big", action="store_true")
    r = sub.add_parser("run")
    r.add_argument("--work", default=os.path.join(ROOT, "build", "script_read"))
    r.add_argument("--bin", default=os.path.join(ROOT, "bin"))
    r.add_argument("--repeat", type=int, default=7)
    r.add_argument("--json")
    r.add_argument("--no-big", action="store_true")
    a = ap.parse_args()
    if a.cmd == "build":
        cmd_build(a)
        return 0
    return cmd_run(a)


if __name__ == "__main__":
    sys.exit(main())

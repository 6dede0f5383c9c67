#!/usr/bin/python3
"""trace_bench.py - the speed bar of issue 6: `trace` on the CPU against
torch 1.13's own eager forward, same machine, same thread count, same run.

    /usr/bin/python3 bench/trace_bench.py [--models resnet50,gpt2] [--threads 1,2]
                                          [--runs 7] [--bin build/bin]
                                          [--work build/trace_bench] [--json FILE]

Per model (built once into WORK/NAME/: torch.jit.trace + torch.jit.save of
the model with random weights, weights=None for torchvision, and its input
as .npy):

  torch   the eager nn.Module's forward in this process, under no_grad,
          torch.set_num_threads(T), after two warm-up calls: wall time of
          one forward (and its process CPU time);
  trace   `trace ARCHIVE --input NAME=in.npy --device cpu --threads T
          -o -` (stdout to /dev/null) as one child: wall time spawn to exit (and the
          child's user+sys CPU time from wait4);
  setup   the same command with --list-missing: reading the archive and
          compiling it, no run; trace - setup estimates the run part alone
          (trace itself does not report it).

Runs alternate (torch, trace, setup, torch, trace, ...) so that the load of
a shared machine hits both alike.  Reported: min and median of each, and
the ratio of the mins (trace / torch; the bar is 1.5 for resnet50).
Timings on a shared machine are noisy: read the mins, and the CPU times.
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def build_resnet50(d):
    import torch
    import torchvision
    torch.manual_seed(0)
    m = torchvision.models.resnet50(weights=None).eval()
    x = torch.randn(1, 3, 224, 224)
    return m, [("x", x)]


def build_gpt2(d):
    import torch
    sys.path.insert(0, os.path.join(ROOT, "tests", "conformance"))
    import models as Z
    torch.manual_seed(0)
    b = Z.bench_gpt()()
    return b.module.eval(), list(b.inputs1)


BUILDERS = {"resnet50": build_resnet50, "gpt2": build_gpt2}


def prepare(work, name):
    """The eager module, its inputs and the archive (built once)."""
    import numpy as np
    import torch
    d = os.path.join(work, name)
    os.makedirs(d, exist_ok=True)
    m, inputs = BUILDERS[name](d)
    arch = os.path.join(d, "traced.pt")
    if not os.path.exists(arch):
        with torch.no_grad():
            tr = torch.jit.trace(m, tuple(t for _, t in inputs), check_trace=False)
        torch.jit.save(tr, arch + ".tmp")
        os.replace(arch + ".tmp", arch)
    specs = []
    for n, t in inputs:
        p = os.path.join(d, f"{n}.npy")
        np.save(p, t.numpy())
        specs.append(f"{n}={p}")
    return m, inputs, arch, specs


def child(cmd):
    """Wall time and user+sys CPU time of one child; raises on failure."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    err = p.stderr.read().decode(errors="replace")
    p.stderr.close()
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: exit {p.returncode}: {err.strip()[:300]}")
    return wall, ru.ru_utime + ru.ru_stime


def stats(xs):
    return {"min": min(xs), "median": statistics.median(xs)}


def bench(args, name, threads):
    import torch
    m, inputs, arch, specs = prepare(args.work, name)
    tbin = os.path.join(args.bin, "trace")
    # "-o -" into a DEVNULL stdout: `-o /dev/null` goes through the atomic
    # temp-file-and-rename writer, which as root replaces /dev/null itself
    cmd = [tbin, arch, "--device", "cpu", "--threads", str(threads), "-o", "-"]
    for s in specs:
        cmd += ["--input", s]
    setup_cmd = cmd + ["--list-missing"]
    torch.set_num_threads(threads)
    xs = tuple(t for _, t in inputs)
    res = {"torch": [], "torch_cpu": [], "trace": [], "trace_cpu": [], "setup": []}
    with torch.no_grad():
        for _ in range(2):
            m(*xs)
        child(cmd)  # warm the page cache
        for _ in range(args.runs):
            c0 = time.process_time()
            t0 = time.perf_counter()
            m(*xs)
            res["torch"].append(time.perf_counter() - t0)
            res["torch_cpu"].append(time.process_time() - c0)
            w, c = child(cmd)
            res["trace"].append(w)
            res["trace_cpu"].append(c)
            res["setup"].append(child(setup_cmd)[0])
    out = {k: stats(v) for k, v in res.items()}
    out["run_part_min"] = max(out["trace"]["min"] - out["setup"]["min"], 0.0)
    out["ratio"] = out["trace"]["min"] / out["torch"]["min"]
    out["ratio_run_part"] = out["run_part_min"] / out["torch"]["min"]
    out["threads"] = threads
    out["runs"] = args.runs
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", default="resnet50,gpt2")
    ap.add_argument("--threads", default="1,2", help="comma-separated thread counts")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    ap.add_argument("--work", default=os.path.join(ROOT, "build", "trace_bench"))
    ap.add_argument("--json", help="also write the results there")
    args = ap.parse_args()
    if not os.access(os.path.join(args.bin, "trace"), os.X_OK):
        sys.exit(f"trace_bench.py: no {args.bin}/trace (make first, or --bin)")
    results = []
    print(f"{'model':10} {'T':>2} {'torch min':>10} {'med':>8} {'trace min':>10} {'med':>8} "
          f"{'setup':>7} {'run part':>9} {'ratio':>6} {'run ratio':>9} {'cpu torch':>9} {'cpu trace':>9}")
    for name in args.models.split(","):
        for t in (int(x) for x in args.threads.split(",")):
            try:
                r = bench(args, name, t)
            except (RuntimeError, OSError) as e:
                print(f"{name:10} {t:>2} failed: {e}")
                results.append({"model": name, "threads": t, "error": str(e)})
                continue
            r["model"] = name
            results.append(r)
            print(f"{name:10} {t:>2} {r['torch']['min']*1e3:9.1f}ms {r['torch']['median']*1e3:7.1f} "
                  f"{r['trace']['min']*1e3:9.1f}ms {r['trace']['median']*1e3:7.1f} "
                  f"{r['setup']['min']*1e3:7.1f} {r['run_part_min']*1e3:8.1f}ms "
                  f"{r['ratio']:6.2f} {r['ratio_run_part']:9.2f} "
                  f"{r['torch_cpu']['min']*1e3:8.1f}ms {r['trace_cpu']['min']*1e3:8.1f}ms", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"results": results, "load": os.getloadavg(),
                       "cpus": os.cpu_count()}, f, indent=1)


if __name__ == "__main__":
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    main()

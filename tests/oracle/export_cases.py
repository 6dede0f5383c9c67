#!/usr/bin/python3
"""export_cases.py - shared oracle for the script | lower | fold | emit tests
(tests/404, tests/406-408 and others): saves a model built by torch with its
inputs and torch's outputs, and compares ONNX Runtime's outputs with them.

As a module (from a test's build script, with this directory on sys.path):

  save(models, name, mode)
      models: {name: (module, [(input name, tensor, spec), ...])}; mode
      'script' or 'trace'.  Writes, in the current directory, NAME.pt,
      INPUT.npy for each input, NAME.in.txt (one INPUT=SPEC a line) and
      torch's outputs want_NAME_K.npy.

As a command:

  export_cases.py compare NAME OUTDIR ONNX
      ONNX's graph outputs, in order, read from OUTDIR/OUTPUT.npy, against
      want_NAME_K.npy: as many, shapes equal, integers and bools exactly,
      floats to max |got - want| / max |want| <= 1e-4.  A failed assertion
      (exit 1) names the output otherwise.

  export_cases.py runs [--checker]      (jobs on stdin, one a line)
      a line: DIR/NAME ONNX [INPUT=FILE ...]: ONNX run in ONNX Runtime on
      those inputs (every job in one node process: ort_jobs.py) and
      compared as `compare` with DIR/want_NAME_K.npy.  INPUT?=FILE: fed only
      when ONNX has that input; any other input ONNX lacks fails the job.
      The outputs go to DIR/out-NAME-ONNX/.
      --checker: each ONNX is first checked by onnx.checker (onnx_check.py,
      once per file).
      Prints "fail ONNX (DIR/NAME): why" for each failed job (the checker
      and a missing input: "fail ONNX: why"), exit status 1 if any.
"""
import glob
import os
import sys

import numpy as np


def save(models, name, mode):
    import torch

    m, ins = models[name]
    m.eval()
    args = tuple(t for _, t, _ in ins)
    with torch.no_grad():
        if mode == "script":
            sm = torch.jit.script(m)
        else:
            sm = torch.jit.trace(m, args, check_trace=False)
        sm.save(f"{name}.pt")
        out = m(*args)
    outs = list(out) if isinstance(out, tuple) else [out]
    for k, o in enumerate(outs):
        np.save(f"want_{name}_{k}.npy", o.numpy())
    with open(f"{name}.in.txt", "w") as f:
        for n, t, spec in ins:
            np.save(f"{n}.npy", t.numpy())
            f.write(f"{n}={spec}\n")


def compare(name, out, path):
    import onnx

    names = [o.name for o in onnx.load(path).graph.output]
    compare_files(name, names, [f"{out}/{n}.npy" for n in names])


def compare_files(name, names, gots):
    """the outputs NAMES, read from the files GOTS, against torch's
    want_NAME_K.npy (NAME may start with a directory)"""
    d, base = os.path.split(name)
    wants = sorted(glob.glob(os.path.join(d, f"want_{base}_*.npy")),
                   key=lambda p: int(p.rsplit("_", 1)[1][:-4]))
    assert len(names) == len(wants), (names, wants)
    for n, gf, w in zip(names, gots, wants):
        g, w = np.load(gf), np.load(w)
        assert g.shape == w.shape, (n, g.shape, w.shape)
        if w.dtype.kind in "biu":
            assert (g == w).all(), n
            continue
        scale = max(float(np.max(np.abs(w))), 1e-30)
        err = float(np.max(np.abs(g.astype(np.float64) - w))) / scale
        assert err <= 1e-4, f"{n}: relative error {err:.3g}"


def runs(lines, checker):
    import onnx
    import onnx_check
    import ort_jobs

    todo, jobs, failed, checked = [], [], 0, {}
    for line in lines:
        name, path, *feeds = line.split()
        if checker and path not in checked:
            checked[path] = onnx_check.main([path]) == 0
            failed += not checked[path]
        if checker and not checked[path]:
            print(f"fail {path}: onnx.checker")
            continue
        graph = onnx.load(path).graph
        have = [i.name for i in graph.input]
        ins, bad = [], []
        for f in feeds:
            n, p = f.split("=", 1)
            if n.endswith("?"):
                n = n[:-1]
                if n not in have:
                    continue
            elif n not in have:
                bad.append(n)
            ins.append((n, p))
        if bad:
            print(f"fail {path}: no input {', '.join(bad)}")
            failed += 1
            continue
        todo.append((name, path, [o.name for o in graph.output]))
        d, base = os.path.split(name)
        jobs.append((path, os.path.join(d, f"out-{base}-{os.path.basename(path)}"), ins))
    for (name, path, names), a in zip(todo, ort_jobs.run(jobs)):
        try:
            assert a["ok"], f"ort_run: {a['error']}"
            assert [o["name"] for o in a["outputs"]] == names, a["outputs"]
            compare_files(name, names, [o["path"] for o in a["outputs"]])
        except AssertionError as e:
            print(f"fail {path} ({name}): {e}")
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) in (2, 3) and sys.argv[1] == "runs" and sys.argv[2:] in ([], ["--checker"]):
        sys.exit(runs([l for l in sys.stdin.read().splitlines() if l.strip()],
                      sys.argv[2:] == ["--checker"]))
    if len(sys.argv) != 5 or sys.argv[1] != "compare":
        print("usage: export_cases.py compare NAME OUTDIR ONNX | runs [--checker]", file=sys.stderr)
        sys.exit(2)
    compare(*sys.argv[2:5])

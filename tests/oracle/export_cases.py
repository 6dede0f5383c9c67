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
"""
import glob
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
    wants = sorted(glob.glob(f"want_{name}_*.npy"),
                   key=lambda p: int(p.rsplit("_", 1)[1][:-4]))
    assert len(names) == len(wants), (names, wants)
    for n, w in zip(names, wants):
        g, w = np.load(f"{out}/{n}.npy"), np.load(w)
        assert g.shape == w.shape, (n, g.shape, w.shape)
        if w.dtype.kind in "biu":
            assert (g == w).all(), n
            continue
        scale = max(float(np.max(np.abs(w))), 1e-30)
        err = float(np.max(np.abs(g.astype(np.float64) - w))) / scale
        assert err <= 1e-4, f"{n}: relative error {err:.3g}"


if __name__ == "__main__":
    if len(sys.argv) != 5 or sys.argv[1] != "compare":
        print("usage: export_cases.py compare NAME OUTDIR ONNX", file=sys.stderr)
        sys.exit(2)
    compare(*sys.argv[2:5])

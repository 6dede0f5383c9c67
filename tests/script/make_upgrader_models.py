#!/usr/bin/python3
"""make_upgrader_models.py - archives for the operator upgrader tests
(tests/203-script-upgraders.bats), with torch's own outputs as the oracle.

torch 1.13 writes the current archive version (10), but torch.jit.load
applies its operator upgraders to any archive whose `version` record says
older.  So each model is scripted and saved, then copied with only the
version record changed, and each copy is loaded and run by torch:

  make_upgrader_models.py build OUTDIR
      For each case NAME, in OUTDIR:
        NAME.old.pt   version = the last one the upgrader applies to
        NAME.edge.pt  version = the first with the current meaning (absent
                      when that is the current version)
        NAME.cur.pt   as torch.jit.save wrote it
        NAME.in.txt   one INPUT=SPEC a line (script's --input)
        NAME.INPUT.npy  the inputs
        want_NAME.VARIANT_K.npy  torch.jit.load(NAME.VARIANT.pt)'s outputs
      and checks that the old archive really means something else to torch
      (another result, dtype or an error) for the cases where the upgrader
      changes the meaning: that proves the version record was read.
      linspace_nosteps.old.pt, logspace_nosteps.old.pt (with their
      .in.txt, inputs and outputs): linspace/logspace without steps, as old
      archives print them, which torch 1.13 reads only below version 8/9.

  make_upgrader_models.py compare WANT_PREFIX OUTDIR ONNX
      ONNX's outputs (OUTDIR/OUTPUT.npy, ONNX Runtime's) against
      WANT_PREFIX_K.npy: same count, shapes and dtypes; integers exactly,
      floats to 1e-5 relative.
"""
import glob
import sys
import zipfile

import numpy as np


def rewrite(src, dst, version, subs=()):
    """Copies the zip src to dst, its `version` record replaced (and the
    code's text substituted by subs)."""
    n = 0
    with zipfile.ZipFile(src) as zi, zipfile.ZipFile(dst, "w") as zo:
        for info in zi.infolist():
            data = zi.read(info.filename)
            if info.filename.endswith("/version"):
                data = f"{version}\n".encode()
                n += 1
            if info.filename.endswith(".py"):
                for a, b in subs:
                    data = data.replace(a.encode(), b.encode())
            zo.writestr(info, data)
    assert n == 1, f"{src}: {n} version records"


def save_inputs(name, ins):
    """NAME.in.txt (INPUT=SPEC a line) and NAME.INPUT.npy"""
    with open(f"{name}.in.txt", "w") as f:
        for t, spec in ins:
            k = spec.split("=")[0]
            np.save(f"{name}.{k}.npy", t.numpy())
            f.write(spec + "\n")


def build(out):
    import os
    import torch
    import torch.nn.functional as F
    from typing import Tuple

    os.chdir(out)

    class Div(torch.nn.Module):
        def forward(self, a, b, x) -> Tuple[torch.Tensor, torch.Tensor,
                                             torch.Tensor, torch.Tensor,
                                             torch.Tensor, torch.Tensor]:
            return (a / b, torch.div(a, 3), torch.div(a, 2.5), x / b,
                    torch.div(a, b, rounding_mode="floor"), a.div(b) * 2)

    class DivInplace(torch.nn.Module):
        def forward(self, a, b, x):
            c = a.clone()
            c.div_(b)
            d = x.clone()
            d.div_(2)
            return c, d

    class DivDyn(torch.nn.Module):
        """dtypes that script's type propagation does not know"""
        def forward(self, a, b, x):
            return a.long() / b.long(), x.long() / 2, x.double() / b.long()

    class Full(torch.nn.Module):
        def forward(self, x):
            return (torch.full([2, 3], 7), torch.full(x.size(), 3),
                    torch.full([2], 2, dtype=torch.int64),
                    torch.full([2], 1.5), x + torch.full([2, 3], 2))

    class Linspace(torch.nn.Module):
        def forward(self, x):
            return x[0] + torch.linspace(-1, 1, 3), torch.linspace(0, 1, 5)

    class Logspace(torch.nn.Module):
        def forward(self, x):
            return x[0] + torch.logspace(0, 2, 4)

    class Gelu(torch.nn.Module):
        def forward(self, x):
            return F.gelu(x), F.gelu(x * 2.0)

    a = torch.tensor([7, -7, 5, -3, 9, -11])
    b = torch.tensor([2, 2, -2, 2, -4, 3])
    x = torch.tensor([[1.5, -2.25, 3.0], [-0.5, 4.75, -6.0]])
    inputs = {"a": (a, "a=i64[6]"), "b": (b, "b=i64[6]"),
              "x": (x.reshape(6), "x=f32[6]"), "x23": (x, "x=f32[2,3]")}
    # name: (module, inputs, last version upgraded, upgrader changes meaning)
    cases = {
        "div": (Div(), ["a", "b", "x"], 3, True),
        "div_inplace": (DivInplace(), ["a", "b", "x"], 3, True),
        "div_dyn": (DivDyn(), ["a", "b", "x"], 3, True),
        "full": (Full(), ["x23"], 4, True),
        "linspace": (Linspace(), ["x"], 7, False),
        "logspace": (Logspace(), ["x"], 8, False),
        "gelu": (Gelu(), ["x"], 9, False),
    }
    for name, (m, ins, last, changes) in cases.items():
        args = [inputs[k][0] for k in ins]
        torch.jit.script(m).save(f"{name}.cur.pt")
        save_inputs(name, [inputs[k] for k in ins])
        rewrite(f"{name}.cur.pt", f"{name}.old.pt", last)
        variants = ["old", "cur"]
        if last + 1 < 10:
            rewrite(f"{name}.cur.pt", f"{name}.edge.pt", last + 1)
            variants.append("edge")
        res = {}
        for v in variants:
            try:
                out = torch.jit.load(f"{name}.{v}.pt")(*args)
            except Exception as e:  # the current meaning may raise
                res[v] = f"raises {type(e).__name__}"
                continue
            out = list(out) if isinstance(out, tuple) else [out]
            res[v] = [o.numpy() for o in out]
            for k, o in enumerate(out):
                np.save(f"want_{name}.{v}_{k}.npy", o.numpy())
        old, cur = res["old"], res["cur"]
        assert not isinstance(old, str), f"{name}: the old archive {old}"
        same = not isinstance(cur, str) and all(
            o.dtype == c.dtype and o.shape == c.shape and np.array_equal(o, c)
            for o, c in zip(old, cur))
        assert same != changes, \
            f"{name}: old and current archives {'agree' if same else 'differ'}"
        print(f"{name}: version {last} {'differs' if changes else 'agrees'}")
    # linspace/logspace without steps: only an old archive says so
    for op, last in (("linspace", 7), ("logspace", 8)):
        name = f"{op}_nosteps"
        src = f"{op}.cur.pt"
        call = "torch.linspace(0, 1, 5)" if op == "linspace" else \
            "torch.logspace(0, 2, 4)"
        rewrite(src, f"{name}.old.pt", last, [(call, call[:-4] + ")")])
        out = torch.jit.load(f"{name}.old.pt")(inputs["x"][0])
        out = list(out) if isinstance(out, tuple) else [out]
        for k, o in enumerate(out):
            np.save(f"want_{name}.old_{k}.npy", o.numpy())
        save_inputs(name, [inputs["x"]])
        rewrite(src, f"{name}.cur.pt", 10, [(call, call[:-4] + ")")])
        try:
            torch.jit.load(f"{name}.cur.pt")
            raise AssertionError(f"{name}: torch reads it at version 10")
        except RuntimeError:
            pass
        print(f"{name}: version {last}, {out[-1].shape[-1]} steps")


def compare(prefix, out, path):
    import onnx

    names = [o.name for o in onnx.load(path).graph.output]
    wants = sorted(glob.glob(f"{prefix}_*.npy"),
                   key=lambda p: int(p.rsplit("_", 1)[1][:-4]))
    assert wants, f"no {prefix}_*.npy"
    assert len(names) == len(wants), (names, wants)
    for n, w in zip(names, wants):
        g, w = np.load(f"{out}/{n}.npy"), np.load(w)
        assert g.dtype == w.dtype, f"{n}: dtype {g.dtype}, torch's {w.dtype}"
        assert g.shape == w.shape, f"{n}: shape {g.shape}, torch's {w.shape}"
        if w.dtype.kind in "biu":
            assert (g == w).all(), f"{n}: {g} != torch's {w}"
            continue
        scale = max(float(np.max(np.abs(w))), 1e-30)
        err = float(np.max(np.abs(g.astype(np.float64) - w))) / scale
        assert err <= 1e-5, f"{n}: relative error {err:.3g}"


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "build":
        build(sys.argv[2])
    elif len(sys.argv) == 5 and sys.argv[1] == "compare":
        compare(*sys.argv[2:5])
    else:
        print("usage: make_upgrader_models.py build OUTDIR | "
              "compare WANT_PREFIX OUTDIR ONNX", file=sys.stderr)
        sys.exit(2)

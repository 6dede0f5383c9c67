# opcases.py - writes one operator case for the lower tests that compare
# pt2onnx with eager torch on the three paths (tests/lower/opcases.bash):
# the module traced and scripted by torch, its inputs and torch's outputs.
# Used by make_opgaps.py (417) and make_long_tail.py (418, 419).
import json
import os

import numpy as np
import torch

SPEC = {torch.float32: "f32", torch.float64: "f64", torch.int64: "i64",
        torch.int32: "i32", torch.bool: "bool", torch.uint8: "u8",
        torch.int8: "i8", torch.int16: "i16"}


def write_case(m, ins, d, set2_scripted_only=False):
    """m: the module; ins: [(input name, set 1, set 2 or None, dynamic
    axes)]; writes d/traced.pt, d/scripted.pt, d/meta.json, d/inK/NAME.npy
    and d/outK/N.npy for each input set K (1, and 2 where one is given)."""
    m.eval()
    sets = [[t for _, t, _, _ in ins]]
    if any(t2 is not None for _, _, t2, _ in ins):
        sets.append([t2 if t2 is not None else t for _, t, t2, _ in ins])
    os.makedirs(d, exist_ok=True)
    with torch.no_grad():
        torch.jit.script(m).save(f"{d}/scripted.pt")
        torch.jit.trace(m, tuple(sets[0])).save(f"{d}/traced.pt")
    meta = {"inputs": [{"name": n, "dtype": SPEC[t.dtype], "shape": list(t.shape),
                        "dynamic": dyn if len(sets) > 1 else []}
                       for n, t, _, dyn in ins], "sets": len(sets),
            # a traced archive fixes trip counts and item()s: set 2 is
            # then for the scripted archive only (as with torch.jit.trace)
            "set2_scripted_only": set2_scripted_only}
    with open(f"{d}/meta.json", "w") as f:
        json.dump(meta, f)
    for k, args in enumerate(sets, 1):
        os.makedirs(f"{d}/in{k}", exist_ok=True)
        os.makedirs(f"{d}/out{k}", exist_ok=True)
        for (n, _, _, _), t in zip(ins, args):
            np.save(f"{d}/in{k}/{n}.npy", t.numpy())
        with torch.no_grad():
            out = m(*[t.clone() for t in args])
        outs = list(out) if isinstance(out, tuple) else [out]
        for j, o in enumerate(outs):
            np.save(f"{d}/out{k}/{j}.npy", o.numpy())

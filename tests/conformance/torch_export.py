#!/usr/bin/python3
"""torch_export.py - torch.onnx.export of conformance archives, the baseline.

    torch_export.py MDIR:ARCHIVE:OPSET...

For each job: torch.jit.load(MDIR/ARCHIVE.pt), then torch.onnx.export at
OPSET with the example inputs of set 1 (input names from meta.json, and
dynamic axes on the dims that differ in set 2 where the archive computes set
2 right), to MDIR/torch/ARCHIVE_opOPSET.onnx.  Writes
MDIR/torch/ARCHIVE_opOPSET.json: ok, error (first line), load_s, export_s.
The parent measures the child's wall time and peak RSS (generate.py).
"""
import json
import os
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import first_line, read_json, write_json  # noqa: E402


def export(job):
    mdir, arch, v = job.rsplit(":", 2)
    v = int(v)
    out = os.path.join(mdir, "torch", f"{arch}_op{v}.onnx")
    res = os.path.join(mdir, "torch", f"{arch}_op{v}.json")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    import numpy as np
    import torch
    try:
        import torchvision  # noqa: F401  (registers torchvision::nms & co. for torch.jit.load)
    except ImportError:
        pass
    meta = read_json(os.path.join(mdir, "meta.json"))
    names = [i["name"] for i in meta["inputs"]]
    d = {"ok": False, "opset": v, "archive": arch, "onnx": out}
    dyn = {}
    if meta.get("has_set2") and meta["archives"][arch].get("set2"):
        for i in meta["inputs"]:
            if i["dynamic"]:
                dyn[i["name"]] = {k: f"{i['name']}_d{k}" for k in i["dynamic"]}
    d["dynamic"] = bool(dyn)
    try:
        t0 = time.perf_counter()
        m = torch.jit.load(os.path.join(mdir, f"{arch}.pt"))
        m.eval()
        args = tuple(torch.from_numpy(np.load(os.path.join(mdir, "in1", f"{n}.npy"))) for n in names)
        t1 = time.perf_counter()
        torch.onnx.export(m, args, out, opset_version=v, input_names=names,
                          dynamic_axes=dyn or None)
        t2 = time.perf_counter()
        d.update(ok=True, load_s=round(t1 - t0, 4), export_s=round(t2 - t1, 4),
                 bytes=os.path.getsize(out))
    except Exception as e:
        d["error"] = first_line(traceback.format_exc())
        if os.path.exists(out):
            os.unlink(out)
    write_json(res, d)


def main(jobs):
    for j in jobs:
        export(j)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

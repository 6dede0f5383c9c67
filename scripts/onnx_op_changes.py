#!/usr/bin/python3
"""onnx_op_changes.py - lists, for every ONNX operator that lower or fold
can write, the schema versions after a given opset, from the committed
onnx 1.23.1 schema JSON (third_party/onnx/onnx-1.23.1-schemas.json).

Usage: scripts/onnx_op_changes.py [--after 17] [--upto 26]

An operator is "written" when its name appears as a string literal
("Add" or "onnx::Add") in lib/lower/*.c or lib/fold/*.c and is a
default-domain ONNX operator.  Each line: the op, then the versions in
(after, upto], e.g. "ReduceMean 18" -- the ones to review when the
opset range grows.
"""
import argparse
import glob
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--after", type=int, default=17)
    ap.add_argument("--upto", type=int, default=26)
    a = ap.parse_args()
    with open(os.path.join(ROOT, "third_party/onnx/onnx-1.23.1-schemas.json")) as f:
        js = json.load(f)
    versions = {}
    for s in js["schemas"]:
        if s["domain"] in ("", "ai.onnx"):
            versions.setdefault(s["name"], []).append(s["since_version"])
    used = set()
    for path in glob.glob(os.path.join(ROOT, "lib/lower/*.c")) + \
            glob.glob(os.path.join(ROOT, "lib/fold/*.c")):
        with open(path) as f:
            for m in re.finditer(r'"(?:onnx::)?([A-Z][A-Za-z0-9]+)"', f.read()):
                if m.group(1) in versions:
                    used.add(m.group(1))
    for op in sorted(used):
        vs = [v for v in sorted(versions[op]) if a.after < v <= a.upto]
        if vs:
            print(op, " ".join(map(str, vs)))
    return 0


if __name__ == "__main__":
    sys.exit(main())

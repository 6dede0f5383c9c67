#!/usr/bin/python3
"""onnx_check.py - the oracle: python3-onnx's checker on each model given.

Runs onnx.checker.check_model(full_check=True) (which adds shape inference)
on every path; prints "ok PATH" or "fail PATH: reason" and exits 1 if any
failed.  Models with external data are loaded with their data beside them.
"""
import os
import shutil
import sys
import tempfile

import onnx


def main(paths):
    failed = 0
    for path in paths:
        try:
            # check by path so that external data and >2GB models work;
            # onnx 1.12 rewrites the file it checks with inferred shapes,
            # so check a copy (and the side files beside it)
            with tempfile.TemporaryDirectory() as tmp:
                src_dir = os.path.dirname(os.path.abspath(path))
                for name in os.listdir(src_dir):
                    full = os.path.join(src_dir, name)
                    if os.path.isfile(full) and name != os.path.basename(path):
                        os.symlink(full, os.path.join(tmp, name))
                copy = os.path.join(tmp, os.path.basename(path))
                shutil.copyfile(path, copy)
                onnx.checker.check_model(copy, full_check=True)
            print(f"ok {path}")
        except Exception as e:  # the checker raises several kinds
            first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            print(f"fail {path}: {first}")
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) < 2:
        print("usage: onnx_check.py MODEL.onnx...", file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/python3
"""onnx_check.py - the oracle: python3-onnx's checker on each model given.

Runs onnx.checker.check_model(full_check=True) (which adds shape inference)
on every path; prints "ok PATH" or "fail PATH: reason" and exits 1 if any
failed.  Models with external data are loaded with their data beside them.
"""
import sys

import onnx


def main(paths):
    failed = 0
    for path in paths:
        try:
            # check by path so that external data and >2GB models work
            onnx.checker.check_model(path, full_check=True)
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

#!/usr/bin/python3
"""testdata_agreement.py - does `check` agree with onnx.checker?

    testdata_agreement.py CHECK_BINARY [DATA_DIR]

Runs python3-onnx's onnx.checker.check_model(path) on every model.onnx
under DATA_DIR (default: Debian's libonnx-testdata,
/usr/share/libonnx-testdata/data) and our `check` on the same files (one
process for all of them), both at run time, then prints the counts.  Every
model the Python checker accepts and `check` rejects is listed with
check's messages, and makes the exit status 1.  Models `check` accepts and
the Python checker rejects are counted and listed too (our stricter rules
only ever reject more, so this should stay 0); they do not fail the run.
"""
import glob
import os
import subprocess
import sys

import onnx


def main(check, data):
    files = sorted(glob.glob(os.path.join(data, "**", "model.onnx"),
                             recursive=True))
    if not files:
        print("no model.onnx under %s" % data)
        return 2
    py = {}
    for f in files:
        try:
            onnx.checker.check_model(f)
            py[f] = True
        except Exception:  # the checker raises several kinds
            py[f] = False
    r = subprocess.run([check] + files, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    ours = {f: False for f in files}
    for line in r.stdout.splitlines():
        if line.endswith(": ok") and line[:-4] in ours:
            ours[line[:-4]] = True
    if r.returncode not in (0, 1, 3):
        print("check exited %d (a crash?)" % r.returncode)
        print(r.stderr[-2000:])
        return 1
    we_reject = [f for f in files if py[f] and not ours[f]]
    we_accept = [f for f in files if ours[f] and not py[f]]
    print("%d models: python accepts %d, check accepts %d"
          % (len(files), sum(py.values()), sum(ours.values())))
    print("accepted by python, rejected by check: %d" % len(we_reject))
    print("rejected by python, accepted by check: %d" % len(we_accept))
    errors = {}
    for line in r.stderr.splitlines():
        parts = line.split(": ", 2)
        if len(parts) == 3:
            errors.setdefault(parts[1], []).append(parts[2])
    for f in we_reject:
        print("  REJECTED %s" % f)
        for e in errors.get(f, [])[:5]:
            print("    %s" % e)
    for f in we_accept:
        print("  accepted %s" % f)
    return 1 if we_reject else 0


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: testdata_agreement.py CHECK [DATA_DIR]")
    sys.exit(main(sys.argv[1], sys.argv[2] if len(sys.argv) == 3
                  else "/usr/share/libonnx-testdata/data"))

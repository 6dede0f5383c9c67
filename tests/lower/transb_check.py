"""transb_check.py MODEL.onnx NAME [--matmul]: what lower made of NAME's
Linear / addmm / matmul / mm weights (tests/420, tests/605), read by
python3-onnx: without --matmul, no Transpose node and every Gemm with
transB=1 and no MatMul; with --matmul (opsets without Gemm's optional C),
MatMul nodes and no Gemm.  Then, in both, each of torch's 2-d weights
(NAME_w_*.bin) is an initializer byte for byte (external data read from
beside the model) -- the bytes emit copied untouched."""
import glob
import sys

import onnx
from onnx import numpy_helper

path, name = sys.argv[1], sys.argv[2]
matmul = "--matmul" in sys.argv
m = onnx.load(path)
ops = [n.op_type for n in m.graph.node]
bad = []
if matmul:
    if "Gemm" in ops or "MatMul" not in ops:
        bad.append(f"expected MatMul and no Gemm, got {ops}")
else:
    if "Transpose" in ops or "MatMul" in ops or "Gemm" not in ops:
        bad.append(f"expected Gemm and no Transpose or MatMul, got {ops}")
    for n in m.graph.node:
        if n.op_type == "Gemm":
            tb = [a.i for a in n.attribute if a.name == "transB"]
            if tb != [1]:
                bad.append(f"{n.name}: transB {tb}")
if not matmul:
    inits = {numpy_helper.to_array(t).tobytes() for t in m.graph.initializer}
    ws = sorted(glob.glob(f"{name}_w_*.bin"))
    if not ws:
        bad.append("no weights to compare")
    for w in ws:
        if open(w, "rb").read() not in inits:
            bad.append(f"{w}: not an initializer's bytes")
for b in bad:
    print(b, file=sys.stderr)
sys.exit(1 if bad else 0)

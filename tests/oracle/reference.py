#!/usr/bin/python3
"""reference.py - numpy references for emit's test models, computed without
ONNX or the tools under test, and the comparison used against ONNX Runtime.

Weights come from where the IR gets them: inline values are parsed from the
text IR itself, by-reference weights are generated here (deterministic seeds)
and written to the files the IR refers to.

  reference.py cnn-weights OUT.bin          fc.weight (10x128) + fc.bias (10)
  reference.py ref-weights OUT.bin          emit-ref.ir's a and b
  reference.py big-weight OUT.bin MIB       MIB MiB of float32 (memory test)
  reference.py input OUT.npy SEED DTYPE D1,D2,...
  reference.py cnn IR BIN X.npy OUT.npy     the small CNN (emit-cnn.ir)
  reference.py if X.npy C.npy OUT.npy       emit-if.ir
  reference.py loop X.npy ACC.npy SCAN.npy  emit-loop.ir
  reference.py ref BIN X.npy OUT.npy        emit-ref.ir
  reference.py dyn X.npy OUT.npy            emit-dyn.ir
  reference.py compare GOT.npy WANT.npy [RTOL]
      max |got - want| / max |want| <= RTOL (default 1e-4), shapes equal;
      exit 1 with a one-line reason otherwise
"""
import re
import sys

import numpy as np


def cnn_weights():
    rng = np.random.default_rng(42)
    w = (rng.standard_normal((10, 128)) * 0.1).astype(np.float32)
    b = (rng.standard_normal(10) * 0.1).astype(np.float32)
    return w, b


def ref_weights():
    rng = np.random.default_rng(7)
    a = rng.standard_normal((4, 3)).astype(np.float32)
    bt = rng.standard_normal((3, 4)).astype(np.float32)  # stored; b = bt.T
    return a, bt


def inline_weight(ir_text, name, shape):
    """The {v, v, ...} data of weight %name in a text IR."""
    m = re.search(r"%" + re.escape(name) + r" : Float\([^)]*\) = \{([^}]*)\}",
                  ir_text)
    if not m:
        raise SystemExit(f"reference: no inline weight %{name}")
    vals = np.array([float(v) for v in m.group(1).split(",")], np.float32)
    return vals.reshape(shape)


def conv2d(x, w, b, pad):
    n, c, h, wd = x.shape
    k, _, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    out = np.zeros((n, k, h, wd), np.float64)
    for i in range(kh):
        for j in range(kw):
            patch = xp[:, :, i:i + h, j:j + wd].astype(np.float64)
            out += np.einsum("nchw,kc->nkhw", patch, w[:, :, i, j])
    return out + b.reshape(1, k, 1, 1)


def maxpool2(x):
    n, c, h, w = x.shape
    return x.reshape(n, c, h // 2, 2, w // 2, 2).max(axis=(3, 5))


def cnn(ir_path, bin_path, x):
    text = open(ir_path).read()
    cw = inline_weight(text, "conv.weight", (8, 3, 3, 3))
    cb = inline_weight(text, "conv.bias", (8,))
    raw = np.fromfile(bin_path, np.float32)
    fw, fb = raw[:1280].reshape(10, 128), raw[1280:1290]
    y = np.maximum(conv2d(x, cw, cb, 1), 0)
    y = maxpool2(y).reshape(x.shape[0], -1)
    return (y @ fw.T.astype(np.float64) + fb).astype(np.float32)


def compare(got, want, rtol):
    if got.shape != want.shape:
        return f"shape {got.shape} != {want.shape}"
    if got.size == 0:
        return None
    scale = max(float(np.max(np.abs(want.astype(np.float64)))), 1e-30)
    err = float(np.max(np.abs(got.astype(np.float64) - want))) / scale
    return None if err <= rtol else f"max relative error {err:.3g} > {rtol}"


def main(argv):
    cmd, args = argv[0], argv[1:]
    if cmd == "cnn-weights":
        w, b = cnn_weights()
        with open(args[0], "wb") as f:
            f.write(w.tobytes() + b.tobytes())
    elif cmd == "ref-weights":
        a, bt = ref_weights()
        with open(args[0], "wb") as f:
            f.write(a.tobytes() + b"\0" * 16 + bt.tobytes())
    elif cmd == "big-weight":
        n = int(args[1]) * (1 << 20) // 4
        chunk = np.arange(1 << 18, dtype=np.float32)
        with open(args[0], "wb") as f:
            for _ in range(n // chunk.size):
                f.write(chunk.tobytes())
    elif cmd == "input":
        out, seed, dtype, dims = args
        shape = tuple(int(d) for d in dims.split(",") if d)
        rng = np.random.default_rng(int(seed))
        np.save(out, rng.standard_normal(shape).astype(dtype))
    elif cmd == "cnn":
        ir, binf, xf, out = args
        np.save(out, cnn(ir, binf, np.load(xf)))
    elif cmd == "if":
        x, c = np.load(args[0]), bool(np.load(args[1]))
        y = x * np.array([1, -2, 3], np.float32) if c else x
        np.save(args[2], np.maximum(y, 0))
    elif cmd == "loop":
        x = np.load(args[0]).astype(np.float64)
        acc, scan = x.copy(), []
        for i in range(4):
            acc = acc + x
            scan.append(acc * i)
        np.save(args[1], acc.astype(np.float32))
        np.save(args[2], np.array(scan, np.float32))
    elif cmd == "ref":
        a, bt = ref_weights()
        raw = np.fromfile(args[0], np.float32)
        if not np.array_equal(raw[:12].reshape(4, 3), a):
            raise SystemExit("reference: ref.bin is not what ref-weights wrote")
        x = np.load(args[1]).astype(np.float64)
        np.save(args[2], (x @ a + x @ bt.T).astype(np.float32))
    elif cmd == "dyn":
        x = np.load(args[0])
        y = np.maximum(x, 0)
        np.save(args[1], x + y)
    elif cmd == "compare":
        rtol = float(args[2]) if len(args) > 2 else 1e-4
        why = compare(np.load(args[0]), np.load(args[1]), rtol)
        if why:
            print(f"compare: {args[0]} vs {args[1]}: {why}")
            return 1
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

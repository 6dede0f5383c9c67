"""random_check.py - the random operators (rand, randn, *_like, normal,
bernoulli, multinomial, rrelu in training) converted by pt2onnx at the
given opsets and run in ONNX Runtime, their samples judged against torch
1.13's own samples of the same call (tests/496-lower-random.bats).

    /usr/bin/python3 random_check.py WORKDIR BINDIR ORT_RUN_JS OPSET...

Each case is a scripted module whose output is a large sample (16384
draws); torch draws one, the converted model another.  Each model is validated first (onnx.checker's full_check up to opset
17, pt2onnx's `check` above: onnx 1.12 stops at 17).  Judged: the shape
and dtype (exact), a two-sample Kolmogorov-Smirnov test of the values
against torch's (alpha 1e-6), and the properties that hold for every
draw (a probability 0 or 1, no repeated index without replacement, no
category of weight 0).  Prints one line per (case, opset) and
"random: N passed, M failed"; the exit status is 1 when one failed.
Also prints, per opset, the ONNX node kinds of each model (the random
nodes ONNX Runtime 1.30 does not run at 22 and above must be gone).
"""
import math
import os
import subprocess
import sys

import numpy as np
import onnx
import torch

N, M = 64, 256
ALPHA = 1e-6


class Rand(torch.nn.Module):
    def forward(self, x):
        return torch.rand(x.size(0), 256)          # size known at run time


class RandFixed(torch.nn.Module):
    def forward(self, x):
        return torch.rand(64, 256, dtype=torch.float64) + x.sum() * 0


class Randn(torch.nn.Module):
    def forward(self, x):
        return torch.randn(64, 256) + x.sum() * 0


class RandnDyn(torch.nn.Module):
    def forward(self, x):
        return torch.randn(x.size(0), 256)


class RandLike(torch.nn.Module):
    def forward(self, x):
        return torch.rand_like(x)


class RandnLikeDouble(torch.nn.Module):
    def forward(self, x):
        return torch.randn_like(x.double())


class NormalTensors(torch.nn.Module):
    def forward(self, x):
        return torch.normal(x + 2.0, x * 0 + 3.0)


class NormalSize(torch.nn.Module):
    def forward(self, x):
        return torch.normal(-1.0, 0.5, size=(64, 256)) + x.sum() * 0


class Bernoulli(torch.nn.Module):
    def forward(self, p):
        return torch.bernoulli(p)


class BernoulliP(torch.nn.Module):
    def forward(self, x):
        return torch.bernoulli(x, 0.3)


class MultinomialRepl(torch.nn.Module):
    def forward(self, w):
        return torch.multinomial(w, 4096, replacement=True)


class MultinomialNoRepl(torch.nn.Module):
    def forward(self, w):
        return torch.multinomial(w, 3, replacement=False)


class RreluTrain(torch.nn.Module):
    def forward(self, x):
        return torch.nn.functional.rrelu(x, 0.1, 0.4, training=True) / x


def inputs(name):
    """The case's input (a float32 array)."""
    if name in ("bernoulli",):
        # columns of probability 0, 0.1, 0.5, 0.9, 1 and in between
        return np.tile(np.linspace(0, 1, M, dtype=np.float32), (N, 1))
    if name.startswith("multinomial"):
        w = np.array([0, 1, 2, 0, 4, 1], np.float32)   # weights, two 0
        rows = 4 if name == "multinomial_repl" else 4096
        return np.tile(w, (rows, 1))
    if name == "rrelu":
        return -np.ones((N, M), np.float32)
    return np.ones((N, M), np.float32)


CASES = {
    "rand": Rand, "rand_fixed_double": RandFixed, "randn": Randn,
    "randn_dyn": RandnDyn, "rand_like": RandLike,
    "randn_like_double": RandnLikeDouble, "normal_tensors": NormalTensors,
    "normal_size": NormalSize, "bernoulli": Bernoulli,
    "bernoulli_p": BernoulliP, "multinomial_repl": MultinomialRepl,
    "multinomial_norepl": MultinomialNoRepl, "rrelu": RreluTrain,
}
RANDOM_NODES = {"RandomUniform", "RandomNormal", "RandomUniformLike",
                "RandomNormalLike", "Bernoulli", "Multinomial"}


def ks_ok(a, b):
    """Two-sample Kolmogorov-Smirnov: D under the alpha critical value."""
    a, b = np.sort(a.ravel()), np.sort(b.ravel())
    v = np.concatenate([a, b])
    d = np.abs(np.searchsorted(a, v, side="right") / a.size -
               np.searchsorted(b, v, side="right") / b.size).max()
    crit = math.sqrt(-math.log(ALPHA / 2) / 2) * math.sqrt((a.size + b.size) / (a.size * b.size))
    return d <= crit, f"KS D {d:.4f} (critical {crit:.4f})"


def judge(name, x, ref, out):
    if out.shape != ref.shape or out.dtype != ref.dtype:
        return False, f"shape/dtype {out.shape} {out.dtype}, torch {ref.shape} {ref.dtype}"
    if name == "bernoulli":
        if (out[:, x[0] == 0] != 0).any() or (out[:, x[0] == 1] != 1).any():
            return False, "a probability 0 or 1 drew the other value"
        # per column of probability p: the count of ones against torch's
        d = np.abs(out.sum(0) - ref.sum(0))
        sd = np.sqrt(2 * N * x[0] * (1 - x[0])) + 1e-9
        worst = float((d / sd).max())
        return worst < 5.5, f"worst column {worst:.2f} sigma"
    if name == "multinomial_norepl":
        if any(len(set(r)) != len(r) for r in out.tolist()):
            return False, "a row repeats an index (without replacement)"
    if name.startswith("multinomial"):
        if np.isin(out, [0, 3]).any():
            return False, "a category of weight 0 was drawn"
        ok, msg = ks_ok(out.astype(np.float64), ref.astype(np.float64))
        if name == "multinomial_norepl":
            ok2, msg2 = ks_ok(out[:, 0].astype(np.float64), ref[:, 0].astype(np.float64))
            return ok and ok2, msg + "; first draw " + msg2
        return ok, msg
    if name == "rrelu" and ((out < 0.1) | (out > 0.4)).any():
        return False, "a slope outside [lower, upper]"
    if name.startswith("rand") and not name.startswith("randn") and \
            ((out < 0) | (out >= 1)).any():
        return False, "a uniform draw outside [0, 1)"
    return ks_ok(out.astype(np.float64), ref.astype(np.float64))


def main():
    work, bindir, ort_js, opsets = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    pt2onnx = os.path.join(bindir, "pt2onnx")
    passed = failed = 0
    torch.manual_seed(0)
    for name, cls in CASES.items():
        d = os.path.join(work, name)
        os.makedirs(d, exist_ok=True)
        x = inputs(name)
        arg = "p" if name == "bernoulli" else "w" if name.startswith("multinomial") else "x"
        np.save(os.path.join(d, "in.npy"), x)
        archive = os.path.join(d, "scripted.pt")
        torch.jit.save(torch.jit.script(cls()), archive)
        with torch.no_grad():
            ref = torch.jit.load(archive)(torch.from_numpy(x)).numpy()
        for v in opsets:
            model = os.path.join(d, f"m{v}.onnx")
            p = subprocess.run([pt2onnx, archive, "-o", model, "--opset-version", v,
                                "--input", os.path.join(d, "in.npy")],
                               capture_output=True, text=True)
            if p.returncode:
                print(f"FAIL {name} opset {v}: pt2onnx exit {p.returncode}: {p.stderr.strip()}")
                failed += 1
                continue
            if int(v) > 17:
                p = subprocess.run([os.path.join(bindir, "check"), model], capture_output=True, text=True)
                err = p.returncode and p.stdout + p.stderr
            else:
                try:
                    onnx.checker.check_model(onnx.load(model), full_check=True)
                    err = None
                except Exception as e:  # noqa: BLE001 (the checker's verdict)
                    err = str(e)
            if err:
                print(f"FAIL {name} opset {v}: the checker: {err.strip()}")
                failed += 1
                continue
            kinds = sorted({nd.op_type for nd in onnx.load(model).graph.node})
            print(f"nodes {name} opset {v}: {' '.join(kinds)}")
            outdir = os.path.join(d, f"o{v}")
            p = subprocess.run(["node", ort_js, model, outdir, f"{arg}={os.path.join(d, 'in.npy')}"],
                               capture_output=True, text=True)
            if p.returncode:
                print(f"FAIL {name} opset {v}: ONNX Runtime: {p.stderr.strip()}")
                failed += 1
                continue
            outs = [f for f in os.listdir(outdir) if f.endswith(".npy")]
            out = np.load(os.path.join(outdir, outs[0]))
            ok, msg = judge(name, x, ref, out)
            if int(v) >= 22 and RANDOM_NODES & set(kinds):
                ok, msg = False, f"random nodes at {v}: {sorted(RANDOM_NODES & set(kinds))}"
            print(f"{'ok' if ok else 'FAIL'} {name} opset {v}: {msg}")
            passed += ok
            failed += not ok
    print(f"random: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""make_lower.py - weights, inputs and torch's expected outputs for the
lower tests (tests/400-lower*.bats).

  make_lower.py MODEL IR
  make_lower.py tv NAME        torchvision model NAME scripted to NAME.pt
                               (random weights, seed 0), x.npy, want_y.npy

in the current directory: writes every weight file the text IR refers to
(weight("F", offset=N, length=L): deterministic values per weight name),
the inputs as NAME.npy and the outputs torch computes for the same model
with the same weights as want_NAME.npy (NAME the IR's output names).  The
oracle is torch itself (Debian python3-torch): no hand-typed numbers.
"""
import math
import re
import sys
import zlib

import numpy as np
import torch
import torch.nn.functional as F

WEIGHT = re.compile(r'%([\w.]+) : (\w+)\(([^)]*)\) = weight\("([^"]+)", '
                    r'offset=(\d+), length=(\d+)\)')


def weights(ir_text):
    """Generates and writes the referenced weights; returns name -> tensor."""
    out, files = {}, {}
    for name, dt, dims, path, off, length in WEIGHT.findall(ir_text):
        assert dt == "Float", dt
        shape = [int(d) for d in dims.split(",")] if dims.strip() else []
        rng = np.random.default_rng(zlib.crc32(name.encode()))
        a = (rng.standard_normal(shape) * 0.3).astype(np.float32)
        if "running_var" in name:
            a = np.abs(a) + 0.5
        assert a.nbytes == int(length), name
        buf = files.setdefault(path, bytearray())
        end = int(off) + a.nbytes
        if len(buf) < end:
            buf.extend(b"\0" * (end - len(buf)))
        buf[int(off):end] = a.tobytes()
        out[name] = torch.from_numpy(a)
    for path, buf in files.items():
        with open(path, "wb") as f:
            f.write(bytes(buf))
    return out


def rnd(seed, shape, dtype=np.float32):
    rng = np.random.default_rng(seed)
    if dtype == np.bool_:
        return rng.random(shape) > 0.5
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-5, 6, shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def save(inputs, outputs):
    for k, v in inputs.items():
        np.save(f"{k}.npy", v)
    for k, v in outputs.items():
        np.save(f"want_{k}.npy", v.detach().numpy() if torch.is_tensor(v) else v)


def ops(w):
    """lower-ops.ir: one result per operator, in the IR's return order."""
    x = rnd(12, (2, 4, 6, 6))
    v = rnd(13, (3, 5))
    e = np.random.default_rng(14).integers(0, 10, (2, 3)).astype(np.int64)
    idx = np.array([4, 0, 2], np.int64)
    X, V = torch.from_numpy(x), torch.from_numpy(v)
    V2 = V * 2.0
    s1, s2 = V.split([2, 3], 1)
    mx, mxi = V.max(1)
    tk, tki = V.topk(2, 1)
    u3, u3t = V.unsqueeze(0), V.t().unsqueeze(0)
    bmm = torch.bmm(u3, u3t)
    outs = [
        ("ct", F.conv_transpose2d(X, w["ct.weight"], w["ct.bias"], 2, 1, 1)),
        ("ap", F.avg_pool2d(X, 3, 2, 1, False, False)),
        ("gn", F.group_norm(X, 2, w["gn.weight"], w["gn.bias"], 1e-5)),
        ("in", F.instance_norm(X, None, None, w["in.weight"], w["in.bias"],
                               True, 0.1, 1e-5)),
        ("aap", F.adaptive_avg_pool2d(X, 3)),
        ("cat", torch.cat([V, V2], 0)), ("stk", torch.stack([V, V2], 1)),
        ("s1", s1), ("s2", s2), ("slc", V[:, 1:4]), ("sel", V[-1]),
        ("sqz", V.unsqueeze(-1).squeeze(2)),
        ("exp", V.unsqueeze(0).expand(4, -1, -1)),
        ("mean", X.mean((2, 3), True)), ("sum", V.sum(1)),
        ("emb", F.embedding(torch.from_numpy(e), w["emb.weight"])),
        ("whr", torch.where(V > 0, V, -V)), ("ne", V != 0.5),
        ("pow", V.pow(2)), ("sqrt", V.abs().sqrt()),
        ("rsq", (V.abs() + 1).rsqrt()), ("ex", V.exp()),
        ("lg", (V.abs() + 1).log()), ("erf", V.erf()),
        ("clp", V.clamp(-0.5, 0.5)), ("ht", F.hardtanh(V, -0.5, 1.0)),
        ("r6", F.relu6(V2)), ("lr", F.leaky_relu(V, 0.2)),
        ("hsig", F.hardsigmoid(V2)), ("hsw", F.hardswish(V2)),
        ("lsm", F.log_softmax(V, 1)), ("sm0", F.softmax(V, 0)),
        ("ar", torch.arange(5)), ("ar2", torch.arange(0.0, 1.0, 0.25)),
        ("zr", torch.zeros(2, 3)), ("ol", torch.ones_like(V)),
        ("fl", torch.full((2, 3), 7.0)), ("toi", V2.to(torch.int32)),
        ("mx", mx), ("mxi", mxi), ("amx", V.argmax(1)), ("tk", tk),
        ("tki", tki), ("isel", V.index_select(1, torch.from_numpy(idx))),
        ("pad", F.pad(X, (1, 2), value=0.5)),
        ("up", F.interpolate(X, size=(12, 12), mode="nearest")),
        ("addmm", torch.addmm(w["mm.bias"], V, w["mm.weight"], beta=0.5,
                              alpha=2.0)),
        ("mm", V @ V.t()), ("bmm", bmm),
        ("bad", torch.baddbmm(bmm, u3, u3t, beta=0.5, alpha=2.0)),
        ("perm", X.permute(0, 2, 3, 1)), ("flt", X.flatten(0, 1)),
        ("sub", torch.sub(V, V2, alpha=2)), ("rsub", torch.rsub(V, 1.0)),
        ("divf", torch.div(V2, 0.5, rounding_mode="floor")),
        ("sp2", F.softplus(V)), ("elu", F.elu(V)), ("sig", V.sigmoid()),
        ("th", V.tanh()), ("mn", V.min()),
        ("szt", torch.tensor(x.shape[-1])),
        ("ix", V[:, torch.from_numpy(idx)]),
    ]
    save({"x": x, "v": v, "e": e, "idx": idx}, dict(outs))
    with open("outputs.txt", "w") as f:
        f.write(" ".join(k for k, _ in outs) + "\n")


def ops11(w):
    """lower-ops11.ir, at a batch of 2 for the dynamic n."""
    x = rnd(20, (2, 4, 6, 6))
    v = rnd(21, (3, 5))
    gi = np.random.default_rng(22).integers(0, 5, (3, 2)).astype(np.int64)
    s = rnd(23, (2, 2, 7))
    X, V = torch.from_numpy(x), torch.from_numpy(v)
    tk, tki = V.topk(2, 1, largest=False)
    outs = [
        ("bl", F.interpolate(X, size=(9, 9), mode="bilinear",
                             align_corners=False)),
        ("bla", F.interpolate(X, size=(9, 9), mode="bilinear",
                              align_corners=True)),
        ("ga", V.gather(1, torch.from_numpy(gi))), ("cs", V.cumsum(1)),
        ("slc", V[:, 0:5:2]), ("tk", tk), ("tki", tki),
        ("c1", F.conv1d(torch.from_numpy(s), w["c1.weight"], w["c1.bias"],
                        1, 1)),
        ("ar", torch.arange(2)), ("exp", V.unsqueeze(0).expand(2, -1, -1)),
        ("zr", torch.zeros(2, 3)),
    ]
    save({"x": x, "v": v, "gi": gi, "s": s}, dict(outs))
    with open("outputs.txt", "w") as f:
        f.write(" ".join(k for k, _ in outs) + "\n")


def ops12():
    """lower-ops12.ir."""
    v, q, k = rnd(30, (3, 5)), rnd(31, (2, 4, 8)), rnd(32, (2, 6, 8))
    val, qc = rnd(33, (2, 6, 8)), rnd(34, (2, 6, 8))
    m = np.random.default_rng(35).random((4, 6)) > 0.3
    m[:, 0] = True  # no fully masked row
    V, Q, K, VA, QC = (torch.from_numpy(a) for a in (v, q, k, val, qc))

    def sdpa(q_, k_, v_, mask=None, causal=False):
        s = q_ @ k_.transpose(-2, -1) / math.sqrt(q_.shape[-1])
        if mask is not None:
            s = s.masked_fill(~mask, float("-inf"))
        if causal:
            c = torch.ones(q_.shape[-2], k_.shape[-2]).tril().bool()
            s = s.masked_fill(~c, float("-inf"))
        w_ = s.softmax(-1)
        return w_ @ v_, w_
    att, wt = sdpa(Q, K, VA, torch.from_numpy(m))
    cau, _ = sdpa(QC, K, VA, causal=True)
    ref_att = torch.ops.aten._scaled_dot_product_attention(
        Q, K, VA, torch.from_numpy(m), 0.0, True, False)
    assert torch.allclose(ref_att[0], att, atol=1e-5)
    outs = [
        ("rem", torch.remainder(V, 0.7)), ("var", V.var(1, keepdim=False)),
        ("std", V.std()), ("fl", V.flip(1)), ("nrm", V.norm(2, 1, True)),
        ("lvn", torch.linalg.vector_norm(V, 1)),
        ("ein", torch.einsum("ij,kj->ik", V, V)), ("att", att), ("w", wt),
        ("cau", cau),
    ]
    save({"v": v, "q": q, "k": k, "val": val, "m": m, "qc": qc}, dict(outs))
    with open("outputs.txt", "w") as f:
        f.write(" ".join(k for k, _ in outs) + "\n")


def main(model, ir_path):
    text = open(ir_path).read()
    w = weights(text)
    t = torch.from_numpy
    if model == "cnn":
        x = rnd(1, (2, 3, 8, 8))
        y = F.conv2d(t(x), w["conv.weight"], w["conv.bias"], 1, 1)
        y = F.batch_norm(y, w["bn.running_mean"], w["bn.running_var"],
                         w["bn.weight"], w["bn.bias"], False, 0.1, 1e-5)
        y = F.max_pool2d(F.relu(y), 2, 2)
        y = F.adaptive_avg_pool2d(y, 1).flatten(1)
        save({"x": x}, {"y": F.linear(y, w["fc.weight"], w["fc.bias"])})
    elif model == "mlp":
        x = rnd(2, (2, 5, 16))
        h = F.gelu(F.linear(t(x), w["fc1.weight"], w["fc1.bias"]))
        h = F.silu(F.gelu(h, approximate="tanh"))
        o = F.linear(h, w["fc2.weight"], w["fc2.bias"])
        o = F.layer_norm(o, (16,), w["ln.weight"], w["ln.bias"], 1e-5)
        save({"x": x}, {"y": F.softmax(o, -1)})
    elif model == "attn":
        x = rnd(3, (3, 4, 8))
        mask = ~np.tril(np.ones((4, 4), np.bool_))
        qkv = F.linear(t(x), w["qkv.weight"], w["qkv.bias"])
        q, k, v = qkv.chunk(3, -1)
        B = x.shape[0]
        q, k, v = (z.view(B, 4, 2, 4).transpose(1, 2) for z in (q, k, v))
        s = (q @ k.transpose(-2, -1)) / 2.0
        s = s.masked_fill(t(mask), -1e9).softmax(-1)
        o = (s @ v).transpose(1, 2).contiguous().view(B, 4, 8)
        save({"x": x, "mask": mask},
             {"y": F.linear(o, w["proj.weight"], w["proj.bias"])})
    elif model == "if":
        x = rnd(4, (2, 3))
        for cv in (True, False):
            c = np.array(cv)
            y = F.relu(t(x)) * 2 if cv else t(x) - 1
            np.save(f"c{int(cv)}.npy", c)
            np.save(f"want_z{int(cv)}.npy", (y + 3).numpy())
        np.save("x.npy", x)
    elif model == "loop":
        x = rnd(5, (3,))
        acc = t(x)
        for i in range(4):
            acc = acc + t(x) * i
        j = 0
        while j < 3:
            j += 1
            acc = acc * 0.5
        save({"x": x}, {"acc2": acc})
    elif model == "promote":
        a = rnd(6, (2, 3), np.int32)
        b = rnd(7, (2, 3))
        l = rnd(8, (2, 3), np.int64)
        m = rnd(9, (2, 3), np.bool_)
        A, B, L, M = t(a), t(b), t(l), t(m)
        outs = {"y1": A + 2.5, "y2": B + 3, "y3": L * M, "y4": A / 2,
                "y5": A > 2.5, "y6": A + B, "y7": L + A, "y8": M + 3}
        for k in ("y1", "y2", "y4", "y6"):
            assert outs[k].dtype == torch.float32, k
        save({"a": a, "b": b, "l": l, "m": m}, outs)
    elif model == "tril":
        x = rnd(10, (4, 5))
        save({"x": x}, {"y1": torch.tril(t(x), 1), "y2": torch.triu(t(x), -1)})
    elif model == "tril-dyn":
        x = rnd(11, (3, 6))
        save({"x": x}, {"y": torch.tril(t(x), 0)})
    elif model == "ops":
        ops(w)
    elif model == "ops11":
        ops11(w)
    elif model == "ops12":
        ops12()
    else:
        sys.exit(f"make_lower: unknown model {model}")


def torchvision_model(name):
    import torchvision
    torch.manual_seed(0)
    m = getattr(torchvision.models, name)().eval()
    torch.jit.save(torch.jit.script(m), name + ".pt")
    x = torch.randn(1, 3, 96, 96)
    np.save("x.npy", x.numpy())
    with torch.no_grad():
        np.save("want_y.npy", m(x).numpy())


if __name__ == "__main__":
    if sys.argv[1] == "tv":
        torchvision_model(sys.argv[2])
    else:
        main(sys.argv[1], sys.argv[2])

#!/usr/bin/python3
"""make_torch2_ops.py - archives calling torch 2.x operators torch 1.13
lacks, scaled_dot_product_attention with each of its arguments and
rms_norm, and torch 2.x's core ATen ops torch.export's graphs hold
(native_group_norm, the _native_batch_norm_legit family, _unsafe_index,
_unsafe_index_put, _embedding_bag), for tests/490-lower-torch2-ops.bats.

    /usr/bin/python3 tests/lower/make_torch2_ops.py OUTDIR

torch 1.13 (the only torch here) has neither aten::scaled_dot_product_attention
nor aten::rms_norm, so each archive is a torch.jit.script of a placeholder forward whose call
is then rewritten in the archive's code to the torch 2.x call (the text
torch 2.11's python_print writes: positional arguments, then scale= and
enable_gqa= by keyword); the debug tables of the rewritten file are
dropped.  The expected outputs are computed by torch 1.13 from the
definition of the op in torch 2.x's math path
(aten/src/ATen/native/transformers/attention.cpp,
_scaled_dot_product_attention_math): q and k each multiplied by
sqrt(scale) (scale defaults to 1/sqrt(E)), a bool mask's false entries
-inf before the softmax, a float mask added, is_causal as
tril(ones(L, S)), enable_gqa repeating the key/value heads
(repeat_interleave on dim -3); rms_norm from its definition in torch 2.x
(aten/src/ATen/native/layer_norm.cpp, rms_norm_symint): x * rsqrt(mean(x^2)
+ eps) * weight, eps None being float32's epsilon.

Writes OUTDIR/CASE/scripted.pt, in_K.npy, ref_0.npy for every case, the
layout tests/conformance/torch2.py runs (--src OUTDIR --archives scripted).
"""
import math
import os
import sys
import zipfile

import numpy as np
import torch


class Placeholder3(torch.nn.Module):
    def forward(self, q, k, v):
        return torch.mul(q, 1.0)


class Placeholder4(torch.nn.Module):
    def forward(self, q, k, v, m):
        return torch.mul(q, 1.0)


class Placeholder1(torch.nn.Module):
    def forward(self, x):
        return torch.mul(x, 1.0)


class Placeholder2(torch.nn.Module):
    def forward(self, x, w):
        return torch.mul(x, 1.0)


class PlaceholderX3(torch.nn.Module):
    def forward(self, x, w, b):
        return torch.mul(x, 1.0)


class PlaceholderX5(torch.nn.Module):
    def forward(self, x, w, b, rm, rv):
        return torch.mul(x, 1.0)


PLACEHOLDERS = {1: Placeholder1, 2: Placeholder2, 3: Placeholder3, 4: Placeholder4}
# the other ops' placeholders: x, w, b, rm, rv
PLACEHOLDERS_X = {1: Placeholder1, 2: Placeholder2, 3: PlaceholderX3, 5: PlaceholderX5}


def rms_ref(x, dims, w=None, eps=None):
    eps = torch.finfo(x.dtype).eps if eps is None else eps
    y = x * torch.rsqrt((x * x).mean(dims, keepdim=True) + eps)
    return y if w is None else y * w


def sdpa_ref(q, k, v, mask=None, causal=False, scale=None, gqa=False):
    """torch 2.x's math path, in torch 1.13 ops."""
    s = 1 / math.sqrt(q.shape[-1]) if scale is None else scale
    if gqa:
        k = k.repeat_interleave(q.shape[-3] // k.shape[-3], -3)
        v = v.repeat_interleave(q.shape[-3] // v.shape[-3], -3)
    f = math.sqrt(abs(s))
    a = (q * (f if s >= 0 else -f)) @ (k * f).transpose(-2, -1)
    if causal:
        mask = torch.ones(q.shape[-2], k.shape[-2], dtype=torch.bool).tril()
    if mask is not None and mask.dtype == torch.bool:
        a = a.masked_fill(~mask, -math.inf)
    elif mask is not None:
        a = a + mask
    return torch.softmax(a, -1) @ v


def case_inputs(g, qs, ks, vs):
    return (torch.randn(*qs, generator=g), torch.randn(*ks, generator=g), torch.randn(*vs, generator=g))


def cases():
    g = torch.Generator().manual_seed(0)
    out = {}
    q, k, v = case_inputs(g, (2, 4, 5, 8), (2, 4, 7, 8), (2, 4, 7, 6))
    out["plain"] = ((q, k, v), "None, 0., False", {})
    out["causal"] = ((q, k, v), "None, 0., True", {"causal": True})
    out["scale"] = ((q, k, v), "None, 0., False, scale=0.3", {"scale": 0.3})
    out["neg_scale"] = ((q, k, v), "None, 0., False, scale=-0.2", {"scale": -0.2})
    # a bool mask (L, S) broadcast over batch and heads, every row keeps
    # at least one key
    bm = torch.rand(5, 7, generator=g) > 0.4
    bm[:, 0] = True
    out["bool_mask"] = ((q, k, v, bm), "m, 0., False", {"mask": bm})
    fm = torch.randn(1, 4, 1, 7, generator=g)
    out["float_mask"] = ((q, k, v, fm), "m, 0., False", {"mask": fm})
    # eval: torch's exporter keeps dropout as inference Dropout (identity)
    out["dropout_eval"] = ((q, k, v), "None, 0.25, False", {})
    q6, k2, v2 = case_inputs(g, (2, 6, 5, 8), (2, 2, 7, 8), (2, 2, 7, 8))
    out["gqa"] = ((q6, k2, v2), "None, 0., False, enable_gqa=True", {"gqa": True})
    out["gqa_causal"] = ((q6, k2, v2), "None, 0., True, scale=0.5, enable_gqa=True",
                         {"gqa": True, "causal": True, "scale": 0.5})
    q3, k3, v3 = case_inputs(g, (3, 5, 8), (3, 9, 8), (3, 9, 8))
    out["rank3_causal"] = ((q3, k3, v3), "None, 0., True", {"causal": True})
    x = torch.randn(2, 3, 4, 8, generator=g) * 3
    w = torch.randn(8, generator=g)
    w2 = torch.randn(4, 8, generator=g)
    out["rms_weight_eps"] = ((x, w), "rms_norm(x, [8], w, 1.0000000000000001e-05)",
                             lambda: rms_ref(x, (-1,), w, 1e-5))
    out["rms_default_eps"] = ((x,), "rms_norm(x, [8])", lambda: rms_ref(x, (-1,)))
    out["rms_two_dims"] = ((x, w2), "rms_norm(x, [4, 8], w, None)", lambda: rms_ref(x, (-2, -1), w2))
    out.update(core_cases(g))
    return out


def core_cases(g):
    """torch 2.x's core ATen ops that torch.export's graphs hold after
    run_decompositions(), each against the torch 1.13 op it computes."""
    F = torch.nn.functional
    out = {}
    x = torch.randn(2, 6, 4, 5, generator=g)
    w, b = torch.randn(6, generator=g), torch.randn(6, generator=g)
    rm, rv = torch.randn(6, generator=g), torch.rand(6, generator=g) + 0.5
    out["native_group_norm"] = ((x, w, b), "native_group_norm(x, w, b, 2, 6, 20, 3, 1.0000000000000001e-05)[0]",
                                lambda: F.group_norm(x, 3, w, b, 1e-5))
    xg = x.reshape(2, 3, -1)
    out["native_group_norm_mean"] = ((x, w, b), "native_group_norm(x, w, b, 2, 6, 20, 3, 1.0000000000000001e-05)[1]",
                                     lambda: xg.mean(-1))
    out["native_group_norm_rstd"] = ((x, w, b), "native_group_norm(x, w, b, 2, 6, 20, 3, 1.0000000000000001e-05)[2]",
                                     lambda: torch.rsqrt(xg.var(-1, unbiased=False) + 1e-5))
    x3 = torch.randn(2, 6, 7, generator=g)
    out["native_group_norm_3d_nw"] = ((x3,), "native_group_norm(x, None, None, 2, 6, 7, 2, 0.001)[0]",
                                      lambda: F.group_norm(x3, 2, None, None, 1e-3))
    out["bn_legit_no_training"] = ((x, w, b, rm, rv),
                                   "_native_batch_norm_legit_no_training(x, w, b, rm, rv, 0.1, 0.001)[0]",
                                   lambda: F.batch_norm(x, rm, rv, w, b, False, 0.1, 1e-3))
    out["bn_legit_eval"] = ((x, w, b, rm, rv),
                            "_native_batch_norm_legit(x, w, b, rm, rv, False, 0.1, 1.0000000000000001e-05)[0]",
                            lambda: F.batch_norm(x, rm, rv, w, b, False, 0.1, 1e-5))
    out["bn_legit_functional"] = ((x, w, b, rm, rv),
                                  "_native_batch_norm_legit_functional(x, w, b, rm, rv, False, 0.1, "
                                  "1.0000000000000001e-05)[0]",
                                  lambda: F.batch_norm(x, rm, rv, w, b, False, 0.1, 1e-5))
    out["bn_legit_no_stats"] = ((x, w, b), "_native_batch_norm_legit(x, w, b, True, 0.1, 1.0000000000000001e-05)[0]",
                                lambda: F.batch_norm(x, None, None, w, b, True, 0.1, 1e-5))
    out["native_batch_norm"] = ((x, w, b, rm, rv),
                                "native_batch_norm(x, w, b, rm, rv, False, 0.1, 1.0000000000000001e-05)[0]",
                                lambda: F.batch_norm(x, rm, rv, w, b, False, 0.1, 1e-5))
    t = torch.randn(5, 3, 4, generator=g)
    i = torch.tensor([4, 0, -1, 2])
    out["unsafe_index"] = ((t, i), "_unsafe_index(x, [w])", lambda: t[i])
    vals = torch.randn(3, 4, generator=g)
    i2 = torch.tensor([1, 3, 0])
    out["unsafe_index_put"] = ((t, i2, vals), "_unsafe_index_put(x, [w], b, False)",
                               lambda: t.index_put((i2,), vals))
    emb = torch.randn(10, 4, generator=g)
    ind = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9])
    offs = torch.tensor([0, 3, 3, 6])
    out["embedding_bag_mean"] = ((emb, ind, offs), "_embedding_bag(x, w, b, False, 1)[0]",
                                 lambda: F.embedding_bag(ind, emb, offs, mode="mean"))
    offs2 = torch.tensor([0, 2, 5, 8])
    out["embedding_bag_max"] = ((emb, ind, offs2), "_embedding_bag(x, w, b, False, 2)[0]",
                                lambda: F.embedding_bag(ind, emb, offs2, mode="max"))
    out["embedding_bag_sum_last"] = ((emb, ind, offs2), "_embedding_bag(x, w, b, False, 0, False, None, True)[0]",
                                     lambda: F.embedding_bag(ind, emb, offs2, mode="sum", include_last_offset=True))
    return out


def write(root, name, args, call, ref_kw):
    """ref_kw: sdpa_ref's keywords, or a function giving the expected
    output (the other ops)."""
    d = os.path.join(root, name)
    os.makedirs(d, exist_ok=True)
    tmp = os.path.join(d, "tmp.pt")
    ph = PLACEHOLDERS_X if callable(ref_kw) else PLACEHOLDERS
    torch.jit.script(ph[len(args)]()).save(tmp)
    # an SDPA case gives its arguments after q, k, v; another the whole call
    src = b"torch.mul(x, 1.)" if callable(ref_kw) else b"torch.mul(q, 1.)"
    call = f"torch.scaled_dot_product_attention(q, k, v, {call})" if src.startswith(b"torch.mul(q") \
        else f"torch.{call}"
    with zipfile.ZipFile(tmp) as zin, zipfile.ZipFile(os.path.join(d, "scripted.pt"), "w",
                                                      zipfile.ZIP_STORED) as zout:
        done = 0
        for it in zin.infolist():
            data = zin.read(it.filename)
            if it.filename.endswith(".py.debug_pkl"):
                continue
            if it.filename.endswith(".py") and src in data:
                data = data.replace(src, call.encode())
                done += 1
            zout.writestr(it, data)
    os.unlink(tmp)
    if done != 1:
        raise SystemExit(f"make_sdpa: {name}: the placeholder call was not found")
    for i, t in enumerate(args):
        np.save(os.path.join(d, f"in_{i}.npy"), t.numpy())
    ref = ref_kw() if callable(ref_kw) else sdpa_ref(*args[:3], **ref_kw)
    np.save(os.path.join(d, "ref_0.npy"), ref.numpy())


def main():
    root = sys.argv[1]
    for name, (args, call, kw) in cases().items():
        write(root, name, args, call, kw)
    return 0


if __name__ == "__main__":
    sys.exit(main())

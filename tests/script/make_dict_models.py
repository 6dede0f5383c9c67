"""make_dict_models.py - what torchvision's scripted detectors do with
loops, lists and dicts, in small models scripted by torch 1.13: a loop
carrying an Optional that is None (GeneralizedRCNNTransform's `targets`),
a loop of a known trip count writing into a list of tensors (`images[i] =
image`), dicts built, changed in a loop and read (keys, values, items,
len, `in`), and a list of dicts returned (the detections), a tensor written in place in a
loop of a dynamic trip count, the rpn's indexing and split.

    python3 make_dict_models.py

For each NAME: NAME.pt, its --input spec NAME.spec (the dim named n is
dynamic), and per size K: NAME-K.x.npy and torch's outputs
want_NAME-K_I.npy, a dict's values in insertion order, a list's elements
in order (as torch.onnx.export flattens outputs).
"""
from typing import Dict, List, Optional

import numpy as np
import torch
import torch.nn as nn
from torch import Tensor

torch.manual_seed(0)


class NoneLoop(nn.Module):
    """a loop of a dynamic trip count carrying an Optional that is None"""
    def step(self, x: Tensor, t: Optional[Tensor] = None):
        acc = torch.zeros_like(x[0])
        for i in range(x.size(0)):
            if t is not None:
                t = t * 2.0
            acc = acc + x[i] * float(i + 1)
        return acc, t

    def forward(self, x):
        acc, t = self.step(x)
        return acc if t is None else acc + t


class ListWrite(nn.Module):
    """loops of a constant trip count writing into lists of tensors"""
    def forward(self, x):
        images = [x, x + 1.0]
        for i in range(len(images)):
            images[i] = images[i] * 2.0 + float(i)
        sizes: List[List[int]] = []
        for i in range(len(images)):
            sizes.append(list(images[i].shape[-1:]))
        return images[0] * images[1] + float(sizes[1][0])


class DictOps(nn.Module):
    """a dict changed in a loop, then read every way"""
    def forward(self, x):
        d: Dict[str, Tensor] = {"a": x + 1.0, "b": x * 2.0}
        names = ["c", "a", "e"]
        for i in range(3):
            d[names[i]] = x * float(i + 2)
        acc = torch.zeros_like(x)
        vals = list(d.values())
        for i in range(len(vals)):
            acc = acc + vals[i] * float(i + 1)
        items = list(d.items())
        for i in range(len(items)):
            k, v = items[i]
            acc = acc - v * float(i)
        d.update({"f": x - 1.0, "a": x * 7.0})
        keys = list(d.keys())
        n = len(d)
        return acc * float(n) + (d[keys[2]] if "c" in d else x)


class StrKeys(nn.Module):
    """keys made by str(i) in a loop (SSD's feature extractor)"""
    def forward(self, x):
        d: Dict[str, Tensor] = {}
        for i in range(3):
            d[str(i)] = x * float(i + 1)
        return d["2"] - d["0"]


class DictList(nn.Module):
    """a list of dicts returned, as the detectors' detections"""
    def forward(self, x):
        out: List[Dict[str, Tensor]] = []
        for i in range(2):
            d: Dict[str, Tensor] = {}
            d["boxes"] = x * float(i + 1)
            d["scores"] = x.sum(1)
            out.append(d)
        return out


class LoopWrite(nn.Module):
    """a tensor written in place in a loop of a dynamic trip count
    (torchvision's _batched_nms_vanilla: keep_mask.index_put_), and min()
    of a dynamic size and a constant"""
    def forward(self, x):
        acc = torch.zeros_like(x)
        for i in range(x.size(0)):
            acc.index_put_((torch.tensor([i]),), x[i:i + 1] * float(i))
        k = min([x.size(0), 3])
        return acc[:k] + 1.0


class IndexSplit(nn.Module):
    """torchvision's rpn: x[batch_idx, top_n_idx] (indices of shapes [1, 1]
    and [1, K]) whose len bounds a loop, and a split by one size that is
    not constant (boxes per image of one image)"""
    def forward(self, x):
        top = x.topk(3, dim=1)[1]
        b = torch.arange(1)[:, None]
        y = x[b, top]
        out: List[Tensor] = []
        for i in range(min([len(y), 1])):
            out.append(y[i] * 2.0)
        parts = x.split([x.size(1)], 1)
        return out[0], parts[0] + 1.0


CASES = {
    "noneloop": (NoneLoop(), "x=f32[n,3]", [(4, 3), (2, 3)]),
    "listwrite": (ListWrite(), "x=f32[2,n]", [(2, 3), (2, 5)]),
    "dictops": (DictOps(), "x=f32[2,n]", [(2, 3), (2, 5)]),
    "strkeys": (StrKeys(), "x=f32[2,n]", [(2, 3), (2, 5)]),
    "dictlist": (DictList(), "x=f32[n,3]", [(4, 3), (2, 3)]),
    "loopwrite": (LoopWrite(), "x=f32[n,3]", [(4, 3), (2, 3)]),
    "indexsplit": (IndexSplit(), "x=f32[1,n]", [(1, 5), (1, 7)]),
}


def flat(o):
    if isinstance(o, Tensor):
        return [o]
    if isinstance(o, dict):
        return [t for v in o.values() for t in flat(v)]
    return [t for v in o for t in flat(v)]


for name, (m, spec, shapes) in CASES.items():
    m.eval()
    with open(f"{name}.spec", "w") as f:
        f.write(spec + "\n")
    s = torch.jit.script(m)
    for k, shape in enumerate(shapes):
        x = torch.randn(*shape)
        np.save(f"{name}-{k}.x.npy", x.numpy())
        with torch.no_grad():
            outs = flat(m(x))
            assert all((a == b).all() for a, b in zip(outs, flat(s(x))))
        for i, o in enumerate(outs):
            np.save(f"want_{name}-{k}_{i}.npy", o.numpy())
    s.save(f"{name}.pt")

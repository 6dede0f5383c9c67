#!/usr/bin/python3
"""make_class_models.py OUTDIR - the scripted archives of
tests/202-script-classes.bats: the constructs detection and segmentation
models use, each small, each written by torch.jit.script and saved:

  obj       a TorchScript class object created in forward (C.__new__ and
            __init__), a field set again afterwards, a method called on it
  objmod    a class object made in a submodule and returned to the caller
  ntuple    a NamedTuple built in a submodule, read by field and by index
  getter    IntermediateLayerGetter: a Dict[str, str] module attribute
            looked up (`name in self.return_layers`) in a loop over the
            submodules, the outputs in an OrderedDict
  optional  Optional refinement: an Optional[Tensor] argument and an
            Optional[Tensor] module attribute tested with `is None`
  dictloop  a Dict[str, Tensor] changed inside a loop and an if (it becomes
            one value with aten::_set_item), then read back
  dictif    a dict made in each arm of an if (one arm raising further in),
            changed after it
  objif     an object's fields set inside ifs on tensors (nested, one arm
            raising); objif2 the same on inputs that take the other arm
  objloop   an object's field set inside a loop: it becomes a value
  objlist   objects in a list, methods called on its elements
  listdict  a List[Dict[str, Tensor]] built in a loop, read back
  inplace   index_put_ inside a loop on a tensor made before the loop
  warn      a module attribute set in forward (`self._has_warned = True`)

For each NAME: NAME.pt; torch's oracle NAME.ops (one aten kind a line) and
NAME.nweights (tests/script/compare_ops.py: torch_oracle, with torchvision's
ops registered); the inputs NAME.in.txt (name=spec lines) with
NAME.IN.npy files and torch's outputs NAME.want_K.npy (tuples flattened)."""
import os
import sys
from collections import OrderedDict
from typing import Dict, List, NamedTuple, Optional

import numpy as np
import torch
import torch.nn as nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_ops  # noqa: E402


@torch.jit.script
class Scaled(object):
    def __init__(self, t: torch.Tensor, scale: float):
        self.t = t
        self.scale = scale

    def apply(self, x: torch.Tensor) -> torch.Tensor:
        return x * self.scale + self.t


class Obj(nn.Module):
    def forward(self, x):
        s = Scaled(x.sum(dim=1, keepdim=True), 2.0)
        s.scale = s.scale * 1.5
        s.t = s.t + 1.0
        return s.apply(x)


class MakeScaled(nn.Module):
    def forward(self, x) -> Scaled:
        return Scaled(x.mean(dim=0, keepdim=True), 0.5)


class ObjMod(nn.Module):
    def __init__(self):
        super().__init__()
        self.make = MakeScaled()

    def forward(self, x):
        s = self.make(x)
        return s.apply(x) - s.t


class Pair(NamedTuple):
    lo: torch.Tensor
    hi: torch.Tensor


class Split(nn.Module):
    def forward(self, x) -> Pair:
        return Pair(torch.clamp(x, max=0.0), torch.clamp(x, min=0.0))


class NTuple(nn.Module):
    def __init__(self):
        super().__init__()
        self.split = Split()

    def forward(self, x):
        p = self.split(x)
        return p.hi * 2.0 + p[0]


class Getter(nn.ModuleDict):
    """torchvision's IntermediateLayerGetter, as it is"""
    def __init__(self):
        layers = OrderedDict([("conv1", nn.Conv2d(3, 4, 3, padding=1)),
                              ("relu", nn.ReLU()),
                              ("conv2", nn.Conv2d(4, 4, 3, padding=1)),
                              ("pool", nn.MaxPool2d(2))])
        super().__init__(layers)
        self.return_layers = {"relu": "feat", "pool": "out"}

    def forward(self, x):
        out = OrderedDict()
        for name, module in self.items():
            x = module(x)
            if name in self.return_layers:
                out_name = self.return_layers[name]
                out[out_name] = x
        return out


class GetterUser(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = Getter()

    def forward(self, x):
        feats = self.body(x)
        return feats["out"].sum(dim=1), feats["feat"]


class Opt(nn.Module):
    def __init__(self):
        super().__init__()
        self.bias: Optional[torch.Tensor] = None

    def forward(self, x, y: Optional[torch.Tensor] = None):
        if y is not None:
            x = x + y
        b = self.bias
        if b is not None:
            x = x + b
        return x * 3.0


class DictIf(nn.Module):
    def forward(self, x):
        if bool(x.sum() > 0):
            d = {"a": x * 2.0, "b": x}
        else:
            d = {"a": x - 1.0, "b": x}
            if bool(x.mean() > 5.0):
                raise ValueError("never")
        d["c"] = d["a"] + d["b"]
        return d["c"]


class ObjIf(nn.Module):
    """fields set inside ifs on tensors (nested, one arm raising)"""
    def forward(self, x):
        s = Scaled(x, 1.0)
        if bool(x.sum() > 0):
            s.scale = 2.0
            if bool(x.max() > 1.5):
                s.t = s.t * 3.0
        else:
            s.scale = 0.5
        if bool(x.min() < -10.0):
            raise ValueError("never")
        else:
            s.t = s.t + 1.0
        return s.apply(x)


class ObjLoop(nn.Module):
    """a field of an object from before a loop set in it: the object is a
    value (prim::CreateObject, SetAttr, GetAttr)"""
    def forward(self, x):
        s = Scaled(x, 1.0)
        for i in range(x.size(0)):
            s.t = s.t + x[i]
        return s.apply(x)


class ObjList(nn.Module):
    """objects in a list, their methods called on the elements"""
    def forward(self, x):
        objs: List[Scaled] = []
        for i in range(x.size(0)):
            objs.append(Scaled(x[i], float(i) + 1.0))
        out = []
        for o in objs:
            out.append(o.apply(x[0]))
        return torch.stack(out)


class DictLoop(nn.Module):
    def forward(self, x):
        d: Dict[str, torch.Tensor] = {}
        d["a"] = x
        for i in range(x.size(0)):
            d["a"] = d["a"] * 2.0
        if bool(x.sum() > 0):
            d["b"] = x + 1.0
        else:
            d["b"] = x - 1.0
        return d["a"] + d["b"]


class ListDict(nn.Module):
    def forward(self, x):
        res: List[Dict[str, torch.Tensor]] = []
        for i in range(x.size(0)):
            res.append({"row": x[i], "sq": x[i] * x[i]})
        out = []
        for r in res:
            out.append(r["row"] + r["sq"])
        return torch.stack(out)


class InPlace(nn.Module):
    def forward(self, x, idx):
        result = torch.zeros_like(x)
        for k in range(idx.size(0)):
            sel = idx[k:k + 1]
            result[sel] = x[sel] * 2.0
        return result


class Warn(nn.Module):
    def __init__(self):
        super().__init__()
        self._has_warned = False

    def forward(self, x):
        if not self._has_warned:
            self._has_warned = True
            y = x + 1.0
        else:
            y = x
        return y * 2.0


def models():
    torch.manual_seed(0)
    x4 = torch.randn(2, 3, 8, 8)
    x2 = torch.randn(4, 5)
    return {
        "obj": (Obj(), [("x", x2, "f32[n,5]")]),
        "objmod": (ObjMod(), [("x", x2, "f32[n,5]")]),
        "ntuple": (NTuple(), [("x", x2, "f32[n,5]")]),
        "getter": (GetterUser(), [("x", x4, "f32[2,3,8,8]")]),
        "optional": (Opt(), [("x", x2, "f32[n,5]")]),
        "dictloop": (DictLoop(), [("x", x2, "f32[n,5]")]),
        "dictif": (DictIf(), [("x", x2, "f32[n,5]")]),
        "objif": (ObjIf(), [("x", x2, "f32[n,5]")]),
        "objif2": (ObjIf(), [("x", -x2, "f32[n,5]")]),
        "objloop": (ObjLoop(), [("x", x2, "f32[n,5]")]),
        "objlist": (ObjList(), [("x", x2, "f32[n,5]")]),
        "listdict": (ListDict(), [("x", x2, "f32[n,5]")]),
        "inplace": (InPlace(), [("x", x2, "f32[4,5]"),
                                ("idx", torch.tensor([3, 0]), "i64[2]")]),
        "warn": (Warn(), [("x", x2, "f32[n,5]")]),
    }


def object_field_kinds(path):
    """The aten kinds that compute the fields of class objects in torch's
    graph (prepared as compare_ops.torch_oracle prepares it):
    torch_oracle walks back from the outputs through producers, and a
    field reaches its reader through prim::SetAttr / prim::GetAttr on the
    object, which that walk does not follow.  Every prim::SetAttr on a
    prim::CreateObject's object counts, with what its value depends on and
    the nodes whose blocks hold it (the ifs deciding whether it runs)."""
    m = torch.jit.load(path, map_location="cpu").eval()
    frozen = torch._C._freeze_module(m._c, [], True, True)
    g = frozen._get_method("forward").graph
    torch._C._jit_pass_inline(g)
    compare_ops.settle_export_facts(g)
    torch._C._jit_pass_remove_mutation(g)
    torch._C._jit_pass_constant_propagation(g)
    kinds, seen = set(), set()

    def need(n):
        if n in seen:
            return
        seen.add(n)
        if n.kind().startswith("aten::"):
            kinds.add(compare_ops.norm(n.kind()))
        for v in n.inputs():
            need(v.node())
        for b in n.blocks():
            for v in b.outputs():
                need(v.node())
            for x in b.nodes():
                need(x)

    def raises(b):
        return any(x.kind() == "prim::RaiseException" for x in b.nodes())

    def walk(block, owners):
        for n in block.nodes():
            if n.kind() == "prim::SetAttr" and \
                    n.inputsAt(0).node().kind() == "prim::CreateObject":
                need(n.inputsAt(1).node())
                for o in owners:  # the ifs that decide whether it runs
                    if not any(raises(b) for b in o.blocks()):
                        need(o)  # (one raising arm: the other arm is it)
            for b in n.blocks():
                walk(b, owners + [n])
    walk(g.block(), [])
    return kinds


def flatten(o):
    if isinstance(o, (tuple, list)):
        return [t for x in o for t in flatten(x)]
    if isinstance(o, dict):
        return [t for x in o.values() for t in flatten(x)]
    return [o]


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    only = set(sys.argv[2:])
    for name, (m, ins) in models().items():
        if only and name not in only:
            continue
        m.eval()
        sm = torch.jit.script(m)
        path = os.path.join(out, name + ".pt")
        sm.save(path)
        with torch.no_grad():
            want = flatten(m(*[t for _, t, _ in ins]))
        r = compare_ops.torch_oracle(path)
        ops = sorted(set(r["ops"]) | object_field_kinds(path))
        with open(os.path.join(out, name + ".ops"), "w") as f:
            f.write("\n".join(ops) + "\n")
        with open(os.path.join(out, name + ".nweights"), "w") as f:
            f.write("%d\n" % len(r["weights"]))
        with open(os.path.join(out, name + ".in.txt"), "w") as f:
            for n, t, spec in ins:
                np.save(os.path.join(out, f"{name}.{n}.npy"), t.numpy())
                f.write(f"{n}={spec}\n")
        for k, t in enumerate(want):
            np.save(os.path.join(out, f"{name}.want_{k}.npy"), t.numpy())


if __name__ == "__main__":
    main()

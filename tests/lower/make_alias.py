#!/usr/bin/python3
"""make_alias.py - models for tests/414-lower-alias.bats: in-place writes
through views and identity-like ops, where torch's aliasing decides what a
write changes: a write into x.clone() (or x.to(..., copy=True),
torch.cat([x]), x.repeat(1, 1)) must leave x as it was; a write into
x.detach(), aten::alias(x), x.contiguous(), x.to(same dtype) or dropout
in eval mode changes x too, as eager torch does.

  make_alias.py NAME...     in the current directory, per model NAME:
                            NAME.traced.pt (torch.jit.trace),
                            NAME.scripted.pt (torch.jit.script, where the
                            model scripts and the scripted module gives
                            eager's outputs), NAME.x.npy (the input) and
                            NAME.want0.npy, ... (eager torch's outputs on
                            a copy of the input)
  make_alias.py --list      the model names

The oracle is eager torch (Debian python3-torch); the models mutate their
input, so each run gets a fresh copy of it.
"""
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class CloneSelect(nn.Module):
    """the issue's example: a write into a select view of a clone"""
    def forward(self, x):
        y = x.clone()
        y[:, 1] = 0.0
        return x + 1, y


class CloneSlice(nn.Module):
    """writes into slice views (with a step) of a clone"""
    def forward(self, x):
        y = x.clone()
        y[1:3] = 5.0
        y[:, ::2] += 1.0
        return x * 2, y


class CloneInplace(nn.Module):
    """an in-place op on the whole clone, then on a view of it"""
    def forward(self, x):
        y = x.clone()
        y.add_(1)
        y[0].mul_(2)
        return x, y


class CloneSrc(nn.Module):
    """writes into the source after the clone: the clone keeps the old
    values (and the mutated input is returned)"""
    def forward(self, x):
        y = x.clone()
        x.mul_(3)
        x[0] = 7.0
        return x, y


class Nested(nn.Module):
    """views of views of a clone, and a clone of the written clone"""
    def forward(self, x):
        y = x.clone()
        r = y[1]
        r[1:3] = 0.0
        s = y[:, 2:]
        s[0].fill_(6.0)
        c = y.clone()
        c[2] = 1.0
        return x, y, c


class CloneOfView(nn.Module):
    """a clone of a view is no view: writes into it stay there"""
    def forward(self, x):
        v = x[1:]
        y = v.clone()
        y[0] = 1.0
        w = y.clone()
        w.mul_(2)
        return x, y, v, w


class ResultWrite(nn.Module):
    """the result of an in-place op and a detach() of a clone alias the
    clone, not its source"""
    def forward(self, x):
        y = x.clone()
        t = y.add_(1)
        t[0] = 0.0
        d = y.detach()
        d[:, 1] = -3.0
        return x, y


class DetachWrite(nn.Module):
    """detach() and contiguous() alias: writes into them change z"""
    def forward(self, x):
        z = x * 1.0
        d = z.detach()
        d[0] = 4.0
        a = z.contiguous()
        a[:, 0] += 2.0
        return z, d, a


class AliasWrite(nn.Module):
    """aten::alias aliases"""
    def forward(self, x):
        z = x + 0.5
        a = torch.ops.aten.alias(z)
        a[1, 1:] = 9.0
        return z


class ToSame(nn.Module):
    """x.to(same dtype) aliases, x.to(..., copy=True) copies"""
    def forward(self, x):
        z = x + 0.5
        t = z.to(torch.float32)
        t[0, 0] = -1.0
        u = z.to(torch.float32, copy=True)
        u[1] = -2.0
        return z, t, u


class DropoutEval(nn.Module):
    """dropout in eval mode returns its input itself in eager torch"""
    def forward(self, x):
        z = x * 2.0
        d = F.dropout(z, 0.5, False)
        d[0] = 1.0
        return z, d


class CatOne(nn.Module):
    """torch.cat of one tensor and repeat(1, 1) are new tensors"""
    def forward(self, x):
        z = x * 2.0
        c = torch.cat([z])
        c[0] = 1.0
        r = z.repeat(1, 1)
        r[1] = 2.0
        return z, c, r


class CopyInto(nn.Module):
    """copy_ into a new tensor, then writes into it: x stays"""
    def forward(self, x):
        y = torch.zeros_like(x)
        y.copy_(x)
        y.add_(1)
        y[0] = 3.0
        return x, y


class LoopWrite(nn.Module):
    """a clone made and written in a loop body (an onnx::Loop when
    scripted)"""
    def forward(self, x):
        acc = torch.zeros_like(x)
        for i in range(3):
            z = x.clone()
            z[i] = float(i)
            acc = acc + z
        return acc, x


class IfWrite(nn.Module):
    """a clone made and written in each branch of an if on data"""
    def forward(self, x):
        if bool(x.sum() > 0):
            z = x.clone()
            z[0] = 1.0
        else:
            z = x.clone()
            z[1] = 2.0
        return z, x


class OuterWrite(nn.Module):
    """a write in an if body into a clone made before the if: the trace
    resolves the if; lower refuses it in the scripted graph"""
    def forward(self, x):
        y = x.clone()
        if bool(x.sum() > 0):
            y[0] = 1.0
        return x, y


class LoopInput(nn.Module):
    """an in-place op on the graph input in a loop body: the trace
    unrolls it; lower refuses it in the scripted graph"""
    def forward(self, x):
        for i in range(3):
            x.add_(1.0)
        return x


MODELS = {
    "clone_select": CloneSelect, "clone_slice": CloneSlice,
    "clone_inplace": CloneInplace, "clone_src": CloneSrc,
    "nested": Nested, "clone_of_view": CloneOfView,
    "result_write": ResultWrite, "detach_write": DetachWrite,
    "alias_write": AliasWrite, "to_same": ToSame,
    "dropout_eval": DropoutEval, "cat_one": CatOne, "copy_into": CopyInto,
    "loop_write": LoopWrite, "if_write": IfWrite,
    "outer_write": OuterWrite, "loop_input": LoopInput,
}


def outs(o):
    return list(o) if isinstance(o, tuple) else [o]


def build(name):
    torch.manual_seed(0)
    m = MODELS[name]().eval()
    x = torch.randn(4, 5)
    np.save(f"{name}.x.npy", x.numpy())
    with torch.no_grad():
        want = outs(m(x.clone()))
        for k, w in enumerate(want):
            np.save(f"{name}.want{k}.npy", w.numpy())
        torch.jit.trace(m, (x.clone(),), check_trace=False).save(
            f"{name}.traced.pt")
        try:
            sm = torch.jit.script(m)
            got = outs(sm(x.clone()))
            if len(got) == len(want) and all(
                    torch.equal(a, b) for a, b in zip(got, want)):
                sm.save(f"{name}.scripted.pt")
        except Exception as e:  # noqa: BLE001 - script support varies
            print(f"{name}: not scripted: {str(e).splitlines()[0]}",
                  file=sys.stderr)


def main():
    if sys.argv[1:] == ["--list"]:
        print(" ".join(MODELS))
        return
    for name in sys.argv[1:]:
        build(name)


if __name__ == "__main__":
    main()

"""make_args_models.py - forward arguments that are not tensors (issue 14):
tuples, lists, nested ones, ints, floats, bools and None, in scripted and
traced archives built by torch 1.13, with their inputs and torch's outputs.

    python3 make_args_models.py NAME... | all

For each NAME: NAME.s.pt (torch.jit.script) and, where torch can trace it,
NAME.t.pt (torch.jit.trace); NAME.spec, one --input SPEC a line (tensors
as dtype and shape); NAME.npyspec, the same with each tensor a .npy file;
NAME.in.LEAF.npy, one a tensor leaf, named as pt2onnx names the graph
inputs (an argument's name, a tuple's or list's items NAME.0, NAME.1);
want_NAME_K.npy, torch's outputs flattened in order.
"""
import sys
from typing import List, Optional, Tuple

import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)


class LstmState(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(4, 3)

    def forward(self, x, hx: Tuple[torch.Tensor, torch.Tensor]):
        y, (h, c) = self.rnn(x, hx)
        return y, h, c


class ListIn(nn.Module):
    def forward(self, xs: List[torch.Tensor]):
        return xs[0] + xs[1] * xs[2]


class Nested(nn.Module):
    def forward(self, a: Tuple[Tuple[torch.Tensor, torch.Tensor], torch.Tensor],
                b: List[torch.Tensor]):
        (p, q), r = a
        return p * q - r, b[0] + b[1]


class Scalars(nn.Module):
    def forward(self, x, n: int, f: float, b: bool):
        y = x * n + f
        if b:
            y = y.relu()
        return y, x.sum(0) * n


class Opt(nn.Module):
    def forward(self, x, y: Optional[torch.Tensor] = None):
        if y is None:
            return x + 1
        return x - y


def t(*shape):
    return torch.randn(*shape)


# name: (module, args, argument names, specs (one per argument), trace?)
CASES = {
    "lstm_state": (LstmState, lambda: (t(5, 2, 4), (t(1, 2, 3), t(1, 2, 3))),
                   ["x", "hx"], True),
    "list_in": (ListIn, lambda: ([t(2, 3), t(2, 3), t(2, 3)],), ["xs"], True),
    "nested": (Nested, lambda: (((t(2, 3), t(2, 3)), t(2, 3)),
                                [t(4), t(4)]), ["a", "b"], True),
    "scalars": (Scalars, lambda: (t(2, 3), 3, 0.5, True),
                ["x", "n", "f", "b"], False),
    "opt_none": (Opt, lambda: (t(2, 3), None), ["x", "y"], False),
    "opt_some": (Opt, lambda: (t(2, 3), t(2, 3)), ["x", "y"], False),
}

DTYPES = {torch.float32: "f32", torch.int64: "i64"}


def spec(v, name, npy, leaves):
    """the --input SPEC of v (without its name); its tensors into leaves"""
    if isinstance(v, torch.Tensor):
        leaves.append((name, v))
        if npy:
            return f"{npy}.in.{name}.npy"
        return f"{DTYPES[v.dtype]}[{','.join(map(str, v.shape))}]"
    if isinstance(v, (tuple, list)):
        items = [spec(x, f"{name}.{i}", npy, leaves) for i, x in enumerate(v)]
        o, c = ("(", ")") if isinstance(v, tuple) else ("[", "]")
        return o + ",".join(items) + ("," if len(v) == 1 and o == "(" else "") + c
    if v is None:
        return "none"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return f"int:{v}"
    return f"float:{v!r}"


def flat(v, out):
    if isinstance(v, torch.Tensor):
        out.append(v)
    elif isinstance(v, (tuple, list)):
        for x in v:
            flat(x, out)
    return out


for name in list(CASES) if sys.argv[1:] == ["all"] else sys.argv[1:]:
    cls, make, names, traceable = CASES[name]
    m = cls().eval()
    args = make()
    torch.jit.script(m).save(f"{name}.s.pt")
    if traceable:
        torch.jit.trace(m, args).save(f"{name}.t.pt")
    leaves = []
    with open(f"{name}.spec", "w") as f, open(f"{name}.npyspec", "w") as g:
        for n, a in zip(names, args):
            f.write(f"{n}={spec(a, n, None, leaves)}\n")
            g.write(f"{n}={spec(a, n, name, [])}\n")
    for n, v in leaves:
        np.save(f"{name}.in.{n}.npy", v.numpy())
    with torch.no_grad():
        outs = flat(m(*args), [])
    for k, o in enumerate(outs):
        np.save(f"want_{name}_{k}.npy", o.numpy())

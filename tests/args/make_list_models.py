"""make_list_models.py - list operations in scripted code (issue 14): list
`+`, `x in l` (numbers, constants and a dynamic size; str), lists built in
loops and indexed, and torch's RnnModelWithPackedSequenceWithoutState
(`list([ret] + list(rets))` around a packed LSTM), scripted by torch 1.13.

    python3 make_list_models.py

For each NAME: NAME.pt, its --input spec NAME.spec (the dim named n is
dynamic), and per size K: NAME-K.x.npy (and NAME-K.lengths.npy) and torch's
outputs want_NAME-K_I.npy.
"""
from typing import List, Optional, Tuple

import numpy as np
import torch
import torch.nn as nn
import torch.nn.utils.rnn as rnn_utils
from torch import Tensor

torch.manual_seed(0)


class ListAdd(nn.Module):
    def forward(self, x):
        a = [x, x * 2]
        c = a + [x + 1]
        s = [1, 2] + [x.size(0)]
        return c[0] + c[2] * c[1], x.reshape(s[2], -1) * s[1]


class Contains(nn.Module):
    def __init__(self):
        super().__init__()
        self.mode = "b"

    def forward(self, x):
        ks: List[int] = [1, 3]
        y = x * 3 if self.mode in ["a", "b"] else x
        if x.size(1) in ks:
            return y + 1
        return y - 1


class Loops(nn.Module):
    def forward(self, x):
        outs: List[Tensor] = []
        for i in range(x.size(0)):
            outs.append(x[i] * i)
        cats: List[Tensor] = []
        for i in range(3):
            cats.append(x * i)
        return outs[1] + outs[-1], torch.cat(cats, 0)


class LstmFlat(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner_model = nn.LSTM(3, 5)

    def forward(self, input: rnn_utils.PackedSequence,
                hx: Optional[Tuple[Tensor, Tensor]] = None):
        output, (hidden, cell) = self.inner_model.forward(input, hx)
        return output, hidden, cell


class PackedList(nn.Module):
    """torch's test/onnx RnnModelWithPackedSequenceWithoutState"""
    def __init__(self):
        super().__init__()
        self.model = LstmFlat()

    def forward(self, x, lengths):
        x = rnn_utils.pack_padded_sequence(x, lengths, False)
        rets = self.model(x)
        ret, rets = rets[0], rets[1:]
        ret, _ = rnn_utils.pad_packed_sequence(ret, False)
        return list([ret] + list(rets))


CASES = {
    "list_add": (ListAdd(), "x=f32[4,n]", [(4, 3), (4, 2)], None),
    "contains": (Contains(), "x=f32[4,n]", [(4, 3), (4, 2)], None),
    "loops": (Loops(), "x=f32[4,n]", [(4, 3), (4, 2)], None),
    "packed_list": (PackedList(), "x=f32[5,b,3]", [(5, 2, 3), (5, 3, 3)],
                    [[5, 2], [5, 3, 1]]),
}

for name, (m, spec, shapes, lens) in CASES.items():
    m.eval()
    with open(f"{name}.spec", "w") as f:
        f.write(spec + "\n")
        if lens:
            f.write("lengths=i64[b]\n")
    for k, shape in enumerate(shapes):
        args = [torch.randn(*shape)]
        np.save(f"{name}-{k}.x.npy", args[0].numpy())
        if lens:
            args.append(torch.tensor(lens[k]))
            np.save(f"{name}-{k}.lengths.npy", args[1].numpy())
        with torch.no_grad():
            outs = m(*args)
        if isinstance(outs, Tensor):
            outs = [outs]
        for i, o in enumerate(outs):
            np.save(f"want_{name}-{k}_{i}.npy", o.numpy())
    torch.jit.script(m).save(f"{name}.pt")

"""make_packed_models.py - packed sequences (issue 14): nn.utils.rnn's
pack_padded_sequence and pad_packed_sequence around LSTM, GRU and RNN,
enforce_sorted True and False, batch_first, bidirectional, 2 layers, an
initial state, in archives scripted and traced by torch 1.13; and
pad_packed_sequence's output length: the longest length when it is
shorter than the padded input, total_length given as a number (longer
than the input too) or as the input's own x.size(0).

    python3 make_packed_models.py

For each case NAME: NAME.s.pt (torch.jit.script), NAME.t.pt
(torch.jit.trace), and for each set K of lengths (each with the longest
as long as the input, as torch.onnx.export's model needs, except in
the SHORT cases): NAME-K.x.npy,
NAME-K.lengths.npy, NAME-K.h0.npy (read only by the rnn_*_h0 cases) and torch's outputs
want_NAME-K_I.npy.
"""
import numpy as np
import torch
import torch.nn as nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

torch.manual_seed(0)
T, B, F, H = 5, 3, 4, 6


class Packed(nn.Module):
    # tl: pad_packed_sequence's total_length: -1 none, -2 x.size(time),
    # else that number
    def __init__(self, kind, sort, bf, state, tl=-1, **kw):
        super().__init__()
        self.rnn = getattr(nn, kind)(F, H, batch_first=bf, **kw)
        self.sort, self.bf, self.state, self.tl = sort, bf, state, tl

    def forward(self, x, lengths, h0):
        p = pack_padded_sequence(x, lengths, batch_first=self.bf,
                                 enforce_sorted=self.sort)
        if self.state:
            y, h = self.rnn(p, h0)
        else:
            y, h = self.rnn(p)
        if self.tl == -1:
            o, n = pad_packed_sequence(y, batch_first=self.bf)
        elif self.tl == -2:
            o, n = pad_packed_sequence(y, batch_first=self.bf,
                                       total_length=x.size(int(self.bf)))
        else:
            o, n = pad_packed_sequence(y, batch_first=self.bf,
                                       total_length=self.tl)
        return o, n


class PackedLstm(nn.Module):
    def __init__(self, sort, **kw):
        super().__init__()
        self.rnn = nn.LSTM(F, H, **kw)
        self.sort = sort

    def forward(self, x, lengths, h0):
        p = pack_padded_sequence(x, lengths, enforce_sorted=self.sort)
        y, (h, c) = self.rnn(p)
        o, _ = pad_packed_sequence(y)
        return o, h, c


# name: (module, h0's layers * directions or 0, sorted lengths only)
CASES = {
    "lstm_unsorted": (PackedLstm(False), 0, False),
    "gru_sorted_bf_bi_2l": (Packed("GRU", True, True, False, num_layers=2,
                                   bidirectional=True), 0, True),
    "rnn_unsorted_bi_h0": (Packed("RNN", False, False, True,
                                  bidirectional=True), 2, False),
    "lstm_sorted_2l": (PackedLstm(True, num_layers=2), 0, True),
}
# padded inputs longer than the longest length: torch's output has the
# longest length's steps, or total_length's
SHORT = {
    "gru_short": Packed("GRU", False, False, False),
    "gru_short_bf_bi_total7": Packed("GRU", True, True, False, tl=7,
                                     bidirectional=True),
    "rnn_short_total_xsize": Packed("RNN", False, False, False, tl=-2),
    "gru_short_total4_h0": Packed("GRU", False, False, True, tl=4),
    "rnn_short_sorted_2l": Packed("RNN", True, False, False, num_layers=2),
}
CASES.update({k: (m, int(m.state), m.sort) for k, m in SHORT.items()})
LENGTHS = [[5, 3, 1], [5, 5, 5], [2, 5, 4], [1, 1, 5]]
LENGTHS_SHORT = [[3, 2, 1], [4, 4, 4], [2, 1, 3], [1, 1, 1]]

for name, (m, nh, sort) in CASES.items():
    m.eval()
    sets = [sorted(ls, reverse=True) if sort else ls
            for ls in (LENGTHS_SHORT if name in SHORT else LENGTHS)]
    ins = []
    for k, ls in enumerate(sets):
        bf = getattr(m, "bf", False)
        x = torch.randn(B, T, F) if bf else torch.randn(T, B, F)
        h0 = torch.randn(max(nh, 1), B, H)
        ins.append((x, torch.tensor(ls), h0))
        np.save(f"{name}-{k}.x.npy", x.numpy())
        np.save(f"{name}-{k}.lengths.npy", np.array(ls, dtype=np.int64))
        np.save(f"{name}-{k}.h0.npy", h0.numpy())
        with torch.no_grad():
            for i, o in enumerate(m(*ins[-1])):
                np.save(f"want_{name}-{k}_{i}.npy", o.numpy())
    torch.jit.script(m).save(f"{name}.s.pt")
    torch.jit.trace(m, ins[0]).save(f"{name}.t.pt")

# make_opgaps.py - the models of tests/417-lower-opgaps.bats: per-operator
# models that torch.onnx.export converts and `lower` used to refuse or get
# wrong (clamp with tensor bounds, batch_norm with its own training flag,
# squeeze of dynamic dims, vector norms of any ord, _reshape_from_tensor),
# each traced and scripted by torch, with torch's eager outputs on one or
# two input sets as the oracle.
#
#   make_opgaps.py NAME DIR   writes DIR/traced.pt, DIR/scripted.pt,
#   DIR/meta.json (inputs: name, dtype spec, dynamic axes), DIR/inK/NAME.npy
#   and DIR/outK/N.npy for each input set K (1, and 2 where dynamic).
import sys

import torch
import torch.nn.functional as F

from opcases import write_case

torch.manual_seed(0)
name, d = sys.argv[1], sys.argv[2]


class ClampT(torch.nn.Module):
    """tensor bounds, broadcast (lo [5], hi [4,1]; lo > hi in places),
    one side only"""
    def forward(self, x, lo, hi):
        return (torch.clamp(x, lo, hi), torch.clamp(x, min=lo),
                torch.clamp(x, max=hi), torch.clamp(x, None, lo),
                torch.clamp_min(x, hi), torch.clamp_max(x, lo))


class ClampInt(torch.nn.Module):
    """integers (Max/Min take none before opset 12), an Int bound on a
    Long tensor (Long), a Float bound on a Long tensor (Float)"""
    def forward(self, n, lo, f):
        return (torch.clamp(n, lo, lo + 3), torch.clamp_min(n, lo),
                torch.clamp(n, min=f))


class BNTrain(torch.nn.Module):
    """F.batch_norm with training=True: the batch's statistics"""
    def forward(self, x, w, b, rm, rv):
        return F.batch_norm(x, rm, rv, w, b, training=True, momentum=0.5,
                            eps=0.6)


class BNTrainBare(torch.nn.Module):
    """no running stats, no weight or bias, 4-d and 2-d inputs"""
    def forward(self, x, y):
        return (F.batch_norm(x, None, None, training=True),
                F.batch_norm(y, None, None, training=True, eps=1e-3))


class Squeeze(torch.nn.Module):
    def forward(self, x):
        return torch.squeeze(x) * 2.0


class VNorm(torch.nn.Module):
    def forward(self, x, z):
        inf = float("inf")
        return (torch.linalg.vector_norm(x, ord=6),
                torch.linalg.vector_norm(x, ord=inf, dim=1),
                torch.linalg.vector_norm(x, ord=-inf, dim=(0, 2),
                                         keepdim=True),
                torch.linalg.vector_norm(z, ord=0, dim=1),
                torch.linalg.vector_norm(x, ord=3.5, dim=-1),
                torch.linalg.vector_norm(x, ord=0.5),
                torch.linalg.vector_norm(x, ord=-2, dim=2),
                torch.linalg.vector_norm(x, ord=3, dim=1,
                                         dtype=torch.float64),
                torch.linalg.vector_norm(x, ord=2, dim=0),
                x.norm(p=inf, dim=2))


class ReshapeT(torch.nn.Module):
    def forward(self, x, y):
        return torch._reshape_from_tensor(x, torch._shape_as_tensor(y)) + 1.0


class Loops(torch.nn.Module):
    """range over a dynamic size: aten::__range_length and
    aten::__derive_index when scripted; an empty range on set 2"""
    def forward(self, x):
        acc = torch.zeros_like(x[0])
        for i in range(1, x.size(0), 2):
            acc = acc + x[i]
        for i in range(0, x.size(0), 3):
            acc = acc * 0.5 + x[i]
        for i in range(5, x.size(0)):
            acc = acc - x[i]
        return acc


class Misc(torch.nn.Module):
    """item, as_tensor (with and without a dtype), list of a dynamic
    size(), tensor of a float list and of a list of numbers computed"""
    def forward(self, x, y):
        s = list(x.size())
        a = x.view(s[1], s[0])
        b = x + x.max().item()
        c = torch.as_tensor(y, dtype=torch.float64) * 2
        d = torch.as_tensor(y) + 1
        e = y + torch.tensor([1.0, 2.5, -3.0])
        f = torch.tensor([y.sum().item(), 2.0]) * 3
        return a, b, c, d, e, f


class Conv(torch.nn.Module):
    """the generic aten::convolution: strided, dilated, grouped; and
    transposed with output_padding and groups"""
    def forward(self, x, w, b, wt):
        return (torch.convolution(x, w, b, [2, 1], [1, 2], [1, 2], False,
                                  [0, 0], 2),
                torch.convolution(x, wt, None, [2, 2], [1, 0], [1, 1], True,
                                  [1, 0], 2))


class FQ(torch.nn.Module):
    def forward(self, x):
        return torch.fake_quantize_per_channel_affine(
            x, torch.tensor([0.05, 0.1, 0.2]),
            torch.tensor([0, 5, 10], dtype=torch.int32), 1, 0, 255)


class EmbBag(torch.nn.Module):
    """embedding_bag: sum with per_sample_weights, mean and max, offsets
    with an empty bag, include_last_offset, padding_idx, 2-d indices"""
    def forward(self, w, idx, off, psw, idx2):
        return (F.embedding_bag(idx, w, off, mode="sum", per_sample_weights=psw),
                F.embedding_bag(idx, w, off, mode="mean"),
                F.embedding_bag(idx, w, off, mode="max"),
                F.embedding_bag(idx, w, torch.cat([off, torch.tensor([idx.size(0)])]),
                                mode="sum", include_last_offset=True),
                F.embedding_bag(idx, w, off, mode="mean", padding_idx=3),
                F.embedding_bag(idx2, w, None, mode="mean"),
                F.embedding_bag(idx2, w, None, mode="max", padding_idx=2),
                F.embedding_bag(idx2, w, None, mode="sum"))


class Quant(torch.nn.Module):
    """quantize_per_tensor to quint8 and qint8 (saturating, ties to
    even), then dequantize"""
    def forward(self, x):
        return (torch.dequantize(torch.quantize_per_tensor(x, 0.05, 10, torch.quint8)),
                torch.dequantize(torch.quantize_per_tensor(x, 0.02, -3, torch.qint8)))


class Cells(torch.nn.Module):
    """lstm_cell (with and without biases), gru_cell, rnn_tanh_cell,
    rnn_relu_cell"""
    def forward(self, x, h, cx, wi, wh, bi, bh, gwi, gwh, gbi, gbh, rwi, rwh):
        h1, c1 = torch.lstm_cell(x, [h, cx], wi, wh, bi, bh)
        h2, c2 = torch.lstm_cell(x, [h1, c1], wi, wh)
        g = torch.gru_cell(x, h, gwi, gwh, gbi, gbh)
        t = torch.rnn_tanh_cell(x, h, rwi, rwh, None, gbh[:6])
        u = torch.rnn_relu_cell(x, h, rwi, rwh)
        return h1, c1, h2, c2, g, t, u


class Renorm(torch.nn.Module):
    """embedding with max_norm: rows used and over the norm renormalised
    (norm_type 2, 1, 3), rows unused or under it unchanged"""
    def forward(self, idx, w):
        a = F.embedding(idx, w.clone(), max_norm=1.5)
        b = F.embedding(idx, w.clone(), max_norm=2.0, norm_type=1.0)
        c = F.embedding(idx[0], w.clone(), max_norm=1.0, norm_type=3.0)
        return a, b, c


class RenormW(torch.nn.Module):
    """the weight itself after the in-place renorm"""
    def forward(self, idx, w):
        v = w.clone()
        a = F.embedding(idx, v, max_norm=1.5)
        return a, v * 1.0


r = torch.randn
zeros = r(3, 6)
zeros[zeros.abs() < 0.6] = 0.0
cases = {
    # name: (module, [(input name, set 1, set 2 or None, dynamic axes)])
    "clamp_t": (ClampT(), [("x", r(4, 5), None, []), ("lo", r(5) * 0.5, None, []),
                           ("hi", r(4, 1) * 0.5, None, [])]),
    "clamp_int": (ClampInt(), [("n", torch.randint(-9, 9, (4, 5)), None, []),
                               ("lo", torch.randint(-4, 4, (5,), dtype=torch.int32), None, []),
                               ("f", r(4, 5) * 4, None, [])]),
    "bn_train": (BNTrain(), [("x", r(5, 5, 5) * 3 + 1, r(7, 5, 5) * 2 - 1, [0, 2]),
                             ("w", r(5), None, []), ("b", r(5), None, []),
                             ("rm", r(5), None, []), ("rv", r(5).abs(), None, [])]),
    "bn_bare": (BNTrainBare(), [("x", r(3, 4, 5, 6) + 2, None, []),
                                ("y", r(8, 3) * 5, None, [])]),
    "squeeze": (Squeeze(), [("x", r(5, 1, 6, 1), r(1, 1, 1, 1), [0, 2])]),
    "vnorm": (VNorm(), [("x", r(3, 4, 5), r(2, 4, 3), [0, 2]), ("z", zeros, None, [])]),
    "reshape_t": (ReshapeT(), [("x", r(2, 6), r(4, 6), [0]),
                               ("y", r(3, 4), r(8, 3), [0, 1])]),
}
cases.update({
    "loops": (Loops(), [("x", r(7, 3), r(3, 3), [0])]),
    "misc": (Misc(), [("x", r(2, 6), r(4, 3), [0, 1]), ("y", r(3), None, [])]),
    "conv": (Conv(), [("x", r(2, 4, 9, 8), None, []), ("w", r(6, 2, 3, 3), None, []),
                      ("b", r(6), None, []), ("wt", r(4, 3, 3, 2), None, [])]),
    "fq": (FQ(), [("x", r(2, 3, 4) * 4, None, [])]),
})
cases.update({
    "embbag": (EmbBag(), [("w", r(10, 4), None, []),
                          ("idx", torch.tensor([1, 3, 4, 3, 9, 0, 3, 5]), torch.tensor([2, 3, 7, 7, 1]), [0]),
                          ("off", torch.tensor([0, 2, 2, 5]), torch.tensor([0, 1, 4]), [0]),
                          ("psw", r(8), r(5), [0]),
                          ("idx2", torch.tensor([[1, 2, 3], [2, 2, 2], [0, 9, 8]]), None, [])]),
    "quant": (Quant(), [("x", torch.cat([r(40) * 5, torch.tensor([0.025, 0.075, -0.025, 0.01, -0.03])]), None, [])]),
})
B1, B2, I, H = 3, 5, 4, 6
cases["cells"] = (Cells(), [
    ("x", r(B1, I), r(B2, I), [0]), ("h", r(B1, H), r(B2, H), [0]),
    ("cx", r(B1, H), r(B2, H), [0]), ("wi", r(4 * H, I), None, []),
    ("wh", r(4 * H, H), None, []), ("bi", r(4 * H), None, []), ("bh", r(4 * H), None, []),
    ("gwi", r(3 * H, I), None, []), ("gwh", r(3 * H, H), None, []),
    ("gbi", r(3 * H), None, []), ("gbh", r(3 * H), None, []),
    ("rwi", r(H, I), None, []), ("rwh", r(H, H), None, [])])
cases["renorm"] = (Renorm(), [("idx", torch.tensor([[0, 2, 5], [2, 7, 7]]), torch.tensor([[1], [3], [9]]), [0, 1]),
                              ("w", r(10, 4), None, [])])
cases["renorm_w"] = (RenormW(), [("idx", torch.tensor([[0, 2, 5], [2, 7, 7]]), None, []),
                                 ("w", r(10, 4), None, [])])
m, ins = cases[name]
write_case(m, ins, d, name in ("loops", "misc"))

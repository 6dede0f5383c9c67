#!/usr/bin/env bats
# 303-trace-ops-nn.bats - `trace`'s neural-network ops (lib/trace/ops_nn.c,
# ops_nn_seq.c) against torch 1.13: matrix products, convolutions, pooling,
# norms, softmax, embedding, resampling, distances, losses, recurrent layers
# and the fast-path attention ops.  Small archives are made by torch in
# setup_file (scripted, and traced where the tracer records other ops), run
# once by `trace --save-outputs`; every output's shape, dtype and values are
# compared with torch's own outputs.
# bats file_tags=tier:standard
load helper

trace() { tool trace "$@"; }

setup_file() {
	need_torch || return 0
	export M="$BATS_FILE_TMPDIR"
	cat > "$M/gen.py" <<'PYEOF'
# Builds small TorchScript archives exercising trace's nn ops, with torch's
# own outputs as the oracle.  Usage: gen.py OUTDIR [NAME,...]
import os
import sys

import numpy as np
import torch
import trace_cases
import torch.nn as nn
import torch.nn.functional as F

out = sys.argv[1]
sys.path.insert(0, out)
torch.manual_seed(0)

SRC = r'''
import torch
import torch.nn as nn
import torch.nn.functional as F
from typing import List, Optional


class Products(nn.Module):
    def forward(self, a, b, v, m, bb):
        return (torch.matmul(a, b), torch.matmul(v, b[0]), torch.matmul(a, v),
                torch.matmul(v, v), torch.matmul(m, b), a @ b.transpose(1, 2).transpose(1, 2),
                torch.mm(m, m.t()), torch.mv(m.t(), v[:3]), torch.dot(v, v),
                torch.bmm(a, b), torch.addmm(m[:, 0], m, m.t(), beta=0.5, alpha=2.0),
                torch.addmv(v[:3], m, v, alpha=3), torch.baddbmm(bb, a, b, beta=2.0),
                torch.addbmm(bb[0], a, b), torch.matmul(a.unsqueeze(0), b.unsqueeze(1)))


class Lin(nn.Module):
    def __init__(self):
        super().__init__()
        self.l = nn.Linear(6, 5)
        self.n = nn.Linear(6, 3, bias=False)
        self.bl = nn.Bilinear(6, 4, 3)

    def forward(self, x, y):
        return (self.l(x), self.n(x), self.l(x[0, 0]), self.l(x.transpose(0, 1)),
                self.bl(x, y))


class Einsum(nn.Module):
    def forward(self, a, b, s):
        return (torch.einsum('bij,bjk->bik', a, b), torch.einsum('ii->i', s),
                torch.einsum('ij->', s), torch.einsum('bij->jb', a),
                torch.einsum('...ij,...jk', a, b), torch.einsum('i,j->ij', s[0], s[1]),
                torch.tensordot(a, b, [[1, 2], [2, 1]]), torch.einsum('bij,bij->b', a, a))


class Conv(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv1d(4, 6, 3, stride=2, padding=1)
        self.c2 = nn.Conv2d(4, 6, (3, 2), stride=(2, 1), padding=(1, 0), dilation=(1, 2), groups=2)
        self.c2s = nn.Conv2d(4, 4, 4, padding='same', bias=False)
        self.c3 = nn.Conv3d(4, 2, 2, padding=1)
        self.dw = nn.Conv2d(4, 4, 3, groups=4, padding=1)
        self.t1 = nn.ConvTranspose1d(4, 3, 3, stride=2, padding=1, output_padding=1)
        self.t2 = nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, groups=2, dilation=2)
        self.t3 = nn.ConvTranspose3d(4, 2, 2, stride=2)

    def forward(self, x1, x2, x3):
        return (self.c1(x1), self.c2(x2), self.c2s(x2), self.c3(x3), self.dw(x2),
                self.t1(x1), self.t2(x2), self.t3(x3), self.c1(x1[0]))


class Pool(nn.Module):
    def forward(self, x1, x2, x3):
        a, i = F.max_pool2d(x2, 3, 2, 1, 2, ceil_mode=True, return_indices=True)
        b, j = F.adaptive_max_pool2d(x2, (3, 2), return_indices=True)
        return (F.max_pool1d(x1, 2), F.max_pool2d(x2, 2), a, i, F.max_pool3d(x3, 2, 1),
                F.max_pool2d(x2, (2, 3), (1, 2), (1, 0), ceil_mode=True),
                F.avg_pool1d(x1, 3, 2, 1), F.avg_pool2d(x2, 3, 2, 1, ceil_mode=True),
                F.avg_pool2d(x2, 3, 2, 1, count_include_pad=False),
                F.avg_pool2d(x2, 2, divisor_override=3), F.avg_pool3d(x3, 2),
                F.adaptive_avg_pool1d(x1, 3), F.adaptive_avg_pool2d(x2, (3, 4)),
                F.adaptive_avg_pool2d(x2, 1), F.adaptive_avg_pool3d(x3, 2), b, j,
                F.adaptive_max_pool1d(x1, 4), F.max_pool2d(x2[0], 2))


class Norms(nn.Module):
    def __init__(self):
        super().__init__()
        self.bn = nn.BatchNorm2d(4)
        self.bn1 = nn.BatchNorm1d(4)
        self.inn = nn.InstanceNorm2d(4, affine=True)
        self.gn = nn.GroupNorm(2, 4)
        self.ln = nn.LayerNorm([5, 6])
        with torch.no_grad():
            for m in (self.bn, self.bn1):
                m.running_mean.uniform_(-1, 1)
                m.running_var.uniform_(0.5, 2)
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-1, 1)

    def forward(self, x, y):
        return (self.bn(x), self.bn1(y), self.inn(x), self.gn(x), self.ln(x),
                F.layer_norm(x, [6]), F.batch_norm(x, None, None, training=True),
                F.instance_norm(x), F.group_norm(x, 4))


class Softmax(nn.Module):
    def forward(self, x):
        return (F.softmax(x, 1), F.log_softmax(x, -1), F.softmax(x, 0, dtype=torch.float64),
                torch.log_softmax(x, 2), F.softmin(x, 1), x.softmax(-1))


class Embed(nn.Module):
    def __init__(self):
        super().__init__()
        self.e = nn.Embedding(10, 4, padding_idx=0)
        self.bag = nn.EmbeddingBag(10, 3, mode='mean')
        self.bmax = nn.EmbeddingBag(10, 3, mode='max')

    def forward(self, i, offs):
        return self.e(i), self.bag(i.flatten(), offs), self.bmax(i.flatten(), offs), self.bag(i)


class Resize(nn.Module):
    def forward(self, x1, x2, x3):
        return (F.interpolate(x2, scale_factor=2.0), F.interpolate(x2, size=(5, 7)),
                F.interpolate(x2, scale_factor=1.7, mode='bilinear', align_corners=False),
                F.interpolate(x2, size=(7, 3), mode='bilinear', align_corners=True),
                F.interpolate(x2, scale_factor=2.0, mode='bicubic', align_corners=False),
                F.interpolate(x1, scale_factor=2.5, mode='linear'),
                F.interpolate(x1, size=5, mode='nearest'),
                F.interpolate(x3, scale_factor=2.0, mode='trilinear'),
                F.interpolate(x3, size=(3, 2, 5), mode='nearest'),
                F.interpolate(x2, scale_factor=1.5, mode='bilinear', recompute_scale_factor=True),
                F.interpolate(x2, size=(2, 3), mode='area'),
                F.pixel_shuffle(x2, 2), F.pixel_unshuffle(x2, 2))


class Distance(nn.Module):
    def forward(self, a, b):
        return (F.cosine_similarity(a, b), F.cosine_similarity(a, b[:1], dim=-1),
                F.pairwise_distance(a[0], b[0]), F.pairwise_distance(a[0], b[0], 1.0, keepdim=True),
                torch.cdist(a, b[:, :3]), torch.cdist(a[0], b[0], p=1.0), torch.cdist(a, b, p=3.0))


class Losses(nn.Module):
    def forward(self, x, t, p, y):
        w = torch.tensor([1.0, 2.0, 0.5, 1.5])
        lp = F.log_softmax(x, 1)
        return (F.nll_loss(lp, t), F.nll_loss(lp, t, weight=w, reduction='sum'),
                F.nll_loss(lp, t, reduction='none', ignore_index=2),
                F.cross_entropy(x, t), F.cross_entropy(x, t, weight=w, label_smoothing=0.1),
                F.cross_entropy(x, p.softmax(1)), F.cross_entropy(x, t, reduction='none'),
                F.binary_cross_entropy_with_logits(x, y),
                F.binary_cross_entropy_with_logits(x, y, pos_weight=w, reduction='sum'),
                F.binary_cross_entropy(torch.sigmoid(x), y),
                F.kl_div(lp, p.softmax(1), reduction='batchmean'),
                F.kl_div(lp, lp, reduction='sum', log_target=True),
                F.mse_loss(x, y), F.l1_loss(x, y, reduction='sum'),
                F.smooth_l1_loss(x, y, beta=0.5), F.one_hot(t, 5), F.one_hot(t))


class RNNs(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(5, 6, num_layers=2, bidirectional=True)
        self.lstmp = nn.LSTM(5, 6, batch_first=True, proj_size=3)
        self.gru = nn.GRU(5, 4, num_layers=2, bidirectional=True, batch_first=True)
        self.rnn = nn.RNN(5, 4, nonlinearity='relu', bias=False)
        self.rnt = nn.RNN(5, 4, num_layers=2)

    def forward(self, x, h):
        a, (b, c) = self.lstm(x)
        d, (e, f) = self.lstmp(x)
        g, k = self.gru(x, h)
        m, n = self.rnn(x)
        o, q = self.rnt(x)
        return a, b, c, d, e, f, g, k, m, n, o, q


class Cells(nn.Module):
    def __init__(self):
        super().__init__()
        self.l = nn.LSTMCell(5, 4)
        self.g = nn.GRUCell(5, 4)
        self.r = nn.RNNCell(5, 4)
        self.rr = nn.RNNCell(5, 4, nonlinearity='relu')

    def forward(self, x, h):
        a, b = self.l(x, (h, h * 0.5))
        return a, b, self.g(x, h), self.r(x, h), self.rr(x), self.g(x[0], h[0])


class Packed(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(5, 4, bidirectional=True)
        self.gru = nn.GRU(5, 4)

    def forward(self, x):
        p = nn.utils.rnn.pack_padded_sequence(x, torch.tensor([4, 3, 1]))
        a, (b, c) = self.lstm(p)
        d, e = self.gru(p)
        y, n = nn.utils.rnn.pad_packed_sequence(a, batch_first=True)
        return a.data, b, c, d.data, e, y, n


class Grid(nn.Module):
    def forward(self, x, g):
        r: List[torch.Tensor] = []
        for mode in ['bilinear', 'nearest', 'bicubic']:
            for pad in ['zeros', 'border', 'reflection']:
                r.append(F.grid_sample(x, g, mode, pad, False))
                r.append(F.grid_sample(x, g, mode, pad, True))
        return r


class Renorm(nn.Module):
    def __init__(self):
        super().__init__()
        self.e = nn.Embedding(10, 4, max_norm=1.0)
        self.e3 = nn.Embedding(10, 4, max_norm=0.5, norm_type=3.0)

    def forward(self, i):
        return self.e(i), self.e3(i[:, :2]), self.e.weight * 1.0
'''

with open(os.path.join(out, 'nnmods.py'), 'w') as f:
    f.write(SRC)
import nnmods as M  # noqa: E402

g = torch.Generator().manual_seed(1)


def randn(*s):
    return torch.randn(*s, generator=g)


def rint(hi, *s):
    return torch.randint(0, hi, s, generator=g)


class Enc(nn.Module):
    def __init__(self, norm_first, act):
        super().__init__()
        layer = nn.TransformerEncoderLayer(16, 4, dim_feedforward=32, batch_first=True,
                                           norm_first=norm_first, activation=act)
        self.enc = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)

    def forward(self, x):
        return self.enc(x)


class EncMask(Enc):
    def forward(self, x, pad):
        return self.enc(x, src_key_padding_mask=pad)


class EncSrcMask(Enc):
    def forward(self, x):
        n = x.shape[1]
        m = torch.triu(torch.ones(n, n, dtype=torch.bool), 1)
        return self.enc(x, mask=m)


class MHA(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.MultiheadAttention(16, 4, batch_first=True)

    def forward(self, x, y):
        o, w = self.a(x, x, x)
        p, v = self.a(x, y, y, need_weights=True, average_attn_weights=False)
        return o, w, p, v


pad = torch.zeros(2, 6, dtype=torch.bool)
pad[0, 4:] = True
pad[1, 5:] = True

cases = {
    # name: (module, inputs, mode, group)
    'products': (M.Products(), [randn(2, 3, 4), randn(2, 4, 5), randn(4), randn(3, 4), randn(2, 3, 5)], 'script', 'products'),
    'products_traced': (M.Products(), [randn(2, 3, 4), randn(2, 4, 5), randn(4), randn(3, 4), randn(2, 3, 5)], 'trace', 'products'),
    'linear': (M.Lin(), [randn(2, 3, 6), randn(2, 3, 4)], 'script', 'products'),
    'linear_traced': (M.Lin(), [randn(2, 3, 6), randn(2, 3, 4)], 'trace', 'products'),
    'einsum': (M.Einsum(), [randn(2, 3, 4), randn(2, 4, 3), randn(3, 3)], 'script', 'products'),
    'conv': (M.Conv(), [randn(2, 4, 9), randn(2, 4, 8, 7), randn(1, 4, 3, 4, 5)], 'script', 'conv'),
    'conv_traced': (M.Conv(), [randn(2, 4, 9), randn(2, 4, 8, 7), randn(1, 4, 3, 4, 5)], 'trace', 'conv'),
    'pool': (M.Pool(), [randn(2, 3, 9), randn(2, 3, 8, 7), randn(1, 2, 4, 5, 6)], 'script', 'pool'),
    'pool_traced': (M.Pool(), [randn(2, 3, 9), randn(2, 3, 8, 7), randn(1, 2, 4, 5, 6)], 'trace', 'pool'),
    'norms': (M.Norms(), [randn(2, 4, 5, 6), randn(3, 4)], 'script', 'norms'),
    'norms_traced': (M.Norms(), [randn(2, 4, 5, 6), randn(3, 4)], 'trace', 'norms'),
    'softmax': (M.Softmax(), [randn(2, 3, 4)], 'script', 'norms'),
    'embedding': (M.Embed(), [rint(10, 2, 3), torch.tensor([0, 2, 2])], 'script', 'norms'),
    'resize': (M.Resize(), [randn(1, 2, 4), randn(1, 4, 4, 6), randn(1, 2, 2, 3, 2)], 'script', 'resize'),
    'resize_traced': (M.Resize(), [randn(1, 2, 4), randn(1, 4, 4, 6), randn(1, 2, 2, 3, 2)], 'trace', 'resize'),
    'distance': (M.Distance(), [randn(2, 4, 5), randn(2, 4, 5)], 'script', 'losses'),
    'losses': (M.Losses(), [randn(6, 4), rint(4, 6), randn(6, 4), torch.rand(6, 4, generator=g)], 'script', 'losses'),
    'rnns': (M.RNNs(), [randn(4, 3, 5), randn(4, 4, 4)], 'script', 'rnn'),
    'rnns_traced': (M.RNNs(), [randn(4, 3, 5), randn(4, 4, 4)], 'trace', 'rnn'),
    'cells': (M.Cells(), [randn(3, 5), randn(3, 4)], 'script', 'rnn'),
    'packed_traced': (M.Packed(), [randn(4, 3, 5)], 'trace', 'rnn'),
    'encoder': (Enc(False, 'relu'), [randn(2, 6, 16)], 'trace', 'attention'),
    'encoder_norm_first_gelu': (Enc(True, 'gelu'), [randn(2, 6, 16)], 'trace', 'attention'),
    'encoder_pad_mask': (EncMask(False, 'relu'), [randn(2, 6, 16), pad], 'trace', 'attention'),
    'encoder_src_mask': (EncSrcMask(False, 'relu'), [randn(2, 6, 16)], 'trace', 'attention'),
    'mha': (MHA(), [randn(2, 5, 16), randn(2, 7, 16)], 'trace', 'attention'),
    # a grid reaching past [-1, 1], so that every padding mode matters
    'grid': (M.Grid(), [randn(2, 3, 5, 4), randn(2, 3, 6, 2) * 0.9], 'script', 'grid'),
    'grid_traced': (M.Grid(), [randn(2, 3, 5, 4), randn(2, 3, 6, 2) * 0.9], 'trace', 'grid'),
    # script drops F.embedding's renorm (torch's own compiler does): traced
    'renorm_traced': (M.Renorm(), [rint(10, 3, 4)], 'trace', 'grid'),
}

only = set(sys.argv[2].split(',')) if len(sys.argv) > 2 else None
trace_cases.build_all(cases, out, only)
PYEOF
	trace_cases_gen
}

# Traces every model of group $1 and compares its outputs with torch's;
# prints one line per failure.
run_group() { trace_group ops "$1"; }

@test "trace nn ops: matmul (every rank pairing), mm, bmm, addmm family, linear, bilinear, einsum, tensordot match torch" {
	run run_group products
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "trace nn ops: conv 1d/2d/3d (stride, padding, 'same', dilation, groups) and transposed convs match torch" {
	run run_group conv
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "trace nn ops: max/avg/adaptive pooling (ceil_mode, dilation, indices, count_include_pad, divisor) match torch" {
	run run_group pool
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "trace nn ops: batch/instance/group/layer norm, softmax, embedding, embedding_bag match torch" {
	run run_group norms
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "trace nn ops: interpolate (nearest, linear, bilinear, bicubic, trilinear, area), pixel shuffle match torch" {
	run run_group resize
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "trace nn ops: grid_sample (every mode, padding, align_corners) and embedding max_norm match torch" {
	run run_group grid
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q 'aten::grid_sampler' "$M/m/grid_traced/meta.json"
	grep -q 'aten::embedding_renorm_' "$M/m/renorm_traced/meta.json"
}

@test "trace nn ops: distances and losses match torch" {
	run run_group losses
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "trace nn ops: lstm, gru, rnn (layers, bidirectional, batch_first, proj_size, packed) and cells match torch" {
	run run_group rnn
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "trace nn ops: the fast-path transformer encoder layer and multi-head attention match torch" {
	run run_group attention
	echo "$output"
	[ "$status" -eq 0 ]
	# the archives hold the fused ops, so the fast path was what ran
	grep -q '_transformer_encoder_layer_fwd' "$M/m/encoder/meta.json"
	grep -q '_native_multi_head_attention' "$M/m/mha/meta.json"
}

@test "trace nn ops: the recorded graph keeps conv and linear with their concrete types" {
	d="$M/m/conv"
	trace "$d/model.pt" --input "$d/in0.npy" --input "$d/in1.npy" \
		--input "$d/in2.npy" -S -o g.ir
	grep -q 'aten::conv2d' g.ir
	grep -q 'aten::conv_transpose3d' g.ir
	grep -q 'Float(2, 6, 4, 5)' g.ir
}

@test "trace nn ops: a conv whose channels do not fit fails with one clear line" {
	cat > bad.py <<'PYEOF'
import torch
torch.jit.script(torch.nn.Conv2d(3, 4, 3)).save('bad.pt')
PYEOF
	"$PYTHON" bad.py
	run trace bad.pt --input 'f32[1,5,8,8]' -o out.ir
	[ "$status" -ne 0 ]
	[ "$status" -lt 128 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *aten::conv2d* ]]
	[[ "$output" == *"channels"* ]]
	[ ! -e out.ir ]
}

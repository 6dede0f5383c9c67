#!/usr/bin/env bats
# 302-trace-ops-shape.bats - `trace`'s shape, view, joining, indexing,
# reordering and padding ops (lib/trace/ops_shape.c) against torch 1.13:
# small archives made by torch in setup_file (scripted, and traced for a
# few), run once by `trace --save-outputs`, every output's shape, dtype and
# values compared with torch's own outputs.  In-place writes through views
# (x[:, 0] = ..., index_put_ on a slice) must reach the base tensor, as in
# torch.
# bats file_tags=tier:standard
load helper

trace() { tool trace "$@"; }

setup_file() {
	need_torch || return 0
	export M="$BATS_FILE_TMPDIR"
	# torch.jit.script reads the classes' source: a file, not stdin
	cat > "$M/gen.py" <<'PYEOF'
# Builds small TorchScript archives exercising trace's shape ops, with
# torch's own outputs as the oracle.  Usage: gen.py OUTDIR
import os
import sys

import numpy as np
import torch
import trace_cases
import torch.nn.functional as F

out = sys.argv[1]
sys.path.insert(0, out)
torch.manual_seed(0)

SRC = r'''
import torch
import torchvision
import torch.nn.functional as F
from typing import List


class Views(torch.nn.Module):
    def forward(self, x):
        # x [2, 3, 4]
        a = x.view(6, -1)
        b = x.reshape(-1)
        c = x.permute(2, 0, 1).reshape(4, 6)
        d = x.transpose(0, 2).contiguous().view(4, 3, 2)
        e = torch.flatten(x, 1)
        f = x.unflatten(2, (2, 2))
        g = torch.movedim(x, 0, -1)
        h = x.unsqueeze(1).unsqueeze(-1)
        i = h.squeeze()
        j = h.squeeze(1)
        k = x[0].t()
        m = x.swapaxes(0, 1)
        n = x.view_as(torch.zeros(4, 6))
        o = x.reshape_as(torch.zeros(24))
        p = x.mT
        return a, b, c, d, e, f, g, h, i, j, k, m, n, o, p


class Expand(torch.nn.Module):
    def forward(self, x, y):
        # x [3, 1], y [1, 4]
        a = x.expand(2, 3, 4)
        b = x.expand(-1, 5)
        c = x.expand_as(torch.zeros(3, 4))
        d = torch.broadcast_to(y, (3, 4))
        e, f = torch.broadcast_tensors(x, y)
        g, h = torch.meshgrid(x.view(-1), y.view(-1), indexing='ij')
        i, j = torch.meshgrid(x.view(-1), y.view(-1), indexing='xy')
        return a, b, c, d, e, f, g, h, i, j


class Slicing(torch.nn.Module):
    def forward(self, x):
        # x [5, 6]
        return (x[1], x[-1], x[:, 2], x[1:4], x[::2], x[1:-1:2, -3:],
                x[:, 1::3], x[..., None], x[None, :, None, 2],
                x.narrow(1, 2, 3), torch.select(x, 1, -2), x[10:], x[2:2],
                x.unfold(1, 2, 2), x.unfold(0, 3, 1), x.diagonal(),
                x.diagonal(1), torch.diagonal(x, -2, 1, 0),
                x.as_strided((2, 3), (1, 2), 1))


class Split(torch.nn.Module):
    def forward(self, x):
        # x [7, 4]
        a = torch.split(x, 3)
        b = torch.split(x, [1, 4, 2])
        c = x.split_with_sizes([2, 2], 1)
        d = torch.chunk(x, 3)
        e = torch.chunk(x, 3, 1)
        f = torch.tensor_split(x, 3)
        g = torch.tensor_split(x, [1, 5], 0)
        h = torch.unbind(x, 1)
        i = x.unsafe_split(2, 1)
        return a, b, c, d, e, f, g, h, i


class Join(torch.nn.Module):
    def forward(self, x, y, n):
        # x [2, 3] float, y [2, 3] float, n [2, 3] int64
        return (torch.cat([x, y]), torch.cat([x, y], -1), torch.cat([x, n], 1),
                torch.cat([n, n]), torch.stack([x, y]), torch.stack([x, y], 2),
                torch.hstack([x, y]), torch.vstack([x, y]),
                torch.dstack([x, y]), torch.column_stack([x, y]),
                torch.cat([x, torch.zeros(0)]), torch.concat([y, x], 0))


class Repeat(torch.nn.Module):
    def forward(self, x, r):
        # x [2, 3], r [2] int64
        return (x.repeat(2, 3), x.repeat(2, 1, 2), x.tile((2,)), x.tile((2, 1, 1)),
                x.repeat_interleave(2), x.repeat_interleave(3, 0),
                x.repeat_interleave(r, 0), torch.repeat_interleave(r),
                x.roll(1), x.roll(-1, 1), x.roll((1, 2), (0, 1)),
                x.flip(0), x.flip([0, 1]), torch.fliplr(x), torch.flipud(x),
                torch.rot90(x), torch.rot90(x, 2), torch.rot90(x, -1))


class Tri(torch.nn.Module):
    def forward(self, x, v):
        # x [3, 4, 5], v [4]
        return (x.tril(), x.triu(1), torch.tril(x, -1), torch.triu(x, -2),
                torch.diag(v), torch.diag(v, 1), torch.diag(x[0], -1),
                torch.diag_embed(x), torch.diag_embed(v, -1),
                torch.tril_indices(3, 4, 1), torch.triu_indices(4, 3, -1),
                torch.trace(x[1]))


class AdvIndex(torch.nn.Module):
    def forward(self, x, i, j, m):
        # x [4, 5, 6], i [2, 1] int64, j [3] int64, m [4] bool
        a = x[i]
        b = x[:, j]
        c = x[i, j]
        d = x[i, :, j]
        e = x[:, :, j]
        f = x[m]
        g = x[:, 1:4][:, :, j]
        h = x[x > 0.5]
        k = x[m, 2]
        l = x[i, 1]
        return a, b, c, d, e, f, g, h, k, l


class IndexPut(torch.nn.Module):
    def forward(self, x, i, j, v):
        # x [4, 5], i [3] int64, j [3] int64, v [3]
        a = x.clone()
        a[i, j] = v
        b = x.clone()
        b.index_put_((i,), v.unsqueeze(1), accumulate=True)
        c = x.clone()
        c[x < 0] = 0.0
        d = x.clone()
        d[:, j] = 7.0
        e = torch.index_put(x, (i, j), v, True)
        f = x.clone()
        f[1:3][:, i] = -1.0
        g = x.clone()
        g[i, 1:] += 1.0
        return a, b, c, d, e, f, g


class IndexOps(torch.nn.Module):
    def forward(self, x, i, idx, s):
        # x [4, 5], i [3] int64 (into dim 0 and 1), idx [4, 5] int64 in [0, 4), s [3, 5]
        return (x.index_select(0, i), x.index_select(1, i),
                torch.gather(x, 1, idx), torch.gather(x, 0, idx[:3] % 4),
                torch.take(x, idx), torch.take_along_dim(x, idx, 1),
                torch.zeros(4, 5).scatter(1, idx, x),
                x.scatter(0, idx % 4, 2.5), x.scatter_add(1, idx, x),
                torch.zeros(4, 5).scatter(1, idx, x, reduce='add'),
                x.index_fill(1, i, -3.0), x.index_copy(0, i, s),
                x.index_add(0, i, s), x.index_add(0, i, s, alpha=2.0),
                torch.scatter_reduce(x, 1, idx, x, 'sum'))


class Masks(torch.nn.Module):
    def forward(self, x, m, s):
        # x [3, 4], m [3, 4] bool, s [12]
        return (torch.masked_select(x, m), torch.masked_select(x, m[0]),
                x.masked_scatter(m, s), torch.nonzero(m), torch.argwhere(x > 0),
                torch.where(m))


class Sorting(torch.nn.Module):
    def forward(self, x, n):
        # x [3, 6], n [10] int64 with repeats
        return (torch.sort(x), torch.sort(x, 0, True), torch.argsort(x, 1, True),
                torch.topk(x, 2), torch.topk(x, 2, 0, False),
                torch.sort(x, stable=True, dim=1), torch.msort(x),
                torch.kthvalue(x, 2, 1), torch.kthvalue(x, 1, 0, True),
                torch.unique(n), torch.unique(n, return_inverse=True, return_counts=True),
                torch.unique_consecutive(n, return_counts=True), torch.unique(n.view(2, 5), dim=1),
                F.one_hot(n), F.one_hot(n % 3, 5),
                torch.searchsorted(torch.arange(0, 10, 2), n),
                torch.searchsorted(torch.arange(0, 10, 2), n, right=True),
                torch.bucketize(n, torch.tensor([1, 3, 5])))


class Pads(torch.nn.Module):
    def forward(self, x3, x4, x5):
        # x3 [1, 2, 5], x4 [1, 2, 4, 5], x5 [1, 1, 3, 3, 4]
        return (F.pad(x3, (1, 2)), F.pad(x4, (1, 1, 2, 0), value=1.5),
                F.pad(x4, (-1, 1, 0, -2)), F.pad(x3, (2, 3), mode='reflect'),
                F.pad(x4, (1, 2, 3, 1), mode='reflect'),
                F.pad(x5, (1, 1, 1, 1, 1, 1), mode='reflect'),
                F.pad(x3, (2, 3), mode='replicate'),
                F.pad(x4, (1, 2, 3, 1), mode='replicate'),
                F.pad(x5, (1, 0, 2, 1, 0, 1), mode='replicate'),
                F.pad(x3, (2, 3), mode='circular'),
                F.pad(x4, (1, 2, 3, 1), mode='circular'),
                F.pad(x5, (1, 0, 2, 1, 0, 1), mode='circular'),
                torch.constant_pad_nd(x4, [1, 1, 1, 1, 1, 0], -2.0))


class Shuffles(torch.nn.Module):
    def forward(self, x, a, b):
        # x [2, 8, 3, 3], a [4, 3], b [4, 3]
        return (F.pixel_shuffle(x, 2), F.pixel_unshuffle(F.pixel_shuffle(x, 2), 2),
                F.pixel_unshuffle(x[:, :, :2, :2], 2), F.channel_shuffle(x, 4),
                F.unfold(x, 2), F.unfold(x, (2, 3), dilation=(1, 1), padding=1, stride=2),
                F.fold(F.unfold(x, 2, padding=1), (3, 3), 2, padding=1),
                torch.cross(a, b), torch.linalg.cross(a, b), torch.outer(a[0], b[:, 1]),
                torch.tensordot(a, b.t(), 1))


class ShapeTensor(torch.nn.Module):
    def forward(self, x):
        s = torch._shape_as_tensor(x)
        return s, torch._reshape_from_tensor(x, s[[1, 0]])


class Nms(torch.nn.Module):
    def forward(self, b, s):
        # b [200, 4] boxes, s [200] scores with ties
        return (torchvision.ops.nms(b, s, 0.5),
                torchvision.ops.batched_nms(b, s, (s * 10).long() % 3, 0.3))


class RoiAlign(torch.nn.Module):
    def forward(self, x, r):
        # x [2, 3, 11, 13], r [5, 5] (batch index, x1, y1, x2, y2): boxes
        # inside, across and outside the map, degenerate and larger
        ra = torchvision.ops.roi_align
        return (ra(x, r, (3, 4), 1.0, 2, False), ra(x, r, (2, 2), 0.5, 0, False),
                ra(x, r, 3, 1.0, -1, True), ra(x, r, (4, 3), 2.0, 3, True))


class InPlace(torch.nn.Module):
    def forward(self, x, v):
        # x [3, 4], v [3]
        y = x.clone()
        y[:, 0] = v
        y[1:, 1] += 1.0
        z = y.view(12)
        z[0:2] = -5.0
        w = y.t()
        w[3].mul_(2.0)
        u = x.clone()
        u.unsqueeze_(0)
        u.transpose_(1, 2)
        u.squeeze_(0)
        q = x.clone()
        q.index_fill_(1, torch.tensor([0, 2]), 9.0)
        q.masked_scatter_(q > 0.5, torch.arange(12.0))
        return y, z, u, q
'''
with open(os.path.join(out, 'opmods.py'), 'w') as f:
    f.write(SRC)

import opmods as M  # noqa: E402

g = torch.Generator().manual_seed(1)


def randn(*s):
    return torch.randn(*s, generator=g)


def ints(*s, lo=0, hi=4):
    return torch.randint(lo, hi, s, generator=g)


def boxes_scores():
    xy = torch.rand(200, 2, generator=g) * 50
    wh = torch.rand(200, 2, generator=g) * 20 + 1
    s = torch.rand(200, generator=g)
    s[10:20] = s[0]
    return [torch.cat([xy, xy + wh], 1), s]


cases = {
    # name: (module, inputs, mode, group)
    'views': (M.Views(), [randn(2, 3, 4)], 'script', 'views'),
    'views_traced': (M.Views(), [randn(2, 3, 4)], 'trace', 'views'),
    'expand': (M.Expand(), [randn(3, 1), randn(1, 4)], 'script', 'views'),
    'slicing': (M.Slicing(), [randn(5, 6)], 'script', 'views'),
    'slicing_traced': (M.Slicing(), [randn(5, 6)], 'trace', 'views'),
    'split': (M.Split(), [randn(7, 4)], 'script', 'join'),
    'join': (M.Join(), [randn(2, 3), randn(2, 3), ints(2, 3)], 'script', 'join'),
    'repeat': (M.Repeat(), [randn(2, 3), torch.tensor([2, 1])], 'script', 'join'),
    'tri': (M.Tri(), [randn(3, 4, 5), randn(4)], 'script', 'join'),
    'adv_index': (M.AdvIndex(), [torch.rand(4, 5, 6, generator=g),
                                 torch.tensor([[3], [-1]]), torch.tensor([0, 4, -2]),
                                 torch.tensor([True, False, True, True])], 'script', 'index'),
    'adv_index_traced': (M.AdvIndex(), [torch.rand(4, 5, 6, generator=g),
                                        torch.tensor([[3], [-1]]), torch.tensor([0, 4, -2]),
                                        torch.tensor([True, False, True, True])], 'trace', 'index'),
    'index_put': (M.IndexPut(), [randn(4, 5), torch.tensor([0, 2, 2]),
                                 torch.tensor([1, -1, 3]), randn(3)], 'script', 'index'),
    'index_ops': (M.IndexOps(), [randn(4, 5), torch.tensor([3, 0, 2]), ints(4, 5),
                                 randn(3, 5)], 'script', 'index'),
    'masks': (M.Masks(), [randn(3, 4), torch.rand(3, 4, generator=g) > 0.5, randn(12)],
              'script', 'index'),
    'masks_traced': (M.Masks(), [randn(3, 4), torch.rand(3, 4, generator=g) > 0.5,
                                 randn(12)], 'trace', 'index'),
    'sorting': (M.Sorting(), [randn(3, 6), torch.tensor([4, 1, 1, 7, 4, 4, 0, 9, 2, 2])],
                'script', 'sort'),
    'pads': (M.Pads(), [randn(1, 2, 5), randn(1, 2, 4, 5), randn(1, 1, 3, 3, 4)],
             'script', 'pad'),
    'shuffles': (M.Shuffles(), [randn(2, 8, 3, 3), randn(4, 3), randn(4, 3)],
                 'script', 'pad'),
    'shape_tensor': (M.ShapeTensor(), [randn(3, 4)], 'trace', 'views'),
    'nms': (M.Nms(), boxes_scores(), 'trace', 'sort'),
    'roi_align': (M.RoiAlign(), [randn(2, 3, 11, 13),
                                 torch.tensor([[0, 1.2, 0.5, 9.7, 8.1], [1, -2., -1.5, 14., 12.],
                                               [0, 3.3, 3.3, 3.4, 3.5], [1, 5, 6, 5, 6],
                                               [0, 0, 0, 26, 22]])], 'trace', 'sort'),
    'inplace': (M.InPlace(), [torch.rand(3, 4, generator=g), randn(3)], 'script', 'inplace'),
}

only = set(sys.argv[2].split(',')) if len(sys.argv) > 2 else None
trace_cases.build_all(cases, out, only)
PYEOF
	trace_cases_gen
}

# Traces every model of group $1 and compares its outputs with torch's;
# prints one line per failure.
run_group() { trace_group moves "$1" --device cpu; }

@test "trace shape ops: views, reshapes, permutations, squeeze, expand, slicing match torch" {
	run run_group views
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "trace shape ops: split, chunk, cat, stack, repeat, roll, flip, tril match torch" {
	run run_group join
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "trace shape ops: advanced indexing, index_put, gather, scatter, masks match torch" {
	run run_group index
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "trace shape ops: sort, topk, kthvalue, unique, one_hot, searchsorted, nms, roi_align match torch" {
	run run_group sort
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "trace shape ops: padding modes, pixel and channel shuffles, unfold/fold, cross match torch" {
	run run_group pad
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "trace shape ops: in-place writes through views reach the base tensor" {
	run run_group inplace
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "trace shape ops: the recorded graph keeps view ops with concrete shapes" {
	d="$M/m/views"
	trace "$d/model.pt" --input "$d/in0.npy" -S -o g.ir
	grep -q 'aten::view' g.ir
	grep -q 'aten::permute' g.ir
	grep -q 'Float(4, 6)' g.ir
}

@test "trace shape ops: bad shapes and out-of-range indices fail with one clear line" {
	cat > bad.py <<'PYEOF'
import sys
import numpy as np
import torch


class BadView(torch.nn.Module):
    def forward(self, x):
        return x.view(5, -1)


class BadIndex(torch.nn.Module):
    def forward(self, x, i):
        return x[i]


torch.jit.script(BadView()).save(sys.argv[1] + '/view.pt')
torch.jit.script(BadIndex()).save(sys.argv[1] + '/index.pt')
np.save(sys.argv[1] + '/i.npy', np.array([0, 7], dtype=np.int64))
PYEOF
	"$PYTHON" bad.py "$PWD"
	run trace view.pt --input 'f32[2,3]' -o out.ir
	echo "$output"
	[ "$status" -ne 0 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"aten::view"*"invalid for input of size 6"* ]]
	[ ! -e out.ir ]
	run trace index.pt --input 'f32[4,3]' --input i.npy -o out.ir
	echo "$output"
	[ "$status" -ne 0 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"aten::index"*"out of"* ]]
	[ ! -e out.ir ]
}

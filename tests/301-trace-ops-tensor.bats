#!/usr/bin/env bats
# 301-trace-ops-tensor.bats - `trace`'s elementwise, activation, reduction,
# creation, conversion and in-place ops (lib/trace/ops_tensor.c) against
# torch 1.13: small archives made by torch in setup_file (scripted, and
# traced for a few), run once by `trace --save-outputs`, every output's
# shape, dtype and values compared with torch's own outputs.  Random ops
# (seeded by trace, not torch's generator) are compared by shape and dtype.
# bats file_tags=tier:standard
load helper

trace() { tool trace "$@"; }

setup_file() {
	need_torch || return 0
	export M="$BATS_FILE_TMPDIR"
	# torch.jit.script reads the classes' source: a file, not stdin
	cat > "$M/gen.py" <<'PYEOF'
# Builds small TorchScript archives exercising trace's tensor ops, with
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
import torch.nn.functional as F
from typing import List


class AddAlpha(torch.nn.Module):
    def forward(self, x, y):
        return torch.add(x, y, alpha=2.5), x - 1.5, 3 - x, torch.rsub(x, y, alpha=2), x * y


class IntArith(torch.nn.Module):
    def forward(self, a, b):
        return (a / b, torch.div(a, b, rounding_mode='floor'),
                torch.div(a, b, rounding_mode='trunc'), torch.floor_divide(a, b),
                a % b, torch.fmod(a, b), a * 0.5, a * 2, a + 1, a - b,
                a * b, torch.true_divide(a, 4))


class FloatArith(torch.nn.Module):
    def forward(self, x, y):
        return (torch.remainder(x, y), torch.fmod(x, y), x // y, torch.atan2(x, y),
                x.abs() ** 1.5, torch.pow(2.0, x), (x.abs() + 0.1) ** y,
                torch.maximum(x, y), torch.minimum(x, y), torch.max(x, y),
                torch.min(x, y))


class Promote(torch.nn.Module):
    def forward(self, x, a32, u8, i8, m):
        return (a32 + 1, a32 * 2.5, u8 + i8, x * torch.tensor(2.0, dtype=torch.float64),
                a32 + torch.tensor(3), m + 1, m * m, torch.maximum(m, ~m),
                x.double() + x, a32 // 2, u8 * 3, x + m, a32 > 1.5, x.double() * 2.5)


class Unary(torch.nn.Module):
    def forward(self, x):
        a = x.abs() + 0.1
        c = x.clamp(-0.9, 0.9)
        return (torch.sqrt(a), torch.rsqrt(a), torch.exp(x), torch.expm1(x),
                torch.log(a), torch.log1p(a), torch.log2(a), torch.log10(a),
                torch.sin(x), torch.cos(x), torch.tan(c), torch.asin(c),
                torch.acos(c), torch.atan(x), torch.sinh(x), torch.cosh(x),
                torch.tanh(x), torch.erf(x), torch.floor(x), torch.ceil(x),
                torch.round(x), torch.trunc(x), torch.frac(x), torch.sign(x),
                torch.neg(x), torch.abs(x), torch.reciprocal(a), torch.square(x),
                torch.round(x, decimals=1))


class Acts(torch.nn.Module):
    def forward(self, x):
        return (F.relu(x), F.relu6(x * 4), F.leaky_relu(x, 0.1), F.elu(x, 0.5),
                F.selu(x), F.celu(x, 1.5), F.gelu(x), F.gelu(x, approximate='tanh'),
                F.silu(x), F.mish(x), torch.sigmoid(x), F.hardsigmoid(x * 4),
                F.hardswish(x * 4), F.hardtanh(x, -0.5, 0.7), F.hardshrink(x, 0.3),
                F.softshrink(x, 0.3), F.softplus(x, 2.0, 3.0), F.threshold(x, 0.1, -2.0),
                F.logsigmoid(x), F.tanhshrink(x), torch.logit(torch.sigmoid(x), 0.1),
                F.rrelu(x, training=False), F.glu(x, 1))


class PRelu(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.p = torch.nn.PReLU(4)
        with torch.no_grad():
            self.p.weight.copy_(torch.tensor([0.1, -0.2, 0.3, 0.5]))

    def forward(self, x):
        return self.p(x)


class Compare(torch.nn.Module):
    def forward(self, x, y, a, b):
        m = x > 0
        n = y < 0.5
        return (x == y, x != 0.5, x < y, x <= 0, x > y, x >= 0.25,
                torch.logical_and(m, n), torch.logical_or(m, n),
                torch.logical_xor(m, y), torch.logical_not(x),
                a & b, a | b, a ^ b, ~a, m & n, m | n, m ^ n, ~m,
                a << 2, a >> 1, torch.bitwise_and(a, 6))


class Where(torch.nn.Module):
    def forward(self, x, y):
        m = x > 0
        w = torch.where(m, x, y)
        w2 = torch.where(m, x, 2.0)
        w3 = torch.where(m, 1.0, 0.0)
        f = x.masked_fill(y > 0, -1.5)
        f2 = x.masked_fill(y > 0, torch.tensor(3.0))
        return w, w2, w3, f, f2, torch.where(m)


class NanInf(torch.nn.Module):
    def forward(self, x):
        return (torch.isnan(x), torch.isinf(x), torch.isfinite(x),
                torch.nan_to_num(x), torch.nan_to_num(x, 0.5, 10.0, -10.0))


class Clamp(torch.nn.Module):
    def forward(self, x, lo, hi, a):
        return (torch.clamp(x, -0.5, 0.5), torch.clamp_min(x, 0.1),
                torch.clamp_max(x, 0.1), torch.clip(x, max=0.2),
                torch.clamp(x, lo, hi), torch.clamp(a, 0.5), torch.clamp(a, 1, 3))


class Ternary(torch.nn.Module):
    def forward(self, x, y, z):
        return (torch.lerp(x, y, 0.3), torch.lerp(x, y, z),
                torch.addcmul(x, y, z, value=0.5), torch.addcdiv(x, y, z.abs() + 1, value=2))


class Reduce(torch.nn.Module):
    def forward(self, x):
        v, i = torch.max(x, 1)
        v2, i2 = torch.min(x, -1, keepdim=True)
        mn, mx = torch.aminmax(x, dim=0)
        s, m = torch.std_mean(x, 1)
        va, m2 = torch.var_mean(x, [0, 2], unbiased=False)
        return (x.sum(), x.sum(1), x.sum((0, 2), keepdim=True),
                x.sum(dtype=torch.float64), x.mean(), x.mean(-1),
                x.prod(1), x.amax((1, 2)), x.amin(0), torch.argmax(x),
                torch.argmax(x, 1, keepdim=True), torch.argmin(x, 2),
                torch.max(x), torch.min(x), v, i, v2, i2, mn, mx,
                x.std(), x.var(1, unbiased=False), torch.std(x, 2, correction=0),
                s, m, va, m2, x.norm(), x.norm(1, 1), torch.norm(x, 3, 2, True),
                torch.linalg.vector_norm(x, 3.0, 1),
                torch.norm(x, dim=(0, 1)), torch.logsumexp(x, 1),
                torch.cumsum(x, 1), torch.cumprod(x, 2), torch.count_nonzero(x > 0, 1),
                torch.norm(x, float('inf')))


class ReduceInt(torch.nn.Module):
    def forward(self, a, m):
        return (a.sum(), a.sum(0), a.prod(), torch.cumsum(a, 0), m.all(), m.any(),
                m.all(1), m.any(0), a.float().mean(0), a.max(), a.amax(1),
                torch.count_nonzero(a), m.sum())


class Create(torch.nn.Module):
    def forward(self, x, a):
        n = x.size(0)
        return (torch.zeros(2, 3), torch.ones([2, 3], dtype=torch.int64),
                torch.full((2, 3), 7), torch.full((2, 2), 2.5),
                torch.zeros_like(x, dtype=torch.long), torch.ones_like(x),
                torch.full_like(x, 2.5), x.new_zeros(3), x.new_ones((2, 2)),
                x.new_full((2,), 4.0), a.new_full((3,), 4),
                torch.arange(5), torch.arange(1, 7, 2), torch.arange(0, 1, 0.25),
                torch.arange(n), torch.arange(n, dtype=torch.float32),
                torch.linspace(0, 1, 5), torch.linspace(-3, 7, 8),
                torch.eye(3), torch.eye(2, 4), torch.tensor([1, 2, 3]),
                torch.tensor([[1.5, 2.0]]), torch.tensor(3.5), torch.empty(0).new_zeros(2) + 1,
                torch.zeros(n, 2) + x.sum(), torch.scalar_tensor(3))


class Convert(torch.nn.Module):
    def forward(self, x, a):
        t = x.t()
        return (x.to(torch.int64), x.long(), x.int(), x.double(), x.to(torch.bool),
                a.float(), x.type_as(a), x.to(a), x.to('cpu'),
                x.clone(), x.detach(), t.contiguous(), x.to(torch.float64).to(torch.float32),
                a.to(torch.uint8), a.half().float(), torch.as_tensor(x, dtype=torch.float64))


class InPlace(torch.nn.Module):
    def forward(self, x, y):
        z = x.clone()
        z.add_(y, alpha=2)
        z.mul_(1.5)
        z.sub_(0.25)
        z.div_(2)
        w = x.clone()
        w.relu_()
        c = x.clone()
        c.clamp_(min=-0.2, max=0.3)
        m = x.clone()
        m.masked_fill_(y > 0, 9.0)
        q = x.clone()
        q.zero_()
        q.fill_(2.5)
        r = torch.zeros_like(x)
        r.copy_(y)
        s = x.clone()
        s.sigmoid_()
        s.pow_(2)
        return z, w, c, m, q, r, s


class InPlaceView(torch.nn.Module):
    def forward(self, x):
        z = x.clone()
        z[:, 0] += 5
        v = z[1]
        v.mul_(-1)
        return z


class Dropout(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.d = torch.nn.Dropout(0.5)
        self.a = torch.nn.AlphaDropout(0.3)

    def forward(self, x):
        return self.d(x) + 1, F.dropout(x, 0.2, False), self.a(x), F.dropout(x, 0.5, training=False, inplace=True)


class Extra(torch.nn.Module):
    def forward(self, x, sq):
        o, m = torch.native_dropout(x, 0.5, False)
        return (x * torch.hann_window(4), torch.hann_window(5, False),
                torch.fake_quantize_per_tensor_affine(x, 0.05, 10, 0, 255),
                torch.fake_quantize_per_channel_affine(x, torch.tensor([0.05, 0.1, 0.2]),
                                                       torch.tensor([0, 5, 10], dtype=torch.int32), 0, 0, 255),
                torch.linalg.norm(x), torch.linalg.norm(x, 1.0, 1), torch.linalg.norm(x, 'fro'),
                torch.linalg.matrix_norm(sq, float('inf')), torch.linalg.matrix_norm(sq, -1.0),
                torch.linalg.det(sq), torch.logdet(sq @ sq.transpose(-1, -2)),
                torch._dim_arange(x, 1), torch.resolve_conj(x), torch.conj_physical(x), o, m)


class Quant(torch.nn.Module):
    def forward(self, x):
        q = torch.quantize_per_tensor(x, 0.05, 10, torch.quint8)
        s = torch.quantize_per_tensor(x, 0.02, -3, torch.qint8)
        w = torch.quantize_per_tensor(x, 0.001, 7, torch.qint32)
        return (q.int_repr(), torch.dequantize(q), s.int_repr(), s.dequantize(),
                w.int_repr(), x * q.q_scale() + float(s.q_zero_point()),
                torch.dequantize(x))


class Random(torch.nn.Module):
    def forward(self, x):
        return (torch.rand(2, 3), torch.randn_like(x), torch.rand_like(x),
                torch.randint(0, 5, (4,)), torch.bernoulli(torch.sigmoid(x)),
                torch.normal(x, 1.0), torch.multinomial(torch.sigmoid(x), 2),
                torch._standard_gamma(x.abs() + 0.5))
'''

with open(os.path.join(out, 'opmods.py'), 'w') as f:
    f.write(SRC)
import opmods as M  # noqa: E402

g = torch.Generator().manual_seed(1)


def randn(*s):
    return torch.randn(*s, generator=g)


def ints(*s, lo=-6, hi=7):
    return torch.randint(lo, hi, s, generator=g)


nz = ints(3, 4)
nz[nz == 0] = 3
nan_in = randn(3, 4)
nan_in[0, 0] = float('nan')
nan_in[1, 2] = float('inf')
nan_in[2, 3] = float('-inf')

cases = {
    # name: (module, inputs, mode, group)
    'add_alpha': (M.AddAlpha(), [randn(2, 3, 4), randn(4)], 'script', 'elementwise'),
    'int_arith': (M.IntArith(), [ints(3, 4), nz], 'script', 'elementwise'),
    'float_arith': (M.FloatArith(), [randn(3, 4), randn(3, 4).abs() + 0.5], 'script', 'elementwise'),
    'unary': (M.Unary(), [randn(3, 5) * 2], 'script', 'elementwise'),
    'unary_f64': (M.Unary(), [randn(3, 5).double() * 2], 'script', 'elementwise'),
    'promote': (M.Promote(), [randn(3, 4), ints(3, 4).int(), ints(3, 4, lo=0, hi=9).to(torch.uint8),
                              ints(3, 4).to(torch.int8), randn(3, 4) > 0], 'script', 'elementwise'),
    'unary_traced': (M.Unary(), [randn(3, 5) * 2], 'trace', 'elementwise'),
    'compare': (M.Compare(), [randn(3, 4), randn(3, 4), ints(3, 4, lo=0, hi=16), ints(3, 4, lo=0, hi=16)], 'script', 'elementwise'),
    'where': (M.Where(), [randn(3, 4), randn(3, 4)], 'script', 'elementwise'),
    'nan_inf': (M.NanInf(), [nan_in], 'script', 'elementwise'),
    'clamp': (M.Clamp(), [randn(3, 4), randn(3, 4) - 0.5, randn(3, 4) + 0.5, ints(3, 4)], 'script', 'elementwise'),
    'ternary': (M.Ternary(), [randn(3, 4), randn(3, 4), randn(4)], 'script', 'elementwise'),
    'acts': (M.Acts(), [randn(2, 4, 3)], 'script', 'activations'),
    'acts_traced': (M.Acts(), [randn(2, 4, 3)], 'trace', 'activations'),
    'prelu': (M.PRelu(), [randn(2, 4, 3)], 'script', 'activations'),
    'dropout': (M.Dropout().eval(), [randn(3, 4)], 'script', 'activations'),
    'reduce': (M.Reduce(), [randn(3, 4, 5)], 'script', 'reductions'),
    'reduce_traced': (M.Reduce(), [randn(3, 4, 5)], 'trace', 'reductions'),
    'reduce_int': (M.ReduceInt(), [ints(3, 4, lo=1, hi=4), randn(3, 4) > -1], 'script', 'reductions'),
    'create': (M.Create(), [randn(4, 2), ints(3)], 'script', 'creation'),
    'convert': (M.Convert(), [randn(3, 4) * 3, ints(3, 4, lo=0, hi=9)], 'script', 'conversion'),
    'inplace': (M.InPlace(), [randn(3, 4), randn(3, 4)], 'script', 'inplace'),
    'inplace_traced': (M.InPlace(), [randn(3, 4), randn(3, 4)], 'trace', 'inplace'),
    'inplace_view': (M.InPlaceView(), [randn(3, 4)], 'script', 'inplace'),
    'extra': (M.Extra(), [randn(3, 4), randn(2, 3, 3)], 'script', 'reductions'),
    'random': (M.Random(), [randn(3, 4)], 'script', 'random'),
    # values past the quantized ranges, so that clamping matters
    'quant': (M.Quant(), [randn(3, 4) * 4], 'script', 'conversion'),
    'quant_traced': (M.Quant(), [randn(3, 4) * 4], 'trace', 'conversion'),
}

only = set(sys.argv[2].split(',')) if len(sys.argv) > 2 else None
trace_cases.build_all(cases, out, only)
PYEOF
	trace_cases_gen
}

# Traces every model of group $1 and compares its outputs with torch's;
# prints one line per failure.
run_group() { trace_group ops "$1"; }

@test "trace ops: arithmetic, math, comparisons, logic, where, clamp match torch" {
	run run_group elementwise
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "trace ops: activations and dropout in eval match torch" {
	run run_group activations
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "trace ops: reductions (dims, keepdim, dtypes, values and indices) match torch" {
	run run_group reductions
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "trace ops: creation ops (zeros, full, arange, linspace, eye, tensor) match torch" {
	run run_group creation
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "trace ops: conversions, copies and per-tensor quantization match torch" {
	run run_group conversion
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "trace ops: in-place ops write through, as in torch" {
	run run_group inplace
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "trace ops: random ops give torch's shapes and dtypes, the same for one seed" {
	run run_group random
	echo "$output"
	[ "$status" -eq 0 ]
	d="$M/m/random"
	trace "$d/model.pt" --input "$d/in0.npy" --seed 5 --save-outputs a -o a.ir
	trace "$d/model.pt" --input "$d/in0.npy" --seed 5 --save-outputs b -o b.ir
	for f in a/*.npy; do
		cmp "$f" "b/${f#a/}"
	done
	# uniform values lie in [0, 1)
	"$PYTHON" -c 'import numpy as np, sys; a = np.load(sys.argv[1]); sys.exit(0 if (a >= 0).all() and (a < 1).all() else 1)' a/out0.npy
}

@test "trace ops: the recorded graph keeps the ops and their concrete types" {
	d="$M/m/add_alpha"
	trace "$d/model.pt" --input "$d/in0.npy" --input "$d/in1.npy" -S -o g.ir
	grep -q 'aten::add' g.ir
	grep -q 'aten::mul' g.ir
	grep -q 'Float(2, 3, 4)' g.ir
}

@test "trace ops: shapes that do not broadcast fail with one clear line" {
	cat > bad.py <<'PYEOF'
import torch
class Bad(torch.nn.Module):
    def forward(self, x, y):
        return x + y
torch.jit.script(Bad()).save('bad.pt')
PYEOF
	"$PYTHON" bad.py
	run trace bad.pt --input 'f32[3]' --input 'f32[4]' -o out.ir
	[ "$status" -ne 0 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *aten::add* ]]
	[[ "$output" == *"must match the size"* ]]
	[ ! -e out.ir ]
}

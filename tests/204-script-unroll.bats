#!/usr/bin/env bats
# 204-script-unroll.bats - `script` unrolls Python-level loops of a constant
# trip count that compute no tensors, and folds the lists they build
# (lib/script/unroll.c): interpolate's scale list, tensordot's dims,
# loops over range(x.dim()), a `while` on a counter, insert/pop/_set_item
# on lists.  Loops whose trip count depends on data, huge ranges and
# loops computing tensors stay prim::Loop.  Each archive is written by
# torch.jit.script here, its outputs computed by eager torch; then
# script | lower | fold | emit, onnx.checker, ONNX Runtime, compared with
# 1e-4 relative error (tests/oracle/export_cases.py).
# bats file_tags=tier:standard

load helper

setup_file() {
	need_torch || return 0
	need_ort || return 0
}

# build NAME MODE: NAME.pt, NAME.in.txt, NAME.npy inputs, want_NAME_K.npy
# (export_cases.save).  torch.jit.script reads the source: it goes to a
# file.
build() {
	cat > build43.py <<'PY'
import sys
from typing import List

import torch
import torch.nn as nn
import torch.nn.functional as F
from export_cases import save

torch.manual_seed(0)


class Interp(nn.Module):
    def forward(self, x):
        return F.interpolate(x, scale_factor=2.0, mode="nearest")


class Bilinear(nn.Module):
    def forward(self, x):
        return F.interpolate(x, scale_factor=(1.5, 2.0), mode="bilinear",
                             align_corners=False)


class Tdot(nn.Module):
    def forward(self, a, b):
        return torch.tensordot(a, b, dims=2)


class Perm(nn.Module):
    """a list built over range(x.dim()), a while on a counter, insert,
    pop and item assignment on int lists"""
    def forward(self, x):
        perm: List[int] = []
        for i in range(x.dim()):
            perm.append(x.dim() - 1 - i)
        k = 0
        acc = 0
        while k < 4:
            acc += k
            k += 1
        sizes: List[int] = [1, 3]
        sizes.insert(0, acc)
        sizes[1] = 2
        last = sizes.pop()
        y = x.permute(perm).reshape(sizes[0], -1)
        return y * float(last) + float(len(sizes))


class TensorList(nn.Module):
    def forward(self, x):
        l: List[torch.Tensor] = [x, x * 2.0]
        l.insert(1, x + 1.0)
        l.append(x - 3.0)
        a = l.pop(0)
        return a + torch.stack(l).sum(0)


class DataLoop(nn.Module):
    """the trip count is x.size(0): stays a loop"""
    def forward(self, x):
        acc = torch.zeros_like(x[0])
        for i in range(x.size(0)):
            acc = acc + x[i] * float(i)
        return acc


class Huge(nn.Module):
    """a thousand iterations of int arithmetic: stays a loop"""
    def forward(self, x):
        total = 0
        for i in range(1000):
            total += i % 7
        return x + float(total)


class TensorBody(nn.Module):
    """a constant trip count, but the body computes tensors: stays a loop,
    as torch keeps it"""
    def forward(self, x):
        for i in range(3):
            x = x * 2.0 + float(i)
        return x


name, mode = sys.argv[1:3]
models = {
    "interp": (Interp(), [("x", torch.randn(2, 3, 4, 5), "f32[b,c,h,w]")]),
    "bilin": (Bilinear(), [("x", torch.randn(1, 2, 4, 4), "f32[1,2,4,4]")]),
    "tdot": (Tdot(), [("a", torch.randn(3, 4, 5), "f32[3,4,5]"),
                      ("b", torch.randn(4, 5, 2), "f32[4,5,2]")]),
    "perm": (Perm(), [("x", torch.randn(2, 3, 4), "f32[2,3,4]")]),
    "tlist": (TensorList(), [("x", torch.randn(3, 4), "f32[n,4]")]),
    "dloop": (DataLoop(), [("x", torch.randn(5, 3), "f32[n,3]")]),
    "huge": (Huge(), [("x", torch.randn(2, 3), "f32[2,3]")]),
    "tbody": (TensorBody(), [("x", torch.randn(2, 3), "f32[2,3]")]),
}
save(models, name, mode)
PY
	run_export_build build43.py "$1" "$2"
}

# script's text form of NAME.pt with its input specs
script_text() {
	tool script "$1.pt" $(sed 's/^/-i /' "$1.in.txt") -S
}

@test "script: interpolate's scale list folds (no prim::Loop, no append), nearest at 9 13 17" {
	run -0 export_check_model interp script 9 13 17
	run -0 script_text interp
	[[ "$output" != *prim::Loop* && "$output" != *aten::append* ]]
	[[ "$output" == *prim::ListConstruct* ]]
}

@test "script: bilinear interpolate with a scale pair, 11 13 17" {
	run -0 export_check_model bilin script 11 13 17
	run -0 script_text bilin
	[[ "$output" != *prim::Loop* ]]
}

@test "script: tensordot's dims lists fold (no __range_length, __derive_index, Loop), 9 13 17" {
	run -0 export_check_model tdot script 9 13 17
	run -0 script_text tdot
	[[ "$output" != *prim::Loop* && "$output" != *aten::__range_length* &&
	   "$output" != *aten::__derive_index* && "$output" != *aten::append* ]]
}

@test "script: range(x.dim()), a while on a counter, insert, _set_item, pop and len on int lists fold" {
	run -0 export_check_model perm script 9 13 17
	run -0 script_text perm
	[[ "$output" != *prim::Loop* && "$output" != *aten::insert* &&
	   "$output" != *aten::pop* && "$output" != *aten::_set_item* &&
	   "$output" != *aten::len* && "$output" != *aten::append* ]]
}

@test "script: insert, append and pop on a tensor list fold into list literals, 9 13 17" {
	run -0 export_check_model tlist script 9 13 17
	run -0 script_text tlist
	[[ "$output" != *aten::insert* && "$output" != *aten::pop* &&
	   "$output" != *aten::append* ]]
}

@test "script: a loop over range(x.size(0)) of a dynamic size stays prim::Loop, 13 17" {
	run -0 export_check_model dloop script 13 17
	run -0 script_text dloop
	[[ "$output" == *prim::Loop* ]]
}

@test "script: a loop of 1000 iterations stays prim::Loop, 13 17" {
	run -0 export_check_model huge script 13 17
	run -0 script_text huge
	[[ "$output" == *prim::Loop* ]]
}

@test "script: a constant-count loop whose body computes tensors stays prim::Loop, 13 17" {
	run -0 export_check_model tbody script 13 17
	run -0 script_text tbody
	[[ "$output" == *prim::Loop* ]]
}

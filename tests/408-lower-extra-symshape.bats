#!/usr/bin/env bats
# 408-lower-extra-symshape.bats - lower's symbolics for shape and indexing
# ops the opset tables do not have (lib/lower/symbolic_extra_shape.c):
# sort/argsort, nonzero, masked_select, roll, narrow, movedim, index_add,
# index_fill, index_copy, meshgrid, broadcast_tensors, one_hot,
# repeat_interleave, cross, diagonal, unfold, unsafe_split.  Each model is
# built and run by torch here; then script | lower | fold | emit,
# onnx.checker, ONNX Runtime, compared with torch's outputs (1e-4 relative
# error, integers exact).
# bats file_tags=tier:standard

load helper

setup_file() {
	need_torch || return 0
	need_ort || return 0
}

# build NAME MODE: NAME.pt (MODE script or trace), the inputs NAME.in.txt
# (name=spec) with NAME.npy files, torch's outputs want_NAME_K.npy.
build() {
	cat > build55s.py <<'PY'
import sys
import numpy as np
import export_cases
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
name, mode = sys.argv[1:3]


class Sort(nn.Module):
    def forward(self, x):
        v, i = torch.sort(x, dim=1, descending=True)
        return v, i, torch.argsort(x, dim=-1)


class Select(nn.Module):
    def forward(self, x, m):
        return torch.nonzero(x > 0), torch.masked_select(x, m)


class Move(nn.Module):
    def forward(self, x):
        return (torch.roll(x, [1, -2], [0, 2]), torch.narrow(x, 2, 1, 3),
                torch.movedim(x, 0, -1), torch.roll(x, 3))


class IndexOps(nn.Module):
    def forward(self, x, i, s):
        return (torch.index_add(x, 1, i, s, alpha=2.0),
                torch.index_fill(x, 1, i, -1.5),
                torch.index_copy(x, 1, i[:2], s[:, :2]))


class Grid(nn.Module):
    def forward(self, a, b, c):
        g = torch.meshgrid(a, b, indexing="xy")
        t = torch.broadcast_tensors(a.unsqueeze(1), c)
        return g[0], g[1], t[0], t[1]


class Enc(nn.Module):
    def forward(self, x, t):
        return (F.one_hot(t, 6), torch.repeat_interleave(x, 3, dim=1),
                torch.repeat_interleave(x, 2))


class Geo(nn.Module):
    def forward(self, a, b):
        p, q = torch.unsafe_split(a, 2, 0)
        return (torch.linalg.cross(a, b, dim=1), torch.diagonal(a, 1, 0, 2),
                a.unfold(1, 2, 1), p, q)


models = {
    "sort": (Sort(), [("x", torch.randn(3, 7), "f32[3,7]")]),
    "select": (Select(), [("x", torch.randn(4, 5), "f32[4,5]"),
                          ("m", torch.rand(4, 5) > 0.5, "bool[4,5]")]),
    "move": (Move(), [("x", torch.randn(3, 4, 5), "f32[3,4,5]")]),
    "index": (IndexOps(), [("x", torch.randn(3, 6), "f32[3,6]"),
                           ("i", torch.tensor([4, 0, 4, 2]), "i64[4]"),
                           ("s", torch.randn(3, 4), "f32[3,4]")]),
    "grid": (Grid(), [("a", torch.randn(3), "f32[3]"),
                      ("b", torch.randn(4), "f32[4]"),
                      ("c", torch.randn(2, 3, 5), "f32[2,3,5]")]),
    "enc": (Enc(), [("x", torch.randn(2, 3), "f32[2,3]"),
                    ("t", torch.tensor([[0, 5], [3, 1]]), "i64[2,2]")]),
    "geo": (Geo(), [("a", torch.randn(4, 3, 5), "f32[4,3,5]"),
                    ("b", torch.randn(4, 3, 5), "f32[4,3,5]")]),
}
export_cases.save(models, name, mode)
PY
	run_export_build build55s.py "$1" "$2"
}

# run_onnx NAME AIR OPSET, check_model NAME MODE OPSETS...: see helper.bash
run_onnx() { export_run_onnx "$@"; }
check_model() { export_check_model "$@"; }

@test "lower: sort and argsort (TopK over the whole dim, Neg before 11)" {
	run -0 check_model sort trace 9 11 17
}

@test "lower: nonzero and masked_select" {
	run -0 check_model select script 9 13 17
}

@test "lower: roll, narrow, movedim" {
	run -0 check_model move trace 9 13 17
}

@test "lower: index_add with repeated indices, index_fill, index_copy" {
	run -0 check_model index script 9 13 17
}

@test "lower: meshgrid (xy) and broadcast_tensors, lists of tensors" {
	run -0 check_model grid script 9 13 17
}

@test "lower: one_hot and repeat_interleave" {
	run -0 check_model enc trace 9 13 17
}

@test "lower: linalg_cross, diagonal with an offset, unfold, unsafe_split" {
	run -0 check_model geo script 9 13 17
}

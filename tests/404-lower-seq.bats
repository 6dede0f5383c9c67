#!/usr/bin/env bats
# 404-lower-seq.bats - script and lower on what torch.jit.script and
# torch.jit.trace write for: view(dtype), `del l[i]`, a tuple out of an
# if (MultiheadAttention's fast path, as in vit_b_16), dicts (torchvision's
# IntermediateLayerGetter, a dict literal, result["out"]), interpolate to a
# size read off another tensor (Resize with computed sizes), and lists
# changed in loops (ONNX sequences: SequenceInsert, SplitToSequence,
# SequenceAt, SequenceLength, ConcatFromSequence).  Each model is built by
# torch here and its outputs computed by torch; then script (or trace) |
# lower | fold | emit, onnx.checker, ONNX Runtime, compared with 1e-4
# relative error.
# bats file_tags=tier:standard

load helper

setup_file() {
	need_torch torchvision || return 0
	need_ort || return 0
}

# build NAME MODE: NAME.pt (MODE script or trace), the inputs NAME.in.txt
# (name=spec) with NAME.npy files, torch's outputs want_NAME_K.npy.
build() {
	cat > build54.py <<'PY'
import sys
import numpy as np
import export_cases
import torch
import torch.nn as nn
import torch.nn.functional as F
from typing import Dict, List
from torchvision.models._utils import IntermediateLayerGetter

torch.manual_seed(0)
name, mode = sys.argv[1:3]


class ViewDtype(nn.Module):
    def forward(self, x):
        return x.view(torch.float32) * 2.0


class ViewInt(nn.Module):
    def forward(self, x):
        return x.view(torch.int32) + 1


class Delete(nn.Module):
    def forward(self, x):
        l = [x, x + 1.0, x * 2.0]
        del l[1]
        return l[1]


class SelfAttn(nn.Module):
    """self-attention in eval: the fast path's tuple comes out of an if"""
    def __init__(self):
        super().__init__()
        self.mha = nn.MultiheadAttention(32, 4, batch_first=True)

    def forward(self, x):
        y, _ = self.mha(x, x, x, need_weights=False)
        return y


class Getter(nn.Module):
    """a dict attribute, torch.dict(), a dict literal, interpolate to
    another tensor's size"""
    def __init__(self):
        super().__init__()
        body = nn.Sequential(nn.Conv2d(3, 4, 3, stride=2, padding=1), nn.ReLU(),
                             nn.Conv2d(4, 6, 3, stride=2, padding=1), nn.ReLU())
        self.body = IntermediateLayerGetter(body, return_layers={"1": "low", "3": "high"})

    def forward(self, x):
        f = self.body(x)
        high = F.interpolate(f["high"], size=f["low"].shape[-2:], mode="bilinear",
                             align_corners=False)
        near = F.interpolate(f["high"], size=x.shape[-2:], mode="nearest")
        d: Dict[str, torch.Tensor] = {"a": high.sum(1, keepdim=True) + f["low"][:, :1], "b": near}
        return d["a"], d["b"]


class ListLoop(nn.Module):
    """torch.onnx FAQ's list in a loop; split of a dim of unknown size"""
    def forward(self, x):
        res: List[torch.Tensor] = []
        res1: List[torch.Tensor] = []
        arr = x.split(2, 0)
        for i in range(len(arr)):
            res.append(arr[i].sum(0, False))
            res1.append(arr[-1 - i] * 2.0)
        return torch.stack(res), torch.cat(res1), torch.tensor(len(res))


class Chunks(nn.Module):
    """cf_list: appends in a loop over chunks, len of the list"""
    def forward(self, x):
        parts = torch.chunk(x, 3, dim=1)
        outs: List[torch.Tensor] = []
        for p in parts:
            outs.append(p.max(dim=1)[0])
        return torch.stack(outs, 0), torch.tensor(len(outs))


models = {
    "vdtype": (ViewDtype(), [("x", torch.randn(2, 3), "f32[2,3]")]),
    "vint": (ViewInt(), [("x", torch.randn(2, 3), "f32[2,3]")]),
    "delete": (Delete(), [("x", torch.randn(2, 3), "f32[2,3]")]),
    "selfattn": (SelfAttn(), [("x", torch.randn(2, 5, 32), "f32[2,5,32]")]),
    "getter": (Getter(), [("x", torch.randn(1, 3, 20, 28), "f32[1,3,h,w]")]),
    "listloop": (ListLoop(), [("x", torch.randn(11), "f32[n]")]),
    "chunks": (Chunks(), [("x", torch.randn(2, 9), "f32[2,m]")]),
}
export_cases.save(models, name, mode)
PY
	run_export_build build54.py "$1" "$2"
}

# run_onnx NAME AIR OPSET, check_model NAME MODE OPSETS...: see helper.bash
run_onnx() { export_run_onnx "$@"; }
check_model() { export_check_model "$@"; }

@test "script/lower: view(dtype) of a traced archive is view.dtype (the same dtype: Identity; another: refused)" {
	run -0 check_model vdtype trace 9 13 17
	run -0 tool lower --opset 13 -S vdtype.air
	[[ "$output" == *onnx::Identity* && "$output" != *onnx::Reshape* ]]
	build vint trace
	tool script vint.pt -i x=f32[2,3] -o vint.air
	run -0 tool script vint.pt -i x=f32[2,3] -S
	[[ "$output" == *"Int(2, 3) = aten::view"* ]]
	run -4 tool lower --opset 13 vint.air
	[[ "$output" == *aten::view* && "$output" == *bitcast* ]]
}

@test "script/lower: del l[i] (aten::Delete) is kept and read element-wise" {
	run -0 check_model delete script 9 13 17
}

@test "script: MultiheadAttention's fast path returns a tuple out of an if (vit_b_16's encoder block)" {
	run -0 check_model selfattn script 9 13 17
	run -0 tool script selfattn.pt -i x=f32[2,5,32] -S
	[[ "$output" == *aten::_native_multi_head_attention* &&
	   "$output" != *prim::If* && "$output" != *prim::Uninitialized* ]]
}

@test "script: dicts (a dict attribute, torch.dict(), a literal) and interpolate to a computed size, 11 13 17" {
	run -0 check_model getter script 11 13 17
	run -0 tool lower --opset 13 -S getter.air
	[[ "$output" == *onnx::Resize* && "$output" == *onnx::Concat* ]]
	# below 11 bilinear is torch's interpolation matrices (412-lower-sweep)
	run -0 check_model getter script 9
}

@test "trace | lower: interpolate to a size read off a tensor (sizes from Shape/Slice/Concat), 11 13 17" {
	build getter script
	tool trace getter.pt --input x=x.npy -o getter-t.air
	run -0 tool lower --opset 13 -S getter-t.air
	[[ "$output" == *onnx::Resize* ]]
	for o in 11 13 17; do
		run -0 run_onnx getter getter-t.air $o
	done
}

@test "lower: lists changed in loops become ONNX sequences (append, len, split of an unknown dim, stack, cat), 13 17" {
	run -0 check_model listloop script 13 17
	run -0 tool lower --opset 13 -S listloop.air
	[[ "$output" == *onnx::SplitToSequence* && "$output" == *onnx::SequenceInsert* &&
	   "$output" == *onnx::SequenceAt* && "$output" == *onnx::ConcatFromSequence* ]]
	# chunk's 3 pieces are known to lower: the loop over them is
	# unrolled, and so converts before 13 too
	run -0 check_model chunks script 11 13 17
	# before 13, Loop carries no sequences: a loop over the pieces of a
	# split of a dim of unknown size is refused, naming the opset
	run -4 tool lower --opset 11 listloop.air
	[[ "$output" == *prim::Loop* && "$output" == *"opset 13"* ]]
	# the traced archive unrolls the loop into a fixed count of pieces of
	# a split over a dynamic dim: not known element-wise, refused (exit 4)
	# with the op named, rather than baked in for one size
	build listloop trace
	specs=()
	while IFS= read -r l; do specs+=(-i "$l"); done < listloop.in.txt
	run -0 tool script listloop.pt "${specs[@]}" -o listloop.air
	run -4 tool lower --opset 13 listloop.air
	[[ "$output" == *prim::ListUnpack*"not known element-wise"* ]]
}

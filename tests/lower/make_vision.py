#!/usr/bin/python3
"""make_vision.py NAME MODE - builds one small model of tests/416-lower-vision.bats
with real torch and torchvision (MODE script or trace) and saves it with its
inputs and torch's eager outputs (tests/oracle/export_cases.py save): the
ops torchvision's detection models need (torchvision::nms, batched_nms,
roi_align, roi_pool, boolean-mask and multi-tensor indexing, repeat,
interpolation to sizes known at run time,
torch.where(cond), split_with_sizes of traced sizes, unbind of a dim of
unknown size).  Run with tests/oracle on PYTHONPATH, in the output
directory."""
import sys

import export_cases
import torch
import torch.nn as nn
import torchvision.ops as ops

torch.manual_seed(0)
name, mode = sys.argv[1:3]


def boxes(n, size=40.0):
    """n boxes (x1, y1, x2, y2) inside [0, size), at least 4 wide"""
    xy = torch.rand(n, 2) * size * 0.6
    wh = 4.0 + torch.rand(n, 2) * size * 0.4
    return torch.cat([xy, xy + wh], 1)


def rois(k, nb, size):
    """k rois (batch index, x1, y1, x2, y2) over nb images of size pixels,
    at least 3 pixels wide"""
    b = torch.randint(0, nb, (k, 1)).float()
    xy = torch.rand(k, 2) * size * 0.5
    wh = 3.0 + torch.rand(k, 2) * size * 0.5
    return torch.cat([b, xy, xy + wh], 1)


class Nms(nn.Module):
    def forward(self, b, s):
        keep = ops.nms(b, s, 0.4)
        return keep, b[keep] * 2.0


class BatchedNms(nn.Module):
    def forward(self, b, s, c):
        return ops.batched_nms(b, s, c, 0.3)


class RoiAlign(nn.Module):
    def __init__(self, aligned, sr):
        super().__init__()
        self.aligned, self.sr = aligned, sr

    def forward(self, x, r):
        return ops.roi_align(x, r, (3, 4), spatial_scale=0.5,
                             sampling_ratio=self.sr, aligned=self.aligned)


class RoiAlignScale(nn.Module):
    def forward(self, x, r):
        # a spatial_scale known at run time only (scripted: 8 / 16)
        n = x[x[:, 0, 0, 0] > -10.0].shape[0] + 6
        return ops.roi_align(x, r, (3, 4), spatial_scale=n / 16.0,
                             sampling_ratio=2, aligned=True)


class RoiPool(nn.Module):
    def forward(self, x, r):
        return ops.roi_pool(x, r, (3, 2), spatial_scale=0.5)


class Mask(nn.Module):
    def forward(self, x, y):
        # a 2-d mask over all of x, a 1-d mask on dim 0, one on dim 1
        return x[x > 0.2], y[y[:, 0] > 0], y[:, y[0] > 0]


class WhereCond(nn.Module):
    def forward(self, x):
        i, j = torch.where(x > 0.5)
        k, = torch.where(x[0] < 0)
        return i, j, k, x[i, j]


class MultiIndex(nn.Module):
    def forward(self, x, i, j):
        a = x[i, j]                  # two index tensors, leading
        b = x[:, i, j]               # consecutive, after a slice
        c = x[i.unsqueeze(1), :, j]  # broadcast [4, 1] with [4], apart
        d = x[i.unsqueeze(1), j]     # broadcast [4, 1] with [4], leading
        return a, b, c, d


class SplitSizes(nn.Module):
    def forward(self, x):
        m = x[x[:, 0] > -10.0]       # all rows, the count unknown
        n = m.shape[0]
        a, b = torch.split(m, [n - 2, 2])
        c, d = m[:2].unbind(0)       # a dim of unknown size
        e, f = torch.split(x, [n - 5, 13 - n])  # a fixed dim, 3 and 5
        return a * 2.0, b, c - d, e.sum(0), f * 3.0


class Repeat(nn.Module):
    def forward(self, x, y):
        n = x[x[:, 0] > -10.0].shape[0]  # a count known at run time
        return y.repeat(n, 2), y.repeat(2, n, 1)


class ResizeDyn(nn.Module):
    def forward(self, x, y):
        n = x[x[:, 0] > -10.0].shape[0]  # a size known at run time
        a = nn.functional.interpolate(y, size=(n, 2 * n), mode="bicubic",
                                      align_corners=False)
        b = nn.functional.interpolate(y, size=(n + 1, n), mode="bilinear",
                                      align_corners=True)
        return a, b


def mk(i):
    return torch.tensor(i)


def mask_y():
    """[6, 3] with rows and columns on both sides of the masks"""
    y = torch.randn(6, 3)
    y[0] = mk([1.0, -1.0, 0.5])
    y[1, 0], y[2, 0] = 0.7, -0.3
    return y


models = {
    "nms": (Nms(), [("b", boxes(12), "f32[12,4]"),
                    ("s", torch.rand(12), "f32[12]")]),
    "bnms": (BatchedNms(), [("b", boxes(14), "f32[14,4]"),
                            ("s", torch.rand(14), "f32[14]"),
                            ("c", torch.randint(0, 3, (14,)), "i64[14]")]),
    "roialign": (RoiAlign(False, 2), [
        ("x", torch.randn(2, 3, 10, 12), "f32[2,3,10,12]"),
        ("r", rois(5, 2, 20.0), "f32[5,5]")]),
    "roialign_adaptive": (RoiAlign(False, -1), [
        ("x", torch.randn(2, 3, 10, 12), "f32[2,3,10,12]"),
        ("r", rois(5, 2, 20.0), "f32[5,5]")]),
    "roialign_aligned": (RoiAlign(True, 2), [
        ("x", torch.randn(2, 3, 10, 12), "f32[2,3,10,12]"),
        ("r", rois(5, 2, 20.0), "f32[5,5]")]),
    "roialign_scale": (RoiAlignScale(), [
        ("x", torch.randn(2, 3, 10, 12), "f32[2,3,10,12]"),
        ("r", rois(5, 2, 20.0), "f32[5,5]")]),
    "roipool": (RoiPool(), [
        ("x", torch.randn(2, 3, 10, 12), "f32[2,3,10,12]"),
        ("r", rois(4, 2, 20.0), "f32[4,5]")]),
    "mask": (Mask(), [("x", torch.randn(4, 5), "f32[4,5]"),
                      ("y", mask_y(), "f32[6,3]")]),
    "wherecond": (WhereCond(), [("x", torch.randn(3, 4), "f32[3,4]")]),
    "multiindex": (MultiIndex(), [
        ("x", torch.randn(5, 6, 7), "f32[5,6,7]"),
        ("i", mk([0, 4, 2, 1]), "i64[4]"),
        ("j", mk([5, 0, 3, 3]), "i64[4]")]),
    "splitsizes": (SplitSizes(), [("x", torch.randn(8, 3), "f32[8,3]")]),
    "resizedyn": (ResizeDyn(), [("x", torch.randn(6, 2), "f32[6,2]"),
                                ("y", torch.randn(1, 2, 4, 5),
                                 "f32[1,2,4,5]")]),
    "repeat": (Repeat(), [("x", torch.randn(3, 2), "f32[3,2]"),
                          ("y", torch.randn(2, 3), "f32[2,3]")]),
}
export_cases.save(models, name, mode)

# make_roi_align.py - the models of tests/433-lower-roi-align.bats:
# torchvision's roi_align on small feature maps, with rois from different
# images of the batch, partly or wholly outside the map, narrower than a
# pixel or reversed, aligned both ways, several spatial scales, sampling
# ratios and pooled sizes; double input, a spatial scale computed at run
# time (scripted) and no rois at all (the second input set); each traced
# and scripted by torch, with torch 1.13's eager outputs as the oracle.
#
#   make_roi_align.py NAME DIR   writes DIR/traced.pt, DIR/scripted.pt,
#   DIR/meta.json, DIR/inK/NAME.npy and DIR/outK/N.npy (opcases.py).
import sys

import torch
import torchvision.ops as ops

from opcases import write_case

torch.manual_seed(0)
name, d = sys.argv[1], sys.argv[2]


class Mix(torch.nn.Module):
    """four (aligned, scale, sampling_ratio, pooled size) settings"""
    def forward(self, x, r):
        return (ops.roi_align(x, r, (3, 4), 0.5, 2, False),
                ops.roi_align(x, r, (2, 2), 0.25, 3, True),
                ops.roi_align(x, r, (5, 3), 1.0, 1, True),
                ops.roi_align(x, r, (2, 3), 0.125, 4, False))


class Dyn(torch.nn.Module):
    """a spatial scale from the channel count (run time when scripted)"""
    def forward(self, x, r):
        s = 1.0 / float(x.shape[1])
        return (ops.roi_align(x, r, (2, 3), s, 2, True),
                ops.roi_align(x, r, (7, 7), 0.5, 2, False))


class Adaptive(torch.nn.Module):
    """sampling_ratio 0: ceil(roi size / pooled size) samples per roi"""
    def forward(self, x, r):
        return ops.roi_align(x, r, (2, 2), 0.5, 0, True)


def rois(k, nb, lo, hi, dtype=torch.float32):
    """k rois (batch index, x1, y1, x2, y2) over nb images, corners in
    [lo, hi): some outside the map, some reversed or thinner than a pixel
    (the last three: a point, one wholly outside, one reversed)"""
    b = torch.randint(0, nb, (k, 1)).to(dtype)
    a = lo + torch.rand(k, 2, dtype=dtype) * (hi - lo)
    wh = torch.rand(k, 2, dtype=dtype) * (hi - lo) * 0.6
    r = torch.cat([b, a, a + wh], 1)
    if k >= 3:
        r[-3, 3:] = r[-3, 1:3]
        r[-2, 1:] = torch.tensor([hi + 3.0, -hi, hi + 9.0, -hi + 2.0])
        r[-1, 1:] = torch.tensor([r[-1, 3], r[-1, 4], r[-1, 1], r[-1, 2]])
    return r


cases = {
    "mix": lambda: (Mix(), [
        ("x", torch.randn(2, 3, 9, 11), torch.randn(3, 3, 6, 13), [0, 2, 3]),
        ("r", rois(8, 2, -6.0, 26.0), rois(5, 3, -10.0, 30.0), [0])]),
    "dyn": lambda: (Dyn(), [
        ("x", torch.randn(2, 2, 8, 8, dtype=torch.float64),
         torch.randn(1, 2, 5, 16, dtype=torch.float64), [0, 2, 3]),
        ("r", rois(6, 2, -4.0, 20.0, torch.float64),
         torch.zeros(0, 5, dtype=torch.float64), [0])]),
    "adaptive": lambda: (Adaptive(), [
        ("x", torch.randn(1, 2, 6, 6), None, []),
        ("r", rois(4, 1, -2.0, 14.0), None, [])]),
}
m, ins = cases[name]()
write_case(m, ins, d)

"""make_fcos_small.py - torchvision's FCOS (the class of fcos_resnet50_fpn,
on a resnet18 FPN backbone of random weights, its classification layer
spread so that 20 detections pass the score threshold) scripted by torch
1.13 inside the conformance set's Detector wrapper (one image in, the
first image's boxes, labels and scores out): GeneralizedRCNNTransform's
None targets and list writes, the FPN's dict, the heads' dicts of lists,
the anchors' lists of lists, batched_nms and the postprocess's list of
dicts.

    python3 make_fcos_small.py

Writes fcos.pt, fcos.spec (x=f32[3,h,w]) and per size K fcos-K.x.npy and
torch's outputs want_fcos-K_I.npy.
"""
import os
import sys

import numpy as np
import torch
from torchvision.models.detection import FCOS
from torchvision.models.detection.backbone_utils import resnet_fpn_backbone
from torchvision.ops.feature_pyramid_network import LastLevelP6P7

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "conformance"))
from models import Detector  # noqa: E402  (the conformance set's wrapper)

torch.manual_seed(0)


bb = resnet_fpn_backbone(backbone_name="resnet18", weights=None,
                         trainable_layers=5, returned_layers=[2, 3, 4],
                         extra_blocks=LastLevelP6P7(256, 256))
m = FCOS(bb, num_classes=5, score_thresh=0.2, detections_per_img=20,
         min_size=96, max_size=128)
with torch.no_grad():
    h = m.head.classification_head.cls_logits
    torch.nn.init.normal_(h.weight, std=0.05)
    torch.nn.init.constant_(h.bias, -1.0)
d = Detector(m).eval()
with open("fcos.spec", "w") as f:
    f.write("x=f32[3,h,w]\n")
for k, shape in enumerate([(3, 96, 120), (3, 100, 90)]):
    x = torch.rand(*shape)
    np.save(f"fcos-{k}.x.npy", x.numpy())
    with torch.no_grad():
        outs = d(x)
    assert outs[0].shape[0] == 20
    for i, o in enumerate(outs):
        np.save(f"want_fcos-{k}_{i}.npy", o.numpy())
torch.jit.script(d).save("fcos.pt")

"""make_resnet_functions.py - torchvision's resnet18 (random weights, eval)
for export_modules_as_functions on a real model
(tests/873-pt2onnx-functions.bats): traced and saved as
resnet18_traced.pt, exported by torch.onnx.export itself with
export_modules_as_functions={BasicBlock} at opset 15
(torch_resnet18.onnx) and with export_modules_as_functions=True
(torch_resnet18_true.onnx), an input of batch 2 (x.npy) and torch's output on
it (want.npy)."""
import numpy as np
import torch
import torchvision
from torchvision.models.resnet import BasicBlock

torch.manual_seed(0)
m = torchvision.models.resnet18().eval()
x = torch.randn(1, 3, 64, 64)
torch.jit.trace(m, x).save("resnet18_traced.pt")
torch.onnx.export(m, x, "torch_resnet18.onnx", opset_version=15,
                  export_modules_as_functions={BasicBlock})
# a fresh copy: torch leaves its attribute hooks on the modules it exported
mt = torchvision.models.resnet18().eval()
mt.load_state_dict(m.state_dict())
torch.onnx.export(mt, x, "torch_resnet18_true.onnx", opset_version=15,
                  export_modules_as_functions=True)
x2 = torch.randn(2, 3, 64, 64)
np.save("x.npy", x2.numpy())
with torch.no_grad():
    np.save("want.npy", m(x2).numpy())

"""make_functions.py - modules for export_modules_as_functions
(tests/873-pt2onnx-functions.bats), with torch 1.13: M runs two instances
of Block (Linear, ReLU, a residual Add) and a Linear; traced and saved as
blocks_traced.pt, and exported by torch.onnx.export itself with
export_modules_as_functions={Block} at opset 15 (torch_block.onnx, the
structure to compare with), and with export_modules_as_functions=True
(torch_true.onnx: every module type, the root's included, nested).  Inputs x3.npy and x5.npy (batch 3 and 5) and
torch's outputs want3.npy, want5.npy.  Scaled runs Block-like modules whose
instances differ in a constant (scale 2 and 3): scaled_traced.pt, and its
output on x3.npy, scaled_want3.npy."""
import numpy as np
import torch


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 4)
        self.act = torch.nn.ReLU()

    def forward(self, x):
        return self.act(self.fc(x)) + x


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.b1 = Block()
        self.b2 = Block()
        self.out = torch.nn.Linear(4, 2)

    def forward(self, x):
        return self.out(self.b2(self.b1(x)))


class Scale(torch.nn.Module):
    def __init__(self, k):
        super().__init__()
        self.k = k

    def forward(self, x):
        return torch.relu(x) * self.k


class Scaled(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.s1 = Scale(2.0)
        self.s2 = Scale(3.0)

    def forward(self, x):
        return self.s2(self.s1(x))


torch.manual_seed(0)
m = M().eval()
x = torch.randn(3, 4)
torch.jit.trace(m, x).save("blocks_traced.pt")
torch.onnx.export(m, x, "torch_block.onnx", opset_version=15,
                  input_names=["x"], export_modules_as_functions={Block})
# a fresh copy: torch leaves its attribute hooks on the modules it exported
mt = M().eval()
mt.load_state_dict(m.state_dict())
torch.onnx.export(mt, x, "torch_true.onnx", opset_version=15,
                  input_names=["x"], export_modules_as_functions=True)
with torch.no_grad():
    for n in (3, 5):
        xn = torch.randn(n, 4)
        np.save(f"x{n}.npy", xn.numpy())
        np.save(f"want{n}.npy", m(xn).numpy())
torch.jit.trace(Scaled(), x).save("scaled_traced.pt")
with torch.no_grad():
    np.save("scaled_want3.npy", Scaled()(torch.from_numpy(np.load("x3.npy"))).numpy())

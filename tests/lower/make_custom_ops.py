"""make_custom_ops.py - archives calling custom C++ ops (torch.library,
torch 1.13) for the plugin tests (tests/480-lower-plugin.bats,
872-pt2onnx-custom-symbolic.bats): mynamespace::myop(Tensor x) -> Tensor
(x * 2 + 1) and mynamespace::myswish(Tensor x) -> Tensor (x * sigmoid(x)),
each with a Python CPU implementation, called through torch.ops by a
module that is scripted and saved (and traced, for the trace stage).
Writes myop_scripted.pt, myop_traced.pt, swish_scripted.pt, x.npy and
swish_want.npy (torch's output of the swish module on x)."""
import numpy as np
import torch

lib = torch.library.Library("mynamespace", "DEF")
lib.define("myop(Tensor x) -> Tensor")
lib.define("myswish(Tensor x) -> Tensor")
impl = torch.library.Library("mynamespace", "IMPL", "CPU")
impl.impl("myop", lambda x: x * 2 + 1)
impl.impl("myswish", lambda x: x * torch.sigmoid(x))


class MyOp(torch.nn.Module):
    def forward(self, x):
        return torch.ops.mynamespace.myop(x).relu()


class Swish(torch.nn.Module):
    def forward(self, x):
        return torch.ops.mynamespace.myswish(x + 1) * 3


torch.manual_seed(0)
x = torch.randn(2, 3)
torch.jit.script(MyOp()).save("myop_scripted.pt")
torch.jit.trace(MyOp(), x).save("myop_traced.pt")
torch.jit.script(Swish()).save("swish_scripted.pt")
xs = torch.randn(4, 3)
np.save("x.npy", xs.numpy())
with torch.no_grad():
    want = Swish()(xs)
    assert torch.allclose(want, (xs + 1) * torch.sigmoid(xs + 1) * 3)
np.save("swish_want.npy", want.numpy())

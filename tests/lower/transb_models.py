"""transb_models.py - torch 1.13 archives whose Linear / addmm / matmul / mm
weights lower reads with Gemm's transB=1 (tests/420-lower-transb.bats,
tests/605-emit-passthrough.bats).  Run in the output directory: per model
NAME.pt (torch.jit.trace under no_grad, eval), its inputs NAME_in_K.npy,
torch's outputs NAME_want_K.npy and each 2-d weight's bytes as torch holds
them (NAME_w_PARAM.bin, PARAM with '.' as '_')."""
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)


class MM(nn.Module):
    """matmul (rank 3), addmm and mm of t(w)"""
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(40, 300))
        self.b = nn.Parameter(torch.randn(40))
        self.w2 = nn.Parameter(torch.randn(20, 40))

    def forward(self, x, x2):
        z = torch.addmm(self.b, x2, self.w.t())
        return torch.matmul(x, self.w.t()), torch.mm(z, self.w2.t())


MODELS = {
    # K 300 and 512: more than one of ONNX Runtime's K blocks
    "lin2nb": (nn.Linear(300, 64, bias=False), [(4, 300)]),
    "mlp3": (nn.Sequential(nn.Linear(300, 512), nn.ReLU(), nn.Linear(512, 10)), [(2, 7, 300)]),
    "mlp4nb": (nn.Sequential(nn.Linear(300, 512, bias=False), nn.GELU()), [(2, 3, 5, 300)]),
    "mm": (MM(), [(2, 5, 300), (6, 300)]),
}

for name, (m, shapes) in MODELS.items():
    m = m.eval()
    ins = [torch.randn(*s) for s in shapes]
    with torch.no_grad():
        tr = torch.jit.trace(m, tuple(ins), check_trace=False)
        ys = m(*ins)
    tr.save(f"{name}.pt")
    for k, t in enumerate(ins):
        np.save(f"{name}_in_{k}.npy", t.numpy())
    for k, y in enumerate(ys if isinstance(ys, tuple) else (ys,)):
        np.save(f"{name}_want_{k}.npy", y.numpy())
    for p, t in m.named_parameters():
        if t.dim() == 2:
            open(f"{name}_w_{p.replace('.', '_')}.bin", "wb").write(t.detach().numpy().tobytes())

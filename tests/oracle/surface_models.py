# surface_models.py - models for tests/804-pt2onnx-report.bats and
# 805-pt2onnx-verify.bats (pt2onnx --report, --profile, --verify,
# --strip-doc-string), built by torch 1.13 into the current directory:
#   net.pt, net_traced.pt   a small CNN with two outputs, scripted, traced
#   x.npy, want0.npy, want1.npy   an input and torch's outputs for it
#   aten_ops.txt            "aten::KIND COUNT" of torch's inlined graph of
#                           net.pt after constant propagation (ifs on
#                           constants resolved), sorted (the ops --report
#                           must list)
#   doc.txt                 nodes with a doc_string in torch.onnx.export's
#                           model: "verbose=False N" and "verbose=True N"
#   gap.pt                  a model with aten::linalg_eig (no symbolic in
#                           pt2onnx or torch 1.13: complex outputs, no
#                           ONNX meaning)
#   gap_torch.txt           the op torch.onnx.export refuses in it
import collections, io
import numpy as np, onnx, torch, torch.nn as nn, torch.nn.functional as F

torch.manual_seed(0)

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.fc = nn.Linear(8 * 4 * 4, 5)
    def forward(self, x):
        y = F.max_pool2d(F.relu(self.conv(x)), 2)
        return self.fc(torch.flatten(y, 1)), torch.sigmoid(y).mean()

class Gap(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 6)
    def forward(self, x):
        return torch.linalg.eig(torch.relu(self.fc(x))[:, :2])[0].abs()

net = Net().eval()
x = torch.randn(2, 3, 8, 8)
s = torch.jit.script(net)
torch.jit.save(s, "net.pt")
torch.jit.save(torch.jit.trace(net, x), "net_traced.pt")
np.save("x.npy", x.numpy())
with torch.no_grad():
    for i, o in enumerate(net(x)):
        np.save("want%d.npy" % i, o.numpy())
# torch's graph with its ifs on constants resolved (as script does)
g = s.inlined_graph
torch._C._jit_pass_constant_propagation(g)
torch._C._jit_pass_dce(g)
def walk(nodes):
    for n in nodes:
        yield n
        for b in n.blocks():
            yield from walk(b.nodes())
kinds = collections.Counter(n.kind() for n in walk(g.nodes())
                            if n.kind().startswith("aten::"))
with open("aten_ops.txt", "w") as f:
    for k in sorted(kinds):
        f.write("%s %d\n" % (k, kinds[k]))
with open("doc.txt", "w") as f:
    for v in (False, True):
        b = io.BytesIO()
        torch.onnx.export(net, (x,), b, verbose=v)
        g = onnx.load_from_string(b.getvalue()).graph
        f.write("verbose=%s %d\n" % (v, sum(1 for n in g.node if n.doc_string)))

gap = Gap().eval()
torch.jit.save(torch.jit.script(gap), "gap.pt")
try:
    torch.onnx.export(gap, (torch.randn(2, 4),), io.BytesIO())
    refused = "none"
except Exception as e:  # torch names the op it has no symbolic for
    refused = "aten::linalg_eig" if "linalg_eig" in str(e) else "other: %s" % e
with open("gap_torch.txt", "w") as f:
    f.write(refused + "\n")

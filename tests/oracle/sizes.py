"""sizes.py - the inputs and torch's outputs of a model at several sizes.

save_sizes(name, mode, models): models maps a name to (module, [(input
name, spec, [shape per size]) per input]).  Writes NAME.spec (one
`input=spec` a line, dims symbolic where the spec says so), NAME.pt
(torch.jit.script, or torch.jit.trace on the first size's inputs: MODE
script or trace), and per size K the inputs NAME-K.INPUT.npy and torch's
outputs want_NAME-K_J.npy; the shell side is sizes_check_model in
tests/helper.bash.

As a command:

  sizes.py declared NAME MODEL.onnx
      every dim MODEL declares for its graph inputs and outputs as a
      number is that size at every size K built (NAME-K.INPUT.npy,
      want_NAME-K_J.npy): an axis that varies must be declared symbolic
      (dim_param) or unknown, never with the example's size.  A failure
      (exit 1) names the value and the axis.
"""
import glob
import sys

import numpy as np


def save_sizes(name, mode, models):
    import torch

    m, ins = models[name]
    m.eval()
    nsizes = len(ins[0][2])
    with open(f"{name}.spec", "w") as f:
        for n, spec, _ in ins:
            f.write(f"{n}={spec}\n")
    for k in range(nsizes):
        args = tuple(torch.randn(*shapes[k]) for _, _, shapes in ins)
        with torch.no_grad():
            if k == 0:
                if mode == "script":
                    sm = torch.jit.script(m)
                else:
                    sm = torch.jit.trace(m, args, check_trace=False)
                sm.save(f"{name}.pt")
            out = m(*args)
        outs = list(out) if isinstance(out, tuple) else [out]
        for (n, _, _), a in zip(ins, args):
            np.save(f"{name}-{k}.{n}.npy", a.numpy())
        for j, o in enumerate(outs):
            np.save(f"want_{name}-{k}_{j}.npy", o.numpy())


def declared(name, path):
    import onnx

    g = onnx.load(path).graph
    ks = sorted(int(p.rsplit("-", 1)[1][:-6])
                for p in glob.glob(f"want_{name}-*_0.npy"))
    inits = {i.name for i in g.initializer}
    vals = [(v, lambda k, v=v: f"{name}-{k}.{v.name}.npy")
            for v in g.input if v.name not in inits]
    vals += [(v, lambda k, j=j: f"want_{name}-{k}_{j}.npy")
             for j, v in enumerate(g.output)]
    assert ks and vals, (ks, len(vals))
    for v, npy in vals:
        dims = v.type.tensor_type.shape.dim
        for k in ks:
            shape = np.load(npy(k)).shape
            assert len(dims) in (0, len(shape)), (v.name, len(dims), shape)
            for a, d in enumerate(dims):
                if d.HasField("dim_value"):
                    assert d.dim_value == shape[a], (
                        f"{v.name} axis {a} declared {d.dim_value}, is "
                        f"{shape[a]} at size {k}")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "declared":
        declared(sys.argv[2], sys.argv[3])
    else:
        sys.exit("usage: sizes.py declared NAME MODEL.onnx")

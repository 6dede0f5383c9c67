"""sizes.py - the inputs and torch's outputs of a model at several sizes.

save_sizes(name, mode, models): models maps a name to (module, [(input
name, spec, [shape per size]) per input]).  Writes NAME.spec (one
`input=spec` a line, dims symbolic where the spec says so), NAME.pt
(torch.jit.script, or torch.jit.trace on the first size's inputs: MODE
script or trace), and per size K the inputs NAME-K.INPUT.npy and torch's
outputs want_NAME-K_J.npy; the shell side is sizes_check_model in
tests/helper.bash.
"""
import numpy as np
import torch


def save_sizes(name, mode, models):
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

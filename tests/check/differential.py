#!/usr/bin/python3
"""differential.py - random mutations of real models, judged by both
checkers: python3-onnx's onnx.checker and our `check`.

    differential.py CHECK_BINARY [COUNT] [SEED]

Takes the libonnx-testdata models, applies one to three random mutations
to each of COUNT copies (a field cleared, a name changed, a node dropped or
moved, an attribute retyped, tensor data changed, external data, a local
function...), writes them serialized as they are (no checker) and compares
the verdicts.  Mutants past what this onnx knows (an ir_version above
onnx.IR_VERSION, a default-domain opset above onnx_opset_version(): 8 and
17 for Debian's 1.12) are counted apart and not compared: `check` has
onnx 1.23.1's schemas, newer than the oracle's there.  A model the Python
checker accepts and `check` rejects is a
disagreement unless every message is one of our stricter rules
(onnx_check.h); a model the Python checker rejects and `check` accepts is
always one.  Prints the counts and each disagreement;
exits 1 if there is any.  Deterministic for a given SEED.
"""
import copy
import glob
import os
import random
import shutil
import subprocess
import sys
import tempfile

import onnx
from onnx import AttributeProto, TensorProto, defs

DATA = "/usr/share/libonnx-testdata/data"

# messages of the rules onnx 1.12 does not enforce
STRICT = ("lists domain", "is not defined by any node", "raw_data has",
          "values, expected", "negative dimension", "must not contain \"..\"",
          "runs past the end", "is not a regular file",
          "external data length", "must be a relative path",
          "unknown data_type")


def past_oracle(path):
    """The mutant is newer than this onnx knows (see the top)."""
    try:
        m = onnx.load(path, load_external_data=False)
    except Exception:  # unreadable: both checkers judge that
        return False
    return m.ir_version > onnx.IR_VERSION or any(
        o.domain in ("", "ai.onnx") and o.version > defs.onnx_opset_version()
        for o in m.opset_import)


def graphs(g):
    yield g
    for n in g.node:
        for a in n.attribute:
            if a.HasField("g"):
                yield from graphs(a.g)
            for sg in a.graphs:
                yield from graphs(sg)


def mutate(m, rnd):
    gs = list(graphs(m.graph))
    g = rnd.choice(gs)
    nodes = list(g.node)
    choices = []
    if True:
        choices += ["ir_version", "opset", "graph_name"]
    if nodes:
        choices += ["drop_node", "swap_nodes", "op_type", "domain",
                    "input_name", "output_name", "drop_input", "add_input",
                    "empty_input", "add_output", "empty_output",
                    "add_attr", "drop_attr", "attr_type", "attr_clear",
                    "node_no_io"]
    if g.input:
        choices += ["input_type", "input_shape", "dup_input", "input_name0"]
    if g.output:
        choices += ["output_name0", "output_type"]
    if g.initializer:
        choices += ["init_name", "init_dtype", "init_data", "init_dims",
                    "dup_init", "init_external", "init_not_input"]
    tattrs = [a for x in nodes for a in x.attribute if a.HasField("t")]
    if tattrs:
        choices += ["attr_tensor"]
    choices += ["value_info", "metadata", "function"]
    what = rnd.choice(choices)
    n = rnd.choice(nodes) if nodes else None
    if what == "ir_version":
        m.ir_version = rnd.choice([0, 1, 2, 3, 4, 9, 99])
    elif what == "opset":
        if m.opset_import and rnd.random() < 0.5:
            m.opset_import[0].version = rnd.choice([0, 1, 5, 9, 12, 99])
        else:
            del m.opset_import[:]
    elif what == "graph_name":
        g.name = ""
    elif what == "drop_node":
        del g.node[nodes.index(n)]
    elif what == "swap_nodes" and len(nodes) > 1:
        i, j = rnd.sample(range(len(nodes)), 2)
        a, b = copy.deepcopy(g.node[i]), copy.deepcopy(g.node[j])
        g.node[i].CopyFrom(b)
        g.node[j].CopyFrom(a)
    elif what == "op_type":
        n.op_type = rnd.choice(["", "Relu", "Upsample", "Scatter", "Conv",
                                "NoSuch", "Add", "If", "ATen"])
    elif what == "domain":
        n.domain = rnd.choice(["ai.onnx", "ai.onnx.ml", "com.x", ""])
    elif what == "input_name" and n.input:
        n.input[rnd.randrange(len(n.input))] = rnd.choice(["zz", ""])
    elif what == "output_name" and n.output:
        pick = [o.name for o in g.input] + [o for x in nodes
                                            for o in x.output] + ["zz"]
        n.output[rnd.randrange(len(n.output))] = rnd.choice(pick)
    elif what == "drop_input" and n.input:
        del n.input[-1]
    elif what == "add_input":
        n.input.append(rnd.choice(list(n.input) or ["zz"]))
    elif what == "empty_input" and n.input:
        n.input[rnd.randrange(len(n.input))] = ""
    elif what == "add_output":
        n.output.append("new_out")
    elif what == "empty_output" and n.output:
        n.output[rnd.randrange(len(n.output))] = ""
    elif what == "add_attr":
        a = n.attribute.add()
        a.name = rnd.choice(["zz", "__internal", "alpha", "axis", ""])
        a.type = AttributeProto.INT
        a.i = 1
    elif what == "drop_attr" and n.attribute:
        del n.attribute[rnd.randrange(len(n.attribute))]
    elif what == "attr_type" and n.attribute:
        a = n.attribute[rnd.randrange(len(n.attribute))]
        a.type = rnd.choice([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 14])
    elif what == "attr_clear" and n.attribute:
        a = n.attribute[rnd.randrange(len(n.attribute))]
        t = a.type
        a.Clear()
        a.name = "x" if rnd.random() < 0.2 else a.name
        a.type = t
    elif what == "node_no_io":
        del n.input[:]
        del n.output[:]
    elif what == "input_type":
        g.input[0].ClearField("type")
    elif what == "input_shape":
        if g.input[0].type.HasField("tensor_type"):
            if rnd.random() < 0.5:
                g.input[0].type.tensor_type.ClearField("shape")
            else:
                g.input[0].type.tensor_type.ClearField("elem_type")
    elif what == "dup_input":
        g.input.append(copy.deepcopy(g.input[0]))
    elif what == "input_name0":
        g.input[0].name = rnd.choice(["", "zz"])
    elif what == "output_name0":
        g.output[0].name = rnd.choice(["", "zz"])
    elif what == "output_type":
        g.output[0].ClearField("type")
    elif what == "init_name":
        g.initializer[0].name = rnd.choice(["", "zz"])
    elif what == "init_dtype":
        g.initializer[0].data_type = rnd.choice([0, 1, 7, 8, 11, 99])
    elif what == "init_data":
        t = g.initializer[0]
        r = rnd.random()
        if r < 0.3:
            t.float_data.append(1.0)
        elif r < 0.6:
            t.raw_data = t.raw_data[:-1] if t.raw_data else b"\0"
        else:
            t.int64_data.append(3)
    elif what == "init_dims":
        t = g.initializer[0]
        if t.dims:
            t.dims[0] = rnd.choice([0, -1, t.dims[0] + 1])
        else:
            t.dims.append(0)
    elif what == "dup_init":
        g.initializer.append(copy.deepcopy(g.initializer[0]))
    elif what == "init_external":
        t = g.initializer[0]
        t.data_location = TensorProto.EXTERNAL
        if rnd.random() < 0.5:
            t.ClearField("raw_data")
        if rnd.random() < 0.7:
            t.external_data.add(key="location", value=rnd.choice(
                ["m00000.onnx", "nope.bin", "", "/etc/passwd", "../x"]))
    elif what == "init_not_input":
        m.ir_version = 3
    elif what == "attr_tensor":
        a = rnd.choice(tattrs)
        r = rnd.random()
        if r < 0.3:
            a.t.ClearField("data_type")
        elif r < 0.6:
            a.t.int64_data.append(1)
        else:
            a.t.dims.append(2)
    elif what == "value_info":
        vi = g.value_info.add()
        vi.name = rnd.choice(["", "zz", g.input[0].name if g.input else "q"])
    elif what == "metadata":
        m.metadata_props.add(key="k", value="1")
        if rnd.random() < 0.5:
            m.metadata_props.add(key="k", value="2")
    elif what == "function":
        m.ir_version = rnd.choice([7, 8])
        f = m.functions.add()
        f.name = rnd.choice(["", "F"])
        if rnd.random() < 0.7:
            f.domain = "com.f"
        f.input.extend(["i"])
        f.output.extend(rnd.choice([["o"], ["o", "o"]]))
        nd = f.node.add()
        nd.op_type = rnd.choice(["Relu", "NoSuch"])
        nd.input.extend([rnd.choice(["i", "zz"])])
        nd.output.extend(["o"])
        if rnd.random() < 0.7:
            f.opset_import.add(domain="", version=rnd.choice([1, 13, 99]))
    return what


def main(check, count, seed):
    rnd = random.Random(seed)
    files = sorted(glob.glob(os.path.join(DATA, "**", "model.onnx"),
                             recursive=True))
    models = [onnx.load(f) for f in files]
    tmp = tempfile.mkdtemp(prefix="differential.")
    paths, whats = [], []
    for i in range(count):
        k = rnd.randrange(len(files))
        m = copy.deepcopy(models[k])
        # mostly one mutation, sometimes two or three
        n = 1 if rnd.random() < 0.7 else rnd.choice([2, 3])
        whats.append((files[k], "+".join(mutate(m, rnd) for _ in range(n))))
        p = os.path.join(tmp, "m%05d.onnx" % i)
        with open(p, "wb") as f:  # onnx.save would write external data
            f.write(m.SerializeToString())
        paths.append(p)
    py = {}
    for p in paths:
        try:
            onnx.checker.check_model(p)
            py[p] = None
        except Exception as e:  # the checker raises several kinds
            s = str(e).strip().splitlines()
            py[p] = s[0] if s else type(e).__name__
    r = subprocess.run([check] + paths, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    if r.returncode not in (0, 1, 3):
        print("check exited %d (mutants kept in %s)" % (r.returncode, tmp))
        print(r.stderr[-3000:])
        return 1
    msgs = {p: [] for p in paths}
    for line in r.stderr.splitlines():
        parts = line.split(": ", 2)
        if len(parts) == 3 and parts[1] in msgs:
            if not parts[2].startswith("invalid (") and \
               not parts[2].startswith("warning:"):
                msgs[parts[1]].append(parts[2])
    ok = {p: False for p in paths}
    for line in r.stdout.splitlines():
        if line.endswith(": ok") and line[:-4] in ok:
            ok[line[:-4]] = True
    bad = beyond = 0
    for p, (src, what) in zip(paths, whats):
        if past_oracle(p):
            beyond += 1
            continue
        if py[p] is None and not ok[p]:
            if all(any(s in m for s in STRICT) for m in msgs[p]) and msgs[p]:
                continue
            bad += 1
            print("WE REJECT %s (%s of %s):\n    %s" % (p, what, src,
                                                    "\n    ".join(msgs[p])))
        elif py[p] is not None and ok[p]:
            bad += 1
            print("WE ACCEPT %s (%s of %s): python: %s" % (p, what, src,
                                                          py[p]))
    nrej = sum(1 for p in paths if py[p] is not None)
    print("%d mutants, %d past python3-onnx %s's range not compared: "
          "python rejects %d, accepts %d; disagreements %d"
          % (count, beyond, onnx.__version__, nrej, count - nrej, bad))
    if bad:
        print("(mutants kept in %s)" % tmp)
        return 1
    shutil.rmtree(tmp)
    return 0


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: differential.py CHECK [COUNT] [SEED]")
    sys.exit(main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 500,
                  int(sys.argv[3]) if len(sys.argv) > 3 else 1))

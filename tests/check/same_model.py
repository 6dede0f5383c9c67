#!/usr/bin/python3
"""same_model.py - are two ONNX models the same graph?

    same_model.py A.onnx B.onnx

Compares what a round trip through pt2onnx's IR (check --print | emit) must
keep: opset imports; graph inputs (names and types) that are not
initializers; outputs (names and types); nodes in order with op_type,
domain, inputs, outputs and attribute values (floats compared as float32,
tensors by value, subgraphs recursively); initializers by name, type, shape
and value.  Node names, doc strings, producer and trailing omitted optional
inputs are not compared (emit may name nodes and drop trailing empty
inputs).  Prints each difference; exits 1 when there is one.
"""
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper


def tensor_sig(t):
    return (t.data_type, tuple(t.dims), numpy_helper.to_array(t).tobytes())


def attr_sig(a):
    v = helper.get_attribute_value(a)
    if isinstance(v, onnx.TensorProto):
        return tensor_sig(v)
    if isinstance(v, onnx.GraphProto):
        return graph_sig(v)
    if isinstance(v, float):
        return np.float32(v).tobytes()
    if isinstance(v, list) and v:
        if isinstance(v[0], onnx.GraphProto):
            return [graph_sig(g) for g in v]
        if isinstance(v[0], onnx.TensorProto):
            return [tensor_sig(t) for t in v]
        if isinstance(v[0], float):
            return np.array(v, np.float32).tobytes()
    return v


def inputs_sig(n):
    ins = list(n.input)
    while ins and ins[-1] == "":
        ins.pop()
    return tuple(ins)


def graph_sig(g):
    inits = {t.name: tensor_sig(t) for t in g.initializer}
    return {
        "inputs": [(i.name, i.type.SerializeToString())
                   for i in g.input if i.name not in inits],
        "outputs": [(o.name, o.type.SerializeToString()) for o in g.output],
        "nodes": [(n.op_type, n.domain, inputs_sig(n), tuple(n.output),
                   sorted((a.name, attr_sig(a)) for a in n.attribute))
                  for n in g.node],
        "initializers": inits,
    }


def main(a_path, b_path):
    a, b = onnx.load(a_path), onnx.load(b_path)
    ok = True
    oa = {o.domain: o.version for o in a.opset_import}
    ob = {o.domain: o.version for o in b.opset_import}
    if oa != ob:
        print("opset imports differ: %s vs %s" % (oa, ob))
        ok = False
    ga, gb = graph_sig(a.graph), graph_sig(b.graph)
    for part in ga:
        if ga[part] != gb[part]:
            print("%s differ:\n  %s\n  %s" % (part, str(ga[part])[:400],
                                            str(gb[part])[:400]))
            ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: same_model.py A.onnx B.onnx")
    sys.exit(main(sys.argv[1], sys.argv[2]))

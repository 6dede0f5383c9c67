#!/usr/bin/python3
"""make_broken.py - builds, at test time, a valid base model and one model
per checker rule broken once, for tests/700-check.bats.

    make_broken.py OUTDIR

writes OUTDIR/NAME.onnx for every case below (plus the external data files
some need) and OUTDIR/verdicts.tsv with one line per case:

    NAME <TAB> ok|fail <TAB> python3-onnx's message (first line)

the verdict of onnx.checker.check_model(path) (python3-onnx 1.12), so that
the bats test can assert that the rule is real (Python rejects it too) or,
for the rules marked strict in lib/onnx/onnx_check.h, that it is ours.
Models are saved with onnx.save, which does not run the checker.
"""
import copy
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

T = TensorProto


def base_model(ir=7, opset=13):
    """A valid model using what the cases break: typed inputs, a raw_data
    initializer, float/int/ints attributes, an optional input left empty,
    a Constant (tensor attribute) and an If with two subgraphs that read
    outer values."""
    x = helper.make_tensor_value_info("x", T.FLOAT, [1, 4])
    c = helper.make_tensor_value_info("c", T.BOOL, [])
    y = helper.make_tensor_value_info("y", T.FLOAT, [1, 4])
    m = helper.make_tensor_value_info("m", T.FLOAT, [1, 1])
    w = numpy_helper.from_array(np.arange(4, dtype=np.float32), "w")
    then_g = helper.make_graph(
        [helper.make_node("Neg", ["cl"], ["t_out"], name="neg0")], "then",
        [], [helper.make_tensor_value_info("t_out", T.FLOAT, [1, 4])])
    else_g = helper.make_graph(
        [helper.make_node("Identity", ["cl"], ["e_out"], name="id0")],
        "else", [], [helper.make_tensor_value_info("e_out", T.FLOAT, [1, 4])])
    nodes = [
        helper.make_node("Cast", ["x"], ["xc"], name="cast0", to=T.FLOAT),
        helper.make_node("Add", ["xc", "w"], ["a"], name="add0"),
        helper.make_node("LeakyRelu", ["a"], ["r"], name="lrelu0", alpha=0.1),
        helper.make_node("Constant", [], ["maxv"], name="const0",
                         value=helper.make_tensor("v", T.FLOAT, [], [6.0])),
        helper.make_node("Clip", ["r", "", "maxv"], ["cl"], name="clip0"),
        helper.make_node("If", ["c"], ["y"], name="if0",
                         then_branch=then_g, else_branch=else_g),
        helper.make_node("ReduceMean", ["cl"], ["m"], name="mean0",
                         axes=[1], keepdims=1),
    ]
    g = helper.make_graph(nodes, "base", [x, c], [y, m], [w])
    model = helper.make_model(
        g, opset_imports=[helper.make_opsetid("", opset)],
        producer_name="make_broken")
    model.ir_version = ir
    return model


def node(model, name):
    for n in model.graph.node:
        if n.name == name:
            return n
    raise KeyError(name)


def attr(n, name):
    for a in n.attribute:
        if a.name == name:
            return a
    raise KeyError(name)


def init(model, name="w"):
    for t in model.graph.initializer:
        if t.name == name:
            return t
    raise KeyError(name)


def sub(model, which="then_branch"):
    return attr(node(model, "if0"), which).g


CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


# --- model ---------------------------------------------------------------
@case
def ir_version_unset(m, d):
    m.ClearField("ir_version")


@case
def ir_version_unknown(m, d):
    m.ir_version = 99


@case
def no_opset_import(m, d):
    del m.opset_import[:]


@case
def opset_import_below_ir3(m, d):
    m.ir_version = 2


@case
def duplicate_opset_domain(m, d):  # strict
    m.opset_import.append(helper.make_opsetid("", 12))


@case
def metadata_duplicate_key(m, d):
    m.metadata_props.add(key="k", value="1")
    m.metadata_props.add(key="k", value="2")


# --- graph ---------------------------------------------------------------
@case
def graph_unnamed(m, d):
    m.graph.name = ""


@case
def input_unnamed(m, d):
    m.graph.input[0].name = ""


@case
def input_untyped(m, d):
    m.graph.input[0].ClearField("type")


@case
def input_no_elem_type(m, d):
    m.graph.input[0].type.tensor_type.ClearField("elem_type")


@case
def input_without_shape(m, d):
    m.graph.input[0].type.tensor_type.ClearField("shape")


@case
def output_without_shape(m, d):
    m.graph.output[0].type.tensor_type.ClearField("shape")


@case
def duplicate_input_names(m, d):
    m.graph.input.append(helper.make_tensor_value_info("x", T.FLOAT, [1, 4]))


@case
def initializer_unnamed(m, d):
    init(m).name = ""


@case
def duplicate_initializer_names(m, d):
    m.graph.initializer.append(copy.deepcopy(init(m)))


@case
def initializer_not_input_ir3(m, d):
    m.ir_version = 3


@case
def input_used_before_defined(m, d):
    nodes = list(m.graph.node)
    nodes[1], nodes[2] = nodes[2], nodes[1]  # LeakyRelu before its Add
    del m.graph.node[:]
    m.graph.node.extend(nodes)


@case
def undefined_input(m, d):
    node(m, "add0").input[1] = "nope"


@case
def output_defined_twice(m, d):
    node(m, "lrelu0").output[0] = "a"


@case
def graph_output_undefined(m, d):  # strict
    m.graph.output[1].name = "zz"


# --- node ----------------------------------------------------------------
@case
def op_type_empty(m, d):
    node(m, "lrelu0").op_type = ""


@case
def node_without_inputs_and_outputs(m, d):
    m.graph.node.append(helper.make_node("Relu", [], [], name="lonely"))


@case
def domain_not_imported(m, d):
    node(m, "lrelu0").domain = "com.example"


@case
def ai_onnx_domain_spelled_out(m, d):
    m.opset_import.append(helper.make_opsetid("ai.onnx", 13))
    node(m, "lrelu0").domain = "ai.onnx"


@case
def unknown_op(m, d):
    node(m, "lrelu0").op_type = "NoSuchOp"


@case
def op_newer_than_opset(m, d):
    node(m, "lrelu0").op_type = "Trilu"  # Trilu-14, model imports 13
    del node(m, "lrelu0").attribute[:]


@case
def deprecated_op(m, d):
    x = helper.make_tensor_value_info("x", T.FLOAT, [1, 1, 2, 2])
    y = helper.make_tensor_value_info("y", T.FLOAT, [1, 1, 4, 4])
    s = numpy_helper.from_array(np.array([1, 1, 2, 2], np.float32), "s")
    g = helper.make_graph(
        [helper.make_node("Upsample", ["x", "s"], ["y"], name="up0")],
        "upsample", [x], [y], [s])
    m.CopyFrom(helper.make_model(g, opset_imports=[
        helper.make_opsetid("", 10)]))
    m.ir_version = 5


@case
def too_many_inputs(m, d):
    node(m, "lrelu0").input.append("a")


@case
def too_few_inputs(m, d):
    del node(m, "add0").input[1]


@case
def too_many_outputs(m, d):
    node(m, "lrelu0").output.append("r2")


@case
def empty_required_input(m, d):
    node(m, "add0").input[1] = ""


@case
def unknown_attribute(m, d):
    node(m, "lrelu0").attribute.append(helper.make_attribute("foo", 1))


@case
def wrong_attribute_type(m, d):
    a = attr(node(m, "lrelu0"), "alpha")
    a.ClearField("f")
    a.type = onnx.AttributeProto.INT
    a.i = 1


@case
def attribute_type_field_mismatch(m, d):
    a = attr(node(m, "lrelu0"), "alpha")
    a.ClearField("f")
    a.ints.extend([1])


@case
def attribute_without_type(m, d):
    attr(node(m, "lrelu0"), "alpha").ClearField("type")


@case
def attribute_given_twice(m, d):
    node(m, "lrelu0").attribute.append(helper.make_attribute("alpha", 0.2))


@case
def attribute_empty_list(m, d):
    a = attr(node(m, "mean0"), "axes")
    del a.ints[:]


@case
def missing_required_attribute(m, d):
    del node(m, "cast0").attribute[:]


@case
def tensor_attribute_without_tensor(m, d):
    attr(node(m, "const0"), "value").ClearField("t")


# --- tensors -------------------------------------------------------------
@case
def tensor_without_data_type(m, d):
    init(m).ClearField("data_type")


@case
def tensor_undefined_data_type(m, d):
    init(m).data_type = T.UNDEFINED


@case
def tensor_unknown_data_type(m, d):
    t = init(m)
    t.ClearField("raw_data")
    t.float_data.extend([0, 1, 2, 3])
    t.data_type = 99


@case
def tensor_unknown_data_type_in_raw_data(m, d):  # strict
    init(m).data_type = 99


@case
def tensor_two_data_fields(m, d):
    init(m).float_data.extend([0, 1, 2, 3])


@case
def tensor_without_data(m, d):
    init(m).ClearField("raw_data")


@case
def tensor_data_in_wrong_field(m, d):
    t = init(m)
    t.ClearField("raw_data")
    t.int32_data.extend([0, 1, 2, 3])


@case
def string_tensor_in_raw_data(m, d):
    t = helper.make_tensor("s", T.STRING, [1], [b"abc"])
    t.ClearField("string_data")
    t.raw_data = b"abc"
    m.graph.initializer.append(t)


@case
def empty_tensor_with_data(m, d):
    t = helper.make_tensor("e", T.FLOAT, [0], [])
    t.float_data.extend([1.0])
    m.graph.initializer.append(t)


@case
def constant_tensor_two_fields(m, d):
    attr(node(m, "const0"), "value").t.raw_data = b"\0\0\0\0"


@case
def raw_data_length_wrong(m, d):  # strict
    init(m).raw_data = b"\0\0\0"


@case
def typed_data_count_wrong(m, d):  # strict
    t = init(m)
    t.ClearField("raw_data")
    t.float_data.extend([0, 1, 2])


@case
def negative_dimension(m, d):  # strict
    init(m).dims[0] = -4


def external(m, d, location, data=b"\0" * 16, where=None, **extra):
    t = init(m)
    t.ClearField("raw_data")
    t.data_location = T.EXTERNAL
    if location is not None:
        t.external_data.add(key="location", value=location)
    for k, v in extra.items():
        t.external_data.add(key=k, value=v)
    if where:
        with open(where, "wb") as f:
            f.write(data)


@case
def external_data_valid(m, d):  # a control: valid for both
    external(m, d, "w.bin", where=os.path.join(d, "w.bin"))


@case
def external_data_absolute_location(m, d):
    p = os.path.join(os.path.abspath(d), "abs_w.bin")
    external(m, d, p, where=p)


@case
def external_data_dotdot_location(m, d):  # strict
    os.makedirs(os.path.join(d, "sub"), exist_ok=True)
    external(m, d, "sub/../w_dd.bin", where=os.path.join(d, "w_dd.bin"))


@case
def external_data_missing_file(m, d):
    external(m, d, "nope.bin")


@case
def external_data_without_location(m, d):
    external(m, d, None)


@case
def external_data_with_inline_data(m, d):
    external(m, d, "w.bin", where=os.path.join(d, "w.bin"))
    init(m).float_data.extend([0, 1, 2, 3])


@case
def external_data_past_end(m, d):  # strict
    external(m, d, "short.bin", data=b"\0" * 8,
             where=os.path.join(d, "short.bin"))


# --- subgraphs -----------------------------------------------------------
@case
def subgraph_undefined_value(m, d):
    sub(m).node[0].input[0] = "nope"


@case
def subgraph_shadows_outer_value(m, d):
    g = sub(m)
    g.node[0].output[0] = "a"
    g.output[0].name = "a"


@case
def subgraph_unnamed(m, d):
    sub(m).name = ""


@case
def subgraph_unknown_op(m, d):
    sub(m, "else_branch").node[0].op_type = "NoSuchOp"


# --- sparse tensors and functions ----------------------------------------
@case
def sparse_index_out_of_range(m, d):
    v = helper.make_tensor("sp", T.FLOAT, [2], [1.0, 2.0])
    i = helper.make_tensor("sp_i", T.INT64, [2], [1, 9])
    m.graph.sparse_initializer.append(helper.make_sparse_tensor(v, i, [4]))


@case
def function_duplicate_output(m, d):
    m.ir_version = 8
    f = helper.make_function(
        "com.example", "F", ["i"], ["o", "o"],
        [helper.make_node("Relu", ["i"], ["o"])],
        [helper.make_opsetid("", 13)])
    m.functions.append(f)


@case
def function_valid(m, d):  # a control: valid for both
    m.ir_version = 8
    m.opset_import.append(helper.make_opsetid("com.example", 1))
    f = helper.make_function(
        "com.example", "F", ["i"], ["o"],
        [helper.make_node("Relu", ["i"], ["o"])],
        [helper.make_opsetid("", 13)])
    m.functions.append(f)
    node(m, "lrelu0").op_type = "F"
    node(m, "lrelu0").domain = "com.example"
    del node(m, "lrelu0").attribute[:]


@case
def custom_domain_valid(m, d):  # a control: custom ops are not checked
    m.opset_import.append(helper.make_opsetid("com.example", 1))
    n = node(m, "lrelu0")
    n.domain = "com.example"
    n.op_type = "MyOp"
    n.attribute.append(helper.make_attribute("anything", "goes"))


@case
def optional_output_omitted_valid(m, d):  # a control
    m.graph.node.append(helper.make_node("Dropout", ["cl"], ["dr", ""],
                                         name="drop0"))


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    rows = []
    base = base_model()
    onnx.save(base, os.path.join(outdir, "base.onnx"))
    names = ["base"]
    for name, fn in CASES.items():
        m = copy.deepcopy(base)
        fn(m, outdir)
        onnx.save(m, os.path.join(outdir, name + ".onnx"))
        names.append(name)
    for name in names:
        path = os.path.join(outdir, name + ".onnx")
        try:
            onnx.checker.check_model(path)
            rows.append((name, "ok", ""))
        except Exception as e:  # the checker raises several kinds
            msg = str(e).strip().splitlines()
            rows.append((name, "fail", msg[0] if msg else type(e).__name__))
    with open(os.path.join(outdir, "verdicts.tsv"), "w") as f:
        for r in rows:
            f.write("\t".join(r) + "\n")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: make_broken.py OUTDIR")
    main(sys.argv[1])

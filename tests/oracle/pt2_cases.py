#!/usr/bin/python3
"""pt2_cases.py - torch.export archives for the unpt2 tests (110, 991), made
from a real one with the standard library only (zipfile, json): no torch.

    pt2_cases.py mutate SRC.pt2 KIND OUT.pt2
        KIND: truncated, schema9, missing_weight, short_weight,
        unknown_ops, two_models, deflated, rce_sample
    pt2_cases.py expect SRC.pt2
        what unpt2 must write, from the archive's own JSON and zip layout:
        the symbols of the range constraints ("symbol S"), then one line
        per user input ("input NAME DIMS"), weight ("weight FQN OFFSET
        LENGTH": the data offset of its stored entry) and output ("output
        NAME"), each in the program's order.
    pt2_cases.py synthetic OUT.pt2
        a program torch 2.x would export from
            y = torch.cond(x.sum() > 0, torch.cos, torch.sin, (x,))
            with torch.no_grad(): z = y * 2      # wrap_with_set_grad_enabled
        (x: f32[3, 4]), written by hand in serde's format (schema 8.17): a
        higher-order cond with two subgraphs and a wrapper to inline.
    pt2_cases.py synthetic OUT.pt2 while
        the same for
            i, c = torch.zeros((), dtype=torch.int64), x.cos()
            i, c = while_loop(lambda i, c, y: i < 3,
                              lambda i, c, y: (i + 1, c * 0.5 + y), (i, c), (x,))
        returning (i, c).
    pt2_cases.py synthetic OUT.pt2 nested
        that while_loop with its condition itself a while_loop, 30 deep:
        read naively, 2^30 copies of the innermost condition.
    pt2_cases.py synthetic OUT.pt2 core
        torch 2.x's core ATen ops as run_decompositions() leaves them:
            g = native_group_norm(x, w, b, 2, 6, 20, 3, 1e-5)[0]
            y = _native_batch_norm_legit_no_training(g, w, b, rm, rv,
                                                     0.1, 1e-3)[0]
        (x: f32[2, 6, 4, 5]; w, b, rm, rv: f32[6]), returning y.
    pt2_cases.py synthetic OUT.pt2 fft
        torch.fft's internal forms as run_decompositions() leaves them:
            vr = view_as_real(r := _fft_r2c(x, [1], 0, True))
            back = _fft_c2r(r, [1], 2, 8)
            vf = view_as_real(_fft_r2c(x, [0, 1], 1, False))
        (x: f32[3, 8]), returning (vr, back, vf).
    pt2_cases.py summary IR.txt
        the same lines read from unpt2 -S's text IR.

The rce_sample case replaces data/sample_inputs/*.pt with a pickle that
would run os.system: the reader must not read it.
"""
import json
import sys
import zipfile


def entries(src):
    with zipfile.ZipFile(src) as z:
        return [(i, z.read(i.filename)) for i in z.infolist()]


def root_of(items):
    return items[0][0].filename.split("/")[0] + "/"


def model_json(items):
    for i, data in items:
        if "/models/" in i.filename and i.filename.endswith(".json"):
            return i.filename, json.loads(data)
    raise SystemExit("no models/*.json")


def write(out, items, method=zipfile.ZIP_STORED):
    with zipfile.ZipFile(out, "w", method) as z:
        for i, data in items:
            z.writestr(zipfile.ZipInfo(i.filename, date_time=(1980, 1, 1, 0, 0, 0)), data,
                       compress_type=method)


def replace(items, name, data):
    return [(i, data if i.filename == name else d) for i, d in items]


def mutate(src, kind, out):
    items = entries(src)
    root = root_of(items)
    mname, prog = model_json(items)
    wconf_name = next(i.filename for i, _ in items if i.filename.endswith("_weights_config.json"))
    wconf = json.loads(dict((i.filename, d) for i, d in items)[wconf_name])
    first = sorted(wconf["config"].values(), key=lambda e: e["path_name"])[0]
    wentry = root + "data/weights/" + first["path_name"]
    if kind == "truncated":
        data = open(src, "rb").read()
        open(out, "wb").write(data[:len(data) // 2])
        return
    if kind == "schema9":
        prog["schema_version"]["major"] = 9
        items = replace(items, mname, json.dumps(prog).encode())
    elif kind == "missing_weight":
        items = [(i, d) for i, d in items if i.filename != wentry]
    elif kind == "short_weight":
        items = [(i, d[:len(d) // 2] if i.filename == wentry else d) for i, d in items]
    elif kind == "unknown_ops":
        nodes = prog["graph_module"]["graph"]["nodes"]
        nodes[0]["target"] = "torch.ops.mylib.frobnicate.default"
        nodes[-1]["target"] = "torch.ops.aten.no_such_op.default"
        items = replace(items, mname, json.dumps(prog).encode())
    elif kind == "two_models":
        other = mname.replace("/models/", "/models/second_")
        items = items + [(zipfile.ZipInfo(other), json.dumps(prog).encode())] + [
            (zipfile.ZipInfo(i.filename.replace("/model_", "/second_model_")), d)
            for i, d in items if i.filename.endswith("_config.json")]
    elif kind == "extra_output_spec":
        specs = prog["graph_module"]["signature"]["output_specs"]
        specs.append(specs[0])
        items = replace(items, mname, json.dumps(prog).encode())
    elif kind == "deflated":
        write(out, items, zipfile.ZIP_DEFLATED)
        return
    elif kind == "rce_sample":
        # protocol 2: GLOBAL posix system, the command, TUPLE1, REDUCE, STOP
        evil = b"\x80\x02cposix\nsystem\nq\x00X\x0b\x00\x00\x00touch pwnedq\x01\x85q\x02Rq\x03."
        items = [(i, evil if "/sample_inputs/" in i.filename else d) for i, d in items]
    else:
        raise SystemExit(f"unknown kind {kind}")
    write(out, items)


def expect(src):
    items = entries(src)
    root = root_of(items)
    _, prog = model_json(items)
    g = prog["graph_module"]["graph"]
    conf = {}
    for i, d in items:
        if i.filename.endswith("_config.json"):
            folder = i.filename[len(root):].rsplit("/", 1)[0]
            for fqn, e in json.loads(d)["config"].items():
                conf[fqn] = (folder, e)
    offsets = {}
    with open(src, "rb") as f:
        for i, _ in items:
            f.seek(i.header_offset + 26)
            n, x = int.from_bytes(f.read(2), "little"), int.from_bytes(f.read(2), "little")
            offsets[i.filename] = i.header_offset + 30 + n + x
    for s in sorted(prog["range_constraints"]):
        print("symbol", s)
    ins, ws = [], []
    for spec in prog["graph_module"]["signature"]["input_specs"]:
        (kind, v), = spec.items()
        if kind == "user_input":
            name = v["arg"]["as_tensor"]["name"]
            dims = []
            for s in g["tensor_values"][name]["sizes"]:
                if "as_int" in s:
                    dims.append(str(s["as_int"]))
                else:
                    e = s["as_expr"]["expr_str"]
                    dims.append(e.split("'")[1] if e.startswith("Symbol(") else e)
            ins.append(f"input {name} {','.join(dims)}")
        else:
            fqn = v.get("parameter_name") or v.get("buffer_name") or v.get("tensor_constant_name")
            folder, e = conf[fqn]
            m = e["tensor_meta"]
            n = 1
            for s in m["sizes"]:
                n *= s["as_int"]
            size = {7: 4, 8: 8, 5: 8, 4: 4, 1: 1, 12: 1}[m["dtype"]]
            off = offsets[root + folder + "/" + e["path_name"]] + m["storage_offset"]["as_int"] * size
            ws.append(f"weight {fqn} {off} {n * size}")
    for line in ins + ws:
        print(line)
    for spec in prog["graph_module"]["signature"]["output_specs"]:
        print("output", spec["user_output"]["arg"]["as_tensor"]["name"])


def tmeta(shape, dtype=7):
    return {"dtype": dtype, "sizes": [{"as_int": d} for d in shape], "requires_grad": False,
            "device": {"type": "cpu", "index": None}, "strides": [{"as_int": 1} for _ in shape],
            "storage_offset": {"as_int": 0}, "layout": 7}


def call(target, args, outs, name):
    return {"target": target, "inputs": [{"name": n, "arg": a, "kind": 1} for n, a in args],
            "outputs": outs, "name": name, "metadata": {}, "is_hop_single_tensor_return": None}


def tensor(n):
    return {"as_tensor": {"name": n}}


def graph_arg(name, inputs, outputs, nodes, tvals):
    return {"as_graph": {"name": name, "graph": {
        "inputs": [tensor(n) for n in inputs], "outputs": [tensor(n) for n in outputs], "nodes": nodes,
        "tensor_values": tvals, "sym_int_values": {}, "sym_bool_values": {}, "sym_float_values": {},
        "custom_obj_values": {}, "is_single_tensor_return": False}}}


def while_program():
    i64 = tmeta([], 5)
    f = tmeta([3, 4])
    cond_fn = graph_arg("cond_fn_0", ["i_1", "c_1", "y_1"], ["lt"], [
        call("torch.ops.aten.lt.Scalar", [("self", tensor("i_1")), ("other", {"as_int": 3})], [tensor("lt")], "lt")],
        {"i_1": i64, "c_1": f, "y_1": f, "lt": tmeta([], 12)})
    body_fn = graph_arg("body_fn_0", ["i_1", "c_1", "y_1"], ["add", "add_1"], [
        call("torch.ops.aten.add.Tensor", [("self", tensor("i_1")), ("other", {"as_int": 1})], [tensor("add")], "add"),
        call("torch.ops.aten.mul.Tensor", [("self", tensor("c_1")), ("other", {"as_float": 0.5})], [tensor("mul")],
             "mul"),
        call("torch.ops.aten.add.Tensor", [("self", tensor("mul")), ("other", tensor("y_1"))], [tensor("add_1")],
             "add_1")],
        {"i_1": i64, "c_1": f, "y_1": f, "add": i64, "mul": f, "add_1": f})
    nodes = [
        call("torch.ops.aten.zeros.default", [("size", {"as_ints": []}), ("dtype", {"as_scalar_type": 5})],
             [tensor("zeros")], "zeros"),
        call("torch.ops.aten.cos.default", [("self", tensor("x"))], [tensor("cos")], "cos"),
        call("torch.ops.higher_order.while_loop", [("", cond_fn), ("", body_fn),
                                                   ("", {"as_tensors": [{"name": "zeros"}, {"name": "cos"}]}),
                                                   ("", {"as_tensors": [{"name": "x"}]})],
             [tensor("getitem"), tensor("getitem_1")], "while_loop"),
    ]
    return nodes, {"x": f, "zeros": i64, "cos": f, "getitem": i64, "getitem_1": f}, ["getitem", "getitem_1"]


def nested_cond(depth):
    i64, f = tmeta([], 5), tmeta([3, 4])
    lt = call("torch.ops.aten.lt.Scalar", [("self", tensor("w_i" if depth else "i_1")), ("other", {"as_int": 3})],
              [tensor("lt")], "lt")
    nodes = [lt]
    if depth:
        body = graph_arg("body_fn", ["i_1", "c_1", "y_1"], ["i_1", "c_1"], [], {"i_1": i64, "c_1": f, "y_1": f})
        nodes = [call("torch.ops.higher_order.while_loop",
                      [("", nested_cond(depth - 1)), ("", body),
                       ("", {"as_tensors": [{"name": "i_1"}, {"name": "c_1"}]}), ("", {"as_tensors": [{"name": "y_1"}]})],
                      [tensor("w_i"), tensor("w_c")], "w"), lt]
    return graph_arg("cond_fn", ["i_1", "c_1", "y_1"], ["lt"], nodes,
                     {"i_1": i64, "c_1": f, "y_1": f, "w_i": i64, "w_c": f, "lt": tmeta([], 12)})


def core_program():
    f, c = tmeta([2, 6, 4, 5]), tmeta([6])
    stats = [tmeta([2, 3]), tmeta([2, 3])]
    nodes = [
        call("torch.ops.aten.native_group_norm.default",
             [("input", tensor("x")), ("weight", tensor("w")), ("bias", tensor("b")), ("N", {"as_int": 2}),
              ("C", {"as_int": 6}), ("HxW", {"as_int": 20}), ("group", {"as_int": 3}), ("eps", {"as_float": 1e-5})],
             [tensor("gn"), tensor("gn_mean"), tensor("gn_rstd")], "native_group_norm"),
        call("torch.ops.aten._native_batch_norm_legit_no_training.default",
             [("input", tensor("gn")), ("weight", tensor("w")), ("bias", tensor("b")),
              ("running_mean", tensor("rm")), ("running_var", tensor("rv")), ("momentum", {"as_float": 0.1}),
              ("eps", {"as_float": 1e-3})],
             [tensor("bn"), tensor("bn_mean"), tensor("bn_invstd")], "bn"),
    ]
    tv = {"x": f, "w": c, "b": c, "rm": c, "rv": c, "gn": f, "gn_mean": stats[0], "gn_rstd": stats[1],
          "bn": f, "bn_mean": tmeta([0]), "bn_invstd": tmeta([0])}
    return nodes, tv, ["bn"]


def fft_program():
    f, c64, c64f = tmeta([3, 8]), tmeta([3, 5], 10), tmeta([3, 8], 10)
    nodes = [
        call("torch.ops.aten._fft_r2c.default",
             [("self", tensor("x")), ("dim", {"as_ints": [1]}), ("normalization", {"as_int": 0}),
              ("onesided", {"as_bool": True})], [tensor("r")], "r"),
        call("torch.ops.aten.view_as_real.default", [("self", tensor("r"))], [tensor("vr")], "vr"),
        call("torch.ops.aten._fft_c2r.default",
             [("self", tensor("r")), ("dim", {"as_ints": [1]}), ("normalization", {"as_int": 2}),
              ("last_dim_size", {"as_int": 8})], [tensor("back")], "back"),
        call("torch.ops.aten._fft_r2c.default",
             [("self", tensor("x")), ("dim", {"as_ints": [0, 1]}), ("normalization", {"as_int": 1}),
              ("onesided", {"as_bool": False})], [tensor("full")], "full"),
        call("torch.ops.aten.view_as_real.default", [("self", tensor("full"))], [tensor("vf")], "vf"),
    ]
    tv = {"x": f, "r": c64, "vr": tmeta([3, 5, 2]), "back": f, "full": c64f, "vf": tmeta([3, 8, 2])}
    return nodes, tv, ["vr", "back", "vf"]


def subgraph(name, fn, out):
    return {"as_graph": {"name": name, "graph": {
        "inputs": [tensor("x_1")], "outputs": [tensor(out)],
        "nodes": [call(fn, [("self", tensor("x_1"))], [tensor(out)], out)],
        "tensor_values": {"x_1": tmeta([3, 4]), out: tmeta([3, 4])},
        "sym_int_values": {}, "sym_bool_values": {}, "sym_float_values": {}, "custom_obj_values": {},
        "is_single_tensor_return": False}}}


def synthetic(out, kind="cond"):
    wrap = {"as_graph": {"name": "submod_1", "graph": {
        "inputs": [tensor("a")], "outputs": [tensor("mul")],
        "nodes": [call("torch.ops.aten.mul.Tensor", [("self", tensor("a")), ("other", {"as_float": 2.0})],
                       [tensor("mul")], "mul")],
        "tensor_values": {"a": tmeta([3, 4]), "mul": tmeta([3, 4])},
        "sym_int_values": {}, "sym_bool_values": {}, "sym_float_values": {}, "custom_obj_values": {},
        "is_single_tensor_return": False}}}
    graph = {
        "inputs": [tensor("x")], "outputs": [tensor("wrap")],
        "nodes": [
            call("torch.ops.aten.sum.default", [("self", tensor("x"))], [tensor("sum_1")], "sum_1"),
            call("torch.ops.aten.gt.Scalar", [("self", tensor("sum_1")), ("other", {"as_int": 0})],
                 [tensor("gt")], "gt"),
            call("torch.ops.higher_order.cond", [("", tensor("gt")),
                                                 ("", subgraph("true_graph_0", "torch.ops.aten.cos.default", "cos")),
                                                 ("", subgraph("false_graph_0", "torch.ops.aten.sin.default", "sin")),
                                                 ("", {"as_tensors": [{"name": "x"}]})],
                 [{"as_tensors": [{"name": "getitem"}]}], "cond"),
            call("torch.ops.higher_order.wrap_with_set_grad_enabled",
                 [("", {"as_bool": False}), ("", wrap), ("", tensor("getitem"))], [tensor("wrap")], "wrap"),
        ],
        "tensor_values": {"x": tmeta([3, 4]), "sum_1": tmeta([]), "gt": tmeta([], 12),
                          "getitem": tmeta([3, 4]), "wrap": tmeta([3, 4])},
        "sym_int_values": {}, "sym_bool_values": {}, "sym_float_values": {}, "custom_obj_values": {},
        "is_single_tensor_return": False}
    outs, ins = ["wrap"], ["x"]
    if kind == "core":
        graph["nodes"], graph["tensor_values"], outs = core_program()
        ins = ["x", "w", "b", "rm", "rv"]
        graph["inputs"] = [tensor(n) for n in ins]
        graph["outputs"] = [tensor(n) for n in outs]
    if kind == "fft":
        graph["nodes"], graph["tensor_values"], outs = fft_program()
        graph["outputs"] = [tensor(n) for n in outs]
    if kind in ("while", "nested"):
        graph["nodes"], graph["tensor_values"], outs = while_program()
        graph["outputs"] = [tensor(n) for n in outs]
    if kind == "nested":
        graph["nodes"][2]["inputs"][0]["arg"] = nested_cond(30)
    prog = {"graph_module": {"graph": graph, "signature": {
        "input_specs": [{"user_input": {"arg": tensor(n)}} for n in ins],
        "output_specs": [{"user_output": {"arg": tensor(n)}} for n in outs]},
        "module_call_graph": [], "metadata": {}, "treespec_namedtuple_fields": {}},
        "opset_version": {"aten": 10}, "range_constraints": {}, "schema_version": {"major": 8, "minor": 17},
        "verifiers": ["TRAINING"], "torch_version": "2.11.0", "guards_code": []}
    files = {"archive_format": b"pt2", "byteorder": b"little", ".data/version": b"1",
             "models/model.json": json.dumps(prog).encode(),
             "data/weights/model_weights_config.json": b'{"config": {}}',
             "data/constants/model_constants_config.json": b'{"config": {}}'}
    write(out, [(zipfile.ZipInfo("synthetic/" + n), d) for n, d in files.items()])


def summary(ir):
    """The same lines from unpt2's text IR (the graph's header and return)."""
    import re
    text = open(ir).read()
    head = text[text.index("\ngraph "):text.index("):\n")]
    syms = set()
    ins, ws = [], []
    for m in re.finditer(r"%([^ ]+) : [A-Za-z0-9]+\(([^)]*)\)( = weight\(\"[^\"]*\", offset=(\d+), length=(\d+)\))?", head):
        dims = m.group(2).replace(" ", "")
        if m.group(3):
            ws.append(f"weight {m.group(1)} {m.group(4)} {m.group(5)}")
        else:
            ins.append(f"input {m.group(1)} {dims}")
        syms.update(d for d in dims.split(",") if d and not d.isdigit())
    for s in sorted(syms):
        print("symbol", s)
    for line in ins + ws:
        print(line)
    ret = re.search(r"\n  return \(([^)]*)\)", text).group(1)
    for r in ret.split(", "):
        print("output", r.lstrip("%"))


if __name__ == "__main__":
    if sys.argv[1] == "synthetic":
        synthetic(*sys.argv[2:4])
    elif sys.argv[1] == "summary":
        summary(sys.argv[2])
    elif sys.argv[1] == "mutate":
        mutate(*sys.argv[2:5])
    elif sys.argv[1] == "expect":
        expect(sys.argv[2])
    else:
        raise SystemExit(__doc__)

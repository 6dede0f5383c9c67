"""opmodels.py - one tiny model per aten operator torch 1.13's exporter handles.

The operator list is the exporter's own registry
(torch.onnx._internal.registration.registry, the aten:: names).  Inputs come
from the operator's OpInfo sample inputs in
torch.testing._internal.common_methods_invocations.op_db where one exists
(it imports `expecttest`: the stand-in in expecttest_stub/ must be on
PYTHONPATH); the operators op_db does not cover get a hand-written model
below (MANUAL), with random inputs of a stated shape.  Either way the model
is Python source written to the model's directory (model.py), so that it can
be traced and scripted and read by a person.

A model counts for its operator when the operator shows up in the traced or
the scripted graph (op_in_trace / op_in_script in meta.json); a model where
it shows in neither is kept but flagged.
"""
import importlib.util
import math
import os
import re

import torch

MAX_SAMPLES = 16
PREFERRED_DTYPES = (torch.float32, torch.int64, torch.bool, torch.int32,
                    torch.uint8, torch.float64, torch.int8, torch.int16)


def registry_ops():
    """{'aten::add': [opsets 7..17 where a symbolic exists]} for every
    aten:: name in the exporter's registry."""
    import torch.onnx  # noqa: F401  (fills the registry)
    from torch.onnx._internal import registration
    reg = registration.registry
    out = {}
    for name in sorted(reg.all_functions()):
        if not name.startswith("aten::"):
            continue
        grp = reg.get_function_group(name)
        out[name] = [v for v in range(7, 18) if grp is not None and grp.get(v) is not None]
    return out


def registry_key(kind):
    """A graph node kind as the exporter looks it up (utils.py strips one
    trailing underscore: aten::relu_ -> aten::relu, aten::__and__ -> aten::__and_)."""
    return kind[:-1] if kind.endswith("_") else kind


def model_name(op):
    return "op_" + op.split("::", 1)[1]


# --- sources ------------------------------------------------------------------
class Unrenderable(Exception):
    pass


class Renderer:
    def __init__(self):
        self.inputs = []  # (name, tensor)

    def tensor(self, t):
        n = f"x{len(self.inputs)}"
        t = t.detach().clone().contiguous()
        if t.is_complex() or t.dtype in (torch.bfloat16, torch.complex32) or t.is_sparse or t.is_quantized:
            raise Unrenderable(f"input dtype {t.dtype}")
        self.inputs.append((n, t))
        return n

    def value(self, v):
        if isinstance(v, torch.Tensor):
            return self.tensor(v)
        if isinstance(v, bool):
            return repr(v)
        if isinstance(v, int):
            return repr(v)
        if isinstance(v, float):
            if math.isinf(v):
                return "float('inf')" if v > 0 else "float('-inf')"
            if math.isnan(v):
                return "float('nan')"
            return repr(v)
        if isinstance(v, str):
            return repr(v)
        if v is None:
            return "None"
        if isinstance(v, torch.dtype):
            return str(v)
        if isinstance(v, (torch.memory_format, torch.layout)):
            return str(v)
        if isinstance(v, torch.Size):
            return "(" + "".join(f"{int(x)}, " for x in v) + ")"
        if isinstance(v, tuple):
            return "(" + "".join(self.value(x) + ", " for x in v) + ")"
        if isinstance(v, list):
            return "[" + ", ".join(self.value(x) for x in v) + "]"
        if isinstance(v, slice):  # an index of __getitem__
            return f"slice({self.value(v.start)}, {self.value(v.stop)}, {self.value(v.step)})"
        if v is Ellipsis:
            return "..."
        if isinstance(v, torch.nn.Module) and _default_module(v):
            return f"torch.nn.{type(v).__name__}()"
        raise Unrenderable(f"argument of type {type(v).__name__}")


def _default_module(m):
    """m is a torch.nn module as its class builds it with no arguments (no
    parameters, buffers or submodules; every attribute the default's), so
    that torch.nn.Class() is its source (a loss's distance_function)."""
    cls = type(m)
    if getattr(torch.nn, cls.__name__, None) is not cls or next(m.children(), None) is not None:
        return False
    if next(m.parameters(), None) is not None or next(m.buffers(), None) is not None:
        return False
    try:
        d = cls()
    except Exception:
        return False
    return vars(d) == vars(m)


def callee(opinfo):
    """How to call an OpInfo's operator in source: ('torch.nn.functional.x',
    False) or ('x', True) for a Tensor method."""
    obj = torch
    for p in opinfo.name.split("."):
        obj = getattr(obj, p, None)
        if obj is None:
            break
    if obj is not None and callable(obj):
        return "torch." + opinfo.name, False
    meth = opinfo.name.split(".")[-1]
    if hasattr(torch.Tensor, meth):
        return meth, True
    if isinstance(opinfo.op, torch._ops.OpOverload):  # an OpInfo of an aten overload (aten.slice.Tensor)
        return "torch.ops." + str(opinfo.op), False
    raise Unrenderable(f"no torch.{opinfo.name} and no Tensor.{meth}")


def source_for_sample(opinfo, sample, own_call=False):
    """(source of a module calling opinfo's operator on sample, [(name,
    tensor)] its inputs).  own_call: the call OpInfo's own tests make,
    opinfo(sample.input, *sample.args, **sample.kwargs) (OpInfo.__call__: its
    op, a lambda or wrapper as often as a torch function), the OpInfo found
    by name in op_db (opinfo_named); else torch.<name> or Tensor.<name>."""
    if own_call:
        r = Renderer()
        call = ", ".join([r.value(sample.input)] + [r.value(a) for a in sample.args] +
                         [f"{k}={r.value(v)}" for k, v in sample.kwargs.items()])
        prelude = ("from opmodels import opinfo_named\n\n"
                   f"OP = opinfo_named({full_name(opinfo)!r})  # its __call__ is its op\n\n\n")
        return module_source([n for n, _ in r.inputs], f"return OP({call})", prelude), r.inputs
    r = Renderer()
    fn, method = callee(opinfo)
    first = r.value(sample.input)
    args = [r.value(a) for a in sample.args]
    kwargs = [f"{k}={r.value(v)}" for k, v in sample.kwargs.items()]
    if method:
        if not isinstance(sample.input, torch.Tensor):
            raise Unrenderable("method call on a non-tensor")
        call = f"{first}.{fn}({', '.join(args + kwargs)})"
    else:
        call = f"{fn}({', '.join([first] + args + kwargs)})"
    return module_source([n for n, _ in r.inputs], f"return {call}"), r.inputs


HEADER = "import torch\nimport torch.nn.functional as F\nfrom typing import Dict, List, Optional, Tuple\n\n\n"


def module_source(names, body, prelude=""):
    body = "\n".join("        " + l for l in body.strip("\n").splitlines())
    return (HEADER + prelude + "class OpModel(torch.nn.Module):\n"
            f"    def forward(self{''.join(', ' + n for n in names)}):\n{body}\n")


def load_source(path, src):
    with open(path, "w") as f:
        f.write(src)
    name = "opmodel_" + re.sub(r"\W", "_", os.path.basename(os.path.dirname(path)))
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.OpModel().eval()


# --- OpInfo matching ----------------------------------------------------------
_OPDB = None


def op_db():
    """torch 1.13's op_db.  Its random operators' callables (dropout, randn,
    bernoulli, ...) call wrapper_set_seed, which seeds torch before each call
    so that OpInfo's tests compare eager runs; here it calls the operator
    unseeded, so that a sample's model is random (generate.nondeterministic:
    compared by shape), as the traced graph is: the seed is not in it."""
    global _OPDB
    if _OPDB is None:
        from torch.testing._internal import common_methods_invocations as cmi
        cmi.wrapper_set_seed = _unseeded
        _OPDB = cmi.op_db
    return _OPDB


def _unseeded(op, *args, **kwargs):
    return op(*args, **kwargs)


def full_name(o):
    """An OpInfo's name in op_db: name.variant_test_name."""
    return o.name + (f".{o.variant_test_name}" if o.variant_test_name else "")


def opinfo_named(full):
    """The (first) OpInfo of op_db whose full_name is full."""
    for o in op_db():
        if full_name(o) == full:
            return o
    raise KeyError(f"no OpInfo {full} in op_db")


def opinfos_for(op):
    """OpInfos whose name, aten_name, last name component or alias is op."""
    short = op.split("::", 1)[1]
    keys = {short, short.rstrip("_")}
    if short.startswith("__") and short.endswith("_"):
        keys.add(short.strip("_"))
    out = []
    for o in op_db():
        names = {o.name, o.aten_name or "", o.name.split(".")[-1]}
        names |= {a.name.split(".")[-1] for a in getattr(o, "aliases", ())}
        if names & keys:
            out.append(o)
    # exact names first
    out.sort(key=lambda o: (o.name.split(".")[-1] != short, o.name != short, o.variant_test_name != ""))
    return out


def opinfo_samples(o):
    """(dtype, [samples]) in dtype preference order, samples with no 0-d
    tensors first."""
    try:
        dts = o.supported_dtypes("cpu")
    except Exception:
        dts = set()
    for dt in PREFERRED_DTYPES:
        if dt not in dts:
            continue
        try:
            ss = []
            for s in o.sample_inputs("cpu", dt, requires_grad=False):
                ss.append(s)
                if len(ss) >= MAX_SAMPLES:
                    break
        except Exception:
            continue

        def rank0(s):
            ts = [s.input] if isinstance(s.input, torch.Tensor) else []
            ts += [a for a in s.args if isinstance(a, torch.Tensor)]
            return any(t.dim() == 0 for t in ts)
        ss.sort(key=rank0)
        yield dt, ss


# --- hand-written models for what op_db does not cover -------------------------
# op -> (forward body, [input specs] set 1, [input specs] set 2 or None)
# spec: "f32[2,3]" randn, "f32+[2,3]" positive, "i64[2,3]@0:5" randint in
# [0, 5), "b8[2,3]" random bools, "i64[]=5" a constant.
CONV_W = "f32[4,3,3,3]"
MANUAL = {
    "aten::Delete": ("l = [x0, x0 + 1.0, x0 * 2.0]\ndel l[1]\nreturn l[1]", ["f32[2,3]"], ["f32[4,5]"]),
    "aten::__and_": ("return x0 & x1", ["b8[3,4]", "b8[3,4]"], ["b8[5,2]", "b8[5,2]"]),
    "aten::__or_": ("return x0 | x1", ["b8[3,4]", "b8[3,4]"], ["b8[5,2]", "b8[5,2]"]),
    "aten::__xor_": ("return x0 ^ x1", ["b8[3,4]", "b8[3,4]"], ["b8[5,2]", "b8[5,2]"]),
    "aten::__lshift_": ("return x0 << x1", ["i64[3,4]@0:100", "i64[3,4]@0:8"], ["i64[5,2]@0:100", "i64[5,2]@0:8"]),
    "aten::__rshift_": ("return x0 >> x1", ["i64[3,4]@0:1000", "i64[3,4]@0:8"], ["i64[5,2]@0:1000", "i64[5,2]@0:8"]),
    "aten::__not_": ("if not bool(x0.sum() > 0):\n    return -x0\nreturn x0", ["f32[2,3]"], ["f32[4,3]"]),
    "aten::__derive_index": ("acc = torch.zeros_like(x0[0])\nfor i in range(1, x0.size(0), 2):\n    acc = acc + x0[i]\nreturn acc",
                             ["f32[6,3]"], ["f32[9,3]"]),
    "aten::__range_length": ("acc = torch.zeros_like(x0[0])\nfor i in range(0, x0.size(0), 3):\n    acc = acc + x0[i]\nreturn acc",
                             ["f32[6,3]"], ["f32[10,3]"]),
    "aten::__getitem_": ("l = x0.split(1)\nreturn l[1]", ["f32[3,4]"], ["f32[5,2]"]),
    "aten::__interpolate": ("return F.interpolate(x0, scale_factor=2.0, mode='nearest')", ["f32[1,2,4,4]"], ["f32[2,2,3,5]"]),
    "aten::__is_": ("a: Optional[int] = None\nif x0.size(0) > 2:\n    a = 3\nif a is None:\n    return x0\nreturn x0 * 2.0",
                    ["f32[2,3]"], ["f32[4,3]"]),
    "aten::__isnot_": ("a: Optional[int] = None\nif x0.size(0) > 2:\n    a = 3\nif a is not None:\n    return x0 * 2.0\nreturn x0",
                       ["f32[2,3]"], ["f32[4,3]"]),
    "aten::_cast_BFloat16": None,  # no such aten operator in torch 1.13
    "aten::_cast_Bool": None,  # no such aten operator in torch 1.13
    "aten::_cast_Byte": ("return torch.ops.aten._cast_Byte(x0)", ["f32+[2,3]"], None),
    "aten::_cast_Char": ("return torch.ops.aten._cast_Char(x0)", ["f32[2,3]"], None),
    "aten::_cast_ComplexDouble": None,  # no such aten operator in torch 1.13
    "aten::_cast_ComplexFloat": None,  # no such aten operator in torch 1.13
    "aten::_cast_Double": ("return torch.ops.aten._cast_Double(x0)", ["f32[2,3]"], None),
    "aten::_cast_Float": ("return torch.ops.aten._cast_Float(x0)", ["i64[2,3]@-5:5"], None),
    "aten::_cast_Half": ("return torch.ops.aten._cast_Half(x0)", ["f32[2,3]"], None),
    "aten::_cast_Int": ("return torch.ops.aten._cast_Int(x0)", ["f32[2,3]"], None),
    "aten::_cast_Long": ("return torch.ops.aten._cast_Long(x0)", ["f32[2,3]"], None),
    "aten::_cast_Short": ("return torch.ops.aten._cast_Short(x0)", ["f32[2,3]"], None),
    "aten::_conj": ("return torch.view_as_real(torch._conj(torch.view_as_complex(x0)).resolve_conj())", ["f32[2,3,2]"], ["f32[4,5,2]"]),
    "aten::_convolution": ("return torch._convolution(x0, x1, None, [1, 1], [1, 1], [1, 1], False, [0, 0], 1, False, False, True, True)",
                           ["f32[1,3,8,8]", CONV_W], ["f32[2,3,6,10]", CONV_W]),
    "aten::convolution": ("return torch.convolution(x0, x1, x2, [1, 1], [0, 0], [1, 1], False, [0, 0], 1)",
                          ["f32[1,3,8,8]", CONV_W, "f32[4]"], ["f32[2,3,6,10]", CONV_W, "f32[4]"]),
    "aten::conv3d": ("return F.conv3d(x0, x1, x2, padding=1)", ["f32[1,2,4,5,6]", "f32[3,2,3,3,3]", "f32[3]"],
                     ["f32[2,2,5,4,3]", "f32[3,2,3,3,3]", "f32[3]"]),
    "aten::conv_tbc": ("return torch.conv_tbc(x0, x1, x2, 1)", ["f32[7,2,3]", "f32[3,3,4]", "f32[4]"],
                       ["f32[9,3,3]", "f32[3,3,4]", "f32[4]"]),
    "aten::_dim_arange": ("return torch._dim_arange(x0, 1)", ["f32[2,5]"], ["f32[3,7]"]),
    "aten::_floor_divide": None,  # no such aten operator in 1.13
    "aten::_log_softmax": ("return torch._log_softmax(x0, 1, False)", ["f32[2,5]"], ["f32[3,7]"]),
    "aten::_pack_padded_sequence": (
        "p = torch.nn.utils.rnn.pack_padded_sequence(x0, x1, enforce_sorted=True)\nreturn p.data, p.batch_sizes",
        ["f32[5,3,4]", "i64[]=[5,3,2]"], None),
    "aten::_pad_packed_sequence": (
        "p = torch.nn.utils.rnn.pack_padded_sequence(x0, x1, enforce_sorted=True)\n"
        "y, n = torch.nn.utils.rnn.pad_packed_sequence(p)\nreturn y, n",
        ["f32[5,3,4]", "i64[]=[5,3,2]"], None),
    "aten::_pad_circular": ("return torch.ops.aten._pad_circular(x0, [1, 2, 2, 1])", ["f32[1,2,4,5]"], ["f32[2,3,5,4]"]),
    "aten::_reshape_from_tensor": ("return torch._reshape_from_tensor(x0, torch._shape_as_tensor(x1))",
                                   ["f32[2,6]", "f32[3,4]"], ["f32[4,6]", "f32[8,3]"]),
    "aten::_shape_as_tensor": ("return torch._shape_as_tensor(x0)", ["f32[2,6]"], ["f32[4,3]"]),
    "aten::_sample_dirichlet": ("return torch._sample_dirichlet(x0)", ["f32+[3,4]"], None),
    "aten::_standard_gamma": ("return torch._standard_gamma(x0)", ["f32+[3,4]"], None),
    "aten::_set_item": ("d: Dict[str, torch.Tensor] = {}\nd['a'] = x0\nd['b'] = x0 + 1.0\nreturn d['a'] * d['b']",
                        ["f32[2,3]"], ["f32[4,2]"]),
    "aten::_unique": ("return torch._unique(x0, True, True)", ["i64[10]@0:4"], ["i64[17]@0:6"]),
    "aten::_unique2": ("return torch._unique2(x0, True, True, True)", ["i64[10]@0:4"], ["i64[17]@0:6"]),
    "aten::unique_dim": ("return torch.unique(x0, sorted=True, return_inverse=True, dim=0)", ["i64[6,2]@0:2"], ["i64[9,2]@0:2"]),
    "aten::_weight_norm": ("return torch._weight_norm(x0, x1, 0)", ["f32[4,3]", "f32+[4,1]"], None),
    "aten::alias": ("return torch.ops.aten.alias(x0) + 1.0", ["f32[2,3]"], ["f32[4,5]"]),
    "aten::alpha_dropout": ("return torch.alpha_dropout(x0, 0.5, False)", ["f32[2,3]"], ["f32[4,5]"]),
    "aten::alpha_dropout_": ("y = x0.clone()\nreturn torch.alpha_dropout_(y, 0.5, False)", ["f32[2,3]"], ["f32[4,5]"]),
    "aten::feature_dropout": ("return torch.feature_dropout(x0, 0.5, False)", ["f32[2,3,4]"], ["f32[3,2,5]"]),
    "aten::feature_dropout_": ("y = x0.clone()\nreturn torch.feature_dropout_(y, 0.5, False)", ["f32[2,3,4]"], ["f32[3,2,5]"]),
    "aten::native_dropout": ("return torch.native_dropout(x0, 0.5, False)", ["f32[2,3]"], ["f32[4,5]"]),
    "aten::append": ("l: List[torch.Tensor] = []\nfor i in range(x0.size(0)):\n    l.append(x0[i] * float(i))\nreturn torch.stack(l)",
                     ["f32[3,4]"], ["f32[5,2]"]),
    "aten::insert": ("l: List[torch.Tensor] = [x0, x0 * 2.0]\nl.insert(1, x0 + 1.0)\nreturn torch.stack(l)", ["f32[3,4]"], ["f32[5,2]"]),
    "aten::pop": ("l: List[torch.Tensor] = [x0, x0 * 2.0, x0 + 1.0]\na = l.pop(1)\nreturn a + torch.stack(l).sum(0)",
                  ["f32[3,4]"], ["f32[5,2]"]),
    "aten::len": ("l = x0.split(2)\nreturn x0 * float(len(l))", ["f32[5,3]"], ["f32[8,3]"]),
    "aten::list": ("s = list(x0.size())\nreturn x0.view(s[1], s[0])", ["f32[2,3]"], ["f32[4,5]"]),
    "aten::as_tensor": ("return torch.as_tensor(x0, dtype=torch.float64)", ["f32[2,3]"], ["f32[4,5]"]),
    "aten::tensor": ("return x0 + torch.tensor([1.0, 2.0, 3.0])", ["f32[2,3]"], ["f32[4,3]"]),
    "aten::scalar_tensor": ("return x0 + torch.scalar_tensor(2.5)", ["f32[2,3]"], ["f32[4,3]"]),
    "aten::cross_entropy_loss": ("return F.cross_entropy(x0, x1)", ["f32[4,5]", "i64[4]@0:5"], ["f32[6,5]", "i64[6]@0:5"]),
    "aten::nll_loss2d": ("return torch.ops.aten.nll_loss2d(F.log_softmax(x0, 1), x1)",
                         ["f32[2,3,4,5]", "i64[2,4,5]@0:3"], ["f32[1,3,3,2]", "i64[1,3,2]@0:3"]),
    "aten::nll_loss_nd": ("return torch.ops.aten.nll_loss_nd(F.log_softmax(x0, 1), x1)",
                          ["f32[2,3,4]", "i64[2,4]@0:3"], ["f32[3,3,5]", "i64[3,5]@0:3"]),
    "aten::quantize_per_tensor": ("return torch.quantize_per_tensor(x0, 0.05, 10, torch.quint8).int_repr()",
                                  ["f32[2,3]"], ["f32[4,5]"]),
    "aten::dequantize": ("return torch.dequantize(torch.quantize_per_tensor(x0, 0.05, 10, torch.quint8))",
                         ["f32[2,3]"], ["f32[4,5]"]),
    "aten::fake_quantize_per_tensor_affine": ("return torch.fake_quantize_per_tensor_affine(x0, 0.05, 10, 0, 255)",
                                              ["f32[2,3]"], ["f32[4,5]"]),
    "aten::fake_quantize_per_channel_affine": (
        "return torch.fake_quantize_per_channel_affine(x0, torch.tensor([0.05, 0.1, 0.2]), torch.tensor([0, 5, 10], dtype=torch.int32), 1, 0, 255)",
        ["f32[2,3,4]"], ["f32[1,3,5]"]),
    "aten::detach": ("return x0.detach() + 1.0", ["f32[2,3]"], ["f32[4,5]"]),
    "aten::dim": ("return x0 * float(x0.dim())", ["f32[2,3]"], ["f32[4,3]"]),
    "aten::size": ("return x0 * float(x0.size(0))", ["f32[2,3]"], ["f32[4,3]"]),
    "aten::numel": ("return x0 * float(x0.numel())", ["f32[2,3]"], ["f32[4,3]"]),
    "aten::item": ("return x0 + x0.max().item()", ["f32[2,3]"], ["f32[4,3]"]),
    "aten::is_floating_point": ("if x0.is_floating_point():\n    return x0 + 1.0\nreturn x0", ["f32[2,3]"], ["f32[4,5]"]),
    "aten::is_pinned": ("if x0.is_pinned():\n    return x0 + 1.0\nreturn x0 - 1.0", ["f32[2,3]"], ["f32[4,5]"]),
    "aten::lift": ("return torch.ops.aten.lift(x0) + 1.0", ["f32[2,3]"], ["f32[4,5]"]),
    "aten::floordiv": ("return x0 * float(x0.size(0) // 2)", ["f32[4,3]"], ["f32[7,3]"]),
    "aten::full": ("return x0 + torch.full((2, 3), 1.5)", ["f32[2,3]"], None),
    "aten::rand": ("return x0 + torch.rand(2, 3)", ["f32[2,3]"], None),
    "aten::hann_window": ("return x0 * torch.hann_window(8)", ["f32[2,8]"], ["f32[3,8]"]),
    "aten::grid_sampler": ("return F.grid_sample(x0, x1, align_corners=False)",
                           ["f32[1,2,5,6]", "f32[1,3,4,2]"], ["f32[2,2,4,4]", "f32[2,5,3,2]"]),
    "aten::index": ("return x0[x1]", ["f32[5,3]", "i64[4]@0:5"], ["f32[7,2]", "i64[6]@0:7"]),
    "aten::embedding_renorm": ("w = x1.clone()\nreturn F.embedding(x0, w, max_norm=1.0)",
                               ["i64[2,3]@0:6", "f32[6,4]"], ["i64[3,5]@0:6", "f32[6,4]"]),
    "aten::type_as": ("return x0.type_as(x1)", ["f32[2,3]", "i64[1]@0:3"], ["f32[4,5]", "i64[1]@0:3"]),
    "aten::numpy_T": ("return x0.T", ["f32[2,3]"], ["f32[4,5]"]),
    "aten::nonzero_numpy": ("return torch.nonzero(x0, as_tuple=True)", ["b8[3,4]"], ["b8[5,2]"]),
    "aten::unsafe_chunk": ("return torch.unsafe_chunk(x0, 2, 0)", ["f32[4,3]"], ["f32[6,2]"]),
    "aten::unsafe_split": ("return torch.unsafe_split(x0, 2, 0)", ["f32[4,3]"], ["f32[6,2]"]),
    "aten::unsafe_split_with_sizes": ("return torch.unsafe_split_with_sizes(x0, [1, 3], 0)", ["f32[4,3]"], ["f32[4,2]"]),
    "aten::gru": ("return torch.gru(x0, x1, [x2, x3, x4, x5], True, 1, 0.0, False, False, False)",
                  ["f32[5,2,3]", "f32[1,2,4]", "f32[12,3]", "f32[12,4]", "f32[12]", "f32[12]"],
                  ["f32[7,3,3]", "f32[1,3,4]", "f32[12,3]", "f32[12,4]", "f32[12]", "f32[12]"]),
    "aten::lstm": ("return torch.lstm(x0, [x1, x2], [x3, x4, x5, x6], True, 1, 0.0, False, False, False)",
                   ["f32[5,2,3]", "f32[1,2,4]", "f32[1,2,4]", "f32[16,3]", "f32[16,4]", "f32[16]", "f32[16]"],
                   ["f32[7,3,3]", "f32[1,3,4]", "f32[1,3,4]", "f32[16,3]", "f32[16,4]", "f32[16]", "f32[16]"]),
    "aten::rnn_tanh": ("return torch.rnn_tanh(x0, x1, [x2, x3, x4, x5], True, 1, 0.0, False, False, False)",
                       ["f32[5,2,3]", "f32[1,2,4]", "f32[4,3]", "f32[4,4]", "f32[4]", "f32[4]"],
                       ["f32[7,3,3]", "f32[1,3,4]", "f32[4,3]", "f32[4,4]", "f32[4]", "f32[4]"]),
    "aten::rnn_relu": ("return torch.rnn_relu(x0, x1, [x2, x3, x4, x5], True, 1, 0.0, False, False, False)",
                       ["f32[5,2,3]", "f32[1,2,4]", "f32[4,3]", "f32[4,4]", "f32[4]", "f32[4]"],
                       ["f32[7,3,3]", "f32[1,3,4]", "f32[4,3]", "f32[4,4]", "f32[4]", "f32[4]"]),
    "aten::lstm_cell": ("return torch.lstm_cell(x0, [x1, x2], x3, x4, x5, x6)",
                        ["f32[2,3]", "f32[2,4]", "f32[2,4]", "f32[16,3]", "f32[16,4]", "f32[16]", "f32[16]"],
                        ["f32[5,3]", "f32[5,4]", "f32[5,4]", "f32[16,3]", "f32[16,4]", "f32[16]", "f32[16]"]),
    "aten::max_pool1d_with_indices": ("return F.max_pool1d(x0, 2, return_indices=True)", ["f32[1,2,8]"], ["f32[2,3,6]"]),
    "aten::max_pool2d_with_indices": ("return F.max_pool2d(x0, 2, return_indices=True)", ["f32[1,2,8,8]"], ["f32[2,3,6,4]"]),
    "aten::max_pool3d_with_indices": ("return F.max_pool3d(x0, 2, return_indices=True)", ["f32[1,2,4,4,4]"], ["f32[2,1,6,4,2]"]),
    "aten::reflection_pad1d": ("return torch.ops.aten.reflection_pad1d(x0, [1, 2])", ["f32[1,2,5]"], ["f32[2,3,4]"]),
    "aten::reflection_pad2d": ("return torch.ops.aten.reflection_pad2d(x0, [1, 2, 2, 1])", ["f32[1,2,5,4]"], ["f32[2,3,4,6]"]),
    "aten::reflection_pad3d": ("return torch.ops.aten.reflection_pad3d(x0, [1, 1, 1, 1, 1, 1])", ["f32[1,2,3,4,5]"], ["f32[1,1,4,3,3]"]),
    "aten::replication_pad1d": ("return torch.ops.aten.replication_pad1d(x0, [1, 2])", ["f32[1,2,5]"], ["f32[2,3,4]"]),
    "aten::replication_pad2d": ("return torch.ops.aten.replication_pad2d(x0, [1, 2, 2, 1])", ["f32[1,2,5,4]"], ["f32[2,3,4,6]"]),
    "aten::replication_pad3d": ("return torch.ops.aten.replication_pad3d(x0, [1, 1, 1, 1, 1, 1])", ["f32[1,2,3,4,5]"], ["f32[1,1,4,3,3]"]),
    "aten::upsample_nearest1d": ("return F.interpolate(x0, scale_factor=2.0, mode='nearest')", ["f32[1,2,5]"], ["f32[2,3,4]"]),
    "aten::upsample_nearest2d": ("return F.interpolate(x0, scale_factor=2.0, mode='nearest')", ["f32[1,2,5,4]"], ["f32[2,3,4,6]"]),
    "aten::upsample_nearest3d": ("return F.interpolate(x0, scale_factor=2.0, mode='nearest')", ["f32[1,2,3,4,5]"], ["f32[1,1,4,3,3]"]),
    "aten::upsample_linear1d": ("return F.interpolate(x0, scale_factor=2.0, mode='linear', align_corners=False)", ["f32[1,2,5]"], ["f32[2,3,4]"]),
    "aten::upsample_bilinear2d": ("return F.interpolate(x0, scale_factor=2.0, mode='bilinear', align_corners=False)", ["f32[1,2,5,4]"], ["f32[2,3,4,6]"]),
    "aten::upsample_bicubic2d": ("return F.interpolate(x0, scale_factor=2.0, mode='bicubic', align_corners=False)", ["f32[1,2,5,4]"], ["f32[2,3,4,6]"]),
    "aten::upsample_trilinear3d": ("return F.interpolate(x0, scale_factor=2.0, mode='trilinear', align_corners=False)", ["f32[1,2,3,4,5]"], ["f32[1,1,4,3,3]"]),
    "aten::einsum": ("return torch.einsum('ij,jk->ik', x0, x1)", ["f32[2,3]", "f32[3,4]"], ["f32[5,3]", "f32[3,2]"]),
    "aten::embedding": ("return F.embedding(x0, x1)", ["i64[2,3]@0:6", "f32[6,4]"], ["i64[3,5]@0:6", "f32[6,4]"]),
    "aten::fill": ("return x0.clone().fill_(2.5)", ["f32[2,3]"], ["f32[4,5]"]),
    "aten::slice": ("return x0[1:3, ::2]", ["f32[4,6]"], ["f32[5,7]"]),
    "aten::scan": None,  # no such aten operator in 1.13 (a registry entry without an op)
    "aten::get_pool_ceil_padding": None,  # a helper, not an operator
}

SPEC_RE = re.compile(r"^(f32|f64|i64|i32|b8|u8)(\+)?\[([^\]]*)\](?:@(-?\d+):(-?\d+))?(?:=(.*))?$")
SPEC_DT = {"f32": torch.float32, "f64": torch.float64, "i64": torch.int64, "i32": torch.int32,
           "b8": torch.bool, "u8": torch.uint8}


def make_input(spec, g):
    m = SPEC_RE.match(spec)
    if not m:
        raise ValueError(f"bad input spec {spec}")
    dt, pos, dims, lo, hi, const = m.groups()
    shape = [int(d) for d in dims.split(",") if d.strip()]
    dtype = SPEC_DT[dt]
    if const is not None:
        return torch.tensor(eval(const), dtype=dtype)  # a literal from the table above
    if dtype == torch.bool:
        return torch.rand(shape, generator=g) > 0.5
    if lo is not None:
        return torch.randint(int(lo), int(hi), shape, generator=g, dtype=dtype)
    if dtype.is_floating_point:
        t = torch.randn(shape, generator=g, dtype=dtype)
        return t.abs() + 0.1 if pos else t
    return torch.randint(-10, 10, shape, generator=g, dtype=dtype)


def manual(op, g):
    """(source, inputs1, inputs2) or None."""
    m = MANUAL.get(op)
    if not m:
        return None
    body, s1, s2 = m
    names = [f"x{i}" for i in range(len(s1))]
    src = module_source(names, body)
    in1 = [(n, make_input(s, g)) for n, s in zip(names, s1)]
    in2 = [(n, make_input(s, g)) for n, s in zip(names, s2)] if s2 else None
    return src, in1, in2

#!/usr/bin/python3
"""compare_ops.py IR.txt NAME_PREFIX - checks `script -S` output against the
oracle files make_models.py wrote (NAME_PREFIX.ops, NAME_PREFIX.nweights):

- the set of aten:: kinds in the IR equals torch's, in-place kinds
  (`aten::relu_`) counted as their out-of-place form on both sides, since
  `script` makes them out-of-place;
- the number of weights equals the state_dict entries that inference uses
  (num_batches_tracked is only used in training).

Prints the differences and exits 1 on a mismatch.

Also the helpers that tests/conformance/script_ops.py shares (importing this
file imports no torch; torch_oracle() imports it):
  norm(kind)          in-place kind -> out-of-place kind, alias -> canonical
  ir_ops(text)        the aten kinds of a `script -S` text
  ir_nodes(text)      its nodes: (kind, outputs, inputs, has a block)
  ir_kinds(nodes)     the aten kinds, NumToTensor/Int pairs left out
  ir_constant_kinds   the kinds whose every node computes on constants
  ir_weights(text)    the weight records of a `script -S` text
  torch_oracle(path)  torch's op set and the parameters and buffers the
                      forward uses, for one archive (see its comment)"""
import importlib
import re
import sys

# nodes kept for their side effects (on lists, or raising); in-place
# kinds (`aten::add_`) are kept too (make_models.py's oracle does the same)
MUTATING = {"prim::RaiseException", "aten::append", "aten::insert",
            "aten::_set_item", "aten::extend", "aten::pop", "aten::clear",
            "aten::warn", "aten::Delete"}

DTYPE_BYTES = {"Float": 4, "Double": 8, "Half": 2, "BFloat16": 2,
               "Long": 8, "Int": 4, "Short": 2, "Char": 1, "Byte": 1,
               "Bool": 1, "ComplexFloat": 8, "ComplexDouble": 16}


# torch's op alias normalisation (NormalizeOps, run when torch compiles
# code; torch/csrc/jit/passes/normalize_ops.cpp's alias map, the union of
# its versions): an alias kind counts as its canonical kind on both sides
ALIASES = {
    "aten::absolute": "aten::abs", "aten::clip": "aten::clamp", "aten::det": "aten::linalg_det",
    "aten::matrix_power": "aten::linalg_matrix_power", "aten::matrix_exp": "aten::linalg_matrix_exp",
    "aten::ger": "aten::outer", "aten::arccos": "aten::acos", "aten::arcsin": "aten::asin",
    "aten::arctan": "aten::atan", "aten::arctan2": "aten::atan2", "aten::arccosh": "aten::acosh",
    "aten::arcsinh": "aten::asinh", "aten::arctanh": "aten::atanh", "aten::fix": "aten::trunc",
    "aten::negative": "aten::neg", "aten::subtract": "aten::sub", "aten::greater_equal": "aten::ge",
    "aten::greater": "aten::gt", "aten::less_equal": "aten::le", "aten::less": "aten::lt",
    "aten::not_equal": "aten::ne", "aten::divide": "aten::div", "aten::multiply": "aten::mul",
    "aten::linalg_matmul": "aten::matmul", "aten::inverse": "aten::linalg_inv",
    "aten::true_divide": "aten::div", "aten::concat": "aten::cat", "aten::concatenate": "aten::cat",
    "aten::row_stack": "aten::vstack", "aten::swapdims": "aten::transpose",
    "aten::swapaxes": "aten::transpose", "aten::moveaxis": "aten::movedim",
    "aten::special_erf": "aten::erf", "aten::special_erfc": "aten::erfc",
    "aten::special_erfinv": "aten::erfinv", "aten::special_expit": "aten::sigmoid",
    "aten::special_exp2": "aten::exp2", "aten::special_expm1": "aten::expm1",
    "aten::special_logit": "aten::logit", "aten::special_logsumexp": "aten::logsumexp",
    "aten::special_round": "aten::round", "aten::special_log1p": "aten::log1p",
    "aten::special_sinc": "aten::sinc", "aten::special_digamma": "aten::digamma",
    "aten::special_psi": "aten::digamma", "aten::special_i0": "aten::i0",
    "aten::special_xlogy": "aten::xlogy", "aten::special_log_softmax": "aten::log_softmax",
    "aten::orgqr": "aten::linalg_householder_product", "aten::adjoint": "aten::mH",
    "aten::special_multigammaln": "aten::mvlgamma", "aten::special_polygamma": "aten::polygamma",
    "aten::special_softmax": "aten::softmax", "aten::special_gammaln": "aten::lgamma",
    "aten::degrees": "aten::rad2deg", "aten::radians": "aten::deg2rad",
}


def norm(k):
    """In-place kinds as their out-of-place form, aliases as torch's
    canonical kind."""
    if k.endswith("_") and not k.endswith("__"):
        k = k[:-1]
    return ALIASES.get(k, k)


def ir_ops(text):
    """The aten kinds (in-place ones normalised) of a `script -S` text."""
    return {norm(k) for k in re.findall(r"= (aten::\w+)[\[(]", text)}


# `%name : Float(64, 3, 7, 7) = weight("FILE", offset=N, length=N...)`:
# a weight record of the graph (or of a subgraph)
WEIGHT_RE = re.compile(r"%([^\s:]+) : (\w+)\(([^)]*)\) = weight\(\"((?:[^\"\\]|\\.)*)\", ([^)]*)\)")


def ir_weights(text):
    """[(name, dtype, numel, bytes)] of the weight records that refer into
    an archive; bytes is the record's length."""
    out = []
    for name, dt, dims, _f, rest in WEIGHT_RE.findall(text):
        numel = 1
        for d in dims.split(","):
            d = d.strip()
            if d:
                numel *= int(d)
        m = re.search(r"length=(\d+)", rest)
        nbytes = int(m.group(1)) if m else numel * DTYPE_BYTES.get(dt, 0)
        out.append((name, dt, numel, nbytes))
    return out


# calls whose value torch.onnx.export's run fixes (under no_grad, autocast
# off, tensors on the CPU) and `script` folds: script_ops.py's rule 2
EXPORT_FACTS = {"aten::is_grad_enabled": False, "aten::is_autocast_enabled": False,
                "aten::is_autocast_cpu_enabled": False, "prim::is_cuda": False,
                "prim::is_nested": False}


def never_none(v, depth=0):
    """v is typed Tensor, or is an If's output that is never None in
    each branch that returns (a branch that raises never does)."""
    if v.type().kind() == "TensorType":
        return True
    n = v.node()
    if n.kind() == "prim::If" and depth < 32:
        i = list(n.outputs()).index(v)
        arms = [b for b in n.blocks() if not any(x.kind() == "prim::RaiseException" for x in b.nodes())]
        return bool(arms) and all(never_none(list(b.outputs())[i], depth + 1) for b in arms)
    return False


def settle_export_facts(g):
    """Replaces each EXPORT_FACTS call in graph g (nested blocks too) by its
    constant, and prim::device by the CPU; constant propagation then folds
    what depended on it."""
    import torch

    def walk(block):
        for n in list(block.nodes()):
            for b in n.blocks():
                walk(b)
            ins = list(n.inputs())
            if n.kind() in ("aten::__is__", "aten::__isnot__") and len(ins) == 2 and ins[0] == ins[1]:
                # `x is x`: identity, whatever x is
                with g.insert_point_guard(n):
                    c = g.insertConstant(n.kind() == "aten::__is__")
            elif n.kind() in ("aten::__is__", "aten::__isnot__") and len(ins) == 2 and \
                    any(v.type().kind() == "NoneType" for v in ins) and \
                    any(never_none(v) for v in ins):
                # `t is None` of a value that is never None (typed Tensor,
                # or an If output that is a Tensor in every branch): False
                with g.insert_point_guard(n):
                    c = g.insertConstant(n.kind() == "aten::__isnot__")
            elif (n.kind() in EXPORT_FACTS or n.kind() == "prim::device") and len(list(n.outputs())) == 1:
                with g.insert_point_guard(n):
                    c = g.insertConstant(EXPORT_FACTS.get(n.kind(), torch.device("cpu")))
            else:
                continue
            n.output().replaceAllUsesWith(c)
            n.destroy()
    walk(g.block())


def fold_constant_format(g):
    """String functions of constants become their value: aten::format
    (str, int, float, bool arguments), aten::find, aten::str. torch's
    constant propagation leaves them; `script` folds them (the transformer
    fast path's `why_not_sparsity_fast_path` and `'cpu' in str(x.device)`)."""
    done = [0]

    def const(v):
        n = v.node()
        if n.kind() != "prim::Constant":
            raise ValueError
        x = v.toIValue()
        if not isinstance(x, (str, int, float, bool)):
            raise ValueError
        return x

    def evaluate(kind, args):
        if kind == "aten::format":
            return str(args[0]).format(*args[1:])
        if kind == "aten::find" and len(args) == 4 and all(isinstance(a, str) for a in args[:2]):
            s, sub, a, b = args
            return s.find(sub, a, len(s) if b == -1 else b)
        if kind == "aten::str" and len(args) == 1 and isinstance(args[0], str):
            return args[0]
        raise ValueError

    def walk(block):
        for n in list(block.nodes()):
            for b in n.blocks():
                walk(b)
            if n.kind() not in ("aten::format", "aten::find", "aten::str"):
                continue
            try:
                value = evaluate(n.kind(), [const(v) for v in n.inputs()])
            except (ValueError, IndexError, KeyError, TypeError):
                continue
            with g.insert_point_guard(n):
                c = g.insertConstant(value)
            n.output().replaceAllUsesWith(c)
            n.destroy()
            done[0] += 1
    walk(g.block())
    return done[0]


class NodeIndex:
    """Positions of a block's nodes. torch's Python Node objects compare
    equal by the node, but a new wrapper may hash differently: looked up by
    equality."""

    def __init__(self, nodes):
        self.nodes = nodes

    def get(self, n):
        for i, x in enumerate(self.nodes):
            if x == n:
                return i
        return None

    def __getitem__(self, n):
        return self.get(n)


def fold_constant_list_appends(g):
    """A list of scalars (bool, int, float, str) built by a ListConstruct
    and appends of constants, all in one block and before every other use,
    becomes one ListConstruct: what `script` folds (the transformer fast
    path's `all([... for x in tensor_args])` once is_cuda and the device are
    settled), and what torch's constant propagation cannot (it never folds
    list mutation). Tensor lists are left alone."""
    done = [0]

    def walk(block):
        nodes = list(block.nodes())
        pos = NodeIndex(nodes)
        for n in nodes:
            for b in n.blocks():
                walk(b)
        plans = []
        for n in nodes:
            if n.kind() != "prim::ListConstruct" or str(n.output().type()) not in (
                    "List[bool]", "List[int]", "List[float]", "List[str]"):
                continue
            users = [u.user for u in n.output().uses()]
            if any(pos.get(u) is None for u in users):
                continue
            appends = sorted((u for u in users if u.kind() == "aten::append"), key=pos.get)
            others = [u for u in users if u.kind() != "aten::append"]
            if not appends or any(a.inputsAt(1).node().kind() != "prim::Constant" or
                                  a.output().uses() for a in appends):
                continue
            if others and pos[appends[-1]] > min(pos[u] for u in others):
                continue
            plans.append((n, appends))
        for n, appends in plans:
            new = g.create("prim::ListConstruct", list(n.inputs()) + [a.inputsAt(1) for a in appends])
            new.output().setType(n.output().type())
            new.insertAfter(appends[-1])
            for a in appends:
                a.destroy()
            n.output().replaceAllUsesWith(new.output())
            n.destroy()
            done[0] += 1
    walk(g.block())
    return done[0]


def fold_constant_dicts(g):
    """A dict made by aten::dict() or a dict literal (prim::DictConstruct,
    constant keys) and filled by aten::_set_item with constant keys, all in
    one block, whose every other use is an
    aten::__getitem__ of a constant key set before it in that block: each
    read becomes the value stored, and the dict goes. `script` resolves
    such dicts statically (torchvision's IntermediateLayerGetter and
    segmentation heads); torch's constant propagation leaves them."""
    done = [0]

    def key(v):
        if v.node().kind() != "prim::Constant":
            raise ValueError
        return v.toIValue()

    def walk(block):
        nodes = list(block.nodes())
        pos = NodeIndex(nodes)
        for n in nodes:
            for b in n.blocks():
                walk(b)
        todo = []
        for n in nodes:
            if n.kind() not in ("aten::dict", "prim::DictConstruct") or \
                    (n.kind() == "aten::dict" and list(n.inputs())):
                continue
            ins = list(n.inputs())
            users = [u.user for u in n.output().uses()]
            if any(pos.get(u) is None or u.kind() not in ("aten::_set_item", "aten::__getitem__") for u in users):
                continue
            users.sort(key=pos.get)
            stored = {}
            plan = []
            try:
                for k in range(0, len(ins) - 1, 2):  # {"a": x, ...}
                    stored[key(ins[k])] = ins[k + 1]
                for u in users:
                    k = key(u.inputsAt(1))
                    if u.kind() == "aten::_set_item":
                        stored[k] = u.inputsAt(2)
                    elif k in stored:
                        plan.append((u, stored[k]))
                    else:
                        raise ValueError
            except (ValueError, TypeError):
                continue
            todo.append((n, users, plan))
        for n, users, plan in todo:
            for u, v in plan:
                u.output().replaceAllUsesWith(v)
            for u in reversed(users):
                u.destroy()
            n.destroy()
            done[0] += 1
    walk(g.block())
    return done[0]


# kinds that draw random numbers: never computed at export time
RANDOM = {"aten::rand", "aten::randn", "aten::randint", "aten::rand_like", "aten::randn_like",
          "aten::randint_like", "aten::bernoulli", "aten::normal", "aten::uniform",
          "aten::multinomial", "aten::dropout", "aten::feature_dropout", "aten::alpha_dropout",
          "aten::feature_alpha_dropout", "aten::randperm", "aten::rrelu", "aten::exponential",
          "aten::poisson"}

NODE_RE = re.compile(r"^\s*((?:%[^\s:]+ : .*?)?)= ([A-Za-z_]\w*::\w+)")


def _close(text, i, open_c, close_c):
    """Index just past the bracket that closes the one at text[i]."""
    depth = 0
    q = None
    while i < len(text):
        c = text[i]
        if q:
            if c == "\\":
                i += 1
            elif c == q:
                q = None
        elif c == '"':
            q = c
        elif c == open_c:
            depth += 1
        elif c == close_c:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return i


def ir_nodes(text):
    """[(kind, outputs, inputs, has_block)] of the nodes of a `script -S`
    text, in order (nested blocks too)."""
    out = []
    lines = text.splitlines()
    for k, line in enumerate(lines):
        m = NODE_RE.match(line)
        if not m or line.lstrip().startswith("graph "):
            continue
        outs = re.findall(r"%([^\s:,]+) :", m.group(1))
        kind = m.group(2)
        i = m.end()
        if i < len(line) and line[i] == "[":
            i = _close(line, i, "[", "]")
        ins = []
        if i < len(line) and line[i] == "(":
            j = _close(line, i, "(", ")")
            ins = re.findall(r"%([^\s,()]+)", line[i:j])
        has_block = k + 1 < len(lines) and lines[k + 1].lstrip().startswith("block")
        out.append((kind, outs, ins, has_block))
    return out


# scalar conversions of prim::NumToTensor's result: torch's peephole pass
# removes the pair (aten::ScalarImplicit(prim::NumToTensor(x)) is x)
NUM_TO_TENSOR_INVERSE = {"aten::ScalarImplicit", "aten::Int", "aten::Float", "aten::IntImplicit",
                         "aten::FloatImplicit"}


def ir_kinds(nodes):
    """The aten kinds (in-place ones normalised) of ir_nodes()' nodes, an
    aten::Int/ScalarImplicit/... of a prim::NumToTensor left out."""
    ntt = set()
    kinds = set()
    for kind, outs, ins, _b in nodes:
        if kind == "prim::NumToTensor":
            ntt.update(outs)
        if kind.startswith("aten::") and not (kind in NUM_TO_TENSOR_INVERSE and ins and ins[0] in ntt):
            kinds.add(norm(kind))
    return kinds


def ir_constant_kinds(text, nodes=None):
    """The aten kinds of a `script -S` text all of whose nodes compute on
    constants only (prim::Constant, lists and tuples of constants, the
    archive's tensor constants `CONSTANTS.cN`, and such nodes' outputs),
    outside random kinds: what torch's freezing evaluates and `script`
    leaves to `fold`."""
    const = set(re.findall(r"%(CONSTANTS\.[\w.]+) : \w+\([^)]*\) = weight\(", text))
    all_const = {}
    for kind, outs, ins, has_block in ir_nodes(text) if nodes is None else nodes:
        is_const = not has_block and kind not in RANDOM and (
            kind == "prim::Constant" or all(v in const for v in ins))
        if kind.startswith("aten::"):
            all_const[norm(kind)] = all_const.get(norm(kind), True) and is_const
        if is_const:
            const.update(outs)
    return {k for k, v in all_const.items() if v}


def torch_oracle(path):
    """torch's side of the comparison for one archive.

    The graph: torch.jit.load, eval(), then what torch.onnx.export does to a
    ScriptModule before lowering: torch._C._freeze_module with
    preserveParameters=True (module attributes become constants, parameters
    and buffers stay prim::GetAttr), inlining, constant propagation, with
    the facts of an export run settled first (settle_export_facts; list
    mutation removed, aten::format of constants folded: script_ops.py's
    rule 2). The op
    set: the aten kinds of the nodes the outputs depend on, where an If
    with one raising arm counts as its other arm (script removes such
    branches, as torch's EliminateExceptions does) and nodes with side
    effects (MUTATING, in-place kinds) are kept; in-place kinds normalised.

    The weights: the parameters and buffers those same nodes read (a
    prim::GetAttr chain from `self`, or a frozen tensor constant that is a
    state_dict tensor), one per tensor (tied weights count once); beside
    them the whole state_dict without num_batches_tracked (compare_ops.py's
    count), for the report."""
    import torch
    try:  # registers torchvision::nms & co. for detection archives
        importlib.import_module("torchvision")
    except ImportError:
        pass
    m = torch.jit.load(path, map_location="cpu").eval()
    sd = m.state_dict()
    frozen = torch._C._freeze_module(m._c, [], True, True)
    method = "forward"
    try:
        g = frozen._get_method("forward").graph
    except RuntimeError:  # overloaded (nn.LSTM): the tensor overload
        g = frozen._get_method("forward__0").graph
        method = "forward__0"
    torch._C._jit_pass_inline(g)
    settle_export_facts(g)
    # constant propagation; then aten::format of constants and lists of
    # appended scalar constants; constant propagation and torch.onnx's
    # peephole pass
    torch._C._jit_pass_constant_propagation(g)
    if fold_constant_format(g):
        torch._C._jit_pass_constant_propagation(g)
    if fold_constant_list_appends(g) + fold_constant_dicts(g):
        torch._C._jit_pass_constant_propagation(g)
    for _ in range(2):  # the peephole pass refines Optional types: settle again
        torch._C._jit_pass_peephole(g, True)
        settle_export_facts(g)
        torch._C._jit_pass_constant_propagation(g)
    self_value = next(iter(g.inputs()))

    kinds = set()
    seen = set()
    used = {}          # data_ptr -> (name, dtype, numel, bytes)
    consts = []        # reached tensor constants that are no state_dict tensor

    def raises(block):
        return any(n.kind() == "prim::RaiseException" for n in block.nodes())

    def attr_path(v):
        names = []
        while True:
            n = v.node()
            if n.kind() != "prim::GetAttr":
                return ".".join(reversed(names)) if v == self_value else None
            names.append(n.s("name"))
            v = n.input()

    def note_tensor(name, t):
        key = t.data_ptr() if t.numel() else ("empty", name)
        if key not in used:
            used[key] = (name, str(t.dtype).replace("torch.", ""), t.numel(),
                         t.numel() * t.element_size())

    def resolve(p):
        """The object at attribute path p of the (unfrozen) module."""
        obj = m
        for a in p.split(".") if p else []:
            try:
                obj = getattr(obj, a)
            except Exception:
                return None
        return obj

    def tensors_in(obj):
        if isinstance(obj, torch.Tensor):
            return [obj]
        if isinstance(obj, (list, tuple)):
            return [t for o in obj for t in tensors_in(o)]
        return []

    # tensor attributes that are no parameter or buffer (ssd's
    # anchor_generator._wh_pairs, a list of tensors): freezing makes them
    # constants; named by the attribute paths the unfrozen code reads
    attr_name = {}
    try:
        ig = m.inlined_graph
        ig_self = next(iter(ig.inputs()))
        stack = [ig.block()]
        while stack:
            for n in stack.pop().nodes():
                stack.extend(n.blocks())
                if n.kind() != "prim::GetAttr":
                    continue
                names, v = [], n.output()
                while v.node().kind() == "prim::GetAttr":
                    names.append(v.node().s("name"))
                    v = v.node().input()
                if v != ig_self:
                    continue
                p = ".".join(reversed(names))
                for i, t in enumerate(tensors_in(resolve(p))):
                    if t.numel():
                        attr_name.setdefault(t.data_ptr(), p if i == 0 else f"{p}.{i}")
    except Exception:  # overloaded forward (nn.LSTM): no inlined_graph
        pass

    ptr_name = {}
    for k, v in sd.items():
        if v.numel():
            ptr_name.setdefault(v.data_ptr(), k)

    def side_effect(n):
        # a node with side effects, or a block node (If, Loop) holding one
        k = n.kind()
        if k in MUTATING or (k.endswith("_") and not k.endswith("__")):
            return True
        return any(side_effect(x) for b in n.blocks() for x in b.nodes())

    # a work list, not recursion: deep graphs (efficientnet_v2) would
    # exceed Python's recursion limit
    work = []

    def need_block(b):
        for v in b.outputs():
            work.append(v.node())
        for n in b.nodes():
            if side_effect(n):
                work.append(n)

    def need_node(n):
        if n in seen or n.kind() == "prim::Param":
            return
        seen.add(n)
        k = n.kind()
        if k == "prim::GetAttr":
            p = attr_path(n.output())
            if p is not None:
                for i, t in enumerate(tensors_in(resolve(p))):
                    known = ptr_name.get(t.data_ptr()) if t.numel() else None
                    note_tensor(known or (p if i == 0 else f"{p}.{i}"), t)
        elif k == "prim::Constant" and n.output().type().kind() != "FunctionType":
            try:
                val = n.output().toIValue()
            except Exception:
                val = None
            for t in tensors_in(val):
                if t.numel() and t.data_ptr() in ptr_name:
                    note_tensor(ptr_name[t.data_ptr()], t)
                elif t.numel() and t.data_ptr() in attr_name:
                    note_tensor(attr_name[t.data_ptr()], t)
                else:
                    consts.append(list(t.shape))
        if k == "prim::If":
            bs = list(n.blocks())
            r = [raises(b) for b in bs]
            if r[0] != r[1]:
                need_block(bs[1] if r[0] else bs[0])
                return
        if k.startswith("aten::"):
            kinds.add(norm(k))
        for v in n.inputs():
            work.append(v.node())
        for b in n.blocks():
            need_block(b)
    need_block(g.block())
    while work:
        need_node(work.pop())
    ws = sorted(used.values())
    seen_ptr = set()
    sd_n = sd_numel = sd_bytes = 0
    for k, v in sd.items():
        if k.endswith("num_batches_tracked"):
            continue
        key = v.data_ptr() if v.numel() else ("empty", k)
        if key in seen_ptr:
            continue
        seen_ptr.add(key)
        sd_n += 1
        sd_numel += v.numel()
        sd_bytes += v.numel() * v.element_size()
    return {"method": method, "ops": sorted(kinds),
            "weights": [list(w) for w in ws],
            "state_dict": {"n": sd_n, "numel": sd_numel, "bytes": sd_bytes,
                           "entries": len([k for k in sd if not k.endswith("num_batches_tracked")])},
            "tensor_constants": consts}


def main():
    text = open(sys.argv[1]).read()
    prefix = sys.argv[2]
    ours = ir_ops(text)
    theirs = {norm(line.strip()) for line in open(prefix + ".ops")
              if line.strip()}
    ok = True
    if ours != theirs:
        print("only in script:", sorted(ours - theirs))
        print("only in torch: ", sorted(theirs - ours))
        ok = False
    nw = len(re.findall(r"= weight\(", text))
    want = int(open(prefix + ".nweights").read())
    if nw != want:
        print("weights: script %d, torch %d" % (nw, want))
        ok = False
    print("ops:", " ".join(sorted(ours)))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()

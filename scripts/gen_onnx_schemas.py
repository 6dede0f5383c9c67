#!/usr/bin/python3
"""gen_onnx_schemas.py - writes lib/onnx/onnx_schemas.inc, the ONNX operator
schema table that `check` validates nodes against.

Usage (what `make schemas` runs):

    /usr/bin/python3 scripts/gen_onnx_schemas.py --require 1.23.1 \
        > lib/onnx/onnx_schemas.inc

--require VERSION: exit with a message, writing nothing, when the onnx
module is another version.  The committed table came from onnx 1.23.1
(pip, not Debian's python3-onnx 1.12), with the schema JSON of that onnx
kept in third_party/onnx/onnx-1.23.1-schemas.json.

The single source of truth is Debian's python3-onnx:
onnx.defs.get_all_schemas_with_history() gives every (domain, op,
since_version) schema with its formal inputs and outputs (name and option:
single, optional, variadic), arity bounds, attributes (name, type,
required) and the deprecated flag: exactly what onnx/checker.cc and
OpSchema::Verify look at.  Two properties Verify uses are not exposed to
Python: OpSchema::AllowUncheckedAttributes() and the sets of allowed input
and output counts (NumOutputs({1, 5}) of BatchNormalization); they are
found by asking the C++ checker itself (onnx.checker.check_node) about
probe nodes.

The output is C: three static arrays (formals, attributes, schemas sorted by
domain, name and since_version for binary search) and the domain version
ranges, included by lib/onnx/onnx_schema.c only.  The build needs no Python:
the generated file is committed; rerun this script when python3-onnx is
upgraded and commit both.
"""
import sys

import onnx
from onnx import defs, helper, AttributeProto
from onnx import checker

OPTION = {0: "ONNX_FORMAL_SINGLE", 1: "ONNX_FORMAL_OPTIONAL",
          2: "ONNX_FORMAL_VARIADIC"}


def cstr(s):
    """A C string literal for s (ASCII names only in practice)."""
    out = ['"']
    for ch in s:
        if ch in '"\\':
            out.append("\\" + ch)
        elif 32 <= ord(ch) < 127:
            out.append(ch)
        else:
            out.append("\\x%02x\"\"" % ord(ch))
    out.append('"')
    return "".join(out)


def required_attr(name, typ):
    """A well-formed attribute of the given type (for the probe)."""
    a = AttributeProto()
    a.name = name
    a.type = typ
    if typ == AttributeProto.INT:
        a.i = 1
    elif typ == AttributeProto.FLOAT:
        a.f = 1.0
    elif typ == AttributeProto.STRING:
        a.s = b"x"
    elif typ == AttributeProto.INTS:
        a.ints.extend([1])
    elif typ == AttributeProto.FLOATS:
        a.floats.extend([1.0])
    elif typ == AttributeProto.STRINGS:
        a.strings.extend([b"x"])
    elif typ == AttributeProto.GRAPH:
        a.g.CopyFrom(helper.make_graph([], "g", [], []))
    elif typ == AttributeProto.GRAPHS:
        a.graphs.extend([helper.make_graph([], "g", [], [])])
    elif typ == AttributeProto.TENSOR:
        a.t.CopyFrom(helper.make_tensor("t", 1, [1], [1.0]))
    elif typ == AttributeProto.TENSORS:
        a.tensors.extend([helper.make_tensor("t", 1, [1], [1.0])])
    elif typ == AttributeProto.TYPE_PROTO:
        a.tp.CopyFrom(helper.make_tensor_type_proto(1, [1]))
    elif typ == AttributeProto.SPARSE_TENSOR:
        a.sparse_tensor.CopyFrom(helper.make_sparse_tensor(
            helper.make_tensor("v", 1, [1], [1.0]),
            helper.make_tensor("i", 7, [1], [0]), [2]))
    return a


class Probe:
    """Asks the C++ checker about nodes of one schema."""

    def __init__(self, s):
        self.s = s
        self.ctx = checker.C.CheckerContext()
        self.ctx.ir_version = onnx.IR_VERSION
        self.ctx.opset_imports = {s.domain: s.since_version}
        self.nin = max(s.min_input, 1) if s.max_input > 0 else 0
        self.nout = max(s.min_output, 1)
        self.attrs = [required_attr(a.name, int(a.type))
                      for a in s.attributes.values() if a.required]

    def error(self, nin=None, nout=None, extra=()):
        """The checker's message for a probe node, None when it passes."""
        nin = self.nin if nin is None else nin
        nout = self.nout if nout is None else nout
        n = helper.make_node(self.s.name, ["i%d" % k for k in range(nin)],
                             ["o%d" % k for k in range(nout)],
                             domain=self.s.domain)
        n.attribute.extend(self.attrs + list(extra))
        try:
            checker.check_node(n, self.ctx)
            return None
        except checker.ValidationError as e:
            return str(e)

    def unchecked_attributes(self):
        """OpSchema::AllowUncheckedAttributes: an unknown attribute
        passes."""
        return self.error(extra=[helper.make_attribute("zz_probe", 1)]) \
            is None

    def allowed_counts(self, lo, hi, outputs):
        """A bit mask of the counts in [lo, hi] the checker allows, 0 when
        all are (or the range is too wide to list: variadic)."""
        if hi > 31:
            return 0
        word = "output" if outputs else "input"
        mask = 0
        for k in range(lo, hi + 1):
            e = self.error(nout=k) if outputs else self.error(nin=k)
            if e is None or "not in allowed %s sizes" % word not in e:
                mask |= 1 << k
        return 0 if mask == sum(1 << k for k in range(lo, hi + 1)) else mask


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--require":
        if onnx.__version__ != sys.argv[2]:
            sys.exit("gen_onnx_schemas: this onnx is %s, the committed "
                     "table is from onnx %s: install that (pip install "
                     "onnx==%s) to regenerate it"
                     % (onnx.__version__, sys.argv[2], sys.argv[2]))
    elif len(sys.argv) != 1:
        sys.exit("usage: gen_onnx_schemas.py [--require VERSION]")
    schemas = sorted(defs.get_all_schemas_with_history(),
                     key=lambda s: (s.domain.encode(), s.name.encode(),
                                    s.since_version))
    formals, attrs, rows = [], [], []
    for s in schemas:
        unchecked, in_mask, out_mask = False, 0, 0
        if not s.deprecated:
            p = Probe(s)
            if p.error() is not None:
                sys.exit("gen_onnx_schemas: probe node for %s::%s-%d "
                         "rejected: %s" % (s.domain, s.name,
                                           s.since_version, p.error()))
            unchecked = p.unchecked_attributes()
            in_mask = p.allowed_counts(s.min_input, s.max_input, False)
            out_mask = p.allowed_counts(s.min_output, s.max_output, True)
        in0 = len(formals)
        for p in s.inputs:
            formals.append((p.name, OPTION[int(p.option)]))
        out0 = len(formals)
        for p in s.outputs:
            formals.append((p.name, OPTION[int(p.option)]))
        at0 = len(attrs)
        for name in sorted(s.attributes, key=lambda n: n.encode()):
            a = s.attributes[name]
            attrs.append((name, int(a.type), 1 if a.required else 0))
        rows.append((s, in0, len(s.inputs), out0, len(s.outputs), at0,
                     len(s.attributes), unchecked, in_mask, out_mask))

    w = sys.stdout.write
    w("/*\n * onnx_schemas.inc - the ONNX operator schema table.  GENERATED:"
      " do not edit.\n *\n")
    w(" * Made by scripts/gen_onnx_schemas.py (`make schemas`) from"
      " python3-onnx %s\n" % onnx.__version__)
    w(" * (IR version %d, onnx.defs.get_all_schemas_with_history(): %d"
      " schemas).\n" % (onnx.IR_VERSION, len(schemas)))
    w(" * Included by lib/onnx/onnx_schema.c only; see onnx_schema.h for"
      " the types.\n */\n\n")
    w("#define ONNX_SCHEMA_SOURCE \"python3-onnx %s\"\n" % onnx.__version__)
    w("#define ONNX_SCHEMA_IR_VERSION %d\n\n" % onnx.IR_VERSION)

    w("static const struct onnx_formal onnx_schema_formals[] = {\n")
    for name, opt in formals:
        w("\t{ %s, %s },\n" % (cstr(name), opt))
    w("};\n\n")

    w("static const struct onnx_attr_def onnx_schema_attrs[] = {\n")
    for name, typ, req in attrs:
        w("\t{ %s, %d, %d },\n" % (cstr(name), typ, req))
    w("};\n\n")

    w("/* domain, name, since_version, deprecated, unchecked_attrs,\n"
      " * min_input, max_input, min_output, max_output,\n"
      " * inputs_allowed, outputs_allowed (masks, 0: all in range),\n"
      " * input0, ninputs, output0, noutputs, attr0, nattrs */\n")
    w("static const struct onnx_schema onnx_schema_table[] = {\n")
    for s, in0, nin, out0, nout, at0, nat, unchecked, im, om in rows:
        w("\t{ %s, %s, %d, %d, %d, %d, %d, %d, %d, 0x%x, 0x%x, %d, %d, %d, "
          "%d, %d, %d },\n"
          % (cstr(s.domain), cstr(s.name), s.since_version,
             1 if s.deprecated else 0, 1 if unchecked else 0,
             s.min_input, s.max_input, s.min_output, s.max_output,
             im, om, in0, nin, out0, nout, at0, nat))
    w("};\n\n")

    w("static const struct onnx_domain_range onnx_schema_domains[] = {\n")
    for dom, (lo, hi) in sorted(defs.C.schema_version_map().items()):
        w("\t{ %s, %d, %d },\n" % (cstr(dom), lo, hi))
    w("};\n")


if __name__ == "__main__":
    main()

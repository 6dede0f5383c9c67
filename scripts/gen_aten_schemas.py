#!/usr/bin/python3
# gen_aten_schemas.py - writes lib/aten/aten_schemas.inc, the table of every
# operator schema torch's TorchScript compiler knows, from
# torch._C._jit_get_all_schemas() (Debian's python3-torch, 1.13) and from
# third_party/torch/aten-2.11.0-schemas.txt (str(FunctionSchema) of every
# schema of torch 2.11.0, one a line; no torch 2 runs here).
#
# Merge: an overload (name.overload) both have keeps 1.13's schema where
# 2.11's binds a call the same way (binding_key: argument names, types,
# alias annotations, keyword-only flags, defaults); where it does not (79
# overloads: an argument added, a default changed), 2.11's row follows
# 1.13's, both flagged ATEN_SCHEMA_TWIN, so that an archive binds against
# the version that saved it.  The overloads only 2.11 has are added after
# the 1.13 overloads of their name, in 2.11's order.  2.11's types SymInt,
# SymInt[], SymBool, SymFloat are int, int[], bool, float to the reader
# (their spelling is kept).
# Each schema's flags say which of the two versions have it
# (ATEN_SCHEMA_IN_1_13, ATEN_SCHEMA_IN_2_11).
#
#   /usr/bin/python3 scripts/gen_aten_schemas.py > lib/aten/aten_schemas.inc
#   /usr/bin/python3 scripts/gen_aten_schemas.py --ops > lib/aten/aten_ops.inc
#   /usr/bin/python3 scripts/gen_aten_schemas.py --sample N SEED > FILE
#
# The second form writes the operator registry's list (lib/aten/aten_ops.inc):
# every operator name the schemas have, and those of
# third_party/torch/extra-ops.txt, sorted, one ATEN_OP(ns, name, flags) each,
# the flags read from the schemas' alias annotations (docs/operators.md).
#
# The third form writes N schema strings (str(schema)) picked at random with
# SEED, one a line, for tests/unit/test_aten_schema.c, which re-renders the
# table's entries in the same format and compares: proof that the committed
# table is faithful.  N = 0 dumps every schema.
#
# Why a table: python_print.cpp leaves out trailing arguments equal to their
# schema default (torch.slice(x) is aten::slice.Tensor(x, 0, None, None, 1)),
# so the script stage must know every schema to refill them.
#
# The schema string is the single source of truth for the spelling of types
# ("int[2]", "Tensor?", "ScalarType?"; Python's Argument.type says
# Optional[int]), so this script parses str(schema) and takes only the default
# values' typed Python objects and the out flag from the Python API.
# Schemas are sorted by qualified name, stably, so that the overloads of one
# operator stay in torch's registration order (the order its schema matcher
# tries them in).  Costs: about 2 s; the output is about 1 MB of C.
import ast
import os
import sys
import random
import re

import torch

BASES = {
	"Tensor": "TENSOR", "int": "INT", "SymInt": "INT", "float": "FLOAT",
	"SymFloat": "FLOAT", "SymBool": "BOOL", "int64_t": "INT", "bool": "BOOL", "str": "STR", "Scalar": "NUMBER", "complex": "COMPLEX",
	"Device": "DEVICE", "Generator": "OBJECT", "Layout": "INT",
	"ScalarType": "INT", "MemoryFormat": "INT", "QScheme": "INT",
	"Dimname": "STR", "Storage": "OBJECT", "Stream": "OBJECT",
	"Any": "ANY", "t": "ANY", "t1": "ANY", "t2": "ANY", "tVal": "ANY",
	"AnyEnumType": "OBJECT", "AnyClassType": "OBJECT", "Capsule": "OBJECT",
	"ConstQuantizerPtr": "OBJECT", "NoneType": "NONE", "number": "NUMBER",
}
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NEWER_VERSION = "2.11.0"
NEWER = os.path.join(ROOT, "third_party", "torch", "aten-%s-schemas.txt" % NEWER_VERSION)
EXTRA_OPS = os.path.join(ROOT, "third_party", "torch", "extra-ops.txt")
CONSTRUCTORS = ("Dict", "Future", "RRef", "Union", "Await")


class SchemaError(Exception):
	pass


def split_top(s, sep=", "):
	"""Splits s at sep where no bracket or quote is open."""
	out, depth, quote, start, i = [], 0, None, 0, 0
	while i < len(s):
		c = s[i]
		if quote:
			if c == "\\":
				i += 2
				continue
			if c == quote:
				quote = None
		elif c in "\"'":
			quote = c
		elif c in "([":
			depth += 1
		elif c in ")]":
			depth -= 1
		elif depth == 0 and s.startswith(sep, i):
			out.append(s[start:i])
			i += len(sep)
			start = i
			continue
		i += 1
	out.append(s[start:])
	return out


def find_close(s, i):
	"""Index of the bracket closing the one at s[i]."""
	depth = 0
	for j in range(i, len(s)):
		if s[j] in "([":
			depth += 1
		elif s[j] in ")]":
			depth -= 1
			if depth == 0:
				return j
	raise SchemaError("unbalanced brackets in %r" % s)


def parse_type(text):
	"""Returns (type without alias annotation, alias or None, offset of the
	alias in the type)."""
	i = 0
	if text.startswith("("):
		i = find_close(text, 0) + 1
	else:
		while i < len(text) and (text[i].isalnum() or text[i] in "_."):
			i += 1
		if text[:i] in CONSTRUCTORS and text[i:i + 1] == "(":
			i = find_close(text, i) + 1
	if i == 0:
		raise SchemaError("cannot parse type %r" % text)
	plain, alias, alias_at = text[:i], None, 0
	while i < len(text):
		c = text[i]
		if c == "?":
			plain += c
			i += 1
		elif c == "[":
			j = find_close(text, i)
			plain += text[i:j + 1]
			i = j + 1
		elif c == "(":
			j = find_close(text, i)
			if alias is not None:
				raise SchemaError("two alias annotations in %r" % text)
			alias, alias_at = text[i + 1:j], len(plain)
			i = j + 1
		else:
			raise SchemaError("cannot parse type %r" % text)
	return plain, alias, alias_at


def classify(plain):
	"""Returns (base, flags, list_n) of a type without alias annotation."""
	flags, list_n, t = [], 0, plain
	if t.endswith("?"):
		flags.append("ATEN_ARG_OPTIONAL")
		t = t[:-1]
	if t.endswith("]"):
		j = t.rindex("[")
		n = t[j + 1:-1]
		list_n = int(n) if n else 0
		flags.append("ATEN_ARG_LIST")
		t = t[:j]
		if t.endswith("?"):
			flags.append("ATEN_ARG_ELEM_OPTIONAL")
			t = t[:-1]
		if t.endswith("]") or t.endswith("?"):
			return "COMPOSITE", flags, list_n
	if t.startswith("("):
		base = "TUPLE"
	elif t.split("(")[0] in CONSTRUCTORS:
		base = {"Dict": "DICT"}.get(t.split("(")[0], "OBJECT")
	elif t.startswith("__torch__."):
		base = "OBJECT"
	elif t in BASES:
		base = BASES[t]
	else:
		raise SchemaError("unknown base type %r" % t)
	return base, flags, list_n


def c_string(s):
	"""A C string literal for s (bytes as UTF-8, escapes for the rest)."""
	out, prev = ['"'], ""
	for b in s.encode("utf-8"):
		c = chr(b)
		if c in '"\\':
			out.append("\\" + c)
		elif 32 <= b < 127 and not (c == "?" and prev == "?"):  # trigraphs
			out.append(c)
		else:
			out.append("\\%03o" % b)
		prev = c
	out.append('"')
	return "".join(out)


def c_double(d):
	r = repr(float(d))
	if r in ("inf", "-inf", "nan"):
		raise SchemaError("non-finite default %r" % d)
	return r


def parse_default(text, plain):
	"""The Python value torch's Argument.default_value holds for a default
	written `text` in a schema string, for an argument of type `plain`."""
	t = text.strip()
	if t == "None":
		return None
	if t in ("True", "False"):
		return t == "True"
	if t[:1] in "\"'" and t[-1:] == t[:1]:
		return ast.literal_eval(t)  # the escapes (\n, \") as torch reads them
	if t.startswith("["):
		inner = t[1:-1].strip()
		return [parse_default(x, plain.split("[")[0]) for x in split_top(inner)] if inner else []
	try:
		v = int(t)
	except ValueError:
		try:
			v = float(t)
		except ValueError:
			raise SchemaError("cannot read default %r" % text)
	base = plain.rstrip("?")
	if base.endswith("]"):  # int[2] stride=1: the value repeated N times
		n = base[base.rindex("[") + 1:-1]
		if not n:
			raise SchemaError("scalar default %r for %r" % (text, plain))
		return [v] * int(n)
	# float x=1 holds 1.0; float? x=1 (2.11's prims::var) keeps the int, as
	# torch 2.11 prints it
	if base in ("float", "SymFloat") and isinstance(v, int) and \
	   not plain.endswith("?"):
		return float(v)
	return v


class TextArg:
	"""One argument read from a schema string: the fields of torch's
	Argument that Table uses."""

	def __init__(self, text, kwarg_only):
		parts = split_top(text, "=")
		decl = split_top(parts[0], " ")
		if len(decl) != 2:
			raise SchemaError("cannot split %r" % text)
		self.name = decl[1]
		plain, alias, _ = parse_type(decl[0])
		self.kwarg_only = kwarg_only
		self.is_out = kwarg_only and alias is not None and "!" in alias
		self._has = len(parts) > 1
		self.default_value = parse_default(parts[1], plain) if self._has else None

	def has_default_value(self):
		return self._has


class TextSchema:
	"""A schema read from its string (str(FunctionSchema)): what Table needs
	of torch's FunctionSchema, for the versions no torch here can load."""

	def __init__(self, line):
		self.text = line
		head, sep, _ = line.partition(") -> ")
		if not sep:
			raise SchemaError("no ') -> ' in %r" % line)
		full, _, argtext = head.partition("(")
		self.name, _, self.overload_name = full.partition(".")
		self.arguments, kw = [], False
		for a in (split_top(argtext) if argtext else []):
			if a == "*":
				kw = True
			elif a != "...":
				self.arguments.append(TextArg(a, kw))

	def __str__(self):
		return self.text


def read_text_schemas(path):
	with open(path) as f:
		return [TextSchema(line.rstrip("\n")) for line in f if line.strip()]


SYM_TYPES = {"SymInt": "int", "SymFloat": "float", "SymBool": "bool"}


def binding_key(schema):
	"""What overload resolution and default refilling read of a schema: per
	argument its name, type (SymInt read as int), alias, keyword-only flag
	and default value; and whether it takes `...`.  Two versions' schemas of
	one overload with different keys bind a call differently."""
	head = str(schema).partition(") -> ")[0]
	argtext = head.partition("(")[2]
	texts = [a for a in (split_top(argtext) if argtext else [])
		 if a not in ("*", "...")]
	key = []
	for text, arg in zip(texts, schema.arguments):
		plain, alias, _ = parse_type(split_top(split_top(text, "=")[0], " ")[0])
		plain = re.sub(r"\bSym(Int|Float|Bool)\b",
			       lambda m: SYM_TYPES[m.group(0)], plain)
		d = arg.default_value if arg.has_default_value() else "<required>"
		base = plain.rstrip("?")
		if isinstance(d, (list, tuple)):
			d = [float(x) for x in d] if base.startswith("float") else list(d)
		elif isinstance(d, int) and not isinstance(d, bool) and base == "float":
			d = float(d)
		key.append((arg.name, plain, alias, arg.kwarg_only, repr(d)))
	return key, "..." in head


def merged(old, new):
	"""[(schema, flags)], sorted by name, stably: old's schemas, each flagged
	ATEN_SCHEMA_IN_1_13, and ATEN_SCHEMA_IN_2_11 too where new has the
	overload with the same binding_key; where new's differs (an argument
	added, a default changed), new's row follows old's, flagged
	ATEN_SCHEMA_IN_2_11, both rows ATEN_SCHEMA_TWIN.  Then the overloads
	only new has, each after its name's old overloads."""
	key = lambda s: (s.name, s.overload_name)  # noqa: E731
	new_by_key = {key(s): s for s in new}
	old_keys = {key(s) for s in old}
	rows = []
	for s in old:
		n = new_by_key.get(key(s))
		if n is None:
			rows.append((s, "ATEN_SCHEMA_IN_1_13"))
		elif binding_key(s) == binding_key(n):
			rows.append((s, "ATEN_SCHEMA_IN_1_13|ATEN_SCHEMA_IN_2_11"))
		else:
			rows.append((s, "ATEN_SCHEMA_IN_1_13|ATEN_SCHEMA_TWIN"))
			rows.append((n, "ATEN_SCHEMA_IN_2_11|ATEN_SCHEMA_TWIN"))
	rows += [(s, "ATEN_SCHEMA_IN_2_11") for s in new if key(s) not in old_keys]
	rows.sort(key=lambda r: r[0].name)  # stable: old's overload order first
	return rows


class Table:
	def __init__(self):
		self.args = []   # unique C initializers of struct aten_arg
		self.arg_ids = {}  # initializer -> index in self.args
		self.index = []  # per schema argument and return: index in args
		self.ints = []   # list defaults (int and bool lists)
		self.floats = []
		self.max_args = 0

	def default(self, arg, base, flags):
		"""The default-value fields of one argument's initializer."""
		if not arg.has_default_value():
			return "ATEN_DEF_NONE_GIVEN,0,0,0,0"
		v = arg.default_value
		is_list = "ATEN_ARG_LIST" in flags
		if v is None:
			return "ATEN_DEF_NONE,0,0,0,0"
		if is_list and isinstance(v, (list, tuple)):
			if all(isinstance(x, bool) for x in v) and base == "BOOL":
				start = len(self.ints)
				self.ints.extend(int(x) for x in v)
				return "ATEN_DEF_BOOLS,%d,%d,0,0" % (len(v), start)
			if all(isinstance(x, int) and not isinstance(x, bool) for x in v) \
			   and base == "INT":
				start = len(self.ints)
				self.ints.extend(v)
				return "ATEN_DEF_INTS,%d,%d,0,0" % (len(v), start)
			if all(isinstance(x, float) for x in v) and base == "FLOAT":
				start = len(self.floats)
				self.floats.extend(v)
				return "ATEN_DEF_FLOATS,%d,%d,0,0" % (len(v), start)
			raise SchemaError("list default %r for %s" % (v, arg.name))
		if isinstance(v, bool):
			return "ATEN_DEF_BOOL,0,%d,0,0" % int(v)
		if isinstance(v, int):
			return "ATEN_DEF_INT,0,%d,0,0" % v
		if isinstance(v, float):
			return "ATEN_DEF_FLOAT,0,0,%s,0" % c_double(v)
		if isinstance(v, str):
			return "ATEN_DEF_STR,0,0,0,%s" % c_string(v)
		raise SchemaError("default %r of %s" % (v, arg.name))

	def add_arg(self, text, pyarg, is_ret):
		"""Parses one argument ("int[2] stride=1") into an initializer."""
		if not is_ret and "=" in text and pyarg is not None \
		   and pyarg.has_default_value():
			text = split_top(text, "=")[0]
		parts = split_top(text, " ")
		if len(parts) > 2:  # a type with spaces at top level cannot be
			raise SchemaError("cannot split %r" % text)
		type_text = parts[0]
		name = parts[1] if len(parts) == 2 else ""
		plain, alias, alias_at = parse_type(type_text)
		base, flags, list_n = classify(plain)
		if alias is not None:
			if "!" in alias:
				flags.append("ATEN_ARG_WRITE")
			if alias_at < len(plain):
				flags.append("ATEN_ARG_ALIAS_ELEM")
		if pyarg is not None and not is_ret:
			if pyarg.kwarg_only:
				flags.append("ATEN_ARG_KWARG_ONLY")
			if pyarg.is_out:
				flags.append("ATEN_ARG_OUT")
			if pyarg.name != name:
				raise SchemaError("name %r != %r" % (name, pyarg.name))
			dflt = self.default(pyarg, base, flags)
		else:
			dflt = "ATEN_DEF_NONE_GIVEN,0,0,0,0"
		init = "{%s,%s,%s,ATEN_BASE_%s,%s,%d,%d,%s}" % (
			c_string(name), c_string(plain),
			c_string(alias) if alias is not None else "0",
			base, "|".join(flags) or "0", list_n, alias_at, dflt)
		if init not in self.arg_ids:
			self.arg_ids[init] = len(self.args)
			self.args.append(init)
		self.index.append(self.arg_ids[init])

	def add_schema(self, schema, version_flags):
		s = str(schema)
		head, sep, rets = s.partition(") -> ")
		if not sep:
			raise SchemaError("no ') -> ' in %r" % s)
		name, paren, argtext = head.partition("(")
		qual = schema.name
		if name != qual + ("." + schema.overload_name if schema.overload_name else ""):
			raise SchemaError("name mismatch in %r" % s)
		args = split_top(argtext) if argtext else []
		flags = [version_flags]
		first = len(self.index)
		pyargs = list(schema.arguments)
		k = 0
		for a in args:
			if a == "*":
				continue
			if a == "...":
				flags.append("ATEN_SCHEMA_VARARG")
				continue
			if k >= len(pyargs):
				raise SchemaError("more arguments than the API says in %r" % s)
			self.add_arg(a, pyargs[k], False)
			k += 1
		if k != len(pyargs):
			raise SchemaError("fewer arguments than the API says in %r" % s)
		nargs = len(self.index) - first
		self.max_args = max(self.max_args, nargs)
		rfirst = len(self.index)
		if rets == "...":
			flags.append("ATEN_SCHEMA_VARRET")
			rlist = []
		elif rets.startswith("(") and find_close(rets, 0) == len(rets) - 1:
			inner = rets[1:-1]
			rlist = split_top(inner) if inner else []
			if len(rlist) == 1 and not rlist[0].startswith("(") \
			   and " " not in rlist[0]:
				raise SchemaError("unexpected parentheses in %r" % s)
		else:
			rlist = [rets]
		for r in rlist:
			self.add_arg(r, None, True)
		return "{%s,%s,%d,%d,%d,%d,%s}" % (
			c_string(qual), c_string(schema.overload_name), first, nargs,
			rfirst, len(rlist), "|".join(flags) or "0")


def op_flags(schema, versions):
	"""The registry flags of one schema (str(schema) parsed again).  A
	written argument (`!`) after `*` is an out= argument (torch's
	Argument.is_out); one before it is self of an in-place op (a name
	ending in one '_', argument 0: INPLACE) or another written argument
	(MUTATES: append's list, _fused_adam's tensors).  A return aliasing an
	input without writing it, in a schema without out= arguments, is a
	VIEW."""
	s = str(schema)
	head, _, rets = s.partition(") -> ")
	_, _, argtext = head.partition("(")
	flags = set(versions.split("|"))
	out = kw = False
	i = 0
	for a in (split_top(argtext) if argtext else []):
		if a == "*":
			kw = True
			continue
		if a == "...":
			continue
		_, alias, _ = parse_type(split_top(split_top(a, "=")[0], " ")[0])
		if alias and "!" in alias:
			if kw:
				out = True
			elif i == 0 and schema.name.endswith("_") and \
			     not schema.name.endswith("__"):
				flags.add("ATEN_OP_INPLACE")
			else:
				flags.add("ATEN_OP_MUTATES")
		i += 1
	if not out and rets not in ("...", "()"):
		inner = rets[1:-1] if rets.startswith("(") else rets
		for r in split_top(inner) if inner else []:
			_, alias, _ = parse_type(split_top(r, " ")[0])
			if alias and "!" not in alias and "*" not in alias:
				flags.add("ATEN_OP_VIEW")
	return flags


def write_ops(rows):
	"""aten_ops.inc: every operator name, sorted, with its flags."""
	ops = {}
	for s, f in rows:
		q = s.name
		versions = f.replace("|ATEN_SCHEMA_TWIN", "")
		ops.setdefault(q, set()).update(op_flags(s, versions.replace(
			"ATEN_SCHEMA_", "ATEN_OP_")))
	with open(EXTRA_OPS) as f:
		for line in f:
			line = line.strip()
			if line and not line.startswith("#"):
				ops.setdefault(line, set()).add("ATEN_OP_NOSCHEMA")
	w = sys.stdout.write
	w("/*\n * aten_ops.inc - the operator registry's list: every operator of "
	  "torch %s's\n * and %s's schemas and of %s,\n * sorted by qualified "
	  "name (%d operators).  Generated by\n * scripts/gen_aten_schemas.py "
	  "--ops; do not edit.  One ATEN_OP(ns, name, flags)\n * a line; "
	  "aten_op.h makes them the enum aten_op.\n */\n" % (
		  torch.__version__, NEWER_VERSION,
		  os.path.relpath(EXTRA_OPS, ROOT), len(ops)))
	for q in sorted(ops):
		ns, _, name = q.partition("::")
		if not re.fullmatch(r"[A-Za-z_][A-Za-z_0-9]*", ns + name):
			raise SchemaError("operator name %r is not an identifier" % q)
		w("ATEN_OP(%s, %s, %s)\n" % (ns, name, "|".join(sorted(ops[q]))))
	return 0


def main():
	schemas = list(torch._C._jit_get_all_schemas())
	if len(sys.argv) >= 2 and sys.argv[1] == "--sample":
		n = int(sys.argv[2])
		rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 0)
		pick = schemas if n == 0 else rng.sample(schemas, n)
		for s in pick:
			sys.stdout.write(str(s) + "\n")
		return 0
	try:
		newer = read_text_schemas(NEWER)
		if len(sys.argv) >= 2 and sys.argv[1] == "--ops":
			return write_ops(merged(schemas, newer))
		t = Table()
		rows = [t.add_schema(s, f) for s, f in merged(schemas, newer)]
	except SchemaError as e:
		sys.stderr.write("gen_aten_schemas: %s\n" % e)
		return 1
	n_new = sum(1 for r in rows if "ATEN_SCHEMA_IN_1_13" not in r
		    and "ATEN_SCHEMA_TWIN" not in r)
	n_twin = sum(1 for r in rows if "ATEN_SCHEMA_IN_1_13|ATEN_SCHEMA_TWIN" in r)
	w = sys.stdout.write
	w("/*\n * aten_schemas.inc - every operator schema of torch %s and "
	  "%s (%d rows,\n * %d overloads only in %s, %d with both versions' "
	  "rows as they bind\n * differently), generated by "
	  "scripts/gen_aten_schemas.py from\n * torch._C._jit_get_all_schemas() "
	  "and %s.\n" % (torch.__version__, NEWER_VERSION, len(rows), n_new,
			  NEWER_VERSION, n_twin, os.path.relpath(NEWER, ROOT)))
	w(" * Do not edit: regenerate.  Included by aten_schema.c only; sorted by\n"
	  " * qualified name, overloads in torch's registration order.\n */\n")
	w("#define ATEN_SCHEMAS_TORCH_VERSION %s\n" % c_string(torch.__version__))
	w("#define ATEN_SCHEMAS_TORCH_NEWER %s\n" % c_string(NEWER_VERSION))
	w("#define ATEN_SCHEMAS_COUNT %d\n" % len(rows))
	w("#define ATEN_SCHEMAS_TWINS %d\n" % n_twin)
	w("#define ATEN_SCHEMAS_MAX_ARGS %d\n\n" % t.max_args)
	if len(t.args) > 65535:
		sys.stderr.write("gen_aten_schemas: too many distinct arguments\n")
		return 1
	w("static const int64_t aten_default_ints[] = {\n")
	for i in range(0, len(t.ints), 16):
		w("%s,\n" % ",".join(str(x) for x in t.ints[i:i + 16]))
	w("0};\n\nstatic const double aten_default_floats[] = {\n")
	for x in t.floats:
		w("%s,\n" % c_double(x))
	w("0};\n\n/* name, type, alias, base, flags, list_n, alias_at, default kind,"
	  " n, i, f, s */\nstatic const struct aten_arg aten_args[] = {\n")
	for a in t.args:
		w(a + ",\n")
	w("};\n\n/* per schema: its arguments, then its returns (aten_args indices)"
	  " */\nstatic const uint16_t aten_arg_index[] = {\n")
	for i in range(0, len(t.index), 20):
		w("%s,\n" % ",".join(str(x) for x in t.index[i:i + 20]))
	w("};\n\n/* name, overload, first arg, nargs, first return, nreturns,"
	  " flags */\nstatic const struct aten_schema aten_schema_table[] = {\n")
	for r in rows:
		w(r + ",\n")
	w("};\n")
	return 0


if __name__ == "__main__":
	sys.exit(main())

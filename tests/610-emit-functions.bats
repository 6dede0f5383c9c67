#!/usr/bin/env bats
# 610-emit-functions.bats - emit --modules-as-functions TYPES (torch's
# export_modules_as_functions with a set of module types;
# lib/onnx/onnx_functions.c) on small ONNX-level IR with trace scopes: one
# local function per type, a call per instance named as torch names it,
# the function's domain imported; onnx.checker and check accept the
# model; instances that differ are one function per group of identical
# ones (Type, Type.1); a selected type nested in another is a call in its
# function; '*' selects every type, the root's included; a module called
# twice is two calls; what is not supported is refused in one line, no
# model written.
# check refuses a call that gives a function more inputs than it takes.
# Models from torch, ONNX Runtime and torch's own export: 873.
# bats file_tags=tier:check

load helper

# two Block instances (Relu then Add of the block's input), then a Neg
blocks_ir() {
	cat <<'IR'
ir 1.0 onnx
opset "" 15
graph M(%x : Float(3, 4)):
  %0 : Float(3, 4) = onnx::Relu(%x), scope: M/Block[b1]/ReLU[act]
  %1 : Float(3, 4) = onnx::Add(%0, %x), scope: M/Block[b1]
  %2 : Float(3, 4) = onnx::Relu(%1), scope: M/Block[b2]/ReLU[act]
  %3 : Float(3, 4) = onnx::Add(%2, %1), scope: M/Block[b2]
  %4 : Float(3, 4) = onnx::Neg(%3), scope: M
  return (%4)
IR
}

@test "functions: one function per type, one call per instance; onnx.checker and check accept it" {
	blocks_ir > a.ir
	run -0 emit --modules-as-functions Block a.ir -o a.onnx
	run -0 onnx_checker a.onnx
	run -0 check a.onnx
	run -0 "$PYTHON" - <<'PY'
import onnx
m = onnx.load("a.onnx")
assert m.ir_version >= 8, m.ir_version
assert {o.domain: o.version for o in m.opset_import} == {"": 15, "local": 1}
calls = [(n.domain, n.op_type, n.name, list(n.input), list(n.output)) for n in m.graph.node]
assert [c[:3] for c in calls] == [("local", "Block", "/b1/Block"), ("local", "Block", "/b2/Block"), ("", "Neg", "/Neg")], calls
assert calls[0][3] == ["x"] and calls[1][3] == calls[0][4], calls
[f] = m.functions
assert (f.domain, f.name) == ("local", "Block")
assert [n.op_type for n in f.node] == ["Relu", "Add"]
assert len(f.input) == 1 and len(f.output) == 1
# the values inside a function are not described in the graph
assert not [v for v in m.graph.value_info if v.name in ("0", "2")], m.graph.value_info
PY
}

@test "functions: a qualified type names the domain (torch: the class's Python module)" {
	blocks_ir > a.ir
	run -0 emit --modules-as-functions __main__.Block a.ir -o a.onnx
	run -0 onnx_checker a.onnx
	run -0 "$PYTHON" -c '
import onnx
m = onnx.load("a.onnx")
assert [(f.domain, f.name) for f in m.functions] == [("__main__", "Block")]
assert {o.domain for o in m.opset_import} == {"", "__main__"}'
}

@test "functions: a value used outside an instance is one of its outputs" {
	cat > b.ir <<'IR'
ir 1.0 onnx
opset "" 15
graph M(%x : Float(3, 4)):
  %0 : Float(3, 4) = onnx::Relu(%x), scope: M/Block[b1]
  %1 : Float(3, 4) = onnx::Sigmoid(%0), scope: M/Block[b1]
  %2 : Float(3, 4) = onnx::Add(%0, %1), scope: M
  return (%2, %1)
IR
	run -0 emit --modules-as-functions Block b.ir -o b.onnx
	run -0 onnx_checker b.onnx
	run -0 check b.onnx
	run -0 "$PYTHON" -c '
import onnx
m = onnx.load("b.onnx")
[f] = m.functions
assert len(f.output) == 2, f.output
assert [len(n.output) for n in m.graph.node] == [2, 1]'
}

@test "functions: below opset 15 is refused, exit 2, no model" {
	blocks_ir | sed 's/opset "" 15/opset "" 14/' > a.ir
	run -2 emit --modules-as-functions Block a.ir -o a.onnx
	[ "$output" = "emit: a.ir: --export-modules-as-functions needs opset 15 or later (local functions), not 14" ]
	[ ! -e a.onnx ]
}

@test "functions: nested types: a call in the function; the root; '*' (every type): onnx.checker and check accept them" {
	blocks_ir > a.ir
	run -0 emit --modules-as-functions Block,ReLU a.ir -o a.onnx
	run -0 onnx_checker a.onnx
	run -0 check a.onnx
	run -0 "$PYTHON" -c '
import onnx
m = onnx.load("a.onnx")
assert [(n.op_type, n.name) for n in m.graph.node] == [("Block", "/b1/Block"), ("Block", "/b2/Block"), ("Neg", "/Neg")], m.graph.node
assert [(f.name, [n.op_type for n in f.node]) for f in m.functions] == [("Block", ["ReLU", "Add"]), ("ReLU", ["Relu"])], m.functions
[b, r] = m.functions
assert b.node[0].domain == "local" and list(b.node[0].input) == list(b.input), b.node[0]'
	# the root module: the whole graph is one call, as torch's True
	run -0 emit --modules-as-functions M a.ir -o m.onnx
	run -0 onnx_checker m.onnx
	run -0 "$PYTHON" -c '
import onnx
m = onnx.load("m.onnx")
assert [n.op_type for n in m.graph.node] == ["M"], m.graph.node
assert [n.op_type for n in m.functions[0].node] == ["Relu", "Add", "Relu", "Add", "Neg"], m.functions'
	run -0 emit --modules-as-functions '*' a.ir -o s.onnx
	run -0 onnx_checker s.onnx
	run -0 check s.onnx
	run -0 "$PYTHON" -c '
import onnx
m = onnx.load("s.onnx")
assert [n.op_type for n in m.graph.node] == ["M"], m.graph.node
assert [(f.name, [n.op_type for n in f.node]) for f in m.functions] == [("M", ["Block", "Block", "Neg"]), ("Block", ["ReLU", "Add"]), ("ReLU", ["Relu"])], m.functions'
}

@test "functions: instances that differ: one function per group of identical ones, Type, Type.1" {
	blocks_ir | sed 's/%2 : Float(3, 4) = onnx::Relu(%1)/%2 : Float(3, 4) = onnx::Sigmoid(%1)/' > d.ir
	printf '  %%5 : Float(3, 4) = onnx::Relu(%%4), scope: M/Block[b3]/ReLU[act]\n  %%6 : Float(3, 4) = onnx::Add(%%5, %%4), scope: M/Block[b3]\n' > more
	sed -e '/onnx::Neg/r more' -e 's/return (%4)/return (%6)/' d.ir > e.ir
	run -0 emit --modules-as-functions Block e.ir -o e.onnx
	run -0 onnx_checker e.onnx
	run -0 check e.onnx
	run -0 "$PYTHON" -c '
import onnx
m = onnx.load("e.onnx")
assert [(f.name, [n.op_type for n in f.node]) for f in m.functions] == [("Block", ["Relu", "Add"]), ("Block.1", ["Sigmoid", "Add"])], m.functions
assert [(n.op_type, n.name) for n in m.graph.node] == [("Block", "/b1/Block"), ("Block.1", "/b2/Block.1"), ("Neg", "/Neg"), ("Block", "/b3/Block")], m.graph.node'
}

@test "functions: a module's nodes split by another's are two calls (a module called twice)" {
	cat > c.ir <<'IR'
ir 1.0 onnx
opset "" 15
graph M(%x : Float(3, 4)):
  %0 : Float(3, 4) = onnx::Relu(%x), scope: M/Block[b1]
  %1 : Float(3, 4) = onnx::Neg(%0), scope: M
  %2 : Float(3, 4) = onnx::Relu(%1), scope: M/Block[b1]
  return (%2)
IR
	run -0 emit --modules-as-functions Block c.ir -o c.onnx
	run -0 onnx_checker c.onnx
	run -0 check c.onnx
	run -0 "$PYTHON" -c '
import onnx
m = onnx.load("c.onnx")
assert [n.op_type for n in m.graph.node] == ["Block", "Neg", "Block"], m.graph.node
assert [f.name for f in m.functions] == ["Block"], m.functions'
}

@test "functions: a type no node is in: a warning, and a model without functions" {
	blocks_ir > a.ir
	run -0 emit --modules-as-functions Nope a.ir -o a.onnx
	[ "$output" = "emit: a.ir: warning: --export-modules-as-functions: no node is in a module of type 'Nope' (the module scopes name the types)" ]
	run -0 "$PYTHON" -c 'import onnx; assert not onnx.load("a.onnx").functions'
}

@test "check: a call with more inputs than its function takes, a body value never defined" {
	blocks_ir > a.ir
	emit --modules-as-functions Block a.ir -o a.onnx
	"$PYTHON" - <<'PY'
import onnx
m = onnx.load("a.onnx")
m.graph.node[0].input.append("x")
onnx.save(m, "call.onnx")
m = onnx.load("a.onnx")
m.functions[0].node[1].input[0] = "nowhere"
onnx.save(m, "undef.onnx")
PY
	run -1 check call.onnx
	[[ "$output" == *'node "/b1/Block" (Block): 2 inputs, but function Block of domain "local" takes 1'* ]]
	# onnx.checker rejects the undefined value too
	run -1 check undef.onnx
	[[ "$output" == *'in function "Block": input #0'*'uses undefined value "nowhere"'* ]]
	run -1 onnx_checker undef.onnx
}

@test "functions: a Constant fold shares between instances is copied into the function" {
	cat > k.ir <<'IR'
ir 1.0 onnx
opset "" 15
graph M(%x : Float(3, 4)):
  %c : Float() = onnx::Constant[value=Float(){0.5}](), scope: M/Block[b1]
  %0 : Float(3, 4) = onnx::Mul(%x, %c), scope: M/Block[b1]
  %1 : Float(3, 4) = onnx::Mul(%0, %c), scope: M/Block[b2]
  %2 : Float(3, 4) = onnx::Add(%1, %c), scope: M
  return (%2)
IR
	run -0 emit --modules-as-functions Block k.ir -o k.onnx
	run -0 onnx_checker k.onnx
	run -0 check k.onnx
	run -0 "$PYTHON" -c '
import onnx
m = onnx.load("k.onnx")
[f] = m.functions
assert [n.op_type for n in f.node] == ["Constant", "Mul"] and len(f.input) == 1, f
# the graph keeps it for the Add outside the blocks
assert [n.op_type for n in m.graph.node] == ["Constant", "Block", "Block", "Add"], m.graph.node'
	# used by the blocks only, it is in the function only
	sed 's/onnx::Add(%1, %c)/onnx::Neg(%1)/' k.ir > k2.ir
	run -0 emit --modules-as-functions Block k2.ir -o k2.onnx
	run -0 onnx_checker k2.onnx
	run -0 "$PYTHON" -c '
import onnx
m = onnx.load("k2.onnx")
assert [n.op_type for n in m.graph.node] == ["Block", "Block", "Neg"], m.graph.node'
}

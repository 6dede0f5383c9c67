#!/usr/bin/env bats
# 480-lower-plugin.bats - `lower --plugin FILE.so` (lib/lower/plugin.c,
# pt2onnx_plugin.h): custom symbolics built against the public header
# alone.  The shipped examples (examples/plugins/) on small aten IR; a
# plugin overrides a built-in symbolic, declines back to it, the last one
# loaded wins; every way a plugin can be wrong is one line naming the file
# and exit 2 (load) or 4 (lowering); ONNX nodes a plugin builds are checked
# against the opset like the built-in ones.  The torch-built archives are
# in 481 and 872.
# bats file_tags=tier:check

load helper

HDR="$ROOT_DIR/lib/lower"

# plugin NAME: builds NAME.so in the test's directory from NAME.c there
plugin() {
	cc -std=c11 -Wall -Wextra -Werror -shared -fPIC -I"$HDR" -o "$1.so" "$1.c"
}

# an aten graph: relu then mynamespace::myop
aten_ir() {
	printf 'ir 1.0 aten\ngraph M(%%x : Float(2, 3)):\n  %%1 : Tensor = aten::relu(%%x)\n  %%2 : Tensor = mynamespace::myop(%%1)\n  return (%%2)\n'
}

# a plugin whose symbolic for OP builds node DOMAIN::TYPE of its input 0
# (or declines when DECLINE is 1)
gen_plugin() { # NAME OP DOMAIN TYPE DECLINE
	cat > "$1.c" <<C
#include "pt2onnx_plugin.h"
static int sym(const struct pt2onnx_api *api, struct pt2onnx_ctx *ctx,
	       void *user)
{
	struct pt2onnx_value *x = api->input(ctx, 0), *y;
	(void)user;
	if ($5)
		return api->decline(ctx, "not this one");
	if (api->make_node(ctx, "$3", "$4", 1, &x, NULL, 0, 1, &y))
		return 1;
	api->set_type(ctx, y, api->dtype(x), -1, NULL);
	return api->set_output(ctx, 0, y);
}
uint32_t pt2onnx_plugin_abi(void) { return PT2ONNX_PLUGIN_ABI; }
int pt2onnx_plugin_register(const struct pt2onnx_api *api,
			    struct pt2onnx_registry *reg)
{
	return api->register_symbolic(reg, "$2", 0, 0, sym, NULL);
}
C
	plugin "$1"
}

@test "plugin: the shipped myop example writes a node of domain mynamespace, typed as its input" {
	cp "$ROOT_DIR/examples/plugins/myop.c" . && plugin myop
	aten_ir > a.ir
	run -0 tool lower -S --plugin ./myop.so a.ir
	[[ "$output" == *'%2 : Float(2, 3) = mynamespace::myop(%1)'* ]]
	# without it: no symbolic, exit 4
	run -4 tool lower a.ir -o out.ir
	[[ "$output" == *'mynamespace::myop'*'has no symbolic for opset 14'* ]]
}

@test "plugin: a bare file name is one in the current directory" {
	cp "$ROOT_DIR/examples/plugins/myop.c" . && plugin myop
	aten_ir > a.ir
	run -0 tool lower -S --plugin myop.so a.ir
	[[ "$output" == *'= mynamespace::myop(%1)'* ]]
}

@test "plugin: overrides a built-in symbolic (aten::relu), and declining falls back to it" {
	cp "$ROOT_DIR/examples/plugins/myop.c" . && plugin myop
	gen_plugin over aten::relu test.over MyRelu 0
	gen_plugin decl aten::relu test.over MyRelu 1
	aten_ir > a.ir
	run -0 tool lower -S --plugin myop.so --plugin over.so a.ir
	[[ "$output" == *'%1 : Float = test.over::MyRelu(%x)'* ]]
	[[ "$output" != *'onnx::Relu'* ]]
	run -0 tool lower -S --plugin myop.so --plugin decl.so a.ir
	[[ "$output" == *'%1 : Float(2, 3) = onnx::Relu(%x)'* ]]
	# the last loaded wins
	run -0 tool lower -S --plugin myop.so --plugin over.so --plugin decl.so a.ir
	[[ "$output" == *'onnx::Relu(%x)'* ]]
	run -0 tool lower -S --plugin myop.so --plugin decl.so --plugin over.so a.ir
	[[ "$output" == *'test.over::MyRelu(%x)'* ]]
}

@test "plugin: a declined custom op is reported with the plugin's reason, exit 4" {
	gen_plugin decl mynamespace::myop mynamespace myop 1
	aten_ir > a.ir
	run -4 tool lower --plugin ./decl.so a.ir -o out.ir
	[[ "$output" == *'mynamespace::myop'*'the plugin declined: not this one'* ]]
	[ ! -e out.ir ]
}

@test "plugin: an ONNX op that does not exist at the opset is refused like a built-in's" {
	gen_plugin bad mynamespace::myop "" Gelu 0
	aten_ir > a.ir
	run -4 tool lower --opset 14 --plugin ./bad.so a.ir -o out.ir
	[[ "$output" == *'mynamespace::myop'*'needs ONNX Gelu of opset 20 (or later)'* ]]
	run -0 tool lower -S --opset 20 --plugin ./bad.so a.ir
	[[ "$output" == *'onnx::Gelu(%1)'* ]]
}

@test "plugin: a symbolic that sets no output is refused, naming the output" {
	cat > unset.c <<'C'
#include "pt2onnx_plugin.h"
static int sym(const struct pt2onnx_api *api, struct pt2onnx_ctx *ctx,
	       void *user)
{
	(void)api; (void)ctx; (void)user;
	return 0;
}
uint32_t pt2onnx_plugin_abi(void) { return PT2ONNX_PLUGIN_ABI; }
int pt2onnx_plugin_register(const struct pt2onnx_api *api,
			    struct pt2onnx_registry *reg)
{
	return api->register_symbolic(reg, "mynamespace::myop", 0, 0, sym, NULL);
}
C
	plugin unset
	aten_ir > a.ir
	run -4 tool lower --plugin ./unset.so a.ir -o out.ir
	[[ "$output" == *"the plugin's symbolic set no value for output 0"* ]]
}

@test "plugin: an opset range: the row serves only its opsets" {
	sed 's/"mynamespace::myop", 0, 0/"mynamespace::myop", 15, 16/' \
		"$ROOT_DIR/examples/plugins/myop.c" > ranged.c
	plugin ranged
	aten_ir > a.ir
	run -0 tool lower -S --opset 16 --plugin ./ranged.so a.ir
	[[ "$output" == *'mynamespace::myop(%1)'* ]]
	run -4 tool lower --opset 17 --plugin ./ranged.so a.ir -o out.ir
	[[ "$output" == *'has no symbolic for opset 17'* ]]
}

@test "plugin: a file that cannot be loaded is one line naming it, exit 2" {
	run -2 tool lower --plugin ./nope.so < /dev/null
	[ "$output" = "lower: plugin './nope.so': cannot load it: ./nope.so: cannot open shared object file: No such file or directory" ]
	echo 'not an ELF' > text.so
	run -2 tool lower --plugin text.so < /dev/null
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "lower: plugin 'text.so': cannot load it: ./text.so: "* ]]
}

@test "plugin: a missing symbol, another ABI version, a failed or empty registration: one line, exit 2" {
	printf 'int f(void);\nint f(void) { return 0; }\n' > nosym.c && plugin nosym
	run -2 tool lower --plugin ./nosym.so < /dev/null
	[ "$output" = "lower: plugin './nosym.so': no symbol pt2onnx_plugin_abi (not a pt2onnx plugin: see pt2onnx_plugin.h)" ]
	printf '#include "pt2onnx_plugin.h"\nuint32_t pt2onnx_plugin_abi(void) { return PT2ONNX_PLUGIN_ABI; }\n' > noreg.c
	plugin noreg
	run -2 tool lower --plugin ./noreg.so < /dev/null
	[ "$output" = "lower: plugin './noreg.so': no symbol pt2onnx_plugin_register (not a pt2onnx plugin: see pt2onnx_plugin.h)" ]
	sed 's/return PT2ONNX_PLUGIN_ABI;/return PT2ONNX_PLUGIN_ABI + 1;/' \
		"$ROOT_DIR/examples/plugins/myop.c" > abi.c && plugin abi
	run -2 tool lower --plugin ./abi.so < /dev/null
	[ "$output" = "lower: plugin './abi.so': built for plugin ABI version 2, this lower takes version 1 (rebuild it against this pt2onnx_plugin.h)" ]
	sed 's/return api->register_symbolic(reg, "mynamespace::myop", 0, 0, myop,/return 1 + 0 * api->register_symbolic(reg, "mynamespace::myop", 0, 0, myop,/' \
		"$ROOT_DIR/examples/plugins/myop.c" > fail.c && plugin fail
	run -2 tool lower --plugin ./fail.so < /dev/null
	[ "$output" = "lower: plugin './fail.so': pt2onnx_plugin_register failed" ]
	sed 's/"mynamespace::myop", 0, 0/"myop", 0, 0/' \
		"$ROOT_DIR/examples/plugins/myop.c" > badname.c && plugin badname
	run -2 tool lower --plugin ./badname.so < /dev/null
	[ "$output" = "lower: plugin './badname.so': registered a malformed op name (not \"ns::name\") or opset range" ]
	cat noreg.c - > none.c <<'C'
int pt2onnx_plugin_register(const struct pt2onnx_api *api,
			    struct pt2onnx_registry *reg)
{
	(void)api; (void)reg;
	return 0;
}
C
	plugin none
	run -2 tool lower --plugin ./none.so < /dev/null
	[ "$output" = "lower: plugin './none.so': registered no symbolic" ]
}

@test "plugin: lower --help names --plugin" {
	run -0 tool lower --help
	[[ "$output" == *'--plugin FILE.so'* ]]
}

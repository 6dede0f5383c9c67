/*
 * test_ir_text.c - the text form of the IR (lib/common/ir_text.c).
 *
 * Golden samples in canonical form, one for each construct of docs/ir.md's
 * "Text form", must print back byte for byte; hand-written variants must
 * parse to the same graph; every error names its line; every prefix of a
 * sample is rejected without a crash; floats survive bit for bit; and
 * text -> binary -> text is the identity.
 */
#include "unit.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ir.h"

/* --- helpers ------------------------------------------------------------- */

/* Parses text; messages go to *errs (malloc'd, caller frees) when asked. */
static struct ir_graph *parse(const char *text, size_t len, char **errs)
{
	struct diag d;
	char *buf = NULL;
	size_t n = 0;
	FILE *mem = open_memstream(&buf, &n);
	diag_init(&d, "test");
	d.out = mem;
	struct ir_graph *g = ir_read_text_mem(text, len, "t", &d);
	fclose(mem);
	if (errs)
		*errs = buf;
	else
		free(buf);
	return g;
}

/* Prints g; returns malloc'd text, NULL on an error. */
static char *print(const struct ir_graph *g)
{
	struct diag d;
	char *buf = NULL;
	size_t n = 0;
	FILE *mem = open_memstream(&buf, &n);
	diag_init(&d, "test");
	d.quiet = 1;
	int rc = ir_write_text(g, mem, &d);
	fclose(mem);
	if (rc < 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* Shows where two texts part, for a failing CHECK. */
static void show_diff(const char *want, const char *have)
{
	size_t i = 0, line = 1;
	if (!have) {
		fprintf(stderr, "    printing failed\n");
		return;
	}
	while (want[i] && want[i] == have[i])
		line += want[i++] == '\n';
	fprintf(stderr, "    differ at line %zu:\n    want: %.120s\n    have: %.120s\n",
		line, want + i, have + i);
}

/* text -> graph -> text must be the identity */
static void check_golden(const char *text)
{
	char *errs = NULL;
	struct ir_graph *g = parse(text, strlen(text), &errs);
	if (!g) {
		unit_fail(__FILE__, __LINE__, "golden sample does not parse: %s",
			  errs);
		free(errs);
		return;
	}
	free(errs);
	char *out = print(g);
	if (!out || strcmp(out, text)) {
		unit_fail(__FILE__, __LINE__, "golden sample prints differently");
		show_diff(text, out);
	}
	free(out);
	ir_graph_free(g);
}

/* text parses, and prints as `want` */
static void check_variant(const char *text, const char *want)
{
	char *errs = NULL;
	struct ir_graph *g = parse(text, strlen(text), &errs);
	if (!g) {
		unit_fail(__FILE__, __LINE__, "variant does not parse: %s", errs);
		free(errs);
		return;
	}
	free(errs);
	char *out = print(g);
	if (!out || strcmp(out, want)) {
		unit_fail(__FILE__, __LINE__, "variant prints differently");
		show_diff(want, out);
	}
	free(out);
	ir_graph_free(g);
}

/* text is rejected with a message containing `want` ("t:LINE: ...") */
static void check_error(const char *text, const char *want)
{
	char *errs = NULL;
	struct ir_graph *g = parse(text, strlen(text), &errs);
	if (g) {
		unit_fail(__FILE__, __LINE__, "accepted, expected '%s':\n%s",
			  want, text);
		ir_graph_free(g);
	} else if (!errs || !strstr(errs, want)) {
		unit_fail(__FILE__, __LINE__, "expected '%s', got '%s'", want,
			  errs ? errs : "(nothing)");
	} else if (strchr(errs, '\n') != errs + strlen(errs) - 1) {
		unit_fail(__FILE__, __LINE__, "more than one line: '%s'", errs);
	}
	free(errs);
}

/* --- golden samples (canonical form) ------------------------------------ */

static const char sample_min[] =
	"ir 1.0 aten\n"
	"graph():\n"
	"  return ()\n";

/* docs/ir.md's example, with a few more floats */
static const char sample_onnx[] =
	"ir 1.0 onnx\n"
	"producer \"pt2onnx-test 0.1\"\n"
	"doc \"a small CNN\"\n"
	"opset \"\" 13\n"
	"opset \"com.example\" 1\n"
	"prop \"source\" \"resnet18.pt\"\n"
	"graph small_cnn(%x : Float(batch, 3, 8, 8),\n"
	"      %c : Bool(),\n"
	"      %conv.weight : Float(4, 3, 1, 1) = {0.1, -0.2, 0.3, 1., 2.5, -0., inf, -inf, nan, 1e-10, 3.4028235e+38, 1.4013e-45},\n"
	"      %fc.bias : Float(10) = weight(\"model.pt\", offset=4160, length=40)):\n"
	"  %3 : Float(batch, 4, 8, 8) = onnx::Conv[dilations=[1, 1], group=1, kernel_shape=[1, 1], pads=[0, 0, 0, 0], strides=[1, 1], onnx_name=\"/conv/Conv\"](%x, %conv.weight, _), scope: Net/Conv2d[conv] # model.py:12:4\n"
	"  %4 : Float(batch, 4, 8, 8) = onnx::Relu(%3)\n"
	"  %5 : Float(batch, 4, 8, 8) = onnx::If(%c)\n"
	"    then_branch():\n"
	"      %6 : Float(batch, 4, 8, 8) = onnx::Neg(%4)\n"
	"      -> (%6)\n"
	"    else_branch():\n"
	"      -> (%4)\n"
	"  return (%5, %fc.bias)\n";

/* aten level: every type, nested blocks, odd names */
static const char sample_aten[] =
	"ir 1.0 aten\n"
	"producer \"script\"\n"
	"graph forward(%self : __torch__.Net,\n"
	"      %x : Float(1, 3, *, batch),\n"
	"      %n : int,\n"
	"      %opt : Tensor?,\n"
	"      %d : Dict(str, Tensor),\n"
	"      %t : (Tensor, int),\n"
	"      %t1 : (int),\n"
	"      %t0 : (),\n"
	"      %l : Float(3)[],\n"
	"      %any : Any,\n"
	"      %u : Tensor,\n"
	"      %u2 : Tensor(2, 3),\n"
	"      %dev : Device,\n"
	"      %s : str,\n"
	"      %f : float,\n"
	"      %b : bool,\n"
	"      %none : NoneType,\n"
	"      %cls : \"int\",\n"
	"      %sym : Long(\"my dim\", *, 0),\n"
	"      %nest : ((int, str)?, int[][])[],\n"
	"      %r0 : Half(),\n"
	"      %\"weird name\" : Long()):\n"
	"  %1 : int = prim::Constant[value=1]()\n"
	"  %2 : bool = aten::gt(%n, %1), scope: Net # \"  spaced source \"\n"
	"  %3 : Float(1, 3, *, batch) = prim::If(%2)\n"
	"    block0():\n"
	"      %4 : Float(1, 3, *, batch) = aten::relu(%x)\n"
	"      -> (%4)\n"
	"    block1():\n"
	"      -> (%x)\n"
	"  %5 : Float(1, 3, *, batch) = prim::Loop(%n, %2, %3)\n"
	"    block0 body(%i.1 : int, %x.6 : Float(1, 3, *, batch)):\n"
	"      %8 : Float(1, 3, *, batch) = aten::add(%x.6, %i.1, %1), scope: \"Net/has space\" # model.py:3:5\n"
	"      %9 : bool = prim::Constant[value=1]()\n"
	"      %10 : int = prim::If(%9)\n"
	"        block0():\n"
	"          -> (%1)\n"
	"        block1():\n"
	"          %11 : int = aten::neg(%i.1)\n"
	"          -> (%11)\n"
	"      -> (%9, %8)\n"
	"  = prim::RaiseException(%\"weird name\"), scope: \"a#b\"\n"
	"  %12 : Tensor[] = prim::ListConstruct(%5, %3)\n"
	"  %13 : Tensor, %14 : int = prim::TupleUnpack(%t)\n"
	"  return (%12, %13)\n";

/* every attribute kind, graph attributes with and without markers */
static const char sample_attrs[] =
	"ir 1.0 onnx\n"
	"opset \"\" 17\n"
	"graph attrs(%x : Float(2),\n"
	"      %c : Bool()):\n"
	"  %y : Float(2) = custom::Op[i=-3, f=0.5, f2=1e-05, f3=3., f4=inf, f5=-inf, f6=nan, f7=-nan, f8=nan(0x7ff8000000000001), f9=-0., f10=0.30000000000000004, f11=1e+300, f12=4.94065645841247e-324, "
	"s=\"tab\\there \\\"q\\\" \\\\ \\x01\\xff\\n\", t=Float(2){1., 2.}, ints=[1, -2, 9223372036854775807, -9223372036854775808], floats=[1.5, -0.25], strs=[\"a\", \"\"], "
	"ts=[Long(){7}, Bool(2){0, 1} doc_string=\"d\"], ei=[], ef=float[], es=str[], et=Tensor[], eg=graph[], r=raw\"83a16ea172a16ba27a7aa17601\", \"onnx_name\"=1, \"block0\"=\"x\", \"has space\"=2, "
	"tr=Float(2)weight(\"w.bin\", offset=0, length=8), th=Half(1)hex\"003c\", onnx_name=\"\", doc_string=\"doc\\n\", extra=raw\"81a16101\"](%x)\n"
	"  %z : Float(2) = onnx::Scan[body=graph, num_scan_inputs=1](%x)\n"
	"    body(%a : Float(2)):\n"
	"      -> (%a)\n"
	"  %w : Float(2) = custom::Multi[k=1](%x)\n"
	"    branches[0] g0():\n"
	"      -> (%x)\n"
	"    branches[1](%p : Float(2), %init : Float(1) = {2.} extra=raw\"81a16201\"):\n"
	"      %q : Float(2) = onnx::Add(%p, %init)\n"
	"      -> (%q)\n"
	"  %v : Float(2) = custom::G[k=1](%x)\n"
	"    block0(%bp : int):\n"
	"      -> (%bp)\n"
	"    \"block0\"():\n"
	"      -> (%y)\n"
	"    \"my graph\"[0] \"sub graph\"():\n"
	"      %deep : Float(2) = onnx::If(%c)\n"
	"        then_branch():\n"
	"          -> (%z)\n"
	"        else_branch():\n"
	"          -> (%w)\n"
	"      -> (%deep)\n"
	"  %m : Float(2) = custom::Marks[g1=graph, gl=graph[], last=0](%x)\n"
	"    g1():\n"
	"      -> (%x)\n"
	"    gl[0]():\n"
	"      -> (%x)\n"
	"  return (%y, %z, %w, %v, %m)\n";

/* tensor data of every dtype */
static const char sample_dtypes[] =
	"ir 1.0 onnx\n"
	"graph dtypes(%f : Float(2) = {1.5, -2.},\n"
	"      %d : Double(3) = {0.1, 0.30000000000000004, -1e+300},\n"
	"      %h : Half(2) = hex\"003c00c0\",\n"
	"      %bf : BFloat16(1) = hex\"803f\",\n"
	"      %cf : ComplexFloat(1) = hex\"0000803f00000000\",\n"
	"      %cd : ComplexDouble(1) = hex\"000000000000f03f0000000000000000\",\n"
	"      %i64 : Long(2) = {-9223372036854775808, 9223372036854775807},\n"
	"      %i32 : Int(2) = {-2147483648, 2147483647},\n"
	"      %i16 : Short(2) = {-32768, 32767},\n"
	"      %i8 : Char(2) = {-128, 127},\n"
	"      %u8 : Byte(2) = {0, 255},\n"
	"      %u16 : UInt16(1) = {65535},\n"
	"      %u32 : UInt32(1) = {4294967295},\n"
	"      %u64 : UInt64(1) = {18446744073709551615},\n"
	"      %b : Bool(3) = {0, 1, 1},\n"
	"      %b2 : Bool(2) = hex\"0102\",\n"
	"      %str : String(2) = {\"hello\", \"w\\x00rld\"},\n"
	"      %empty : Float(0, 3) = {},\n"
	"      %scalar : Double() = {2.5} doc_string=\"a scalar\",\n"
	"      %fnan : Float(3) = {nan(0x7fc00001), -nan, nan(0xff800001)},\n"
	"      %ref : Float(2, 3) = weight(\"data/0\", offset=64, length=24, strides=[1, 2]),\n"
	"      %scaled : Float(2, 3) = weight(\"data/0\", offset=64, length=24, scale=[0.5, -0.30000000000000004]),\n"
	"      %ref0 : Long() = weight(\"data/1\", offset=0, length=8)):\n"
	"  return (%f)\n";

/* header lines, extras, unknown records, quoted names */
static const char sample_header[] =
	"ir 1.0 onnx\n"
	"producer \"emit 0.1\"\n"
	"header_extra raw\"81a17801\"\n"
	"doc \"\"\n"
	"opset \"\" 13\n"
	"prop \"a\" \"1\"\n"
	"prop \"a\" \"2\"\n"
	"graph_extra raw\"81a17902\"\n"
	"unknown hex\"81a172a3666f6f\"\n"
	"unknown inputs 1 hex\"81a172a3626172\"\n"
	"unknown nodes 1 hex\"81a172a362617a\"\n"
	"unknown outputs 2 hex\"81a172a3717578\"\n"
	"graph \"has space\"(%x : Float(1)):\n"
	"  %\"y:\" : Float(1) = \"my op\"[onnx_name=\"n\"](%x), scope: \"\" # \"\"\n"
	"  %\"\\n\" : Float(1) = a::b[extra=raw\"81a1619901ffcb3ff8000000000000a173c40100c0c380d40102\"](%\"y:\", %x, _, _)\n"
	"  return (%\"y:\", %\"\\n\")\n";

static const char *const samples[] = {
	sample_min, sample_onnx, sample_aten, sample_attrs, sample_dtypes,
	sample_header, NULL
};

static void test_golden(void)
{
	for (int i = 0; samples[i]; i++)
		check_golden(samples[i]);
}

/* --- hand-written variants ----------------------------------------------- */

static void test_variants(void)
{
	/* extra spaces, comments, '?' dims, 4-space indentation, torch's
	 * type extras and 'Dynamic', return with ';', no final newline */
	check_variant(
		"# a comment before the header\n"
		"ir   1.0   onnx   # trailing comment\n"
		"\n"
		"opset \"\"   13\n"
		"graph  g (  %x :  Float( 2 ,?, n ) ,   # comment in params\n"
		"   %y : Float(1, strides=[1], requires_grad=0, device=cpu),\n"
		"\n"
		"           %w :Float(2)={ 1 , 2.5 } ) :\n"
		"    # a comment line\n"
		"    %a  :  Dynamic   =   onnx::Add  [ alpha = 1.0 , names = [ \"a\" ] ]  ( %x ,  %w )  ,  scope:  S   #   src.py:1   \n"
		"\n"
		"    %b : Float(2) = onnx::If(%a)\n"
		"          then_branch ( ) :\n"
		"              -> ( %x )\n"
		"          else_branch():\n"
		"              -> (%w)\n"
		"    return ( %b ) ;",
		"ir 1.0 onnx\n"
		"opset \"\" 13\n"
		"graph g(%x : Float(2, *, n),\n"
		"      %y : Float(1),\n"
		"      %w : Float(2) = {1., 2.5}):\n"
		"  %a : Any = onnx::Add[alpha=1., names=[\"a\"]](%x, %w), scope: S # src.py:1\n"
		"  %b : Float(2) = onnx::If(%a)\n"
		"    then_branch():\n"
		"      -> (%x)\n"
		"    else_branch():\n"
		"      -> (%w)\n"
		"  return (%b)\n");
	/* blocks in any order, graph attributes after nested blocks; marks
	 * dropped when the order does not need them; hex in any case; mixed
	 * int/float list; escapes the printer does not use */
	check_variant(
		"ir 1.0 aten\n"
		"graph(%x : Long(1) = hex\"0A00000000000000\"):\n"
		"  %y : int = custom::N[g=graph, fl=[1, 2.5], s=\"\\'\\0\\r\"](%x)\n"
		"    g():\n"
		"      -> (%x)\n"
		"    block0():\n"
		"      -> (%x)\n"
		"  return (%y)\n",
		"ir 1.0 aten\n"
		"graph(%x : Long(1) = {10}):\n"
		"  %y : int = custom::N[g=graph, fl=[1., 2.5], s=\"'\\x00\\r\"](%x)\n"
		"    block0():\n"
		"      -> (%x)\n"
		"    g():\n"
		"      -> (%x)\n"
		"  return (%y)\n");
	/* a graph attribute written last needs no mark */
	check_variant(
		"ir 1.0 onnx\n"
		"graph(%x : Float(1)):\n"
		"  %y : Float(1) = custom::N[k=1, g=graph](%x)\n"
		"    g():\n"
		"      -> (%x)\n"
		"  return (%y)\n",
		"ir 1.0 onnx\n"
		"graph(%x : Float(1)):\n"
		"  %y : Float(1) = custom::N[k=1](%x)\n"
		"    g():\n"
		"      -> (%x)\n"
		"  return (%y)\n");
	/* weights may come before inputs; an empty source is a comment;
	 * strides of a scalar are dropped */
	check_variant(
		"ir 1.0 onnx\n"
		"graph(%w : Float(1) = {+1}, %x : Float(1), %s : Long() = weight(\"f\", length=8, offset=0, strides=[])):\n"
		"  %y : Float(1) = onnx::Add(%x, %w) #   \n"
		"  return (%y)\n",
		"ir 1.0 onnx\n"
		"graph(%x : Float(1),\n"
		"      %w : Float(1) = {1.},\n"
		"      %s : Long() = weight(\"f\", offset=0, length=8)):\n"
		"  %y : Float(1) = onnx::Add(%x, %w)\n"
		"  return (%y)\n");
}

/* --- errors -------------------------------------------------------------- */

static void test_errors(void)
{
	const char *h = "ir 1.0 onnx\ngraph(%x : Float(2)):\n";

	check_error("", "t:1: empty input");
	check_error("ir 2.0 onnx\n", "t:1: IR version 2.0 is not supported");
	check_error("ir 1.0 mlir\n", "t:1: expected the level");
	check_error("graph():\n  return ()\n", "t:1: expected 'ir 1.0 LEVEL'");
	check_error("ir 1.0 onnx\nopset \"\" x\n", "t:2: expected an opset version");
	check_error("ir 1.0 onnx\nfoo\n", "t:2: expected a header line");
	check_error("ir 1.0 onnx\n", "t:2: missing 'graph' line");
	check_error("ir 1.0 onnx\nopset \"\" 1\nopset \"\" 2\n",
		    "t:3: second opset for domain ''");
	check_error("ir 1.0 onnx\ngraph(%x : Float(2)):\n  %y : Float(2) = onnx::Relu(%z)\n  return (%y)\n",
		    "t:3: undefined value '%z'");
	/* a use before the definition */
	check_error("ir 1.0 onnx\ngraph(%x : Float(2)):\n  %y : Float(2) = onnx::Add(%x, %z)\n  %z : Float(2) = onnx::Relu(%x)\n  return (%y)\n",
		    "t:3: undefined value '%z'");
	check_error("ir 1.0 onnx\ngraph(%x : Float(2)):\n  %y : Float(2) = onnx::Relu(%y)\n  return (%y)\n",
		    "t:3: value '%y' (defined at line 3) is not in scope here");
	check_error("ir 1.0 aten\ngraph(%c : bool):\n  %y : int = prim::If(%c)\n    block0():\n      %i : int = prim::Constant[value=1]()\n      -> (%i)\n    block1():\n      -> (%i)\n  return (%y)\n",
		    "t:8: value '%i' (defined at line 5) is not in scope here");
	check_error("ir 1.0 onnx\ngraph(%x : Float(2)):\n  %x : Float(2) = onnx::Relu(%x)\n  return (%x)\n",
		    "t:3: value '%x' is already defined at line 2");
	check_error("ir 1.0 onnx\ngraph(%x : Float(2),\n      %x : Float(2)):\n  return (%x)\n",
		    "t:3: value '%x' is already defined at line 2");
	check_error("ir 1.0 onnx\ngraph(%x : Flaot(2)):\n  return (%x)\n",
		    "t:2: unknown type 'Flaot'");
	check_error("ir 1.0 onnx\ngraph(%x : int64(2)):\n  return (%x)\n",
		    "t:2: unknown type 'int64'");
	check_error("ir 1.0 onnx\ngraph(%x : Dict(int)):\n  return (%x)\n",
		    "t:2: Dict needs two types");
	check_error("ir 1.0 onnx\ngraph(%x : Float(2, =)):\n  return (%x)\n",
		    "t:2: expected a dimension");
	check_error("ir 1.0 onnx\ngraph(%x : 3):\n  return (%x)\n",
		    "t:2: expected a type, got '3):'");
	check_error("ir 1.0 onnx\nproducer \"abc\ngraph():\n  return ()\n",
		    "t:2: unterminated string");
	check_error("ir 1.0 onnx\nproducer \"a\\qb\"\n", "t:2: unknown escape '\\q'");
	check_error("ir 1.0 onnx\nunknown hex\"abc\"\n", "t:2: odd number of hex digits");
	check_error("ir 1.0 onnx\nunknown hex\"zz\"\n", "t:2: bad hex digit");
	check_error("ir 1.0 onnx\nunknown hex\"ab", "t:2: unterminated hex string");
	check_error("ir 1.0 onnx\nunknown hex\"81a172\"\n", "t:2: the unknown record is not one msgpack map");
	check_error("ir 1.0 onnx\nunknown hex\"8000\"\n", "t:2: the unknown record is not one msgpack map");
	check_error("ir 1.0 onnx\nunknown hex\"01\"\n", "t:2: the unknown record is not one msgpack map");
	check_error("ir 1.0 onnx\nunknown hex\"dfffffffff\"\n", "t:2: the unknown record is not one msgpack map");
	check_error("ir 1.0 onnx\nheader_extra raw\"81c1c0\"\n", "t:2: the raw\"...\" data is not one msgpack map");
	check_error("ir 1.0 onnx\nunknown bogus 1 hex\"80\"\n", "t:2: expected a section");
	/* a raw attribute is the whole binary attribute map, its "n" the name */
	check_error("ir 1.0 onnx\ngraph(%x : Float(2)):\n  %y : Float(2) = a::b[r=raw\"81a16b01\"](%x)\n  return (%y)\n",
		    "t:3: raw attribute 'r' has no \"n\" (its name) inside");
	check_error("ir 1.0 onnx\ngraph(%x : Float(2)):\n  %y : Float(2) = a::b[r=raw\"82a16b01a16ea171\"](%x)\n  return (%y)\n",
		    "t:3: raw attribute 'r' is named 'q' inside");
	check_variant("ir 1.0 onnx\ngraph(%x : Float(2)):\n  %y : Float(2) = a::b[q=raw\"de0002a16bd90178a16ea171\"](%x)\n  return (%y)\n",
		      "ir 1.0 onnx\ngraph(%x : Float(2)):\n  %y : Float(2) = a::b[q=raw\"de0002a16bd90178a16ea171\"](%x)\n  return (%y)\n");
	check_error("ir 1.0 onnx\ngraph(%x : Float(2)):\n  %y : Float(2) = onnx::Relu(%x)\n   %z : Float(2) = onnx::Relu(%y)\n  return (%z)\n",
		    "t:4: unexpected indentation");
	check_error("ir 1.0 onnx\ngraph(%x : Float(2)):\n  %y : Float(2) = onnx::Relu(%x)\n %z : Float(2) = onnx::Relu(%y)\n  return (%z)\n",
		    "t:4: missing 'return (...)' at the end of the graph");
	check_error("ir 1.0 onnx\ngraph(%x : Float(2)):\n\t%y : Float(2) = onnx::Relu(%x)\n  return (%y)\n",
		    "t:3: tab in indentation");
	check_error("ir 1.0 onnx\ngraph(%x : Float(2)):\n  %y : Float(2) = onnx::Relu(%x)\n",
		    "t:4: missing 'return (...)' at the end of the graph");
	check_error("ir 1.0 onnx\ngraph(%x : Float(2), %c : Bool()):\n  %y : Float(2) = onnx::If(%c)\n    then_branch():\n      %z : Float(2) = onnx::Relu(%x)\n    else_branch():\n      -> (%x)\n  return (%y)\n",
		    "t:6: missing '-> (...)' at the end of block 'then_branch' (line 4)");
	check_error("ir 1.0 onnx\ngraph(%x : Float(2), %c : Bool()):\n  %y : Float(2) = onnx::If(%c)\n    then_branch():\n      -> (%x)\n     else_branch():\n      -> (%x)\n  return (%y)\n",
		    "t:6: bad indentation: 5 spaces, where this node's blocks have 4");
	check_error("ir 1.0 onnx\ngraph(%x : Float(2)):\n  %y : Float(2) = onnx::Relu(%x) extra\n  return (%y)\n",
		    "t:3: unexpected 'extra' after the node");
	check_error("ir 1.0 onnx\ngraph(%x : Float(2)):\n  return (%x)\n  %y : Float(2) = onnx::Relu(%x)\n",
		    "t:4: unexpected '%y' after the graph's 'return'");
	check_error("ir 1.0 onnx\ngraph(%x : Float(2)):\n  return (%x) x\n",
		    "t:3: unexpected 'x' after 'return'");
	check_error("ir 1.0 onnx\ngraph(%x : Float(2)):\n  %y : Float(2) = onnx::Relu(%x\n  return (%y)\n",
		    "t:3: expected ',' or ')' after an input, got end of line");
	check_error("ir 1.0 onnx\ngraph(%x : Float(2)):\n  %y : Float(2) onnx::Relu(%x)\n  return (%y)\n",
		    "t:3: expected '=' after the outputs");
	check_error("ir 1.0 onnx\ngraph(%x : Float(2)):\n  %y : Float(2) = onnx::Relu[a=](%x)\n  return (%y)\n",
		    "t:3: expected an attribute value");
	check_error("ir 1.0 onnx\ngraph(%x : Float(2)):\n  %y : Float(2) = onnx::Relu[a=1, a=2](%x)\n  return (%y)\n",
		    "t:3: attribute 'a' given twice");
	check_error("ir 1.0 onnx\ngraph(%x : Float(2)):\n  %y : Float(2) = onnx::Relu[a=[1, \"s\"]](%x)\n  return (%y)\n",
		    "t:3: a list mixes kinds of values");
	check_error("ir 1.0 onnx\ngraph(%x : Float(2)):\n  %y : Float(2) = onnx::Relu[a=99999999999999999999](%x)\n  return (%y)\n",
		    "t:3: integer '99999999999999999999' out of range");
	check_error("ir 1.0 onnx\ngraph(%x : Float(2)):\n  %y : Float(2) = onnx::Relu[a=1e999](%x)\n  return (%y)\n",
		    "t:3: number '1e999' out of range");
	check_error("ir 1.0 onnx\ngraph(%x : Float(2)):\n  %y : Float(2) = onnx::Relu[a=12abc](%x)\n  return (%y)\n",
		    "t:3: malformed number");
	check_error("ir 1.0 onnx\ngraph(%w : Float(2) = {1.}):\n  return (%w)\n",
		    "t:2: tensor data has 1 values, expected 2");
	check_error("ir 1.0 onnx\ngraph(%w : Float(2) = {1., 2., 3.}):\n  return (%w)\n",
		    "t:2: more than 2 values");
	check_error("ir 1.0 onnx\ngraph(%w : Float(2) = hex\"00\"):\n  return (%w)\n",
		    "t:2: hex data has 1 bytes, expected 8");
	check_error("ir 1.0 onnx\ngraph(%w : Half(1) = {1.}):\n  return (%w)\n",
		    "t:2: Half data must be written as hex");
	check_error("ir 1.0 onnx\ngraph(%w : Char(1) = {128}):\n  return (%w)\n",
		    "t:2: Char value 128 out of range");
	check_error("ir 1.0 onnx\ngraph(%w : Bool(1) = {2}):\n  return (%w)\n",
		    "t:2: Bool value must be 0 or 1");
	check_error("ir 1.0 onnx\ngraph(%w : Long(1) = {1.5}):\n  return (%w)\n",
		    "t:2: expected an integer, got '1.5'");
	check_error("ir 1.0 onnx\ngraph(%w : Float(n) = {1.}):\n  return (%w)\n",
		    "t:2: a weight needs fixed dimensions");
	check_error("ir 1.0 onnx\ngraph(%w : Float(-1) = {}):\n  return (%w)\n",
		    "t:2: negative dimension -1");
	check_error("ir 1.0 onnx\ngraph(%w : Tensor(1) = hex\"00\"):\n  return (%w)\n",
		    "t:2: a weight needs a dtype");
	check_error("ir 1.0 onnx\ngraph(%w : String(1) = weight(\"f\", offset=0, length=1)):\n  return (%w)\n",
		    "t:2: String data cannot be a weight(...) reference");
	check_error("ir 1.0 onnx\ngraph(%w : Float(1) = weight(\"f\", offset=0, length=4, strides=[-1])):\n  return (%w)\n",
		    "t:2: negative stride -1");
	check_error("ir 1.0 onnx\ngraph(%x : Float(2)):\n  %y : Float(2) = onnx::Relu[\"\"=1](%x)\n  return (%y)\n",
		    "t:3: empty attribute name");
	check_error("ir 1.0 onnx\ngraph(%w : int = {1.}):\n  return (%w)\n",
		    "t:2: a weight needs a tensor type with a shape");
	check_error("ir 1.0 onnx\ngraph(%w : Float(1) = weight(\"f\", offset=0)):\n  return (%w)\n",
		    "t:2: weight(...) needs offset= and length=");
	check_error("ir 1.0 onnx\ngraph(%w : Float(1) = weight(\"f\", offset=0, length=4, strides=[1, 1])):\n  return (%w)\n",
		    "t:2: more strides than the 1 dimensions");
	check_error("ir 1.0 onnx\ngraph(%w : Float(2) = weight(\"f\", offset=0, length=8, scale=[1.])):\n  return (%w)\n",
		    "t:2: 1 scale factors for 2 rows");
	check_error("ir 1.0 onnx\ngraph(%w : Float(1) = weight(\"f\", offset=0, length=4, scale=[1., 2.])):\n  return (%w)\n",
		    "t:2: more scale factors than the 1 rows");
	check_error("ir 1.0 onnx\ngraph(%w : Double(1) = weight(\"f\", offset=0, length=8, scale=[2.])):\n  return (%w)\n",
		    "t:2: a scaled view (\"scale\") of a tensor that is not Float");
	check_error("ir 1.0 onnx\ngraph(%w : Float(2, 2) = weight(\"f\", offset=0, length=16, strides=[1, 2], scale=[2., 3.])):\n  return (%w)\n",
		    "t:2: a scaled view (\"scale\") with strides");
	check_error("ir 1.0 aten\ngraph(%w : Float(1) = weight(\"f\", offset=0, length=4, scale=[2.])):\n  return (%w)\n",
		    "t:2: a scaled view (\"scale\") in aten-level IR (only fold writes one)");
	check_error("ir 1.0 onnx\ngraph(%w : Float() = weight(\"f\", offset=0, length=4, scale=[])):\n  return (%w)\n",
		    "t:2: a scaled view (scale=) of a scalar");
	check_error("ir 1.0 onnx\ngraph(%w : Float(1000000000, 1000000000, 1000000000) = {1.}):\n  return (%w)\n",
		    "t:2: tensor has too many elements");
	check_error("ir 1.0 onnx\ngraph(%w : Float(100000) = {1.}):\n  return (%w)\n",
		    "t:2: tensor of 100000 elements: too few values");
	check_error("ir 1.0 onnx\ngraph(%x : Float(2)):\n  %y : Float(2) = onnx::If[then_branch=graph](%x)\n  return (%y)\n",
		    "t:3: graph attribute 'then_branch' has no block");
	check_error("ir 1.0 aten\ngraph(%x : Float(2)):\n  %y : Float(2) = prim::If(%x)\n    block1():\n      -> (%x)\n  return (%y)\n",
		    "t:4: expected 'block0', got 'block1'");
	check_error("ir 1.0 onnx\ngraph(%x : Float(2)):\n  %y : Float(2) = c::L(%x)\n    b[1]():\n      -> (%x)\n  return (%y)\n",
		    "t:4: expected 'b[0]', got 'b[1]'");
	check_error("ir 1.0 onnx\ngraph(%x : Float(2)):\n  %y : Float(2) = c::L[b=1](%x)\n    b():\n      -> (%x)\n  return (%y)\n",
		    "t:4: attribute 'b' is not a graph");
	check_error("ir 1.0 onnx\ngraph(%x : Float(2)):\n  %y : Float(2) = c::L(%x)\n    b():\n      -> (%x)\n    b():\n      -> (%x)\n  return (%y)\n",
		    "t:6: a second block for attribute 'b'");
	check_error("ir 1.0 onnx\ngraph(%x : Float(2)):\n  %y : Float(2) = c::L(%x)\n    b():\n      return (%x)\n  return (%y)\n",
		    "t:5: 'return' inside a block");
	check_error("ir 1.0 onnx\ngraph(%x : Float(2)):\n  %y : Float(2) = a::b[onnx_name=\"a\", onnx_name=\"b\"](%x)\n  return (%y)\n",
		    "t:3: 'onnx_name' given twice");
	check_error("ir 1.0 onnx\ngraph(%x : Float(2)):\n  %y : Float(2) = a::b(%x)\n    g():\n      -> (%x)\n    g[0]():\n      -> (%x)\n  return (%y)\n",
		    "t:6: attribute 'g' is one graph: its block is 'g', without an index");
	check_error("ir 1.0 onnx\ngraph(%x : Float(2)):\n  %y : Float(2) = a::b(%x)\n    g[0]():\n      -> (%x)\n    g():\n      -> (%x)\n  return (%y)\n",
		    "t:6: attribute 'g' is a list of graphs");
	check_error("ir 1.0 onnx\ngraph(%w : Float(1) = weight(\"f\", offset=0, offset=1, length=4)):\n  return (%w)\n",
		    "t:2: 'offset' given twice");
	check_error("ir 1.0 onnx\ngraph(%w : String(1) = hex\"00\"):\n  return (%w)\n",
		    "t:2: String data must be written as {");
	check_error("ir 1.0 onnx\ngraph(%x : Float(1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1)):\n  return (%x)\n",
		    "t:2: more than 64 dimensions");
	check_error("ir 1.0 onnx\ngraph(%x : Float(2)):\n  %y : Float(2) = a::b(%x) # src\r\n  return (%y)\n",
		    "t:3: unexpected a carriage return");
	check_error("ir 1.0 onnx\ngraph(%x : Float(2)):\n  %y : Float(2) = a::b[a=1.5x](%x)\n  return (%y)\n",
		    "t:3: malformed number '1.5x'");
	check_error("ir 1.0 onnx\ngraph(%x : Float(2)):\n  %y : Float(2) = a::b[a=nan(0x1)](%x)\n  return (%y)\n",
		    "t:3: 'nan(0x1)' is not a double NaN");
	check_error("ir 1.0 onnx\ngraph(%w : Float(1) = {nan(0x7ff8000000000001)}):\n  return (%w)\n",
		    "t:2: 'nan(0x7ff8000000000001)' is not a float NaN");
	check_error("ir 1.0 onnx\ngraph():\n  foo\n",
		    "t:3: expected a node or 'return (...)', got 'foo'");
	check_error("ir 1.0 onnx\ngraph(%x : Float(2)):\n  -> (%x)\n",
		    "t:3: '->' outside a block");
	check_error("ir 1.0 onnx\ngraph(%\"\" : Float(2)):\n  return ()\n",
		    "t:2: empty value name");
	check_error("ir 1.0 onnx\ngraph(%x : Float(2)):\n  %y : Float(2) = onnx::Relu(%x), scope: \n  return (%y)\n",
		    "t:3: expected a scope after 'scope:'");
	check_error("ir 1.0 onnx\r\ngraph():\n  return ()\n",
		    "t:1: unexpected a carriage return");
	check_error("ir 1.0 onnx\nproducer \"a\\x00b\"\n", "t:2: NUL byte in the producer");
	check_error("ir 1.0 onnx\nproducer \"a\"\nproducer \"b\"\n",
		    "t:3: second 'producer' line");
	/* a NUL byte in the text itself */
	{
		static const char nul[] = "ir 1.0 onnx\ngraph(\0):\n  return ()\n";
		char *errs = NULL;
		struct ir_graph *g = parse(nul, sizeof(nul) - 1, &errs);
		CHECK(!g);
		CHECK(errs && strstr(errs, "t:2: NUL byte in the text"));
		free(errs);
		ir_graph_free(g);
	}
	(void)h;
}

/* types and blocks nested up to the limit parse; one more does not */
static char *nested_types(int depth)
{
	size_t cap = (size_t)depth * 4 + 128, o = 0;
	char *s = malloc(cap);
	o += (size_t)snprintf(s + o, cap - o, "ir 1.0 aten\ngraph(%%x : ");
	for (int i = 1; i < depth; i++)
		s[o++] = '(';
	o += (size_t)snprintf(s + o, cap - o, "int");
	for (int i = 1; i < depth; i++)
		s[o++] = ')';
	snprintf(s + o, cap - o, "):\n  return (%%x)\n");
	return s;
}

static char *nested_blocks(int depth)
{
	size_t cap = (size_t)depth * (size_t)depth * 8 + 4096, o = 0;
	char *s = malloc(cap);
	o += (size_t)snprintf(s + o, cap - o, "ir 1.0 aten\ngraph(%%x : int):\n");
	for (int i = 0; i < depth; i++) {
		int ind = 2 + 4 * i;
		o += (size_t)snprintf(s + o, cap - o,
				      "%*s%%v%d : int = prim::Loop(%%x)\n%*sblock0():\n",
				      ind, "", i, ind + 2, "");
	}
	for (int i = depth - 1; i >= 0; i--) {
		int ind = 2 + 4 * i;
		o += (size_t)snprintf(s + o, cap - o, "%*s-> (%%x)\n", ind + 4,
				      "");
	}
	snprintf(s + o, cap - o, "  return (%%x)\n");
	return s;
}

static void test_limits(void)
{
	char *s = nested_types(64);
	check_golden(s);
	free(s);
	s = nested_types(65);
	check_error(s, "t:2: type nested deeper than 64 levels");
	free(s);
	s = nested_types(100000);
	check_error(s, "t:2: type nested deeper than 64 levels");
	free(s);
	s = nested_blocks(256);
	check_golden(s);
	free(s);
	s = nested_blocks(257);
	check_error(s, "blocks nested deeper than 256 levels");
	free(s);

	/* postfix wrappers count too */
	char buf[512];
	int o = snprintf(buf, sizeof(buf), "ir 1.0 aten\ngraph(%%x : int");
	for (int i = 0; i < 70; i++)
		o += snprintf(buf + o, sizeof(buf) - (size_t)o, "[]");
	snprintf(buf + o, sizeof(buf) - (size_t)o, "):\n  return (%%x)\n");
	check_error(buf, "t:2: type nested deeper than 64 levels");
}

/* every prefix of a sample is rejected (the last newline aside), and
 * nothing crashes on the way */
static void test_truncated(void)
{
	for (int i = 0; samples[i]; i++) {
		size_t len = strlen(samples[i]);
		for (size_t n = 0; n < len; n++) {
			struct ir_graph *g = parse(samples[i], n, NULL);
			if (n == len - 1) {
				/* only the final newline missing: same graph */
				char *out = g ? print(g) : NULL;
				CHECK(out && !strcmp(out, samples[i]));
				free(out);
			} else if (g) {
				unit_fail(__FILE__, __LINE__,
					  "sample %d accepted at %zu of %zu bytes",
					  i, n, len);
			}
			ir_graph_free(g);
		}
	}
}

/* every byte of a sample changed to a few others: no crash, and what
 * parses prints and parses again to the same text */
static void test_mutated(void)
{
	static const char subst[] = { '(', ')', '[', ']', '%', '"', '\n', ' ',
				      ',', '=', '#', '\\', 'x', '0', '-', ':' };
	for (int i = 0; samples[i]; i++) {
		size_t len = strlen(samples[i]);
		char *buf = malloc(len + 1);
		for (size_t n = 0; n < len; n++) {
			for (size_t k = 0; k < sizeof(subst); k++) {
				memcpy(buf, samples[i], len + 1);
				buf[n] = subst[k];
				struct ir_graph *g = parse(buf, len, NULL);
				if (!g)
					continue;
				char *a = print(g);
				ir_graph_free(g);
				if (!a)
					continue;
				g = parse(a, strlen(a), NULL);
				char *b = g ? print(g) : NULL;
				if (!b || strcmp(a, b)) {
					unit_fail(__FILE__, __LINE__,
						  "sample %d, byte %zu -> '%c': reprint differs",
						  i, n, subst[k]);
					show_diff(a, b);
				}
				free(a);
				free(b);
				ir_graph_free(g);
			}
		}
		free(buf);
	}
}

/* --- floats -------------------------------------------------------------- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* random bit patterns (NaN payloads, denormals, infinities included) in a
 * Float and a Double weight and a floats attribute survive the trip */
static void test_float_bits(void)
{
	enum { N = 4000 };
	struct ir_graph *g = ir_graph_new(IR_LEVEL_ONNX);
	int64_t dims[1] = { N };
	struct ir_tensor *tf = ir_tensor_new(g, IR_DTYPE_FLOAT, 1, dims);
	struct ir_tensor *td = ir_tensor_new(g, IR_DTYPE_DOUBLE, 1, dims);
	unsigned char *bf = ir_alloc(g, N * 4), *bd = ir_alloc(g, N * 8);
	double *fl = ir_alloc(g, N * sizeof(double));
	for (int i = 0; i < N; i++) {
		uint64_t r = rng();
		/* mix in special exponents: 0 (denormal) and all-ones */
		if (i % 7 == 1)
			r &= 0x800fffffffffffffull;
		if (i % 7 == 2)
			r |= 0x7ff0000000000000ull;
		if (i % 11 == 3)
			r &= 0xfff0000000000000ull;
		uint32_t r32 = (uint32_t)(r >> 32);
		if (i % 5 == 1)
			r32 &= 0x807fffffu;
		if (i % 5 == 2)
			r32 |= 0x7f800000u;
		memcpy(bf + 4 * i, &r32, 4);
		memcpy(bd + 8 * i, &r, 8);
		memcpy(&fl[i], &r, 8);
	}
	tf->bytes.data = (char *)bf;
	tf->bytes.len = N * 4;
	td->bytes.data = (char *)bd;
	td->bytes.len = N * 8;
	struct ir_value *vf = ir_add_weight(g, NULL, "f", tf);
	struct ir_value *vd = ir_add_weight(g, NULL, "d", td);
	struct ir_node *n = ir_node_new(g, g->top, "x::Y", 2, 1);
	n->inputs[0] = vf;
	n->inputs[1] = vd;
	ir_node_set_output(n, 0, ir_value_new(g, "o", NULL));
	struct ir_attr *a = ir_node_add_attr(g, n, "fl", IR_ATTR_FLOATS);
	a->count = N;
	a->u.floats = fl;
	ir_block_add_return(g, g->top, n->outputs[0]);

	char *text = print(g);
	CHECK(text != NULL);
	struct ir_graph *h = text ? parse(text, strlen(text), NULL) : NULL;
	CHECK(h != NULL);
	if (h) {
		struct ir_value *hf = ir_find_value(h, "f");
		struct ir_value *hd = ir_find_value(h, "d");
		CHECK(hf && hf->weight && hf->weight->tensor->bytes.len == N * 4 &&
		      !memcmp(hf->weight->tensor->bytes.data, bf, N * 4));
		CHECK(hd && hd->weight && hd->weight->tensor->bytes.len == N * 8 &&
		      !memcmp(hd->weight->tensor->bytes.data, bd, N * 8));
		struct ir_node *hn = h->top->first;
		struct ir_attr *ha = hn ? ir_node_find_attr(hn, "fl") : NULL;
		CHECK(ha && ha->kind == IR_ATTR_FLOATS && ha->count == N &&
		      !memcmp(ha->u.floats, fl, N * sizeof(double)));
		char *again = print(h);
		CHECK(again && !strcmp(again, text));
		free(again);
	}
	free(text);
	ir_graph_free(h);
	ir_graph_free(g);

	/* short forms: the printer picks the fewest digits that read back */
	check_variant(
		"ir 1.0 onnx\ngraph(%w : Float(3) = {0.1, 16777216, 1e-45},\n"
		"      %d : Double(2) = {0.1, 123456789012345678}):\n"
		"  return ()\n",
		"ir 1.0 onnx\ngraph(%w : Float(3) = {0.1, 16777216., 1.4013e-45},\n"
		"      %d : Double(2) = {0.1, 1.2345678901234568e+17}):\n"
		"  return ()\n");
}

/* --- graphs built with the API ------------------------------------------- */

static void test_built(void)
{
	struct ir_graph *g = ir_graph_new(IR_LEVEL_ONNX);
	ir_add_opset(g, "", 13);
	struct ir_value *x = ir_value_new(g, "x",
					  ir_type_tensor(g, IR_DTYPE_FLOAT, 2, NULL));
	ir_block_add_param(g, g->top, x);
	struct ir_node *n = ir_node_new(g, g->top, "onnx::If", 1, 1);
	n->inputs[0] = x;
	ir_node_set_output(n, 0, ir_value_new(g, NULL, NULL));
	struct ir_attr *a = ir_node_add_attr(g, n, "else_branch", IR_ATTR_GRAPH);
	a->u.g = ir_block_new(g);
	a->u.g->owner = n;
	ir_block_add_return(g, a->u.g, x);
	a = ir_node_add_attr(g, n, "then_branch", IR_ATTR_GRAPH);
	a->u.g = ir_block_new(g);
	a->u.g->owner = n;
	ir_block_add_return(g, a->u.g, x);
	ir_block_add_return(g, g->top, n->outputs[0]);

	char *text = print(g);
	CHECK_STR(text,
		  "ir 1.0 onnx\n"
		  "opset \"\" 13\n"
		  "graph(%x : Float(*, *)):\n"
		  "  %0 : Any = onnx::If(%x)\n"
		  "    else_branch():\n"
		  "      -> (%x)\n"
		  "    then_branch():\n"
		  "      -> (%x)\n"
		  "  return (%0)\n");
	free(text);

	/* what cannot be printed is an error, not a crash */
	n->outputs[0]->type = ir_type_new(g, IR_TYPE_LIST);
	CHECK(print(g) == NULL);
	n->outputs[0]->type = NULL;
	a->u.g = NULL;
	CHECK(print(g) == NULL);
	ir_graph_free(g);
}

/* --- reading from a FILE (a pipe) ---------------------------------------- */

static void test_read_pipe(void)
{
	int fds[2];
	CHECK(pipe(fds) == 0);
	size_t len = strlen(sample_onnx);
	CHECK(write(fds[1], sample_onnx, len) == (ssize_t)len);
	close(fds[1]);
	FILE *fp = fdopen(fds[0], "r");
	struct ir_source src = { fp, "<pipe>" };
	struct diag d;
	diag_init(&d, "test");
	struct ir_graph *g = ir_read_text(&src, &d);
	fclose(fp);
	CHECK(g != NULL);
	char *out = g ? print(g) : NULL;
	CHECK(out && !strcmp(out, sample_onnx));
	free(out);
	ir_graph_free(g);

	/* more than a pipe holds: a writer process feeds it */
	enum { BIG = 40000 };
	size_t cap = BIG * 12 + 256, o = 0;
	char *big = malloc(cap);
	o += (size_t)snprintf(big + o, cap - o,
			      "ir 1.0 onnx\ngraph(%%w : Float(%d) = {", BIG);
	for (int i = 0; i < BIG; i++)
		o += (size_t)snprintf(big + o, cap - o, "%s%d.5", i ? ", " : "",
				      i);
	o += (size_t)snprintf(big + o, cap - o, "}):\n  return (%%w)\n");
	CHECK(pipe(fds) == 0);
	pid_t pid = fork();
	if (pid == 0) {
		close(fds[0]);
		for (size_t off = 0; off < o;) {
			ssize_t w = write(fds[1], big + off, o - off);
			if (w <= 0)
				_exit(1);
			off += (size_t)w;
		}
		_exit(0);
	}
	close(fds[1]);
	fp = fdopen(fds[0], "r");
	src.fp = fp;
	g = ir_read_text(&src, &d);
	fclose(fp);
	waitpid(pid, NULL, 0);
	CHECK(g != NULL);
	out = g ? print(g) : NULL;
	CHECK(out && !strcmp(out, big));
	free(out);
	free(big);
	ir_graph_free(g);

	/* errors name the source */
	char *buf = NULL;
	size_t n = 0;
	FILE *mem = open_memstream(&buf, &n);
	fp = fmemopen((void *)"ir 1.0 onnx\nbad\n", 16, "r");
	src.fp = fp;
	src.name = "in.ir";
	d.out = mem;
	CHECK(ir_read_text(&src, &d) == NULL);
	fclose(fp);
	fclose(mem);
	CHECK(buf && strstr(buf, "in.ir:2: expected a header line"));
	free(buf);
}

/* --- text -> binary -> text ---------------------------------------------- */

static void test_binary_roundtrip(void)
{
	for (int i = 0; samples[i]; i++) {
		struct ir_graph *g = parse(samples[i], strlen(samples[i]), NULL);
		CHECK(g != NULL);
		if (!g)
			continue;
		char *bin = NULL;
		size_t len = 0;
		FILE *mem = open_memstream(&bin, &len);
		struct diag d;
		diag_init(&d, "test");
		int rc = ir_write_binary(g, mem, &d);
		fclose(mem);
		ir_graph_free(g);
		if (rc < 0) {
			unit_fail(__FILE__, __LINE__, "sample %d: binary write failed", i);
			free(bin);
			continue;
		}
		g = ir_read_binary_mem(bin, len, "bin", &d);
		char *out = g ? print(g) : NULL;
		if (!out || strcmp(out, samples[i])) {
			unit_fail(__FILE__, __LINE__,
				  "sample %d: text -> binary -> text differs", i);
			show_diff(samples[i], out);
		}
		ir_graph_free(g);

		/* and binary -> text -> binary gives the same bytes */
		g = out ? parse(out, strlen(out), NULL) : NULL;
		char *bin2 = NULL;
		size_t len2 = 0;
		mem = open_memstream(&bin2, &len2);
		rc = g ? ir_write_binary(g, mem, &d) : -1;
		fclose(mem);
		CHECK(rc == 0 && len2 == len && !memcmp(bin, bin2, len));
		free(bin2);
		free(bin);
		free(out);
		ir_graph_free(g);
	}
}

const struct unit_test unit_tests[] = {
	UNIT(test_golden),
	UNIT(test_variants),
	UNIT(test_errors),
	UNIT(test_limits),
	UNIT(test_truncated),
	UNIT(test_mutated),
	UNIT(test_float_bits),
	UNIT(test_built),
	UNIT(test_read_pipe),
	UNIT(test_binary_roundtrip),
	{ 0 },
};

/*
 * test_script_unroll.c - the script stage's loop unrolling and list folding
 * (lib/script/unroll.c, run by script_passes): hand-written aten graphs in
 * the text form, the passes run, the result printed and read for what must
 * (not) be left.  The expected values are Python's: range lengths as
 * len(range(lo, hi, step)), list contents as the list methods give them.
 */
#include "unit.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compile.h"
#include "ir.h"

/* Runs script_passes on the graph in text; returns the printed result
 * (malloc'd) or NULL when the text does not parse or the result does not
 * verify. */
static char *passes(const char *text)
{
	struct diag d;
	struct ir_graph *g;
	char *buf = NULL;
	size_t n = 0;
	FILE *mem;

	diag_init(&d, "test");
	g = ir_read_text_mem(text, strlen(text), "t", &d);
	if (!g)
		return NULL;
	script_passes(g);
	if (ir_verify(g, &d)) {
		ir_graph_free(g);
		return NULL;
	}
	mem = open_memstream(&buf, &n);
	if (ir_write_text(g, mem, &d)) {
		fclose(mem);
		free(buf);
		ir_graph_free(g);
		return NULL;
	}
	fclose(mem);
	ir_graph_free(g);
	return buf;
}

/* The value of the int constant the graph returns, INT64_MIN when the
 * return is not such a constant. */
static int64_t returned_const(const char *text)
{
	const char *r = strstr(text, "return (%");
	char name[64], pat[96];
	const char *p;
	size_t k = 0;

	if (!r)
		return INT64_MIN;
	for (r += 8; *r && *r != ')' && k + 1 < sizeof(name); r++)
		name[k++] = *r;
	name[k] = 0;
	snprintf(pat, sizeof(pat), "%s : int = prim::Constant[value=", name);
	if (!(p = strstr(text, pat)))
		return INT64_MIN;
	return strtoll(p + strlen(pat), NULL, 10);
}

static int count(const char *text, const char *s)
{
	int n = 0;

	while (text && (text = strstr(text, s))) {
		n++;
		text++;
	}
	return n;
}

static int has(const char *text, const char *s)
{
	return text && strstr(text, s) != NULL;
}

/* a list built by appends in a loop of 3, read at a constant index */
static void test_append_loop(void)
{
	char *out = passes(
		"ir 1.0 aten\n"
		"graph g(%x : Float(2)):\n"
		"  %n : int = prim::Constant[value=3]()\n"
		"  %t : bool = prim::Constant[value=1]()\n"
		"  %two : int = prim::Constant[value=2]()\n"
		"  %l : int[] = prim::ListConstruct()\n"
		"  = prim::Loop(%n, %t)\n"
		"    block0(%i : int):\n"
		"      %v : int = aten::mul(%i, %two)\n"
		"      %a : int[] = aten::append(%l, %v)\n"
		"      -> (%t)\n"
		"  %r : int = aten::__getitem__(%l, %two)\n"
		"  return (%r)\n");

	CHECK(out != NULL);
	CHECK(!has(out, "prim::Loop"));
	CHECK(!has(out, "aten::append"));
	CHECK_INT(returned_const(out), 2 * 2);
	free(out);
}

/* a while loop on a counter: the condition folds in every copy */
static void test_while_counter(void)
{
	char *out = passes(
		"ir 1.0 aten\n"
		"graph g(%x : Float(2)):\n"
		"  %max : int = prim::Constant[value=9223372036854775807]()\n"
		"  %t : bool = prim::Constant[value=1]()\n"
		"  %z : int = prim::Constant[value=0]()\n"
		"  %one : int = prim::Constant[value=1]()\n"
		"  %five : int = prim::Constant[value=5]()\n"
		"  %k : int = prim::Loop(%max, %t, %z)\n"
		"    block0(%i : int, %c : int):\n"
		"      %c1 : int = aten::add(%c, %one)\n"
		"      %go : bool = aten::lt(%c1, %five)\n"
		"      -> (%go, %c1)\n"
		"  return (%k)\n");

	CHECK(out != NULL);
	CHECK(!has(out, "prim::Loop"));
	CHECK_INT(returned_const(out), 5);
	free(out);
}

/* a condition that depends on an input: the loop stays, untouched */
static void test_data_condition(void)
{
	char *out = passes(
		"ir 1.0 aten\n"
		"graph g(%m : int):\n"
		"  %max : int = prim::Constant[value=10]()\n"
		"  %t : bool = prim::Constant[value=1]()\n"
		"  %z : int = prim::Constant[value=0]()\n"
		"  %one : int = prim::Constant[value=1]()\n"
		"  %k : int = prim::Loop(%max, %t, %z)\n"
		"    block0(%i : int, %c : int):\n"
		"      %c1 : int = aten::add(%c, %one)\n"
		"      %go : bool = aten::lt(%c1, %m)\n"
		"      -> (%go, %c1)\n"
		"  return (%k)\n");

	CHECK(out != NULL);
	CHECK(has(out, "prim::Loop"));
	CHECK(has(out, "aten::lt"));
	/* the abandoned copies are gone: one add, the body's */
	CHECK_INT(count(out, "aten::add"), 1);
	free(out);
}

/* past the iteration bound, and a body that computes tensors: loops stay */
static void test_bounds(void)
{
	char *out = passes(
		"ir 1.0 aten\n"
		"graph g(%x : Float(2)):\n"
		"  %n : int = prim::Constant[value=65]()\n"
		"  %t : bool = prim::Constant[value=1]()\n"
		"  %z : int = prim::Constant[value=0]()\n"
		"  %k : int = prim::Loop(%n, %t, %z)\n"
		"    block0(%i : int, %c : int):\n"
		"      %c1 : int = aten::add(%c, %i)\n"
		"      -> (%t, %c1)\n"
		"  return (%k)\n");

	CHECK(has(out, "prim::Loop"));
	free(out);
	out = passes(
		"ir 1.0 aten\n"
		"graph g(%x : Float(2)):\n"
		"  %n : int = prim::Constant[value=64]()\n"
		"  %t : bool = prim::Constant[value=1]()\n"
		"  %z : int = prim::Constant[value=0]()\n"
		"  %k : int = prim::Loop(%n, %t, %z)\n"
		"    block0(%i : int, %c : int):\n"
		"      %c1 : int = aten::add(%c, %i)\n"
		"      -> (%t, %c1)\n"
		"  return (%k)\n");
	CHECK(!has(out, "prim::Loop"));
	CHECK_INT(returned_const(out), 63 * 64 / 2);
	free(out);
	out = passes(
		"ir 1.0 aten\n"
		"graph g(%x : Float(2)):\n"
		"  %n : int = prim::Constant[value=3]()\n"
		"  %t : bool = prim::Constant[value=1]()\n"
		"  %f : float = prim::Constant[value=2.]()\n"
		"  %y : Float(2) = prim::Loop(%n, %t, %x)\n"
		"    block0(%i : int, %c : Float(2)):\n"
		"      %c1 : Float(2) = aten::mul(%c, %f)\n"
		"      -> (%t, %c1)\n"
		"  return (%y)\n");
	CHECK(has(out, "prim::Loop"));
	free(out);
}

/* nested loops: 2 x 3 appends of i * 10 + j, read back by len and index */
static void test_nested(void)
{
	char *out = passes(
		"ir 1.0 aten\n"
		"graph g(%x : Float(2)):\n"
		"  %two : int = prim::Constant[value=2]()\n"
		"  %three : int = prim::Constant[value=3]()\n"
		"  %ten : int = prim::Constant[value=10]()\n"
		"  %five : int = prim::Constant[value=5]()\n"
		"  %t : bool = prim::Constant[value=1]()\n"
		"  %l : int[] = prim::ListConstruct()\n"
		"  = prim::Loop(%two, %t)\n"
		"    block0(%i : int):\n"
		"      = prim::Loop(%three, %t)\n"
		"        block0(%j : int):\n"
		"          %a : int = aten::mul(%i, %ten)\n"
		"          %b : int = aten::add(%a, %j)\n"
		"          %u : int[] = aten::append(%l, %b)\n"
		"          -> (%t)\n"
		"      -> (%t)\n"
		"  %r : int = aten::__getitem__(%l, %five)\n"
		"  return (%r)\n");

	CHECK(out != NULL);
	CHECK(!has(out, "prim::Loop"));
	CHECK_INT(returned_const(out), 12); /* [0, 1, 2, 10, 11, 12][5] */
	free(out);
}

/* insert, _set_item and pop with Python's index rules */
static void test_list_methods(void)
{
	/* l = [1, 2]; l.insert(-1, 7) -> [1, 7, 2]; l.insert(10, 8) ->
	 * [1, 7, 2, 8]; l[-2] = 9 -> [1, 7, 9, 8]; p = l.pop(1) -> 7, l is
	 * [1, 9, 8]; return p * 100 + l[1] * 10 + len(l) = 793 */
	char *out = passes(
		"ir 1.0 aten\n"
		"graph g(%x : Float(2)):\n"
		"  %one : int = prim::Constant[value=1]()\n"
		"  %two : int = prim::Constant[value=2]()\n"
		"  %m1 : int = prim::Constant[value=-1]()\n"
		"  %m2 : int = prim::Constant[value=-2]()\n"
		"  %seven : int = prim::Constant[value=7]()\n"
		"  %eight : int = prim::Constant[value=8]()\n"
		"  %nine : int = prim::Constant[value=9]()\n"
		"  %ten : int = prim::Constant[value=10]()\n"
		"  %hundred : int = prim::Constant[value=100]()\n"
		"  %l : int[] = prim::ListConstruct(%one, %two)\n"
		"  = aten::insert(%l, %m1, %seven)\n"
		"  = aten::insert(%l, %ten, %eight)\n"
		"  %s : int[] = aten::_set_item(%l, %m2, %nine)\n"
		"  %p : int = aten::pop(%l, %one)\n"
		"  %e : int = aten::__getitem__(%l, %one)\n"
		"  %n : int = aten::len(%l)\n"
		"  %a : int = aten::mul(%p, %hundred)\n"
		"  %b : int = aten::mul(%e, %ten)\n"
		"  %c : int = aten::add(%a, %b)\n"
		"  %d : int = aten::add(%c, %n)\n"
		"  return (%d)\n");

	CHECK(out != NULL);
	CHECK(!has(out, "aten::insert") && !has(out, "aten::pop"));
	CHECK_INT(returned_const(out), 793);
	free(out);
	/* an index out of range raises: nothing folds */
	out = passes(
		"ir 1.0 aten\n"
		"graph g(%x : Float(2)):\n"
		"  %five : int = prim::Constant[value=5]()\n"
		"  %one : int = prim::Constant[value=1]()\n"
		"  %l : int[] = prim::ListConstruct(%one)\n"
		"  %p : int = aten::pop(%l, %five)\n"
		"  return (%p)\n");
	CHECK(has(out, "aten::pop"));
	free(out);
}

/* aten::__range_length and __derive_index on constants, as Python's
 * len(range(lo, hi, step)) and start + index * step */
static void test_range(void)
{
	static const int64_t cases[][3] = {
		{ -2, 0, 1 }, { 0, 10, 3 }, { 5, 0, -2 }, { 3, 3, 1 },
		{ 4, 1, 1 }, { -7, 8, 5 }, { 0, -9, -4 },
	};
	char text[1024];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const int64_t *c = cases[i];
		int64_t want = 0, v;
		char *out;

		/* the reference: count the elements */
		for (v = c[0]; c[2] > 0 ? v < c[1] : v > c[1]; v += c[2])
			want++;
		snprintf(text, sizeof(text),
			 "ir 1.0 aten\n"
			 "graph g(%%x : Float(2)):\n"
			 "  %%a : int = prim::Constant[value=%lld]()\n"
			 "  %%b : int = prim::Constant[value=%lld]()\n"
			 "  %%c : int = prim::Constant[value=%lld]()\n"
			 "  %%r : int = aten::__range_length(%%a, %%b, %%c)\n"
			 "  return (%%r)\n",
			 (long long)c[0], (long long)c[1], (long long)c[2]);
		out = passes(text);
		CHECK_INT(returned_const(out), want);
		free(out);
		snprintf(text, sizeof(text),
			 "ir 1.0 aten\n"
			 "graph g(%%x : Float(2)):\n"
			 "  %%a : int = prim::Constant[value=%lld]()\n"
			 "  %%b : int = prim::Constant[value=%lld]()\n"
			 "  %%c : int = prim::Constant[value=%lld]()\n"
			 "  %%r : int = aten::__derive_index(%%a, %%b, %%c)\n"
			 "  return (%%r)\n",
			 (long long)i, (long long)c[0], (long long)c[2]);
		out = passes(text);
		CHECK_INT(returned_const(out), c[0] + (int64_t)i * c[2]);
		free(out);
	}
	/* a step of 0 raises at run time: left alone */
	{
		char *out = passes(
			"ir 1.0 aten\n"
			"graph g(%x : Float(2)):\n"
			"  %a : int = prim::Constant[value=0]()\n"
			"  %b : int = prim::Constant[value=4]()\n"
			"  %r : int = aten::__range_length(%a, %b, %a)\n"
			"  return (%r)\n");
		CHECK(has(out, "aten::__range_length"));
		free(out);
	}
}

const struct unit_test unit_tests[] = {
	UNIT(test_append_loop),
	UNIT(test_while_counter),
	UNIT(test_data_condition),
	UNIT(test_bounds),
	UNIT(test_nested),
	UNIT(test_list_methods),
	UNIT(test_range),
	{ 0 }
};

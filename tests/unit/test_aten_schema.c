/*
 * test_aten_schema.c - the generated aten schema table and the overload
 * resolution over it (lib/aten/aten_schema.h).
 *
 * Faithfulness: tests/script/aten_schema_sample.txt holds 200 schema strings
 * as torch prints them (str(schema), written by
 * `scripts/gen_aten_schemas.py --sample 200 1`); each must be found in the
 * table and re-rendered byte for byte.  PT2ONNX_SCHEMA_SAMPLE overrides the
 * file (e.g. with a `--sample 0` dump of every schema).  Resolution: real
 * calls as python_print writes them, with the overload torch's importer
 * picks and the defaults it refills.
 */
#include "unit.h"

#include <stdlib.h>
#include <string.h>

#include "aten_schema.h"

#define A(k) { NULL, ATEN_KIND_##k }
#define KW(n, k) { n, ATEN_KIND_##k }
#define NARGS(a) ((int)(sizeof(a) / sizeof((a)[0])))

static void test_table(void)
{
	size_t n;
	const struct aten_schema *s;

	CHECK(aten_schema_count() > 3000);
	CHECK_STR(aten_schema_torch_version(), "1.13.0a0");
	for (size_t i = 1; i < aten_schema_count(); i++)
		if (strcmp(aten_schema_at(i - 1)->name, aten_schema_at(i)->name) > 0) {
			unit_fail(__FILE__, __LINE__, "not sorted at %zu", i);
			break;
		}
	CHECK(aten_schema_at(aten_schema_count()) == NULL);

	s = aten_schema_lookup("aten::conv2d", &n);
	CHECK(s != NULL);
	CHECK_INT(n, 2);
	CHECK_STR(s[0].overload, "");
	CHECK_STR(s[1].overload, "padding");
	CHECK(aten_schema_lookup("aten::no_such_op", &n) == NULL);
	CHECK_INT(n, 0);
	CHECK(aten_schema_lookup("", &n) == NULL);
	CHECK(aten_schema_lookup("zzzz", &n) == NULL);
	CHECK(aten_schema_lookup(NULL, &n) == NULL);

	s = aten_schema_find("aten::add_", "Tensor");
	CHECK(s != NULL);
	if (s) {
		const struct aten_arg *self = aten_schema_arg(s, 0);
		const struct aten_arg *alpha = aten_schema_arg(s, 2);
		CHECK(self->flags & ATEN_ARG_WRITE);
		CHECK_STR(self->alias, "a!");
		CHECK(alpha->flags & ATEN_ARG_KWARG_ONLY);
		CHECK_INT(alpha->def_kind, ATEN_DEF_INT);
		CHECK_INT(alpha->def_i, 1);
		CHECK_INT(alpha->base, ATEN_BASE_NUMBER);
		CHECK(aten_schema_arg(s, 3) == NULL);
		CHECK(aten_schema_arg(s, -1) == NULL);
		CHECK_STR(aten_schema_ret(s, 0)->type, "Tensor");
		CHECK_INT(aten_schema_arg_index(s, "other"), 1);
		CHECK_INT(aten_schema_arg_index(s, "nope"), -1);
	}
	s = aten_schema_find("aten::conv2d", "");
	CHECK(s != NULL);
	if (s) {
		const struct aten_arg *st = aten_schema_arg(s, 3);
		const struct aten_arg *bias = aten_schema_arg(s, 2);
		char buf[64];
		CHECK_STR(st->type, "int[2]");
		CHECK_INT(st->list_n, 2);
		CHECK(st->flags & ATEN_ARG_LIST);
		CHECK_INT(st->def_kind, ATEN_DEF_INTS);
		CHECK_INT(st->def_n, 2);
		CHECK_INT(aten_arg_default_ints(st)[0], 1);
		CHECK_INT(aten_arg_default_ints(st)[1], 1);
		CHECK(aten_arg_default_floats(st) == NULL);
		CHECK(bias->flags & ATEN_ARG_OPTIONAL);
		CHECK_INT(bias->def_kind, ATEN_DEF_NONE);
		aten_arg_format_default(st, buf, sizeof(buf));
		CHECK_STR(buf, "1");
	}
	s = aten_schema_find("aten::layer_norm", "");
	CHECK(s != NULL);
	if (s) {
		char buf[64];
		const struct aten_arg *eps = aten_schema_arg(s, 4);
		CHECK_STR(eps->name, "eps");
		CHECK(eps->def_f == 1e-05);
		aten_arg_format_default(eps, buf, sizeof(buf));
		CHECK_STR(buf, "1.0000000000000001e-05");
	}
	s = aten_schema_find("aten::format", "");
	CHECK(s && (s->flags & ATEN_SCHEMA_VARARG));
}

/* Re-renders the schema of every line of path (one str(FunctionSchema) a
 * line) that the table holds with flags `want` set and `skip` clear (want
 * 0: every line must be in the table), comparing with the line.  Returns
 * the number compared, -1 when path cannot be opened. */
static int render_file(const char *path, enum aten_era era, unsigned want,
		       unsigned skip)
{
	char line[8192], buf[8192];
	FILE *f;
	int n = 0, bad = 0;

	f = fopen(path, "r");
	if (!f) {
		unit_fail(__FILE__, __LINE__, "cannot open %s", path);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		char name[512], ov[512] = "";
		const char *sep, *e;
		const struct aten_schema *s;

		line[strcspn(line, "\n")] = 0;
		sep = strstr(line, "::");
		if (!sep)
			continue;
		for (e = sep + 2; *e && *e != '(' && *e != '.'; e++)
			;
		snprintf(name, sizeof(name), "%.*s", (int)(e - line), line);
		if (*e == '.') {
			const char *p = strchr(e, '(');
			if (p)
				snprintf(ov, sizeof(ov), "%.*s", (int)(p - e - 1), e + 1);
		}
		s = aten_schema_find_era(name, ov, era);
		if (!s && want) {
			unit_fail(__FILE__, __LINE__, "not in the table: %s", line);
			bad++;
			continue;
		}
		if (!s || (want && ((s->flags & want) != want || (s->flags & skip))))
			continue;
		n++;
		aten_schema_format(s, buf, sizeof(buf));
		if (strcmp(buf, line)) {
			unit_fail(__FILE__, __LINE__, "rendered\n    %s\n  torch\n    %s",
				  buf, line);
			bad++;
		}
	}
	fclose(f);
	printf("  %s: %d schemas rendered, %d differ\n", path, n, bad);
	return n;
}

/* path of a file relative to the repository (tests/unit/<this file>). */
static void repo_path(char *out, size_t size, const char *rel)
{
	const char *here = __FILE__, *slash = strrchr(here, '/');
	size_t dir = slash ? (size_t)(slash - here) : 0;

	snprintf(out, size, "%.*s/../../%s", (int)dir, dir ? here : ".", rel);
}

/* Every schema of the sample file re-renders as torch 1.13 printed it. */
static void test_render_sample(void)
{
	const char *path = getenv("PT2ONNX_SCHEMA_SAMPLE");
	char def[512];

	if (!path) {
		repo_path(def, sizeof(def), "tests/script/aten_schema_sample.txt");
		path = def;
	}
	CHECK(render_file(path, ATEN_ERA_1_13, 0, 0) >= 200);
}

/* Every row only torch 2.11 has (an overload 1.13 lacks, or 2.11's twin of
 * one whose schema changed) re-renders as torch 2.11 printed it
 * (third_party/torch/aten-2.11.0-schemas.txt), and they are all there. */
static void test_render_newer(void)
{
	char path[512];
	size_t i, only = 0;

	for (i = 0; i < aten_schema_count(); i++)
		only += (aten_schema_at(i)->flags &
			 (ATEN_SCHEMA_IN_1_13 | ATEN_SCHEMA_IN_2_11)) ==
			ATEN_SCHEMA_IN_2_11;
	repo_path(path, sizeof(path), "third_party/torch/aten-2.11.0-schemas.txt");
	CHECK(only > 400);
	CHECK_INT(render_file(path, ATEN_ERA_2_11, ATEN_SCHEMA_IN_2_11,
			      ATEN_SCHEMA_IN_1_13), (int)only);
	CHECK(aten_schema_find("aten::scaled_dot_product_attention", ""));
	CHECK(aten_schema_find("aten::rms_norm", ""));
	CHECK(aten_schema_find("aten::conv2d", "")->flags & ATEN_SCHEMA_IN_2_11);
}

static void test_format_truncates(void)
{
	const struct aten_schema *s = aten_schema_find("aten::conv2d", "");
	char small[16];
	size_t need;

	need = aten_schema_format(s, small, sizeof(small));
	CHECK(need > sizeof(small));
	CHECK_INT(strlen(small), sizeof(small) - 1);
	CHECK(!strncmp(small, "aten::conv2d(Te", 15));
	CHECK_INT(aten_schema_format(s, NULL, 0), need);
}

/* torch.conv2d(x, w, b, [1, 1], [1, 1]): dilation and groups refilled */
static void test_resolve_conv2d(void)
{
	struct aten_call_arg args[] = { A(TENSOR), A(TENSOR), A(TENSOR),
					A(INT_LIST), A(INT_LIST) };
	struct aten_match m;
	char why[128];

	CHECK_INT(aten_schema_resolve("aten::conv2d", args, NARGS(args), &m,
				      why, sizeof(why)), 0);
	CHECK(m.schema && !strcmp(m.schema->overload, ""));
	if (!m.schema)
		return;
	for (int i = 0; i < 5; i++)
		CHECK_INT(m.bind[i].arg, i);
	CHECK_INT(m.bind[5].arg, ATEN_BIND_DEFAULT);
	CHECK_INT(m.bind[6].arg, ATEN_BIND_DEFAULT);
	CHECK_INT(aten_schema_arg(m.schema, 5)->def_kind, ATEN_DEF_INTS);
	CHECK_INT(aten_arg_default_ints(aten_schema_arg(m.schema, 5))[1], 1);
	CHECK_INT(aten_schema_arg(m.schema, 6)->def_i, 1);
	CHECK_INT(m.converted, 0);

	/* padding="same" picks the str overload */
	{
		struct aten_call_arg a2[] = { A(TENSOR), A(TENSOR), A(NONE),
					      A(INT_LIST), A(STR) };
		CHECK_INT(aten_schema_resolve("aten::conv2d", a2, NARGS(a2), &m,
					      NULL, 0), 0);
		CHECK(m.schema && !strcmp(m.schema->overload, "padding"));
	}
	/* stride=2: an int broadcast to int[2] */
	{
		struct aten_call_arg a3[] = { A(TENSOR), A(TENSOR),
					      KW("stride", INT) };
		CHECK_INT(aten_schema_resolve("aten::conv2d", a3, NARGS(a3), &m,
					      NULL, 0), 0);
		CHECK_INT(m.bind[3].arg, 2);
		CHECK_INT(m.bind[3].conv, ATEN_CONV_BROADCAST);
		CHECK_INT(m.bind[2].arg, ATEN_BIND_DEFAULT);
	}
}

/* torch.add(x, y) -> add.Tensor with alpha=1; other operand kinds pick
 * other overloads. */
static void test_resolve_add(void)
{
	struct aten_call_arg tt[] = { A(TENSOR), A(TENSOR) };
	struct aten_call_arg ti[] = { A(TENSOR), A(INT) };
	struct aten_call_arg ii[] = { A(INT), A(INT) };
	struct aten_call_arg ff[] = { A(FLOAT), A(INT) };
	struct aten_call_arg ss[] = { A(STR), A(STR) };
	struct aten_call_arg ll[] = { A(INT_LIST), A(INT_LIST) };
	struct aten_call_arg kw[] = { A(TENSOR), A(TENSOR), KW("alpha", INT) };
	struct aten_call_arg out[] = { A(TENSOR), A(TENSOR), KW("out", TENSOR) };
	struct aten_match m;

	CHECK_INT(aten_schema_resolve("aten::add", tt, 2, &m, NULL, 0), 0);
	CHECK_STR(m.schema->overload, "Tensor");
	CHECK_INT(m.bind[2].arg, ATEN_BIND_DEFAULT);
	CHECK_INT(aten_schema_arg(m.schema, 2)->def_kind, ATEN_DEF_INT);
	CHECK_INT(aten_schema_arg(m.schema, 2)->def_i, 1);

	CHECK_INT(aten_schema_resolve("aten::add", ti, 2, &m, NULL, 0), 0);
	CHECK_STR(m.schema->overload, "Scalar");
	CHECK_INT(aten_schema_resolve("aten::add", ii, 2, &m, NULL, 0), 0);
	CHECK_STR(m.schema->overload, "int");
	CHECK_INT(aten_schema_resolve("aten::add", ff, 2, &m, NULL, 0), 0);
	CHECK_STR(m.schema->overload, "float_int");
	CHECK_INT(aten_schema_resolve("aten::add", ss, 2, &m, NULL, 0), 0);
	CHECK_STR(m.schema->overload, "str");
	CHECK_INT(aten_schema_resolve("aten::add", ll, 2, &m, NULL, 0), 0);
	CHECK_STR(m.schema->overload, "t");
	CHECK_INT(aten_schema_resolve("aten::add", kw, 3, &m, NULL, 0), 0);
	CHECK_STR(m.schema->overload, "Tensor");
	CHECK_INT(m.bind[2].arg, 2);
	CHECK_INT(aten_schema_resolve("aten::add", out, 3, &m, NULL, 0), 0);
	CHECK_STR(m.schema->overload, "out");
	CHECK_INT(m.bind[3].arg, 2);
}

/* torch.sum(x, [1]) -> sum.dim_IntList, keepdim=False, dtype=None */
static void test_resolve_sum(void)
{
	struct aten_call_arg a[] = { A(TENSOR), A(INT_LIST) };
	struct aten_call_arg b[] = { A(TENSOR) };
	struct aten_call_arg c[] = { A(TENSOR), A(INT_LIST), A(BOOL),
				     KW("dtype", INT) };
	struct aten_call_arg d[] = { A(INT_LIST) };
	struct aten_match m;

	CHECK_INT(aten_schema_resolve("aten::sum", a, 2, &m, NULL, 0), 0);
	CHECK_STR(m.schema->overload, "dim_IntList");
	CHECK_INT(m.bind[2].arg, ATEN_BIND_DEFAULT);
	CHECK_INT(aten_schema_arg(m.schema, 2)->def_kind, ATEN_DEF_BOOL);
	CHECK_INT(aten_schema_arg(m.schema, 2)->def_i, 0);
	CHECK_INT(m.bind[3].arg, ATEN_BIND_DEFAULT);
	CHECK_INT(aten_schema_arg(m.schema, 3)->def_kind, ATEN_DEF_NONE);

	CHECK_INT(aten_schema_resolve("aten::sum", b, 1, &m, NULL, 0), 0);
	CHECK_STR(m.schema->overload, "");
	CHECK_INT(aten_schema_resolve("aten::sum", c, 4, &m, NULL, 0), 0);
	CHECK_STR(m.schema->overload, "dim_IntList");
	CHECK_INT(m.bind[3].arg, 3);
	CHECK_INT(aten_schema_resolve("aten::sum", d, 1, &m, NULL, 0), 0);
	CHECK_STR(m.schema->overload, "int");
}

/* Calls from real archives. */
static void test_resolve_misc(void)
{
	struct aten_match m;
	char why[128];

	{ /* torch.slice(z1): every argument a default */
		struct aten_call_arg a[] = { A(TENSOR) };
		CHECK_INT(aten_schema_resolve("aten::slice", a, 1, &m, NULL, 0), 0);
		CHECK_STR(m.schema->overload, "Tensor");
		CHECK_INT(m.schema->nargs, 5);
		for (int i = 1; i < 5; i++)
			CHECK_INT(m.bind[i].arg, ATEN_BIND_DEFAULT);
		CHECK_INT(aten_schema_arg(m.schema, 4)->def_i, 1);
	}
	{ /* torch.zeros([2, b, 16], dtype=_2, layout=None, device=_3) */
		struct aten_call_arg a[] = { A(INT_LIST), KW("dtype", INT),
					     KW("layout", NONE),
					     KW("device", DEVICE) };
		CHECK_INT(aten_schema_resolve("aten::zeros", a, 4, &m, NULL, 0), 0);
		CHECK_STR(m.schema->overload, "");
		CHECK_INT(m.bind[4].arg, ATEN_BIND_DEFAULT); /* pin_memory */
	}
	{ /* torch.format("{}-{}", n, "x"): varargs */
		struct aten_call_arg a[] = { A(STR), A(INT), A(STR) };
		CHECK_INT(aten_schema_resolve("aten::format", a, 3, &m, NULL, 0), 0);
		CHECK_INT(m.nvararg, 2);
	}
	{ /* torch.len(x) of a tensor, of a list */
		struct aten_call_arg a[] = { A(TENSOR) };
		struct aten_call_arg b[] = { A(TENSOR_LIST) };
		CHECK_INT(aten_schema_resolve("aten::len", a, 1, &m, NULL, 0), 0);
		CHECK_STR(m.schema->overload, "Tensor");
		CHECK_INT(aten_schema_resolve("aten::len", b, 1, &m, NULL, 0), 0);
		CHECK_STR(m.schema->overload, "t");
	}
	{ /* torch.linear(x, w, b) with b Optional[Tensor] */
		struct aten_call_arg a[] = { A(TENSOR), A(TENSOR),
					     { NULL, ATEN_KIND_TENSOR | ATEN_KIND_OPTIONAL } };
		CHECK_INT(aten_schema_resolve("aten::linear", a, 3, &m, NULL, 0), 0);
		CHECK_STR(m.schema->overload, "");
	}
	{ /* an Optional[Tensor] where a Tensor is required fails */
		struct aten_call_arg a[] = { { NULL, ATEN_KIND_TENSOR | ATEN_KIND_OPTIONAL },
					     A(TENSOR) };
		CHECK_INT(aten_schema_resolve("aten::linear", a, 2, &m, why,
					      sizeof(why)), -1);
		CHECK(m.schema == NULL);
	}
	{ /* torch.size(x, d) with d a tensor: IntImplicit in the 2nd pass */
		struct aten_call_arg a[] = { A(TENSOR), A(TENSOR) };
		CHECK_INT(aten_schema_resolve("aten::size", a, 2, &m, NULL, 0), 0);
		CHECK_STR(m.schema->overload, "int");
		CHECK_INT(m.converted, 1);
		CHECK_INT(m.bind[1].conv, ATEN_CONV_TENSOR_TO_INT);
	}
	{ /* unknown arguments: the first overload that fits the count */
		struct aten_call_arg a[] = { A(ANY), A(ANY) };
		CHECK_INT(aten_schema_resolve("aten::add", a, 2, &m, NULL, 0), 0);
		CHECK_STR(m.schema->overload, "Tensor");
	}
}

static void test_resolve_errors(void)
{
	struct aten_match m;
	char why[128];
	struct aten_call_arg many[] = { A(TENSOR), A(TENSOR), A(TENSOR),
					A(TENSOR) };
	struct aten_call_arg kw[] = { A(TENSOR), KW("nope", INT) };
	struct aten_call_arg order[] = { KW("input", TENSOR), A(TENSOR) };
	struct aten_call_arg few[] = { A(TENSOR) };

	CHECK_INT(aten_schema_resolve("aten::nope", few, 1, &m, why,
				      sizeof(why)), -1);
	CHECK_STR(why, "unknown operator 'aten::nope'");
	CHECK_INT(aten_schema_bind(aten_schema_find("aten::relu", ""), many, 4,
				   1, &m, why, sizeof(why)), -1);
	CHECK_STR(why, "expected at most 1 positional arguments, got 4");
	CHECK_INT(aten_schema_bind(aten_schema_find("aten::relu", ""), kw, 2,
				   1, &m, why, sizeof(why)), -1);
	CHECK_STR(why, "unknown keyword argument 'nope'");
	CHECK_INT(aten_schema_resolve("aten::relu", kw, 2, &m, why,
				      sizeof(why)), -1);
	CHECK_STR(why, "no overload of 'aten::relu' matches (2 tried; the "
		  "first: unknown keyword argument 'nope')");
	CHECK_INT(aten_schema_resolve("aten::_cast_Byte", kw, 2, &m, why,
				      sizeof(why)), -1);
	CHECK_STR(why, "unknown keyword argument 'nope'");
	CHECK_INT(aten_schema_bind(aten_schema_find("aten::linear", ""), order,
				   2, 1, &m, why, sizeof(why)), -1);
	CHECK_STR(why, "positional argument after keyword argument");
	CHECK_INT(aten_schema_bind(aten_schema_find("aten::linear", ""), few,
				   1, 1, &m, why, sizeof(why)), -1);
	CHECK_STR(why, "argument 'weight' not provided");
	CHECK_INT(aten_schema_resolve("aten::add", many, 4, &m, why,
				      sizeof(why)), -1);
	CHECK(strstr(why, "no overload of 'aten::add' matches") != NULL);
	CHECK_INT(aten_schema_bind(NULL, few, 1, 1, &m, NULL, 0), -1);
	CHECK_STR(aten_kind_name(ATEN_KIND_INT_LIST), "int[]");
	CHECK_STR(aten_kind_name(ATEN_KIND_TENSOR | ATEN_KIND_OPTIONAL), "Tensor?");
	CHECK_STR(aten_kind_name(9999), "?");
}

/* The line of torch 2.11's schema file that starts with prefix, or "". */
static void newer_line(const char *prefix, char *out, size_t n)
{
	char path[512];
	FILE *f;

	*out = 0;
	repo_path(path, sizeof(path), "third_party/torch/aten-2.11.0-schemas.txt");
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(out, (int)n, f)) {
		out[strcspn(out, "\n")] = 0;
		if (!strncmp(out, prefix, strlen(prefix)))
			break;
		*out = 0;
	}
	fclose(f);
}

/* Where torch 2.11's schema of an overload binds differently (here
 * pad_sequence, which gained padding_side), a 2.x archive's call binds
 * against 2.11's row and refills its default; a 1.x archive's against
 * 1.13's, which has no such argument. */
static void test_versions(void)
{
	static const struct aten_call_arg seqs[] = { A(TENSOR_LIST) };
	const struct aten_schema *s;
	struct aten_match m;
	char want[1024], got[1024];
	size_t i, twins = 0;
	int k;

	for (i = 0; i < aten_schema_count(); i++) {
		s = aten_schema_at(i);
		if (!(s->flags & ATEN_SCHEMA_TWIN))
			continue;
		twins++;
		/* each twin is seen by one era only; the other era sees the
		 * other row of the same overload */
		CHECK(aten_schema_visible(s, ATEN_ERA_1_13) !=
		      aten_schema_visible(s, ATEN_ERA_2_11));
		CHECK(aten_schema_find_era(s->name, s->overload, ATEN_ERA_1_13) !=
		      aten_schema_find_era(s->name, s->overload, ATEN_ERA_2_11));
	}
	CHECK(twins >= 2 && twins % 2 == 0);
	newer_line("aten::pad_sequence(", want, sizeof(want));
	CHECK(*want);

	CHECK_INT(aten_schema_resolve_era("aten::pad_sequence", ATEN_ERA_2_11,
					  seqs, 1, &m, NULL, 0), 0);
	CHECK(m.schema && (m.schema->flags & ATEN_SCHEMA_TWIN));
	aten_schema_format(m.schema, got, sizeof(got));
	CHECK_STR(got, want);
	k = aten_schema_arg_index(m.schema, "padding_side");
	CHECK(k > 0);
	if (k > 0)
		CHECK_INT(m.bind[k].arg, ATEN_BIND_DEFAULT);

	CHECK_INT(aten_schema_resolve_era("aten::pad_sequence", ATEN_ERA_1_13,
					  seqs, 1, &m, NULL, 0), 0);
	CHECK(m.schema && (m.schema->flags & ATEN_SCHEMA_IN_1_13));
	CHECK_INT(aten_schema_arg_index(m.schema, "padding_side"), -1);
	aten_schema_format(m.schema, got, sizeof(got));
	CHECK(strcmp(got, want) != 0);
	/* the unversioned calls are 1.13's */
	CHECK(aten_schema_find("aten::pad_sequence", "") == m.schema);
}

const struct unit_test unit_tests[] = {
	UNIT(test_table),
	UNIT(test_render_sample),
	UNIT(test_render_newer),
	UNIT(test_format_truncates),
	UNIT(test_resolve_conv2d),
	UNIT(test_resolve_add),
	UNIT(test_resolve_sum),
	UNIT(test_resolve_misc),
	UNIT(test_resolve_errors),
	UNIT(test_versions),
	{ 0 },
};

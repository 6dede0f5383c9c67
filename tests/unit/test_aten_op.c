/*
 * test_aten_op.c - the operator registry (lib/aten/aten_op.h): ids and
 * names map both ways, the names are sorted, unknown names have no id, and
 * every operator's flags are what its schemas in the schema table say
 * (recomputed here from the table's arguments and alias annotations, the
 * rows test_aten_schema proves faithful to torch's own schema strings);
 * and the script stage's column of it, script_list_ops.
 */
#include "unit.h"

#include <string.h>

#include "aten_op.h"
#include "aten_schema.h"
#include "compile.h"

static void test_names_ids(void)
{
	int op, bad = 0;

	CHECK(OP_COUNT > 2000);
	for (op = 1; op < OP_COUNT && bad < 5; op++) {
		const char *name = aten_op_name((enum aten_op)op);
		if (!*name || aten_op_id(name) != (enum aten_op)op) {
			unit_fail(__FILE__, __LINE__, "id %d '%s' maps to %d", op,
				  name, (int)aten_op_id(name));
			bad++;
		}
		if (op > 1 && strcmp(aten_op_name((enum aten_op)(op - 1)),
				     name) >= 0) {
			unit_fail(__FILE__, __LINE__, "not sorted at %s", name);
			bad++;
		}
	}
	CHECK_STR(aten_op_name(OP_NONE), "");
	CHECK_STR(aten_op_name(OP_COUNT), "");
	CHECK_STR(aten_op_name((enum aten_op)-1), "");
	CHECK_STR(aten_op_name(OP_aten_relu), "aten::relu");
	CHECK_INT(aten_op_flags(OP_NONE), 0);
	CHECK_INT(aten_op_flags(OP_COUNT), 0);
}

static void test_unknown(void)
{
	CHECK_INT(aten_op_id("aten::no_such_op"), OP_NONE);
	CHECK_INT(aten_op_id("aten::"), OP_NONE);
	CHECK_INT(aten_op_id("aten::relu "), OP_NONE);
	CHECK_INT(aten_op_id("relu"), OP_NONE);
	CHECK_INT(aten_op_id(""), OP_NONE);
	CHECK_INT(aten_op_id(NULL), OP_NONE);
	CHECK_INT(aten_op_id("Conv"), OP_NONE); /* an ONNX kind */
	CHECK_INT(aten_op_id(aten_op_name((enum aten_op)1)), 1);
	CHECK_INT(aten_op_id(aten_op_name((enum aten_op)(OP_COUNT - 1))),
		  OP_COUNT - 1);
}

/* The flags the generator derives, recomputed from one schema row: an
 * argument written (`!`) after `*` is an out= argument, else self of a name
 * ending in one '_' (in place), else another (mutates); a return aliasing
 * an input without writing it, in a schema with no out= argument, makes a
 * view. */
static unsigned row_flags(const struct aten_schema *s)
{
	size_t len = strlen(s->name);
	int inplace_name = len > 1 && s->name[len - 1] == '_' &&
			   s->name[len - 2] != '_';
	unsigned f = 0;
	int i, out = 0;

	if (s->flags & ATEN_SCHEMA_IN_1_13)
		f |= ATEN_OP_IN_1_13;
	if (s->flags & ATEN_SCHEMA_IN_2_11)
		f |= ATEN_OP_IN_2_11;
	for (i = 0; i < s->nargs; i++) {
		const struct aten_arg *a = aten_schema_arg(s, i);
		if (!a->alias || !strchr(a->alias, '!'))
			continue;
		if (a->flags & ATEN_ARG_KWARG_ONLY)
			out = 1;
		else if (i == 0 && inplace_name)
			f |= ATEN_OP_INPLACE;
		else
			f |= ATEN_OP_MUTATES;
	}
	if (!out && !(s->flags & ATEN_SCHEMA_VARRET))
		for (i = 0; i < s->nrets; i++) {
			const struct aten_arg *r = aten_schema_ret(s, i);
			if (r->alias && !strchr(r->alias, '!') &&
			    !strchr(r->alias, '*'))
				f |= ATEN_OP_VIEW;
		}
	return f;
}

/* Every operator's flags are the union of its rows' flags; operators with
 * no row are the extra kinds (NOSCHEMA), and every schema's name has an
 * id. */
static void test_flags_match_schemas(void)
{
	static unsigned from_rows[OP_COUNT];
	static unsigned char has_row[OP_COUNT];
	const unsigned mask = ATEN_OP_IN_1_13 | ATEN_OP_IN_2_11 |
			      ATEN_OP_VIEW | ATEN_OP_INPLACE | ATEN_OP_MUTATES;
	size_t i;
	int op, bad = 0, checked = 0;

	for (i = 0; i < aten_schema_count(); i++) {
		const struct aten_schema *s = aten_schema_at(i);
		enum aten_op id = aten_op_id(s->name);
		if (id == OP_NONE) {
			if (bad++ < 5)
				unit_fail(__FILE__, __LINE__, "no id for %s",
					  s->name);
			continue;
		}
		from_rows[id] |= row_flags(s);
		has_row[id] = 1;
	}
	for (op = 1; op < OP_COUNT; op++) {
		unsigned f = aten_op_flags((enum aten_op)op);
		if (!has_row[op]) {
			if (!(f & ATEN_OP_NOSCHEMA) && bad++ < 10)
				unit_fail(__FILE__, __LINE__, "%s: no schema but "
					  "not NOSCHEMA",
					  aten_op_name((enum aten_op)op));
			continue;
		}
		checked++;
		if ((f & mask) != from_rows[op] && bad++ < 10)
			unit_fail(__FILE__, __LINE__, "%s: flags 0x%x, its "
				  "schemas say 0x%x",
				  aten_op_name((enum aten_op)op), f & mask,
				  from_rows[op]);
	}
	CHECK_INT(bad, 0);
	CHECK(checked > 2000);
}

/* The facts the script stage relies on, spelled as ids. */
static void test_known_flags(void)
{
	CHECK(aten_op_flags(OP_aten_view) & ATEN_OP_VIEW);
	CHECK(aten_op_flags(OP_aten_select) & ATEN_OP_VIEW);
	CHECK(!(aten_op_flags(OP_aten_relu) & ATEN_OP_VIEW));
	CHECK(aten_op_flags(OP_aten_append) & ATEN_OP_MUTATES);
	CHECK(!(aten_op_flags(OP_aten_append) & ATEN_OP_INPLACE));
	CHECK(aten_op_flags(OP_aten_add_) & ATEN_OP_INPLACE);
	CHECK(!(aten_op_flags(OP_aten_add) & (ATEN_OP_INPLACE |
					      ATEN_OP_MUTATES)));
	CHECK(aten_op_flags(OP_aten_scaled_dot_product_attention) &
	      ATEN_OP_IN_2_11);
	CHECK(aten_op_flags(OP_prim_If) & ATEN_OP_NOSCHEMA);
	CHECK(aten_op_flags(OP_aten_conv2d) & ATEN_OP_IN_1_13);
	/* sdpa's flags agree with the table: 1.13 lacks it */
	CHECK(!(aten_op_flags(OP_aten_scaled_dot_product_attention) &
		ATEN_OP_IN_1_13) ==
	      !(aten_schema_find("aten::scaled_dot_product_attention", "")
		->flags & ATEN_SCHEMA_IN_1_13));
}

static void test_one_of(void)
{
	CHECK(ATEN_ONE_OF(OP_aten_len, OP_aten_all, OP_aten_len));
	CHECK(!ATEN_ONE_OF(OP_aten_any, OP_aten_all, OP_aten_len));
	CHECK(ATEN_ONE_OF(OP_aten_relu, OP_aten_relu));
	CHECK(!ATEN_ONE_OF(OP_NONE, OP_NONE, OP_aten_relu));
}

/* script_list_ops: one "name: shape" line per operator with a shape rule,
 * sorted, every name a registry operator with a schema. */
static void test_script_list_ops(void)
{
	char line[256], prev[256] = "";
	FILE *f = tmpfile();
	int n = 0, relu = 0;

	if (!f) {
		unit_fail(__FILE__, __LINE__, "tmpfile failed");
		return;
	}
	script_list_ops(f);
	rewind(f);
	while (fgets(line, sizeof(line), f)) {
		char *colon = strstr(line, ": shape\n");
		size_t cnt;
		CHECK(colon != NULL);
		if (!colon)
			break;
		*colon = 0;
		CHECK(aten_op_id(line) != OP_NONE);
		CHECK(aten_schema_lookup(line, &cnt) != NULL);
		CHECK(strcmp(prev, line) < 0);
		relu |= aten_op_id(line) == OP_aten_relu;
		snprintf(prev, sizeof(prev), "%s", line);
		n++;
	}
	fclose(f);
	CHECK(n > 100);
	CHECK(relu);
}

const struct unit_test unit_tests[] = {
	UNIT(test_names_ids),
	UNIT(test_unknown),
	UNIT(test_flags_match_schemas),
	UNIT(test_known_flags),
	UNIT(test_one_of),
	UNIT(test_script_list_ops),
	{ 0 },
};

/*
 * test_trace_optable.c - trace's op tables against the operator registry
 * (lib/aten, generated from torch's schemas): every row names a real
 * operator, no operator is in two places unless the lookup order means it
 * (the scalar and the tensor group, picked by whether an input is a
 * tensor), the id index finds what a scan of the tables in lookup order
 * finds, trace_list_ops lists each operator once, sorted, and
 * trace_op_dims reads the Nd of a registry name.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace_int.h"
#include "unit.h"

static void test_rows_are_operators(void)
{
	const struct trace_table *t;
	const struct trace_op *r;
	int rows = 0;

	for (t = trace_tables; t->name; t++) {
		CHECK(t->group < TRACE_NGROUPS);
		for (r = t->rows; r->op != OP_NONE; r++, rows++) {
			const char *name = aten_op_name(r->op);

			if (r->op <= OP_NONE || r->op >= OP_COUNT || !*name) {
				unit_fail(__FILE__, __LINE__, "%s row %d: id %d",
					  t->name, (int)(r - t->rows),
					  (int)r->op);
				continue;
			}
			CHECK_INT(aten_op_id(name), r->op);
			CHECK(aten_op_flags(r->op) & (ATEN_OP_IN_1_13 |
						      ATEN_OP_IN_2_11 |
						      ATEN_OP_NOSCHEMA));
			CHECK(r->fn != NULL);
			/* only the Python-value groups skip recording */
			if ((r->flags & TRACE_OP_PYTHON) &&
			    t->group == TRACE_TENSOR)
				unit_fail(__FILE__, __LINE__, "%s: %s is a "
					  "tensor op marked TRACE_OP_PYTHON",
					  t->name, name);
		}
	}
	CHECK(rows > 500);
}

/* Where an operator is listed twice, one of the rows can never run:
 * twice in one group (the first wins), or in the prim group and another
 * (prim always wins).  The scalar and tensor groups may share one. */
static void test_no_shadowed_rows(void)
{
	const struct trace_table *t, *u;
	const struct trace_op *r, *s;

	for (t = trace_tables; t->name; t++)
		for (r = t->rows; r->op != OP_NONE; r++)
			for (u = t; u->name; u++)
				for (s = u == t ? r + 1 : u->rows;
				     s->op != OP_NONE; s++) {
					if (s->op != r->op)
						continue;
					if ((t->group == TRACE_SCALAR &&
					     u->group == TRACE_TENSOR) ||
					    (t->group == TRACE_TENSOR &&
					     u->group == TRACE_SCALAR))
						continue;
					unit_fail(__FILE__, __LINE__,
						  "%s in %s and %s: one row "
						  "never runs",
						  aten_op_name(r->op), t->name,
						  u->name);
				}
}

/* the first row of op in group g by scanning, as the index must agree */
static const struct trace_op *scan(enum aten_op op, enum trace_group g)
{
	const struct trace_table *t;
	const struct trace_op *r;

	for (t = trace_tables; t->name; t++)
		if (t->group == g)
			for (r = t->rows; r->op != OP_NONE; r++)
				if (r->op == op)
					return r;
	return NULL;
}

static void test_index_matches_scan(void)
{
	int op, has_tensor, found = 0;

	for (op = OP_NONE; op < OP_COUNT; op++) {
		for (has_tensor = 0; has_tensor < 2; has_tensor++) {
			const struct trace_op *want = scan(op, TRACE_PRIM);
			enum trace_group g, wg = TRACE_PRIM;

			if (!want && !has_tensor) {
				want = scan(op, TRACE_SCALAR);
				wg = TRACE_SCALAR;
			}
			if (!want) {
				want = scan(op, TRACE_TENSOR);
				wg = TRACE_TENSOR;
			}
			if (!want && has_tensor) {
				want = scan(op, TRACE_SCALAR);
				wg = TRACE_SCALAR;
			}
			if (trace_find_op((enum aten_op)op, has_tensor, &g) !=
			    want)
				unit_fail(__FILE__, __LINE__, "%s (tensor %d): "
					  "index and scan differ",
					  aten_op_name(op), has_tensor);
			else if (want && g != wg)
				unit_fail(__FILE__, __LINE__, "%s: group %d "
					  "not %d", aten_op_name(op), g, wg);
			found += want != NULL;
		}
	}
	CHECK(found > 0);
	/* aten::add: Python arithmetic on ints, the tensor op on tensors */
	{
		enum trace_group g;

		CHECK(trace_find_op(OP_aten_add, 0, &g) != NULL);
		CHECK_INT(g, TRACE_SCALAR);
		CHECK(trace_find_op(OP_aten_add, 1, &g) != NULL);
		CHECK_INT(g, TRACE_TENSOR);
		CHECK(trace_find_op(OP_NONE, 1, &g) == NULL);
		CHECK(trace_find_op(OP_COUNT, 1, &g) == NULL);
	}
}

static void test_list_ops(void)
{
	char *buf = NULL, *line, *save = NULL, prev[128] = "";
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	int lines = 0, want = 0, op, g;

	if (!fp) {
		unit_fail(__FILE__, __LINE__, "open_memstream");
		return;
	}
	trace_list_ops(fp);
	fclose(fp);
	for (op = OP_NONE + 1; op < OP_COUNT; op++)
		for (g = 0; g < TRACE_NGROUPS; g++)
			if (scan((enum aten_op)op, (enum trace_group)g)) {
				want++;
				break;
			}
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *colon = strstr(line, ": cpu");

		lines++;
		if (!colon) {
			unit_fail(__FILE__, __LINE__, "line '%s'", line);
			continue;
		}
		CHECK(!strcmp(colon, ": cpu") || !strcmp(colon, ": cpu cuda"));
		*colon = 0;
		CHECK(aten_op_id(line) != OP_NONE);
		CHECK(strcmp(prev, line) < 0);
		snprintf(prev, sizeof(prev), "%s", line);
	}
	CHECK_INT(lines, want);
	free(buf);
}

/* the Nd of pooling, padding, upsampling and atleast_Nd names */
static void test_op_dims(void)
{
	CHECK_INT(trace_op_dims(OP_aten_max_pool2d), 2);
	CHECK_INT(trace_op_dims(OP_aten_max_pool3d_with_indices), 3);
	CHECK_INT(trace_op_dims(OP_aten_adaptive_avg_pool1d), 1);
	CHECK_INT(trace_op_dims(OP_aten__upsample_nearest_exact2d), 2);
	CHECK_INT(trace_op_dims(OP_aten_reflection_pad3d), 3);
	CHECK_INT(trace_op_dims(OP_aten_atleast_1d), 1);
	CHECK_INT(trace_op_dims(OP_aten_relu), 0);
	CHECK_INT(trace_op_dims(OP_aten_conv_tbc), 0);
	CHECK_INT(trace_op_dims(OP_NONE), 0);
}

const struct unit_test unit_tests[] = {
	UNIT(test_rows_are_operators),
	UNIT(test_no_shadowed_rows),
	UNIT(test_index_matches_scan),
	UNIT(test_list_ops),
	UNIT(test_op_dims),
	{ 0 },
};

/*
 * test_lower_symbolic.c - the symbolic table's rows (lib/lower/lower_int.h):
 * every row names a real operator of the registry with an opset range inside
 * LOWER_OPSET_MIN..MAX, no (op, opset) is served by two rows of the same
 * priority, the index holds every row, and symbolic_lookup returns the row
 * of highest priority that serves the opset.
 */
#include "unit.h"

#include "aten_op.h"
#include "lower_int.h"

static int row_from(const struct symbolic *r)
{
	return r->from ? r->from : LOWER_OPSET_MIN;
}

static int row_to(const struct symbolic *r)
{
	return r->to ? r->to : LOWER_OPSET_MAX;
}

static void test_rows_are_operators(void)
{
	size_t total = 0;
	for (size_t t = 0; t < symbolic_ntables; t++)
		for (size_t i = 0; i < symbolic_tables[t]->count; i++) {
			const struct symbolic *r = &symbolic_tables[t]->entries[i];
			total++;
			CHECK(r->op > OP_NONE && r->op < OP_COUNT);
			CHECK(r->fn != NULL);
			const char *name = aten_op_name(r->op);
			CHECK(name[0] != '\0');
			CHECK_INT(aten_op_id(name), r->op);
			CHECK(r->from == 0 || (r->from >= LOWER_OPSET_MIN &&
					       r->from <= LOWER_OPSET_MAX));
			CHECK(r->to == 0 || (r->to >= LOWER_OPSET_MIN &&
					     r->to <= LOWER_OPSET_MAX));
			CHECK(row_from(r) <= row_to(r));
			CHECK(r->prio == SYM_PRIO_BASE ||
			      r->prio == SYM_PRIO_OVER);
		}
	CHECK(total > 0);
	CHECK(total <= SYM_ROWS_MAX);
}

/* For each row and each opset it serves: no other row of the same op and
 * prio serves it, and the lookup gives the fn of the highest prio. */
static void test_one_row_per_priority(void)
{
	for (size_t t = 0; t < symbolic_ntables; t++)
		for (size_t i = 0; i < symbolic_tables[t]->count; i++) {
			const struct symbolic *r = &symbolic_tables[t]->entries[i];
			for (int o = row_from(r); o <= row_to(r); o++) {
				const struct symbolic *best = r;
				for (size_t u = 0; u < symbolic_ntables; u++)
					for (size_t j = 0; j < symbolic_tables[u]->count; j++) {
						const struct symbolic *q =
							&symbolic_tables[u]->entries[j];
						if (q == r || q->op != r->op ||
						    o < row_from(q) || o > row_to(q))
							continue;
						if (q->prio == r->prio)
							unit_fail(__FILE__, __LINE__,
								  "%s at opset %d: two rows of priority %d",
								  aten_op_name(r->op), o, r->prio);
						if (q->prio > best->prio)
							best = q;
					}
				CHECK(symbolic_lookup(r->op, o) == best->fn);
			}
		}
}

static void test_lookup_misses(void)
{
	CHECK(symbolic_lookup(OP_NONE, 17) == NULL);
	CHECK(symbolic_lookup(OP_COUNT, 17) == NULL);
	/* an operator of the registry with no symbolic */
	CHECK(symbolic_lookup(OP_aten__cudnn_rnn, 17) == NULL);
	CHECK(symbolic_lookup(OP_aten_relu, LOWER_OPSET_MAX + 1) == NULL);
	CHECK(symbolic_lookup(OP_aten_relu, LOWER_OPSET_MIN) != NULL);
}

/* what "has no symbolic for opset N" says an op needs: the lowest opset
 * above N with a row (Col2Im is new in 18), none where rows cover N or
 * the op has none */
static void test_next_opset(void)
{
	CHECK(symbolic_lookup(OP_aten_col2im, 17) == NULL);
	CHECK(symbolic_next_opset(OP_aten_col2im, 17) == 18);
	CHECK(symbolic_next_opset(OP_aten_col2im, 9) == 18);
	CHECK(symbolic_next_opset(OP_aten_col2im, 18) == 0);
	CHECK(symbolic_next_opset(OP_aten_relu, LOWER_OPSET_MIN) == 0);
	CHECK(symbolic_next_opset(OP_aten__cudnn_rnn, 9) == 0);
	CHECK(symbolic_next_opset(OP_NONE, 9) == 0);
}

const struct unit_test unit_tests[] = {
	UNIT(test_rows_are_operators),
	UNIT(test_one_row_per_priority),
	UNIT(test_lookup_misses),
	UNIT(test_next_opset),
	{ 0 },
};

/*
 * test_fold.c - the constant folder's CPU evaluator (lib/fold/fold_eval.c)
 * and the passes (lib/fold/fold.c), on structural properties and exact
 * integer cases computed here by independent formulas: the ONNX spec's
 * Slice by enumeration, truncating division by magnitudes for
 * integer Div, index arithmetic for Transpose and Gather, the half-float
 * round trip over all 65536 bit patterns.  Floating-point results are
 * checked against ONNX Runtime in tests/502-fold-numeric.bats instead.
 */
#include "unit.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fold.h"
#include "ir.h"

/* --- helpers ------------------------------------------------------------- */

static struct ir_tensor *longs(struct ir_graph *g, int rank,
			       const int64_t *dims, const int64_t *vals)
{
	struct ir_tensor *t = fold_tensor_alloc(g, IR_DTYPE_INT64, rank, dims, 0);
	uint64_t n = ir_tensor_numel(t);
	for (uint64_t i = 0; i < n; i++)
		fold_set_i(t, i, vals ? vals[i] : (int64_t)i);
	return t;
}

/* Runs op `kind` on the given inputs (a node built with them as weights);
 * returns output 0 or NULL when the op skipped. */
static struct ir_tensor *run_op(struct ir_graph *g, const char *kind,
				struct ir_tensor **ins, uint32_t nin,
				struct ir_node **node_out)
{
	struct ir_node *n = ir_node_new(g, NULL, kind, nin, 1);
	const struct ir_type **types = ir_alloc(g, sizeof(*types) * (nin + 1));
	struct ir_tensor *out[1] = { NULL };
	struct fold_eval e;
	unsigned flags;
	int (*fn)(struct fold_eval *) = fold_op_lookup(kind, &flags);

	for (uint32_t i = 0; i < nin; i++)
		types[i] = ins[i] ? ir_tensor_type(g, ins[i]) : NULL;
	if (node_out)
		*node_out = n;
	e.g = g;
	e.n = n;
	e.opset = 13;
	e.in = ins;
	e.in_types = types;
	e.out = out;
	e.max_bytes = 0;
	if (!fn || fn(&e) != FOLD_EVAL_OK)
		return NULL;
	return out[0];
}

static struct ir_graph *parse(const char *text)
{
	struct diag d;
	diag_init(&d, "test");
	return ir_read_text_mem(text, strlen(text), "t", &d);
}

static int count_nodes(const struct ir_block *b)
{
	int k = 0;
	for (const struct ir_node *n = b->first; n; n = n->next)
		k++;
	return k;
}

/* --- the table ------------------------------------------------------------ */

static void test_table(void)
{
	static const char *kinds[] = {
		"onnx::Transpose", "onnx::Unsqueeze", "onnx::Squeeze",
		"onnx::Cast", "onnx::Concat", "onnx::Slice", "onnx::Gather",
		"onnx::Reshape", "onnx::Shape", "onnx::Add", "onnx::Sub",
		"onnx::Mul", "onnx::Div", "onnx::Sqrt", "onnx::Neg",
		"onnx::Identity", "onnx::Range", "onnx::Expand",
		"onnx::ConstantOfShape", "onnx::Equal", "onnx::Where",
		"onnx::ReduceProd", "onnx::MatMul",
	};
	unsigned flags = 99;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		CHECK(fold_op_lookup(kinds[i], NULL) != NULL);
	CHECK(fold_op_lookup("onnx::Conv", NULL) == NULL);
	CHECK(fold_op_lookup("onnx::RandomNormal", NULL) == NULL);
	CHECK(fold_op_lookup("com.example::Add", NULL) == NULL);
	CHECK(fold_op_lookup("onnx::Shape", &flags) != NULL);
	CHECK(flags == FOLD_OP_SHAPE_ONLY);
	CHECK(fold_op_lookup("onnx::Add", &flags) != NULL);
	CHECK(flags == 0);
}

/* The table is in strcmp order (its binary search needs it), every kind in
 * it is found, and names between or around them are not. */
static void test_table_sorted(void)
{
	size_t n = 0;
	for (const char *k; (k = fold_op_kind(n)); n++) {
		if (n)
			CHECK(strcmp(fold_op_kind(n - 1), k) < 0);
		CHECK(fold_op_lookup(k, NULL) != NULL);
	}
	CHECK(n >= 40);
	CHECK(fold_op_lookup("", NULL) == NULL);
	CHECK(fold_op_lookup("onnx::A", NULL) == NULL);
	CHECK(fold_op_lookup("onnx::Zzz", NULL) == NULL);
	CHECK(fold_op_lookup("onnx::Addd", NULL) == NULL);
}

/* --- elements ------------------------------------------------------------- */

static void test_half_round_trip(void)
{
	struct ir_graph *g = ir_graph_new(IR_LEVEL_ONNX);
	int64_t one = 1;
	struct ir_tensor *t = fold_tensor_alloc(g, IR_DTYPE_FLOAT16, 1, &one, 0);
	int bad = 0;
	for (uint32_t h = 0; h < 65536; h++) {
		uint16_t v = (uint16_t)h, back;
		memcpy((char *)t->bytes.data, &v, 2);
		double d = fold_get_f(t, 0);
		int nan = (h & 0x7c00) == 0x7c00 && (h & 0x3ff);
		if (nan) {
			bad += !isnan(d);
			continue;
		}
		fold_set_f(t, 0, d);
		memcpy(&back, t->bytes.data, 2);
		bad += back != v;
	}
	CHECK_INT(bad, 0);
	/* exact values and rounding: 1, 65504 (max), 65520 -> inf, 2^-24 */
	fold_set_f(t, 0, 1.0);
	CHECK(fold_get_f(t, 0) == 1.0);
	fold_set_f(t, 0, 65504.0);
	CHECK(fold_get_f(t, 0) == 65504.0);
	fold_set_f(t, 0, 65520.0);
	CHECK(isinf(fold_get_f(t, 0)));
	fold_set_f(t, 0, ldexp(1, -24));
	CHECK(fold_get_f(t, 0) == ldexp(1, -24));
	fold_set_f(t, 0, 1.0 + ldexp(1, -11)); /* a tie: to even, 1.0 */
	CHECK(fold_get_f(t, 0) == 1.0);
	ir_graph_free(g);
}

static void test_int_wrap(void)
{
	struct ir_graph *g = ir_graph_new(IR_LEVEL_ONNX);
	int64_t one = 1;
	struct ir_tensor *t = fold_tensor_alloc(g, IR_DTYPE_INT8, 1, &one, 0);
	fold_set_i(t, 0, 200);
	CHECK_INT(fold_get_i(t, 0), 200 - 256);
	t->dtype = IR_DTYPE_UINT8;
	CHECK_INT(fold_get_i(t, 0), 200);
	ir_graph_free(g);
}

/* --- ops, exact integer cases --------------------------------------------- */

static void test_int_div_truncates(void)
{
	struct ir_graph *g = ir_graph_new(IR_LEVEL_ONNX);
	int64_t vals_a[121], vals_b[121], n = 121;
	int k = 0;
	for (int a = -10; a <= 10; a += 2)
		for (int b = -11; b <= 11; b += 2)
			if (k < 121) {
				vals_a[k] = a * 7 + 3;
				vals_b[k] = b;
				k++;
			}
	n = k;
	struct ir_tensor *ins[2] = { longs(g, 1, &n, vals_a),
				     longs(g, 1, &n, vals_b) };
	struct ir_tensor *q = run_op(g, "onnx::Div", ins, 2, NULL);
	CHECK(q != NULL);
	for (int i = 0; q && i < k; i++) {
		int64_t a = vals_a[i], b = vals_b[i];
		int64_t mag = (a < 0 ? -a : a) / (b < 0 ? -b : b);
		int64_t want = (a < 0) != (b < 0) ? -mag : mag;
		CHECK_INT(fold_get_i(q, (uint64_t)i), want);
	}
	/* division by zero is not folded */
	int64_t zero = 0, two = 2, one = 1;
	struct ir_tensor *z[2] = { longs(g, 1, &one, &two),
				   longs(g, 1, &one, &zero) };
	CHECK(run_op(g, "onnx::Div", z, 2, NULL) == NULL);
	ir_graph_free(g);
}

/* The ONNX spec's Slice, by enumeration: negative indices count from the
 * end, then start is clamped to [0, d] ([0, d-1] for a negative step) and
 * end to [0, d] ([-1, d-1]).  Unlike numpy (CPython's slice.indices), a
 * start below -d with a negative step selects element 0: ONNX Runtime
 * agrees with the spec (x[-10:-10:-1] of 7 elements gives [x[0]]).  Fills
 * idx, returns the count. */
static int64_t spec_slice(int64_t d, int64_t start, int64_t end,
			  int64_t step, int64_t *idx)
{
	int64_t n = 0;
	if (start < 0)
		start += d;
	if (end < 0)
		end += d;
	if (step > 0) {
		start = start < 0 ? 0 : start > d ? d : start;
		end = end < 0 ? 0 : end > d ? d : end;
		for (int64_t i = start; i < end; i += step)
			idx[n++] = i;
	} else {
		start = start < 0 ? 0 : start > d - 1 ? d - 1 : start;
		end = end < -1 ? -1 : end > d - 1 ? d - 1 : end;
		for (int64_t i = start; i > end; i += step)
			idx[n++] = i;
	}
	return n;
}

static void test_slice_matches_spec(void)
{
	struct ir_graph *g = ir_graph_new(IR_LEVEL_ONNX);
	int64_t len = 7, one = 1, axis = 0;
	int bad = 0, cases = 0;
	struct ir_tensor *x = longs(g, 1, &len, NULL);
	for (int64_t s = -10; s <= 10; s++) {
		for (int64_t e = -10; e <= 10; e++) {
			for (int64_t st = -3; st <= 3; st++) {
				if (!st)
					continue;
				struct ir_tensor *ins[5] = {
					x, longs(g, 1, &one, &s),
					longs(g, 1, &one, &e),
					longs(g, 1, &one, &axis),
					longs(g, 1, &one, &st) };
				struct ir_tensor *y = run_op(g, "onnx::Slice",
							     ins, 5, NULL);
				int64_t want[16], n = spec_slice(len, s, e, st, want);
				cases++;
				if (!y || y->rank != 1 || y->dims[0] != n) {
					bad++;
					continue;
				}
				for (int64_t i = 0; i < n; i++)
					if (fold_get_i(y, (uint64_t)i) != want[i])
						bad++;
			}
		}
	}
	CHECK_INT(cases, 21 * 21 * 6);
	CHECK_INT(bad, 0);
	ir_graph_free(g);
}

static void test_transpose_index(void)
{
	struct ir_graph *g = ir_graph_new(IR_LEVEL_ONNX);
	int64_t dims[3] = { 2, 3, 4 };
	struct ir_tensor *x = longs(g, 3, dims, NULL);
	struct ir_node *n;
	struct ir_tensor *ins[1] = { x };
	struct ir_tensor *y = run_op(g, "onnx::Transpose", ins, 1, &n);
	/* no perm: reversed axes; y[k][j][i] = x[i][j][k] = 12i + 4j + k */
	CHECK(y && y->rank == 3 && y->dims[0] == 4 && y->dims[2] == 2);
	for (int64_t k = 0; y && k < 4; k++)
		for (int64_t j = 0; j < 3; j++)
			for (int64_t i = 0; i < 2; i++)
				CHECK_INT(fold_get_i(y, (uint64_t)(k * 6 + j * 2 + i)),
					  12 * i + 4 * j + k);
	ir_graph_free(g);
}

static void test_gather_reshape_concat(void)
{
	struct ir_graph *g = ir_graph_new(IR_LEVEL_ONNX);
	int64_t dims[2] = { 3, 2 }, two = 2, idx[2] = { -1, 0 };
	int64_t shape[2] = { 0, -1 }, three = 3;
	struct ir_tensor *x = longs(g, 2, dims, NULL);
	struct ir_tensor *gi[2] = { x, longs(g, 1, &two, idx) };
	struct ir_tensor *y = run_op(g, "onnx::Gather", gi, 2, NULL);
	CHECK(y && y->rank == 2 && y->dims[0] == 2 && y->dims[1] == 2);
	if (y) {
		CHECK_INT(fold_get_i(y, 0), 4);
		CHECK_INT(fold_get_i(y, 1), 5);
		CHECK_INT(fold_get_i(y, 2), 0);
	}
	int64_t big = 3;
	struct ir_tensor *oob[2] = { x, longs(g, 1, &two, (int64_t[]){ big, 0 }) };
	CHECK(run_op(g, "onnx::Gather", oob, 2, NULL) == NULL);

	struct ir_tensor *ri[2] = { x, longs(g, 1, &two, shape) };
	struct ir_tensor *r = run_op(g, "onnx::Reshape", ri, 2, NULL);
	CHECK(r && r->rank == 2 && r->dims[0] == 3 && r->dims[1] == 2);
	int64_t bad[2] = { -1, -1 };
	struct ir_tensor *rb[2] = { x, longs(g, 1, &two, bad) };
	CHECK(run_op(g, "onnx::Reshape", rb, 2, NULL) == NULL);

	struct ir_node *n;
	struct ir_tensor *ci[2] = { x, longs(g, 2, (int64_t[]){ 3, 1 }, NULL) };
	ir_node_add_attr(g, (n = ir_node_new(g, NULL, "onnx::Concat", 2, 1)),
			 "axis", IR_ATTR_INT)->u.i = -1;
	struct ir_tensor *out[1] = { NULL };
	const struct ir_type *types[2] = { NULL, NULL };
	struct fold_eval e = { g, n, 13, ci, types, out, 0 };
	CHECK(fold_op_lookup("onnx::Concat", NULL)(&e) == FOLD_EVAL_OK);
	CHECK(out[0] && out[0]->dims[0] == 3 && out[0]->dims[1] == three);
	if (out[0]) /* row 1: x[1][0], x[1][1], c[1][0] = 2, 3, 1 */
		CHECK_INT(fold_get_i(out[0], 3) * 100 + fold_get_i(out[0], 4) * 10
			  + fold_get_i(out[0], 5), 231);
	ir_graph_free(g);
}

/* --- passes --------------------------------------------------------------- */

static void test_passes(void)
{
	const char *text =
		"ir 1.0 onnx\n"
		"opset \"\" 13\n"
		"graph g(%x : Long(2),\n"
		"      %a : Long(2) = {1, 2},\n"
		"      %b : Long(2) = {1, 2},\n"
		"      %r : Long(2) = weight(\"no-such-file\", offset=0, length=16),\n"
		"      %r2 : Long(2) = weight(\"no-such-file\", offset=0, length=16)):\n"
		"  %s : Long(2) = onnx::Add(%a, %b)\n"
		"  %t : Long(2) = onnx::Mul(%s, %s)\n"
		"  %u : Long(2) = onnx::Add(%x, %t)\n"
		"  %v : Long(2) = onnx::Add(%u, %r)\n"
		"  %w : Long(2) = onnx::Add(%v, %r2)\n"
		"  %dead : Long(2) = onnx::Neg(%w)\n"
		"  return (%w)\n";
	struct ir_graph *g = parse(text);
	struct fold_options o;
	struct fold_stats st;
	struct diag d;
	CHECK(g != NULL);
	if (!g)
		return;
	diag_init(&d, "test");
	fold_options_init(&o);
	CHECK_INT(fold_graph(g, &o, &st, &d), 0);
	CHECK_INT(st.folded, 2);
	CHECK_INT(st.dead_nodes, 1);
	CHECK_INT(st.deduped, 1);
	CHECK_INT(count_nodes(g->top), 3);
	CHECK_INT(g->nweights, 2);
	/* (1+1)^2, (2+2)^2 */
	struct ir_value *t = ir_find_value(g, "t");
	CHECK(t && t->weight && t->weight->tensor->data_kind == IR_DATA_INLINE);
	if (t && t->weight) {
		CHECK_INT(fold_get_i(t->weight->tensor, 0), 4);
		CHECK_INT(fold_get_i(t->weight->tensor, 1), 16);
	}
	/* the reference stays one, unread */
	struct ir_value *r = ir_find_value(g, "r");
	CHECK(r && r->weight && r->weight->tensor->data_kind == IR_DATA_REF);
	CHECK_STR(g->top->last->inputs[1]->name, "r");
	CHECK_INT(ir_verify(g, &d), 0);
	ir_graph_free(g);

	/* aten level is refused */
	g = ir_graph_new(IR_LEVEL_ATEN);
	d.quiet = 1;
	CHECK_INT(fold_graph(g, &o, NULL, &d), EXIT_UNSUPPORTED);
	ir_graph_free(g);
}

const struct unit_test unit_tests[] = {
	UNIT(test_table),
	UNIT(test_table_sorted),
	UNIT(test_half_round_trip),
	UNIT(test_int_wrap),
	UNIT(test_int_div_truncates),
	UNIT(test_slice_matches_spec),
	UNIT(test_transpose_index),
	UNIT(test_gather_reshape_concat),
	UNIT(test_passes),
	{ 0 },
};

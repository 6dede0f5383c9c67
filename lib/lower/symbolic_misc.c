/*
 * symbolic_misc.c - symbolics for what scripted control flow and in-place
 * indexing leave in a graph: bool `and`/`or`/`xor` of conditions (folded
 * when constant), torch.tensor(scalar), scatter, index_put and copy_
 * (x[i] = y as the tracer records it: select + copy_; lower.c writes the
 * view back into its base, as torch's remove-inplace-ops pass does).  Same contract as
 * symbolic_fn (lower_int.h).
 */
#include <string.h>

#include "symbolic_common.h"

#define T(i) lw_tensor(c, n, (i))

/* The value of a one-element Bool constant: 0 or 1, -1 when v is not one. */
static int const_bool(const struct ir_value *v)
{
	const struct ir_tensor *t = b_const_of(v);
	if (!t || t->dtype != IR_DTYPE_BOOL || ir_tensor_numel(t) != 1 ||
	    t->bytes.len < 1)
		return -1;
	return t->bytes.data[0] != 0;
}

/* Constants are folded (a condition known at export: lower.c then takes
 * the branch of the If on it, as torch's exporter folds it). */
static int bool_op(struct lower_ctx *c, struct ir_node *n,
		   struct ir_value **out, const char *op, const char *bop)
{
	struct ir_value *a = T(0), *b = T(1);
	if (!a || !b || b_dtype(a) != IR_DTYPE_BOOL ||
	    b_dtype(b) != IR_DTYPE_BOOL)	/* integers, numbers */
		return sym_bitwise(c, n, out, op, bop);
	int x = const_bool(a), y = const_bool(b);
	if (x >= 0 && y >= 0 && b_rank(a) == 0 && b_rank(b) == 0) {
		out[0] = b_const_bool(c, op[0] == 'A' ? x && y
					 : op[0] == 'O' ? x || y : x != y);
		return 0;
	}
	out[0] = b_op2(c, op, a, b);
	return 0;
}

SYM(sym_bool_and) { return bool_op(c, n, out, "And", "BitwiseAnd"); }
SYM(sym_bool_or) { return bool_op(c, n, out, "Or", "BitwiseOr"); }
SYM(sym_bool_xor) { return bool_op(c, n, out, "Xor", "BitwiseXor"); }

/* A 1-d list of numbers that lw_tensor() does not make a tensor (floats,
 * constant or not, item()s): each element a Double [1] (exact for ints
 * and floats alike, cast once after), concatenated; *dt the dtype torch
 * infers from the elements (a float: Float, else ints: Long, else Bool).
 * NULL when it is no such list. */
static struct ir_value *number_list(struct lower_ctx *c, struct ir_node *n,
				    int i, enum ir_dtype *dt, int depth);

/* A list of lists of numbers (torch.tensor([[0, 1], [2, 3]])): each row
 * by number_list, all of one known shape, stacked; *dt Float if any row
 * has a float, else Long if any an int, else Bool.  NULL when it is no
 * such list. */
static struct ir_value *nested_list(struct lower_ctx *c, struct ir_node *p,
				    enum ir_dtype *dt, int depth)
{
	struct ir_value **parts = ir_alloc(c->g, sizeof(*parts) * p->ninputs);
	int anyf = 0, anyi = 0, r = -1;
	int64_t zero = 0;
	if (depth >= 8)
		return NULL;
	for (uint32_t j = 0; j < p->ninputs; j++) {
		enum ir_dtype ed;
		struct ir_value *e = number_list(c, p, (int)j, &ed, depth + 1);
		if (!e || b_rank(e) < 1 || (r >= 0 && b_rank(e) != r))
			return NULL;
		r = b_rank(e);
		for (int d = 0; d < r; d++)
			if (b_dim_size(e, d) < 0 || (j && b_dim_size(e, d) !=
						     b_dim_size(parts[0], d)))
				return NULL;
		anyf |= b_is_float(ed);
		anyi |= ed == IR_DTYPE_INT64;
		parts[j] = e;
	}
	for (uint32_t j = 0; j < p->ninputs; j++)
		parts[j] = b_unsqueeze(c, parts[j], &zero, 1);
	*dt = anyf ? IR_DTYPE_FLOAT : anyi ? IR_DTYPE_INT64 : IR_DTYPE_BOOL;
	return p->ninputs == 1 ? parts[0]
			       : b_concat(c, (int)p->ninputs, parts, 0);
}

static struct ir_value *number_list(struct lower_ctx *c, struct ir_node *n,
				    int i, enum ir_dtype *dt, int depth)
{
	struct ir_node *p = n->inputs[i]->producer;
	if (!p || p->op != OP_prim_ListConstruct || !p->ninputs ||
	    p->ninputs > 4096)
		return NULL;
	if (p->inputs[0]->type->kind == IR_TYPE_LIST)
		return nested_list(c, p, dt, depth);
	struct ir_value **parts = ir_alloc(c->g, sizeof(*parts) * p->ninputs);
	int isf, anyf = 0, anyi = 0;
	for (uint32_t j = 0; j < p->ninputs; j++) {
		const struct ir_type *et = p->inputs[j]->type;
		enum ir_dtype ed;
		if (lw_is_scalar(c, p, (int)j, &isf)) {
			ed = isf ? IR_DTYPE_DOUBLE : IR_DTYPE_INT64;
		} else if (et->kind == IR_TYPE_FLOAT) {
			ed = IR_DTYPE_DOUBLE;
		} else if (et->kind == IR_TYPE_INT) {
			ed = IR_DTYPE_INT64;
		} else if (et->kind == IR_TYPE_BOOL) {
			ed = IR_DTYPE_BOOL;
		} else if (et->kind == IR_TYPE_UNKNOWN ||
			   et->kind == IR_TYPE_TENSOR) {
			/* item() or float() of a tensor (lowered to the
			 * tensor, of one element): its dtype's kind */
			struct ir_value *e = lw_tensor(c, p, (int)j);
			if (!e || b_rank(e) < 0)
				return NULL;
			for (int d = 0; d < b_rank(e); d++)
				if (b_dim_size(e, d) != 1)
					return NULL;
			ed = b_dtype(e);
			if (ed == IR_DTYPE_UNDEFINED)
				return NULL;
		} else {
			return NULL;
		}
		if (b_is_float(ed))
			anyf = 1;
		else if (ed != IR_DTYPE_BOOL)
			anyi = 1;
		if (!(parts[j] = lw_scalar_as(c, p, (int)j, IR_DTYPE_DOUBLE, 1)))
			return NULL;
		if (b_rank(parts[j]) > 1) {
			int64_t one = 1;
			parts[j] = b_op2(c, "Reshape", parts[j],
					 b_const_i64s(c, &one, 1, 1));
		}
	}
	*dt = anyf ? IR_DTYPE_FLOAT : anyi ? IR_DTYPE_INT64 : IR_DTYPE_BOOL;
	if (p->ninputs == 1)
		return parts[0];
	return b_concat(c, (int)p->ninputs, parts, 0);
}

/* aten::tensor(data, dtype, device, requires_grad): a number (or a list
 * of numbers) as a tensor, of dtype or the default for its kind. */
SYM(sym_tensor)
{
	struct ir_value *v = T(0);
	const struct ir_type *t = n->inputs[0]->type;
	enum ir_dtype dt = IR_DTYPE_UNDEFINED;
	int64_t st;

	enum ir_dtype ldt = IR_DTYPE_UNDEFINED;
	if (t->kind == IR_TYPE_LIST && t->nelems)
		t = t->elems[0];
	if (!v)
		v = number_list(c, n, 0, &ldt, 0);
	if (!v)
		return lw_decline(c, "data is not a number or a list of them");
	if (b_is_seq(v)) {
		/* a list built at run time (appends in a loop): a sequence
		 * of numbers (0-d tensors), stacked */
		if (v->type->elems[0]->rank != 0 || c->opset < 11)
			return lw_decline(c, "data is a sequence of tensors "
					  "not known to be numbers");
		ldt = b_is_float(v->type->elems[0]->dtype) ? IR_DTYPE_FLOAT
		      : v->type->elems[0]->dtype == IR_DTYPE_BOOL
		      ? IR_DTYPE_BOOL : IR_DTYPE_INT64;
		struct ir_node *cn = b_node(c, "ConcatFromSequence", 1, &v, 1);
		b_attr_i(c, cn, "axis", 0);
		b_attr_i(c, cn, "new_axis", 1);
		v = b_done(c, cn);
	}
	if (n->ninputs > 1 && lw_int(c, n, 1, &st))
		dt = lw_torch_dtype(st);
	else if (ldt != IR_DTYPE_UNDEFINED)
		dt = ldt;
	else if (t->kind == IR_TYPE_FLOAT)
		dt = IR_DTYPE_FLOAT;
	else if (t->kind == IR_TYPE_INT)
		dt = IR_DTYPE_INT64;
	else if (t->kind == IR_TYPE_BOOL)
		dt = IR_DTYPE_BOOL;
	out[0] = dt == IR_DTYPE_UNDEFINED ? v : b_cast(c, v, dt);
	return 0;
}

/* aten::scatter(self, dim, index, src | value[, reduce]). */
SYM(sym_scatter)
{
	struct ir_value *x = T(0), *idx = T(2), *src;
	int64_t dim;

	if (!x || !idx || !lw_int(c, n, 1, &dim))
		return lw_decline(c, "dim is not constant");
	if (n->ninputs > 4 && !lw_is_none(c, n, 4))
		return lw_decline(c, "scatter with reduce");
	if (n->inputs[3]->type->kind == IR_TYPE_TENSOR) {
		src = b_cast(c, T(3), b_dtype(x));
	} else {
		src = lw_scalar_as(c, n, 3, b_dtype(x), 0);
		if (!src)
			return lw_decline(c, "value is not a number");
		src = b_op2(c, "Expand", src, b_op1(c, "Shape", idx));
	}
	struct ir_value *in[3] = { x, idx, src };
	struct ir_node *s = b_node(c, c->opset >= 11 ? "ScatterElements"
				   : "Scatter", 3, in, 1);
	b_attr_i(c, s, "axis", dim);
	out[0] = b_done(c, s);
	return 0;
}

/* aten::copy_(self, src, non_blocking): src broadcast to self's shape and
 * dtype; lower.c makes it in-place (later uses of self read it, and a
 * slice/select view writes back into its base). */
SYM(sym_copy_)
{
	struct ir_value *dst = lw_in(c, n, 0), *src = T(1);

	if (!dst || !src || dst->type->kind != IR_TYPE_TENSOR)
		return lw_decline(c, "operands are not tensors");
	out[0] = b_op2(c, "Expand", b_cast(c, src, b_dtype(dst)),
		       b_op1(c, "Shape", dst));
	return 0;
}

/*
 * symbolic_opset9.c - symbolic functions of opset 9 (torch's
 * symbolic_opset9.py): the base table, which later opsets override entry
 * by entry.  Most functions serve every opset from 9 up: the builders
 * (build.c) pick the form of Unsqueeze, Slice, Split, Clip... each opset
 * wants.  Each reads constant arguments, declines with a reason when they
 * are not constant where ONNX needs constants, and returns one value per
 * aten output.
 */
#include <math.h>
#include <string.h>

#include "lower_int.h"
#include "symbolic_common.h"

#define IN(i) lw_in(c, n, (i))
#define T(i) lw_tensor(c, n, (i))

static int64_t norm_dim(int64_t d, int rank)
{
	return d < 0 && rank >= 0 ? d + rank : d;
}

/* --- elementwise and scalar type analysis -------------------------------- */

/* torch's implicit promotion: the dtype a binary op computes in. */
enum ir_dtype sym_result_type(struct lower_ctx *c, struct ir_node *n,
			      int ia, int ib)
{
	int fa = 0, fb = 0;
	int sa = lw_is_scalar(c, n, ia, &fa), sb = lw_is_scalar(c, n, ib, &fb);
	struct ir_value *a = IN(ia), *b = IN(ib);
	enum ir_dtype da = b_dtype(a), db = b_dtype(b);
	/* 0-d tensors rank with python scalars (torch's dim-0 rule) */
	int za = sa || b_rank(a) == 0, zb = sb || b_rank(b) == 0;
	if (za == zb) {
		if (sa && sb)
			return fa || fb ? IR_DTYPE_FLOAT : IR_DTYPE_INT64;
		return lw_promote(da, db);
	}
	enum ir_dtype dt = za ? db : da, ds = za ? da : db;
	int fs = za ? (sa ? fa : b_is_float(ds)) : (sb ? fb : b_is_float(ds));
	if (dt == IR_DTYPE_UNDEFINED)
		return IR_DTYPE_UNDEFINED;
	if (fs && !b_is_float(dt))
		return (za ? sa : sb) ? IR_DTYPE_FLOAT : ds;
	if (!fs && dt == IR_DTYPE_BOOL && ds != IR_DTYPE_BOOL)
		return (za ? sa : sb) ? IR_DTYPE_INT64 : ds;
	return dt;
}

/* The dtype Add, Sub, Mul and Pow compute dt in: uint8, int8 and int16
 * have no kernels there before opset 14 (ONNX added them to Add, Sub, Mul
 * and Div at 14; Pow never took them), so those are computed in Long and
 * cast back, as torch's exporter does (scalar_type_analysis.cpp,
 * LowPrecisionCastForStandardOps). */
static enum ir_dtype arith_dtype(const struct lower_ctx *c, enum ir_dtype dt,
				 int always)
{
	if ((always || c->opset < 14) &&
	    (dt == IR_DTYPE_UINT8 || dt == IR_DTYPE_INT8 || dt == IR_DTYPE_INT16))
		return IR_DTYPE_INT64;
	return dt;
}

/* Input i as a tensor of dtype dt (scalars as constants of dt). */
struct ir_value *sym_operand(struct lower_ctx *c, struct ir_node *n, int i,
			     enum ir_dtype dt)
{
	struct ir_value *v = lw_scalar_as(c, n, i, dt, 0);
	if (v && dt != IR_DTYPE_UNDEFINED)
		v = b_cast(c, v, dt);
	return v;
}

static int binary(struct lower_ctx *c, struct ir_node *n,
		  struct ir_value **out, const char *op)
{
	enum ir_dtype dt = sym_result_type(c, n, 0, 1);
	enum ir_dtype work = arith_dtype(c, dt, 0);
	struct ir_value *a = sym_operand(c, n, 0, work);
	struct ir_value *b = sym_operand(c, n, 1, work);
	if (!a || !b)
		return lw_decline(c, "operands are not tensors or numbers");
	double alpha = 1;
	if (n->ninputs > 2 && !lw_is_none(c, n, 2) &&
	    (!strcmp(op, "Add") || !strcmp(op, "Sub"))) {
		if (!lw_float(c, n, 2, &alpha))
			return lw_decline(c, "alpha is not constant");
		if (alpha != 1)
			b = b_op2(c, "Mul", b, b_const_scalar(c, alpha,
					b_dtype(b), 0));
	}
	out[0] = b_op2(c, op, a, b);
	if (work != dt)
		out[0] = b_cast(c, out[0], dt);
	return 0;
}

static int sym_add(struct lower_ctx *c, struct ir_node *n,
		   struct ir_value **out)
{
	/* list + list (a list lowered to a 1-d Long tensor, as a slice of
	 * size() is, has a tensor type here: the result's type says) */
	if (n->ninputs == 2 && (n->outputs[0]->type->kind == IR_TYPE_LIST ||
				(n->inputs[0]->type->kind == IR_TYPE_LIST &&
				 n->inputs[1]->type->kind == IR_TYPE_LIST))) {
		/* list + list: known element-wise */
		struct ir_value *v[256];
		int a = lw_list(c, n, 0, v, 256), b = -1;
		if (a >= 0)
			b = lw_list(c, n, 1, v + a, 256 - a);
		if (a < 0 || b < 0) {
			/* int lists held as 1-d Long tensors: joined */
			struct ir_value *p[2] = { T(0), T(1) };
			if (!p[0] || !p[1] || b_rank(p[0]) != 1 || b_rank(p[1]) != 1 ||
			    b_dtype(p[0]) != IR_DTYPE_INT64 || b_dtype(p[1]) != IR_DTYPE_INT64)
				return lw_decline(c, "the lists are not known "
						  "element-wise");
			out[0] = b_concat(c, 2, p, 0);
			return 0;
		}
		lw_set_list(c, n->outputs[0], v, a + b);
		out[0] = NULL;
		return 0;
	}
	return binary(c, n, out, "Add");
}

/* list * n (or n * list: aten::mul.left_t / right_): the list n times
 * (none for n <= 0), known element-wise or as a 1-d Long tensor (Tile);
 * not arithmetic on the list's values */
static int list_repeat(struct lower_ctx *c, struct ir_node *n,
		       struct ir_value **out)
{
	/* the list: a LIST, or (lowered already) a 1-d tensor */
	int li = n->inputs[0]->type->kind == IR_TYPE_LIST ? 0
		 : n->inputs[1]->type->kind == IR_TYPE_LIST ? 1
		 : b_rank(IN(0)) == 1 ? 0 : 1, k;
	struct ir_value *v[256], *rv[256];
	int64_t times;
	if (!lw_int(c, n, 1 - li, &times))
		return lw_decline(c, "a list times a count that is not constant");
	if (times < 0)
		times = 0;
	if ((k = lw_list(c, n, li, v, 256)) >= 0) {
		if (k == 0)
			times = 0;
		else if (times > 256 / k)
			return lw_decline(c, "a repeated list of more than 256 entries");
		for (int64_t t = 0; t < times; t++)
			memcpy(rv + t * k, v, sizeof(*v) * (size_t)k);
		lw_set_list(c, n->outputs[0], rv, (int)(k * times));
		out[0] = NULL;
		return 0;
	}
	struct ir_value *l = T(li);
	if (!l || b_rank(l) != 1)
		return lw_decline(c, "the list is not known element-wise");
	out[0] = b_op2(c, "Tile", l, b_const_i64s(c, &times, 1, 1));
	return 0;
}

static int sym_sub(struct lower_ctx *c, struct ir_node *n,
		   struct ir_value **out)
{
	return binary(c, n, out, "Sub");
}

static int sym_mul(struct lower_ctx *c, struct ir_node *n,
		   struct ir_value **out)
{
	if (n->ninputs == 2 && (n->inputs[0]->type->kind == IR_TYPE_LIST ||
				n->inputs[1]->type->kind == IR_TYPE_LIST ||
				n->outputs[0]->type->kind == IR_TYPE_LIST))
		return list_repeat(c, n, out);
	if (b_dtype(IN(0)) == IR_DTYPE_BOOL && b_dtype(IN(1)) == IR_DTYPE_BOOL) {
		out[0] = b_op2(c, "And", T(0), T(1));
		return 0;
	}
	return binary(c, n, out, "Mul");
}

static int sym_rsub(struct lower_ctx *c, struct ir_node *n,
		    struct ir_value **out)
{
	enum ir_dtype dt = sym_result_type(c, n, 0, 1);
	enum ir_dtype work = arith_dtype(c, dt, 0);
	struct ir_value *a = sym_operand(c, n, 0, work);
	struct ir_value *b = sym_operand(c, n, 1, work);
	double alpha = 1;
	if (!a || !b)
		return lw_decline(c, "operands are not tensors or numbers");
	if (n->ninputs > 2 && !lw_float(c, n, 2, &alpha))
		return lw_decline(c, "alpha is not constant");
	if (alpha != 1)
		a = b_op2(c, "Mul", a, b_const_scalar(c, alpha, b_dtype(a), 0));
	out[0] = b_op2(c, "Sub", b, a);
	if (work != dt)
		out[0] = b_cast(c, out[0], dt);
	return 0;
}

static int sym_div(struct lower_ctx *c, struct ir_node *n,
		   struct ir_value **out)
{
	enum ir_dtype dt = sym_result_type(c, n, 0, 1);
	const char *mode = n->ninputs > 2 ? lw_str(c, n, 2) : NULL;
	int isint = dt != IR_DTYPE_UNDEFINED && !b_is_float(dt);
	enum ir_dtype work = isint ? IR_DTYPE_FLOAT : dt;
	if (isint && mode && !strcmp(mode, "trunc"))
		work = dt; /* ONNX integer Div truncates */
	struct ir_value *a = sym_operand(c, n, 0, work);
	struct ir_value *b = sym_operand(c, n, 1, work);
	if (!a || !b)
		return lw_decline(c, "operands are not tensors or numbers");
	struct ir_value *q = b_op2(c, "Div", a, b);
	if (mode && !strcmp(mode, "floor")) {
		q = b_op1(c, "Floor", q);
		if (isint)
			q = b_cast(c, q, dt);
	} else if (mode && !strcmp(mode, "trunc") && !isint) {
		q = b_op2(c, "Mul", b_op1(c, "Sign", q),
			  b_op1(c, "Floor", b_op1(c, "Abs", q)));
	}
	out[0] = q;
	return 0;
}

static int sym_floor_divide(struct lower_ctx *c, struct ir_node *n,
			    struct ir_value **out)
{
	enum ir_dtype dt = sym_result_type(c, n, 0, 1);
	struct ir_value *a = sym_operand(c, n, 0, IR_DTYPE_FLOAT);
	struct ir_value *b = sym_operand(c, n, 1, IR_DTYPE_FLOAT);
	if (!a || !b)
		return lw_decline(c, "operands are not tensors or numbers");
	out[0] = b_cast(c, b_op1(c, "Floor", b_op2(c, "Div", a, b)),
			dt ? dt : IR_DTYPE_FLOAT);
	return 0;
}

static int sym_pow(struct lower_ctx *c, struct ir_node *n,
		   struct ir_value **out)
{
	enum ir_dtype dt = sym_result_type(c, n, 0, 1);
	enum ir_dtype work = b_is_float(dt) || c->opset >= 12
				     ? arith_dtype(c, dt, 1) : IR_DTYPE_FLOAT;
	struct ir_value *a = sym_operand(c, n, 0, work);
	struct ir_value *b = sym_operand(c, n, 1, work);
	if (!a || !b)
		return lw_decline(c, "operands are not tensors or numbers");
	out[0] = b_cast(c, b_op2(c, "Pow", a, b), dt ? dt : work);
	return 0;
}

static int compare(struct lower_ctx *c, struct ir_node *n,
		   struct ir_value **out, const char *op, int negate)
{
	enum ir_dtype dt = sym_result_type(c, n, 0, 1);
	struct ir_value *a = sym_operand(c, n, 0, dt);
	struct ir_value *b = sym_operand(c, n, 1, dt);
	if (!a || !b)
		return lw_decline(c, "operands are not tensors or numbers");
	if (dt == IR_DTYPE_BOOL && strcmp(op, "Equal")) {
		a = b_cast(c, a, IR_DTYPE_INT32);
		b = b_cast(c, b, IR_DTYPE_INT32);
	}
	struct ir_value *r;
	enum ir_dtype cd = dt == IR_DTYPE_BOOL ? IR_DTYPE_INT32 : dt;
	if (negate && c->opset >= 12 && strcmp(op, "Equal") &&
	    (cd == IR_DTYPE_FLOAT || cd == IR_DTYPE_DOUBLE ||
	     cd == IR_DTYPE_INT32 || cd == IR_DTYPE_INT64)) {
		/* le, ge: one node from opset 12, and right for NaN */
		op = !strcmp(op, "Greater") ? "LessOrEqual" : "GreaterOrEqual";
		negate = 0;
	}
	if (!strcmp(op, "Equal") && c->opset < 11 && b_is_float(dt)) {
		/* Equal takes no floats before 11: neither less nor greater */
		r = b_op2(c, "Or", b_op2(c, "Less", a, b),
			  b_op2(c, "Greater", a, b));
		negate = !negate;
	} else {
		r = b_op2(c, op, a, b);
	}
	out[0] = negate ? b_op1(c, "Not", r) : r;
	return 0;
}

static int sym_eq(struct lower_ctx *c, struct ir_node *n, struct ir_value **out)
{ return compare(c, n, out, "Equal", 0); }
static int sym_ne(struct lower_ctx *c, struct ir_node *n, struct ir_value **out)
{ return compare(c, n, out, "Equal", 1); }
static int sym_lt(struct lower_ctx *c, struct ir_node *n, struct ir_value **out)
{ return compare(c, n, out, "Less", 0); }
static int sym_gt(struct lower_ctx *c, struct ir_node *n, struct ir_value **out)
{ return compare(c, n, out, "Greater", 0); }
static int sym_le(struct lower_ctx *c, struct ir_node *n, struct ir_value **out)
{ return compare(c, n, out, "Greater", 1); }
static int sym_ge(struct lower_ctx *c, struct ir_node *n, struct ir_value **out)
{ return compare(c, n, out, "Less", 1); }

static int logical(struct lower_ctx *c, struct ir_node *n,
		   struct ir_value **out, const char *op)
{
	struct ir_value *a = T(0), *b = T(1);
	if (!a || !b)
		return lw_decline(c, "operands are not tensors");
	out[0] = b_op2(c, op, b_cast(c, a, IR_DTYPE_BOOL),
		       b_cast(c, b, IR_DTYPE_BOOL));
	return 0;
}

static int sym_and(struct lower_ctx *c, struct ir_node *n, struct ir_value **out)
{ return logical(c, n, out, "And"); }
static int sym_or(struct lower_ctx *c, struct ir_node *n, struct ir_value **out)
{ return logical(c, n, out, "Or"); }

static int minmax2(struct lower_ctx *c, struct ir_node *n,
		   struct ir_value **out, const char *op)
{
	enum ir_dtype dt = sym_result_type(c, n, 0, 1);
	out[0] = b_op2(c, op, sym_operand(c, n, 0, dt), sym_operand(c, n, 1, dt));
	return 0;
}

static int sym_maximum(struct lower_ctx *c, struct ir_node *n,
		       struct ir_value **out)
{ return minmax2(c, n, out, "Max"); }
static int sym_minimum(struct lower_ctx *c, struct ir_node *n,
		       struct ir_value **out)
{ return minmax2(c, n, out, "Min"); }

static int unary(struct lower_ctx *c, struct ir_node *n,
		 struct ir_value **out, const char *op)
{
	struct ir_value *x = T(0);
	if (!x)
		return lw_decline(c, "the input is not a tensor");
	enum ir_dtype dt = b_dtype(x);
	if (dt != IR_DTYPE_UNDEFINED && !b_is_float(dt)) {
		/* torch computes these in the default float type for an
		 * integer input (math.sqrt(d)); floor/ceil of an int is
		 * the int */
		if (strstr("|Sigmoid|Tanh|Exp|Log|Sqrt|Erf|Sin|Cos|Reciprocal|",
			   ir_strfmt(c->g, "|%s|", op)))
			x = b_cast(c, x, IR_DTYPE_FLOAT);
		else if (!strcmp(op, "Floor") || !strcmp(op, "Ceil")) {
			out[0] = x;
			return 0;
		} else if (!strcmp(op, "Relu") && c->opset < 14) {
			/* Relu takes integers from opset 14: before, in
			 * Float and back (torch's op_with_optional_float_cast) */
			out[0] = b_cast(c, b_op1(c, op, b_cast(c, x,
					IR_DTYPE_FLOAT)), dt);
			return 0;
		}
	}
	out[0] = b_op1(c, op, x);
	return 0;
}

#define UNARY(fn, op) \
	static int fn(struct lower_ctx *c, struct ir_node *n, \
		      struct ir_value **out) \
	{ return unary(c, n, out, op); }
UNARY(sym_relu, "Relu")
UNARY(sym_sigmoid, "Sigmoid")
UNARY(sym_tanh, "Tanh")
UNARY(sym_exp, "Exp")
UNARY(sym_log, "Log")
UNARY(sym_neg, "Neg")
UNARY(sym_abs, "Abs")
UNARY(sym_sqrt, "Sqrt")
UNARY(sym_erf, "Erf")
UNARY(sym_sin, "Sin")
UNARY(sym_cos, "Cos")
UNARY(sym_floor, "Floor")
UNARY(sym_ceil, "Ceil")
UNARY(sym_reciprocal, "Reciprocal")
UNARY(sym_sign, "Sign")

/* logical_not: x == 0 (a NaN is nonzero, so false, as torch); Not of a
 * bool; Equal takes floats from opset 11, a Cast to bool before */
static SYM(sym_logical_not)
{
	struct ir_value *x = T(0);
	if (!x)
		return lw_decline(c, "the input is not a tensor");
	enum ir_dtype dt = b_dtype(x);
	if (dt == IR_DTYPE_BOOL || dt == IR_DTYPE_UNDEFINED ||
	    (c->opset < 11 && dt != IR_DTYPE_INT32 && dt != IR_DTYPE_INT64))
		out[0] = b_op1(c, "Not", b_cast(c, x, IR_DTYPE_BOOL));
	else
		out[0] = b_op2(c, "Equal", x, b_const_scalar(c, 0, dt, 0));
	return 0;
}

/* bitwise_not: Not of a bool; ~x = -1 - x of a signed integer (exact,
 * INT64_MIN included), 255 - x of a uint8 */
static SYM(sym_bitwise_not)
{
	struct ir_value *x = T(0);
	if (!x)
		return lw_decline(c, "the input is not a tensor");
	enum ir_dtype dt = b_dtype(x);
	if (dt == IR_DTYPE_BOOL) {
		out[0] = b_op1(c, "Not", x);
		return 0;
	}
	if (dt != IR_DTYPE_UINT8 && dt != IR_DTYPE_INT8 &&
	    dt != IR_DTYPE_INT16 && dt != IR_DTYPE_INT32 &&
	    dt != IR_DTYPE_INT64)
		return lw_decline(c, "bitwise_not of a float or unknown dtype");
	/* Sub takes 8- and 16-bit integers from opset 14: in int32 before */
	enum ir_dtype w = dt != IR_DTYPE_INT64 && c->opset < 14 ?
			  IR_DTYPE_INT32 : dt;
	out[0] = b_cast(c, b_op2(c, "Sub", b_const_scalar(c,
			dt == IR_DTYPE_UINT8 ? 255 : -1, w, 0),
			b_cast(c, x, w)), dt);
	return 0;
}

static int sym_identity(struct lower_ctx *c, struct ir_node *n,
			struct ir_value **out)
{
	out[0] = T(0);
	return out[0] ? 0 : lw_decline(c, "the input is not a tensor");
}

static int sym_rsqrt(struct lower_ctx *c, struct ir_node *n,
		     struct ir_value **out)
{
	struct ir_value *x = T(0);
	if (b_dtype(x) != IR_DTYPE_UNDEFINED && !b_is_float(b_dtype(x)))
		x = b_cast(c, x, IR_DTYPE_FLOAT);
	out[0] = b_op1(c, "Reciprocal", b_op1(c, "Sqrt", x));
	return 0;
}

static int sym_log_sigmoid(struct lower_ctx *c, struct ir_node *n,
			   struct ir_value **out)
{
	out[0] = b_op1(c, "Log", b_op1(c, "Sigmoid", T(0)));
	return 0;
}

static int sym_silu(struct lower_ctx *c, struct ir_node *n,
		    struct ir_value **out)
{
	struct ir_value *x = T(0);
	out[0] = b_op2(c, "Mul", x, b_op1(c, "Sigmoid", x));
	return 0;
}

static int sym_mish(struct lower_ctx *c, struct ir_node *n,
		    struct ir_value **out)
{
	struct ir_value *x = T(0);
	/* opset 18: one Mish node, x tanh(softplus(x)) as torch's */
	if (c->opset >= 18)
		out[0] = b_op1(c, "Mish", x);
	else
		out[0] = b_op2(c, "Mul", x, b_op1(c, "Tanh",
						  b_op1(c, "Softplus", x)));
	return 0;
}

static int sym_hardtanh(struct lower_ctx *c, struct ir_node *n,
			struct ir_value **out)
{
	double lo = -1, hi = 1;
	if (n->ninputs >= 3 && (!lw_float(c, n, 1, &lo) ||
				!lw_float(c, n, 2, &hi)))
		return lw_decline(c, "bounds are not constant");
	out[0] = b_clip(c, T(0), lo, hi);
	return 0;
}

static int sym_relu6(struct lower_ctx *c, struct ir_node *n,
		     struct ir_value **out)
{
	out[0] = b_clip(c, T(0), 0, 6);
	return 0;
}

/* One bound of clamp as Max (lo) or Min (hi) of x, both already of the
 * result dtype dt: a constant number, or a tensor (aten::clamp.Tensor,
 * broadcast as Max/Min do).  Max/Min take no integers before 12: those
 * are computed in Float and cast back, as torch's
 * op_with_optional_float_cast does. */
static struct ir_value *clamp_bound(struct lower_ctx *c, struct ir_node *n,
				    int i, const char *op, struct ir_value *x,
				    enum ir_dtype dt)
{
	double v;
	struct ir_value *b;
	if (lw_float(c, n, i, &v))
		b = b_const_scalar(c, v, dt, 0);
	else
		b = b_cast(c, T(i), dt);
	if (!b_is_float(dt) && c->opset < 12)
		return b_cast(c, b_op2(c, op, b_cast(c, x, IR_DTYPE_FLOAT),
				       b_cast(c, b, IR_DTYPE_FLOAT)), dt);
	return b_op2(c, op, x, b);
}

/* clamp(self, min, max), clamp_min(self, min), clamp_max(self, max):
 * constant bounds on a float tensor are one Clip; a tensor bound is Max /
 * Min with broadcasting, in torch's result dtype of self and the tensor
 * bounds (clamp(x, lo, hi) is min(max(x, lo), hi): hi wins when
 * lo > hi, as in torch). */
static int clamp_any(struct lower_ctx *c, struct ir_node *n,
		     struct ir_value **out, int ilo, int ihi)
{
	double lo = NAN, hi = NAN;
	int has_lo = ilo > 0 && ilo < (int)n->ninputs && !lw_is_none(c, n, ilo);
	int has_hi = ihi > 0 && ihi < (int)n->ninputs && !lw_is_none(c, n, ihi);
	int clo = has_lo && lw_float(c, n, ilo, &lo);
	int chi = has_hi && lw_float(c, n, ihi, &hi);
	struct ir_value *x = T(0);
	if (!x)
		return lw_decline(c, "the input is not a tensor");
	enum ir_dtype dt = b_dtype(x);
	if ((has_lo && !clo) || (has_hi && !chi)) {
		struct ir_value *t;
		if (has_lo && !clo) {
			if (!(t = T(ilo)))
				return lw_decline(c, "min is not a number or tensor");
			dt = lw_promote(dt, b_dtype(t));
		}
		if (has_hi && !chi) {
			if (!(t = T(ihi)))
				return lw_decline(c, "max is not a number or tensor");
			dt = lw_promote(dt, b_dtype(t));
		}
		if (dt == IR_DTYPE_UNDEFINED)
			return lw_decline(c, "dtype of a bound unknown");
		x = b_cast(c, x, dt);
	} else if (b_is_float(dt)) {
		out[0] = b_clip(c, x, lo, hi);
		return 0;
	}
	if (dt == IR_DTYPE_UNDEFINED)
		return lw_decline(c, "input dtype unknown");
	if (has_lo)
		x = clamp_bound(c, n, ilo, "Max", x, dt);
	if (has_hi)
		x = clamp_bound(c, n, ihi, "Min", x, dt);
	out[0] = x;
	return 0;
}

static int sym_clamp(struct lower_ctx *c, struct ir_node *n,
		     struct ir_value **out)
{
	return clamp_any(c, n, out, 1, 2);
}

static int sym_clamp_min(struct lower_ctx *c, struct ir_node *n,
			 struct ir_value **out)
{
	return clamp_any(c, n, out, 1, -1);
}

static int sym_clamp_max(struct lower_ctx *c, struct ir_node *n,
			 struct ir_value **out)
{
	return clamp_any(c, n, out, -1, 1);
}

/* aten::__range_length(lo, hi, step): the trip count of range(lo, hi,
 * step) (a loop over a dynamic size): ceil((hi - lo) / step) as torch's
 * symbolic, and 0 for an empty range (Relu), which torch's leaves
 * negative. */
static int sym_range_length(struct lower_ctx *c, struct ir_node *n,
			    struct ir_value **out)
{
	int64_t lo, hi, st;
	if (lw_int(c, n, 0, &lo) && lw_int(c, n, 1, &hi) &&
	    lw_int(c, n, 2, &st) && st != 0) {
		int64_t d = hi - lo, q = d / st;
		if (q * st != d && (d < 0) == (st < 0))
			q++;
		out[0] = b_const_i64(c, q > 0 ? q : 0);
		return 0;
	}
	struct ir_value *a = lw_scalar_as(c, n, 0, IR_DTYPE_DOUBLE, 0);
	struct ir_value *b = lw_scalar_as(c, n, 1, IR_DTYPE_DOUBLE, 0);
	struct ir_value *s = lw_scalar_as(c, n, 2, IR_DTYPE_DOUBLE, 0);
	if (!a || !b || !s)
		return lw_decline(c, "bounds or step are not numbers");
	struct ir_value *q = b_op1(c, "Ceil", b_op2(c, "Div",
					b_op2(c, "Sub", b, a), s));
	out[0] = b_cast(c, b_op1(c, "Relu", q), IR_DTYPE_INT64);
	return 0;
}

/* aten::__derive_index(index, start, step): start + index * step. */
static int sym_derive_index(struct lower_ctx *c, struct ir_node *n,
			    struct ir_value **out)
{
	struct ir_value *i = lw_scalar_as(c, n, 0, IR_DTYPE_INT64, 0);
	struct ir_value *a = lw_scalar_as(c, n, 1, IR_DTYPE_INT64, 0);
	struct ir_value *s = lw_scalar_as(c, n, 2, IR_DTYPE_INT64, 0);
	if (!i || !a || !s)
		return lw_decline(c, "operands are not numbers");
	out[0] = b_op2(c, "Add", a, b_op2(c, "Mul", i, s));
	return 0;
}

static int sym_leaky_relu(struct lower_ctx *c, struct ir_node *n,
			  struct ir_value **out)
{
	double a = 0.01;
	if (n->ninputs > 1 && !lw_float(c, n, 1, &a))
		return lw_decline(c, "negative_slope is not constant");
	struct ir_node *nd = b_node(c, "LeakyRelu", 1,
				    (struct ir_value *[]){ T(0) }, 1);
	b_attr_f(c, nd, "alpha", a);
	out[0] = b_done(c, nd);
	return 0;
}

static int sym_elu(struct lower_ctx *c, struct ir_node *n,
		   struct ir_value **out)
{
	double a = 1, scale = 1, iscale = 1;
	if (n->ninputs > 3 && (!lw_float(c, n, 1, &a) ||
			       !lw_float(c, n, 2, &scale) ||
			       !lw_float(c, n, 3, &iscale)))
		return lw_decline(c, "parameters are not constant");
	if (scale != 1 || iscale != 1)
		return lw_decline(c, "scale and input_scale other than 1");
	struct ir_node *nd = b_node(c, "Elu", 1,
				    (struct ir_value *[]){ T(0) }, 1);
	b_attr_f(c, nd, "alpha", a);
	out[0] = b_done(c, nd);
	return 0;
}

static int sym_softplus(struct lower_ctx *c, struct ir_node *n,
			struct ir_value **out)
{
	double beta = 1;
	if (n->ninputs > 1 && !lw_float(c, n, 1, &beta))
		return lw_decline(c, "beta is not constant");
	struct ir_value *x = T(0);
	if (beta != 1) {
		struct ir_value *bv = b_const_scalar(c, beta, b_dtype(x), 0);
		out[0] = b_op2(c, "Div", b_op1(c, "Softplus",
				b_op2(c, "Mul", x, bv)), bv);
	} else {
		out[0] = b_op1(c, "Softplus", x);
	}
	return 0;
}

static int sym_gelu(struct lower_ctx *c, struct ir_node *n,
		    struct ir_value **out)
{
	const char *mode = n->ninputs > 1 ? lw_str(c, n, 1) : "none";
	struct ir_value *x = T(0);
	enum ir_dtype dt = b_dtype(x);
	/* opset 20: one Gelu node; its two approximations are torch's */
	if (c->opset >= 20 && mode && (!strcmp(mode, "none") ||
				       !strcmp(mode, "tanh"))) {
		struct ir_node *g = b_node(c, "Gelu", 1, &x, 1);
		if (!strcmp(mode, "tanh"))
			b_attr_s(c, g, "approximate", "tanh");
		out[0] = b_done(c, g);
		return 0;
	}
	if (mode && !strcmp(mode, "tanh")) {
		/* 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) */
		struct ir_value *x3 = b_op2(c, "Mul", x, b_op2(c, "Mul", x, x));
		struct ir_value *in = b_op2(c, "Add", x, b_op2(c, "Mul", x3,
				b_const_scalar(c, 0.044715, dt, 0)));
		in = b_op2(c, "Mul", in, b_const_scalar(c, sqrt(2 / M_PI), dt, 0));
		struct ir_value *t = b_op2(c, "Add", b_op1(c, "Tanh", in),
					   b_const_scalar(c, 1, dt, 0));
		out[0] = b_op2(c, "Mul", b_op2(c, "Mul", x, t),
			       b_const_scalar(c, 0.5, dt, 0));
		return 0;
	}
	if (!mode || strcmp(mode, "none"))
		return lw_decline(c, "approximate is not 'none' or 'tanh'");
	struct ir_value *e = b_op1(c, "Erf", b_op2(c, "Div", x,
				   b_const_scalar(c, M_SQRT2, dt, 0)));
	e = b_op2(c, "Add", e, b_const_scalar(c, 1, dt, 0));
	out[0] = b_op2(c, "Mul", b_op2(c, "Mul", x, e),
		       b_const_scalar(c, 0.5, dt, 0));
	return 0;
}

static int sym_hardsigmoid(struct lower_ctx *c, struct ir_node *n,
			   struct ir_value **out)
{
	struct ir_node *nd = b_node(c, "HardSigmoid", 1,
				    (struct ir_value *[]){ T(0) }, 1);
	b_attr_f(c, nd, "alpha", 1.0 / 6);
	b_attr_f(c, nd, "beta", 0.5);
	out[0] = b_done(c, nd);
	return 0;
}

static int sym_hardswish(struct lower_ctx *c, struct ir_node *n,
			 struct ir_value **out)
{
	struct ir_value *x = T(0);
	struct ir_node *nd = b_node(c, "HardSigmoid", 1, &x, 1);
	b_attr_f(c, nd, "alpha", 1.0 / 6);
	b_attr_f(c, nd, "beta", 0.5);
	out[0] = b_op2(c, "Mul", x, b_done(c, nd));
	return 0;
}

static int softmax(struct lower_ctx *c, struct ir_node *n,
		   struct ir_value **out, const char *op)
{
	int64_t dim;
	struct ir_value *x = T(0);
	int r = b_rank(x);
	if (!lw_int(c, n, 1, &dim))
		return lw_decline(c, "dim is not constant");
	if (n->ninputs > 2 && !lw_is_none(c, n, 2)) {
		int64_t st;
		if (lw_int(c, n, 2, &st))
			x = b_cast(c, x, lw_torch_dtype(st));
	}
	if (r == 0 && (dim == 0 || dim == -1)) {
		/* a 0-d: over axis 0 of it as a [1], back to 0-d */
		static const int64_t zero = 0;
		struct ir_node *s = b_node(c, op, 1, (struct ir_value *[]){
			b_unsqueeze(c, x, &zero, 1) }, 1);
		b_attr_i(c, s, "axis", 0);
		out[0] = b_squeeze(c, b_done(c, s), &zero, 1);
		return 0;
	}
	if (r < 0 && c->opset < 13 && dim != -1)
		return lw_decline(c, "rank unknown below opset 13");
	if (dim == -1 && r < 0) {
		struct ir_node *s = b_node(c, op, 1, &x, 1);
		b_attr_i(c, s, "axis", -1);
		out[0] = b_done(c, s);
		return 0;
	}
	dim = norm_dim(dim, r);
	if (dim < 0 || dim >= r || r > 64)
		return lw_decline(c, "dim out of range");
	if (c->opset < 13 && dim != r - 1) {
		/* the old Softmax flattens from axis: move dim last */
		int64_t perm[64];
		if (r > 64)
			return lw_decline(c, "rank too large");
		for (int i = 0; i < r; i++)
			perm[i] = i;
		perm[dim] = r - 1;
		perm[r - 1] = dim;
		struct ir_node *t = b_node(c, "Transpose", 1, &x, 1);
		b_attr_ints(c, t, "perm", perm, r);
		struct ir_node *s = b_node(c, op, 1,
			(struct ir_value *[]){ b_done(c, t) }, 1);
		b_attr_i(c, s, "axis", r - 1);
		struct ir_value *y = b_done(c, s);
		t = b_node(c, "Transpose", 1, &y, 1);
		b_attr_ints(c, t, "perm", perm, r);
		out[0] = b_done(c, t);
		return 0;
	}
	struct ir_node *s = b_node(c, op, 1, &x, 1);
	b_attr_i(c, s, "axis", dim);
	out[0] = b_done(c, s);
	return 0;
}

static int sym_softmax(struct lower_ctx *c, struct ir_node *n,
		       struct ir_value **out)
{ return softmax(c, n, out, "Softmax"); }
static int sym_log_softmax(struct lower_ctx *c, struct ir_node *n,
			   struct ir_value **out)
{ return softmax(c, n, out, "LogSoftmax"); }

/* --- linear algebra ------------------------------------------------------ */

/* matmul/mm of x by t(w) (a rank-2 Transpose): b_linear's Gemm with
 * transB=1 reads w untouched; else MatMul. */
static int sym_matmul(struct lower_ctx *c, struct ir_node *n,
		      struct ir_value **out)
{
	struct ir_value *x = T(0), *w = b_untransposed2(T(1));
	int r = b_rank(x);
	out[0] = w && r >= 2 ? b_linear(c, x, w, NULL)
			     : b_op2(c, "MatMul", x, T(1));
	return 0;
}

static int sym_linear(struct lower_ctx *c, struct ir_node *n,
		      struct ir_value **out)
{
	out[0] = b_linear(c, T(0), T(1), lw_is_none(c, n, 2) ? NULL : T(2));
	return 0;
}

/* Gemm; mat2 = t(w) is read as w with transB=1 (untouched bytes). */
static int sym_addmm(struct lower_ctx *c, struct ir_node *n,
		     struct ir_value **out)
{
	double beta = 1, alpha = 1;
	if (!lw_float(c, n, 3, &beta) || !lw_float(c, n, 4, &alpha))
		return sym_beta_alpha(c, n, out, T(0),
				      b_op2(c, "MatMul", T(1), T(2)), 3, 4);
	struct ir_value *w = b_untransposed2(T(2));
	struct ir_node *g = b_node(c, "Gemm", 3,
				   (struct ir_value *[]){ T(1), w ? w : T(2),
							  T(0) }, 1);
	b_attr_f(c, g, "alpha", alpha);
	b_attr_f(c, g, "beta", beta);
	if (w)
		b_attr_i(c, g, "transB", 1);
	out[0] = b_done(c, g);
	return 0;
}

static int sym_baddbmm(struct lower_ctx *c, struct ir_node *n,
		       struct ir_value **out)
{
	double beta = 1, alpha = 1;
	if (!lw_float(c, n, 3, &beta) || !lw_float(c, n, 4, &alpha))
		return sym_beta_alpha(c, n, out, T(0),
				      b_op2(c, "MatMul", T(1), T(2)), 3, 4);
	struct ir_value *s = T(0), *m = b_op2(c, "MatMul", T(1), T(2));
	enum ir_dtype dt = b_dtype(m);
	if (alpha != 1)
		m = b_op2(c, "Mul", m, b_const_scalar(c, alpha, dt, 0));
	if (beta != 1)
		s = b_op2(c, "Mul", s, b_const_scalar(c, beta, dt, 0));
	out[0] = beta == 0 ? m : b_op2(c, "Add", s, m);
	return 0;
}

/* --- convolution and pooling -------------------------------------------- */

static int conv_common(struct lower_ctx *c, struct ir_node *n,
		       struct ir_value **out, int istride, int ipad, int idil,
		       int transposed, int ioutpad, int igroups)
{
	struct ir_value *x = T(0), *w = T(1);
	struct ir_value *b = lw_is_none(c, n, 2) ? NULL : T(2);
	int wr = b_rank(w);
	if (wr < 3)
		return lw_decline(c, "weight rank unknown");
	int sp = wr - 2;
	int64_t st[8], pad[8], dil[8], op[8], pads[16], groups;
	/* an unbatched input (conv1d/2d/3d, conv_transpose*d,
	 * _convolution_mode): one dim less, run as a batch of one */
	int unbatched = n->op != OP_aten__convolution &&
			n->op != OP_aten_convolution && b_rank(x) == wr - 1;
	if (unbatched)
		x = b_unsqueeze(c, x, (const int64_t[]){ 0 }, 1);
	if (lw_ints(c, n, istride, st, 8, sp) != sp ||
	    lw_ints(c, n, idil, dil, 8, sp) != sp ||
	    !lw_int(c, n, igroups, &groups))
		return lw_decline(c, "stride, dilation or groups not constant");
	const char *ps = lw_str(c, n, ipad);
	/* as torch's _convolution_mode: any other string, or 'same' with a
	 * stride, is an error there (it was lowered as 'same') */
	if (ps && strcmp(ps, "same") && strcmp(ps, "valid"))
		return lw_decline(c, ir_strfmt(c->g, "invalid padding string: "
					       "'%s'", ps));
	for (int i = 0; ps && !strcmp(ps, "same") && i < sp; i++)
		if (st[i] != 1)
			return lw_decline(c, "padding='same' is not supported "
					  "for strided convolutions");
	if (ps) {
		for (int i = 0; i < sp; i++) {
			struct ir_dim k = w->type->dims[2 + i];
			if (!strcmp(ps, "valid")) {
				pads[i] = pads[i + sp] = 0;
				continue;
			}
			if (k.kind != IR_DIM_FIXED)
				return lw_decline(c, "padding='same' with an "
						  "unknown kernel size");
			if (dil[i] < 1 || k.value < 1 ||
			    k.value - 1 > INT64_MAX / dil[i])
				return lw_decline(c, ir_strfmt(c->g,
					"padding='same' of a kernel of %lld "
					"with dilation %lld", (long long)k.value,
					(long long)dil[i]));
			int64_t total = dil[i] * (k.value - 1);
			pads[i] = total / 2;
			pads[i + sp] = total - total / 2;
		}
	} else {
		if (lw_ints(c, n, ipad, pad, 8, sp) != sp)
			return lw_decline(c, "padding is not constant");
		for (int i = 0; i < sp; i++)
			pads[i] = pads[i + sp] = pad[i];
	}
	struct ir_value *in[3] = { x, w, b };
	struct ir_node *nd = b_node(c, transposed ? "ConvTranspose" : "Conv",
				    b ? 3 : 2, in, 1);
	b_attr_ints(c, nd, "dilations", dil, sp);
	b_attr_i(c, nd, "group", groups);
	int64_t ks[8];
	int kok = 1;
	for (int i = 0; i < sp; i++) {
		if (w->type->dims[2 + i].kind != IR_DIM_FIXED)
			kok = 0;
		ks[i] = w->type->dims[2 + i].value;
	}
	if (kok)
		b_attr_ints(c, nd, "kernel_shape", ks, sp);
	if (transposed) {
		if (lw_ints(c, n, ioutpad, op, 8, sp) != sp)
			return lw_decline(c, "output_padding is not constant");
		for (int i = 0; i < sp; i++)
			if (op[i]) {
				b_attr_ints(c, nd, "output_padding", op, sp);
				break;
			}
	}
	b_attr_ints(c, nd, "pads", pads, 2 * sp);
	b_attr_ints(c, nd, "strides", st, sp);
	out[0] = b_done(c, nd);
	if (unbatched)
		out[0] = b_squeeze(c, out[0], (const int64_t[]){ 0 }, 1);
	return 0;
}

static int sym_conv(struct lower_ctx *c, struct ir_node *n,
		    struct ir_value **out)
{
	/* conv1d/2d/3d and _convolution_mode(input, weight, bias, stride,
	 * padding, dilation, groups); padding a list or 'same' / 'valid' */
	return conv_common(c, n, out, 3, 4, 5, 0, 0, 6);
}

static int sym_conv_transpose(struct lower_ctx *c, struct ir_node *n,
			      struct ir_value **out)
{
	/* (input, weight, bias, stride, padding, output_padding, groups,
	 *  dilation) */
	return conv_common(c, n, out, 3, 4, 7, 1, 5, 6);
}

static int sym_convolution(struct lower_ctx *c, struct ir_node *n,
			   struct ir_value **out)
{
	/* _convolution(input, weight, bias, stride, padding, dilation,
	 * transposed, output_padding, groups, ...) */
	int64_t tr;
	if (!lw_int(c, n, 6, &tr))
		return lw_decline(c, "transposed is not constant");
	return conv_common(c, n, out, 3, 4, 5, (int)tr, 7, 8);
}

/*
 * ceil_mode below opset 10, where MaxPool and AveragePool have none: the
 * end pads (added to pads[sp..2sp)) that make floor mode count ceil mode's
 * windows.  torch (pooling_output_shape) counts
 *   out = ceil((L + 2p - e) / s) + 1,  e = d(k - 1) + 1,
 * less one when that last window would start in the right padding
 * ((out - 1)s >= L + p).  A static size gets the exact extra padding
 * (torch's get_pool_ceil_padding).  An unknown one gets s - 1 more: floor
 * mode then counts floor((L + 2p + s - 1 - e) / s) + 1, the ceiling, and
 * its last window starts at most at L + 2p + s - 1 - e, inside the input
 * or its padding (before L + p) whenever e >= p + s, so torch never drops
 * it; otherwise this declines.  Returns 0, or 1 (declined).
 */
int sym_pool_ceil_pads(struct lower_ctx *c, struct ir_value *x, int sp,
		       const int64_t *k, const int64_t *st, const int64_t *pad,
		       const int64_t *dil, int64_t *pads)
{
	int r = b_rank(x);
	if (!x || r < sp + 1)
		return lw_decline(c, "ceil_mode with unknown rank");
	for (int i = 0; i < sp; i++) {
		struct ir_dim d = x->type->dims[r - sp + i];
		int64_t e = dil[i] * (k[i] - 1) + 1;
		if (st[i] <= 0)
			return lw_decline(c, "stride must be positive");
		if (d.kind == IR_DIM_FIXED) {
			int64_t span = d.value + 2 * pad[i] - e;
			int64_t outc = (span + st[i] - 1) / st[i] + 1;
			if ((outc - 1) * st[i] >= d.value + pad[i])
				outc--;
			int64_t need = (outc - 1) * st[i] + e -
				       (d.value + 2 * pad[i]);
			if (need > 0)
				pads[i + sp] += need;
			continue;
		}
		if (e < pad[i] + st[i])
			return lw_decline(c, "ceil_mode with an unknown input "
					  "size below opset 10 needs kernel >= "
					  "padding + stride (the last window "
					  "could start in the padding)");
		pads[i + sp] += st[i] - 1;
	}
	return 0;
}

/*
 * sym_pool_plan: how a torch pooling with ceil_mode becomes an ONNX one.
 * ONNX's ceil_mode (from opset 10) counts ceil((L + 2p - e) / s) + 1
 * windows, without torch's rule that drops a last window starting in the
 * right padding, and ONNX Runtime divides an AveragePool window that
 * reaches past the padding by the whole kernel under count_include_pad,
 * where torch counts only the input and its padding.  So:
 *  - below opset 10, or when every size is static and the counts differ:
 *    floor mode over sym_pool_ceil_pads's end pads (ceil 0);
 *  - else ONNX's ceil_mode, then a Slice to torch's count (slice[i]) on
 *    each axis where they may differ: a static one where they do, an
 *    unknown one where the last window could start in the padding;
 *  - reach: some window may reach past the input and its padding (an
 *    average with count_include_pad then needs pool_divisor).
 */
int sym_pool_plan(struct lower_ctx *c, struct ir_value *x, int sp,
		  const int64_t *k, const int64_t *st, const int64_t *pad,
		  const int64_t *dil, int64_t ceil, struct sym_pool_plan *pl)
{
	int r = b_rank(x), allfixed = 1, differ = 0;
	memset(pl, 0, sizeof(*pl));
	for (int i = 0; i < sp; i++)
		pl->pads[i] = pl->pads[i + sp] = pad[i];
	pl->ceil = ceil;
	if (!ceil)
		return 0;
	if (!x || r < sp + 1)
		return c->opset < 10 ?
		       lw_decline(c, "ceil_mode with unknown rank") : 0;
	for (int i = 0; i < sp; i++) {
		struct ir_dim d = x->type->dims[r - sp + i];
		int64_t e = dil[i] * (k[i] - 1) + 1;
		if (st[i] <= 0)
			return lw_decline(c, "stride must be positive");
		if (d.kind != IR_DIM_FIXED) {
			allfixed = 0;
			pl->reach |= st[i] > 1;
			pl->slice[i] = e < pad[i] + st[i];
			continue;
		}
		int64_t span = d.value + 2 * pad[i] - e;
		if (span < 0)
			continue;
		int64_t on = (span + st[i] - 1) / st[i] + 1, ot = on;
		if ((ot - 1) * st[i] >= d.value + pad[i])
			ot--;
		pl->reach |= (ot - 1) * st[i] + e > d.value + 2 * pad[i];
		if (on != ot)
			differ = pl->slice[i] = 1;
	}
	if (c->opset < 10 || (allfixed && differ)) {
		memset(pl->slice, 0, sizeof(pl->slice));
		pl->ceil = 0;
		return sym_pool_ceil_pads(c, x, sp, k, st, pad, dil, pl->pads);
	}
	return 0;
}

/* y (x pooled with ONNX's ceil_mode) cut to torch's window count on the
 * axes sym_pool_plan marked (opset 10 on: Slice with computed ends). */
struct ir_value *sym_pool_slice(struct lower_ctx *c, struct ir_value *y,
				struct ir_value *x, int sp, const int64_t *k,
				const int64_t *st, const int64_t *pad,
				const int64_t *dil,
				const struct sym_pool_plan *pl)
{
	int r = b_rank(x);
	int64_t zero = 0;
	for (int i = 0; i < sp; i++) {
		if (!pl->slice[i])
			continue;
		int64_t ax = r - sp + i, e = dil[i] * (k[i] - 1) + 1;
		struct ir_value *len = b_dim(c, x, ax), *o, *keep;
		/* o = (L + 2p - e + s - 1) / s + 1, less one when
		 * (o - 1)s >= L + p */
		o = b_op2(c, "Add", len,
			  b_const_i64(c, 2 * pad[i] - e + st[i] - 1));
		o = b_op2(c, "Div", o, b_const_i64(c, st[i]));
		keep = b_op2(c, "Less",
			     b_op2(c, "Mul", o, b_const_i64(c, st[i])),
			     b_op2(c, "Add", len, b_const_i64(c, pad[i])));
		o = b_op2(c, "Add", o, b_cast(c, keep, IR_DTYPE_INT64));
		o = b_unsqueeze(c, o, &zero, 1);
		struct ir_value *in[4] = { y, b_const_i64s(c, &zero, 1, 1), o,
					   b_const_i64s(c, &ax, 1, 1) };
		y = b_done(c, b_node(c, "Slice", 4, in, 1));
	}
	return y;
}

static int sym_max_pool(struct lower_ctx *c, struct ir_node *n,
			struct ir_value **out)
{
	/* (self, kernel_size, stride, padding, dilation, ceil_mode) */
	struct ir_value *x = T(0);
	int sp = (int)(n->kind[strlen(n->kind) - 2] - '0');
	int64_t k[8], st[8], pad[8], dil[8], ceil;
	struct sym_pool_plan pl;
	if (sp < 1 || sp > 3)
		return lw_decline(c, "unknown pooling rank");
	if (lw_ints(c, n, 1, k, 8, sp) != sp ||
	    lw_ints(c, n, 3, pad, 8, sp) != sp ||
	    lw_ints(c, n, 4, dil, 8, sp) != sp || !lw_int(c, n, 5, &ceil))
		return lw_decline(c, "arguments are not constant");
	int ns = lw_ints(c, n, 2, st, 8, sp);
	if (ns == 0)
		memcpy(st, k, sizeof(k));
	else if (ns != sp)
		return lw_decline(c, "stride is not constant");
	for (int i = 0; i < sp; i++)
		if (dil[i] != 1 && c->opset < 10)
			return lw_decline(c, "dilation needs opset 10");
	if (sym_pool_plan(c, x, sp, k, st, pad, dil, ceil, &pl))
		return 1;
	struct ir_node *nd = b_node(c, "MaxPool", 1, &x, 1);
	if (pl.ceil)
		b_attr_i(c, nd, "ceil_mode", 1);
	if (c->opset >= 10)
		b_attr_ints(c, nd, "dilations", dil, sp);
	b_attr_ints(c, nd, "kernel_shape", k, sp);
	b_attr_ints(c, nd, "pads", pl.pads, 2 * sp);
	b_attr_ints(c, nd, "strides", st, sp);
	out[0] = sym_pool_slice(c, b_done(c, nd), x, sp, k, st, pad, dil, &pl);
	return 0;
}

static struct ir_value *average_pool(struct lower_ctx *c, struct ir_value *x,
				     int sp, const int64_t *k,
				     const int64_t *st, const int64_t *pads,
				     int64_t ceil, int64_t cip)
{
	struct ir_node *nd = b_node(c, "AveragePool", 1, &x, 1);
	if (ceil)
		b_attr_i(c, nd, "ceil_mode", 1);
	b_attr_i(c, nd, "count_include_pad", cip);
	b_attr_ints(c, nd, "kernel_shape", k, sp);
	b_attr_ints(c, nd, "pads", pads, 2 * sp);
	b_attr_ints(c, nd, "strides", st, sp);
	return b_done(c, nd);
}

/*
 * The divisor torch's count_include_pad gives windows that reach past the
 * padding (sym_pool_plan's reach), scaled as ONNX's: the same AveragePool
 * (every pad counted) of ones over the input and its padding, Expand of
 * 1 to that shape.  Dividing the pooling of x by it leaves the sum over
 * the window divided by the count of input and padding elements in it,
 * whatever ONNX divides both by.  NULL when declined.
 */
static struct ir_value *pool_divisor(struct lower_ctx *c, struct ir_value *x,
				     int sp, const int64_t *k,
				     const int64_t *st, const int64_t *pad,
				     const struct sym_pool_plan *pl)
{
	int r = b_rank(x), anypad = 0;
	int64_t grow[16], opads[16];
	if (c->opset < 8) {
		lw_decline(c, "ceil_mode with count_include_pad needs opset 8");
		return NULL;
	}
	struct ir_value *ones = x;
	for (int i = 0; i < r - sp; i++)
		ones = b_slice(c, ones, 0, 1, i, 1);
	struct ir_value *shape = b_op1(c, "Shape", ones);
	for (int i = 0; i < r; i++) {
		int s = i - (r - sp);
		grow[i] = s >= 0 ? 2 * pad[s] : 0;
		anypad |= grow[i] != 0;
	}
	if (anypad)
		shape = b_op2(c, "Add", shape, b_const_i64s(c, grow, r, 1));
	ones = b_op2(c, "Expand", b_const_scalar(c, 1, b_dtype(x), 1), shape);
	for (int i = 0; i < sp; i++) {
		opads[i] = 0;
		opads[i + sp] = pl->pads[i + sp] - pad[i];
	}
	return average_pool(c, ones, sp, k, st, opads, pl->ceil, 1);
}

/*
 * avg_pool with divisor_override d: torch's window sums (zero padding)
 * divided by d, count_include_pad unused.  The sums are a Conv of ones
 * over x's planes as channels of one ([-1, 1, spatial...]), floor mode
 * with end pads that reach ceil mode's last window, cut to torch's output
 * size (its ceil mode drops a window that starts in the right padding);
 * static spatial sizes only.
 */
static int avg_pool_divisor(struct lower_ctx *c, struct ir_value *x, int sp,
			    const int64_t *k, const int64_t *st,
			    const int64_t *pad, int64_t ceil, double d,
			    struct ir_value **out)
{
	int r = b_rank(x);
	int64_t pads[16], od[8], wdims[10], kn = 1, shp[10];
	if (r < sp + 1 || r > sp + 2 || !b_is_float(b_dtype(x)))
		return lw_decline(c, "divisor_override: a float input of rank "
				  "spatial + 1 or 2");
	for (int i = 0; i < sp; i++) {
		struct ir_dim dm = x->type->dims[r - sp + i];
		if (dm.kind != IR_DIM_FIXED)
			return lw_decline(c, "divisor_override needs static "
					  "spatial sizes");
		int64_t L = dm.value, num = L + 2 * pad[i] - k[i];
		int64_t o = (num + (ceil ? st[i] - 1 : 0)) / st[i] + 1;
		if (ceil && (o - 1) * st[i] >= L + pad[i])
			o--;
		if (o < 1)
			return lw_decline(c, "divisor_override: no window");
		od[i] = o;
		pads[i] = pad[i];
		/* the end pad that makes floor mode count o windows */
		int64_t need = (o - 1) * st[i] + k[i] - L - pad[i];
		pads[sp + i] = need > pad[i] ? need : pad[i];
		wdims[2 + i] = k[i];
		kn *= k[i];
	}
	wdims[0] = wdims[1] = 1;
	double *ones = ir_alloc(c->g, sizeof(double) * (size_t)kn);
	for (int64_t i = 0; i < kn; i++)
		ones[i] = 1;
	struct ir_value *w = b_cast(c, b_const_reals(c, ones, wdims, sp + 2,
						     b_dtype(x)), b_dtype(x));
	shp[0] = -1;
	shp[1] = 1;
	for (int i = 0; i < sp; i++)
		shp[2 + i] = x->type->dims[r - sp + i].value;
	struct ir_value *xs = b_op2(c, "Reshape", x,
				    b_const_i64s(c, shp, sp + 2, 1));
	struct ir_node *cv = b_node(c, "Conv", 2, (struct ir_value *[]){ xs, w },
				    1);
	b_attr_ints(c, cv, "kernel_shape", k, sp);
	b_attr_ints(c, cv, "pads", pads, 2 * sp);
	b_attr_ints(c, cv, "strides", st, sp);
	struct ir_value *y = b_done(c, cv);
	for (int i = 0; i < sp; i++)
		y = b_slice(c, y, 0, od[i], 2 + i, 1);
	/* back to x's leading dims */
	struct ir_value *lead = b_slice(c, b_op1(c, "Shape", x), 0, r - sp, 0,
					1);
	struct ir_value *cc = b_concat(c, 2, (struct ir_value *[]){
		lead, b_const_i64s(c, od, sp, 1) }, 0);
	y = b_op2(c, "Reshape", y, cc);
	out[0] = b_op2(c, "Div", y, b_const_scalar(c, d, b_dtype(x), 0));
	return 0;
}

/* a pooling's int list argument i: sp entries, one entry broadcast to sp
 * (torch takes (1,) for every dim); the count as lw_ints */
static int pool_ints(struct lower_ctx *c, struct ir_node *n, int i,
		     int64_t *v, int sp)
{
	int k = lw_ints(c, n, i, v, 8, sp);
	if (k == 1)
		for (int j = 1; j < sp; j++)
			v[j] = v[0];
	return k == 1 ? sp : k;
}

static int sym_avg_pool(struct lower_ctx *c, struct ir_node *n,
			struct ir_value **out)
{
	/* (self, kernel_size, stride, padding, ceil_mode, count_include_pad,
	 *  divisor_override) */
	struct ir_value *x = T(0);
	int sp = (int)(n->kind[strlen(n->kind) - 2] - '0');
	int64_t k[8], st[8], pad[8], dil[8], ceil, cip = 1;
	struct sym_pool_plan pl;
	if (sp < 1 || sp > 3)
		return lw_decline(c, "unknown pooling rank");
	if (pool_ints(c, n, 1, k, sp) != sp ||
	    pool_ints(c, n, 3, pad, sp) != sp || !lw_int(c, n, 4, &ceil) ||
	    !lw_int(c, n, 5, &cip))
		return lw_decline(c, "arguments are not constant");
	int ns = pool_ints(c, n, 2, st, sp);
	if (ns == 0)
		memcpy(st, k, sizeof(k));
	else if (ns != sp)
		return lw_decline(c, "stride is not constant");
	if (n->ninputs > 6 && !lw_is_none(c, n, 6)) {
		double d;
		if (!lw_float(c, n, 6, &d))
			return lw_decline(c, "divisor_override not constant");
		if (d == 0)
			return lw_decline(c, "divisor must be not zero");
		return avg_pool_divisor(c, x, sp, k, st, pad, ceil, d, out);
	}
	for (int i = 0; i < sp; i++)
		dil[i] = 1;
	if (sym_pool_plan(c, x, sp, k, st, pad, dil, ceil, &pl))
		return 1;
	struct ir_value *y = average_pool(c, x, sp, k, st, pl.pads, pl.ceil,
					  cip);
	/* both cut to torch's count before they meet: runtimes differ on
	 * ceil_mode's last window (ONNX Runtime 1.30 drops one starting in
	 * the right padding, as torch; 1.20 kept it, as the older spec), and
	 * the divisor's pooling has no padding to drop a window in */
	y = sym_pool_slice(c, y, x, sp, k, st, pad, dil, &pl);
	if (cip && pl.reach) {
		struct ir_value *cnt = pool_divisor(c, x, sp, k, st, pad, &pl);
		if (!cnt)
			return 1;
		cnt = sym_pool_slice(c, cnt, x, sp, k, st, pad, dil, &pl);
		y = b_op2(c, "Div", y, cnt);
	}
	out[0] = y;
	return 0;
}

/*
 * Adaptive average pooling of x (rank r) along axis ax, whose size (dim,
 * of x0) is unknown or not a multiple of cnt, to cnt cells, exactly at
 * every opset from 9: cell i averages [floor(iL/cnt), ceil((i+1)L/cnt)),
 * so the pooling is a product with the cnt x L matrix A, A[i][j] =
 * 1/(end_i - start_i) where start_i <= j < end_i, else 0, built from L at
 * run time (integer Mul/Div of non-negative numbers floor).  NULL when it
 * cannot be built.
 */
/* m (an [out, in] matrix) applied along axis ax of x (rank r <= 16, its
 * size there in): MatMul on the left for the second-last axis, with m's
 * transpose on the right for the last, else between two Transposes that
 * swap ax with the last axis. */
static struct ir_value *apply_along(struct lower_ctx *c, struct ir_value *x,
				    int r, int ax, struct ir_value *m)
{
	int64_t perm[16];
	if (ax == r - 2)
		return b_op2(c, "MatMul", m, x);
	struct ir_node *t = b_node(c, "Transpose", 1, &m, 1);
	b_attr_ints(c, t, "perm", (int64_t[]){ 1, 0 }, 2);
	m = b_done(c, t); /* [in, out] */
	if (ax == r - 1)
		return b_op2(c, "MatMul", x, m);
	for (int i = 0; i < r; i++)
		perm[i] = i;
	perm[ax] = r - 1;
	perm[r - 1] = ax;
	t = b_node(c, "Transpose", 1, &x, 1);
	b_attr_ints(c, t, "perm", perm, r);
	struct ir_value *y = b_op2(c, "MatMul", b_done(c, t), m);
	t = b_node(c, "Transpose", 1, &y, 1);
	b_attr_ints(c, t, "perm", perm, r);
	return b_done(c, t);
}

static struct ir_value *adaptive_avg_axis(struct lower_ctx *c,
					  struct ir_value *x0,
					  struct ir_value *x, int r, int ax,
					  int64_t cnt)
{
	int64_t one = 1;
	if (cnt == 1) {
		int64_t a = ax;
		return b_reduce(c, "ReduceMean", x, &a, 1, 1);
	}
	struct ir_dim d = x0->type->dims[ax];
	struct ir_value *len = d.kind == IR_DIM_FIXED ?
			       b_const_i64(c, d.value) : b_dim(c, x0, ax);
	int64_t *lo = ir_alloc(c->g, sizeof(int64_t) * 2 * (size_t)cnt);
	int64_t *hi = lo + cnt;
	for (int64_t i = 0; i < cnt; i++) {
		lo[i] = i;
		hi[i] = i + 1;
	}
	struct ir_value *nc = b_const_i64(c, cnt);
	struct ir_value *start, *end, *j, *in, *a;
	start = b_op2(c, "Mul", b_const_i64s(c, lo, (int)cnt, 1), len);
	start = b_op2(c, "Div", start, nc);
	end = b_op2(c, "Mul", b_const_i64s(c, hi, (int)cnt, 1), len);
	end = b_op2(c, "Add", end, b_const_i64(c, cnt - 1));
	end = b_op2(c, "Div", end, nc);
	start = b_unsqueeze(c, start, &one, 1); /* [cnt, 1] */
	end = b_unsqueeze(c, end, &one, 1);
	j = sym_arange_count(c, len); /* [L] */
	if (!j)
		return NULL;
	in = b_op2(c, "And", b_op1(c, "Not", b_op2(c, "Less", j, start)),
		   b_op2(c, "Less", j, end));
	enum ir_dtype dt = b_dtype(x);
	a = b_op2(c, "Div", b_cast(c, in, dt),
		  b_cast(c, b_op2(c, "Sub", end, start), dt)); /* [cnt, L] */
	return apply_along(c, x, r, ax, a);
}

/* The spatial rank of a pooling op (adaptive_avg_pool2d: 2), -1
 * when its name has none. */
static int pool_rank(const char *kind)
{
	const char *p = strstr(kind, "pool");
	return p && p[4] >= '1' && p[4] <= '3' ? p[4] - '0' : -1;
}

/*
 * adaptive_avg_pool{1,2,3}d(self, output_size): GlobalAveragePool for
 * output 1, AveragePool (kernel = stride = size / output) when every
 * size is a known multiple of its output, as torch exports them; else
 * (unknown sizes, or torch would refuse) the exact separable product of
 * adaptive_avg_axis, axis by axis, last first.
 */
static int sym_adaptive_avg_pool(struct lower_ctx *c, struct ir_node *n,
				 struct ir_value **out)
{
	struct ir_value *x = T(0);
	int64_t os[8], k[8], pads[16] = { 0 };
	int sp = pool_rank(n->kind), r = b_rank(x);
	if (sp < 1 || r < sp + 1 || r > 16)
		return lw_decline(c, "input rank unknown");
	if (lw_ints(c, n, 1, os, 8, sp) != sp)
		return lw_decline(c, "output_size is not constant");
	int all1 = 1, divisible = r == sp + 2;
	for (int i = 0; i < sp; i++) {
		struct ir_dim d = x->type->dims[r - sp + i];
		if (os[i] <= 0)
			return lw_decline(c, "output_size must be positive");
		all1 &= os[i] == 1;
		if (d.kind != IR_DIM_FIXED || d.value % os[i])
			divisible = 0;
		else
			k[i] = d.value / os[i];
	}
	if (all1 && r == sp + 2) {
		out[0] = b_op1(c, "GlobalAveragePool", x);
		return 0;
	}
	if (divisible) {
		struct ir_node *nd = b_node(c, "AveragePool", 1, &x, 1);
		b_attr_ints(c, nd, "kernel_shape", k, sp);
		b_attr_ints(c, nd, "pads", pads, 2 * sp);
		b_attr_ints(c, nd, "strides", k, sp);
		out[0] = b_done(c, nd);
		return 0;
	}
	if (c->opset < 9)
		return lw_decline(c, "input size not a known multiple of "
				  "output_size: needs opset 9");
	if (!b_is_float(b_dtype(x)))
		return lw_decline(c, "input dtype unknown or not floating");
	struct ir_value *y = x;
	for (int i = sp - 1; i >= 0 && y; i--)
		y = adaptive_avg_axis(c, x, y, r, r - sp + i, os[i]);
	if (!y)
		return lw_decline(c, "cannot build the pooling matrix");
	out[0] = y;
	return 0;
}

/* --- normalisation --------------------------------------------------------- */

/* Input i, or a constant of `count` copies of v when it is None. */
static struct ir_value *param_or(struct lower_ctx *c, struct ir_node *n,
				 int i, int64_t count, double v,
				 enum ir_dtype dt)
{
	if (n && !lw_is_none(c, n, i))
		return T(i);
	if (count <= 0)
		return NULL;
	struct ir_value *one = b_const_scalar(c, v, dt, 1);
	struct ir_value *shape = b_const_i64s(c, &count, 1, 1);
	return b_op2(c, "Expand", one, shape);
}

static int64_t channels(const struct ir_value *x)
{
	if (b_rank(x) >= 2 && x->type->dims[1].kind == IR_DIM_FIXED)
		return x->type->dims[1].value;
	return -1;
}

/* batch_norm whose own training flag is set (F.batch_norm(...,
 * training=True) with the model exported for inference): normalised with
 * the batch's statistics over every axis but 1 (biased variance), as
 * torch computes it; the running statistics (mom not NaN) updated in
 * place as torch does (batch_norm_update), so that later reads see them.
 * Decomposed, not a 5-output
 * BatchNormalization: runtimes built for inference ignore its training
 * mode. */
/* The running statistics' update of a training-mode batch_norm (mom not
 * NaN), as torch's batch_norm_cpu_update_stats_template: running_mean
 * := mom mean + (1 - mom) running_mean, running_var := mom var_sum / (n -
 * 1) + (1 - mom) running_var, mean and d = x - mean [1, C, 1...], axes
 * the k reduced ones.  _native_batch_norm_legit_functional returns them
 * (outputs 3, 4); the others write them into inputs 3 and 4 (later reads
 * see them, as torch's in-place update), declined where those belong to
 * an enclosing block.  0, or 1 declined. */
static int batch_norm_update(struct lower_ctx *c, struct ir_node *n,
			     struct ir_value **out, struct ir_value *x,
			     struct ir_value *mean, struct ir_value *d,
			     const int64_t *axes, int k, double mom)
{
	int func = n->op == OP_aten__native_batch_norm_legit_functional;
	struct ir_value *rs[2] = { T(3), T(4) }, *nv[2];
	if (!rs[0] || !rs[1])
		return lw_decline(c, "running statistics are not tensors");
	for (int i = 0; i < 2 && !func; i++)
		if (lw_input_writable(c, n, 3 + i))
			return 1;
	enum ir_dtype dt = b_dtype(x);
	int64_t flat = -1;
	struct ir_value *shape = b_const_i64s(c, &flat, 1, 1);
	struct ir_value *cnt = b_op2(c, "Div", b_cast(c, b_op1(c, "Size", x),
						      dt),
		b_cast(c, b_dim(c, x, 1), dt));
	struct ir_value *vs = b_reduce(c, "ReduceSum", b_op2(c, "Mul", d, d),
				       axes, k, 1);
	struct ir_value *st[2] = {
		mean, b_op2(c, "Div", vs, b_op2(c, "Sub", cnt,
						b_const_scalar(c, 1, dt, 0))) };
	for (int i = 0; i < 2; i++) {
		enum ir_dtype rt = b_dtype(rs[i]);
		struct ir_value *v = b_cast(c, b_op2(c, "Reshape", st[i], shape),
					    rt);
		nv[i] = b_op2(c, "Add",
			      b_op2(c, "Mul", v, b_const_scalar(c, mom, rt, 0)),
			      b_op2(c, "Mul", rs[i],
				    b_const_scalar(c, 1 - mom, rt, 0)));
	}
	for (int i = 0; i < 2; i++) {
		if (func) {
			if (n->noutputs == 5)
				out[3 + i] = nv[i];
			continue;
		}
		if (lw_write_input(c, n, 3 + i, nv[i]))
			return 1;
	}
	return 0;
}

static int batch_norm_batch_stats(struct lower_ctx *c, struct ir_node *n,
				  struct ir_value **out, struct ir_value *x,
				  double eps, double mom)
{
	int r = b_rank(x);
	enum ir_dtype dt = b_dtype(x);
	if (r < 2 || !b_is_float(dt))
		return lw_decline(c, "training-mode batch_norm of unknown rank");
	int64_t axes[64];
	int k = 0;
	for (int i = 0; i < r; i++)
		if (i != 1)
			axes[k++] = i;
	struct ir_value *mean = b_reduce(c, "ReduceMean", x, axes, k, 1);
	struct ir_value *d = b_op2(c, "Sub", x, mean);
	struct ir_value *var = b_reduce(c, "ReduceMean",
					b_op2(c, "Mul", d, d), axes, k, 1);
	struct ir_value *sd = b_op1(c, "Sqrt",
		b_op2(c, "Add", var, b_const_scalar(c, eps, dt, 0)));
	struct ir_value *y = b_op2(c, "Div", d, sd);
	y = sym_channel_affine(c, n, y, r, dt);
	if (!y)
		return lw_decline(c, "weight or bias is not a tensor");
	if (!isnan(mom) && batch_norm_update(c, n, out, x, mean, d, axes, k,
					     mom))
		return 1;
	out[0] = y;
	if (n->noutputs >= 3 && n->op != OP_aten_batch_norm) {
		/* native_batch_norm's save_mean and save_invstd, [C] */
		int64_t flat = -1;
		struct ir_value *shape = b_const_i64s(c, &flat, 1, 1);
		out[1] = b_op2(c, "Reshape", mean, shape);
		out[2] = b_op2(c, "Reshape", b_op1(c, "Reciprocal", sd),
			       shape);
	}
	return 0;
}

struct ir_value *sym_channel_affine(struct lower_ctx *c, struct ir_node *n,
				    struct ir_value *y, int r,
				    enum ir_dtype dt)
{
	int64_t ax1[64];
	for (int i = 0; i < r - 2; i++)
		ax1[i] = i + 1;
	for (int i = 1; i <= 2; i++) {
		if (lw_is_none(c, n, i))
			continue;
		struct ir_value *w = T(i);
		if (!w)
			return NULL;
		if (dt != IR_DTYPE_UNDEFINED)
			w = b_cast(c, w, dt);
		if (r > 2)
			w = b_unsqueeze(c, w, ax1, r - 2);
		y = b_op2(c, i == 1 ? "Mul" : "Add", y, w);
	}
	return y;
}

/* --training train: torch 1.13's training-mode BatchNormalization
 * (torch/onnx/symbolic_opset9.py and symbolic_opset14.py batch_norm): at
 * opset 14 and later training_mode=1 with the updated running mean and
 * variance as outputs 1 and 2; below, the opset 9-13 form whose five
 * outputs (Y, mean, var, saved mean, saved var) make it training-mode.
 * Only Y is used, as in torch's graph.  Without running statistics there
 * is nothing to update: the batch statistics' formula.  batch_norm_node
 * builds the node, train 0 the eval form (one output) and 1 this one. */
static int batch_norm_node(struct lower_ctx *c, struct ir_node *n,
			   struct ir_value **out, struct ir_value *x,
			   double mom, double eps, int train)
{
	int64_t ch = channels(x);
	enum ir_dtype dt = b_dtype(x);
	struct ir_value *in[5] = { x, param_or(c, n, 1, ch, 1, dt),
				   param_or(c, n, 2, ch, 0, dt), T(3), T(4) };
	if (!in[1] || !in[2])
		return lw_decline(c, "channel count unknown");
	struct ir_node *nd = b_node(c, "BatchNormalization", 5, in,
				    !train ? 1 : c->opset >= 14 ? 3 : 5);
	b_attr_f(c, nd, "epsilon", eps);
	b_attr_f(c, nd, "momentum", 1 - mom);
	if (train && c->opset >= 14)
		b_attr_i(c, nd, "training_mode", 1);
	out[0] = b_done(c, nd);
	return 0;
}

static int batch_norm_train(struct lower_ctx *c, struct ir_node *n,
			    struct ir_value **out, struct ir_value *x,
			    double mom, double eps)
{
	if (lw_is_none(c, n, 3) || lw_is_none(c, n, 4)) /* nothing to update */
		return batch_norm_batch_stats(c, n, out, x, eps, NAN);
	return batch_norm_node(c, n, out, x, mom, eps, 1);
}

static int sym_batch_norm(struct lower_ctx *c, struct ir_node *n,
			  struct ir_value **out)
{
	/* (input, weight, bias, running_mean, running_var, training,
	 *  momentum, eps, cudnn_enabled) */
	struct ir_value *x = T(0);
	int64_t training = 0;
	double mom = 0.1, eps = 1e-5;
	lw_int(c, n, 5, &training);
	if (!lw_float(c, n, 6, &mom) || !lw_float(c, n, 7, &eps))
		return lw_decline(c, "momentum or eps is not constant");
	if (c->o->training == LOWER_TRAINING_TRAIN)
		training = 1;
	if (training && c->o->training == LOWER_TRAINING_TRAIN)
		return batch_norm_train(c, n, out, x, mom, eps);
	if (training)
		return batch_norm_batch_stats(c, n, out, x, eps,
					      lw_is_none(c, n, 3) ||
					      lw_is_none(c, n, 4) ? NAN : mom);
	if (lw_is_none(c, n, 3) || lw_is_none(c, n, 4))
		return lw_decline(c, "no running statistics");
	return batch_norm_node(c, n, out, x, mom, eps, 0);
}

/* torch 2.x's core batch norms, which torch.export's graphs hold:
 * native_batch_norm, _native_batch_norm_legit and its _functional form
 * (input, weight, bias, running_mean, running_var, training, momentum,
 * eps: batch_norm's arguments in batch_norm's places), the .no_stats
 * overload (input, weight, bias, training, momentum, eps: the batch's
 * statistics) and _no_training (input, weight, bias, running_mean,
 * running_var, momentum, eps).  Output 0 is batch_norm's; the saved mean
 * and invstd (outputs 1, 2) are the batch's mean and 1 / sqrt(biased
 * variance + eps) when training, empty [0] tensors when not (torch 1.13's
 * eval form); _functional's running statistics (3, 4) are its inputs when
 * not training. */
static int sym_native_batch_norm(struct lower_ctx *c, struct ir_node *n,
				 struct ir_value **out)
{
	struct ir_value *x = T(0);
	double mom, eps;
	int64_t training = 1;
	if (n->ninputs == 6) {
		if (!lw_float(c, n, 5, &eps))
			return lw_decline(c, "eps is not constant");
		return batch_norm_batch_stats(c, n, out, x, eps, NAN);
	}
	if (n->op == OP_aten__native_batch_norm_legit_no_training) {
		if (!lw_float(c, n, 5, &mom) || !lw_float(c, n, 6, &eps))
			return lw_decline(c, "momentum or eps is not constant");
		if (lw_is_none(c, n, 3) || lw_is_none(c, n, 4))
			return lw_decline(c, "no running statistics");
		return batch_norm_node(c, n, out, x, mom, eps, 0);
	}
	int r = sym_batch_norm(c, n, out);
	if (!r && lw_int(c, n, 5, &training) && !training &&
	    c->o->training != LOWER_TRAINING_TRAIN) {
		if (n->noutputs == 5) {
			out[3] = T(3);
			out[4] = T(4);
		}
		/* torch's eval form saves no statistics: two empty [0] */
		int64_t zero = 0;
		enum ir_dtype dt = b_dtype(x);
		for (int i = 1; i <= 2 && i < (int)n->noutputs; i++)
			out[i] = b_cast(c, b_const_reals(c, NULL, &zero, 1,
							 dt), dt);
	}
	return r;
}

struct ir_value *sym_layer_norm_decomposed(struct lower_ctx *c,
					   struct ir_value *x, int k,
					   double eps)
{
	int r = b_rank(x);
	int64_t axes[64];
	for (int i = 0; i < k; i++)
		axes[i] = r - k + i;
	enum ir_dtype dt = b_dtype(x);
	struct ir_value *mean = b_reduce(c, "ReduceMean", x, axes, k, 1);
	struct ir_value *d = b_op2(c, "Sub", x, mean);
	struct ir_value *var = b_reduce(c, "ReduceMean",
					b_op2(c, "Mul", d, d), axes, k, 1);
	struct ir_value *den = b_op1(c, "Sqrt", b_op2(c, "Add", var,
					b_const_scalar(c, eps, dt, 0)));
	return b_op2(c, "Div", d, den);
}

static int sym_layer_norm(struct lower_ctx *c, struct ir_node *n,
			  struct ir_value **out)
{
	/* (input, normalized_shape, weight, bias, eps, cudnn_enable) */
	struct ir_value *x = T(0);
	int64_t ns[64];
	double eps;
	int k = lw_ints(c, n, 1, ns, 64, 0);
	if (k < 0 || !lw_float(c, n, 4, &eps))
		return lw_decline(c, "normalized_shape or eps not constant");
	if (b_rank(x) < k)
		return lw_decline(c, "input rank unknown");
	struct ir_value *y = sym_layer_norm_decomposed(c, x, k, eps);
	if (!lw_is_none(c, n, 2))
		y = b_op2(c, "Mul", y, T(2));
	if (!lw_is_none(c, n, 3))
		y = b_op2(c, "Add", y, T(3));
	out[0] = y;
	return 0;
}

static int sym_instance_norm(struct lower_ctx *c, struct ir_node *n,
			     struct ir_value **out)
{
	/* (input, weight, bias, running_mean, running_var, use_input_stats,
	 *  momentum, eps, cudnn_enabled) */
	struct ir_value *x = T(0);
	double eps, mom = 0.1;
	int64_t stats = 1;
	if (!lw_float(c, n, 7, &eps))
		return lw_decline(c, "eps is not constant");
	/* use_input_stats false (eval with track_running_stats): torch
	 * normalizes by the running statistics, a batch norm's eval form
	 * (as torch.onnx's instance_norm) */
	if (lw_int(c, n, 5, &stats) && !stats && !lw_is_none(c, n, 3) &&
	    !lw_is_none(c, n, 4)) {
		if (n->ninputs > 6 && !lw_float(c, n, 6, &mom))
			return lw_decline(c, "momentum is not constant");
		return batch_norm_node(c, n, out, x, mom, eps, 0);
	}
	int64_t ch = channels(x);
	enum ir_dtype dt = b_dtype(x);
	struct ir_value *in[3] = { x, param_or(c, n, 1, ch, 1, dt),
				   param_or(c, n, 2, ch, 0, dt) };
	if (!in[1] || !in[2])
		return lw_decline(c, "channel count unknown");
	struct ir_node *nd = b_node(c, "InstanceNormalization", 3, in, 1);
	b_attr_f(c, nd, "epsilon", eps);
	out[0] = b_done(c, nd);
	return 0;
}

static int sym_group_norm(struct lower_ctx *c, struct ir_node *n,
			  struct ir_value **out)
{
	/* (input, num_groups, weight, bias, eps, cudnn_enabled) */
	struct ir_value *x = T(0);
	int64_t groups;
	double eps;
	int r = b_rank(x);
	if (!lw_int(c, n, 1, &groups) || !lw_float(c, n, 4, &eps))
		return lw_decline(c, "num_groups or eps not constant");
	if (r < 2)
		return lw_decline(c, "input rank unknown");
	enum ir_dtype dt = b_dtype(x);
	/* opset 21: one GroupNormalization, whose scale and bias are per
	 * channel as torch's (18's were per group: never written).  Only
	 * for float32: the operator computes in stash_type, float32 at the
	 * most, where torch keeps a double input double (the
	 * decomposition below does too). */
	int64_t ch = channels(x);
	if (c->opset >= 21 && dt == IR_DTYPE_FLOAT && ch > 0) {
		struct ir_value *in[3] = { x, param_or(c, n, 2, ch, 1, dt),
					   param_or(c, n, 3, ch, 0, dt) };
		struct ir_node *gn = b_node(c, "GroupNormalization", 3, in, 1);
		b_attr_f(c, gn, "epsilon", eps);
		b_attr_i(c, gn, "num_groups", groups);
		out[0] = b_done(c, gn);
		return 0;
	}
	int64_t shp[3] = { 0, groups, -1 }, per = 1;
	/* the group's size written out where known: a -1 beside an empty
	 * batch's 0 is any size to ONNX */
	for (int i = 1; i < r && per >= 0; i++) {
		int64_t d = b_dim_size(x, i);
		per = d < 0 ? -1 : per * d;
	}
	if (per >= 0 && groups > 0 && per % groups == 0)
		shp[2] = per / groups;
	struct ir_value *xr = b_op2(c, "Reshape", x, b_const_i64s(c, shp, 3, 1));
	struct ir_value *in[3] = { xr, param_or(c, NULL, -1, groups, 1, dt),
				   param_or(c, NULL, -1, groups, 0, dt) };
	struct ir_node *nd = b_node(c, "InstanceNormalization", 3, in, 1);
	b_attr_f(c, nd, "epsilon", eps);
	struct ir_value *y = b_op2(c, "Reshape", b_done(c, nd),
				   b_op1(c, "Shape", x));
	int64_t axes[64];
	for (int i = 0; i < r - 2; i++)
		axes[i] = i + 1;
	if (!lw_is_none(c, n, 2))
		y = b_op2(c, "Mul", y, r > 2 ? b_unsqueeze(c, T(2), axes, r - 2)
					     : T(2));
	if (!lw_is_none(c, n, 3))
		y = b_op2(c, "Add", y, r > 2 ? b_unsqueeze(c, T(3), axes, r - 2)
					     : T(3));
	out[0] = y;
	return 0;
}

static int sym_dropout(struct lower_ctx *c, struct ir_node *n,
		       struct ir_value **out)
{
	int64_t train = 0;
	lw_int(c, n, 2, &train);
	if (c->o->training == LOWER_TRAINING_EVAL)
		train = 0;
	else if (c->o->training == LOWER_TRAINING_TRAIN)
		train = 1;
	if (!train) {
		out[0] = T(0);
		return 0;
	}
	if (c->opset < 12)
		return lw_decline(c, "training-mode dropout needs opset 12");
	double p;
	if (!lw_float(c, n, 1, &p))
		return lw_decline(c, "p is not constant");
	struct ir_value *in[3] = { T(0), b_const_scalar(c, p, b_dtype(T(0)), 0),
				   b_const_bool(c, 1) };
	out[0] = b_done(c, b_node(c, "Dropout", 3, in, 1));
	return 0;
}

/* einsum below opset 12 (no Einsum there; torch has no symbolic): two
 * operands whose labels are batch labels (both operands and the output),
 * one free label of each operand (it and the output) and one contracted
 * label (both operands, not the output) is a MatMul between Transposes:
 * A to [batch..., i, k], B to [batch..., k, j], the product [batch..., i,
 * j] to the output's order.  maxvit's "BGHID,BGHJD->BGHIJ". */
static struct ir_value *einsum_perm(struct lower_ctx *c, struct ir_value *v,
				    const int64_t *perm, int r)
{
	int id = 1;
	for (int i = 0; i < r; i++)
		id &= perm[i] == i;
	if (id)
		return v;
	struct ir_node *t = b_node(c, "Transpose", 1, &v, 1);
	b_attr_ints(c, t, "perm", perm, r);
	return b_done(c, t);
}

static int einsum_labels(const char *s, size_t len, char *lab, int max)
{
	int k = 0;
	for (size_t i = 0; i < len; i++) {
		char ch = s[i];
		if (ch == ' ')
			continue;
		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z')) ||
		    k >= max || memchr(lab, ch, (size_t)k))
			return -1;
		lab[k++] = ch;
	}
	return k;
}

static int sym_einsum9(struct lower_ctx *c, struct ir_node *n,
		       struct ir_value **out)
{
	const char *eq = lw_str(c, n, 0);
	struct ir_value *v[3];
	char la[16], lb[16], lo[16];
	if (!eq || lw_list(c, n, 1, v, 3) != 2)
		return lw_decline(c, "Einsum needs opset 12 (two operands "
				  "as a MatMul are converted below)");
	const char *comma = strchr(eq, ',');
	const char *arrow = strstr(eq, "->");
	if (!comma || !arrow || arrow < comma)
		return lw_decline(c, "Einsum needs opset 12 (an equation "
				  "without '->' or '...')");
	int na = einsum_labels(eq, (size_t)(comma - eq), la, 16);
	int nb = einsum_labels(comma + 1, (size_t)(arrow - comma - 1), lb, 16);
	int no = einsum_labels(arrow + 2, strlen(arrow + 2), lo, 16);
	if (na < 2 || nb < 2 || no < 2 || na != b_rank(v[0]) ||
	    nb != b_rank(v[1]))
		return lw_decline(c, "Einsum needs opset 12 (labels or "
				  "ranks unknown)");
	/* the batch labels in the output's order, then i, j, k */
	char bl[16], li = 0, lj = 0, lk = 0;
	int nbatch = 0;
	for (int t = 0; t < no; t++) {
		int ina = !!memchr(la, lo[t], (size_t)na);
		int inb = !!memchr(lb, lo[t], (size_t)nb);
		if (ina && inb)
			bl[nbatch++] = lo[t];
		else if (ina && !li)
			li = lo[t];
		else if (inb && !lj)
			lj = lo[t];
		else
			return lw_decline(c, "Einsum needs opset 12 (not a "
					  "batched matrix product)");
	}
	for (int t = 0; t < na; t++) {
		if (memchr(lo, la[t], (size_t)no))
			continue;
		if (lk || !memchr(lb, la[t], (size_t)nb))
			return lw_decline(c, "Einsum needs opset 12 (not a "
					  "batched matrix product)");
		lk = la[t];
	}
	if (!li || !lj || !lk || na != nbatch + 2 || nb != nbatch + 2 ||
	    no != nbatch + 2)
		return lw_decline(c, "Einsum needs opset 12 (not a batched "
				  "matrix product)");
	int64_t pa[16], pb[16], po[16];
	char ord[16];
	memcpy(ord, bl, (size_t)nbatch);
	for (int s = 0; s < 2; s++) {
		const char *lab = s ? lb : la;
		size_t nl = (size_t)(s ? nb : na);
		int64_t *p = s ? pb : pa;
		ord[nbatch] = s ? lk : li;
		ord[nbatch + 1] = s ? lj : lk;
		for (int t = 0; t < nbatch + 2; t++)
			p[t] = (const char *)memchr(lab, ord[t], nl) - lab;
	}
	/* the product's labels: batch, i, j; the output's from them */
	ord[nbatch] = li;
	ord[nbatch + 1] = lj;
	for (int t = 0; t < no; t++)
		po[t] = (const char *)memchr(ord, lo[t],
					     (size_t)nbatch + 2) - ord;
	struct ir_value *y = b_op2(c, "MatMul", einsum_perm(c, v[0], pa, na),
				   einsum_perm(c, v[1], pb, nb));
	out[0] = einsum_perm(c, y, po, no);
	return 0;
}

/*
 * Linear interpolation of x (rank r) along axis ax from its length lin to
 * lout (0-d Long values) as torch computes it, for opsets without Resize's
 * pytorch_half_pixel (below 11): output o reads source coordinate src =
 * o * (lin - 1) / (lout - 1) (align_corners), else max((o + 0.5) * scale -
 * 0.5, 0) with scale = 1 / scale_factor when one is given (sf > 0), else
 * lin / lout; then min(src, lin - 1), and the product with the lout x lin
 * matrix W[o][i] = max(1 - |src_o - i|, 0) (torch's two weights 1 -
 * lambda, lambda on floor(src) and the next element).
 */
static struct ir_value *linear_axis(struct lower_ctx *c, struct ir_value *x,
				    int r, int ax, struct ir_value *lin,
				    struct ir_value *lout, int align,
				    double sf)
{
	int64_t one = 1;
	enum ir_dtype f = IR_DTYPE_FLOAT;
	struct ir_value *o = b_cast(c, sym_arange_count(c, lout), f);
	struct ir_value *i = b_cast(c, sym_arange_count(c, lin), f);
	struct ir_value *fin = b_cast(c, lin, f), *fout = b_cast(c, lout, f);
	struct ir_value *last = b_op2(c, "Sub", fin,
				      b_const_scalar(c, 1, f, 0));
	struct ir_value *src;
	if (!o || !i)
		return NULL;
	if (align) {
		struct ir_value *den = b_op2(c, "Max", b_op2(c, "Sub", fout,
					b_const_scalar(c, 1, f, 0)),
					     b_const_scalar(c, 1, f, 0));
		src = b_op2(c, "Mul", o, b_op2(c, "Div", last, den));
	} else {
		struct ir_value *scale = sf > 0 ?
			b_const_scalar(c, (float)(1.0 / sf), f, 0) :
			b_op2(c, "Div", fin, fout);
		src = b_op2(c, "Add", o, b_const_scalar(c, 0.5, f, 0));
		src = b_op2(c, "Sub", b_op2(c, "Mul", src, scale),
			    b_const_scalar(c, 0.5, f, 0));
		src = b_op2(c, "Max", src, b_const_scalar(c, 0, f, 0));
	}
	src = b_op2(c, "Min", src, last);
	src = b_unsqueeze(c, src, &one, 1); /* [lout, 1] */
	struct ir_value *w = b_op2(c, "Sub", b_const_scalar(c, 1, f, 0),
				   b_op1(c, "Abs", b_op2(c, "Sub", src, i)));
	w = b_op1(c, "Relu", w); /* [lout, lin] */
	if (b_dtype(x) != f)
		w = b_cast(c, w, b_dtype(x));
	return apply_along(c, x, r, ax, w);
}

/* x (rank r <= 16) with size 1 along axis ax broadcast to lout (a 0-d
 * Long) there: linear interpolation from one element, whatever the
 * coordinates, reads that element. */
static struct ir_value *expand_axis(struct lower_ctx *c, struct ir_value *x,
				    int r, int ax, struct ir_value *lout)
{
	int64_t ones[16], v, zero = 0;
	struct ir_value *parts[3], *shape;
	int np = 0;
	for (int i = 0; i < r; i++)
		ones[i] = 1;
	if (b_const_ints(lout, &v, 1) == 1) {
		ones[ax] = v;
		shape = b_const_i64s(c, ones, r, 1);
	} else {
		if (ax > 0)
			parts[np++] = b_const_i64s(c, ones, ax, 1);
		parts[np++] = b_unsqueeze(c, lout, &zero, 1);
		if (ax < r - 1)
			parts[np++] = b_const_i64s(c, ones, r - 1 - ax, 1);
		shape = b_concat(c, np, parts, 0);
	}
	return b_op2(c, "Expand", x, shape);
}

/* upsample_{linear1d,bilinear2d,trilinear3d}(input, output_size?,
 * align_corners, scale_factors?) below opset 11, where neither Upsample
 * nor Resize-10 computes torch's coordinates: the separable product above,
 * one axis at a time (opset 9 up); from opset 11 Resize.  Also serves
 * linear1d and trilinear3d below opset 11 (symbolic_extra_nn.c). */
int sym_upsample_linear9(struct lower_ctx *c, struct ir_node *n,
			 struct ir_value **out);
int sym_upsample_linear9(struct lower_ctx *c, struct ir_node *n,
			 struct ir_value **out)
{
	if (c->opset >= 11)
		return sym_upsample_bilinear(c, n, out);
	struct ir_value *x = T(0), *y, *dyn = NULL;
	int r = b_rank(x), sp = r - 2, ko;
	int64_t os[8], align;
	double sc[8] = { 0 };
	if (c->opset < 9)
		return lw_decline(c, "needs opset 9");
	if (!x || r < 3 || sp > 8 || !b_is_float(b_dtype(x)))
		return lw_decline(c, "input rank or dtype unknown");
	if (!lw_int(c, n, 2, &align))
		return lw_decline(c, "align_corners not constant");
	ko = lw_is_none(c, n, 1) ? -1 : lw_ints(c, n, 1, os, 8, 0);
	if (ko != sp) {
		if ((int)n->ninputs > 3 && !lw_is_none(c, n, 3)) {
			if (!sym_scale_factors(c, n, 3, sc, sp))
				return lw_decline(c, "scale_factors not "
						  "constant");
		} else if (!lw_is_none(c, n, 1) && lw_tensor(c, n, 1) &&
			   b_rank(lw_tensor(c, n, 1)) == 1) {
			dyn = b_cast(c, lw_tensor(c, n, 1), IR_DTYPE_INT64);
		} else {
			return lw_decline(c, "neither output_size nor scales "
					  "known");
		}
	}
	y = x;
	for (int k = 0; k < sp; k++) {
		int ax = 2 + k;
		struct ir_value *lin = b_dim(c, x, ax), *lout;
		if (ko == sp) {
			lout = b_const_i64(c, os[k]);
		} else if (dyn) {
			struct ir_node *g = b_node(c, "Gather", 2,
				(struct ir_value *[]){ dyn,
					b_const_i64(c, k) }, 1);
			b_attr_i(c, g, "axis", 0);
			lout = b_done(c, g);
		} else { /* floor(lin * scale) as torch sizes it */
			lout = b_cast(c, b_op1(c, "Floor", b_op2(c, "Mul",
				b_cast(c, lin, IR_DTYPE_DOUBLE),
				b_const_scalar(c, sc[k], IR_DTYPE_DOUBLE, 0))),
				IR_DTYPE_INT64);
		}
		if (x->type->dims[ax].kind == IR_DIM_FIXED &&
		    x->type->dims[ax].value == 1)
			y = expand_axis(c, y, r, ax, lout);
		else
			y = linear_axis(c, y, r, ax, lin, lout, (int)align,
					dyn || ko == sp ? 0 : sc[k]);
		if (!y)
			return 1;
	}
	out[0] = y;
	return 0;
}


/* split, split_with_sizes, squeeze, sum and unsqueeze serve every opset:
 * opset 13 moved their axes (Split's split) from attributes to inputs, and
 * the builders (build.c) emit either form by the target opset, where
 * torch's symbolic_opset13.py registers them again.  A row with an upper
 * opset (einsum, hardswish, layer_norm, tril, triu) ends where the newer
 * form of symbolic_opset12/14/17.c begins. */
static const struct symbolic opset9[] = {
	{ OP_aten___and__, 0, 0, SYM_PRIO_BASE, sym_bool_and },
	{ OP_aten___or__, 0, 0, SYM_PRIO_BASE, sym_bool_or },
	{ OP_aten___xor__, 0, 0, SYM_PRIO_BASE, sym_bool_xor },
	{ OP_aten_copy_, 0, 0, SYM_PRIO_BASE, sym_copy_ },
	{ OP_aten_einsum, 0, 11, SYM_PRIO_BASE, sym_einsum9 },
	{ OP_aten_index_put, 0, 0, SYM_PRIO_BASE, sym_index_put },
	{ OP_aten__unsafe_index_put, 0, 0, SYM_PRIO_BASE, sym_index_put },
	{ OP_aten_scatter, 9, 0, SYM_PRIO_BASE, sym_scatter },
	{ OP_aten_tensor, 0, 0, SYM_PRIO_BASE, sym_tensor },
	{ OP_aten__convolution, 0, 0, SYM_PRIO_BASE, sym_convolution },
	{ OP_aten__convolution_mode, 0, 0, SYM_PRIO_BASE, sym_conv },
	{ OP_aten_convolution, 0, 0, SYM_PRIO_BASE, sym_convolution },
	{ OP_aten___derive_index, 0, 0, SYM_PRIO_BASE, sym_derive_index },
	{ OP_aten___range_length, 0, 0, SYM_PRIO_BASE, sym_range_length },
	{ OP_aten_as_tensor, 0, 0, SYM_PRIO_BASE, sym_tensor },
	{ OP_aten_item, 0, 0, SYM_PRIO_BASE, sym_identity },
	{ OP_aten__local_scalar_dense, 0, 0, SYM_PRIO_BASE, sym_identity },
	{ OP_aten__adaptive_avg_pool2d, 0, 0, SYM_PRIO_BASE, sym_adaptive_avg_pool },
	{ OP_aten__adaptive_avg_pool3d, 0, 0, SYM_PRIO_BASE, sym_adaptive_avg_pool },
	{ OP_aten_abs, 0, 0, SYM_PRIO_BASE, sym_abs },
	{ OP_aten_adaptive_avg_pool1d, 0, 0, SYM_PRIO_BASE, sym_adaptive_avg_pool },
	{ OP_aten_adaptive_avg_pool2d, 0, 0, SYM_PRIO_BASE, sym_adaptive_avg_pool },
	{ OP_aten_adaptive_avg_pool3d, 0, 0, SYM_PRIO_BASE, sym_adaptive_avg_pool },
	{ OP_aten_add, 0, 0, SYM_PRIO_BASE, sym_add },
	{ OP_aten_addmm, 0, 0, SYM_PRIO_BASE, sym_addmm },
	{ OP_aten_amax, 0, 0, SYM_PRIO_BASE, sym_amax },
	{ OP_aten_amin, 0, 0, SYM_PRIO_BASE, sym_amin },
	{ OP_aten_arange, 0, 0, SYM_PRIO_BASE, sym_arange },
	{ OP_aten_argmax, 0, 0, SYM_PRIO_BASE, sym_argmax },
	{ OP_aten_argmin, 0, 0, SYM_PRIO_BASE, sym_argmin },
	{ OP_aten_avg_pool1d, 0, 0, SYM_PRIO_BASE, sym_avg_pool },
	{ OP_aten_avg_pool2d, 0, 0, SYM_PRIO_BASE, sym_avg_pool },
	{ OP_aten_avg_pool3d, 0, 0, SYM_PRIO_BASE, sym_avg_pool },
	{ OP_aten_baddbmm, 0, 0, SYM_PRIO_BASE, sym_baddbmm },
	{ OP_aten_batch_norm, 0, 0, SYM_PRIO_BASE, sym_batch_norm },
	{ OP_aten_native_batch_norm, 0, 0, SYM_PRIO_BASE, sym_native_batch_norm },
	{ OP_aten__native_batch_norm_legit, 0, 0, SYM_PRIO_BASE,
	  sym_native_batch_norm },
	{ OP_aten__native_batch_norm_legit_functional, 0, 0, SYM_PRIO_BASE,
	  sym_native_batch_norm },
	{ OP_aten__native_batch_norm_legit_no_training, 0, 0, SYM_PRIO_BASE,
	  sym_native_batch_norm },
	{ OP_aten_bitwise_not, 0, 0, SYM_PRIO_BASE, sym_bitwise_not },
	{ OP_aten_bmm, 0, 0, SYM_PRIO_BASE, sym_matmul },
	{ OP_aten_cat, 0, 0, SYM_PRIO_BASE, sym_cat },
	{ OP_aten_ceil, 0, 0, SYM_PRIO_BASE, sym_ceil },
	{ OP_aten_chunk, 0, 0, SYM_PRIO_BASE, sym_chunk },
	{ OP_aten_clamp, 0, 0, SYM_PRIO_BASE, sym_clamp },
	{ OP_aten_clamp_max, 0, 0, SYM_PRIO_BASE, sym_clamp_max },
	{ OP_aten_clamp_min, 0, 0, SYM_PRIO_BASE, sym_clamp_min },
	{ OP_aten_clip, 0, 0, SYM_PRIO_BASE, sym_clamp },
	{ OP_aten_clone, 0, 0, SYM_PRIO_BASE, sym_identity },
	{ OP_aten_constant_pad_nd, 0, 0, SYM_PRIO_BASE, sym_constant_pad_nd },
	{ OP_aten_contiguous, 0, 0, SYM_PRIO_BASE, sym_identity },
	{ OP_aten_conv1d, 0, 0, SYM_PRIO_BASE, sym_conv },
	{ OP_aten_conv2d, 0, 0, SYM_PRIO_BASE, sym_conv },
	{ OP_aten_conv3d, 0, 0, SYM_PRIO_BASE, sym_conv },
	{ OP_aten_conv_transpose1d, 0, 0, SYM_PRIO_BASE, sym_conv_transpose },
	{ OP_aten_conv_transpose2d, 0, 0, SYM_PRIO_BASE, sym_conv_transpose },
	{ OP_aten_conv_transpose3d, 0, 0, SYM_PRIO_BASE, sym_conv_transpose },
	{ OP_aten_cos, 0, 0, SYM_PRIO_BASE, sym_cos },
	{ OP_aten_detach, 0, 0, SYM_PRIO_BASE, sym_identity },
	{ OP_aten_dim, 0, 0, SYM_PRIO_BASE, sym_dim },
	{ OP_aten_div, 0, 0, SYM_PRIO_BASE, sym_div },
	{ OP_aten_dropout, 0, 0, SYM_PRIO_BASE, sym_dropout },
	{ OP_aten_elu, 0, 0, SYM_PRIO_BASE, sym_elu },
	{ OP_aten_embedding, 0, 0, SYM_PRIO_BASE, sym_embedding },
	{ OP_aten_eq, 0, 0, SYM_PRIO_BASE, sym_eq },
	{ OP_aten_erf, 9, 0, SYM_PRIO_BASE, sym_erf },
	{ OP_aten_exp, 0, 0, SYM_PRIO_BASE, sym_exp },
	{ OP_aten_expand, 8, 0, SYM_PRIO_BASE, sym_expand },
	{ OP_aten_expand_as, 8, 0, SYM_PRIO_BASE, sym_expand_as },
	{ OP_aten_feature_dropout, 0, 0, SYM_PRIO_BASE, sym_dropout },
	{ OP_aten_flatten, 0, 0, SYM_PRIO_BASE, sym_flatten },
	{ OP_aten_floor, 0, 0, SYM_PRIO_BASE, sym_floor },
	{ OP_aten_floor_divide, 0, 0, SYM_PRIO_BASE, sym_floor_divide },
	{ OP_aten_floordiv, 0, 0, SYM_PRIO_BASE, sym_floor_divide },
	{ OP_aten_full, 0, 0, SYM_PRIO_BASE, sym_full },
	{ OP_aten_full_like, 0, 0, SYM_PRIO_BASE, sym_full_like },
	{ OP_aten_ge, 0, 0, SYM_PRIO_BASE, sym_ge },
	{ OP_aten_gelu, 0, 0, SYM_PRIO_BASE, sym_gelu },
	{ OP_aten_group_norm, 0, 0, SYM_PRIO_BASE, sym_group_norm },
	{ OP_aten_gt, 0, 0, SYM_PRIO_BASE, sym_gt },
	{ OP_aten_hardsigmoid, 0, 0, SYM_PRIO_BASE, sym_hardsigmoid },
	{ OP_aten_hardswish, 0, 13, SYM_PRIO_BASE, sym_hardswish },
	{ OP_aten_hardtanh, 0, 0, SYM_PRIO_BASE, sym_hardtanh },
	{ OP_aten_index, 0, 0, SYM_PRIO_BASE, sym_index },
	{ OP_aten__unsafe_index, 0, 0, SYM_PRIO_BASE, sym_index },
	{ OP_aten_index_select, 0, 0, SYM_PRIO_BASE, sym_index_select },
	{ OP_aten_instance_norm, 0, 0, SYM_PRIO_BASE, sym_instance_norm },
	{ OP_aten_Bool, 0, 0, SYM_PRIO_BASE, sym_bool },
	{ OP_aten_Float, 0, 0, SYM_PRIO_BASE, sym_float },
	{ OP_aten_Int, 0, 0, SYM_PRIO_BASE, sym_int },
	{ OP_aten_IntImplicit, 0, 0, SYM_PRIO_BASE, sym_int },
	{ OP_aten_ScalarImplicit, 0, 0, SYM_PRIO_BASE, sym_identity },
	{ OP_aten_layer_norm, 0, 16, SYM_PRIO_BASE, sym_layer_norm },
	{ OP_aten_le, 0, 0, SYM_PRIO_BASE, sym_le },
	{ OP_aten_leaky_relu, 0, 0, SYM_PRIO_BASE, sym_leaky_relu },
	{ OP_aten_linear, 0, 0, SYM_PRIO_BASE, sym_linear },
	{ OP_aten_log, 0, 0, SYM_PRIO_BASE, sym_log },
	{ OP_aten_log_sigmoid, 0, 0, SYM_PRIO_BASE, sym_log_sigmoid },
	{ OP_aten_log_softmax, 0, 0, SYM_PRIO_BASE, sym_log_softmax },
	{ OP_aten_logical_and, 0, 0, SYM_PRIO_BASE, sym_and },
	{ OP_aten_logical_not, 0, 0, SYM_PRIO_BASE, sym_logical_not },
	{ OP_aten_logical_or, 0, 0, SYM_PRIO_BASE, sym_or },
	{ OP_aten_lt, 0, 0, SYM_PRIO_BASE, sym_lt },
	{ OP_aten_masked_fill, 9, 0, SYM_PRIO_BASE, sym_masked_fill },
	{ OP_aten_matmul, 0, 0, SYM_PRIO_BASE, sym_matmul },
	{ OP_aten_max, 0, 0, SYM_PRIO_BASE, sym_max },
	{ OP_aten_max_pool1d, 0, 0, SYM_PRIO_BASE, sym_max_pool },
	{ OP_aten_max_pool2d, 0, 0, SYM_PRIO_BASE, sym_max_pool },
	{ OP_aten_max_pool3d, 0, 0, SYM_PRIO_BASE, sym_max_pool },
	{ OP_aten_maximum, 0, 0, SYM_PRIO_BASE, sym_maximum },
	{ OP_aten_mean, 0, 0, SYM_PRIO_BASE, sym_mean },
	{ OP_aten_min, 0, 0, SYM_PRIO_BASE, sym_min },
	{ OP_aten_minimum, 0, 0, SYM_PRIO_BASE, sym_minimum },
	{ OP_aten_mish, 0, 0, SYM_PRIO_BASE, sym_mish },
	{ OP_aten_mm, 0, 0, SYM_PRIO_BASE, sym_matmul },
	{ OP_aten_mul, 0, 0, SYM_PRIO_BASE, sym_mul },
	{ OP_aten_ne, 0, 0, SYM_PRIO_BASE, sym_ne },
	{ OP_aten_neg, 0, 0, SYM_PRIO_BASE, sym_neg },
	{ OP_aten_numel, 0, 0, SYM_PRIO_BASE, sym_numel },
	{ OP_aten_ones, 0, 0, SYM_PRIO_BASE, sym_ones },
	{ OP_aten_ones_like, 9, 0, SYM_PRIO_BASE, sym_ones_like },
	{ OP_aten_pad, 0, 0, SYM_PRIO_BASE, sym_pad },
	{ OP_aten_permute, 0, 0, SYM_PRIO_BASE, sym_permute },
	{ OP_aten_pow, 0, 0, SYM_PRIO_BASE, sym_pow },
	{ OP_aten_prod, 0, 0, SYM_PRIO_BASE, sym_prod },
	{ OP_aten_reciprocal, 0, 0, SYM_PRIO_BASE, sym_reciprocal },
	{ OP_aten_relu, 0, 0, SYM_PRIO_BASE, sym_relu },
	{ OP_aten_relu6, 0, 0, SYM_PRIO_BASE, sym_relu6 },
	{ OP_aten_repeat, 0, 0, SYM_PRIO_BASE, sym_repeat },
	{ OP_aten_reshape, 0, 0, SYM_PRIO_BASE, sym_view },
	{ OP_aten_rsqrt, 0, 0, SYM_PRIO_BASE, sym_rsqrt },
	{ OP_aten_rsub, 0, 0, SYM_PRIO_BASE, sym_rsub },
	{ OP_aten_select, 0, 0, SYM_PRIO_BASE, sym_select },
	{ OP_aten_sigmoid, 0, 0, SYM_PRIO_BASE, sym_sigmoid },
	{ OP_aten_sign, 9, 0, SYM_PRIO_BASE, sym_sign },
	{ OP_aten_silu, 0, 0, SYM_PRIO_BASE, sym_silu },
	{ OP_aten_sin, 0, 0, SYM_PRIO_BASE, sym_sin },
	{ OP_aten_size, 0, 0, SYM_PRIO_BASE, sym_size },
	{ OP_aten_slice, 0, 0, SYM_PRIO_BASE, sym_slice },
	{ OP_aten_softmax, 0, 0, SYM_PRIO_BASE, sym_softmax },
	{ OP_aten_softplus, 0, 0, SYM_PRIO_BASE, sym_softplus },
	{ OP_aten_split, 0, 0, SYM_PRIO_BASE, sym_split },
	{ OP_aten_split_with_sizes, 0, 0, SYM_PRIO_BASE, sym_split },
	{ OP_aten_sqrt, 0, 0, SYM_PRIO_BASE, sym_sqrt },
	{ OP_aten_squeeze, 0, 0, SYM_PRIO_BASE, sym_squeeze },
	{ OP_aten_stack, 0, 0, SYM_PRIO_BASE, sym_stack },
	{ OP_aten_sub, 0, 0, SYM_PRIO_BASE, sym_sub },
	{ OP_aten_sum, 0, 0, SYM_PRIO_BASE, sym_sum },
	{ OP_aten_t, 0, 0, SYM_PRIO_BASE, sym_t },
	{ OP_aten_tanh, 0, 0, SYM_PRIO_BASE, sym_tanh },
	{ OP_aten_topk, 0, 0, SYM_PRIO_BASE, sym_topk },
	{ OP_aten_to, 0, 0, SYM_PRIO_BASE, sym_to },
	{ OP_aten_swapaxes, 0, 0, SYM_PRIO_BASE, sym_transpose },
	{ OP_aten_swapdims, 0, 0, SYM_PRIO_BASE, sym_transpose },
	{ OP_aten_transpose, 0, 0, SYM_PRIO_BASE, sym_transpose },
	{ OP_aten_tril, 9, 13, SYM_PRIO_BASE, sym_tril },
	{ OP_aten_triu, 9, 13, SYM_PRIO_BASE, sym_triu },
	{ OP_aten_type_as, 0, 0, SYM_PRIO_BASE, sym_type_as },
	{ OP_aten_unbind, 0, 0, SYM_PRIO_BASE, sym_unbind },
	{ OP_aten_unsqueeze, 0, 0, SYM_PRIO_BASE, sym_unsqueeze },
	{ OP_aten_upsample_bilinear2d, 0, 0, SYM_PRIO_BASE, sym_upsample_linear9 },
	{ OP_aten_upsample_nearest1d, 0, 0, SYM_PRIO_BASE, sym_upsample_nearest },
	{ OP_aten_upsample_nearest2d, 0, 0, SYM_PRIO_BASE, sym_upsample_nearest },
	{ OP_aten_upsample_nearest3d, 0, 0, SYM_PRIO_BASE, sym_upsample_nearest },
	{ OP_aten_view, 0, 0, SYM_PRIO_BASE, sym_view },
	/* the *_copy forms of the view ops (functionalized graphs: torch
	 * 2.x's view_copy & co., _unsafe_view): the view's symbolic, ONNX
	 * values being never views (lower.c binds them as copies) */
	{ OP_aten_view_copy, 0, 0, SYM_PRIO_BASE, sym_view },
	{ OP_aten__unsafe_view, 0, 0, SYM_PRIO_BASE, sym_view },
	{ OP_aten_permute_copy, 0, 0, SYM_PRIO_BASE, sym_permute },
	{ OP_aten_expand_copy, 8, 0, SYM_PRIO_BASE, sym_expand },
	{ OP_aten_squeeze_copy, 0, 0, SYM_PRIO_BASE, sym_squeeze },
	{ OP_aten_unsqueeze_copy, 0, 0, SYM_PRIO_BASE, sym_unsqueeze },
	{ OP_aten_t_copy, 0, 0, SYM_PRIO_BASE, sym_t },
	{ OP_aten_transpose_copy, 0, 0, SYM_PRIO_BASE, sym_transpose },
	{ OP_aten_slice_copy, 0, 0, SYM_PRIO_BASE, sym_slice },
	{ OP_aten_select_copy, 0, 0, SYM_PRIO_BASE, sym_select },
	{ OP_aten_detach_copy, 0, 0, SYM_PRIO_BASE, sym_identity },
	{ OP_aten_alias_copy, 0, 0, SYM_PRIO_BASE, sym_identity },
	{ OP_aten_lift_fresh_copy, 0, 0, SYM_PRIO_BASE, sym_identity },
	{ OP_aten_diagonal_copy, 0, 0, SYM_PRIO_BASE, sym_x_diagonal },
	{ OP_aten_unbind_copy, 0, 0, SYM_PRIO_BASE, sym_unbind },
	{ OP_aten_split_copy, 0, 0, SYM_PRIO_BASE, sym_split },
	{ OP_aten_split_with_sizes_copy, 0, 0, SYM_PRIO_BASE, sym_split },
	{ OP_aten_where, 9, 0, SYM_PRIO_BASE, sym_where },
	{ OP_aten_zeros, 0, 0, SYM_PRIO_BASE, sym_zeros },
	{ OP_aten_zeros_like, 9, 0, SYM_PRIO_BASE, sym_zeros_like },
	{ OP_aten_zero, 0, 0, SYM_PRIO_BASE, sym_zero },
	{ OP_prim_NumToTensor, 0, 0, SYM_PRIO_BASE, sym_num_to_tensor },
	{ OP_aten_alias, 0, 0, SYM_PRIO_BASE, sym_identity },
	{ OP_aten_remainder, 0, 0, SYM_PRIO_BASE, sym_remainder },
	{ OP_aten_var, 0, 0, SYM_PRIO_BASE, sym_var },
	{ OP_aten_std, 0, 0, SYM_PRIO_BASE, sym_std },
	{ OP_aten_flip, 0, 0, SYM_PRIO_BASE, sym_flip },
	{ OP_aten_norm, 0, 0, SYM_PRIO_BASE, sym_norm },
	{ OP_aten_linalg_vector_norm, 0, 0, SYM_PRIO_BASE, sym_linalg_vector_norm },
	{ OP_aten__scaled_dot_product_attention, 0, 0, SYM_PRIO_BASE, sym_sdpa },
	{ OP_aten_scaled_dot_product_attention, 0, 0, SYM_PRIO_BASE, sym_scaled_dot_product_attention },
	{ OP_aten__transformer_encoder_layer_fwd, 0, 0, SYM_PRIO_BASE, sym_transformer_encoder_layer_fwd },
	{ OP_aten__native_multi_head_attention, 0, 0, SYM_PRIO_BASE, sym_native_multi_head_attention },
	{ OP_aten_lstm, 0, 0, SYM_PRIO_BASE, sym_lstm },
	{ OP_aten__pack_padded_sequence, 0, 0, SYM_PRIO_BASE,
	  sym_pack_padded_sequence },
	{ OP_aten__pad_packed_sequence, 0, 0, SYM_PRIO_BASE,
	  sym_pad_packed_sequence },
	{ OP_aten_size, 0, 0, SYM_PRIO_OVER, sym_packed_size },
	{ OP_aten_lstm_cell, 0, 0, SYM_PRIO_BASE, sym_lstm_cell },
	{ OP_aten_gru_cell, 0, 0, SYM_PRIO_BASE, sym_gru_cell },
	{ OP_aten_rnn_tanh_cell, 0, 0, SYM_PRIO_BASE, sym_rnn_tanh_cell },
	{ OP_aten_rnn_relu_cell, 0, 0, SYM_PRIO_BASE, sym_rnn_relu_cell },
	{ OP_aten_gru, 0, 0, SYM_PRIO_BASE, sym_gru },
	{ OP_aten_rnn_tanh, 0, 0, SYM_PRIO_BASE, sym_rnn_tanh },
	{ OP_aten_rnn_relu, 0, 0, SYM_PRIO_BASE, sym_rnn_relu },
};

const struct symbolic_table symbolic_opset9_table = {
	opset9, sizeof(opset9) / sizeof(opset9[0]),
};

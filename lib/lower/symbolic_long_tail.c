/*
 * symbolic_long_tail.c - symbolic functions for the long tail of aten
 * operators that torch.onnx.export and the opset tables lack (issue 14):
 * elementwise math with no ONNX op of its own (atan2, copysign, hypot,
 * logaddexp, xlogy, trunc, ...), the fused products (addcdiv, addmv, addr,
 * addbmm), the matrix views (mT, mH, adjoint) and the stacking and
 * flipping helpers (hstack, vstack, dstack, column_stack, atleast_Nd,
 * fliplr, flipud, rot90).  Each is an exact ONNX decomposition of torch
 * 1.13's definition (ATen/native) or declines with the
 * reason.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "symbolic_common.h"

#define T(i) lw_tensor(c, n, (i))
#define NARGS ((int)n->ninputs)

static struct ir_value *scal(struct lower_ctx *c, double v, enum ir_dtype dt)
{
	return b_const_scalar(c, v, dt, 0);
}

/* The float dtype torch computes a float function of inputs ia, ib in
 * (ib < 0: one input): their promotion, Float for integers and bools. */
static enum ir_dtype float_type(struct lower_ctx *c, struct ir_node *n,
				int ia, int ib)
{
	enum ir_dtype dt = ib < 0 ? b_dtype(T(ia)) : sym_result_type(c, n, ia, ib);
	return b_is_float(dt) ? dt : IR_DTYPE_FLOAT;
}

/* 1 where v is negative or -0 (its sign bit set, NaN aside): 1/-0 is
 * -inf, and v < 0 covers -inf, whose reciprocal is -0. */
static struct ir_value *sign_set(struct lower_ctx *c, struct ir_value *v)
{
	enum ir_dtype dt = b_dtype(v);
	return b_op2(c, "Or", b_op2(c, "Less", v, scal(c, 0, dt)),
		     b_op2(c, "Less", b_op2(c, "Div", scal(c, 1, dt), v),
			   scal(c, 0, dt)));
}

/* --- elementwise ----------------------------------------------------------- */

/* x * k in x's float dtype (deg2rad, rad2deg: torch multiplies by the
 * constant, as here). */
static int scale_f(struct lower_ctx *c, struct ir_node *n,
		   struct ir_value **out, double k)
{
	struct ir_value *x = T(0);
	if (!x)
		return lw_decline(c, "the input is not a tensor");
	enum ir_dtype dt = float_type(c, n, 0, -1);
	out[0] = b_op2(c, "Mul", b_cast(c, x, dt), scal(c, k, dt));
	return 0;
}

static SYM(sym_deg2rad) { return scale_f(c, n, out, M_PI / 180.0); }
static SYM(sym_rad2deg) { return scale_f(c, n, out, 180.0 / M_PI); }

static SYM(sym_exp2)
{
	struct ir_value *x = T(0);
	if (!x)
		return lw_decline(c, "the input is not a tensor");
	enum ir_dtype dt = float_type(c, n, 0, -1);
	out[0] = b_op2(c, "Pow", scal(c, 2, dt), b_cast(c, x, dt));
	return 0;
}

static SYM(sym_expm1)
{
	struct ir_value *x = T(0);
	if (!x)
		return lw_decline(c, "the input is not a tensor");
	enum ir_dtype dt = float_type(c, n, 0, -1);
	out[0] = b_op2(c, "Sub", b_op1(c, "Exp", b_cast(c, x, dt)),
		       scal(c, 1, dt));
	return 0;
}

/* erfc(x) = 1 - erf(x) up to x = lo; above, where 1 - erf(x) cancels (it
 * is 0 from 3.9 in float), erfc's Chebyshev fit of Numerical Recipes
 * (erfcc: t exp(-x^2 + P(t)), t = 1 / (1 + x/2), relative error under
 * 1.2e-7 for every x >= 0), with x^2 split as xh^2 + (x - xh)(x + xh), xh
 * x to 1/256, so that the large exponent is exact.  Float and half compute
 * in float (lo 0.5), double in double (lo 4.3, where 1 - erf's error is
 * the fit's).  x is clipped to [lo, hi] in the fit (hi: erfc underflows
 * to 0), and a NaN takes the Erf branch. */
static SYM(sym_erfc)
{
	static const double k[] = { 0.17087277, -0.82215223, 1.48851587,
				    -1.13520398, 0.27886807, -0.18628806,
				    0.09678418, 0.37409196, 1.00002368,
				    -1.26551223 };
	struct ir_value *x = T(0);
	if (!x)
		return lw_decline(c, "the input is not a tensor");
	enum ir_dtype dt = float_type(c, n, 0, -1);
	enum ir_dtype cd = dt == IR_DTYPE_DOUBLE ? dt : IR_DTYPE_FLOAT;
	double lo = cd == IR_DTYPE_DOUBLE ? 4.3 : 0.5;
	x = b_cast(c, x, cd);
	struct ir_value *z = b_clip(c, x, lo, cd == IR_DTYPE_DOUBLE ? 28 : 11);
	struct ir_value *t = b_op2(c, "Div", scal(c, 1, cd), b_op2(c, "Add",
			scal(c, 1, cd), b_op2(c, "Mul", z, scal(c, 0.5, cd))));
	struct ir_value *p = scal(c, k[0], cd);
	for (int i = 1; i < 10; i++)
		p = b_op2(c, "Add", b_op2(c, "Mul", p, t), scal(c, k[i], cd));
	struct ir_value *zh = b_op2(c, "Div", b_op1(c, "Floor", b_op2(c, "Mul",
			z, scal(c, 256, cd))), scal(c, 256, cd));
	struct ir_value *rest = b_op2(c, "Mul", b_op2(c, "Sub", z, zh),
				      b_op2(c, "Add", z, zh));
	struct ir_value *fit = b_op2(c, "Mul", b_op2(c, "Mul", t,
			b_op1(c, "Exp", b_op1(c, "Neg", b_op2(c, "Mul", zh, zh)))),
			b_op1(c, "Exp", b_op2(c, "Sub", p, rest)));
	struct ir_value *near = b_op2(c, "Sub", scal(c, 1, cd),
				      b_op1(c, "Erf", x));
	out[0] = b_cast(c, b_op3(c, "Where", b_op2(c, "Greater", x,
			scal(c, lo, cd)), fit, near), dt);
	return 0;
}

/* trunc of a float: Sign(x) * Floor(|x|); integers are their own. */
static struct ir_value *trunc_of(struct lower_ctx *c, struct ir_value *x)
{
	if (!b_is_float(b_dtype(x)))
		return x;
	return b_op2(c, "Mul", b_op1(c, "Sign", x),
		     b_op1(c, "Floor", b_op1(c, "Abs", x)));
}

static SYM(sym_trunc)
{
	struct ir_value *x = T(0);
	if (!x)
		return lw_decline(c, "the input is not a tensor");
	out[0] = trunc_of(c, x);
	return 0;
}

static SYM(sym_frac)
{
	struct ir_value *x = T(0);
	if (!x)
		return lw_decline(c, "the input is not a tensor");
	if (!b_is_float(b_dtype(x)))
		return lw_decline(c, "frac of an integer tensor (torch refuses it)");
	out[0] = b_op2(c, "Sub", x, trunc_of(c, x));
	return 0;
}

static SYM(sym_logit)
{
	/* logit(self, eps=None): log(z / (1 - z)), z clamped to [eps, 1 -
	 * eps] when eps is given */
	struct ir_value *x = T(0);
	double eps;
	if (!x)
		return lw_decline(c, "the input is not a tensor");
	enum ir_dtype dt = float_type(c, n, 0, -1);
	x = b_cast(c, x, dt);
	if (NARGS > 1 && !lw_is_none(c, n, 1)) {
		if (!lw_float(c, n, 1, &eps))
			return lw_decline(c, "eps is not constant");
		x = b_op2(c, "Max", x, scal(c, eps, dt));
		x = b_op2(c, "Min", x, scal(c, 1 - eps, dt));
	}
	out[0] = b_op1(c, "Log", b_op2(c, "Div", x,
				  b_op2(c, "Sub", scal(c, 1, dt), x)));
	return 0;
}

/* Inputs 0 and 1 in the float dtype of their promotion. */
int sym_float_pair(struct lower_ctx *c, struct ir_node *n,
		   struct ir_value **a, struct ir_value **b)
{
	enum ir_dtype dt = float_type(c, n, 0, 1);
	*a = sym_operand(c, n, 0, dt);
	*b = sym_operand(c, n, 1, dt);
	if (!*a || !*b)
		return lw_decline(c, "operands are not tensors or numbers");
	return 0;
}

static SYM(sym_atan2)
{
	/* atan(y / x), plus pi (y's sign) where x's sign bit is set; both
	 * zero: 0 (or +-pi for x = -0); both infinite: +-pi/4 or +-3pi/4;
	 * as C's atan2 and torch */
	struct ir_value *y, *x;
	if (sym_float_pair(c, n, &y, &x))
		return 1;
	enum ir_dtype dt = b_dtype(y);
	struct ir_value *zero = scal(c, 0, dt);
	struct ir_value *both0 = b_op2(c, "And", b_op2(c, "Equal", y, zero),
				       b_op2(c, "Equal", x, zero));
	/* both infinite: y / x is NaN, C's atan2 takes +-1 (pi/4 ...) */
	struct ir_value *bothinf = b_op2(c, "And", b_op1(c, "IsInf", y),
					 b_op1(c, "IsInf", x));
	struct ir_value *ratio = b_op3(c, "Where", bothinf,
				       b_op2(c, "Mul", b_op1(c, "Sign", y),
					     b_op1(c, "Sign", x)),
				       b_op2(c, "Div", y, x));
	struct ir_value *base = b_op3(c, "Where", both0, y,
				      b_op1(c, "Atan", ratio));
	struct ir_value *pi = b_op3(c, "Where", sign_set(c, y), scal(c, -M_PI, dt),
				    scal(c, M_PI, dt));
	out[0] = b_op2(c, "Add", base,
		       b_op3(c, "Where", sign_set(c, x), pi, zero));
	return 0;
}

static SYM(sym_copysign)
{
	struct ir_value *a, *b;
	if (sym_float_pair(c, n, &a, &b))
		return 1;
	struct ir_value *m = b_op1(c, "Abs", a);
	out[0] = b_op3(c, "Where", sign_set(c, b), b_op1(c, "Neg", m), m);
	return 0;
}

static SYM(sym_hypot)
{
	struct ir_value *a, *b;
	if (sym_float_pair(c, n, &a, &b))
		return 1;
	out[0] = b_op1(c, "Sqrt", b_op2(c, "Add", b_op2(c, "Mul", a, a),
					b_op2(c, "Mul", b, b)));
	return 0;
}

/* logaddexp (base 0: e) and logaddexp2 (base 2): max(a, b) +
 * log(1 + base^-|a - b|). */
static int logaddexp(struct lower_ctx *c, struct ir_node *n,
		     struct ir_value **out, int two)
{
	struct ir_value *a, *b;
	if (sym_float_pair(c, n, &a, &b))
		return 1;
	enum ir_dtype dt = b_dtype(a);
	struct ir_value *m = b_op2(c, "Max", a, b);
	struct ir_value *d = b_op1(c, "Neg", b_op1(c, "Abs", b_op2(c, "Sub", a, b)));
	struct ir_value *e = two ? b_op2(c, "Pow", scal(c, 2, dt), d)
				 : b_op1(c, "Exp", d);
	struct ir_value *l = b_op1(c, "Log", b_op2(c, "Add", scal(c, 1, dt), e));
	if (two)
		l = b_op2(c, "Div", l, scal(c, M_LN2, dt));
	/* a == b: a + log(2) (base 2: a + 1), which keeps infinities of
	 * one sign where the difference would be NaN */
	out[0] = b_op3(c, "Where", b_op2(c, "Equal", a, b),
		       b_op2(c, "Add", a, scal(c, two ? 1 : M_LN2, dt)),
		       b_op2(c, "Add", m, l));
	return 0;
}

static SYM(sym_logaddexp) { return logaddexp(c, n, out, 0); }
static SYM(sym_logaddexp2) { return logaddexp(c, n, out, 1); }

static SYM(sym_xlogy)
{
	/* 0 where x == 0 and y is no NaN, else x * log(y) */
	struct ir_value *x, *y;
	if (sym_float_pair(c, n, &x, &y))
		return 1;
	enum ir_dtype dt = b_dtype(x);
	struct ir_value *zero = b_op2(c, "And",
			b_op2(c, "Equal", x, scal(c, 0, dt)),
			b_op1(c, "Not", b_op1(c, "IsNaN", y)));
	out[0] = b_op3(c, "Where", zero, scal(c, 0, dt),
		       b_op2(c, "Mul", x, b_op1(c, "Log", y)));
	return 0;
}

static SYM(sym_sgn)
{
	/* sign of a real tensor */
	struct ir_value *x = T(0);
	if (!x)
		return lw_decline(c, "the input is not a tensor");
	if (b_dtype(x) == IR_DTYPE_BOOL) {
		out[0] = x;
		return 0;
	}
	out[0] = b_op1(c, "Sign", x);
	return 0;
}

/* bits 0..nbits-1 of the int64 x (two's complement) along a new last
 * axis (pw: their weights 2^k): floor(x / 2^k) mod 2, the floor from Div's
 * truncation (minus 1 where the remainder is negative) */
static struct ir_value *low_bits(struct lower_ctx *c, struct ir_value *x,
				 struct ir_value *pw)
{
	static const int64_t last = -1;
	struct ir_value *xu = b_unsqueeze(c, x, &last, 1);
	struct ir_value *q = b_op2(c, "Div", xu, pw);
	struct ir_value *rem = b_op2(c, "Sub", xu, b_op2(c, "Mul", q, pw));
	q = b_op2(c, "Sub", q, b_cast(c, b_op2(c, "Less", rem,
			scal(c, 0, IR_DTYPE_INT64)), IR_DTYPE_INT64));
	return b_op2(c, "Mod", q, scal(c, 2, IR_DTYPE_INT64));
}

/* and (0), or (1), xor (2) of integers before opset 18, exactly, bit by
 * bit in int64: the dtype's value bits (a w-bit signed type has w - 1, an
 * unsigned one w; 64-bit types are taken as int64) as 0/1, combined and
 * summed with their weights; the sign bit the signs' And/Or/Xor, weighing
 * -2^(w-1) (sign-extended, as the int64 value of a w-bit one).  Cast back
 * to the operands' dtype. */
static struct ir_value *bitwise_by_bits(struct lower_ctx *c,
					struct ir_value *a,
					struct ir_value *b, int op,
					enum ir_dtype dt)
{
	static const char *const lops[3] = { "And", "Or", "Xor" };
	int w = (int)(8 * ir_dtype_size(dt));
	int is_unsigned = w < 64 && (dt == IR_DTYPE_UINT8 ||
		dt == IR_DTYPE_UINT16 || dt == IR_DTYPE_UINT32);
	int nbits = is_unsigned ? w : w - 1;
	int64_t pw[63], last = -1;
	for (int k = 0; k < nbits; k++)
		pw[k] = (int64_t)1 << k;
	a = b_cast(c, a, IR_DTYPE_INT64);
	b = b_cast(c, b, IR_DTYPE_INT64);
	struct ir_value *p = b_const_i64s(c, pw, nbits, 1);
	struct ir_value *ba = low_bits(c, a, p), *bb = low_bits(c, b, p), *r;
	if (op == 0)
		r = b_op2(c, "Mul", ba, bb);
	else if (op == 1)
		r = b_op2(c, "Sub", b_op2(c, "Add", ba, bb), b_op2(c, "Mul", ba, bb));
	else
		r = b_op1(c, "Abs", b_op2(c, "Sub", ba, bb));
	/* ONNX Runtime's int64 ReduceSum is not exact past 2^53: over 32
	 * bits, bits 0..31 and 32.. are summed apart (each under 2^32), the
	 * high sum times 2^32 */
	int lo = nbits < 32 ? nbits : 32;
	struct ir_value *sum = b_reduce(c, "ReduceSum", b_op2(c, "Mul",
		nbits > lo ? b_slice(c, r, 0, lo, -1, 1) : r,
		b_const_i64s(c, pw, lo, 1)), &last, 1, 0);
	if (nbits > lo) {
		struct ir_value *shi = b_reduce(c, "ReduceSum", b_op2(c, "Mul",
			b_slice(c, r, lo, nbits, -1, 1),
			b_const_i64s(c, pw, nbits - lo, 1)), &last, 1, 0);
		sum = b_op2(c, "Add", sum, b_op2(c, "Mul", shi,
				b_const_i64(c, (int64_t)1 << 32)));
	}
	if (!is_unsigned) {
		struct ir_value *zero = scal(c, 0, IR_DTYPE_INT64);
		struct ir_value *sign = b_op2(c, lops[op],
					      b_op2(c, "Less", a, zero),
					      b_op2(c, "Less", b, zero));
		int64_t sw = w == 64 ? INT64_MIN : -((int64_t)1 << (w - 1));
		sum = b_op2(c, "Add", sum, b_op3(c, "Where", sign,
					       b_const_i64(c, sw), zero));
	}
	return b_cast(c, sum, dt);
}

/* bitwise_and / or / xor: And/Or/Xor of bools; integers with
 * BitwiseAnd/Or/Xor from opset 18, bit by bit before (opset 10: Mod). */
int sym_bitwise(struct lower_ctx *c, struct ir_node *n, struct ir_value **out,
		const char *lop, const char *bop)
{
	enum ir_dtype dt = sym_result_type(c, n, 0, 1);
	struct ir_value *a = sym_operand(c, n, 0, dt);
	struct ir_value *b = sym_operand(c, n, 1, dt);
	if (!a || !b)
		return lw_decline(c, "operands are not tensors or numbers");
	if (dt == IR_DTYPE_BOOL) {
		out[0] = b_op2(c, lop, a, b);
		return 0;
	}
	if (b_is_float(dt) || dt == IR_DTYPE_UNDEFINED)
		return lw_decline(c, "bitwise op of a float or unknown dtype");
	if (c->opset < 10)
		return lw_decline(c, "bitwise ops on integers need opset 10 "
				  "(bit by bit) or 18");
	if (c->opset < 18)
		out[0] = bitwise_by_bits(c, a, b, !strcmp(lop, "And") ? 0 :
					 !strcmp(lop, "Or") ? 1 : 2, dt);
	else
		out[0] = b_op2(c, bop, a, b);
	return 0;
}

static SYM(sym_bitwise_and) { return sym_bitwise(c, n, out, "And", "BitwiseAnd"); }
static SYM(sym_bitwise_or) { return sym_bitwise(c, n, out, "Or", "BitwiseOr"); }
static SYM(sym_bitwise_xor) { return sym_bitwise(c, n, out, "Xor", "BitwiseXor"); }

/* fmax / fmin: Max / Min that take the other operand where one is NaN
 * (NaN only where both are) */
static int fext(struct lower_ctx *c, struct ir_node *n,
		struct ir_value **out, const char *op)
{
	enum ir_dtype dt = sym_result_type(c, n, 0, 1);
	struct ir_value *a = sym_operand(c, n, 0, dt);
	struct ir_value *b = sym_operand(c, n, 1, dt);
	if (!a || !b || dt == IR_DTYPE_UNDEFINED)
		return lw_decline(c, "operands are not tensors of known dtype");
	if (!b_is_float(dt) && c->opset < 12)
		return lw_decline(c, "Max/Min of integers need opset 12");
	struct ir_value *r = b_op2(c, op, a, b);
	if (b_is_float(dt)) {
		r = b_op3(c, "Where", b_op1(c, "IsNaN", a), b, r);
		r = b_op3(c, "Where", b_op1(c, "IsNaN", b), a, r);
	}
	out[0] = r;
	return 0;
}

static SYM(sym_fmax) { return fext(c, n, out, "Max"); }
static SYM(sym_fmin) { return fext(c, n, out, "Min"); }

/* float_power: Pow in double (torch's result dtype) */
static SYM(sym_float_power)
{
	struct ir_value *a = sym_operand(c, n, 0, IR_DTYPE_DOUBLE);
	struct ir_value *b = sym_operand(c, n, 1, IR_DTYPE_DOUBLE);
	if (!a || !b)
		return lw_decline(c, "operands are not tensors or numbers");
	out[0] = b_op2(c, "Pow", b_cast(c, a, IR_DTYPE_DOUBLE),
		       b_cast(c, b, IR_DTYPE_DOUBLE));
	return 0;
}

/* tile(self, dims): Tile, dims padded in front with 1s to self's rank,
 * self with dims of 1 in front where dims is longer (torch's) */
static SYM(sym_tile)
{
	struct ir_value *x = T(0);
	int64_t k[64], reps[64];
	int nk = lw_ints(c, n, 1, k, 64, 0), r = b_rank(x);
	if (!x || nk < 0 || r < 0 || r > 64)
		return lw_decline(c, "dims not constant or rank unknown");
	int m = nk > r ? nk : r;
	if (nk > r) {
		int64_t axes[64];
		for (int i = 0; i < nk - r; i++)
			axes[i] = i;
		x = b_unsqueeze(c, x, axes, nk - r);
	}
	for (int i = 0; i < m; i++)
		reps[i] = i < m - nk ? 1 : k[i - (m - nk)];
	out[0] = m ? b_op2(c, "Tile", x, b_const_i64s(c, reps, m, 1)) : x;
	return 0;
}

static SYM(sym_ravel)
{
	static const int64_t m1 = -1;
	struct ir_value *x = T(0);
	if (!x)
		return lw_decline(c, "the input is not a tensor");
	out[0] = b_op2(c, "Reshape", x, b_const_i64s(c, &m1, 1, 1));
	return 0;
}

/* trace of a matrix, of any sizes: its entries where EyeLike has ones
 * (Where, not a product: an infinity off the diagonal stays out)
 * summed, integers as Long.  No constant grows with the matrix. */
static SYM(sym_trace)
{
	struct ir_value *x = T(0);
	if (!x || b_rank(x) != 2)
		return lw_decline(c, "the input is not a matrix");
	enum ir_dtype dt = b_is_float(b_dtype(x)) ? b_dtype(x) : IR_DTYPE_INT64;
	x = b_cast(c, x, dt);
	/* EyeLike's input as ONNX Runtime takes it (no half floats) */
	struct ir_value *ex = dt == IR_DTYPE_FLOAT || dt == IR_DTYPE_DOUBLE ||
			      dt == IR_DTYPE_INT64 ? x
						   : b_cast(c, x, IR_DTYPE_FLOAT);
	struct ir_node *e = b_node(c, "EyeLike", 1, &ex, 1);
	b_attr_i(c, e, "dtype", IR_DTYPE_FLOAT);
	struct ir_value *on = b_cast(c, b_done(c, e), IR_DTYPE_BOOL);
	out[0] = b_reduce(c, "ReduceSum", b_op3(c, "Where", on, x,
					      b_const_scalar(c, 0, dt, 0)),
			  NULL, 0, 0);
	return 0;
}

/* msort(self): sort's values along dim 0 */
static SYM(sym_msort)
{
	struct ir_value *x = T(0);
	int r = b_rank(x);
	if (!x || r < 0)
		return lw_decline(c, "the input's rank is not known");
	if (r == 0) {
		out[0] = x;
		return 0;
	}
	if (c->opset < 11)
		return lw_decline(c, "needs opset 11 (TopK largest=0)");
	struct ir_node *t = b_node(c, "TopK", 2, (struct ir_value *[]){
		x, b_op2(c, "Reshape", b_dim(c, x, 0), b_const_i64s(c,
			(const int64_t[]){ 1 }, 1, 1)) }, 2);
	b_attr_i(c, t, "axis", 0);
	b_attr_i(c, t, "largest", 0);
	b_done(c, t);
	out[0] = t->outputs[0];
	return 0;
}

/* kthvalue(self, k, dim, keepdim): the k smallest by TopK (largest=0),
 * the last of them */
static SYM(sym_kthvalue)
{
	struct ir_value *x = T(0);
	int64_t k, dim = -1, keep = 0;
	int r = b_rank(x);
	if (!x || r < 0 || !lw_int(c, n, 1, &k) || !lw_int(c, n, 2, &dim) ||
	    !lw_int(c, n, 3, &keep))
		return lw_decline(c, "rank unknown or k, dim, keepdim not constant");
	if (c->opset < 11)
		return lw_decline(c, "needs opset 11 (TopK largest=0)");
	if (r == 0) {
		out[0] = x;
		out[1] = b_const_i64(c, 0);
		return 0;
	}
	if (dim < 0)
		dim += r;
	if (dim < 0 || dim >= r || k < 1)
		return lw_decline(c, "dim or k out of range");
	struct ir_node *t = b_node(c, "TopK", 2, (struct ir_value *[]){
		x, b_const_i64s(c, &k, 1, 1) }, 2);
	b_attr_i(c, t, "axis", dim);
	b_attr_i(c, t, "largest", 0);
	b_done(c, t);
	for (int i = 0; i < 2; i++) {
		out[i] = b_slice(c, t->outputs[i], k - 1, k, dim, 1);
		if (!keep)
			out[i] = b_squeeze(c, out[i], &dim, 1);
	}
	return 0;
}

/* take_along_dim(self, indices, dim?): GatherElements of the two
 * broadcast against each other but at dim (sizes known); no dim: of
 * both flattened */
static SYM(sym_take_along_dim)
{
	struct ir_value *x = T(0), *idx = T(1);
	int64_t dim, m1 = -1, sx[64], si[64];
	int r = b_rank(x);
	if (!x || !idx || r < 0 || r > 64 || b_rank(idx) != r)
		return lw_decline(c, "inputs of unknown or different ranks");
	idx = b_cast(c, idx, IR_DTYPE_INT64);
	if (lw_is_none(c, n, 2)) {
		x = b_op2(c, "Reshape", x, b_const_i64s(c, &m1, 1, 1));
		idx = b_op2(c, "Reshape", idx, b_const_i64s(c, &m1, 1, 1));
		dim = 0;
	} else {
		if (!lw_int(c, n, 2, &dim))
			return lw_decline(c, "dim not constant");
		if (dim < 0)
			dim += r;
		if (dim < 0 || dim >= r)
			return lw_decline(c, "dim out of range");
		int bx = 0, bi = 0;
		for (int i = 0; i < r; i++) {
			int64_t a = b_dim_size(x, i), b = b_dim_size(idx, i);
			if (a < 0 || b < 0)
				return lw_decline(c, "sizes not known");
			sx[i] = si[i] = a == 1 ? b : a;
			if (i == dim) {
				sx[i] = a;
				si[i] = b;
			}
			bx |= sx[i] != a;
			bi |= si[i] != b;
		}
		if (bx)
			x = b_op2(c, "Expand", x, b_const_i64s(c, sx, r, 1));
		if (bi)
			idx = b_op2(c, "Expand", idx, b_const_i64s(c, si, r, 1));
	}
	struct ir_node *g = b_node(c, "GatherElements", 2,
				   (struct ir_value *[]){ x, idx }, 1);
	b_attr_i(c, g, "axis", dim);
	out[0] = b_done(c, g);
	return 0;
}

/* tril_indices / triu_indices(row, col, offset, dtype, ...): a constant
 * [2, N] of the (i, j) with j - i <= offset (tril) or >= offset (triu),
 * row by row as torch */
#define TRI_MAX (1 << 20)
static int tri_indices(struct lower_ctx *c, struct ir_node *n,
		       struct ir_value **out, int upper)
{
	int64_t row, col, off = 0, st, k = 0;
	if (!lw_int(c, n, 0, &row) || !lw_int(c, n, 1, &col) ||
	    (NARGS > 2 && !lw_int(c, n, 2, &off)))
		return lw_decline(c, "row, col or offset not constant");
	if (row < 0 || col < 0 || row > TRI_MAX || col > TRI_MAX ||
	    row * col > TRI_MAX)
		return lw_decline(c, "row * col out of range (over 2^20)");
	int64_t *v = ir_alloc(c->g, 16 * (size_t)(row * col) + 16);
	for (int pass = 0; pass < 2; pass++)
		for (int64_t i = 0; i < row; i++)
			for (int64_t j = 0; j < col; j++)
				if (upper ? j - i >= off : j - i <= off) {
					if (pass)
						v[k++] = j;
					else
						v[k++] = i;
				}
	int64_t len = k / 2, dims[2] = { 2, len };
	struct ir_value *t = b_const_i64_shaped(c, v, (int)k, dims, 2);
	if (NARGS > 3 && !lw_is_none(c, n, 3) && lw_int(c, n, 3, &st))
		t = b_cast(c, t, lw_torch_dtype(st));
	out[0] = t;
	return 0;
}

static SYM(sym_tril_indices) { return tri_indices(c, n, out, 0); }
static SYM(sym_triu_indices) { return tri_indices(c, n, out, 1); }

/* bilinear(x1, x2, weight, bias?): Einsum ...i,oij,...j->...o (+ bias) */
static SYM(sym_bilinear)
{
	struct ir_value *a = T(0), *b = T(1), *w = T(2);
	if (!a || !b || !w)
		return lw_decline(c, "inputs are not tensors");
	if (c->opset < 12)
		return lw_decline(c, "needs opset 12 (Einsum)");
	struct ir_node *e = b_node(c, "Einsum", 3,
				   (struct ir_value *[]){ a, w, b }, 1);
	b_attr_s(c, e, "equation", "...i,oij,...j->...o");
	out[0] = b_done(c, e);
	int r = b_rank(a);
	if (b_rank(out[0]) < 0 && r >= 1 && b_rank(w) == 3) {
		/* x1's dims, the last one weight's first (b_infer reads no
		 * ellipsis) */
		struct ir_type *t = ir_type_tensor(c->g, b_dtype(a), r, NULL);
		for (int i = 0; i < r - 1; i++)
			t->dims[i] = a->type->dims[i];
		t->dims[r - 1] = w->type->dims[0];
		out[0]->type = t;
	}
	if (!lw_is_none(c, n, 3))
		out[0] = b_op2(c, "Add", out[0], T(3));
	return 0;
}

/* --- losses (reduction: 0 none, 1 mean, 2 sum) ------------------------------- */

int sym_loss_args(struct lower_ctx *c, struct ir_node *n, int ired,
		  struct ir_value **a, struct ir_value **b, int64_t *red)
{
	enum ir_dtype dt = sym_result_type(c, n, 0, 1);
	*a = sym_operand(c, n, 0, dt);
	*b = sym_operand(c, n, 1, dt);
	if (!*a || !*b || !b_is_float(dt))
		return lw_decline(c, "operands are not float tensors");
	if (!lw_int(c, n, ired, red) || *red < 0 || *red > 2)
		return lw_decline(c, "reduction not constant");
	return 0;
}

struct ir_value *sym_loss_reduce(struct lower_ctx *c, struct ir_value *v,
				 int64_t red)
{
	if (red == 0)
		return v;
	return b_reduce(c, red == 1 ? "ReduceMean" : "ReduceSum", v, NULL, 0, 0);
}

static SYM(sym_l1_loss)
{
	struct ir_value *a, *b;
	int64_t red;
	if (sym_loss_args(c, n, 2, &a, &b, &red))
		return 1;
	out[0] = sym_loss_reduce(c, b_op1(c, "Abs", b_op2(c, "Sub", a, b)), red);
	return 0;
}

static SYM(sym_mse_loss)
{
	struct ir_value *a, *b;
	int64_t red;
	if (sym_loss_args(c, n, 2, &a, &b, &red))
		return 1;
	struct ir_value *d = b_op2(c, "Sub", a, b);
	out[0] = sym_loss_reduce(c, b_op2(c, "Mul", d, d), red);
	return 0;
}

/* smooth_l1_loss(self, target, reduction, beta): |d| < beta ?
 * 0.5 d^2 / beta : |d| - 0.5 beta; beta 0 is l1 */
static SYM(sym_smooth_l1_loss)
{
	struct ir_value *a, *b;
	int64_t red;
	double beta = 1;
	if (sym_loss_args(c, n, 2, &a, &b, &red))
		return 1;
	if (NARGS > 3 && !lw_float(c, n, 3, &beta))
		return lw_decline(c, "beta not constant");
	enum ir_dtype dt = b_dtype(a);
	struct ir_value *z = b_op1(c, "Abs", b_op2(c, "Sub", a, b)), *l = z;
	if (beta > 0) {
		struct ir_value *q = b_op2(c, "Div", b_op2(c, "Mul",
			b_op2(c, "Mul", z, z), scal(c, 0.5, dt)), scal(c, beta, dt));
		l = b_op3(c, "Where", b_op2(c, "Less", z, scal(c, beta, dt)), q,
			  b_op2(c, "Sub", z, scal(c, 0.5 * beta, dt)));
	}
	out[0] = sym_loss_reduce(c, l, red);
	return 0;
}

/* binary_cross_entropy(self, target, weight?, reduction): -w (t log x +
 * (1 - t) log(1 - x)), each log clamped at -100 as torch */
static SYM(sym_binary_cross_entropy)
{
	struct ir_value *x, *t;
	int64_t red;
	if (sym_loss_args(c, n, 3, &x, &t, &red))
		return 1;
	enum ir_dtype dt = b_dtype(x);
	struct ir_value *lx = b_op2(c, "Max", b_op1(c, "Log", x), scal(c, -100, dt));
	struct ir_value *l1x = b_op2(c, "Max", b_op1(c, "Log",
		b_op2(c, "Sub", scal(c, 1, dt), x)), scal(c, -100, dt));
	struct ir_value *l = b_op1(c, "Neg", b_op2(c, "Add",
		b_op2(c, "Mul", t, lx),
		b_op2(c, "Mul", b_op2(c, "Sub", scal(c, 1, dt), t), l1x)));
	if (!lw_is_none(c, n, 2)) {
		struct ir_value *w = T(2);
		if (!w)
			return lw_decline(c, "weight is not a tensor");
		l = b_op2(c, "Mul", l, b_cast(c, w, dt));
	}
	out[0] = sym_loss_reduce(c, l, red);
	return 0;
}

/* --- products ---------------------------------------------------------------- */

/* beta * self + alpha * prod, as torch's addmm family: self ignored when
 * beta is 0 (its NaNs too), the factors left out when 1. Inputs ibeta,
 * ialpha (-1: absent) are numbers (constant or not) or 0-d tensors. */
int sym_beta_alpha(struct lower_ctx *c, struct ir_node *n,
		   struct ir_value **out, struct ir_value *self,
		   struct ir_value *prod, int ibeta, int ialpha)
{
	enum ir_dtype dt = b_dtype(prod);
	double v;
	if (ialpha >= 0 && ialpha < NARGS && !lw_is_none(c, n, ialpha)) {
		if (!lw_float(c, n, ialpha, &v)) {
			struct ir_value *a = sym_operand(c, n, ialpha, dt);
			if (!a)
				return lw_decline(c, "alpha is not a number");
			prod = b_op2(c, "Mul", prod, a);
		} else if (v != 1) {
			prod = b_op2(c, "Mul", prod, scal(c, v, dt));
		}
	}
	if (ibeta >= 0 && ibeta < NARGS && !lw_is_none(c, n, ibeta)) {
		if (!lw_float(c, n, ibeta, &v)) {
			struct ir_value *bt = sym_operand(c, n, ibeta, dt);
			if (!bt)
				return lw_decline(c, "beta is not a number");
			/* torch ignores self when beta is 0 (its NaN and
			 * inf do not propagate): Where(beta == 0, 0, ...),
			 * Equal on floats being opset 11's */
			if (c->opset < 11)
				return lw_decline(c, "a run-time beta needs "
						  "opset 11");
			self = b_op3(c, "Where",
				     b_op2(c, "Equal", bt, scal(c, 0, dt)),
				     scal(c, 0, dt),
				     b_op2(c, "Mul", b_cast(c, self, dt), bt));
		} else if (v == 0) {
			self = NULL;
		} else if (v != 1) {
			self = b_op2(c, "Mul", b_cast(c, self, dt), scal(c, v, dt));
		}
	}
	out[0] = self ? b_op2(c, "Add", b_cast(c, self, dt), prod)
		      : b_op2(c, "Add", prod, scal(c, 0, dt));
	return 0;
}

static SYM(sym_addcdiv)
{
	/* self + value * tensor1 / tensor2 (float division) */
	struct ir_value *s = T(0), *a = T(1), *b = T(2);
	double v = 1;
	if (!s || !a || !b)
		return lw_decline(c, "operands are not tensors");
	if (!b_is_float(b_dtype(a)) || !b_is_float(b_dtype(b)))
		return lw_decline(c, "integer division with addcdiv (torch refuses it)");
	if (NARGS > 3 && !lw_is_none(c, n, 3) && !lw_float(c, n, 3, &v))
		return lw_decline(c, "value is not constant");
	enum ir_dtype dt = lw_promote(lw_promote(b_dtype(s), b_dtype(a)),
				      b_dtype(b));
	struct ir_value *q = b_op2(c, "Div", b_cast(c, a, dt), b_cast(c, b, dt));
	if (v != 1)
		q = b_op2(c, "Mul", q, scal(c, v, dt));
	out[0] = b_op2(c, "Add", b_cast(c, s, dt), q);
	return 0;
}

static SYM(sym_addmv)
{
	/* (self, mat, vec, beta, alpha) */
	struct ir_value *s = T(0), *m = T(1), *v = T(2);
	if (!s || !m || !v)
		return lw_decline(c, "operands are not tensors");
	return sym_beta_alpha(c, n, out, s, b_op2(c, "MatMul", m, v), 3, 4);
}

static SYM(sym_addr)
{
	/* (self, vec1, vec2, beta, alpha): outer product */
	struct ir_value *s = T(0), *a = T(1), *b = T(2);
	int64_t one = 1, zero = 0;
	if (!s || !a || !b)
		return lw_decline(c, "operands are not tensors");
	if (b_dtype(a) == IR_DTYPE_BOOL)
		return lw_decline(c, "addr of bool vectors");
	struct ir_value *p = b_op2(c, "Mul", b_unsqueeze(c, a, &one, 1),
				   b_unsqueeze(c, b, &zero, 1));
	return sym_beta_alpha(c, n, out, s, p, 3, 4);
}

static SYM(sym_addbmm)
{
	/* (self, batch1, batch2, beta, alpha): the products summed over the
	 * batch */
	struct ir_value *s = T(0), *a = T(1), *b = T(2);
	int64_t zero = 0;
	if (!s || !a || !b)
		return lw_decline(c, "operands are not tensors");
	struct ir_value *p = b_reduce(c, "ReduceSum", b_op2(c, "MatMul", a, b),
				      &zero, 1, 0);
	return sym_beta_alpha(c, n, out, s, p, 3, 4);
}

/* --- matrix views ------------------------------------------------------------ */

static SYM(sym_mT)
{
	/* the last two dims swapped (mH, adjoint, matrix_H: the same for
	 * real tensors; matrix_H of 2-D ones only, which trace and torch
	 * check) */
	struct ir_value *x = T(0);
	int r = b_rank(x);
	if (!x || r < 0)
		return lw_decline(c, "the input's rank is not known");
	if (r == 0) { /* torch: a 0-d tensor is itself */
		out[0] = b_op1(c, "Identity", x);
		return 0;
	}
	if (r < 2)
		return lw_decline(c, "the input has 1 dim (torch refuses it)");
	out[0] = b_swap_last2(c, x, r);
	return 0;
}

/* --- stacking and flipping ------------------------------------------------- */

/* x with at least k dims, as torch's atleast_1d/2d/3d: a 0-d x is [1],
 * [1,1] or [1,1,1]; a 1-d [n] becomes [1,n] or [1,n,1]; a 2-d [m,n]
 * [m,n,1]. NULL when x's rank is not known. */
static struct ir_value *atleast(struct lower_ctx *c, struct ir_value *x, int k)
{
	int r = b_rank(x);
	static const int64_t ax[3][3][3] = {
		{ { 0 } },
		{ { 0, 1 }, { 0 } },
		{ { 0, 1, 2 }, { 0, 2 }, { 2 } },
	};
	static const int cnt[3][3] = { { 1 }, { 2, 1 }, { 3, 2, 1 } };
	if (r < 0)
		return NULL;
	if (r >= k)
		return x;
	return b_unsqueeze(c, x, ax[k - 1][r], cnt[k - 1][r]);
}

static int atleast_nd(struct lower_ctx *c, struct ir_node *n,
		      struct ir_value **out, int k)
{
	struct ir_value *x = T(0);
	if (!x || !(out[0] = atleast(c, x, k)))
		return lw_decline(c, "the input is not a tensor of known rank "
			"(a list of tensors is not supported)");
	return 0;
}

static SYM(sym_atleast_1d) { return atleast_nd(c, n, out, 1); }
static SYM(sym_atleast_2d) { return atleast_nd(c, n, out, 2); }
static SYM(sym_atleast_3d) { return atleast_nd(c, n, out, 3); }

/* The tensors of list input 0, each made at least k-d (k 0: 1-d ones
 * as columns, column_stack), concatenated on axis. */
static int stack_cat(struct lower_ctx *c, struct ir_node *n,
		     struct ir_value **out, int k, int axis1d, int axis)
{
	struct ir_value *v[256];
	int cnt = lw_list(c, n, 0, v, 256);
	if (cnt <= 0)
		return lw_decline(c, "the tensors are not a list known element-wise");
	int all1d = 1;
	for (int i = 0; i < cnt; i++) {
		int r = b_rank(v[i]);
		if (r < 0)
			return lw_decline(c, "a tensor's rank is not known");
		if (k == 0) {
			/* column_stack: 0-d and 1-d become columns [n,1] */
			if (r < 2) {
				static const int64_t ax[2] = { 0, 1 };
				v[i] = b_unsqueeze(c, v[i], ax + r, 2 - r);
			}
			all1d = 0;
			continue;
		}
		if (r > 1)
			all1d = 0;
		v[i] = atleast(c, v[i], k);
	}
	enum ir_dtype dt = IR_DTYPE_UNDEFINED;
	for (int i = 0; i < cnt; i++)
		dt = i ? lw_promote(dt, b_dtype(v[i])) : b_dtype(v[i]);
	for (int i = 0; i < cnt && dt != IR_DTYPE_UNDEFINED; i++)
		v[i] = b_cast(c, v[i], dt);
	out[0] = b_concat(c, cnt, v, all1d ? axis1d : axis);
	return 0;
}

/* hstack: 1-d tensors joined on dim 0, others on dim 1 */
static SYM(sym_hstack) { return stack_cat(c, n, out, 1, 0, 1); }
static SYM(sym_vstack) { return stack_cat(c, n, out, 2, 0, 0); }
static SYM(sym_dstack) { return stack_cat(c, n, out, 3, 2, 2); }
static SYM(sym_column_stack) { return stack_cat(c, n, out, 0, 1, 1); }

/* x reversed along dim (negative: from the end) */
static struct ir_value *flip_dim(struct lower_ctx *c, struct ir_value *x,
				 int64_t d)
{
	int r = b_rank(x);
	if (d < 0)
		d += r;
	return b_flip(c, x, d);
}

static int flip_one(struct lower_ctx *c, struct ir_node *n,
		    struct ir_value **out, int64_t d)
{
	struct ir_value *x = T(0);
	if (!x || b_rank(x) < 0)
		return lw_decline(c, "the input's rank is not known");
	if (b_rank(x) < d + 1)
		return lw_decline(c, d ? "fliplr needs at least 2 dims"
				       : "flipud needs at least 1 dim");
	if (c->opset < 10)
		return lw_decline(c, "a negative step needs opset 10");
	out[0] = flip_dim(c, x, d);
	return 0;
}

static SYM(sym_fliplr) { return flip_one(c, n, out, 1); }
static SYM(sym_flipud) { return flip_one(c, n, out, 0); }

static SYM(sym_rot90)
{
	/* rot90(self, k=1, dims=[0,1]): k mod 4 quarter turns from dims[0]
	 * towards dims[1] (torch's flip-and-transpose) */
	struct ir_value *x = T(0);
	int64_t k = 1, d[2] = { 0, 1 }, perm[64];
	int r = b_rank(x);
	if (!x || r < 0)
		return lw_decline(c, "the input's rank is not known");
	if (NARGS > 1 && !lw_int(c, n, 1, &k))
		return lw_decline(c, "k is not constant");
	if (NARGS > 2 && lw_ints(c, n, 2, d, 2, 0) != 2)
		return lw_decline(c, "dims are not 2 constant ints");
	if (r < 2 || r > 64)
		return lw_decline(c, "rot90 needs 2 to 64 dims");
	for (int i = 0; i < 2; i++)
		if (d[i] < 0)
			d[i] += r;
	if (d[0] == d[1] || d[0] < 0 || d[1] < 0 || d[0] >= r || d[1] >= r)
		return lw_decline(c, "dims must be two different dims");
	if (c->opset < 10)
		return lw_decline(c, "a negative step needs opset 10");
	k = ((k % 4) + 4) % 4;
	for (int i = 0; i < r; i++)
		perm[i] = i;
	perm[d[0]] = d[1];
	perm[d[1]] = d[0];
	if (k == 1)
		x = b_transpose(c, flip_dim(c, x, d[1]), perm, r);
	else if (k == 2)
		x = flip_dim(c, flip_dim(c, x, d[0]), d[1]);
	else if (k == 3)
		x = flip_dim(c, b_transpose(c, x, perm, r), d[1]);
	out[0] = x;
	return 0;
}

/* --- diagonals, differences, counts ---------------------------------------- */

/* x's last dim [.., N] laid on diagonal k of a [.., N+|k|, N+|k|] matrix,
 * zeros elsewhere (diag_embed's default dims; diag of a vector). */
static struct ir_value *embed_last(struct lower_ctx *c, struct ir_value *x,
				   int64_t k)
{
	int r = b_rank(x);
	int64_t ak = k < 0 ? -k : k, ax;
	enum ir_dtype dt = b_dtype(x);
	if (ak) {
		int64_t kk = ak;
		struct ir_value *shape = b_op1(c, "Shape", x);
		/* the shape with the last dim |k|: zeros to append */
		struct ir_value *parts[2] = {
			b_slice(c, shape, 0, r - 1, 0, 1), b_const_i64s(c, &kk, 1, 1)
		};
		struct ir_value *z = sym_fill_shape(c, b_concat(c, 2, parts, 0),
						    0, dt);
		struct ir_value *xz[2] = { x, z };
		x = b_concat(c, 2, xz, r - 1);
	}
	/* k >= 0: row i holds x[i] at column i + k (x varies along rows);
	 * k < 0: column j holds x[j] at row j - k */
	ax = k >= 0 ? r : r - 1;
	struct ir_value *xe = b_unsqueeze(c, x, &ax, 1);
	struct ir_value *m = b_op2(c, "And",
			sym_tri_bool(c, x, r - 1, x, r - 1, k, 0),
			sym_tri_bool(c, x, r - 1, x, r - 1, k, 1));
	return b_op3(c, "Where", m, xe, b_cast(c, scal(c, 0, IR_DTYPE_FLOAT), dt));
}

static SYM(sym_diag_embed)
{
	/* diag_embed(self, offset=0, dim1=-2, dim2=-1) */
	struct ir_value *x = T(0);
	int64_t k = 0, d1 = -2, d2 = -1;
	int r = b_rank(x);
	if (!x || r < 1)
		return lw_decline(c, "the input's rank is not known");
	if ((NARGS > 1 && !lw_int(c, n, 1, &k)) ||
	    (NARGS > 2 && !lw_int(c, n, 2, &d1)) ||
	    (NARGS > 3 && !lw_int(c, n, 3, &d2)))
		return lw_decline(c, "offset or dims are not constant");
	if (d1 < 0)
		d1 += r + 1;
	if (d2 < 0)
		d2 += r + 1;
	if (d1 != r - 1 || d2 != r)
		return lw_decline(c, "diag_embed into dims other than the last two");
	out[0] = embed_last(c, x, k);
	return 0;
}

static SYM(sym_diag)
{
	/* diag(self, diagonal=0): a vector's matrix, a matrix's diagonal */
	struct ir_value *x = T(0);
	int64_t k = 0;
	int r = b_rank(x);
	if (!x || r < 0)
		return lw_decline(c, "the input's rank is not known");
	if (NARGS > 1 && !lw_int(c, n, 1, &k))
		return lw_decline(c, "diagonal is not constant");
	if (r == 2)
		return sym_x_diagonal(c, n, out);
	if (r != 1)
		return lw_decline(c, "diag takes a 1-d or 2-d tensor");
	out[0] = embed_last(c, x, k);
	return 0;
}

static SYM(sym_diagflat)
{
	/* diagflat(self, offset=0): the flattened input on a diagonal */
	struct ir_value *x = T(0);
	int64_t k = 0, m1 = -1;
	if (!x)
		return lw_decline(c, "the input is not a tensor");
	if (NARGS > 1 && !lw_int(c, n, 1, &k))
		return lw_decline(c, "offset is not constant");
	x = b_op2(c, "Reshape", x, b_const_i64s(c, &m1, 1, 1));
	out[0] = embed_last(c, x, k);
	return 0;
}

static SYM(sym_diff)
{
	/* diff(self, n=1, dim=-1, prepend=None, append=None): prepend and
	 * append joined on dim, then n times x[1:] - x[:-1] (Xor for bool) */
	struct ir_value *x = T(0), *parts[3];
	int64_t k = 1, d = -1;
	int r = b_rank(x), np = 0;
	if (!x || r < 1)
		return lw_decline(c, "the input's rank is not known or 0");
	if ((NARGS > 1 && !lw_int(c, n, 1, &k)) ||
	    (NARGS > 2 && !lw_int(c, n, 2, &d)))
		return lw_decline(c, "n or dim is not constant");
	if (d < 0)
		d += r;
	if (d < 0 || d >= r || k < 0)
		return lw_decline(c, "dim out of range or n negative");
	if (NARGS > 3 && !lw_is_none(c, n, 3))
		parts[np++] = T(3);
	parts[np++] = x;
	if (NARGS > 4 && !lw_is_none(c, n, 4))
		parts[np++] = T(4);
	for (int i = 0; i < np; i++)
		if (!parts[i] || b_rank(parts[i]) != r)
			return lw_decline(c, "prepend or append is not a tensor "
				"of the input's rank");
	if (np > 1) {
		x = b_concat(c, np, parts, d);
	}
	int isbool = b_dtype(x) == IR_DTYPE_BOOL;
	for (int64_t i = 0; i < k; i++) {
		struct ir_value *hi = b_slice(c, x, 1, INT64_MAX, d, 1);
		struct ir_value *lo = b_slice(c, x, 0, -1, d, 1);
		x = b_op2(c, isbool ? "Xor" : "Sub", hi, lo);
	}
	out[0] = x;
	return 0;
}

static SYM(sym_dist)
{
	/* dist(self, other, p=2): the p-norm of the flattened difference */
	double p = 2;
	enum ir_dtype dt = float_type(c, n, 0, 1);
	struct ir_value *a = sym_operand(c, n, 0, dt), *b = sym_operand(c, n, 1, dt);
	if (!a || !b)
		return lw_decline(c, "operands are not tensors");
	if (NARGS > 2 && !lw_float(c, n, 2, &p))
		return lw_decline(c, "p is not constant");
	struct ir_value *d = b_op1(c, "Abs", b_op2(c, "Sub", a, b));
	if (isinf(p)) {
		out[0] = b_reduce(c, p > 0 ? "ReduceMax" : "ReduceMin", d, NULL, 0, 0);
	} else if (p == 0) {
		struct ir_value *nz = b_op1(c, "Not", b_op2(c, "Equal", d, scal(c, 0, dt)));
		out[0] = b_reduce(c, "ReduceSum", b_cast(c, nz, dt), NULL, 0, 0);
	} else if (p == 1) {
		out[0] = b_reduce(c, "ReduceSum", d, NULL, 0, 0);
	} else if (p == 2) {
		out[0] = b_op1(c, "Sqrt", b_reduce(c, "ReduceSum",
						   b_op2(c, "Mul", d, d), NULL, 0, 0));
	} else {
		struct ir_value *s = b_reduce(c, "ReduceSum",
				b_op2(c, "Pow", d, scal(c, p, dt)), NULL, 0, 0);
		out[0] = b_op2(c, "Pow", s, scal(c, 1 / p, dt));
	}
	return 0;
}

static SYM(sym_count_nonzero)
{
	/* count_nonzero(self, dim=None | int | int[]): a Long count */
	struct ir_value *x = T(0);
	int64_t axes[64];
	int k = 0, r = b_rank(x);
	if (!x)
		return lw_decline(c, "the input is not a tensor");
	if (NARGS > 1 && !lw_is_none(c, n, 1)) {
		k = lw_ints(c, n, 1, axes, 64, 0);
		if (k < 0)
			return lw_decline(c, "dim is not constant");
		/* an empty dim list counts over every dim (torch's) */
		for (int i = 0; i < k; i++)
			if (axes[i] < 0) {
				if (r < 0)
					return lw_decline(c, "a negative dim of an "
						"unknown rank");
				axes[i] += r;
			}
	}
	struct ir_value *nz = b_op2(c, "Equal", x, b_cast(c,
				scal(c, 0, IR_DTYPE_FLOAT), b_dtype(x)));
	nz = b_cast(c, b_op1(c, "Not", nz), IR_DTYPE_INT64);
	out[0] = b_reduce(c, "ReduceSum", nz, axes, k, 0);
	return 0;
}

/* --- cumulative -------------------------------------------------------------- */

/* The scans over dim d of x (rank r) as reductions: xe has a new axis at
 * d (the output's index i) before x's dim (now d + 1, the input's j), and
 * entries j > i are `fill`; reduce over d + 1 then gives the scan. */
static struct ir_value *scan_input(struct lower_ctx *c, struct ir_value *x,
				   int64_t d, double fill)
{
	int r = b_rank(x);
	int64_t ax = d, tail[64];
	struct ir_value *xe = b_unsqueeze(c, x, &ax, 1);
	struct ir_value *m = sym_tri_bool(c, x, (int)d, x, (int)d, 0, 0);
	if (!m)
		return NULL;
	/* the [N, N] mask over dims d, d + 1 of xe: trailing dims 1 */
	for (int i = 0; i < r - 1 - d; i++)
		tail[i] = 2 + i;
	if (r - 1 - d > 0)
		m = b_unsqueeze(c, m, tail, (int)(r - 1 - d));
	enum ir_dtype dt = b_dtype(x);
	struct ir_value *f;
	if (b_is_float(dt) || !isinf(fill))
		f = scal(c, fill, dt);
	else if (dt == IR_DTYPE_INT64)
		f = b_const_i64(c, fill > 0 ? INT64_MAX : INT64_MIN);
	else if (dt == IR_DTYPE_INT32)
		f = b_cast(c, b_const_i64(c, fill > 0 ? INT32_MAX : INT32_MIN), dt);
	else
		return NULL;
	return b_op3(c, "Where", m, xe, f);
}

/* dim of input 1 normalised against x's rank; -1 declined */
/* scan_dim's answer for dim 0 or -1 of a 0-d tensor: the scan is the
 * tensor itself (torch's) */
#define SCAN_0D (-2)

static int64_t scan_dim(struct lower_ctx *c, struct ir_node *n,
			struct ir_value *x)
{
	int64_t d;
	int r = b_rank(x);
	if (!x || r < 0 || r > 63)
		return lw_decline(c, "the input's rank is not known"), -1;
	if (!lw_int(c, n, 1, &d))
		return lw_decline(c, "dim is not constant"), -1;
	if (r == 0 && (d == 0 || d == -1))
		return SCAN_0D;
	if (d < 0)
		d += r;
	if (d < 0 || d >= r)
		return lw_decline(c, "dim out of range"), -1;
	return d;
}

static SYM(sym_cumprod)
{
	/* cumprod(self, dim, dtype=None) */
	struct ir_value *x = T(0);
	int64_t d = scan_dim(c, n, x), st;
	if (d == -1)
		return 1;
	if (NARGS > 2 && !lw_is_none(c, n, 2) && lw_int(c, n, 2, &st))
		x = b_cast(c, x, lw_torch_dtype(st));
	else if (!b_is_float(b_dtype(x)))
		x = b_cast(c, x, IR_DTYPE_INT64);
	if (d == SCAN_0D) {
		out[0] = x;
		return 0;
	}
	int64_t ax = d + 1;
	struct ir_value *xe = scan_input(c, x, d, 1);
	if (!xe)
		return lw_decline(c, "the scan's mask could not be built");
	out[0] = b_reduce(c, "ReduceProd", xe, &ax, 1, 0);
	return 0;
}

static SYM(sym_logcumsumexp)
{
	struct ir_value *x = T(0);
	int64_t d = scan_dim(c, n, x);
	if (d == -1)
		return 1;
	if (!b_is_float(b_dtype(x)))
		return lw_decline(c, "logcumsumexp of an integer tensor");
	if (d == SCAN_0D) {
		out[0] = x;
		return 0;
	}
	int64_t ax = d + 1;
	struct ir_value *xe = scan_input(c, x, d, -INFINITY);
	if (!xe)
		return lw_decline(c, "the scan's mask could not be built");
	out[0] = b_reduce(c, "ReduceLogSumExp", xe, &ax, 1, 0);
	return 0;
}

/* cummax (max 1) / cummin: the running extreme and the index of its last
 * occurrence (torch's >= and <=) */
static int cum_ext(struct lower_ctx *c, struct ir_node *n,
		   struct ir_value **out, int max)
{
	struct ir_value *x = T(0);
	int64_t d = scan_dim(c, n, x);
	if (d == -1)
		return 1;
	if (c->opset < 12)
		return lw_decline(c, "needs opset 12 (ArgMax's select_last_index)");
	if (b_dtype(x) == IR_DTYPE_BOOL)
		return lw_decline(c, "cummax/cummin of a bool tensor");
	if (d == SCAN_0D) {
		out[0] = x;
		out[1] = b_const_i64(c, 0);
		return 0;
	}
	enum ir_dtype dt = b_dtype(x);
	double fill = max ? -INFINITY : INFINITY;
	/* torch: a NaN is taken, and held (the index moves to each later
	 * NaN): the running value is NaN from the first NaN on, its index
	 * the last NaN so far; the rest runs over x with its NaNs as fill */
	struct ir_value *isnan = b_is_float(dt) ? b_op1(c, "IsNaN", x) : NULL;
	if (isnan)
		x = b_op3(c, "Where", isnan, scal(c, fill, dt), x);
	struct ir_value *xe = scan_input(c, x, d, fill);
	int64_t ax = d + 1;
	if (!xe)
		return lw_decline(c, "a dtype other than float, int32, int64");
	out[0] = b_reduce(c, max ? "ReduceMax" : "ReduceMin", xe, &ax, 1, 0);
	struct ir_node *an = b_node(c, max ? "ArgMax" : "ArgMin", 1, &xe, 1);
	b_attr_i(c, an, "axis", ax);
	b_attr_i(c, an, "keepdims", 0);
	b_attr_i(c, an, "select_last_index", 1);
	out[1] = b_done(c, an);
	if (isnan) {
		struct ir_value *ne = scan_input(c, b_cast(c, isnan, dt), d, 0);
		struct ir_value *seen = b_cast(c, b_reduce(c, "ReduceMax", ne,
							   &ax, 1, 0),
					       IR_DTYPE_BOOL);
		struct ir_node *ln = b_node(c, "ArgMax", 1, &ne, 1);
		b_attr_i(c, ln, "axis", ax);
		b_attr_i(c, ln, "keepdims", 0);
		b_attr_i(c, ln, "select_last_index", 1);
		out[0] = b_op3(c, "Where", seen, scal(c, NAN, dt), out[0]);
		out[1] = b_op3(c, "Where", seen, b_done(c, ln), out[1]);
	}
	return 0;
}

static SYM(sym_cummax) { return cum_ext(c, n, out, 1); }
static SYM(sym_cummin) { return cum_ext(c, n, out, 0); }

/* --- scatters into views, copies --------------------------------------------- */

/* self with the slice [start, end) of dim replaced by src: Concat of
 * self[:start], src, self[end:] (negative bounds count from the end) */
static struct ir_value *splice(struct lower_ctx *c, struct ir_value *self,
			       struct ir_value *src, int64_t d, int64_t start,
			       int64_t end)
{
	struct ir_value *parts[3];
	int np = 0;
	enum ir_dtype dt = b_dtype(self);
	if (start != 0)
		parts[np++] = b_slice(c, self, 0, start, d, 1);
	parts[np++] = b_cast(c, src, dt);
	if (end != INT64_MAX)
		parts[np++] = b_slice(c, self, end, INT64_MAX, d, 1);
	if (np == 1)
		return parts[0];
	return b_concat(c, np, parts, d);
}

static SYM(sym_select_scatter)
{
	/* select_scatter(self, src, dim, index) */
	struct ir_value *x = T(0), *src = T(1);
	int64_t d, i;
	int r = b_rank(x);
	if (!x || !src || r < 1)
		return lw_decline(c, "the inputs are not tensors of known rank");
	if (!lw_int(c, n, 2, &d) || !lw_int(c, n, 3, &i))
		return lw_decline(c, "dim or index is not constant");
	if (d < 0)
		d += r;
	if (d < 0 || d >= r)
		return lw_decline(c, "dim out of range");
	if (i < 0 && b_dim_size(x, d) >= 0)
		i += b_dim_size(x, d);
	if (i < -1 && b_dim_size(x, d) < 0)
		return lw_decline(c, "a negative index into a dim of unknown size");
	out[0] = splice(c, x, b_unsqueeze(c, src, &d, 1), d, i,
			i == -1 ? INT64_MAX : i + 1);
	return 0;
}

static SYM(sym_slice_scatter)
{
	/* slice_scatter(self, src, dim=0, start=None, end=None, step=1) */
	struct ir_value *x = T(0), *src = T(1);
	int64_t d = 0, st = 0, en = INT64_MAX, step = 1;
	int r = b_rank(x);
	if (!x || !src || r < 1)
		return lw_decline(c, "the inputs are not tensors of known rank");
	if ((NARGS > 2 && !lw_int(c, n, 2, &d)) ||
	    (NARGS > 3 && !lw_is_none(c, n, 3) && !lw_int(c, n, 3, &st)) ||
	    (NARGS > 4 && !lw_is_none(c, n, 4) && !lw_int(c, n, 4, &en)) ||
	    (NARGS > 5 && !lw_int(c, n, 5, &step)))
		return lw_decline(c, "dim, start, end or step is not constant");
	if (step != 1)
		return lw_decline(c, "slice_scatter with a step other than 1");
	if (d < 0)
		d += r;
	if (d < 0 || d >= r)
		return lw_decline(c, "dim out of range");
	if (en >= INT64_MAX / 2)
		en = INT64_MAX;
	else if (en == 0 || (en < 0 && b_dim_size(x, d) < 0) ||
		 (st < 0 && b_dim_size(x, d) < 0))
		return lw_decline(c, "bounds the Concat form cannot place");
	if (st < 0)
		st += b_dim_size(x, d);
	if (en < 0)
		en += b_dim_size(x, d);
	if (en != INT64_MAX && b_dim_size(x, d) >= 0 && en >= b_dim_size(x, d))
		en = INT64_MAX;
	out[0] = splice(c, x, src, d, st < 0 ? 0 : st, en);
	return 0;
}

static SYM(sym_to_copy)
{
	/* _to_copy(self, dtype=None, layout, device, pin_memory,
	 * non_blocking, memory_format): a Cast where dtype is given */
	struct ir_value *x = T(0);
	int64_t st;
	if (!x)
		return lw_decline(c, "the input is not a tensor");
	if (NARGS > 1 && !lw_is_none(c, n, 1)) {
		if (!lw_int(c, n, 1, &st) ||
		    lw_torch_dtype(st) == IR_DTYPE_UNDEFINED)
			return lw_decline(c, "dtype is not a constant dtype");
		x = b_cast(c, x, lw_torch_dtype(st));
	}
	out[0] = b_op1(c, "Identity", x);
	return 0;
}

/* --- special functions ------------------------------------------------------- */

static SYM(sym_ndtr)
{
	/* the standard normal CDF: (1 + erf(x / sqrt(2))) / 2 */
	struct ir_value *x = T(0);
	if (!x)
		return lw_decline(c, "the input is not a tensor");
	enum ir_dtype dt = float_type(c, n, 0, -1);
	x = b_cast(c, x, dt);
	struct ir_value *e = b_op1(c, "Erf", b_op2(c, "Mul", x, scal(c, M_SQRT1_2, dt)));
	out[0] = b_op2(c, "Mul", b_op2(c, "Add", e, scal(c, 1, dt)), scal(c, 0.5, dt));
	return 0;
}

static SYM(sym_sinc)
{
	/* sin(pi x) / (pi x), 1 at 0 */
	struct ir_value *x = T(0);
	if (!x)
		return lw_decline(c, "the input is not a tensor");
	enum ir_dtype dt = float_type(c, n, 0, -1);
	x = b_cast(c, x, dt);
	struct ir_value *px = b_op2(c, "Mul", x, scal(c, M_PI, dt));
	struct ir_value *q = b_op2(c, "Div", b_op1(c, "Sin", px), px);
	out[0] = b_op3(c, "Where", b_op2(c, "Equal", x, scal(c, 0, dt)),
		       scal(c, 1, dt), q);
	return 0;
}

static SYM(sym_entr)
{
	/* -x log x for x > 0, 0 at 0, -inf below, NaN for NaN */
	struct ir_value *x = T(0);
	if (!x)
		return lw_decline(c, "the input is not a tensor");
	enum ir_dtype dt = float_type(c, n, 0, -1);
	x = b_cast(c, x, dt);
	struct ir_value *zero = scal(c, 0, dt);
	struct ir_value *v = b_op1(c, "Neg", b_op2(c, "Mul", x, b_op1(c, "Log", x)));
	v = b_op3(c, "Where", b_op2(c, "Equal", x, zero), zero, v);
	out[0] = b_op3(c, "Where", b_op2(c, "Less", x, zero),
		       scal(c, -INFINITY, dt), v);
	return 0;
}

/* --- im2col, max_unpool ------------------------------------------------------- */

static SYM(sym_im2col)
{
	/* im2col(self, kernel_size, dilation, padding, stride): a grouped
	 * Conv whose one-hot kernels pick each window position, as
	 * F.unfold's [N, C*kh*kw, L] (channel-major, then kernel row, col) */
	struct ir_value *x = T(0);
	int64_t k[2], dil[2], pad[4], st[2], zero = 0;
	int r = b_rank(x);
	if (lw_ints(c, n, 1, k, 2, 2) != 2 || lw_ints(c, n, 2, dil, 2, 2) != 2 ||
	    lw_ints(c, n, 3, pad, 2, 2) != 2 || lw_ints(c, n, 4, st, 2, 2) != 2)
		return lw_decline(c, "sizes not constant");
	if (r != 3 && r != 4)
		return lw_decline(c, "input rank unknown or not 3 or 4");
	if (!b_is_float(b_dtype(x)))
		return lw_decline(c, "im2col of a non-float tensor");
	int64_t ch = b_dim_size(x, r - 3), kk = k[0] * k[1];
	if (ch < 1 || kk < 1 || ch * kk * kk > (1 << 24))
		return lw_decline(c, "the channel count is not known");
	if (r == 3)
		x = b_unsqueeze(c, x, &zero, 1);
	int64_t wd[4] = { ch * kk, 1, k[0], k[1] };
	double *w = ir_alloc(c->g, sizeof(double) * (size_t)(ch * kk * kk));
	memset(w, 0, sizeof(double) * (size_t)(ch * kk * kk));
	for (int64_t o = 0; o < ch * kk; o++)
		w[o * kk + o % kk] = 1;
	struct ir_value *wt = b_cast(c, b_const_reals(c, w, wd, 4, b_dtype(x)),
				     b_dtype(x));
	pad[2] = pad[0];
	pad[3] = pad[1];
	struct ir_node *cv = b_node(c, "Conv", 2, (struct ir_value *[]){ x, wt }, 1);
	b_attr_ints(c, cv, "kernel_shape", k, 2);
	b_attr_ints(c, cv, "dilations", dil, 2);
	b_attr_ints(c, cv, "pads", pad, 4);
	b_attr_ints(c, cv, "strides", st, 2);
	b_attr_i(c, cv, "group", ch);
	int64_t shp[3] = { 0, ch * kk, -1 };
	/* L written out where the sizes are known: a -1 beside an empty
	 * batch's 0 is any size to ONNX */
	int64_t ih = b_dim_size(x, 2), iw = b_dim_size(x, 3);
	if (ih >= 0 && iw >= 0) {
		int64_t oh = (ih + 2 * pad[0] - dil[0] * (k[0] - 1) - 1) / st[0] + 1;
		int64_t ow = (iw + 2 * pad[1] - dil[1] * (k[1] - 1) - 1) / st[1] + 1;
		if (oh > 0 && ow > 0)
			shp[2] = oh * ow;
	}
	struct ir_value *y = b_op2(c, "Reshape", b_done(c, cv),
				   b_const_i64s(c, shp, 3, 1));
	out[0] = r == 3 ? b_squeeze(c, y, &zero, 1) : y;
	return 0;
}

static SYM(sym_max_unpool)
{
	/* max_unpool2d(self, indices, output_size), max_unpool3d(self,
	 * indices, output_size, stride, padding): each value written at its
	 * index into its channel's flattened output (ScatterElements) */
	struct ir_value *x = T(0), *idx = T(1);
	int64_t os[3], m1 = -1, prod = 1;
	int sp = n->op == OP_aten_max_unpool3d ? 3 : 2, r = b_rank(x);
	if (!x || !idx)
		return lw_decline(c, "the inputs are not tensors");
	if (lw_ints(c, n, 2, os, 3, 0) != sp)
		return lw_decline(c, "output_size is not constant");
	if (r != sp + 2)
		return lw_decline(c, "the input is not batched [N, C, ...]");
	for (int i = 0; i < sp; i++)
		prod *= os[i];
	struct ir_value *nc = b_slice(c, b_op1(c, "Shape", x), 0, 2, 0, 1);
	struct ir_value *tail[2] = { nc, b_const_i64s(c, &m1, 1, 1) };
	struct ir_value *flat = b_concat(c, 2, tail, 0);
	struct ir_value *xs = b_op2(c, "Reshape", x, flat);
	struct ir_value *is = b_op2(c, "Reshape", b_cast(c, idx, IR_DTYPE_INT64), flat);
	struct ir_value *zs[2] = { nc, b_const_i64s(c, &prod, 1, 1) };
	struct ir_value *z = sym_fill_shape(c, b_concat(c, 2, zs, 0), 0,
					    b_dtype(x));
	struct ir_node *sc = b_node(c, "ScatterElements", 3,
				    (struct ir_value *[]){ z, is, xs }, 1);
	b_attr_i(c, sc, "axis", 2);
	struct ir_value *osv = b_const_i64s(c, os, sp, 1);
	struct ir_value *shp[2] = { nc, osv };
	struct ir_value *shape = b_concat(c, 2, shp, 0);
	out[0] = b_op2(c, "Reshape", b_done(c, sc), shape);
	return 0;
}

/* Why lower has no symbolic for op, where it refuses on purpose (NULL
 * otherwise): backward ops, memory layout, in-place resizes, random
 * permutations.  The special functions pt2onnx approximates are in
 * symbolic_special.c. */
const char *sym_refusal(enum aten_op op)
{
	switch (op) {
	case OP_aten_convolution_backward:
	case OP_aten_native_group_norm_backward:
	case OP_aten_native_layer_norm_backward:
	case OP_aten_avg_pool2d_backward:
	case OP_aten_max_pool2d_with_indices_backward:
	case OP_aten_embedding_dense_backward:
	case OP_aten__adaptive_avg_pool2d_backward:
		return "a gradient (backward) op: pt2onnx exports the forward "
		       "computation only";
	case OP_aten_sym_stride:
	case OP_aten_sym_storage_offset:
	case OP_aten_sym_is_contiguous:
	case OP_aten_stride: /* lib/pt2 reads sym_stride as stride */
	case OP_aten_storage_offset:
		return "a tensor's memory layout (strides, storage offset) has "
		       "no ONNX meaning";
	case OP_aten_resize_:
		return "it resizes a tensor's storage in place, which ONNX "
		       "values do not have";
	case OP_aten_linalg_eigh:
	case OP_aten__linalg_eigh:
	case OP_aten_linalg_svd:
	case OP_aten__linalg_svd:
		return SYM_LAPACK_SIGNS;
	case OP_aten_linalg_eig:
	case OP_aten_linalg_eigvals:
		return "a general matrix's eigenvalues and eigenvectors are "
		       "complex, which ONNX has no type for";
	case OP_aten_randperm:
		return "a random permutation: ONNX has no operator for one, "
		       "and no seed makes ONNX's random numbers torch's";
	case OP_aten_linalg_ldl_factor:
	case OP_aten_linalg_ldl_factor_ex:
	case OP_aten_linalg_ldl_solve:
		return "LAPACK's sytrf (Bunch-Kaufman pivoting: 1x1 or 2x2 "
		       "blocks chosen by magnitude tests) is not built as an "
		       "ONNX Loop; pt2onnx has the Cholesky and LU "
		       "factorizations (docs/operators.md)";
	default:
		return NULL;
	}
}

static const struct symbolic entries[] = {
	{ OP_aten_deg2rad, 0, 0, SYM_PRIO_BASE, sym_deg2rad },
	{ OP_aten_rad2deg, 0, 0, SYM_PRIO_BASE, sym_rad2deg },
	{ OP_aten_exp2, 0, 0, SYM_PRIO_BASE, sym_exp2 },
	{ OP_aten_special_exp2, 0, 0, SYM_PRIO_BASE, sym_exp2 },
	{ OP_aten_expm1, 0, 0, SYM_PRIO_BASE, sym_expm1 },
	{ OP_aten_special_expm1, 0, 0, SYM_PRIO_BASE, sym_expm1 },
	{ OP_aten_erfc, 9, 0, SYM_PRIO_BASE, sym_erfc },
	{ OP_aten_special_erfc, 9, 0, SYM_PRIO_BASE, sym_erfc },
	{ OP_aten_trunc, 0, 0, SYM_PRIO_BASE, sym_trunc },
	{ OP_aten_fix, 0, 0, SYM_PRIO_BASE, sym_trunc },
	{ OP_aten_frac, 0, 0, SYM_PRIO_BASE, sym_frac },
	{ OP_aten_logit, 0, 0, SYM_PRIO_BASE, sym_logit },
	{ OP_aten_special_logit, 0, 0, SYM_PRIO_BASE, sym_logit },
	{ OP_aten_atan2, 11, 0, SYM_PRIO_BASE, sym_atan2 },
	{ OP_aten_arctan2, 11, 0, SYM_PRIO_BASE, sym_atan2 },
	{ OP_aten_copysign, 0, 0, SYM_PRIO_BASE, sym_copysign },
	{ OP_aten_hypot, 0, 0, SYM_PRIO_BASE, sym_hypot },
	{ OP_aten_logaddexp, 11, 0, SYM_PRIO_BASE, sym_logaddexp },
	{ OP_aten_logaddexp2, 11, 0, SYM_PRIO_BASE, sym_logaddexp2 },
	{ OP_aten_xlogy, 11, 0, SYM_PRIO_BASE, sym_xlogy },
	{ OP_aten_special_xlogy, 11, 0, SYM_PRIO_BASE, sym_xlogy },
	{ OP_aten_sgn, 0, 0, SYM_PRIO_BASE, sym_sgn },
	{ OP_aten_bitwise_and, 0, 0, SYM_PRIO_BASE, sym_bitwise_and },
	{ OP_aten_tile, 0, 0, SYM_PRIO_BASE, sym_tile },
	{ OP_aten_take_along_dim, 0, 0, SYM_PRIO_BASE, sym_take_along_dim },
	{ OP_aten_tril_indices, 0, 0, SYM_PRIO_BASE, sym_tril_indices },
	{ OP_aten_triu_indices, 0, 0, SYM_PRIO_BASE, sym_triu_indices },
	{ OP_aten_bilinear, 12, 0, SYM_PRIO_BASE, sym_bilinear },
	{ OP_aten_ravel, 0, 0, SYM_PRIO_BASE, sym_ravel },
	{ OP_aten_trace, 9, 0, SYM_PRIO_BASE, sym_trace },
	{ OP_aten_msort, 11, 0, SYM_PRIO_BASE, sym_msort },
	{ OP_aten_kthvalue, 11, 0, SYM_PRIO_BASE, sym_kthvalue },
	{ OP_aten_l1_loss, 0, 0, SYM_PRIO_BASE, sym_l1_loss },
	{ OP_aten_mse_loss, 0, 0, SYM_PRIO_BASE, sym_mse_loss },
	{ OP_aten_smooth_l1_loss, 0, 0, SYM_PRIO_BASE, sym_smooth_l1_loss },
	{ OP_aten_binary_cross_entropy, 0, 0, SYM_PRIO_BASE, sym_binary_cross_entropy },
	{ OP_aten_fmax, 0, 0, SYM_PRIO_BASE, sym_fmax },
	{ OP_aten_fmin, 0, 0, SYM_PRIO_BASE, sym_fmin },
	{ OP_aten_float_power, 0, 0, SYM_PRIO_BASE, sym_float_power },
	{ OP_aten_bitwise_or, 0, 0, SYM_PRIO_BASE, sym_bitwise_or },
	{ OP_aten_bitwise_xor, 0, 0, SYM_PRIO_BASE, sym_bitwise_xor },
	{ OP_aten_addcdiv, 0, 0, SYM_PRIO_BASE, sym_addcdiv },
	{ OP_aten_addmv, 0, 0, SYM_PRIO_BASE, sym_addmv },
	{ OP_aten_addr, 0, 0, SYM_PRIO_BASE, sym_addr },
	{ OP_aten_addbmm, 0, 0, SYM_PRIO_BASE, sym_addbmm },
	{ OP_aten_mT, 0, 0, SYM_PRIO_BASE, sym_mT },
	{ OP_aten_mH, 0, 0, SYM_PRIO_BASE, sym_mT },
	{ OP_aten_adjoint, 0, 0, SYM_PRIO_BASE, sym_mT },
	{ OP_aten_matrix_H, 0, 0, SYM_PRIO_BASE, sym_mT },
	{ OP_aten_broadcast_to, 0, 0, SYM_PRIO_BASE, sym_expand },
	{ OP_aten_atleast_1d, 0, 0, SYM_PRIO_BASE, sym_atleast_1d },
	{ OP_aten_atleast_2d, 0, 0, SYM_PRIO_BASE, sym_atleast_2d },
	{ OP_aten_atleast_3d, 0, 0, SYM_PRIO_BASE, sym_atleast_3d },
	{ OP_aten_hstack, 0, 0, SYM_PRIO_BASE, sym_hstack },
	{ OP_aten_vstack, 0, 0, SYM_PRIO_BASE, sym_vstack },
	{ OP_aten_row_stack, 0, 0, SYM_PRIO_BASE, sym_vstack },
	{ OP_aten_dstack, 0, 0, SYM_PRIO_BASE, sym_dstack },
	{ OP_aten_column_stack, 0, 0, SYM_PRIO_BASE, sym_column_stack },
	{ OP_aten_fliplr, 10, 0, SYM_PRIO_BASE, sym_fliplr },
	{ OP_aten_flipud, 10, 0, SYM_PRIO_BASE, sym_flipud },
	{ OP_aten_rot90, 10, 0, SYM_PRIO_BASE, sym_rot90 },
	{ OP_aten_diag, 0, 0, SYM_PRIO_BASE, sym_diag },
	{ OP_aten_diag_embed, 0, 0, SYM_PRIO_BASE, sym_diag_embed },
	{ OP_aten_diagflat, 0, 0, SYM_PRIO_BASE, sym_diagflat },
	{ OP_aten_diff, 0, 0, SYM_PRIO_BASE, sym_diff },
	{ OP_aten_dist, 11, 0, SYM_PRIO_BASE, sym_dist },
	{ OP_aten_count_nonzero, 11, 0, SYM_PRIO_BASE, sym_count_nonzero },
	{ OP_aten_cumprod, 0, 0, SYM_PRIO_BASE, sym_cumprod },
	{ OP_aten_logcumsumexp, 0, 0, SYM_PRIO_BASE, sym_logcumsumexp },
	{ OP_aten_cummax, 12, 0, SYM_PRIO_BASE, sym_cummax },
	{ OP_aten_cummin, 12, 0, SYM_PRIO_BASE, sym_cummin },
	{ OP_aten_im2col, 0, 0, SYM_PRIO_BASE, sym_im2col },
	{ OP_aten_max_unpool2d, 11, 0, SYM_PRIO_BASE, sym_max_unpool },
	{ OP_aten_max_unpool3d, 11, 0, SYM_PRIO_BASE, sym_max_unpool },
	{ OP_aten_select_scatter, 0, 0, SYM_PRIO_BASE, sym_select_scatter },
	{ OP_aten_slice_scatter, 0, 0, SYM_PRIO_BASE, sym_slice_scatter },
	{ OP_aten__to_copy, 0, 0, SYM_PRIO_BASE, sym_to_copy },
	{ OP_aten_special_ndtr, 0, 0, SYM_PRIO_BASE, sym_ndtr },
	{ OP_aten_sinc, 11, 0, SYM_PRIO_BASE, sym_sinc },
	{ OP_aten_special_sinc, 11, 0, SYM_PRIO_BASE, sym_sinc },
	{ OP_aten_special_entr, 11, 0, SYM_PRIO_BASE, sym_entr },
};

const struct symbolic_table symbolic_long_tail_table = {
	entries, sizeof(entries) / sizeof(entries[0]),
};

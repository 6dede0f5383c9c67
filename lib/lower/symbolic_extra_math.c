/*
 * symbolic_extra_math.c - symbolic functions for aten ops that the opset
 * tables (symbolic_opset9.c ... 17) do not have: elementwise math,
 * casts, reductions and norms, activations, tensor creation, random
 * sampling, fake quantisation, and is_floating_point / `not` (constants
 * where known, for the ifs on them).  One function per op for every opset,
 * branching on c->opset; see lower_int.h.  torch 1.13's symbolic_opset*.py
 * is the semantic reference.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "symbolic_common.h"

#define IN(i) lw_in(c, n, (i))
#define T(i) lw_tensor(c, n, (i))
#define NARGS ((int)n->ninputs)

/* --- local helpers ------------------------------------------------------ */

static int64_t norm_axis(int64_t d, int rank)
{
	return d < 0 && rank >= 0 ? d + rank : d;
}

static enum ir_dtype dtype_arg(struct lower_ctx *c, struct ir_node *n, int i,
			       enum ir_dtype def)
{
	int64_t st;
	if (i < NARGS && !lw_is_none(c, n, i) && lw_int(c, n, i, &st)) {
		enum ir_dtype dt = lw_torch_dtype(st);
		if (dt != IR_DTYPE_UNDEFINED)
			return dt;
	}
	return def;
}

static struct ir_value *scal(struct lower_ctx *c, double v, enum ir_dtype dt)
{
	return b_const_scalar(c, v, dt == IR_DTYPE_UNDEFINED ? IR_DTYPE_FLOAT
							     : dt, 0);
}

/* x as a float tensor: integer and bool inputs go to Float, as torch
 * computes float functions of them in the default dtype. */
static struct ir_value *as_float(struct lower_ctx *c, struct ir_value *x)
{
	enum ir_dtype dt = b_dtype(x);
	if (dt != IR_DTYPE_UNDEFINED && !b_is_float(dt))
		return b_cast(c, x, IR_DTYPE_FLOAT);
	return x;
}

/* A tensor of dtype dt and shape `shape` (1-d Long) filled with v. */
struct ir_value *sym_fill_shape(struct lower_ctx *c, struct ir_value *shape,
				   double v, enum ir_dtype dt)
{
	int64_t one = 1;
	struct ir_tensor *t = ir_tensor_new(c->g, dt, 1, &one);
	size_t es = ir_dtype_size(dt);
	char *p = ir_alloc(c->g, es ? es : 1);
	switch (dt) {
	case IR_DTYPE_FLOAT: { float f = (float)v; memcpy(p, &f, 4); break; }
	case IR_DTYPE_DOUBLE: memcpy(p, &v, 8); break;
	case IR_DTYPE_INT64: { int64_t i = (int64_t)v; memcpy(p, &i, 8); break; }
	case IR_DTYPE_INT32: { int32_t i = (int32_t)v; memcpy(p, &i, 4); break; }
	case IR_DTYPE_INT16: { int16_t i = (int16_t)v; memcpy(p, &i, 2); break; }
	case IR_DTYPE_INT8: { int8_t i = (int8_t)v; memcpy(p, &i, 1); break; }
	case IR_DTYPE_UINT8: { uint8_t i = (uint8_t)v; memcpy(p, &i, 1); break; }
	case IR_DTYPE_BOOL: p[0] = v != 0; break;
	default: {
		/* other dtypes: a Float fill cast */
		struct ir_value *f = sym_fill_shape(c, shape, v, IR_DTYPE_FLOAT);
		return f ? b_cast(c, f, dt) : NULL;
	}
	}
	t->bytes.data = p;
	t->bytes.len = es;
	struct ir_node *cn = b_node(c, "ConstantOfShape", 1, &shape, 1);
	ir_node_add_attr(c->g, cn, "value", IR_ATTR_TENSOR)->u.t = t;
	return b_done(c, cn);
}

/* A 1-d constant of the cnt values v: Double for dt Double, else Float
 * cast to dt (when dt is another dtype). */
static struct ir_value *const_floats(struct lower_ctx *c, const double *v,
				     int64_t cnt, enum ir_dtype dt)
{
	struct ir_value *r = b_const_reals(c, v, &cnt, 1, dt);
	if (dt != IR_DTYPE_DOUBLE && dt != IR_DTYPE_FLOAT &&
	    dt != IR_DTYPE_UNDEFINED)
		r = b_cast(c, r, dt);
	return r;
}

static struct ir_value *where(struct lower_ctx *c, struct ir_value *cond,
			      struct ir_value *a, struct ir_value *b)
{
	return b_op3(c, "Where", cond, a, b);
}

/* --- casts --------------------------------------------------------------- */

static int cast_to(struct lower_ctx *c, struct ir_node *n,
		   struct ir_value **out, enum ir_dtype dt)
{
	struct ir_value *x = T(0);
	if (!x)
		return lw_decline(c, "the input is not a tensor");
	out[0] = b_cast(c, x, dt);
	return 0;
}

#define CAST(fn, dt) \
	static SYM(fn) { return cast_to(c, n, out, dt); }
CAST(sym_cast_byte, IR_DTYPE_UINT8)
CAST(sym_cast_char, IR_DTYPE_INT8)
CAST(sym_cast_double, IR_DTYPE_DOUBLE)
CAST(sym_cast_float, IR_DTYPE_FLOAT)
CAST(sym_cast_half, IR_DTYPE_FLOAT16)
CAST(sym_cast_int, IR_DTYPE_INT32)
CAST(sym_cast_long, IR_DTYPE_INT64)
CAST(sym_cast_short, IR_DTYPE_INT16)

/* --- elementwise ----------------------------------------------------------- */

static int funary(struct lower_ctx *c, struct ir_node *n,
		  struct ir_value **out, const char *op)
{
	struct ir_value *x = T(0);
	if (!x)
		return lw_decline(c, "the input is not a tensor");
	x = as_float(c, x);
	out[0] = b_op1(c, op, x);
	return 0;
}

#define FUNARY(fn, op) \
	static SYM(fn) { return funary(c, n, out, op); }
FUNARY(sym_acos, "Acos")
FUNARY(sym_asin, "Asin")
FUNARY(sym_atan, "Atan")
FUNARY(sym_tan, "Tan")
/* the hyperbolic ones are ONNX operators from opset 9 */
FUNARY(sym_cosh, "Cosh")
FUNARY(sym_sinh, "Sinh")
FUNARY(sym_acosh, "Acosh")
FUNARY(sym_asinh, "Asinh")
FUNARY(sym_atanh, "Atanh")

static int log_base(struct lower_ctx *c, struct ir_node *n,
		    struct ir_value **out, double base)
{
	struct ir_value *x = T(0);
	if (!x)
		return lw_decline(c, "the input is not a tensor");
	x = as_float(c, x);
	out[0] = b_op2(c, "Div", b_op1(c, "Log", x),
		       scal(c, log(base), b_dtype(x)));
	return 0;
}

static SYM(sym_log10) { return log_base(c, n, out, 10); }
static SYM(sym_log2) { return log_base(c, n, out, 2); }

static SYM(sym_log1p)
{
	struct ir_value *x = T(0);
	if (!x)
		return lw_decline(c, "the input is not a tensor");
	x = as_float(c, x);
	out[0] = b_op1(c, "Log", b_op2(c, "Add", scal(c, 1, b_dtype(x)), x));
	return 0;
}

static SYM(sym_round)
{
	/* round(self) or round.decimals(self, decimals) */
	struct ir_value *x = T(0);
	int64_t dec = 0;
	if (!x)
		return lw_decline(c, "the input is not a tensor");
	if (NARGS > 1 && !lw_int(c, n, 1, &dec))
		return lw_decline(c, "decimals is not constant");
	if (!b_is_float(b_dtype(x)) && b_dtype(x) != IR_DTYPE_UNDEFINED) {
		out[0] = x;
		return 0;
	}
	if (c->opset < 11)
		return lw_decline(c, "needs opset 11 (Round)");
	if (dec) {
		struct ir_value *k = scal(c, pow(10, (double)dec), b_dtype(x));
		out[0] = b_op2(c, "Div", b_op1(c, "Round",
				b_op2(c, "Mul", x, k)), k);
		return 0;
	}
	out[0] = b_op1(c, "Round", x);
	return 0;
}

static SYM(sym_square)
{
	struct ir_value *x = T(0);
	if (!x)
		return lw_decline(c, "the input is not a tensor");
	if (b_dtype(x) == IR_DTYPE_BOOL)
		x = b_cast(c, x, IR_DTYPE_INT64);
	out[0] = b_op2(c, "Mul", x, x);
	return 0;
}

static SYM(sym_fmod)
{
	/* the remainder with the sign of the dividend (C fmod) */
	enum ir_dtype dt = sym_result_type(c, n, 0, 1);
	struct ir_value *a = sym_operand(c, n, 0, dt);
	struct ir_value *b = sym_operand(c, n, 1, dt);
	if (!a || !b)
		return lw_decline(c, "operands are not tensors or numbers");
	if (c->opset >= 10) {
		struct ir_node *m = b_node(c, "Mod", 2,
					   (struct ir_value *[]){ a, b }, 1);
		b_attr_i(c, m, "fmod", 1);
		out[0] = b_done(c, m);
		return 0;
	}
	struct ir_value *q = b_op2(c, "Div", a, b);
	if (b_is_float(dt))
		q = b_op2(c, "Mul", b_op1(c, "Sign", q),
			  b_op1(c, "Floor", b_op1(c, "Abs", q)));
	/* integer Div truncates already */
	out[0] = b_op2(c, "Sub", a, b_op2(c, "Mul", q, b));
	return 0;
}

static SYM(sym_lerp)
{
	/* torch: |w| < 0.5 ? start + w * (end - start)
	 *                  : end - (end - start) * (1 - w) */
	struct ir_value *s = T(0), *e = T(1);
	if (!s || !e)
		return lw_decline(c, "operands are not tensors");
	enum ir_dtype dt = lw_promote(b_dtype(s), b_dtype(e));
	if (dt == IR_DTYPE_UNDEFINED)
		dt = b_dtype(s);
	s = b_cast(c, s, dt);
	e = b_cast(c, e, dt);
	struct ir_value *w = sym_operand(c, n, 2, dt);
	if (!w)
		return lw_decline(c, "weight is not a tensor or number");
	struct ir_value *diff = b_op2(c, "Sub", e, s);
	struct ir_value *lo = b_op2(c, "Add", s, b_op2(c, "Mul", w, diff));
	struct ir_value *hi = b_op2(c, "Sub", e, b_op2(c, "Mul", diff,
				b_op2(c, "Sub", scal(c, 1, dt), w)));
	struct ir_value *cond = b_op2(c, "Less", b_op1(c, "Abs", w),
				      scal(c, 0.5, dt));
	out[0] = where(c, cond, lo, hi);
	return 0;
}

static SYM(sym_addcmul)
{
	/* self + value * tensor1 * tensor2 */
	struct ir_value *s = T(0), *a = T(1), *b = T(2);
	double v = 1;
	if (!s || !a || !b)
		return lw_decline(c, "operands are not tensors");
	if (NARGS > 3 && !lw_is_none(c, n, 3) && !lw_float(c, n, 3, &v))
		return lw_decline(c, "value is not constant");
	enum ir_dtype dt = lw_promote(lw_promote(b_dtype(s), b_dtype(a)),
				      b_dtype(b));
	if (dt == IR_DTYPE_UNDEFINED)
		dt = b_dtype(s);
	struct ir_value *p = b_op2(c, "Mul", b_cast(c, a, dt), b_cast(c, b, dt));
	if (v != 1)
		p = b_op2(c, "Mul", p, scal(c, v, dt));
	out[0] = b_op2(c, "Add", b_cast(c, s, dt), p);
	return 0;
}

static SYM(sym_logical_xor)
{
	struct ir_value *a = T(0), *b = T(1);
	if (!a || !b)
		return lw_decline(c, "operands are not tensors");
	out[0] = b_op2(c, "Xor", b_cast(c, a, IR_DTYPE_BOOL),
		       b_cast(c, b, IR_DTYPE_BOOL));
	return 0;
}

static int shift(struct lower_ctx *c, struct ir_node *n,
		 struct ir_value **out, int left)
{
	/* torch: x * 2^y (left), x / 2^y floored for integers (right) */
	enum ir_dtype dt = sym_result_type(c, n, 0, 1);
	struct ir_value *a = sym_operand(c, n, 0, dt);
	struct ir_value *b = sym_operand(c, n, 1, dt);
	if (!a || !b)
		return lw_decline(c, "operands are not tensors or numbers");
	int isint = dt != IR_DTYPE_UNDEFINED && !b_is_float(dt);
	enum ir_dtype w = isint ? (dt == IR_DTYPE_INT64 ? IR_DTYPE_DOUBLE
							: IR_DTYPE_FLOAT) : dt;
	if (left && (dt == IR_DTYPE_INT64 || dt == IR_DTYPE_INT32)) {
		/* torch's: x * Cast(2^y): the product wraps in x's dtype as
		 * torch's shift does (powers of two are exact in float) */
		struct ir_value *q = b_op2(c, "Pow", scal(c, 2, IR_DTYPE_FLOAT),
					   b_cast(c, b, IR_DTYPE_FLOAT));
		out[0] = b_op2(c, "Mul", a, b_cast(c, q, dt));
		return 0;
	}
	if (!left && isint && c->opset >= 10) {
		/* floor(x / 2^y) exactly, in int64 whatever x's integer type:
		 * twice by 2^(y/2) and 2^(y - y/2) (each at most 2^32, so
		 * y = 63 has a divisor that int64 holds), each a floor
		 * division x - Mod(x, d) (the divisor's sign: in [0, d)) over
		 * d, exact at any magnitude as the dividend is a multiple */
		struct ir_value *x = b_cast(c, a, IR_DTYPE_INT64);
		struct ir_value *y = b_cast(c, b, IR_DTYPE_INT64);
		struct ir_value *y1 = b_op2(c, "Div", y,
					    scal(c, 2, IR_DTYPE_INT64));
		struct ir_value *half[2] = { y1, b_op2(c, "Sub", y, y1) };
		for (int i = 0; i < 2; i++) {
			struct ir_value *d = b_cast(c, b_op2(c, "Pow",
				scal(c, 2, IR_DTYPE_FLOAT),
				b_cast(c, half[i], IR_DTYPE_FLOAT)),
				IR_DTYPE_INT64);
			struct ir_node *m = b_node(c, "Mod", 2,
				(struct ir_value *[]){ x, d }, 1);
			b_attr_i(c, m, "fmod", 0);
			x = b_op2(c, "Div", b_op2(c, "Sub", x, b_done(c, m)), d);
		}
		out[0] = b_cast(c, x, dt);
		return 0;
	}
	if (!left && dt == IR_DTYPE_INT64)
		return lw_decline(c, "an int64 right shift is exact from opset 10 "
				  "(Mod)");
	if (isint)
		w = IR_DTYPE_DOUBLE;	/* exact for every 32-bit integer */
	struct ir_value *p = b_op2(c, "Pow", scal(c, 2, w), b_cast(c, b, w));
	struct ir_value *r = b_op2(c, left ? "Mul" : "Div", b_cast(c, a, w), p);
	if (isint) {
		if (!left)
			r = b_op1(c, "Floor", r);
		r = b_cast(c, r, dt);
	}
	out[0] = r;
	return 0;
}

static SYM(sym_lshift) { return shift(c, n, out, 1); }
static SYM(sym_rshift) { return shift(c, n, out, 0); }

/* --- tests on values --------------------------------------------------------- */

static struct ir_value *isnan_of(struct lower_ctx *c, struct ir_value *x)
{
	return b_op1(c, "IsNaN", x);
}

/* x - x is NaN exactly where x is infinite or NaN: works from opset 9. */
static SYM(sym_isnan)
{
	struct ir_value *x = T(0);
	if (!x)
		return lw_decline(c, "the input is not a tensor");
	if (!b_is_float(b_dtype(x)) && b_dtype(x) != IR_DTYPE_UNDEFINED) {
		out[0] = b_cast(c, b_op2(c, "Mul", b_cast(c, x, IR_DTYPE_INT32),
				b_const_scalar(c, 0, IR_DTYPE_INT32, 0)),
				IR_DTYPE_BOOL);
		return 0;
	}
	out[0] = b_op1(c, "IsNaN", x);
	return 0;
}

static SYM(sym_isinf)
{
	struct ir_value *x = T(0);
	if (!x)
		return lw_decline(c, "the input is not a tensor");
	if (!b_is_float(b_dtype(x)) && b_dtype(x) != IR_DTYPE_UNDEFINED)
		return sym_isnan(c, n, out); /* all false */
	if (c->opset >= 10) {
		out[0] = b_op1(c, "IsInf", x);
		return 0;
	}
	out[0] = b_op2(c, "And", isnan_of(c, b_op2(c, "Sub", x, x)),
		       b_op1(c, "Not", isnan_of(c, x)));
	return 0;
}

static SYM(sym_isfinite)
{
	struct ir_value *x = T(0);
	if (!x)
		return lw_decline(c, "the input is not a tensor");
	if (!b_is_float(b_dtype(x)) && b_dtype(x) != IR_DTYPE_UNDEFINED) {
		if (sym_isnan(c, n, out))
			return 1;
		out[0] = b_op1(c, "Not", out[0]); /* all true */
		return 0;
	}
	out[0] = b_op1(c, "Not", isnan_of(c, b_op2(c, "Sub", x, x)));
	return 0;
}

static double dtype_max(enum ir_dtype dt)
{
	switch (dt) {
	case IR_DTYPE_DOUBLE: return DBL_MAX;
	case IR_DTYPE_FLOAT16: return 65504.0;
	case IR_DTYPE_BFLOAT16: return 3.3895313892515355e38;
	default: return FLT_MAX;
	}
}

static SYM(sym_nan_to_num)
{
	/* (self, nan, posinf, neginf): None infinities are the dtype's
	 * largest finite values */
	struct ir_value *x = T(0);
	double vn = 0, vp, vm;
	if (!x)
		return lw_decline(c, "the input is not a tensor");
	enum ir_dtype dt = b_dtype(x);
	if (dt != IR_DTYPE_UNDEFINED && !b_is_float(dt)) {
		out[0] = x;
		return 0;
	}
	vp = dtype_max(dt);
	vm = -vp;
	if ((NARGS > 1 && !lw_is_none(c, n, 1) && !lw_float(c, n, 1, &vn)) ||
	    (NARGS > 2 && !lw_is_none(c, n, 2) && !lw_float(c, n, 2, &vp)) ||
	    (NARGS > 3 && !lw_is_none(c, n, 3) && !lw_float(c, n, 3, &vm)))
		return lw_decline(c, "replacement values are not constant");
	struct ir_value *r = where(c, isnan_of(c, x), scal(c, vn, dt), x);
	struct ir_value *inf = b_op2(c, "And",
			isnan_of(c, b_op2(c, "Sub", x, x)),
			b_op1(c, "Not", isnan_of(c, x)));
	struct ir_value *pos = b_op2(c, "Greater", x, scal(c, 0, dt));
	r = where(c, b_op2(c, "And", inf, pos), scal(c, vp, dt), r);
	r = where(c, b_op2(c, "And", inf, b_op1(c, "Not", pos)),
		  scal(c, vm, dt), r);
	out[0] = r;
	return 0;
}

/* --- reductions ------------------------------------------------------------- */

/* Reduction axes: input idim (None or an int list, or an int) and keepdim
 * at ikeep; *k 0 means all dims. */
int sym_red_args(struct lower_ctx *c, struct ir_node *n, int idim,
		 int ikeep, int64_t *axes, int *k, int64_t *keep)
{
	*k = 0;
	*keep = 0;
	if (idim >= 0 && idim < NARGS && !lw_is_none(c, n, idim)) {
		*k = lw_ints(c, n, idim, axes, 64, 0);
		if (*k < 0)
			return lw_decline(c, "dim is not constant");
	}
	if (ikeep >= 0 && ikeep < NARGS && !lw_int(c, n, ikeep, keep))
		return lw_decline(c, "keepdim is not constant");
	return 0;
}

static int anyall(struct lower_ctx *c, struct ir_node *n,
		  struct ir_value **out, int all)
{
	/* any: ReduceSum(x != 0) > 0; all: not any(not x) */
	struct ir_value *x = T(0);
	int64_t axes[64], keep;
	int k;
	if (!x)
		return lw_decline(c, "the input is not a tensor");
	if (sym_red_args(c, n, NARGS >= 3 ? 1 : -1, NARGS >= 3 ? 2 : -1, axes,
		     &k, &keep))
		return 1;
	x = b_cast(c, x, IR_DTYPE_BOOL);
	if (all)
		x = b_op1(c, "Not", x);
	struct ir_value *s = b_reduce(c, "ReduceSum",
				      b_cast(c, x, IR_DTYPE_INT64), axes, k,
				      (int)keep);
	struct ir_value *r = b_op2(c, "Greater", s, b_const_i64(c, 0));
	out[0] = all ? b_op1(c, "Not", r) : r;
	return 0;
}

static SYM(sym_any) { return anyall(c, n, out, 0); }
static SYM(sym_all) { return anyall(c, n, out, 1); }

static SYM(sym_aminmax)
{
	/* (self, dim?, keepdim) -> (min, max) */
	struct ir_value *x = T(0);
	int64_t axes[64], keep;
	int k;
	if (!x)
		return lw_decline(c, "the input is not a tensor");
	if (sym_red_args(c, n, 1, 2, axes, &k, &keep))
		return 1;
	out[0] = b_reduce(c, "ReduceMin", x, axes, k, (int)keep);
	out[1] = b_reduce(c, "ReduceMax", x, axes, k, (int)keep);
	if (k > 0 && keep && b_rank(x) == 0) {
		/* torch 1.13 gives a [1] here (its out= resize), not a 0-d */
		static const int64_t zero = 0;
		out[0] = b_unsqueeze(c, out[0], &zero, 1);
		out[1] = b_unsqueeze(c, out[1], &zero, 1);
	}
	return 0;
}

static SYM(sym_logsumexp)
{
	/* (self, dim, keepdim) */
	struct ir_value *x = T(0);
	int64_t axes[64], keep;
	int k;
	if (!x)
		return lw_decline(c, "the input is not a tensor");
	if (sym_red_args(c, n, 1, 2, axes, &k, &keep))
		return 1;
	out[0] = b_reduce(c, "ReduceLogSumExp", as_float(c, x), axes, k,
			  (int)keep);
	return 0;
}

/* The number of elements reduced over axes (k 0: all) as a 0-d dt:
 * a constant when those dims are fixed, else from Shape. */
static struct ir_value *count_of(struct lower_ctx *c, struct ir_value *x,
				 const int64_t *axes, int k, enum ir_dtype dt)
{
	int r = b_rank(x);
	double cnt = 1;
	int known = r >= 0;
	for (int i = 0; known && i < (k ? k : r); i++) {
		int64_t ax = k ? norm_axis(axes[i], r) : i;
		if (ax < 0 || ax >= r || x->type->dims[ax].kind != IR_DIM_FIXED)
			known = 0;
		else
			cnt *= (double)x->type->dims[ax].value;
	}
	if (known)
		return scal(c, cnt, dt);
	struct ir_value *s = b_cast(c, b_op1(c, "Shape", x), IR_DTYPE_INT64);
	if (k) {
		struct ir_value *idx = b_const_i64s(c, axes, k, 1);
		s = b_op2(c, "Gather", s, idx);
	}
	return b_cast(c, b_reduce(c, "ReduceProd", s, NULL, 0, 0), dt);
}

static int var_mean(struct lower_ctx *c, struct ir_node *n,
		    struct ir_value **out, int isstd)
{
	/* (self, unbiased), (self, dim, unbiased, keepdim) or
	 * .correction(self, dim, correction, keepdim) */
	struct ir_value *x = T(0);
	int64_t axes[64], keep = 0;
	double corr = 1;
	int k = 0;
	if (!x)
		return lw_decline(c, "the input is not a tensor");
	if (NARGS == 2) {
		int64_t u;
		if (!lw_int(c, n, 1, &u))
			return lw_decline(c, "unbiased is not constant");
		corr = (double)u;
	} else if (NARGS == 4) {
		int64_t u;
		if (sym_red_args(c, n, 1, 3, axes, &k, &keep))
			return 1;
		if (lw_int(c, n, 2, &u))
			corr = (double)u;
		else if (!lw_is_none(c, n, 2) && !lw_float(c, n, 2, &corr))
			return lw_decline(c, "unbiased or correction is not "
					  "constant");
	} else {
		return lw_decline(c, "unknown overload");
	}
	x = as_float(c, x);
	enum ir_dtype dt = b_dtype(x);
	struct ir_value *mean = b_reduce(c, "ReduceMean", x, axes, k, 1);
	struct ir_value *d = b_op2(c, "Sub", x, mean);
	struct ir_value *v = b_reduce(c, "ReduceMean", b_op2(c, "Mul", d, d),
				      axes, k, (int)keep);
	if (corr != 0) {
		/* times cnt / (cnt - corr), cnt = numel(x) / numel(mean) */
		struct ir_value *cnt = count_of(c, x, axes, k, dt);
		v = b_op2(c, "Div", b_op2(c, "Mul", v, cnt),
			  b_op2(c, "Sub", cnt, scal(c, corr, dt)));
	}
	out[0] = isstd ? b_op1(c, "Sqrt", v) : v;
	out[1] = keep ? mean : b_reduce(c, "ReduceMean", x, axes, k, 0);
	return 0;
}

static SYM(sym_var_mean) { return var_mean(c, n, out, 0); }
static SYM(sym_std_mean) { return var_mean(c, n, out, 1); }

static SYM(sym_frobenius_norm)
{
	/* (self) or (self, dim, keepdim); an empty dim: every dim */
	struct ir_value *x = T(0);
	int64_t axes[64], keep;
	int k;
	if (!x)
		return lw_decline(c, "the input is not a tensor");
	if (sym_red_args(c, n, NARGS >= 3 ? 1 : -1, NARGS >= 3 ? 2 : -1, axes, &k,
		     &keep))
		return 1;
	out[0] = b_reduce(c, "ReduceL2", as_float(c, x), axes, k, (int)keep);
	return 0;
}

/* The vector p-norm of x over axes (k 0: all). */
struct ir_value *sym_pnorm(struct lower_ctx *c, struct ir_value *x,
			   double p, const int64_t *axes, int k, int keep)
{
	enum ir_dtype dt = b_dtype(x);
	if (p == 2)
		return b_reduce(c, "ReduceL2", x, axes, k, keep);
	if (p == 1)
		return b_reduce(c, "ReduceL1", x, axes, k, keep);
	if (isinf(p))
		return b_reduce(c, p > 0 ? "ReduceMax" : "ReduceMin",
				b_op1(c, "Abs", x), axes, k, keep);
	if (p == 0)
		return b_reduce(c, "ReduceSum", b_cast(c, b_cast(c, x,
				IR_DTYPE_BOOL), dt), axes, k, keep);
	struct ir_value *s = b_reduce(c, "ReduceSum", b_op2(c, "Pow",
			b_op1(c, "Abs", x), scal(c, p, dt)), axes, k, keep);
	return b_op2(c, "Pow", s, scal(c, 1 / p, dt));
}

/* Matrix norm over axes a0, a1 ('fro', 'nuc', +-1, +-2, +-inf). */
static int mnorm(struct lower_ctx *c, struct ir_value *x, const char *sord,
		 double ord, int64_t a0, int64_t a1, int keep,
		 struct ir_value **out)
{
	int64_t ax[2] = { a0, a1 };
	if (sord && !strcmp(sord, "fro")) {
		out[0] = b_reduce(c, "ReduceL2", x, ax, 2, keep);
		return 0;
	}
	if (sord && strcmp(sord, "nuc"))
		return lw_decline(c, "ord other than 'fro', 'nuc' or +-1, +-2, "
				  "+-inf");
	if (!sord && ord != 1 && ord != -1 && fabs(ord) != 2 && !isinf(ord))
		return lw_decline(c, "ord other than 'fro', 'nuc' or +-1, +-2, "
				  "+-inf");
	int r = b_rank(x);
	a0 = norm_axis(a0, r);
	a1 = norm_axis(a1, r);
	if (a0 < 0 || a1 < 0)
		return lw_decline(c, "negative dims with unknown rank");
	/* 'nuc', 2, -2: singular values (symbolic_linalg_orth.c) */
	if (sord || fabs(ord) == 2)
		return sym_svd_norm(c, x, sord ? 'n' : ord > 0 ? '2' : '-', a0,
				    a1, keep, out);
	/* 1: max over columns of column sums (sum over a0, then a1);
	 * inf: over rows (sum over a1, then a0) */
	int64_t sum_ax = isinf(ord) ? a1 : a0, ext_ax = isinf(ord) ? a0 : a1;
	struct ir_value *s = b_reduce(c, "ReduceSum", b_op1(c, "Abs", x),
				      &sum_ax, 1, 1);
	s = b_reduce(c, ord > 0 ? "ReduceMax" : "ReduceMin", s, &ext_ax, 1, 1);
	if (!keep) {
		int64_t sq[2] = { a0 < a1 ? a0 : a1, a0 < a1 ? a1 : a0 };
		s = b_squeeze(c, s, sq, 2);
	}
	out[0] = s;
	return 0;
}

int sym_matrix_norm(struct lower_ctx *c, struct ir_value *x, const char *sord,
		    double ord, int64_t a0, int64_t a1, int keep,
		    struct ir_value **out)
{
	return mnorm(c, x, sord, ord, a0, a1, keep, out);
}

static SYM(sym_linalg_matrix_norm)
{
	/* (self, ord, dim, keepdim, dtype); ord a number or a string */
	struct ir_value *x = T(0);
	int64_t axes[64] = { -2, -1 }, keep = 0;
	double ord = 0;
	const char *sord = lw_str(c, n, 1);
	if (!x)
		return lw_decline(c, "the input is not a tensor");
	if (!sord && !lw_float(c, n, 1, &ord))
		return lw_decline(c, "ord is not constant");
	if (lw_ints(c, n, 2, axes, 64, 0) != 2 || !lw_int(c, n, 3, &keep))
		return lw_decline(c, "dim or keepdim not constant");
	x = b_cast(c, x, dtype_arg(c, n, 4, b_dtype(as_float(c, x))));
	return mnorm(c, x, sord, ord, axes[0], axes[1], (int)keep, out);
}

static SYM(sym_linalg_norm)
{
	/* (self, ord?, dim?, keepdim, dtype); ord a number, a string or
	 * None (2-norm of the flattened input) */
	struct ir_value *x = T(0);
	int64_t axes[64], keep = 0;
	int k = 0;
	double ord = 2;
	const char *sord = lw_str(c, n, 1);
	if (!x)
		return lw_decline(c, "the input is not a tensor");
	int noord = lw_is_none(c, n, 1);
	if (!noord && !sord && !lw_float(c, n, 1, &ord))
		return lw_decline(c, "ord is not constant");
	if (sym_red_args(c, n, 2, 3, axes, &k, &keep))
		return 1;
	x = b_cast(c, x, dtype_arg(c, n, 4, b_dtype(as_float(c, x))));
	int r = b_rank(x);
	if (noord) {
		out[0] = b_reduce(c, "ReduceL2", x, axes, k, (int)keep);
		return 0;
	}
	if (k == 1 || (k == 0 && r == 1)) {
		if (sord)
			return lw_decline(c, "a string ord on one dim");
		out[0] = sym_pnorm(c, x, ord, axes, k, (int)keep);
		return 0;
	}
	if (k == 0 && r == 2) {
		axes[0] = 0;
		axes[1] = 1;
		k = 2;
	}
	if (k != 2)
		return lw_decline(c, "ord needs 1 or 2 dims");
	return mnorm(c, x, sord, ord, axes[0], axes[1], (int)keep, out);
}

/* det, slogdet, logdet as torch 1.13 computes them (_linalg_det_out,
 * _linalg_slogdet_out): getrf of A^T (torch factors the transpose of a
 * contiguous A, which traced and scripted inputs are), then det = the
 * product of U's diagonal, its sign flipped for an odd permutation;
 * slogdet's sign the product of the diagonal's signs (flipped alike),
 * logabsdet the sum of their logs of magnitudes (no overflow where the
 * determinant leaves float's range); logdet is logabsdet, NaN where the
 * sign is -1.  A singular matrix gets torch's tiny or zero values, the
 * same rounding (float32 and float64; LU in a Loop: opset 11). */
static int det_lu(struct lower_ctx *c, struct ir_node *n,
		  struct ir_value **diag, struct ir_value **odd, int *r)
{
	struct ir_value *x = T(0);
	enum ir_dtype dt = x ? b_dtype(x) : IR_DTYPE_UNDEFINED;
	*r = x ? b_rank(x) : -1;
	if (!x || *r < 2 || (dt != IR_DTYPE_FLOAT && dt != IR_DTYPE_DOUBLE))
		return lw_decline(c, "expects a float32 or float64 tensor of "
				  "known rank 2 or more");
	if (c->opset < 11)
		return lw_decline(c, "needs opset 11 (Loop)");
	sym_linalg_lu_diag(c, x, *r, diag, odd);
	return 0;
}

static SYM(sym_linalg_det)
{
	struct ir_value *d, *odd;
	int r;
	if (det_lu(c, n, &d, &odd, &r))
		return 1;
	int64_t ax = r - 2;
	d = b_reduce(c, "ReduceProd", d, &ax, 1, 0);
	out[0] = b_op3(c, "Where", odd, b_op1(c, "Neg", d), d);
	return 0;
}

static SYM(sym_slogdet)
{
	struct ir_value *d, *odd;
	int r;
	if (det_lu(c, n, &d, &odd, &r))
		return 1;
	int64_t ax = r - 2;
	struct ir_value *sg = b_reduce(c, "ReduceProd", b_op1(c, "Sign", d),
				       &ax, 1, 0);
	sg = b_op3(c, "Where", odd, b_op1(c, "Neg", sg), sg);
	struct ir_value *la = b_reduce(c, "ReduceSum",
				       b_op1(c, "Log", b_op1(c, "Abs", d)),
				       &ax, 1, 0);
	if (n->op == OP_aten_logdet) {
		enum ir_dtype dt = b_dtype(la);
		out[0] = b_op3(c, "Where", b_op2(c, "Less", sg,
						  b_const_scalar(c, 0, dt, 0)),
			       b_const_scalar(c, NAN, dt, 0), la);
		return 0;
	}
	out[0] = sg;
	out[1] = la;
	return 0;
}

static SYM(sym_dot)
{
	struct ir_value *a = T(0), *b = T(1);
	if (!a || !b)
		return lw_decline(c, "operands are not tensors");
	out[0] = b_op2(c, "MatMul", a, b);
	return 0;
}

static SYM(sym_outer)
{
	struct ir_value *a = T(0), *b = T(1);
	int64_t one = 1;
	if (!a || !b)
		return lw_decline(c, "operands are not tensors");
	enum ir_dtype dt = lw_promote(b_dtype(a), b_dtype(b));
	if (dt != IR_DTYPE_UNDEFINED) {
		a = b_cast(c, a, dt);
		b = b_cast(c, b, dt);
	}
	if (c->opset >= 12 && (dt == IR_DTYPE_FLOAT || dt == IR_DTYPE_DOUBLE ||
			       dt == IR_DTYPE_INT32 || dt == IR_DTYPE_INT64)) {
		/* torch's: one Einsum (one product per element, as Mul) */
		struct ir_node *e = b_node(c, "Einsum", 2,
					   (struct ir_value *[]){ a, b }, 1);
		b_attr_s(c, e, "equation", "i,j->ij");
		out[0] = b_done(c, e);
		return 0;
	}
	out[0] = b_op2(c, "Mul", b_unsqueeze(c, a, &one, 1), b);
	return 0;
}

static SYM(sym_mv)
{
	return sym_dot(c, n, out);
}

static SYM(sym_passthrough)
{
	/* resolve_conj, resolve_neg, lift: real tensors pass (conj_physical
	 * is symbolic_fft.c's sym_conj, which passes them too) */
	out[0] = T(0);
	return out[0] ? 0 : lw_decline(c, "the input is not a tensor");
}

/* --- activations ----------------------------------------------------------- */

static SYM(sym_celu)
{
	struct ir_value *x = T(0);
	double a = 1;
	if (!x)
		return lw_decline(c, "the input is not a tensor");
	if (NARGS > 1 && !lw_float(c, n, 1, &a))
		return lw_decline(c, "alpha is not constant");
	if (c->opset >= 12 && b_dtype(x) == IR_DTYPE_FLOAT) {
		struct ir_node *nd = b_node(c, "Celu", 1, &x, 1);
		b_attr_f(c, nd, "alpha", a);
		out[0] = b_done(c, nd);
		return 0;
	}
	/* max(0, x) + min(0, alpha * (exp(x / alpha) - 1)) */
	enum ir_dtype dt = b_dtype(x);
	struct ir_value *zero = scal(c, 0, dt), *av = scal(c, a, dt);
	struct ir_value *e = b_op2(c, "Sub", b_op1(c, "Exp",
			b_op2(c, "Div", x, av)), scal(c, 1, dt));
	out[0] = b_op2(c, "Add", b_op2(c, "Max", x, zero),
		       b_op2(c, "Min", zero, b_op2(c, "Mul", av, e)));
	return 0;
}

static SYM(sym_selu)
{
	struct ir_value *x = T(0);
	if (!x)
		return lw_decline(c, "the input is not a tensor");
	out[0] = b_op1(c, "Selu", x);
	return 0;
}

static SYM(sym_hardshrink)
{
	struct ir_value *x = T(0);
	double l = 0.5;
	if (!x)
		return lw_decline(c, "the input is not a tensor");
	if (NARGS > 1 && !lw_float(c, n, 1, &l))
		return lw_decline(c, "lambd is not constant");
	enum ir_dtype dt = b_dtype(x);
	struct ir_value *cond = b_op2(c, "Or",
			b_op2(c, "Less", x, scal(c, -l, dt)),
			b_op2(c, "Greater", x, scal(c, l, dt)));
	out[0] = where(c, cond, x, scal(c, 0, dt));
	return 0;
}

static SYM(sym_softshrink)
{
	struct ir_value *x = T(0);
	double l = 0.5;
	if (!x)
		return lw_decline(c, "the input is not a tensor");
	if (NARGS > 1 && !lw_float(c, n, 1, &l))
		return lw_decline(c, "lambd is not constant");
	enum ir_dtype dt = b_dtype(x);
	struct ir_value *lv = scal(c, l, dt), *nl = scal(c, -l, dt);
	struct ir_value *r = where(c, b_op2(c, "Less", x, nl),
				   b_op2(c, "Add", x, lv), scal(c, 0, dt));
	out[0] = where(c, b_op2(c, "Greater", x, lv), b_op2(c, "Sub", x, lv),
		       r);
	return 0;
}

static SYM(sym_threshold)
{
	/* x > threshold ? x : value */
	struct ir_value *x = T(0);
	if (!x)
		return lw_decline(c, "the input is not a tensor");
	enum ir_dtype dt = b_dtype(x);
	struct ir_value *th = sym_operand(c, n, 1, dt);
	struct ir_value *v = sym_operand(c, n, 2, dt);
	if (!th || !v)
		return lw_decline(c, "threshold or value is not a number");
	out[0] = where(c, b_op2(c, "Greater", x, th), x, v);
	return 0;
}

static SYM(sym_rrelu)
{
	/* (self, lower, upper, training, generator): training draws the
	 * negative slopes (RandomUniformLike, as torch exports it) */
	struct ir_value *x = T(0);
	double lo = 1.0 / 8, hi = 1.0 / 3;
	int64_t train = 0;
	if (!x)
		return lw_decline(c, "the input is not a tensor");
	if ((NARGS > 1 && !lw_float(c, n, 1, &lo)) ||
	    (NARGS > 2 && !lw_float(c, n, 2, &hi)) ||
	    (NARGS > 3 && !lw_int(c, n, 3, &train)))
		return lw_decline(c, "lower, upper or training not constant");
	if (!train) {
		struct ir_node *nd = b_node(c, "LeakyRelu", 1, &x, 1);
		b_attr_f(c, nd, "alpha", (lo + hi) / 2);
		out[0] = b_done(c, nd);
		return 0;
	}
	struct ir_value *r = b_random(c, 0, x, NULL, NULL, 0, b_dtype(x), lo,
				      hi);
	out[0] = b_op2(c, "PRelu", x, r);
	return 0;
}

static SYM(sym_glu)
{
	/* a * sigmoid(b), a and b the halves of dim */
	struct ir_value *x = T(0), *h[2];
	int64_t dim = -1;
	if (!x)
		return lw_decline(c, "the input is not a tensor");
	if (NARGS > 1 && !lw_int(c, n, 1, &dim))
		return lw_decline(c, "dim is not constant");
	int r = b_rank(x);
	dim = norm_axis(dim, r);
	if (dim < 0)
		return lw_decline(c, "negative dim with unknown rank");
	b_split(c, x, dim, NULL, 2, h);
	out[0] = b_op2(c, "Mul", h[0], b_op1(c, "Sigmoid", h[1]));
	return 0;
}

static SYM(sym_prelu)
{
	struct ir_value *x = T(0), *w = T(1);
	if (!x || !w)
		return lw_decline(c, "operands are not tensors");
	int r = b_rank(x), wr = b_rank(w);
	if (r > 2 && wr == 1) {
		int64_t axes[64];
		for (int i = 1; i < r - 1; i++)
			axes[i - 1] = i;
		w = b_unsqueeze(c, w, axes, r - 2);
	} else if (r == 0 && wr == 1) {
		int64_t zero = 0;
		w = b_squeeze(c, w, &zero, 1);
	}
	out[0] = b_op2(c, "PRelu", x, w);
	return 0;
}

/* --- creation ------------------------------------------------------------- */

static SYM(sym_fill)
{
	/* fill(self, value): value broadcast to self's shape and dtype */
	struct ir_value *x = T(0);
	if (!x)
		return lw_decline(c, "the input is not a tensor");
	double f;
	enum ir_dtype dt = b_dtype(x);
	if (lw_float(c, n, 1, &f) && f < 9007199254740992.0 &&
	    f > -9007199254740992.0 && (dt == IR_DTYPE_FLOAT ||
				      dt == IR_DTYPE_DOUBLE ||
				      dt == IR_DTYPE_INT64 ||
				      dt == IR_DTYPE_INT32 ||
				      dt == IR_DTYPE_BOOL)) {
		/* a number: ConstantOfShape, as torch */
		out[0] = sym_fill_shape(c, b_op1(c, "Shape", x), f, dt);
		if (out[0])
			return 0;
	}
	struct ir_value *v = sym_operand(c, n, 1, dt);
	if (!v)
		return lw_decline(c, "value is not a tensor or number");
	out[0] = b_op2(c, "Expand", v, b_op1(c, "Shape", x));
	return 0;
}

static int new_fill(struct lower_ctx *c, struct ir_node *n,
		    struct ir_value **out, struct ir_value *shape, double v,
		    enum ir_dtype dt)
{
	if (!shape)
		return lw_decline(c, "size is not a list of ints");
	out[0] = sym_fill_shape(c, shape, v, dt == IR_DTYPE_UNDEFINED
						 ? IR_DTYPE_FLOAT : dt);
	return out[0] ? 0 : 1;
}

static SYM(sym_empty)
{
	/* empty(size, dtype, layout, device, pin_memory, memory_format) */
	return new_fill(c, n, out, T(0), 0,
			dtype_arg(c, n, 1, IR_DTYPE_FLOAT));
}

/* empty_strided(size, stride, dtype, ...): a new tensor, so its strides
 * are not seen; zeros as empty */
static SYM(sym_empty_strided)
{
	return new_fill(c, n, out, T(0), 0,
			dtype_arg(c, n, 2, IR_DTYPE_FLOAT));
}

static SYM(sym_empty_like)
{
	struct ir_value *x = T(0);
	if (!x)
		return lw_decline(c, "the input is not a tensor");
	return new_fill(c, n, out, b_op1(c, "Shape", x), 0,
			dtype_arg(c, n, 1, b_dtype(x)));
}

/* new_zeros/new_ones/new_empty(self, size, dtype, ...) */
static int new_const(struct lower_ctx *c, struct ir_node *n,
		     struct ir_value **out, double v)
{
	struct ir_value *x = T(0);
	if (!x)
		return lw_decline(c, "the input is not a tensor");
	return new_fill(c, n, out, T(1), v, dtype_arg(c, n, 2, b_dtype(x)));
}

static SYM(sym_new_zeros) { return new_const(c, n, out, 0); }
static SYM(sym_new_ones) { return new_const(c, n, out, 1); }

static SYM(sym_new_full)
{
	/* (self, size, fill_value, dtype, ...) */
	struct ir_value *x = T(0);
	double v;
	if (!x)
		return lw_decline(c, "the input is not a tensor");
	enum ir_dtype dt = dtype_arg(c, n, 3, b_dtype(x));
	if (lw_float(c, n, 2, &v))
		return new_fill(c, n, out, T(1), v, dt);
	struct ir_value *s = T(1), *fv = sym_operand(c, n, 2, dt);
	if (!s || !fv)
		return lw_decline(c, "size or fill_value unusable");
	out[0] = b_op2(c, "Expand", fv, s);
	return 0;
}

static SYM(sym_scalar_tensor)
{
	/* (s, dtype, layout, device, pin_memory) */
	enum ir_dtype dt = dtype_arg(c, n, 1, IR_DTYPE_FLOAT);
	double v;
	if (lw_float(c, n, 0, &v)) {
		out[0] = b_const_scalar(c, v, dt, 0);
		return 0;
	}
	out[0] = sym_operand(c, n, 0, dt);
	return out[0] ? 0 : lw_decline(c, "s is not a number");
}

/* A 0-d number input as a [1] Long. */
static struct ir_value *dim1(struct lower_ctx *c, struct ir_node *n, int i)
{
	int64_t zero = 0;
	struct ir_value *v = lw_scalar_as(c, n, i, IR_DTYPE_INT64, 0);
	return v ? b_unsqueeze(c, b_cast(c, v, IR_DTYPE_INT64), &zero, 1)
		 : NULL;
}

static SYM(sym_eye)
{
	/* eye(n, dtype, ...) 5 args or eye.m(n, m, dtype, ...) 6 */
	int hasm = NARGS >= 6;
	enum ir_dtype dt = dtype_arg(c, n, hasm ? 2 : 1, IR_DTYPE_FLOAT);
	int64_t d[2];
	struct ir_value *shape;
	if (lw_int(c, n, 0, &d[0]) && (!hasm || lw_int(c, n, 1, &d[1]))) {
		if (!hasm)
			d[1] = d[0];
		shape = b_const_i64s(c, d, 2, 1);
	} else {
		struct ir_value *a = dim1(c, n, 0);
		struct ir_value *b = hasm ? dim1(c, n, 1) : a;
		if (!a || !b)
			return lw_decline(c, "n or m is not a number");
		shape = b_concat(c, 2, (struct ir_value *[]){ a, b }, 0);
	}
	struct ir_value *z = sym_fill_shape(c, shape, 0, dt);
	if (!z)
		return 1;
	out[0] = b_op1(c, "EyeLike", z);
	return 0;
}

/* linspace(start, end, steps, dtype, layout, device, pin_memory) and
 * logspace(start, end, steps, base, dtype, ...): base ** linspace's
 * values (in double; float outputs' exponents in float, as torch's
 * kernels) */
static SYM(sym_linspace)
{
	double a, b, base = 10;
	int64_t steps;
	int lg = n->op == OP_aten_logspace;
	if (!lw_int(c, n, 2, &steps))
		return lw_decline(c, "steps must be constant");
	if (steps < 0 || steps > (1 << 20))
		return lw_decline(c, "steps out of range");
	if (lg && NARGS > 3 && !lw_float(c, n, 3, &base))
		return lw_decline(c, "base is not a constant number");
	enum ir_dtype dt = dtype_arg(c, n, lg ? 4 : 3, IR_DTYPE_FLOAT);
	double *v = ir_alloc(c->g, sizeof(double) * (size_t)(steps ? steps : 1));
	if (!lw_float(c, n, 0, &a) || !lw_float(c, n, 1, &b)) {
		/* start or end known at run time: the same two halves, in
		 * Double, from constant index vectors */
		struct ir_value *va = lw_scalar_as(c, n, 0, IR_DTYPE_DOUBLE, 0);
		struct ir_value *vb = lw_scalar_as(c, n, 1, IR_DTYPE_DOUBLE, 0);
		if (!va || !vb || steps < 1)
			return lw_decline(c, "start or end is not a number");
		double *w = ir_alloc(c->g, sizeof(double) * (size_t)steps);
		for (int64_t i = 0; i < steps; i++) {
			v[i] = (double)i;
			w[i] = (double)(steps - 1 - i);
		}
		struct ir_value *st = steps > 1 ? b_op2(c, "Div", b_op2(c, "Sub", vb, va),
				scal(c, (double)(steps - 1), IR_DTYPE_DOUBLE))
				: scal(c, 0, IR_DTYPE_DOUBLE);
		struct ir_value *lo = b_op2(c, "Add", va, b_op2(c, "Mul", st,
				const_floats(c, v, steps, IR_DTYPE_DOUBLE)));
		struct ir_value *hi = b_op2(c, "Sub", vb, b_op2(c, "Mul", st,
				const_floats(c, w, steps, IR_DTYPE_DOUBLE)));
		/* torch fills the second half backwards from end */
		struct ir_value *first = b_op2(c, "Less",
				const_floats(c, v, steps, IR_DTYPE_DOUBLE),
				scal(c, (double)(steps == 1 ? 1 : steps / 2), IR_DTYPE_DOUBLE));
		struct ir_value *e = where(c, first, lo, hi);
		if (lg)
			e = b_op2(c, "Pow", scal(c, base, IR_DTYPE_DOUBLE), e);
		out[0] = b_cast(c, lg && !b_is_float(dt) ? b_op1(c, "Floor", e) : e, dt);
		return 0;
	}
	if (lg && !b_is_float(dt)) {
		/* logspace takes start and end in the output's dtype */
		a = trunc(a);
		b = trunc(b);
	}
	double step = steps > 1 ? (b - a) / (double)(steps - 1) : 0;
	/* torch fills the second half backwards from end (one step:
	 * start) */
	for (int64_t i = 0; i < steps; i++)
		v[i] = i < (steps == 1 ? 1 : steps / 2) ? a + step * (double)i
				     : b - step * (double)(steps - 1 - i);
	if (lg && dt == IR_DTYPE_FLOAT) {
		float fa = (float)a, fb = (float)b, fs = steps > 1 ?
			   (fb - fa) / (float)(steps - 1) : 0;
		for (int64_t i = 0; i < steps; i++)
			v[i] = i < (steps == 1 ? 1 : steps / 2) ? fa + fs * (float)i
					     : fb - fs * (float)(steps - 1 - i);
	}
	for (int64_t i = 0; lg && i < steps; i++)
		v[i] = pow(base, v[i]);
	if (b_is_float(dt)) {
		out[0] = const_floats(c, v, steps, dt);
		return 0;
	}
	for (int64_t i = 0; i < steps; i++)
		v[i] = trunc(v[i]);
	out[0] = b_cast(c, const_floats(c, v, steps, IR_DTYPE_DOUBLE), dt);
	return 0;
}

static SYM(sym_hann_window)
{
	/* hann_window(N, dtype, ...) 5 args, .periodic(N, periodic,
	 * dtype, ...) 6 */
	int64_t len, periodic = 1;
	int hasp = NARGS >= 6;
	if (hasp && !lw_int(c, n, 1, &periodic))
		return lw_decline(c, "periodic is not constant");
	enum ir_dtype dt = dtype_arg(c, n, hasp ? 2 : 1, IR_DTYPE_FLOAT);
	if (!lw_int(c, n, 0, &len)) {
		if (c->opset < 17)
			return lw_decline(c, "a variable window length needs "
					  "opset 17 (HannWindow)");
		struct ir_value *sz = lw_scalar_as(c, n, 0, IR_DTYPE_INT64, 0);
		if (!sz)
			return lw_decline(c, "window_length is not a number");
		struct ir_node *h = b_node(c, "HannWindow", 1, &sz, 1);
		b_attr_i(c, h, "periodic", periodic);
		b_attr_i(c, h, "output_datatype", dt);
		out[0] = b_done(c, h);
		return 0;
	}
	if (len < 0 || len > (1 << 20))
		return lw_decline(c, "window_length out of range");
	double *v = ir_alloc(c->g, sizeof(double) * (size_t)(len ? len : 1));
	double den = (double)(periodic ? len : len - 1);
	for (int64_t i = 0; i < len; i++)
		v[i] = len == 1 ? 1 : 0.5 - 0.5 * cos(2 * M_PI * (double)i / den);
	out[0] = const_floats(c, v, len, dt);
	return 0;
}

static SYM(sym_dim_arange)
{
	/* _dim_arange(like, dim): arange(like.size(dim)) */
	struct ir_value *x = T(0);
	int64_t dim;
	if (!x || !lw_int(c, n, 1, &dim))
		return lw_decline(c, "like or dim unusable");
	out[0] = sym_arange_count(c, b_dim(c, x, dim));
	return out[0] ? 0 : 1;
}

/* --- random --------------------------------------------------------------- */

static int random_shape(struct lower_ctx *c, struct ir_node *n,
			struct ir_value **out, int normal)
{
	/* rand/randn(size, dtype, layout, device, pin) or with a generator
	 * after size (6 args) */
	int idt = NARGS >= 6 ? 2 : 1;
	enum ir_dtype dt = dtype_arg(c, n, idt, IR_DTYPE_FLOAT);
	int64_t sz[64];
	int k = lw_ints(c, n, 0, sz, 64, 0);
	if (!b_is_float(dt))
		return lw_decline(c, "a non-float dtype");
	struct ir_value *s = NULL;
	if (k < 0 && !(s = T(0)))
		return lw_decline(c, "size is not a list of ints");
	out[0] = b_random(c, normal, NULL, s, sz, k, dt, 0, 1);
	return 0;
}

static SYM(sym_rand) { return random_shape(c, n, out, 0); }
static SYM(sym_randn) { return random_shape(c, n, out, 1); }

static int random_like(struct lower_ctx *c, struct ir_node *n,
		       struct ir_value **out, int normal)
{
	/* (self, dtype, layout, device, pin_memory, memory_format) */
	struct ir_value *x = T(0);
	if (!x)
		return lw_decline(c, "the input is not a tensor");
	enum ir_dtype dt = dtype_arg(c, n, 1, b_dtype(x));
	if (!b_is_float(dt))
		return lw_decline(c, "a non-float dtype");
	out[0] = b_random(c, normal, x, NULL, NULL, 0, dt, 0, 1);
	return 0;
}

static SYM(sym_rand_like) { return random_like(c, n, out, 0); }
static SYM(sym_randn_like) { return random_like(c, n, out, 1); }

/* uniform(self, from=0, to=1, generator) (uniform_ functionalized): a
 * draw in [from, to) of self's shape and dtype */
static SYM(sym_uniform)
{
	struct ir_value *x = T(0);
	double lo = 0, hi = 1;
	if (!x || !b_is_float(b_dtype(x)))
		return lw_decline(c, "the input is not a float tensor");
	if ((NARGS > 1 && !lw_is_none(c, n, 1) && !lw_float(c, n, 1, &lo)) ||
	    (NARGS > 2 && !lw_is_none(c, n, 2) && !lw_float(c, n, 2, &hi)))
		return lw_decline(c, "from or to is not constant");
	if (!(lo <= hi))
		return lw_decline(c, "from is above to (torch refuses it)");
	out[0] = b_random(c, 0, x, NULL, NULL, 0, b_dtype(x), lo, hi);
	return 0;
}

/* 1 when broadcasting a with b gives b's shape (b's dims fixed where a's
 * are not 1). */
static int fits_into(const struct ir_value *a, const struct ir_value *b)
{
	int ra = b_rank(a), rb = b_rank(b);
	if (ra < 0 || rb < 0 || ra > rb)
		return 0;
	for (int i = 0; i < ra; i++) {
		const struct ir_dim *da = &a->type->dims[i];
		const struct ir_dim *db = &b->type->dims[rb - ra + i];
		if (da->kind != IR_DIM_FIXED)
			return 0;
		if (da->value != 1 && (db->kind != IR_DIM_FIXED ||
				       db->value != da->value))
			return 0;
	}
	return 1;
}

static SYM(sym_normal)
{
	/* normal(mean, std, generator) with tensors or numbers, or
	 * normal.float_float(mean, std, size, generator, dtype, ...) */
	if (NARGS >= 8) {
		double m, s;
		int64_t sz[64];
		int k = lw_ints(c, n, 2, sz, 64, 0);
		if (!lw_float(c, n, 0, &m) || !lw_float(c, n, 1, &s) || k < 0)
			return lw_decline(c, "mean, std or size not constant");
		enum ir_dtype dt = dtype_arg(c, n, 4, IR_DTYPE_FLOAT);
		out[0] = b_random(c, 1, NULL, NULL, sz, k, dt, m, s);
		return 0;
	}
	enum ir_dtype dt = sym_result_type(c, n, 0, 1);
	if (!b_is_float(dt))
		dt = IR_DTYPE_FLOAT;
	struct ir_value *m = sym_operand(c, n, 0, dt);
	struct ir_value *s = sym_operand(c, n, 1, dt);
	if (!m || !s)
		return lw_decline(c, "mean or std unusable");
	/* the random draw has the broadcast shape: m's own when s fits
	 * into it */
	struct ir_value *like = fits_into(s, m) ? m : b_op2(c, "Add", m, s);
	struct ir_value *r = b_random(c, 1, like, NULL, NULL, 0, dt, 0, 1);
	out[0] = b_op2(c, "Add", b_op2(c, "Mul", r, s), m);
	return 0;
}

static SYM(sym_bernoulli)
{
	/* bernoulli(self, generator) draws with probabilities self;
	 * bernoulli.p(self, p, generator) with p */
	struct ir_value *x = T(0);
	if (!x)
		return lw_decline(c, "the input is not a tensor");
	enum ir_dtype dt = b_dtype(x);
	struct ir_value *like = as_float(c, x), *p = like;
	if (NARGS >= 3) {
		p = sym_operand(c, n, 1, b_dtype(like));
		if (!p)
			return lw_decline(c, "p is not a number or tensor");
	}
	struct ir_value *r = b_random(c, 0, like, NULL, NULL, 0, b_dtype(like),
				      0, 1);
	out[0] = b_cast(c, b_op2(c, "Less", r, p),
			dt == IR_DTYPE_UNDEFINED ? IR_DTYPE_FLOAT : dt);
	return 0;
}

/* Multinomial with replacement where ONNX's node does not run (from opset
 * 22, random.c): p [B, N] the weights, k draws per row, each the count of
 * j with cumsum(p)[j] < u * sum(p), u uniform in [0, 1): torch's own
 * inverse-CDF search (multinomial_with_replacement_apply). */
static struct ir_value *multinomial_inverse_cdf(struct lower_ctx *c,
						struct ir_value *p, int64_t k)
{
	int64_t one = 1, last = -1, kk[2] = { k, 1 };
	struct ir_value *cdf = b_op2(c, "CumSum", p, b_const_i64(c, 1));
	struct ir_value *total = b_slice(c, cdf, -1, INT64_MAX, 1, 1);
	struct ir_value *cat[2] = {
		b_slice(c, b_op1(c, "Shape", p), 0, 1, 0, 1),
		b_const_i64s(c, kk, 2, 1) };
	struct ir_value *cn = b_concat(c, 2, cat, 0);
	struct ir_value *u = b_random(c, 0, NULL, cn, NULL, 0,
				      b_dtype(p), 0, 1);
	/* [B, 1, N] < [B, k, 1] * [B, 1, 1] */
	struct ir_value *below = b_op2(c, "Less", b_unsqueeze(c, cdf, &one, 1),
			b_op2(c, "Mul", u, b_unsqueeze(c, total, &one, 1)));
	return b_reduce(c, "ReduceSum", b_cast(c, below, IR_DTYPE_INT64),
			&last, 1, 0);
}

static SYM(sym_multinomial)
{
	/* (self, num_samples, replacement, generator): with replacement
	 * Multinomial of the log-probabilities; without, the top k of the
	 * Gumbel-perturbed log-probabilities (the same distribution) */
	struct ir_value *x = T(0);
	int64_t k, repl = 0, zero = 0;
	if (!x || !lw_int(c, n, 1, &k))
		return lw_decline(c, "num_samples is not constant");
	if (NARGS > 2 && !lw_int(c, n, 2, &repl))
		return lw_decline(c, "replacement is not constant");
	int r = b_rank(x);
	if (r != 1 && r != 2)
		return lw_decline(c, "input rank not 1 or 2");
	struct ir_value *lp = b_op1(c, "Log", as_float(c, x));
	if (r == 1)
		lp = b_unsqueeze(c, lp, &zero, 1);
	struct ir_value *res;
	if (repl && !b_random_nodes(c)) {
		res = multinomial_inverse_cdf(c, r == 1 ? b_unsqueeze(c,
				as_float(c, x), &zero, 1) : as_float(c, x), k);
	} else if (repl) {
		struct ir_node *m = b_node(c, "Multinomial", 1, &lp, 1);
		b_attr_i(c, m, "sample_size", k);
		b_attr_i(c, m, "dtype", IR_DTYPE_INT64);
		res = b_done(c, m);
	} else {
		struct ir_value *uv = b_random(c, 0, lp, NULL, NULL, 0,
					       b_dtype(lp), 0, 1);
		struct ir_value *g = b_op1(c, "Neg", b_op1(c, "Log",
				b_op1(c, "Neg", b_op1(c, "Log", uv))));
		struct ir_value *s = b_op2(c, "Add", lp, g);
		struct ir_node *t;
		if (c->opset >= 10) {
			int64_t kk = k;
			struct ir_value *kv = b_const_i64s(c, &kk, 1, 1);
			t = b_node(c, "TopK", 2, (struct ir_value *[]){ s, kv },
				   2);
		} else {
			t = b_node(c, "TopK", 1, &s, 2);
			b_attr_i(c, t, "k", k);
		}
		b_attr_i(c, t, "axis", -1);
		b_done(c, t);
		res = t->outputs[1];
	}
	out[0] = r == 1 ? b_squeeze(c, res, &zero, 1) : res;
	return 0;
}

static SYM(sym_no_random_gamma)
{
	return lw_decline(c, "gamma sampling has no ONNX operator");
}

/* --- fake quantisation -------------------------------------------------------- */

static int fake_quant(struct lower_ctx *c, struct ir_node *n,
		      struct ir_value **out, int axis, int iq)
{
	struct ir_value *x = T(0);
	int64_t qmin, qmax;
	if (!x)
		return lw_decline(c, "the input is not a tensor");
	if (c->opset < (axis >= 0 ? 13 : 10))
		return lw_decline(c, axis >= 0 ? "needs opset 13" :
				  "needs opset 10");
	if (!lw_int(c, n, iq, &qmin) || !lw_int(c, n, iq + 1, &qmax))
		return lw_decline(c, "quant_min or quant_max not constant");
	int u8 = qmin == 0 && qmax == 255, i8 = qmin == -128 && qmax == 127;
	int u7 = qmin == 0 && qmax == 127;
	if (!u8 && !i8 && !u7)
		return lw_decline(c, "quant range other than (0, 255), "
				  "(-128, 127) or (0, 127)");
	if (u7 && c->opset < 12)
		return lw_decline(c, "(0, 127) needs opset 12");
	struct ir_value *sc, *zp;
	if (axis >= 0) {
		sc = T(1);
		zp = T(2);
	} else {
		sc = lw_scalar_as(c, n, 1, IR_DTYPE_FLOAT, 0);
		zp = lw_scalar_as(c, n, 2, IR_DTYPE_INT64, 0);
	}
	if (!sc || !zp)
		return lw_decline(c, "scale or zero_point unusable");
	sc = b_cast(c, sc, IR_DTYPE_FLOAT);
	zp = b_cast(c, zp, i8 ? IR_DTYPE_INT8 : IR_DTYPE_UINT8);
	x = b_cast(c, x, IR_DTYPE_FLOAT);
	struct ir_node *q = b_node(c, "QuantizeLinear", 3,
				   (struct ir_value *[]){ x, sc, zp }, 1);
	if (axis >= 0)
		b_attr_i(c, q, "axis", axis);
	struct ir_value *qv = b_done(c, q);
	if (u7) {
		struct ir_value *lo = b_const_scalar(c, 0, IR_DTYPE_UINT8, 0);
		struct ir_value *hi = b_const_scalar(c, 127, IR_DTYPE_UINT8, 0);
		qv = b_op3(c, "Clip", qv, lo, hi);
	}
	struct ir_node *d = b_node(c, "DequantizeLinear", 3,
				   (struct ir_value *[]){ qv, sc, zp }, 1);
	if (axis >= 0)
		b_attr_i(c, d, "axis", axis);
	out[0] = b_done(c, d);
	return 0;
}

static SYM(sym_fake_quantize_per_tensor_affine)
{
	/* (self, scale, zero_point, quant_min, quant_max) */
	return fake_quant(c, n, out, -1, 3);
}

static SYM(sym_fake_quantize_per_channel_affine)
{
	/* (self, scale, zero_point, axis, quant_min, quant_max) */
	int64_t axis;
	if (!lw_int(c, n, 3, &axis))
		return lw_decline(c, "axis is not constant");
	axis = norm_axis(axis, b_rank(T(0)));
	if (axis < 0)
		return lw_decline(c, "negative axis with unknown rank");
	return fake_quant(c, n, out, (int)axis, 4);
}

/* --- tensor properties -------------------------------------------------- */

/* x.is_floating_point(): a constant from x's dtype, as torch's exporter
 * makes it from the value's scalar type (so that an If on it, torch's
 * upgrader for an old `div`, folds to the branch taken); declined when
 * the dtype is not known (torch would guess False). */
static SYM(sym_is_floating_point)
{
	struct ir_value *x = lw_in(c, n, 0);
	if (!x || x->type->kind != IR_TYPE_TENSOR)
		return lw_decline(c, "the input is not a tensor");
	enum ir_dtype dt = b_dtype(x);
	if (dt == IR_DTYPE_UNDEFINED)
		return lw_decline(c, "the input's dtype is not known");
	out[0] = b_const_bool(c, b_is_float(dt));
	return 0;
}

/* `not b` of a bool: a constant when b is one, else Not. */
static SYM(sym_not)
{
	int64_t v;
	if (lw_int(c, n, 0, &v)) {
		out[0] = b_const_bool(c, v == 0);
		return 0;
	}
	struct ir_value *x = T(0);
	if (!x)
		return lw_decline(c, "the operand is not a bool");
	const struct ir_tensor *t = b_const_of(x);
	if (t && t->dtype == IR_DTYPE_BOOL && ir_tensor_numel(t) == 1 &&
	    t->bytes.len >= 1) {
		out[0] = b_const_bool(c, t->bytes.data[0] == 0);
		return 0;
	}
	out[0] = b_op1(c, "Not", b_cast(c, x, IR_DTYPE_BOOL));
	return 0;
}

/* --- table ------------------------------------------------------------------ */

static const struct symbolic entries[] = {
	{ OP_aten___lshift__, 0, 0, SYM_PRIO_BASE, sym_lshift },
	{ OP_aten___not__, 0, 0, SYM_PRIO_BASE, sym_not },
	{ OP_aten___rshift__, 0, 0, SYM_PRIO_BASE, sym_rshift },
	{ OP_aten_bitwise_left_shift, 0, 0, SYM_PRIO_BASE, sym_lshift },
	{ OP_aten_bitwise_right_shift, 0, 0, SYM_PRIO_BASE, sym_rshift },
	{ OP_aten__cast_Byte, 0, 0, SYM_PRIO_BASE, sym_cast_byte },
	{ OP_aten__cast_Char, 0, 0, SYM_PRIO_BASE, sym_cast_char },
	{ OP_aten__cast_Double, 0, 0, SYM_PRIO_BASE, sym_cast_double },
	{ OP_aten__cast_Float, 0, 0, SYM_PRIO_BASE, sym_cast_float },
	{ OP_aten__cast_Half, 0, 0, SYM_PRIO_BASE, sym_cast_half },
	{ OP_aten__cast_Int, 0, 0, SYM_PRIO_BASE, sym_cast_int },
	{ OP_aten__cast_Long, 0, 0, SYM_PRIO_BASE, sym_cast_long },
	{ OP_aten__cast_Short, 0, 0, SYM_PRIO_BASE, sym_cast_short },
	{ OP_aten_acos, 0, 0, SYM_PRIO_BASE, sym_acos },
	{ OP_aten_asin, 0, 0, SYM_PRIO_BASE, sym_asin },
	{ OP_aten_atan, 0, 0, SYM_PRIO_BASE, sym_atan },
	{ OP_aten_tan, 0, 0, SYM_PRIO_BASE, sym_tan },
	{ OP_aten_cosh, 9, 0, SYM_PRIO_BASE, sym_cosh },
	{ OP_aten_sinh, 9, 0, SYM_PRIO_BASE, sym_sinh },
	{ OP_aten_acosh, 9, 0, SYM_PRIO_BASE, sym_acosh },
	{ OP_aten_arccosh, 9, 0, SYM_PRIO_BASE, sym_acosh },
	{ OP_aten_asinh, 9, 0, SYM_PRIO_BASE, sym_asinh },
	{ OP_aten_arcsinh, 9, 0, SYM_PRIO_BASE, sym_asinh },
	{ OP_aten_atanh, 9, 0, SYM_PRIO_BASE, sym_atanh },
	{ OP_aten_arctanh, 9, 0, SYM_PRIO_BASE, sym_atanh },
	{ OP_aten_log10, 0, 0, SYM_PRIO_BASE, sym_log10 },
	{ OP_aten_log1p, 0, 0, SYM_PRIO_BASE, sym_log1p },
	{ OP_aten_log2, 0, 0, SYM_PRIO_BASE, sym_log2 },
	{ OP_aten_round, 0, 0, SYM_PRIO_BASE, sym_round },
	{ OP_aten_square, 0, 0, SYM_PRIO_BASE, sym_square },
	{ OP_aten_fmod, 0, 0, SYM_PRIO_BASE, sym_fmod },
	{ OP_aten_lerp, 9, 0, SYM_PRIO_BASE, sym_lerp },
	{ OP_aten_addcmul, 0, 0, SYM_PRIO_BASE, sym_addcmul },
	{ OP_aten_logical_xor, 0, 0, SYM_PRIO_BASE, sym_logical_xor },
	{ OP_aten_isfinite, 0, 0, SYM_PRIO_BASE, sym_isfinite },
	{ OP_aten_isinf, 0, 0, SYM_PRIO_BASE, sym_isinf },
	{ OP_aten_isnan, 0, 0, SYM_PRIO_BASE, sym_isnan },
	{ OP_aten_is_floating_point, 0, 0, SYM_PRIO_BASE, sym_is_floating_point },
	{ OP_aten_nan_to_num, 0, 0, SYM_PRIO_BASE, sym_nan_to_num },
	{ OP_aten_all, 0, 0, SYM_PRIO_BASE, sym_all },
	{ OP_aten_any, 0, 0, SYM_PRIO_BASE, sym_any },
	{ OP_aten_aminmax, 0, 0, SYM_PRIO_BASE, sym_aminmax },
	{ OP_aten_logsumexp, 0, 0, SYM_PRIO_BASE, sym_logsumexp },
	{ OP_aten_std_mean, 0, 0, SYM_PRIO_BASE, sym_std_mean },
	{ OP_aten_var_mean, 0, 0, SYM_PRIO_BASE, sym_var_mean },
	{ OP_aten_frobenius_norm, 0, 0, SYM_PRIO_BASE, sym_frobenius_norm },
	{ OP_aten_linalg_norm, 0, 0, SYM_PRIO_BASE, sym_linalg_norm },
	{ OP_aten_linalg_matrix_norm, 0, 0, SYM_PRIO_BASE, sym_linalg_matrix_norm },
	{ OP_aten_linalg_det, 11, 0, SYM_PRIO_BASE, sym_linalg_det },
	{ OP_aten_det, 11, 0, SYM_PRIO_BASE, sym_linalg_det },
	{ OP_aten_slogdet, 11, 0, SYM_PRIO_BASE, sym_slogdet },
	{ OP_aten_linalg_slogdet, 11, 0, SYM_PRIO_BASE, sym_slogdet },
	{ OP_aten_logdet, 0, 0, SYM_PRIO_BASE, sym_slogdet },
	{ OP_aten_celu, 0, 0, SYM_PRIO_BASE, sym_celu },
	{ OP_aten_selu, 0, 0, SYM_PRIO_BASE, sym_selu },
	{ OP_aten_hardshrink, 9, 0, SYM_PRIO_BASE, sym_hardshrink },
	{ OP_aten_softshrink, 9, 0, SYM_PRIO_BASE, sym_softshrink },
	{ OP_aten_threshold, 9, 0, SYM_PRIO_BASE, sym_threshold },
	{ OP_aten_rrelu, 0, 0, SYM_PRIO_BASE, sym_rrelu },
	{ OP_aten_glu, 0, 0, SYM_PRIO_BASE, sym_glu },
	{ OP_aten_prelu, 0, 0, SYM_PRIO_BASE, sym_prelu },
	{ OP_aten_resolve_conj, 0, 0, SYM_PRIO_BASE, sym_passthrough },
	{ OP_aten_resolve_neg, 0, 0, SYM_PRIO_BASE, sym_passthrough },
	{ OP_aten_lift, 0, 0, SYM_PRIO_BASE, sym_passthrough },
	{ OP_aten_fill, 0, 0, SYM_PRIO_BASE, sym_fill },
	{ OP_aten_empty, 0, 0, SYM_PRIO_BASE, sym_empty },
	{ OP_aten_empty_strided, 0, 0, SYM_PRIO_BASE, sym_empty_strided },
	{ OP_aten_empty_like, 9, 0, SYM_PRIO_BASE, sym_empty_like },
	{ OP_aten_new_empty, 9, 0, SYM_PRIO_BASE, sym_new_zeros },
	{ OP_aten_new_full, 0, 0, SYM_PRIO_BASE, sym_new_full },
	{ OP_aten_new_ones, 9, 0, SYM_PRIO_BASE, sym_new_ones },
	{ OP_aten_new_zeros, 9, 0, SYM_PRIO_BASE, sym_new_zeros },
	{ OP_aten_scalar_tensor, 0, 0, SYM_PRIO_BASE, sym_scalar_tensor },
	{ OP_aten_eye, 0, 0, SYM_PRIO_BASE, sym_eye },
	{ OP_aten_linspace, 0, 0, SYM_PRIO_BASE, sym_linspace },
	{ OP_aten_logspace, 0, 0, SYM_PRIO_BASE, sym_linspace },
	{ OP_aten_hann_window, 0, 0, SYM_PRIO_BASE, sym_hann_window },
	{ OP_aten_rand, 0, 0, SYM_PRIO_BASE, sym_rand },
	{ OP_aten_rand_like, 0, 0, SYM_PRIO_BASE, sym_rand_like },
	{ OP_aten_randn, 0, 0, SYM_PRIO_BASE, sym_randn },
	{ OP_aten_randn_like, 0, 0, SYM_PRIO_BASE, sym_randn_like },
	{ OP_aten_normal, 0, 0, SYM_PRIO_BASE, sym_normal },
	{ OP_aten_uniform, 0, 0, SYM_PRIO_BASE, sym_uniform },
	{ OP_aten_bernoulli, 0, 0, SYM_PRIO_BASE, sym_bernoulli },
	{ OP_aten_multinomial, 0, 0, SYM_PRIO_BASE, sym_multinomial },
	{ OP_aten__standard_gamma, 0, 0, SYM_PRIO_BASE, sym_no_random_gamma },
	{ OP_aten__sample_dirichlet, 0, 0, SYM_PRIO_BASE, sym_no_random_gamma },
	{ OP_aten_fake_quantize_per_channel_affine, 0, 0, SYM_PRIO_BASE, sym_fake_quantize_per_channel_affine },
	{ OP_aten_fake_quantize_per_tensor_affine, 0, 0, SYM_PRIO_BASE, sym_fake_quantize_per_tensor_affine },
	{ OP_aten__dim_arange, 0, 0, SYM_PRIO_BASE, sym_dim_arange },
	{ OP_aten_dot, 0, 0, SYM_PRIO_BASE, sym_dot },
	{ OP_aten_mv, 0, 0, SYM_PRIO_BASE, sym_mv },
	{ OP_aten_outer, 0, 0, SYM_PRIO_BASE, sym_outer },
};

const struct symbolic_table symbolic_extra_math_table = {
	entries, sizeof(entries) / sizeof(entries[0]),
};

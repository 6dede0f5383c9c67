/*
 * symbolic_pointwise.c - more of issue 14's long tail, elementwise
 * operators of real tensors: signbit, isposinf, isneginf, isreal,
 * positive, heaviside, ldexp, isclose, gcd, lcm, frexp and nextafter.
 * Each is an exact ONNX decomposition of torch 1.13's definition
 * (ATen/native: UnaryOps.cpp, BinaryOps.cpp, TensorCompare.cpp's isclose,
 * Math.h's calc_gcd; C's frexp and nextafter, which torch's kernels call:
 * exact through powers of two, as ONNX has no bit casts) or declines with
 * the reason.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "symbolic_common.h"

#define T(i) lw_tensor(c, n, (i))
#define NARGS ((int)n->ninputs)

static struct ir_value *scal(struct lower_ctx *c, double v, enum ir_dtype dt)
{
	return b_const_scalar(c, v, dt, 0);
}

/* the input as a tensor of known dtype, complex ones declined */
static struct ir_value *real_in(struct lower_ctx *c, struct ir_node *n)
{
	struct ir_value *x = T(0);
	if (!x || b_dtype(x) == IR_DTYPE_UNDEFINED) {
		lw_decline(c, "the input is not a tensor of known dtype");
		return NULL;
	}
	return x;
}

/* false of x's shape (x == x of integers: true) */
static struct ir_value *all_false(struct lower_ctx *c, struct ir_value *x)
{
	return sym_fill_shape(c, b_op1(c, "Shape", x), 0, IR_DTYPE_BOOL);
}

/* signbit: x < 0, or 1 / x < 0 for -0 (a NaN's sign bit is not seen);
 * isposinf / isneginf: x == +-inf (integers: false); isreal of a real
 * tensor: true */
static SYM(sym_sign_tests)
{
	struct ir_value *x = real_in(c, n);
	if (!x)
		return 1;
	enum ir_dtype dt = b_dtype(x);
	if (n->op == OP_aten_isreal) {
		out[0] = sym_fill_shape(c, b_op1(c, "Shape", x), 1, IR_DTYPE_BOOL);
		return 0;
	}
	if (!b_is_float(dt) && (n->op != OP_aten_signbit ||
				dt == IR_DTYPE_BOOL || dt == IR_DTYPE_UINT8)) {
		out[0] = all_false(c, x);
		return 0;
	}
	if (n->op == OP_aten_signbit) {
		struct ir_value *neg = b_op2(c, "Less", x, scal(c, 0, dt));
		if (b_is_float(dt))
			neg = b_op2(c, "Or", neg, b_op2(c, "Less",
				b_op1(c, "Reciprocal", x), scal(c, 0, dt)));
		out[0] = neg;
		return 0;
	}
	out[0] = b_op2(c, "Equal", x, scal(c, n->op == OP_aten_isposinf ?
					      INFINITY : -INFINITY, dt));
	return 0;
}

/* positive: the input (real and angle: symbolic_fft.c) */
static SYM(sym_itself)
{
	struct ir_value *x = real_in(c, n);
	if (!x)
		return 1;
	if (b_dtype(x) == IR_DTYPE_BOOL)
		return lw_decline(c, "positive of a bool tensor (torch refuses it)");
	out[0] = b_op1(c, "Identity", x);
	return 0;
}

/* heaviside(self, values): values where self is 0, else self > 0 */
static SYM(sym_heaviside)
{
	enum ir_dtype dt = sym_result_type(c, n, 0, 1);
	struct ir_value *x = sym_operand(c, n, 0, dt), *v = sym_operand(c, n, 1, dt);
	if (!x || !v || dt == IR_DTYPE_UNDEFINED)
		return lw_decline(c, "operands are not tensors of known dtype");
	if (dt == IR_DTYPE_BOOL)
		return lw_decline(c, "heaviside of bools");
	out[0] = b_op3(c, "Where", b_op2(c, "Equal", x, scal(c, 0, dt)), v,
		       b_cast(c, b_op2(c, "Greater", x, scal(c, 0, dt)), dt));
	return 0;
}

/* ldexp(self, other): self * 2 ** other, in the promoted float dtype
 * (Float for integers) */
static SYM(sym_ldexp)
{
	enum ir_dtype dt = sym_result_type(c, n, 0, 1);
	if (dt == IR_DTYPE_UNDEFINED)
		return lw_decline(c, "operands of unknown dtype");
	if (!b_is_float(dt))
		dt = IR_DTYPE_FLOAT;
	struct ir_value *x = sym_operand(c, n, 0, dt), *e = sym_operand(c, n, 1, dt);
	if (!x || !e)
		return lw_decline(c, "operands are not tensors");
	out[0] = b_op2(c, "Mul", x, b_op2(c, "Pow", scal(c, 2, dt), e));
	return 0;
}

/* isclose(self, other, rtol, atol, equal_nan) as torch's: self == other,
 * or both NaN (equal_nan), or a finite |self - other| <= atol + |rtol *
 * other| (in Float for integers and bools) */
static SYM(sym_isclose)
{
	enum ir_dtype dt = sym_result_type(c, n, 0, 1);
	struct ir_value *a = sym_operand(c, n, 0, dt), *b = sym_operand(c, n, 1, dt);
	double rtol = 1e-5, atol = 1e-8;
	int64_t eqnan = 0;
	if (!a || !b || dt == IR_DTYPE_UNDEFINED)
		return lw_decline(c, "operands are not tensors of known dtype");
	if ((NARGS > 2 && !lw_float(c, n, 2, &rtol)) ||
	    (NARGS > 3 && !lw_float(c, n, 3, &atol)) ||
	    (NARGS > 4 && !lw_int(c, n, 4, &eqnan)))
		return lw_decline(c, "rtol, atol or equal_nan not constant");
	if (dt == IR_DTYPE_BOOL) {
		a = b_cast(c, a, IR_DTYPE_INT32);
		b = b_cast(c, b, IR_DTYPE_INT32);
	}
	struct ir_value *cl = b_op2(c, "Equal", a, b);
	if (eqnan && b_is_float(dt))
		cl = b_op2(c, "Or", cl, b_op2(c, "And", b_op1(c, "IsNaN", a),
					      b_op1(c, "IsNaN", b)));
	if (rtol != 0 || atol != 0) {
		enum ir_dtype fd = b_is_float(dt) ? dt : IR_DTYPE_FLOAT;
		struct ir_value *af = b_cast(c, a, fd), *bf = b_cast(c, b, fd);
		struct ir_value *allowed = b_op2(c, "Add", scal(c, atol, fd),
			b_op1(c, "Abs", b_op2(c, "Mul", scal(c, rtol, fd), bf)));
		struct ir_value *actual = b_op1(c, "Abs", b_op2(c, "Sub", af, bf));
		/* finite: not NaN, not inf */
		struct ir_value *fin = b_op1(c, "Not", b_op2(c, "Or",
			b_op1(c, "IsNaN", actual), b_op2(c, "Equal", actual,
							 scal(c, INFINITY, fd))));
		struct ir_value *le = b_op1(c, "Not", b_op2(c, "Greater", actual,
							    allowed));
		cl = b_op2(c, "Or", cl, b_op2(c, "And", fin, le));
	}
	out[0] = cl;
	return 0;
}

/* gcd / lcm of integers: Euclid on |a|, |b| in an ONNX Loop of as many
 * steps as the dtype can need (Lame: under 1.5 per bit), each step (a, b)
 * -> (b mod a, a) where a != 0; the gcd is b.  lcm = |a / g * b|, 0
 * where g is 0 (torch's calc_gcd and lcm). */
static SYM(sym_gcd)
{
	enum ir_dtype dt = sym_result_type(c, n, 0, 1);
	int bits;
	switch (dt) {
	case IR_DTYPE_INT64: bits = 64; break;
	case IR_DTYPE_INT32: bits = 32; break;
	case IR_DTYPE_INT16: bits = 16; break;
	case IR_DTYPE_INT8: case IR_DTYPE_UINT8: bits = 8; break;
	default: return lw_decline(c, "gcd and lcm take integer tensors");
	}
	if (c->opset < 10)
		return lw_decline(c, "integer Mod needs opset 10");
	struct ir_value *a0 = sym_operand(c, n, 0, dt), *b0 = sym_operand(c, n, 1, dt);
	if (!a0 || !b0)
		return lw_decline(c, "operands are not tensors");
	struct ir_value *a = b_op1(c, "Abs", a0), *b = b_op1(c, "Abs", b0);
	/* both of the broadcast shape, as the loop carries them */
	struct ir_value *zero = scal(c, 0, dt);
	a = b_op2(c, "Add", a, b_op2(c, "Mul", b, zero));
	b = b_op2(c, "Add", b, b_op2(c, "Mul", a, zero));
	struct ir_block *body = ir_block_new(c->g);
	struct ir_value *it = ir_value_new(c->g, NULL,
		ir_type_tensor(c->g, IR_DTYPE_INT64, 0, NULL));
	struct ir_value *cin = ir_value_new(c->g, NULL,
		ir_type_tensor(c->g, IR_DTYPE_BOOL, 0, NULL));
	struct ir_value *pa = ir_value_new(c->g, NULL, a->type);
	struct ir_value *pb = ir_value_new(c->g, NULL, b->type);
	ir_block_add_param(c->g, body, it);
	ir_block_add_param(c->g, body, cin);
	ir_block_add_param(c->g, body, pa);
	ir_block_add_param(c->g, body, pb);
	struct ir_node *loop = b_node(c, "Loop", 4, (struct ir_value *[]){
		b_const_i64(c, bits + bits / 2 + 2), b_const_bool(c, 1), a, b }, 2);
	/* the body's nodes, built into it */
	struct ir_block *sblk = c->blk;
	struct ir_node *spos = c->pos;
	c->blk = body;
	c->pos = NULL;
	struct ir_value *z = scal(c, 0, dt);
	struct ir_value *nz = b_op1(c, "Not", b_op2(c, "Equal", pa, z));
	struct ir_value *safe = b_op3(c, "Where", nz, pa, scal(c, 1, dt));
	struct ir_value *na = b_op3(c, "Where", nz, b_op2(c, "Mod", pb, safe), pa);
	struct ir_value *nb = b_op3(c, "Where", nz, pa, pb);
	ir_block_add_return(c->g, body, b_op1(c, "Identity", cin));
	ir_block_add_return(c->g, body, na);
	ir_block_add_return(c->g, body, nb);
	c->blk = sblk;
	c->pos = spos;
	ir_node_add_attr(c->g, loop, "body", IR_ATTR_GRAPH)->u.g = body;
	body->owner = loop;
	loop->outputs[0]->type = a->type;
	loop->outputs[1]->type = b->type;
	struct ir_value *g = loop->outputs[1];
	if (n->op == OP_aten_gcd) {
		out[0] = g;
		return 0;
	}
	struct ir_value *g0 = b_op2(c, "Equal", g, zero);
	struct ir_value *sg = b_op3(c, "Where", g0, scal(c, 1, dt), g);
	out[0] = b_op3(c, "Where", g0, zero, b_op1(c, "Abs", b_op2(c, "Mul",
				b_op2(c, "Div", a0, sg), b0)));
	return 0;
}

/* ax (> 0, finite) as m * 2^e with m in [0.5, 1), exactly: e from
 * floor(log2 ax) + 1, corrected by one either way where Log rounds
 * across a power of two; ax scaled by 2^-e in two powers of two of
 * half the exponent each (one would overflow for denormals) */
static void frexp_parts(struct lower_ctx *c, struct ir_value *ax,
			struct ir_value **m, struct ir_value **e)
{
	enum ir_dtype dt = b_dtype(ax);
	struct ir_value *k, *k1, *v, *big, *small;

	*e = b_op2(c, "Add", b_op1(c, "Floor", b_op2(c, "Mul", b_op1(c, "Log", ax),
						      scal(c, 1 / M_LN2, dt))),
		   scal(c, 1, dt));
	k = b_op1(c, "Neg", *e);
	k1 = b_op1(c, "Floor", b_op2(c, "Mul", k, scal(c, 0.5, dt)));
	v = b_op2(c, "Mul", b_op2(c, "Mul", ax, b_op2(c, "Pow", scal(c, 2, dt), k1)),
		  b_op2(c, "Pow", scal(c, 2, dt), b_op2(c, "Sub", k, k1)));
	big = b_op1(c, "Not", b_op2(c, "Less", v, scal(c, 1, dt)));
	small = b_op2(c, "Less", v, scal(c, 0.5, dt));
	*m = b_op3(c, "Where", big, b_op2(c, "Mul", v, scal(c, 0.5, dt)),
		   b_op3(c, "Where", small, b_op2(c, "Add", v, v), v));
	*e = b_op3(c, "Where", big, b_op2(c, "Add", *e, scal(c, 1, dt)),
		   b_op3(c, "Where", small, b_op2(c, "Sub", *e, scal(c, 1, dt)), *e));
}

/* |x| where x is nonzero and finite, else 1 (frexp_parts' input); *sp
 * the others (0, infinities, NaN) */
static struct ir_value *finite_abs(struct lower_ctx *c, struct ir_value *x,
				   struct ir_value **sp)
{
	enum ir_dtype dt = b_dtype(x);
	struct ir_value *ax = b_op1(c, "Abs", x);

	*sp = b_op2(c, "Or", b_op1(c, "Not", b_op2(c, "Greater", ax, scal(c, 0, dt))),
		    b_op1(c, "IsInf", x));
	return b_op3(c, "Where", *sp, scal(c, 1, dt), ax);
}

/* frexp(x): the mantissa in [0.5, 1) with x's sign and the int32
 * exponent, x = m * 2^e exactly; 0, infinities and NaN: x itself and 0,
 * as C's frexp (torch's kernel) */
static SYM(sym_frexp)
{
	struct ir_value *x = real_in(c, n), *sp, *ax, *m, *e;
	if (!x)
		return 1;
	enum ir_dtype dt = b_dtype(x);
	if (!b_is_float(dt) || dt == IR_DTYPE_FLOAT16 || dt == IR_DTYPE_BFLOAT16)
		return lw_decline(c, "frexp of a tensor that is not float or double "
				     "(torch takes only floating-point ones)");
	ax = finite_abs(c, x, &sp);
	frexp_parts(c, ax, &m, &e);
	m = b_op3(c, "Where", b_op2(c, "Less", x, scal(c, 0, dt)), b_op1(c, "Neg", m), m);
	/* (ONNX Runtime's Where makes a -0 from its second input +0: x,
	 * which may be -0, comes through the third) */
	out[0] = b_op3(c, "Where", b_op1(c, "Not", sp), m, x);
	out[1] = b_cast(c, b_op3(c, "Where", sp, scal(c, 0, dt), e), IR_DTYPE_INT32);
	return 0;
}

/* nextafter(x, y): the next float or double after x toward y, exactly
 * as C's nextafter: |x| = m 2^(E + 1) (frexp_parts), its spacing
 * 2^(max(E, Emin) - p + 1) (p the precision: 24 or 53), half that
 * toward 0 from a power of two above the denormals; x == y: y; x 0:
 * the smallest denormal with y's sign; x infinite: the largest finite;
 * NaN either side: NaN */
static SYM(sym_nextafter)
{
	struct ir_value *x, *y, *sp, *ax, *m, *e, *ulp, *away, *half, *step, *r,
		*z, *eq, *neg;
	if (sym_float_pair(c, n, &x, &y))
		return 1;
	enum ir_dtype dt = b_dtype(x);
	if (dt != IR_DTYPE_FLOAT && dt != IR_DTYPE_DOUBLE)
		return lw_decline(c, "nextafter of a dtype other than float and double");
	int dbl = dt == IR_DTYPE_DOUBLE;
	double p = dbl ? 53 : 24, emin = dbl ? -1022 : -126;
	double big = dbl ? DBL_MAX : FLT_MAX, tiny = dbl ? 0x1p-1074 : 0x1p-149;

	ax = finite_abs(c, x, &sp);
	z = b_op2(c, "Equal", x, scal(c, 0, dt));
	eq = b_op2(c, "Equal", x, y);
	frexp_parts(c, ax, &m, &e);
	e = b_op2(c, "Sub", e, scal(c, 1, dt));
	ulp = b_op2(c, "Pow", scal(c, 2, dt),
		    b_op2(c, "Add", b_op2(c, "Max", e, scal(c, emin, dt)),
			  scal(c, 1 - p, dt)));
	away = b_op1(c, "Not", b_op2(c, "Xor", b_op2(c, "Greater", y, x),
				     b_op2(c, "Greater", x, scal(c, 0, dt))));
	half = b_op2(c, "And", b_op2(c, "Equal", m, scal(c, 0.5, dt)),
		     b_op2(c, "Greater", e, scal(c, emin, dt)));
	step = b_op3(c, "Where", b_op2(c, "And", b_op1(c, "Not", away), half),
		     b_op2(c, "Mul", ulp, scal(c, 0.5, dt)), ulp);
	r = b_op3(c, "Where", away, b_op2(c, "Add", ax, step), b_op2(c, "Sub", ax, step));
	r = b_op3(c, "Where", z, scal(c, tiny, dt), r);
	r = b_op3(c, "Where", b_op1(c, "IsInf", x), scal(c, big, dt), r);
	r = b_op3(c, "Where", eq, b_op1(c, "Abs", y), r);
	r = b_op3(c, "Where", b_op2(c, "Or", b_op1(c, "IsNaN", x), b_op1(c, "IsNaN", y)),
		  scal(c, NAN, dt), r);
	/* the sign: y's where x == y (-0 included), else y's from 0, else
	 * x's; applied last, the -0s through Where's third input (ONNX
	 * Runtime's Where makes a -0 from its second input +0) */
	neg = b_op2(c, "Or", b_op2(c, "Less", y, scal(c, 0, dt)),
		    b_op2(c, "Less", b_op1(c, "Reciprocal", y), scal(c, 0, dt)));
	neg = b_op2(c, "Or", b_op2(c, "And", eq, neg),
		    b_op2(c, "And", b_op1(c, "Not", eq),
			  b_op2(c, "Or", b_op2(c, "And", z, b_op2(c, "Less", y, scal(c, 0, dt))),
				b_op2(c, "And", b_op1(c, "Not", z),
				      b_op2(c, "Less", x, scal(c, 0, dt))))));
	out[0] = b_op3(c, "Where", b_op1(c, "Not", neg), r, b_op1(c, "Neg", r));
	return 0;
}

static const struct symbolic entries[] = {
	{ OP_aten_signbit, 9, 0, SYM_PRIO_BASE, sym_sign_tests },
	{ OP_aten_isposinf, 11, 0, SYM_PRIO_BASE, sym_sign_tests },
	{ OP_aten_isneginf, 11, 0, SYM_PRIO_BASE, sym_sign_tests },
	{ OP_aten_isreal, 9, 0, SYM_PRIO_BASE, sym_sign_tests },
	{ OP_aten_positive, 0, 0, SYM_PRIO_BASE, sym_itself },
	{ OP_aten_heaviside, 11, 0, SYM_PRIO_BASE, sym_heaviside },
	{ OP_aten_ldexp, 0, 0, SYM_PRIO_BASE, sym_ldexp },
	{ OP_aten_isclose, 11, 0, SYM_PRIO_BASE, sym_isclose },
	{ OP_aten_gcd, 10, 0, SYM_PRIO_BASE, sym_gcd },
	{ OP_aten_lcm, 10, 0, SYM_PRIO_BASE, sym_gcd },
	{ OP_aten_frexp, 10, 0, SYM_PRIO_BASE, sym_frexp },
	{ OP_aten_nextafter, 11, 0, SYM_PRIO_BASE, sym_nextafter },
};

const struct symbolic_table symbolic_pointwise_table = {
	entries, sizeof(entries) / sizeof(entries[0])
};

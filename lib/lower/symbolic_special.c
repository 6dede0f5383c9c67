/*
 * symbolic_special.c - symbolics for torch's special functions (issue
 * 14's long tail): the orthogonal polynomials
 * special_{,shifted_}chebyshev_polynomial_{t,u,v,w},
 * special_hermite_polynomial_{h,he}, special_laguerre_polynomial_l and
 * special_legendre_polynomial_p, and special_xlog1py.
 *
 * The polynomials are computed as torch 1.13's Math.h computes them, not
 * by a closed form: n (a tensor, broadcast with x) is truncated to an
 * integer as static_cast<int64_t> does (NaN and out of range: below 0),
 * torch's special cases become Where masks (n < 0, |x| == 1, the
 * cos(n acos x) form Chebyshev takes for n > 6 or 8 inside (-1, 1), n ==
 * 0), and the three-term recurrence runs in an ONNX Loop of max(n) - 1
 * steps over the elements that need it, each element's state moving only
 * while its step is below its n.  Every step is torch's arithmetic in
 * torch's order and dtype, so the results are torch's up to ONNX
 * Runtime's cos/acos/sin and fused multiply-adds.  Float64 is the
 * exception: ONNX Runtime has no double Acos, so a double polynomial runs
 * the recurrence also where torch takes the cos form (the same
 * polynomial, computed otherwise: tests/423 measures the difference).
 * Equal of floats needs opset 11, the polynomials' rows serve 11 and up;
 * xlog1py's 9 and up.  igamma and igammac (and special_gammainc(c)):
 * sf_igamma's series and continued fraction in a Loop that ends once
 * every element converged, from opset 11.
 */
#include <float.h>
#include <math.h>

#include "special_math.h"
#include "symbolic_common.h"

static struct ir_value *scal(struct lower_ctx *c, double v, enum ir_dtype dt)
{
	return b_const_scalar(c, v, dt, 0);
}

/* What a polynomial's symbolic works on: x and the truncated degree nt,
 * both broadcast to their common shape, in dtype dt. */
struct poly {
	enum aten_op op;
	enum ir_dtype dt;
	struct ir_value *x, *nt;
	struct ir_value *y; /* Chebyshev's argument: x, or 2x - 1 shifted */
	int kind;           /* Chebyshev T U V W: 0..3; -1 the others */
	int shifted;
};

#define S(v) scal(c, (v), pl->dt)

/* r of the recurrence's step j (1-based, 0-d in dt) from p and q */
static struct ir_value *poly_step(struct lower_ctx *c, const struct poly *pl,
				  struct ir_value *j, struct ir_value *p,
				  struct ir_value *q)
{
	struct ir_value *x = pl->x, *k = j, *r;

	if (pl->kind >= 0)
		return b_op2(c, "Sub", b_op2(c, "Mul", b_op2(c, "Add", pl->y,
							      pl->y), q), p);
	switch (pl->op) {
	case OP_aten_special_hermite_polynomial_h:
		k = b_op2(c, "Add", j, j);
		return b_op2(c, "Sub", b_op2(c, "Mul", b_op2(c, "Add", x, x), q),
			     b_op2(c, "Mul", k, p));
	case OP_aten_special_hermite_polynomial_he:
		return b_op2(c, "Sub", b_op2(c, "Mul", x, q),
			     b_op2(c, "Mul", k, p));
	case OP_aten_special_laguerre_polynomial_l:
		r = b_op2(c, "Add", b_op2(c, "Add", k, k),
			  b_op2(c, "Sub", S(1), x));
		break;
	default: /* legendre: (2k + 1) x */
		r = b_op2(c, "Mul", b_op2(c, "Add", b_op2(c, "Add", k, k), S(1)),
			  x);
		break;
	}
	r = b_op2(c, "Sub", b_op2(c, "Mul", r, q), b_op2(c, "Mul", k, p));
	return b_op2(c, "Div", r, b_op2(c, "Add", k, S(1)));
}

/* a 1-d Concat of a and b */
static struct ir_value *concat1(struct lower_ctx *c, struct ir_value *a,
				struct ir_value *b)
{
	struct ir_value *in[2] = { a, b };
	return b_concat(c, 2, in, 0);
}

/* the largest of v where need holds and dflt (0-d, v's dtype; dflt for
 * an empty v) */
static struct ir_value *max_where(struct lower_ctx *c, struct ir_value *v,
				  struct ir_value *need, double dflt)
{
	static const int64_t flat = -1;
	enum ir_dtype dt = b_dtype(v);
	struct ir_value *m = b_op3(c, "Where", need, v, scal(c, dflt, dt));
	m = concat1(c, b_op2(c, "Reshape", m, b_const_i64s(c, &flat, 1, 1)),
		    b_const_scalar(c, dflt, dt, 1));
	return b_reduce(c, "ReduceMax", m, NULL, 0, 0);
}

/* the recurrence's step it + 1: an element's (p, q) moves while the step
 * is below its n */
static void poly_body(struct lower_ctx *c, const void *ctx,
		      struct ir_value *it, struct ir_value **v,
		      struct ir_value **nv)
{
	const struct poly *pl = ctx;
	struct ir_value *j = b_cast(c, b_op2(c, "Add", it, b_const_i64(c, 1)), pl->dt);
	struct ir_value *r = poly_step(c, pl, j, v[0], v[1]);
	struct ir_value *act = b_op2(c, "Less", j, pl->nt);

	nv[0] = b_op3(c, "Where", act, v[1], v[0]);
	nv[1] = b_op3(c, "Where", act, r, v[1]);
}

/* q after the recurrence from (p0, q0): an ONNX Loop of max(nt) - 1
 * steps, the maximum over the elements where need holds */
static struct ir_value *poly_loop(struct lower_ctx *c, const struct poly *pl,
				  struct ir_value *p0, struct ir_value *q0,
				  struct ir_value *need)
{
	struct ir_value *init[2] = { p0, q0 }, *fin[2];
	struct ir_value *trip = b_cast(c, b_op2(c, "Sub", max_where(c, pl->nt, need, 1),
						S(1)), IR_DTYPE_INT64);

	b_loop(c, trip, 2, init, poly_body, pl, fin);
	return fin[1];
}

/* ones of x's shape: the recurrence's p0 */
static struct ir_value *poly_ones(struct lower_ctx *c, const struct poly *pl)
{
	return sym_fill_shape(c, b_op1(c, "Shape", pl->x), 1, pl->dt);
}

/* torch's Chebyshev polynomials (Math.h's chebyshev_polynomial_*_forward
 * and shifted_*): the value at |y| == 1 (x == 1 or 0 shifted), the
 * cos/sin form inside (-1, 1) above a degree, the recurrence elsewhere */
static struct ir_value *chebyshev(struct lower_ctx *c, struct poly *pl)
{
	struct ir_value *x = pl->x, *y, *nt = pl->nt;
	int kind = pl->kind, thr;
	struct ir_value *pos, *neg, *edge, *ev, *cm, *cv, *a, *h, *n1, *n2,
		*sg, *q0, *yy, *v, *need;

	if (pl->shifted)
		y = b_op2(c, "Sub", b_op2(c, "Add", x, x), S(1));
	else
		y = x;
	pl->y = y;
	thr = pl->shifted ? (kind == 3 ? 4 : 6) : (kind == 0 ? 6 : 8);
	pos = b_op2(c, "Equal", x, S(1));
	neg = b_op2(c, "Equal", x, S(pl->shifted ? 0 : -1));
	edge = b_op2(c, "Or", pos, neg);
	/* (-1)^n, n + 1, 2n + 1 */
	sg = b_op2(c, "Sub", nt, b_op2(c, "Mul", S(2),
		   b_op1(c, "Floor", b_op2(c, "Div", nt, S(2)))));
	sg = b_op3(c, "Where", b_op2(c, "Equal", sg, S(0)), S(1), S(-1));
	n1 = b_op2(c, "Add", nt, S(1));
	n2 = b_op2(c, "Add", b_op2(c, "Add", nt, nt), S(1));
	switch (kind) {
	case 0: ev = b_op3(c, "Where", pos, S(1), sg); break;
	case 1: ev = b_op3(c, "Where", pos, n1, b_op2(c, "Mul", sg, n1)); break;
	case 2: ev = b_op3(c, "Where", pos, S(1), b_op2(c, "Mul", sg, n2)); break;
	default: ev = b_op3(c, "Where", pos, n2, sg); break;
	}
	yy = b_op2(c, "Add", y, y);
	q0 = kind == 0 ? y : kind == 1 ? yy
		: b_op2(c, "Add", yy, S(kind == 2 ? -1 : 1));
	if (pl->dt == IR_DTYPE_DOUBLE) {
		/* no double Acos in ONNX Runtime: the recurrence throughout */
		v = poly_loop(c, pl, poly_ones(c, pl), q0, b_op1(c, "Not", edge));
		v = b_op3(c, "Where", b_op2(c, "Equal", nt, S(0)), S(1), v);
		return b_op3(c, "Where", edge, ev, v);
	}
	cm = b_op2(c, "And", b_op2(c, "Greater", nt, S(thr)),
		   b_op2(c, "Less", b_op1(c, "Abs", y), S(1)));
	a = b_op1(c, "Acos", y);
	h = b_op2(c, "Div", a, S(2));
	switch (kind) {
	case 0:
		cv = b_op1(c, "Cos", b_op2(c, "Mul", nt, a));
		break;
	case 1: {
		struct ir_value *s = b_op1(c, "Sin", a);
		struct ir_value *na = b_op2(c, "Mul", n1, a);
		cv = b_op3(c, "Where", b_op2(c, "Equal", s, S(0)),
			   b_op2(c, "Div", b_op2(c, "Mul", n1, b_op1(c, "Cos", na)), y),
			   b_op2(c, "Div", b_op1(c, "Sin", na), s));
		break;
	}
	case 2: {
		struct ir_value *na = b_op2(c, "Mul", b_op2(c, "Add", nt, S(0.5)), a);
		cv = b_op3(c, "Where", b_op2(c, "Equal", b_op1(c, "Sin", h), S(1)),
			   b_op2(c, "Mul", sg, n2),
			   b_op2(c, "Div", b_op1(c, "Cos", na), b_op1(c, "Cos", h)));
		break;
	}
	default: {
		struct ir_value *na = b_op2(c, "Mul", b_op2(c, "Add", nt, S(0.5)), a);
		struct ir_value *one = pl->shifted ? sg :
			b_op3(c, "Where", b_op2(c, "Greater", x, S(0)), n2, sg);
		cv = b_op3(c, "Where", b_op2(c, "Equal", b_op1(c, "Cos", h), S(1)),
			   one,
			   b_op2(c, "Div", b_op1(c, "Sin", na), b_op1(c, "Sin", h)));
		break;
	}
	}
	need = b_op1(c, "Not", b_op2(c, "Or", edge, cm));
	v = poly_loop(c, pl, poly_ones(c, pl), q0, need);
	v = b_op3(c, "Where", b_op2(c, "Equal", nt, S(0)), S(1), v);
	v = b_op3(c, "Where", cm, cv, v);
	return b_op3(c, "Where", edge, ev, v);
}

/* hermite h and he, laguerre, legendre (Math.h's *_polynomial_*_forward):
 * laguerre is 1 at x == 0, legendre +-1 at |x| == 1 */
static struct ir_value *classical(struct lower_ctx *c, struct poly *pl)
{
	struct ir_value *x = pl->x, *nt = pl->nt, *edge = NULL, *ev = NULL,
		*q0, *v, *need;

	switch (pl->op) {
	case OP_aten_special_hermite_polynomial_h:
		q0 = b_op2(c, "Add", x, x);
		break;
	case OP_aten_special_laguerre_polynomial_l:
		q0 = b_op2(c, "Sub", S(1), x);
		edge = b_op2(c, "Equal", x, S(0));
		ev = S(1);
		break;
	case OP_aten_special_legendre_polynomial_p: {
		struct ir_value *odd = b_op2(c, "Sub", nt, b_op2(c, "Mul", S(2),
				b_op1(c, "Floor", b_op2(c, "Div", nt, S(2)))));
		q0 = x;
		edge = b_op2(c, "Equal", b_op1(c, "Abs", x), S(1));
		ev = b_op3(c, "Where", b_op2(c, "Or", b_op2(c, "Greater", x, S(0)),
					      b_op2(c, "Equal", odd, S(0))),
			   S(1), S(-1));
		break;
	}
	default: /* hermite he */
		q0 = x;
		break;
	}
	need = edge ? b_op1(c, "Not", edge) : b_const_bool(c, 1);
	v = poly_loop(c, pl, poly_ones(c, pl), q0, need);
	v = b_op3(c, "Where", b_op2(c, "Equal", nt, S(0)), S(1), v);
	if (edge)
		v = b_op3(c, "Where", edge, ev, v);
	return v;
}

/* special_*_polynomial_*(x, n): x and n tensors or numbers (not both
 * numbers), in their float result dtype */
static SYM(sym_polynomial)
{
	struct poly pl0 = { .op = n->op, .kind = -1 }, *pl = &pl0;
	struct ir_value *x, *nv, *shape, *tr, *ok, *v;

	if (sym_float_pair(c, n, &x, &nv))
		return 1;
	pl->dt = b_dtype(x);
	switch (n->op) {
	case OP_aten_special_shifted_chebyshev_polynomial_t: pl->shifted = 1; /* fall through */
	case OP_aten_special_chebyshev_polynomial_t: pl->kind = 0; break;
	case OP_aten_special_shifted_chebyshev_polynomial_u: pl->shifted = 1; /* fall through */
	case OP_aten_special_chebyshev_polynomial_u: pl->kind = 1; break;
	case OP_aten_special_shifted_chebyshev_polynomial_v: pl->shifted = 1; /* fall through */
	case OP_aten_special_chebyshev_polynomial_v: pl->kind = 2; break;
	case OP_aten_special_shifted_chebyshev_polynomial_w: pl->shifted = 1; /* fall through */
	case OP_aten_special_chebyshev_polynomial_w: pl->kind = 3; break;
	default: break;
	}
	/* both broadcast to one shape: the loop's state has it */
	shape = b_op1(c, "Shape", b_op2(c, "Add", x, nv));
	x = b_op2(c, "Expand", x, shape);
	nv = b_op2(c, "Expand", nv, shape);
	/* static_cast<int64_t>(n): truncated; NaN and |n| >= 2^63 are
	 * INT64_MIN on x86, below 0 like -1 */
	tr = b_op3(c, "Where", b_op2(c, "Less", nv, S(0)), b_op1(c, "Ceil", nv),
		   b_op1(c, "Floor", nv));
	ok = b_op2(c, "Less", b_op1(c, "Abs", nv), S(9.2e18));
	pl->x = x;
	pl->nt = b_op3(c, "Where", ok, tr, S(-1));
	v = pl->kind >= 0 ? chebyshev(c, pl) : classical(c, pl);
	out[0] = b_op3(c, "Where", b_op2(c, "Less", pl->nt, S(0)), S(0), v);
	return 0;
}

/* zeta's first sum, one term a step: an element adds (a + 1)^-x while
 * it has fewer than 9 terms or a <= 9, and stops for good once a term
 * is below SF_MACHEP of its sum (done) */
static void zeta_body(struct lower_ctx *c, const void *ctx,
		      struct ir_value *it, struct ir_value **v,
		      struct ir_value **nv)
{
	struct ir_value *x = (struct ir_value *)ctx;
	enum ir_dtype dt = IR_DTYPE_DOUBLE;
	struct ir_value *act, *a1, *b1, *s1, *stop;

	act = b_op2(c, "Or", b_op2(c, "Less", b_cast(c, it, dt), scal(c, 9, dt)),
		    b_op2(c, "Or", b_op2(c, "Less", v[0], scal(c, 9, dt)),
			  b_op2(c, "Equal", v[0], scal(c, 9, dt))));
	act = b_op2(c, "And", b_op1(c, "Not", v[3]), act);
	a1 = b_op2(c, "Add", v[0], scal(c, 1, dt));
	b1 = b_op2(c, "Pow", a1, b_op1(c, "Neg", x));
	s1 = b_op2(c, "Add", v[2], b1);
	stop = b_op2(c, "And", b_op2(c, "Less", b_op2(c, "Mul", scal(c, -SF_MACHEP, dt), s1), b1),
		     b_op2(c, "Less", b1, b_op2(c, "Mul", scal(c, SF_MACHEP, dt), s1)));
	nv[0] = b_op3(c, "Where", act, a1, v[0]);
	nv[1] = b_op3(c, "Where", act, b1, v[1]);
	nv[2] = b_op3(c, "Where", act, s1, v[2]);
	nv[3] = b_op2(c, "Or", v[3], b_op2(c, "And", act, stop));
}

/* special_zeta(x, q), the Hurwitz zeta function, as torch's zeta
 * (Cephes; in double, as torch computes float too): the sum to q + i > 9
 * in an ONNX Loop (its trip count the largest such i), then the
 * Euler-Maclaurin tail's 12 terms, each element stopping where torch
 * returns; x == 1: inf, x < 1: NaN, q a nonpositive integer: inf, q <= 0
 * and x no integer: NaN */
static struct ir_value *zeta_of(struct lower_ctx *c, struct ir_value *x,
				struct ir_value *q)
{
	enum ir_dtype dt = IR_DTYPE_DOUBLE, odt = b_dtype(x);
	struct ir_value *shape, *qle0, *qint, *xint, *sp, *need, *nq, *trip,
		*init[4], *fin[4], *a, *b, *s, *done, *w, *aa;

	x = b_cast(c, x, dt);
	q = b_cast(c, q, dt);
	shape = b_op1(c, "Shape", b_op2(c, "Add", x, q));
	x = b_op2(c, "Expand", x, shape);
	q = b_op2(c, "Expand", q, shape);
	qle0 = b_op2(c, "Or", b_op2(c, "Less", q, scal(c, 0, dt)),
		     b_op2(c, "Equal", q, scal(c, 0, dt)));
	qint = b_op2(c, "Equal", q, b_op1(c, "Floor", q));
	xint = b_op2(c, "Equal", x, b_op1(c, "Floor", x));
	sp = b_op2(c, "Or", b_op2(c, "Less", x, scal(c, 1, dt)),
		   b_op2(c, "Equal", x, scal(c, 1, dt)));
	sp = b_op2(c, "Or", sp, b_op2(c, "And", qle0,
				     b_op2(c, "Or", qint, b_op1(c, "Not", xint))));
	need = b_op2(c, "And", b_op1(c, "Not", sp), b_op1(c, "Not", b_op1(c, "IsNaN", q)));
	nq = b_op2(c, "Add", b_op1(c, "Floor", b_op2(c, "Sub", scal(c, 9, dt), q)),
		   scal(c, 1, dt));
	trip = b_op2(c, "Min", max_where(c, nq, need, 9), scal(c, 4611686018427387904.0, dt));
	trip = b_cast(c, trip, IR_DTYPE_INT64);
	init[0] = q;
	init[1] = sym_fill_shape(c, shape, 0, dt);
	init[2] = b_op2(c, "Pow", q, b_op1(c, "Neg", x));
	init[3] = b_cast(c, init[1], IR_DTYPE_BOOL);
	b_loop(c, trip, 4, init, zeta_body, x, fin);
	a = fin[0];
	b = fin[1];
	s = fin[2];
	done = fin[3];
	w = a;
	s = b_op3(c, "Where", done, s, b_op2(c, "Sub",
			b_op2(c, "Add", s, b_op2(c, "Div", b_op2(c, "Mul", b, w),
						 b_op2(c, "Sub", x, scal(c, 1, dt)))),
			b_op2(c, "Mul", scal(c, 0.5, dt), b)));
	aa = scal(c, 1, dt);
	for (int i = 0; i < SF_ZETA_N; i++) {
		struct ir_value *t, *sn;
		aa = b_op2(c, "Mul", aa, b_op2(c, "Add", x, scal(c, 2 * i, dt)));
		b = b_op2(c, "Div", b, w);
		t = b_op2(c, "Div", b_op2(c, "Mul", aa, b), scal(c, sf_zeta_a[i], dt));
		sn = b_op2(c, "Add", s, t);
		s = b_op3(c, "Where", done, s, sn);
		done = b_op2(c, "Or", done, b_op2(c, "Less", b_op1(c, "Abs", b_op2(c, "Div", t, sn)),
						 scal(c, SF_MACHEP, dt)));
		aa = b_op2(c, "Mul", aa, b_op2(c, "Add", x, scal(c, 2 * i + 1, dt)));
		b = b_op2(c, "Div", b, w);
	}
	s = b_op3(c, "Where", b_op2(c, "And", qle0, b_op1(c, "Not", xint)), scal(c, NAN, dt), s);
	s = b_op3(c, "Where", b_op2(c, "And", qle0, qint), scal(c, INFINITY, dt), s);
	s = b_op3(c, "Where", b_op2(c, "Less", x, scal(c, 1, dt)), scal(c, NAN, dt), s);
	s = b_op3(c, "Where", b_op2(c, "Equal", x, scal(c, 1, dt)), scal(c, INFINITY, dt), s);
	return b_cast(c, s, odt);
}

static SYM(sym_zeta)
{
	struct ir_value *x, *q;
	if (sym_float_pair(c, n, &x, &q))
		return 1;
	out[0] = zeta_of(c, x, q);
	return 0;
}

/* log1p(y) as log(u) * y / (u - 1) with u = 1 + y (u == 1: y; y ==
 * inf: inf), which keeps log1p's accuracy for small y */
static struct ir_value *log1p_of(struct lower_ctx *c, struct ir_value *y)
{
	enum ir_dtype dt = b_dtype(y);
	struct ir_value *u = b_op2(c, "Add", scal(c, 1, dt), y), *l;

	l = b_op2(c, "Mul", b_op1(c, "Log", u),
		  b_op2(c, "Div", y, b_op2(c, "Sub", u, scal(c, 1, dt))));
	l = b_op3(c, "Where", b_op2(c, "Equal", u, scal(c, 1, dt)), y, l);
	return b_op3(c, "Where", b_op2(c, "Equal", y, scal(c, INFINITY, dt)), y, l);
}

/* special_xlog1py(x, y): 0 where x == 0 and y is no NaN, else
 * x * log1p(y) */
static SYM(sym_xlog1py)
{
	struct ir_value *x, *y, *l, *zero;
	if (sym_float_pair(c, n, &x, &y))
		return 1;
	enum ir_dtype dt = b_dtype(x);
	l = log1p_of(c, y);
	zero = b_op2(c, "And", b_op2(c, "Equal", x, scal(c, 0, dt)),
		     b_op1(c, "Not", b_op1(c, "IsNaN", y)));
	out[0] = b_op3(c, "Where", zero, scal(c, 0, dt), b_op2(c, "Mul", x, l));
	return 0;
}

/* input 0 as a float tensor: integers and bools as Float */
static struct ir_value *float_in(struct lower_ctx *c, struct ir_node *n)
{
	struct ir_value *x = lw_tensor(c, n, 0);
	if (x && !b_is_float(b_dtype(x)))
		x = b_cast(c, x, IR_DTYPE_FLOAT);
	return x;
}

/* Cephes' chbevl in ONNX: the Chebyshev series cf[0..k) at y */
static struct ir_value *chbevl(struct lower_ctx *c, struct ir_value *y,
			       const double *cf, int k, enum ir_dtype dt)
{
	struct ir_value *b0 = scal(c, cf[0], dt), *b1 = scal(c, 0, dt), *b2;

	b2 = b1;
	for (int i = 1; i < k; i++) {
		b2 = b1;
		b1 = b0;
		b0 = b_op2(c, "Add", b_op2(c, "Sub", b_op2(c, "Mul", y, b1), b2),
			   scal(c, cf[i], dt));
	}
	return b_op2(c, "Mul", scal(c, 0.5, dt), b_op2(c, "Sub", b0, b2));
}

/* i0, i1 (one; torch's calc_i0/calc_i1 and modified_bessel_i0/i1_forward)
 * and the scaled i0e, i1e of x: Cephes' two Chebyshev series, over
 * [0, 8] of |x|/2 - 2 and above of 32/|x| - 2 (lib/common/special_math.c) */
static struct ir_value *bessel_i(struct lower_ctx *c, struct ir_value *x,
				 int one, int scaled)
{
	enum ir_dtype dt = b_dtype(x);
	struct ir_value *z = b_op1(c, "Abs", x), *lo, *hi, *v;

	lo = chbevl(c, b_op2(c, "Sub", b_op2(c, "Div", z, scal(c, 2, dt)),
			     scal(c, 2, dt)),
		    one ? sf_i1_a : sf_i0_a, one ? SF_I1_NA : SF_I0_NA, dt);
	hi = chbevl(c, b_op2(c, "Sub", b_op2(c, "Div", scal(c, 32, dt), z),
			     scal(c, 2, dt)),
		    one ? sf_i1_b : sf_i0_b, one ? SF_I1_NB : SF_I0_NB, dt);
	if (scaled) {
		if (one)
			lo = b_op2(c, "Mul", lo, z);
	} else {
		struct ir_value *e = b_op1(c, "Exp", z);
		lo = one ? b_op2(c, "Mul", b_op2(c, "Mul", e, z), lo)
			 : b_op2(c, "Mul", e, lo);
		hi = b_op2(c, "Mul", e, hi);
	}
	hi = b_op2(c, "Div", hi, b_op1(c, "Sqrt", z));
	v = b_op3(c, "Where", b_op2(c, "Greater", z, scal(c, 8, dt)), hi, lo);
	if (one)
		v = b_op3(c, "Where", b_op2(c, "Less", x, scal(c, 0, dt)),
			  b_op1(c, "Neg", v), v);
	return v;
}

static SYM(sym_bessel_i)
{
	struct ir_value *x = float_in(c, n);
	if (!x)
		return lw_decline(c, "the input is not a tensor");
	out[0] = bessel_i(c, x,
			  n->op == OP_aten_special_i1 || n->op == OP_aten_special_i1e ||
			  n->op == OP_aten_special_modified_bessel_i1,
			  n->op == OP_aten_special_i0e || n->op == OP_aten_special_i1e);
	return 0;
}

/* modified_bessel_k0/k1 and their scaled forms (exp(x) K) as torch's
 * *_forward: over (0, 2] Cephes' series of x^2 - 2 with the log(x/2)
 * I term, above the series of 8/x - 2; inf at 0, NaN below */
static SYM(sym_bessel_k)
{
	struct ir_value *x = float_in(c, n), *lo, *hi, *li, *v;
	int one = n->op == OP_aten_special_modified_bessel_k1 ||
		  n->op == OP_aten_special_scaled_modified_bessel_k1;
	int scaled = n->op == OP_aten_special_scaled_modified_bessel_k0 ||
		     n->op == OP_aten_special_scaled_modified_bessel_k1;
	if (!x)
		return lw_decline(c, "the input is not a tensor");
	enum ir_dtype dt = b_dtype(x);
	lo = chbevl(c, b_op2(c, "Sub", b_op2(c, "Mul", x, x), scal(c, 2, dt)),
		    one ? sf_k1_a : sf_k0_a, one ? SF_K1_NA : SF_K0_NA, dt);
	li = b_op2(c, "Mul", b_op1(c, "Log", b_op2(c, "Mul", scal(c, 0.5, dt), x)),
		   bessel_i(c, x, one, 0));
	lo = one ? b_op2(c, "Add", li, b_op2(c, "Div", lo, x)) : b_op2(c, "Sub", lo, li);
	hi = b_op2(c, "Div", chbevl(c, b_op2(c, "Sub", b_op2(c, "Div", scal(c, 8, dt), x),
					       scal(c, 2, dt)),
				    one ? sf_k1_b : sf_k0_b, SF_K_NB, dt),
		   b_op1(c, "Sqrt", x));
	if (scaled)
		lo = b_op2(c, "Mul", lo, b_op1(c, "Exp", x));
	else
		hi = b_op2(c, "Mul", b_op1(c, "Exp", b_op1(c, "Neg", x)), hi);
	v = b_op3(c, "Where", b_op2(c, "Greater", x, scal(c, 2, dt)), hi, lo);
	v = b_op3(c, "Where", b_op2(c, "Less", x, scal(c, 0, dt)), scal(c, NAN, dt), v);
	out[0] = b_op3(c, "Where", b_op2(c, "Equal", x, scal(c, 0, dt)),
		       scal(c, INFINITY, dt), v);
	return 0;
}

/* the polynomial cf[0..k) (highest order first) at z, by Horner */
static struct ir_value *horner(struct lower_ctx *c, struct ir_value *z,
			       const double *cf, int k, enum ir_dtype dt)
{
	struct ir_value *r = scal(c, cf[0], dt);
	for (int i = 1; i < k; i++)
		r = b_op2(c, "Add", b_op2(c, "Mul", r, z), scal(c, cf[i], dt));
	return r;
}

/* J (y 0) or Y (y 1) of order 0 or 1 above 5, as torch's
 * bessel_j0/j1/y0/y1_forward: Cephes' P and Q of 25/x^2 and the phase
 * x - (2 order + 1) pi/4 */
static struct ir_value *bessel_jy_large(struct lower_ctx *c,
					struct ir_value *x, int order, int y)
{
	const struct sf_bessel_jy *k = &sf_bessel_jy[order];
	enum ir_dtype dt = b_dtype(x);
	struct ir_value *z, *pp, *pq, *qp, *qq, *xn, *a, *b, *five;

	five = b_op2(c, "Div", scal(c, 5, dt), x);
	z = order ? b_op2(c, "Mul", five, five)
		  : b_op2(c, "Div", scal(c, 25, dt), b_op2(c, "Mul", x, x));
	pp = horner(c, z, k->pp, k->npp, dt);
	pq = horner(c, z, k->pq, k->npq, dt);
	qp = horner(c, z, k->qp, k->nqp, dt);
	qq = horner(c, z, k->qq, k->nqq, dt);
	xn = b_op2(c, "Sub", x, scal(c, order ? 3 * M_PI_4 : M_PI_4, dt));
	a = b_op2(c, "Mul", b_op2(c, "Div", pp, pq), b_op1(c, y ? "Sin" : "Cos", xn));
	b = b_op2(c, "Mul", b_op2(c, "Mul", five, b_op2(c, "Div", qp, qq)),
		  b_op1(c, y ? "Cos" : "Sin", xn));
	a = b_op2(c, y ? "Add" : "Sub", a, b);
	return b_op2(c, "Div", b_op2(c, "Mul", a, scal(c, 0.797884560802865355879892119868763737, dt)),
		     b_op1(c, "Sqrt", x));
}

/* J0 or J1 (order) of x >= 0: the small form up to 5 (J0 1 - x^2/4
 * below 1e-5), the large above */
static struct ir_value *bessel_j_pos(struct lower_ctx *c, struct ir_value *z,
				     int order)
{
	const struct sf_bessel_jy *k = &sf_bessel_jy[order];
	enum ir_dtype dt = b_dtype(z);
	struct ir_value *xx = b_op2(c, "Mul", z, z), *rp, *rq, *v;

	rp = horner(c, xx, k->rp, k->nrp, dt);
	rq = horner(c, xx, k->rq, k->nrq, dt);
	if (order) {
		v = b_op2(c, "Mul", b_op2(c, "Div", rp, rq), z);
		v = b_op2(c, "Mul", v, b_op2(c, "Sub", xx, scal(c, k->z1, dt)));
		v = b_op2(c, "Mul", v, b_op2(c, "Sub", xx, scal(c, k->z2, dt)));
	} else {
		v = b_op2(c, "Mul", b_op2(c, "Sub", xx, scal(c, k->z1, dt)),
			  b_op2(c, "Sub", xx, scal(c, k->z2, dt)));
		v = b_op2(c, "Div", b_op2(c, "Mul", v, rp), rq);
		v = b_op3(c, "Where", b_op2(c, "Less", z, scal(c, 1e-5, dt)),
			  b_op2(c, "Sub", scal(c, 1, dt),
				b_op2(c, "Div", xx, scal(c, 4, dt))), v);
	}
	return b_op3(c, "Where", b_op2(c, "Greater", z, scal(c, 5, dt)),
		     bessel_jy_large(c, z, order, 0), v);
}

/* bessel_j0/j1 (J0 even, J1 odd) and bessel_y0/y1 (up to 5: Cephes'
 * YP/YQ plus 2/pi log(x) J; -inf at 0, NaN below) as torch's *_forward */
static SYM(sym_bessel_jy)
{
	struct ir_value *x = float_in(c, n), *z, *v, *xx, *yp, *yq, *j, *l;
	int order = n->op == OP_aten_special_bessel_j1 || n->op == OP_aten_special_bessel_y1;
	int y = n->op == OP_aten_special_bessel_y0 || n->op == OP_aten_special_bessel_y1;
	const struct sf_bessel_jy *k = &sf_bessel_jy[order];
	if (!x)
		return lw_decline(c, "the input is not a tensor");
	enum ir_dtype dt = b_dtype(x);
	if (!y) {
		z = b_op1(c, "Abs", x);
		v = bessel_j_pos(c, z, order);
		if (order)
			v = b_op3(c, "Where", b_op2(c, "Less", x, scal(c, 0, dt)),
				  b_op1(c, "Neg", v), v);
		out[0] = v;
		return 0;
	}
	xx = b_op2(c, "Mul", x, x);
	yp = horner(c, xx, k->yp, k->nyp, dt);
	yq = horner(c, xx, k->yq, k->nyq, dt);
	j = bessel_j_pos(c, x, order);
	l = b_op1(c, "Log", x);
	if (order)
		v = b_op2(c, "Add", b_op2(c, "Mul", x, b_op2(c, "Div", yp, yq)),
			  b_op2(c, "Mul", scal(c, M_2_PI, dt),
				b_op2(c, "Sub", b_op2(c, "Mul", j, l),
				      b_op2(c, "Div", scal(c, 1, dt), x))));
	else
		v = b_op2(c, "Add", b_op2(c, "Div", yp, yq),
			  b_op2(c, "Mul", b_op2(c, "Mul", scal(c, M_2_PI, dt), l), j));
	v = b_op3(c, "Where", b_op2(c, "Greater", x, scal(c, 5, dt)),
		  bessel_jy_large(c, x, order, 1), v);
	v = b_op3(c, "Where", b_op2(c, "Less", x, scal(c, 0, dt)), scal(c, NAN, dt), v);
	out[0] = b_op3(c, "Where", b_op2(c, "Equal", x, scal(c, 0, dt)),
		       scal(c, -INFINITY, dt), v);
	return 0;
}

/* lgamma(x) (an approximation: torch calls C's lgamma): below 0.5 by
 * the reflection log(pi / |sin(pi x)|) - lgamma(1 - x), sin's argument
 * reduced to x - round(x); z below 8 shifted to z + 8 and
 * log(z (z + 1) ... (z + 7)) taken off; Stirling's series to 1/z^7 from
 * 8 (its error there below 1e-10); infinities are +inf */
static struct ir_value *lgamma_of(struct lower_ctx *c, struct ir_value *x)
{
	enum ir_dtype dt = b_dtype(x);
	struct ir_value *neg, *z, *small, *pr, *zs, *u, *u2, *ser, *st, *lg, *r,
		*refl;

	neg = b_op2(c, "Less", x, scal(c, 0.5, dt));
	z = b_op3(c, "Where", neg, b_op2(c, "Sub", scal(c, 1, dt), x), x);
	small = b_op2(c, "Less", z, scal(c, 8, dt));
	pr = z;
	for (int k = 1; k < 8; k++)
		pr = b_op2(c, "Mul", pr, b_op2(c, "Add", z, scal(c, k, dt)));
	zs = b_op3(c, "Where", small, b_op2(c, "Add", z, scal(c, 8, dt)), z);
	u = b_op2(c, "Div", scal(c, 1, dt), zs);
	u2 = b_op2(c, "Mul", u, u);
	ser = b_op2(c, "Add", scal(c, 1.0 / 1260, dt),
		    b_op2(c, "Mul", u2, scal(c, -1.0 / 1680, dt)));
	ser = b_op2(c, "Add", scal(c, -1.0 / 360, dt), b_op2(c, "Mul", u2, ser));
	ser = b_op2(c, "Add", scal(c, 1.0 / 12, dt), b_op2(c, "Mul", u2, ser));
	ser = b_op2(c, "Mul", u, ser);
	st = b_op2(c, "Sub", b_op2(c, "Mul", b_op2(c, "Sub", zs, scal(c, 0.5, dt)),
				   b_op1(c, "Log", zs)), zs);
	st = b_op2(c, "Add", st, b_op2(c, "Add", scal(c, 0.91893853320467274178, dt),
					ser));
	lg = b_op3(c, "Where", small, b_op2(c, "Sub", st, b_op1(c, "Log", pr)), st);
	r = b_op2(c, "Sub", x, b_op1(c, "Round", x));
	r = b_op1(c, "Abs", b_op1(c, "Sin", b_op2(c, "Mul", scal(c, M_PI, dt), r)));
	refl = b_op2(c, "Sub", b_op2(c, "Sub", scal(c, log(M_PI), dt),
				      b_op1(c, "Log", r)), lg);
	return b_op3(c, "Where", b_op1(c, "IsInf", x), scal(c, INFINITY, dt),
		     b_op3(c, "Where", neg, refl, lg));
}

static SYM(sym_lgamma)
{
	struct ir_value *x = float_in(c, n);
	if (!x)
		return lw_decline(c, "the input is not a tensor");
	out[0] = lgamma_of(c, x);
	return 0;
}

/* mvlgamma(x, p): the sum over j < p of lgamma(x - j/2), from the
 * largest j as torch sums, plus p(p - 1)/4 log(pi) */
static SYM(sym_mvlgamma)
{
	struct ir_value *x = float_in(c, n), *v = NULL;
	int64_t p;
	if (!x)
		return lw_decline(c, "the input is not a tensor");
	if (!lw_int(c, n, 1, &p) || p < 1)
		return lw_decline(c, "p is not a constant integer of at least 1");
	enum ir_dtype dt = b_dtype(x);
	for (int64_t j = p - 1; j >= 0; j--) {
		struct ir_value *t = lgamma_of(c, b_op2(c, "Sub", x,
					scal(c, 0.5 * (double)j, dt)));
		v = v ? b_op2(c, "Add", v, t) : t;
	}
	out[0] = b_op2(c, "Add", v, scal(c, (double)p * (double)(p - 1) / 4 *
					    log(M_PI), dt));
	return 0;
}

/* digamma as torch's calc_digamma: x (1 - x below 0) pushed to >= 10
 * by at most 10 steps of -1/x, digamma(10) there, else the asymptotic
 * series; below 0 minus pi / tan(pi x); +-0: -+inf, negative integers
 * NaN */
static struct ir_value *digamma_of(struct lower_ctx *c, struct ir_value *x)
{
	struct ir_value *neg, *w, *res, *zz, *pv, *y, *v, *fr, *t;
	enum ir_dtype dt = b_dtype(x);
	neg = b_op2(c, "Less", x, scal(c, 0, dt));
	w = b_op3(c, "Where", neg, b_op2(c, "Sub", scal(c, 1, dt), x), x);
	res = scal(c, 0, dt);
	for (int i = 0; i < 10; i++) {
		struct ir_value *m = b_op2(c, "Less", w, scal(c, 10, dt));
		res = b_op2(c, "Sub", res, b_op3(c, "Where", m,
				b_op2(c, "Div", scal(c, 1, dt), w), scal(c, 0, dt)));
		w = b_op3(c, "Where", m, b_op2(c, "Add", w, scal(c, 1, dt)), w);
	}
	zz = b_op2(c, "Div", scal(c, 1, dt), b_op2(c, "Mul", w, w));
	pv = scal(c, 0, dt);
	for (int i = 0; i < SF_PSI_N; i++)
		pv = b_op2(c, "Add", b_op2(c, "Mul", pv, zz), scal(c, sf_psi_a[i], dt));
	y = b_op3(c, "Where", b_op2(c, "Less", w, scal(c, 1e17, dt)),
		  b_op2(c, "Mul", zz, pv), scal(c, 0, dt));
	v = b_op2(c, "Sub", b_op2(c, "Sub", b_op2(c, "Add", res, b_op1(c, "Log", w)),
				  b_op2(c, "Div", scal(c, 0.5, dt), w)), y);
	v = b_op3(c, "Where", b_op2(c, "Equal", w, scal(c, 10, dt)),
		  b_op2(c, "Add", res, scal(c, SF_PSI_10, dt)), v);
	/* torch takes tan(pi x) in double: here of the exact fraction
	 * moved into [-1/2, 1/2], where pi times it loses nothing */
	fr = b_op2(c, "Sub", x, b_op1(c, "Ceil", x));
	t = b_op3(c, "Where", b_op2(c, "Less", fr, scal(c, -0.5, dt)),
		  b_op2(c, "Add", fr, scal(c, 1, dt)), fr);
	t = b_op2(c, "Mul", scal(c, M_PI, dt), t);
	/* ONNX Runtime has no double Tan */
	t = dt == IR_DTYPE_DOUBLE ? b_op2(c, "Div", b_op1(c, "Sin", t), b_op1(c, "Cos", t))
				  : b_op1(c, "Tan", t);
	v = b_op3(c, "Where", neg, b_op2(c, "Sub", v, b_op2(c, "Div",
			scal(c, M_PI, dt), t)), v);
	v = b_op3(c, "Where", b_op2(c, "And", neg, b_op2(c, "Equal", fr, scal(c, 0, dt))),
		  scal(c, NAN, dt), v);
	return b_op3(c, "Where", b_op2(c, "Equal", x, scal(c, 0, dt)),
		     b_op3(c, "Where", b_op2(c, "Less", b_op2(c, "Div", scal(c, 1, dt), x),
					     scal(c, 0, dt)),
			   scal(c, INFINITY, dt), scal(c, -INFINITY, dt)), v);
}

static SYM(sym_digamma)
{
	struct ir_value *x = float_in(c, n);
	if (!x)
		return lw_decline(c, "the input is not a tensor");
	out[0] = digamma_of(c, x);
	return 0;
}

/* spherical_bessel_j0: sin(x)/x, its Taylor series below |x| 0.5 (as
 * torch), 0 at infinities */
static SYM(sym_spherical_j0)
{
	static const double k[] = { 1.0 / 6227020800.0, -1.0 / 39916800,
		1.0 / 362880, -1.0 / 5040, 1.0 / 120, -1.0 / 6 };
	struct ir_value *x = float_in(c, n), *u, *s;
	if (!x)
		return lw_decline(c, "the input is not a tensor");
	enum ir_dtype dt = b_dtype(x);
	u = b_op2(c, "Mul", x, x);
	s = scal(c, k[0], dt);
	for (int i = 1; i < 6; i++)
		s = b_op2(c, "Add", scal(c, k[i], dt), b_op2(c, "Mul", u, s));
	s = b_op2(c, "Add", scal(c, 1, dt), b_op2(c, "Mul", u, s));
	s = b_op3(c, "Where", b_op2(c, "Less", b_op1(c, "Abs", x), scal(c, 0.5, dt)),
		  s, b_op2(c, "Div", b_op1(c, "Sin", x), x));
	out[0] = b_op3(c, "Where", b_op1(c, "IsInf", x), scal(c, 0, dt), s);
	return 0;
}

/* special_ndtri, the inverse of the normal CDF, as torch's calc_ndtri
 * (Cephes): P0/Q0 in the centre (y within exp(-2) of 0 and 1), the
 * tails' P1/Q1 (sqrt(-2 log y) below 8) and P2/Q2 */
static SYM(sym_ndtri)
{
	struct ir_value *y0 = float_in(c, n), *code, *y, *yc, *y2, *vc, *t, *x0, *z,
		*x1, *xt, *v;
	if (!y0)
		return lw_decline(c, "the input is not a tensor");
	enum ir_dtype dt = b_dtype(y0);
	code = b_op1(c, "Not", b_op2(c, "Greater", y0, b_op2(c, "Sub", scal(c, 1, dt),
							    scal(c, SF_EXP_M2, dt))));
	y = b_op3(c, "Where", code, y0, b_op2(c, "Sub", scal(c, 1, dt), y0));
	yc = b_op2(c, "Sub", y, scal(c, 0.5, dt));
	y2 = b_op2(c, "Mul", yc, yc);
	vc = b_op2(c, "Div", b_op2(c, "Mul", y2, horner(c, y2, sf_ndtri_p0, SF_NDTRI_N0, dt)),
		   horner(c, y2, sf_ndtri_q0, SF_NDTRI_NQ0, dt));
	vc = b_op2(c, "Mul", b_op2(c, "Add", yc, b_op2(c, "Mul", yc, vc)), scal(c, SF_S2PI, dt));
	t = b_op1(c, "Sqrt", b_op2(c, "Mul", scal(c, -2, dt), b_op1(c, "Log", y)));
	x0 = b_op2(c, "Sub", t, b_op2(c, "Div", b_op1(c, "Log", t), t));
	z = b_op2(c, "Div", scal(c, 1, dt), t);
	x1 = b_op3(c, "Where", b_op2(c, "Less", t, scal(c, 8, dt)),
		   b_op2(c, "Div", b_op2(c, "Mul", z, horner(c, z, sf_ndtri_p1, SF_NDTRI_N, dt)),
			 horner(c, z, sf_ndtri_q1, SF_NDTRI_N, dt)),
		   b_op2(c, "Div", b_op2(c, "Mul", z, horner(c, z, sf_ndtri_p2, SF_NDTRI_N, dt)),
			 horner(c, z, sf_ndtri_q2, SF_NDTRI_N, dt)));
	xt = b_op2(c, "Sub", x0, x1);
	xt = b_op3(c, "Where", code, b_op1(c, "Neg", xt), xt);
	v = b_op3(c, "Where", b_op2(c, "Greater", y, scal(c, SF_EXP_M2, dt)), vc, xt);
	v = b_op3(c, "Where", b_op2(c, "Or", b_op2(c, "Less", y0, scal(c, 0, dt)),
				    b_op2(c, "Greater", y0, scal(c, 1, dt))),
		  scal(c, NAN, dt), v);
	v = b_op3(c, "Where", b_op2(c, "Equal", y0, scal(c, 1, dt)), scal(c, INFINITY, dt), v);
	out[0] = b_op3(c, "Where", b_op2(c, "Equal", y0, scal(c, 0, dt)),
		       scal(c, -INFINITY, dt), v);
	return 0;
}

/* erfinv as torch's calc_erfinv: the rational first guess and two
 * Newton steps on Erf (float only: ONNX Runtime 1.30 has no double Erf) */
static SYM(sym_erfinv)
{
	static const double den_a[5] = { 0, 0, 0, 0, 1 }, den_c[3] = { 0, 0, 1 };
	double da[5], dc[3], na[4], nc[4];
	struct ir_value *y = float_in(c, n), *ya, *z, *xc, *xt, *num, *x;
	if (!y)
		return lw_decline(c, "the input is not a tensor");
	enum ir_dtype dt = b_dtype(y);
	if (dt != IR_DTYPE_FLOAT)
		return lw_decline(c, "float32 only: ONNX Runtime 1.30 has no Erf "
				  "of other dtypes (erfinv's Newton steps need it)");
	for (int i = 0; i < 4; i++) {
		na[i] = sf_erfinv_a[3 - i];
		nc[i] = sf_erfinv_c[3 - i];
		da[i] = sf_erfinv_b[3 - i];
	}
	da[4] = den_a[4];
	dc[0] = sf_erfinv_d[1];
	dc[1] = sf_erfinv_d[0];
	dc[2] = den_c[2];
	ya = b_op1(c, "Abs", y);
	z = b_op2(c, "Mul", y, y);
	xc = b_op2(c, "Div", b_op2(c, "Mul", y, horner(c, z, na, 4, dt)), horner(c, z, da, 5, dt));
	z = b_op1(c, "Sqrt", b_op1(c, "Neg", b_op1(c, "Log", b_op2(c, "Div",
			b_op2(c, "Sub", scal(c, 1, dt), ya), scal(c, 2, dt)))));
	num = b_op1(c, "Abs", horner(c, z, nc, 4, dt));
	num = b_op3(c, "Where", b_op2(c, "Less", y, scal(c, 0, dt)), b_op1(c, "Neg", num), num);
	xt = b_op2(c, "Div", num, horner(c, z, dc, 3, dt));
	x = b_op3(c, "Where", b_op2(c, "Greater", ya, scal(c, 0.7, dt)), xt, xc);
	for (int i = 0; i < 2; i++)
		x = b_op2(c, "Sub", x, b_op2(c, "Div", b_op2(c, "Sub", b_op1(c, "Erf", x), y),
			b_op2(c, "Mul", scal(c, M_2_SQRTPI, dt),
			      b_op1(c, "Exp", b_op1(c, "Neg", b_op2(c, "Mul", x, x))))));
	x = b_op3(c, "Where", b_op2(c, "Equal", ya, scal(c, 1, dt)),
		  b_op3(c, "Where", b_op2(c, "Greater", y, scal(c, 0, dt)),
			scal(c, INFINITY, dt), scal(c, -INFINITY, dt)), x);
	out[0] = b_op3(c, "Where", b_op2(c, "Greater", ya, scal(c, 1, dt)), scal(c, NAN, dt), x);
	return 0;
}

/* erfcx(u) for u >= 0 (lib/common/special_math.c's sf_erfcx): below 1
 * exp(u^2)(1 - erf(u)), Cephes' P/Q to 8 and R/S to 50, then the
 * continued fraction (1/(u sqrt(pi)) above 5e7) */
static struct ir_value *erfcx_pos(struct lower_ctx *c, struct ir_value *u)
{
	static const double ispi = M_2_SQRTPI / 2;
	enum ir_dtype dt = b_dtype(u);
	struct ir_value *uu = b_op2(c, "Mul", u, u), *lo, *pq, *rs, *cf, *v;
	double q1[SF_ERFC_NQ + 1], s1[SF_ERFC_NS + 1];

	q1[0] = s1[0] = 1;
	for (int i = 0; i < SF_ERFC_NQ; i++)
		q1[i + 1] = sf_erfc_q[i];
	for (int i = 0; i < SF_ERFC_NS; i++)
		s1[i + 1] = sf_erfc_s[i];
	lo = b_op2(c, "Mul", b_op1(c, "Exp", uu),
		   b_op2(c, "Sub", scal(c, 1, dt), b_op1(c, "Erf", u)));
	pq = b_op2(c, "Div", horner(c, u, sf_erfc_p, SF_ERFC_NP, dt),
		   horner(c, u, q1, SF_ERFC_NQ + 1, dt));
	rs = b_op2(c, "Div", horner(c, u, sf_erfc_r, SF_ERFC_NR, dt),
		   horner(c, u, s1, SF_ERFC_NS + 1, dt));
	cf = b_op2(c, "Div", b_op2(c, "Mul", scal(c, ispi, dt),
			b_op2(c, "Add", b_op2(c, "Mul", uu, b_op2(c, "Add", uu, scal(c, 4.5, dt))),
			      scal(c, 2, dt))),
		   b_op2(c, "Mul", u, b_op2(c, "Add", b_op2(c, "Mul", uu,
				b_op2(c, "Add", uu, scal(c, 5, dt))), scal(c, 3.75, dt))));
	v = b_op3(c, "Where", b_op2(c, "Greater", u, scal(c, 5e7, dt)),
		  b_op2(c, "Div", scal(c, ispi, dt), u), cf);
	v = b_op3(c, "Where", b_op2(c, "Greater", u, scal(c, 50, dt)), v, rs);
	v = b_op3(c, "Where", b_op2(c, "Less", u, scal(c, 8, dt)), pq, v);
	return b_op3(c, "Where", b_op2(c, "Less", u, scal(c, 1, dt)), lo, v);
}

/* erfcx(x) of any x: below 0 2 exp(x^2) - erfcx(-x) (-6.1: 2 exp(x^2),
 * -26.7: inf) */
static struct ir_value *erfcx_of(struct lower_ctx *c, struct ir_value *x)
{
	enum ir_dtype dt = b_dtype(x);
	struct ir_value *e2 = b_op2(c, "Mul", scal(c, 2, dt),
				    b_op1(c, "Exp", b_op2(c, "Mul", x, x)));
	struct ir_value *neg = b_op2(c, "Sub", e2, erfcx_pos(c, b_op1(c, "Neg", x)));

	neg = b_op3(c, "Where", b_op2(c, "Less", x, scal(c, -6.1, dt)), e2, neg);
	neg = b_op3(c, "Where", b_op2(c, "Less", x, scal(c, -26.7, dt)),
		    scal(c, INFINITY, dt), neg);
	return b_op3(c, "Where", b_op2(c, "Less", x, scal(c, 0, dt)), neg,
		     erfcx_pos(c, x));
}

/* special_erfcx: float32 only (Erf below 1; ONNX Runtime 1.30 has no
 * double Erf) */
static SYM(sym_erfcx)
{
	struct ir_value *x = float_in(c, n);
	if (!x)
		return lw_decline(c, "the input is not a tensor");
	if (b_dtype(x) != IR_DTYPE_FLOAT)
		return lw_decline(c, "float32 only: ONNX Runtime 1.30 has no Erf "
				  "of other dtypes");
	out[0] = erfcx_of(c, x);
	return 0;
}

/* special_log_ndtr as torch's calc_log_ndtr: t = x / sqrt(2); below -1
 * log(erfcx(-t) / 2) - t^2, else log1p(-erfc(t) / 2), erfc(t) as
 * 1 - erf(t) below 1 and exp(-t^2) erfcx(t) above (float32 only) */
static SYM(sym_log_ndtr)
{
	struct ir_value *x = float_in(c, n), *t, *lo, *ec, *hi;
	if (!x)
		return lw_decline(c, "the input is not a tensor");
	enum ir_dtype dt = b_dtype(x);
	if (dt != IR_DTYPE_FLOAT)
		return lw_decline(c, "float32 only: ONNX Runtime 1.30 has no Erf "
				  "of other dtypes");
	t = b_op2(c, "Mul", x, scal(c, M_SQRT1_2, dt));
	lo = b_op2(c, "Sub", b_op1(c, "Log", b_op2(c, "Div",
			erfcx_pos(c, b_op1(c, "Neg", t)), scal(c, 2, dt))),
		   b_op2(c, "Mul", t, t));
	ec = b_op3(c, "Where", b_op2(c, "Less", t, scal(c, 1, dt)),
		   b_op2(c, "Sub", scal(c, 1, dt), b_op1(c, "Erf", t)),
		   b_op2(c, "Mul", b_op1(c, "Exp", b_op1(c, "Neg", b_op2(c, "Mul", t, t))),
			 erfcx_pos(c, t)));
	hi = log1p_of(c, b_op2(c, "Div", b_op1(c, "Neg", ec), scal(c, 2, dt)));
	out[0] = b_op3(c, "Where", b_op2(c, "Less", x, scal(c, -1, dt)), lo, hi);
	return 0;
}

/* special_airy_ai as torch's airy_ai_forward (Cephes): the rational
 * forms below -2.09 and from 2.09, the power series between, its terms
 * unrolled (AIRY_TERMS is more than float64 needs at |x| 2.09), each
 * element stopping where torch's loop does */
#define AIRY_TERMS 24
static SYM(sym_airy_ai)
{
	struct ir_value *x = float_in(c, n), *w, *zi, *zz, *ph, *neg, *zeta, *iz, *pos,
		*f, *g, *m, *nn, *t, *z, *v;
	if (!x)
		return lw_decline(c, "the input is not a tensor");
	enum ir_dtype dt = b_dtype(x);
	double eps = dt == IR_DTYPE_DOUBLE ? DBL_EPSILON : FLT_EPSILON;

	w = b_op2(c, "Div", b_op2(c, "Mul", b_op2(c, "Mul", scal(c, -2, dt), x),
				  b_op1(c, "Sqrt", b_op1(c, "Neg", x))), scal(c, 3, dt));
	zi = b_op2(c, "Div", scal(c, 1, dt), w);
	zz = b_op2(c, "Mul", zi, zi);
	ph = b_op2(c, "Add", w, scal(c, 0.25 * M_PI, dt));
	neg = b_op2(c, "Add", scal(c, 1, dt), b_op2(c, "Div", b_op2(c, "Mul", zz,
			horner(c, zz, sf_airy_afn, SF_AIRY_NF, dt)),
			horner(c, zz, sf_airy_afd, SF_AIRY_NF, dt)));
	neg = b_op2(c, "Sub", b_op2(c, "Mul", b_op1(c, "Sin", ph), neg),
		    b_op2(c, "Mul", b_op1(c, "Cos", ph), b_op2(c, "Div",
			b_op2(c, "Mul", zi, horner(c, zz, sf_airy_agn, SF_AIRY_NGN, dt)),
			horner(c, zz, sf_airy_agd, SF_AIRY_NGD, dt))));
	neg = b_op2(c, "Mul", b_op2(c, "Div", scal(c, SF_SQRT1_PI, dt),
			b_op1(c, "Sqrt", b_op1(c, "Sqrt", b_op1(c, "Neg", x)))), neg);
	zeta = b_op2(c, "Div", b_op2(c, "Mul", b_op2(c, "Mul", scal(c, 2, dt), x),
				     b_op1(c, "Sqrt", x)), scal(c, 3, dt));
	iz = b_op2(c, "Div", scal(c, 1, dt), zeta);
	pos = b_op2(c, "Mul", scal(c, SF_SQRT1_PI, dt),
		    b_op2(c, "Div", horner(c, iz, sf_airy_an, SF_AIRY_NA, dt),
			  horner(c, iz, sf_airy_ad, SF_AIRY_NA, dt)));
	pos = b_op2(c, "Div", pos, b_op2(c, "Mul", b_op2(c, "Mul", scal(c, 2, dt),
			b_op1(c, "Sqrt", b_op1(c, "Sqrt", x))), b_op1(c, "Exp", zeta)));
	f = scal(c, 1, dt);
	g = x;
	m = scal(c, 1, dt);
	nn = x;
	t = scal(c, 1, dt);
	z = b_op2(c, "Mul", b_op2(c, "Mul", x, x), x);
	for (int i = 0; i < AIRY_TERMS; i++) {
		struct ir_value *act = b_op2(c, "Greater", t, scal(c, eps, dt));
		struct ir_value *m1, *n1, *f1, *g1;
		m1 = b_op2(c, "Div", b_op2(c, "Mul", m, z), scal(c, 3 * i + 2, dt));
		n1 = b_op2(c, "Div", b_op2(c, "Mul", nn, z), scal(c, 3 * i + 3, dt));
		m1 = b_op2(c, "Div", m1, scal(c, 3 * i + 3, dt));
		f1 = b_op2(c, "Add", f, m1);
		n1 = b_op2(c, "Div", n1, scal(c, 3 * i + 4, dt));
		g1 = b_op2(c, "Add", g, n1);
		m = b_op3(c, "Where", act, m1, m);
		nn = b_op3(c, "Where", act, n1, nn);
		f = b_op3(c, "Where", act, f1, f);
		g = b_op3(c, "Where", act, g1, g);
		t = b_op3(c, "Where", act, b_op1(c, "Abs", b_op2(c, "Div", m1, f1)), t);
	}
	v = b_op2(c, "Sub", b_op2(c, "Mul", scal(c, SF_AIRY_C1, dt), f),
		  b_op2(c, "Mul", scal(c, SF_AIRY_C2, dt), g));
	v = b_op3(c, "Where", b_op2(c, "Less", x, scal(c, 2.09, dt)), v, pos);
	v = b_op3(c, "Where", b_op2(c, "Less", x, scal(c, -2.09, dt)), neg, v);
	v = b_op3(c, "Where", b_op2(c, "Greater", x, scal(c, 103.892, dt)), scal(c, 0, dt), v);
	out[0] = b_op3(c, "Where", b_op1(c, "IsInf", x), scal(c, NAN, dt), v);
	return 0;
}

/* trigamma as torch's (Math.h): the reflection below 1/2 (minus
 * pi^2 / sin(pi x)^2), six steps of 1/x^2, the asymptotic series */
static struct ir_value *trigamma_of(struct lower_ctx *c, struct ir_value *x)
{
	enum ir_dtype dt = b_dtype(x);
	struct ir_value *lo = b_op2(c, "Less", x, scal(c, 0.5, dt)), *s, *r, *ixx, *v;

	s = b_op1(c, "Sin", b_op2(c, "Mul", scal(c, M_PI, dt), x));
	r = b_op3(c, "Where", lo, b_op1(c, "Neg", b_op2(c, "Div", scal(c, M_PI * M_PI, dt),
							 b_op2(c, "Mul", s, s))),
		  scal(c, 0, dt));
	x = b_op3(c, "Where", lo, b_op2(c, "Sub", scal(c, 1, dt), x), x);
	for (int i = 0; i < 6; i++) {
		r = b_op2(c, "Add", r, b_op2(c, "Div", scal(c, 1, dt), b_op2(c, "Mul", x, x)));
		x = b_op2(c, "Add", x, scal(c, 1, dt));
	}
	ixx = b_op2(c, "Div", scal(c, 1, dt), b_op2(c, "Mul", x, x));
	v = b_op2(c, "Sub", scal(c, 1.0 / 30, dt), b_op2(c, "Mul", ixx, scal(c, 1.0 / 42, dt)));
	v = b_op2(c, "Sub", scal(c, 1.0 / 6, dt), b_op2(c, "Mul", ixx, v));
	v = b_op2(c, "Add", b_op2(c, "Add", scal(c, 1, dt), b_op2(c, "Div", scal(c, 1, dt),
				b_op2(c, "Mul", scal(c, 2, dt), x))), b_op2(c, "Mul", ixx, v));
	r = b_op2(c, "Add", r, b_op2(c, "Div", v, x));
	return b_op3(c, "Where", lo, b_op1(c, "Neg", r), r);
}

/* polygamma(n, x) as torch's: digamma (n 0), trigamma (1), else
 * (-1)^(n+1) n! zeta(n + 1, x) (n! as torch's exp(lgamma(n + 1)) in the
 * dtype) */
static SYM(sym_polygamma)
{
	struct ir_value *x = lw_tensor(c, n, 1);
	int64_t k;
	if (!lw_int(c, n, 0, &k) || k < 0)
		return lw_decline(c, "n is not a constant integer of at least 0");
	if (!x)
		return lw_decline(c, "the input is not a tensor");
	if (!b_is_float(b_dtype(x)))
		x = b_cast(c, x, IR_DTYPE_FLOAT);
	enum ir_dtype dt = b_dtype(x);
	if (k == 0) {
		out[0] = digamma_of(c, x);
		return 0;
	}
	if (k == 1) {
		out[0] = trigamma_of(c, x);
		return 0;
	}
	double f = dt == IR_DTYPE_DOUBLE ? exp(lgamma((double)k + 1))
					 : (double)expf(lgammaf((float)k + 1));
	out[0] = b_op2(c, "Mul", scal(c, k % 2 ? f : -f, dt),
		       zeta_of(c, scal(c, (double)k + 1, dt), x));
	return 0;
}

/* What igamma's Loop works on (double, broadcast): a and x (1 and 0.5
 * where a boundary value applies) and which elements take the series */
struct igam {
	struct ir_value *a, *x, *ser;
};

/* one step i = it + 1 of both the series of P (term t, sum s) and the
 * continued fraction of Q (modified Lentz: d, cc, product h) over
 * every element not done; an element is done once its own form
 * converged (sf_igamma's tests) */
static void igamma_body(struct lower_ctx *c, const void *ctx,
			struct ir_value *it, struct ir_value **v,
			struct ir_value **nv)
{
	const struct igam *g = ctx;
	enum ir_dtype dt = IR_DTYPE_DOUBLE;
	struct ir_value *i = b_cast(c, b_op2(c, "Add", it, b_const_i64(c, 1)), dt);
	struct ir_value *act = b_op1(c, "Not", v[5]), *t, *s, *an, *b, *d, *cc,
		*del, *h, *tiny = scal(c, SF_IGAMMA_TINY, dt), *cs, *cf;

	t = b_op2(c, "Mul", v[0], b_op2(c, "Div", g->x, b_op2(c, "Add", g->a, i)));
	s = b_op2(c, "Add", v[1], t);
	cs = b_op2(c, "Less", b_op1(c, "Abs", t),
		   b_op2(c, "Mul", b_op1(c, "Abs", s), scal(c, SF_MACHEP, dt)));
	an = b_op1(c, "Neg", b_op2(c, "Mul", i, b_op2(c, "Sub", i, g->a)));
	b = b_op2(c, "Add", b_op2(c, "Sub", b_op2(c, "Add", g->x, scal(c, 1, dt)), g->a),
		  b_op2(c, "Add", i, i));
	d = b_op2(c, "Add", b_op2(c, "Mul", an, v[2]), b);
	d = b_op3(c, "Where", b_op2(c, "Less", b_op1(c, "Abs", d), tiny), tiny, d);
	cc = b_op2(c, "Add", b, b_op2(c, "Div", an, v[3]));
	cc = b_op3(c, "Where", b_op2(c, "Less", b_op1(c, "Abs", cc), tiny), tiny, cc);
	d = b_op2(c, "Div", scal(c, 1, dt), d);
	del = b_op2(c, "Mul", d, cc);
	h = b_op2(c, "Mul", v[4], del);
	cf = b_op2(c, "Less", b_op1(c, "Abs", b_op2(c, "Sub", del, scal(c, 1, dt))),
		   scal(c, SF_MACHEP, dt));
	nv[0] = b_op3(c, "Where", act, t, v[0]);
	nv[1] = b_op3(c, "Where", act, s, v[1]);
	nv[2] = b_op3(c, "Where", act, d, v[2]);
	nv[3] = b_op3(c, "Where", act, cc, v[3]);
	nv[4] = b_op3(c, "Where", act, h, v[4]);
	/* (Where of bools: ONNX Runtime has no kernel before opset 16) */
	nv[5] = b_op2(c, "Or", v[5], b_op2(c, "Or", b_op2(c, "And", g->ser, cs),
					     b_op2(c, "And", b_op1(c, "Not", g->ser), cf)));
}

/* igamma(a, x) (upper 0: P) or igammac (upper 1: Q), the regularized
 * incomplete gamma functions, as lib/common/special_math.c's sf_igamma
 * (in double): e^-x x^a / Gamma(a) times the series of P below a + 1,
 * the continued fraction of Q from there, in one ONNX Loop that ends
 * once every element converged (at most SF_IGAMMA_MAX steps); torch's
 * boundary values (calc_igamma/calc_igammac) as Where masks */
static struct ir_value *igamma_of(struct lower_ctx *c, struct ir_value *a,
				  struct ir_value *x, int upper)
{
	enum ir_dtype dt = IR_DTYPE_DOUBLE, odt = b_dtype(a);
	struct ir_value *shape, *neg, *a0, *x0, *ia, *ix, *nan, *sp, *init[6],
		*fin[6], *pre, *p, *q, *r, *z = scal(c, 0, dt);
	struct igam g;

	a = b_cast(c, a, dt);
	x = b_cast(c, x, dt);
	shape = b_op1(c, "Shape", b_op2(c, "Add", a, x));
	a = b_op2(c, "Expand", a, shape);
	x = b_op2(c, "Expand", x, shape);
	neg = b_op2(c, "Or", b_op2(c, "Less", a, z), b_op2(c, "Less", x, z));
	a0 = b_op2(c, "Equal", a, z);
	x0 = b_op2(c, "Equal", x, z);
	ia = b_op1(c, "IsInf", a);
	ix = b_op1(c, "IsInf", x);
	nan = b_op2(c, "Or", b_op1(c, "IsNaN", a), b_op1(c, "IsNaN", x));
	sp = b_op2(c, "Or", b_op2(c, "Or", neg, b_op2(c, "Or", a0, x0)),
		   b_op2(c, "Or", b_op2(c, "Or", ia, ix), nan));
	g.a = b_op3(c, "Where", sp, scal(c, 1, dt), a);
	g.x = b_op3(c, "Where", sp, scal(c, 0.5, dt), x);
	g.ser = b_op2(c, "Less", g.x, b_op2(c, "Add", g.a, scal(c, 1, dt)));
	init[0] = b_op2(c, "Div", scal(c, 1, dt), g.a);
	init[1] = init[0];
	init[2] = b_op2(c, "Div", scal(c, 1, dt), b_op2(c, "Sub", b_op2(c, "Add", g.x,
						scal(c, 1, dt)), g.a));
	init[3] = sym_fill_shape(c, shape, 1 / SF_IGAMMA_TINY, dt);
	init[4] = init[2];
	init[5] = sp;
	b_loop_until(c, b_const_i64(c, SF_IGAMMA_MAX), 6, init, igamma_body,
		     &g, fin, 5);
	pre = b_op2(c, "Sub", b_op2(c, "Sub", b_op2(c, "Mul", g.a, b_op1(c, "Log", g.x)),
				    g.x), lgamma_of(c, g.a));
	pre = b_op1(c, "Exp", pre);
	p = b_op2(c, "Mul", fin[1], pre);
	q = b_op2(c, "Mul", fin[4], pre);
	r = upper ? b_op3(c, "Where", g.ser, b_op2(c, "Sub", scal(c, 1, dt), p), q)
		  : b_op3(c, "Where", g.ser, p, b_op2(c, "Sub", scal(c, 1, dt), q));
	r = b_op3(c, "Where", nan, scal(c, NAN, dt), r);
	r = b_op3(c, "Where", ix, scal(c, !upper, dt), r);
	r = b_op3(c, "Where", ia, b_op3(c, "Where", ix, scal(c, NAN, dt),
					scal(c, upper, dt)), r);
	r = b_op3(c, "Where", x0, scal(c, upper, dt), r);
	r = b_op3(c, "Where", a0, b_op3(c, "Where", b_op2(c, "Greater", x, z),
					scal(c, !upper, dt), scal(c, NAN, dt)), r);
	r = b_op3(c, "Where", neg, scal(c, NAN, dt), r);
	return b_cast(c, r, odt);
}

/* igamma, igammac and their special_gammainc(c) aliases */
static SYM(sym_igamma)
{
	struct ir_value *a, *x;
	if (sym_float_pair(c, n, &a, &x))
		return 1;
	out[0] = igamma_of(c, a, x, n->op == OP_aten_igammac ||
				    n->op == OP_aten_special_gammaincc);
	return 0;
}

static const struct symbolic entries[] = {
	{ OP_aten_special_chebyshev_polynomial_t, 11, 0, SYM_PRIO_BASE, sym_polynomial },
	{ OP_aten_special_chebyshev_polynomial_u, 11, 0, SYM_PRIO_BASE, sym_polynomial },
	{ OP_aten_special_chebyshev_polynomial_v, 11, 0, SYM_PRIO_BASE, sym_polynomial },
	{ OP_aten_special_chebyshev_polynomial_w, 11, 0, SYM_PRIO_BASE, sym_polynomial },
	{ OP_aten_special_shifted_chebyshev_polynomial_t, 11, 0, SYM_PRIO_BASE, sym_polynomial },
	{ OP_aten_special_shifted_chebyshev_polynomial_u, 11, 0, SYM_PRIO_BASE, sym_polynomial },
	{ OP_aten_special_shifted_chebyshev_polynomial_v, 11, 0, SYM_PRIO_BASE, sym_polynomial },
	{ OP_aten_special_shifted_chebyshev_polynomial_w, 11, 0, SYM_PRIO_BASE, sym_polynomial },
	{ OP_aten_special_hermite_polynomial_h, 11, 0, SYM_PRIO_BASE, sym_polynomial },
	{ OP_aten_special_hermite_polynomial_he, 11, 0, SYM_PRIO_BASE, sym_polynomial },
	{ OP_aten_special_laguerre_polynomial_l, 11, 0, SYM_PRIO_BASE, sym_polynomial },
	{ OP_aten_special_legendre_polynomial_p, 11, 0, SYM_PRIO_BASE, sym_polynomial },
	{ OP_aten_special_xlog1py, 9, 0, SYM_PRIO_BASE, sym_xlog1py },
	{ OP_aten_i0, 9, 0, SYM_PRIO_BASE, sym_bessel_i },
	{ OP_aten_special_i0, 9, 0, SYM_PRIO_BASE, sym_bessel_i },
	{ OP_aten_special_i0e, 9, 0, SYM_PRIO_BASE, sym_bessel_i },
	{ OP_aten_special_i1, 9, 0, SYM_PRIO_BASE, sym_bessel_i },
	{ OP_aten_special_i1e, 9, 0, SYM_PRIO_BASE, sym_bessel_i },
	{ OP_aten_special_modified_bessel_i0, 9, 0, SYM_PRIO_BASE, sym_bessel_i },
	{ OP_aten_special_modified_bessel_i1, 9, 0, SYM_PRIO_BASE, sym_bessel_i },
	{ OP_aten_lgamma, 11, 0, SYM_PRIO_BASE, sym_lgamma },
	{ OP_aten_special_gammaln, 11, 0, SYM_PRIO_BASE, sym_lgamma },
	{ OP_aten_mvlgamma, 11, 0, SYM_PRIO_BASE, sym_mvlgamma },
	{ OP_aten_special_multigammaln, 11, 0, SYM_PRIO_BASE, sym_mvlgamma },
	{ OP_aten_digamma, 11, 0, SYM_PRIO_BASE, sym_digamma },
	{ OP_aten_special_digamma, 11, 0, SYM_PRIO_BASE, sym_digamma },
	{ OP_aten_special_psi, 11, 0, SYM_PRIO_BASE, sym_digamma },
	{ OP_aten_special_spherical_bessel_j0, 11, 0, SYM_PRIO_BASE, sym_spherical_j0 },
	{ OP_aten_special_zeta, 11, 0, SYM_PRIO_BASE, sym_zeta },
	{ OP_aten_igamma, 11, 0, SYM_PRIO_BASE, sym_igamma },
	{ OP_aten_igammac, 11, 0, SYM_PRIO_BASE, sym_igamma },
	{ OP_aten_special_gammainc, 11, 0, SYM_PRIO_BASE, sym_igamma },
	{ OP_aten_special_gammaincc, 11, 0, SYM_PRIO_BASE, sym_igamma },
	{ OP_aten_polygamma, 11, 0, SYM_PRIO_BASE, sym_polygamma },
	{ OP_aten_special_polygamma, 11, 0, SYM_PRIO_BASE, sym_polygamma },
	{ OP_aten_special_ndtri, 11, 0, SYM_PRIO_BASE, sym_ndtri },
	{ OP_aten_special_airy_ai, 11, 0, SYM_PRIO_BASE, sym_airy_ai },
	{ OP_aten_special_erfcx, 11, 0, SYM_PRIO_BASE, sym_erfcx },
	{ OP_aten_special_log_ndtr, 11, 0, SYM_PRIO_BASE, sym_log_ndtr },
	{ OP_aten_erfinv, 11, 0, SYM_PRIO_BASE, sym_erfinv },
	{ OP_aten_special_erfinv, 11, 0, SYM_PRIO_BASE, sym_erfinv },
	{ OP_aten_special_bessel_j0, 11, 0, SYM_PRIO_BASE, sym_bessel_jy },
	{ OP_aten_special_bessel_j1, 11, 0, SYM_PRIO_BASE, sym_bessel_jy },
	{ OP_aten_special_bessel_y0, 11, 0, SYM_PRIO_BASE, sym_bessel_jy },
	{ OP_aten_special_bessel_y1, 11, 0, SYM_PRIO_BASE, sym_bessel_jy },
	{ OP_aten_special_modified_bessel_k0, 11, 0, SYM_PRIO_BASE, sym_bessel_k },
	{ OP_aten_special_modified_bessel_k1, 11, 0, SYM_PRIO_BASE, sym_bessel_k },
	{ OP_aten_special_scaled_modified_bessel_k0, 11, 0, SYM_PRIO_BASE, sym_bessel_k },
	{ OP_aten_special_scaled_modified_bessel_k1, 11, 0, SYM_PRIO_BASE, sym_bessel_k },
};

const struct symbolic_table symbolic_special_table = {
	entries, sizeof(entries) / sizeof(entries[0])
};

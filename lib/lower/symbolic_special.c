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
 * xlog1py's 9 and up.
 */
#include <math.h>

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
	struct ir_node *nd = b_node(c, "Concat", 2, in, 1);
	b_attr_i(c, nd, "axis", 0);
	return b_done(c, nd);
}

/* q after the recurrence from (p0, q0): an ONNX Loop of max(nt) - 1
 * steps, the maximum over the elements where need holds; an element's
 * state moves at step j while j < nt */
static struct ir_value *poly_loop(struct lower_ctx *c, const struct poly *pl,
				  struct ir_value *p0, struct ir_value *q0,
				  struct ir_value *need)
{
	static const int64_t flat = -1;
	struct ir_graph *g = c->g;
	struct ir_block *body, *blk = c->blk;
	struct ir_node *pos = c->pos, *nd;
	struct ir_value *prm[4], *ins[4], *nmax, *j, *act, *r, *ret[3];

	/* trip count: max(1, nt where need) - 1; 0 for an empty x */
	nmax = b_op3(c, "Where", need, pl->nt, S(1));
	nmax = concat1(c, b_op2(c, "Reshape", nmax, b_const_i64s(c, &flat, 1, 1)),
		       b_const_scalar(c, 1, pl->dt, 1));
	nmax = b_reduce(c, "ReduceMax", nmax, NULL, 0, 0);
	ins[0] = b_cast(c, b_op2(c, "Sub", nmax, S(1)), IR_DTYPE_INT64);
	ins[1] = b_const_bool(c, 1);
	ins[2] = p0;
	ins[3] = q0;

	body = ir_block_new(g);
	prm[0] = ir_value_new(g, NULL, ir_type_tensor(g, IR_DTYPE_INT64, 0, NULL));
	prm[1] = ir_value_new(g, NULL, ir_type_tensor(g, IR_DTYPE_BOOL, 0, NULL));
	prm[2] = ir_value_new(g, NULL, ir_type_copy(g, p0->type));
	prm[3] = ir_value_new(g, NULL, ir_type_copy(g, q0->type));
	for (int i = 0; i < 4; i++)
		ir_block_add_param(g, body, prm[i]);
	c->blk = body;
	c->pos = NULL;
	j = b_cast(c, b_op2(c, "Add", prm[0], b_const_i64(c, 1)), pl->dt);
	r = poly_step(c, pl, j, prm[2], prm[3]);
	act = b_op2(c, "Less", j, pl->nt);
	ret[0] = b_op1(c, "Identity", prm[1]);
	ret[1] = b_op3(c, "Where", act, prm[3], prm[2]);
	ret[2] = b_op3(c, "Where", act, r, prm[3]);
	for (int i = 0; i < 3; i++)
		ir_block_add_return(g, body, ret[i]);
	c->blk = blk;
	c->pos = pos;

	nd = b_node(c, "Loop", 4, ins, 2);
	ir_node_add_attr(g, nd, "body", IR_ATTR_GRAPH)->u.g = body;
	body->owner = nd;
	nd->outputs[0]->type = ir_type_copy(g, p0->type);
	nd->outputs[1]->type = ir_type_copy(g, q0->type);
	return nd->outputs[1];
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

/* special_xlog1py(x, y): 0 where x == 0 and y is no NaN, else
 * x * log1p(y), log1p as log(u) * y / (u - 1) with u = 1 + y (u == 1:
 * y; y == inf: inf), which keeps log1p's accuracy for small y */
static SYM(sym_xlog1py)
{
	struct ir_value *x, *y, *u, *l, *zero;
	if (sym_float_pair(c, n, &x, &y))
		return 1;
	enum ir_dtype dt = b_dtype(x);
	u = b_op2(c, "Add", scal(c, 1, dt), y);
	l = b_op2(c, "Mul", b_op1(c, "Log", u),
		  b_op2(c, "Div", y, b_op2(c, "Sub", u, scal(c, 1, dt))));
	l = b_op3(c, "Where", b_op2(c, "Equal", u, scal(c, 1, dt)), y, l);
	l = b_op3(c, "Where", b_op2(c, "Equal", y, scal(c, INFINITY, dt)), y, l);
	zero = b_op2(c, "And", b_op2(c, "Equal", x, scal(c, 0, dt)),
		     b_op1(c, "Not", b_op1(c, "IsNaN", y)));
	out[0] = b_op3(c, "Where", zero, scal(c, 0, dt), b_op2(c, "Mul", x, l));
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
};

const struct symbolic_table symbolic_special_table = {
	entries, sizeof(entries) / sizeof(entries[0])
};

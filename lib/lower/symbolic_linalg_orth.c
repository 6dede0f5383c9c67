/*
 * symbolic_linalg_orth.c - the orthogonal linear algebra of issue 14 as
 * ONNX Loops (opset 11 and up: Loop, Gather and Equal on doubles, TopK's
 * `largest`), computed in doubles whatever the input's float dtype and
 * cast back at the end.  The matrix dims must be fixed (the trip counts
 * and Jacobi's rotation order are constants); batch dims may vary.
 *
 * Exact (a finite algorithm): Householder QR as LAPACK's dgeqr2 and
 * dorg2r compute it, one reflection per Loop step: dlarfg's beta =
 * -sign(alpha) |(alpha, x)|, tau = (beta - alpha) / beta, tau = 0 where x
 * is zero, so Q and R are torch's, signs included (linalg_qr in its three
 * modes, qr, geqrf, linalg_householder_product / orgqr, ormqr).
 *
 * Approximate (an iteration): symmetric eigenvalues by cyclic two-sided
 * Jacobi, singular values by cyclic one-sided (Hestenes) Jacobi, a fixed
 * JACOBI_SWEEPS(n) sweeps of the n (n - 1) / 2 rotations in row order, each
 * rotation t = sign(z) / (|z| + sqrt(1 + z^2)) of Golub and Van Loan's
 * sym.schur2 (none where the off-diagonal term is 0).  On them:
 * linalg_eigvalsh, linalg_svdvals, linalg_matrix_rank, linalg_pinv,
 * pinverse, nuclear_norm and the 'nuc', 2, -2 matrix norms
 * (symbolic_extra_math.c's mnorm calls sym_svd_norm), linalg_cond (None,
 * 2, -2, and 'fro', 'nuc' from all singular values; +-1, +-inf from the
 * inverse), linalg_lstsq (the
 * minimum-norm solution pinv(A) B).  docs/operators.md gives the errors
 * tests/436 measures against torch 1.13.  Eigenvectors and singular
 * vectors (linalg_eigh, linalg_svd, symeig's and svd's vector forms) are
 * refused (SYM_LAPACK_SIGNS): their signs are whatever LAPACK's algorithm
 * leaves; symeig without eigenvectors and svd without compute_uv work.
 */
#include <math.h>
#include <string.h>

#include "symbolic_common.h"

/* sweeps of cyclic Jacobi (2-sided and 1-sided converge quadratically):
 * 10 for n <= 8, 14 up to JACOBI_MAX_N = 16, leave the matrices
 * docs/operators.md measures at double's rounding level; larger ones are
 * declined (not measured) */
#define JACOBI_SWEEPS(n) ((n) <= 8 ? 10 : 14)
#define JACOBI_MAX_N 16
#define ORTH_MAX_N 256

#define DBL IR_DTYPE_DOUBLE

static struct ir_value *dk(struct lower_ctx *c, double v)
{
	return b_const_scalar(c, v, DBL, 0);
}

static struct ir_value *op2(struct lower_ctx *c, const char *op,
			    struct ir_value *a, struct ir_value *b)
{
	return b_op2(c, op, a, b);
}

/* Gather of x at the 0-d index i on axis */
static struct ir_value *gather(struct lower_ctx *c, struct ir_value *x,
			       struct ir_value *i, int64_t axis)
{
	struct ir_value *in[2] = { x, i };
	struct ir_node *nd = b_node(c, "Gather", 2, in, 1);
	b_attr_i(c, nd, "axis", axis);
	return b_done(c, nd);
}

static struct ir_value *unsq(struct lower_ctx *c, struct ir_value *x,
			     int64_t axis)
{
	return b_unsqueeze(c, x, &axis, 1);
}

static struct ir_value *rsum(struct lower_ctx *c, struct ir_value *x,
			     int64_t axis, int keep)
{
	return b_reduce(c, "ReduceSum", x, &axis, 1, keep);
}

/* 0 .. n-1 as a Long constant */
static struct ir_value *iota(struct lower_ctx *c, int64_t n)
{
	int64_t *v = ir_alloc(c->g, sizeof(*v) * (size_t)(n + 1));
	for (int64_t i = 0; i < n; i++)
		v[i] = i;
	return b_const_i64s(c, v, (int)n, 1);
}

/* the one-hot double [n] of the 0-d Long i */
static struct ir_value *onehot(struct lower_ctx *c, struct ir_value *i,
			       int64_t n)
{
	return b_cast(c, op2(c, "Equal", iota(c, n), i), DBL);
}

/* a bool [m, n] constant: the entries (r, q) with r > q + d (d -1: on
 * and below the diagonal; 0: strictly below) */
static struct ir_value *below_mask(struct lower_ctx *c, int64_t m, int64_t n,
				   int64_t d)
{
	int64_t dims[2] = { m, n };
	double *v = ir_alloc(c->g, sizeof(*v) * (size_t)(m * n + 1));
	for (int64_t r = 0; r < m; r++)
		for (int64_t q = 0; q < n; q++)
			v[r * n + q] = r > q + d;
	return b_cast(c, b_const_reals(c, v, dims, 2, IR_DTYPE_FLOAT),
		      IR_DTYPE_BOOL);
}

static struct ir_value *eye(struct lower_ctx *c, int64_t m, int64_t n)
{
	int64_t dims[2] = { m, n };
	double *v = ir_alloc(c->g, sizeof(*v) * (size_t)(m * n + 1));
	for (int64_t r = 0; r < m; r++)
		for (int64_t q = 0; q < n; q++)
			v[r * n + q] = r == q;
	return b_const_reals(c, v, dims, 2, DBL);
}


/* Shape(x)[:-2] ++ tail: a 1-d Long */
static struct ir_value *batch_shape(struct lower_ctx *c, struct ir_value *x,
				    const int64_t *tail, int nt)
{
	struct ir_value *in[2] = {
		b_slice(c, b_op1(c, "Shape", x), 0, -2, 0, 1),
		b_const_i64s(c, tail, nt, 1),
	};
	return b_concat(c, 2, in, 0);
}

/* v (built of Shape(like)) gets like's type, its last `drop` dims
 * dropped and then its last two dims (d1 < 0: only the last) fixed to d1,
 * d2: what build.c's inference cannot know of a shape computed at run
 * time, needed by the Loop's carried values */
static struct ir_value *typed_like(struct lower_ctx *c, struct ir_value *v,
				   const struct ir_value *like, int drop,
				   int64_t d1, int64_t d2)
{
	struct ir_type *t = ir_type_copy(c->g, like->type);
	struct ir_dim f = { IR_DIM_FIXED, 0, NULL };

	if (t->kind != IR_TYPE_TENSOR || t->rank < 2)
		return v;
	t->rank -= drop;
	t->dtype = DBL;
	if (d1 >= 0) {
		f.value = d1;
		t->dims[t->rank - 2] = f;
	}
	f.value = d2;
	t->dims[t->rank - 1] = f;
	v->type = t;
	return v;
}

/* an empty [0] of dtype dt: torch's "not computed" outputs */
static struct ir_value *empty(struct lower_ctx *c, enum ir_dtype dt)
{
	int64_t zero = 0, dummy = 0;
	if (dt == IR_DTYPE_INT64)
		return b_const_i64_shaped(c, &dummy, 0, &zero, 1);
	return b_const_reals(c, NULL, &zero, 1, dt);
}

/* x as a batch of matrices with fixed dims m, n in doubles; 1 declined */
static int mats(struct lower_ctx *c, struct ir_value *x, struct ir_value **d,
		int64_t *m, int64_t *n)
{
	if (!x)
		return lw_decline(c, "the input is not a tensor");
	if (c->opset < 11)
		return lw_decline(c, "needs opset 11 (an ONNX Loop of Gathers "
				  "and Equal of doubles, TopK's largest)");
	if (b_rank(x) < 2 || b_rank(x) > 8)
		return lw_decline(c, "needs a known rank of 2 to 8");
	if (!b_is_float(b_dtype(x)))
		return lw_decline(c, "needs a float or double input");
	*m = b_dim_size(x, -2);
	*n = b_dim_size(x, -1);
	if (*m < 0 || *n < 0)
		return lw_decline(c, "only fixed matrix dims (the Loop's trip "
				  "count and rotation order are constants)");
	if (*m > ORTH_MAX_N || *n > ORTH_MAX_N)
		return lw_decline(c, "matrices of at most 256 rows and columns");
	*d = b_cast(c, x, DBL);
	return 0;
}

/* 1 when x has a fixed dim of 0: ONNX Runtime 1.30's reductions give an
 * empty input back unreduced, so the symbolics build such a case's output
 * from its shape alone */
static int known_empty(const struct ir_value *x)
{
	for (int i = 0; i < b_rank(x); i++)
		if (b_dim_size(x, i) == 0)
			return 1;
	return 0;
}

/* zeros of x's batch dims and then tail[nt], of dtype dt: the values of
 * an empty input's eigenvalues, singular values, ranks, pseudo-inverses */
static struct ir_value *zeros_of(struct lower_ctx *c, struct ir_value *x,
				 const int64_t *tail, int nt, enum ir_dtype dt)
{
	int64_t none = 0;
	return sym_fill_shape(c, batch_shape(c, x, nt ? tail : &none, nt), 0, dt);
}

/* --- Householder QR ---------------------------------------------------- */

struct qr_ctx {
	int64_t m, n, k;
	struct ir_value *v, *tau; /* orgqr: the reflectors, their taus */
};

/* v_j [..., m]: 1 at j, below_v's entries below it, 0 above */
static struct ir_value *reflector(struct lower_ctx *c, struct ir_value *j,
				  int64_t m, struct ir_value *below_v)
{
	struct ir_value *rows = iota(c, m);
	return b_op3(c, "Where", op2(c, "Equal", rows, j), dk(c, 1),
		     b_op3(c, "Where", op2(c, "Greater", rows, j), below_v,
			   dk(c, 0)));
}

/* H = I - tau v v^T applied from the left: x - tau v (v^T x) */
static struct ir_value *apply_h(struct lower_ctx *c, struct ir_value *x,
				struct ir_value *v, struct ir_value *tau)
{
	struct ir_value *w = op2(c, "MatMul", unsq(c, v, -2), x);
	return op2(c, "Sub", x, op2(c, "Mul", unsq(c, unsq(c, tau, -1), -1),
				    op2(c, "Mul", unsq(c, v, -1), w)));
}

/* dgeqr2's step j: carried R [..., m, n], V [..., m, n] (the reflectors'
 * entries below the diagonal), tau [..., k] */
static void geqrf_body(struct lower_ctx *c, const void *ctx,
		       struct ir_value *j, struct ir_value **v,
		       struct ir_value **nv)
{
	const struct qr_ctx *q = ctx;
	struct ir_value *rows = iota(c, q->m);
	struct ir_value *col = gather(c, v[0], j, -1);
	struct ir_value *below = op2(c, "Greater", rows, j);
	struct ir_value *xb = b_op3(c, "Where", below, col, dk(c, 0));
	struct ir_value *alpha = b_op3(c, "Where", op2(c, "Equal", rows, j),
				       col, dk(c, 0));
	alpha = rsum(c, alpha, -1, 0);
	struct ir_value *xn2 = rsum(c, op2(c, "Mul", xb, xb), -1, 0);
	struct ir_value *nrm = b_op1(c, "Sqrt", op2(c, "Add",
				     op2(c, "Mul", alpha, alpha), xn2));
	struct ir_value *sgn = b_op3(c, "Where", op2(c, "Less", alpha, dk(c, 0)),
				     dk(c, -1), dk(c, 1));
	struct ir_value *beta = b_op1(c, "Neg", op2(c, "Mul", sgn, nrm));
	struct ir_value *zero = op2(c, "Equal", xn2, dk(c, 0));
	struct ir_value *bs = b_op3(c, "Where", zero, dk(c, 1), beta);
	struct ir_value *tau = b_op3(c, "Where", zero, dk(c, 0),
				     op2(c, "Div", op2(c, "Sub", bs, alpha), bs));
	struct ir_value *den = b_op3(c, "Where", zero, dk(c, 1),
				     op2(c, "Sub", alpha, beta));
	struct ir_value *vb = op2(c, "Div", xb, unsq(c, den, -1));
	struct ir_value *vj = reflector(c, j, q->m, vb);

	nv[0] = apply_h(c, v[0], vj, tau);
	nv[1] = op2(c, "Add", v[1], op2(c, "Mul", unsq(c, vb, -1),
					 onehot(c, j, q->n)));
	nv[2] = op2(c, "Add", v[2], op2(c, "Mul", unsq(c, tau, -1),
					 onehot(c, j, q->k)));
}

/* geqrf of the double a [..., m, n]: *packed (R on and above the
 * diagonal, the reflectors below) and *tau [..., k], doubles */
static void geqrf(struct lower_ctx *c, struct ir_value *a, int64_t m,
		  int64_t n, struct ir_value **packed, struct ir_value **tau)
{
	struct qr_ctx q = { m, n, m < n ? m : n, NULL, NULL };
	struct ir_value *init[3], *fin[3];

	init[0] = a;
	init[1] = typed_like(c, sym_fill_shape(c, b_op1(c, "Shape", a), 0, DBL),
			     a, 0, m, n);
	init[2] = typed_like(c, sym_fill_shape(c, batch_shape(c, a, &q.k, 1), 0,
					       DBL), a, 1, -1, q.k);
	b_loop(c, b_const_i64(c, q.k), 3, init, geqrf_body, &q, fin);
	*packed = b_op3(c, "Where", below_mask(c, m, n, 0), fin[1], fin[0]);
	*tau = fin[2];
}

/* dorg2r's step (k - 1 - it): Q = H_j Q */
static void orgqr_body(struct lower_ctx *c, const void *ctx,
		       struct ir_value *it, struct ir_value **v,
		       struct ir_value **nv)
{
	const struct qr_ctx *q = ctx;
	struct ir_value *j = op2(c, "Sub", b_const_i64(c, q->k - 1), it);
	struct ir_value *col = gather(c, q->v, j, -1);
	struct ir_value *vj = reflector(c, j, q->m, col);

	nv[0] = apply_h(c, v[0], vj, gather(c, q->tau, j, -1));
}

/* the first qc columns of H_0 ... H_{k-1} (reflectors in the double v
 * [..., m, vn], taus in the double tau [..., >= k]) */
static struct ir_value *orgqr(struct lower_ctx *c, struct ir_value *v,
			      struct ir_value *tau, int64_t m, int64_t k,
			      int64_t qc)
{
	struct qr_ctx q = { m, qc, k, v, tau };
	int64_t tail[2] = { m, qc };
	struct ir_value *init[1], *fin[1];

	init[0] = typed_like(c, op2(c, "Expand", eye(c, m, qc),
				    batch_shape(c, v, tail, 2)), v, 0, m, qc);
	b_loop(c, b_const_i64(c, k), 1, init, orgqr_body, &q, fin);
	return fin[0];
}

/* linalg_qr(A, mode), qr(A, some), geqrf(A) */
static SYM(sym_qr)
{
	struct ir_value *x = lw_tensor(c, n, 0), *a, *pk, *tau;
	int64_t m, nn, k, some = 1;
	int complete = 0, ronly = 0;
	enum ir_dtype dt;

	if (mats(c, x, &a, &m, &nn))
		return 1;
	dt = b_dtype(x);
	k = m < nn ? m : nn;
	if (n->op == OP_aten_qr && n->ninputs > 1) {
		if (!lw_int(c, n, 1, &some))
			return lw_decline(c, "some is not constant");
		complete = !some;
	} else if (n->op == OP_aten_linalg_qr && n->ninputs > 1) {
		const char *mode = lw_str(c, n, 1);
		if (!mode)
			return lw_decline(c, "mode is not a constant string");
		complete = !strcmp(mode, "complete");
		ronly = !strcmp(mode, "r");
		if (!complete && !ronly && strcmp(mode, "reduced"))
			return lw_decline(c, "mode is not 'reduced', 'complete' "
					  "or 'r'");
	}
	geqrf(c, a, m, nn, &pk, &tau);
	if (n->op == OP_aten_geqrf) {
		out[0] = b_cast(c, pk, dt);
		out[1] = b_cast(c, tau, dt);
		return 0;
	}
	int64_t rr = complete ? m : k;
	struct ir_value *r = b_op3(c, "Where", below_mask(c, m, nn, 0),
				   dk(c, 0), pk);
	if (rr < m)
		r = b_slice(c, r, 0, rr, b_rank(x) - 2, 1);
	out[0] = ronly ? empty(c, dt) :
		 b_cast(c, orgqr(c, pk, tau, m, k, complete ? m : k), dt);
	out[1] = b_cast(c, r, dt);
	return 0;
}

/* the reflectors (input 0) and taus (input 1) of householder_product and
 * ormqr: doubles, m, n, k; 1 declined */
static int refl_args(struct lower_ctx *c, struct ir_node *n,
		     struct ir_value **a, struct ir_value **tau, int64_t *m,
		     int64_t *nn, int64_t *k)
{
	struct ir_value *x = lw_tensor(c, n, 0), *t = lw_tensor(c, n, 1);
	if (mats(c, x, a, m, nn))
		return 1;
	if (!t || b_rank(t) != b_rank(x) - 1 || (*k = b_dim_size(t, -1)) < 0)
		return lw_decline(c, "tau's rank is not A's less one, or its "
				  "last dim is not fixed");
	if (*k > *nn || *nn > *m)
		return lw_decline(c, "expects A.shape[-2] >= A.shape[-1] >= "
				  "tau.shape[-1]");
	*tau = b_cast(c, t, DBL);
	return 0;
}

/* linalg_householder_product(A, tau) / orgqr */
static SYM(sym_householder_product)
{
	struct ir_value *a, *tau;
	int64_t m, nn, k;

	if (refl_args(c, n, &a, &tau, &m, &nn, &k))
		return 1;
	out[0] = b_cast(c, orgqr(c, a, tau, m, k, nn), b_dtype(lw_in(c, n, 0)));
	return 0;
}

/* ormqr(A, tau, C, left=True, transpose=False): op(Q) C or C op(Q) */
static SYM(sym_ormqr)
{
	struct ir_value *a, *tau, *q, *cc = lw_tensor(c, n, 2);
	int64_t m, nn, k, left = 1, tr = 0;

	if (refl_args(c, n, &a, &tau, &m, &nn, &k))
		return 1;
	if (!cc || b_rank(cc) != b_rank(a))
		return lw_decline(c, "other is not a tensor of A's rank");
	if ((n->ninputs > 3 && !lw_int(c, n, 3, &left)) ||
	    (n->ninputs > 4 && !lw_int(c, n, 4, &tr)))
		return lw_decline(c, "left or transpose is not constant");
	if (b_dim_size(cc, left ? -2 : -1) != m)
		return lw_decline(c, "other's rows (left) or columns (right) "
				  "are not A.shape[-2]");
	q = orgqr(c, a, tau, m, k, m);
	if (tr)
		q = b_swap_last2(c, q, b_rank(q));
	cc = b_cast(c, cc, DBL);
	out[0] = b_cast(c, left ? op2(c, "MatMul", q, cc) :
			   op2(c, "MatMul", cc, q), b_dtype(lw_in(c, n, 2)));
	return 0;
}

/* --- Jacobi ------------------------------------------------------------ */

struct jac_ctx {
	int64_t n;
	int one_sided, vectors;
	struct ir_value *pp, *qq; /* the rotation order: [L] Longs */
};

/* the rotation's (c, s) for z = num / (2 den): none where den is 0 */
static void rot_cs(struct lower_ctx *c, struct ir_value *num,
		   struct ir_value *den, struct ir_value **cs,
		   struct ir_value **sn)
{
	struct ir_value *zero = op2(c, "Equal", den, dk(c, 0));
	struct ir_value *ds = b_op3(c, "Where", zero, dk(c, 1), den);
	struct ir_value *z = op2(c, "Div", num, op2(c, "Add", ds, ds));
	struct ir_value *sg = b_op3(c, "Where", op2(c, "Less", z, dk(c, 0)),
				    dk(c, -1), dk(c, 1));
	struct ir_value *t = op2(c, "Div", sg, op2(c, "Add", b_op1(c, "Abs", z),
		b_op1(c, "Sqrt", op2(c, "Add", dk(c, 1), op2(c, "Mul", z, z)))));
	t = b_op3(c, "Where", zero, dk(c, 0), t);
	*cs = op2(c, "Div", dk(c, 1), b_op1(c, "Sqrt",
		  op2(c, "Add", dk(c, 1), op2(c, "Mul", t, t))));
	*sn = op2(c, "Mul", t, *cs);
}

/* the outer product [n, n] of the [n] a and b */
static struct ir_value *outer(struct lower_ctx *c, struct ir_value *a,
			      struct ir_value *b)
{
	return op2(c, "Mul", unsq(c, a, -1), unsq(c, b, 0));
}

/* the rotation J [..., n, n] (J_pp = J_qq = c, J_pq = s, J_qp = -s; the
 * transpose when tr) of the [...] c and s */
static struct ir_value *rotation(struct lower_ctx *c, struct ir_value *ep,
				 struct ir_value *eq, struct ir_value *cs,
				 struct ir_value *sn, int64_t n, int tr)
{
	struct ir_value *dpq = op2(c, "Add", outer(c, ep, ep), outer(c, eq, eq));
	struct ir_value *kpq = op2(c, "Sub", outer(c, ep, eq), outer(c, eq, ep));
	cs = unsq(c, unsq(c, cs, -1), -1);
	sn = unsq(c, unsq(c, sn, -1), -1);
	struct ir_value *j = op2(c, "Add", eye(c, n, n), op2(c, "Mul",
				 op2(c, "Sub", cs, dk(c, 1)), dpq));
	return op2(c, tr ? "Sub" : "Add", j, op2(c, "Mul", sn, kpq));
}

/* one rotation: two-sided (A <- J^T A J) or one-sided (A <- A J, V <- V J) */
static void jacobi_body(struct lower_ctx *c, const void *ctx,
			struct ir_value *it, struct ir_value **v,
			struct ir_value **nv)
{
	const struct jac_ctx *jc = ctx;
	struct ir_value *p = gather(c, jc->pp, it, 0);
	struct ir_value *q = gather(c, jc->qq, it, 0);
	struct ir_value *ep = onehot(c, p, jc->n), *eq = onehot(c, q, jc->n);
	struct ir_value *num, *den, *cs, *sn, *j;

	if (jc->one_sided) {
		struct ir_value *ap = gather(c, v[0], p, -1);
		struct ir_value *aq = gather(c, v[0], q, -1);
		num = op2(c, "Sub", rsum(c, op2(c, "Mul", aq, aq), -1, 0),
			  rsum(c, op2(c, "Mul", ap, ap), -1, 0));
		den = rsum(c, op2(c, "Mul", ap, aq), -1, 0);
	} else {
		struct ir_value *rp = gather(c, v[0], p, -2);
		struct ir_value *rq = gather(c, v[0], q, -2);
		num = op2(c, "Sub", rsum(c, op2(c, "Mul", rq, eq), -1, 0),
			  rsum(c, op2(c, "Mul", rp, ep), -1, 0));
		den = rsum(c, op2(c, "Mul", rp, eq), -1, 0);
	}
	rot_cs(c, num, den, &cs, &sn);
	j = rotation(c, ep, eq, cs, sn, jc->n, 0);
	nv[0] = op2(c, "MatMul", v[0], j);
	if (!jc->one_sided)
		nv[0] = op2(c, "MatMul", rotation(c, ep, eq, cs, sn, jc->n, 1),
			    nv[0]);
	if (jc->vectors)
		nv[1] = op2(c, "MatMul", v[1], j);
}

/* JACOBI_SWEEPS(n) cyclic sweeps on the double a [..., m, n] (two-sided: m
 * = n, symmetric); *fin the last A (and with vectors, fin[1] V) */
static void jacobi(struct lower_ctx *c, struct ir_value *a, int64_t n,
		   int one_sided, int vectors, struct ir_value **fin)
{
	size_t cnt = (size_t)(JACOBI_SWEEPS(n) * n * (n - 1) / 2 + 1);
	int64_t *pp = ir_alloc(c->g, sizeof(*pp) * cnt);
	int64_t *qq = ir_alloc(c->g, sizeof(*qq) * cnt);
	int64_t tail[2] = { n, n };
	int l = 0;
	struct jac_ctx jc = { n, one_sided, vectors, NULL, NULL };
	struct ir_value *init[2];

	for (int s = 0; s < JACOBI_SWEEPS(n); s++)
		for (int64_t p = 0; p < n; p++)
			for (int64_t q = p + 1; q < n; q++) {
				pp[l] = p;
				qq[l++] = q;
			}
	if (!l) {
		fin[0] = a;
		if (vectors)
			fin[1] = typed_like(c, op2(c, "Expand", eye(c, n, n),
					       batch_shape(c, a, tail, 2)), a, 0, n, n);
		return;
	}
	jc.pp = b_const_i64s(c, pp, l, 1);
	jc.qq = b_const_i64s(c, qq, l, 1);
	init[0] = a;
	if (vectors)
		init[1] = typed_like(c, op2(c, "Expand", eye(c, n, n),
					    batch_shape(c, a, tail, 2)), a, 0, n, n);
	b_loop(c, b_const_i64(c, l), vectors ? 2 : 1, init,
		       jacobi_body, &jc, fin);
}

/* x [..., k] sorted along its last axis (ascending unless down) */
static struct ir_value *sorted(struct lower_ctx *c, struct ir_value *x,
			       int64_t k, int down)
{
	struct ir_value *in[2] = { x, b_const_i64s(c, &k, 1, 1) };
	struct ir_node *nd = b_node(c, "TopK", 2, in, 2);
	b_attr_i(c, nd, "axis", -1);
	b_attr_i(c, nd, "largest", down);
	b_attr_i(c, nd, "sorted", 1);
	return b_done(c, nd);
}

/* a [..., n, n] symmetric from its lower (or upper) triangle */
static struct ir_value *symmetric(struct lower_ctx *c, struct ir_value *a,
				  int64_t n, int upper)
{
	struct ir_value *low = below_mask(c, n, n, -1);
	return upper ? b_op3(c, "Where", low, b_swap_last2(c, a, b_rank(a)), a) :
		       b_op3(c, "Where", low, a, b_swap_last2(c, a, b_rank(a)));
}

/* the eigenvalues of x (its lower or upper triangle mirrored): the
 * diagonal after Jacobi, ascending; 1 declined */
static int eigvals(struct lower_ctx *c, struct ir_value *x, int upper,
		   struct ir_value **out)
{
	struct ir_value *a, *fin[1];
	int64_t m, nn;

	if (mats(c, x, &a, &m, &nn))
		return 1;
	if (m != nn)
		return lw_decline(c, "A must be batches of square matrices");
	if (known_empty(x)) {
		out[0] = zeros_of(c, x, &nn, 1, b_dtype(x));
		return 0;
	}
	if (nn > JACOBI_MAX_N)
		return lw_decline(c, "eigenvalues of matrices above 16 x 16 "
				  "(Jacobi's sweeps are measured up to 16)");
	jacobi(c, symmetric(c, a, nn, upper), nn, 0, 0, fin);
	out[0] = b_cast(c, sorted(c, rsum(c, op2(c, "Mul", fin[0], eye(c, nn, nn)),
					  -1, 0), nn, 0), b_dtype(x));
	return 0;
}

/* linalg_eigvalsh(A, UPLO='L') */
static SYM(sym_eigvalsh)
{
	const char *uplo = n->ninputs > 1 ? lw_str(c, n, 1) : "L";

	if (!uplo || (strcmp(uplo, "L") && strcmp(uplo, "U")))
		return lw_decline(c, "UPLO is not 'L' or 'U'");
	return eigvals(c, lw_tensor(c, n, 0), uplo[0] == 'U', out);
}

/* symeig(A, eigenvectors=False, upper=True) -> (eigenvalues, an empty
 * [0]); the eigenvectors refused */
static SYM(sym_symeig)
{
	int64_t vec = 0, upper = 1;

	if ((n->ninputs > 1 && !lw_int(c, n, 1, &vec)) ||
	    (n->ninputs > 2 && !lw_int(c, n, 2, &upper)))
		return lw_decline(c, "eigenvectors or upper is not constant");
	if (vec)
		return lw_decline(c, SYM_LAPACK_SIGNS);
	if (eigvals(c, lw_tensor(c, n, 0), (int)upper, out))
		return 1;
	out[1] = empty(c, b_dtype(lw_in(c, n, 0)));
	return 0;
}

/* One-sided Jacobi on the tall one of a and its transpose: u = A V
 * [..., cm, cn] (its columns s_i u_i), s2 [..., 1, cn] their squared
 * norms, v [..., cn, cn] (with vectors); *tr when a was wide */
struct svd_parts {
	struct ir_value *u, *s2, *v;
	int64_t k;
	int tr;
};

static int svd_parts(struct lower_ctx *c, struct ir_value *a, int64_t m,
		     int64_t n, int vectors, struct svd_parts *sp)
{
	struct ir_value *fin[2];

	sp->tr = m < n;
	sp->k = m < n ? m : n;
	if (sp->k > JACOBI_MAX_N)
		return lw_decline(c, "singular values of matrices whose smaller "
				  "dim is above 16 (Jacobi's sweeps are "
				  "measured up to 16)");
	jacobi(c, sp->tr ? b_swap_last2(c, a, b_rank(a)) : a, sp->k, 1, vectors,
	       fin);
	sp->u = fin[0];
	sp->v = vectors ? fin[1] : NULL;
	sp->s2 = rsum(c, op2(c, "Mul", sp->u, sp->u), -2, 1);
	return 0;
}

/* the singular values [..., k], descending */
static struct ir_value *svals(struct lower_ctx *c, const struct svd_parts *sp)
{
	int64_t ax = -2;
	return sorted(c, b_squeeze(c, b_op1(c, "Sqrt", sp->s2), &ax, 1), sp->k,
		      1);
}

int sym_svd_norm(struct lower_ctx *c, struct ir_value *x, char kind,
		 int64_t a0, int64_t a1, int keep, struct ir_value **out)
{
	int64_t perm[8], m, nn, ax = -1;
	int r = b_rank(x), k = 0;
	struct ir_value *a;
	struct svd_parts sp;

	if (r < 2 || r > 8)
		return lw_decline(c, "needs a known rank of 2 to 8");
	for (int i = 0; i < r; i++)
		if (i != a0 && i != a1)
			perm[k++] = i;
	perm[k++] = a0;
	perm[k++] = a1;
	if (mats(c, b_transpose(c, x, perm, r), &a, &m, &nn))
		return 1;
	if (known_empty(x) && kind != 'n')
		return lw_decline(c, "the 2-norm of an empty matrix");
	if (known_empty(x)) { /* the sum of no values: zeros */
		int64_t idx[8], ni = 0;
		double kept_d[8];
		struct ir_value *shp = b_op1(c, "Shape", x);
		for (int i = 0; i < r; i++) {
			kept_d[i] = i != a0 && i != a1;
			if (kept_d[i])
				idx[ni++] = i;
		}
		if (keep) {
			int64_t rr = r;
			shp = b_op3(c, "Where", b_cast(c, b_const_reals(c, kept_d,
				    &rr, 1, IR_DTYPE_FLOAT), IR_DTYPE_BOOL), shp,
				    b_const_i64(c, 1));
		} else {
			struct ir_value *in[2] = { shp, b_const_i64s(c, idx,
							(int)ni, 1) };
			struct ir_node *nd = b_node(c, "Gather", 2, in, 1);
			b_attr_i(c, nd, "axis", 0);
			shp = b_done(c, nd);
		}
		out[0] = sym_fill_shape(c, shp, 0, b_dtype(x));
		return 0;
	}
	if (svd_parts(c, a, m, nn, 0, &sp))
		return 1;
	struct ir_value *s = svals(c, &sp);
	s = b_reduce(c, kind == 'n' ? "ReduceSum" : kind == '2' ? "ReduceMax" :
		     "ReduceMin", s, &ax, 1, 0);
	if (keep) {
		int64_t u[2] = { a0 < a1 ? a0 : a1, a0 < a1 ? a1 : a0 };
		s = b_unsqueeze(c, s, u, 2);
	}
	out[0] = b_cast(c, s, b_dtype(x));
	return 0;
}

/* a tolerance input (None: NULL) as a double [..., 1, 1] */
static struct ir_value *tol_in(struct lower_ctx *c, struct ir_node *n, int i)
{
	struct ir_value *t;
	if (i >= (int)n->ninputs || lw_is_none(c, n, i) || !(t = lw_tensor(c, n, i)))
		return NULL;
	return unsq(c, unsq(c, b_cast(c, t, DBL), -1), -1);
}

/* torch's default rtol: eps(dtype) * max(m, n) */
static double eps_rtol(enum ir_dtype dt, int64_t m, int64_t n)
{
	return (dt == DBL ? 2.220446049250313e-16 : 1.1920928955078125e-07) *
	       (double)(m > n ? m : n);
}

/* the mask [..., 1, k] of the singular values above max(atol, rtol *
 * s_max), atol and rtol [..., 1, 1] or NULL (0) */
static struct ir_value *kept(struct lower_ctx *c, const struct svd_parts *sp,
			     struct ir_value *atol, struct ir_value *rtol)
{
	int64_t ax = -1;
	struct ir_value *s = b_op1(c, "Sqrt", sp->s2);
	struct ir_value *tol = rtol ? op2(c, "Mul", rtol, b_reduce(c, "ReduceMax",
					  s, &ax, 1, 1)) : dk(c, 0);
	if (atol)
		tol = op2(c, "Max", atol, tol);
	return op2(c, "Greater", s, tol);
}

/* the tolerances of matrix_rank / pinv: (atol, rtol, hermitian) or (tol
 * | rcond, hermitian), pinverse(rcond); 1 declined */
static int tol_args(struct lower_ctx *c, struct ir_node *n, int64_t m,
		    int64_t nn, struct ir_value **atol, struct ir_value **rtol,
		    int64_t *herm)
{
	enum ir_dtype dt = b_dtype(lw_in(c, n, 0));
	int three = n->ninputs >= 4;

	*herm = 0;
	*atol = *rtol = NULL;
	if (n->op == OP_aten_pinverse) {
		double rc = 1e-15;
		if (n->ninputs > 1 && !lw_float(c, n, 1, &rc))
			return lw_decline(c, "rcond is not constant");
		*rtol = dk(c, rc);
		return 0;
	}
	if (n->ninputs < 3 || !lw_int(c, n, three ? 3 : 2, herm))
		return lw_decline(c, "hermitian is not constant");
	if (!three) {
		struct ir_value *t = tol_in(c, n, 1);
		if (!t)
			return lw_decline(c, "the tolerance is not a number or "
					  "tensor");
		if (n->op == OP_aten_linalg_matrix_rank)
			*atol = t;
		else
			*rtol = t;
		return 0;
	}
	*atol = tol_in(c, n, 1);
	*rtol = tol_in(c, n, 2);
	if (!*rtol) {
		struct ir_value *def = dk(c, eps_rtol(dt, m, nn));
		*rtol = *atol ? b_op3(c, "Where", op2(c, "Greater", *atol,
				      dk(c, 0)), dk(c, 0), def) : def;
	}
	return 0;
}

/* pinv from the parts: V diag(kept / s^2) (A V)^T, transposed back */
static struct ir_value *pinv_of(struct lower_ctx *c, const struct svd_parts *sp,
				struct ir_value *keep)
{
	struct ir_value *s2 = b_op3(c, "Where", keep, sp->s2, dk(c, 1));
	struct ir_value *w = b_op3(c, "Where", keep, op2(c, "Div", dk(c, 1), s2),
				   dk(c, 0));
	struct ir_value *p = op2(c, "MatMul", op2(c, "Mul", sp->v, w),
				 b_swap_last2(c, sp->u, b_rank(sp->u)));
	return sp->tr ? b_swap_last2(c, p, b_rank(p)) : p;
}

/* linalg_svdvals, linalg_matrix_rank, linalg_pinv, pinverse */
static SYM(sym_svd_values)
{
	struct ir_value *x = lw_tensor(c, n, 0), *a, *atol = NULL, *rtol = NULL;
	int64_t m, nn, herm = 0, ax[2] = { -2, -1 };
	int rank = n->op == OP_aten_linalg_matrix_rank;
	struct svd_parts sp;

	if (mats(c, x, &a, &m, &nn))
		return 1;
	if (n->op != OP_aten_linalg_svdvals &&
	    tol_args(c, n, m, nn, &atol, &rtol, &herm))
		return 1;
	if (herm && m != nn)
		return lw_decline(c, "hermitian needs square matrices");
	if (known_empty(x)) {
		int64_t k = m < nn ? m : nn, pd[2] = { nn, m };
		out[0] = n->op == OP_aten_linalg_svdvals ?
			 zeros_of(c, x, &k, 1, b_dtype(x)) : rank ?
			 zeros_of(c, x, NULL, 0, IR_DTYPE_INT64) :
			 zeros_of(c, x, pd, 2, b_dtype(x));
		return 0;
	}
	if (herm)
		a = symmetric(c, a, nn, 0);
	if (svd_parts(c, a, m, nn, n->op != OP_aten_linalg_svdvals && !rank, &sp))
		return 1;
	if (n->op == OP_aten_linalg_svdvals)
		out[0] = b_cast(c, svals(c, &sp), b_dtype(x));
	else if (rank)
		out[0] = b_reduce(c, "ReduceSum", b_cast(c, kept(c, &sp, atol,
				  rtol), IR_DTYPE_INT64), ax, 2, 0);
	else
		out[0] = b_cast(c, pinv_of(c, &sp, kept(c, &sp, atol, rtol)),
				b_dtype(x));
	return 0;
}

/* svd(A, some=True, compute_uv=True) with compute_uv False: (U zeros
 * [..., m, m], S, V zeros [..., n, n]) as torch 1.13; the vectors refused */
static SYM(sym_svd)
{
	struct ir_value *x = lw_tensor(c, n, 0), *a;
	int64_t m, nn, k, uv = 1, du[2], dv[2];
	struct svd_parts sp;

	if (n->ninputs > 2 && !lw_int(c, n, 2, &uv))
		return lw_decline(c, "compute_uv is not constant");
	if (uv)
		return lw_decline(c, SYM_LAPACK_SIGNS);
	if (mats(c, x, &a, &m, &nn))
		return 1;
	k = m < nn ? m : nn;
	du[0] = du[1] = m;
	dv[0] = dv[1] = nn;
	out[0] = zeros_of(c, x, du, 2, b_dtype(x));
	out[2] = zeros_of(c, x, dv, 2, b_dtype(x));
	if (known_empty(x)) {
		out[1] = zeros_of(c, x, &k, 1, b_dtype(x));
		return 0;
	}
	if (svd_parts(c, a, m, nn, 0, &sp))
		return 1;
	out[1] = b_cast(c, svals(c, &sp), b_dtype(x));
	return 0;
}

/* nuclear_norm(A, keepdim) / nuclear_norm(A, dim, keepdim) */
static SYM(sym_nuclear_norm)
{
	struct ir_value *x = lw_tensor(c, n, 0);
	int64_t d[2] = { 0, 1 }, keep = 0;
	int r = x ? b_rank(x) : -1;

	if (n->ninputs > 2 ? lw_ints(c, n, 1, d, 2, 0) != 2 ||
			     !lw_int(c, n, 2, &keep) :
			     n->ninputs > 1 && !lw_int(c, n, 1, &keep))
		return lw_decline(c, "dim or keepdim is not constant");
	if (r < 2)
		return lw_decline(c, "needs a matrix of known rank");
	for (int i = 0; i < 2; i++)
		d[i] = d[i] < 0 ? d[i] + r : d[i];
	if (d[0] == d[1] || d[0] < 0 || d[1] < 0 || d[0] >= r || d[1] >= r)
		return lw_decline(c, "dims out of range or equal");
	return sym_svd_norm(c, x, 'n', d[0], d[1], (int)keep, out);
}

/* linalg_cond with p = +-1 or +-inf, as torch 1.13's _linalg_cond_helper:
 * norm(A, p) * norm(inv(A), p) (the inverse by getrf and getrs,
 * symbolic_linalg.c), a NaN product (0 times inf: a singular matrix) made
 * inf as torch's nan_to_num does */
static int cond_inv(struct lower_ctx *c, struct ir_value *x, double p,
		    struct ir_value **out)
{
	struct ir_value *inv, *na, *ni;
	int r = x ? b_rank(x) : -1;
	enum ir_dtype dt = x ? b_dtype(x) : IR_DTYPE_UNDEFINED;
	int64_t m = r >= 2 ? b_dim_size(x, -2) : -1;
	int64_t nn = r >= 2 ? b_dim_size(x, -1) : -1;
	if (r < 2 || (dt != IR_DTYPE_FLOAT && dt != IR_DTYPE_DOUBLE))
		return lw_decline(c, "expects a float32 or float64 tensor of "
				  "known rank 2 or more");
	if (m != nn || m < 0)
		return lw_decline(c, "p of 1, -1, inf, -inf needs square "
				  "matrices of known size (torch raises)");
	if (known_empty(x))
		return lw_decline(c, "an empty matrix");
	inv = sym_linalg_inverse(c, x, r);
	if (!inv || sym_matrix_norm(c, x, NULL, p, -2, -1, 0, &na) ||
	    sym_matrix_norm(c, inv, NULL, p, -2, -1, 0, &ni))
		return 1;
	struct ir_value *y = b_op2(c, "Mul", na, ni);
	out[0] = b_op3(c, "Where", b_op1(c, "IsNaN", y),
		       b_const_scalar(c, INFINITY, dt, 0), y);
	return 0;
}

/* linalg_cond(A, p=None) */
static SYM(sym_cond)
{
	struct ir_value *x = lw_tensor(c, n, 0), *a, *s, *u, *w;
	const char *sp = n->ninputs > 1 ? lw_str(c, n, 1) : NULL;
	double p = 2;
	int64_t m, nn, ax = -1;
	struct svd_parts pt;

	if (!sp && n->ninputs > 1 && !lw_is_none(c, n, 1) &&
	    !lw_float(c, n, 1, &p))
		return lw_decline(c, "p is not constant");
	if (!sp && (fabs(p) == 1 || isinf(p)))
		return cond_inv(c, x, p, out);
	if (sp ? strcmp(sp, "fro") && strcmp(sp, "nuc") : fabs(p) != 2)
		return lw_decline(c, "p other than None, +-1, +-2, +-inf, "
				  "'fro' or 'nuc'");
	if (mats(c, x, &a, &m, &nn))
		return 1;
	if (sp && m != nn)
		return lw_decline(c, "p 'fro' or 'nuc' needs square matrices");
	if (known_empty(x))
		return lw_decline(c, "an empty matrix");
	if (svd_parts(c, a, m, nn, 0, &pt))
		return 1;
	s = svals(c, &pt);
	if (!sp) {
		u = b_reduce(c, "ReduceMax", s, &ax, 1, 0);
		w = b_reduce(c, "ReduceMin", s, &ax, 1, 0);
		out[0] = b_cast(c, p > 0 ? op2(c, "Div", u, w) : op2(c, "Div", w, u),
				b_dtype(x));
		return 0;
	}
	if (sp[0] == 'f') {
		struct ir_value *s2 = op2(c, "Mul", s, s);
		u = b_op1(c, "Sqrt", b_reduce(c, "ReduceSum", s2, &ax, 1, 0));
		w = b_op1(c, "Sqrt", b_reduce(c, "ReduceSum",
			  op2(c, "Div", dk(c, 1), s2), &ax, 1, 0));
	} else {
		u = b_reduce(c, "ReduceSum", s, &ax, 1, 0);
		w = b_reduce(c, "ReduceSum", op2(c, "Div", dk(c, 1), s), &ax, 1, 0);
	}
	out[0] = b_cast(c, op2(c, "Mul", u, w), b_dtype(x));
	return 0;
}

/* linalg_lstsq(A, B, rcond=None, driver=None) -> (solution, residuals,
 * rank, singular_values), the minimum-norm solution pinv(A) B; the other
 * outputs as the driver gives them (ops_linalg_orth_host.c's op_lstsq);
 * gelsd and gelss with m > n declined: their residuals' shape depends on
 * whether every A has full rank */
static SYM(sym_lstsq)
{
	struct ir_value *x = lw_tensor(c, n, 0), *b = lw_tensor(c, n, 1), *a,
			*bd, *rtol, *keep, *sol;
	const char *drv = "gelsy";
	double rc = -1;
	int64_t m, nn, ax2[2] = { -2, -1 }, axm = -2, axl = -1;
	struct svd_parts sp;
	enum ir_dtype dt;

	if (mats(c, x, &a, &m, &nn))
		return 1;
	dt = b_dtype(x);
	if (!b || b_rank(b) < 1)
		return lw_decline(c, "B is not a tensor of known rank");
	if (known_empty(x) || known_empty(b))
		return lw_decline(c, "an empty A or B");
	if (n->ninputs > 2 && !lw_is_none(c, n, 2) && !lw_float(c, n, 2, &rc))
		return lw_decline(c, "rcond is not constant");
	if (n->ninputs > 3 && !lw_is_none(c, n, 3) && !(drv = lw_str(c, n, 3)))
		return lw_decline(c, "driver is not constant");
	if (strcmp(drv, "gelsy") && strcmp(drv, "gels") &&
	    strcmp(drv, "gelsd") && strcmp(drv, "gelss"))
		return lw_decline(c, "driver is not gels, gelsy, gelsd or gelss");
	int svd_drv = !strcmp(drv, "gelsd") || !strcmp(drv, "gelss");
	if (svd_drv && m > nn)
		return lw_decline(c, "gelsd and gelss with more rows than "
				  "columns: their residuals' shape depends on "
				  "whether every A has full rank");
	int vec = b_rank(b) == b_rank(x) - 1;
	bd = b_cast(c, b, DBL);
	if (vec)
		bd = unsq(c, bd, -1);
	rtol = dk(c, rc < 0 ? eps_rtol(dt, m, nn) : rc);
	if (svd_parts(c, a, m, nn, 1, &sp))
		return 1;
	keep = kept(c, &sp, NULL, rtol);
	sol = op2(c, "MatMul", pinv_of(c, &sp, keep), bd);
	out[0] = b_cast(c, vec ? b_squeeze(c, sol, &axl, 1) : sol, dt);
	if (!strcmp(drv, "gels") && m > nn) {
		struct ir_value *e = op2(c, "Sub", op2(c, "MatMul", a, sol), bd);
		e = b_reduce(c, "ReduceSum", op2(c, "Mul", e, e), &axm, 1, 0);
		out[1] = b_cast(c, vec ? b_squeeze(c, e, &axl, 1) : e, dt);
	} else {
		out[1] = empty(c, dt);
	}
	out[2] = strcmp(drv, "gels") ?
		 b_reduce(c, "ReduceSum", b_cast(c, keep, IR_DTYPE_INT64), ax2, 2, 0) :
		 empty(c, IR_DTYPE_INT64);
	out[3] = svd_drv ? b_cast(c, svals(c, &sp), dt) : empty(c, dt);
	return 0;
}

static const struct symbolic entries[] = {
	{ OP_aten_linalg_qr, 11, 0, SYM_PRIO_BASE, sym_qr },
	{ OP_aten_qr, 11, 0, SYM_PRIO_BASE, sym_qr },
	{ OP_aten_geqrf, 11, 0, SYM_PRIO_BASE, sym_qr },
	{ OP_aten_linalg_householder_product, 11, 0, SYM_PRIO_BASE,
	  sym_householder_product },
	{ OP_aten_orgqr, 11, 0, SYM_PRIO_BASE, sym_householder_product },
	{ OP_aten_ormqr, 11, 0, SYM_PRIO_BASE, sym_ormqr },
	{ OP_aten_linalg_eigvalsh, 11, 0, SYM_PRIO_BASE, sym_eigvalsh },
	{ OP_aten_symeig, 11, 0, SYM_PRIO_BASE, sym_symeig },
	{ OP_aten_svd, 11, 0, SYM_PRIO_BASE, sym_svd },
	{ OP_aten_linalg_svdvals, 11, 0, SYM_PRIO_BASE, sym_svd_values },
	{ OP_aten_linalg_matrix_rank, 11, 0, SYM_PRIO_BASE, sym_svd_values },
	{ OP_aten_linalg_pinv, 11, 0, SYM_PRIO_BASE, sym_svd_values },
	{ OP_aten_pinverse, 11, 0, SYM_PRIO_BASE, sym_svd_values },
	{ OP_aten_nuclear_norm, 11, 0, SYM_PRIO_BASE, sym_nuclear_norm },
	{ OP_aten_linalg_cond, 11, 0, SYM_PRIO_BASE, sym_cond },
	{ OP_aten_linalg_lstsq, 11, 0, SYM_PRIO_BASE, sym_lstsq },
};

const struct symbolic_table symbolic_linalg_orth_table = {
	entries, sizeof(entries) / sizeof(entries[0])
};

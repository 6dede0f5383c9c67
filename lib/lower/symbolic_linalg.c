/*
 * symbolic_linalg.c - the direct factorizations of torch's linear algebra
 * as ONNX Loops (issue 14): cholesky, linalg_cholesky(_ex),
 * cholesky_solve, cholesky_inverse, triangular_solve,
 * linalg_solve_triangular, linalg_lu_factor(_ex), _lu_with_info,
 * linalg_lu, lu_unpack, lu_solve, linalg_lu_solve, linalg_solve(_ex),
 * linalg_inv(_ex), linalg_tensorinv and linalg_tensorsolve (reshapes
 * around inv and solve).
 *
 * Each factorization is its n steps of row operations in one ONNX Loop
 * over k carrying the matrix [..., n, n] (any batch): the pivot row and
 * column taken by Gather, the rank-1 update by Mul/Sub, the written row,
 * column or entry put back by a Where over a mask of Range(n) == k (no
 * ScatterND, no Trilu).  Cholesky is the outer-product form (column k of
 * the remainder over the root of its pivot); LU is LAPACK getrf's partial
 * pivoting (ArgMax of |a| at or below row k: the first largest; the swap
 * by GatherElements; no scaling below a zero pivot; the multipliers as
 * the column times the pivot's reciprocal, as dgetrf2 scales) with
 * OpenBLAS getf2's sums (lu_body: float32 determinants bit for bit with
 * torch's up to 5x5); the
 * triangular solves are column-oriented substitution.  solve and inv are
 * getrf then getrs (the permutation from the pivots, then the two
 * triangular solves), as torch's linalg_solve and linalg_inv (a solve of
 * A X = I).  Results differ from torch's LAPACK only by rounding (LAPACK
 * blocks and reorders the same sums).  A matrix that is not positive
 * definite gives NaN from cholesky (torch raises); linalg_cholesky_ex's
 * info is LAPACK's, the 1-based order of the first pivot that is not
 * positive.  Range, GatherElements and Loop: opset 11 and up.
 * lib/trace/ops_linalg_host.c computes the same steps on the host.
 *
 * linalg_matrix_exp is torch's scaling and squaring with its Taylor forms
 * (lib/common/special_math.h): every form built, the one for each
 * matrix's 1-norm chosen by Where, degree 18's squarings in a Loop whose
 * trip count is the largest s at run time (a matrix squares while the
 * step is below its own s).
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "special_math.h"
#include "symbolic_common.h"

static struct ir_value *scal(struct lower_ctx *c, double v, enum ir_dtype dt)
{
	return b_const_scalar(c, v, dt, 0);
}

static struct ir_value *unsq(struct lower_ctx *c, struct ir_value *v,
			     int64_t axis)
{
	return b_unsqueeze(c, v, &axis, 1);
}

static struct ir_value *sq(struct lower_ctx *c, struct ir_value *v,
			   int64_t axis)
{
	return b_squeeze(c, v, &axis, 1);
}

/* v[..., i, ...] along axis (i 0-d: the axis goes) */
static struct ir_value *gather(struct lower_ctx *c, struct ir_value *v,
			       struct ir_value *i, int64_t axis)
{
	struct ir_node *g = b_node(c, "Gather", 2,
				   (struct ir_value *[]){ v, i }, 1);
	b_attr_i(c, g, "axis", axis);
	return b_done(c, g);
}

static struct ir_value *gather_el(struct lower_ctx *c, struct ir_value *v,
				  struct ir_value *i, int64_t axis)
{
	struct ir_node *g = b_node(c, "GatherElements", 2,
				   (struct ir_value *[]){ v, i }, 1);
	b_attr_i(c, g, "axis", axis);
	return b_done(c, g);
}

/* zeros of dtype dt shaped as x's batch (all but its last two dims) and
 * then the 1-d tail (NULL: none) */
static struct ir_value *batch_zeros(struct lower_ctx *c, struct ir_value *x,
				    int r, struct ir_value *tail,
				    enum ir_dtype dt)
{
	struct ir_value *s = b_slice(c, b_op1(c, "Shape", x), 0, r - 2, 0, 1);
	if (tail) {
		s = b_concat(c, 2, (struct ir_value *[]){ s, tail }, 0);
	}
	return sym_fill_shape(c, s, 0, dt);
}

/* b broadcast over a's batch: Expand to a's batch dims and b's last two
 * (Expand broadcasts both ways) */
static struct ir_value *bcast_to(struct lower_ctx *c, struct ir_value *b,
				 struct ir_value *a, int ra)
{
	static const int64_t ones[2] = { 1, 1 };
	struct ir_value *s = b_slice(c, b_op1(c, "Shape", a), 0, ra - 2, 0, 1);
	struct ir_value *shape = b_concat(c, 2, (struct ir_value *[]){
		s, b_const_i64s(c, ones, 2, 1) }, 0);
	return b_op2(c, "Expand", b, shape);
}

/* ---- the triangular solve: x [..., n, m] := T^-1 x, T [..., n, n] ---- */
struct tri {
	struct ir_value *t, *idx, *n1; /* n - 1, 0-d */
	int rt, rx, upper, unit;
	enum ir_dtype dt;
};

/* step it: k = it (lower) or n - 1 - it (upper); x_k /= t_kk; the rows on
 * the unsolved side less t_ik x_k */
static void tri_body(struct lower_ctx *c, const void *ctx,
		     struct ir_value *it, struct ir_value **v,
		     struct ir_value **nv)
{
	const struct tri *s = ctx;
	struct ir_value *k = s->upper ? b_op2(c, "Sub", s->n1, it) : it;
	struct ir_value *tcol = gather(c, s->t, k, s->rt - 1);
	struct ir_value *xk = gather(c, v[0], k, s->rx - 2);
	if (!s->unit)
		xk = b_op2(c, "Div", xk, unsq(c, gather(c, tcol, k, s->rt - 2),
					      s->rt - 2));
	struct ir_value *side = b_op2(c, s->upper ? "Less" : "Greater",
				      s->idx, k);
	struct ir_value *tc = b_op3(c, "Where", side, tcol, scal(c, 0, s->dt));
	struct ir_value *upd = b_op2(c, "Sub", v[0], b_op2(c, "Mul",
		unsq(c, tc, s->rt - 1), unsq(c, xk, s->rx - 2)));
	nv[0] = b_op3(c, "Where", unsq(c, b_op2(c, "Equal", s->idx, k), 1),
		      unsq(c, xk, s->rx - 2), upd);
}

/* T^-1 x (T lower or upper, unit diagonal when unit); x's batch already
 * T's broadcast with its own */
static struct ir_value *tri_solve(struct lower_ctx *c, struct ir_value *t,
				  int rt, struct ir_value *x, int rx,
				  int upper, int unit)
{
	struct ir_value *nn = b_dim(c, t, rt - 1), *fin;
	struct tri s = { t, sym_arange_count(c, nn),
			 b_op2(c, "Sub", nn, b_const_i64(c, 1)), rt, rx, upper,
			 unit, b_dtype(t) };
	b_loop(c, nn, 1, &x, tri_body, &s, &fin);
	return fin;
}

/* ---- Cholesky: the lower factor of a [..., n, n] (lower part read) ---- */
struct chol {
	struct ir_value *idx;
	int r;
	enum ir_dtype dt;
};

/* step k: d = m_kk; l = m[:, k] / sqrt(d) at rows >= k into L's column k;
 * m -= l l^T; info = k + 1 where d is not positive first */
static void chol_body(struct lower_ctx *c, const void *ctx,
		      struct ir_value *it, struct ir_value **v,
		      struct ir_value **nv)
{
	const struct chol *s = ctx;
	struct ir_value *col = gather(c, v[0], it, s->r - 1);
	struct ir_value *d = gather(c, col, it, s->r - 2);
	struct ir_value *lc = b_op2(c, "Div", col,
				    unsq(c, b_op1(c, "Sqrt", d), s->r - 2));
	lc = b_op3(c, "Where", b_op2(c, "Less", s->idx, it),
		   scal(c, 0, s->dt), lc);
	struct ir_value *lcol = unsq(c, lc, s->r - 1);
	nv[0] = b_op2(c, "Sub", v[0], b_op2(c, "Mul", lcol,
					   unsq(c, lc, s->r - 2)));
	nv[1] = b_op3(c, "Where", b_op2(c, "Equal", s->idx, it), lcol, v[1]);
	struct ir_value *bad = b_op2(c, "And",
		b_op2(c, "Equal", v[2], b_const_i64(c, 0)),
		b_op1(c, "Not", b_op2(c, "Greater", d, scal(c, 0, s->dt))));
	nv[2] = b_op3(c, "Where", bad, b_op2(c, "Add", it, b_const_i64(c, 1)),
		      v[2]);
}

static void cholesky_lower(struct lower_ctx *c, struct ir_value *a, int r,
			   struct ir_value **l, struct ir_value **info)
{
	struct ir_value *nn = b_dim(c, a, r - 1), *fin[3];
	enum ir_dtype dt = b_dtype(a);
	struct chol s = { sym_arange_count(c, nn), r, dt };
	struct ir_value *init[3] = {
		a, sym_fill_shape(c, b_op1(c, "Shape", a), 0, dt),
		batch_zeros(c, a, r, NULL, IR_DTYPE_INT64) };
	b_loop(c, nn, 3, init, chol_body, &s, fin);
	*l = fin[1];
	*info = b_cast(c, fin[2], IR_DTYPE_INT32);
}

/* ---- LU with partial pivoting of a [..., r, q] ---- */
struct lu {
	struct ir_value *ridx, *cidx, *kidx;
	int r;
	enum ir_dtype dt;
};

/* a * b + t rounded once for float (in double: the product is exact),
 * as OpenBLAS's FMA kernels sum; Mul and Add for double */
static struct ir_value *fma_acc(struct lower_ctx *c, struct ir_value *a,
				struct ir_value *b, struct ir_value *t,
				enum ir_dtype dt)
{
	if (dt != IR_DTYPE_FLOAT)
		return b_op2(c, "Add", t, b_op2(c, "Mul", a, b));
	struct ir_value *r = b_op2(c, "Add", b_op2(c, "Mul",
		b_cast(c, a, IR_DTYPE_DOUBLE), b_cast(c, b, IR_DTYPE_DOUBLE)),
		b_cast(c, t, IR_DTYPE_DOUBLE));
	return b_cast(c, r, IR_DTYPE_FLOAT);
}

/* Step k of getrf in OpenBLAS's order (its getf2, which torch's LAPACK
 * calls for small matrices, is left-looking: an entry of L or U is its
 * pivoted input less the sum of the products before it, that sum
 * accumulated by fused multiply-adds from 0 in k's order).  Carried: the
 * matrix v[0] (inputs, rows swapped, and the L and U entries made so
 * far), the pivots v[1], info v[2] and the sums v[3], to which step k
 * adds l_ik u_kj (fma_acc) for i, j > k. */
static void lu_body(struct lower_ctx *c, const void *ctx,
		    struct ir_value *it, struct ir_value **v,
		    struct ir_value **nv)
{
	const struct lu *s = ctx;
	int R = s->r;
	struct ir_value *m = v[0], *t = v[3], *zero = scal(c, 0, s->dt);
	struct ir_value *e = b_op2(c, "Sub", m, t);
	struct ir_value *col = gather(c, e, it, R - 1);        /* [..., r] */
	struct ir_value *a = b_op3(c, "Where", b_op2(c, "Less", s->ridx, it),
				   scal(c, -1, s->dt), b_op1(c, "Abs", col));
	struct ir_node *am = b_node(c, "ArgMax", 1, &a, 1);
	b_attr_i(c, am, "axis", R - 2);
	b_attr_i(c, am, "keepdims", 1);
	struct ir_value *p = b_done(c, am);                     /* [..., 1] */
	struct ir_value *eqk = unsq(c, b_op2(c, "Equal", s->ridx, it), 1);
	struct ir_value *eqp = unsq(c, b_op2(c, "Equal", s->ridx, p), R - 1);
	struct ir_value *sw[2] = { m, t };
	for (int i = 0; i < 2; i++) {
		struct ir_value *rowk = unsq(c, gather(c, sw[i], it, R - 2),
					     R - 2);
		struct ir_value *pi = b_op2(c, "Expand", unsq(c, p, R - 1),
					    b_op1(c, "Shape", rowk));
		struct ir_value *rowp = gather_el(c, sw[i], pi, R - 2);
		sw[i] = b_op3(c, "Where", eqk, rowp,
			      b_op3(c, "Where", eqp, rowk, sw[i]));
	}
	struct ir_value *e1 = b_op2(c, "Sub", sw[0], sw[1]);
	struct ir_value *prow = gather(c, e1, it, R - 2);      /* [..., q] */
	struct ir_value *d = gather(c, prow, it, R - 2);        /* [...] */
	struct ir_value *nz = b_op1(c, "Not", b_op2(c, "Equal", d, zero));
	struct ir_value *rd = b_op3(c, "Where", nz, b_op1(c, "Reciprocal", d),
				    scal(c, 1, s->dt));
	struct ir_value *below = b_op2(c, "Greater", s->ridx, it);
	struct ir_value *l = b_op3(c, "Where", below,
		b_op2(c, "Mul", gather(c, e1, it, R - 1), unsq(c, rd, R - 2)),
		zero);
	struct ir_value *rk = b_op3(c, "Where",
				    b_op2(c, "Greater", s->cidx, it), prow, zero);
	struct ir_value *lcol = unsq(c, l, R - 1);
	/* row k from column k on: U; column k below it: L */
	struct ir_value *urow = b_op2(c, "And", eqk, unsq(c, b_op1(c, "Not",
		b_op2(c, "Less", s->cidx, it)), 0));
	struct ir_value *m2 = b_op3(c, "Where", urow,
				    unsq(c, prow, R - 2), sw[0]);
	struct ir_value *at = b_op2(c, "And", unsq(c, below, 1),
				    b_op2(c, "Equal", s->cidx, it));
	nv[0] = b_op3(c, "Where", at, lcol, m2);
	nv[3] = fma_acc(c, lcol, unsq(c, rk, R - 2), sw[1], s->dt);
	nv[1] = b_op3(c, "Where", b_op2(c, "Equal", s->kidx, it),
		      b_op2(c, "Add", p, b_const_i64(c, 1)), v[1]);
	struct ir_value *first = b_op2(c, "And",
		b_op2(c, "Equal", v[2], b_const_i64(c, 0)), b_op1(c, "Not", nz));
	nv[2] = b_op3(c, "Where", first, b_op2(c, "Add", it, b_const_i64(c, 1)),
		      v[2]);
}

/* getrf of a [..., r, q] (rank R): LU, the 1-based pivots [..., min]
 * and info [...] (int64); the step count min(r, q) into *kk */
static void lu_factor(struct lower_ctx *c, struct ir_value *a, int R,
		      struct ir_value **lu, struct ir_value **piv,
		      struct ir_value **info, struct ir_value **kk)
{
	struct ir_value *rr = b_dim(c, a, R - 2), *qq = b_dim(c, a, R - 1);
	struct ir_value *k = b_op3(c, "Where", b_op2(c, "Less", rr, qq), rr, qq);
	struct ir_value *fin[4];
	struct lu s = { sym_arange_count(c, rr), sym_arange_count(c, qq),
			sym_arange_count(c, k), R, b_dtype(a) };
	struct ir_value *init[4] = {
		a, batch_zeros(c, a, R, unsq(c, k, 0), IR_DTYPE_INT64),
		batch_zeros(c, a, R, NULL, IR_DTYPE_INT64),
		sym_fill_shape(c, b_op1(c, "Shape", a), 0, b_dtype(a)) };
	b_loop(c, k, 4, init, lu_body, &s, fin);
	*lu = fin[0];
	*piv = fin[1];
	*info = fin[2];
	*kk = k;
}

/* ---- the permutation of getrf's pivots: perm[i] the row of A that is
 * row i of P^T A ---- */
struct perm {
	struct ir_value *piv, *ridx;
	int rp; /* the pivots' rank */
};

static void perm_body(struct lower_ctx *c, const void *ctx,
		      struct ir_value *it, struct ir_value **v,
		      struct ir_value **nv)
{
	const struct perm *s = ctx;
	struct ir_value *p = unsq(c, b_op2(c, "Sub", gather(c, s->piv, it,
		s->rp - 1), b_const_i64(c, 1)), s->rp - 1);      /* [..., 1] */
	struct ir_value *vk = unsq(c, gather(c, v[0], it, s->rp - 1), s->rp - 1);
	struct ir_value *vp = gather_el(c, v[0], p, s->rp - 1);
	nv[0] = b_op3(c, "Where", b_op2(c, "Equal", s->ridx, it), vp,
		      b_op3(c, "Where", b_op2(c, "Equal", s->ridx, p), vk,
			    v[0]));
}

/* perm [..., r] (int64) from the 1-based pivots piv [..., kk] (rank rp,
 * any integer dtype) of a matrix of rr rows */
static struct ir_value *lu_perm(struct lower_ctx *c, struct ir_value *piv,
				int rp, struct ir_value *rr)
{
	struct ir_value *ridx = sym_arange_count(c, rr), *fin;
	struct perm s = { b_cast(c, piv, IR_DTYPE_INT64), ridx, rp };
	struct ir_value *z = b_slice(c, b_op1(c, "Shape", piv), 0, rp - 1, 0, 1);
	struct ir_value *zs = b_concat(c, 2, (struct ir_value *[]){
		z, unsq(c, rr, 0) }, 0);
	struct ir_value *init = b_op2(c, "Add", ridx, sym_fill_shape(c,
		zs, 0, IR_DTYPE_INT64));
	b_loop(c, b_dim(c, piv, rp - 1), 1, &init, perm_body, &s, &fin);
	return fin;
}

/* P [..., r, r] of A = P L U: P[perm[j], j] = 1 */
static struct ir_value *perm_matrix(struct lower_ctx *c, struct ir_value *perm,
				    int rp, struct ir_value *rr,
				    enum ir_dtype dt)
{
	struct ir_value *ridx = unsq(c, sym_arange_count(c, rr), 1);
	return b_cast(c, b_op2(c, "Equal", ridx, unsq(c, perm, rp - 1)), dt);
}

/* A^-1 B (adjoint: A^-T B) from A's LU [..., n, n] (rank R) and perm;
 * b [..., n, m] (rank rb) has the batch of both */
static struct ir_value *lu_solve(struct lower_ctx *c, struct ir_value *lu,
				 int R, struct ir_value *perm,
				 struct ir_value *b, int rb, int adjoint)
{
	/* an empty system: x is b (ONNX Runtime refuses GatherElements of
	 * an empty permutation) */
	if (b_dim_size(lu, R - 1) == 0)
		return b;
	if (!adjoint) {
		struct ir_value *pi = b_op2(c, "Expand", unsq(c, perm, R - 1),
					    b_op1(c, "Shape", b));
		struct ir_value *y = gather_el(c, b, pi, rb - 2);
		y = tri_solve(c, lu, R, y, rb, 0, 1);
		return tri_solve(c, lu, R, y, rb, 1, 0);
	}
	struct ir_value *lt = b_swap_last2(c, lu, R);
	struct ir_value *y = tri_solve(c, lt, R, b, rb, 0, 0);
	y = tri_solve(c, lt, R, y, rb, 1, 1);
	return b_op2(c, "MatMul", perm_matrix(c, perm, R - 1, b_dim(c, lu, R - 1),
					      b_dtype(lu)), y);
}

/* a float matrix input: its rank (>= 2, known) and dtype; NULL declined */
static struct ir_value *mat_in(struct lower_ctx *c, struct ir_node *n, int i,
			       int *r)
{
	struct ir_value *x = lw_tensor(c, n, i);
	*r = x ? b_rank(x) : -1;
	enum ir_dtype dt = x ? b_dtype(x) : IR_DTYPE_UNDEFINED;
	if (!x || *r < 2 || (dt != IR_DTYPE_FLOAT && dt != IR_DTYPE_DOUBLE)) {
		lw_decline(c, "expects a float32 or float64 tensor of known "
			   "rank 2 or more");
		return NULL;
	}
	return x;
}

/* mat_in of a square matrix: fixed sizes that differ are declined as
 * torch refuses them (sizes not fixed: ONNX Runtime's Gathers fail) */
static struct ir_value *square_in(struct lower_ctx *c, struct ir_node *n,
				  int i, int *r)
{
	struct ir_value *x = mat_in(c, n, i, r);
	if (!x)
		return NULL;
	int64_t h = b_dim_size(x, *r - 2), w = b_dim_size(x, *r - 1);
	if (h >= 0 && w >= 0 && h != w) {
		lw_decline(c, "A must be batches of square matrices (torch "
			   "raises)");
		return NULL;
	}
	return x;
}

/* a constant bool at input i (absent or None: dflt); 0, or 1 declined */
static int flag(struct lower_ctx *c, struct ir_node *n, int i, int dflt,
		int *v)
{
	int64_t x;
	*v = dflt;
	if (i >= (int)n->ninputs || lw_is_none(c, n, i))
		return 0;
	if (!lw_int(c, n, i, &x))
		return lw_decline(c, "a flag that is not a constant");
	*v = x != 0;
	return 0;
}

/* the identity of a's last dim, dtype dt, [n, n] */
static struct ir_value *eye_of(struct lower_ctx *c, struct ir_value *a,
			       int r, enum ir_dtype dt)
{
	struct ir_value *idx = sym_arange_count(c, b_dim(c, a, r - 1));
	return b_cast(c, b_op2(c, "Equal", unsq(c, idx, 1), idx), dt);
}

/* cholesky(self, upper=False), linalg_cholesky(self, *, upper=False),
 * linalg_cholesky_ex(self, *, upper=False, check_errors=False) */
static SYM(sym_cholesky)
{
	int r, upper;
	struct ir_value *a = square_in(c, n, 0, &r), *l, *info;
	if (!a || flag(c, n, 1, 0, &upper))
		return 1;
	cholesky_lower(c, upper ? b_swap_last2(c, a, r) : a, r, &l, &info);
	out[0] = upper ? b_swap_last2(c, l, r) : l;
	if (n->noutputs > 1)
		out[1] = info;
	return 0;
}

/* cholesky_solve(self B, L, upper=False), cholesky_inverse(L,
 * upper=False): A = L L^T, X = L^-T L^-1 B (B = I) */
static SYM(sym_cholesky_solve)
{
	int inv = n->op == OP_aten_cholesky_inverse, r, rb, upper;
	struct ir_value *l = square_in(c, n, inv ? 0 : 1, &r), *b;
	if (!l || flag(c, n, inv ? 1 : 2, 0, &upper))
		return 1;
	if (upper)
		l = b_swap_last2(c, l, r);
	if (inv) {
		b = bcast_to(c, eye_of(c, l, r, b_dtype(l)), l, r);
		rb = r;
	} else if (!(b = mat_in(c, n, 0, &rb))) {
		return 1;
	} else {
		b = bcast_to(c, b, l, r);
		rb = rb > r ? rb : r;
	}
	b = tri_solve(c, l, r, b, rb, 0, 0);
	out[0] = tri_solve(c, b_swap_last2(c, l, r), r, b, rb, 1, 0);
	return 0;
}

/* triangular_solve(self B, A, upper=True, transpose=False,
 * unitriangular=False) -> (X, A); linalg_solve_triangular(A, B, *, upper,
 * left=True, unitriangular=False) */
static SYM(sym_triangular_solve)
{
	int old = n->op == OP_aten_triangular_solve, ra, rb;
	int upper, trans = 0, left = 1, unit;
	struct ir_value *a = square_in(c, n, old ? 1 : 0, &ra), *b, *x;
	if (!a || !(b = mat_in(c, n, old ? 0 : 1, &rb)))
		return 1;
	if (old ? flag(c, n, 2, 1, &upper) || flag(c, n, 3, 0, &trans) ||
		  flag(c, n, 4, 0, &unit)
		: flag(c, n, 2, 0, &upper) || flag(c, n, 3, 1, &left) ||
		  flag(c, n, 4, 0, &unit))
		return 1;
	struct ir_value *t = a;
	if (trans || !left) {
		t = b_swap_last2(c, a, ra);
		upper = !upper;
	}
	if (!left)
		b = b_swap_last2(c, b, rb);
	b = bcast_to(c, b, t, ra);
	rb = rb > ra ? rb : ra;
	x = tri_solve(c, t, ra, b, rb, upper, unit);
	out[0] = left ? x : b_swap_last2(c, x, rb);
	if (old && n->noutputs > 1)
		out[1] = b_op1(c, "Identity", a);
	return 0;
}

/* linalg_lu_factor(A, *, pivot=True) -> (LU, pivots int32),
 * linalg_lu_factor_ex and _lu_with_info -> (LU, pivots, info int32),
 * linalg_lu(A, *, pivot=True) -> (P, L, U); lu_unpack(LU, pivots,
 * unpack_data=True, unpack_pivots=True) -> (P, L, U) */
static SYM(sym_lu)
{
	int r, pivot, ud = 1, up = 1;
	int unpack = n->op == OP_aten_lu_unpack;
	struct ir_value *a = mat_in(c, n, 0, &r), *lu, *piv, *info, *kk;
	if (!a)
		return 1;
	if (unpack ? flag(c, n, 2, 1, &ud) || flag(c, n, 3, 1, &up)
		   : flag(c, n, 1, 1, &pivot))
		return 1;
	if (!unpack && !pivot)
		return lw_decline(c, "LU without pivoting (torch: CUDA only)");
	if (!ud || !up)
		return lw_decline(c, "lu_unpack without unpack_data or "
				  "unpack_pivots");
	if (unpack) {
		lu = a;
		piv = lw_tensor(c, n, 1);
		if (!piv || b_rank(piv) != r - 1)
			return lw_decline(c, "pivots of a rank other than "
					  "LU_data's less one");
	} else {
		lu_factor(c, a, r, &lu, &piv, &info, &kk);
		if (n->op != OP_aten_linalg_lu) {
			out[0] = lu;
			out[1] = b_cast(c, piv, IR_DTYPE_INT32);
			if (n->noutputs > 2)
				out[2] = b_cast(c, info, IR_DTYPE_INT32);
			return 0;
		}
	}
	int64_t rr = b_dim_size(a, r - 2), qq = b_dim_size(a, r - 1);
	if (rr < 0 || qq < 0)
		return lw_decline(c, "the matrix sizes are not fixed");
	int64_t k = rr < qq ? rr : qq;
	enum ir_dtype dt = b_dtype(a);
	struct ir_value *perm = lu_perm(c, piv, r - 1, b_dim(c, a, r - 2));
	out[0] = perm_matrix(c, perm, r - 1, b_dim(c, a, r - 2), dt);
	struct ir_value *ls = k < qq ? b_slice(c, lu, 0, k, r - 1, 1) : lu;
	struct ir_value *us = k < rr ? b_slice(c, lu, 0, k, r - 2, 1) : lu;
	struct ir_value *zero = scal(c, 0, dt);
	struct ir_value *low = sym_tri_bool(c, ls, r - 2, ls, r - 1, -1, 0);
	struct ir_value *eye = sym_tri_bool(c, ls, r - 2, ls, r - 1, 0, 1);
	struct ir_value *upm = sym_tri_bool(c, us, r - 2, us, r - 1, 0, 1);
	if (!low || !eye || !upm)
		return lw_decline(c, "the triangles' masks");
	eye = b_op2(c, "And", eye, sym_tri_bool(c, ls, r - 2, ls, r - 1, 0, 0));
	out[1] = b_op3(c, "Where", eye, scal(c, 1, dt),
		       b_op3(c, "Where", low, ls, zero));
	out[2] = b_op3(c, "Where", upm, us, zero);
	return 0;
}

/* lu_solve(self B, LU, pivots); linalg_lu_solve(LU, pivots, B, *,
 * left=True, adjoint=False) */
static SYM(sym_lu_solve)
{
	int old = n->op == OP_aten_lu_solve, r, rb, left = 1, adj = 0;
	struct ir_value *lu = square_in(c, n, old ? 1 : 0, &r), *b, *piv;
	if (!lu || !(b = mat_in(c, n, old ? 0 : 2, &rb)))
		return 1;
	if (!old && (flag(c, n, 3, 1, &left) || flag(c, n, 4, 0, &adj)))
		return 1;
	piv = lw_tensor(c, n, old ? 2 : 1);
	if (!piv || b_rank(piv) != r - 1)
		return lw_decline(c, "pivots of a rank other than LU's less one");
	if (!left) {
		b = b_swap_last2(c, b, rb);
		adj = !adj;
	}
	b = bcast_to(c, b, lu, r);
	rb = rb > r ? rb : r;
	struct ir_value *x = lu_solve(c, lu, r, lu_perm(c, piv, r - 1,
		b_dim(c, lu, r - 1)), b, rb, adj);
	out[0] = left ? x : b_swap_last2(c, x, rb);
	return 0;
}

/* A^-1 B (adjoint: A^-T B) by getrf and getrs; the info of getrf into
 * *info (int32) */
static struct ir_value *solve_lu(struct lower_ctx *c, struct ir_value *a,
				 int r, struct ir_value *b, int rb, int adj,
				 struct ir_value **info)
{
	struct ir_value *lu, *piv, *kk;
	lu_factor(c, a, r, &lu, &piv, info, &kk);
	*info = b_cast(c, *info, IR_DTYPE_INT32);
	b = bcast_to(c, b, a, r);
	rb = rb > r ? rb : r;
	return lu_solve(c, lu, r, lu_perm(c, piv, r - 1, b_dim(c, a, r - 1)),
			b, rb, adj);
}

/* linalg_solve(A, B, *, left=True), linalg_solve_ex(A, B, *, left=True,
 * check_errors=False) -> (X, info): B a vector when 1-d or of A's
 * shape less its last dim (torch's rule) */
static SYM(sym_linalg_solve)
{
	int r, rb, left;
	struct ir_value *a = square_in(c, n, 0, &r), *info;
	struct ir_value *b = lw_tensor(c, n, 1);
	if (!a || flag(c, n, 2, 1, &left))
		return 1;
	rb = b ? b_rank(b) : -1;
	if (rb < 1 || b_dtype(b) != b_dtype(a))
		return lw_decline(c, "B is not a tensor of A's dtype and known "
				  "rank");
	int vec = rb == 1;
	if (rb == r - 1) {
		int known = 1, same = 1;
		for (int i = 0; i < rb; i++) {
			int64_t x = b_dim_size(b, i), y = b_dim_size(a, i);
			known &= x >= 0 && y >= 0;
			same &= x == y;
		}
		if (!known)
			return lw_decline(c, "B of A's rank less one and sizes "
					  "not fixed (a vector or a matrix?)");
		vec = same;
	}
	if (vec) {
		b = unsq(c, b, rb);
		rb++;
	} else if (rb < 2) {
		return lw_decline(c, "B of rank below 2");
	}
	if (!left)
		b = b_swap_last2(c, b, rb);
	struct ir_value *x = solve_lu(c, a, r, b, rb, !left, &info);
	rb = rb > r ? rb : r;
	out[0] = vec ? sq(c, x, rb - 1) : left ? x : b_swap_last2(c, x, rb);
	if (n->noutputs > 1)
		out[1] = info;
	return 0;
}

void sym_linalg_lu_diag(struct lower_ctx *c, struct ir_value *a, int r,
			struct ir_value **diag, struct ir_value **odd)
{
	struct ir_value *lu, *piv, *info, *kk;
	lu_factor(c, b_swap_last2(c, a, r), r, &lu, &piv, &info, &kk);
	struct ir_value *nn = b_dim(c, a, r - 1);
	struct ir_value *ar = sym_arange_count(c, nn);
	/* [..., n, 1] of 0..n-1: U's diagonal by GatherElements */
	struct ir_value *shape = b_concat(c, 2, (struct ir_value *[]){
		b_slice(c, b_op1(c, "Shape", lu), 0, r - 1, 0, 1),
		b_const_i64s(c, (const int64_t[]){ 1 }, 1, 1) }, 0);
	struct ir_value *idx = b_op2(c, "Expand", unsq(c, ar, 1), shape);
	*diag = sq(c, gather_el(c, lu, idx, r - 1), r - 1);
	/* torch's lu_det_P: the pivots that are not their own row */
	struct ir_value *moved = b_cast(c, b_op1(c, "Not", b_op2(c, "Equal",
		piv, b_op2(c, "Add", ar, b_const_i64(c, 1)))), IR_DTYPE_INT64);
	int64_t ax = r - 2;
	struct ir_value *cnt = b_reduce(c, "ReduceSum", moved, &ax, 1, 0);
	*odd = b_op2(c, "Equal", b_op2(c, "Mod", cnt, b_const_i64(c, 2)),
		     b_const_i64(c, 1));
}

struct ir_value *sym_linalg_inverse(struct lower_ctx *c, struct ir_value *a,
				    int r)
{
	struct ir_value *info;
	enum ir_dtype dt = b_dtype(a);
	if (dt != IR_DTYPE_FLOAT && dt != IR_DTYPE_DOUBLE) {
		lw_decline(c, "the inverse of a matrix that is not float32 or "
			   "float64");
		return NULL;
	}
	return solve_lu(c, a, r, eye_of(c, a, r, dt), 2, 0, &info);
}

/* linalg_inv(A), linalg_inv_ex(A, *, check_errors=False) -> (inverse,
 * info), inverse(A): the solve of A X = I, as torch */
static SYM(sym_linalg_inv)
{
	int r;
	struct ir_value *a = square_in(c, n, 0, &r), *info;
	if (!a)
		return 1;
	out[0] = solve_lu(c, a, r, eye_of(c, a, r, b_dtype(a)), 2, 0, &info);
	if (n->noutputs > 1)
		out[1] = info;
	return 0;
}

/* sum_j k[j] p[j] of m matrices (k[j] 1: no Mul) */
static struct ir_value *mexp_comb(struct lower_ctx *c, struct ir_value *const *p,
				  const double *k, int m, enum ir_dtype dt)
{
	struct ir_value *y = NULL;
	for (int j = 0; j < m; j++) {
		struct ir_value *t = k[j] == 1 ? p[j] : b_op2(c, "Mul", p[j], scal(c, k[j], dt));
		y = y ? b_op2(c, "Add", y, t) : t;
	}
	return y;
}

/* Taylor form deg (1, 2, 4, 8, 12, 18) of the matrices a (identity i) as
 * special_math.h writes them */
static struct ir_value *mexp_taylor(struct lower_ctx *c, struct ir_value *i,
				    struct ir_value *a, int deg, enum ir_dtype dt)
{
	struct ir_value *P[5] = { i, a, b_op2(c, "MatMul", a, a) }, *B[5];
	static const double one[4] = { 1, 1, 1, 1 }, k2[3] = { 1, 1, 0.5 };
	static const double k4[3] = { 0.5, 1.0 / 6, 1.0 / 24 };
	const double *t = sf_mexp_t8;
	if (deg <= 2)
		return mexp_comb(c, P, deg == 1 ? one : k2, deg + 1, dt);
	if (deg == 4)
		return b_op2(c, "Add", mexp_comb(c, P, one, 2, dt),
			     b_op2(c, "MatMul", P[2], mexp_comb(c, P, k4, 3, dt)));
	if (deg == 8) {
		double k0[2] = { t[0], t[1] }, k1[2] = { t[2], 1 }, k3[4] = { t[3], t[4], t[5], t[6] };
		double k5[4] = { 1, 1, t[7], 1 };
		struct ir_value *a4 = b_op2(c, "MatMul", P[2], mexp_comb(c, P + 1, k0, 2, dt));
		struct ir_value *q4[2] = { P[2], a4 }, *q8[4] = { P[0], P[1], P[2], a4 };
		struct ir_value *a8 = b_op2(c, "MatMul", mexp_comb(c, q4, k1, 2, dt),
					    mexp_comb(c, q8, k3, 4, dt));
		struct ir_value *qy[4] = { P[0], P[1], P[2], a8 };
		return mexp_comb(c, qy, k5, 4, dt);
	}
	int m = deg == 12 ? 4 : 5, h = deg == 12 ? 2 : 3;
	P[3] = b_op2(c, "MatMul", a, P[2]);
	P[4] = b_op2(c, "MatMul", P[3], P[3]);
	for (int j = 0; j < m; j++)
		B[j] = mexp_comb(c, P, deg == 12 ? sf_mexp_t12[j] : sf_mexp_t18[j], m, dt);
	/* T12: B2 += B3 B3; T12 = B0 + (B1 + B2) B2.  T18: B3 += B0 B4;
	 * T18 = B1 + (B2 + B3) B3 */
	B[h] = b_op2(c, "Add", B[h], deg == 12 ? b_op2(c, "MatMul", B[3], B[3])
					       : b_op2(c, "MatMul", B[0], B[4]));
	return b_op2(c, "Add", B[h - 2], b_op2(c, "MatMul", b_op2(c, "Add", B[h - 1], B[h]), B[h]));
}

struct mexp_sq {
	struct ir_value *s; /* [..., 1, 1] squarings per matrix, dt */
	enum ir_dtype dt;
};

/* step it: the matrices whose s exceeds it squared */
static void mexp_sq_body(struct lower_ctx *c, const void *ctx,
			 struct ir_value *it, struct ir_value **v,
			 struct ir_value **nv)
{
	const struct mexp_sq *q = ctx;
	nv[0] = b_op3(c, "Where", b_op2(c, "Less", b_cast(c, it, q->dt), q->s),
		      b_op2(c, "MatMul", v[0], v[0]), v[0]);
}

/* linalg_matrix_exp(self), matrix_exp(self) (torch's mexp; a 1-by-1
 * matrix: Exp) */
static SYM(sym_matrix_exp)
{
	int r;
	struct ir_value *a = square_in(c, n, 0, &r), *y;
	if (!a)
		return 1;
	enum ir_dtype dt = b_dtype(a);
	const double *th = sf_mexp_theta[dt == IR_DTYPE_DOUBLE];
	int64_t ax[2] = { r - 2, r - 1 }, m1 = -1, nn = b_dim_size(a, r - 1);
	if (nn == 1) {
		out[0] = b_op1(c, "Exp", a);
		return 0;
	}
	struct ir_value *norm = b_reduce(c, "ReduceMax",
		b_reduce(c, "ReduceSum", b_op1(c, "Abs", a), &ax[0], 1, 1), &ax[1], 1, 1);
	struct ir_value *i = eye_of(c, a, r, dt);
	/* s = max(0, ceil(log2(norm / theta18))): Log over ln 2, then put
	 * right where rounding moved it across an integer (2^(s-1) < q <=
	 * 2^s); NaN gives 0, and at most 1100 (past double's range) */
	struct ir_value *q = b_op2(c, "Div", norm, scal(c, th[5], dt));
	struct ir_value *k = b_op1(c, "Ceil", b_op2(c, "Div", b_op1(c, "Log", q), scal(c, M_LN2, dt)));
	struct ir_value *two = scal(c, 2, dt), *one = scal(c, 1, dt);
	k = b_op3(c, "Where", b_op1(c, "Not", b_op2(c, "Greater", q,
						    b_op2(c, "Pow", two, b_op2(c, "Sub", k, one)))),
		  b_op2(c, "Sub", k, one), k);
	k = b_op3(c, "Where", b_op2(c, "Less", b_op2(c, "Pow", two, k), q), b_op2(c, "Add", k, one), k);
	k = b_op2(c, "Min", b_op3(c, "Where", b_op2(c, "Greater", k, scal(c, 0, dt)), k, scal(c, 0, dt)),
		  scal(c, 1100, dt));
	struct ir_value *ks[2] = { b_op2(c, "Reshape", k, b_const_i64s(c, &m1, 1, 1)),
				   b_const_scalar(c, 0, dt, 1) };
	struct ir_value *trip = b_cast(c, b_reduce(c, "ReduceMax", b_concat(c, 2, ks, 0), NULL, 0, 0),
				       IR_DTYPE_INT64);
	struct ir_value *t18 = mexp_taylor(c, i, b_op2(c, "Div", a, b_op2(c, "Pow", two, k)), 18, dt);
	struct mexp_sq sq_ctx = { k, dt };
	b_loop(c, trip, 1, &t18, mexp_sq_body, &sq_ctx, &y);
	y = b_op3(c, "Where", b_op2(c, "Less", norm, scal(c, th[4], dt)), mexp_taylor(c, i, a, 12, dt), y);
	static const int degs[4] = { 1, 2, 4, 8 };
	for (int j = 3; j >= 0; j--)
		y = b_op3(c, "Where", b_op1(c, "Not", b_op2(c, "Greater", norm, scal(c, th[j], dt))),
			  mexp_taylor(c, i, a, degs[j], dt), y);
	if (nn < 0)
		y = b_op3(c, "Where", b_op2(c, "Equal", b_dim(c, a, r - 1), b_const_i64(c, 1)),
			  b_op1(c, "Exp", a), y);
	out[0] = y;
	return 0;
}

/* linalg_tensorinv(self, ind=2), linalg_tensorsolve(self, other,
 * dims=None): reshapes around inv and solve, as torch's
 * LinearAlgebra.cpp (self's dims moved last by a Transpose); fixed
 * sizes */
static SYM(sym_tensor_inv_solve)
{
	int inv = n->op == OP_aten_linalg_tensorinv, r, rb = 0, nd = 0, rr = 0;
	int64_t ind = 2, dims[16], perm[16], shape[16], rshape[16], p = 1, q = 1;
	int used[16] = { 0 };
	struct ir_value *a = lw_tensor(c, n, 0), *b = NULL, *info, *x;
	r = a ? b_rank(a) : -1;
	if (r < 1 || r > 16 || (b_dtype(a) != IR_DTYPE_FLOAT &&
				b_dtype(a) != IR_DTYPE_DOUBLE))
		return lw_decline(c, "self is not a float32 or float64 tensor "
				  "of known rank");
	if (inv && n->ninputs > 1 && !lw_int(c, n, 1, &ind))
		return lw_decline(c, "ind is not a constant");
	if (!inv) {
		b = lw_tensor(c, n, 1);
		rb = b ? b_rank(b) : -1;
		if (rb < 0 || rb > r || b_dtype(b) != b_dtype(a))
			return lw_decline(c, "other is not a tensor of self's "
					  "dtype and known rank");
		if (n->ninputs > 2 && !lw_is_none(c, n, 2)) {
			nd = lw_ints(c, n, 2, dims, 16, 0);
			if (nd < 0)
				return lw_decline(c, "dims are not constant");
		}
	}
	for (int i = 0; i < nd; i++) {
		dims[i] = dims[i] < 0 ? dims[i] + r : dims[i];
		if (dims[i] < 0 || dims[i] >= r || used[dims[i]])
			return lw_decline(c, "dims out of range or repeated");
		used[dims[i]] = 1;
	}
	int k = 0;
	for (int i = 0; i < r; i++)
		if (!used[i])
			perm[k++] = i;
	for (int i = 0; i < nd; i++)
		perm[k++] = dims[i];
	for (int i = 0; i < r; i++)
		if ((shape[i] = b_dim_size(a, perm[i])) < 0)
			return lw_decline(c, "self's sizes are not fixed");
	if (inv) {
		if (ind <= 0 || ind > r)
			return lw_decline(c, "ind out of range");
		for (int i = (int)ind; i < r; i++)
			rshape[rr++] = shape[i], p *= shape[i];
		for (int i = 0; i < (int)ind; i++)
			rshape[rr++] = shape[i], q *= shape[i];
	} else {
		for (int i = rb; i < r; i++)
			rshape[rr++] = shape[i], p *= shape[i];
		for (int i = 0; i < rb; i++) {
			int64_t d = b_dim_size(b, i);
			if (d < 0)
				return lw_decline(c, "other's sizes are not fixed");
			q *= d;
		}
	}
	int64_t all = 1;
	for (int i = 0; i < r; i++)
		all *= shape[i];
	if (p != q || all != p * q)
		return lw_decline(c, "self is not square as a matrix (torch "
				  "raises)");
	if (nd)
		a = b_transpose(c, a, perm, r);
	int64_t sq2[2] = { p, p }, col[2] = { p, 1 };
	a = b_op2(c, "Reshape", a, b_const_i64s(c, sq2, 2, 1));
	b = inv ? eye_of(c, a, 2, b_dtype(a))
		: b_op2(c, "Reshape", b, b_const_i64s(c, col, 2, 1));
	x = solve_lu(c, a, 2, b, 2, 0, &info);
	out[0] = b_op2(c, "Reshape", x, b_const_i64s(c, rshape, rr, 1));
	return 0;
}

static const struct symbolic entries[] = {
	{ OP_aten_linalg_matrix_exp, 11, 0, SYM_PRIO_BASE, sym_matrix_exp },
	{ OP_aten_matrix_exp, 11, 0, SYM_PRIO_BASE, sym_matrix_exp },
	{ OP_aten_linalg_tensorinv, 11, 0, SYM_PRIO_BASE, sym_tensor_inv_solve },
	{ OP_aten_linalg_tensorsolve, 11, 0, SYM_PRIO_BASE,
	  sym_tensor_inv_solve },
	{ OP_aten_cholesky, 11, 0, SYM_PRIO_BASE, sym_cholesky },
	{ OP_aten_linalg_cholesky, 11, 0, SYM_PRIO_BASE, sym_cholesky },
	{ OP_aten_linalg_cholesky_ex, 11, 0, SYM_PRIO_BASE, sym_cholesky },
	{ OP_aten_cholesky_solve, 11, 0, SYM_PRIO_BASE, sym_cholesky_solve },
	{ OP_aten_cholesky_inverse, 11, 0, SYM_PRIO_BASE, sym_cholesky_solve },
	{ OP_aten_triangular_solve, 11, 0, SYM_PRIO_BASE, sym_triangular_solve },
	{ OP_aten_linalg_solve_triangular, 11, 0, SYM_PRIO_BASE,
	  sym_triangular_solve },
	{ OP_aten_linalg_lu_factor, 11, 0, SYM_PRIO_BASE, sym_lu },
	{ OP_aten_linalg_lu_factor_ex, 11, 0, SYM_PRIO_BASE, sym_lu },
	{ OP_aten__lu_with_info, 11, 0, SYM_PRIO_BASE, sym_lu },
	{ OP_aten_linalg_lu, 11, 0, SYM_PRIO_BASE, sym_lu },
	{ OP_aten_lu_unpack, 11, 0, SYM_PRIO_BASE, sym_lu },
	{ OP_aten_lu_solve, 11, 0, SYM_PRIO_BASE, sym_lu_solve },
	{ OP_aten_linalg_lu_solve, 11, 0, SYM_PRIO_BASE, sym_lu_solve },
	{ OP_aten_linalg_solve, 11, 0, SYM_PRIO_BASE, sym_linalg_solve },
	{ OP_aten_linalg_solve_ex, 11, 0, SYM_PRIO_BASE, sym_linalg_solve },
	{ OP_aten_linalg_inv, 11, 0, SYM_PRIO_BASE, sym_linalg_inv },
	{ OP_aten_linalg_inv_ex, 11, 0, SYM_PRIO_BASE, sym_linalg_inv },
	{ OP_aten_inverse, 11, 0, SYM_PRIO_BASE, sym_linalg_inv },
};

const struct symbolic_table symbolic_linalg_table = {
	entries, sizeof(entries) / sizeof(entries[0])
};

/*
 * ops_linalg_host.c - trace kernels on the host for the direct (finite)
 * factorizations of torch's linear algebra: cholesky and its solves and
 * inverse, the triangular solves, LU with partial pivoting (LAPACK's
 * getrf: the first largest |a| of the column below the diagonal), the
 * solves and inverses made of it.  Batched [..., n, n] inputs, float32 and
 * float64, the arithmetic in double, in the order lib/lower's ONNX Loops
 * compute it (symbolic_linalg.c), so a traced model's values are what the
 * exported one computes.  A matrix that is not positive definite gives
 * NaN from cholesky (torch raises; _ex's info says where it failed).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "special_math.h"
#include "trace_int.h"

/* a float matrix (rank >= 2) argument on the host as doubles */
static int mat_arg(struct trace_ctx *c, struct tval *v, const char *what,
		   struct gpu_tensor **t, double **h)
{
	if (tv_get_tensor(c, v, 0, t))
		return -1;
	if ((*t)->rank < 2 || ((*t)->dtype != IR_DTYPE_FLOAT &&
			       (*t)->dtype != IR_DTYPE_DOUBLE))
		return trace_error(c, "%s: expected a float32 or float64 "
				   "tensor of 2 or more dimensions", what);
	*h = trace_to_host(c, *t, IR_DTYPE_DOUBLE);
	return *h ? 0 : -1;
}

/* the broadcast of a's and b's batch dims (all but their last two) into
 * bd[*br], their count into *nb; -1 when they do not broadcast */
static int batch_bcast(const struct gpu_tensor *a, const struct gpu_tensor *b,
		       int64_t *bd, int *br, int64_t *nb)
{
	int ra = a->rank - 2, rb = b ? b->rank - 2 : 0;
	int r = ra > rb ? ra : rb;
	*nb = 1;
	for (int i = 0; i < r; i++) {
		int64_t x = i - (r - ra) >= 0 ? a->dims[i - (r - ra)] : 1;
		int64_t y = b && i - (r - rb) >= 0 ? b->dims[i - (r - rb)] : 1;
		if (x != y && x != 1 && y != 1)
			return -1;
		bd[i] = x == 1 ? y : x;
		*nb *= bd[i];
	}
	*br = r;
	return 0;
}

/* the index of batch entry bi (of the broadcast bd[br]) in t's batch */
static int64_t batch_at(const struct gpu_tensor *t, const int64_t *bd, int br,
			int64_t bi)
{
	int rt = t->rank - 2;
	int64_t off = 0, mul = 1;
	for (int i = br - 1; i >= 0; i--) {
		int64_t ix = bi % bd[i];
		bi /= bd[i];
		int j = i - (br - rt);
		if (j < 0)
			continue;
		off += (t->dims[j] == 1 ? 0 : ix) * mul;
		mul *= t->dims[j];
	}
	return off;
}

/* a [n, n] transposed in place */
static void transpose_sq(double *a, int64_t n)
{
	for (int64_t i = 0; i < n; i++)
		for (int64_t j = i + 1; j < n; j++) {
			double t = a[i * n + j];
			a[i * n + j] = a[j * n + i];
			a[j * n + i] = t;
		}
}

/* the lower Cholesky factor of a [n, n] (its lower triangle read) into l,
 * by the outer-product steps: column k of the remainder over the root of
 * its pivot; the 1-based order of the first pivot that is not positive,
 * 0 when none (then NaNs follow, as the ONNX form gives) */
static int64_t cholesky_lower(const double *a, int64_t n, double *l,
			      double *m)
{
	int64_t info = 0;
	memcpy(m, a, sizeof(*m) * (size_t)(n * n));
	memset(l, 0, sizeof(*l) * (size_t)(n * n));
	for (int64_t k = 0; k < n; k++) {
		double d = m[k * n + k];
		if (!info && !(d > 0))
			info = k + 1;
		double r = sqrt(d);
		for (int64_t i = k; i < n; i++)
			l[i * n + k] = m[i * n + k] / r;
		for (int64_t i = k; i < n; i++)
			for (int64_t j = k; j < n; j++)
				m[i * n + j] -= l[i * n + k] * l[j * n + k];
	}
	return info;
}

/* x [n, m] := the solution of T x = x, T [n, n] lower (upper: 0) or upper
 * triangular, its diagonal taken as 1 when unit; column by column as
 * symbolic_linalg.c's Loop */
static void tri_solve(const double *t, int64_t n, double *x, int64_t m,
		      int upper, int unit)
{
	for (int64_t s = 0; s < n; s++) {
		int64_t k = upper ? n - 1 - s : s;
		for (int64_t j = 0; j < m; j++) {
			if (!unit)
				x[k * m + j] /= t[k * n + k];
			for (int64_t i = 0; i < n; i++)
				if (upper ? i < k : i > k)
					x[i * m + j] -= t[i * n + k] * x[k * m + j];
		}
	}
}

/* LU with partial pivoting of a [r, q] in place (LAPACK's getrf: the
 * first largest |a| of column k at or below row k; no scaling below a
 * zero pivot); piv[min(r, q)] 1-based; the 1-based first zero pivot */
static int64_t lu_factor(double *a, int64_t r, int64_t q, int64_t *piv)
{
	int64_t kk = r < q ? r : q, info = 0;
	for (int64_t k = 0; k < kk; k++) {
		int64_t p = k;
		for (int64_t i = k + 1; i < r; i++)
			if (fabs(a[i * q + k]) > fabs(a[p * q + k]))
				p = i;
		piv[k] = p + 1;
		for (int64_t j = 0; j < q && p != k; j++) {
			double t = a[k * q + j];
			a[k * q + j] = a[p * q + j];
			a[p * q + j] = t;
		}
		double d = a[k * q + k];
		if (d == 0 && !info)
			info = k + 1;
		double rd = d != 0 ? 1 / d : 0;
		for (int64_t i = k + 1; i < r; i++) {
			double l = d != 0 ? a[i * q + k] * rd : a[i * q + k];
			a[i * q + k] = l;
			for (int64_t j = k + 1; j < q; j++)
				a[i * q + j] -= l * a[k * q + j];
		}
	}
	return info;
}

/* perm[r]: row i of P^T A is row perm[i] of A, from getrf's pivots */
static void lu_perm(const int64_t *piv, int64_t kk, int64_t r, int64_t *perm)
{
	for (int64_t i = 0; i < r; i++)
		perm[i] = i;
	for (int64_t k = 0; k < kk; k++) {
		int64_t p = piv[k] - 1, t;
		if (p < 0 || p >= r)
			continue;
		t = perm[k];
		perm[k] = perm[p];
		perm[p] = t;
	}
}

/* P, L, U (zeroed, [r, r], [r, kk], [kk, q]) of one r x q LU factor ab
 * with its pivots piv (1-based, kk = min(r, q) of them): A = P L U, so
 * P[perm[i], i] = 1 (perm: r entries of scratch) */
static void unpack_plu(const double *ab, const int64_t *piv, int64_t r,
		       int64_t q, int64_t *perm, double *pm, double *lo,
		       double *up)
{
	int64_t kk = r < q ? r : q;

	lu_perm(piv, kk, r, perm);
	for (int64_t i = 0; i < r; i++)
		pm[perm[i] * r + i] = 1;
	for (int64_t i = 0; i < r; i++)
		for (int64_t j = 0; j < kk; j++)
			lo[i * kk + j] = i == j ? 1 : i > j ? ab[i * q + j] : 0;
	for (int64_t i = 0; i < kk; i++)
		for (int64_t j = i; j < q; j++)
			up[i * q + j] = ab[i * q + j];
}

/* x [n, m] := the solution of A x = b (adjoint: A^T x = b) from A's LU
 * [n, n] and its permutation */
static void lu_solve_one(const double *lu, const int64_t *perm, int64_t n,
			 double *x, int64_t m, int adjoint, double *tmp)
{
	if (!adjoint) {
		for (int64_t i = 0; i < n; i++)
			memcpy(tmp + i * m, x + perm[i] * m,
			       sizeof(*x) * (size_t)m);
		memcpy(x, tmp, sizeof(*x) * (size_t)(n * m));
		tri_solve(lu, n, x, m, 0, 1);
		tri_solve(lu, n, x, m, 1, 0);
		return;
	}
	double *t = tmp + n * m;
	memcpy(t, lu, sizeof(*t) * (size_t)(n * n));
	transpose_sq(t, n);
	tri_solve(t, n, x, m, 0, 0);
	tri_solve(t, n, x, m, 1, 1);
	for (int64_t i = 0; i < n; i++)
		memcpy(tmp + perm[i] * m, x + i * m, sizeof(*x) * (size_t)m);
	memcpy(x, tmp, sizeof(*x) * (size_t)(n * m));
}

/* x [n, m] := a^-1 x (m 0: x := a^-1) by getrf (a [n, n] overwritten)
 * and getrs, piv [2n] and w [2n^2 + n m] the work; getrf's info */
static int64_t solve_one(double *a, int64_t n, double *x, int64_t m,
			 int64_t *piv, double *w)
{
	int64_t info = lu_factor(a, n, n, piv);
	lu_perm(piv, n, n, piv + n);
	if (!m) {
		m = n;
		for (int64_t i = 0; i < n * n; i++)
			x[i] = i / n == i % n;
	}
	lu_solve_one(a, piv + n, n, x, m, 0, w);
	return info;
}

static int64_t inv_one(double *a, int64_t n, double *x, int64_t *piv,
		       double *w)
{
	return solve_one(a, n, x, 0, piv, w);
}

int trace_inv_host(double *a, int64_t n)
{
	double *x = malloc(sizeof(*x) * (size_t)(n * n + 1));
	double *w = malloc(sizeof(*w) * (size_t)(n * n * 3 + 1));
	int64_t *piv = malloc(sizeof(*piv) * (size_t)(n * 2 + 1));
	if (!x || !w || !piv) {
		free(x); free(w); free(piv);
		return -1;
	}
	inv_one(a, n, x, piv, w);
	memcpy(a, x, sizeof(*a) * (size_t)(n * n));
	free(x); free(w); free(piv);
	return 0;
}

/* the output of dtype dt, batch bd[br] and matrix [r, q] from h */
static struct gpu_tensor *mat_out(struct trace_ctx *c, enum ir_dtype dt,
				  const int64_t *bd, int br, int64_t r,
				  int64_t q, int mat, const double *h)
{
	int64_t dims[GPU_MAX_DIMS];
	memcpy(dims, bd, sizeof(*dims) * (size_t)br);
	dims[br] = r;
	dims[br + 1] = q;
	return trace_from_host(c, dt, br + mat, dims, IR_DTYPE_DOUBLE, h);
}

/* outputs y[0..k) into out (freed on failure) */
static int outs(struct trace_ctx *c, struct tval **out, int nout,
		struct gpu_tensor **y, int k)
{
	int rc = 0;
	for (int i = 0; i < k; i++)
		if (!y[i])
			rc = -1;
	for (int i = 0; i < k; i++) {
		if (rc || i >= nout) {
			gpu_free(y[i]);
			continue;
		}
		if (trace_out(c, out + i, y[i]))
			rc = -1;
	}
	return rc;
}

/* an optional bool argument i (default dflt) */
static int opt_bool(struct trace_ctx *c, struct tval **in, int nin, int i,
		    int dflt, int *v)
{
	*v = dflt;
	if (i >= nin || in[i]->kind == TV_NONE)
		return 0;
	return tv_get_bool(c, in[i], v);
}

static int square(struct trace_ctx *c, const struct gpu_tensor *t,
		  const char *what)
{
	if (t->dims[t->rank - 1] != t->dims[t->rank - 2])
		return trace_error(c, "%s: A must be batches of square "
				   "matrices, but they are %lld by %lld "
				   "matrices", what,
				   (long long)t->dims[t->rank - 2],
				   (long long)t->dims[t->rank - 1]);
	return 0;
}

/* cholesky(self, upper=False), linalg_cholesky(self, *, upper=False),
 * linalg_cholesky_ex(self, *, upper=False, check_errors=False) -> (L,
 * info int32); cholesky_inverse(self, upper=False) */
static int op_cholesky(struct trace_ctx *c, const struct ir_node *n,
		       struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *a, *y[2] = { NULL, NULL };
	double *h, *r, *m, *e;
	int64_t bd[GPU_MAX_DIMS], nb, nn, *info;
	int br, upper, inv = n->op == OP_aten_cholesky_inverse;

	if (opt_bool(c, in, nin, 1, 0, &upper) ||
	    mat_arg(c, in[0], aten_op_name(n->op), &a, &h))
		return -1;
	if (square(c, a, aten_op_name(n->op)) ||
	    batch_bcast(a, NULL, bd, &br, &nb)) {
		free(h);
		return -1;
	}
	nn = a->dims[a->rank - 1];
	r = malloc(sizeof(*r) * (size_t)(nb * nn * nn + 1));
	m = malloc(sizeof(*m) * (size_t)(nn * nn * 2 + 1));
	info = malloc(sizeof(*info) * (size_t)(nb + 1));
	e = malloc(sizeof(*e) * (size_t)(nb + 1));
	if (!r || !m || !info || !e) {
		free(h); free(r); free(m); free(info); free(e);
		return trace_oom(c);
	}
	for (int64_t b = 0; b < nb; b++) {
		double *ab = h + b * nn * nn, *rb = r + b * nn * nn;
		if (inv) {
			/* A^-1 = L^-T L^-1, L the lower factor given */
			double *l = m + nn * nn;
			memcpy(l, ab, sizeof(*l) * (size_t)(nn * nn));
			if (upper)
				transpose_sq(l, nn);
			for (int64_t i = 0; i < nn * nn; i++)
				rb[i] = i / nn == i % nn;
			tri_solve(l, nn, rb, nn, 0, 0);
			transpose_sq(l, nn);
			tri_solve(l, nn, rb, nn, 1, 0);
			continue;
		}
		if (upper)
			transpose_sq(ab, nn);
		info[b] = cholesky_lower(ab, nn, rb, m);
		e[b] = (double)info[b];
		if (upper)
			transpose_sq(rb, nn);
	}
	y[0] = mat_out(c, a->dtype, bd, br, nn, nn, 2, r);
	int k = 1;
	if (n->op == OP_aten_linalg_cholesky_ex) {
		y[1] = mat_out(c, IR_DTYPE_INT32, bd, br, 0, 0, 0, e);
		k = 2;
	}
	free(h); free(r); free(m); free(info); free(e);
	return outs(c, out, nout, y, k);
}

/* the right-hand side B [..., n, m] as x [nb, n, m] over the broadcast
 * batch bd[br] of A and B */
static double *rhs_of(struct trace_ctx *c, const struct gpu_tensor *bt,
		      const double *hb, const int64_t *bd, int br,
		      int64_t nb, int64_t n, int64_t m)
{
	double *x = malloc(sizeof(*x) * (size_t)(nb * n * m + 1));
	if (!x) {
		trace_oom(c);
		return NULL;
	}
	for (int64_t b = 0; b < nb; b++) {
		int64_t o = batch_at(bt, bd, br, b);
		memcpy(x + b * n * m, hb + o * n * m,
		       sizeof(*x) * (size_t)(n * m));
	}
	return x;
}

/* x [nb, r, q] transposed per matrix (into t, then copied back) */
static int batch_transpose(struct trace_ctx *c, double *x, int64_t nb,
			   int64_t r, int64_t q)
{
	double *t = malloc(sizeof(*t) * (size_t)(r * q + 1));
	if (!t)
		return trace_oom(c);
	for (int64_t b = 0; b < nb; b++) {
		double *xb = x + b * r * q;
		for (int64_t i = 0; i < r; i++)
			for (int64_t j = 0; j < q; j++)
				t[j * r + i] = xb[i * q + j];
		memcpy(xb, t, sizeof(*t) * (size_t)(r * q));
	}
	free(t);
	return 0;
}

enum solve_kind { S_TRI, S_CHOL, S_LU, S_PLAIN };

/* The solves: triangular_solve(self B, A, upper=True, transpose=False,
 * unitriangular=False) -> (X, A); linalg_solve_triangular(A, B, *,
 * upper, left=True, unitriangular=False); cholesky_solve(self B, L,
 * upper=False); lu_solve(self B, LU, pivots); linalg_lu_solve(LU,
 * pivots, B, *, left=True, adjoint=False); linalg_solve(A, B, *,
 * left=True), linalg_solve_ex(...) -> (X, info). */
static int op_solve(struct trace_ctx *c, const struct ir_node *n,
		    struct tval **in, int nin, struct tval **out, int nout)
{
	enum aten_op op = n->op;
	enum solve_kind kind = op == OP_aten_triangular_solve ||
		op == OP_aten_linalg_solve_triangular ? S_TRI :
		op == OP_aten_cholesky_solve ? S_CHOL :
		op == OP_aten_lu_solve || op == OP_aten_linalg_lu_solve ? S_LU :
		S_PLAIN;
	int ia, ib, ip = -1, upper = 0, left = 1, trans = 0, unit = 0, vec = 0;
	struct gpu_tensor *a, *bt, *pt = NULL, *y[3] = { NULL, NULL, NULL };
	double *ha = NULL, *hb = NULL, *hp = NULL, *x = NULL, *w = NULL;
	int64_t bd[GPU_MAX_DIMS], nb, nn, m, *piv = NULL, *perm = NULL;
	double *info = NULL;
	int br, rc = -1, k = 1;
	const char *what = aten_op_name(op);

	switch (op) {
	case OP_aten_triangular_solve:
		ib = 0, ia = 1;
		if (opt_bool(c, in, nin, 2, 1, &upper) ||
		    opt_bool(c, in, nin, 3, 0, &trans) ||
		    opt_bool(c, in, nin, 4, 0, &unit))
			return -1;
		break;
	case OP_aten_linalg_solve_triangular:
		ia = 0, ib = 1;
		if (opt_bool(c, in, nin, 2, 0, &upper) ||
		    opt_bool(c, in, nin, 3, 1, &left) ||
		    opt_bool(c, in, nin, 4, 0, &unit))
			return -1;
		break;
	case OP_aten_cholesky_solve:
		ib = 0, ia = 1;
		if (opt_bool(c, in, nin, 2, 0, &upper))
			return -1;
		break;
	case OP_aten_lu_solve:
		ib = 0, ia = 1, ip = 2;
		break;
	case OP_aten_linalg_lu_solve:
		ia = 0, ip = 1, ib = 2;
		if (opt_bool(c, in, nin, 3, 1, &left) ||
		    opt_bool(c, in, nin, 4, 0, &trans))
			return -1;
		break;
	default:
		ia = 0, ib = 1;
		if (opt_bool(c, in, nin, 2, 1, &left))
			return -1;
		break;
	}
	if (mat_arg(c, in[ia], what, &a, &ha))
		return -1;
	if (tv_get_tensor(c, in[ib], 0, &bt) || square(c, a, what))
		goto done;
	nn = a->dims[a->rank - 1];
	/* linalg_solve's vector B: 1-d, or A's batch with one dim less */
	if (kind == S_PLAIN && (bt->rank == 1 ||
	    (bt->rank == a->rank - 1 && bt->dims[bt->rank - 1] == nn &&
	     !memcmp(bt->dims, a->dims,
		     sizeof(*bt->dims) * (size_t)(bt->rank - 1)))))
		vec = 1;
	if (bt->dtype != a->dtype || (!vec && bt->rank < 2)) {
		trace_error(c, "%s: expected B of A's dtype and of 2 or more "
			    "dimensions", what);
		goto done;
	}
	hb = trace_to_host(c, bt, IR_DTYPE_DOUBLE);
	if (!hb)
		goto done;
	{
		struct gpu_tensor bv = *bt;
		if (vec) {
			bv.rank = bt->rank + 1;
			bv.dims[bv.rank - 1] = 1;
		}
		if (batch_bcast(a, &bv, bd, &br, &nb)) {
			trace_error(c, "%s: the batch dims of A and B do not "
				    "broadcast", what);
			goto done;
		}
		/* B's rows and columns as the solve sees them (left=False:
		 * X A = B is A^T X^T = B^T) */
		int64_t br_ = bv.dims[bv.rank - 2], bc = bv.dims[bv.rank - 1];
		if ((left ? br_ : bc) != nn) {
			trace_error(c, "%s: incompatible shapes of A and B for "
				    "the equation", what);
			goto done;
		}
		x = rhs_of(c, &bv, hb, bd, br, nb, br_, bc);
		if (!x)
			goto done;
		m = left ? bc : br_;
		if (!left && batch_transpose(c, x, nb, br_, bc))
			goto done;
		if (!left)
			trans = !trans; /* A^T (or A back, adjoint) */
	}
	if (ip >= 0) {
		if (tv_get_tensor(c, in[ip], 0, &pt))
			goto done;
		if (pt->rank != a->rank - 1 || pt->dims[pt->rank - 1] != nn) {
			trace_error(c, "%s: expected pivots of LU's shape less "
				    "its last dim", what);
			goto done;
		}
		hp = trace_to_host(c, pt, IR_DTYPE_DOUBLE);
		if (!hp)
			goto done;
	}
	w = malloc(sizeof(*w) * (size_t)(nn * nn * 2 + nn * m + 1));
	piv = malloc(sizeof(*piv) * (size_t)(nn * 2 + 1));
	info = calloc((size_t)(nb + 1), sizeof(*info));
	if (!w || !piv || !info) {
		trace_oom(c);
		goto done;
	}
	perm = piv + nn;
	for (int64_t b = 0; b < nb; b++) {
		double *xb = x + b * nn * m, *t = w + nn * m;
		memcpy(t, ha + batch_at(a, bd, br, b) * nn * nn,
		       sizeof(*t) * (size_t)(nn * nn));
		switch (kind) {
		case S_TRI:
			if (trans) {
				transpose_sq(t, nn);
				upper = !upper;
			}
			tri_solve(t, nn, xb, m, upper, unit);
			if (trans)
				upper = !upper;
			break;
		case S_CHOL:
			/* A = L L^T: L^T (L x) ... as two triangular solves */
			if (upper)
				transpose_sq(t, nn);
			tri_solve(t, nn, xb, m, 0, 0);
			transpose_sq(t, nn);
			tri_solve(t, nn, xb, m, 1, 0);
			break;
		case S_LU:
			for (int64_t i = 0; i < nn; i++) {
				struct gpu_tensor pv = *pt;
				pv.rank = pt->rank + 1;
				pv.dims[pv.rank - 1] = 1;
				piv[i] = (int64_t)hp[(batch_at(&pv, bd, br, b) * nn) + i];
			}
			lu_perm(piv, nn, nn, perm);
			lu_solve_one(t, perm, nn, xb, m, trans, w);
			break;
		case S_PLAIN:
			if (!trans) {
				info[b] = (double)solve_one(t, nn, xb, m, piv, w);
				break;
			}
			info[b] = (double)lu_factor(t, nn, nn, piv);
			lu_perm(piv, nn, nn, perm);
			lu_solve_one(t, perm, nn, xb, m, trans, w);
			break;
		}
	}
	if (!left && batch_transpose(c, x, nb, nn, m))
		goto done;
	y[0] = vec ? mat_out(c, a->dtype, bd, br, nn, 0, 1, x)
		   : mat_out(c, a->dtype, bd, br, left ? nn : m,
			     left ? m : nn, 2, x);
	if (op == OP_aten_triangular_solve) {
		y[1] = trace_from_host(c, a->dtype, a->rank, a->dims,
				       IR_DTYPE_DOUBLE, ha);
		k = 2;
	} else if (op == OP_aten_linalg_solve_ex) {
		y[1] = mat_out(c, IR_DTYPE_INT32, bd, br, 0, 0, 0, info);
		k = 2;
	}
	rc = outs(c, out, nout, y, k);
done:
	free(ha); free(hb); free(hp); free(x); free(w); free(piv); free(info);
	return rc;
}

/* linalg_lu_factor(A, *, pivot=True) -> (LU, pivots int32),
 * linalg_lu_factor_ex and _lu_with_info -> (LU, pivots, info int32),
 * linalg_lu(A, *, pivot=True) -> (P, L, U); A [..., r, q] */
static int op_lu(struct trace_ctx *c, const struct ir_node *n,
		 struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *a, *y[3] = { NULL, NULL, NULL };
	double *h, *pv, *info, *pm = NULL, *lo = NULL, *up = NULL;
	int64_t bd[GPU_MAX_DIMS], nb, r, q, kk, *piv, *perm;
	int br, pivot, k;
	const char *what = aten_op_name(n->op);

	if (opt_bool(c, in, nin, 1, 1, &pivot) ||
	    mat_arg(c, in[0], what, &a, &h))
		return -1;
	if (!pivot) {
		free(h);
		return trace_error(c, "%s: LU without pivoting is not "
				   "implemented on the CPU", what);
	}
	batch_bcast(a, NULL, bd, &br, &nb);
	r = a->dims[a->rank - 2];
	q = a->dims[a->rank - 1];
	kk = r < q ? r : q;
	pv = malloc(sizeof(*pv) * (size_t)(nb * kk + 1));
	info = malloc(sizeof(*info) * (size_t)(nb + 1));
	piv = malloc(sizeof(*piv) * (size_t)(kk + r + 1));
	if (n->op == OP_aten_linalg_lu) {
		pm = calloc((size_t)(nb * r * r + 1), sizeof(*pm));
		lo = calloc((size_t)(nb * r * kk + 1), sizeof(*lo));
		up = calloc((size_t)(nb * kk * q + 1), sizeof(*up));
	}
	if (!pv || !info || !piv ||
	    (n->op == OP_aten_linalg_lu && (!pm || !lo || !up))) {
		free(h); free(pv); free(info); free(piv);
		free(pm); free(lo); free(up);
		return trace_oom(c);
	}
	perm = piv + kk;
	for (int64_t b = 0; b < nb; b++) {
		double *ab = h + b * r * q;
		info[b] = (double)lu_factor(ab, r, q, piv);
		for (int64_t i = 0; i < kk; i++)
			pv[b * kk + i] = (double)piv[i];
		if (pm)
			unpack_plu(ab, piv, r, q, perm, pm + b * r * r,
				   lo + b * r * kk, up + b * kk * q);
	}
	if (pm) {
		y[0] = mat_out(c, a->dtype, bd, br, r, r, 2, pm);
		y[1] = mat_out(c, a->dtype, bd, br, r, kk, 2, lo);
		y[2] = mat_out(c, a->dtype, bd, br, kk, q, 2, up);
		k = 3;
	} else {
		y[0] = mat_out(c, a->dtype, bd, br, r, q, 2, h);
		y[1] = mat_out(c, IR_DTYPE_INT32, bd, br, kk, 0, 1, pv);
		k = 2;
		if (n->op != OP_aten_linalg_lu_factor) {
			y[2] = mat_out(c, IR_DTYPE_INT32, bd, br, 0, 0, 0, info);
			k = 3;
		}
	}
	free(h); free(pv); free(info); free(piv); free(pm); free(lo); free(up);
	return outs(c, out, nout, y, k);
}

/* lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True) ->
 * (P, L, U) */
static int op_lu_unpack(struct trace_ctx *c, const struct ir_node *n,
			struct tval **in, int nin, struct tval **out,
			int nout)
{
	struct gpu_tensor *a, *pt, *y[3] = { NULL, NULL, NULL };
	double *h, *hp = NULL, *pm, *lo, *up;
	int64_t bd[GPU_MAX_DIMS], nb, r, q, kk, *piv, *perm;
	int br, ud, up_;

	if (opt_bool(c, in, nin, 2, 1, &ud) || opt_bool(c, in, nin, 3, 1, &up_))
		return -1;
	if (!ud || !up_)
		return trace_error(c, "lu_unpack: pt2onnx unpacks both the "
				   "data and the pivots");
	if (mat_arg(c, in[0], "lu_unpack", &a, &h))
		return -1;
	if (tv_get_tensor(c, in[1], 0, &pt) ||
	    !(hp = trace_to_host(c, pt, IR_DTYPE_DOUBLE))) {
		free(h);
		return -1;
	}
	batch_bcast(a, NULL, bd, &br, &nb);
	r = a->dims[a->rank - 2];
	q = a->dims[a->rank - 1];
	kk = r < q ? r : q;
	pm = calloc((size_t)(nb * r * r + 1), sizeof(*pm));
	lo = calloc((size_t)(nb * r * kk + 1), sizeof(*lo));
	up = calloc((size_t)(nb * kk * q + 1), sizeof(*up));
	piv = malloc(sizeof(*piv) * (size_t)(kk + r + 1));
	if (!pm || !lo || !up || !piv || gpu_numel(pt) != nb * kk) {
		free(h); free(hp); free(pm); free(lo); free(up); free(piv);
		return pm && lo && up && piv ? trace_error(c, "lu_unpack: "
			"the pivots do not match LU_data's shape")
			: trace_oom(c);
	}
	perm = piv + kk;
	for (int64_t b = 0; b < nb; b++) {
		const double *ab = h + b * r * q;
		for (int64_t i = 0; i < kk; i++)
			piv[i] = (int64_t)hp[b * kk + i];
		unpack_plu(ab, piv, r, q, perm, pm + b * r * r,
			   lo + b * r * kk, up + b * kk * q);
	}
	y[0] = mat_out(c, a->dtype, bd, br, r, r, 2, pm);
	y[1] = mat_out(c, a->dtype, bd, br, r, kk, 2, lo);
	y[2] = mat_out(c, a->dtype, bd, br, kk, q, 2, up);
	free(h); free(hp); free(pm); free(lo); free(up); free(piv);
	return outs(c, out, nout, y, 3);
}

/* linalg_inv(A), linalg_inv_ex(A, *, check_errors=False) -> (inverse,
 * info int32), inverse(A): the solve of A X = I (torch's way) */
static int op_inv(struct trace_ctx *c, const struct ir_node *n,
		  struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *a, *y[2] = { NULL, NULL };
	double *h, *x, *w, *info;
	int64_t bd[GPU_MAX_DIMS], nb, nn, *piv;
	int br, k = 1;

	if (mat_arg(c, in[0], aten_op_name(n->op), &a, &h))
		return -1;
	if (square(c, a, aten_op_name(n->op))) {
		free(h);
		return -1;
	}
	batch_bcast(a, NULL, bd, &br, &nb);
	nn = a->dims[a->rank - 1];
	x = malloc(sizeof(*x) * (size_t)(nb * nn * nn + 1));
	w = malloc(sizeof(*w) * (size_t)(nn * nn * 2 + 1));
	info = malloc(sizeof(*info) * (size_t)(nb + 1));
	piv = malloc(sizeof(*piv) * (size_t)(nn * 2 + 1));
	if (!x || !w || !info || !piv) {
		free(h); free(x); free(w); free(info); free(piv);
		return trace_oom(c);
	}
	for (int64_t b = 0; b < nb; b++)
		info[b] = (double)inv_one(h + b * nn * nn, nn, x + b * nn * nn,
					  piv, w);
	y[0] = mat_out(c, a->dtype, bd, br, nn, nn, 2, x);
	if (n->op == OP_aten_linalg_inv_ex) {
		y[1] = mat_out(c, IR_DTYPE_INT32, bd, br, 0, 0, 0, info);
		k = 2;
	}
	free(h); free(x); free(w); free(info); free(piv);
	return outs(c, out, nout, y, k);
}

/* c = a b of n by n matrices (c apart from a and b): each c[i, j] the
 * sum over k in ascending order from 0, as a dot product would add it,
 * but row by row of b (a column walk of b took minutes from n 1500) */
static void mexp_mm(int64_t n, const double *a, const double *b, double *c)
{
	for (int64_t i = 0; i < n; i++) {
		double *ci = c + i * n;
		for (int64_t j = 0; j < n; j++)
			ci[j] = 0;
		for (int64_t k = 0; k < n; k++) {
			double aik = a[i * n + k];
			const double *bk = b + k * n;
			for (int64_t j = 0; j < n; j++)
				ci[j] += aik * bk[j];
		}
	}
}

/* y = sum_j k[j] p[j] of m n-by-n matrices (k NULL: all 1) */
static void mexp_comb(int64_t n, double *y, double *const *p, const double *k,
		      int m)
{
	for (int64_t e = 0; e < n * n; e++) {
		double v = 0;
		for (int j = 0; j < m; j++)
			v += (k ? k[j] : 1) * p[j][e];
		y[e] = v;
	}
}

/* y = exp(a) of one n-by-n matrix as torch's mexp (special_math.h): the
 * form by a's 1-norm against float's (dbl 0) or double's thetas; w holds
 * 12 n-by-n matrices */
static void mexp_one(const double *a, int64_t n, int dbl, double *y, double *w)
{
	const double *th = sf_mexp_theta[dbl];
	int64_t nn = n * n, s = 0;
	double norm = 0, *P[5], *B[5], *t = w + 10 * nn, *u = w + 11 * nn;
	for (int i = 0; i < 5; i++) {
		P[i] = w + i * nn;
		B[i] = w + (5 + i) * nn;
	}
	for (int64_t j = 0; j < n; j++) {
		double cs = 0;
		for (int64_t i = 0; i < n; i++)
			cs += fabs(a[i * n + j]);
		norm = cs > norm || isnan(cs) ? cs : norm;
	}
	int deg = norm <= th[0] ? 1 : norm <= th[1] ? 2 : norm <= th[2] ? 4
		: norm <= th[3] ? 8 : norm < th[4] ? 12 : 18;
	if (deg == 18 && norm > th[5]) {
		s = (int64_t)ceil(log2(norm / th[5]));
		s = s < 0 ? 0 : s > 1100 ? 1100 : s;
	}
	for (int64_t e = 0; e < nn; e++) {
		P[0][e] = e % (n + 1) == 0;
		P[1][e] = a[e] / ldexp(1, (int)s);
	}
	mexp_mm(n, P[1], P[1], P[2]);
	mexp_mm(n, P[1], P[2], P[3]);
	mexp_mm(n, P[3], P[3], P[4]);
	if (deg <= 4) {
		static const double k2[3] = { 1, 1, 0.5 }, k4[3] = { 0.5, 1.0 / 6, 1.0 / 24 };
		mexp_comb(n, y, P, deg == 4 ? NULL : k2, deg == 1 ? 2 : deg == 2 ? 3 : 2);
		if (deg == 4) {
			mexp_comb(n, t, P, k4, 3);
			mexp_mm(n, P[2], t, u);
			for (int64_t e = 0; e < nn; e++)
				y[e] += u[e];
		}
	} else if (deg == 8) {
		const double *k = sf_mexp_t8;
		double k0[2] = { k[0], k[1] }, k1[2] = { k[2], 1 }, k3[4] = { k[3], k[4], k[5], k[6] };
		double k5[4] = { 1, 1, k[7], 1 };
		mexp_comb(n, t, P + 1, k0, 2);
		mexp_mm(n, P[2], t, B[0]);            /* A4 (over A^6: unused here) */
		double *q4[2] = { P[2], B[0] }, *q8[4] = { P[0], P[1], P[2], B[0] };
		mexp_comb(n, t, q4, k1, 2);
		mexp_comb(n, u, q8, k3, 4);
		mexp_mm(n, t, u, B[1]);               /* A8 */
		double *qy[4] = { P[0], P[1], P[2], B[1] };
		mexp_comb(n, y, qy, k5, 4);
	} else {
		int m = deg == 12 ? 4 : 5;
		for (int i = 0; i < m; i++)
			mexp_comb(n, B[i], P, deg == 12 ? sf_mexp_t12[i] : sf_mexp_t18[i], m);
		if (deg == 12)
			mexp_mm(n, B[3], B[3], t);     /* B2 += B3 B3 */
		else
			mexp_mm(n, B[0], B[4], t);     /* B3 += B0 B4 */
		double *bk = B[deg == 12 ? 2 : 3];
		for (int64_t e = 0; e < nn; e++) {
			bk[e] += t[e];
			u[e] = B[deg == 12 ? 1 : 2][e] + bk[e];
		}
		mexp_mm(n, u, bk, t);
		for (int64_t e = 0; e < nn; e++)
			y[e] = B[deg == 12 ? 0 : 1][e] + t[e];
	}
	for (int64_t p = 0; p < s; p++) {
		mexp_mm(n, y, y, t);
		memcpy(y, t, sizeof(*y) * (size_t)nn);
	}
}

/* linalg_matrix_exp(self), matrix_exp(self): the exponential of each
 * square matrix (a 1-by-1 one: exp), in double on the host */
static int op_matrix_exp(struct trace_ctx *c, const struct ir_node *n,
			 struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *a, *y;
	double *h, *x, *w;
	int64_t bd[GPU_MAX_DIMS], nb, nn;
	int br;

	(void)nin;
	if (mat_arg(c, in[0], "matrix_exp", &a, &h))
		return -1;
	if (square(c, a, "matrix_exp")) {
		free(h);
		return -1;
	}
	batch_bcast(a, NULL, bd, &br, &nb);
	nn = a->dims[a->rank - 1];
	x = malloc(sizeof(*x) * (size_t)(nb * nn * nn + 1));
	w = malloc(sizeof(*w) * (size_t)(12 * nn * nn + 1));
	if (!x || !w) {
		free(h); free(x); free(w);
		return trace_oom(c);
	}
	for (int64_t b = 0; b < nb; b++) {
		if (nn == 1)
			x[b] = exp(h[b]);
		else
			mexp_one(h + b * nn * nn, nn, a->dtype == IR_DTYPE_DOUBLE,
				 x + b * nn * nn, w);
	}
	y = mat_out(c, a->dtype, bd, br, nn, nn, 2, x);
	free(h); free(x); free(w);
	(void)n;
	return outs(c, out, nout, &y, 1);
}

/* linalg_tensorinv(self, ind=2): the inverse of self as a [prod
 * shape[ind:]] square matrix, shaped shape[ind:] + shape[:ind];
 * linalg_tensorsolve(self, other, dims=None): self with dims moved last,
 * as a square matrix, solved for other flattened, shaped
 * self.shape[other.dim():] (torch's LinearAlgebra.cpp) */
static int op_tensor_inv_solve(struct trace_ctx *c, const struct ir_node *n,
			       struct tval **in, int nin, struct tval **out,
			       int nout)
{
	int inv = n->op == OP_aten_linalg_tensorinv, nd = 0, r, rc = -1;
	struct gpu_tensor *a, *bt = NULL, *y;
	int64_t ind = 2, dims[GPU_MAX_DIMS], perm[GPU_MAX_DIMS],
		shape[GPU_MAX_DIMS], rshape[GPU_MAX_DIMS], p = 1, q = 1, *piv;
	double *h, *hb = NULL, *x = NULL, *w, *t;
	int rr = 0;

	if (tv_get_tensor(c, in[0], 0, &a))
		return -1;
	if (inv && nin > 1 && tv_get_int(c, in[1], &ind))
		return -1;
	if (!inv && (tv_get_tensor(c, in[1], 0, &bt) ||
		     (nin > 2 && in[2]->kind != TV_NONE &&
		      tv_get_ints(c, in[2], dims, GPU_MAX_DIMS, &nd))))
		return -1;
	r = a->rank;
	if ((a->dtype != IR_DTYPE_FLOAT && a->dtype != IR_DTYPE_DOUBLE) ||
	    (bt && bt->dtype != a->dtype) || (inv && (ind <= 0 || ind > r)) ||
	    (bt && bt->rank > r))
		return trace_error(c, "%s: expected float32 or float64 tensors "
				   "and a valid ind", aten_op_name(n->op));
	/* the order of self's dims: the others, then dims (movedim) */
	int k = 0, used[GPU_MAX_DIMS] = { 0 };
	for (int i = 0; i < nd; i++) {
		dims[i] = dims[i] < 0 ? dims[i] + r : dims[i];
		if (dims[i] < 0 || dims[i] >= r || used[dims[i]])
			return trace_error(c, "linalg_tensorsolve: bad dims");
		used[dims[i]] = 1;
	}
	for (int i = 0; i < r; i++)
		if (!used[i])
			perm[k++] = i;
	for (int i = 0; i < nd; i++)
		perm[k++] = dims[i];
	for (int i = 0; i < r; i++)
		shape[i] = a->dims[perm[i]];
	if (inv) {
		for (int i = (int)ind; i < r; i++)
			rshape[rr++] = shape[i], p *= shape[i];
		for (int i = 0; i < (int)ind; i++)
			rshape[rr++] = shape[i], q *= shape[i];
	} else {
		for (int i = bt->rank; i < r; i++)
			rshape[rr++] = shape[i], p *= shape[i];
		q = gpu_numel(bt);
	}
	if (p != q || gpu_numel(a) != p * q)
		return trace_error(c, "%s: expected self to satisfy the "
				   "requirement prod(shape) == prod of the "
				   "result's shape", aten_op_name(n->op));
	h = trace_to_host(c, a, IR_DTYPE_DOUBLE);
	if (!h)
		return -1;
	if (bt && !(hb = trace_to_host(c, bt, IR_DTYPE_DOUBLE))) {
		free(h);
		return -1;
	}
	t = malloc(sizeof(*t) * (size_t)(p * p + 1));
	x = malloc(sizeof(*x) * (size_t)(p * p + 1));
	w = malloc(sizeof(*w) * (size_t)(p * p * 2 + p * p + 1));
	piv = malloc(sizeof(*piv) * (size_t)(p * 2 + 1));
	if (!t || !x || !w || !piv) {
		trace_oom(c);
		goto done;
	}
	/* self's entries in the moved order, row-major */
	for (int64_t e = 0; e < p * p; e++) {
		int64_t rem = e, src = 0, mul = 1, ix[GPU_MAX_DIMS];
		for (int i = r - 1; i >= 0; i--) {
			ix[i] = rem % shape[i];
			rem /= shape[i];
		}
		for (int i = r - 1; i >= 0; i--) {
			int j = 0;
			while (perm[j] != i)
				j++;
			src += ix[j] * mul;
			mul *= a->dims[i];
		}
		t[e] = h[src];
	}
	if (hb)
		memcpy(x, hb, sizeof(*x) * (size_t)p);
	solve_one(t, p, x, inv ? 0 : 1, piv, w);
	y = trace_from_host(c, a->dtype, rr, rshape, IR_DTYPE_DOUBLE, x);
	rc = y ? trace_out(c, out, y) : -1;
done:
	free(h); free(hb); free(t); free(x); free(w); free(piv);
	return rc;
}

const struct trace_op trace_ops_linalg_host[] = {
	{ OP_aten_linalg_tensorinv, op_tensor_inv_solve, 0 },
	{ OP_aten_linalg_tensorsolve, op_tensor_inv_solve, 0 },
	{ OP_aten_cholesky, op_cholesky, 0 },
	{ OP_aten_linalg_cholesky, op_cholesky, 0 },
	{ OP_aten_linalg_cholesky_ex, op_cholesky, 0 },
	{ OP_aten_cholesky_inverse, op_cholesky, 0 },
	{ OP_aten_cholesky_solve, op_solve, 0 },
	{ OP_aten_triangular_solve, op_solve, 0 },
	{ OP_aten_linalg_solve_triangular, op_solve, 0 },
	{ OP_aten_lu_solve, op_solve, 0 },
	{ OP_aten_linalg_lu_solve, op_solve, 0 },
	{ OP_aten_linalg_solve, op_solve, 0 },
	{ OP_aten_linalg_solve_ex, op_solve, 0 },
	{ OP_aten_linalg_lu_factor, op_lu, 0 },
	{ OP_aten_linalg_lu_factor_ex, op_lu, 0 },
	{ OP_aten__lu_with_info, op_lu, 0 },
	{ OP_aten_linalg_lu, op_lu, 0 },
	{ OP_aten_lu_unpack, op_lu_unpack, 0 },
	{ OP_aten_linalg_inv, op_inv, 0 },
	{ OP_aten_linalg_matrix_exp, op_matrix_exp, 0 },
	{ OP_aten_matrix_exp, op_matrix_exp, 0 },
	{ OP_aten_linalg_inv_ex, op_inv, 0 },
	{ OP_aten_inverse, op_inv, 0 },
	{ OP_NONE, NULL, 0 },
};

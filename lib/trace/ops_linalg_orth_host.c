/*
 * ops_linalg_orth_host.c - trace kernels on the host for the orthogonal
 * linear algebra of issue 14: Householder QR (linalg_qr, qr, geqrf,
 * linalg_householder_product / orgqr, ormqr) as LAPACK's dgeqr2/dorg2r
 * compute it (the same reflections, signs and taus), and what needs only
 * eigenvalues or singular values (linalg_eigvalsh, linalg_svdvals,
 * linalg_matrix_rank, linalg_pinv, pinverse, nuclear_norm, the 2 and
 * 'nuc' matrix norms, linalg_cond, linalg_lstsq), from cyclic Jacobi
 * (two-sided for symmetric eigenvalues, one-sided for singular values)
 * run to convergence in doubles.  lib/lower/symbolic_linalg_orth.c builds
 * the same algorithms as ONNX Loops.  Eigenvectors and singular vectors
 * (linalg_eigh, linalg_svd) are not computed: their signs are LAPACK's.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trace_int.h"

#define JACOBI_MAX_SWEEPS 100
#define TRACE_LAPACK_SIGNS "the eigenvectors' (singular vectors') signs " \
	"depend on LAPACK's algorithm (no rule fixes them); the values-only " \
	"forms are supported"

/* singular values (descending; hermitian: |eigenvalues| of the lower
 * triangle's matrix) of x's b matrices; with pinv, also the
 * pseudo-inverses [b, n, m] keeping those above max(atol, rtol * s_max)
 * (atol, rtol per matrix, NULL: 0) and their count in rank[b] */
struct svd_job {
	int hermitian;
	const double *atol, *rtol; /* [b] each */
	double *s;                 /* [b, k] */
	double *pinv;              /* [b, n, m] or NULL */
	double *rank;              /* [b] or NULL */
};

/* --- the algorithms, on one row-major matrix of doubles --------------- */

/* LAPACK's dgeqr2 on a [m, n]: R on and above the diagonal, the
 * reflectors' vectors (their leading 1 implicit) below it, tau[min(m,n)]:
 * dlarfg's beta = -sign(alpha) * |(alpha, x)|, tau = (beta - alpha) /
 * beta, and tau = 0 (no reflection) where x is zero */
static void hh_geqrf(double *a, int64_t m, int64_t n, double *tau)
{
	int64_t k = m < n ? m : n;

	for (int64_t j = 0; j < k; j++) {
		double alpha = a[j * n + j], xn = 0, beta, scal;
		for (int64_t i = j + 1; i < m; i++)
			xn = hypot(xn, a[i * n + j]);
		if (xn == 0) {
			tau[j] = 0;
			continue;
		}
		beta = -copysign(hypot(alpha, xn), alpha);
		tau[j] = (beta - alpha) / beta;
		scal = 1 / (alpha - beta);
		for (int64_t i = j + 1; i < m; i++)
			a[i * n + j] *= scal;
		a[j * n + j] = beta;
		for (int64_t col = j + 1; col < n; col++) {
			double w = a[j * n + col];
			for (int64_t i = j + 1; i < m; i++)
				w += a[i * n + j] * a[i * n + col];
			a[j * n + col] -= tau[j] * w;
			for (int64_t i = j + 1; i < m; i++)
				a[i * n + col] -= tau[j] * a[i * n + j] * w;
		}
	}
}

/* LAPACK's dorg2r: q [m, qc] = the first qc columns of H_0 ... H_{k-1},
 * the reflectors in v [m, vn]'s columns below the diagonal */
static void hh_orgqr(const double *v, int64_t m, int64_t vn, int64_t k,
		     const double *tau, double *q, int64_t qc)
{
	for (int64_t i = 0; i < m; i++)
		for (int64_t col = 0; col < qc; col++)
			q[i * qc + col] = i == col;
	for (int64_t j = k - 1; j >= 0; j--)
		for (int64_t col = 0; col < qc; col++) {
			double w = q[j * qc + col];
			for (int64_t i = j + 1; i < m; i++)
				w += v[i * vn + j] * q[i * qc + col];
			q[j * qc + col] -= tau[j] * w;
			for (int64_t i = j + 1; i < m; i++)
				q[i * qc + col] -= tau[j] * v[i * vn + j] * w;
		}
}

/* the rotation (c, s) of Jacobi's step: t = sign(z) / (|z| + sqrt(1 +
 * z^2)) for z = num / (2 den); none (c 1, s 0) where den is 0 */
static void jacobi_cs(double num, double den, double *c, double *s)
{
	double z, t;

	if (den == 0) {
		*c = 1;
		*s = 0;
		return;
	}
	z = num / (2 * den);
	t = (z >= 0 ? 1 : -1) / (fabs(z) + sqrt(1 + z * z));
	*c = 1 / sqrt(1 + t * t);
	*s = t * *c;
}

static int cmp_up(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static int cmp_down(const void *a, const void *b)
{
	return cmp_up(b, a);
}

/* the eigenvalues w[n] of the symmetric a [n, n] (overwritten), in
 * ascending order: cyclic two-sided Jacobi until a sweep rotates none */
static void jacobi_eigvals(double *a, int64_t n, double *w)
{
	for (int sweep = 0; sweep < JACOBI_MAX_SWEEPS; sweep++) {
		int moved = 0;
		for (int64_t p = 0; p < n; p++)
			for (int64_t q = p + 1; q < n; q++) {
				double c, s, apq = a[p * n + q];
				if (apq == 0 ||
				    fabs(apq) <= 1e-300 + 1e-17 *
				    sqrt(fabs(a[p * n + p] * a[q * n + q])))
					continue;
				moved = 1;
				jacobi_cs(a[q * n + q] - a[p * n + p], apq, &c, &s);
				for (int64_t i = 0; i < n; i++) { /* A J */
					double x = a[i * n + p], y = a[i * n + q];
					a[i * n + p] = c * x - s * y;
					a[i * n + q] = s * x + c * y;
				}
				for (int64_t i = 0; i < n; i++) { /* J^T A */
					double x = a[p * n + i], y = a[q * n + i];
					a[p * n + i] = c * x - s * y;
					a[q * n + i] = s * x + c * y;
				}
			}
		if (!moved)
			break;
	}
	for (int64_t i = 0; i < n; i++)
		w[i] = a[i * n + i];
	qsort(w, (size_t)n, sizeof(*w), cmp_up);
}

/* one-sided Jacobi on a [m, n], m >= n (overwritten by A V, its columns
 * s_j u_j), v [n, n] (V, when not NULL); s[n] the columns' norms, not
 * sorted */
static void jacobi_svd(double *a, int64_t m, int64_t n, double *v, double *s)
{
	if (v)
		for (int64_t i = 0; i < n * n; i++)
			v[i] = i / n == i % n;
	for (int sweep = 0; sweep < JACOBI_MAX_SWEEPS; sweep++) {
		int moved = 0;
		for (int64_t p = 0; p < n; p++)
			for (int64_t q = p + 1; q < n; q++) {
				double al = 0, be = 0, ga = 0, c, sn;
				for (int64_t i = 0; i < m; i++) {
					al += a[i * n + p] * a[i * n + p];
					be += a[i * n + q] * a[i * n + q];
					ga += a[i * n + p] * a[i * n + q];
				}
				if (ga == 0 || fabs(ga) <= 1e-17 * sqrt(al * be))
					continue;
				moved = 1;
				jacobi_cs(be - al, ga, &c, &sn);
				for (int64_t i = 0; i < m; i++) {
					double x = a[i * n + p], y = a[i * n + q];
					a[i * n + p] = c * x - sn * y;
					a[i * n + q] = sn * x + c * y;
				}
				for (int64_t i = 0; v && i < n; i++) {
					double x = v[i * n + p], y = v[i * n + q];
					v[i * n + p] = c * x - sn * y;
					v[i * n + q] = sn * x + c * y;
				}
			}
		if (!moved)
			break;
	}
	for (int64_t j = 0; j < n; j++) {
		double t = 0;
		for (int64_t i = 0; i < m; i++)
			t = hypot(t, a[i * n + j]);
		s[j] = t;
	}
}

/* --- reading and writing batches of matrices --------------------------- */

/* x [..., m, n] on the host as doubles: *b matrices of m x n */
static double *mats_host(struct trace_ctx *c, struct gpu_tensor *x,
			 const char *what, int64_t *b, int64_t *m, int64_t *n)
{
	if (x->rank < 2) {
		trace_error(c, "%s: A must have at least 2 dimensions", what);
		return NULL;
	}
	if (x->dtype != IR_DTYPE_FLOAT && x->dtype != IR_DTYPE_DOUBLE) {
		trace_error(c, "%s: expected a float or double tensor", what);
		return NULL;
	}
	*m = x->dims[x->rank - 2];
	*n = x->dims[x->rank - 1];
	*b = 1;
	for (int i = 0; i < x->rank - 2; i++)
		*b *= x->dims[i];
	return trace_to_host(c, x, IR_DTYPE_DOUBLE);
}

/* out = a tensor of x's batch dims and then the r trailing dims d[] from
 * host doubles h, of dtype dt */
static int out_mats(struct trace_ctx *c, struct tval **out,
		    const struct gpu_tensor *x, int nbatch, int r,
		    const int64_t *d, enum ir_dtype dt, const double *h)
{
	int64_t dims[GPU_MAX_DIMS];

	for (int i = 0; i < nbatch; i++)
		dims[i] = x->dims[i];
	for (int i = 0; i < r; i++)
		dims[nbatch + i] = d[i];
	return trace_out(c, out, trace_from_host(c, dt, nbatch + r, dims,
						 IR_DTYPE_DOUBLE, h));
}

static void *zalloc(int64_t count)
{
	return calloc((size_t)(count > 0 ? count : 1), sizeof(double));
}

static int svd_batch(struct trace_ctx *c, const double *h, int64_t b,
		     int64_t m, int64_t n, struct svd_job *j);

/* --- QR ---------------------------------------------------------------- */

/* linalg_qr(A, mode='reduced'), qr(A, some=True) -> (Q, R); mode 'r':
 * Q empty [0]; geqrf(A) -> (a, tau) */
static int op_qr(struct trace_ctx *c, const struct ir_node *n,
		 struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x;
	int64_t b, m, nn, k, qc, rr;
	int complete = 0, ronly = 0, rc = -1, nb;
	double *h, *tau, *q, *r;

	if (tv_get_tensor(c, in[0], 0, &x))
		return -1;
	if (n->op == OP_aten_qr) {
		int some = 1;
		if (nin > 1 && tv_get_bool(c, in[1], &some))
			return -1;
		complete = !some;
	} else if (n->op == OP_aten_linalg_qr && nin > 1) {
		if (in[1]->kind != TV_STR)
			return trace_error(c, "linalg_qr: mode is not a string");
		complete = !strcmp(in[1]->u.s, "complete");
		ronly = !strcmp(in[1]->u.s, "r");
		if (!complete && !ronly && strcmp(in[1]->u.s, "reduced"))
			return trace_error(c, "qr received unrecognized mode "
					   "'%s' but expected one of 'reduced' "
					   "(default), 'r', or 'complete'",
					   in[1]->u.s);
	}
	if (!(h = mats_host(c, x, aten_op_name(n->op), &b, &m, &nn)))
		return -1;
	nb = x->rank - 2;
	k = m < nn ? m : nn;
	qc = complete ? m : k;
	rr = complete ? m : k;
	tau = zalloc(b * k);
	q = zalloc(b * m * qc);
	r = zalloc(b * rr * nn);
	if (!tau || !q || !r)
		goto oom;
	for (int64_t i = 0; i < b; i++) {
		double *a = h + i * m * nn;
		hh_geqrf(a, m, nn, tau + i * k);
		if (n->op == OP_aten_geqrf)
			continue;
		hh_orgqr(a, m, nn, k, tau + i * k, q + i * m * qc, qc);
		for (int64_t y = 0; y < rr; y++)
			for (int64_t z = 0; z < nn; z++)
				r[(i * rr + y) * nn + z] = z >= y ? a[y * nn + z] : 0;
	}
	if (n->op == OP_aten_geqrf) {
		int64_t d[2] = { m, nn };
		rc = out_mats(c, out, x, nb, 2, d, x->dtype, h);
		if (!rc && nout > 1)
			rc = out_mats(c, out + 1, x, nb, 1, &k, x->dtype, tau);
	} else {
		int64_t dq[2] = { m, qc }, dr[2] = { rr, nn }, zero = 0;
		rc = ronly ? trace_out(c, out, trace_from_host(c, x->dtype, 1,
				&zero, IR_DTYPE_DOUBLE, q)) :
			     out_mats(c, out, x, nb, 2, dq, x->dtype, q);
		if (!rc && nout > 1)
			rc = out_mats(c, out + 1, x, nb, 2, dr, x->dtype, r);
	}
	free(h); free(tau); free(q); free(r);
	return rc;
oom:
	free(h); free(tau); free(q); free(r);
	return trace_oom(c);
}

/* the reflectors A [..., m, n] and tau [..., k] of householder_product and
 * ormqr, as host doubles */
static int reflectors(struct trace_ctx *c, struct tval **in, const char *what,
		      struct gpu_tensor **x, double **h, double **tau,
		      int64_t *b, int64_t *m, int64_t *nn, int64_t *k)
{
	struct gpu_tensor *t;

	if (tv_get_tensor(c, in[0], 0, x) || tv_get_tensor(c, in[1], 0, &t))
		return -1;
	if (t->rank != (*x)->rank - 1 || t->dtype != (*x)->dtype)
		return trace_error(c, "%s: tau must have one dimension less "
				   "than A and its dtype", what);
	for (int i = 0; i < t->rank - 1; i++)
		if (t->dims[i] != (*x)->dims[i])
			return trace_error(c, "%s: tau's batch dimensions must "
					   "be A's", what);
	if (!(*h = mats_host(c, *x, what, b, m, nn)))
		return -1;
	*k = t->dims[t->rank - 1];
	if (*k > *nn || *nn > *m) {
		free(*h);
		return trace_error(c, "%s: expects A.shape[-2] >= "
				   "A.shape[-1] >= tau.shape[-1]", what);
	}
	if (!(*tau = trace_to_host(c, t, IR_DTYPE_DOUBLE))) {
		free(*h);
		return -1;
	}
	return 0;
}

/* linalg_householder_product(A, tau) / orgqr: the first n columns of
 * H_0 ... H_{k-1} */
static int op_householder_product(struct trace_ctx *c,
				  const struct ir_node *n, struct tval **in,
				  int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x;
	double *h, *tau, *q;
	int64_t b, m, nn, k, d[2];
	int rc;

	if (reflectors(c, in, "torch.linalg.householder_product", &x, &h,
		       &tau, &b, &m, &nn, &k))
		return -1;
	if (!(q = zalloc(b * m * nn))) {
		free(h); free(tau);
		return trace_oom(c);
	}
	for (int64_t i = 0; i < b; i++)
		hh_orgqr(h + i * m * nn, m, nn, k, tau + i * k,
			 q + i * m * nn, nn);
	d[0] = m;
	d[1] = nn;
	rc = out_mats(c, out, x, x->rank - 2, 2, d, x->dtype, q);
	free(h); free(tau); free(q);
	return rc;
}

/* ormqr(A, tau, C, left=True, transpose=False): op(Q) C or C op(Q), Q the
 * full product of the reflectors */
static int op_ormqr(struct trace_ctx *c, const struct ir_node *n,
		    struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x, *ct;
	double *h, *tau, *q = NULL, *ch = NULL, *y = NULL;
	int64_t b, m, nn, k, cm, cn, mq;
	int left = 1, tr = 0, rc;

	if (tv_get_tensor(c, in[2], 0, &ct) ||
	    (nin > 3 && tv_get_bool(c, in[3], &left)) ||
	    (nin > 4 && tv_get_bool(c, in[4], &tr)))
		return -1;
	if (reflectors(c, in, "torch.ormqr", &x, &h, &tau, &b, &m, &nn, &k))
		return -1;
	cm = ct->rank >= 2 ? ct->dims[ct->rank - 2] : -1;
	cn = ct->rank >= 2 ? ct->dims[ct->rank - 1] : -1;
	mq = left ? cm : cn;
	if (ct->rank != x->rank || ct->dtype != x->dtype || mq != m) {
		free(h); free(tau);
		return trace_error(c, "torch.ormqr: other must be A's rank and "
				   "dtype, its %s dimension A.shape[-2]",
				   left ? "rows" : "columns");
	}
	for (int i = 0; i < x->rank - 2; i++)
		if (ct->dims[i] != x->dims[i]) {
			free(h); free(tau);
			return trace_error(c, "torch.ormqr: other's batch "
					   "dimensions must be A's");
		}
	q = zalloc(m * m);
	y = zalloc(b * cm * cn);
	ch = trace_to_host(c, ct, IR_DTYPE_DOUBLE);
	if (!q || !y || !ch) {
		free(h); free(tau); free(q); free(y);
		if (!ch)
			return -1;
		free(ch);
		return trace_oom(c);
	}
	for (int64_t i = 0; i < b; i++) {
		const double *cc = ch + i * cm * cn;
		double *yy = y + i * cm * cn;
		hh_orgqr(h + i * m * nn, m, nn, k, tau + i * k, q, m);
		for (int64_t r = 0; r < cm; r++)
			for (int64_t col = 0; col < cn; col++) {
				double s = 0;
				for (int64_t j = 0; j < m; j++) {
					double qv = left ? (tr ? q[j * m + r] : q[r * m + j])
							 : (tr ? q[col * m + j] : q[j * m + col]);
					s += qv * (left ? cc[j * cn + col] : cc[r * cn + j]);
				}
				yy[r * cn + col] = s;
			}
	}
	int64_t d[2] = { cm, cn };
	rc = out_mats(c, out, ct, ct->rank - 2, 2, d, ct->dtype, y);
	free(h); free(tau); free(q); free(y); free(ch);
	return rc;
}

/* --- values: Jacobi ------------------------------------------------------ */

/* hermitian: a [n, n] made symmetric from its lower (or upper) triangle */
static void symmetrize(double *a, int64_t n, int upper)
{
	for (int64_t i = 0; i < n; i++)
		for (int64_t j = 0; j < i; j++) {
			if (upper)
				a[i * n + j] = a[j * n + i];
			else
				a[j * n + i] = a[i * n + j];
		}
}

/* linalg_eigvalsh(A, UPLO='L') */
static int op_eigvalsh(struct trace_ctx *c, const struct ir_node *n,
		       struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x;
	int64_t b, m, nn;
	int upper = 0, rc;
	double *h, *w;

	if (tv_get_tensor(c, in[0], 0, &x))
		return -1;
	if (n->op == OP_aten_symeig) {
		/* symeig(A, eigenvectors=False, upper=True) */
		int vec = 0;
		upper = 1;
		if ((nin > 1 && tv_get_bool(c, in[1], &vec)) ||
		    (nin > 2 && tv_get_bool(c, in[2], &upper)))
			return -1;
		if (vec)
			return trace_error(c, "%s", TRACE_LAPACK_SIGNS);
	} else if (nin > 1 && in[1]->kind == TV_STR) {
		upper = !strcmp(in[1]->u.s, "U");
		if (!upper && strcmp(in[1]->u.s, "L"))
			return trace_error(c, "Expected UPLO argument to be "
					   "'L' or 'U', but got %s", in[1]->u.s);
	}
	if (!(h = mats_host(c, x, "torch.linalg.eigvalsh", &b, &m, &nn)))
		return -1;
	if (m != nn) {
		free(h);
		return trace_error(c, "torch.linalg.eigvalsh: A must be batches "
				   "of square matrices");
	}
	if (!(w = zalloc(b * nn))) {
		free(h);
		return trace_oom(c);
	}
	for (int64_t i = 0; i < b; i++) {
		symmetrize(h + i * nn * nn, nn, upper);
		jacobi_eigvals(h + i * nn * nn, nn, w + i * nn);
	}
	rc = out_mats(c, out, x, x->rank - 2, 1, &nn, x->dtype, w);
	if (!rc && n->op == OP_aten_symeig && nout > 1) {
		int64_t zero = 0;
		rc = trace_out(c, out + 1, trace_from_host(c, x->dtype, 1, &zero,
							   IR_DTYPE_DOUBLE, w));
	}
	free(h); free(w);
	return rc;
}

/* svd(A, some=True, compute_uv=True): with compute_uv False, (U zeros
 * [..., m, m], S, V zeros [..., n, n]), as torch 1.13 gives them; the
 * vectors refused */
static int op_svd(struct trace_ctx *c, const struct ir_node *n,
		  struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x;
	struct svd_job j = { 0 };
	double *h, *z;
	int64_t b, m, nn, k;
	int uv = 1, rc = -1;

	if (tv_get_tensor(c, in[0], 0, &x) ||
	    (nin > 2 && tv_get_bool(c, in[2], &uv)))
		return -1;
	if (uv)
		return trace_error(c, "%s", TRACE_LAPACK_SIGNS);
	if (!(h = mats_host(c, x, "torch.svd", &b, &m, &nn)))
		return -1;
	k = m < nn ? m : nn;
	j.s = zalloc(b * k);
	z = zalloc(b * (m > nn ? m : nn) * (m > nn ? m : nn));
	if (!j.s || !z) {
		rc = trace_oom(c);
		goto out;
	}
	if (svd_batch(c, h, b, m, nn, &j))
		goto out;
	int64_t du[2] = { m, m }, dv[2] = { nn, nn };
	rc = out_mats(c, out, x, x->rank - 2, 2, du, x->dtype, z);
	if (!rc && nout > 1)
		rc = out_mats(c, out + 1, x, x->rank - 2, 1, &k, x->dtype, j.s);
	if (!rc && nout > 2)
		rc = out_mats(c, out + 2, x, x->rank - 2, 2, dv, x->dtype, z);
out:
	free(h); free(j.s); free(z);
	return rc;
}

static int svd_batch(struct trace_ctx *c, const double *h, int64_t b,
		     int64_t m, int64_t n, struct svd_job *j)
{
	int64_t k = m < n ? m : n, big = m > n ? m : n;
	double *a = zalloc(m * n), *work = zalloc(m * n), *v = zalloc(big * big);

	if (!a || !work || !v) {
		free(a); free(work); free(v);
		return trace_oom(c);
	}
	for (int64_t i = 0; i < b; i++) {
		double *s = j->s + i * k, tol;
		int64_t cm = m >= n ? m : n, cn = m >= n ? n : m, r = 0;
		const double *u;
		memcpy(a, h + i * m * n, sizeof(*a) * (size_t)(m * n));
		if (j->hermitian)
			symmetrize(a, n, 0);
		/* Jacobi on the tall one (a or its transpose in work) */
		if (m >= n) {
			jacobi_svd(a, m, n, v, s);
			u = a;
		} else {
			for (int64_t y = 0; y < m; y++)
				for (int64_t z = 0; z < n; z++)
					work[z * m + y] = a[y * n + z];
			jacobi_svd(work, n, m, v, s);
			u = work;
		}
		double smax = 0;
		for (int64_t q = 0; q < k; q++)
			smax = fmax(smax, s[q]);
		tol = fmax(j->atol ? j->atol[i] : 0,
			   (j->rtol ? j->rtol[i] : 0) * smax);
		for (int64_t q = 0; q < k; q++)
			r += s[q] > tol;
		if (j->rank)
			j->rank[i] = (double)r;
		if (j->pinv) {
			/* pinv of the tall one: V diag(1/s^2) (A V)^T [cn, cm] */
			double *p = j->pinv + i * m * n;
			for (int64_t y = 0; y < cn; y++)
				for (int64_t z = 0; z < cm; z++) {
					double t = 0;
					for (int64_t q = 0; q < cn; q++)
						if (s[q] > tol)
							t += v[y * cn + q] * u[z * cn + q] /
							     (s[q] * s[q]);
					/* the wide one's is its transpose */
					if (m >= n)
						p[y * m + z] = t;
					else
						p[z * m + y] = t;
				}
		}
		qsort(s, (size_t)k, sizeof(*s), cmp_down);
	}
	free(a); free(work); free(v);
	return 0;
}

/* a tolerance argument (None, a number or a tensor broadcast to the
 * batch) as b doubles; NULL with no error for None */
static int tol_arg(struct trace_ctx *c, struct tval *v, int64_t b,
		   double **out)
{
	struct gpu_tensor *t;
	double f;

	*out = NULL;
	if (!v || v->kind == TV_NONE)
		return 0;
	if (!(*out = zalloc(b)))
		return trace_oom(c);
	if (v->kind != TV_TENSOR) {
		if (tv_get_float(c, v, &f))
			return -1;
		for (int64_t i = 0; i < b; i++)
			(*out)[i] = f;
		return 0;
	}
	t = v->u.t;
	int64_t numel = 1;
	for (int i = 0; i < t->rank; i++)
		numel *= t->dims[i];
	if (numel != 1 && numel != b)
		return trace_error(c, "a tolerance tensor must be a scalar or "
				   "of A's batch shape");
	double *th = trace_to_host(c, t, IR_DTYPE_DOUBLE);
	if (!th)
		return -1;
	for (int64_t i = 0; i < b; i++)
		(*out)[i] = th[numel == 1 ? 0 : i];
	free(th);
	return 0;
}

/* torch's get_atol_rtol: atol default 0; rtol default eps(dtype) *
 * max(m, n), 0 where an atol > 0 was given */
static void default_rtol(double **rtol, const double *atol, int64_t b,
			 enum ir_dtype dt, int64_t m, int64_t n)
{
	double eps = dt == IR_DTYPE_DOUBLE ? 2.220446049250313e-16 :
					     1.1920928955078125e-07;
	for (int64_t i = 0; i < b; i++)
		(*rtol)[i] = atol && atol[i] > 0 ? 0 : eps * (double)(m > n ? m : n);
}

/* linalg_svdvals, linalg_matrix_rank (atol, rtol, hermitian | tol,
 * hermitian), linalg_pinv (atol, rtol, hermitian | rcond, hermitian),
 * pinverse(rcond=1e-15) */
static int op_svd_values(struct trace_ctx *c, const struct ir_node *n,
			 struct tval **in, int nin, struct tval **out,
			 int nout)
{
	struct gpu_tensor *x;
	struct svd_job j = { 0 };
	double *h, *atol = NULL, *rtol = NULL, rcond = 1e-15;
	int64_t b, m, nn, k;
	int rc = -1, herm = 0, rank = n->op == OP_aten_linalg_matrix_rank;
	int pinv = n->op == OP_aten_linalg_pinv || n->op == OP_aten_pinverse;

	if (tv_get_tensor(c, in[0], 0, &x))
		return -1;
	if (!(h = mats_host(c, x, aten_op_name(n->op), &b, &m, &nn)))
		return -1;
	k = m < nn ? m : nn;
	if ((rank || pinv) && n->op != OP_aten_pinverse) {
		/* (atol, rtol, hermitian) or (tol | rcond, hermitian) */
		int three = nin >= 4;
		if (nin < 3) {
			rc = trace_error(c, "%s: expected (A, atol, rtol, "
					 "hermitian) or (A, tol, hermitian)",
					 aten_op_name(n->op));
			goto out;
		}
		if (tv_get_bool(c, in[three ? 3 : 2], &herm))
			goto out;
		if (tol_arg(c, in[1], b, three || rank ? &atol : &rtol) ||
		    (three && tol_arg(c, in[2], b, &rtol)))
			goto out;
		if (!rtol && !(rtol = zalloc(b))) {
			rc = trace_oom(c);
			goto out;
		}
		if (three && (nin < 3 || !in[2] || in[2]->kind == TV_NONE))
			default_rtol(&rtol, atol, b, x->dtype, m, nn);
	} else if (pinv) {
		if (nin > 1 && tv_get_float(c, in[1], &rcond))
			goto out;
		if (!(rtol = zalloc(b))) {
			rc = trace_oom(c);
			goto out;
		}
		for (int64_t i = 0; i < b; i++)
			rtol[i] = rcond;
	}
	if (herm && m != nn) {
		rc = trace_error(c, "%s: hermitian needs square matrices",
				 aten_op_name(n->op));
		goto out;
	}
	j.hermitian = herm;
	j.atol = atol;
	j.rtol = rtol;
	j.s = zalloc(b * k);
	j.rank = rank ? zalloc(b) : NULL;
	j.pinv = pinv ? zalloc(b * m * nn) : NULL;
	if (!j.s || (rank && !j.rank) || (pinv && !j.pinv)) {
		rc = trace_oom(c);
		goto out;
	}
	if (svd_batch(c, h, b, m, nn, &j))
		goto out;
	if (rank) {
		rc = out_mats(c, out, x, x->rank - 2, 0, NULL, IR_DTYPE_INT64,
			      j.rank);
	} else if (pinv) {
		int64_t d[2] = { nn, m };
		rc = out_mats(c, out, x, x->rank - 2, 2, d, x->dtype, j.pinv);
	} else {
		rc = out_mats(c, out, x, x->rank - 2, 1, &k, x->dtype, j.s);
	}
out:
	free(h); free(atol); free(rtol); free(j.s); free(j.rank); free(j.pinv);
	return rc;
}

/* The singular-value norms of x over axes a0 < a1 (the matrix's rows and
 * columns): 'n' nuclear (their sum), '2' the largest, '-' the smallest;
 * dtype dt; keep: the two axes kept as 1s */
struct gpu_tensor *trace_svd_norm(struct trace_ctx *c, struct gpu_tensor *x,
				  char kind, int a0, int a1, int keep,
				  enum ir_dtype dt)
{
	int64_t m = x->dims[a0], nn = x->dims[a1], k = m < nn ? m : nn;
	int64_t b = 1, dims[GPU_MAX_DIMS], st[GPU_MAX_DIMS], r = 0;
	struct gpu_tensor *y = NULL;
	struct svd_job j = { 0 };
	double *h, *mats, *res;

	if (x->dtype != IR_DTYPE_FLOAT && x->dtype != IR_DTYPE_DOUBLE) {
		trace_error(c, "matrix norms expect a floating point input");
		return NULL;
	}
	for (int i = 0; i < x->rank; i++) {
		if (i != a0 && i != a1)
			b *= x->dims[i];
		if (i != a0 && i != a1)
			dims[r++] = x->dims[i];
		else if (keep)
			dims[r++] = 1;
	}
	st[x->rank - 1] = 1;
	for (int i = x->rank - 2; i >= 0; i--)
		st[i] = st[i + 1] * x->dims[i + 1];
	if (!(h = trace_to_host(c, x, IR_DTYPE_DOUBLE)))
		return NULL;
	mats = zalloc(b * m * nn);
	res = zalloc(b);
	j.s = zalloc(b * k);
	if (!mats || !res || !j.s) {
		trace_oom(c);
		goto out;
	}
	/* gather each matrix: the other axes in order, then a0, a1 */
	for (int64_t i = 0; i < b; i++) {
		int64_t rem = i, base = 0;
		for (int d = x->rank - 1; d >= 0; d--) {
			if (d == a0 || d == a1)
				continue;
			base += (rem % x->dims[d]) * st[d];
			rem /= x->dims[d];
		}
		for (int64_t y0 = 0; y0 < m; y0++)
			for (int64_t z = 0; z < nn; z++)
				mats[(i * m + y0) * nn + z] =
					h[base + y0 * st[a0] + z * st[a1]];
	}
	if (svd_batch(c, mats, b, m, nn, &j))
		goto out;
	for (int64_t i = 0; i < b; i++) {
		double t = 0;
		for (int64_t q = 0; q < k; q++)
			t += j.s[i * k + q];
		res[i] = kind == 'n' ? t : !k ? 0 :
			 kind == '2' ? j.s[i * k] : j.s[i * k + k - 1];
	}
	y = trace_from_host(c, dt, (int)r, dims, IR_DTYPE_DOUBLE, res);
out:
	free(h); free(mats); free(res); free(j.s);
	return y;
}

/* nuclear_norm(A, keepdim=False) and nuclear_norm(A, dim, keepdim) */
static int op_nuclear_norm(struct trace_ctx *c, const struct ir_node *n,
			   struct tval **in, int nin, struct tval **out,
			   int nout)
{
	struct gpu_tensor *x;
	int64_t dims[2] = { 0, 1 };
	int keep = 0, nd = 2, a0, a1;

	if (tv_get_tensor(c, in[0], 0, &x))
		return -1;
	if (nin > 2) {
		if (tv_get_ints(c, in[1], dims, 2, &nd) || nd != 2)
			return trace_error(c, "nuclear_norm: dim must be two "
					   "dims");
		if (tv_get_bool(c, in[2], &keep))
			return -1;
	} else if (nin > 1 && tv_get_bool(c, in[1], &keep)) {
		return -1;
	}
	if (nin <= 2 && x->rank != 2)
		return trace_error(c, "nuclear_norm: expected a 2D tensor");
	if (trace_axis(c, dims[0], x->rank, &a0) ||
	    trace_axis(c, dims[1], x->rank, &a1))
		return -1;
	if (a0 == a1)
		return trace_error(c, "nuclear_norm: the two dims must differ");
	return trace_out(c, out, trace_svd_norm(c, x, 'n', a0 < a1 ? a0 : a1,
						a0 < a1 ? a1 : a0, keep,
						x->dtype));
}

/* the p = 1, -1 (column sums), inf, -inf (row sums) norm of a [n, n],
 * NaN where any sum is */
static double norm_1inf(const double *a, int64_t n, double p)
{
	double r = 0;
	for (int64_t i = 0; i < n; i++) {
		double t = 0;
		for (int64_t j = 0; j < n; j++)
			t += fabs(isinf(p) ? a[i * n + j] : a[j * n + i]);
		if (t != t)
			return t;
		if (!i || (p > 0 ? t > r : t < r))
			r = t;
	}
	return r;
}

/* linalg_cond with p 1, -1, inf, -inf, as torch's _linalg_cond_helper:
 * norm(A) * norm(A^-1) (the inverse as linalg_inv's kernel computes it),
 * NaN made inf (nan_to_num) */
static int cond_inv(struct trace_ctx *c, struct gpu_tensor *x, double p,
		    struct tval **out)
{
	int64_t b, m, nn;
	double *h = mats_host(c, x, "torch.linalg.cond", &b, &m, &nn), *res;
	int rc = -1;

	if (!h)
		return -1;
	if (m != nn || !m) {
		free(h);
		return trace_error(c, "torch.linalg.cond: A must be batches of "
				   "square matrices with at least one row");
	}
	res = zalloc(b);
	if (!res) {
		free(h);
		return trace_oom(c);
	}
	for (int64_t i = 0; i < b; i++) {
		double *a = h + i * nn * nn, na = norm_1inf(a, nn, p);
		if (trace_inv_host(a, nn)) {
			rc = trace_oom(c);
			goto out;
		}
		res[i] = na * norm_1inf(a, nn, p);
		if (res[i] != res[i])
			res[i] = INFINITY;
	}
	rc = out_mats(c, out, x, x->rank - 2, 0, NULL, x->dtype, res);
out:
	free(h); free(res);
	return rc;
}

/* linalg_cond(A, p=None): None, 2, -2 from the extreme singular values;
 * 'fro' and 'nuc' of square A from all of them (A^-1's are 1/s); 1, -1,
 * inf, -inf from the inverse (cond_inv) */
static int op_cond(struct trace_ctx *c, const struct ir_node *n,
		   struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x;
	struct svd_job j = { 0 };
	const char *sp = NULL;
	double p = 2, *h, *res;
	int64_t b, m, nn, k;
	int rc = -1;

	if (tv_get_tensor(c, in[0], 0, &x))
		return -1;
	if (nin > 1 && in[1]->kind == TV_STR)
		sp = in[1]->u.s;
	else if (nin > 1 && in[1]->kind != TV_NONE &&
		 tv_get_float(c, in[1], &p))
		return -1;
	if (!sp && (fabs(p) == 1 || isinf(p)))
		return cond_inv(c, x, p, out);
	if (sp ? strcmp(sp, "fro") && strcmp(sp, "nuc") : fabs(p) != 2)
		return trace_error(c, "linalg_cond with p=%s: p must be None, "
				   "+-1, +-2, +-inf, 'fro' or 'nuc'",
				   sp ? sp : "a number");
	if (!(h = mats_host(c, x, "torch.linalg.cond", &b, &m, &nn)))
		return -1;
	if ((sp && m != nn) || !m || !nn) {
		free(h);
		return trace_error(c, "torch.linalg.cond: A must be batches of "
				   "%smatrices with at least one row and column",
				   sp ? "square " : "");
	}
	k = m < nn ? m : nn;
	j.s = zalloc(b * k);
	res = zalloc(b);
	if (!j.s || !res) {
		rc = trace_oom(c);
		goto out;
	}
	if (svd_batch(c, h, b, m, nn, &j))
		goto out;
	for (int64_t i = 0; i < b; i++) {
		const double *s = j.s + i * k;
		double u = 0, w = 0;
		if (!sp) {
			res[i] = p > 0 ? s[0] / s[k - 1] : s[k - 1] / s[0];
			continue;
		}
		for (int64_t q = 0; q < k; q++) {
			u += sp[0] == 'f' ? s[q] * s[q] : s[q];
			w += sp[0] == 'f' ? 1 / (s[q] * s[q]) : 1 / s[q];
		}
		res[i] = sp[0] == 'f' ? sqrt(u) * sqrt(w) : u * w;
	}
	rc = out_mats(c, out, x, x->rank - 2, 0, NULL, x->dtype, res);
out:
	free(h); free(j.s); free(res);
	return rc;
}

/* linalg_lstsq(A, B, rcond=None, driver=None) -> (solution, residuals,
 * rank, singular_values): the minimum-norm solution pinv(A) B with
 * rcond (default eps * max(m, n)) relative to the largest singular value;
 * the other outputs as torch's driver gives them: gelsy (the default)
 * rank only, gels residuals (m > n) only, gelsd and gelss rank and
 * singular values, residuals where m > n and every A has full rank */
static int op_lstsq(struct trace_ctx *c, const struct ir_node *n,
		    struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x, *bt;
	struct svd_job j = { 0 };
	const char *drv = "gelsy";
	double *h, *bh = NULL, *rtol = NULL, rcond = -1, *sol = NULL,
	       *resid = NULL;
	int64_t b, m, nn, k, nr, zero = 0;
	int rc = -1, vec, full = 1;

	if (tv_get_tensor(c, in[0], 0, &x) || tv_get_tensor(c, in[1], 0, &bt))
		return -1;
	if (bt->rank < 1)
		return trace_error(c, "torch.linalg.lstsq: B must have at least "
				   "1 dimension");
	if (nin > 2 && in[2]->kind != TV_NONE && tv_get_float(c, in[2], &rcond))
		return -1;
	if (nin > 3 && in[3]->kind == TV_STR)
		drv = in[3]->u.s;
	if (strcmp(drv, "gelsy") && strcmp(drv, "gels") &&
	    strcmp(drv, "gelsd") && strcmp(drv, "gelss"))
		return trace_error(c, "torch.linalg.lstsq: parameter `driver` "
				   "should be one of (gels, gelsy, gelsd, "
				   "gelss)");
	if (!(h = mats_host(c, x, "torch.linalg.lstsq", &b, &m, &nn)))
		return -1;
	vec = bt->rank == x->rank - 1;
	nr = vec ? 1 : bt->rank >= 2 ? bt->dims[bt->rank - 1] : 0;
	if ((!vec && bt->rank != x->rank) || bt->dtype != x->dtype ||
	    bt->dims[vec ? bt->rank - 1 : bt->rank - 2] != m) {
		free(h);
		return trace_error(c, "torch.linalg.lstsq: B must be A's dtype, "
				   "of shape (*, m) or (*, m, k) with A's batch "
				   "dims");
	}
	for (int i = 0; i < x->rank - 2; i++)
		if (bt->dims[i] != x->dims[i]) {
			free(h);
			return trace_error(c, "torch.linalg.lstsq: B's batch "
					   "dimensions must be A's");
		}
	k = m < nn ? m : nn;
	bh = trace_to_host(c, bt, IR_DTYPE_DOUBLE);
	rtol = zalloc(b);
	j.s = zalloc(b * k);
	j.rank = zalloc(b);
	j.pinv = zalloc(b * m * nn);
	sol = zalloc(b * nn * nr);
	resid = zalloc(b * nr);
	if (!bh || !rtol || !j.s || !j.rank || !j.pinv || !sol || !resid) {
		rc = bh ? trace_oom(c) : -1;
		goto out;
	}
	if (rcond < 0)
		default_rtol(&rtol, NULL, b, x->dtype, m, nn);
	for (int64_t i = 0; i < b; i++)
		rtol[i] = rcond < 0 ? rtol[0] : rcond;
	j.rtol = rtol;
	if (svd_batch(c, h, b, m, nn, &j))
		goto out;
	for (int64_t i = 0; i < b; i++) {
		const double *p = j.pinv + i * nn * m, *bb = bh + i * m * nr;
		const double *a = h + i * m * nn;
		full &= j.rank[i] == (double)nn;
		for (int64_t y = 0; y < nn; y++)
			for (int64_t z = 0; z < nr; z++) {
				double t = 0;
				for (int64_t q = 0; q < m; q++)
					t += p[y * m + q] * bb[q * nr + z];
				sol[(i * nn + y) * nr + z] = t;
			}
		for (int64_t z = 0; z < nr; z++) {
			double t = 0;
			for (int64_t q = 0; q < m; q++) {
				double e = -bb[q * nr + z];
				for (int64_t y = 0; y < nn; y++)
					e += a[q * nn + y] * sol[(i * nn + y) * nr + z];
				t += e * e;
			}
			resid[i * nr + z] = t;
		}
	}
	int has_res = m > nn && strcmp(drv, "gelsy") &&
		      (!strcmp(drv, "gels") || full);
	int has_rank = strcmp(drv, "gels") != 0;
	int has_sv = !strcmp(drv, "gelsd") || !strcmp(drv, "gelss");
	int64_t ds[2] = { nn, nr };
	rc = out_mats(c, out, bt, x->rank - 2, vec ? 1 : 2, ds, x->dtype, sol);
	if (!rc && nout > 1)
		rc = has_res ? out_mats(c, out + 1, x, x->rank - 2, vec ? 0 : 1,
					&nr, x->dtype, resid) :
		     trace_out(c, out + 1, trace_from_host(c, x->dtype, 1,
				&zero, IR_DTYPE_DOUBLE, resid));
	if (!rc && nout > 2)
		rc = has_rank ? out_mats(c, out + 2, x, x->rank - 2, 0, NULL,
					 IR_DTYPE_INT64, j.rank) :
		     trace_out(c, out + 2, trace_from_host(c, IR_DTYPE_INT64,
				1, &zero, IR_DTYPE_DOUBLE, resid));
	if (!rc && nout > 3)
		rc = has_sv ? out_mats(c, out + 3, x, x->rank - 2, 1, &k,
				       x->dtype, j.s) :
		     trace_out(c, out + 3, trace_from_host(c, x->dtype, 1,
				&zero, IR_DTYPE_DOUBLE, resid));
out:
	free(h); free(bh); free(rtol); free(j.s); free(j.rank); free(j.pinv);
	free(sol); free(resid);
	return rc;
}

const struct trace_op trace_ops_linalg_orth_host[] = {
	{ OP_aten_linalg_qr, op_qr, 0 },
	{ OP_aten_qr, op_qr, 0 },
	{ OP_aten_geqrf, op_qr, 0 },
	{ OP_aten_linalg_householder_product, op_householder_product, 0 },
	{ OP_aten_orgqr, op_householder_product, 0 },
	{ OP_aten_ormqr, op_ormqr, 0 },
	{ OP_aten_linalg_eigvalsh, op_eigvalsh, 0 },
	{ OP_aten_symeig, op_eigvalsh, 0 },
	{ OP_aten_svd, op_svd, 0 },
	{ OP_aten_linalg_svdvals, op_svd_values, 0 },
	{ OP_aten_linalg_matrix_rank, op_svd_values, 0 },
	{ OP_aten_linalg_pinv, op_svd_values, 0 },
	{ OP_aten_pinverse, op_svd_values, 0 },
	{ OP_aten_nuclear_norm, op_nuclear_norm, 0 },
	{ OP_aten_linalg_cond, op_cond, 0 },
	{ OP_aten_linalg_lstsq, op_lstsq, 0 },
	{ OP_NONE, NULL, 0 },
};

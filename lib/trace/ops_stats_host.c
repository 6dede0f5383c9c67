/*
 * ops_stats_host.c - trace kernels on the host for more of issue 14's
 * long tail: block_diag, cartesian_prod, cov, corrcoef, nanmedian and
 * pdist (_pdist_forward).
 * Each reads its inputs to the host as doubles, computes as torch 1.13's
 * ATen definition does (TensorShape.cpp, Itertools.cpp, Correlation.cpp,
 * Sorting.cpp) and writes the result back in torch's dtype, so it runs on
 * either backend.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ops_shape.h"
#include "trace_int.h"

/* the tensors of list argument v on the host as doubles, with their
 * promoted dtype; 0, or -1 after reporting (*hs freed) */
static int list_host(struct trace_ctx *c, const struct tval *v,
		     struct gpu_tensor ***ts, int *k, double ***hs,
		     enum ir_dtype *dt)
{
	if (sh_get_tensor_list(c, v, ts, k))
		return -1;
	*hs = calloc((size_t)(*k ? *k : 1), sizeof(**hs));
	if (!*hs) {
		free(*ts);
		return trace_oom(c);
	}
	for (int i = 0; i < *k; i++) {
		if (!i) {
			*dt = (*ts)[0]->dtype;
		} else {
			/* result_type of the promoted so far and this one */
			struct gpu_tensor t = *(*ts)[i - 1];
			t.dtype = *dt;
			struct tval a = { .kind = TV_TENSOR, .u.t = &t };
			struct tval b = { .kind = TV_TENSOR, .u.t = (*ts)[i] };
			*dt = trace_promote(&a, &b);
		}
		(*hs)[i] = trace_to_host(c, (*ts)[i], IR_DTYPE_DOUBLE);
		if (!(*hs)[i]) {
			for (int j = 0; j < i; j++)
				free((*hs)[j]);
			free(*hs);
			free(*ts);
			return -1;
		}
	}
	return 0;
}

static void list_free(struct gpu_tensor **ts, double **hs, int k)
{
	for (int i = 0; i < k; i++)
		free(hs[i]);
	free(hs);
	free(ts);
}

/* block_diag(tensors): 0-d, 1-d (a row) and 2-d blocks on the diagonal
 * of zeros, in their promoted dtype */
static int op_block_diag(struct trace_ctx *c, const struct ir_node *n,
			 struct tval **in, int nin, struct tval **out,
			 int nout)
{
	struct gpu_tensor **ts, *y = NULL;
	double **hs, *hy;
	enum ir_dtype dt = IR_DTYPE_FLOAT;
	int64_t rows = 0, cols = 0, r0 = 0, c0 = 0, dims[2];
	int k;

	if (list_host(c, in[0], &ts, &k, &hs, &dt))
		return -1;
	for (int i = 0; i < k; i++) {
		if (ts[i]->rank > 2) {
			list_free(ts, hs, k);
			return trace_error(c, "torch.block_diag: Input tensors "
					   "must have 2 or fewer dimensions. "
					   "Input %d has %d dimensions", i,
					   ts[i]->rank);
		}
		rows += ts[i]->rank < 2 ? 1 : ts[i]->dims[0];
		cols += ts[i]->rank < 1 ? 1 : ts[i]->dims[ts[i]->rank - 1];
	}
	dims[0] = rows;
	dims[1] = cols;
	hy = calloc((size_t)(rows * cols + 1), sizeof(*hy));
	if (!hy) {
		list_free(ts, hs, k);
		return trace_oom(c);
	}
	for (int i = 0; i < k; i++) {
		int64_t nr = ts[i]->rank < 2 ? 1 : ts[i]->dims[0];
		int64_t nc = ts[i]->rank < 1 ? 1 : ts[i]->dims[ts[i]->rank - 1];
		for (int64_t a = 0; a < nr; a++)
			for (int64_t b = 0; b < nc; b++)
				hy[(r0 + a) * cols + c0 + b] = hs[i][a * nc + b];
		r0 += nr;
		c0 += nc;
	}
	y = trace_from_host(c, dt, 2, dims, IR_DTYPE_DOUBLE, hy);
	free(hy);
	list_free(ts, hs, k);
	return y ? trace_out(c, out, y) : -1;
}

/* cartesian_prod(tensors): 1-d tensors' every combination, the last
 * varying fastest, as rows [prod n_i, k]; one tensor is itself */
static int op_cartesian_prod(struct trace_ctx *c, const struct ir_node *n,
			     struct tval **in, int nin, struct tval **out,
			     int nout)
{
	struct gpu_tensor **ts, *y = NULL;
	double **hs, *hy;
	enum ir_dtype dt = IR_DTYPE_FLOAT;
	int64_t total = 1, dims[2];
	int k;

	if (list_host(c, in[0], &ts, &k, &hs, &dt))
		return -1;
	for (int i = 0; i < k; i++) {
		if (ts[i]->rank != 1 || ts[i]->dtype != ts[0]->dtype) {
			list_free(ts, hs, k);
			return trace_error(c, "cartesian_prod expects 1D "
					   "tensors of one dtype");
		}
		total *= ts[i]->dims[0];
	}
	dims[0] = total;
	dims[1] = k;
	hy = malloc(sizeof(*hy) * (size_t)(total * k + 1));
	if (!hy) {
		list_free(ts, hs, k);
		return trace_oom(c);
	}
	for (int64_t r = 0; r < total; r++) {
		int64_t rem = r;
		for (int i = k - 1; i >= 0; i--) {
			int64_t len = ts[i]->dims[0];
			hy[r * k + i] = hs[i][rem % len];
			rem /= len;
		}
	}
	y = trace_from_host(c, dt, k == 1 ? 1 : 2, dims, IR_DTYPE_DOUBLE, hy);
	free(hy);
	list_free(ts, hs, k);
	return y ? trace_out(c, out, y) : -1;
}

/* torch's cov of a float input [V, N] (x), on the host: weights w (NULL:
 * 1), avg, norm = sum(w) - correction (times sum(w * aw) / sum(w) with
 * aweights), zeroed when <= 0; c[i][j] = sum_k xm[i][k] * w[k] *
 * xm[j][k] / norm.  0, or -1 out of memory. */
static int cov_host(const double *x, int64_t V, int64_t N, const double *w,
		     const double *aw, double corr, double *cv)
{
	double wsum = 0, wa = 0;
	for (int64_t k = 0; k < N; k++) {
		wsum += w ? w[k] : 1;
		wa += w && aw ? w[k] * aw[k] : 0;
	}
	double norm = wsum - (aw ? corr * wa / wsum : corr);
	if (norm <= 0)
		norm = 0;
	double *avg = calloc((size_t)(V + 1), sizeof(*avg));
	if (!avg)
		return -1;
	for (int64_t i = 0; i < V; i++) {
		for (int64_t k = 0; k < N; k++)
			avg[i] += x[i * N + k] * (w ? w[k] : 1);
		avg[i] = w ? avg[i] / wsum : avg[i] / (double)N;
	}
	for (int64_t i = 0; i < V; i++)
		for (int64_t j = 0; j < V; j++) {
			double s = 0;
			for (int64_t k = 0; k < N; k++)
				s += (x[i * N + k] - avg[i]) * (w ? w[k] : 1) *
				     (x[j * N + k] - avg[j]);
			cv[i * V + j] = s / norm;
		}
	free(avg);
	return 0;
}

/* cov(input, correction=1, fweights=None, aweights=None) and
 * corrcoef(input), float inputs of 1 or 2 dims; 1 variable gives 0-d */
static int op_cov(struct trace_ctx *c, const struct ir_node *n,
		  struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x, *fw = NULL, *aw = NULL, *y;
	int64_t corr = 1, V, N, dims[2];
	double *hx, *hf = NULL, *ha = NULL, *w = NULL, *cv;
	int cc = n->op == OP_aten_corrcoef, rc = -1;

	if (tv_get_tensor(c, in[0], 0, &x))
		return -1;
	if (!cc && ((nin > 1 && tv_get_int(c, in[1], &corr)) ||
		    (nin > 2 && in[2]->kind != TV_NONE &&
		     tv_get_tensor(c, in[2], 0, &fw)) ||
		    (nin > 3 && in[3]->kind != TV_NONE &&
		     tv_get_tensor(c, in[3], 0, &aw))))
		return -1;
	if ((x->rank != 1 && x->rank != 2) ||
	    (x->dtype != IR_DTYPE_FLOAT && x->dtype != IR_DTYPE_DOUBLE))
		return trace_error(c, "cov expects a 1-d or 2-d float tensor");
	V = x->rank == 1 ? 1 : x->dims[0];
	N = x->dims[x->rank - 1];
	/* torch's checks of the weights (Correlation.cpp's cov), in its
	 * words: ranks, dtypes and numels here, signs once on the host */
	for (int i = 0; i < 2; i++) {
		const struct gpu_tensor *t = i ? aw : fw;
		const char *wn = i ? "aweights" : "fweights";
		enum ir_dtype d = t ? t->dtype : IR_DTYPE_UNDEFINED;
		int ok = i ? d == IR_DTYPE_FLOAT || d == IR_DTYPE_DOUBLE ||
			     d == IR_DTYPE_FLOAT16 || d == IR_DTYPE_BFLOAT16
			   : d == IR_DTYPE_UINT8 || d == IR_DTYPE_INT8 ||
			     d == IR_DTYPE_INT16 || d == IR_DTYPE_INT32 ||
			     d == IR_DTYPE_INT64;
		if (!t)
			continue;
		if (t->rank > 1)
			return trace_error(c, "cov(): expected %s to have one or fewer dimensions but got %s with %d dimensions",
					   wn, wn, t->rank);
		if (!ok)
			return trace_error(c, "cov(): expected %s to have %s dtype but got %s with %s dtype",
					   wn, i ? "floating point" : "integral",
					   wn, ir_dtype_torch_name(d));
		if (gpu_numel(t) != N)
			return trace_error(c, "cov(): expected %s to have the same numel as there are observations in the input but got %lld != %lld",
					   wn, (long long)gpu_numel(t),
					   (long long)N);
	}
	hx = trace_to_host(c, x, IR_DTYPE_DOUBLE);
	if (hx && fw)
		hf = trace_to_host(c, fw, IR_DTYPE_DOUBLE);
	if (hx && aw)
		ha = trace_to_host(c, aw, IR_DTYPE_DOUBLE);
	cv = malloc(sizeof(*cv) * (size_t)(V * V + N + 1));
	w = malloc(sizeof(*w) * (size_t)(V + N + 1));
	if (!hx || (fw && !hf) || (aw && !ha))
		goto done;
	if (!cv || !w) {
		trace_oom(c);
		goto done;
	}
	/* torch's min() >= 0: a NaN weight fails it too */
	for (int i = 0; i < 2; i++)
		for (int64_t k = 0; k < N && (i ? ha : hf); k++)
			if (!((i ? ha : hf)[k] >= 0)) {
				trace_error(c, "cov(): %s cannot be negative",
					    i ? "aweights" : "fweights");
				goto done;
			}
	for (int64_t k = 0; k < N; k++)
		w[k] = (hf ? hf[k] : 1) * (ha ? ha[k] : 1);
	if (cov_host(hx, V, N, hf || ha ? w : NULL, ha, (double)corr, cv)) {
		trace_oom(c);
		goto done;
	}
	if (cc && V == 1) {
		cv[0] = cv[0] / cv[0];
	} else if (cc) {
		for (int64_t i = 0; i < V; i++)
			w[i] = sqrt(cv[i * V + i]);
		for (int64_t i = 0; i < V; i++)
			for (int64_t j = 0; j < V; j++) {
				double v = cv[i * V + j] / w[i] / w[j];
				cv[i * V + j] = isnan(v) ? v : v < -1 ? -1 :
						v > 1 ? 1 : v;
			}
	}
	dims[0] = dims[1] = V;
	y = trace_from_host(c, x->dtype, V == 1 ? 0 : 2, dims,
			    IR_DTYPE_DOUBLE, cv);
	rc = y ? trace_out(c, out, y) : -1;
done:
	free(hx);
	free(hf);
	free(ha);
	free(cv);
	free(w);
	return rc;
}

/* x as [outer, len, inner] around dim d (a 0-d x: one of one) */
static void around_dim(const struct gpu_tensor *x, int d, int64_t *outer,
		       int64_t *len, int64_t *inner)
{
	*outer = *inner = 1;
	for (int i = 0; i < x->rank; i++) {
		if (i < d)
			*outer *= x->dims[i];
		else if (i > d)
			*inner *= x->dims[i];
	}
	*len = x->rank ? x->dims[d] : 1;
}

/* x's dims with dim d dropped (or 1 when keep) into dims; the rank */
static int reduced_dims(const struct gpu_tensor *x, int d, int keep,
			int64_t *dims)
{
	int r = 0;
	for (int i = 0; i < x->rank; i++)
		if (i != d)
			dims[r++] = x->dims[i];
		else if (keep)
			dims[r++] = 1;
	return r;
}

/* values and indices (doubles on the host, rank r, dims) as outputs */
static int out_pair(struct trace_ctx *c, struct tval **out, int nout,
		    enum ir_dtype dt, int r, const int64_t *dims,
		    const double *v, const double *iv)
{
	struct gpu_tensor *yv, *yi = NULL;
	yv = trace_from_host(c, dt, r, dims, IR_DTYPE_DOUBLE, v);
	if (yv && nout > 1)
		yi = trace_from_host(c, IR_DTYPE_INT64, r, dims,
				     IR_DTYPE_DOUBLE, iv);
	if (!yv || (nout > 1 && !yi)) {
		gpu_free(yv);
		return -1;
	}
	if (trace_out(c, out, yv)) {
		gpu_free(yi);
		return -1;
	}
	return nout > 1 ? trace_out(c, out + 1, yi) : 0;
}

/* nanmedian(self) and nanmedian(self, dim, keepdim) -> (values,
 * indices): along dim, the (m - 1) // 2-th smallest of the m non-NaN
 * values (ties in index order, as torch's nth_element comparator), NaN
 * when all are NaN (torch's index there is what its nth_element leaves;
 * ours is the first).  median: the same of all values, NaN (and the
 * first NaN's index) where a NaN is met, as torch's
 * median_with_indices_impl; an empty median() is NaN. */
static int by_value(const void *a, const void *b, void *ctx)
{
	const double *vals = ctx;
	int64_t i = *(const int64_t *)a, j = *(const int64_t *)b;
	double x = vals[i], y = vals[j];
	int xn = isnan(x), yn = isnan(y);
	if (xn != yn)
		return xn - yn;
	if (!xn && x != y)
		return x < y ? -1 : 1;
	return i < j ? -1 : i > j;
}

/* Row (o, q) of h (outer x len x inner) into row, idx its order by value
 * (NaNs last, by_value); returns how many are not NaN. */
static int64_t sort_row(const double *h, int64_t o, int64_t q, int64_t len,
			int64_t inner, double *row, int64_t *idx)
{
	int64_t m = 0;
	for (int64_t k = 0; k < len; k++) {
		row[k] = h[(o * len + k) * inner + q];
		idx[k] = k;
		m += !isnan(row[k]);
	}
	qsort_r(idx, (size_t)len, sizeof(*idx), by_value, row);
	return m;
}

static int op_nanmedian(struct trace_ctx *c, const struct ir_node *n,
			struct tval **in, int nin, struct tval **out,
			int nout)
{
	struct gpu_tensor *x;
	int64_t dim = 0, outer = 1, inner = 1, len, dims[GPU_MAX_DIMS];
	int d = 0, r = 0, full = nin < 2, keep = 0;
	int med = n->op == OP_aten_median;
	double *h, *v, *iv;
	int64_t *idx;

	if (tv_get_tensor(c, in[0], 0, &x))
		return -1;
	if (!full && (tv_get_int(c, in[1], &dim) ||
		      (nin > 2 && tv_get_bool(c, in[2], &keep))))
		return -1;
	/* a 0-d tensor takes dim 0 or -1 only, as torch */
	if (!full && x->rank == 0 && trace_axis(c, dim, 0, &d))
		return -1;
	if (full || x->rank == 0) {
		len = 1;
		for (int i = 0; i < x->rank; i++)
			len *= x->dims[i];
	} else {
		if (trace_axis(c, dim, x->rank, &d))
			return -1;
		around_dim(x, d, &outer, &len, &inner);
		r = reduced_dims(x, d, keep, dims);
	}
	if (len == 0 && !(med && full))
		return trace_error(c, "%s() input tensor cannot be empty",
				   med ? "median" : "nanmedian");
	h = trace_to_host(c, x, IR_DTYPE_DOUBLE);
	v = malloc(sizeof(*v) * (size_t)(outer * inner + 1));
	iv = malloc(sizeof(*iv) * (size_t)(outer * inner + 1));
	idx = malloc(sizeof(*idx) * (size_t)(len + 1));
	double *row = malloc(sizeof(*row) * (size_t)(len + 1));
	if (!h || !v || !iv || !idx || !row) {
		free(h); free(v); free(iv); free(idx); free(row);
		return h ? trace_oom(c) : -1;
	}
	for (int64_t o = 0; o < outer; o++)
		for (int64_t q = 0; q < inner; q++) {
			int64_t m = sort_row(h, o, q, len, inner, row, idx);
			int64_t at = m ? (m - 1) / 2 : 0;
			if (med && m < len)
				at = m; /* median: the first NaN */
			v[o * inner + q] = m && len ? row[idx[at]] : NAN;
			iv[o * inner + q] = len ? (double)idx[at] : 0;
		}
	int rc = out_pair(c, out, nout, x->dtype, full ? 0 : r, dims, v, iv);
	free(h); free(v); free(iv); free(idx); free(row);
	return rc;
}

/* mode(self, dim=-1, keepdim=False) -> (values, indices): torch's CPU
 * kernel sorts each row by value (std::sort, stable for the short rows it
 * meets: insertion sort below 17) and keeps the first value whose run is
 * strictly longer than any before: the smallest most frequent value, and
 * the index of its last occurrence */
static int op_mode(struct trace_ctx *c, const struct ir_node *n,
		   struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x;
	int64_t dim = -1, outer, len, inner, dims[GPU_MAX_DIMS], *idx;
	int d = 0, keep = 0, r, rc;
	double *h, *v, *iv, *row;

	if (tv_get_tensor(c, in[0], 0, &x) ||
	    (nin > 1 && tv_get_int(c, in[1], &dim)) ||
	    (nin > 2 && tv_get_bool(c, in[2], &keep)))
		return -1;
	if (trace_axis(c, dim, x->rank ? x->rank : 1, &d))
		return -1;
	around_dim(x, d, &outer, &len, &inner);
	if (len == 0)
		return trace_error(c, "mode(): expected a non-empty dim");
	r = reduced_dims(x, x->rank ? d : -1, keep, dims);
	h = trace_to_host(c, x, IR_DTYPE_DOUBLE);
	v = malloc(sizeof(*v) * (size_t)(outer * inner + 1));
	iv = malloc(sizeof(*iv) * (size_t)(outer * inner + 1));
	idx = malloc(sizeof(*idx) * (size_t)(len + 1));
	row = malloc(sizeof(*row) * (size_t)(len + 1));
	if (!h || !v || !iv || !idx || !row) {
		free(h); free(v); free(iv); free(idx); free(row);
		return h ? trace_oom(c) : -1;
	}
	for (int64_t o = 0; o < outer; o++)
		for (int64_t q = 0; q < inner; q++) {
			int64_t best = 0, run = 0, at = 0;
			sort_row(h, o, q, len, inner, row, idx);
			for (int64_t k = 0; k < len; k++) {
				run++;
				if (k == len - 1 ||
				    row[idx[k]] != row[idx[k + 1]]) {
					if (run > best) {
						best = run;
						at = k;
					}
					run = 0;
				}
			}
			v[o * inner + q] = row[idx[at]];
			iv[o * inner + q] = (double)idx[at];
		}
	rc = out_pair(c, out, nout, x->dtype, r, dims, v, iv);
	free(h); free(v); free(iv); free(idx); free(row);
	return rc;
}

enum qmode { Q_LINEAR, Q_LOWER, Q_HIGHER, Q_MIDPOINT, Q_NEAREST };

/* torch's lerp: from the nearer end */
static double lerp_of(double a, double b, double w)
{
	return w < 0.5 ? a + w * (b - a) : b - (b - a) * (1 - w);
}

/* the q-quantile of the ascending row s (NaNs last) of len values, m of
 * them not NaN, as torch's quantile_impl: rank q * (len - 1), the last
 * index when a NaN is there (quantile) or q * (m - 1), at least 0
 * (nanquantile), rounded as the mode says, the values around it lerped */
static double quantile_of(const double *s, int64_t len, int64_t m,
			  double q, int ignore_nan, enum qmode mode)
{
	double rank = ignore_nan ? q * (double)(m - 1) : q * (double)(len - 1);
	if (!ignore_nan && m < len)
		rank = (double)(len - 1);
	if (ignore_nan && rank < 0)
		rank = 0;
	if (mode == Q_LOWER)
		rank = floor(rank);
	else if (mode == Q_HIGHER)
		rank = ceil(rank);
	else if (mode == Q_NEAREST)
		rank = nearbyint(rank);
	int64_t lo = (int64_t)rank;
	double v = s[lo];
	if (mode == Q_LINEAR || mode == Q_MIDPOINT)
		v = lerp_of(v, s[(int64_t)ceil(rank)],
			    mode == Q_MIDPOINT ? 0.5 : rank - (double)lo);
	return v;
}

/* quantile / nanquantile(self, q (a number or a 0-d or 1-d tensor),
 * dim=None, keepdim=False, *, interpolation='linear'): q's values
 * (a 1-d q's count as the first dim) over self's reduced dims */
static int op_quantile(struct trace_ctx *c, const struct ir_node *n,
		       struct tval **in, int nin, struct tval **out, int nout)
{
	static const char *modes[] = { "linear", "lower", "higher",
				       "midpoint", "nearest" };
	struct gpu_tensor *x, *qt = NULL, *y;
	int64_t dim = 0, outer = 1, len, inner = 1, dims[GPU_MAX_DIMS], nq = 1;
	int d = 0, keep = 0, r = 0, full, qvec = 0;
	int ign = n->op == OP_aten_nanquantile;
	enum qmode mode = Q_LINEAR;
	double qs = 0, *qv = &qs, *h, *v, *row, *srt;
	int64_t *idx;

	if (tv_get_tensor(c, in[0], 0, &x))
		return -1;
	if (in[1]->kind == TV_TENSOR) {
		if (tv_get_tensor(c, in[1], 0, &qt))
			return -1;
		if (qt->rank > 1)
			return trace_error(c, "quantile() q must be a scalar "
					   "or 1D tensor");
		qvec = qt->rank == 1;
		nq = qvec ? qt->dims[0] : 1;
	} else if (tv_get_float(c, in[1], &qs)) {
		return -1;
	}
	full = nin < 3 || in[2]->kind == TV_NONE;
	if ((!full && tv_get_int(c, in[2], &dim)) ||
	    (nin > 3 && tv_get_bool(c, in[3], &keep)))
		return -1;
	if (nin > 4 && in[4]->kind == TV_STR) {
		int k = 0;
		while (k < 5 && strcmp(in[4]->u.s, modes[k]))
			k++;
		if (k == 5)
			return trace_error(c, "quantile() interpolation must "
					   "be one of linear, lower, higher, "
					   "midpoint or nearest. Got %s",
					   in[4]->u.s);
		mode = (enum qmode)k;
	}
	if (x->dtype != IR_DTYPE_FLOAT && x->dtype != IR_DTYPE_DOUBLE)
		return trace_error(c, "quantile() input tensor must be either "
				   "float or double dtype");
	if (full) {
		len = 1;
		for (int i = 0; i < x->rank; i++)
			len *= x->dims[i];
		if (keep)
			for (r = 0; r < x->rank; r++)
				dims[r + qvec] = 1;
	} else {
		if (trace_axis(c, dim, x->rank ? x->rank : 1, &d))
			return -1;
		around_dim(x, d, &outer, &len, &inner);
		r = reduced_dims(x, x->rank ? d : -1, keep, dims + qvec);
	}
	if (len == 0)
		return trace_error(c, "quantile() input tensor must be "
				   "non-empty");
	if (qvec)
		dims[0] = nq;
	if (qt && !(qv = trace_to_host(c, qt, IR_DTYPE_DOUBLE)))
		return -1;
	for (int64_t j = 0; j < nq; j++)
		if (!(qv[j] >= 0 && qv[j] <= 1)) {
			if (qv != &qs)
				free(qv);
			return trace_error(c, "quantile() q values must be in "
					   "the range [0, 1]");
		}
	h = trace_to_host(c, x, IR_DTYPE_DOUBLE);
	v = malloc(sizeof(*v) * (size_t)(nq * outer * inner + 1));
	idx = malloc(sizeof(*idx) * (size_t)(len + 1));
	row = malloc(sizeof(*row) * (size_t)(len + 1));
	srt = malloc(sizeof(*srt) * (size_t)(len + 1));
	if (!h || !v || !idx || !row || !srt) {
		free(h); free(v); free(idx); free(row); free(srt);
		if (qv != &qs)
			free(qv);
		return h ? trace_oom(c) : -1;
	}
	for (int64_t o = 0; o < outer; o++)
		for (int64_t p = 0; p < inner; p++) {
			int64_t m = sort_row(h, o, p, len, inner, row, idx);
			for (int64_t k = 0; k < len; k++)
				srt[k] = row[idx[k]];
			for (int64_t j = 0; j < nq; j++)
				v[(j * outer + o) * inner + p] =
					quantile_of(srt, len, m, qv[j], ign, mode);
		}
	y = trace_from_host(c, x->dtype, r + qvec, dims, IR_DTYPE_DOUBLE, v);
	free(h); free(v); free(idx); free(row); free(srt);
	if (qv != &qs)
		free(qv);
	return y ? trace_out(c, out, y) : -1;
}

/* pdist(input [N, M], p=2), _pdist_forward: the p-norm distance of rows
 * i < j, row-major, as torch's kernel: p 0 counts the differing
 * entries, inf takes the largest */
static int op_pdist(struct trace_ctx *c, const struct ir_node *n,
		    struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x, *y;
	double p = 2, *h, *hy;
	int64_t N, M, k = 0, cnt;

	if (tv_get_tensor(c, in[0], 0, &x) ||
	    (nin > 1 && tv_get_float(c, in[1], &p)))
		return -1;
	if (x->rank != 2 || p < 0 ||
	    (x->dtype != IR_DTYPE_FLOAT && x->dtype != IR_DTYPE_DOUBLE))
		return trace_error(c, "pdist only supports 2D float tensors "
				   "and p >= 0");
	N = x->dims[0];
	M = x->dims[1];
	cnt = N * (N - 1) / 2;
	h = trace_to_host(c, x, IR_DTYPE_DOUBLE);
	if (!h)
		return -1;
	hy = malloc(sizeof(*hy) * (size_t)(cnt + 1));
	if (!hy) {
		free(h);
		return trace_oom(c);
	}
	for (int64_t i = 0; i < N; i++)
		for (int64_t j = i + 1; j < N; j++) {
			double s = 0;
			for (int64_t m = 0; m < M; m++) {
				double d = fabs(h[i * M + m] - h[j * M + m]);
				if (p == 0)
					s += d != 0;
				else if (isinf(p))
					s = d > s || isnan(d) ? d : s;
				else
					s += p == 1 ? d : p == 2 ? d * d : pow(d, p);
			}
			hy[k++] = p == 0 || p == 1 || isinf(p) ? s :
				  p == 2 ? sqrt(s) : pow(s, 1 / p);
		}
	y = trace_from_host(c, x->dtype, 1, &cnt, IR_DTYPE_DOUBLE, hy);
	free(h);
	free(hy);
	return y ? trace_out(c, out, y) : -1;
}

const struct trace_op trace_ops_stats_host[] = {
	{ OP_aten_pdist, op_pdist, 0 },
	{ OP_aten__pdist_forward, op_pdist, 0 },
	{ OP_aten_block_diag, op_block_diag, 0 },
	{ OP_aten_cartesian_prod, op_cartesian_prod, 0 },
	{ OP_aten_cov, op_cov, 0 },
	{ OP_aten_corrcoef, op_cov, 0 },
	{ OP_aten_nanmedian, op_nanmedian, 0 },
	{ OP_aten_median, op_nanmedian, 0 },
	{ OP_aten_mode, op_mode, 0 },
	{ OP_aten_quantile, op_quantile, 0 },
	{ OP_aten_nanquantile, op_quantile, 0 },
	{ OP_NONE, NULL, 0 },
};

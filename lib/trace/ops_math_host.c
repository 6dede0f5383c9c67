/*
 * ops_math_host.c - trace kernels for elementwise functions that have no
 * entry in the device interface (lib/gpu/gpu.h) and are rare enough not
 * to need one (issue 14): erfc, exp2, deg2rad, rad2deg, sgn, special_ndtr,
 * sinc, special_entr, logaddexp, logaddexp2, copysign, hypot, xlogy,
 * special_xlog1py, addr,
 * _to_copy, max_unpool2d/3d, the scans cummax, cummin, logcumsumexp,
 * diagflat, dist, diff, select_scatter, slice_scatter and
 * diagonal_scatter; signbit, isposinf, isneginf, isreal, angle,
 * positive and real of real tensors, heaviside, ldexp, isclose, gcd,
 * lcm, frexp, nextafter, gradient, fractional_max_pool2d/3d and
 * segment_reduce.  Each reads its inputs to
 * the host as doubles, computes with C's math functions (what torch's CPU
 * kernels call) and writes the result back in torch's result dtype, so it
 * runs on either backend.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ops_shape.h"
#include "trace_int.h"

static int is_float(enum ir_dtype dt)
{
	return dt == IR_DTYPE_FLOAT || dt == IR_DTYPE_DOUBLE ||
	       dt == IR_DTYPE_FLOAT16 || dt == IR_DTYPE_BFLOAT16;
}

static double sgn_of(double x)
{
	return (x > 0) - (x < 0) + (x != x ? x : 0);
}

static double unary_of(enum aten_op op, double x)
{
	switch (op) {
	case OP_aten_erfc: case OP_aten_special_erfc: return erfc(x);
	case OP_aten_exp2: case OP_aten_special_exp2: return exp2(x);
	case OP_aten_deg2rad: return x * (M_PI / 180.0);
	case OP_aten_rad2deg: return x * (180.0 / M_PI);
	case OP_aten_special_ndtr: return 0.5 * erfc(-x * M_SQRT1_2);
	case OP_aten_sinc: case OP_aten_special_sinc:
		return x == 0 ? 1 : sin(M_PI * x) / (M_PI * x);
	case OP_aten_special_entr:
		return x > 0 ? -x * log(x) : x == 0 ? 0 : x < 0 ? -INFINITY : x;
	default: return sgn_of(x); /* sgn */
	}
}

/* log(e^a + e^b) (base 2: log2(2^a + 2^b)), as torch's kernel: a where
 * a == b is infinite */
static double logaddexp_of(double a, double b, int two)
{
	double m = fmax(a, b), d = -fabs(a - b);
	if (isinf(a) && a == b)
		return a;
	return two ? m + log1p(exp2(d)) / M_LN2 : m + log1p(exp(d));
}

static double binary_of(enum aten_op op, double a, double b)
{
	switch (op) {
	case OP_aten_logaddexp: return logaddexp_of(a, b, 0);
	case OP_aten_logaddexp2: return logaddexp_of(a, b, 1);
	case OP_aten_copysign: return copysign(a, b);
	case OP_aten_hypot: return hypot(a, b);
	case OP_aten_special_xlog1py:
		if (isnan(b))
			return NAN;
		return a == 0 ? 0 : a * log1p(b);
	default: /* xlogy, special_xlogy */
		if (isnan(b))
			return NAN;
		return a == 0 ? 0 : a * log(b);
	}
}

static int op_unary_host(struct trace_ctx *c, const struct ir_node *n,
			 struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x, *y;
	double *v;
	enum ir_dtype dt;
	int64_t cnt = 1;

	if (tv_get_tensor(c, in[0], 0, &x))
		return -1;
	dt = n->op == OP_aten_sgn || is_float(x->dtype) ? x->dtype
							: IR_DTYPE_FLOAT;
	v = trace_to_host(c, x, IR_DTYPE_DOUBLE);
	if (!v)
		return -1;
	for (int i = 0; i < x->rank; i++)
		cnt *= x->dims[i];
	for (int64_t i = 0; i < cnt; i++)
		v[i] = unary_of(n->op, v[i]);
	y = trace_from_host(c, dt, x->rank, x->dims, IR_DTYPE_DOUBLE, v);
	free(v);
	return trace_out(c, out, y);
}

/* _to_copy(self, dtype=None, ...): a copy, cast where dtype is given */
static int op_to_copy(struct trace_ctx *c, const struct ir_node *n,
		      struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x;
	int64_t st;
	enum ir_dtype dt;

	if (tv_get_tensor(c, in[0], 0, &x))
		return -1;
	dt = x->dtype;
	if (nin > 1 && in[1]->kind != TV_NONE) {
		if (tv_get_int(c, in[1], &st))
			return -1;
		dt = tv_dtype_from_torch(st);
		if (dt == IR_DTYPE_UNDEFINED)
			return trace_error(c, "_to_copy: dtype %lld is not "
					   "supported", (long long)st);
	}
	if (dt == x->dtype) {
		/* a copy: x's elements through the host */
		void *h = trace_to_host(c, x, IR_DTYPE_UNDEFINED);
		struct gpu_tensor *y;

		if (!h)
			return -1;
		y = trace_from_host(c, dt, x->rank, x->dims, dt, h);
		free(h);
		return trace_out(c, out, y);
	}
	return trace_out(c, out, trace_cast(c, x, dt));
}

/* a and b (tensors or numbers) broadcast, on the host as `as` (double or
 * int64); their result dtype (torch's promotion) in *dt */
static int pair_host_as(struct trace_ctx *c, struct tval *a, struct tval *b,
			enum ir_dtype as, enum ir_dtype *dt, int *rank,
			int64_t *dims, void **va, void **vb)
{
	struct gpu_tensor *at, *bt, *ae = NULL, *be = NULL;
	int rc = -1;

	*dt = trace_promote(a, b);
	*va = *vb = NULL;
	at = trace_as_tensor(c, a, as);
	bt = at ? trace_as_tensor(c, b, as) : NULL;
	if (!bt || trace_broadcast_dims(c, at, bt, rank, dims))
		goto done;
	ae = trace_expand(at, *rank, dims);
	be = ae ? trace_expand(bt, *rank, dims) : NULL;
	if (!be) {
		trace_gpu_error(c);
		goto done;
	}
	*va = trace_to_host(c, ae, as);
	*vb = *va ? trace_to_host(c, be, as) : NULL;
	rc = *vb ? 0 : -1;
done:
	gpu_free(at);
	gpu_free(bt);
	gpu_free(ae);
	gpu_free(be);
	if (rc) {
		free(*va);
		*va = NULL;
	}
	return rc;
}

/* pair_host_as in doubles, the result dtype a float one (integers:
 * Float); trace_int.h */
int trace_pair_host(struct trace_ctx *c, struct tval *a, struct tval *b,
		    enum ir_dtype *dt, int *rank, int64_t *dims,
		    double **va, double **vb)
{
	int rc = pair_host_as(c, a, b, IR_DTYPE_DOUBLE, dt, rank, dims,
			      (void **)va, (void **)vb);
	if (!is_float(*dt))
		*dt = IR_DTYPE_FLOAT;
	return rc;
}

static int op_binary_host(struct trace_ctx *c, const struct ir_node *n,
			  struct tval **in, int nin, struct tval **out,
			  int nout)
{
	int64_t dims[GPU_MAX_DIMS], cnt = 1;
	double *a, *b;
	enum ir_dtype dt;
	int rank;
	struct gpu_tensor *y;

	if (trace_pair_host(c, in[0], in[1], &dt, &rank, dims, &a, &b))
		return -1;
	for (int i = 0; i < rank; i++)
		cnt *= dims[i];
	for (int64_t i = 0; i < cnt; i++)
		a[i] = n->op != OP_aten_nextafter ? binary_of(n->op, a[i], b[i])
		       : dt == IR_DTYPE_FLOAT ? nextafterf((float)a[i], (float)b[i])
		       : nextafter(a[i], b[i]);
	y = trace_from_host(c, dt, rank, dims, IR_DTYPE_DOUBLE, a);
	free(a);
	free(b);
	return trace_out(c, out, y);
}

/* addr(self, vec1, vec2, beta=1, alpha=1): beta * self + alpha *
 * outer(vec1, vec2), self ignored when beta is 0 */
static int op_addr(struct trace_ctx *c, const struct ir_node *n,
		   struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *s, *v1, *v2, *se = NULL, *y;
	double beta = 1, alpha = 1, *hs = NULL, *h1 = NULL, *h2 = NULL;
	int64_t dims[2];
	enum ir_dtype dt;

	if (tv_get_tensor(c, in[0], 0, &s) || tv_get_tensor(c, in[1], 0, &v1) ||
	    tv_get_tensor(c, in[2], 0, &v2))
		return -1;
	if ((nin > 3 && tv_get_float(c, in[3], &beta)) ||
	    (nin > 4 && tv_get_float(c, in[4], &alpha)))
		return -1;
	if (v1->rank != 1 || v2->rank != 1)
		return trace_error(c, "addr: vec1 and vec2 must be 1-d");
	dt = trace_promote(in[1], in[2]);
	{
		struct tval sv = { .kind = TV_TENSOR, .refs = 1, .u.t = s };
		struct gpu_tensor g = *v1;
		struct tval pv = { .kind = TV_TENSOR, .refs = 1, .u.t = &g };

		g.dtype = dt;
		dt = trace_promote(&sv, &pv);
	}
	dims[0] = v1->dims[0];
	dims[1] = v2->dims[0];
	se = trace_expand(s, 2, dims);
	if (!se)
		return trace_error(c, "addr: self does not broadcast to the "
				   "outer product's shape");
	hs = trace_to_host(c, se, IR_DTYPE_DOUBLE);
	h1 = hs ? trace_to_host(c, v1, IR_DTYPE_DOUBLE) : NULL;
	h2 = h1 ? trace_to_host(c, v2, IR_DTYPE_DOUBLE) : NULL;
	gpu_free(se);
	y = NULL;
	if (h2) {
		for (int64_t i = 0; i < dims[0]; i++)
			for (int64_t j = 0; j < dims[1]; j++) {
				double p = alpha * h1[i] * h2[j];
				hs[i * dims[1] + j] = beta == 0 ? p :
					beta * hs[i * dims[1] + j] + p;
			}
		y = trace_from_host(c, dt, 2, dims, IR_DTYPE_DOUBLE, hs);
	}
	free(hs);
	free(h1);
	free(h2);
	return h2 ? trace_out(c, out, y) : -1;
}

/* outer, len, inner of x around dim d: x as [outer, len, inner] */
static void around(const struct gpu_tensor *x, int d, int64_t *outer,
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

/* cummax / cummin(self, dim): the running extreme and the index of its
 * last occurrence; a NaN, once met, stays (torch's kernel); and
 * logcumsumexp(self, dim) */
static int op_scan(struct trace_ctx *c, const struct ir_node *n,
		   struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x, *y, *iy = NULL;
	int64_t dim, outer, len, inner, *hi = NULL;
	int d, lse = n->op == OP_aten_logcumsumexp, mx = n->op == OP_aten_cummax;
	double *h;

	if (tv_get_tensor(c, in[0], 0, &x) || tv_get_int(c, in[1], &dim))
		return -1;
	if (trace_axis(c, dim, x->rank ? x->rank : 1, &d))
		return -1;
	if (lse && !is_float(x->dtype))
		return trace_error(c, "logcumsumexp of an integer tensor");
	around(x, d, &outer, &len, &inner);
	h = trace_to_host(c, x, IR_DTYPE_DOUBLE);
	if (!h)
		return -1;
	if (!lse && !(hi = malloc(sizeof(*hi) * (size_t)(outer * len * inner + 1)))) {
		free(h);
		return trace_error(c, "out of memory");
	}
	for (int64_t o = 0; o < outer; o++)
		for (int64_t k = 0; k < inner; k++) {
			double cur = 0;
			int64_t at = 0;
			for (int64_t i = 0; i < len; i++) {
				int64_t p = (o * len + i) * inner + k;
				double v = h[p];
				if (lse) {
					cur = i ? logaddexp_of(cur, v, 0) : v;
				} else if (!i || isnan(v) ||
					   (!isnan(cur) && (mx ? v >= cur : v <= cur))) {
					cur = v;
					at = i;
				}
				h[p] = cur;
				if (hi)
					hi[p] = at;
			}
		}
	y = trace_from_host(c, x->dtype, x->rank, x->dims, IR_DTYPE_DOUBLE, h);
	if (hi && y)
		iy = trace_from_host(c, IR_DTYPE_INT64, x->rank, x->dims,
				     IR_DTYPE_INT64, hi);
	free(h);
	free(hi);
	if (lse)
		return trace_out(c, out, y);
	if (!iy) {
		gpu_free(y);
		return -1;
	}
	if (trace_out(c, out, y))
		return -1;
	return trace_out(c, out + 1, iy);
}

/* diagflat(self, offset=0): the flattened input on diagonal offset */
static int op_diagflat(struct trace_ctx *c, const struct ir_node *n,
		       struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x, *y;
	int64_t k = 0, cnt = 1, m, dims[2];
	double *h, *hy;

	if (tv_get_tensor(c, in[0], 0, &x) ||
	    (nin > 1 && tv_get_int(c, in[1], &k)))
		return -1;
	for (int i = 0; i < x->rank; i++)
		cnt *= x->dims[i];
	m = cnt + (k < 0 ? -k : k);
	dims[0] = dims[1] = m;
	h = trace_to_host(c, x, IR_DTYPE_DOUBLE);
	hy = h ? calloc((size_t)(m * m > 0 ? m * m : 1), sizeof(double)) : NULL;
	y = NULL;
	if (hy) {
		for (int64_t i = 0; i < cnt; i++)
			hy[(k >= 0 ? i : i - k) * m + (k >= 0 ? i + k : i)] = h[i];
		y = trace_from_host(c, x->dtype, 2, dims, IR_DTYPE_DOUBLE, hy);
	} else if (h) {
		trace_error(c, "out of memory");
	}
	free(h);
	free(hy);
	return y ? trace_out(c, out, y) : -1;
}

/* dist(self, other, p=2): the p-norm of the broadcast difference */
static int op_dist(struct trace_ctx *c, const struct ir_node *n,
		   struct tval **in, int nin, struct tval **out, int nout)
{
	int64_t dims[GPU_MAX_DIMS], cnt = 1;
	double *a, *b, p = 2, acc = 0;
	enum ir_dtype dt;
	int rank;

	if (nin > 2 && tv_get_float(c, in[2], &p))
		return -1;
	if (trace_pair_host(c, in[0], in[1], &dt, &rank, dims, &a, &b))
		return -1;
	for (int i = 0; i < rank; i++)
		cnt *= dims[i];
	if (isinf(p))
		acc = cnt ? fabs(a[0] - b[0]) : 0;
	for (int64_t i = 0; i < cnt; i++) {
		double d = fabs(a[i] - b[i]);
		if (isinf(p))
			acc = p > 0 ? fmax(acc, d) : fmin(acc, d);
		else if (p == 0)
			acc += d != 0;
		else
			acc += pow(d, p);
	}
	if (!isinf(p) && p != 0)
		acc = pow(acc, 1 / p);
	free(a);
	free(b);
	return trace_out(c, out, trace_from_host(c, dt, 0, NULL,
						 IR_DTYPE_DOUBLE, &acc));
}

/* select_scatter(self, src, dim, index), slice_scatter(self, src, dim=0,
 * start=None, end=None, step=1), diagonal_scatter(self, src, offset=0,
 * dim1=0, dim2=1): a copy of self whose selected view is overwritten
 * with src (trace_write_into) */
static int op_view_scatter(struct trace_ctx *c, const struct ir_node *n,
			   struct tval **in, int nin, struct tval **out,
			   int nout)
{
	struct gpu_tensor *x, *src, *y, *v;
	int64_t dim = 0, start = 0, end = INT64_MAX, step = 1, idx = 0;
	int64_t dims[GPU_MAX_DIMS], strides[GPU_MAX_DIMS], off = 0, st = 1;
	int sel = n->op == OP_aten_select_scatter, d, r;
	int diag = n->op == OP_aten_diagonal_scatter, d2 = 0;
	int64_t dim2 = 1;
	void *h;

	if (tv_get_tensor(c, in[0], 0, &x) || tv_get_tensor(c, in[1], 0, &src))
		return -1;
	if (diag) {
		/* diagonal_scatter(self, src, offset=0, dim1=0, dim2=1):
		 * idx the offset, dim and dim2 the diagonal's dims */
		if ((nin > 2 && tv_get_int(c, in[2], &idx)) ||
		    (nin > 3 && tv_get_int(c, in[3], &dim)) ||
		    (nin > 4 && tv_get_int(c, in[4], &dim2)))
			return -1;
		if (x->rank < 2 || trace_axis(c, dim, x->rank, &d) ||
		    trace_axis(c, dim2, x->rank, &d2))
			return x->rank < 2 ? trace_error(c, "diagonal_scatter "
				"needs 2 or more dims") : -1;
		if (d == d2)
			return trace_error(c, "diagonal dimensions cannot be "
					   "identical %lld, %lld",
					   (long long)dim, (long long)dim2);
	} else if (sel ? tv_get_int(c, in[2], &dim) || tv_get_int(c, in[3], &idx)
		: (nin > 2 && tv_get_int(c, in[2], &dim)) ||
		  (nin > 3 && in[3]->kind != TV_NONE && tv_get_int(c, in[3], &start)) ||
		  (nin > 4 && in[4]->kind != TV_NONE && tv_get_int(c, in[4], &end)) ||
		  (nin > 5 && tv_get_int(c, in[5], &step)))
		return -1;
	if (!diag && (x->rank < 1 || trace_axis(c, dim, x->rank, &d)))
		return -1;
	int64_t len = x->dims[d];
	if (sel) {
		if (idx < -len || idx >= len)
			return trace_error(c, "select_scatter: index %lld out of "
					   "range for size %lld", (long long)idx,
					   (long long)len);
		start = idx < 0 ? idx + len : idx;
	} else if (!diag) {
		if (step < 1)
			return trace_error(c, "slice_scatter: step must be positive");
		start = start < 0 ? start + len : start;
		end = end < 0 ? end + len : end;
		start = start < 0 ? 0 : start > len ? len : start;
		end = end < start ? start : end > len ? len : end;
	}
	/* y: a contiguous copy of x */
	h = trace_to_host(c, x, IR_DTYPE_UNDEFINED);
	if (!h)
		return -1;
	y = trace_from_host(c, x->dtype, x->rank, x->dims, x->dtype, h);
	free(h);
	if (!y)
		return -1;
	r = 0;
	for (int i = x->rank - 1; i >= 0; i--) {
		strides[i] = st;
		st *= x->dims[i];
	}
	if (diag) {
		/* diagonal()'s view: the other dims, then the diagonal */
		int64_t n1 = x->dims[d], n2 = x->dims[d2], k = idx;
		int64_t dl = k >= 0 ? (n2 - k < n1 ? n2 - k : n1)
				    : (n1 + k < n2 ? n1 + k : n2);
		for (int i = 0; i < x->rank; i++)
			if (i != d && i != d2) {
				dims[r] = x->dims[i];
				strides[r++] = strides[i];
			}
		dims[r] = dl < 0 ? 0 : dl;
		strides[r++] = strides[d] + strides[d2];
		off = dl <= 0 ? 0 : k >= 0 ? k * strides[d2] : -k * strides[d];
	}
	for (int i = 0; i < x->rank && !diag; i++) {
		if (i == d) {
			off = start * strides[i];
			if (sel)
				continue;
			dims[r] = (end - start + step - 1) / step;
			strides[r++] = strides[i] * step;
			continue;
		}
		dims[r] = x->dims[i];
		strides[r++] = strides[i];
	}
	v = trace_view(c, y, r, dims, strides, y->offset + off);
	if (!v || trace_write_into(c, v, src)) {
		gpu_free(v);
		gpu_free(y);
		return -1;
	}
	gpu_free(v);
	return trace_out(c, out, y);
}

/* diff(self, n=1, dim=-1, prepend=None, append=None): prepend, self and
 * append joined on dim, then n times x[1:] - x[:-1] (a logical xor for
 * bool) */
static int op_diff(struct trace_ctx *c, const struct ir_node *n,
		   struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *t[3], *x, *y;
	int64_t k = 1, dim = -1, outer, inner, len = 0, dims[GPU_MAX_DIMS];
	int nt = 0, d;
	double *h, *part;

	if (tv_get_tensor(c, in[0], 0, &x) ||
	    (nin > 1 && tv_get_int(c, in[1], &k)) ||
	    (nin > 2 && tv_get_int(c, in[2], &dim)))
		return -1;
	if (x->rank < 1 || k < 0 || trace_axis(c, dim, x->rank, &d))
		return x->rank < 1 || k < 0 ?
		       trace_error(c, "diff needs a tensor of 1 or more dims "
				   "and n >= 0") : -1;
	if (nin > 3 && in[3]->kind != TV_NONE && tv_get_tensor(c, in[3], 0, &t[nt++]))
		return -1;
	t[nt++] = x;
	if (nin > 4 && in[4]->kind != TV_NONE && tv_get_tensor(c, in[4], 0, &t[nt++]))
		return -1;
	for (int i = 0; i < nt; i++) {
		if (t[i]->rank != x->rank)
			return trace_error(c, "diff: prepend and append need the "
					   "input's rank");
		for (int j = 0; j < x->rank; j++)
			if (j != d && t[i]->dims[j] != x->dims[j])
				return trace_error(c, "diff: prepend or append "
						   "differs in size off dim");
		len += t[i]->dims[d];
	}
	for (int j = 0; j < x->rank; j++)
		dims[j] = x->dims[j];
	dims[d] = len;
	outer = inner = 1;
	for (int j = 0; j < x->rank; j++) {
		if (j < d)
			outer *= dims[j];
		else if (j > d)
			inner *= dims[j];
	}
	h = malloc(sizeof(double) * (size_t)(outer * len * inner + 1));
	if (!h)
		return trace_error(c, "out of memory");
	for (int i = 0, at = 0; i < nt; at += (int)t[i]->dims[d], i++) {
		int64_t l = t[i]->dims[d];
		part = trace_to_host(c, t[i], IR_DTYPE_DOUBLE);
		if (!part) {
			free(h);
			return -1;
		}
		for (int64_t o = 0; o < outer; o++)
			for (int64_t j = 0; j < l; j++)
				for (int64_t q = 0; q < inner; q++)
					h[(o * len + at + j) * inner + q] =
						part[(o * l + j) * inner + q];
		free(part);
	}
	/* each pass shortens dim by one, in place: row j = row j+1 - row j */
	for (int64_t p = 0; p < k && len > 0; p++, len--)
		for (int64_t o = 0; o < outer; o++)
			for (int64_t j = 0; j + 1 < len; j++)
				for (int64_t q = 0; q < inner; q++) {
					double *a = &h[(o * dims[d] + j) * inner + q];
					double b = h[(o * dims[d] + j + 1) * inner + q];
					*a = x->dtype == IR_DTYPE_BOOL ?
					     (double)((b != 0) != (*a != 0)) : b - *a;
				}
	/* compact rows [0, len) of each outer block */
	for (int64_t o = 0; o < outer; o++)
		for (int64_t j = 0; j < len; j++)
			for (int64_t q = 0; q < inner; q++)
				h[(o * len + j) * inner + q] =
					h[(o * dims[d] + j) * inner + q];
	dims[d] = len;
	y = trace_from_host(c, x->dtype, x->rank, dims, IR_DTYPE_DOUBLE, h);
	free(h);
	return trace_out(c, out, y);
}

/* max_unpool2d(self, indices, output_size), max_unpool3d(self, indices,
 * output_size, stride, padding): zeros of [N, C, *output_size] with each
 * value written at its index into its channel's flattened output */
static int op_max_unpool(struct trace_ctx *c, const struct ir_node *n,
			 struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x, *ix, *y;
	int64_t os[3], dims[5], per = 1, cnt = 1, planes;
	int sp = n->op == OP_aten_max_unpool3d ? 3 : 2, k;
	double *hx, *hy;
	int64_t *hi;

	if (tv_get_tensor(c, in[0], 0, &x) || tv_get_tensor(c, in[1], 0, &ix))
		return -1;
	if (tv_get_ints(c, in[2], os, 3, &k))
		return -1;
	if (k != sp || x->rank != sp + 2 || ix->rank != x->rank)
		return trace_error(c, "max_unpool: expects [N, C, ...] input and "
				   "indices and %d output sizes", sp);
	for (int i = 0; i < x->rank; i++) {
		if (ix->dims[i] != x->dims[i])
			return trace_error(c, "max_unpool: indices differ in shape "
					   "from the input");
		cnt *= x->dims[i];
	}
	for (int i = 0; i < sp; i++)
		per *= os[i];
	planes = x->dims[0] * x->dims[1];
	dims[0] = x->dims[0];
	dims[1] = x->dims[1];
	for (int i = 0; i < sp; i++)
		dims[2 + i] = os[i];
	hx = trace_to_host(c, x, IR_DTYPE_DOUBLE);
	hi = hx ? trace_to_host(c, ix, IR_DTYPE_INT64) : NULL;
	hy = hi ? calloc((size_t)(planes * per > 0 ? planes * per : 1),
			  sizeof(double)) : NULL;
	y = NULL;
	if (hy) {
		int64_t in_per = planes ? cnt / planes : 0;
		for (int64_t i = 0; i < cnt; i++) {
			int64_t j = hi[i];
			if (j < 0 || j >= per) {
				free(hx);
				free(hi);
				free(hy);
				return trace_error(c, "max_unpool: invalid max index "
						   "%lld (output of %lld values)",
						   (long long)j, (long long)per);
			}
			hy[(i / in_per) * per + j] = hx[i];
		}
		y = trace_from_host(c, x->dtype, sp + 2, dims, IR_DTYPE_DOUBLE, hy);
	} else if (hi) {
		trace_error(c, "out of memory");
	}
	free(hx);
	free(hi);
	free(hy);
	return y ? trace_out(c, out, y) : -1;
}

/* signbit, isposinf, isneginf, isreal (of a real tensor: true) as bools;
 * angle of a real tensor: pi where it is negative, NaN where NaN, else 0
 * (Float for integers) */
static int op_real_unary(struct trace_ctx *c, const struct ir_node *n,
			 struct tval **in, int nin, struct tval **out,
			 int nout)
{
	struct gpu_tensor *x, *y;
	double *v;
	int64_t cnt = 1;
	enum ir_dtype dt = IR_DTYPE_BOOL;

	if (tv_get_tensor(c, in[0], 0, &x))
		return -1;
	if (n->op == OP_aten_angle)
		dt = is_float(x->dtype) ? x->dtype : IR_DTYPE_FLOAT;
	v = trace_to_host(c, x, IR_DTYPE_DOUBLE);
	if (!v)
		return -1;
	for (int i = 0; i < x->rank; i++)
		cnt *= x->dims[i];
	for (int64_t i = 0; i < cnt; i++) {
		double a = v[i];
		switch (n->op) {
		case OP_aten_signbit: v[i] = signbit(a) != 0; break;
		case OP_aten_isposinf: v[i] = a == INFINITY; break;
		case OP_aten_isneginf: v[i] = a == -INFINITY; break;
		case OP_aten_isreal: v[i] = 1; break;
		default: v[i] = isnan(a) ? a : a < 0 ? M_PI : 0; break;
		}
	}
	y = trace_from_host(c, dt, x->rank, x->dims, IR_DTYPE_DOUBLE, v);
	free(v);
	return trace_out(c, out, y);
}

/* frexp(x) of a float tensor: C's frexp per element, the mantissa in
 * x's dtype, the exponent int32 */
static int op_frexp(struct trace_ctx *c, const struct ir_node *n,
		    struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x, *y, *ey;
	double *v, *e;
	int64_t cnt = 1;

	if (tv_get_tensor(c, in[0], 0, &x))
		return -1;
	if (!is_float(x->dtype))
		return trace_error(c, "torch.frexp() only supports floating-point dtypes");
	v = trace_to_host(c, x, IR_DTYPE_DOUBLE);
	if (!v)
		return -1;
	for (int i = 0; i < x->rank; i++)
		cnt *= x->dims[i];
	e = calloc(cnt ? (size_t)cnt : 1, sizeof(*e));
	if (!e) {
		free(v);
		return trace_error(c, "out of memory");
	}
	for (int64_t i = 0; i < cnt; i++) {
		int k = 0;
		v[i] = frexp(v[i], &k);
		e[i] = k;
	}
	y = trace_from_host(c, x->dtype, x->rank, x->dims, IR_DTYPE_DOUBLE, v);
	ey = trace_from_host(c, IR_DTYPE_INT32, x->rank, x->dims, IR_DTYPE_DOUBLE, e);
	free(v);
	free(e);
	if (!y || !ey) {
		if (y)
			gpu_free(y);
		if (ey)
			gpu_free(ey);
		return y ? trace_error(c, "out of memory") : -1;
	}
	if (trace_out(c, out, y))
		return -1;
	return trace_out(c, out + 1, ey);
}

/* What gradient's pieces share: the input on the host, its dtype and
 * dims, per gradient its dim and its spacing (a number h, or the
 * coordinates co on the host), the edge order */
struct grad {
	double *x;
	enum ir_dtype dt;
	int rank;
	int64_t dims[GPU_MAX_DIMS], dim[GPU_MAX_DIMS], edge;
	double h[GPU_MAX_DIMS];
	double *co[GPU_MAX_DIMS];
};

/* the gradient along g->dim[i] as torch's gradient_helper(_float): the
 * centre, then the edges of order 1 or 2 */
static struct gpu_tensor *grad_piece(struct trace_ctx *c, int i, void *arg)
{
	const struct grad *g = arg;
	int64_t d = g->dim[i], len = g->dims[d], outer = 1, inner = 1, cnt;
	const double *co = g->co[i], h = g->h[i];
	double *y;
	struct gpu_tensor *t;

	for (int j = 0; j < g->rank; j++) {
		if (j < d)
			outer *= g->dims[j];
		else if (j > d)
			inner *= g->dims[j];
	}
	cnt = outer * len * inner;
	y = malloc(sizeof(*y) * (size_t)(cnt ? cnt : 1));
	if (!y) {
		trace_error(c, "out of memory");
		return NULL;
	}
	for (int64_t o = 0; o < outer; o++)
		for (int64_t q = 0; q < inner; q++) {
			const double *f = g->x + o * len * inner + q;
			double *v = y + o * len * inner + q;
#define F(k) f[(k) * inner]
#define V(k) v[(k) * inner]
#define DX(k) (co[(k) + 1] - co[k])
			for (int64_t k = 1; k < len - 1; k++) {
				if (!co) {
					V(k) = (F(k + 1) - F(k - 1)) / h / 2;
				} else {
					double d1 = DX(k - 1), d2 = DX(k);
					V(k) = -d2 / (d1 * (d1 + d2)) * F(k - 1) +
					       (d2 - d1) / (d1 * d2) * F(k) +
					       d1 / (d2 * (d1 + d2)) * F(k + 1);
				}
			}
			if (g->edge == 1) {
				V(0) = (F(1) - F(0)) / (co ? DX(0) : h);
				V(len - 1) = (F(len - 1) - F(len - 2)) /
					     (co ? DX(len - 2) : h);
			} else if (!co) {
				V(0) = (-1.5 * F(0) + 2 * F(1) - 0.5 * F(2)) / h;
				V(len - 1) = (0.5 * F(len - 3) - 2 * F(len - 2) +
					      1.5 * F(len - 1)) / h;
			} else {
				double a = DX(0), b = DX(1), e = DX(len - 2),
				       p = DX(len - 3);
				V(0) = -(2 * a + b) / (a * (a + b)) * F(0) +
				       (a + b) / (a * b) * F(1) -
				       a / (b * (a + b)) * F(2);
				V(len - 1) = e / (p * (e + p)) * F(len - 3) -
					     (e + p) / (e * p) * F(len - 2) +
					     (2 * e + p) / (e * (e + p)) * F(len - 1);
			}
#undef F
#undef V
#undef DX
		}
	t = trace_from_host(c, g->dt, g->rank, g->dims, IR_DTYPE_DOUBLE, y);
	free(y);
	return t;
}

/* gradient(self, spacing, dim, edge_order), every overload (.array:
 * no spacing): spacing None (1), a number, a list of numbers or of 1-d
 * coordinate tensors, one per dim; dim None (all), an int or a list */
static int op_gradient(struct trace_ctx *c, const struct ir_node *n,
		       struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x;
	struct tval *sp = nin > 3 ? in[1] : NULL, *dv = in[nin > 3 ? 2 : 1];
	struct grad g = { 0 };
	int nd = 0, rc = -1, ncol = 0;

	if (tv_get_tensor(c, in[0], 0, &x) || tv_get_int(c, in[nin - 1], &g.edge))
		return -1;
	if (x->rank < 1)
		return trace_error(c, "torch.gradient only supports tensors of at least 1 dimension");
	if (g.edge != 1 && g.edge != 2)
		return trace_error(c, "torch.gradient only supports edge_order=1 and edge_order=2.");
	g.rank = x->rank;
	for (int i = 0; i < x->rank; i++)
		g.dims[i] = x->dims[i];
	if (dv->kind == TV_NONE) {
		nd = x->rank;
		for (int i = 0; i < nd; i++)
			g.dim[i] = i;
	} else {
		if (tv_get_ints(c, dv, g.dim, GPU_MAX_DIMS, &nd))
			return -1;
		if (dv->kind != TV_LIST && dv->kind != TV_TUPLE)
			nd = 1;
		for (int i = 0; i < nd; i++) {
			int a;
			if (trace_axis(c, g.dim[i], x->rank, &a))
				return -1;
			g.dim[i] = a;
		}
	}
	for (int i = 0; i < nd; i++) {
		g.h[i] = 1;
		if (g.dims[g.dim[i]] < g.edge + 1)
			return trace_error(c, "torch.gradient expected each dimension size to be at least edge_order+1");
	}
	if (sp && sp->kind == TV_LIST) {
		if (sp->u.list.n != nd)
			return trace_error(c, "torch.gradient expected spacing to be unspecified, a scalar or a list of length %d", nd);
		for (int i = 0; i < nd; i++) {
			struct tval *e = sp->u.list.items[i];
			struct gpu_tensor *ct;
			if (e->kind != TV_TENSOR) {
				if (tv_get_float(c, e, &g.h[i]))
					goto done;
				continue;
			}
			if (tv_get_tensor(c, e, 0, &ct))
				goto done;
			if (ct->rank != 1 || ct->dims[0] != g.dims[g.dim[i]]) {
				trace_error(c, "torch.gradient expected each tensor to be 1-d with the size of its dim");
				goto done;
			}
			if (!(g.co[i] = trace_to_host(c, ct, IR_DTYPE_DOUBLE)))
				goto done;
			ncol = i + 1;
		}
	} else if (sp && sp->kind != TV_NONE) {
		double h;
		if (tv_get_float(c, sp, &h))
			return -1;
		for (int i = 0; i < nd; i++)
			g.h[i] = h;
	}
	g.dt = is_float(x->dtype) ? x->dtype : IR_DTYPE_FLOAT;
	if (!(g.x = trace_to_host(c, x, IR_DTYPE_DOUBLE)))
		goto done;
	rc = sh_make_list(c, out, nd, grad_piece, &g);
done:
	free(g.x);
	for (int i = 0; i < ncol; i++)
		free(g.co[i]);
	return rc;
}

/* torch's generate_intervals: the window starts of one dim, computed in
 * the input's dtype (fl: float) */
static void frac_intervals(double u, int64_t in, int64_t out, int64_t k,
			   int fl, int64_t *seq)
{
	if (out > 1) {
		double alpha = fl ? (double)((float)(in - k) / (float)(out - 1))
				  : (double)(in - k) / (double)(out - 1);
		for (int64_t i = 0; i < out - 1; i++)
			seq[i] = fl ? (int64_t)(float)((float)((float)i + (float)u) * (float)alpha) -
				      (int64_t)(float)((float)u * (float)alpha)
				    : (int64_t)(((double)i + u) * alpha) - (int64_t)(u * alpha);
	}
	if (out > 0)
		seq[out - 1] = in - k;
}

/* fractional_max_pool2d/3d(self, kernel_size, output_size,
 * random_samples) as torch's CPU kernel: per plane the window starts
 * from its samples (2-d: sample 0 W, 1 H; 3-d: T, H, W), the maximum of
 * each window and its flat plane index (the first, or a NaN: the last
 * NaN); (N,) C and the spatial dims */
static int op_fractional_max_pool(struct trace_ctx *c, const struct ir_node *n,
				  struct tval **in, int nin, struct tval **out, int nout)
{
	int d = n->op == OP_aten_fractional_max_pool3d ? 3 : 2, kn, on, rc = -1;
	struct gpu_tensor *x, *u, *y, *iy;
	int64_t ks[3], os[3], sz[3], planes, plane = 1, oplane = 1, *seq = NULL;
	int64_t odims[GPU_MAX_DIMS];
	double *hx = NULL, *hu = NULL, *hy = NULL, *hi = NULL;

	if (tv_get_tensor(c, in[0], 0, &x) || tv_get_ints(c, in[1], ks, 3, &kn) ||
	    tv_get_ints(c, in[2], os, 3, &on) || tv_get_tensor(c, in[3], 0, &u))
		return -1;
	if (kn == 1)
		for (int j = 1; j < d; j++)
			ks[j] = ks[0];
	if (on == 1)
		for (int j = 1; j < d; j++)
			os[j] = os[0];
	if ((x->rank != d + 1 && x->rank != d + 2) || !is_float(x->dtype))
		return trace_error(c, "fractional_max_pool%dd: a float input of %d or %d dims",
				   d, d + 1, d + 2);
	planes = 1;
	for (int j = 0; j < x->rank - d; j++)
		planes *= x->dims[j];
	for (int j = 0; j < d; j++) {
		sz[j] = x->dims[x->rank - d + j];
		if (ks[j] < 1 || os[j] < 1 || os[j] + ks[j] - 1 > sz[j])
			return trace_error(c, "fractional_max_pool%dd(): pool size %lld and "
					   "output size %lld are too large for input size %lld",
					   d, (long long)ks[j], (long long)os[j], (long long)sz[j]);
		plane *= sz[j];
		oplane *= os[j];
	}
	if (u->rank != 3 || u->dims[2] != d || u->dims[0] * u->dims[1] != planes)
		return trace_error(c, "fractional_max_pool%dd: random_samples of shape "
				   "[N, C, %d] are needed", d, d);
	hx = trace_to_host(c, x, IR_DTYPE_DOUBLE);
	hu = trace_to_host(c, u, IR_DTYPE_DOUBLE);
	hy = malloc(sizeof(double) * (size_t)(planes * oplane + 1));
	hi = malloc(sizeof(double) * (size_t)(planes * oplane + 1));
	seq = malloc(sizeof(int64_t) * (size_t)(os[0] + os[1] + (d == 3 ? os[2] : 0) + 1));
	if (!hx || !hu || !hy || !hi || !seq) {
		if (hx && hu)
			trace_error(c, "out of memory");
		goto done;
	}
	int fl = x->dtype != IR_DTYPE_DOUBLE;
	for (int64_t p = 0; p < planes; p++) {
		int64_t *st[3], at = 0;
		for (int j = 0; j < d; j++) {
			st[j] = seq + at;
			at += os[j];
			frac_intervals(hu[p * d + (d == 2 ? 1 - j : j)], sz[j], os[j], ks[j], fl, st[j]);
		}
		const double *xp = hx + p * plane;
		int64_t oi[3] = { 0, 0, 0 }, o2 = d == 3 ? os[2] : 1, k2 = d == 3 ? ks[2] : 1,
			s1 = d == 3 ? sz[1] * sz[2] : sz[1], s2 = d == 3 ? sz[2] : 1;
		for (oi[0] = 0; oi[0] < os[0]; oi[0]++)
			for (oi[1] = 0; oi[1] < os[1]; oi[1]++)
				for (oi[2] = 0; oi[2] < o2; oi[2]++) {
					int64_t a0 = st[0][oi[0]], a1 = st[1][oi[1]],
						a2 = d == 3 ? st[2][oi[2]] : 0;
					double mv = -INFINITY;
					int64_t mi = a0 * s1 + a1 * s2 + a2;
					for (int64_t q0 = a0; q0 < a0 + ks[0]; q0++)
						for (int64_t q1 = a1; q1 < a1 + ks[1]; q1++)
							for (int64_t q2 = a2; q2 < a2 + k2; q2++) {
								int64_t pi = q0 * s1 + q1 * s2 + q2;
								double val = xp[pi];
								if (val > mv || isnan(val)) {
									mv = val;
									mi = pi;
								}
							}
					int64_t o = p * oplane + (oi[0] * os[1] + oi[1]) * o2 + oi[2];
					hy[o] = mv;
					hi[o] = (double)mi;
				}
	}
	for (int j = 0; j < x->rank - d; j++)
		odims[j] = x->dims[j];
	for (int j = 0; j < d; j++)
		odims[x->rank - d + j] = os[j];
	y = trace_from_host(c, x->dtype, x->rank, odims, IR_DTYPE_DOUBLE, hy);
	iy = y ? trace_from_host(c, IR_DTYPE_INT64, x->rank, odims, IR_DTYPE_DOUBLE, hi) : NULL;
	if (!iy) {
		if (y)
			gpu_free(y);
		goto done;
	}
	if (trace_out(c, out, y)) {
		gpu_free(iy);
		goto done;
	}
	rc = nout > 1 ? trace_out(c, out + 1, iy) : (gpu_free(iy), 0);
done:
	free(hx);
	free(hu);
	free(hy);
	free(hi);
	free(seq);
	return rc;
}

/* segment_reduce(data, reduce, lengths?, indices?, offsets?, axis,
 * unsafe, initial?) along axis 0 with 1-d lengths or offsets, as torch's
 * CPU kernel (SegmentReduce.cpp): per segment and inner position the
 * initial value (or 0, 1, -inf, inf), the reduction in order (a NaN
 * stays in max and min), mean divided by the length (empty: NaN without
 * an initial) */
static int op_segment_reduce(struct trace_ctx *c, const struct ir_node *n,
			     struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x, *lt = NULL, *ot = NULL, *y;
	const char *red;
	int64_t ax = 0, nseg, inner = 1, start = 0;
	int rc = -1, kind, hasinit = nin > 7 && in[7]->kind != TV_NONE;
	double init = 0, *hx = NULL, *hl = NULL, *hy = NULL;
	int64_t dims[GPU_MAX_DIMS];

	if (tv_get_tensor(c, in[0], 0, &x) || in[1]->kind != TV_STR ||
	    tv_get_tensor(c, in[2], 1, &lt) || (nin > 4 && tv_get_tensor(c, in[4], 1, &ot)) ||
	    (nin > 5 && tv_get_int(c, in[5], &ax)) || (hasinit && tv_get_float(c, in[7], &init)))
		return in[1]->kind != TV_STR ? trace_error(c, "segment_reduce: reduce is not a string") : -1;
	red = in[1]->u.s;
	kind = !strcmp(red, "sum") ? 0 : !strcmp(red, "mean") ? 1 : !strcmp(red, "max") ? 2 :
	       !strcmp(red, "min") ? 3 : !strcmp(red, "prod") ? 4 : -1;
	if (kind < 0)
		return trace_error(c, "segment_reduce: reduce argument must be either sum, mean, max, min or prod, got %s", red);
	if (ax != 0 || x->rank < 1 || !is_float(x->dtype) || (!lt && !ot) ||
	    (lt ? lt : ot)->rank != 1)
		return trace_error(c, "segment_reduce: float data along axis 0 with 1-d "
				   "lengths or offsets are supported");
	for (int i = 1; i < x->rank; i++)
		inner *= x->dims[i];
	hl = trace_to_host(c, lt ? lt : ot, IR_DTYPE_DOUBLE);
	hx = trace_to_host(c, x, IR_DTYPE_DOUBLE);
	nseg = lt ? lt->dims[0] : ot->dims[0] - 1;
	if (!hl || !hx || nseg < 0)
		goto done;
	hy = malloc(sizeof(double) * (size_t)(nseg * inner + 1));
	if (!hy) {
		trace_error(c, "out of memory");
		goto done;
	}
	for (int64_t sgi = 0; sgi < nseg; sgi++) {
		int64_t s0 = lt ? start : (int64_t)hl[sgi];
		int64_t len = lt ? (int64_t)hl[sgi] : (int64_t)hl[sgi + 1] - s0;
		if (len < 0 || s0 < 0 || s0 + len > x->dims[0]) {
			trace_error(c, "segment_reduce: lengths or offsets out of the data's range");
			goto done;
		}
		for (int64_t q = 0; q < inner; q++) {
			double v = hasinit ? init : kind == 2 ? -INFINITY : kind == 3 ? INFINITY :
				   kind == 4 ? 1 : 0;
			for (int64_t j = 0; j < len; j++) {
				double dv = hx[(s0 + j) * inner + q];
				if (kind == 2)
					v = isnan(dv) ? dv : (v < dv ? dv : v);
				else if (kind == 3)
					v = isnan(dv) ? dv : (dv < v ? dv : v);
				else if (kind == 4)
					v *= dv;
				else
					v += dv;
			}
			if (kind == 1 && len == 0 && !hasinit)
				v = NAN;
			else if (kind == 1 && len > 0 && !isnan(v))
				v /= (double)len;
			hy[sgi * inner + q] = v;
		}
		start += len;
	}
	for (int i = 0; i < x->rank; i++)
		dims[i] = x->dims[i];
	dims[0] = nseg;
	y = trace_from_host(c, x->dtype, x->rank, dims, IR_DTYPE_DOUBLE, hy);
	rc = y ? trace_out(c, out, y) : -1;
done:
	free(hx);
	free(hl);
	free(hy);
	return rc;
}

/* positive, and real of a real tensor: the tensor itself */
static int op_itself(struct trace_ctx *c, const struct ir_node *n,
		     struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x;

	if (tv_get_tensor(c, in[0], 0, &x))
		return -1;
	if (x->dtype == IR_DTYPE_BOOL && n->op == OP_aten_positive)
		return trace_error(c, "The `+` operator, on a bool tensor is "
				   "not supported.");
	return trace_out(c, out, trace_alias(c, x));
}

/* v rounded to float where the computation is in float */
static double in_dt(double v, enum ir_dtype dt)
{
	return dt == IR_DTYPE_FLOAT ? (double)(float)v : v;
}

/* heaviside(self, values): values where self is 0, else self > 0;
 * ldexp(self, other): self * 2 ** other; isclose(self, other, rtol,
 * atol, equal_nan): self == other, or both NaN (equal_nan), or a finite
 * |self - other| <= atol + |rtol * other| computed in self's dtype (as
 * torch's isclose) */
static int op_binary_real(struct trace_ctx *c, const struct ir_node *n,
			  struct tval **in, int nin, struct tval **out,
			  int nout)
{
	int64_t dims[GPU_MAX_DIMS], cnt = 1;
	double *a, *b, rtol = 1e-5, atol = 1e-8;
	enum ir_dtype dt;
	int rank, eqnan = 0;
	struct gpu_tensor *y;

	if (n->op == OP_aten_isclose &&
	    ((nin > 2 && tv_get_float(c, in[2], &rtol)) ||
	     (nin > 3 && tv_get_float(c, in[3], &atol)) ||
	     (nin > 4 && tv_get_bool(c, in[4], &eqnan))))
		return -1;
	if (pair_host_as(c, in[0], in[1], IR_DTYPE_DOUBLE, &dt, &rank, dims,
			 (void **)&a, (void **)&b))
		return -1;
	for (int i = 0; i < rank; i++)
		cnt *= dims[i];
	enum ir_dtype cd = is_float(dt) ? dt : IR_DTYPE_FLOAT;
	for (int64_t i = 0; i < cnt; i++) {
		double x = a[i], o = b[i];
		if (n->op == OP_aten_heaviside) {
			a[i] = x == 0 ? o : x > 0;
		} else if (n->op == OP_aten_ldexp) {
			a[i] = in_dt(x * in_dt(exp2(o), cd), cd);
		} else {
			int cl = x == o || (eqnan && isnan(x) && isnan(o));
			if (!cl && (rtol != 0 || atol != 0)) {
				double al = in_dt(atol + fabs(in_dt(rtol * o, cd)), cd);
				double ac = fabs(in_dt(x - o, cd));
				cl = isfinite(ac) && ac <= al;
			}
			a[i] = cl;
		}
	}
	if (n->op == OP_aten_isclose)
		dt = IR_DTYPE_BOOL;
	else if (n->op == OP_aten_ldexp)
		dt = cd;
	y = trace_from_host(c, dt, rank, dims, IR_DTYPE_DOUBLE, a);
	free(a);
	free(b);
	return trace_out(c, out, y);
}

/* gcd and lcm of integers, as torch's calc_gcd (Euclid on the absolute
 * values) and lcm = |a / g * b| (0 where g is 0), in int64 */
static int op_gcd(struct trace_ctx *c, const struct ir_node *n,
		  struct tval **in, int nin, struct tval **out, int nout)
{
	int64_t dims[GPU_MAX_DIMS], cnt = 1, *a, *b;
	enum ir_dtype dt;
	int rank;
	struct gpu_tensor *y;

	if (pair_host_as(c, in[0], in[1], IR_DTYPE_INT64, &dt, &rank, dims,
			 (void **)&a, (void **)&b))
		return -1;
	if (is_float(dt) || dt == IR_DTYPE_BOOL) {
		free(a);
		free(b);
		return trace_error(c, "\"%s_cpu\" not implemented for '%s'",
				   n->op == OP_aten_gcd ? "gcd" : "lcm",
				   ir_dtype_torch_name(dt));
	}
	for (int i = 0; i < rank; i++)
		cnt *= dims[i];
	for (int64_t i = 0; i < cnt; i++) {
		uint64_t x = a[i] < 0 ? -(uint64_t)a[i] : (uint64_t)a[i];
		uint64_t z = b[i] < 0 ? -(uint64_t)b[i] : (uint64_t)b[i];
		while (x) {
			uint64_t t = x;
			x = z % x;
			z = t;
		}
		if (n->op == OP_aten_gcd) {
			a[i] = (int64_t)z;
		} else {
			uint64_t p = z ? (uint64_t)(a[i] / (int64_t)z) * (uint64_t)b[i] : 0;
			a[i] = (int64_t)p < 0 ? (int64_t)-p : (int64_t)p;
		}
	}
	y = trace_from_host(c, dt, rank, dims, IR_DTYPE_INT64, a);
	free(a);
	free(b);
	return trace_out(c, out, y);
}

const struct trace_op trace_ops_math_host[] = {
	{ OP_aten_signbit, op_real_unary, 0 },
	{ OP_aten_isposinf, op_real_unary, 0 },
	{ OP_aten_isneginf, op_real_unary, 0 },
	{ OP_aten_isreal, op_real_unary, 0 },
	{ OP_aten_angle, op_real_unary, 0 },
	{ OP_aten_positive, op_itself, 0 },
	{ OP_aten_real, op_itself, 0 },
	{ OP_aten_heaviside, op_binary_real, 0 },
	{ OP_aten_ldexp, op_binary_real, 0 },
	{ OP_aten_isclose, op_binary_real, 0 },
	{ OP_aten_gcd, op_gcd, 0 },
	{ OP_aten_lcm, op_gcd, 0 },
	{ OP_aten_erfc, op_unary_host, 0 },
	{ OP_aten_special_erfc, op_unary_host, 0 },
	{ OP_aten_exp2, op_unary_host, 0 },
	{ OP_aten_special_exp2, op_unary_host, 0 },
	{ OP_aten_deg2rad, op_unary_host, 0 },
	{ OP_aten_rad2deg, op_unary_host, 0 },
	{ OP_aten_sgn, op_unary_host, 0 },
	{ OP_aten_special_ndtr, op_unary_host, 0 },
	{ OP_aten_sinc, op_unary_host, 0 },
	{ OP_aten_special_sinc, op_unary_host, 0 },
	{ OP_aten_special_entr, op_unary_host, 0 },
	{ OP_aten__to_copy, op_to_copy, 0 },
	{ OP_aten_max_unpool2d, op_max_unpool, 0 },
	{ OP_aten_cummax, op_scan, 0 },
	{ OP_aten_cummin, op_scan, 0 },
	{ OP_aten_logcumsumexp, op_scan, 0 },
	{ OP_aten_diagflat, op_diagflat, 0 },
	{ OP_aten_dist, op_dist, 0 },
	{ OP_aten_diff, op_diff, 0 },
	{ OP_aten_select_scatter, op_view_scatter, 0 },
	{ OP_aten_slice_scatter, op_view_scatter, 0 },
	{ OP_aten_diagonal_scatter, op_view_scatter, 0 },
	{ OP_aten_max_unpool3d, op_max_unpool, 0 },
	{ OP_aten_logaddexp, op_binary_host, 0 },
	{ OP_aten_logaddexp2, op_binary_host, 0 },
	{ OP_aten_copysign, op_binary_host, 0 },
	{ OP_aten_hypot, op_binary_host, 0 },
	{ OP_aten_nextafter, op_binary_host, 0 },
	{ OP_aten_frexp, op_frexp, 0 },
	{ OP_aten_gradient, op_gradient, 0 },
	{ OP_aten_segment_reduce, op_segment_reduce, 0 },
	{ OP_aten_fractional_max_pool2d, op_fractional_max_pool, 0 },
	{ OP_aten_fractional_max_pool3d, op_fractional_max_pool, 0 },
	{ OP_aten_xlogy, op_binary_host, 0 },
	{ OP_aten_special_xlogy, op_binary_host, 0 },
	{ OP_aten_special_xlog1py, op_binary_host, 0 },
	{ OP_aten_addr, op_addr, 0 },
	{ OP_NONE, NULL, 0 },
};

/*
 * ops_products_host.c - trace kernels on the host for more of issue 14's
 * long tail of shapes and products: kron, vdot, linalg_vecdot,
 * linalg_vander, linalg_multi_dot, linalg_matrix_power (matrix_power),
 * combinations, fft_fftshift, fft_ifftshift, narrow_copy,
 * new_empty_strided and as_strided_scatter.  The moves copy elements in
 * their own dtype; the products compute in double and round to torch's
 * dtype, so each runs on either backend.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "itertools.h"
#include "ops_shape.h"
#include "trace_int.h"

static int64_t numel(int rank, const int64_t *dims)
{
	int64_t k = 1;
	for (int i = 0; i < rank; i++)
		k *= dims[i];
	return k;
}

/* the tensor of (rank, dims) whose element e is x's element src[e]
 * (row-major), in x's dtype */
static int out_gather(struct trace_ctx *c, struct tval **out,
		      const struct gpu_tensor *x, int rank,
		      const int64_t *dims, const int64_t *src)
{
	size_t es = ir_dtype_size(x->dtype);
	int64_t cnt = numel(rank, dims);
	char *h = trace_to_host(c, x, IR_DTYPE_UNDEFINED);
	char *o = malloc(es * (size_t)(cnt + 1));
	struct gpu_tensor *y = NULL;
	if (h && o) {
		for (int64_t e = 0; e < cnt; e++)
			memcpy(o + es * (size_t)e, h + es * (size_t)src[e], es);
		y = trace_from_host(c, x->dtype, rank, dims, x->dtype, o);
	} else if (h) {
		trace_oom(c);
	}
	free(h);
	free(o);
	return y ? trace_out(c, out, y) : -1;
}

/* narrow_copy(self, dim, start, length): a copy of self[.., start:start +
 * length, ..] (start negative: from the end) */
static int op_narrow_copy(struct trace_ctx *c, const struct ir_node *n,
			  struct tval **in, int nin, struct tval **out,
			  int nout)
{
	struct gpu_tensor *x;
	int64_t dim, st, len, dims[GPU_MAX_DIMS], *src, outer = 1, inner = 1;
	int d, rc;

	if (tv_get_tensor(c, in[0], 0, &x) || tv_get_int(c, in[1], &dim) ||
	    tv_get_int(c, in[2], &st) || tv_get_int(c, in[3], &len))
		return -1;
	if (!x->rank)
		return trace_error(c, "narrow() cannot be applied to a 0-dim "
				   "tensor.");
	if (trace_axis(c, dim, x->rank, &d))
		return -1;
	if (st < 0)
		st += x->dims[d];
	if (st < 0 || len < 0 || st + len > x->dims[d])
		return trace_error(c, "start (%lld) + length (%lld) exceeds "
				   "dimension size (%lld).", (long long)st,
				   (long long)len, (long long)x->dims[d]);
	memcpy(dims, x->dims, sizeof(*dims) * (size_t)x->rank);
	dims[d] = len;
	for (int i = 0; i < x->rank; i++)
		if (i < d)
			outer *= x->dims[i];
		else if (i > d)
			inner *= x->dims[i];
	src = malloc(sizeof(*src) * (size_t)(outer * len * inner + 1));
	if (!src)
		return trace_oom(c);
	for (int64_t o = 0, e = 0; o < outer; o++)
		for (int64_t k = 0; k < len; k++)
			for (int64_t q = 0; q < inner; q++)
				src[e++] = (o * x->dims[d] + st + k) * inner + q;
	rc = out_gather(c, out, x, x->rank, dims, src);
	free(src);
	return rc;
}

/* fft_fftshift / fft_ifftshift(self, dim=None): self rolled by n // 2
 * (ifftshift: back by n // 2) along each dim */
static int op_fftshift(struct trace_ctx *c, const struct ir_node *n,
		       struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x;
	int64_t ds[GPU_MAX_DIMS], sh[GPU_MAX_DIMS] = { 0 }, *src;
	int k = 0, d, rc, inv = n->op == OP_aten_fft_ifftshift;

	if (tv_get_tensor(c, in[0], 0, &x))
		return -1;
	if (nin > 1 && in[1]->kind != TV_NONE &&
	    tv_get_ints(c, in[1], ds, GPU_MAX_DIMS, &k))
		return -1;
	if (nin < 2 || in[1]->kind == TV_NONE)
		for (k = 0; k < x->rank; k++)
			ds[k] = k;
	for (int i = 0; i < k; i++) {
		if (trace_axis(c, ds[i], x->rank, &d))
			return -1;
		sh[d] = inv ? x->dims[d] - x->dims[d] / 2 : x->dims[d] / 2;
	}
	int64_t cnt = numel(x->rank, x->dims), idx[GPU_MAX_DIMS] = { 0 };
	src = malloc(sizeof(*src) * (size_t)(cnt + 1));
	if (!src)
		return trace_oom(c);
	for (int64_t e = 0; e < cnt; e++) {
		/* output idx holds input (idx - shift) mod n */
		int64_t s = 0;
		for (int i = 0; i < x->rank; i++) {
			int64_t m = x->dims[i], j = idx[i] - sh[i];
			s = s * m + (j < 0 ? j + m : j);
		}
		src[e] = s;
		for (int i = x->rank - 1; i >= 0; i--) {
			if (++idx[i] < x->dims[i])
				break;
			idx[i] = 0;
		}
	}
	rc = out_gather(c, out, x, x->rank, x->dims, src);
	free(src);
	return rc;
}

/* combinations(self, r=2, with_replacement=False): the r-element
 * combinations of the 1-d self in itertools' order, as rows [k, r]
 * (r 0: an empty 1-d tensor) */
static int op_combinations(struct trace_ctx *c, const struct ir_node *n,
			   struct tval **in, int nin, struct tval **out,
			   int nout)
{
	struct gpu_tensor *x;
	int64_t r = 2, m, k, dims[2], *src;
	int rep = 0, rc;

	if (tv_get_tensor(c, in[0], 0, &x) ||
	    (nin > 1 && tv_get_int(c, in[1], &r)) ||
	    (nin > 2 && tv_get_bool(c, in[2], &rep)))
		return -1;
	if (x->rank != 1)
		return trace_error(c, "Expect a 1D vector, but got shape "
				   "of rank %d", x->rank);
	if (r < 0 || r > 64)
		return trace_error(c, "Expect a non-negative number, but got "
				   "%lld", (long long)r);
	m = x->dims[0];
	k = combos_fill(m, r, rep, NULL, 1 << 24);
	if (k > (1 << 24))
		return trace_error(c, "combinations: %lld rows are too many",
				   (long long)k);
	src = malloc(sizeof(*src) * (size_t)(k * r + 1));
	if (!src)
		return trace_oom(c);
	combos_fill(m, r, rep, src, k);
	dims[0] = k;
	dims[1] = r;
	rc = out_gather(c, out, x, r ? 2 : 1, dims, src);
	free(src);
	return rc;
}

/* as_strided_scatter(self, src, size, stride, storage_offset=None): a
 * copy of self (as its row-major storage) with the elements the
 * as_strided view (size, stride, offset) reads set to src's, in src's
 * order (a later write to one place wins) */
static int op_as_strided_scatter(struct trace_ctx *c, const struct ir_node *n,
				 struct tval **in, int nin, struct tval **out,
				 int nout)
{
	struct gpu_tensor *x, *s, *sc = NULL;
	int64_t sz[GPU_MAX_DIMS], st[GPU_MAX_DIMS], off = 0, idx[GPU_MAX_DIMS] = { 0 };
	int ns, nst;
	char *h, *hs;

	if (tv_get_tensor(c, in[0], 0, &x) || tv_get_tensor(c, in[1], 0, &s) ||
	    tv_get_ints(c, in[2], sz, GPU_MAX_DIMS, &ns) ||
	    tv_get_ints(c, in[3], st, GPU_MAX_DIMS, &nst) ||
	    (nin > 4 && in[4]->kind != TV_NONE && tv_get_int(c, in[4], &off)))
		return -1;
	int64_t cnt = numel(x->rank, x->dims), sn = numel(ns, sz);
	if (ns != nst || ns != s->rank || memcmp(sz, s->dims, sizeof(*sz) * (size_t)ns))
		return trace_error(c, "as_strided_scatter: src's shape does "
				   "not match size");
	size_t es = ir_dtype_size(x->dtype);
	sc = trace_cast(c, s, x->dtype);
	if (!sc)
		return -1;
	h = trace_to_host(c, x, IR_DTYPE_UNDEFINED);
	hs = h ? trace_to_host(c, sc, IR_DTYPE_UNDEFINED) : NULL;
	gpu_free(sc);
	if (!h || !hs) {
		free(h);
		return -1;
	}
	for (int64_t e = 0; e < sn; e++) {
		int64_t p = off;
		for (int i = 0; i < ns; i++)
			p += idx[i] * st[i];
		if (p < 0 || p >= cnt) {
			free(h);
			free(hs);
			return trace_error(c, "as_strided_scatter: the view "
					   "reaches past self's storage");
		}
		memcpy(h + es * (size_t)p, hs + es * (size_t)e, es);
		for (int i = ns - 1; i >= 0; i--) {
			if (++idx[i] < sz[i])
				break;
			idx[i] = 0;
		}
	}
	struct gpu_tensor *y = trace_from_host(c, x->dtype, x->rank, x->dims,
					       x->dtype, h);
	free(h);
	free(hs);
	return y ? trace_out(c, out, y) : -1;
}

/* new_empty_strided(self, size, stride, dtype=None, ...): uninitialised
 * in torch; zeros here */
static int op_new_empty_strided(struct trace_ctx *c, const struct ir_node *n,
				struct tval **in, int nin, struct tval **out,
				int nout)
{
	struct gpu_tensor *x;
	int64_t sz[GPU_MAX_DIMS];
	int ns;
	enum ir_dtype dt;

	if (tv_get_tensor(c, in[0], 0, &x) ||
	    tv_get_ints(c, in[1], sz, GPU_MAX_DIMS, &ns))
		return -1;
	dt = x->dtype;
	if (nin > 3 && tv_get_dtype(c, in[3], dt, &dt))
		return -1;
	double *z = calloc((size_t)(numel(ns, sz) + 1), sizeof(*z));
	if (!z)
		return trace_oom(c);
	struct gpu_tensor *y = trace_from_host(c, dt, ns, sz, IR_DTYPE_DOUBLE, z);
	free(z);
	return y ? trace_out(c, out, y) : -1;
}

/* v rounded to dt's precision where dt is Float */
static double in_dt(double v, enum ir_dtype dt)
{
	return dt == IR_DTYPE_FLOAT ? (double)(float)v : v;
}

/* a [.., m, k] @ b [.., k, p] of one batch on the host, in double */
static void mm_host(const double *a, const double *b, double *y, int64_t m,
		    int64_t k, int64_t p)
{
	for (int64_t i = 0; i < m; i++)
		for (int64_t j = 0; j < p; j++) {
			double s = 0;
			for (int64_t q = 0; q < k; q++)
				s += a[i * k + q] * b[q * p + j];
			y[i * p + j] = s;
		}
}

/* kron(self, other): the products of every pair, self's index major,
 * each dim self's size times other's (the shorter padded with 1s) */
static int op_kron(struct trace_ctx *c, const struct ir_node *n,
		   struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *a, *b, *y;
	int64_t da[GPU_MAX_DIMS], db[GPU_MAX_DIMS], dy[GPU_MAX_DIMS];
	int r;

	if (tv_get_tensor(c, in[0], 0, &a) || tv_get_tensor(c, in[1], 0, &b))
		return -1;
	r = a->rank > b->rank ? a->rank : b->rank;
	for (int i = 0; i < r; i++) {
		int ia = i - (r - a->rank), ib = i - (r - b->rank);
		da[i] = ia < 0 ? 1 : a->dims[ia];
		db[i] = ib < 0 ? 1 : b->dims[ib];
		dy[i] = da[i] * db[i];
	}
	struct tval ta = { .kind = TV_TENSOR, .u.t = a };
	struct tval tb = { .kind = TV_TENSOR, .u.t = b };
	enum ir_dtype dt = trace_promote(&ta, &tb);
	double *ha = trace_to_host(c, a, IR_DTYPE_DOUBLE);
	double *hb = ha ? trace_to_host(c, b, IR_DTYPE_DOUBLE) : NULL;
	int64_t cnt = numel(r, dy), idx[GPU_MAX_DIMS] = { 0 };
	double *hy = hb ? malloc(sizeof(*hy) * (size_t)(cnt + 1)) : NULL;
	if (!hy) {
		free(ha);
		free(hb);
		return hb ? trace_oom(c) : -1;
	}
	for (int64_t e = 0; e < cnt; e++) {
		int64_t pa = 0, pb = 0;
		for (int i = 0; i < r; i++) {
			pa = pa * da[i] + idx[i] / db[i];
			pb = pb * db[i] + idx[i] % db[i];
		}
		hy[e] = ha[pa] * hb[pb];
		for (int i = r - 1; i >= 0; i--) {
			if (++idx[i] < dy[i])
				break;
			idx[i] = 0;
		}
	}
	y = trace_from_host(c, dt, r, dy, IR_DTYPE_DOUBLE, hy);
	free(ha);
	free(hb);
	free(hy);
	return y ? trace_out(c, out, y) : -1;
}

/* vdot(self, other) of real 1-d tensors: sum(self * other), 0-d;
 * linalg_vecdot(x, y, dim=-1): the same over dim of the broadcast pair */
static int op_vdot(struct trace_ctx *c, const struct ir_node *n,
		   struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *a, *b, *ae, *be, *y;
	int64_t dims[GPU_MAX_DIMS], dim = -1, odims[GPU_MAX_DIMS];
	int rank, d, orank = 0;

	if (tv_get_tensor(c, in[0], 0, &a) || tv_get_tensor(c, in[1], 0, &b) ||
	    (n->op != OP_aten_vdot && nin > 2 && tv_get_int(c, in[2], &dim)))
		return -1;
	if (n->op == OP_aten_vdot && (a->rank != 1 || b->rank != 1 ||
				      a->dims[0] != b->dims[0]))
		return trace_error(c, "1D tensors expected, of one size");
	if (trace_broadcast_dims(c, a, b, &rank, dims) ||
	    trace_axis(c, dim, rank, &d))
		return -1;
	struct tval ta = { .kind = TV_TENSOR, .u.t = a };
	struct tval tb = { .kind = TV_TENSOR, .u.t = b };
	enum ir_dtype dt = trace_promote(&ta, &tb);
	ae = trace_expand(a, rank, dims);
	be = ae ? trace_expand(b, rank, dims) : NULL;
	double *ha = be ? trace_to_host(c, ae, IR_DTYPE_DOUBLE) : NULL;
	double *hb = ha ? trace_to_host(c, be, IR_DTYPE_DOUBLE) : NULL;
	gpu_free(ae);
	gpu_free(be);
	if (!hb) {
		free(ha);
		return be ? -1 : trace_gpu_error(c);
	}
	int64_t outer = 1, len = dims[d], inner = 1;
	for (int i = 0; i < rank; i++) {
		if (i < d)
			outer *= dims[i];
		else if (i > d)
			inner *= dims[i];
		if (i != d)
			odims[orank++] = dims[i];
	}
	for (int64_t o = 0; o < outer; o++)
		for (int64_t q = 0; q < inner; q++) {
			double s = 0;
			for (int64_t k = 0; k < len; k++) {
				int64_t p = (o * len + k) * inner + q;
				s += ha[p] * hb[p];
			}
			ha[o * inner + q] = s;
		}
	y = trace_from_host(c, dt, orank, odims, IR_DTYPE_DOUBLE, ha);
	free(ha);
	free(hb);
	return y ? trace_out(c, out, y) : -1;
}

/* linalg_vander(x, N=None): [.., n, N], the powers x^0 .. x^(N-1) as
 * torch's cumprod makes them (in x's dtype) */
static int op_vander(struct trace_ctx *c, const struct ir_node *n,
		     struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x, *y;
	int64_t N, dims[GPU_MAX_DIMS];

	if (tv_get_tensor(c, in[0], 0, &x))
		return -1;
	if (x->rank < 1 || x->rank >= GPU_MAX_DIMS)
		return trace_error(c, "x must be at least 1-dimensional.");
	N = x->dims[x->rank - 1];
	if (nin > 1 && in[1]->kind != TV_NONE && tv_get_int(c, in[1], &N))
		return -1;
	if (N <= 1)
		return trace_error(c, "N must be greater than 1.");
	if (x->dtype == IR_DTYPE_BOOL || x->dtype == IR_DTYPE_FLOAT16 ||
	    x->dtype == IR_DTYPE_BFLOAT16)
		return trace_error(c, "linalg.vander supports floating point, "
				   "complex, and integer tensors");
	int64_t cnt = numel(x->rank, x->dims);
	double *h = trace_to_host(c, x, IR_DTYPE_DOUBLE);
	double *hy = h ? malloc(sizeof(*hy) * (size_t)(cnt * N + 1)) : NULL;
	if (!hy) {
		free(h);
		return h ? trace_oom(c) : -1;
	}
	for (int64_t e = 0; e < cnt; e++) {
		double p = 1;
		for (int64_t k = 0; k < N; k++) {
			hy[e * N + k] = p;
			p = in_dt(p * h[e], x->dtype);
		}
	}
	memcpy(dims, x->dims, sizeof(*dims) * (size_t)x->rank);
	dims[x->rank] = N;
	y = trace_from_host(c, x->dtype, x->rank + 1, dims, IR_DTYPE_DOUBLE, hy);
	free(h);
	free(hy);
	return y ? trace_out(c, out, y) : -1;
}

/* a host matrix batch: data [batch, rows, cols] */
struct hmat {
	double *v;
	int64_t rows, cols;
};

/* linalg_multi_dot(tensors): the chain product (the first 1-d as a row,
 * the last as a column, both dropped after), 2-d matrices */
static int op_multi_dot(struct trace_ctx *c, const struct ir_node *n,
			struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor **ts;
	int k, rc = -1;

	if (sh_get_tensor_list(c, in[0], &ts, &k))
		return -1;
	if (k < 2) {
		free(ts);
		return trace_error(c, "multi_dot(): expected at least 2 "
				   "tensors but got %d", k);
	}
	enum ir_dtype dt = ts[0]->dtype;
	struct hmat acc = { NULL, 0, 0 };
	for (int i = 0; i < k; i++) {
		struct gpu_tensor *t = ts[i];
		int r = t->rank;
		if (r < 1 || r > 2 || (r == 1 && i > 0 && i < k - 1)) {
			trace_error(c, "multi_dot(): tensor %d must be 2D%s", i,
				    i == 0 || i == k - 1 ? " or 1D" : "");
			goto done;
		}
		struct hmat m = { trace_to_host(c, t, IR_DTYPE_DOUBLE),
				  r == 2 ? t->dims[0] : i ? t->dims[0] : 1,
				  r == 2 ? t->dims[1] : i ? 1 : t->dims[0] };
		if (!m.v)
			goto done;
		if (!i) {
			acc = m;
			continue;
		}
		if (acc.cols != m.rows) {
			free(m.v);
			trace_error(c, "multi_dot(): tensors %d and %d cannot "
				    "be multiplied", i - 1, i);
			goto done;
		}
		double *p = malloc(sizeof(*p) * (size_t)(acc.rows * m.cols + 1));
		if (!p) {
			free(m.v);
			trace_oom(c);
			goto done;
		}
		mm_host(acc.v, m.v, p, acc.rows, acc.cols, m.cols);
		free(acc.v);
		free(m.v);
		acc.v = p;
		acc.cols = m.cols;
	}
	int64_t dims[2] = { acc.rows, acc.cols };
	int r1 = ts[0]->rank == 1, rl = ts[k - 1]->rank == 1;
	int64_t od[2];
	int orank = 0;
	if (!r1)
		od[orank++] = dims[0];
	if (!rl)
		od[orank++] = dims[1];
	struct gpu_tensor *y = trace_from_host(c, dt, orank, od,
					       IR_DTYPE_DOUBLE, acc.v);
	rc = y ? trace_out(c, out, y) : -1;
done:
	free(acc.v);
	free(ts);
	return rc;
}

/* linalg_matrix_power / matrix_power(A [.., m, m], n): n 0 the
 * identity, else the product of A's squarings for n's bits (torch's
 * order; a negative n: of A's inverse, float A only, as torch) */
static int op_matrix_power(struct trace_ctx *c, const struct ir_node *n,
			   struct tval **in, int nin, struct tval **out,
			   int nout)
{
	struct gpu_tensor *x, *y;
	int64_t p;

	if (tv_get_tensor(c, in[0], 0, &x) || tv_get_int(c, in[1], &p))
		return -1;
	if (x->rank < 2 || x->dims[x->rank - 1] != x->dims[x->rank - 2])
		return trace_error(c, "linalg.matrix_power: A must be batches "
				   "of square matrices");
	if (p < 0 && x->dtype != IR_DTYPE_FLOAT && x->dtype != IR_DTYPE_DOUBLE)
		return trace_error(c, "linalg.matrix_power: a negative power "
				   "of a %s matrix (torch inverts float32 and "
				   "float64 ones)", ir_dtype_torch_name(x->dtype));
	int64_t m = x->dims[x->rank - 1], mm = m * m;
	int64_t batch = numel(x->rank - 2, x->dims);
	double *h = trace_to_host(c, x, IR_DTYPE_DOUBLE);
	double *res = malloc(sizeof(*res) * (size_t)(batch * mm + 1));
	double *z = malloc(sizeof(*z) * (size_t)(mm + 1));
	double *t = malloc(sizeof(*t) * (size_t)(mm + 1));
	if (!h || !res || !z || !t) {
		free(h); free(res); free(z); free(t);
		return h ? trace_oom(c) : -1;
	}
	for (int64_t b = 0; b < batch; b++) {
		double *a = h + b * mm, *r = res + b * mm;
		int have = 0, zin = 0;
		if (p < 0 && trace_inv_host(a, m)) {
			free(h); free(res); free(z); free(t);
			return trace_oom(c);
		}
		if (!p)
			for (int64_t i = 0; i < mm; i++)
				r[i] = i / m == i % m;
		for (int64_t q = p < 0 ? -p : p; q > 0; q /= 2) {
			if (zin) {
				mm_host(z, z, t, m, m, m);
				memcpy(z, t, sizeof(*z) * (size_t)mm);
			} else {
				memcpy(z, a, sizeof(*z) * (size_t)mm);
				zin = 1;
			}
			if (q % 2) {
				if (have) {
					mm_host(r, z, t, m, m, m);
					memcpy(r, t, sizeof(*r) * (size_t)mm);
				} else {
					memcpy(r, z, sizeof(*r) * (size_t)mm);
					have = 1;
				}
			}
		}
	}
	y = trace_from_host(c, x->dtype, x->rank, x->dims, IR_DTYPE_DOUBLE, res);
	free(h); free(res); free(z); free(t);
	return y ? trace_out(c, out, y) : -1;
}

const struct trace_op trace_ops_products_host[] = {
	{ OP_aten_narrow_copy, op_narrow_copy, 0 },
	{ OP_aten_fft_fftshift, op_fftshift, 0 },
	{ OP_aten_fft_ifftshift, op_fftshift, 0 },
	{ OP_aten_combinations, op_combinations, 0 },
	{ OP_aten_as_strided_scatter, op_as_strided_scatter, 0 },
	{ OP_aten_new_empty_strided, op_new_empty_strided, 0 },
	{ OP_aten_kron, op_kron, 0 },
	{ OP_aten_vdot, op_vdot, 0 },
	{ OP_aten_linalg_vecdot, op_vdot, 0 },
	{ OP_aten_linalg_vander, op_vander, 0 },
	{ OP_aten_linalg_multi_dot, op_multi_dot, 0 },
	{ OP_aten_linalg_matrix_power, op_matrix_power, 0 },
	{ OP_aten_matrix_power, op_matrix_power, 0 },
	{ OP_NONE, NULL, 0 },
};

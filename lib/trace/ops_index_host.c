/*
 * ops_index_host.c - trace kernels on the host for the reducing scatters
 * of issue 14: scatter_reduce (sum, prod, mean, amax, amin, include_self)
 * and index_reduce (prod, mean, amax, amin, include_self), and put
 * (accumulate or not).  Each reads its
 * inputs to the host (floats as doubles, integers as int64), reduces as
 * torch 1.13's scatter_reduce_two and index_reduce do
 * (TensorAdvancedIndexing.cpp: the hit positions start from the
 * reduction's identity when include_self is false; mean divides the sum by
 * the count, self counting once when included, floor division for
 * integers; amax and amin propagate NaN) and writes the result back in
 * self's dtype, so it runs on either backend.  isin (every overload,
 * invert) compares each element with every test element in their
 * promoted dtype, as torch's default kernel does (its sort-based kernel
 * for many test elements gives the same answer).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ops_shape.h"
#include "trace_int.h"

enum red { RED_SUM, RED_PROD, RED_MEAN, RED_AMAX, RED_AMIN };

static int is_float(enum ir_dtype dt)
{
	return dt == IR_DTYPE_FLOAT || dt == IR_DTYPE_DOUBLE ||
	       dt == IR_DTYPE_FLOAT16 || dt == IR_DTYPE_BFLOAT16;
}

static int red_of(struct trace_ctx *c, const struct tval *v, int index_form,
		  enum red *r)
{
	static const char *const names[] = { "sum", "prod", "mean", "amax",
					     "amin" };
	if (!v || v->kind != TV_STR)
		return trace_error(c, "reduce must be a string");
	for (int i = index_form; i < 5; i++)
		if (!strcmp(v->u.s, names[i])) {
			*r = (enum red)i;
			return 0;
		}
	return trace_error(c, "reduce argument must be %s, got %s",
			   index_form ? "prod, mean, amax or amin"
				      : "sum, prod, mean, amax or amin",
			   v->u.s);
}

/* the reduction's identity and step, in doubles and in int64 */
static double ident_d(enum red r)
{
	return r == RED_PROD ? 1 : r == RED_AMAX ? -INFINITY
		: r == RED_AMIN ? INFINITY : 0;
}

static int64_t ident_i(enum red r)
{
	return r == RED_PROD ? 1 : r == RED_AMAX ? INT64_MIN
		: r == RED_AMIN ? INT64_MAX : 0;
}

static double step_d(enum red r, double a, double b)
{
	switch (r) {
	case RED_PROD: return a * b;
	case RED_AMAX: return isnan(a) || isnan(b) ? NAN : a > b ? a : b;
	case RED_AMIN: return isnan(a) || isnan(b) ? NAN : a < b ? a : b;
	default: return a + b;
	}
}

static int64_t step_i(enum red r, int64_t a, int64_t b)
{
	switch (r) {
	case RED_PROD: return (int64_t)((uint64_t)a * (uint64_t)b);
	case RED_AMAX: return a > b ? a : b;
	case RED_AMIN: return a < b ? a : b;
	default: return (int64_t)((uint64_t)a + (uint64_t)b);
	}
}

/* floor(a / b) of integers, b > 0 */
static int64_t floor_div(int64_t a, int64_t b)
{
	int64_t q = a / b;
	return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

/* y = self with src (row-major, index's dims in its first entries: src
 * dims sd) reduced in at index along a; index and src of self's rank
 * (rank 0: one element).  The index is checked here. */
static struct gpu_tensor *reduce_into(struct trace_ctx *c,
				      const struct gpu_tensor *x, int a,
				      const struct gpu_tensor *idx,
				      const struct gpu_tensor *src,
				      enum red r, int include_self)
{
	int fl = is_float(x->dtype), rank = x->rank ? x->rank : 1;
	enum ir_dtype hd = fl ? IR_DTYPE_DOUBLE : IR_DTYPE_INT64;
	int64_t xd[GPU_MAX_DIMS], id[GPU_MAX_DIMS], sd[GPU_MAX_DIMS];
	int64_t nx = gpu_numel(x), ni = gpu_numel(idx), *hi = NULL,
		*cnt = NULL;
	void *hx = NULL, *hs = NULL;
	unsigned char *hit = NULL;
	struct gpu_tensor *y = NULL;

	for (int d = 0; d < rank; d++) {
		xd[d] = x->rank ? x->dims[d] : 1;
		id[d] = idx->rank ? idx->dims[d] : 1;
		sd[d] = src->rank ? src->dims[d] : 1;
		if (id[d] > sd[d] || (d != a && id[d] > xd[d])) {
			trace_error(c, "Expected index shape to be smaller "
				    "than self shape apart from dimension %d "
				    "and to be smaller size than src", a);
			return NULL;
		}
	}
	hx = trace_to_host(c, x, hd);
	hs = trace_to_host(c, src, hd);
	hi = trace_to_host(c, idx, IR_DTYPE_INT64);
	hit = calloc((size_t)nx + 1, 1);
	cnt = calloc((size_t)nx + 1, sizeof(*cnt));
	if (!hx || !hs || !hi || !hit || !cnt) {
		if (hit && cnt)
			trace_oom(c);
		goto done;
	}
	for (int64_t i = 0; i < ni; i++) {
		int64_t rem = i, yo = 0, so = 0, pos[GPU_MAX_DIMS], k = hi[i];

		for (int d = rank - 1; d >= 0; d--) {
			pos[d] = rem % id[d];
			rem /= id[d];
		}
		/* torch's reducing scatters take no negative index */
		if (k < 0 || k >= xd[a]) {
			trace_error(c, "index %lld is out of bounds for "
				    "dimension %d with size %lld",
				    (long long)k, a, (long long)xd[a]);
			goto done;
		}
		for (int d = 0; d < rank; d++) {
			yo = yo * xd[d] + (d == a ? k : pos[d]);
			so = so * sd[d] + pos[d];
		}
		if (!hit[yo] && !include_self) {
			if (fl)
				((double *)hx)[yo] = ident_d(r);
			else
				((int64_t *)hx)[yo] = ident_i(r);
		}
		hit[yo] = 1;
		cnt[yo]++;
		if (fl)
			((double *)hx)[yo] = step_d(r, ((double *)hx)[yo],
						    ((double *)hs)[so]);
		else
			((int64_t *)hx)[yo] = step_i(r, ((int64_t *)hx)[yo],
						     ((int64_t *)hs)[so]);
	}
	if (r == RED_MEAN)
		for (int64_t i = 0; i < nx; i++) {
			int64_t k = cnt[i] + include_self;
			if (!hit[i] || !k)
				continue;
			if (fl)
				((double *)hx)[i] /= (double)k;
			else
				((int64_t *)hx)[i] =
					floor_div(((int64_t *)hx)[i], k);
		}
	y = trace_from_host(c, x->dtype, x->rank, x->dims, hd, hx);
done:
	free(hx);
	free(hs);
	free(hi);
	free(hit);
	free(cnt);
	return y;
}

/* scatter_reduce(self, dim, index, src, reduce, include_self=True) and
 * scatter_reduce_; scatter(self, dim, index, src, reduce) with reduce add
 * or multiply */
static int op_scatter_reduce(struct trace_ctx *c, const struct ir_node *n,
			     struct tval **in, int nin, struct tval **out,
			     int nout)
{
	struct gpu_tensor *x, *idx, *src, *y;
	int64_t d;
	int a, self = 1;
	enum red r;

	if (tv_get_tensor(c, ARG(0), 0, &x) || tv_get_int(c, ARG(1), &d) ||
	    tv_get_tensor(c, ARG(2), 0, &idx) ||
	    tv_get_tensor(c, ARG(3), 0, &src) || red_of(c, ARG(4), 0, &r))
		return -1;
	if (!sh_is_none(ARG(5)) && tv_get_bool(c, ARG(5), &self))
		return -1;
	if (trace_axis(c, d, x->rank, &a))
		return -1;
	if (idx->dtype != IR_DTYPE_INT64)
		return trace_error(c, "scatter_reduce(): Expected dtype int64 "
				   "for index");
	if (x->rank != idx->rank || x->rank != src->rank)
		return trace_error(c, "Index tensor must have the same number "
				   "of dimensions as self and src tensors");
	if (x->dtype != src->dtype)
		return trace_error(c, "scatter_reduce(): Expected self.dtype "
				   "to be equal to src.dtype");
	y = reduce_into(c, x, a, idx, src, r, self);
	return y ? sh_finish(c, n, in, y, out) : -1;
}

/* index_reduce(self, dim, index, source, reduce, include_self=True) and
 * index_reduce_: index (1-d) picks self's slices along dim that source's
 * slices reduce into; as scatter_reduce with the index spread over
 * source's dims */
static int op_index_reduce(struct trace_ctx *c, const struct ir_node *n,
			   struct tval **in, int nin, struct tval **out,
			   int nout)
{
	struct gpu_tensor *x, *idx, *src, *y = NULL, *ie = NULL;
	int64_t d, dims[GPU_MAX_DIMS], *hi;
	int a, self = 1, r0;
	enum red r;

	if (tv_get_tensor(c, ARG(0), 0, &x) || tv_get_int(c, ARG(1), &d) ||
	    tv_get_tensor(c, ARG(2), 0, &idx) ||
	    tv_get_tensor(c, ARG(3), 0, &src) || red_of(c, ARG(4), 1, &r))
		return -1;
	if (!sh_is_none(ARG(5)) && tv_get_bool(c, ARG(5), &self))
		return -1;
	if (trace_axis(c, d, x->rank, &a))
		return -1;
	if (idx->rank > 1)
		return trace_error(c, "Index has to be a vector");
	if (idx->dtype != IR_DTYPE_INT64 && idx->dtype != IR_DTYPE_INT32)
		return trace_error(c, "index_reduce_(): Expected dtype "
				   "int32/int64 for index");
	if (x->dtype != src->dtype)
		return trace_error(c, "index_reduce_(): self and source "
				   "expected to have the same dtype");
	r0 = x->rank ? x->rank : 1;
	for (int i = 0; i < r0; i++) {
		int64_t want = i == a ? gpu_numel(idx)
			     : x->rank ? x->dims[i] : 1;
		int64_t got = src->rank ? src->dims[i] : 1;
		if ((src->rank && src->rank != x->rank) || got != want)
			return trace_error(c, "index_reduce_(): Source/destination "
					   "tensor must have same slice shapes, "
					   "and the source's dimension %d must be "
					   "the index's length", a);
		dims[i] = want;
	}
	hi = trace_to_host(c, idx, IR_DTYPE_INT64);
	if (!hi)
		return -1;
	/* the index spread over source's dims: index[p[a]] at p */
	{
		int64_t total = sh_prod(dims, r0), inner = 1, *he;
		for (int i = a + 1; i < r0; i++)
			inner *= dims[i];
		he = malloc(sizeof(*he) * (size_t)(total + 1));
		if (!he) {
			free(hi);
			return trace_oom(c);
		}
		for (int64_t i = 0; i < total; i++)
			he[i] = hi[(i / inner) % dims[a]];
		ie = trace_from_host(c, IR_DTYPE_INT64, r0, dims,
				     IR_DTYPE_INT64, he);
		free(he);
	}
	free(hi);
	if (ie)
		y = reduce_into(c, x, a, ie, src, r, self);
	gpu_free(ie);
	return y ? sh_finish(c, n, in, y, out) : -1;
}

/* put(self, index, source, accumulate=False) and put_: self as 1-d,
 * source's elements written (added) at the flat index, negatives from the
 * end */
static int op_put(struct trace_ctx *c, const struct ir_node *n,
		  struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x, *idx, *src, *y = NULL;
	int acc = 0, fl;
	int64_t nx, ni, *hi = NULL;
	void *hx = NULL, *hs = NULL;

	if (tv_get_tensor(c, ARG(0), 0, &x) ||
	    tv_get_tensor(c, ARG(1), 0, &idx) ||
	    tv_get_tensor(c, ARG(2), 0, &src))
		return -1;
	if (!sh_is_none(ARG(3)) && tv_get_bool(c, ARG(3), &acc))
		return -1;
	if (idx->dtype != IR_DTYPE_INT64)
		return trace_error(c, "put_(): Expected a long tensor for "
				   "index, but got %s",
				   ir_dtype_torch_name(idx->dtype));
	if (x->dtype != src->dtype)
		return trace_error(c, "put_(): self and source expected to "
				   "have the same dtype");
	nx = gpu_numel(x);
	ni = gpu_numel(idx);
	if (gpu_numel(src) != ni)
		return trace_error(c, "put_(): Expected source and index to "
				   "have the same number of elements, but got "
				   "source.numel() = %lld, index.numel() = "
				   "%lld", (long long)gpu_numel(src),
				   (long long)ni);
	fl = is_float(x->dtype);
	hx = trace_to_host(c, x, fl ? IR_DTYPE_DOUBLE : IR_DTYPE_INT64);
	hs = trace_to_host(c, src, fl ? IR_DTYPE_DOUBLE : IR_DTYPE_INT64);
	hi = trace_to_host(c, idx, IR_DTYPE_INT64);
	if (!hx || !hs || !hi)
		goto done;
	for (int64_t i = 0; i < ni; i++) {
		int64_t k = hi[i];
		if (k < -nx || k >= nx) {
			trace_error(c, "out of range: tried to access index "
				    "%lld on a tensor of %lld elements.",
				    (long long)k, (long long)nx);
			goto done;
		}
		if (k < 0)
			k += nx;
		if (fl)
			((double *)hx)[k] = acc ? ((double *)hx)[k] +
				((double *)hs)[i] : ((double *)hs)[i];
		else
			((int64_t *)hx)[k] = acc ? step_i(RED_SUM,
				((int64_t *)hx)[k], ((int64_t *)hs)[i])
				: ((int64_t *)hs)[i];
	}
	y = trace_from_host(c, x->dtype, x->rank, x->dims,
			    fl ? IR_DTYPE_DOUBLE : IR_DTYPE_INT64, hx);
done:
	free(hx);
	free(hs);
	free(hi);
	return y ? sh_finish(c, n, in, y, out) : -1;
}

static int cmp_f64(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* isin(elements, test_elements, *, assume_unique=False, invert=False),
 * either of the two a number: whether each element equals some test
 * element in their promoted dtype (NaN equals nothing, -0 equals 0);
 * assume_unique only chooses torch's algorithm */
static int op_isin(struct trace_ctx *c, const struct ir_node *n,
		   struct tval **in, int nin, struct tval **out, int nout)
{
	enum ir_dtype dt = trace_promote(in[0], in[1]);
	struct gpu_tensor *a = NULL, *b = NULL, *y = NULL;
	int fl = dt == IR_DTYPE_FLOAT || dt == IR_DTYPE_DOUBLE || dt == IR_DTYPE_FLOAT16 ||
		 dt == IR_DTYPE_BFLOAT16;
	int invert = 0, rc = -1;
	void *ha = NULL, *hb = NULL;
	uint8_t *hy = NULL;

	(void)n;
	(void)nout;
	if (nin > 3 && tv_get_bool(c, in[3], &invert))
		return -1;
	for (int i = 0; i < 2; i++)
		if ((in[i]->kind == TV_TENSOR && in[i]->u.t->dtype == IR_DTYPE_BOOL) ||
		    in[i]->kind == TV_BOOL)
			dt = IR_DTYPE_BOOL; /* torch refuses a bool either side */
	if (dt == IR_DTYPE_BOOL || dt == IR_DTYPE_COMPLEX64 || dt == IR_DTYPE_COMPLEX128 ||
	    dt == IR_DTYPE_UNDEFINED)
		return trace_error(c, "Unsupported input type encountered for isin(): %s",
				   dt == IR_DTYPE_BOOL ? "Bool" : "a complex or unknown dtype");
	a = trace_as_tensor(c, in[0], dt);
	b = a ? trace_as_tensor(c, in[1], dt) : NULL;
	if (!b)
		goto done;
	int64_t na = gpu_numel(a), nb = gpu_numel(b);
	ha = trace_to_host(c, a, fl ? IR_DTYPE_DOUBLE : IR_DTYPE_INT64);
	hb = ha ? trace_to_host(c, b, fl ? IR_DTYPE_DOUBLE : IR_DTYPE_INT64) : NULL;
	hy = malloc((size_t)(na ? na : 1));
	if (!hb || !hy) {
		if (hb)
			trace_oom(c);
		goto done;
	}
	/* the test elements sorted (NaN left out: it equals nothing; -0 and
	 * 0 compare equal), each element searched: n log n, where comparing
	 * every pair took 10^12 steps for a million of each */
	if (fl) {
		int64_t k = 0;
		for (int64_t j = 0; j < nb; j++)
			if (!isnan(((double *)hb)[j]))
				((double *)hb)[k++] = ((double *)hb)[j];
		nb = k;
	}
	qsort(hb, (size_t)nb, sizeof(int64_t), fl ? cmp_f64 : cmp_i64);
	for (int64_t i = 0; i < na; i++) {
		int hit = nb > 0 && !(fl && isnan(((double *)ha)[i])) &&
			  bsearch((char *)ha + i * (int64_t)sizeof(int64_t),
					    hb, (size_t)nb, sizeof(int64_t),
					    fl ? cmp_f64 : cmp_i64) != NULL;
		hy[i] = (uint8_t)(hit != invert);
	}
	y = trace_from_host(c, IR_DTYPE_BOOL, a->rank, a->dims, IR_DTYPE_BOOL, hy);
	rc = y ? trace_out(c, out, y) : -1;
done:
	gpu_free(a);
	gpu_free(b);
	free(ha);
	free(hb);
	free(hy);
	return rc;
}

const struct trace_op trace_ops_index_host[] = {
	{ OP_aten_isin, op_isin, 0 },
	{ OP_aten_scatter_reduce, op_scatter_reduce, 0 },
	{ OP_aten_scatter_reduce_, op_scatter_reduce, 0 },
	{ OP_aten_index_reduce, op_index_reduce, 0 },
	{ OP_aten_index_reduce_, op_index_reduce, 0 },
	{ OP_aten_put, op_put, 0 },
	{ OP_aten_put_, op_put, 0 },
	{ OP_NONE, NULL, 0 },
};

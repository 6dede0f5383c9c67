/*
 * ops_reduce_host.c - trace kernels on the host for more of issue 14's
 * long tail of reductions: nansum, nanmean, sum_to_size, trapezoid,
 * trapz, cumulative_trapezoid and renorm.  Each reads its inputs to the
 * host as doubles, computes as torch 1.13's ATen definition does
 * (ReduceOps.cpp, Integration.cpp, Normalization of renorm in
 * ReduceOps.cpp) and writes the result back in torch's dtype, so it runs
 * on either backend.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trace_int.h"

static int is_float(enum ir_dtype dt)
{
	return dt == IR_DTYPE_FLOAT || dt == IR_DTYPE_DOUBLE ||
	       dt == IR_DTYPE_FLOAT16 || dt == IR_DTYPE_BFLOAT16;
}

static int64_t numel(int rank, const int64_t *dims)
{
	int64_t k = 1;
	for (int i = 0; i < rank; i++)
		k *= dims[i];
	return k;
}

/* The reduction of x over the dims set in `red` (keep: as 1s): the
 * output's dims and rank, and for each element of x (row-major) the
 * index of the output element it goes to (map, numel(x) entries). */
static void red_plan(const struct gpu_tensor *x, unsigned red, int keep,
		     int64_t *odims, int *orank, int64_t *map)
{
	int64_t ostr[GPU_MAX_DIMS], s = 1, idx[GPU_MAX_DIMS] = { 0 };
	int r = 0;
	for (int i = x->rank - 1; i >= 0; i--) {
		ostr[i] = red >> i & 1 ? 0 : s;
		if (!(red >> i & 1))
			s *= x->dims[i];
	}
	for (int i = 0; i < x->rank; i++)
		if (!(red >> i & 1))
			odims[r++] = x->dims[i];
		else if (keep)
			odims[r++] = 1;
	*orank = r;
	int64_t cnt = numel(x->rank, x->dims);
	for (int64_t e = 0; e < cnt; e++) {
		int64_t o = 0;
		for (int i = 0; i < x->rank; i++)
			o += idx[i] * ostr[i];
		map[e] = o;
		for (int i = x->rank - 1; i >= 0; i--) {
			if (++idx[i] < x->dims[i])
				break;
			idx[i] = 0;
		}
	}
}

/* dim argument v (None, an int or an int list; none or empty: all) as a
 * bit set of x's dims; 0 or -1 after reporting */
static int red_dims(struct trace_ctx *c, const struct tval *v,
		    const struct gpu_tensor *x, unsigned *red)
{
	int64_t ds[GPU_MAX_DIMS];
	int k = 0, d;
	*red = 0;
	if (v && v->kind != TV_NONE &&
	    tv_get_ints(c, v, ds, GPU_MAX_DIMS, &k))
		return -1;
	if (!k) {
		*red = (1u << x->rank) - 1;
		return 0;
	}
	for (int i = 0; i < k; i++) {
		if (trace_axis(c, ds[i], x->rank ? x->rank : 1, &d))
			return -1;
		*red |= 1u << d;
	}
	if (!x->rank)
		*red = 0;
	return 0;
}

/* nansum / nanmean(self, dim=None, keepdim=False, *, dtype=None): NaNs
 * counted as 0 (nanmean: sum over the count of the others, 0 / 0 NaN);
 * nansum of integers and bools is Long, as sum */
static int op_nansum(struct trace_ctx *c, const struct ir_node *n,
		     struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x, *y;
	int keep = 0, orank, mean = n->op == OP_aten_nanmean;
	unsigned red;
	int64_t odims[GPU_MAX_DIMS], *map;
	enum ir_dtype dt;
	double *h, *s, *k;

	if (tv_get_tensor(c, in[0], 0, &x) ||
	    red_dims(c, nin > 1 ? in[1] : NULL, x, &red) ||
	    (nin > 2 && tv_get_bool(c, in[2], &keep)))
		return -1;
	dt = is_float(x->dtype) ? x->dtype : IR_DTYPE_INT64;
	if (nin > 3 && tv_get_dtype(c, in[3], dt, &dt))
		return -1;
	if (mean && !is_float(dt))
		return trace_error(c, "nanmean(): expected input to have "
				   "floating point dtype but got %s",
				   ir_dtype_torch_name(x->dtype));
	int64_t cnt = numel(x->rank, x->dims);
	h = trace_to_host(c, x, IR_DTYPE_DOUBLE);
	map = malloc(sizeof(*map) * (size_t)(cnt + 1));
	s = calloc((size_t)(cnt + 1), sizeof(*s));
	k = calloc((size_t)(cnt + 1), sizeof(*k));
	if (!h || !map || !s || !k) {
		free(h); free(map); free(s); free(k);
		return h ? trace_oom(c) : -1;
	}
	red_plan(x, red, keep, odims, &orank, map);
	for (int64_t e = 0; e < cnt; e++)
		if (!isnan(h[e])) {
			s[map[e]] += h[e];
			k[map[e]] += 1;
		}
	int64_t ocnt = numel(orank, odims);
	for (int64_t o = 0; mean && o < ocnt; o++)
		s[o] /= k[o];
	y = trace_from_host(c, dt, orank, odims, IR_DTYPE_DOUBLE, s);
	free(h); free(map); free(s); free(k);
	return y ? trace_out(c, out, y) : -1;
}

/* sum_to_size(self, size): self summed over its leading dims and the
 * dims where size has 1, to size */
static int op_sum_to_size(struct trace_ctx *c, const struct ir_node *n,
			  struct tval **in, int nin, struct tval **out,
			  int nout)
{
	struct gpu_tensor *x, *y;
	int64_t sz[GPU_MAX_DIMS], odims[GPU_MAX_DIMS], *map;
	int k, orank;
	unsigned red = 0;
	double *h, *s;

	if (tv_get_tensor(c, in[0], 0, &x) ||
	    tv_get_ints(c, in[1], sz, GPU_MAX_DIMS, &k))
		return -1;
	int lead = x->rank - k;
	if (lead < 0)
		return trace_error(c, "size {%d dims} is not expandable to "
				   "size of tensor (%d dims)", k, x->rank);
	for (int i = 0; i < x->rank; i++) {
		if (i < lead || (sz[i - lead] == 1 && x->dims[i] != 1))
			red |= 1u << i;
		else if (sz[i - lead] != x->dims[i])
			return trace_error(c, "size is not expandable to "
					   "size of tensor");
	}
	int64_t cnt = numel(x->rank, x->dims);
	h = trace_to_host(c, x, IR_DTYPE_DOUBLE);
	map = malloc(sizeof(*map) * (size_t)(cnt + 1));
	s = calloc((size_t)(cnt + 1), sizeof(*s));
	if (!h || !map || !s) {
		free(h); free(map); free(s);
		return h ? trace_oom(c) : -1;
	}
	red_plan(x, red, 1, odims, &orank, map);
	for (int64_t e = 0; e < cnt; e++)
		s[map[e]] += h[e];
	/* a sum of integers is Long */
	y = trace_from_host(c, red && !is_float(x->dtype) ? IR_DTYPE_INT64 :
			    x->dtype, k, sz, IR_DTYPE_DOUBLE, s);
	free(h); free(map); free(s);
	return y ? trace_out(c, out, y) : -1;
}

/* trapezoid / trapz / cumulative_trapezoid(y, x, *, dim=-1) and (y, *,
 * dx=1, dim=-1), as torch's Integration.cpp: with x, dx is x's
 * difference along dim (a 1-d x viewed along dim, a shorter x padded
 * with leading 1s) and the sum (or cumsum) of dx * (y[1:] + y[:-1]) is
 * halved; with a number dx, trapezoid is (sum(y) - (y[0] + y[-1]) / 2)
 * * dx and cumulative_trapezoid the cumsum of dx / 2 * (y[1:] + y[:-1]).
 * An empty dim gives zeros (trapezoid). */
static int op_trapezoid(struct trace_ctx *c, const struct ir_node *n,
			struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *yt, *xt = NULL, *xe = NULL, *res;
	int64_t dim = -1, outer = 1, len, inner = 1, odims[GPU_MAX_DIMS];
	int d, orank = 0, cum = n->op == OP_aten_cumulative_trapezoid;
	double dx = 1, *hy, *hx = NULL, *hr;
	enum ir_dtype dt;

	if (tv_get_tensor(c, in[0], 0, &yt))
		return -1;
	if (nin > 1 && in[1]->kind == TV_TENSOR) {
		if (tv_get_tensor(c, in[1], 0, &xt))
			return -1;
	} else if (nin > 1 && in[1]->kind != TV_NONE &&
		   tv_get_float(c, in[1], &dx)) {
		return -1;
	}
	if (nin > 2 && tv_get_int(c, in[2], &dim))
		return -1;
	if (yt->dtype == IR_DTYPE_BOOL || (xt && xt->dtype == IR_DTYPE_BOOL))
		return trace_error(c, "trapezoid: received a bool input, but "
				   "bool is not supported");
	if (trace_axis(c, dim, yt->rank, &d))
		return -1;
	len = yt->dims[d];
	for (int i = 0; i < yt->rank; i++) {
		if (i < d)
			outer *= yt->dims[i];
		else if (i > d)
			inner *= yt->dims[i];
		if (i != d || cum)
			odims[orank++] = i == d ? (len ? len - 1 : 0)
						: yt->dims[i];
	}
	dt = yt->dtype;
	if (xt) {
		struct tval a = { .kind = TV_TENSOR, .u.t = yt };
		struct tval b = { .kind = TV_TENSOR, .u.t = xt };
		dt = trace_promote(&a, &b);
		/* x viewed against y: a 1-d x along dim, else leading 1s */
		int64_t vd[GPU_MAX_DIMS], vs[GPU_MAX_DIMS];
		int off = yt->rank - xt->rank;
		if (xt->rank == 1) {
			if (xt->dims[0] != len)
				return trace_error(c, "trapezoid: There must be "
						   "one `x` value for each "
						   "sample point");
			for (int i = 0; i < yt->rank; i++) {
				vd[i] = i == d ? len : 1;
				vs[i] = i == d ? xt->strides[0] : 0;
			}
		} else {
			if (off < 0)
				return trace_error(c, "trapezoid: x has more "
						   "dims than y");
			for (int i = 0; i < yt->rank; i++) {
				vd[i] = i < off ? 1 : xt->dims[i - off];
				vs[i] = i < off ? 0 : xt->strides[i - off];
			}
		}
		struct gpu_tensor *xv = trace_view(c, xt, yt->rank, vd, vs,
						   xt->offset);
		if (!xv)
			return -1;
		xe = trace_expand(xv, yt->rank, yt->dims);
		gpu_free(xv);
		if (!xe)
			return trace_error(c, "trapezoid: x does not broadcast "
					   "to y's shape");
	}
	if (!is_float(dt))
		dt = IR_DTYPE_FLOAT;
	hy = trace_to_host(c, yt, IR_DTYPE_DOUBLE);
	if (hy && xe)
		hx = trace_to_host(c, xe, IR_DTYPE_DOUBLE);
	gpu_free(xe);
	hr = calloc((size_t)(outer * inner * (len + 1) + 1), sizeof(*hr));
	if (!hy || (xe && !hx) || !hr) {
		free(hy); free(hx); free(hr);
		return hy && (!xe || hx) ? trace_oom(c) : -1;
	}
	for (int64_t o = 0; o < outer; o++)
		for (int64_t q = 0; q < inner; q++) {
			double acc = 0;
			const double *py = hy + o * len * inner + q;
			const double *px = hx ? hx + o * len * inner + q : NULL;
			for (int64_t k = 0; k + 1 < len; k++) {
				double s = py[(k + 1) * inner] + py[k * inner];
				if (px)
					acc += (px[(k + 1) * inner] -
						px[k * inner]) * s;
				else if (cum)
					acc += dx / 2 * s;
				else
					acc += py[k * inner];
				if (cum)
					hr[(o * (len - 1) + k) * inner + q] =
						px ? acc / 2 : acc;
			}
			if (!cum && len) {
				if (px) {
					acc /= 2;
				} else {
					acc += py[(len - 1) * inner];
					acc = (acc - (py[0] + py[(len - 1) *
						inner]) * 0.5) * dx;
				}
			}
			if (!cum)
				hr[o * inner + q] = acc;
		}
	res = trace_from_host(c, dt, orank, odims, IR_DTYPE_DOUBLE, hr);
	free(hy); free(hx); free(hr);
	return res ? trace_out(c, out, res) : -1;
}

/* renorm(self, p, dim, maxnorm): each slice along dim scaled by maxnorm
 * / (norm + 1e-7) where its p-norm exceeds maxnorm (torch's
 * renorm_scale_factor) */
static int op_renorm(struct trace_ctx *c, const struct ir_node *n,
		     struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x, *y;
	double p, mx, *h, *nm;
	int64_t dim, odims[GPU_MAX_DIMS], *map;
	int d, orank;

	if (tv_get_tensor(c, in[0], 0, &x) || tv_get_float(c, in[1], &p) ||
	    tv_get_int(c, in[2], &dim) || tv_get_float(c, in[3], &mx))
		return -1;
	if (!is_float(x->dtype))
		return trace_error(c, "renorm: input needs to be a floating "
				   "point tensor");
	if (p < 0 || mx < 0)
		return trace_error(c, "renorm: non-positive-norm or maxnorm");
	if (x->rank < 2)
		return trace_error(c, "renorm: input needs at least 2 dimensions");
	if (trace_axis(c, dim, x->rank, &d))
		return -1;
	int64_t cnt = numel(x->rank, x->dims);
	h = trace_to_host(c, x, IR_DTYPE_DOUBLE);
	map = malloc(sizeof(*map) * (size_t)(cnt + 1));
	nm = calloc((size_t)(x->dims[d] + 1), sizeof(*nm));
	if (!h || !map || !nm) {
		free(h); free(map); free(nm);
		return h ? trace_oom(c) : -1;
	}
	/* reduce every dim but d */
	red_plan(x, ((1u << x->rank) - 1) & ~(1u << d), 0, odims, &orank, map);
	for (int64_t e = 0; e < cnt; e++) {
		double a = fabs(h[e]);
		if (isinf(p))
			nm[map[e]] = a > nm[map[e]] || isnan(a) ? a : nm[map[e]];
		else if (p == 0)
			nm[map[e]] += a != 0;
		else
			nm[map[e]] += p == 1 ? a : p == 2 ? a * a : pow(a, p);
	}
	for (int64_t i = 0; i < x->dims[d]; i++) {
		double v = p == 2 ? sqrt(nm[i]) : p == 0 || p == 1 || isinf(p)
			   ? nm[i] : pow(nm[i], 1 / p);
		nm[i] = v > mx ? mx / (v + 1e-7) : 1;
	}
	for (int64_t e = 0; e < cnt; e++)
		h[e] *= nm[map[e]];
	y = trace_from_host(c, x->dtype, x->rank, x->dims, IR_DTYPE_DOUBLE, h);
	free(h); free(map); free(nm);
	return y ? trace_out(c, out, y) : -1;
}

const struct trace_op trace_ops_reduce_host[] = {
	{ OP_aten_nansum, op_nansum, 0 },
	{ OP_aten_nanmean, op_nansum, 0 },
	{ OP_aten_sum_to_size, op_sum_to_size, 0 },
	{ OP_aten_trapezoid, op_trapezoid, 0 },
	{ OP_aten_trapz, op_trapezoid, 0 },
	{ OP_aten_cumulative_trapezoid, op_trapezoid, 0 },
	{ OP_aten_renorm, op_renorm, 0 },
	{ OP_NONE, NULL, 0 },
};

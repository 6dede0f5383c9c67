/*
 * ops_hist_host.c - trace kernels on the host for the histograms of
 * issue 14's long tail: bincount, histc and histogram (a bin count with
 * an optional range, or a tensor of edges; weight, density).
 * Each reads its inputs to the host as doubles and computes as torch
 * 1.13's ATen does (SummaryOps.cpp's _bincount_cpu, Histogram.cpp and
 * HistogramKernel.cpp): float inputs are rounded to float after every
 * operation, so the bins an element falls in are torch's.  histogramdd
 * (and its _histogramdd_* parts) is histogram's D-dimensional form.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "ops_shape.h"
#include "trace_int.h"

/* v rounded to dtype dt's precision (Float: to float) */
static double rnd(enum ir_dtype dt, double v)
{
	return dt == IR_DTYPE_FLOAT ? (double)(float)v : v;
}

/* bincount(self, weights=None, minlength=0): the count (or the weights'
 * sum) of each value of a 1-d non-negative integer tensor; Long without
 * weights, Float for Float weights, else Double */
static int op_bincount(struct trace_ctx *c, const struct ir_node *n,
		       struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x, *w = NULL, *y;
	int64_t minlen = 0, len, N;
	double *hx, *hw = NULL, *hy;
	enum ir_dtype dt = IR_DTYPE_INT64;

	(void)n;
	(void)nout;
	if (tv_get_tensor(c, in[0], 0, &x) ||
	    (nin > 1 && tv_get_tensor(c, in[1], 1, &w)) ||
	    (nin > 2 && tv_get_int(c, in[2], &minlen)))
		return -1;
	if (x->rank != 1 ||
	    (x->dtype != IR_DTYPE_UINT8 && x->dtype != IR_DTYPE_INT8 &&
	     x->dtype != IR_DTYPE_INT16 && x->dtype != IR_DTYPE_INT32 &&
	     x->dtype != IR_DTYPE_INT64))
		return trace_error(c, "bincount only supports 1-d non-negative integral inputs.");
	if (minlen < 0)
		return trace_error(c, "minlength should be >= 0");
	N = x->dims[0];
	if (w && (w->rank != 1 || w->dims[0] != N))
		return trace_error(c, "weights should be 1-d and have the same length as input");
	if (w)
		dt = w->dtype == IR_DTYPE_FLOAT ? IR_DTYPE_FLOAT : IR_DTYPE_DOUBLE;
	hx = trace_to_host(c, x, IR_DTYPE_DOUBLE);
	if (hx && w)
		hw = trace_to_host(c, w, IR_DTYPE_DOUBLE);
	if (!hx || (w && !hw)) {
		free(hx);
		return -1;
	}
	len = minlen;
	for (int64_t i = 0; i < N; i++) {
		if (hx[i] < 0) {
			free(hx);
			free(hw);
			return trace_error(c, "bincount only supports 1-d non-negative integral inputs.");
		}
		if ((int64_t)hx[i] + 1 > len)
			len = (int64_t)hx[i] + 1;
	}
	hy = calloc((size_t)(len ? len : 1), sizeof(*hy));
	if (!hy) {
		free(hx);
		free(hw);
		return trace_oom(c);
	}
	for (int64_t i = 0; i < N; i++) {
		int64_t k = (int64_t)hx[i];
		hy[k] = rnd(dt, hy[k] + (hw ? rnd(dt, hw[i]) : 1));
	}
	y = trace_from_host(c, dt, 1, &len, IR_DTYPE_DOUBLE, hy);
	free(hx);
	free(hw);
	free(hy);
	return y ? trace_out(c, out, y) : -1;
}

/* torch's linspace(lo, hi, steps) in dt (RangeFactoriesKernel.cpp's
 * scalar form: from lo below the halfway point, from hi above it) */
static void linspace(enum ir_dtype dt, double lo, double hi, int64_t steps,
		     double *e)
{
	double step = rnd(dt, (hi - lo) / (double)(steps - 1));
	for (int64_t i = 0; i < steps; i++)
		e[i] = i < steps / 2 ? rnd(dt, lo + rnd(dt, step * (double)i))
				     : rnd(dt, hi - rnd(dt, step * (double)(steps - i - 1)));
}

/* The bin of v among the edges e[0..bins] (the count of edges <= v, less
 * one; the last bin closed), -1 outside [e[0], e[bins]] (NaN too) */
static int64_t edge_bin(const double *e, int64_t bins, double v)
{
	int64_t pos = 0;
	if (!(v >= e[0] && v <= e[bins]))
		return -1;
	while (pos < bins + 1 && e[pos] <= v)
		pos++;
	return pos - 1 >= bins ? bins - 1 : pos - 1;
}

/* The histogram of h[0..N) (weights hw or 1) over the edges e[0..bins]
 * into hist[0..bins), as HistogramKernel.cpp: values outside
 * [e[0], e[bins]] (NaN too) left out; the bin by linear interpolation
 * (linear: histc) or by the edges (upper_bound - 1); the last bin
 * closed */
static void hist_fill(enum ir_dtype dt, const double *h, const double *hw,
		      int64_t N, const double *e, int64_t bins, int linear,
		      double *hist)
{
	for (int64_t i = 0; i < N; i++) {
		double v = h[i];
		int64_t pos = 0;
		if (!(v >= e[0] && v <= e[bins]))
			continue;
		if (linear) {
			pos = (int64_t)rnd(dt, rnd(dt, rnd(dt, v - e[0]) * (double)bins) /
					   rnd(dt, e[bins] - e[0]));
			if (pos >= bins)
				pos = bins - 1;
		} else {
			pos = edge_bin(e, bins, v);
		}
		hist[pos] = rnd(dt, hist[pos] + (hw ? hw[i] : 1));
	}
}

/* histc(self, bins=100, min=0, max=0): bins equal bins over [min, max];
 * min == max takes the data's range, an empty one widened by 1 */
static int op_histc(struct trace_ctx *c, const struct ir_node *n,
		    struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x, *y;
	int64_t bins = 100, N;
	double lo = 0, hi = 0, *h, *hist, e[2];

	(void)n;
	(void)nout;
	if (tv_get_tensor(c, in[0], 0, &x) ||
	    (nin > 1 && tv_get_int(c, in[1], &bins)) ||
	    (nin > 2 && tv_get_float(c, in[2], &lo)) ||
	    (nin > 3 && tv_get_float(c, in[3], &hi)))
		return -1;
	if (x->dtype != IR_DTYPE_FLOAT && x->dtype != IR_DTYPE_DOUBLE)
		return trace_error(c, "histc expects a Float or Double input");
	if (bins <= 0)
		return trace_error(c, "torch.histogramdd(): bins must be > 0, but got %lld for dimension 0",
				   (long long)bins);
	N = gpu_numel(x);
	h = trace_to_host(c, x, IR_DTYPE_DOUBLE);
	if (!h)
		return -1;
	if (lo == hi && N > 0) {
		lo = hi = h[0];
		for (int64_t i = 0; i < N; i++) {
			lo = h[i] < lo || isnan(h[i]) ? h[i] : lo;
			hi = h[i] > hi || isnan(h[i]) ? h[i] : hi;
		}
	}
	if (lo == hi) {
		lo -= 1;
		hi += 1;
	}
	if (!isfinite(lo) || !isfinite(hi) || !(lo < hi)) {
		free(h);
		return trace_error(c, !(lo < hi) && isfinite(lo) && isfinite(hi)
				   ? "torch.histc: max must be larger than min"
				   : "torch.histc: range of [%g, %g] is not finite",
				   lo, hi);
	}
	e[0] = rnd(x->dtype, lo);
	e[1] = rnd(x->dtype, hi);
	hist = calloc((size_t)bins, sizeof(*hist));
	if (!hist) {
		free(h);
		return trace_oom(c);
	}
	/* only the outer edges matter to the linear search: e[bins] is hi */
	{
		double *ee = calloc((size_t)bins + 1, sizeof(*ee));
		if (!ee) {
			free(h);
			free(hist);
			return trace_oom(c);
		}
		ee[0] = e[0];
		ee[bins] = e[1];
		hist_fill(x->dtype, h, NULL, N, ee, bins, 1, hist);
		free(ee);
	}
	y = trace_from_host(c, x->dtype, 1, &bins, IR_DTYPE_DOUBLE, hist);
	free(h);
	free(hist);
	return y ? trace_out(c, out, y) : -1;
}

/* histogram(self, bins, *, range=None, weight=None, density=False) and
 * histogram(self, Tensor bins, *, weight=None, density=False): the
 * histogram of the flattened input and its edges; a bin count spans the
 * range (default the data's, [0, 1] when empty; an empty range widened
 * by 0.5) with
 * linspace's edges; density divides by the total and the bin widths */
static int op_histogram(struct trace_ctx *c, const struct ir_node *n,
			struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x, *eb = NULL, *w = NULL, *y, *ye;
	int64_t bins = 0, N, ne;
	double lo = 0, hi = 0, *h, *hw = NULL, *e = NULL, *hist = NULL;
	int density = 0, ct = in[1]->kind != TV_TENSOR, rc = -1;
	int iw = ct ? 3 : 2;

	(void)n;
	(void)nout;
	if (tv_get_tensor(c, in[0], 0, &x) ||
	    (ct ? tv_get_int(c, in[1], &bins) : tv_get_tensor(c, in[1], 0, &eb)) ||
	    (nin > iw && tv_get_tensor(c, in[iw], 1, &w)) ||
	    (nin > iw + 1 && tv_get_bool(c, in[iw + 1], &density)))
		return -1;
	if (x->dtype != IR_DTYPE_FLOAT && x->dtype != IR_DTYPE_DOUBLE)
		return trace_error(c, "histogram expects a Float or Double input");
	if (eb && (eb->rank != 1 || eb->dtype != x->dtype || eb->dims[0] < 1))
		return trace_error(c, "torch.histogramdd: bins tensor should have one dimension and the input's dtype");
	if (ct && bins <= 0)
		return trace_error(c, "torch.histogramdd(): bins must be > 0, but got %lld for dimension 0",
				   (long long)bins);
	N = gpu_numel(x);
	if (w && (w->dtype != x->dtype || gpu_numel(w) != N))
		return trace_error(c, "torch.histogramdd: weight should have the same shape and dtype as input");
	h = trace_to_host(c, x, IR_DTYPE_DOUBLE);
	if (!h)
		return -1;
	if (w && !(hw = trace_to_host(c, w, IR_DTYPE_DOUBLE)))
		goto done;
	if (ct && nin > 2 && in[2]->kind == TV_LIST) {
		if (in[2]->u.list.n != 2 || tv_get_float(c, in[2]->u.list.items[0], &lo) ||
		    tv_get_float(c, in[2]->u.list.items[1], &hi)) {
			if (in[2]->u.list.n != 2)
				trace_error(c, "torch.histogram: range should have 2 elements");
			goto done;
		}
	} else if (ct && N > 0) {
		lo = hi = h[0];
		for (int64_t i = 0; i < N; i++) {
			lo = h[i] < lo || isnan(h[i]) ? h[i] : lo;
			hi = h[i] > hi || isnan(h[i]) ? h[i] : hi;
		}
	} else if (ct) {
		hi = 1; /* torch: an empty input's range is [0, 1] */
	}
	if (ct) {
		if (!isfinite(lo) || !isfinite(hi)) {
			trace_error(c, "torch.histogramdd: dimension 0's range [%g, %g] is not finite", lo, hi);
			goto done;
		}
		if (lo > hi) {
			trace_error(c, "torch.histogramdd: min should not exceed max");
			goto done;
		}
		if (lo == hi) {
			lo -= 0.5;
			hi += 0.5;
		}
	}
	ne = ct ? bins + 1 : eb->dims[0];
	bins = ne - 1;
	e = malloc(sizeof(*e) * (size_t)ne);
	hist = calloc((size_t)(bins ? bins : 1), sizeof(*hist));
	if (!e || !hist) {
		trace_oom(c);
		goto done;
	}
	if (ct) {
		linspace(x->dtype, lo, hi, ne, e);
	} else {
		double *he = trace_to_host(c, eb, IR_DTYPE_DOUBLE);
		if (!he)
			goto done;
		for (int64_t i = 0; i < ne; i++)
			e[i] = he[i];
		free(he);
	}
	if (bins)
		hist_fill(x->dtype, h, hw, N, e, bins, 0, hist);
	if (density && bins) {
		double s = 0;
		for (int64_t i = 0; i < bins; i++)
			s = rnd(x->dtype, s + hist[i]);
		for (int64_t i = 0; i < bins; i++)
			hist[i] = rnd(x->dtype, rnd(x->dtype, hist[i] / s) /
					       rnd(x->dtype, e[i + 1] - e[i]));
	}
	y = trace_from_host(c, x->dtype, 1, &bins, IR_DTYPE_DOUBLE, hist);
	ye = y ? trace_from_host(c, x->dtype, 1, &ne, IR_DTYPE_DOUBLE, e) : NULL;
	if (y && !ye)
		gpu_free(y);
	if (ye)
		rc = trace_out(c, out, y) || trace_out(c, out + 1, ye) ? -1 : 0;
done:
	free(h);
	free(hw);
	free(e);
	free(hist);
	return rc;
}

#define HDD_MAX 32 /* histogramdd's most dims here */

/* the outer edges of dimension d of h [N, D]: the data's (an empty input
 * [0, 1]); equal ones widened by 0.5 (Histogram.cpp's
 * select_outer_bin_edges); 0, or -1 after reporting */
static int data_range(struct trace_ctx *c, const double *h, int64_t N,
		      int64_t D, int64_t d, double *lo, double *hi)
{
	*lo = 0;
	*hi = 1;
	if (N > 0) {
		*lo = *hi = h[d];
		for (int64_t i = 0; i < N; i++) {
			double v = h[i * D + d];
			*lo = v < *lo || isnan(v) ? v : *lo;
			*hi = v > *hi || isnan(v) ? v : *hi;
		}
	}
	if (!isfinite(*lo) || !isfinite(*hi))
		return trace_error(c, "torch.histogramdd: dimension %lld's range [%g, %g] is not finite",
				   (long long)d, *lo, *hi);
	if (*lo > *hi)
		return trace_error(c, "torch.histogramdd: min should not exceed max");
	if (*lo == *hi) {
		*lo -= 0.5;
		*hi += 0.5;
	}
	return 0;
}

/* histogramdd(self, int[] bins | int bins | Tensor[] bins, float[]?
 * range, Tensor? weight, bool density) -> (hist, Tensor[] bin_edges), and
 * its parts _histogramdd_bin_edges (the edges), _histogramdd_from_bin_cts
 * and _histogramdd_from_bin_tensors (the hist): self [..., D] is N points
 * of D coordinates; a point is counted (or its weight summed) in the bin
 * of each coordinate (histogram's edges and search per dim) unless one
 * lies outside its dim's edges; density divides by the total, then by
 * each dim's bin widths in turn */
static int op_histogramdd(struct trace_ctx *c, const struct ir_node *n,
			  struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x, *w = NULL, **eb = NULL, *y = NULL, *ye[HDD_MAX];
	int64_t bins[HDD_MAX], D, N, nb = 1, ne;
	double *h = NULL, *hw = NULL, *e[HDD_MAX] = { NULL }, *hist = NULL, rg[2 * HDD_MAX];
	int ftens = n->op == OP_aten__histogramdd_from_bin_tensors;
	int iw = ftens ? 2 : 3, nrg = 0, density = 0, rc = -1, k = 0, ny = 0;
	int tens = ftens || (in[1]->kind == TV_LIST && in[1]->u.list.n > 0 &&
			     in[1]->u.list.items[0]->kind == TV_TENSOR);

	(void)nout;
	if (tv_get_tensor(c, in[0], 0, &x) ||
	    (nin > iw && tv_get_tensor(c, in[iw], 1, &w)) ||
	    (nin > iw + 1 && tv_get_bool(c, in[iw + 1], &density)))
		return -1;
	if (x->dtype != IR_DTYPE_FLOAT && x->dtype != IR_DTYPE_DOUBLE)
		return trace_error(c, "torch.histogramdd: input tensor and bins tensors should have the same dtype, Float or Double");
	if (x->rank < 2)
		return trace_error(c, "torch.histogramdd: input tensor should have at least 2 dimensions");
	D = x->dims[x->rank - 1];
	if (D < 1 || D > HDD_MAX)
		return trace_error(c, "torch.histogramdd: %lld dimensions (1 to %d here)", (long long)D, HDD_MAX);
	N = gpu_numel(x) / D;
	if (tens) {
		if (sh_get_tensor_list(c, in[1], &eb, &k))
			return -1;
	} else if (in[1]->kind == TV_INT) {
		if (tv_get_int(c, in[1], &bins[0]))
			return -1;
		for (k = 1; k < D; k++)
			bins[k] = bins[0];
	} else if (tv_get_ints(c, in[1], bins, HDD_MAX, &k)) {
		return -1;
	}
	if (k != D) {
		trace_error(c, "torch.histogramdd: expected %lld sequences of bin edges for each of the %lld dimensions of the input, but got %d",
			    (long long)D, (long long)D, k);
		goto done;
	}
	if (!tens && nin > 2 && in[2]->kind == TV_LIST) {
		nrg = in[2]->u.list.n;
		if (nrg != 2 * D) {
			trace_error(c, "torch.histogramdd: for a %lld-dimensional histogram, range should have %lld elements, but got %d",
				    (long long)D, (long long)(2 * D), nrg);
			goto done;
		}
		for (int i = 0; i < nrg; i++)
			if (tv_get_float(c, in[2]->u.list.items[i], &rg[i]))
				goto done;
	}
	if (w && (w->dtype != x->dtype || gpu_numel(w) != N || w->rank != x->rank - 1)) {
		trace_error(c, "torch.histogramdd: weight should have the same shape as input excluding its innermost dimension, and its dtype");
		goto done;
	}
	if (!(h = trace_to_host(c, x, IR_DTYPE_DOUBLE)) ||
	    (w && !(hw = trace_to_host(c, w, IR_DTYPE_DOUBLE))))
		goto done;
	for (int64_t d = 0; d < D; d++) {
		if (tens) {
			if (eb[d]->rank != 1 || eb[d]->dtype != x->dtype || eb[d]->dims[0] < 1) {
				trace_error(c, "torch.histogramdd: bins tensor should have one dimension, at least one element and the input's dtype");
				goto done;
			}
			bins[d] = eb[d]->dims[0] - 1;
		} else if (bins[d] <= 0) {
			trace_error(c, "torch.histogramdd(): bins must be > 0, but got %lld for dimension %lld",
				    (long long)bins[d], (long long)d);
			goto done;
		}
		/* before the bins + 1 edges are allocated (2^61 bins
		 * overflowed their size) */
		if (nb && bins[d] > ((int64_t)1 << 24) / nb) {
			trace_error(c, "torch.histogramdd: more than 2^24 bins in all (as lower takes them)");
			goto done;
		}
		nb *= bins[d];
		if (tens) {
			if (!(e[d] = trace_to_host(c, eb[d], IR_DTYPE_DOUBLE)))
				goto done;
		} else {
			double lo = nrg ? rg[2 * d] : 0, hi = nrg ? rg[2 * d + 1] : 0;
			if (nrg && (!isfinite(lo) || !isfinite(hi) || lo > hi)) {
				trace_error(c, "torch.histogramdd: dimension %lld's range [%g, %g] is not finite, or min exceeds max",
					    (long long)d, lo, hi);
				goto done;
			}
			if (nrg && lo == hi) {
				lo -= 0.5;
				hi += 0.5;
			}
			if (!nrg && data_range(c, h, N, D, d, &lo, &hi))
				goto done;
			if (!(e[d] = malloc(sizeof(double) * (size_t)(bins[d] + 1)))) {
				trace_oom(c);
				goto done;
			}
			linspace(x->dtype, lo, hi, bins[d] + 1, e[d]);
		}
	}
	if (!(hist = calloc((size_t)(nb ? nb : 1), sizeof(*hist)))) {
		trace_oom(c);
		goto done;
	}
	for (int64_t i = 0; i < N && nb; i++) {
		int64_t idx = 0, b = 0;
		for (int64_t d = 0; d < D && b >= 0; d++) {
			b = edge_bin(e[d], bins[d], h[i * D + d]);
			idx = idx * bins[d] + b;
		}
		if (b >= 0)
			hist[idx] = rnd(x->dtype, hist[idx] + (hw ? hw[i] : 1));
	}
	if (density && nb) {
		double s = 0;
		for (int64_t i = 0; i < nb; i++)
			s = rnd(x->dtype, s + hist[i]);
		for (int64_t i = 0; i < nb; i++)
			hist[i] = rnd(x->dtype, hist[i] / s);
		for (int64_t d = 0, inner = nb; d < D; d++) {
			inner /= bins[d];
			for (int64_t i = 0; i < nb; i++) {
				int64_t b = i / inner % bins[d];
				hist[i] = rnd(x->dtype, hist[i] / rnd(x->dtype, e[d][b + 1] - e[d][b]));
			}
		}
	}
	if (n->op != OP_aten__histogramdd_bin_edges &&
	    !(y = trace_from_host(c, x->dtype, (int)D, bins, IR_DTYPE_DOUBLE, hist)))
		goto done;
	if (n->op == OP_aten__histogramdd_from_bin_cts || ftens) {
		rc = trace_out(c, out, y);
		y = NULL;
		goto done;
	}
	for (ny = 0; ny < D; ny++) {
		ne = bins[ny] + 1;
		if (!(ye[ny] = trace_from_host(c, x->dtype, 1, &ne, IR_DTYPE_DOUBLE, e[ny])))
			goto done;
	}
	if (y) {
		rc = trace_out(c, out, y);
		y = NULL;
		if (rc)
			goto done;
	}
	rc = sh_set_list(c, out + (n->op == OP_aten_histogramdd), ye, (int)D);
	ny = 0;
done:
	sh_free_all(ye, ny);
	gpu_free(y);
	free(eb);
	free(h);
	free(hw);
	for (int64_t d = 0; d < D && d < HDD_MAX; d++)
		free(e[d]);
	free(hist);
	return rc;
}

const struct trace_op trace_ops_hist_host[] = {
	{ OP_aten_bincount, op_bincount, 0 },
	{ OP_aten_histc, op_histc, 0 },
	{ OP_aten_histogram, op_histogram, 0 },
	{ OP_aten_histogramdd, op_histogramdd, 0 },
	{ OP_aten__histogramdd_bin_edges, op_histogramdd, 0 },
	{ OP_aten__histogramdd_from_bin_cts, op_histogramdd, 0 },
	{ OP_aten__histogramdd_from_bin_tensors, op_histogramdd, 0 },
	{ OP_NONE, NULL, 0 },
};

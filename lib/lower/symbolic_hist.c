/*
 * symbolic_hist.c - the histograms of issue 14's long tail: bincount,
 * histc and histogram (a bin count with an optional range, or a tensor of
 * edges; weight, density; both outputs), exact decompositions of torch
 * 1.13's kernels (SummaryOps.cpp, Histogram.cpp, HistogramKernel.cpp).
 *
 * An output whose length depends on the data (bincount's max(input) + 1)
 * is computed at run time: ReduceMax, a Range of it, a broadcast Equal
 * and a ReduceSum.  A histogram is a one-hot [N, bins] of each element's
 * bin, masked by [first edge, last edge] (NaN outside), summed over the
 * elements: the bin by torch's linear formula (histc) or by the count of
 * edges <= the element, less one (histogram: torch's linear guess with
 * its local search, or its binary search, give that bin), the last bin
 * closed.  histogramdd is the same per dimension, its bins one flat
 * index.  The edges of a bin count are torch's linspace (from the low end
 * below the halfway point, from the high end above it).  From opset 11
 * (Equal of floats); bincount from 9.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "lower_int.h"
#include "symbolic_common.h"

#define T(i) lw_tensor(c, n, (i))
#define NARGS ((int)n->ninputs)

/* x as a 1-d tensor */
static struct ir_value *flat(struct lower_ctx *c, struct ir_value *x)
{
	int64_t m1 = -1;
	return b_op2(c, "Reshape", x, b_const_i64s(c, &m1, 1, 1));
}

/* the element count of x when its dims are fixed, else -1 */
static int64_t fixed_numel(const struct ir_value *x)
{
	int r = b_rank(x);
	int64_t k = 1;
	if (r < 0)
		return -1;
	for (int i = 0; i < r; i++) {
		int64_t d = b_dim_size(x, i);
		if (d < 0)
			return -1;
		k *= d;
	}
	return k;
}

/* the outer edges lo, hi (0-d, dt) of a histogram of xf: the constants
 * [a, b] when given (have), else the data's minimum and maximum, [e0, e1]
 * when xf is empty (torch: histc's min and max, histogram's [0, 1]);
 * equal ones widened by `wide` each way */
static void outer_edges(struct lower_ctx *c, struct ir_value *xf,
			int64_t numel, int have, double a, double b,
			double e0, double e1, double wide, enum ir_dtype dt,
			struct ir_value **lo, struct ir_value **hi)
{
	if (have || numel == 0) {
		if (!have) {
			a = e0;
			b = e1;
		}
		if (a == b) {
			a -= wide;
			b += wide;
		}
		*lo = b_const_scalar(c, a, dt, 0);
		*hi = b_const_scalar(c, b, dt, 0);
		return;
	}
	struct ir_value *mn = b_reduce(c, "ReduceMin", xf, NULL, 0, 0);
	struct ir_value *mx = b_reduce(c, "ReduceMax", xf, NULL, 0, 0);
	if (numel < 0) {
		/* empty at run time: ONNX's ReduceMin of nothing is no number */
		struct ir_value *emp = b_op2(c, "Equal", b_op1(c, "Size", xf),
					     b_const_i64(c, 0));
		mn = b_op3(c, "Where", emp, b_const_scalar(c, e0, dt, 0), mn);
		mx = b_op3(c, "Where", emp, b_const_scalar(c, e1, dt, 0), mx);
	}
	struct ir_value *eq = b_op2(c, "Equal", mn, mx);
	struct ir_value *w = b_const_scalar(c, wide, dt, 0);
	*lo = b_op3(c, "Where", eq, b_op2(c, "Sub", mn, w), mn);
	*hi = b_op3(c, "Where", eq, b_op2(c, "Add", mx, w), mx);
}

/* torch's linspace(lo, hi, bins + 1) in dt */
static struct ir_value *linspace(struct lower_ctx *c, struct ir_value *lo,
				 struct ir_value *hi, int64_t bins,
				 enum ir_dtype dt)
{
	int64_t steps = bins + 1;
	double *iv = malloc(sizeof(*iv) * (size_t)steps * 2), *jv;
	if (!iv)
		return NULL;
	jv = iv + steps;
	for (int64_t i = 0; i < steps; i++) {
		iv[i] = (double)i;
		jv[i] = (double)(steps - i - 1);
	}
	struct ir_value *I = b_const_reals(c, iv, &steps, 1, dt);
	struct ir_value *J = b_const_reals(c, jv, &steps, 1, dt);
	free(iv);
	struct ir_value *step = b_op2(c, "Div", b_op2(c, "Sub", hi, lo),
				      b_const_scalar(c, (double)bins, dt, 0));
	struct ir_value *low = b_op2(c, "Less", I,
				     b_const_scalar(c, (double)(steps / 2), dt, 0));
	return b_op3(c, "Where", low, b_op2(c, "Add", lo, b_op2(c, "Mul", step, I)),
		     b_op2(c, "Sub", hi, b_op2(c, "Mul", step, J)));
}

/* The most bins lowered: a count's edges and one-hot are built here, of
 * bins + 1 and N x bins entries (2^61 bins overflowed the size of the
 * edges) */
#define HIST_MAX_BINS ((int64_t)1 << 24)

/* a >= b and a <= b as Greater/Less or Equal (NaN: false) */
static struct ir_value *at_least(struct lower_ctx *c, struct ir_value *a,
				 struct ir_value *b, int above)
{
	return b_op2(c, "Or", b_op2(c, above ? "Greater" : "Less", a, b),
		     b_op2(c, "Equal", a, b));
}

/* The bin (in dt) of each element of xf (1-d) over [lo, hi] by the
 * linear formula (edges NULL) or by the edges [bins + 1], the last bin
 * closed; *mask: whether the element lies in [lo, hi] (NaN: not) */
static struct ir_value *hist_bin(struct lower_ctx *c, struct ir_value *xf,
				 struct ir_value *lo, struct ir_value *hi,
				 struct ir_value *edges, int64_t bins,
				 enum ir_dtype dt, struct ir_value **mask)
{
	int64_t a0 = 0, a1 = 1;
	struct ir_value *p;
	*mask = b_op2(c, "And", at_least(c, xf, lo, 1), at_least(c, xf, hi, 0));
	if (!edges) {
		/* HistogramKernel.cpp: (elt - lo) * bins / (hi - lo), truncated */
		p = b_op1(c, "Floor", b_op2(c, "Div",
			b_op2(c, "Mul", b_op2(c, "Sub", xf, lo),
			      b_const_scalar(c, (double)bins, dt, 0)),
			b_op2(c, "Sub", hi, lo)));
	} else {
		struct ir_value *le = b_op1(c, "Not", b_op2(c, "Greater",
			b_unsqueeze(c, edges, &a0, 1), b_unsqueeze(c, xf, &a1, 1)));
		p = b_op2(c, "Sub", b_reduce(c, "ReduceSum", b_cast(c, le, dt),
					     &a1, 1, 0),
			  b_const_scalar(c, 1, dt, 0));
	}
	return b_op2(c, "Min", p, b_const_scalar(c, (double)(bins - 1), dt, 1));
}

/* The sums [nb] in dt of the weights wf (1-d, or NULL: 1) of the elements
 * whose bin p (in dt, 0..nb-1) mask allows: a one-hot [N, nb] summed */
static struct ir_value *hist_sum(struct lower_ctx *c, struct ir_value *p,
				 struct ir_value *mask, struct ir_value *wf,
				 int64_t nb, enum ir_dtype dt)
{
	int64_t a0 = 0, a1 = 1;
	double *ar = malloc(sizeof(*ar) * (size_t)nb);
	if (!ar)
		return NULL;
	for (int64_t i = 0; i < nb; i++)
		ar[i] = (double)i;
	struct ir_value *arv = b_const_reals(c, ar, &nb, 1, dt);
	free(ar);
	struct ir_value *oh = b_op2(c, "And",
		b_op2(c, "Equal", b_unsqueeze(c, p, &a1, 1), arv),
		b_unsqueeze(c, mask, &a1, 1));
	struct ir_value *v = wf ? b_unsqueeze(c, wf, &a1, 1)
				: b_const_scalar(c, 1, dt, 0);
	return b_reduce(c, "ReduceSum",
			b_op3(c, "Where", oh, v, b_const_scalar(c, 0, dt, 0)),
			&a0, 1, 0);
}

/* the histogram [bins] in dt of xf (1-d) weighted by wf (1-d, or NULL: 1)
 * over [lo, hi]: the bin by the linear formula (edges NULL) or by the
 * edges [bins + 1] */
static struct ir_value *hist_counts(struct lower_ctx *c, struct ir_value *xf,
				    struct ir_value *wf, struct ir_value *lo,
				    struct ir_value *hi, struct ir_value *edges,
				    int64_t bins, enum ir_dtype dt)
{
	struct ir_value *mask, *p = hist_bin(c, xf, lo, hi, edges, bins, dt, &mask);
	return hist_sum(c, p, mask, wf, bins, dt);
}

/* the input's float dtype, or 0 after declining */
static enum ir_dtype float_input(struct lower_ctx *c, struct ir_value *x,
				 const char *what)
{
	enum ir_dtype dt = x ? b_dtype(x) : IR_DTYPE_UNDEFINED;
	if (dt != IR_DTYPE_FLOAT && dt != IR_DTYPE_DOUBLE) {
		lw_decline(c, what);
		return IR_DTYPE_UNDEFINED;
	}
	return dt;
}

/* histc(self, bins=100, min=0, max=0) */
static SYM(sym_histc)
{
	struct ir_value *x = T(0), *lo, *hi;
	int64_t bins = 100;
	double a = 0, b = 0;
	enum ir_dtype dt = float_input(c, x, "histc expects a Float or Double input");
	if (dt == IR_DTYPE_UNDEFINED)
		return 1;
	if ((NARGS > 1 && !lw_int(c, n, 1, &bins)) ||
	    (NARGS > 2 && !lw_float(c, n, 2, &a)) ||
	    (NARGS > 3 && !lw_float(c, n, 3, &b)))
		return lw_decline(c, "histc's bins, min and max must be constants");
	if (bins <= 0)
		return lw_decline(c, "histc: bins must be > 0");
	if (bins > HIST_MAX_BINS)
		return lw_decline(c, "histc: more than 2^24 bins");
	if (a > b || !isfinite(a) || !isfinite(b))
		return lw_decline(c, "torch.histc: max must be larger than min, both finite");
	struct ir_value *xf = flat(c, x);
	outer_edges(c, xf, fixed_numel(x), a != b, a, b, a, a, 1, dt, &lo, &hi);
	out[0] = hist_counts(c, xf, NULL, lo, hi, NULL, bins, dt);
	return out[0] ? 0 : lw_decline(c, "out of memory");
}

/* histogram(self, int bins, *, float[]? range, Tensor? weight, bool
 * density) and histogram(self, Tensor bins, *, Tensor? weight, bool
 * density): (hist, bin_edges) */
static SYM(sym_histogram)
{
	struct ir_value *x = T(0), *lo, *hi, *e, *wf = NULL;
	int64_t bins = 0, density = 0;
	double rg[2] = { 0, 0 };
	int ct = lw_int(c, n, 1, &bins), iw = ct ? 3 : 2, have = 0;
	enum ir_dtype dt = float_input(c, x, "histogram expects a Float or Double input");
	if (dt == IR_DTYPE_UNDEFINED)
		return 1;
	if (NARGS > iw + 1 && !lw_int(c, n, iw + 1, &density))
		return lw_decline(c, "histogram's density must be a constant");
	if (ct && NARGS > 2 && !lw_is_none(c, n, 2)) {
		if (!sym_scale_factors(c, n, 2, rg, 2))
			return lw_decline(c, "histogram's range must be a constant pair");
		have = 1;
		if (!isfinite(rg[0]) || !isfinite(rg[1]) || rg[0] > rg[1])
			return lw_decline(c, "torch.histogram: range must be finite, min <= max");
	}
	if (ct && bins <= 0)
		return lw_decline(c, "histogram: bins must be > 0");
	if (ct && bins > HIST_MAX_BINS)
		return lw_decline(c, "histogram: more than 2^24 bins");
	struct ir_value *xf = flat(c, x);
	if (NARGS > iw && !lw_is_none(c, n, iw)) {
		struct ir_value *w = T(iw);
		if (!w || b_dtype(w) != dt)
			return lw_decline(c, "histogram's weight must have the input's dtype");
		wf = flat(c, w);
	}
	if (ct) {
		outer_edges(c, xf, fixed_numel(x), have, rg[0], rg[1], 0, 1, 0.5,
			    dt, &lo, &hi);
		e = linspace(c, lo, hi, bins, dt);
		if (!e)
			return lw_decline(c, "out of memory");
	} else {
		e = T(1);
		bins = e ? b_dim_size(e, 0) - 1 : -1;
		if (!e || b_rank(e) != 1 || b_dtype(e) != dt || bins < 1)
			return lw_decline(c, "histogram's bins tensor must be 1-d, of the input's dtype, of a fixed size of two or more");
		if (bins > HIST_MAX_BINS)
			return lw_decline(c, "histogram: more than 2^24 bins");
		int64_t z = 0;
		lo = b_squeeze(c, b_slice(c, e, 0, 1, 0, 1), &z, 1);
		hi = b_squeeze(c, b_slice(c, e, bins, bins + 1, 0, 1), &z, 1);
		e = b_op1(c, "Identity", e);
	}
	struct ir_value *h = hist_counts(c, xf, wf, lo, hi, e, bins, dt);
	if (!h)
		return lw_decline(c, "out of memory");
	if (density) {
		struct ir_value *w = b_op2(c, "Sub", b_slice(c, e, 1, bins + 1, 0, 1),
					   b_slice(c, e, 0, bins, 0, 1));
		h = b_op2(c, "Div", b_op2(c, "Div", h,
					  b_reduce(c, "ReduceSum", h, NULL, 0, 0)), w);
	}
	out[0] = h;
	out[1] = e;
	return 0;
}

#define HDD_MAX 32 /* histogramdd's most dims here */

/* histogramdd(self, int[] bins | int bins | Tensor[] bins, float[]?
 * range, Tensor? weight, bool density) -> (hist, Tensor[] bin_edges),
 * and its parts _histogramdd_bin_edges, _histogramdd_from_bin_cts,
 * _histogramdd_from_bin_tensors: self [..., D] with D fixed; per dim
 * histogram's edges and bin, the flat bin sum_d bin_d * stride_d, one
 * one-hot over all the bins (their product is a constant), masked where
 * any coordinate lies outside its edges; density divides by the total,
 * then by each dim's bin widths in turn (Histogram.cpp's order) */
static SYM(sym_histogramdd)
{
	struct ir_value *x = T(0), *e[HDD_MAX], *wf = NULL, *xf, *idx = NULL, *mask = NULL;
	int64_t bins[HDD_MAX], D, density = 0, nb = 1, m1[2] = { -1, 0 }, z = 0;
	double rg[2 * HDD_MAX];
	int ftens = n->op == OP_aten__histogramdd_from_bin_tensors;
	int iw = ftens ? 2 : 3, k, tens = 0, nrg = 0;
	enum ir_dtype dt = float_input(c, x, "torch.histogramdd: input must be Float or Double");
	if (dt == IR_DTYPE_UNDEFINED)
		return 1;
	D = b_rank(x) >= 2 ? b_dim_size(x, -1) : -1;
	if (D < 1 || D > HDD_MAX)
		return lw_decline(c, "histogramdd's input needs a known rank of two or more and a fixed last dim of 1 to 32");
	if (lw_int(c, n, 1, &bins[0])) {
		for (k = 1; k < D; k++)
			bins[k] = bins[0];
	} else if ((k = lw_ints(c, n, 1, bins, HDD_MAX, 0)) < 0) {
		k = lw_list(c, n, 1, e, HDD_MAX);
		tens = 1;
		if (k < 0)
			return lw_decline(c, "histogramdd's bins must be constant counts or a list of edge tensors");
	}
	if (k != D)
		return lw_decline(c, "torch.histogramdd: one bin count or edge tensor per dimension of the input");
	if (NARGS > iw + 1 && !lw_int(c, n, iw + 1, &density))
		return lw_decline(c, "histogramdd's density must be a constant");
	if (!tens && NARGS > 2 && !lw_is_none(c, n, 2)) {
		nrg = sym_scale_factors(c, n, 2, rg, 2 * (int)D) ? 2 * (int)D : -1;
		if (nrg < 0)
			return lw_decline(c, "histogramdd's range must be constant, two numbers per dimension");
	}
	m1[1] = D;
	xf = b_op2(c, "Reshape", x, b_const_i64s(c, m1, 2, 1));
	if (NARGS > iw && !lw_is_none(c, n, iw)) {
		struct ir_value *w = T(iw);
		if (!w || b_dtype(w) != dt)
			return lw_decline(c, "histogramdd's weight must have the input's dtype");
		wf = flat(c, w);
	}
	for (int64_t d = 0; d < D; d++) {
		struct ir_value *xd = flat(c, b_slice(c, xf, d, d + 1, 1, 1)), *lo, *hi, *md, *p;
		double a = nrg ? rg[2 * d] : 0, b = nrg ? rg[2 * d + 1] : 0;
		if (tens) {
			bins[d] = e[d] ? b_dim_size(e[d], 0) - 1 : -1;
			if (!e[d] || b_rank(e[d]) != 1 || b_dtype(e[d]) != dt || bins[d] < 1)
				return lw_decline(c, "histogramdd's bins tensors must be 1-d, of the input's dtype, of a fixed size of two or more");
		} else {
			if (bins[d] <= 0)
				return lw_decline(c, "histogramdd: bins must be > 0");
			if (nrg && (!isfinite(a) || !isfinite(b) || a > b))
				return lw_decline(c, "torch.histogramdd: range must be finite, min <= max");
		}
		/* before linspace's bins + 1 edges (2^61 bins overflowed its
		 * size) */
		if (nb > HIST_MAX_BINS / bins[d])
			return lw_decline(c, "histogramdd: more than 2^24 bins in all");
		nb *= bins[d];
		if (tens) {
			lo = b_squeeze(c, b_slice(c, e[d], 0, 1, 0, 1), &z, 1);
			hi = b_squeeze(c, b_slice(c, e[d], bins[d], bins[d] + 1, 0, 1), &z, 1);
			e[d] = b_op1(c, "Identity", e[d]);
		} else {
			int64_t numel = fixed_numel(x);
			outer_edges(c, xd, numel, nrg > 0, a, b, 0, 1, 0.5, dt, &lo, &hi);
			e[d] = linspace(c, lo, hi, bins[d], dt);
			if (!e[d])
				return lw_decline(c, "out of memory");
		}
		p = hist_bin(c, xd, lo, hi, e[d], bins[d], dt, &md);
		idx = idx ? b_op2(c, "Add", b_op2(c, "Mul", idx,
						  b_const_scalar(c, (double)bins[d], dt, 0)), p) : p;
		mask = mask ? b_op2(c, "And", mask, md) : md;
	}
	if (n->op == OP_aten__histogramdd_bin_edges) {
		lw_set_list(c, n->outputs[0], e, (int)D);
		out[0] = NULL;
		return 0;
	}
	struct ir_value *h = hist_sum(c, idx, mask, wf, nb, dt);
	if (!h)
		return lw_decline(c, "out of memory");
	h = b_op2(c, "Reshape", h, b_const_i64s(c, bins, (int)D, 1));
	if (density) {
		h = b_op2(c, "Div", h, b_reduce(c, "ReduceSum", h, NULL, 0, 0));
		for (int64_t d = 0; d < D; d++) {
			int64_t shp[HDD_MAX];
			for (int64_t j = 0; j < D; j++)
				shp[j] = j == d ? bins[d] : 1;
			struct ir_value *wd = b_op2(c, "Sub", b_slice(c, e[d], 1, bins[d] + 1, 0, 1),
						    b_slice(c, e[d], 0, bins[d], 0, 1));
			h = b_op2(c, "Div", h, b_op2(c, "Reshape", wd, b_const_i64s(c, shp, (int)D, 1)));
		}
	}
	out[0] = h;
	if (n->op == OP_aten_histogramdd) {
		lw_set_list(c, n->outputs[1], e, (int)D);
		out[1] = NULL;
	}
	return 0;
}

/* bincount(self, weights=None, minlength=0): length max(max(self) + 1,
 * minlength) at run time (the Concat with minlength makes an empty input
 * give minlength); Long counts, or the weights' sums (Float weights:
 * Float, others Double) */
static SYM(sym_bincount)
{
	struct ir_value *x = T(0), *w = NULL;
	int64_t minlen = 0, a0 = 0, a1 = 1;
	enum ir_dtype xd = x ? b_dtype(x) : IR_DTYPE_UNDEFINED, dt = IR_DTYPE_INT64;
	if (!x || b_rank(x) != 1 ||
	    (xd != IR_DTYPE_UINT8 && xd != IR_DTYPE_INT8 && xd != IR_DTYPE_INT16 &&
	     xd != IR_DTYPE_INT32 && xd != IR_DTYPE_INT64))
		return lw_decline(c, "bincount only supports 1-d non-negative integral inputs");
	if (NARGS > 2 && !lw_int(c, n, 2, &minlen))
		return lw_decline(c, "bincount's minlength must be a constant");
	if (minlen < 0)
		return lw_decline(c, "minlength should be >= 0");
	if (NARGS > 1 && !lw_is_none(c, n, 1)) {
		w = T(1);
		if (!w || b_rank(w) != 1)
			return lw_decline(c, "bincount's weights must be 1-d");
		dt = b_dtype(w) == IR_DTYPE_FLOAT ? IR_DTYPE_FLOAT : IR_DTYPE_DOUBLE;
		w = b_cast(c, w, dt);
	}
	struct ir_value *xl = b_cast(c, x, IR_DTYPE_INT64);
	struct ir_value *parts[2] = {
		b_op2(c, "Add", xl, b_const_i64s(c, &a1, 1, 1)),
		b_const_i64s(c, &minlen, 1, 1),
	};
	struct ir_value *cat = b_concat(c, 2, parts, 0);
	struct ir_value *len = b_reduce(c, "ReduceMax", cat, NULL, 0, 0);
	struct ir_value *oh = b_op2(c, "Equal", b_unsqueeze(c, xl, &a1, 1),
				    b_unsqueeze(c, sym_arange_count(c, len), &a0, 1));
	struct ir_value *v = w ? b_op3(c, "Where", oh, b_unsqueeze(c, w, &a1, 1),
				       b_const_scalar(c, 0, dt, 0))
			       : b_cast(c, oh, IR_DTYPE_INT64);
	out[0] = b_reduce(c, "ReduceSum", v, &a0, 1, 0);
	return 0;
}

static const struct symbolic entries[] = {
	{ OP_aten_bincount, 9, 0, SYM_PRIO_BASE, sym_bincount },
	{ OP_aten_histc, 11, 0, SYM_PRIO_BASE, sym_histc },
	{ OP_aten_histogram, 11, 0, SYM_PRIO_BASE, sym_histogram },
	{ OP_aten_histogramdd, 11, 0, SYM_PRIO_BASE, sym_histogramdd },
	{ OP_aten__histogramdd_bin_edges, 11, 0, SYM_PRIO_BASE, sym_histogramdd },
	{ OP_aten__histogramdd_from_bin_cts, 11, 0, SYM_PRIO_BASE, sym_histogramdd },
	{ OP_aten__histogramdd_from_bin_tensors, 11, 0, SYM_PRIO_BASE, sym_histogramdd },
};

const struct symbolic_table symbolic_hist_table = {
	entries, sizeof(entries) / sizeof(entries[0])
};

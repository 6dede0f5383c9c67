/*
 * symbolic_stats.c - more of the long tail of aten operators (issue 14):
 * block_diag, cartesian_prod, diagonal_scatter, hsplit/vsplit/dsplit,
 * cov and corrcoef, nanmedian, gradient, segment_reduce.  Each is an
 * exact ONNX decomposition of torch 1.13's definition (ATen/native:
 * TensorShape.cpp's block_diag, Itertools.cpp's cartesian_prod, Correlation.cpp's cov and
 * corrcoef, Sorting.cpp's nanmedian, ReduceOps.cpp's gradient,
 * SegmentReduce.cpp) or declines with the reason.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "symbolic_common.h"

#define T(i) lw_tensor(c, n, (i))
#define NARGS ((int)n->ninputs)
#define MAXL 64

static struct ir_value *concat(struct lower_ctx *c, struct ir_value **v,
			       int k, int64_t axis)
{
	if (k == 1)
		return v[0];
	return b_concat(c, k, v, axis);
}

/* zeros of the fixed dims [d0, d1] and dtype dt */
static struct ir_value *zeros2(struct lower_ctx *c, int64_t d0, int64_t d1,
			       enum ir_dtype dt)
{
	int64_t d[2] = { d0, d1 };
	return sym_fill_shape(c, b_const_i64s(c, d, 2, 1), 0, dt);
}

/* block_diag(tensors): each 0-d, 1-d (one row) or 2-d block on the
 * diagonal of zeros, in the tensors' promoted dtype; fixed sizes. */
static SYM(sym_block_diag)
{
	struct ir_value *t[MAXL], *rows[MAXL];
	int64_t nr[MAXL], nc[MAXL], cols = 0;
	int k = lw_list(c, n, 0, t, MAXL);
	if (k < 1)
		return lw_decline(c, "tensors is not a list known element-wise");
	enum ir_dtype dt = IR_DTYPE_UNDEFINED;
	for (int i = 0; i < k; i++) {
		int r = t[i] ? b_rank(t[i]) : -1;
		if (r < 0 || r > 2)
			return lw_decline(c, "a block that is not 0-d, 1-d or 2-d");
		nr[i] = r < 2 ? 1 : b_dim_size(t[i], 0);
		nc[i] = r < 1 ? 1 : b_dim_size(t[i], r - 1);
		if (nr[i] < 0 || nc[i] < 0)
			return lw_decline(c, "a block of sizes not fixed");
		enum ir_dtype d = b_dtype(t[i]);
		if (d == IR_DTYPE_UNDEFINED)
			return lw_decline(c, "a block of unknown dtype");
		dt = i ? lw_promote(dt, d) : d;
		cols += nc[i];
	}
	int64_t before = 0, shp[2];
	int nrows = 0;
	for (int i = 0; i < k; i++) {
		struct ir_value *p[3];
		int np = 0;
		shp[0] = nr[i];
		shp[1] = nc[i];
		if (nr[i] == 0) {
			before += nc[i];
			continue;
		}
		if (before)
			p[np++] = zeros2(c, nr[i], before, dt);
		if (nc[i])
			p[np++] = b_op2(c, "Reshape", b_cast(c, t[i], dt),
					b_const_i64s(c, shp, 2, 1));
		if (cols - before - nc[i])
			p[np++] = zeros2(c, nr[i], cols - before - nc[i], dt);
		before += nc[i];
		if (np)
			rows[nrows++] = concat(c, p, np, 1);
	}
	out[0] = nrows ? concat(c, rows, nrows, 0) : zeros2(c, 0, cols, dt);
	return 0;
}

/* cartesian_prod(tensors): the 1-d tensors' meshgrid (ij), each
 * flattened, stacked as columns [prod n_i, k]; one tensor is itself. */
static SYM(sym_cartesian_prod)
{
	struct ir_value *t[MAXL], *shp[MAXL], *col[MAXL];
	int64_t ax[MAXL], m1[2] = { -1, 1 };
	int k = lw_list(c, n, 0, t, MAXL);
	if (k < 1)
		return lw_decline(c, "tensors is not a list known element-wise");
	for (int i = 0; i < k; i++)
		if (!t[i] || b_rank(t[i]) != 1)
			return lw_decline(c, "a tensor that is not 1-d");
	if (k == 1) {
		out[0] = b_op1(c, "Identity", t[0]);
		return 0;
	}
	for (int i = 0; i < k; i++)
		shp[i] = b_op1(c, "Shape", t[i]);
	struct ir_value *full = concat(c, shp, k, 0);
	for (int i = 0; i < k; i++) {
		int na = 0;
		for (int j = 0; j < k; j++)
			if (j != i)
				ax[na++] = j;
		struct ir_value *e = b_op2(c, "Expand",
					   b_unsqueeze(c, t[i], ax, na), full);
		col[i] = b_op2(c, "Reshape", e, b_const_i64s(c, m1, 2, 1));
	}
	out[0] = concat(c, col, k, 1);
	return 0;
}

/* diagonal_scatter(self, src, offset=0, dim1=0, dim2=1): self with the
 * diagonal diagonal() reads replaced by src.  self's dims moved so dim1
 * and dim2 come last ([..., R, C], src [..., L]); src's entry for each
 * row (offset >= 0: diagonal entry i is at (i, i + offset)) or column
 * (offset < 0: at (j - offset, j)) gathered to [..., R, 1] or [..., 1,
 * C] and put where the mask of the diagonal (EyeLike, at run time) is
 * true. */
static SYM(sym_diagonal_scatter)
{
	struct ir_value *x = T(0), *src = T(1);
	int64_t off = 0, d1 = 0, d2 = 1, perm[MAXL], inv[MAXL];
	int r = x ? b_rank(x) : -1;
	if (!src || r < 2 || r > MAXL)
		return lw_decline(c, "the inputs are not tensors of known rank");
	if ((NARGS > 2 && !lw_int(c, n, 2, &off)) ||
	    (NARGS > 3 && !lw_int(c, n, 3, &d1)) ||
	    (NARGS > 4 && !lw_int(c, n, 4, &d2)))
		return lw_decline(c, "offset, dim1 or dim2 not constant");
	d1 = d1 < 0 ? d1 + r : d1;
	d2 = d2 < 0 ? d2 + r : d2;
	if (d1 < 0 || d1 >= r || d2 < 0 || d2 >= r || d1 == d2)
		return lw_decline(c, "dim1 and dim2 out of range or equal");
	int64_t R = b_dim_size(x, d1), C = b_dim_size(x, d2);
	if (R < 0 || C < 0)
		return lw_decline(c, "the diagonal's dims have no fixed size");
	int64_t L = off >= 0 ? (C - off < R ? C - off : R)
			     : (R + off < C ? R + off : C);
	if (L <= 0) {
		out[0] = b_op1(c, "Identity", x);
		return 0;
	}
	int np = 0;
	for (int i = 0; i < r; i++)
		if (i != d1 && i != d2)
			perm[np++] = i;
	perm[np++] = d1;
	perm[np++] = d2;
	for (int i = 0; i < r; i++)
		inv[perm[i]] = i;
	struct ir_value *xt = b_transpose(c, x, perm, r);
	/* an [R, C] of xt's first matrix (summed: zeros when there is
	 * none), for EyeLike: the index and mask below are then made at run
	 * time, and folding makes no constant of R, C or R x C */
	int64_t dims[3] = { -1, R, C }, z0 = 0;
	struct ir_value *z = b_reduce(c, "ReduceSum", b_cast(c,
		b_slice(c, b_op2(c, "Reshape", xt, b_const_i64s(c, dims, 3, 1)),
			0, 1, 0, 1), IR_DTYPE_FLOAT), &z0, 1, 0);
	/* src's index for each row (or column): its own (ArgMax of the
	 * identity's row or column) below L, 0 past the diagonal's end
	 * (masked out below) */
	struct ir_node *am = b_node(c, "ArgMax", 1, (struct ir_value *[]){
		b_op1(c, "EyeLike", z) }, 1);
	b_attr_i(c, am, "axis", off >= 0 ? 1 : 0);
	b_attr_i(c, am, "keepdims", 0);
	struct ir_value *ar = b_done(c, am);
	struct ir_value *g[2] = { b_cast(c, src, b_dtype(x)),
		b_op3(c, "Where", b_op2(c, "Less", ar, b_const_i64(c, L)), ar,
		      b_const_i64(c, 0)) };
	struct ir_node *gn = b_node(c, "Gather", 2, g, 1);
	b_attr_i(c, gn, "axis", r - 2);
	int64_t at = off >= 0 ? r - 1 : r - 2;
	struct ir_value *s = b_unsqueeze(c, b_done(c, gn), &at, 1);
	/* the mask [R, C], j - i == offset: EyeLike's ones at k = offset */
	struct ir_node *e = b_node(c, "EyeLike", 1, &z, 1);
	b_attr_i(c, e, "k", off);
	struct ir_value *mask = b_cast(c, b_done(c, e), IR_DTYPE_BOOL);
	out[0] = b_transpose(c, b_op3(c, "Where", mask, s, xt), inv, r);
	return 0;
}

/* hsplit (dim 1, or 0 for a 1-d tensor), vsplit (0), dsplit (2):
 * tensor_split at that dim, sections or indices */
static SYM(sym_hsplit)
{
	struct ir_value *x = T(0);
	int r = x ? b_rank(x) : -1;
	if (r < 1)
		return lw_decline(c, "the input has no known rank of 1 or more");
	return sym_split_at(c, n, out, r == 1 ? 0 : 1);
}

static SYM(sym_vsplit)
{
	struct ir_value *x = T(0);
	if (!x || b_rank(x) < 2)
		return lw_decline(c, "the input has no known rank of 2 or more");
	return sym_split_at(c, n, out, 0);
}

static SYM(sym_dsplit)
{
	struct ir_value *x = T(0);
	if (!x || b_rank(x) < 3)
		return lw_decline(c, "the input has no known rank of 3 or more");
	return sym_split_at(c, n, out, 2);
}

/* torch's cov(input, correction, fweights, aweights) of a float input
 * [V, N] (1-d: [1, N]), before its final squeeze: w = fweights *
 * aweights, avg = sum(x * w) / sum(w), norm = sum(w) - correction (times
 * sum(w * aweights) / sum(w) with aweights), negative norms 0, then
 * (x - avg) * w @ (x - avg)^T / norm; no weights: w 1, sum(w) N. */
static struct ir_value *cov_matrix(struct lower_ctx *c, struct ir_node *n,
				   struct ir_value *x, int icorr, int ifw,
				   int iaw)
{
	enum ir_dtype dt = b_dtype(x);
	int64_t a1 = 1, corr = 1, perm[2] = { 1, 0 };
	if (icorr >= 0 && !lw_int(c, n, icorr, &corr))
		return NULL;
	struct ir_value *fw = ifw >= 0 && !lw_is_none(c, n, ifw) ? T(ifw) : NULL;
	struct ir_value *aw = iaw >= 0 && !lw_is_none(c, n, iaw) ? T(iaw) : NULL;
	struct ir_value *w = NULL, *wsum, *avg, *norm;
	if (fw)
		w = b_cast(c, fw, dt);
	if (aw)
		w = w ? b_op2(c, "Mul", w, b_cast(c, aw, dt)) : b_cast(c, aw, dt);
	struct ir_value *cr = b_const_scalar(c, (double)corr, dt, 0);
	if (w) {
		wsum = b_reduce(c, "ReduceSum", w, NULL, 0, 0);
		avg = b_op2(c, "Div", b_reduce(c, "ReduceSum",
					       b_op2(c, "Mul", x, w), &a1, 1, 1),
			    wsum);
		if (aw)
			cr = b_op2(c, "Mul", cr, b_op2(c, "Div",
				b_reduce(c, "ReduceSum", b_op2(c, "Mul", w,
					 b_cast(c, aw, dt)), NULL, 0, 0), wsum));
	} else {
		wsum = b_cast(c, b_dim(c, x, 1), dt);
		avg = b_reduce(c, "ReduceMean", x, &a1, 1, 1);
	}
	/* Max with +0, not Relu: ONNX Runtime's Relu of a negative is -0,
	 * torch's zeroed norm +0 (the sign of its infinities) */
	norm = b_op2(c, "Max", b_op2(c, "Sub", wsum, cr),
		     b_const_scalar(c, 0, dt, 0));
	struct ir_value *xm = b_op2(c, "Sub", x, avg);
	struct ir_value *xw = w ? b_op2(c, "Mul", xm, w) : xm;
	struct ir_value *p = b_op2(c, "MatMul", xw, b_transpose(c, xm, perm, 2));
	return b_op2(c, "Div", p, norm);
}

/* the float input of cov/corrcoef: x as [V, N], V fixed, one when
 * torch's squeeze makes the result 0-d (V == 1) */
struct cov_in {
	struct ir_value *x;
	int64_t v;
	int one;
};

/* 0 with *ci filled, or lw_decline's answer */
static int cov_input(struct lower_ctx *c, struct ir_node *n,
		     struct cov_in *ci)
{
	struct ir_value *x = T(0);
	int r = x ? b_rank(x) : -1;
	if ((r != 1 && r != 2) || !b_is_float(b_dtype(x)))
		return lw_decline(c, "the input is not a 1-d or 2-d float tensor");
	if (r == 1) {
		int64_t z = 0;
		x = b_unsqueeze(c, x, &z, 1);
	}
	ci->x = x;
	ci->v = b_dim_size(x, 0);
	ci->one = ci->v == 1;
	if (ci->v < 0)
		return lw_decline(c, "the number of variables is not fixed");
	return 0;
}

static SYM(sym_cov)
{
	struct cov_in ci;
	int rc = cov_input(c, n, &ci);
	if (rc)
		return rc;
	/* torch's checks of the weights where their shapes and dtypes are
	 * known (Correlation.cpp's cov; their signs are run-time values) */
	for (int i = 2; i < 4 && i < NARGS; i++) {
		struct ir_value *w = lw_is_none(c, n, i) ? NULL : T(i);
		int wr = w ? b_rank(w) : -1, f = i == 2;
		enum ir_dtype d = w ? b_dtype(w) : IR_DTYPE_UNDEFINED;
		int64_t k = wr == 0 ? 1 : wr == 1 ? b_dim_size(w, 0) : -1;
		int64_t obs = b_dim_size(ci.x, 1);
		if (wr > 1)
			return lw_decline(c, f ? "cov(): expected fweights to have one or fewer dimensions"
					       : "cov(): expected aweights to have one or fewer dimensions");
		if (d != IR_DTYPE_UNDEFINED &&
		    (f ? b_is_float(d) || d == IR_DTYPE_BOOL : !b_is_float(d)))
			return lw_decline(c, f ? "cov(): expected fweights to have integral dtype"
					       : "cov(): expected aweights to have floating point dtype");
		if (k >= 0 && obs >= 0 && k != obs)
			return lw_decline(c, f ? "cov(): expected fweights to have the same numel as there are observations in the input"
					       : "cov(): expected aweights to have the same numel as there are observations in the input");
	}
	struct ir_value *m = cov_matrix(c, n, ci.x, NARGS > 1 ? 1 : -1,
					NARGS > 2 ? 2 : -1, NARGS > 3 ? 3 : -1);
	if (!m)
		return lw_decline(c, "correction is not constant");
	out[0] = ci.one ? b_squeeze(c, m, NULL, 0) : m;
	return 0;
}

/* corrcoef(input): cov / (stddev[:, None] * ...) as torch divides, twice,
 * clipped to [-1, 1]; a 0-d cov c gives c / c */
static SYM(sym_corrcoef)
{
	struct cov_in ci;
	int rc = cov_input(c, n, &ci);
	if (rc)
		return rc;
	int64_t v = ci.v;
	struct ir_value *m = cov_matrix(c, n, ci.x, -1, -1, -1);
	if (ci.one) {
		m = b_squeeze(c, m, NULL, 0);
		out[0] = b_op2(c, "Div", m, m);
		return 0;
	}
	if (c->opset < 10)
		return lw_decline(c, "the diagonal's strided Slice needs opset 10");
	int64_t flat = -1, col[2] = { -1, 1 }, row[2] = { 1, -1 };
	struct ir_value *d = b_slice(c, b_op2(c, "Reshape", m,
					      b_const_i64s(c, &flat, 1, 1)),
				     0, INT64_MAX, 0, v + 1);
	struct ir_value *sd = b_op1(c, "Sqrt", d);
	m = b_op2(c, "Div", m, b_op2(c, "Reshape", sd,
				     b_const_i64s(c, col, 2, 1)));
	m = b_op2(c, "Div", m, b_op2(c, "Reshape", sd,
				     b_const_i64s(c, row, 2, 1)));
	/* clip as torch's clamp: NaN stays NaN */
	enum ir_dtype dt = b_dtype(m);
	struct ir_value *lo = b_const_scalar(c, -1, dt, 0);
	struct ir_value *hi = b_const_scalar(c, 1, dt, 0);
	struct ir_value *cl = b_op2(c, "Min", b_op2(c, "Max", m, lo), hi);
	out[0] = b_op3(c, "Where", b_op1(c, "IsNaN", m), m, cl);
	return 0;
}

/* nanmedian(self) and nanmedian(self, dim, keepdim) -> (values, indices):
 * the lower middle, (m - 1) // 2, of the m non-NaN values in ascending
 * order (NaNs sorted last as +inf, ties in index order as TopK keeps
 * them, as torch's nth_element breaks ties by index); NaN where every
 * value is NaN (torch's index there is whatever its nth_element leaves
 * among values that do not compare: ours is the middle one's,
 * (m - 1) // 2 = 0).  Integers have no NaNs. */
static int median_of(struct lower_ctx *c, struct ir_node *n,
		     struct ir_value **out, int nan_ignored)
{
	struct ir_value *x = T(0);
	int r = x ? b_rank(x) : -1;
	int64_t dim = 0, keep = 0, flat = -1;
	if (r < 0)
		return lw_decline(c, "input rank unknown");
	if (c->opset < 11)
		return lw_decline(c, "an ascending TopK needs opset 11");
	int full = NARGS < 2;
	if (!full && (!lw_int(c, n, 1, &dim) || !lw_int(c, n, 2, &keep)))
		return lw_decline(c, "dim or keepdim not constant");
	if (full) {
		x = b_op2(c, "Reshape", x, b_const_i64s(c, &flat, 1, 1));
		r = 1;
	}
	dim = dim < 0 ? dim + r : dim;
	if (r == 0) {
		if (dim != 0 && dim != -1)
			return lw_decline(c, "dim out of range for a 0-d input");
		/* a 0-d input along dim 0: itself, index 0 */
		out[0] = b_op1(c, "Identity", x);
		if (n->noutputs > 1)
			out[1] = b_const_i64(c, 0);
		return 0;
	}
	if (dim < 0 || dim >= r)
		return lw_decline(c, "dim out of range");
	enum ir_dtype dt = b_dtype(x);
	int isf = b_is_float(dt);
	/* x == x: false for NaNs only */
	struct ir_value *num = b_op2(c, "Equal", x, x);
	struct ir_value *xs = isf ? b_op3(c, "Where", num, x,
					  b_const_scalar(c, INFINITY, dt, 0))
				  : x;
	int64_t z = 0;
	struct ir_value *k = b_unsqueeze(c, b_dim(c, x, dim), &z, 1);
	struct ir_value *in[2] = { xs, k };
	struct ir_node *tk = b_node(c, "TopK", 2, in, 2);
	b_attr_i(c, tk, "axis", dim);
	b_attr_i(c, tk, "largest", 0);
	b_attr_i(c, tk, "sorted", 1);
	struct ir_value *vals = b_done(c, tk), *idx = tk->outputs[1];
	/* the count of values (median: all, num == num) */
	struct ir_value *cnt = b_reduce(c, "ReduceSum", b_cast(c,
		nan_ignored ? num : b_op2(c, "Equal", num, num),
		IR_DTYPE_INT64), &dim, 1, 1);
	/* (m - 1) // 2, 0 for m 0 (Div truncates: -1 / 2 is 0) */
	struct ir_value *at = b_op2(c, "Div", b_op2(c, "Sub", cnt,
					b_const_i64(c, 1)), b_const_i64(c, 2));
	struct ir_node *g = b_node(c, "GatherElements", 2,
				   (struct ir_value *[]){ vals, at }, 1);
	b_attr_i(c, g, "axis", dim);
	struct ir_value *v = b_done(c, g);
	g = b_node(c, "GatherElements", 2,
		   (struct ir_value *[]){ idx, at }, 1);
	b_attr_i(c, g, "axis", dim);
	struct ir_value *iv = b_done(c, g);
	if (isf && nan_ignored)
		v = b_op3(c, "Where", b_op2(c, "Equal", cnt, b_const_i64(c, 0)),
			  b_const_scalar(c, NAN, dt, 0), v);
	if (isf && !nan_ignored) {
		/* a NaN met: NaN, and the first NaN's index (ArgMax's) */
		struct ir_value *isn = b_cast(c, b_op1(c, "Not", num),
					      IR_DTYPE_FLOAT);
		struct ir_node *am = b_node(c, "ArgMax", 1, &isn, 1);
		b_attr_i(c, am, "axis", dim);
		b_attr_i(c, am, "keepdims", 1);
		struct ir_value *any = b_op2(c, "Greater",
			b_reduce(c, "ReduceMax", isn, &dim, 1, 1),
			b_const_scalar(c, 0, IR_DTYPE_FLOAT, 0));
		v = b_op3(c, "Where", any, b_const_scalar(c, NAN, dt, 0), v);
		iv = b_op3(c, "Where", any, b_done(c, am), iv);
	}
	if (full || !keep) {
		v = b_squeeze(c, v, &dim, 1);
		iv = b_squeeze(c, iv, &dim, 1);
	}
	out[0] = v;
	if (n->noutputs > 1)
		out[1] = iv;
	return 0;
}

static SYM(sym_nanmedian) { return median_of(c, n, out, 1); }

/* median(self) and median(self, dim, keepdim): nanmedian's lower middle
 * of all values, NaN where a NaN is met (with the first NaN's index), as
 * torch's median_with_indices_impl; an empty median() is NaN */
static SYM(sym_median)
{
	struct ir_value *x = T(0);
	if (NARGS < 2 && x && b_rank(x) >= 0) {
		int empty = 0;
		for (int i = 0; i < b_rank(x); i++)
			empty |= b_dim_size(x, i) == 0;
		if (empty) {
			out[0] = b_const_scalar(c, NAN, b_dtype(x), 0);
			return 0;
		}
	}
	return median_of(c, n, out, 0);
}

/* GatherElements(data, idx) along axis */
static struct ir_value *gather_el(struct lower_ctx *c, struct ir_value *data,
				  struct ir_value *idx, int64_t axis)
{
	struct ir_node *g = b_node(c, "GatherElements", 2,
				   (struct ir_value *[]){ data, idx }, 1);
	b_attr_i(c, g, "axis", axis);
	return b_done(c, g);
}

/* mode(self, dim=-1, keepdim=False) -> (values, indices) as torch's CPU
 * kernel picks them: the smallest of the most frequent values, the index
 * of its last occurrence.  Each value's count is a row of the [.., L, L]
 * table of Equal along dim; the smallest candidate is ReduceMin of the
 * candidates (others replaced by the row's largest). */
static SYM(sym_mode)
{
	struct ir_value *x = T(0);
	int r = x ? b_rank(x) : -1;
	int64_t dim = -1, keep = 0;
	if (r < 0)
		return lw_decline(c, "input rank unknown");
	if ((NARGS > 1 && !lw_int(c, n, 1, &dim)) ||
	    (NARGS > 2 && !lw_int(c, n, 2, &keep)))
		return lw_decline(c, "dim or keepdim not constant");
	if (r == 0) {
		out[0] = b_op1(c, "Identity", x);
		out[1] = b_const_i64(c, 0);
		return 0;
	}
	dim = dim < 0 ? dim + r : dim;
	if (dim < 0 || dim >= r)
		return lw_decline(c, "dim out of range");
	enum ir_dtype dt = b_dtype(x), wt = dt;
	if (dt == IR_DTYPE_BOOL || dt == IR_DTYPE_INT8 || dt == IR_DTYPE_UINT8 ||
	    dt == IR_DTYPE_INT16)
		wt = IR_DTYPE_INT32;
	else if (!b_is_float(dt) && dt != IR_DTYPE_INT32 && dt != IR_DTYPE_INT64)
		return lw_decline(c, "an input dtype mode cannot compare");
	else if (dt == IR_DTYPE_FLOAT16 || dt == IR_DTYPE_BFLOAT16)
		wt = IR_DTYPE_FLOAT;
	struct ir_value *xw = b_cast(c, x, wt);
	int64_t a1 = dim + 1, a0 = dim;
	struct ir_value *eq = b_op2(c, "Equal", b_unsqueeze(c, xw, &a1, 1),
				    b_unsqueeze(c, xw, &a0, 1));
	/* counts[.., i, ..] = sum_j (x_i == x_j), over the dim after dim */
	struct ir_value *cnt = b_reduce(c, "ReduceSum",
					b_cast(c, eq, IR_DTYPE_FLOAT), &a1, 1, 0);
	struct ir_value *cand = b_op2(c, "Equal", cnt,
				      b_reduce(c, "ReduceMax", cnt, &dim, 1, 1));
	struct ir_value *v = b_reduce(c, "ReduceMin", b_op3(c, "Where", cand, xw,
				b_reduce(c, "ReduceMax", xw, &dim, 1, 1)), &dim, 1, 1);
	/* the last index holding v */
	struct ir_value *ar = sym_arange_count(c, b_dim(c, x, dim));
	int64_t shp[64];
	for (int i = 0; i < r && r <= 64; i++)
		shp[i] = i == dim ? -1 : 1;
	ar = b_op2(c, "Reshape", ar, b_const_i64s(c, shp, r, 1));
	struct ir_value *iv = b_reduce(c, "ReduceMax", b_op3(c, "Where",
				b_op2(c, "Equal", xw, v), ar, b_const_i64(c, -1)),
				&dim, 1, 1);
	v = b_cast(c, v, dt);
	if (!keep) {
		v = b_squeeze(c, v, &dim, 1);
		iv = b_squeeze(c, iv, &dim, 1);
	}
	out[0] = v;
	out[1] = iv;
	return 0;
}

/* quantile / nanquantile(self, q, dim=None, keepdim=False, *,
 * interpolation='linear') as torch's quantile_impl: each row sorted
 * ascending with NaNs last (a stable TopK of the values, NaNs as +inf,
 * then a stable TopK of the NaN flags), rank q * (N - 1) (the last index
 * where a NaN is met) or q * (m - 1) with m the non-NaN count, at least
 * 0 (nanquantile); lower, higher, nearest round it (Floor, Ceil, Round:
 * half to even as torch's round), linear and midpoint lerp the values at
 * its floor and ceil as torch's lerp (from the nearer end).  A 1-d q
 * adds its dim first. */
static SYM(sym_quantile)
{
	static const char *modes[] = { "linear", "lower", "higher",
				       "midpoint", "nearest" };
	struct ir_value *x = T(0);
	int r = x ? b_rank(x) : -1, mode = 0, qv = 0;
	int64_t dim = 0, keep = 0, flat = -1, z = 0;
	int ign = n->op == OP_aten_nanquantile;
	if (r < 0 || !b_is_float(b_dtype(x)))
		return lw_decline(c, "the input is not a float tensor of known rank");
	if (c->opset < 11)
		return lw_decline(c, "an ascending TopK needs opset 11");
	int full = NARGS < 3 || lw_is_none(c, n, 2);
	if ((!full && !lw_int(c, n, 2, &dim)) ||
	    (NARGS > 3 && !lw_int(c, n, 3, &keep)))
		return lw_decline(c, "dim or keepdim not constant");
	if (NARGS > 4) {
		const char *s = lw_str(c, n, 4);
		if (!s)
			return lw_decline(c, "interpolation not constant");
		while (mode < 5 && strcmp(s, modes[mode]))
			mode++;
		if (mode == 5)
			return lw_decline(c, "an unknown interpolation");
	}
	enum ir_dtype dt = b_dtype(x);
	struct ir_value *q;
	double qf;
	if (lw_float(c, n, 1, &qf)) {
		q = b_const_scalar(c, qf, dt, 0);
	} else {
		q = T(1);
		int qr = q ? b_rank(q) : -1;
		if (qr != 0 && qr != 1)
			return lw_decline(c, "q is not a number or a 0-d or 1-d tensor");
		q = b_cast(c, q, dt);
		qv = qr == 1;
	}
	int orank = r;
	if (r == 0) {
		/* a 0-d input: one value, the result 0-d (or q's) */
		full = 1;
		keep = 0;
	}
	if (full) {
		x = b_op2(c, "Reshape", x, b_const_i64s(c, &flat, 1, 1));
		r = 1;
		dim = 0;
	}
	dim = dim < 0 ? dim + r : dim;
	if (r == 0 || dim < 0 || dim >= r)
		return lw_decline(c, "dim out of range (or a 0-d input with dim)");
	/* the sort: values (NaN as +inf), then the NaN flags, both stable */
	struct ir_value *isn = b_op1(c, "IsNaN", x);
	struct ir_value *key = b_op3(c, "Where", isn,
				     b_const_scalar(c, INFINITY, dt, 0), x);
	struct ir_value *k = b_unsqueeze(c, b_dim(c, x, dim), &z, 1);
	struct ir_value *srt = x;
	for (int pass = 0; pass < 2; pass++) {
		struct ir_node *tk = b_node(c, "TopK", 2,
					    (struct ir_value *[]){ key, k }, 2);
		b_attr_i(c, tk, "axis", dim);
		b_attr_i(c, tk, "largest", 0);
		b_attr_i(c, tk, "sorted", 1);
		b_done(c, tk);
		srt = gather_el(c, srt, tk->outputs[1], dim);
		key = b_cast(c, b_op1(c, "IsNaN", srt), dt);
	}
	struct ir_value *one = b_const_scalar(c, 1, dt, 0);
	struct ir_value *zero = b_const_scalar(c, 0, dt, 0);
	struct ir_value *cnt = b_reduce(c, "ReduceSum", b_cast(c, b_op1(c,
				"Not", isn), dt), &dim, 1, 1);
	if (qv) {
		int64_t shp[65];
		shp[0] = -1;
		for (int i = 0; i < r; i++)
			shp[i + 1] = 1;
		q = b_op2(c, "Reshape", q, b_const_i64s(c, shp, r + 1, 1));
		srt = b_unsqueeze(c, srt, &z, 1);
	}
	struct ir_value *ranks;
	if (ign) {
		ranks = b_op2(c, "Mul", q, b_op2(c, "Sub", cnt, one));
		ranks = b_op3(c, "Where", b_op2(c, "Less", ranks, zero), zero,
			      ranks);
	} else {
		struct ir_value *last = b_cast(c, b_op2(c, "Sub",
			b_dim(c, x, dim), b_const_i64(c, 1)), dt);
		struct ir_value *all = b_cast(c, b_dim(c, x, dim), dt);
		ranks = b_op3(c, "Where", b_op2(c, "Less", cnt, all), last,
			      b_op2(c, "Mul", q, last));
	}
	if (mode == 1)
		ranks = b_op1(c, "Floor", ranks);
	else if (mode == 2)
		ranks = b_op1(c, "Ceil", ranks);
	else if (mode == 4)
		ranks = b_op1(c, "Round", ranks);
	int64_t ax = dim + qv;
	srt = b_op2(c, "Expand", srt, b_op1(c, "Shape", ranks));
	struct ir_value *lo = b_cast(c, ranks, IR_DTYPE_INT64);
	struct ir_value *v = gather_el(c, srt, lo, ax);
	if (mode == 0 || mode == 3) {
		struct ir_value *hi = gather_el(c, srt, b_cast(c, b_op1(c,
				"Ceil", ranks), IR_DTYPE_INT64), ax);
		struct ir_value *w = mode == 3 ? b_const_scalar(c, 0.5, dt, 0)
				: b_op2(c, "Sub", ranks, b_cast(c, lo, dt));
		struct ir_value *d = b_op2(c, "Sub", hi, v);
		v = b_op3(c, "Where", b_op2(c, "Less", w,
				b_const_scalar(c, 0.5, dt, 0)),
			  b_op2(c, "Add", v, b_op2(c, "Mul", w, d)),
			  b_op2(c, "Sub", hi, b_op2(c, "Mul", d,
				b_op2(c, "Sub", one, w))));
	}
	if (full && keep) {
		int64_t shp[65];
		shp[0] = -1;
		for (int i = 0; i < orank; i++)
			shp[i + qv] = 1;
		v = b_op2(c, "Reshape", v, b_const_i64s(c, shp, orank + qv, 1));
	} else if (!keep || full) {
		v = b_squeeze(c, v, &ax, 1);
	}
	out[0] = v;
	return 0;
}

/* x[lo:hi] along d (hi INT64_MAX: to the end) */
#define SL(x, lo, hi) b_slice(c, (x), (lo), (hi), d, 1)

/* gradient along d of x (float dt, size len >= edge + 1 there) with the
 * spacing h (a 0-d number) or the coordinates co (1-d, len), as torch's
 * gradient_helper_float and gradient_helper (ReduceOps.cpp): the centre
 * (f[2:] - f[:-2]) / h / 2, or a f[:-2] + b f[1:-1] + c f[2:] with a, b,
 * c from the coordinates' differences; the edges of order 1 or 2; joined
 * on d */
static struct ir_value *gradient_dim(struct lower_ctx *c, struct ir_value *x,
				     int64_t d, int r, struct ir_value *h,
				     struct ir_value *co, int64_t edge)
{
	enum ir_dtype dt = b_dtype(x);
	struct ir_value *parts[3], *f0 = SL(x, 0, 1), *f1 = SL(x, 1, 2),
		*l1 = SL(x, -1, INT64_MAX), *l2 = SL(x, -2, -1);
#define K(v) b_const_scalar(c, (v), dt, 0)
#define M(a, b) b_op2(c, "Mul", (a), (b))
#define A(a, b) b_op2(c, "Add", (a), (b))
#define D(a, b) b_op2(c, "Div", (a), (b))
#define S(a, b) b_op2(c, "Sub", (a), (b))
	if (!co) {
		parts[1] = D(D(S(SL(x, 2, INT64_MAX), SL(x, 0, -2)), h), K(2));
		if (edge == 1) {
			parts[0] = D(S(f1, f0), h);
			parts[2] = D(S(l1, l2), h);
		} else {
			parts[0] = D(S(A(M(K(-1.5), f0), M(K(2), f1)),
				       M(K(0.5), SL(x, 2, 3))), h);
			parts[2] = D(A(S(M(K(0.5), SL(x, -3, -2)), M(K(2), l2)),
				       M(K(1.5), l1)), h);
		}
	} else {
		/* the coordinates' differences as [1, .., len - 1, .., 1] */
		int64_t shp[64];
		for (int i = 0; i < r; i++)
			shp[i] = i == d ? -1 : 1;
		struct ir_value *dx = b_op2(c, "Reshape", S(b_slice(c, co, 1, INT64_MAX, 0, 1),
							    b_slice(c, co, 0, -1, 0, 1)),
					    b_const_i64s(c, shp, r, 1));
		struct ir_value *dx1 = SL(dx, 0, -1), *dx2 = SL(dx, 1, INT64_MAX);
		struct ir_value *s12 = A(dx1, dx2);
		struct ir_value *a = D(b_op1(c, "Neg", dx2), M(dx1, s12));
		struct ir_value *b = D(S(dx2, dx1), M(dx1, dx2));
		struct ir_value *cc = D(dx1, M(dx2, s12));
		parts[1] = A(A(M(a, SL(x, 0, -2)), M(b, SL(x, 1, -1))), M(cc, SL(x, 2, INT64_MAX)));
		struct ir_value *d0 = SL(dx, 0, 1), *dl = SL(dx, -1, INT64_MAX);
		if (edge == 1) {
			parts[0] = D(S(f1, f0), d0);
			parts[2] = D(S(l1, l2), dl);
		} else {
			struct ir_value *e1 = SL(dx, 1, 2), *e2 = SL(dx, -2, -1);
			struct ir_value *s0 = A(d0, e1), *sl = A(dl, e2);
			a = D(b_op1(c, "Neg", A(M(K(2), d0), e1)), M(d0, s0));
			b = D(s0, M(d0, e1));
			cc = D(b_op1(c, "Neg", d0), M(e1, s0));
			parts[0] = A(A(M(a, f0), M(b, f1)), M(cc, SL(x, 2, 3)));
			a = D(dl, M(e2, sl));
			b = D(b_op1(c, "Neg", sl), M(dl, e2));
			cc = D(A(M(K(2), dl), e2), M(dl, sl));
			parts[2] = A(A(M(a, SL(x, -3, -2)), M(b, l2)), M(cc, l1));
		}
	}
#undef K
#undef M
#undef A
#undef D
#undef S
	return concat(c, parts, 3, d);
}
#undef SL

/* gradient(self, spacing, dim, edge_order) in all its overloads
 * (.array has no spacing): spacing None (1), a number, a list of
 * numbers or of coordinate tensors, one per dim; dim None (all), an int
 * or a list; the list of one gradient per dim; integers in Float */
static SYM(sym_gradient)
{
	struct ir_value *x = T(0), *sp[MAXL], *vals[MAXL], *h1 = NULL;
	int r = x ? b_rank(x) : -1, isp = NARGS > 3 ? 1 : -1, idim = isp > 0 ? 2 : 1;
	int listsp = 0, nsp = 0, nd;
	int64_t dims[MAXL], edge = 1;
	if (r < 1 || r > MAXL)
		return lw_decline(c, "the input's rank is not known or 0");
	enum ir_dtype dt = b_dtype(x);
	if (!b_is_float(dt)) {
		dt = IR_DTYPE_FLOAT;
		x = b_cast(c, x, dt);
	}
	if (!lw_int(c, n, idim + 1, &edge) || (edge != 1 && edge != 2))
		return lw_decline(c, "edge_order is not a constant 1 or 2");
	if (lw_is_none(c, n, idim)) {
		nd = r;
		for (int i = 0; i < r; i++)
			dims[i] = i;
	} else if ((nd = lw_ints(c, n, idim, dims, MAXL, 0)) < 1) {
		return lw_decline(c, "dim is not a constant int or list of ints");
	}
	if (isp > 0 && !lw_is_none(c, n, isp)) {
		if (n->inputs[isp]->type->kind == IR_TYPE_LIST) {
			listsp = 1;
			nsp = lw_list(c, n, isp, sp, MAXL);
			if (nsp != nd)
				return lw_decline(c, "spacing is not a list of one "
						     "number or tensor per dim");
		} else if (!(h1 = T(isp))) {
			return lw_decline(c, "spacing is not a number");
		}
	}
	if (!h1 && !listsp)
		h1 = b_const_scalar(c, 1, dt, 0);
	for (int i = 0; i < nd; i++) {
		int64_t d = dims[i] < 0 ? dims[i] + r : dims[i];
		struct ir_value *h = listsp ? sp[i] : h1, *co = NULL;
		const struct ir_dim *sz = d >= 0 && d < r ? &x->type->dims[d] : NULL;
		if (!sz)
			return lw_decline(c, "dim out of range");
		if (sz->kind == IR_DIM_FIXED && sz->value < edge + 1)
			return lw_decline(c, "a dim shorter than edge_order + 1 "
					     "(torch refuses it)");
		if (b_rank(h) == 1)
			co = h;
		else if (b_rank(h) != 0)
			return lw_decline(c, "spacing is not a number or 1-d coordinates");
		h = b_cast(c, h, dt);
		vals[i] = gradient_dim(c, x, d, r, co ? NULL : h, co ? h : NULL, edge);
	}
	lw_set_list(c, n->outputs[0], vals, nd);
	out[0] = NULL;
	return 0;
}

/* segment_reduce(data, reduce, lengths?, indices?, offsets?, axis,
 * unsafe, initial?) along axis 0 with 1-d lengths or offsets (their
 * segments [start, end) from CumSum or the offsets), as torch's CPU
 * kernel: each segment's positions masked into a [S, N, ...] view of the
 * data, reduced (ReduceSum / ReduceProd / ReduceMax / ReduceMin of the
 * masked values, the others the reduction's identity), a NaN in a max
 * or min segment its result; initial (or 0, 1, -inf, inf) folded in;
 * mean divides by the length (an empty segment: initial, else NaN);
 * float data, a fixed N */
static SYM(sym_segment_reduce)
{
	struct ir_value *x = T(0), *l = NULL, *st, *en, *m, *xe, *r, *w;
	const char *red = lw_str(c, n, 1);
	int64_t ax = 0, nn, zero = 0, one = 1;
	double init = 0;
	int rk = x ? b_rank(x) : -1, hasinit = NARGS > 7 && !lw_is_none(c, n, 7);
	if (!red || (strcmp(red, "sum") && strcmp(red, "mean") && strcmp(red, "max") &&
		     strcmp(red, "min") && strcmp(red, "prod")))
		return lw_decline(c, "reduce is not a constant sum, mean, max, min or prod");
	if (!x || rk < 1 || !b_is_float(b_dtype(x)))
		return lw_decline(c, "the data is not a float tensor of known rank");
	if ((NARGS > 5 && !lw_int(c, n, 5, &ax)) || ax != 0)
		return lw_decline(c, "an axis other than 0");
	if (hasinit && !lw_float(c, n, 7, &init))
		return lw_decline(c, "initial is not a constant number");
	if ((nn = x->type->dims[0].kind == IR_DIM_FIXED ? x->type->dims[0].value : -1) < 0)
		return lw_decline(c, "the data's size along axis 0 is not fixed");
	enum ir_dtype dt = b_dtype(x);
	if (!lw_is_none(c, n, 2)) {
		if (!(l = T(2)) || b_rank(l) != 1)
			return lw_decline(c, "lengths are not a 1-d tensor");
		l = b_cast(c, l, IR_DTYPE_INT64);
		struct ir_node *cs = b_node(c, "CumSum", 2,
					    (struct ir_value *[]){ l, b_const_i64(c, 0) }, 1);
		en = b_done(c, cs);
		st = b_op2(c, "Sub", en, l);
	} else if (NARGS > 4 && !lw_is_none(c, n, 4)) {
		struct ir_value *o = T(4);
		if (!o || b_rank(o) != 1)
			return lw_decline(c, "offsets are not a 1-d tensor");
		o = b_cast(c, o, IR_DTYPE_INT64);
		st = b_slice(c, o, 0, -1, 0, 1);
		en = b_slice(c, o, 1, INT64_MAX, 0, 1);
		l = b_op2(c, "Sub", en, st);
	} else {
		return lw_decline(c, "neither lengths nor offsets given");
	}
	/* m [S, N, 1...]: position i in segment s */
	int64_t *pv = ir_alloc(c->g, sizeof(int64_t) * (size_t)(nn ? nn : 1)), shp[64];
	for (int64_t i = 0; i < nn; i++)
		pv[i] = i;
	struct ir_value *pos = b_const_i64s(c, pv, nn, 1);
	st = b_unsqueeze(c, st, &one, 1);
	en = b_unsqueeze(c, en, &one, 1);
	m = b_op2(c, "And", b_op1(c, "Not", b_op2(c, "Less", pos, st)), b_op2(c, "Less", pos, en));
	if (rk > 63)
		return lw_decline(c, "more than 63 dims");
	shp[0] = 0;
	shp[1] = nn;
	for (int i = 1; i < rk; i++)
		shp[i + 1] = 1;
	m = b_op2(c, "Reshape", m, b_const_i64s(c, shp, rk + 1, 1));
	xe = b_unsqueeze(c, x, &zero, 1);
	int mx = !strcmp(red, "max"), mn = !strcmp(red, "min"), pr = !strcmp(red, "prod");
	double id = mx ? -INFINITY : mn ? INFINITY : pr ? 1 : 0;
	w = b_op3(c, "Where", m, xe, b_const_scalar(c, id, dt, 0));
	r = b_reduce(c, mx ? "ReduceMax" : mn ? "ReduceMin" : pr ? "ReduceProd" : "ReduceSum",
		     w, &one, 1, 0);
	if (mx || mn) {
		if (hasinit)
			r = b_op2(c, mx ? "Max" : "Min", r, b_const_scalar(c, init, dt, 0));
		struct ir_value *nanin = b_cast(c, b_op2(c, "And", m, b_op1(c, "IsNaN", xe)),
						IR_DTYPE_FLOAT);
		struct ir_value *hn = b_op2(c, "Greater", b_reduce(c, "ReduceMax", nanin, &one, 1, 0),
					    b_const_scalar(c, 0, IR_DTYPE_FLOAT, 0));
		r = b_op3(c, "Where", hn, b_const_scalar(c, NAN, dt, 0), r);
		if (hasinit && isnan(init))
			r = b_op2(c, "Add", r, b_const_scalar(c, NAN, dt, 0));
	} else if (hasinit) {
		r = b_op2(c, pr ? "Mul" : "Add", r, b_const_scalar(c, init, dt, 0));
	}
	if (!strcmp(red, "mean")) {
		/* [S] lengths as [S, 1...] in dt */
		int64_t ls[64];
		ls[0] = -1;
		for (int i = 1; i < rk; i++)
			ls[i] = 1;
		struct ir_value *lf = b_op2(c, "Reshape", b_cast(c, l, dt), b_const_i64s(c, ls, rk, 1));
		struct ir_value *q = b_op2(c, "Div", r, lf);
		r = hasinit ? b_op3(c, "Where", b_op2(c, "Greater", lf, b_const_scalar(c, 0, dt, 0)), q, r)
			    : q; /* 0 / 0: NaN, torch's empty mean */
	}
	out[0] = r;
	return 0;
}

static const struct symbolic entries[] = {
	{ OP_aten_block_diag, 0, 0, SYM_PRIO_BASE, sym_block_diag },
	{ OP_aten_cartesian_prod, 0, 0, SYM_PRIO_BASE, sym_cartesian_prod },
	{ OP_aten_diagonal_scatter, 9, 0, SYM_PRIO_BASE, sym_diagonal_scatter },
	{ OP_aten_hsplit, 0, 0, SYM_PRIO_BASE, sym_hsplit },
	{ OP_aten_vsplit, 0, 0, SYM_PRIO_BASE, sym_vsplit },
	{ OP_aten_dsplit, 0, 0, SYM_PRIO_BASE, sym_dsplit },
	{ OP_aten_cov, 0, 0, SYM_PRIO_BASE, sym_cov },
	{ OP_aten_corrcoef, 0, 0, SYM_PRIO_BASE, sym_corrcoef },
	{ OP_aten_nanmedian, 11, 0, SYM_PRIO_BASE, sym_nanmedian },
	{ OP_aten_median, 11, 0, SYM_PRIO_BASE, sym_median },
	{ OP_aten_mode, 11, 0, SYM_PRIO_BASE, sym_mode },
	{ OP_aten_quantile, 11, 0, SYM_PRIO_BASE, sym_quantile },
	{ OP_aten_nanquantile, 11, 0, SYM_PRIO_BASE, sym_quantile },
	{ OP_aten_gradient, 0, 0, SYM_PRIO_BASE, sym_gradient },
	{ OP_aten_segment_reduce, 11, 0, SYM_PRIO_BASE, sym_segment_reduce },
};

const struct symbolic_table symbolic_stats_table = {
	entries, sizeof(entries) / sizeof(entries[0])
};

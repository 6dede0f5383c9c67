/*
 * symbolic_extra_nn.c - symbolic functions for aten ops that the opset
 * tables (symbolic_opset9.c ... 17) do not have: neural-network ops
 * (pooling with indices, losses, distances, padding modes, pixel shuffle,
 * interpolation modes, ...).  One function per op for every opset,
 * branching on c->opset; see lower_int.h.  torch 1.13's symbolic_opset*.py
 * are the semantic reference.
 */
#include <math.h>
#include <string.h>
#include <stdlib.h>

#include "symbolic_common.h"

#define T(i) lw_tensor(c, n, (i))

/* dim of x when fixed, else -1 */
static int64_t fixed_dim(const struct ir_value *x, int i)
{
	if (b_rank(x) <= i || x->type->dims[i].kind != IR_DIM_FIXED)
		return -1;
	return x->type->dims[i].value;
}

static int norm_axis(int64_t d, int r)
{
	return (int)(d < 0 ? d + r : d);
}

/* (Log)Softmax along dim; before opset 13 the op flattens from axis on,
 * so a dim that is not the last is transposed there and back. */
static struct ir_value *softmax_along(struct lower_ctx *c, struct ir_value *x,
				      int64_t dim, const char *op)
{
	int r = b_rank(x);
	dim = norm_axis(dim, r);
	if (c->opset < 13 && dim != r - 1) {
		int64_t perm[64];
		for (int i = 0; i < r; i++)
			perm[i] = i;
		perm[dim] = r - 1;
		perm[r - 1] = dim;
		struct ir_node *t = b_node(c, "Transpose", 1, &x, 1);
		b_attr_ints(c, t, "perm", perm, r);
		struct ir_value *y = b_done(c, t);
		struct ir_node *s = b_node(c, op, 1, &y, 1);
		b_attr_i(c, s, "axis", r - 1);
		y = b_done(c, s);
		t = b_node(c, "Transpose", 1, &y, 1);
		b_attr_ints(c, t, "perm", perm, r);
		return b_done(c, t);
	}
	struct ir_node *s = b_node(c, op, 1, &x, 1);
	b_attr_i(c, s, "axis", dim);
	return b_done(c, s);
}

/* _softmax / _log_softmax(self, dim, half_to_float): half_to_float
 * computes a Half input in Float */
static int x_softmax(struct lower_ctx *c, struct ir_node *n,
		     struct ir_value **out, const char *op)
{
	struct ir_value *x = T(0);
	int64_t dim, h2f = 0;
	if (!x || !lw_int(c, n, 1, &dim))
		return lw_decline(c, "dim not constant");
	if (b_rank(x) < 0)
		return lw_decline(c, "input rank unknown");
	if (n->ninputs > 2 && lw_int(c, n, 2, &h2f) && h2f)
		x = b_cast(c, x, IR_DTYPE_FLOAT);
	out[0] = softmax_along(c, x, dim, op);
	return 0;
}

static SYM(sym_x_log_softmax) { return x_softmax(c, n, out, "LogSoftmax"); }
static SYM(sym_x_softmax) { return x_softmax(c, n, out, "Softmax"); }

/* --- pooling with indices ----------------------------------------------- */

/* MaxPool over sp spatial dims with torch's indices (flat over each
 * channel's spatial dims): ONNX's Indices are flat over the whole tensor,
 * so the index of each channel's first element (a kernel-1 MaxPool's
 * indices sliced at 0) is subtracted, as torch's symbolic does. */
static int max_pool_idx(struct lower_ctx *c, struct ir_value *x, int sp,
			const int64_t *k, const int64_t *st, const int64_t *pad,
			const int64_t *dil, int64_t ceil, struct ir_value **out)
{
	int64_t ones[8];
	struct sym_pool_plan pl;
	int dil1 = 1;
	for (int i = 0; i < sp; i++) {
		ones[i] = 1;
		if (dil[i] != 1)
			dil1 = 0;
	}
	if (!dil1 && c->opset < 10)
		return lw_decline(c, "dilation needs opset 10");
	/* ceil_mode as torch counts it (symbolic_opset9.c) */
	if (sym_pool_plan(c, x, sp, k, st, pad, dil, ceil, &pl))
		return 1;
	struct ir_node *nd = b_node(c, "MaxPool", 1, &x, 2);
	if (pl.ceil)
		b_attr_i(c, nd, "ceil_mode", 1);
	if (c->opset >= 10)
		b_attr_ints(c, nd, "dilations", dil, sp);
	b_attr_ints(c, nd, "kernel_shape", k, sp);
	b_attr_ints(c, nd, "pads", pl.pads, 2 * sp);
	b_attr_ints(c, nd, "strides", st, sp);
	out[0] = sym_pool_slice(c, b_done(c, nd), x, sp, k, st, pad, dil, &pl);
	struct ir_value *ind = sym_pool_slice(c, nd->outputs[1], x, sp, k, st,
					      pad, dil, &pl);
	struct ir_node *fl = b_node(c, "MaxPool", 1, &x, 2);
	b_attr_ints(c, fl, "kernel_shape", ones, sp);
	b_done(c, fl);
	struct ir_value *flat = fl->outputs[1];
	for (int i = 0; i < sp; i++)
		flat = b_slice(c, flat, 0, 1, 2 + i, 1);
	out[1] = b_op2(c, "Sub", ind, flat);
	return 0;
}

static int spatial_rank(const char *kind)
{
	const char *p = strstr(kind, "pool");
	return p && p[4] >= '1' && p[4] <= '3' ? p[4] - '0' : -1;
}

static int sym_x_max_pool_with_indices(struct lower_ctx *c, struct ir_node *n,
				       struct ir_value **out)
{
	/* (self, kernel_size, stride, padding, dilation, ceil_mode) */
	struct ir_value *x = T(0);
	int sp = spatial_rank(n->kind);
	int64_t k[8], st[8], pad[8], dil[8], ceil;
	if (sp < 0 || !x)
		return lw_decline(c, "unknown pooling rank");
	if (lw_ints(c, n, 1, k, 8, sp) != sp ||
	    lw_ints(c, n, 3, pad, 8, sp) != sp ||
	    lw_ints(c, n, 4, dil, 8, sp) != sp || !lw_int(c, n, 5, &ceil))
		return lw_decline(c, "arguments are not constant");
	int ns = lw_ints(c, n, 2, st, 8, sp);
	if (ns == 0)
		memcpy(st, k, sizeof(k));
	else if (ns != sp)
		return lw_decline(c, "stride is not constant");
	return max_pool_idx(c, x, sp, k, st, pad, dil, ceil, out);
}

/* adaptive max pooling of x [B, C, L...] (static spatial sizes L) to os
 * cells whose windows overlap or differ in size: cell i of an axis takes
 * [floor(iL/o), ceil((i+1)L/o)), as torch.  Values: the max of a box is
 * the max along each axis in turn, one ReduceMax per window per axis.
 * Indices (flat over the spatial plane): the least flat position of the
 * window where x equals the cell's max (torch's scan keeps the first
 * maximum), from x against every cell ([B, C, o..., L...]) masked by the
 * constant window memberships. */
static int adaptive_max_windows(struct lower_ctx *c, struct ir_value *x,
				int sp, const int64_t *os, int want_idx,
				struct ir_value **out)
{
	int64_t L[3], pl = 1, nax[3];
	struct ir_value *y = x;
	for (int a = 0; a < sp; a++) {
		L[a] = fixed_dim(x, 2 + a);
		pl *= L[a];
	}
	for (int a = 0; a < sp; a++) {
		struct ir_value *parts[64];
		int64_t ax = 2 + a;
		if (os[a] > 64)
			return lw_decline(c, "more than 64 cells on an axis");
		for (int64_t i = 0; i < os[a]; i++) {
			int64_t lo = i * L[a] / os[a];
			int64_t hi = ((i + 1) * L[a] + os[a] - 1) / os[a];
			parts[i] = b_reduce(c, "ReduceMax",
					    b_slice(c, y, lo, hi, ax, 1), &ax,
					    1, 1);
		}
		if (os[a] == 1) {
			y = parts[0];
		} else {
			y = b_concat(c, (int)os[a], parts, ax);
		}
	}
	out[0] = y;
	if (!want_idx)
		return 0;
	/* x as [B, C, 1.., L..], y as [B, C, o.., 1..] */
	int64_t ua[3], ub[3], mdims[8], r2 = 2 + 2 * sp;
	for (int a = 0; a < sp; a++) {
		ua[a] = 2 + a;
		ub[a] = 2 + sp + a;
	}
	struct ir_value *xu = b_unsqueeze(c, x, ua, sp);
	struct ir_value *yu = b_unsqueeze(c, y, ub, sp);
	/* Equal of floats from opset 11; neither less nor greater before */
	struct ir_value *eq = c->opset >= 11 ? b_op2(c, "Equal", xu, yu)
		: b_op1(c, "Not", b_op2(c, "Or", b_op2(c, "Less", xu, yu),
					 b_op2(c, "Greater", xu, yu)));
	struct ir_value *mask = eq;
	for (int a = 0; a < sp; a++) {
		int64_t cnt = os[a] * L[a];
		int64_t *m = ir_alloc(c->g, sizeof(int64_t) * (size_t)cnt);
		for (int64_t i = 0; i < os[a]; i++) {
			int64_t lo = i * L[a] / os[a];
			int64_t hi = ((i + 1) * L[a] + os[a] - 1) / os[a];
			for (int64_t j = 0; j < L[a]; j++)
				m[i * L[a] + j] = j >= lo && j < hi;
		}
		for (int i = 0; i < r2; i++)
			mdims[i] = 1;
		mdims[2 + a] = os[a];
		mdims[2 + sp + a] = L[a];
		struct ir_value *mv = b_cast(c, b_const_i64_shaped(c, m, (int)cnt,
						mdims, (int)r2), IR_DTYPE_BOOL);
		mask = b_op2(c, "And", mask, mv);
	}
	int64_t *pos = ir_alloc(c->g, sizeof(int64_t) * (size_t)pl);
	for (int64_t i = 0; i < pl; i++)
		pos[i] = i;
	for (int i = 0; i < r2; i++)
		mdims[i] = i < 2 + sp ? 1 : L[i - 2 - sp];
	struct ir_value *pv = b_const_i64_shaped(c, pos, (int)pl, mdims,
						 (int)r2);
	struct ir_value *cand = b_op3(c, "Where", mask, pv, b_const_i64(c, pl));
	for (int a = 0; a < sp; a++)
		nax[a] = 2 + sp + a;
	out[1] = b_reduce(c, "ReduceMin", cand, nax, sp, 0);
	return 0;
}

static int adaptive_max_any(struct lower_ctx *c, struct ir_node *n,
			    struct ir_value *x, int sp, const int64_t *os,
			    struct ir_value **out);

static int sym_x_adaptive_max_pool(struct lower_ctx *c, struct ir_node *n,
				   struct ir_value **out)
{
	/* (self, output_size) -> (out, indices) */
	struct ir_value *x = T(0);
	int sp = spatial_rank(n->kind);
	int64_t os[8];
	if (sp < 0 || !x || lw_ints(c, n, 1, os, 8, sp) != sp)
		return lw_decline(c, "output_size not constant");
	if (b_rank(x) == sp + 1) {
		/* unbatched: a batch of one */
		static const int64_t z = 0;
		struct ir_value *o2[2] = { NULL, NULL };
		int rc = adaptive_max_any(c, n, b_unsqueeze(c, x, &z, 1), sp,
					  os, o2);
		if (rc)
			return rc;
		out[0] = b_squeeze(c, o2[0], &z, 1);
		if (n->noutputs > 1)
			out[1] = b_squeeze(c, o2[1], &z, 1);
		return 0;
	}
	if (b_rank(x) != sp + 2)
		return lw_decline(c, "input rank unknown");
	return adaptive_max_any(c, n, x, sp, os, out);
}

/* adaptive_max_pool of x [B, C, spatial...] to os */
static int adaptive_max_any(struct lower_ctx *c, struct ir_node *n,
			    struct ir_value *x, int sp, const int64_t *os,
			    struct ir_value **out)
{
	int64_t k[8], pad[8], dil[8];
	int divisible = 1, global = 1;
	for (int i = 0; i < sp; i++) {
		int64_t d = fixed_dim(x, 2 + i);
		if (os[i] != 1)
			global = 0;
		if (d < 0 || os[i] <= 0 || d % os[i]) {
			divisible = 0;
		} else {
			k[i] = d / os[i];
		}
		pad[i] = 0;
		dil[i] = 1;
	}
	if (divisible)
		return max_pool_idx(c, x, sp, k, k, pad, dil, 0, out);
	if (global && n->noutputs < 2) {
		out[0] = b_op1(c, "GlobalMaxPool", x);
		return 0;
	}
	for (int i = 0; i < sp; i++)
		if (fixed_dim(x, 2 + i) < 1 || os[i] < 1)
			return lw_decline(c, "input size unknown (its windows "
					  "are not a multiple of output_size)");
	return adaptive_max_windows(c, x, sp, os, n->noutputs > 1, out);
}

/* --- dropout (eval mode: identity) ---------------------------------------- */

static int is_training(struct lower_ctx *c, struct ir_node *n, int i)
{
	int64_t train = 0;
	if (i >= 0 && i < (int)n->ninputs && !lw_is_none(c, n, i))
		lw_int(c, n, i, &train);
	if (c->o->training == LOWER_TRAINING_EVAL)
		train = 0;
	else if (c->o->training == LOWER_TRAINING_TRAIN)
		train = 1;
	return (int)train;
}

static int sym_x_alpha_dropout(struct lower_ctx *c, struct ir_node *n,
			       struct ir_value **out)
{
	/* (input, p, train) */
	double p = 0;
	if (is_training(c, n, 2) && !(lw_float(c, n, 1, &p) && p == 0))
		return lw_decline(c, "training-mode alpha dropout");
	out[0] = T(0);
	return out[0] ? 0 : lw_decline(c, "input is not a tensor");
}

static int sym_x_native_dropout(struct lower_ctx *c, struct ir_node *n,
				struct ir_value **out)
{
	/* native_dropout(input, p, train?) -> (output, mask) */
	struct ir_value *x = T(0);
	if (!x)
		return lw_decline(c, "input is not a tensor");
	if (is_training(c, n, 2)) {
		double p;
		if (c->opset < 12)
			return lw_decline(c, "training-mode dropout needs "
					  "opset 12");
		if (!lw_float(c, n, 1, &p))
			return lw_decline(c, "p is not constant");
		struct ir_value *in[3] = {
			x, b_const_scalar(c, p, b_dtype(x), 0),
			b_const_bool(c, 1) };
		struct ir_node *d = b_node(c, "Dropout", 3, in, 2);
		out[0] = b_done(c, d);
		out[1] = d->outputs[1];
		return 0;
	}
	out[0] = x;
	if (n->noutputs > 1) {
		struct ir_value *one = b_const_scalar(c, 1, IR_DTYPE_BOOL, 1);
		out[1] = b_op2(c, "Expand", one, b_op1(c, "Shape", x));
	}
	return 0;
}

/* --- normalisation ---------------------------------------------------------- */

static int sym_x_native_layer_norm(struct lower_ctx *c, struct ir_node *n,
				   struct ir_value **out)
{
	/* (input, normalized_shape, weight?, bias?, eps) -> (out, mean,
	 * rstd) with mean and rstd keeping the normalised dims as 1 */
	struct ir_value *x = T(0);
	int64_t ns[64], axes[64];
	double eps;
	int k = lw_ints(c, n, 1, ns, 64, 0), r = b_rank(x);
	if (!x || k < 1 || !lw_float(c, n, 4, &eps))
		return lw_decline(c, "normalized_shape or eps not constant");
	if (r < k)
		return lw_decline(c, "input rank unknown");
	for (int i = 0; i < k; i++)
		axes[i] = r - k + i;
	enum ir_dtype dt = b_dtype(x);
	struct ir_value *mean = b_reduce(c, "ReduceMean", x, axes, k, 1);
	struct ir_value *d = b_op2(c, "Sub", x, mean);
	struct ir_value *var = b_reduce(c, "ReduceMean", b_op2(c, "Mul", d, d),
					axes, k, 1);
	struct ir_value *rstd = b_op1(c, "Reciprocal", b_op1(c, "Sqrt",
		b_op2(c, "Add", var, b_const_scalar(c, eps, dt, 0))));
	struct ir_value *y = b_op2(c, "Mul", d, rstd);
	if (!lw_is_none(c, n, 2))
		y = b_op2(c, "Mul", y, T(2));
	if (!lw_is_none(c, n, 3))
		y = b_op2(c, "Add", y, T(3));
	out[0] = y;
	if (n->noutputs > 1)
		out[1] = mean;
	if (n->noutputs > 2)
		out[2] = rstd;
	return 0;
}

/* native_group_norm(input, weight?, bias?, N, C, HxW, group, eps) ->
 * (out, mean, rstd), torch 2.x's core form of group_norm: the input as
 * [N, group, -1], each group's mean and biased variance, the weight and
 * bias per channel; mean and rstd are [N, group] as torch's. */
static SYM(sym_x_native_group_norm)
{
	struct ir_value *x = T(0);
	int64_t g, a2 = 2;
	double eps;
	if (!x || !lw_int(c, n, 6, &g) || !lw_float(c, n, 7, &eps) || g < 1)
		return lw_decline(c, "group or eps not constant");
	int r = b_rank(x);
	if (r < 2 || r > 64)
		return lw_decline(c, "input rank unknown");
	enum ir_dtype dt = b_dtype(x);
	int64_t shp[3] = { 0, g, -1 };
	struct ir_value *xr = b_op2(c, "Reshape", x, b_const_i64s(c, shp, 3, 1));
	struct ir_value *mean = b_reduce(c, "ReduceMean", xr, &a2, 1, 1);
	struct ir_value *d = b_op2(c, "Sub", xr, mean);
	struct ir_value *var = b_reduce(c, "ReduceMean", b_op2(c, "Mul", d, d),
					&a2, 1, 1);
	struct ir_value *rstd = b_op1(c, "Reciprocal", b_op1(c, "Sqrt",
		b_op2(c, "Add", var, b_const_scalar(c, eps, dt, 0))));
	struct ir_value *y = b_op2(c, "Reshape", b_op2(c, "Mul", d, rstd),
				   b_op1(c, "Shape", x));
	y = sym_channel_affine(c, n, y, r, IR_DTYPE_UNDEFINED);
	if (!y)
		return lw_decline(c, "weight or bias is not a tensor");
	out[0] = y;
	if (n->noutputs > 1)
		out[1] = b_squeeze(c, mean, &a2, 1);
	if (n->noutputs > 2)
		out[2] = b_squeeze(c, rstd, &a2, 1);
	return 0;
}

/* ONNX's RMSNormalization (opset 23) for rms_norm over the last k of r
 * dims: computed in float (stash_type 1), which is torch's opmath type for
 * float, half and bfloat16 (a double input is decomposed instead); no
 * weight is a scale of ones of the normalized shape. */
static int rms_normalization(struct lower_ctx *c, struct ir_node *n,
			     struct ir_value *x, const int64_t *ns, int k,
			     int r, double eps, struct ir_value **out)
{
	struct ir_value *in[2] = { x, NULL };
	if (n->ninputs > 2 && !lw_is_none(c, n, 2)) {
		in[1] = T(2);
	} else {
		int64_t cnt = 1;
		for (int i = 0; i < k; i++)
			if (ns[i] < 0 || __builtin_mul_overflow(cnt, ns[i], &cnt) ||
			    cnt > (1 << 24))
				return lw_decline(c, "normalized_shape too large "
						  "for a scale of ones");
		double *ones = malloc(sizeof(*ones) * (size_t)(cnt ? cnt : 1));
		if (!ones)
			return lw_decline(c, "out of memory");
		for (int64_t i = 0; i < cnt; i++)
			ones[i] = 1;
		in[1] = b_cast(c, b_const_reals(c, ones, ns, k, IR_DTYPE_FLOAT),
			       b_dtype(x));
		free(ones);
	}
	struct ir_node *rn = b_node(c, "RMSNormalization", 2, in, 1);
	b_attr_i(c, rn, "axis", r - k);
	b_attr_f(c, rn, "epsilon", eps);
	out[0] = b_done(c, rn);
	return 0;
}

/* rms_norm(input, normalized_shape, weight=None, eps=None), torch 2.x:
 * x * 1/sqrt(mean(x*x over the normalized dims) + eps) [* weight], eps
 * None being the epsilon of float (double for Double), as torch's
 * rms_norm (its opmath type).  From opset 23 one RMSNormalization node
 * (rms_normalization()). */
static int sym_x_rms_norm(struct lower_ctx *c, struct ir_node *n,
			  struct ir_value **out)
{
	struct ir_value *x = T(0);
	int64_t ns[64], axes[64];
	int k = lw_ints(c, n, 1, ns, 64, 0), r = b_rank(x);
	enum ir_dtype dt = b_dtype(x);
	double eps = dt == IR_DTYPE_DOUBLE ? 2.220446049250313e-16
					   : 1.1920928955078125e-07;
	if (!x || k < 1)
		return lw_decline(c, "normalized_shape not constant");
	if (n->ninputs > 3 && !lw_is_none(c, n, 3) && !lw_float(c, n, 3, &eps))
		return lw_decline(c, "eps not constant");
	if (r < k)
		return lw_decline(c, "input rank unknown");
	for (int i = 0; i < k; i++)
		axes[i] = r - k + i;
	if (c->opset >= 23 && (dt == IR_DTYPE_FLOAT || dt == IR_DTYPE_FLOAT16 ||
			       dt == IR_DTYPE_BFLOAT16))
		return rms_normalization(c, n, x, ns, k, r, eps, out);
	struct ir_value *ms = b_reduce(c, "ReduceMean", b_op2(c, "Mul", x, x),
				       axes, k, 1);
	struct ir_value *y = b_op2(c, "Mul", x, b_op1(c, "Reciprocal",
		b_op1(c, "Sqrt", b_op2(c, "Add", ms,
				       b_const_scalar(c, eps, dt, 0)))));
	if (n->ninputs > 2 && !lw_is_none(c, n, 2))
		y = b_op2(c, "Mul", y, T(2));
	out[0] = y;
	return 0;
}

static int sym_x_weight_norm(struct lower_ctx *c, struct ir_node *n,
			     struct ir_value **out)
{
	/* _weight_norm(v, g, dim): v * g / ||v|| over every dim but dim */
	struct ir_value *v = T(0), *g = T(1);
	int64_t dim, axes[64];
	int r = b_rank(v), k = 0;
	if (!v || !g || !lw_int(c, n, 2, &dim))
		return lw_decline(c, "dim not constant");
	if (r < 1)
		return lw_decline(c, "input rank unknown");
	if (dim < -1)
		dim += r;
	for (int i = 0; i < r; i++)
		if (dim == -1 || i != dim)
			axes[k++] = i;
	struct ir_value *nv = b_reduce(c, "ReduceL2", v, axes, k, 1);
	out[0] = b_op2(c, "Mul", b_op2(c, "Div", v, nv), g);
	return 0;
}

/* --- losses -------------------------------------------------------------- */

static const char *reduction_name(int64_t r)
{
	return r == 0 ? "none" : r == 1 ? "mean" : r == 2 ? "sum" : NULL;
}

static struct ir_value *reduce_loss(struct lower_ctx *c, struct ir_value *v,
				    int64_t red)
{
	if (red == 1)
		return b_reduce(c, "ReduceMean", v, NULL, 0, 0);
	if (red == 2)
		return b_reduce(c, "ReduceSum", v, NULL, 0, 0);
	return v;
}

/* cross_entropy with class probabilities (a float target of the
 * input's shape): -sum over dim 1 of w * t * log_softmax(x), t smoothed
 * by ls; mean divides by the count of the other positions (torch's) */
static int ce_probs(struct lower_ctx *c, struct ir_node *n,
		    struct ir_value **out, int64_t red, double ls)
{
	struct ir_value *x = T(0), *t = T(1);
	int r = b_rank(x);
	int64_t one = 1, axes[62];
	if (r < 2 || r > 64 || b_rank(t) != r)
		return lw_decline(c, "probabilities of unknown or other rank");
	enum ir_dtype dt = b_dtype(x);
	int64_t ncls = b_dim_size(x, 1);
	if (ls != 0) {
		if (ncls < 0)
			return lw_decline(c, "label_smoothing with an unknown class count");
		t = b_op2(c, "Add", b_op2(c, "Mul", t, b_const_scalar(c, 1 - ls, dt, 0)),
			  b_const_scalar(c, ls / (double)ncls, dt, 0));
	}
	struct ir_value *lsm = b_op2(c, "Sub", x, b_reduce(c, "ReduceLogSumExp",
					      x, &one, 1, 1));
	struct ir_value *p = b_op2(c, "Mul", b_cast(c, t, dt), lsm);
	if (!lw_is_none(c, n, 2)) {
		struct ir_value *w = T(2);
		if (!w)
			return lw_decline(c, "weight is not a tensor");
		for (int i = 0; i < r - 2; i++)
			axes[i] = i + 1;
		if (r > 2)
			w = b_unsqueeze(c, w, axes, r - 2);
		p = b_op2(c, "Mul", p, w);
	}
	struct ir_value *l = b_op1(c, "Neg", b_reduce(c, "ReduceSum", p, &one, 1, 0));
	out[0] = red == 0 ? l : b_reduce(c, red == 1 ? "ReduceMean" : "ReduceSum",
					 l, NULL, 0, 0);
	return 0;
}

static int nll_common(struct lower_ctx *c, struct ir_node *n,
		      struct ir_value **out, int ce)
{
	/* nll_loss*(self, target, weight?, reduction, ignore_index);
	 * cross_entropy_loss(..., label_smoothing) */
	int64_t red, ign;
	double ls = 0;
	if (c->opset < 12)
		return lw_decline(c, "needs opset 12");
	if (!lw_int(c, n, 3, &red) || !lw_int(c, n, 4, &ign) ||
	    !reduction_name(red))
		return lw_decline(c, "reduction or ignore_index not constant");
	if (ce && n->ninputs > 5 && !lw_is_none(c, n, 5) &&
	    !lw_float(c, n, 5, &ls))
		return lw_decline(c, "label_smoothing not constant");
	if (ce && T(1) && b_is_float(b_dtype(T(1))))
		return ce_probs(c, n, out, red, ls);
	if (ls != 0)
		return lw_decline(c, "label_smoothing is not 0");
	struct ir_value *in[3] = { T(0), T(1),
				   lw_is_none(c, n, 2) ? NULL : T(2) };
	if (!in[0] || !in[1])
		return lw_decline(c, "inputs are not tensors");
	/* an unbatched input [C] (target 0-d): as a batch of one */
	int64_t zero = 0;
	int unbatched = b_rank(in[0]) == 1 && b_rank(in[1]) == 0;
	if (unbatched) {
		in[0] = b_unsqueeze(c, in[0], &zero, 1);
		in[1] = b_unsqueeze(c, in[1], &zero, 1);
	}
	struct ir_node *nd = b_node(c, ce ? "SoftmaxCrossEntropyLoss"
					  : "NegativeLogLikelihoodLoss",
				    in[2] ? 3 : 2, in, 1);
	b_attr_s(c, nd, "reduction", reduction_name(red));
	b_attr_i(c, nd, "ignore_index", ign);
	out[0] = b_done(c, nd);
	if (unbatched && red == 0)
		out[0] = b_squeeze(c, out[0], &zero, 1);
	return 0;
}

static int sym_x_nll_loss(struct lower_ctx *c, struct ir_node *n,
			  struct ir_value **out)
{ return nll_common(c, n, out, 0); }
static int sym_x_cross_entropy_loss(struct lower_ctx *c, struct ir_node *n,
				    struct ir_value **out)
{ return nll_common(c, n, out, 1); }

static int sym_x_bce_with_logits(struct lower_ctx *c, struct ir_node *n,
				 struct ir_value **out)
{
	/* (self, target, weight?, pos_weight?, reduction):
	 * -(pw * t * log(sig(x)) + (1 - t) * log(1 - sig(x))) * w, with
	 * log(sig(x)) = -softplus(-x) and log(1 - sig(x)) = -softplus(x) */
	struct ir_value *x = T(0), *t = T(1);
	int64_t red;
	if (!x || !t || !lw_int(c, n, 4, &red) || !reduction_name(red))
		return lw_decline(c, "reduction not constant");
	if ((!lw_is_none(c, n, 2) && !T(2)) || (!lw_is_none(c, n, 3) && !T(3)))
		return lw_decline(c, "weight or pos_weight is not a tensor");
	enum ir_dtype dt = b_dtype(x);
	struct ir_value *one = b_const_scalar(c, 1, dt, 0);
	struct ir_value *sp_neg = b_op1(c, "Softplus", b_op1(c, "Neg", x));
	struct ir_value *sp_pos = b_op1(c, "Softplus", x);
	struct ir_value *a = b_op2(c, "Mul", t, sp_neg);
	/* an integer weight or pos_weight (torch.tensor([3])) promotes to
	 * the input's float type, as torch's Mul does */
	if (!lw_is_none(c, n, 3))
		a = b_op2(c, "Mul", a, b_cast(c, T(3), dt));
	struct ir_value *bb = b_op2(c, "Mul", b_op2(c, "Sub", one, t), sp_pos);
	struct ir_value *l = b_op2(c, "Add", a, bb);
	if (!lw_is_none(c, n, 2))
		l = b_op2(c, "Mul", l, b_cast(c, T(2), dt));
	out[0] = reduce_loss(c, l, red);
	return 0;
}

static int sym_x_kl_div(struct lower_ctx *c, struct ir_node *n,
			struct ir_value **out)
{
	/* (self, target, reduction, log_target):
	 * log_target: exp(t) * (t - x); else xlogy(t, t) - t * x */
	struct ir_value *x = T(0), *t = T(1), *l;
	int64_t red, lt;
	if (!x || !t || !lw_int(c, n, 2, &red) || !lw_int(c, n, 3, &lt) ||
	    !reduction_name(red))
		return lw_decline(c, "reduction or log_target not constant");
	if (lt) {
		l = b_op2(c, "Mul", b_op1(c, "Exp", t), b_op2(c, "Sub", t, x));
	} else {
		enum ir_dtype dt = b_dtype(t);
		struct ir_value *zero = b_const_scalar(c, 0, dt, 0);
		struct ir_value *tlt = b_op2(c, "Mul", t, b_op1(c, "Log", t));
		struct ir_value *xl = b_op3(c, "Where",
					    b_op2(c, "Equal", t, zero), zero,
					    tlt);
		l = b_op2(c, "Sub", xl, b_op2(c, "Mul", t, x));
	}
	out[0] = reduce_loss(c, l, red);
	return 0;
}

/* --- distances ------------------------------------------------------------- */

/* p-norm of v over axis (keepdims kd) */
static struct ir_value *p_norm(struct lower_ctx *c, struct ir_value *v,
			       double p, int64_t axis, int kd)
{
	enum ir_dtype dt = b_dtype(v);
	if (p == 1)
		return b_reduce(c, "ReduceL1", v, &axis, 1, kd);
	if (p == 2)
		return b_reduce(c, "ReduceL2", v, &axis, 1, kd);
	if (isinf(p))
		return b_reduce(c, p > 0 ? "ReduceMax" : "ReduceMin",
				b_op1(c, "Abs", v), &axis, 1, kd);
	if (p == 0) {
		struct ir_value *nz = b_cast(c, b_op2(c, "Greater",
			b_op1(c, "Abs", v), b_const_scalar(c, 0, dt, 0)), dt);
		return b_reduce(c, "ReduceSum", nz, &axis, 1, kd);
	}
	struct ir_value *s = b_reduce(c, "ReduceSum",
		b_op2(c, "Pow", b_op1(c, "Abs", v),
		      b_const_scalar(c, p, dt, 0)), &axis, 1, kd);
	return b_op2(c, "Pow", s, b_const_scalar(c, 1 / p, dt, 0));
}

static int sym_x_pairwise_distance(struct lower_ctx *c, struct ir_node *n,
				   struct ir_value **out)
{
	/* (x1, x2, p, eps, keepdim): norm(x1 - x2 + eps, p, -1) */
	struct ir_value *a = T(0), *b = T(1);
	double p, eps;
	int64_t kd;
	if (!a || !b || !lw_float(c, n, 2, &p) || !lw_float(c, n, 3, &eps) ||
	    !lw_int(c, n, 4, &kd))
		return lw_decline(c, "p, eps or keepdim not constant");
	int r = b_rank(a) > b_rank(b) ? b_rank(a) : b_rank(b);
	if (b_rank(a) < 0 || b_rank(b) < 0 || r < 1)
		return lw_decline(c, "input rank unknown");
	struct ir_value *d = b_op2(c, "Add", b_op2(c, "Sub", a, b),
				   b_const_scalar(c, eps, b_dtype(a), 0));
	out[0] = p_norm(c, d, p, r - 1, (int)kd);
	return 0;
}

static int sym_x_cdist(struct lower_ctx *c, struct ir_node *n,
		       struct ir_value **out)
{
	/* (x1 [..,P,M], x2 [..,R,M], p, compute_mode) -> [..,P,R] */
	struct ir_value *a = T(0), *b = T(1);
	double p;
	int ra = b_rank(a), rb = b_rank(b);
	if (!a || !b || !lw_float(c, n, 2, &p))
		return lw_decline(c, "p not constant");
	if (ra < 2 || rb < 2)
		return lw_decline(c, "input rank unknown");
	int64_t axa = ra - 1, axb = rb - 2;
	struct ir_value *d = b_op2(c, "Sub", b_unsqueeze(c, a, &axa, 1),
				   b_unsqueeze(c, b, &axb, 1));
	int r = (ra > rb ? ra : rb) + 1;
	out[0] = p_norm(c, d, p, r - 1, 0);
	return 0;
}

/* pdist(input [N, M], p=2) and torch 2.x's core _pdist_forward: the p-norm
 * distances of rows i < j in row-major order, [N (N - 1) / 2]: cdist's
 * [N, N] of the rows against themselves, flattened, its upper triangle
 * taken by Compress with a mask built at run time from the row indices
 * (any N; no constant grows with N) */
static int sym_x_pdist(struct lower_ctx *c, struct ir_node *n,
		       struct ir_value **out)
{
	struct ir_value *x = T(0);
	double p = 2;
	if (!x || (n->ninputs > 1 && !lw_float(c, n, 1, &p)))
		return lw_decline(c, "p not constant");
	int64_t rows = b_dim_size(x, 0), a0 = 0, a1 = 1, flat = -1;
	if (b_rank(x) != 2)
		return lw_decline(c, "the input is not 2-d");
	struct ir_value *d = b_op2(c, "Sub", b_unsqueeze(c, x, &a1, 1),
				   b_unsqueeze(c, x, &a0, 1));
	struct ir_value *dist = p_norm(c, d, p, 2, 0);
	struct ir_value *all = b_op2(c, "Reshape", dist,
				     b_const_i64s(c, &flat, 1, 1));
	/* the row indices from the distances' EyeLike (ArgMax of each row):
	 * values at run time, so that folding makes no constant of N x N */
	struct ir_node *am = b_node(c, "ArgMax", 1, (struct ir_value *[]){
		b_op1(c, "EyeLike", dist) }, 1);
	b_attr_i(c, am, "axis", 1);
	b_attr_i(c, am, "keepdims", 0);
	struct ir_value *ri = b_done(c, am);
	struct ir_value *g[2] = { all, b_op2(c, "Reshape",
		b_op2(c, "Less", b_unsqueeze(c, ri, &a1, 1), ri),
		b_const_i64s(c, &flat, 1, 1)) };
	struct ir_value *y = b_done(c, b_node(c, "Compress", 2, g, 1));
	if (rows >= 0) {
		int64_t cnt = rows * (rows - 1) / 2;
		y = b_op2(c, "Reshape", y, b_const_i64s(c, &cnt, 1, 1));
	}
	out[0] = y;
	return 0;
}

static int sym_x_cosine_similarity(struct lower_ctx *c, struct ir_node *n,
				   struct ir_value **out)
{
	/* (x1, x2, dim, eps): sum(x1 x2) / max(sqrt(sum(x1^2) sum(x2^2)),
	 * eps) */
	struct ir_value *a = T(0), *b = T(1);
	int64_t dim;
	double eps;
	if (!a || !b || !lw_int(c, n, 2, &dim) || !lw_float(c, n, 3, &eps))
		return lw_decline(c, "dim or eps not constant");
	int r = b_rank(a) > b_rank(b) ? b_rank(a) : b_rank(b);
	if (b_rank(a) < 0 || b_rank(b) < 0)
		return lw_decline(c, "input rank unknown");
	dim = norm_axis(dim, r);
	enum ir_dtype dt = b_dtype(a);
	struct ir_value *cross = b_reduce(c, "ReduceSum", b_op2(c, "Mul", a, b),
					  &dim, 1, 0);
	struct ir_value *aa = b_reduce(c, "ReduceSum", b_op2(c, "Mul", a, a),
				       &dim, 1, 0);
	struct ir_value *bb2 = b_reduce(c, "ReduceSum", b_op2(c, "Mul", b, b),
					&dim, 1, 0);
	struct ir_value *den = b_op2(c, "Max", b_op1(c, "Sqrt",
		b_op2(c, "Mul", aa, bb2)), b_const_scalar(c, eps, dt, 0));
	out[0] = b_op2(c, "Div", cross, den);
	return 0;
}

/* --- padding ------------------------------------------------------------- */

static int pad_mode(struct lower_ctx *c, struct ir_node *n,
		    struct ir_value **out, const char *mode)
{
	/* (self, padding): torch's order, last dim first */
	struct ir_value *x = T(0);
	int64_t p[64], pads[128];
	int r = b_rank(x), k = lw_ints(c, n, 1, p, 64, 0);
	if (!x || k < 0 || k % 2 || r < 0 || k / 2 > r)
		return lw_decline(c, "padding not constant or rank unknown");
	for (int i = 0; i < 2 * r; i++)
		pads[i] = 0;
	for (int i = 0; i < k / 2; i++) {
		pads[r - 1 - i] = p[2 * i];
		pads[2 * r - 1 - i] = p[2 * i + 1];
	}
	struct ir_node *pn;
	if (c->opset < 11) {
		pn = b_node(c, "Pad", 1, &x, 1);
		b_attr_ints(c, pn, "pads", pads, 2 * r);
	} else {
		struct ir_value *in[2] = { x, b_const_i64s(c, pads, 2 * r, 1) };
		pn = b_node(c, "Pad", 2, in, 1);
	}
	b_attr_s(c, pn, "mode", mode);
	out[0] = b_done(c, pn);
	return 0;
}

static int sym_x_reflection_pad(struct lower_ctx *c, struct ir_node *n,
				struct ir_value **out)
{ return pad_mode(c, n, out, "reflect"); }
static int sym_x_replication_pad(struct lower_ctx *c, struct ir_node *n,
				 struct ir_value **out)
{ return pad_mode(c, n, out, "edge"); }

int sym_x_pad_circular(struct lower_ctx *c, struct ir_node *n,
		       struct ir_value **out)
{
	/* _pad_circular(self, pad): per padded dim, Concat(x[-l:], x,
	 * x[:r]) */
	struct ir_value *x = T(0);
	int64_t p[64];
	int r = b_rank(x), k = lw_ints(c, n, 1, p, 64, 0);
	if (!x || k < 0 || k % 2 || r < 0 || k / 2 > r)
		return lw_decline(c, "padding not constant or rank unknown");
	for (int i = 0; i < k / 2; i++) {
		int64_t axis = r - 1 - i, lo = p[2 * i], hi = p[2 * i + 1];
		struct ir_value *parts[3];
		int np = 0;
		if (lo < 0 || hi < 0)
			return lw_decline(c, "negative circular padding");
		if (lo > 0)
			parts[np++] = b_slice(c, x, -lo, INT64_MAX, axis, 1);
		parts[np++] = x;
		if (hi > 0)
			parts[np++] = b_slice(c, x, 0, hi, axis, 1);
		if (np == 1)
			continue;
		x = b_concat(c, np, parts, axis);
	}
	out[0] = x;
	return 0;
}

/* --- pixel shuffle ---------------------------------------------------------- */

static int pixel_common(struct lower_ctx *c, struct ir_node *n,
			struct ir_value **out, int up)
{
	/* pixel_shuffle(self, r): [N, C r r, H, W] -> [N, C, H r, W r];
	 * pixel_unshuffle the inverse */
	struct ir_value *x = T(0);
	int64_t f;
	if (!x || !lw_int(c, n, 1, &f) || f < 1)
		return lw_decline(c, "factor not constant");
	if (b_rank(x) != 4)
		return lw_decline(c, "only 4-d inputs");
	int64_t ch = fixed_dim(x, 1), h = fixed_dim(x, 2), w = fixed_dim(x, 3);
	if (ch < 0 || h < 0 || w < 0) {
		if (!up || c->opset < 11)
			return lw_decline(c, "input size unknown");
		struct ir_node *d = b_node(c, "DepthToSpace", 1, &x, 1);
		b_attr_i(c, d, "blocksize", f);
		b_attr_s(c, d, "mode", "CRD");
		out[0] = b_done(c, d);
		return 0;
	}
	if (!ch || !h || !w) {
		/* no elements: a Reshape's 0 would copy a dim (opset 13),
		 * so the empty result is made at its size, N read from x */
		int64_t rest[3] = { up ? ch / (f * f) : ch * f * f,
				    up ? h * f : h / f, up ? w * f : w / f };
		struct ir_value *cc = b_concat(c, 2, (struct ir_value *[]){
			b_slice(c, b_op1(c, "Shape", x), 0, 1, 0, 1),
			b_const_i64s(c, rest, 3, 1) }, 0);
		out[0] = sym_fill_shape(c, cc, 0, b_dtype(x));
		return 0;
	}
	if (up) {
		int64_t s1[6] = { 0, ch / (f * f), f, f, h, w };
		static const int64_t perm[6] = { 0, 1, 4, 2, 5, 3 };
		int64_t s2[4] = { 0, ch / (f * f), h * f, w * f };
		struct ir_value *y = b_op2(c, "Reshape", x,
					   b_const_i64s(c, s1, 6, 1));
		y = b_transpose(c, y, perm, 6);
		out[0] = b_op2(c, "Reshape", y, b_const_i64s(c, s2, 4, 1));
	} else {
		int64_t s1[6] = { 0, ch, h / f, f, w / f, f };
		static const int64_t perm[6] = { 0, 1, 3, 5, 2, 4 };
		int64_t s2[4] = { 0, ch * f * f, h / f, w / f };
		struct ir_value *y = b_op2(c, "Reshape", x,
					   b_const_i64s(c, s1, 6, 1));
		y = b_transpose(c, y, perm, 6);
		out[0] = b_op2(c, "Reshape", y, b_const_i64s(c, s2, 4, 1));
	}
	return 0;
}

static int sym_x_pixel_shuffle(struct lower_ctx *c, struct ir_node *n,
			       struct ir_value **out)
{ return pixel_common(c, n, out, 1); }
static int sym_x_pixel_unshuffle(struct lower_ctx *c, struct ir_node *n,
				 struct ir_value **out)
{ return pixel_common(c, n, out, 0); }

/* --- interpolation ---------------------------------------------------------- */

/* upsample_{linear1d,bilinear2d,trilinear3d,bicubic2d}(input,
 * output_size?, align_corners, scale_factors?): Resize (opset 11) with
 * sizes (output_size) or scales, half_pixel or align_corners.  half_pixel,
 * not pytorch_half_pixel: torch reads source (o + 0.5) * in / out - 0.5
 * for an output of length 1 too (its upsample kernels'
 * area_pixel_compute_source_index), where pytorch_half_pixel reads 0;
 * torch.onnx 1.13 writes half_pixel. */
static int resize_common(struct lower_ctx *c, struct ir_node *n,
			 struct ir_value **out, int cubic)
{
	struct ir_value *x = T(0);
	int r = b_rank(x), sp = r - 2;
	int64_t os[8], align, sz[10];
	double sc[8];
	if (c->opset < 11)
		return lw_decline(c, "needs opset 11 (Resize with "
				  "pytorch_half_pixel)");
	if (!x || r < 3 || sp > 8)
		return lw_decline(c, "input rank unknown");
	if (!lw_int(c, n, 2, &align))
		return lw_decline(c, "align_corners not constant");
	struct ir_value *in[4] = { x, b_const_scalar(c, 0, IR_DTYPE_FLOAT, 1),
				   NULL, NULL };
	if (!lw_is_none(c, n, 1)) {
		struct ir_value *el[10];
		int dyn = lw_ints(c, n, 1, os, 8, 0) != sp;
		if (dyn && lw_list(c, n, 1, el + 1, 8) != sp)
			return lw_decline(c, "output_size not constant");
		in[2] = b_const_scalar(c, 0, IR_DTYPE_FLOAT, 1);
		in[2]->producer->attrs[0].u.t->dims[0] = 0;
		in[2]->producer->attrs[0].u.t->bytes.len = 0;
		b_infer(c, in[2]->producer);
		sz[0] = fixed_dim(x, 0);
		sz[1] = fixed_dim(x, 1);
		if (dyn) {
			/* sizes known at run time: N, C, then output_size */
			int64_t z = 0;
			el[0] = b_slice(c, b_op1(c, "Shape", x), 0, 2, 0, 1);
			for (int i = 1; i <= sp; i++) {
				el[i] = b_cast(c, el[i], IR_DTYPE_INT64);
				if (b_rank(el[i]) == 0)
					el[i] = b_unsqueeze(c, el[i], &z, 1);
			}
			in[3] = b_concat(c, sp + 1, el, 0);
		} else if (sz[0] < 0 || sz[1] < 0) {
			struct ir_value *nc = b_slice(c, b_op1(c, "Shape", x),
						      0, 2, 0, 1);
			in[3] = b_concat(c, 2, (struct ir_value *[]){ nc,
				b_const_i64s(c, os, sp, 1) }, 0);
		} else {
			for (int i = 0; i < sp; i++)
				sz[2 + i] = os[i];
			in[3] = b_const_i64s(c, sz, r, 1);
		}
	} else {
		if (!sym_scale_factors(c, n, 3, sc, sp))
			return lw_decline(c, "scale_factors not constant");
		int64_t rr = r;
		struct ir_tensor *t = ir_tensor_new(c->g, IR_DTYPE_FLOAT, 1,
						    &rr);
		float *f = ir_alloc(c->g, sizeof(float) * r);
		f[0] = f[1] = 1;
		for (int i = 0; i < sp; i++)
			f[2 + i] = (float)sc[i];
		t->bytes.data = (const char *)f;
		t->bytes.len = sizeof(float) * r;
		struct ir_node *cn = b_node(c, "Constant", 0, NULL, 1);
		ir_node_add_attr(c->g, cn, "value", IR_ATTR_TENSOR)->u.t = t;
		in[2] = b_done(c, cn);
	}
	struct ir_node *rn = b_node(c, "Resize", in[3] ? 4 : 3, in, 1);
	b_attr_s(c, rn, "coordinate_transformation_mode",
		 align ? "align_corners" : "half_pixel");
	if (cubic)
		b_attr_f(c, rn, "cubic_coeff_a", -0.75);
	b_attr_s(c, rn, "mode", cubic ? "cubic" : "linear");
	out[0] = b_done(c, rn);
	return 0;
}

/* below opset 11: torch's interpolation matrices (symbolic_opset9.c) */
int sym_upsample_linear9(struct lower_ctx *c, struct ir_node *n,
			 struct ir_value **out);

static int sym_x_upsample_linear(struct lower_ctx *c, struct ir_node *n,
				 struct ir_value **out)
{
	if (c->opset < 11)
		return sym_upsample_linear9(c, n, out);
	return resize_common(c, n, out, 0);
}
static int sym_x_upsample_bicubic(struct lower_ctx *c, struct ir_node *n,
				  struct ir_value **out)
{ return resize_common(c, n, out, 1); }

/* interpolate(antialias=True): Resize-18's antialias would be the one
 * node, but ONNX Runtime 1.30 computes it differently from torch 1.13
 * (bilinear and bicubic, half_pixel, pytorch_half_pixel or align_corners:
 * max relative error 0.1 to 1.7 on a 9x8 -> 3x2 .. 4x4 image), and there
 * is no decomposition: refused at every opset with that reason. */
static int sym_x_upsample_aa(struct lower_ctx *c, struct ir_node *n,
			     struct ir_value **out)
{
	return lw_decline(c, "antialiased interpolation: Resize's antialias "
			  "(opset 18) disagrees with torch in ONNX Runtime");
}

/* grid_sampler's source coordinate along an axis of `size` from the
 * normalised g, as torch 1.13's CPU kernel computes it
 * (GridSamplerKernel.cpp, ComputeLocation): unnormalised with the
 * scaling factor (size - 1) / 2 (align_corners) or size / 2 less 0.5;
 * then kept (zeros), clipped to [0, size - 1] (border) or reflected about
 * low (0 or -0.5) with period twice_span (2 (size - 1) or 2 size) and
 * clipped (reflection). */
/* a * b + c rounded once, as the fused multiply-add that torch's
 * vectorised CPU kernels compile to (x86-64 with FMA): for float in
 * double (the product exact, one rounding of the sum, then to float);
 * for double the two roundings of Mul and Add. */
static struct ir_value *grid_fma(struct lower_ctx *c, struct ir_value *a,
				 struct ir_value *b, struct ir_value *d,
				 enum ir_dtype dt)
{
	enum ir_dtype wide = dt == IR_DTYPE_FLOAT ? IR_DTYPE_DOUBLE : dt;
	struct ir_value *r = b_op2(c, "Add",
		b_op2(c, "Mul", b_cast(c, a, wide), b_cast(c, b, wide)),
		b_cast(c, d, wide));
	return b_cast(c, r, dt);
}

static struct ir_value *grid_coord(struct lower_ctx *c, struct ir_value *g,
				   int64_t size, int64_t pm, int64_t al,
				   enum ir_dtype dt)
{
#define K(v) b_const_scalar(c, (v), dt, 0)
	struct ir_value *x = b_op2(c, "Add", g, K(1));
	if (al)
		x = b_op2(c, "Mul", x, K((double)(size - 1) / 2));
	else
		x = grid_fma(c, x, K((double)size / 2), K(-0.5), dt);
	double low = al ? 0 : -0.5;
	double span = al ? 2.0 * (double)(size - 1) : 2.0 * (double)size;
	if (pm == 2 && span > 0) {
		/* |x - low| folded into [0, span / 2] by whole periods */
		struct ir_value *a = b_op1(c, "Abs", al ? x
					   : b_op2(c, "Sub", x, K(low)));
		struct ir_value *fl = b_op1(c, "Floor",
					    b_op2(c, "Div", a, K(span)));
		struct ir_value *ex = grid_fma(c, b_op1(c, "Neg", fl),
					       K(span), a, dt);
		x = b_op2(c, "Min", ex, b_op2(c, "Sub", K(span), ex));
		if (!al)
			x = b_op2(c, "Add", x, K(low));
	}
	if (pm >= 1)
		x = b_op2(c, "Min", K((double)(size - 1)),
			  b_op2(c, "Max", x, K(0)));
	return x;
}

/* One corner of the sampling: the input's [N, C, H W] values xf at the
 * int64 [N, P] column cx and row cy, 0 outside the image (torch's
 * mask_gather); es is the [N, C, P] shape. */
static struct ir_value *grid_corner(struct lower_ctx *c, struct ir_value *xf,
				    struct ir_value *cx, struct ir_value *cy,
				    int64_t h, int64_t w, struct ir_value *es,
				    enum ir_dtype dt)
{
	int64_t one = 1;
	struct ir_value *m1 = b_const_i64(c, -1);
	struct ir_value *mask = b_op2(c, "And",
		b_op2(c, "And", b_op2(c, "Greater", cx, m1),
		      b_op2(c, "Less", cx, b_const_i64(c, w))),
		b_op2(c, "And", b_op2(c, "Greater", cy, m1),
		      b_op2(c, "Less", cy, b_const_i64(c, h))));
	struct ir_value *lin = b_op2(c, "Add",
				     b_op2(c, "Mul", cy, b_const_i64(c, w)),
				     cx);
	lin = b_op3(c, "Where", mask, lin, b_const_i64(c, 0));
	lin = b_op2(c, "Expand", b_unsqueeze(c, lin, &one, 1), es);
	struct ir_node *ge = b_node(c, "GatherElements", 2,
				    (struct ir_value *[]){ xf, lin }, 1);
	b_attr_i(c, ge, "axis", 2);
	return b_op3(c, "Where", b_unsqueeze(c, mask, &one, 1), b_done(c, ge),
		     K(0));
}

/* a floored or rounded coordinate as int64, kept within [-2, size] first
 * (where the corners' bounds test is the same; inf stays castable) */
static struct ir_value *grid_index(struct lower_ctx *c, struct ir_value *v,
				   int64_t size, enum ir_dtype dt)
{
	v = b_op2(c, "Max", b_op2(c, "Min", v, K((double)size)), K(-2));
	return b_cast(c, v, IR_DTYPE_INT64);
}

/* grid_sampler of a 4-d input below opset 16 (no GridSample): torch 1.13's
 * CPU kernel step by step (GridSamplerKernel.cpp, ApplyGridSample): the
 * source coordinates (grid_coord); bilinear: the four neighbours'
 * values (GatherElements, opset 11) weighted by the distances, summed in
 * torch's order nw, ne, sw, se with its fused multiply-adds; nearest: the
 * rounded position (half to even, as torch's Vectorized round).  H and W
 * must be known. */
static int grid_sample11(struct lower_ctx *c, struct ir_node *n,
			 struct ir_value **out, int64_t im, int64_t pm,
			 int64_t al)
{
	struct ir_value *x = T(0), *g = T(1);
	enum ir_dtype dt = b_dtype(x);
	int64_t h = fixed_dim(x, 2), w = fixed_dim(x, 3);
	if (dt != IR_DTYPE_FLOAT && dt != IR_DTYPE_DOUBLE)
		return lw_decline(c, "grid_sample below opset 16 of this "
				  "dtype");
	if (h < 0 || w < 0 || b_rank(g) != 4 || b_dtype(g) != dt)
		return lw_decline(c, "grid_sample below opset 16 with the "
				  "input's height or width unknown");
	int64_t fl[3] = { 0, 0, -1 };
	struct ir_value *xf = b_op2(c, "Reshape", x, b_const_i64s(c, fl, 3, 1));
	struct ir_value *co[2];
	for (int i = 0; i < 2; i++) {
		struct ir_node *ga = b_node(c, "Gather", 2,
			(struct ir_value *[]){ g, b_const_i64(c, i) }, 1);
		b_attr_i(c, ga, "axis", 3);
		co[i] = b_op2(c, "Reshape", b_done(c, ga),
			      b_const_i64s(c, fl + 1, 2, 1));
		co[i] = grid_coord(c, co[i], i ? h : w, pm, al, dt);
	}
	struct ir_value *shx = b_op1(c, "Shape", x);
	struct ir_value *es = b_concat(c, 2, (struct ir_value *[]){
		b_slice(c, shx, 0, 2, 0, 1),
		b_slice(c, b_op1(c, "Shape", co[0]), 1, 2, 0, 1) }, 0);
	struct ir_value *y;
	if (im == 1) {
		y = grid_corner(c, xf,
				grid_index(c, b_op1(c, "Round", co[0]), w, dt),
				grid_index(c, b_op1(c, "Round", co[1]), h, dt),
				h, w, es, dt);
	} else {
		int64_t one = 1;
		struct ir_value *xw = b_op1(c, "Floor", co[0]);
		struct ir_value *yn = b_op1(c, "Floor", co[1]);
		struct ir_value *dw = b_op2(c, "Sub", co[0], xw);
		struct ir_value *de = b_op2(c, "Sub", K(1), dw);
		struct ir_value *dn = b_op2(c, "Sub", co[1], yn);
		struct ir_value *ds = b_op2(c, "Sub", K(1), dn);
		struct ir_value *wt[4] = { b_op2(c, "Mul", ds, de),
					   b_op2(c, "Mul", ds, dw),
					   b_op2(c, "Mul", dn, de),
					   b_op2(c, "Mul", dn, dw) };
		struct ir_value *ix = grid_index(c, xw, w, dt);
		struct ir_value *iy = grid_index(c, yn, h, dt);
		struct ir_value *ix1 = b_op2(c, "Add", ix, b_const_i64(c, 1));
		struct ir_value *iy1 = b_op2(c, "Add", iy, b_const_i64(c, 1));
		y = NULL;
		for (int k = 0; k < 4; k++) {
			struct ir_value *v = grid_corner(c, xf,
				k & 1 ? ix1 : ix, k & 2 ? iy1 : iy, h, w, es,
				dt);
			struct ir_value *wk = b_unsqueeze(c, wt[k], &one, 1);
			y = y ? grid_fma(c, v, wk, y, dt)
			      : b_op2(c, "Mul", v, wk);
		}
	}
	struct ir_value *os = b_concat(c, 2, (struct ir_value *[]){
		b_slice(c, shx, 0, 2, 0, 1),
		b_slice(c, b_op1(c, "Shape", g), 1, 3, 0, 1) }, 0);
	out[0] = b_op2(c, "Reshape", y, os);
	return 0;
#undef K
}

static int sym_x_grid_sampler(struct lower_ctx *c, struct ir_node *n,
			      struct ir_value **out)
{
	/* (input, grid, interpolation_mode, padding_mode, align_corners) */
	/* GridSample-20 renamed bilinear and bicubic (N-d: linear, cubic) */
	static const char *const modes16[] = { "bilinear", "nearest",
					       "bicubic" };
	static const char *const modes20[] = { "linear", "nearest", "cubic" };
	static const char *const pms[] = { "zeros", "border", "reflection" };
	int64_t im, pm, al;
	if (!lw_int(c, n, 2, &im) || !lw_int(c, n, 3, &pm) ||
	    !lw_int(c, n, 4, &al) || im < 0 || im > 2 || pm < 0 || pm > 2)
		return lw_decline(c, "modes not constant");
	if (c->opset < 16 && im == 2)
		return lw_decline(c, "bicubic grid_sample needs GridSample "
				  "(--opset-version 16)");
	if (c->opset < 16 && b_rank(T(0)) == 4)
		return grid_sample11(c, n, out, im, pm, al);
	if (c->opset < 16)
		return lw_decline(c, "needs opset 16");
	struct ir_value *in[2] = { T(0), T(1) };
	if (!in[0] || !in[1] || b_rank(in[0]) != 4)
		return lw_decline(c, "only 4-d inputs");
	struct ir_node *g = b_node(c, "GridSample", 2, in, 1);
	b_attr_i(c, g, "align_corners", al);
	b_attr_s(c, g, "mode", (c->opset >= 20 ? modes20 : modes16)[im]);
	b_attr_s(c, g, "padding_mode", pms[pm]);
	out[0] = b_done(c, g);
	return 0;
}

/* --- convolution-like ------------------------------------------------------- */

/* col2im(self, output_size, kernel_size, dilation, padding, stride)
 * (F.fold): opset 18's Col2Im, whose pads are begins then ends (torch pads
 * both sides alike); an unbatched [C k, L] input gets a batch of 1. */
static int sym_x_col2im(struct lower_ctx *c, struct ir_node *n,
			struct ir_value **out)
{
	struct ir_value *x = T(0);
	int64_t os[2], k[2], dil[2], pad[4], st[2], zero = 0;
	int r = b_rank(x);
	if (c->opset < 18)
		return lw_decline(c, "needs opset 18 (Col2Im)");
	if (lw_ints(c, n, 1, os, 2, 2) != 2 || lw_ints(c, n, 2, k, 2, 2) != 2 ||
	    lw_ints(c, n, 3, dil, 2, 2) != 2 ||
	    lw_ints(c, n, 4, pad, 2, 2) != 2 || lw_ints(c, n, 5, st, 2, 2) != 2)
		return lw_decline(c, "sizes not constant");
	if (r != 2 && r != 3)
		return lw_decline(c, "input rank unknown");
	pad[2] = pad[0];
	pad[3] = pad[1];
	if (r == 2)
		x = b_unsqueeze(c, x, &zero, 1);
	struct ir_value *in[3] = { x, b_const_i64s(c, os, 2, 1),
				   b_const_i64s(c, k, 2, 1) };
	struct ir_node *cn = b_node(c, "Col2Im", 3, in, 1);
	b_attr_ints(c, cn, "dilations", dil, 2);
	b_attr_ints(c, cn, "pads", pad, 4);
	b_attr_ints(c, cn, "strides", st, 2);
	out[0] = b_done(c, cn);
	if (b_rank(out[0]) < 0) { /* [N, C, H, W]: N and C when known */
		struct ir_type *t = ir_type_tensor(c->g, b_dtype(x), 4, NULL);
		t->dims[0] = x->type->dims[0];
		if (x->type->dims[1].kind == IR_DIM_FIXED && k[0] * k[1] > 0) {
			t->dims[1] = x->type->dims[1];
			t->dims[1].value /= k[0] * k[1];
		} else {
			t->dims[1].kind = IR_DIM_UNKNOWN;
		}
		for (int i = 0; i < 2; i++) {
			t->dims[2 + i].kind = IR_DIM_FIXED;
			t->dims[2 + i].value = os[i];
		}
		out[0]->type = t;
	}
	if (r == 2)
		out[0] = b_squeeze(c, out[0], &zero, 1);
	return 0;
}

static int sym_x_conv_tbc(struct lower_ctx *c, struct ir_node *n,
			  struct ir_value **out)
{
	/* (input [T,B,C], weight [K,Cin,Cout], bias [Cout], pad) */
	static const int64_t pin[3] = { 1, 2, 0 }, pw[3] = { 2, 1, 0 };
	struct ir_value *x = T(0), *w = T(1), *b = T(2);
	int64_t pad;
	if (!x || !w || !b || !lw_int(c, n, 3, &pad))
		return lw_decline(c, "pad not constant");
	int64_t pads[2] = { pad, pad };
	struct ir_value *in[3] = { b_transpose(c, x, pin, 3),
				   b_transpose(c, w, pw, 3), b };
	struct ir_node *cv = b_node(c, "Conv", 3, in, 1);
	b_attr_ints(c, cv, "pads", pads, 2);
	struct ir_value *y = b_done(c, cv);
	static const int64_t pout[3] = { 2, 0, 1 };
	out[0] = b_transpose(c, y, pout, 3);
	return 0;
}

static int sym_x_tensordot(struct lower_ctx *c, struct ir_node *n,
			   struct ir_value **out)
{
	/* (self, other, dims_self, dims_other): permute, flatten to 2-d,
	 * MatMul, reshape back; static shapes only */
	struct ir_value *a = T(0), *b = T(1);
	int64_t da[32], db[32], pa[32], pb[32], shp[64];
	int ka = lw_ints(c, n, 2, da, 32, 0), kb = lw_ints(c, n, 3, db, 32, 0);
	int ra = b_rank(a), rb = b_rank(b), ns = 0;
	int ua[32] = { 0 }, ub[32] = { 0 };
	if (!a || !b || ka < 0 || ka != kb)
		return lw_decline(c, "dims not constant");
	if (ra < 0 || rb < 0 || ra > 32 || rb > 32)
		return lw_decline(c, "input rank unknown");
	int64_t m = 1, k = 1, nn = 1;
	for (int i = 0; i < ka; i++) {
		da[i] = norm_axis(da[i], ra);
		db[i] = norm_axis(db[i], rb);
		if (da[i] < 0 || da[i] >= ra || db[i] < 0 || db[i] >= rb)
			return lw_decline(c, "dims out of range");
		ua[da[i]] = ub[db[i]] = 1;
		int64_t d = fixed_dim(a, (int)da[i]);
		if (d < 0)
			return lw_decline(c, "input size unknown");
		k *= d;
	}
	int ia = 0, ib = ka;
	for (int i = 0; i < ra; i++)
		if (!ua[i]) {
			int64_t d = fixed_dim(a, i);
			if (d < 0)
				return lw_decline(c, "input size unknown");
			pa[ia++] = i;
			shp[ns++] = d;
			m *= d;
		}
	for (int i = 0; i < ka; i++) {
		pa[ia++] = da[i];
		pb[i] = db[i];
	}
	for (int i = 0; i < rb; i++)
		if (!ub[i]) {
			int64_t d = fixed_dim(b, i);
			if (d < 0)
				return lw_decline(c, "input size unknown");
			pb[ib++] = i;
			shp[ns++] = d;
			nn *= d;
		}
	int64_t s2a[2] = { m, k }, s2b[2] = { k, nn };
	struct ir_value *ya = b_op2(c, "Reshape", b_transpose(c, a, pa, ra),
				    b_const_i64s(c, s2a, 2, 1));
	struct ir_value *yb = b_op2(c, "Reshape", b_transpose(c, b, pb, rb),
				    b_const_i64s(c, s2b, 2, 1));
	struct ir_value *y = b_op2(c, "MatMul", ya, yb);
	out[0] = b_op2(c, "Reshape", y, b_const_i64s(c, shp, ns, 1));
	return 0;
}

/* embedding_bag(weight, indices, offsets, scale_grad_by_freq, mode,
 * sparse, per_sample_weights, include_last_offset, padding_idx): the rows
 * of each bag (1-d indices cut at offsets, or the rows of 2-d indices)
 * summed, averaged or maxed; an empty bag gives 0, padding_idx rows are
 * left out (and not counted by mean), as torch computes it.  With no Loop
 * (torch's symbolic): a bag mask [B, N] from the offsets, Where and a
 * Reduce over N.  Output 0 only (offset2bag, bag_size, max_indices are
 * not made). */
static SYM(sym_x_embedding_bag)
{
	struct ir_value *w = T(0), *idx = T(1), *off = NULL, *psw = NULL;
	int64_t mode = 0, last = 0, pad = -1;
	if (!w || !idx || !lw_int(c, n, 4, &mode) ||
	    (n->ninputs > 7 && !lw_int(c, n, 7, &last)))
		return lw_decline(c, "mode or include_last_offset not constant");
	if (n->ninputs > 8 && !lw_is_none(c, n, 8) && !lw_int(c, n, 8, &pad))
		return lw_decline(c, "padding_idx not constant");
	if (mode < 0 || mode > 2)
		return lw_decline(c, "unknown mode");
	if (!lw_is_none(c, n, 6) && !(psw = T(6)))
		return lw_decline(c, "per_sample_weights is not a tensor");
	int ri = b_rank(idx);
	enum ir_dtype dt = b_dtype(w);
	if (b_rank(w) != 2 || (ri != 1 && ri != 2) || !b_is_float(dt))
		return lw_decline(c, "weight or indices of unknown rank");
	idx = b_cast(c, idx, IR_DTYPE_INT64);
	struct ir_node *g = b_node(c, "Gather", 2,
				   (struct ir_value *[]){ w, idx }, 1);
	b_attr_i(c, g, "axis", 0);
	struct ir_value *emb = b_done(c, g), *mask;
	if (psw) {
		int64_t ax = ri;
		emb = b_op2(c, "Mul", emb, b_unsqueeze(c, b_cast(c, psw, dt),
						       &ax, 1));
	}
	struct ir_value *valid = NULL;
	if (pad >= 0)	/* -1: none (F.embedding_bag makes others >= 0) */
		valid = b_op1(c, "Not", b_op2(c, "Equal", idx,
					      b_const_i64(c, pad)));
	int64_t a0 = 0, a1 = 1, a2 = 2;
	if (ri == 2) {
		/* 2-d indices: bag b is row b */
		mask = valid ? b_unsqueeze(c, valid, &a2, 1) : NULL;
	} else {
		if (lw_is_none(c, n, 2) || !(off = T(2)))
			return lw_decline(c, "1-d indices without offsets");
		off = b_cast(c, off, IR_DTYPE_INT64);
		struct ir_value *cnt = b_dim(c, idx, 0);
		struct ir_value *pos = sym_arange_count(c, cnt);
		if (!pos)
			return lw_decline(c, "index positions");
		if (last)
			off = b_slice(c, off, 0, -1, 0, 1);
		struct ir_value *cin[2] = { b_slice(c, off, 1, INT64_MAX, 0, 1),
					    b_unsqueeze(c, cnt, &a0, 1) };
		struct ir_value *ends = b_concat(c, 2, cin, 0);
		/* mask[b, i] = off[b] <= i < ends[b] */
		struct ir_value *s0 = b_op1(c, "Not", b_op2(c, "Greater",
				b_unsqueeze(c, off, &a1, 1), pos));
		struct ir_value *e0 = b_op2(c, "Greater",
				b_unsqueeze(c, ends, &a1, 1), pos);
		mask = b_op2(c, "And", s0, e0);
		if (valid)
			mask = b_op2(c, "And", mask,
				     b_unsqueeze(c, valid, &a0, 1));
		mask = b_unsqueeze(c, mask, &a2, 1);     /* [B, N, 1] */
		emb = b_unsqueeze(c, emb, &a0, 1);       /* [1, N, D] */
	}
	struct ir_value *fill = b_const_scalar(c, mode == 2 ? -INFINITY : 0,
					       dt, 0);
	struct ir_value *sel = mask ? b_op3(c, "Where", mask, emb, fill) : emb;
	struct ir_value *r = b_reduce(c, mode == 2 ? "ReduceMax" : "ReduceSum",
				      sel, &a1, 1, 0);
	if (mode == 0 || (!mask && mode == 2)) {
		out[0] = r;
		return 0;
	}
	/* bag sizes [B, 1] */
	struct ir_value *num;
	if (mask)
		num = b_reduce(c, "ReduceSum", b_cast(c, mask, dt), &a1, 1, 0);
	else
		num = b_cast(c, b_dim(c, idx, 1), dt);
	if (mode == 1) {
		num = b_op2(c, "Max", num, b_const_scalar(c, 1, dt, 0));
		out[0] = b_op2(c, "Div", r, num);
	} else {
		struct ir_value *nz = b_op2(c, "Greater", num,
					    b_const_scalar(c, 0, dt, 0));
		out[0] = b_op3(c, "Where", nz, r, b_const_scalar(c, 0, dt, 0));
	}
	return 0;
}

/* embedding_renorm(weight, indices, max_norm, norm_type) (embedding's
 * max_norm; in place in torch, its result what the embedding reads): each
 * row that indices use whose norm exceeds max_norm scaled by
 * max_norm / (norm + 1e-7), as torch's kernel; other rows unchanged. */
static SYM(sym_x_embedding_renorm)
{
	struct ir_value *w = T(0), *idx = T(1);
	double mx, p;
	if (!w || !idx || !lw_float(c, n, 2, &mx) || !lw_float(c, n, 3, &p))
		return lw_decline(c, "max_norm or norm_type not constant");
	enum ir_dtype dt = b_dtype(w);
	if (b_rank(w) != 2 || !b_is_float(dt))
		return lw_decline(c, "weight of unknown rank");
	int64_t a0 = 0, a1 = 1, m1 = -1;
	struct ir_value *a = b_op1(c, "Abs", w), *norm;
	if (p == 1 || p == 2)
		norm = b_reduce(c, p == 1 ? "ReduceL1" : "ReduceL2", w, &a1, 1, 1);
	else if (isinf(p))
		norm = b_reduce(c, p > 0 ? "ReduceMax" : "ReduceMin", a, &a1, 1, 1);
	else
		norm = b_op2(c, "Pow", b_reduce(c, "ReduceSum", b_op2(c, "Pow", a,
				b_const_scalar(c, p, dt, 0)), &a1, 1, 1),
			     b_const_scalar(c, 1 / p, dt, 0));
	/* rows used: any(arange(V)[:, None] == indices.flatten()[None]) */
	struct ir_value *rows = sym_arange_count(c, b_dim(c, w, 0));
	if (!rows)
		return lw_decline(c, "row numbers");
	struct ir_value *flat = b_op2(c, "Reshape", b_cast(c, idx, IR_DTYPE_INT64),
				      b_const_i64s(c, &m1, 1, 1));
	struct ir_value *eq = b_op2(c, "Equal", b_unsqueeze(c, rows, &a1, 1),
				    b_unsqueeze(c, flat, &a0, 1));
	struct ir_value *used = b_op2(c, "Greater", b_reduce(c, "ReduceMax",
			b_cast(c, eq, IR_DTYPE_FLOAT), &a1, 1, 1),
			b_const_scalar(c, 0, IR_DTYPE_FLOAT, 0));   /* [V, 1] */
	struct ir_value *big = b_op2(c, "And", used, b_op2(c, "Greater", norm,
					b_const_scalar(c, mx, dt, 0)));
	struct ir_value *scale = b_op2(c, "Div", b_const_scalar(c, mx, dt, 0),
		b_op2(c, "Add", norm, b_const_scalar(c, 1e-7, dt, 0)));
	out[0] = b_op3(c, "Where", big, b_op2(c, "Mul", w, scale), w);
	return 0;
}

/* quantize_per_tensor(self, scale, zero_point, dtype): QuantizeLinear to
 * quint8 / qint8 (opset 10), as torch's symbolic; its result stays the
 * integer tensor, which dequantize reads with the same scale and zero
 * point (from the QuantizeLinear that made it). */
static SYM(sym_x_quantize_per_tensor)
{
	struct ir_value *x = T(0);
	int64_t st, zp;
	double sc;
	if (c->opset < 10)
		return lw_decline(c, "needs opset 10 (QuantizeLinear)");
	if (!x || !lw_float(c, n, 1, &sc) || !lw_int(c, n, 2, &zp) ||
	    !lw_int(c, n, 3, &st))
		return lw_decline(c, "scale, zero_point or dtype not constant");
	enum ir_dtype qt = st == 13 ? IR_DTYPE_UINT8 : st == 12 ? IR_DTYPE_INT8
		: IR_DTYPE_UNDEFINED;
	if (qt == IR_DTYPE_UNDEFINED)
		return lw_decline(c, "a quantized dtype other than quint8, qint8");
	struct ir_value *in[3] = {
		b_cast(c, x, IR_DTYPE_FLOAT),
		b_const_scalar(c, sc, IR_DTYPE_FLOAT, 0),
		b_const_scalar(c, (double)zp, qt, 0) };
	out[0] = b_done(c, b_node(c, "QuantizeLinear", 3, in, 1));
	return 0;
}

static SYM(sym_x_dequantize)
{
	struct ir_value *q = T(0);
	struct ir_node *p = q ? q->producer : NULL;
	if (!p || strcmp(p->kind, "onnx::QuantizeLinear"))
		return lw_decline(c, "not the result of quantize_per_tensor");
	struct ir_value *in[3] = { q, p->inputs[1], p->inputs[2] };
	out[0] = b_done(c, b_node(c, "DequantizeLinear", 3, in, 1));
	return 0;
}

/* fractional_max_pool2d/3d(self, kernel_size, output_size,
 * random_samples) with its samples given (as F.fractional_max_pool2d
 * passes them, drawn by a rand before it when the model gives none): the
 * window starts of each plane as torch's generate_intervals, in the
 * input's dtype (int((i + u) alpha) - int(u alpha), alpha = (in - k) /
 * (out - 1), the last in - k; sample 0 is W in 2-d, T in 3-d), the
 * windows' flat plane indices gathered (GatherElements), their maximum
 * and its first place (ArgMax), or NaN and the last NaN's place as
 * torch's kernel; fixed spatial sizes */
static SYM(sym_x_fractional_max_pool)
{
	int d = n->op == OP_aten_fractional_max_pool3d ? 3 : 2, r;
	struct ir_value *x = T(0), *u = T(3), *pos[3], *idx = NULL, *v, *nan,
		*vv, *m, *am, *hn, *ln, *pick, *kv;
	int64_t ks[3], os[3], in[3], plane = 1, ktot = 1, nd;
	if (!x || !u || (r = b_rank(x)) < 0 || b_rank(u) != 3)
		return lw_decline(c, "the input or the samples are not tensors of known rank");
	if (r != d + 1 && r != d + 2)
		return lw_decline(c, "the input is not (N,) C and the spatial dims");
	if (lw_ints(c, n, 1, ks, 3, d) != d || lw_ints(c, n, 2, os, 3, d) != d)
		return lw_decline(c, "kernel_size or output_size not constant");
	enum ir_dtype dt = b_dtype(x);
	if (dt != IR_DTYPE_FLOAT && dt != IR_DTYPE_DOUBLE)
		return lw_decline(c, "the input is not float or double");
	if (r == d + 1) {
		int64_t z = 0;
		x = b_unsqueeze(c, x, &z, 1);
	}
	for (int j = 0; j < d; j++) {
		in[j] = fixed_dim(x, 2 + j);
		if (in[j] < 0)
			return lw_decline(c, "the spatial sizes are not fixed");
		if (ks[j] < 1 || os[j] < 1 || os[j] > in[j] ||
		    ks[j] > in[j] - os[j] + 1)
			return lw_decline(c, "output_size + kernel_size - 1 exceeds the input "
					     "(torch refuses it)");
		/* the window offsets and the output positions are constants */
		if (ks[j] > (1 << 24) || os[j] > (1 << 24))
			return lw_decline(c, "kernel_size or output_size over 2^24");
		plane *= in[j];
		ktot *= ks[j];
	}
	u = b_cast(c, u, dt);
	for (int j = 0; j < d; j++) {
		int64_t si = d == 2 ? 1 - j : j, last = in[j] - ks[j];
		struct ir_value *uj = b_slice(c, u, si, si + 1, 2, 1), *st;
		struct ir_value *lastv = b_op2(c, "Expand", b_const_i64s(c, &last, 1, 1),
					       b_op1(c, "Shape", uj));
		if (os[j] > 1) {
			double alpha = dt == IR_DTYPE_FLOAT
				? (double)((float)(in[j] - ks[j]) / (float)(os[j] - 1))
				: (double)(in[j] - ks[j]) / (double)(os[j] - 1);
			int64_t cnt = os[j] - 1;
			double *iv = ir_alloc(c->g, sizeof(double) * (size_t)cnt);
			for (int64_t i = 0; i < cnt; i++)
				iv[i] = (double)i;
			struct ir_value *al = b_const_scalar(c, alpha, dt, 0);
			st = b_op2(c, "Sub", b_op1(c, "Floor", b_op2(c, "Mul",
					b_op2(c, "Add", b_const_reals(c, iv, &cnt, 1, dt), uj), al)),
				   b_op1(c, "Floor", b_op2(c, "Mul", uj, al)));
			st = b_cast(c, st, IR_DTYPE_INT64);
			st = b_concat(c, 2,
				      (struct ir_value *[]){ st, lastv }, 2);
		} else {
			st = lastv;
		}
		/* [N, C, out] -> [N, C, out, 1] + [k] -> the window's places */
		int64_t *kr = ir_alloc(c->g, sizeof(int64_t) * (size_t)ks[j]);
		for (int64_t i = 0; i < ks[j]; i++)
			kr[i] = i;
		int64_t three = 3;
		pos[j] = b_op2(c, "Add", b_unsqueeze(c, st, &three, 1),
			       b_const_i64s(c, kr, ks[j], 1));
		int64_t stride = 1;
		for (int q = j + 1; q < d; q++)
			stride *= in[q];
		pos[j] = b_op2(c, "Mul", pos[j], b_const_i64(c, stride));
		/* [N, C, (1..), out_j, (1..), (1..), k_j, (1..)] */
		int64_t ax[6], na = 0;
		for (int q = 0; q < d; q++)
			if (q != j)
				ax[na++] = 2 + q;
		for (int q = 0; q < d; q++)
			if (q != j)
				ax[na++] = 2 + d + q;
		pos[j] = b_unsqueeze(c, pos[j], ax, (int)na);
		idx = idx ? b_op2(c, "Add", idx, pos[j]) : pos[j];
	}
	/* idx: [N, C, out..., k...] -> [N, C, out..., ktot] */
	int64_t sh[8];
	nd = 0;
	sh[nd++] = 0;
	sh[nd++] = 0;
	for (int j = 0; j < d; j++)
		sh[nd++] = os[j];
	sh[nd++] = ktot;
	idx = b_op2(c, "Reshape", idx, b_const_i64s(c, sh, (int)nd, 1));
	int64_t fl[3] = { 0, 0, -1 }, pl3[3] = { 0, 0, plane };
	struct ir_value *xf = b_op2(c, "Reshape", x, b_const_i64s(c, pl3, 3, 1));
	struct ir_node *ge = b_node(c, "GatherElements", 2, (struct ir_value *[]){
		xf, b_op2(c, "Reshape", idx, b_const_i64s(c, fl, 3, 1)) }, 1);
	b_attr_i(c, ge, "axis", 2);
	v = b_op2(c, "Reshape", b_done(c, ge), b_const_i64s(c, sh, (int)nd, 1));
	int64_t lastax = nd - 1;
	nan = b_op1(c, "IsNaN", v);
	vv = b_op3(c, "Where", nan, b_const_scalar(c, -INFINITY, dt, 0), v);
	m = b_reduce(c, "ReduceMax", vv, &lastax, 1, 1);
	struct ir_node *an = b_node(c, "ArgMax", 1, &vv, 1);
	b_attr_i(c, an, "axis", lastax);
	b_attr_i(c, an, "keepdims", 1);
	am = b_done(c, an);
	/* the last NaN: ktot - 1 less ArgMax of the reversed NaN flags */
	kv = b_cast(c, nan, IR_DTYPE_FLOAT);
	hn = b_op2(c, "Greater", b_reduce(c, "ReduceMax", kv, &lastax, 1, 1),
		   b_const_scalar(c, 0, IR_DTYPE_FLOAT, 0));
	struct ir_value *rev = b_flip(c, kv, lastax);
	an = b_node(c, "ArgMax", 1, &rev, 1);
	b_attr_i(c, an, "axis", lastax);
	b_attr_i(c, an, "keepdims", 1);
	ln = b_op2(c, "Sub", b_const_i64(c, ktot - 1), b_done(c, an));
	pick = b_op3(c, "Where", hn, ln, am);
	m = b_op3(c, "Where", hn, b_const_scalar(c, NAN, dt, 0), m);
	ge = b_node(c, "GatherElements", 2, (struct ir_value *[]){ idx, pick }, 1);
	b_attr_i(c, ge, "axis", lastax);
	struct ir_value *ix = b_done(c, ge);
	m = b_squeeze(c, m, &lastax, 1);
	ix = b_squeeze(c, ix, &lastax, 1);
	if (r == d + 1) {
		int64_t z = 0;
		m = b_squeeze(c, m, &z, 1);
		ix = b_squeeze(c, ix, &z, 1);
	}
	out[0] = m;
	if (n->noutputs > 1)
		out[1] = ix;
	return 0;
}

static const struct symbolic entries[] = {
	{ OP_aten__log_softmax, 0, 0, SYM_PRIO_BASE, sym_x_log_softmax },
	{ OP_aten__softmax, 0, 0, SYM_PRIO_BASE, sym_x_softmax },
	{ OP_aten__pad_circular, 0, 0, SYM_PRIO_BASE, sym_x_pad_circular },
	{ OP_aten__upsample_bicubic2d_aa, 0, 0, SYM_PRIO_BASE, sym_x_upsample_aa },
	{ OP_aten__upsample_bilinear2d_aa, 0, 0, SYM_PRIO_BASE, sym_x_upsample_aa },
	{ OP_aten__weight_norm, 0, 0, SYM_PRIO_BASE, sym_x_weight_norm },
	{ OP_aten_adaptive_max_pool1d, 0, 0, SYM_PRIO_BASE, sym_x_adaptive_max_pool },
	{ OP_aten_adaptive_max_pool2d, 0, 0, SYM_PRIO_BASE, sym_x_adaptive_max_pool },
	{ OP_aten_adaptive_max_pool3d, 0, 0, SYM_PRIO_BASE, sym_x_adaptive_max_pool },
	{ OP_aten_alpha_dropout, 0, 0, SYM_PRIO_BASE, sym_x_alpha_dropout },
	{ OP_aten_binary_cross_entropy_with_logits, 0, 0, SYM_PRIO_BASE, sym_x_bce_with_logits },
	{ OP_aten_cdist, 0, 0, SYM_PRIO_BASE, sym_x_cdist },
	{ OP_aten_pdist, 9, 0, SYM_PRIO_BASE, sym_x_pdist },
	{ OP_aten__pdist_forward, 9, 0, SYM_PRIO_BASE, sym_x_pdist },
	{ OP_aten__cdist_forward, 0, 0, SYM_PRIO_BASE, sym_x_cdist },
	{ OP_aten_col2im, 18, 0, SYM_PRIO_BASE, sym_x_col2im },
	{ OP_aten_conv_tbc, 0, 0, SYM_PRIO_BASE, sym_x_conv_tbc },
	{ OP_aten_cosine_similarity, 0, 0, SYM_PRIO_BASE, sym_x_cosine_similarity },
	{ OP_aten_cross_entropy_loss, 0, 0, SYM_PRIO_BASE, sym_x_cross_entropy_loss },
	{ OP_aten_dequantize, 0, 0, SYM_PRIO_BASE, sym_x_dequantize },
	{ OP_aten_embedding_bag, 0, 0, SYM_PRIO_BASE, sym_x_embedding_bag },
	{ OP_aten__embedding_bag, 0, 0, SYM_PRIO_BASE, sym_x_embedding_bag },
	{ OP_aten_embedding_renorm, 0, 0, SYM_PRIO_BASE, sym_x_embedding_renorm },
	{ OP_aten_feature_alpha_dropout, 0, 0, SYM_PRIO_BASE, sym_x_alpha_dropout },
	{ OP_aten_grid_sampler, 11, 0, SYM_PRIO_BASE, sym_x_grid_sampler },
	{ OP_aten_grid_sampler_2d, 11, 0, SYM_PRIO_BASE, sym_x_grid_sampler },
	{ OP_aten_kl_div, 0, 0, SYM_PRIO_BASE, sym_x_kl_div },
	{ OP_aten_max_pool1d_with_indices, 0, 0, SYM_PRIO_BASE, sym_x_max_pool_with_indices },
	{ OP_aten_max_pool2d_with_indices, 0, 0, SYM_PRIO_BASE, sym_x_max_pool_with_indices },
	{ OP_aten_fractional_max_pool2d, 11, 0, SYM_PRIO_BASE, sym_x_fractional_max_pool },
	{ OP_aten_fractional_max_pool3d, 11, 0, SYM_PRIO_BASE, sym_x_fractional_max_pool },
	{ OP_aten_max_pool3d_with_indices, 0, 0, SYM_PRIO_BASE, sym_x_max_pool_with_indices },
	{ OP_aten_native_dropout, 0, 0, SYM_PRIO_BASE, sym_x_native_dropout },
	{ OP_aten_native_layer_norm, 0, 0, SYM_PRIO_BASE, sym_x_native_layer_norm },
	{ OP_aten_native_group_norm, 0, 0, SYM_PRIO_BASE, sym_x_native_group_norm },
	{ OP_aten_rms_norm, 0, 0, SYM_PRIO_BASE, sym_x_rms_norm },
	{ OP_aten_nll_loss2d, 0, 0, SYM_PRIO_BASE, sym_x_nll_loss },
	{ OP_aten_nll_loss_nd, 0, 0, SYM_PRIO_BASE, sym_x_nll_loss },
	{ OP_aten_pairwise_distance, 0, 0, SYM_PRIO_BASE, sym_x_pairwise_distance },
	{ OP_aten_pixel_shuffle, 0, 0, SYM_PRIO_BASE, sym_x_pixel_shuffle },
	{ OP_aten_pixel_unshuffle, 0, 0, SYM_PRIO_BASE, sym_x_pixel_unshuffle },
	{ OP_aten_quantize_per_tensor, 10, 0, SYM_PRIO_BASE, sym_x_quantize_per_tensor },
	{ OP_aten_reflection_pad1d, 0, 0, SYM_PRIO_BASE, sym_x_reflection_pad },
	{ OP_aten_reflection_pad2d, 0, 0, SYM_PRIO_BASE, sym_x_reflection_pad },
	{ OP_aten_reflection_pad3d, 0, 0, SYM_PRIO_BASE, sym_x_reflection_pad },
	{ OP_aten_replication_pad1d, 0, 0, SYM_PRIO_BASE, sym_x_replication_pad },
	{ OP_aten_replication_pad2d, 0, 0, SYM_PRIO_BASE, sym_x_replication_pad },
	{ OP_aten_replication_pad3d, 0, 0, SYM_PRIO_BASE, sym_x_replication_pad },
	{ OP_aten_tensordot, 0, 0, SYM_PRIO_BASE, sym_x_tensordot },
	{ OP_aten_upsample_bicubic2d, 0, 0, SYM_PRIO_BASE, sym_x_upsample_bicubic },
	{ OP_aten_upsample_linear1d, 0, 0, SYM_PRIO_BASE, sym_x_upsample_linear },
	{ OP_aten_upsample_trilinear3d, 0, 0, SYM_PRIO_BASE, sym_x_upsample_linear },
};

const struct symbolic_table symbolic_extra_nn_table = {
	entries, sizeof(entries) / sizeof(entries[0]),
};

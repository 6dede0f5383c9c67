/*
 * symbolic_extra_shape.c - symbolic functions for aten ops that the opset
 * tables (symbolic_opset9.c ... 17) do not have: shape, indexing, sorting
 * and splitting ops (sort, nonzero, roll, narrow, movedim, one_hot,
 * index_add/copy/fill, meshgrid, unique...).  One function per op for
 * every opset, branching on c->opset; see lower_int.h.  torch 1.13's
 * symbolic_opset*.py are the semantic reference.
 */
#include <math.h>
#include <string.h>

#include "symbolic_common.h"

#define IN(i) lw_in(c, n, (i))
#define T(i) lw_tensor(c, n, (i))
#define BIG INT64_MAX
#define MAXR 64

static int64_t nd(int64_t d, int rank)
{
	return d < 0 && rank >= 0 ? d + rank : d;
}

static struct ir_value *vec(struct lower_ctx *c, const int64_t *v, int k)
{
	return b_const_i64s(c, v, k, 1);
}

static struct ir_value *vec1(struct lower_ctx *c, int64_t v)
{
	return b_const_i64s(c, &v, 1, 1);
}

static struct ir_value *flat(struct lower_ctx *c, struct ir_value *x)
{
	return b_op2(c, "Reshape", x, vec1(c, -1));
}

/* Shape(x)[dim] as a 1-d Long of one element. */
static struct ir_value *dim1(struct lower_ctx *c, struct ir_value *x,
			     int64_t dim)
{
	int64_t v = b_dim_size(x, dim), zero = 0;
	if (v >= 0)
		return vec1(c, v);
	return b_unsqueeze(c, b_dim(c, x, dim), &zero, 1);
}

/* 0 .. size(dim) - 1 of x as a 1-d Long. */
static struct ir_value *arange_dim(struct lower_ctx *c, struct ir_value *x,
				   int64_t dim)
{
	int64_t len = b_dim_size(x, dim);
	if (len >= 0 && len <= 4096) {
		int64_t v[4096];
		for (int64_t i = 0; i < len; i++)
			v[i] = i;
		return vec(c, v, (int)len);
	}
	return sym_arange_count(c, b_dim(c, x, dim));
}

/* Slice of x on axis with 1-d start / end tensors (opset 10). */
static struct ir_value *dyn_slice(struct lower_ctx *c, struct ir_value *x,
				  struct ir_value *st, struct ir_value *en,
				  int64_t axis)
{
	struct ir_value *in[4] = { x, st, en, vec1(c, axis) };
	return b_done(c, b_node(c, "Slice", 4, in, 1));
}

/* The permutation that swaps a and b (r dims). */
static void swap_perm(int64_t *p, int r, int64_t a, int64_t b)
{
	for (int i = 0; i < r; i++)
		p[i] = i;
	p[a] = b;
	p[b] = a;
}

static SYM(sym_x_shape_as_tensor)
{
	out[0] = b_op1(c, "Shape", T(0));
	return 0;
}

/* _reshape_from_tensor(self, shape): Reshape by a 1-d shape tensor (as
 * torch's symbolic, a 0 entry copies the input's dim: ONNX's rule). */
static SYM(sym_x_reshape_from_tensor)
{
	struct ir_value *x = T(0), *s = T(1);
	if (!x || !s)
		return lw_decline(c, "input or shape is not a tensor");
	out[0] = b_op2(c, "Reshape", x, b_cast(c, s, IR_DTYPE_INT64));
	return 0;
}

/* view_as / reshape_as: Reshape(x, Shape(other)). */
static SYM(sym_x_reshape_as)
{
	out[0] = b_op2(c, "Reshape", T(0), b_op1(c, "Shape", T(1)));
	return 0;
}

static SYM(sym_x_numpy_T)
{
	struct ir_value *x = T(0);
	int64_t p[MAXR];
	int r = b_rank(x);
	if (r < 0 || r > MAXR)
		return lw_decline(c, "input rank unknown");
	if (r < 2) {
		out[0] = x;
		return 0;
	}
	for (int i = 0; i < r; i++)
		p[i] = r - 1 - i;
	out[0] = b_transpose(c, x, p, r);
	return 0;
}

static SYM(sym_x_narrow)
{
	/* narrow(self, dim, start, length); start may be a tensor */
	struct ir_value *x = T(0);
	int64_t dim, st, len;
	int r = b_rank(x);
	if (!lw_int(c, n, 1, &dim) || !lw_int(c, n, 3, &len))
		return lw_decline(c, "dim or length not constant");
	dim = nd(dim, r);
	if (dim < 0)
		return lw_decline(c, "negative dim with unknown rank");
	if (lw_int(c, n, 2, &st)) {
		if (st < 0) {
			int64_t sz = b_dim_size(x, dim);
			if (sz < 0)
				return lw_decline(c, "negative start with "
						  "unknown dim size");
			st += sz;
		}
		out[0] = b_slice(c, x, st, st + len, dim, 1);
		return 0;
	}
	if (c->opset < 10)
		return lw_decline(c, "a start not constant needs opset 10");
	struct ir_value *s = lw_scalar_as(c, n, 2, IR_DTYPE_INT64, 1);
	if (!s)
		return lw_decline(c, "start is not a number");
	s = b_op2(c, "Reshape", s, vec1(c, 1));
	out[0] = dyn_slice(c, x, s, b_op2(c, "Add", s, vec1(c, len)), dim);
	return 0;
}

static SYM(sym_x_movedim)
{
	struct ir_value *x = T(0);
	int64_t src[MAXR], dst[MAXR], perm[MAXR];
	int r = b_rank(x), used[MAXR] = { 0 }, taken[MAXR] = { 0 };
	if (r < 0 || r > MAXR)
		return lw_decline(c, "input rank unknown");
	int k = lw_ints(c, n, 1, src, MAXR, 0);
	int k2 = lw_ints(c, n, 2, dst, MAXR, 0);
	if (k < 0 || k2 != k)
		return lw_decline(c, "source or destination not constant");
	for (int i = 0; i < r; i++)
		perm[i] = -1;
	for (int i = 0; i < k; i++) {
		src[i] = nd(src[i], r);
		dst[i] = nd(dst[i], r);
		if (src[i] < 0 || src[i] >= r || dst[i] < 0 || dst[i] >= r ||
		    used[src[i]] || taken[dst[i]])
			return lw_decline(c, "dims out of range or repeated");
		perm[dst[i]] = src[i];
		used[src[i]] = 1;
		taken[dst[i]] = 1;
	}
	/* the rest keep their order in the free slots */
	int j = 0;
	for (int i = 0; i < r; i++) {
		if (perm[i] >= 0)
			continue;
		while (used[j])
			j++;
		perm[i] = j++;
	}
	out[0] = r ? b_transpose(c, x, perm, r) : x;
	return 0;
}

/* roll with shifts computed at run time (a list of values; dims
 * constant): per dim s = shift mod size, then Concat(x[-s:], x[:-s]) with
 * Slice's bounds as inputs (opset 10), which for s = 0 is x itself;
 * before 10 a Gather of the rolled indices. */
static int roll_dynamic(struct lower_ctx *c, struct ir_node *n,
			struct ir_value **out, struct ir_value *x,
			const int64_t *dims, int kd)
{
	struct ir_value *sv[MAXR], *v = x;
	int r = b_rank(x);
	int k = lw_list(c, n, 1, sv, MAXR);
	if (k != kd)
		return lw_decline(c, "shifts not known element-wise or not "
				  "as many as dims");
	for (int i = 0; i < k && c->opset < 10; i++) {
		/* no Slice with bounds as inputs: Gather of
		 * (arange(len) - s) mod len, the mod from truncating Div */
		int64_t d = nd(dims[i], r);
		if (d < 0 || d >= r || !sv[i])
			return lw_decline(c, "dim out of range or rank unknown");
		struct ir_value *len = b_dim(c, v, d);
		struct ir_value *ix = sym_arange_count(c, len);
		if (!ix)
			return 1;
		struct ir_value *t = b_op2(c, "Sub", ix,
					   b_cast(c, sv[i], IR_DTYPE_INT64));
		for (int pass = 0; pass < 2; pass++) {
			t = b_op2(c, "Sub", t, b_op2(c, "Mul",
				  b_op2(c, "Div", t, len), len));
			if (!pass)
				t = b_op2(c, "Add", t, len);
		}
		struct ir_node *g = b_node(c, "Gather", 2,
					   (struct ir_value *[]){ v, t }, 1);
		b_attr_i(c, g, "axis", d);
		v = b_done(c, g);
		v->type = ir_type_copy(c->g, x->type);
		if (i == k - 1) {
			out[0] = v;
			return 0;
		}
	}
	for (int i = 0; i < k; i++) {
		int64_t d = nd(dims[i], r), zero = 0, big = BIG;
		if (d < 0 || d >= r || !sv[i])
			return lw_decline(c, "dim out of range or rank unknown");
		struct ir_value *s = b_cast(c, sv[i], IR_DTYPE_INT64);
		if (b_rank(s) == 0)
			s = b_unsqueeze(c, s, &zero, 1);
		struct ir_value *len = b_dim(c, v, d);
		len = b_unsqueeze(c, len, &zero, 1);
		struct ir_node *mn = b_node(c, "Mod", 2,
					    (struct ir_value *[]){ s, len }, 1);
		s = b_done(c, mn);
		struct ir_value *ax = b_const_i64s(c, &d, 1, 1);
		struct ir_value *ns = b_op1(c, "Neg", s);
		struct ir_value *in0[4] = { v, ns, b_const_i64s(c, &big, 1, 1),
					    ax };
		struct ir_value *in1[4] = { v, b_const_i64s(c, &zero, 1, 1),
					    ns, ax };
		struct ir_value *parts[2] = {
			b_done(c, b_node(c, "Slice", 4, in0, 1)),
			b_done(c, b_node(c, "Slice", 4, in1, 1)),
		};
		v = b_concat(c, 2, parts, d);
		v->type = ir_type_copy(c->g, x->type); /* roll keeps shape */
	}
	out[0] = v;
	return 0;
}

static SYM(sym_x_roll)
{
	struct ir_value *x = T(0);
	int64_t sh[MAXR], dims[MAXR];
	int r = b_rank(x);
	int k = lw_ints(c, n, 1, sh, MAXR, 0);
	int kd = lw_ints(c, n, 2, dims, MAXR, 0);
	if (k < 0 && kd > 0)
		return roll_dynamic(c, n, out, x, dims, kd);
	if (k < 0 || kd < 0)
		return lw_decline(c, "shifts or dims not constant");
	struct ir_value *v = x;
	int flattened = kd == 0;
	if (kd == 0) {
		/* roll of the flattened tensor, shape restored */
		if (k != 1)
			return lw_decline(c, "shifts without dims must be one");
		v = flat(c, x);
		dims[0] = 0;
		kd = 1;
		r = 1;
	}
	if (kd != k)
		return lw_decline(c, "shifts and dims differ in length");
	for (int i = 0; i < k; i++) {
		int64_t d = nd(dims[i], r), len = b_dim_size(v, d), s = sh[i];
		if (d < 0)
			return lw_decline(c, "negative dim with unknown rank");
		if (len > 0)
			s = ((s % len) + len) % len;
		if (s == 0)
			continue;
		struct ir_value *parts[2] = {
			b_slice(c, v, -s, BIG, d, 1),
			b_slice(c, v, 0, -s, d, 1),
		};
		v = b_concat(c, 2, parts, d);
	}
	if (v == x)
		v = b_op1(c, "Identity", x);
	else if (flattened)
		v = b_op2(c, "Reshape", v, b_op1(c, "Shape", x));
	out[0] = v;
	return 0;
}

/* sort / argsort: TopK over the whole dim.  (self, dim, descending) or the
 * .stable form (self, stable, dim, descending). */
static int sort_common(struct lower_ctx *c, struct ir_node *n,
		       struct ir_value **out, int want_values)
{
	struct ir_value *x = T(0);
	int64_t dim = -1, desc = 0;
	int a = 1;
	if (n->ninputs >= 4)
		a = 2; /* stable */
	if ((n->ninputs > (uint32_t)a && !lw_int(c, n, a, &dim)) ||
	    (n->ninputs > (uint32_t)a + 1 && !lw_int(c, n, a + 1, &desc)))
		return lw_decline(c, "dim or descending not constant");
	int r = b_rank(x);
	dim = nd(dim, r);
	if (dim < 0)
		return lw_decline(c, "negative dim with unknown rank");
	enum ir_dtype dt = b_dtype(x);
	int neg = !desc && c->opset < 11;
	if (neg && !b_is_float(dt) && dt != IR_DTYPE_INT32 &&
	    dt != IR_DTYPE_INT64)
		return lw_decline(c, "an ascending sort of this dtype needs "
				  "opset 11 (TopK largest=0)");
	struct ir_node *t;
	if (r == 0) {
		out[0] = want_values ? x : b_const_i64(c, 0);
		if (want_values)
			out[1] = b_const_i64(c, 0);
		return 0;
	}
	if (c->opset < 10) {
		int64_t len = b_dim_size(x, dim);
		if (len < 0)
			return lw_decline(c, "sort of a dim of unknown size "
					  "needs opset 10");
		if (neg)
			x = b_op1(c, "Neg", x);
		t = b_node(c, "TopK", 1, &x, 2);
		b_attr_i(c, t, "k", len);
	} else {
		struct ir_value *k = dim1(c, x, dim);
		if (neg)
			x = b_op1(c, "Neg", x);
		t = b_node(c, "TopK", 2, (struct ir_value *[]){ x, k }, 2);
	}
	b_attr_i(c, t, "axis", dim);
	if (c->opset >= 11)
		b_attr_i(c, t, "largest", desc);
	b_done(c, t);
	if (want_values) {
		out[0] = neg ? b_op1(c, "Neg", t->outputs[0]) : t->outputs[0];
		out[1] = t->outputs[1];
	} else {
		out[0] = t->outputs[1];
	}
	return 0;
}

static SYM(sym_x_sort) { return sort_common(c, n, out, 1); }
static SYM(sym_x_argsort) { return sort_common(c, n, out, 0); }

static struct ir_value *nonzero_t(struct lower_ctx *c, struct ir_value *x)
{
	static const int64_t p[2] = { 1, 0 };
	return b_transpose(c, b_op1(c, "NonZero", x), p, 2);
}

static SYM(sym_x_nonzero)
{
	struct ir_value *x = T(0);
	if (b_rank(x) == 0) {
		/* torch: [1, 0] or [0, 0]; the [n, 1] of x as a [1], its
		 * columns dropped */
		int64_t zero = 0;
		out[0] = b_slice(c, nonzero_t(c, b_unsqueeze(c, x, &zero, 1)),
				 0, 0, 1, 1);
		return 0;
	}
	out[0] = nonzero_t(c, x);
	return 0;
}

static SYM(sym_x_nonzero_numpy)
{
	struct ir_value *x = T(0), *parts[MAXR];
	int64_t zero = 0;
	int r = b_rank(x);
	if (r < 1 || r > MAXR)
		return lw_decline(c, "input rank unknown or 0");
	struct ir_value *nz = b_op1(c, "NonZero", x);
	if (r == 1) {
		parts[0] = b_squeeze(c, nz, &zero, 1);
	} else {
		b_split(c, nz, 0, NULL, r, parts);
		for (int i = 0; i < r; i++)
			parts[i] = b_squeeze(c, parts[i], &zero, 1);
	}
	lw_set_list(c, n->outputs[0], parts, r);
	out[0] = NULL;
	return 0;
}

/* masked_select: the elements of x (broadcast with mask) where mask, in
 * order: Compress of the flattened tensors. */
static SYM(sym_x_masked_select)
{
	struct ir_value *x = T(0), *m = T(1);
	m = b_op2(c, "Expand", b_cast(c, m, IR_DTYPE_BOOL),
		  b_op1(c, "Shape", x));
	x = b_op2(c, "Expand", x, b_op1(c, "Shape", m));
	struct ir_node *cn = b_node(c, "Compress", 2,
		(struct ir_value *[]){ flat(c, x), flat(c, m) }, 1);
	out[0] = b_done(c, cn);
	return 0;
}

/* masked_scatter(self, mask, source): the flattened self with the
 * positions where mask holds replaced by source's first elements, in
 * order (Scatter of 1-d tensors: every opset). */
static SYM(sym_x_masked_scatter)
{
	struct ir_value *x = T(0), *m = T(1), *src = T(2);
	int64_t zero = 0;
	m = b_op2(c, "Expand", b_cast(c, m, IR_DTYPE_BOOL),
		  b_op1(c, "Shape", x));
	x = b_op2(c, "Expand", x, b_op1(c, "Shape", m));
	struct ir_value *pos = b_squeeze(c, b_op1(c, "NonZero", flat(c, m)),
					 &zero, 1);
	struct ir_value *cnt = sym_arange_count(c, b_dim(c, pos, 0));
	if (!cnt)
		return lw_decline(c, "mask count unknown");
	struct ir_node *g = b_node(c, "Gather", 2,
		(struct ir_value *[]){ flat(c, b_cast(c, src, b_dtype(x))),
				       cnt }, 1);
	b_attr_i(c, g, "axis", 0);
	struct ir_value *upd = b_done(c, g);
	struct ir_node *sn = b_node(c, c->opset >= 11 ? "ScatterElements"
				    : "Scatter", 3,
				    (struct ir_value *[]){ flat(c, x), pos, upd },
				    1);
	b_attr_i(c, sn, "axis", 0);
	out[0] = b_op2(c, "Reshape", b_done(c, sn), b_op1(c, "Shape", x));
	return 0;
}

static SYM(sym_x_one_hot)
{
	struct ir_value *x = T(0), *depth;
	int64_t k;
	if (!lw_int(c, n, 1, &k))
		return lw_decline(c, "num_classes not constant");
	if (k < 0) {
		struct ir_value *mx = b_reduce(c, "ReduceMax", x, NULL, 0, 0);
		depth = b_op2(c, "Add", b_cast(c, mx, IR_DTYPE_INT64),
			      b_const_i64(c, 1));
		depth = b_op2(c, "Reshape", depth, vec1(c, 1));
	} else {
		depth = vec1(c, k);
	}
	int64_t vals[2] = { 0, 1 }, zero = 0;
	int zerod = b_rank(x) == 0;	/* OneHot's indices have rank >= 1 */
	if (zerod)
		x = b_unsqueeze(c, x, &zero, 1);
	struct ir_node *o = b_node(c, "OneHot", 3,
		(struct ir_value *[]){ x, depth, vec(c, vals, 2) }, 1);
	b_attr_i(c, o, "axis", -1);
	out[0] = b_done(c, o);
	if (zerod)
		out[0] = b_squeeze(c, out[0], &zero, 1);
	return 0;
}

/* The indices repeat_interleave(repeats) gives (repeats a 1-d Long): for
 * each output position p, how many running sums of repeats are <= p
 * (CumSum and Range: opset 11). */
static struct ir_value *repeat_index(struct lower_ctx *c, struct ir_value *rep)
{
	int64_t zero = 0, one = 1;
	struct ir_value *cs = b_op2(c, "CumSum", rep, b_const_i64(c, 0));
	struct ir_value *total = b_op2(c, "Gather", cs, b_const_i64(c, -1));
	struct ir_value *p = sym_arange_count(c, total);
	if (!p)
		return NULL;
	struct ir_value *le = b_op1(c, "Not", b_op2(c, "Greater",
			b_unsqueeze(c, cs, &zero, 1), b_unsqueeze(c, p, &one, 1)));
	return b_reduce(c, "ReduceSum", b_cast(c, le, IR_DTYPE_INT64), &one, 1, 0);
}

/* repeat_interleave.self_Tensor(self, repeats, dim, output_size) and
 * repeat_interleave.Tensor(repeats, output_size): the index of
 * repeat_index gathered from self along dim (the flattened self without
 * a dim); one repeat count applies to every slice. */
static int repeat_interleave_t(struct lower_ctx *c, struct ir_node *n,
			       struct ir_value **out, int self)
{
	struct ir_value *x = self ? T(0) : NULL, *rep = T(self);
	int64_t dim = 0, m1 = -1;
	if (!rep)
		return lw_decline(c, "repeats is not a tensor");
	if (c->opset < 11)
		return lw_decline(c, "repeats that are a tensor need opset 11 "
			"(CumSum, Range)");
	rep = b_op2(c, "Reshape", b_cast(c, rep, IR_DTYPE_INT64),
		    b_const_i64s(c, &m1, 1, 1));
	if (!self) {
		out[0] = repeat_index(c, rep);
		return out[0] ? 0 : lw_decline(c, "no index could be built");
	}
	if (n->ninputs < 3 || lw_is_none(c, n, 2))
		x = flat(c, x);
	else if (!lw_int(c, n, 2, &dim))
		return lw_decline(c, "dim not constant");
	int r = b_rank(x);
	if (r < 1)
		return lw_decline(c, "input rank unknown or 0");
	dim = nd(dim, r);
	if (dim < 0 || dim >= r)
		return lw_decline(c, "dim out of range");
	rep = b_op2(c, "Expand", rep, dim1(c, x, dim));
	struct ir_value *idx = repeat_index(c, rep);
	if (!idx)
		return lw_decline(c, "no index could be built");
	struct ir_node *g = b_node(c, "Gather", 2, (struct ir_value *[]){ x, idx }, 1);
	b_attr_i(c, g, "axis", dim);
	out[0] = b_done(c, g);
	return 0;
}

/* repeat_interleave.self_int(self, repeats, dim, output_size) with a
 * constant repeats: Tile a new axis after dim, merge it into dim. */
static SYM(sym_x_repeat_interleave)
{
	struct ir_value *x = T(0);
	int64_t rep, dim, tile[MAXR + 1], mul[MAXR];
	if (n->ninputs == 1 || (n->ninputs == 2 && lw_is_none(c, n, 1)))
		return repeat_interleave_t(c, n, out, 0);
	if (n->ninputs >= 2 && n->inputs[1]->type->kind == IR_TYPE_TENSOR)
		return repeat_interleave_t(c, n, out, 1);
	if (n->ninputs < 2 || n->inputs[1]->type->kind != IR_TYPE_INT)
		return lw_decline(c, "repeats that are neither an int nor a tensor");
	if (!lw_int(c, n, 1, &rep) || rep < 0)
		return lw_decline(c, "repeats not constant");
	if (n->ninputs < 3 || lw_is_none(c, n, 2)) {
		x = flat(c, x);
		dim = 0;
	} else if (!lw_int(c, n, 2, &dim)) {
		return lw_decline(c, "dim not constant");
	}
	int r = b_rank(x);
	if (r < 0 || r > MAXR - 1)
		return lw_decline(c, "input rank unknown");
	if (r == 0) {
		x = flat(c, x);
		r = 1;
	}
	dim = nd(dim, r);
	if (dim < 0 || dim >= r)
		return lw_decline(c, "dim out of range");
	int64_t ax = dim + 1;
	struct ir_value *u = b_unsqueeze(c, x, &ax, 1);
	for (int i = 0; i <= r; i++)
		tile[i] = i == ax ? rep : 1;
	for (int i = 0; i < r; i++)
		mul[i] = i == dim ? rep : 1;
	u = b_op2(c, "Tile", u, vec(c, tile, r + 1));
	out[0] = b_op2(c, "Reshape", u,
		       b_op2(c, "Mul", b_op1(c, "Shape", x), vec(c, mul, r)));
	return 0;
}

/* index (0-d or 1-d, may be negative) as a 1-d Long in [0, size). */
static struct ir_value *norm_index(struct lower_ctx *c, struct ir_value *idx,
				   struct ir_value *x, int64_t dim)
{
	idx = flat(c, b_cast(c, idx, IR_DTYPE_INT64));
	struct ir_value *neg = b_cast(c, b_op2(c, "Less", idx,
					       b_const_i64(c, 0)),
				      IR_DTYPE_INT64);
	return b_op2(c, "Add", idx, b_op2(c, "Mul", neg, dim1(c, x, dim)));
}

/* [size(dim), K] Bool: arange(size(dim)) == index[k]. */
static struct ir_value *index_onehot(struct lower_ctx *c, struct ir_value *x,
				     int64_t dim, struct ir_value *idx)
{
	int64_t one = 1, zero = 0;
	struct ir_value *rng = b_unsqueeze(c, arange_dim(c, x, dim), &one, 1);
	idx = b_unsqueeze(c, norm_index(c, idx, x, dim), &zero, 1);
	return b_op2(c, "Equal", rng, idx);
}

/* index_fill/copy/add's self (x), dim and source (src, NULL for fill)
 * checked; a 0-d self (with a 0-d or one-element source), which torch
 * reads as one element along dim 0 or -1, made 1-d: *scalar set, and
 * the caller squeezes its result back.  0, or 1 (declined). */
static int index_args(struct lower_ctx *c, struct ir_node *n,
		      struct ir_value **x, struct ir_value **src,
		      int64_t *dim, int *r, int *scalar)
{
	*r = b_rank(*x);
	*scalar = 0;
	if (!lw_int(c, n, 1, dim))
		return lw_decline(c, "dim not constant");
	if (*r == 0 && (*dim == 0 || *dim == -1) &&
	    (!src || b_rank(*src) == 0 || b_rank(*src) == 1)) {
		*x = flat(c, *x);
		if (src)
			*src = flat(c, *src);
		*r = 1;
		*scalar = 1;
	}
	if (*r < 1 || *r > MAXR || (src && b_rank(*src) != *r))
		return lw_decline(c, src ? "ranks unknown or differ"
					 : "input rank unknown");
	*dim = nd(*dim, *r);
	if (*dim < 0 || *dim >= *r)
		return lw_decline(c, "dim out of range");
	return 0;
}

/* y, or y squeezed back to 0-d when index_args made self 1-d */
static struct ir_value *index_result(struct lower_ctx *c, struct ir_value *y,
				     int scalar)
{
	int64_t zero = 0;
	return scalar ? b_squeeze(c, y, &zero, 1) : y;
}

static SYM(sym_x_index_fill)
{
	/* index_fill(self, dim, index, value) */
	struct ir_value *x = T(0), *v;
	int64_t dim, axes[MAXR], one = 1;
	int r, k = 0, scalar;
	if (index_args(c, n, &x, NULL, &dim, &r, &scalar))
		return 1;
	struct ir_value *eq = b_cast(c, index_onehot(c, x, dim, T(2)),
				     IR_DTYPE_INT32);
	struct ir_value *m = b_reduce(c, "ReduceMax", eq, &one, 1, 0);
	m = b_cast(c, m, IR_DTYPE_BOOL);
	for (int i = 0; i < r; i++)
		if (i != dim)
			axes[k++] = i;
	if (k)
		m = b_unsqueeze(c, m, axes, k);
	if (n->inputs[3]->type->kind == IR_TYPE_TENSOR)
		v = b_cast(c, T(3), b_dtype(x));
	else
		v = lw_scalar_as(c, n, 3, b_dtype(x), 0);
	if (!v)
		return lw_decline(c, "value is not a number");
	out[0] = index_result(c, b_op3(c, "Where", m, v, x), scalar);
	return 0;
}

/* index (1-d over dim) shaped [1..K..1] at dim and expanded to src. */
static struct ir_value *expand_index(struct lower_ctx *c, struct ir_value *x,
				     int64_t dim, struct ir_value *idx,
				     struct ir_value *src, int r)
{
	int64_t shp[MAXR];
	for (int i = 0; i < r; i++)
		shp[i] = i == dim ? -1 : 1;
	idx = norm_index(c, idx, x, dim);
	idx = b_op2(c, "Reshape", idx, vec(c, shp, r));
	return b_op2(c, "Expand", idx, b_op1(c, "Shape", src));
}

static SYM(sym_x_index_copy)
{
	/* index_copy(self, dim, index, source) */
	struct ir_value *x = T(0), *src = T(3);
	int64_t dim;
	int r, scalar;
	if (index_args(c, n, &x, &src, &dim, &r, &scalar))
		return 1;
	src = b_cast(c, src, b_dtype(x));
	struct ir_value *idx = expand_index(c, x, dim, T(2), src, r);
	struct ir_node *s = b_node(c, c->opset >= 11 ? "ScatterElements"
				   : "Scatter", 3,
				   (struct ir_value *[]){ x, idx, src }, 1);
	b_attr_i(c, s, "axis", dim);
	out[0] = index_result(c, b_done(c, s), scalar);
	return 0;
}

/* index_add's source as self's shape with dim K long: torch 1.13 adds
 * source.select(dim, i) to self.select(dim, index[i]), broadcasting the
 * slice (a source [5, 1] into self [5, 4, 3] along dim 0).  The source's
 * dim moved to the front, ones inserted after it up to self's rank,
 * expanded to self's other dims and moved back; NULL where its rank is
 * unknown, above self's or without dim. */
static struct ir_value *index_add_source(struct lower_ctx *c,
					 struct ir_value *x,
					 struct ir_value *src, int64_t dim,
					 int r)
{
	int rs = b_rank(src), same = rs == r, j = 1;
	int64_t p[MAXR], ps[MAXR], inv[MAXR], axes[MAXR];
	for (int i = 0; i < r && same; i++)
		same = i == dim || (b_dim_size(src, i) >= 0 &&
				    b_dim_size(src, i) == b_dim_size(x, i));
	if (same)
		return src;
	if (rs < 1 || rs > r || dim >= rs)
		return NULL;
	p[0] = dim;
	for (int i = 0; i < r; i++)
		if (i != dim)
			p[j++] = i;
	for (int i = 0; i < r; i++)
		inv[p[i]] = i;
	ps[0] = dim;
	for (int i = 0, k = 1; i < rs; i++)
		if (i != dim)
			ps[k++] = i;
	struct ir_value *st = dim ? b_transpose(c, src, ps, rs) : src;
	for (int i = 0; i < r - rs; i++)
		axes[i] = i + 1;
	if (r > rs)
		st = b_unsqueeze(c, st, axes, r - rs);
	struct ir_value *xs = b_slice(c, b_op1(c, "Shape",
					       b_transpose(c, x, p, r)),
				      1, INT64_MAX, 0, 1);
	st = b_op2(c, "Expand", st, b_concat(c, 2, (struct ir_value *[]){
		dim1(c, src, dim), xs }, 0));
	return b_transpose(c, st, inv, r);
}

/* index_add(self, dim, index, source, alpha): dim moved to the front,
 * onehot[size, K] @ source[K, rest] added, moved back.  Exact with
 * repeated indices at every opset. */
static SYM(sym_x_index_add)
{
	struct ir_value *x = T(0), *src = T(3);
	int64_t dim, perm[MAXR], kz[2] = { 0, -1 };
	double alpha = 1;
	int r, scalar;
	enum ir_dtype dt = b_dtype(x);
	if (n->ninputs > 4 && !lw_float(c, n, 4, &alpha))
		return lw_decline(c, "alpha not constant");
	if (!b_is_float(dt) && dt != IR_DTYPE_INT32 && dt != IR_DTYPE_INT64)
		return lw_decline(c, "index_add of this dtype");
	/* a 0-d self: index_args makes both 1-d; else the source may
	 * broadcast along the other dims (index_add_source) */
	if (index_args(c, n, &x, b_rank(x) == 0 ? &src : NULL, &dim, &r,
		       &scalar))
		return 1;
	if (!scalar)
		src = index_add_source(c, x, src, dim, r);
	if (!src)
		return lw_decline(c, "source's rank unknown, above self's "
				  "or without dim");
	swap_perm(perm, r, 0, dim);
	struct ir_value *xt = dim ? b_transpose(c, x, perm, r) : x;
	struct ir_value *st = b_cast(c, src, dt);
	if (dim)
		st = b_transpose(c, st, perm, r);
	if (alpha != 1)
		st = b_op2(c, "Mul", st, b_const_scalar(c, alpha, dt, 0));
	struct ir_value *oh = b_cast(c, index_onehot(c, x, dim, T(2)), dt);
	st = b_op2(c, "Reshape", st, vec(c, kz, 2));
	struct ir_value *add = b_op2(c, "MatMul", oh, st);
	add = b_op2(c, "Reshape", add, b_op1(c, "Shape", xt));
	struct ir_value *y = b_op2(c, "Add", xt, add);
	out[0] = index_result(c, dim ? b_transpose(c, y, perm, r) : y, scalar);
	return 0;
}

/* Zeros of x's shape and dtype: ConstantOfShape of its shape (a constant
 * when static), NULL for a dtype ConstantOfShape cannot hold. */
static struct ir_value *zeros_of(struct lower_ctx *c, struct ir_value *x)
{
	enum ir_dtype dt = b_dtype(x);
	int64_t one = 1, dims[MAXR];
	int r = b_rank(x), fixed = r >= 0 && r <= MAXR;
	if (dt == IR_DTYPE_UNDEFINED || dt == IR_DTYPE_STRING)
		return NULL;
	for (int i = 0; fixed && i < r; i++) {
		fixed = x->type->dims[i].kind == IR_DIM_FIXED;
		dims[i] = x->type->dims[i].value;
	}
	struct ir_value *shape = fixed ? vec(c, dims, r)
				       : b_op1(c, "Shape", x);
	struct ir_tensor *t = ir_tensor_new(c->g, dt, 1, &one);
	t->bytes.len = ir_dtype_size(dt);
	t->bytes.data = ir_alloc(c->g, t->bytes.len); /* zeroed */
	struct ir_node *cn = b_node(c, "ConstantOfShape", 1, &shape, 1);
	ir_node_add_attr(c->g, cn, "value", IR_ATTR_TENSOR)->u.t = t;
	return b_done(c, cn);
}

/* src may be larger than index: its leading part, index's shape (Slice
 * with inputs: opset 10; idx's rank at most MAXR) */
static struct ir_value *src_part(struct lower_ctx *c, struct ir_value *src,
				 struct ir_value *idx)
{
	int64_t zeros[MAXR], ax[MAXR];
	int r = b_rank(idx);
	if (r <= 0)
		return src;
	for (int i = 0; i < r; i++) {
		zeros[i] = 0;
		ax[i] = i;
	}
	struct ir_value *in[4] = { src, vec(c, zeros, r),
				   b_op1(c, "Shape", idx), vec(c, ax, r) };
	return b_done(c, b_node(c, "Slice", 4, in, 1));
}

/* scatter's dim (input 1, constant), its index *idx as int64 and its src
 * *src in self x's dtype; 0, or 1 after declining. */
static int scatter_operands(struct lower_ctx *c, struct ir_node *n,
			    struct ir_value *x, struct ir_value **idx,
			    struct ir_value **src, int64_t *dim)
{
	if (!lw_int(c, n, 1, dim))
		return lw_decline(c, "dim not constant");
	*idx = b_cast(c, *idx, IR_DTYPE_INT64);
	*src = b_cast(c, *src, b_dtype(x));
	if (b_rank(*idx) > MAXR)
		return lw_decline(c, "rank too large");
	return 0;
}

/* ScatterElements of src (input 3, sliced to the index's shape: torch
 * lets it be larger) into self at index along dim, with reduction red
 * (add, mul: opset 16; max, min: 18). */
static int scatter_reduction(struct lower_ctx *c, struct ir_node *n,
			     struct ir_value **out, const char *red)
{
	struct ir_value *x = T(0), *idx = T(2), *src = T(3);
	int64_t dim;
	if (scatter_operands(c, n, x, &idx, &src, &dim))
		return 1;
	src = src_part(c, src, idx);
	struct ir_node *s = b_node(c, "ScatterElements", 3,
		(struct ir_value *[]){ x, idx, src }, 1);
	b_attr_i(c, s, "axis", dim);
	b_attr_s(c, s, "reduction", red);
	out[0] = b_done(c, s);
	return 0;
}

/* A reducing scatter: x with src (index's shape) reduced in at idx along
 * axis a, red one of sum prod mean amax amin, self included or not, as
 * torch's scatter_reduce.two (TensorAdvancedIndexing.cpp): positions no
 * index hits keep self; mean divides the sum by the count (self counting
 * once when included; floor division for integers).
 *
 * From opset 16 (sum, prod, mean) and 18 (amax, amin) ScatterElements
 * reduces (include_self=False: the hit positions set to the reduction's
 * identity first).  Below, an exact decomposition by one-hot: E = (idx ==
 * k) over k in [0, x.size(a)) on a new axis a+1; the src values where E
 * holds (the identity elsewhere) reduced over axis a; padded to x's shape,
 * combined with x where any index hit (from opset 11: Range, Pad with
 * inputs).  Its memory is idx.numel() * x.size(a) elements. */
enum sred { SR_SUM, SR_PROD, SR_MEAN, SR_AMAX, SR_AMIN };

/* the identity of reduction r in x's dtype, 0-d: +-inf for floats, src's
 * own extreme for integers (any src value is one for max and min over a
 * set that is not empty) */
static struct ir_value *sred_identity(struct lower_ctx *c, enum sred r,
				      enum ir_dtype dt, struct ir_value *src)
{
	if ((r == SR_AMAX || r == SR_AMIN) && !b_is_float(dt))
		return b_reduce(c, r == SR_AMAX ? "ReduceMin" : "ReduceMax",
				src, NULL, 0, 0);
	return b_const_scalar(c, r == SR_PROD ? 1 : r == SR_AMAX ? -INFINITY
			      : r == SR_AMIN ? INFINITY : 0, dt, 0);
}

/* a Max (Min: min) of a and b; integers below opset 12 by Where */
static struct ir_value *sred_max(struct lower_ctx *c, struct ir_value *a,
				 struct ir_value *b, int min)
{
	if (c->opset >= 12 || b_is_float(b_dtype(a)))
		return b_op2(c, min ? "Min" : "Max", a, b);
	return b_op3(c, "Where", b_op2(c, min ? "Less" : "Greater", a, b), a,
		     b);
}

/* x combined with the reduced red where hit; cnt the hits per position
 * (Long).  red holds self already when `added` (ScatterElements'
 * reductions); self counts in mean's divisor when `self`. */
static struct ir_value *sred_finish(struct lower_ctx *c, enum sred r,
				    int self, int added, struct ir_value *x,
				    struct ir_value *red,
				    struct ir_value *hit,
				    struct ir_value *cnt)
{
	enum ir_dtype dt = b_dtype(x);
	struct ir_value *y = red;
	if (self && !added)
		y = r == SR_AMAX || r == SR_AMIN
		    ? sred_max(c, x, red, r == SR_AMIN)
		    : b_op2(c, r == SR_PROD ? "Mul" : "Add", x, red);
	if (r == SR_MEAN) {
		struct ir_value *k = cnt, *one = b_const_i64(c, 1);
		if (self)
			k = b_op2(c, "Add", k, one);
		/* no hit: a count of 0, masked below; divide by 1 there */
		k = b_op3(c, "Where", b_op2(c, "Less", k, one), one, k);
		k = b_cast(c, k, dt);
		if (!b_is_float(dt)) {
			/* floor division: (y - y mod k) / k, k > 0 */
			struct ir_node *m = b_node(c, "Mod", 2,
				(struct ir_value *[]){ y, k }, 1);
			b_attr_i(c, m, "fmod", 0);
			y = b_op2(c, "Sub", y, b_done(c, m));
		}
		y = b_op2(c, "Div", y, k);
	}
	return b_op3(c, "Where", hit, y, x);
}

static struct ir_value *sred_native(struct lower_ctx *c, enum sred r,
				    int self, struct ir_value *x,
				    struct ir_value *idx, struct ir_value *src,
				    int64_t dim)
{
	static const char *const red[] = { "add", "mul", "add", "max",
					   "min" };
	enum ir_dtype dt = b_dtype(x);
	struct ir_value *zero = zeros_of(c, x), *ones, *hit, *cnt, *base = x;
	ones = sym_fill_shape(c, b_op1(c, "Shape", idx), 1, IR_DTYPE_INT64);
	/* the hits per position, Long */
	struct ir_node *s = b_node(c, "ScatterElements", 3,
		(struct ir_value *[]){ b_cast(c, zero, IR_DTYPE_INT64), idx,
				       ones }, 1);
	b_attr_i(c, s, "axis", dim);
	b_attr_s(c, s, "reduction", "add");
	cnt = b_done(c, s);
	hit = b_op2(c, "Greater", cnt, b_const_i64(c, 0));
	if (!self)
		base = b_op3(c, "Where", hit, sred_identity(c, r, dt, src),
			     x);
	s = b_node(c, "ScatterElements", 3,
		   (struct ir_value *[]){ base, idx, src }, 1);
	b_attr_i(c, s, "axis", dim);
	b_attr_s(c, s, "reduction", red[r]);
	struct ir_value *y = b_done(c, s);
	if (r != SR_MEAN)
		return y;
	return sred_finish(c, r, self, 1, x, y, hit, cnt);
}

static struct ir_value *sred_onehot(struct lower_ctx *c, enum sred r,
				    int self, struct ir_value *x,
				    struct ir_value *idx, struct ir_value *src,
				    int64_t a)
{
	static const char *const rop[] = { "ReduceSum", "ReduceProd",
		"ReduceSum", "ReduceMax", "ReduceMin" };
	int rank = b_rank(x);
	int64_t ax[MAXR + 1], k = 0, a1 = a + 1;
	enum ir_dtype dt = b_dtype(x);
	for (int i = 0; i <= rank; i++)
		if (i != a1)
			ax[k++] = i;
	struct ir_value *kk = sym_arange_count(c, b_dim(c, x, a));
	struct ir_value *ar = b_unsqueeze(c, kk, ax, rank);
	struct ir_value *e = b_op2(c, "Equal", b_unsqueeze(c, idx, &a1, 1),
				   ar);
	struct ir_value *v = b_op3(c, "Where", e, b_unsqueeze(c, src, &a1, 1),
				   sred_identity(c, r, dt, src));
	struct ir_value *red = b_reduce(c, rop[r], v, &a, 1, 0);
	struct ir_value *cnt = b_reduce(c, "ReduceSum",
					b_cast(c, e, IR_DTYPE_INT64), &a, 1,
					0);
	/* index's dims (but a) may be smaller than x's: pad at the ends */
	struct ir_value *pads = b_op2(c, "Sub", b_op1(c, "Shape", x),
				      b_op1(c, "Shape", cnt));
	pads = b_concat(c, 2, (struct ir_value *[]){
		b_op2(c, "Mul", pads, b_const_i64s(c, &(int64_t){ 0 }, 1, 1)),
		pads }, 0);
	red = b_op2(c, "Pad", red, pads);
	cnt = b_op2(c, "Pad", cnt, pads);
	struct ir_value *hit = b_op2(c, "Greater", cnt, b_const_i64(c, 0));
	return sred_finish(c, r, self, 0, x, red, hit, cnt);
}

/* x, idx, src through one of the two forms above; 0-d operands as [1] */
static int sred_lower(struct lower_ctx *c, struct ir_node *n,
		      struct ir_value **out, enum sred r, int self,
		      struct ir_value *x, struct ir_value *idx,
		      struct ir_value *src, int64_t dim)
{
	int rank = b_rank(x), zero_d = rank == 0;
	static const int64_t z = 0;
	/* idx's rank is unknown after index_reduce's Expand */
	if (rank < 0 || (b_rank(idx) >= 0 && b_rank(idx) != rank) ||
	    b_rank(src) != rank)
		return lw_decline(c, "ranks unknown or differ");
	if (b_dtype(x) == IR_DTYPE_UNDEFINED || b_dtype(x) == IR_DTYPE_BOOL)
		return lw_decline(c, "the input's dtype is unknown or bool");
	if (zero_d) {
		x = b_unsqueeze(c, x, &z, 1);
		idx = b_unsqueeze(c, idx, &z, 1);
		src = b_unsqueeze(c, src, &z, 1);
		rank = 1;
	}
	if (dim < 0)
		dim += rank;
	if (dim < 0 || dim >= rank)
		return lw_decline(c, "dim out of range");
	src = src_part(c, src, idx);
	struct ir_value *y;
	if (c->opset >= (r == SR_AMAX || r == SR_AMIN ? 18 : 16)) {
		y = sred_native(c, r, self, x, idx, src, dim);
	} else {
		if (c->opset < 11)
			return lw_decline(c, "needs opset 11 (Range, Pad); "
					  "ScatterElements reduces from 16 "
					  "(max, min: 18)");
		/* negative indices count from the end */
		struct ir_value *sz = b_op2(c, "Add", idx, b_dim(c, x, dim));
		idx = b_op3(c, "Where", b_op2(c, "Less", idx,
					      b_const_i64(c, 0)), sz, idx);
		y = sred_onehot(c, r, self, x, idx, src, dim);
	}
	out[0] = zero_d ? b_squeeze(c, y, &z, 1) : y;
	/* shaped as self (the one-hot form's Pad hides that from
	 * inference) */
	if (T(0)->type)
		out[0]->type = ir_type_copy(c->g, T(0)->type);
	return 0;
}

static int sred_of(const char *s, int index_form, enum sred *r)
{
	static const char *const names[] = { "sum", "prod", "mean", "amax",
					     "amin" };
	for (int i = index_form; s && i < 5; i++)
		if (!strcmp(s, names[i])) {
			*r = (enum sred)i;
			return 0;
		}
	return -1;
}

/* scatter_reduce(self, dim, index, src, reduce, include_self=True) */
static SYM(sym_x_scatter_reduce)
{
	struct ir_value *x = T(0), *idx = T(2), *src = T(3);
	int64_t self = 1, dim;
	enum sred r;
	if (sred_of(lw_str(c, n, 4), 0, &r))
		return lw_decline(c, "reduce not constant or unknown");
	if (n->ninputs > 5 && !lw_is_none(c, n, 5) && !lw_int(c, n, 5, &self))
		return lw_decline(c, "include_self not constant");
	if (scatter_operands(c, n, x, &idx, &src, &dim))
		return 1;
	return sred_lower(c, n, out, r, self != 0, x, idx, src, dim);
}

/* scatter_add(self, dim, index, src): ScatterElements reduction=add from
 * opset 16, the exact one-hot decomposition from 11 (torch's export, a
 * scatter onto zeros then added, adds a repeated index once); refused
 * below 11. */
static SYM(sym_x_scatter_add)
{
	struct ir_value *x = T(0), *idx = T(2), *src = T(3);
	int64_t dim;
	if (c->opset >= 16)
		return scatter_reduction(c, n, out, "add");
	if (c->opset < 11)
		return lw_decline(c, "needs opset 11 (a scatter onto zeros "
				  "adds a repeated index once; exact from 11, "
				  "ScatterElements' add from 16)");
	if (scatter_operands(c, n, x, &idx, &src, &dim))
		return 1;
	return sred_lower(c, n, out, SR_SUM, 1, x, idx, src, dim);
}

/* index_reduce(self, dim, index, source, reduce, include_self=True): the
 * 1-d index spread over source's shape along dim, then scatter_reduce */
static SYM(sym_x_index_reduce)
{
	struct ir_value *x = T(0), *idx = T(2), *src = T(3);
	int64_t self = 1, dim;
	enum sred r;
	int rank = b_rank(x);
	if (sred_of(lw_str(c, n, 4), 1, &r))
		return lw_decline(c, "reduce not constant or unknown");
	if (n->ninputs > 5 && !lw_is_none(c, n, 5) && !lw_int(c, n, 5, &self))
		return lw_decline(c, "include_self not constant");
	if (scatter_operands(c, n, x, &idx, &src, &dim))
		return 1;
	if (rank < 0 || b_rank(idx) > 1 || b_rank(src) != rank)
		return lw_decline(c, "ranks unknown or differ");
	if (rank > MAXR)
		return lw_decline(c, "rank too large");
	if (rank > 0) {
		int64_t sh[MAXR], d = dim < 0 ? dim + rank : dim;
		for (int i = 0; i < rank; i++)
			sh[i] = i == d ? -1 : 1;
		idx = b_op2(c, "Reshape", idx, vec(c, sh, rank));
		idx = b_op2(c, "Expand", idx, b_op1(c, "Shape", src));
	} else if (b_rank(idx) == 1) {
		static const int64_t z = 0;
		idx = b_squeeze(c, idx, &z, 1); /* one entry, 0-d self */
	}
	return sred_lower(c, n, out, r, self != 0, x, idx, src, dim);
}

/* index_put's index list: entries may be None (NULL here); count or -1 */
static int index_entries(struct lower_ctx *c, struct ir_node *n, int i,
			 struct ir_value **v, int max)
{
	struct ir_value *l = lw_in(c, n, i);
	struct ir_node *p = l ? l->producer : NULL;
	if (!p || p->op != OP_prim_ListConstruct)
		return lw_list(c, n, i, v, max);
	if (p->ninputs > (uint32_t)max)
		return -1;
	for (uint32_t j = 0; j < p->ninputs; j++) {
		v[j] = lw_is_none(c, p, (int)j) ? NULL : lw_tensor(c, p, (int)j);
		if (!v[j] && !lw_is_none(c, p, (int)j))
			return -1;
	}
	return (int)p->ninputs;
}

/* Shape(v)[from:to) (to INT64_MAX: the end) */
static struct ir_value *shape_part(struct lower_ctx *c, struct ir_value *v,
				   int64_t from, int64_t to)
{
	return b_slice(c, b_op1(c, "Shape", v), from, to, 0, 1);
}

/* ScatterND of upd into x at ind (reduction add when acc: opset 16) */
static struct ir_value *scatter_nd(struct lower_ctx *c, struct ir_value *x,
				   struct ir_value *ind, struct ir_value *upd,
				   int acc)
{
	struct ir_node *s = b_node(c, "ScatterND", 3,
		(struct ir_value *[]){ x, ind, upd }, 1);
	if (acc)
		b_attr_s(c, s, "reduction", "add");
	return b_done(c, s);
}

/* x2 [P, rest (nr dims)] with the rows upd2 [N, rest] added at the rows
 * pos [N] (in range), repeats adding up: scatter_reduce's one-hot form
 * along dim 0 (exact, for opsets without ScatterND's add) */
static struct ir_value *rows_add(struct lower_ctx *c, struct ir_value *x2,
				 struct ir_value *pos, struct ir_value *upd2,
				 int nr)
{
	int64_t dims[MAXR + 1];
	for (int i = 0; i <= nr; i++)
		dims[i] = i ? 1 : -1;
	struct ir_value *i2 = b_op2(c, "Expand",
		b_op2(c, "Reshape", pos, vec(c, dims, nr + 1)),
		b_op1(c, "Shape", upd2));
	return sred_onehot(c, SR_SUM, 1, x2, i2, upd2, 0);
}

/* put(self, index, source, accumulate=False): self as 1-d, the flat
 * index (negatives from the end) and source as 1-d, one ScatterND (from
 * 11; accumulate: its add from 16, rows_add below) */
static SYM(sym_x_put)
{
	struct ir_value *x = T(0), *idx = T(1), *src = T(2);
	int64_t acc = 0, last = 1;
	if (!x || !idx || !src || b_dtype(x) == IR_DTYPE_UNDEFINED)
		return lw_decline(c, "operands are not tensors");
	if (n->ninputs > 3 && !lw_is_none(c, n, 3) && !lw_int(c, n, 3, &acc))
		return lw_decline(c, "accumulate is not constant");
	if (c->opset < 11)
		return lw_decline(c, "put needs opset 11 (ScatterND)");
	struct ir_value *xf = flat(c, x);
	idx = flat(c, b_cast(c, idx, IR_DTYPE_INT64));
	idx = b_op3(c, "Where", b_op2(c, "Less", idx, b_const_i64(c, 0)),
		    b_op2(c, "Add", idx, b_dim(c, xf, 0)), idx);
	src = flat(c, b_cast(c, src, b_dtype(x)));
	struct ir_value *y = !acc || c->opset >= 16
		? scatter_nd(c, xf, b_unsqueeze(c, idx, &last, 1), src, acc)
		: rows_add(c, xf, idx, src, 0);
	y = b_op2(c, "Reshape", y, b_op1(c, "Shape", x));
	if (x->type)
		y->type = ir_type_copy(c->g, x->type);
	out[0] = y;
	return 0;
}

/* base with the slice at index idx (0-d) of dim d replaced by src
 * (broadcast to the slice): Where(arange(size) == idx, src, base). */
static struct ir_value *put_slice(struct lower_ctx *c, struct ir_value *base,
				  int64_t d, struct ir_value *idx,
				  struct ir_value *src)
{
	int r = b_rank(base), sr = b_rank(src);
	struct ir_value *range;
	int64_t axes[MAXR];
	int k = 0;

	if (r < 1 || r > MAXR || sr < 0 || d < 0 || d >= r || b_rank(idx) != 0)
		return NULL;
	if (sr > r - 1)
		return NULL;
	struct ir_dim dd = base->type->dims[d];
	if (dd.kind == IR_DIM_FIXED && dd.value <= 4096) {
		int64_t v[4096];
		for (int64_t i = 0; i < dd.value; i++)
			v[i] = i;
		range = b_const_i64s(c, v, (int)dd.value, 1);
	} else {
		range = sym_arange_count(c, b_dim(c, base, d));
	}
	if (!range)
		return NULL;
	struct ir_value *mask = b_op2(c, "Equal", range,
				      b_cast(c, idx, IR_DTYPE_INT64));
	for (int i = 0; i < r; i++)
		if (i != d)
			axes[k++] = i;
	if (k)
		mask = b_unsqueeze(c, mask, axes, k);
	src = b_cast(c, src, b_dtype(base));
	if (sr == r - 1 && sr > r - 1 - d)
		src = b_unsqueeze(c, src, &d, 1);
	else if (sr > r - 1 - d)
		return NULL;
	return b_op3(c, "Where", mask, src, base);
}

/* aten::index_put(self, indices, values, accumulate=False) and
 * _unsafe_index_put, as torch's advanced indexing: integer and bool (or
 * uint8: NonZero's rows) index tensors on any dims, None between; the
 * indexed dims are moved to the front (torch puts the broadcast index
 * dims first when the indexed dims are not adjacent, in their place when
 * they are), the indices broadcast and stacked for one ScatterND (from
 * opset 11).  accumulate: ScatterND's reduction add from 16; below, the
 * positions flattened over the indexed dims and summed by scatter_reduce's
 * one-hot decomposition (exact; from 11). */
SYM(sym_index_put)
{
	struct ir_value *x = T(0), *vals = T(2), *e[MAXR], *ix[MAXR];
	int64_t acc = 0, perm[MAXR], inv[MAXR];
	int k = index_entries(c, n, 1, e, MAXR), r = b_rank(x), d = 0, ns = 0,
	    nb = 0, first = -1, last = -1, moved = 0;
	if (!x || !vals || k < 0)
		return lw_decline(c, "operands are not tensors");
	if (n->ninputs > 3 && !lw_is_none(c, n, 3) && !lw_int(c, n, 3, &acc))
		return lw_decline(c, "accumulate is not constant");
	if (k == 1 && e[0] && b_rank(e[0]) == 0 && !acc &&
	    (b_dtype(e[0]) == IR_DTYPE_INT64 ||
	     b_dtype(e[0]) == IR_DTYPE_INT32)) {
		/* one 0-d index: a Where over dim 0 (every opset) */
		struct ir_value *y = put_slice(c, x, 0, e[0], vals);
		if (!y)
			return lw_decline(c, "ranks not known");
		out[0] = y;
		return 0;
	}
	if (c->opset < 11)
		return lw_decline(c, "index_put with a tensor index needs "
				  "opset 11 (ScatterND)");
	if (r < 0 || r > MAXR || b_dtype(x) == IR_DTYPE_UNDEFINED)
		return lw_decline(c, "the input's rank or dtype is unknown");
	/* ix[dim]: that dim's integer index (NULL: all of it) */
	for (int i = 0; i < k; i++) {
		enum ir_dtype it = e[i] ? b_dtype(e[i]) : IR_DTYPE_UNDEFINED;
		int er = e[i] ? b_rank(e[i]) : 0;
		if (!e[i]) {
			if (d >= r)
				return lw_decline(c, "too many indices");
			ix[d++] = NULL;
			continue;
		}
		if (er < 0)
			return lw_decline(c, "an index's rank is unknown");
		if (it == IR_DTYPE_BOOL || it == IR_DTYPE_UINT8) {
			/* NonZero's rows index er dims */
			struct ir_value *nz = b_op1(c, "NonZero",
				b_cast(c, e[i], IR_DTYPE_BOOL));
			if (d + er > r)
				return lw_decline(c, "too many indices");
			if (er == 0)
				return lw_decline(c, "a 0-d bool index");
			for (int j = 0; j < er; j++) {
				int64_t jj = j;
				struct ir_node *g = b_node(c, "Gather", 2,
					(struct ir_value *[]){ nz,
						b_const_i64(c, jj) }, 1);
				b_attr_i(c, g, "axis", 0);
				ix[d++] = b_done(c, g);
			}
			if (nb < 1)
				nb = 1;
			continue;
		}
		if (it != IR_DTYPE_INT64 && it != IR_DTYPE_INT32)
			return lw_decline(c, "index tensors must be integers "
					  "or bools");
		if (d >= r)
			return lw_decline(c, "too many indices");
		ix[d++] = b_cast(c, e[i], IR_DTYPE_INT64);
		if (er > nb)
			nb = er;
	}
	while (d < r)
		ix[d++] = NULL;
	for (int i = 0; i < r; i++)
		if (ix[i]) {
			if (first < 0)
				first = i;
			last = i;
			perm[ns++] = i;
		}
	if (!ns)
		return lw_decline(c, "no index tensor");
	int adjacent = last - first + 1 == ns;
	for (int i = 0, j = ns; i < r; i++)
		if (!ix[i])
			perm[j++] = i;
	for (int i = 0; i < r; i++) {
		inv[perm[i]] = i;
		moved |= perm[i] != i;
	}
	struct ir_value *xt = moved ? b_transpose(c, x, perm, r) : x;
	/* the indices: negatives from the end, broadcast, stacked */
	struct ir_value *bi[MAXR];
	for (int i = 0; i < ns; i++) {
		struct ir_value *v = ix[perm[i]];
		struct ir_value *sz = b_op2(c, "Add", v, b_dim(c, x, perm[i]));
		bi[i] = b_op3(c, "Where", b_op2(c, "Less", v,
						b_const_i64(c, 0)), sz, v);
	}
	struct ir_value *bs = bi[0];
	for (int i = 1; i < ns; i++)
		bs = b_op2(c, "Expand", bs, b_op1(c, "Shape", bi[i]));
	struct ir_value *bshape = b_op1(c, "Shape", bs);
	int64_t lastax = nb;
	for (int i = 0; i < ns; i++)
		bi[i] = b_unsqueeze(c, b_op2(c, "Expand", bi[i], bshape),
				    &lastax, 1);
	struct ir_value *ind = bi[0];
	if (ns > 1) {
		ind = b_concat(c, ns, bi, nb);
	}
	/* the values, broadcast to torch's result shape of x[indices], then
	 * with the broadcast dims first */
	struct ir_value *rest = shape_part(c, xt, ns, INT64_MAX), *upd;
	vals = b_cast(c, vals, b_dtype(x));
	if (adjacent && first > 0) {
		struct ir_value *parts[3] = { shape_part(c, x, 0, first),
			bshape, shape_part(c, x, last + 1, INT64_MAX) };
		int64_t vp[MAXR];
		int q = 0, vr = r - ns + nb;
		upd = b_op2(c, "Expand", vals, b_concat(c, 3, parts, 0));
		for (int i = 0; i < nb; i++)
			vp[q++] = first + i;
		for (int i = 0; i < vr; i++)
			if (i < first || i >= first + nb)
				vp[q++] = i;
		upd = b_transpose(c, upd, vp, vr);
	} else {
		struct ir_value *parts[2] = { bshape, rest };
		upd = b_op2(c, "Expand", vals, b_concat(c, 2, parts, 0));
	}
	struct ir_value *y;
	if (!acc || c->opset >= 16) {
		y = scatter_nd(c, xt, ind, upd, acc);
	} else {
		/* flat positions over the indexed dims */
		struct ir_value *pos = NULL, *m1 = vec1(c, -1);
		for (int i = 0; i < ns; i++) {
			struct ir_node *g = b_node(c, "Gather", 2,
				(struct ir_value *[]){ ind,
					b_const_i64(c, i) }, 1);
			b_attr_i(c, g, "axis", nb);
			struct ir_value *col = b_done(c, g);
			pos = pos ? b_op2(c, "Add", b_op2(c, "Mul", pos,
					 b_dim(c, xt, i)), col) : col;
		}
		struct ir_value *p2[2] = { m1, rest };
		struct ir_value *fshape = b_concat(c, 2, p2, 0);
		y = rows_add(c, b_op2(c, "Reshape", xt, fshape), pos,
			     b_op2(c, "Reshape", upd, fshape), r - ns);
		y = b_op2(c, "Reshape", y, b_op1(c, "Shape", xt));
	}
	if (moved)
		y = b_transpose(c, y, inv, r);
	if (x->type)
		y->type = ir_type_copy(c->g, x->type);
	out[0] = y;
	return 0;
}

static SYM(sym_x_take)
{
	struct ir_value *idx = b_cast(c, T(1), IR_DTYPE_INT64);
	struct ir_node *g = b_node(c, "Gather", 2,
		(struct ir_value *[]){ flat(c, T(0)), idx }, 1);
	b_attr_i(c, g, "axis", 0);
	out[0] = b_done(c, g);
	return 0;
}

/* The broadcast shape of vals[0..k). */
static struct ir_value *bcast_shape(struct lower_ctx *c,
				    struct ir_value **vals, int k)
{
	struct ir_value *acc = vals[0];
	for (int i = 1; i < k; i++)
		acc = b_op2(c, "Expand", acc, b_op1(c, "Shape", vals[i]));
	return b_op1(c, "Shape", acc);
}

static SYM(sym_x_broadcast_tensors)
{
	struct ir_value *v[256];
	int k = lw_list(c, n, 0, v, 256);
	if (k < 1)
		return lw_decline(c, "tensors not known");
	struct ir_value *s = bcast_shape(c, v, k);
	for (int i = 0; i < k; i++)
		v[i] = b_op2(c, "Expand", v[i], s);
	lw_set_list(c, n->outputs[0], v, k);
	out[0] = NULL;
	return 0;
}

/* isin(elements, test_elements, *, assume_unique=False, invert=False),
 * either a number: Equal of each element against every test element in
 * their promoted dtype (integers as Long, half as Float: the same
 * equalities), any over the test elements (a ReduceSum of the matches,
 * which an empty test set makes 0); assume_unique only chooses torch's
 * algorithm.  Bool refused as torch does.  From opset 11 (Equal of
 * floats). */
static SYM(sym_x_isin)
{
	enum ir_dtype dt = sym_result_type(c, n, 0, 1);
	int64_t inv = 0, m1 = -1;
	for (int i = 0; i < 2; i++) {
		int fl = 0;
		if (!lw_is_scalar(c, n, i, &fl) && (!IN(i) || b_dtype(IN(i)) == IR_DTYPE_BOOL))
			return lw_decline(c, "Unsupported input type encountered for isin(): Bool");
	}
	if (n->ninputs > 3 && !lw_int(c, n, 3, &inv))
		return lw_decline(c, "isin's invert must be a constant");
	if (dt == IR_DTYPE_BOOL || dt == IR_DTYPE_UNDEFINED ||
	    dt == IR_DTYPE_COMPLEX64 || dt == IR_DTYPE_COMPLEX128)
		return lw_decline(c, "isin of bool, complex or unknown dtypes");
	enum ir_dtype cd = b_is_float(dt) ? (dt == IR_DTYPE_DOUBLE ? dt : IR_DTYPE_FLOAT)
					  : IR_DTYPE_INT64;
	struct ir_value *a = sym_operand(c, n, 0, dt), *t = sym_operand(c, n, 1, dt);
	if (!a || !t || b_rank(a) < 0)
		return lw_decline(c, "isin's elements must be a tensor of known rank or a number");
	int64_t ax = b_rank(a);
	a = b_unsqueeze(c, b_cast(c, a, cd), &ax, 1);
	t = b_op2(c, "Reshape", b_cast(c, t, cd), vec(c, &m1, 1));
	struct ir_value *hits = b_reduce(c, "ReduceSum",
		b_cast(c, b_op2(c, "Equal", a, t), IR_DTYPE_FLOAT), &ax, 1, 0);
	out[0] = b_op2(c, inv ? "Equal" : "Greater", hits, b_const_scalar(c, 0, IR_DTYPE_FLOAT, 0));
	return 0;
}

static SYM(sym_x_meshgrid)
{
	struct ir_value *v[MAXR], *sz[MAXR], *res[MAXR];
	int64_t shp[MAXR];
	int k = lw_list(c, n, 0, v, MAXR), xy = 0;
	if (k < 1)
		return lw_decline(c, "tensors not known");
	if (n->ninputs > 1 && !lw_is_none(c, n, 1)) {
		const char *ix = lw_str(c, n, 1);
		if (!ix)
			return lw_decline(c, "indexing not constant");
		xy = !strcmp(ix, "xy");
	}
	if (xy && k >= 2) {
		struct ir_value *t = v[0];
		v[0] = v[1];
		v[1] = t;
	}
	for (int i = 0; i < k; i++) {
		v[i] = flat(c, v[i]);
		sz[i] = dim1(c, v[i], 0);
	}
	struct ir_value *full = sz[0];
	if (k > 1) {
		full = b_concat(c, k, sz, 0);
	}
	for (int i = 0; i < k; i++) {
		for (int j = 0; j < k; j++)
			shp[j] = i == j ? -1 : 1;
		res[i] = b_op2(c, "Expand",
			       b_op2(c, "Reshape", v[i], vec(c, shp, k)), full);
	}
	if (xy && k >= 2) {
		struct ir_value *t = res[0];
		res[0] = res[1];
		res[1] = t;
	}
	lw_set_list(c, n->outputs[0], res, k);
	out[0] = NULL;
	return 0;
}

/* cross(self, other, dim?) / linalg_cross(self, other, dim=-1). */
static int cross_common(struct lower_ctx *c, struct ir_node *n,
			struct ir_value **out, int linalg)
{
	struct ir_value *a = T(0), *b = T(1);
	int64_t dim = -1;
	int r = b_rank(a) > b_rank(b) ? b_rank(a) : b_rank(b);
	if (b_rank(a) < 0 || b_rank(b) < 0)
		return lw_decline(c, "input ranks unknown");
	if (n->ninputs > 2 && !lw_is_none(c, n, 2)) {
		if (!lw_int(c, n, 2, &dim))
			return lw_decline(c, "dim not constant");
	} else if (!linalg) {
		/* the first dim of size 3 */
		dim = -100;
		for (int i = 0; i < b_rank(a); i++)
			if (b_dim_size(a, i) == 3) {
				dim = i;
				break;
			}
		if (dim == -100)
			return lw_decline(c, "no dim known to be of size 3");
		dim += r - b_rank(a);
	}
	dim = nd(dim, r);
	if (dim < 0 || dim >= r)
		return lw_decline(c, "dim out of range");
	static const int64_t i1[3] = { 1, 2, 0 }, i2[3] = { 2, 0, 1 };
	struct ir_value *g[4];
	struct ir_value *srcs[4] = { a, a, b, b };
	for (int i = 0; i < 4; i++) {
		int64_t ax = dim - (r - b_rank(srcs[i]));
		if (ax < 0)
			return lw_decline(c, "broadcast over the cross dim");
		struct ir_node *gn = b_node(c, "Gather", 2,
			(struct ir_value *[]){ srcs[i],
					       vec(c, i % 2 ? i2 : i1, 3) }, 1);
		b_attr_i(c, gn, "axis", ax);
		g[i] = b_done(c, gn);
	}
	enum ir_dtype dt = lw_promote(b_dtype(a), b_dtype(b));
	for (int i = 0; i < 4; i++)
		g[i] = b_cast(c, g[i], dt);
	out[0] = b_op2(c, "Sub", b_op2(c, "Mul", g[0], g[3]),
		       b_op2(c, "Mul", g[1], g[2]));
	return 0;
}

static SYM(sym_x_cross) { return cross_common(c, n, out, 0); }
static SYM(sym_x_linalg_cross) { return cross_common(c, n, out, 1); }

SYM(sym_x_diagonal)
{
	/* diagonal(self, offset, dim1, dim2); also diag(self, diagonal) of a
	 * matrix (symbolic_long_tail.c): the inputs not given 0, 0, 1 */
	struct ir_value *x = T(0);
	int64_t off = 0, d1 = 0, d2 = 1, perm[MAXR], last = -1;
	int r = b_rank(x), k = 0;
	if ((n->ninputs > 1 && !lw_int(c, n, 1, &off)) ||
	    (n->ninputs > 2 && !lw_int(c, n, 2, &d1)) ||
	    (n->ninputs > 3 && !lw_int(c, n, 3, &d2)))
		return lw_decline(c, "offset or dims not constant");
	if (r < 2 || r > MAXR)
		return lw_decline(c, "input rank unknown or below 2");
	d1 = nd(d1, r);
	d2 = nd(d2, r);
	if (d1 < 0 || d2 < 0 || d1 >= r || d2 >= r || d1 == d2)
		return lw_decline(c, "dims out of range");
	for (int i = 0; i < r; i++)
		if (i != d1 && i != d2)
			perm[k++] = i;
	perm[k++] = d1;
	perm[k++] = d2;
	struct ir_value *xt = b_transpose(c, x, perm, r);
	int64_t n2 = b_dim_size(x, d2);
	struct ir_value *sq[2] = { dim1(c, x, d1), dim1(c, x, d2) };
	struct ir_value *shape2 = b_concat(c, 2, sq, 0);
	enum ir_dtype dt = b_dtype(x);
	struct ir_value *zeros = b_op1(c, "ConstantOfShape", shape2);
	struct ir_node *e = b_node(c, "EyeLike", 1, &zeros, 1);
	b_attr_i(c, e, "k", off);
	if (dt != IR_DTYPE_UNDEFINED && dt != IR_DTYPE_BOOL)
		b_attr_i(c, e, "dtype", dt);
	struct ir_value *eye = b_done(c, e);
	struct ir_value *s;
	if (dt == IR_DTYPE_BOOL) {
		s = b_cast(c, b_op2(c, "And", xt, b_cast(c, eye,
						       IR_DTYPE_BOOL)),
			   IR_DTYPE_INT32);
		s = b_cast(c, b_reduce(c, "ReduceMax", s, &last, 1, 0),
			   IR_DTYPE_BOOL);
	} else {
		s = b_reduce(c, "ReduceSum", b_op2(c, "Mul", xt, eye), &last,
			     1, 0);
	}
	int64_t st = off < 0 ? -off : 0;
	if (n2 >= 0) {
		int64_t en = n2 - off;
		if (en < st)
			en = st;
		out[0] = b_slice(c, s, st, en, r - 2, 1);
		return 0;
	}
	if (c->opset < 10)
		return lw_decline(c, "a diagonal of a dim of unknown size "
				  "needs opset 10");
	struct ir_value *en = b_op2(c, "Sub", dim1(c, x, d2), vec1(c, off));
	out[0] = dyn_slice(c, s, vec1(c, st), en, r - 2);
	return 0;
}

/* unfold(self, dim, size, step): Gather of the window indices
 * [n, size], the window axis moved last. */
static SYM(sym_x_unfold)
{
	struct ir_value *x = T(0), *idx;
	int64_t dim, size, step, perm[MAXR + 1];
	int r = b_rank(x);
	if (!lw_int(c, n, 1, &dim) || !lw_int(c, n, 2, &size) ||
	    !lw_int(c, n, 3, &step))
		return lw_decline(c, "dim, size or step not constant");
	if (r < 0 || r > MAXR - 1)
		return lw_decline(c, "input rank unknown");
	if (size < 0 || step < 1)
		return lw_decline(c, "size or step out of range");
	if (r == 0) {
		x = flat(c, x);
		r = 1;
	}
	dim = nd(dim, r);
	if (dim < 0 || dim >= r)
		return lw_decline(c, "dim out of range");
	int64_t len = b_dim_size(x, dim);
	if (len >= 0) {
		int64_t cnt = len >= size ? (len - size) / step + 1 : 0;
		if (cnt * size > 65536 || cnt == 0)
			return lw_decline(c, "too many or no windows");
		static int64_t v[65536];
		int64_t shp[2] = { cnt, size };
		for (int64_t i = 0; i < cnt; i++)
			for (int64_t j = 0; j < size; j++)
				v[i * size + j] = i * step + j;
		idx = b_op2(c, "Reshape", vec(c, v, (int)(cnt * size)),
			    vec(c, shp, 2));
	} else {
		int64_t one = 1, zero = 0;
		struct ir_value *cnt = b_op2(c, "Add",
			b_op2(c, "Div", b_op2(c, "Sub", b_dim(c, x, dim),
					       b_const_i64(c, size)),
			      b_const_i64(c, step)), b_const_i64(c, 1));
		struct ir_value *rows = sym_arange_count(c, cnt);
		struct ir_value *cols = sym_arange_count(c,
						b_const_i64(c, size));
		if (!rows || !cols)
			return lw_decline(c, "window count unknown");
		rows = b_op2(c, "Mul", rows, b_const_i64(c, step));
		idx = b_op2(c, "Add", b_unsqueeze(c, rows, &one, 1),
			    b_unsqueeze(c, cols, &zero, 1));
	}
	struct ir_node *g = b_node(c, "Gather", 2,
				   (struct ir_value *[]){ x, idx }, 1);
	b_attr_i(c, g, "axis", dim);
	struct ir_value *y = b_done(c, g);
	/* y: [.., cnt at dim, size at dim + 1, ..] -> size last */
	int k = 0;
	for (int i = 0; i <= r; i++)
		if (i != dim + 1)
			perm[k++] = i;
	perm[k++] = dim + 1;
	out[0] = dim + 1 == r ? y : b_transpose(c, y, perm, r + 1);
	return 0;
}

/* tensor_split(self, sections | indices, dim) with constants and a dim of
 * fixed size; sym_split_at() splits at the dim given (hsplit & co.). */
static SYM(sym_x_tensor_split)
{
	int64_t dim;
	if (!lw_int(c, n, 2, &dim))
		return lw_decline(c, "dim not constant");
	return sym_split_at(c, n, out, dim);
}

int sym_split_at(struct lower_ctx *c, struct ir_node *n,
		 struct ir_value **out, int64_t dim)
{
	struct ir_value *x = T(0), *parts[256];
	int64_t iv[256], sizes[256], sec;
	int k = 0, r = b_rank(x);
	dim = nd(dim, r);
	int64_t len = b_dim_size(x, dim);
	struct ir_value *iv1 = IN(1);
	if (dim >= 0 && iv1 && iv1->type->kind == IR_TYPE_TENSOR &&
	    b_rank(iv1) == 1 && !b_const_of(iv1) && c->opset >= 10) {
		/* indices only known at run time: python slices between */
		int64_t cnt = b_dim_size(iv1, 0);
		if (cnt < 0 || cnt > 255)
			return lw_decline(c, "indices of unknown count");
		struct ir_value *ix = b_cast(c, iv1, IR_DTYPE_INT64), *e[256];
		for (int64_t i = 0; i < cnt; i++)
			e[i] = b_slice(c, ix, i, i + 1, 0, 1);
		for (int64_t i = 0; i <= cnt; i++) {
			struct ir_value *st = i ? e[i - 1] : vec1(c, 0);
			struct ir_value *en = i < cnt ? e[i] : vec1(c, BIG);
			/* an end below the start: empty, as torch */
			parts[i] = dyn_slice(c, x, st, en, dim);
		}
		lw_set_list(c, n->outputs[0], parts, (int)cnt + 1);
		out[0] = NULL;
		return 0;
	}
	if (dim < 0 || len < 0)
		return lw_decline(c, "the dim has no fixed size");
	if (lw_int(c, n, 1, &sec) && (n->inputs[1]->type->kind == IR_TYPE_INT
				      || b_rank(IN(1)) == 0)) {
		if (sec < 1 || sec > 256)
			return lw_decline(c, "sections out of range");
		for (int64_t i = 0; i < sec; i++)
			sizes[k++] = len / sec + (i < len % sec);
	} else {
		int m = lw_ints(c, n, 1, iv, 255, 0);
		if (m < 0) {
			int64_t tmp[256];
			m = b_const_ints(IN(1), tmp, 255);
			if (m < 0 || b_rank(IN(1)) > 1)
				return lw_decline(c, "indices not constant");
			memcpy(iv, tmp, sizeof(*iv) * (size_t)m);
			if (b_rank(IN(1)) == 0) {
				sec = iv[0];
				if (sec < 1 || sec > 256)
					return lw_decline(c, "sections out "
							  "of range");
				for (int64_t i = 0; i < sec; i++)
					sizes[k++] = len / sec +
						     (i < len % sec);
				goto split;
			}
		}
		int64_t prev = 0;
		for (int i = 0; i <= m; i++) {
			int64_t e = i < m ? iv[i] : len;
			if (e < 0)
				e += len;
			if (e > len)
				e = len;
			if (e < prev)
				e = prev;
			sizes[k++] = e - prev;
			prev = e;
		}
	}
split:
	/* zero-sized parts: Split cannot make them before opset 13 */
	for (int i = 0; i < k; i++) {
		int64_t st = 0;
		for (int j = 0; j < i; j++)
			st += sizes[j];
		parts[i] = b_slice(c, x, st, st + sizes[i], dim, 1);
	}
	lw_set_list(c, n->outputs[0], parts, k);
	out[0] = NULL;
	return 0;
}

/* as_strided(self, size, stride, storage_offset) of a contiguous self: a
 * Gather of the flattened tensor at constant positions. */
static SYM(sym_x_as_strided)
{
	struct ir_value *x = T(0);
	int64_t size[MAXR], stride[MAXR], off = 0, total = 1;
	int k = lw_ints(c, n, 1, size, MAXR, 0);
	if (k < 0 || lw_ints(c, n, 2, stride, MAXR, 0) != k)
		return lw_decline(c, "size or stride not constant");
	if (n->ninputs > 3 && !lw_is_none(c, n, 3) && !lw_int(c, n, 3, &off))
		return lw_decline(c, "storage_offset not constant");
	for (int i = 0; i < k; i++) {
		if (size[i] < 0)
			return lw_decline(c, "negative size");
		total *= size[i];
		if (total > 65536)
			return lw_decline(c, "too many elements");
	}
	if (total == 0)
		return lw_decline(c, "an empty result");
	static int64_t v[65536];
	for (int64_t e = 0; e < total; e++) {
		int64_t rem = e, p = off;
		for (int i = k - 1; i >= 0; i--) {
			p += (rem % size[i]) * stride[i];
			rem /= size[i];
		}
		v[e] = p;
	}
	struct ir_value *idx = vec(c, v, (int)total);
	if (k != 1)
		idx = b_op2(c, "Reshape", idx, vec(c, size, k));
	struct ir_node *g = b_node(c, "Gather", 2,
				   (struct ir_value *[]){ flat(c, x), idx }, 1);
	b_attr_i(c, g, "axis", 0);
	out[0] = b_done(c, g);
	return 0;
}

/* searchsorted(sorted_sequence, self | scalar, out_int32, right, side,
 * sorter) and bucketize(self | scalar, boundaries, out_int32, right): the
 * index is the count of boundaries below the value (right: not above),
 * which is the binary search's answer on sorted boundaries (a NaN value
 * counts them all, as torch's search).  A 1-d sequence against every value,
 * an n-d one row by row ([..., K, 1] against [..., 1, M], summed over M).
 * sorter: the boundaries gathered in its order first (GatherElements,
 * opset 11). */
static SYM(sym_x_searchsorted)
{
	int bucket = n->op == OP_aten_bucketize;
	int is = bucket ? 1 : 0, iv = bucket ? 0 : 1;
	struct ir_value *seq = T(is), *v;
	int64_t out32 = 0, right = 0;
	const char *side = NULL;
	if (!seq || b_rank(seq) < 1 || b_dtype(seq) == IR_DTYPE_UNDEFINED)
		return lw_decline(c, "boundaries of unknown rank or dtype");
	if (n->inputs[iv]->type->kind == IR_TYPE_TENSOR)
		v = T(iv);
	else
		v = lw_scalar_as(c, n, iv, b_dtype(seq), 0);
	if (!v || b_rank(v) < 0 || b_dtype(v) == IR_DTYPE_UNDEFINED)
		return lw_decline(c, "values of unknown rank or dtype");
	if ((n->ninputs > 2 && !lw_is_none(c, n, 2) &&
	     !lw_int(c, n, 2, &out32)) ||
	    (n->ninputs > 3 && !lw_is_none(c, n, 3) &&
	     !lw_int(c, n, 3, &right)))
		return lw_decline(c, "out_int32 or right not constant");
	if (!bucket && n->ninputs > 4 && !lw_is_none(c, n, 4)) {
		if (!(side = lw_str(c, n, 4)))
			return lw_decline(c, "side not constant");
		right = !strcmp(side, "right");
	}
	int rs = b_rank(seq), rv = b_rank(v);
	if (!bucket && n->ninputs > 5 && !lw_is_none(c, n, 5)) {
		if (c->opset < 11)
			return lw_decline(c, "sorter needs opset 11 "
					  "(GatherElements)");
		struct ir_node *g = b_node(c, "GatherElements", 2,
			(struct ir_value *[]){ seq,
				b_cast(c, T(5), IR_DTYPE_INT64) }, 1);
		b_attr_i(c, g, "axis", rs - 1);
		seq = b_done(c, g);
	}
	if (rs > 1 && rv != rs)
		return lw_decline(c, "n-d boundaries need values of their rank");
	enum ir_dtype dt = lw_promote(b_dtype(seq), b_dtype(v));
	seq = b_cast(c, seq, dt);
	v = b_cast(c, v, dt);
	int64_t ax = rv, sx = rs - 1;
	struct ir_value *vu = b_unsqueeze(c, v, &ax, 1);
	if (rs > 1)
		seq = b_unsqueeze(c, seq, &sx, 1);
	/* torch's search steps right past b where !(b >= v) (right:
	 * !(b > v)): a NaN value goes past every boundary */
	struct ir_value *hit = b_op2(c, "Greater", seq, vu);
	if (!right)
		hit = b_op2(c, "Or", hit, b_op2(c, "Equal", seq, vu));
	hit = b_op1(c, "Not", hit);
	struct ir_value *y = b_reduce(c, "ReduceSum",
				      b_cast(c, hit, IR_DTYPE_INT64), &ax, 1,
				      0);
	out[0] = b_cast(c, y, out32 ? IR_DTYPE_INT32 : IR_DTYPE_INT64);
	return 0;
}

/* unique_consecutive(self, return_inverse, return_counts, dim=None): the
 * runs of equal neighbours (NaNs all differ, as torch).  A run starts
 * where an element differs from the one before (the first always):
 * values = Compress(x, starts), inverse = CumSum(starts) - 1, counts =
 * the distances between NonZero(starts) and the next start (the last to
 * the length).  dim=None: over the flattened tensor, the inverse in x's
 * shape, an output not asked for empty (as torch); a dim: slices along it
 * (moved first, the rest flattened: a slice differs where any element
 * does), inverse and counts always.  From opset 11 (Range, CumSum). */
static SYM(sym_x_unique_consecutive)
{
	struct ir_value *x = T(0);
	int64_t inv = 0, cnt = 0, dim = 0, zero = 0, one = 1;
	int r = b_rank(x), has_dim = n->ninputs > 3 && !lw_is_none(c, n, 3);
	if (r < 0 || r > MAXR)
		return lw_decline(c, "the input's rank is unknown");
	if ((n->ninputs > 1 && !lw_is_none(c, n, 1) && !lw_int(c, n, 1, &inv))
	    || (n->ninputs > 2 && !lw_is_none(c, n, 2) &&
		!lw_int(c, n, 2, &cnt)))
		return lw_decline(c, "return_inverse or return_counts not "
				  "constant");
	if (has_dim && !lw_int(c, n, 3, &dim))
		return lw_decline(c, "dim not constant");
	struct ir_value *xt = x, *x2;
	int64_t perm[MAXR], invp[MAXR];
	if (has_dim) {
		if (r == 0)
			return lw_decline(c, "a dim of a 0-d tensor");
		if (dim < 0)
			dim += r;
		if (dim < 0 || dim >= r)
			return lw_decline(c, "dim out of range");
		perm[0] = dim;
		for (int i = 0, j = 1; i < r; i++)
			if (i != dim)
				perm[j++] = i;
		for (int i = 0; i < r; i++)
			invp[perm[i]] = i;
		if (dim)
			xt = b_transpose(c, x, perm, r);
		int64_t sh[2] = { 0, -1 };
		x2 = b_op2(c, "Reshape", xt, vec(c, sh, 2));
	} else {
		x2 = b_op2(c, "Reshape", x, vec(c, (int64_t[]){ -1, 1 }, 2));
	}
	/* x2 [N, R]: prev = x2 shifted down one row (row 0 itself) */
	struct ir_value *nn = b_dim(c, x2, 0);
	struct ir_value *prev;
	{
		prev = b_concat(c, 2, (struct ir_value *[]){
			b_slice(c, x2, 0, 1, 0, 1),
			b_slice(c, x2, 0, -1, 0, 1) }, 0);
	}
	struct ir_value *ne = b_op1(c, "Not", b_op2(c, "Equal", x2, prev));
	/* a row differs where any element does (R 0: never) */
	struct ir_value *rowne = b_op2(c, "Greater",
		b_reduce(c, "ReduceMax", b_cast(c, ne, IR_DTYPE_INT32), &one, 1,
			 0), b_const_scalar(c, 0, IR_DTYPE_INT32, 0));
	struct ir_value *ar = sym_arange_count(c, nn);
	struct ir_value *starts = b_op2(c, "Or", rowne,
		b_op2(c, "Equal", ar, b_const_i64(c, 0)));
	struct ir_node *cp = b_node(c, "Compress", 2,
				    (struct ir_value *[]){ has_dim ? xt : flat(c, x),
							   starts }, 1);
	b_attr_i(c, cp, "axis", 0);
	struct ir_value *vals = b_done(c, cp);
	if (has_dim && dim)
		vals = b_transpose(c, vals, invp, r);
	out[0] = vals;
	struct ir_value *empty = NULL;
	if (n->noutputs > 1 && (inv || has_dim)) {
		struct ir_value *cs = b_op2(c, "CumSum",
			b_cast(c, starts, IR_DTYPE_INT64), b_const_i64(c, 0));
		cs = b_op2(c, "Sub", cs, b_const_i64(c, 1));
		out[1] = has_dim || r == 1 ? cs
			 : b_op2(c, "Reshape", cs, b_op1(c, "Shape", x));
	} else if (n->noutputs > 1) {
		empty = sym_fill_shape(c, vec1(c, 0), 0, IR_DTYPE_INT64);
		out[1] = empty;
	}
	if (n->noutputs > 2 && (cnt || has_dim)) {
		struct ir_value *at = b_squeeze(c, b_op1(c, "NonZero", starts),
						&zero, 1);
		struct ir_value *cc = b_concat(c, 2, (struct ir_value *[]){
			b_slice(c, at, 1, INT64_MAX, 0, 1),
			b_unsqueeze(c, nn, &zero, 1) }, 0);
		out[2] = b_op2(c, "Sub", cc, at);
	} else if (n->noutputs > 2) {
		out[2] = empty ? empty
			 : sym_fill_shape(c, vec1(c, 0), 0, IR_DTYPE_INT64);
	}
	return 0;
}

/* Unique (opset 11): outputs Y, indices, inverse, counts. */
static struct ir_node *unique_node(struct lower_ctx *c, struct ir_value *x,
				   int64_t sorted, int has_axis, int64_t axis)
{
	struct ir_node *u = b_node(c, "Unique", 1, &x, 4);
	b_attr_i(c, u, "sorted", sorted ? 1 : 0);
	if (has_axis)
		b_attr_i(c, u, "axis", axis);
	b_done(c, u);
	return u;
}

static SYM(sym_x_unique)
{
	/* _unique(self, sorted, return_inverse) -> (out, inverse);
	 * _unique2(self, sorted, return_inverse, return_counts) -> 3 */
	struct ir_value *x = T(0);
	int64_t sorted = 1;
	if (c->opset < 11)
		return lw_decline(c, "needs opset 11 (Unique)");
	if (!lw_int(c, n, 1, &sorted))
		return lw_decline(c, "sorted not constant");
	struct ir_node *u = unique_node(c, x, sorted, 0, 0);
	out[0] = u->outputs[0];
	/* inverse_indices has x's shape (Unique's are flat) */
	out[1] = b_rank(x) == 1 ? u->outputs[2] :
		 b_op2(c, "Reshape", u->outputs[2], b_op1(c, "Shape", x));
	if (n->noutputs > 2)
		out[2] = u->outputs[3];
	return 0;
}

static SYM(sym_x_unique_dim)
{
	/* unique_dim(self, dim, sorted, return_inverse, return_counts) */
	struct ir_value *x = T(0);
	int64_t dim, sorted = 1;
	if (c->opset < 11)
		return lw_decline(c, "needs opset 11 (Unique)");
	if (!lw_int(c, n, 1, &dim) || !lw_int(c, n, 2, &sorted))
		return lw_decline(c, "dim or sorted not constant");
	struct ir_node *u = unique_node(c, x, sorted, 1, dim);
	out[0] = u->outputs[0];
	out[1] = u->outputs[2];
	out[2] = u->outputs[3];
	return 0;
}

/* unflatten(self, dim, sizes): Reshape to shape[:dim] + sizes +
 * shape[dim+1:], as torch's exporter (symbolic_opset13.py, unflatten; the
 * Slices of Shape fold away when the dims are fixed). */
static SYM(sym_x_unflatten)
{
	struct ir_value *x = T(0), *sizes = T(2), *parts[3];
	int64_t dim;
	int r = b_rank(x), k = 0;
	if (r < 1)
		return lw_decline(c, "input rank unknown");
	if (!lw_int(c, n, 1, &dim))
		return lw_decline(c, "dim not constant");
	dim = nd(dim, r);
	if (dim < 0 || dim >= r || !sizes || b_rank(sizes) != 1)
		return lw_decline(c, "dim out of range or sizes not a list");
	struct ir_value *shape = b_op1(c, "Shape", x);
	if (dim > 0)
		parts[k++] = b_slice(c, shape, 0, dim, 0, 1);
	parts[k++] = b_cast(c, sizes, IR_DTYPE_INT64);
	if (dim + 1 < r)
		parts[k++] = b_slice(c, shape, dim + 1, BIG, 0, 1);
	struct ir_value *cat = b_concat(c, k, parts, 0);
	out[0] = b_op2(c, "Reshape", x, cat);
	return 0;
}

static const struct symbolic entries[] = {
	{ OP_aten__reshape_from_tensor, 0, 0, SYM_PRIO_BASE, sym_x_reshape_from_tensor },
	{ OP_aten__shape_as_tensor, 0, 0, SYM_PRIO_BASE, sym_x_shape_as_tensor },
	{ OP_aten__unique, 11, 0, SYM_PRIO_BASE, sym_x_unique },
	{ OP_aten__unique2, 11, 0, SYM_PRIO_BASE, sym_x_unique },
	{ OP_aten_argsort, 0, 0, SYM_PRIO_BASE, sym_x_argsort },
	{ OP_aten_as_strided, 0, 0, SYM_PRIO_BASE, sym_x_as_strided },
	{ OP_aten_as_strided_copy, 0, 0, SYM_PRIO_BASE, sym_x_as_strided },
	{ OP_aten_broadcast_tensors, 0, 0, SYM_PRIO_BASE, sym_x_broadcast_tensors },
	{ OP_aten_cross, 0, 0, SYM_PRIO_BASE, sym_x_cross },
	{ OP_aten_diagonal, 0, 0, SYM_PRIO_BASE, sym_x_diagonal },
	{ OP_aten_index_add, 0, 0, SYM_PRIO_BASE, sym_x_index_add },
	{ OP_aten_index_copy, 0, 0, SYM_PRIO_BASE, sym_x_index_copy },
	{ OP_aten_index_fill, 9, 0, SYM_PRIO_BASE, sym_x_index_fill },
	{ OP_aten_linalg_cross, 0, 0, SYM_PRIO_BASE, sym_x_linalg_cross },
	{ OP_aten_masked_scatter, 0, 0, SYM_PRIO_BASE, sym_x_masked_scatter },
	{ OP_aten_masked_select, 9, 0, SYM_PRIO_BASE, sym_x_masked_select },
	{ OP_aten_isin, 11, 0, SYM_PRIO_BASE, sym_x_isin },
	{ OP_aten_meshgrid, 0, 0, SYM_PRIO_BASE, sym_x_meshgrid },
	{ OP_aten_movedim, 0, 0, SYM_PRIO_BASE, sym_x_movedim },
	{ OP_aten_narrow, 0, 0, SYM_PRIO_BASE, sym_x_narrow },
	{ OP_aten_nonzero, 9, 0, SYM_PRIO_BASE, sym_x_nonzero },
	{ OP_aten_argwhere, 9, 0, SYM_PRIO_BASE, sym_x_nonzero },
	{ OP_aten_nonzero_numpy, 9, 0, SYM_PRIO_BASE, sym_x_nonzero_numpy },
	{ OP_aten_numpy_T, 0, 0, SYM_PRIO_BASE, sym_x_numpy_T },
	{ OP_aten_one_hot, 9, 0, SYM_PRIO_BASE, sym_x_one_hot },
	{ OP_aten_repeat_interleave, 0, 0, SYM_PRIO_BASE, sym_x_repeat_interleave },
	{ OP_aten_reshape_as, 0, 0, SYM_PRIO_BASE, sym_x_reshape_as },
	{ OP_aten_roll, 0, 0, SYM_PRIO_BASE, sym_x_roll },
	{ OP_aten_scatter_add, 0, 0, SYM_PRIO_BASE, sym_x_scatter_add },
	{ OP_aten_scatter_reduce, 0, 0, SYM_PRIO_BASE, sym_x_scatter_reduce },
	{ OP_aten_index_reduce, 0, 0, SYM_PRIO_BASE, sym_x_index_reduce },
	{ OP_aten_put, 0, 0, SYM_PRIO_BASE, sym_x_put },
	{ OP_aten_sort, 0, 0, SYM_PRIO_BASE, sym_x_sort },
	{ OP_aten_take, 0, 0, SYM_PRIO_BASE, sym_x_take },
	{ OP_aten_tensor_split, 0, 0, SYM_PRIO_BASE, sym_x_tensor_split },
	{ OP_aten_unflatten, 0, 0, SYM_PRIO_BASE, sym_x_unflatten },
	{ OP_aten_unfold, 0, 0, SYM_PRIO_BASE, sym_x_unfold },
	{ OP_aten_unique_dim, 11, 0, SYM_PRIO_BASE, sym_x_unique_dim },
	{ OP_aten_unique_consecutive, 11, 0, SYM_PRIO_BASE,
	  sym_x_unique_consecutive },
	{ OP_aten_searchsorted, 9, 0, SYM_PRIO_BASE, sym_x_searchsorted },
	{ OP_aten_bucketize, 9, 0, SYM_PRIO_BASE, sym_x_searchsorted },
	{ OP_aten_unsafe_chunk, 0, 0, SYM_PRIO_BASE, sym_chunk },
	{ OP_aten_unsafe_split, 0, 0, SYM_PRIO_BASE, sym_split },
	{ OP_aten_unsafe_split_with_sizes, 0, 0, SYM_PRIO_BASE, sym_split },
	{ OP_aten_view_as, 0, 0, SYM_PRIO_BASE, sym_x_reshape_as },
};

const struct symbolic_table symbolic_extra_shape_table = {
	entries, sizeof(entries) / sizeof(entries[0]),
};

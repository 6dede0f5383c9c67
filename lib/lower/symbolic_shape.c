/*
 * symbolic_shape.c - symbolic functions for shapes, indexing, reductions,
 * tensor creation and dtype conversion (torch's symbolic_opset9.py and
 * later), shared by the per-opset tables.  Shapes that are known are used
 * as constants; unknown dims go through Shape/Gather where ONNX allows.
 */
#include <math.h>
#include <string.h>

#include "symbolic_common.h"

#define IN(i) lw_in(c, n, (i))
#define T(i) lw_tensor(c, n, (i))
#define BIG INT64_MAX

static int fill(struct lower_ctx *c, struct ir_value *shape, double v,
		enum ir_dtype dt, struct ir_value **out);

/* 0, 1, ..., cnt - 1 (cnt a 0-d number >= 0) as a 1-d Long, without
 * Range (opset 9, as torch's opset-9 arange): NonZero of ones. */
static struct ir_value *range_count(struct lower_ctx *c, struct ir_value *cnt)
{
	int64_t zero = 0;
	struct ir_value *ones;
	cnt = b_unsqueeze(c, b_cast(c, cnt, IR_DTYPE_INT64), &zero, 1);
	if (fill(c, cnt, 1, IR_DTYPE_INT64, &ones))
		return NULL;
	return b_squeeze(c, b_op1(c, "NonZero", ones), &zero, 1);
}

struct ir_value *sym_arange_count(struct lower_ctx *c, struct ir_value *cnt)
{
	if (c->opset >= 11) {
		cnt = b_cast(c, cnt, IR_DTYPE_INT64);
		return b_op3(c, "Range", b_const_i64(c, 0), cnt,
			     b_const_i64(c, 1));
	}
	return range_count(c, cnt);
}

static int64_t nd(int64_t d, int rank)
{
	return d < 0 && rank >= 0 ? d + rank : d;
}

SYM(sym_flatten)
{
	struct ir_value *x = T(0);
	int64_t s, e;
	int r = b_rank(x);
	if (!lw_int(c, n, 1, &s) || !lw_int(c, n, 2, &e))
		return lw_decline(c, "start_dim or end_dim not constant");
	if (r < 0)
		return lw_decline(c, "input rank unknown");
	if (r == 0) {
		int64_t one = 1;
		out[0] = b_op2(c, "Reshape", x, b_const_i64s(c, &one, 1, 1));
		return 0;
	}
	s = nd(s, r);
	e = nd(e, r);
	if (s < 0 || e < s || e >= r)
		return lw_decline(c, "dims out of range");
	if (s == 1 && e == r - 1) {
		struct ir_node *f = b_node(c, "Flatten", 1, &x, 1);
		b_attr_i(c, f, "axis", 1);
		out[0] = b_done(c, f);
		return 0;
	}
	int64_t shp[64];
	int k = 0;
	for (int i = 0; i < s; i++)
		shp[k++] = 0;
	shp[k++] = -1;
	for (int i = (int)e + 1; i < r; i++) {
		if (x->type->dims[i].kind != IR_DIM_FIXED)
			return lw_decline(c, "trailing dims unknown");
		shp[k++] = x->type->dims[i].value;
	}
	out[0] = b_op2(c, "Reshape", x, b_const_i64s(c, shp, k, 1));
	return 0;
}

SYM(sym_view)
{
	struct ir_value *shape;
	if (n->op == OP_aten_view && n->ninputs == 2 &&
	    n->inputs[1] && n->inputs[1]->type->kind == IR_TYPE_INT) {
		/* view.dtype (a bare ScalarType): a reinterpretation of the
		 * bytes, which ONNX has no op for unless nothing changes */
		int64_t st;
		struct ir_value *x = T(0);
		if (!lw_int(c, n, 1, &st))
			return lw_decline(c, "view to a dtype that is not "
					  "constant");
		if (lw_torch_dtype(st) == IR_DTYPE_UNDEFINED ||
		    lw_torch_dtype(st) != b_dtype(x))
			return lw_decline(c, "view as another dtype (a bitcast) "
					  "has no ONNX op");
		out[0] = b_op1(c, "Identity", x);
		return 0;
	}
	shape = T(1);
	if (!shape)
		return lw_decline(c, "size is not a list of ints");
	/* torch's 0 is a size, ONNX's a copy of the input's dim: constant
	 * sizes with a 0 (an empty result) get allowzero from opset 14;
	 * below, stay where each 0 copies a 0, else the empty result is
	 * made at its size */
	int64_t sz[64], zero = 0, ok = 1;
	struct ir_value *x = T(0);
	int k = lw_ints(c, n, 1, sz, 64, 0), r = b_rank(x);
	for (int i = 0; i < k; i++) {
		if (sz[i] != 0)
			continue;
		zero = 1;
		ok &= i < r && b_dim_size(x, i) == 0;
	}
	if (zero && c->opset >= 14 && b_dtype(x) != IR_DTYPE_UNDEFINED) {
		struct ir_node *rs = b_node(c, "Reshape", 2, (struct ir_value *[]){
			x, b_const_i64s(c, sz, k, 1) }, 1);
		b_attr_i(c, rs, "allowzero", 1);
		out[0] = b_done(c, rs);
		/* its size is sz (torch takes no -1 beside a 0 size) */
		out[0]->type = ir_type_tensor(c->g, b_dtype(x), k, sz);
		return 0;
	}
	if (zero && !ok) {
		for (int i = 0; i < k; i++)
			if (sz[i] < 0)
				return lw_decline(c, "a -1 beside a 0 size");
		out[0] = sym_fill_shape(c, b_const_i64s(c, sz, k, 1), 0,
					b_dtype(x));
		return 0;
	}
	out[0] = b_op2(c, "Reshape", x, b_cast(c, shape, IR_DTYPE_INT64));
	return 0;
}

SYM(sym_permute)
{
	int64_t p[64];
	struct ir_value *x = T(0);
	int k = lw_ints(c, n, 1, p, 64, 0);
	if (k < 0)
		return lw_decline(c, "dims are not constant");
	for (int i = 0; i < k; i++) {
		p[i] = nd(p[i], k);
		if (p[i] < 0 || p[i] >= k)
			return lw_decline(c, "dims out of range");
	}
	out[0] = b_transpose(c, x, p, k);
	return 0;
}

SYM(sym_transpose)
{
	int64_t a, b, p[64];
	struct ir_value *x = T(0);
	int r = b_rank(x);
	if (!lw_int(c, n, 1, &a) || !lw_int(c, n, 2, &b))
		return lw_decline(c, "dims are not constant");
	if (r < 0 || r > 64)
		return lw_decline(c, "input rank unknown");
	if (r == 0 && (a == 0 || a == -1) && (b == 0 || b == -1)) {
		out[0] = x;	/* torch: dims 0 and -1 of a 0-d are itself */
		return 0;
	}
	a = nd(a, r);
	b = nd(b, r);
	if (a < 0 || b < 0 || a >= r || b >= r)
		return lw_decline(c, "dims out of range");
	if (a == b) {
		out[0] = x;
		return 0;
	}
	for (int i = 0; i < r; i++)
		p[i] = i;
	p[a] = b;
	p[b] = a;
	out[0] = b_transpose(c, x, p, r);
	return 0;
}

SYM(sym_t)
{
	struct ir_value *x = T(0);
	static const int64_t p[2] = { 1, 0 };
	if (b_rank(x) < 0)
		return lw_decline(c, "input rank unknown");
	out[0] = b_rank(x) < 2 ? x : b_transpose(c, x, p, 2);
	return 0;
}

/* cat / stack of a sequence: ConcatFromSequence (opset 11). */
static int concat_seq(struct lower_ctx *c, struct ir_node *n,
		      struct ir_value **out, int new_axis)
{
	int64_t dim;
	struct ir_value *s = IN(0);
	if (!b_is_seq(s))
		return lw_decline(c, "tensors or dim not known");
	if (!lw_int(c, n, 1, &dim))
		return lw_decline(c, "dim is not constant");
	struct ir_node *cn = b_node(c, "ConcatFromSequence", 1, &s, 1);
	b_attr_i(c, cn, "axis", dim);
	if (new_axis)
		b_attr_i(c, cn, "new_axis", 1);
	out[0] = b_done(c, cn);
	return 0;
}

SYM(sym_cat)
{
	struct ir_value *v[256];
	int64_t dim;
	if (b_is_seq(IN(0)))
		return concat_seq(c, n, out, 0);
	int k = lw_list(c, n, 0, v, 256);
	if (k < 1 || !lw_int(c, n, 1, &dim))
		return lw_decline(c, "tensors or dim not known");
	int r = -1;
	for (int i = 0; i < k; i++)
		if (b_rank(v[i]) > r)
			r = b_rank(v[i]);
	dim = nd(dim, r);
	if (dim < 0)
		return lw_decline(c, "negative dim with unknown rank");
	out[0] = b_concat(c, k, v, dim);
	return 0;
}

SYM(sym_stack)
{
	struct ir_value *v[256];
	int64_t dim;
	if (b_is_seq(IN(0)))
		return concat_seq(c, n, out, 1);
	int k = lw_list(c, n, 0, v, 256);
	if (k < 1 || !lw_int(c, n, 1, &dim))
		return lw_decline(c, "tensors or dim not known");
	int r = b_rank(v[0]);
	if (dim < 0) {
		if (r < 0)
			return lw_decline(c, "negative dim with unknown rank");
		dim += r + 1;
	}
	for (int i = 0; i < k; i++)
		v[i] = b_unsqueeze(c, v[i], &dim, 1);
	out[0] = b_concat(c, k, v, dim);
	return 0;
}

static int split_out(struct lower_ctx *c, struct ir_node *n,
		     struct ir_value **out, struct ir_value *x, int64_t dim,
		     const int64_t *sizes, int k)
{
	struct ir_value *parts[256];
	b_split(c, x, dim, sizes, k, parts);
	lw_set_list(c, n->outputs[0], parts, k);
	out[0] = NULL;
	return 0;
}

SYM(sym_chunk)
{
	struct ir_value *x = T(0);
	int64_t chunks, dim, sizes[256];
	if (!lw_int(c, n, 1, &chunks) || !lw_int(c, n, 2, &dim))
		return lw_decline(c, "chunks or dim not constant");
	int64_t len = b_dim_size(x, dim);
	if (chunks < 1 || chunks > 256)
		return lw_decline(c, "chunks out of range");
	if (len < 0) {
		/* equal parts: right when divisible, a runtime error if not */
		if (b_rank(x) < 0 && dim < 0)
			return lw_decline(c, "negative dim with unknown rank");
		return split_out(c, n, out, x, nd(dim, b_rank(x)), NULL,
				 (int)chunks);
	}
	int64_t each = (len + chunks - 1) / chunks;
	int k = 0;
	for (int64_t left = len; left > 0 && k < 256; left -= each)
		sizes[k++] = left < each ? left : each;
	return split_out(c, n, out, x, nd(dim, b_rank(x)), sizes, k);
}

SYM(sym_split)
{
	/* split.Tensor(self, int split_size, dim) or split_with_sizes */
	struct ir_value *x = T(0);
	int64_t dim, sizes[256], ss;
	if (!lw_int(c, n, 2, &dim))
		return lw_decline(c, "dim is not constant");
	dim = nd(dim, b_rank(x));
	if (IN(1)->type->kind == IR_TYPE_INT || b_rank(IN(1)) == 0) {
		int64_t len = b_dim_size(x, dim);
		if (len < 0 && dim >= 0 && c->opset >= 11) {
			/* the count of pieces is not known: a sequence */
			struct ir_value *sz = lw_scalar_as(c, n, 1,
							   IR_DTYPE_INT64, 0);
			if (!sz)
				return lw_decline(c, "split size unknown");
			struct ir_node *sn = b_node(c, "SplitToSequence", 2,
				(struct ir_value *[]){ x, sz }, 1);
			b_attr_i(c, sn, "axis", dim);
			out[0] = b_done(c, sn);
			return 0;
		}
		if (!lw_int(c, n, 1, &ss) || len < 0 || ss < 1)
			return lw_decline(c, len < 0 && c->opset < 11
					  ? "a split of a dim of unknown size "
					    "needs ONNX sequences (opset 11)"
					  : "split size or dim size unknown");
		int k = 0;
		for (int64_t left = len; left > 0 && k < 256; left -= ss)
			sizes[k++] = left < ss ? left : ss;
		return split_out(c, n, out, x, dim, sizes, k);
	}
	int k = lw_ints(c, n, 1, sizes, 256, 0);
	struct ir_value *el[256];
	if (k < 1 && x && lw_list(c, n, 1, el, 256) == 1) {
		/* one size, not constant: torch needs it to be the dim's
		 * size, the piece is x (R-CNN's split by boxes per image of
		 * one image) */
		lw_set_list(c, n->outputs[0], &x, 1);
		out[0] = NULL;
		return 0;
	}
	if (k < 1)
		return lw_decline(c, "split sizes not constant");
	return split_out(c, n, out, x, dim, sizes, k);
}

SYM(sym_unbind)
{
	struct ir_value *x = T(0), *parts[256];
	int64_t dim;
	if (!lw_int(c, n, 1, &dim))
		return lw_decline(c, "dim is not constant");
	int64_t len = b_dim_size(x, dim);
	if (len < 1 || len > 256)
		return lw_decline(c, "the dim has no fixed size");
	dim = nd(dim, b_rank(x));
	b_split(c, x, dim, NULL, (int)len, parts);
	for (int i = 0; i < len; i++)
		parts[i] = b_squeeze(c, parts[i], &dim, 1);
	lw_set_list(c, n->outputs[0], parts, (int)len);
	out[0] = NULL;
	return 0;
}

/* slice.t(l, start, end, step) of an int list (x.shape[-2:]): the
 * elements when the list is known element-wise (constants when they all
 * are), else a Slice of the list as a 1-d tensor. */
static int list_slice(struct lower_ctx *c, struct ir_node *n,
		      struct ir_value **out)
{
	struct ir_value *el[256], *sub[256];
	int64_t st = 0, en = BIG, step = 1, v[256];
	int k = lw_list(c, n, 0, el, 256), m = 0, allc = 1;
	if ((!lw_is_none(c, n, 1) && !lw_int(c, n, 1, &st)) ||
	    (!lw_is_none(c, n, 2) && !lw_int(c, n, 2, &en)) ||
	    !lw_int(c, n, 3, &step) || step != 1)
		return lw_decline(c, "list slice bounds not constant");
	if (k >= 0) {
		int64_t lo = st < 0 ? st + k : st, hi = en < 0 ? en + k : en;
		lo = lo < 0 ? 0 : lo > k ? k : lo;
		hi = hi < 0 ? 0 : hi > k ? k : hi;
		for (int64_t i = lo; i < hi; i++) {
			sub[m] = el[i];
			if (b_const_ints(el[i], &v[m], 1) != 1 ||
			    b_rank(el[i]) > 1)
				allc = 0;
			m++;
		}
		if (allc) {
			out[0] = b_const_i64s(c, v, m, 1);
			lw_set_list(c, n->outputs[0], sub, m);
			return 0;
		}
	}
	struct ir_value *t = T(0);
	if (!t || b_rank(t) != 1)
		return lw_decline(c, "the list is not known");
	out[0] = b_slice(c, b_cast(c, t, IR_DTYPE_INT64), st, en, 0, 1);
	if (k >= 0)
		lw_set_list(c, n->outputs[0], sub, m);
	return 0;
}

/* A slice with a step before opset 10 (no steps in Slice): Gather of the
 * indices it takes, when the dim has a fixed size (python's bounds:
 * negative from the end, clamped). */
static int step_gather(struct lower_ctx *c, struct ir_value *x, int64_t dim,
		       int64_t st, int64_t en, int64_t step,
		       struct ir_value **out)
{
	int64_t size = b_dim_size(x, dim);
	if (size < 0 || size > 65536 || step < 1)
		return lw_decline(c, "a step on a dim of unknown size needs "
				  "opset 10");
	st = st < 0 ? st + size : st;
	en = en < 0 ? en + size : en;
	st = st < 0 ? 0 : st > size ? size : st;
	en = en < st ? st : en > size ? size : en;
	int64_t cnt = (en - st + step - 1) / step;
	if (cnt == 0)
		return lw_decline(c, "an empty slice with a step needs opset 10");
	int64_t *v = ir_alloc(c->g, sizeof(*v) * cnt);
	for (int64_t i = 0; i < cnt; i++)
		v[i] = st + i * step;
	struct ir_node *g = b_node(c, "Gather", 2, (struct ir_value *[]){
		x, b_const_i64s(c, v, (int)cnt, 1) }, 1);
	b_attr_i(c, g, "axis", dim);
	out[0] = b_done(c, g);
	return 0;
}

/* A slice bound v (0-d float) as python takes it on a dim of size size:
 * negative from the end, then clamped to [0, size] (nonneg: v >= 0 is
 * known, only the upper clamp). */
static struct ir_value *py_bound(struct lower_ctx *c, struct ir_value *v,
				 struct ir_value *size, int nonneg)
{
	if (!nonneg) {
		struct ir_value *zero = b_const_scalar(c, 0, IR_DTYPE_FLOAT, 0);
		v = b_op3(c, "Where", b_op2(c, "Less", v, zero),
			  b_op2(c, "Add", v, size), v);
		v = b_op2(c, "Max", v, zero);
	}
	return b_op2(c, "Min", v, size);
}

SYM(sym_slice)
{
	/* (self, dim, start, end, step) */
	if (n->ninputs == 4)
		return list_slice(c, n, out);
	struct ir_value *x = T(0);
	int64_t dim, st = 0, en = BIG, step = 1;
	if (!lw_int(c, n, 1, &dim) || !lw_int(c, n, 4, &step))
		return lw_decline(c, "dim or step not constant");
	dim = nd(dim, b_rank(x));
	if (dim < 0)
		return lw_decline(c, "negative dim with unknown rank");
	int sconst = lw_is_none(c, n, 2) || lw_int(c, n, 2, &st);
	int econst = lw_is_none(c, n, 3) || lw_int(c, n, 3, &en);
	if (sconst && econst) {
		if (st == 0 && en == BIG && step == 1) {
			out[0] = x;
			return 0;
		}
		if (c->opset < 10 && step != 1 && b_dim_size(x, dim) >= 0)
			return step_gather(c, x, dim, st, en, step, out);
		if (c->opset >= 10 || step == 1) {
			out[0] = b_slice(c, x, st, en, dim, step);
			return 0;
		}
		/* a step on a dim of unknown size: the Gather below */
	}
	if (c->opset < 10) {
		/* no dynamic Slice before 10: Gather of the indices
		 * lo, lo + step, ... below hi, the bounds python's
		 * (negative from the end, clamped to [0, size]), computed in
		 * floats (Max and Min take no ints before 12) */
		if (step < 1)
			return lw_decline(c, "a step below 1");
		struct ir_value *size = b_cast(c, b_dim(c, x, dim),
					       IR_DTYPE_FLOAT);
		struct ir_value *lo = sconst ? b_const_scalar(c, (double)st,
							IR_DTYPE_FLOAT, 0)
				: lw_scalar_as(c, n, 2, IR_DTYPE_FLOAT, 0);
		struct ir_value *hi = econst ? (en == BIG ? size
				: b_const_scalar(c, (double)en, IR_DTYPE_FLOAT, 0))
				: lw_scalar_as(c, n, 3, IR_DTYPE_FLOAT, 0);
		if (!lo || !hi)
			return lw_decline(c, "bounds are not numbers");
		lo = py_bound(c, lo, size, sconst && st >= 0);
		hi = py_bound(c, hi, size, econst && (en >= 0 || en == BIG));
		struct ir_value *cnt = b_op2(c, "Sub", hi, lo);
		if (step != 1)
			cnt = b_op1(c, "Ceil", b_op2(c, "Div", cnt,
				b_const_scalar(c, (double)step, IR_DTYPE_FLOAT,
					       0)));
		cnt = b_op2(c, "Max", cnt,
			    b_const_scalar(c, 0, IR_DTYPE_FLOAT, 0));
		struct ir_value *idx = range_count(c, cnt);
		if (!idx)
			return 1;
		idx = b_cast(c, idx, IR_DTYPE_FLOAT);
		if (step != 1)
			idx = b_op2(c, "Mul", idx, b_const_scalar(c,
				(double)step, IR_DTYPE_FLOAT, 0));
		idx = b_cast(c, b_op2(c, "Add", idx, lo), IR_DTYPE_INT64);
		struct ir_node *g = b_node(c, "Gather", 2,
					   (struct ir_value *[]){ x, idx }, 1);
		b_attr_i(c, g, "axis", dim);
		out[0] = b_done(c, g);
		return 0;
	}
	struct ir_value *in[5] = {
		x,
		sconst ? b_const_i64s(c, &st, 1, 1)
		       : lw_scalar_as(c, n, 2, IR_DTYPE_INT64, 1),
		econst ? b_const_i64s(c, &en, 1, 1)
		       : lw_scalar_as(c, n, 3, IR_DTYPE_INT64, 1),
		b_const_i64s(c, &dim, 1, 1), b_const_i64s(c, &step, 1, 1) };
	out[0] = b_done(c, b_node(c, "Slice", 5, in, 1));
	return 0;
}

SYM(sym_select)
{
	struct ir_value *x = T(0);
	int64_t dim;
	if (!lw_int(c, n, 1, &dim))
		return lw_decline(c, "dim is not constant");
	dim = nd(dim, b_rank(x));
	if (dim < 0)
		return lw_decline(c, "negative dim with unknown rank");
	struct ir_value *idx = lw_scalar_as(c, n, 2, IR_DTYPE_INT64, 0);
	struct ir_node *g = b_node(c, "Gather", 2,
				   (struct ir_value *[]){ x, idx }, 1);
	b_attr_i(c, g, "axis", dim);
	out[0] = b_done(c, g);
	return 0;
}

SYM(sym_unsqueeze)
{
	struct ir_value *x = T(0);
	int64_t dim;
	if (!lw_int(c, n, 1, &dim))
		return lw_decline(c, "dim is not constant");
	if (dim < 0) {
		if (b_rank(x) < 0)
			return lw_decline(c, "negative dim with unknown rank");
		dim += b_rank(x) + 1;
	}
	out[0] = b_unsqueeze(c, x, &dim, 1);
	return 0;
}

SYM(sym_squeeze)
{
	struct ir_value *x = T(0);
	int64_t dim;
	if (n->ninputs < 2) {
		int r = b_rank(x);
		if (r < 0)
			return lw_decline(c, "input rank unknown");
		out[0] = b_squeeze(c, x, NULL, 0);
		if (b_rank(out[0]) >= 0)
			return 0;
		/* Squeeze of every 1 at run time; the type torch gives it,
		 * from its example, is the dims that are not 1: a named
		 * dynamic axis is taken as not 1 (torch's example sizes are) */
		int64_t dims[64];
		int k = 0;
		for (int i = 0; i < r && r <= 64; i++) {
			const struct ir_dim *d = &x->type->dims[i];
			if (d->kind == IR_DIM_UNKNOWN)
				return 0;
			if (d->kind == IR_DIM_SYMBOL || d->value != 1)
				dims[k++] = i;
		}
		struct ir_type *t = ir_type_tensor(c->g, b_dtype(x), k, NULL);
		for (int i = 0; i < k; i++)
			t->dims[i] = x->type->dims[dims[i]];
		out[0]->type = t;
		return 0;
	}
	if (!lw_int(c, n, 1, &dim))
		return lw_decline(c, "dim is not constant");
	dim = nd(dim, b_rank(x));
	if (dim < 0)
		return lw_decline(c, "negative dim with unknown rank");
	int64_t len = b_dim_size(x, dim);
	if (len > 1 || b_rank(x) == 0) {
		out[0] = x;	/* torch: squeezing a dim != 1 is a no-op */
		return 0;
	}
	out[0] = b_squeeze(c, x, &dim, 1);
	return 0;
}

SYM(sym_expand)
{
	struct ir_value *x = T(0);
	int64_t s[64];
	int k = lw_ints(c, n, 1, s, 64, 0);
	if (k >= 0) {
		for (int i = 0; i < k; i++)
			if (s[i] < 0)
				s[i] = 1; /* Expand keeps x's dim under a 1 */
		out[0] = b_op2(c, "Expand", x, b_const_i64s(c, s, k, 1));
		return 0;
	}
	struct ir_value *shape = T(1);
	if (!shape)
		return lw_decline(c, "size is not a list of ints");
	/* -1 entries become 1, which keeps x's dims (Max takes no int64
	 * before 12: Where) */
	shape = b_cast(c, shape, IR_DTYPE_INT64);
	struct ir_value *m1 = b_op2(c, "Equal", shape, b_const_i64(c, -1));
	shape = b_op3(c, "Where", m1, b_const_i64(c, 1), shape);
	out[0] = b_op2(c, "Expand", x, shape);
	return 0;
}

SYM(sym_expand_as)
{
	out[0] = b_op2(c, "Expand", T(0), b_op1(c, "Shape", T(1)));
	return 0;
}

static int reduce(struct lower_ctx *c, struct ir_node *n,
		  struct ir_value **out, const char *op)
{
	/* (self, dtype) or (self, dim, keepdim, dtype) */
	struct ir_value *x = T(0);
	int64_t axes[64], keep = 0, st;
	int k = 0, idt = 1;
	if (n->ninputs >= 3) {
		k = lw_is_none(c, n, 1) ? 0 : lw_ints(c, n, 1, axes, 64, 0);
		if (k < 0 || !lw_int(c, n, 2, &keep))
			return lw_decline(c, "dim or keepdim not constant");
		idt = 3;
	}
	if ((int)n->ninputs > idt && !lw_is_none(c, n, idt) &&
	    lw_int(c, n, idt, &st))
		x = b_cast(c, x, lw_torch_dtype(st));
	else if ((!strcmp(op, "ReduceSum") || !strcmp(op, "ReduceProd")) &&
		 !b_is_float(b_dtype(x)) && b_dtype(x) != IR_DTYPE_UNDEFINED)
		/* torch sums and multiplies integers and bools in Long */
		x = b_cast(c, x, IR_DTYPE_INT64);
	out[0] = b_reduce(c, op, x, axes, k, (int)keep);
	return 0;
}

SYM(sym_mean) { return reduce(c, n, out, "ReduceMean"); }
SYM(sym_sum) { return reduce(c, n, out, "ReduceSum"); }
SYM(sym_prod) { return reduce(c, n, out, "ReduceProd"); }

static int amaxmin(struct lower_ctx *c, struct ir_node *n,
		   struct ir_value **out, const char *op)
{
	int64_t axes[64], keep;
	int k = lw_ints(c, n, 1, axes, 64, 0);
	if (k < 0 || !lw_int(c, n, 2, &keep))
		return lw_decline(c, "dim or keepdim not constant");
	out[0] = b_reduce(c, op, T(0), axes, k, (int)keep);
	return 0;
}

SYM(sym_amax) { return amaxmin(c, n, out, "ReduceMax"); }
SYM(sym_amin) { return amaxmin(c, n, out, "ReduceMin"); }

SYM(sym_size)
{
	struct ir_value *x = T(0);
	int64_t dim;
	if (n->ninputs < 2) {
		/* the list, and its elements for a ListUnpack */
		int r = b_rank(x);
		struct ir_value *el[64];
		out[0] = b_op1(c, "Shape", x);
		if (r >= 0 && r <= 64) {
			for (int i = 0; i < r; i++) {
				int64_t len = b_dim_size(x, i);
				el[i] = len >= 0 ? b_const_i64(c, len)
						 : b_dim(c, x, i);
			}
			lw_set_list(c, n->outputs[0], el, r);
		}
		return 0;
	}
	if (!lw_int(c, n, 1, &dim))
		return lw_decline(c, "dim is not constant");
	dim = nd(dim, b_rank(x));
	if (dim < 0)
		return lw_decline(c, "negative dim with unknown rank");
	int64_t len = b_dim_size(x, dim);
	out[0] = len >= 0 ? b_const_i64(c, len) : b_dim(c, x, dim);
	return 0;
}

SYM(sym_numel)
{
	out[0] = b_reduce(c, "ReduceProd", b_op1(c, "Shape", T(0)), NULL, 0, 0);
	return 0;
}

SYM(sym_dim)
{
	if (b_rank(T(0)) < 0)
		return lw_decline(c, "input rank unknown");
	out[0] = b_const_i64(c, b_rank(T(0)));
	return 0;
}

SYM(sym_embedding)
{
	struct ir_node *g = b_node(c, "Gather", 2,
		(struct ir_value *[]){ T(0), b_cast(c, T(1), IR_DTYPE_INT64) },
		1);
	b_attr_i(c, g, "axis", 0);
	out[0] = b_done(c, g);
	return 0;
}

SYM(sym_masked_fill)
{
	struct ir_value *x = T(0);
	struct ir_value *mask = b_cast(c, T(1), IR_DTYPE_BOOL);
	struct ir_value *v = lw_scalar_as(c, n, 2, b_dtype(x), 0);
	if (!v)
		return lw_decline(c, "value is not a number");
	out[0] = b_op3(c, "Where", mask, v, x);
	return 0;
}

SYM(sym_where)
{
	if (n->ninputs < 3)
		return lw_decline(c, "where(condition) needs NonZero");
	enum ir_dtype dt = sym_result_type(c, n, 1, 2);
	out[0] = b_op3(c, "Where", b_cast(c, T(0), IR_DTYPE_BOOL),
		       sym_operand(c, n, 1, dt), sym_operand(c, n, 2, dt));
	return 0;
}

/* The bool mask of tril (upper 0) or triu (upper 1) with diagonal k over
 * (rows' dim rd) x (cols' dim cd): constant when both sizes are fixed,
 * else from the dims' ranges (Range from opset 11, NonZero of ones at 9
 * and 10).  NULL when neither works. */
struct ir_value *sym_tri_bool(struct lower_ctx *c, struct ir_value *rows,
			      int rd, struct ir_value *cols, int cd,
			      int64_t k, int upper)
{
	int64_t h = b_dim_size(rows, rd), w = b_dim_size(cols, cd);
	if (h >= 0 && w >= 0 && h * w <= (1 << 24)) {
		int64_t dims[2] = { h, w };
		struct ir_tensor *t = ir_tensor_new(c->g, IR_DTYPE_BOOL, 2, dims);
		char *p = ir_alloc(c->g, (size_t)(h * w) + 1);
		for (int64_t i = 0; i < h; i++)
			for (int64_t j = 0; j < w; j++)
				p[i * w + j] = upper ? j - i >= k : j - i <= k;
		t->bytes.data = p;
		t->bytes.len = (size_t)(h * w);
		struct ir_node *cn = b_node(c, "Constant", 0, NULL, 1);
		ir_node_add_attr(c->g, cn, "value", IR_ATTR_TENSOR)->u.t = t;
		return b_done(c, cn);
	}
	struct ir_value *ri = sym_arange_count(c, b_dim(c, rows, rd));
	struct ir_value *ci = sym_arange_count(c, b_dim(c, cols, cd));
	if (!ri || !ci)
		return NULL;
	int64_t ax = 1;
	struct ir_value *diff = b_op2(c, "Sub", ci, b_unsqueeze(c, ri, &ax, 1));
	struct ir_value *kv = b_const_i64(c, k);
	/* tril: diff <= k, i.e. not (diff > k); triu: not (diff < k) */
	return b_op1(c, "Not", b_op2(c, upper ? "Less" : "Greater", diff, kv));
}

/* tril/triu without Trilu: Where(mask, x, 0). */
int sym_tri_mask(struct lower_ctx *c, struct ir_node *n,
		 struct ir_value **out, int upper)
{
	struct ir_value *x = T(0), *mask;
	int64_t k = 0;
	int r = b_rank(x);
	if (n->ninputs > 1 && !lw_int(c, n, 1, &k))
		return lw_decline(c, "diagonal is not constant");
	if (r < 2)
		return lw_decline(c, "input rank unknown or below 2");
	mask = sym_tri_bool(c, x, r - 2, x, r - 1, k, upper);
	if (!mask)
		return lw_decline(c, "the last two dims' ranges");
	struct ir_value *zero = b_const_scalar(c, 0, b_dtype(x), 0);
	out[0] = b_op3(c, "Where", mask, x, zero);
	return 0;
}

SYM(sym_tril) { return sym_tri_mask(c, n, out, 0); }
SYM(sym_triu) { return sym_tri_mask(c, n, out, 1); }

static int trilu(struct lower_ctx *c, struct ir_node *n,
		 struct ir_value **out, int upper)
{
	struct ir_value *in[2] = { T(0), n->ninputs > 1
		? lw_scalar_as(c, n, 1, IR_DTYPE_INT64, 0) : b_const_i64(c, 0) };
	struct ir_node *t = b_node(c, "Trilu", 2, in, 1);
	b_attr_i(c, t, "upper", upper);
	out[0] = b_done(c, t);
	return 0;
}

SYM(sym_tril14) { return trilu(c, n, out, 0); }
SYM(sym_triu14) { return trilu(c, n, out, 1); }

/* Creation ops: the dtype argument at index i, or def. */
static enum ir_dtype dtype_arg(struct lower_ctx *c, struct ir_node *n, int i,
			       enum ir_dtype def)
{
	int64_t st;
	if (i < (int)n->ninputs && !lw_is_none(c, n, i) && lw_int(c, n, i, &st))
		return lw_torch_dtype(st);
	return def;
}


SYM(sym_arange)
{
	/* arange(end, dtype, ...) 5 args; arange.start(start, end, dtype,...)
	 * 6; arange.start_step(start, end, step, dtype, ...) 7 */
	int nargs = (int)n->ninputs;
	int is = nargs >= 7 ? 0 : nargs == 6 ? 0 : -1;
	int ie = nargs >= 6 ? 1 : 0, ip = nargs >= 7 ? 2 : -1;
	int idt = nargs >= 7 ? 3 : nargs == 6 ? 2 : 1;
	/* arange.out(end, out) and arange.start_out(start, end, step, out):
	 * numbers (or 0-d tensors, as lowered), then the out tensor of rank
	 * 1 or more, whose dtype the result takes */
	struct ir_value *ov = nargs == 2 || nargs == 4 ? IN(nargs - 1) : NULL;
	int outf = ov && ov->type->kind == IR_TYPE_TENSOR && b_rank(ov) >= 1, f;
	for (int i = 0; outf && i < nargs - 1; i++)
		outf = lw_is_scalar(c, n, i, &f) || b_rank(IN(i)) == 0;
	if (outf) {
		is = nargs == 4 ? 0 : -1;
		ie = nargs == 4 ? 1 : 0;
		ip = nargs == 4 ? 2 : -1;
		idt = -1;
	}
	double st = 0, en, sp = 1;
	int fl = 0;
	for (int i = 0; i < 3; i++) {
		int ix = i == 0 ? is : i == 1 ? ie : ip;
		if (ix >= 0 && lw_is_scalar(c, n, ix, &f))
			fl |= f;
		else if (ix >= 0 && b_is_float(b_dtype(IN(ix))))
			fl = 1;
	}
	enum ir_dtype dt = outf ? b_dtype(ov)
		: dtype_arg(c, n, idt, fl ? IR_DTYPE_FLOAT : IR_DTYPE_INT64);
	int cst = lw_float(c, n, ie, &en) && (is < 0 || lw_float(c, n, is, &st)) &&
		  (ip < 0 || lw_float(c, n, ip, &sp));
	/* an integer dtype computes in its own type: torch's kernel
	 * truncates start, end and step first for Long (the count too: 8.5
	 * is 8), and takes the count from the numbers as given for the
	 * narrower ones (RangeFactories.cpp; torch.onnx casts all to the
	 * dtype) */
	int idt_int = dt != IR_DTYPE_UNDEFINED && !b_is_float(dt);
	if (cst && sp != 0) {
		double cnt = ceil((en - st) / sp), v0 = st, dv = sp;
		if (idt_int) {
			v0 = trunc(st);
			dv = trunc(sp);
			if (dt == IR_DTYPE_INT64) {
				if (dv == 0)
					return lw_decline(c, "the step truncates to 0");
				cnt = ceil((trunc(en) - v0) / dv);
			}
		}
		if (cnt > (1 << 20)) /* before the cast: 1e30 has no int64 */
			return lw_decline(c, "range too long for a constant");
		int64_t k = cnt > 0 ? (int64_t)cnt : 0;
		struct ir_tensor *t = ir_tensor_new(c->g, dt, 1, &k);
		size_t es = ir_dtype_size(dt);
		char *p = ir_alloc(c->g, es * (size_t)k + 8);
		for (int64_t i = 0; i < k; i++) {
			double v = v0 + dv * (double)i;
			if (dt == IR_DTYPE_FLOAT) { float x = (float)v; memcpy(p + 4 * i, &x, 4); }
			else if (dt == IR_DTYPE_DOUBLE) memcpy(p + 8 * i, &v, 8);
			else if (dt == IR_DTYPE_INT64) { int64_t x = (int64_t)v; memcpy(p + 8 * i, &x, 8); }
			else if (dt == IR_DTYPE_INT32) { int32_t x = (int32_t)v; memcpy(p + 4 * i, &x, 4); }
			else return lw_decline(c, "unsupported arange dtype");
		}
		t->bytes.data = p;
		t->bytes.len = es * (size_t)k;
		struct ir_node *cn = b_node(c, "Constant", 0, NULL, 1);
		ir_node_add_attr(c->g, cn, "value", IR_ATTR_TENSOR)->u.t = t;
		out[0] = b_done(c, cn);
		return 0;
	}
	if (c->opset < 11) {
		/* torch's opset-9 arange: NonZero(ConstantOfShape(n)) counts
		 * 0..n-1, times step plus start */
		struct ir_value *a = is >= 0 ? lw_scalar_as(c, n, is, IR_DTYPE_FLOAT, 0)
					     : b_const_scalar(c, 0, IR_DTYPE_FLOAT, 0);
		struct ir_value *b = lw_scalar_as(c, n, ie, IR_DTYPE_FLOAT, 0);
		struct ir_value *s = ip >= 0 ? lw_scalar_as(c, n, ip, IR_DTYPE_FLOAT, 0)
					     : b_const_scalar(c, 1, IR_DTYPE_FLOAT, 0);
		if (!a || !b || !s)
			return lw_decline(c, "bounds are not numbers");
		struct ir_value *cnt = b_op1(c, "Ceil", b_op2(c, "Div",
					     b_op2(c, "Sub", b, a), s));
		cnt = b_op2(c, "Max", cnt, b_const_scalar(c, 0, IR_DTYPE_FLOAT, 0));
		struct ir_value *idx = range_count(c, cnt);
		if (!idx)
			return 1;
		struct ir_value *r = b_cast(c, idx, IR_DTYPE_FLOAT);
		if (ip >= 0)
			r = b_op2(c, "Mul", r, s);
		if (is >= 0)
			r = b_op2(c, "Add", r, a);
		out[0] = b_cast(c, r, dt);
		return 0;
	}
	enum ir_dtype w = fl || b_is_float(dt) ? IR_DTYPE_FLOAT : IR_DTYPE_INT64;
	struct ir_value *a = is >= 0 ? lw_scalar_as(c, n, is, w, 0)
				     : b_const_scalar(c, 0, w, 0);
	struct ir_value *b = lw_scalar_as(c, n, ie, w, 0);
	struct ir_value *s = ip >= 0 ? lw_scalar_as(c, n, ip, w, 0)
				     : b_const_scalar(c, 1, w, 0);
	if (a && b && s && idt_int && w == IR_DTYPE_FLOAT) {
		/* float bounds of an integer range: cast to Long first (Cast
		 * truncates), as torch.onnx's _arange_cast_helper */
		a = b_cast(c, a, IR_DTYPE_INT64);
		b = b_cast(c, b, IR_DTYPE_INT64);
		s = b_cast(c, s, IR_DTYPE_INT64);
	}
	out[0] = b_cast(c, b_op3(c, "Range", a, b, s), dt);
	return 0;
}

/* shape filled with v as dt: ConstantOfShape (a dtype it cannot hold, as
 * float and a Cast).  dt undefined: as like's dtype (a *_like of a tensor
 * whose dtype the IR does not know), by CastLike from opset 15. */
static int fill_as(struct lower_ctx *c, struct ir_value *shape, double v,
		   enum ir_dtype dt, struct ir_value *like,
		   struct ir_value **out)
{
	if (dt == IR_DTYPE_UNDEFINED && (!like || c->opset < 15))
		return lw_decline(c, "the input's dtype is not known "
				  "(CastLike: opset 15)");
	struct ir_tensor *t = dt == IR_DTYPE_UNDEFINED ? NULL
			      : b_scalar_tensor(c, v, dt, 1);
	if (!t)
		t = b_scalar_tensor(c, v, IR_DTYPE_FLOAT, 1);
	struct ir_node *cn = b_node(c, "ConstantOfShape", 1, &shape, 1);
	ir_node_add_attr(c->g, cn, "value", IR_ATTR_TENSOR)->u.t = t;
	struct ir_value *r = b_done(c, cn);
	if (dt == IR_DTYPE_UNDEFINED)
		r = b_op2(c, "CastLike", r, like);
	else if (t->dtype != dt)
		r = b_cast(c, r, dt);
	out[0] = r;
	return 0;
}

static int fill(struct lower_ctx *c, struct ir_value *shape, double v,
		enum ir_dtype dt, struct ir_value **out)
{
	return fill_as(c, shape, v, dt, NULL, out);
}

SYM(sym_zeros)
{
	struct ir_value *s = T(0);
	if (!s)
		return lw_decline(c, "size is not a list of ints");
	return fill(c, s, 0, dtype_arg(c, n, 1, IR_DTYPE_FLOAT), out);
}

SYM(sym_ones)
{
	struct ir_value *s = T(0);
	if (!s)
		return lw_decline(c, "size is not a list of ints");
	return fill(c, s, 1, dtype_arg(c, n, 1, IR_DTYPE_FLOAT), out);
}

/* shape filled with input iv, a number known at run time, as dt */
static int fill_runtime(struct lower_ctx *c, struct ir_node *n,
			struct ir_value *shape, int iv, enum ir_dtype dt,
			struct ir_value **out)
{
	struct ir_value *v = lw_scalar_as(c, n, iv, dt, 0);
	if (!v || !shape)
		return lw_decline(c, "size or fill_value is not known");
	out[0] = b_op2(c, "Expand", v, b_cast(c, shape, IR_DTYPE_INT64));
	return 0;
}

SYM(sym_full)
{
	struct ir_value *s = T(0);
	double v;
	int f = 1;
	if (s && !lw_float(c, n, 1, &v)) {
		const struct ir_type *t = IN(1) ? IN(1)->type : NULL;
		f = !t || t->kind != IR_TYPE_INT;
		if (t && t->kind == IR_TYPE_BOOL)
			return fill_runtime(c, n, s, 1, dtype_arg(c, n, 2,
					    IR_DTYPE_BOOL), out);
		return fill_runtime(c, n, s, 1, dtype_arg(c, n, 2, f ?
				    IR_DTYPE_FLOAT : IR_DTYPE_INT64), out);
	}
	if (!s)
		return lw_decline(c, "size is not a list of ints");
	lw_is_scalar(c, n, 1, &f);
	return fill(c, s, v, dtype_arg(c, n, 2, f ? IR_DTYPE_FLOAT
						  : IR_DTYPE_INT64), out);
}

SYM(sym_zeros_like)
{
	struct ir_value *x = T(0);
	return fill_as(c, b_op1(c, "Shape", x), 0,
		       dtype_arg(c, n, 1, b_dtype(x)), x, out);
}

/* x.zero_() (lowered out of place): zeros of x's shape and dtype */
SYM(sym_zero)
{
	struct ir_value *x = T(0);
	return fill_as(c, b_op1(c, "Shape", x), 0, b_dtype(x), x, out);
}

SYM(sym_ones_like)
{
	struct ir_value *x = T(0);
	return fill_as(c, b_op1(c, "Shape", x), 1,
		       dtype_arg(c, n, 1, b_dtype(x)), x, out);
}

SYM(sym_full_like)
{
	struct ir_value *x = T(0);
	double v;
	if (!lw_float(c, n, 1, &v))
		return fill_runtime(c, n, b_op1(c, "Shape", x), 1,
				    dtype_arg(c, n, 2, b_dtype(x)), out);
	return fill_as(c, b_op1(c, "Shape", x), v,
		       dtype_arg(c, n, 2, b_dtype(x)), x, out);
}

SYM(sym_to)
{
	/* to.dtype(self, dtype, ...), to.device(self, device, dtype, ...),
	 * to.other(self, other, ...) */
	struct ir_value *x = T(0), *a = IN(1);
	enum ir_dtype dt = IR_DTYPE_UNDEFINED;
	if (a && a->type->kind == IR_TYPE_TENSOR &&
	    !(a->producer && a->producer->op == OP_prim_Constant))
		dt = b_dtype(a);
	else if (a && a->type->kind == IR_TYPE_INT)
		dt = dtype_arg(c, n, 1, IR_DTYPE_UNDEFINED);
	else if (n->ninputs > 2 && IN(2)->type->kind == IR_TYPE_INT)
		dt = dtype_arg(c, n, 2, IR_DTYPE_UNDEFINED);
	out[0] = dt == IR_DTYPE_UNDEFINED ? x : b_cast(c, x, dt);
	return 0;
}

SYM(sym_type_as)
{
	enum ir_dtype dt = b_dtype(T(1));
	if (dt == IR_DTYPE_UNDEFINED)
		return lw_decline(c, "the other's dtype is unknown");
	out[0] = b_cast(c, T(0), dt);
	return 0;
}

/* ArgMax/ArgMin over dim 0 or -1 of a 0-d tensor (torch: the tensor
 * itself): over axis 0 of it as a [1], keepdims 0, to a 0-d 0 */
static struct ir_value *rank0_as_1(struct lower_ctx *c, struct ir_value *x,
				   int64_t *dim, int64_t *keep)
{
	if (b_rank(x) != 0)
		return x;
	*dim = 0;
	*keep = 0;
	return b_unsqueeze(c, x, dim, 1);
}

static int maxmin(struct lower_ctx *c, struct ir_node *n,
		  struct ir_value **out, const char *red, const char *arg,
		  const char *elem)
{
	struct ir_value *x = T(0);
	int64_t dim, keep;
	if (n->ninputs == 1) {
		out[0] = b_reduce(c, red, x, NULL, 0, 0);
		return 0;
	}
	if (n->ninputs == 2) {
		enum ir_dtype dt = sym_result_type(c, n, 0, 1);
		out[0] = b_op2(c, elem, sym_operand(c, n, 0, dt),
			       sym_operand(c, n, 1, dt));
		return 0;
	}
	if (!lw_int(c, n, 1, &dim) || !lw_int(c, n, 2, &keep))
		return lw_decline(c, "dim or keepdim not constant");
	out[0] = b_reduce(c, red, x, &dim, 1, (int)keep);
	x = rank0_as_1(c, x, &dim, &keep);
	struct ir_node *a = b_node(c, arg, 1, &x, 1);
	b_attr_i(c, a, "axis", dim);
	b_attr_i(c, a, "keepdims", keep);
	out[1] = b_done(c, a);
	return 0;
}

SYM(sym_max) { return maxmin(c, n, out, "ReduceMax", "ArgMax", "Max"); }
SYM(sym_min) { return maxmin(c, n, out, "ReduceMin", "ArgMin", "Min"); }

static int argmaxmin(struct lower_ctx *c, struct ir_node *n,
		     struct ir_value **out, const char *op)
{
	struct ir_value *x = T(0);
	int64_t dim = 0, keep = 0, ones[64];
	int r = b_rank(x), all = 0;
	if (!lw_int(c, n, 2, &keep))
		return lw_decline(c, "keepdim not constant");
	if (lw_is_none(c, n, 1)) {
		/* over the flattened input; keepdim keeps every dim as 1
		 * (torch 1.13: argmax(x of [7, 3, 5], keepdim=True) is
		 * [1, 1, 1]) */
		int64_t m1 = -1;
		if (keep && (r < 0 || r > 64))
			return lw_decline(c, "keepdim without dim needs the "
					  "input's rank");
		all = keep && r > 0;
		x = b_op2(c, "Reshape", x, b_const_i64s(c, &m1, 1, 1));
		keep = 0;
	} else if (!lw_int(c, n, 1, &dim)) {
		return lw_decline(c, "dim not constant");
	}
	x = rank0_as_1(c, x, &dim, &keep);
	struct ir_node *a = b_node(c, op, 1, &x, 1);
	b_attr_i(c, a, "axis", dim);
	b_attr_i(c, a, "keepdims", keep);
	out[0] = b_done(c, a);
	if (all) {
		for (int i = 0; i < r; i++)
			ones[i] = 1;
		out[0] = b_op2(c, "Reshape", out[0], b_const_i64s(c, ones, r, 1));
	}
	return 0;
}

SYM(sym_argmax) { return argmaxmin(c, n, out, "ArgMax"); }
SYM(sym_argmin) { return argmaxmin(c, n, out, "ArgMin"); }

SYM(sym_topk)
{
	/* (self, k, dim, largest, sorted) */
	struct ir_value *x = T(0);
	int64_t k, dim, largest = 1;
	if (!lw_int(c, n, 2, &dim) || !lw_int(c, n, 3, &largest))
		return lw_decline(c, "dim or largest not constant");
	if (!largest && c->opset < 11)
		return lw_decline(c, "largest=False needs opset 11");
	int zerod = b_rank(x) == 0 && (dim == 0 || dim == -1);
	if (zerod) {
		/* torch: dim 0 of a 0-d is itself; TopK over it as a [1] */
		dim = 0;
		x = b_unsqueeze(c, x, &dim, 1);
	}
	struct ir_node *t;
	if (c->opset < 10) {
		if (!lw_int(c, n, 1, &k))
			return lw_decline(c, "k is not constant");
		t = b_node(c, "TopK", 1, &x, 2);
		b_attr_i(c, t, "k", k);
	} else {
		struct ir_value *kv = lw_scalar_as(c, n, 1, IR_DTYPE_INT64, 1);
		t = b_node(c, "TopK", 2, (struct ir_value *[]){ x, kv }, 2);
	}
	b_attr_i(c, t, "axis", dim);
	if (c->opset >= 11)
		b_attr_i(c, t, "largest", largest);
	b_done(c, t);
	out[0] = t->outputs[0];
	out[1] = t->outputs[1];
	if (zerod) {
		out[0] = b_squeeze(c, out[0], &dim, 1);
		out[1] = b_squeeze(c, out[1], &dim, 1);
	}
	return 0;
}

SYM(sym_index_select)
{
	int64_t dim;
	struct ir_value *x = T(0);
	if (!lw_int(c, n, 1, &dim))
		return lw_decline(c, "dim not constant");
	int zerod = b_rank(x) == 0;
	if (zerod) {
		/* torch: a 0-d stays 0-d (its one index is 0): Gather from it
		 * as a [1], Reshape to 0-d */
		dim = 0;
		x = b_unsqueeze(c, x, &dim, 1);
	}
	/* the index is 1-d or 0-d, a 0-d one selecting as a [1] (torch's
	 * result keeps the dim): Gather of a flattened index */
	struct ir_value *ix = b_cast(c, T(2), IR_DTYPE_INT64);
	if (b_rank(ix) != 1) {
		int64_t m1 = -1;
		ix = b_op2(c, "Reshape", ix, b_const_i64s(c, &m1, 1, 1));
	}
	struct ir_node *g = b_node(c, "Gather", 2,
		(struct ir_value *[]){ x, ix }, 1);
	b_attr_i(c, g, "axis", dim);
	out[0] = b_done(c, g);
	if (zerod)
		out[0] = b_op2(c, "Reshape", out[0], b_const_i64s(c, NULL, 0, 1));
	return 0;
}

SYM(sym_gather11)
{
	int64_t dim;
	if (!lw_int(c, n, 1, &dim))
		return lw_decline(c, "dim not constant");
	struct ir_node *g = b_node(c, "GatherElements", 2,
		(struct ir_value *[]){ T(0), b_cast(c, T(2), IR_DTYPE_INT64) },
		1);
	b_attr_i(c, g, "axis", dim);
	out[0] = b_done(c, g);
	return 0;
}

SYM(sym_cumsum11)
{
	struct ir_value *x = T(0);
	x = b_cast(c, x, dtype_arg(c, n, 2, b_dtype(x)));
	struct ir_value *ax = lw_scalar_as(c, n, 1, IR_DTYPE_INT64, 0);
	out[0] = b_op2(c, "CumSum", x, ax);
	return 0;
}

/* Constant pads computed at run time before opset 11 (Pad takes them
 * as an attribute only): per padded dim, Concat with blocks of v whose
 * size there is the amount (Expand to x's shape with that dim replaced).
 * A negative amount fails in the runtime, never silently. */
static int pad_concat(struct lower_ctx *c, struct ir_node *lp,
		      struct ir_value **out, struct ir_value *x, double v)
{
	int r = b_rank(x);
	struct ir_value *cur = x;
	struct ir_value *fill = b_const_scalar(c, v, b_dtype(x), 0);
	for (int i = 0; i < (int)lp->ninputs / 2; i++) {
		int64_t d = r - 1 - i, amt[2], onehot[64];
		struct ir_value *parts[3];
		int np = 0, cur_at = 0;
		for (int j = 0; j < r; j++)
			onehot[j] = j == d;
		struct ir_value *e = b_const_i64s(c, onehot, r, 1);
		for (int side = 0; side < 2; side++) {
			if (lw_int(c, lp, 2 * i + side, &amt[side]) &&
			    amt[side] == 0)
				continue;
			struct ir_value *a = lw_scalar_as(c, lp, 2 * i + side,
							  IR_DTYPE_INT64, 1);
			if (!a)
				return lw_decline(c, "pad is not ints");
			struct ir_value *shp = b_op1(c, "Shape", cur);
			struct ir_value *one = b_const_i64(c, 1);
			/* shape * (1 - e) + a * e */
			shp = b_op2(c, "Add",
				    b_op2(c, "Mul", shp, b_op2(c, "Sub", one, e)),
				    b_op2(c, "Mul", a, e));
			if (side == 0)
				cur_at = 1;
			parts[np++] = b_op2(c, "Expand", fill, shp);
		}
		if (!np)
			continue;
		struct ir_value *in[3];
		int m = 0;
		if (cur_at)
			in[m++] = parts[0];
		in[m++] = cur;
		if (np > cur_at)
			in[m++] = parts[np - 1];
		cur = b_concat(c, m, in, d);
		if (b_rank(cur) != r) {
			struct ir_type *t = ir_type_tensor(c->g, b_dtype(x), r,
							   NULL);
			for (int j = 0; j < r; j++)
				if (j != d && x->type->dims)
					t->dims[j] = x->type->dims[j];
			cur->type = t;
		}
	}
	out[0] = cur == x ? b_op1(c, "Identity", x) : cur;
	return 0;
}

static int pad_common(struct lower_ctx *c, struct ir_node *n,
		      struct ir_value **out, const char *mode, int ival)
{
	struct ir_value *x = T(0);
	int64_t p[64], pads[128];
	double v = 0;
	int r = b_rank(x), k = lw_ints(c, n, 1, p, 64, 0);
	struct ir_node *lp = IN(1) ? IN(1)->producer : NULL;
	if (ival >= 0 && !lw_is_none(c, n, ival) && !lw_float(c, n, ival, &v))
		return lw_decline(c, "value not constant");
	if (k < 0 && c->opset >= 11 && r > 0 && r <= 32 && lp &&
	    lp->op == OP_prim_ListConstruct && lp->ninputs % 2 == 0 &&
	    (int)lp->ninputs / 2 <= r) {
		/* pads computed at run time: Concat of the amounts, in
		 * ONNX's order (begins of every dim, then ends) */
		struct ir_value *pv[64];
		int64_t zero = 0;
		for (int i = 0; i < 2 * r; i++)
			pv[i] = NULL;
		for (int i = 0; i < (int)lp->ninputs / 2; i++)
			for (int e = 0; e < 2; e++) {
				struct ir_value *a = lw_scalar_as(c, lp, 2 * i + e,
							IR_DTYPE_INT64, 1);
				if (!a)
					return lw_decline(c, "pad is not ints");
				pv[e * r + r - 1 - i] = a;
			}
		for (int i = 0; i < 2 * r; i++)
			if (!pv[i])
				pv[i] = b_const_i64s(c, &zero, 1, 1);
		struct ir_value *cn = b_concat(c, 2 * r, pv, 0);
		struct ir_value *in[3] = { x, cn,
			strcmp(mode, "constant") ? NULL
				: b_const_scalar(c, v, b_dtype(x), 0) };
		struct ir_node *pn = b_node(c, "Pad", in[2] ? 3 : 2, in, 1);
		b_attr_s(c, pn, "mode", mode);
		out[0] = b_done(c, pn);
		if (b_rank(out[0]) < 0 && b_rank(x) == r) {
			/* the rank stays; a dim not padded keeps its size */
			struct ir_type *t = ir_type_tensor(c->g, b_dtype(x), r,
							   NULL);
			for (int i = 0; i < r; i++) {
				int64_t lo, hi;
				if (b_const_ints(pv[i], &lo, 1) == 1 &&
				    b_const_ints(pv[r + i], &hi, 1) == 1 &&
				    lo == 0 && hi == 0)
					t->dims[i] = x->type->dims[i];
			}
			out[0]->type = t;
		}
		return 0;
	}
	if (k < 0 && c->opset < 11 && !strcmp(mode, "constant") && r > 0 &&
	    r <= 32 && lp && lp->op == OP_prim_ListConstruct &&
	    lp->ninputs % 2 == 0 && (int)lp->ninputs / 2 <= r)
		return pad_concat(c, lp, out, x, v);
	if (k < 0 || k % 2 || r < 0 || k / 2 > r)
		return lw_decline(c, k < 0 && c->opset < 11 && r >= 0
				  ? "pads computed at run time need Pad with "
				    "a pads input (opset 11)"
				  : "pad not constant or rank unknown");
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
		if (!strcmp(mode, "constant"))
			b_attr_f(c, pn, "value", v);
	} else {
		struct ir_value *in[3] = { x, b_const_i64s(c, pads, 2 * r, 1),
			strcmp(mode, "constant") ? NULL
				: b_const_scalar(c, v, b_dtype(x), 0) };
		pn = b_node(c, "Pad", in[2] ? 3 : 2, in, 1);
	}
	b_attr_s(c, pn, "mode", mode);
	out[0] = b_done(c, pn);
	return 0;
}

SYM(sym_constant_pad_nd) { return pad_common(c, n, out, "constant", 2); }

SYM(sym_pad)
{
	/* pad(self, pad, mode, value) */
	const char *mode = lw_str(c, n, 2);
	if (!mode)
		return lw_decline(c, "mode not constant");
	if (!strcmp(mode, "replicate"))
		mode = "edge";
	/* circular: Pad-19's wrap, before it torch's Slices and Concats */
	if (!strcmp(mode, "circular") && c->opset < 19)
		return sym_x_pad_circular(c, n, out);
	if (!strcmp(mode, "circular"))
		mode = "wrap";
	if (strcmp(mode, "constant") && strcmp(mode, "reflect") &&
	    strcmp(mode, "edge") && strcmp(mode, "wrap"))
		return lw_decline(c, "unsupported pad mode");
	return pad_common(c, n, out, mode, 3);
}

/* The scale_factors list (input i of n) of sp constant floats into sc: a
 * prim::ListConstruct of constants (script) or a prim::Constant float list
 * (value=[2.], as trace records it).  1 when read, 0 when not. */
int sym_scale_factors(struct lower_ctx *c, struct ir_node *n, int i,
		      double *sc, int sp)
{
	struct ir_node *p = (int)n->ninputs > i && n->inputs[i] ?
			    n->inputs[i]->producer : NULL;
	if (!p)
		return 0;
	if (p->op == OP_prim_ListConstruct) {
		if ((int)p->ninputs != sp)
			return 0;
		for (int j = 0; j < sp; j++)
			if (!lw_float(c, p, j, &sc[j]))
				return 0;
		return 1;
	}
	if (p->op != OP_prim_Constant)
		return 0;
	for (uint32_t a = 0; a < p->nattrs; a++)
		if (p->attrs[a].kind == IR_ATTR_FLOATS &&
		    (int)p->attrs[a].count == sp) {
			for (int j = 0; j < sp; j++)
				sc[j] = p->attrs[a].u.floats[j];
			return 1;
		}
	return 0;
}

/* An output_size computed at run time (a list of aten::size values, as
 * trace records `F.interpolate(x, size=y.shape[-2:])`): Resize with sizes
 * Concat(Shape(x)[:2], output_size) from opset 11; before, scales
 * Concat([1, 1], output_size / Shape(x)[2:]) as torch's symbolics do. */
static int upsample_dynamic(struct lower_ctx *c, struct ir_node *n,
			    struct ir_value **out, struct ir_value *x,
			    int linear, int64_t align)
{
	struct ir_value *os = b_cast(c, lw_tensor(c, n, 1), IR_DTYPE_INT64);
	struct ir_value *shape = b_op1(c, "Shape", x);
	struct ir_node *rn;
	if (c->opset >= 11) {
		struct ir_value *nc = b_slice(c, shape, 0, 2, 0, 1);
		struct ir_value *sizes = b_concat(c, 2,
			(struct ir_value *[]){ nc, os }, 0);
		struct ir_value *roi = b_const_scalar(c, 0, IR_DTYPE_FLOAT, 1);
		struct ir_value *scales = b_const_scalar(c, 0, IR_DTYPE_FLOAT, 1);
		scales->producer->attrs[0].u.t->dims[0] = 0;
		scales->producer->attrs[0].u.t->bytes.len = 0;
		b_infer(c, scales->producer);
		rn = b_node(c, "Resize", 4,
			    (struct ir_value *[]){ x, roi, scales, sizes }, 1);
		b_attr_s(c, rn, "coordinate_transformation_mode",
			 !linear ? "asymmetric" : align ? "align_corners"
			 : "half_pixel"); /* symbolic_extra_nn.c: resize_common */
		if (!linear)
			b_attr_s(c, rn, "nearest_mode", "floor");
	} else {
		if (c->opset < 9)
			return lw_decline(c, "a computed output_size needs "
					  "Upsample with a scales input "
					  "(opset 9)");
		struct ir_value *in_sp = b_cast(c, b_slice(c, shape, 2, BIG, 0,
							   1), IR_DTYPE_FLOAT);
		struct ir_value *div = b_op2(c, "Div",
					     b_cast(c, os, IR_DTYPE_FLOAT),
					     in_sp);
		struct ir_value *ones = b_const_scalar(c, 1, IR_DTYPE_FLOAT, 1);
		struct ir_value *scales = b_concat(c, 3,
			(struct ir_value *[]){ ones, ones, div }, 0);
		rn = b_node(c, c->opset < 10 ? "Upsample" : "Resize", 2,
			    (struct ir_value *[]){ x, scales }, 1);
	}
	b_attr_s(c, rn, "mode", linear ? "linear" : "nearest");
	out[0] = b_done(c, rn);
	return 0;
}

static int upsample(struct lower_ctx *c, struct ir_node *n,
		    struct ir_value **out, int linear)
{
	/* vec: (input, output_size?, [align_corners,] scale_factors?) */
	struct ir_value *x = T(0);
	int r = b_rank(x), sp = r - 2;
	int64_t os[8], align = 0;
	double sc[8];
	int iscale = linear ? 3 : 2;
	if (r < 3 || sp > 8)
		return lw_decline(c, "input rank unknown");
	if (linear && !lw_int(c, n, 2, &align))
		return lw_decline(c, "align_corners not constant");
	if (linear && c->opset < 11)
		return lw_decline(c, "bilinear needs Resize (opset 11)");
	int ko = lw_is_none(c, n, 1) ? -1 : lw_ints(c, n, 1, os, 8, 0);
	if (ko == sp) {
		for (int i = 0; i < sp; i++) {
			int64_t in = b_dim_size(x, 2 + i);
			/* from opset 11 Resize takes the sizes */
			if (in <= 0 && c->opset < 11)
				return lw_decline(c, "input size unknown");
			sc[i] = in > 0 ? (double)os[i] / (double)in : 1;
		}
	} else if ((int)n->ninputs > iscale && !lw_is_none(c, n, iscale)) {
		if (!sym_scale_factors(c, n, iscale, sc, sp))
			return lw_decline(c, "scale_factors not constant");
	} else if (!lw_is_none(c, n, 1) && lw_tensor(c, n, 1) &&
		   b_rank(lw_tensor(c, n, 1)) == 1) {
		return upsample_dynamic(c, n, out, x, linear, align);
	} else {
		return lw_decline(c, "neither output_size nor scales constant");
	}
	int64_t four = r;
	struct ir_tensor *t = ir_tensor_new(c->g, IR_DTYPE_FLOAT, 1, &four);
	float *f = ir_alloc(c->g, sizeof(float) * r);
	f[0] = f[1] = 1;
	for (int i = 0; i < sp; i++)
		f[2 + i] = (float)sc[i];
	t->bytes.data = (const char *)f;
	t->bytes.len = sizeof(float) * r;
	struct ir_node *cn = b_node(c, "Constant", 0, NULL, 1);
	ir_node_add_attr(c->g, cn, "value", IR_ATTR_TENSOR)->u.t = t;
	struct ir_value *scales = b_done(c, cn);
	struct ir_node *rn;
	if (c->opset < 9) {
		/* Upsample-7: the scales an attribute */
		double fs[8];
		for (int i = 0; i < r; i++)
			fs[i] = f[i];
		ir_node_unlink(cn);
		rn = b_node(c, "Upsample", 1, &x, 1);
		b_attr_floats(c, rn, "scales", fs, r);
	} else if (c->opset < 10) {
		rn = b_node(c, "Upsample", 2,
			    (struct ir_value *[]){ x, scales }, 1);
	} else if (c->opset < 11) {
		rn = b_node(c, "Resize", 2, (struct ir_value *[]){ x, scales }, 1);
	} else {
		struct ir_value *roi = b_const_scalar(c, 0, IR_DTYPE_FLOAT, 1);
		struct ir_value *in[4] = { x, roi, scales, NULL };
		if (ko == sp) { /* sizes: exact torch output sizes */
			int64_t sz[8];
			sz[0] = b_dim_size(x, 0);
			sz[1] = b_dim_size(x, 1);
			in[2] = b_const_scalar(c, 0, IR_DTYPE_FLOAT, 1);
			in[2]->producer->attrs[0].u.t->dims[0] = 0;
			in[2]->producer->attrs[0].u.t->bytes.len = 0;
			b_infer(c, in[2]->producer);
			if (sz[0] < 0 || sz[1] < 0) {
				struct ir_value *nc = b_slice(c,
					b_op1(c, "Shape", x), 0, 2, 0, 1);
				struct ir_value *tail = b_const_i64s(c, os, sp, 1);
				in[3] = b_concat(c, 2,
					(struct ir_value *[]){ nc, tail }, 0);
			} else {
				for (int i = 0; i < sp; i++)
					sz[2 + i] = os[i];
				in[3] = b_const_i64s(c, sz, r, 1);
			}
		}
		rn = b_node(c, "Resize", in[3] ? 4 : 3, in, 1);
		b_attr_s(c, rn, "coordinate_transformation_mode",
			 !linear ? "asymmetric" : align ? "align_corners"
			 : "half_pixel"); /* symbolic_extra_nn.c: resize_common */
		if (!linear)
			b_attr_s(c, rn, "nearest_mode", "floor");
	}
	b_attr_s(c, rn, "mode", linear ? "linear" : "nearest");
	out[0] = b_done(c, rn);
	return 0;
}

SYM(sym_upsample_nearest) { return upsample(c, n, out, 0); }
SYM(sym_upsample_bilinear) { return upsample(c, n, out, 1); }

SYM(sym_int)
{
	out[0] = b_cast(c, T(0), IR_DTYPE_INT64);
	return 0;
}

SYM(sym_float)
{
	out[0] = b_cast(c, T(0), IR_DTYPE_FLOAT);
	return 0;
}

SYM(sym_bool)
{
	out[0] = b_cast(c, T(0), IR_DTYPE_BOOL);
	return 0;
}

SYM(sym_num_to_tensor)
{
	out[0] = T(0);
	return out[0] ? 0 : lw_decline(c, "not a number");
}

SYM(sym_repeat)
{
	struct ir_value *x = T(0), *reps = T(1);
	int64_t k[64];
	int nk = lw_ints(c, n, 1, k, 64, 0), r = b_rank(x);
	if (!reps || nk < 0 || r < 0)
		return lw_decline(c, "repeats or rank unknown");
	if (nk > r) { /* torch prepends dims of 1 */
		int64_t axes[64];
		for (int i = 0; i < nk - r; i++)
			axes[i] = i;
		x = b_unsqueeze(c, x, axes, nk - r);
	}
	out[0] = b_op2(c, "Tile", x, reps);
	return 0;
}

SYM(sym_layer_norm17)
{
	struct ir_value *x = T(0);
	int64_t ns[64];
	double eps;
	int k = lw_ints(c, n, 1, ns, 64, 0);
	if (k < 1 || !lw_float(c, n, 4, &eps))
		return lw_decline(c, "normalized_shape or eps not constant");
	enum ir_dtype dt = b_dtype(x);
	struct ir_value *w = lw_is_none(c, n, 2) ? NULL : T(2);
	struct ir_value *b = lw_is_none(c, n, 3) ? NULL : T(3);
	if (!w) {
		struct ir_value *one = b_const_scalar(c, 1, dt, 1);
		w = b_op2(c, "Expand", one, b_const_i64s(c, ns, k, 1));
	}
	struct ir_value *in[3] = { x, w, b };
	struct ir_node *ln = b_node(c, "LayerNormalization", b ? 3 : 2, in, 1);
	b_attr_i(c, ln, "axis", -k);
	b_attr_f(c, ln, "epsilon", eps);
	out[0] = b_done(c, ln);
	return 0;
}

SYM(sym_hardswish14)
{
	out[0] = b_op1(c, "HardSwish", T(0));
	return 0;
}

SYM(sym_remainder)
{
	/* torch: a - floor(a / b) * b, the sign of b */
	enum ir_dtype dt = sym_result_type(c, n, 0, 1);
	struct ir_value *a = sym_operand(c, n, 0, dt);
	struct ir_value *b = sym_operand(c, n, 1, dt);
	if (!a || !b)
		return lw_decline(c, "operands are not tensors or numbers");
	if (!b_is_float(dt) && dt != IR_DTYPE_UNDEFINED && c->opset >= 10) {
		struct ir_node *m = b_node(c, "Mod", 2,
					   (struct ir_value *[]){ a, b }, 1);
		b_attr_i(c, m, "fmod", 0);
		out[0] = b_done(c, m);
		return 0;
	}
	if (!b_is_float(dt) && dt != IR_DTYPE_UNDEFINED) {
		/* integers before Mod (no Floor of ints): a - trunc(a/b)*b
		 * lies in (-|b|, |b|); adding b and taking it again gives
		 * b's sign (with a floor Div too) */
		struct ir_value *r = a;
		for (int pass = 0; pass < 2; pass++) {
			if (pass)
				r = b_op2(c, "Add", r, b);
			r = b_op2(c, "Sub", r, b_op2(c, "Mul",
				  b_op2(c, "Div", r, b), b));
		}
		out[0] = r;
		return 0;
	}
	struct ir_value *q = b_op1(c, "Floor", b_op2(c, "Div", a, b));
	out[0] = b_op2(c, "Sub", a, b_op2(c, "Mul", q, b));
	return 0;
}

static int moments(struct lower_ctx *c, struct ir_node *n,
		   struct ir_value **out, int isstd)
{
	/* var(self, unbiased) or var.dim(self, dim, unbiased, keepdim) */
	struct ir_value *x = T(0);
	int64_t axes[64], unb = 1, keep = 0;
	int k = 0, r = b_rank(x);
	if (n->ninputs == 2) {
		if (!lw_int(c, n, 1, &unb))
			return lw_decline(c, "unbiased not constant");
	} else if (n->ninputs == 4) {
		k = lw_is_none(c, n, 1) ? 0 : lw_ints(c, n, 1, axes, 64, 0);
		if (k < 0 || !lw_int(c, n, 2, &unb) || !lw_int(c, n, 3, &keep))
			return lw_decline(c, "arguments not constant");
	} else {
		return lw_decline(c, "the correction overload");
	}
	if (r < 0)
		return lw_decline(c, "input rank unknown");
	int64_t cnt = 1;
	if (k == 0)
		for (int i = 0; i < r; i++)
			axes[k++] = i;
	for (int i = 0; i < k; i++) {
		int64_t len = b_dim_size(x, axes[i]);
		if (len < 0)
			return lw_decline(c, "reduced dims not fixed");
		cnt *= len;
	}
	enum ir_dtype dt = b_dtype(x);
	struct ir_value *mean = b_reduce(c, "ReduceMean", x, axes, k, 1);
	struct ir_value *d = b_op2(c, "Sub", x, mean);
	struct ir_value *v = b_reduce(c, "ReduceMean", b_op2(c, "Mul", d, d),
				      axes, k, (int)keep);
	if (unb && cnt > 1)
		v = b_op2(c, "Mul", v, b_const_scalar(c, (double)cnt /
						      (double)(cnt - 1), dt, 0));
	out[0] = isstd ? b_op1(c, "Sqrt", v) : v;
	return 0;
}

SYM(sym_var) { return moments(c, n, out, 0); }
SYM(sym_std) { return moments(c, n, out, 1); }

SYM(sym_flip)
{
	struct ir_value *x = T(0);
	int64_t d[64];
	int k = lw_ints(c, n, 1, d, 64, 0), r = b_rank(x);
	if (k < 0)
		return lw_decline(c, "dims not constant");
	if (c->opset < 10)
		return lw_decline(c, "a negative step needs opset 10");
	for (int i = 0; i < k; i++) {
		int64_t ax = nd(d[i], r);
		if (ax < 0)
			return lw_decline(c, "negative dim with unknown rank");
		x = b_flip(c, x, ax);
	}
	out[0] = x;
	return 0;
}

/* Vector norms: p 1 and 2 ReduceL1 / ReduceL2; inf and -inf ReduceMax /
 * ReduceMin of Abs; 0 the count of non-zeros (Sum of Sign of Abs: a NaN
 * gives NaN where torch counts 1); any other p (|x|^p summed)^(1/p), as torch's
 * symbolic. idt: the dtype input (-1: none), applied first. */
static int vnorm(struct lower_ctx *c, struct ir_node *n,
		 struct ir_value **out, int ip, int idim, int ikeep, int idt)
{
	double p = 2;
	int64_t axes[64], keep = 0, st;
	int k = 0;
	if (!lw_is_none(c, n, ip) && !lw_float(c, n, ip, &p))
		return lw_decline(c, "p not constant");
	if (idim >= 0 && !lw_is_none(c, n, idim))
		k = lw_ints(c, n, idim, axes, 64, 0);
	if (k < 0 || (ikeep >= 0 && !lw_int(c, n, ikeep, &keep)))
		return lw_decline(c, "dim or keepdim not constant");
	struct ir_value *x = T(0);
	if (!x)
		return lw_decline(c, "the input is not a tensor");
	if (idt >= 0 && idt < (int)n->ninputs && !lw_is_none(c, n, idt)) {
		if (!lw_int(c, n, idt, &st) ||
		    lw_torch_dtype(st) == IR_DTYPE_UNDEFINED)
			return lw_decline(c, "dtype not constant");
		x = b_cast(c, x, lw_torch_dtype(st));
	}
	enum ir_dtype dt = b_dtype(x);
	if (p == 1 || p == 2) {
		out[0] = b_reduce(c, p == 1 ? "ReduceL1" : "ReduceL2", x, axes,
				  k, (int)keep);
		return 0;
	}
	if (!b_is_float(dt))
		return lw_decline(c, "a norm of a non-float tensor");
	if (c->opset < 9)
		return lw_decline(c, "p other than 1 or 2 needs opset 9");
	struct ir_value *a = b_op1(c, "Abs", x);
	if (isinf(p)) {
		out[0] = b_reduce(c, p > 0 ? "ReduceMax" : "ReduceMin", a,
				  axes, k, (int)keep);
		return 0;
	}
	if (p == 0) {
		out[0] = b_reduce(c, "ReduceSum", b_op1(c, "Sign", a), axes, k,
				  (int)keep);
		return 0;
	}
	struct ir_value *s = b_reduce(c, "ReduceSum",
		b_op2(c, "Pow", a, b_const_scalar(c, p, dt, 0)), axes, k,
		(int)keep);
	out[0] = b_op2(c, "Pow", s, b_const_scalar(c, 1 / p, dt, 0));
	return 0;
}

SYM(sym_norm)
{
	/* norm.Scalar(self, p) or norm.ScalarOpt_dim(self, p, dim, keepdim) */
	if (n->ninputs == 2)
		return vnorm(c, n, out, 1, -1, -1, -1);
	if (n->ninputs == 4)
		return vnorm(c, n, out, 1, 2, 3, -1);
	return lw_decline(c, "the dtype overloads");
}

SYM(sym_linalg_vector_norm)
{
	/* (self, ord, dim, keepdim, dtype) */
	return vnorm(c, n, out, 1, 2, 3, 4);
}

SYM(sym_einsum12)
{
	const char *eq = lw_str(c, n, 0);
	struct ir_value *v[64];
	int k = lw_list(c, n, 1, v, 64);
	if (!eq || k < 1)
		return lw_decline(c, "equation or operands not known");
	struct ir_node *e = b_node(c, "Einsum", k, v, 1);
	b_attr_s(c, e, "equation", eq);
	out[0] = b_done(c, e);
	return 0;
}

SYM(sym_index)
{
	/* index(self, Tensor?[] indices): one integer index tensor, the
	 * other entries None: Gather on its dim (numpy's rule for one
	 * advanced index) */
	struct ir_node *p = IN(1) ? IN(1)->producer : NULL;
	int at = -1;
	if (!p || p->op != OP_prim_ListConstruct)
		return lw_decline(c, "indices not a list");
	for (uint32_t i = 0; i < p->ninputs; i++) {
		if (lw_is_none(c, p, (int)i))
			continue;
		if (at >= 0)
			return lw_decline(c, "more than one index tensor");
		at = (int)i;
	}
	if (at < 0)
		return lw_decline(c, "no index tensor");
	struct ir_value *ix = lw_tensor(c, p, at);
	enum ir_dtype dt = b_dtype(ix);
	if (!ix || dt == IR_DTYPE_BOOL || dt == IR_DTYPE_UINT8 ||
	    dt == IR_DTYPE_UNDEFINED)
		return lw_decline(c, "a mask or untyped index");
	struct ir_node *g = b_node(c, "Gather", 2, (struct ir_value *[]){
		T(0), b_cast(c, ix, IR_DTYPE_INT64) }, 1);
	b_attr_i(c, g, "axis", at);
	out[0] = b_done(c, g);
	return 0;
}

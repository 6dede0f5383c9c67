/*
 * lower_alias.c - the lowering driver's alias, copy and view bookkeeping
 * (lower.c's header comment says how values are rewired): which ONNX value
 * an aten value reads through its aliases, which values are copies, and
 * how an in-place op on a slice/select view writes back into its base.
 */
#include <stdlib.h>
#include <string.h>

#include "aten_schema.h"
#include "lower_driver.h"
#include "symbolic_common.h"

/* --- aliases and copies -------------------------------------------------
 * Each aten value reads an ONNX value through its aux chain.  A link of
 * the chain is an alias (v is the same tensor as v->aux: x.detach(),
 * x.contiguous(), the result of an in-place op, a value after a write)
 * or a copy (v is a tensor of its own that holds v->aux's value: a copy
 * record).  A write into v redirects the last value of v's alias chain
 * (lw_alias_root), so every alias of v sees the write, and no copy does. */

static const struct lw_copy *find_copy(const struct lower_ctx *c,
				       const struct ir_value *v)
{
	for (const struct lw_copy *k = c->copies; k; k = k->next)
		if (k->v == v)
			return k->snap == v->aux ? k : NULL;
	return NULL;
}

/* v becomes a copy of snap (an ONNX value, remapped). */
void lw_set_copy(struct lower_ctx *c, struct ir_value *v,
		 struct ir_value *snap)
{
	struct lw_copy *k = ir_alloc(c->g, sizeof(*k));
	k->v = v;
	k->snap = snap;
	k->blk = c->blk;
	k->next = c->copies;
	c->copies = k;
	v->aux = snap;
}

/* The ONNX value aten value v reads now. */
struct ir_value *lw_remap(const struct lower_ctx *c, struct ir_value *v)
{
	while (v && v->aux) {
		if (c->copies && find_copy(c, v))
			return v->aux;
		v = v->aux;
	}
	return v;
}

/* The value a write into v redirects: the end of v's alias links. */
struct ir_value *lw_alias_root(const struct lower_ctx *c,
			       struct ir_value *v)
{
	while (v && v->aux && !(c->copies && find_copy(c, v)))
		v = v->aux;
	return v;
}

/* 1 when root (an lw_alias_root) belongs to the block being lowered, so
 * that redirecting it does not leak out of a sub-block: a copy made
 * there, a value made there, a parameter of it, or anything at the top
 * level. */
int lw_of_block(const struct lower_ctx *c, const struct ir_value *root)
{
	const struct lw_copy *k = c->copies ? find_copy(c, root) : NULL;
	if (k)
		return k->blk == c->blk;
	if (root->producer)
		return root->producer->owner == c->blk;
	if (!c->blk->owner)
		return 1;
	for (uint32_t i = 0; i < c->blk->nparams; i++)
		if (c->blk->params[i] == root)
			return 1;
	return 0;
}

/* The second bool of aten::to's overloads (non_blocking, copy) is copy. */
static int to_copies(struct lower_ctx *c, struct ir_node *n)
{
	int nb = 0;
	for (uint32_t i = 1; i < n->ninputs; i++) {
		int64_t v;
		if (!n->inputs[i] || n->inputs[i]->type->kind != IR_TYPE_BOOL)
			continue;
		if (++nb == 2)
			return lw_int(c, n, (int)i, &v) && v;
	}
	return 0;
}

/* 1 when output i of aten node n is a tensor of its own in torch (the
 * symbolic returned an existing value for it): x.clone(), x.to(...,
 * copy=True), and ops whose schema gives a fresh result (torch.cat([x]),
 * x.repeat(1)) except those that return their input itself in eager
 * torch although their schema does not say so (dropout in eval mode,
 * type_as, atleast_Nd). */
int lw_copies_input(struct lower_ctx *c, struct ir_node *n, uint32_t i)
{
	static const enum aten_op eager_alias[] = {
		OP_aten_dropout, OP_aten_feature_dropout, OP_aten_alpha_dropout,
		OP_aten_feature_alpha_dropout, OP_aten_type_as,
		OP_aten_atleast_1d, OP_aten_atleast_2d, OP_aten_atleast_3d,
	};
	if (n->op == OP_aten_clone)
		return 1;
	if (n->op == OP_aten_to)
		return to_copies(c, n);
	for (size_t k = 0; k < sizeof(eager_alias) / sizeof(eager_alias[0]);
	     k++)
		if (n->op == eager_alias[k])
			return 0;
	size_t cnt = 0;
	const struct aten_schema *s = aten_schema_lookup(n->kind, &cnt);
	int fresh = 0;
	for (size_t k = 0; s && k < cnt; k++) {
		int out = 0;
		for (int a = 0; a < s[k].nargs; a++)
			out |= aten_schema_arg(&s[k], a)->flags & ATEN_ARG_OUT;
		if (out || (int)i >= s[k].nrets)
			continue;
		if (aten_schema_ret(&s[k], (int)i)->alias)
			return 0;
		fresh = 1;
	}
	return fresh;
}

/* --- in-place ops on views ------------------------------------------------
 * x[a:b, c] = y as torch records it: slice/select views of x, then an
 * in-place op (fill_, copy_, add_...) on the view.  As torch's
 * remove-inplace-ops pass does, the op lowers out of place and the result
 * is scattered back into the base (and into the base's base, up the
 * chain), whose later uses read the new value.  The positions come from
 * the view op itself, applied to the indices 0..size-1 of the dim it
 * works on: any start, end, step or index the view op's symbolic takes.
 */

void lw_add_view(struct lower_ctx *c, struct ir_value *v,
		 struct ir_node *vn, struct ir_value *base)
{
	struct lw_list *l = ir_alloc(c->g, sizeof(*l));
	memset(l, 0, sizeof(*l));
	l->list = v;
	l->view = vn;
	l->base = base;
	l->next = c->lists;
	c->lists = l;
	/* out of memory: the write-back finds no record and the in-place
	 * write is not carried into the base; refuse instead */
	if (ir_vmap_put(c->views, v, (struct ir_value *)(void *)l))
		lw_report(c, vn, "out of memory recording a view");
}

/* The view record of aten value v or of a value it aliases (up to its
 * lw_alias_root: a copy is no view), or NULL.  Looked up by value (a
 * trace of thousands of in-place writes, each searching every record in
 * lists, took minutes).  A view's value is of the block that made it, so
 * a record a branch or loop body made (dropped from lists after it) is
 * never asked for after it. */
static struct lw_list *find_view(struct lower_ctx *c, struct ir_value *v)
{
	for (int depth = 0; v && depth < 4096; depth++) {
		struct ir_value *r = ir_vmap_get(c->views, v);
		if (r != v)
			return (struct lw_list *)(void *)r;
		if (!v->aux || (c->copies && find_copy(c, v)))
			break;
		v = v->aux;
	}
	return NULL;
}

int lw_is_view_op(const struct ir_node *n)
{
	return (n->op == OP_aten_slice && n->ninputs == 5) ||
	       (n->op == OP_aten_select && n->ninputs == 3);
}

/* copy_ into a view that no record carries back (x.t(), x.view(...)[i]
 * made by a reshaping op): refused rather than lost.  v: the aten value
 * written. */
int lw_copy_target_ok(struct lower_ctx *c, struct ir_value *v)
{
	static const char *const views[] = {
		"onnx::Slice", "onnx::Gather", "onnx::Reshape",
		"onnx::Transpose", "onnx::Squeeze", "onnx::Unsqueeze",
	};
	struct ir_value *root = lw_alias_root(c, v);
	struct ir_node *p = root->producer;
	if (!p || (c->copies && find_copy(c, root)) || find_view(c, v))
		return 0;
	for (size_t i = 0; i < sizeof(views) / sizeof(views[0]); i++)
		if (!strcmp(p->kind, views[i]))
			return lw_decline(c, "copy into a view");
	return 0;
}

/* 0 when a write into aten value v can be carried back up its chain of
 * views: every base is of this block (its aux would leak out of a
 * sub-block). */
int lw_views_ok(struct lower_ctx *c, struct ir_value *v)
{
	struct lw_list *rec;
	for (int depth = 0; (rec = find_view(c, v)) != NULL; depth++) {
		if (depth >= 64 || !lw_of_block(c, lw_alias_root(c, rec->base)))
			return lw_decline(c, "in-place op on a view of a value "
					  "from an enclosing block");
		v = rec->base;
	}
	return 0;
}

/* The positions along dim d of base that view node vn takes, as indices
 * shaped like nv (the view's new value; for select with dim d put back as
 * size 1, *nvp unsqueezed alike). */
static struct ir_value *view_indices(struct lower_ctx *c, struct ir_node *vn,
				     struct ir_value *base, int64_t d,
				     struct ir_value **nvp)
{
	int r = b_rank(base);
	const struct ir_type *t = base->type;
	struct ir_value *idx;
	int64_t axes[64];
	int k = 0;

	if (t->kind == IR_TYPE_TENSOR && t->dims && t->dims[d].kind ==
	    IR_DIM_FIXED && t->dims[d].value <= 65536) {
		int64_t size = t->dims[d].value;
		int64_t *v = ir_alloc(c->g, sizeof(*v) * (size ? size : 1));
		for (int64_t i = 0; i < size; i++)
			v[i] = i;
		idx = b_const_i64s(c, v, (int)size, 1);
	} else {
		idx = sym_arange_count(c, b_dim(c, base, d));
	}
	if (!idx)
		return NULL;
	for (int i = 0; i < r; i++)
		if (i != d)
			axes[k++] = i;
	if (k)
		idx = b_unsqueeze(c, idx, axes, k);
	/* the view op's own symbolic on the indices */
	symbolic_fn fn = symbolic_lookup(vn->op, c->opset);
	struct ir_value *saved = vn->inputs[0], *res[2] = { NULL, NULL };
	vn->inputs[0] = idx;
	int rc = fn ? fn(c, vn, res) : 1;
	vn->inputs[0] = saved;
	if (rc || !res[0])
		return NULL;
	idx = res[0];
	if (vn->op == OP_aten_select) {
		idx = b_unsqueeze(c, idx, &d, 1);
		*nvp = b_unsqueeze(c, *nvp, &d, 1);
	}
	return b_op2(c, "Expand", idx, b_op1(c, "Shape", *nvp));
}

/* Aten value v (this block's) was written: when v is a view, each base
 * up the chain gets v's new value scattered into the view's place, and
 * the base's lw_alias_root reads the result. 0, or 1 with c->why. */
int lw_write_back(struct lower_ctx *c, struct ir_value *v)
{
	struct lw_list *rec;
	for (int depth = 0; (rec = find_view(c, v)) != NULL && depth < 64;
	     depth++) {
		struct ir_node *vn = rec->view;
		struct ir_value *nv = lw_remap(c, v);
		struct ir_value *root = lw_alias_root(c, rec->base);
		struct ir_value *base = lw_remap(c, root);
		int64_t d;
		int r = b_rank(base);
		if (c->opset < 9)
			return lw_decline(c, "writing into a view needs opset 9 "
					  "(Scatter)");
		if (r < 1 || !lw_int(c, vn, 1, &d))
			return lw_decline(c, "writing into a view of unknown "
					  "rank");
		if (d < 0)
			d += r;
		if (d < 0 || d >= r)
			return lw_decline(c, "writing into a view: bad dim");
		struct ir_value *upd = b_cast(c, nv, b_dtype(base));
		struct ir_value *idx = view_indices(c, vn, base, d, &upd);
		if (!idx)
			return lw_decline(c, "writing into a view: its "
					  "positions are not known");
		struct ir_node *s = b_node(c, c->opset >= 11 ? "ScatterElements"
					   : "Scatter", 3,
					   (struct ir_value *[]){ base, idx, upd },
					   1);
		b_attr_i(c, s, "axis", d);
		root->aux = b_done(c, s);
		v = rec->base;
	}
	return 0;
}

int lw_input_writable(struct lower_ctx *c, struct ir_node *n, int i)
{
	struct ir_value *v = n->inputs[i];
	if (!lw_of_block(c, lw_alias_root(c, v)))
		return lw_decline(c, "an in-place write into a value from an "
				  "enclosing block");
	return lw_views_ok(c, v);
}

int lw_write_input(struct lower_ctx *c, struct ir_node *n, int i,
		   struct ir_value *v)
{
	lw_alias_root(c, n->inputs[i])->aux = v;
	return lw_write_back(c, n->inputs[i]);
}

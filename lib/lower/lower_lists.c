/*
 * lower_lists.c - the lowering driver's list bookkeeping: lists of tensors
 * followed element-wise (struct lw_list records), lists a branch of an if
 * changes (outputs of the If), lists appended to in a loop (carried ONNX
 * sequences), and the symbolics of the list operators (append, __getitem__,
 * len, _set_item, __contains__, ...).
 */
#include <stdlib.h>
#include <string.h>

#include "lower_driver.h"
#include "symbolic_common.h"

void lw_set_list(struct lower_ctx *c, struct ir_value *list,
		 struct ir_value **vals, int n)
{
	struct lw_list *l = ir_alloc(c->g, sizeof(*l));
	l->list = list;
	l->vals = ir_alloc(c->g, sizeof(*vals) * (n ? n : 1));
	memcpy(l->vals, vals, sizeof(*vals) * n);
	l->n = n;
	l->keys = NULL;
	l->next = c->lists;
	c->lists = l;
}

struct lw_list *lw_find_list(struct lower_ctx *c, struct ir_value *v)
{
	for (struct lw_list *l = c->lists; l; l = l->next)
		if (l->list == v && !l->view)
			return l;
	return NULL;
}

int lw_list(struct lower_ctx *c, struct ir_node *n, int i,
	    struct ir_value **v, int max)
{
	struct ir_value *x = lw_in(c, n, i);
	struct lw_list *l = x ? lw_find_list(c, x) : NULL;
	if (l) {
		if (l->n > max)
			return -1;
		/* a dict reads as its keys (len(d), list(d)), as Python's */
		memcpy(v, l->keys ? l->keys : l->vals, sizeof(*v) * l->n);
		return l->n;
	}
	struct ir_node *p = x ? x->producer : NULL;
	if (!p || p->op != OP_prim_ListConstruct ||
	    p->ninputs > (uint32_t)max)
		return -1;
	for (uint32_t j = 0; j < p->ninputs; j++) {
		/* strs, tuples, lists and dicts stay what they are (no
		 * op that wants tensors takes a list of them) */
		enum ir_type_kind tk = p->inputs[j]->type->kind;
		v[j] = tk == IR_TYPE_STR || tk == IR_TYPE_TUPLE ||
		       tk == IR_TYPE_LIST || tk == IR_TYPE_DICT
		       ? lw_in(c, p, (int)j) : lw_tensor(c, p, (int)j);
		if (!v[j])
			return -1;
	}
	return (int)p->ninputs;
}

/* The newest record of list v in chain l up to stop (exclusive). */
static struct lw_list *list_in(struct lw_list *l, struct lw_list *stop,
			       struct ir_value *v)
{
	for (; l && l != stop; l = l->next)
		if (l->list == v && !l->view)
			return l;
	return NULL;
}

#define IF_LIST_MAX 64

/* After the branches of If nd (n the prim::If) were lowered, each from
 * c->lists, ending with after[0] and after[1]: a list of before the If
 * that a branch changed (l[i] = v) gets, per changed element, an output
 * of the If that each branch returns its element to, and the uses after
 * the If see those.  Returns the If node (a new one when outputs were
 * added). */
struct ir_node *lw_if_lists(struct lower_ctx *c, struct ir_node *n,
			    struct ir_node *nd, struct lw_list **after)
{
	struct lw_list *l0 = c->lists, *mut[IF_LIST_MAX];
	struct ir_value *tv[IF_LIST_MAX], *ev[IF_LIST_MAX];
	int nm = 0, extra = 0, slot[IF_LIST_MAX], sel[IF_LIST_MAX];

	for (int k = 0; k < 2; k++)
		for (struct lw_list *l = after[k]; l && l != l0; l = l->next) {
			if (l->view || !list_in(l0, NULL, l->list))
				continue;
			int j;
			for (j = 0; j < nm; j++)
				if (mut[j]->list == l->list)
					break;
			if (j == nm && nm < IF_LIST_MAX)
				mut[nm++] = list_in(l0, NULL, l->list);
		}
	for (int m = 0; m < nm; m++) {
		struct lw_list *o = mut[m];
		struct lw_list *t = list_in(after[0], l0, o->list);
		struct lw_list *e = list_in(after[1], l0, o->list);
		struct ir_value **nv;
		t = t ? t : o;
		e = e ? e : o;
		if (t->n != o->n || e->n != o->n) {
			lw_report(c, n, o->keys ? "a dict gets a new key in an "
				  "if" : "a list changes length in an if");
			return nd;
		}
		nv = ir_alloc(c->g, sizeof(*nv) * (o->n + 1));
		for (int j = 0; j < o->n; j++) {
			nv[j] = o->vals[j];
			if (t->vals[j] == o->vals[j] && e->vals[j] == o->vals[j])
				continue;
			if (extra == IF_LIST_MAX) {
				lw_report(c, n, "too many list elements change "
				       "in an if");
				return nd;
			}
			tv[extra] = t->vals[j];
			ev[extra] = e->vals[j];
			slot[extra] = m;
			sel[extra] = j;
			extra++;
		}
		mut[m] = ir_alloc(c->g, sizeof(struct lw_list));
		memset(mut[m], 0, sizeof(struct lw_list));
		mut[m]->list = o->list;
		mut[m]->keys = o->keys;
		mut[m]->vals = nv;
		mut[m]->n = o->n;
	}
	if (extra) {
		/* a new If with room for the extra outputs */
		uint32_t no = n->noutputs;
		struct ir_node *n2 = ir_node_new(c->g, NULL, "onnx::If", 1,
						 no + (uint32_t)extra);
		n2->scope = nd->scope;
		n2->source = nd->source;
		n2->inputs[0] = nd->inputs[0];
		for (uint32_t a = 0; a < nd->nattrs; a++) {
			struct ir_attr *at = ir_node_add_attr(c->g, n2,
				nd->attrs[a].name, IR_ATTR_GRAPH);
			at->u.g = nd->attrs[a].u.g;
			at->u.g->owner = n2;
		}
		ir_block_insert_before(nd, n2);
		ir_node_unlink(nd);
		nd = n2;
		struct ir_block *bl[2] = { nd->attrs[0].u.g, nd->attrs[1].u.g };
		struct ir_node *savepos = c->pos;
		struct ir_block *saveblk = c->blk;
		for (int x = 0; x < extra; x++) {
			struct ir_value *r[2] = { tv[x], ev[x] };
			for (int k = 0; k < 2; k++) {
				c->blk = bl[k];
				c->pos = NULL;
				if (!lw_defined_in(bl[k], r[k]))
					r[k] = b_op1(c, "Identity", r[k]);
				ir_block_add_return(c->g, bl[k], r[k]);
			}
			c->blk = saveblk;
			c->pos = savepos;
			struct ir_type *ty = lw_if_out_type(c, n, no + (uint32_t)x,
							 r[0]->type, r[1]->type);
			if (!ty)
				return nd;
			struct ir_value *ov = ir_value_new(c->g, NULL, ty);
			ir_node_set_output(nd, no + (uint32_t)x, ov);
			mut[slot[x]]->vals[sel[x]] = ov;
		}
	}
	for (int m = 0; m < nm; m++) {
		mut[m]->next = c->lists;
		c->lists = mut[m];
	}
	return nd;
}

/* --- lists changed in loops ---------------------------------------------
 * torch's graph appends to a list made before a loop from inside its body
 * (outs.append(y)); ONNX has no mutation, so, as torch's exporter does, the
 * list becomes a loop-carried value (an ONNX sequence): the loop takes it
 * as one more carried input, the body threads it through its appends (and
 * inner loops that carry it) and returns it, and the uses after the loop
 * read the loop's new output.  Inner loops first. */

static void replace_uses(struct ir_block *b, struct ir_node *from,
			 struct ir_value *old, struct ir_value *nv, int depth)
{
	for (struct ir_node *m = from; m; m = m->next) {
		for (uint32_t i = 0; i < m->ninputs; i++)
			if (m->inputs[i] == old)
				m->inputs[i] = nv;
		if (depth < 64)
			for (uint32_t i = 0; i < m->nblocks; i++)
				replace_uses(m->blocks[i], m->blocks[i]->first,
					     old, nv, depth + 1);
	}
	for (uint32_t i = 0; i < b->nreturns; i++)
		if (b->returns[i] == old)
			b->returns[i] = nv;
}

/* 1 when m changes list l: append(l, x), or a loop carrying l. */
static int list_update(const struct ir_node *m, const struct ir_value *l,
		       struct ir_value **next)
{
	if (m->op == OP_aten_append && m->ninputs == 2 &&
	    m->inputs[0] == l && m->noutputs == 1) {
		*next = m->outputs[0];
		return 1;
	}
	if (m->op == OP_prim_Loop)
		for (uint32_t j = 2; j < m->ninputs; j++)
			if (m->inputs[j] == l && j - 2 < m->noutputs) {
				*next = m->outputs[j - 2];
				return 1;
			}
	return 0;
}

static void carry_list(struct ir_graph *g, struct ir_node *n,
		       struct ir_value *l)
{
	struct ir_block *b = n->blocks[0];
	struct ir_value *p = ir_value_new(g, NULL, ir_type_copy(g, l->type));
	struct ir_value *cur = p, *nx;
	struct ir_value **ins = ir_alloc(g, sizeof(*ins) * (n->ninputs + 1));
	struct ir_value **outs = ir_alloc(g, sizeof(*outs) *
					  (n->noutputs + 1));
	memcpy(ins, n->inputs, sizeof(*ins) * n->ninputs);
	ins[n->ninputs] = l;
	n->inputs = ins;
	n->ninputs++;
	ir_block_add_param(g, b, p);
	for (struct ir_node *m = b->first; m; m = m->next) {
		for (uint32_t i = 0; i < m->ninputs; i++)
			if (m->inputs[i] == l)
				m->inputs[i] = cur;
		for (uint32_t i = 0; i < m->nblocks; i++)
			replace_uses(m->blocks[i], m->blocks[i]->first, l, cur,
				     0);
		if (list_update(m, cur, &nx))
			cur = nx;
	}
	ir_block_add_return(g, b, cur);
	struct ir_value *o = ir_value_new(g, NULL, ir_type_copy(g, l->type));
	if (n->noutputs)
		memcpy(outs, n->outputs, sizeof(*outs) * n->noutputs);
	n->outputs = outs;
	n->noutputs++;
	ir_node_set_output(n, n->noutputs - 1, o);
	replace_uses(n->owner, n->next, l, o, 0);
}

/* 1 when m writes in place (index_put_, copy_, add_...) into a tensor
 * made before loop body b: the tensor is carried as a list is, the body
 * returning its parameter, which lower's in-place rule moves on to each
 * write's result (keep_mask in torchvision's _batched_nms_vanilla). */
static int outer_write(const struct ir_node *m, const struct ir_block *b)
{
	size_t kl = strlen(m->kind);
	const struct ir_value *v = m->ninputs ? m->inputs[0] : NULL;
	if (!v || v->type->kind != IR_TYPE_TENSOR || kl < 8 ||
	    strncmp(m->kind, "aten::", 6) || m->kind[kl - 1] != '_' ||
	    m->kind[kl - 2] == '_')
		return 0;
	for (uint32_t j = 0; j < b->nparams; j++)
		if (b->params[j] == v)
			return 0;
	return !v->producer || v->producer->owner != b;
}

void lw_carry_lists(struct ir_graph *g, struct ir_block *b, int depth)
{
	for (struct ir_node *n = b->first; n; n = n->next) {
		if (depth < 64)
			for (uint32_t i = 0; i < n->nblocks; i++)
				lw_carry_lists(g, n->blocks[i], depth + 1);
		if (n->op != OP_prim_Loop || n->nblocks != 1)
			continue;
		struct ir_block *body = n->blocks[0];
		for (struct ir_node *m = body->first; m; m = m->next) {
			struct ir_value *l = NULL, *nx;
			for (uint32_t i = 0; i < m->ninputs && !l; i++) {
				struct ir_value *v = m->inputs[i];
				int param = 0;
				for (uint32_t j = 0; j < body->nparams; j++)
					param |= body->params[j] == v;
				if (v && !param && v->type->kind == IR_TYPE_LIST &&
				    (!v->producer || v->producer->owner != body) &&
				    list_update(m, v, &nx))
					l = v;
			}
			if (!l && outer_write(m, body))
				l = m->inputs[0];
			if (l)
				carry_list(g, n, l);
		}
	}
}

struct ir_value *lw_seq(struct lower_ctx *c, struct ir_node *n, int i)
{
	struct ir_value *v = lw_in(c, n, i), *el[256];
	if (b_is_seq(v))
		return v;
	int k = lw_list(c, n, i, el, 256);
	if (k < 0)
		return NULL;
	if (k == 0) {
		struct ir_node *e = b_node(c, "SequenceEmpty", 0, NULL, 1);
		enum ir_dtype dt = IR_DTYPE_UNDEFINED;
		if (v && v->type->kind == IR_TYPE_LIST && v->type->nelems == 1)
			dt = b_dtype_of_type(v->type->elems[0]);
		if (dt != IR_DTYPE_UNDEFINED)
			b_attr_i(c, e, "dtype", dt);
		return b_done(c, e);
	}
	return b_done(c, b_node(c, "SequenceConstruct", k, el, 1));
}

/* After a loop body is lowered: a carried sequence that started as a
 * SequenceEmpty of unknown dtype gets the dtype the body inserts, and the
 * body's sequence ops are typed again. */
void lw_fix_seq_dtypes(struct lower_ctx *c, struct ir_node *nd,
		       struct ir_block *b)
{
	int changed = 0;
	for (uint32_t i = 2; i < nd->ninputs && i < b->nreturns + 1; i++) {
		struct ir_node *e = nd->inputs[i]->producer;
		if (!e || strcmp(e->kind, "onnx::SequenceEmpty") ||
		    (ir_node_find_attr(e, "dtype") &&
		     e->outputs[0]->type->elems[0]->rank >= 0))
			continue;
		struct ir_value *r = b->returns[i - 1];
		enum ir_dtype dt = IR_DTYPE_UNDEFINED;
		int rank = -1;
		for (int guard = 0; r && r->producer && guard < 256; guard++) {
			struct ir_node *p = r->producer;
			if (!strcmp(p->kind, "onnx::SequenceInsert") &&
			    b_dtype(p->inputs[1]) != IR_DTYPE_UNDEFINED) {
				dt = b_dtype(p->inputs[1]);
				rank = b_rank(p->inputs[1]);
				break;
			}
			if (strcmp(p->kind, "onnx::SequenceInsert") &&
			    strcmp(p->kind, "onnx::Identity"))
				break;
			r = p->inputs[0];
		}
		if (dt == IR_DTYPE_UNDEFINED)
			continue;
		if (!ir_node_find_attr(e, "dtype"))
			b_attr_i(c, e, "dtype", dt);
		e->outputs[0]->type = b_seq_type(c, dt, rank);
		b->params[i]->type = e->outputs[0]->type;
		changed = 1;
	}
	if (!changed)
		return;
	for (struct ir_node *m = b->first; m; m = m->next)
		if (!strncmp(m->kind, "onnx::Sequence", 14) ||
		    !strcmp(m->kind, "onnx::ConcatFromSequence"))
			b_infer(c, m);
}

/* aten::append(list, x): the list known element-wise gets x, for the
 * uses after it in the same block. */
static int sym_append(struct lower_ctx *c, struct ir_node *n,
		      struct ir_value **out)
{
	struct ir_value *vals[257];
	struct ir_value *l = lw_in(c, n, 0);
	int k = lw_list(c, n, 0, vals, 256);
	if (b_is_seq(l) || (k < 0 && l && l->type->kind == IR_TYPE_LIST &&
			    !l->producer)) {
		/* a sequence (a loop-carried list): SequenceInsert */
		struct ir_value *x = lw_tensor(c, n, 1);
		if (!x)
			return lw_decline(c, "the element is not a tensor");
		out[0] = b_op2(c, "SequenceInsert", l, x);
		return 0;
	}
	if (k < 0)
		return lw_decline(c, "the list is not known element-wise");
	if (l->producer && l->producer->owner && l->producer->owner != c->blk)
		return lw_decline(c, "a list from an enclosing block");
	enum ir_type_kind ek = n->inputs[1]->type->kind;
	vals[k] = ek == IR_TYPE_STR || ek == IR_TYPE_TUPLE ||
		  ek == IR_TYPE_LIST || ek == IR_TYPE_DICT
		  ? lw_in(c, n, 1) : lw_tensor(c, n, 1);
	if (!vals[k])
		return lw_decline(c, "the element is not a tensor");
	lw_set_list(c, l, vals, k + 1);
	lw_set_list(c, n->outputs[0], vals, k + 1);
	out[0] = NULL;
	return 0;
}

/* aten::insert(list, i, x) and aten::extend(list, other) of lists known
 * element-wise, in straight-line code (a loop over them is unrolled
 * first: lower.c): the uses after it see the new elements. */
static int sym_insert(struct lower_ctx *c, struct ir_node *n,
		      struct ir_value **out)
{
	struct ir_value *vals[513], *more[256];
	struct ir_value *l = lw_in(c, n, 0);
	int64_t i;
	int k = lw_list(c, n, 0, vals, 256), m = 1;
	if (k < 0 || !l)
		return lw_decline(c, "the list is not known element-wise");
	if (l->producer && l->producer->owner && l->producer->owner != c->blk)
		return lw_decline(c, "a list from an enclosing block");
	if (n->op == OP_aten_extend) {
		if (n->ninputs != 2 ||
		    (m = lw_list(c, n, 1, more, 256)) < 0)
			return lw_decline(c, "the other list is not known "
					  "element-wise");
		i = k;
	} else {
		if (n->ninputs != 3 || !lw_int(c, n, 1, &i))
			return lw_decline(c, "the index is not constant");
		struct ir_value *e = n->inputs[2];
		more[0] = e->type->kind == IR_TYPE_TENSOR ||
			  e->type->kind == IR_TYPE_INT ||
			  e->type->kind == IR_TYPE_FLOAT ||
			  e->type->kind == IR_TYPE_BOOL
			  ? lw_tensor(c, n, 2) : lw_in(c, n, 2);
		if (!more[0])
			return lw_decline(c, "the element is not usable");
		/* Python's insert clamps the index */
		if (i < 0)
			i += k;
		i = i < 0 ? 0 : i > k ? k : i;
	}
	memmove(&vals[i + m], &vals[i], sizeof(vals[0]) * (size_t)(k - i));
	memcpy(&vals[i], more, sizeof(vals[0]) * (size_t)m);
	lw_set_list(c, l, vals, k + m);
	for (uint32_t j = 0; j < n->noutputs; j++)
		out[j] = NULL;
	if (n->noutputs)
		lw_set_list(c, n->outputs[0], vals, k + m);
	return 0;
}

/* aten::__getitem__(list, i) with a constant i, of a list known
 * element-wise (size(), split, ListConstruct...): the element. */
static int sym_getitem(struct lower_ctx *c, struct ir_node *n,
		       struct ir_value **out)
{
	struct ir_value *vals[256];
	int64_t i;
	int k;
	if (n->ninputs != 2)
		return lw_decline(c, "not a list");
	struct ir_value *l = lw_in(c, n, 0);
	if (lw_is_dict(l))
		return lw_dict_getitem(c, n, out);
	if (b_is_seq(l) || (!lw_int(c, n, 1, &i) && l &&
			    l->type->kind == IR_TYPE_LIST &&
			    l->type->nelems == 1 &&
			    l->type->elems[0]->kind == IR_TYPE_TENSOR)) {
		/* SequenceAt: a sequence, or a dynamic index into a list
		 * of tensors (made a sequence) */
		struct ir_value *s = lw_seq(c, n, 0);
		struct ir_value *ix = lw_scalar_as(c, n, 1, IR_DTYPE_INT64, 0);
		if (!s || !ix)
			return lw_decline(c, "the list is not known");
		out[0] = b_op2(c, "SequenceAt", s, ix);
		return 0;
	}
	if (!lw_int(c, n, 1, &i))
		return lw_decline(c, "the index is not constant");
	if ((k = lw_list(c, n, 0, vals, 256)) < 0) {
		/* a list lowered to a 1-d tensor (size()): Gather */
		struct ir_value *t = lw_in(c, n, 0);
		if (!t || t->type->kind != IR_TYPE_TENSOR || b_rank(t) != 1)
			return lw_decline(c, "the list is not known "
					  "element-wise");
		struct ir_node *gn = b_node(c, "Gather", 2,
			(struct ir_value *[]){ t, b_const_i64(c, i) }, 1);
		b_attr_i(c, gn, "axis", 0);
		out[0] = b_done(c, gn);
		return 0;
	}
	if (i < 0)
		i += k;
	if (i < 0 || i >= k)
		return lw_decline(c, "the index is out of range");
	out[0] = vals[i];
	return 0;
}

/* aten::Delete(list, i) (`del l[i]`) with a constant i, of a list known
 * element-wise: the uses after it in the same block see the list without
 * that element. */
static int sym_delete(struct lower_ctx *c, struct ir_node *n,
		      struct ir_value **out)
{
	struct ir_value *vals[256];
	struct ir_value *l = lw_in(c, n, 0);
	int64_t i;
	int k;
	if (n->ninputs != 2 || !lw_int(c, n, 1, &i))
		return lw_decline(c, "the index is not constant");
	if ((k = lw_list(c, n, 0, vals, 256)) < 0)
		return lw_decline(c, "the list is not known element-wise");
	if (l->producer && l->producer->owner && l->producer->owner != c->blk)
		return lw_decline(c, "a list from an enclosing block");
	if (i < 0)
		i += k;
	if (i < 0 || i >= k)
		return lw_decline(c, "the index is out of range");
	memmove(&vals[i], &vals[i + 1], sizeof(vals[0]) * (size_t)(k - i - 1));
	lw_set_list(c, l, vals, k - 1);
	return 0;
}

/* aten::len of a list: its length when known element-wise, else
 * SequenceLength of the sequence, or the length of a list lowered to a
 * 1-d tensor. */
static int sym_len(struct lower_ctx *c, struct ir_node *n,
		   struct ir_value **out)
{
	struct ir_value *vals[256];
	struct ir_value *l = lw_in(c, n, 0);
	int k = lw_list(c, n, 0, vals, 256);
	if (k >= 0 && !b_is_seq(l)) {
		out[0] = b_const_i64(c, k);
		return 0;
	}
	if (b_is_seq(l)) {
		out[0] = b_op1(c, "SequenceLength", l);
		return 0;
	}
	struct ir_value *t = lw_tensor(c, n, 0);
	if (!t || b_rank(t) < 1)
		return lw_decline(c, "the list is not known");
	/* len(x) of a tensor: its size(0), a constant where fixed (a weight:
	 * SSD's _wh_pairs[k]) */
	out[0] = t->type->dims[0].kind == IR_DIM_FIXED
		 ? b_const_i64(c, t->type->dims[0].value) : b_dim(c, t, 0);
	return 0;
}

/* aten::__contains__(list, x) (`x in l`) of a list of numbers known
 * element-wise: Equal to each, Or'd (false for an empty list).  Strings
 * are folded by the script stage when constant; anything else declined. */
static int sym_contains(struct lower_ctx *c, struct ir_node *n,
			struct ir_value **out)
{
	struct ir_value *vals[256];
	if (n->ninputs == 2 && lw_is_dict(n->inputs[0]))
		return lw_dict_contains(c, n, out);
	if (n->ninputs != 2 || n->inputs[0]->type->kind != IR_TYPE_LIST)
		return lw_decline(c, "not a list");
	int k = lw_list(c, n, 0, vals, 256);
	if (k < 0 || b_is_seq(lw_in(c, n, 0)))
		return lw_decline(c, "the list is not known element-wise");
	if (n->inputs[1]->type->kind == IR_TYPE_STR) {
		/* a constant str in a list of constant strs (poolers'
		 * `k in featmap_names`) */
		int found = 0;
		for (int i = 0; i < k; i++) {
			int eq = lw_str_eq(c, lw_in(c, n, 1), vals[i]);
			if (eq < 0)
				return lw_decline(c, "a str that is not constant");
			found |= eq;
		}
		out[0] = b_const_bool(c, found);
		return 0;
	}
	struct ir_value *x = lw_tensor(c, n, 1), *r = NULL;
	if (!x || b_rank(x) != 0)
		return lw_decline(c, "the value is not a number");
	for (int i = 0; i < k; i++) {
		struct ir_value *e = vals[i];
		if (!e || e->type->kind != IR_TYPE_TENSOR || b_rank(e) != 0)
			return lw_decline(c, "an element is not a number");
		enum ir_dtype dt = b_dtype(e) == IR_DTYPE_DOUBLE ||
				   b_dtype(x) == IR_DTYPE_DOUBLE ||
				   b_dtype(e) == IR_DTYPE_FLOAT ||
				   b_dtype(x) == IR_DTYPE_FLOAT ?
				   IR_DTYPE_DOUBLE : IR_DTYPE_INT64;
		struct ir_value *eq = b_op2(c, "Equal", b_cast(c, e, dt),
					    b_cast(c, x, dt));
		r = r ? b_op2(c, "Or", r, eq) : eq;
	}
	out[0] = r ? r : b_const_bool(c, 0);
	return 0;
}

/* prim::min / prim::max of a list of numbers known element-wise (min(l))
 * or of two numbers (min(a, b)): the constant when every one is, else
 * ONNX Min / Max in int64 or double. */
static int sym_prim_minmax(struct lower_ctx *c, struct ir_node *n,
			   struct ir_value **out)
{
	struct ir_value *vals[256];
	int k, ismin = n->op == OP_prim_min;
	if (n->noutputs != 1)
		return lw_decline(c, "not a number");
	if (n->ninputs == 1) {
		k = lw_list(c, n, 0, vals, 256);
	} else if (n->ninputs == 2) {
		vals[0] = lw_tensor(c, n, 0);
		vals[1] = lw_tensor(c, n, 1);
		k = vals[0] && vals[1] ? 2 : -1;
	} else {
		k = -1;
	}
	if (k <= 0)
		return lw_decline(c, "the operands are not numbers known "
				  "element-wise");
	int isf = 0, allc = 1;
	int64_t best = 0;
	for (int i = 0; i < k; i++) {
		int64_t v;
		if (!vals[i] || vals[i]->type->kind != IR_TYPE_TENSOR ||
		    b_rank(vals[i]) != 0)
			return lw_decline(c, "an operand is not a number");
		isf |= b_dtype(vals[i]) == IR_DTYPE_FLOAT ||
		       b_dtype(vals[i]) == IR_DTYPE_DOUBLE;
		if (b_const_ints(vals[i], &v, 1) != 1)
			allc = 0;
		else if (!i || (ismin ? v < best : v > best))
			best = v;
	}
	if (allc && !isf) {
		out[0] = b_const_i64(c, best);
		return 0;
	}
	/* Min and Max take int64 from opset 12: before, ints go through
	 * double (exact up to 2^53, far beyond any size) */
	enum ir_dtype dt = isf || c->opset < 12 ? IR_DTYPE_DOUBLE
						: IR_DTYPE_INT64;
	struct ir_value *r = b_cast(c, vals[0], dt);
	for (int i = 1; i < k; i++)
		r = b_op2(c, ismin ? "Min" : "Max", r, b_cast(c, vals[i], dt));
	out[0] = isf ? r : b_cast(c, r, IR_DTYPE_INT64);
	return 0;
}

/* Ops with no ONNX meaning: dropped. */
static int sym_drop(struct lower_ctx *c, struct ir_node *n,
		    struct ir_value **out)
{
	return n->noutputs ? lw_decline(c, "has outputs") : 0;
}

/* 1 when v is read only by aten::warn in the nodes from x on (and their
 * blocks), and not returned by block b */
static int read_by_warn_only(const struct ir_block *b,
			     const struct ir_node *x, const struct ir_value *v)
{
	for (uint32_t i = 0; i < b->nreturns; i++)
		if (b->returns[i] == v)
			return 0;
	for (; x; x = x->next) {
		for (uint32_t i = 0; i < x->ninputs; i++)
			if (x->inputs[i] == v && x->op != OP_aten_warn)
				return 0;
		for (uint32_t i = 0; i < x->nblocks; i++)
			if (!read_by_warn_only(x->blocks[i], x->blocks[i]->first, v))
				return 0;
	}
	return 1;
}

/* aten::format of a message only aten::warn reads (torch.nn.functional's
 * size checks: `warnings.warn("... ({})".format(target.size()))`): warn
 * is dropped, so is its message; a placeholder stands for it */
static int sym_format_warned(struct lower_ctx *c, struct ir_node *n,
			     struct ir_value **out)
{
	if (n->noutputs != 1 || !read_by_warn_only(c->blk, n->next,
						   n->outputs[0]))
		return lw_decline(c, "a string is read by more than aten::warn");
	out[0] = b_const_i64(c, 0);
	return 0;
}

/* 1 when the block being lowered is (inside) a loop body. */
int lw_in_loop(struct lower_ctx *c)
{
	for (struct ir_block *b = c->blk; b && b->owner; b = b->owner->owner)
		if (!strcmp(b->owner->kind, "onnx::Loop") ||
		    b->owner->op == OP_prim_Loop)
			return 1;
	return 0;
}

/* aten::copy(list) (l.copy()): a new list of the same elements.  The
 * tensor form, copy(self, src, non_blocking) (x.copy_(src) made
 * functional, as trace and script record it), is copy_'s symbolic: src
 * as self's dtype and shape, a new tensor. */
static int sym_list_copy(struct lower_ctx *c, struct ir_node *n,
			 struct ir_value **out)
{
	struct ir_value *vals[256];
	if (n->ninputs >= 2 && n->noutputs == 1 &&
	    n->outputs[0]->type->kind != IR_TYPE_LIST) {
		symbolic_fn f = symbolic_lookup(OP_aten_copy_, c->opset);
		return f ? f(c, n, out) : lw_decline(c, "no symbolic for copy_");
	}
	if (n->ninputs == 1 && n->noutputs == 1 && lw_is_dict(n->inputs[0])) {
		struct lw_list *d = lw_find_list(c, lw_in(c, n, 0));
		if (!d || !d->keys)
			return lw_decline(c, "the dict is not known entry by "
					  "entry");
		lw_set_dict(c, n->outputs[0], d->keys, d->vals, d->n);
		out[0] = NULL;
		return 0;
	}
	if (n->ninputs != 1 || n->noutputs != 1 ||
	    n->outputs[0]->type->kind != IR_TYPE_LIST)
		return lw_decline(c, "not a list");
	int k = lw_list(c, n, 0, vals, 256);
	if (k < 0)
		return lw_decline(c, "the list is not known element-wise");
	lw_set_list(c, n->outputs[0], vals, k);
	out[0] = NULL;
	return 0;
}

/* aten::list(l) (list(x.size())...): a new list of the same elements,
 * or the same 1-d tensor where the list is one (a dynamic size()). */
static int sym_list_list(struct lower_ctx *c, struct ir_node *n,
			 struct ir_value **out)
{
	struct ir_value *vals[256];
	if (n->ninputs != 1 || n->noutputs != 1)
		return lw_decline(c, "not a list");
	int k = lw_list(c, n, 0, vals, 256);
	if (k >= 0) {
		lw_set_list(c, n->outputs[0], vals, k);
		out[0] = NULL;
		return 0;
	}
	struct ir_value *t = lw_in(c, n, 0);
	if (!t || (t->type->kind != IR_TYPE_TENSOR && !b_is_seq(t)))
		return lw_decline(c, "the list is not known");
	out[0] = t;
	return 0;
}

/* aten::_set_item(list, i, v) (l[i] = v), i constant, of a list known
 * element-wise: the uses after it see v there; in an if, the branches'
 * lists are merged by lw_if_lists. */
static int sym_set_item(struct lower_ctx *c, struct ir_node *n,
			struct ir_value **out)
{
	struct ir_value *vals[256];
	int64_t i;
	if (n->ninputs != 3)
		return lw_decline(c, "not a list");
	struct ir_value *l = lw_in(c, n, 0);
	if (lw_is_dict(l))
		return lw_dict_set_item(c, n, out);
	int k = lw_list(c, n, 0, vals, 256);
	if (k < 0 || !l)
		return lw_decline(c, "the list is not known element-wise");
	if (!lw_int(c, n, 1, &i))
		return lw_decline(c, "the index is not constant");
	if (i < 0)
		i += k;
	if (i < 0 || i >= k)
		return lw_decline(c, "the index is out of range");
	if (lw_in_loop(c))
		return lw_decline(c, "a list changed in a loop");
	struct ir_value *e = lw_tensor(c, n, 2);
	if (!e)
		return lw_decline(c, "the element is not a tensor or number");
	vals[i] = e;
	lw_set_list(c, l, vals, k);
	for (uint32_t j = 0; j < n->noutputs; j++)
		out[j] = NULL;
	if (n->noutputs)
		lw_set_list(c, n->outputs[0], vals, k);
	return 0;
}

static const struct symbolic driver_ops[] = {
	{ OP_aten__set_item, 0, 0, SYM_PRIO_BASE, sym_set_item },
	{ OP_aten_copy, 0, 0, SYM_PRIO_BASE, sym_list_copy },
	{ OP_aten_Delete, 0, 0, SYM_PRIO_BASE, sym_delete },
	{ OP_aten___getitem__, 0, 0, SYM_PRIO_BASE, sym_getitem },
	{ OP_aten_append, 0, 0, SYM_PRIO_BASE, sym_append },
	{ OP_aten_insert, 0, 0, SYM_PRIO_BASE, sym_insert },
	{ OP_prim_min, 0, 0, SYM_PRIO_BASE, sym_prim_minmax },
	{ OP_prim_max, 0, 0, SYM_PRIO_BASE, sym_prim_minmax },
	{ OP_aten_extend, 0, 0, SYM_PRIO_BASE, sym_insert },
	{ OP_aten_len, 0, 0, SYM_PRIO_BASE, sym_len },
	{ OP_aten___contains__, 0, 0, SYM_PRIO_BASE, sym_contains },
	{ OP_aten_list, 0, 0, SYM_PRIO_BASE, sym_list_list },
	{ OP_aten_warn, 0, 0, SYM_PRIO_BASE, sym_drop },
	{ OP_aten_format, 0, 0, SYM_PRIO_BASE, sym_format_warned },
};

const struct symbolic_table symbolic_driver_table = {
	driver_ops, sizeof(driver_ops) / sizeof(driver_ops[0]),
};

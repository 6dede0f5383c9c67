/*
 * unroll.c - unrolls the script stage's Python-level loops of a constant
 * trip count (interpolate's `[scale for _ in range(dim)]`, tensordot's
 * `list(range(-dims, 0))`) and folds the lists they build into
 * prim::ListConstruct of known elements, so that what an export needs
 * constant (scale factors, dims) is constant.  See unroll.h.
 *
 * Which loops: the trip count and the initial condition constant, the
 * condition the body returns constant in every copy (it may change from
 * one iteration to the next: a `while` on a counter), every node of the
 * body (nested blocks included) giving scalars, strings, None or lists
 * and tuples of them, or being a list mutation (append, insert,
 * _set_item...) whose result is the list.  A body that computes tensors
 * stays a loop, as torch keeps it (ONNX Loop does that better than copies
 * of the body).  At most SCRIPT_UNROLL_MAX_ITERS iterations and
 * SCRIPT_UNROLL_MAX_NODES copied nodes: a larger loop stays a loop.
 *
 * Which lists: see unroll.h.  The fold needs every use of the list known:
 * one in a nested block, a block return, a prim:: node other than
 * prim::ListUnpack, a mutation it does not model (extend, clear, remove,
 * sort...) or an index not constant leaves the list alone.
 *
 * Costs: a loop is copied at most once (abandoned copies are unlinked);
 * list folding scans each list's block once from its construct.
 */
#include <stdlib.h>
#include <string.h>

#include "compile.h"
#include "ir_clone.h"
#include "unroll.h"

struct ir_value *script_fold_node(struct ir_graph *g, struct ir_node *n);

/* --- which bodies ---------------------------------------------------------- */

/* 1 for types that hold no tensor: scalars, strings, None, devices, and
 * lists, tuples and optionals of them. */
static int scalar_type(const struct ir_type *t, int depth)
{
	uint32_t i;

	if (!t || depth > 16)
		return 0;
	switch (t->kind) {
	case IR_TYPE_INT: case IR_TYPE_FLOAT: case IR_TYPE_BOOL:
	case IR_TYPE_STR: case IR_TYPE_NONE: case IR_TYPE_DEVICE:
		return 1;
	case IR_TYPE_LIST: case IR_TYPE_TUPLE: case IR_TYPE_OPTIONAL:
		for (i = 0; i < t->nelems; i++)
			if (!scalar_type(t->elems[i], depth + 1))
				return 0;
		return t->nelems > 0 || t->kind == IR_TYPE_TUPLE;
	default:
		return 0;
	}
}

/* 1 when every node of b gives no tensor (see the top); counts the nodes
 * into *count, stopping past the limit. */
static int body_ok(const struct ir_block *b, uint32_t *count, int depth)
{
	const struct ir_node *x;
	uint32_t i;

	if (depth > 32)
		return 0;
	for (x = b->first; x; x = x->next) {
		if (++*count > SCRIPT_UNROLL_MAX_NODES)
			return 0;
		if (x->nblocks && x->op != OP_prim_If &&
		    x->op != OP_prim_Loop)
			return 0;
		if (x->op == OP_prim_SetAttr)
			return 0;
		for (i = 0; i < x->noutputs; i++)
			if (!scalar_type(x->outputs[i]->type, 0) &&
			    !(ir_list_mutation(x->op) && x->ninputs &&
			      x->inputs[0] &&
			      x->outputs[i]->type->kind == IR_TYPE_LIST))
				return 0;
		for (i = 0; i < x->nblocks; i++)
			if (!body_ok(x->blocks[i], count, depth + 1))
				return 0;
	}
	return 1;
}

static struct ir_value *int_const(struct ir_graph *g, struct ir_node *at,
				  int64_t v)
{
	struct ir_node *c = ir_node_new(g, NULL,
					aten_op_name(OP_prim_Constant), 0, 1);

	ir_node_set_output(c, 0, ir_value_new(g, NULL,
					      ir_type_new(g, IR_TYPE_INT)));
	ir_node_add_attr(g, c, "value", IR_ATTR_INT)->u.i = v;
	c->scope = at->scope;
	c->source = at->source;
	ir_block_insert_before(at, c);
	return c->outputs[0];
}

/* --- the loop ---------------------------------------------------------------- */

int script_unroll_loop(struct ir_graph *g, struct ir_node *n)
{
	struct ir_value *carried[256], *cond;
	struct ir_block *body;
	struct ir_node *before, *x;
	struct ir_vmap m = { NULL, NULL, 0, 0 };
	uint32_t nc, i, size = 0;
	int64_t trips, c, it;

	if (n->op != OP_prim_Loop || n->nblocks != 1 ||
	    n->ninputs < 2 || !n->owner)
		return 0;
	nc = n->ninputs - 2;
	body = n->blocks[0];
	if (nc > 256 || n->noutputs != nc || body->nparams != nc + 1 ||
	    body->nreturns != nc + 1)
		return 0;
	if (!script_const_int(n->inputs[0], &trips) ||
	    !script_const_int(n->inputs[1], &c))
		return 0;
	if (!body_ok(body, &size, 0))
		return 0;
	if (size == 0)
		size = 1;
	/* a condition that stays true: the trip count decides */
	if (c && trips > 0 && script_const_int(body->returns[0], &it) && it &&
	    (trips > SCRIPT_UNROLL_MAX_ITERS ||
	     (uint64_t)trips * size > SCRIPT_UNROLL_MAX_NODES))
		return 0;
	for (i = 0; i < nc; i++)
		carried[i] = n->inputs[2 + i];
	before = n->prev;
	for (it = 0; c && it < trips; it++) {
		if (it >= SCRIPT_UNROLL_MAX_ITERS ||
		    (uint64_t)(it + 1) * size > SCRIPT_UNROLL_MAX_NODES)
			goto abandon;
		if (ir_vmap_put(&m, body->params[0], int_const(g, n, it)))
			goto abandon;
		for (i = 0; i < nc; i++)
			if (ir_vmap_put(&m, body->params[1 + i], carried[i]))
				goto abandon;
		for (x = body->first; x; x = x->next) {
			struct ir_node *cp = ir_node_clone(g, &m, x, 0);
			struct ir_value *f;

			if (!cp)
				goto abandon;
			ir_block_insert_before(n, cp);
			if (cp->nblocks || cp->noutputs != 1)
				continue;
			if ((f = script_fold_node(g, cp)))
				if (ir_vmap_put(&m, x->outputs[0], f))
					goto abandon;
		}
		cond = ir_vmap_get(&m, body->returns[0]);
		for (i = 0; i < nc; i++)
			carried[i] = ir_vmap_get(&m, body->returns[1 + i]);
		if (!script_const_int(cond, &c))
			goto abandon;
	}
	ir_vmap_free(&m);
	for (i = 0; i < nc; i++)
		n->outputs[i]->aux = carried[i] == n->outputs[i] ? NULL
				     : carried[i];
	ir_node_unlink(n);
	return 1;
abandon:
	ir_vmap_free(&m);
	for (x = before ? before->next : n->owner->first; x && x != n;) {
		struct ir_node *next = x->next;
		ir_node_unlink(x);
		x = next;
	}
	return 0;
}

/* --- lists ------------------------------------------------------------------ */

static int uses_in(const struct ir_node *x, const struct ir_value *v,
		   int depth)
{
	const struct ir_node *y;
	uint32_t i, r;

	for (i = 0; i < x->ninputs; i++)
		if (x->inputs[i] == v)
			return 1;
	if (depth > 64)
		return 1;
	for (i = 0; i < x->nblocks; i++) {
		for (r = 0; r < x->blocks[i]->nreturns; r++)
			if (x->blocks[i]->returns[r] == v)
				return 1;
		for (y = x->blocks[i]->first; y; y = y->next)
			if (uses_in(y, v, depth + 1))
				return 1;
	}
	return 0;
}

/* Every use of old from node `from` on (nested blocks included, and the
 * returns of b) becomes new; new's use count grows with them (a count may
 * be high, never low: walk_list relies on seeing every use). */
static void replace_uses(struct ir_block *b, struct ir_node *from,
			 struct ir_value *old, struct ir_value *nv, int depth)
{
	struct ir_node *x;
	uint32_t i;

	if (depth > 64)
		return;
	for (x = from; x; x = x->next) {
		for (i = 0; i < x->ninputs; i++)
			if (x->inputs[i] == old) {
				x->inputs[i] = nv;
				nv->uses++;
			}
		for (i = 0; i < x->nblocks; i++)
			replace_uses(x->blocks[i], x->blocks[i]->first, old, nv,
				     depth + 1);
	}
	for (i = 0; i < b->nreturns; i++)
		if (b->returns[i] == old) {
			b->returns[i] = nv;
			nv->uses++;
		}
}

static int side_effect_or_prim(const struct ir_node *n)
{
	if (n->op == OP_prim_ListUnpack)
		return 0;
	if (strncmp(n->kind, "aten::", 6))
		return 1;
	return script_side_effect(n->op);
}

#define LIST_MAX 1024

/* Python's index normalisation for insert (clamped) and pop/__setitem__
 * (-1 when out of range). */
static int64_t norm_index(int64_t i, int64_t len, int clamp)
{
	if (i < 0)
		i += len;
	if (clamp)
		return i < 0 ? 0 : i > len ? len : i;
	return i < 0 || i >= len ? -1 : i;
}

static int all_unused(const struct ir_node *x)
{
	uint32_t i;

	for (i = 0; i < x->noutputs; i++)
		if (x->outputs[i]->uses)
			return 0;
	return 1;
}

/* One pass over the uses of list construct p: with apply 0, 1 when every
 * use is understood and at least one mutates; with apply 1, the rewrite.
 * el holds LIST_MAX entries. */
static int walk_list(struct ir_graph *g, struct ir_node *p,
		     struct ir_value **el, int apply)
{
	struct ir_value *l = p->outputs[0], *cur = l;
	struct ir_node *x, *next;
	uint32_t seen = 0, i;
	int64_t len = p->ninputs, idx;
	int mutated = 0, changed = 0, reorders = 0;

	for (i = 0; i < p->ninputs; i++)
		el[i] = p->inputs[i];
	for (i = 0; i < p->owner->nreturns; i++)
		if (p->owner->returns[i] == l)
			return 0;
	for (x = p->next; x && seen < l->uses; x = next) {
		int direct = 0;

		next = x->next;
		for (i = 0; i < x->ninputs; i++)
			direct += x->inputs[i] == l;
		if (!direct) {
			if (x->nblocks && uses_in(x, l, 0))
				return 0;
			continue;
		}
		seen += (uint32_t)direct;
		if (x->nblocks)
			return 0;
		if (x->op == OP_aten_append && x->ninputs == 2 &&
		    direct == 1 && x->inputs[0] == l && all_unused(x)) {
			if (len >= LIST_MAX)
				return 0;
			el[len++] = x->inputs[1];
		} else if (x->op == OP_aten_insert &&
			   x->ninputs == 3 && direct == 1 &&
			   x->inputs[0] == l && all_unused(x) &&
			   script_const_int(x->inputs[1], &idx)) {
			if (len >= LIST_MAX)
				return 0;
			idx = norm_index(idx, len, 1);
			memmove(el + idx + 1, el + idx,
				sizeof(*el) * (size_t)(len - idx));
			el[idx] = x->inputs[2];
			len++;
			reorders++;
		} else if (x->op == OP_aten__set_item &&
			   x->ninputs == 3 && direct == 1 &&
			   x->inputs[0] == l && all_unused(x) &&
			   script_const_int(x->inputs[1], &idx)) {
			if ((idx = norm_index(idx, len, 0)) < 0)
				return 0;
			el[idx] = x->inputs[2];
			reorders++;
		} else if (x->op == OP_aten_pop &&
			   (x->ninputs == 1 || x->ninputs == 2) &&
			   direct == 1 && x->inputs[0] == l &&
			   x->noutputs == 1) {
			if (x->ninputs == 1)
				idx = -1;
			else if (!script_const_int(x->inputs[1], &idx))
				return 0;
			if ((idx = norm_index(idx, len, 0)) < 0)
				return 0;
			if (apply)
				replace_uses(p->owner, x->next, x->outputs[0],
					     el[idx], 0);
			memmove(el + idx, el + idx + 1,
				sizeof(*el) * (size_t)(len - idx - 1));
			len--;
			reorders++;
		} else if (!side_effect_or_prim(x)) {
			/* a reader: it gets the list as it is here */
			if (!apply)
				continue;
			if (x->op == OP_aten_len && x->ninputs == 1 &&
			    x->noutputs == 1) {
				replace_uses(p->owner, x->next, x->outputs[0],
					     int_const(g, x, len), 0);
				ir_node_unlink(x);
				changed++;
				continue;
			}
			if (x->op == OP_aten___getitem__ &&
			    x->ninputs == 2 && x->inputs[0] == l &&
			    x->noutputs == 1 &&
			    script_const_int(x->inputs[1], &idx) &&
			    (idx = norm_index(idx, len, 0)) >= 0 &&
			    el[idx]->producer &&
			    el[idx]->producer->op == OP_prim_Constant) {
				replace_uses(p->owner, x->next, x->outputs[0],
					     el[idx], 0);
				ir_node_unlink(x);
				changed++;
				continue;
			}
			if (cur == NULL) {
				struct ir_node *c = ir_node_new(
					g, NULL,
					aten_op_name(OP_prim_ListConstruct),
					(uint32_t)len, 1);
				for (i = 0; i < (uint32_t)len; i++) {
					c->inputs[i] = el[i];
					el[i]->uses++;
				}
				ir_node_set_output(c, 0, ir_value_new(
					g, NULL, ir_type_copy(g, l->type)));
				c->scope = p->scope;
				c->source = p->source;
				ir_block_insert_before(x, c);
				cur = c->outputs[0];
			}
			for (i = 0; i < x->ninputs; i++)
				if (x->inputs[i] == l)
					x->inputs[i] = cur;
			changed++;
			continue;
		} else {
			return 0;
		}
		/* a mutation understood */
		mutated = 1;
		if (apply) {
			ir_node_unlink(x);
			cur = NULL;
			changed++;
		}
	}
	if (seen < l->uses)
		return 0;
	/* a list of tensors only appended to stays as torch keeps it (lower
	 * reads such lists); insert, pop and _set_item are folded */
	if (!apply && !reorders && !scalar_type(l->type, 0))
		return 0;
	return apply ? changed : mutated;
}

int script_fold_lists(struct ir_graph *g, struct ir_block *b, int depth)
{
	struct ir_value **el;
	struct ir_node *n, *next;
	int changed = 0;
	uint32_t i;

	if (depth > 200)
		return 0;
	el = malloc(sizeof(*el) * LIST_MAX);
	if (!el)
		return 0;
	for (n = b->first; n; n = next) {
		next = n->next;
		for (i = 0; i < n->nblocks; i++)
			changed += script_fold_lists(g, n->blocks[i],
						     depth + 1);
		if (n->op != OP_prim_ListConstruct || n->noutputs != 1 ||
		    n->ninputs > LIST_MAX || !n->outputs[0]->uses)
			continue;
		if (walk_list(g, n, el, 0) > 0)
			changed += walk_list(g, n, el, 1);
		next = n->next;
	}
	free(el);
	return changed;
}

/*
 * ir_clone.c - copies of nodes with their blocks, through a map from
 * original to copied values, which the script stage's unrolling
 * (lib/script/unroll.c) and lower's (lib/lower/lower.c) share, and the
 * test of which loops change lists (lower's).  See ir_clone.h.
 */
#include <stdlib.h>
#include <string.h>

#include "ir_clone.h"

/* --- value map -------------------------------------------------------------- */

static size_t vhash(const struct ir_value *p, size_t cap)
{
	uintptr_t x = (uintptr_t)p;

	x ^= x >> 17;
	x *= 0x9E3779B97F4A7C15ull;
	return (size_t)(x >> 7) & (cap - 1);
}

static int vmap_grow(struct ir_vmap *m)
{
	struct ir_vmap n = { NULL, NULL, m->cap ? m->cap * 2 : 256, 0 };
	size_t i;

	n.k = calloc(n.cap, sizeof(*n.k));
	n.v = calloc(n.cap, sizeof(*n.v));
	if (!n.k || !n.v) {
		free(n.k);
		free(n.v);
		return -1;
	}
	for (i = 0; i < m->cap; i++)
		if (m->k[i]) {
			size_t h = vhash(m->k[i], n.cap);
			while (n.k[h])
				h = (h + 1) & (n.cap - 1);
			n.k[h] = m->k[i];
			n.v[h] = m->v[i];
			n.len++;
		}
	free(m->k);
	free(m->v);
	*m = n;
	return 0;
}

int ir_vmap_put(struct ir_vmap *m, const struct ir_value *k,
		    struct ir_value *v)
{
	size_t h;

	if ((m->len + 1) * 2 > m->cap && vmap_grow(m))
		return -1;
	h = vhash(k, m->cap);
	while (m->k[h] && m->k[h] != k)
		h = (h + 1) & (m->cap - 1);
	if (!m->k[h])
		m->len++;
	m->k[h] = k;
	m->v[h] = v;
	return 0;
}

struct ir_value *ir_vmap_get(const struct ir_vmap *m, struct ir_value *k)
{
	size_t h;

	if (!k || !m->cap)
		return k;
	h = vhash(k, m->cap);
	while (m->k[h]) {
		if (m->k[h] == k)
			return m->v[h];
		h = (h + 1) & (m->cap - 1);
	}
	return k;
}

void ir_vmap_free(struct ir_vmap *m)
{
	free(m->k);
	free(m->v);
	memset(m, 0, sizeof(*m));
}

/* --- copying ---------------------------------------------------------------- */

static int clone_block(struct ir_graph *g, struct ir_vmap *m,
		       const struct ir_block *b, struct ir_block *nb,
		       int depth)
{
	const struct ir_node *x;
	uint32_t i;

	for (i = 0; i < b->nparams; i++) {
		struct ir_value *p = ir_value_new(
			g, NULL, ir_type_copy(g, b->params[i]->type));
		ir_block_add_param(g, nb, p);
		if (ir_vmap_put(m, b->params[i], p))
			return -1;
	}
	for (x = b->first; x; x = x->next) {
		struct ir_node *c = ir_node_clone(g, m, x, depth + 1);
		if (!c)
			return -1;
		ir_block_append(nb, c);
	}
	for (i = 0; i < b->nreturns; i++)
		ir_block_add_return(g, nb, ir_vmap_get(m, b->returns[i]));
	return 0;
}

struct ir_node *ir_node_clone(struct ir_graph *g, struct ir_vmap *m,
			     const struct ir_node *x, int depth)
{
	struct ir_node *c;
	uint32_t i;

	if (depth > 64)
		return NULL;
	c = ir_node_new(g, NULL, x->kind, x->ninputs, x->noutputs);
	for (i = 0; i < x->ninputs; i++)
		c->inputs[i] = ir_vmap_get(m, x->inputs[i]);
	for (i = 0; i < x->noutputs; i++) {
		ir_node_set_output(c, i, ir_value_new(g, NULL,
			ir_type_copy(g, x->outputs[i]->type)));
		if (ir_vmap_put(m, x->outputs[i], c->outputs[i]))
			return NULL;
	}
	if (x->nattrs) {
		c->attrs = ir_alloc(g, sizeof(*c->attrs) * x->nattrs);
		memcpy(c->attrs, x->attrs, sizeof(*c->attrs) * x->nattrs);
		c->nattrs = x->nattrs;
	}
	c->scope = x->scope;
	c->source = x->source;
	c->doc = x->doc;
	c->extra = x->extra;
	for (i = 0; i < x->nblocks; i++)
		if (clone_block(g, m, x->blocks[i], ir_node_add_block(g, c),
				depth))
			return NULL;
	return c;
}

/* --- loops that change lists ------------------------------------------------ */

int ir_list_mutation(enum aten_op op)
{
	return ATEN_ONE_OF(op, OP_aten_append, OP_aten_insert,
			   OP_aten__set_item, OP_aten_extend, OP_aten_clear,
			   OP_aten_reverse);
}

/* 1 when block b is loop's body or nested in it. */
static int inside(const struct ir_block *b, const struct ir_node *loop)
{
	int guard = 0;

	for (; b && b->owner && guard < 256; b = b->owner->owner, guard++)
		if (b->owner == loop)
			return 1;
	return 0;
}

/* 1 when block b (of loop, or nested) changes a list or dict made
 * before the loop: an append, insert, _set_item... on it. */
static int changes_outer(const struct ir_block *b, const struct ir_node *loop,
			 int depth)
{
	const struct ir_node *x;
	uint32_t i;

	if (depth > 32)
		return 0;
	for (x = b->first; x; x = x->next) {
		if ((ir_list_mutation(x->op) || x->op == OP_aten_pop) &&
		    x->ninputs && x->inputs[0] &&
		    (x->inputs[0]->type->kind == IR_TYPE_LIST ||
		     x->inputs[0]->type->kind == IR_TYPE_DICT) &&
		    !(x->inputs[0]->producer &&
		      inside(x->inputs[0]->producer->owner, loop)))
			return 1;
		for (i = 0; i < x->nblocks; i++)
			if (changes_outer(x->blocks[i], loop, depth + 1))
				return 1;
	}
	return 0;
}

int ir_loop_changes_lists(const struct ir_node *n)
{
	uint32_t i;

	for (i = 2; i < n->ninputs; i++)
		if (n->inputs[i]->type->kind == IR_TYPE_LIST ||
		    n->inputs[i]->type->kind == IR_TYPE_DICT)
			return 1;
	return changes_outer(n->blocks[0], n, 0);
}

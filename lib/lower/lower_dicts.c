/*
 * lower_dicts.c - dicts with constant keys (str or int), followed at lower
 * time as lists are (lower_lists.c): a dict is an element-wise record
 * (struct lw_list with keys) made by prim::DictConstruct or aten::dict,
 * changed by _set_item and update in straight-line code, read by
 * __getitem__, keys,
 * values, items, len, __contains__ and list(d).  ONNX has no dicts; what
 * a dict holds is what its entries' values are.  A dict returned by the
 * graph, or in a list returned, is flattened into its values in insertion
 * order (lower.c), as torch.onnx.export flattens a traced model's dict
 * outputs (torch 1.13 refuses prim::DictConstruct in scripted models).
 * Anything else on a dict is refused: a key that is not constant, a key
 * that is missing (torch raises KeyError), a dict changed in a loop body.
 */
#include <string.h>

#include "lower_driver.h"
#include "symbolic_common.h"

/* The constant key v (a str or an int constant, after remap): 1 with
 * s and len set for a str, 2 with i for an int, 0 when not constant. */
static int key_of(const struct ir_value *v, const char **s, size_t *len,
		  int64_t *i)
{
	const struct ir_node *p = v ? v->producer : NULL;
	const struct ir_attr *a;

	if (!p || p->op != OP_prim_Constant ||
	    !(a = ir_node_find_attr(p, "value")))
		return 0;
	if (a->kind == IR_ATTR_STRING && v->type->kind == IR_TYPE_STR) {
		*s = a->u.s.data ? a->u.s.data : "";
		*len = a->u.s.len;
		return 1;
	}
	if (a->kind == IR_ATTR_INT && v->type->kind == IR_TYPE_INT) {
		*i = a->u.i;
		return 2;
	}
	return 0;
}

static int key_eq(const struct ir_value *a, const struct ir_value *b)
{
	const char *sa = NULL, *sb = NULL;
	size_t la = 0, lb = 0;
	int64_t ia = 0, ib = 0;
	int ka = key_of(a, &sa, &la, &ia), kb = key_of(b, &sb, &lb, &ib);

	if (!ka || ka != kb)
		return 0;
	return ka == 1 ? la == lb && !memcmp(sa, sb, la) : ia == ib;
}

int lw_is_dict(const struct ir_value *v)
{
	return v && v->type->kind == IR_TYPE_DICT;
}

void lw_set_dict(struct lower_ctx *c, struct ir_value *d,
		 struct ir_value **keys, struct ir_value **vals, int n)
{
	lw_set_list(c, d, vals, n);
	c->lists->keys = ir_alloc(c->g, sizeof(*keys) * (n ? n : 1));
	memcpy(c->lists->keys, keys, sizeof(*keys) * n);
}

/* The record of dict input i of n, or NULL (c->why set). */
static struct lw_list *dict_in(struct lower_ctx *c, struct ir_node *n, int i)
{
	struct ir_value *d = lw_in(c, n, i);
	struct lw_list *l = d ? lw_find_list(c, d) : NULL;

	if (!l || !l->keys) {
		lw_decline(c, "the dict is not known entry by entry");
		return NULL;
	}
	return l;
}

/* The entry of key input i of n in l: its index, l->n when absent, -1
 * when the key is not constant (c->why set). */
static int entry(struct lower_ctx *c, struct ir_node *n, int i,
		 const struct lw_list *l)
{
	struct ir_value *k = lw_in(c, n, i);
	const char *s;
	size_t len;
	int64_t iv;

	if (!key_of(k, &s, &len, &iv)) {
		lw_decline(c, "a dict key that is not a constant str or int");
		return -1;
	}
	for (int j = 0; j < l->n; j++)
		if (key_eq(l->keys[j], k))
			return j;
	return l->n;
}

#define DICT_MAX 256

/* prim::DictConstruct(k0, v0, k1, v1...): keys constant; a repeated key
 * keeps its first place and its last value, as a Python dict literal. */
static int sym_dict_construct(struct lower_ctx *c, struct ir_node *n,
			      struct ir_value **out)
{
	struct ir_value *keys[DICT_MAX], *vals[DICT_MAX];
	struct lw_list tmp = { 0 };
	int k = 0;

	if (n->ninputs % 2 || n->ninputs / 2 > DICT_MAX || n->noutputs != 1)
		return lw_decline(c, "malformed prim::DictConstruct");
	tmp.keys = keys;
	for (uint32_t i = 0; i < n->ninputs; i += 2) {
		tmp.n = k;
		int j = entry(c, n, (int)i, &tmp);
		if (j < 0)
			return -1;
		keys[j] = lw_in(c, n, (int)i);
		vals[j] = lw_in(c, n, (int)i + 1);
		if (j == k)
			k++;
	}
	lw_set_dict(c, n->outputs[0], keys, vals, k);
	out[0] = NULL;
	return 0;
}

/* aten::dict(): empty; dict(d): a copy; dict(list of (k, v) tuples). */
static int sym_dict(struct lower_ctx *c, struct ir_node *n,
		    struct ir_value **out)
{
	struct ir_value *keys[DICT_MAX], *vals[DICT_MAX];
	int k = 0;

	if (n->noutputs != 1 || n->ninputs > 1)
		return lw_decline(c, "not a dict");
	out[0] = NULL;
	if (n->ninputs == 0) {
		lw_set_dict(c, n->outputs[0], keys, vals, 0);
		return 0;
	}
	if (lw_is_dict(n->inputs[0])) {
		struct lw_list *l = dict_in(c, n, 0);
		if (!l)
			return -1;
		lw_set_dict(c, n->outputs[0], l->keys, l->vals, l->n);
		return 0;
	}
	struct ir_value *items[DICT_MAX];
	int m = lw_list(c, n, 0, items, DICT_MAX);
	if (m < 0)
		return lw_decline(c, "the list of items is not known "
				  "element-wise");
	struct lw_list tmp = { 0 };
	tmp.keys = keys;
	for (int i = 0; i < m; i++) {
		struct ir_node *t = items[i]->producer;
		if (!t || t->op != OP_prim_TupleConstruct || t->ninputs != 2)
			return lw_decline(c, "an item is not a (key, value) "
					  "tuple");
		tmp.n = k;
		int j = entry(c, t, 0, &tmp);
		if (j < 0)
			return -1;
		keys[j] = lw_in(c, t, 0);
		vals[j] = lw_in(c, t, 1);
		if (j == k)
			k++;
	}
	lw_set_dict(c, n->outputs[0], keys, vals, k);
	return 0;
}

int lw_dict_getitem(struct lower_ctx *c, struct ir_node *n,
		    struct ir_value **out)
{
	struct lw_list *l = dict_in(c, n, 0);
	int j;

	if (!l || n->ninputs != 2 || (j = entry(c, n, 1, l)) < 0)
		return -1;
	if (j == l->n)
		return lw_decline(c, "the key is not in the dict (torch "
				  "raises KeyError)");
	out[0] = l->vals[j];
	return 0;
}

int lw_dict_set_item(struct lower_ctx *c, struct ir_node *n,
		     struct ir_value **out)
{
	struct ir_value *keys[DICT_MAX + 1], *vals[DICT_MAX + 1];
	struct lw_list *l = dict_in(c, n, 0);
	int j;

	if (!l || n->ninputs != 3 || (j = entry(c, n, 1, l)) < 0)
		return -1;
	if (lw_in_loop(c))
		return lw_decline(c, "a dict changed in a loop");
	if (l->n >= DICT_MAX)
		return lw_decline(c, "too many dict entries");
	memcpy(keys, l->keys, sizeof(*keys) * l->n);
	memcpy(vals, l->vals, sizeof(*vals) * l->n);
	keys[j] = lw_in(c, n, 1);
	vals[j] = lw_in(c, n, 2);
	int k = j == l->n ? l->n + 1 : l->n;
	lw_set_dict(c, lw_in(c, n, 0), keys, vals, k);
	for (uint32_t i = 0; i < n->noutputs; i++)
		out[i] = NULL;
	return 0;
}

/* aten::update(d, other) (d.update(other)), outside loops: other's entries
 * replace or follow d's, in other's order. */
static int sym_update(struct lower_ctx *c, struct ir_node *n,
		      struct ir_value **out)
{
	struct ir_value *keys[DICT_MAX], *vals[DICT_MAX];
	if (n->ninputs != 2 || !lw_is_dict(n->inputs[0]) ||
	    !lw_is_dict(n->inputs[1]))
		return lw_decline(c, "not two dicts");
	struct lw_list *d = dict_in(c, n, 0), *o = d ? dict_in(c, n, 1) : NULL;
	if (!d || !o)
		return -1;
	if (lw_in_loop(c))
		return lw_decline(c, "a dict changed in a loop");
	int k = d->n;
	memcpy(keys, d->keys, sizeof(*keys) * k);
	memcpy(vals, d->vals, sizeof(*vals) * k);
	for (int i = 0; i < o->n; i++) {
		int j;
		for (j = 0; j < k && !key_eq(keys[j], o->keys[i]); j++)
			;
		if (j == k && k == DICT_MAX)
			return lw_decline(c, "too many dict entries");
		keys[j] = o->keys[i];
		vals[j] = o->vals[i];
		if (j == k)
			k++;
	}
	lw_set_dict(c, lw_in(c, n, 0), keys, vals, k);
	for (uint32_t i = 0; i < n->noutputs; i++)
		out[i] = NULL;
	return 0;
}

int lw_dict_contains(struct lower_ctx *c, struct ir_node *n,
		     struct ir_value **out)
{
	struct lw_list *l = dict_in(c, n, 0);
	int j;

	if (!l || n->ninputs != 2 || (j = entry(c, n, 1, l)) < 0)
		return -1;
	out[0] = b_const_bool(c, j < l->n);
	return 0;
}

/* aten::keys, values, items: a list record of the entries in order
 * (items: a prim::TupleConstruct (key, value) each). */
static int dict_list(struct lower_ctx *c, struct ir_node *n,
		     struct ir_value **out, char what)
{
	struct lw_list *l = dict_in(c, n, 0);
	struct ir_value *el[DICT_MAX];

	if (!l || n->ninputs != 1 || n->noutputs != 1)
		return -1;
	for (int j = 0; j < l->n; j++) {
		if (what == 'k') {
			el[j] = l->keys[j];
		} else if (what == 'v') {
			el[j] = l->vals[j];
		} else {
			struct ir_node *t = ir_node_new(c->g, NULL,
				aten_op_name(OP_prim_TupleConstruct), 2, 1);
			struct ir_type *ty = ir_type_new(c->g, IR_TYPE_TUPLE);
			ty->nelems = 2;
			ty->elems = ir_alloc(c->g, sizeof(*ty->elems) * 2);
			ty->elems[0] = l->keys[j]->type;
			ty->elems[1] = l->vals[j]->type;
			t->inputs[0] = l->keys[j];
			t->inputs[1] = l->vals[j];
			ir_node_set_output(t, 0, ir_value_new(c->g, NULL, ty));
			t->scope = n->scope;
			t->source = n->source;
			ir_block_insert_before(n, t);
			el[j] = t->outputs[0];
		}
	}
	lw_set_list(c, n->outputs[0], el, l->n);
	out[0] = NULL;
	return 0;
}

static int sym_keys(struct lower_ctx *c, struct ir_node *n,
		    struct ir_value **out)
{
	return dict_list(c, n, out, 'k');
}

static int sym_values(struct lower_ctx *c, struct ir_node *n,
		      struct ir_value **out)
{
	if (n->ninputs != 1 || !lw_is_dict(n->inputs[0]))
		return lw_decline(c, "not a dict");
	return dict_list(c, n, out, 'v');
}

static int sym_items(struct lower_ctx *c, struct ir_node *n,
		     struct ir_value **out)
{
	return dict_list(c, n, out, 'i');
}

static const struct symbolic dict_ops[] = {
	{ OP_prim_DictConstruct, 0, 0, SYM_PRIO_BASE, sym_dict_construct },
	{ OP_aten_dict, 0, 0, SYM_PRIO_BASE, sym_dict },
	{ OP_aten_keys, 0, 0, SYM_PRIO_BASE, sym_keys },
	{ OP_aten_values, 0, 0, SYM_PRIO_BASE, sym_values },
	{ OP_aten_items, 0, 0, SYM_PRIO_BASE, sym_items },
	{ OP_aten_update, 0, 0, SYM_PRIO_BASE, sym_update },
};

const struct symbolic_table symbolic_dicts_table = {
	dict_ops, sizeof(dict_ops) / sizeof(dict_ops[0]),
};

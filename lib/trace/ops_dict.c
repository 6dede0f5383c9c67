/*
 * ops_dict.c - trace's ops on Python dicts (trace_ops_dict): built, read,
 * updated, iterated, and what list ops do when given a dict.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "intmath.h"
#include "ops_py.h"
#include "rlimits.h"

/* --- dicts ----------------------------------------------------------------- */

/* Python's key equality for the keys TorchScript allows (str, int, float,
 * bool, Tensor by identity). */
static int dict_key_eq(const struct tval *a, const struct tval *b)
{
	if (a->kind == TV_TENSOR || b->kind == TV_TENSOR)
		return py_same_value(a, b);
	return py_equal_values(a, b);
}

/* The index of key's entry (of the key, in u.list), or -1. */
static int dict_find(const struct tval *d, const struct tval *key)
{
	int i;

	for (i = 0; i + 1 < d->u.list.n; i += 2)
		if (dict_key_eq(d->u.list.items[i], key))
			return i;
	return -1;
}

/* d[key] = v (new references taken here).  0 or -1 out of memory. */
static int dict_set(struct tval *d, struct tval *key, struct tval *v)
{
	int i = dict_find(d, key);

	if (i >= 0) {
		tv_unref(d->u.list.items[i + 1]);
		d->u.list.items[i + 1] = tv_ref(v);
		return 0;
	}
	if (tv_list_push(d, tv_ref(key)))
		return -1;
	if (tv_list_push(d, tv_ref(v))) {
		tv_unref(d->u.list.items[--d->u.list.n]);
		return -1;
	}
	return 0;
}

/* Removes the entry at index i (of its key). */
static void dict_remove(struct tval *d, int i)
{
	int k;

	tv_unref(d->u.list.items[i]);
	tv_unref(d->u.list.items[i + 1]);
	for (k = i; k + 2 < d->u.list.n; k++)
		d->u.list.items[k] = d->u.list.items[k + 2];
	d->u.list.n -= 2;
}

static int key_error(struct trace_ctx *c, const struct tval *key)
{
	char buf[256];

	buf[0] = 0;
	py_fmt_value(key, buf, sizeof(buf));
	return trace_error(c, "the model raised: KeyError: %s", buf);
}

/* a shallow copy of dict d */
static struct tval *dict_copy(const struct tval *d)
{
	struct tval *r = tv_list(TV_DICT);
	int i;

	if (!r)
		return NULL;
	for (i = 0; i < d->u.list.n; i++)
		if (tv_list_push(r, tv_ref(d->u.list.items[i]))) {
			tv_unref(r);
			return NULL;
		}
	return r;
}

/* d.keys() (part 0), d.values() (1) as a new list */
static struct tval *dict_part(const struct tval *d, int part)
{
	struct tval *r = tv_list(TV_LIST);
	int i;

	if (!r)
		return NULL;
	for (i = part; i < d->u.list.n; i += 2)
		if (tv_list_push(r, tv_ref(d->u.list.items[i]))) {
			tv_unref(r);
			return NULL;
		}
	return r;
}

static int expect_dict(struct trace_ctx *c, int nin, struct tval **in,
		       int min)
{
	if (nin < min || in[0]->kind != TV_DICT)
		return trace_error(c, "expected a dict");
	return 0;
}

/* prim::DictConstruct(k0, v0, k1, v1, ...) */
OPFN(op_dict_construct)
{
	struct tval *d;
	int i;

	if (nin % 2)
		return trace_error(c, "a dict needs keys and values in pairs");
	d = tv_list(TV_DICT);
	if (!d)
		return trace_oom(c);
	for (i = 0; i < nin; i += 2)
		if (dict_set(d, in[i], in[i + 1])) {
			tv_unref(d);
			return trace_oom(c);
		}
	out[0] = d;
	return 0;
}

/* aten::dict(): {}; aten::dict(d): a copy; aten::dict(pairs) */
OPFN(op_dict)
{
	const struct tval *s = nin ? in[0] : NULL;
	int i;

	if (s && s->kind == TV_DICT) {
		out[0] = dict_copy(s);
		return out[0] ? 0 : trace_oom(c);
	}
	if (s && s->kind != TV_LIST && s->kind != TV_TUPLE)
		return trace_error(c, "dict() of a value that is not a dict "
				   "or a list of pairs");
	out[0] = tv_list(TV_DICT);
	if (!out[0])
		return trace_oom(c);
	for (i = 0; s && i < s->u.list.n; i++) {
		const struct tval *p = s->u.list.items[i];

		if ((p->kind != TV_TUPLE && p->kind != TV_LIST) ||
		    p->u.list.n != 2)
			return trace_error(c, "dict() of a list that does not "
					   "hold pairs");
		if (dict_set(out[0], p->u.list.items[0], p->u.list.items[1]))
			return trace_oom(c);
	}
	return 0;
}

/* d.get(key, default=None) and d.setdefault(key, default=None) */
OPFN(op_dict_get)
{
	int i;

	if (expect_dict(c, nin, in, 2))
		return -1;
	i = dict_find(in[0], in[1]);
	if (i >= 0) {
		out[0] = tv_ref(in[0]->u.list.items[i + 1]);
		return 0;
	}
	out[0] = nin > 2 ? tv_ref(in[2]) : tv_none();
	if (!out[0])
		return trace_oom(c);
	if (n->op == OP_aten_setdefault &&
	    dict_set(in[0], in[1], out[0]))
		return trace_oom(c);
	return 0;
}

OPFN(op_dict_keys)
{
	if (expect_dict(c, nin, in, 1))
		return -1;
	out[0] = dict_part(in[0], n->op != OP_aten_keys);
	return out[0] ? 0 : trace_oom(c);
}

/* d.items(): a list of (key, value) tuples */
OPFN(op_dict_items)
{
	struct tval *l, *p;
	int i;

	if (expect_dict(c, nin, in, 1))
		return -1;
	l = tv_list(TV_LIST);
	if (!l)
		return trace_oom(c);
	out[0] = l;
	for (i = 0; i < in[0]->u.list.n; i += 2) {
		p = tv_list(TV_TUPLE);
		if (!p || tv_list_push(l, p) ||
		    tv_list_push(p, tv_ref(in[0]->u.list.items[i])) ||
		    tv_list_push(p, tv_ref(in[0]->u.list.items[i + 1])))
			return trace_oom(c);
	}
	return 0;
}

/* d.popitem(): TorchScript's pops the first (key, value) in insertion
 * order (Python's the last) */
OPFN(op_dict_popitem)
{
	struct tval *d = in[0], *p;
	int i;

	if (expect_dict(c, nin, in, 1))
		return -1;
	if (d->u.list.n == 0)
		return trace_error(c, "the model raised: KeyError: "
				   "popitem(): dictionary is empty");
	i = 0;
	p = tv_list(TV_TUPLE);
	if (!p)
		return trace_oom(c);
	out[0] = p;
	if (tv_list_push(p, tv_ref(d->u.list.items[i])) ||
	    tv_list_push(p, tv_ref(d->u.list.items[i + 1])))
		return trace_oom(c);
	dict_remove(d, i);
	return 0;
}

OPFN(op_dict_update)
{
	int i;

	if (expect_dict(c, nin, in, 2) || in[1]->kind != TV_DICT)
		return trace_error(c, "update expects two dicts");
	for (i = 0; i < in[1]->u.list.n; i += 2)
		if (dict_set(in[0], in[1]->u.list.items[i],
			     in[1]->u.list.items[i + 1]))
			return trace_oom(c);
	for (i = 0; i < nout; i++)
		if (!(out[i] = tv_none()))
			return trace_oom(c);
	return 0;
}

OPFN(op_dict_clear)
{
	int i;

	if (expect_dict(c, nin, in, 1))
		return -1;
	while (in[0]->u.list.n)
		dict_remove(in[0], 0);
	for (i = 0; i < nout; i++)
		if (!(out[i] = tv_none()))
			return trace_oom(c);
	return 0;
}

/* what list ops do on a dict: d[k], len(d), k in d, d[k] = v, del d[k],
 * d.pop(k[, default]), list(d), d.copy().  1 when handled (out set or
 * -1 returned through *rc), 0 when in[0] is no dict. */
int py_dict_op(struct trace_ctx *c, enum aten_op kind, struct tval **in,
	       int nin, struct tval **out, int nout, int *rc)
{
	struct tval *d = in[0];
	int i, k;

	if (nin < 1 || d->kind != TV_DICT)
		return 0;
	*rc = 0;
	if (kind == OP_aten_len) {
		out[0] = tv_int(d->u.list.n / 2);
	} else if (kind == OP_aten_list || kind == OP_aten_copy) {
		out[0] = kind != OP_aten_copy ? dict_part(d, 0) :
			 dict_copy(d);
	} else if (nin < 2) {
		*rc = trace_error(c, "expected a key");
		return 1;
	} else if (kind == OP_aten___contains__) {
		out[0] = tv_bool(dict_find(d, in[1]) >= 0);
	} else if (kind == OP_aten__set_item) {
		if (nin < 3) {
			*rc = trace_error(c, "expected a key and a value");
			return 1;
		}
		if (dict_set(d, in[1], in[2])) {
			*rc = trace_oom(c);
			return 1;
		}
		for (k = 0; k < nout; k++)
			if (!(out[k] = tv_none()))
				break;
		*rc = k < nout ? trace_oom(c) : 0;
		return 1;
	} else {
		i = dict_find(d, in[1]);
		if (i < 0 && !(nin > 2 && kind == OP_aten_pop)) {
			*rc = key_error(c, in[1]);
			return 1;
		}
		if (kind == OP_aten_Delete) {
			dict_remove(d, i);
			for (k = 0; k < nout; k++)
				if (!(out[k] = tv_none()))
					break;
			*rc = k < nout ? trace_oom(c) : 0;
			return 1;
		}
		/* __getitem__, pop */
		out[0] = tv_ref(i >= 0 ? d->u.list.items[i + 1] : in[2]);
		if (i >= 0 && kind == OP_aten_pop)
			dict_remove(d, i);
	}
	if (!out[0])
		*rc = trace_oom(c);
	return 1;
}

const struct trace_op trace_ops_dict[] = {
	{ OP_prim_DictConstruct, op_dict_construct, TRACE_OP_PYTHON },
	{ OP_aten_dict, op_dict, TRACE_OP_PYTHON },
	{ OP_aten_get, op_dict_get, TRACE_OP_PYTHON },
	{ OP_aten_setdefault, op_dict_get, TRACE_OP_PYTHON },
	{ OP_aten_keys, op_dict_keys, TRACE_OP_PYTHON },
	{ OP_aten_values, op_dict_keys, TRACE_OP_PYTHON },
	{ OP_aten_items, op_dict_items, TRACE_OP_PYTHON },
	{ OP_aten_popitem, op_dict_popitem, TRACE_OP_PYTHON },
	{ OP_aten_update, op_dict_update, TRACE_OP_PYTHON },
	{ OP_aten_clear, op_dict_clear, TRACE_OP_PYTHON },
	{ OP_NONE, NULL, 0 },
};

/*
 * compile_expr.c - expressions and calls of the script compiler: names,
 * attributes of modules, literals, lists and tuples, operators, schema
 * resolution with defaults refilled and type variables bound (t, tVal
 * through lists, dicts, tuples, optionals), in-place ops made out-of-place
 * where no other value can see the change, and inlining of methods and
 * free functions.
 *
 * Static values stay static: a tuple is a CV_TUPLE until something needs it
 * as one value, a dict a CV_DICT entry by entry until an op needs it as one
 * value (then prim::DictConstruct where it was made), an object of a
 * TorchScript class (C.__new__) a CV_OBJECT field by field with its methods
 * inlined, `x is None` folds when x's type says, int and bool arithmetic on
 * constants folds as it is emitted (script_fold_node).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aten_schema.h"
#include "compile_int.h"

struct ir_value *script_fold_node(struct ir_graph *g, struct ir_node *n);

struct cval *cv_tuple(struct sc *c, struct cval **items, int n)
{
	struct cval *cv = ir_alloc(c->g, sizeof(*cv));

	cv->kind = CV_TUPLE;
	cv->items = items;
	cv->n = n;
	return cv;
}

static unsigned kind_of_type(const struct ir_type *t)
{
	switch (t->kind) {
	case IR_TYPE_TENSOR: return ATEN_KIND_TENSOR;
	case IR_TYPE_INT: return ATEN_KIND_INT;
	case IR_TYPE_FLOAT: return ATEN_KIND_FLOAT;
	case IR_TYPE_BOOL: return ATEN_KIND_BOOL;
	case IR_TYPE_STR: return ATEN_KIND_STR;
	case IR_TYPE_NONE: return ATEN_KIND_NONE;
	case IR_TYPE_DEVICE: return ATEN_KIND_DEVICE;
	case IR_TYPE_TUPLE: return ATEN_KIND_TUPLE;
	case IR_TYPE_DICT: return ATEN_KIND_DICT;
	case IR_TYPE_CLASS: return ATEN_KIND_OBJECT;
	case IR_TYPE_OPTIONAL: {
		unsigned k = kind_of_type(t->elems[0]);
		return k == ATEN_KIND_ANY ? k : (k | ATEN_KIND_OPTIONAL);
	}
	case IR_TYPE_LIST:
		switch (t->elems[0]->kind) {
		case IR_TYPE_INT: return ATEN_KIND_INT_LIST;
		case IR_TYPE_FLOAT: return ATEN_KIND_FLOAT_LIST;
		case IR_TYPE_BOOL: return ATEN_KIND_BOOL_LIST;
		case IR_TYPE_STR: return ATEN_KIND_STR_LIST;
		case IR_TYPE_TENSOR: return ATEN_KIND_TENSOR_LIST;
		case IR_TYPE_OPTIONAL:
			if (t->elems[0]->elems[0]->kind == IR_TYPE_TENSOR)
				return ATEN_KIND_OPT_TENSOR_LIST;
			return ATEN_KIND_LIST;
		case IR_TYPE_UNKNOWN: return ATEN_KIND_ANY;
		default: return ATEN_KIND_LIST;
		}
	default:
		return ATEN_KIND_ANY;
	}
}

static unsigned kind_of(const struct cval *cv)
{
	if (cv->kind == CV_TUPLE)
		return ATEN_KIND_TUPLE;
	if (cv->kind == CV_DICT)
		return ATEN_KIND_DICT;
	if (cv->kind != CV_VALUE)
		return ATEN_KIND_OBJECT;
	return kind_of_type(cv->v->type);
}

struct ir_value *sc_list_of(struct sc *c, struct ir_value **vs, int n,
			    struct ir_type *elem, struct ts_loc loc)
{
	struct ir_node *nd = sc_node(c, OP_prim_ListConstruct, n, 1, loc);
	struct ir_type *t = ir_type_new(c->g, IR_TYPE_LIST);
	int i;

	for (i = 0; i < n; i++)
		nd->inputs[i] = vs[i];
	t->nelems = 1;
	t->elems = ir_alloc(c->g, sizeof(*t->elems));
	t->elems[0] = elem ? elem : n ? ir_type_copy(c->g, vs[0]->type) :
		ir_type_new(c->g, IR_TYPE_UNKNOWN);
	nd->outputs[0]->type = t;
	return nd->outputs[0];
}

/* A node of kind with the given inputs and one output of type t (NULL:
 * inferred or unknown), folded when constant.  Returns the output. */
static struct ir_value *emit1(struct sc *c, enum aten_op op,
			      struct ir_value **in, int nin,
			      struct ir_type *t, struct ts_loc loc)
{
	struct ir_node *n = sc_node(c, op, nin, 1, loc);
	struct ir_value *f;
	int i;

	for (i = 0; i < nin; i++)
		n->inputs[i] = in[i];
	if (t)
		n->outputs[0]->type = t;
	script_infer_node(c->g, n);
	f = script_fold_node(c->g, n);
	return f ? f : n->outputs[0];
}

static struct ir_value *default_value(struct sc *c, const struct aten_arg *a,
				      struct ts_loc loc)
{
	int i;

	switch (a->def_kind) {
	case ATEN_DEF_NONE:
		return sc_const_none(c, loc);
	case ATEN_DEF_INT:
		if ((a->flags & ATEN_ARG_LIST) && a->list_n) {
			struct ir_value *vs[64];
			for (i = 0; i < a->list_n && i < 64; i++)
				vs[i] = sc_const_int(c, a->def_i, loc);
			return sc_list_of(c, vs, i, ir_type_new(c->g, IR_TYPE_INT),
				       loc);
		}
		return sc_const_int(c, a->def_i, loc);
	case ATEN_DEF_FLOAT:
		return sc_const_float(c, a->def_f, loc);
	case ATEN_DEF_BOOL:
		return sc_const_bool(c, (int)a->def_i, loc);
	case ATEN_DEF_STR:
		return sc_const_str(c, a->def_s, strlen(a->def_s), loc);
	case ATEN_DEF_INTS:
	case ATEN_DEF_BOOLS:
	case ATEN_DEF_FLOATS: {
		struct ir_value **vs = ir_alloc(c->g, sizeof(*vs) *
						(a->def_n + 1));
		const int64_t *iv = aten_arg_default_ints(a);
		const double *fv = aten_arg_default_floats(a);
		enum ir_type_kind k = a->def_kind == ATEN_DEF_INTS ?
			IR_TYPE_INT : a->def_kind == ATEN_DEF_BOOLS ?
			IR_TYPE_BOOL : IR_TYPE_FLOAT;

		for (i = 0; i < a->def_n; i++)
			vs[i] = k == IR_TYPE_INT ? sc_const_int(c, iv[i], loc) :
				k == IR_TYPE_BOOL ? sc_const_bool(c, (int)iv[i],
								  loc) :
				sc_const_float(c, fv[i], loc);
		return sc_list_of(c, vs, a->def_n, ir_type_new(c->g, k), loc);
	}
	default:
		sc_error(c, loc, EXIT_UNSUPPORTED, "argument '%s' has no "
			 "default", a->name);
		return NULL;
	}
}

static struct ir_value *convert(struct sc *c, struct cval *cv,
				enum aten_conv conv, const struct aten_arg *p,
				struct ts_loc loc)
{
	struct ir_value *v, *vs[64];
	int i;

	if (conv == ATEN_CONV_TUPLE_TO_LIST && cv->kind == CV_TUPLE) {
		struct ir_value **items = ir_alloc(c->g, sizeof(*items) *
						   (cv->n + 1));
		for (i = 0; i < cv->n; i++)
			if (!(items[i] = sc_to_value(c, cv->items[i], loc)))
				return NULL;
		return sc_list_of(c, items, cv->n, NULL, loc);
	}
	v = sc_to_value(c, cv, loc);
	if (!v)
		return NULL;
	switch (conv) {
	case ATEN_CONV_NONE:
		return v;
	case ATEN_CONV_TENSOR_TO_INT:
		return emit1(c, OP_aten_IntImplicit, &v, 1,
			     ir_type_new(c->g, IR_TYPE_INT), loc);
	case ATEN_CONV_TENSOR_TO_FLOAT:
		return emit1(c, OP_aten_FloatImplicit, &v, 1,
			     ir_type_new(c->g, IR_TYPE_FLOAT), loc);
	case ATEN_CONV_TENSOR_TO_NUMBER:
		return emit1(c, OP_aten_ScalarImplicit, &v, 1, NULL, loc);
	case ATEN_CONV_TO_INT:
		return emit1(c, OP_aten_Int, &v, 1,
			     ir_type_new(c->g, IR_TYPE_INT), loc);
	case ATEN_CONV_TO_FLOAT:
		return emit1(c, OP_aten_Float, &v, 1,
			     ir_type_new(c->g, IR_TYPE_FLOAT), loc);
	case ATEN_CONV_STR_TO_DEVICE:
		return emit1(c, OP_aten_device, &v, 1,
			     ir_type_new(c->g, IR_TYPE_DEVICE), loc);
	case ATEN_CONV_BROADCAST:
		for (i = 0; i < p->list_n && i < 64; i++)
			vs[i] = v;
		return sc_list_of(c, vs, i, NULL, loc);
	case ATEN_CONV_TUPLE_TO_LIST: {
		struct ir_type *t = v->type;
		struct ir_node *n;
		if (t->kind != IR_TYPE_TUPLE) {
			sc_error(c, loc, EXIT_UNSUPPORTED, "unsupported "
				 "construct: tuple of unknown length as a list");
			return NULL;
		}
		n = sc_node(c, OP_prim_TupleUnpack, 1, t->nelems, loc);
		n->inputs[0] = v;
		for (i = 0; i < (int)t->nelems && i < 64; i++) {
			n->outputs[i]->type = t->elems[i];
			vs[i] = n->outputs[i];
		}
		return sc_list_of(c, vs, i, NULL, loc);
	}
	}
	return v;
}

/* --- schema types with type variables ----------------------------------
 * A schema type spelling ("t", "t[]", "Dict(str, t)", "(str, t)[]", "t?")
 * is matched against the types of the inputs to bind its variables (t, t1,
 * t2), then the return type is built with them bound. */

struct tvars {
	char name[4][8];
	struct ir_type *t[4];
	int n;
};

static int is_tvar(const char *p, size_t n)
{
	size_t i;

	/* t, t1, t2, tVal */
	if (!n || n > 7 || p[0] != 't')
		return 0;
	for (i = 1; i < n; i++)
		if (!((p[i] >= '0' && p[i] <= '9') ||
		      (p[i] >= 'A' && p[i] <= 'Z') ||
		      (i > 1 && p[i] >= 'a' && p[i] <= 'z')))
			return 0;
	return n == 1 || (p[1] >= '0' && p[1] <= '9') ||
	       (p[1] >= 'A' && p[1] <= 'Z');
}

static void trim(const char **p, size_t *n)
{
	while (*n && **p == ' ') {
		(*p)++;
		(*n)--;
	}
	while (*n && (*p)[*n - 1] == ' ')
		(*n)--;
}

/* Splits "A, B, C" (nesting kept) into at most max parts; the count. */
static int split_top(const char *p, size_t n, const char **ps, size_t *ns,
		     int max)
{
	int depth = 0, k = 0;
	size_t i, start = 0;

	for (i = 0; i <= n; i++) {
		if (i == n || (p[i] == ',' && !depth)) {
			if (k == max)
				return -1;
			ps[k] = p + start;
			ns[k++] = i - start;
			start = i + 1;
			continue;
		}
		if (p[i] == '(' || p[i] == '[')
			depth++;
		else if (p[i] == ')' || p[i] == ']')
			depth--;
	}
	return k;
}

static void unify(const char *p, size_t n, const struct ir_type *t,
		  struct tvars *tv, int depth)
{
	const char *ps[16];
	size_t ns[16];
	int k, i;

	trim(&p, &n);
	if (!n || !t || depth > 16 || t->kind == IR_TYPE_UNKNOWN)
		return;
	if (p[n - 1] == '?') {
		unify(p, n - 1, t->kind == IR_TYPE_OPTIONAL ? t->elems[0] : t,
		      tv, depth + 1);
		return;
	}
	if (p[n - 1] == ']') {
		size_t lb = n - 1;
		while (lb > 0 && p[lb] != '[')
			lb--;
		if (t->kind == IR_TYPE_LIST && t->nelems == 1)
			unify(p, lb, t->elems[0], tv, depth + 1);
		return;
	}
	if (n > 6 && !strncmp(p, "Dict(", 5) && p[n - 1] == ')') {
		k = split_top(p + 5, n - 6, ps, ns, 2);
		if (k == 2 && t->kind == IR_TYPE_DICT && t->nelems == 2) {
			unify(ps[0], ns[0], t->elems[0], tv, depth + 1);
			unify(ps[1], ns[1], t->elems[1], tv, depth + 1);
		}
		return;
	}
	if (p[0] == '(' && p[n - 1] == ')') {
		k = split_top(p + 1, n - 2, ps, ns, 16);
		if (k > 0 && t->kind == IR_TYPE_TUPLE && (int)t->nelems == k)
			for (i = 0; i < k; i++)
				unify(ps[i], ns[i], t->elems[i], tv, depth + 1);
		return;
	}
	if (is_tvar(p, n)) {
		for (i = 0; i < tv->n; i++)
			if (strlen(tv->name[i]) == n &&
			    !strncmp(tv->name[i], p, n))
				return;
		if (tv->n < 4) {
			memcpy(tv->name[tv->n], p, n);
			tv->name[tv->n][n] = 0;
			tv->t[tv->n++] = (struct ir_type *)t;
		}
	}
}

static struct ir_type *subst(struct sc *c, const char *p, size_t n,
			     const struct tvars *tv, int depth)
{
	const char *ps[16];
	size_t ns[16];
	struct ir_type *r;
	char buf[64];
	int k, i;

	trim(&p, &n);
	if (!n || depth > 16)
		return ir_type_new(c->g, IR_TYPE_UNKNOWN);
	if (p[n - 1] == '?') {
		r = ir_type_new(c->g, IR_TYPE_OPTIONAL);
		r->nelems = 1;
		r->elems = ir_alloc(c->g, sizeof(*r->elems));
		r->elems[0] = subst(c, p, n - 1, tv, depth + 1);
		return r;
	}
	if (p[n - 1] == ']') {
		size_t lb = n - 1;
		while (lb > 0 && p[lb] != '[')
			lb--;
		r = ir_type_new(c->g, IR_TYPE_LIST);
		r->nelems = 1;
		r->elems = ir_alloc(c->g, sizeof(*r->elems));
		r->elems[0] = subst(c, p, lb, tv, depth + 1);
		return r;
	}
	if (n > 6 && !strncmp(p, "Dict(", 5) && p[n - 1] == ')' &&
	    split_top(p + 5, n - 6, ps, ns, 2) == 2) {
		r = ir_type_new(c->g, IR_TYPE_DICT);
		r->nelems = 2;
		r->elems = ir_alloc(c->g, sizeof(*r->elems) * 2);
		r->elems[0] = subst(c, ps[0], ns[0], tv, depth + 1);
		r->elems[1] = subst(c, ps[1], ns[1], tv, depth + 1);
		return r;
	}
	if (p[0] == '(' && p[n - 1] == ')' &&
	    (k = split_top(p + 1, n - 2, ps, ns, 16)) > 0) {
		r = ir_type_new(c->g, IR_TYPE_TUPLE);
		r->nelems = k;
		r->elems = ir_alloc(c->g, sizeof(*r->elems) * k);
		for (i = 0; i < k; i++)
			r->elems[i] = subst(c, ps[i], ns[i], tv, depth + 1);
		return r;
	}
	if (is_tvar(p, n)) {
		for (i = 0; i < tv->n; i++)
			if (strlen(tv->name[i]) == n &&
			    !strncmp(tv->name[i], p, n))
				return ir_type_copy(c->g, tv->t[i]);
		return ir_type_new(c->g, IR_TYPE_UNKNOWN);
	}
	if (n >= sizeof(buf))
		return ir_type_new(c->g, IR_TYPE_UNKNOWN);
	memcpy(buf, p, n);
	buf[n] = 0;
	return sc_type_from_schema(c, buf);
}

/* The type of a return of schema s: its type variables bound from the
 * inputs' types. */
static struct ir_type *ret_type(struct sc *c, const struct aten_schema *s,
				const char *rt, struct ir_value **in)
{
	struct tvars tv;
	int i;

	tv.n = 0;
	for (i = 0; i < s->nargs; i++)
			if (in[i])
				unify(aten_schema_arg(s, i)->type,
				      strlen(aten_schema_arg(s, i)->type),
				      in[i]->type, &tv, 0);
	return subst(c, rt, strlen(rt), &tv, 0);
}

/* Is v (or something it aliases) held by a container built earlier? */
static int held_in_container(const struct ir_block *b,
			     const struct ir_value *v, int depth)
{
	const struct ir_node *n;
	uint32_t i;

	if (depth > 200)
		return 1;
	for (n = b->first; n; n = n->next) {
		if (n->op == OP_prim_ListConstruct ||
		    n->op == OP_prim_TupleConstruct ||
		    n->op == OP_prim_DictConstruct ||
		    n->op == OP_aten_append ||
		    n->op == OP_aten_insert ||
		    n->op == OP_aten__set_item)
			for (i = 0; i < n->ninputs; i++)
				if (n->inputs[i] == v)
					return 1;
		for (i = 0; i < n->nblocks; i++)
			if (held_in_container(n->blocks[i], v, depth + 1))
				return 1;
	}
	return 0;
}

/* Ops whose output may share memory with an input: an in-place op on their
 * result changes the input too, so it is left in place.  The schemas' alias
 * annotations (ATEN_OP_VIEW) say which aten ops are views; the rest may
 * also hand back an input itself. */
static int is_view_op(enum aten_op op)
{
	switch (op) {
	case OP_aten___getitem__:   /* a list's element is the tensor itself */
	case OP_aten_type_as:       /* returns self when the dtypes match */
	case OP_aten_index:         /* kept from the hand list: conservative */
	case OP_prim_ListUnpack:    /* pass their inputs' tensors through */
	case OP_prim_TupleUnpack:
	case OP_prim_TupleIndex:
	case OP_prim_unchecked_cast:
	case OP_prim_If:
	case OP_prim_Loop:
		return 1;
	default:
		return (aten_op_flags(op) & ATEN_OP_VIEW) != 0;
	}
}

/* Was v made before the value numbered mark?  Values the compiler makes
 * are named by ir_fresh_name's counter ("123"); named ones (graph inputs,
 * weights) are older than any loop. */
static int born_before(const struct ir_value *v, uint32_t mark)
{
	const char *p = v->name;
	unsigned long id = 0;

	if (!*p)
		return 1;
	for (; *p; p++) {
		if (*p < '0' || *p > '9')
			return 1;
		id = id * 10 + (unsigned long)(*p - '0');
		if (id > UINT32_MAX)
			return 1;
	}
	return id < mark;
}

/* May bindings of old be rebound to new in every frame?  Only when no
 * block has been opened since a frame that binds it started, old is not a
 * view of another value, and no container holds it. */
static int rebind_safe(struct sc *c, struct ir_value *old)
{
	struct frame *f;
	int i;

	if (old->producer && is_view_op(old->producer->op))
		return 0;
	if (c->loop_mark && born_before(old, c->loop_mark))
		/* a value from outside the loop: the change must be seen
		 * by the next iteration and after the loop, so it stays
		 * in place */
		return 0;
	if (held_in_container(c->g->top, old, 0))
		return 0;

	for (f = c->fr; f; f = f->parent) {
		int binds = 0;
		for (i = 0; i < f->env->n; i++)
			if (f->env->b[i].cv->kind == CV_VALUE &&
			    f->env->b[i].cv->v == old)
				binds = 1;
		if (f != c->fr && binds && f->entry != c->blk)
			return 0;
		if (f->entry != c->blk && f->parent) {
			/* frames further out cannot see this block's values */
			struct frame *g2;
			for (g2 = f->parent; g2; g2 = g2->parent)
				for (i = 0; i < g2->env->n; i++)
					if (g2->env->b[i].cv->kind == CV_VALUE &&
					    g2->env->b[i].cv->v == old)
						return 0;
			return 1;
		}
	}
	return 1;
}

static void rebind(struct sc *c, struct ir_value *old, struct ir_value *nv)
{
	struct frame *f;
	int i;

	for (f = c->fr; f; f = f->parent)
		for (i = 0; i < f->env->n; i++)
			if (f->env->b[i].cv->kind == CV_VALUE &&
			    f->env->b[i].cv->v == old)
				f->env->b[i].cv = cv_value(c, nv);
}


/* --- dicts ----------------------------------------------------------------
 * A dict is static (CV_DICT): torch.dict(), a literal or a pickled
 * attribute, its keys constant strings or ints; _set_item, __getitem__,
 * __contains__, len and get read and change it at compile time, as torch's
 * freezing leaves IntermediateLayerGetter's `return_layers` and the
 * `result["out"]` of segmentation models. */

struct cval *sc_dict_new(struct sc *c)
{
	struct cval *d = ir_alloc(c->g, sizeof(*d));

	d->kind = CV_DICT;
	d->blk = c->blk;
	return d;
}

/* The key of cv as "s:text" or "i:123", NULL when not constant. */
static const char *dict_key(struct sc *c, const struct cval *cv)
{
	const struct ir_attr *a;
	int64_t i;

	if (cv->kind != CV_VALUE)
		return NULL;
	if (cv->v->type->kind == IR_TYPE_INT && script_const_int(cv->v, &i))
		return ir_strfmt(c->g, "i:%lld", (long long)i);
	if (cv->v->type->kind != IR_TYPE_STR || !cv->v->producer ||
	    cv->v->producer->op != OP_prim_Constant)
		return NULL;
	a = ir_node_find_attr(cv->v->producer, "value");
	if (!a || a->kind != IR_ATTR_STRING)
		return NULL;
	return ir_strfmt(c->g, "s:%.*s", (int)a->u.s.len,
			 a->u.s.data ? a->u.s.data : "");
}

static int dict_find(const struct cval *d, const char *key)
{
	int i;

	for (i = 0; i < d->n; i++)
		if (!strcmp(d->names[i], key))
			return i;
	return -1;
}

int sc_dict_set(struct sc *c, struct cval *d, struct cval *k, struct cval *v,
		struct ts_loc loc)
{
	const char *key = dict_key(c, k);
	int i;

	if (!key)
		return sc_error(c, loc, EXIT_UNSUPPORTED, "unsupported "
				"construct: a dict key that is not a constant "
				"str or int");
	i = dict_find(d, key);
	if (i >= 0) {
		d->items[i] = v;
		return 0;
	}
	if (d->n == d->cap) {
		int cap = d->cap ? d->cap * 2 : 8;
		struct cval **it = ir_alloc(c->g, sizeof(*it) * cap);
		const char **nm = ir_alloc(c->g, sizeof(*nm) * cap);
		if (d->n) {
			memcpy(it, d->items, sizeof(*it) * d->n);
			memcpy(nm, d->names, sizeof(*nm) * d->n);
		}
		d->items = it;
		d->names = nm;
		d->cap = cap;
	}
	d->names[d->n] = key;
	d->items[d->n++] = v;
	return 0;
}

/* The key of entry i of static dict d as a constant. */
static struct ir_value *dict_key_value(struct sc *c, const struct cval *d,
				       int i, struct ts_loc loc)
{
	const char *k = d->names[i];

	if (k[0] == 'i')
		return sc_const_int(c, strtoll(k + 2, NULL, 10), loc);
	return sc_const_str(c, k + 2, strlen(k + 2), loc);
}

/* d.keys(), d.values(), d.items() (what: 'k', 'v', 'i') of a static dict:
 * a list built from its entries, in insertion order as torch's. */
static struct cval *dict_list(struct sc *c, const struct cval *d, char what,
			      struct ts_loc loc)
{
	struct ir_value **vs = ir_alloc(c->g, sizeof(*vs) * (d->n + 1));
	struct ir_type *et = NULL;
	int i;

	for (i = 0; i < d->n; i++) {
		struct ir_value *k = NULL, *v = NULL;
		if (what != 'v')
			k = dict_key_value(c, d, i, loc);
		if (what != 'k' && !(v = sc_to_value(c, d->items[i], loc)))
			return NULL;
		if (what == 'i') {
			struct ir_node *n = sc_node(c, OP_prim_TupleConstruct,
						    2, 1, loc);
			struct ir_type *t = ir_type_new(c->g, IR_TYPE_TUPLE);
			t->nelems = 2;
			t->elems = ir_alloc(c->g, sizeof(*t->elems) * 2);
			t->elems[0] = k->type;
			t->elems[1] = v->type;
			n->inputs[0] = k;
			n->inputs[1] = v;
			n->outputs[0]->type = t;
			vs[i] = n->outputs[0];
		} else {
			vs[i] = k ? k : v;
		}
	}
	if (what == 'k')
		et = d->ktype ? d->ktype : NULL;
	else if (what == 'v' && d->vtype)
		et = d->vtype;
	if (!et && !d->n)
		et = ir_type_new(c->g, IR_TYPE_UNKNOWN);
	return cv_value(c, sc_list_of(c, vs, d->n, et, loc));
}

/* Makes static dict d one value from here on (in its own block: see
 * dict_value in compile.c); 0, or -1 after reporting. */
static int dict_to_value(struct sc *c, struct cval *d, struct ts_loc loc)
{
	struct ir_block *saved = c->blk;
	struct ir_value *v;

	if (d->blk)
		c->blk = sc_live_block(c, d->blk);
	v = sc_to_value(c, d, loc);
	c->blk = saved;
	return v && d->kind == CV_VALUE ? 0 : -1;
}

/* Static dict ops.  *dyn set when the op must be an op on the dict as a
 * value instead (a change inside control flow, a key not constant, an op
 * with no static meaning): the caller converts the dict then. */
static struct cval *dict_op(struct sc *c, enum aten_op op,
			    struct cval **args, int nargs, int nkw,
			    struct ts_loc loc, int *dyn)
{
	struct cval *d = args[0];
	const char *key = nargs >= 2 ? dict_key(c, args[1]) : NULL;
	int i;

	*dyn = 0;
	if (nkw) {
		*dyn = 1;
		return NULL;
	}
	if (op == OP_aten_len && nargs == 1)
		return cv_value(c, sc_const_int(c, d->n, loc));
	if (nargs == 1 && (op == OP_aten_keys ||
			   op == OP_aten_values ||
			   op == OP_aten_items))
		return dict_list(c, d, aten_op_name(op)[6], loc);
	if (nargs >= 2 && !key) {
		*dyn = 1;
		return NULL;
	}
	if (op == OP_aten__set_item && nargs == 3 &&
	    d->blk && sc_live_block(c, d->blk) != c->blk) {
		*dyn = 1;
		return NULL;
	}
	i = key ? dict_find(d, key) : -1;
	if (op == OP_aten___contains__ && nargs == 2)
		return cv_value(c, sc_const_bool(c, i >= 0, loc));
	if (op == OP_aten___getitem__ && nargs == 2) {
		if (i < 0)
			return sc_error(c, loc, EXIT_UNSUPPORTED, "KeyError: "
					"'%s' is not in the dict", key + 2),
			       NULL;
		return d->items[i];
	}
	if (op == OP_aten_get && (nargs == 2 || nargs == 3)) {
		if (i >= 0)
			return d->items[i];
		return nargs == 3 ? args[2] : cv_value(c, sc_const_none(c, loc));
	}
	if (op == OP_aten__set_item && nargs == 3)
		return sc_dict_set(c, d, args[1], args[2], loc) ? NULL
		       : cv_value(c, sc_const_none(c, loc));
	*dyn = 1;
	return NULL;
}

enum aten_era sc_era(const struct sc *c)
{
	return c->ar && (c->ar->version_in_data || c->ar->byteorder)
	       ? ATEN_ERA_2_11 : ATEN_ERA_1_13;
}

struct cval *sc_call_op(struct sc *c, const char *qual, struct cval **args,
			int nargs, const char **kwnames, struct cval **kwargs,
			int nkw, struct ts_loc loc)
{
	struct aten_call_arg ca[64];
	struct aten_match m;
	char why[256];
	const struct aten_schema *s;
	struct ir_value **in;
	struct ir_node *n;
	enum aten_op op = aten_op_id(qual);
	int i, nout;

	if (nargs + nkw > 64)
		return sc_error(c, loc, EXIT_UNSUPPORTED, "too many arguments "
				"to '%s'", qual), NULL;
	if (op == OP_aten_detach && nargs == 1 && !nkw &&
	    args[0]->kind == CV_VALUE &&
	    args[0]->v->type->kind == IR_TYPE_TENSOR)
		/* a no-op for inference: torch's frozen graph has none */
		return args[0];
	if (nargs >= 1 && args[0]->kind == CV_DICT) {
		int dyn;
		struct cval *r = dict_op(c, op, args, nargs, nkw, loc, &dyn);
		if (!dyn || c->err)
			return r;
		if (dict_to_value(c, args[0], loc))
			return NULL;
	}
	for (i = 1; i < nargs; i++)
		if (args[i]->kind == CV_DICT && dict_to_value(c, args[i], loc))
			return NULL;
	for (i = 0; i < nkw; i++)
		if (kwargs[i]->kind == CV_DICT &&
		    dict_to_value(c, kwargs[i], loc))
			return NULL;
	for (i = 0; i < nargs; i++) {
		ca[i].name = NULL;
		ca[i].kind = kind_of(args[i]);
	}
	for (i = 0; i < nkw; i++) {
		ca[nargs + i].name = kwnames[i];
		ca[nargs + i].kind = kind_of(kwargs[i]);
	}
	if (aten_op_flags(op) & ATEN_OP_INPLACE) {
		char oop[128];
		size_t l = strlen(qual);
		struct aten_match m2;
		if (l < sizeof(oop) && nargs > 0 && args[0]->kind == CV_VALUE) {
			memcpy(oop, qual, l - 1);
			oop[l - 1] = 0;
			if (!aten_schema_resolve_era(oop, sc_era(c), ca,
						     nargs + nkw, &m2, why,
						     sizeof(why)) &&
			    rebind_safe(c, args[0]->v)) {
				struct ir_value *old = args[0]->v;
				struct cval *r = sc_call_op(c, oop, args, nargs,
							    kwnames, kwargs,
							    nkw, loc);
				if (r && r->kind == CV_VALUE)
					rebind(c, old, r->v);
				return r;
			}
		}
	}
	if (aten_schema_resolve_era(qual, sc_era(c), ca, nargs + nkw, &m, why,
				    sizeof(why))) {
		size_t cnt = 0;
		int64_t dv;
		int k, kw_steps = 0;
		for (k = 0; k < nkw; k++)
			kw_steps |= !strcmp(kwnames[k], "steps");
		if (nargs == 2 && !kw_steps &&
		    script_upgrade_missing_arg(op, "steps", c->ar->version,
					       &dv)) {
			/* an old archive's linspace/logspace without steps:
			 * what torch's upgrader passes (upgraders.c) */
			struct cval **a3 = ir_alloc(c->g, sizeof(*a3) * 3);
			a3[0] = args[0];
			a3[1] = args[1];
			a3[2] = cv_value(c, sc_const_int(c, dv, loc));
			return sc_call_op(c, qual, a3, 3, kwnames, kwargs, nkw,
					  loc);
		}
		if (aten_schema_lookup(qual, &cnt) ||
		    !strncmp(qual, "aten::", 6))
			return sc_error(c, loc, EXIT_UNSUPPORTED,
					"unsupported construct: call of '%s': %s",
					qual, why), NULL;
		/* an operator without a schema: inputs as given */
		if (nkw)
			return sc_error(c, loc, EXIT_UNSUPPORTED,
					"unsupported construct: keyword "
					"arguments to '%s'", qual), NULL;
		in = ir_alloc(c->g, sizeof(*in) * (nargs + 1));
		for (i = 0; i < nargs; i++)
			if (!(in[i] = sc_to_value(c, args[i], loc)))
				return NULL;
		n = sc_node_named(c, qual, nargs, 1, loc);
		for (i = 0; i < nargs; i++)
			n->inputs[i] = in[i];
		return cv_value(c, n->outputs[0]);
	}
	s = m.schema;
	in = ir_alloc(c->g, sizeof(*in) * (s->nargs + m.nvararg + 1));
	for (i = 0; i < s->nargs; i++) {
		const struct aten_arg *a = aten_schema_arg(s, i);
		int ai = m.bind[i].arg;
		if (ai == ATEN_BIND_DEFAULT)
			in[i] = default_value(c, a, loc);
		else
			in[i] = convert(c, ai < nargs ? args[ai] :
					kwargs[ai - nargs], m.bind[i].conv, a,
					loc);
		if (!in[i])
			return NULL;
	}
	for (i = 0; i < m.nvararg; i++)
		if (!(in[s->nargs + i] = sc_to_value(c, args[nargs - m.nvararg +
							       i], loc)))
			return NULL;
	nout = (s->flags & ATEN_SCHEMA_VARRET) ? 1 : s->nrets;
	n = sc_node_named(c, qual, s->nargs + m.nvararg, nout, loc);
	for (i = 0; i < s->nargs + m.nvararg; i++)
		n->inputs[i] = in[i];
	for (i = 0; i < nout; i++) {
		const struct aten_arg *r = aten_schema_ret(s, i);
		if (r && !(s->flags & ATEN_SCHEMA_VARRET))
			n->outputs[i]->type = ret_type(c, s, r->type, in);
	}
	script_infer_node(c->g, n);
	if (nout == 1) {
		struct ir_value *f = script_fold_node(c->g, n);
		return cv_value(c, f ? f : n->outputs[0]);
	}
	if (nout == 0)
		return cv_value(c, sc_const_none(c, loc));
	{
		struct cval **items = ir_alloc(c->g, sizeof(*items) * nout);
		for (i = 0; i < nout; i++)
			items[i] = cv_value(c, n->outputs[i]);
		return cv_tuple(c, items, nout);
	}
}

const struct ts_def *sc_find_method(const struct ts_class *cls,
				    const char *name)
{
	int i;

	for (i = 0; cls && i < cls->nmethods; i++)
		if (!strcmp(cls->methods[i]->name, name))
			return cls->methods[i];
	return NULL;
}

struct cval *sc_inline(struct sc *c, const struct ts_def *def,
		       const char *file, struct modref *self,
		       const char *scope, struct cval **args, int nargs,
		       const struct ts_kwarg *const *kw, struct cval **kwargs,
		       int nkw, struct ts_loc loc)
{
	struct frame fr, *saved = c->fr;
	struct cval *saved_ret = c->retval, *r;
	int saved_returned = c->returned, i, ai = 0, k;

	if (c->depth >= SCRIPT_MAX_INLINE)
		return sc_error(c, loc, EXIT_UNSUPPORTED, "unsupported "
				"construct: calls nested deeper than %d "
				"(recursion?)", SCRIPT_MAX_INLINE), NULL;
	memset(&fr, 0, sizeof(fr));
	fr.env = env_new(c);
	fr.self = self;
	fr.file = file;
	fr.scope = scope;
	fr.entry = c->blk;
	fr.parent = saved;
	for (i = 0; i < def->nparams; i++) {
		const struct ts_param *p = def->params[i];
		struct cval *v = NULL;

		if (i == 0 && self && sc_is_self_param(p, self)) {
			struct cval *sv = ir_alloc(c->g, sizeof(*sv));
			sv->kind = CV_MODULE;
			sv->mod = self;
			env_set(c, fr.env, p->name, sv);
			continue;
		}
		if (ai < nargs)
			v = args[ai++];
		for (k = 0; k < nkw; k++)
			if (!strcmp(kw[k]->name, p->name))
				v = kwargs[k];
		if (!v && p->def) {
			c->fr = &fr;
			v = sc_expr(c, p->def);
			c->fr = saved;
		}
		if (!v)
			return sc_error(c, loc, EXIT_UNSUPPORTED, "unsupported "
					"construct: argument '%s' of '%s' not "
					"given", p->name, def->name), NULL;
		env_set(c, fr.env, p->name, v);
	}
	if (ai < nargs)
		return sc_error(c, loc, EXIT_UNSUPPORTED, "unsupported "
				"construct: too many arguments to '%s'",
				def->name), NULL;
	c->fr = &fr;
	c->depth++;
	c->retval = NULL;
	c->returned = 0;
	sc_block(c, &def->body);
	c->depth--;
	if (c->err && getenv("PT2ONNX_SCRIPT_STACK"))
		/* a debugging aid: where the failing code was inlined
		 * from, innermost first */
		fprintf(stderr, "  in '%s' inlined at %s:%d:%d\n", def->name,
			saved && saved->file ? saved->file : "code", loc.line,
			loc.col);
	r = c->retval;
	c->fr = saved;
	c->retval = saved_ret;
	c->returned = saved_returned;
	if (!r && !c->err && !c->raised)
		r = cv_value(c, sc_const_none(c, loc));
	return r;
}

/* --- calls -------------------------------------------------------------- */

static struct cval *call_function(struct sc *c, const char *qual,
				  struct cval **args, int nargs,
				  const struct ts_kwarg *const *kw,
				  struct cval **kwargs, int nkw,
				  struct ts_loc loc)
{
	const char *file, *name = strrchr(qual, '.');
	struct ts_module *mod = sc_load_module(c, qual, &file, loc);
	int i;

	if (!mod)
		return NULL;
	name = name ? name + 1 : qual;
	if (!strcmp(name, "__new__") && name - 1 > qual) {
		/* C.__new__(C): a fresh object, its fields set by the
		 * __init__ call that follows */
		const char *cq = ir_strndup(c->g, qual,
					    (size_t)(name - 1 - qual));
		const char *cn = sc_short_class(c, cq);
		for (i = 0; i < mod->nclasses; i++)
			if (!strcmp(mod->classes[i]->name, cn)) {
				struct cval *o = ir_alloc(c->g, sizeof(*o));
				o->kind = CV_OBJECT;
				o->qual = cq;
				o->cls = mod->classes[i];
				o->file = file;
				o->blk = c->blk;
				return o;
			}
		return sc_error(c, loc, EXIT_BAD_INPUT, "class '%s' is not "
				"defined in '%s'", cq, file), NULL;
	}
	for (i = 0; i < mod->ndefs; i++)
		if (!strcmp(mod->defs[i]->name, name))
			return sc_inline(c, mod->defs[i], file, NULL,
					 c->fr->scope, args, nargs, kw, kwargs,
					 nkw, loc);
	for (i = 0; i < mod->nclasses; i++) {
		const struct ts_class *cls = mod->classes[i];
		struct cval *t;
		int f, k, nf = 0;

		if (strcmp(cls->name, name) || !cls->base ||
		    strcmp(cls->base, "NamedTuple"))
			continue;
		/* a NamedTuple: a static tuple with field names */
		t = cv_tuple(c, ir_alloc(c->g, sizeof(struct cval *) *
					 (cls->nfields + 1)), 0);
		t->names = ir_alloc(c->g, sizeof(char *) * (cls->nfields + 1));
		for (f = 0; f < cls->nfields; f++) {
			const struct ts_field *fd = cls->fields[f];
			struct cval *v = nf < nargs ? args[nf] : NULL;
			for (k = 0; k < nkw; k++)
				if (!strcmp(kw[k]->name, fd->name))
					v = kwargs[k];
			if (!v && fd->value)
				v = sc_expr(c, fd->value);
			if (!v)
				return sc_error(c, loc, EXIT_UNSUPPORTED,
						"unsupported construct: field "
						"'%s' of '%s' not given",
						fd->name, qual), NULL;
			t->names[nf] = fd->name;
			t->items[nf++] = v;
		}
		if (nargs > nf)
			return sc_error(c, loc, EXIT_UNSUPPORTED, "unsupported "
					"construct: too many fields for '%s'",
					qual), NULL;
		t->n = nf;
		return t;
	}
	return sc_error(c, loc, EXIT_UNSUPPORTED, "unsupported construct: "
			"call of '%s' (no such function in '%s')", qual,
			file), NULL;
}

/* The class a class-typed value is of, or NULL after reporting. */
static const struct ts_class *value_class(struct sc *c,
					  const struct ir_value *v,
					  const char **file, struct ts_loc loc)
{
	const char *qual = v->type->name;
	struct ts_module *mod;
	int i;

	if (!qual || !(mod = sc_load_module(c, qual, file, loc)))
		return NULL;
	for (i = 0; i < mod->nclasses; i++)
		if (!strcmp(mod->classes[i]->name, sc_short_class(c, qual)))
			return mod->classes[i];
	return sc_error(c, loc, EXIT_BAD_INPUT, "class '%s' is not defined "
			"in '%s'", qual, *file), NULL;
}

struct cval *sc_obj_getattr(struct sc *c, struct ir_value *obj,
			    const char *name, struct ts_loc loc)
{
	const char *file;
	const struct ts_class *cls = value_class(c, obj, &file, loc);
	struct ir_node *n;
	struct ir_attr *a;
	int i;

	if (!cls)
		return NULL;
	for (i = 0; i < cls->nfields; i++)
		if (!strcmp(cls->fields[i]->name, name))
			break;
	if (i == cls->nfields)
		return sc_error(c, loc, EXIT_UNSUPPORTED, "unsupported "
				"construct: class '%s' has no field '%s'",
				obj->type->name, name), NULL;
	n = sc_node(c, OP_prim_GetAttr, 1, 1, loc);
	n->inputs[0] = obj;
	a = ir_node_add_attr(c->g, n, "name", IR_ATTR_STRING);
	a->u.s.data = ir_strdup(c->g, name);
	a->u.s.len = strlen(name);
	n->outputs[0]->type = sc_type_from_ts(c, cls->fields[i]->type);
	return cv_value(c, n->outputs[0]);
}

int sc_obj_setattr(struct sc *c, struct ir_value *obj, const char *name,
		   struct cval *v, struct ts_loc loc)
{
	struct ir_value *val = sc_to_value(c, v, loc);
	struct ir_node *n;
	struct ir_attr *a;

	if (!val)
		return -1;
	n = sc_node(c, OP_prim_SetAttr, 2, 0, loc);
	n->inputs[0] = obj;
	n->inputs[1] = val;
	a = ir_node_add_attr(c->g, n, "name", IR_ATTR_STRING);
	a->u.s.data = ir_strdup(c->g, name);
	a->u.s.len = strlen(name);
	return 0;
}

struct cval *sc_obj_get(const struct cval *o, const char *name)
{
	int i;

	for (i = 0; i < o->n; i++)
		if (!strcmp(o->names[i], name))
			return o->items[i];
	return NULL;
}

int sc_obj_set(struct sc *c, struct cval *o, const char *name, struct cval *v,
	       struct ts_loc loc)
{
	int i;

	if (o->kind == CV_VALUE)
		return sc_obj_setattr(c, o->v, name, v, loc);
	if (o->blk && sc_live_block(c, o->blk) != c->blk) {
		struct objw *w;
		if (!c->objlog) {
			/* in a loop body: the object becomes a value where
			 * it was made, its fields prim::SetAttr/GetAttr */
			struct ir_block *saved = c->blk;
			struct ir_value *ov;

			c->blk = sc_live_block(c, o->blk);
			ov = sc_to_value(c, o, loc);
			c->blk = saved;
			if (!ov || o->kind != CV_VALUE)
				return -1;
			c->nobjconv++;
			return sc_obj_setattr(c, ov, name, v, loc);
		}
		for (w = *c->objlog; w; w = w->next)
			if (w->o == o && !strcmp(w->name, name))
				break;
		if (!w) {
			w = ir_alloc(c->g, sizeof(*w));
			w->o = o;
			w->name = name;
			w->old = sc_obj_get(o, name);
			w->next = *c->objlog;
			*c->objlog = w;
		}
	}
	for (i = 0; i < o->n; i++)
		if (!strcmp(o->names[i], name)) {
			o->items[i] = v;
			return 0;
		}
	if (o->n == o->cap) {
		int cap = o->cap ? o->cap * 2 : 8;
		struct cval **it = ir_alloc(c->g, sizeof(*it) * cap);
		const char **nm = ir_alloc(c->g, sizeof(*nm) * cap);
		if (o->n) {
			memcpy(it, o->items, sizeof(*it) * o->n);
			memcpy(nm, o->names, sizeof(*nm) * o->n);
		}
		o->items = it;
		o->names = nm;
		o->cap = cap;
	}
	o->names[o->n] = name;
	o->items[o->n++] = v;
	return 0;
}

/* obj.name(args): the class's method inlined, self the object. */
static struct cval *call_obj_method(struct sc *c, struct cval *o,
				    const char *name, struct cval **args,
				    int nargs, const struct ts_kwarg *const *kw,
				    struct cval **kwargs, int nkw,
				    struct ts_loc loc)
{
	const struct ts_def *def = sc_find_method(o->cls, name);
	struct cval **a2;

	if (!def)
		return sc_error(c, loc, EXIT_UNSUPPORTED, "unsupported "
				"construct: class '%s' has no method '%s'",
				o->qual, name), NULL;
	a2 = ir_alloc(c->g, sizeof(*a2) * (nargs + 2));
	a2[0] = o;
	if (nargs)
		memcpy(a2 + 1, args, sizeof(*a2) * nargs);
	return sc_inline(c, def, o->file, NULL, c->fr->scope, a2, nargs + 1,
			 kw, kwargs, nkw, loc);
}

/* v.name(args) on a value: x.tolist() (prim::tolist, its list type from
 * the annotate around it, else unknown), else the aten op of that name
 * with v first, as the method's schema is. */
static struct cval *call_value_method(struct sc *c, struct cval *o,
				      const char *name, struct cval **args,
				      int nargs, const char **kwnames,
				      struct cval **kwargs, int nkw,
				      struct ts_loc loc)
{
	struct cval **a2;
	char qual[128];

	if (o->v->type->kind == IR_TYPE_CLASS) {
		/* an object as a value: its class's method, self the value */
		const char *file;
		const struct ts_class *cls = value_class(c, o->v, &file, loc);
		const struct ts_def *def = cls ? sc_find_method(cls, name)
					       : NULL;
		if (!cls)
			return NULL;
		if (!def || nkw)
			return sc_error(c, loc, EXIT_UNSUPPORTED, "unsupported "
					"construct: method '%s' of class '%s'",
					name, o->v->type->name), NULL;
		a2 = ir_alloc(c->g, sizeof(*a2) * (nargs + 2));
		a2[0] = o;
		if (nargs)
			memcpy(a2 + 1, args, sizeof(*a2) * nargs);
		return sc_inline(c, def, file, NULL, c->fr->scope, a2,
				 nargs + 1, NULL, NULL, 0, loc);
	}
	if (!strcmp(name, "tolist") && !nargs && !nkw) {
		struct ir_node *n = sc_node(c, OP_prim_tolist, 1, 1, loc);
		n->inputs[0] = o->v;
		n->outputs[0]->type = ir_type_new(c->g, IR_TYPE_LIST);
		n->outputs[0]->type->nelems = 1;
		n->outputs[0]->type->elems = ir_alloc(c->g,
						      sizeof(struct ir_type *));
		n->outputs[0]->type->elems[0] = ir_type_new(c->g,
							    IR_TYPE_UNKNOWN);
		return cv_value(c, n->outputs[0]);
	}
	if (snprintf(qual, sizeof(qual), "aten::%s", name) >= (int)sizeof(qual))
		return sc_error(c, loc, EXIT_UNSUPPORTED, "unsupported "
				"construct: method call '.%s' on a value",
				name), NULL;
	{
		size_t cnt;
		if (!aten_schema_lookup(qual, &cnt))
			return sc_error(c, loc, EXIT_UNSUPPORTED,
					"unsupported construct: method call "
					"'.%s' on a value", name), NULL;
	}
	a2 = ir_alloc(c->g, sizeof(*a2) * (nargs + 2));
	a2[0] = o;
	if (nargs)
		memcpy(a2 + 1, args, sizeof(*a2) * nargs);
	return sc_call_op(c, ir_strdup(c->g, qual), a2, nargs + 1, kwnames,
			  kwargs, nkw, loc);
}

static struct cval *call_method(struct sc *c, struct modref *m,
				const char *name, struct cval **args,
				int nargs, const struct ts_kwarg *const *kw,
				struct cval **kwargs, int nkw,
				struct ts_loc loc)
{
	const struct ts_class *cls = sc_module_class(c, m, loc);
	const struct ts_def *def;

	if (!cls)
		return NULL;
	def = sc_find_method(cls, name);
	if (!def)
		return sc_error(c, loc, EXIT_UNSUPPORTED, "unsupported "
				"construct: '%s' has no method '%s'",
				m->obj->u.object->class_name, name), NULL;
	return sc_inline(c, def, m->file, m, m->scope, args, nargs, kw, kwargs,
			 nkw, loc);
}

/* `a is None` when types decide it: 1 or 0, else -1. */
static int static_is(const struct cval *a, const struct cval *b)
{
	const struct ir_type *ta, *tb;

	if (a->kind != CV_VALUE || b->kind != CV_VALUE)
		return a->kind == CV_VALUE || b->kind == CV_VALUE ? 0 : -1;
	ta = a->v->type;
	tb = b->v->type;
	if (ta->kind == IR_TYPE_NONE && tb->kind == IR_TYPE_NONE)
		return 1;
	if (ta->kind == IR_TYPE_NONE || tb->kind == IR_TYPE_NONE) {
		const struct ir_type *o = ta->kind == IR_TYPE_NONE ? tb : ta;
		if (o->kind == IR_TYPE_OPTIONAL || o->kind == IR_TYPE_UNKNOWN)
			return -1;
		return 0;
	}
	return -1;
}

static const char *builtin_op(const char *name)
{
	static const struct {
		const char *name;
		enum aten_op op;
	} map[] = {
		{ "int", OP_aten_Int }, { "float", OP_aten_Float },
		{ "bool", OP_aten_Bool }, { "len", OP_aten_len },
		{ "str", OP_aten_str }, { "abs", OP_prim_abs },
		{ "min", OP_prim_min }, { "max", OP_prim_max },
		{ "print", OP_prim_Print }, { "round", OP_aten_round },
		{ "divmod", OP_aten_divmod }, { "ord", OP_aten_ord },
		{ "chr", OP_aten_chr }, { "hash", OP_aten_hash },
	};
	size_t i;

	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(map[i].name, name))
			return aten_op_name(map[i].op);
	return NULL;
}

static struct cval *sc_call(struct sc *c, const struct ts_expr *e)
{
	const struct ts_expr *fn = e->u.call.fn;
	int na = e->u.call.nargs, nk = e->u.call.nkwargs, i;
	struct cval **args = ir_alloc(c->g, sizeof(*args) * (na + 1));
	struct cval **kwargs = ir_alloc(c->g, sizeof(*kwargs) * (nk + 1));
	const char **kwnames = ir_alloc(c->g, sizeof(*kwnames) * (nk + 1));
	const struct ts_kwarg *const *kw =
		(const struct ts_kwarg *const *)e->u.call.kwargs;
	char qual[256];

	/* getattr(self, "0") */
	if (fn->kind == TS_EXPR_NAME && !strcmp(fn->u.name, "getattr") &&
	    na == 2 && e->u.call.args[1]->kind == TS_EXPR_STR) {
		struct cval *o = sc_expr(c, e->u.call.args[0]);
		if (!o)
			return NULL;
		if (o->kind != CV_MODULE)
			return sc_error(c, e->loc, EXIT_UNSUPPORTED,
					"unsupported construct: getattr of a "
					"value"), NULL;
		return sc_module_attr(c, o->mod, e->u.call.args[1]->u.str.s,
				      e->loc);
	}
	for (i = 0; i < na; i++)
		if (!(args[i] = sc_expr(c, e->u.call.args[i])))
			return NULL;
	for (i = 0; i < nk; i++) {
		kwnames[i] = kw[i]->name;
		if (!(kwargs[i] = sc_expr(c, kw[i]->value)))
			return NULL;
	}
	if (fn->kind == TS_EXPR_ATTR && fn->u.attr.dotted &&
	    (!strncmp(fn->u.attr.dotted, "torch.", 6) ||
	     !strncmp(fn->u.attr.dotted, "ops.", 4))) {
		const char *d = fn->u.attr.dotted;
		if ((!strcmp(d, "torch.__is__") ||
		     !strcmp(d, "torch.__isnot__")) && na == 2 && !nk) {
			int r = static_is(args[0], args[1]);
			if (r >= 0)
				return cv_value(c, sc_const_bool(c,
					!strcmp(d, "torch.__is__") ? r : !r,
					e->loc));
		}
		if (!strcmp(d, "torch.dict") && na == 0 && !nk)
			return sc_dict_new(c);
		if (!strcmp(d, "ops.prim.RaiseException")) {
			struct ir_node *n;
			struct ir_value **in = ir_alloc(c->g, sizeof(*in) *
							(na + 1));
			for (i = 0; i < na; i++)
				if (!(in[i] = sc_to_value(c, args[i], e->loc)))
					return NULL;
			n = sc_node(c, OP_prim_RaiseException, na, 0, e->loc);
			for (i = 0; i < na; i++)
				n->inputs[i] = in[i];
			c->raised = 1;
			return cv_value(c, sc_const_none(c, e->loc));
		}
		if (!ts_op_qualname(fn, qual, sizeof(qual)))
			return sc_error(c, e->loc, EXIT_UNSUPPORTED,
					"unsupported construct: call of '%s'",
					d), NULL;
		return sc_call_op(c, qual, args, na, kwnames, kwargs, nk,
				  e->loc);
	}
	if (fn->kind == TS_EXPR_ATTR && fn->u.attr.dotted &&
	    !strncmp(fn->u.attr.dotted, "__torch__.", 10))
		return call_function(c, fn->u.attr.dotted, args, na, kw,
				     kwargs, nk, e->loc);
	if (fn->kind == TS_EXPR_ATTR) {
		struct cval *o = sc_expr(c, fn->u.attr.obj);
		if (!o)
			return NULL;
		if (o->kind == CV_MODULE)
			return call_method(c, o->mod, fn->u.attr.name, args,
					   na, kw, kwargs, nk, e->loc);
		if (o->kind == CV_OBJECT)
			return call_obj_method(c, o, fn->u.attr.name, args,
					       na, kw, kwargs, nk, e->loc);
		if (o->kind == CV_VALUE)
			return call_value_method(c, o, fn->u.attr.name, args,
						 na, kwnames, kwargs, nk,
						 e->loc);
		return sc_error(c, e->loc, EXIT_UNSUPPORTED, "unsupported "
				"construct: method call '.%s' on a value",
				fn->u.attr.name), NULL;
	}
	if (fn->kind == TS_EXPR_NAME) {
		struct cval *f = env_get(c->fr->env, fn->u.name);
		const char *op;
		if (f && f->kind == CV_FUNC)
			return call_function(c, f->qual, args, na, kw, kwargs,
					     nk, e->loc);
		if (f && f->kind == CV_MODULE)
			return call_method(c, f->mod, "forward", args, na, kw,
					   kwargs, nk, e->loc);
		if (!f && (op = builtin_op(fn->u.name)))
			return sc_call_op(c, op, args, na, kwnames, kwargs, nk,
					  e->loc);
	}
	return sc_error(c, e->loc, EXIT_UNSUPPORTED, "unsupported construct: "
			"call of this callee"), NULL;
}

/* --- operators ---------------------------------------------------------- */

static enum aten_op binop_kind(enum ts_op op)
{
	switch (op) {
	case TS_OP_ADD: return OP_aten_add;
	case TS_OP_SUB: return OP_aten_sub;
	case TS_OP_MUL: return OP_aten_mul;
	case TS_OP_DIV: return OP_aten_div;
	case TS_OP_FLOORDIV: return OP_aten_floordiv;
	case TS_OP_MOD: return OP_aten_remainder;
	case TS_OP_POW: return OP_aten_pow;
	case TS_OP_MATMUL: return OP_aten_matmul;
	case TS_OP_LSHIFT: return OP_aten___lshift__;
	case TS_OP_RSHIFT: return OP_aten___rshift__;
	case TS_OP_BITAND: return OP_aten___and__;
	case TS_OP_BITOR: return OP_aten___or__;
	case TS_OP_BITXOR: return OP_aten___xor__;
	case TS_OP_EQ: return OP_aten_eq;
	case TS_OP_NE: return OP_aten_ne;
	case TS_OP_LT: return OP_aten_lt;
	case TS_OP_LE: return OP_aten_le;
	case TS_OP_GT: return OP_aten_gt;
	case TS_OP_GE: return OP_aten_ge;
	case TS_OP_IN: return OP_aten___contains__;
	default: return OP_NONE;
	}
}

static int const_bool_of(const struct cval *cv, int *b)
{
	int64_t i;

	if (cv->kind == CV_VALUE && script_const_int(cv->v, &i)) {
		*b = i != 0;
		return 1;
	}
	if (cv->kind == CV_VALUE && script_const_none(cv->v)) {
		*b = 0;
		return 1;
	}
	return 0;
}

static struct cval *sc_binary(struct sc *c, const struct ts_expr *e)
{
	enum ts_op op = e->u.binary.op;
	struct cval *a, *b, *args[2];
	const char *k;
	int bv;

	if (op == TS_OP_AND || op == TS_OP_OR) {
		a = sc_expr(c, e->u.binary.lhs);
		if (!a)
			return NULL;
		if (const_bool_of(a, &bv)) {
			if ((op == TS_OP_AND && !bv) || (op == TS_OP_OR && bv))
				return cv_value(c, sc_const_bool(c, bv, e->loc));
			b = sc_expr(c, e->u.binary.rhs);
			return b;
		}
		return sc_error(c, e->loc, EXIT_UNSUPPORTED, "unsupported "
				"construct: '%s' on a non-constant",
				ts_op_str(op)), NULL;
	}
	a = sc_expr(c, e->u.binary.lhs);
	b = a ? sc_expr(c, e->u.binary.rhs) : NULL;
	if (!b)
		return NULL;
	if (op == TS_OP_IS || op == TS_OP_IS_NOT) {
		int r = static_is(a, b);
		if (r >= 0)
			return cv_value(c, sc_const_bool(c, op == TS_OP_IS ?
							 r : !r, e->loc));
		args[0] = a;
		args[1] = b;
		return sc_call_op(c, aten_op_name(op == TS_OP_IS ?
						  OP_aten___is__ :
						  OP_aten___isnot__),
				  args, 2, NULL, NULL, 0, e->loc);
	}
	if (op == TS_OP_NOT_IN) {
		struct cval *r;
		args[0] = b;
		args[1] = a;
		r = sc_call_op(c, aten_op_name(OP_aten___contains__), args,
			       2, NULL, NULL, 0, e->loc);
		if (!r)
			return NULL;
		return sc_call_op(c, aten_op_name(OP_aten___not__), &r, 1,
				  NULL, NULL, 0, e->loc);
	}
	k = aten_op_name(binop_kind(op));
	if (!*k)
		return sc_error(c, e->loc, EXIT_UNSUPPORTED, "unsupported "
				"construct: operator '%s'", ts_op_str(op)), NULL;
	if (op == TS_OP_IN) {
		args[0] = b;
		args[1] = a;
	} else {
		args[0] = a;
		args[1] = b;
	}
	return sc_call_op(c, k, args, 2, NULL, NULL, 0, e->loc);
}

static struct cval *sc_subscript(struct sc *c, const struct ts_expr *e)
{
	struct cval *o = sc_expr(c, e->u.sub.obj), *args[4];
	const struct ts_expr *ix = e->u.sub.index;
	int64_t i;

	if (!o)
		return NULL;
	if (ix->kind == TS_EXPR_SLICE) {
		int k;
		const struct ts_expr *parts[3] = { ix->u.slice.lo,
			ix->u.slice.hi, ix->u.slice.step };
		args[0] = o;
		for (k = 0; k < 3; k++) {
			if (parts[k])
				args[k + 1] = sc_expr(c, parts[k]);
			else
				args[k + 1] = cv_value(c, k == 2 ?
					sc_const_int(c, 1, e->loc) :
					sc_const_none(c, e->loc));
			if (!args[k + 1])
				return NULL;
		}
		return sc_call_op(c, aten_op_name(OP_aten_slice), args, 4,
				  NULL, NULL, 0,
				  e->loc);
	}
	args[1] = sc_expr(c, ix);
	if (!args[1])
		return NULL;
	if (o->kind == CV_TUPLE) {
		if (args[1]->kind != CV_VALUE ||
		    !script_const_int(args[1]->v, &i))
			return sc_error(c, e->loc, EXIT_UNSUPPORTED,
					"unsupported construct: tuple index "
					"not constant"), NULL;
		if (i < 0)
			i += o->n;
		if (i < 0 || i >= o->n)
			return sc_error(c, e->loc, EXIT_UNSUPPORTED,
					"tuple index out of range"), NULL;
		return o->items[i];
	}
	if (o->kind == CV_VALUE && o->v->type->kind == IR_TYPE_TUPLE &&
	    args[1]->kind == CV_VALUE && script_const_int(args[1]->v, &i)) {
		struct ir_value *in[2] = { o->v, args[1]->v };
		uint32_t n = o->v->type->nelems;
		if (i < 0)
			i += n;
		if (i < 0 || i >= (int64_t)n)
			return sc_error(c, e->loc, EXIT_UNSUPPORTED,
					"tuple index out of range"), NULL;
		return cv_value(c, emit1(c, OP_prim_TupleIndex, in, 2,
					 ir_type_copy(c->g,
						      o->v->type->elems[i]),
					 e->loc));
	}
	args[0] = o;
	return sc_call_op(c, aten_op_name(OP_aten___getitem__), args, 2,
			  NULL, NULL, 0,
			  e->loc);
}

static int type_matches(struct sc *c, const struct ir_type *t,
			const struct ts_type *tt)
{
	struct ir_type *w = sc_type_from_ts(c, tt);

	/* isinstance(x, (list, tuple)): any list, tuple or dict */
	if (!strcmp(tt->name, "list") || !strcmp(tt->name, "tuple") ||
	    !strcmp(tt->name, "dict")) {
		enum ir_type_kind k = tt->name[0] == 'l' ? IR_TYPE_LIST :
			tt->name[0] == 't' ? IR_TYPE_TUPLE : IR_TYPE_DICT;
		if (t->kind == IR_TYPE_UNKNOWN || t->kind == IR_TYPE_OPTIONAL)
			return -1;
		return t->kind == k;
	}
	if (t->kind == IR_TYPE_UNKNOWN || w->kind == IR_TYPE_UNKNOWN ||
	    t->kind == IR_TYPE_OPTIONAL)
		return -1;
	if (t->kind != w->kind)
		return 0;
	if (t->kind == IR_TYPE_LIST && t->elems[0]->kind != w->elems[0]->kind)
		return t->elems[0]->kind == IR_TYPE_UNKNOWN ? -1 : 0;
	if (t->kind == IR_TYPE_CLASS)
		return !strcmp(t->name, w->name);
	return 1;
}

static struct cval *expr1(struct sc *c, const struct ts_expr *e);

struct cval *sc_expr(struct sc *c, const struct ts_expr *e)
{
	struct cval *r;

	if (c->err)
		return NULL;
	if (c->rdepth >= SCRIPT_MAX_RECURSION)
		return sc_error(c, e->loc, EXIT_UNSUPPORTED, "unsupported "
				"construct: code nested deeper than %d levels "
				"(inlined calls included)",
				SCRIPT_MAX_RECURSION), NULL;
	c->rdepth++;
	r = expr1(c, e);
	c->rdepth--;
	return r;
}

static struct cval *expr1(struct sc *c, const struct ts_expr *e)
{
	struct cval *cv;
	int i;

	switch (e->kind) {
	case TS_EXPR_NAME:
		cv = env_get(c->fr->env, e->u.name);
		if (cv)
			return cv;
		if (!strcmp(e->u.name, "self") && c->fr->self) {
			cv = ir_alloc(c->g, sizeof(*cv));
			cv->kind = CV_MODULE;
			cv->mod = c->fr->self;
			return cv;
		}
		return sc_error(c, e->loc, EXIT_UNSUPPORTED, "unsupported "
				"construct: undefined name '%s'", e->u.name),
			NULL;
	case TS_EXPR_INT:
		return cv_value(c, sc_const_int(c, e->u.i, e->loc));
	case TS_EXPR_FLOAT:
		return cv_value(c, sc_const_float(c, e->u.f, e->loc));
	case TS_EXPR_BOOL:
		return cv_value(c, sc_const_bool(c, (int)e->u.i, e->loc));
	case TS_EXPR_STR:
		return cv_value(c, sc_const_str(c, e->u.str.s, e->u.str.len,
						e->loc));
	case TS_EXPR_NONE:
		return cv_value(c, sc_const_none(c, e->loc));
	case TS_EXPR_ATTR: {
		const char *d = e->u.attr.dotted;
		struct cval *o;
		if (d && !strncmp(d, "CONSTANTS.c", 11)) {
			const struct pickle_value *t =
				torch_archive_constants(c->ar);
			char *end;
			long k = strtol(d + 11, &end, 10);
			if (*end || k < 0 || !t || t->kind != PICKLE_TUPLE ||
			    (uint32_t)k >= t->u.seq.n)
				return sc_error(c, e->loc, EXIT_BAD_INPUT,
						"'%s' is not in constants.pkl",
						d), NULL;
			return sc_pickle_to_cval(c, t->u.seq.items[k], d,
						 e->loc, 0);
		}
		if (d && !strncmp(d, "__torch__.", 10)) {
			cv = ir_alloc(c->g, sizeof(*cv));
			cv->kind = CV_FUNC;
			cv->qual = d;
			return cv;
		}
		o = sc_expr(c, e->u.attr.obj);
		if (!o)
			return NULL;
		if (o->kind == CV_MODULE)
			return sc_module_attr(c, o->mod, e->u.attr.name,
					      e->loc);
		if ((o->kind == CV_TUPLE && o->names) ||
		    o->kind == CV_OBJECT)
			for (i = 0; i < o->n; i++)
				if (!strcmp(o->names[i], e->u.attr.name))
					return o->items[i];
		if (o->kind == CV_OBJECT)
			return sc_error(c, e->loc, EXIT_UNSUPPORTED,
					"unsupported construct: field '%s' of "
					"an object of '%s' read before it is "
					"set", e->u.attr.name, o->qual), NULL;
		if (o->kind == CV_VALUE && o->v->type->kind == IR_TYPE_CLASS)
			return sc_obj_getattr(c, o->v, e->u.attr.name, e->loc);
		return sc_error(c, e->loc, EXIT_UNSUPPORTED, "unsupported "
				"construct: attribute '%s' of a value",
				e->u.attr.name), NULL;
	}
	case TS_EXPR_CALL:
		return sc_call(c, e);
	case TS_EXPR_SUBSCRIPT:
		return sc_subscript(c, e);
	case TS_EXPR_TUPLE: {
		struct cval **items = ir_alloc(c->g, sizeof(*items) *
					       (e->u.list.n + 1));
		for (i = 0; i < e->u.list.n; i++)
			if (!(items[i] = sc_expr(c, e->u.list.items[i])))
				return NULL;
		return cv_tuple(c, items, e->u.list.n);
	}
	case TS_EXPR_LIST: {
		struct ir_value **vs = ir_alloc(c->g, sizeof(*vs) *
						(e->u.list.n + 1));
		for (i = 0; i < e->u.list.n; i++)
			if (!(vs[i] = sc_expr_value(c, e->u.list.items[i])))
				return NULL;
		return cv_value(c, sc_list_of(c, vs, e->u.list.n, NULL, e->loc));
	}
	case TS_EXPR_UNARY: {
		struct cval *a = sc_expr(c, e->u.unary.operand);
		const char *k;
		int b;
		if (!a)
			return NULL;
		switch (e->u.unary.op) {
		case TS_OP_NOT:
			if (const_bool_of(a, &b))
				return cv_value(c, sc_const_bool(c, !b, e->loc));
			k = aten_op_name(OP_aten___not__);
			break;
		case TS_OP_NEG: k = aten_op_name(OP_aten_neg); break;
		case TS_OP_INVERT: k = aten_op_name(OP_aten_bitwise_not); break;
		default: return a;
		}
		return sc_call_op(c, k, &a, 1, NULL, NULL, 0, e->loc);
	}
	case TS_EXPR_BINARY:
		return sc_binary(c, e);
	case TS_EXPR_IFEXP: {
		struct cval *cond = sc_expr(c, e->u.ifexp.cond);
		int b;
		if (!cond)
			return NULL;
		if (const_bool_of(cond, &b))
			return sc_expr(c, b ? e->u.ifexp.then :
				       e->u.ifexp.orelse);
		return sc_error(c, e->loc, EXIT_UNSUPPORTED, "unsupported "
				"construct: conditional expression on a "
				"non-constant"), NULL;
	}
	case TS_EXPR_ANNOTATE: {
		if (e->u.cast.value->kind == TS_EXPR_LIST &&
		    e->u.cast.value->u.list.n == 0) {
			struct ir_type *t = sc_type_from_ts(c, e->u.cast.type);
			struct ir_node *n = sc_node(c, OP_prim_ListConstruct, 0,
						    1, e->loc);
			n->outputs[0]->type = t;
			return cv_value(c, n->outputs[0]);
		}
		if (e->u.cast.value->kind == TS_EXPR_DICT &&
		    e->u.cast.value->u.dict.n == 0) {
			struct ir_type *t = sc_type_from_ts(c, e->u.cast.type);
			struct cval *d = sc_dict_new(c);
			if (t->kind == IR_TYPE_DICT) {
				d->ktype = t->elems[0];
				d->vtype = t->elems[1];
			}
			return d;
		}
		{
			/* annotate(int, t) of a tensor: torch's implicit
			 * conversion (the script_if_tracing code of traced
			 * detection models) */
			struct cval *a = sc_expr(c, e->u.cast.value);
			const char *tn = e->u.cast.type ?
				e->u.cast.type->name : NULL;
			if (!a || a->kind != CV_VALUE || !tn ||
			    a->v->type->kind != IR_TYPE_TENSOR)
				return a;
			if (!strcmp(tn, "int"))
				return cv_value(c, emit1(c, OP_aten_IntImplicit,
					&a->v, 1, ir_type_new(c->g,
							      IR_TYPE_INT),
					e->loc));
			if (!strcmp(tn, "float"))
				return cv_value(c, emit1(c,
					OP_aten_FloatImplicit, &a->v, 1,
					ir_type_new(c->g, IR_TYPE_FLOAT),
					e->loc));
			return a;
		}
	}
	case TS_EXPR_UNCHECKED_CAST: {
		struct cval *a = sc_expr(c, e->u.cast.value);
		struct ir_type *t;
		if (!a || a->kind != CV_VALUE)
			return a;
		t = sc_type_from_ts(c, e->u.cast.type);
		if (a->v->type->kind == IR_TYPE_OPTIONAL ||
		    a->v->type->kind == IR_TYPE_UNKNOWN)
			return cv_value(c, emit1(c, OP_prim_unchecked_cast,
						 &a->v, 1, t, e->loc));
		return a;
	}
	case TS_EXPR_UNINITIALIZED: {
		struct ir_node *n = sc_node(c, OP_prim_Uninitialized, 0, 1,
					    e->loc);
		n->outputs[0]->type = sc_type_from_ts(c, e->u.cast.type);
		return cv_value(c, n->outputs[0]);
	}
	case TS_EXPR_ISINSTANCE: {
		struct cval *a = sc_expr(c, e->u.isinst.value);
		int r = 0, k;
		if (!a)
			return NULL;
		if (a->kind == CV_TUPLE) {
			for (i = 0; i < e->u.isinst.ntypes; i++)
				r |= !strcmp(e->u.isinst.types[i]->name,
					     "Tuple");
			return cv_value(c, sc_const_bool(c, r, e->loc));
		}
		if (a->kind == CV_OBJECT) {
			for (i = 0; i < e->u.isinst.ntypes; i++)
				r |= !strcmp(e->u.isinst.types[i]->name,
					     a->qual);
			return cv_value(c, sc_const_bool(c, r, e->loc));
		}
		if (a->kind != CV_VALUE)
			return cv_value(c, sc_const_bool(c, 0, e->loc));
		for (i = 0; i < e->u.isinst.ntypes; i++) {
			k = type_matches(c, a->v->type, e->u.isinst.types[i]);
			if (k < 0)
				return sc_error(c, e->loc, EXIT_UNSUPPORTED,
						"unsupported construct: "
						"isinstance on a value of "
						"unknown type (made by %s)",
						a->v->producer ?
						a->v->producer->kind :
						"a parameter"), NULL;
			r |= k;
		}
		return cv_value(c, sc_const_bool(c, r, e->loc));
	}
	case TS_EXPR_DICT: {
		struct cval *d = sc_dict_new(c);
		int j;
		for (j = 0; j < e->u.dict.n; j++) {
			struct cval *k = sc_expr(c, e->u.dict.keys[j]);
			struct cval *v = k ? sc_expr(c, e->u.dict.values[j])
					   : NULL;
			if (!v || sc_dict_set(c, d, k, v, e->loc))
				return NULL;
		}
		return d;
	}
	case TS_EXPR_SLICE:
	case TS_EXPR_ELLIPSIS:
	case TS_EXPR_IMAG:
	default:
		return sc_error(c, e->loc, EXIT_UNSUPPORTED, "unsupported "
				"construct: %s", e->kind == TS_EXPR_SLICE ?
				"slice outside a subscript" :
				e->kind == TS_EXPR_ELLIPSIS ? "'...'" :
				e->kind == TS_EXPR_IMAG ? "complex literal" :
				"expression"), NULL;
	}
}

struct ir_value *sc_expr_value(struct sc *c, const struct ts_expr *e)
{
	struct cval *cv = sc_expr(c, e);

	return cv ? sc_to_value(c, cv, e->loc) : NULL;
}

/*
 * compile.c - the script compiler's driver (see compile.h): graph inputs,
 * the module tree (attributes, weights, scopes), constants, types from
 * annotations and schemas, environments, and --input specs.
 *
 * Invariants: every node is emitted into c->blk with the current frame's
 * scope; weights are created once per pickled tensor (c->weights); source
 * files are parsed once (c->files).  Costs: linear in the inlined code.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile_int.h"
#include "ts_parser.h"

int sc_error(struct sc *c, struct ts_loc loc, int code, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!c->err)
		c->code = code;
	c->err++;
	if (c->err <= 20)
		diag_error(c->d, "%s:%d:%d: %s",
			   c->fr && c->fr->file ? c->fr->file : "code",
			   loc.line, loc.col, msg);
	return -1;
}

struct ir_node *sc_node(struct sc *c, enum aten_op op, uint32_t nin,
			uint32_t nout, struct ts_loc loc)
{
	return sc_node_named(c, aten_op_name(op), nin, nout, loc);
}

struct ir_node *sc_node_named(struct sc *c, const char *kind, uint32_t nin,
			      uint32_t nout, struct ts_loc loc)
{
	struct ir_node *n = ir_node_new(c->g, c->blk, kind, nin, nout);
	uint32_t i;

	for (i = 0; i < nout; i++)
		ir_node_set_output(n, i, ir_value_new(c->g, NULL, NULL));
	if (c->fr) {
		n->scope = c->fr->scope && *c->fr->scope ? c->fr->scope : NULL;
		if (c->fr->file && loc.line > 0)
			n->source = ir_strfmt(c->g, "%s:%d:%d", c->fr->file,
					      loc.line, loc.col);
	}
	return n;
}

static struct ir_value *const_node(struct sc *c, enum ir_type_kind tk,
				   struct ts_loc loc, struct ir_attr **a,
				   enum ir_attr_kind ak)
{
	struct ir_node *n = sc_node(c, OP_prim_Constant, 0, 1, loc);

	n->outputs[0]->type = ir_type_new(c->g, tk);
	if (a)
		*a = ir_node_add_attr(c->g, n, "value", ak);
	return n->outputs[0];
}

struct ir_value *sc_const_int(struct sc *c, int64_t v, struct ts_loc loc)
{
	struct ir_attr *a;
	struct ir_value *r = const_node(c, IR_TYPE_INT, loc, &a, IR_ATTR_INT);

	a->u.i = v;
	return r;
}

struct ir_value *sc_const_bool(struct sc *c, int b, struct ts_loc loc)
{
	struct ir_attr *a;
	struct ir_value *r = const_node(c, IR_TYPE_BOOL, loc, &a, IR_ATTR_INT);

	a->u.i = b != 0;
	return r;
}

struct ir_value *sc_const_float(struct sc *c, double f, struct ts_loc loc)
{
	struct ir_attr *a;
	struct ir_value *r = const_node(c, IR_TYPE_FLOAT, loc, &a,
					IR_ATTR_FLOAT);

	a->u.f = f;
	return r;
}

struct ir_value *sc_const_str(struct sc *c, const char *s, size_t len,
			      struct ts_loc loc)
{
	struct ir_attr *a;
	struct ir_value *r = const_node(c, IR_TYPE_STR, loc, &a,
					IR_ATTR_STRING);

	a->u.s.data = ir_strndup(c->g, s, len);
	a->u.s.len = len;
	return r;
}

struct ir_value *sc_const_none(struct sc *c, struct ts_loc loc)
{
	return const_node(c, IR_TYPE_NONE, loc, NULL, IR_ATTR_INT);
}

static const struct ir_attr *const_attr(const struct ir_value *v)
{
	if (!v || !v->producer || v->producer->op != OP_prim_Constant)
		return NULL;
	return ir_node_find_attr(v->producer, "value");
}

int script_const_int(const struct ir_value *v, int64_t *out)
{
	const struct ir_attr *a = const_attr(v);

	if (!a || a->kind != IR_ATTR_INT || (v->type->kind != IR_TYPE_INT &&
					     v->type->kind != IR_TYPE_BOOL))
		return 0;
	*out = a->u.i;
	return 1;
}

int script_const_float(const struct ir_value *v, double *out)
{
	const struct ir_attr *a = const_attr(v);

	if (!a || a->kind != IR_ATTR_FLOAT || v->type->kind != IR_TYPE_FLOAT)
		return 0;
	*out = a->u.f;
	return 1;
}

int script_const_none(const struct ir_value *v)
{
	return v && v->type->kind == IR_TYPE_NONE;
}

struct cval *cv_value(struct sc *c, struct ir_value *v)
{
	struct cval *cv = ir_alloc(c->g, sizeof(*cv));

	cv->kind = CV_VALUE;
	cv->v = v;
	return cv;
}

/* A static dict as one value: prim::DictConstruct(k0, v0, k1, v1...) of
 * type Dict(K, V).  Made in the dict's own block (nodes of a block still
 * being compiled come after it), the dict becomes that value for every
 * holder of it, so that later changes are ops on it (aten::_set_item);
 * made in another block (the dict read inside a loop or an arm), a copy
 * for that block. */
static struct ir_value *dict_value(struct sc *c, struct cval *cv,
				   struct ts_loc loc)
{
	struct ir_value **ks, **vs;
	struct ir_type *t, *kt, *vt = NULL;
	struct ir_node *n;
	int i, home = !cv->blk || sc_live_block(c, cv->blk) == c->blk;

	ks = ir_alloc(c->g, sizeof(*ks) * (cv->n + 1));
	vs = ir_alloc(c->g, sizeof(*vs) * (cv->n + 1));
	for (i = 0; i < cv->n; i++) {
		const char *k = cv->names[i];
		if (k[0] == 'i') {
			ks[i] = sc_const_int(c, strtoll(k + 2, NULL, 10), loc);
		} else {
			ks[i] = sc_const_str(c, k + 2, strlen(k + 2), loc);
		}
		if (!(vs[i] = sc_to_value(c, cv->items[i], loc)))
			return NULL;
		if (!vt)
			vt = ir_type_copy(c->g, vs[i]->type);
		else if (!ir_type_equal(vt, vs[i]->type))
			vt = vt->kind == IR_TYPE_TENSOR &&
			     vs[i]->type->kind == IR_TYPE_TENSOR ?
			     ir_type_tensor(c->g, 0, -1, NULL) :
			     ir_type_new(c->g, IR_TYPE_UNKNOWN);
	}
	kt = ir_type_new(c->g, cv->n && cv->names[0][0] == 'i' ?
			 IR_TYPE_INT : IR_TYPE_STR);
	if (cv->vtype && (!vt || vt->kind == IR_TYPE_UNKNOWN))
		vt = cv->vtype;
	if (cv->ktype)
		kt = cv->ktype;
	if (!vt)
		vt = ir_type_tensor(c->g, 0, -1, NULL);
	t = ir_type_new(c->g, IR_TYPE_DICT);
	t->nelems = 2;
	t->elems = ir_alloc(c->g, sizeof(*t->elems) * 2);
	t->elems[0] = kt;
	t->elems[1] = vt;
	n = sc_node(c, OP_prim_DictConstruct, 2 * cv->n, 1, loc);
	for (i = 0; i < cv->n; i++) {
		n->inputs[2 * i] = ks[i];
		n->inputs[2 * i + 1] = vs[i];
	}
	n->outputs[0]->type = t;
	if (home) {
		cv->kind = CV_VALUE;
		cv->v = n->outputs[0];
	}
	return n->outputs[0];
}

/* An object known field by field as one value (it goes into a list, is
 * returned, or is carried by a loop): prim::CreateObject of its class type,
 * then prim::SetAttr[name=F](%obj, %v) per field, as torch keeps objects it
 * cannot scalarize.  In the object's own block the object becomes that
 * value for every holder (later fields go through prim::SetAttr and
 * prim::GetAttr); elsewhere a copy for that block. */
static struct ir_value *object_value(struct sc *c, struct cval *cv,
				     struct ts_loc loc)
{
	struct ir_value **vs = ir_alloc(c->g, sizeof(*vs) * (cv->n + 1));
	struct ir_node *n;
	struct ir_type *t;
	int i, home = !cv->blk || sc_live_block(c, cv->blk) == c->blk;

	for (i = 0; i < cv->n; i++)
		if (!(vs[i] = sc_to_value(c, cv->items[i], loc)))
			return NULL;
	t = ir_type_new(c->g, IR_TYPE_CLASS);
	t->name = cv->qual;
	n = sc_node(c, OP_prim_CreateObject, 0, 1, loc);
	n->outputs[0]->type = t;
	for (i = 0; i < cv->n; i++) {
		struct ir_node *s = sc_node(c, OP_prim_SetAttr, 2, 0, loc);
		struct ir_attr *a = ir_node_add_attr(c->g, s, "name",
						     IR_ATTR_STRING);
		a->u.s.data = ir_strdup(c->g, cv->names[i]);
		a->u.s.len = strlen(cv->names[i]);
		s->inputs[0] = n->outputs[0];
		s->inputs[1] = vs[i];
	}
	if (home) {
		cv->kind = CV_VALUE;
		cv->v = n->outputs[0];
	}
	return n->outputs[0];
}

struct ir_value *sc_to_value(struct sc *c, struct cval *cv, struct ts_loc loc)
{
	struct ir_node *n;
	int i;

	if (!cv)
		return NULL;
	switch (cv->kind) {
	case CV_VALUE:
		return cv->v;
	case CV_TUPLE: {
		struct ir_value **vs = ir_alloc(c->g, sizeof(*vs) *
						(cv->n ? cv->n : 1));
		struct ir_type *t = ir_type_new(c->g, IR_TYPE_TUPLE);

		for (i = 0; i < cv->n; i++)
			if (!(vs[i] = sc_to_value(c, cv->items[i], loc)))
				return NULL;
		n = sc_node(c, OP_prim_TupleConstruct, cv->n, 1, loc);
		t->nelems = cv->n;
		t->elems = ir_alloc(c->g, sizeof(*t->elems) * (cv->n ? cv->n : 1));
		for (i = 0; i < cv->n; i++) {
			n->inputs[i] = vs[i];
			t->elems[i] = vs[i]->type;
		}
		n->outputs[0]->type = t;
		return n->outputs[0];
	}
	case CV_MODULE:
		sc_error(c, loc, EXIT_UNSUPPORTED,
			 "unsupported construct: module '%s' used as a value",
			 cv->mod->scope);
		return NULL;
	case CV_FUNC:
		sc_error(c, loc, EXIT_UNSUPPORTED,
			 "unsupported construct: function '%s' used as a value",
			 cv->qual);
		return NULL;
	case CV_DICT:
		return dict_value(c, cv, loc);
	case CV_OBJECT:
		return object_value(c, cv, loc);
	}
	return NULL;
}

/* --- environments ------------------------------------------------------ */

struct env *env_new(struct sc *c)
{
	return ir_alloc(c->g, sizeof(struct env));
}

#define ENV_LINEAR 16 /* envs this small are scanned, not indexed */

static unsigned env_hash(const char *s)
{
	unsigned h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* The slot of name in e's index: the one holding it, or the empty one
 * where it goes. */
static int *env_slot(const struct env *e, const char *name)
{
	unsigned j = env_hash(name) & (unsigned)(e->hcap - 1);

	while (e->hix[j] && strcmp(e->b[e->hix[j] - 1].name, name))
		j = (j + 1) & (unsigned)(e->hcap - 1);
	return &e->hix[j];
}

/* (Re)builds e's index with room for twice its capacity. */
static void env_reindex(struct sc *c, struct env *e)
{
	int i;

	e->hcap = 64;
	while (e->hcap < 2 * e->cap)
		e->hcap *= 2;
	e->hix = ir_alloc(c->g, sizeof(*e->hix) * (size_t)e->hcap);
	for (i = 0; i < e->n; i++)
		*env_slot(e, e->b[i].name) = i + 1;
}

struct env *env_copy(struct sc *c, const struct env *e)
{
	struct env *r = env_new(c);

	r->cap = e->n + 8;
	r->b = ir_alloc(c->g, sizeof(*r->b) * r->cap);
	memcpy(r->b, e->b, sizeof(*r->b) * e->n);
	r->n = e->n;
	if (r->n >= ENV_LINEAR)
		env_reindex(c, r);
	return r;
}

struct cval *env_get(const struct env *e, const char *name)
{
	int i;

	if (e->hcap) {
		i = *env_slot(e, name);
		return i ? e->b[i - 1].cv : NULL;
	}
	for (i = 0; i < e->n; i++)
		if (!strcmp(e->b[i].name, name))
			return e->b[i].cv;
	return NULL;
}

void env_set(struct sc *c, struct env *e, const char *name, struct cval *cv)
{
	int i, *slot = NULL;

	if (e->hcap) {
		slot = env_slot(e, name);
		if (*slot) {
			e->b[*slot - 1].cv = cv;
			return;
		}
	} else {
		for (i = 0; i < e->n; i++)
			if (!strcmp(e->b[i].name, name)) {
				e->b[i].cv = cv;
				return;
			}
	}
	if (e->n == e->cap) {
		int cap = e->cap ? e->cap * 2 : 16;
		struct binding *nb = ir_alloc(c->g, sizeof(*nb) * cap);

		if (e->n)
			memcpy(nb, e->b, sizeof(*nb) * e->n);
		e->b = nb;
		e->cap = cap;
	}
	e->b[e->n].name = name;
	e->b[e->n].cv = cv;
	e->n++;
	if (e->hcap && 2 * e->n <= e->hcap)
		*slot = e->n;
	else if (e->n >= ENV_LINEAR)
		env_reindex(c, e); /* also indexes the new binding */
}

void sc_block_moved(struct sc *c, struct ir_block *from, struct ir_block *to)
{
	struct blk_remap *r = ir_alloc(c->g, sizeof(*r));

	r->from = from;
	r->to = to;
	r->next = c->remaps;
	c->remaps = r;
}

struct ir_block *sc_live_block(struct sc *c, struct ir_block *b)
{
	struct blk_remap *r;
	int guard = 0;

again:
	for (r = c->remaps; r && guard < 100000; r = r->next, guard++)
		if (r->from == b && r->to != b) {
			b = r->to;
			goto again;
		}
	return b;
}

/* --- source files and classes ------------------------------------------ */

struct ts_module *sc_load_module(struct sc *c, const char *qualname,
				 const char **file, struct ts_loc loc)
{
	const char *text, *f;
	size_t len;
	struct srcfile *s;
	struct ts_module *m;

	if (torch_archive_class_source(c->ar, qualname, &text, &len, &f,
				       c->d)) {
		if (!c->err)
			c->code = EXIT_BAD_INPUT;
		c->err++;
		return NULL;
	}
	for (s = c->files; s; s = s->next)
		if (!strcmp(s->file, f)) {
			*file = s->file;
			return s->mod;
		}
	m = ts_parse(&c->parse, c->d, f, text, len);
	if (!m) {
		if (!c->err)
			c->code = EXIT_BAD_INPUT;
		c->err++;
		return NULL;
	}
	s = ir_alloc(c->g, sizeof(*s));
	s->file = ir_strdup(c->g, f);
	s->mod = m;
	s->next = c->files;
	c->files = s;
	*file = s->file;
	(void)loc;
	return m;
}

const char *sc_short_class(struct sc *c, const char *qual)
{
	const char *dot = strrchr(qual, '.');

	(void)c;
	return dot ? dot + 1 : qual;
}

const struct ts_class *sc_module_class(struct sc *c, struct modref *m,
				       struct ts_loc loc)
{
	const char *qual, *shortname, *file;
	struct ts_module *mod;
	int i;

	if (m->cls)
		return m->cls;
	qual = m->obj->u.object->class_name;
	mod = sc_load_module(c, qual, &file, loc);
	if (!mod)
		return NULL;
	shortname = sc_short_class(c, qual);
	for (i = 0; i < mod->nclasses; i++)
		if (!strcmp(mod->classes[i]->name, shortname)) {
			m->cls = mod->classes[i];
			m->file = file;
			return m->cls;
		}
	sc_error(c, loc, EXIT_BAD_INPUT, "class '%s' is not defined in '%s'",
		 qual, file);
	return NULL;
}

/* --- weights and pickled attributes ----------------------------------- */

/* The same bytes seen the same way: one weight (nn.LSTM's _flat_weights
 * list holds its parameters again). */
static int same_tensor(const struct pickle_tensor *a,
		       const struct pickle_tensor *b)
{
	if (a == b)
		return 1;
	return a->storage == b->storage && a->offset == b->offset &&
	       a->rank == b->rank && a->dtype == b->dtype &&
	       !memcmp(a->sizes, b->sizes, sizeof(int64_t) * a->rank) &&
	       !memcmp(a->strides, b->strides, sizeof(int64_t) * a->rank);
}

static struct ir_value *sc_weight(struct sc *c, const struct pickle_tensor *t,
				  const char *name, struct ts_loc loc)
{
	struct wmap *w;
	struct ir_tensor *it;
	uint64_t off, len;
	const char *nm = name;

	for (w = c->weights; w; w = w->next)
		if (same_tensor(w->t, t))
			return w->v;
	if (t->dtype == IR_DTYPE_UNDEFINED || t->qscheme != PICKLE_QSCHEME_NONE) {
		sc_error(c, loc, EXIT_UNSUPPORTED,
			 "unsupported construct: tensor '%s' of a quantized or "
			 "unknown dtype", name);
		return NULL;
	}
	it = ir_tensor_new(c->g, t->dtype, t->rank, t->sizes);
	it->data_kind = IR_DATA_REF;
	torch_archive_tensor_span(c->ar, t, &off, &len);
	it->ref.file = c->ref_file;
	it->ref.offset = off;
	it->ref.length = len;
	if (!torch_tensor_is_contiguous(t) && t->rank > 0) {
		it->ref.strides = ir_alloc(c->g, sizeof(int64_t) * t->rank);
		memcpy(it->ref.strides, t->strides, sizeof(int64_t) * t->rank);
	}
	if (!*nm || ir_find_value(c->g, nm))
		nm = ir_fresh_name(c->g, *nm ? nm : "w");
	w = ir_alloc(c->g, sizeof(*w));
	w->t = t;
	w->v = ir_add_weight(c->g, NULL, nm, it);
	w->next = c->weights;
	c->weights = w;
	return w->v;
}

static struct ir_type *elem_type_of(struct sc *c, struct cval **items, int n,
				    const char *tag)
{
	if (tag) {
		if (strstr(tag, "List[int]"))
			return ir_type_new(c->g, IR_TYPE_INT);
		if (strstr(tag, "List[float]"))
			return ir_type_new(c->g, IR_TYPE_FLOAT);
		if (strstr(tag, "List[bool]"))
			return ir_type_new(c->g, IR_TYPE_BOOL);
		if (strstr(tag, "List[str]"))
			return ir_type_new(c->g, IR_TYPE_STR);
		if (strstr(tag, "List[Tensor]"))
			return ir_type_tensor(c->g, 0, -1, NULL);
	}
	if (n > 0 && items[0]->kind == CV_VALUE)
		return ir_type_copy(c->g, items[0]->v->type);
	return ir_type_new(c->g, IR_TYPE_UNKNOWN);
}

struct cval *sc_pickle_to_cval(struct sc *c, const struct pickle_value *pv,
			       const char *wname, struct ts_loc loc, int depth)
{
	struct cval *cv;
	uint32_t i;

	if (depth > 64) {
		sc_error(c, loc, EXIT_UNSUPPORTED,
			 "unsupported construct: attribute nested too deep");
		return NULL;
	}
	switch (pv->kind) {
	case PICKLE_NONE:
		return cv_value(c, sc_const_none(c, loc));
	case PICKLE_BOOL:
		return cv_value(c, sc_const_bool(c, pv->u.b, loc));
	case PICKLE_INT:
		return cv_value(c, sc_const_int(c, pv->u.i, loc));
	case PICKLE_FLOAT:
		return cv_value(c, sc_const_float(c, pv->u.f, loc));
	case PICKLE_STR:
		return cv_value(c, sc_const_str(c, pv->u.s.data, pv->u.s.len,
						loc));
	case PICKLE_DEVICE: {
		struct ir_value *v = sc_const_str(c, pv->u.s.data,
						  pv->u.s.len, loc);
		v->type = ir_type_new(c->g, IR_TYPE_DEVICE);
		return cv_value(c, v);
	}
	case PICKLE_TENSOR: {
		struct ir_value *v = sc_weight(c, pv->u.tensor, wname, loc);
		return v ? cv_value(c, v) : NULL;
	}
	case PICKLE_TUPLE:
	case PICKLE_LIST: {
		struct cval **items = ir_alloc(c->g, sizeof(*items) *
					       (pv->u.seq.n ? pv->u.seq.n : 1));
		for (i = 0; i < pv->u.seq.n; i++) {
			const char *nm = ir_strfmt(c->g, "%s.%u", wname, i);
			items[i] = sc_pickle_to_cval(c, pv->u.seq.items[i], nm,
						     loc, depth + 1);
			if (!items[i])
				return NULL;
		}
		if (pv->kind == PICKLE_TUPLE) {
			cv = ir_alloc(c->g, sizeof(*cv));
			cv->kind = CV_TUPLE;
			cv->items = items;
			cv->n = (int)pv->u.seq.n;
			return cv;
		} else {
			struct ir_node *n = sc_node(c, OP_prim_ListConstruct,
						    pv->u.seq.n, 1, loc);
			struct ir_type *t = ir_type_new(c->g, IR_TYPE_LIST);

			t->nelems = 1;
			t->elems = ir_alloc(c->g, sizeof(*t->elems));
			t->elems[0] = elem_type_of(c, items, (int)pv->u.seq.n,
						   pv->type_tag);
			for (i = 0; i < pv->u.seq.n; i++)
				if (!(n->inputs[i] = sc_to_value(c, items[i],
								 loc)))
					return NULL;
			n->outputs[0]->type = t;
			return cv_value(c, n->outputs[0]);
		}
	}
	case PICKLE_DICT: {
		/* Dict[str, T] / Dict[int, T] attributes: static */
		struct cval *d = sc_dict_new(c);
		for (i = 0; i < pv->u.dict.n; i++) {
			const char *nm = ir_strfmt(c->g, "%s.%u", wname, i);
			struct cval *k = sc_pickle_to_cval(c, pv->u.dict.keys[i],
							   nm, loc, depth + 1);
			struct cval *v = k ? sc_pickle_to_cval(c,
					pv->u.dict.vals[i], nm, loc,
					depth + 1) : NULL;
			if (!v || sc_dict_set(c, d, k, v, loc))
				return NULL;
		}
		return d;
	}
	default:
		sc_error(c, loc, EXIT_UNSUPPORTED,
			 "unsupported construct: attribute '%s' of kind %s",
			 wname, pickle_kind_name(pv->kind));
		return NULL;
	}
}

/* The value of a class-level constant `name : Final[T] = v`, or NULL. */
static const struct ts_field *class_const(const struct ts_class *cls,
					  const char *name)
{
	int i;

	for (i = 0; cls && i < cls->nfields; i++)
		if (cls->fields[i]->value && !strcmp(cls->fields[i]->name, name))
			return cls->fields[i];
	return NULL;
}

struct cval *sc_module_attr(struct sc *c, struct modref *m, const char *name,
			    struct ts_loc loc)
{
	const struct pickle_value *pv;
	const struct ts_class *cls;
	const struct ts_field *f;

	if (!strcmp(name, "training"))
		return cv_value(c, sc_const_bool(c, 0, loc));
	{
		struct attr_override *o;
		for (o = c->overrides; o; o = o->next)
			if (o->obj == m->obj && !strcmp(o->name, name))
				return o->cv;
	}
	pv = pickle_attr(m->obj, name);
	if (pv && pv->kind == PICKLE_OBJECT) {
		struct modref *sub = ir_alloc(c->g, sizeof(*sub));
		struct cval *cv = ir_alloc(c->g, sizeof(*cv));

		if (!pv->u.object->class_name) {
			sc_error(c, loc, EXIT_BAD_INPUT, "attribute '%s' has "
				 "no class", name);
			return NULL;
		}
		sub->obj = pv;
		sub->scope = ir_strfmt(c->g, "%s/%s[%s]", m->scope,
				       sc_short_class(c, pv->u.object->class_name),
				       name);
		sub->path = ir_strfmt(c->g, "%s%s.", m->path, name);
		cv->kind = CV_MODULE;
		cv->mod = sub;
		return cv;
	}
	if (pv && pv->kind == PICKLE_LIST && m->obj->u.object->state &&
	    m->obj->u.object->state->kind == PICKLE_DICT) {
		/* tensors of a list that are also attributes of the module
		 * are named after the attribute (LSTM's weight_ih_l0) */
		const struct pickle_value *st = m->obj->u.object->state;
		uint32_t i, k;

		for (i = 0; i < pv->u.seq.n; i++) {
			const struct pickle_value *it = pv->u.seq.items[i];
			if (it->kind != PICKLE_TENSOR)
				continue;
			for (k = 0; k < st->u.dict.n; k++) {
				const struct pickle_value *kv = st->u.dict.keys[k];
				const struct pickle_value *vv = st->u.dict.vals[k];
				if (kv->kind == PICKLE_STR &&
				    vv->kind == PICKLE_TENSOR &&
				    same_tensor(vv->u.tensor, it->u.tensor)) {
					if (!sc_weight(c, vv->u.tensor,
						       ir_strfmt(c->g, "%s%s",
								 m->path,
								 kv->u.s.data),
						       loc))
						return NULL;
					break;
				}
			}
		}
	}
	if (pv)
		return sc_pickle_to_cval(c, pv, ir_strfmt(c->g, "%s%s", m->path,
							  name), loc, 0);
	cls = sc_module_class(c, m, loc);
	if (!cls)
		return NULL;
	f = class_const(cls, name);
	if (f) {
		struct frame *saved = c->fr, tmp = *c->fr;
		struct cval *r;

		tmp.file = m->file;
		c->fr = &tmp;
		r = sc_expr(c, f->value);
		c->fr = saved;
		return r;
	}
	sc_error(c, loc, EXIT_UNSUPPORTED,
		 "unsupported construct: attribute '%s' of '%s' not found",
		 name, m->obj->u.object->class_name);
	return NULL;
}

void sc_module_set(struct sc *c, struct modref *m, const char *name,
		   struct cval *v)
{
	struct attr_override *o;

	for (o = c->overrides; o; o = o->next)
		if (o->obj == m->obj && !strcmp(o->name, name)) {
			o->cv = v;
			return;
		}
	o = ir_alloc(c->g, sizeof(*o));
	o->obj = m->obj;
	o->name = name;
	o->cv = v;
	o->next = c->overrides;
	c->overrides = o;
}

/* --- types -------------------------------------------------------------- */

static struct ir_type *wrap(struct sc *c, enum ir_type_kind k,
			    struct ir_type *e)
{
	struct ir_type *t = ir_type_new(c->g, k);

	t->nelems = 1;
	t->elems = ir_alloc(c->g, sizeof(*t->elems));
	t->elems[0] = e;
	return t;
}

struct ir_type *sc_type_from_ts(struct sc *c, const struct ts_type *t)
{
	const char *n;
	struct ir_type *r;
	int i;

	if (!t)
		return ir_type_new(c->g, IR_TYPE_UNKNOWN);
	n = t->name;
	if (!strcmp(n, "Tensor"))
		return ir_type_tensor(c->g, 0, -1, NULL);
	if (!strcmp(n, "int"))
		return ir_type_new(c->g, IR_TYPE_INT);
	if (!strcmp(n, "float"))
		return ir_type_new(c->g, IR_TYPE_FLOAT);
	if (!strcmp(n, "bool"))
		return ir_type_new(c->g, IR_TYPE_BOOL);
	if (!strcmp(n, "str"))
		return ir_type_new(c->g, IR_TYPE_STR);
	if (!strcmp(n, "NoneType") || !strcmp(n, "None"))
		return ir_type_new(c->g, IR_TYPE_NONE);
	if (!strcmp(n, "Device"))
		return ir_type_new(c->g, IR_TYPE_DEVICE);
	if ((!strcmp(n, "List") || !strcmp(n, "Optional") ||
	     !strcmp(n, "Final")) && t->nargs == 1) {
		if (!strcmp(n, "Final"))
			return sc_type_from_ts(c, t->args[0]);
		return wrap(c, n[0] == 'L' ? IR_TYPE_LIST : IR_TYPE_OPTIONAL,
			    sc_type_from_ts(c, t->args[0]));
	}
	if (!strcmp(n, "Tuple")) {
		r = ir_type_new(c->g, IR_TYPE_TUPLE);
		r->nelems = t->nargs;
		r->elems = ir_alloc(c->g, sizeof(*r->elems) *
				    (t->nargs ? t->nargs : 1));
		for (i = 0; i < t->nargs; i++)
			r->elems[i] = sc_type_from_ts(c, t->args[i]);
		return r;
	}
	if (!strcmp(n, "Dict") && t->nargs == 2) {
		r = ir_type_new(c->g, IR_TYPE_DICT);
		r->nelems = 2;
		r->elems = ir_alloc(c->g, sizeof(*r->elems) * 2);
		r->elems[0] = sc_type_from_ts(c, t->args[0]);
		r->elems[1] = sc_type_from_ts(c, t->args[1]);
		return r;
	}
	if (!strncmp(n, "__torch__.", 10)) {
		r = ir_type_new(c->g, IR_TYPE_CLASS);
		r->name = ir_strdup(c->g, n);
		return r;
	}
	return ir_type_new(c->g, IR_TYPE_UNKNOWN);
}

/* A schema type spelling ("Tensor?", "int[2]", "Tensor[]", "t") as a type;
 * type variables and Scalar become unknown. */
struct ir_type *sc_type_from_schema(struct sc *c, const char *s)
{
	size_t n = strlen(s);
	char buf[64];

	if (n >= sizeof(buf))
		return ir_type_new(c->g, IR_TYPE_UNKNOWN);
	memcpy(buf, s, n + 1);
	if (n && buf[n - 1] == '?') {
		buf[n - 1] = 0;
		return wrap(c, IR_TYPE_OPTIONAL, sc_type_from_schema(c, buf));
	}
	if (n && buf[n - 1] == ']') {
		char *lb = strrchr(buf, '[');
		if (lb) {
			*lb = 0;
			return wrap(c, IR_TYPE_LIST, sc_type_from_schema(c, buf));
		}
	}
	if (!strcmp(buf, "Tensor"))
		return ir_type_tensor(c->g, 0, -1, NULL);
	if (!strcmp(buf, "int") || !strcmp(buf, "SymInt") ||
	    !strcmp(buf, "ScalarType") || !strcmp(buf, "Layout") ||
	    !strcmp(buf, "MemoryFormat"))
		return ir_type_new(c->g, IR_TYPE_INT);
	if (!strcmp(buf, "float"))
		return ir_type_new(c->g, IR_TYPE_FLOAT);
	if (!strcmp(buf, "bool"))
		return ir_type_new(c->g, IR_TYPE_BOOL);
	if (!strcmp(buf, "str"))
		return ir_type_new(c->g, IR_TYPE_STR);
	if (!strcmp(buf, "Device"))
		return ir_type_new(c->g, IR_TYPE_DEVICE);
	if (!strcmp(buf, "NoneType"))
		return ir_type_new(c->g, IR_TYPE_NONE);
	return ir_type_new(c->g, IR_TYPE_UNKNOWN);
}

/* --- the driver --------------------------------------------------------- */

static struct ir_type *input_type(struct sc *c, const struct script_input *in)
{
	struct ir_type *t;
	int i;

	if (in->type)
		return ir_type_copy(c->g, in->type);
	t = ir_type_tensor(c->g, in->dtype, in->rank, NULL);
	for (i = 0; i < in->rank; i++) {
		t->dims[i] = in->dims[i];
		if (in->dims[i].symbol)
			t->dims[i].symbol = ir_strdup(c->g, in->dims[i].symbol);
	}
	return t;
}

/* With require_inputs: a Tensor argument that no --input types is refused
 * in one line that shows the spec to give (an export cannot guess its
 * rank; lower would only fail later on the unknown shapes).  Returns 1
 * when refused. */
static int refuse_untyped_input(const char *method, const struct ts_param *p,
				struct diag *d)
{
	if (p->type && strcmp(p->type->name, "Tensor"))
		return 0;
	diag_error(d, "%s takes input '%s' but no --input gives its type; "
		   "pass e.g. --input '%s=f32[1,3,224,224]'", method, p->name,
		   p->name);
	return 1;
}

/* --dynamic-axes on graph input number gi, forward's argument pname, of
 * type t: each axis named becomes its symbol (the dim_param emit writes),
 * so that no stage sees the example's size there.  Returns 0, or -1 after
 * reporting an axis the input does not have. */
static int apply_dynamic_axes(struct sc *c, struct ir_type *t,
			      const char *pname, uint32_t gi)
{
	const struct onnx_write_options *o = c->dyn;

	for (uint32_t k = 0; o && k < o->ndyn_axes; k++) {
		const struct onnx_dyn_axis *a = &o->dyn_axes[k];
		const char *as = gi < o->ninput_names ? o->input_names[gi]
						      : pname;

		if (strcmp(a->value, as))
			continue;
		if (t->kind != IR_TYPE_TENSOR || t->rank < 0) {
			diag_error(c->d, "--dynamic-axes: input '%s' is not a "
				   "tensor of known rank (give its --input)",
				   a->value);
			return -1;
		}
		if (a->axis >= t->rank) {
			diag_error(c->d, "--dynamic-axes: input '%s' has rank "
				   "%d, no axis %lld", a->value, t->rank,
				   (long long)a->axis);
			return -1;
		}
		t->dims[a->axis].kind = IR_DIM_SYMBOL;
		t->dims[a->axis].value = 0;
		t->dims[a->axis].symbol = a->name
			? ir_strdup(c->g, a->name)
			: ir_strfmt(c->g, "%s_dynamic_axes_%u", a->value,
				    a->index + 1);
	}
	return 0;
}

int sc_is_self_param(const struct ts_param *p, const struct modref *m)
{
	const struct pickle_value *o = m->obj;

	if (!strcmp(p->name, "self"))
		return 1;
	return p->type && o && o->kind == PICKLE_OBJECT &&
	       o->u.object->class_name &&
	       !strcmp(p->type->name, o->u.object->class_name);
}

static const char *input_kind_name(enum input_spec_kind k)
{
	static const char *const names[] = {
		[INPUT_SPEC_TENSOR] = "a tensor", [INPUT_SPEC_TUPLE] = "a tuple",
		[INPUT_SPEC_LIST] = "a list", [INPUT_SPEC_INT] = "an int",
		[INPUT_SPEC_FLOAT] = "a float", [INPUT_SPEC_BOOL] = "a bool",
		[INPUT_SPEC_NONE] = "None",
	};
	return names[k];
}

/* Whether an argument of TorchScript type ty (NULL: not written) takes
 * in: 0, or 1 after reporting that it does not. */
static int input_misfit(const char *pname, const struct ts_type *ty,
			const struct script_input *in, struct diag *d)
{
	const char *tn = ty ? ty->name : NULL;
	int ok = 1;

	if (!tn)
		return 0;
	if (!strcmp(tn, "Optional") && ty->nargs == 1)
		return in->kind == INPUT_SPEC_NONE ? 0 :
		       input_misfit(pname, ty->args[0], in, d);
	if (!strcmp(tn, "Tensor"))
		ok = in->kind == INPUT_SPEC_TENSOR;
	else if (!strcmp(tn, "Tuple")) {
		ok = in->kind == INPUT_SPEC_TUPLE;
		if (ok && ty->bracketed && ty->nargs != in->nitems) {
			diag_error(d, "--input for '%s': the argument is a "
				   "tuple of %d items, not %d", pname,
				   ty->nargs, in->nitems);
			return 1;
		}
		for (int i = 0; ok && i < in->nitems && ty->bracketed; i++)
			if (input_misfit(pname, ty->args[i], &in->items[i], d))
				return 1;
	} else if (!strcmp(tn, "List")) {
		ok = in->kind == INPUT_SPEC_LIST;
		for (int i = 0; ok && i < in->nitems && ty->nargs == 1; i++)
			if (input_misfit(pname, ty->args[0], &in->items[i], d))
				return 1;
	} else if (!strcmp(tn, "int"))
		ok = in->kind == INPUT_SPEC_INT;
	else if (!strcmp(tn, "float"))
		ok = in->kind == INPUT_SPEC_FLOAT || in->kind == INPUT_SPEC_INT;
	else if (!strcmp(tn, "bool"))
		ok = in->kind == INPUT_SPEC_BOOL;
	else if (!strcmp(tn, "number") || !strcmp(tn, "Scalar"))
		ok = in->kind == INPUT_SPEC_INT || in->kind == INPUT_SPEC_FLOAT
		     || in->kind == INPUT_SPEC_BOOL;
	else if (!strcmp(tn, "NoneType") || !strcmp(tn, "None"))
		ok = in->kind == INPUT_SPEC_NONE;
	else if (!strcmp(tn, "Dict")) {
		diag_error(d, "--input for '%s': the argument is a Dict, which "
			   "--input cannot give", pname);
		return 1;
	} else if (strcmp(tn, "Any"))
		ok = in->kind != INPUT_SPEC_TENSOR; /* a NamedTuple: a tuple */
	if (ok)
		return 0;
	diag_error(d, "--input for '%s': the argument is of type %s, not %s",
		   pname, tn, input_kind_name(in->kind));
	return 1;
}

/* The value of argument name given by in (of type ty, NULL: not written):
 * its tensors graph inputs (a tuple's or list's named
 * INPUT_SPEC_ITEM_NAME), its numbers, bools and None constants, as
 * torch.onnx.export makes them.  NULL after reporting. */
static struct cval *input_cval(struct sc *c, const struct script_input *in,
			       const struct ts_type *ty, const char *name)
{
	struct ts_loc l0 = { 0, 0 };
	int n = in->nitems;

	if (ty && !strcmp(ty->name, "Optional") && ty->nargs == 1)
		ty = ty->args[0];
	switch (in->kind) {
	case INPUT_SPEC_TENSOR: {
		struct ir_type *t = input_type(c, in);
		struct ir_value *v;

		if (apply_dynamic_axes(c, t, name, c->g->top->nparams))
			return NULL;
		v = ir_value_new(c->g, ir_find_value(c->g, name) ? NULL : name,
				 t);
		ir_block_add_param(c->g, c->g->top, v);
		return cv_value(c, v);
	}
	case INPUT_SPEC_TUPLE:
	case INPUT_SPEC_LIST: {
		struct cval **items = ir_alloc(c->g, sizeof(*items) *
					       (size_t)(n + 1));
		struct ir_value **vs = ir_alloc(c->g, sizeof(*vs) *
						(size_t)(n + 1));
		int tup = in->kind == INPUT_SPEC_TUPLE;

		for (int i = 0; i < n; i++) {
			const struct ts_type *et = !ty ? NULL :
				tup && i < ty->nargs ? ty->args[i] :
				!tup && ty->nargs == 1 ? ty->args[0] : NULL;

			items[i] = input_cval(c, &in->items[i], et,
					      ir_strfmt(c->g,
							INPUT_SPEC_ITEM_NAME,
							name, i));
			if (!items[i])
				return NULL;
			if (!tup && !(vs[i] = sc_to_value(c, items[i], l0)))
				return NULL;
		}
		if (tup)
			return cv_tuple(c, items, n);
		return cv_value(c, sc_list_of(c, vs, n, n || !ty ||
					      ty->nargs != 1 ? NULL :
					      sc_type_from_ts(c, ty->args[0]),
					      l0));
	}
	case INPUT_SPEC_INT:
		if (ty && !strcmp(ty->name, "float"))
			return cv_value(c, sc_const_float(c, (double)in->ival,
							  l0));
		return cv_value(c, sc_const_int(c, in->ival, l0));
	case INPUT_SPEC_FLOAT:
		return cv_value(c, sc_const_float(c, in->fval, l0));
	case INPUT_SPEC_BOOL:
		return cv_value(c, sc_const_bool(c, (int)in->ival, l0));
	case INPUT_SPEC_NONE:
		return cv_value(c, sc_const_none(c, l0));
	}
	return NULL;
}

struct ir_graph *script_compile(struct torch_archive *ar,
				const struct script_options *o,
				struct diag *d, int *code)
{
	struct sc c;
	struct frame fr;
	struct modref *root;
	const struct pickle_value *rv = torch_archive_root(ar);
	const struct ts_class *cls;
	const struct ts_def *def;
	const char *method = o->method ? o->method : "forward";
	struct ts_loc loc0 = { 0, 0 };
	int i, npos = 0, used_named = 0;

	memset(&c, 0, sizeof(c));
	c.ar = ar;
	c.d = d;
	c.dyn = o->dyn;
	c.g = ir_graph_new(IR_LEVEL_ATEN);
	if (!c.g) {
		diag_error(d, "out of memory");
		*code = EXIT_IO;
		return NULL;
	}
	c.g->producer = "script " "0.1";
	/* lower names an ATen fallback's arguments after the same schemas */
	if (sc_era(&c) == ATEN_ERA_2_11)
		ir_add_prop(c.g, "torch_era", "2.x");
	/* weights refer to the archive by an absolute path, so that later
	 * stages may run from anywhere (an archive in memory keeps its name) */
	char *abs = realpath(ar->path, NULL);
	c.ref_file = ir_strdup(c.g, abs ? abs : ar->path);
	free(abs);
	c.blk = c.g->top;
	if (!rv || rv->kind != PICKLE_OBJECT || !rv->u.object->class_name) {
		diag_error(d, "data.pkl: the root is not a module object");
		*code = EXIT_BAD_INPUT;
		goto fail;
	}
	root = ir_alloc(c.g, sizeof(*root));
	root->obj = rv;
	root->scope = ir_strdup(c.g, sc_short_class(&c,
						   rv->u.object->class_name));
	root->path = "";
	memset(&fr, 0, sizeof(fr));
	fr.env = env_new(&c);
	fr.self = root;
	fr.scope = root->scope;
	fr.entry = c.g->top;
	c.fr = &fr;
	cls = sc_module_class(&c, root, loc0);
	if (!cls)
		goto fail;
	fr.file = root->file;
	c.g->name = ir_strdup(c.g, root->scope);
	def = sc_find_method(cls, method);
	if (!def) {
		/* an overloaded method (nn.LSTM): python_print writes its
		 * overloads as NAME__0, NAME__1...; the first takes tensors */
		const char *m0 = ir_strfmt(c.g, "%s__0", method);
		def = sc_find_method(cls, m0);
	}
	if (!def) {
		diag_error(d, "%s: class '%s' has no method '%s'", root->file,
			   rv->u.object->class_name, method);
		c.code = EXIT_USAGE;
		goto fail;
	}
	/* graph inputs: the arguments but self */
	for (i = 0; i < def->nparams; i++) {
		const struct ts_param *p = def->params[i];
		const struct script_input *in = NULL;
		struct ir_type *t;
		struct ir_value *v;
		struct cval *cv;
		int k;

		if (i == 0 && sc_is_self_param(p, root)) {
			if (strcmp(p->name, "self")) {
				struct cval *sv = ir_alloc(c.g, sizeof(*sv));
				sv->kind = CV_MODULE;
				sv->mod = root;
				env_set(&c, fr.env, p->name, sv);
			}
			continue;
		}
		for (k = 0; k < o->ninputs; k++)
			if (o->inputs[k].name &&
			    !strcmp(o->inputs[k].name, p->name)) {
				in = &o->inputs[k];
				used_named++;
			}
		if (!in) {
			for (k = 0; k < o->ninputs; k++)
				if (!o->inputs[k].name && k == npos)
					in = &o->inputs[k];
			npos++;
		}
		if (!in && p->def && o->ninputs > 0) {
			/* not given while others are: the default, as
			 * torch.onnx.export's args leave trailing ones out */
			struct cval *dv = sc_expr(&c, p->def);
			if (!dv)
				goto fail;
			env_set(&c, fr.env, p->name, dv);
			continue;
		}
		if (!in && o->require_inputs &&
		    refuse_untyped_input(method, p, d)) {
			c.code = EXIT_USAGE;
			goto fail;
		}
		if (in) {
			if (input_misfit(p->name, p->type, in, d) ||
			    !(cv = input_cval(&c, in, p->type, p->name))) {
				c.code = EXIT_USAGE;
				goto fail;
			}
			env_set(&c, fr.env, p->name, cv);
			continue;
		}
		t = sc_type_from_ts(&c, p->type);
		if (apply_dynamic_axes(&c, t, p->name, c.g->top->nparams)) {
			c.code = EXIT_USAGE;
			goto fail;
		}
		v = ir_value_new(c.g, ir_find_value(c.g, p->name) ? NULL :
				 p->name, t);
		ir_block_add_param(c.g, c.g->top, v);
		env_set(&c, fr.env, p->name, cv_value(&c, v));
	}
	for (i = 0; i < o->ninputs; i++)
		if (o->inputs[i].name) {
			int k, found = 0;
			for (k = 0; k < def->nparams; k++)
				found |= !strcmp(def->params[k]->name,
						 o->inputs[i].name);
			if (!found) {
				diag_error(d, "--input '%s': method '%s' has no "
					   "such argument", o->inputs[i].name,
					   method);
				c.code = EXIT_USAGE;
				goto fail;
			}
		}
	(void)used_named;
	c.depth = 1;
	sc_block(&c, &def->body);
	if (c.err)
		goto fail;
	if (!c.retval) {
		sc_error(&c, def->loc, EXIT_UNSUPPORTED,
			 "unsupported construct: '%s' does not return", method);
		goto fail;
	}
	{
		struct ir_value *rvv = sc_to_value(&c, c.retval, def->loc);
		if (!rvv)
			goto fail;
		ir_block_add_return(c.g, c.g->top, rvv);
	}
	script_upgrade(c.g, ar->version);
	script_passes(c.g);
	arena_release(&c.parse);
	if (ir_verify(c.g, d)) {
		*code = EXIT_INTERNAL;
		ir_graph_free(c.g);
		return NULL;
	}
	*code = EXIT_OK;
	return c.g;
fail:
	arena_release(&c.parse);
	ir_graph_free(c.g);
	*code = c.code ? c.code : EXIT_UNSUPPORTED;
	return NULL;
}

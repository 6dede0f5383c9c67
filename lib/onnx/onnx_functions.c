/*
 * onnx_functions.c - plans export_modules_as_functions (onnx_functions.h):
 * groups the main graph's nodes by the module instance their scope names,
 * finds what crosses each instance's boundary, checks that the instances
 * of one type are the same function and that each call can stand where
 * its last node stood.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "onnx_functions.h"

#define NO_INST ONNX_FN_NONE

struct sel {
	const char *domain, *type; /* domain: dlen bytes */
	size_t dlen, tlen;
};

/* The components of a scope "Root/Type[attr]/...": component k's type is
 * the text before its '[' (the whole component for the root). */
static const char *comp_end(const char *c)
{
	const char *e = strchr(c, '/');
	return e ? e : c + strlen(c);
}

static size_t comp_type_len(const char *c, const char *e)
{
	const char *lb = memchr(c, '[', (size_t)(e - c));
	return (size_t)((lb ? lb : e) - c);
}

/* "*" selects every type (domain "local") */
static const struct sel *find_sel(const struct sel *s, uint32_t n,
				  const char *t, size_t len)
{
	for (uint32_t i = 0; i < n; i++)
		if ((s[i].tlen == len && !memcmp(s[i].type, t, len)) ||
		    (s[i].tlen == 1 && s[i].type[0] == '*'))
			return &s[i];
	return NULL;
}

/* A Constant belongs to no instance: it stays in the graph, and each
 * instance that uses it has a copy of its own (fold shares one Constant
 * between modules; torch's functions each hold theirs). */
static int is_const(const struct ir_node *nd)
{
	return nd && !nd->ninputs && !strcmp(nd->kind, "onnx::Constant");
}

static int cmp_entry(const void *a, const void *b)
{
	const struct ir_node *x = ((const struct onnx_fn_entry *)a)->n;
	const struct ir_node *y = ((const struct onnx_fn_entry *)b)->n;
	return x < y ? -1 : x > y;
}

static const struct onnx_fn_entry *entry_of(const struct onnx_fn_plan *p,
					    const struct ir_node *nd)
{
	struct onnx_fn_entry key = { nd, 0 };
	if (!nd || !p->nmap)
		return NULL;
	return bsearch(&key, p->map, p->nmap, sizeof(key), cmp_entry);
}

const struct onnx_fn_instance *onnx_fn_of(const struct onnx_fn_plan *p,
					  const struct ir_node *nd)
{
	const struct onnx_fn_entry *e = entry_of(p, nd);
	return e && e->inst != NO_INST ? &p->inst[e->inst] : NULL;
}

static int listed(const struct ir_value *const *l, uint32_t n,
		  const struct ir_value *v)
{
	for (uint32_t i = 0; i < n; i++)
		if (l[i] == v)
			return (int)i;
	return -1;
}

static int cmp_ptr(const void *a, const void *b)
{
	const void *x = *(const void *const *)a, *y = *(const void *const *)b;
	return x < y ? -1 : x > y;
}

int onnx_fn_dropped(const struct onnx_fn_plan *p, const struct ir_node *nd)
{
	return p->ndropped && bsearch(&nd, p->dropped, p->ndropped,
				      sizeof(*p->dropped), cmp_ptr);
}

const struct onnx_fn_instance *onnx_fn_top(const struct onnx_fn_plan *p,
					   const struct ir_node *nd)
{
	const struct onnx_fn_instance *x = onnx_fn_of(p, nd);
	while (x && x->parent != NO_INST)
		x = &p->inst[x->parent];
	return x;
}

int onnx_fn_hidden(const struct onnx_fn_plan *p, const struct ir_value *v)
{
	const struct onnx_fn_instance *x = onnx_fn_top(p, v->producer);
	return (x && listed(x->outs, x->nouts, v) < 0) ||
	       onnx_fn_dropped(p, v->producer);
}

/* arr, of n elements of size bytes (room made here: 4, then doubled),
 * with room for one more */
static void *grow(void *arr, size_t size, uint32_t n)
{
	if (n < 4 ? !n : !(n & (n - 1)))
		arr = xrealloc(arr, size * (n ? 2 * (size_t)n : 4));
	return arr;
}

static void push_ptr(const void ***arr, uint32_t *n, const void *v)
{
	*arr = grow(*arr, sizeof(**arr), *n);
	(*arr)[(*n)++] = v;
}

/* The Constants that a node outside the instances (or its subgraphs, or
 * the graph's outputs) uses, into *kept. */
static void const_uses(const struct ir_block *b, const struct onnx_fn_plan *p,
		       const void ***kept, uint32_t *nkept, int depth)
{
	if (depth > 64)
		return;
	for (const struct ir_node *n = b->first; n; n = n->next) {
		if (!depth && onnx_fn_of(p, n))
			continue;
		for (uint32_t i = 0; i < n->ninputs; i++)
			if (n->inputs[i] && is_const(n->inputs[i]->producer))
				push_ptr(kept, nkept, n->inputs[i]->producer);
		for (uint32_t a = 0; a < n->nattrs; a++) {
			const struct ir_attr *t = &n->attrs[a];
			if (t->kind == IR_ATTR_GRAPH)
				const_uses(t->u.g, p, kept, nkept, depth + 1);
			else if (t->kind == IR_ATTR_GRAPHS)
				for (uint32_t k = 0; k < t->count; k++)
					const_uses(t->u.graphs[k], p, kept,
						   nkept, depth + 1);
		}
	}
	for (uint32_t i = 0; i < b->nreturns; i++)
		if (is_const(b->returns[i]->producer))
			push_ptr(kept, nkept, b->returns[i]->producer);
}

void onnx_fn_plan_release(struct onnx_fn_plan *p)
{
	for (uint32_t i = 0; i < p->ninst; i++) {
		free(p->inst[i].type);
		free(p->inst[i].fname);
		free(p->inst[i].domain);
		free(p->inst[i].scope);
		free(p->inst[i].items);
		free(p->inst[i].ins);
		free(p->inst[i].outs);
	}
	free(p->inst);
	free(p->map);
	free(p->dropped);
	memset(p, 0, sizeof(*p));
}


static uint32_t inst_of(const struct onnx_fn_plan *p, const struct ir_node *nd)
{
	const struct onnx_fn_entry *e = entry_of(p, nd);
	return e ? e->inst : NO_INST;
}

/* 1 when instance a is x or nested in x */
static int within(const struct onnx_fn_plan *p, uint32_t a, uint32_t x)
{
	for (; a != NO_INST; a = p->inst[a].parent)
		if (a == x)
			return 1;
	return 0;
}

/* The instance of the scope prefix scope[0..klen) (component c, type
 * tlen bytes, selected by h) nested in parent: the open one (around the
 * node before, *open's chain), or a new one.  A module called twice is
 * two instances: the front stages write each call's nodes together, so the same
 * scope after a node outside it is the next call. */
static uint32_t find_or_add(struct onnx_fn_plan *p, uint32_t open,
			    const char *scope, size_t klen, const char *c,
			    size_t tlen, const struct sel *h, uint32_t parent)
{
	for (uint32_t i = open; i != NO_INST; i = p->inst[i].parent)
		if (p->inst[i].parent == parent &&
		    !strncmp(p->inst[i].scope, scope, klen) &&
		    !p->inst[i].scope[klen])
			return i;
	p->inst = xrealloc(p->inst, sizeof(*p->inst) * (p->ninst + 1));
	struct onnx_fn_instance *x = &p->inst[p->ninst];
	memset(x, 0, sizeof(*x));
	x->type = xstrndup(c, tlen);
	x->domain = xstrndup(h->domain, h->dlen);
	x->scope = xstrndup(scope, klen);
	x->parent = parent;
	return p->ninst++;
}

/* The innermost instance a scope "Root/Type[attr]/..." is in: one per
 * component of a selected type (the root's too, as torch's), each nested
 * in the one before; open: the innermost instance of the node before. */
static uint32_t scope_inst(struct onnx_fn_plan *p, uint32_t open,
			   const char *scope, const struct sel *s, uint32_t ns)
{
	uint32_t cur = NO_INST;
	for (const char *c = scope;;) {
		const char *e = comp_end(c);
		size_t tl = comp_type_len(c, e);
		const struct sel *h = find_sel(s, ns, c, tl);
		if (h)
			cur = find_or_add(p, open, scope, (size_t)(e - scope),
					  c, tl, h, cur);
		if (!*e)
			return cur;
		c = e + 1;
	}
}

struct list {
	const void **v;
	uint32_t n;
};

static void add_unique(struct list *l, const void *v)
{
	for (uint32_t i = 0; i < l->n; i++)
		if (l->v[i] == v)
			return;
	push_ptr(&l->v, &l->n, v);
}

struct walk {
	struct onnx_fn_plan *p;
	const int64_t *last;  /* by instance: its last node's position */
	struct list *esc;     /* by instance: its values used outside it */
	struct list *ins;     /* by instance: used, made outside it */
	struct list *consts;  /* by instance: the Constants its nodes use */
	struct diag *d;
	int bad;
};

/* A use of v by a node at position at in instance ic (NO_INST: in the
 * graph): v leaves each instance that makes it and does not hold the
 * user, and enters each that holds the user and does not make it; the
 * call of the outermost it leaves must stand before the user's item at
 * that level. */
static void note_use(struct walk *w, const struct ir_value *v, int64_t at,
		     uint32_t ic, const char *what)
{
	const struct onnx_fn_plan *p = w->p;
	if (!v)
		return;
	const struct ir_node *pn = v->producer;
	if (pn && is_const(pn)) {
		if (ic != NO_INST)
			add_unique(&w->consts[ic], pn);
		return;
	}
	uint32_t ip = pn ? inst_of(p, pn) : NO_INST, top = NO_INST;
	for (uint32_t x = ip; x != NO_INST && !within(p, ic, x);
	     x = p->inst[x].parent) {
		add_unique(&w->esc[x], v);
		top = x;
	}
	for (uint32_t z = ic; z != NO_INST && !within(p, ip, z);
	     z = p->inst[z].parent)
		add_unique(&w->ins[z], v);
	if (top == NO_INST)
		return;
	uint32_t lvl = p->inst[top].parent;
	for (uint32_t y = ic; y != NO_INST && y != lvl; y = p->inst[y].parent)
		if (p->inst[y].parent == lvl) {
			at = w->last[y];
			break;
		}
	if (w->last[top] >= at && !w->bad) {
		w->bad = 1;
		diag_error(w->d, "--export-modules-as-functions: %s uses "
			   "value '%s' of %s before that module's last node: "
			   "the call cannot stand in one place",
			   what, v->name, p->inst[top].scope);
	}
}

/* the uses inside the subgraphs of a top-level node (captured values) */
static void note_block_uses(struct walk *w, const struct ir_block *b,
			    int64_t at, uint32_t user, const char *what,
			    int depth)
{
	if (depth > 64)
		return;
	for (const struct ir_node *n = b->first; n; n = n->next) {
		for (uint32_t i = 0; i < n->ninputs; i++)
			note_use(w, n->inputs[i], at, user, what);
		for (uint32_t a = 0; a < n->nattrs; a++) {
			const struct ir_attr *t = &n->attrs[a];
			if (t->kind == IR_ATTR_GRAPH)
				note_block_uses(w, t->u.g, at, user, what,
						depth + 1);
			else if (t->kind == IR_ATTR_GRAPHS)
				for (uint32_t k = 0; k < t->count; k++)
					note_block_uses(w, t->u.graphs[k], at,
							user, what, depth + 1);
		}
	}
	for (uint32_t i = 0; i < b->nreturns; i++)
		note_use(w, b->returns[i], at, user, what);
}

static void push_item(struct onnx_fn_instance *x, const struct ir_node *n,
		      uint32_t call)
{
	x->items = grow(x->items, sizeof(*x->items), x->nitems);
	x->items[x->nitems++] = (struct onnx_fn_item){ n, call };
}

/* Where u comes from in instance a's body: input *idx (*item
 * UINT32_MAX), or output *idx of item *item; -1 when from nowhere. */
static int origin(const struct onnx_fn_plan *p, uint32_t a,
		  const struct ir_value *u, uint32_t *item, uint32_t *idx)
{
	const struct onnx_fn_instance *x = &p->inst[a];
	int k = listed(x->ins, x->nins, u);
	if (k >= 0) {
		*item = UINT32_MAX;
		*idx = (uint32_t)k;
		return 0;
	}
	const struct ir_node *pn = u->producer;
	if (!pn)
		return -1;
	uint32_t ip = is_const(pn) ? a : inst_of(p, pn), child = NO_INST;
	while (ip != a) {
		if (ip == NO_INST)
			return -1;
		child = ip;
		ip = p->inst[ip].parent;
	}
	for (uint32_t i = 0; i < x->nitems; i++) {
		const struct onnx_fn_item *it = &x->items[i];
		if (child == NO_INST ? it->n != pn : it->n || it->call != child)
			continue;
		*item = i;
		if (child != NO_INST) {
			k = listed(p->inst[child].outs, p->inst[child].nouts, u);
			*idx = (uint32_t)k;
			return k < 0 ? -1 : 0;
		}
		for (*idx = 0; pn->outputs[*idx] != u; ++*idx)
			;
		return 0;
	}
	return -1;
}

static int same_origin(const struct onnx_fn_plan *p, uint32_t a,
		       const struct ir_value *u, uint32_t b,
		       const struct ir_value *v)
{
	uint32_t iu, ku, iv, kv;
	if (!u || !v)
		return u == v;
	return !origin(p, a, u, &iu, &ku) && !origin(p, b, v, &iv, &kv) &&
	       iu == iv && ku == kv;
}

/* 1 when instance b's body is a's, wired the same way (a nested call
 * the same when it calls the same function). */
static int same_body(const struct onnx_fn_plan *p, uint32_t ia, uint32_t ib)
{
	const struct onnx_fn_instance *a = &p->inst[ia], *b = &p->inst[ib];
	if (a->nitems != b->nitems || a->nins != b->nins ||
	    a->nouts != b->nouts)
		return 0;
	for (uint32_t i = 0; i < a->nitems; i++) {
		const struct ir_node *x = a->items[i].n, *y = b->items[i].n;
		const struct ir_value *const *xin, *const *yin;
		uint32_t nin;
		if (!x != !y)
			return 0;
		if (!x) {
			const struct onnx_fn_instance *cx =
				&p->inst[a->items[i].call];
			const struct onnx_fn_instance *cy =
				&p->inst[b->items[i].call];
			if (cx->fn != cy->fn || cx->nins != cy->nins)
				return 0;
			xin = cx->ins;
			yin = cy->ins;
			nin = cx->nins;
		} else {
			if (strcmp(x->kind, y->kind) ||
			    x->ninputs != y->ninputs ||
			    x->noutputs != y->noutputs ||
			    x->nattrs != y->nattrs)
				return 0;
			for (uint32_t k = 0; k < x->nattrs; k++) {
				uint32_t j = 0;
				while (j < y->nattrs &&
				       strcmp(x->attrs[k].name, y->attrs[j].name))
					j++;
				if (j == y->nattrs ||
				    !ir_attr_equal(&x->attrs[k], &y->attrs[j]))
					return 0;
			}
			xin = (const struct ir_value *const *)x->inputs;
			yin = (const struct ir_value *const *)y->inputs;
			nin = x->ninputs;
		}
		for (uint32_t k = 0; k < nin; k++)
			if (!same_origin(p, ia, xin[k], ib, yin[k]))
				return 0;
	}
	for (uint32_t k = 0; k < a->nouts; k++)
		if (!same_origin(p, ia, a->outs[k], ib, b->outs[k]))
			return 0;
	return 1;
}

/* One function per group of identical instances of a type (as torch's
 * PartitionIdenticalScopes), those nested first: the first one's body,
 * named Type, Type.1, ... in the order the groups first appear. */
static void group(struct onnx_fn_plan *p)
{
	uint32_t hmax = 0;
	for (uint32_t x = 0; x < p->ninst; x++)
		if (p->inst[x].height > hmax)
			hmax = p->inst[x].height;
	for (uint32_t h = 0; h <= hmax; h++)
		for (uint32_t x = 0; x < p->ninst; x++) {
			struct onnx_fn_instance *in = &p->inst[x];
			uint32_t f;
			if (in->height != h)
				continue;
			for (f = 0; f < x; f++)
				if (p->inst[f].body && p->inst[f].height == h &&
				    !strcmp(p->inst[f].type, in->type) &&
				    same_body(p, f, x))
					break;
			in->fn = f;
			in->body = f == x;
		}
	for (uint32_t x = 0; x < p->ninst; x++) {
		struct onnx_fn_instance *in = &p->inst[x];
		uint32_t groups = 0;
		if (!in->body)
			continue;
		for (uint32_t f = 0; f < x; f++)
			groups += p->inst[f].body &&
				  !strcmp(p->inst[f].type, in->type);
		size_t tl = strlen(in->type);
		in->fname = xmalloc(tl + 12);
		memcpy(in->fname, in->type, tl + 1);
		if (groups)
			snprintf(in->fname + tl, 12, ".%u", groups);
	}
}

int onnx_fn_plan(const struct ir_graph *g, char *const *types, uint32_t n,
		 struct onnx_fn_plan *p, struct diag *d)
{
	const struct ir_block *top = g->top;
	struct sel *s = xmalloc(sizeof(*s) * (n ? n : 1));
	int rc = EXIT_UNSUPPORTED;
	int64_t *last = NULL;
	struct walk w = { p, NULL, NULL, NULL, NULL, d, 0 };

	memset(p, 0, sizeof(*p));
	for (uint32_t i = 0; i < n; i++) {
		const char *dot = strrchr(types[i], '.');
		s[i].type = dot ? dot + 1 : types[i];
		s[i].tlen = strlen(s[i].type);
		s[i].domain = dot ? types[i] : "local";
		s[i].dlen = dot ? (size_t)(dot - types[i]) : 5;
	}
	uint32_t nnodes = 0;
	for (const struct ir_node *nd = top->first; nd; nd = nd->next)
		nnodes++;
	p->map = xmalloc(sizeof(*p->map) * (nnodes ? nnodes : 1));
	uint32_t open = NO_INST;
	for (const struct ir_node *nd = top->first; nd; nd = nd->next) {
		uint32_t inst = nd->scope && *nd->scope && !is_const(nd)
			? scope_inst(p, open, nd->scope, s, n) : NO_INST;
		if (!is_const(nd))
			open = inst;
		for (uint32_t a = 0; inst != NO_INST && a < nd->nattrs; a++)
			if (nd->attrs[a].kind == IR_ATTR_GRAPH ||
			    nd->attrs[a].kind == IR_ATTR_GRAPHS) {
				diag_error(d, "--export-modules-as-functions: "
					   "%s in %s has a subgraph: control "
					   "flow in a function is not "
					   "supported yet", nd->kind,
					   p->inst[inst].scope);
				goto out;
			}
		p->map[p->nmap++] = (struct onnx_fn_entry){ nd, inst };
	}
	/* each instance's last node (its nested ones' included) and
	 * height, before the map is sorted by pointer */
	last = xmalloc(sizeof(*last) * (p->ninst ? p->ninst : 1));
	for (uint32_t i = 0; i < p->nmap; i++)
		for (uint32_t x = p->map[i].inst; x != NO_INST;
		     x = p->inst[x].parent) {
			last[x] = i;
			p->inst[x].last = p->map[i].n;
		}
	for (uint32_t x = p->ninst; x-- > 0;) {
		uint32_t up = p->inst[x].parent;
		if (up != NO_INST && p->inst[up].height < p->inst[x].height + 1)
			p->inst[up].height = p->inst[x].height + 1;
	}
	if (p->nmap)
		qsort(p->map, p->nmap, sizeof(*p->map), cmp_entry);
	w.last = last;
	w.esc = xcalloc(p->ninst + 1, sizeof(*w.esc));
	w.ins = xcalloc(p->ninst + 1, sizeof(*w.ins));
	w.consts = xcalloc(p->ninst + 1, sizeof(*w.consts));
	/* every use: by a top-level node (and its subgraphs), a return;
	 * the bodies, each nested call where its last node is */
	int64_t at = 0;
	for (const struct ir_node *nd = top->first; nd && !w.bad;
	     nd = nd->next, at++) {
		uint32_t ic = inst_of(p, nd);
		const char *what = ic != NO_INST ? p->inst[ic].scope : nd->kind;
		for (uint32_t i = 0; i < nd->ninputs; i++)
			note_use(&w, nd->inputs[i], at, ic, what);
		for (uint32_t a = 0; a < nd->nattrs; a++) {
			const struct ir_attr *t = &nd->attrs[a];
			if (t->kind == IR_ATTR_GRAPH)
				note_block_uses(&w, t->u.g, at, ic, what, 0);
			else if (t->kind == IR_ATTR_GRAPHS)
				for (uint32_t k = 0; k < t->count; k++)
					note_block_uses(&w, t->u.graphs[k], at,
							ic, what, 0);
		}
		if (ic == NO_INST)
			continue;
		push_item(&p->inst[ic], nd, 0);
		for (uint32_t y = ic; y != NO_INST && p->inst[y].last == nd;
		     y = p->inst[y].parent)
			if (p->inst[y].parent != NO_INST)
				push_item(&p->inst[p->inst[y].parent], NULL, y);
	}
	for (uint32_t i = 0; i < top->nreturns && !w.bad; i++)
		note_use(&w, top->returns[i], INT64_MAX, NO_INST,
			 "the graph's output");
	if (w.bad)
		goto out;
	/* inputs in first-use order; outputs in node order; the Constants
	 * each instance's own nodes use at the front of its body */
	for (uint32_t x = 0; x < p->ninst; x++) {
		struct onnx_fn_instance *in = &p->inst[x];
		in->ins = (const struct ir_value **)w.ins[x].v;
		in->nins = w.ins[x].n;
		w.ins[x].v = NULL;
		if (w.consts[x].n) {
			uint32_t nc = w.consts[x].n;
			struct onnx_fn_item *all = xmalloc(sizeof(*all) *
							   (nc + in->nitems));
			for (uint32_t k = 0; k < nc; k++)
				all[k] = (struct onnx_fn_item){
					w.consts[x].v[k], 0 };
			memcpy(all + nc, in->items,
			       sizeof(*all) * in->nitems);
			free(in->items);
			in->items = all;
			in->nitems += nc;
		}
	}
	for (const struct ir_node *nd = top->first; nd; nd = nd->next)
		for (uint32_t i = 0; i < nd->noutputs; i++)
			for (uint32_t x = inst_of(p, nd); x != NO_INST;
			     x = p->inst[x].parent)
				if (listed((const struct ir_value *const *)
					   w.esc[x].v, w.esc[x].n,
					   nd->outputs[i]) >= 0)
					push_ptr((const void ***)&p->inst[x].outs,
						 &p->inst[x].nouts,
						 nd->outputs[i]);
	for (uint32_t x = 0; x < p->ninst; x++)
		if (!p->inst[x].nouts) {
			diag_error(d, "--export-modules-as-functions: %s "
				   "computes nothing the graph uses",
				   p->inst[x].scope);
			goto out;
		}
	for (uint32_t i = 0; i < n; i++) {
		uint32_t x = 0;
		while (x < p->ninst && (strlen(p->inst[x].type) != s[i].tlen ||
		       memcmp(p->inst[x].type, s[i].type, s[i].tlen)))
			x++;
		if (x == p->ninst && strcmp(types[i], "*"))
			diag_warning(d, "--export-modules-as-functions: no "
				     "node is in a module of type '%s' (the "
				     "module scopes name the types)",
				     s[i].type);
	}
	group(p);
	/* a Constant only instances use lives in their functions only */
	{
		const void **kept = NULL, **cand = NULL;
		uint32_t nkept = 0, ncand = 0;
		const_uses(top, p, &kept, &nkept, 0);
		if (nkept)
			qsort(kept, nkept, sizeof(*kept), cmp_ptr);
		for (uint32_t x = 0; x < p->ninst; x++)
			for (uint32_t k = 0; k < p->inst[x].nitems; k++) {
				const struct ir_node *c = p->inst[x].items[k].n;
				if (c && is_const(c) && !(nkept &&
				    bsearch(&c, kept, nkept, sizeof(*kept),
					    cmp_ptr)))
					push_ptr(&cand, &ncand, c);
			}
		if (ncand)
			qsort(cand, ncand, sizeof(*cand), cmp_ptr);
		p->dropped = (const struct ir_node **)cand;
		p->ndropped = ncand;
		free(kept);
	}
	rc = 0;
out:
	for (uint32_t x = 0; w.esc && x <= p->ninst; x++) {
		free(w.esc[x].v);
		free(w.ins[x].v);
		free(w.consts[x].v);
	}
	free(w.esc);
	free(w.ins);
	free(w.consts);
	free(last);
	free(s);
	if (rc)
		onnx_fn_plan_release(p);
	return rc;
}

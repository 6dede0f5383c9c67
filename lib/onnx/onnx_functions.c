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

#define NO_INST UINT32_MAX

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

static const struct sel *find_sel(const struct sel *s, uint32_t n,
				  const char *t, size_t len)
{
	for (uint32_t i = 0; i < n; i++)
		if (s[i].tlen == len && !memcmp(s[i].type, t, len))
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

int onnx_fn_hidden(const struct onnx_fn_plan *p, const struct ir_value *v)
{
	const struct onnx_fn_instance *x = onnx_fn_of(p, v->producer);
	return (x && listed(x->outs, x->nouts, v) < 0) ||
	       onnx_fn_dropped(p, v->producer);
}

static void push_ptr(const void ***arr, uint32_t *n, const void *v)
{
	if (!(*n & (*n - 1)) || !*n)
		*arr = xrealloc(*arr, sizeof(**arr) * (*n ? *n * 2 : 4));
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
		free(p->inst[i].nodes);
		free(p->inst[i].ins);
		free(p->inst[i].outs);
	}
	free(p->inst);
	free(p->map);
	free(p->dropped);
	memset(p, 0, sizeof(*p));
}


/* The instance a scope belongs to: its key length (the prefix through the
 * outermost selected component) and selection, 0 when none; -1 after a
 * line for what is not supported. */
static int scope_key(const char *scope, const struct sel *s, uint32_t ns,
		     size_t *klen, const struct sel **hit, struct diag *d)
{
	const char *c = scope, *e = comp_end(c);
	if (find_sel(s, ns, c, comp_type_len(c, e))) {
		diag_error(d, "--export-modules-as-functions: '%.*s' is the "
			   "root module: the whole model as one function is "
			   "not supported", (int)(e - c), c);
		return -1;
	}
	*hit = NULL;
	while (*e) {
		c = e + 1;
		e = comp_end(c);
		const struct sel *h = find_sel(s, ns, c, comp_type_len(c, e));
		if (!h)
			continue;
		if (*hit) {
			diag_error(d, "--export-modules-as-functions: %.*s "
				   "inside %.*s (scope %s): nested functions "
				   "are not supported yet",
				   (int)comp_type_len(c, e), c,
				   (int)(*hit)->tlen, (*hit)->type, scope);
			return -1;
		}
		*hit = h;
		*klen = (size_t)(e - scope);
	}
	return *hit != NULL;
}

/* 1 when instance b's nodes are a's, wired the same way. */
static int same_body(const struct onnx_fn_instance *a,
		     const struct onnx_fn_instance *b, uint32_t *at)
{
	if (a->nnodes != b->nnodes || a->nins != b->nins ||
	    a->nouts != b->nouts)
		return *at = 0, 0;
	for (uint32_t i = 0; i < a->nnodes; i++) {
		const struct ir_node *x = a->nodes[i], *y = b->nodes[i];
		*at = i;
		if (strcmp(x->kind, y->kind) || x->ninputs != y->ninputs ||
		    x->noutputs != y->noutputs || x->nattrs != y->nattrs)
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
		for (uint32_t k = 0; k < x->ninputs; k++) {
			const struct ir_value *u = x->inputs[k], *v = y->inputs[k];
			if (!u || !v) {
				if (u != v)
					return 0;
				continue;
			}
			int iu = listed(a->ins, a->nins, u);
			if (iu != listed(b->ins, b->nins, v))
				return 0;
			if (iu >= 0)
				continue;
			/* made inside: the same node and output */
			int pu = listed((const struct ir_value *const *)
					(const void *)a->nodes, a->nnodes,
					(const void *)u->producer);
			int pv = listed((const struct ir_value *const *)
					(const void *)b->nodes, b->nnodes,
					(const void *)v->producer);
			if (pu != pv || pu < 0)
				return 0;
			uint32_t ou = 0, ov = 0;
			while (u->producer->outputs[ou] != u)
				ou++;
			while (v->producer->outputs[ov] != v)
				ov++;
			if (ou != ov)
				return 0;
		}
	}
	for (uint32_t k = 0; k < a->nouts; k++) {
		int pu = listed((const struct ir_value *const *)(const void *)
				a->nodes, a->nnodes,
				(const void *)a->outs[k]->producer);
		int pv = listed((const struct ir_value *const *)(const void *)
				b->nodes, b->nnodes,
				(const void *)b->outs[k]->producer);
		if (pu != pv)
			return *at = a->nnodes, 0;
	}
	return 1;
}

/* position of each top-level node, by entry */
struct walk {
	const struct onnx_fn_plan *p;
	const int64_t *pos;  /* by map index */
	const int64_t *last; /* by instance: its last node's position */
	struct diag *d;
	const void **esc;    /* values used outside their instance */
	uint32_t nesc;
	int bad;
};

static int64_t written_at(const struct walk *w, const struct ir_node *nd)
{
	const struct onnx_fn_entry *e = entry_of(w->p, nd);
	if (!e)
		return -2;
	return e->inst != NO_INST ? w->last[e->inst] : w->pos[e - w->p->map];
}

/* Records the uses of v by a node written at position at, of instance
 * user (NO_INST: none): a value of another instance escapes it, and must
 * be written before. */
static void note_use(struct walk *w, const struct ir_value *v, int64_t at,
		     uint32_t user, const char *what)
{
	if (!v || !v->producer || is_const(v->producer))
		return;
	const struct onnx_fn_entry *e = entry_of(w->p, v->producer);
	if (!e || e->inst == NO_INST || e->inst == user)
		return;
	push_ptr(&w->esc, &w->nesc, v);
	if (w->last[e->inst] >= at && !w->bad) {
		w->bad = 1;
		diag_error(w->d, "--export-modules-as-functions: %s uses "
			   "value '%s' of %s before that module's last node: "
			   "the call cannot stand in one place",
			   what, v->name, w->p->inst[e->inst].scope);
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

int onnx_fn_plan(const struct ir_graph *g, char *const *types, uint32_t n,
		 struct onnx_fn_plan *p, struct diag *d)
{
	const struct ir_block *top = g->top;
	struct sel *s = xmalloc(sizeof(*s) * (n ? n : 1));
	int rc = EXIT_UNSUPPORTED;
	int64_t *pos = NULL, *last = NULL;
	struct walk w = { p, NULL, NULL, d, NULL, 0, 0 };

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
	pos = xmalloc(sizeof(*pos) * (nnodes ? nnodes : 1));
	for (const struct ir_node *nd = top->first; nd; nd = nd->next) {
		uint32_t inst = NO_INST;
		size_t klen = 0;
		const struct sel *hit = NULL;
		int k = nd->scope && *nd->scope && !is_const(nd)
			? scope_key(nd->scope, s, n, &klen, &hit, d) : 0;
		if (k < 0)
			goto out;
		if (k) {
			for (inst = 0; inst < p->ninst; inst++)
				if (strlen(p->inst[inst].scope) == klen &&
				    !memcmp(p->inst[inst].scope, nd->scope,
					    klen))
					break;
			if (inst == p->ninst) {
				p->inst = xrealloc(p->inst, sizeof(*p->inst) *
						   (p->ninst + 1));
				struct onnx_fn_instance *x = &p->inst[p->ninst++];
				memset(x, 0, sizeof(*x));
				x->type = xstrndup(hit->type, hit->tlen);
				x->domain = xstrndup(hit->domain, hit->dlen);
				x->scope = xmalloc(klen + 1);
				memcpy(x->scope, nd->scope, klen);
				x->scope[klen] = 0;
			}
			for (uint32_t a = 0; a < nd->nattrs; a++)
				if (nd->attrs[a].kind == IR_ATTR_GRAPH ||
				    nd->attrs[a].kind == IR_ATTR_GRAPHS) {
					diag_error(d, "--export-modules-as-"
						   "functions: %s in %s has a "
						   "subgraph: control flow in "
						   "a function is not "
						   "supported yet", nd->kind,
						   p->inst[inst].scope);
					goto out;
				}
			push_ptr((const void ***)&p->inst[inst].nodes,
				 &p->inst[inst].nnodes, nd);
		}
		pos[p->nmap] = p->nmap;
		p->map[p->nmap++] = (struct onnx_fn_entry){ nd, inst };
	}
	/* the map sorted by pointer, each node's position along */
	{
		struct pair { struct onnx_fn_entry e; int64_t pos; } *pr =
			xmalloc(sizeof(*pr) * (p->nmap ? p->nmap : 1));
		for (uint32_t i = 0; i < p->nmap; i++)
			pr[i] = (struct pair){ p->map[i], (int64_t)i };
		qsort(pr, p->nmap, sizeof(*pr), cmp_entry);
		for (uint32_t i = 0; i < p->nmap; i++) {
			p->map[i] = pr[i].e;
			pos[i] = pr[i].pos;
		}
		free(pr);
	}
	last = xmalloc(sizeof(*last) * (p->ninst ? p->ninst : 1));
	for (uint32_t i = 0; i < p->ninst; i++)
		last[i] = -1;
	for (uint32_t i = 0; i < p->nmap; i++)
		if (p->map[i].inst != NO_INST && pos[i] > last[p->map[i].inst])
			last[p->map[i].inst] = pos[i];
	w.pos = pos;
	w.last = last;
	/* every use: by a top-level node (and its subgraphs), a return */
	for (const struct ir_node *nd = top->first; nd && !w.bad;
	     nd = nd->next) {
		const struct onnx_fn_entry *e = entry_of(p, nd);
		int64_t at = written_at(&w, nd);
		const char *what = e->inst != NO_INST ? p->inst[e->inst].scope
						      : nd->kind;
		for (uint32_t i = 0; i < nd->ninputs; i++)
			note_use(&w, nd->inputs[i], at, e->inst, what);
		for (uint32_t a = 0; a < nd->nattrs; a++) {
			const struct ir_attr *t = &nd->attrs[a];
			if (t->kind == IR_ATTR_GRAPH)
				note_block_uses(&w, t->u.g, at, e->inst, what,
						0);
			else if (t->kind == IR_ATTR_GRAPHS)
				for (uint32_t k = 0; k < t->count; k++)
					note_block_uses(&w, t->u.graphs[k], at,
							e->inst, what, 0);
		}
	}
	for (uint32_t i = 0; i < top->nreturns && !w.bad; i++)
		note_use(&w, top->returns[i], INT64_MAX, NO_INST,
			 "the graph's output");
	if (w.bad)
		goto out;
	if (w.nesc)
		qsort(w.esc, w.nesc, sizeof(*w.esc), cmp_ptr);
	/* each instance's inputs and outputs; the Constants it uses are
	 * copied to the front of its nodes */
	for (uint32_t x = 0; x < p->ninst; x++) {
		struct onnx_fn_instance *in = &p->inst[x];
		const struct ir_node **consts = NULL;
		uint32_t nconsts = 0, nreal = in->nnodes;
		for (uint32_t k = 0; k < nreal; k++) {
			const struct ir_node *nd = in->nodes[k];
			for (uint32_t i = 0; i < nd->ninputs; i++) {
				const struct ir_value *v = nd->inputs[i];
				if (v && is_const(v->producer)) {
					if (listed((const struct ir_value *const *)
						   (const void *)consts, nconsts,
						   (const void *)v->producer) < 0)
						push_ptr((const void ***)&consts,
							 &nconsts, v->producer);
					continue;
				}
				if (!v || onnx_fn_of(p, v->producer) == in ||
				    listed(in->ins, in->nins, v) >= 0)
					continue;
				push_ptr((const void ***)&in->ins, &in->nins, v);
			}
			for (uint32_t i = 0; i < nd->noutputs; i++) {
				const struct ir_value *v = nd->outputs[i];
				if (v && w.nesc &&
				    bsearch(&v, w.esc, w.nesc, sizeof(*w.esc),
					    cmp_ptr))
					push_ptr((const void ***)&in->outs,
						 &in->nouts, v);
			}
		}
		if (nconsts) {
			const struct ir_node **all = xmalloc(sizeof(*all) *
						(nconsts + nreal));
			memcpy(all, consts, sizeof(*all) * nconsts);
			memcpy(all + nconsts, in->nodes, sizeof(*all) * nreal);
			free(in->nodes);
			in->nodes = all;
			in->nnodes = nconsts + nreal;
		}
		free(consts);
		if (!in->nouts) {
			diag_error(d, "--export-modules-as-functions: %s "
				   "computes nothing the graph uses",
				   in->scope);
			goto out;
		}
	}
	for (uint32_t i = 0; i < n; i++) {
		uint32_t x = 0;
		while (x < p->ninst && (strlen(p->inst[x].type) != s[i].tlen ||
		       memcmp(p->inst[x].type, s[i].type, s[i].tlen)))
			x++;
		if (x == p->ninst)
			diag_warning(d, "--export-modules-as-functions: no "
				     "node is in a module of type '%s' (a "
				     "trace's scopes name the types)",
				     s[i].type);
	}
	/* one function per group of identical instances of a type (as
	 * torch's PartitionIdenticalScopes): the first one's nodes, named
	 * Type, Type.1, ... in the order the groups first appear */
	for (uint32_t x = 0; x < p->ninst; x++) {
		struct onnx_fn_instance *in = &p->inst[x];
		uint32_t f, groups = 0, at;
		for (f = 0; f < x; f++) {
			if (!p->inst[f].body || strcmp(p->inst[f].type, in->type))
				continue;
			if (same_body(&p->inst[f], in, &at))
				break;
			groups++;
		}
		in->fn = f;
		if (f < x)
			continue;
		in->body = 1;
		size_t tl = strlen(in->type);
		in->fname = xmalloc(tl + 12);
		memcpy(in->fname, in->type, tl + 1);
		if (groups)
			snprintf(in->fname + tl, 12, ".%u", groups);
	}
	/* a Constant only instances use lives in their functions only */
	{
		const void **kept = NULL, **cand = NULL;
		uint32_t nkept = 0, ncand = 0;
		const_uses(top, p, &kept, &nkept, 0);
		if (nkept)
			qsort(kept, nkept, sizeof(*kept), cmp_ptr);
		for (uint32_t x = 0; x < p->ninst; x++)
			for (uint32_t k = 0; k < p->inst[x].nnodes; k++) {
				const struct ir_node *c = p->inst[x].nodes[k];
				if (is_const(c) && !(nkept &&
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
	free(w.esc);
	free(pos);
	free(last);
	free(s);
	if (rc)
		onnx_fn_plan_release(p);
	return rc;
}

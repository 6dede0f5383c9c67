/*
 * ir_verify.c - structural checks on a graph: ir_verify() (see ir.h).
 *
 * Every reader runs it last, and a pass may run it after rewriting a graph.
 * It walks the graph once, in order, keeping the values in scope in a name
 * table: a value enters when it is defined (a graph input or weight, a
 * block parameter or subgraph weight, a node output) and leaves when its
 * block ends.  It checks that
 *
 *   - every node input and block return is in scope at that point: defined
 *     earlier in its block or an enclosing one (subgraphs and nested blocks
 *     see the values of the blocks around them, never the outputs of their
 *     own node);
 *   - no value is defined twice, and no two values share a name;
 *   - values have a name and a type, nodes a kind, node outputs their node
 *     as producer, weights a tensor.
 *
 * Costs: one hash table entry per value, freed before it returns.  The
 * graph is not modified (value->aux stays the passes' own).
 */
#include "ir.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME_SHOWN 64

struct slot {
	const struct ir_value *v; /* NULL: empty */
	int live;                 /* in scope now */
};

struct verifier {
	const struct ir_graph *g;
	struct diag *d;
	int problems;
	struct slot *tab;         /* open addressing on the name */
	uint32_t cap, n;
	const struct ir_value **scope; /* values in scope, innermost last */
	uint32_t nscope, scope_cap;
	char shown[3][NAME_SHOWN * 4 + 8];
	int nshown;
};

/* name for a message: one line, at most NAME_SHOWN bytes shown */
static const char *vshow(struct verifier *c, const char *s)
{
	char *buf = c->shown[c->nshown++ % 3];
	size_t size = sizeof(c->shown[0]), o = 0, i;

	if (!s)
		return "(null)";
	for (i = 0; s[i] && i < NAME_SHOWN && o + 8 < size; i++) {
		unsigned char ch = (unsigned char)s[i];
		if (ch < 0x20 || ch >= 0x7f || ch == '"' || ch == '\\')
			o += (size_t)snprintf(buf + o, size - o, "\\x%02x", ch);
		else
			buf[o++] = (char)ch;
	}
	if (s[i] && o + 4 < size) {
		memcpy(buf + o, "...", 3);
		o += 3;
	}
	buf[o] = 0;
	return buf;
}

__attribute__((format(printf, 2, 3)))
static void problem(struct verifier *c, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	diag_error(c->d, "%s", msg);
	c->problems++;
}

static uint32_t hash_str(const char *s)
{
	uint32_t h = 2166136261u; /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* The slot for `name`: its value's, or the empty one where it would go. */
static uint32_t lookup(const struct verifier *c, const char *name)
{
	uint32_t j = hash_str(name) & (c->cap - 1);
	while (c->tab[j].v && strcmp(c->tab[j].v->name, name))
		j = (j + 1) & (c->cap - 1);
	return j;
}

static void grow(struct verifier *c)
{
	uint32_t ocap = c->cap;
	struct slot *old = c->tab;

	c->cap = ocap ? ocap * 2 : 256;
	c->tab = xcalloc(c->cap, sizeof(*c->tab));
	for (uint32_t i = 0; i < ocap; i++)
		if (old[i].v)
			c->tab[lookup(c, old[i].v->name)] = old[i];
	free(old);
}

/* Where a node is, for messages: its kind and first output, or its
 * place in its block when it has no outputs. */
static const char *node_name(struct verifier *c, const struct ir_node *n,
			     uint32_t index, char *buf, size_t size)
{
	if (n->noutputs && n->outputs[0] && n->outputs[0]->name)
		snprintf(buf, size, "node %s (-> %%%s)", vshow(c, n->kind),
			 vshow(c, n->outputs[0]->name));
	else
		snprintf(buf, size, "node %s (#%u in its block)",
			 vshow(c, n->kind), index);
	return buf;
}

/* A value enters scope.  `what` says where, for messages. */
static void define(struct verifier *c, const struct ir_value *v,
		   const char *what)
{
	uint32_t j;

	if (!v) {
		problem(c, "%s: a value is missing", what);
		return;
	}
	if (!v->name || !*v->name) {
		problem(c, "%s: a value has no name", what);
		return;
	}
	if (!v->type)
		problem(c, "%s: value %%%s has no type", what,
			vshow(c, v->name));
	if ((c->n + 1) * 4 >= c->cap * 3)
		grow(c);
	j = lookup(c, v->name);
	if (c->tab[j].v) {
		if (c->tab[j].v == v)
			problem(c, "%s: value %%%s is defined twice", what,
				vshow(c, v->name));
		else
			problem(c, "%s: two values are named %%%s", what,
				vshow(c, v->name));
		return;
	}
	c->tab[j].v = v;
	c->tab[j].live = 1;
	c->n++;
	if (c->nscope == c->scope_cap) {
		c->scope_cap = c->scope_cap ? c->scope_cap * 2 : 64;
		c->scope = xrealloc(c->scope, sizeof(*c->scope) *
				    c->scope_cap);
	}
	c->scope[c->nscope++] = v; /* not j: slots move when it grows */
}

/* A value is used: it must be in scope. */
static void use(struct verifier *c, const struct ir_value *v, const char *what)
{
	uint32_t j;

	if (!v->name || !*v->name) {
		problem(c, "%s uses a value without a name", what);
		return;
	}
	if (!c->cap) {
		problem(c, "%s: %%%s is not defined before its use in this "
			"block or an enclosing one", what, vshow(c, v->name));
		return;
	}
	j = lookup(c, v->name);
	if (!c->tab[j].v)
		problem(c, "%s: %%%s is not defined before its use in this "
			"block or an enclosing one", what, vshow(c, v->name));
	else if (c->tab[j].v != v)
		problem(c, "%s: %%%s is not the value of that name in the "
			"graph", what, vshow(c, v->name));
	else if (!c->tab[j].live)
		problem(c, "%s: %%%s is defined in another block, out of "
			"scope here", what, vshow(c, v->name));
}

static void verify_block(struct verifier *c, const struct ir_block *b,
			 const struct ir_weight *weights, const char *what);

static void verify_node(struct verifier *c, const struct ir_node *n,
			uint32_t index, const struct ir_block *b)
{
	char name[NAME_SHOWN * 8 + 64], what[sizeof(name) + 64];

	if (!n->kind || !*n->kind) {
		problem(c, "a node has no kind");
		return;
	}
	node_name(c, n, index, name, sizeof(name));
	if (n->owner != b)
		problem(c, "%s: its owner is not the block it is in", name);
	for (uint32_t i = 0; i < n->ninputs; i++) {
		if (!n->inputs[i])
			continue; /* an absent optional input */
		snprintf(what, sizeof(what), "%s: input %u", name, i);
		use(c, n->inputs[i], what);
	}
	for (uint32_t i = 0; i < n->nattrs; i++) {
		const struct ir_attr *a = &n->attrs[i];
		if (a->kind == IR_ATTR_GRAPH) {
			snprintf(what, sizeof(what), "%s: attribute %s", name,
				 vshow(c, a->name));
			if (!a->u.g)
				problem(c, "%s has no graph", what);
			else
				verify_block(c, a->u.g, a->u.g->weights, what);
		} else if (a->kind == IR_ATTR_GRAPHS) {
			for (uint32_t k = 0; k < a->count; k++) {
				snprintf(what, sizeof(what),
					 "%s: attribute %s[%u]", name,
					 vshow(c, a->name), k);
				if (!a->u.graphs || !a->u.graphs[k])
					problem(c, "%s has no graph", what);
				else
					verify_block(c, a->u.graphs[k],
						     a->u.graphs[k]->weights,
						     what);
			}
		}
	}
	for (uint32_t i = 0; i < n->nblocks; i++) {
		snprintf(what, sizeof(what), "%s: block %u", name, i);
		if (!n->blocks[i])
			problem(c, "%s is missing", what);
		else
			verify_block(c, n->blocks[i], n->blocks[i]->weights,
				     what);
	}
	for (uint32_t i = 0; i < n->noutputs; i++) {
		const struct ir_value *v = n->outputs[i];
		snprintf(what, sizeof(what), "%s: output %u", name, i);
		if (!v) {
			problem(c, "%s is not set", what);
			continue;
		}
		if (v->producer != n)
			problem(c, "%s: %%%s has another producer", what,
				vshow(c, v->name));
		define(c, v, what);
	}
}

static void verify_block(struct verifier *c, const struct ir_block *b,
			 const struct ir_weight *weights, const char *what)
{
	char buf[NAME_SHOWN * 8 + 128];
	uint32_t mark = c->nscope;

	for (const struct ir_weight *w = weights; w; w = w->next) {
		snprintf(buf, sizeof(buf), "%s: weight", what);
		if (!w->tensor)
			problem(c, "%s %%%s has no tensor", buf,
				w->value ? vshow(c, w->value->name) : "?");
		if (w->value && w->value->weight != w)
			problem(c, "%s %%%s: its value does not point back at "
				"it", buf, vshow(c, w->value->name));
		define(c, w->value, buf);
	}
	for (uint32_t i = 0; i < b->nparams; i++) {
		snprintf(buf, sizeof(buf), "%s: parameter %u", what, i);
		define(c, b->params[i], buf);
	}
	uint32_t index = 0;
	for (const struct ir_node *n = b->first; n; n = n->next)
		verify_node(c, n, index++, b);
	for (uint32_t i = 0; i < b->nreturns; i++) {
		snprintf(buf, sizeof(buf), "%s: return %u", what, i);
		if (!b->returns[i])
			problem(c, "%s is not set", buf);
		else
			use(c, b->returns[i], buf);
	}
	/* the block's values leave scope */
	while (c->nscope > mark) {
		const struct ir_value *v = c->scope[--c->nscope];
		c->tab[lookup(c, v->name)].live = 0;
	}
}

int ir_verify(const struct ir_graph *g, struct diag *d)
{
	struct verifier c;

	memset(&c, 0, sizeof(c));
	c.g = g;
	c.d = d;
	if (!g || !g->top) {
		diag_error(d, "no graph");
		return 1;
	}
	verify_block(&c, g->top, g->weights, "graph");
	free(c.tab);
	free(c.scope);
	return c.problems;
}

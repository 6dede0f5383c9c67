/*
 * ir_dot.c - Graphviz output of an IR graph (see ir_dot.h).
 *
 * Every node, graph input, weight, block parameter and return gets a dot
 * id, kept in a pointer-keyed hash beside the graph (the graph is const, so
 * the values' scratch fields are left alone).  Declarations are written in
 * place, inside the cluster of the block they belong to; edges are
 * collected in a memory stream and written after everything, at top level,
 * because dot makes a node a member of every subgraph that mentions it (an
 * edge from an outer value written inside a cluster would pull the outer
 * node in).  A value nothing defines (an invalid model) gets a red
 * placeholder.  Output is linear in the graph.
 */
#include "ir_dot.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"

struct idmap {
	const void **keys;
	unsigned *ids;
	size_t cap, count;
};

struct dot {
	FILE *fp;        /* declarations */
	FILE *edges;     /* edges, appended to fp at the end */
	struct idmap ids;
	unsigned next;   /* last id handed out */
	int ncluster;
	unsigned watch;  /* an id whose declaration's prefix is wanted */
	char watch_kind; /* 'n', 'v' or 'r': the prefix it got */
};

/* The next dot id, of kind 'n' (node), 'v' (value) or 'r' (return). */
static unsigned new_id(struct dot *o, char kind)
{
	unsigned id = ++o->next;
	if (id == o->watch)
		o->watch_kind = kind;
	return id;
}

static size_t hash_ptr(const void *p)
{
	uint64_t x = (uint64_t)(uintptr_t)p;
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return (size_t)x;
}

static size_t slot(const struct idmap *m, const void *key)
{
	size_t j = hash_ptr(key) & (m->cap - 1);
	while (m->keys[j] && m->keys[j] != key)
		j = (j + 1) & (m->cap - 1);
	return j;
}

static void id_put(struct idmap *m, const void *key, unsigned id)
{
	if ((m->count + 1) * 2 > m->cap) {
		struct idmap n = { 0 };
		n.cap = m->cap ? m->cap * 2 : 64;
		n.keys = xcalloc(n.cap, sizeof(*n.keys));
		n.ids = xcalloc(n.cap, sizeof(*n.ids));
		for (size_t i = 0; i < m->cap; i++) {
			if (!m->keys[i])
				continue;
			size_t j = slot(&n, m->keys[i]);
			n.keys[j] = m->keys[i];
			n.ids[j] = m->ids[i];
		}
		n.count = m->count;
		free(m->keys);
		free(m->ids);
		*m = n;
	}
	size_t j = slot(m, key);
	if (!m->keys[j])
		m->count++;
	m->keys[j] = key;
	m->ids[j] = id;
}

/* The id of key, 0 when none. */
static unsigned id_get(const struct idmap *m, const void *key)
{
	if (!m->cap)
		return 0;
	size_t j = slot(m, key);
	return m->keys[j] ? m->ids[j] : 0;
}

/* The body of a dot string literal: quotes and backslashes escaped,
 * control characters dropped, text past `max` bytes cut. */
static void put_escaped(FILE *fp, const char *s, size_t max)
{
	size_t n = 0;
	for (; s && *s; s++, n++) {
		if (n == max) {
			fputs("...", fp);
			return;
		}
		unsigned char ch = (unsigned char)*s;
		if (ch == '"' || ch == '\\')
			fputc('\\', fp);
		if (ch >= 0x20)
			fputc(ch, fp);
	}
}

static void put_type(FILE *fp, const struct ir_type *t)
{
	if (!t || t->kind != IR_TYPE_TENSOR)
		return;
	fputs("\\n", fp);
	fputs(ir_dtype_torch_name(t->dtype), fp);
	if (t->rank < 0 || (t->rank > 0 && !t->dims))
		return;
	fputc('(', fp);
	for (int i = 0; i < t->rank; i++) {
		if (i)
			fputs(", ", fp);
		if (t->dims[i].kind == IR_DIM_FIXED)
			fprintf(fp, "%lld", (long long)t->dims[i].value);
		else if (t->dims[i].kind == IR_DIM_SYMBOL)
			put_escaped(fp, t->dims[i].symbol, 40);
		else
			fputc('*', fp);
	}
	fputc(')', fp);
}

static void indent(FILE *fp, int depth)
{
	for (int i = 0; i <= depth; i++)
		fputs("  ", fp);
}

/* Declares a value (input, weight, parameter) as dot node "v<id>". */
static unsigned value_node(struct dot *o, const struct ir_value *v,
			   const char *attrs, int depth)
{
	unsigned id = new_id(o, 'v');
	id_put(&o->ids, v, id);
	indent(o->fp, depth);
	fprintf(o->fp, "v%u [%s, label=\"", id, attrs);
	put_escaped(o->fp, v->name, 60);
	put_type(o->fp, v->type);
	fputs("\"];\n", o->fp);
	return id;
}

/* The dot name ("n12", "v7") of whatever defines v into buf, declaring a
 * red placeholder when nothing seen so far does (an invalid model). */
static void source_of(struct dot *o, const struct ir_value *v, int depth,
		      char *buf, size_t size)
{
	unsigned id = v->producer ? id_get(&o->ids, v->producer) : 0;
	if (id) {
		snprintf(buf, size, "n%u", id);
		return;
	}
	id = id_get(&o->ids, v);
	if (!id)
		id = value_node(o, v, "shape=ellipse, color=red, "
				"fontcolor=red", depth);
	snprintf(buf, size, "v%u", id);
}

static void block(struct dot *o, const struct ir_block *b, int depth);

/* A subgraph of node `owner` (dot id n<owner>) as a cluster, tied to its
 * node by a dotted edge into the cluster. */
static void cluster(struct dot *o, const struct ir_block *b, unsigned owner,
		    const char *label, int depth)
{
	int num = ++o->ncluster;
	indent(o->fp, depth);
	fprintf(o->fp, "subgraph cluster_%d {\n", num);
	indent(o->fp, depth + 1);
	fputs("style=dashed; label=\"", o->fp);
	put_escaped(o->fp, label, 80);
	if (b->name) {
		fputs(": ", o->fp);
		put_escaped(o->fp, b->name, 60);
	}
	fputs("\";\n", o->fp);
	/* an enclosing cluster may be watching its own first id */
	unsigned first = o->next + 1, saved = o->watch;
	char saved_kind = o->watch_kind, kind;
	o->watch = first;
	block(o, b, depth + 1);
	kind = o->watch_kind;
	o->watch = saved;
	o->watch_kind = saved_kind;
	indent(o->fp, depth);
	fputs("}\n", o->fp);
	if (o->next >= first) /* the cluster is not empty */
		fprintf(o->edges, "  n%u -> %c%u [style=dotted, arrowhead=none, "
			"lhead=cluster_%d];\n", owner, kind, first, num);
}

static void node(struct dot *o, const struct ir_node *n, int depth)
{
	unsigned id = new_id(o, 'n');
	id_put(&o->ids, n, id);
	indent(o->fp, depth);
	fprintf(o->fp, "n%u [shape=box, style=\"rounded,filled\", "
		"fillcolor=\"#dde8f8\", label=\"", id);
	const char *kind = n->kind ? n->kind : "?";
	put_escaped(o->fp, !strncmp(kind, "onnx::", 6) ? kind + 6 : kind, 60);
	if (n->name) {
		fputs("\\n", o->fp);
		put_escaped(o->fp, n->name, 60);
	}
	fputs("\"];\n", o->fp);

	for (uint32_t i = 0; i < n->ninputs; i++) {
		const struct ir_value *v = n->inputs ? n->inputs[i] : NULL;
		if (!v)
			continue;
		char from[32];
		source_of(o, v, depth, from, sizeof(from));
		fprintf(o->edges, "  %s -> n%u [label=\"", from, id);
		put_escaped(o->edges, v->name, 60);
		fputs("\"];\n", o->edges);
	}
	for (uint32_t a = 0; a < n->nattrs; a++) {
		const struct ir_attr *at = &n->attrs[a];
		if (at->kind == IR_ATTR_GRAPH && at->u.g)
			cluster(o, at->u.g, id, at->name, depth);
		if (at->kind == IR_ATTR_GRAPHS)
			for (uint32_t k = 0; k < at->count; k++)
				if (at->u.graphs[k])
					cluster(o, at->u.graphs[k], id,
						at->name, depth);
	}
	for (uint32_t k = 0; k < n->nblocks; k++) {
		char label[32];
		snprintf(label, sizeof(label), "block%u", k);
		cluster(o, n->blocks[k], id, label, depth);
	}
}

static void block(struct dot *o, const struct ir_block *b, int depth)
{
	for (uint32_t i = 0; i < b->nparams; i++)
		if (b->params[i])
			value_node(o, b->params[i], "shape=ellipse", depth);
	for (const struct ir_weight *w = b->weights; w; w = w->next)
		value_node(o, w->value, "shape=box, style=filled, "
			   "fillcolor=\"#e4e4e4\"", depth);
	for (const struct ir_node *n = b->first; n; n = n->next)
		node(o, n, depth);
	for (uint32_t i = 0; i < b->nreturns; i++) {
		const struct ir_value *v = b->returns[i];
		if (!v)
			continue;
		char from[32];
		source_of(o, v, depth, from, sizeof(from));
		unsigned id = new_id(o, 'r');
		indent(o->fp, depth);
		fprintf(o->fp, "r%u [shape=%s, label=\"", id,
			b->owner ? "plaintext" : "doubleoctagon");
		put_escaped(o->fp, v->name, 60);
		if (!b->owner)
			put_type(o->fp, v->type);
		fputs("\"];\n", o->fp);
		fprintf(o->edges, "  %s -> r%u;\n", from, id);
	}
}

int ir_write_dot(const struct ir_graph *g, FILE *fp, struct diag *d)
{
	char *ebuf = NULL;
	size_t elen = 0;
	struct dot o = { fp, open_memstream(&ebuf, &elen), { 0 }, 0, 0, 0,
			 0 };
	if (!o.edges)
		return diag_error(d, "out of memory for the dot output");
	fputs("digraph \"", fp);
	put_escaped(fp, g->name ? g->name : "graph", 80);
	fputs("\" {\n  rankdir=TB; compound=true;\n"
	      "  node [fontname=\"Helvetica\", fontsize=10];\n"
	      "  edge [fontname=\"Helvetica\", fontsize=8];\n", fp);
	for (const struct ir_weight *w = g->weights; w; w = w->next)
		value_node(&o, w->value, "shape=box, style=filled, "
			   "fillcolor=\"#e4e4e4\"", 0);
	block(&o, g->top, 0);
	fclose(o.edges);
	if (elen)
		fwrite(ebuf, 1, elen, fp);
	fputs("}\n", fp);
	free(ebuf);
	free(o.ids.keys);
	free(o.ids.ids);
	if (fflush(fp) || ferror(fp))
		return diag_error(d, "cannot write the dot output");
	return 0;
}

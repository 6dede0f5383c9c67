/*
 * onnx_write.c - an ONNX-level IR graph as an .onnx ModelProto (see
 * onnx_write.h).
 *
 * Two phases.  The plan reads the graph once and decides everything that
 * does not depend on where the bytes go: the opset imports and ir_version,
 * the name of every value (--input-names, --output-names), the Identity
 * nodes that ONNX needs where a graph output is not defined by that graph
 * or is returned twice, node names, and it checks every tensor's data
 * source.  The build turns the graph into a pb_stream piece tree: small
 * messages packed by protobuf-c, tensors' raw_data left as pieces that
 * stream from their files.  Its size is known before writing; when it is
 * over the limit (protobuf's 2 GB) the build runs again with the weights
 * in an external data file.
 *
 * Fields are written in field-number order, as protobuf itself serialises
 * them, so a model read and re-packed with protobuf-c gives the same bytes.
 *
 * Costs: memory for the graph's metadata (packed nodes, value infos,
 * tensor headers) and one 1 MiB chunk; time linear in nodes + weight
 * bytes.
 */
#include "onnx_functions.h"
#include "onnx_write.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arena.h"
#include "onnx.pb-c.h"
#include "onnx_schema.h"
#include "outfile.h"
#include "pb_stream.h"
#include "strmap.h"
#include "tensor_data.h"
#include "version.h"
#include "version.h"

#define EXTERNAL_MIN_BYTES 1024     /* smaller tensors stay inline (torch's
				       and onnx's threshold) */
#define EXTERNAL_BIG_BYTES (1u << 20) /* these start on a 64 KiB boundary
					 (mmap granularity, as onnx) */
#define EXTERNAL_BIG_ALIGN 65536u
#define EXTERNAL_ALIGN 64u

/* --- small maps: pointer -> pointer, and a set of strings ----------------- */

struct ptrmap {
	const void **keys, **vals;
	uint32_t cap, n;
};

static uint32_t hash_ptr(const void *p)
{
	uint64_t x = (uint64_t)(uintptr_t)p;
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return (uint32_t)x;
}

static void ptrmap_put(struct ptrmap *m, const void *k, const void *v)
{
	if ((m->n + 1) * 4 >= m->cap * 3) {
		struct ptrmap nm = { 0 };
		nm.cap = m->cap ? m->cap * 2 : 64;
		nm.keys = xcalloc(nm.cap, sizeof(*nm.keys));
		nm.vals = xcalloc(nm.cap, sizeof(*nm.vals));
		for (uint32_t i = 0; i < m->cap; i++)
			if (m->keys[i])
				ptrmap_put(&nm, m->keys[i], m->vals[i]);
		free(m->keys);
		free(m->vals);
		*m = nm;
	}
	uint32_t j = hash_ptr(k) & (m->cap - 1);
	while (m->keys[j] && m->keys[j] != k)
		j = (j + 1) & (m->cap - 1);
	if (!m->keys[j])
		m->n++;
	m->keys[j] = k;
	m->vals[j] = v;
}

static const void *ptrmap_get(const struct ptrmap *m, const void *k)
{
	if (!m->cap)
		return NULL;
	uint32_t j = hash_ptr(k) & (m->cap - 1);
	while (m->keys[j]) {
		if (m->keys[j] == k)
			return m->vals[j];
		j = (j + 1) & (m->cap - 1);
	}
	return NULL;
}

static void ptrmap_release(struct ptrmap *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

struct strset {
	const char **keys;
	uint32_t cap, n;
};

static uint32_t hash_str(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static int strset_has(const struct strset *s, const char *k)
{
	if (!s->cap)
		return 0;
	uint32_t j = hash_str(k) & (s->cap - 1);
	while (s->keys[j]) {
		if (!strcmp(s->keys[j], k))
			return 1;
		j = (j + 1) & (s->cap - 1);
	}
	return 0;
}

/* Adds k (not copied); returns 0 if it was already there. */
static int strset_add(struct strset *s, const char *k)
{
	if (strset_has(s, k))
		return 0;
	if ((s->n + 1) * 4 >= s->cap * 3) {
		struct strset ns = { 0 };
		ns.cap = s->cap ? s->cap * 2 : 64;
		ns.keys = xcalloc(ns.cap, sizeof(*ns.keys));
		for (uint32_t i = 0; i < s->cap; i++)
			if (s->keys[i])
				strset_add(&ns, s->keys[i]);
		free(s->keys);
		*s = ns;
	}
	uint32_t j = hash_str(k) & (s->cap - 1);
	while (s->keys[j])
		j = (j + 1) & (s->cap - 1);
	s->keys[j] = k;
	s->n++;
	return 1;
}

static void strset_release(struct strset *s)
{
	free(s->keys);
	memset(s, 0, sizeof(*s));
}

/* --- the writer ----------------------------------------------------------- */

/* How a block's return is written: directly under the value's name, or
 * through an Identity node (ONNX requires a graph's outputs to be defined
 * by that graph, and each once). */
struct ret_plan {
	const char *name;      /* the output's name */
	const char *node_name; /* the Identity's name, NULL when direct */
};

struct ext_tensor {
	const struct ir_tensor *t;
	const char *what;
	uint64_t offset, size;
};

struct writer {
	const struct ir_graph *g;
	const struct onnx_write_options *o;
	struct diag *d;
	int rc;                  /* first exit code reported, 0 if none */
	const char *missing;     /* a weights file found missing: said once */
	struct arena arena;      /* plan: names, lists (lives to the end) */
	struct arena build;      /* pieces and protobuf-c structs */
	struct ptrmap names;     /* ir_value -> emitted name, when renamed */
	struct ptrmap node_names;/* ir_node -> emitted name */
	struct ptrmap def_block; /* param or weight value -> its block */
	struct ptrmap rets;      /* ir_block -> struct ret_plan[nreturns] */
	struct ptrmap direct;    /* values returned directly by their block */
	struct strset used;      /* names given to values by this writer */
	struct strset node_used; /* node names given */
	struct strmap next_sfx;  /* value base name -> next _N suffix to try */
	struct strmap node_sfx;  /* node base name -> next _N suffix to try */
	uint32_t node_counter;   /* for unscoped node names, Kind_N */
	int64_t opset, ir_version;
	Onnx__OperatorSetIdProto **opsets;
	uint32_t nopsets;
	int keep_inits;          /* initializers listed as inputs too */
	int hoist;               /* subgraph weights to the main graph */
	const struct ir_weight **hoisted;
	uint32_t nhoisted;
	int external;            /* weights >= 1 KiB to the side file */
	const char *ext_location;/* relative to the model's directory */
	char *ext_path;          /* the side file (malloc'd) */
	struct ext_tensor *ext;  /* in file order (build arena) */
	uint32_t next, capext;
	uint64_t ext_end;        /* side file size */
	const char **sym_from, **sym_to; /* dim symbols renamed by dynamic
					    axes, everywhere in the model */
	uint32_t nsyms;
	int relaxed;             /* a dynamic axis replaced a fixed dim:
				    intermediate shapes are stale */
	uint32_t nsub;           /* subgraphs built, for torch's names */
	struct onnx_fn_plan fp;  /* export_modules_as_functions */
	const char **fn_names;   /* each instance's call node name */
	struct tensor_allow allow; /* the weight file last allowed */
};

/* Records the exit code of the first failure; returns -1. */
static int fail(struct writer *w, int code)
{
	if (!w->rc)
		w->rc = code;
	return -1;
}

static char *afmt(struct arena *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static char *afmt(struct arena *a, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *p = arena_alloc(a, (size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}

static char *adup(struct arena *a, const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = arena_alloc(a, n);
	memcpy(p, s, n);
	return p;
}

static const char *vname(const struct writer *w, const struct ir_value *v)
{
	const char *n = ptrmap_get(&w->names, v);
	return n ? n : v->name;
}

/* ir_find_value does not change the graph; it takes a non-const pointer
 * only because the hash table is built as values are added. */
static struct ir_value *find_value(const struct writer *w, const char *name)
{
	return ir_find_value((struct ir_graph *)w->g, name);
}

/* Whether `name` may become v's name: no other value has it. */
static int name_free_for(const struct writer *w, const char *name,
			 const struct ir_value *v)
{
	struct ir_value *o = find_value(w, name);
	if (o && o != v && !ptrmap_get(&w->names, o))
		return 0;
	return !strset_has(&w->used, name);
}

/* The first suffix to try for base in sfx: one past the last one handed
 * out (the ones before it are taken, and names are never given back), so
 * that N names on one base cost O(N), not O(N^2) tries. */
static uint32_t sfx_first(const struct strmap *sfx, const char *base)
{
	void *v;
	return strmap_get(sfx, base, &v) ? (uint32_t)(uintptr_t)v : 1;
}

static void sfx_taken(struct writer *w, struct strmap *sfx, const char *base,
		      uint32_t k)
{
	void *v;
	if (!strmap_get(sfx, base, &v))
		base = adup(&w->arena, base);
	strmap_put(sfx, base, (void *)(uintptr_t)(k + 1));
}

/* A name no value has: base, base_1, base_2, ... */
static const char *fresh_name(struct writer *w, const char *base)
{
	if (!find_value(w, base) && !strset_has(&w->used, base)) {
		const char *n = adup(&w->arena, base);
		strset_add(&w->used, n);
		return n;
	}
	for (uint32_t k = sfx_first(&w->next_sfx, base);; k++) {
		char *n = afmt(&w->arena, "%s_%u", base, k);
		if (!find_value(w, n) && !strset_has(&w->used, n)) {
			strset_add(&w->used, n);
			sfx_taken(w, &w->next_sfx, base, k);
			return n;
		}
	}
}

static void rename_value(struct writer *w, const struct ir_value *v,
			 const char *name)
{
	const char *n = adup(&w->arena, name);
	strset_add(&w->used, n);
	ptrmap_put(&w->names, v, n);
}

/* "domain::op" split; the domain of onnx:: and ai.onnx:: is "". */
static const char *node_op(const struct ir_node *n)
{
	const char *c = strstr(n->kind, "::");
	return c ? c + 2 : n->kind;
}

static const char *node_domain(struct writer *w, const struct ir_node *n)
{
	const char *c = strstr(n->kind, "::");
	size_t len = c ? (size_t)(c - n->kind) : 0;
	if (!len || (len == 4 && !memcmp(n->kind, "onnx", 4)) ||
	    (len == 7 && !memcmp(n->kind, "ai.onnx", 7)))
		return "";
	char *dom = arena_alloc(&w->arena, len + 1);
	memcpy(dom, n->kind, len);
	return dom;
}

/* How a node is named in messages: its name, else kind and scope. */
static const char *node_desc(struct writer *w, const struct ir_node *n)
{
	if (n->name)
		return afmt(&w->arena, "%s '%s'", n->kind, n->name);
	if (n->scope)
		return afmt(&w->arena, "%s at %s", n->kind, n->scope);
	return n->kind;
}

/* --- plan: opsets --------------------------------------------------------- */

/* onnx's docs/Versioning.md "Released versions" (the same table as
 * onnx/helper.py VERSION_TABLE): the IR version of the onnx release that
 * introduced each default-domain opset.  24: onnx 1.19 (IR 12), 25: 1.20
 * (IR 13), 26: 1.21 (IR 13). */
int64_t onnx_ir_version_for_opset(int64_t opset)
{
	static const int64_t ir[PT2ONNX_OPSET_MAX + 1] = {
		[1] = 3, [2] = 3, [3] = 3, [4] = 3, [5] = 3, [6] = 3, [7] = 3,
		[8] = 3, [9] = 4, [10] = 5, [11] = 6, [12] = 7, [13] = 7,
		[14] = 7, [15] = 8, [16] = 8, [17] = 8, [18] = 8, [19] = 9,
		[20] = 9, [21] = 10, [22] = 10, [23] = 11, [24] = 12,
		[25] = 13, [26] = 13,
	};
	_Static_assert(PT2ONNX_OPSET_MAX == 26, "a new opset needs its IR "
		       "version in this table");
	return opset >= 1 && opset <= PT2ONNX_OPSET_MAX ? ir[opset] : -1;
}

static int is_default_domain(const char *dom)
{
	return !*dom || !strcmp(dom, "ai.onnx");
}

static void add_opset_import(struct writer *w, const char *domain,
			     int64_t version)
{
	for (uint32_t i = 0; i < w->nopsets; i++)
		if (!strcmp(w->opsets[i]->domain, domain))
			return;
	for (uint32_t i = 0; i < w->o->ncustom_opsets; i++)
		if (!strcmp(w->o->custom_opsets[i].domain, domain))
			version = w->o->custom_opsets[i].version;
	Onnx__OperatorSetIdProto *p = arena_alloc(&w->arena, sizeof(*p));
	onnx__operator_set_id_proto__init(p);
	p->domain = adup(&w->arena, domain);
	p->has_version = 1;
	p->version = version;
	Onnx__OperatorSetIdProto **n = arena_alloc(&w->arena,
						   sizeof(*n) * (w->nopsets + 1));
	if (w->nopsets)
		memcpy(n, w->opsets, sizeof(*n) * w->nopsets);
	n[w->nopsets++] = p;
	w->opsets = n;
}

static int plan_opsets(struct writer *w)
{
	const struct ir_graph *g = w->g;
	int64_t v = -1;

	for (uint32_t i = 0; i < g->nopsets; i++)
		if (is_default_domain(g->opsets[i].domain))
			v = g->opsets[i].version;
	if (v < 0 && w->o->opset <= 0) {
		diag_error(w->d, "the IR imports no default-domain opset: give "
			   "--opset");
		return fail(w, EXIT_BAD_INPUT);
	}
	if (v >= 0 && w->o->opset > 0 && v != w->o->opset) {
		diag_error(w->d, "the IR is for opset %lld but --opset %lld was "
			   "given: emit does not convert opsets (lower "
			   "--opset does)", (long long)v,
			   (long long)w->o->opset);
		return fail(w, EXIT_USAGE);
	}
	if (v < 0)
		v = w->o->opset;
	w->opset = v;
	w->ir_version = onnx_ir_version_for_opset(v);
	if (w->ir_version < 0) {
		diag_error(w->d, "opset %lld is outside the range this emit "
			   "knows (1 to %d)", (long long)v, PT2ONNX_OPSET_MAX);
		return fail(w, EXIT_UNSUPPORTED);
	}
	add_opset_import(w, "", v);
	for (uint32_t i = 0; i < g->nopsets; i++)
		if (!is_default_domain(g->opsets[i].domain))
			add_opset_import(w, g->opsets[i].domain,
					 g->opsets[i].version);
	return 0;
}

/* --- plan: walking the graph ---------------------------------------------- */

static int check_tensor(struct writer *w, const struct ir_tensor *t,
			const char *what)
{
	int ref = t->data_kind == IR_DATA_REF && t->ref.file;
	/* every weight of a missing archive would say the same */
	if (ref && w->missing && !strcmp(w->missing, t->ref.file))
		return fail(w, EXIT_BAD_INPUT);
	int rc = tensor_data_check(t, what, w->d);
	if (rc && ref && access(t->ref.file, F_OK) != 0)
		w->missing = t->ref.file;
	if (!rc && ref && w->o->restrict_weights)
		rc = tensor_data_allowed(t, what,
					 (const char *const *)w->o->weight_dirs,
					 w->o->nweight_dirs, &w->allow, w->d);
	return rc ? fail(w, rc) : 0;
}

/* Where the last atom of q[0..len) that is not all digits starts (0 when
 * every atom is), as torch's utils.py _unqualified_variable_name:
 * "layer1.0" -> "layer1.0", "layer1.0.conv1" -> "conv1". */
static size_t unqualified_start(const char *q, size_t len)
{
	size_t end = len;
	for (;;) {
		size_t start = end;
		while (start > 0 && q[start - 1] != '.')
			start--;
		int numeric = start < end;
		for (size_t k = start; k < end && numeric; k++)
			numeric = q[k] >= '0' && q[k] <= '9';
		if (!numeric || start == 0)
			return numeric ? 0 : start;
		end = start - 1;
	}
}

/* torch's scope path for node names (torch/csrc/jit/passes/onnx/naming.cpp
 * with utils.py's module names): each module of the scope
 * "Net/Sequential[layer1]/BasicBlock[0]/Conv2d[conv1]" below the root is
 * named by its unqualified attribute path, giving "/layer1/layer1.0/conv1";
 * the root module contributes "" (so top-level nodes are "/Relu"). */
static const char *scope_path(struct writer *w, const char *scope)
{
	size_t slen = strlen(scope), ncomp = 1, qlen = 0, olen = 0;
	for (const char *p = scope; *p; p++)
		ncomp += *p == '/';
	char *q = arena_alloc(&w->arena, slen + 1);
	char *out = arena_alloc(&w->arena, ncomp * (slen + 1) + 1);

	for (const char *p = strchr(scope, '/'); p;) {
		const char *c = p + 1, *e = strchr(c, '/');
		size_t len = e ? (size_t)(e - c) : strlen(c);
		const char *lb = memchr(c, '[', len), *name = c;
		size_t nlen = len;
		if (lb && len && c[len - 1] == ']') {
			name = lb + 1; /* Class[attr] -> attr */
			nlen = (size_t)(c + len - 1 - name);
		}
		if (qlen)
			q[qlen++] = '.';
		memcpy(q + qlen, name, nlen);
		qlen += nlen;
		size_t start = unqualified_start(q, qlen);
		out[olen++] = '/';
		memcpy(out + olen, q + start, qlen - start);
		olen += qlen - start;
		p = e;
	}
	out[olen] = 0;
	return out;
}

static const char *unique_node_name(struct writer *w, const char *base)
{
	if (strset_add(&w->node_used, base))
		return base;
	for (uint32_t k = sfx_first(&w->node_sfx, base);; k++) {
		char *n = afmt(&w->arena, "%s_%u", base, k);
		if (strset_add(&w->node_used, n)) {
			sfx_taken(w, &w->node_sfx, base, k);
			return n;
		}
	}
}

static void name_node(struct writer *w, const struct ir_node *n)
{
	const char *base;
	uint32_t index = w->node_counter++;

	if (n->name && *n->name)
		base = adup(&w->arena, n->name);
	else if (n->scope && *n->scope)
		base = afmt(&w->arena, "%s/%s", scope_path(w, n->scope),
			    node_op(n));
	else
		base = afmt(&w->arena, "%s_%u", node_op(n), index);
	ptrmap_put(&w->node_names, n, unique_node_name(w, base));
}

static int plan_block(struct writer *w, const struct ir_block *b, int top);

/* A node of an ONNX domain ("", ai.onnx.ml, ...) must be an op of that
 * domain at the version imported; an op of any other domain is a custom
 * op (declared with --custom-opset, else version 1).  A stage of the
 * user's that writes a misspelt or made-up onnx:: op is refused here, not
 * by whatever later loads the model.  Returns 0 or -1 (reported). */
static int check_op_known(struct writer *w, const struct ir_node *n,
			  const char *dom)
{
	if (!onnx_schema_builtin_domain(dom) ||
	    onnx_schema_experimental(node_op(n)))
		return 0; /* as onnx.checker: nothing to check against */
	int64_t v = *dom ? ir_opset_version(w->g, dom) : w->opset;
	if (v < 0)
		v = 1;
	if (onnx_schema_find(dom, node_op(n), v))
		return 0;
	diag_error(w->d, "node %s: %s is not an ONNX op at opset %lld of "
		   "domain \"%s\" (a custom op needs a domain of its own)",
		   node_desc(w, n), node_op(n), (long long)v, dom);
	return fail(w, EXIT_BAD_INPUT);
}

static int plan_node(struct writer *w, const struct ir_node *n)
{
	int bad = 0;

	if (n->nblocks) {
		diag_error(w->d, "node %s has nested blocks: at ONNX level "
			   "subgraphs are graph attributes (run lower)",
			   node_desc(w, n));
		bad = fail(w, EXIT_UNSUPPORTED);
	}
	const char *dom = node_domain(w, n);
	if (*dom && ir_opset_version(w->g, dom) < 0)
		add_opset_import(w, dom, 1);
	if (check_op_known(w, n, dom))
		bad = -1;
	for (uint32_t i = 0; i < n->nattrs; i++) {
		const struct ir_attr *a = &n->attrs[i];
		switch (a->kind) {
		case IR_ATTR_RAW:
		case IR_ATTR_COUNT:
			diag_error(w->d, "node %s: attribute '%s' is of a kind "
				   "ONNX cannot hold", node_desc(w, n), a->name);
			bad = fail(w, EXIT_UNSUPPORTED);
			break;
		case IR_ATTR_GRAPH:
			if (plan_block(w, a->u.g, 0))
				bad = -1;
			break;
		case IR_ATTR_GRAPHS:
			for (uint32_t k = 0; k < a->count; k++)
				if (plan_block(w, a->u.graphs[k], 0))
					bad = -1;
			break;
		case IR_ATTR_TENSOR:
			if (check_tensor(w, a->u.t,
					 afmt(&w->arena, "tensor attribute '%s' "
					      "of node %s", a->name,
					      node_desc(w, n))))
				bad = -1;
			break;
		case IR_ATTR_TENSORS:
			for (uint32_t k = 0; k < a->count; k++)
				if (check_tensor(w, a->u.tensors[k],
						 afmt(&w->arena, "tensor "
						      "attribute '%s' of node "
						      "%s", a->name,
						      node_desc(w, n))))
					bad = -1;
			break;
		default:
			break;
		}
	}
	name_node(w, n); /* after its subgraphs, as torch does */
	return bad;
}

static int plan_block(struct writer *w, const struct ir_block *b, int top)
{
	int bad = 0;

	for (uint32_t i = 0; i < b->nparams; i++)
		ptrmap_put(&w->def_block, b->params[i], b);
	if (top) {
		for (const struct ir_weight *wt = w->g->weights; wt; wt = wt->next) {
			ptrmap_put(&w->def_block, wt->value, b);
			if (w->o->export_params &&
			    check_tensor(w, wt->tensor,
					 afmt(&w->arena, "weight '%s'",
					      wt->value->name)))
				bad = -1;
		}
	} else {
		for (const struct ir_weight *wt = b->weights; wt; wt = wt->next) {
			if (w->hoist) {
				const struct ir_weight **n = arena_alloc(
					&w->arena, sizeof(*n) * (w->nhoisted + 1));
				if (w->nhoisted)
					memcpy(n, w->hoisted,
					       sizeof(*n) * w->nhoisted);
				n[w->nhoisted++] = wt;
				w->hoisted = n;
				ptrmap_put(&w->def_block, wt->value, w->g->top);
			} else {
				ptrmap_put(&w->def_block, wt->value, b);
			}
			if (check_tensor(w, wt->tensor,
					 afmt(&w->arena, "weight '%s'",
					      wt->value->name)))
				bad = -1;
		}
	}
	for (const struct ir_node *n = b->first; n; n = n->next)
		if (plan_node(w, n))
			bad = -1;
	return bad;
}

/* Whether v is defined by block b itself: a node of b, a parameter, or an
 * initializer of b. */
static int defined_in(const struct writer *w, const struct ir_value *v,
		      const struct ir_block *b)
{
	if (v->producer)
		return v->producer->owner == b;
	return ptrmap_get(&w->def_block, v) == b;
}

/* Decides how each return of b is written.  names: --output-names for the
 * top block. */
static int plan_returns(struct writer *w, const struct ir_block *b,
			char *const *names, uint32_t nnames)
{
	struct ret_plan *rp = arena_alloc(&w->arena,
					  sizeof(*rp) * (b->nreturns + 1));
	struct ptrmap claimed = { 0 };
	int bad = 0;

	for (uint32_t i = 0; i < b->nreturns; i++) {
		const struct ir_value *v = b->returns[i];
		const char *want = i < nnames ? names[i] : NULL;
		int here = defined_in(w, v, b) && !ptrmap_get(&claimed, v);

		if (want && !strcmp(want, vname(w, v)))
			want = NULL;
		if (here && !want) {
			rp[i].name = vname(w, v);
		} else if (here && v->producer) {
			if (!name_free_for(w, want, v)) {
				diag_error(w->d, "output name '%s' is already the "
					   "name of another value", want);
				bad = fail(w, EXIT_USAGE);
				continue;
			}
			rename_value(w, v, want);
			rp[i].name = vname(w, v);
		} else if (want) {
			if (!name_free_for(w, want, NULL)) {
				diag_error(w->d, "output name '%s' is already the "
					   "name of another value", want);
				bad = fail(w, EXIT_USAGE);
				continue;
			}
			rp[i].name = adup(&w->arena, want);
			strset_add(&w->used, rp[i].name);
			rp[i].node_name = "";
		} else {
			rp[i].name = fresh_name(w, vname(w, v));
			rp[i].node_name = "";
		}
		if (!rp[i].node_name) {
			ptrmap_put(&claimed, v, v);
			ptrmap_put(&w->direct, v, v);
		}
	}
	ptrmap_release(&claimed);
	ptrmap_put(&w->rets, b, rp);
	return bad;
}

/* Plans returns for every subgraph, and names the Identity nodes. */
static int plan_sub_returns(struct writer *w, const struct ir_block *b)
{
	int bad = 0;
	for (const struct ir_node *n = b->first; n; n = n->next) {
		for (uint32_t i = 0; i < n->nattrs; i++) {
			const struct ir_attr *a = &n->attrs[i];
			uint32_t cnt = a->kind == IR_ATTR_GRAPH ? 1
				     : a->kind == IR_ATTR_GRAPHS ? a->count : 0;
			for (uint32_t k = 0; k < cnt; k++) {
				const struct ir_block *s =
					a->kind == IR_ATTR_GRAPH ? a->u.g
								 : a->u.graphs[k];
				if (plan_sub_returns(w, s) ||
				    plan_returns(w, s, NULL, 0))
					bad = -1;
			}
		}
	}
	return bad;
}

static void name_identities(struct writer *w, const struct ir_block *b)
{
	struct ret_plan *rp = (struct ret_plan *)ptrmap_get(&w->rets, b);
	for (const struct ir_node *n = b->first; n; n = n->next)
		for (uint32_t i = 0; i < n->nattrs; i++) {
			const struct ir_attr *a = &n->attrs[i];
			if (a->kind == IR_ATTR_GRAPH)
				name_identities(w, a->u.g);
			else if (a->kind == IR_ATTR_GRAPHS)
				for (uint32_t k = 0; k < a->count; k++)
					name_identities(w, a->u.graphs[k]);
		}
	for (uint32_t i = 0; rp && i < b->nreturns; i++)
		if (rp[i].node_name)
			rp[i].node_name = unique_node_name(
				w, afmt(&w->arena, "Identity_%u",
					w->node_counter++));
}

/* --input-names: graph inputs in order, then the weights when they are
 * inputs too (as torch names its graph's inputs, parameters last). */
static int plan_input_names(struct writer *w)
{
	const struct ir_block *top = w->g->top;
	uint32_t n = top->nparams;
	int bad = 0;
	int weights_in = !w->o->export_params || w->keep_inits;

	if (weights_in)
		n += w->g->nweights + w->nhoisted;
	if (w->o->ninput_names > n) {
		diag_error(w->d, "%u input names given for %u inputs",
			   w->o->ninput_names, n);
		return fail(w, EXIT_USAGE);
	}
	const struct ir_weight *wt = w->g->weights;
	uint32_t h = 0;
	for (uint32_t i = 0; i < w->o->ninput_names; i++) {
		const struct ir_value *v;
		if (i < top->nparams)
			v = top->params[i];
		else if (wt) {
			v = wt->value;
			wt = wt->next;
		} else
			v = w->hoisted[h++]->value;
		const char *want = w->o->input_names[i];
		if (!strcmp(want, v->name))
			continue;
		if (!name_free_for(w, want, v)) {
			diag_error(w->d, "input name '%s' is already the name of "
				   "another value", want);
			bad = fail(w, EXIT_USAGE);
			continue;
		}
		rename_value(w, v, want);
	}
	return bad ? -1 : 0;
}

/* The main graph's input and output names, for --dynamic-axes. */
static const struct ir_type *io_type(const struct writer *w,
				     const char *name)
{
	const struct ir_block *top = w->g->top;
	const struct ret_plan *rp = ptrmap_get(&w->rets, top);
	for (uint32_t i = 0; i < top->nparams; i++)
		if (!strcmp(vname(w, top->params[i]), name))
			return top->params[i]->type;
	for (uint32_t i = 0; i < top->nreturns; i++)
		if (!strcmp(rp[i].name, name))
			return top->returns[i]->type;
	if (!w->o->export_params || w->keep_inits) {
		for (const struct ir_weight *wt = w->g->weights; wt; wt = wt->next)
			if (!strcmp(vname(w, wt->value), name))
				return wt->value->type;
	}
	return NULL;
}

static int plan_dynamic_axes(struct writer *w)
{
	int bad = 0;
	for (uint32_t i = 0; i < w->o->ndyn_axes; i++) {
		const struct onnx_dyn_axis *a = &w->o->dyn_axes[i];
		const struct ir_type *t = io_type(w, a->value);
		if (!t) {
			diag_error(w->d, "dynamic axes: '%s' is not the name of "
				   "a graph input or output", a->value);
			bad = fail(w, EXIT_USAGE);
		} else if (t->kind != IR_TYPE_TENSOR || t->rank < 0) {
			diag_error(w->d, "dynamic axes: '%s' is not a tensor of "
				   "known rank", a->value);
			bad = fail(w, EXIT_USAGE);
		} else if (a->axis >= t->rank) {
			diag_error(w->d, "dynamic axes: '%s' has rank %d, no "
				   "axis %lld", a->value, t->rank,
				   (long long)a->axis);
			bad = fail(w, EXIT_USAGE);
		} else if (t->dims[a->axis].kind == IR_DIM_SYMBOL) {
			/* the symbol is renamed wherever it appears */
			const char *from = t->dims[a->axis].symbol;
			uint32_t k = 0;
			while (k < w->nsyms && strcmp(w->sym_from[k], from))
				k++;
			if (k == w->nsyms) {
				w->sym_from = xrealloc(w->sym_from, sizeof(char *)
						       * (w->nsyms + 1));
				w->sym_to = xrealloc(w->sym_to, sizeof(char *)
						     * (w->nsyms + 1));
				w->sym_from[k] = from;
				w->sym_to[k] = a->name ? a->name
					: afmt(&w->arena, "%s_dynamic_axes_%u",
					       a->value, a->index + 1);
				w->nsyms++;
			}
		} else if (t->dims[a->axis].kind == IR_DIM_FIXED) {
			if (!w->relaxed)
				diag_warning(w->d, "dynamic axes: '%s' axis %lld "
					     "is %lld in the IR, so the stages "
					     "before computed with that size; "
					     "output dims not named dynamic are "
					     "written unknown (give the axis to "
					     "script or trace instead)",
					     a->value, (long long)a->axis,
					     (long long)t->dims[a->axis].value);
			w->relaxed = 1;
		}
	}
	return bad;
}

static const char *type_kind_name(enum ir_type_kind k)
{
	static const char *const names[IR_TYPE_COUNT] = {
		"Any", "Tensor", "int", "float", "bool", "str", "NoneType",
		"Device", "list", "tuple", "optional", "Dict", "class",
	};
	return (unsigned)k < IR_TYPE_COUNT ? names[k] : "unknown";
}

/* ONNX wants the main graph's inputs and outputs fully typed: warns where
 * the IR does not know the type, refuses types ONNX has not. */
static int check_io_type(struct writer *w, const char *what, const char *name,
			 const struct ir_type *t)
{
	switch (t->kind) {
	case IR_TYPE_TENSOR:
		if (t->rank < 0 || t->dtype == IR_DTYPE_UNDEFINED)
			diag_warning(w->d, "graph %s '%s' has no known %s: "
				     "ONNX checkers will reject the model",
				     what, name, t->rank < 0 ? "shape"
							     : "element type");
		return 0;
	case IR_TYPE_LIST:
	case IR_TYPE_OPTIONAL:
		return 0;
	case IR_TYPE_UNKNOWN:
		diag_warning(w->d, "graph %s '%s' has no known type: ONNX "
			     "checkers will reject the model", what, name);
		return 0;
	default:
		diag_error(w->d, "graph %s '%s' is of type %s, which ONNX "
			   "cannot express (run lower)", what, name,
			   type_kind_name(t->kind));
		return fail(w, EXIT_UNSUPPORTED);
	}
}

static int plan_io_types(struct writer *w)
{
	const struct ir_block *top = w->g->top;
	const struct ret_plan *rp = ptrmap_get(&w->rets, top);
	int bad = 0;

	for (uint32_t i = 0; i < top->nparams; i++)
		if (check_io_type(w, "input", vname(w, top->params[i]),
				  top->params[i]->type))
			bad = -1;
	for (uint32_t i = 0; i < top->nreturns; i++)
		if (check_io_type(w, "output", rp[i].name,
				  top->returns[i]->type))
			bad = -1;
	return bad;
}

/* export_modules_as_functions (onnx_functions.c): the instances, their
 * call nodes' names (torch's "/b1/Block") and their domains' imports. */
static int plan_functions(struct writer *w)
{
	if (!w->o->nfunction_types)
		return 0;
	if (w->opset < 15) {
		diag_error(w->d, "--export-modules-as-functions needs opset 15 "
			   "or later (local functions), not %lld",
			   (long long)w->opset);
		return fail(w, EXIT_USAGE);
	}
	int rc = onnx_fn_plan(w->g, w->o->function_types,
			      w->o->nfunction_types, &w->fp, w->d);
	if (rc)
		return fail(w, rc);
	w->fn_names = arena_alloc(&w->arena, sizeof(*w->fn_names) *
					     (w->fp.ninst + 1));
	for (uint32_t i = 0; i < w->fp.ninst; i++) {
		const struct onnx_fn_instance *x = &w->fp.inst[i];
		w->fn_names[i] = unique_node_name(w, afmt(&w->arena, "%s/%s",
			scope_path(w, x->scope), w->fp.inst[x->fn].fname));
		add_opset_import(w, x->domain, 1);
	}
	return 0;
}

static int plan(struct writer *w)
{
	const struct ir_graph *g = w->g;

	if (g->level != IR_LEVEL_ONNX) {
		diag_error(w->d, "aten-level IR: run lower first");
		return fail(w, EXIT_UNSUPPORTED);
	}
	if (plan_opsets(w))
		return -1;
	w->keep_inits = w->o->keep_initializers_as_inputs || w->opset < 9;
	w->hoist = w->ir_version <= 3;
	int bad = plan_block(w, g->top, 1);
	for (uint32_t i = 0; i < w->o->ncustom_opsets; i++)
		add_opset_import(w, w->o->custom_opsets[i].domain,
				 w->o->custom_opsets[i].version);
	if (bad)
		return -1;
	if (w->o->noutput_names > g->top->nreturns) {
		diag_error(w->d, "%u output names given for %u outputs",
			   w->o->noutput_names, g->top->nreturns);
		return fail(w, EXIT_USAGE);
	}
	if (plan_input_names(w))
		return -1;
	if (plan_returns(w, g->top, w->o->output_names, w->o->noutput_names) ||
	    plan_sub_returns(w, g->top))
		return -1;
	name_identities(w, g->top);
	if (plan_io_types(w) || plan_functions(w))
		return -1;
	return plan_dynamic_axes(w);
}

/* --- build: types --------------------------------------------------------- */

static Onnx__TypeProto *type_proto(struct writer *w, const struct ir_type *t,
				   const char *io_name, int shape);

static const char *symbol(const struct writer *w, const char *sym)
{
	for (uint32_t k = 0; k < w->nsyms; k++)
		if (!strcmp(w->sym_from[k], sym))
			return w->sym_to[k];
	return sym;
}

static Onnx__TypeProto *tensor_type_proto(struct writer *w,
					  const struct ir_type *t,
					  const char *io_name, int shape)
{
	struct arena *a = &w->build;
	Onnx__TypeProto *tp = arena_alloc(a, sizeof(*tp));
	Onnx__TypeProto__Tensor *tt = arena_alloc(a, sizeof(*tt));

	onnx__type_proto__init(tp);
	onnx__type_proto__tensor__init(tt);
	tp->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
	tp->tensor_type = tt;
	if (t->dtype != IR_DTYPE_UNDEFINED) {
		tt->has_elem_type = 1;
		tt->elem_type = (int32_t)t->dtype;
	}
	if (t->rank < 0 || !shape)
		return tp;
	Onnx__TensorShapeProto *sh = arena_alloc(a, sizeof(*sh));
	onnx__tensor_shape_proto__init(sh);
	tt->shape = sh;
	sh->n_dim = (size_t)t->rank;
	sh->dim = arena_alloc(a, sizeof(*sh->dim) * (size_t)(t->rank + 1));
	for (int i = 0; i < t->rank; i++) {
		Onnx__TensorShapeProto__Dimension *dm =
			arena_alloc(a, sizeof(*dm));
		onnx__tensor_shape_proto__dimension__init(dm);
		sh->dim[i] = dm;
		if (io_name) {
			const struct onnx_dyn_axis *ax = NULL;
			for (uint32_t k = 0; k < w->o->ndyn_axes; k++)
				if (w->o->dyn_axes[k].axis == i &&
				    !strcmp(w->o->dyn_axes[k].value, io_name))
					ax = &w->o->dyn_axes[k];
			if (ax) {
				dm->value_case =
					ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
				dm->dim_param = ax->name
					? ax->name
					: afmt(a, "%s_dynamic_axes_%u", io_name,
					       ax->index + 1);
				continue;
			}
		}
		switch (t->dims[i].kind) {
		case IR_DIM_FIXED:
			if (shape == 2)
				break; /* maybe the example's size: unknown */
			dm->value_case =
				ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
			dm->dim_value = t->dims[i].value;
			break;
		case IR_DIM_SYMBOL:
			dm->value_case =
				ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
			dm->dim_param = (char *)symbol(w, t->dims[i].symbol);
			break;
		default:
			break; /* an empty Dimension: unknown */
		}
	}
	return tp;
}

/* t as a TypeProto (dynamic axes applied when io_name is a main graph
 * input or output; shapes left out unless `shape`), or NULL when ONNX has
 * no such type. */
static Onnx__TypeProto *type_proto(struct writer *w, const struct ir_type *t,
				   const char *io_name, int shape)
{
	struct arena *a = &w->build;
	Onnx__TypeProto *tp, *elem = NULL;

	switch (t->kind) {
	case IR_TYPE_TENSOR:
		return tensor_type_proto(w, t, io_name, shape);
	case IR_TYPE_LIST:
	case IR_TYPE_OPTIONAL:
		if (t->nelems) {
			elem = type_proto(w, t->elems[0], NULL, shape);
			if (!elem)
				return NULL;
		}
		tp = arena_alloc(a, sizeof(*tp));
		onnx__type_proto__init(tp);
		if (t->kind == IR_TYPE_LIST) {
			Onnx__TypeProto__Sequence *s = arena_alloc(a, sizeof(*s));
			onnx__type_proto__sequence__init(s);
			s->elem_type = elem;
			tp->value_case = ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE;
			tp->sequence_type = s;
		} else {
			Onnx__TypeProto__Optional *s = arena_alloc(a, sizeof(*s));
			onnx__type_proto__optional__init(s);
			s->elem_type = elem;
			tp->value_case = ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE;
			tp->optional_type = s;
		}
		return tp;
	default:
		return NULL;
	}
}

/* A ValueInfoProto; main: a main graph input or output (dynamic axes
 * apply); shape: 0 no shapes, 1 shapes, 2 shapes with the fixed dims left
 * unknown (outputs computed for a size a dynamic axis replaced). */
static Onnx__ValueInfoProto *value_info(struct writer *w, const char *name,
					const struct ir_type *t, int main,
					int shape)
{
	Onnx__ValueInfoProto *vi = arena_alloc(&w->build, sizeof(*vi));
	onnx__value_info_proto__init(vi);
	vi->name = (char *)name;
	vi->type = type_proto(w, t, main ? name : NULL, shape);
	return vi;
}

/* Whether v's type is worth a value_info (ONNX can express it and it says
 * something). */
static int has_known_type(const struct ir_type *t)
{
	switch (t->kind) {
	case IR_TYPE_TENSOR:
		return t->dtype != IR_DTYPE_UNDEFINED;
	case IR_TYPE_LIST:
	case IR_TYPE_OPTIONAL:
		return t->nelems && has_known_type(t->elems[0]);
	default:
		return 0;
	}
}

/* --- build: tensors ------------------------------------------------------- */

static int64_t *dims64(struct writer *w, const struct ir_tensor *t)
{
	int64_t *d = arena_alloc(&w->build, sizeof(*d) * (size_t)(t->rank + 1));
	if (t->rank > 0)
		memcpy(d, t->dims, sizeof(*d) * (size_t)t->rank);
	return d;
}

static const char *doc(const struct writer *w, const char *s)
{
	return w->o->strip_doc_string || !s || !*s ? NULL : s;
}

static Onnx__StringStringEntryProto *entry(struct writer *w, const char *k,
					   const char *v)
{
	Onnx__StringStringEntryProto *e = arena_alloc(&w->build, sizeof(*e));
	onnx__string_string_entry_proto__init(e);
	e->key = (char *)k;
	e->value = (char *)v;
	return e;
}

/* A TensorProto as field `field`: metadata packed, raw_data streamed, or
 * its place in the external data file. */
static struct pb_piece *tensor_piece(struct writer *w, uint32_t field,
				     const struct ir_tensor *t,
				     const char *name, const char *what,
				     int may_external)
{
	struct arena *a = &w->build;
	struct pb_piece *msg = pb_msg(a, field);
	Onnx__TensorProto tp, tail;
	uint64_t size = tensor_data_size(t);

	onnx__tensor_proto__init(&tp);
	onnx__tensor_proto__init(&tail);
	tp.n_dims = (size_t)t->rank;
	tp.dims = dims64(w, t);
	tp.has_data_type = 1;
	tp.data_type = (int32_t)t->dtype;
	tp.name = (char *)name;
	if (t->dtype == IR_DTYPE_STRING) {
		uint64_t n = ir_tensor_numel(t);
		tp.n_string_data = (size_t)n;
		tp.string_data = arena_alloc(a, sizeof(*tp.string_data) *
						       (size_t)(n + 1));
		for (uint64_t i = 0; i < n; i++) {
			tp.string_data[i].data = (uint8_t *)t->strings[i].data;
			tp.string_data[i].len = t->strings[i].len;
		}
		tp.doc_string = (char *)doc(w, t->doc);
		pb_append(msg, pb_packed(a, 0, &tp.base));
		return msg;
	}
	if (may_external && w->external && size >= EXTERNAL_MIN_BYTES) {
		uint64_t align = size >= EXTERNAL_BIG_BYTES ? EXTERNAL_BIG_ALIGN
							   : EXTERNAL_ALIGN;
		uint64_t off = (w->ext_end + align - 1) / align * align;
		if (w->next == w->capext) {
			uint32_t cap = w->capext ? w->capext * 2 : 64;
			struct ext_tensor *n = arena_alloc(a, sizeof(*n) * cap);
			if (w->next)
				memcpy(n, w->ext, sizeof(*n) * w->next);
			w->ext = n;
			w->capext = cap;
		}
		w->ext[w->next++] = (struct ext_tensor){ t, what, off, size };
		w->ext_end = off + size;
		tp.doc_string = (char *)doc(w, t->doc);
		tp.n_external_data = 3;
		tp.external_data = arena_alloc(a, sizeof(*tp.external_data) * 3);
		tp.external_data[0] = entry(w, "location", w->ext_location);
		tp.external_data[1] = entry(w, "offset",
					    afmt(a, "%llu", (unsigned long long)off));
		tp.external_data[2] = entry(w, "length",
					    afmt(a, "%llu", (unsigned long long)size));
		tp.has_data_location = 1;
		tp.data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
		pb_append(msg, pb_packed(a, 0, &tp.base));
		return msg;
	}
	/* fields 1-8, raw_data (9) streamed, then doc_string (12) */
	pb_append(msg, pb_packed(a, 0, &tp.base));
	if (size)
		pb_append(msg, pb_data(a, 9, t, what));
	tail.doc_string = (char *)doc(w, t->doc);
	if (tail.doc_string)
		pb_append(msg, pb_packed(a, 0, &tail.base));
	return msg;
}

/* --- build: nodes and graphs ---------------------------------------------- */

static struct pb_piece *graph_piece(struct writer *w, uint32_t field,
				    const struct ir_block *b, const char *name);

static int attr_is_simple(const struct ir_attr *a)
{
	return a->kind == IR_ATTR_INT || a->kind == IR_ATTR_FLOAT ||
	       a->kind == IR_ATTR_STRING || a->kind == IR_ATTR_INTS ||
	       a->kind == IR_ATTR_FLOATS || a->kind == IR_ATTR_STRINGS;
}

static const Onnx__AttributeProto__AttributeType attr_type[IR_ATTR_COUNT] = {
	[IR_ATTR_INT] = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT,
	[IR_ATTR_FLOAT] = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT,
	[IR_ATTR_STRING] = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING,
	[IR_ATTR_TENSOR] = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR,
	[IR_ATTR_GRAPH] = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH,
	[IR_ATTR_INTS] = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS,
	[IR_ATTR_FLOATS] = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS,
	[IR_ATTR_STRINGS] = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS,
	[IR_ATTR_TENSORS] = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSORS,
	[IR_ATTR_GRAPHS] = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPHS,
};

/* An attribute of a kind protobuf-c packs whole. */
static void fill_simple_attr(struct writer *w, Onnx__AttributeProto *ap,
			     const struct ir_attr *a)
{
	struct arena *ar = &w->build;
	switch (a->kind) {
	case IR_ATTR_INT:
		ap->has_i = 1;
		ap->i = a->u.i;
		break;
	case IR_ATTR_FLOAT:
		ap->has_f = 1;
		ap->f = (float)a->u.f;
		break;
	case IR_ATTR_STRING:
		ap->has_s = 1;
		ap->s.data = (uint8_t *)a->u.s.data;
		ap->s.len = a->u.s.len;
		break;
	case IR_ATTR_INTS:
		ap->n_ints = a->count;
		ap->ints = a->u.ints;
		break;
	case IR_ATTR_FLOATS:
		ap->n_floats = a->count;
		ap->floats = arena_alloc(ar, sizeof(float) * (a->count + 1));
		for (uint32_t i = 0; i < a->count; i++)
			ap->floats[i] = (float)a->u.floats[i];
		break;
	case IR_ATTR_STRINGS:
		ap->n_strings = a->count;
		ap->strings = arena_alloc(ar, sizeof(*ap->strings) *
							(a->count + 1));
		for (uint32_t i = 0; i < a->count; i++) {
			ap->strings[i].data = (uint8_t *)a->u.strings[i].data;
			ap->strings[i].len = a->u.strings[i].len;
		}
		break;
	default:
		break;
	}
}

static struct pb_piece *attr_piece(struct writer *w, const struct ir_node *n,
				   const struct ir_attr *a)
{
	struct arena *ar = &w->build;
	Onnx__AttributeProto ap, tail;
	const char *nn = ptrmap_get(&w->node_names, n);

	onnx__attribute_proto__init(&ap);
	ap.name = (char *)a->name;
	if (attr_is_simple(a)) {
		fill_simple_attr(w, &ap, a);
		ap.has_type = 1;
		ap.type = attr_type[a->kind];
		return pb_packed(ar, 5, &ap.base);
	}
	/* name (1), the value (5 t, 6 g, 10 tensors, 11 graphs), type (20) */
	struct pb_piece *msg = pb_msg(ar, 5);
	pb_append(msg, pb_packed(ar, 0, &ap.base));
	const char *what = afmt(ar, "tensor attribute '%s' of node '%s'",
				a->name, nn);
	switch (a->kind) {
	case IR_ATTR_TENSOR:
		pb_append(msg, tensor_piece(w, 5, a->u.t, NULL, what, 0));
		break;
	case IR_ATTR_TENSORS:
		for (uint32_t i = 0; i < a->count; i++)
			pb_append(msg, tensor_piece(w, 10, a->u.tensors[i], NULL,
						    what, 0));
		break;
	case IR_ATTR_GRAPH:
		pb_append(msg, graph_piece(w, 6, a->u.g, NULL));
		break;
	case IR_ATTR_GRAPHS:
		for (uint32_t i = 0; i < a->count; i++)
			pb_append(msg, graph_piece(w, 11, a->u.graphs[i], NULL));
		break;
	default:
		BUG("attribute kind %d reached the build", (int)a->kind);
	}
	onnx__attribute_proto__init(&tail);
	tail.has_type = 1;
	tail.type = attr_type[a->kind];
	pb_append(msg, pb_packed(ar, 0, &tail.base));
	return msg;
}

static struct pb_piece *node_piece_as(struct writer *w,
				      const struct ir_node *n, uint32_t field);

static struct pb_piece *node_piece(struct writer *w, const struct ir_node *n)
{
	return node_piece_as(w, n, 1);
}

/* NodeProto of n as field `field` (1 in a graph, 7 in a function). */
static struct pb_piece *node_piece_as(struct writer *w,
				      const struct ir_node *n, uint32_t field)
{
	struct arena *a = &w->build;
	Onnx__NodeProto np, tail;
	uint32_t nin = n->ninputs;

	while (nin && !n->inputs[nin - 1])
		nin--; /* trailing absent optional inputs are left out */
	onnx__node_proto__init(&np);
	np.n_input = nin;
	np.input = arena_alloc(a, sizeof(char *) * (nin + 1));
	for (uint32_t i = 0; i < nin; i++)
		np.input[i] = n->inputs[i] ? (char *)vname(w, n->inputs[i]) : "";
	np.n_output = n->noutputs;
	np.output = arena_alloc(a, sizeof(char *) * (n->noutputs + 1));
	for (uint32_t i = 0; i < n->noutputs; i++)
		np.output[i] = n->outputs[i] ? (char *)vname(w, n->outputs[i])
					     : "";
	np.name = (char *)ptrmap_get(&w->node_names, n);
	np.op_type = (char *)node_op(n);

	onnx__node_proto__init(&tail);
	tail.doc_string = (char *)doc(w, n->doc ? n->doc : n->source);
	const char *dom = node_domain(w, n);
	tail.domain = *dom ? (char *)dom : NULL;

	int simple = 1;
	for (uint32_t i = 0; i < n->nattrs; i++)
		simple &= attr_is_simple(&n->attrs[i]);
	if (simple) {
		np.n_attribute = n->nattrs;
		np.attribute = arena_alloc(a, sizeof(*np.attribute) *
							(n->nattrs + 1));
		for (uint32_t i = 0; i < n->nattrs; i++) {
			Onnx__AttributeProto *ap = arena_alloc(a, sizeof(*ap));
			onnx__attribute_proto__init(ap);
			ap->name = (char *)n->attrs[i].name;
			fill_simple_attr(w, ap, &n->attrs[i]);
			ap->has_type = 1;
			ap->type = attr_type[n->attrs[i].kind];
			np.attribute[i] = ap;
		}
		np.doc_string = tail.doc_string;
		np.domain = tail.domain;
		return pb_packed(a, field, &np.base);
	}
	/* input, output, name, op_type (1-4); attributes (5); doc, domain */
	struct pb_piece *msg = pb_msg(a, field);
	pb_append(msg, pb_packed(a, 0, &np.base));
	for (uint32_t i = 0; i < n->nattrs; i++)
		pb_append(msg, attr_piece(w, n, &n->attrs[i]));
	pb_append(msg, pb_packed(a, 0, &tail.base));
	return msg;
}

static struct pb_piece *identity_piece(struct writer *w, const char *in,
				       const char *out, const char *name)
{
	Onnx__NodeProto np;
	onnx__node_proto__init(&np);
	char **io = arena_alloc(&w->build, sizeof(char *) * 2);
	io[0] = (char *)in;
	io[1] = (char *)out;
	np.n_input = 1;
	np.input = io;
	np.n_output = 1;
	np.output = io + 1;
	np.name = (char *)name;
	np.op_type = "Identity";
	return pb_packed(&w->build, 1, &np.base);
}

static char **value_names(struct writer *w, const struct ir_value *const *v,
			  uint32_t n)
{
	char **out = arena_alloc(&w->build, sizeof(char *) * (n + 1));
	for (uint32_t i = 0; i < n; i++)
		out[i] = (char *)vname(w, v[i]);
	return out;
}

/* The node (field `field`) that calls instance x's function. */
static struct pb_piece *call_piece(struct writer *w,
				   const struct onnx_fn_instance *x,
				   uint32_t field)
{
	Onnx__NodeProto np;
	onnx__node_proto__init(&np);
	np.n_input = x->nins;
	np.input = value_names(w, x->ins, x->nins);
	np.n_output = x->nouts;
	np.output = value_names(w, x->outs, x->nouts);
	np.name = (char *)w->fn_names[x - w->fp.inst];
	np.op_type = w->fp.inst[x->fn].fname;
	np.domain = x->domain;
	return pb_packed(&w->build, field, &np.base);
}

/* FunctionProto (ModelProto field 25) of the instance x whose items are
 * its type's body (nodes, calls of nested functions): its inputs and
 * outputs under their graph names, the model's opset imports. */
static struct pb_piece *function_piece(struct writer *w,
				       const struct onnx_fn_instance *x)
{
	struct pb_piece *msg = pb_msg(&w->build, 25);
	Onnx__FunctionProto fp;
	onnx__function_proto__init(&fp);
	fp.name = x->fname;
	fp.domain = x->domain;
	fp.n_input = x->nins;
	fp.input = value_names(w, x->ins, x->nins);
	fp.n_output = x->nouts;
	fp.output = value_names(w, x->outs, x->nouts);
	fp.n_opset_import = w->nopsets;
	fp.opset_import = w->opsets;
	pb_append(msg, pb_packed(&w->build, 0, &fp.base));
	for (uint32_t i = 0; i < x->nitems; i++)
		pb_append(msg, x->items[i].n
			  ? node_piece_as(w, x->items[i].n, 7)
			  : call_piece(w, &w->fp.inst[x->items[i].call], 7));
	return msg;
}

/* Value infos for the node outputs of b that are not its outputs. */
static void collect_value_info(struct writer *w, const struct ir_block *b,
			       Onnx__ValueInfoProto ***out, size_t *n)
{
	size_t cap = 0;
	for (const struct ir_node *nd = b->first; nd; nd = nd->next)
		cap += nd->noutputs;
	*out = arena_alloc(&w->build, sizeof(**out) * (cap + 1));
	*n = 0;
	for (const struct ir_node *nd = b->first; nd; nd = nd->next) {
		for (uint32_t i = 0; i < nd->noutputs; i++) {
			const struct ir_value *v = nd->outputs[i];
			if (!v || ptrmap_get(&w->direct, v) ||
			    !has_known_type(v->type) ||
			    (b == w->g->top && w->fp.ninst &&
			     onnx_fn_hidden(&w->fp, v)))
				continue;
			/* shapes computed for a size now dynamic are
			   stale: the runtime infers them again */
			(*out)[(*n)++] = value_info(w, vname(w, v), v->type, 0,
						    !w->relaxed);
		}
	}
}

static void add_vi(struct writer *w, Onnx__ValueInfoProto ***arr, size_t *n,
		   size_t *cap, Onnx__ValueInfoProto *vi)
{
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 16;
		Onnx__ValueInfoProto **na = arena_alloc(&w->build,
							sizeof(*na) * nc);
		if (*n)
			memcpy(na, *arr, sizeof(*na) * *n);
		*arr = na;
		*cap = nc;
	}
	(*arr)[(*n)++] = vi;
}

/* GraphProto of block b as field `field`.  Subgraphs without a name are
 * named as torch's export.cpp does: sub_graph, sub_graph1, ... in the
 * order they are written. */
static struct pb_piece *graph_piece(struct writer *w, uint32_t field,
				    const struct ir_block *b, const char *name)
{
	struct arena *a = &w->build;
	const struct ir_graph *g = w->g;
	int main = b == g->top;

	if (!main) {
		uint32_t k = w->nsub++;
		name = b->name && *b->name ? b->name
		     : k ? afmt(a, "sub_graph%u", k) : "sub_graph";
	}
	const struct ret_plan *rp = ptrmap_get(&w->rets, b);
	struct pb_piece *msg = pb_msg(a, field);
	Onnx__GraphProto head, tail;
	size_t cap = 0;

	/* nodes (1), a module function's call where its last node was,
	 * then the Identity nodes for the outputs */
	for (const struct ir_node *n = b->first; n; n = n->next) {
		const struct onnx_fn_instance *x = main && w->fp.ninst
			? onnx_fn_top(&w->fp, n) : NULL;
		if (x) {
			if (n == x->last)
				pb_append(msg, call_piece(w, x, 1));
		} else if (!(main && w->fp.ndropped &&
			     onnx_fn_dropped(&w->fp, n))) {
			pb_append(msg, node_piece(w, n));
		}
	}
	for (uint32_t i = 0; i < b->nreturns; i++)
		if (rp[i].node_name)
			pb_append(msg, identity_piece(w, vname(w, b->returns[i]),
						      rp[i].name,
						      rp[i].node_name));
	/* name (2) */
	onnx__graph_proto__init(&head);
	head.name = (char *)name;
	pb_append(msg, pb_packed(a, 0, &head.base));

	/* initializers (5) */
	onnx__graph_proto__init(&tail);
	if (main) {
		if (w->o->export_params) {
			for (const struct ir_weight *wt = g->weights; wt; wt = wt->next)
				pb_append(msg, tensor_piece(
					w, 5, wt->tensor, vname(w, wt->value),
					afmt(a, "weight '%s'", wt->value->name), 1));
		}
		for (uint32_t i = 0; i < w->nhoisted; i++) {
			const struct ir_weight *wt = w->hoisted[i];
			pb_append(msg, tensor_piece(w, 5, wt->tensor,
				vname(w, wt->value),
				afmt(a, "weight '%s'", wt->value->name), 1));
		}
	} else if (!w->hoist) {
		for (const struct ir_weight *wt = b->weights; wt; wt = wt->next)
			pb_append(msg, tensor_piece(w, 5, wt->tensor,
				vname(w, wt->value),
				afmt(a, "weight '%s'", wt->value->name), 1));
	}

	/* doc (10), inputs (11), outputs (12), value_info (13) */
	tail.doc_string = main ? (char *)doc(w, g->doc) : NULL;
	for (uint32_t i = 0; i < b->nparams; i++)
		add_vi(w, &tail.input, &tail.n_input, &cap,
		       value_info(w, vname(w, b->params[i]), b->params[i]->type,
				  main, main || !w->relaxed));
	if (main && (!w->o->export_params || w->keep_inits)) {
		for (const struct ir_weight *wt = g->weights; wt; wt = wt->next)
			add_vi(w, &tail.input, &tail.n_input, &cap,
			       value_info(w, vname(w, wt->value),
					  wt->value->type, 1, 1));
		for (uint32_t i = 0; i < w->nhoisted; i++)
			add_vi(w, &tail.input, &tail.n_input, &cap,
			       value_info(w, vname(w, w->hoisted[i]->value),
					  w->hoisted[i]->value->type, 1, 1));
	}
	tail.n_output = b->nreturns;
	tail.output = arena_alloc(a, sizeof(*tail.output) * (b->nreturns + 1));
	for (uint32_t i = 0; i < b->nreturns; i++)
		tail.output[i] = value_info(w, rp[i].name, b->returns[i]->type,
					    main, !w->relaxed ? 1 : main ? 2 : 0);
	collect_value_info(w, b, &tail.value_info, &tail.n_value_info);
	pb_append(msg, pb_packed(a, 0, &tail.base));
	return msg;
}

static struct pb_piece *model_piece(struct writer *w)
{
	struct arena *a = &w->build;
	const struct ir_graph *g = w->g;
	struct pb_piece *msg = pb_msg(a, 0);
	Onnx__ModelProto head, tail;

	/* ir_version (1), producer (2, 3); graph (7); opsets (8), props (14) */
	onnx__model_proto__init(&head);
	head.has_ir_version = 1;
	head.ir_version = w->ir_version;
	head.producer_name = w->o->producer_name ? w->o->producer_name
						 : "pt2onnx";
	head.producer_version = w->o->producer_version
		? w->o->producer_version : PT2ONNX_VERSION;
	pb_append(msg, pb_packed(a, 0, &head.base));
	pb_append(msg, graph_piece(w, 7, g->top, g->name && *g->name
						  ? g->name : "main_graph"));
	onnx__model_proto__init(&tail);
	tail.n_opset_import = w->nopsets;
	tail.opset_import = w->opsets;
	tail.n_metadata_props = g->nprops;
	tail.metadata_props = arena_alloc(a, sizeof(*tail.metadata_props) *
						     (g->nprops + 1));
	for (uint32_t i = 0; i < g->nprops; i++)
		tail.metadata_props[i] = entry(w, g->props[i].key,
					       g->props[i].value);
	pb_append(msg, pb_packed(a, 0, &tail.base));
	for (uint32_t i = 0; i < w->fp.ninst; i++)
		if (w->fp.inst[i].body)
			pb_append(msg, function_piece(w, &w->fp.inst[i]));
	return msg;
}

/* --- writing -------------------------------------------------------------- */

/* Checks an external data location: relative, no "..", a file name. */
static int bad_location(const char *loc)
{
	if (!*loc || loc[0] == '/' || loc[strlen(loc) - 1] == '/')
		return 1;
	for (const char *p = loc; *p;) {
		const char *e = strchr(p, '/');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if ((len == 2 && !memcmp(p, "..", 2)) ||
		    (len == 1 && *p == '.') || !len)
			return 1;
		p = e ? e + 1 : p + len;
	}
	return 0;
}

static int plan_external(struct writer *w, const char *path)
{
	const char *slash = strrchr(path, '/');
	size_t dirlen = slash ? (size_t)(slash - path + 1) : 0;

	if (!strcmp(path, "-")) {
		diag_error(w->d, "external data needs the model in a file "
			   "(-o FILE), not standard output");
		return fail(w, EXIT_USAGE);
	}
	if (w->o->external_data_file) {
		if (bad_location(w->o->external_data_file)) {
			diag_error(w->d, "external data file '%s' must be a "
				   "relative path without '..' (it is "
				   "relative to the model's directory)",
				   w->o->external_data_file);
			return fail(w, EXIT_USAGE);
		}
		w->ext_location = w->o->external_data_file;
	} else {
		w->ext_location = afmt(&w->arena, "%s.data", path + dirlen);
	}
	w->ext_path = xmalloc(dirlen + strlen(w->ext_location) + 1);
	memcpy(w->ext_path, path, dirlen);
	memcpy(w->ext_path + dirlen, w->ext_location,
	       strlen(w->ext_location) + 1);
	if (!strcmp(w->ext_path, path)) {
		diag_error(w->d, "external data file '%s' is the model itself",
			   w->ext_path);
		return fail(w, EXIT_USAGE);
	}
	return 0;
}

/* Builds the piece tree; returns the model's size. */
static struct pb_piece *build(struct writer *w, uint64_t *size)
{
	arena_release(&w->build);
	w->ext = NULL;
	w->next = w->capext = 0;
	w->ext_end = 0;
	w->nsub = 0;
	struct pb_piece *m = model_piece(w);
	*size = pb_measure(m);
	return m;
}

static int write_external(struct writer *w, struct tensor_reader *r,
			  struct outfile *out)
{
	static const unsigned char zeros[4096];
	uint64_t pos = 0;
	int rc;

	for (uint32_t i = 0; i < w->next; i++) {
		const struct ext_tensor *e = &w->ext[i];
		while (pos < e->offset) {
			uint64_t n = e->offset - pos;
			if (n > sizeof(zeros))
				n = sizeof(zeros);
			if (outfile_write(out, zeros, (size_t)n, w->d))
				return EXIT_IO;
			pos += n;
		}
		if ((rc = tensor_data_copy(r, e->t, e->what, out, w->d)))
			return rc;
		pos += e->size;
	}
	return 0;
}

/* Writes the data file (if any) and the model, then makes both appear.
 * Messages name the output file, not the IR being read. */
static int write_files(struct writer *w, struct pb_piece *model,
		       const char *path)
{
	struct outfile mo, so;
	struct tensor_reader r;
	int rc = 0, have_side = 0, have_model = 0;
	const char *file = w->d->file;

	w->d->file = NULL;
	tensor_reader_init(&r);
	if (w->external && w->next) { /* no data file when nothing is in it */
		if (outfile_open(&so, w->ext_path, w->d)) {
			rc = EXIT_IO;
			goto out;
		}
		have_side = 1;
		if ((rc = write_external(w, &r, &so)))
			goto out;
	}
	if (outfile_open(&mo, path, w->d)) {
		rc = EXIT_IO;
		goto out;
	}
	have_model = 1;
	if ((rc = pb_write(model, &r, &mo, w->d)))
		goto out;
	if (have_side && outfile_commit(&so, w->d)) {
		rc = EXIT_IO;
		goto out;
	}
	if (outfile_commit(&mo, w->d)) {
		rc = EXIT_IO;
		if (have_side)
			unlink(w->ext_path); /* committed, now orphaned */
	}
out:
	if (rc && have_model)
		outfile_abort(&mo);
	if (rc && have_side)
		outfile_abort(&so);
	tensor_reader_release(&r);
	w->d->file = file;
	return rc;
}

int onnx_write_model(const struct ir_graph *g,
		     const struct onnx_write_options *o, const char *path,
		     struct diag *d)
{
	struct writer w;
	struct pb_piece *model;
	uint64_t size;

	memset(&w, 0, sizeof(w));
	w.g = g;
	w.o = o;
	w.d = d;
	w.external = 0;
	if (plan(&w))
		goto done;
	if (o->external_data) {
		if (plan_external(&w, path))
			goto done;
		w.external = 1;
	}
	model = build(&w, &size);
	if (!w.external && size > o->max_model_size) {
		if (!strcmp(path, "-")) {
			diag_error(d, "the model would be %llu bytes, over "
				   "protobuf's 2 GB limit: write it to a file "
				   "(-o FILE) so its weights can go to "
				   "external data", (unsigned long long)size);
			fail(&w, EXIT_UNSUPPORTED);
			goto done;
		}
		if (plan_external(&w, path))
			goto done;
		diag_warning(d, "the model would be %llu bytes, over the "
			     "%llu-byte limit: weights go to '%s'",
			     (unsigned long long)size,
			     (unsigned long long)o->max_model_size,
			     w.ext_location);
		w.external = 1;
		model = build(&w, &size);
	}
	if (size > o->max_model_size) {
		diag_error(d, "the model is %llu bytes even with its weights "
			   "in external data, over the %llu-byte limit",
			   (unsigned long long)size,
			   (unsigned long long)o->max_model_size);
		fail(&w, EXIT_UNSUPPORTED);
		goto done;
	}
	w.rc = write_files(&w, model, path);
done:
	arena_release(&w.build);
	arena_release(&w.arena);
	ptrmap_release(&w.names);
	ptrmap_release(&w.node_names);
	ptrmap_release(&w.def_block);
	ptrmap_release(&w.rets);
	ptrmap_release(&w.direct);
	strset_release(&w.used);
	strset_release(&w.node_used);
	strmap_release(&w.next_sfx);
	strmap_release(&w.node_sfx);
	onnx_fn_plan_release(&w.fp);
	tensor_allow_release(&w.allow);
	free(w.ext_path);
	free(w.sym_from);
	free(w.sym_to);
	return w.rc;
}

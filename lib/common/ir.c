/*
 * ir.c - building and querying the in-memory IR (see ir.h).
 *
 * Values are found by name through an open-addressing hash table kept
 * beside the arena (it is the one structure that grows and is freed on its
 * own).  Everything else is bump-allocated.
 */
#include "ir.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *torch, *onnx;
	size_t size;
} dtype_info[IR_DTYPE_COUNT] = {
	[IR_DTYPE_UNDEFINED] = { "Tensor", "undefined", 0 },
	[IR_DTYPE_FLOAT] = { "Float", "float", 4 },
	[IR_DTYPE_UINT8] = { "Byte", "uint8", 1 },
	[IR_DTYPE_INT8] = { "Char", "int8", 1 },
	[IR_DTYPE_UINT16] = { "UInt16", "uint16", 2 },
	[IR_DTYPE_INT16] = { "Short", "int16", 2 },
	[IR_DTYPE_INT32] = { "Int", "int32", 4 },
	[IR_DTYPE_INT64] = { "Long", "int64", 8 },
	[IR_DTYPE_STRING] = { "String", "string", 0 },
	[IR_DTYPE_BOOL] = { "Bool", "bool", 1 },
	[IR_DTYPE_FLOAT16] = { "Half", "float16", 2 },
	[IR_DTYPE_DOUBLE] = { "Double", "double", 8 },
	[IR_DTYPE_UINT32] = { "UInt32", "uint32", 4 },
	[IR_DTYPE_UINT64] = { "UInt64", "uint64", 8 },
	[IR_DTYPE_COMPLEX64] = { "ComplexFloat", "complex64", 8 },
	[IR_DTYPE_COMPLEX128] = { "ComplexDouble", "complex128", 16 },
	[IR_DTYPE_BFLOAT16] = { "BFloat16", "bfloat16", 2 },
};

size_t ir_dtype_size(enum ir_dtype dt)
{
	return (unsigned)dt < IR_DTYPE_COUNT ? dtype_info[dt].size : 0;
}

const char *ir_dtype_torch_name(enum ir_dtype dt)
{
	return (unsigned)dt < IR_DTYPE_COUNT ? dtype_info[dt].torch : "Tensor";
}

const char *ir_dtype_onnx_name(enum ir_dtype dt)
{
	return (unsigned)dt < IR_DTYPE_COUNT ? dtype_info[dt].onnx
					     : "undefined";
}

/* The one table of --input's short names and .npy's type codes (without
 * the byte-order character); bf16 has no .npy form. */
static const struct {
	const char *name, *npy;
	enum ir_dtype dt;
} spec_dtypes[] = {
	{ "f32", "f4", IR_DTYPE_FLOAT }, { "f64", "f8", IR_DTYPE_DOUBLE },
	{ "f16", "f2", IR_DTYPE_FLOAT16 }, { "bf16", NULL, IR_DTYPE_BFLOAT16 },
	{ "i64", "i8", IR_DTYPE_INT64 }, { "i32", "i4", IR_DTYPE_INT32 },
	{ "i16", "i2", IR_DTYPE_INT16 }, { "i8", "i1", IR_DTYPE_INT8 },
	{ "u8", "u1", IR_DTYPE_UINT8 }, { "bool", "b1", IR_DTYPE_BOOL },
};
#define NSPEC (sizeof(spec_dtypes) / sizeof(spec_dtypes[0]))

const char *ir_dtype_spec_name(enum ir_dtype dt)
{
	for (size_t i = 0; i < NSPEC; i++)
		if (spec_dtypes[i].dt == dt)
			return spec_dtypes[i].name;
	return NULL;
}

enum ir_dtype ir_dtype_from_spec(const char *name, size_t len)
{
	for (size_t i = 0; i < NSPEC; i++)
		if (strlen(spec_dtypes[i].name) == len &&
		    !memcmp(spec_dtypes[i].name, name, len))
			return spec_dtypes[i].dt;
	return IR_DTYPE_UNDEFINED;
}

const char *ir_dtype_npy_code(enum ir_dtype dt)
{
	for (size_t i = 0; i < NSPEC; i++)
		if (spec_dtypes[i].dt == dt)
			return spec_dtypes[i].npy;
	return NULL;
}

enum ir_dtype ir_dtype_from_npy(const char *descr)
{
	/* little-endian, native, or no order (one byte): '>' only there */
	if (strlen(descr) != 3 || !strchr("<|=>", descr[0]) ||
	    (descr[0] == '>' && descr[2] != '1'))
		return IR_DTYPE_UNDEFINED;
	for (size_t i = 0; i < NSPEC; i++)
		if (spec_dtypes[i].npy && !strcmp(spec_dtypes[i].npy,
						  descr + 1))
			return spec_dtypes[i].dt;
	return IR_DTYPE_UNDEFINED;
}

const char *ir_type_spec(const struct ir_type *t, char *buf, size_t n)
{
	const char *dn = ir_dtype_spec_name(t->dtype);
	size_t k;

	if (!n)
		return buf;
	k = (size_t)snprintf(buf, n, "%s", dn ? dn
			     : t->dtype ? ir_dtype_torch_name(t->dtype)
			     : "Tensor");
	for (int i = 0; i < t->rank && k < n; i++) {
		const struct ir_dim *d = &t->dims[i];
		const char *sep = i ? "," : "[";
		if (d->kind == IR_DIM_FIXED)
			k += (size_t)snprintf(buf + k, n - k, "%s%lld", sep,
					      (long long)d->value);
		else if (d->kind == IR_DIM_SYMBOL && d->symbol)
			k += (size_t)snprintf(buf + k, n - k, "%s%s", sep,
					      d->symbol);
		else
			k += (size_t)snprintf(buf + k, n - k, "%s?", sep);
	}
	if (t->rank == 0 && k < n)
		k += (size_t)snprintf(buf + k, n - k, "[]");
	else if (t->rank > 0 && k < n)
		snprintf(buf + k, n - k, "]");
	return buf;
}

int ir_dtype_from_name(const char *name, size_t len)
{
	for (int i = 1; i < IR_DTYPE_COUNT; i++) {
		const char *t = dtype_info[i].torch, *o = dtype_info[i].onnx;
		if ((strlen(t) == len && !memcmp(t, name, len)) ||
		    (strlen(o) == len && !memcmp(o, name, len)))
			return i;
	}
	return -1;
}

uint64_t ir_tensor_numel(const struct ir_tensor *t)
{
	uint64_t n = 1;
	for (int i = 0; i < t->rank; i++)
		n *= (uint64_t)(t->dims[i] < 0 ? 0 : t->dims[i]);
	return n;
}

/* --- graph and arena ---------------------------------------------------- */

struct ir_graph *ir_graph_new(enum ir_level level)
{
	struct ir_graph *g = xcalloc(1, sizeof(*g));
	g->level = level;
	g->top = ir_block_new(g);
	return g;
}

void ir_graph_free(struct ir_graph *g)
{
	if (!g)
		return;
	free(g->vtab);
	arena_release(&g->arena);
	free(g);
}

void *ir_alloc(struct ir_graph *g, size_t size)
{
	return arena_alloc(&g->arena, size);
}

char *ir_strndup(struct ir_graph *g, const char *s, size_t n)
{
	if (!s)
		return NULL;
	char *p = arena_alloc(&g->arena, n + 1);
	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

char *ir_strdup(struct ir_graph *g, const char *s)
{
	return s ? ir_strndup(g, s, strlen(s)) : NULL;
}

char *ir_strfmt(struct ir_graph *g, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		BUG("bad format '%s'", fmt);
	char *p = arena_alloc(&g->arena, (size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}

/* --- types -------------------------------------------------------------- */

struct ir_type *ir_type_new(struct ir_graph *g, enum ir_type_kind kind)
{
	struct ir_type *t = ir_alloc(g, sizeof(*t));
	t->kind = kind;
	t->rank = -1;
	return t;
}

struct ir_type *ir_type_tensor(struct ir_graph *g, enum ir_dtype dt, int rank,
			       const int64_t *dims)
{
	struct ir_type *t = ir_type_new(g, IR_TYPE_TENSOR);
	t->dtype = dt;
	t->rank = rank;
	if (rank > 0) {
		t->dims = ir_alloc(g, sizeof(*t->dims) * (size_t)rank);
		for (int i = 0; i < rank; i++) {
			if (dims) {
				t->dims[i].kind = IR_DIM_FIXED;
				t->dims[i].value = dims[i];
			}
		}
	}
	return t;
}

struct ir_type *ir_type_copy(struct ir_graph *g, const struct ir_type *src)
{
	struct ir_type *t = ir_type_new(g, src->kind);
	*t = *src;
	if (src->rank > 0 && src->dims) {
		t->dims = ir_alloc(g, sizeof(*t->dims) * (size_t)src->rank);
		for (int i = 0; i < src->rank; i++) {
			t->dims[i] = src->dims[i];
			t->dims[i].symbol = ir_strdup(g, src->dims[i].symbol);
		}
	}
	if (src->nelems) {
		t->elems = ir_alloc(g, sizeof(*t->elems) * src->nelems);
		for (uint32_t i = 0; i < src->nelems; i++)
			t->elems[i] = ir_type_copy(g, src->elems[i]);
	}
	t->name = ir_strdup(g, src->name);
	return t;
}

int ir_dim_same(struct ir_dim a, struct ir_dim b)
{
	if (a.kind != b.kind)
		return 0;
	if (a.kind == IR_DIM_FIXED)
		return a.value == b.value;
	return a.kind == IR_DIM_SYMBOL && a.symbol && b.symbol &&
	       !strcmp(a.symbol, b.symbol);
}

int ir_tensor_equal(const struct ir_tensor *a, const struct ir_tensor *b)
{
	if (a == b)
		return 1;
	if (a->dtype != b->dtype || a->rank != b->rank ||
	    a->data_kind != IR_DATA_INLINE || b->data_kind != IR_DATA_INLINE ||
	    a->dtype == IR_DTYPE_STRING || a->bytes.len != b->bytes.len)
		return 0;
	for (int i = 0; i < a->rank; i++)
		if (a->dims[i] != b->dims[i])
			return 0;
	return !a->bytes.len || !memcmp(a->bytes.data, b->bytes.data,
					a->bytes.len);
}

int ir_attr_equal(const struct ir_attr *a, const struct ir_attr *b)
{
	if (strcmp(a->name, b->name) || a->kind != b->kind ||
	    a->count != b->count)
		return 0;
	switch (a->kind) {
	case IR_ATTR_INT:
		return a->u.i == b->u.i;
	case IR_ATTR_FLOAT:
		return !memcmp(&a->u.f, &b->u.f, sizeof(double));
	case IR_ATTR_STRING:
		return a->u.s.len == b->u.s.len &&
		       (!a->u.s.len || !memcmp(a->u.s.data, b->u.s.data,
					       a->u.s.len));
	case IR_ATTR_TENSOR:
		return ir_tensor_equal(a->u.t, b->u.t);
	case IR_ATTR_INTS:
		return !a->count || !memcmp(a->u.ints, b->u.ints,
					    sizeof(int64_t) * a->count);
	case IR_ATTR_FLOATS:
		return !a->count || !memcmp(a->u.floats, b->u.floats,
					    sizeof(double) * a->count);
	case IR_ATTR_STRINGS:
		for (uint32_t i = 0; i < a->count; i++)
			if (a->u.strings[i].len != b->u.strings[i].len ||
			    (a->u.strings[i].len &&
			     memcmp(a->u.strings[i].data, b->u.strings[i].data,
				    a->u.strings[i].len)))
				return 0;
		return 1;
	default:
		return 0;
	}
}

int ir_type_equal(const struct ir_type *a, const struct ir_type *b)
{
	if (a == b)
		return 1;
	if (!a || !b || a->kind != b->kind)
		return 0;
	switch (a->kind) {
	case IR_TYPE_TENSOR:
		if (a->dtype != b->dtype || a->rank != b->rank)
			return 0;
		for (int i = 0; i < a->rank; i++) {
			const struct ir_dim *x = &a->dims[i], *y = &b->dims[i];
			if (x->kind != y->kind)
				return 0;
			if (x->kind == IR_DIM_FIXED && x->value != y->value)
				return 0;
			if (x->kind == IR_DIM_SYMBOL &&
			    strcmp(x->symbol, y->symbol))
				return 0;
		}
		return 1;
	case IR_TYPE_CLASS:
		return !strcmp(a->name ? a->name : "", b->name ? b->name : "");
	default:
		if (a->nelems != b->nelems)
			return 0;
		for (uint32_t i = 0; i < a->nelems; i++)
			if (!ir_type_equal(a->elems[i], b->elems[i]))
				return 0;
		return 1;
	}
}

/* --- values ------------------------------------------------------------- */

static uint32_t hash_name(const char *s)
{
	uint32_t h = 2166136261u; /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static void vtab_insert(struct ir_graph *g, struct ir_value *v)
{
	if ((g->nvalues + 1) * 4 >= g->vcap * 3) {
		uint32_t ncap = g->vcap ? g->vcap * 2 : 256;
		struct ir_value **nt = xcalloc(ncap, sizeof(*nt));
		for (uint32_t i = 0; i < g->vcap; i++) {
			struct ir_value *x = g->vtab[i];
			if (!x)
				continue;
			uint32_t j = hash_name(x->name) & (ncap - 1);
			while (nt[j])
				j = (j + 1) & (ncap - 1);
			nt[j] = x;
		}
		free(g->vtab);
		g->vtab = nt;
		g->vcap = ncap;
	}
	uint32_t j = hash_name(v->name) & (g->vcap - 1);
	while (g->vtab[j])
		j = (j + 1) & (g->vcap - 1);
	g->vtab[j] = v;
	g->nvalues++;
}

struct ir_value *ir_find_value(struct ir_graph *g, const char *name)
{
	if (!g->vcap)
		return NULL;
	uint32_t j = hash_name(name) & (g->vcap - 1);
	while (g->vtab[j]) {
		if (!strcmp(g->vtab[j]->name, name))
			return g->vtab[j];
		j = (j + 1) & (g->vcap - 1);
	}
	return NULL;
}

const char *ir_fresh_name(struct ir_graph *g, const char *prefix)
{
	char buf[64];
	for (;;) {
		snprintf(buf, sizeof(buf), "%.40s%u", prefix ? prefix : "",
			 g->next_id++);
		if (!ir_find_value(g, buf))
			return ir_strdup(g, buf);
	}
}

struct ir_value *ir_value_new(struct ir_graph *g, const char *name,
			      struct ir_type *type)
{
	struct ir_value *v = ir_alloc(g, sizeof(*v));
	v->name = name ? ir_strdup(g, name) : ir_fresh_name(g, "");
	v->type = type ? type : ir_type_new(g, IR_TYPE_UNKNOWN);
	vtab_insert(g, v);
	return v;
}

/* --- nodes and blocks --------------------------------------------------- */

void ir_node_set_kind(struct ir_node *n, const char *kind)
{
	n->kind = kind;
	n->op = aten_op_id(kind);
}

struct ir_node *ir_node_new(struct ir_graph *g, struct ir_block *b,
			    const char *kind, uint32_t ninputs,
			    uint32_t noutputs)
{
	struct ir_node *n = ir_alloc(g, sizeof(*n));
	ir_node_set_kind(n, ir_strdup(g, kind));
	n->ninputs = ninputs;
	n->noutputs = noutputs;
	if (ninputs)
		n->inputs = ir_alloc(g, sizeof(*n->inputs) * ninputs);
	if (noutputs)
		n->outputs = ir_alloc(g, sizeof(*n->outputs) * noutputs);
	if (b)
		ir_block_append(b, n);
	return n;
}

void ir_node_set_output(struct ir_node *n, uint32_t i, struct ir_value *v)
{
	if (i >= n->noutputs)
		BUG("output %u of %s out of range", i, n->kind);
	n->outputs[i] = v;
	v->producer = n;
}

struct ir_attr *ir_node_add_attr(struct ir_graph *g, struct ir_node *n,
				 const char *name, enum ir_attr_kind kind)
{
	/* attrs grow by doubling inside the arena; the old array is left */
	if ((n->nattrs & (n->nattrs - 1)) == 0) {
		uint32_t cap = n->nattrs ? n->nattrs * 2 : 4;
		struct ir_attr *na = ir_alloc(g, sizeof(*na) * cap);
		if (n->nattrs)
			memcpy(na, n->attrs, sizeof(*na) * n->nattrs);
		n->attrs = na;
	}
	struct ir_attr *a = &n->attrs[n->nattrs++];
	memset(a, 0, sizeof(*a));
	a->name = ir_strdup(g, name);
	a->kind = kind;
	return a;
}

struct ir_attr *ir_node_find_attr(const struct ir_node *n, const char *name)
{
	for (uint32_t i = 0; i < n->nattrs; i++)
		if (!strcmp(n->attrs[i].name, name))
			return &n->attrs[i];
	return NULL;
}

struct ir_block *ir_block_new(struct ir_graph *g)
{
	return ir_alloc(g, sizeof(struct ir_block));
}

struct ir_block *ir_node_add_block(struct ir_graph *g, struct ir_node *n)
{
	struct ir_block **nb = ir_alloc(g, sizeof(*nb) * (n->nblocks + 1));
	if (n->nblocks)
		memcpy(nb, n->blocks, sizeof(*nb) * n->nblocks);
	struct ir_block *b = ir_block_new(g);
	b->owner = n;
	nb[n->nblocks++] = b;
	n->blocks = nb;
	return b;
}

void ir_block_append(struct ir_block *b, struct ir_node *n)
{
	n->owner = b;
	n->next = NULL;
	n->prev = b->last;
	if (b->last)
		b->last->next = n;
	else
		b->first = n;
	b->last = n;
}

void ir_block_insert_before(struct ir_node *pos, struct ir_node *n)
{
	struct ir_block *b = pos->owner;
	n->owner = b;
	n->next = pos;
	n->prev = pos->prev;
	if (pos->prev)
		pos->prev->next = n;
	else
		b->first = n;
	pos->prev = n;
}

void ir_node_unlink(struct ir_node *n)
{
	struct ir_block *b = n->owner;
	if (!b)
		return;
	if (n->prev)
		n->prev->next = n->next;
	else
		b->first = n->next;
	if (n->next)
		n->next->prev = n->prev;
	else
		b->last = n->prev;
	n->prev = n->next = NULL;
	n->owner = NULL;
}

static void grow_values(struct ir_graph *g, struct ir_value ***arr,
			uint32_t *n, struct ir_value *v)
{
	if ((*n & (*n - 1)) == 0) {
		uint32_t cap = *n ? *n * 2 : 4;
		struct ir_value **na = ir_alloc(g, sizeof(*na) * cap);
		if (*n)
			memcpy(na, *arr, sizeof(*na) * *n);
		*arr = na;
	}
	(*arr)[(*n)++] = v;
}

void ir_block_add_param(struct ir_graph *g, struct ir_block *b,
			struct ir_value *v)
{
	grow_values(g, &b->params, &b->nparams, v);
}

void ir_block_add_return(struct ir_graph *g, struct ir_block *b,
			 struct ir_value *v)
{
	grow_values(g, &b->returns, &b->nreturns, v);
}

/* --- weights, opsets, props --------------------------------------------- */

struct ir_tensor *ir_tensor_new(struct ir_graph *g, enum ir_dtype dt,
				int rank, const int64_t *dims)
{
	struct ir_tensor *t = ir_alloc(g, sizeof(*t));
	t->dtype = dt;
	t->rank = rank;
	if (rank > 0) {
		t->dims = ir_alloc(g, sizeof(*t->dims) * (size_t)rank);
		if (dims)
			memcpy(t->dims, dims, sizeof(*t->dims) * (size_t)rank);
	}
	return t;
}

struct ir_type *ir_tensor_type(struct ir_graph *g, const struct ir_tensor *t)
{
	return ir_type_tensor(g, t->dtype, t->rank, t->dims);
}

struct ir_value *ir_add_weight(struct ir_graph *g, struct ir_block *b,
			       const char *name, struct ir_tensor *t)
{
	struct ir_weight *w = ir_alloc(g, sizeof(*w));
	w->tensor = t;
	w->value = ir_value_new(g, name, ir_tensor_type(g, t));
	w->value->weight = w;
	ir_append_weight(g, b, w);
	return w->value;
}

void ir_append_weight(struct ir_graph *g, struct ir_block *b,
		      struct ir_weight *w)
{
	w->next = NULL;
	if (b && b != g->top) {
		struct ir_weight **pp = &b->weights;
		while (*pp)
			pp = &(*pp)->next;
		*pp = w;
		return;
	}
	if (g->weights_tail)
		g->weights_tail->next = w;
	else
		g->weights = w;
	g->weights_tail = w;
	g->nweights++;
}

void ir_add_opset(struct ir_graph *g, const char *domain, int64_t version)
{
	for (uint32_t i = 0; i < g->nopsets; i++) {
		if (!strcmp(g->opsets[i].domain, domain ? domain : "")) {
			g->opsets[i].version = version;
			return;
		}
	}
	struct ir_opset *n = ir_alloc(g, sizeof(*n) * (g->nopsets + 1));
	if (g->nopsets)
		memcpy(n, g->opsets, sizeof(*n) * g->nopsets);
	n[g->nopsets].domain = ir_strdup(g, domain ? domain : "");
	n[g->nopsets].version = version;
	g->opsets = n;
	g->nopsets++;
}

int64_t ir_opset_version(const struct ir_graph *g, const char *domain)
{
	for (uint32_t i = 0; i < g->nopsets; i++)
		if (!strcmp(g->opsets[i].domain, domain ? domain : ""))
			return g->opsets[i].version;
	return -1;
}

void ir_add_prop(struct ir_graph *g, const char *key, const char *value)
{
	struct ir_prop *n = ir_alloc(g, sizeof(*n) * (g->nprops + 1));
	if (g->nprops)
		memcpy(n, g->props, sizeof(*n) * g->nprops);
	n[g->nprops].key = ir_strdup(g, key);
	n[g->nprops].value = ir_strdup(g, value);
	g->props = n;
	g->nprops++;
}

/* --- reading: binary or text, by the first byte -------------------------- */

int ir_write(const struct ir_graph *g, FILE *fp, int text, struct diag *d)
{
	return text ? ir_write_text(g, fp, d) : ir_write_binary(g, fp, d);
}

struct ir_graph *ir_read(struct ir_source *src, struct diag *d)
{
	int c = getc(src->fp);
	if (c == EOF) {
		diag_error(d, "empty input: expected an IR stream");
		return NULL;
	}
	ungetc(c, src->fp);
	/* the binary form starts with its header, a msgpack map */
	if ((c & 0xf0) == 0x80 || c == 0xde || c == 0xdf)
		return ir_read_binary(src, d);
	return ir_read_text(src, d);
}

/*
 * onnx_check.c - the ONNX checker (see onnx_check.h for the rules).
 *
 * A mirror of onnx/checker.cc and OpSchema::Verify (python3-onnx 1.12)
 * over protobuf-c's unpacked ModelProto, with two differences: every
 * problem is reported (onnx throws at the first), and a few rules the ONNX
 * IR spec states but that checker does not enforce are added, each marked
 * "[strict]" below.  Where onnx would stop checking a node or tensor after
 * a failure, so do we, to avoid cascades of follow-on errors; a failure
 * never stops the walk over the rest of the model.
 *
 * Names in scope are kept in one string set per graph, chained to the
 * enclosing graph's (onnx's LexicalScopeContext); keys point into the
 * ModelProto.  Cost: linear in the model, plus one stat() per external data
 * entry.  Recursion depth is bounded by the nesting limit onnx_read applies
 * before unpacking (and, for models built in memory, by CHECK_MAX_DEPTH).
 */
#include "onnx_check.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "arena.h"
#include "ir.h"
#include "onnx_read.h"
#include "onnx_schema.h"
#include "strmap.h"

#define CHECK_MAX_DEPTH 64 /* subgraph nesting */

#define S(x) ((x) ? (x) : "")

struct opsets {
	const char **domain;
	int64_t *version;
	size_t n;
};

struct ctx {
	struct diag *d;
	const char *model_dir;     /* "" or ".../" */
	int64_t ir_version;        /* as declared, or the newest known */
	int no_opsets;             /* the model imports nothing (reported
				      once, not for every node) */
	int nproblems;
	const Onnx__ModelProto *model; /* its local functions (IR 8+) */
};

/* A graph being checked: for messages and onnx's is_main_graph. */
struct gctx {
	const char *label;         /* `graph "main"`, `graph "body"` */
	const char *where;         /* appended to node labels: "",
				      ` in graph "body"` */
	int main;                  /* onnx's is_main_graph: not a subgraph */
	const struct opsets *ops;  /* opset imports in force */
	int depth;
};

/* onnx's LexicalScopeContext. */
struct scope {
	const struct scope *parent;
	struct strmap names;
};

static int scope_has(const struct scope *s, const char *name)
{
	return strmap_get(&s->names, name, NULL);
}

static int scope_has_any(const struct scope *s, const char *name)
{
	for (; s; s = s->parent)
		if (strmap_get(&s->names, name, NULL))
			return 1;
	return 0;
}

static void scope_add(struct scope *s, const char *name)
{
	strmap_add(&s->names, name, NULL);
}

__attribute__((format(printf, 2, 3)))
static void problem(struct ctx *c, const char *fmt, ...)
{
	char *msg = NULL;
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	diag_error(c->d, "%s", msg ? msg : fmt);
	free(msg);
	c->nproblems++;
}

/* A malloc'd printf, never NULL. */
__attribute__((format(printf, 1, 2)))
static char *fmt(const char *f, ...)
{
	char *s = NULL;
	va_list ap;
	va_start(ap, f);
	if (vasprintf(&s, f, ap) < 0)
		s = NULL;
	va_end(ap);
	if (!s)
		s = xstrdup("?");
	return s;
}

static int64_t opset_version(const struct opsets *o, const char *domain)
{
	for (size_t i = o->n; i > 0; i--) /* the last entry wins, as in onnx */
		if (!strcmp(o->domain[i - 1], domain))
			return o->version[i - 1];
	return -1;
}

static void opsets_add(struct opsets *o, const char *domain, int64_t v)
{
	o->domain = xrealloc(o->domain, sizeof(*o->domain) * (o->n + 1));
	o->version = xrealloc(o->version, sizeof(*o->version) * (o->n + 1));
	o->domain[o->n] = domain;
	o->version[o->n] = v;
	o->n++;
}

static void opsets_release(struct opsets *o)
{
	free(o->domain);
	free(o->version);
	memset(o, 0, sizeof(*o));
}

/* `node "NAME" (Op) in graph "g"` or `node #3 (Op)`, malloc'd. */
static char *node_label(const Onnx__NodeProto *n, size_t idx,
			const struct gctx *g)
{
	const char *op = n->op_type && *n->op_type ? n->op_type : "no op_type";
	if (n->name && *n->name)
		return fmt("node \"%s\" (%s)%s", n->name, op, g->where);
	return fmt("node #%zu (%s)%s", idx, op, g->where);
}

/* --- tensors ------------------------------------------------------------ */

static const char *const data_field_names[] = {
	"float_data", "int32_data", "string_data", "int64_data", "raw_data",
	"double_data", "uint64_data",
};

/* Which data fields t uses, as bits in data_field_names order. */
static unsigned data_fields(const Onnx__TensorProto *t)
{
	unsigned f = 0;
	f |= (t->n_float_data > 0) << 0;
	f |= (t->n_int32_data > 0) << 1;
	f |= (t->n_string_data > 0) << 2;
	f |= (t->n_int64_data > 0) << 3;
	f |= (t->has_raw_data && t->raw_data.len > 0) << 4;
	f |= (t->n_double_data > 0) << 5;
	f |= (t->n_uint64_data > 0) << 6;
	return f;
}

static void fields_list(unsigned f, char *buf, size_t size)
{
	size_t n = 0;
	buf[0] = 0;
	for (unsigned i = 0; i < 7; i++) {
		if (!(f & (1u << i)))
			continue;
		int k = snprintf(buf + n, size - n, "%s%s", n ? ", " : "",
				 data_field_names[i]);
		if (k < 0 || (size_t)k >= size - n)
			break;
		n += (size_t)k;
	}
}

static int popcount7(unsigned f)
{
	int n = 0;
	for (; f; f &= f - 1)
		n++;
	return n;
}

/* Element count; *overflow set when it does not fit int64 (or a dim is
 * negative: *negative). */
static int64_t tensor_numel(const int64_t *dims, size_t n, int *overflow,
			    int *negative)
{
	int64_t e = 1;
	*overflow = *negative = 0;
	for (size_t i = 0; i < n; i++) {
		if (dims[i] < 0)
			*negative = 1;
		if (__builtin_mul_overflow(e, dims[i], &e))
			*overflow = 1;
	}
	return e;
}

/* Parses a decimal integer >= 0 (external data offset/length). */
static int parse_u64(const char *s, uint64_t *v)
{
	if (!s || !*s)
		return -1;
	uint64_t x = 0;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		if (__builtin_mul_overflow(x, 10, &x) ||
		    __builtin_add_overflow(x, (uint64_t)(*s - '0'), &x))
			return -1;
	}
	*v = x;
	return 0;
}


/* 1 when path's real path lies in the real path of the model's
 * directory. */
static int inside_model_dir(const struct ctx *c, const char *path)
{
	char *dir = realpath(*c->model_dir ? c->model_dir : ".", NULL);
	char *real = realpath(path, NULL);
	size_t n = dir ? strlen(dir) : 0;
	int ok = dir && real && !strncmp(real, dir, n) &&
		 (real[n] == '/' || (n == 1 && dir[0] == '/'));

	free(dir);
	free(real);
	return ok;
}

static void check_external(struct ctx *c, const Onnx__TensorProto *t,
			   const char *label, int64_t numel, int numel_ok)
{
	const char *location = NULL;
	const char *offset_s = NULL, *length_s = NULL;
	for (size_t i = 0; i < t->n_external_data; i++) {
		const Onnx__StringStringEntryProto *e = t->external_data[i];
		if (!e->key || !e->value)
			continue;
		if (!strcmp(e->key, "location"))
			location = e->value;
		else if (!strcmp(e->key, "offset"))
			offset_s = e->value;
		else if (!strcmp(e->key, "length"))
			length_s = e->value;
	}
	if (!location) {
		problem(c, "%s: stored externally but has no location", label);
		return;
	}
	/* [strict] the IR spec: a path relative to the model's directory */
	if (location[0] == '/' || location[0] == '\\') {
		problem(c, "%s: external data location \"%s\" must be a "
			"relative path", label, location);
		return;
	}
	if (onnx_path_has_dotdot(location)) { /* [strict] */
		problem(c, "%s: external data location \"%s\" must not "
			"contain \"..\"", label, location);
		return;
	}
	char *path = fmt("%s%s", c->model_dir, location);
	struct stat st;
	if (stat(path, &st) != 0) {
		problem(c, "%s: external data file \"%s\" does not exist or is "
			"not accessible", label, path);
		free(path);
		return;
	}
	if (!S_ISREG(st.st_mode)) { /* [strict] */
		problem(c, "%s: external data \"%s\" is not a regular file",
			label, path);
		free(path);
		return;
	}
	/* [strict] a symlink must not lead out of the model's directory:
	 * readers would embed whatever it points at */
	if (!inside_model_dir(c, path)) {
		problem(c, "%s: external data \"%s\" resolves outside the "
			"model's directory", label, path);
		free(path);
		return;
	}
	/* [strict] the bytes the tensor needs lie inside the file */
	uint64_t offset = 0, length = 0;
	int have_length = 0;
	if (offset_s && parse_u64(offset_s, &offset)) {
		problem(c, "%s: external data offset \"%s\" is not a "
			"number", label, offset_s);
		free(path);
		return;
	}
	if (length_s) {
		if (parse_u64(length_s, &length)) {
			problem(c, "%s: external data length \"%s\" is not a "
				"number", label, length_s);
			free(path);
			return;
		}
		have_length = 1;
	}
	size_t esize = ir_dtype_size((enum ir_dtype)t->data_type);
	uint64_t need = 0;
	int know_need = numel_ok && esize &&
			!__builtin_mul_overflow((uint64_t)numel, esize, &need);
	if (have_length && know_need && length != need)
		problem(c, "%s: external data length %" PRIu64 " is not the "
			"%" PRIu64 " bytes of %" PRId64 " %s elements", label,
			length, need, numel,
			ir_dtype_onnx_name((enum ir_dtype)t->data_type));
	if (!have_length && know_need)
		length = need, have_length = 1;
	uint64_t fsize = (uint64_t)st.st_size, end;
	if (offset > fsize ||
	    (have_length && (__builtin_add_overflow(offset, length, &end) ||
			     end > fsize)))
		problem(c, "%s: external data (offset %" PRIu64 ", length %"
			PRIu64 ") runs past the end of \"%s\" (%" PRIu64
			" bytes)", label, offset, length, path, fsize);
	free(path);
}

/* Expected count of a typed data field for numel elements. */
static int64_t typed_count(int dtype, int64_t numel)
{
	if (dtype == ONNX__TENSOR_PROTO__DATA_TYPE__COMPLEX64 ||
	    dtype == ONNX__TENSOR_PROTO__DATA_TYPE__COMPLEX128)
		return numel * 2;
	return numel;
}

static void check_tensor(struct ctx *c, const Onnx__TensorProto *t,
			 const char *label)
{
	if (!t->has_data_type) {
		problem(c, "%s: data_type is not set", label);
		return;
	}
	if (t->data_type == ONNX__TENSOR_PROTO__DATA_TYPE__UNDEFINED) {
		problem(c, "%s: data_type is UNDEFINED", label);
		return;
	}
	/* [strict] onnx checks the type only for typed fields, but the IR
	 * spec says it MUST be a valid DataType whatever the field */
	if (t->data_type < 0 || t->data_type >= IR_DTYPE_COUNT) {
		problem(c, "%s: unknown data_type %d", label, t->data_type);
		return;
	}
	unsigned fields = data_fields(t);
	int nfields = popcount7(fields);
	char names[128];
	fields_list(fields, names, sizeof(names));

	int overflow, negative;
	int64_t numel = tensor_numel(t->dims, t->n_dims, &overflow, &negative);
	if (negative) { /* [strict] */
		problem(c, "%s: has a negative dimension", label);
		return;
	}
	if (t->has_data_location &&
	    t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL) {
		if (nfields) {
			problem(c, "%s: stored externally but also has data "
				"in %s", label, names);
			return;
		}
		check_external(c, t, label, numel, !overflow);
		return;
	}
	if (!overflow && numel == 0 && nfields) {
		problem(c, "%s: has 0 elements but contains data (%s)", label,
			names);
		return;
	}
	if ((overflow || numel != 0) && nfields != 1) {
		if (nfields)
			problem(c, "%s: should have exactly one data field, "
				"has %d (%s)", label, nfields, names);
		else
			problem(c, "%s: should have exactly one data field, "
				"has none", label);
		return;
	}
	if (fields & (1u << 4)) {
		if (t->data_type == ONNX__TENSOR_PROTO__DATA_TYPE__STRING) {
			problem(c, "%s: STRING data must not be stored in "
				"raw_data", label);
			return;
		}
		/* [strict] raw_data holds exactly numel x element size */
		size_t esize = ir_dtype_size((enum ir_dtype)t->data_type);
		uint64_t need;
		if (esize && (overflow ||
			      __builtin_mul_overflow((uint64_t)numel, esize,
						     &need) ||
			      need != t->raw_data.len))
			problem(c, "%s: raw_data has %zu bytes, expected %"
				PRId64 " elements x %zu bytes", label,
				t->raw_data.len, numel, esize);
		return;
	}
	int want;
	size_t have;
	switch (t->data_type) {
	case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT:
	case ONNX__TENSOR_PROTO__DATA_TYPE__COMPLEX64:
		want = 0, have = t->n_float_data;
		break;
	case ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE:
	case ONNX__TENSOR_PROTO__DATA_TYPE__COMPLEX128:
		want = 5, have = t->n_double_data;
		break;
	case ONNX__TENSOR_PROTO__DATA_TYPE__INT32:
	case ONNX__TENSOR_PROTO__DATA_TYPE__UINT8:
	case ONNX__TENSOR_PROTO__DATA_TYPE__INT8:
	case ONNX__TENSOR_PROTO__DATA_TYPE__UINT16:
	case ONNX__TENSOR_PROTO__DATA_TYPE__INT16:
	case ONNX__TENSOR_PROTO__DATA_TYPE__BOOL:
	case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16:
	case ONNX__TENSOR_PROTO__DATA_TYPE__BFLOAT16:
		want = 1, have = t->n_int32_data;
		break;
	case ONNX__TENSOR_PROTO__DATA_TYPE__INT64:
		want = 3, have = t->n_int64_data;
		break;
	case ONNX__TENSOR_PROTO__DATA_TYPE__UINT32:
	case ONNX__TENSOR_PROTO__DATA_TYPE__UINT64:
		want = 6, have = t->n_uint64_data;
		break;
	case ONNX__TENSOR_PROTO__DATA_TYPE__STRING:
		want = 2, have = t->n_string_data;
		break;
	default:
		problem(c, "%s: unknown data_type %d", label, t->data_type);
		return;
	}
	if (overflow || numel == 0)
		return;
	if (!(fields & (1u << want))) {
		problem(c, "%s: values of data_type %s must be stored in %s, "
			"not %s", label,
			ir_dtype_onnx_name((enum ir_dtype)t->data_type),
			data_field_names[want], names);
		return;
	}
	/* [strict] the typed field holds every element */
	if ((int64_t)have != typed_count(t->data_type, numel))
		problem(c, "%s: %s has %zu values, expected %" PRId64, label,
			data_field_names[want], have,
			typed_count(t->data_type, numel));
}

/* Reads n int64 values of an INT64 tensor (int64_data or raw_data). 0, or
 * -1 when the tensor holds fewer. */
static int int64_values(const Onnx__TensorProto *t, size_t n, int64_t *out)
{
	if (t->n_int64_data) {
		if (t->n_int64_data < n)
			return -1;
		memcpy(out, t->int64_data, n * sizeof(*out));
		return 0;
	}
	if (t->has_raw_data && t->raw_data.len / 8 >= n) {
		for (size_t i = 0; i < n; i++) {
			uint64_t v = 0;
			const uint8_t *q = t->raw_data.data + i * 8;
			for (int b = 7; b >= 0; b--)
				v = (v << 8) | q[b];
			out[i] = (int64_t)v;
		}
		return 0;
	}
	return n ? -1 : 0;
}

static void check_sparse_indices(struct ctx *c, const Onnx__TensorProto *ix,
				 const Onnx__SparseTensorProto *sp,
				 size_t nnz, const char *label)
{
	size_t rank = ix->n_dims, dense_rank = sp->n_dims;
	if ((uint64_t)ix->dims[0] != nnz) {
		problem(c, "%s: sparse indices have %" PRId64 " entries, but "
			"there are %zu values", label, ix->dims[0], nnz);
		return;
	}
	if (rank == 2 && (uint64_t)ix->dims[1] != dense_rank) {
		problem(c, "%s: sparse indices' second dimension %" PRId64
			" is not the tensor's rank %zu", label, ix->dims[1],
			dense_rank);
		return;
	}
	size_t per = rank == 2 ? dense_rank : 1, total;
	if (__builtin_mul_overflow(nnz, per, &total) ||
	    total > (size_t)1 << 28) {
		problem(c, "%s: sparse indices too large", label);
		return;
	}
	if (ix->has_data_location &&
	    ix->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL)
		return; /* onnx cannot read them either */
	int64_t *idx = xmalloc((total ? total : 1) * sizeof(*idx));
	if (int64_values(ix, total, idx)) {
		problem(c, "%s: sparse indices hold fewer than %zu values",
			label, total);
		free(idx);
		return;
	}
	int64_t dense = 1;
	for (size_t j = 0; j < dense_rank; j++)
		if (__builtin_mul_overflow(dense, sp->dims[j], &dense))
			dense = INT64_MAX;
	int64_t prev = -1;
	for (size_t i = 0; i < nnz; i++) {
		int64_t cur = 0;
		if (rank == 1) {
			cur = idx[i];
			if (cur < 0 || cur >= dense) {
				problem(c, "%s: sparse index %zu (%" PRId64
					") out of range [0, %" PRId64 ")",
					label, i, cur, dense);
				break;
			}
		} else {
			int bad = 0;
			for (size_t j = 0; j < dense_rank; j++) {
				int64_t v = idx[i * dense_rank + j];
				if (v < 0 || v >= sp->dims[j]) {
					problem(c, "%s: sparse index [%zu,%zu] "
						"out of range", label, i, j);
					bad = 1;
					break;
				}
				cur = cur * sp->dims[j] + v;
			}
			if (bad)
				break;
		}
		if (cur <= prev) {
			problem(c, "%s: sparse index %zu is not in sorted order",
				label, i);
			break;
		}
		prev = cur;
	}
	free(idx);
}

static void check_sparse_tensor(struct ctx *c,
				const Onnx__SparseTensorProto *sp,
				const char *label)
{
	if (!sp->values) {
		problem(c, "%s: sparse tensor has no values", label);
		return;
	}
	const Onnx__TensorProto *v = sp->values;
	check_tensor(c, v, label);
	if (v->n_dims != 1) {
		problem(c, "%s: sparse tensor values must have rank 1", label);
		return;
	}
	if (v->dims[0] < 0)
		return; /* reported by check_tensor */
	size_t nnz = (size_t)v->dims[0];
	if (sp->n_dims == 0) {
		problem(c, "%s: sparse tensor must have a dense rank > 0",
			label);
		return;
	}
	for (size_t i = 0; i < sp->n_dims; i++) {
		if (sp->dims[i] <= 0) {
			problem(c, "%s: sparse tensor dimensions must be "
				"positive", label);
			return;
		}
	}
	if (sp->indices) {
		const Onnx__TensorProto *ix = sp->indices;
		int before = c->nproblems;
		check_tensor(c, ix, label);
		if (c->nproblems != before)
			return;
		if (ix->data_type != ONNX__TENSOR_PROTO__DATA_TYPE__INT64) {
			problem(c, "%s: sparse indices must be INT64", label);
			return;
		}
		if (ix->n_dims != 1 && ix->n_dims != 2) {
			problem(c, "%s: sparse indices must have rank 1 or 2",
				label);
			return;
		}
		check_sparse_indices(c, ix, sp, nnz, label);
	} else if (nnz != 0) {
		problem(c, "%s: sparse tensor has values but no indices",
			label);
	}
}

/* --- value infos -------------------------------------------------------- */

static void check_value_info(struct ctx *c, const Onnx__ValueInfoProto *vi,
			     const char *what, size_t idx,
			     const struct gctx *g)
{
	if (!vi->name || !*vi->name) {
		problem(c, "%s: %s #%zu has no name", g->label, what, idx);
		return;
	}
	if (!g->main)
		return; /* subgraph inputs and outputs may be untyped */
	const Onnx__TypeProto *tp = vi->type;
	if (!tp) {
		problem(c, "%s: %s \"%s\" has no type", g->label, what,
			vi->name);
		return;
	}
	switch (tp->value_case) {
	case ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE:
		/* an input's elem_type 0 (UNDEFINED) is none either: nothing
		 * could feed it, and onnx.checker's type inference refuses
		 * it ("Element type of input 0 unknown") */
		if (!tp->tensor_type->has_elem_type ||
		    (!tp->tensor_type->elem_type && !strcmp(what, "input")))
			problem(c, "%s: %s \"%s\" has no elem_type", g->label,
				what, vi->name);
		else if (!tp->tensor_type->shape)
			problem(c, "%s: %s \"%s\" has no shape", g->label,
				what, vi->name);
		break;
	case ONNX__TYPE_PROTO__VALUE_SPARSE_TENSOR_TYPE:
		if (!tp->sparse_tensor_type->has_elem_type)
			problem(c, "%s: %s \"%s\" has no elem_type", g->label,
				what, vi->name);
		else if (!tp->sparse_tensor_type->shape)
			problem(c, "%s: %s \"%s\" has no shape", g->label,
				what, vi->name);
		break;
	case ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE:
		if (!tp->sequence_type->elem_type)
			problem(c, "%s: %s \"%s\": sequence type has no "
				"elem_type", g->label, what, vi->name);
		break;
	case ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE:
		if (!tp->optional_type->elem_type)
			problem(c, "%s: %s \"%s\": optional type has no "
				"elem_type", g->label, what, vi->name);
		break;
	case ONNX__TYPE_PROTO__VALUE_MAP_TYPE:
		if (!tp->map_type->has_key_type)
			problem(c, "%s: %s \"%s\": map type has no key_type",
				g->label, what, vi->name);
		else if (!tp->map_type->value_type)
			problem(c, "%s: %s \"%s\": map type has no value_type",
				g->label, what, vi->name);
		break;
	default:
		problem(c, "%s: %s \"%s\" has a type of unknown kind",
			g->label, what, vi->name);
	}
}

/* --- nodes and attributes ----------------------------------------------- */

static void check_graph(struct ctx *c, const Onnx__GraphProto *gp,
			const struct gctx *g, const struct scope *parent);


/* The value fields an attribute has set, one bit per AttributeType. */
static unsigned attr_fields(const Onnx__AttributeProto *a)
{
	unsigned f = 0;
	f |= (unsigned)a->has_f << ONNX_ATTR_FLOAT;
	f |= (unsigned)a->has_i << ONNX_ATTR_INT;
	f |= (unsigned)a->has_s << ONNX_ATTR_STRING;
	f |= (unsigned)(a->t != NULL) << ONNX_ATTR_TENSOR;
	f |= (unsigned)(a->g != NULL) << ONNX_ATTR_GRAPH;
	f |= (unsigned)(a->tp != NULL) << ONNX_ATTR_TYPE_PROTO;
	f |= (unsigned)(a->sparse_tensor != NULL) << ONNX_ATTR_SPARSE_TENSOR;
	f |= (unsigned)(a->n_floats > 0) << ONNX_ATTR_FLOATS;
	f |= (unsigned)(a->n_ints > 0) << ONNX_ATTR_INTS;
	f |= (unsigned)(a->n_strings > 0) << ONNX_ATTR_STRINGS;
	f |= (unsigned)(a->n_tensors > 0) << ONNX_ATTR_TENSORS;
	f |= (unsigned)(a->n_graphs > 0) << ONNX_ATTR_GRAPHS;
	f |= (unsigned)(a->n_sparse_tensors > 0) << ONNX_ATTR_SPARSE_TENSORS;
	f |= (unsigned)(a->n_type_protos > 0) << ONNX_ATTR_TYPE_PROTOS;
	return f;
}

static const char *const attr_field_names[ONNX_ATTR_TYPE_COUNT] = {
	[ONNX_ATTR_FLOAT] = "f", [ONNX_ATTR_INT] = "i",
	[ONNX_ATTR_STRING] = "s", [ONNX_ATTR_TENSOR] = "t",
	[ONNX_ATTR_GRAPH] = "g", [ONNX_ATTR_FLOATS] = "floats",
	[ONNX_ATTR_INTS] = "ints", [ONNX_ATTR_STRINGS] = "strings",
	[ONNX_ATTR_TENSORS] = "tensors", [ONNX_ATTR_GRAPHS] = "graphs",
	[ONNX_ATTR_SPARSE_TENSOR] = "sparse_tensor",
	[ONNX_ATTR_SPARSE_TENSORS] = "sparse_tensors",
	[ONNX_ATTR_TYPE_PROTO] = "tp", [ONNX_ATTR_TYPE_PROTOS] = "type_protos",
};

/* A subgraph's context: `graph "NAME"` (or the attribute that holds it). */
static void sub_gctx(struct gctx *sub, const struct gctx *g,
		     const Onnx__GraphProto *gp, const char *attr,
		     const char *nlabel)
{
	sub->main = 0;
	sub->ops = g->ops;
	sub->depth = g->depth + 1;
	if (gp->name && *gp->name)
		sub->label = fmt("graph \"%s\"", gp->name);
	else
		sub->label = fmt("graph of attribute \"%s\" of %s", attr,
				 nlabel);
	sub->where = fmt(" in %s", sub->label);
}

static void check_subgraph(struct ctx *c, const Onnx__GraphProto *gp,
			   const struct gctx *g, const struct scope *s,
			   const char *attr, const char *nlabel)
{
	struct gctx sub;
	if (g->depth + 1 > CHECK_MAX_DEPTH) {
		problem(c, "%s: attribute \"%s\": subgraphs nested deeper "
			"than %d levels", nlabel, attr, CHECK_MAX_DEPTH);
		return;
	}
	sub_gctx(&sub, g, gp, attr, nlabel);
	check_graph(c, gp, &sub, s);
	free((char *)sub.label);
	free((char *)sub.where);
}

/* onnx's check_attribute: well-formedness, not the schema. */
static void check_attribute(struct ctx *c, const Onnx__AttributeProto *a,
			    size_t idx, const char *nlabel,
			    const struct gctx *g, const struct scope *s)
{
	if (!a->name || !*a->name) {
		problem(c, "%s: attribute #%zu has no name", nlabel, idx);
		return;
	}
	if (c->ir_version >= 2 && !a->has_type) {
		problem(c, "%s: attribute \"%s\" has no type", nlabel,
			a->name);
		return;
	}
	unsigned f = attr_fields(a);
	int used = 0;
	for (int t = 0; t < ONNX_ATTR_TYPE_COUNT; t++) {
		if (!(f & (1u << t)))
			continue;
		used++;
		if (a->has_type && (int)a->type != t) {
			problem(c, "%s: attribute \"%s\": type %s does not "
				"match the value field '%s' it sets", nlabel,
				a->name, onnx_attr_type_name((int)a->type),
				attr_field_names[t]);
			return;
		}
	}
	if (used > 1) {
		problem(c, "%s: attribute \"%s\" has more than one value field",
			nlabel, a->name);
		return;
	}
	if (!g->main && a->ref_attr_name && used) {
		problem(c, "%s: attribute \"%s\" refers to parent attribute "
			"\"%s\" but has a value", nlabel, a->name,
			a->ref_attr_name);
		return;
	}
	char *label;
	if (a->t) {
		label = fmt("%s: attribute \"%s\"", nlabel, a->name);
		check_tensor(c, a->t, label);
		free(label);
	}
	if (a->sparse_tensor) {
		label = fmt("%s: attribute \"%s\"", nlabel, a->name);
		check_sparse_tensor(c, a->sparse_tensor, label);
		free(label);
	}
	if (a->g)
		check_subgraph(c, a->g, g, s, a->name, nlabel);
	for (size_t i = 0; i < a->n_tensors; i++) {
		label = fmt("%s: attribute \"%s\" tensor #%zu", nlabel,
			    a->name, i);
		check_tensor(c, a->tensors[i], label);
		free(label);
	}
	for (size_t i = 0; i < a->n_sparse_tensors; i++) {
		label = fmt("%s: attribute \"%s\" sparse tensor #%zu", nlabel,
			    a->name, i);
		check_sparse_tensor(c, a->sparse_tensors[i], label);
		free(label);
	}
	for (size_t i = 0; i < a->n_graphs; i++)
		check_subgraph(c, a->graphs[i], g, s, a->name, nlabel);
}

/* The formal parameter input/output i binds to ('X'), or "" */
static const char *formal_name(const struct onnx_schema *sc, int output,
			       size_t i)
{
	unsigned n = !sc ? 0 : output ? sc->noutputs : sc->ninputs;
	if (!n)
		return "";
	const struct onnx_formal *f = output ? onnx_schema_output(sc, n - 1)
					     : onnx_schema_input(sc, n - 1);
	if (i < n)
		f = output ? onnx_schema_output(sc, (unsigned)i)
			   : onnx_schema_input(sc, (unsigned)i);
	else if (f->option != ONNX_FORMAL_VARIADIC)
		return "";
	return f->name;
}

/* 1 when `count` is in the allowed-count mask (0: any). */
static int count_allowed(uint32_t mask, int count)
{
	return !mask || (count >= 0 && count < 32 && (mask >> count & 1));
}

/* OpSchema::Verify. */
static void verify_node(struct ctx *c, const Onnx__NodeProto *n,
			const struct onnx_schema *sc, const char *nlabel)
{
	char sname[160];
	snprintf(sname, sizeof(sname), "%s-%d", sc->name, sc->since_version);
	int nin = (int)n->n_input, nout = (int)n->n_output;

	if (nin < sc->min_input)
		problem(c, "%s: too few inputs: %d, %s needs at least %d",
			nlabel, nin, sname, sc->min_input);
	else if (nin > sc->max_input)
		problem(c, "%s: too many inputs: %d, %s takes at most %d",
			nlabel, nin, sname, sc->max_input);
	else if (!count_allowed(sc->inputs_allowed, nin))
		problem(c, "%s: %d inputs are not an allowed count for %s",
			nlabel, nin, sname);
	if (nout < sc->min_output)
		problem(c, "%s: too few outputs: %d, %s needs at least %d",
			nlabel, nout, sname, sc->min_output);
	else if (nout > sc->max_output)
		problem(c, "%s: too many outputs: %d, %s gives at most %d",
			nlabel, nout, sname, sc->max_output);
	else if (!count_allowed(sc->outputs_allowed, nout))
		problem(c, "%s: %d outputs are not an allowed count for %s",
			nlabel, nout, sname);

	for (size_t i = 0; i < n->n_input; i++) {
		const struct onnx_formal *f = onnx_schema_input(sc,
								(unsigned)i);
		if (!f) {
			const struct onnx_formal *last = sc->ninputs ?
				onnx_schema_input(sc, sc->ninputs - 1u) : NULL;
			if (last && last->option == ONNX_FORMAL_VARIADIC)
				break;
			if (nin <= sc->max_input)
				problem(c, "%s: more inputs (%d) than %s "
					"declares (%u)", nlabel, nin, sname,
					sc->ninputs);
			break;
		}
		if (!*S(n->input[i]) && f->option == ONNX_FORMAL_SINGLE)
			problem(c, "%s: input #%zu '%s' is empty but not "
				"optional", nlabel, i, f->name);
	}
	for (size_t i = 0; i < n->n_output; i++) {
		const struct onnx_formal *f = onnx_schema_output(sc,
								 (unsigned)i);
		if (!f) {
			const struct onnx_formal *last = sc->noutputs ?
				onnx_schema_output(sc, sc->noutputs - 1u) : NULL;
			if (last && last->option == ONNX_FORMAL_VARIADIC)
				break;
			if (nout <= sc->max_output)
				problem(c, "%s: more outputs (%d) than %s "
					"declares (%u)", nlabel, nout, sname,
					sc->noutputs);
			break;
		}
		if (!*S(n->output[i]) && f->option == ONNX_FORMAL_SINGLE)
			problem(c, "%s: output #%zu '%s' is empty but not "
				"optional", nlabel, i, f->name);
	}

	struct strmap seen = STRMAP_INIT;
	for (size_t i = 0; i < n->n_attribute; i++) {
		const Onnx__AttributeProto *a = n->attribute[i];
		const char *name = S(a->name);
		if (!strmap_add(&seen, name, NULL)) {
			problem(c, "%s: attribute \"%s\" is given twice",
				nlabel, name);
			continue;
		}
		const struct onnx_attr_def *def = onnx_schema_attr(sc, name);
		if (!def) {
			if (sc->unchecked_attrs ||
			    (name[0] == '_' && name[1] == '_'))
				continue;
			problem(c, "%s: unknown attribute \"%s\" for %s",
				nlabel, name, sname);
			continue;
		}
		if (!a->has_type && c->ir_version >= 2)
			continue; /* reported by check_attribute */
		int type = a->has_type ? (int)a->type : 0;
		if (type != def->type) {
			problem(c, "%s: attribute \"%s\" has the wrong type %s, "
				"%s expects %s", nlabel, name,
				onnx_attr_type_name(type), sname,
				onnx_attr_type_name(def->type));
			continue;
		}
		if (a->ref_attr_name && *a->ref_attr_name)
			continue;
		int missing = 0;
		switch (def->type) {
		case ONNX_ATTR_TENSOR: missing = !a->t; break;
		case ONNX_ATTR_SPARSE_TENSOR:
			missing = !a->sparse_tensor;
			break;
		case ONNX_ATTR_GRAPH: missing = !a->g; break;
		case ONNX_ATTR_TYPE_PROTO: missing = !a->tp; break;
		case ONNX_ATTR_FLOATS: missing = !a->n_floats; break;
		case ONNX_ATTR_INTS: missing = !a->n_ints; break;
		case ONNX_ATTR_STRINGS: missing = !a->n_strings; break;
		case ONNX_ATTR_TENSORS: missing = !a->n_tensors; break;
		case ONNX_ATTR_GRAPHS: missing = !a->n_graphs; break;
		case ONNX_ATTR_TYPE_PROTOS: missing = !a->n_type_protos; break;
		default: break; /* scalars default to 0 in proto3 style */
		}
		if (missing)
			problem(c, "%s: attribute \"%s\" (%s) has no value "
				"(field '%s' is not set)", nlabel, name,
				onnx_attr_type_name(def->type),
				attr_field_names[def->type]);
	}
	for (unsigned i = 0; i < sc->nattrs; i++) {
		const struct onnx_attr_def *def = onnx_schema_attr_at(sc, i);
		if (def->required && !strmap_get(&seen, def->name, NULL))
			problem(c, "%s: required attribute \"%s\" is missing "
				"(%s)", nlabel, def->name, sname);
	}
	strmap_release(&seen);
}

/* The schema the node binds to, NULL when none (not reported here). */
static const struct onnx_schema *node_schema(const Onnx__NodeProto *n,
					     const struct gctx *g)
{
	if (!n->op_type || !*n->op_type)
		return NULL;
	int64_t v = opset_version(g->ops, S(n->domain));
	return v < 0 ? NULL : onnx_schema_find(S(n->domain), n->op_type, v);
}

/* The model's local function (domain, name), or NULL. */
static const Onnx__FunctionProto *find_function(const struct ctx *c,
						const char *domain,
						const char *name)
{
	if (c->ir_version < 8 || !c->model)
		return NULL;
	for (size_t i = 0; i < c->model->n_functions; i++) {
		const Onnx__FunctionProto *f = c->model->functions[i];
		if (!strcmp(S(f->domain), domain) && !strcmp(S(f->name), name))
			return f;
	}
	return NULL;
}

/* A node that calls a local function gives it at most as many inputs and
 * outputs as the function declares (ONNX Runtime inlines it; onnx's
 * checker leaves the call unchecked). */
static void check_call(struct ctx *c, const Onnx__NodeProto *n,
		       const char *nlabel)
{
	const Onnx__FunctionProto *f = find_function(c, S(n->domain),
						     n->op_type);
	if (!f)
		return;
	if (n->n_input > f->n_input)
		problem(c, "%s: %zu inputs, but function %s of domain \"%s\" "
			"takes %zu", nlabel, n->n_input, S(f->name),
			S(f->domain), f->n_input);
	if (n->n_output > f->n_output)
		problem(c, "%s: %zu outputs, but function %s of domain \"%s\" "
			"has %zu", nlabel, n->n_output, S(f->name),
			S(f->domain), f->n_output);
}

/* onnx's check_node. */
static void check_node(struct ctx *c, const Onnx__NodeProto *n,
		       const char *nlabel, const struct gctx *g,
		       const struct scope *s)
{
	if (!n->op_type || !*n->op_type) {
		problem(c, "%s: op_type is empty", nlabel);
		return;
	}
	if (!n->n_input && !n->n_output) {
		problem(c, "%s: has no inputs and no outputs", nlabel);
		return;
	}
	if (onnx_schema_builtin_domain(S(n->domain)) &&
	    onnx_schema_experimental(n->op_type)) {
		diag_warning(c->d, "%s: experimental op %s is not checked",
			     nlabel, n->op_type);
		return;
	}
	const char *domain = S(n->domain);
	int64_t v = opset_version(g->ops, domain);
	if (v < 0 && !(c->no_opsets && g->ops->n == 0))
		problem(c, "%s: domain \"%s\" is not imported (no "
			"opset_import entry)", nlabel, domain);
	for (size_t i = 0; i < n->n_attribute; i++)
		check_attribute(c, n->attribute[i], i, nlabel, g, s);
	if (v < 0)
		return;
	const struct onnx_schema *sc = onnx_schema_find(domain, n->op_type, v);
	if (!sc) {
		if (!onnx_schema_builtin_domain(domain)) {
			check_call(c, n, nlabel);
			return; /* custom domain: no schema to check against */
		}
		if (onnx_schema_known_op(domain, n->op_type))
			problem(c, "%s: %s does not exist at opset %" PRId64
				" of domain \"%s\" (no schema)", nlabel,
				n->op_type, v, domain);
		else
			problem(c, "%s: unknown op %s in domain \"%s\" at "
				"opset %" PRId64 " (no schema)%s", nlabel,
				n->op_type, domain, v,
				strcmp(domain, "ai.onnx") ? "" :
				"; ai.onnx ops are in the domain \"\"");
		return;
	}
	if (sc->deprecated) {
		problem(c, "%s: %s is deprecated at opset %" PRId64
			" (deprecated since %d)", nlabel, n->op_type, v,
			sc->since_version);
		return;
	}
	verify_node(c, n, sc, nlabel);
}

/* --- graphs ------------------------------------------------------------- */

static void check_nodes(struct ctx *c, Onnx__NodeProto *const *nodes,
			size_t nnodes, const struct gctx *g,
			struct scope *s, int function)
{
	for (size_t k = 0; k < nnodes; k++) {
		const Onnx__NodeProto *n = nodes[k];
		char *nlabel = node_label(n, k, g);
		const struct onnx_schema *sc = node_schema(n, g);
		for (size_t i = 0; i < n->n_input; i++) {
			const char *in = S(n->input[i]);
			if (!*in)
				continue;
			if (function ? scope_has(s, in) : scope_has_any(s, in))
				continue;
			const char *fn = sc ? formal_name(sc, 0, i) : "";
			problem(c, "%s: input #%zu%s%s%s uses undefined value "
				"\"%s\" (not an output of an earlier node, an "
				"input or an initializer)", nlabel, i,
				*fn ? " '" : "", fn, *fn ? "'" : "", in);
		}
		check_node(c, n, nlabel, g, s);
		for (size_t i = 0; i < n->n_output; i++) {
			const char *out = S(n->output[i]);
			if (!*out)
				continue;
			if (scope_has_any(s, out))
				problem(c, "%s: output \"%s\" is already defined "
					"(SSA: a value is assigned once)",
					nlabel, out);
			scope_add(s, out);
		}
		free(nlabel);
	}
}

static void check_graph(struct ctx *c, const Onnx__GraphProto *gp,
			const struct gctx *g, const struct scope *parent)
{
	if (!gp->name || !*gp->name)
		problem(c, "%s has no name", g->label);
	for (size_t i = 0; i < gp->n_input; i++)
		check_value_info(c, gp->input[i], "input", i, g);
	for (size_t i = 0; i < gp->n_output; i++)
		check_value_info(c, gp->output[i], "output", i, g);

	struct scope s = { parent, STRMAP_INIT };
	for (size_t i = 0; i < gp->n_input; i++) {
		const char *name = S(gp->input[i]->name);
		if (!*name)
			continue;
		if (scope_has(&s, name))
			problem(c, "%s: input \"%s\" is given twice (SSA: names "
				"must be unique)", g->label, name);
		scope_add(&s, name);
	}

	struct strmap inits = STRMAP_INIT;
	for (size_t i = 0; i < gp->n_initializer; i++) {
		const Onnx__TensorProto *t = gp->initializer[i];
		const char *name = S(t->name);
		if (!*name) {
			problem(c, "%s: initializer #%zu has no name", g->label,
				i);
			continue;
		}
		char *label = fmt("%s%sinitializer \"%s\"",
				  g->main ? "" : g->label, g->main ? "" : ": ",
				  name);
		if (!strmap_add(&inits, name, NULL))
			problem(c, "%s is not unique (initializer names must "
				"be unique)", label);
		check_tensor(c, t, label);
		if (c->ir_version <= 3) {
			if (!scope_has(&s, name))
				problem(c, "%s is not a graph input (required "
					"below IR version 4)", label);
		} else {
			scope_add(&s, name);
		}
		free(label);
	}
	for (size_t i = 0; i < gp->n_sparse_initializer; i++) {
		const Onnx__SparseTensorProto *sp = gp->sparse_initializer[i];
		const char *name = sp->values ? S(sp->values->name) : "";
		if (!*name) {
			problem(c, "%s: sparse initializer #%zu has no name",
				g->label, i);
			continue;
		}
		char *label = fmt("%s%ssparse initializer \"%s\"",
				  g->main ? "" : g->label, g->main ? "" : ": ",
				  name);
		if (!strmap_add(&inits, name, NULL))
			problem(c, "%s is not unique across initializers and "
				"sparse initializers", label);
		check_sparse_tensor(c, sp, label);
		scope_add(&s, name);
		free(label);
	}
	strmap_release(&inits);

	check_nodes(c, gp->node, gp->n_node, g, &s, 0);

	/* [strict] the IR spec: graph outputs name values that exist */
	for (size_t i = 0; i < gp->n_output; i++) {
		const char *name = S(gp->output[i]->name);
		if (*name && !scope_has_any(&s, name))
			problem(c, "%s: output \"%s\" is not defined by any "
				"node, input or initializer", g->label, name);
	}
	strmap_release(&s.names);
}

/* --- functions ---------------------------------------------------------- */

static void check_function(struct ctx *c, const Onnx__FunctionProto *fp,
			   const struct opsets *model_ops)
{
	char *label = fmt("function \"%s\"", S(fp->name));
	if (!fp->name || !*fp->name)
		problem(c, "function has no name");
	if (c->ir_version >= 8 && !fp->domain)
		problem(c, "%s has no domain", label);

	struct opsets fops = { 0 };
	for (size_t i = 0; i < fp->n_opset_import; i++)
		opsets_add(&fops, S(fp->opset_import[i]->domain),
			   fp->opset_import[i]->version);

	struct scope s = { NULL, STRMAP_INIT };
	for (size_t i = 0; i < fp->n_input; i++) {
		if (scope_has(&s, S(fp->input[i])))
			problem(c, "%s: input \"%s\" is given twice", label,
				S(fp->input[i]));
		scope_add(&s, S(fp->input[i]));
	}
	struct strmap set = STRMAP_INIT;
	for (size_t i = 0; i < fp->n_output; i++)
		if (!strmap_add(&set, S(fp->output[i]), NULL))
			problem(c, "%s: output \"%s\" is given twice", label,
				S(fp->output[i]));
	strmap_release(&set);
	for (size_t i = 0; i < fp->n_attribute; i++)
		if (!strmap_add(&set, S(fp->attribute[i]), NULL))
			problem(c, "%s: attribute \"%s\" is given twice", label,
				S(fp->attribute[i]));
	strmap_release(&set);

	char *where = fmt(" in %s", label);
	struct gctx g = { label, where, 1, &fops, 0 };
	for (size_t k = 0; k < fp->n_node; k++) {
		const Onnx__NodeProto *n = fp->node[k];
		const char *dom = S(n->domain);
		int64_t fv = opset_version(&fops, dom);
		int64_t mv = opset_version(model_ops, dom);
		char *nlabel = node_label(n, k, &g);
		/* an unimported domain is reported by check_node */
		if (fv >= 0 && mv >= 0 && mv != fv && n->op_type) {
			const struct onnx_schema *a =
				onnx_schema_find(dom, n->op_type, mv);
			const struct onnx_schema *b =
				onnx_schema_find(dom, n->op_type, fv);
			if ((a || b) && (!a || !b ||
					 a->since_version != b->since_version))
				problem(c, "%s: the function imports domain "
					"\"%s\" at version %" PRId64 ", "
					"incompatible with the model's %" PRId64,
					nlabel, dom, fv, mv);
		}
		free(nlabel);
	}
	check_nodes(c, fp->node, fp->n_node, &g, &s, 1);
	strmap_release(&s.names);
	opsets_release(&fops);
	free(where);
	free(label);
}

/* --- the model ---------------------------------------------------------- */

int onnx_check_model(const Onnx__ModelProto *m, const char *path,
		     struct diag *d)
{
	char *dir = onnx_model_dir(path);
	struct ctx c = { d, dir, 0, 0, 0, m };
	int64_t known = onnx_schema_ir_version();

	if (!m->has_ir_version || m->ir_version == 0) {
		problem(&c, "model: ir_version is not set");
		c.ir_version = known;
	} else if (m->ir_version > known ||
		   m->ir_version < 0) { /* [strict] negative */
		problem(&c, "model: ir_version %" PRId64 " is unknown (this "
			"checker knows up to %" PRId64 ")", m->ir_version,
			known);
		c.ir_version = known;
	} else {
		c.ir_version = m->ir_version;
	}

	struct strmap keys = STRMAP_INIT;
	for (size_t i = 0; i < m->n_metadata_props; i++)
		if (!strmap_add(&keys, S(m->metadata_props[i]->key), NULL))
			problem(&c, "model: metadata_props key \"%s\" is given "
				"twice", S(m->metadata_props[i]->key));
	strmap_release(&keys);

	struct opsets ops = { 0 };
	struct strmap doms = STRMAP_INIT;
	for (size_t i = 0; i < m->n_opset_import; i++) {
		const Onnx__OperatorSetIdProto *o = m->opset_import[i];
		if (!strmap_add(&doms, S(o->domain), NULL)) /* [strict] */
			problem(&c, "model: opset_import lists domain \"%s\" "
				"twice", S(o->domain));
		opsets_add(&ops, S(o->domain), o->version);
	}
	strmap_release(&doms);
	if (c.ir_version >= 3) {
		if (!ops.n) {
			problem(&c, "model: no opset_import (required from IR "
				"version 3)");
			c.no_opsets = 1;
		}
	} else if (ops.n) {
		problem(&c, "model: opset_import is not allowed below IR "
			"version 3");
	} else {
		opsets_add(&ops, "", 1);
	}

	if (!m->graph) {
		problem(&c, "model has no graph");
	} else {
		char *label = m->graph->name && *m->graph->name ?
			      fmt("graph \"%s\"", m->graph->name) :
			      fmt("main graph");
		struct gctx g = { label, "", 1, &ops, 0 };
		check_graph(&c, m->graph, &g, NULL);
		free(label);
	}

	if (c.ir_version >= 8 && m->n_functions) {
		/* functions see the model's imports plus their own */
		struct opsets all = { 0 };
		for (size_t i = 0; i < ops.n; i++)
			opsets_add(&all, ops.domain[i], ops.version[i]);
		for (size_t i = 0; i < m->n_functions; i++) {
			const Onnx__FunctionProto *f = m->functions[i];
			for (size_t j = 0; j < f->n_opset_import; j++) {
				const char *dom = S(f->opset_import[j]->domain);
				if (opset_version(&all, dom) < 0)
					opsets_add(&all, dom,
						   f->opset_import[j]->version);
			}
		}
		for (size_t i = 0; i < m->n_functions; i++) {
			const Onnx__FunctionProto *f = m->functions[i];
			for (size_t j = 0; j < i; j++)
				if (!strcmp(S(m->functions[j]->domain),
					    S(f->domain)) &&
				    !strcmp(S(m->functions[j]->name),
					    S(f->name)))
					problem(&c, "model: function %s of domain "
						"\"%s\" is given twice",
						S(f->name), S(f->domain));
			check_function(&c, f, &all);
		}
		opsets_release(&all);
	}
	opsets_release(&ops);
	free(dir);
	return c.nproblems;
}

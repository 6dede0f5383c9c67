/*
 * onnx_schema.c - lookups in the generated ONNX operator schema table
 * (onnx_schemas.inc, see onnx_schema.h).
 *
 * The table is sorted by (domain, name, since_version) with strcmp order, so
 * a lookup is a binary search for the (domain, name) run followed by a walk
 * back from its end to the greatest since_version <= opset: O(log n), no
 * allocation, no start-up cost.
 */
#include "onnx_schema.h"

#include <stddef.h>
#include <string.h>

#include "onnx_schemas.inc"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static int key_cmp(const char *d1, const char *n1, const char *d2,
		   const char *n2)
{
	int c = strcmp(d1, d2);
	return c ? c : strcmp(n1, n2);
}

/* Index one past the last entry of the (domain, op) run, or 0 when none. */
static size_t run_end(const char *domain, const char *op, size_t *begin)
{
	size_t lo = 0, hi = COUNT(onnx_schema_table);
	/* first entry with key > (domain, op) */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct onnx_schema *s = &onnx_schema_table[mid];
		if (key_cmp(s->domain, s->name, domain, op) <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t end = lo, b = lo;
	while (b > 0 && !key_cmp(onnx_schema_table[b - 1].domain,
				 onnx_schema_table[b - 1].name, domain, op))
		b--;
	*begin = b;
	return b == end ? 0 : end;
}

const struct onnx_schema *onnx_schema_find(const char *domain, const char *op,
					   int64_t opset)
{
	size_t begin;
	if (!op)
		return NULL;
	size_t end = run_end(domain ? domain : "", op, &begin);
	for (size_t i = end; i > begin; i--)
		if (onnx_schema_table[i - 1].since_version <= opset)
			return &onnx_schema_table[i - 1];
	return NULL;
}

int onnx_schema_known_op(const char *domain, const char *op)
{
	size_t begin;
	return op && run_end(domain ? domain : "", op, &begin) != 0;
}

const struct onnx_formal *onnx_schema_input(const struct onnx_schema *s,
					    unsigned i)
{
	return i < s->ninputs ? &onnx_schema_formals[s->input0 + i] : NULL;
}

const struct onnx_formal *onnx_schema_output(const struct onnx_schema *s,
					     unsigned i)
{
	return i < s->noutputs ? &onnx_schema_formals[s->output0 + i] : NULL;
}

const struct onnx_attr_def *onnx_schema_attr(const struct onnx_schema *s,
					     const char *name)
{
	unsigned lo = 0, hi = s->nattrs;
	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;
		const struct onnx_attr_def *a =
			&onnx_schema_attrs[s->attr0 + mid];
		int c = strcmp(a->name, name);
		if (!c)
			return a;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const struct onnx_attr_def *onnx_schema_attr_at(const struct onnx_schema *s,
						unsigned i)
{
	return i < s->nattrs ? &onnx_schema_attrs[s->attr0 + i] : NULL;
}

const struct onnx_domain_range *onnx_schema_domain(const char *domain)
{
	const char *want = domain ? domain : "";
	for (size_t i = 0; i < COUNT(onnx_schema_domains); i++)
		if (!strcmp(onnx_schema_domains[i].domain, want))
			return &onnx_schema_domains[i];
	return NULL;
}

int onnx_schema_builtin_domain(const char *domain)
{
	static const char *const builtin[] = {
		"", "ai.onnx", "ai.onnx.ml", "ai.onnx.training",
	};
	for (size_t i = 0; i < COUNT(builtin); i++)
		if (!strcmp(builtin[i], domain ? domain : ""))
			return 1;
	return 0;
}

int onnx_schema_experimental(const char *op)
{
	static const char *const experimental[] = {
		"ATen", "Affine", "ConstantFill", "Crop", "DynamicSlice",
		"GRUUnit", "GivenTensorFill", "ImageScaler",
		"ParametricSoftplus", "Scale", "ScaledTanh",
	};
	for (size_t i = 0; i < COUNT(experimental); i++)
		if (!strcmp(experimental[i], op))
			return 1;
	return 0;
}

const char *onnx_attr_type_name(int type)
{
	static const char *const names[ONNX_ATTR_TYPE_COUNT] = {
		[ONNX_ATTR_UNDEFINED] = "UNDEFINED",
		[ONNX_ATTR_FLOAT] = "FLOAT",
		[ONNX_ATTR_INT] = "INT",
		[ONNX_ATTR_STRING] = "STRING",
		[ONNX_ATTR_TENSOR] = "TENSOR",
		[ONNX_ATTR_GRAPH] = "GRAPH",
		[ONNX_ATTR_FLOATS] = "FLOATS",
		[ONNX_ATTR_INTS] = "INTS",
		[ONNX_ATTR_STRINGS] = "STRINGS",
		[ONNX_ATTR_TENSORS] = "TENSORS",
		[ONNX_ATTR_GRAPHS] = "GRAPHS",
		[ONNX_ATTR_SPARSE_TENSOR] = "SPARSE_TENSOR",
		[ONNX_ATTR_SPARSE_TENSORS] = "SPARSE_TENSORS",
		[ONNX_ATTR_TYPE_PROTO] = "TYPE_PROTO",
		[ONNX_ATTR_TYPE_PROTOS] = "TYPE_PROTOS",
	};
	if (type < 0 || type >= ONNX_ATTR_TYPE_COUNT || !names[type])
		return "UNDEFINED";
	return names[type];
}

int onnx_schema_ir_version(void)
{
	return ONNX_SCHEMA_IR_VERSION;
}

const char *onnx_schema_source(void)
{
	return ONNX_SCHEMA_SOURCE;
}

unsigned onnx_schema_count(void)
{
	return (unsigned)COUNT(onnx_schema_table);
}

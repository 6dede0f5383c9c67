/*
 * onnx_to_ir.c - an unpacked ONNX ModelProto as an ONNX-level IR graph
 * (the mapping is documented in onnx_read.h).
 *
 * Robust by design: it runs on models the checker rejects so that
 * `check --print` can still show them.  An undefined input becomes a value
 * nothing defines, a repeated name gets a fresh one, tensor data of the
 * wrong length is cut or zero-padded to the declared shape (or, when the
 * shape is absurdly large for the data, kept as the 1-D data it is).
 * Names are looked up through one map per (sub)graph chained to the
 * enclosing one, as ONNX scoping works.  Everything kept is copied into the
 * graph's arena; cost is linear in the model, plus a copy of inline data.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "ir.h"
#include "onnx_read.h"
#include "strmap.h"
#include "version.h"

#define S(x) ((x) ? (x) : "")

/* Inline tensors whose declared size exceeds what they carry by more
 * than this are kept as their data rather than padded. */
#define PAD_LIMIT ((uint64_t)16 << 20)

struct conv {
	struct ir_graph *g;
	struct diag *d;
	const char *dir; /* model directory, "" or ".../" */
};

struct vscope {
	const struct vscope *parent;
	struct strmap map; /* ONNX name -> struct ir_value * */
};

static struct ir_value *lookup(const struct vscope *s, const char *name)
{
	void *v;
	for (; s; s = s->parent)
		if (strmap_get(&s->map, name, &v))
			return v;
	return NULL;
}

/* `name` if the graph has no value of that name, else "name.N"; a fresh
 * name for "". */
static const char *unique_name(struct conv *c, const char *name)
{
	if (!*name)
		return ir_fresh_name(c->g, "_v");
	if (!ir_find_value(c->g, name))
		return name;
	for (unsigned k = 1;; k++) {
		char *n = ir_strfmt(c->g, "%s.%u", name, k);
		if (!ir_find_value(c->g, n))
			return n;
	}
}

static struct ir_value *new_value(struct conv *c, const char *name,
				  struct ir_type *type)
{
	return ir_value_new(c->g, unique_name(c, name), type);
}

/* --- types -------------------------------------------------------------- */

static enum ir_dtype dtype_of(int32_t dt)
{
	return dt > 0 && dt < IR_DTYPE_COUNT ? (enum ir_dtype)dt
					     : IR_DTYPE_UNDEFINED;
}

static struct ir_type *tensor_type(struct conv *c, int has_elem, int32_t elem,
				   const Onnx__TensorShapeProto *shape)
{
	struct ir_type *t = ir_type_new(c->g, IR_TYPE_TENSOR);
	t->dtype = has_elem ? dtype_of(elem) : IR_DTYPE_UNDEFINED;
	if (!shape || shape->n_dim > INT32_MAX)
		return t; /* rank unknown */
	t->rank = (int)shape->n_dim;
	if (t->rank)
		t->dims = ir_alloc(c->g, sizeof(*t->dims) * shape->n_dim);
	for (size_t i = 0; i < shape->n_dim; i++) {
		const Onnx__TensorShapeProto__Dimension *d = shape->dim[i];
		int is_value = d->value_case ==
			ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
		int is_param = d->value_case ==
			ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
		if (is_value && d->dim_value >= 0) {
			t->dims[i].kind = IR_DIM_FIXED;
			t->dims[i].value = d->dim_value;
		} else if (is_param && d->dim_param && *d->dim_param) {
			t->dims[i].kind = IR_DIM_SYMBOL;
			t->dims[i].symbol = ir_strdup(c->g, d->dim_param);
		}
	}
	return t;
}

static struct ir_type *type_of(struct conv *c, const Onnx__TypeProto *tp)
{
	struct ir_type *t;
	if (!tp)
		return ir_type_new(c->g, IR_TYPE_UNKNOWN);
	switch (tp->value_case) {
	case ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE:
		return tensor_type(c, tp->tensor_type->has_elem_type,
				   tp->tensor_type->elem_type,
				   tp->tensor_type->shape);
	case ONNX__TYPE_PROTO__VALUE_SPARSE_TENSOR_TYPE:
		return tensor_type(c, tp->sparse_tensor_type->has_elem_type,
				   tp->sparse_tensor_type->elem_type,
				   tp->sparse_tensor_type->shape);
	case ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE:
		t = ir_type_new(c->g, IR_TYPE_LIST);
		t->elems = ir_alloc(c->g, sizeof(*t->elems));
		t->elems[0] = type_of(c, tp->sequence_type->elem_type);
		t->nelems = 1;
		return t;
	case ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE:
		t = ir_type_new(c->g, IR_TYPE_OPTIONAL);
		t->elems = ir_alloc(c->g, sizeof(*t->elems));
		t->elems[0] = type_of(c, tp->optional_type->elem_type);
		t->nelems = 1;
		return t;
	case ONNX__TYPE_PROTO__VALUE_MAP_TYPE:
		t = ir_type_new(c->g, IR_TYPE_DICT);
		t->elems = ir_alloc(c->g, 2 * sizeof(*t->elems));
		t->elems[0] = ir_type_tensor(c->g,
					     dtype_of(tp->map_type->key_type), 0,
					     NULL);
		t->elems[1] = type_of(c, tp->map_type->value_type);
		t->nelems = 2;
		return t;
	default:
		return ir_type_new(c->g, IR_TYPE_UNKNOWN);
	}
}

/* --- tensors ------------------------------------------------------------ */

static void put_le(unsigned char *p, uint64_t v, size_t n)
{
	for (size_t i = 0; i < n; i++, v >>= 8)
		p[i] = (unsigned char)v;
}

static uint64_t float_bits(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	return u;
}

static uint64_t double_bits(double f)
{
	uint64_t u;
	memcpy(&u, &f, 8);
	return u;
}

/* Element count of the declared shape; 0 with *bad set on overflow. */
static uint64_t shape_numel(const Onnx__TensorProto *tp, int *bad)
{
	uint64_t n = 1;
	*bad = 0;
	for (size_t i = 0; i < tp->n_dims; i++) {
		uint64_t d = tp->dims[i] < 0 ? 0 : (uint64_t)tp->dims[i];
		if (__builtin_mul_overflow(n, d, &n)) {
			*bad = 1;
			return 0;
		}
	}
	return n;
}

/* How many elements the data fields carry, for the dtype. */
static uint64_t data_elems(const Onnx__TensorProto *tp, enum ir_dtype dt,
			   size_t esize)
{
	if (tp->has_raw_data && tp->raw_data.len)
		return esize ? tp->raw_data.len / esize : 0;
	switch (dt) {
	case IR_DTYPE_FLOAT:
		return tp->n_float_data;
	case IR_DTYPE_COMPLEX64:
		return tp->n_float_data / 2;
	case IR_DTYPE_DOUBLE:
		return tp->n_double_data;
	case IR_DTYPE_COMPLEX128:
		return tp->n_double_data / 2;
	case IR_DTYPE_INT64:
		return tp->n_int64_data;
	case IR_DTYPE_UINT32:
	case IR_DTYPE_UINT64:
		return tp->n_uint64_data;
	case IR_DTYPE_STRING:
		return tp->n_string_data;
	default:
		return tp->n_int32_data;
	}
}

/* Fills n elements of p (esize bytes each) from the typed fields. */
static void typed_to_bytes(const Onnx__TensorProto *tp, enum ir_dtype dt,
			   size_t esize, unsigned char *p, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		unsigned char *q = p + i * esize;
		switch (dt) {
		case IR_DTYPE_FLOAT:
			put_le(q, float_bits(tp->float_data[i]), 4);
			break;
		case IR_DTYPE_COMPLEX64:
			put_le(q, float_bits(tp->float_data[2 * i]), 4);
			put_le(q + 4, float_bits(tp->float_data[2 * i + 1]), 4);
			break;
		case IR_DTYPE_DOUBLE:
			put_le(q, double_bits(tp->double_data[i]), 8);
			break;
		case IR_DTYPE_COMPLEX128:
			put_le(q, double_bits(tp->double_data[2 * i]), 8);
			put_le(q + 8, double_bits(tp->double_data[2 * i + 1]),
			       8);
			break;
		case IR_DTYPE_INT64:
			put_le(q, (uint64_t)tp->int64_data[i], 8);
			break;
		case IR_DTYPE_UINT32:
		case IR_DTYPE_UINT64:
			put_le(q, tp->uint64_data[i], esize);
			break;
		default: /* int32_data holds the narrower types' bits */
			put_le(q, (uint64_t)(uint32_t)tp->int32_data[i], esize);
			break;
		}
	}
}

static struct ir_tensor *tensor_of(struct conv *c, const Onnx__TensorProto *tp,
				   const char *what)
{
	enum ir_dtype dt = dtype_of(tp->data_type);
	size_t esize = ir_dtype_size(dt);
	int rank = tp->n_dims > 64 ? 0 : (int)tp->n_dims;
	struct ir_tensor *t = ir_tensor_new(c->g, dt, rank, NULL);
	for (int i = 0; i < rank; i++)
		t->dims[i] = tp->dims[i] < 0 ? 0 : tp->dims[i];
	t->doc = ir_strdup(c->g, tp->doc_string);
	if (tp->n_dims > 64)
		diag_warning(c->d, "%s: rank %zu is too large, printed as a "
			     "scalar", what, tp->n_dims);

	int bad;
	uint64_t numel = shape_numel(tp, &bad);
	if (tp->has_data_location &&
	    tp->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL) {
		const char *loc = "", *off = NULL, *len = NULL;
		for (size_t i = 0; i < tp->n_external_data; i++) {
			const Onnx__StringStringEntryProto *e =
				tp->external_data[i];
			if (!e->key || !e->value)
				continue;
			if (!strcmp(e->key, "location"))
				loc = e->value;
			else if (!strcmp(e->key, "offset"))
				off = e->value;
			else if (!strcmp(e->key, "length"))
				len = e->value;
		}
		/* a location the checker refuses (absolute, "..") is not
		 * turned into a weight() that emit would read: the tensor
		 * is printed without its data, as an empty 1-D one */
		if (loc[0] == '/' || loc[0] == '\\' ||
		    onnx_path_has_dotdot(loc)) {
			diag_warning(c->d, "%s: external data location \"%s\" "
				     "is outside the model's directory; printed "
				     "without its data", what, loc);
			t->rank = 1;
			t->dims = ir_alloc(c->g, sizeof(*t->dims));
			t->dims[0] = 0;
			return t;
		}
		t->data_kind = IR_DATA_REF;
		t->ref.file = ir_strfmt(c->g, "%s%s", c->dir, loc);
		t->ref.offset = off ? strtoull(off, NULL, 10) : 0;
		if (len)
			t->ref.length = strtoull(len, NULL, 10);
		else if (!bad && esize &&
			 !__builtin_mul_overflow(numel, esize, &t->ref.length))
			;
		else
			t->ref.length = 0;
		return t;
	}

	uint64_t have = data_elems(tp, dt, esize), pad;
	if (bad || (numel > have &&
		    (__builtin_mul_overflow(numel - have,
					    esize ? esize
						  : sizeof(struct ir_bytes),
					    &pad) || pad > PAD_LIMIT))) {
		diag_warning(c->d, "%s: declared shape does not match its "
			     "%" PRIu64 " elements of data; printed as 1-D",
			     what, have);
		t->rank = 1;
		t->dims = ir_alloc(c->g, sizeof(*t->dims));
		t->dims[0] = (int64_t)have;
		numel = have;
	}
	uint64_t n = numel < have ? numel : have;
	if (dt == IR_DTYPE_STRING) {
		t->strings = ir_alloc(c->g, sizeof(*t->strings) *
					    (numel ? numel : 1));
		for (uint64_t i = 0; i < n; i++)
			t->strings[i].data = ir_strndup(c->g,
				(const char *)tp->string_data[i].data,
				tp->string_data[i].len),
			t->strings[i].len = tp->string_data[i].len;
		for (uint64_t i = n; i < numel; i++)
			t->strings[i].data = ir_strdup(c->g, "");
		return t;
	}
	if (!esize) /* unknown data type: no bytes to keep */
		return t;
	unsigned char *p = ir_alloc(c->g, numel ? numel * esize : 1);
	if (tp->has_raw_data && tp->raw_data.len)
		memcpy(p, tp->raw_data.data, n * esize);
	else
		typed_to_bytes(tp, dt, esize, p, n);
	t->bytes.data = (const char *)p;
	t->bytes.len = numel * esize;
	return t;
}

/* --- graphs ------------------------------------------------------------- */

static struct ir_block *graph_to_block(struct conv *c,
				       const Onnx__GraphProto *gp,
				       struct ir_block *b,
				       const struct vscope *parent,
				       int top);

static int attr_kind(const Onnx__AttributeProto *a)
{
	if (a->has_type && a->type)
		return (int)a->type;
	/* IR version 1 had no type: the field in use says it */
	if (a->has_f) return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT;
	if (a->has_i) return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
	if (a->has_s) return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING;
	if (a->t) return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR;
	if (a->g) return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH;
	if (a->n_floats) return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS;
	if (a->n_ints) return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS;
	if (a->n_strings) return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS;
	if (a->n_tensors) return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSORS;
	if (a->n_graphs) return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPHS;
	return 0;
}

static struct ir_block *subgraph(struct conv *c, const Onnx__GraphProto *gp,
				 struct ir_node *owner,
				 const struct vscope *s)
{
	struct ir_block *b = ir_block_new(c->g);
	b->owner = owner;
	return graph_to_block(c, gp, b, s, 0);
}

static void convert_attr(struct conv *c, struct ir_node *n,
			 const Onnx__AttributeProto *a, const char *nwhat,
			 const struct vscope *s)
{
	struct ir_graph *g = c->g;
	const char *name = S(a->name);
	int kind = attr_kind(a);
	struct ir_attr *x;
	char *what;
	switch (kind) {
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT:
		ir_node_add_attr(g, n, name, IR_ATTR_FLOAT)->u.f = a->f;
		break;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT:
		ir_node_add_attr(g, n, name, IR_ATTR_INT)->u.i = a->i;
		break;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING:
		x = ir_node_add_attr(g, n, name, IR_ATTR_STRING);
		x->u.s.data = a->has_s ? ir_strndup(g, (const char *)a->s.data,
						    a->s.len)
				       : ir_strdup(g, "");
		x->u.s.len = a->has_s ? a->s.len : 0;
		break;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR:
		if (!a->t)
			goto unrepresentable;
		what = ir_strfmt(g, "%s: attribute \"%s\"", nwhat, name);
		ir_node_add_attr(g, n, name, IR_ATTR_TENSOR)->u.t =
			tensor_of(c, a->t, what);
		break;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH:
		if (!a->g)
			goto unrepresentable;
		x = ir_node_add_attr(g, n, name, IR_ATTR_GRAPH);
		x->u.g = subgraph(c, a->g, n, s);
		break;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS:
		x = ir_node_add_attr(g, n, name, IR_ATTR_FLOATS);
		x->count = (uint32_t)a->n_floats;
		x->u.floats = ir_alloc(g, sizeof(double) * (a->n_floats + 1));
		for (size_t i = 0; i < a->n_floats; i++)
			x->u.floats[i] = a->floats[i];
		break;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS:
		x = ir_node_add_attr(g, n, name, IR_ATTR_INTS);
		x->count = (uint32_t)a->n_ints;
		x->u.ints = ir_alloc(g, sizeof(int64_t) * (a->n_ints + 1));
		if (a->n_ints)
			memcpy(x->u.ints, a->ints, sizeof(int64_t) * a->n_ints);
		break;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS:
		x = ir_node_add_attr(g, n, name, IR_ATTR_STRINGS);
		x->count = (uint32_t)a->n_strings;
		x->u.strings = ir_alloc(g, sizeof(struct ir_bytes) *
					   (a->n_strings + 1));
		for (size_t i = 0; i < a->n_strings; i++) {
			x->u.strings[i].data = ir_strndup(g,
				(const char *)a->strings[i].data,
				a->strings[i].len);
			x->u.strings[i].len = a->strings[i].len;
		}
		break;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSORS:
		x = ir_node_add_attr(g, n, name, IR_ATTR_TENSORS);
		x->count = (uint32_t)a->n_tensors;
		x->u.tensors = ir_alloc(g, sizeof(struct ir_tensor *) *
					   (a->n_tensors + 1));
		for (size_t i = 0; i < a->n_tensors; i++) {
			what = ir_strfmt(g, "%s: attribute \"%s\" tensor #%zu",
					 nwhat, name, i);
			x->u.tensors[i] = tensor_of(c, a->tensors[i], what);
		}
		break;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPHS:
		x = ir_node_add_attr(g, n, name, IR_ATTR_GRAPHS);
		x->count = (uint32_t)a->n_graphs;
		x->u.graphs = ir_alloc(g, sizeof(struct ir_block *) *
					  (a->n_graphs + 1));
		for (size_t i = 0; i < a->n_graphs; i++)
			x->u.graphs[i] = subgraph(c, a->graphs[i], n, s);
		break;
	default:
	unrepresentable:
		diag_warning(c->d, "%s: attribute \"%s\" of type %d cannot be "
			     "represented in the IR; left out", nwhat, name,
			     kind);
	}
}

static void convert_node(struct conv *c, const Onnx__NodeProto *np,
			 size_t idx, struct ir_block *b, struct vscope *s,
			 struct strmap *types)
{
	struct ir_graph *g = c->g;
	const char *dom = S(np->domain);
	char *kind = ir_strfmt(g, "%s::%s", *dom ? dom : "onnx",
			       S(np->op_type));
	size_t nout = np->n_output;
	while (nout > 0 && !*S(np->output[nout - 1]))
		nout--; /* trailing omitted optional outputs */
	struct ir_node *n = ir_node_new(g, b, kind, (uint32_t)np->n_input,
					(uint32_t)nout);
	n->name = np->name && *np->name ? ir_strdup(g, np->name) : NULL;
	n->doc = np->doc_string && *np->doc_string ?
		 ir_strdup(g, np->doc_string) : NULL;
	const char *nwhat = n->name ? ir_strfmt(g, "node \"%s\"", n->name)
				    : ir_strfmt(g, "node #%zu (%s)", idx,
						S(np->op_type));

	for (size_t i = 0; i < np->n_input; i++) {
		const char *in = S(np->input[i]);
		if (!*in)
			continue; /* absent optional input: NULL */
		struct ir_value *v = lookup(s, in);
		if (!v) { /* undefined (an invalid model): a dangling value */
			v = new_value(c, in, NULL);
			strmap_put(&s->map, in, v);
		}
		n->inputs[i] = v;
	}
	for (size_t i = 0; i < np->n_attribute; i++) {
		const Onnx__AttributeProto *a = np->attribute[i];
		/* only an unchecked (experimental) op gets here with these */
		if (!a->name || !*a->name || ir_node_find_attr(n, a->name)) {
			diag_warning(c->d, "%s: attribute #%zu has %s name; left "
				     "out", nwhat, i, a->name && *a->name ?
				     "a repeated" : "no");
			continue;
		}
		convert_attr(c, n, a, nwhat, s);
	}
	for (size_t i = 0; i < nout; i++) {
		const char *out = S(np->output[i]);
		void *tp = NULL;
		if (*out)
			strmap_get(types, out, &tp);
		struct ir_value *v = new_value(c, out, type_of(c, tp));
		ir_node_set_output(n, (uint32_t)i, v);
		if (*out)
			strmap_put(&s->map, out, v);
	}
}

static struct ir_block *graph_to_block(struct conv *c,
				       const Onnx__GraphProto *gp,
				       struct ir_block *b,
				       const struct vscope *parent, int top)
{
	struct ir_graph *g = c->g;
	struct vscope s = { parent, STRMAP_INIT };
	struct strmap types = STRMAP_INIT, inits = STRMAP_INIT;

	if (!top)
		b->name = gp->name && *gp->name ? ir_strdup(g, gp->name) : NULL;
	/* types: value_info, then outputs, then inputs (the last wins) */
	for (size_t i = 0; i < gp->n_value_info; i++)
		if (gp->value_info[i]->type)
			strmap_put(&types, S(gp->value_info[i]->name),
				   gp->value_info[i]->type);
	for (size_t i = 0; i < gp->n_output; i++)
		if (gp->output[i]->type)
			strmap_put(&types, S(gp->output[i]->name),
				   gp->output[i]->type);
	for (size_t i = 0; i < gp->n_initializer; i++)
		strmap_put(&inits, S(gp->initializer[i]->name), NULL);

	/* graph inputs that are not initializers */
	size_t both = 0;
	for (size_t i = 0; i < gp->n_input; i++) {
		const Onnx__ValueInfoProto *vi = gp->input[i];
		if (strmap_get(&inits, S(vi->name), NULL)) {
			both++;
			continue;
		}
		struct ir_value *v = new_value(c, S(vi->name),
					       type_of(c, vi->type));
		ir_block_add_param(g, b, v);
		if (*S(vi->name))
			strmap_put(&s.map, S(vi->name), v);
	}
	if (top && gp->n_initializer && both == gp->n_initializer)
		ir_add_prop(g, "onnx.initializers_as_inputs", "1");

	for (size_t i = 0; i < gp->n_initializer; i++) {
		const Onnx__TensorProto *tp = gp->initializer[i];
		const char *name = S(tp->name);
		char *what = ir_strfmt(g, "initializer \"%s\"", name);
		struct ir_tensor *t = tensor_of(c, tp, what);
		struct ir_value *v = ir_add_weight(g, top ? NULL : b,
						   unique_name(c, name), t);
		if (*name)
			strmap_put(&s.map, name, v);
	}
	if (gp->n_sparse_initializer)
		diag_warning(c->d, "graph \"%s\": %zu sparse initializers "
			     "cannot be represented in the IR; left out",
			     S(gp->name), gp->n_sparse_initializer);
	strmap_release(&inits);

	for (size_t i = 0; i < gp->n_node; i++)
		convert_node(c, gp->node[i], i, b, &s, &types);

	for (size_t i = 0; i < gp->n_output; i++) {
		const Onnx__ValueInfoProto *vo = gp->output[i];
		struct ir_value *v = lookup(&s, S(vo->name));
		if (!v) /* undefined output (an invalid model) */
			v = new_value(c, S(vo->name), type_of(c, vo->type));
		else if (v->type->kind == IR_TYPE_UNKNOWN && vo->type)
			v->type = type_of(c, vo->type);
		ir_block_add_return(g, b, v);
	}
	strmap_release(&types);
	strmap_release(&s.map);
	return b;
}

static void prop_str(struct ir_graph *g, const char *key, const char *v)
{
	if (v && *v)
		ir_add_prop(g, key, v);
}

struct ir_graph *onnx_to_ir(const Onnx__ModelProto *m, const char *path,
			    struct diag *d)
{
	struct ir_graph *g = ir_graph_new(IR_LEVEL_ONNX);
	char *dir = onnx_model_dir(path);
	struct conv c = { g, d, dir };

	g->producer = ir_strdup(g, "check " PT2ONNX_VERSION);
	for (size_t i = 0; i < m->n_opset_import; i++)
		ir_add_opset(g, S(m->opset_import[i]->domain),
			     m->opset_import[i]->version);
	if (m->has_ir_version)
		ir_add_prop(g, "onnx.ir_version",
			    ir_strfmt(g, "%" PRId64, m->ir_version));
	prop_str(g, "onnx.producer_name", m->producer_name);
	prop_str(g, "onnx.producer_version", m->producer_version);
	prop_str(g, "onnx.domain", m->domain);
	if (m->has_model_version)
		ir_add_prop(g, "onnx.model_version",
			    ir_strfmt(g, "%" PRId64, m->model_version));
	prop_str(g, "onnx.doc_string", m->doc_string);
	for (size_t i = 0; i < m->n_metadata_props; i++)
		ir_add_prop(g, ir_strfmt(g, "onnx.metadata.%s",
					 S(m->metadata_props[i]->key)),
			    S(m->metadata_props[i]->value));
	if (m->n_functions)
		diag_warning(d, "%zu model-local functions cannot be "
			     "represented in the IR; left out",
			     m->n_functions);
	if (m->n_training_info)
		diag_warning(d, "training_info cannot be represented in the "
			     "IR; left out");

	if (m->graph) {
		g->name = m->graph->name && *m->graph->name ?
			  ir_strdup(g, m->graph->name) : NULL;
		g->doc = m->graph->doc_string && *m->graph->doc_string ?
			 ir_strdup(g, m->graph->doc_string) : NULL;
		graph_to_block(&c, m->graph, g->top, NULL, 1);
	}
	free(dir);
	return g;
}

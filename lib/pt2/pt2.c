/*
 * pt2.c - torch.export archives (.pt2) into aten-level IR: see pt2.h.
 *
 * The serde format (torch/_export/serde/schema.py, major 8): an
 * ExportedProgram {graph_module: {graph: {inputs, outputs, nodes,
 * tensor_values, sym_int_values, ...}, signature: {input_specs,
 * output_specs}}, range_constraints, schema_version}; a node {target,
 * inputs: [{name, arg, kind}], outputs: [arg]}; an arg a one-key object
 * ({"as_tensor": {"name": n}}, {"as_int": 3}, {"as_sym_ints": [...]}...).
 * Enums are serde's own numbering (ScalarType FLOAT = 7, Layout Strided =
 * 7, MemoryFormat ContiguousFormat = 1), mapped here to TorchScript's.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "aten_schema.h"
#include "pt2.h"

#define PT2_SCHEMA_MAJOR 8
#define PT2_MAX_JSON (1u << 30) /* a JSON entry larger is refused */
#define PT2_MAX_NEST 32 /* subgraphs (cond, wrap_with_*) nested deeper are
			   refused */
#define PT2_MAX_CALLS 100000 /* calls converted, subgraphs' included: a
				 while_loop reads its cond_fn twice, so
				 nested ones could double it 32 times */

struct rd {
	struct zip *z;
	struct diag *d;
	struct ir_graph *g;
	const struct pt2_options *o;
	const char *root;     /* "exported/": the folder the entries share */
	size_t rootlen;
	const char *model;    /* the program's name */
	const char *entry;    /* the JSON entry being read, for messages */
	json_t *tvals;        /* graph.tensor_values */
	json_t *names;        /* value name -> index in vals: the scope of the
				 graph being read (a subgraph's own) */
	json_t *outer[PT2_MAX_NEST]; /* the scopes around it, innermost last */
	int depth;
	struct ir_block *block; /* where nodes go */
	long ncalls;          /* calls converted so far */
	struct ir_value **vals;
	size_t nvals, capvals;
	json_t *wconf, *cconf; /* the weights' and constants' configs */
	char *unsupported;    /* the calls that cannot be converted */
	size_t nunsup;
	int code;             /* exit status of the first error */
};

static int fail(struct rd *r, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct rd *r, int code, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (!r->code) {
		r->code = code;
		diag_error(r->d, "%s%s%s", r->entry ? r->entry : "",
			   r->entry ? ": " : "", buf);
	}
	return -1;
}

/* --- JSON access: every key checked ------------------------------------- */

static json_t *get(struct rd *r, json_t *obj, const char *key, int type,
		   const char *what)
{
	json_t *v = json_is_object(obj) ? json_object_get(obj, key) : NULL;

	if (!v || (type >= 0 && (int)json_typeof(v) != type &&
		   !(type == JSON_TRUE && json_is_boolean(v)))) {
		fail(r, EXIT_BAD_INPUT, "%s: '%s' is missing or not %s", what,
		     key, type == JSON_OBJECT ? "an object" : type == JSON_ARRAY
		     ? "an array" : type == JSON_STRING ? "a string"
		     : type == JSON_INTEGER ? "an integer" : "a boolean");
		return NULL;
	}
	return v;
}

/* A string without NUL bytes, non-empty when `name` (a value's name). */
static const char *str_of(struct rd *r, json_t *v, int name, const char *what)
{
	const char *s = json_string_value(v);

	if (!s || strlen(s) != json_string_length(v) || (name && !*s)) {
		fail(r, EXIT_BAD_INPUT, "%s: not a%s string", what,
		     name ? " non-empty" : "");
		return NULL;
	}
	return s;
}

static const char *get_str(struct rd *r, json_t *obj, const char *key,
			   const char *what)
{
	json_t *v = get(r, obj, key, JSON_STRING, what);
	return v ? str_of(r, v, 1, what) : NULL;
}

/* The one key of an argument object ({"as_int": 3}) and its value. */
static const char *one_key(struct rd *r, json_t *arg, json_t **val,
			   const char *what)
{
	const char *k;
	json_t *v;

	if (!json_is_object(arg) || json_object_size(arg) != 1) {
		fail(r, EXIT_BAD_INPUT, "%s: not an argument object", what);
		return NULL;
	}
	json_object_foreach(arg, k, v) {
		*val = v;
		return k;
	}
	return NULL;
}

/* The name of a user input's or output's tensor (role "input", "output"):
 * arg is {"as_tensor": {"name": ...}}; NULL after reporting (a NULL arg was
 * reported by its reader). */
static const char *user_tensor_name(struct rd *r, json_t *arg,
				    const char *role, const char *what)
{
	json_t *x;
	const char *k = arg ? one_key(r, arg, &x, what) : NULL;

	if (!k)
		return NULL;
	if (strcmp(k, "as_tensor")) {
		fail(r, EXIT_UNSUPPORTED, "%s: a user %s of kind '%s' (only "
		     "tensors are supported)", what, role, k);
		return NULL;
	}
	return get_str(r, x, "name", what);
}

/* --- values by name ------------------------------------------------------ */

static int bind_name(struct rd *r, const char *name, struct ir_value *v)
{
	if (json_object_get(r->names, name))
		return fail(r, EXIT_BAD_INPUT, "value '%s' is defined twice",
			    name);
	if (r->nvals == r->capvals) {
		size_t n = r->capvals ? 2 * r->capvals : 64;
		struct ir_value **p = realloc(r->vals, n * sizeof(*p));
		if (!p)
			return fail(r, EXIT_IO, "out of memory");
		r->vals = p;
		r->capvals = n;
	}
	r->vals[r->nvals] = v;
	json_object_set_new(r->names, name, json_integer((json_int_t)r->nvals));
	r->nvals++;
	return 0;
}

static struct ir_value *lookup(struct rd *r, const char *name, const char *what)
{
	json_t *i = json_object_get(r->names, name);

	for (int k = r->depth - 1; !i && k >= 0; k--)
		i = json_object_get(r->outer[k], name);

	if (!i) {
		fail(r, EXIT_BAD_INPUT, "%s: value '%s' is not defined before "
		     "its use", what, name);
		return NULL;
	}
	return r->vals[json_integer_value(i)];
}

/* A value named as the program names it, or a fresh name when the graph
 * has one of that name already (a weight's qualified name). */
static struct ir_value *new_value(struct rd *r, const char *name,
				  struct ir_type *t)
{
	if (!name || ir_find_value(r->g, name))
		return ir_value_new(r->g, ir_fresh_name(r->g, name ? name : "v"),
				    t);
	return ir_value_new(r->g, name, t);
}

/* --- types --------------------------------------------------------------- */

/* serde's ScalarType to ours (0: none we take). */
static enum ir_dtype dtype_of(json_int_t st)
{
	static const enum ir_dtype map[] = {
		[1] = IR_DTYPE_UINT8, [2] = IR_DTYPE_INT8,
		[3] = IR_DTYPE_INT16, [4] = IR_DTYPE_INT32,
		[5] = IR_DTYPE_INT64, [6] = IR_DTYPE_FLOAT16,
		[7] = IR_DTYPE_FLOAT, [8] = IR_DTYPE_DOUBLE,
		[10] = IR_DTYPE_COMPLEX64, [11] = IR_DTYPE_COMPLEX128,
		[12] = IR_DTYPE_BOOL, [13] = IR_DTYPE_BFLOAT16,
	};
	if (st < 0 || st >= (json_int_t)(sizeof(map) / sizeof(map[0])))
		return IR_DTYPE_UNDEFINED;
	return map[st];
}

/* serde's ScalarType as TorchScript's int (c10::ScalarType), -1: none. */
static int64_t torch_scalar_type(json_int_t st)
{
	if (st >= 1 && st <= 12)
		return st - 1; /* Byte 0 ... Bool 11 */
	if (st == 13)
		return 15; /* BFloat16 */
	return -1;
}

/* The symbol of a sympy expression that is one symbol ("s77" or
 * "Symbol('s77', positive=True, integer=True)"), into the arena; NULL for
 * any other expression. */
static const char *symbol_of(struct rd *r, const char *e)
{
	size_t n;

	if (!strncmp(e, "Symbol('", 8)) {
		e += 8;
		n = strcspn(e, "'");
		if (e[n] != '\'' || strncmp(e + n, "',", 2) ||
		    e[strlen(e) - 1] != ')')
			return NULL;
	} else {
		n = strlen(e);
	}
	if (!n || (e[0] >= '0' && e[0] <= '9'))
		return NULL;
	for (size_t i = 0; i < n; i++) {
		char c = e[i];
		if (!(c == '_' || (c >= 'a' && c <= 'z') ||
		      (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')))
			return NULL;
	}
	return ir_strndup(r->g, e, n);
}

/* A tensor_meta ({dtype, sizes, strides, storage_offset, ...}) as a type;
 * fixed dims into dims when not NULL (rank entries, -1 for a symbolic
 * one). */
static struct ir_type *meta_type(struct rd *r, json_t *meta, const char *what)
{
	json_t *dt = get(r, meta, "dtype", JSON_INTEGER, what);
	json_t *sizes = dt ? get(r, meta, "sizes", JSON_ARRAY, what) : NULL;
	struct ir_type *t;
	size_t i;
	json_t *s;

	if (!sizes)
		return NULL;
	enum ir_dtype dtype = dtype_of(json_integer_value(dt));
	if (dtype == IR_DTYPE_UNDEFINED) {
		fail(r, EXIT_UNSUPPORTED, "%s: dtype %" JSON_INTEGER_FORMAT
		     " (serde's numbering) is not supported", what,
		     json_integer_value(dt));
		return NULL;
	}
	if (json_array_size(sizes) > 64) {
		fail(r, EXIT_BAD_INPUT, "%s: rank %zu is over 64", what,
		     json_array_size(sizes));
		return NULL;
	}
	t = ir_type_tensor(r->g, dtype, (int)json_array_size(sizes), NULL);
	json_array_foreach(sizes, i, s) {
		json_t *v;
		const char *k = one_key(r, s, &v, what);
		if (!k)
			return NULL;
		if (!strcmp(k, "as_int") && json_is_integer(v) &&
		    json_integer_value(v) >= 0) {
			t->dims[i].kind = IR_DIM_FIXED;
			t->dims[i].value = json_integer_value(v);
		} else if (!strcmp(k, "as_expr")) {
			json_t *e = get(r, v, "expr_str", JSON_STRING, what);
			const char *es = e ? str_of(r, e, 0, what) : NULL;
			if (!es)
				return NULL;
			const char *sym = symbol_of(r, es);
			if (sym) {
				t->dims[i].kind = IR_DIM_SYMBOL;
				t->dims[i].symbol = sym;
			}
		} else {
			fail(r, EXIT_BAD_INPUT, "%s: size %zu is not an int or "
			     "an expression", what, i);
			return NULL;
		}
	}
	return t;
}

static struct ir_type *scalar_type(struct rd *r, enum ir_type_kind k)
{
	return ir_type_new(r->g, k);
}

static struct ir_type *list_type(struct rd *r, struct ir_type *elem)
{
	struct ir_type *t = ir_type_new(r->g, IR_TYPE_LIST);
	t->elems = ir_alloc(r->g, sizeof(*t->elems));
	t->elems[0] = elem;
	t->nelems = 1;
	return t;
}

/* The type of the tensor value `name` (graph.tensor_values). */
static struct ir_type *tensor_type(struct rd *r, const char *name)
{
	json_t *meta = json_object_get(r->tvals, name);
	char what[300];

	if (!meta) {
		fail(r, EXIT_BAD_INPUT, "tensor '%s' has no entry in "
		     "tensor_values", name);
		return NULL;
	}
	snprintf(what, sizeof(what), "tensor_values '%s'", name);
	return meta_type(r, meta, what);
}

/* --- nodes and constants ------------------------------------------------- */

/* n's output i: a new value named nm (NULL: reported by its reader) of the
 * type tensor_values gives it, bound to its name; 0 or -1 (reported). */
static int tensor_output(struct rd *r, struct ir_node *n, uint32_t i,
			 const char *nm)
{
	struct ir_type *t = nm ? tensor_type(r, nm) : NULL;
	struct ir_value *v;

	if (!t)
		return -1;
	v = new_value(r, nm, t);
	ir_node_set_output(n, i, v);
	return bind_name(r, nm, v);
}

static struct ir_node *node(struct rd *r, enum aten_op op, uint32_t nin,
			    uint32_t nout)
{
	return ir_node_new(r->g, r->block, aten_op_name(op), nin, nout);
}

/* prim::Constant of kind k; the attribute (NULL for None) to fill in. */
static struct ir_value *constant(struct rd *r, struct ir_type *t,
				 enum ir_attr_kind k, struct ir_attr **a)
{
	struct ir_node *n = node(r, OP_prim_Constant, 0, 1);
	struct ir_value *v = new_value(r, NULL, t);

	ir_node_set_output(n, 0, v);
	if (a)
		*a = ir_node_add_attr(r->g, n, "value", k);
	return v;
}

static struct ir_value *const_int(struct rd *r, enum ir_type_kind k,
				  int64_t i)
{
	struct ir_attr *a;
	struct ir_value *v = constant(r, scalar_type(r, k), IR_ATTR_INT, &a);
	a->u.i = i;
	return v;
}

static struct ir_value *const_float(struct rd *r, double f)
{
	struct ir_attr *a;
	struct ir_value *v = constant(r, scalar_type(r, IR_TYPE_FLOAT),
				      IR_ATTR_FLOAT, &a);
	a->u.f = f;
	return v;
}

static struct ir_value *const_str(struct rd *r, enum ir_type_kind k,
				  const char *s)
{
	struct ir_attr *a;
	struct ir_value *v = constant(r, scalar_type(r, k), IR_ATTR_STRING, &a);
	a->u.s.data = ir_strdup(r->g, s);
	a->u.s.len = strlen(s);
	return v;
}

static struct ir_value *const_none(struct rd *r)
{
	return constant(r, scalar_type(r, IR_TYPE_NONE), IR_ATTR_INT, NULL);
}

/* An int list constant, or a float list (f non-NULL). */
static struct ir_value *const_list(struct rd *r, enum ir_type_kind k,
				   const int64_t *i, const double *f, size_t n)
{
	struct ir_attr *a;
	struct ir_value *v = constant(r, list_type(r, scalar_type(r, k)),
				      f ? IR_ATTR_FLOATS : IR_ATTR_INTS, &a);
	a->count = (uint32_t)n;
	if (f) {
		a->u.floats = ir_alloc(r->g, sizeof(double) * (n ? n : 1));
		memcpy(a->u.floats, f, sizeof(double) * n);
	} else {
		a->u.ints = ir_alloc(r->g, sizeof(int64_t) * (n ? n : 1));
		memcpy(a->u.ints, i, sizeof(int64_t) * n);
	}
	return v;
}

/* prim::ListConstruct of n values of element type elem. */
static struct ir_value *list_construct(struct rd *r, struct ir_value **items,
				       size_t n, struct ir_type *elem)
{
	struct ir_node *ln = node(r, OP_prim_ListConstruct, (uint32_t)n, 1);
	struct ir_value *v = new_value(r, NULL, list_type(r, elem));

	for (size_t i = 0; i < n; i++)
		ln->inputs[i] = items[i];
	ir_node_set_output(ln, 0, v);
	return v;
}

/* --- arguments ----------------------------------------------------------- */

/* A SymInt / SymBool / SymFloat argument ({"as_name": n} or a literal). */
static struct ir_value *sym_arg(struct rd *r, json_t *v, enum ir_type_kind k,
				const char *what)
{
	json_t *x;
	const char *key = one_key(r, v, &x, what);

	if (!key)
		return NULL;
	if (!strcmp(key, "as_name")) {
		const char *nm = str_of(r, x, 1, what);
		return nm ? lookup(r, nm, what) : NULL;
	}
	if ((!strcmp(key, "as_int") && json_is_integer(x)) ||
	    (!strcmp(key, "as_bool") && json_is_boolean(x)))
		return const_int(r, k, json_is_integer(x) ? json_integer_value(x)
				 : json_is_true(x));
	if (!strcmp(key, "as_float") && json_is_number(x))
		return const_float(r, json_number_value(x));
	fail(r, EXIT_BAD_INPUT, "%s: '%s' is not a symbolic value", what, key);
	return NULL;
}

/* A {"name": n} tensor reference. */
static struct ir_value *tensor_ref(struct rd *r, json_t *v, const char *what)
{
	const char *nm = get_str(r, v, "name", what);
	return nm ? lookup(r, nm, what) : NULL;
}

/* Items of a list argument, each through fn, into a ListConstruct (or an
 * int/float list constant when all are literal). */
static struct ir_value *list_arg(struct rd *r, const char *key, json_t *x,
				 const char *what)
{
	size_t n = json_array_size(x), i;
	json_t *e;

	if (!json_is_array(x)) {
		fail(r, EXIT_BAD_INPUT, "%s: '%s' is not an array", what, key);
		return NULL;
	}
	if (!strcmp(key, "as_ints") || !strcmp(key, "as_floats") ||
	    !strcmp(key, "as_bools")) {
		int fl = key[3] == 'f';
		int64_t *iv = calloc(n ? n : 1, sizeof(int64_t));
		double *fv = calloc(n ? n : 1, sizeof(double));
		struct ir_value *res = NULL;
		if (!iv || !fv) {
			fail(r, EXIT_IO, "out of memory");
			goto lit_done;
		}
		json_array_foreach(x, i, e) {
			if (fl ? !json_is_number(e) : key[3] == 'i'
				 ? !json_is_integer(e) : !json_is_boolean(e)) {
				fail(r, EXIT_BAD_INPUT, "%s: item %zu of '%s' "
				     "has the wrong type", what, i, key);
				goto lit_done;
			}
			if (fl)
				fv[i] = json_number_value(e);
			else
				iv[i] = json_is_boolean(e) ? json_is_true(e)
				      : json_integer_value(e);
		}
		res = const_list(r, fl ? IR_TYPE_FLOAT : key[3] == 'i'
				 ? IR_TYPE_INT : IR_TYPE_BOOL, iv,
				 fl ? fv : NULL, n);
lit_done:
		free(iv);
		free(fv);
		return res;
	}
	struct ir_value **items = calloc(n ? n : 1, sizeof(*items));
	struct ir_type *elem = NULL;
	struct ir_value *res = NULL;
	int all_int = 1;
	if (!items) {
		fail(r, EXIT_IO, "out of memory");
		return NULL;
	}
	json_array_foreach(x, i, e) {
		if (!strcmp(key, "as_tensors")) {
			items[i] = tensor_ref(r, e, what);
			elem = ir_type_tensor(r->g, IR_DTYPE_UNDEFINED, -1,
					      NULL);
		} else if (!strcmp(key, "as_optional_tensors")) {
			json_t *y;
			const char *k2 = one_key(r, e, &y, what);
			if (k2 && !strcmp(k2, "as_tensor"))
				items[i] = tensor_ref(r, y, what);
			else if (k2 && !strcmp(k2, "as_none"))
				items[i] = const_none(r);
			else if (k2)
				fail(r, EXIT_BAD_INPUT, "%s: '%s' in an "
				     "optional tensor list", what, k2);
			elem = ir_type_new(r->g, IR_TYPE_OPTIONAL);
			elem->elems = ir_alloc(r->g, sizeof(*elem->elems));
			elem->elems[0] = ir_type_tensor(r->g,
				IR_DTYPE_UNDEFINED, -1, NULL);
			elem->nelems = 1;
		} else if (!strcmp(key, "as_sym_ints") ||
			   !strcmp(key, "as_sym_bools") ||
			   !strcmp(key, "as_sym_floats")) {
			enum ir_type_kind k = key[7] == 'i' ? IR_TYPE_INT
					    : key[7] == 'b' ? IR_TYPE_BOOL
					    : IR_TYPE_FLOAT;
			json_t *y;
			const char *k2 = one_key(r, e, &y, what);
			if (k2 && strcmp(k2, "as_int"))
				all_int = 0;
			items[i] = k2 ? sym_arg(r, e, k, what) : NULL;
			elem = scalar_type(r, k);
		} else {
			fail(r, EXIT_BAD_INPUT, "%s: unknown list '%s'", what,
			     key);
		}
		if (!items[i])
			goto done;
	}
	if (!elem)
		elem = !strcmp(key, "as_tensors")
			? ir_type_tensor(r->g, IR_DTYPE_UNDEFINED, -1, NULL)
			: scalar_type(r, IR_TYPE_INT);
	if (!strcmp(key, "as_sym_ints") && all_int) {
		/* literal ints only: one int[] constant, as trace writes */
		int64_t *iv = calloc(n ? n : 1, sizeof(int64_t));
		if (!iv) {
			fail(r, EXIT_IO, "out of memory");
			goto done;
		}
		json_array_foreach(x, i, e)
			iv[i] = json_integer_value(json_object_get(e,
							"as_int"));
		res = const_list(r, IR_TYPE_INT, iv, NULL, n);
		free(iv);
		goto done;
	}
	res = list_construct(r, items, n, elem);
done:
	free(items);
	return res;
}

/* One argument as a value; base: the schema's base type (ATEN_BASE_*) for
 * literals, -1 when unknown. */
static struct ir_value *arg_value(struct rd *r, json_t *arg, int base,
				  const char *what)
{
	json_t *x;
	const char *k = one_key(r, arg, &x, what);

	if (!k)
		return NULL;
	if (!strcmp(k, "as_none"))
		return const_none(r);
	if (!strcmp(k, "as_tensor") || !strcmp(k, "as_optional_tensor")) {
		if (!strcmp(k, "as_optional_tensor")) {
			json_t *y;
			const char *k2 = one_key(r, x, &y, what);
			if (!k2)
				return NULL;
			if (!strcmp(k2, "as_none"))
				return const_none(r);
			x = y;
		}
		return tensor_ref(r, x, what);
	}
	if (!strcmp(k, "as_int") && json_is_integer(x))
		return const_int(r, base == ATEN_BASE_FLOAT ? IR_TYPE_FLOAT
				 : IR_TYPE_INT, json_integer_value(x));
	if (!strcmp(k, "as_float") && json_is_number(x))
		return const_float(r, json_number_value(x));
	if (!strcmp(k, "as_bool") && json_is_boolean(x))
		return const_int(r, IR_TYPE_BOOL, json_is_true(x));
	if (!strcmp(k, "as_string")) {
		const char *s = str_of(r, x, 0, what);
		return s ? const_str(r, IR_TYPE_STR, s) : NULL;
	}
	if (!strcmp(k, "as_sym_int"))
		return sym_arg(r, x, IR_TYPE_INT, what);
	if (!strcmp(k, "as_sym_bool"))
		return sym_arg(r, x, IR_TYPE_BOOL, what);
	if (!strcmp(k, "as_sym_float"))
		return sym_arg(r, x, IR_TYPE_FLOAT, what);
	if (!strcmp(k, "as_scalar_type") && json_is_integer(x)) {
		int64_t st = torch_scalar_type(json_integer_value(x));
		if (st < 0) {
			fail(r, EXIT_UNSUPPORTED, "%s: scalar type %"
			     JSON_INTEGER_FORMAT " is not supported", what,
			     json_integer_value(x));
			return NULL;
		}
		return const_int(r, IR_TYPE_INT, st);
	}
	if (!strcmp(k, "as_layout") && json_is_integer(x)) {
		if (json_integer_value(x) != 7) {
			fail(r, EXIT_UNSUPPORTED, "%s: layout %"
			     JSON_INTEGER_FORMAT " is not strided", what,
			     json_integer_value(x));
			return NULL;
		}
		return const_int(r, IR_TYPE_INT, 0); /* torch.strided */
	}
	if (!strcmp(k, "as_memory_format") && json_is_integer(x)) {
		/* serde: Contiguous 1, ChannelsLast 2, ChannelsLast3d 3,
		 * Preserve 4; TorchScript: 0, 2, 3, 1 */
		static const int64_t mf[] = { -1, 0, 2, 3, 1 };
		json_int_t v = json_integer_value(x);
		if (v < 1 || v > 4) {
			fail(r, EXIT_UNSUPPORTED, "%s: memory format %"
			     JSON_INTEGER_FORMAT " is not supported", what, v);
			return NULL;
		}
		return const_int(r, IR_TYPE_INT, mf[v]);
	}
	if (!strcmp(k, "as_device")) {
		const char *ty = get_str(r, x, "type", what);
		json_t *idx = ty ? json_object_get(x, "index") : NULL;
		char dev[64];
		if (!ty)
			return NULL;
		if (json_is_integer(idx))
			snprintf(dev, sizeof(dev), "%.40s:%" JSON_INTEGER_FORMAT,
				 ty, json_integer_value(idx));
		else
			snprintf(dev, sizeof(dev), "%.40s", ty);
		return const_str(r, IR_TYPE_DEVICE, dev);
	}
	if (!strcmp(k, "as_ints") || !strcmp(k, "as_floats") ||
	    !strcmp(k, "as_bools") || !strcmp(k, "as_tensors") ||
	    !strcmp(k, "as_optional_tensors") || !strcmp(k, "as_sym_ints") ||
	    !strcmp(k, "as_sym_bools") || !strcmp(k, "as_sym_floats"))
		return list_arg(r, k, x, what);
	fail(r, EXIT_UNSUPPORTED, "%s: argument of kind '%s' is not supported",
	     what, k);
	return NULL;
}

/* A schema argument's default as a value. */
static struct ir_value *default_value(struct rd *r, const struct aten_arg *a)
{
	enum ir_type_kind k = a->base == ATEN_BASE_FLOAT ? IR_TYPE_FLOAT
			    : a->base == ATEN_BASE_BOOL ? IR_TYPE_BOOL
			    : IR_TYPE_INT;
	const int64_t *iv;
	const double *fv;

	switch (a->def_kind) {
	case ATEN_DEF_NONE:
		return const_none(r);
	case ATEN_DEF_INT:
		if (k == IR_TYPE_FLOAT)
			return const_float(r, (double)a->def_i);
		return const_int(r, k == IR_TYPE_BOOL ? IR_TYPE_INT : k,
				 a->def_i);
	case ATEN_DEF_BOOL:
		return const_int(r, IR_TYPE_BOOL, a->def_i);
	case ATEN_DEF_FLOAT:
		return const_float(r, a->def_f);
	case ATEN_DEF_STR:
		return const_str(r, IR_TYPE_STR, a->def_s);
	case ATEN_DEF_INTS:
	case ATEN_DEF_BOOLS:
		iv = aten_arg_default_ints(a);
		if (a->list_n && a->def_n == 1 && a->list_n > 1) {
			/* int[2] stride=1: torch broadcasts it */
			int64_t b[64];
			for (int i = 0; i < a->list_n && i < 64; i++)
				b[i] = iv[0];
			return const_list(r, IR_TYPE_INT, b, NULL,
					  a->list_n < 64 ? a->list_n : 64);
		}
		return const_list(r, a->def_kind == ATEN_DEF_BOOLS
				  ? IR_TYPE_BOOL : IR_TYPE_INT, iv, NULL,
				  (size_t)a->def_n);
	case ATEN_DEF_FLOATS:
		fv = aten_arg_default_floats(a);
		return const_list(r, IR_TYPE_FLOAT, NULL, fv, (size_t)a->def_n);
	default:
		return NULL;
	}
}

/* --- weights ------------------------------------------------------------- */

/* The weight `fqn` of the weights or constants config, as a graph weight
 * named fqn; bound to the program's name `pname`. */
static int add_weight(struct rd *r, const char *pname, const char *fqn,
		      const char *kind)
{
	json_t *ent = NULL, *cfg = r->wconf;
	const char *folder = "weights";
	char what[512], path[1024];

	ent = json_object_get(json_object_get(r->wconf, "config"), fqn);
	if (!ent) {
		ent = json_object_get(json_object_get(r->cconf, "config"), fqn);
		cfg = r->cconf;
		folder = "constants";
	}
	snprintf(what, sizeof(what), "%s '%s'", kind, fqn);
	if (!ent || !cfg)
		return fail(r, EXIT_BAD_INPUT, "%s has no entry in the weights "
			    "or constants config", what);
	json_t *pick = get(r, ent, "use_pickle", JSON_TRUE, what);
	const char *file = pick ? get_str(r, ent, "path_name", what) : NULL;
	json_t *meta = file ? get(r, ent, "tensor_meta", JSON_OBJECT, what)
			    : NULL;
	if (!meta)
		return -1;
	if (json_is_true(pick))
		return fail(r, EXIT_UNSUPPORTED, "%s is pickled (use_pickle): "
			    "not read, nothing in the archive is executed",
			    what);
	if (strchr(file, '/') || !strcmp(file, "..") || !strcmp(file, "."))
		return fail(r, EXIT_BAD_INPUT, "%s: path_name '%s' is not a "
			    "file name", what, file);
	struct ir_type *t = meta_type(r, meta, what);
	if (!t)
		return -1;
	json_t *strides = get(r, meta, "strides", JSON_ARRAY, what);
	json_t *so = strides ? get(r, meta, "storage_offset", JSON_OBJECT,
				   what) : NULL;
	if (!so)
		return -1;
	if (json_array_size(strides) != (size_t)t->rank)
		return fail(r, EXIT_BAD_INPUT, "%s: %zu strides for rank %d",
			    what, json_array_size(strides), t->rank);
	int64_t dims[64], st[64], off;
	json_t *x = json_object_get(so, "as_int");
	if (!json_is_integer(x) || json_integer_value(x) < 0)
		return fail(r, EXIT_BAD_INPUT, "%s: storage_offset is not a "
			    "non-negative int", what);
	off = json_integer_value(x);
	int contiguous = 1;
	int64_t expect = 1;
	uint64_t span = 1; /* elements the view touches: 1 + sum (d-1)*s */
	int empty = 0;
	for (int i = t->rank - 1; i >= 0; i--) {
		json_t *s = json_object_get(json_array_get(strides,
							   (size_t)i),
					    "as_int");
		if (t->dims[i].kind != IR_DIM_FIXED)
			return fail(r, EXIT_BAD_INPUT, "%s: size %d is not "
				    "fixed", what, i);
		if (!json_is_integer(s) || json_integer_value(s) < 0)
			return fail(r, EXIT_BAD_INPUT, "%s: stride %d is not "
				    "a non-negative int", what, i);
		dims[i] = t->dims[i].value;
		st[i] = json_integer_value(s);
		if (dims[i] == 0)
			empty = 1;
		if (dims[i] != 1 && st[i] != expect)
			contiguous = 0;
		uint64_t term;
		if (__builtin_mul_overflow((uint64_t)(dims[i] ? dims[i] - 1 : 0),
					   (uint64_t)st[i], &term) ||
		    __builtin_add_overflow(span, term, &span) ||
		    __builtin_mul_overflow(expect, dims[i], &expect))
			return fail(r, EXIT_BAD_INPUT, "%s: sizes overflow",
				    what);
	}
	size_t es = ir_dtype_size(t->dtype);
	uint64_t first, bytes, end;
	if (empty)
		span = 0;
	if (__builtin_mul_overflow((uint64_t)off, (uint64_t)es, &first) ||
	    __builtin_mul_overflow(span, (uint64_t)es, &bytes) ||
	    __builtin_add_overflow(first, bytes, &end))
		return fail(r, EXIT_BAD_INPUT, "%s: sizes overflow", what);
	snprintf(path, sizeof(path), "%sdata/%s/%s", r->root, folder, file);
	const struct zip_entry *e = zip_find(r->z, path);
	if (!e)
		return fail(r, EXIT_BAD_INPUT, "%s: entry '%s' is missing",
			    what, path);
	if (first + bytes > e->usize)
		return fail(r, EXIT_BAD_INPUT, "%s: entry '%s' holds %" PRIu64
			    " bytes, its metadata needs %" PRIu64, what, path,
			    e->usize, first + bytes);
	struct ir_tensor *it = ir_tensor_new(r->g, t->dtype, t->rank, dims);
	if (e->method == ZIP_METHOD_STORED) {
		uint64_t at;
		if (zip_locate(r->z, e, &at, r->d))
			return fail(r, EXIT_BAD_INPUT, "%s: entry '%s' cannot "
				    "be located", what, path);
		it->data_kind = IR_DATA_REF;
		it->ref.file = ir_strdup(r->g, r->o->ref_file);
		it->ref.offset = at + first;
		it->ref.length = bytes;
		if (!contiguous && t->rank > 0) {
			it->ref.strides = ir_alloc(r->g, sizeof(int64_t) *
						   (size_t)t->rank);
			memcpy(it->ref.strides, st, sizeof(int64_t) *
			       (size_t)t->rank);
		}
	} else {
		/* deflated: inline, made contiguous */
		void *buf;
		size_t len;
		if (!contiguous)
			return fail(r, EXIT_UNSUPPORTED, "%s: a strided view "
				    "of a compressed entry", what);
		if (zip_read(r->z, e, &buf, &len, r->d))
			return fail(r, EXIT_BAD_INPUT, "%s: entry '%s' cannot "
				    "be read", what, path);
		it->data_kind = IR_DATA_INLINE;
		it->bytes.data = ir_strndup(r->g, (char *)buf + first,
					    (size_t)bytes);
		it->bytes.len = (size_t)bytes;
		free(buf);
	}
	const char *wname = ir_find_value(r->g, fqn)
			  ? ir_fresh_name(r->g, fqn) : fqn;
	return bind_name(r, pname, ir_add_weight(r->g, NULL, wname, it));
}

/* --- the program --------------------------------------------------------- */

/* A call that cannot be converted: noted, its outputs bound to values of
 * unknown type so that the calls after it are still read (and their
 * problems listed too). */
static void unsupported(struct rd *r, const char *target, const char *name,
			json_t *outputs)
{
	size_t i, j;
	json_t *o, *x, *e;

	json_array_foreach(outputs, i, o) {
		const char *k = json_is_object(o) && json_object_size(o) == 1
			? json_object_iter_key(json_object_iter(o)) : NULL;
		x = k ? json_object_get(o, k) : NULL;
		if (!k)
			continue;
		if (!strcmp(k, "as_tensors")) {
			json_array_foreach(x, j, e) {
				const char *nm = json_string_value(
					json_object_get(e, "name"));
				if (nm && *nm && !json_object_get(r->names, nm))
					bind_name(r, nm, new_value(r, NULL,
						ir_type_new(r->g,
							    IR_TYPE_UNKNOWN)));
			}
			continue;
		}
		const char *nm = json_string_value(json_object_get(x, "name"));
		if (!nm)
			nm = json_string_value(json_object_get(x, "as_name"));
		if (nm && *nm && !json_object_get(r->names, nm))
			bind_name(r, nm, new_value(r, NULL, ir_type_new(r->g,
						   IR_TYPE_UNKNOWN)));
	}

	char buf[512];
	int n = snprintf(buf, sizeof(buf), "%s%s (node %s)",
			 r->nunsup ? ", " : "", target, name);
	size_t old = r->unsupported ? strlen(r->unsupported) : 0;
	char *p;

	r->nunsup++;
	if (n < 0 || old > 4096) /* enough to read; the count says the rest */
		return;
	p = realloc(r->unsupported, old + (size_t)n + 1);
	if (!p)
		return;
	memcpy(p + old, buf, (size_t)n + 1);
	r->unsupported = p;
}

/* The graph's value for one output argument of a node: defines it. */
static int define_output(struct rd *r, json_t *out, struct ir_node *n,
			 uint32_t i, const char *what)
{
	json_t *x;
	const char *k = one_key(r, out, &x, what);
	struct ir_value *v;

	if (!k)
		return -1;
	if (!strcmp(k, "as_tensor"))
		return tensor_output(r, n, i, get_str(r, x, "name", what));
	if (!strcmp(k, "as_sym_int") || !strcmp(k, "as_sym_bool") ||
	    !strcmp(k, "as_sym_float")) {
		const char *nm = get_str(r, x, "as_name", what);
		if (!nm)
			return -1;
		v = new_value(r, nm, scalar_type(r, k[7] == 'i' ? IR_TYPE_INT
			      : k[7] == 'b' ? IR_TYPE_BOOL : IR_TYPE_FLOAT));
		ir_node_set_output(n, i, v);
		return bind_name(r, nm, v);
	}
	if (!strcmp(k, "as_none")) {
		ir_node_set_output(n, i, new_value(r, NULL,
			ir_type_tensor(r->g, IR_DTYPE_UNDEFINED, -1, NULL)));
		return 0;
	}
	if (!strcmp(k, "as_tensors")) {
		/* a Tensor[] output, unpacked into the program's names */
		size_t cnt = json_array_size(x), j;
		json_t *e;
		if (!json_is_array(x))
			return fail(r, EXIT_BAD_INPUT, "%s: as_tensors is not "
				    "an array", what);
		v = new_value(r, NULL, list_type(r, ir_type_tensor(r->g,
				IR_DTYPE_UNDEFINED, -1, NULL)));
		ir_node_set_output(n, i, v);
		struct ir_node *u = node(r, OP_prim_ListUnpack, 1,
					 (uint32_t)cnt);
		u->inputs[0] = v;
		json_array_foreach(x, j, e)
			if (tensor_output(r, u, (uint32_t)j,
					  get_str(r, e, "name", what)))
				return -1;
		return 0;
	}
	return fail(r, EXIT_UNSUPPORTED, "%s: output of kind '%s' is not "
		    "supported", what, k);
}

/* The input named `name` of a node ({"name", "arg", "kind"}), or NULL. */
static json_t *node_input(json_t *inputs, const char *name)
{
	size_t i;
	json_t *in;

	json_array_foreach(inputs, i, in) {
		const char *nm = json_string_value(json_object_get(in, "name"));
		if (nm && !strcmp(nm, name))
			return json_object_get(in, "arg");
	}
	return NULL;
}

/* Python's operator module on SymInts: the TorchScript int operators. */
static enum aten_op operator_op(const char *fn)
{
	static const struct {
		const char *fn;
		enum aten_op op;
	} ops[] = {
		{ "add", OP_aten_add }, { "sub", OP_aten_sub },
		{ "mul", OP_aten_mul }, { "floordiv", OP_aten_floordiv },
		{ "truediv", OP_aten_div }, { "mod", OP_aten_remainder },
		{ "pow", OP_aten_pow }, { "neg", OP_aten_neg },
		{ "eq", OP_aten_eq }, { "ne", OP_aten_ne },
		{ "lt", OP_aten_lt }, { "le", OP_aten_le },
		{ "gt", OP_aten_gt }, { "ge", OP_aten_ge },
	};
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strcmp(ops[i].fn, fn))
			return ops[i].op;
	return OP_NONE;
}

/* Calls dropped: runtime assertions on what export already checked. */
static int is_assertion(const char *qual)
{
	static const enum aten_op drop[] = {
		OP_aten__assert_tensor_metadata, OP_aten__assert_scalar,
		OP_aten__assert_async, OP_aten_sym_constrain_range,
		OP_aten_sym_constrain_range_for_size,
	};
	enum aten_op op = aten_op_id(qual);

	for (size_t i = 0; i < sizeof(drop) / sizeof(drop[0]); i++)
		if (op == drop[i])
			return 1;
	return 0;
}

static int convert_node(struct rd *r, json_t *jn, size_t index);

/* --- where a node came from ---------------------------------------------- */

/* torch's scope ("ViTTiny/Conv2d[patch]") from the metadata's
 * nn_module_stack ("key,path,pkg.Class;key,path,pkg.Class..."): the first
 * module by its class, each one inside by class[last part of its path]. */
static const char *scope_of(struct rd *r, const char *stack)
{
	char buf[1024];
	size_t len = 0;

	while (stack && *stack) {
		const char *end = strchr(stack, ';');
		size_t n = end ? (size_t)(end - stack) : strlen(stack);
		const char *c1 = memchr(stack, ',', n);
		const char *c2 = c1 ? memchr(c1 + 1, ',', n - (size_t)(c1 + 1 -
								       stack))
				    : NULL;
		/* torch's placeholder for nodes of no module: skipped */
		if (c2 && strncmp(stack, "_empty_nn_module_stack", 22)) {
			const char *path = c1 + 1, *cls = c2 + 1;
			size_t plen = (size_t)(c2 - path);
			size_t clen = n - (size_t)(cls - stack);
			const char *dot = cls;
			for (const char *q = cls; q < cls + clen; q++)
				if (*q == '.')
					dot = q + 1;
			clen -= (size_t)(dot - cls);
			const char *attr = path;
			for (const char *q = path; q < path + plen; q++)
				if (*q == '.')
					attr = q + 1;
			plen -= (size_t)(attr - path);
			int k = len == 0
				? snprintf(buf, sizeof(buf), "%.*s", (int)clen, dot)
				: snprintf(buf + len, sizeof(buf) - len,
					   "/%.*s[%.*s]", (int)clen, dot,
					   (int)plen, attr);
			if (k < 0 || (size_t)k >= sizeof(buf) - len)
				break;
			len += (size_t)k;
		}
		stack = end ? end + 1 : NULL;
	}
	return len ? ir_strndup(r->g, buf, len) : NULL;
}

/* "file:line" of the innermost frame of the metadata's stack_trace. */
static const char *source_of(struct rd *r, const char *trace)
{
	const char *last = NULL, *p = trace;

	while (p && (p = strstr(p, "File \"")) != NULL) {
		last = p + 6;
		p = last;
	}
	if (!last)
		return NULL;
	const char *q = strchr(last, '"');
	const char *ln = q ? strstr(q, ", line ") : NULL;
	if (!q || !ln || ln != q + 1)
		return NULL;
	long line = strtol(ln + 7, NULL, 10);
	return ir_strfmt(r->g, "%.*s:%ld", (int)(q - last), last, line);
}

/* Scope and source of the nodes made for one call. */
static void set_origin(struct rd *r, json_t *jn, struct ir_node *from)
{
	json_t *meta = json_object_get(jn, "metadata");
	const char *scope = scope_of(r, json_string_value(
		json_object_get(meta, "nn_module_stack")));
	const char *source = source_of(r, json_string_value(
		json_object_get(meta, "stack_trace")));

	for (struct ir_node *n = from ? from->next : r->block->first; n;
	     n = n->next) {
		if (!n->scope)
			n->scope = scope;
		if (!n->source)
			n->source = source;
	}
}

/* --- higher-order operators ---------------------------------------------- */

/* The values an argument names, lists flattened ({"as_tensors": [...]}
 * gives each tensor), appended to v (room for cap) from *n on. */
static int flat_values(struct rd *r, json_t *arg, struct ir_value **v,
		       size_t *n, size_t cap, const char *what)
{
	json_t *x, *e;
	size_t i;
	const char *k = one_key(r, arg, &x, what);

	if (!k)
		return -1;
	if (!strcmp(k, "as_tensors")) {
		json_array_foreach(x, i, e) {
			if (*n == cap)
				return fail(r, EXIT_UNSUPPORTED, "%s: over %zu "
					    "values", what, cap);
			if (!(v[*n] = tensor_ref(r, e, what)))
				return -1;
			(*n)++;
		}
		return 0;
	}
	if (*n == cap)
		return fail(r, EXIT_UNSUPPORTED, "%s: over %zu values", what,
			    cap);
	if (!(v[*n] = arg_value(r, arg, -1, what)))
		return -1;
	(*n)++;
	return 0;
}

/* The names of a node's outputs, one {"as_tensor"} each or lists of them
 * flattened, into names (room for cap); their count, or -1. */
static long output_names(struct rd *r, json_t *outputs, const char **names,
			 size_t cap, const char *what)
{
	size_t i, j, n = 0;
	json_t *o, *x, *e;

	json_array_foreach(outputs, i, o) {
		const char *k = one_key(r, o, &x, what);
		if (!k)
			return -1;
		if (strcmp(k, "as_tensor") && strcmp(k, "as_tensors")) {
			fail(r, EXIT_UNSUPPORTED, "%s: output of kind '%s' of a "
			     "higher-order operator", what, k);
			return -1;
		}
		json_t *items = !strcmp(k, "as_tensor") ? NULL : x;
		size_t cnt = items ? json_array_size(items) : 1;
		for (j = 0; j < cnt; j++) {
			e = items ? json_array_get(items, j) : x;
			const char *nm = get_str(r, e, "name", what);
			if (!nm)
				return -1;
			if (n == cap) {
				fail(r, EXIT_UNSUPPORTED, "%s: over %zu "
				     "outputs", what, cap);
				return -1;
			}
			names[n++] = nm;
		}
	}
	return (long)n;
}

#define PT2_MAX_OPERANDS 256

/* Reads a subgraph (serde Graph) into block b: its inputs are vals[0..n)
 * (in a scope of its own: its names are its own), its nodes go to b, its
 * outputs' values into rets (room for PT2_MAX_OPERANDS); their count, or
 * -1. */
static long convert_subgraph(struct rd *r, json_t *graph, struct ir_value **vals,
			     size_t n, struct ir_block *b, struct ir_value **rets,
			     const char *what)
{
	json_t *gin = get(r, graph, "inputs", JSON_ARRAY, what);
	json_t *gout = gin ? get(r, graph, "outputs", JSON_ARRAY, what) : NULL;
	json_t *nodes = gout ? get(r, graph, "nodes", JSON_ARRAY, what) : NULL;
	json_t *tv = nodes ? get(r, graph, "tensor_values", JSON_OBJECT, what)
			   : NULL;
	json_t *saved_tv = r->tvals, *e;
	struct ir_block *saved_b = r->block;
	size_t i, nret = 0;
	long rc = -1;

	if (!tv)
		return -1;
	if (r->depth == PT2_MAX_NEST)
		return fail(r, EXIT_UNSUPPORTED, "%s: subgraphs nested deeper "
			    "than %d", what, PT2_MAX_NEST);
	if (json_array_size(gin) != n)
		return fail(r, EXIT_BAD_INPUT, "%s: the subgraph takes %zu "
			    "inputs, it is given %zu", what,
			    json_array_size(gin), n);
	r->outer[r->depth++] = r->names;
	r->names = json_object();
	r->tvals = tv;
	r->block = b;
	json_array_foreach(gin, i, e) {
		json_t *x;
		const char *k = one_key(r, e, &x, what);
		const char *nm = !k ? NULL : !strcmp(k, "as_tensor")
			? get_str(r, x, "name", what)
			: !strcmp(k, "as_sym_int") || !strcmp(k, "as_sym_bool")
			? get_str(r, x, "as_name", what) : NULL;
		if (!nm) {
			if (k && !r->code)
				fail(r, EXIT_UNSUPPORTED, "%s: subgraph input "
				     "of kind '%s'", what, k);
			goto out;
		}
		if (bind_name(r, nm, vals[i]))
			goto out;
	}
	json_array_foreach(nodes, i, e) {
		struct ir_node *last = r->block->last;
		if (convert_node(r, e, i))
			goto out;
		set_origin(r, e, last);
	}
	json_array_foreach(gout, i, e)
		if (flat_values(r, e, rets, &nret, PT2_MAX_OPERANDS, what))
			goto out;
	rc = (long)nret;
out:
	json_decref(r->names);
	r->names = r->outer[--r->depth];
	r->tvals = saved_tv;
	r->block = saved_b;
	return rc;
}

/* A predicate as TorchScript's `if t:` takes it: a tensor through
 * aten::Bool. */
static struct ir_value *as_bool(struct rd *r, struct ir_value *v)
{
	if (v->type->kind != IR_TYPE_TENSOR)
		return v;
	struct ir_node *b = node(r, OP_aten_Bool, 1, 1);
	b->inputs[0] = v;
	v = new_value(r, NULL, scalar_type(r, IR_TYPE_BOOL));
	ir_node_set_output(b, 0, v);
	return v;
}

/* while_loop(cond_fn, body_fn, carried, additional) as TorchScript's
 * `while` loop: cond_fn inlined before the loop for the first test,
 * prim::Loop(max, c0, carried...) whose body block runs body_fn, then
 * cond_fn on the new carried values, and returns (cond, new carried). */
static int convert_while(struct rd *r, json_t *cond_g, json_t *body_g,
			 json_t *inputs, const char **onames, long nout,
			 const char *what)
{
	struct ir_value *ops[PT2_MAX_OPERANDS], *in[PT2_MAX_OPERANDS];
	struct ir_value *rets[PT2_MAX_OPERANDS], *c[1];
	size_t nc = 0, nops, i;
	long n;

	if (flat_values(r, json_object_get(json_array_get(inputs, 2), "arg"),
			ops, &nc, PT2_MAX_OPERANDS, what))
		return -1;
	nops = nc;
	if (flat_values(r, json_object_get(json_array_get(inputs, 3), "arg"),
			ops, &nops, PT2_MAX_OPERANDS, what))
		return -1;
	if ((long)nc != nout)
		return fail(r, EXIT_BAD_INPUT, "%s: %zu carried values, the node "
			    "has %ld outputs", what, nc, nout);
	n = convert_subgraph(r, cond_g, ops, nops, r->block, c, what);
	if (n != 1)
		return n < 0 ? -1 : fail(r, EXIT_BAD_INPUT, "%s: cond_fn "
					 "returns %ld values", what, n);
	struct ir_value *c0 = as_bool(r, c[0]);
	struct ir_value *max = const_int(r, IR_TYPE_INT, INT64_MAX);
	struct ir_node *loop = node(r, OP_prim_Loop, (uint32_t)(2 + nc),
				    (uint32_t)nc);
	loop->inputs[0] = max;
	loop->inputs[1] = c0;
	struct ir_block *b = ir_node_add_block(r->g, loop);
	ir_block_add_param(r->g, b, new_value(r, NULL,
					      scalar_type(r, IR_TYPE_INT)));
	for (i = 0; i < nops; i++) {
		if (i < nc) {
			loop->inputs[2 + i] = ops[i];
			in[i] = new_value(r, NULL, ir_type_copy(r->g,
							ops[i]->type));
			ir_block_add_param(r->g, b, in[i]);
		} else {
			in[i] = ops[i]; /* additional: seen from the body */
		}
	}
	struct ir_block *saved = r->block;
	r->block = b;
	n = convert_subgraph(r, body_g, in, nops, b, rets, what);
	if (n >= 0 && n != (long)nc)
		fail(r, EXIT_BAD_INPUT, "%s: body_fn returns %ld values for %zu "
		     "carried", what, n, nc);
	if (n == (long)nc) {
		for (i = nc; i < nops; i++)
			rets[i] = ops[i];
		n = convert_subgraph(r, cond_g, rets, nops, b, c, what);
		if (n >= 0 && n != 1)
			fail(r, EXIT_BAD_INPUT, "%s: cond_fn returns %ld "
			     "values", what, n);
	}
	if (n == 1) {
		ir_block_add_return(r->g, b, as_bool(r, c[0]));
		for (i = 0; i < nc; i++)
			ir_block_add_return(r->g, b, rets[i]);
	}
	r->block = saved;
	if (n != 1)
		return -1;
	for (i = 0; i < nc; i++)
		if (tensor_output(r, loop, (uint32_t)i, onames[i]))
			return -1;
	return 0;
}

/* torch.ops.higher_order.NAME: wrap_with_* inlined (the subgraph's nodes
 * in place, its outputs bound to the node's), cond a prim::If whose blocks
 * are the two subgraphs, while_loop a prim::Loop (convert_while).  Others:
 * unsupported.  Arguments by position: cond(pred, true_fn, false_fn,
 * operands); while_loop(cond_fn, body_fn, carried, additional);
 * wrap_with_*(..., graph, *operands). */
static int convert_hop(struct rd *r, const char *target, const char *hop,
		       json_t *inputs, json_t *outputs, const char *nname,
		       const char *what)
{
	struct ir_value *ops[PT2_MAX_OPERANDS], *rets[PT2_MAX_OPERANDS];
	const char *onames[PT2_MAX_OPERANDS];
	size_t nin = json_array_size(inputs), nops = 0, i;
	long nout, nret;
	json_t *g[2] = { NULL, NULL };
	size_t gi[2] = { 0, 0 }, ng = 0;

	for (i = 0; i < nin; i++) {
		json_t *a = json_object_get(json_array_get(inputs, i), "arg");
		json_t *x = json_object_get(a, "as_graph");
		if (x && ng < 2) {
			g[ng] = get(r, x, "graph", JSON_OBJECT, what);
			if (!g[ng])
				return -1;
			gi[ng++] = i;
		}
	}
	int wrap = !strncmp(hop, "wrap_with_", 10);
	int cond = !strcmp(hop, "cond");
	int loop = !strcmp(hop, "while_loop");
	if ((wrap && ng != 1) || (cond && (ng != 2 || gi[0] != 1 ||
					   gi[1] != 2 || nin != 4)) ||
	    (loop && (ng != 2 || gi[0] != 0 || gi[1] != 1 || nin != 4)) ||
	    (!wrap && !cond && !loop)) {
		unsupported(r, target, nname, outputs);
		return 0;
	}
	nout = output_names(r, outputs, onames, PT2_MAX_OPERANDS, what);
	if (nout < 0)
		return -1;
	if (loop)
		return convert_while(r, g[0], g[1], inputs, onames, nout, what);
	for (i = wrap ? gi[0] + 1 : 3; i < nin; i++)
		if (flat_values(r, json_object_get(json_array_get(inputs, i),
						   "arg"), ops, &nops,
				PT2_MAX_OPERANDS, what))
			return -1;
	if (wrap) {
		nret = convert_subgraph(r, g[0], ops, nops, r->block, rets, what);
		if (nret < 0)
			return -1;
		if (nret != nout)
			return fail(r, EXIT_BAD_INPUT, "%s: the subgraph returns "
				    "%ld values, the node has %ld", what, nret,
				    nout);
		for (i = 0; i < (size_t)nout; i++)
			if (bind_name(r, onames[i], rets[i]))
				return -1;
		return 0;
	}
	struct ir_value *pred = arg_value(r, json_object_get(
		json_array_get(inputs, 0), "arg"), -1, what);
	if (!pred)
		return -1;
	pred = as_bool(r, pred);
	struct ir_node *n = node(r, OP_prim_If, 1, (uint32_t)nout);
	n->inputs[0] = pred;
	for (int k = 0; k < 2; k++) {
		struct ir_block *b = ir_node_add_block(r->g, n);
		nret = convert_subgraph(r, g[k], ops, nops, b, rets, what);
		if (nret < 0)
			return -1;
		if (nret != nout)
			return fail(r, EXIT_BAD_INPUT, "%s: branch %d returns "
				    "%ld values, the node has %ld", what, k,
				    nret, nout);
		for (i = 0; i < (size_t)nret; i++)
			ir_block_add_return(r->g, b, rets[i]);
	}
	for (i = 0; i < (size_t)nout; i++)
		if (tensor_output(r, n, (uint32_t)i, onames[i]))
			return -1;
	return 0;
}

static int convert_node(struct rd *r, json_t *jn, size_t index)
{
	char what[600], qual[256], ovl[128];
	const char *target = get_str(r, jn, "target", "node");
	json_t *inputs = target ? get(r, jn, "inputs", JSON_ARRAY, "node")
				: NULL;
	json_t *outputs = inputs ? get(r, jn, "outputs", JSON_ARRAY, "node")
				 : NULL;
	json_t *jname = json_object_get(jn, "name");
	const char *nname = json_is_string(jname) ? json_string_value(jname)
						  : "?";
	size_t i;
	json_t *in;

	if (!outputs)
		return -1;
	snprintf(what, sizeof(what), "node %zu (%.200s, %.200s)", index,
		 nname, target);
	if (++r->ncalls > PT2_MAX_CALLS)
		return fail(r, EXIT_UNSUPPORTED, "%s: the program expands past "
			    "%d calls (nested while_loop conditions)", what,
			    PT2_MAX_CALLS);
	/* every input is a {"name", "arg", "kind"} */
	json_array_foreach(inputs, i, in)
		if (!json_is_object(json_object_get(in, "arg")))
			return fail(r, EXIT_BAD_INPUT, "%s: input %zu has no "
				    "argument", what, i);

	if (!strncmp(target, "_operator.", 10)) {
		const char *fn = target + 10;
		if (!strcmp(fn, "getitem")) {
			/* an element of a list argument: an alias */
			json_t *lst = json_object_get(json_array_get(inputs, 0),
						      "arg");
			json_t *ix = json_object_get(json_object_get(
				json_array_get(inputs, 1), "arg"), "as_int");
			json_t *items = json_object_get(lst, "as_tensors");
			json_t *o0 = json_object_get(json_array_get(outputs, 0),
						     "as_tensor");
			const char *on = json_string_value(json_object_get(o0,
								"name"));
			if (!json_is_integer(ix) || !json_is_array(items) ||
			    !on || json_array_size(outputs) != 1)
				return fail(r, EXIT_UNSUPPORTED, "%s: getitem "
					    "of this kind is not supported",
					    what);
			json_int_t k = json_integer_value(ix);
			if (k < 0)
				k += (json_int_t)json_array_size(items);
			if (k < 0 || k >= (json_int_t)json_array_size(items))
				return fail(r, EXIT_BAD_INPUT, "%s: index %"
					    JSON_INTEGER_FORMAT " out of "
					    "range", what,
					    json_integer_value(ix));
			struct ir_value *v = tensor_ref(r,
				json_array_get(items, (size_t)k), what);
			return v ? bind_name(r, on, v) : -1;
		}
		enum aten_op op = operator_op(fn);
		size_t nin = json_array_size(inputs);
		if (op == OP_NONE || nin < 1 || nin > 2 ||
		    json_array_size(outputs) != 1) {
			unsupported(r, target, nname, outputs);
			return 0;
		}
		struct ir_value *a[2] = { NULL, NULL };
		for (i = 0; i < nin; i++) {
			a[i] = arg_value(r, json_object_get(json_array_get(
						inputs, i), "arg"), -1, what);
			if (!a[i])
				return -1;
		}
		struct ir_node *n = node(r, op, (uint32_t)nin, 1);
		n->inputs[0] = a[0];
		if (nin == 2)
			n->inputs[1] = a[1];
		return define_output(r, json_array_get(outputs, 0), n, 0, what);
	}
	if (strncmp(target, "torch.ops.", 10)) {
		unsupported(r, target, nname, outputs);
		return 0;
	}
	/* torch.ops.NS.NAME.OVERLOAD */
	const char *p = target + 10, *dot1 = strchr(p, '.');
	const char *dot2 = dot1 ? strchr(dot1 + 1, '.') : NULL;
	if (!strncmp(p, "higher_order.", 13) && !strchr(p + 13, '.'))
		return convert_hop(r, target, p + 13, inputs, outputs, nname,
				   what);
	if (!dot2 || strchr(dot2 + 1, '.') || dot1 == p || dot2 == dot1 + 1 ||
	    (size_t)(dot2 - p) + 2 >= sizeof(qual) ||
	    strlen(dot2 + 1) >= sizeof(ovl)) {
		unsupported(r, target, nname, outputs);
		return 0;
	}
	snprintf(qual, sizeof(qual), "%.*s::%.*s", (int)(dot1 - p), p,
		 (int)(dot2 - dot1 - 1), dot1 + 1);
	snprintf(ovl, sizeof(ovl), "%s", strcmp(dot2 + 1, "default")
		 ? dot2 + 1 : "");
	if (is_assertion(qual))
		return 0;
	enum aten_op op = aten_op_id(qual);
	/* a .pt2 is torch 2.x's: its calls bind against 2.11's schemas */
	const struct aten_schema *s = op == OP_NONE ? NULL
				    : aten_schema_find_era(qual, ovl,
							   ATEN_ERA_2_11);
	if (!s) {
		unsupported(r, target, nname, outputs);
		return 0;
	}
	if (op == OP_aten_sym_size || op == OP_aten_sym_numel ||
	    op == OP_aten_sym_stride || op == OP_aten_sym_storage_offset)
		/* SymInt queries are TorchScript's int ones */
		op = op == OP_aten_sym_size ? OP_aten_size
		   : op == OP_aten_sym_numel ? OP_aten_numel
		   : op == OP_aten_sym_stride ? OP_aten_stride
		   : OP_aten_storage_offset;
	/* inputs: every schema argument, by name, else its default */
	int nargs = 0;
	struct ir_value *args[ATEN_MAX_ARGS];
	for (int k = 0; k < s->nargs; k++) {
		const struct aten_arg *a = aten_schema_arg(s, k);
		if (a->flags & ATEN_ARG_OUT)
			continue;
		json_t *arg = node_input(inputs, a->name);
		if (arg)
			args[nargs] = arg_value(r, arg, a->base, what);
		else if (a->def_kind != ATEN_DEF_NONE_GIVEN)
			args[nargs] = default_value(r, a);
		else
			return fail(r, EXIT_BAD_INPUT, "%s: argument '%s' of "
				    "%s.%s is missing", what, a->name, qual,
				    *ovl ? ovl : "default");
		if (!args[nargs])
			return -1;
		nargs++;
	}
	json_array_foreach(inputs, i, in) {
		const char *nm = json_string_value(json_object_get(in, "name"));
		if (!nm || aten_schema_arg_index(s, nm) < 0)
			return fail(r, EXIT_BAD_INPUT, "%s: %s.%s has no "
				    "argument '%s'", what, qual,
				    *ovl ? ovl : "default", nm ? nm : "?");
	}
	size_t nout = json_array_size(outputs);
	if (nout != s->nrets && !(nout == 0 && s->nrets == 0))
		return fail(r, EXIT_BAD_INPUT, "%s: %zu outputs, %s.%s returns "
			    "%u", what, nout, qual, *ovl ? ovl : "default",
			    (unsigned)s->nrets);
	struct ir_node *n = node(r, op, (uint32_t)nargs, (uint32_t)nout);
	for (int k = 0; k < nargs; k++)
		n->inputs[k] = args[k];
	json_t *o;
	json_array_foreach(outputs, i, o)
		if (define_output(r, o, n, (uint32_t)i, what))
			return -1;
	return 0;
}

/* The signature's specs of the graph's role ("input", "output") and, in
 * *garr, the graph's array of them; NULL after reporting. */
static json_t *specs_of(struct rd *r, json_t *graph, json_t *sig,
			const char *role, json_t **garr)
{
	char key[32];

	snprintf(key, sizeof(key), "%ss", role);
	*garr = get(r, graph, key, JSON_ARRAY, "graph");
	snprintf(key, sizeof(key), "%s_specs", role);
	return *garr ? get(r, sig, key, JSON_ARRAY, "signature") : NULL;
}

/* Spec i's kind (its one key) and *v its value; what (cap bytes) names it
 * for the messages, as "ROLE spec I". NULL after reporting. */
static const char *spec_kind(struct rd *r, json_t *spec, const char *role,
			     size_t i, char *what, size_t cap, json_t **v)
{
	snprintf(what, cap, "%s spec %zu", role, i);
	return one_key(r, spec, v, what);
}

/* The graph's inputs: user inputs as parameters of the top block, the
 * rest as weights or constants. */
static int convert_inputs(struct rd *r, json_t *graph, json_t *sig)
{
	json_t *gin, *spec, *specs = specs_of(r, graph, sig, "input", &gin);
	size_t i;

	if (!specs)
		return -1;
	if (json_array_size(specs) != json_array_size(gin))
		return fail(r, EXIT_BAD_INPUT, "%zu input specs for %zu graph "
			    "inputs", json_array_size(specs),
			    json_array_size(gin));
	json_array_foreach(specs, i, spec) {
		char what[64];
		json_t *v;
		const char *kind = spec_kind(r, spec, "input", i, what,
					     sizeof(what), &v);
		if (!kind)
			return -1;
		if (!strcmp(kind, "constant_input")) {
			const char *nm = get_str(r, v, "name", what);
			json_t *val = nm ? get(r, v, "value", JSON_OBJECT,
					       what) : NULL;
			struct ir_value *cv = val ? arg_value(r, val, -1, what)
						  : NULL;
			if (!cv || bind_name(r, nm, cv))
				return -1;
			continue;
		}
		json_t *arg = get(r, v, "arg", JSON_OBJECT, what);
		if (!arg)
			return -1;
		if (!strcmp(kind, "user_input")) {
			const char *nm = user_tensor_name(r, arg, "input",
							  what);
			struct ir_type *t = nm ? tensor_type(r, nm) : NULL;
			if (!t)
				return -1;
			struct ir_value *iv = new_value(r, nm, t);
			ir_block_add_param(r->g, r->g->top, iv);
			if (bind_name(r, nm, iv))
				return -1;
			continue;
		}
		const char *nm = get_str(r, arg, "name", what);
		if (!nm)
			return -1;
		const char *fqn = !strcmp(kind, "parameter")
			? get_str(r, v, "parameter_name", what)
			: !strcmp(kind, "buffer")
			? get_str(r, v, "buffer_name", what)
			: !strcmp(kind, "tensor_constant")
			? get_str(r, v, "tensor_constant_name", what) : NULL;
		if (!fqn) {
			if (!r->code)
				fail(r, EXIT_UNSUPPORTED, "%s: inputs of kind "
				     "'%s' are not supported", what, kind);
			return -1;
		}
		if (add_weight(r, nm, fqn, kind))
			return -1;
	}
	return 0;
}

static int convert_outputs(struct rd *r, json_t *graph, json_t *sig)
{
	json_t *gout, *spec, *specs = specs_of(r, graph, sig, "output", &gout);
	size_t i;

	if (!specs)
		return -1;
	if (json_array_size(specs) != json_array_size(gout))
		return fail(r, EXIT_BAD_INPUT, "%zu output specs for %zu graph "
			    "outputs", json_array_size(specs),
			    json_array_size(gout));
	json_array_foreach(specs, i, spec) {
		json_t *v;
		char what[64];
		const char *kind = spec_kind(r, spec, "output", i, what,
					     sizeof(what), &v);
		if (!kind)
			return -1;
		if (strcmp(kind, "user_output"))
			return fail(r, EXIT_UNSUPPORTED, "%s: outputs of kind "
				    "'%s' (a mutation the program makes) are "
				    "not supported", what, kind);
		json_t *arg = get(r, v, "arg", JSON_OBJECT, what);
		const char *nm = user_tensor_name(r, arg, "output", what);
		struct ir_value *ov = nm ? lookup(r, nm, what) : NULL;
		if (!ov)
			return -1;
		ir_block_add_return(r->g, r->g->top, ov);
	}
	if (!r->g->top->nreturns)
		return fail(r, EXIT_UNSUPPORTED, "the program returns no "
			    "tensor");
	return 0;
}

/* Reads a JSON entry; NULL after reporting (a missing optional entry,
 * `optional` set, gives an empty object). */
static json_t *read_json(struct rd *r, const char *name, int optional)
{
	const struct zip_entry *e = zip_find(r->z, name);
	json_error_t err;
	void *buf;
	size_t len;
	json_t *j;

	if (!e) {
		if (optional)
			return json_object();
		fail(r, EXIT_BAD_INPUT, "entry '%s' is missing", name);
		return NULL;
	}
	if (e->usize > PT2_MAX_JSON) {
		fail(r, EXIT_BAD_INPUT, "entry '%s' is over 1 GiB", name);
		return NULL;
	}
	if (zip_read(r->z, e, &buf, &len, r->d)) {
		r->code = r->code ? r->code : EXIT_BAD_INPUT;
		return NULL;
	}
	j = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &err);
	free(buf);
	if (!j)
		fail(r, EXIT_BAD_INPUT, "%s:%d: %s", name, err.line, err.text);
	else if (!json_is_object(j)) {
		fail(r, EXIT_BAD_INPUT, "%s: not a JSON object", name);
		json_decref(j);
		j = NULL;
	}
	return j;
}

/* The root folder and the program's name: <root>/models/<name>.json. */
static int find_model(struct rd *r, char *root, size_t rootsz, char *name,
		      size_t namesz)
{
	size_t found = 0;
	char list[512] = "";

	for (uint32_t i = 0; i < r->z->nentries; i++) {
		const char *en = r->z->entries[i].name;
		const char *slash = strchr(en, '/');
		size_t n = strlen(en);
		if (!slash || strncmp(slash + 1, "models/", 7) || n < 5 ||
		    strcmp(en + n - 5, ".json"))
			continue;
		const char *base = slash + 8;
		size_t blen = (size_t)(en + n - 5 - base);
		if (!blen || memchr(base, '/', blen))
			continue;
		size_t l = strlen(list);
		snprintf(list + l, sizeof(list) - l, "%s%.*s", found ? ", " :
			 "", (int)blen, base);
		if (r->o->model ? strlen(r->o->model) == blen &&
		    !memcmp(r->o->model, base, blen) : !found) {
			snprintf(root, rootsz, "%.*s",
				 (int)(slash - en + 1), en);
			snprintf(name, namesz, "%.*s", (int)blen, base);
		}
		found++;
	}
	if (!found)
		return fail(r, EXIT_BAD_INPUT, "no models/NAME.json: not a "
			    "torch.export archive");
	if (r->o->model && !*name) {
		fail(r, EXIT_USAGE, "no model '%s' in the archive (models: "
		     "%s)", r->o->model, list);
		return -1;
	}
	if (!r->o->model && found > 1) {
		fail(r, EXIT_USAGE, "the archive holds %zu models (%s): choose "
		     "one with --model", found, list);
		return -1;
	}
	return 0;
}

int pt2_probe(const struct zip *z)
{
	for (uint32_t i = 0; i < z->nentries; i++) {
		const char *en = z->entries[i].name;
		const char *slash = strchr(en, '/');
		size_t n = strlen(en);
		if (slash && !strncmp(slash + 1, "models/", 7) && n > 5 &&
		    !strcmp(en + n - 5, ".json") && !strchr(slash + 8, '/'))
			return 1;
	}
	return 0;
}

static int check_version(struct rd *r, json_t *ep)
{
	json_t *sv = get(r, ep, "schema_version", JSON_OBJECT, "program");
	json_t *maj = sv ? get(r, sv, "major", JSON_INTEGER, "schema_version")
			 : NULL;
	json_t *min = json_object_get(sv, "minor");

	if (!maj)
		return -1;
	if (json_integer_value(maj) != PT2_SCHEMA_MAJOR)
		return fail(r, EXIT_UNSUPPORTED, "schema version %"
			    JSON_INTEGER_FORMAT ".%" JSON_INTEGER_FORMAT " is "
			    "not supported (only major version %d)",
			    json_integer_value(maj), json_integer_value(min),
			    PT2_SCHEMA_MAJOR);
	return 0;
}

struct ir_graph *pt2_read(struct zip *z, const struct pt2_options *o,
			  struct diag *d, int *code)
{
	struct rd r;
	char root[256] = "", name[256] = "", path[1024];
	json_t *ep = NULL;

	memset(&r, 0, sizeof(r));
	r.z = z;
	r.d = d;
	r.o = o;
	r.names = json_object();
	r.g = ir_graph_new(IR_LEVEL_ATEN);
	r.block = r.g ? r.g->top : NULL;
	if (!r.g || !r.names) {
		diag_error(d, "out of memory");
		*code = EXIT_IO;
		ir_graph_free(r.g);
		json_decref(r.names);
		return NULL;
	}
	if (find_model(&r, root, sizeof(root), name, sizeof(name)))
		goto out;
	r.root = root;
	r.rootlen = strlen(root);
	r.model = name;
	snprintf(path, sizeof(path), "%smodels/%s.json", root, name);
	ep = read_json(&r, path, 0);
	if (!ep || check_version(&r, ep))
		goto out;
	snprintf(path, sizeof(path), "%sdata/weights/%s_weights_config.json",
		 root, name);
	r.wconf = read_json(&r, path, 1);
	snprintf(path, sizeof(path), "%sdata/constants/%s_constants_config"
		 ".json", root, name);
	r.cconf = r.wconf ? read_json(&r, path, 1) : NULL;
	if (!r.cconf)
		goto out;
	snprintf(path, sizeof(path), "%smodels/%s.json", root, name);
	r.entry = path;
	json_t *gm = get(&r, ep, "graph_module", JSON_OBJECT, "program");
	json_t *graph = gm ? get(&r, gm, "graph", JSON_OBJECT, "graph_module")
			   : NULL;
	json_t *sig = graph ? get(&r, gm, "signature", JSON_OBJECT,
				  "graph_module") : NULL;
	json_t *nodes = sig ? get(&r, graph, "nodes", JSON_ARRAY, "graph")
			    : NULL;
	r.tvals = nodes ? get(&r, graph, "tensor_values", JSON_OBJECT,
			      "graph") : NULL;
	if (!r.tvals)
		goto out;
	r.g->name = ir_strdup(r.g, name);
	ir_add_prop(r.g, "source", o->ref_file);
	/* the torch that wrote it, as script says it (lower's graph_era) */
	json_t *tv = json_object_get(ep, "torch_version");
	if (json_is_string(tv) && !strncmp(json_string_value(tv), "2.", 2))
		ir_add_prop(r.g, "torch_era", "2.x");
	if (convert_inputs(&r, graph, sig))
		goto out;
	size_t i;
	json_t *jn;
	json_array_foreach(nodes, i, jn) {
		struct ir_node *last = r.block->last;
		if (convert_node(&r, jn, i))
			goto out;
		set_origin(&r, jn, last);
	}
	if (r.nunsup) {
		fail(&r, EXIT_UNSUPPORTED, "%zu call%s cannot be converted: %s",
		     r.nunsup, r.nunsup > 1 ? "s" : "",
		     r.unsupported ? r.unsupported : "");
		goto out;
	}
	if (convert_outputs(&r, graph, sig))
		goto out;
	if (ir_verify(r.g, d)) {
		r.code = EXIT_BAD_INPUT;
		goto out;
	}
out:
	json_decref(ep);
	json_decref(r.wconf);
	json_decref(r.cconf);
	json_decref(r.names);
	free(r.vals);
	free(r.unsupported);
	if (r.code || d->nerrors) {
		*code = r.code ? r.code : EXIT_BAD_INPUT;
		ir_graph_free(r.g);
		return NULL;
	}
	*code = EXIT_OK;
	return r.g;
}

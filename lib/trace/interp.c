/*
 * interp.c - the `trace` interpreter (trace.h): runs an aten-level graph
 * (script_compile's) once, node by node, on real tensors, and records what
 * ran into a new flat aten-level graph, as torch.jit.trace does.
 *
 * Values at run time are tvals (trace_int.h) held in one slot per value of
 * the graph run (ir_value.aux).  prim::If runs the branch its condition
 * picks, prim::Loop its iterations; nothing of them is recorded.  Every
 * other node is dispatched by kind to an op table and recorded when it
 * touches a traced value (a tensor, or an int derived from aten::size) or
 * makes a tensor; the Python values that reach a recorded node become
 * prim::Constant (prim::ListConstruct for lists holding traced values).
 *
 * The Python-level ops (prim::*, aten::size, list and int arithmetic) are
 * here too: trace_ops_prim and trace_ops_scalar.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "intmath.h"
#include "rlimits.h"
#include "trace_int.h"
#include "weight_bytes.h"

struct slot {
	struct tval *tv;
	struct ir_node *last;      /* drop tv after running this node */
	const struct ir_block *def; /* block that defines the value */
};

struct wmap {
	char *path;
	void *addr;
	size_t len;
};

struct interp {
	struct trace_ctx ctx;
	struct ir_graph *g;        /* the graph run */
	struct ir_graph *r;        /* the recorded graph */
	const struct trace_options *o;
	struct slot *slots;
	uint32_t nslots;
	struct wmap *maps;
	int nmaps;
	int dynamic;               /* symbolic input dims: leave dims out */
	int code;                  /* exit code of the first failure */
	int depth;
	int64_t steps;             /* nodes run so far (LIMIT_TRACE_STEPS) */
	const char *warned[16];    /* kinds warned about once */
	int nwarned;
};

#define MAX_IN 256
#define MAX_DEPTH 64

static struct interp *IP(struct trace_ctx *c)
{
	return c->interp;
}

static void set_code(struct interp *ip, int code)
{
	if (!ip->code)
		ip->code = code;
}

/* --- messages ------------------------------------------------------------ */

int trace_error(struct trace_ctx *c, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	const struct ir_node *n = c->node;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (c->interp)
		set_code(IP(c), EXIT_UNSUPPORTED);
	if (!n)
		return diag_error(c->d, "%s", msg);
	if (n->scope && *n->scope)
		return diag_error(c->d, "%s (%s): %s", n->kind, n->scope, msg);
	if (n->source)
		return diag_error(c->d, "%s (%s): %s", n->kind, n->source, msg);
	return diag_error(c->d, "%s: %s", n->kind, msg);
}

int trace_gpu_error(struct trace_ctx *c)
{
	const char *e = gpu_last_error();

	if (c->interp && e && strstr(e, "out of") && strstr(e, "memory"))
		set_code(IP(c), EXIT_IO);
	return trace_error(c, "%s", e && *e ? e : "kernel failed");
}

static void warn_once(struct interp *ip, const char *kind, const char *msg)
{
	int i;

	for (i = 0; i < ip->nwarned; i++)
		if (!strcmp(ip->warned[i], kind))
			return;
	if (ip->nwarned < 16)
		ip->warned[ip->nwarned++] = kind;
	diag_warning(ip->ctx.d, "%s: %s", kind, msg);
}

/* --- values -------------------------------------------------------------- */

static struct slot *slot_of(const struct ir_value *v)
{
	return v ? v->aux : NULL;
}

static void bind(struct ir_value *v, struct tval *tv)
{
	struct slot *s = slot_of(v);

	if (!s) {
		tv_unref(tv);
		return;
	}
	tv_unref(s->tv);
	s->tv = tv;
}

static int is_tensor(const struct tval *v)
{
	return v && v->kind == TV_TENSOR;
}

/* traced: a tensor, or a number that stands for a recorded value */
static int is_traced(const struct tval *v)
{
	int i;

	if (!v)
		return 0;
	if (v->kind == TV_TENSOR || v->rec)
		return 1;
	if (v->kind == TV_LIST || v->kind == TV_TUPLE || v->kind == TV_DICT)
		for (i = 0; i < v->u.list.n; i++)
			if (is_traced(v->u.list.items[i]))
				return 1;
	return 0;
}

static struct tval *tv_dev(const char *s)
{
	struct tval *v = tv_str(s);

	if (v)
		v->kind = TV_DEVICE;
	return v;
}

/* --- weights ------------------------------------------------------------- */

static const void *map_file(struct interp *ip, const char *path,
			    size_t *len)
{
	struct wmap *m;
	struct stat st;
	void *addr;
	int fd, i;

	for (i = 0; i < ip->nmaps; i++)
		if (!strcmp(ip->maps[i].path, path)) {
			*len = ip->maps[i].len;
			return ip->maps[i].addr;
		}
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		diag_error(ip->ctx.d, "%s: cannot open weight file: %s", path,
			   strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) != 0 || st.st_size <= 0) {
		close(fd);
		diag_error(ip->ctx.d, "%s: empty or unreadable weight file",
			   path);
		return NULL;
	}
	addr = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (addr == MAP_FAILED) {
		diag_error(ip->ctx.d, "%s: mmap: %s", path, strerror(errno));
		return NULL;
	}
	m = realloc(ip->maps, sizeof(*m) * (ip->nmaps + 1));
	if (!m || !(path = strdup(path))) {
		if (m)
			ip->maps = m;
		munmap(addr, (size_t)st.st_size);
		diag_error(ip->ctx.d, "out of memory");
		return NULL;
	}
	ip->maps = m;
	m[ip->nmaps].path = (char *)path;
	m[ip->nmaps].addr = addr;
	m[ip->nmaps].len = (size_t)st.st_size;
	ip->nmaps++;
	*len = (size_t)st.st_size;
	return addr;
}

/* A gpu tensor over an IR tensor's bytes (mapped file or inline). */
static struct gpu_tensor *tensor_of_ir(struct interp *ip,
				       const struct ir_tensor *t,
				       const char *name)
{
	const void *data;
	size_t bytes, flen, esz = ir_dtype_size(t->dtype);
	struct gpu_tensor *gt;
	enum weight_err e;
	uint64_t need;

	if (!esz || t->rank > GPU_MAX_DIMS) {
		diag_error(ip->ctx.d, "weight '%s': %s tensors cannot be run",
			   name, ir_dtype_torch_name(t->dtype));
		set_code(ip, EXIT_UNSUPPORTED);
		return NULL;
	}
	if (t->data_kind == IR_DATA_REF) {
		const char *base = map_file(ip, t->ref.file, &flen);

		if (!base) {
			set_code(ip, EXIT_IO);
			return NULL;
		}
		if (t->ref.offset > flen || t->ref.length > flen -
		    t->ref.offset) {
			diag_error(ip->ctx.d, "weight '%s': bytes %llu..%llu "
				   "are past the end of '%s' (%zu bytes)", name,
				   (unsigned long long)t->ref.offset,
				   (unsigned long long)(t->ref.offset +
							t->ref.length),
				   t->ref.file, flen);
			set_code(ip, EXIT_BAD_INPUT);
			return NULL;
		}
		data = base + t->ref.offset;
		bytes = (size_t)t->ref.length;
	} else {
		data = t->bytes.data;
		bytes = t->bytes.len;
	}
	/* the view must stay inside the bytes */
	e = weight_span(t, &need);
	if (e == WEIGHT_NEG_STRIDE) {
		diag_error(ip->ctx.d, "weight '%s': negative stride", name);
		set_code(ip, EXIT_BAD_INPUT);
		return NULL;
	}
	if (e || need > bytes) {
		diag_error(ip->ctx.d, "weight '%s': %zu bytes hold too few "
			   "elements for its shape", name, bytes);
		set_code(ip, EXIT_BAD_INPUT);
		return NULL;
	}
	gt = gpu_from_host(ip->ctx.be, t->dtype, t->rank, t->dims,
			   weight_strides(t), data, bytes);
	if (!gt) {
		diag_error(ip->ctx.d, "weight '%s': %s", name,
			   gpu_last_error());
		set_code(ip, EXIT_IO);
	}
	return gt;
}

/* The weight's value, loaded on first use and recorded as a weight. */
static struct tval *load_weight(struct interp *ip, struct ir_value *v)
{
	const struct ir_tensor *t = v->weight->tensor;
	struct ir_tensor *c;
	struct gpu_tensor *gt = tensor_of_ir(ip, t, v->name);
	struct tval *tv;

	if (!gt)
		return NULL;
	tv = tv_tensor(gt);
	if (!tv)
		return NULL;
	c = ir_tensor_new(ip->r, t->dtype, t->rank, t->dims);
	c->data_kind = t->data_kind;
	c->doc = ir_strdup(ip->r, t->doc);
	if (t->data_kind == IR_DATA_REF) {
		c->ref.file = ir_strdup(ip->r, t->ref.file);
		c->ref.offset = t->ref.offset;
		c->ref.length = t->ref.length;
		if (t->ref.strides && t->rank > 0) {
			c->ref.strides = ir_alloc(ip->r, sizeof(int64_t) *
						  (size_t)t->rank);
			memcpy(c->ref.strides, t->ref.strides,
			       sizeof(int64_t) * (size_t)t->rank);
		}
	} else {
		char *b = ir_alloc(ip->r, t->bytes.len ? t->bytes.len : 1);

		memcpy(b, t->bytes.data, t->bytes.len);
		c->bytes.data = b;
		c->bytes.len = t->bytes.len;
	}
	tv->rec = ir_add_weight(ip->r, NULL, ir_find_value(ip->r, v->name) ?
				NULL : v->name, c);
	bind(v, tv);
	return tv;
}

/* The run-time value of v (borrowed), NULL after reporting. */
static struct tval *val(struct interp *ip, struct ir_value *v)
{
	struct slot *s = slot_of(v);

	if (s && s->tv)
		return s->tv;
	if (v && v->weight)
		return load_weight(ip, v);
	diag_error(ip->ctx.d, "value %%%s used before it has a value",
		   v ? v->name : "?");
	set_code(ip, EXIT_BAD_INPUT);
	return NULL;
}

/* --- recording ----------------------------------------------------------- */

static struct ir_type *type_of(struct interp *ip, const struct tval *v)
{
	struct ir_type *t;
	int i;

	switch (v->kind) {
	case TV_TENSOR:
		return ir_type_tensor(ip->r, v->u.t->dtype, v->u.t->rank,
				      ip->dynamic ? NULL : v->u.t->dims);
	case TV_INT:
	case TV_DTYPE:
		return ir_type_new(ip->r, IR_TYPE_INT);
	case TV_FLOAT:
		return ir_type_new(ip->r, IR_TYPE_FLOAT);
	case TV_BOOL:
		return ir_type_new(ip->r, IR_TYPE_BOOL);
	case TV_STR:
		return ir_type_new(ip->r, IR_TYPE_STR);
	case TV_DEVICE:
		return ir_type_new(ip->r, IR_TYPE_DEVICE);
	case TV_NONE:
		return ir_type_new(ip->r, IR_TYPE_NONE);
	case TV_LIST:
		t = ir_type_new(ip->r, IR_TYPE_LIST);
		t->nelems = 1;
		t->elems = ir_alloc(ip->r, sizeof(*t->elems));
		if (v->u.list.n == 0)
			t->elems[0] = ir_type_new(ip->r, IR_TYPE_INT);
		else if (v->u.list.items[0]->kind == TV_TENSOR)
			t->elems[0] = ir_type_new(ip->r, IR_TYPE_TENSOR);
		else
			t->elems[0] = type_of(ip, v->u.list.items[0]);
		return t;
	case TV_TUPLE:
		t = ir_type_new(ip->r, IR_TYPE_TUPLE);
		t->nelems = (uint32_t)v->u.list.n;
		t->elems = ir_alloc(ip->r, sizeof(*t->elems) *
				    (size_t)(v->u.list.n + 1));
		for (i = 0; i < v->u.list.n; i++)
			t->elems[i] = type_of(ip, v->u.list.items[i]);
		return t;
	case TV_DICT:
		t = ir_type_new(ip->r, IR_TYPE_DICT);
		t->nelems = 2;
		t->elems = ir_alloc(ip->r, sizeof(*t->elems) * 2);
		for (i = 0; i < 2; i++)
			t->elems[i] = v->u.list.n ?
				      type_of(ip, v->u.list.items[i]) :
				      ir_type_new(ip->r, i ? IR_TYPE_TENSOR :
						  IR_TYPE_STR);
		return t;
	}
	return ir_type_new(ip->r, IR_TYPE_UNKNOWN);
}

static struct ir_node *rec_node(struct interp *ip, const char *kind,
				uint32_t nin, uint32_t nout)
{
	struct ir_node *n = ir_node_new(ip->r, ip->r->top, kind, nin, nout);
	const struct ir_node *src = ip->ctx.node;

	if (src) {
		n->scope = ir_strdup(ip->r, src->scope);
		n->source = ir_strdup(ip->r, src->source);
	}
	return n;
}

static struct ir_value *rec_out(struct interp *ip, struct ir_node *n,
				uint32_t i, struct ir_type *t)
{
	struct ir_value *v = ir_value_new(ip->r, NULL, t);

	ir_node_set_output(n, i, v);
	return v;
}

/* A tensor that has no recorded value: a constant with its data. */
static struct ir_value *rec_const_tensor(struct interp *ip,
					 struct gpu_tensor *t)
{
	struct ir_node *n = rec_node(ip, "prim::Constant", 0, 1);
	struct ir_attr *a = ir_node_add_attr(ip->r, n, "value",
					     IR_ATTR_TENSOR);
	struct ir_tensor *it = ir_tensor_new(ip->r, t->dtype, t->rank,
					     t->dims);
	size_t bytes = (size_t)gpu_numel(t) * ir_dtype_size(t->dtype);
	char *b = ir_alloc(ip->r, bytes ? bytes : 1);

	if (bytes && gpu_to_host(t, IR_DTYPE_UNDEFINED, b))
		return NULL;
	it->data_kind = IR_DATA_INLINE;
	it->bytes.data = b;
	it->bytes.len = bytes;
	a->u.t = it;
	return rec_out(ip, n, 0, ir_type_tensor(ip->r, t->dtype, t->rank,
						 t->dims));
}

/* The recorded value standing for v: its own, or a new constant. */
static struct ir_value *materialise(struct interp *ip, struct tval *v)
{
	struct ir_node *n;
	struct ir_attr *a;
	int i, ints = 1, floats = 1;

	if (v->rec)
		return v->rec;
	switch (v->kind) {
	case TV_TENSOR:
		v->rec = rec_const_tensor(ip, v->u.t);
		if (!v->rec)
			trace_gpu_error(&ip->ctx);
		return v->rec;
	case TV_INT:
	case TV_BOOL:
	case TV_DTYPE:
		n = rec_node(ip, "prim::Constant", 0, 1);
		a = ir_node_add_attr(ip->r, n, "value", IR_ATTR_INT);
		a->u.i = v->kind == TV_DTYPE ?
			 tv_dtype_to_torch((enum ir_dtype)v->u.i) : v->u.i;
		return rec_out(ip, n, 0, type_of(ip, v));
	case TV_FLOAT:
		n = rec_node(ip, "prim::Constant", 0, 1);
		a = ir_node_add_attr(ip->r, n, "value", IR_ATTR_FLOAT);
		a->u.f = v->u.f;
		return rec_out(ip, n, 0, type_of(ip, v));
	case TV_STR:
	case TV_DEVICE:
		n = rec_node(ip, "prim::Constant", 0, 1);
		a = ir_node_add_attr(ip->r, n, "value", IR_ATTR_STRING);
		a->u.s.len = strlen(v->u.s);
		a->u.s.data = ir_strdup(ip->r, v->u.s);
		return rec_out(ip, n, 0, type_of(ip, v));
	case TV_NONE:
		n = rec_node(ip, "prim::Constant", 0, 1);
		return rec_out(ip, n, 0, type_of(ip, v));
	case TV_DICT:
		trace_error(&ip->ctx, "a dict reaches a recorded op: dicts "
			    "cannot be recorded");
		return NULL;
	case TV_LIST:
	case TV_TUPLE:
		break;
	}
	for (i = 0; i < v->u.list.n; i++) {
		const struct tval *e = v->u.list.items[i];

		if (e->rec || (e->kind != TV_INT && e->kind != TV_BOOL))
			ints = 0;
		if (e->rec || e->kind != TV_FLOAT)
			floats = 0;
	}
	if (v->kind == TV_LIST && v->u.list.n > 0 && (ints || floats)) {
		n = rec_node(ip, "prim::Constant", 0, 1);
		a = ir_node_add_attr(ip->r, n, "value", ints ? IR_ATTR_INTS :
				     IR_ATTR_FLOATS);
		a->count = (uint32_t)v->u.list.n;
		if (ints)
			a->u.ints = ir_alloc(ip->r, sizeof(int64_t) *
					     (size_t)v->u.list.n);
		else
			a->u.floats = ir_alloc(ip->r, sizeof(double) *
					       (size_t)v->u.list.n);
		for (i = 0; i < v->u.list.n; i++) {
			if (ints)
				a->u.ints[i] = v->u.list.items[i]->u.i;
			else
				a->u.floats[i] = v->u.list.items[i]->u.f;
		}
		return rec_out(ip, n, 0, type_of(ip, v));
	} else {
		struct ir_value *parts[MAX_IN];

		if (v->u.list.n > MAX_IN) {
			trace_error(&ip->ctx, "a list of %d values is too long "
				    "to record", v->u.list.n);
			return NULL;
		}
		for (i = 0; i < v->u.list.n; i++) {
			parts[i] = materialise(ip, v->u.list.items[i]);
			if (!parts[i])
				return NULL;
		}
		n = rec_node(ip, v->kind == TV_LIST ? "prim::ListConstruct" :
			     "prim::TupleConstruct", (uint32_t)v->u.list.n, 1);
		for (i = 0; i < v->u.list.n; i++)
			n->inputs[i] = parts[i];
		return rec_out(ip, n, 0, type_of(ip, v));
	}
}

/* A new tval for the same value (an op returned one that is already
 * recorded, or one of its inputs). */
static struct tval *tv_fresh(struct tval *v)
{
	struct tval *c;
	int i;

	switch (v->kind) {
	case TV_TENSOR:
		c = tv_tensor(gpu_view(v->u.t, v->u.t->rank, v->u.t->dims,
				       v->u.t->strides, v->u.t->offset));
		if (c)
			c->q = v->q;
		return c;
	case TV_INT:
		return tv_int(v->u.i);
	case TV_FLOAT:
		return tv_float(v->u.f);
	case TV_LIST:
	case TV_TUPLE:
		c = tv_list(v->kind);
		if (!c)
			return NULL;
		for (i = 0; i < v->u.list.n; i++)
			if (tv_list_push(c, tv_ref(v->u.list.items[i]))) {
				tv_unref(c);
				return NULL;
			}
		return c;
	default:
		return tv_ref(v);
	}
}

static int is_inplace(const char *kind)
{
	size_t n = strlen(kind);

	return n > 2 && kind[n - 1] == '_' && kind[n - 2] != '_';
}

/* Records node n (which ran with in -> out): constants for the Python
 * inputs, the node with the outputs' concrete types, and for lists of
 * tensors coming out a prim::ListUnpack so that each element has its own
 * value.  Returns 0 or -1. */
static int record(struct interp *ip, const struct ir_node *n,
		  struct tval **in, int nin, struct tval **out, int nout)
{
	struct ir_value *ins[MAX_IN];
	struct ir_node *rn;
	int i, j;

	for (i = 0; i < nin; i++) {
		ins[i] = materialise(ip, in[i]);
		if (!ins[i])
			return -1;
	}
	rn = rec_node(ip, n->kind, (uint32_t)nin, (uint32_t)nout);
	for (i = 0; i < nin; i++)
		rn->inputs[i] = ins[i];
	for (i = 0; i < nout; i++) {
		struct tval *o = out[i];
		int shared = o->rec != NULL || o->refs > 1;

		for (j = 0; j < nin && !shared; j++)
			shared = in[j] == o;
		if (shared) {
			struct tval *f = tv_fresh(o);

			if (!f)
				return trace_error(&ip->ctx, "out of memory");
			tv_unref(o);
			out[i] = o = f;
		}
		o->rec = rec_out(ip, rn, (uint32_t)i, type_of(ip, o));
		if (o->kind == TV_LIST && o->u.list.n > 0 &&
		    o->u.list.n <= MAX_IN &&
		    (o->u.list.items[0]->kind == TV_TENSOR ||
		     o->u.list.items[0]->kind == TV_INT)) {
			struct ir_node *un = rec_node(ip, "prim::ListUnpack",
						      1, (uint32_t)o->u.list.n);

			un->inputs[0] = o->rec;
			for (j = 0; j < o->u.list.n; j++) {
				struct tval *e = o->u.list.items[j];

				if (e->rec || e->refs > 1) {
					struct tval *f = tv_fresh(e);

					if (!f)
						return trace_error(&ip->ctx,
							"out of memory");
					tv_unref(e);
					o->u.list.items[j] = e = f;
				}
				e->rec = rec_out(ip, un, (uint32_t)j,
						 type_of(ip, e));
			}
		}
	}
	/* x.add_(y): later uses of x see the result */
	if (nout > 0 && nin > 0 && is_inplace(n->kind) && is_tensor(in[0]) &&
	    is_tensor(out[0]))
		in[0]->rec = out[0]->rec;
	return 0;
}

/* --- op lookup ----------------------------------------------------------- */

static trace_op_fn find_in(const struct trace_op *t, const char *kind)
{
	for (; t && t->kind; t++)
		if (!strcmp(t->kind, kind))
			return t->fn;
	return NULL;
}

/* which table an op came from: 0 prim, 1 scalar, 2 tensor ops */
static trace_op_fn find_op(const char *kind, int has_tensor, int *table)
{
	trace_op_fn fn;

	*table = 0;
	if ((fn = find_in(trace_ops_prim, kind)))
		return fn;
	*table = 1;
	if (!has_tensor && (fn = find_in(trace_ops_scalar, kind)))
		return fn;
	*table = 2;
	if ((fn = find_in(trace_ops_tensor, kind)) ||
	    (fn = find_in(trace_ops_shape, kind)) ||
	    (fn = find_in(trace_ops_nn, kind)))
		return fn;
	/* a scalar op reached with a tensor input (int + 0-d tensor) */
	*table = 1;
	return has_tensor ? find_in(trace_ops_scalar, kind) : NULL;
}

/* prim ops that only move Python values around: never recorded */
static int never_recorded(const char *kind)
{
	static const char *const kinds[] = {
		"prim::Constant", "prim::ListConstruct", "prim::ListUnpack",
		"prim::TupleConstruct", "prim::TupleUnpack",
		"prim::TupleIndex", "prim::unchecked_cast",
		"prim::Uninitialized", "prim::device", "prim::dtype",
		"aten::dim", "aten::len", "aten::numel", "aten::__getitem__",
		"aten::append", "aten::insert", "aten::pop", "aten::extend",
		"aten::Int", "aten::Float", "aten::Bool",
		"aten::ScalarImplicit", "aten::item", "aten::__is__",
		"aten::__isnot__", "aten::__not__", "aten::__contains__",
		"aten::warn", "aten::format", "aten::str", "aten::list",
		"aten::copy", "aten::reverse", "aten::sort", "aten::device",
		"aten::__range_length", "aten::__derive_index",
		"prim::RaiseException", "aten::is_floating_point",
		"prim::is_cuda", "aten::dict", "aten::slice", "aten::sort",
		"aten::_set_item", "aten::Delete", "aten::is_grad_enabled",
		"aten::is_autocast_enabled", "prim::requires_grad",
		"prim::is_nested", "prim::type", "aten::find", "aten::is_pinned",
		"prim::DictConstruct", "aten::get", "aten::setdefault",
		"aten::keys", "aten::values", "aten::items", "aten::popitem",
		"aten::update", "aten::clear",
		NULL,
	};
	int i;

	for (i = 0; kinds[i]; i++)
		if (!strcmp(kinds[i], kind))
			return 1;
	return 0;
}

/* Whether a node that ran through the prim or scalar table is recorded:
 * it must take a traced number and give numbers (comparisons on traced
 * ints give Python bools, as torch's tracer bakes them). */
static int scalar_recorded(const char *kind, struct tval **in, int nin,
			   struct tval **out, int nout)
{
	int i, traced = 0;

	if (!strcmp(kind, "prim::NumToTensor"))
		return is_traced(in[0]);
	if (!strcmp(kind, "aten::size"))
		return 1;
	/* float(n), int(n) of a traced size: kept as an op, or the size
	 * of a dynamic axis is baked into the number (torch.jit.trace
	 * warns and bakes it; the archive's code says to compute it) */
	if ((!strcmp(kind, "aten::Float") || !strcmp(kind, "aten::Int") ||
	     !strcmp(kind, "aten::ScalarImplicit")) && nin == 1 &&
	    in[0]->rec && (in[0]->kind == TV_INT || in[0]->kind == TV_FLOAT) &&
	    nout == 1 && (out[0]->kind == TV_INT || out[0]->kind == TV_FLOAT))
		return 1;
	if (never_recorded(kind))
		return 0;
	for (i = 0; i < nin; i++)
		if (in[i]->rec && (in[i]->kind == TV_INT ||
				   in[i]->kind == TV_FLOAT))
			traced = 1;
	if (!traced)
		return 0;
	for (i = 0; i < nout; i++)
		if (out[i]->kind != TV_INT && out[i]->kind != TV_FLOAT)
			return 0;
	return 1;
}

/* x.size(): one aten::size(x, i) per dim, so that each stays an op */
static int record_size_list(struct interp *ip, struct tval *x,
			    struct tval *l)
{
	struct ir_value *xv = materialise(ip, x);
	int i;

	if (!xv)
		return -1;
	for (i = 0; i < l->u.list.n; i++) {
		struct tval *dim = tv_int(i), *e = l->u.list.items[i];
		struct ir_value *dv;
		struct ir_node *rn;

		if (!dim)
			return trace_error(&ip->ctx, "out of memory");
		dv = materialise(ip, dim);
		tv_unref(dim);
		rn = rec_node(ip, "aten::size", 2, 1);
		rn->inputs[0] = xv;
		rn->inputs[1] = dv;
		e->rec = rec_out(ip, rn, 0, ir_type_new(ip->r, IR_TYPE_INT));
	}
	return 0;
}

/* --- running ------------------------------------------------------------- */

static int run_block(struct interp *ip, struct ir_block *b);

static int cond_value(struct interp *ip, const struct ir_node *n,
		      struct tval *v, int *out)
{
	if (v->kind == TV_TENSOR) {
		if (gpu_numel(v->u.t) != 1)
			return trace_error(&ip->ctx, "the condition is a "
					   "tensor of %lld elements",
					   (long long)gpu_numel(v->u.t));
		warn_once(ip, n->kind, "a tensor condition is read as a "
			  "Python bool: the branch taken is baked into the "
			  "trace");
		*out = gpu_item_double(v->u.t, 0) != 0;
		return 0;
	}
	return tv_get_bool(&ip->ctx, v, out);
}

static int run_if(struct interp *ip, struct ir_node *n)
{
	struct tval *c = val(ip, n->inputs[0]);
	struct ir_block *b;
	uint32_t i;
	int k;

	if (!c || cond_value(ip, n, c, &k))
		return -1;
	if (n->nblocks != 2)
		return trace_error(&ip->ctx, "expected 2 blocks, not %u",
				   n->nblocks);
	b = n->blocks[k ? 0 : 1];
	if (run_block(ip, b))
		return -1;
	if (b->nreturns != n->noutputs)
		return trace_error(&ip->ctx, "the branch returns %u values "
				   "for %u outputs", b->nreturns, n->noutputs);
	for (i = 0; i < n->noutputs; i++) {
		struct tval *v = val(ip, b->returns[i]);

		if (!v)
			return -1;
		bind(n->outputs[i], tv_ref(v));
	}
	return 0;
}

static int run_loop(struct interp *ip, struct ir_node *n)
{
	struct tval *carried[MAX_IN], *v;
	struct ir_block *b;
	int64_t max, it;
	int cond, nc, i, rc = -1;

	if (n->nblocks != 1 || n->ninputs < 2)
		return trace_error(&ip->ctx, "malformed loop");
	b = n->blocks[0];
	nc = (int)n->ninputs - 2;
	if (nc > MAX_IN || b->nparams != (uint32_t)nc + 1 ||
	    b->nreturns != (uint32_t)nc + 1 || n->noutputs != (uint32_t)nc)
		return trace_error(&ip->ctx, "malformed loop");
	v = val(ip, n->inputs[0]);
	if (!v)
		return -1;
	if (v->kind == TV_NONE)
		max = INT64_MAX;
	else if (tv_get_int(&ip->ctx, v, &max))
		return -1;
	v = val(ip, n->inputs[1]);
	if (!v || cond_value(ip, n, v, &cond))
		return -1;
	for (i = 0; i < nc; i++) {
		carried[i] = val(ip, n->inputs[i + 2]);
		if (!carried[i]) {
			while (i--)
				tv_unref(carried[i]);
			return -1;
		}
		tv_ref(carried[i]);
	}
	for (it = 0; it < max && cond; it++) {
		bind(b->params[0], tv_int(it));
		for (i = 0; i < nc; i++)
			bind(b->params[i + 1], tv_ref(carried[i]));
		if (run_block(ip, b))
			goto out;
		v = val(ip, b->returns[0]);
		if (!v || cond_value(ip, n, v, &cond))
			goto out;
		for (i = 0; i < nc; i++) {
			v = val(ip, b->returns[i + 1]);
			if (!v)
				goto out;
			tv_unref(carried[i]);
			carried[i] = tv_ref(v);
		}
	}
	for (i = 0; i < nc; i++) {
		bind(n->outputs[i], carried[i]);
		carried[i] = NULL;
	}
	rc = 0;
out:
	for (i = 0; i < nc; i++)
		tv_unref(carried[i]);
	return rc;
}

static int run_node(struct interp *ip, struct ir_node *n)
{
	struct tval *in[MAX_IN], *out[MAX_IN];
	trace_op_fn fn;
	int nin = (int)n->ninputs, nout = (int)n->noutputs, i, table;
	int has_tensor = 0, rc = -1, rec;

	ip->ctx.node = n;
	if (++ip->steps > (ip->o->max_steps > 0 ? ip->o->max_steps
						: LIMIT_TRACE_STEPS))
		return trace_error(&ip->ctx, "more than %lld ops run (an "
				   "endless loop?): over trace's limit",
				   (long long)(ip->o->max_steps > 0 ?
					       ip->o->max_steps :
					       LIMIT_TRACE_STEPS));
	if (!strcmp(n->kind, "prim::If"))
		return run_if(ip, n);
	if (!strcmp(n->kind, "prim::Loop"))
		return run_loop(ip, n);
	if (nin > MAX_IN || nout > MAX_IN)
		return trace_error(&ip->ctx, "too many inputs or outputs");
	for (i = 0; i < nin; i++) {
		if (!n->inputs[i]) {
			in[i] = NULL;
			continue;
		}
		in[i] = val(ip, n->inputs[i]);
		if (!in[i])
			return -1;
		if (in[i]->kind == TV_TENSOR)
			has_tensor = 1;
	}
	for (i = 0; i < nin; i++)
		if (!in[i])
			in[i] = tv_none(); /* an omitted input */
	fn = find_op(n->kind, has_tensor, &table);
	if (!fn) {
		trace_error(&ip->ctx, "no implementation for this op in "
			    "`trace` (--list-missing lists them all)");
		goto out;
	}
	memset(out, 0, sizeof(*out) * (size_t)nout);
	if (fn(&ip->ctx, n, in, nin, out, nout)) {
		set_code(ip, EXIT_UNSUPPORTED);
		goto outs;
	}
	for (i = 0; i < nout; i++)
		if (!out[i]) {
			trace_error(&ip->ctx, "output %d not set", i);
			goto outs;
		}
	if (table == 2) {
		rec = 1;
	} else {
		rec = scalar_recorded(n->kind, in, nin, out, nout);
	}
	if (rec && table == 0 && nout == 1 && out[0]->kind == TV_LIST &&
	    !strcmp(n->kind, "aten::size")) {
		if (record_size_list(ip, in[0], out[0]))
			goto outs;
	} else if (rec && record(ip, n, in, nin, out, nout)) {
		goto outs;
	}
	for (i = 0; i < nout; i++) {
		bind(n->outputs[i], out[i]);
		out[i] = NULL;
	}
	rc = 0;
outs:
	for (i = 0; i < nout; i++)
		tv_unref(out[i]);
out:
	for (i = 0; i < nin; i++)
		if (!n->inputs[i])
			tv_unref(in[i]);
	if (rc == 0) {
		/* drop what no later node of this block reads */
		for (i = 0; i < nin; i++) {
			struct slot *s = slot_of(n->inputs[i]);

			if (s && s->last == n && !n->inputs[i]->weight) {
				tv_unref(s->tv);
				s->tv = NULL;
			}
		}
	}
	return rc;
}

static int run_block(struct interp *ip, struct ir_block *b)
{
	struct ir_node *n;
	int rc = 0;

	if (++ip->depth > MAX_DEPTH) {
		ip->depth--;
		return trace_error(&ip->ctx, "blocks nested more than %d deep",
				   MAX_DEPTH);
	}
	for (n = b->first; n && !rc; n = n->next)
		rc = run_node(ip, n);
	ip->depth--;
	return rc;
}

/* --- liveness: after which node a value may be dropped ------------------- */

static void mark_use(struct ir_value *v, const struct ir_block *b,
		     struct ir_node *at)
{
	struct slot *s = slot_of(v);

	if (s && s->def == b)
		s->last = at;
}

static void mark_nested(struct ir_block *nb, const struct ir_block *b,
			struct ir_node *at)
{
	struct ir_node *m;
	uint32_t i, k;

	for (m = nb->first; m; m = m->next) {
		for (i = 0; i < m->ninputs; i++)
			mark_use(m->inputs[i], b, at);
		for (k = 0; k < m->nblocks; k++)
			mark_nested(m->blocks[k], b, at);
	}
	for (i = 0; i < nb->nreturns; i++)
		mark_use(nb->returns[i], b, at);
}

static void mark_block(struct ir_block *b)
{
	struct ir_node *n;
	uint32_t i, k;

	for (i = 0; i < b->nparams; i++)
		if (slot_of(b->params[i]))
			slot_of(b->params[i])->def = b;
	for (n = b->first; n; n = n->next)
		for (i = 0; i < n->noutputs; i++)
			if (slot_of(n->outputs[i]))
				slot_of(n->outputs[i])->def = b;
	for (n = b->first; n; n = n->next) {
		for (i = 0; i < n->ninputs; i++)
			mark_use(n->inputs[i], b, n);
		for (k = 0; k < n->nblocks; k++) {
			mark_block(n->blocks[k]);
			mark_nested(n->blocks[k], b, n);
		}
	}
	for (i = 0; i < b->nreturns; i++) {
		struct slot *s = slot_of(b->returns[i]);

		if (s && s->def == b)
			s->last = NULL; /* the block's result: kept */
	}
}

/* --- inputs -------------------------------------------------------------- */

static void signature(const struct ir_graph *g, char *buf, size_t len)
{
	size_t n = 0;
	uint32_t i;

	n += (size_t)snprintf(buf, len, "forward(");
	for (i = 0; i < g->top->nparams && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "",
				      g->top->params[i]->name);
	if (n < len)
		snprintf(buf + n, len - n, ")");
}

static struct gpu_tensor *make_input(struct interp *ip,
				     const struct trace_input *in, int idx)
{
	const struct gpu_backend *be = ip->ctx.be;
	struct gpu_tensor *t, *f;
	double *buf;
	int64_t n = 1;
	int i;

	if (in->npy)
		return npy_read(in->npy, be, ip->ctx.d);
	for (i = 0; i < in->rank; i++)
		if (__builtin_mul_overflow(n, in->dims[i], &n) ||
		    (uint64_t)n > LIMIT_TRACE_TENSOR_BYTES / sizeof(double)) {
			diag_error(ip->ctx.d, "input %d: more than %llu "
				   "elements (the limit on a tensor's bytes "
				   "is %llu)", idx, (unsigned long long)
				   (LIMIT_TRACE_TENSOR_BYTES / sizeof(double)),
				   (unsigned long long)
				   LIMIT_TRACE_TENSOR_BYTES);
			set_code(ip, EXIT_USAGE); /* --input asked for it */
			return NULL;
		}
	buf = malloc(sizeof(double) * (size_t)(n ? n : 1));
	if (!buf) {
		diag_error(ip->ctx.d, "out of memory for input %d", idx);
		return NULL;
	}
	trace_fill_random(buf, n, in->dtype, ip->o->randn,
			  ip->o->seed + (uint64_t)idx * 7919);
	f = gpu_empty(be, IR_DTYPE_DOUBLE, in->rank, in->dims);
	t = gpu_empty(be, in->dtype, in->rank, in->dims);
	if (!f || !t || (n && be->upload(f->storage->data, buf,
					 sizeof(double) * (size_t)n)) ||
	    be->copy(f, t)) {
		diag_error(ip->ctx.d, "input %d: %s", idx, gpu_last_error());
		gpu_free(t);
		t = NULL;
	}
	gpu_free(f);
	free(buf);
	return t;
}

static int bind_inputs(struct interp *ip)
{
	const struct trace_options *o = ip->o;
	struct ir_block *top = ip->g->top;
	const struct trace_input *given[MAX_IN];
	char sig[512];
	int i, k, pos = 0;

	signature(ip->g, sig, sizeof(sig));
	if (top->nparams > MAX_IN) {
		diag_error(ip->ctx.d, "%s: too many inputs", sig);
		return EXIT_UNSUPPORTED;
	}
	memset(given, 0, sizeof(given));
	for (i = 0; i < o->ninputs; i++) {
		const struct trace_input *in = &o->inputs[i];

		if (in->name) {
			for (k = 0; k < (int)top->nparams; k++)
				if (!strcmp(top->params[k]->name, in->name))
					break;
			if (k == (int)top->nparams) {
				diag_error(ip->ctx.d, "--input %s: %s has no "
					   "input of that name", in->name, sig);
				return EXIT_USAGE;
			}
		} else {
			while (pos < (int)top->nparams && given[pos])
				pos++;
			k = pos;
			if (k >= (int)top->nparams) {
				diag_error(ip->ctx.d, "%d inputs given, but %s "
					   "takes %u", o->ninputs, sig,
					   top->nparams);
				return EXIT_USAGE;
			}
		}
		if (given[k]) {
			diag_error(ip->ctx.d, "input '%s' of %s given twice",
				   top->params[k]->name, sig);
			return EXIT_USAGE;
		}
		given[k] = in;
	}
	for (k = 0; k < (int)top->nparams; k++) {
		struct ir_value *p = top->params[k];
		struct ir_type *pt = p->type;
		struct gpu_tensor *t;
		struct tval *tv;
		struct ir_type *rt;
		int j;

		if (!given[k]) {
			if (pt && pt->kind == IR_TYPE_TENSOR)
				diag_error(ip->ctx.d, "input '%s' of %s is not "
					   "given (--input); pass e.g. --input "
					   "'%s=f32[1,3,224,224]'", p->name,
					   sig, p->name);
			else
				diag_error(ip->ctx.d, "input '%s' of %s is not "
					   "given (--input)", p->name, sig);
			return EXIT_USAGE;
		}
		t = make_input(ip, given[k], k);
		if (!t)
			return ip->code ? ip->code :
			       given[k]->npy ? EXIT_BAD_INPUT : EXIT_IO;
		tv = tv_tensor(t);
		if (!tv)
			return EXIT_IO;
		/* a number input (int n) from a 0-d tensor */
		if (pt->kind == IR_TYPE_INT || pt->kind == IR_TYPE_FLOAT ||
		    pt->kind == IR_TYPE_BOOL) {
			diag_error(ip->ctx.d, "input '%s' of %s is %s: only "
				   "tensor inputs can be traced", p->name, sig,
				   pt->kind == IR_TYPE_INT ? "an int" :
				   pt->kind == IR_TYPE_FLOAT ? "a float" :
				   "a bool");
			tv_unref(tv);
			return EXIT_USAGE;
		}
		rt = ir_type_tensor(ip->r, t->dtype, t->rank, t->dims);
		for (j = 0; j < t->rank; j++)
			if (given[k]->symbols[j]) {
				rt->dims[j].kind = IR_DIM_SYMBOL;
				rt->dims[j].symbol = ir_strdup(ip->r,
					given[k]->symbols[j]);
				ip->dynamic = 1;
			}
		tv->rec = ir_value_new(ip->r, p->name, rt);
		ir_block_add_param(ip->r, ip->r->top, tv->rec);
		bind(p, tv);
	}
	return 0;
}

/* --- outputs ------------------------------------------------------------- */

static int is_returned(const struct ir_graph *r, const struct ir_value *v)
{
	uint32_t i;

	for (i = 0; i < r->top->nreturns; i++)
		if (r->top->returns[i] == v)
			return 1;
	return 0;
}

static int add_outputs(struct interp *ip, struct tval *v, int *count)
{
	struct ir_value *rv;
	int i;

	switch (v->kind) {
	case TV_TENSOR:
		rv = materialise(ip, v);
		if (!rv)
			return -1;
		if (!rv->producer || is_returned(ip->r, rv)) {
			/* an input, a weight or a value returned twice: an
			 * output of its own, as torch.onnx gives it */
			struct ir_node *n = rec_node(ip, "aten::clone", 2, 1);
			struct tval *none = tv_none();

			n->inputs[0] = rv;
			n->inputs[1] = none ? materialise(ip, none) : NULL;
			tv_unref(none);
			if (!n->inputs[1])
				return trace_error(&ip->ctx, "out of memory");
			/* the constant went after n: put n last */
			ir_node_unlink(n);
			ir_block_append(ip->r->top, n);
			rv = rec_out(ip, n, 0, rv->type);
		}
		ir_block_add_return(ip->r, ip->r->top, rv);
		(*count)++;
		return 0;
	case TV_LIST:
	case TV_TUPLE:
		for (i = 0; i < v->u.list.n; i++)
			if (add_outputs(ip, v->u.list.items[i], count))
				return -1;
		return 0;
	case TV_DICT: /* the values, in order, as torch.onnx flattens */
		for (i = 1; i < v->u.list.n; i += 2)
			if (add_outputs(ip, v->u.list.items[i], count))
				return -1;
		return 0;
	case TV_INT:
	case TV_FLOAT:
	case TV_BOOL: {
		/* torch.onnx outputs are tensors: a number as a 0-d one */
		struct ir_node *n;

		rv = materialise(ip, v);
		if (!rv)
			return -1;
		n = rec_node(ip, "prim::NumToTensor", 1, 1);
		n->inputs[0] = rv;
		rv = rec_out(ip, n, 0, ir_type_tensor(ip->r, v->kind ==
			     TV_FLOAT ? IR_DTYPE_DOUBLE : v->kind == TV_BOOL ?
			     IR_DTYPE_BOOL : IR_DTYPE_INT64, 0, NULL));
		ir_block_add_return(ip->r, ip->r->top, rv);
		(*count)++;
		return 0;
	}
	default:
		diag_warning(ip->ctx.d, "an output that is %s is left out",
			     v->kind == TV_NONE ? "None" : "not a tensor");
		return 0;
	}
}

static int save_one(struct interp *ip, struct tval *v, const char *dir,
		    int *count)
{
	char path[4096];
	struct gpu_tensor *t;
	int64_t dims[1] = { 0 };
	int i, rc;

	if (v->kind == TV_LIST || v->kind == TV_TUPLE || v->kind == TV_DICT) {
		for (i = v->kind == TV_DICT; i < v->u.list.n;
		     i += v->kind == TV_DICT ? 2 : 1)
			if (save_one(ip, v->u.list.items[i], dir, count))
				return -1;
		return 0;
	}
	if (v->kind != TV_TENSOR && v->kind != TV_INT &&
	    v->kind != TV_FLOAT && v->kind != TV_BOOL)
		return 0;
	snprintf(path, sizeof(path), "%s/out%d.npy", dir, (*count)++);
	if (v->kind == TV_TENSOR)
		return npy_write(path, v->u.t, ip->ctx.d);
	t = gpu_empty(gpu_backend_get(GPU_BACKEND_CPU), v->kind == TV_FLOAT ?
		      IR_DTYPE_DOUBLE : v->kind == TV_BOOL ? IR_DTYPE_BOOL :
		      IR_DTYPE_INT64, 0, dims);
	if (!t)
		return diag_error(ip->ctx.d, "%s", gpu_last_error());
	t->storage->be->fill(t, v->kind == TV_FLOAT ? v->u.f : (double)v->u.i);
	rc = npy_write(path, t, ip->ctx.d);
	gpu_free(t);
	return rc;
}

/* --- the run ------------------------------------------------------------- */

/* mkdir -p */
static int mkdir_p(const char *path)
{
	char buf[4096];
	size_t i, n = strlen(path);

	if (n == 0 || n >= sizeof(buf))
		return -1;
	memcpy(buf, path, n + 1);
	for (i = 1; i <= n; i++) {
		if (buf[i] != '/' && buf[i] != 0)
			continue;
		buf[i] = 0;
		if (mkdir(buf, 0777) && errno != EEXIST)
			return -1;
		buf[i] = i < n ? '/' : 0;
	}
	return 0;
}

static void release(struct interp *ip)
{
	uint32_t i;
	int k;

	if (ip->slots) {
		for (i = 0; i < ip->g->vcap; i++)
			if (ip->g->vtab[i])
				ip->g->vtab[i]->aux = NULL;
		for (i = 0; i < ip->nslots; i++)
			tv_unref(ip->slots[i].tv);
		free(ip->slots);
	}
	for (k = 0; k < ip->nmaps; k++) {
		munmap(ip->maps[k].addr, ip->maps[k].len);
		free(ip->maps[k].path);
	}
	free(ip->maps);
}

struct ir_graph *trace_run(struct ir_graph *g, const struct trace_options *o,
			   struct diag *d, int *code)
{
	struct interp ip;
	struct ir_graph *r;
	uint32_t i, k = 0;
	int rc, nout = 0;

	memset(&ip, 0, sizeof(ip));
	ip.ctx.be = o->backend ? o->backend :
		    gpu_backend_get(GPU_BACKEND_CPU);
	ip.ctx.d = d;
	ip.ctx.seed = o->seed;
	ip.ctx.interp = &ip;
	ip.g = g;
	ip.o = o;
	*code = EXIT_OK;
	if (!ip.ctx.be) {
		diag_error(d, "no compute backend available");
		*code = EXIT_UNSUPPORTED;
		return NULL;
	}
	r = ir_graph_new(IR_LEVEL_ATEN);
	if (!r) {
		diag_error(d, "out of memory");
		*code = EXIT_IO;
		return NULL;
	}
	ip.r = r;
	r->name = ir_strdup(r, g->name);
	r->producer = "trace " "0.1";
	for (i = 0; i < g->nprops; i++)
		ir_add_prop(r, g->props[i].key, g->props[i].value);
	ip.slots = calloc(g->nvalues + 1, sizeof(*ip.slots));
	if (!ip.slots) {
		diag_error(d, "out of memory");
		*code = EXIT_IO;
		ir_graph_free(r);
		return NULL;
	}
	for (i = 0; i < g->vcap; i++)
		if (g->vtab[i] && k < g->nvalues)
			g->vtab[i]->aux = &ip.slots[k++];
	ip.nslots = k;
	mark_block(g->top);
	rc = bind_inputs(&ip);
	if (rc) {
		*code = rc;
		goto fail;
	}
	ip.ctx.node = NULL;
	if (run_block(&ip, g->top)) {
		*code = ip.code ? ip.code : EXIT_UNSUPPORTED;
		goto fail;
	}
	ip.ctx.node = NULL;
	for (i = 0; i < g->top->nreturns; i++) {
		struct tval *v = val(&ip, g->top->returns[i]);

		if (!v || add_outputs(&ip, v, &nout)) {
			*code = ip.code ? ip.code : EXIT_INTERNAL;
			goto fail;
		}
	}
	if (o->save_outputs) {
		int cnt = 0;

		if (mkdir_p(o->save_outputs)) {
			diag_error(d, "%s: cannot create: %s", o->save_outputs,
				   strerror(errno));
			*code = EXIT_IO;
			goto fail;
		}
		for (i = 0; i < g->top->nreturns; i++)
			if (save_one(&ip, val(&ip, g->top->returns[i]),
				     o->save_outputs, &cnt)) {
				*code = EXIT_IO;
				goto fail;
			}
	}
	release(&ip);
	return r;
fail:
	release(&ip);
	ir_graph_free(r);
	return NULL;
}

/* --- --list-missing ------------------------------------------------------ */

static void list_missing_block(const struct ir_block *b, const char **seen,
			       int *nseen, struct diag *d)
{
	const struct ir_node *n;
	int i, tbl;
	uint32_t k;

	for (n = b->first; n; n = n->next) {
		for (k = 0; k < n->nblocks; k++)
			list_missing_block(n->blocks[k], seen, nseen, d);
		if (!strcmp(n->kind, "prim::If") ||
		    !strcmp(n->kind, "prim::Loop") ||
		    find_op(n->kind, 1, &tbl) || find_op(n->kind, 0, &tbl))
			continue;
		for (i = 0; i < *nseen; i++)
			if (!strcmp(seen[i], n->kind))
				break;
		if (i < *nseen)
			continue;
		if (*nseen < 4096)
			seen[(*nseen)++] = n->kind;
		diag_error(d, "%s (%s): no implementation in `trace`", n->kind,
			   n->scope && *n->scope ? n->scope :
			   n->source ? n->source : "top");
	}
}

int trace_list_missing(const struct ir_graph *g, struct diag *d)
{
	const char **seen = calloc(4096, sizeof(*seen));
	int nseen = 0;

	if (!seen)
		return -1;
	list_missing_block(g->top, seen, &nseen, d);
	free(seen);
	return nseen;
}

/* --- prim ops ------------------------------------------------------------ */

static struct tval *const_of_attr(struct trace_ctx *c, const struct ir_node *n)
{
	const struct ir_attr *a = ir_node_find_attr(n, "value");
	const struct ir_type *t = n->noutputs ? n->outputs[0]->type : NULL;
	struct tval *v;
	uint32_t i;

	if (!a)
		return tv_none();
	switch (a->kind) {
	case IR_ATTR_INT:
		if (t && t->kind == IR_TYPE_BOOL)
			return tv_bool(a->u.i != 0);
		return tv_int(a->u.i);
	case IR_ATTR_FLOAT:
		return tv_float(a->u.f);
	case IR_ATTR_STRING: {
		char *s = strndup(a->u.s.data, a->u.s.len);

		if (!s)
			return NULL;
		v = t && t->kind == IR_TYPE_DEVICE ? tv_dev(s) : tv_str(s);
		free(s);
		return v;
	}
	case IR_ATTR_TENSOR: {
		struct gpu_tensor *gt = tensor_of_ir(IP(c), a->u.t,
			n->outputs[0]->name);

		return gt ? tv_tensor(gt) : NULL;
	}
	case IR_ATTR_INTS:
	case IR_ATTR_FLOATS:
	case IR_ATTR_STRINGS:
		v = tv_list(TV_LIST);
		if (!v)
			return NULL;
		for (i = 0; i < a->count; i++) {
			struct tval *e;

			if (a->kind == IR_ATTR_INTS)
				e = t && t->kind == IR_TYPE_LIST && t->nelems &&
				    t->elems[0]->kind == IR_TYPE_BOOL ?
				    tv_bool(a->u.ints[i] != 0) :
				    tv_int(a->u.ints[i]);
			else if (a->kind == IR_ATTR_FLOATS)
				e = tv_float(a->u.floats[i]);
			else {
				char *s = strndup(a->u.strings[i].data,
						  a->u.strings[i].len);

				e = s ? tv_str(s) : NULL;
				free(s);
			}
			if (tv_list_push(v, e)) {
				tv_unref(v);
				return NULL;
			}
		}
		return v;
	default:
		trace_error(c, "constant of attribute kind %d", a->kind);
		return NULL;
	}
}

#define OPFN(name) \
	static int name(struct trace_ctx *c, const struct ir_node *n, \
			struct tval **in, int nin, struct tval **out, int nout)

static int oom(struct trace_ctx *c)
{
	return trace_error(c, "out of memory");
}

static int dict_op(struct trace_ctx *c, const char *kind, struct tval **in,
		   int nin, struct tval **out, int nout, int *rc);
#define DICT_OP() do { \
		int rc_; \
		if (dict_op(c, n->kind, in, nin, out, nout, &rc_)) \
			return rc_; \
	} while (0)

OPFN(op_constant)
{
	if (nout != 1)
		return trace_error(c, "expected one output");
	out[0] = const_of_attr(c, n);
	return out[0] ? 0 : (IP(c)->code ? -1 : oom(c));
}

static int make_seq(struct trace_ctx *c, enum tv_kind kind, struct tval **in,
		    int nin, struct tval **out)
{
	struct tval *l = tv_list(kind);
	int i;

	if (!l)
		return oom(c);
	for (i = 0; i < nin; i++)
		if (tv_list_push(l, tv_ref(in[i]))) {
			tv_unref(l);
			return oom(c);
		}
	out[0] = l;
	return 0;
}

OPFN(op_list_construct)
{
	return make_seq(c, TV_LIST, in, nin, out);
}

OPFN(op_tuple_construct)
{
	return make_seq(c, TV_TUPLE, in, nin, out);
}

OPFN(op_unpack)
{
	int i;

	if (in[0]->kind != TV_LIST && in[0]->kind != TV_TUPLE)
		return trace_error(c, "expected a list or tuple");
	if (in[0]->u.list.n != nout)
		return trace_error(c, "%d values to unpack into %d",
				   in[0]->u.list.n, nout);
	for (i = 0; i < nout; i++)
		out[i] = tv_ref(in[0]->u.list.items[i]);
	return 0;
}

static int seq_index(struct trace_ctx *c, const struct tval *l,
		     const struct tval *idx, int64_t *at)
{
	int64_t i;

	if (l->kind != TV_LIST && l->kind != TV_TUPLE)
		return trace_error(c, "expected a list or tuple");
	if (tv_get_int(c, idx, &i))
		return -1;
	if (i < 0)
		i += l->u.list.n;
	if (i < 0 || i >= l->u.list.n)
		return trace_error(c, "index %lld out of range for %d items",
				   (long long)i, l->u.list.n);
	*at = i;
	return 0;
}

OPFN(op_getitem)
{
	int64_t i;

	DICT_OP();

	if (nin != 2)
		return trace_error(c, "expected 2 inputs");
	if (in[0]->kind == TV_STR) {
		char s[2] = { 0, 0 };
		int64_t len = (int64_t)strlen(in[0]->u.s);

		if (tv_get_int(c, in[1], &i))
			return -1;
		if (i < 0)
			i += len;
		if (i < 0 || i >= len)
			return trace_error(c, "string index out of range");
		s[0] = in[0]->u.s[i];
		out[0] = tv_str(s);
		return out[0] ? 0 : oom(c);
	}
	if (seq_index(c, in[0], in[1], &i))
		return -1;
	out[0] = tv_ref(in[0]->u.list.items[i]);
	return 0;
}

OPFN(op_unchecked_cast)
{
	out[0] = tv_ref(in[0]);
	return 0;
}

OPFN(op_uninitialized)
{
	out[0] = tv_none();
	return out[0] ? 0 : oom(c);
}

OPFN(op_raise)
{
	const char *msg = nin > 0 && in[0]->kind == TV_STR ? in[0]->u.s :
			  "an exception";

	set_code(IP(c), EXIT_BAD_INPUT);
	trace_error(c, "the model raised: %s", msg);
	IP(c)->code = EXIT_BAD_INPUT;
	return -1;
}

OPFN(op_device)
{
	if (in[0]->kind == TV_TENSOR)
		out[0] = tv_dev(c->be->id == GPU_BACKEND_CUDA ? "cuda" : "cpu");
	else if (in[0]->kind == TV_STR || in[0]->kind == TV_DEVICE)
		out[0] = tv_dev(in[0]->u.s);
	else
		return trace_error(c, "expected a tensor or a string");
	return out[0] ? 0 : oom(c);
}

OPFN(op_dtype)
{
	struct gpu_tensor *t;

	if (tv_get_tensor(c, in[0], 0, &t))
		return -1;
	out[0] = tv_int(tv_dtype_to_torch(t->dtype));
	return out[0] ? 0 : oom(c);
}

static int numtotensor(struct trace_ctx *c, const struct tval *v,
		       struct tval **out)
{
	struct gpu_tensor *t;
	enum ir_dtype dt;
	double x;

	if (v->kind == TV_TENSOR) {
		*out = tv_tensor(gpu_view(v->u.t, v->u.t->rank, v->u.t->dims,
					  v->u.t->strides, v->u.t->offset));
		return *out ? 0 : oom(c);
	}
	if (v->kind == TV_FLOAT) {
		dt = IR_DTYPE_DOUBLE;
		x = v->u.f;
	} else if (v->kind == TV_INT || v->kind == TV_BOOL) {
		dt = v->kind == TV_BOOL ? IR_DTYPE_BOOL : IR_DTYPE_INT64;
		x = (double)v->u.i;
	} else {
		return trace_error(c, "expected a number");
	}
	t = gpu_empty(c->be, dt, 0, NULL);
	if (!t || c->be->fill(t, x)) {
		gpu_free(t);
		return trace_gpu_error(c);
	}
	*out = tv_tensor(t);
	return *out ? 0 : oom(c);
}

OPFN(op_numtotensor)
{
	return numtotensor(c, in[0], &out[0]);
}

/* aten::size(x, dim) / aten::size(x) */
OPFN(op_size)
{
	struct gpu_tensor *t;
	int64_t dim;
	int ax, i;

	if (tv_get_tensor(c, in[0], 0, &t))
		return -1;
	if (nin >= 2 && in[1]->kind != TV_NONE) {
		if (tv_get_int(c, in[1], &dim) || trace_axis(c, dim, t->rank,
							      &ax))
			return -1;
		out[0] = tv_int(t->dims[ax]);
		return out[0] ? 0 : oom(c);
	}
	out[0] = tv_list(TV_LIST);
	if (!out[0])
		return oom(c);
	for (i = 0; i < t->rank; i++)
		if (tv_list_push(out[0], tv_int(t->dims[i])))
			return oom(c);
	return 0;
}

OPFN(op_dim)
{
	struct gpu_tensor *t;

	if (tv_get_tensor(c, in[0], 0, &t))
		return -1;
	out[0] = tv_int(t->rank);
	return out[0] ? 0 : oom(c);
}

OPFN(op_numel)
{
	struct gpu_tensor *t;

	if (tv_get_tensor(c, in[0], 0, &t))
		return -1;
	out[0] = tv_int(gpu_numel(t));
	return out[0] ? 0 : oom(c);
}

OPFN(op_len)
{
	const struct tval *v = in[0];

	DICT_OP();

	if (v->kind == TV_LIST || v->kind == TV_TUPLE)
		out[0] = tv_int(v->u.list.n);
	else if (v->kind == TV_STR)
		out[0] = tv_int((int64_t)strlen(v->u.s));
	else if (v->kind == TV_TENSOR && v->u.t->rank > 0)
		out[0] = tv_int(v->u.t->dims[0]);
	else
		return trace_error(c, "len() of a value without length");
	return out[0] ? 0 : oom(c);
}

/* Lists are values shared by reference, as in Python: mutations change
 * the tval in place. */
OPFN(op_append)
{
	if (in[0]->kind != TV_LIST)
		return trace_error(c, "append to a non-list");
	if (tv_list_push(in[0], tv_ref(in[1])))
		return oom(c);
	if (nout)
		out[0] = tv_ref(in[0]);
	return 0;
}

OPFN(op_insert)
{
	struct tval *l = in[0];
	int64_t i;
	int k;

	if (l->kind != TV_LIST || tv_get_int(c, in[1], &i))
		return trace_error(c, "expected a list and an index");
	if (i < 0)
		i += l->u.list.n;
	if (i < 0)
		i = 0;
	if (i > l->u.list.n)
		i = l->u.list.n;
	if (tv_list_push(l, tv_ref(in[2])))
		return oom(c);
	for (k = l->u.list.n - 1; k > i; k--)
		l->u.list.items[k] = l->u.list.items[k - 1];
	l->u.list.items[i] = in[2];
	if (nout)
		out[0] = tv_none();
	return 0;
}

OPFN(op_pop)
{
	struct tval *l = in[0];
	int64_t i = -1;
	int k;

	DICT_OP();

	if (l->kind != TV_LIST)
		return trace_error(c, "pop from a non-list");
	if (nin > 1 && tv_get_int(c, in[1], &i))
		return -1;
	if (i < 0)
		i += l->u.list.n;
	if (i < 0 || i >= l->u.list.n)
		return trace_error(c, "pop index out of range");
	out[0] = l->u.list.items[i];
	for (k = (int)i; k < l->u.list.n - 1; k++)
		l->u.list.items[k] = l->u.list.items[k + 1];
	l->u.list.n--;
	return 0;
}

OPFN(op_extend)
{
	struct tval *l = in[0], *m = in[1];
	int i, cnt;

	if (l->kind != TV_LIST || (m->kind != TV_LIST && m->kind != TV_TUPLE))
		return trace_error(c, "extend expects two lists");
	cnt = m->u.list.n; /* l.extend(l) */
	for (i = 0; i < cnt; i++)
		if (tv_list_push(l, tv_ref(m->u.list.items[i])))
			return oom(c);
	if (nout)
		out[0] = tv_none();
	return 0;
}

static struct tval *list_copy(const struct tval *v, int from, int to,
			      int step)
{
	struct tval *l = tv_list(TV_LIST);
	int i;

	if (!l)
		return NULL;
	for (i = from; step > 0 ? i < to : i > to; i += step)
		if (tv_list_push(l, tv_ref(v->u.list.items[i]))) {
			tv_unref(l);
			return NULL;
		}
	return l;
}

OPFN(op_list)
{
	DICT_OP();

	if (in[0]->kind == TV_LIST || in[0]->kind == TV_TUPLE)
		out[0] = list_copy(in[0], 0, in[0]->u.list.n, 1);
	else
		return trace_error(c, "list() of a non-list");
	return out[0] ? 0 : oom(c);
}

OPFN(op_reverse)
{
	struct tval *l = in[0];
	int i;

	if (l->kind != TV_LIST)
		return trace_error(c, "reverse of a non-list");
	for (i = 0; i < l->u.list.n / 2; i++) {
		struct tval *t = l->u.list.items[i];

		l->u.list.items[i] = l->u.list.items[l->u.list.n - 1 - i];
		l->u.list.items[l->u.list.n - 1 - i] = t;
	}
	if (nout)
		out[0] = tv_none();
	return 0;
}

static double num(const struct tval *v)
{
	return v->kind == TV_FLOAT ? v->u.f : (double)v->u.i;
}

static int cmp_num(const void *a, const void *b)
{
	double x = num(*(struct tval *const *)a);
	double y = num(*(struct tval *const *)b);

	return x < y ? -1 : x > y;
}

OPFN(op_sort)
{
	struct tval *l = in[0];
	int rev = 0, i;

	if (l->kind != TV_LIST)
		return trace_error(c, "sort of a non-list");
	for (i = 0; i < l->u.list.n; i++)
		if (l->u.list.items[i]->kind != TV_INT &&
		    l->u.list.items[i]->kind != TV_FLOAT &&
		    l->u.list.items[i]->kind != TV_BOOL)
			return trace_error(c, "sort of a list of non-numbers");
	if (nin > 1 && tv_get_bool(c, in[1], &rev))
		return -1;
	qsort(l->u.list.items, (size_t)l->u.list.n, sizeof(struct tval *),
	      cmp_num);
	if (rev)
		return op_reverse(c, n, in, 1, out, nout);
	if (nout)
		out[0] = tv_none();
	return 0;
}

/* aten::slice on lists: (l, start, end, step) */
OPFN(op_list_slice)
{
	const struct tval *l = in[0];
	int64_t len, start = 0, end, step = 1;

	if (l->kind != TV_LIST && l->kind != TV_TUPLE)
		return trace_error(c, "slice of a non-list");
	len = l->u.list.n;
	end = len;
	if (nin > 1 && in[1]->kind != TV_NONE && tv_get_int(c, in[1], &start))
		return -1;
	if (nin > 2 && in[2]->kind != TV_NONE && tv_get_int(c, in[2], &end))
		return -1;
	if (nin > 3 && in[3]->kind != TV_NONE && tv_get_int(c, in[3], &step))
		return -1;
	if (step <= 0)
		return trace_error(c, "slice step must be positive");
	if (start < 0)
		start += len;
	if (end < 0)
		end += len;
	start = start < 0 ? 0 : start > len ? len : start;
	end = end < 0 ? 0 : end > len ? len : end;
	out[0] = list_copy(l, (int)start, (int)(end > start ? end : start),
			   (int)step);
	return out[0] ? 0 : oom(c);
}

/* kind(t) recorded, its result a traced number */
static int number_op(struct trace_ctx *c, const char *kind,
		     struct tval *v, int want, struct tval **out)
{
	struct interp *ip = IP(c);
	enum ir_dtype dt = v->u.t->dtype;
	struct ir_node *rn;
	int flt = want == TV_FLOAT || (want == 0 && (dt == IR_DTYPE_FLOAT ||
		  dt == IR_DTYPE_DOUBLE || dt == IR_DTYPE_FLOAT16 ||
		  dt == IR_DTYPE_BFLOAT16));

	*out = flt ? tv_float(gpu_item_double(v->u.t, 0)) :
	       tv_int(gpu_item_int(v->u.t, 0));
	if (!*out)
		return oom(c);
	rn = rec_node(ip, kind, 1, 1);
	rn->inputs[0] = v->rec;
	(*out)->rec = rec_out(ip, rn, 0, ir_type_new(ip->r, flt ?
			      IR_TYPE_FLOAT : IR_TYPE_INT));
	return 0;
}

/* Whether recorded value v is computed from tensor sizes only (1), from
 * constants only (0) or from data (-1): x.size(0) * 2 as a tensor in a
 * traced archive stays an op when converted back to a number. */
static int shape_derived(const struct ir_value *v, int depth, int *budget)
{
	const struct ir_node *p = v ? v->producer : NULL;
	uint32_t i;
	int r = 0, k;

	if (!v || --*budget < 0 || depth > 32)
		return -1;
	if (v->weight)
		return 0;
	if (!p)
		return -1; /* a graph input */
	if (!strcmp(p->kind, "prim::NumToTensor") ||
	    !strcmp(p->kind, "aten::size"))
		return 1;
	if (!strcmp(p->kind, "prim::Constant"))
		return 0;
	for (i = 0; i < p->ninputs; i++) {
		k = shape_derived(p->inputs[i], depth + 1, budget);
		if (k < 0)
			return -1;
		r |= k;
	}
	return r;
}

/* aten::Int / Float / Bool / ScalarImplicit / item: a Python number */
static int to_number(struct trace_ctx *c, const char *kind,
		     const struct tval *v, int want, struct tval **out)
{
	double x;

	if (v->kind == TV_TENSOR) {
		const struct ir_node *p = v->rec ? v->rec->producer : NULL;

		if (gpu_numel(v->u.t) != 1)
			return trace_error(c, "a tensor of %lld elements is "
					   "not a number",
					   (long long)gpu_numel(v->u.t));
		/* Int(NumToTensor(size)) stays the traced int */
		if ((want == TV_INT || want == 0) && p && !strcmp(p->kind,
					    "prim::NumToTensor") &&
		    p->inputs[0]->type->kind == IR_TYPE_INT) {
			*out = tv_int(gpu_item_int(v->u.t, 0));
			if (!*out)
				return oom(c);
			(*out)->rec = p->inputs[0];
			return 0;
		}
		if (v->rec && want != TV_BOOL) {
			int budget = 2000;

			if (shape_derived(v->rec, 0, &budget) > 0)
				return number_op(c, kind, (struct tval *)v,
						 want, out);
		}
		/* int(i) of a 0-d integer graph input (an index the caller
		 * passes, as torch.onnx.export keeps it): stays an op */
		if (v->rec && !v->rec->producer && !v->rec->weight &&
		    v->u.t->rank == 0 && (want == TV_INT || want == 0) &&
		    v->u.t->dtype != IR_DTYPE_BOOL &&
		    tv_dtype_to_torch(v->u.t->dtype) >= 0 &&
		    tv_dtype_to_torch(v->u.t->dtype) <= 4)
			return number_op(c, kind, (struct tval *)v, TV_INT, out);
		warn_once(IP(c), kind, "converting a tensor to a Python "
			  "number: its value is baked into the trace");
		if (want == 0) {
			enum ir_dtype dt = v->u.t->dtype;

			want = dt == IR_DTYPE_FLOAT || dt == IR_DTYPE_DOUBLE ||
			       dt == IR_DTYPE_FLOAT16 ||
			       dt == IR_DTYPE_BFLOAT16 ? TV_FLOAT :
			       dt == IR_DTYPE_BOOL ? TV_BOOL : TV_INT;
		}
		if (want == TV_INT) {
			*out = tv_int(gpu_item_int(v->u.t, 0));
			return *out ? 0 : oom(c);
		}
		x = gpu_item_double(v->u.t, 0);
	} else if (v->kind == TV_STR) {
		char *end;

		x = strtod(v->u.s, &end);
		if (end == v->u.s || *end)
			return trace_error(c, "'%s' is not a number", v->u.s);
	} else if (v->kind == TV_INT || v->kind == TV_BOOL ||
		   v->kind == TV_FLOAT) {
		if (want == 0 || (want == TV_INT && v->kind != TV_FLOAT)) {
			*out = v->kind == TV_BOOL && want == TV_INT ?
			       tv_int(v->u.i) : tv_ref((struct tval *)v);
			return *out ? 0 : oom(c);
		}
		x = num(v);
	} else {
		return trace_error(c, "expected a number or a tensor");
	}
	if (want == TV_INT)
		*out = tv_int((int64_t)x);
	else if (want == TV_BOOL)
		*out = tv_bool(x != 0);
	else
		*out = tv_float(x);
	return *out ? 0 : oom(c);
}

OPFN(op_Int)
{
	return to_number(c, n->kind, in[0], TV_INT, &out[0]);
}

OPFN(op_Float)
{
	return to_number(c, n->kind, in[0], TV_FLOAT, &out[0]);
}

OPFN(op_Bool)
{
	return to_number(c, n->kind, in[0], TV_BOOL, &out[0]);
}

OPFN(op_item)
{
	return to_number(c, n->kind, in[0], 0, &out[0]);
}

static int same_value(const struct tval *a, const struct tval *b)
{
	if (a == b)
		return 1;
	if (a->kind == TV_NONE || b->kind == TV_NONE)
		return a->kind == b->kind;
	if (a->kind == TV_TENSOR && b->kind == TV_TENSOR)
		return a->u.t == b->u.t;
	if ((a->kind == TV_INT || a->kind == TV_BOOL) && a->kind == b->kind)
		return a->u.i == b->u.i;
	return 0;
}

OPFN(op_is)
{
	int r = same_value(in[0], in[1]);

	out[0] = tv_bool(strcmp(n->kind, "aten::__is__") ? !r : r);
	return out[0] ? 0 : oom(c);
}

OPFN(op_not)
{
	int b;

	if (tv_get_bool(c, in[0], &b))
		return -1;
	out[0] = tv_bool(!b);
	return out[0] ? 0 : oom(c);
}

static int equal_values(const struct tval *a, const struct tval *b)
{
	if ((a->kind == TV_STR || a->kind == TV_DEVICE) &&
	    (b->kind == TV_STR || b->kind == TV_DEVICE))
		return !strcmp(a->u.s, b->u.s);
	if ((a->kind == TV_INT || a->kind == TV_BOOL || a->kind == TV_FLOAT ||
	     a->kind == TV_DTYPE) &&
	    (b->kind == TV_INT || b->kind == TV_BOOL || b->kind == TV_FLOAT ||
	     b->kind == TV_DTYPE))
		return num(a) == num(b);
	return same_value(a, b);
}

OPFN(op_contains)
{
	const struct tval *l = in[0];
	int i, r = 0;

	DICT_OP();

	if (l->kind == TV_STR && in[1]->kind == TV_STR)
		r = strstr(l->u.s, in[1]->u.s) != NULL;
	else if (l->kind == TV_LIST || l->kind == TV_TUPLE) {
		for (i = 0; i < l->u.list.n && !r; i++)
			r = equal_values(l->u.list.items[i], in[1]);
	} else
		return trace_error(c, "'in' on a value that is not a list");
	out[0] = tv_bool(r);
	return out[0] ? 0 : oom(c);
}

OPFN(op_ignore)
{
	int i;

	for (i = 0; i < nout; i++) {
		out[i] = tv_none();
		if (!out[i])
			return oom(c);
	}
	return 0;
}

static int fmt_value(const struct tval *v, char *buf, size_t len)
{
	int i;
	size_t k;

	switch (v->kind) {
	case TV_INT:
	case TV_DTYPE:
		return snprintf(buf, len, "%lld", (long long)v->u.i);
	case TV_BOOL:
		return snprintf(buf, len, "%s", v->u.i ? "True" : "False");
	case TV_FLOAT:
		return snprintf(buf, len, "%g", v->u.f);
	case TV_STR:
	case TV_DEVICE:
		return snprintf(buf, len, "%s", v->u.s);
	case TV_NONE:
		return snprintf(buf, len, "None");
	case TV_TENSOR:
		return snprintf(buf, len, "<tensor>");
	case TV_LIST:
	case TV_TUPLE:
		k = (size_t)snprintf(buf, len, "%c", v->kind == TV_LIST ? '['
				     : '(');
		for (i = 0; i < v->u.list.n && k < len; i++) {
			if (i && k < len)
				k += (size_t)snprintf(buf + k, len - k, ", ");
			if (k < len)
				k += (size_t)fmt_value(v->u.list.items[i],
						       buf + k, len - k);
		}
		if (k < len)
			k += (size_t)snprintf(buf + k, len - k, "%c",
					      v->kind == TV_LIST ? ']' : ')');
		return (int)k;
	case TV_DICT:
		k = (size_t)snprintf(buf, len, "{");
		for (i = 0; i < v->u.list.n && k < len; i++) {
			if (i && k < len)
				k += (size_t)snprintf(buf + k, len - k, "%s",
						      i % 2 ? ": " : ", ");
			if (k < len)
				k += (size_t)fmt_value(v->u.list.items[i],
						       buf + k, len - k);
		}
		if (k < len)
			k += (size_t)snprintf(buf + k, len - k, "}");
		return (int)k;
	}
	return 0;
}

OPFN(op_str)
{
	char buf[1024];

	buf[0] = 0;
	fmt_value(in[0], buf, sizeof(buf));
	out[0] = tv_str(buf);
	return out[0] ? 0 : oom(c);
}

/* aten::format(fmt, args...): "{}" replaced in order */
OPFN(op_format)
{
	char buf[2048];
	const char *f;
	size_t k = 0;
	int a = 1;

	if (nin < 1 || in[0]->kind != TV_STR)
		return trace_error(c, "format without a format string");
	for (f = in[0]->u.s; *f && k + 1 < sizeof(buf); f++) {
		if (f[0] == '{' && f[1] == '}') {
			if (a < nin)
				k += (size_t)fmt_value(in[a++], buf + k,
						       sizeof(buf) - k);
			if (k >= sizeof(buf))
				k = sizeof(buf) - 1;
			f++;
			continue;
		}
		buf[k++] = *f;
	}
	buf[k] = 0;
	out[0] = tv_str(buf);
	return out[0] ? 0 : oom(c);
}

OPFN(op_tuple_index)
{
	int64_t i;

	if (seq_index(c, in[0], in[1], &i))
		return -1;
	out[0] = tv_ref(in[0]->u.list.items[i]);
	return 0;
}

OPFN(op_is_floating_point)
{
	struct gpu_tensor *t;

	if (tv_get_tensor(c, in[0], 0, &t))
		return -1;
	out[0] = tv_bool(t->dtype == IR_DTYPE_FLOAT ||
			 t->dtype == IR_DTYPE_DOUBLE ||
			 t->dtype == IR_DTYPE_FLOAT16 ||
			 t->dtype == IR_DTYPE_BFLOAT16);
	return out[0] ? 0 : oom(c);
}

OPFN(op_is_cuda)
{
	out[0] = tv_bool(c->be->id == GPU_BACKEND_CUDA);
	return out[0] ? 0 : oom(c);
}

/* aten::_set_item(list, i, v): list[i] = v */
OPFN(op_set_item)
{
	int64_t i;

	DICT_OP();

	if (in[0]->kind != TV_LIST)
		return trace_error(c, "item assignment on a non-list");
	if (seq_index(c, in[0], in[1], &i))
		return -1;
	tv_unref(in[0]->u.list.items[i]);
	in[0]->u.list.items[i] = tv_ref(in[2]);
	if (nout)
		out[0] = tv_ref(in[0]);
	return 0;
}

/* aten::Delete(list, i): del list[i] */
OPFN(op_delete)
{
	struct tval *l = in[0];
	int64_t i;
	int k;

	DICT_OP();

	if (l->kind != TV_LIST)
		return trace_error(c, "del on a non-list");
	if (seq_index(c, l, in[1], &i))
		return -1;
	tv_unref(l->u.list.items[i]);
	for (k = (int)i; k < l->u.list.n - 1; k++)
		l->u.list.items[k] = l->u.list.items[k + 1];
	l->u.list.n--;
	for (k = 0; k < nout; k++)
		out[k] = tv_none();
	return 0;
}

/* inference: no autograd, no autocast, no nested tensors */
OPFN(op_false)
{
	out[0] = tv_bool(0);
	return out[0] ? 0 : oom(c);
}

/* prim::type(Device) -> str */
OPFN(op_device_type)
{
	if (in[0]->kind != TV_DEVICE && in[0]->kind != TV_STR)
		return trace_error(c, "expected a device");
	out[0] = tv_str(strncmp(in[0]->u.s, "cuda", 4) ? "cpu" : "cuda");
	return out[0] ? 0 : oom(c);
}

/* aten::find(str, sub, start, end) */
OPFN(op_find)
{
	const char *h, *f;
	int64_t len, start = 0, end;

	if (nin < 2 || in[0]->kind != TV_STR || in[1]->kind != TV_STR)
		return trace_error(c, "find expects two strings");
	h = in[0]->u.s;
	len = (int64_t)strlen(h);
	end = len;
	if (nin > 2 && in[2]->kind != TV_NONE && tv_get_int(c, in[2], &start))
		return -1;
	if (nin > 3 && in[3]->kind != TV_NONE && tv_get_int(c, in[3], &end))
		return -1;
	if (start < 0)
		start = start + len < 0 ? 0 : start + len;
	if (end < 0)
		end += len;
	if (end > len)
		end = len;
	out[0] = NULL;
	if (start <= end) {
		char *w = strndup(h + start, (size_t)(end - start));

		if (!w)
			return oom(c);
		f = strstr(w, in[1]->u.s);
		out[0] = tv_int(f ? start + (f - w) : -1);
		free(w);
	} else {
		out[0] = tv_int(-1);
	}
	return out[0] ? 0 : oom(c);
}

/* --- dicts ----------------------------------------------------------------- */

/* Python's key equality for the keys TorchScript allows (str, int, float,
 * bool, Tensor by identity). */
static int dict_key_eq(const struct tval *a, const struct tval *b)
{
	if (a->kind == TV_TENSOR || b->kind == TV_TENSOR)
		return same_value(a, b);
	return equal_values(a, b);
}

/* The index of key's entry (of the key, in u.list), or -1. */
static int dict_find(const struct tval *d, const struct tval *key)
{
	int i;

	for (i = 0; i + 1 < d->u.list.n; i += 2)
		if (dict_key_eq(d->u.list.items[i], key))
			return i;
	return -1;
}

/* d[key] = v (new references taken here).  0 or -1 out of memory. */
static int dict_set(struct tval *d, struct tval *key, struct tval *v)
{
	int i = dict_find(d, key);

	if (i >= 0) {
		tv_unref(d->u.list.items[i + 1]);
		d->u.list.items[i + 1] = tv_ref(v);
		return 0;
	}
	if (tv_list_push(d, tv_ref(key)))
		return -1;
	if (tv_list_push(d, tv_ref(v))) {
		tv_unref(d->u.list.items[--d->u.list.n]);
		return -1;
	}
	return 0;
}

/* Removes the entry at index i (of its key). */
static void dict_remove(struct tval *d, int i)
{
	int k;

	tv_unref(d->u.list.items[i]);
	tv_unref(d->u.list.items[i + 1]);
	for (k = i; k + 2 < d->u.list.n; k++)
		d->u.list.items[k] = d->u.list.items[k + 2];
	d->u.list.n -= 2;
}

static int key_error(struct trace_ctx *c, const struct tval *key)
{
	char buf[256];

	buf[0] = 0;
	fmt_value(key, buf, sizeof(buf));
	return trace_error(c, "the model raised: KeyError: %s", buf);
}

/* a shallow copy of dict d */
static struct tval *dict_copy(const struct tval *d)
{
	struct tval *r = tv_list(TV_DICT);
	int i;

	if (!r)
		return NULL;
	for (i = 0; i < d->u.list.n; i++)
		if (tv_list_push(r, tv_ref(d->u.list.items[i]))) {
			tv_unref(r);
			return NULL;
		}
	return r;
}

/* d.keys() (part 0), d.values() (1) as a new list */
static struct tval *dict_part(const struct tval *d, int part)
{
	struct tval *r = tv_list(TV_LIST);
	int i;

	if (!r)
		return NULL;
	for (i = part; i < d->u.list.n; i += 2)
		if (tv_list_push(r, tv_ref(d->u.list.items[i]))) {
			tv_unref(r);
			return NULL;
		}
	return r;
}

static int expect_dict(struct trace_ctx *c, int nin, struct tval **in,
		       int min)
{
	if (nin < min || in[0]->kind != TV_DICT)
		return trace_error(c, "expected a dict");
	return 0;
}

/* prim::DictConstruct(k0, v0, k1, v1, ...) */
OPFN(op_dict_construct)
{
	struct tval *d;
	int i;

	if (nin % 2)
		return trace_error(c, "a dict needs keys and values in pairs");
	d = tv_list(TV_DICT);
	if (!d)
		return oom(c);
	for (i = 0; i < nin; i += 2)
		if (dict_set(d, in[i], in[i + 1])) {
			tv_unref(d);
			return oom(c);
		}
	out[0] = d;
	return 0;
}

/* aten::dict(): {}; aten::dict(d): a copy; aten::dict(pairs) */
OPFN(op_dict)
{
	const struct tval *s = nin ? in[0] : NULL;
	int i;

	if (s && s->kind == TV_DICT) {
		out[0] = dict_copy(s);
		return out[0] ? 0 : oom(c);
	}
	if (s && s->kind != TV_LIST && s->kind != TV_TUPLE)
		return trace_error(c, "dict() of a value that is not a dict "
				   "or a list of pairs");
	out[0] = tv_list(TV_DICT);
	if (!out[0])
		return oom(c);
	for (i = 0; s && i < s->u.list.n; i++) {
		const struct tval *p = s->u.list.items[i];

		if ((p->kind != TV_TUPLE && p->kind != TV_LIST) ||
		    p->u.list.n != 2)
			return trace_error(c, "dict() of a list that does not "
					   "hold pairs");
		if (dict_set(out[0], p->u.list.items[0], p->u.list.items[1]))
			return oom(c);
	}
	return 0;
}

/* d.get(key, default=None) and d.setdefault(key, default=None) */
OPFN(op_dict_get)
{
	int i;

	if (expect_dict(c, nin, in, 2))
		return -1;
	i = dict_find(in[0], in[1]);
	if (i >= 0) {
		out[0] = tv_ref(in[0]->u.list.items[i + 1]);
		return 0;
	}
	out[0] = nin > 2 ? tv_ref(in[2]) : tv_none();
	if (!out[0])
		return oom(c);
	if (!strcmp(n->kind, "aten::setdefault") &&
	    dict_set(in[0], in[1], out[0]))
		return oom(c);
	return 0;
}

OPFN(op_dict_keys)
{
	if (expect_dict(c, nin, in, 1))
		return -1;
	out[0] = dict_part(in[0], strcmp(n->kind, "aten::keys") != 0);
	return out[0] ? 0 : oom(c);
}

/* d.items(): a list of (key, value) tuples */
OPFN(op_dict_items)
{
	struct tval *l, *p;
	int i;

	if (expect_dict(c, nin, in, 1))
		return -1;
	l = tv_list(TV_LIST);
	if (!l)
		return oom(c);
	out[0] = l;
	for (i = 0; i < in[0]->u.list.n; i += 2) {
		p = tv_list(TV_TUPLE);
		if (!p || tv_list_push(l, p) ||
		    tv_list_push(p, tv_ref(in[0]->u.list.items[i])) ||
		    tv_list_push(p, tv_ref(in[0]->u.list.items[i + 1])))
			return oom(c);
	}
	return 0;
}

/* d.popitem(): TorchScript's pops the first (key, value) in insertion
 * order (Python's the last) */
OPFN(op_dict_popitem)
{
	struct tval *d = in[0], *p;
	int i;

	if (expect_dict(c, nin, in, 1))
		return -1;
	if (d->u.list.n == 0)
		return trace_error(c, "the model raised: KeyError: "
				   "popitem(): dictionary is empty");
	i = 0;
	p = tv_list(TV_TUPLE);
	if (!p)
		return oom(c);
	out[0] = p;
	if (tv_list_push(p, tv_ref(d->u.list.items[i])) ||
	    tv_list_push(p, tv_ref(d->u.list.items[i + 1])))
		return oom(c);
	dict_remove(d, i);
	return 0;
}

OPFN(op_dict_update)
{
	int i;

	if (expect_dict(c, nin, in, 2) || in[1]->kind != TV_DICT)
		return trace_error(c, "update expects two dicts");
	for (i = 0; i < in[1]->u.list.n; i += 2)
		if (dict_set(in[0], in[1]->u.list.items[i],
			     in[1]->u.list.items[i + 1]))
			return oom(c);
	for (i = 0; i < nout; i++)
		if (!(out[i] = tv_none()))
			return oom(c);
	return 0;
}

OPFN(op_dict_clear)
{
	int i;

	if (expect_dict(c, nin, in, 1))
		return -1;
	while (in[0]->u.list.n)
		dict_remove(in[0], 0);
	for (i = 0; i < nout; i++)
		if (!(out[i] = tv_none()))
			return oom(c);
	return 0;
}

/* what list ops do on a dict: d[k], len(d), k in d, d[k] = v, del d[k],
 * d.pop(k[, default]), list(d), d.copy().  1 when handled (out set or
 * -1 returned through *rc), 0 when in[0] is no dict. */
static int dict_op(struct trace_ctx *c, const char *kind, struct tval **in,
		   int nin, struct tval **out, int nout, int *rc)
{
	struct tval *d = in[0];
	int i, k;

	if (nin < 1 || d->kind != TV_DICT)
		return 0;
	*rc = 0;
	if (!strcmp(kind, "aten::len")) {
		out[0] = tv_int(d->u.list.n / 2);
	} else if (!strcmp(kind, "aten::list") || !strcmp(kind, "aten::copy")) {
		out[0] = strcmp(kind, "aten::copy") ? dict_part(d, 0) :
			 dict_copy(d);
	} else if (nin < 2) {
		*rc = trace_error(c, "expected a key");
		return 1;
	} else if (!strcmp(kind, "aten::__contains__")) {
		out[0] = tv_bool(dict_find(d, in[1]) >= 0);
	} else if (!strcmp(kind, "aten::_set_item")) {
		if (nin < 3) {
			*rc = trace_error(c, "expected a key and a value");
			return 1;
		}
		if (dict_set(d, in[1], in[2])) {
			*rc = oom(c);
			return 1;
		}
		for (k = 0; k < nout; k++)
			if (!(out[k] = tv_none()))
				break;
		*rc = k < nout ? oom(c) : 0;
		return 1;
	} else {
		i = dict_find(d, in[1]);
		if (i < 0 && !(nin > 2 && !strcmp(kind, "aten::pop"))) {
			*rc = key_error(c, in[1]);
			return 1;
		}
		if (!strcmp(kind, "aten::Delete")) {
			dict_remove(d, i);
			for (k = 0; k < nout; k++)
				if (!(out[k] = tv_none()))
					break;
			*rc = k < nout ? oom(c) : 0;
			return 1;
		}
		/* __getitem__, pop */
		out[0] = tv_ref(i >= 0 ? d->u.list.items[i + 1] : in[2]);
		if (i >= 0 && !strcmp(kind, "aten::pop"))
			dict_remove(d, i);
	}
	if (!out[0])
		*rc = oom(c);
	return 1;
}

const struct trace_op trace_ops_prim[] = {
	{ "prim::DictConstruct", op_dict_construct },
	{ "aten::dict", op_dict },
	{ "aten::get", op_dict_get },
	{ "aten::setdefault", op_dict_get },
	{ "aten::keys", op_dict_keys },
	{ "aten::values", op_dict_keys },
	{ "aten::items", op_dict_items },
	{ "aten::popitem", op_dict_popitem },
	{ "aten::update", op_dict_update },
	{ "aten::clear", op_dict_clear },
	{ "aten::find", op_find },
	{ "aten::is_pinned", op_false },
	{ "aten::_set_item", op_set_item },
	{ "aten::Delete", op_delete },
	{ "aten::IntImplicit", op_Int },
	{ "aten::is_grad_enabled", op_false },
	{ "aten::is_autocast_enabled", op_false },
	{ "prim::requires_grad", op_false },
	{ "prim::is_nested", op_false },
	{ "prim::type", op_device_type },
	{ "prim::Constant", op_constant },
	{ "prim::ListConstruct", op_list_construct },
	{ "prim::ListUnpack", op_unpack },
	{ "prim::TupleConstruct", op_tuple_construct },
	{ "prim::TupleUnpack", op_unpack },
	{ "prim::TupleIndex", op_tuple_index },
	{ "prim::device", op_device },
	{ "prim::dtype", op_dtype },
	{ "prim::NumToTensor", op_numtotensor },
	{ "prim::unchecked_cast", op_unchecked_cast },
	{ "prim::Uninitialized", op_uninitialized },
	{ "prim::RaiseException", op_raise },
	{ "prim::is_cuda", op_is_cuda },
	{ "aten::size", op_size },
	{ "aten::dim", op_dim },
	{ "aten::numel", op_numel },
	{ "aten::len", op_len },
	{ "aten::__getitem__", op_getitem },
	{ "aten::append", op_append },
	{ "aten::insert", op_insert },
	{ "aten::pop", op_pop },
	{ "aten::extend", op_extend },
	{ "aten::Int", op_Int },
	{ "aten::Float", op_Float },
	{ "aten::Bool", op_Bool },
	{ "aten::ScalarImplicit", op_item },
	{ "aten::item", op_item },
	{ "aten::__is__", op_is },
	{ "aten::__isnot__", op_is },
	{ "aten::__not__", op_not },
	{ "aten::__contains__", op_contains },
	{ "aten::warn", op_ignore },
	{ "aten::format", op_format },
	{ "aten::str", op_str },
	{ "aten::device", op_device },
	{ "aten::is_floating_point", op_is_floating_point },
	{ NULL, NULL },
};

/* --- Python arithmetic ---------------------------------------------------- */

static int isnum(const struct tval *v)
{
	return v->kind == TV_INT || v->kind == TV_BOOL || v->kind == TV_FLOAT;
}

/* A number from a 0-d tensor reached with the scalar ops */
static int scalar_args(struct trace_ctx *c, struct tval **in, int nin,
		       double *x, int64_t *k, int *flt)
{
	int i;

	*flt = 0;
	for (i = 0; i < nin; i++) {
		if (in[i]->kind == TV_FLOAT)
			*flt = 1;
		else if (in[i]->kind == TV_TENSOR)
			return trace_error(c, "a tensor where a number was "
					   "expected");
		else if (!isnum(in[i]))
			return 1;
		x[i] = num(in[i]);
		k[i] = in[i]->kind == TV_FLOAT ? 0 : in[i]->u.i;
	}
	return 0;
}

static struct tval *concat(const struct tval *a, const struct tval *b)
{
	struct tval *l = tv_list(a->kind);
	int i;

	if (!l)
		return NULL;
	for (i = 0; i < a->u.list.n; i++)
		if (tv_list_push(l, tv_ref(a->u.list.items[i])))
			goto bad;
	for (i = 0; i < b->u.list.n; i++)
		if (tv_list_push(l, tv_ref(b->u.list.items[i])))
			goto bad;
	return l;
bad:
	tv_unref(l);
	return NULL;
}

enum arith { A_ADD, A_SUB, A_MUL, A_DIV, A_FLOORDIV, A_REM, A_POW, A_MIN,
	     A_MAX };

static int arith(struct trace_ctx *c, enum arith op, struct tval **in,
		 int nin, struct tval **out)
{
	double x[2];
	int64_t k[2];
	int flt, r;

	if (nin < 2)
		return trace_error(c, "expected 2 inputs");
	r = scalar_args(c, in, 2, x, k, &flt);
	if (r < 0)
		return -1;
	if (r > 0) {
		/* lists and strings */
		if (op == A_ADD && in[0]->kind == in[1]->kind &&
		    (in[0]->kind == TV_LIST || in[0]->kind == TV_TUPLE)) {
			out[0] = concat(in[0], in[1]);
			return out[0] ? 0 : oom(c);
		}
		if (op == A_ADD && in[0]->kind == TV_STR &&
		    in[1]->kind == TV_STR) {
			size_t la = strlen(in[0]->u.s), lb = strlen(in[1]->u.s);
			char *s = malloc(la + lb + 1);

			if (!s)
				return oom(c);
			memcpy(s, in[0]->u.s, la);
			memcpy(s + la, in[1]->u.s, lb + 1);
			out[0] = tv_str(s);
			free(s);
			return out[0] ? 0 : oom(c);
		}
		if (op == A_MUL && in[0]->kind == TV_LIST &&
		    in[1]->kind == TV_INT) {
			struct tval *l = tv_list(TV_LIST);
			int64_t t, n = in[0]->u.list.n;
			int i;

			if (!l)
				return oom(c);
			if (n && in[1]->u.i > LIMIT_TRACE_LIST_ITEMS / n) {
				tv_unref(l);
				return trace_error(c, "a list of %lld x %lld "
						   "items: over the limit of "
						   "%lld", (long long)n,
						   (long long)in[1]->u.i,
						   (long long)
						   LIMIT_TRACE_LIST_ITEMS);
			}
			for (t = 0; t < in[1]->u.i; t++)
				for (i = 0; i < in[0]->u.list.n; i++)
					if (tv_list_push(l, tv_ref(
					    in[0]->u.list.items[i]))) {
						tv_unref(l);
						return oom(c);
					}
			out[0] = l;
			return 0;
		}
		return trace_error(c, "unsupported operand types");
	}
	switch (op) {
	case A_ADD:
		/* ints wrap as torch's int64_t does (intmath.h) */
		out[0] = flt ? tv_float(x[0] + x[1]) :
			 tv_int(i64_wrap_add(k[0], k[1]));
		break;
	case A_SUB:
		out[0] = flt ? tv_float(x[0] - x[1]) :
			 tv_int(i64_wrap_sub(k[0], k[1]));
		break;
	case A_MUL:
		out[0] = flt ? tv_float(x[0] * x[1]) :
			 tv_int(i64_wrap_mul(k[0], k[1]));
		break;
	case A_DIV:
		if (x[1] == 0)
			return trace_error(c, "division by zero");
		out[0] = tv_float(x[0] / x[1]);
		break;
	case A_FLOORDIV:
		if (x[1] == 0)
			return trace_error(c, "division by zero");
		if (flt) {
			out[0] = tv_float(floor(x[0] / x[1]));
		} else {
			int64_t q;

			/* torch dies with SIGFPE on INT64_MIN // -1 */
			if (i64_floordiv(k[0], k[1], &q))
				return trace_error(c, "integer overflow: %lld "
						   "// %lld has no int64 result",
						   (long long)k[0],
						   (long long)k[1]);
			out[0] = tv_int(q);
		}
		break;
	case A_REM:
		if (x[1] == 0)
			return trace_error(c, "modulo by zero");
		if (flt) {
			out[0] = tv_float(x[0] - floor(x[0] / x[1]) * x[1]);
		} else {
			int64_t m;

			/* torch dies with SIGFPE on INT64_MIN % -1 too */
			if (i64_mod(k[0], k[1], &m))
				return trace_error(c, "integer overflow: %lld "
						   "%% %lld has no torch result",
						   (long long)k[0],
						   (long long)k[1]);
			out[0] = tv_int(m);
		}
		break;
	case A_POW: {
		int64_t p;

		/* an int result while it fits; past int64, the double
		 * TorchScript's pow.int gives (3 ** 1000 is inf in torch) */
		if (!flt && k[1] >= 0 && !i64_pow(k[0], k[1], &p))
			out[0] = tv_int(p);
		else
			out[0] = tv_float(pow(x[0], x[1]));
		break;
	}
	case A_MIN:
		out[0] = flt ? tv_float(fmin(x[0], x[1])) :
			 tv_int(k[0] < k[1] ? k[0] : k[1]);
		break;
	case A_MAX:
		out[0] = flt ? tv_float(fmax(x[0], x[1])) :
			 tv_int(k[0] > k[1] ? k[0] : k[1]);
		break;
	}
	return out[0] ? 0 : oom(c);
}

#define ARITH(name, op) \
	OPFN(name) { return arith(c, op, in, nin, out); }
ARITH(op_add, A_ADD)
ARITH(op_sub, A_SUB)
ARITH(op_mul, A_MUL)
ARITH(op_div, A_DIV)
ARITH(op_floordiv, A_FLOORDIV)
ARITH(op_rem, A_REM)
ARITH(op_pow, A_POW)

/* min/max of two numbers, or of one list */
static int minmax(struct trace_ctx *c, int max, struct tval **in, int nin,
		  struct tval **out)
{
	const struct tval *l = in[0], *best = NULL;
	int i;

	if (nin >= 2)
		return arith(c, max ? A_MAX : A_MIN, in, nin, out);
	if (l->kind != TV_LIST || l->u.list.n == 0)
		return trace_error(c, "expected a non-empty list");
	for (i = 0; i < l->u.list.n; i++) {
		const struct tval *e = l->u.list.items[i];

		if (!isnum(e))
			return trace_error(c, "a list of non-numbers");
		if (!best || (max ? num(e) > num(best) : num(e) < num(best)))
			best = e;
	}
	out[0] = tv_ref((struct tval *)best);
	return 0;
}

OPFN(op_min)
{
	return minmax(c, 0, in, nin, out);
}

OPFN(op_max)
{
	return minmax(c, 1, in, nin, out);
}

OPFN(op_neg)
{
	if (in[0]->kind == TV_FLOAT)
		out[0] = tv_float(-in[0]->u.f);
	else if (in[0]->kind == TV_INT || in[0]->kind == TV_BOOL)
		out[0] = tv_int(i64_wrap_neg(in[0]->u.i)); /* torch's wrap */
	else
		return trace_error(c, "expected a number");
	return out[0] ? 0 : oom(c);
}

OPFN(op_abs)
{
	if (in[0]->kind == TV_FLOAT)
		out[0] = tv_float(fabs(in[0]->u.f));
	else if (in[0]->kind == TV_INT || in[0]->kind == TV_BOOL)
		out[0] = tv_int(i64_wrap_abs(in[0]->u.i)); /* torch's wrap */
	else
		return trace_error(c, "expected a number");
	return out[0] ? 0 : oom(c);
}

enum cmp { C_EQ, C_NE, C_LT, C_LE, C_GT, C_GE };

static int compare(struct trace_ctx *c, enum cmp op, struct tval **in,
		   int nin, struct tval **out)
{
	int r, eq;
	double a, b;

	if (nin < 2)
		return trace_error(c, "expected 2 inputs");
	if (op == C_EQ || op == C_NE) {
		if (isnum(in[0]) && isnum(in[1]))
			eq = num(in[0]) == num(in[1]);
		else if ((in[0]->kind == TV_LIST || in[0]->kind == TV_TUPLE) &&
			 in[0]->kind == in[1]->kind) {
			int i;

			eq = in[0]->u.list.n == in[1]->u.list.n;
			for (i = 0; eq && i < in[0]->u.list.n; i++)
				eq = equal_values(in[0]->u.list.items[i],
						  in[1]->u.list.items[i]);
		} else
			eq = equal_values(in[0], in[1]);
		out[0] = tv_bool(op == C_EQ ? eq : !eq);
		return out[0] ? 0 : oom(c);
	}
	if (in[0]->kind == TV_STR && in[1]->kind == TV_STR) {
		int s = strcmp(in[0]->u.s, in[1]->u.s);

		a = s;
		b = 0;
	} else {
		if (!isnum(in[0]) || !isnum(in[1]))
			return trace_error(c, "comparison of non-numbers");
		a = num(in[0]);
		b = num(in[1]);
	}
	switch (op) {
	case C_LT: r = a < b; break;
	case C_LE: r = a <= b; break;
	case C_GT: r = a > b; break;
	default: r = a >= b; break;
	}
	out[0] = tv_bool(r);
	return out[0] ? 0 : oom(c);
}

#define CMP(name, op) \
	OPFN(name) { return compare(c, op, in, nin, out); }
CMP(op_eq, C_EQ)
CMP(op_ne, C_NE)
CMP(op_lt, C_LT)
CMP(op_le, C_LE)
CMP(op_gt, C_GT)
CMP(op_ge, C_GE)

static int logic(struct trace_ctx *c, int op, struct tval **in,
		 struct tval **out)
{
	int64_t a, b, r;

	if (tv_get_int(c, in[0], &a) || tv_get_int(c, in[1], &b))
		return -1;
	r = op == 0 ? (a & b) : op == 1 ? (a | b) : (a ^ b);
	out[0] = in[0]->kind == TV_BOOL && in[1]->kind == TV_BOOL ?
		 tv_bool(r != 0) : tv_int(r);
	return out[0] ? 0 : oom(c);
}

OPFN(op_and)
{
	return logic(c, 0, in, out);
}

OPFN(op_or)
{
	return logic(c, 1, in, out);
}

OPFN(op_xor)
{
	return logic(c, 2, in, out);
}

static int math1(struct trace_ctx *c, const char *kind, struct tval **in,
		 struct tval **out)
{
	double x;

	if (!isnum(in[0]))
		return trace_error(c, "expected a number");
	x = num(in[0]);
	if (!strcmp(kind, "aten::floor"))
		out[0] = in[0]->kind == TV_FLOAT ? tv_int((int64_t)floor(x)) :
			 tv_int(in[0]->u.i);
	else if (!strcmp(kind, "aten::ceil"))
		out[0] = in[0]->kind == TV_FLOAT ? tv_int((int64_t)ceil(x)) :
			 tv_int(in[0]->u.i);
	else if (!strcmp(kind, "aten::round"))
		out[0] = tv_float(nearbyint(x));
	else if (!strcmp(kind, "aten::sqrt"))
		out[0] = tv_float(sqrt(x));
	else if (!strcmp(kind, "aten::log"))
		out[0] = tv_float(log(x));
	else if (!strcmp(kind, "aten::exp"))
		out[0] = tv_float(exp(x));
	else if (!strcmp(kind, "aten::sin"))
		out[0] = tv_float(sin(x));
	else if (!strcmp(kind, "aten::cos"))
		out[0] = tv_float(cos(x));
	else if (!strcmp(kind, "aten::tanh"))
		out[0] = tv_float(tanh(x));
	else
		return trace_error(c, "no Python form");
	return out[0] ? 0 : oom(c);
}

OPFN(op_math1)
{
	return math1(c, n->kind, in, out);
}

/* aten::__range_length(lo, hi, step) */
OPFN(op_range_length)
{
	int64_t lo, hi, st, r;

	if (tv_get_int(c, in[0], &lo) || tv_get_int(c, in[1], &hi) ||
	    tv_get_int(c, in[2], &st))
		return -1;
	if (st == 0)
		return trace_error(c, "range() step must not be zero");
	if (st > 0)
		r = lo < hi ? 1 + (hi - 1 - lo) / st : 0;
	else
		r = hi < lo ? 1 + (lo - 1 - hi) / (-st) : 0;
	out[0] = tv_int(r);
	return out[0] ? 0 : oom(c);
}

/* aten::__derive_index(index, start, step) = start + index * step */
OPFN(op_derive_index)
{
	int64_t i, lo, st;

	if (tv_get_int(c, in[0], &i) || tv_get_int(c, in[1], &lo) ||
	    tv_get_int(c, in[2], &st))
		return -1;
	out[0] = tv_int(lo + i * st);
	return out[0] ? 0 : oom(c);
}

/* aten::sum(int[]) */
OPFN(op_list_sum)
{
	const struct tval *l = in[0];
	int64_t s = 0;
	double f = 0;
	int i, flt = 0;

	if (l->kind != TV_LIST)
		return trace_error(c, "expected a list of numbers");
	for (i = 0; i < l->u.list.n; i++) {
		if (!isnum(l->u.list.items[i]))
			return trace_error(c, "expected a list of numbers");
		if (l->u.list.items[i]->kind == TV_FLOAT)
			flt = 1;
		f += num(l->u.list.items[i]);
		s += l->u.list.items[i]->kind == TV_FLOAT ? 0 :
		     l->u.list.items[i]->u.i;
	}
	out[0] = flt ? tv_float(f) : tv_int(s);
	return out[0] ? 0 : oom(c);
}

const struct trace_op trace_ops_scalar[] = {
	{ "aten::add", op_add },
	{ "aten::sub", op_sub },
	{ "aten::mul", op_mul },
	{ "aten::div", op_div },
	{ "aten::floordiv", op_floordiv },
	{ "aten::floor_divide", op_floordiv },
	{ "aten::remainder", op_rem },
	{ "aten::pow", op_pow },
	{ "aten::min", op_min },
	{ "aten::max", op_max },
	{ "prim::min", op_min },
	{ "prim::max", op_max },
	{ "aten::neg", op_neg },
	{ "aten::abs", op_abs },
	{ "prim::abs", op_abs },
	{ "aten::eq", op_eq },
	{ "aten::ne", op_ne },
	{ "aten::lt", op_lt },
	{ "aten::le", op_le },
	{ "aten::gt", op_gt },
	{ "aten::ge", op_ge },
	{ "aten::__and__", op_and },
	{ "aten::__or__", op_or },
	{ "aten::__xor__", op_xor },
	{ "aten::floor", op_math1 },
	{ "aten::ceil", op_math1 },
	{ "aten::round", op_math1 },
	{ "aten::sqrt", op_math1 },
	{ "aten::log", op_math1 },
	{ "aten::exp", op_math1 },
	{ "aten::sin", op_math1 },
	{ "aten::cos", op_math1 },
	{ "aten::tanh", op_math1 },
	{ "aten::__range_length", op_range_length },
	{ "aten::__derive_index", op_derive_index },
	{ "aten::slice", op_list_slice },
	{ "aten::list", op_list },
	{ "aten::copy", op_list },
	{ "aten::reverse", op_reverse },
	{ "aten::sort", op_sort },
	{ "aten::sum", op_list_sum },
	{ NULL, NULL },
};

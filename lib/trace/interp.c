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
 * The ops themselves are in ops_*.c, found through optable.c; the
 * Python-level ones (prim::*, aten::size, lists, dicts, int arithmetic) in
 * ops_prim.c, ops_dict.c and ops_scalar.c.
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

int trace_oom(struct trace_ctx *c)
{
	return trace_error(c, "out of memory");
}

void trace_set_code(struct trace_ctx *c, int code)
{
	IP(c)->code = code;
}

int trace_code(struct trace_ctx *c)
{
	return IP(c)->code;
}

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

void trace_warn_once(struct trace_ctx *c, const char *kind, const char *msg)
{
	struct interp *ip = IP(c);
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

static struct ir_node *rec_node(struct interp *ip, enum aten_op op,
				uint32_t nin, uint32_t nout)
{
	struct ir_node *n = ir_node_new(ip->r, ip->r->top, aten_op_name(op),
					nin, nout);
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
struct ir_value *trace_record_scalar(struct trace_ctx *c, enum aten_op op,
				     struct ir_value *in,
				     enum ir_type_kind kind)
{
	struct interp *ip = IP(c);
	struct ir_node *rn = rec_node(ip, op, 1, 1);

	rn->inputs[0] = in;
	return rec_out(ip, rn, 0, ir_type_new(ip->r, kind));
}

static struct ir_value *rec_const_tensor(struct interp *ip,
					 struct gpu_tensor *t)
{
	struct ir_node *n = rec_node(ip, OP_prim_Constant, 0, 1);
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
		n = rec_node(ip, OP_prim_Constant, 0, 1);
		a = ir_node_add_attr(ip->r, n, "value", IR_ATTR_INT);
		a->u.i = v->kind == TV_DTYPE ?
			 tv_dtype_to_torch((enum ir_dtype)v->u.i) : v->u.i;
		return rec_out(ip, n, 0, type_of(ip, v));
	case TV_FLOAT:
		n = rec_node(ip, OP_prim_Constant, 0, 1);
		a = ir_node_add_attr(ip->r, n, "value", IR_ATTR_FLOAT);
		a->u.f = v->u.f;
		return rec_out(ip, n, 0, type_of(ip, v));
	case TV_STR:
	case TV_DEVICE:
		n = rec_node(ip, OP_prim_Constant, 0, 1);
		a = ir_node_add_attr(ip->r, n, "value", IR_ATTR_STRING);
		a->u.s.len = strlen(v->u.s);
		a->u.s.data = ir_strdup(ip->r, v->u.s);
		return rec_out(ip, n, 0, type_of(ip, v));
	case TV_NONE:
		n = rec_node(ip, OP_prim_Constant, 0, 1);
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
		n = rec_node(ip, OP_prim_Constant, 0, 1);
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
		n = rec_node(ip, v->kind == TV_LIST ? OP_prim_ListConstruct :
			     OP_prim_TupleConstruct, (uint32_t)v->u.list.n, 1);
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
	rn = rec_node(ip, n->op, (uint32_t)nin, (uint32_t)nout);
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
			struct ir_node *un = rec_node(ip, OP_prim_ListUnpack,
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
	if (nout > 0 && nin > 0 && trace_inplace(n) && is_tensor(in[0]) &&
	    is_tensor(out[0]))
		in[0]->rec = out[0]->rec;
	return 0;
}

/* Whether a node that ran through the prim or scalar table is recorded:
 * it must take a traced number and give numbers (comparisons on traced
 * ints give Python bools, as torch's tracer bakes them). */
static int scalar_recorded(const struct trace_op *row, struct tval **in,
			   int nin, struct tval **out, int nout)
{
	int i, traced = 0;

	if (row->op == OP_prim_NumToTensor)
		return is_traced(in[0]);
	if (row->op == OP_aten_size)
		return 1;
	/* float(n), int(n) of a traced size: kept as an op, or the size
	 * of a dynamic axis is baked into the number (torch.jit.trace
	 * warns and bakes it; the archive's code says to compute it) */
	if ((row->op == OP_aten_Float || row->op == OP_aten_Int ||
	     row->op == OP_aten_ScalarImplicit) && nin == 1 &&
	    in[0]->rec && (in[0]->kind == TV_INT || in[0]->kind == TV_FLOAT) &&
	    nout == 1 && (out[0]->kind == TV_INT || out[0]->kind == TV_FLOAT))
		return 1;
	if (row->flags & TRACE_OP_PYTHON)
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
		rn = rec_node(ip, OP_aten_size, 2, 1);
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
		trace_warn_once(&ip->ctx, n->kind, "a tensor condition is "
				"read as a Python bool: the branch taken is "
				"baked into the trace");
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
	const struct trace_op *row;
	enum trace_group table;
	int nin = (int)n->ninputs, nout = (int)n->noutputs, i;
	int has_tensor = 0, rc = -1, rec;

	ip->ctx.node = n;
	if (++ip->steps > (ip->o->max_steps > 0 ? ip->o->max_steps
						: LIMIT_TRACE_STEPS))
		return trace_error(&ip->ctx, "more than %lld ops run (an "
				   "endless loop?): over trace's limit",
				   (long long)(ip->o->max_steps > 0 ?
					       ip->o->max_steps :
					       LIMIT_TRACE_STEPS));
	if (n->op == OP_prim_If)
		return run_if(ip, n);
	if (n->op == OP_prim_Loop)
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
	row = trace_find_op(n->op, has_tensor, &table);
	if (!row) {
		trace_error(&ip->ctx, "no implementation for this op in "
			    "`trace` (--list-missing lists them all)");
		goto out;
	}
	memset(out, 0, sizeof(*out) * (size_t)nout);
	if (row->fn(&ip->ctx, n, in, nin, out, nout)) {
		set_code(ip, EXIT_UNSUPPORTED);
		goto outs;
	}
	for (i = 0; i < nout; i++)
		if (!out[i]) {
			trace_error(&ip->ctx, "output %d not set", i);
			goto outs;
		}
	if (table == TRACE_TENSOR) {
		rec = 1;
	} else {
		rec = scalar_recorded(row, in, nin, out, nout);
	}
	if (rec && table == TRACE_PRIM && nout == 1 &&
	    out[0]->kind == TV_LIST && n->op == OP_aten_size) {
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

static int mkdir_p(const char *path);

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
		if (o->save_inputs) { /* before the model can change it */
			char path[4096];

			if (mkdir_p(o->save_inputs)) {
				diag_error(ip->ctx.d, "%s: cannot create: %s",
					   o->save_inputs, strerror(errno));
				gpu_free(t);
				return EXIT_IO;
			}
			snprintf(path, sizeof(path), "%s/in%d.npy",
				 o->save_inputs, k);
			if (npy_write(path, t, ip->ctx.d)) {
				gpu_free(t);
				return EXIT_IO;
			}
		}
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
			struct ir_node *n = rec_node(ip, OP_aten_clone, 2, 1);
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
		n = rec_node(ip, OP_prim_NumToTensor, 1, 1);
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
	enum trace_group tbl;
	int i;
	uint32_t k;

	for (n = b->first; n; n = n->next) {
		for (k = 0; k < n->nblocks; k++)
			list_missing_block(n->blocks[k], seen, nseen, d);
		if (n->op == OP_prim_If ||
		    n->op == OP_prim_Loop ||
		    trace_find_op(n->op, 1, &tbl) ||
		    trace_find_op(n->op, 0, &tbl))
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

/* --- constants ----------------------------------------------------------- */

struct tval *trace_constant(struct trace_ctx *c, const struct ir_node *n)
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
		v = t && t->kind == IR_TYPE_DEVICE ? tv_device(s) : tv_str(s);
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

/*
 * pickle.c - the restricted unpickler (see pickle.h).
 *
 * A single pass over the opcodes with a value stack, a mark stack and a
 * memo, as in CPython's _pickle.c, except that REDUCE, NEWOBJ and BUILD
 * never call anything: they are interpreted for the handful of torch
 * constructs a TorchScript archive holds, and refused otherwise.  MARK is a
 * fence: nothing pops below the innermost mark, so a malformed program
 * reports "stack underflow" instead of eating the caller's frame.
 *
 * Costs: O(input) time and memory.  Values live in the caller's arena; the
 * stack, marks and memo are malloc'd for the call and freed before it
 * returns.  After STOP, one depth-first walk proves the result acyclic and
 * at most PICKLE_MAX_DEPTH deep.
 */
#include "pickle.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "quote.h"

struct unpickler {
	struct arena *a;
	struct diag *d;
	const char *name;
	const unsigned char *start, *p, *end;
	size_t op_offset;      /* of the opcode being run, for messages */
	unsigned char op;
	struct pickle_doc *doc;
	struct pickle_value **stack;
	size_t sp, scap;
	size_t *marks;         /* stack heights at each MARK */
	size_t nmarks, mcap;
	struct pickle_value **memo;
	size_t nmemo, memocap;
	struct pickle_storage **storages; /* malloc'd while loading */
	size_t nstorages, stcap;
	struct pickle_tensor **tensors;
	size_t ntensors, tcap;
};

/* --- opcodes ------------------------------------------------------------- */

#define OPCODES(X) \
	X(MARK, '(') X(STOP, '.') X(POP, '0') X(POP_MARK, '1') X(DUP, '2') \
	X(BININT, 'J') X(BININT1, 'K') X(BININT2, 'M') X(NONE, 'N') \
	X(BINPERSID, 'Q') X(REDUCE, 'R') X(BINSTRING, 'T') \
	X(SHORT_BINSTRING, 'U') X(BINUNICODE, 'X') X(APPEND, 'a') \
	X(BUILD, 'b') X(GLOBAL, 'c') X(DICT, 'd') X(EMPTY_DICT, '}') \
	X(APPENDS, 'e') X(BINGET, 'h') X(LONG_BINGET, 'j') X(LIST, 'l') \
	X(EMPTY_LIST, ']') X(BINPUT, 'q') X(LONG_BINPUT, 'r') X(SETITEM, 's') \
	X(TUPLE, 't') X(EMPTY_TUPLE, ')') X(SETITEMS, 'u') X(BINFLOAT, 'G') \
	X(PROTO, 0x80) X(NEWOBJ, 0x81) X(TUPLE1, 0x85) X(TUPLE2, 0x86) \
	X(TUPLE3, 0x87) X(NEWTRUE, 0x88) X(NEWFALSE, 0x89) X(LONG1, 0x8a) \
	X(LONG4, 0x8b) X(BINBYTES, 'B') X(SHORT_BINBYTES, 'C') \
	X(SHORT_BINUNICODE, 0x8c) X(BINUNICODE8, 0x8d) X(BINBYTES8, 0x8e) \
	X(EMPTY_SET, 0x8f) X(ADDITEMS, 0x90) X(FROZENSET, 0x91) \
	X(NEWOBJ_EX, 0x92) X(STACK_GLOBAL, 0x93) X(MEMOIZE, 0x94) \
	X(FRAME, 0x95)

enum {
#define X(name, code) PK_##name = code,
	OPCODES(X)
#undef X
};

static const char *op_name(unsigned char op)
{
	switch (op) {
#define X(name, code) case code: return #name;
	OPCODES(X)
#undef X
	}
	return "unknown opcode";
}

/* --- errors and allocation ----------------------------------------------- */

__attribute__((format(printf, 2, 3)))
static int perr(struct unpickler *u, const char *fmt, ...)
{
	char msg[640];
	va_list ap;
	const char *old = u->d->file;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	u->d->file = u->name;
	diag_error(u->d, "offset %zu (%s): %s", u->op_offset, op_name(u->op),
		   msg);
	u->d->file = old;
	return -1;
}

static struct pickle_value *new_value(struct unpickler *u, enum pickle_kind k)
{
	struct pickle_value *v = arena_alloc(u->a, sizeof *v);
	v->kind = k;
	v->id = ++u->doc->nvalues;
	return v;
}

static char *copy_str(struct unpickler *u, const void *s, size_t len)
{
	char *c = arena_alloc(u->a, len + 1);
	if (len)
		memcpy(c, s, len);
	return c;
}

/* Appends item to a malloc'd array arr of n items and room for cap. */
#define APPEND_TO(arr, n, cap, item) \
	do { \
		if ((n) == (cap)) { \
			(cap) = (cap) ? (cap) * 2 : 16; \
			(arr) = xrealloc((arr), (cap) * sizeof *(arr)); \
		} \
		(arr)[(n)++] = (item); \
	} while (0)

/* Appends to a TUPLE/LIST/SET's arena array, doubling it when full. */
static int seq_add(struct unpickler *u, struct pickle_value *s,
		   struct pickle_value *item)
{
	if (s->u.seq.n == s->u.seq.cap) {
		if (s->u.seq.cap >= UINT32_MAX / 2)
			return perr(u, "container too large");
		uint32_t cap = s->u.seq.cap ? s->u.seq.cap * 2 : 4;
		struct pickle_value **items = arena_alloc(u->a, cap * sizeof *items);
		if (s->u.seq.n)
			memcpy(items, s->u.seq.items, s->u.seq.n * sizeof *items);
		s->u.seq.items = items;
		s->u.seq.cap = cap;
	}
	s->u.seq.items[s->u.seq.n++] = item;
	return 0;
}

static int dict_add(struct unpickler *u, struct pickle_value *dv,
		    struct pickle_value *k, struct pickle_value *v)
{
	if (dv->u.dict.n == dv->u.dict.cap) {
		if (dv->u.dict.cap >= UINT32_MAX / 2)
			return perr(u, "dict too large");
		uint32_t cap = dv->u.dict.cap ? dv->u.dict.cap * 2 : 8;
		struct pickle_value **ks = arena_alloc(u->a, cap * sizeof *ks);
		struct pickle_value **vs = arena_alloc(u->a, cap * sizeof *vs);
		if (dv->u.dict.n) {
			memcpy(ks, dv->u.dict.keys, dv->u.dict.n * sizeof *ks);
			memcpy(vs, dv->u.dict.vals, dv->u.dict.n * sizeof *vs);
		}
		dv->u.dict.keys = ks;
		dv->u.dict.vals = vs;
		dv->u.dict.cap = cap;
	}
	dv->u.dict.keys[dv->u.dict.n] = k;
	dv->u.dict.vals[dv->u.dict.n++] = v;
	return 0;
}

/* A new TUPLE/LIST/SET holding n values. */
static struct pickle_value *new_seq(struct unpickler *u, enum pickle_kind k,
				    struct pickle_value **items, size_t n)
{
	struct pickle_value *v = new_value(u, k);
	if (n) {
		v->u.seq.items = arena_alloc(u->a, n * sizeof *items);
		memcpy(v->u.seq.items, items, n * sizeof *items);
	}
	v->u.seq.n = v->u.seq.cap = (uint32_t)n;
	return v;
}

/* --- the stack ----------------------------------------------------------- */

static size_t fence(const struct unpickler *u)
{
	return u->nmarks ? u->marks[u->nmarks - 1] : 0;
}

static void push(struct unpickler *u, struct pickle_value *v)
{
	APPEND_TO(u->stack, u->sp, u->scap, v);
}

static struct pickle_value *pop(struct unpickler *u)
{
	if (u->sp <= fence(u)) {
		perr(u, "stack underflow%s", u->nmarks ? " (below a MARK)" : "");
		return NULL;
	}
	return u->stack[--u->sp];
}

static struct pickle_value *peek(struct unpickler *u)
{
	if (u->sp <= fence(u)) {
		perr(u, "stack underflow%s", u->nmarks ? " (below a MARK)" : "");
		return NULL;
	}
	return u->stack[u->sp - 1];
}

/* Pops the innermost mark: the items above it are stack[*start..sp). */
static int pop_mark(struct unpickler *u, size_t *start)
{
	if (!u->nmarks)
		return perr(u, "no MARK to close (mark stack underflow)");
	*start = u->marks[--u->nmarks];
	return 0;
}

/* --- reading the input --------------------------------------------------- */

static int need(struct unpickler *u, size_t n)
{
	if ((size_t)(u->end - u->p) < n)
		return perr(u, "truncated: needs %zu more bytes, %zu left", n,
			    (size_t)(u->end - u->p));
	return 0;
}

static uint64_t le(const unsigned char *p, int n)
{
	uint64_t v = 0;
	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* A "text\n" line of GLOBAL. */
static int read_line(struct unpickler *u, const char **s, size_t *len)
{
	const unsigned char *nl = memchr(u->p, '\n', (size_t)(u->end - u->p));
	if (!nl)
		return perr(u, "truncated: no newline ends the global's name");
	*s = (const char *)u->p;
	*len = (size_t)(nl - u->p);
	u->p = nl + 1;
	return 0;
}

/* A length-prefixed STR or BYTES of a length field of nbytes. */
static int read_counted(struct unpickler *u, int nbytes, enum pickle_kind k)
{
	if (need(u, (size_t)nbytes))
		return -1;
	uint64_t len = le(u->p, nbytes);
	u->p += nbytes;
	if (len > (uint64_t)(u->end - u->p))
		return perr(u, "truncated: string of %" PRIu64 " bytes, %zu "
			    "left", len, (size_t)(u->end - u->p));
	struct pickle_value *v = new_value(u, k);
	v->u.s.data = copy_str(u, u->p, (size_t)len);
	v->u.s.len = (size_t)len;
	u->p += len;
	push(u, v);
	return 0;
}

/* LONG1/LONG4 payload: little-endian two's complement, fitting int64. */
static int read_long(struct unpickler *u, int lenbytes)
{
	if (need(u, (size_t)lenbytes))
		return -1;
	uint64_t n = le(u->p, lenbytes);
	u->p += lenbytes;
	if (lenbytes == 4 && (n & 0x80000000u))
		return perr(u, "negative length");
	if (n > (uint64_t)(u->end - u->p))
		return perr(u, "truncated: integer of %" PRIu64 " bytes, %zu "
			    "left", n, (size_t)(u->end - u->p));
	const unsigned char *b = u->p;
	u->p += n;
	int64_t v = 0;
	if (n) {
		int neg = b[n - 1] & 0x80;
		/* bytes past the eighth must be pure sign extension */
		for (uint64_t i = 8; i < n; i++)
			if (b[i] != (neg ? 0xff : 0))
				return perr(u, "integer of %" PRIu64 " bytes "
					    "does not fit in 64 bits", n);
		if (n > 8 && ((b[7] & 0x80) != 0) != (neg != 0))
			return perr(u, "integer of %" PRIu64 " bytes does not "
				    "fit in 64 bits", n);
		uint64_t x = le(b, n < 8 ? (int)n : 8);
		if (n < 8 && neg)
			x |= ~(uint64_t)0 << (8 * n);
		memcpy(&v, &x, sizeof v);
	}
	struct pickle_value *val = new_value(u, PICKLE_INT);
	val->u.i = v;
	push(u, val);
	return 0;
}

/* --- globals ------------------------------------------------------------- */

struct type_row {
	const char *storage; /* "Float": torch.FloatStorage */
	const char *dtypes;  /* torch.<name> dtype globals, space-separated */
	enum ir_dtype dtype;
	uint8_t size;
	uint8_t quantized;
};

static const struct type_row type_rows[] = {
	{ "Float", "float32 float", IR_DTYPE_FLOAT, 4, 0 },
	{ "Double", "float64 double", IR_DTYPE_DOUBLE, 8, 0 },
	{ "Half", "float16 half", IR_DTYPE_FLOAT16, 2, 0 },
	{ "BFloat16", "bfloat16", IR_DTYPE_BFLOAT16, 2, 0 },
	{ "Long", "int64 long", IR_DTYPE_INT64, 8, 0 },
	{ "Int", "int32 int", IR_DTYPE_INT32, 4, 0 },
	{ "Short", "int16 short", IR_DTYPE_INT16, 2, 0 },
	{ "Char", "int8", IR_DTYPE_INT8, 1, 0 },
	{ "Byte", "uint8", IR_DTYPE_UINT8, 1, 0 },
	{ "Bool", "bool", IR_DTYPE_BOOL, 1, 0 },
	{ "ComplexFloat", "complex64 cfloat", IR_DTYPE_COMPLEX64, 8, 0 },
	{ "ComplexDouble", "complex128 cdouble", IR_DTYPE_COMPLEX128, 16, 0 },
	{ "ComplexHalf", "complex32 chalf", IR_DTYPE_UNDEFINED, 4, 0 },
	{ "UInt16", "uint16", IR_DTYPE_UINT16, 2, 0 },
	{ "UInt32", "uint32", IR_DTYPE_UINT32, 4, 0 },
	{ "UInt64", "uint64", IR_DTYPE_UINT64, 8, 0 },
	{ "QInt8", "qint8", IR_DTYPE_INT8, 1, 1 },
	{ "QUInt8", "quint8", IR_DTYPE_UINT8, 1, 1 },
	{ "QInt32", "qint32", IR_DTYPE_INT32, 4, 1 },
	{ "QUInt4x2", "quint4x2", IR_DTYPE_UNDEFINED, 1, 1 },
	{ "QUInt2x4", "quint2x4", IR_DTYPE_UNDEFINED, 1, 1 },
	{ "Float8_e5m2", "float8_e5m2", IR_DTYPE_UNDEFINED, 1, 0 },
	{ "Float8_e4m3fn", "float8_e4m3fn", IR_DTYPE_UNDEFINED, 1, 0 },
	{ "Float8_e5m2fnuz", "float8_e5m2fnuz", IR_DTYPE_UNDEFINED, 1, 0 },
	{ "Float8_e4m3fnuz", "float8_e4m3fnuz", IR_DTYPE_UNDEFINED, 1, 0 },
};

/* An untyped storage holds bytes. */
static const struct type_row untyped_row = { "Byte", "", IR_DTYPE_UINT8, 1, 0 };

static int word_in(const char *list, const char *w, size_t len)
{
	for (const char *p = list; *p;) {
		const char *sp = strchr(p, ' ');
		size_t n = sp ? (size_t)(sp - p) : strlen(p);
		if (n == len && !memcmp(p, w, len))
			return 1;
		p += n + (sp != NULL);
	}
	return 0;
}

static int eq(const char *s, size_t len, const char *lit)
{
	return strlen(lit) == len && !memcmp(s, lit, len);
}

static const struct {
	const char *name;
	enum pickle_qscheme q;
} qschemes[] = {
	{ "per_tensor_affine", PICKLE_QSCHEME_PER_TENSOR_AFFINE },
	{ "per_channel_affine", PICKLE_QSCHEME_PER_CHANNEL_AFFINE },
	{ "per_tensor_symmetric", PICKLE_QSCHEME_PER_TENSOR_SYMMETRIC },
	{ "per_channel_symmetric", PICKLE_QSCHEME_PER_CHANNEL_SYMMETRIC },
	{ "per_channel_affine_float_qparams",
	  PICKLE_QSCHEME_PER_CHANNEL_AFFINE_FLOAT_QPARAMS },
};

static void set_type(struct pickle_global *g, enum pickle_global_kind k,
		     const struct type_row *r)
{
	g->kind = k;
	g->type_name = r->storage;
	g->dtype = r->dtype;
	g->elem_size = r->size;
	g->quantized = r->quantized;
}

/* Classifies module.name; 0 when it is a known construct. */
static int classify(struct pickle_global *g, const char *m, size_t ml,
		    const char *n, size_t nl)
{
	if (ml >= 9 && !memcmp(m, "__torch__", 9) && (ml == 9 || m[9] == '.')) {
		g->kind = PICKLE_G_CLASS;
		return 0;
	}
	if (eq(m, ml, "torch._utils")) {
		if (eq(n, nl, "_rebuild_tensor_v2"))
			g->kind = PICKLE_G_REBUILD_TENSOR;
		else if (eq(n, nl, "_rebuild_tensor_v3"))
			g->kind = PICKLE_G_REBUILD_TENSOR_V3;
		else if (eq(n, nl, "_rebuild_qtensor"))
			g->kind = PICKLE_G_REBUILD_QTENSOR;
		else if (eq(n, nl, "_rebuild_parameter") ||
			 eq(n, nl, "_rebuild_parameter_with_state"))
			g->kind = PICKLE_G_REBUILD_PARAMETER;
		else
			return -1;
		return 0;
	}
	if (eq(m, ml, "torch._tensor") && eq(n, nl, "_rebuild_from_type_v2")) {
		g->kind = PICKLE_G_REBUILD_FROM_TYPE;
		return 0;
	}
	if (eq(m, ml, "torch.jit._pickle")) {
		static const char *const lists[][2] = {
			{ "build_intlist", "List[int]" },
			{ "build_tensorlist", "List[Tensor]" },
			{ "build_doublelist", "List[float]" },
			{ "build_boollist", "List[bool]" },
			{ "build_genericlist", NULL },
		};
		for (size_t i = 0; i < sizeof lists / sizeof *lists; i++)
			if (eq(n, nl, lists[i][0])) {
				g->kind = PICKLE_G_BUILD_LIST;
				g->type_name = lists[i][1];
				return 0;
			}
		if (eq(n, nl, "restore_type_tag")) {
			g->kind = PICKLE_G_RESTORE_TYPE_TAG;
			return 0;
		}
		return -1;
	}
	if (eq(m, ml, "collections") && eq(n, nl, "OrderedDict")) {
		g->kind = PICKLE_G_ORDERED_DICT;
		return 0;
	}
	if ((eq(m, ml, "builtins") || eq(m, ml, "__builtin__")) &&
	    eq(n, nl, "complex")) {
		g->kind = PICKLE_G_COMPLEX;
		return 0;
	}
	if ((eq(m, ml, "torch.nn.parameter") &&
	     (eq(n, nl, "Parameter") || eq(n, nl, "Buffer"))) ||
	    (eq(m, ml, "torch") && eq(n, nl, "Tensor"))) {
		g->kind = PICKLE_G_TENSOR_TYPE;
		return 0;
	}
	if ((eq(m, ml, "torch") || eq(m, ml, "torch.storage")) &&
	    eq(n, nl, "UntypedStorage")) {
		set_type(g, PICKLE_G_STORAGE_TYPE, &untyped_row);
		return 0;
	}
	if (!eq(m, ml, "torch"))
		return -1;
	if (eq(n, nl, "device")) {
		g->kind = PICKLE_G_DEVICE;
		return 0;
	}
	for (size_t i = 0; i < sizeof type_rows / sizeof *type_rows; i++) {
		const struct type_row *r = &type_rows[i];
		size_t sl = strlen(r->storage);
		if (nl == sl + 7 && !memcmp(n, r->storage, sl) &&
		    !memcmp(n + sl, "Storage", 7)) {
			set_type(g, PICKLE_G_STORAGE_TYPE, r);
			return 0;
		}
		if (word_in(r->dtypes, n, nl)) {
			set_type(g, PICKLE_G_DTYPE, r);
			return 0;
		}
	}
	for (size_t i = 0; i < sizeof qschemes / sizeof *qschemes; i++)
		if (eq(n, nl, qschemes[i].name)) {
			g->kind = PICKLE_G_QSCHEME;
			g->qscheme = qschemes[i].q;
			return 0;
		}
	return -1;
}

static int make_global(struct unpickler *u, const char *m, size_t ml,
		       const char *n, size_t nl)
{
	struct pickle_global *g = arena_alloc(u->a, sizeof *g);
	char mq[QUOTE_MAX], nq[QUOTE_MAX];

	if (classify(g, m, ml, n, nl))
		return perr(u, "refusing global '%s.%s' (not a torch archive "
			    "construct)", quote_bytes(mq, sizeof mq, m, ml),
			    quote_bytes(nq, sizeof nq, n, nl));
	if (g->kind == PICKLE_G_CLASS && (nl == 0 || memchr(n, 0, nl) ||
					  memchr(m, 0, ml)))
		return perr(u, "bad class name '%s.%s'",
			    quote_bytes(mq, sizeof mq, m, ml),
			    quote_bytes(nq, sizeof nq, n, nl));
	g->module = copy_str(u, m, ml);
	g->name = copy_str(u, n, nl);
	struct pickle_value *v = new_value(u, PICKLE_GLOBAL);
	v->u.global = g;
	push(u, v);
	return 0;
}

/* --- torch constructs ---------------------------------------------------- */

static const char *gname(const struct pickle_global *g, char *buf, size_t cap)
{
	char a[QUOTE_MAX / 2], b[QUOTE_MAX / 2];
	snprintf(buf, cap, "%s.%s",
		 quote_bytes(a, sizeof a, g->module, strlen(g->module)),
		 quote_bytes(b, sizeof b, g->name, strlen(g->name)));
	return buf;
}

static int arg_kind(struct unpickler *u, const struct pickle_value *args,
		    uint32_t i, enum pickle_kind k, const char *what)
{
	const struct pickle_value *v = args->u.seq.items[i];
	if (v->kind == k)
		return 0;
	return perr(u, "%s: argument %u must be %s, not %s", what, i + 1,
		    pickle_kind_name(k), pickle_kind_name(v->kind));
}

static int as_bool(const struct pickle_value *v, int *b)
{
	if (v->kind == PICKLE_BOOL)
		*b = v->u.b;
	else if (v->kind == PICKLE_INT && (v->u.i == 0 || v->u.i == 1))
		*b = (int)v->u.i;
	else
		return -1;
	return 0;
}

static int as_double(const struct pickle_value *v, double *f)
{
	if (v->kind == PICKLE_FLOAT)
		*f = v->u.f;
	else if (v->kind == PICKLE_INT)
		*f = (double)v->u.i;
	else
		return -1;
	return 0;
}

/* sizes or strides: a TUPLE (or LIST) of non-negative INTs. */
static int int_tuple(struct unpickler *u, const struct pickle_value *v,
		     int64_t **out, const char *what)
{
	if (v->kind != PICKLE_TUPLE && v->kind != PICKLE_LIST)
		return perr(u, "tensor %s must be a tuple, not %s", what,
			    pickle_kind_name(v->kind));
	if (v->u.seq.n > PICKLE_MAX_RANK)
		return perr(u, "tensor has %u dimensions (at most %d)",
			    v->u.seq.n, PICKLE_MAX_RANK);
	*out = arena_alloc(u->a, (v->u.seq.n ? v->u.seq.n : 1) * sizeof **out);
	for (uint32_t i = 0; i < v->u.seq.n; i++) {
		const struct pickle_value *x = v->u.seq.items[i];
		if (x->kind != PICKLE_INT || x->u.i < 0)
			return perr(u, "tensor %s[%u] must be a non-negative "
				    "int", what, i);
		(*out)[i] = x->u.i;
	}
	return 0;
}

static void push_tensor(struct unpickler *u, struct pickle_tensor *t)
{
	struct pickle_value *v = new_value(u, PICKLE_TENSOR);
	v->u.tensor = t;
	APPEND_TO(u->tensors, u->ntensors, u->tcap, t);
	push(u, v);
}

/* The tensor part shared by every rebuild: storage, offset, sizes,
 * strides, and the extent check.  elem_size/dtype come from the storage
 * unless dt (v3) overrides them. */
static struct pickle_tensor *tensor_core(struct unpickler *u,
					 const struct pickle_value *args,
					 const struct pickle_global *dt,
					 const char *what)
{
	struct pickle_tensor *t = arena_alloc(u->a, sizeof *t);
	const struct pickle_value *off;
	int64_t *strides;

	if (arg_kind(u, args, 0, PICKLE_STORAGE, what) ||
	    arg_kind(u, args, 1, PICKLE_INT, what))
		return NULL;
	t->storage = args->u.seq.items[0]->u.storage;
	off = args->u.seq.items[1];
	if (off->u.i < 0)
		return perr(u, "%s: negative storage offset %" PRId64, what,
			    off->u.i), NULL;
	t->offset = off->u.i;
	if (int_tuple(u, args->u.seq.items[2], &t->sizes, "size") ||
	    int_tuple(u, args->u.seq.items[3], &strides, "stride"))
		return NULL;
	t->rank = (int)args->u.seq.items[2]->u.seq.n;
	if (args->u.seq.items[3]->u.seq.n != (uint32_t)t->rank)
		return perr(u, "%s: %d sizes but %u strides", what, t->rank,
			    args->u.seq.items[3]->u.seq.n), NULL;
	t->strides = strides;
	uint32_t es = dt ? dt->elem_size : t->storage->elem_size;
	t->dtype = dt ? dt->dtype : t->storage->dtype;

	t->elem_size = es;

	/* numel, extent; then (offset + extent) x elem_size <= storage bytes */
	uint64_t numel = 1, last = 0, bytes, end, off_bytes;
	for (int i = 0; i < t->rank; i++) {
		uint64_t s = (uint64_t)t->sizes[i], part;
		if (__builtin_mul_overflow(numel, s, &numel))
			goto overflow;
		if (s && (__builtin_mul_overflow(s - 1, (uint64_t)strides[i],
						 &part) ||
			  __builtin_add_overflow(last, part, &last)))
			goto overflow;
	}
	t->numel = numel;
	t->extent = numel ? last + 1 : 0;
	if (__builtin_mul_overflow(t->storage->numel,
				   (uint64_t)t->storage->elem_size, &bytes) ||
	    __builtin_mul_overflow((uint64_t)t->offset, (uint64_t)es,
				   &off_bytes) ||
	    __builtin_add_overflow((uint64_t)t->offset, t->extent, &end) ||
	    __builtin_mul_overflow(end, (uint64_t)es, &end))
		goto overflow;
	if (off_bytes > bytes)
		return perr(u, "%s: storage offset %" PRId64 " is past the end "
			    "of storage '%s'", what, t->offset,
			    t->storage->key), NULL;
	if (end > bytes)
		return perr(u, "%s: tensor (offset %" PRId64 ", %" PRIu64
			    " elements spanned, %u bytes each) does not fit "
			    "its storage '%s' (%" PRIu64 " bytes)", what,
			    t->offset, t->extent, es, t->storage->key, bytes),
		       NULL;
	return t;
overflow:
	perr(u, "%s: tensor sizes, strides or offset overflow", what);
	return NULL;
}

static int hooks_ok(struct unpickler *u, const struct pickle_value *v,
		    const char *what)
{
	if (v->kind == PICKLE_DICT || v->kind == PICKLE_NONE)
		return 0;
	return perr(u, "%s: backward hooks must be an OrderedDict, not %s",
		    what, pickle_kind_name(v->kind));
}

static int rebuild_tensor(struct unpickler *u, const struct pickle_value *args,
			  int v3)
{
	const char *what = v3 ? "_rebuild_tensor_v3" : "_rebuild_tensor_v2";
	uint32_t n = args->u.seq.n, min = v3 ? 7 : 6;
	const struct pickle_global *dt = NULL;
	struct pickle_tensor *t;

	if (n < min || n > min + 1)
		return perr(u, "%s takes %u or %u arguments, not %u", what, min,
			    min + 1, n);
	if (v3) {
		const struct pickle_value *g = args->u.seq.items[6];
		if (g->kind != PICKLE_GLOBAL || g->u.global->kind != PICKLE_G_DTYPE)
			return perr(u, "%s: argument 7 must be a dtype", what);
		dt = g->u.global;
	}
	if (!(t = tensor_core(u, args, dt, what)))
		return -1;
	if (as_bool(args->u.seq.items[4], &t->requires_grad))
		return perr(u, "%s: requires_grad must be a bool", what);
	if (hooks_ok(u, args->u.seq.items[5], what))
		return -1;
	if (n == min + 1) { /* math bits: {"conj": True, "neg": False} */
		const struct pickle_value *m = args->u.seq.items[min];
		if (m->kind != PICKLE_DICT)
			return perr(u, "%s: metadata must be a dict", what);
		for (uint32_t i = 0; i < m->u.dict.n; i++) {
			int b = 0;
			if (as_bool(m->u.dict.vals[i], &b))
				continue;
			if (pickle_str_eq(m->u.dict.keys[i], "conj"))
				t->conj = b;
			else if (pickle_str_eq(m->u.dict.keys[i], "neg"))
				t->neg = b;
		}
	}
	push_tensor(u, t);
	return 0;
}

static int rebuild_qtensor(struct unpickler *u, const struct pickle_value *args)
{
	const char *what = "_rebuild_qtensor";
	struct pickle_tensor *t;

	if (args->u.seq.n != 7)
		return perr(u, "%s takes 7 arguments, not %u", what,
			    args->u.seq.n);
	if (!(t = tensor_core(u, args, NULL, what)))
		return -1;
	const struct pickle_value *q = args->u.seq.items[4];
	if (q->kind != PICKLE_TUPLE || q->u.seq.n < 1 ||
	    q->u.seq.items[0]->kind != PICKLE_GLOBAL ||
	    q->u.seq.items[0]->u.global->kind != PICKLE_G_QSCHEME)
		return perr(u, "%s: quantizer parameters must be a tuple that "
			    "starts with a qscheme", what);
	t->qscheme = q->u.seq.items[0]->u.global->qscheme;
	switch (t->qscheme) {
	case PICKLE_QSCHEME_PER_TENSOR_AFFINE:
	case PICKLE_QSCHEME_PER_TENSOR_SYMMETRIC:
		if (q->u.seq.n != 3 || as_double(q->u.seq.items[1], &t->q_scale) ||
		    q->u.seq.items[2]->kind != PICKLE_INT)
			return perr(u, "%s: per-tensor parameters must be "
				    "(qscheme, scale, zero_point)", what);
		t->q_zero_point = q->u.seq.items[2]->u.i;
		break;
	default:
		if (q->u.seq.n != 4 || q->u.seq.items[1]->kind != PICKLE_TENSOR ||
		    q->u.seq.items[2]->kind != PICKLE_TENSOR ||
		    q->u.seq.items[3]->kind != PICKLE_INT)
			return perr(u, "%s: per-channel parameters must be "
				    "(qscheme, scales, zero_points, axis)", what);
		t->q_scales = q->u.seq.items[1]->u.tensor;
		t->q_zero_points = q->u.seq.items[2]->u.tensor;
		t->q_axis = q->u.seq.items[3]->u.i;
		if (t->q_axis < 0 || t->q_axis >= (t->rank ? t->rank : 1))
			return perr(u, "%s: axis %" PRId64 " out of range", what,
				    t->q_axis);
		break;
	}
	if (as_bool(args->u.seq.items[5], &t->requires_grad))
		return perr(u, "%s: requires_grad must be a bool", what);
	if (hooks_ok(u, args->u.seq.items[6], what))
		return -1;
	push_tensor(u, t);
	return 0;
}

static int rebuild_parameter(struct unpickler *u,
			     const struct pickle_value *args)
{
	const char *what = "_rebuild_parameter";
	if (args->u.seq.n < 3 || args->u.seq.n > 4)
		return perr(u, "%s takes 3 or 4 arguments, not %u", what,
			    args->u.seq.n);
	if (arg_kind(u, args, 0, PICKLE_TENSOR, what))
		return -1;
	struct pickle_tensor *t = arena_alloc(u->a, sizeof *t);
	*t = *args->u.seq.items[0]->u.tensor;
	t->is_parameter = 1;
	if (as_bool(args->u.seq.items[1], &t->requires_grad))
		return perr(u, "%s: requires_grad must be a bool", what);
	if (hooks_ok(u, args->u.seq.items[2], what))
		return -1;
	push_tensor(u, t);
	return 0;
}

static int apply(struct unpickler *u, const struct pickle_global *g,
		 struct pickle_value *arg, int depth);

/* _rebuild_from_type_v2(func, type, args, state) */
static int rebuild_from_type(struct unpickler *u, struct pickle_value *args,
			     int depth)
{
	const char *what = "_rebuild_from_type_v2";
	if (args->u.seq.n != 4)
		return perr(u, "%s takes 4 arguments, not %u", what,
			    args->u.seq.n);
	const struct pickle_value *f = args->u.seq.items[0];
	const struct pickle_value *ty = args->u.seq.items[1];
	struct pickle_value *fargs = args->u.seq.items[2];
	if (f->kind != PICKLE_GLOBAL ||
	    (f->u.global->kind != PICKLE_G_REBUILD_TENSOR &&
	     f->u.global->kind != PICKLE_G_REBUILD_TENSOR_V3 &&
	     f->u.global->kind != PICKLE_G_REBUILD_QTENSOR &&
	     f->u.global->kind != PICKLE_G_REBUILD_PARAMETER))
		return perr(u, "%s: argument 1 must be a tensor rebuild "
			    "function", what);
	if (ty->kind != PICKLE_GLOBAL ||
	    ty->u.global->kind != PICKLE_G_TENSOR_TYPE)
		return perr(u, "%s: argument 2 must be torch.Tensor or "
			    "torch.nn.Parameter", what);
	if (fargs->kind != PICKLE_TUPLE)
		return perr(u, "%s: argument 3 must be a tuple", what);
	if (apply(u, f->u.global, fargs, depth + 1))
		return -1;
	struct pickle_value *res = u->stack[u->sp - 1];
	if (res->kind == PICKLE_TENSOR &&
	    !strcmp(ty->u.global->name, "Parameter")) {
		struct pickle_tensor *t = arena_alloc(u->a, sizeof *t);
		*t = *res->u.tensor;
		t->is_parameter = 1;
		res->u.tensor = t;
	}
	return 0;
}

static struct pickle_value *need_tuple(struct unpickler *u,
				       struct pickle_value *arg,
				       const struct pickle_global *g,
				       uint32_t min, uint32_t max)
{
	char gb[QUOTE_MAX];
	if (arg->kind != PICKLE_TUPLE)
		return perr(u, "'%s' needs a tuple of arguments, not %s",
			    gname(g, gb, sizeof gb), pickle_kind_name(arg->kind)),
		       NULL;
	if (arg->u.seq.n < min || arg->u.seq.n > max)
		return perr(u, "'%s' takes %u to %u arguments, not %u",
			    gname(g, gb, sizeof gb), min, max, arg->u.seq.n),
		       NULL;
	return arg;
}

/* REDUCE: calls g on arg, pushing the result. */
static int apply(struct unpickler *u, const struct pickle_global *g,
		 struct pickle_value *arg, int depth)
{
	char gb[QUOTE_MAX];
	struct pickle_value *v;

	if (depth > 2)
		return perr(u, "nested _rebuild_from_type_v2");
	switch (g->kind) {
	case PICKLE_G_CLASS: /* an enum: the class applied to its value */
		v = new_value(u, PICKLE_OBJECT);
		v->u.object = arena_alloc(u->a, sizeof *v->u.object);
		v->u.object->class_name = arena_alloc(u->a, strlen(g->module) +
							  strlen(g->name) + 2);
		snprintf((char *)v->u.object->class_name,
			 strlen(g->module) + strlen(g->name) + 2, "%s.%s",
			 g->module, g->name);
		v->u.object->state = arg;
		v->u.object->is_enum = 1;
		push(u, v);
		return 0;
	case PICKLE_G_REBUILD_TENSOR:
	case PICKLE_G_REBUILD_TENSOR_V3:
		if (!need_tuple(u, arg, g, 0, UINT32_MAX))
			return -1;
		return rebuild_tensor(u, arg, g->kind == PICKLE_G_REBUILD_TENSOR_V3);
	case PICKLE_G_REBUILD_QTENSOR:
		return need_tuple(u, arg, g, 0, UINT32_MAX)
			       ? rebuild_qtensor(u, arg) : -1;
	case PICKLE_G_REBUILD_PARAMETER:
		return need_tuple(u, arg, g, 0, UINT32_MAX)
			       ? rebuild_parameter(u, arg) : -1;
	case PICKLE_G_REBUILD_FROM_TYPE:
		return need_tuple(u, arg, g, 0, UINT32_MAX)
			       ? rebuild_from_type(u, arg, depth) : -1;
	case PICKLE_G_BUILD_LIST:
		if (!need_tuple(u, arg, g, 1, 1))
			return -1;
		v = arg->u.seq.items[0];
		if (v->kind != PICKLE_LIST)
			return perr(u, "'%s' needs a list, not %s",
				    gname(g, gb, sizeof gb),
				    pickle_kind_name(v->kind));
		if (g->type_name)
			v->type_tag = g->type_name;
		push(u, v);
		return 0;
	case PICKLE_G_RESTORE_TYPE_TAG:
		if (!need_tuple(u, arg, g, 2, 2))
			return -1;
		v = arg->u.seq.items[0];
		if (arg->u.seq.items[1]->kind != PICKLE_STR)
			return perr(u, "restore_type_tag: the type must be a "
				    "string");
		if (v->kind == PICKLE_LIST || v->kind == PICKLE_DICT)
			v->type_tag = arg->u.seq.items[1]->u.s.data;
		push(u, v);
		return 0;
	case PICKLE_G_ORDERED_DICT:
		if (!need_tuple(u, arg, g, 0, 0))
			return -1;
		push(u, new_value(u, PICKLE_DICT));
		return 0;
	case PICKLE_G_DEVICE:
		if (!need_tuple(u, arg, g, 1, 2))
			return -1;
		if (arg->u.seq.items[0]->kind != PICKLE_STR ||
		    (arg->u.seq.n == 2 && arg->u.seq.items[1]->kind != PICKLE_INT))
			return perr(u, "torch.device takes a string and an "
				    "optional index");
		v = new_value(u, PICKLE_DEVICE);
		if (arg->u.seq.n == 2) {
			char buf[64];
			int n = snprintf(buf, sizeof buf, "%.30s:%" PRId64,
					 arg->u.seq.items[0]->u.s.data,
					 arg->u.seq.items[1]->u.i);
			v->u.s.data = copy_str(u, buf, (size_t)n);
			v->u.s.len = (size_t)n;
		} else {
			v->u.s = arg->u.seq.items[0]->u.s;
		}
		push(u, v);
		return 0;
	case PICKLE_G_COMPLEX:
		if (!need_tuple(u, arg, g, 2, 2))
			return -1;
		v = new_value(u, PICKLE_COMPLEX);
		if (as_double(arg->u.seq.items[0], &v->u.c.re) ||
		    as_double(arg->u.seq.items[1], &v->u.c.im))
			return perr(u, "complex takes two numbers");
		push(u, v);
		return 0;
	default:
		return perr(u, "'%s' cannot be called", gname(g, gb, sizeof gb));
	}
}

/* ('storage', torch.FloatStorage, key, location, numel) */
static int persistent_load(struct unpickler *u, const struct pickle_value *pid)
{
	if (pid->kind != PICKLE_TUPLE || pid->u.seq.n != 5 ||
	    !pickle_str_eq(pid->u.seq.items[0], "storage"))
		return perr(u, "persistent id is not ('storage', type, key, "
			    "location, numel)");
	struct pickle_value **it = pid->u.seq.items;
	if (it[1]->kind != PICKLE_GLOBAL ||
	    (it[1]->u.global->kind != PICKLE_G_STORAGE_TYPE &&
	     it[1]->u.global->kind != PICKLE_G_DTYPE))
		return perr(u, "persistent id: argument 2 must be a storage "
			    "type (torch.FloatStorage ...)");
	if (it[2]->kind != PICKLE_STR || it[2]->u.s.len == 0 ||
	    memchr(it[2]->u.s.data, 0, it[2]->u.s.len))
		return perr(u, "persistent id: the storage key must be a "
			    "non-empty string");
	if (it[3]->kind != PICKLE_STR && it[3]->kind != PICKLE_DEVICE)
		return perr(u, "persistent id: the location must be a string");
	if (it[4]->kind != PICKLE_INT || it[4]->u.i < 0)
		return perr(u, "persistent id: numel must be a non-negative "
			    "int");
	const struct pickle_global *g = it[1]->u.global;
	struct pickle_storage *s = arena_alloc(u->a, sizeof *s);
	uint64_t bytes;
	s->key = it[2]->u.s.data;
	s->type_name = g->type_name;
	s->dtype = g->dtype;
	s->elem_size = g->elem_size;
	s->quantized = g->quantized;
	s->location = it[3]->u.s.data;
	s->numel = (uint64_t)it[4]->u.i;
	if (__builtin_mul_overflow(s->numel, (uint64_t)s->elem_size, &bytes) ||
	    bytes > (uint64_t)INT64_MAX)
		return perr(u, "storage '%s': %" PRIu64 " elements overflow",
			    s->key, s->numel);
	struct pickle_value *v = new_value(u, PICKLE_STORAGE);
	v->u.storage = s;
	APPEND_TO(u->storages, u->nstorages, u->stcap, s);
	push(u, v);
	return 0;
}

/* --- the main loop ------------------------------------------------------- */

static int memo_put(struct unpickler *u, uint64_t idx)
{
	struct pickle_value *v = peek(u);
	if (!v)
		return -1;
	if (idx > u->nmemo)
		return perr(u, "memo index %" PRIu64 " skips past the next "
			    "free slot %zu", idx, u->nmemo);
	if (idx == u->nmemo)
		APPEND_TO(u->memo, u->nmemo, u->memocap, v);
	else
		u->memo[idx] = v;
	return 0;
}

static int memo_get(struct unpickler *u, uint64_t idx)
{
	if (idx >= u->nmemo)
		return perr(u, "memo index %" PRIu64 " out of range (the memo "
			    "has %zu entries)", idx, u->nmemo);
	push(u, u->memo[idx]);
	return 0;
}

/* Builds a TUPLE/LIST/SET of the items above the innermost mark. */
static int collect(struct unpickler *u, enum pickle_kind k)
{
	size_t start = 0;
	if (pop_mark(u, &start))
		return -1;
	struct pickle_value *v = new_seq(u, k, u->stack + start, u->sp - start);
	u->sp = start;
	push(u, v);
	return 0;
}

/* The container below the innermost mark, for APPENDS/SETITEMS/ADDITEMS. */
static struct pickle_value *mark_target(struct unpickler *u, size_t *start,
					enum pickle_kind k)
{
	if (pop_mark(u, start))
		return NULL;
	if (*start <= fence(u)) {
		perr(u, "stack underflow: no container below the MARK");
		return NULL;
	}
	struct pickle_value *c = u->stack[*start - 1];
	if (c->kind != k) {
		perr(u, "target must be a %s, not %s", pickle_kind_name(k),
		     pickle_kind_name(c->kind));
		return NULL;
	}
	return c;
}

static int step(struct unpickler *u, int *stop)
{
	struct pickle_value *v, *w, *x;
	size_t start = 0;
	const char *s1 = NULL, *s2 = NULL;
	size_t l1 = 0, l2 = 0;

	u->op_offset = (size_t)(u->p - u->start);
	if (u->p >= u->end) {
		u->op = 0;
		return perr(u, "truncated: no STOP opcode");
	}
	u->op = *u->p++;
	switch (u->op) {
	case PK_PROTO:
		if (need(u, 1))
			return -1;
		if (*u->p < 2 || *u->p > 5)
			return perr(u, "unsupported protocol %u", *u->p);
		u->doc->protocol = *u->p++;
		return 0;
	case PK_FRAME:
		if (need(u, 8))
			return -1;
		u->p += 8; /* frames only help streaming readers */
		return 0;
	case PK_STOP:
		if (!(v = pop(u)))
			return -1;
		u->doc->root = v;
		*stop = 1;
		return 0;
	case PK_MARK:
		APPEND_TO(u->marks, u->nmarks, u->mcap, u->sp);
		return 0;
	case PK_POP:
		if (u->sp > fence(u)) {
			u->sp--;
			return 0;
		}
		return pop_mark(u, &start);
	case PK_POP_MARK:
		if (pop_mark(u, &start))
			return -1;
		u->sp = start;
		return 0;
	case PK_DUP:
		if (!(v = peek(u)))
			return -1;
		push(u, v);
		return 0;
	case PK_NONE:
		push(u, new_value(u, PICKLE_NONE));
		return 0;
	case PK_NEWTRUE:
	case PK_NEWFALSE:
		v = new_value(u, PICKLE_BOOL);
		v->u.b = u->op == PK_NEWTRUE;
		push(u, v);
		return 0;
	case PK_BININT1:
	case PK_BININT2:
	case PK_BININT: {
		int n = u->op == PK_BININT1 ? 1 : u->op == PK_BININT2 ? 2 : 4;
		if (need(u, (size_t)n))
			return -1;
		v = new_value(u, PICKLE_INT);
		uint64_t x64 = le(u->p, n);
		v->u.i = n == 4 ? (int64_t)(int32_t)(uint32_t)x64 : (int64_t)x64;
		u->p += n;
		push(u, v);
		return 0;
	}
	case PK_LONG1:
		return read_long(u, 1);
	case PK_LONG4:
		return read_long(u, 4);
	case PK_BINFLOAT: {
		if (need(u, 8))
			return -1;
		uint64_t bits = 0;
		for (int i = 0; i < 8; i++) /* big-endian */
			bits = bits << 8 | u->p[i];
		u->p += 8;
		v = new_value(u, PICKLE_FLOAT);
		memcpy(&v->u.f, &bits, sizeof v->u.f);
		push(u, v);
		return 0;
	}
	case PK_SHORT_BINUNICODE:
		return read_counted(u, 1, PICKLE_STR);
	case PK_BINUNICODE:
		return read_counted(u, 4, PICKLE_STR);
	case PK_BINUNICODE8:
		return read_counted(u, 8, PICKLE_STR);
	case PK_SHORT_BINSTRING:
		return read_counted(u, 1, PICKLE_STR);
	case PK_BINSTRING:
		return read_counted(u, 4, PICKLE_STR);
	case PK_SHORT_BINBYTES:
		return read_counted(u, 1, PICKLE_BYTES);
	case PK_BINBYTES:
		return read_counted(u, 4, PICKLE_BYTES);
	case PK_BINBYTES8:
		return read_counted(u, 8, PICKLE_BYTES);
	case PK_EMPTY_TUPLE:
		push(u, new_value(u, PICKLE_TUPLE));
		return 0;
	case PK_TUPLE1:
	case PK_TUPLE2:
	case PK_TUPLE3: {
		size_t n = (size_t)(u->op - PK_TUPLE1 + 1);
		if (u->sp - fence(u) < n)
			return perr(u, "stack underflow: %zu items needed", n);
		v = new_seq(u, PICKLE_TUPLE, u->stack + u->sp - n, n);
		u->sp -= n;
		push(u, v);
		return 0;
	}
	case PK_TUPLE:
		return collect(u, PICKLE_TUPLE);
	case PK_LIST:
		return collect(u, PICKLE_LIST);
	case PK_FROZENSET:
		return collect(u, PICKLE_SET);
	case PK_EMPTY_LIST:
		push(u, new_value(u, PICKLE_LIST));
		return 0;
	case PK_EMPTY_DICT:
		push(u, new_value(u, PICKLE_DICT));
		return 0;
	case PK_EMPTY_SET:
		push(u, new_value(u, PICKLE_SET));
		return 0;
	case PK_APPEND:
		if (!(x = pop(u)) || !(v = peek(u)))
			return -1;
		if (v->kind != PICKLE_LIST)
			return perr(u, "target must be a list, not %s",
				    pickle_kind_name(v->kind));
		return seq_add(u, v, x);
	case PK_APPENDS:
	case PK_ADDITEMS:
		if (!(v = mark_target(u, &start, u->op == PK_APPENDS
							 ? PICKLE_LIST
							 : PICKLE_SET)))
			return -1;
		for (size_t i = start; i < u->sp; i++)
			if (seq_add(u, v, u->stack[i]))
				return -1;
		u->sp = start;
		return 0;
	case PK_DICT: {
		if (pop_mark(u, &start))
			return -1;
		if ((u->sp - start) % 2)
			return perr(u, "odd number of items for a dict");
		v = new_value(u, PICKLE_DICT);
		for (size_t i = start; i < u->sp; i += 2)
			if (dict_add(u, v, u->stack[i], u->stack[i + 1]))
				return -1;
		u->sp = start;
		push(u, v);
		return 0;
	}
	case PK_SETITEM:
		if (!(x = pop(u)) || !(w = pop(u)) || !(v = peek(u)))
			return -1;
		if (v->kind != PICKLE_DICT)
			return perr(u, "target must be a dict, not %s",
				    pickle_kind_name(v->kind));
		return dict_add(u, v, w, x);
	case PK_SETITEMS:
		if (!(v = mark_target(u, &start, PICKLE_DICT)))
			return -1;
		if ((u->sp - start) % 2)
			return perr(u, "odd number of items for a dict");
		for (size_t i = start; i < u->sp; i += 2)
			if (dict_add(u, v, u->stack[i], u->stack[i + 1]))
				return -1;
		u->sp = start;
		return 0;
	case PK_BINPUT:
		if (need(u, 1))
			return -1;
		return memo_put(u, *u->p++);
	case PK_LONG_BINPUT:
		if (need(u, 4))
			return -1;
		u->p += 4;
		return memo_put(u, le(u->p - 4, 4));
	case PK_MEMOIZE:
		return memo_put(u, u->nmemo);
	case PK_BINGET:
		if (need(u, 1))
			return -1;
		return memo_get(u, *u->p++);
	case PK_LONG_BINGET:
		if (need(u, 4))
			return -1;
		u->p += 4;
		return memo_get(u, le(u->p - 4, 4));
	case PK_GLOBAL:
		if (read_line(u, &s1, &l1) || read_line(u, &s2, &l2))
			return -1;
		return make_global(u, s1, l1, s2, l2);
	case PK_STACK_GLOBAL:
		if (!(w = pop(u)) || !(v = pop(u)))
			return -1;
		if (v->kind != PICKLE_STR || w->kind != PICKLE_STR)
			return perr(u, "module and name must be strings");
		return make_global(u, v->u.s.data, v->u.s.len, w->u.s.data,
				   w->u.s.len);
	case PK_REDUCE:
		if (!(x = pop(u)) || !(v = pop(u)))
			return -1;
		if (v->kind != PICKLE_GLOBAL)
			return perr(u, "cannot call a %s",
				    pickle_kind_name(v->kind));
		return apply(u, v->u.global, x, 0);
	case PK_NEWOBJ:
	case PK_NEWOBJ_EX: {
		if (u->op == PK_NEWOBJ_EX) {
			if (!(w = pop(u)))
				return -1;
			if (w->kind != PICKLE_DICT || w->u.dict.n)
				return perr(u, "keyword arguments are not "
					    "supported");
		}
		if (!(x = pop(u)) || !(v = pop(u)))
			return -1;
		char gb[QUOTE_MAX];
		if (v->kind != PICKLE_GLOBAL ||
		    v->u.global->kind != PICKLE_G_CLASS)
			return perr(u, "'%s' cannot be instantiated (only "
				    "TorchScript classes can)",
				    v->kind == PICKLE_GLOBAL
					    ? gname(v->u.global, gb, sizeof gb)
					    : pickle_kind_name(v->kind));
		if (x->kind != PICKLE_TUPLE || x->u.seq.n)
			return perr(u, "'%s' instantiated with arguments",
				    gname(v->u.global, gb, sizeof gb));
		struct pickle_object *o = arena_alloc(u->a, sizeof *o);
		const struct pickle_global *g = v->u.global;
		size_t n = strlen(g->module) + strlen(g->name) + 2;
		char *cn = arena_alloc(u->a, n);
		snprintf(cn, n, "%s.%s", g->module, g->name);
		o->class_name = cn;
		w = new_value(u, PICKLE_OBJECT);
		w->u.object = o;
		push(u, w);
		return 0;
	}
	case PK_BUILD:
		if (!(x = pop(u)) || !(v = peek(u)))
			return -1;
		if (v->kind != PICKLE_OBJECT)
			return perr(u, "cannot set the state of a %s",
				    pickle_kind_name(v->kind));
		if (v->u.object->state)
			return perr(u, "object of class '%.200s' built twice",
				    v->u.object->class_name);
		v->u.object->state = x;
		return 0;
	case PK_BINPERSID:
		if (!(v = pop(u)))
			return -1;
		return persistent_load(u, v);
	default:
		return perr(u, "unsupported opcode 0x%02x", u->op);
	}
}

/* --- the acyclic, bounded-depth check ------------------------------------ */

struct walk {
	struct unpickler *u;
	unsigned char *color;  /* 0 new, 1 on the path, 2 done */
	uint16_t *height;      /* done: levels at and below */
};

static int walk(struct walk *w, const struct pickle_value *v, int depth)
{
	if (depth > PICKLE_MAX_DEPTH)
		return perr(w->u, "values nested deeper than %d levels",
			    PICKLE_MAX_DEPTH);
	if (w->color[v->id] == 2) {
		if (depth + w->height[v->id] > PICKLE_MAX_DEPTH + 1)
			return perr(w->u, "values nested deeper than %d levels",
				    PICKLE_MAX_DEPTH);
		return 0;
	}
	if (w->color[v->id] == 1)
		return perr(w->u, "the result contains a cycle (a container "
			    "inside itself)");
	w->color[v->id] = 1;
	uint16_t h = 0;
	const struct pickle_value *kids[2];
	uint32_t n = 0;
	switch (v->kind) {
	case PICKLE_TUPLE:
	case PICKLE_LIST:
	case PICKLE_SET:
		n = v->u.seq.n;
		break;
	case PICKLE_DICT:
		n = v->u.dict.n;
		break;
	case PICKLE_OBJECT:
		n = v->u.object->state ? 1 : 0;
		break;
	default:
		break;
	}
	for (uint32_t i = 0; i < n; i++) {
		int nk = 1;
		if (v->kind == PICKLE_DICT) {
			kids[0] = v->u.dict.keys[i];
			kids[1] = v->u.dict.vals[i];
			nk = 2;
		} else if (v->kind == PICKLE_OBJECT) {
			kids[0] = v->u.object->state;
		} else {
			kids[0] = v->u.seq.items[i];
		}
		for (int k = 0; k < nk; k++) {
			if (walk(w, kids[k], depth + 1))
				return -1;
			if (w->height[kids[k]->id] > h)
				h = w->height[kids[k]->id];
		}
	}
	w->height[v->id] = (uint16_t)(h + 1);
	w->color[v->id] = 2;
	return 0;
}

/* --- entry point --------------------------------------------------------- */

int pickle_load(struct pickle_doc *doc, struct arena *a, const void *buf,
		size_t len, const char *name, struct diag *d)
{
	struct unpickler u;
	int stop = 0, rc = 0;
	static const unsigned char empty[1];

	memset(doc, 0, sizeof *doc);
	memset(&u, 0, sizeof u);
	u.a = a;
	u.d = d;
	u.name = name;
	u.doc = doc;
	u.start = u.p = buf ? buf : empty;
	u.end = u.p + (buf ? len : 0);
	u.scap = 64; /* never NULL: stack + start must be defined */
	u.stack = xmalloc(u.scap * sizeof *u.stack);
	while (!stop && !rc)
		rc = step(&u, &stop);
	if (!rc) {
		struct walk w = { &u, xcalloc(doc->nvalues + 1, 1),
				  xcalloc(doc->nvalues + 1, sizeof(uint16_t)) };
		u.op = PK_STOP;
		rc = walk(&w, doc->root, 1);
		free(w.color);
		free(w.height);
	}
	if (!rc) {
		doc->nstorages = (uint32_t)u.nstorages;
		doc->storages = arena_alloc(a, (u.nstorages + 1) * sizeof(void *));
		if (u.nstorages)
			memcpy(doc->storages, u.storages,
			       u.nstorages * sizeof(void *));
		doc->ntensors = (uint32_t)u.ntensors;
		doc->tensors = arena_alloc(a, (u.ntensors + 1) * sizeof(void *));
		if (u.ntensors)
			memcpy(doc->tensors, u.tensors,
			       u.ntensors * sizeof(void *));
	} else {
		doc->root = NULL;
	}
	free(u.stack);
	free(u.marks);
	free(u.memo);
	free(u.storages);
	free(u.tensors);
	return rc;
}

/* --- access and printing ------------------------------------------------- */

const char *pickle_kind_name(enum pickle_kind kind)
{
	static const char *const names[PICKLE_KIND_COUNT] = {
		"none", "bool", "int", "float", "complex", "str", "bytes",
		"tuple", "list", "set", "dict", "global", "object", "tensor",
		"storage", "device",
	};
	return (unsigned)kind < PICKLE_KIND_COUNT ? names[kind] : "?";
}

int pickle_str_eq(const struct pickle_value *v, const char *s)
{
	return v && v->kind == PICKLE_STR && strlen(s) == v->u.s.len &&
	       !memcmp(v->u.s.data, s, v->u.s.len);
}

struct pickle_value *pickle_dict_get(const struct pickle_value *v,
				     const char *key)
{
	if (!v || v->kind != PICKLE_DICT)
		return NULL;
	for (uint32_t i = v->u.dict.n; i-- > 0;)
		if (pickle_str_eq(v->u.dict.keys[i], key))
			return v->u.dict.vals[i];
	return NULL;
}

struct pickle_value *pickle_attr(const struct pickle_value *obj,
				 const char *name)
{
	if (!obj || obj->kind != PICKLE_OBJECT)
		return NULL;
	return pickle_dict_get(obj->u.object->state, name);
}

static void print_str(FILE *fp, const struct pickle_value *v)
{
	char q[80];
	size_t n = v->u.s.len > 60 ? 60 : v->u.s.len;
	fprintf(fp, "%s'%s%s'", v->kind == PICKLE_BYTES ? "b" : "",
		quote_bytes(q, sizeof q, v->u.s.data, n),
		n < v->u.s.len ? "..." : "");
}

void pickle_print(FILE *fp, const struct pickle_value *v, int max_depth)
{
	if (!v) {
		fputs("NULL", fp);
		return;
	}
	if (max_depth < 0) {
		fputs("...", fp);
		return;
	}
	switch (v->kind) {
	case PICKLE_NONE:
		fputs("None", fp);
		break;
	case PICKLE_BOOL:
		fputs(v->u.b ? "True" : "False", fp);
		break;
	case PICKLE_INT:
		fprintf(fp, "%" PRId64, v->u.i);
		break;
	case PICKLE_FLOAT:
		fprintf(fp, "%.17g", v->u.f);
		break;
	case PICKLE_COMPLEX:
		fprintf(fp, "complex(%.17g, %.17g)", v->u.c.re, v->u.c.im);
		break;
	case PICKLE_STR:
	case PICKLE_BYTES:
		print_str(fp, v);
		break;
	case PICKLE_TUPLE:
	case PICKLE_LIST:
	case PICKLE_SET:
		fputs(v->kind == PICKLE_TUPLE ? "(" : v->kind == PICKLE_LIST
							     ? "[" : "{", fp);
		for (uint32_t i = 0; i < v->u.seq.n; i++) {
			if (i)
				fputs(", ", fp);
			pickle_print(fp, v->u.seq.items[i], max_depth - 1);
		}
		if (v->kind == PICKLE_TUPLE && v->u.seq.n == 1)
			fputs(",", fp);
		fputs(v->kind == PICKLE_TUPLE ? ")" : v->kind == PICKLE_LIST
							     ? "]" : "}", fp);
		break;
	case PICKLE_DICT:
		fputs("{", fp);
		for (uint32_t i = 0; i < v->u.dict.n; i++) {
			if (i)
				fputs(", ", fp);
			pickle_print(fp, v->u.dict.keys[i], max_depth - 1);
			fputs(": ", fp);
			pickle_print(fp, v->u.dict.vals[i], max_depth - 1);
		}
		fputs("}", fp);
		break;
	case PICKLE_GLOBAL:
		fprintf(fp, "%s.%s", v->u.global->module, v->u.global->name);
		break;
	case PICKLE_OBJECT:
		fprintf(fp, "%s%s", v->u.object->class_name,
			v->u.object->is_enum ? "[enum](" : "(");
		pickle_print(fp, v->u.object->state, max_depth - 1);
		fputs(")", fp);
		break;
	case PICKLE_TENSOR: {
		const struct pickle_tensor *t = v->u.tensor;
		fprintf(fp, "%s%s[", t->storage->type_name,
			t->qscheme ? "(quantized)" : "");
		for (int i = 0; i < t->rank; i++)
			fprintf(fp, "%s%" PRId64, i ? ", " : "", t->sizes[i]);
		fputs("] stride (", fp);
		for (int i = 0; i < t->rank; i++)
			fprintf(fp, "%s%" PRId64, i ? ", " : "", t->strides[i]);
		fprintf(fp, ") storage '%s'+%" PRId64, t->storage->key,
			t->offset);
		break;
	}
	case PICKLE_STORAGE:
		fprintf(fp, "storage('%s', %sStorage, %" PRIu64 ")",
			v->u.storage->key, v->u.storage->type_name,
			v->u.storage->numel);
		break;
	case PICKLE_DEVICE:
		fprintf(fp, "device('%s')", v->u.s.data);
		break;
	default:
		fputs("?", fp);
	}
}

/*
 * fold_eval.c - the CPU evaluator behind constant folding: one function
 * per foldable ONNX op, listed in one table (fold_ops[] below), as
 * torch's onnx constant_fold.cpp runs them through the torch backend.
 *
 * Inputs arrive inline and contiguous (fold.c reads referenced weights);
 * results are allocated in the graph's arena.  Data-movement ops
 * (Transpose, Reshape, Squeeze, Unsqueeze, Flatten, Identity, Concat,
 * Slice, Gather, Expand) copy elements as bytes and so handle every dtype
 * but strings exactly.  Arithmetic computes in double for floating dtypes
 * (float16/bfloat16 converted; one IEEE op in double then rounded to float
 * gives float's own result) and in int64 with wrap-around for integers;
 * integer Div truncates toward zero, as ONNX Runtime does.
 *
 * An op returns FOLD_EVAL_SKIP whenever it cannot be sure of the result:
 * malformed attributes, dtypes it does not handle, division by zero,
 * indices out of range, casts out of range, results over max_bytes.  The
 * node then stays for the runtime.  Costs: O(numel x rank) per op.
 */
#include "fold.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAXR 64 /* the IR's rank limit */

/* --- elements -------------------------------------------------------- */

int fold_dtype_is_float(enum ir_dtype dt)
{
	return dt == IR_DTYPE_FLOAT || dt == IR_DTYPE_DOUBLE ||
	       dt == IR_DTYPE_FLOAT16 || dt == IR_DTYPE_BFLOAT16;
}

static int dtype_is_int(enum ir_dtype dt)
{
	switch (dt) {
	case IR_DTYPE_UINT8: case IR_DTYPE_INT8: case IR_DTYPE_UINT16:
	case IR_DTYPE_INT16: case IR_DTYPE_INT32: case IR_DTYPE_INT64:
	case IR_DTYPE_UINT32: case IR_DTYPE_UINT64: case IR_DTYPE_BOOL:
		return 1;
	default:
		return 0;
	}
}

static int dtype_is_num(enum ir_dtype dt)
{
	return fold_dtype_is_float(dt) || dtype_is_int(dt);
}

static double half_to_double(uint16_t h)
{
	int e = (h >> 10) & 0x1f, m = h & 0x3ff;
	double v;
	if (e == 0)
		v = ldexp(m, -24);
	else if (e == 31)
		v = m ? NAN : INFINITY;
	else
		v = ldexp(m | 0x400, e - 25);
	return (h & 0x8000) ? -v : v;
}

/* round to nearest even, via float (exact for half's range) */
static uint16_t double_to_half(double d)
{
	float f = (float)d;
	uint32_t x;
	memcpy(&x, &f, 4);
	uint16_t sign = (uint16_t)((x >> 16) & 0x8000);
	uint32_t ax = x & 0x7fffffffu;
	if (ax >= 0x7f800000u)
		return sign | (ax > 0x7f800000u ? 0x7e00 : 0x7c00);
	if (ax >= 0x477ff000u) /* rounds to >= 65520: infinity */
		return sign | 0x7c00;
	if (ax < 0x38800000u) { /* subnormal half or zero */
		float a;
		memcpy(&a, &ax, 4);
		return sign | (uint16_t)lrintf(a * 16777216.0f);
	}
	uint32_t r = ax - 0x38000000u; /* rebias exponent 127 -> 15 */
	r += 0x0fff + ((r >> 13) & 1);
	return sign | (uint16_t)(r >> 13);
}

static double bf16_to_double(uint16_t h)
{
	uint32_t x = (uint32_t)h << 16;
	float f;
	memcpy(&f, &x, 4);
	return f;
}

static uint16_t double_to_bf16(double d)
{
	float f = (float)d;
	uint32_t x;
	memcpy(&x, &f, 4);
	if ((x & 0x7fffffffu) > 0x7f800000u)
		return (uint16_t)((x >> 16) | 0x40);
	x += 0x7fff + ((x >> 16) & 1);
	return (uint16_t)(x >> 16);
}

#define AT(t, T, i) (((T *)(void *)(t)->bytes.data)[i])

int64_t fold_get_i(const struct ir_tensor *t, uint64_t i)
{
	switch (t->dtype) {
	case IR_DTYPE_BOOL: return AT(t, uint8_t, i) != 0;
	case IR_DTYPE_UINT8: return AT(t, uint8_t, i);
	case IR_DTYPE_INT8: return AT(t, int8_t, i);
	case IR_DTYPE_UINT16: return AT(t, uint16_t, i);
	case IR_DTYPE_INT16: return AT(t, int16_t, i);
	case IR_DTYPE_INT32: return AT(t, int32_t, i);
	case IR_DTYPE_INT64: return AT(t, int64_t, i);
	case IR_DTYPE_UINT32: return AT(t, uint32_t, i);
	case IR_DTYPE_UINT64: return (int64_t)AT(t, uint64_t, i);
	default: return (int64_t)fold_get_f(t, i);
	}
}

double fold_get_f(const struct ir_tensor *t, uint64_t i)
{
	switch (t->dtype) {
	case IR_DTYPE_FLOAT: return AT(t, float, i);
	case IR_DTYPE_DOUBLE: return AT(t, double, i);
	case IR_DTYPE_FLOAT16: return half_to_double(AT(t, uint16_t, i));
	case IR_DTYPE_BFLOAT16: return bf16_to_double(AT(t, uint16_t, i));
	case IR_DTYPE_UINT64: return (double)AT(t, uint64_t, i);
	default: return (double)fold_get_i(t, i);
	}
}

void fold_set_i(struct ir_tensor *t, uint64_t i, int64_t v)
{
	uint64_t u = (uint64_t)v;
	switch (t->dtype) {
	case IR_DTYPE_BOOL: AT(t, uint8_t, i) = v != 0; break;
	case IR_DTYPE_UINT8: case IR_DTYPE_INT8:
		AT(t, uint8_t, i) = (uint8_t)u; break;
	case IR_DTYPE_UINT16: case IR_DTYPE_INT16:
		AT(t, uint16_t, i) = (uint16_t)u; break;
	case IR_DTYPE_INT32: case IR_DTYPE_UINT32:
		AT(t, uint32_t, i) = (uint32_t)u; break;
	case IR_DTYPE_INT64: case IR_DTYPE_UINT64:
		AT(t, uint64_t, i) = u; break;
	default: fold_set_f(t, i, (double)v); break;
	}
}

void fold_set_f(struct ir_tensor *t, uint64_t i, double v)
{
	switch (t->dtype) {
	case IR_DTYPE_FLOAT: AT(t, float, i) = (float)v; break;
	case IR_DTYPE_DOUBLE: AT(t, double, i) = v; break;
	case IR_DTYPE_FLOAT16: AT(t, uint16_t, i) = double_to_half(v); break;
	case IR_DTYPE_BFLOAT16: AT(t, uint16_t, i) = double_to_bf16(v); break;
	case IR_DTYPE_BOOL: AT(t, uint8_t, i) = v != 0; break;
	default: fold_set_i(t, i, (int64_t)v); break; /* callers range-check */
	}
}

struct ir_tensor *fold_tensor_alloc(struct ir_graph *g, enum ir_dtype dt,
				    int rank, const int64_t *dims,
				    uint64_t max_bytes)
{
	uint64_t n = 1;
	size_t es = ir_dtype_size(dt);
	if (!es || rank < 0 || rank > MAXR)
		return NULL;
	for (int i = 0; i < rank; i++) {
		if (dims[i] < 0)
			return NULL;
		if (dims[i] && n > UINT64_MAX / (uint64_t)dims[i] / es)
			return NULL;
		n *= (uint64_t)dims[i];
	}
	if (max_bytes && n * es > max_bytes)
		return NULL;
	struct ir_tensor *t = ir_tensor_new(g, dt, rank, dims);
	t->data_kind = IR_DATA_INLINE;
	t->bytes.len = (size_t)(n * es);
	t->bytes.data = n ? ir_alloc(g, t->bytes.len) : "";
	return t;
}

/* --- helpers for ops ---------------------------------------------------- */

#define SKIP FOLD_EVAL_SKIP

static struct ir_tensor *new_out(struct fold_eval *e, enum ir_dtype dt,
				 int rank, const int64_t *dims)
{
	return fold_tensor_alloc(e->g, dt, rank, dims, e->max_bytes);
}

static struct ir_tensor *in(struct fold_eval *e, uint32_t i)
{
	return i < e->n->ninputs ? e->in[i] : NULL;
}

static int64_t attr_i(const struct fold_eval *e, const char *name, int64_t def)
{
	const struct ir_attr *a = ir_node_find_attr(e->n, name);
	return a && a->kind == IR_ATTR_INT ? a->u.i : def;
}

/* An int list: from attribute `name` when the opset is below
 * `input_since` (or input_since is 0), else from input `idx`.  Returns the
 * count, -1 when absent, -2 when malformed. */
static int ints_arg(struct fold_eval *e, const char *name, int64_t input_since,
		    uint32_t idx, int64_t *out, int max)
{
	if (!input_since || e->opset < input_since) {
		const struct ir_attr *a = ir_node_find_attr(e->n, name);
		if (!a)
			return -1;
		if (a->kind != IR_ATTR_INTS || a->count > (uint32_t)max)
			return -2;
		if (a->count)
			memcpy(out, a->u.ints, sizeof(*out) * a->count);
		return (int)a->count;
	}
	struct ir_tensor *t = in(e, idx);
	if (!t)
		return -1;
	if ((t->dtype != IR_DTYPE_INT64 && t->dtype != IR_DTYPE_INT32) ||
	    t->rank > 1)
		return -2;
	uint64_t n = ir_tensor_numel(t);
	if (n > (uint64_t)max)
		return -2;
	for (uint64_t i = 0; i < n; i++)
		out[i] = fold_get_i(t, i);
	return (int)n;
}

static uint64_t numel_of(int rank, const int64_t *dims)
{
	uint64_t n = 1;
	for (int i = 0; i < rank; i++)
		n *= (uint64_t)dims[i];
	return n;
}

/* normalises axis a for rank r; -1 when out of range */
static int norm_axis(int64_t a, int r)
{
	if (a < 0)
		a += r;
	return a < 0 || a >= r ? -1 : (int)a;
}

/* memcpy of n dims; src may be NULL when n is 0 (a scalar's dims) */
static void copy_dims(int64_t *dst, const int64_t *src, int n)
{
	if (n > 0)
		memcpy(dst, src, sizeof(*dst) * (size_t)n);
}

/* contiguous strides, in elements */
static void strides_of(int rank, const int64_t *dims, int64_t *st)
{
	int64_t s = 1;
	for (int i = rank - 1; i >= 0; i--) {
		st[i] = s;
		s *= dims[i];
	}
}

/* same data, new shape (Reshape, Squeeze, Unsqueeze, Flatten, Identity) */
static int reshaped(struct fold_eval *e, const struct ir_tensor *x, int rank,
		    const int64_t *dims)
{
	uint64_t n = 1;
	for (int i = 0; i < rank; i++)
		if (dims[i] < 0 ||
		    __builtin_mul_overflow(n, (uint64_t)dims[i], &n))
			return SKIP;
	if (n != ir_tensor_numel(x) || !ir_dtype_size(x->dtype))
		return SKIP;
	struct ir_tensor *t = ir_tensor_new(e->g, x->dtype, rank, dims);
	t->data_kind = IR_DATA_INLINE;
	t->bytes = x->bytes;
	e->out[0] = t;
	return 0;
}

/* --- data movement ------------------------------------------------------ */

static int op_identity(struct fold_eval *e)
{
	struct ir_tensor *x = in(e, 0);
	return x ? reshaped(e, x, x->rank, x->dims) : SKIP;
}

static int op_reshape(struct fold_eval *e)
{
	struct ir_tensor *x = in(e, 0);
	int64_t shape[MAXR], known = 1;
	int n = ints_arg(e, "shape", 5, 1, shape, MAXR), neg = -1;
	int allowzero = (int)attr_i(e, "allowzero", 0);
	if (!x || n < 0)
		return SKIP;
	for (int i = 0; i < n; i++) {
		if (shape[i] == 0 && !allowzero) {
			if (i >= x->rank)
				return SKIP;
			shape[i] = x->dims[i];
		}
		if (shape[i] == -1) {
			if (neg >= 0)
				return SKIP;
			neg = i;
		} else if (shape[i] < 0) {
			return SKIP;
		} else if (__builtin_mul_overflow(known, shape[i], &known)) {
			return SKIP;
		}
	}
	if (neg >= 0) {
		uint64_t total = ir_tensor_numel(x);
		if (!known || total % (uint64_t)known)
			return SKIP;
		shape[neg] = (int64_t)(total / (uint64_t)known);
	}
	return reshaped(e, x, n, shape);
}

static int op_flatten(struct fold_eval *e)
{
	struct ir_tensor *x = in(e, 0);
	if (!x)
		return SKIP;
	int64_t a = attr_i(e, "axis", 1), dims[2] = { 1, 1 };
	if (a < 0)
		a += x->rank;
	if (a < 0 || a > x->rank)
		return SKIP;
	for (int i = 0; i < x->rank; i++)
		dims[i < a ? 0 : 1] *= x->dims[i];
	return reshaped(e, x, 2, dims);
}

static int op_squeeze(struct fold_eval *e)
{
	struct ir_tensor *x = in(e, 0);
	int64_t axes[MAXR], dims[MAXR];
	char drop[MAXR] = { 0 };
	int n, r = 0;
	if (!x)
		return SKIP;
	n = ints_arg(e, "axes", 13, 1, axes, MAXR);
	if (n == -2)
		return SKIP;
	for (int i = 0; i < n; i++) {
		int a = norm_axis(axes[i], x->rank);
		if (a < 0 || x->dims[a] != 1)
			return SKIP;
		drop[a] = 1;
	}
	for (int i = 0; i < x->rank; i++)
		if (!(n < 0 ? x->dims[i] == 1 : drop[i]))
			dims[r++] = x->dims[i];
	return reshaped(e, x, r, dims);
}

static int op_unsqueeze(struct fold_eval *e)
{
	struct ir_tensor *x = in(e, 0);
	int64_t axes[MAXR], dims[MAXR];
	char add[MAXR] = { 0 };
	int n, r, j = 0;
	if (!x)
		return SKIP;
	n = ints_arg(e, "axes", 13, 1, axes, MAXR);
	if (n < 0 || x->rank + n > MAXR)
		return SKIP;
	r = x->rank + n;
	for (int i = 0; i < n; i++) {
		int a = norm_axis(axes[i], r);
		if (a < 0 || add[a])
			return SKIP;
		add[a] = 1;
	}
	for (int i = 0; i < r; i++)
		dims[i] = add[i] ? 1 : x->dims[j++];
	return reshaped(e, x, r, dims);
}

/* Copies elements: output element i comes from x element src(i). */
static void gather_bytes(struct ir_tensor *out, const struct ir_tensor *x,
			 uint64_t i, uint64_t from)
{
	size_t es = ir_dtype_size(x->dtype);
	memcpy((char *)out->bytes.data + i * es, x->bytes.data + from * es, es);
}

static int op_transpose(struct fold_eval *e)
{
	struct ir_tensor *x = in(e, 0);
	int64_t perm[MAXR], dims[MAXR], st[MAXR];
	char seen[MAXR] = { 0 };
	if (!x || !ir_dtype_size(x->dtype))
		return SKIP;
	int r = x->rank, n = ints_arg(e, "perm", 0, 0, perm, MAXR);
	if (n == -2 || (n >= 0 && n != r))
		return SKIP;
	for (int i = 0; i < r; i++) {
		if (n < 0)
			perm[i] = r - 1 - i;
		if (perm[i] < 0 || perm[i] >= r || seen[perm[i]])
			return SKIP;
		seen[perm[i]] = 1;
		dims[i] = x->dims[perm[i]];
	}
	struct ir_tensor *t = new_out(e, x->dtype, r, dims);
	if (!t)
		return SKIP;
	strides_of(r, x->dims, st);
	uint64_t total = ir_tensor_numel(t);
	for (uint64_t i = 0; i < total; i++) {
		uint64_t rem = i, from = 0;
		for (int k = r - 1; k >= 0; k--) {
			from += rem % (uint64_t)dims[k] * (uint64_t)st[perm[k]];
			rem /= (uint64_t)dims[k];
		}
		gather_bytes(t, x, i, from);
	}
	e->out[0] = t;
	return 0;
}

static int op_concat(struct fold_eval *e)
{
	uint32_t nin = e->n->ninputs;
	struct ir_tensor *x0 = in(e, 0);
	int64_t dims[MAXR];
	if (!x0 || !ir_dtype_size(x0->dtype))
		return SKIP;
	int r = x0->rank, a = norm_axis(attr_i(e, "axis", INT64_MIN), r);
	if (a < 0)
		return SKIP;
	copy_dims(dims, x0->dims, r);
	dims[a] = 0;
	for (uint32_t k = 0; k < nin; k++) {
		struct ir_tensor *x = in(e, k);
		if (!x || x->dtype != x0->dtype || x->rank != r)
			return SKIP;
		for (int i = 0; i < r; i++)
			if (i != a && x->dims[i] != x0->dims[i])
				return SKIP;
		dims[a] += x->dims[a];
	}
	struct ir_tensor *t = new_out(e, x0->dtype, r, dims);
	if (!t)
		return SKIP;
	/* outer = prod(dims[:a]); each input contributes dims[a]*inner */
	uint64_t outer = numel_of(a, dims), inner = numel_of(r - a - 1, dims + a + 1);
	size_t es = ir_dtype_size(x0->dtype);
	char *p = (char *)t->bytes.data;
	for (uint64_t o = 0; o < outer; o++) {
		for (uint32_t k = 0; k < nin; k++) {
			struct ir_tensor *x = e->in[k];
			size_t len = (size_t)((uint64_t)x->dims[a] * inner * es);
			memcpy(p, x->bytes.data + o * len, len);
			p += len;
		}
	}
	e->out[0] = t;
	return 0;
}

int fold_slice_plan(struct fold_eval *e, const struct ir_tensor *x,
		    int64_t *first, int64_t *step, int64_t *dims)
{
	int64_t starts[MAXR], ends[MAXR], axes[MAXR], steps[MAXR];
	int ns, ne, na, nt;
	if (!x || !ir_dtype_size(x->dtype) || x->rank > MAXR)
		return SKIP;
	int r = x->rank;
	ns = ints_arg(e, "starts", 10, 1, starts, MAXR);
	ne = ints_arg(e, "ends", 10, 2, ends, MAXR);
	na = ints_arg(e, "axes", 10, 3, axes, MAXR);
	nt = e->opset >= 10 ? ints_arg(e, "steps", 10, 4, steps, MAXR) : -1;
	if (ns < 0 || ne != ns || na == -2 || nt == -2 ||
	    (na >= 0 && na != ns) || (nt >= 0 && nt != ns))
		return SKIP;
	for (int i = 0; i < r; i++) {
		first[i] = 0;
		step[i] = 1;
		dims[i] = x->dims[i];
	}
	char done[MAXR] = { 0 };
	for (int k = 0; k < ns; k++) {
		int a = norm_axis(na >= 0 ? axes[k] : k, r);
		int64_t s = nt >= 0 ? steps[k] : 1, d, b, en;
		if (a < 0 || done[a] || s == 0)
			return SKIP;
		done[a] = 1;
		d = x->dims[a];
		b = starts[k];
		en = ends[k];
		if (s == INT64_MIN)
			return SKIP;
		if (b < 0)
			b += d;
		if (en < 0)
			en += d;
		if (s > 0) {
			b = b < 0 ? 0 : b > d ? d : b;
			en = en < 0 ? 0 : en > d ? d : en;
			dims[a] = en > b ? (en - b - 1) / s + 1 : 0;
		} else {
			b = b < 0 ? 0 : b > d - 1 ? d - 1 : b;
			en = en < -1 ? -1 : en > d - 1 ? d - 1 : en;
			dims[a] = b > en ? (b - en - 1) / -s + 1 : 0;
		}
		first[a] = b;
		step[a] = s;
	}
	return 0;
}

static int op_slice(struct fold_eval *e)
{
	struct ir_tensor *x = in(e, 0);
	int64_t first[MAXR], step[MAXR], dims[MAXR], st[MAXR];
	if (fold_slice_plan(e, x, first, step, dims))
		return SKIP;
	int r = x->rank;
	struct ir_tensor *t = new_out(e, x->dtype, r, dims);
	if (!t)
		return SKIP;
	strides_of(r, x->dims, st);
	uint64_t total = ir_tensor_numel(t);
	for (uint64_t i = 0; i < total; i++) {
		uint64_t rem = i;
		int64_t from = 0;
		for (int k = r - 1; k >= 0; k--) {
			int64_t c = (int64_t)(rem % (uint64_t)dims[k]);
			rem /= (uint64_t)dims[k];
			from += (first[k] + c * step[k]) * st[k];
		}
		gather_bytes(t, x, i, (uint64_t)from);
	}
	e->out[0] = t;
	return 0;
}

static int op_gather(struct fold_eval *e)
{
	struct ir_tensor *x = in(e, 0), *idx = in(e, 1);
	int64_t dims[MAXR];
	if (!x || !idx || !ir_dtype_size(x->dtype) ||
	    (idx->dtype != IR_DTYPE_INT64 && idx->dtype != IR_DTYPE_INT32))
		return SKIP;
	int a = norm_axis(attr_i(e, "axis", 0), x->rank);
	int r = x->rank - 1 + idx->rank;
	if (a < 0 || r > MAXR)
		return SKIP;
	copy_dims(dims, x->dims, a);
	copy_dims(dims + a, idx->dims, idx->rank);
	copy_dims(dims + a + idx->rank, x->dims + a + 1, x->rank - a - 1);
	struct ir_tensor *t = new_out(e, x->dtype, r, dims);
	if (!t)
		return SKIP;
	uint64_t outer = numel_of(a, x->dims), ni = ir_tensor_numel(idx);
	uint64_t inner = numel_of(x->rank - a - 1, x->dims + a + 1);
	int64_t d = x->dims[a];
	size_t es = ir_dtype_size(x->dtype), row = (size_t)(inner * es);
	char *p = (char *)t->bytes.data;
	for (uint64_t o = 0; o < outer; o++) {
		for (uint64_t j = 0; j < ni; j++) {
			int64_t k = fold_get_i(idx, j);
			if (k < 0)
				k += d;
			if (k < 0 || k >= d)
				return SKIP;
			memcpy(p, x->bytes.data + ((o * (uint64_t)d + (uint64_t)k) * row),
			       row);
			p += row;
		}
	}
	e->out[0] = t;
	return 0;
}

/* --- broadcasting ------------------------------------------------------- */

struct bcast {
	int rank;
	int64_t dims[MAXR];
	int64_t st[3][MAXR]; /* per input, 0 on broadcast dims */
	int n;
};

/* numpy broadcasting of n shapes; -1 when incompatible */
static int bcast_init(struct bcast *b, int n, const int *ranks,
		      int64_t *const *dims)
{
	b->n = n;
	b->rank = 0;
	for (int k = 0; k < n; k++)
		b->rank = ranks[k] > b->rank ? ranks[k] : b->rank;
	for (int i = 0; i < b->rank; i++) {
		int64_t d = 1;
		for (int k = 0; k < n; k++) {
			int j = i - (b->rank - ranks[k]);
			int64_t dk = j >= 0 ? dims[k][j] : 1;
			if (dk != 1) {
				if (d != 1 && d != dk)
					return -1;
				d = dk;
			}
		}
		b->dims[i] = d;
	}
	for (int k = 0; k < n; k++) {
		int64_t s = 1;
		for (int i = b->rank - 1; i >= 0; i--) {
			int j = i - (b->rank - ranks[k]);
			int64_t dk = j >= 0 ? dims[k][j] : 1;
			b->st[k][i] = dk == 1 ? 0 : s;
			/* unsigned: an input with a zero dim may have others
			 * whose product overflows; its strides are never used */
			s = (int64_t)((uint64_t)s * (uint64_t)dk);
		}
	}
	return 0;
}

static uint64_t bcast_off(const struct bcast *b, int k, uint64_t i)
{
	uint64_t off = 0;
	for (int d = b->rank - 1; d >= 0; d--) {
		off += i % (uint64_t)b->dims[d] * (uint64_t)b->st[k][d];
		i /= (uint64_t)b->dims[d];
	}
	return off;
}

static int op_expand(struct fold_eval *e)
{
	struct ir_tensor *x = in(e, 0);
	int64_t shape[MAXR];
	int n = ints_arg(e, "shape", 8, 1, shape, MAXR);
	struct bcast b;
	if (!x || n < 0 || !ir_dtype_size(x->dtype))
		return SKIP;
	int ranks[2] = { x->rank, n };
	int64_t *dims[2] = { x->dims, shape };
	if (bcast_init(&b, 2, ranks, dims))
		return SKIP;
	struct ir_tensor *t = new_out(e, x->dtype, b.rank, b.dims);
	if (!t)
		return SKIP;
	uint64_t total = ir_tensor_numel(t);
	for (uint64_t i = 0; i < total; i++)
		gather_bytes(t, x, i, bcast_off(&b, 0, i));
	e->out[0] = t;
	return 0;
}

/* --- elementwise ---------------------------------------------------------- */

enum ew {
	EW_ADD, EW_SUB, EW_MUL, EW_DIV, EW_POW, EW_EQ, EW_LT, EW_GT, EW_LE,
	EW_GE, EW_AND, EW_OR, EW_XOR,
	EW_SQRT, EW_NEG, EW_ABS, EW_RECIP, EW_FLOOR, EW_CEIL, EW_NOT, EW_EXP,
	EW_LOG, EW_RELU,
};

/* A row of the table (below): kind's evaluator and flags; ew, the enum ew
 * of an elementwise kind (op_elementwise), -1 for the others. */
typedef int (*fold_fn)(struct fold_eval *e);

struct fold_op {
	const char *kind;
	fold_fn fn;
	unsigned flags;
	int ew;
};

/* The table's row of kind, NULL when none. */
static const struct fold_op *find_op(const char *kind);

/* float op; returns the result */
static double ew_f(enum ew op, double a, double b)
{
	switch (op) {
	case EW_ADD: return a + b;
	case EW_SUB: return a - b;
	case EW_MUL: return a * b;
	case EW_DIV: return a / b;
	case EW_POW: return pow(a, b);
	case EW_EQ: return a == b;
	case EW_LT: return a < b;
	case EW_GT: return a > b;
	case EW_LE: return a <= b;
	case EW_GE: return a >= b;
	case EW_SQRT: return sqrt(a);
	case EW_NEG: return -a;
	case EW_ABS: return fabs(a);
	case EW_RECIP: return 1.0 / a;
	case EW_FLOOR: return floor(a);
	case EW_CEIL: return ceil(a);
	case EW_EXP: return exp(a);
	case EW_LOG: return log(a);
	case EW_RELU: return a > 0 ? a : (a == a ? 0.0 * a : a);
	default: return NAN;
	}
}

/* integer op with wrap-around; returns 0, or -1 when undefined */
static int ew_i(enum ew op, int64_t a, int64_t b, int64_t *r)
{
	uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
	switch (op) {
	case EW_ADD: *r = (int64_t)(ua + ub); return 0;
	case EW_SUB: *r = (int64_t)(ua - ub); return 0;
	case EW_MUL: *r = (int64_t)(ua * ub); return 0;
	case EW_DIV:
		if (b == 0 || (a == INT64_MIN && b == -1))
			return -1;
		*r = a / b;
		return 0;
	case EW_EQ: *r = a == b; return 0;
	case EW_LT: *r = a < b; return 0;
	case EW_GT: *r = a > b; return 0;
	case EW_LE: *r = a <= b; return 0;
	case EW_GE: *r = a >= b; return 0;
	case EW_AND: *r = a && b; return 0;
	case EW_OR: *r = a || b; return 0;
	case EW_XOR: *r = !a != !b; return 0;
	case EW_NEG: *r = (int64_t)(0 - ua); return 0;
	case EW_ABS: *r = a < 0 ? (int64_t)(0 - ua) : a; return 0;
	case EW_NOT: *r = !a; return 0;
	case EW_RELU: *r = a > 0 ? a : 0; return 0;
	default: return -1;
	}
}

static int ew_is_compare(enum ew op)
{
	return op >= EW_EQ && op <= EW_GE;
}

static int op_elementwise(struct fold_eval *e)
{
	const struct fold_op *row = find_op(e->n->kind);
	if (!row || row->ew < 0)
		return SKIP;
	enum ew op = (enum ew)row->ew;
	int unary = op >= EW_SQRT;
	struct ir_tensor *a = in(e, 0), *b = unary ? a : in(e, 1);
	struct bcast bc;
	if (!a || !b || !dtype_is_num(a->dtype) || !dtype_is_num(b->dtype))
		return SKIP;
	if (!unary && op != EW_POW && a->dtype != b->dtype)
		return SKIP;
	if ((op == EW_AND || op == EW_OR || op == EW_XOR || op == EW_NOT) &&
	    a->dtype != IR_DTYPE_BOOL)
		return SKIP;
	int isf = fold_dtype_is_float(a->dtype);
	/* unsigned 64-bit compares and divides do not fit int64 */
	if (a->dtype == IR_DTYPE_UINT64 && op != EW_ADD && op != EW_SUB &&
	    op != EW_MUL && op != EW_EQ)
		return SKIP;
	if (op == EW_POW && (!isf || !fold_dtype_is_float(b->dtype)))
		return SKIP;
	if (!isf && (op == EW_SQRT || op == EW_RECIP || op == EW_EXP ||
		     op == EW_LOG))
		return SKIP;
	if (!isf && (op == EW_FLOOR || op == EW_CEIL))
		return SKIP;
	int ranks[2] = { a->rank, b->rank };
	int64_t *dims[2] = { a->dims, b->dims };
	if (bcast_init(&bc, 2, ranks, dims))
		return SKIP;
	enum ir_dtype odt = ew_is_compare(op) ? IR_DTYPE_BOOL : a->dtype;
	struct ir_tensor *t = new_out(e, odt, bc.rank, bc.dims);
	if (!t)
		return SKIP;
	uint64_t total = ir_tensor_numel(t);
	for (uint64_t i = 0; i < total; i++) {
		uint64_t ia = bcast_off(&bc, 0, i), ib = bcast_off(&bc, 1, i);
		if (isf) {
			double r = ew_f(op, fold_get_f(a, ia),
					unary ? 0 : fold_get_f(b, ib));
			fold_set_f(t, i, r);
		} else {
			int64_t r;
			if (ew_i(op, fold_get_i(a, ia),
				 unary ? 0 : fold_get_i(b, ib), &r))
				return SKIP;
			fold_set_i(t, i, r);
		}
	}
	e->out[0] = t;
	return 0;
}

static int op_where(struct fold_eval *e)
{
	struct ir_tensor *c = in(e, 0), *x = in(e, 1), *y = in(e, 2);
	struct bcast b;
	if (!c || !x || !y || c->dtype != IR_DTYPE_BOOL ||
	    x->dtype != y->dtype || !ir_dtype_size(x->dtype))
		return SKIP;
	int ranks[3] = { c->rank, x->rank, y->rank };
	int64_t *dims[3] = { c->dims, x->dims, y->dims };
	if (bcast_init(&b, 3, ranks, dims))
		return SKIP;
	struct ir_tensor *t = new_out(e, x->dtype, b.rank, b.dims);
	if (!t)
		return SKIP;
	uint64_t total = ir_tensor_numel(t);
	for (uint64_t i = 0; i < total; i++) {
		if (fold_get_i(c, bcast_off(&b, 0, i)))
			gather_bytes(t, x, i, bcast_off(&b, 1, i));
		else
			gather_bytes(t, y, i, bcast_off(&b, 2, i));
	}
	e->out[0] = t;
	return 0;
}

static int op_cast(struct fold_eval *e)
{
	struct ir_tensor *x = in(e, 0);
	int64_t to = attr_i(e, "to", -1);
	if (!x || !dtype_is_num(x->dtype) || to <= 0 || to >= IR_DTYPE_COUNT ||
	    !dtype_is_num((enum ir_dtype)to))
		return SKIP;
	enum ir_dtype odt = (enum ir_dtype)to;
	struct ir_tensor *t = new_out(e, odt, x->rank, x->dims);
	if (!t)
		return SKIP;
	uint64_t total = ir_tensor_numel(t);
	for (uint64_t i = 0; i < total; i++) {
		if (!fold_dtype_is_float(x->dtype)) {
			if (x->dtype == IR_DTYPE_UINT64 && fold_dtype_is_float(odt))
				fold_set_f(t, i, fold_get_f(x, i));
			else
				fold_set_i(t, i, fold_get_i(x, i));
		} else if (fold_dtype_is_float(odt) || odt == IR_DTYPE_BOOL) {
			fold_set_f(t, i, fold_get_f(x, i));
		} else {
			/* float -> integer: truncation, in range only */
			double v = trunc(fold_get_f(x, i));
			if (!(v >= -9223372036854775808.0 &&
			      v < 9223372036854775808.0))
				return SKIP;
			int64_t iv = (int64_t)v;
			fold_set_i(t, i, iv);
			if (odt != IR_DTYPE_UINT64 && fold_get_i(t, i) != iv)
				return SKIP; /* out of the target's range */
		}
	}
	e->out[0] = t;
	return 0;
}

/* --- shapes and generators ---------------------------------------------- */

static int static_shape(const struct ir_type *ty, int64_t *dims)
{
	if (!ty || ty->kind != IR_TYPE_TENSOR || ty->rank < 0)
		return -1;
	for (int i = 0; i < ty->rank; i++) {
		if (ty->dims[i].kind != IR_DIM_FIXED)
			return -1;
		dims[i] = ty->dims[i].value;
	}
	return ty->rank;
}

static int op_shape(struct fold_eval *e)
{
	int64_t dims[MAXR];
	int r = static_shape(e->in_types[0], dims);
	if (r < 0)
		return SKIP;
	int64_t s = attr_i(e, "start", 0), en = attr_i(e, "end", r);
	s = s < 0 ? s + r : s;
	en = en < 0 ? en + r : en;
	s = s < 0 ? 0 : s > r ? r : s;
	en = en < 0 ? 0 : en > r ? r : en;
	int64_t n = en > s ? en - s : 0;
	struct ir_tensor *t = new_out(e, IR_DTYPE_INT64, 1, &n);
	if (!t)
		return SKIP;
	for (int64_t i = 0; i < n; i++)
		fold_set_i(t, (uint64_t)i, dims[s + i]);
	e->out[0] = t;
	return 0;
}

static int op_size(struct fold_eval *e)
{
	int64_t dims[MAXR];
	int r = static_shape(e->in_types[0], dims);
	if (r < 0)
		return SKIP;
	struct ir_tensor *t = new_out(e, IR_DTYPE_INT64, 0, NULL);
	if (!t)
		return SKIP;
	fold_set_i(t, 0, (int64_t)numel_of(r, dims));
	e->out[0] = t;
	return 0;
}

static int op_constant_of_shape(struct fold_eval *e)
{
	int64_t shape[MAXR];
	int n = ints_arg(e, "shape", 9, 0, shape, MAXR);
	const struct ir_attr *v = ir_node_find_attr(e->n, "value");
	enum ir_dtype dt = IR_DTYPE_FLOAT;
	if (n < 0)
		return SKIP;
	if (v) {
		if (v->kind != IR_ATTR_TENSOR ||
		    v->u.t->data_kind != IR_DATA_INLINE ||
		    ir_tensor_numel(v->u.t) != 1 || !ir_dtype_size(v->u.t->dtype))
			return SKIP;
		dt = v->u.t->dtype;
	}
	struct ir_tensor *t = new_out(e, dt, n, shape);
	if (!t)
		return SKIP;
	uint64_t total = ir_tensor_numel(t);
	if (v)
		for (uint64_t i = 0; i < total; i++)
			gather_bytes(t, v->u.t, i, 0);
	e->out[0] = t;
	return 0;
}

static int op_range(struct fold_eval *e)
{
	struct ir_tensor *s = in(e, 0), *l = in(e, 1), *d = in(e, 2);
	if (!s || !l || !d || ir_tensor_numel(s) != 1 ||
	    ir_tensor_numel(l) != 1 || ir_tensor_numel(d) != 1 ||
	    s->dtype != l->dtype || s->dtype != d->dtype ||
	    !dtype_is_num(s->dtype) || s->dtype == IR_DTYPE_BOOL)
		return SKIP;
	double fs = fold_get_f(s, 0), fl = fold_get_f(l, 0), fd = fold_get_f(d, 0);
	if (fd == 0 || !isfinite(fs) || !isfinite(fl) || !isfinite(fd))
		return SKIP;
	double cnt = ceil((fl - fs) / fd);
	if (!(cnt <= 1e12))
		return SKIP;
	int64_t n = cnt > 0 ? (int64_t)cnt : 0;
	struct ir_tensor *t = new_out(e, s->dtype, 1, &n);
	if (!t)
		return SKIP;
	for (int64_t i = 0; i < n; i++) {
		if (fold_dtype_is_float(s->dtype))
			fold_set_f(t, (uint64_t)i, fs + (double)i * fd);
		else
			fold_set_i(t, (uint64_t)i, (int64_t)(
				   (uint64_t)fold_get_i(s, 0) + (uint64_t)i *
				   (uint64_t)fold_get_i(d, 0)));
	}
	e->out[0] = t;
	return 0;
}

/* --- reductions and MatMul ---------------------------------------------- */

enum red { RED_SUM, RED_PROD, RED_MEAN, RED_MAX, RED_MIN };

static int reduce(struct fold_eval *e, enum red op)
{
	struct ir_tensor *x = in(e, 0);
	int64_t axes[MAXR], dims[MAXR], odims[MAXR];
	char red[MAXR] = { 0 };
	if (!x || !dtype_is_num(x->dtype) || x->dtype == IR_DTYPE_BOOL ||
	    x->dtype == IR_DTYPE_UINT64)
		return SKIP;
	int isf = fold_dtype_is_float(x->dtype);
	if (op == RED_MEAN && !isf)
		return SKIP;
	int64_t since = op == RED_SUM ? 13 : 18;
	int n = ints_arg(e, "axes", since, 1, axes, MAXR);
	int keep = attr_i(e, "keepdims", 1) != 0, r = x->rank, orank = 0;
	if (n == -2)
		return SKIP;
	if (n <= 0) {
		if (n == 0 && attr_i(e, "noop_with_empty_axes", 0))
			return op_identity(e);
		for (int i = 0; i < r; i++)
			red[i] = 1;
	}
	for (int i = 0; i < n; i++) {
		int a = norm_axis(axes[i], r);
		if (a < 0)
			return SKIP;
		red[a] = 1;
	}
	for (int i = 0; i < r; i++) {
		dims[i] = red[i] ? 1 : x->dims[i];
		if (!red[i] || keep)
			odims[orank++] = dims[i];
		if (red[i] && x->dims[i] == 0 && (op == RED_MAX || op == RED_MIN))
			return SKIP;
	}
	struct ir_tensor *t = new_out(e, x->dtype, orank, odims);
	if (!t)
		return SKIP;
	uint64_t total = ir_tensor_numel(t), xn = ir_tensor_numel(x);
	double *acc = calloc(total ? total : 1, sizeof(*acc));
	int64_t *iacc = calloc(total ? total : 1, sizeof(*iacc));
	char *seen = calloc(total ? total : 1, 1);
	uint64_t cnt = total ? xn / total : 0;
	if (!acc || !iacc || !seen) {
		free(acc), free(iacc), free(seen);
		return SKIP;
	}
	for (uint64_t i = 0; i < total; i++) {
		acc[i] = op == RED_PROD ? 1 : 0;
		iacc[i] = op == RED_PROD ? 1 : 0;
	}
	for (uint64_t i = 0; i < xn; i++) {
		uint64_t rem = i, o = 0, m = 1;
		for (int k = r - 1; k >= 0; k--) {
			uint64_t c = rem % (uint64_t)x->dims[k];
			rem /= (uint64_t)x->dims[k];
			if (!red[k])
				o += c * m;
			m *= (uint64_t)dims[k];
		}
		double v = isf ? fold_get_f(x, i) : 0;
		int64_t iv = isf ? 0 : fold_get_i(x, i);
		switch (op) {
		case RED_SUM: case RED_MEAN:
			acc[o] += v;
			iacc[o] = (int64_t)((uint64_t)iacc[o] + (uint64_t)iv);
			break;
		case RED_PROD:
			acc[o] *= v;
			iacc[o] = (int64_t)((uint64_t)iacc[o] * (uint64_t)iv);
			break;
		case RED_MAX:
			if (!seen[o] || v > acc[o] || v != v) acc[o] = v;
			if (!seen[o] || iv > iacc[o]) iacc[o] = iv;
			break;
		case RED_MIN:
			if (!seen[o] || v < acc[o] || v != v) acc[o] = v;
			if (!seen[o] || iv < iacc[o]) iacc[o] = iv;
			break;
		}
		seen[o] = 1;
	}
	for (uint64_t i = 0; i < total; i++) {
		if (isf)
			fold_set_f(t, i, op == RED_MEAN ? acc[i] / (double)cnt
				   : acc[i]);
		else
			fold_set_i(t, i, iacc[i]);
	}
	free(acc), free(iacc), free(seen);
	e->out[0] = t;
	return 0;
}

static int op_reduce_sum(struct fold_eval *e) { return reduce(e, RED_SUM); }
static int op_reduce_prod(struct fold_eval *e) { return reduce(e, RED_PROD); }
static int op_reduce_mean(struct fold_eval *e) { return reduce(e, RED_MEAN); }
static int op_reduce_max(struct fold_eval *e) { return reduce(e, RED_MAX); }
static int op_reduce_min(struct fold_eval *e) { return reduce(e, RED_MIN); }

/* MatMul with numpy's rules: 1-D operands get a dim added and removed,
 * batch dims broadcast. */
static int op_matmul(struct fold_eval *e)
{
	struct ir_tensor *a = in(e, 0), *b = in(e, 1);
	struct bcast bc;
	int64_t dims[MAXR];
	if (!a || !b || a->dtype != b->dtype || !dtype_is_num(a->dtype) ||
	    a->dtype == IR_DTYPE_BOOL || a->rank < 1 || b->rank < 1)
		return SKIP;
	int ra = a->rank, rb = b->rank;
	int64_t m = ra >= 2 ? a->dims[ra - 2] : 1, k = a->dims[ra - 1];
	int64_t kb = rb >= 2 ? b->dims[rb - 2] : b->dims[0];
	int64_t n = rb >= 2 ? b->dims[rb - 1] : 1;
	if (k != kb)
		return SKIP;
	int ranks[2] = { ra >= 2 ? ra - 2 : 0, rb >= 2 ? rb - 2 : 0 };
	int64_t *bdims[2] = { a->dims, b->dims };
	if (bcast_init(&bc, 2, ranks, bdims))
		return SKIP;
	int r = bc.rank;
	copy_dims(dims, bc.dims, r);
	if (ra >= 2)
		dims[r++] = m;
	if (rb >= 2)
		dims[r++] = n;
	if (r > MAXR)
		return SKIP;
	struct ir_tensor *t = new_out(e, a->dtype, r, dims);
	if (!t)
		return SKIP;
	int isf = fold_dtype_is_float(a->dtype);
	uint64_t nb = numel_of(bc.rank, bc.dims), o = 0;
	/* a naive loop: leave products of more than 2^30 multiply-adds to
	 * the runtime */
	if ((double)ir_tensor_numel(t) * (double)k > (double)(1u << 30))
		return SKIP;
	for (uint64_t bi = 0; bi < nb; bi++) {
		uint64_t ao = bcast_off(&bc, 0, bi) * (uint64_t)(m * k);
		uint64_t bo = bcast_off(&bc, 1, bi) * (uint64_t)(k * n);
		for (int64_t i = 0; i < m; i++) {
			for (int64_t j = 0; j < n; j++, o++) {
				double sum = 0;
				uint64_t isum = 0;
				for (int64_t l = 0; l < k; l++) {
					uint64_t ia = ao + (uint64_t)(i * k + l);
					uint64_t ib = bo + (uint64_t)(l * n + j);
					if (isf)
						sum += fold_get_f(a, ia) *
						       fold_get_f(b, ib);
					else
						isum += (uint64_t)fold_get_i(a, ia) *
							(uint64_t)fold_get_i(b, ib);
				}
				if (isf)
					fold_set_f(t, o, sum);
				else
					fold_set_i(t, o, (int64_t)isum);
			}
		}
	}
	e->out[0] = t;
	return 0;
}

/* --- the table ---------------------------------------------------------- */

/* Sorted by kind (strcmp order; test_fold.c checks it): found by binary
 * search. */
static const struct fold_op fold_ops[] = {
	{ "onnx::Abs", op_elementwise, 0, EW_ABS },
	{ "onnx::Add", op_elementwise, 0, EW_ADD },
	{ "onnx::And", op_elementwise, 0, EW_AND },
	{ "onnx::Cast", op_cast, 0, -1 },
	{ "onnx::Ceil", op_elementwise, 0, EW_CEIL },
	{ "onnx::Concat", op_concat, 0, -1 },
	{ "onnx::ConstantOfShape", op_constant_of_shape, 0, -1 },
	{ "onnx::Div", op_elementwise, 0, EW_DIV },
	{ "onnx::Equal", op_elementwise, 0, EW_EQ },
	{ "onnx::Exp", op_elementwise, 0, EW_EXP },
	{ "onnx::Expand", op_expand, 0, -1 },
	{ "onnx::Flatten", op_flatten, 0, -1 },
	{ "onnx::Floor", op_elementwise, 0, EW_FLOOR },
	{ "onnx::Gather", op_gather, 0, -1 },
	{ "onnx::Greater", op_elementwise, 0, EW_GT },
	{ "onnx::GreaterOrEqual", op_elementwise, 0, EW_GE },
	{ "onnx::Identity", op_identity, 0, -1 },
	{ "onnx::Less", op_elementwise, 0, EW_LT },
	{ "onnx::LessOrEqual", op_elementwise, 0, EW_LE },
	{ "onnx::Log", op_elementwise, 0, EW_LOG },
	{ "onnx::MatMul", op_matmul, 0, -1 },
	{ "onnx::Mul", op_elementwise, 0, EW_MUL },
	{ "onnx::Neg", op_elementwise, 0, EW_NEG },
	{ "onnx::Not", op_elementwise, 0, EW_NOT },
	{ "onnx::Or", op_elementwise, 0, EW_OR },
	{ "onnx::Pow", op_elementwise, 0, EW_POW },
	{ "onnx::Range", op_range, 0, -1 },
	{ "onnx::Reciprocal", op_elementwise, 0, EW_RECIP },
	{ "onnx::ReduceMax", op_reduce_max, 0, -1 },
	{ "onnx::ReduceMean", op_reduce_mean, 0, -1 },
	{ "onnx::ReduceMin", op_reduce_min, 0, -1 },
	{ "onnx::ReduceProd", op_reduce_prod, 0, -1 },
	{ "onnx::ReduceSum", op_reduce_sum, 0, -1 },
	{ "onnx::Relu", op_elementwise, 0, EW_RELU },
	{ "onnx::Reshape", op_reshape, 0, -1 },
	{ "onnx::Shape", op_shape, FOLD_OP_SHAPE_ONLY, -1 },
	{ "onnx::Size", op_size, FOLD_OP_SHAPE_ONLY, -1 },
	{ "onnx::Slice", op_slice, 0, -1 },
	{ "onnx::Sqrt", op_elementwise, 0, EW_SQRT },
	{ "onnx::Squeeze", op_squeeze, 0, -1 },
	{ "onnx::Sub", op_elementwise, 0, EW_SUB },
	{ "onnx::Transpose", op_transpose, 0, -1 },
	{ "onnx::Unsqueeze", op_unsqueeze, 0, -1 },
	{ "onnx::Where", op_where, 0, -1 },
	{ "onnx::Xor", op_elementwise, 0, EW_XOR },
};

static int cmp_op(const void *key, const void *row)
{
	return strcmp((const char *)key, ((const struct fold_op *)row)->kind);
}

static const struct fold_op *find_op(const char *kind)
{
	return bsearch(kind, fold_ops, sizeof(fold_ops) / sizeof(fold_ops[0]),
		       sizeof(fold_ops[0]), cmp_op);
}

int (*fold_op_lookup(const char *kind, unsigned *flags))(struct fold_eval *e)
{
	const struct fold_op *r = find_op(kind);
	if (r && flags)
		*flags = r->flags;
	return r ? r->fn : NULL;
}

const char *fold_op_kind(size_t i)
{
	return i < sizeof(fold_ops) / sizeof(fold_ops[0]) ? fold_ops[i].kind
							   : NULL;
}

/* --- Constant nodes --------------------------------------------------- */

struct ir_tensor *fold_constant_value(struct ir_graph *g,
				      const struct ir_node *n)
{
	for (uint32_t i = 0; i < n->nattrs; i++) {
		const struct ir_attr *a = &n->attrs[i];
		int64_t one = (int64_t)a->count;
		struct ir_tensor *t;
		if (!strcmp(a->name, "value") && a->kind == IR_ATTR_TENSOR)
			return a->u.t;
		if (!strcmp(a->name, "value_int") && a->kind == IR_ATTR_INT) {
			t = fold_tensor_alloc(g, IR_DTYPE_INT64, 0, NULL, 0);
			fold_set_i(t, 0, a->u.i);
			return t;
		}
		if (!strcmp(a->name, "value_float") && a->kind == IR_ATTR_FLOAT) {
			t = fold_tensor_alloc(g, IR_DTYPE_FLOAT, 0, NULL, 0);
			fold_set_f(t, 0, a->u.f);
			return t;
		}
		if (!strcmp(a->name, "value_ints") && a->kind == IR_ATTR_INTS) {
			t = fold_tensor_alloc(g, IR_DTYPE_INT64, 1, &one, 0);
			for (uint32_t j = 0; j < a->count; j++)
				fold_set_i(t, j, a->u.ints[j]);
			return t;
		}
		if (!strcmp(a->name, "value_floats") &&
		    a->kind == IR_ATTR_FLOATS) {
			t = fold_tensor_alloc(g, IR_DTYPE_FLOAT, 1, &one, 0);
			for (uint32_t j = 0; j < a->count; j++)
				fold_set_f(t, j, a->u.floats[j]);
			return t;
		}
	}
	return NULL;
}

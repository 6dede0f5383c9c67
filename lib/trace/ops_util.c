/*
 * ops_util.c - helpers the aten op implementations share (trace_int.h):
 * torch's type promotion (torch.result_type), broadcasting, expansion as
 * a stride-0 view, casts, scalars as tensors, axis normalisation,
 * writing a result into an existing tensor (in-place ops), and the small
 * tensor helpers every op file uses (new tensors, views, host data).
 */
#include <stdlib.h>
#include <string.h>

#include "trace_int.h"

/* 0 bool, 1 integral, 2 floating, 3 complex */
static int dtype_category(enum ir_dtype dt)
{
	switch (dt) {
	case IR_DTYPE_BOOL:
		return 0;
	case IR_DTYPE_FLOAT:
	case IR_DTYPE_DOUBLE:
	case IR_DTYPE_FLOAT16:
	case IR_DTYPE_BFLOAT16:
		return 2;
	case IR_DTYPE_COMPLEX64:
	case IR_DTYPE_COMPLEX128:
		return 3;
	default:
		return 1;
	}
}

static int is_unsigned(enum ir_dtype dt)
{
	return dt == IR_DTYPE_UINT8 || dt == IR_DTYPE_UINT16 ||
	       dt == IR_DTYPE_UINT32 || dt == IR_DTYPE_UINT64;
}

/* torch's c10::promoteTypes for two defined dtypes */
static enum ir_dtype promote_types(enum ir_dtype a, enum ir_dtype b)
{
	int ca, cb;
	size_t sa, sb;

	if (a == IR_DTYPE_UNDEFINED)
		return b;
	if (b == IR_DTYPE_UNDEFINED || a == b)
		return a;
	ca = dtype_category(a);
	cb = dtype_category(b);
	if (ca != cb)
		return ca > cb ? (ca == 3 && cb == 2 &&
				  b == IR_DTYPE_DOUBLE ?
				  IR_DTYPE_COMPLEX128 : a) :
		       (cb == 3 && ca == 2 && a == IR_DTYPE_DOUBLE ?
			IR_DTYPE_COMPLEX128 : b);
	sa = ir_dtype_size(a);
	sb = ir_dtype_size(b);
	if (ca == 2) {
		/* half with bfloat16 -> float */
		if (sa == sb)
			return IR_DTYPE_FLOAT;
		return sa > sb ? a : b;
	}
	if (ca == 3)
		return sa > sb ? a : b;
	/* integral */
	if (is_unsigned(a) != is_unsigned(b)) {
		enum ir_dtype u = is_unsigned(a) ? a : b;
		enum ir_dtype s = is_unsigned(a) ? b : a;
		size_t su = ir_dtype_size(u), ss = ir_dtype_size(s);

		if (ss > su)
			return s;
		/* uint8 with int8 -> int16; wider unsigned: next signed */
		switch (su) {
		case 1:
			return IR_DTYPE_INT16;
		case 2:
			return IR_DTYPE_INT32;
		default:
			return IR_DTYPE_INT64;
		}
	}
	return sa > sb ? a : b;
}

/* c10's combine_categories */
static enum ir_dtype combine_categories(enum ir_dtype higher,
					enum ir_dtype lower)
{
	if (higher != IR_DTYPE_UNDEFINED && dtype_category(higher) == 3)
		return higher;
	if (higher != IR_DTYPE_UNDEFINED && dtype_category(higher) == 2 &&
	    (lower == IR_DTYPE_UNDEFINED || dtype_category(lower) != 3))
		return higher;
	if (higher == IR_DTYPE_BOOL ||
	    (lower != IR_DTYPE_UNDEFINED && dtype_category(lower) >= 2))
		return promote_types(higher, lower);
	if (higher != IR_DTYPE_UNDEFINED)
		return higher;
	return lower;
}

enum ir_dtype trace_promote(const struct tval *a, const struct tval *b)
{
	enum ir_dtype dim = IR_DTYPE_UNDEFINED, zero = IR_DTYPE_UNDEFINED,
		      wrapped = IR_DTYPE_UNDEFINED;
	const struct tval *v[2] = { a, b };
	int i;

	for (i = 0; i < 2; i++) {
		if (!v[i])
			continue;
		switch (v[i]->kind) {
		case TV_TENSOR:
			if (v[i]->u.t->rank > 0)
				dim = promote_types(dim, v[i]->u.t->dtype);
			else
				zero = promote_types(zero, v[i]->u.t->dtype);
			break;
		case TV_INT:
			wrapped = promote_types(wrapped, IR_DTYPE_INT64);
			break;
		case TV_FLOAT:
			/* the default dtype */
			wrapped = promote_types(wrapped, IR_DTYPE_FLOAT);
			break;
		case TV_BOOL:
			wrapped = promote_types(wrapped, IR_DTYPE_BOOL);
			break;
		default:
			break;
		}
	}
	return combine_categories(dim, combine_categories(zero, wrapped));
}

int trace_broadcast_dims(struct trace_ctx *c, const struct gpu_tensor *a,
			 const struct gpu_tensor *b, int *rank,
			 int64_t *dims)
{
	int r = a->rank > b->rank ? a->rank : b->rank;
	int i;

	for (i = 0; i < r; i++) {
		int ia = i - (r - a->rank), ib = i - (r - b->rank);
		int64_t da = ia >= 0 ? a->dims[ia] : 1;
		int64_t db = ib >= 0 ? b->dims[ib] : 1;

		if (da == db || db == 1)
			dims[i] = da;
		else if (da == 1)
			dims[i] = db;
		else
			return trace_error(c, "the size of tensor a (%lld) "
					   "must match the size of tensor b "
					   "(%lld) at non-singleton dimension "
					   "%d", (long long)da, (long long)db,
					   i);
	}
	*rank = r;
	return 0;
}

struct gpu_tensor *trace_expand(const struct gpu_tensor *t, int rank,
				const int64_t *dims)
{
	int64_t strides[GPU_MAX_DIMS];
	int i;

	if (rank > GPU_MAX_DIMS || rank < t->rank) {
		gpu_set_error("cannot expand a tensor of rank %d to rank %d",
			      t->rank, rank);
		return NULL;
	}
	for (i = 0; i < rank; i++) {
		int it = i - (rank - t->rank);

		if (it < 0) {
			strides[i] = 0;
		} else if (t->dims[it] == dims[i]) {
			strides[i] = t->dims[it] == 1 ? 0 : t->strides[it];
		} else if (t->dims[it] == 1) {
			strides[i] = 0;
		} else {
			gpu_set_error("cannot expand dim %d of size %lld to "
				      "%lld", it, (long long)t->dims[it],
				      (long long)dims[i]);
			return NULL;
		}
	}
	return gpu_view(t, rank, dims, strides, t->offset);
}

struct gpu_tensor *trace_cast(struct trace_ctx *c, struct gpu_tensor *t,
			      enum ir_dtype dt)
{
	const struct gpu_backend *be = t->storage->be;
	struct gpu_tensor *y;

	if (t->dtype == dt || dt == IR_DTYPE_UNDEFINED) {
		y = gpu_view(t, t->rank, t->dims, t->strides, t->offset);
		if (!y)
			trace_gpu_error(c);
		return y;
	}
	y = gpu_empty(be, dt, t->rank, t->dims);
	if (!y) {
		trace_gpu_error(c);
		return NULL;
	}
	if (be->copy(t, y)) {
		gpu_free(y);
		trace_gpu_error(c);
		return NULL;
	}
	return y;
}

/* v converted to dt's representation in buf (integral dtypes only) */
static int int_bytes(int64_t v, enum ir_dtype dt, void *buf)
{
	switch (dt) {
	case IR_DTYPE_INT64: { int64_t x = v; memcpy(buf, &x, 8); return 0; }
	case IR_DTYPE_UINT64: { uint64_t x = (uint64_t)v; memcpy(buf, &x, 8); return 0; }
	case IR_DTYPE_INT32: { int32_t x = (int32_t)v; memcpy(buf, &x, 4); return 0; }
	case IR_DTYPE_UINT32: { uint32_t x = (uint32_t)v; memcpy(buf, &x, 4); return 0; }
	case IR_DTYPE_INT16: { int16_t x = (int16_t)v; memcpy(buf, &x, 2); return 0; }
	case IR_DTYPE_UINT16: { uint16_t x = (uint16_t)v; memcpy(buf, &x, 2); return 0; }
	case IR_DTYPE_INT8: { int8_t x = (int8_t)v; memcpy(buf, &x, 1); return 0; }
	case IR_DTYPE_UINT8: { uint8_t x = (uint8_t)v; memcpy(buf, &x, 1); return 0; }
	case IR_DTYPE_BOOL: { uint8_t x = v != 0; memcpy(buf, &x, 1); return 0; }
	default:
		return -1;
	}
}

struct gpu_tensor *trace_as_tensor(struct trace_ctx *c, const struct tval *v,
				   enum ir_dtype dt)
{
	struct gpu_tensor *y;
	unsigned char buf[8];
	double f;

	if (v && v->kind == TV_TENSOR)
		return trace_cast(c, v->u.t, dt);
	if (!v || (v->kind != TV_INT && v->kind != TV_BOOL &&
		   v->kind != TV_FLOAT)) {
		trace_error(c, "expected a Tensor or a number");
		return NULL;
	}
	if (dt == IR_DTYPE_UNDEFINED)
		dt = v->kind == TV_FLOAT ? IR_DTYPE_DOUBLE :
		     v->kind == TV_BOOL ? IR_DTYPE_BOOL : IR_DTYPE_INT64;
	y = gpu_empty(c->be, dt, 0, NULL);
	if (!y) {
		trace_gpu_error(c);
		return NULL;
	}
	if (v->kind != TV_FLOAT && int_bytes(v->u.i, dt, buf) == 0) {
		/* exact for 64-bit ints, which a double fill is not */
		if (c->be->upload((char *)y->storage->data +
				  y->offset * ir_dtype_size(dt), buf,
				  ir_dtype_size(dt)))
			goto fail;
		return y;
	}
	f = v->kind == TV_FLOAT ? v->u.f : (double)v->u.i;
	if (c->be->fill(y, f))
		goto fail;
	return y;
fail:
	gpu_free(y);
	trace_gpu_error(c);
	return NULL;
}

int trace_axis(struct trace_ctx *c, int64_t axis, int rank, int *out)
{
	int r = rank > 0 ? rank : 1;

	if (axis < -r || axis >= r)
		return trace_error(c, "dimension out of range (expected to be "
				   "in range of [%d, %d], but got %lld)", -r,
				   r - 1, (long long)axis);
	*out = (int)(axis < 0 ? axis + r : axis);
	return 0;
}

int trace_write_into(struct trace_ctx *c, struct gpu_tensor *dst,
		     const struct gpu_tensor *src)
{
	const struct gpu_backend *be = dst->storage->be;
	struct gpu_tensor *s;
	size_t es = ir_dtype_size(dst->dtype);
	int64_t numel = gpu_numel(dst), i, idx[GPU_MAX_DIMS] = { 0 };
	unsigned char *host = NULL, *vals = NULL;
	int k, rc = -1;

	if (dst->storage->borrowed) {
		/* a mapped archive weight: give its storage (and so every
		 * view of it) a private copy before writing */
		struct gpu_storage *st = dst->storage;
		void *p = be->alloc(st->bytes ? st->bytes : 1);

		if (!p)
			return trace_error(c, "out of memory");
		if (st->bytes && be->upload(p, st->data, st->bytes)) {
			be->release(p);
			return trace_gpu_error(c);
		}
		st->data = p;
		st->borrowed = 0;
	}
	s = trace_expand(src, dst->rank, dst->dims);
	if (!s)
		return trace_error(c, "output with shape of rank %d cannot "
				   "take a result of rank %d in place (%s)",
				   dst->rank, src->rank, gpu_last_error());
	/* the CPU copy writes strided outputs; other backends contiguous */
	if (be->id == GPU_BACKEND_CPU || gpu_is_contiguous(dst)) {
		rc = be->copy(s, dst);
		gpu_free(s);
		return rc ? trace_gpu_error(c) : 0;
	}
	/* a strided view: through host memory, element by element */
	host = malloc(dst->storage->bytes ? dst->storage->bytes : 1);
	vals = malloc(numel > 0 ? numel * es : 1);
	if (!host || !vals) {
		trace_error(c, "out of memory");
		goto out;
	}
	if (gpu_to_host(s, dst->dtype, vals) ||
	    be->download(host, dst->storage->data, dst->storage->bytes)) {
		trace_gpu_error(c);
		goto out;
	}
	for (i = 0; i < numel; i++) {
		int64_t off = dst->offset;

		for (k = 0; k < dst->rank; k++)
			off += idx[k] * dst->strides[k];
		memcpy(host + off * es, vals + i * es, es);
		for (k = dst->rank - 1; k >= 0; k--) {
			if (++idx[k] < dst->dims[k])
				break;
			idx[k] = 0;
		}
	}
	if (be->upload(dst->storage->data, host, dst->storage->bytes)) {
		trace_gpu_error(c);
		goto out;
	}
	rc = 0;
out:
	free(host);
	free(vals);
	gpu_free(s);
	return rc;
}

/* --- tensors for op implementations -------------------------------------- */

struct gpu_tensor *trace_empty(struct trace_ctx *c, enum ir_dtype dt,
			       int rank, const int64_t *dims)
{
	struct gpu_tensor *y;

	if (rank > GPU_MAX_DIMS) {
		trace_error(c, "tensors of rank %d are not supported (at most "
			    "%d)", rank, GPU_MAX_DIMS);
		return NULL;
	}
	y = gpu_empty(c->be, dt, rank, dims);
	if (!y)
		trace_gpu_error(c);
	return y;
}

struct gpu_tensor *trace_view(struct trace_ctx *c, const struct gpu_tensor *t,
			      int rank, const int64_t *dims,
			      const int64_t *strides, int64_t offset)
{
	struct gpu_tensor *y;

	if (rank > GPU_MAX_DIMS) {
		trace_error(c, "tensors of rank %d are not supported (at most "
			    "%d)", rank, GPU_MAX_DIMS);
		return NULL;
	}
	y = gpu_view(t, rank, dims, strides, offset);
	if (!y)
		trace_gpu_error(c);
	return y;
}

struct gpu_tensor *trace_alias(struct trace_ctx *c, const struct gpu_tensor *t)
{
	return trace_view(c, t, t->rank, t->dims, t->strides, t->offset);
}

int trace_out(struct trace_ctx *c, struct tval **out, struct gpu_tensor *t)
{
	if (!t)
		return -1;
	*out = tv_tensor(t);
	if (!*out)
		return trace_error(c, "out of memory");
	return 0;
}

void *trace_to_host(struct trace_ctx *c, const struct gpu_tensor *t,
		    enum ir_dtype as)
{
	size_t n = (size_t)gpu_numel(t);
	size_t sz = ir_dtype_size(as == IR_DTYPE_UNDEFINED ? t->dtype : as);
	void *p = malloc(n * sz > 0 ? n * sz : 1);

	if (!p) {
		trace_error(c, "out of memory");
		return NULL;
	}
	if (n && gpu_to_host(t, as, p)) {
		free(p);
		trace_gpu_error(c);
		return NULL;
	}
	return p;
}

struct gpu_tensor *trace_from_host(struct trace_ctx *c, enum ir_dtype dt,
				   int rank, const int64_t *dims,
				   enum ir_dtype host_dt, const void *data)
{
	struct gpu_tensor *h = trace_empty(c, host_dt, rank, dims), *y;
	size_t bytes;

	if (!h)
		return NULL;
	bytes = (size_t)gpu_numel(h) * ir_dtype_size(host_dt);
	if (bytes && c->be->upload(h->storage->data, data, bytes)) {
		gpu_free(h);
		trace_gpu_error(c);
		return NULL;
	}
	if (dt == host_dt || dt == IR_DTYPE_UNDEFINED)
		return h;
	y = trace_cast(c, h, dt);
	gpu_free(h);
	return y;
}

int trace_inplace(const struct ir_node *n)
{
	return (aten_op_flags(n->op) & ATEN_OP_INPLACE) != 0;
}

int trace_op_dims(enum aten_op op)
{
	const char *name = aten_op_name(op);
	size_t i = strlen(name);

	while (i >= 2) {
		i--;
		if (name[i] == 'd' && name[i - 1] >= '1' && name[i - 1] <= '3' &&
		    (name[i + 1] == 0 || name[i + 1] == '_'))
			return name[i - 1] - '0';
	}
	return 0;
}

/*
 * values.c - the interpreter's run-time values (struct tval): constructors,
 * reference counting and the argument readers op implementations use
 * (trace_int.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace_int.h"

static struct tval *tv_new(enum tv_kind kind)
{
	struct tval *v = calloc(1, sizeof(*v));

	if (!v)
		return NULL;
	v->kind = kind;
	v->refs = 1;
	return v;
}

struct tval *tv_none(void)
{
	return tv_new(TV_NONE);
}

struct tval *tv_int(int64_t i)
{
	struct tval *v = tv_new(TV_INT);

	if (v)
		v->u.i = i;
	return v;
}

struct tval *tv_float(double f)
{
	struct tval *v = tv_new(TV_FLOAT);

	if (v)
		v->u.f = f;
	return v;
}

struct tval *tv_bool(int b)
{
	struct tval *v = tv_new(TV_BOOL);

	if (v)
		v->u.i = !!b;
	return v;
}

struct tval *tv_str(const char *s)
{
	struct tval *v = tv_new(TV_STR);

	if (!v)
		return NULL;
	v->u.s = strdup(s ? s : "");
	if (!v->u.s) {
		free(v);
		return NULL;
	}
	return v;
}

struct tval *tv_device(const char *s)
{
	struct tval *v = tv_str(s);

	if (v)
		v->kind = TV_DEVICE;
	return v;
}

struct tval *tv_tensor(struct gpu_tensor *t)
{
	struct tval *v;

	if (!t)
		return NULL;
	v = tv_new(TV_TENSOR);
	if (!v) {
		gpu_free(t);
		return NULL;
	}
	v->u.t = t;
	return v;
}

struct tval *tv_list(enum tv_kind kind)
{
	return tv_new(kind == TV_TUPLE || kind == TV_DICT ? kind : TV_LIST);
}

int tv_list_push(struct tval *l, struct tval *item)
{
	if (!item)
		return -1;
	if (l->u.list.n == l->u.list.cap) {
		int cap = l->u.list.cap ? 2 * l->u.list.cap : 4;
		struct tval **items = realloc(l->u.list.items,
					      sizeof(*items) * cap);

		if (!items) {
			tv_unref(item);
			return -1;
		}
		l->u.list.items = items;
		l->u.list.cap = cap;
	}
	l->u.list.items[l->u.list.n++] = item;
	return 0;
}

struct tval *tv_ref(struct tval *v)
{
	if (v)
		v->refs++;
	return v;
}

void tv_unref(struct tval *v)
{
	int i;

	if (!v || --v->refs > 0)
		return;
	switch (v->kind) {
	case TV_TENSOR:
		gpu_free(v->u.t);
		break;
	case TV_STR:
	case TV_DEVICE:
		free((char *)v->u.s);
		break;
	case TV_LIST:
	case TV_TUPLE:
	case TV_DICT:
		for (i = 0; i < v->u.list.n; i++)
			tv_unref(v->u.list.items[i]);
		free(v->u.list.items);
		break;
	default:
		break;
	}
	free(v);
}

static const char *tv_kind_name(const struct tval *v)
{
	static const char *const names[] = {
		"None", "Tensor", "int", "float", "bool", "str", "Device",
		"dtype", "list", "tuple", "dict",
	};

	if (!v)
		return "nothing";
	return names[v->kind];
}

int tv_get_int(struct trace_ctx *c, const struct tval *v, int64_t *out)
{
	if (v && (v->kind == TV_INT || v->kind == TV_BOOL ||
		  v->kind == TV_DTYPE)) {
		*out = v->u.i;
		return 0;
	}
	if (v && v->kind == TV_TENSOR && gpu_numel(v->u.t) == 1 &&
	    v->u.t->dtype != IR_DTYPE_FLOAT && v->u.t->dtype !=
	    IR_DTYPE_DOUBLE && v->u.t->dtype != IR_DTYPE_FLOAT16 &&
	    v->u.t->dtype != IR_DTYPE_BFLOAT16) {
		*out = gpu_item_int(v->u.t, 0);
		return 0;
	}
	return trace_error(c, "expected an int, got %s", tv_kind_name(v));
}

int tv_get_float(struct trace_ctx *c, const struct tval *v, double *out)
{
	if (v && (v->kind == TV_INT || v->kind == TV_BOOL)) {
		*out = (double)v->u.i;
		return 0;
	}
	if (v && v->kind == TV_FLOAT) {
		*out = v->u.f;
		return 0;
	}
	if (v && v->kind == TV_TENSOR && gpu_numel(v->u.t) == 1) {
		*out = gpu_item_double(v->u.t, 0);
		return 0;
	}
	return trace_error(c, "expected a number, got %s", tv_kind_name(v));
}

int tv_get_bool(struct trace_ctx *c, const struct tval *v, int *out)
{
	int64_t i;

	if (v && v->kind == TV_FLOAT) {
		*out = v->u.f != 0;
		return 0;
	}
	if (tv_get_int(c, v, &i))
		return -1;
	*out = i != 0;
	return 0;
}

int tv_get_ints(struct trace_ctx *c, const struct tval *v, int64_t *out,
		int max, int *n)
{
	int i;

	if (v && (v->kind == TV_INT || v->kind == TV_BOOL)) {
		int k = max > 0 ? max : 1;

		for (i = 0; i < k; i++)
			out[i] = v->u.i;
		*n = k;
		return 0;
	}
	if (!v || (v->kind != TV_LIST && v->kind != TV_TUPLE))
		return trace_error(c, "expected a list of ints, got %s",
				   tv_kind_name(v));
	if (v->u.list.n > max)
		return trace_error(c, "list of %d ints, at most %d expected",
				   v->u.list.n, max);
	for (i = 0; i < v->u.list.n; i++)
		if (tv_get_int(c, v->u.list.items[i], &out[i]))
			return -1;
	*n = v->u.list.n;
	return 0;
}

/* torch's c10::ScalarType order */
static const enum ir_dtype torch_scalar_types[] = {
	IR_DTYPE_UINT8,   /* 0 Byte */
	IR_DTYPE_INT8,    /* 1 Char */
	IR_DTYPE_INT16,   /* 2 Short */
	IR_DTYPE_INT32,   /* 3 Int */
	IR_DTYPE_INT64,   /* 4 Long */
	IR_DTYPE_FLOAT16, /* 5 Half */
	IR_DTYPE_FLOAT,   /* 6 Float */
	IR_DTYPE_DOUBLE,  /* 7 Double */
	IR_DTYPE_UNDEFINED, /* 8 ComplexHalf */
	IR_DTYPE_COMPLEX64, /* 9 ComplexFloat */
	IR_DTYPE_COMPLEX128, /* 10 ComplexDouble */
	IR_DTYPE_BOOL,    /* 11 Bool */
	IR_DTYPE_UNDEFINED, /* 12 QInt8 */
	IR_DTYPE_UNDEFINED, /* 13 QUInt8 */
	IR_DTYPE_UNDEFINED, /* 14 QInt32 */
	IR_DTYPE_BFLOAT16, /* 15 BFloat16 */
};

enum ir_dtype tv_dtype_from_torch(int64_t scalar_type)
{
	if (scalar_type < 0 || scalar_type >= (int64_t)(sizeof(
	    torch_scalar_types) / sizeof(torch_scalar_types[0])))
		return IR_DTYPE_UNDEFINED;
	return torch_scalar_types[scalar_type];
}

int64_t tv_dtype_to_torch(enum ir_dtype dt)
{
	size_t i;

	if (dt == IR_DTYPE_UNDEFINED)
		return -1;
	for (i = 0; i < sizeof(torch_scalar_types) /
	     sizeof(torch_scalar_types[0]); i++)
		if (torch_scalar_types[i] == dt)
			return (int64_t)i;
	return -1;
}

int tv_get_dtype(struct trace_ctx *c, const struct tval *v,
		 enum ir_dtype dflt, enum ir_dtype *out)
{
	enum ir_dtype dt;

	if (!v || v->kind == TV_NONE) {
		*out = dflt;
		return 0;
	}
	if (v->kind == TV_DTYPE) {
		*out = (enum ir_dtype)v->u.i;
		return 0;
	}
	if (v->kind != TV_INT)
		return trace_error(c, "expected a dtype, got %s",
				   tv_kind_name(v));
	dt = tv_dtype_from_torch(v->u.i);
	if (dt == IR_DTYPE_UNDEFINED)
		return trace_error(c, "dtype %lld is not supported",
				   (long long)v->u.i);
	*out = dt;
	return 0;
}

int tv_get_tensor(struct trace_ctx *c, const struct tval *v, int optional,
		  struct gpu_tensor **out)
{
	if (v && v->kind == TV_TENSOR) {
		*out = v->u.t;
		return 0;
	}
	if (optional && (!v || v->kind == TV_NONE)) {
		*out = NULL;
		return 0;
	}
	return trace_error(c, "expected a Tensor, got %s", tv_kind_name(v));
}

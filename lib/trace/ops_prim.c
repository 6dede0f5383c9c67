/*
 * ops_prim.c - trace's ops on Python values (trace_ops_prim): prim::
 * constants, lists and tuples built and unpacked, indexing, aten::size,
 * dim, len, append, pop, int()/float()/bool() of tensors and numbers,
 * `is`, `in`, str and format, device and dtype queries.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "intmath.h"
#include "ops_py.h"
#include "rlimits.h"

OPFN(op_constant)
{
	if (nout != 1)
		return trace_error(c, "expected one output");
	out[0] = trace_constant(c, n);
	return out[0] ? 0 : (trace_code(c) ? -1 : trace_oom(c));
}

static int make_seq(struct trace_ctx *c, enum tv_kind kind, struct tval **in,
		    int nin, struct tval **out)
{
	struct tval *l = tv_list(kind);
	int i;

	if (!l)
		return trace_oom(c);
	for (i = 0; i < nin; i++)
		if (tv_list_push(l, tv_ref(in[i]))) {
			tv_unref(l);
			return trace_oom(c);
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
		return out[0] ? 0 : trace_oom(c);
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
	return out[0] ? 0 : trace_oom(c);
}

OPFN(op_raise)
{
	const char *msg = nin > 0 && in[0]->kind == TV_STR ? in[0]->u.s :
			  "an exception";

	trace_error(c, "the model raised: %s", msg);
	trace_set_code(c, EXIT_BAD_INPUT);
	return -1;
}

OPFN(op_device)
{
	if (in[0]->kind == TV_TENSOR)
		out[0] = tv_device(c->be->id == GPU_BACKEND_CUDA ? "cuda" :
				   "cpu");
	else if (in[0]->kind == TV_STR || in[0]->kind == TV_DEVICE)
		out[0] = tv_device(in[0]->u.s);
	else
		return trace_error(c, "expected a tensor or a string");
	return out[0] ? 0 : trace_oom(c);
}

OPFN(op_dtype)
{
	struct gpu_tensor *t;

	if (tv_get_tensor(c, in[0], 0, &t))
		return -1;
	out[0] = tv_int(tv_dtype_to_torch(t->dtype));
	return out[0] ? 0 : trace_oom(c);
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
		return *out ? 0 : trace_oom(c);
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
	return *out ? 0 : trace_oom(c);
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
		return out[0] ? 0 : trace_oom(c);
	}
	out[0] = tv_list(TV_LIST);
	if (!out[0])
		return trace_oom(c);
	for (i = 0; i < t->rank; i++)
		if (tv_list_push(out[0], tv_int(t->dims[i])))
			return trace_oom(c);
	return 0;
}

OPFN(op_dim)
{
	struct gpu_tensor *t;

	if (tv_get_tensor(c, in[0], 0, &t))
		return -1;
	out[0] = tv_int(t->rank);
	return out[0] ? 0 : trace_oom(c);
}

OPFN(op_numel)
{
	struct gpu_tensor *t;

	if (tv_get_tensor(c, in[0], 0, &t))
		return -1;
	out[0] = tv_int(gpu_numel(t));
	return out[0] ? 0 : trace_oom(c);
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
	return out[0] ? 0 : trace_oom(c);
}

/* Lists are values shared by reference, as in Python: mutations change
 * the tval in place. */
OPFN(op_append)
{
	if (in[0]->kind != TV_LIST)
		return trace_error(c, "append to a non-list");
	if (tv_list_push(in[0], tv_ref(in[1])))
		return trace_oom(c);
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
		return trace_oom(c);
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
			return trace_oom(c);
	if (nout)
		out[0] = tv_none();
	return 0;
}

/* kind(t) recorded, its result a traced number */
static int number_op(struct trace_ctx *c, enum aten_op kind,
		     struct tval *v, int want, struct tval **out)
{
	enum ir_dtype dt = v->u.t->dtype;
	int flt = want == TV_FLOAT || (want == 0 && (dt == IR_DTYPE_FLOAT ||
		  dt == IR_DTYPE_DOUBLE || dt == IR_DTYPE_FLOAT16 ||
		  dt == IR_DTYPE_BFLOAT16));

	*out = flt ? tv_float(gpu_item_double(v->u.t, 0)) :
	       tv_int(gpu_item_int(v->u.t, 0));
	if (!*out)
		return trace_oom(c);
	(*out)->rec = trace_record_scalar(c, kind, v->rec, flt ?
					  IR_TYPE_FLOAT : IR_TYPE_INT);
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
	if (p->op == OP_prim_NumToTensor ||
	    p->op == OP_aten_size)
		return 1;
	if (p->op == OP_prim_Constant)
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
static int to_number(struct trace_ctx *c, enum aten_op kind,
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
		if ((want == TV_INT || want == 0) && p &&
		    p->op == OP_prim_NumToTensor &&
		    p->inputs[0]->type->kind == IR_TYPE_INT) {
			*out = tv_int(gpu_item_int(v->u.t, 0));
			if (!*out)
				return trace_oom(c);
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
		trace_warn_once(c, aten_op_name(kind), "converting a tensor "
			  "to a Python number: its value is baked into "
			  "the trace");
		if (want == 0) {
			enum ir_dtype dt = v->u.t->dtype;

			want = dt == IR_DTYPE_FLOAT || dt == IR_DTYPE_DOUBLE ||
			       dt == IR_DTYPE_FLOAT16 ||
			       dt == IR_DTYPE_BFLOAT16 ? TV_FLOAT :
			       dt == IR_DTYPE_BOOL ? TV_BOOL : TV_INT;
		}
		if (want == TV_INT) {
			*out = tv_int(gpu_item_int(v->u.t, 0));
			return *out ? 0 : trace_oom(c);
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
			return *out ? 0 : trace_oom(c);
		}
		x = py_num(v);
	} else {
		return trace_error(c, "expected a number or a tensor");
	}
	if (want == TV_INT)
		*out = tv_int((int64_t)x);
	else if (want == TV_BOOL)
		*out = tv_bool(x != 0);
	else
		*out = tv_float(x);
	return *out ? 0 : trace_oom(c);
}

OPFN(op_Int)
{
	return to_number(c, n->op, in[0], TV_INT, &out[0]);
}

OPFN(op_Float)
{
	return to_number(c, n->op, in[0], TV_FLOAT, &out[0]);
}

OPFN(op_Bool)
{
	return to_number(c, n->op, in[0], TV_BOOL, &out[0]);
}

OPFN(op_item)
{
	return to_number(c, n->op, in[0], 0, &out[0]);
}

int py_same_value(const struct tval *a, const struct tval *b)
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
	int r = py_same_value(in[0], in[1]);

	out[0] = tv_bool(n->op != OP_aten___is__ ? !r : r);
	return out[0] ? 0 : trace_oom(c);
}

OPFN(op_not)
{
	int b;

	if (tv_get_bool(c, in[0], &b))
		return -1;
	out[0] = tv_bool(!b);
	return out[0] ? 0 : trace_oom(c);
}

int py_equal_values(const struct tval *a, const struct tval *b)
{
	if ((a->kind == TV_STR || a->kind == TV_DEVICE) &&
	    (b->kind == TV_STR || b->kind == TV_DEVICE))
		return !strcmp(a->u.s, b->u.s);
	if ((a->kind == TV_INT || a->kind == TV_BOOL || a->kind == TV_FLOAT ||
	     a->kind == TV_DTYPE) &&
	    (b->kind == TV_INT || b->kind == TV_BOOL || b->kind == TV_FLOAT ||
	     b->kind == TV_DTYPE))
		return py_num(a) == py_num(b);
	return py_same_value(a, b);
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
			r = py_equal_values(l->u.list.items[i], in[1]);
	} else
		return trace_error(c, "'in' on a value that is not a list");
	out[0] = tv_bool(r);
	return out[0] ? 0 : trace_oom(c);
}

OPFN(op_ignore)
{
	int i;

	for (i = 0; i < nout; i++) {
		out[i] = tv_none();
		if (!out[i])
			return trace_oom(c);
	}
	return 0;
}

int py_fmt_value(const struct tval *v, char *buf, size_t len)
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
				k += (size_t)py_fmt_value(v->u.list.items[i],
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
				k += (size_t)py_fmt_value(v->u.list.items[i],
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
	py_fmt_value(in[0], buf, sizeof(buf));
	out[0] = tv_str(buf);
	return out[0] ? 0 : trace_oom(c);
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
				k += (size_t)py_fmt_value(in[a++], buf + k,
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
	return out[0] ? 0 : trace_oom(c);
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
	return out[0] ? 0 : trace_oom(c);
}

OPFN(op_is_cuda)
{
	out[0] = tv_bool(c->be->id == GPU_BACKEND_CUDA);
	return out[0] ? 0 : trace_oom(c);
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
	return out[0] ? 0 : trace_oom(c);
}

/* prim::type(Device) -> str */
OPFN(op_device_type)
{
	if (in[0]->kind != TV_DEVICE && in[0]->kind != TV_STR)
		return trace_error(c, "expected a device");
	out[0] = tv_str(strncmp(in[0]->u.s, "cuda", 4) ? "cpu" : "cuda");
	return out[0] ? 0 : trace_oom(c);
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
			return trace_oom(c);
		f = strstr(w, in[1]->u.s);
		out[0] = tv_int(f ? start + (f - w) : -1);
		free(w);
	} else {
		out[0] = tv_int(-1);
	}
	return out[0] ? 0 : trace_oom(c);
}

const struct trace_op trace_ops_prim[] = {
	{ OP_aten_find, op_find, TRACE_OP_PYTHON },
	{ OP_aten_is_pinned, op_false, TRACE_OP_PYTHON },
	{ OP_aten__set_item, op_set_item, TRACE_OP_PYTHON },
	{ OP_aten_Delete, op_delete, TRACE_OP_PYTHON },
	{ OP_aten_IntImplicit, op_Int, 0 },
	{ OP_aten_is_grad_enabled, op_false, TRACE_OP_PYTHON },
	{ OP_aten_is_autocast_enabled, op_false, TRACE_OP_PYTHON },
	{ OP_prim_requires_grad, op_false, TRACE_OP_PYTHON },
	{ OP_prim_is_nested, op_false, TRACE_OP_PYTHON },
	{ OP_prim_type, op_device_type, TRACE_OP_PYTHON },
	{ OP_prim_Constant, op_constant, TRACE_OP_PYTHON },
	{ OP_prim_ListConstruct, op_list_construct, TRACE_OP_PYTHON },
	{ OP_prim_ListUnpack, op_unpack, TRACE_OP_PYTHON },
	{ OP_prim_TupleConstruct, op_tuple_construct, TRACE_OP_PYTHON },
	{ OP_prim_TupleUnpack, op_unpack, TRACE_OP_PYTHON },
	{ OP_prim_TupleIndex, op_tuple_index, TRACE_OP_PYTHON },
	{ OP_prim_device, op_device, TRACE_OP_PYTHON },
	{ OP_prim_dtype, op_dtype, TRACE_OP_PYTHON },
	{ OP_prim_NumToTensor, op_numtotensor, 0 },
	{ OP_prim_unchecked_cast, op_unchecked_cast, TRACE_OP_PYTHON },
	{ OP_prim_Uninitialized, op_uninitialized, TRACE_OP_PYTHON },
	{ OP_prim_RaiseException, op_raise, TRACE_OP_PYTHON },
	{ OP_prim_is_cuda, op_is_cuda, TRACE_OP_PYTHON },
	{ OP_aten_size, op_size, 0 },
	{ OP_aten_dim, op_dim, TRACE_OP_PYTHON },
	{ OP_aten_numel, op_numel, TRACE_OP_PYTHON },
	{ OP_aten_len, op_len, TRACE_OP_PYTHON },
	{ OP_aten___getitem__, op_getitem, TRACE_OP_PYTHON },
	{ OP_aten_append, op_append, TRACE_OP_PYTHON },
	{ OP_aten_insert, op_insert, TRACE_OP_PYTHON },
	{ OP_aten_pop, op_pop, TRACE_OP_PYTHON },
	{ OP_aten_extend, op_extend, TRACE_OP_PYTHON },
	{ OP_aten_Int, op_Int, TRACE_OP_PYTHON },
	{ OP_aten_Float, op_Float, TRACE_OP_PYTHON },
	{ OP_aten_Bool, op_Bool, TRACE_OP_PYTHON },
	{ OP_aten_ScalarImplicit, op_item, TRACE_OP_PYTHON },
	{ OP_aten_item, op_item, TRACE_OP_PYTHON },
	{ OP_aten__local_scalar_dense, op_item, TRACE_OP_PYTHON },
	{ OP_aten___is__, op_is, TRACE_OP_PYTHON },
	{ OP_aten___isnot__, op_is, TRACE_OP_PYTHON },
	{ OP_aten___not__, op_not, TRACE_OP_PYTHON },
	{ OP_aten___contains__, op_contains, TRACE_OP_PYTHON },
	{ OP_aten_warn, op_ignore, TRACE_OP_PYTHON },
	{ OP_aten_format, op_format, TRACE_OP_PYTHON },
	{ OP_aten_str, op_str, TRACE_OP_PYTHON },
	{ OP_aten_device, op_device, TRACE_OP_PYTHON },
	{ OP_aten_is_floating_point, op_is_floating_point, TRACE_OP_PYTHON },
	{ OP_NONE, NULL, 0 },
};

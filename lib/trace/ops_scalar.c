/*
 * ops_scalar.c - trace's Python arithmetic (trace_ops_scalar): numbers,
 * comparisons, math on ints, floats, bools and strings, and the Python list
 * functions (list(), slicing, reverse, sort, sum).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "intmath.h"
#include "ops_py.h"
#include "rlimits.h"

/* --- Python lists -------------------------------------------------------- */

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
	return out[0] ? 0 : trace_oom(c);
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

double py_num(const struct tval *v)
{
	return v->kind == TV_FLOAT ? v->u.f : (double)v->u.i;
}

static int cmp_num(const void *a, const void *b)
{
	double x = py_num(*(struct tval *const *)a);
	double y = py_num(*(struct tval *const *)b);

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
	return out[0] ? 0 : trace_oom(c);
}

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
		x[i] = py_num(in[i]);
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
			return out[0] ? 0 : trace_oom(c);
		}
		if (op == A_ADD && in[0]->kind == TV_STR &&
		    in[1]->kind == TV_STR) {
			size_t la = strlen(in[0]->u.s), lb = strlen(in[1]->u.s);
			char *s = malloc(la + lb + 1);

			if (!s)
				return trace_oom(c);
			memcpy(s, in[0]->u.s, la);
			memcpy(s + la, in[1]->u.s, lb + 1);
			out[0] = tv_str(s);
			free(s);
			return out[0] ? 0 : trace_oom(c);
		}
		if (op == A_MUL && in[0]->kind == TV_LIST &&
		    in[1]->kind == TV_INT) {
			struct tval *l = tv_list(TV_LIST);
			int64_t t, n = in[0]->u.list.n;
			int i;

			if (!l)
				return trace_oom(c);
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
						return trace_oom(c);
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
	return out[0] ? 0 : trace_oom(c);
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
		if (!best || (max ? py_num(e) > py_num(best) :
			      py_num(e) < py_num(best)))
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
	return out[0] ? 0 : trace_oom(c);
}

OPFN(op_abs)
{
	if (in[0]->kind == TV_FLOAT)
		out[0] = tv_float(fabs(in[0]->u.f));
	else if (in[0]->kind == TV_INT || in[0]->kind == TV_BOOL)
		out[0] = tv_int(i64_wrap_abs(in[0]->u.i)); /* torch's wrap */
	else
		return trace_error(c, "expected a number");
	return out[0] ? 0 : trace_oom(c);
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
			eq = py_num(in[0]) == py_num(in[1]);
		else if ((in[0]->kind == TV_LIST || in[0]->kind == TV_TUPLE) &&
			 in[0]->kind == in[1]->kind) {
			int i;

			eq = in[0]->u.list.n == in[1]->u.list.n;
			for (i = 0; eq && i < in[0]->u.list.n; i++)
				eq = py_equal_values(in[0]->u.list.items[i],
						  in[1]->u.list.items[i]);
		} else
			eq = py_equal_values(in[0], in[1]);
		out[0] = tv_bool(op == C_EQ ? eq : !eq);
		return out[0] ? 0 : trace_oom(c);
	}
	if (in[0]->kind == TV_STR && in[1]->kind == TV_STR) {
		int s = strcmp(in[0]->u.s, in[1]->u.s);

		a = s;
		b = 0;
	} else {
		if (!isnum(in[0]) || !isnum(in[1]))
			return trace_error(c, "comparison of non-numbers");
		a = py_num(in[0]);
		b = py_num(in[1]);
	}
	switch (op) {
	case C_LT: r = a < b; break;
	case C_LE: r = a <= b; break;
	case C_GT: r = a > b; break;
	default: r = a >= b; break;
	}
	out[0] = tv_bool(r);
	return out[0] ? 0 : trace_oom(c);
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
	return out[0] ? 0 : trace_oom(c);
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

static int math1(struct trace_ctx *c, enum aten_op kind, struct tval **in,
		 struct tval **out)
{
	double x;

	if (!isnum(in[0]))
		return trace_error(c, "expected a number");
	x = py_num(in[0]);
	if (kind == OP_aten_floor)
		out[0] = in[0]->kind == TV_FLOAT ? tv_int((int64_t)floor(x)) :
			 tv_int(in[0]->u.i);
	else if (kind == OP_aten_ceil)
		out[0] = in[0]->kind == TV_FLOAT ? tv_int((int64_t)ceil(x)) :
			 tv_int(in[0]->u.i);
	else if (kind == OP_aten_round)
		out[0] = tv_float(nearbyint(x));
	else if (kind == OP_aten_sqrt)
		out[0] = tv_float(sqrt(x));
	else if (kind == OP_aten_log)
		out[0] = tv_float(log(x));
	else if (kind == OP_aten_exp)
		out[0] = tv_float(exp(x));
	else if (kind == OP_aten_sin)
		out[0] = tv_float(sin(x));
	else if (kind == OP_aten_cos)
		out[0] = tv_float(cos(x));
	else if (kind == OP_aten_tanh)
		out[0] = tv_float(tanh(x));
	else
		return trace_error(c, "no Python form");
	return out[0] ? 0 : trace_oom(c);
}

OPFN(op_math1)
{
	return math1(c, n->op, in, out);
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
	return out[0] ? 0 : trace_oom(c);
}

/* aten::__derive_index(index, start, step) = start + index * step */
OPFN(op_derive_index)
{
	int64_t i, lo, st;

	if (tv_get_int(c, in[0], &i) || tv_get_int(c, in[1], &lo) ||
	    tv_get_int(c, in[2], &st))
		return -1;
	out[0] = tv_int(lo + i * st);
	return out[0] ? 0 : trace_oom(c);
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
		f += py_num(l->u.list.items[i]);
		s += l->u.list.items[i]->kind == TV_FLOAT ? 0 :
		     l->u.list.items[i]->u.i;
	}
	out[0] = flt ? tv_float(f) : tv_int(s);
	return out[0] ? 0 : trace_oom(c);
}

const struct trace_op trace_ops_scalar[] = {
	{ OP_aten_add, op_add, 0 },
	{ OP_aten_sub, op_sub, 0 },
	{ OP_aten_mul, op_mul, 0 },
	{ OP_aten_div, op_div, 0 },
	{ OP_aten_floordiv, op_floordiv, 0 },
	{ OP_aten_floor_divide, op_floordiv, 0 },
	{ OP_aten_remainder, op_rem, 0 },
	{ OP_aten_pow, op_pow, 0 },
	{ OP_aten_min, op_min, 0 },
	{ OP_aten_max, op_max, 0 },
	{ OP_prim_min, op_min, 0 },
	{ OP_prim_max, op_max, 0 },
	{ OP_aten_neg, op_neg, 0 },
	{ OP_aten_abs, op_abs, 0 },
	{ OP_prim_abs, op_abs, 0 },
	{ OP_aten_eq, op_eq, 0 },
	{ OP_aten_ne, op_ne, 0 },
	{ OP_aten_lt, op_lt, 0 },
	{ OP_aten_le, op_le, 0 },
	{ OP_aten_gt, op_gt, 0 },
	{ OP_aten_ge, op_ge, 0 },
	{ OP_aten___and__, op_and, 0 },
	{ OP_aten___or__, op_or, 0 },
	{ OP_aten___xor__, op_xor, 0 },
	{ OP_aten_floor, op_math1, 0 },
	{ OP_aten_ceil, op_math1, 0 },
	{ OP_aten_round, op_math1, 0 },
	{ OP_aten_sqrt, op_math1, 0 },
	{ OP_aten_log, op_math1, 0 },
	{ OP_aten_exp, op_math1, 0 },
	{ OP_aten_sin, op_math1, 0 },
	{ OP_aten_cos, op_math1, 0 },
	{ OP_aten_tanh, op_math1, 0 },
	{ OP_aten___range_length, op_range_length, TRACE_OP_PYTHON },
	{ OP_aten___derive_index, op_derive_index, TRACE_OP_PYTHON },
	{ OP_aten_slice, op_list_slice, TRACE_OP_PYTHON },
	{ OP_aten_list, op_list, TRACE_OP_PYTHON },
	{ OP_aten_copy, op_list, TRACE_OP_PYTHON },
	{ OP_aten_reverse, op_reverse, TRACE_OP_PYTHON },
	{ OP_aten_sort, op_sort, TRACE_OP_PYTHON },
	{ OP_aten_sum, op_list_sum, 0 },
	{ OP_NONE, NULL, 0 },
};

/*
 * ops_tensor.c - aten op implementations for `trace` (see trace_int.h):
 * elementwise arithmetic, comparisons and activations, reductions,
 * creation ops, conversions, copies and the in-place forms of all of them.
 *
 * Every op follows torch 1.13's semantics: torch.result_type promotion
 * (trace_promote), broadcasting, integer inputs of float-only math giving
 * the default float dtype, reductions' dtype rules (sum of ints is
 * int64).  In-place kinds (aten::add_) compute out of place and write the
 * result through into the first input's storage, so that views of it see
 * the change as in torch.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rlimits.h"
#include "trace_int.h"

#define DEFAULT_FLOAT IR_DTYPE_FLOAT

/* --- small helpers -------------------------------------------------------- */

/* the node's kind without its namespace and without one trailing '_'
 * (the in-place form), into buf */
static const char *op_name(const struct ir_node *n, char *buf, size_t sz)
{
	const char *k = strstr(n->kind, "::");
	size_t len;

	k = k ? k + 2 : n->kind;
	len = strlen(k);
	if (len >= sz)
		len = sz - 1;
	memcpy(buf, k, len);
	buf[len] = 0;
	if (len > 1 && buf[len - 1] == '_' && buf[len - 2] != '_')
		buf[len - 1] = 0;
	return buf;
}

/* the functional form of an in-place op (aten::add_ -> aten::add, from
 * the registry), other ops themselves */
static enum aten_op functional(enum aten_op op)
{
	const char *name = aten_op_name(op);
	char base[96];
	size_t len = strlen(name);

	if (!(aten_op_flags(op) & ATEN_OP_INPLACE) || len < 2 ||
	    len > sizeof(base))
		return op;
	memcpy(base, name, len - 1);
	base[len - 1] = 0;
	return aten_op_id(base);
}

static int is_tensor(const struct tval *v)
{
	return v && v->kind == TV_TENSOR;
}

static int is_none(const struct tval *v)
{
	return !v || v->kind == TV_NONE;
}

static int is_number(const struct tval *v)
{
	return v && (v->kind == TV_INT || v->kind == TV_FLOAT ||
		     v->kind == TV_BOOL);
}

static int dt_is_float(enum ir_dtype dt)
{
	return dt == IR_DTYPE_FLOAT || dt == IR_DTYPE_DOUBLE ||
	       dt == IR_DTYPE_FLOAT16 || dt == IR_DTYPE_BFLOAT16;
}

static int dt_is_int(enum ir_dtype dt)
{
	return !dt_is_float(dt) && dt != IR_DTYPE_BOOL &&
	       dt != IR_DTYPE_COMPLEX64 && dt != IR_DTYPE_COMPLEX128 &&
	       dt != IR_DTYPE_UNDEFINED && dt != IR_DTYPE_STRING;
}

/* the dtype kernels compute in: half types go through float32 */
static enum ir_dtype kernel_dt(enum ir_dtype dt)
{
	return dt == IR_DTYPE_FLOAT16 || dt == IR_DTYPE_BFLOAT16 ?
	       IR_DTYPE_FLOAT : dt;
}

/* integral and bool become the default float dtype */
static enum ir_dtype float_dt(enum ir_dtype dt)
{
	return dt_is_float(dt) ? dt : DEFAULT_FLOAT;
}

/* torch's canCast: no float -> integral, no non-bool -> bool */
static int can_cast(enum ir_dtype from, enum ir_dtype to)
{
	if (dt_is_float(from) && (dt_is_int(to) || to == IR_DTYPE_BOOL))
		return 0;
	if (from != IR_DTYPE_BOOL && to == IR_DTYPE_BOOL)
		return 0;
	return 1;
}

/* a new contiguous tensor with t's values (never shares storage) */
static struct gpu_tensor *clone_t(struct trace_ctx *c, struct gpu_tensor *t,
				  enum ir_dtype dt)
{
	struct gpu_tensor *y = trace_empty(c, dt, t->rank, t->dims);

	if (!y)
		return NULL;
	if (t->storage->be->copy(t, y)) {
		gpu_free(y);
		trace_gpu_error(c);
		return NULL;
	}
	return y;
}

static struct gpu_tensor *cast_t(struct trace_ctx *c, struct gpu_tensor *t,
				 enum ir_dtype dt)
{
	return trace_cast(c, t, dt);
}

/* casts *t to dt in place of the caller's reference */
static int recast(struct trace_ctx *c, struct gpu_tensor **t,
		  enum ir_dtype dt)
{
	struct gpu_tensor *y;

	if (!*t || (*t)->dtype == dt || dt == IR_DTYPE_UNDEFINED)
		return *t ? 0 : -1;
	y = cast_t(c, *t, dt);
	gpu_free(*t);
	*t = y;
	return y ? 0 : -1;
}

static struct gpu_tensor *fill_t(struct trace_ctx *c, enum ir_dtype dt,
				 int rank, const int64_t *dims, double v)
{
	struct gpu_tensor *y = trace_empty(c, dt, rank, dims);

	if (y && c->be->fill(y, v)) {
		gpu_free(y);
		trace_gpu_error(c);
		return NULL;
	}
	return y;
}

/* a scalar (int, float, bool or a one-element tensor) as a double */
static int get_scalar(struct trace_ctx *c, const struct tval *v, double *out)
{
	return tv_get_float(c, v, out);
}

/* --- elementwise building blocks ------------------------------------------ */

static int unary_bool_out(enum gpu_unary op)
{
	return op == GPU_NOT || op == GPU_ISNAN || op == GPU_ISINF;
}

/* y = op(x) with y's dtype out_dt; x is cast to out_dt first (or, for the
 * ops giving bool, computed in x's own dtype) */
static struct gpu_tensor *unary_t(struct trace_ctx *c, enum gpu_unary op,
				  struct gpu_tensor *x, enum ir_dtype out_dt,
				  double a, double b)
{
	enum ir_dtype in_dt, y_dt;
	struct gpu_tensor *xin, *y;

	if (unary_bool_out(op)) {
		in_dt = kernel_dt(x->dtype);
		y_dt = IR_DTYPE_BOOL;
	} else {
		in_dt = kernel_dt(out_dt);
		y_dt = in_dt;
	}
	xin = cast_t(c, x, in_dt);
	if (!xin)
		return NULL;
	y = trace_empty(c, y_dt, x->rank, x->dims);
	if (!y) {
		gpu_free(xin);
		return NULL;
	}
	if (c->be->unary(op, xin, y, a, b)) {
		gpu_free(xin);
		gpu_free(y);
		trace_gpu_error(c);
		return NULL;
	}
	gpu_free(xin);
	if (recast(c, &y, out_dt))
		return NULL;
	return y;
}

static int binary_bool_out(enum gpu_binary op)
{
	return op >= GPU_EQ && op <= GPU_LOGICAL_XOR;
}

/* y = a op b, both cast to cdt and broadcast; y's dtype out_dt */
static struct gpu_tensor *binary_t(struct trace_ctx *c, enum gpu_binary op,
				   struct gpu_tensor *a, struct gpu_tensor *b,
				   enum ir_dtype cdt, enum ir_dtype out_dt)
{
	enum ir_dtype kdt = kernel_dt(cdt);
	struct gpu_tensor *ac = NULL, *bc = NULL, *ae = NULL, *bx = NULL,
			  *y = NULL;
	int64_t dims[GPU_MAX_DIMS];
	int rank;

	if (trace_broadcast_dims(c, a, b, &rank, dims))
		return NULL;
	ac = cast_t(c, a, kdt);
	bc = ac ? cast_t(c, b, kdt) : NULL;
	if (!bc)
		goto fail;
	ae = trace_expand(ac, rank, dims);
	bx = ae ? trace_expand(bc, rank, dims) : NULL;
	if (!bx) {
		trace_gpu_error(c);
		goto fail;
	}
	y = trace_empty(c, binary_bool_out(op) ? IR_DTYPE_BOOL : kdt, rank,
		    dims);
	if (!y)
		goto fail;
	if (c->be->binary(op, ae, bx, y)) {
		trace_gpu_error(c);
		goto fail;
	}
	gpu_free(ac);
	gpu_free(bc);
	gpu_free(ae);
	gpu_free(bx);
	if (recast(c, &y, out_dt))
		return NULL;
	return y;
fail:
	gpu_free(ac);
	gpu_free(bc);
	gpu_free(ae);
	gpu_free(bx);
	gpu_free(y);
	return NULL;
}

/* binary_t on values (tensors or Python scalars) */
static struct gpu_tensor *binary_v(struct trace_ctx *c, enum gpu_binary op,
				   const struct tval *a, const struct tval *b,
				   enum ir_dtype cdt, enum ir_dtype out_dt)
{
	struct gpu_tensor *at, *bt, *y = NULL;

	at = trace_as_tensor(c, a, kernel_dt(cdt));
	if (!at)
		return NULL;
	bt = trace_as_tensor(c, b, kernel_dt(cdt));
	if (bt)
		y = binary_t(c, op, at, bt, cdt, out_dt);
	gpu_free(at);
	gpu_free(bt);
	return y;
}

/* x op scalar s, computed in cdt */
static struct gpu_tensor *binary_s(struct trace_ctx *c, enum gpu_binary op,
				   struct gpu_tensor *x, double s,
				   enum ir_dtype cdt, enum ir_dtype out_dt)
{
	struct gpu_tensor *st = fill_t(c, kernel_dt(cdt), 0, NULL, s), *y;

	if (!st)
		return NULL;
	y = binary_t(c, op, x, st, cdt, out_dt);
	gpu_free(st);
	return y;
}

/* y = cond ? a : b, broadcast, in dtype dt */
static struct gpu_tensor *where_t(struct trace_ctx *c, struct gpu_tensor *cond,
				  struct gpu_tensor *a, struct gpu_tensor *b,
				  enum ir_dtype dt)
{
	enum ir_dtype kdt = kernel_dt(dt);
	struct gpu_tensor *cc = NULL, *ac = NULL, *bc = NULL, *ce = NULL,
			  *ae = NULL, *bx = NULL, *y = NULL;
	int64_t d1[GPU_MAX_DIMS], dims[GPU_MAX_DIMS];
	int r1, rank;
	struct gpu_tensor tmp;

	if (trace_broadcast_dims(c, a, b, &r1, d1))
		return NULL;
	memset(&tmp, 0, sizeof(tmp));
	tmp.rank = r1;
	memcpy(tmp.dims, d1, sizeof(d1));
	if (trace_broadcast_dims(c, cond, &tmp, &rank, dims))
		return NULL;
	cc = cast_t(c, cond, IR_DTYPE_BOOL);
	ac = cc ? cast_t(c, a, kdt) : NULL;
	bc = ac ? cast_t(c, b, kdt) : NULL;
	if (!bc)
		goto out;
	ce = trace_expand(cc, rank, dims);
	ae = trace_expand(ac, rank, dims);
	bx = trace_expand(bc, rank, dims);
	if (!ce || !ae || !bx) {
		trace_gpu_error(c);
		goto out;
	}
	y = trace_empty(c, kdt, rank, dims);
	if (y && c->be->where(ce, ae, bx, y)) {
		trace_gpu_error(c);
		gpu_free(y);
		y = NULL;
	}
	if (y && recast(c, &y, dt))
		y = NULL;
out:
	gpu_free(cc);
	gpu_free(ac);
	gpu_free(bc);
	gpu_free(ce);
	gpu_free(ae);
	gpu_free(bx);
	return y;
}

/* --- reductions -------------------------------------------------------- */

/* axes of x (rank r) named by v (an int, a list, None or [] = all) */
static int parse_axes(struct trace_ctx *c, const struct tval *v, int r,
		      uint32_t *mask)
{
	int64_t ax[GPU_MAX_DIMS];
	int n = 0, i, a;

	*mask = 0;
	if (!is_none(v)) {
		if (tv_get_ints(c, v, ax, GPU_MAX_DIMS, &n))
			return -1;
		if (v->kind == TV_INT)
			n = 1;
	}
	if (n == 0) {
		*mask = r > 0 ? (uint32_t)((1u << r) - 1) : 0;
		return 0;
	}
	for (i = 0; i < n; i++) {
		if (trace_axis(c, ax[i], r, &a))
			return -1;
		if (r == 0)
			continue;
		if (*mask & (1u << a))
			return trace_error(c, "dim %d appears multiple times "
					   "in the list of dims", a);
		*mask |= 1u << a;
	}
	return 0;
}

/* reduce x over mask, computing in in_dt; y's dtype out_dt */
static struct gpu_tensor *reduce_t(struct trace_ctx *c, enum gpu_reduce op,
				   struct gpu_tensor *x, uint32_t mask,
				   int keepdim, double param,
				   enum ir_dtype in_dt, enum ir_dtype out_dt)
{
	struct gpu_tensor *xin, *y, *v;
	int64_t dims[GPU_MAX_DIMS], nd[GPU_MAX_DIMS], st[GPU_MAX_DIMS];
	enum ir_dtype ydt;
	int i, r = 0, rank0 = x->rank == 0;

	in_dt = kernel_dt(in_dt);
	if (rank0) {
		int64_t one = 1, s1 = 1;

		xin = gpu_view(x, 1, &one, &s1, x->offset);
		if (!xin) {
			trace_gpu_error(c);
			return NULL;
		}
		if (recast(c, &xin, in_dt))
			return NULL;
		mask = 1;
	} else {
		xin = cast_t(c, x, in_dt);
		if (!xin)
			return NULL;
	}
	for (i = 0; i < xin->rank; i++)
		dims[i] = mask & (1u << i) ? 1 : xin->dims[i];
	ydt = op == GPU_RARGMAX || op == GPU_RARGMIN ? IR_DTYPE_INT64 :
	      op == GPU_RALL || op == GPU_RANY ? IR_DTYPE_BOOL : in_dt;
	y = trace_empty(c, ydt, xin->rank, dims);
	if (!y) {
		gpu_free(xin);
		return NULL;
	}
	if (c->be->reduce(op, xin, mask, param, y)) {
		gpu_free(xin);
		gpu_free(y);
		trace_gpu_error(c);
		return NULL;
	}
	gpu_free(xin);
	if (!keepdim || rank0) {
		for (i = 0; i < y->rank; i++)
			if (!(mask & (1u << i)))
				nd[r++] = y->dims[i];
		gpu_contiguous_strides(r, nd, st);
		v = gpu_view(y, r, nd, st, y->offset);
		gpu_free(y);
		if (!v) {
			trace_gpu_error(c);
			return NULL;
		}
		y = v;
	}
	if (recast(c, &y, out_dt))
		return NULL;
	return y;
}

/* x flattened to one dim (a contiguous copy when needed) */
static struct gpu_tensor *flatten_t(struct trace_ctx *c, struct gpu_tensor *x)
{
	struct gpu_tensor *ct, *y;
	int64_t n = gpu_numel(x), s = 1;

	ct = gpu_is_contiguous(x) ? trace_alias(c, x) : clone_t(c, x, x->dtype);
	if (!ct)
		return NULL;
	y = gpu_view(ct, 1, &n, &s, ct->offset);
	gpu_free(ct);
	if (!y)
		trace_gpu_error(c);
	return y;
}

/* --- unary math ---------------------------------------------------------- */

enum ukind { U_FLOAT, U_SAME, U_BOOL, U_ROUNDING };

static const struct unary_desc {
	enum aten_op aten; /* the functional form */
	enum gpu_unary op;
	enum ukind kind;
} unary_ops[] = {
	{ OP_aten_sqrt, GPU_SQRT, U_FLOAT },
	{ OP_aten_rsqrt, GPU_RSQRT, U_FLOAT },
	{ OP_aten_exp, GPU_EXP, U_FLOAT },
	{ OP_aten_expm1, GPU_EXPM1, U_FLOAT },
	{ OP_aten_log, GPU_LOG, U_FLOAT },
	{ OP_aten_log1p, GPU_LOG1P, U_FLOAT },
	{ OP_aten_log2, GPU_LOG2, U_FLOAT },
	{ OP_aten_log10, GPU_LOG10, U_FLOAT },
	{ OP_aten_sin, GPU_SIN, U_FLOAT }, { OP_aten_cos, GPU_COS, U_FLOAT },
	{ OP_aten_tan, GPU_TAN, U_FLOAT }, { OP_aten_asin, GPU_ASIN, U_FLOAT },
	{ OP_aten_acos, GPU_ACOS, U_FLOAT },
	{ OP_aten_atan, GPU_ATAN, U_FLOAT },
	{ OP_aten_sinh, GPU_SINH, U_FLOAT },
	{ OP_aten_cosh, GPU_COSH, U_FLOAT },
	{ OP_aten_tanh, GPU_TANH, U_FLOAT },
	{ OP_aten_asinh, GPU_ASINH, U_FLOAT },
	{ OP_aten_acosh, GPU_ACOSH, U_FLOAT },
	{ OP_aten_atanh, GPU_ATANH, U_FLOAT },
	{ OP_aten_arcsin, GPU_ASIN, U_FLOAT },
	{ OP_aten_arccos, GPU_ACOS, U_FLOAT },
	{ OP_aten_arctan, GPU_ATAN, U_FLOAT },
	{ OP_aten_erf, GPU_ERF, U_FLOAT },
	{ OP_aten_reciprocal, GPU_RECIPROCAL, U_FLOAT },
	{ OP_aten_sigmoid, GPU_SIGMOID, U_FLOAT },
	{ OP_aten_silu, GPU_SILU, U_FLOAT },
	{ OP_aten_mish, GPU_MISH, U_FLOAT },
	{ OP_aten_hardsigmoid, GPU_HARDSIGMOID, U_FLOAT },
	{ OP_aten_hardswish, GPU_HARDSWISH, U_FLOAT },
	{ OP_aten_neg, GPU_NEG, U_SAME }, { OP_aten_negative, GPU_NEG, U_SAME },
	{ OP_aten_abs, GPU_ABS, U_SAME }, { OP_aten_absolute, GPU_ABS, U_SAME },
	{ OP_aten_sign, GPU_SIGN, U_SAME }, { OP_aten_relu, GPU_RELU, U_SAME },
	{ OP_aten_floor, GPU_FLOOR, U_ROUNDING },
	{ OP_aten_ceil, GPU_CEIL, U_ROUNDING },
	{ OP_aten_trunc, GPU_TRUNC, U_ROUNDING },
	{ OP_aten_fix, GPU_TRUNC, U_ROUNDING },
	{ OP_aten_frac, GPU_FRAC, U_SAME },
	{ OP_aten_isnan, GPU_ISNAN, U_BOOL },
	{ OP_aten_isinf, GPU_ISINF, U_BOOL },
	{ OP_aten_logical_not, GPU_NOT, U_BOOL },
	{ OP_NONE, 0, 0 },
};

static int op_unary(struct trace_ctx *c, const struct ir_node *n,
		    struct tval **in, int nin, struct tval **out, int nout)
{
	const struct unary_desc *d;
	struct gpu_tensor *x, *y;
	enum aten_op key = functional(n->op);
	enum ir_dtype dt;

	for (d = unary_ops; d->aten != OP_NONE && d->aten != key; d++)
		;
	if (d->aten == OP_NONE)
		return trace_error(c, "no elementwise kernel for %s", n->kind);
	if (nin < 1 || tv_get_tensor(c, in[0], 0, &x))
		return -1;
	dt = x->dtype;
	switch (d->kind) {
	case U_FLOAT:
		dt = float_dt(dt);
		break;
	case U_ROUNDING:
		if (!dt_is_float(dt))
			return trace_out(c, out, clone_t(c, x, dt));
		break;
	case U_BOOL:
		if (d->op != GPU_NOT && !dt_is_float(dt))
			return trace_out(c, out, fill_t(c, IR_DTYPE_BOOL,
						      x->rank, x->dims, 0));
		dt = IR_DTYPE_BOOL;
		break;
	default:
		if (dt == IR_DTYPE_BOOL && (d->op == GPU_SIGN ||
					    d->op == GPU_RELU ||
					    d->op == GPU_ABS))
			return trace_out(c, out, clone_t(c, x, dt));
		break;
	}
	y = unary_t(c, d->op, x, dt, 0, 0);
	return trace_out(c, out, y);
}

static int op_isfinite(struct trace_ctx *c, const struct ir_node *n,
		       struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x, *a, *b, *y;

	if (tv_get_tensor(c, in[0], 0, &x))
		return -1;
	if (!dt_is_float(x->dtype))
		return trace_out(c, out, fill_t(c, IR_DTYPE_BOOL, x->rank,
					      x->dims, 1));
	/* finite: x - x == 0 (nan and inf give nan) */
	a = binary_t(c, GPU_SUB, x, x, x->dtype, x->dtype);
	if (!a)
		return -1;
	b = fill_t(c, kernel_dt(x->dtype), 0, NULL, 0);
	y = b ? binary_t(c, GPU_EQ, a, b, x->dtype, IR_DTYPE_BOOL) : NULL;
	gpu_free(a);
	gpu_free(b);
	return trace_out(c, out, y);
}

static int op_bitwise_not(struct trace_ctx *c, const struct ir_node *n,
			  struct tval **in, int nin, struct tval **out,
			  int nout)
{
	struct gpu_tensor *x;

	if (tv_get_tensor(c, in[0], 0, &x))
		return -1;
	if (dt_is_float(x->dtype))
		return trace_error(c, "bitwise_not is not implemented for "
				   "floating point tensors");
	return trace_out(c, out, unary_t(c, x->dtype == IR_DTYPE_BOOL ?
				       GPU_NOT : GPU_BITWISE_NOT, x,
				       x->dtype, 0, 0));
}

static int op_round(struct trace_ctx *c, const struct ir_node *n,
		    struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x, *a, *b, *y;
	int64_t dec = 0;
	double p;

	if (tv_get_tensor(c, in[0], 0, &x))
		return -1;
	if (nin > 1 && tv_get_int(c, in[1], &dec))
		return -1;
	if (!dt_is_float(x->dtype))
		return trace_out(c, out, clone_t(c, x, x->dtype));
	if (dec == 0)
		return trace_out(c, out, unary_t(c, GPU_ROUND, x, x->dtype, 0,
					       0));
	/* torch: round(x * 10^d) / 10^d (negative d: x / 10^-d * 10^-d) */
	p = pow(10.0, (double)(dec > 0 ? dec : -dec));
	a = binary_s(c, dec > 0 ? GPU_MUL : GPU_DIV, x, p, x->dtype,
		     x->dtype);
	b = a ? unary_t(c, GPU_ROUND, a, x->dtype, 0, 0) : NULL;
	y = b ? binary_s(c, dec > 0 ? GPU_DIV : GPU_MUL, b, p, x->dtype,
			 x->dtype) : NULL;
	gpu_free(a);
	gpu_free(b);
	return trace_out(c, out, y);
}

static int op_square(struct trace_ctx *c, const struct ir_node *n,
		     struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x;
	enum ir_dtype dt;

	if (tv_get_tensor(c, in[0], 0, &x))
		return -1;
	dt = x->dtype == IR_DTYPE_BOOL ? IR_DTYPE_INT64 : x->dtype;
	return trace_out(c, out, binary_t(c, GPU_MUL, x, x, dt, dt));
}

/* --- activations with parameters ---------------------------------------- */

#define SELU_ALPHA 1.6732632423543772848170429916717
#define SELU_SCALE 1.0507009873554804934193349852946

static int op_act(struct trace_ctx *c, const struct ir_node *n,
		  struct tval **in, int nin, struct tval **out, int nout)
{
	enum aten_op key = functional(n->op);
	struct gpu_tensor *x, *y;
	double p[3] = { 0, 0, 0 };
	enum gpu_unary op;
	enum ir_dtype dt;
	int i, np = 0;

	if (tv_get_tensor(c, in[0], 0, &x))
		return -1;
	dt = float_dt(x->dtype);
	if (key == OP_aten_gelu) {
		const char *ap = nin > 1 && in[1] && in[1]->kind == TV_STR ?
				 in[1]->u.s : "none";

		if (strcmp(ap, "none") && strcmp(ap, "tanh"))
			return trace_error(c, "approximate argument must be "
					   "either none or tanh");
		return trace_out(c, out, unary_t(c, GPU_GELU, x, dt,
					       !strcmp(ap, "tanh"), 0));
	}
	if (key == OP_aten_selu)
		return trace_out(c, out, unary_t(c, GPU_ELU, x, dt, SELU_ALPHA,
					       SELU_SCALE));
	if (key == OP_aten_relu6)
		return trace_out(c, out, unary_t(c, GPU_HARDTANH, x, x->dtype,
					       0, 6));
	if (key == OP_aten_logit) {
		double eps = -1;

		if (nin > 1 && !is_none(in[1]) && get_scalar(c, in[1], &eps))
			return -1;
		return trace_out(c, out, unary_t(c, GPU_LOGIT, x, dt, eps, 0));
	}
	for (i = 1; i < nin && i < 4; i++) {
		if (!is_number(in[i]) && !is_tensor(in[i]))
			break;
		if (get_scalar(c, in[i], &p[np++]))
			return -1;
	}
	if (key == OP_aten_leaky_relu) {
		op = GPU_LEAKY_RELU;
		if (np < 1)
			p[0] = 0.01;
	} else if (key == OP_aten_rrelu) {
		/* eval: the mean slope */
		op = GPU_LEAKY_RELU;
		if (np < 2) {
			p[0] = 0.125;
			p[1] = 1.0 / 3.0;
		}
		p[0] = (p[0] + p[1]) / 2;
	} else if (key == OP_aten_elu) {
		struct gpu_tensor *xs, *e, *pos, *zero, *cond;

		if (np < 3) {
			p[0] = np < 1 ? 1 : p[0];
			p[1] = np < 2 ? 1 : p[1];
			p[2] = 1;
		}
		if (p[2] == 1)
			return trace_out(c, out, unary_t(c, GPU_ELU, x, dt,
						       p[0], p[1]));
		/* input_scale: x > 0 ? scale * x : elu(x * input_scale) */
		xs = binary_s(c, GPU_MUL, x, p[2], dt, dt);
		e = xs ? unary_t(c, GPU_ELU, xs, dt, p[0], p[1]) : NULL;
		pos = e ? binary_s(c, GPU_MUL, x, p[1], dt, dt) : NULL;
		zero = pos ? fill_t(c, kernel_dt(dt), 0, NULL, 0) : NULL;
		cond = zero ? binary_t(c, GPU_GT, x, zero, dt,
				       IR_DTYPE_BOOL) : NULL;
		y = cond ? where_t(c, cond, pos, e, dt) : NULL;
		gpu_free(xs);
		gpu_free(e);
		gpu_free(pos);
		gpu_free(zero);
		gpu_free(cond);
		return trace_out(c, out, y);
	} else if (key == OP_aten_celu) {
		op = GPU_CELU;
		if (np < 1)
			p[0] = 1;
	} else if (key == OP_aten_hardtanh) {
		op = GPU_HARDTANH;
		if (np < 2) {
			p[0] = -1;
			p[1] = 1;
		}
		dt = x->dtype;
		if (p[0] > p[1]) {
			/* torch: min(max(x, min_val), max_val) */
			struct gpu_tensor *lo = binary_s(c, GPU_MAX, x, p[0], dt,
							 dt);

			y = lo ? binary_s(c, GPU_MIN, lo, p[1], dt, dt) : NULL;
			gpu_free(lo);
			return trace_out(c, out, y);
		}
	} else if (key == OP_aten_hardshrink ||
		   key == OP_aten_softshrink) {
		op = key == OP_aten_hardshrink ? GPU_HARDSHRINK :
		     GPU_SOFTSHRINK;
		if (np < 1)
			p[0] = 0.5;
	} else if (key == OP_aten_softplus) {
		op = GPU_SOFTPLUS;
		if (np < 2) {
			p[0] = 1;
			p[1] = 20;
		}
	} else if (key == OP_aten_threshold) {
		op = GPU_THRESHOLD;
		if (np < 2)
			return trace_error(c, "threshold needs threshold and "
					   "value");
		dt = x->dtype;
	} else {
		return trace_error(c, "no activation kernel for %s", n->kind);
	}
	return trace_out(c, out, unary_t(c, op, x, dt, p[0], p[1]));
}

static int op_log_sigmoid(struct trace_ctx *c, const struct ir_node *n,
			  struct tval **in, int nin, struct tval **out,
			  int nout)
{
	struct gpu_tensor *x, *nx, *sp, *y;
	enum ir_dtype dt;

	if (tv_get_tensor(c, in[0], 0, &x))
		return -1;
	dt = float_dt(x->dtype);
	/* log(sigmoid(x)) = -softplus(-x) */
	nx = unary_t(c, GPU_NEG, x, dt, 0, 0);
	sp = nx ? unary_t(c, GPU_SOFTPLUS, nx, dt, 1, 20) : NULL;
	y = sp ? unary_t(c, GPU_NEG, sp, dt, 0, 0) : NULL;
	gpu_free(nx);
	gpu_free(sp);
	return trace_out(c, out, y);
}

/* a view of w (1-d, C entries) shaped to broadcast along dim 1 of rank r */
static struct gpu_tensor *channel_view(struct trace_ctx *c,
				       struct gpu_tensor *w, int r)
{
	int64_t dims[GPU_MAX_DIMS], st[GPU_MAX_DIMS];
	int i;

	if (w->rank != 1 || r < 2)
		return trace_alias(c, w);
	for (i = 0; i < r - 1; i++) {
		dims[i] = i == 0 ? w->dims[0] : 1;
		st[i] = i == 0 ? w->strides[0] : 0;
	}
	w = gpu_view(w, r - 1, dims, st, w->offset);
	if (!w)
		trace_gpu_error(c);
	return w;
}

static int op_prelu(struct trace_ctx *c, const struct ir_node *n,
		    struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x, *w, *wv, *neg = NULL, *zero = NULL, *cond = NULL,
			  *y = NULL;
	enum ir_dtype dt;

	if (tv_get_tensor(c, in[0], 0, &x) || tv_get_tensor(c, in[1], 0, &w))
		return -1;
	dt = trace_promote(in[0], in[1]);
	wv = channel_view(c, w, x->rank);
	if (!wv)
		return -1;
	neg = binary_t(c, GPU_MUL, x, wv, dt, dt);
	zero = neg ? fill_t(c, kernel_dt(dt), 0, NULL, 0) : NULL;
	cond = zero ? binary_t(c, GPU_GT, x, zero, dt, IR_DTYPE_BOOL) : NULL;
	y = cond ? where_t(c, cond, x, neg, dt) : NULL;
	gpu_free(wv);
	gpu_free(neg);
	gpu_free(zero);
	gpu_free(cond);
	return trace_out(c, out, y);
}

/* a view of x: `len` entries of dim `axis` from `start` */
static struct gpu_tensor *narrow_t(struct trace_ctx *c, struct gpu_tensor *x,
				   int axis, int64_t start, int64_t len)
{
	int64_t dims[GPU_MAX_DIMS];
	struct gpu_tensor *y;

	memcpy(dims, x->dims, sizeof(dims));
	dims[axis] = len;
	y = gpu_view(x, x->rank, dims, x->strides,
		     x->offset + start * x->strides[axis]);
	if (!y)
		trace_gpu_error(c);
	return y;
}

static int op_glu(struct trace_ctx *c, const struct ir_node *n,
		  struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x, *a, *b, *s = NULL, *y = NULL;
	int64_t dim = -1, h;
	int axis;

	if (tv_get_tensor(c, in[0], 0, &x))
		return -1;
	if (nin > 1 && tv_get_int(c, in[1], &dim))
		return -1;
	if (x->rank == 0)
		return trace_error(c, "glu does not support scalars because "
				   "halving size must be even");
	if (trace_axis(c, dim, x->rank, &axis))
		return -1;
	if (x->dims[axis] % 2)
		return trace_error(c, "halving dimension must be even, but "
				   "dimension %d is size %lld", axis,
				   (long long)x->dims[axis]);
	h = x->dims[axis] / 2;
	a = narrow_t(c, x, axis, 0, h);
	b = a ? narrow_t(c, x, axis, h, h) : NULL;
	s = b ? unary_t(c, GPU_SIGMOID, b, float_dt(x->dtype), 0, 0) : NULL;
	y = s ? binary_t(c, GPU_MUL, a, s, float_dt(x->dtype),
			 float_dt(x->dtype)) : NULL;
	gpu_free(a);
	gpu_free(b);
	gpu_free(s);
	return trace_out(c, out, y);
}

static int op_nan_to_num(struct trace_ctx *c, const struct ir_node *n,
			 struct tval **in, int nin, struct tval **out,
			 int nout)
{
	struct gpu_tensor *x, *y, *m, *v, *t;
	double r[3];
	enum ir_dtype dt;
	int i;

	if (tv_get_tensor(c, in[0], 0, &x))
		return -1;
	dt = x->dtype;
	if (!dt_is_float(dt))
		return trace_out(c, out, clone_t(c, x, dt));
	r[0] = 0;
	r[1] = dt == IR_DTYPE_DOUBLE ? 1.7976931348623157e308 :
	       dt == IR_DTYPE_FLOAT16 ? 65504.0 :
	       dt == IR_DTYPE_BFLOAT16 ? 3.3895313892515355e38 :
	       3.4028234663852886e38;
	r[2] = -r[1];
	for (i = 0; i < 3; i++)
		if (nin > i + 1 && !is_none(in[i + 1]) &&
		    get_scalar(c, in[i + 1], &r[i]))
			return -1;
	y = trace_alias(c, x);
	for (i = 0; i < 3 && y; i++) {
		if (i == 0) {
			m = unary_t(c, GPU_ISNAN, y, IR_DTYPE_BOOL, 0, 0);
		} else {
			struct gpu_tensor *isinf = unary_t(c, GPU_ISINF, y,
						       IR_DTYPE_BOOL, 0, 0);
			struct gpu_tensor *z = isinf ?
				fill_t(c, kernel_dt(dt), 0, NULL, 0) : NULL;
			struct gpu_tensor *sgn = z ? binary_t(c, i == 1 ?
				GPU_GT : GPU_LT, y, z, dt, IR_DTYPE_BOOL) :
				NULL;

			m = sgn ? binary_t(c, GPU_LOGICAL_AND, isinf, sgn,
					   IR_DTYPE_BOOL, IR_DTYPE_BOOL) :
				  NULL;
			gpu_free(isinf);
			gpu_free(z);
			gpu_free(sgn);
		}
		v = m ? fill_t(c, dt, 0, NULL, r[i]) : NULL;
		t = v ? where_t(c, m, v, y, dt) : NULL;
		gpu_free(m);
		gpu_free(v);
		gpu_free(y);
		y = t;
	}
	return trace_out(c, out, y);
}

/* --- binary arithmetic, comparisons, logic ------------------------------- */

enum bkind {
	B_ARITH,   /* promoted dtype */
	B_ALPHA,   /* add/sub: alpha scales other */
	B_RSUB,    /* other - alpha * self */
	B_TRUEDIV, /* ints become float; rounding_mode */
	B_FLOAT,   /* float result (atan2) */
	B_CMP,     /* bool result */
	B_LOGICAL, /* bool result, any dtypes */
	B_BITWISE, /* ints and bool */
	B_SHIFT,
};

static const struct binary_desc {
	enum aten_op aten; /* the functional form */
	enum gpu_binary op;
	enum bkind kind;
} binary_ops[] = {
	{ OP_aten_add, GPU_ADD, B_ALPHA }, { OP_aten_sub, GPU_SUB, B_ALPHA },
	{ OP_aten_subtract, GPU_SUB, B_ALPHA },
	{ OP_aten_rsub, GPU_SUB, B_RSUB },
	{ OP_aten_mul, GPU_MUL, B_ARITH },
	{ OP_aten_multiply, GPU_MUL, B_ARITH },
	{ OP_aten_div, GPU_DIV, B_TRUEDIV },
	{ OP_aten_divide, GPU_DIV, B_TRUEDIV },
	{ OP_aten_true_divide, GPU_DIV, B_TRUEDIV },
	{ OP_aten_floor_divide, GPU_FLOOR_DIV, B_ARITH },
	{ OP_aten_remainder, GPU_REMAINDER, B_ARITH },
	{ OP_aten_fmod, GPU_FMOD, B_ARITH },
	{ OP_aten_pow, GPU_POW, B_ARITH },
	{ OP_aten_float_power, GPU_POW, B_FLOAT },
	{ OP_aten_maximum, GPU_MAX, B_ARITH },
	{ OP_aten_minimum, GPU_MIN, B_ARITH },
	{ OP_aten_fmax, GPU_MAX, B_ARITH }, { OP_aten_fmin, GPU_MIN, B_ARITH },
	{ OP_aten_atan2, GPU_ATAN2, B_FLOAT },
	{ OP_aten_arctan2, GPU_ATAN2, B_FLOAT },
	{ OP_aten_eq, GPU_EQ, B_CMP }, { OP_aten_ne, GPU_NE, B_CMP },
	{ OP_aten_lt, GPU_LT, B_CMP }, { OP_aten_le, GPU_LE, B_CMP },
	{ OP_aten_gt, GPU_GT, B_CMP }, { OP_aten_ge, GPU_GE, B_CMP },
	{ OP_aten_not_equal, GPU_NE, B_CMP }, { OP_aten_less, GPU_LT, B_CMP },
	{ OP_aten_less_equal, GPU_LE, B_CMP },
	{ OP_aten_greater, GPU_GT, B_CMP },
	{ OP_aten_greater_equal, GPU_GE, B_CMP },
	{ OP_aten_logical_and, GPU_LOGICAL_AND, B_LOGICAL },
	{ OP_aten_logical_or, GPU_LOGICAL_OR, B_LOGICAL },
	{ OP_aten_logical_xor, GPU_LOGICAL_XOR, B_LOGICAL },
	{ OP_aten_bitwise_and, GPU_BITWISE_AND, B_BITWISE },
	{ OP_aten_bitwise_or, GPU_BITWISE_OR, B_BITWISE },
	{ OP_aten_bitwise_xor, GPU_BITWISE_XOR, B_BITWISE },
	{ OP_aten___and__, GPU_BITWISE_AND, B_BITWISE },
	{ OP_aten___or__, GPU_BITWISE_OR, B_BITWISE },
	{ OP_aten___xor__, GPU_BITWISE_XOR, B_BITWISE },
	{ OP_aten___iand__, GPU_BITWISE_AND, B_BITWISE },
	{ OP_aten___ior__, GPU_BITWISE_OR, B_BITWISE },
	{ OP_aten___ixor__, GPU_BITWISE_XOR, B_BITWISE },
	{ OP_aten___lshift__, GPU_MUL, B_SHIFT },
	{ OP_aten___rshift__, GPU_DIV, B_SHIFT },
	{ OP_aten___ilshift__, GPU_MUL, B_SHIFT },
	{ OP_aten___irshift__, GPU_DIV, B_SHIFT },
	{ OP_aten_bitwise_left_shift, GPU_MUL, B_SHIFT },
	{ OP_aten_bitwise_right_shift, GPU_DIV, B_SHIFT },
	{ OP_NONE, 0, 0 },
};

/* x << s or x >> s: x * 2^s, x / 2^s (floor for ints) */
static struct gpu_tensor *shift_t(struct trace_ctx *c, int left,
				  const struct tval *a, const struct tval *b,
				  enum ir_dtype dt)
{
	struct gpu_tensor *bt, *p, *pw, *y;
	int is_int = !dt_is_float(dt);

	bt = trace_as_tensor(c, b, IR_DTYPE_DOUBLE);
	if (!bt)
		return NULL;
	p = unary_t(c, GPU_RPOW_SCALAR, bt, IR_DTYPE_DOUBLE, 2, 0);
	gpu_free(bt);
	if (!p)
		return NULL;
	pw = cast_t(c, p, dt);
	gpu_free(p);
	if (!pw)
		return NULL;
	{
		struct tval pv = { .kind = TV_TENSOR, .refs = 1,
				   .u.t = pw };

		y = binary_v(c, left ? GPU_MUL :
			     is_int ? GPU_FLOOR_DIV : GPU_DIV, a, &pv, dt,
			     dt);
	}
	gpu_free(pw);
	return y;
}

static int op_binary(struct trace_ctx *c, const struct ir_node *n,
		     struct tval **in, int nin, struct tval **out, int nout)
{
	const struct binary_desc *d;
	enum aten_op key = functional(n->op);
	char buf[64];
	const char *name = op_name(n, buf, sizeof(buf)); /* for messages */
	const struct tval *a, *b;
	struct gpu_tensor *y, *t;
	enum ir_dtype dt;
	double alpha = 1;

	for (d = binary_ops; d->aten != OP_NONE && d->aten != key; d++)
		;
	if (d->aten == OP_NONE || nin < 2)
		return trace_error(c, "no elementwise kernel for %s", n->kind);
	a = in[0];
	b = in[1];
	if (!is_tensor(a) && !is_tensor(b))
		return trace_error(c, "expected a Tensor argument");
	dt = trace_promote(a, b);
	switch (d->kind) {
	case B_ALPHA:
	case B_RSUB:
		if (nin > 2 && !is_none(in[2]) && get_scalar(c, in[2], &alpha))
			return -1;
		if (d->kind == B_RSUB) {
			a = in[1];
			b = in[0];
		}
		if (dt == IR_DTYPE_BOOL && d->op == GPU_SUB)
			return trace_error(c, "subtraction, the `-` operator, "
					   "with two bool tensors is not "
					   "supported");
		if (alpha == 1) {
			if (dt == IR_DTYPE_BOOL)
				return trace_out(c, out, binary_v(c,
					GPU_LOGICAL_OR, a, b, dt, dt));
			return trace_out(c, out, binary_v(c, d->op, a, b, dt,
							dt));
		}
		t = trace_as_tensor(c, b, kernel_dt(dt));
		if (!t)
			return -1;
		{
			struct gpu_tensor *bs = binary_s(c, GPU_MUL, t, alpha,
							 dt, dt);
			struct tval bv = { .kind = TV_TENSOR, .refs = 1 };

			gpu_free(t);
			if (!bs)
				return -1;
			bv.u.t = bs;
			y = binary_v(c, d->op, a, &bv, dt, dt);
			gpu_free(bs);
		}
		return trace_out(c, out, y);
	case B_TRUEDIV:
		if (nin > 2 && in[2] && in[2]->kind == TV_STR) {
			const char *m = in[2]->u.s;

			if (!strcmp(m, "trunc"))
				return trace_out(c, out, binary_v(c,
					GPU_TRUNC_DIV, a, b, dt, dt));
			if (!strcmp(m, "floor"))
				return trace_out(c, out, binary_v(c,
					GPU_FLOOR_DIV, a, b, dt, dt));
			return trace_error(c, "div expected rounding_mode to "
					   "be one of None, 'trunc', or "
					   "'floor' but found '%s'", m);
		}
		dt = float_dt(dt);
		return trace_out(c, out, binary_v(c, GPU_DIV, a, b, dt, dt));
	case B_FLOAT:
		dt = float_dt(dt);
		if (key == OP_aten_float_power)
			dt = IR_DTYPE_DOUBLE;
		return trace_out(c, out, binary_v(c, d->op, a, b, dt, dt));
	case B_CMP:
		return trace_out(c, out, binary_v(c, d->op, a, b, dt,
						IR_DTYPE_BOOL));
	case B_LOGICAL:
		return trace_out(c, out, binary_v(c, d->op, a, b, dt,
						IR_DTYPE_BOOL));
	case B_BITWISE:
		if (dt_is_float(dt))
			return trace_error(c, "\"%s\" not implemented for "
					   "'%s'", name,
					   ir_dtype_torch_name(dt));
		if (dt == IR_DTYPE_BOOL)
			return trace_out(c, out, binary_v(c,
				d->op == GPU_BITWISE_AND ? GPU_LOGICAL_AND :
				d->op == GPU_BITWISE_OR ? GPU_LOGICAL_OR :
				GPU_LOGICAL_XOR, a, b, dt, dt));
		return trace_out(c, out, binary_v(c, d->op, a, b, dt, dt));
	case B_SHIFT:
		return trace_out(c, out, shift_t(c, d->op == GPU_MUL, a, b,
					       dt));
	default:
		if (dt == IR_DTYPE_BOOL) {
			/* bool arithmetic is logic in torch */
			if (d->op == GPU_MUL || d->op == GPU_MIN)
				return trace_out(c, out, binary_v(c,
					GPU_LOGICAL_AND, a, b, dt, dt));
			if (d->op == GPU_MAX)
				return trace_out(c, out, binary_v(c,
					GPU_LOGICAL_OR, a, b, dt, dt));
		}
		if (d->op == GPU_FLOOR_DIV && dt == IR_DTYPE_BOOL)
			dt = IR_DTYPE_INT64;
		return trace_out(c, out, binary_v(c, d->op, a, b, dt, dt));
	}
}

/* aten::max / aten::min: full reduction, elementwise, or along a dim */
static int op_maxmin(struct trace_ctx *c, const struct ir_node *n,
		     struct tval **in, int nin, struct tval **out, int nout)
{
	int is_max = n->op == OP_aten_max;
	struct gpu_tensor *x, *v, *i;
	enum ir_dtype dt;
	int64_t dim;
	int keep = 0, axis;

	if (tv_get_tensor(c, in[0], 0, &x))
		return -1;
	if (nin == 1 || (nin >= 2 && is_none(in[1]) && nout == 1)) {
		if (gpu_numel(x) == 0)
			return trace_error(c, "%s(): Expected reduction dim to "
					   "be specified for input.numel() == "
					   "0", is_max ? "max" : "min");
		return trace_out(c, out, reduce_t(c, is_max ? GPU_RMAX :
						GPU_RMIN, x, x->rank ?
						(1u << x->rank) - 1 : 0, 0, 0,
						x->dtype, x->dtype));
	}
	if (is_tensor(in[1])) {
		dt = trace_promote(in[0], in[1]);
		return trace_out(c, out, binary_v(c, is_max ? GPU_MAX : GPU_MIN,
						in[0], in[1], dt, dt));
	}
	if (tv_get_int(c, in[1], &dim))
		return -1;
	if (nin > 2 && tv_get_bool(c, in[2], &keep))
		return -1;
	if (trace_axis(c, dim, x->rank, &axis))
		return -1;
	v = reduce_t(c, is_max ? GPU_RMAX : GPU_RMIN, x,
		     x->rank ? 1u << axis : 0, keep, 0, x->dtype, x->dtype);
	if (!v)
		return -1;
	i = reduce_t(c, is_max ? GPU_RARGMAX : GPU_RARGMIN, x,
		     x->rank ? 1u << axis : 0, keep, 0, x->dtype,
		     IR_DTYPE_INT64);
	if (!i) {
		gpu_free(v);
		return -1;
	}
	if (trace_out(c, &out[0], v)) {
		gpu_free(i);
		return -1;
	}
	if (nout < 2) {
		gpu_free(i);
		return 0;
	}
	return trace_out(c, &out[1], i);
}

/* clamp family: min/max as scalars, tensors or None */
static int op_clamp(struct trace_ctx *c, const struct ir_node *n,
		    struct tval **in, int nin, struct tval **out, int nout)
{
	enum aten_op key = functional(n->op);
	const struct tval *lo = NULL, *hi = NULL;
	struct gpu_tensor *x, *y, *t;
	enum ir_dtype dt;

	if (tv_get_tensor(c, in[0], 0, &x))
		return -1;
	if (key == OP_aten_clamp_min)
		lo = in[1];
	else if (key == OP_aten_clamp_max)
		hi = in[1];
	else {
		lo = nin > 1 ? in[1] : NULL;
		hi = nin > 2 ? in[2] : NULL;
	}
	if (is_none(lo))
		lo = NULL;
	if (is_none(hi))
		hi = NULL;
	if (!lo && !hi)
		return trace_error(c, "torch.clamp: At least one of 'min' or "
				   "'max' must not be None");
	dt = x->dtype;
	if (lo)
		dt = trace_promote(in[0], lo);
	if (hi) {
		enum ir_dtype d2 = trace_promote(in[0], hi);

		if (lo) {
			/* result_type(self, min, max) */
			struct tval tmp = { .kind = TV_TENSOR, .refs = 1 };
			struct gpu_tensor g = *x;

			g.dtype = dt;
			tmp.u.t = &g;
			d2 = trace_promote(&tmp, hi);
		}
		dt = d2;
	}
	y = cast_t(c, x, dt);
	if (y && lo) {
		struct tval yv = { .kind = TV_TENSOR, .refs = 1, .u.t = y };

		t = binary_v(c, GPU_MAX, &yv, lo, dt, dt);
		gpu_free(y);
		y = t;
	}
	if (y && hi) {
		struct tval yv = { .kind = TV_TENSOR, .refs = 1, .u.t = y };

		t = binary_v(c, GPU_MIN, &yv, hi, dt, dt);
		gpu_free(y);
		y = t;
	}
	return trace_out(c, out, y);
}

static int op_where(struct trace_ctx *c, const struct ir_node *n,
		    struct tval **in, int nin, struct tval **out, int nout);

/* where(cond, a, b) with scalars allowed for a and b */
static int where3(struct trace_ctx *c, struct tval **in, struct tval **out)
{
	struct gpu_tensor *cond, *a = NULL, *b = NULL, *y = NULL;
	enum ir_dtype dt;

	if (tv_get_tensor(c, in[0], 0, &cond))
		return -1;
	if (!is_tensor(in[1]) && !is_tensor(in[2]))
		/* two scalars: the default dtypes of their kinds */
		dt = in[1]->kind == TV_FLOAT || in[2]->kind == TV_FLOAT ?
		     DEFAULT_FLOAT : trace_promote(in[1], in[2]);
	else
		dt = trace_promote(in[1], in[2]);
	a = trace_as_tensor(c, in[1], kernel_dt(dt));
	b = a ? trace_as_tensor(c, in[2], kernel_dt(dt)) : NULL;
	if (b)
		y = where_t(c, cond, a, b, dt);
	gpu_free(a);
	gpu_free(b);
	return trace_out(c, out, y);
}

/* where(cond): the indices of the non-zero elements, one tensor per dim */
static int where1(struct trace_ctx *c, struct gpu_tensor *cond,
		  struct tval **out, int nout)
{
	int64_t numel = gpu_numel(cond), cnt = 0, i, k;
	unsigned char *m = malloc(numel ? numel : 1);
	int64_t *idx = NULL;
	struct tval *l = NULL;
	int rank = cond->rank, rc = -1;

	if (!m)
		return trace_error(c, "out of memory");
	if (gpu_to_host(cond, IR_DTYPE_BOOL, m)) {
		trace_gpu_error(c);
		goto out;
	}
	for (i = 0; i < numel; i++)
		cnt += m[i] != 0;
	idx = malloc(sizeof(*idx) * (cnt ? cnt : 1));
	l = tv_list(TV_LIST);
	if (!idx || !l) {
		trace_error(c, "out of memory");
		goto out;
	}
	for (k = 0; k < (rank ? rank : 1); k++) {
		struct gpu_tensor *t;
		int64_t j = 0;

		for (i = 0; i < numel; i++) {
			int64_t r = i, d, coord = 0;

			if (!m[i])
				continue;
			for (d = rank - 1; d >= 0; d--) {
				if (d == k)
					coord = r % cond->dims[d];
				r /= cond->dims[d];
			}
			idx[j++] = coord;
		}
		t = trace_empty(c, IR_DTYPE_INT64, 1, &cnt);
		if (!t)
			goto out;
		if (cnt && c->be->upload(t->storage->data, idx,
					 sizeof(*idx) * cnt)) {
			gpu_free(t);
			trace_gpu_error(c);
			goto out;
		}
		if (tv_list_push(l, tv_tensor(t))) {
			trace_error(c, "out of memory");
			goto out;
		}
	}
	if (nout == 1) {
		*out = l;
		l = NULL;
	} else {
		for (k = 0; k < nout && k < l->u.list.n; k++)
			out[k] = tv_ref(l->u.list.items[k]);
	}
	rc = 0;
out:
	free(m);
	free(idx);
	tv_unref(l);
	return rc;
}

static int op_where(struct trace_ctx *c, const struct ir_node *n,
		    struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *cond;

	if (nin >= 3)
		return where3(c, in, out);
	if (tv_get_tensor(c, in[0], 0, &cond))
		return -1;
	return where1(c, cond, out, nout);
}

static int op_masked_fill(struct trace_ctx *c, const struct ir_node *n,
			  struct tval **in, int nin, struct tval **out,
			  int nout)
{
	struct gpu_tensor *x, *mask, *v, *y;

	if (tv_get_tensor(c, in[0], 0, &x) ||
	    tv_get_tensor(c, in[1], 0, &mask))
		return -1;
	if (mask->dtype != IR_DTYPE_BOOL)
		return trace_error(c, "masked_fill_ only supports boolean "
				   "masks, but got mask with dtype %s",
				   ir_dtype_torch_name(mask->dtype));
	if (is_tensor(in[2]) && in[2]->u.t->rank != 0)
		return trace_error(c, "masked_fill_ only supports a "
				   "0-dimensional value tensor, but got "
				   "tensor with %d dimension(s).",
				   in[2]->u.t->rank);
	v = trace_as_tensor(c, in[2], kernel_dt(x->dtype));
	if (!v)
		return -1;
	y = where_t(c, mask, v, x, x->dtype);
	gpu_free(v);
	if (y && (y->rank != x->rank ||
		  memcmp(y->dims, x->dims, sizeof(int64_t) * x->rank))) {
		gpu_free(y);
		return trace_error(c, "the mask must be broadcastable to the "
				   "input's shape");
	}
	return trace_out(c, out, y);
}

/* lerp, addcmul, addcdiv */
static int op_ternary(struct trace_ctx *c, const struct ir_node *n,
		      struct tval **in, int nin, struct tval **out, int nout)
{
	enum aten_op key = functional(n->op);
	struct gpu_tensor *s, *t1, *t2, *d = NULL, *m = NULL, *y = NULL;
	enum ir_dtype dt;
	double v = 1;

	if (tv_get_tensor(c, in[0], 0, &s) ||
	    tv_get_tensor(c, in[1], 0, &t1))
		return -1;
	if (key == OP_aten_lerp) {
		/* self + weight * (end - self) */
		dt = trace_promote(in[0], in[1]);
		d = binary_t(c, GPU_SUB, t1, s, dt, dt);
		if (!d)
			return -1;
		{
			struct tval dv = { .kind = TV_TENSOR, .refs = 1,
					   .u.t = d };

			m = binary_v(c, GPU_MUL, &dv, in[2], dt, dt);
		}
		y = m ? binary_t(c, GPU_ADD, s, m, dt, dt) : NULL;
		gpu_free(d);
		gpu_free(m);
		return trace_out(c, out, y);
	}
	if (tv_get_tensor(c, in[2], 0, &t2))
		return -1;
	if (nin > 3 && get_scalar(c, in[3], &v))
		return -1;
	{
		struct tval a = { .kind = TV_TENSOR, .refs = 1, .u.t = s };
		struct tval b = { .kind = TV_TENSOR, .refs = 1, .u.t = t1 };

		dt = trace_promote(&a, &b);
		a.u.t = t2;
		b.u.t = s;
		/* result_type(self, t1, t2) through two steps suffices for
		 * tensors of one kind */
		{
			struct gpu_tensor g = *s;

			g.dtype = dt;
			b.u.t = &g;
			dt = trace_promote(&b, &a);
		}
	}
	if (key == OP_aten_addcdiv) {
		if (!dt_is_float(dt))
			return trace_error(c, "Integer division with addcdiv "
					   "is no longer supported");
		d = binary_t(c, GPU_DIV, t1, t2, dt, dt);
	} else {
		d = binary_t(c, GPU_MUL, t1, t2, dt, dt);
	}
	if (d && v != 1) {
		m = binary_s(c, GPU_MUL, d, v, dt, dt);
		gpu_free(d);
		d = m;
	}
	y = d ? binary_t(c, GPU_ADD, s, d, dt, dt) : NULL;
	gpu_free(d);
	return trace_out(c, out, y);
}

/* --- reductions ----------------------------------------------------------- */

/* sum / mean / prod / amax / amin / logsumexp / all / any */
static int op_reduce(struct trace_ctx *c, const struct ir_node *n,
		     struct tval **in, int nin, struct tval **out, int nout)
{
	enum aten_op key = functional(n->op);
	struct gpu_tensor *x;
	const struct tval *dimv = NULL, *dtv = NULL;
	enum ir_dtype dt, in_dt;
	enum gpu_reduce op;
	uint32_t mask;
	int keep = 0;

	if (tv_get_tensor(c, in[0], 0, &x))
		return -1;
	/* the overloads: (self, dtype?) or (self, dim, keepdim, dtype?) */
	if (nin == 2 && key != OP_aten_all && key != OP_aten_any &&
	    key != OP_aten_amax && key != OP_aten_amin &&
	    key != OP_aten_logsumexp) {
		dtv = in[1];
	} else if (nin >= 2) {
		dimv = in[1];
		if (nin > 2 && tv_get_bool(c, in[2], &keep))
			return -1;
		if (nin > 3)
			dtv = in[3];
	}
	if (key == OP_aten_sum) {
		op = GPU_RSUM;
		dt = dt_is_float(x->dtype) ? x->dtype : IR_DTYPE_INT64;
	} else if (key == OP_aten_mean) {
		op = GPU_RMEAN;
		dt = x->dtype;
	} else if (key == OP_aten_prod) {
		op = GPU_RPROD;
		dt = dt_is_float(x->dtype) ? x->dtype : IR_DTYPE_INT64;
	} else if (key == OP_aten_amax) {
		op = GPU_RMAX;
		dt = x->dtype;
	} else if (key == OP_aten_amin) {
		op = GPU_RMIN;
		dt = x->dtype;
	} else if (key == OP_aten_logsumexp) {
		op = GPU_RLOGSUMEXP;
		dt = float_dt(x->dtype);
	} else if (key == OP_aten_all || key == OP_aten_any) {
		op = key == OP_aten_all ? GPU_RALL : GPU_RANY;
		dt = x->dtype == IR_DTYPE_UINT8 ? IR_DTYPE_UINT8 :
		     IR_DTYPE_BOOL;
		if (nin >= 2 && is_none(in[1]))
			dimv = NULL;
		if (parse_axes(c, dimv, x->rank, &mask))
			return -1;
		return trace_out(c, out, reduce_t(c, op, x, mask, keep, 0,
						x->dtype, dt));
	} else {
		return trace_error(c, "no reduction kernel for %s", n->kind);
	}
	if (tv_get_dtype(c, dtv, dt, &dt))
		return -1;
	if (op == GPU_RMEAN && !dt_is_float(dt))
		return trace_error(c, "mean(): could not infer output dtype. "
				   "Input dtype must be either a floating "
				   "point or complex dtype. Got: %s",
				   ir_dtype_torch_name(dt));
	if (parse_axes(c, dimv, x->rank, &mask))
		return -1;
	in_dt = op == GPU_RMAX || op == GPU_RMIN ? x->dtype : dt;
	return trace_out(c, out, reduce_t(c, op, x, mask, keep, 0, in_dt, dt));
}

static int op_argmaxmin(struct trace_ctx *c, const struct ir_node *n,
			struct tval **in, int nin, struct tval **out,
			int nout)
{
	int is_max = n->op == OP_aten_argmax;
	enum gpu_reduce op = is_max ? GPU_RARGMAX : GPU_RARGMIN;
	struct gpu_tensor *x, *f, *y, *v;
	int64_t dim, ones[GPU_MAX_DIMS], st[GPU_MAX_DIMS];
	int keep = 0, axis, i;

	if (tv_get_tensor(c, in[0], 0, &x))
		return -1;
	if (nin > 2 && tv_get_bool(c, in[2], &keep))
		return -1;
	if (nin > 1 && !is_none(in[1])) {
		if (tv_get_int(c, in[1], &dim) ||
		    trace_axis(c, dim, x->rank, &axis))
			return -1;
		return trace_out(c, out, reduce_t(c, op, x, x->rank ?
						1u << axis : 0, keep, 0,
						x->dtype, IR_DTYPE_INT64));
	}
	f = flatten_t(c, x);
	if (!f)
		return -1;
	y = reduce_t(c, op, f, 1, 0, 0, x->dtype, IR_DTYPE_INT64);
	gpu_free(f);
	if (!y || !keep)
		return trace_out(c, out, y);
	for (i = 0; i < x->rank; i++) {
		ones[i] = 1;
		st[i] = 1;
	}
	v = gpu_view(y, x->rank, ones, st, y->offset);
	gpu_free(y);
	if (!v)
		trace_gpu_error(c);
	return trace_out(c, out, v);
}

static int op_aminmax(struct trace_ctx *c, const struct ir_node *n,
		      struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x, *lo, *hi;
	uint32_t mask;
	int keep = 0;

	if (tv_get_tensor(c, in[0], 0, &x))
		return -1;
	if (nin > 2 && tv_get_bool(c, in[2], &keep))
		return -1;
	if (parse_axes(c, nin > 1 ? in[1] : NULL, x->rank, &mask))
		return -1;
	lo = reduce_t(c, GPU_RMIN, x, mask, keep, 0, x->dtype, x->dtype);
	if (!lo)
		return -1;
	hi = reduce_t(c, GPU_RMAX, x, mask, keep, 0, x->dtype, x->dtype);
	if (trace_out(c, &out[0], lo)) {
		gpu_free(hi);
		return -1;
	}
	if (nout < 2) {
		gpu_free(hi);
		return 0;
	}
	return trace_out(c, &out[1], hi);
}

/* std, var, std_mean, var_mean */
static int op_var(struct trace_ctx *c, const struct ir_node *n,
		  struct tval **in, int nin, struct tval **out, int nout)
{
	int is_std = n->op == OP_aten_std || n->op == OP_aten_std_mean;
	int with_mean = n->op == OP_aten_std_mean ||
			n->op == OP_aten_var_mean;
	struct gpu_tensor *x, *v, *m = NULL;
	const struct tval *dimv = NULL;
	double corr = 1;
	uint32_t mask;
	enum ir_dtype dt;
	int keep = 0, unb;

	if (tv_get_tensor(c, in[0], 0, &x))
		return -1;
	if (!dt_is_float(x->dtype))
		return trace_error(c, "std and var only support floating "
				   "point and complex dtypes");
	dt = x->dtype;
	if (nin == 2) {
		if (tv_get_bool(c, in[1], &unb))
			return -1;
		corr = unb;
	} else if (nin >= 4) {
		dimv = in[1];
		if (in[2] && in[2]->kind == TV_BOOL) {
			corr = in[2]->u.i;
		} else if (!is_none(in[2])) {
			if (get_scalar(c, in[2], &corr))
				return -1;
		}
		if (tv_get_bool(c, in[3], &keep))
			return -1;
	}
	if (parse_axes(c, dimv, x->rank, &mask))
		return -1;
	v = reduce_t(c, GPU_RVAR, x, mask, keep, corr, dt, dt);
	if (v && is_std) {
		struct gpu_tensor *s = unary_t(c, GPU_SQRT, v, dt, 0, 0);

		gpu_free(v);
		v = s;
	}
	if (!v)
		return -1;
	if (with_mean) {
		m = reduce_t(c, GPU_RMEAN, x, mask, keep, 0, dt, dt);
		if (!m) {
			gpu_free(v);
			return -1;
		}
	}
	if (trace_out(c, &out[0], v)) {
		gpu_free(m);
		return -1;
	}
	if (with_mean && nout > 1)
		return trace_out(c, &out[1], m);
	gpu_free(m);
	return 0;
}

/* p-norm of x over mask, computed in dt */
static struct gpu_tensor *pnorm_t(struct trace_ctx *c, struct gpu_tensor *x,
				  double p, uint32_t mask, int keep,
				  enum ir_dtype dt)
{
	struct gpu_tensor *a, *b, *y;

	if (p == 2)
		return reduce_t(c, GPU_RL2, x, mask, keep, 0, dt, dt);
	if (p == 1)
		return reduce_t(c, GPU_RL1, x, mask, keep, 0, dt, dt);
	a = unary_t(c, GPU_ABS, x, dt, 0, 0);
	if (!a)
		return NULL;
	if (isinf(p)) {
		y = reduce_t(c, p > 0 ? GPU_RMAX : GPU_RMIN, a, mask, keep, 0,
			     dt, dt);
		gpu_free(a);
		return y;
	}
	if (p == 0) {
		b = binary_s(c, GPU_NE, a, 0, dt, dt);
		y = b ? reduce_t(c, GPU_RSUM, b, mask, keep, 0, dt, dt) : NULL;
		gpu_free(a);
		gpu_free(b);
		return y;
	}
	b = unary_t(c, GPU_POW_SCALAR, a, dt, p, 0);
	gpu_free(a);
	a = b ? reduce_t(c, GPU_RSUM, b, mask, keep, 0, dt, dt) : NULL;
	gpu_free(b);
	y = a ? unary_t(c, GPU_POW_SCALAR, a, dt, 1.0 / p, 0) : NULL;
	gpu_free(a);
	return y;
}

/* norm, frobenius_norm, linalg_vector_norm */
static int op_norm(struct trace_ctx *c, const struct ir_node *n,
		   struct tval **in, int nin, struct tval **out, int nout)
{
	enum aten_op key = functional(n->op);
	char buf[64];
	struct gpu_tensor *x;
	const struct tval *dimv = NULL, *dtv = NULL;
	double p = 2;
	uint32_t mask;
	enum ir_dtype dt;
	int keep = 0;

	if (tv_get_tensor(c, in[0], 0, &x))
		return -1;
	if (key == OP_aten_frobenius_norm) {
		if (nin > 1)
			dimv = in[1];
		if (nin > 2 && tv_get_bool(c, in[2], &keep))
			return -1;
	} else if (key == OP_aten_linalg_vector_norm) {
		if (get_scalar(c, in[1], &p))
			return -1;
		if (nin > 2)
			dimv = in[2];
		if (nin > 3 && tv_get_bool(c, in[3], &keep))
			return -1;
		if (nin > 4)
			dtv = in[4];
	} else {
		if (nin > 1 && !is_none(in[1]) && get_scalar(c, in[1], &p))
			return -1;
		if (nin == 3) {
			dtv = in[2];
		} else if (nin >= 4) {
			dimv = in[2];
			if (tv_get_bool(c, in[3], &keep))
				return -1;
			if (nin > 4)
				dtv = in[4];
		}
	}
	if (!dt_is_float(x->dtype))
		return trace_error(c, "%s: expected a floating point input, "
				   "got %s", op_name(n, buf, sizeof(buf)),
				   ir_dtype_torch_name(x->dtype));
	if (tv_get_dtype(c, dtv, x->dtype, &dt))
		return -1;
	if (parse_axes(c, dimv, x->rank, &mask))
		return -1;
	return trace_out(c, out, pnorm_t(c, x, p, mask, keep, dt));
}

static int op_cumulative(struct trace_ctx *c, const struct ir_node *n,
			 struct tval **in, int nin, struct tval **out,
			 int nout)
{
	int prod = functional(n->op) == OP_aten_cumprod;
	struct gpu_tensor *x, *xin, *y;
	enum ir_dtype dt;
	int64_t dim;
	int axis;

	if (tv_get_tensor(c, in[0], 0, &x) || tv_get_int(c, in[1], &dim))
		return -1;
	if (tv_get_dtype(c, nin > 2 ? in[2] : NULL, dt_is_float(x->dtype) ?
			 x->dtype : IR_DTYPE_INT64, &dt))
		return -1;
	if (trace_axis(c, dim, x->rank, &axis))
		return -1;
	if (x->rank == 0)
		return trace_out(c, out, clone_t(c, x, dt));
	xin = cast_t(c, x, kernel_dt(dt));
	if (!xin)
		return -1;
	y = trace_empty(c, kernel_dt(dt), x->rank, x->dims);
	if (y && c->be->cumulative(xin, axis, prod, 0, y)) {
		gpu_free(y);
		y = NULL;
		trace_gpu_error(c);
	}
	gpu_free(xin);
	if (y && recast(c, &y, dt))
		y = NULL;
	return trace_out(c, out, y);
}

static int op_count_nonzero(struct trace_ctx *c, const struct ir_node *n,
			    struct tval **in, int nin, struct tval **out,
			    int nout)
{
	struct gpu_tensor *x, *nz, *y;
	uint32_t mask;

	if (tv_get_tensor(c, in[0], 0, &x))
		return -1;
	if (parse_axes(c, nin > 1 ? in[1] : NULL, x->rank, &mask))
		return -1;
	nz = binary_s(c, GPU_NE, x, 0, x->dtype == IR_DTYPE_BOOL ?
		      IR_DTYPE_UINT8 : x->dtype, IR_DTYPE_INT64);
	if (!nz)
		return -1;
	y = reduce_t(c, GPU_RSUM, nz, mask, 0, 0, IR_DTYPE_INT64,
		     IR_DTYPE_INT64);
	gpu_free(nz);
	return trace_out(c, out, y);
}

/* --- creation --------------------------------------------------------------- */

/* a size argument (int list, or one int) */
static int get_size(struct trace_ctx *c, const struct tval *v, int *rank,
		    int64_t *dims)
{
	int i;

	if (v && (v->kind == TV_INT || v->kind == TV_BOOL)) {
		dims[0] = v->u.i;
		*rank = 1;
	} else if (tv_get_ints(c, v, dims, GPU_MAX_DIMS, rank)) {
		return -1;
	}
	for (i = 0; i < *rank; i++)
		if (dims[i] < 0)
			return trace_error(c, "Trying to create tensor with "
					   "negative dimension %lld",
					   (long long)dims[i]);
	return 0;
}

/* the dtype a fill value gives when none is named (torch.full) */
static enum ir_dtype scalar_dt(const struct tval *v)
{
	if (v && v->kind == TV_BOOL)
		return IR_DTYPE_BOOL;
	if (v && v->kind == TV_INT)
		return IR_DTYPE_INT64;
	if (v && v->kind == TV_TENSOR)
		return v->u.t->dtype;
	return DEFAULT_FLOAT;
}

/* a tensor of dims filled with v (exact for ints) */
static struct gpu_tensor *full_t(struct trace_ctx *c, const struct tval *v,
				 enum ir_dtype dt, int rank,
				 const int64_t *dims)
{
	struct gpu_tensor *s, *e, *y;

	if (v->kind == TV_FLOAT)
		return fill_t(c, dt, rank, dims, v->u.f);
	s = trace_as_tensor(c, v, dt);
	if (!s)
		return NULL;
	e = trace_expand(s, rank, dims);
	gpu_free(s);
	if (!e) {
		trace_gpu_error(c);
		return NULL;
	}
	y = clone_t(c, e, dt);
	gpu_free(e);
	return y;
}

/* zeros ones full empty; the _like and new_ forms */
static int op_full(struct trace_ctx *c, const struct ir_node *n,
		   struct tval **in, int nin, struct tval **out, int nout)
{
	enum aten_op op = n->op;
	int like = op == OP_aten_zeros_like || op == OP_aten_ones_like ||
		   op == OP_aten_full_like || op == OP_aten_empty_like;
	int isnew = op == OP_aten_new_zeros || op == OP_aten_new_ones ||
		    op == OP_aten_new_full || op == OP_aten_new_empty;
	struct gpu_tensor *self = NULL;
	const struct tval *fillv = NULL;
	struct tval *tmp = NULL;
	int64_t dims[GPU_MAX_DIMS];
	int rank, ai = 0, rc;
	enum ir_dtype dt = DEFAULT_FLOAT;

	if (like || isnew) {
		if (tv_get_tensor(c, in[0], 0, &self))
			return -1;
		dt = self->dtype;
		rank = self->rank;
		memcpy(dims, self->dims, sizeof(dims));
		ai = 1;
	}
	if (!like) {
		if (get_size(c, in[ai], &rank, dims))
			return -1;
		ai++;
	}
	if (op == OP_aten_full || op == OP_aten_full_like ||
	    op == OP_aten_new_full) {
		fillv = in[ai++];
		if (!like && !isnew)
			dt = scalar_dt(fillv);
	} else if (op == OP_aten_ones || op == OP_aten_ones_like ||
		   op == OP_aten_new_ones) {
		fillv = tmp = tv_int(1);
	} else {
		fillv = tmp = tv_int(0);
	}
	if (!fillv) {
		return trace_error(c, "out of memory");
	}
	if (ai < nin && tv_get_dtype(c, in[ai], dt, &dt)) {
		tv_unref(tmp);
		return -1;
	}
	rc = trace_out(c, out, full_t(c, fillv, dt, rank, dims));
	tv_unref(tmp);
	return rc;
}

static int op_scalar_tensor(struct trace_ctx *c, const struct ir_node *n,
			    struct tval **in, int nin, struct tval **out,
			    int nout)
{
	enum ir_dtype dt = DEFAULT_FLOAT;

	if (!is_number(in[0]) && !is_tensor(in[0]))
		return trace_error(c, "expected a number");
	if (nin > 1 && tv_get_dtype(c, in[1], dt, &dt))
		return -1;
	return trace_out(c, out, full_t(c, in[0], dt, 0, NULL));
}

/* nested lists of numbers: shape, then values */
static int list_shape(struct trace_ctx *c, const struct tval *v, int *rank,
		      int64_t *dims, enum ir_dtype *dt)
{
	int r = 0;

	*dt = IR_DTYPE_BOOL;
	while (v && (v->kind == TV_LIST || v->kind == TV_TUPLE)) {
		if (r == GPU_MAX_DIMS)
			return trace_error(c, "list nested too deep");
		dims[r++] = v->u.list.n;
		v = v->u.list.n ? v->u.list.items[0] : NULL;
	}
	*rank = r;
	return 0;
}

static int list_values(struct trace_ctx *c, const struct tval *v, int depth,
		       int rank, const int64_t *dims, double *fv, int64_t *iv,
		       int64_t *k, enum ir_dtype *dt)
{
	int i;

	if (depth == rank) {
		if (v && v->kind == TV_TENSOR && gpu_numel(v->u.t) == 1) {
			enum ir_dtype tdt = v->u.t->dtype;

			fv[*k] = gpu_item_double(v->u.t, 0);
			iv[*k] = dt_is_float(tdt) ? (int64_t)fv[*k] :
				 gpu_item_int(v->u.t, 0);
			if (dt_is_float(tdt))
				*dt = DEFAULT_FLOAT;
			else if (tdt != IR_DTYPE_BOOL && *dt == IR_DTYPE_BOOL)
				*dt = IR_DTYPE_INT64;
		} else if (v && v->kind == TV_FLOAT) {
			fv[*k] = v->u.f;
			iv[*k] = (int64_t)v->u.f;
			*dt = DEFAULT_FLOAT;
		} else if (v && (v->kind == TV_INT || v->kind == TV_BOOL)) {
			fv[*k] = (double)v->u.i;
			iv[*k] = v->u.i;
			if (v->kind == TV_INT && *dt == IR_DTYPE_BOOL)
				*dt = IR_DTYPE_INT64;
		} else {
			return trace_error(c, "tensor(): expected numbers in "
					   "the list");
		}
		(*k)++;
		return 0;
	}
	if (!v || (v->kind != TV_LIST && v->kind != TV_TUPLE) ||
	    v->u.list.n != dims[depth])
		return trace_error(c, "tensor(): expected sequence of length "
				   "%lld at dim %d", (long long)dims[depth],
				   depth);
	for (i = 0; i < v->u.list.n; i++)
		if (list_values(c, v->u.list.items[i], depth + 1, rank, dims,
				fv, iv, k, dt))
			return -1;
	return 0;
}

/* tensor(data), as_tensor(data) */
static int op_tensor(struct trace_ctx *c, const struct ir_node *n,
		     struct tval **in, int nin, struct tval **out, int nout)
{
	int64_t dims[GPU_MAX_DIMS], numel = 1, k = 0;
	enum ir_dtype dt, want;
	double *fv;
	int64_t *iv;
	int rank = 0, i;
	struct gpu_tensor *y;

	if (is_tensor(in[0])) {
		/* as_tensor(Tensor): the same tensor unless a cast */
		if (tv_get_dtype(c, nin > 1 ? in[1] : NULL, in[0]->u.t->dtype,
				 &want))
			return -1;
		return trace_out(c, out, cast_t(c, in[0]->u.t, want));
	}
	if (list_shape(c, in[0], &rank, dims, &dt))
		return -1;
	for (i = 0; i < rank; i++)
		numel *= dims[i];
	fv = malloc(sizeof(*fv) * (numel ? numel : 1));
	iv = malloc(sizeof(*iv) * (numel ? numel : 1));
	if (!fv || !iv) {
		free(fv);
		free(iv);
		return trace_error(c, "out of memory");
	}
	if (list_values(c, in[0], 0, rank, dims, fv, iv, &k, &dt)) {
		free(fv);
		free(iv);
		return -1;
	}
	if (numel == 0)
		dt = DEFAULT_FLOAT;
	if (tv_get_dtype(c, nin > 1 ? in[1] : NULL, dt, &want)) {
		free(fv);
		free(iv);
		return -1;
	}
	y = dt == DEFAULT_FLOAT ? trace_from_host(c, want, rank, dims,
						  IR_DTYPE_DOUBLE, fv) :
	    trace_from_host(c, want, rank, dims, IR_DTYPE_INT64, iv);
	free(fv);
	free(iv);
	return trace_out(c, out, y);
}

static int op_arange(struct trace_ctx *c, const struct ir_node *n,
		     struct tval **in, int nin, struct tval **out, int nout)
{
	double v[3] = { 0, 0, 1 };
	int nv, i, any_float = 0;
	int64_t len;
	enum ir_dtype dt;
	struct gpu_tensor *y;
	/* arange.out(end, out) and arange.start_out(start, end, step, out):
	 * the result has out's dtype */
	const struct gpu_tensor *outt = (nin == 2 || nin == 4) &&
		is_tensor(in[nin - 1]) ? in[nin - 1]->u.t : NULL;

	/* (end, dtype, layout, device, pin): 5 inputs; (start, end, ...): 6;
	 * (start, end, step, ...): 7 */
	nv = nin >= 7 ? 3 : nin == 6 ? 2 : nin == 5 ? 1 : nin >= 3 ? 3 :
	     nin;
	if (outt)
		nv = nin - 1;
	else if (nin < 5) {
		/* the out= or short forms: count leading numbers */
		for (nv = 0; nv < nin && nv < 3 && (is_number(in[nv]) ||
						    is_tensor(in[nv])); nv++)
			;
	}
	if (nv < 1)
		return trace_error(c, "arange needs an end");
	for (i = 0; i < nv; i++) {
		double x;

		if (get_scalar(c, in[i], &x))
			return -1;
		if (in[i]->kind == TV_FLOAT || (is_tensor(in[i]) &&
						dt_is_float(in[i]->u.t->dtype)))
			any_float = 1;
		v[nv == 1 ? 1 : i] = x;
	}
	dt = outt ? outt->dtype : any_float ? DEFAULT_FLOAT : IR_DTYPE_INT64;
	if (!outt && nv < nin && tv_get_dtype(c, in[nv], dt, &dt))
		return -1;
	/* an integral result: torch casts start, end and step to int64
	 * first (arange(8.5, dtype=int64) has 8 elements) */
	for (i = 0; i < 3 && dt_is_int(dt); i++) {
		if (!(fabs(v[i]) < 9.2e18))
			return trace_error(c, "arange bound out of int64 range");
		v[i] = trunc(v[i]);
	}
	if (v[2] == 0)
		return trace_error(c, "step must be nonzero");
	if ((v[2] > 0 && v[1] < v[0]) || (v[2] < 0 && v[1] > v[0]))
		return trace_error(c, "upper bound and larger bound "
				   "inconsistent with step sign");
	len = (int64_t)ceil((v[1] - v[0]) / v[2]);
	if (dt_is_int(dt)) {
		/* integral: exact */
		int64_t s = (int64_t)v[0], st = (int64_t)v[2], *iv, k;

		iv = malloc(sizeof(*iv) * (len ? len : 1));
		if (!iv)
			return trace_error(c, "out of memory");
		for (k = 0; k < len; k++)
			iv[k] = s + k * st;
		y = trace_from_host(c, dt, 1, &len, IR_DTYPE_INT64, iv);
		free(iv);
		return trace_out(c, out, y);
	}
	y = trace_empty(c, kernel_dt(dt), 1, &len);
	if (y && len && c->be->arange(y, v[0], v[2])) {
		gpu_free(y);
		trace_gpu_error(c);
		return -1;
	}
	if (y && recast(c, &y, dt))
		return -1;
	return trace_out(c, out, y);
}

/* linspace(start, end, steps, dtype, ...) and logspace(start, end,
 * steps, base=10.0, dtype, ...): base ** linspace's values (torch's
 * logspace kernel computes the exponents in double and rounds the
 * power) */
static int op_linspace(struct trace_ctx *c, const struct ir_node *n,
		       struct tval **in, int nin, struct tval **out, int nout)
{
	double a, b, step, *v, base = 10;
	int64_t steps, i;
	enum ir_dtype dt = DEFAULT_FLOAT;
	struct gpu_tensor *y;
	int lg = n->op == OP_aten_logspace, idt = lg ? 4 : 3;

	if (get_scalar(c, in[0], &a) || get_scalar(c, in[1], &b) ||
	    tv_get_int(c, in[2], &steps) ||
	    (lg && nin > 3 && get_scalar(c, in[3], &base)))
		return -1;
	if (steps < 0)
		return trace_error(c, "number of steps must be non-negative");
	if (nin > idt && tv_get_dtype(c, in[idt], dt, &dt))
		return -1;
	if (lg && dt != IR_DTYPE_FLOAT && dt != IR_DTYPE_DOUBLE) {
		/* logspace takes start and end in the output's dtype */
		a = trunc(a);
		b = trunc(b);
	}
	v = malloc(sizeof(*v) * (steps ? steps : 1));
	if (!v)
		return trace_error(c, "out of memory");
	/* torch's symmetric formula (one step: start): from the start for the first half,
	 * from the end for the second */
	step = steps > 1 ? (b - a) / (double)(steps - 1) : 0;
	for (i = 0; i < steps; i++)
		v[i] = i < (steps == 1 ? 1 : steps / 2) ? a + step * (double)i :
		       b - step * (double)(steps - i - 1);
	if (dt == IR_DTYPE_FLOAT) {
		/* computed in float as torch does for float outputs */
		float fa = (float)a, fb = (float)b, fs = steps > 1 ?
			   (fb - fa) / (float)(steps - 1) : 0;

		for (i = 0; i < steps; i++)
			v[i] = i < (steps == 1 ? 1 : steps / 2) ? fa + fs * (float)i :
			       fb - fs * (float)(steps - i - 1);
	}
	for (i = 0; lg && i < steps; i++)
		v[i] = pow(base, v[i]);
	y = trace_from_host(c, dt, 1, &steps, IR_DTYPE_DOUBLE, v);
	free(v);
	return trace_out(c, out, y);
}

static int op_eye(struct trace_ctx *c, const struct ir_node *n,
		  struct tval **in, int nin, struct tval **out, int nout)
{
	int64_t rows, cols, dims[2], i;
	enum ir_dtype dt = DEFAULT_FLOAT;
	const struct tval *dtv = NULL;
	double *v;
	struct gpu_tensor *y;

	if (tv_get_int(c, in[0], &rows))
		return -1;
	cols = rows;
	if (nin >= 6 || (nin >= 2 && in[1]->kind == TV_INT && nin != 5)) {
		if (tv_get_int(c, in[1], &cols))
			return -1;
		dtv = nin > 2 ? in[2] : NULL;
	} else {
		dtv = nin > 1 ? in[1] : NULL;
	}
	if (rows < 0 || cols < 0)
		return trace_error(c, "n and m must be non-negative");
	if (tv_get_dtype(c, dtv, dt, &dt))
		return -1;
	dims[0] = rows;
	dims[1] = cols;
	/* n x m doubles on the host: refused past the tensor limit before
	 * the product can overflow */
	if (cols && (uint64_t)rows > LIMIT_TRACE_TENSOR_BYTES / sizeof(*v) /
				      (uint64_t)cols)
		return trace_error(c, "eye(%lld, %lld): over the limit of "
				   "%llu bytes for a tensor", (long long)rows,
				   (long long)cols, (unsigned long long)
				   LIMIT_TRACE_TENSOR_BYTES);
	v = calloc(rows > 0 && cols > 0 ? (size_t)(rows * cols) : 1,
		   sizeof(*v));
	if (!v)
		return trace_error(c, "out of memory");
	for (i = 0; i < rows && i < cols; i++)
		v[i * cols + i] = 1;
	y = trace_from_host(c, dt, 2, dims, IR_DTYPE_DOUBLE, v);
	free(v);
	return trace_out(c, out, y);
}

/* --- random numbers (deterministic from the trace seed) ------------------ */

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* a stream for this node: the seed, the node's output name, and a step
 * of the context's seed so that repeated calls differ */
static uint64_t rng_state(struct trace_ctx *c, const struct ir_node *n)
{
	uint64_t h = 1469598103934665603ull;
	const char *p = n->noutputs && n->outputs[0] ? n->outputs[0]->name :
			n->kind;

	for (; p && *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
	h ^= c->seed;
	c->seed = splitmix(&c->seed);
	return h;
}

static double uniform01(uint64_t *s)
{
	return (double)(splitmix(s) >> 11) * (1.0 / 9007199254740992.0);
}

static double normal01(uint64_t *s)
{
	double u1 = uniform01(s), u2 = uniform01(s);

	if (u1 < 1e-300)
		u1 = 1e-300;
	return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

/* rand randn rand_like randn_like randint randint_like */
static int op_random(struct trace_ctx *c, const struct ir_node *n,
		     struct tval **in, int nin, struct tval **out, int nout)
{
	int like = n->op == OP_aten_rand_like || n->op == OP_aten_randn_like ||
		   n->op == OP_aten_randint_like;
	int normal = n->op == OP_aten_randn || n->op == OP_aten_randn_like;
	int isint = n->op == OP_aten_randint || n->op == OP_aten_randint_like;
	int64_t dims[GPU_MAX_DIMS], numel = 1, i, lo = 0, hi = 0;
	int rank = 0, ai = 0;
	enum ir_dtype dt = isint ? IR_DTYPE_INT64 : DEFAULT_FLOAT;
	uint64_t s;
	double *v;
	struct gpu_tensor *y, *self;

	if (like) {
		if (tv_get_tensor(c, in[0], 0, &self))
			return -1;
		rank = self->rank;
		memcpy(dims, self->dims, sizeof(dims));
		dt = self->dtype;
		ai = 1;
	}
	if (isint) {
		/* (high, size...) or (low, high, size...) */
		if (tv_get_int(c, in[ai], &hi))
			return -1;
		ai++;
		if (ai < nin && in[ai] && in[ai]->kind == TV_INT) {
			lo = hi;
			if (tv_get_int(c, in[ai], &hi))
				return -1;
			ai++;
		}
		if (lo >= hi)
			return trace_error(c, "random_ expects 'from' to be "
					   "less than 'to', but got from=%lld "
					   ">= to=%lld", (long long)lo,
					   (long long)hi);
	}
	if (!like) {
		if (get_size(c, in[ai], &rank, dims))
			return -1;
		ai++;
	}
	/* an optional generator comes before dtype in the .generator
	 * overloads: skip a None there when more arguments follow */
	if (ai < nin && is_none(in[ai]) && nin - ai >= 5 + like)
		ai++;
	if (ai < nin && tv_get_dtype(c, in[ai], dt, &dt))
		return -1;
	for (i = 0; i < rank; i++)
		numel *= dims[i];
	v = malloc(sizeof(*v) * (numel ? numel : 1));
	if (!v)
		return trace_error(c, "out of memory");
	s = rng_state(c, n);
	for (i = 0; i < numel; i++)
		v[i] = isint ? (double)(lo + (int64_t)(splitmix(&s) %
						       (uint64_t)(hi - lo))) :
		       normal ? normal01(&s) : uniform01(&s);
	y = trace_from_host(c, dt, rank, dims, IR_DTYPE_DOUBLE, v);
	free(v);
	return trace_out(c, out, y);
}

/* uniform(self, from=0, to=1, generator=None) (uniform_ functionalized):
 * draws in [from, to) of self's shape and float dtype */
static int op_uniform(struct trace_ctx *c, const struct ir_node *n,
		      struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x, *y;
	double lo = 0, hi = 1, *v;
	int64_t numel = 1;
	uint64_t s;

	if (tv_get_tensor(c, in[0], 0, &x) ||
	    (nin > 1 && tv_get_float(c, in[1], &lo)) ||
	    (nin > 2 && tv_get_float(c, in[2], &hi)))
		return -1;
	if (x->dtype != IR_DTYPE_FLOAT && x->dtype != IR_DTYPE_DOUBLE &&
	    x->dtype != IR_DTYPE_FLOAT16 && x->dtype != IR_DTYPE_BFLOAT16)
		return trace_error(c, "uniform: a tensor of a float dtype is needed");
	if (!(lo <= hi))
		return trace_error(c, "uniform_ expects to return a [from, to) "
				   "range, but found from=%g > to=%g", lo, hi);
	for (int i = 0; i < x->rank; i++)
		numel *= x->dims[i];
	v = malloc(sizeof(*v) * (size_t)(numel ? numel : 1));
	if (!v)
		return trace_error(c, "out of memory");
	s = rng_state(c, n);
	for (int64_t i = 0; i < numel; i++)
		v[i] = lo + (hi - lo) * uniform01(&s);
	y = trace_from_host(c, x->dtype, x->rank, x->dims, IR_DTYPE_DOUBLE, v);
	free(v);
	return trace_out(c, out, y);
}

/* bernoulli(self) / bernoulli(self, p) / bernoulli_(self, p) */
static int op_bernoulli(struct trace_ctx *c, const struct ir_node *n,
			struct tval **in, int nin, struct tval **out,
			int nout)
{
	struct gpu_tensor *x, *p = NULL, *y;
	int64_t numel, i;
	double *pv, pconst = -1;
	uint64_t s;

	if (tv_get_tensor(c, in[0], 0, &x))
		return -1;
	if (nin > 1 && is_tensor(in[1]))
		p = in[1]->u.t;
	else if (nin > 1 && is_number(in[1]) && get_scalar(c, in[1], &pconst))
		return -1;
	if (!p && pconst < 0)
		p = x;
	numel = gpu_numel(x);
	pv = malloc(sizeof(*pv) * (numel ? numel : 1));
	if (!pv)
		return trace_error(c, "out of memory");
	if (p) {
		struct gpu_tensor *pe = trace_expand(p, x->rank, x->dims);

		if (!pe || gpu_to_host(pe, IR_DTYPE_DOUBLE, pv)) {
			gpu_free(pe);
			free(pv);
			return trace_gpu_error(c);
		}
		gpu_free(pe);
	}
	s = rng_state(c, n);
	for (i = 0; i < numel; i++)
		pv[i] = uniform01(&s) < (p ? pv[i] : pconst) ? 1 : 0;
	y = trace_from_host(c, x->dtype, x->rank, x->dims, IR_DTYPE_DOUBLE, pv);
	free(pv);
	return trace_out(c, out, y);
}

/* normal(mean, std) in its forms, normal_(self, mean, std) */
static int op_normal(struct trace_ctx *c, const struct ir_node *n,
		     struct tval **in, int nin, struct tval **out, int nout)
{
	int inplace = trace_inplace(n);
	struct gpu_tensor *mt = NULL, *st = NULL, *me = NULL, *se = NULL, *y;
	double mean = 0, sd = 1, *v = NULL, *mv = NULL, *sv = NULL;
	int64_t dims[GPU_MAX_DIMS], numel = 1, i;
	int rank = 0, k, rc = -1;
	enum ir_dtype dt = DEFAULT_FLOAT;
	uint64_t s;

	if (inplace) {
		struct gpu_tensor *x;

		if (tv_get_tensor(c, in[0], 0, &x))
			return -1;
		rank = x->rank;
		memcpy(dims, x->dims, sizeof(dims));
		dt = x->dtype;
		if ((nin > 1 && get_scalar(c, in[1], &mean)) ||
		    (nin > 2 && get_scalar(c, in[2], &sd)))
			return -1;
	} else {
		if (is_tensor(in[0]))
			mt = in[0]->u.t;
		else if (get_scalar(c, in[0], &mean))
			return -1;
		if (is_tensor(in[1]))
			st = in[1]->u.t;
		else if (get_scalar(c, in[1], &sd))
			return -1;
		if (!mt && !st) {
			if (get_size(c, in[2], &rank, dims))
				return -1;
			if (nin > 4 && tv_get_dtype(c, in[4], dt, &dt))
				return -1;
		} else {
			struct gpu_tensor e = { 0 };

			if (mt && st) {
				if (trace_broadcast_dims(c, mt, st, &rank,
							 dims))
					return -1;
			} else {
				e = mt ? *mt : *st;
				rank = e.rank;
				memcpy(dims, e.dims, sizeof(dims));
			}
			dt = mt ? mt->dtype : st->dtype;
		}
	}
	for (k = 0; k < rank; k++)
		numel *= dims[k];
	v = malloc(sizeof(*v) * (numel ? numel : 1));
	mv = malloc(sizeof(*mv) * (numel ? numel : 1));
	sv = malloc(sizeof(*sv) * (numel ? numel : 1));
	if (!v || !mv || !sv) {
		trace_error(c, "out of memory");
		goto out;
	}
	if (mt) {
		me = trace_expand(mt, rank, dims);
		if (!me || gpu_to_host(me, IR_DTYPE_DOUBLE, mv)) {
			trace_gpu_error(c);
			goto out;
		}
	}
	if (st) {
		se = trace_expand(st, rank, dims);
		if (!se || gpu_to_host(se, IR_DTYPE_DOUBLE, sv)) {
			trace_gpu_error(c);
			goto out;
		}
	}
	s = rng_state(c, n);
	for (i = 0; i < numel; i++)
		v[i] = (mt ? mv[i] : mean) + (st ? sv[i] : sd) * normal01(&s);
	y = trace_from_host(c, dt, rank, dims, IR_DTYPE_DOUBLE, v);
	if (inplace && y) {
		rc = trace_write_into(c, in[0]->u.t, y);
		gpu_free(y);
		if (!rc)
			rc = trace_out(c, out, trace_alias(c, in[0]->u.t));
	} else {
		rc = trace_out(c, out, y);
	}
out:
	gpu_free(me);
	gpu_free(se);
	free(v);
	free(mv);
	free(sv);
	return rc;
}

/* --- conversions and copies ------------------------------------------------ */

/* the result of a dtype conversion: self itself (a view) when nothing
 * changes and no copy is asked for */
static int convert_out(struct trace_ctx *c, struct gpu_tensor *x,
		       enum ir_dtype dt, int copy, struct tval **out)
{
	if (dt == IR_DTYPE_UNDEFINED)
		dt = x->dtype;
	if (dt == x->dtype && !copy)
		return trace_out(c, out, trace_alias(c, x));
	return trace_out(c, out, clone_t(c, x, dt));
}

static int op_to(struct trace_ctx *c, const struct ir_node *n,
		 struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x;
	enum ir_dtype dt = IR_DTYPE_UNDEFINED;
	const struct tval *dtv = NULL, *cpv = NULL;

	if (tv_get_tensor(c, in[0], 0, &x))
		return -1;
	if (nin >= 2 && is_tensor(in[1])) {
		/* to.other(self, other, non_blocking, copy, memory_format) */
		dt = in[1]->u.t->dtype;
		cpv = nin > 3 ? in[3] : NULL;
	} else if (nin >= 8) {
		/* to.dtype_layout(self, dtype, layout, device, pin, nb, copy,
		 * memory_format) */
		dtv = in[1];
		cpv = in[6];
	} else if (nin >= 2 && in[1] && (in[1]->kind == TV_DEVICE ||
					 in[1]->kind == TV_STR ||
					 (is_none(in[1]) && nin == 5))) {
		/* to.device(self, device, dtype, nb, copy, mf) or
		 * to.prim_Device(self, device?, dtype?, nb, copy) */
		dtv = in[2];
		cpv = in[4];
	} else if (nin == 3) {
		/* to.prim_other(self, non_blocking, copy) */
		cpv = in[2];
	} else if (nin >= 2) {
		/* to.dtype(self, dtype, nb, copy, mf), prim_dtype(self,
		 * dtype?, nb, copy) */
		dtv = in[1];
		cpv = nin > 3 ? in[3] : NULL;
	}
	if (dtv && tv_get_dtype(c, dtv, x->dtype, &dt))
		return -1;
	{
		int cp = 0;

		if (cpv && !is_none(cpv) && tv_get_bool(c, cpv, &cp))
			return -1;
		return convert_out(c, x, dt, cp, out);
	}
}

static int op_type_as(struct trace_ctx *c, const struct ir_node *n,
		      struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x, *o;

	if (tv_get_tensor(c, in[0], 0, &x) || tv_get_tensor(c, in[1], 0, &o))
		return -1;
	return convert_out(c, x, o->dtype, 0, out);
}

static int op_cast(struct trace_ctx *c, const struct ir_node *n,
		   struct tval **in, int nin, struct tval **out, int nout)
{
	static const struct { enum aten_op op; enum ir_dtype dt; } casts[] = {
		{ OP_aten__cast_Byte, IR_DTYPE_UINT8 },
		{ OP_aten__cast_Char, IR_DTYPE_INT8 },
		{ OP_aten__cast_Short, IR_DTYPE_INT16 },
		{ OP_aten__cast_Int, IR_DTYPE_INT32 },
		{ OP_aten__cast_Long, IR_DTYPE_INT64 },
		{ OP_aten__cast_Half, IR_DTYPE_FLOAT16 },
		{ OP_aten__cast_Float, IR_DTYPE_FLOAT },
		{ OP_aten__cast_Double, IR_DTYPE_DOUBLE },
	};
	struct gpu_tensor *x;
	size_t i;

	if (tv_get_tensor(c, in[0], 0, &x))
		return -1;
	for (i = 0; i < sizeof(casts) / sizeof(casts[0]); i++)
		if (casts[i].op == n->op)
			return convert_out(c, x, casts[i].dt, 0, out);
	return trace_error(c, "unknown cast %s", n->kind);
}

/* detach, alias, lift, lift_fresh, contiguous (when contiguous), the
 * dropouts in eval: the input itself */
static int op_identity(struct trace_ctx *c, const struct ir_node *n,
		       struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x;

	if (tv_get_tensor(c, in[0], 0, &x))
		return -1;
	if (n->op == OP_aten_contiguous && !gpu_is_contiguous(x))
		return trace_out(c, out, clone_t(c, x, x->dtype));
	return trace_out(c, out, trace_alias(c, x));
}

static int op_clone(struct trace_ctx *c, const struct ir_node *n,
		    struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x;

	if (tv_get_tensor(c, in[0], 0, &x))
		return -1;
	return trace_out(c, out, clone_t(c, x, x->dtype));
}

/* aten::copy(self, src): src broadcast to self's shape and dtype */
static int op_copy(struct trace_ctx *c, const struct ir_node *n,
		   struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x, *s, *e, *y;

	if (tv_get_tensor(c, in[0], 0, &x))
		return -1;
	s = trace_as_tensor(c, in[1], x->dtype);
	if (!s)
		return -1;
	e = trace_expand(s, x->rank, x->dims);
	gpu_free(s);
	if (!e)
		return trace_error(c, "copy: the source does not broadcast to "
				   "the destination's shape");
	y = clone_t(c, e, x->dtype);
	gpu_free(e);
	return trace_out(c, out, y);
}

/* copy_(self, src), fill_(self, v), zero_(self): written through */
static int op_write(struct trace_ctx *c, const struct ir_node *n,
		    struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x, *s;
	struct tval *zero = NULL;
	const struct tval *v;
	int rc;

	if (tv_get_tensor(c, in[0], 0, &x))
		return -1;
	if (n->op == OP_aten_zero_) {
		v = zero = tv_int(0);
		if (!zero)
			return trace_error(c, "out of memory");
	} else {
		v = in[1];
		if (n->op == OP_aten_fill_ && is_tensor(v) &&
		    v->u.t->rank != 0)
			return trace_error(c, "fill_ only supports "
					   "0-dimension value tensor but got "
					   "tensor with %d dimensions.",
					   v->u.t->rank);
	}
	s = trace_as_tensor(c, v, is_tensor(v) ? v->u.t->dtype :
			    kernel_dt(x->dtype));
	tv_unref(zero);
	if (!s)
		return -1;
	rc = trace_write_into(c, x, s);
	gpu_free(s);
	if (rc)
		return -1;
	return trace_out(c, out, trace_alias(c, x));
}

/* aten::zero(self), aten::fill(self, value): the out-of-place forms of
 * zero_ and fill_ that `script` makes of them */
static int op_fill_new(struct trace_ctx *c, const struct ir_node *n,
		       struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x;
	struct tval *zero = NULL;
	const struct tval *v;
	int rc;

	if (tv_get_tensor(c, in[0], 0, &x))
		return -1;
	if (n->op == OP_aten_zero) {
		v = zero = tv_int(0);
		if (!zero)
			return trace_error(c, "out of memory");
	} else {
		v = in[1];
		if (is_tensor(v) && v->u.t->rank != 0)
			return trace_error(c, "fill only supports 0-dimension "
					   "value tensor but got tensor with "
					   "%d dimensions.", v->u.t->rank);
		if (!is_tensor(v) && !is_number(v))
			return trace_error(c, "fill: expected a number");
	}
	rc = trace_out(c, out, full_t(c, v, x->dtype, x->rank, x->dims));
	tv_unref(zero);
	return rc;
}

/* the dropout kinds' (input, p, train): the input itself in eval; in
 * training the values are random, which a trace cannot reproduce */
static int dropout_args(struct trace_ctx *c, struct tval **in, int nin,
			struct gpu_tensor **x)
{
	double p = 0;
	int train = 0;

	if (tv_get_tensor(c, in[0], 0, x) ||
	    (nin > 1 && tv_get_float(c, in[1], &p)) ||
	    (nin > 2 && in[2]->kind != TV_NONE && tv_get_bool(c, in[2], &train)))
		return -1;
	if (p < 0 || p > 1)
		return trace_error(c, "dropout probability has to be between "
				   "0 and 1, but got %g", p);
	if (train && p > 0)
		return trace_error(c, "dropout in training mode (p=%g) is "
				   "random: trace the model in eval mode", p);
	return 0;
}

/* dropout, feature_dropout, alpha_dropout, feature_alpha_dropout (their
 * in-place forms through op_inplace) */
static int op_dropout(struct trace_ctx *c, const struct ir_node *n,
		      struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x;

	if (dropout_args(c, in, nin, &x))
		return -1;
	return trace_out(c, out, trace_alias(c, x));
}

/* list + list, list * int (aten::add.t, aten::mul.left_t) reaching this
 * table because a list holds tensors */
static int list_arith(struct trace_ctx *c, const struct ir_node *n,
		      struct tval **in, int nin, struct tval **out)
{
	struct tval *l = tv_list(TV_LIST);
	int64_t reps = 1, r;
	int i, k;

	if (!l)
		return trace_error(c, "out of memory");
	if (n->op == OP_aten_mul && tv_get_int(c, in[1], &reps)) {
		tv_unref(l);
		return -1;
	}
	for (k = 0; k < (n->op == OP_aten_add ? 2 : 1); k++)
		for (r = 0; r < reps; r++)
			for (i = 0; i < in[k]->u.list.n; i++)
				if (tv_list_push(l, tv_ref(
						 in[k]->u.list.items[i]))) {
					tv_unref(l);
					return trace_error(c, "out of memory");
				}
	*out = l;
	return 0;
}

static int op_binary_or_list(struct trace_ctx *c, const struct ir_node *n,
			     struct tval **in, int nin, struct tval **out,
			     int nout)
{
	if (nin >= 2 && in[0] && in[0]->kind == TV_LIST &&
	    (n->op == OP_aten_add || n->op == OP_aten_mul))
		return list_arith(c, n, in, nin, out);
	return op_binary(c, n, in, nin, out, nout);
}

/* --- in-place forms ------------------------------------------------------------ */

static trace_op_fn find_op(enum aten_op op);
static enum aten_op out_of_place(enum aten_op op);

/* aten::X_: X computed out of place, written into self */
static int op_inplace(struct trace_ctx *c, const struct ir_node *n,
		      struct tval **in, int nin, struct tval **out, int nout)
{
	enum aten_op base = out_of_place(n->op);
	trace_op_fn fn = find_op(base);
	struct tval *res[2] = { NULL, NULL };
	struct gpu_tensor *x, *y;
	int rc;

	if (!fn || fn == op_inplace)
		return trace_error(c, "no kernel for %s", n->kind);
	if (tv_get_tensor(c, in[0], 0, &x))
		return -1;
	if (fn(c, n, in, nin, res, nout > 2 ? 2 : nout ? nout : 1))
		return -1;
	tv_unref(res[1]);
	if (!is_tensor(res[0])) {
		tv_unref(res[0]);
		return trace_error(c, "%s did not give a tensor",
				   aten_op_name(base));
	}
	y = res[0]->u.t;
	if (!can_cast(y->dtype, x->dtype)) {
		rc = trace_error(c, "result type %s can't be cast to the "
				 "desired output type %s",
				 ir_dtype_torch_name(y->dtype),
				 ir_dtype_torch_name(x->dtype));
	} else if (y->storage == x->storage && y->offset == x->offset &&
		   y->rank == x->rank && !memcmp(y->strides, x->strides,
						 sizeof(int64_t) * x->rank) &&
		   y->dtype == x->dtype) {
		rc = 0; /* the op gave self back (dropout_) */
	} else {
		rc = trace_write_into(c, x, y);
	}
	tv_unref(res[0]);
	if (rc)
		return -1;
	return trace_out(c, out, trace_alias(c, x));
}

/* --- conjugates, windows, quantisation, matrix norms, sampling ------------ */

/* conj, _conj, resolve_conj, resolve_neg: the tensor itself (real);
 * conj_physical: a copy */
static int op_conj(struct trace_ctx *c, const struct ir_node *n,
		   struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x;

	if (tv_get_tensor(c, in[0], 0, &x))
		return -1;
	if (x->dtype == IR_DTYPE_COMPLEX64 || x->dtype == IR_DTYPE_COMPLEX128)
		return trace_error(c, "complex tensors are not supported");
	if (n->op == OP_aten_conj_physical)
		return trace_out(c, out, clone_t(c, x, x->dtype));
	return trace_out(c, out, trace_alias(c, x));
}

/* native_dropout(input, p, train): (input, an all-true mask) as in eval */
static int op_native_dropout(struct trace_ctx *c, const struct ir_node *n,
			     struct tval **in, int nin, struct tval **out,
			     int nout)
{
	struct gpu_tensor *x;

	if (dropout_args(c, in, nin, &x))
		return -1;
	if (trace_out(c, &out[0], trace_alias(c, x)))
		return -1;
	if (nout < 2)
		return 0;
	return trace_out(c, &out[1], fill_t(c, IR_DTYPE_BOOL, x->rank, x->dims,
					  1));
}

static int op_dim_arange(struct trace_ctx *c, const struct ir_node *n,
			 struct tval **in, int nin, struct tval **out,
			 int nout)
{
	struct gpu_tensor *x, *y;
	int64_t dim, len, k, *v;
	int axis;

	if (tv_get_tensor(c, in[0], 0, &x) || tv_get_int(c, in[1], &dim) ||
	    trace_axis(c, dim, x->rank, &axis))
		return -1;
	len = x->rank ? x->dims[axis] : 1;
	v = malloc(sizeof(*v) * (len ? len : 1));
	if (!v)
		return trace_error(c, "out of memory");
	for (k = 0; k < len; k++)
		v[k] = k;
	y = trace_from_host(c, IR_DTYPE_INT64, 1, &len, IR_DTYPE_INT64, v);
	free(v);
	return trace_out(c, out, y);
}

/* hann_window(N, [periodic,] dtype, ...) */
static int op_hann_window(struct trace_ctx *c, const struct ir_node *n,
			  struct tval **in, int nin, struct tval **out,
			  int nout)
{
	int64_t len, k, m;
	int periodic = 1, ai = 1;
	enum ir_dtype dt = DEFAULT_FLOAT;
	struct gpu_tensor *y;
	double *v;

	if (tv_get_int(c, in[0], &len))
		return -1;
	if (nin > 1 && in[1] && in[1]->kind == TV_BOOL) {
		periodic = (int)in[1]->u.i;
		ai = 2;
	}
	if (ai < nin && tv_get_dtype(c, in[ai], dt, &dt))
		return -1;
	if (len < 0)
		return trace_error(c, "window_length must be non-negative");
	v = malloc(sizeof(*v) * (len ? len : 1));
	if (!v)
		return trace_error(c, "out of memory");
	m = periodic ? len + 1 : len;
	for (k = 0; k < len; k++)
		v[k] = len == 1 ? 1 : 0.5 - 0.5 * cos(2 * M_PI * (double)k /
						      (double)(m - 1));
	y = trace_from_host(c, dt, 1, &len, IR_DTYPE_DOUBLE, v);
	free(v);
	return trace_out(c, out, y);
}

/* v (1-d, C entries) viewed to broadcast along `axis` of a rank-r tensor */
static struct gpu_tensor *axis_view(struct trace_ctx *c, struct gpu_tensor *v,
				    int axis, int r)
{
	int64_t dims[GPU_MAX_DIMS], st[GPU_MAX_DIMS];
	struct gpu_tensor *y;
	int i;

	if (v->rank != 1)
		return trace_alias(c, v);
	for (i = axis; i < r; i++) {
		dims[i - axis] = i == axis ? v->dims[0] : 1;
		st[i - axis] = i == axis ? v->strides[0] : 0;
	}
	y = gpu_view(v, r - axis, dims, st, v->offset);
	if (!y)
		trace_gpu_error(c);
	return y;
}

/* quantize_per_tensor(self, scale, zero_point, dtype): the integers
 * clamp(nearbyint(x * (1 / scale)) + zero_point, qmin, qmax) in float as
 * torch's kernel, held with scale and zero point (tval.q) */
static int op_quantize(struct trace_ctx *c, const struct ir_node *n,
		       struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x;
	double scale, *v;
	int64_t zp, st, i, cnt, qmin, qmax;
	enum ir_dtype dt;
	float inv;
	int rc;

	if (nin < 4 || tv_get_tensor(c, in[0], 0, &x) ||
	    tv_get_float(c, in[1], &scale) || tv_get_int(c, in[2], &zp) ||
	    tv_get_int(c, in[3], &st))
		return nin < 4 ? trace_error(c, "expected 4 arguments") : -1;
	if (!dt_is_float(x->dtype))
		return trace_error(c, "Quantize only works on Float Tensor");
	if (!(scale > 0))
		return trace_error(c, "scale must be positive, got %g", scale);
	/* torch's QInt8 12, QUInt8 13, QInt32 14 */
	if (st == 12) {
		dt = IR_DTYPE_INT8;
		qmin = -128;
		qmax = 127;
	} else if (st == 13) {
		dt = IR_DTYPE_UINT8;
		qmin = 0;
		qmax = 255;
	} else if (st == 14) {
		dt = IR_DTYPE_INT32;
		qmin = INT32_MIN;
		qmax = INT32_MAX;
	} else {
		return trace_error(c, "quantized dtype %lld is not supported "
				   "(quint8, qint8, qint32)", (long long)st);
	}
	if (zp < qmin || zp > qmax)
		return trace_error(c, "zero_point %lld is out of range",
				   (long long)zp);
	v = trace_to_host(c, x, IR_DTYPE_DOUBLE);
	if (!v)
		return -1;
	cnt = gpu_numel(x);
	inv = 1.0f / (float)scale;
	for (i = 0; i < cnt; i++) {
		double q = (double)nearbyintf((float)v[i] * inv) + (double)zp;

		v[i] = q < (double)qmin ? (double)qmin : q > (double)qmax ?
		       (double)qmax : q;
	}
	rc = trace_out(c, out, trace_from_host(c, dt, x->rank, x->dims,
					       IR_DTYPE_DOUBLE, v));
	free(v);
	if (rc)
		return -1;
	out[0]->q.on = 1;
	out[0]->q.scale = scale;
	out[0]->q.zero = zp;
	return 0;
}

/* dequantize(self): (q - zero_point) * scale as float; a float tensor is
 * its own dequantized form.  int_repr(self): the integers.
 * q_scale(self), q_zero_point(self): the parameters. */
static int op_dequantize(struct trace_ctx *c, const struct ir_node *n,
			 struct tval **in, int nin, struct tval **out,
			 int nout)
{
	struct gpu_tensor *x, *y = NULL, *f;

	if (tv_get_tensor(c, in[0], 0, &x))
		return -1;
	if (!in[0]->q.on) {
		if (n->op == OP_aten_dequantize && dt_is_float(x->dtype))
			return trace_out(c, out, trace_alias(c, x));
		return trace_error(c, "expected a quantized tensor (from "
				   "quantize_per_tensor)");
	}
	if (n->op == OP_aten_int_repr)
		return trace_out(c, out, clone_t(c, x, x->dtype));
	if (n->op == OP_aten_q_scale) {
		out[0] = tv_float(in[0]->q.scale);
		return out[0] ? 0 : trace_error(c, "out of memory");
	}
	if (n->op == OP_aten_q_zero_point) {
		out[0] = tv_int(in[0]->q.zero);
		return out[0] ? 0 : trace_error(c, "out of memory");
	}
	f = trace_cast(c, x, IR_DTYPE_FLOAT);
	if (f) {
		/* float(scale) * (q - zero_point), as torch's */
		struct gpu_tensor *t = binary_s(c, GPU_SUB, f,
						(double)in[0]->q.zero,
						IR_DTYPE_FLOAT, IR_DTYPE_FLOAT);

		y = t ? binary_s(c, GPU_MUL, t, (double)(float)in[0]->q.scale,
				 IR_DTYPE_FLOAT, IR_DTYPE_FLOAT) : NULL;
		gpu_free(t);
		gpu_free(f);
	}
	return trace_out(c, out, y);
}

/* fake_quantize_per_tensor_affine / _per_channel_affine:
 * (clamp(nearbyint(x * (1 / scale)) + zp, qmin, qmax) - zp) * scale */
static int op_fake_quantize(struct trace_ctx *c, const struct ir_node *n,
			    struct tval **in, int nin, struct tval **out,
			    int nout)
{
	int per_channel = n->op == OP_aten_fake_quantize_per_channel_affine;
	struct gpu_tensor *x, *s = NULL, *z = NULL, *inv = NULL, *t = NULL,
			  *u = NULL;
	int64_t qmin, qmax, axis64 = 0;
	enum ir_dtype dt;
	int axis = 0, ai = 3;

	if (tv_get_tensor(c, in[0], 0, &x))
		return -1;
	dt = x->dtype;
	if (!dt_is_float(dt))
		return trace_error(c, "fake_quantize expects a floating point "
				   "input");
	if (per_channel) {
		if (tv_get_int(c, in[3], &axis64) ||
		    trace_axis(c, axis64, x->rank, &axis))
			return -1;
		ai = 4;
	}
	if (tv_get_int(c, in[ai], &qmin) || tv_get_int(c, in[ai + 1], &qmax))
		return -1;
	if (qmin > qmax)
		return trace_error(c, "`quant_min` should be less than or "
				   "equal to `quant_max`.");
	{
		struct gpu_tensor *st = trace_as_tensor(c, in[1],
							IR_DTYPE_FLOAT);
		struct gpu_tensor *zt = st ? trace_as_tensor(c, in[2],
							     IR_DTYPE_FLOAT) :
			NULL;

		if (!zt) {
			gpu_free(st);
			return -1;
		}
		s = per_channel ? axis_view(c, st, axis, x->rank) :
		    trace_alias(c, st);
		z = per_channel ? axis_view(c, zt, axis, x->rank) :
		    trace_alias(c, zt);
		gpu_free(st);
		gpu_free(zt);
		if (!s || !z)
			goto fail;
	}
	/* in float, as torch's kernel */
	inv = unary_t(c, GPU_RECIPROCAL, s, IR_DTYPE_FLOAT, 0, 0);
	t = inv ? binary_t(c, GPU_MUL, x, inv, IR_DTYPE_FLOAT,
			   IR_DTYPE_FLOAT) : NULL;
	u = t ? unary_t(c, GPU_ROUND, t, IR_DTYPE_FLOAT, 0, 0) : NULL;
	gpu_free(t);
	t = u ? binary_t(c, GPU_ADD, u, z, IR_DTYPE_FLOAT, IR_DTYPE_FLOAT) :
	    NULL;
	gpu_free(u);
	u = t ? unary_t(c, GPU_HARDTANH, t, IR_DTYPE_FLOAT, (double)qmin,
			(double)qmax) : NULL;
	gpu_free(t);
	t = u ? binary_t(c, GPU_SUB, u, z, IR_DTYPE_FLOAT, IR_DTYPE_FLOAT) :
	    NULL;
	gpu_free(u);
	u = t ? binary_t(c, GPU_MUL, t, s, IR_DTYPE_FLOAT, dt) : NULL;
	gpu_free(t);
	gpu_free(inv);
	gpu_free(s);
	gpu_free(z);
	return trace_out(c, out, u);
fail:
	gpu_free(s);
	gpu_free(z);
	return -1;
}

/* matrix norms over the two axes in mask (a0 < a1): 'fro', 1, -1, inf,
 * -inf; 'nuc', 2, -2 from singular values (ops_linalg_orth_host.c) */
static struct gpu_tensor *matrix_norm_t(struct trace_ctx *c,
					struct gpu_tensor *x, const char *sord,
					double ord, int a0, int a1, int keep,
					enum ir_dtype dt)
{
	struct gpu_tensor *a, *s, *y;
	int inner, outer;

	if (sord && !strcmp(sord, "fro"))
		return reduce_t(c, GPU_RL2, x, (1u << a0) | (1u << a1), keep,
				0, dt, dt);
	if ((sord && !strcmp(sord, "nuc")) || fabs(ord) == 2)
		return trace_svd_norm(c, x, sord ? 'n' : ord > 0 ? '2' : '-',
				      a0, a1, keep, dt);
	if (sord || !(fabs(ord) == 1 || isinf(ord))) {
		trace_error(c, "matrix norm ord=%s is not one of 'fro', "
			    "'nuc', 1, -1, 2, -2, inf, -inf", sord ? sord : "?");
		return NULL;
	}
	/* 1: max over columns of the column sums; inf: over rows */
	inner = fabs(ord) == 1 ? a0 : a1;
	outer = fabs(ord) == 1 ? a1 : a0;
	a = unary_t(c, GPU_ABS, x, dt, 0, 0);
	s = a ? reduce_t(c, GPU_RSUM, a, 1u << inner, 1, 0, dt, dt) : NULL;
	gpu_free(a);
	y = s ? reduce_t(c, ord > 0 ? GPU_RMAX : GPU_RMIN, s,
			 (1u << inner) | (1u << outer), keep, 0, dt, dt) :
	    NULL;
	gpu_free(s);
	return y;
}

/* linalg_norm, linalg_matrix_norm */
static int op_linalg_norm(struct trace_ctx *c, const struct ir_node *n,
			  struct tval **in, int nin, struct tval **out,
			  int nout)
{
	int matrix = n->op == OP_aten_linalg_matrix_norm;
	struct gpu_tensor *x;
	const char *sord = NULL;
	double ord = 2;
	int has_ord = 0, keep = 0, nd = 0, a[2] = { 0, 0 }, i;
	int64_t dims[GPU_MAX_DIMS];
	enum ir_dtype dt;
	uint32_t mask;

	if (tv_get_tensor(c, in[0], 0, &x))
		return -1;
	if (in[1] && in[1]->kind == TV_STR) {
		sord = in[1]->u.s;
		has_ord = 1;
	} else if (!is_none(in[1])) {
		if (get_scalar(c, in[1], &ord))
			return -1;
		has_ord = 1;
	}
	if (nin > 2 && !is_none(in[2])) {
		if (tv_get_ints(c, in[2], dims, GPU_MAX_DIMS, &nd))
			return -1;
		if (in[2]->kind == TV_INT)
			nd = 1;
	} else if (matrix) {
		dims[0] = -2;
		dims[1] = -1;
		nd = 2;
	}
	if (nin > 3 && tv_get_bool(c, in[3], &keep))
		return -1;
	if (!dt_is_float(x->dtype))
		return trace_error(c, "linalg norms expect a floating point "
				   "input");
	if (tv_get_dtype(c, nin > 4 ? in[4] : NULL, x->dtype, &dt))
		return -1;
	if (!matrix && (!has_ord || (nd == 0 && x->rank == 1) || nd == 1)) {
		if (sord)
			return trace_error(c, "norm ord '%s' needs a matrix",
					   sord);
		if (parse_axes(c, nd ? in[2] : NULL, x->rank, &mask))
			return -1;
		return trace_out(c, out, pnorm_t(c, x, ord, mask, keep, dt));
	}
	if (nd == 0 && x->rank == 2) {
		dims[0] = 0;
		dims[1] = 1;
		nd = 2;
	}
	if (nd != 2)
		return trace_error(c, "a matrix norm needs two dims");
	for (i = 0; i < 2; i++)
		if (trace_axis(c, dims[i], x->rank, &a[i]))
			return -1;
	if (a[0] == a[1])
		return trace_error(c, "the two dims of a matrix norm must "
				   "differ");
	if (!has_ord)
		sord = "fro";
	return trace_out(c, out, matrix_norm_t(c, x, sord, ord,
					     a[0] < a[1] ? a[0] : a[1],
					     a[0] < a[1] ? a[1] : a[0], keep,
					     dt));
}

/* multinomial(probs, num_samples, replacement): seeded draws */
static int op_multinomial(struct trace_ctx *c, const struct ir_node *n,
			  struct tval **in, int nin, struct tval **out,
			  int nout)
{
	struct gpu_tensor *x, *y;
	int64_t ns, rows, cats, r, k, j, dims[2], *idx;
	double *p, *w;
	int repl = 0;
	uint64_t s;

	if (tv_get_tensor(c, in[0], 0, &x) || tv_get_int(c, in[1], &ns))
		return -1;
	if (nin > 2 && tv_get_bool(c, in[2], &repl))
		return -1;
	if (x->rank < 1 || x->rank > 2)
		return trace_error(c, "prob_dist must be 1 or 2 dim");
	rows = x->rank == 2 ? x->dims[0] : 1;
	cats = x->dims[x->rank - 1];
	if (ns <= 0 || (!repl && ns > cats))
		return trace_error(c, "cannot sample n_sample > prob_dist."
				   "size(-1) samples without replacement");
	p = malloc(sizeof(*p) * (rows * cats + 1));
	w = malloc(sizeof(*w) * (cats + 1));
	idx = malloc(sizeof(*idx) * (rows * ns + 1));
	if (!p || !w || !idx) {
		free(p);
		free(w);
		free(idx);
		return trace_error(c, "out of memory");
	}
	if (gpu_to_host(x, IR_DTYPE_DOUBLE, p)) {
		free(p);
		free(w);
		free(idx);
		return trace_gpu_error(c);
	}
	s = rng_state(c, n);
	for (r = 0; r < rows; r++) {
		memcpy(w, p + r * cats, sizeof(*w) * cats);
		for (k = 0; k < ns; k++) {
			double tot = 0, u;

			for (j = 0; j < cats; j++)
				tot += w[j] > 0 ? w[j] : 0;
			u = uniform01(&s) * tot;
			for (j = 0; j < cats - 1; j++) {
				if (w[j] > 0 && u < w[j])
					break;
				u -= w[j] > 0 ? w[j] : 0;
			}
			idx[r * ns + k] = j;
			if (!repl)
				w[j] = 0;
		}
	}
	dims[0] = rows;
	dims[1] = ns;
	y = x->rank == 2 ? trace_from_host(c, IR_DTYPE_INT64, 2, dims,
					   IR_DTYPE_INT64, idx) :
	    trace_from_host(c, IR_DTYPE_INT64, 1, &ns, IR_DTYPE_INT64, idx);
	free(p);
	free(w);
	free(idx);
	return trace_out(c, out, y);
}

/* --- determinants (host LU), gamma and Dirichlet sampling ---------------- */

/* det of the n x n row-major matrix a (destroyed), partial pivoting */
static double det_lu(double *a, int64_t n)
{
	double det = 1;
	int64_t i, j, k, p;

	for (k = 0; k < n; k++) {
		p = k;
		for (i = k + 1; i < n; i++)
			if (fabs(a[i * n + k]) > fabs(a[p * n + k]))
				p = i;
		if (a[p * n + k] == 0)
			return 0;
		if (p != k) {
			for (j = 0; j < n; j++) {
				double t = a[k * n + j];

				a[k * n + j] = a[p * n + j];
				a[p * n + j] = t;
			}
			det = -det;
		}
		det *= a[k * n + k];
		for (i = k + 1; i < n; i++) {
			double f = a[i * n + k] / a[k * n + k];

			for (j = k + 1; j < n; j++)
				a[i * n + j] -= f * a[k * n + j];
		}
	}
	return det;
}

/* linalg_det / det / logdet / linalg_slogdet / slogdet over the last two
 * dims */
static int op_det(struct trace_ctx *c, const struct ir_node *n,
		  struct tval **in, int nin, struct tval **out, int nout)
{
	int logdet = n->op == OP_aten_logdet;
	int slog = n->op == OP_aten_slogdet || n->op == OP_aten_linalg_slogdet;
	struct gpu_tensor *x, *y, *y2;
	int64_t m, batch = 1, b, numel;
	double *a, *d, *sg;
	int i;

	if (tv_get_tensor(c, in[0], 0, &x))
		return -1;
	if (x->rank < 2 || x->dims[x->rank - 1] != x->dims[x->rank - 2])
		return trace_error(c, "A must be batches of square matrices");
	if (!dt_is_float(x->dtype))
		return trace_error(c, "expected a floating point input");
	m = x->dims[x->rank - 1];
	for (i = 0; i < x->rank - 2; i++)
		batch *= x->dims[i];
	numel = gpu_numel(x);
	a = malloc(sizeof(*a) * (numel + 1));
	d = malloc(sizeof(*d) * (batch + 1));
	sg = malloc(sizeof(*sg) * (batch + 1));
	if (!a || !d || !sg) {
		free(a);
		free(d);
		free(sg);
		return trace_error(c, "out of memory");
	}
	if (gpu_to_host(x, IR_DTYPE_DOUBLE, a)) {
		free(a);
		free(d);
		free(sg);
		return trace_gpu_error(c);
	}
	for (b = 0; b < batch; b++) {
		double v = det_lu(a + b * m * m, m);

		sg[b] = v > 0 ? 1 : v < 0 ? -1 : 0;
		if (slog)
			d[b] = log(fabs(v));
		else if (logdet)
			d[b] = v < 0 ? NAN : log(v);
		else
			d[b] = v;
	}
	y = trace_from_host(c, x->dtype, x->rank - 2, x->dims, IR_DTYPE_DOUBLE,
			    d);
	if (!slog || nout < 2 || !y) {
		free(a);
		free(d);
		free(sg);
		return trace_out(c, out, y);
	}
	y2 = trace_from_host(c, x->dtype, x->rank - 2, x->dims, IR_DTYPE_DOUBLE,
			     sg);
	free(a);
	free(d);
	free(sg);
	if (trace_out(c, &out[0], y2)) {
		gpu_free(y);
		return -1;
	}
	return trace_out(c, &out[1], y);
}

/* a Gamma(alpha, 1) draw (Marsaglia and Tsang) */
static double gamma_draw(uint64_t *s, double alpha)
{
	double d, cc, x, v, u;

	if (alpha <= 0)
		return 0;
	if (alpha < 1) {
		u = uniform01(s);
		return gamma_draw(s, alpha + 1) * pow(u > 0 ? u : 1e-300,
						      1 / alpha);
	}
	d = alpha - 1.0 / 3;
	cc = 1 / sqrt(9 * d);
	for (;;) {
		do {
			x = normal01(s);
			v = 1 + cc * x;
		} while (v <= 0);
		v = v * v * v;
		u = uniform01(s);
		if (u < 1 - 0.0331 * x * x * x * x ||
		    log(u > 0 ? u : 1e-300) < 0.5 * x * x +
					       d * (1 - v + log(v)))
			return d * v;
	}
}

/* _standard_gamma(alpha), _sample_dirichlet(alpha) (over the last dim) */
static int op_gamma(struct trace_ctx *c, const struct ir_node *n,
		    struct tval **in, int nin, struct tval **out, int nout)
{
	int dirichlet = n->op == OP_aten__sample_dirichlet;
	struct gpu_tensor *x, *y;
	int64_t numel, i, j, last;
	double *v;
	uint64_t s;

	if (tv_get_tensor(c, in[0], 0, &x))
		return -1;
	if (!dt_is_float(x->dtype))
		return trace_error(c, "expected a floating point input");
	numel = gpu_numel(x);
	v = malloc(sizeof(*v) * (numel + 1));
	if (!v)
		return trace_error(c, "out of memory");
	if (gpu_to_host(x, IR_DTYPE_DOUBLE, v)) {
		free(v);
		return trace_gpu_error(c);
	}
	s = rng_state(c, n);
	for (i = 0; i < numel; i++)
		v[i] = gamma_draw(&s, v[i]);
	last = x->rank ? x->dims[x->rank - 1] : 1;
	if (dirichlet && last > 0) {
		for (i = 0; i < numel; i += last) {
			double tot = 0;

			for (j = 0; j < last; j++)
				tot += v[i + j];
			for (j = 0; j < last; j++)
				v[i + j] = tot > 0 ? v[i + j] / tot : 0;
		}
	}
	y = trace_from_host(c, x->dtype, x->rank, x->dims, IR_DTYPE_DOUBLE, v);
	free(v);
	return trace_out(c, out, y);
}

/* --- the table ------------------------------------------------------------------ */

#define OP(k, f) { OP_aten_##k, f, 0 }
#define OPI(k, f) OP(k, f), { OP_aten_##k##_, op_inplace, 0 }

const struct trace_op trace_ops_tensor[] = {
	/* unary math */
	OPI(sqrt, op_unary), OPI(rsqrt, op_unary), OPI(exp, op_unary),
	OPI(expm1, op_unary), OPI(log, op_unary), OPI(log1p, op_unary),
	OPI(log2, op_unary), OPI(log10, op_unary), OPI(sin, op_unary),
	OPI(cos, op_unary), OPI(tan, op_unary), OPI(asin, op_unary),
	OPI(acos, op_unary), OPI(atan, op_unary), OPI(sinh, op_unary),
	OPI(cosh, op_unary), OPI(tanh, op_unary), OPI(asinh, op_unary),
	OPI(acosh, op_unary), OPI(atanh, op_unary),
	OPI(arcsin, op_unary), OPI(arccos, op_unary),
	OPI(arctan, op_unary), OPI(erf, op_unary),
	OPI(reciprocal, op_unary), OPI(sigmoid, op_unary),
	OPI(silu, op_unary), OPI(mish, op_unary),
	OPI(hardsigmoid, op_unary), OPI(hardswish, op_unary),
	OPI(neg, op_unary), OPI(negative, op_unary), OPI(abs, op_unary),
	OPI(absolute, op_unary), OPI(sign, op_unary),
	OPI(relu, op_unary), OPI(floor, op_unary), OPI(ceil, op_unary),
	OPI(trunc, op_unary), OPI(fix, op_unary), OPI(frac, op_unary),
	OP(isnan, op_unary), OP(isinf, op_unary),
	OP(isfinite, op_isfinite), OPI(logical_not, op_unary),
	OPI(bitwise_not, op_bitwise_not), OPI(round, op_round),
	OPI(square, op_square),
	/* activations */
	OPI(gelu, op_act), OPI(selu, op_act), OPI(relu6, op_act),
	OPI(logit, op_act), OPI(leaky_relu, op_act), OPI(rrelu, op_act),
	OPI(elu, op_act), OPI(celu, op_act), OPI(hardtanh, op_act),
	OP(hardshrink, op_act), OP(softshrink, op_act),
	OP(softplus, op_act), OPI(threshold, op_act),
	OP(log_sigmoid, op_log_sigmoid),
	OP(prelu, op_prelu), OP(glu, op_glu),
	OPI(nan_to_num, op_nan_to_num),
	/* binary */
	OPI(add, op_binary_or_list), OPI(sub, op_binary),
	OPI(subtract, op_binary), OP(rsub, op_binary),
	OPI(mul, op_binary_or_list), OPI(multiply, op_binary),
	OPI(div, op_binary), OPI(divide, op_binary),
	OPI(true_divide, op_binary), OPI(floor_divide, op_binary),
	OPI(remainder, op_binary), OPI(fmod, op_binary),
	OPI(pow, op_binary), OPI(float_power, op_binary),
	OP(maximum, op_binary), OP(minimum, op_binary),
	OP(fmax, op_binary), OP(fmin, op_binary),
	OPI(atan2, op_binary), OPI(arctan2, op_binary),
	OPI(eq, op_binary), OPI(ne, op_binary), OPI(lt, op_binary),
	OPI(le, op_binary), OPI(gt, op_binary), OPI(ge, op_binary),
	OPI(not_equal, op_binary), OPI(less, op_binary),
	OPI(less_equal, op_binary), OPI(greater, op_binary),
	OPI(greater_equal, op_binary),
	OPI(logical_and, op_binary), OPI(logical_or, op_binary),
	OPI(logical_xor, op_binary),
	OPI(bitwise_and, op_binary), OPI(bitwise_or, op_binary),
	OPI(bitwise_xor, op_binary),
	OP(__and__, op_binary), OP(__or__, op_binary),
	OP(__xor__, op_binary), OP(__lshift__, op_binary),
	OP(__rshift__, op_binary),
	OP(__iand__, op_inplace), OP(__ior__, op_inplace),
	OP(__ixor__, op_inplace), OP(__ilshift__, op_inplace),
	OP(__irshift__, op_inplace),
	OPI(bitwise_left_shift, op_binary),
	OPI(bitwise_right_shift, op_binary),
	OP(max, op_maxmin), OP(min, op_maxmin),
	OPI(clamp, op_clamp), OPI(clamp_min, op_clamp),
	OPI(clamp_max, op_clamp), OPI(clip, op_clamp),
	OP(where, op_where), OPI(masked_fill, op_masked_fill),
	OPI(lerp, op_ternary), OPI(addcmul, op_ternary),
	OPI(addcdiv, op_ternary),
	/* reductions */
	OP(sum, op_reduce), OP(mean, op_reduce), OP(prod, op_reduce),
	OP(amax, op_reduce), OP(amin, op_reduce),
	OP(logsumexp, op_reduce), OP(all, op_reduce),
	OP(any, op_reduce), OP(argmax, op_argmaxmin),
	OP(argmin, op_argmaxmin), OP(aminmax, op_aminmax),
	OP(std, op_var), OP(var, op_var), OP(std_mean, op_var),
	OP(var_mean, op_var), OP(norm, op_norm),
	OP(frobenius_norm, op_norm), OP(linalg_vector_norm, op_norm),
	OPI(cumsum, op_cumulative), OPI(cumprod, op_cumulative),
	OP(count_nonzero, op_count_nonzero),
	/* creation */
	OP(zeros, op_full), OP(ones, op_full), OP(full, op_full),
	OP(empty, op_full), OP(zeros_like, op_full),
	OP(ones_like, op_full), OP(full_like, op_full),
	OP(empty_like, op_full), OP(new_zeros, op_full),
	OP(new_ones, op_full), OP(new_full, op_full),
	OP(new_empty, op_full), OP(arange, op_arange),
	OP(linspace, op_linspace), OP(logspace, op_linspace), OP(eye, op_eye),
	OP(scalar_tensor, op_scalar_tensor), OP(tensor, op_tensor),
	OP(as_tensor, op_tensor), OP(rand, op_random),
	OP(randn, op_random), OP(rand_like, op_random),
	OP(randn_like, op_random), OP(randint, op_random),
	OP(randint_like, op_random), OP(bernoulli, op_bernoulli),
	OP(uniform, op_uniform),
	OP(bernoulli_, op_inplace), OP(normal, op_normal),
	OP(normal_, op_normal),
	/* conversions, copies */
	OP(to, op_to), OP(type_as, op_type_as),
	OP(_cast_Byte, op_cast), OP(_cast_Char, op_cast),
	OP(_cast_Short, op_cast), OP(_cast_Int, op_cast),
	OP(_cast_Long, op_cast), OP(_cast_Half, op_cast),
	OP(_cast_Float, op_cast), OP(_cast_Double, op_cast),
	OP(copy, op_copy), OP(copy_, op_write), OP(fill_, op_write),
	OP(zero_, op_write), OP(clone, op_clone),
	OP(zero, op_fill_new), OP(fill, op_fill_new),
	OPI(detach, op_identity), OP(alias, op_identity),
	OP(lift, op_identity), OP(lift_fresh, op_identity),
	OP(contiguous, op_identity),
	OP(conj, op_conj), OP(_conj, op_conj),
	OP(resolve_conj, op_conj), OP(resolve_neg, op_conj),
	OP(conj_physical, op_conj), OP(native_dropout, op_native_dropout),
	OP(_dim_arange, op_dim_arange), OP(hann_window, op_hann_window),
	OP(fake_quantize_per_tensor_affine, op_fake_quantize),
	OP(fake_quantize_per_channel_affine, op_fake_quantize),
	OP(quantize_per_tensor, op_quantize), OP(dequantize, op_dequantize),
	OP(int_repr, op_dequantize), OP(q_scale, op_dequantize),
	OP(q_zero_point, op_dequantize),
	OP(linalg_norm, op_linalg_norm),
	OP(linalg_matrix_norm, op_linalg_norm),
	OP(multinomial, op_multinomial),
	OP(linalg_det, op_det), OP(det, op_det), OP(logdet, op_det),
	OP(linalg_slogdet, op_det), OP(slogdet, op_det),
	OP(_standard_gamma, op_gamma), OP(_sample_dirichlet, op_gamma),
	OPI(dropout, op_dropout), OPI(feature_dropout, op_dropout),
	OPI(alpha_dropout, op_dropout),
	OPI(feature_alpha_dropout, op_dropout),
	{ OP_NONE, NULL, 0 },
};

/* The operator an in-place one computes out of place, from the registry:
 * aten::add_ -> aten::add, aten::__iand__ -> aten::__and__; OP_NONE when
 * op is not an in-place form. */
static enum aten_op out_of_place(enum aten_op op)
{
	const char *name = aten_op_name(op), *sep = strstr(name, "::");
	char base[96];
	size_t len = strlen(name), ns;

	if (!sep || len + 1 > sizeof(base))
		return OP_NONE;
	ns = (size_t)(sep - name) + 2;
	if ((aten_op_flags(op) & ATEN_OP_MUTATES) && len > ns + 5 &&
	    !strncmp(name + ns, "__i", 3) && !strcmp(name + len - 2, "__")) {
		snprintf(base, sizeof(base), "%.*s__%s", (int)ns, name,
			 name + ns + 3);
		return aten_op_id(base);
	}
	if (!(aten_op_flags(op) & ATEN_OP_INPLACE))
		return OP_NONE;
	return functional(op);
}

static trace_op_fn find_op(enum aten_op op)
{
	const struct trace_op *r = trace_group_op(op, TRACE_TENSOR);

	return r ? r->fn : NULL;
}

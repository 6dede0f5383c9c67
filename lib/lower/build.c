/*
 * build.c - emitting ONNX nodes for the symbolic functions, and typing
 * them: every node built here gets output types inferred from its inputs
 * and attributes (dtype, and shape with each dim fixed, a symbol carried
 * over, or unknown: never guessed).  Ops whose shape depends on data get
 * unknown dims.  Costs: linear in the rank of the values involved.
 */
#include <math.h>
#include <string.h>

#include "lower_int.h"

#define MAXR 64

int b_is_float(enum ir_dtype dt)
{
	return dt == IR_DTYPE_FLOAT || dt == IR_DTYPE_DOUBLE ||
	       dt == IR_DTYPE_FLOAT16 || dt == IR_DTYPE_BFLOAT16;
}

enum ir_dtype b_dtype(const struct ir_value *v)
{
	if (!v)
		return IR_DTYPE_UNDEFINED;
	switch (v->type->kind) {
	case IR_TYPE_TENSOR: return v->type->dtype;
	case IR_TYPE_INT: return IR_DTYPE_INT64;
	case IR_TYPE_FLOAT: return IR_DTYPE_FLOAT;
	case IR_TYPE_BOOL: return IR_DTYPE_BOOL;
	default: return IR_DTYPE_UNDEFINED;
	}
}

enum ir_dtype b_dtype_of_type(const struct ir_type *t)
{
	switch (t->kind) {
	case IR_TYPE_TENSOR: return t->dtype;
	case IR_TYPE_INT: return IR_DTYPE_INT64;
	case IR_TYPE_FLOAT: return IR_DTYPE_FLOAT;
	case IR_TYPE_BOOL: return IR_DTYPE_BOOL;
	default: return IR_DTYPE_UNDEFINED;
	}
}

int64_t b_dim_size(const struct ir_value *v, int64_t dim)
{
	int r = b_rank(v);
	if (dim < 0)
		dim += r;
	if (r <= 0 || v->type->kind != IR_TYPE_TENSOR || dim < 0 || dim >= r ||
	    v->type->dims[dim].kind != IR_DIM_FIXED)
		return -1;
	return v->type->dims[dim].value;
}

int b_rank(const struct ir_value *v)
{
	if (!v)
		return -1;
	if (v->type->kind == IR_TYPE_TENSOR)
		return v->type->rank;
	if (v->type->kind == IR_TYPE_INT || v->type->kind == IR_TYPE_FLOAT ||
	    v->type->kind == IR_TYPE_BOOL)
		return 0;
	return -1;
}

struct ir_node *b_node(struct lower_ctx *c, const char *op, int nin,
		       struct ir_value *const *ins, int nout)
{
	const char *kind = strstr(op, "::") ? op : ir_strfmt(c->g, "onnx::%s", op);
	struct ir_node *n = ir_node_new(c->g, NULL, kind, nin, nout);
	for (int i = 0; i < nin; i++)
		n->inputs[i] = ins[i];
	for (int i = 0; i < nout; i++)
		ir_node_set_output(n, i, ir_value_new(c->g, NULL,
					ir_type_new(c->g, IR_TYPE_TENSOR)));
	for (int i = 0; i < nout; i++)
		n->outputs[i]->type->rank = -1;
	if (c->cur) {
		n->scope = c->cur->scope;
		n->source = c->cur->source;
	}
	if (c->pos)
		ir_block_insert_before(c->pos, n);
	else
		ir_block_append(c->blk, n);
	return n;
}

void b_attr_i(struct lower_ctx *c, struct ir_node *n, const char *name,
	      int64_t v)
{
	ir_node_add_attr(c->g, n, name, IR_ATTR_INT)->u.i = v;
}

void b_attr_f(struct lower_ctx *c, struct ir_node *n, const char *name,
	      double v)
{
	ir_node_add_attr(c->g, n, name, IR_ATTR_FLOAT)->u.f = v;
}

void b_attr_s(struct lower_ctx *c, struct ir_node *n, const char *name,
	      const char *s)
{
	struct ir_attr *a = ir_node_add_attr(c->g, n, name, IR_ATTR_STRING);
	a->u.s.data = ir_strdup(c->g, s);
	a->u.s.len = strlen(s);
}

void b_attr_ints(struct lower_ctx *c, struct ir_node *n, const char *name,
		 const int64_t *v, int count)
{
	struct ir_attr *a = ir_node_add_attr(c->g, n, name, IR_ATTR_INTS);
	a->count = count;
	a->u.ints = ir_alloc(c->g, sizeof(int64_t) * (count ? count : 1));
	if (count)
		memcpy(a->u.ints, v, sizeof(int64_t) * count);
}

void b_attr_floats(struct lower_ctx *c, struct ir_node *n, const char *name,
		   const double *v, int count)
{
	struct ir_attr *a = ir_node_add_attr(c->g, n, name, IR_ATTR_FLOATS);
	a->count = count;
	a->u.floats = ir_alloc(c->g, sizeof(double) * (count ? count : 1));
	if (count)
		memcpy(a->u.floats, v, sizeof(double) * count);
}

/* --- folding of small constants ------------------------------------------
 * Shape arithmetic on constants (aten::size of a fixed dim times 2, the
 * Int() of it, a list of those) is folded as it is built, so that the
 * symbolics after it see constants (split sizes, view shapes), as torch's
 * exporter sees them after its constant propagation.  Only small tensors
 * (FOLD_MAX elements) of Long, Int, Float and Double. */

#define FOLD_MAX 64

static int is_op(const struct ir_node *n, const char *list);

static int fold_dtype_ok(enum ir_dtype dt)
{
	return dt == IR_DTYPE_INT64 || dt == IR_DTYPE_INT32 ||
	       dt == IR_DTYPE_FLOAT || dt == IR_DTYPE_DOUBLE ||
	       dt == IR_DTYPE_BOOL;
}

/* The constant behind v as doubles (exact for |ints| < 2^53); the count or
 * -1. */
static int fold_read(const struct ir_value *v, double *out, int max,
		     enum ir_dtype *dt)
{
	const struct ir_tensor *t = b_const_of(v);
	if (!t || !fold_dtype_ok(t->dtype))
		return -1;
	uint64_t k = ir_tensor_numel(t);
	size_t es = ir_dtype_size(t->dtype);
	if (k > (uint64_t)max || t->bytes.len < k * es)
		return -1;
	for (uint64_t i = 0; i < k; i++) {
		const char *p = t->bytes.data + es * i;
		switch (t->dtype) {
		case IR_DTYPE_INT64: { int64_t x; memcpy(&x, p, 8);
			if (x > (1LL << 53) || x < -(1LL << 53))
				return -1;
			out[i] = (double)x; break; }
		case IR_DTYPE_INT32: { int32_t x; memcpy(&x, p, 4); out[i] = x; break; }
		case IR_DTYPE_FLOAT: { float x; memcpy(&x, p, 4); out[i] = x; break; }
		case IR_DTYPE_DOUBLE: memcpy(&out[i], p, 8); break;
		default: out[i] = p[0] != 0; break;
		}
	}
	*dt = t->dtype;
	return (int)k;
}

static int is_int_dtype(enum ir_dtype dt)
{
	return dt == IR_DTYPE_INT64 || dt == IR_DTYPE_INT32;
}

/* Replaces n by a Constant of its output type holding r[0..k). */
static void fold_to_const(struct lower_ctx *c, struct ir_node *n,
			  const double *r, int k, enum ir_dtype dt)
{
	struct ir_type *ty = n->outputs[0]->type;
	int64_t dims[MAXR];
	for (int i = 0; i < ty->rank; i++)
		dims[i] = ty->dims[i].value;
	struct ir_tensor *t = ir_tensor_new(c->g, dt, ty->rank, dims);
	size_t es = ir_dtype_size(dt);
	char *p = ir_alloc(c->g, es * (size_t)k + 8);
	for (int i = 0; i < k; i++) {
		switch (dt) {
		case IR_DTYPE_INT64: { int64_t x = (int64_t)r[i]; memcpy(p + 8 * i, &x, 8); break; }
		case IR_DTYPE_INT32: { int32_t x = (int32_t)r[i]; memcpy(p + 4 * i, &x, 4); break; }
		case IR_DTYPE_FLOAT: { float x = (float)r[i]; memcpy(p + 4 * i, &x, 4); break; }
		case IR_DTYPE_DOUBLE: memcpy(p + 8 * i, &r[i], 8); break;
		default: p[i] = r[i] != 0; break;
		}
	}
	t->bytes.data = p;
	t->bytes.len = es * (size_t)k;
	ir_node_set_kind(n, "onnx::Constant");
	n->op = OP_NONE;
	n->ninputs = 0;
	n->nattrs = 0;
	ir_node_add_attr(c->g, n, "value", IR_ATTR_TENSOR)->u.t = t;
}

static void try_fold(struct lower_ctx *c, struct ir_node *n)
{
	if (n->noutputs != 1 || n->ninputs < 1 || n->ninputs > 8 ||
	    n->nblocks)
		return;
	struct ir_type *ty = n->outputs[0]->type;
	if (ty->kind != IR_TYPE_TENSOR || ty->rank < 0 ||
	    !fold_dtype_ok(ty->dtype))
		return;
	int64_t numel = 1;
	for (int i = 0; i < ty->rank; i++) {
		if (ty->dims[i].kind != IR_DIM_FIXED ||
		    __builtin_mul_overflow(numel, ty->dims[i].value, &numel))
			return;
	}
	if (numel < 0 || numel > FOLD_MAX)
		return;
	double in[8][FOLD_MAX], r[FOLD_MAX];
	int cnt[8];
	enum ir_dtype dts[8];
	int nin = (int)n->ninputs;
	for (int i = 0; i < nin; i++) {
		if (!n->inputs[i])
			return;
		cnt[i] = fold_read(n->inputs[i], in[i], FOLD_MAX, &dts[i]);
		if (cnt[i] < 0)
			return;
	}
	int k = (int)numel;
	if (is_op(n, "|Add|Sub|Mul|Div|Min|Max|") && nin == 2) {
		if ((cnt[0] != k && cnt[0] != 1) || (cnt[1] != k && cnt[1] != 1))
			return;
		int isint = is_int_dtype(ty->dtype);
		for (int i = 0; i < k; i++) {
			double x = in[0][cnt[0] == 1 ? 0 : i];
			double y = in[1][cnt[1] == 1 ? 0 : i];
			switch (n->kind[6]) {
			case 'A': r[i] = x + y; break;
			case 'S': r[i] = x - y; break;
			case 'M': r[i] = n->kind[7] == 'u' ? x * y
				       : n->kind[7] == 'i' ? (x < y ? x : y)
				       : (x > y ? x : y); break;
			default:
				if (isint && y == 0)
					return;
				r[i] = isint ? trunc(x / y) : x / y;
			}
			if (isint && fabs(r[i]) > 9007199254740992.0)
				return;
		}
	} else if (is_op(n, "|Neg|Floor|Ceil|Cast|Identity|Unsqueeze|Squeeze|"
			 "Reshape|")) {
		if (cnt[0] != k)
			return;
		for (int i = 0; i < k; i++) {
			double x = in[0][i];
			if (is_op(n, "|Neg|"))
				x = -x;
			else if (is_op(n, "|Floor|"))
				x = floor(x);
			else if (is_op(n, "|Ceil|"))
				x = ceil(x);
			else if (is_op(n, "|Cast|") && is_int_dtype(ty->dtype))
				x = trunc(x);
			r[i] = x;
		}
	} else if (is_op(n, "|Concat|")) {
		int at = 0;
		for (int i = 0; i < nin; i++)
			for (int j = 0; j < cnt[i]; j++) {
				if (at >= k)
					return;
				r[at++] = in[i][j];
			}
		if (at != k || ty->rank != 1)
			return;
	} else {
		return;
	}
	/* an integer result that does not fit its dtype (or NaN) is left to
	 * run: the conversion would be undefined */
	for (int i = 0; i < k && is_int_dtype(ty->dtype); i++) {
		double lim = ty->dtype == IR_DTYPE_INT32 ? 2147483648.0
						      : 9223372036854775808.0;
		if (!(r[i] >= -lim && r[i] < lim))
			return;
	}
	fold_to_const(c, n, r, k, ty->dtype);
}

struct ir_value *b_done(struct lower_ctx *c, struct ir_node *n)
{
	b_infer(c, n);
	try_fold(c, n);
	return n->noutputs ? n->outputs[0] : NULL;
}

struct ir_value *b_op1(struct lower_ctx *c, const char *op,
		       struct ir_value *a)
{
	return b_done(c, b_node(c, op, 1, &a, 1));
}

struct ir_value *b_op2(struct lower_ctx *c, const char *op,
		       struct ir_value *a, struct ir_value *b)
{
	struct ir_value *in[2] = { a, b };
	return b_done(c, b_node(c, op, 2, in, 1));
}

struct ir_value *b_op3(struct lower_ctx *c, const char *op,
		       struct ir_value *a, struct ir_value *b,
		       struct ir_value *d)
{
	struct ir_value *in[3] = { a, b, d };
	return b_done(c, b_node(c, op, 3, in, 1));
}

/* --- constants ----------------------------------------------------------- */

static struct ir_value *const_tensor(struct lower_ctx *c, struct ir_tensor *t)
{
	struct ir_node *n = b_node(c, "Constant", 0, NULL, 1);
	ir_node_add_attr(c->g, n, "value", IR_ATTR_TENSOR)->u.t = t;
	return b_done(c, n);
}

struct ir_value *b_const_i64s(struct lower_ctx *c, const int64_t *v, int n,
			      int rank)
{
	int64_t dim = n;
	return b_const_i64_shaped(c, v, n, &dim, rank);
}

struct ir_value *b_const_i64_shaped(struct lower_ctx *c, const int64_t *v,
				    int n, const int64_t *dims, int rank)
{
	struct ir_tensor *t = ir_tensor_new(c->g, IR_DTYPE_INT64, rank, dims);
	char *p = ir_alloc(c->g, 8 * (n ? n : 1));
	if (n)
		memcpy(p, v, 8 * n);
	t->bytes.data = p;
	t->bytes.len = 8 * n;
	return const_tensor(c, t);
}

struct ir_value *b_const_i64(struct lower_ctx *c, int64_t v)
{
	return b_const_i64s(c, &v, 1, 0);
}

struct ir_value *b_transpose(struct lower_ctx *c, struct ir_value *x,
			     const int64_t *perm, int rank)
{
	struct ir_node *t = b_node(c, "Transpose", 1, &x, 1);
	b_attr_ints(c, t, "perm", perm, rank);
	return b_done(c, t);
}

struct ir_value *b_swap_last2(struct lower_ctx *c, struct ir_value *x, int r)
{
	int64_t *perm = ir_alloc(c->g, sizeof(*perm) * (size_t)r);
	for (int i = 0; i < r; i++)
		perm[i] = i;
	perm[r - 2] = r - 1;
	perm[r - 1] = r - 2;
	return b_transpose(c, x, perm, r);
}

struct ir_value *b_concat(struct lower_ctx *c, int k,
			  struct ir_value *const *v, int64_t axis)
{
	struct ir_node *n = b_node(c, "Concat", k, v, 1);
	b_attr_i(c, n, "axis", axis);
	return b_done(c, n);
}

/* 1 when Gemm of opset c->opset computes in dt (what ONNX Runtime's CPU
 * Gemm runs: float and double). */
static int gemm_dtype_ok(const struct lower_ctx *c, enum ir_dtype dt)
{
	return c->opset >= 11 &&
	       (dt == IR_DTYPE_FLOAT || dt == IR_DTYPE_DOUBLE);
}

struct ir_value *b_untransposed2(const struct ir_value *v)
{
	const struct ir_node *t = v ? v->producer : NULL;
	if (!t || strcmp(t->kind, "onnx::Transpose") || t->ninputs != 1 ||
	    t->noutputs != 1 || b_rank(t->inputs[0]) != 2)
		return NULL;
	const struct ir_attr *a = ir_node_find_attr(t, "perm");
	if (a && (a->kind != IR_ATTR_INTS || a->count != 2 ||
		  a->u.ints[0] != 1 || a->u.ints[1] != 0))
		return NULL;
	return t->inputs[0];
}

/* Gemm(x, w) with transB=1, C = b when b (else none). */
static struct ir_value *gemm_t(struct lower_ctx *c, struct ir_value *x,
			       struct ir_value *w, struct ir_value *b)
{
	struct ir_value *in[3] = { x, w, b };
	struct ir_node *g = b_node(c, "Gemm", b ? 3 : 2, in, 1);
	if (b) {
		b_attr_f(c, g, "alpha", 1);
		b_attr_f(c, g, "beta", 1);
	}
	b_attr_i(c, g, "transB", 1);
	return b_done(c, g);
}

#define LINEAR_RANK_MAX 16

struct ir_value *b_linear(struct lower_ctx *c, struct ir_value *x,
			  struct ir_value *w, struct ir_value *b)
{
	int r = b_rank(x);
	int64_t k = b_dim_size(x, -1), nout = b_dim_size(w, 0);
	int64_t rows = 1, back[LINEAR_RANK_MAX];
	int ok = b_rank(w) == 2 && gemm_dtype_ok(c, b_dtype(x)) &&
		 b_dtype(w) == b_dtype(x);

	/* rank 2 with a bias: Gemm's C at every opset, as before */
	if (r == 2 && (b || ok))
		return gemm_t(c, x, w, b);
	ok = ok && r > 2 && r <= LINEAR_RANK_MAX && k >= 0 && nout >= 0;
	for (int i = 0; ok && i < r - 1; i++) {
		int64_t d = b_dim_size(x, i);
		if (d < 0 || (d && rows > INT64_MAX / d))
			ok = 0;
		else
			rows *= (back[i] = d);
	}
	if (!ok) {
		static const int64_t perm[2] = { 1, 0 };
		struct ir_value *y = b_op2(c, "MatMul", x,
					   b_transpose(c, w, perm, 2));
		return b ? b_op2(c, "Add", y, b) : y;
	}
	int64_t flat[2] = { rows, k };
	back[r - 1] = nout;
	struct ir_value *y = gemm_t(c, b_op2(c, "Reshape", x,
					     b_const_i64s(c, flat, 2, 1)),
				    w, NULL);
	y = b_op2(c, "Reshape", y, b_const_i64s(c, back, r, 1));
	return b ? b_op2(c, "Add", y, b) : y;
}

struct ir_value *b_const_reals(struct lower_ctx *c, const double *v,
			       const int64_t *dims, int rank, enum ir_dtype dt)
{
	int64_t cnt = 1;
	for (int i = 0; i < rank; i++)
		cnt *= dims[i];
	if (dt != IR_DTYPE_DOUBLE)
		dt = IR_DTYPE_FLOAT;
	struct ir_tensor *t = ir_tensor_new(c->g, dt, rank, dims);
	size_t es = ir_dtype_size(dt);
	char *p = ir_alloc(c->g, es * (size_t)(cnt ? cnt : 1));
	for (int64_t i = 0; i < cnt; i++) {
		if (dt == IR_DTYPE_DOUBLE) {
			memcpy(p + 8 * i, &v[i], 8);
		} else {
			float f = (float)v[i];
			memcpy(p + 4 * i, &f, 4);
		}
	}
	t->bytes.data = p;
	t->bytes.len = es * (size_t)cnt;
	return const_tensor(c, t);
}

struct ir_tensor *b_scalar_tensor(struct lower_ctx *c, double v,
				  enum ir_dtype dt, int rank)
{
	int64_t one = 1;
	size_t sz = ir_dtype_size(dt);
	char *p = ir_alloc(c->g, sz ? sz : 1);
	switch (dt) {
	case IR_DTYPE_FLOAT: { float f = (float)v; memcpy(p, &f, 4); break; }
	case IR_DTYPE_DOUBLE: memcpy(p, &v, 8); break;
	case IR_DTYPE_INT64: { int64_t i = (int64_t)v; memcpy(p, &i, 8); break; }
	case IR_DTYPE_INT32: { int32_t i = (int32_t)v; memcpy(p, &i, 4); break; }
	case IR_DTYPE_INT16: { int16_t i = (int16_t)v; memcpy(p, &i, 2); break; }
	case IR_DTYPE_INT8: { int8_t i = (int8_t)v; memcpy(p, &i, 1); break; }
	case IR_DTYPE_UINT8: { uint8_t i = (uint8_t)v; memcpy(p, &i, 1); break; }
	case IR_DTYPE_BOOL: p[0] = v != 0; break;
	default: return NULL; /* half and others */
	}
	struct ir_tensor *t = ir_tensor_new(c->g, dt, rank, &one);
	t->bytes.data = p;
	t->bytes.len = sz;
	return t;
}

struct ir_value *b_const_scalar(struct lower_ctx *c, double v,
				enum ir_dtype dt, int rank)
{
	if (dt == IR_DTYPE_UNDEFINED)
		dt = IR_DTYPE_FLOAT;
	struct ir_tensor *t = b_scalar_tensor(c, v, dt, rank);
	if (t)
		return const_tensor(c, t);
	/* half and others: through float and a Cast */
	return b_cast(c, const_tensor(c, b_scalar_tensor(c, v, IR_DTYPE_FLOAT,
							 rank)), dt);
}

struct ir_value *b_const_bool(struct lower_ctx *c, int v)
{
	return b_const_scalar(c, v ? 1 : 0, IR_DTYPE_BOOL, 0);
}

const struct ir_tensor *b_const_of(const struct ir_value *v)
{
	if (v && v->weight && v->weight->tensor->data_kind == IR_DATA_INLINE &&
	    ir_tensor_numel(v->weight->tensor) <= 1)
		return v->weight->tensor; /* a scalar weight (lower.c) */
	if (!v || !v->producer || strcmp(v->producer->kind, "onnx::Constant"))
		return NULL;
	struct ir_attr *a = ir_node_find_attr(v->producer, "value");
	if (!a || a->kind != IR_ATTR_TENSOR ||
	    a->u.t->data_kind != IR_DATA_INLINE)
		return NULL;
	return a->u.t;
}

int b_const_ints(const struct ir_value *v, int64_t *out, int max)
{
	const struct ir_tensor *t = b_const_of(v);
	if (!t || (t->dtype != IR_DTYPE_INT64 && t->dtype != IR_DTYPE_INT32))
		return -1;
	uint64_t n = ir_tensor_numel(t);
	if (n > (uint64_t)max)
		return -1;
	for (uint64_t i = 0; i < n; i++) {
		if (t->dtype == IR_DTYPE_INT64) {
			memcpy(&out[i], t->bytes.data + 8 * i, 8);
		} else {
			int32_t x;
			memcpy(&x, t->bytes.data + 4 * i, 4);
			out[i] = x;
		}
	}
	return (int)n;
}

/* --- opset-dependent helpers -------------------------------------------- */

struct ir_value *b_cast(struct lower_ctx *c, struct ir_value *v,
			enum ir_dtype dt)
{
	if (b_dtype(v) == dt)
		return v;
	struct ir_node *n = b_node(c, "Cast", 1, &v, 1);
	b_attr_i(c, n, "to", dt);
	return b_done(c, n);
}

static struct ir_node *axes_op(struct lower_ctx *c, const char *op,
				struct ir_value *v, const int64_t *axes,
				int n, int input_from)
{
	struct ir_node *nd;
	if (c->opset >= input_from) {
		struct ir_value *in[2] = { v, n ? b_const_i64s(c, axes, n, 1)
					    : NULL };
		nd = b_node(c, op, n ? 2 : 1, in, 1);
	} else {
		nd = b_node(c, op, 1, &v, 1);
		if (n)
			b_attr_ints(c, nd, "axes", axes, n);
	}
	return nd;
}

struct ir_value *b_unsqueeze(struct lower_ctx *c, struct ir_value *v,
			     const int64_t *axes, int n)
{
	return b_done(c, axes_op(c, "Unsqueeze", v, axes, n, 13));
}

struct ir_value *b_squeeze(struct lower_ctx *c, struct ir_value *v,
			   const int64_t *axes, int n)
{
	return b_done(c, axes_op(c, "Squeeze", v, axes, n, 13));
}

struct ir_value *b_reduce(struct lower_ctx *c, const char *op,
			  struct ir_value *v, const int64_t *axes, int n,
			  int keepdims)
{
	int from = !strcmp(op, "ReduceSum") ? 13 : 18;
	static const int64_t zero = 0;
	if (n > 0 && b_rank(v) == 0) {
		/* torch: dim 0 or -1 of a 0-d tensor is the tensor itself;
		 * ONNX has no axis there: reduce a [1] over it to a 0-d */
		v = b_unsqueeze(c, v, &zero, 1);
		axes = &zero;
		n = 1;
		keepdims = 0;
	}
	struct ir_node *nd = axes_op(c, op, v, axes, n, from);
	b_attr_i(c, nd, "keepdims", keepdims);
	return b_done(c, nd);
}

struct ir_value *b_slice(struct lower_ctx *c, struct ir_value *v,
			 int64_t start, int64_t end, int64_t axis,
			 int64_t step)
{
	if (c->opset < 10) {
		struct ir_node *n = b_node(c, "Slice", 1, &v, 1);
		b_attr_ints(c, n, "axes", &axis, 1);
		b_attr_ints(c, n, "starts", &start, 1);
		b_attr_ints(c, n, "ends", &end, 1);
		return b_done(c, n);
	}
	struct ir_value *in[5] = { v, b_const_i64s(c, &start, 1, 1),
				   b_const_i64s(c, &end, 1, 1),
				   b_const_i64s(c, &axis, 1, 1),
				   b_const_i64s(c, &step, 1, 1) };
	return b_done(c, b_node(c, "Slice", 5, in, 1));
}

struct ir_value *b_flip(struct lower_ctx *c, struct ir_value *v,
			int64_t axis)
{
	int64_t len = b_dim_size(v, axis);
	if (len == 0 || len == 1)
		return v;	/* nothing to reverse (and ONNX's Slice
				 * inference gives an empty dim a 1) */
	return b_slice(c, v, -1, INT64_MIN, axis, -1);
}

void b_split(struct lower_ctx *c, struct ir_value *v, int64_t axis,
	     const int64_t *sizes, int n, struct ir_value **outs)
{
	struct ir_node *nd;
	if (sizes && c->opset >= 13) {
		struct ir_value *in[2] = { v, b_const_i64s(c, sizes, n, 1) };
		nd = b_node(c, "Split", 2, in, n);
	} else {
		nd = b_node(c, "Split", 1, &v, n);
		if (sizes)
			b_attr_ints(c, nd, "split", sizes, n);
		else if (c->opset >= 18) /* Split-18: equal parts need it */
			b_attr_i(c, nd, "num_outputs", n);
	}
	b_attr_i(c, nd, "axis", axis);
	b_done(c, nd);
	for (int i = 0; i < n; i++)
		outs[i] = nd->outputs[i];
}

struct ir_value *b_dim(struct lower_ctx *c, struct ir_value *v, int64_t dim)
{
	struct ir_value *s = b_op1(c, "Shape", v);
	struct ir_node *n = b_node(c, "Gather", 2,
				   (struct ir_value *[]){ s, b_const_i64(c, dim) },
				   1);
	b_attr_i(c, n, "axis", 0);
	return b_done(c, n);
}

struct ir_value *b_clip(struct lower_ctx *c, struct ir_value *v, double lo,
			double hi)
{
	if (c->opset < 11) {
		struct ir_node *n = b_node(c, "Clip", 1, &v, 1);
		if (!isnan(lo))
			b_attr_f(c, n, "min", lo);
		if (!isnan(hi))
			b_attr_f(c, n, "max", hi);
		return b_done(c, n);
	}
	enum ir_dtype dt = b_dtype(v);
	struct ir_value *in[3] = { v,
		isnan(lo) ? NULL : b_const_scalar(c, lo, dt, 0),
		isnan(hi) ? NULL : b_const_scalar(c, hi, dt, 0) };
	return b_done(c, b_node(c, "Clip", isnan(hi) ? 2 : 3, in, 1));
}

/* --- inference ----------------------------------------------------------- */

struct shape {
	int rank; /* -1 unknown */
	struct ir_dim d[MAXR];
};

static void shape_of(const struct ir_value *v, struct shape *s)
{
	s->rank = b_rank(v);
	if (s->rank > MAXR)
		s->rank = -1;
	for (int i = 0; i < s->rank; i++) {
		if (v->type->kind == IR_TYPE_TENSOR)
			s->d[i] = v->type->dims[i];
	}
}

static void set_type(struct lower_ctx *c, struct ir_value *v,
		     enum ir_dtype dt, const struct shape *s)
{
	struct ir_type *t = ir_type_new(c->g, IR_TYPE_TENSOR);
	t->dtype = dt;
	t->rank = s ? s->rank : -1;
	if (t->rank > 0) {
		t->dims = ir_alloc(c->g, sizeof(struct ir_dim) * t->rank);
		memcpy(t->dims, s->d, sizeof(struct ir_dim) * t->rank);
	}
	v->type = t;
}

static struct ir_dim fixed(int64_t v)
{
	struct ir_dim d = { IR_DIM_FIXED, v, NULL };
	return d;
}

static struct ir_dim unknown(void)
{
	struct ir_dim d = { IR_DIM_UNKNOWN, 0, NULL };
	return d;
}

static int is_one(struct ir_dim a)
{
	return a.kind == IR_DIM_FIXED && a.value == 1;
}

static struct ir_dim bcast_dim(struct ir_dim a, struct ir_dim b)
{
	if (is_one(a))
		return b;
	if (is_one(b) || ir_dim_same(a, b))
		return a;
	if (a.kind == IR_DIM_FIXED)
		return a;
	if (b.kind == IR_DIM_FIXED)
		return b;
	return unknown();
}

static void broadcast(struct shape *out, const struct shape *a,
		      const struct shape *b)
{
	if (a->rank < 0 || b->rank < 0) {
		out->rank = -1;
		return;
	}
	int r = a->rank > b->rank ? a->rank : b->rank;
	struct shape res;
	res.rank = r;
	for (int i = 0; i < r; i++) {
		int ia = i - (r - a->rank), ib = i - (r - b->rank);
		if (ia < 0)
			res.d[i] = b->d[ib];
		else if (ib < 0)
			res.d[i] = a->d[ia];
		else
			res.d[i] = bcast_dim(a->d[ia], b->d[ib]);
	}
	*out = res;
}

static int64_t attr_i(const struct ir_node *n, const char *name, int64_t def)
{
	struct ir_attr *a = ir_node_find_attr(n, name);
	return a && a->kind == IR_ATTR_INT ? a->u.i : def;
}

static int attr_ints(const struct ir_node *n, const char *name, int64_t *v,
		     int max)
{
	struct ir_attr *a = ir_node_find_attr(n, name);
	if (!a || a->kind != IR_ATTR_INTS || a->count > (uint32_t)max)
		return -1;
	memcpy(v, a->u.ints, sizeof(int64_t) * a->count);
	return (int)a->count;
}

/* Axes of Unsqueeze/Squeeze/Reduce: attribute or constant input 1. */
static int node_axes(const struct ir_node *n, int64_t *v, int max)
{
	int k = attr_ints(n, "axes", v, max);
	if (k >= 0)
		return k;
	if (n->ninputs > 1 && n->inputs[1])
		return b_const_ints(n->inputs[1], v, max);
	return n->ninputs > 1 ? -1 : 0;
}

static int norm_axis(int64_t a, int r)
{
	return (int)(a < 0 ? a + r : a);
}

static int is_op(const struct ir_node *n, const char *list)
{
	/* list: "|A|B|C|" */
	const char *op = n->kind + 6;
	size_t len = strlen(op);
	for (const char *p = strstr(list, op); p; p = strstr(p + 1, op))
		if (p[-1] == '|' && p[len] == '|')
			return 1;
	return 0;
}

/* Conv/pool output spatial size. */
static struct ir_dim conv_dim(struct ir_dim in, int64_t k, int64_t s,
			      int64_t pb, int64_t pe, int64_t dil, int ceil)
{
	/* malformed sizes (a stride of 0, sums past int64) are not inferred:
	 * the node's own checks refuse them */
	int64_t span, num, o;
	if (in.kind != IR_DIM_FIXED || s <= 0 || k < 1 || dil < 1)
		return unknown();
	if (__builtin_mul_overflow(dil, k - 1, &span) ||
	    __builtin_add_overflow(in.value, pb, &num) ||
	    __builtin_add_overflow(num, pe, &num) ||
	    __builtin_sub_overflow(num, span, &num) ||
	    __builtin_sub_overflow(num, 1, &num) || num < 0 ||
	    num > INT64_MAX - s)
		return unknown();
	o = ceil ? (num + s - 1) / s + 1 : num / s + 1;
	if (ceil && (o - 1) * s >= in.value + pb)
		o--;
	return fixed(o);
}

static void infer_conv(const struct ir_node *n, struct shape *s,
		       const struct shape *x, const struct shape *w)
{
	int64_t k[8], st[8], p[16], dl[8];
	int sp = x->rank - 2;
	s->rank = x->rank;
	if (x->rank < 3 || sp > 8) {
		s->rank = -1;
		return;
	}
	int isconv = !strcmp(n->kind, "onnx::Conv");
	if (attr_ints(n, "kernel_shape", k, 8) != sp) {
		if (!isconv || w->rank != x->rank) {
			s->rank = -1;
			return;
		}
		for (int i = 0; i < sp; i++) {
			if (w->d[2 + i].kind != IR_DIM_FIXED) {
				s->rank = -1;
				return;
			}
			k[i] = w->d[2 + i].value;
		}
	}
	for (int i = 0; i < sp; i++)
		st[i] = dl[i] = 1, p[i] = p[i + sp] = 0;
	attr_ints(n, "strides", st, 8);
	attr_ints(n, "dilations", dl, 8);
	attr_ints(n, "pads", p, 16);
	int ceil = (int)attr_i(n, "ceil_mode", 0);
	s->d[0] = x->d[0];
	if (isconv)
		s->d[1] = w->rank > 0 ? w->d[0] : unknown();
	else if (!strncmp(n->kind + 6, "Global", 6))
		s->d[1] = x->d[1];
	else
		s->d[1] = x->d[1];
	for (int i = 0; i < sp; i++)
		s->d[2 + i] = conv_dim(x->d[2 + i], k[i], st[i], p[i],
				       p[i + sp], dl[i], ceil);
}

/* A shape tensor built by Concat from constants and Unsqueeze(Gather(
 * Shape(y), i)) pieces: the values into v (-2 for a dim taken from y, whose
 * dim then sits in known->d), the count, or -1. */
static int shape_value(const struct ir_value *sv, int64_t *v,
		       struct shape *known)
{
	const struct ir_node *cat = sv ? sv->producer : NULL;
	int k = 0;
	if (!cat || strcmp(cat->kind, "onnx::Concat"))
		return -1;
	for (uint32_t i = 0; i < cat->ninputs; i++) {
		const struct ir_value *p = cat->inputs[i];
		int64_t tmp[MAXR];
		int m = b_const_ints(p, tmp, MAXR - k);
		if (m >= 0) {
			for (int j = 0; j < m; j++) {
				v[k] = tmp[j];
				known->d[k++] = unknown();
			}
			continue;
		}
		if (k >= MAXR)
			return -1;
		struct ir_dim d = unknown();
		const struct ir_node *u = p ? p->producer : NULL;
		if (u && !strcmp(u->kind, "onnx::Unsqueeze") && u->inputs[0]) {
			const struct ir_node *g = u->inputs[0]->producer;
			int64_t idx;
			if (g && !strcmp(g->kind, "onnx::Gather") &&
			    b_const_ints(g->inputs[1], &idx, 1) == 1 &&
			    g->inputs[0]->producer &&
			    !strcmp(g->inputs[0]->producer->kind, "onnx::Shape")) {
				const struct ir_value *y =
					g->inputs[0]->producer->inputs[0];
				if (b_rank(y) > idx && idx >= 0)
					d = y->type->dims[idx];
			}
		}
		if (b_rank(p) != 1 || p->type->dims[0].kind != IR_DIM_FIXED ||
		    p->type->dims[0].value != 1)
			return -1;
		v[k] = -2;
		known->d[k++] = d;
	}
	known->rank = k;
	return k;
}

/* When sv is Shape(y): y's shape into s, returns 1. */
static int of_shape(const struct ir_value *sv, struct shape *s)
{
	const struct ir_node *p = sv ? sv->producer : NULL;
	if (!p || strcmp(p->kind, "onnx::Shape") || b_rank(p->inputs[0]) < 0)
		return 0;
	shape_of(p->inputs[0], s);
	return 1;
}

/* Resize / Upsample: the rank from the input, else from the sizes' or
 * scales' length; a dim from constant sizes, or from a constant scale as
 * floor(dim * scale) in float, as ONNX's inference and ONNX Runtime do. */
static void infer_resize(struct lower_ctx *c, const struct ir_node *n,
			 struct shape *s, const struct shape *a)
{
	const struct ir_value *scv = NULL, *szv = NULL;
	double sc[FOLD_MAX];
	int64_t sz[MAXR];
	enum ir_dtype fdt;
	int nsc = -1, nsz = -1;
	if (is_op(n, "|Upsample|") || c->opset < 11) {
		scv = n->ninputs > 1 ? n->inputs[1] : NULL;
	} else {
		scv = n->ninputs > 2 ? n->inputs[2] : NULL;
		szv = n->ninputs > 3 ? n->inputs[3] : NULL;
	}
	if (scv)
		nsc = fold_read(scv, sc, FOLD_MAX, &fdt);
	if (!scv) {
		struct ir_attr *at = ir_node_find_attr(n, "scales");
		if (at && at->kind == IR_ATTR_FLOATS &&
		    at->count <= FOLD_MAX) {
			nsc = (int)at->count;
			for (int i = 0; i < nsc; i++)
				sc[i] = at->u.floats[i];
		}
	}
	if (szv)
		nsz = b_const_ints(szv, sz, MAXR);
	s->rank = a->rank;
	if (s->rank < 0 && nsz > 0)
		s->rank = nsz;
	if (s->rank < 0 && nsc > 0)
		s->rank = nsc;
	for (int k = 0; s->rank < 0 && k < 2; k++) {
		/* a runtime sizes or scales input of known length */
		const struct ir_value *v = k ? scv : szv;
		if (b_rank(v) == 1 && v->type->dims[0].kind == IR_DIM_FIXED &&
		    v->type->dims[0].value > 0 &&
		    v->type->dims[0].value <= MAXR)
			s->rank = (int)v->type->dims[0].value;
	}
	if (s->rank > MAXR)
		s->rank = -1;
	for (int i = 0; i < s->rank; i++) {
		s->d[i] = unknown();
		if (nsz == s->rank) {
			if (sz[i] >= 0)
				s->d[i] = fixed(sz[i]);
		} else if (nsc == s->rank && a->rank == s->rank &&
			   a->d[i].kind == IR_DIM_FIXED && sc[i] > 0) {
			float p = (float)a->d[i].value * (float)sc[i];
			s->d[i] = fixed((int64_t)floorf(p));
		}
	}
}

struct ir_type *b_seq_type(struct lower_ctx *c, enum ir_dtype dt, int rank)
{
	struct ir_type *t = ir_type_new(c->g, IR_TYPE_LIST);
	t->nelems = 1;
	t->elems = ir_alloc(c->g, sizeof(*t->elems));
	t->elems[0] = ir_type_tensor(c->g, dt, rank, NULL);
	return t;
}

int b_is_seq(const struct ir_value *v)
{
	return v && v->type->kind == IR_TYPE_LIST && v->type->nelems == 1 &&
	       v->type->elems[0]->kind == IR_TYPE_TENSOR &&
	       (!v->producer || !strncmp(v->producer->kind, "onnx::", 6));
}

/* The element dtype of a sequence value, UNDEFINED if unknown. */
static enum ir_dtype seq_elem_dtype(const struct ir_value *v)
{
	if (!v || v->type->kind != IR_TYPE_LIST || v->type->nelems != 1 ||
	    v->type->elems[0]->kind != IR_TYPE_TENSOR)
		return IR_DTYPE_UNDEFINED;
	return v->type->elems[0]->dtype;
}

/* Sequence ops: SequenceEmpty/Construct/Insert/Erase and SplitToSequence
 * make sequences (Tensor[] of the element dtype); SequenceAt and
 * ConcatFromSequence tensors of rank unknown; SequenceLength a 0-d Long. */
static void infer_seq(struct lower_ctx *c, struct ir_node *n)
{
	enum ir_dtype dt = IR_DTYPE_UNDEFINED;
	struct ir_value *o = n->outputs[0];
	const struct ir_value *s0 = n->ninputs ? n->inputs[0] : NULL;
	int er = s0 && s0->type->kind == IR_TYPE_LIST && s0->type->nelems == 1
		 ? s0->type->elems[0]->rank : -1;
	if (is_op(n, "|SequenceEmpty|")) {
		struct ir_attr *a = ir_node_find_attr(n, "dtype");
		dt = a && a->kind == IR_ATTR_INT ? (enum ir_dtype)a->u.i
						 : IR_DTYPE_FLOAT;
		o->type = b_seq_type(c, dt, -1);
	} else if (is_op(n, "|SequenceConstruct|SplitToSequence|")) {
		int r = b_rank(n->inputs[0]);
		if (is_op(n, "|SplitToSequence|") && n->ninputs < 2 &&
		    !attr_i(n, "keepdims", 1))
			r = r > 0 ? r - 1 : -1;
		o->type = b_seq_type(c, b_dtype(n->inputs[0]), r);
	} else if (is_op(n, "|SequenceInsert|SequenceErase|")) {
		dt = seq_elem_dtype(n->inputs[0]);
		if (n->ninputs > 1 && is_op(n, "|SequenceInsert|")) {
			if (b_dtype(n->inputs[1]) != IR_DTYPE_UNDEFINED)
				dt = b_dtype(n->inputs[1]);
			if (er < 0)
				er = b_rank(n->inputs[1]);
		}
		o->type = b_seq_type(c, dt, er);
	} else if (is_op(n, "|SequenceLength|")) {
		o->type = ir_type_tensor(c->g, IR_DTYPE_INT64, 0, NULL);
	} else {
		if (is_op(n, "|ConcatFromSequence|") && er >= 0 &&
		    attr_i(n, "new_axis", 0))
			er++;
		o->type = ir_type_tensor(c->g, seq_elem_dtype(n->inputs[0]),
					 er, NULL);
	}
}

/* What b_infer's families share: the node's first two inputs' shapes a and
 * b, the output shape s and dtype dt they work out, scratch for ints. A
 * family works on it in place; b_infer reads s and dt after INFER_SET. */
struct infer {
	struct shape s, a, b;
	enum ir_dtype dt;
	int64_t v[MAXR];
};

/* A family's answer: not one of its ops, the outputs' types are f's s and
 * dt, or it set them itself (or left them). */
enum infer_rc { INFER_NONE, INFER_SET, INFER_DONE };

/* b_infer for the constant, elementwise ops that keep their input's shape and
 * dtype, and the *Like generators. */
static enum infer_rc infer_same_shape(struct lower_ctx *c,
				      struct ir_node *n, struct infer *f)
{
	if (!strcmp(n->kind, "onnx::Constant")) {
		struct ir_attr *at = ir_node_find_attr(n, "value");
		if (at && at->kind == IR_ATTR_TENSOR) {
			f->dt = at->u.t->dtype;
			f->s.rank = at->u.t->rank;
			for (int i = 0; i < f->s.rank; i++)
				f->s.d[i] = fixed(at->u.t->dims[i]);
		}
	} else if (is_op(n, "|Dropout|") && n->noutputs > 1) {
		/* the mask: Bool, the input's shape */
		set_type(c, n->outputs[0], f->dt, &f->a);
		set_type(c, n->outputs[1], IR_DTYPE_BOOL, &f->a);
		return INFER_DONE;
	} else if (is_op(n, "|Relu|Sigmoid|Tanh|Exp|Log|Neg|Abs|Sqrt|"
			 "Reciprocal|Erf|Identity|LeakyRelu|HardSigmoid|"
			 "HardSwish|Elu|Softmax|LogSoftmax|Dropout|Clip|Floor|"
			 "Ceil|Sin|Cos|Not|Trilu|BatchNormalization|"
			 "LayerNormalization|InstanceNormalization|"
			 "GroupNormalization|RMSNormalization|Round|Sign|"
			 "Softplus|CumSum|Selu|Celu|PRelu|Gelu|Scatter|"
			 "ScatterElements|ScatterND|Acos|Asin|Atan|Tan|Sinh|Cosh|"
			 "Asinh|Acosh|Atanh|Shrink|ThresholdedRelu|Mish|")) {
		f->s = f->a;
	} else if (is_op(n, "|EyeLike|RandomUniformLike|RandomNormalLike|"
			 "Bernoulli|")) {
		f->s = f->a;
		f->dt = (enum ir_dtype)attr_i(n, "dtype", f->dt);
	} else {
		return INFER_NONE;
	}
	return INFER_SET;
}

/* b_infer for tests, quantization, random sampling, the loss, depth/space
 * rearrangement, grid sampling and the selections (Compress, OneHot,
 * Unique). */
static enum infer_rc infer_special(struct lower_ctx *c,
				   struct ir_node *n, struct infer *f)
{
	if (is_op(n, "|IsNaN|IsInf|")) {
		f->s = f->a;
		f->dt = IR_DTYPE_BOOL;
	} else if (is_op(n, "|QuantizeLinear|")) {
		f->s = f->a;
		f->dt = n->ninputs > 2 && n->inputs[2] ? b_dtype(n->inputs[2])
						    : IR_DTYPE_UINT8;
	} else if (is_op(n, "|DequantizeLinear|")) {
		f->s = f->a;
		f->dt = IR_DTYPE_FLOAT;
	} else if (is_op(n, "|Det|")) {
		if (f->a.rank >= 2) {
			f->s = f->a;
			f->s.rank -= 2;
		}
	} else if (is_op(n, "|Size|")) {
		f->s.rank = 0;
		f->dt = IR_DTYPE_INT64;
	} else if (is_op(n, "|RandomUniform|RandomNormal|")) {
		int k = attr_ints(n, "shape", f->v, MAXR);
		f->dt = (enum ir_dtype)attr_i(n, "dtype", IR_DTYPE_FLOAT);
		if (k >= 0) {
			f->s.rank = k;
			for (int i = 0; i < k; i++)
				f->s.d[i] = f->v[i] >= 0 ? fixed(f->v[i])
							 : unknown();
		}
	} else if (is_op(n, "|Multinomial|")) {
		int64_t k = attr_i(n, "sample_size", 1);
		f->dt = (enum ir_dtype)attr_i(n, "dtype", IR_DTYPE_INT32);
		if (f->a.rank == 2) {
			f->s.rank = 2;
			f->s.d[0] = f->a.d[0];
			f->s.d[1] = fixed(k);
		}
	} else if (is_op(n, "|SoftmaxCrossEntropyLoss|"
			 "NegativeLogLikelihoodLoss|")) {
		struct ir_attr *ra = ir_node_find_attr(n, "reduction");
		int none = ra && ra->kind == IR_ATTR_STRING &&
			   ra->u.s.len == 4 && !memcmp(ra->u.s.data, "none", 4);
		if (none)
			f->s = f->b;
		else
			f->s.rank = 0;
		set_type(c, n->outputs[0], f->dt, &f->s);
		/* SoftmaxCrossEntropyLoss's log_prob: the input's shape */
		for (uint32_t o = 1; o < n->noutputs; o++)
			set_type(c, n->outputs[o], f->dt, &f->a);
		return INFER_DONE;
	} else if (is_op(n, "|DepthToSpace|SpaceToDepth|")) {
		int64_t bs = attr_i(n, "blocksize", 0);
		int up = is_op(n, "|DepthToSpace|");
		if (f->a.rank == 4 && bs > 0) {
			f->s = f->a;
			for (int i = 1; i < 4; i++) {
				struct ir_dim d = f->a.d[i];
				int64_t fac = i == 1 ? bs * bs : bs;
				int mul = i == 1 ? !up : up;
				if (d.kind != IR_DIM_FIXED)
					f->s.d[i] = unknown();
				else if (mul)
					f->s.d[i] = fixed(d.value * fac);
				else if (d.value % fac == 0)
					f->s.d[i] = fixed(d.value / fac);
				else
					f->s.d[i] = unknown();
			}
		} else if (f->a.rank < 0) {
			f->s.rank = 4;
			for (int i = 0; i < 4; i++)
				f->s.d[i] = unknown();
		}
	} else if (is_op(n, "|GridSample|")) {
		/* [N, C, grid's spatial dims] */
		int r = f->a.rank >= 0 ? f->a.rank : f->b.rank;
		if (r >= 3) {
			f->s.rank = r;
			f->s.d[0] = f->a.rank == r ? f->a.d[0] : f->b.d[0];
			f->s.d[1] = f->a.rank == r ? f->a.d[1] : unknown();
			for (int i = 2; i < r; i++)
				f->s.d[i] = f->b.rank == r ? f->b.d[i - 1]
								 : unknown();
		}
	} else if (is_op(n, "|Compress|")) {
		struct ir_attr *ax = ir_node_find_attr(n, "axis");
		if (!ax) {
			f->s.rank = 1;
			f->s.d[0] = unknown();
		} else if (f->a.rank >= 0) {
			int x = norm_axis(ax->u.i, f->a.rank);
			f->s = f->a;
			if (x >= 0 && x < f->a.rank)
				f->s.d[x] = unknown();
			else
				f->s.rank = -1;
		}
	} else if (is_op(n, "|OneHot|")) {
		int64_t depth;
		f->dt = n->ninputs > 2 ? b_dtype(n->inputs[2])
				    : IR_DTYPE_UNDEFINED;
		if (f->a.rank >= 0 && f->a.rank < MAXR) {
			int r = f->a.rank + 1;
			int x = norm_axis(attr_i(n, "axis", -1), r);
			if (x >= 0 && x < r) {
				struct ir_dim dd = unknown();
				if (b_const_ints(n->inputs[1], &depth, 1) == 1 &&
				    depth >= 0)
					dd = fixed(depth);
				f->s.rank = r;
				for (int i = 0, src = 0; i < r; i++)
					f->s.d[i] = i == x ? dd : f->a.d[src++];
			}
		}
	} else if (is_op(n, "|Unique|")) {
		struct ir_attr *ax = ir_node_find_attr(n, "axis");
		struct shape one;
		one.rank = 1;
		one.d[0] = unknown();
		if (!ax) {
			f->s = one;
		} else if (f->a.rank >= 0) {
			int x = norm_axis(ax->u.i, f->a.rank);
			f->s = f->a;
			if (x >= 0 && x < f->a.rank)
				f->s.d[x] = unknown();
			else
				f->s.rank = -1;
		}
		set_type(c, n->outputs[0], f->dt, &f->s);
		for (uint32_t o = 1; o < n->noutputs; o++)
			set_type(c, n->outputs[o], IR_DTYPE_INT64, &one);
		return INFER_DONE;
	} else {
		return INFER_NONE;
	}
	return INFER_SET;
}

/* b_infer for binary arithmetic and compares (broadcast), Where and Cast. */
static enum infer_rc infer_broadcast(struct lower_ctx *c,
				     struct ir_node *n, struct infer *f)
{
	if (is_op(n, "|Add|Sub|Mul|Div|Pow|Max|Min|Mod|Sum|BitwiseAnd|"
		  "BitwiseOr|BitwiseXor|")) {
		f->s = f->a;
		for (uint32_t i = 1; i < n->ninputs; i++) {
			shape_of(n->inputs[i], &f->b);
			broadcast(&f->s, &f->s, &f->b);
		}
	} else if (is_op(n, "|Equal|Less|Greater|LessOrEqual|GreaterOrEqual|"
			 "And|Or|Xor|")) {
		broadcast(&f->s, &f->a, &f->b);
		f->dt = IR_DTYPE_BOOL;
	} else if (is_op(n, "|Where|")) {
		struct shape x;
		shape_of(n->inputs[2], &x);
		broadcast(&f->s, &f->a, &f->b);
		broadcast(&f->s, &f->s, &x);
		f->dt = b_dtype(n->inputs[1]);
	} else if (is_op(n, "|Cast|")) {
		f->s = f->a;
		f->dt = (enum ir_dtype)attr_i(n, "to", 0);
	} else {
		return INFER_NONE;
	}
	return INFER_SET;
}

/* b_infer for Shape, Gather and the reshaping ops (Unsqueeze, Squeeze,
 * Reshape, Transpose, Flatten). */
static enum infer_rc infer_shape_ops(struct lower_ctx *c,
				     struct ir_node *n, struct infer *f)
{
	if (is_op(n, "|Shape|")) {
		f->dt = IR_DTYPE_INT64;
		f->s.rank = 1;
		f->s.d[0] = f->a.rank >= 0 ? fixed(f->a.rank) : unknown();
	} else if (is_op(n, "|Gather|")) {
		int ax = norm_axis(attr_i(n, "axis", 0), f->a.rank);
		if (f->a.rank >= 0 && f->b.rank >= 0 &&
		    f->a.rank - 1 + f->b.rank <= MAXR &&
		    ax >= 0 && ax < f->a.rank) {
			f->s.rank = 0;
			for (int i = 0; i < ax; i++)
				f->s.d[f->s.rank++] = f->a.d[i];
			for (int i = 0; i < f->b.rank; i++)
				f->s.d[f->s.rank++] = f->b.d[i];
			for (int i = ax + 1; i < f->a.rank; i++)
				f->s.d[f->s.rank++] = f->a.d[i];
		}
	} else if (is_op(n, "|Unsqueeze|")) {
		int k = node_axes(n, f->v, MAXR);
		if (f->a.rank >= 0 && k > 0 && f->a.rank + k <= MAXR) {
			int r = f->a.rank + k, src = 0;
			char mark[MAXR] = { 0 };
			for (int i = 0; i < k; i++) {
				int ax = norm_axis(f->v[i], r);
				if (ax >= 0 && ax < r)
					mark[ax] = 1;
			}
			f->s.rank = r;
			for (int i = 0; i < r; i++)
				f->s.d[i] = mark[i] ? fixed(1) : f->a.d[src++];
			if (src != f->a.rank)
				f->s.rank = -1;
		}
	} else if (is_op(n, "|Squeeze|")) {
		int k = node_axes(n, f->v, MAXR);
		if (f->a.rank >= 0 && k >= 0) {
			char mark[MAXR] = { 0 };
			int ok = 1;
			for (int i = 0; i < k; i++) {
				int ax = norm_axis(f->v[i], f->a.rank);
				if (ax >= 0 && ax < f->a.rank)
					mark[ax] = 1;
			}
			if (k == 0)
				for (int i = 0; i < f->a.rank; i++) {
					if (f->a.d[i].kind != IR_DIM_FIXED)
						ok = 0;
					mark[i] = is_one(f->a.d[i]);
				}
			f->s.rank = 0;
			for (int i = 0; i < f->a.rank; i++)
				if (!mark[i])
					f->s.d[f->s.rank++] = f->a.d[i];
			if (!ok)
				f->s.rank = -1;
		}
	} else if (is_op(n, "|Reshape|")) {
		int k = b_const_ints(n->inputs[1], f->v, MAXR);
		struct shape known;
		known.rank = -1;
		if (k < 0)
			k = shape_value(n->inputs[1], f->v, &known);
		if (k < 0 && of_shape(n->inputs[1], &f->s)) {
			k = -1; /* s is Shape(y)'s shape: done */
		} else if (k < 0 && f->b.rank == 1 &&
			   f->b.d[0].kind == IR_DIM_FIXED &&
			   f->b.d[0].value <= MAXR) {
			/* a runtime shape of known length: the rank */
			f->s.rank = (int)f->b.d[0].value;
			for (int i = 0; i < f->s.rank; i++)
				f->s.d[i] = unknown();
		} else if (k >= 0) {
			int neg = -1;
			f->s.rank = k;
			for (int i = 0; i < k; i++) {
				if (f->v[i] == 0 && i < f->a.rank)
					f->s.d[i] = f->a.d[i];
				else if (f->v[i] == -1)
					neg = i, f->s.d[i] = unknown();
				else
					f->s.d[i] = f->v[i] > 0 ? fixed(f->v[i])
								: unknown();
				if (known.rank > i &&
				    known.d[i].kind != IR_DIM_UNKNOWN)
					f->s.d[i] = known.d[i];
			}
			if (neg >= 0 && f->a.rank >= 0) {
				/* -1: product of input / product of others
				 * when all are fixed, or symbol cancels */
				int64_t pin = 1, pout = 1;
				int ok = 1;
				for (int i = 0; i < f->a.rank; i++) {
					int matched = 0;
					if (f->a.d[i].kind == IR_DIM_SYMBOL)
						for (int j = 0; j < k; j++)
							if (j != neg &&
							    ir_dim_same(f->a.d[i], f->s.d[j]) &&
							    f->v[j] <= 0)
								matched = 1;
					if (matched)
						continue;
					/* a product past int64 (hostile dims)
					 * is left unknown: it wrapped to a
					 * negative dim */
					if (f->a.d[i].kind != IR_DIM_FIXED ||
					    __builtin_mul_overflow(pin,
						f->a.d[i].value, &pin))
						ok = 0;
				}
				for (int j = 0; j < k; j++) {
					if (j == neg)
						continue;
					if (f->s.d[j].kind == IR_DIM_FIXED) {
						if (__builtin_mul_overflow(pout,
							f->s.d[j].value, &pout))
							ok = 0;
					} else if (!(f->s.d[j].kind == IR_DIM_SYMBOL &&
						   f->v[j] <= 0))
						ok = 0;
				}
				if (ok && pout > 0 && pin % pout == 0)
					f->s.d[neg] = fixed(pin / pout);
			}
		}
	} else if (is_op(n, "|Transpose|")) {
		int k = attr_ints(n, "perm", f->v, MAXR);
		for (int i = 0; i < k; i++)
			if (f->v[i] < 0 || f->v[i] >= f->a.rank)
				k = -2;
		if (f->a.rank >= 0 && k != -2) {
			f->s.rank = f->a.rank;
			for (int i = 0; i < f->a.rank; i++)
				f->s.d[i] = f->a.d[k == f->a.rank
							   ? f->v[i]
							   : f->a.rank - 1 - i];
		}
	} else if (is_op(n, "|Flatten|")) {
		int ax = norm_axis(attr_i(n, "axis", 1), f->a.rank);
		if (f->a.rank >= 0) {
			struct ir_dim p[2] = { fixed(1), fixed(1) };
			for (int i = 0; i < f->a.rank; i++) {
				struct ir_dim *t = &p[i >= ax];
				if (t->kind == IR_DIM_FIXED &&
				    f->a.d[i].kind == IR_DIM_FIXED)
					t->value *= f->a.d[i].value;
				else if (is_one(*t))
					*t = f->a.d[i];
				else if (!is_one(f->a.d[i]))
					*t = unknown();
			}
			f->s.rank = 2;
			f->s.d[0] = p[0];
			f->s.d[1] = p[1];
		}
	} else {
		return INFER_NONE;
	}
	return INFER_SET;
}

/* b_infer for MatMul, Gemm, convolutions and poolings. */
static enum infer_rc infer_linear_conv(struct lower_ctx *c,
				       struct ir_node *n, struct infer *f)
{
	if (is_op(n, "|MatMul|")) {
		if (f->a.rank >= 1 && f->b.rank >= 1) {
			struct shape ba = f->a, bb = f->b;
			ba.rank = f->a.rank >= 2 ? f->a.rank - 2 : 0;
			bb.rank = f->b.rank >= 2 ? f->b.rank - 2 : 0;
			broadcast(&f->s, &ba, &bb);
			if (f->a.rank >= 2)
				f->s.d[f->s.rank++] = f->a.d[f->a.rank - 2];
			if (f->b.rank >= 2)
				f->s.d[f->s.rank++] = f->b.d[f->b.rank - 1];
		}
	} else if (is_op(n, "|Attention|")) {
		/* (B, Hq, L, E), (B, Hkv, S, Ev) -> (B, Hq, L, Ev) */
		struct shape vs;
		shape_of(n->inputs[2], &vs);
		if (f->a.rank == 4 && vs.rank == 4) {
			f->s = f->a;
			f->s.d[3] = vs.d[3];
		}
	} else if (is_op(n, "|Gemm|")) {
		if (f->a.rank == 2 && f->b.rank == 2) {
			f->s.rank = 2;
			f->s.d[0] = f->a.d[attr_i(n, "transA", 0) ? 1 : 0];
			f->s.d[1] = f->b.d[attr_i(n, "transB", 0) ? 0 : 1];
		}
	} else if (is_op(n, "|Conv|MaxPool|AveragePool|")) {
		infer_conv(n, &f->s, &f->a, &f->b);
		if (n->noutputs > 1 && is_op(n, "|MaxPool|")) {
			/* Indices: int64, the shape of output 0 */
			set_type(c, n->outputs[0], f->dt, &f->s);
			set_type(c, n->outputs[1], IR_DTYPE_INT64, &f->s);
			return INFER_DONE;
		}
	} else if (is_op(n, "|ConvTranspose|")) {
		/* output = (in-1)*s - pb - pe + dil*(k-1) + outpad + 1 */
		int64_t st[8], p[16], dl[8], op[8];
		int sp = f->a.rank - 2;
		if (f->a.rank >= 3 && sp <= 8 && f->b.rank == f->a.rank) {
			f->s.rank = f->a.rank;
			for (int i = 0; i < sp; i++)
				st[i] = dl[i] = 1, p[i] = p[i + sp] = op[i] = 0;
			attr_ints(n, "strides", st, 8);
			attr_ints(n, "dilations", dl, 8);
			attr_ints(n, "pads", p, 16);
			attr_ints(n, "output_padding", op, 8);
			f->s.d[0] = f->a.d[0];
			f->s.d[1] = f->b.d[1].kind == IR_DIM_FIXED
				 ? fixed(f->b.d[1].value * attr_i(n, "group", 1))
				 : unknown();
			for (int i = 0; i < sp; i++) {
				if (f->a.d[2 + i].kind == IR_DIM_FIXED &&
				    f->b.d[2 + i].kind == IR_DIM_FIXED)
					f->s.d[2 + i] = fixed(
						(f->a.d[2 + i].value - 1) * st[i] -
						p[i] - p[i + sp] +
						dl[i] * (f->b.d[2 + i].value - 1) +
						op[i] + 1);
				else
					f->s.d[2 + i] = unknown();
			}
		}
	} else if (is_op(n, "|GlobalAveragePool|GlobalMaxPool|")) {
		f->s = f->a;
		for (int i = 2; i < f->s.rank; i++)
			f->s.d[i] = fixed(1);
	} else {
		return INFER_NONE;
	}
	return INFER_SET;
}

/* Einsum's output dims into d (MAXR of them), its rank returned, -1 where
 * not known: letters to the inputs' dims, "..." to the broadcast of the
 * dims each input's ellipsis covers; without "->" the output is the
 * ellipsis then the letters used once, in ASCII order (numpy's and ONNX's
 * rule).  Spaces are ignored. */
static int infer_einsum(const struct ir_node *n, struct ir_dim *d)
{
	struct ir_attr *eq = ir_node_find_attr(n, "equation");
	struct ir_dim at[128], ell[MAXR];
	int cnt[128] = { 0 }, ne = 0, r = 0;
	const char *e = eq && eq->kind == IR_ATTR_STRING ? eq->u.s.data : "";
	size_t len = eq && eq->kind == IR_ATTR_STRING ? eq->u.s.len : 0, i = 0;
	const char *arrow = len ? strstr(e, "->") : NULL;
	size_t lhs = arrow && (size_t)(arrow - e) < len ? (size_t)(arrow - e)
							 : len;

	if (!len || memchr(e, 0, len))
		return -1;
	for (uint32_t in = 0; in < n->ninputs; in++) {
		const struct ir_type *t = n->inputs[in]->type;
		int rank = b_rank(n->inputs[in]), letters = 0, dots = 0, pos = 0;
		size_t j;
		if (rank < 0 || i > lhs)
			return -1;
		/* this term: e[i..j) */
		for (j = i; j < lhs && e[j] != ','; j++) {
			unsigned char ch = (unsigned char)e[j];
			if (ch < 128 && ((ch | 32) >= 'a' && (ch | 32) <= 'z'))
				letters++;
			else if (ch == '.')
				dots++;
			else if (ch != ' ')
				return -1;
		}
		int en = rank - letters;
		if ((dots != 0 && dots != 3) || en < 0 || (!dots && en) ||
		    en > MAXR)
			return -1;
		for (size_t k = i; k < j; k++) {
			unsigned char ch = (unsigned char)e[k];
			if (ch == '.') {
				if (k + 2 >= j || e[k + 1] != '.' ||
				    e[k + 2] != '.')
					return -1;
				k += 2;
				/* the ellipsis: broadcast, right-aligned */
				if (en > ne) {
					memmove(ell + (en - ne), ell,
						sizeof(*ell) * (size_t)ne);
					for (int z = 0; z < en - ne; z++)
						ell[z] = fixed(1);
					ne = en;
				}
				for (int q = 0; q < en; q++) {
					int o = q + ne - en;
					if (is_one(ell[o]) ||
					    ell[o].kind == IR_DIM_UNKNOWN)
						ell[o] = t->dims[pos + q];
				}
				pos += en;
			} else if (ch != ' ') {
				struct ir_dim dd = t->dims[pos++];
				if (!cnt[ch] || at[ch].kind == IR_DIM_UNKNOWN ||
				    is_one(at[ch]))
					at[ch] = dd;
				cnt[ch]++;
			}
		}
		i = j + 1;
	}
	if (i <= lhs)
		return -1; /* more terms than inputs */
	if (!arrow) {
		for (int q = 0; q < ne; q++)
			d[r++] = ell[q];
		for (int ch = 0; ch < 128 && r < MAXR; ch++)
			if (cnt[ch] == 1)
				d[r++] = at[ch];
		return r;
	}
	for (size_t k = lhs + 2; k < len; k++) {
		unsigned char ch = (unsigned char)e[k];
		if (ch == ' ')
			continue;
		if (ch == '.') {
			if (k + 2 >= len || e[k + 1] != '.' || e[k + 2] != '.' ||
			    r + ne > MAXR)
				return -1;
			for (int q = 0; q < ne; q++)
				d[r++] = ell[q];
			k += 2;
			continue;
		}
		if (ch >= 128 || !cnt[ch] || r >= MAXR)
			return -1;
		d[r++] = at[ch];
	}
	return r;
}

/* b_infer for Concat, reductions and ArgMax/ArgMin, Slice, Split and
 * Einsum. */
static enum infer_rc infer_concat_reduce(struct lower_ctx *c,
					 struct ir_node *n, struct infer *f)
{
	if (is_op(n, "|Concat|")) {
		int ax = norm_axis(attr_i(n, "axis", 0), f->a.rank);
		f->s = f->a;
		if (f->a.rank >= 0 && ax >= 0 && ax < f->a.rank) {
			for (uint32_t i = 1; i < n->ninputs; i++) {
				shape_of(n->inputs[i], &f->b);
				if (f->b.rank != f->a.rank) {
					f->s.rank = -1;
					break;
				}
				if (f->s.d[ax].kind == IR_DIM_FIXED &&
				    f->b.d[ax].kind == IR_DIM_FIXED)
					f->s.d[ax].value += f->b.d[ax].value;
				else
					f->s.d[ax] = unknown();
				for (int j = 0; j < f->a.rank; j++)
					if (j != ax && !ir_dim_same(f->s.d[j], f->b.d[j]) &&
					    f->s.d[j].kind != IR_DIM_FIXED)
						f->s.d[j] = f->b.d[j];
			}
		} else {
			f->s.rank = -1;
		}
	} else if (!strncmp(n->kind, "onnx::Reduce", 12) ||
		   is_op(n, "|ArgMax|ArgMin|")) {
		int k;
		int keep = (int)attr_i(n, "keepdims", 1);
		if (is_op(n, "|ArgMax|ArgMin|")) {
			f->v[0] = attr_i(n, "axis", 0);
			k = 1;
			f->dt = IR_DTYPE_INT64;
		} else {
			k = node_axes(n, f->v, MAXR);
		}
		if (f->a.rank >= 0 && k >= 0) {
			char mark[MAXR] = { 0 };
			for (int i = 0; i < k; i++) {
				int ax = norm_axis(f->v[i], f->a.rank);
				if (ax >= 0 && ax < f->a.rank)
					mark[ax] = 1;
			}
			f->s.rank = 0;
			for (int i = 0; i < f->a.rank; i++) {
				if (!mark[i] && k)
					f->s.d[f->s.rank++] = f->a.d[i];
				else if (keep)
					f->s.d[f->s.rank++] = fixed(1);
			}
		}
	} else if (is_op(n, "|Slice|")) {
		int64_t st[MAXR], en[MAXR], ax[MAXR], sp[MAXR];
		int k;
		if (c->opset < 10) {
			k = attr_ints(n, "starts", st, MAXR);
			attr_ints(n, "ends", en, MAXR);
			if (attr_ints(n, "axes", ax, MAXR) < 0)
				for (int i = 0; i < k; i++)
					ax[i] = i;
			for (int i = 0; i < k; i++)
				sp[i] = 1;
		} else {
			k = b_const_ints(n->inputs[1], st, MAXR);
			if (b_const_ints(n->inputs[2], en, MAXR) != k)
				k = -1;
			if (n->ninputs < 4 || !n->inputs[3])
				for (int i = 0; i < k; i++)
					ax[i] = i;
			else if (b_const_ints(n->inputs[3], ax, MAXR) != k)
				k = -1;
			if (n->ninputs < 5 || !n->inputs[4])
				for (int i = 0; i < k; i++)
					sp[i] = 1;
			else if (b_const_ints(n->inputs[4], sp, MAXR) != k)
				k = -1;
		}
		if (f->a.rank >= 0 && k >= 0) {
			f->s = f->a;
			for (int i = 0; i < k; i++) {
				int x = norm_axis(ax[i], f->a.rank);
				if (x < 0 || x >= f->a.rank)
					continue;
				if (f->a.d[x].kind != IR_DIM_FIXED || sp[i] == 0) {
					if (!(st[i] == 0 && en[i] >= INT32_MAX &&
					      sp[i] == 1))
						f->s.d[x] = unknown();
					continue;
				}
				int64_t dim = f->a.d[x].value, lo = st[i],
					hi = en[i], step = sp[i], cnt;
				if (lo < 0) lo += dim;
				if (hi < 0) hi += dim;
				if (step > 0) {
					lo = lo < 0 ? 0 : lo > dim ? dim : lo;
					hi = hi < 0 ? 0 : hi > dim ? dim : hi;
					cnt = hi > lo ? (hi - lo + step - 1) / step : 0;
				} else {
					lo = lo < 0 ? -1 : lo >= dim ? dim - 1 : lo;
					hi = hi < -1 ? -1 : hi >= dim ? dim - 1 : hi;
					cnt = lo > hi ? (lo - hi - step - 1) / -step : 0;
				}
				f->s.d[x] = fixed(cnt);
			}
		} else if (f->a.rank >= 0) {
			/* bounds not constant: the rank stays, and the dims
			 * off the constant axes */
			f->s = f->a;
			int na = -1;
			if (c->opset >= 10 && n->ninputs >= 4 && n->inputs[3])
				na = b_const_ints(n->inputs[3], ax, MAXR);
			for (int i = 0; i < f->a.rank; i++)
				if (na < 0)
					f->s.d[i] = unknown();
			for (int i = 0; i < na; i++) {
				int x = norm_axis(ax[i], f->a.rank);
				if (x >= 0 && x < f->a.rank)
					f->s.d[x] = unknown();
			}
		}
	} else if (is_op(n, "|Split|")) {
		int ax = norm_axis(attr_i(n, "axis", 0), f->a.rank);
		int k = attr_ints(n, "split", f->v, MAXR);
		if (k < 0 && n->ninputs > 1 && n->inputs[1])
			k = b_const_ints(n->inputs[1], f->v, MAXR);
		for (uint32_t o = 0; o < n->noutputs; o++) {
			f->s = f->a;
			if (f->a.rank >= 0 && ax >= 0 && ax < f->a.rank) {
				if (k == (int)n->noutputs)
					f->s.d[ax] = fixed(f->v[o]);
				else if (f->a.d[ax].kind == IR_DIM_FIXED &&
					 f->a.d[ax].value % n->noutputs == 0)
					f->s.d[ax] = fixed(f->a.d[ax].value /
							    n->noutputs);
				else
					f->s.d[ax] = unknown();
			}
			set_type(c, n->outputs[o], f->dt, &f->s);
		}
		return INFER_DONE;
	} else if (is_op(n, "|Einsum|")) {
		f->s.rank = infer_einsum(n, f->s.d);
	} else {
		return INFER_NONE;
	}
	return INFER_SET;
}

/* A shape tensor that is a Concat of constants and single dims
 * (shape_value): its dims, fixed where constant, into *s; 1, or 0. */
static int concat_shape(const struct ir_value *sv, struct shape *s)
{
	int64_t v[MAXR];
	struct shape known;
	int k = shape_value(sv, v, &known);
	if (k < 0)
		return 0;
	s->rank = k;
	for (int i = 0; i < k; i++)
		s->d[i] = v[i] >= 0 ? fixed(v[i]) : known.d[i];
	return 1;
}

/* b_infer for GatherElements, Expand, the creation ops (ConstantOfShape,
 * Range), TopK, Pad, Resize, Tile and NonZero. */
static enum infer_rc infer_creation(struct lower_ctx *c,
				    struct ir_node *n, struct infer *f)
{
	if (is_op(n, "|GatherElements|")) {
		f->s = f->b;
	} else if (is_op(n, "|Expand|")) {
		int k = b_const_ints(n->inputs[1], f->v, MAXR);
		if (k < 0 && (of_shape(n->inputs[1], &f->b) ||
			      concat_shape(n->inputs[1], &f->b))) {
			broadcast(&f->s, &f->a, &f->b);
		} else if (k < 0 && f->b.rank == 1 && f->a.rank >= 0 &&
			   f->b.d[0].kind == IR_DIM_FIXED &&
			   f->b.d[0].value <= MAXR) {
			/* a runtime shape of known length: the rank */
			struct shape u;
			u.rank = (int)f->b.d[0].value;
			for (int i = 0; i < u.rank; i++)
				u.d[i] = unknown();
			broadcast(&f->s, &f->a, &u);
			for (int i = 0; i < f->s.rank; i++)
				f->s.d[i] = unknown();
		}
		else if (k >= 0 && f->a.rank >= 0) {
			f->b.rank = k;
			for (int i = 0; i < k; i++)
				f->b.d[i] = f->v[i] >= 0 ? fixed(f->v[i])
							 : unknown();
			broadcast(&f->s, &f->a, &f->b);
		}
	} else if (is_op(n, "|ConstantOfShape|")) {
		struct ir_attr *at = ir_node_find_attr(n, "value");
		f->dt = at && at->kind == IR_ATTR_TENSOR ? at->u.t->dtype
						      : IR_DTYPE_FLOAT;
		int k = b_const_ints(n->inputs[0], f->v, MAXR);
		if (k >= 0) {
			f->s.rank = k;
			for (int i = 0; i < k; i++)
				f->s.d[i] = fixed(f->v[i]);
		} else if (concat_shape(n->inputs[0], &f->s)) {
			/* dims known where the Concat's pieces are */
		} else if (f->a.rank == 1 && f->a.d[0].kind == IR_DIM_FIXED) {
			f->s.rank = (int)f->a.d[0].value;
			for (int i = 0; i < f->s.rank; i++)
				f->s.d[i] = unknown();
		}
	} else if (is_op(n, "|Range|")) {
		f->s.rank = 1;
		f->s.d[0] = unknown();
	} else if (is_op(n, "|TopK|")) {
		int ax = norm_axis(attr_i(n, "axis", -1), f->a.rank);
		int64_t k = 0;
		f->s = f->a;
		if (f->a.rank >= 0 && b_const_ints(n->inputs[1], &k, 1) == 1 &&
		    ax >= 0 && ax < f->a.rank)
			f->s.d[ax] = fixed(k);
		else if (f->a.rank >= 0 && ax >= 0 && ax < f->a.rank)
			f->s.d[ax] = unknown();
		set_type(c, n->outputs[0], f->dt, &f->s);
		set_type(c, n->outputs[1], IR_DTYPE_INT64, &f->s);
		return INFER_DONE;
	} else if (is_op(n, "|Pad|")) {
		int k = attr_ints(n, "pads", f->v, MAXR);
		if (k < 0 && n->ninputs > 1)
			k = b_const_ints(n->inputs[1], f->v, MAXR);
		if (f->a.rank >= 0 && k == 2 * f->a.rank) {
			f->s = f->a;
			for (int i = 0; i < f->a.rank; i++)
				if (f->a.d[i].kind == IR_DIM_FIXED)
					f->s.d[i].value +=
						f->v[i] + f->v[i + f->a.rank];
				else if (f->v[i] || f->v[i + f->a.rank])
					f->s.d[i] = unknown();
		}
	} else if (is_op(n, "|Resize|Upsample|")) {
		infer_resize(c, n, &f->s, &f->a);
	} else if (is_op(n, "|Tile|")) {
		f->s.rank = f->a.rank;
		for (int i = 0; i < f->s.rank; i++)
			f->s.d[i] = unknown();
	} else if (is_op(n, "|NonZero|")) {
		f->s.rank = 2;
		f->s.d[0] = f->a.rank >= 0 ? fixed(f->a.rank) : unknown();
		f->s.d[1] = unknown();
		f->dt = IR_DTYPE_INT64;
	} else {
		return INFER_NONE;
	}
	return INFER_SET;
}

void b_infer(struct lower_ctx *c, struct ir_node *n)
{
	static enum infer_rc (*const families[])(struct lower_ctx *,
						  struct ir_node *,
						  struct infer *) = {
		infer_same_shape, infer_special, infer_broadcast,
		infer_shape_ops, infer_linear_conv, infer_concat_reduce,
		infer_creation,
	};
	struct infer f;
	memset(&f, 0, sizeof(f));
	f.dt = n->ninputs ? b_dtype(n->inputs[0]) : IR_DTYPE_UNDEFINED;
	f.s.rank = -1;
	if (n->ninputs)
		shape_of(n->inputs[0], &f.a);
	else
		f.a.rank = -1;
	if (n->ninputs > 1 && n->inputs[1])
		shape_of(n->inputs[1], &f.b);
	else
		f.b.rank = -1;

	if (!strncmp(n->kind, "onnx::Sequence", 14) ||
	    is_op(n, "|SplitToSequence|ConcatFromSequence|")) {
		infer_seq(c, n);
		return;
	}
	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++) {
		enum infer_rc rc = families[i](c, n, &f);
		if (rc == INFER_DONE)
			return;
		if (rc == INFER_SET) {
			for (uint32_t o = 0; o < n->noutputs; o++)
				set_type(c, n->outputs[o], f.dt,
					 o == 0 ? &f.s : NULL);
			return;
		}
	}
	/* unknown to inference: leave the outputs untyped */
	for (uint32_t o = 0; o < n->noutputs; o++)
		set_type(c, n->outputs[o], IR_DTYPE_UNDEFINED, NULL);
}

/* an ONNX Loop of trip (0-d int64) iterations carrying k values from
 * init[] through step (each keeping its type); their last values into
 * fin[] */
/* true (0-d) while some element of the bool done is false */
static struct ir_value *any_open(struct lower_ctx *c, struct ir_value *done)
{
	struct ir_value *o = b_cast(c, b_op1(c, "Not", done), IR_DTYPE_FLOAT);
	return b_op2(c, "Greater", b_reduce(c, "ReduceSum", o, NULL, 0, 0),
		     b_const_scalar(c, 0, IR_DTYPE_FLOAT, 0));
}

void b_loop_until(struct lower_ctx *c, struct ir_value *trip, int k,
		  struct ir_value **init, b_loop_step step, const void *ctx,
		  struct ir_value **fin, int until)
{
	struct ir_graph *g = c->g;
	struct ir_block *body = ir_block_new(g), *blk = c->blk;
	struct ir_node *pos = c->pos, *nd;
	struct ir_value *ins[B_LOOP_MAX_CARRIED + 2],
		*prm[B_LOOP_MAX_CARRIED + 2], *nv[B_LOOP_MAX_CARRIED];

	ins[0] = trip;
	ins[1] = until >= 0 ? any_open(c, init[until]) : b_const_bool(c, 1);
	prm[0] = ir_value_new(g, NULL, ir_type_tensor(g, IR_DTYPE_INT64, 0, NULL));
	prm[1] = ir_value_new(g, NULL, ir_type_tensor(g, IR_DTYPE_BOOL, 0, NULL));
	for (int i = 0; i < k; i++) {
		ins[i + 2] = init[i];
		prm[i + 2] = ir_value_new(g, NULL, ir_type_copy(g, init[i]->type));
	}
	for (int i = 0; i < k + 2; i++)
		ir_block_add_param(g, body, prm[i]);
	c->blk = body;
	c->pos = NULL;
	step(c, ctx, prm[0], prm + 2, nv);
	ir_block_add_return(g, body, until >= 0 ? any_open(c, nv[until])
						 : b_op1(c, "Identity", prm[1]));
	for (int i = 0; i < k; i++)
		ir_block_add_return(g, body, nv[i]);
	c->blk = blk;
	c->pos = pos;

	nd = b_node(c, "Loop", k + 2, ins, k);
	ir_node_add_attr(g, nd, "body", IR_ATTR_GRAPH)->u.g = body;
	body->owner = nd;
	for (int i = 0; i < k; i++) {
		nd->outputs[i]->type = ir_type_copy(g, init[i]->type);
		fin[i] = nd->outputs[i];
	}
}

void b_loop(struct lower_ctx *c, struct ir_value *trip, int k,
	    struct ir_value **init, b_loop_step step, const void *ctx,
	    struct ir_value **fin)
{
	b_loop_until(c, trip, k, init, step, ctx, fin, -1);
}

/*
 * ops_nn.c - aten op implementations for `trace` (see trace_int.h):
 * matrix products (linear, matmul, mm, bmm, addmm ...), convolutions,
 * pooling, normalisation, softmax, embedding, resampling; the
 * table trace_ops_nn, which also lists ops_nn_seq.c's ops (recurrent
 * layers, attention, losses, distances, einsum).
 *
 * Each op parses its arguments with torch 1.13's semantics (schema order,
 * defaults refilled by the compiler), computes output shapes, allocates
 * the outputs and calls the backend kernel once where one exists: the
 * calls to be->conv and be->matmul take the operands as they come (views
 * included) with no extra copy.  The helpers at the top (declared in
 * ops_nn.h) are shared with ops_nn_seq.c.
 */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ops_nn.h"
#include "ops_shape.h"

/* --- helpers ----------------------------------------------------------- */

int nn_is_float(enum ir_dtype dt)
{
	return dt == IR_DTYPE_FLOAT || dt == IR_DTYPE_DOUBLE ||
	       dt == IR_DTYPE_FLOAT16 || dt == IR_DTYPE_BFLOAT16;
}

struct gpu_tensor *nn_expand(struct trace_ctx *c, const struct gpu_tensor *t,
			     int rank, const int64_t *dims)
{
	struct gpu_tensor *v = trace_expand(t, rank, dims);

	if (!v)
		trace_gpu_error(c);
	return v;
}

struct gpu_tensor *nn_contig(struct trace_ctx *c, struct gpu_tensor *t)
{
	struct gpu_tensor *y = gpu_contiguous(t);

	if (!y)
		trace_gpu_error(c);
	return y;
}

struct gpu_tensor *nn_reshape(struct trace_ctx *c, struct gpu_tensor *t,
			      int rank, const int64_t *dims)
{
	int64_t strides[GPU_MAX_DIMS];
	struct gpu_tensor *ct, *v;

	ct = nn_contig(c, t);
	if (!ct)
		return NULL;
	gpu_contiguous_strides(rank, dims, strides);
	v = trace_view(c, ct, rank, dims, strides, ct->offset);
	gpu_free(ct);
	return v;
}

struct gpu_tensor *nn_transpose(struct trace_ctx *c,
				const struct gpu_tensor *t, int a, int b)
{
	int64_t dims[GPU_MAX_DIMS], strides[GPU_MAX_DIMS], x;

	memcpy(dims, t->dims, sizeof(dims));
	memcpy(strides, t->strides, sizeof(strides));
	x = dims[a]; dims[a] = dims[b]; dims[b] = x;
	x = strides[a]; strides[a] = strides[b]; strides[b] = x;
	return trace_view(c, t, t->rank, dims, strides, t->offset);
}

struct gpu_tensor *nn_permute(struct trace_ctx *c, const struct gpu_tensor *t,
			      const int *perm)
{
	int64_t dims[GPU_MAX_DIMS], strides[GPU_MAX_DIMS];
	int i;

	for (i = 0; i < t->rank; i++) {
		dims[i] = t->dims[perm[i]];
		strides[i] = t->strides[perm[i]];
	}
	return trace_view(c, t, t->rank, dims, strides, t->offset);
}

struct gpu_tensor *nn_narrow(struct trace_ctx *c, const struct gpu_tensor *t,
			     int axis, int64_t start, int64_t len)
{
	int64_t dims[GPU_MAX_DIMS];

	memcpy(dims, t->dims, sizeof(dims));
	dims[axis] = len;
	return trace_view(c, t, t->rank, dims, t->strides,
		       t->offset + start * t->strides[axis]);
}

struct gpu_tensor *nn_unsqueeze(struct trace_ctx *c,
				const struct gpu_tensor *t, int axis)
{
	int64_t dims[GPU_MAX_DIMS], strides[GPU_MAX_DIMS];
	int i, j = 0;

	if (t->rank + 1 > GPU_MAX_DIMS) {
		trace_error(c, "more than %d dims", GPU_MAX_DIMS);
		return NULL;
	}
	for (i = 0; i <= t->rank; i++) {
		if (i == axis) {
			dims[i] = 1;
			strides[i] = axis < t->rank ?
				     t->strides[axis] * t->dims[axis] : 1;
			continue;
		}
		dims[i] = t->dims[j];
		strides[i] = t->strides[j];
		j++;
	}
	return trace_view(c, t, t->rank + 1, dims, strides, t->offset);
}

struct gpu_tensor *nn_squeeze(struct trace_ctx *c, const struct gpu_tensor *t,
			      int axis)
{
	int64_t dims[GPU_MAX_DIMS], strides[GPU_MAX_DIMS];
	int i, j = 0;

	for (i = 0; i < t->rank; i++) {
		if (i == axis)
			continue;
		dims[j] = t->dims[i];
		strides[j] = t->strides[i];
		j++;
	}
	return trace_view(c, t, t->rank - 1, dims, strides, t->offset);
}

int nn_copy(struct trace_ctx *c, const struct gpu_tensor *src,
	    struct gpu_tensor *dst)
{
	if (c->be->copy(src, dst))
		return trace_gpu_error(c);
	return 0;
}

struct gpu_tensor *nn_unary(struct trace_ctx *c, enum gpu_unary op,
			    const struct gpu_tensor *x, double a, double b)
{
	struct gpu_tensor *y = trace_empty(c, x->dtype, x->rank, x->dims);

	if (y && c->be->unary(op, x, y, a, b)) {
		gpu_free(y);
		trace_gpu_error(c);
		return NULL;
	}
	return y;
}

static int is_cmp(enum gpu_binary op)
{
	return (op >= GPU_EQ && op <= GPU_GE) ||
	       (op >= GPU_LOGICAL_AND && op <= GPU_LOGICAL_XOR);
}

struct gpu_tensor *nn_binary(struct trace_ctx *c, enum gpu_binary op,
			     struct gpu_tensor *a, struct gpu_tensor *b)
{
	struct gpu_tensor *ca = NULL, *cb = NULL, *ea = NULL, *eb = NULL;
	struct gpu_tensor *y = NULL;
	int64_t dims[GPU_MAX_DIMS];
	enum ir_dtype dt = a->dtype;
	int rank;

	if (a->dtype != b->dtype && !nn_is_float(a->dtype) &&
	    nn_is_float(b->dtype))
		dt = b->dtype;
	if (trace_broadcast_dims(c, a, b, &rank, dims))
		return NULL;
	ca = trace_cast(c, a, dt);
	cb = ca ? trace_cast(c, b, dt) : NULL;
	if (!cb)
		goto out;
	ea = nn_expand(c, ca, rank, dims);
	eb = ea ? nn_expand(c, cb, rank, dims) : NULL;
	if (!eb)
		goto out;
	y = trace_empty(c, is_cmp(op) ? IR_DTYPE_BOOL : dt, rank, dims);
	if (y && c->be->binary(op, ea, eb, y)) {
		gpu_free(y);
		y = NULL;
		trace_gpu_error(c);
	}
out:
	gpu_free(ca);
	gpu_free(cb);
	gpu_free(ea);
	gpu_free(eb);
	return y;
}

struct gpu_tensor *nn_scalar(struct trace_ctx *c, enum ir_dtype dt, double v)
{
	struct gpu_tensor *t = trace_empty(c, dt, 0, NULL);

	if (t && c->be->fill(t, v)) {
		gpu_free(t);
		trace_gpu_error(c);
		return NULL;
	}
	return t;
}

struct gpu_tensor *nn_binary_s(struct trace_ctx *c, enum gpu_binary op,
			       struct gpu_tensor *a, double s)
{
	struct gpu_tensor *st = nn_scalar(c, a->dtype, s), *y;

	if (!st)
		return NULL;
	y = nn_binary(c, op, a, st);
	gpu_free(st);
	return y;
}

struct gpu_tensor *nn_reduce(struct trace_ctx *c, enum gpu_reduce op,
			     const struct gpu_tensor *x, uint32_t mask,
			     int keepdim, double param)
{
	int64_t dims[GPU_MAX_DIMS], kd[GPU_MAX_DIMS];
	struct gpu_tensor *y, *v;
	int i, r = 0;
	enum ir_dtype dt = x->dtype;

	if (op == GPU_RARGMAX || op == GPU_RARGMIN)
		dt = IR_DTYPE_INT64;
	else if (op == GPU_RALL || op == GPU_RANY)
		dt = IR_DTYPE_BOOL;
	for (i = 0; i < x->rank; i++) {
		dims[i] = (mask >> i) & 1 ? 1 : x->dims[i];
		if (!((mask >> i) & 1))
			kd[r++] = x->dims[i];
	}
	y = trace_empty(c, dt, x->rank, dims);
	if (!y)
		return NULL;
	if (c->be->reduce(op, x, mask, param, y)) {
		gpu_free(y);
		trace_gpu_error(c);
		return NULL;
	}
	if (keepdim)
		return y;
	v = nn_reshape(c, y, r, kd);
	gpu_free(y);
	return v;
}

/* Merges dims [from, to] of t into one when the view allows it (NULL,
 * no error, when it does not). */
static struct gpu_tensor *merge_dims(const struct gpu_tensor *t, int from,
				     int to)
{
	int64_t dims[GPU_MAX_DIMS], strides[GPU_MAX_DIMS];
	int64_t d = t->dims[to], s = t->strides[to];
	int i, r = 0;

	for (i = to - 1; i >= from; i--) {
		if (t->dims[i] == 1) {
			continue;
		} else if (d == 1) {
			s = t->strides[i];
		} else if (t->strides[i] != s * d) {
			return NULL;
		}
		d *= t->dims[i];
	}
	for (i = 0; i < from; i++) {
		dims[r] = t->dims[i];
		strides[r++] = t->strides[i];
	}
	dims[r] = d;
	strides[r++] = s;
	for (i = to + 1; i < t->rank; i++) {
		dims[r] = t->dims[i];
		strides[r++] = t->strides[i];
	}
	return gpu_view(t, r, dims, strides, t->offset);
}

struct gpu_tensor *nn_matmul(struct trace_ctx *c, const struct gpu_tensor *a,
			     const struct gpu_tensor *b, int trans_b,
			     const struct gpu_tensor *bias, double alpha,
			     double beta)
{
	struct gpu_tensor *a2 = NULL, *b2 = NULL, *ae = NULL, *bee = NULL;
	struct gpu_tensor *ce = NULL, *cf = NULL, *y = NULL, *res = NULL;
	struct gpu_tensor *af = NULL, *cm = NULL;
	int64_t dims[GPU_MAX_DIMS], fdims[GPU_MAX_DIMS], st[GPU_MAX_DIMS];
	int64_t M, K, N, Kb;
	int nb, ra, rb, i, fr = 0, folded = 0;

	if (a->rank < 1 || b->rank < 1) {
		trace_error(c, "both arguments to matmul need to be at least "
			    "1D, but they are %dD and %dD", a->rank, b->rank);
		return NULL;
	}
	if (a->dtype != b->dtype) {
		trace_error(c, "expected both operands to have the same "
			    "dtype, but got %s and %s",
			    ir_dtype_torch_name(a->dtype),
			    ir_dtype_torch_name(b->dtype));
		return NULL;
	}
	if (a->rank == 1) {
		int64_t d[2] = { 1, a->dims[0] };
		int64_t s[2] = { a->dims[0] * a->strides[0], a->strides[0] };

		a2 = trace_view(c, a, 2, d, s, a->offset);
	} else {
		a2 = trace_alias(c, a);
	}
	if (b->rank == 1) {
		int64_t d[2] = { b->dims[0], 1 };
		int64_t s[2] = { b->strides[0], 1 };

		b2 = trace_view(c, b, 2, d, s, b->offset);
		trans_b = 0;
	} else {
		b2 = trace_alias(c, b);
	}
	if (!a2 || !b2)
		goto out;
	ra = a2->rank;
	rb = b2->rank;
	M = a2->dims[ra - 2];
	K = a2->dims[ra - 1];
	Kb = b2->dims[rb - (trans_b ? 1 : 2)];
	N = b2->dims[rb - (trans_b ? 2 : 1)];
	if (K != Kb) {
		trace_error(c, "mat1 and mat2 shapes cannot be multiplied "
			    "(%lldx%lld and %lldx%lld)", (long long)M,
			    (long long)K, (long long)Kb, (long long)N);
		goto out;
	}
	/* batch dims */
	nb = (ra > rb ? ra : rb) - 2;
	if (nb + 2 > GPU_MAX_DIMS) {
		trace_error(c, "more than %d dims", GPU_MAX_DIMS);
		goto out;
	}
	for (i = 0; i < nb; i++) {
		int ia = i - (nb - (ra - 2)), ib = i - (nb - (rb - 2));
		int64_t da = ia >= 0 ? a2->dims[ia] : 1;
		int64_t db = ib >= 0 ? b2->dims[ib] : 1;

		if (da != db && da != 1 && db != 1) {
			trace_error(c, "the batch dims of matmul's operands "
				    "do not broadcast (%lld and %lld)",
				    (long long)da, (long long)db);
			goto out;
		}
		dims[i] = da == 1 ? db : da;
	}
	/* the result's dims as torch gives them */
	for (i = 0; i < nb; i++)
		fdims[fr++] = dims[i];
	if (a->rank > 1)
		fdims[fr++] = M;
	if (b->rank > 1)
		fdims[fr++] = N;
	if (bias && beta != 0) {
		cf = nn_expand(c, bias, fr, fdims);
		if (!cf)
			goto out;
		/* to the internal [batch, M, N] */
		if (a->rank == 1) {
			ce = nn_unsqueeze(c, cf, nb);
			gpu_free(cf);
			cf = ce;
			ce = NULL;
		}
		if (cf && b->rank == 1) {
			ce = nn_unsqueeze(c, cf, cf->rank);
			gpu_free(cf);
			cf = ce;
			ce = NULL;
		}
		if (!cf)
			goto out;
	}
	/* [..., M, K] @ [K, N]: one product of [prod(...) * M, K] when a's
	 * view allows (and the bias's) */
	if (rb == 2 && ra > 2) {
		af = merge_dims(a2, 0, ra - 2);
		if (af && cf) {
			cm = merge_dims(cf, 0, cf->rank - 2);
			if (!cm) {
				gpu_free(af);
				af = NULL;
			}
		}
		if (af) {
			int64_t d2[2] = { af->dims[0], N };

			folded = 1;
			y = trace_empty(c, a->dtype, 2, d2);
			if (!y)
				goto out;
			if (c->be->matmul(af, b2, cm, 0, trans_b, alpha,
					  cm ? beta : 0, y)) {
				trace_gpu_error(c);
				goto out;
			}
		}
	}
	if (!folded) {
		int64_t d[GPU_MAX_DIMS];

		memcpy(d, dims, sizeof(d));
		d[nb] = M;
		d[nb + 1] = K;
		ae = nn_expand(c, a2, nb + 2, d);
		if (trans_b) {
			d[nb] = N;
			d[nb + 1] = K;
		} else {
			d[nb] = K;
			d[nb + 1] = N;
		}
		bee = ae ? nn_expand(c, b2, nb + 2, d) : NULL;
		d[nb] = M;
		d[nb + 1] = N;
		y = bee ? trace_empty(c, a->dtype, nb + 2, d) : NULL;
		if (!y)
			goto out;
		if (c->be->matmul(ae, bee, cf, 0, trans_b, alpha,
				  cf ? beta : 0, y)) {
			trace_gpu_error(c);
			goto out;
		}
	}
	gpu_contiguous_strides(fr, fdims, st);
	res = trace_view(c, y, fr, fdims, st, y->offset);
out:
	gpu_free(a2);
	gpu_free(b2);
	gpu_free(ae);
	gpu_free(bee);
	gpu_free(cf);
	gpu_free(af);
	gpu_free(cm);
	gpu_free(y);
	return res;
}

struct gpu_tensor *nn_linear(struct trace_ctx *c, const struct gpu_tensor *x,
			     const struct gpu_tensor *w,
			     const struct gpu_tensor *bias)
{
	if (w->rank == 1)
		return nn_matmul(c, x, w, 0, bias, 1, 1);
	if (w->rank != 2) {
		trace_error(c, "linear: weight of rank %d", w->rank);
		return NULL;
	}
	return nn_matmul(c, x, w, 1, bias, 1, 1);
}

struct gpu_tensor *nn_softmax(struct trace_ctx *c, const struct gpu_tensor *x,
			      int axis, int log)
{
	struct gpu_tensor *y = trace_empty(c, x->dtype, x->rank, x->dims);

	if (y && c->be->softmax(x, axis, log, y)) {
		gpu_free(y);
		trace_gpu_error(c);
		return NULL;
	}
	return y;
}

struct gpu_tensor *nn_layer_norm(struct trace_ctx *c,
				 const struct gpu_tensor *x, int naxes,
				 const struct gpu_tensor *w,
				 const struct gpu_tensor *b, double eps)
{
	struct gpu_tensor *y = trace_empty(c, x->dtype, x->rank, x->dims);

	if (y && c->be->layer_norm(x, naxes, w, b, eps, y)) {
		gpu_free(y);
		trace_gpu_error(c);
		return NULL;
	}
	return y;
}

/* Reads an int list argument of `want` entries (one int, or a list of
 * one, broadcast; an empty list gives `dflt` entries when dflt given). */
static int get_ints_n(struct trace_ctx *c, const struct tval *v, int want,
		      int64_t *out, const int64_t *dflt, const char *what)
{
	int n = 0, i;

	if (v && v->kind == TV_NONE && dflt) {
		memcpy(out, dflt, sizeof(int64_t) * want);
		return 0;
	}
	if (tv_get_ints(c, v, out, GPU_MAX_DIMS, &n))
		return -1;
	if (v->kind == TV_INT || v->kind == TV_BOOL)
		n = 1;
	if (n == 0 && dflt) {
		memcpy(out, dflt, sizeof(int64_t) * want);
		return 0;
	}
	if (n == 1) {
		for (i = 1; i < want; i++)
			out[i] = out[0];
		return 0;
	}
	if (n != want)
		return trace_error(c, "expected %s to be a single integer "
				   "value or a list of %d values, got %d",
				   what, want, n);
	return 0;
}

/* in[i] as an optional tensor */
static int opt_tensor(struct trace_ctx *c, struct tval **in, int nin, int i,
		      struct gpu_tensor **t)
{
	if (i >= nin) {
		*t = NULL;
		return 0;
	}
	return tv_get_tensor(c, in[i], 1, t);
}

static int is_none(struct tval **in, int nin, int i)
{
	return i >= nin || !in[i] || in[i]->kind == TV_NONE;
}

/* In-place forms: writes the result into self (a view writes through)
 * and returns self. */
static int finish_inplace(struct trace_ctx *c, struct tval *self,
			  struct gpu_tensor *res, struct tval **out)
{
	int rc;

	if (!res)
		return -1;
	rc = nn_copy(c, res, self->u.t);
	gpu_free(res);
	if (rc)
		return -1;
	out[0] = tv_ref(self);
	return 0;
}

/* --- matrix products --------------------------------------------------- */

static int op_linear(struct trace_ctx *c, const struct ir_node *n,
		     struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x, *w, *b;

	(void)n; (void)nout;
	if (tv_get_tensor(c, in[0], 0, &x) || tv_get_tensor(c, in[1], 0, &w) ||
	    opt_tensor(c, in, nin, 2, &b))
		return -1;
	return trace_out(c, out, nn_linear(c, x, w, b));
}

static int op_matmul(struct trace_ctx *c, const struct ir_node *n,
		     struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *a, *b;

	(void)nin; (void)nout;
	if (tv_get_tensor(c, in[0], 0, &a) || tv_get_tensor(c, in[1], 0, &b))
		return -1;
	if (n->op == OP_aten_mm && (a->rank != 2 || b->rank != 2))
		return trace_error(c, "self must be a matrix");
	if (n->op == OP_aten_bmm && (a->rank != 3 || b->rank != 3))
		return trace_error(c, "batch1 must be a 3D tensor");
	if (n->op == OP_aten_mv && (a->rank != 2 || b->rank != 1))
		return trace_error(c, "vector + matrix @ vector expected");
	if (n->op == OP_aten_dot && (a->rank != 1 || b->rank != 1))
		return trace_error(c, "1D tensors expected, but got %dD and "
				   "%dD tensors", a->rank, b->rank);
	if (n->op == OP_aten_bmm && a->dims[0] != b->dims[0])
		return trace_error(c, "batch1 and batch2 must have same "
				   "number of batches");
	return trace_out(c, out, nn_matmul(c, a, b, 0, NULL, 1, 0));
}

/* addmm, addmv, baddbmm, addbmm and their in-place forms:
 * beta * self + alpha * (a @ b) */
static int op_addmm(struct trace_ctx *c, const struct ir_node *n,
		    struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *self, *a, *b, *res = NULL, *a2 = NULL, *b2 = NULL;
	double beta = 1, alpha = 1;
	int addbmm = n->op == OP_aten_addbmm || n->op == OP_aten_addbmm_;

	(void)nout;
	if (tv_get_tensor(c, in[0], 0, &self) ||
	    tv_get_tensor(c, in[1], 0, &a) || tv_get_tensor(c, in[2], 0, &b))
		return -1;
	if ((nin > 3 && tv_get_float(c, in[3], &beta)) ||
	    (nin > 4 && tv_get_float(c, in[4], &alpha)))
		return -1;
	if (addbmm) {
		/* sum over the batch: [M, B*K] @ [B*K, N] */
		int perm[3] = { 1, 0, 2 };
		struct gpu_tensor *p;
		int64_t d[2];

		if (a->rank != 3 || b->rank != 3)
			return trace_error(c, "batch1 must be a 3D tensor");
		p = nn_permute(c, a, perm);
		if (!p)
			return -1;
		d[0] = a->dims[1];
		d[1] = a->dims[0] * a->dims[2];
		a2 = nn_reshape(c, p, 2, d);
		gpu_free(p);
		d[0] = b->dims[0] * b->dims[1];
		d[1] = b->dims[2];
		b2 = a2 ? nn_reshape(c, (struct gpu_tensor *)b, 2, d) : NULL;
		if (b2)
			res = nn_matmul(c, a2, b2, 0, self, alpha, beta);
		gpu_free(a2);
		gpu_free(b2);
	} else {
		res = nn_matmul(c, a, b, 0, self, alpha, beta);
	}
	if (!res)
		return -1;
	if (trace_inplace(n))
		return finish_inplace(c, in[0], res, out);
	return trace_out(c, out, res);
}

/* --- convolution ------------------------------------------------------- */

/* x [N, C, *in] (or unbatched [C, *in]), w, bias: the convolution with
 * torch's output size; pads_r (may be NULL) extra padding after each
 * spatial dim, applied to the input first. */
static struct gpu_tensor *conv_run(struct trace_ctx *c, struct gpu_tensor *x,
				   const struct gpu_tensor *w,
				   const struct gpu_tensor *bias,
				   struct gpu_conv *p, const int64_t *extra)
{
	struct gpu_tensor *xb = NULL, *xp = NULL, *y = NULL, *res = NULL;
	int64_t dims[GPU_MAX_DIMS];
	int ns = p->nspatial, unbatched, i;

	if (w->rank != ns + 2) {
		trace_error(c, "expected weight to be a %d-D tensor, got %d-D",
			    ns + 2, w->rank);
		return NULL;
	}
	unbatched = x->rank == ns + 1;
	if (!unbatched && x->rank != ns + 2) {
		trace_error(c, "expected %dD (unbatched) or %dD (batched) "
			    "input to conv%dd, but got input of size rank %d",
			    ns + 1, ns + 2, ns, x->rank);
		return NULL;
	}
	xb = unbatched ? nn_unsqueeze(c, x, 0) : trace_alias(c, x);
	if (!xb)
		return NULL;
	if (x->dtype != w->dtype) {
		trace_error(c, "input type (%s) and weight type (%s) should "
			    "be the same", ir_dtype_torch_name(x->dtype),
			    ir_dtype_torch_name(w->dtype));
		goto out;
	}
	if (extra) {
		int64_t pads[2 * GPU_MAX_DIMS] = { 0 };
		int64_t pd[GPU_MAX_DIMS];

		memcpy(pd, xb->dims, sizeof(pd));
		for (i = 0; i < ns; i++) {
			pads[2 * (i + 2) + 1] = extra[i];
			pd[i + 2] += extra[i];
		}
		xp = trace_empty(c, xb->dtype, xb->rank, pd);
		if (!xp)
			goto out;
		if (c->be->pad(xb, pads, GPU_PAD_CONSTANT, 0, xp)) {
			trace_gpu_error(c);
			goto out;
		}
		gpu_free(xb);
		xb = xp;
		xp = NULL;
	}
	if (p->groups < 1) {
		trace_error(c, "non-positive groups is not supported");
		goto out;
	}
	dims[0] = xb->dims[0];
	if (p->transposed) {
		if (xb->dims[1] != w->dims[0]) {
			trace_error(c, "given transposed=1, weight of size "
				    "%lld, expected input with %lld channels, "
				    "but got %lld channels",
				    (long long)w->dims[0],
				    (long long)w->dims[0],
				    (long long)xb->dims[1]);
			goto out;
		}
		dims[1] = w->dims[1] * p->groups;
	} else {
		if (xb->dims[1] != w->dims[1] * p->groups) {
			trace_error(c, "given groups=%lld, weight of size "
				    "[%lld, %lld, ...], expected input to have "
				    "%lld channels, but got %lld channels",
				    (long long)p->groups,
				    (long long)w->dims[0],
				    (long long)w->dims[1],
				    (long long)(w->dims[1] * p->groups),
				    (long long)xb->dims[1]);
			goto out;
		}
		dims[1] = w->dims[0];
	}
	for (i = 0; i < ns; i++) {
		int64_t in = xb->dims[i + 2], k = w->dims[i + 2];

		if (p->transposed)
			dims[i + 2] = (in - 1) * p->stride[i] - 2 * p->pad[i] +
				      p->dilation[i] * (k - 1) +
				      p->output_padding[i] + 1;
		else
			dims[i + 2] = (in + 2 * p->pad[i] -
				       p->dilation[i] * (k - 1) - 1) /
				      p->stride[i] + 1;
		if (dims[i + 2] <= 0) {
			trace_error(c, "calculated output size is too small "
				    "(input %lld, kernel %lld)",
				    (long long)in, (long long)k);
			goto out;
		}
	}
	if (bias && (bias->rank != 1 || bias->dims[0] != dims[1])) {
		trace_error(c, "bias of %lld elements for %lld output "
			    "channels", (long long)gpu_numel(bias),
			    (long long)dims[1]);
		goto out;
	}
	y = trace_empty(c, x->dtype, ns + 2, dims);
	if (!y)
		goto out;
	if (c->be->conv(p, xb, w, bias, y)) {
		trace_gpu_error(c);
		goto out;
	}
	if (unbatched)
		res = nn_squeeze(c, y, 0);
	else
		res = trace_alias(c, y);
out:
	gpu_free(xb);
	gpu_free(xp);
	gpu_free(y);
	return res;
}

/* conv1d/2d/3d (int or str padding), conv_transpose*, convolution,
 * _convolution */
static int op_conv(struct trace_ctx *c, const struct ir_node *n,
		   struct tval **in, int nin, struct tval **out, int nout)
{
	static const int64_t zero[3] = { 0, 0, 0 }, one[3] = { 1, 1, 1 };
	struct gpu_conv p;
	struct gpu_tensor *x, *w, *b;
	int64_t extra[3] = { 0, 0, 0 }, groups = 1;
	enum aten_op op = n->op;
	/* conv1d/2d/3d: the weight's spatial rank they take */
	int want = op == OP_aten_conv1d ? 1 : op == OP_aten_conv2d ? 2 :
		   op == OP_aten_conv3d ? 3 : 0;
	int ns, i, has_extra = 0, transposed = 0;

	(void)nout;
	memset(&p, 0, sizeof(p));
	if (tv_get_tensor(c, in[0], 0, &x) || tv_get_tensor(c, in[1], 0, &w) ||
	    opt_tensor(c, in, nin, 2, &b))
		return -1;
	ns = w->rank - 2;
	if (ns < 1 || ns > 3)
		return trace_error(c, "weight of rank %d", w->rank);
	p.nspatial = ns;
	if (op == OP_aten_convolution || op == OP_aten__convolution) {
		int64_t t;

		if (nin < 9)
			return trace_error(c, "expected 9 or more arguments");
		if (get_ints_n(c, in[3], ns, p.stride, one, "stride") ||
		    get_ints_n(c, in[4], ns, p.pad, zero, "padding") ||
		    get_ints_n(c, in[5], ns, p.dilation, one, "dilation") ||
		    tv_get_int(c, in[6], &t) ||
		    get_ints_n(c, in[7], ns, p.output_padding, zero,
			       "output_padding") ||
		    tv_get_int(c, in[8], &groups))
			return -1;
		transposed = t != 0;
	} else if (op == OP_aten_conv_transpose1d ||
		   op == OP_aten_conv_transpose2d ||
		   op == OP_aten_conv_transpose3d) {
		/* input, weight, bias, stride, padding, output_padding,
		 * groups, dilation */
		if (nin < 8)
			return trace_error(c, "expected 8 arguments");
		if (get_ints_n(c, in[3], ns, p.stride, one, "stride") ||
		    get_ints_n(c, in[4], ns, p.pad, zero, "padding") ||
		    get_ints_n(c, in[5], ns, p.output_padding, zero,
			       "output_padding") ||
		    tv_get_int(c, in[6], &groups) ||
		    get_ints_n(c, in[7], ns, p.dilation, one, "dilation"))
			return -1;
		transposed = 1;
	} else {
		/* conv1d/2d/3d, _convolution_mode: input, weight, bias,
		 * stride, padding (ints or "same"/"valid"), dilation,
		 * groups */
		if (nin < 7)
			return trace_error(c, "expected 7 arguments");
		if (want && want != ns)
			return trace_error(c, "expected weight to be a %d-D "
					   "tensor, got %d-D", want + 2,
					   w->rank);
		if (get_ints_n(c, in[3], ns, p.stride, one, "stride") ||
		    get_ints_n(c, in[5], ns, p.dilation, one, "dilation") ||
		    tv_get_int(c, in[6], &groups))
			return -1;
		if (in[4] && in[4]->kind == TV_STR) {
			const char *mode = in[4]->u.s;

			if (!strcmp(mode, "same")) {
				for (i = 0; i < ns; i++) {
					int64_t tot;

					if (p.dilation[i] <= 0 ||
					    __builtin_mul_overflow(
						    p.dilation[i],
						    w->dims[i + 2] - 1, &tot))
						return trace_error(c,
							"padding='same': "
							"dilation %" PRId64
							" is not positive or "
							"its span overflows",
							p.dilation[i]);
					if (p.stride[i] != 1)
						return trace_error(c,
							"padding='same' is not "
							"supported for strided "
							"convolutions");
					p.pad[i] = tot / 2;
					extra[i] = tot - 2 * (tot / 2);
					has_extra |= extra[i] != 0;
				}
			} else if (strcmp(mode, "valid")) {
				return trace_error(c, "invalid padding string: "
						   "'%s'", mode);
			}
		} else if (get_ints_n(c, in[4], ns, p.pad, zero,
				      "padding")) {
			return -1;
		}
	}
	p.groups = groups;
	p.transposed = transposed;
	for (i = 0; i < ns; i++)
		if (p.stride[i] <= 0 || p.dilation[i] <= 0 || p.pad[i] < 0)
			return trace_error(c, "non-positive stride or "
					   "dilation, or negative padding");
	return trace_out(c, out, conv_run(c, x, w, b, &p,
				       has_extra ? extra : NULL));
}

/* conv_tbc(self [T, B, C], weight [K, C, O], bias [O], pad) */
static int op_conv_tbc(struct trace_ctx *c, const struct ir_node *n,
		       struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x, *w, *b, *xp = NULL, *wp = NULL, *y = NULL;
	struct gpu_conv p;
	int64_t pad = 0;
	int px[3] = { 1, 2, 0 }, pw[3] = { 2, 1, 0 }, py[3] = { 2, 0, 1 };
	int rc = -1;

	(void)n; (void)nout;
	if (tv_get_tensor(c, in[0], 0, &x) || tv_get_tensor(c, in[1], 0, &w) ||
	    tv_get_tensor(c, in[2], 0, &b) ||
	    (nin > 3 && tv_get_int(c, in[3], &pad)))
		return -1;
	if (x->rank != 3 || w->rank != 3)
		return trace_error(c, "input and weight must be 3-D");
	memset(&p, 0, sizeof(p));
	p.nspatial = 1;
	p.stride[0] = 1;
	p.dilation[0] = 1;
	p.pad[0] = pad;
	p.groups = 1;
	xp = nn_permute(c, x, px); /* [B, C, T] */
	wp = xp ? nn_permute(c, w, pw) : NULL; /* [O, C, K] */
	if (wp)
		y = conv_run(c, xp, wp, b, &p, NULL);
	if (y)
		rc = trace_out(c, out, nn_permute(c, y, py)); /* [T, B, O] */
	gpu_free(xp);
	gpu_free(wp);
	gpu_free(y);
	return rc;
}

/* --- pooling ----------------------------------------------------------- */

static int64_t pool_out(int64_t in, int64_t k, int64_t pad, int64_t s,
			int64_t d, int ceil_mode)
{
	int64_t num = in + 2 * pad - d * (k - 1) - 1 + (ceil_mode ? s - 1 : 0);
	int64_t o = (num >= 0 ? num / s : -((-num + s - 1) / s)) + 1;

	if (ceil_mode && (o - 1) * s >= in + pad)
		o--;
	return o;
}

/* x [N, C, *in] or [C, *in] pooled; y (and indices when want_idx) */
static int pool_run(struct trace_ctx *c, struct gpu_tensor *x,
		    struct gpu_pool *p, int ceil_mode, struct tval **out,
		    int want_idx)
{
	struct gpu_tensor *y = NULL, *idx = NULL, *xb;
	int64_t dims[GPU_MAX_DIMS];
	int ns = p->nspatial, i, rc = -1;

	if (x->rank != ns + 1 && x->rank != ns + 2)
		return trace_error(c, "expected %dD or %dD input, got %dD",
				   ns + 1, ns + 2, x->rank);
	xb = x->rank == ns + 1 ? nn_unsqueeze(c, x, 0) : trace_alias(c, x);
	if (!xb)
		return -1;
	dims[0] = xb->dims[0];
	dims[1] = xb->dims[1];
	for (i = 0; i < ns; i++) {
		if (p->kernel[i] <= 0 || p->stride[i] <= 0 ||
		    p->dilation[i] <= 0) {
			trace_error(c, "kernel size, stride and dilation "
				    "should be greater than zero");
			goto out;
		}
		if (p->pad[i] < 0 || p->pad[i] >
		    ((p->kernel[i] - 1) * p->dilation[i] + 1) / 2) {
			trace_error(c, "pad should be at most half of "
				    "effective kernel size, but got pad=%lld, "
				    "kernel_size=%lld", (long long)p->pad[i],
				    (long long)p->kernel[i]);
			goto out;
		}
		dims[i + 2] = pool_out(xb->dims[i + 2], p->kernel[i],
				       p->pad[i], p->stride[i],
				       p->dilation[i], ceil_mode);
		if (dims[i + 2] <= 0) {
			trace_error(c, "output size is too small");
			goto out;
		}
	}
	y = trace_empty(c, x->dtype, ns + 2, dims);
	if (y && want_idx)
		idx = trace_empty(c, IR_DTYPE_INT64, ns + 2, dims);
	if (!y || (want_idx && !idx))
		goto out;
	if (c->be->pool(p, xb, y, idx)) {
		trace_gpu_error(c);
		goto out;
	}
	if (x->rank == ns + 1) {
		if (trace_out(c, out, nn_squeeze(c, y, 0)) ||
		    (want_idx && trace_out(c, out + 1, nn_squeeze(c, idx, 0))))
			goto out;
	} else {
		out[0] = tv_tensor(y);
		y = NULL;
		if (want_idx) {
			out[1] = tv_tensor(idx);
			idx = NULL;
		}
	}
	rc = 0;
out:
	gpu_free(xb);
	gpu_free(y);
	gpu_free(idx);
	return rc;
}

/* max_pool{1,2,3}d[_with_indices](self, kernel, stride, padding,
 * dilation, ceil_mode) */
static int op_max_pool(struct trace_ctx *c, const struct ir_node *n,
		       struct tval **in, int nin, struct tval **out, int nout)
{
	static const int64_t zero[3] = { 0, 0, 0 }, one[3] = { 1, 1, 1 };
	struct gpu_tensor *x;
	struct gpu_pool p;
	int ns = trace_op_dims(n->op), ceil_mode = 0;

	memset(&p, 0, sizeof(p));
	if (ns < 1 || ns > 3 || nin < 6)
		return trace_error(c, "unexpected arguments");
	p.kind = GPU_POOL_MAX;
	p.nspatial = ns;
	if (tv_get_tensor(c, in[0], 0, &x) ||
	    get_ints_n(c, in[1], ns, p.kernel, NULL, "kernel_size") ||
	    get_ints_n(c, in[2], ns, p.stride, p.kernel, "stride") ||
	    get_ints_n(c, in[3], ns, p.pad, zero, "padding") ||
	    get_ints_n(c, in[4], ns, p.dilation, one, "dilation") ||
	    tv_get_bool(c, in[5], &ceil_mode))
		return -1;
	return pool_run(c, x, &p, ceil_mode, out,
			nout > 1 && (n->op == OP_aten_max_pool1d_with_indices ||
				     n->op == OP_aten_max_pool2d_with_indices ||
				     n->op == OP_aten_max_pool3d_with_indices));
}

/* avg_pool1d(self, k, s, p, ceil, count_include_pad);
 * avg_pool2d/3d(..., divisor_override) */
static int op_avg_pool(struct trace_ctx *c, const struct ir_node *n,
		       struct tval **in, int nin, struct tval **out, int nout)
{
	static const int64_t zero[3] = { 0, 0, 0 };
	struct gpu_tensor *x;
	struct gpu_pool p;
	int ns = trace_op_dims(n->op), ceil_mode = 0, cip = 1, i;

	(void)nout;
	memset(&p, 0, sizeof(p));
	if (ns < 1 || ns > 3 || nin < 6)
		return trace_error(c, "unexpected arguments");
	p.kind = GPU_POOL_AVG;
	p.nspatial = ns;
	for (i = 0; i < 3; i++)
		p.dilation[i] = 1;
	if (tv_get_tensor(c, in[0], 0, &x) ||
	    get_ints_n(c, in[1], ns, p.kernel, NULL, "kernel_size") ||
	    get_ints_n(c, in[2], ns, p.stride, p.kernel, "stride") ||
	    get_ints_n(c, in[3], ns, p.pad, zero, "padding") ||
	    tv_get_bool(c, in[4], &ceil_mode) || tv_get_bool(c, in[5], &cip))
		return -1;
	p.count_include_pad = cip;
	if (!is_none(in, nin, 6)) {
		if (tv_get_int(c, in[6], &p.divisor_override))
			return -1;
		if (p.divisor_override == 0)
			return trace_error(c, "divisor must be not zero");
	}
	return pool_run(c, x, &p, ceil_mode, out, 0);
}

/* adaptive max indices on the host (the kernel gives values only) */
static struct gpu_tensor *adaptive_max_indices(struct trace_ctx *c,
					       const struct gpu_tensor *x,
					       int ns, const int64_t *odims,
					       int orank)
{
	double *v = trace_to_host(c, x, IR_DTYPE_DOUBLE), *iv = NULL;
	int64_t planes = 1, ip = 1, op = 1, i, o;
	const int64_t *in = x->dims + x->rank - ns;
	const int64_t *od = odims + orank - ns;
	struct gpu_tensor *r = NULL;

	if (!v)
		return NULL;
	for (i = 0; i < x->rank - ns; i++)
		planes *= x->dims[i];
	for (i = 0; i < ns; i++) {
		ip *= in[i];
		op *= od[i];
	}
	iv = malloc(sizeof(double) * (size_t)(planes * op > 0 ?
					      planes * op : 1));
	if (!iv) {
		trace_error(c, "out of memory");
		goto out;
	}
	for (i = 0; i < planes; i++) {
		for (o = 0; o < op; o++) {
			int64_t lo[3] = { 0 }, hi[3] = { 1, 1, 1 }, cur[3];
			int64_t rem = o, best = -1, j, flat;
			double bv = 0;
			int d;

			for (d = ns - 1; d >= 0; d--) {
				int64_t oi = rem % od[d];

				rem /= od[d];
				lo[d] = oi * in[d] / od[d];
				hi[d] = ((oi + 1) * in[d] + od[d] - 1) / od[d];
			}
			memcpy(cur, lo, sizeof(cur));
			for (;;) {
				flat = 0;
				for (d = 0; d < ns; d++)
					flat = flat * in[d] + cur[d];
				{
					double e = v[i * ip + flat];

					if (best < 0 || e > bv || isnan(e)) {
						if (best < 0 || !isnan(bv)) {
							best = flat;
							bv = e;
						}
					}
				}
				for (j = ns - 1; j >= 0; j--) {
					if (++cur[j] < hi[j])
						break;
					cur[j] = lo[j];
				}
				if (j < 0)
					break;
			}
			iv[i * op + o] = (double)best;
		}
	}
	r = trace_from_host(c, IR_DTYPE_INT64, orank, odims, IR_DTYPE_DOUBLE,
			    iv);
out:
	free(v);
	free(iv);
	return r;
}

/* adaptive_{avg,max}_pool{1,2,3}d(self, output_size) */
static int op_adaptive_pool(struct trace_ctx *c, const struct ir_node *n,
			    struct tval **in, int nin, struct tval **out,
			    int nout)
{
	int is_max = n->op == OP_aten_adaptive_max_pool1d ||
		     n->op == OP_aten_adaptive_max_pool2d ||
		     n->op == OP_aten_adaptive_max_pool3d;
	int ns = trace_op_dims(n->op);
	struct gpu_tensor *x, *xb, *y = NULL;
	int64_t os[3], dims[GPU_MAX_DIMS], cnt;
	int i, rc = -1, r;

	(void)nin;
	if (ns < 1 || ns > 3)
		return trace_error(c, "unexpected op");
	if (tv_get_tensor(c, in[0], 0, &x) ||
	    get_ints_n(c, in[1], ns, os, NULL, "output_size"))
		return -1;
	if (x->rank != ns + 1 && x->rank != ns + 2)
		return trace_error(c, "expected %dD or %dD input, got %dD",
				   ns + 1, ns + 2, x->rank);
	r = x->rank;
	memcpy(dims, x->dims, sizeof(dims));
	for (i = 0; i < ns; i++) {
		if (os[i] < 0)
			os[i] = x->dims[r - ns + i];
		dims[r - ns + i] = os[i];
	}
	for (i = r == ns + 2 ? 1 : 0; i < r; i++)
		if (x->dims[i] == 0)
			return trace_error(c, "expected input with non-zero "
					   "sizes except the batch dim");
	xb = x->rank == ns + 1 ? nn_unsqueeze(c, x, 0) : trace_alias(c, x);
	if (!xb)
		return -1;
	{
		int64_t bd[GPU_MAX_DIMS];

		memcpy(bd, xb->dims, sizeof(bd));
		for (i = 0; i < ns; i++)
			bd[xb->rank - ns + i] = os[i];
		y = trace_empty(c, x->dtype, xb->rank, bd);
	}
	if (!y)
		goto out;
	if (gpu_numel(y) > 0 &&
	    c->be->adaptive_pool(is_max ? GPU_POOL_MAX : GPU_POOL_AVG, ns,
				 xb, y)) {
		trace_gpu_error(c);
		goto out;
	}
	cnt = is_max && nout > 1;
	if (trace_out(c, out, nn_reshape(c, y, r, dims)))
		goto out;
	if (cnt && trace_out(c, out + 1, adaptive_max_indices(c, x, ns, dims,
							    r))) {
		tv_unref(out[0]);
		out[0] = NULL;
		goto out;
	}
	rc = 0;
out:
	gpu_free(xb);
	gpu_free(y);
	return rc;
}

/* --- normalisation ----------------------------------------------------- */

static int check_channels(struct trace_ctx *c, const struct gpu_tensor *t,
			  int64_t ch, const char *what)
{
	if (t && gpu_numel(t) != ch)
		return trace_error(c, "%s should contain %lld elements not "
				   "%lld", what, (long long)ch,
				   (long long)gpu_numel(t));
	return 0;
}

/* batch_norm(input, weight, bias, running_mean, running_var, training,
 * momentum, eps, cudnn_enabled) */
static int op_batch_norm(struct trace_ctx *c, const struct ir_node *n,
			 struct tval **in, int nin, struct tval **out,
			 int nout)
{
	struct gpu_tensor *x, *w, *b, *rm, *rv, *y;
	int training = 0;
	double eps = 1e-5;

	(void)n; (void)nout;
	if (nin < 8)
		return trace_error(c, "expected 9 arguments");
	if (tv_get_tensor(c, in[0], 0, &x) || opt_tensor(c, in, nin, 1, &w) ||
	    opt_tensor(c, in, nin, 2, &b) || opt_tensor(c, in, nin, 3, &rm) ||
	    opt_tensor(c, in, nin, 4, &rv) || tv_get_bool(c, in[5], &training) ||
	    tv_get_float(c, in[7], &eps))
		return -1;
	if (x->rank < 2)
		return trace_error(c, "expected 2D or more input (got %dD)",
				   x->rank);
	if (check_channels(c, w, x->dims[1], "weight") ||
	    check_channels(c, b, x->dims[1], "bias") ||
	    check_channels(c, rm, x->dims[1], "running_mean") ||
	    check_channels(c, rv, x->dims[1], "running_var"))
		return -1;
	if (!training && (!rm || !rv))
		return trace_error(c, "running_mean and running_var must be "
				   "defined in evaluation mode");
	y = trace_empty(c, x->dtype, x->rank, x->dims);
	if (!y)
		return -1;
	if (c->be->batch_norm(x, training ? NULL : rm, training ? NULL : rv,
			      w, b, eps, y)) {
		gpu_free(y);
		return trace_gpu_error(c);
	}
	return trace_out(c, out, y);
}

static struct gpu_tensor *group_norm_run(struct trace_ctx *c,
					 const struct gpu_tensor *x,
					 int64_t groups,
					 const struct gpu_tensor *w,
					 const struct gpu_tensor *b, double eps)
{
	struct gpu_tensor *y;

	if (x->rank < 2) {
		trace_error(c, "expected at least 2 dimensions for input "
			    "tensor but received %d", x->rank);
		return NULL;
	}
	if (groups <= 0 || x->dims[1] % groups) {
		trace_error(c, "expected number of channels in input to be "
			    "divisible by num_groups, but got input of shape "
			    "[%lld, %lld, ...] and num_groups=%lld",
			    (long long)x->dims[0], (long long)x->dims[1],
			    (long long)groups);
		return NULL;
	}
	if (check_channels(c, w, x->dims[1], "weight") ||
	    check_channels(c, b, x->dims[1], "bias"))
		return NULL;
	y = trace_empty(c, x->dtype, x->rank, x->dims);
	if (y && c->be->group_norm(x, groups, w, b, eps, y)) {
		gpu_free(y);
		trace_gpu_error(c);
		return NULL;
	}
	return y;
}

/* group_norm(input, num_groups, weight, bias, eps, cudnn_enabled) */
static int op_group_norm(struct trace_ctx *c, const struct ir_node *n,
			 struct tval **in, int nin, struct tval **out,
			 int nout)
{
	struct gpu_tensor *x, *w, *b;
	int64_t g;
	double eps = 1e-5;

	(void)n; (void)nout;
	if (tv_get_tensor(c, in[0], 0, &x) || tv_get_int(c, in[1], &g) ||
	    opt_tensor(c, in, nin, 2, &w) || opt_tensor(c, in, nin, 3, &b) ||
	    (nin > 4 && tv_get_float(c, in[4], &eps)))
		return -1;
	return trace_out(c, out, group_norm_run(c, x, g, w, b, eps));
}

/* x's mean and 1 / sqrt(biased variance + eps) over the axes in mask
 * (keepdim 0) into out[0] and out[1]; 0 or -1 after reporting */
static int norm_stats(struct trace_ctx *c, const struct gpu_tensor *x,
		      uint32_t mask, double eps, struct tval **out)
{
	struct gpu_tensor *mean = nn_reduce(c, GPU_RMEAN, x, mask, 0, 0);
	struct gpu_tensor *var = mean ? nn_reduce(c, GPU_RVAR, x, mask, 0, 0)
				      : NULL;
	struct gpu_tensor *t = var ? nn_binary_s(c, GPU_ADD, var, eps) : NULL;
	gpu_free(var);
	if (!t || trace_out(c, out, mean)) {
		gpu_free(t);
		if (!t)
			gpu_free(mean);
		return -1;
	}
	int rc = trace_out(c, out + 1, nn_unary(c, GPU_RSQRT, t, 0, 0));
	gpu_free(t);
	return rc;
}

/* torch 2.x's core batch norms: native_batch_norm, _native_batch_norm_
 * legit and _functional (batch_norm's first eight arguments), legit's
 * .no_stats (input, weight, bias, training, momentum, eps) and
 * _no_training (input, weight, bias, running_mean, running_var,
 * momentum, eps) -> (out, save_mean, save_invstd[, running_mean,
 * running_var]): batch_norm's kernel; the saved statistics are the
 * batch's over every dim but 1 when training, empty otherwise (torch's
 * CPU kernel); _functional's running statistics are its inputs when not
 * training (an update is not traced). */
static int op_native_batch_norm(struct trace_ctx *c, const struct ir_node *n,
				struct tval **in, int nin, struct tval **out,
				int nout)
{
	struct tval *a[8], *made = NULL;
	struct gpu_tensor *x;
	int training = 0, i;

	if (nin < 6)
		return trace_error(c, "expected 6 or more arguments");
	if (nin == 7 && n->op != OP_aten__native_batch_norm_legit_no_training)
		return trace_error(c, "expected 6 or 8 or more arguments, got 7");
	for (i = 0; i < 8 && i < nin; i++)
		a[i] = in[i];
	if (nin == 6) {		/* .no_stats */
		made = tv_none();
		a[3] = a[4] = made;
		a[5] = in[3];
		a[6] = in[4];
		a[7] = in[5];
	} else if (n->op == OP_aten__native_batch_norm_legit_no_training) {
		made = tv_bool(0);
		a[5] = made;
		a[6] = in[5];
		a[7] = in[6];
	}
	if ((nin == 6 || nin == 7) && !made)
		return trace_oom(c);
	int rc = op_batch_norm(c, n, a, 8, out, 1);
	if (!rc)
		rc = tv_get_bool(c, a[5], &training);
	tv_unref(made);
	if (rc || nout < 3)
		return rc;
	if (tv_get_tensor(c, in[0], 0, &x))
		return -1;
	if (training) {
		uint32_t mask = 0;
		for (i = 0; i < x->rank; i++)
			if (i != 1)
				mask |= 1u << i;
		double eps = 1e-5;
		rc = tv_get_float(c, a[7], &eps) ||
		     norm_stats(c, x, mask, eps, out + 1);
	} else {
		int64_t zero = 0;
		rc = trace_out(c, out + 1, trace_empty(c, x->dtype, 1, &zero)) ||
		     trace_out(c, out + 2, trace_empty(c, x->dtype, 1, &zero));
	}
	if (rc || nout < 5)
		return rc;
	if (training)
		return trace_error(c, "the running statistics' update of a "
				   "training batch norm is not traced");
	out[3] = tv_ref(in[3]);
	out[4] = tv_ref(in[4]);
	return 0;
}

/* native_group_norm(input, weight, bias, N, C, HxW, group, eps) ->
 * (out, mean, rstd): group_norm's kernel, and each group's mean and
 * rstd as [N, group] */
static int op_native_group_norm(struct trace_ctx *c, const struct ir_node *n,
				struct tval **in, int nin, struct tval **out,
				int nout)
{
	struct gpu_tensor *x, *w, *b, *xr;
	int64_t g, shp[3];
	double eps;

	if (nin < 8)
		return trace_error(c, "expected 8 arguments");
	if (tv_get_tensor(c, in[0], 0, &x) || opt_tensor(c, in, nin, 1, &w) ||
	    opt_tensor(c, in, nin, 2, &b) || tv_get_int(c, in[6], &g) ||
	    tv_get_float(c, in[7], &eps))
		return -1;
	if (trace_out(c, out, group_norm_run(c, x, g, w, b, eps)))
		return -1;
	if (nout < 3)
		return 0;
	shp[0] = x->dims[0];
	shp[1] = g;
	shp[2] = -1;
	xr = sh_reshape(c, x, 3, shp);
	if (!xr)
		return -1;
	int rc = norm_stats(c, xr, 1u << 2, eps, out + 1);
	gpu_free(xr);
	return rc;
}

/* instance_norm(input, weight, bias, running_mean, running_var,
 * use_input_stats, momentum, eps, cudnn_enabled) */
static int op_instance_norm(struct trace_ctx *c, const struct ir_node *n,
			    struct tval **in, int nin, struct tval **out,
			    int nout)
{
	struct gpu_tensor *x, *w, *b, *rm, *rv, *y;
	int use_stats = 1;
	double eps = 1e-5;

	(void)n; (void)nout;
	if (nin < 8)
		return trace_error(c, "expected 9 arguments");
	if (tv_get_tensor(c, in[0], 0, &x) || opt_tensor(c, in, nin, 1, &w) ||
	    opt_tensor(c, in, nin, 2, &b) || opt_tensor(c, in, nin, 3, &rm) ||
	    opt_tensor(c, in, nin, 4, &rv) ||
	    tv_get_bool(c, in[5], &use_stats) || tv_get_float(c, in[7], &eps))
		return -1;
	if (x->rank < 2)
		return trace_error(c, "expected 2D or more input");
	if (!use_stats) {
		if (!rm || !rv)
			return trace_error(c, "expected running_mean and "
					   "running_var to be defined when "
					   "use_input_stats is false");
		y = trace_empty(c, x->dtype, x->rank, x->dims);
		if (y && c->be->batch_norm(x, rm, rv, w, b, eps, y)) {
			gpu_free(y);
			return trace_gpu_error(c);
		}
		return trace_out(c, out, y);
	}
	return trace_out(c, out, group_norm_run(c, x, x->dims[1], w, b, eps));
}

static int norm_axes(struct trace_ctx *c, const struct gpu_tensor *x,
		     const struct tval *shape, int *naxes)
{
	int64_t ns[GPU_MAX_DIMS];
	int k, i;

	if (tv_get_ints(c, shape, ns, GPU_MAX_DIMS, &k))
		return -1;
	if (shape->kind == TV_INT)
		k = 1;
	if (k < 1 || k > x->rank)
		return trace_error(c, "normalized_shape of %d dims for input "
				   "of rank %d", k, x->rank);
	for (i = 0; i < k; i++)
		if (x->dims[x->rank - k + i] != ns[i])
			return trace_error(c, "given normalized_shape has %d "
					   "dims, expected input with shape "
					   "[*, ...] matching it; dim %d is "
					   "%lld, not %lld", k, i,
					   (long long)x->dims[x->rank - k + i],
					   (long long)ns[i]);
	*naxes = k;
	return 0;
}

/* layer_norm(input, normalized_shape, weight, bias, eps, cudnn_enable);
 * native_layer_norm(input, normalized_shape, weight, bias, eps) ->
 * (y, mean, rstd) */
static int op_layer_norm(struct trace_ctx *c, const struct ir_node *n,
			 struct tval **in, int nin, struct tval **out,
			 int nout)
{
	struct gpu_tensor *x, *w, *b, *mean = NULL, *var = NULL, *t = NULL;
	int naxes = 0, i;
	uint32_t mask = 0;
	double eps = 1e-5;

	if (tv_get_tensor(c, in[0], 0, &x) || norm_axes(c, x, in[1], &naxes) ||
	    opt_tensor(c, in, nin, 2, &w) || opt_tensor(c, in, nin, 3, &b) ||
	    (nin > 4 && tv_get_float(c, in[4], &eps)))
		return -1;
	if (trace_out(c, out, nn_layer_norm(c, x, naxes, w, b, eps)))
		return -1;
	if (n->op != OP_aten_native_layer_norm || nout < 3)
		return 0;
	for (i = x->rank - naxes; i < x->rank; i++)
		mask |= 1u << i;
	mean = nn_reduce(c, GPU_RMEAN, x, mask, 1, 0);
	var = mean ? nn_reduce(c, GPU_RVAR, x, mask, 1, 0) : NULL;
	t = var ? nn_binary_s(c, GPU_ADD, var, eps) : NULL;
	if (!t || trace_out(c, out + 2, nn_unary(c, GPU_RSQRT, t, 0, 0))) {
		gpu_free(mean);
		gpu_free(var);
		gpu_free(t);
		tv_unref(out[0]);
		out[0] = NULL;
		return -1;
	}
	out[1] = tv_tensor(mean);
	gpu_free(var);
	gpu_free(t);
	return out[1] ? 0 : trace_error(c, "out of memory");
}

/* rms_norm(input, normalized_shape, weight=None, eps=None), torch 2.x:
 * x * rsqrt(mean(x^2 over the normalized dims) + eps) [* weight]; eps
 * None is the epsilon of float (of double for double inputs), as torch's
 * opmath type */
static int op_rms_norm(struct trace_ctx *c, const struct ir_node *n,
		       struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x, *w, *t[5] = { NULL };
	int naxes = 0, i, rc = -1;
	uint32_t mask = 0;
	double eps;

	(void)n; (void)nout;
	if (tv_get_tensor(c, in[0], 0, &x) || norm_axes(c, x, in[1], &naxes) ||
	    opt_tensor(c, in, nin, 2, &w))
		return -1;
	eps = x->dtype == IR_DTYPE_DOUBLE ? DBL_EPSILON : FLT_EPSILON;
	if (nin > 3 && in[3]->kind != TV_NONE && tv_get_float(c, in[3], &eps))
		return -1;
	for (i = x->rank - naxes; i < x->rank; i++)
		mask |= 1u << i;
	t[0] = nn_binary(c, GPU_MUL, x, x);
	t[1] = t[0] ? nn_reduce(c, GPU_RMEAN, t[0], mask, 1, 0) : NULL;
	t[2] = t[1] ? nn_binary_s(c, GPU_ADD, t[1], eps) : NULL;
	t[3] = t[2] ? nn_unary(c, GPU_RSQRT, t[2], 0, 0) : NULL;
	t[4] = t[3] ? nn_binary(c, GPU_MUL, x, t[3]) : NULL;
	if (t[4] && w)
		rc = trace_out(c, out, nn_binary(c, GPU_MUL, t[4], w));
	else if (t[4]) {
		rc = trace_out(c, out, t[4]);
		t[4] = NULL;
	}
	for (i = 0; i < 5; i++)
		gpu_free(t[i]);
	return rc;
}

/* _weight_norm(v, g, dim): v * (g / ||v||), the norm over every dim but
 * dim (all dims when dim is -1) */
static int op_weight_norm(struct trace_ctx *c, const struct ir_node *n,
			  struct tval **in, int nin, struct tval **out,
			  int nout)
{
	struct gpu_tensor *v, *g, *nrm, *q, *y = NULL;
	int64_t dim = 0;
	uint32_t mask = 0;
	int i, ax = -1;

	(void)n; (void)nout;
	if (tv_get_tensor(c, in[0], 0, &v) || tv_get_tensor(c, in[1], 0, &g) ||
	    (nin > 2 && tv_get_int(c, in[2], &dim)))
		return -1;
	if (dim != -1 && trace_axis(c, dim, v->rank, &ax))
		return -1;
	for (i = 0; i < v->rank; i++)
		if (i != ax)
			mask |= 1u << i;
	nrm = nn_reduce(c, GPU_RL2, v, mask, 1, 0);
	if (!nrm)
		return -1;
	if (ax < 0) {
		/* g is a scalar-like: broadcast as it is */
		q = nn_binary(c, GPU_DIV, g, nrm);
	} else {
		struct gpu_tensor *gv = nn_reshape(c, g, nrm->rank, nrm->dims);

		q = gv ? nn_binary(c, GPU_DIV, gv, nrm) : NULL;
		gpu_free(gv);
	}
	if (q)
		y = nn_binary(c, GPU_MUL, v, q);
	gpu_free(nrm);
	gpu_free(q);
	return trace_out(c, out, y);
}

/* --- softmax ------------------------------------------------------------ */

/* softmax/log_softmax(self, dim, dtype); _softmax/_log_softmax(self,
 * dim, half_to_float) */
static int op_softmax(struct trace_ctx *c, const struct ir_node *n,
		      struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x, *xc, *y;
	int64_t dim;
	int ax, log = n->op == OP_aten_log_softmax ||
		      n->op == OP_aten__log_softmax;
	enum ir_dtype dt;

	(void)nout;
	if (tv_get_tensor(c, in[0], 0, &x))
		return -1;
	if (in[1] && in[1]->kind == TV_STR)
		return trace_error(c, "named dimensions are not supported");
	if (tv_get_int(c, in[1], &dim) || trace_axis(c, dim, x->rank, &ax))
		return -1;
	dt = x->dtype;
	if (n->op == OP_aten__softmax || n->op == OP_aten__log_softmax) {
		int h2f = 0;

		if (nin > 2 && tv_get_bool(c, in[2], &h2f))
			return -1;
		if (h2f && x->dtype == IR_DTYPE_FLOAT16)
			dt = IR_DTYPE_FLOAT;
	} else if (nin > 2 && tv_get_dtype(c, in[2], x->dtype, &dt)) {
		return -1;
	}
	if (!nn_is_float(dt))
		return trace_error(c, "\"softmax\" not implemented for '%s'",
				   ir_dtype_torch_name(dt));
	xc = trace_cast(c, x, dt);
	if (!xc)
		return -1;
	if (x->rank == 0) {
		/* softmax of a scalar is 1 (log: 0) */
		y = trace_empty(c, dt, 0, NULL);
		if (y && c->be->fill(y, log ? 0 : 1)) {
			gpu_free(y);
			y = NULL;
			trace_gpu_error(c);
		}
	} else {
		y = nn_softmax(c, xc, ax, log);
	}
	gpu_free(xc);
	return trace_out(c, out, y);
}

/* --- embedding --------------------------------------------------------- */

/* weight rows picked by idx (any shape) -> idx.shape + [D] */
static struct gpu_tensor *embed(struct trace_ctx *c,
				const struct gpu_tensor *w,
				struct gpu_tensor *idx)
{
	struct gpu_tensor *ic = NULL, *flat = NULL, *y = NULL, *res = NULL;
	int64_t n = gpu_numel(idx), d1[1], d2[2], dims[GPU_MAX_DIMS];
	int64_t st[GPU_MAX_DIMS];

	if (w->rank != 2) {
		trace_error(c, "'weight' must be 2-D");
		return NULL;
	}
	if (nn_is_float(idx->dtype) || idx->dtype == IR_DTYPE_BOOL) {
		trace_error(c, "expected tensor for argument 'indices' to have "
			    "one of the following scalar types: Long, Int; "
			    "but got %s instead",
			    ir_dtype_torch_name(idx->dtype));
		return NULL;
	}
	if (idx->rank + 1 > GPU_MAX_DIMS) {
		trace_error(c, "indices of rank %d", idx->rank);
		return NULL;
	}
	ic = trace_cast(c, idx, IR_DTYPE_INT64);
	d1[0] = n;
	flat = ic ? nn_reshape(c, ic, 1, d1) : NULL;
	d2[0] = n;
	d2[1] = w->dims[1];
	y = flat ? trace_empty(c, w->dtype, 2, d2) : NULL;
	if (!y)
		goto out;
	if (n > 0 && c->be->index_select(w, 0, flat, y)) {
		trace_gpu_error(c);
		goto out;
	}
	memcpy(dims, idx->dims, sizeof(int64_t) * idx->rank);
	dims[idx->rank] = w->dims[1];
	gpu_contiguous_strides(idx->rank + 1, dims, st);
	res = trace_view(c, y, idx->rank + 1, dims, st, y->offset);
out:
	gpu_free(ic);
	gpu_free(flat);
	gpu_free(y);
	return res;
}

/* embedding(weight, indices, padding_idx, scale_grad_by_freq, sparse) */
static int op_embedding(struct trace_ctx *c, const struct ir_node *n,
			struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *w, *idx;

	(void)n; (void)nin; (void)nout;
	if (tv_get_tensor(c, in[0], 0, &w) || tv_get_tensor(c, in[1], 0, &idx))
		return -1;
	return trace_out(c, out, embed(c, w, idx));
}

/* --- resampling -------------------------------------------------------- */

/* Output size and scales of an upsample: `size` (list, int or None),
 * scales from `sc` (a list, or each of sc[0..nsc) a float or None). */
static int upsample_geom(struct trace_ctx *c, const struct gpu_tensor *x,
			 int ns, const struct tval *size,
			 struct tval **sc, int nsc, int64_t *osz,
			 double *scales)
{
	int i, have_size = size && size->kind != TV_NONE, have_sc = 0;

	for (i = 0; i < ns; i++)
		scales[i] = 0;
	if (nsc == 1 && sc[0] && (sc[0]->kind == TV_LIST ||
				  sc[0]->kind == TV_TUPLE)) {
		if (sc[0]->u.list.n != ns && sc[0]->u.list.n != 1)
			return trace_error(c, "scale_factor shape must match "
					   "input shape: %d scales for %d "
					   "spatial dims", sc[0]->u.list.n,
					   ns);
		for (i = 0; i < ns; i++)
			if (tv_get_float(c, sc[0]->u.list.items[
				    sc[0]->u.list.n == 1 ? 0 : i], &scales[i]))
				return -1;
		have_sc = 1;
	} else if (nsc == 1 && sc[0] && sc[0]->kind != TV_NONE && ns > 1) {
		/* one float for every dim (__interpolate's scale_factor) */
		if (tv_get_float(c, sc[0], &scales[0]))
			return -1;
		for (i = 1; i < ns; i++)
			scales[i] = scales[0];
		have_sc = 1;
	} else {
		for (i = 0; i < nsc && i < ns; i++) {
			if (!sc[i] || sc[i]->kind == TV_NONE)
				continue;
			if (tv_get_float(c, sc[i], &scales[i]))
				return -1;
			have_sc = 1;
		}
	}
	if (have_size) {
		if (get_ints_n(c, size, ns, osz, NULL, "output_size"))
			return -1;
	} else {
		if (!have_sc)
			return trace_error(c, "either size or scale_factor "
					   "should be defined");
		for (i = 0; i < ns; i++)
			osz[i] = (int64_t)((double)x->dims[x->rank - ns + i] *
					   scales[i]);
	}
	for (i = 0; i < ns; i++)
		if (osz[i] <= 0)
			return trace_error(c, "input and output sizes should "
					   "be greater than 0, but got output "
					   "size %lld", (long long)osz[i]);
	return 0;
}

static struct gpu_tensor *resize_run(struct trace_ctx *c,
				     const struct gpu_tensor *x, int ns,
				     enum gpu_interp mode, int align,
				     const int64_t *osz, const double *scales)
{
	int64_t dims[GPU_MAX_DIMS];
	struct gpu_tensor *y;
	int i;

	if (x->rank != ns + 2) {
		trace_error(c, "expected %dD input (batch, channels and %d "
			    "spatial dims), got %dD", ns + 2, ns, x->rank);
		return NULL;
	}
	memcpy(dims, x->dims, sizeof(dims));
	for (i = 0; i < ns; i++)
		dims[2 + i] = osz[i];
	y = trace_empty(c, x->dtype, x->rank, dims);
	if (y && c->be->resize(x, ns, mode, align, scales, y)) {
		gpu_free(y);
		trace_gpu_error(c);
		return NULL;
	}
	return y;
}

/* upsample_nearest{1,2,3}d[.vec], _upsample_nearest_exact*,
 * upsample_linear1d, upsample_bilinear2d, upsample_bicubic2d,
 * upsample_trilinear3d [.vec] */
static int op_upsample(struct trace_ctx *c, const struct ir_node *n,
		       struct tval **in, int nin, struct tval **out, int nout)
{
	enum aten_op op = n->op;
	struct gpu_tensor *x;
	enum gpu_interp mode;
	int ns = trace_op_dims(op), align = 0, first = 2;
	int64_t osz[3];
	double scales[3];

	(void)nout;
	if (op == OP_aten__upsample_nearest_exact1d ||
	    op == OP_aten__upsample_nearest_exact2d ||
	    op == OP_aten__upsample_nearest_exact3d)
		mode = GPU_INTERP_NEAREST_EXACT;
	else if (op == OP_aten_upsample_nearest1d ||
		 op == OP_aten_upsample_nearest2d ||
		 op == OP_aten_upsample_nearest3d)
		mode = GPU_INTERP_NEAREST;
	else if (op == OP_aten_upsample_bicubic2d)
		mode = GPU_INTERP_CUBIC;
	else
		mode = GPU_INTERP_LINEAR;
	if (ns < 1 || ns > 3 || nin < 2)
		return trace_error(c, "unexpected arguments");
	if (tv_get_tensor(c, in[0], 0, &x))
		return -1;
	if (mode == GPU_INTERP_LINEAR || mode == GPU_INTERP_CUBIC) {
		if (nin < 3 || tv_get_bool(c, in[2], &align))
			return -1;
		first = 3;
	}
	if (upsample_geom(c, x, ns, in[1], in + first, nin - first, osz,
			  scales))
		return -1;
	return trace_out(c, out, resize_run(c, x, ns, mode, align, osz, scales));
}

/* __interpolate(input, size, scale_factor, mode, align_corners,
 * recompute_scale_factor, antialias), as F.interpolate */
static int op_interpolate(struct trace_ctx *c, const struct ir_node *n,
			  struct tval **in, int nin, struct tval **out,
			  int nout)
{
	struct gpu_tensor *x;
	const char *mode = "nearest";
	int ns, align = 0, recompute = 0, anti = 0, i;
	int64_t osz[3];
	double scales[3];
	enum gpu_interp im;

	(void)n; (void)nout;
	if (nin < 7)
		return trace_error(c, "expected 7 arguments");
	if (tv_get_tensor(c, in[0], 0, &x))
		return -1;
	ns = x->rank - 2;
	if (ns < 1 || ns > 3)
		return trace_error(c, "input of rank %d: 3D, 4D or 5D "
				   "expected", x->rank);
	if (in[3] && in[3]->kind == TV_STR)
		mode = in[3]->u.s;
	if ((!is_none(in, nin, 4) && tv_get_bool(c, in[4], &align)) ||
	    (!is_none(in, nin, 5) && tv_get_bool(c, in[5], &recompute)) ||
	    tv_get_bool(c, in[6], &anti))
		return -1;
	if (!is_none(in, nin, 1) && !is_none(in, nin, 2))
		return trace_error(c, "only one of size or scale_factor "
				   "should be defined");
	if (anti)
		return trace_error(c, "antialias is not supported");
	if (upsample_geom(c, x, ns, in[1], in + 2, 1, osz, scales))
		return -1;
	if (!is_none(in, nin, 1) || recompute)
		for (i = 0; i < ns; i++)
			scales[i] = 0;
	if (!strcmp(mode, "nearest")) {
		im = GPU_INTERP_NEAREST;
	} else if (!strcmp(mode, "nearest-exact")) {
		im = GPU_INTERP_NEAREST_EXACT;
	} else if (!strcmp(mode, "area")) {
		int64_t dims[GPU_MAX_DIMS];
		struct gpu_tensor *y;

		memcpy(dims, x->dims, sizeof(dims));
		for (i = 0; i < ns; i++)
			dims[2 + i] = osz[i];
		y = trace_empty(c, x->dtype, x->rank, dims);
		if (y && c->be->adaptive_pool(GPU_POOL_AVG, ns, x, y)) {
			gpu_free(y);
			return trace_gpu_error(c);
		}
		return trace_out(c, out, y);
	} else if ((!strcmp(mode, "linear") && ns == 1) ||
		   (!strcmp(mode, "bilinear") && ns == 2) ||
		   (!strcmp(mode, "trilinear") && ns == 3)) {
		im = GPU_INTERP_LINEAR;
	} else if (!strcmp(mode, "bicubic") && ns == 2) {
		im = GPU_INTERP_CUBIC;
	} else {
		return trace_error(c, "mode '%s' is not supported for %dD "
				   "input", mode, x->rank);
	}
	if (im == GPU_INTERP_NEAREST || im == GPU_INTERP_NEAREST_EXACT)
		align = 0;
	return trace_out(c, out, resize_run(c, x, ns, im, align, osz, scales));
}

const struct trace_op trace_ops_nn[] = {
	/* matrix products */
	{ OP_aten_linear, op_linear, 0 },
	{ OP_aten_matmul, op_matmul, 0 },
	{ OP_aten_mm, op_matmul, 0 },
	{ OP_aten_bmm, op_matmul, 0 },
	{ OP_aten_mv, op_matmul, 0 },
	{ OP_aten_dot, op_matmul, 0 },
	{ OP_aten_inner, op_matmul, 0 },
	{ OP_aten_addmm, op_addmm, 0 },
	{ OP_aten_addmm_, op_addmm, 0 },
	{ OP_aten_addmv, op_addmm, 0 },
	{ OP_aten_addmv_, op_addmm, 0 },
	{ OP_aten_baddbmm, op_addmm, 0 },
	{ OP_aten_baddbmm_, op_addmm, 0 },
	{ OP_aten_addbmm, op_addmm, 0 },
	{ OP_aten_addbmm_, op_addmm, 0 },
	{ OP_aten_einsum, nn_op_einsum, 0 },
	{ OP_aten_tensordot, nn_op_tensordot, 0 },
	{ OP_aten_bilinear, nn_op_bilinear, 0 },
	/* convolution */
	{ OP_aten_conv1d, op_conv, 0 },
	{ OP_aten_conv2d, op_conv, 0 },
	{ OP_aten_conv3d, op_conv, 0 },
	{ OP_aten_conv_transpose1d, op_conv, 0 },
	{ OP_aten_conv_transpose2d, op_conv, 0 },
	{ OP_aten_conv_transpose3d, op_conv, 0 },
	{ OP_aten_convolution, op_conv, 0 },
	{ OP_aten__convolution, op_conv, 0 },
	{ OP_aten__convolution_mode, op_conv, 0 },
	{ OP_aten_conv_tbc, op_conv_tbc, 0 },
	/* pooling */
	{ OP_aten_max_pool1d, op_max_pool, 0 },
	{ OP_aten_max_pool2d, op_max_pool, 0 },
	{ OP_aten_max_pool3d, op_max_pool, 0 },
	{ OP_aten_max_pool1d_with_indices, op_max_pool, 0 },
	{ OP_aten_max_pool2d_with_indices, op_max_pool, 0 },
	{ OP_aten_max_pool3d_with_indices, op_max_pool, 0 },
	{ OP_aten_avg_pool1d, op_avg_pool, 0 },
	{ OP_aten_avg_pool2d, op_avg_pool, 0 },
	{ OP_aten_avg_pool3d, op_avg_pool, 0 },
	{ OP_aten_adaptive_avg_pool1d, op_adaptive_pool, 0 },
	{ OP_aten_adaptive_avg_pool2d, op_adaptive_pool, 0 },
	{ OP_aten_adaptive_avg_pool3d, op_adaptive_pool, 0 },
	{ OP_aten__adaptive_avg_pool2d, op_adaptive_pool, 0 },
	{ OP_aten__adaptive_avg_pool3d, op_adaptive_pool, 0 },
	{ OP_aten_adaptive_max_pool1d, op_adaptive_pool, 0 },
	{ OP_aten_adaptive_max_pool2d, op_adaptive_pool, 0 },
	{ OP_aten_adaptive_max_pool3d, op_adaptive_pool, 0 },
	/* normalisation */
	{ OP_aten_batch_norm, op_batch_norm, 0 },
	{ OP_aten_native_batch_norm, op_native_batch_norm, 0 },
	{ OP_aten__native_batch_norm_legit, op_native_batch_norm, 0 },
	{ OP_aten__native_batch_norm_legit_functional, op_native_batch_norm, 0 },
	{ OP_aten__native_batch_norm_legit_no_training, op_native_batch_norm, 0 },
	{ OP_aten_instance_norm, op_instance_norm, 0 },
	{ OP_aten_group_norm, op_group_norm, 0 },
	{ OP_aten_native_group_norm, op_native_group_norm, 0 },
	{ OP_aten_layer_norm, op_layer_norm, 0 },
	{ OP_aten_native_layer_norm, op_layer_norm, 0 },
	{ OP_aten__weight_norm, op_weight_norm, 0 },
	/* softmax, dropout */
	{ OP_aten_softmax, op_softmax, 0 },
	{ OP_aten_rms_norm, op_rms_norm, 0 },
	{ OP_aten_log_softmax, op_softmax, 0 },
	{ OP_aten__softmax, op_softmax, 0 },
	{ OP_aten__log_softmax, op_softmax, 0 },
	/* embedding */
	{ OP_aten_embedding, op_embedding, 0 },
	{ OP_aten_embedding_bag, nn_op_embedding_bag, 0 },
	{ OP_aten__embedding_bag, nn_op_embedding_bag, 0 },
	/* embedding_renorm is the name script gives the in-place op once
	 * in-place ops are made out of place; torch renorms the weight in
	 * place either way */
	{ OP_aten_embedding_renorm, nn_op_embedding_renorm, 0 },
	{ OP_aten_embedding_renorm_, nn_op_embedding_renorm, 0 },
	{ OP_aten_grid_sampler, nn_op_grid_sampler, 0 },
	{ OP_aten_grid_sampler_2d, nn_op_grid_sampler, 0 },
	/* resampling */
	{ OP_aten_upsample_nearest1d, op_upsample, 0 },
	{ OP_aten_upsample_nearest2d, op_upsample, 0 },
	{ OP_aten_upsample_nearest3d, op_upsample, 0 },
	{ OP_aten__upsample_nearest_exact1d, op_upsample, 0 },
	{ OP_aten__upsample_nearest_exact2d, op_upsample, 0 },
	{ OP_aten__upsample_nearest_exact3d, op_upsample, 0 },
	{ OP_aten_upsample_linear1d, op_upsample, 0 },
	{ OP_aten_upsample_bilinear2d, op_upsample, 0 },
	{ OP_aten_upsample_bicubic2d, op_upsample, 0 },
	{ OP_aten_upsample_trilinear3d, op_upsample, 0 },
	{ OP_aten___interpolate, op_interpolate, 0 },
	/* recurrent layers (ops_nn_seq.c) */
	{ OP_aten_lstm, nn_op_lstm, 0 },
	{ OP_aten_gru, nn_op_gru, 0 },
	{ OP_aten_rnn_tanh, nn_op_rnn_tanh, 0 },
	{ OP_aten_rnn_relu, nn_op_rnn_relu, 0 },
	{ OP_aten_lstm_cell, nn_op_lstm_cell, 0 },
	{ OP_aten_gru_cell, nn_op_gru_cell, 0 },
	{ OP_aten_rnn_tanh_cell, nn_op_rnn_tanh_cell, 0 },
	{ OP_aten_rnn_relu_cell, nn_op_rnn_relu_cell, 0 },
	{ OP_aten__pack_padded_sequence, nn_op_pack_padded, 0 },
	{ OP_aten__pad_packed_sequence, nn_op_pad_packed, 0 },
	/* attention (ops_nn_seq.c) */
	{ OP_aten__native_multi_head_attention, nn_op_mha, 0 },
	{ OP_aten__transformer_encoder_layer_fwd, nn_op_encoder_layer, 0 },
	{ OP_aten__scaled_dot_product_attention, nn_op_sdpa, 0 },
	{ OP_aten_scaled_dot_product_attention,
	  nn_op_scaled_dot_product_attention, 0 },
	/* distances, losses (ops_nn_seq.c) */
	{ OP_aten_cosine_similarity, nn_op_cosine_similarity, 0 },
	{ OP_aten_pairwise_distance, nn_op_pairwise_distance, 0 },
	{ OP_aten_cdist, nn_op_cdist, 0 },
	{ OP_aten__cdist_forward, nn_op_cdist, 0 },
	{ OP_aten_binary_cross_entropy_with_logits, nn_op_bce_logits, 0 },
	{ OP_aten_binary_cross_entropy, nn_op_bce, 0 },
	{ OP_aten_nll_loss, nn_op_nll_loss, 0 },
	{ OP_aten_nll_loss2d, nn_op_nll_loss, 0 },
	{ OP_aten_nll_loss_nd, nn_op_nll_loss, 0 },
	{ OP_aten_cross_entropy_loss, nn_op_cross_entropy, 0 },
	{ OP_aten_kl_div, nn_op_kl_div, 0 },
	{ OP_aten_huber_loss, nn_op_pw_loss2, 0 },
	{ OP_aten_hinge_embedding_loss, nn_op_pw_loss2, 0 },
	{ OP_aten_margin_ranking_loss, nn_op_pw_loss2, 0 },
	{ OP_aten_poisson_nll_loss, nn_op_pw_loss2, 0 },
	{ OP_aten_soft_margin_loss, nn_op_pw_loss2, 0 },
	{ OP_aten_cosine_embedding_loss, nn_op_embed_loss, 0 },
	{ OP_aten_ctc_loss, nn_op_ctc_loss, 0 },
	{ OP_aten_triplet_margin_loss, nn_op_embed_loss, 0 },
	{ OP_aten_multi_margin_loss, nn_op_margin_loss, 0 },
	{ OP_aten_multilabel_margin_loss, nn_op_margin_loss, 0 },
	{ OP_aten_mse_loss, nn_op_mse_loss, 0 },
	{ OP_aten_l1_loss, nn_op_l1_loss, 0 },
	{ OP_aten_smooth_l1_loss, nn_op_smooth_l1_loss, 0 },
	{ OP_NONE, NULL, 0 },
};

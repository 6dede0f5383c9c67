/*
 * ops_shape.c - aten op implementations for `trace` (see trace_int.h):
 * joining (cat, stack), repetition (repeat, tile, repeat_interleave),
 * reordering (flip, roll, rot90), tril / triu, padding, cross and outer
 * products; and the helpers the other shape files share (ops_shape.h):
 * views in ops_view.c, indexing in ops_index.c, sorting and unique in
 * ops_sort.c, detection in ops_detect.c, shuffles and im2col in
 * ops_im2col.c.
 *
 * In-place ops compute out of place and copy the result into the first
 * input's storage (which may itself be a view).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ops_shape.h"

/* --- helpers ------------------------------------------------------------ */

int sh_is_none(const struct tval *v)
{
	return !v || v->kind == TV_NONE;
}

int sh_is_list(const struct tval *v)
{
	return v && (v->kind == TV_LIST || v->kind == TV_TUPLE);
}

int sh_dims_mask(struct trace_ctx *c, const struct tval *v, int r, int dups,
		 unsigned *mask)
{
	int64_t d[GPU_MAX_DIMS];
	int k, i, a;

	*mask = 0;
	if (tv_get_ints(c, v, d, GPU_MAX_DIMS, &k))
		return -1;
	if (!sh_is_list(v))
		k = 1;
	for (i = 0; i < k; i++) {
		if (trace_axis(c, d[i], r, &a))
			return -1;
		if (!dups && (*mask & (1u << a)))
			return trace_error(c, "dim %d appears multiple times in "
					   "the list of dims", a);
		*mask |= 1u << a;
	}
	return 0;
}

int sh_is_float_dtype(enum ir_dtype dt)
{
	return dt == IR_DTYPE_FLOAT || dt == IR_DTYPE_DOUBLE ||
	       dt == IR_DTYPE_FLOAT16 || dt == IR_DTYPE_BFLOAT16;
}

/* a new contiguous tensor of dtype dt (UNDEFINED: t's) holding t's
 * elements: always new storage */
struct gpu_tensor *sh_copy_as(struct trace_ctx *c,
			      const struct gpu_tensor *t,
			      enum ir_dtype dt)
{
	struct gpu_tensor *y = trace_empty(c, dt == IR_DTYPE_UNDEFINED ?
					t->dtype : dt, t->rank, t->dims);

	if (!y)
		return NULL;
	if (gpu_numel(t) > 0 && c->be->copy(t, y)) {
		gpu_free(y);
		trace_gpu_error(c);
		return NULL;
	}
	return y;
}

struct gpu_tensor *sh_copy(struct trace_ctx *c,
			   const struct gpu_tensor *t)
{
	return sh_copy_as(c, t, IR_DTYPE_UNDEFINED);
}

/* copies x into the (possibly strided) view dst: trace_write_into, which
 * also gives a mapped weight written in place its own storage */
int sh_copy_into(struct trace_ctx *c, const struct gpu_tensor *x,
		 struct gpu_tensor *dst)
{
	if (gpu_numel(dst) == 0)
		return 0;
	return trace_write_into(c, dst, x);
}

int sh_fill(struct trace_ctx *c, struct gpu_tensor *y, double v)
{
	if (gpu_numel(y) > 0 && c->be->fill(y, v))
		return trace_gpu_error(c);
	return 0;
}

/* a rank-0 tensor of dtype dt holding the scalar or 0-d tensor v */
struct gpu_tensor *sh_scalar(struct trace_ctx *c, const struct tval *v,
			     enum ir_dtype dt)
{
	return trace_as_tensor(c, v, dt);
}

/* out = a list of n tensors (taking over the references) */
int sh_set_list(struct trace_ctx *c, struct tval **out,
		struct gpu_tensor **ts, int n)
{
	struct tval *l = tv_list(TV_LIST);
	int i;

	if (!l) {
		for (i = 0; i < n; i++)
			gpu_free(ts[i]);
		return trace_oom(c);
	}
	for (i = 0; i < n; i++) {
		if (tv_list_push(l, tv_tensor(ts[i]))) {
			for (i++; i < n; i++)
				gpu_free(ts[i]);
			tv_unref(l);
			return trace_oom(c);
		}
	}
	*out = l;
	return 0;
}

int sh_make_list(struct trace_ctx *c, struct tval **out, int n,
		 struct gpu_tensor *(*make)(struct trace_ctx *c, int i,
					    void *arg),
		 void *arg)
{
	struct gpu_tensor **ys = calloc(n ? n : 1, sizeof(*ys));
	int i, rc;

	if (!ys)
		return trace_oom(c);
	for (i = 0; i < n; i++) {
		ys[i] = make(c, i, arg);
		if (!ys[i]) {
			sh_free_all(ys, i);
			free(ys);
			return -1;
		}
	}
	rc = sh_set_list(c, out, ys, n);
	free(ys);
	return rc;
}

void sh_free_all(struct gpu_tensor **ts, int n)
{
	int i;

	for (i = 0; i < n; i++)
		gpu_free(ts[i]);
}

/* the tensors of a Tensor[] argument into *ts (malloc'd array of
 * borrowed pointers) */
int sh_get_tensor_list(struct trace_ctx *c, const struct tval *v,
		       struct gpu_tensor ***ts, int *n)
{
	int i;

	if (!sh_is_list(v))
		return trace_error(c, "expected a list of tensors");
	*n = v->u.list.n;
	*ts = calloc(*n ? *n : 1, sizeof(**ts));
	if (!*ts)
		return trace_oom(c);
	for (i = 0; i < *n; i++)
		if (tv_get_tensor(c, v->u.list.items[i], 0, &(*ts)[i])) {
			free(*ts);
			*ts = NULL;
			return -1;
		}
	return 0;
}

/* in-place: copies the result y into self's storage and makes out[0] the
 * self value; consumes y */
static int finish_inplace(struct trace_ctx *c, struct tval *self,
			  struct gpu_tensor *y, struct tval **out)
{
	int rc;

	if (!y)
		return -1;
	rc = sh_copy_into(c, y, self->u.t);
	gpu_free(y);
	if (rc)
		return -1;
	*out = tv_ref(self);
	return 0;
}

/* out[0] = y for the functional form, y copied into in[0] for the
 * in-place form (kind ending in '_') */
int sh_finish(struct trace_ctx *c, const struct ir_node *n,
	      struct tval **in, struct gpu_tensor *y, struct tval **out)
{
	if (!y)
		return -1;
	if (trace_inplace(n))
		return finish_inplace(c, in[0], y, out);
	return trace_out(c, out, y);
}

int64_t sh_prod(const int64_t *d, int n)
{
	int64_t p = 1;
	int i;

	for (i = 0; i < n; i++)
		p *= d[i];
	return p;
}

/* --- joining ------------------------------------------------------------ */

static enum ir_dtype promote_dtypes(enum ir_dtype a, enum ir_dtype b)
{
	struct gpu_tensor ta, tb;
	struct tval va, vb;

	if (a == IR_DTYPE_UNDEFINED)
		return b;
	memset(&ta, 0, sizeof(ta));
	memset(&tb, 0, sizeof(tb));
	memset(&va, 0, sizeof(va));
	memset(&vb, 0, sizeof(vb));
	ta.dtype = a;
	ta.rank = 1;
	tb.dtype = b;
	tb.rank = 1;
	va.kind = TV_TENSOR;
	va.u.t = &ta;
	vb.kind = TV_TENSOR;
	vb.u.t = &tb;
	return trace_promote(&va, &vb);
}

/* cat of k tensors along axis `dim` (not yet normalised), torch's rules:
 * 1-d empty tensors are skipped, dtypes promoted */
static struct gpu_tensor *sh_cat(struct trace_ctx *c, struct gpu_tensor **ts,
				 int k, int64_t dim)
{
	const struct gpu_tensor *ref = NULL;
	enum ir_dtype dt = IR_DTYPE_UNDEFINED;
	int64_t dims[GPU_MAX_DIMS], strides[GPU_MAX_DIMS], off = 0;
	struct gpu_tensor *y;
	int i, j, a;

	if (k == 0) {
		trace_error(c, "torch.cat(): expected a non-empty list of "
			    "Tensors");
		return NULL;
	}
	for (i = 0; i < k; i++) {
		dt = promote_dtypes(dt, ts[i]->dtype);
		if (!ref && !(ts[i]->rank == 1 && ts[i]->dims[0] == 0))
			ref = ts[i];
	}
	if (!ref) {
		/* all empty 1-d */
		int64_t z = 0;

		return trace_empty(c, dt, 1, &z);
	}
	if (ref->rank == 0) {
		trace_error(c, "zero-dimensional tensor cannot be "
			    "concatenated");
		return NULL;
	}
	if (trace_axis(c, dim, ref->rank, &a))
		return NULL;
	memcpy(dims, ref->dims, sizeof(dims));
	dims[a] = 0;
	for (i = 0; i < k; i++) {
		const struct gpu_tensor *t = ts[i];

		if (t->rank == 1 && t->dims[0] == 0)
			continue;
		if (t->rank != ref->rank) {
			trace_error(c, "Tensors must have same number of "
				    "dimensions: got %d and %d", ref->rank,
				    t->rank);
			return NULL;
		}
		for (j = 0; j < t->rank; j++)
			if (j != a && t->dims[j] != ref->dims[j]) {
				trace_error(c, "Sizes of tensors must match "
					    "except in dimension %d. Expected "
					    "size %lld but got size %lld for "
					    "tensor number %d in the list.", a,
					    (long long)ref->dims[j],
					    (long long)t->dims[j], i);
				return NULL;
			}
		dims[a] += t->dims[a];
	}
	y = trace_empty(c, dt, ref->rank, dims);
	if (!y)
		return NULL;
	gpu_contiguous_strides(ref->rank, dims, strides);
	for (i = 0; i < k; i++) {
		const struct gpu_tensor *t = ts[i];
		struct gpu_tensor *v;

		if (t->rank == 1 && t->dims[0] == 0)
			continue;
		v = trace_view(c, y, t->rank, t->dims, strides,
			    y->offset + off * strides[a]);
		if (!v || sh_copy_into(c, t, v)) {
			gpu_free(v);
			gpu_free(y);
			return NULL;
		}
		gpu_free(v);
		off += t->dims[a];
	}
	return y;
}

/* cat(tensors, dim=0), concat, concatenate */
static int op_cat(struct trace_ctx *c, const struct ir_node *n,
		  struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor **ts;
	int64_t d = 0;
	int k, rc;

	if (ARG(1) && ARG(1)->kind == TV_STR)
		return trace_error(c, "named dimensions are not supported");
	if (!sh_is_none(ARG(1)) && tv_get_int(c, ARG(1), &d))
		return -1;
	if (sh_get_tensor_list(c, ARG(0), &ts, &k))
		return -1;
	rc = trace_out(c, out, sh_cat(c, ts, k, d));
	free(ts);
	return rc;
}

/* stack(tensors, dim=0) */
static int op_stack(struct trace_ctx *c, const struct ir_node *n,
		    struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor **ts, **us;
	int64_t d = 0;
	int k, i, a, rc;

	if (!sh_is_none(ARG(1)) && tv_get_int(c, ARG(1), &d))
		return -1;
	if (sh_get_tensor_list(c, ARG(0), &ts, &k))
		return -1;
	if (k == 0) {
		free(ts);
		return trace_error(c, "stack expects a non-empty TensorList");
	}
	for (i = 1; i < k; i++)
		if (ts[i]->rank != ts[0]->rank ||
		    memcmp(ts[i]->dims, ts[0]->dims,
			   sizeof(int64_t) * ts[0]->rank)) {
			free(ts);
			return trace_error(c, "stack expects each tensor to be "
					   "equal size, but got tensors of "
					   "different shapes at entry 0 and "
					   "%d", i);
		}
	if (trace_axis(c, d, ts[0]->rank + 1, &a)) {
		free(ts);
		return -1;
	}
	us = calloc(k, sizeof(*us));
	if (!us) {
		free(ts);
		return trace_oom(c);
	}
	for (i = 0; i < k; i++) {
		us[i] = sh_unsqueeze(c, ts[i], a);
		if (!us[i]) {
			sh_free_all(us, i);
			free(us);
			free(ts);
			return -1;
		}
	}
	rc = trace_out(c, out, sh_cat(c, us, k, a));
	sh_free_all(us, k);
	free(us);
	free(ts);
	return rc;
}

/* hstack, vstack, dstack, column_stack */
static int op_hvstack(struct trace_ctx *c, const struct ir_node *n,
		      struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor **ts, **us;
	int k, i, rc, nd, dim;

	if (sh_get_tensor_list(c, ARG(0), &ts, &k))
		return -1;
	if (k == 0) {
		free(ts);
		return trace_error(c, "expects a non-empty TensorList");
	}
	nd = n->op == OP_aten_hstack ? 1 : n->op == OP_aten_vstack ? 2 :
	     n->op == OP_aten_dstack ? 3 : 0;
	us = calloc(k, sizeof(*us));
	if (!us) {
		free(ts);
		return trace_oom(c);
	}
	for (i = 0; i < k; i++) {
		if (nd == 0 && ts[i]->rank <= 1) {
			int64_t s[2] = { gpu_numel(ts[i]), 1 };

			us[i] = sh_reshape(c, ts[i], 2, s);
		} else {
			us[i] = sh_atleast(c, ts[i], nd ? nd : 1);
		}
		if (!us[i]) {
			sh_free_all(us, i);
			free(us);
			free(ts);
			return -1;
		}
	}
	dim = nd == 1 ? (us[0]->rank == 1 ? 0 : 1) : nd == 2 ? 0 :
	      nd == 3 ? 2 : 1;
	rc = trace_out(c, out, sh_cat(c, us, k, dim));
	sh_free_all(us, k);
	free(us);
	free(ts);
	return rc;
}

/* --- repetition --------------------------------------------------------- */

/* x repeated r[i] times along each dim (len(r) >= rank): torch's repeat */
static struct gpu_tensor *sh_repeat(struct trace_ctx *c,
				    const struct gpu_tensor *x, int k,
				    const int64_t *r)
{
	int64_t dims[GPU_MAX_DIMS], strides[GPU_MAX_DIMS];
	struct gpu_tensor *cur, *t, *u;
	int i, j, pad = k - x->rank;

	if (pad < 0) {
		trace_error(c, "Number of dimensions of repeat dims can not be "
			    "smaller than number of dimensions of tensor");
		return NULL;
	}
	if (k >= GPU_MAX_DIMS) {
		trace_error(c, "repeat to rank %d is not supported", k);
		return NULL;
	}
	for (i = 0; i < k; i++)
		if (r[i] < 0) {
			trace_error(c, "Trying to create tensor with negative "
				    "dimension %lld", (long long)r[i]);
			return NULL;
		}
	/* x with leading 1s, as a contiguous copy */
	for (i = 0; i < k; i++)
		dims[i] = i < pad ? 1 : x->dims[i - pad];
	for (i = 0; i < k; i++)
		strides[i] = i < pad ? 0 : x->strides[i - pad];
	t = trace_view(c, x, k, dims, strides, x->offset);
	if (!t)
		return NULL;
	cur = sh_copy(c, t);
	gpu_free(t);
	if (!cur)
		return NULL;
	for (i = 0; i < k; i++) {
		int64_t vd[GPU_MAX_DIMS], vs[GPU_MAX_DIMS];

		if (r[i] == 1)
			continue;
		/* [.., r, d_i, ..] with stride 0 on r, copied, merged */
		for (j = 0; j < k; j++) {
			int o = j < i ? j : j + 1;

			vd[o] = cur->dims[j];
			vs[o] = cur->strides[j];
		}
		vd[i] = r[i];
		vs[i] = 0;
		t = trace_view(c, cur, k + 1, vd, vs, cur->offset);
		gpu_free(cur);
		if (!t)
			return NULL;
		u = sh_copy(c, t);
		gpu_free(t);
		if (!u)
			return NULL;
		for (j = 0; j < k; j++)
			vd[j] = j < i ? u->dims[j] : j == i ? u->dims[i] *
				u->dims[i + 1] : u->dims[j + 1];
		cur = sh_reshape(c, u, k, vd);
		gpu_free(u);
		if (!cur)
			return NULL;
	}
	return cur;
}

/* repeat(self, repeats) */
static int op_repeat(struct trace_ctx *c, const struct ir_node *n,
		     struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x;
	int64_t r[GPU_MAX_DIMS];
	int k;

	if (tv_get_tensor(c, ARG(0), 0, &x) ||
	    tv_get_ints(c, ARG(1), r, GPU_MAX_DIMS, &k))
		return -1;
	return trace_out(c, out, sh_repeat(c, x, k, r));
}

/* tile(self, dims) */
static int op_tile(struct trace_ctx *c, const struct ir_node *n,
		   struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x;
	int64_t r[GPU_MAX_DIMS], rr[GPU_MAX_DIMS];
	int k, i, pad;

	if (tv_get_tensor(c, ARG(0), 0, &x) ||
	    tv_get_ints(c, ARG(1), r, GPU_MAX_DIMS, &k))
		return -1;
	pad = x->rank > k ? x->rank - k : 0;
	for (i = 0; i < pad + k; i++)
		rr[i] = i < pad ? 1 : r[i - pad];
	return trace_out(c, out, sh_repeat(c, x, pad + k, rr));
}

/* x repeated along axis a by the host counts reps[size] (or one count) */
static struct gpu_tensor *sh_repeat_interleave(struct trace_ctx *c,
					       const struct gpu_tensor *x,
					       int a, const int64_t *reps,
					       int64_t nreps)
{
	int64_t size = x->dims[a], total = 0, i, j, p = 0, *idx;
	struct gpu_tensor *it, *y;
	int64_t dims[GPU_MAX_DIMS];

	if (nreps != 1 && nreps != size) {
		trace_error(c, "repeats must have the same size as input along "
			    "dim");
		return NULL;
	}
	for (i = 0; i < size; i++) {
		int64_t r = reps[nreps == 1 ? 0 : i];

		if (r < 0) {
			trace_error(c, "repeats can not be negative");
			return NULL;
		}
		total += r;
	}
	idx = malloc(sizeof(*idx) * (total ? total : 1));
	if (!idx) {
		trace_oom(c);
		return NULL;
	}
	for (i = 0; i < size; i++)
		for (j = 0; j < reps[nreps == 1 ? 0 : i]; j++)
			idx[p++] = i;
	it = trace_from_host(c, IR_DTYPE_INT64, 1, &total, IR_DTYPE_INT64, idx);
	free(idx);
	if (!it)
		return NULL;
	memcpy(dims, x->dims, sizeof(dims));
	dims[a] = total;
	y = trace_empty(c, x->dtype, x->rank, dims);
	if (y && total && gpu_numel(y) && c->be->index_select(x, a, it, y)) {
		trace_gpu_error(c);
		gpu_free(y);
		y = NULL;
	}
	gpu_free(it);
	return y;
}

/* repeat_interleave(self, int | Tensor repeats, dim=None, output_size)
 * and repeat_interleave(Tensor repeats, output_size) */
static int op_repeat_interleave(struct trace_ctx *c, const struct ir_node *n,
				struct tval **in, int nin, struct tval **out,
				int nout)
{
	struct gpu_tensor *x, *flat = NULL, *y;
	int64_t r1, *reps = NULL, nreps, d, m1 = -1;
	int a, rc;

	if (tv_get_tensor(c, ARG(0), 0, &x))
		return -1;
	if (nin <= 2) {
		/* repeats only: arange(len).repeat_interleave(repeats) */
		int64_t len = gpu_numel(x), i, total = 0, p = 0, j, *idx;

		if (x->rank != 1 || sh_is_float_dtype(x->dtype))
			return trace_error(c, "repeat_interleave only accept "
					   "1D vector as repeat");
		reps = trace_to_host(c, x, IR_DTYPE_INT64);
		if (!reps)
			return -1;
		for (i = 0; i < len; i++) {
			if (reps[i] < 0) {
				free(reps);
				return trace_error(c, "repeats can not be "
						   "negative");
			}
			total += reps[i];
		}
		idx = malloc(sizeof(*idx) * (total ? total : 1));
		if (!idx) {
			free(reps);
			return trace_oom(c);
		}
		for (i = 0; i < len; i++)
			for (j = 0; j < reps[i]; j++)
				idx[p++] = i;
		free(reps);
		y = trace_from_host(c, IR_DTYPE_INT64, 1, &total,
				    IR_DTYPE_INT64, idx);
		free(idx);
		if (y && x->dtype != IR_DTYPE_INT64) {
			struct gpu_tensor *t = sh_copy_as(c, y, x->dtype);

			gpu_free(y);
			y = t;
		}
		return trace_out(c, out, y);
	}
	if (ARG(1) && ARG(1)->kind == TV_TENSOR) {
		if (ARG(1)->u.t->rank > 1)
			return trace_error(c, "repeat_interleave only accept "
					   "1D vector as repeat");
		reps = trace_to_host(c, ARG(1)->u.t, IR_DTYPE_INT64);
		if (!reps)
			return -1;
		nreps = gpu_numel(ARG(1)->u.t);
	} else {
		if (tv_get_int(c, ARG(1), &r1))
			return -1;
		reps = malloc(sizeof(*reps));
		if (!reps)
			return trace_oom(c);
		reps[0] = r1;
		nreps = 1;
	}
	if (sh_is_none(ARG(2))) {
		flat = sh_reshape(c, x, 1, &m1);
		if (!flat) {
			free(reps);
			return -1;
		}
		a = 0;
	} else {
		if (tv_get_int(c, ARG(2), &d) || trace_axis(c, d, x->rank, &a)) {
			free(reps);
			return -1;
		}
		if (x->rank == 0) {
			flat = sh_reshape(c, x, 1, &m1);
			if (!flat) {
				free(reps);
				return -1;
			}
		}
	}
	y = sh_repeat_interleave(c, flat ? flat : x, a, reps, nreps);
	free(reps);
	gpu_free(flat);
	rc = trace_out(c, out, y);
	return rc;
}

/* --- reordering ---------------------------------------------------------- */

/* x reversed along axis a (a copy) */
static struct gpu_tensor *sh_flip1(struct trace_ctx *c,
				   const struct gpu_tensor *x, int a)
{
	int64_t size = x->dims[a], i, *idx;
	struct gpu_tensor *it, *y;

	idx = malloc(sizeof(*idx) * (size ? size : 1));
	if (!idx) {
		trace_oom(c);
		return NULL;
	}
	for (i = 0; i < size; i++)
		idx[i] = size - 1 - i;
	it = trace_from_host(c, IR_DTYPE_INT64, 1, &size, IR_DTYPE_INT64, idx);
	free(idx);
	if (!it)
		return NULL;
	y = trace_empty(c, x->dtype, x->rank, x->dims);
	if (y && gpu_numel(y) && c->be->index_select(x, a, it, y)) {
		trace_gpu_error(c);
		gpu_free(y);
		y = NULL;
	}
	gpu_free(it);
	return y;
}

static struct gpu_tensor *sh_flip(struct trace_ctx *c,
				  const struct gpu_tensor *x, unsigned mask)
{
	struct gpu_tensor *cur = NULL, *t;
	int i;

	for (i = 0; i < x->rank; i++) {
		if (!(mask & (1u << i)))
			continue;
		t = sh_flip1(c, cur ? cur : x, i);
		gpu_free(cur);
		if (!t)
			return NULL;
		cur = t;
	}
	return cur ? cur : sh_copy(c, x);
}

/* flip(self, dims), fliplr, flipud */
static int op_flip(struct trace_ctx *c, const struct ir_node *n,
		   struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x;
	unsigned mask;

	if (tv_get_tensor(c, ARG(0), 0, &x))
		return -1;
	if (n->op == OP_aten_fliplr ||
	    n->op == OP_aten_flipud) {
		int lr = n->op == OP_aten_fliplr;

		if (x->rank < (lr ? 2 : 1))
			return trace_error(c, "Input must be >= %d-d.",
					   lr ? 2 : 1);
		return trace_out(c, out, sh_flip(c, x, lr ? 2u : 1u));
	}
	if (sh_dims_mask(c, ARG(1), x->rank, 0, &mask))
		return -1;
	if (x->rank == 0)
		return trace_out(c, out, sh_copy(c, x));
	return trace_out(c, out, sh_flip(c, x, mask));
}

/* x rolled by s along axis a (a copy) */
static struct gpu_tensor *sh_roll1(struct trace_ctx *c,
				   const struct gpu_tensor *x, int a,
				   int64_t s)
{
	int64_t size = x->dims[a];
	struct gpu_tensor *p[2], *y;

	if (size == 0)
		return sh_copy(c, x);
	s %= size;
	if (s < 0)
		s += size;
	if (s == 0)
		return sh_copy(c, x);
	p[0] = sh_narrow(c, x, a, size - s, s, 1);
	p[1] = sh_narrow(c, x, a, 0, size - s, 1);
	y = p[0] && p[1] ? sh_cat(c, p, 2, a) : NULL;
	gpu_free(p[0]);
	gpu_free(p[1]);
	return y;
}

/* roll(self, shifts, dims=[]) */
static int op_roll(struct trace_ctx *c, const struct ir_node *n,
		   struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x, *cur = NULL, *t;
	int64_t s[GPU_MAX_DIMS], d[GPU_MAX_DIMS], m1 = -1;
	int ns, nd = 0, i, a;

	if (tv_get_tensor(c, ARG(0), 0, &x) ||
	    tv_get_ints(c, ARG(1), s, GPU_MAX_DIMS, &ns))
		return -1;
	if (!sh_is_list(ARG(1)))
		ns = 1;
	if (!sh_is_none(ARG(2))) {
		if (tv_get_ints(c, ARG(2), d, GPU_MAX_DIMS, &nd))
			return -1;
		if (!sh_is_list(ARG(2)))
			nd = 1;
	}
	if (nd == 0) {
		struct gpu_tensor *f, *r;

		if (ns != 1)
			return trace_error(c, "`shifts` required");
		f = sh_reshape(c, x, 1, &m1);
		if (!f)
			return -1;
		r = sh_roll1(c, f, 0, s[0]);
		gpu_free(f);
		if (!r)
			return -1;
		t = sh_reshape(c, r, x->rank, x->dims);
		gpu_free(r);
		return trace_out(c, out, t);
	}
	if (ns != nd)
		return trace_error(c, "shifts and dimensions must align. "
				   "shifts: %d, dims:%d", ns, nd);
	for (i = 0; i < nd; i++) {
		if (trace_axis(c, d[i], x->rank, &a)) {
			gpu_free(cur);
			return -1;
		}
		t = sh_roll1(c, cur ? cur : x, a, s[i]);
		gpu_free(cur);
		if (!t)
			return -1;
		cur = t;
	}
	return trace_out(c, out, cur);
}

/* rot90(self, k=1, dims=[0,1]) */
static int op_rot90(struct trace_ctx *c, const struct ir_node *n,
		    struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x, *f, *y;
	int64_t k = 1, d[GPU_MAX_DIMS] = { 0, 1 };
	int nd = 2, a, b;

	if (tv_get_tensor(c, ARG(0), 0, &x))
		return -1;
	if (!sh_is_none(ARG(1)) && tv_get_int(c, ARG(1), &k))
		return -1;
	if (!sh_is_none(ARG(2)) && tv_get_ints(c, ARG(2), d, GPU_MAX_DIMS, &nd))
		return -1;
	if (nd != 2)
		return trace_error(c, "expected total rotation dims == 2, but "
				   "got dims = %d", nd);
	if (x->rank < 2)
		return trace_error(c, "expected total dims >= 2, but got "
				   "total dims = %d", x->rank);
	if (trace_axis(c, d[0], x->rank, &a) || trace_axis(c, d[1], x->rank, &b))
		return -1;
	if (a == b)
		return trace_error(c, "expected rotation dims to be different");
	k = ((k % 4) + 4) % 4;
	if (k == 0)
		return trace_out(c, out, sh_copy(c, x));
	if (k == 2)
		return trace_out(c, out, sh_flip(c, x, (1u << a) | (1u << b)));
	f = sh_flip(c, x, 1u << (k == 1 ? b : a));
	if (!f)
		return -1;
	y = sh_transpose(c, f, a, b);
	gpu_free(f);
	return trace_out(c, out, y);
}

/* --- tril / triu --------------------------------------------------------- */

/* tril(self, diagonal=0), triu, tril_, triu_ */
static int op_tri(struct trace_ctx *c, const struct ir_node *n,
		  struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x, *m, *me = NULL, *z = NULL, *ze = NULL, *y = NULL;
	int64_t k = 0, md[2], i, j;
	int lower = n->op == OP_aten_tril || n->op == OP_aten_tril_;
	uint8_t *mask;
	struct tval zero;

	if (tv_get_tensor(c, ARG(0), 0, &x))
		return -1;
	if (!sh_is_none(ARG(1)) && tv_get_int(c, ARG(1), &k))
		return -1;
	if (x->rank < 2)
		return trace_error(c, "%s: input tensor must have at least 2 "
				   "dimensions", lower ? "tril" : "triu");
	md[0] = x->dims[x->rank - 2];
	md[1] = x->dims[x->rank - 1];
	mask = malloc(md[0] * md[1] > 0 ? md[0] * md[1] : 1);
	if (!mask)
		return trace_oom(c);
	for (i = 0; i < md[0]; i++)
		for (j = 0; j < md[1]; j++)
			mask[i * md[1] + j] = lower ? j - i <= k : j - i >= k;
	m = trace_from_host(c, IR_DTYPE_BOOL, 2, md, IR_DTYPE_BOOL, mask);
	free(mask);
	if (!m)
		return -1;
	memset(&zero, 0, sizeof(zero));
	zero.kind = TV_INT;
	z = sh_scalar(c, &zero, x->dtype);
	if (z) {
		me = sh_expand(c, m, x->rank, x->dims);
		ze = sh_expand(c, z, x->rank, x->dims);
	}
	if (me && ze)
		y = trace_empty(c, x->dtype, x->rank, x->dims);
	if (y && gpu_numel(y) && c->be->where(me, x, ze, y)) {
		trace_gpu_error(c);
		gpu_free(y);
		y = NULL;
	}
	gpu_free(m);
	gpu_free(me);
	gpu_free(z);
	gpu_free(ze);
	return sh_finish(c, n, in, y, out);
}

/* tril_indices / triu_indices(row, col, offset=0, dtype=long, ...) */
static int op_tri_indices(struct trace_ctx *c, const struct ir_node *n,
			  struct tval **in, int nin, struct tval **out,
			  int nout)
{
	int64_t row, col, off = 0, i, j, cnt = 0, dims[2], *buf;
	int lower = n->op == OP_aten_tril_indices;
	enum ir_dtype dt;
	struct gpu_tensor *y;

	if (tv_get_int(c, ARG(0), &row) || tv_get_int(c, ARG(1), &col))
		return -1;
	if (!sh_is_none(ARG(2)) && tv_get_int(c, ARG(2), &off))
		return -1;
	if (tv_get_dtype(c, ARG(3), IR_DTYPE_INT64, &dt))
		return -1;
	if (row < 0 || col < 0)
		return trace_error(c, "row and col must be non-negative");
	for (i = 0; i < row; i++)
		for (j = 0; j < col; j++)
			cnt += lower ? j - i <= off : j - i >= off;
	buf = malloc(sizeof(*buf) * (cnt > 0 ? 2 * cnt : 1));
	if (!buf)
		return trace_oom(c);
	dims[0] = 2;
	dims[1] = cnt;
	cnt = 0;
	for (i = 0; i < row; i++)
		for (j = 0; j < col; j++)
			if (lower ? j - i <= off : j - i >= off) {
				buf[cnt] = i;
				buf[dims[1] + cnt] = j;
				cnt++;
			}
	y = trace_from_host(c, IR_DTYPE_INT64, 2, dims, IR_DTYPE_INT64, buf);
	free(buf);
	if (y && dt != IR_DTYPE_INT64) {
		struct gpu_tensor *t = sh_copy_as(c, y, dt);

		gpu_free(y);
		y = t;
	}
	return trace_out(c, out, y);
}

/* --- padding ------------------------------------------------------------ */

/* torch's pad list (last dim first) as per-dim pads; checks the count */
static int pad_list(struct trace_ctx *c, const struct gpu_tensor *x,
		    const struct tval *v, int64_t *pads, int *npairs)
{
	int64_t p[2 * GPU_MAX_DIMS];
	int k, i;

	if (tv_get_ints(c, v, p, 2 * GPU_MAX_DIMS, &k))
		return -1;
	if (k % 2)
		return trace_error(c, "Length of pad must be even but instead "
				   "it equals %d", k);
	if (k / 2 > x->rank)
		return trace_error(c, "Length of pad should be no more than "
				   "twice the number of dimensions of the "
				   "input. Pad length is %d while the input "
				   "has %d dimensions.", k, x->rank);
	memset(pads, 0, sizeof(int64_t) * 2 * GPU_MAX_DIMS);
	for (i = 0; i < k / 2; i++) {
		int d = x->rank - 1 - i;

		pads[2 * d] = p[2 * i];
		pads[2 * d + 1] = p[2 * i + 1];
	}
	*npairs = k / 2;
	return 0;
}

struct gpu_tensor *sh_pad(struct trace_ctx *c,
			  const struct gpu_tensor *x,
			  const int64_t *pads, enum gpu_pad_mode mode,
			  double value)
{
	int64_t dims[GPU_MAX_DIMS];
	struct gpu_tensor *y;
	int i;

	for (i = 0; i < x->rank; i++) {
		dims[i] = x->dims[i] + pads[2 * i] + pads[2 * i + 1];
		if (dims[i] < 0) {
			trace_error(c, "The input size %lld, plus negative "
				    "padding %lld and %lld resulted in a "
				    "negative output size, which is invalid. "
				    "Check dimension %d of your input.",
				    (long long)x->dims[i],
				    (long long)pads[2 * i],
				    (long long)pads[2 * i + 1], i);
			return NULL;
		}
		if (mode == GPU_PAD_REFLECT &&
		    (pads[2 * i] >= x->dims[i] ||
		     pads[2 * i + 1] >= x->dims[i]) &&
		    (pads[2 * i] || pads[2 * i + 1])) {
			trace_error(c, "Argument #4: Padding size should be "
				    "less than the corresponding input "
				    "dimension, but got: padding (%lld, %lld) "
				    "at dimension %d of input %lld",
				    (long long)pads[2 * i],
				    (long long)pads[2 * i + 1], i,
				    (long long)x->dims[i]);
			return NULL;
		}
		if (mode == GPU_PAD_CIRCULAR &&
		    (pads[2 * i] > x->dims[i] || pads[2 * i + 1] >
		     x->dims[i])) {
			trace_error(c, "Padding value causes wrapping around "
				    "more than once.");
			return NULL;
		}
		if (mode == GPU_PAD_REPLICATE && x->dims[i] == 0 &&
		    (pads[2 * i] || pads[2 * i + 1])) {
			trace_error(c, "replication padding of an empty "
				    "dimension");
			return NULL;
		}
	}
	y = trace_empty(c, x->dtype, x->rank, dims);
	if (!y)
		return NULL;
	if (gpu_numel(y) && c->be->pad(x, pads, mode, value, y)) {
		trace_gpu_error(c);
		gpu_free(y);
		return NULL;
	}
	return y;
}

/* constant_pad_nd(self, pad, value=0) */
static int op_constant_pad_nd(struct trace_ctx *c, const struct ir_node *n,
			      struct tval **in, int nin, struct tval **out,
			      int nout)
{
	struct gpu_tensor *x;
	int64_t pads[2 * GPU_MAX_DIMS];
	double v = 0;
	int np;

	if (tv_get_tensor(c, ARG(0), 0, &x) ||
	    pad_list(c, x, ARG(1), pads, &np))
		return -1;
	if (!sh_is_none(ARG(2)) && tv_get_float(c, ARG(2), &v))
		return -1;
	return trace_out(c, out, sh_pad(c, x, pads, GPU_PAD_CONSTANT, v));
}

/* pad(self, pad, mode="constant", value=None) */
static int op_pad(struct trace_ctx *c, const struct ir_node *n,
		  struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x;
	int64_t pads[2 * GPU_MAX_DIMS];
	enum gpu_pad_mode mode = GPU_PAD_CONSTANT;
	const char *m = "constant";
	double v = 0;
	int np;

	if (tv_get_tensor(c, ARG(0), 0, &x) ||
	    pad_list(c, x, ARG(1), pads, &np))
		return -1;
	if (!sh_is_none(ARG(2))) {
		if (ARG(2)->kind != TV_STR)
			return trace_error(c, "pad mode must be a string");
		m = ARG(2)->u.s;
	}
	if (!strcmp(m, "constant")) {
		if (!sh_is_none(ARG(3)) && tv_get_float(c, ARG(3), &v))
			return -1;
		return trace_out(c, out, sh_pad(c, x, pads, mode, v));
	}
	if (!sh_is_none(ARG(3)) && !(ARG(3)->kind == TV_FLOAT &&
				  ARG(3)->u.f == 0))
		return trace_error(c, "Padding mode \"%s\" doesn't take in "
				   "value argument", m);
	if (!strcmp(m, "reflect"))
		mode = GPU_PAD_REFLECT;
	else if (!strcmp(m, "replicate"))
		mode = GPU_PAD_REPLICATE;
	else if (!strcmp(m, "circular"))
		mode = GPU_PAD_CIRCULAR;
	else
		return trace_error(c, "Unrecognised padding mode %s", m);
	if (np > x->rank - 1 || np > 3 || x->rank - np > 2 ||
	    (x->rank - np < 1))
		return trace_error(c, "Only 2D, 3D, 4D, 5D padding with "
				   "non-constant padding are supported for "
				   "now");
	return trace_out(c, out, sh_pad(c, x, pads, mode, 0));
}

/* reflection_padNd / replication_padNd(self, padding); _pad_circular */
static int op_pad_mode(struct trace_ctx *c, const struct ir_node *n,
		       struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x;
	int64_t pads[2 * GPU_MAX_DIMS];
	enum gpu_pad_mode mode;
	int np, nd = 0;

	if (n->op == OP_aten_reflection_pad1d ||
	    n->op == OP_aten_reflection_pad2d ||
	    n->op == OP_aten_reflection_pad3d)
		mode = GPU_PAD_REFLECT;
	else if (n->op == OP_aten_replication_pad1d ||
		 n->op == OP_aten_replication_pad2d ||
		 n->op == OP_aten_replication_pad3d)
		mode = GPU_PAD_REPLICATE;
	else
		mode = GPU_PAD_CIRCULAR;
	if (mode != GPU_PAD_CIRCULAR)
		nd = trace_op_dims(n->op);
	if (tv_get_tensor(c, ARG(0), 0, &x) ||
	    pad_list(c, x, ARG(1), pads, &np))
		return -1;
	if (nd && (np != nd || (x->rank != nd + 1 && x->rank != nd + 2)))
		return trace_error(c, "expected %dD or %dD input and %d pads",
				   nd + 1, nd + 2, 2 * nd);
	return trace_out(c, out, sh_pad(c, x, pads, mode, 0));
}

/* --- cross, outer --------------------------------------------------------- */

/* y = a op b for two tensors broadcast to (rank, dims), in dtype dt */
struct gpu_tensor *sh_binary(struct trace_ctx *c, enum gpu_binary op,
			     const struct gpu_tensor *a,
			     const struct gpu_tensor *b,
			     enum ir_dtype dt, int rank,
			     const int64_t *dims)
{
	struct gpu_tensor *ca, *cb, *ea = NULL, *eb = NULL, *y = NULL;

	ca = trace_cast(c, (struct gpu_tensor *)a, dt);
	cb = trace_cast(c, (struct gpu_tensor *)b, dt);
	if (ca && cb) {
		ea = sh_expand(c, ca, rank, dims);
		eb = sh_expand(c, cb, rank, dims);
	}
	if (ea && eb)
		y = trace_empty(c, dt, rank, dims);
	if (y && gpu_numel(y) && c->be->binary(op, ea, eb, y)) {
		trace_gpu_error(c);
		gpu_free(y);
		y = NULL;
	}
	gpu_free(ca);
	gpu_free(cb);
	gpu_free(ea);
	gpu_free(eb);
	return y;
}

/* linalg_cross(self, other, dim=-1), cross(self, other, dim=None) */
static int op_cross(struct trace_ctx *c, const struct ir_node *n,
		    struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *a, *b, *y = NULL;
	int64_t dims[GPU_MAX_DIMS], d = -1;
	enum ir_dtype dt;
	int rank, ax = -1, i;

	if (tv_get_tensor(c, ARG(0), 0, &a) || tv_get_tensor(c, ARG(1), 0, &b))
		return -1;
	if (trace_broadcast_dims(c, a, b, &rank, dims))
		return -1;
	if (sh_is_none(ARG(2))) {
		for (i = 0; i < rank && ax < 0; i++)
			if (dims[i] == 3)
				ax = i;
		if (ax < 0)
			return trace_error(c, "no dimension of size 3 in input");
	} else {
		if (tv_get_int(c, ARG(2), &d) || trace_axis(c, d, rank, &ax))
			return -1;
	}
	if (a->rank != b->rank)
		return trace_error(c, "linalg.cross: inputs must have the same "
				   "number of dimensions.");
	if (rank == 0 || dims[ax] != 3 || a->dims[ax] != 3 ||
	    b->dims[ax] != 3)
		return trace_error(c, "linalg.cross: inputs dimension %d must "
				   "have length 3", ax);
	dt = promote_dtypes(a->dtype, b->dtype);
	y = trace_empty(c, dt, rank, dims);
	if (!y)
		return -1;
	for (i = 0; i < 3; i++) {
		struct gpu_tensor *a1 = sh_select(c, a, ax, (i + 1) % 3),
				  *b2 = sh_select(c, b, ax, (i + 2) % 3),
				  *a2 = sh_select(c, a, ax, (i + 2) % 3),
				  *b1 = sh_select(c, b, ax, (i + 1) % 3),
				  *yi = sh_select(c, y, ax, i), *p = NULL,
				  *q = NULL, *r = NULL;
		int64_t od[GPU_MAX_DIMS];
		int k, j, bad;

		for (j = 0, k = 0; j < rank; j++)
			if (j != ax)
				od[k++] = dims[j];
		bad = !a1 || !b2 || !a2 || !b1 || !yi;
		if (!bad)
			p = sh_binary(c, GPU_MUL, a1, b2, dt, k, od);
		if (p)
			q = sh_binary(c, GPU_MUL, a2, b1, dt, k, od);
		if (q)
			r = sh_binary(c, GPU_SUB, p, q, dt, k, od);
		bad = bad || !r || sh_copy_into(c, r, yi);
		gpu_free(a1);
		gpu_free(b2);
		gpu_free(a2);
		gpu_free(b1);
		gpu_free(yi);
		gpu_free(p);
		gpu_free(q);
		gpu_free(r);
		if (bad) {
			gpu_free(y);
			return -1;
		}
	}
	return trace_out(c, out, y);
}

/* outer(self, vec2), ger */
static int op_outer(struct trace_ctx *c, const struct ir_node *n,
		    struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *a, *b, *ua, *y;
	int64_t dims[2];
	enum ir_dtype dt;

	if (tv_get_tensor(c, ARG(0), 0, &a) || tv_get_tensor(c, ARG(1), 0, &b))
		return -1;
	if (a->rank != 1 || b->rank != 1)
		return trace_error(c, "outer: expected 1-D tensors, got %dD "
				   "and %dD", a->rank, b->rank);
	dims[0] = a->dims[0];
	dims[1] = b->dims[0];
	dt = promote_dtypes(a->dtype, b->dtype);
	ua = sh_unsqueeze(c, a, 1);
	if (!ua)
		return -1;
	y = sh_binary(c, dt == IR_DTYPE_BOOL ? GPU_LOGICAL_AND : GPU_MUL, ua,
		      b, dt, 2, dims);
	gpu_free(ua);
	return trace_out(c, out, y);
}

/* --- the table ------------------------------------------------------------ */

const struct trace_op trace_ops_shape[] = {
	{ OP_aten_cat, op_cat, 0 },
	{ OP_aten_concat, op_cat, 0 },
	{ OP_aten_concatenate, op_cat, 0 },
	{ OP_aten_stack, op_stack, 0 },
	{ OP_aten_hstack, op_hvstack, 0 },
	{ OP_aten_vstack, op_hvstack, 0 },
	{ OP_aten_dstack, op_hvstack, 0 },
	{ OP_aten_column_stack, op_hvstack, 0 },
	{ OP_aten_repeat, op_repeat, 0 },
	{ OP_aten_tile, op_tile, 0 },
	{ OP_aten_repeat_interleave, op_repeat_interleave, 0 },
	{ OP_aten_flip, op_flip, 0 },
	{ OP_aten_fliplr, op_flip, 0 },
	{ OP_aten_flipud, op_flip, 0 },
	{ OP_aten_roll, op_roll, 0 },
	{ OP_aten_rot90, op_rot90, 0 },
	{ OP_aten_tril, op_tri, 0 },
	{ OP_aten_tril_, op_tri, 0 },
	{ OP_aten_triu, op_tri, 0 },
	{ OP_aten_triu_, op_tri, 0 },
	{ OP_aten_tril_indices, op_tri_indices, 0 },
	{ OP_aten_triu_indices, op_tri_indices, 0 },
	{ OP_aten_constant_pad_nd, op_constant_pad_nd, 0 },
	{ OP_aten_pad, op_pad, 0 },
	{ OP_aten_reflection_pad1d, op_pad_mode, 0 },
	{ OP_aten_reflection_pad2d, op_pad_mode, 0 },
	{ OP_aten_reflection_pad3d, op_pad_mode, 0 },
	{ OP_aten_replication_pad1d, op_pad_mode, 0 },
	{ OP_aten_replication_pad2d, op_pad_mode, 0 },
	{ OP_aten_replication_pad3d, op_pad_mode, 0 },
	{ OP_aten__pad_circular, op_pad_mode, 0 },
	{ OP_aten_cross, op_cross, 0 },
	{ OP_aten_linalg_cross, op_cross, 0 },
	{ OP_aten_outer, op_outer, 0 },
	{ OP_aten_ger, op_outer, 0 },
	{ OP_NONE, NULL, 0 },
};

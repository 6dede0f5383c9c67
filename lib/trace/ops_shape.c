/*
 * ops_shape.c - aten op implementations for `trace` (see trace_int.h):
 * shapes and views (view, reshape, permute, squeeze, expand, select,
 * slice, split, diagonal, unfold, as_strided), joining (cat, stack),
 * repetition, indexing (index, index_put, gather, scatter, masked_select,
 * nonzero), reordering (flip, roll, sort, topk, unique) and padding.
 *
 * The ops torch implements as views return gpu_view()s sharing storage,
 * so that in-place writes through them behave as in torch; in-place ops
 * compute out of place and copy the result into the first input's
 * storage (which may itself be a view).  Data-dependent shapes (nonzero,
 * masks, unique) are computed on the host from a download.
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

int sh_is_inplace(const struct ir_node *n)
{
	return (aten_op_flags(n->op) & ATEN_OP_INPLACE) != 0;
}

/* out[0] = y for the functional form, y copied into in[0] for the
 * in-place form (kind ending in '_') */
int sh_finish(struct trace_ctx *c, const struct ir_node *n,
	      struct tval **in, struct gpu_tensor *y, struct tval **out)
{
	if (!y)
		return -1;
	if (sh_is_inplace(n))
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

/* --- reshaping ---------------------------------------------------------- */

/* resolves one -1 in shape against numel (torch's infer_size) */
static int infer_size(struct trace_ctx *c, int64_t numel, int64_t *shape,
		      int n)
{
	int64_t p = 1;
	int i, neg = -1;

	for (i = 0; i < n; i++) {
		if (shape[i] == -1) {
			if (neg >= 0)
				return trace_error(c, "only one dimension can "
						   "be inferred");
			neg = i;
		} else if (shape[i] < 0) {
			return trace_error(c, "invalid shape dimension %lld",
					   (long long)shape[i]);
		} else {
			p *= shape[i];
		}
	}
	if (neg >= 0) {
		if (p == 0 || numel % p)
			return trace_error(c, "shape is invalid for input of "
					   "size %lld", (long long)numel);
		shape[neg] = numel / p;
	} else if (p != numel) {
		return trace_error(c, "shape is invalid for input of size %lld",
				   (long long)numel);
	}
	return 0;
}

/* torch's computeStride: strides for viewing (rank, dims, strides) as
 * (nrank, ndims) without a copy; -1 when impossible */
static int compute_stride(int rank, const int64_t *dims,
			  const int64_t *strides, int nrank,
			  const int64_t *ndims, int64_t *nstrides)
{
	int64_t numel = sh_prod(dims, rank), chunk, tnumel = 1, vnumel = 1;
	int td, vd = nrank - 1;

	if (rank == 0 || numel == 0) {
		gpu_contiguous_strides(nrank, ndims, nstrides);
		return 0;
	}
	chunk = strides[rank - 1];
	for (td = rank - 1; td >= 0; td--) {
		tnumel *= dims[td];
		if (td == 0 || (dims[td - 1] != 1 &&
				strides[td - 1] != tnumel * chunk)) {
			while (vd >= 0 && (vnumel < tnumel || ndims[vd] == 1)) {
				nstrides[vd] = vnumel * chunk;
				vnumel *= ndims[vd];
				vd--;
			}
			if (vnumel != tnumel)
				return -1;
			if (td > 0) {
				chunk = strides[td - 1];
				tnumel = 1;
				vnumel = 1;
			}
		}
	}
	return vd == -1 ? 0 : -1;
}

/* x as shape (n, shape) with any -1 resolved: a view when the strides
 * allow, else a contiguous copy viewed (reshape's rule; view uses it too,
 * since our strides may differ from torch's where it copies) */
struct gpu_tensor *sh_reshape(struct trace_ctx *c,
			      const struct gpu_tensor *x, int n,
			      const int64_t *shape_in)
{
	int64_t shape[GPU_MAX_DIMS], strides[GPU_MAX_DIMS];
	struct gpu_tensor *t, *y;

	if (n > GPU_MAX_DIMS) {
		trace_error(c, "tensors of rank %d are not supported", n);
		return NULL;
	}
	memcpy(shape, shape_in, sizeof(*shape) * n);
	if (infer_size(c, gpu_numel(x), shape, n))
		return NULL;
	if (compute_stride(x->rank, x->dims, x->strides, n, shape,
			   strides) == 0)
		return trace_view(c, x, n, shape, strides, x->offset);
	t = sh_copy(c, x);
	if (!t)
		return NULL;
	gpu_contiguous_strides(n, shape, strides);
	y = trace_view(c, t, n, shape, strides, t->offset);
	gpu_free(t);
	return y;
}

static int get_shape(struct trace_ctx *c, const struct tval *v,
		     int64_t *shape, int *n)
{
	return tv_get_ints(c, v, shape, GPU_MAX_DIMS, n);
}

/* view(self, int[] size) / view(self, ScalarType dtype); reshape;
 * _unsafe_view */
static int op_view(struct trace_ctx *c, const struct ir_node *n,
		   struct tval **in, int nin, struct tval **out, int nout)
{
	int64_t shape[GPU_MAX_DIMS];
	struct gpu_tensor *x, *y;
	int k;

	if (tv_get_tensor(c, ARG(0), 0, &x))
		return -1;
	if (ARG(1) && (ARG(1)->kind == TV_DTYPE ||
		       (ARG(1)->kind == TV_INT && n->op == OP_aten_view))) {
		enum ir_dtype dt;

		if (tv_get_dtype(c, ARG(1), x->dtype, &dt))
			return -1;
		if (ir_dtype_size(dt) != ir_dtype_size(x->dtype))
			return trace_error(c, "view as a dtype of another "
					   "element size is not supported");
		y = trace_alias(c, x);
		if (y)
			y->dtype = dt;
		return trace_out(c, out, y);
	}
	if (get_shape(c, ARG(1), shape, &k))
		return -1;
	return trace_out(c, out, sh_reshape(c, x, k, shape));
}

/* view_as(self, other), reshape_as(self, other) */
static int op_view_as(struct trace_ctx *c, const struct ir_node *n,
		      struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x, *o;

	if (tv_get_tensor(c, ARG(0), 0, &x) || tv_get_tensor(c, ARG(1), 0, &o))
		return -1;
	return trace_out(c, out, sh_reshape(c, x, o->rank, o->dims));
}

/* _reshape_from_tensor(self, Tensor shape) */
static int op_reshape_from_tensor(struct trace_ctx *c,
				  const struct ir_node *n, struct tval **in,
				  int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x, *s;
	int64_t *shape;
	int k, rc;

	if (tv_get_tensor(c, ARG(0), 0, &x) || tv_get_tensor(c, ARG(1), 0, &s))
		return -1;
	k = (int)gpu_numel(s);
	if (s->rank != 1 || k > GPU_MAX_DIMS)
		return trace_error(c, "shape must be a 1-d tensor of at most "
				   "%d entries", GPU_MAX_DIMS);
	shape = trace_to_host(c, s, IR_DTYPE_INT64);
	if (!shape)
		return -1;
	rc = trace_out(c, out, sh_reshape(c, x, k, shape));
	free(shape);
	return rc;
}

/* _shape_as_tensor(self) */
static int op_shape_as_tensor(struct trace_ctx *c, const struct ir_node *n,
			      struct tval **in, int nin, struct tval **out,
			      int nout)
{
	struct gpu_tensor *x;
	int64_t d = 0;

	if (tv_get_tensor(c, ARG(0), 0, &x))
		return -1;
	d = x->rank;
	return trace_out(c, out, trace_from_host(c, IR_DTYPE_INT64, 1, &d,
						  IR_DTYPE_INT64, x->dims));
}

/* flatten(self, start_dim=0, end_dim=-1) */
static int op_flatten(struct trace_ctx *c, const struct ir_node *n,
		      struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x;
	int64_t s = 0, e = -1, shape[GPU_MAX_DIMS];
	int a, b, i, k = 0;

	if (tv_get_tensor(c, ARG(0), 0, &x))
		return -1;
	if (nin > 1 && tv_get_int(c, ARG(1), &s))
		return -1;
	if (nin > 2 && tv_get_int(c, ARG(2), &e))
		return -1;
	if (trace_axis(c, s, x->rank, &a) || trace_axis(c, e, x->rank, &b))
		return -1;
	if (a > b)
		return trace_error(c, "flatten() has invalid args: start_dim "
				   "cannot come after end_dim");
	if (x->rank == 0) {
		shape[0] = 1;
		return trace_out(c, out, sh_reshape(c, x, 1, shape));
	}
	if (a == b)
		return trace_out(c, out, trace_alias(c, x));
	for (i = 0; i < a; i++)
		shape[k++] = x->dims[i];
	shape[k++] = sh_prod(x->dims + a, b - a + 1);
	for (i = b + 1; i < x->rank; i++)
		shape[k++] = x->dims[i];
	return trace_out(c, out, sh_reshape(c, x, k, shape));
}

/* unflatten(self, dim, sizes) */
static int op_unflatten(struct trace_ctx *c, const struct ir_node *n,
			struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x;
	int64_t d, sizes[GPU_MAX_DIMS], shape[GPU_MAX_DIMS];
	int a, i, k = 0, ns;

	if (tv_get_tensor(c, ARG(0), 0, &x) || tv_get_int(c, ARG(1), &d) ||
	    tv_get_ints(c, ARG(2), sizes, GPU_MAX_DIMS, &ns))
		return -1;
	if (trace_axis(c, d, x->rank, &a))
		return -1;
	if (x->rank - 1 + ns > GPU_MAX_DIMS)
		return trace_error(c, "result of rank %d is not supported",
				   x->rank - 1 + ns);
	if (infer_size(c, x->rank ? x->dims[a] : 1, sizes, ns))
		return -1;
	for (i = 0; i < a; i++)
		shape[k++] = x->dims[i];
	for (i = 0; i < ns; i++)
		shape[k++] = sizes[i];
	for (i = a + 1; i < x->rank; i++)
		shape[k++] = x->dims[i];
	return trace_out(c, out, sh_reshape(c, x, k, shape));
}

/* ravel(self) */
static int op_ravel(struct trace_ctx *c, const struct ir_node *n,
		    struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x;
	int64_t m1 = -1;

	if (tv_get_tensor(c, ARG(0), 0, &x))
		return -1;
	return trace_out(c, out, sh_reshape(c, x, 1, &m1));
}

/* --- permutations ------------------------------------------------------- */

struct gpu_tensor *sh_permute(struct trace_ctx *c,
			      const struct gpu_tensor *x,
			      const int *perm)
{
	int64_t dims[GPU_MAX_DIMS], strides[GPU_MAX_DIMS];
	int i;

	for (i = 0; i < x->rank; i++) {
		dims[i] = x->dims[perm[i]];
		strides[i] = x->strides[perm[i]];
	}
	return trace_view(c, x, x->rank, dims, strides, x->offset);
}

struct gpu_tensor *sh_transpose(struct trace_ctx *c,
				const struct gpu_tensor *x, int a,
				int b)
{
	int perm[GPU_MAX_DIMS], i;

	for (i = 0; i < x->rank; i++)
		perm[i] = i;
	if (x->rank) {
		perm[a] = b;
		perm[b] = a;
	}
	return sh_permute(c, x, perm);
}

/* replaces the geometry of the tensor value v by that of y (in-place view
 * ops: squeeze_, unsqueeze_, t_, transpose_); consumes y */
static int restride(struct trace_ctx *c, struct tval *v, struct gpu_tensor *y,
		    struct tval **out)
{
	struct gpu_tensor *t = v->u.t;

	if (!y)
		return -1;
	t->rank = y->rank;
	memcpy(t->dims, y->dims, sizeof(t->dims));
	memcpy(t->strides, y->strides, sizeof(t->strides));
	t->offset = y->offset;
	gpu_free(y);
	*out = tv_ref(v);
	return 0;
}

static int finish_view(struct trace_ctx *c, const struct ir_node *n,
		       struct tval **in, struct gpu_tensor *y,
		       struct tval **out)
{
	if (sh_is_inplace(n))
		return restride(c, in[0], y, out);
	return trace_out(c, out, y);
}

/* permute(self, dims) */
static int op_permute(struct trace_ctx *c, const struct ir_node *n,
		      struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x;
	int64_t d[GPU_MAX_DIMS];
	int perm[GPU_MAX_DIMS], seen[GPU_MAX_DIMS] = { 0 }, k, i;

	if (tv_get_tensor(c, ARG(0), 0, &x) ||
	    tv_get_ints(c, ARG(1), d, GPU_MAX_DIMS, &k))
		return -1;
	if (k != x->rank)
		return trace_error(c, "number of dims don't match in permute "
				   "(%d for a tensor of rank %d)", k, x->rank);
	for (i = 0; i < k; i++) {
		if (trace_axis(c, d[i], x->rank, &perm[i]))
			return -1;
		if (seen[perm[i]]++)
			return trace_error(c, "repeated dim in permute");
	}
	return trace_out(c, out, sh_permute(c, x, perm));
}

/* transpose(self, dim0, dim1), swapaxes, swapdims, transpose_ */
static int op_transpose(struct trace_ctx *c, const struct ir_node *n,
			struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x;
	int64_t d0, d1;
	int a, b;

	if (tv_get_tensor(c, ARG(0), 0, &x) || tv_get_int(c, ARG(1), &d0) ||
	    tv_get_int(c, ARG(2), &d1))
		return -1;
	if (trace_axis(c, d0, x->rank, &a) || trace_axis(c, d1, x->rank, &b))
		return -1;
	return finish_view(c, n, in, sh_transpose(c, x, a, b), out);
}

/* t(self), t_ */
static int op_t(struct trace_ctx *c, const struct ir_node *n,
		struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x;

	if (tv_get_tensor(c, ARG(0), 0, &x))
		return -1;
	if (x->rank > 2)
		return trace_error(c, "t() expects a tensor with <= 2 "
				   "dimensions, but self is %dD", x->rank);
	if (x->rank < 2)
		return finish_view(c, n, in, trace_alias(c, x), out);
	return finish_view(c, n, in, sh_transpose(c, x, 0, 1), out);
}

/* numpy_T(self): all dims reversed */
static int op_numpy_t(struct trace_ctx *c, const struct ir_node *n,
		      struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x;
	int perm[GPU_MAX_DIMS], i;

	if (tv_get_tensor(c, ARG(0), 0, &x))
		return -1;
	for (i = 0; i < x->rank; i++)
		perm[i] = x->rank - 1 - i;
	return trace_out(c, out, sh_permute(c, x, perm));
}

/* mT, mH, adjoint: the last two dims swapped (real dtypes) */
static int op_mt(struct trace_ctx *c, const struct ir_node *n,
		 struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x;

	if (tv_get_tensor(c, ARG(0), 0, &x))
		return -1;
	if (x->rank < 2)
		return trace_error(c, "tensor.mT is only supported on matrices "
				   "or batches of matrices. Got %d-D tensor.",
				   x->rank);
	return trace_out(c, out, sh_transpose(c, x, x->rank - 2,
					       x->rank - 1));
}

/* movedim(self, source, destination), int and int[] forms; moveaxis */
static int op_movedim(struct trace_ctx *c, const struct ir_node *n,
		      struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x;
	int64_t s[GPU_MAX_DIMS], d[GPU_MAX_DIMS];
	int ns, nd, i, j, perm[GPU_MAX_DIMS], src[GPU_MAX_DIMS],
	    dst[GPU_MAX_DIMS], used_s[GPU_MAX_DIMS] = { 0 },
	    used_d[GPU_MAX_DIMS] = { 0 };

	if (tv_get_tensor(c, ARG(0), 0, &x) ||
	    tv_get_ints(c, ARG(1), s, GPU_MAX_DIMS, &ns) ||
	    tv_get_ints(c, ARG(2), d, GPU_MAX_DIMS, &nd))
		return -1;
	if (ARG(1)->kind != TV_LIST && ARG(1)->kind != TV_TUPLE)
		ns = 1;
	if (ARG(2)->kind != TV_LIST && ARG(2)->kind != TV_TUPLE)
		nd = 1;
	if (ns != nd)
		return trace_error(c, "movedim: Invalid source or destination "
				   "dims: source (%d dims) should contain the "
				   "same number of dims as destination (%d "
				   "dims)", ns, nd);
	for (i = 0; i < ns; i++) {
		if (trace_axis(c, s[i], x->rank, &src[i]) ||
		    trace_axis(c, d[i], x->rank, &dst[i]))
			return -1;
		if (used_s[src[i]]++ || used_d[dst[i]]++)
			return trace_error(c, "movedim: repeated dim");
	}
	for (i = 0; i < x->rank; i++)
		perm[i] = -1;
	for (i = 0; i < ns; i++)
		perm[dst[i]] = src[i];
	/* the rest keep their order */
	j = 0;
	for (i = 0; i < x->rank; i++) {
		if (perm[i] >= 0)
			continue;
		while (used_s[j])
			j++;
		perm[i] = j++;
	}
	return trace_out(c, out, sh_permute(c, x, perm));
}

/* --- squeeze / unsqueeze ------------------------------------------------ */

struct gpu_tensor *sh_unsqueeze(struct trace_ctx *c,
				const struct gpu_tensor *x, int a)
{
	int64_t dims[GPU_MAX_DIMS], strides[GPU_MAX_DIMS];
	int i, k = 0;

	if (x->rank + 1 > GPU_MAX_DIMS) {
		trace_error(c, "tensors of rank %d are not supported",
			    x->rank + 1);
		return NULL;
	}
	for (i = 0; i <= x->rank; i++) {
		if (i == a) {
			dims[k] = 1;
			strides[k] = a < x->rank ? x->dims[a] * x->strides[a]
				     : 1;
			k++;
		}
		if (i < x->rank) {
			dims[k] = x->dims[i];
			strides[k] = x->strides[i];
			k++;
		}
	}
	return trace_view(c, x, x->rank + 1, dims, strides, x->offset);
}

/* unsqueeze(self, dim), unsqueeze_ */
static int op_unsqueeze(struct trace_ctx *c, const struct ir_node *n,
			struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x;
	int64_t d;
	int a;

	if (tv_get_tensor(c, ARG(0), 0, &x) || tv_get_int(c, ARG(1), &d))
		return -1;
	if (trace_axis(c, d, x->rank + 1, &a))
		return -1;
	return finish_view(c, n, in, sh_unsqueeze(c, x, a), out);
}

/* x without the size-1 dims set in mask */
static struct gpu_tensor *sh_squeeze_mask(struct trace_ctx *c,
					  const struct gpu_tensor *x,
					  unsigned mask)
{
	int64_t dims[GPU_MAX_DIMS], strides[GPU_MAX_DIMS];
	int i, k = 0;

	for (i = 0; i < x->rank; i++) {
		if ((mask & (1u << i)) && x->dims[i] == 1)
			continue;
		dims[k] = x->dims[i];
		strides[k] = x->strides[i];
		k++;
	}
	return trace_view(c, x, k, dims, strides, x->offset);
}

/* squeeze(self), squeeze(self, dim), squeeze(self, dims), squeeze_ */
static int op_squeeze(struct trace_ctx *c, const struct ir_node *n,
		      struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x;
	int64_t d[GPU_MAX_DIMS];
	unsigned mask = 0;
	int k, i, a;

	if (tv_get_tensor(c, ARG(0), 0, &x))
		return -1;
	if (sh_is_none(ARG(1))) {
		mask = ~0u;
	} else {
		if (tv_get_ints(c, ARG(1), d, GPU_MAX_DIMS, &k))
			return -1;
		if (!sh_is_list(ARG(1)))
			k = 1;
		for (i = 0; i < k; i++) {
			if (trace_axis(c, d[i], x->rank, &a))
				return -1;
			mask |= 1u << a;
		}
	}
	return finish_view(c, n, in, sh_squeeze_mask(c, x, mask), out);
}

/* --- expansion ---------------------------------------------------------- */

struct gpu_tensor *sh_expand(struct trace_ctx *c,
			     const struct gpu_tensor *x, int rank,
			     const int64_t *dims_in)
{
	int64_t dims[GPU_MAX_DIMS];
	struct gpu_tensor *y;
	int i;

	if (rank < x->rank) {
		trace_error(c, "the number of sizes provided (%d) must be "
			    "greater or equal to the number of dimensions in "
			    "the tensor (%d)", rank, x->rank);
		return NULL;
	}
	if (rank > GPU_MAX_DIMS) {
		trace_error(c, "tensors of rank %d are not supported", rank);
		return NULL;
	}
	for (i = 0; i < rank; i++) {
		int ix = i - (rank - x->rank);

		dims[i] = dims_in[i];
		if (dims[i] == -1) {
			if (ix < 0) {
				trace_error(c, "the expanded size -1 is not "
					    "allowed in a leading, non-existing "
					    "dimension");
				return NULL;
			}
			dims[i] = x->dims[ix];
		}
		if (ix >= 0 && x->dims[ix] != 1 && x->dims[ix] != dims[i]) {
			trace_error(c, "the expanded size of the tensor (%lld) "
				    "must match the existing size (%lld) at "
				    "non-singleton dimension %d",
				    (long long)dims[i],
				    (long long)x->dims[ix], i);
			return NULL;
		}
	}
	y = trace_expand(x, rank, dims);
	if (!y)
		trace_gpu_error(c);
	return y;
}

/* expand(self, size, implicit), broadcast_to(self, size) */
static int op_expand(struct trace_ctx *c, const struct ir_node *n,
		     struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x;
	int64_t shape[GPU_MAX_DIMS];
	int k;

	if (tv_get_tensor(c, ARG(0), 0, &x) || get_shape(c, ARG(1), shape, &k))
		return -1;
	return trace_out(c, out, sh_expand(c, x, k, shape));
}

/* expand_as(self, other) */
static int op_expand_as(struct trace_ctx *c, const struct ir_node *n,
			struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x, *o;

	if (tv_get_tensor(c, ARG(0), 0, &x) || tv_get_tensor(c, ARG(1), 0, &o))
		return -1;
	return trace_out(c, out, sh_expand(c, x, o->rank, o->dims));
}

/* the broadcast shape of n tensors */
int sh_broadcast_all(struct trace_ctx *c, struct gpu_tensor **ts, int n,
		     int *rank, int64_t *dims)
{
	struct gpu_tensor acc;
	int64_t d[GPU_MAX_DIMS];
	int i, r;

	memset(&acc, 0, sizeof(acc));
	for (i = 0; i < n; i++) {
		if (!ts[i])
			continue;
		if (trace_broadcast_dims(c, &acc, ts[i], &r, d))
			return -1;
		acc.rank = r;
		memcpy(acc.dims, d, sizeof(d));
	}
	*rank = acc.rank;
	memcpy(dims, acc.dims, sizeof(acc.dims));
	return 0;
}

/* broadcast_tensors(tensors) */
static int op_broadcast_tensors(struct trace_ctx *c, const struct ir_node *n,
				struct tval **in, int nin, struct tval **out,
				int nout)
{
	struct gpu_tensor **ts, **ys;
	int64_t dims[GPU_MAX_DIMS];
	int k, rank, i;

	if (sh_get_tensor_list(c, ARG(0), &ts, &k))
		return -1;
	if (sh_broadcast_all(c, ts, k, &rank, dims)) {
		free(ts);
		return -1;
	}
	ys = calloc(k ? k : 1, sizeof(*ys));
	if (!ys) {
		free(ts);
		return trace_oom(c);
	}
	for (i = 0; i < k; i++) {
		ys[i] = sh_expand(c, ts[i], rank, dims);
		if (!ys[i]) {
			sh_free_all(ys, i);
			free(ys);
			free(ts);
			return -1;
		}
	}
	free(ts);
	i = sh_set_list(c, out, ys, k);
	free(ys);
	return i;
}

/* meshgrid(tensors), meshgrid(tensors, indexing) */
static int op_meshgrid(struct trace_ctx *c, const struct ir_node *n,
		       struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor **ts, **ys;
	int64_t dims[GPU_MAX_DIMS], strides[GPU_MAX_DIMS];
	int k, i, j, xy = 0;

	if (!sh_is_none(ARG(1))) {
		if (ARG(1)->kind != TV_STR)
			return trace_error(c, "indexing must be a string");
		if (!strcmp(ARG(1)->u.s, "xy"))
			xy = 1;
		else if (strcmp(ARG(1)->u.s, "ij"))
			return trace_error(c, "torch.meshgrid: indexing must "
					   "be one of \"xy\" or \"ij\", but "
					   "received: %s", ARG(1)->u.s);
	}
	if (sh_get_tensor_list(c, ARG(0), &ts, &k))
		return -1;
	if (k > GPU_MAX_DIMS) {
		free(ts);
		return trace_error(c, "meshgrid of %d tensors is not "
				   "supported", k);
	}
	xy = xy && k >= 2;
	if (xy) {
		struct gpu_tensor *tmp = ts[0];

		ts[0] = ts[1];
		ts[1] = tmp;
	}
	for (i = 0; i < k; i++) {
		if (ts[i]->rank > 1) {
			int r = ts[i]->rank;

			free(ts);
			return trace_error(c, "torch.meshgrid: Expected 0D or "
					   "1D tensor in the tensor list but "
					   "got a %dD tensor", r);
		}
		dims[i] = gpu_numel(ts[i]);
	}
	ys = calloc(k ? k : 1, sizeof(*ys));
	if (!ys) {
		free(ts);
		return trace_oom(c);
	}
	for (i = 0; i < k; i++) {
		for (j = 0; j < k; j++)
			strides[j] = 0;
		strides[i] = ts[i]->rank ? ts[i]->strides[0] : 0;
		ys[i] = trace_view(c, ts[i], k, dims, strides, ts[i]->offset);
		if (!ys[i]) {
			sh_free_all(ys, i);
			free(ys);
			free(ts);
			return -1;
		}
	}
	free(ts);
	/* torch swaps the grids back, without transposing them */
	if (xy) {
		struct gpu_tensor *tmp = ys[0];

		ys[0] = ys[1];
		ys[1] = tmp;
	}
	i = sh_set_list(c, out, ys, k);
	free(ys);
	return i;
}

/* --- select / slice / narrow / split ------------------------------------ */

struct gpu_tensor *sh_select(struct trace_ctx *c,
			     const struct gpu_tensor *x, int a,
			     int64_t idx)
{
	int64_t dims[GPU_MAX_DIMS], strides[GPU_MAX_DIMS];
	int i, k = 0;

	if (x->rank == 0) {
		trace_error(c, "select() cannot be applied to a 0-dim tensor");
		return NULL;
	}
	if (idx < -x->dims[a] || idx >= x->dims[a]) {
		trace_error(c, "select(): index %lld out of range for tensor "
			    "of size %lld at dimension %d", (long long)idx,
			    (long long)x->dims[a], a);
		return NULL;
	}
	if (idx < 0)
		idx += x->dims[a];
	for (i = 0; i < x->rank; i++) {
		if (i == a)
			continue;
		dims[k] = x->dims[i];
		strides[k] = x->strides[i];
		k++;
	}
	return trace_view(c, x, k, dims, strides,
		       x->offset + idx * x->strides[a]);
}

/* x[start : start + len * step : step] along axis a (in range) */
struct gpu_tensor *sh_narrow(struct trace_ctx *c,
			     const struct gpu_tensor *x, int a,
			     int64_t start, int64_t len, int64_t step)
{
	int64_t dims[GPU_MAX_DIMS], strides[GPU_MAX_DIMS];

	memcpy(dims, x->dims, sizeof(dims));
	memcpy(strides, x->strides, sizeof(strides));
	dims[a] = len;
	strides[a] = x->strides[a] * step;
	return trace_view(c, x, x->rank, dims, strides,
		       x->offset + (len > 0 ? start * x->strides[a] : 0));
}

/* Python's list indexing for aten::select.t / __getitem__ on lists */
int sh_list_select(struct trace_ctx *c, const struct tval *l,
		   const struct tval *iv, struct tval **out)
{
	int64_t i;

	if (tv_get_int(c, iv, &i))
		return -1;
	if (i < 0)
		i += l->u.list.n;
	if (i < 0 || i >= l->u.list.n)
		return trace_error(c, "list index out of range");
	*out = tv_ref(l->u.list.items[i]);
	return 0;
}

/* select(self, dim, index); select(list, idx) */
static int op_select(struct trace_ctx *c, const struct ir_node *n,
		     struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x;
	int64_t d, i;
	int a;

	if (sh_is_list(ARG(0)) && nin == 2)
		return sh_list_select(c, ARG(0), ARG(1), out);
	if (tv_get_tensor(c, ARG(0), 0, &x) || tv_get_int(c, ARG(1), &d) ||
	    tv_get_int(c, ARG(2), &i))
		return -1;
	if (trace_axis(c, d, x->rank, &a))
		return -1;
	return trace_out(c, out, sh_select(c, x, a, i));
}

/* Python slice bounds against size (step > 0): torch's slice rules */
static void slice_bounds(int64_t size, int64_t *start, int64_t *end,
			 int has_start, int has_end)
{
	if (!has_start)
		*start = 0;
	if (!has_end)
		*end = size;
	if (*start < 0)
		*start += size;
	if (*end < 0)
		*end += size;
	if (*start < 0)
		*start = 0;
	else if (*start > size)
		*start = size;
	if (*end < *start)
		*end = *start;
	else if (*end > size)
		*end = size;
}

static int list_slice(struct trace_ctx *c, struct tval **in, int nin,
		      struct tval **out)
{
	int64_t start = 0, end = 0, step = 1, i, len;
	const struct tval *l = in[0];
	struct tval *r;

	if (!sh_is_none(ARG(1)) && tv_get_int(c, ARG(1), &start))
		return -1;
	if (!sh_is_none(ARG(2)) && tv_get_int(c, ARG(2), &end))
		return -1;
	if (nin > 3 && tv_get_int(c, ARG(3), &step))
		return -1;
	if (step <= 0)
		return trace_error(c, "slice step must be positive");
	slice_bounds(l->u.list.n, &start, &end, !sh_is_none(ARG(1)),
		     !sh_is_none(ARG(2)));
	len = (end - start + step - 1) / step;
	r = tv_list(l->kind);
	if (!r)
		return trace_oom(c);
	for (i = 0; i < len; i++)
		if (tv_list_push(r, tv_ref(l->u.list.items[start + i * step]))) {
			tv_unref(r);
			return trace_oom(c);
		}
	*out = r;
	return 0;
}

/* slice(self, dim=0, start=None, end=None, step=1); slice(list, ...) */
static int op_slice(struct trace_ctx *c, const struct ir_node *n,
		    struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x;
	int64_t d = 0, start = 0, end = 0, step = 1, size;
	int a;

	if (sh_is_list(ARG(0)))
		return list_slice(c, in, nin, out);
	if (tv_get_tensor(c, ARG(0), 0, &x))
		return -1;
	if (!sh_is_none(ARG(1)) && tv_get_int(c, ARG(1), &d))
		return -1;
	if (!sh_is_none(ARG(2)) && tv_get_int(c, ARG(2), &start))
		return -1;
	if (!sh_is_none(ARG(3)) && tv_get_int(c, ARG(3), &end))
		return -1;
	if (!sh_is_none(ARG(4)) && tv_get_int(c, ARG(4), &step))
		return -1;
	if (x->rank == 0)
		return trace_error(c, "slice() cannot be applied to a 0-dim "
				   "tensor");
	if (trace_axis(c, d, x->rank, &a))
		return -1;
	if (step <= 0)
		return trace_error(c, "slice step must be positive");
	size = x->dims[a];
	slice_bounds(size, &start, &end, !sh_is_none(ARG(2)),
		     !sh_is_none(ARG(3)));
	return trace_out(c, out, sh_narrow(c, x, a, start,
					    (end - start + step - 1) / step,
					    step));
}

/* narrow(self, dim, start, length); start may be a 0-d tensor */
static int op_narrow(struct trace_ctx *c, const struct ir_node *n,
		     struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x;
	int64_t d, start, len;
	int a;

	if (tv_get_tensor(c, ARG(0), 0, &x) || tv_get_int(c, ARG(1), &d) ||
	    tv_get_int(c, ARG(2), &start) || tv_get_int(c, ARG(3), &len))
		return -1;
	if (x->rank == 0)
		return trace_error(c, "narrow() cannot be applied to a 0-dim "
				   "tensor");
	if (trace_axis(c, d, x->rank, &a))
		return -1;
	if (start < -x->dims[a] || start > x->dims[a])
		return trace_error(c, "start out of range (expected to be in "
				   "range of [%lld, %lld], but got %lld)",
				   (long long)-x->dims[a],
				   (long long)x->dims[a], (long long)start);
	if (start < 0)
		start += x->dims[a];
	if (len < 0 || start + len > x->dims[a])
		return trace_error(c, "start (%lld) + length (%lld) exceeds "
				   "dimension size (%lld)", (long long)start,
				   (long long)len, (long long)x->dims[a]);
	return trace_out(c, out, sh_narrow(c, x, a, start, len, 1));
}

/* out = list of views of x along axis a with the given sizes */
static int split_sizes(struct trace_ctx *c, const struct gpu_tensor *x, int a,
		       const int64_t *sizes, int k, struct tval **out)
{
	struct gpu_tensor **ys = calloc(k ? k : 1, sizeof(*ys));
	int64_t off = 0;
	int i, rc;

	if (!ys)
		return trace_oom(c);
	for (i = 0; i < k; i++) {
		ys[i] = sh_narrow(c, x, a, off, sizes[i], 1);
		if (!ys[i]) {
			sh_free_all(ys, i);
			free(ys);
			return -1;
		}
		off += sizes[i];
	}
	rc = sh_set_list(c, out, ys, k);
	free(ys);
	return rc;
}

/* sizes of split(size, split_size): ceil(size / split_size) pieces */
static int64_t *even_sizes(struct trace_ctx *c, int64_t size, int64_t ss,
			   int *k)
{
	int64_t *s, i, m;

	if (ss < 0 || (ss == 0 && size != 0)) {
		trace_error(c, "split_size can only be 0 if dimension size is "
			    "0, but got dimension size of %lld",
			    (long long)size);
		return NULL;
	}
	m = ss == 0 ? 1 : (size + ss - 1) / ss;
	if (m == 0)
		m = 1;
	s = malloc(sizeof(*s) * m);
	if (!s) {
		trace_oom(c);
		return NULL;
	}
	for (i = 0; i < m; i++)
		s[i] = size - i * ss < ss ? size - i * ss : ss;
	*k = (int)m;
	return s;
}

/* a list of ints of any length (malloc'd) */
static int64_t *get_int_list(struct trace_ctx *c, const struct tval *v,
			     int *k)
{
	int64_t *s;
	int i;

	if (!sh_is_list(v)) {
		trace_error(c, "expected a list of ints");
		return NULL;
	}
	*k = v->u.list.n;
	s = malloc(sizeof(*s) * (*k ? *k : 1));
	if (!s) {
		trace_oom(c);
		return NULL;
	}
	for (i = 0; i < *k; i++)
		if (tv_get_int(c, v->u.list.items[i], &s[i])) {
			free(s);
			return NULL;
		}
	return s;
}

/* split(self, int split_size | int[] sizes, dim=0), split_with_sizes,
 * unsafe_split, unsafe_split_with_sizes */
static int op_split(struct trace_ctx *c, const struct ir_node *n,
		    struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x;
	int64_t d = 0, ss, *sizes, sum = 0;
	int a, k, i, rc;

	if (ARG(0) && ARG(0)->kind == TV_STR)
		return trace_error(c, "str.split is not supported");
	if (tv_get_tensor(c, ARG(0), 0, &x))
		return -1;
	if (!sh_is_none(ARG(2)) && tv_get_int(c, ARG(2), &d))
		return -1;
	if (x->rank == 0)
		return trace_error(c, "split expects at least a 1-dimensional "
				   "tensor");
	if (trace_axis(c, d, x->rank, &a))
		return -1;
	if (sh_is_list(ARG(1))) {
		sizes = get_int_list(c, ARG(1), &k);
		if (!sizes)
			return -1;
		for (i = 0; i < k; i++) {
			if (sizes[i] < 0) {
				free(sizes);
				return trace_error(c, "split_with_sizes "
						   "expects split_sizes have "
						   "only non-negative entries");
			}
			sum += sizes[i];
		}
		if (sum != x->dims[a]) {
			free(sizes);
			return trace_error(c, "split_with_sizes expects "
					   "split_sizes to sum exactly to %lld "
					   "(input tensor's size at dimension "
					   "%d), but got sum %lld",
					   (long long)x->dims[a], a,
					   (long long)sum);
		}
	} else {
		if (tv_get_int(c, ARG(1), &ss))
			return -1;
		sizes = even_sizes(c, x->dims[a], ss, &k);
		if (!sizes)
			return -1;
	}
	rc = split_sizes(c, x, a, sizes, k, out);
	free(sizes);
	return rc;
}

/* chunk(self, chunks, dim=0), unsafe_chunk */
static int op_chunk(struct trace_ctx *c, const struct ir_node *n,
		    struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x;
	int64_t d = 0, chunks, *sizes;
	int a, k, rc;

	if (tv_get_tensor(c, ARG(0), 0, &x) || tv_get_int(c, ARG(1), &chunks))
		return -1;
	if (!sh_is_none(ARG(2)) && tv_get_int(c, ARG(2), &d))
		return -1;
	if (x->rank == 0)
		return trace_error(c, "chunk expects at least a 1-dimensional "
				   "tensor");
	if (chunks <= 0)
		return trace_error(c, "chunk expects `chunks` to be greater "
				   "than 0, got: %lld", (long long)chunks);
	if (trace_axis(c, d, x->rank, &a))
		return -1;
	sizes = even_sizes(c, x->dims[a], (x->dims[a] + chunks - 1) / chunks,
			   &k);
	if (!sizes)
		return -1;
	rc = split_sizes(c, x, a, sizes, k, out);
	free(sizes);
	return rc;
}

/* tensor_split(self, sections | indices | tensor, dim=0) */
static int op_tensor_split(struct trace_ctx *c, const struct ir_node *n,
			   struct tval **in, int nin, struct tval **out,
			   int nout)
{
	struct gpu_tensor *x, *t;
	int64_t d = 0, *idx = NULL, *sizes, size, prev = 0, sec = 0;
	int a, k = 0, i, rc, by_sections;

	if (tv_get_tensor(c, ARG(0), 0, &x))
		return -1;
	if (!sh_is_none(ARG(2)) && tv_get_int(c, ARG(2), &d))
		return -1;
	if (x->rank == 0)
		return trace_error(c, "tensor_split expects at least a "
				   "1-dimensional tensor");
	if (trace_axis(c, d, x->rank, &a))
		return -1;
	size = x->dims[a];
	if (ARG(1) && ARG(1)->kind == TV_TENSOR) {
		t = ARG(1)->u.t;
		if (t->rank > 1 || sh_is_float_dtype(t->dtype))
			return trace_error(c, "tensor_split expects "
					   "tensor_indices_or_sections to be "
					   "a zero-dimensional or "
					   "one-dimensional integer tensor");
		by_sections = t->rank == 0;
		idx = trace_to_host(c, t, IR_DTYPE_INT64);
		if (!idx)
			return -1;
		k = (int)gpu_numel(t);
		if (by_sections)
			sec = idx[0];
	} else if (sh_is_list(ARG(1))) {
		by_sections = 0;
		idx = get_int_list(c, ARG(1), &k);
		if (!idx)
			return -1;
	} else {
		by_sections = 1;
		if (tv_get_int(c, ARG(1), &sec))
			return -1;
	}
	if (by_sections) {
		free(idx);
		if (sec <= 0)
			return trace_error(c, "number of sections must be "
					   "larger than 0, got %lld",
					   (long long)sec);
		sizes = malloc(sizeof(*sizes) * sec);
		if (!sizes)
			return trace_oom(c);
		for (i = 0; i < sec; i++)
			sizes[i] = size / sec + (i < size % sec);
		rc = split_sizes(c, x, a, sizes, (int)sec, out);
		free(sizes);
		return rc;
	}
	sizes = malloc(sizeof(*sizes) * (k + 1));
	if (!sizes) {
		free(idx);
		return trace_oom(c);
	}
	for (i = 0; i <= k; i++) {
		int64_t e = i < k ? idx[i] : size;

		if (e < 0)
			e += size;
		if (e < 0)
			e = 0;
		if (e > size)
			e = size;
		if (e < prev)
			e = prev;
		sizes[i] = e - prev;
		prev = e;
	}
	free(idx);
	rc = split_sizes(c, x, a, sizes, k + 1, out);
	free(sizes);
	return rc;
}

/* unbind(self, dim=0) */
static int op_unbind(struct trace_ctx *c, const struct ir_node *n,
		     struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x, **ys;
	int64_t d = 0, i;
	int a, rc;

	if (tv_get_tensor(c, ARG(0), 0, &x))
		return -1;
	if (!sh_is_none(ARG(1)) && tv_get_int(c, ARG(1), &d))
		return -1;
	if (x->rank == 0)
		return trace_error(c, "Dimension specified as 0 but tensor "
				   "has no dimensions");
	if (trace_axis(c, d, x->rank, &a))
		return -1;
	ys = calloc(x->dims[a] ? x->dims[a] : 1, sizeof(*ys));
	if (!ys)
		return trace_oom(c);
	for (i = 0; i < x->dims[a]; i++) {
		ys[i] = sh_select(c, x, a, i);
		if (!ys[i]) {
			sh_free_all(ys, (int)i);
			free(ys);
			return -1;
		}
	}
	rc = sh_set_list(c, out, ys, (int)x->dims[a]);
	free(ys);
	return rc;
}

/* --- diagonal, unfold, as_strided --------------------------------------- */

static struct gpu_tensor *sh_diagonal(struct trace_ctx *c,
				      const struct gpu_tensor *x,
				      int64_t offset, int a, int b)
{
	int64_t dims[GPU_MAX_DIMS], strides[GPU_MAX_DIMS], size, off;
	int i, k = 0;

	if (a == b) {
		trace_error(c, "diagonal dimensions cannot be identical %d, %d",
			    a, b);
		return NULL;
	}
	off = x->offset;
	if (offset >= 0) {
		size = x->dims[a] < x->dims[b] - offset ? x->dims[a] :
		       x->dims[b] - offset;
		if (size > 0)
			off += offset * x->strides[b];
	} else {
		size = x->dims[a] + offset < x->dims[b] ?
		       x->dims[a] + offset : x->dims[b];
		if (size > 0)
			off -= offset * x->strides[a];
	}
	if (size < 0)
		size = 0;
	for (i = 0; i < x->rank; i++) {
		if (i == a || i == b)
			continue;
		dims[k] = x->dims[i];
		strides[k] = x->strides[i];
		k++;
	}
	dims[k] = size;
	strides[k] = x->strides[a] + x->strides[b];
	return trace_view(c, x, k + 1, dims, strides, off);
}

/* diagonal(self, offset=0, dim1=0, dim2=1) */
static int op_diagonal(struct trace_ctx *c, const struct ir_node *n,
		       struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x;
	int64_t off = 0, d1 = 0, d2 = 1;
	int a, b;

	if (tv_get_tensor(c, ARG(0), 0, &x))
		return -1;
	if ((!sh_is_none(ARG(1)) && tv_get_int(c, ARG(1), &off)) ||
	    (!sh_is_none(ARG(2)) && tv_get_int(c, ARG(2), &d1)) ||
	    (!sh_is_none(ARG(3)) && tv_get_int(c, ARG(3), &d2)))
		return -1;
	if (x->rank < 2)
		return trace_error(c, "diagonal expects a tensor of at least "
				   "2 dimensions");
	if (trace_axis(c, d1, x->rank, &a) || trace_axis(c, d2, x->rank, &b))
		return -1;
	return trace_out(c, out, sh_diagonal(c, x, off, a, b));
}

/* diag_embed(self, offset=0, dim1=-2, dim2=-1) as a new tensor */
static struct gpu_tensor *sh_diag_embed(struct trace_ctx *c,
					const struct gpu_tensor *x,
					int64_t offset, int a, int b)
{
	int64_t dims[GPU_MAX_DIMS], m;
	struct gpu_tensor *y, *dv;
	int i, k = 0, r = x->rank + 1;

	if (r > GPU_MAX_DIMS) {
		trace_error(c, "tensors of rank %d are not supported", r);
		return NULL;
	}
	m = (x->rank ? x->dims[x->rank - 1] : 1) +
	    (offset < 0 ? -offset : offset);
	for (i = 0; i < r; i++) {
		if (i == a || i == b)
			dims[i] = m;
		else
			dims[i] = x->dims[k++];
	}
	y = trace_empty(c, x->dtype, r, dims);
	if (!y)
		return NULL;
	if (sh_fill(c, y, 0)) {
		gpu_free(y);
		return NULL;
	}
	dv = sh_diagonal(c, y, offset, a, b);
	if (!dv || sh_copy_into(c, x, dv)) {
		gpu_free(dv);
		gpu_free(y);
		return NULL;
	}
	gpu_free(dv);
	return y;
}

static int op_diag_embed(struct trace_ctx *c, const struct ir_node *n,
			 struct tval **in, int nin, struct tval **out,
			 int nout)
{
	struct gpu_tensor *x;
	int64_t off = 0, d1 = -2, d2 = -1;
	int a, b;

	if (tv_get_tensor(c, ARG(0), 0, &x))
		return -1;
	if ((!sh_is_none(ARG(1)) && tv_get_int(c, ARG(1), &off)) ||
	    (!sh_is_none(ARG(2)) && tv_get_int(c, ARG(2), &d1)) ||
	    (!sh_is_none(ARG(3)) && tv_get_int(c, ARG(3), &d2)))
		return -1;
	if (trace_axis(c, d1, x->rank + 1, &a) ||
	    trace_axis(c, d2, x->rank + 1, &b))
		return -1;
	if (a == b)
		return trace_error(c, "diagonal dimensions cannot be "
				   "identical %lld, %lld", (long long)d1,
				   (long long)d2);
	return trace_out(c, out, sh_diag_embed(c, x, off, a, b));
}

/* diag(self, diagonal=0): 1-d -> matrix, 2-d -> its diagonal (a copy) */
static int op_diag(struct trace_ctx *c, const struct ir_node *n,
		   struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x, *dv, *y;
	int64_t off = 0;

	if (tv_get_tensor(c, ARG(0), 0, &x))
		return -1;
	if (!sh_is_none(ARG(1)) && tv_get_int(c, ARG(1), &off))
		return -1;
	if (x->rank == 1)
		return trace_out(c, out, sh_diag_embed(c, x, off, 0, 1));
	if (x->rank != 2)
		return trace_error(c, "diag(): Supports 1D or 2D tensors. Got "
				   "%dD", x->rank);
	dv = sh_diagonal(c, x, off, 0, 1);
	if (!dv)
		return -1;
	y = sh_copy(c, dv);
	gpu_free(dv);
	return trace_out(c, out, y);
}

/* trace(self): the sum of a matrix's diagonal */
static int op_trace(struct trace_ctx *c, const struct ir_node *n,
		    struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x, *dv, *y, *s = NULL;
	int64_t one = 1;
	enum ir_dtype dt;

	if (tv_get_tensor(c, ARG(0), 0, &x))
		return -1;
	if (x->rank != 2)
		return trace_error(c, "trace: expected a matrix, but got "
				   "tensor with dim %d", x->rank);
	dt = sh_is_float_dtype(x->dtype) ? x->dtype : IR_DTYPE_INT64;
	dv = sh_diagonal(c, x, 0, 0, 1);
	if (!dv)
		return -1;
	y = trace_empty(c, dt, 1, &one);
	if (!y) {
		gpu_free(dv);
		return -1;
	}
	if (dt != x->dtype) {
		struct gpu_tensor *t = sh_copy_as(c, dv, dt);

		gpu_free(dv);
		dv = t;
		if (!dv) {
			gpu_free(y);
			return -1;
		}
	}
	if (c->be->reduce(GPU_RSUM, dv, 1u, 0, y)) {
		trace_gpu_error(c);
	} else {
		s = trace_view(c, y, 0, NULL, NULL, y->offset);
	}
	gpu_free(dv);
	gpu_free(y);
	return trace_out(c, out, s);
}

/* unfold(self, dimension, size, step): sliding windows as a view */
static int op_unfold(struct trace_ctx *c, const struct ir_node *n,
		     struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x;
	int64_t d, size, step, dims[GPU_MAX_DIMS], strides[GPU_MAX_DIMS], ds,
		ss;
	int a, r;

	if (tv_get_tensor(c, ARG(0), 0, &x) || tv_get_int(c, ARG(1), &d) ||
	    tv_get_int(c, ARG(2), &size) || tv_get_int(c, ARG(3), &step))
		return -1;
	if (trace_axis(c, d, x->rank, &a))
		return -1;
	ds = x->rank ? x->dims[a] : 1;
	ss = x->rank ? x->strides[a] : 1;
	if (size > ds || size < 0)
		return trace_error(c, "maximum size for tensor at dimension "
				   "%d is %lld but size is %lld", a,
				   (long long)ds, (long long)size);
	if (step <= 0)
		return trace_error(c, "step is %lld but must be > 0",
				   (long long)step);
	r = x->rank ? x->rank + 1 : 1;
	memcpy(dims, x->dims, sizeof(dims));
	memcpy(strides, x->strides, sizeof(strides));
	if (x->rank) {
		dims[a] = (ds - size) / step + 1;
		strides[a] = ss * step;
	}
	dims[r - 1] = size;
	strides[r - 1] = ss;
	return trace_out(c, out, trace_view(c, x, r, dims, strides, x->offset));
}

/* as_strided(self, size, stride, storage_offset=None) */
static int op_as_strided(struct trace_ctx *c, const struct ir_node *n,
			 struct tval **in, int nin, struct tval **out,
			 int nout)
{
	struct gpu_tensor *x;
	int64_t dims[GPU_MAX_DIMS], strides[GPU_MAX_DIMS], off, last = 0;
	int k, ks, i;

	if (tv_get_tensor(c, ARG(0), 0, &x) ||
	    tv_get_ints(c, ARG(1), dims, GPU_MAX_DIMS, &k) ||
	    tv_get_ints(c, ARG(2), strides, GPU_MAX_DIMS, &ks))
		return -1;
	if (k != ks)
		return trace_error(c, "mismatch in length of strides and shape");
	off = x->offset;
	if (!sh_is_none(ARG(3)) && tv_get_int(c, ARG(3), &off))
		return -1;
	for (i = 0; i < k; i++) {
		if (dims[i] < 0 || strides[i] < 0)
			return trace_error(c, "as_strided: negative sizes or "
					   "strides are not supported");
		if (dims[i] == 0)
			last = -1;
		else if (last >= 0)
			last += (dims[i] - 1) * strides[i];
	}
	if (last >= 0 && (size_t)(off + last + 1) * ir_dtype_size(x->dtype) >
	    x->storage->bytes)
		return trace_error(c, "as_strided: the view is out of bounds "
				   "for the storage");
	return trace_out(c, out, trace_view(c, x, k, dims, strides, off));
}

/* atleast_1d / 2d / 3d of one tensor */
struct gpu_tensor *sh_atleast(struct trace_ctx *c,
			      const struct gpu_tensor *x, int nd)
{
	int64_t s[3];

	if (x->rank >= nd)
		return trace_alias(c, x);
	if (nd == 1) {
		s[0] = 1;
		return sh_reshape(c, x, 1, s);
	}
	if (nd == 2) {
		s[0] = 1;
		s[1] = x->rank ? x->dims[0] : 1;
		return sh_reshape(c, x, 2, s);
	}
	if (x->rank == 2) {
		s[0] = x->dims[0];
		s[1] = x->dims[1];
		s[2] = 1;
	} else {
		s[0] = 1;
		s[1] = x->rank ? x->dims[0] : 1;
		s[2] = 1;
	}
	return sh_reshape(c, x, 3, s);
}

/* atleast_Nd(self) and atleast_Nd(tensors) */
static int op_atleast(struct trace_ctx *c, const struct ir_node *n,
		      struct tval **in, int nin, struct tval **out, int nout)
{
	int nd = n->kind[strlen(n->kind) - 2] - '0';
	struct gpu_tensor **ts, **ys;
	int k, i, rc;

	if (!sh_is_list(ARG(0))) {
		struct gpu_tensor *x;

		if (tv_get_tensor(c, ARG(0), 0, &x))
			return -1;
		return trace_out(c, out, sh_atleast(c, x, nd));
	}
	if (sh_get_tensor_list(c, ARG(0), &ts, &k))
		return -1;
	ys = calloc(k ? k : 1, sizeof(*ys));
	if (!ys) {
		free(ts);
		return trace_oom(c);
	}
	for (i = 0; i < k; i++) {
		ys[i] = sh_atleast(c, ts[i], nd);
		if (!ys[i]) {
			sh_free_all(ys, i);
			free(ys);
			free(ts);
			return -1;
		}
	}
	free(ts);
	rc = sh_set_list(c, out, ys, k);
	free(ys);
	return rc;
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
	const char *op = n->kind + 6;
	int k, i, rc, nd, dim;

	if (sh_get_tensor_list(c, ARG(0), &ts, &k))
		return -1;
	if (k == 0) {
		free(ts);
		return trace_error(c, "expects a non-empty TensorList");
	}
	nd = op[0] == 'h' ? 1 : op[0] == 'v' ? 2 : op[0] == 'd' ? 3 : 0;
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
	int64_t d[GPU_MAX_DIMS];
	unsigned mask = 0;
	int k, i, a;

	if (tv_get_tensor(c, ARG(0), 0, &x))
		return -1;
	if (n->op == OP_aten_fliplr ||
	    n->op == OP_aten_flipud) {
		int lr = n->kind[10] == 'l';

		if (x->rank < (lr ? 2 : 1))
			return trace_error(c, "Input must be >= %d-d.",
					   lr ? 2 : 1);
		return trace_out(c, out, sh_flip(c, x, lr ? 2u : 1u));
	}
	if (tv_get_ints(c, ARG(1), d, GPU_MAX_DIMS, &k))
		return -1;
	if (!sh_is_list(ARG(1)))
		k = 1;
	for (i = 0; i < k; i++) {
		if (trace_axis(c, d[i], x->rank, &a))
			return -1;
		if (mask & (1u << a))
			return trace_error(c, "dim %d appears multiple times in "
					   "the list of dims", a);
		mask |= 1u << a;
	}
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
	int lower = strstr(n->kind, "tril") != NULL;
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

/* --- detection ----------------------------------------------------------- */

static const double *nms_scores;

static int cmp_score_desc(const void *pa, const void *pb)
{
	int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;

	if (nms_scores[a] > nms_scores[b])
		return -1;
	if (nms_scores[a] < nms_scores[b])
		return 1;
	return a < b ? -1 : a > b;
}

/* torchvision::nms(dets [N, 4] (x1, y1, x2, y2), scores [N], iou_threshold):
 * the kept boxes' indices by decreasing score, as torchvision's CPU
 * kernel (greedy, suppressing IoU > threshold); on the host */
static int op_nms(struct trace_ctx *c, const struct ir_node *n,
		  struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *b, *s;
	double thr, *bx = NULL, *sc = NULL;
	int64_t nb, i, j, k = 0, *order = NULL, *keep = NULL;
	unsigned char *dead = NULL;
	int rc = -1;

	if (tv_get_tensor(c, ARG(0), 0, &b) || tv_get_tensor(c, ARG(1), 0, &s) ||
	    tv_get_float(c, ARG(2), &thr))
		return -1;
	if (b->rank != 2 || b->dims[1] != 4)
		return trace_error(c, "boxes should be a 2d tensor of shape "
				   "[N, 4], got %dD", b->rank);
	if (s->rank != 1 || s->dims[0] != b->dims[0])
		return trace_error(c, "scores should be a 1d tensor with as "
				   "many entries as boxes");
	nb = b->dims[0];
	bx = trace_to_host(c, b, IR_DTYPE_DOUBLE);
	sc = bx ? trace_to_host(c, s, IR_DTYPE_DOUBLE) : NULL;
	if (!sc)
		goto done;
	order = malloc(sizeof(*order) * (nb ? nb : 1));
	keep = malloc(sizeof(*keep) * (nb ? nb : 1));
	dead = calloc(nb ? nb : 1, 1);
	if (!order || !keep || !dead) {
		trace_oom(c);
		goto done;
	}
	for (i = 0; i < nb; i++)
		order[i] = i;
	nms_scores = sc;
	qsort(order, nb, sizeof(*order), cmp_score_desc);
	nms_scores = NULL;
	if (b->dtype == IR_DTYPE_FLOAT) {
		/* in float arithmetic, as torchvision's kernel for float boxes */
		for (i = 0; i < 4 * nb; i++)
			bx[i] = (float)bx[i];
	}
	for (i = 0; i < nb; i++) {
		const double *p = bx + 4 * order[i];
		double ia = (p[2] - p[0]) * (p[3] - p[1]);

		if (b->dtype == IR_DTYPE_FLOAT)
			ia = (float)ia;
		if (dead[i])
			continue;
		keep[k++] = order[i];
		for (j = i + 1; j < nb; j++) {
			const double *q = bx + 4 * order[j];
			double w, h, inter, ja, ovr;

			if (dead[j])
				continue;
			w = (p[2] < q[2] ? p[2] : q[2]) -
			    (p[0] > q[0] ? p[0] : q[0]);
			h = (p[3] < q[3] ? p[3] : q[3]) -
			    (p[1] > q[1] ? p[1] : q[1]);
			ja = (q[2] - q[0]) * (q[3] - q[1]);
			if (b->dtype == IR_DTYPE_FLOAT) {
				float fw = (float)w > 0 ? (float)w : 0;
				float fh = (float)h > 0 ? (float)h : 0;
				float fi = fw * fh;
				float fa = (float)ia, fj = (float)ja;

				ovr = fi / (fa + fj - fi);
			} else {
				inter = (w > 0 ? w : 0) * (h > 0 ? h : 0);
				ovr = inter / (ia + ja - inter);
			}
			if (ovr > thr)
				dead[j] = 1;
		}
	}
	rc = trace_out(c, out, trace_from_host(c, IR_DTYPE_INT64, 1, &k,
						IR_DTYPE_INT64, keep));
done:
	free(bx);
	free(sc);
	free(order);
	free(keep);
	free(dead);
	return rc;
}

/* One bilinear sample of plane v (h x w) at (y, x), as torchvision's
 * roi_align kernel: 0 outside [-1, h] x [-1, w], clamped inside. */
static double roi_bilinear(const double *v, int64_t h, int64_t w, double y,
			   double x)
{
	int64_t y0, x0, y1, x1;
	double ly, lx;

	if (y < -1.0 || y > (double)h || x < -1.0 || x > (double)w)
		return 0;
	if (y <= 0)
		y = 0;
	if (x <= 0)
		x = 0;
	y0 = (int64_t)y;
	x0 = (int64_t)x;
	if (y0 >= h - 1) {
		y1 = y0 = h - 1;
		y = (double)y0;
	} else {
		y1 = y0 + 1;
	}
	if (x0 >= w - 1) {
		x1 = x0 = w - 1;
		x = (double)x0;
	} else {
		x1 = x0 + 1;
	}
	ly = y - (double)y0;
	lx = x - (double)x0;
	return (1 - ly) * (1 - lx) * v[y0 * w + x0] +
	       (1 - ly) * lx * v[y0 * w + x1] +
	       ly * (1 - lx) * v[y1 * w + x0] + ly * lx * v[y1 * w + x1];
}

/* torchvision::roi_align(input [N, C, H, W], rois [K, 5] (batch index,
 * x1, y1, x2, y2), spatial_scale, pooled_height, pooled_width,
 * sampling_ratio, aligned) -> [K, C, pooled_height, pooled_width]: each
 * bin the mean of a grid of bilinear samples, as torchvision's CPU kernel
 * (roi_align_kernel.cpp; aligned shifts the box by half a pixel, and a
 * sampling_ratio <= 0 takes ceil(bin size) samples a side); on the host */
static int op_roi_align(struct trace_ctx *c, const struct ir_node *n,
			struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x, *r;
	double scale, *xv = NULL, *rv = NULL, *ov = NULL;
	int64_t ph, pw, ratio, dims[4];
	int aligned, rc = -1;

	if (tv_get_tensor(c, ARG(0), 0, &x) || tv_get_tensor(c, ARG(1), 0, &r) ||
	    tv_get_float(c, ARG(2), &scale) || tv_get_int(c, ARG(3), &ph) ||
	    tv_get_int(c, ARG(4), &pw) || tv_get_int(c, ARG(5), &ratio) ||
	    tv_get_bool(c, ARG(6), &aligned))
		return -1;
	if (x->rank != 4)
		return trace_error(c, "roi_align: input should be 4d [N, C, H, "
				   "W], got %dD", x->rank);
	if (r->rank != 2 || r->dims[1] != 5)
		return trace_error(c, "roi_align: rois should be a 2d tensor "
				   "of shape [K, 5]");
	if (ph <= 0 || pw <= 0 || ph > 4096 || pw > 4096)
		return trace_error(c, "roi_align: bad output size %lld x %lld",
				   (long long)ph, (long long)pw);
	int64_t nb = x->dims[0], ch = x->dims[1], h = x->dims[2],
		w = x->dims[3], k = r->dims[0];
	dims[0] = k;
	dims[1] = ch;
	dims[2] = ph;
	dims[3] = pw;
	xv = trace_to_host(c, x, IR_DTYPE_DOUBLE);
	rv = xv ? trace_to_host(c, r, IR_DTYPE_DOUBLE) : NULL;
	if (!rv)
		goto done;
	ov = calloc((size_t)(k * ch * ph * pw) + 1, sizeof(*ov));
	if (!ov) {
		trace_oom(c);
		goto done;
	}
	for (int64_t i = 0; i < k; i++) {
		const double *b = rv + 5 * i;
		double off = aligned ? 0.5 : 0;
		double sx = b[1] * scale - off, sy = b[2] * scale - off;
		double rw = b[3] * scale - off - sx, rh = b[4] * scale - off - sy;
		int64_t bi = (int64_t)b[0];

		if (b[0] != b[0] || bi < 0 || bi >= nb) {
			trace_error(c, "roi_align: roi %lld names batch index "
				    "%g of %lld", (long long)i, b[0],
				    (long long)nb);
			goto done;
		}
		if (!aligned) {
			rw = rw > 1 ? rw : 1;
			rh = rh > 1 ? rh : 1;
		}
		double bh = rh / (double)ph, bw = rw / (double)pw;
		int64_t gh = ratio > 0 ? ratio : (int64_t)ceil(rh / (double)ph);
		int64_t gw = ratio > 0 ? ratio : (int64_t)ceil(rw / (double)pw);
		if (gh > 1 << 16 || gw > 1 << 16) {
			trace_error(c, "roi_align: roi %lld spans too many "
				    "samples", (long long)i);
			goto done;
		}
		double cnt = gh * gw > 1 ? (double)(gh * gw) : 1;
		for (int64_t cc = 0; cc < ch; cc++) {
			const double *v = xv + (bi * ch + cc) * h * w;
			double *o = ov + ((i * ch + cc) * ph) * pw;

			for (int64_t py = 0; py < ph; py++)
				for (int64_t px = 0; px < pw; px++) {
					double acc = 0;

					for (int64_t iy = 0; iy < gh; iy++) {
						double yy = sy + (double)py * bh +
							    ((double)iy + .5) *
							    bh / (double)gh;
						for (int64_t ix = 0; ix < gw;
						     ix++) {
							double xx = sx +
								(double)px * bw +
								((double)ix + .5) *
								bw / (double)gw;
							acc += roi_bilinear(
								v, h, w, yy, xx);
						}
					}
					o[py * pw + px] = acc / cnt;
				}
		}
	}
	rc = trace_out(c, out, trace_from_host(c, x->dtype, 4, dims,
						IR_DTYPE_DOUBLE, ov));
done:
	free(xv);
	free(rv);
	free(ov);
	return rc;
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

	if (strstr(n->kind, "reflection"))
		mode = GPU_PAD_REFLECT;
	else if (strstr(n->kind, "replication"))
		mode = GPU_PAD_REPLICATE;
	else
		mode = GPU_PAD_CIRCULAR;
	if (mode != GPU_PAD_CIRCULAR)
		nd = n->kind[strlen(n->kind) - 2] - '0';
	if (tv_get_tensor(c, ARG(0), 0, &x) ||
	    pad_list(c, x, ARG(1), pads, &np))
		return -1;
	if (nd && (np != nd || (x->rank != nd + 1 && x->rank != nd + 2)))
		return trace_error(c, "expected %dD or %dD input and %d pads",
				   nd + 1, nd + 2, 2 * nd);
	return trace_out(c, out, sh_pad(c, x, pads, mode, 0));
}

/* --- pixel / channel shuffles, im2col / col2im ---------------------------- */

/* x viewed as (rank, dims), permuted, copied, viewed as (orank, odims) */
static struct gpu_tensor *view_perm_copy(struct trace_ctx *c,
					 const struct gpu_tensor *x, int rank,
					 const int64_t *dims, const int *perm,
					 int orank, const int64_t *odims)
{
	struct gpu_tensor *v, *p, *cp, *y;

	v = sh_reshape(c, x, rank, dims);
	if (!v)
		return NULL;
	p = sh_permute(c, v, perm);
	gpu_free(v);
	if (!p)
		return NULL;
	cp = sh_copy(c, p);
	gpu_free(p);
	if (!cp)
		return NULL;
	y = sh_reshape(c, cp, orank, odims);
	gpu_free(cp);
	return y;
}

/* pixel_shuffle(self, r), pixel_unshuffle(self, r) */
static int op_pixel_shuffle(struct trace_ctx *c, const struct ir_node *n,
			    struct tval **in, int nin, struct tval **out,
			    int nout)
{
	struct gpu_tensor *x;
	int64_t r, dims[GPU_MAX_DIMS], odims[GPU_MAX_DIMS], C, H, W;
	int perm[GPU_MAX_DIMS], b, i, un = strstr(n->kind, "unshuffle") != NULL;

	if (tv_get_tensor(c, ARG(0), 0, &x) || tv_get_int(c, ARG(1), &r))
		return -1;
	if (x->rank < 3)
		return trace_error(c, "pixel_%s expects input to have at least "
				   "3 dimensions, but got input with %d "
				   "dimension(s)", un ? "unshuffle" : "shuffle",
				   x->rank);
	if (r <= 0)
		return trace_error(c, "factor must be greater than 0, but got "
				   "%lld", (long long)r);
	b = x->rank - 3;
	if (b + 5 > GPU_MAX_DIMS)
		return trace_error(c, "too many batch dimensions");
	C = x->dims[b];
	H = x->dims[b + 1];
	W = x->dims[b + 2];
	for (i = 0; i < b; i++) {
		dims[i] = odims[i] = x->dims[i];
		perm[i] = i;
	}
	if (!un) {
		if (C % (r * r))
			return trace_error(c, "pixel_shuffle expects its input's "
					   "'channel' dimension to be divisible "
					   "by the square of upscale_factor, "
					   "but input.size(-3)=%lld is not "
					   "divisible by %lld", (long long)C,
					   (long long)(r * r));
		/* [*, C', r, r, H, W] -> [*, C', H, r, W, r] */
		dims[b] = C / (r * r);
		dims[b + 1] = r;
		dims[b + 2] = r;
		dims[b + 3] = H;
		dims[b + 4] = W;
		perm[b] = b;
		perm[b + 1] = b + 3;
		perm[b + 2] = b + 1;
		perm[b + 3] = b + 4;
		perm[b + 4] = b + 2;
		odims[b] = C / (r * r);
		odims[b + 1] = H * r;
		odims[b + 2] = W * r;
	} else {
		if (H % r || W % r)
			return trace_error(c, "pixel_unshuffle expects height "
					   "and width to be divisible by "
					   "downscale_factor");
		/* [*, C, H', r, W', r] -> [*, C, r, r, H', W'] */
		dims[b] = C;
		dims[b + 1] = H / r;
		dims[b + 2] = r;
		dims[b + 3] = W / r;
		dims[b + 4] = r;
		perm[b] = b;
		perm[b + 1] = b + 2;
		perm[b + 2] = b + 4;
		perm[b + 3] = b + 1;
		perm[b + 4] = b + 3;
		odims[b] = C * r * r;
		odims[b + 1] = H / r;
		odims[b + 2] = W / r;
	}
	return trace_out(c, out, view_perm_copy(c, x, b + 5, dims, perm,
						 b + 3, odims));
}

/* channel_shuffle(self, groups), native_channel_shuffle */
static int op_channel_shuffle(struct trace_ctx *c, const struct ir_node *n,
			      struct tval **in, int nin, struct tval **out,
			      int nout)
{
	struct gpu_tensor *x;
	int64_t g, dims[GPU_MAX_DIMS];
	int perm[GPU_MAX_DIMS], i;

	if (tv_get_tensor(c, ARG(0), 0, &x) || tv_get_int(c, ARG(1), &g))
		return -1;
	if (x->rank < 3 || x->rank + 1 > GPU_MAX_DIMS)
		return trace_error(c, "channel_shuffle expects input to have "
				   "at least 3 dimensions, but got input with "
				   "%d dimension(s)", x->rank);
	if (g <= 0 || x->dims[1] % g)
		return trace_error(c, "Number of channels must be divisible "
				   "by groups. Got %lld channels and %lld "
				   "groups.", (long long)x->dims[1],
				   (long long)g);
	dims[0] = x->dims[0];
	dims[1] = g;
	dims[2] = x->dims[1] / g;
	for (i = 2; i < x->rank; i++)
		dims[i + 1] = x->dims[i];
	for (i = 0; i <= x->rank; i++)
		perm[i] = i;
	perm[1] = 2;
	perm[2] = 1;
	return trace_out(c, out, view_perm_copy(c, x, x->rank + 1, dims, perm,
						 x->rank, x->dims));
}

/* im2col(self, kernel_size, dilation, padding, stride) */
static int op_im2col(struct trace_ctx *c, const struct ir_node *n,
		     struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x, *x4 = NULL, *xp = NULL, *v = NULL, *cp = NULL,
			  *y = NULL;
	int64_t k[2], dl[2], pd[2], st[2], o[2], pads[2 * GPU_MAX_DIMS] = { 0 },
		dims[6], strides[6], od[3];
	int nk, nd, np, ns, batched, i;

	if (tv_get_tensor(c, ARG(0), 0, &x) ||
	    tv_get_ints(c, ARG(1), k, 2, &nk) ||
	    tv_get_ints(c, ARG(2), dl, 2, &nd) ||
	    tv_get_ints(c, ARG(3), pd, 2, &np) ||
	    tv_get_ints(c, ARG(4), st, 2, &ns))
		return -1;
	if (nk != 2 || nd != 2 || np != 2 || ns != 2)
		return trace_error(c, "im2col expects 2 values for each of "
				   "kernel_size, dilation, padding, stride");
	if (x->rank != 3 && x->rank != 4)
		return trace_error(c, "Expected 3D or 4D (batch mode) tensor "
				   "for input, but got %dD", x->rank);
	batched = x->rank == 4;
	if (batched) {
		x4 = trace_alias(c, x);
	} else {
		int64_t s[4] = { 1, x->dims[0], x->dims[1], x->dims[2] };

		x4 = sh_reshape(c, x, 4, s);
	}
	if (!x4)
		return -1;
	for (i = 0; i < 2; i++) {
		o[i] = (x4->dims[2 + i] + 2 * pd[i] - dl[i] * (k[i] - 1) - 1) /
		       st[i] + 1;
		pads[2 * (2 + i)] = pads[2 * (2 + i) + 1] = pd[i];
		if (o[i] <= 0 || k[i] <= 0 || st[i] <= 0 || dl[i] <= 0) {
			gpu_free(x4);
			return trace_error(c, "im2col: the given input, kernel "
					   "and padding give no output");
		}
	}
	xp = sh_pad(c, x4, pads, GPU_PAD_CONSTANT, 0);
	gpu_free(x4);
	if (!xp)
		return -1;
	dims[0] = xp->dims[0];
	dims[1] = xp->dims[1];
	dims[2] = k[0];
	dims[3] = k[1];
	dims[4] = o[0];
	dims[5] = o[1];
	strides[0] = xp->strides[0];
	strides[1] = xp->strides[1];
	strides[2] = dl[0] * xp->strides[2];
	strides[3] = dl[1] * xp->strides[3];
	strides[4] = st[0] * xp->strides[2];
	strides[5] = st[1] * xp->strides[3];
	v = trace_view(c, xp, 6, dims, strides, xp->offset);
	if (v)
		cp = sh_copy(c, v);
	if (cp) {
		od[0] = dims[0];
		od[1] = dims[1] * k[0] * k[1];
		od[2] = o[0] * o[1];
		y = batched ? sh_reshape(c, cp, 3, od) :
		      sh_reshape(c, cp, 2, od + 1);
	}
	gpu_free(xp);
	gpu_free(v);
	gpu_free(cp);
	return trace_out(c, out, y);
}

/* col2im(self, output_size, kernel_size, dilation, padding, stride) */
static int op_col2im(struct trace_ctx *c, const struct ir_node *n,
		     struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x, *x6 = NULL, *buf = NULL, *y = NULL;
	int64_t os[2], k[2], dl[2], pd[2], st[2], o[2], N, C, bd[4],
		dims[GPU_MAX_DIMS], strides[GPU_MAX_DIMS];
	int n1, n2, n3, n4, n5, batched, i, j, rc = -1;

	if (tv_get_tensor(c, ARG(0), 0, &x) ||
	    tv_get_ints(c, ARG(1), os, 2, &n1) ||
	    tv_get_ints(c, ARG(2), k, 2, &n2) ||
	    tv_get_ints(c, ARG(3), dl, 2, &n3) ||
	    tv_get_ints(c, ARG(4), pd, 2, &n4) ||
	    tv_get_ints(c, ARG(5), st, 2, &n5))
		return -1;
	if (n1 != 2 || n2 != 2 || n3 != 2 || n4 != 2 || n5 != 2)
		return trace_error(c, "col2im expects 2 values for each size");
	if (x->rank != 2 && x->rank != 3)
		return trace_error(c, "Expected 2D or 3D (batch mode) tensor "
				   "for input, but got %dD", x->rank);
	batched = x->rank == 3;
	N = batched ? x->dims[0] : 1;
	if (k[0] <= 0 || k[1] <= 0 || x->dims[batched] % (k[0] * k[1]))
		return trace_error(c, "Expected size of input's dimension 1 to "
				   "be divisible by the product of "
				   "kernel_size");
	C = x->dims[batched] / (k[0] * k[1]);
	for (i = 0; i < 2; i++)
		o[i] = (os[i] + 2 * pd[i] - dl[i] * (k[i] - 1) - 1) / st[i] + 1;
	if (o[0] * o[1] != x->dims[batched + 1])
		return trace_error(c, "Given output_size, kernel_size, "
				   "dilation, padding, stride, expected size "
				   "of input's dimension 2 to match the "
				   "calculated number of sliding blocks %lld, "
				   "but got %lld", (long long)(o[0] * o[1]),
				   (long long)x->dims[batched + 1]);
	{
		int64_t s6[6] = { N, C, k[0], k[1], o[0], o[1] };

		x6 = sh_reshape(c, x, 6, s6);
	}
	bd[0] = N;
	bd[1] = C;
	bd[2] = os[0] + 2 * pd[0];
	bd[3] = os[1] + 2 * pd[1];
	if (x6)
		buf = trace_empty(c, x->dtype, 4, bd);
	if (!buf || sh_fill(c, buf, 0))
		goto done;
	for (i = 0; i < k[0]; i++)
		for (j = 0; j < k[1]; j++) {
			struct gpu_tensor *dst, *src, *sum;
			int64_t sd[4] = { N, C, o[0], o[1] };
			int64_t ss[4] = { buf->strides[0], buf->strides[1],
					  st[0] * buf->strides[2],
					  st[1] * buf->strides[3] };
			int64_t xs[4] = { x6->strides[0], x6->strides[1],
					  x6->strides[4], x6->strides[5] };
			int bad;

			dst = trace_view(c, buf, 4, sd, ss, buf->offset +
				      i * dl[0] * buf->strides[2] +
				      j * dl[1] * buf->strides[3]);
			src = trace_view(c, x6, 4, sd, xs, x6->offset +
				      i * x6->strides[2] + j * x6->strides[3]);
			sum = trace_empty(c, x->dtype, 4, sd);
			bad = !dst || !src || !sum;
			if (!bad && gpu_numel(sum) &&
			    c->be->binary(GPU_ADD, dst, src, sum)) {
				trace_gpu_error(c);
				bad = 1;
			}
			if (!bad && sh_copy_into(c, sum, dst))
				bad = 1;
			gpu_free(dst);
			gpu_free(src);
			gpu_free(sum);
			if (bad)
				goto done;
		}
	/* crop the padding */
	for (i = 0; i < 4; i++) {
		dims[i] = i < 2 ? bd[i] : os[i - 2];
		strides[i] = buf->strides[i];
	}
	{
		struct gpu_tensor *v = trace_view(c, buf, 4, dims, strides,
					       buf->offset + pd[0] *
					       buf->strides[2] + pd[1] *
					       buf->strides[3]);

		if (v) {
			struct gpu_tensor *cp = sh_copy(c, v);

			if (cp) {
				y = batched ? trace_alias(c, cp) :
				    sh_reshape(c, cp, 3, dims + 1);
				gpu_free(cp);
			}
			gpu_free(v);
		}
	}
	if (y)
		rc = trace_out(c, out, y);
done:
	gpu_free(x6);
	gpu_free(buf);
	return rc;
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

/* --- gather, scatter, index_select --------------------------------------- */

/* an index tensor as int64 (new reference); bool and floats refused */
static struct gpu_tensor *sh_index64(struct trace_ctx *c,
				     const struct gpu_tensor *t,
				     const char *what)
{
	if (sh_is_float_dtype(t->dtype) || t->dtype == IR_DTYPE_BOOL) {
		trace_error(c, "%s must be a tensor of integers", what);
		return NULL;
	}
	return trace_cast(c, (struct gpu_tensor *)t, IR_DTYPE_INT64);
}

/* x (rank 0 is viewed as [1]) as a view of rank >= 1 */
struct gpu_tensor *sh_atleast1(struct trace_ctx *c,
			       const struct gpu_tensor *x)
{
	int64_t one = 1, st = 1;

	if (x->rank)
		return trace_alias(c, x);
	return trace_view(c, x, 1, &one, &st, x->offset);
}

/* index_select(self, dim, index) */
struct gpu_tensor *sh_index_select(struct trace_ctx *c,
				   const struct gpu_tensor *x, int a,
				   const struct gpu_tensor *index)
{
	int64_t dims[GPU_MAX_DIMS];
	struct gpu_tensor *it, *x1, *y = NULL;

	if (index->rank > 1) {
		trace_error(c, "index_select(): Index is supposed to be a "
			    "vector");
		return NULL;
	}
	it = sh_index64(c, index, "index_select(): index");
	if (!it)
		return NULL;
	x1 = sh_atleast1(c, x);
	if (x1) {
		memcpy(dims, x1->dims, sizeof(dims));
		dims[a] = gpu_numel(it);
		y = trace_empty(c, x->dtype, x1->rank, dims);
	}
	if (y && gpu_numel(y) && c->be->index_select(x1, a, it, y)) {
		trace_gpu_error(c);
		gpu_free(y);
		y = NULL;
	}
	if (y && x->rank == 0) {
		struct gpu_tensor *t = trace_view(c, y, 0, NULL, NULL, y->offset);

		gpu_free(y);
		y = t;
	}
	gpu_free(it);
	gpu_free(x1);
	return y;
}

static int op_index_select(struct trace_ctx *c, const struct ir_node *n,
			   struct tval **in, int nin, struct tval **out,
			   int nout)
{
	struct gpu_tensor *x, *idx;
	int64_t d;
	int a;

	if (tv_get_tensor(c, ARG(0), 0, &x) || tv_get_int(c, ARG(1), &d) ||
	    tv_get_tensor(c, ARG(2), 0, &idx))
		return -1;
	if (trace_axis(c, d, x->rank, &a))
		return -1;
	return trace_out(c, out, sh_index_select(c, x, a, idx));
}

/* gather(x, a, index) with index of x's rank */
static struct gpu_tensor *sh_gather(struct trace_ctx *c,
				    const struct gpu_tensor *x, int a,
				    const struct gpu_tensor *index)
{
	struct gpu_tensor *it, *x1 = NULL, *i1 = NULL, *y = NULL;
	int i;

	if (index->rank != x->rank && !(x->rank <= 1 && index->rank <= 1)) {
		trace_error(c, "Index tensor must have the same number of "
			    "dimensions as input tensor");
		return NULL;
	}
	it = sh_index64(c, index, "gather(): index");
	if (!it)
		return NULL;
	x1 = sh_atleast1(c, x);
	i1 = sh_atleast1(c, it);
	if (x1 && i1) {
		for (i = 0; i < x1->rank; i++)
			if (i != a && i1->dims[i] > x1->dims[i]) {
				trace_error(c, "Size does not match at "
					    "dimension %d expected index %lld "
					    "to be smaller than self %lld "
					    "apart from dimension %d", i,
					    (long long)i1->dims[i],
					    (long long)x1->dims[i], a);
				goto done;
			}
		y = trace_empty(c, x->dtype, i1->rank, i1->dims);
	}
	if (y && gpu_numel(y) && c->be->gather(x1, a, i1, y)) {
		trace_gpu_error(c);
		gpu_free(y);
		y = NULL;
	}
	if (y && it->rank == 0) {
		struct gpu_tensor *t = trace_view(c, y, 0, NULL, NULL, y->offset);

		gpu_free(y);
		y = t;
	}
done:
	gpu_free(it);
	gpu_free(x1);
	gpu_free(i1);
	return y;
}

/* gather(self, dim, index, sparse_grad=False) */
static int op_gather(struct trace_ctx *c, const struct ir_node *n,
		     struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x, *idx;
	int64_t d;
	int a;

	if (tv_get_tensor(c, ARG(0), 0, &x) || tv_get_int(c, ARG(1), &d) ||
	    tv_get_tensor(c, ARG(2), 0, &idx))
		return -1;
	if (trace_axis(c, d, x->rank, &a))
		return -1;
	return trace_out(c, out, sh_gather(c, x, a, idx));
}

/* take(self, index): x flattened, indexed, shaped as index */
static int op_take(struct trace_ctx *c, const struct ir_node *n,
		   struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x, *idx, *xf, *iflat, *y1 = NULL, *y = NULL;
	int64_t m1 = -1;

	if (tv_get_tensor(c, ARG(0), 0, &x) ||
	    tv_get_tensor(c, ARG(1), 0, &idx))
		return -1;
	xf = sh_reshape(c, x, 1, &m1);
	iflat = sh_reshape(c, idx, 1, &m1);
	if (xf && iflat)
		y1 = sh_index_select(c, xf, 0, iflat);
	if (y1)
		y = sh_reshape(c, y1, idx->rank, idx->dims);
	gpu_free(xf);
	gpu_free(iflat);
	gpu_free(y1);
	return trace_out(c, out, y);
}

/* take_along_dim(self, indices, dim=None) */
static int op_take_along_dim(struct trace_ctx *c, const struct ir_node *n,
			     struct tval **in, int nin, struct tval **out,
			     int nout)
{
	struct gpu_tensor *x, *idx, *xe = NULL, *ie = NULL, *y = NULL;
	int64_t d, dx[GPU_MAX_DIMS], di[GPU_MAX_DIMS], m1 = -1;
	int a, i;

	if (tv_get_tensor(c, ARG(0), 0, &x) ||
	    tv_get_tensor(c, ARG(1), 0, &idx))
		return -1;
	if (sh_is_none(ARG(2))) {
		struct gpu_tensor *xf = sh_reshape(c, x, 1, &m1),
				  *iflat = sh_reshape(c, idx, 1, &m1);

		if (xf && iflat)
			y = sh_gather(c, xf, 0, iflat);
		gpu_free(xf);
		gpu_free(iflat);
		return trace_out(c, out, y);
	}
	if (tv_get_int(c, ARG(2), &d) || trace_axis(c, d, x->rank, &a))
		return -1;
	if (x->rank != idx->rank)
		return trace_error(c, "torch.take_along_dim(): input and "
				   "indices should have the same number of "
				   "dimensions");
	for (i = 0; i < x->rank; i++) {
		int64_t b;

		if (i == a) {
			dx[i] = x->dims[i];
			di[i] = idx->dims[i];
			continue;
		}
		if (x->dims[i] != idx->dims[i] && x->dims[i] != 1 &&
		    idx->dims[i] != 1)
			return trace_error(c, "take_along_dim: shapes do not "
					   "broadcast");
		b = x->dims[i] == 1 ? idx->dims[i] : x->dims[i];
		dx[i] = di[i] = b;
	}
	xe = sh_expand(c, x, x->rank, dx);
	ie = sh_expand(c, idx, idx->rank, di);
	if (xe && ie)
		y = sh_gather(c, xe, a, ie);
	gpu_free(xe);
	gpu_free(ie);
	return trace_out(c, out, y);
}

/* y = x with src scattered along a at index (op 0 set, 1 add); src is cut
 * to index's dims and cast to x's dtype */
static struct gpu_tensor *sh_scatter(struct trace_ctx *c,
				     const struct gpu_tensor *x, int a,
				     const struct gpu_tensor *index,
				     const struct gpu_tensor *src, int op)
{
	struct gpu_tensor *it = NULL, *x1 = NULL, *i1 = NULL, *s1 = NULL,
			  *sv = NULL, *sc = NULL, *y = NULL;
	int i;

	if (index->rank != x->rank && !(x->rank <= 1 && index->rank <= 1)) {
		trace_error(c, "Index tensor must have the same number of "
			    "dimensions as self tensor");
		return NULL;
	}
	it = sh_index64(c, index, "scatter(): index");
	if (!it)
		return NULL;
	x1 = sh_atleast1(c, x);
	i1 = sh_atleast1(c, it);
	s1 = sh_atleast1(c, src);
	if (!x1 || !i1 || !s1)
		goto done;
	if (s1->rank != i1->rank) {
		trace_error(c, "Index tensor must have the same number of "
			    "dimensions as src tensor");
		goto done;
	}
	for (i = 0; i < i1->rank; i++) {
		if ((i != a && i1->dims[i] > x1->dims[i]) ||
		    i1->dims[i] > s1->dims[i]) {
			trace_error(c, "Expected index %s to be smaller than "
				    "self %s apart from dimension %d and to be "
				    "smaller size than src", "shape",
				    "shape", a);
			goto done;
		}
	}
	sv = trace_view(c, s1, s1->rank, i1->dims, s1->strides, s1->offset);
	if (!sv)
		goto done;
	sc = trace_cast(c, sv, x->dtype);
	if (!sc)
		goto done;
	y = trace_empty(c, x->dtype, x1->rank, x1->dims);
	if (!y)
		goto done;
	if (gpu_numel(i1) == 0) {
		if (gpu_numel(y) && c->be->copy(x1, y)) {
			trace_gpu_error(c);
			gpu_free(y);
			y = NULL;
		}
	} else if (c->be->scatter(x1, a, i1, sc, op, y)) {
		trace_gpu_error(c);
		gpu_free(y);
		y = NULL;
	}
	if (y && x->rank == 0) {
		struct gpu_tensor *t = trace_view(c, y, 0, NULL, NULL, y->offset);

		gpu_free(y);
		y = t;
	}
done:
	gpu_free(it);
	gpu_free(x1);
	gpu_free(i1);
	gpu_free(s1);
	gpu_free(sv);
	gpu_free(sc);
	return y;
}

/* a rank-0 tensor of dtype dt from a scalar or tensor value, expanded to
 * (rank, dims) */
static struct gpu_tensor *sh_scalar_expanded(struct trace_ctx *c,
					     const struct tval *v,
					     enum ir_dtype dt, int rank,
					     const int64_t *dims)
{
	struct gpu_tensor *s, *e;

	if (v && v->kind == TV_TENSOR && v->u.t->rank > 0 &&
	    gpu_numel(v->u.t) != 1) {
		trace_error(c, "expected a scalar or a tensor of one element");
		return NULL;
	}
	s = sh_scalar(c, v, dt);
	if (!s)
		return NULL;
	if (s->rank) {
		struct gpu_tensor *t = trace_view(c, s, 0, NULL, NULL, s->offset);

		gpu_free(s);
		s = t;
		if (!s)
			return NULL;
	}
	e = sh_expand(c, s, rank, dims);
	gpu_free(s);
	return e;
}

/* scatter(self, dim, index, src | value, [reduce]), scatter_, scatter_add,
 * scatter_add_, scatter_reduce(self, dim, index, src, reduce,
 * include_self) */
static int op_scatter(struct trace_ctx *c, const struct ir_node *n,
		      struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x, *idx, *src, *own = NULL, *y;
	const char *reduce = NULL;
	int64_t d;
	int a, op = 0;

	if (tv_get_tensor(c, ARG(0), 0, &x) || tv_get_int(c, ARG(1), &d) ||
	    tv_get_tensor(c, ARG(2), 0, &idx))
		return -1;
	if (trace_axis(c, d, x->rank, &a))
		return -1;
	if (strstr(n->kind, "scatter_add"))
		op = 1;
	if (ARG(4) && ARG(4)->kind == TV_STR)
		reduce = ARG(4)->u.s;
	if (reduce) {
		int include_self = 1;

		if (strstr(n->kind, "scatter_reduce") && !sh_is_none(ARG(5)) &&
		    tv_get_bool(c, ARG(5), &include_self))
			return -1;
		if (!include_self)
			return trace_error(c, "scatter_reduce with "
					   "include_self=False is not "
					   "supported");
		if (!strcmp(reduce, "add") || !strcmp(reduce, "sum"))
			op = 1;
		else
			return trace_error(c, "scatter reduce \"%s\" is not "
					   "supported", reduce);
	}
	if (ARG(3) && ARG(3)->kind == TV_TENSOR) {
		src = ARG(3)->u.t;
	} else {
		int64_t one = 1;

		own = sh_scalar_expanded(c, ARG(3), x->dtype,
					 idx->rank ? idx->rank : 1,
					 idx->rank ? idx->dims : &one);
		if (!own)
			return -1;
		if (idx->rank == 0) {
			struct gpu_tensor *t = trace_view(c, own, 0, NULL, NULL,
						       own->offset);

			gpu_free(own);
			own = t;
			if (!own)
				return -1;
		}
		src = own;
	}
	y = sh_scatter(c, x, a, idx, src, op);
	gpu_free(own);
	return sh_finish(c, n, in, y, out);
}

/* index (1-d or 0-d, k entries) as an index tensor of x's dims with dim a
 * k long (stride 0 elsewhere) */
static struct gpu_tensor *index_along(struct trace_ctx *c,
				      const struct gpu_tensor *x, int a,
				      const struct gpu_tensor *it)
{
	int64_t dims[GPU_MAX_DIMS], strides[GPU_MAX_DIMS];
	int i, r = x->rank ? x->rank : 1;

	for (i = 0; i < r; i++) {
		dims[i] = x->rank ? x->dims[i] : 1;
		strides[i] = 0;
	}
	dims[a] = gpu_numel(it);
	strides[a] = it->rank ? it->strides[0] : 0;
	return trace_view(c, it, r, dims, strides, it->offset);
}

/* index_fill(self, dim, index, value), index_copy(self, dim, index,
 * source), index_add(self, dim, index, source, alpha=1) and their in-place
 * forms */
static int op_index_fca(struct trace_ctx *c, const struct ir_node *n,
			struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x, *idx, *it = NULL, *ie = NULL, *src = NULL,
			  *y = NULL;
	int kind = strstr(n->kind, "fill") ? 0 : strstr(n->kind, "copy") ? 1 :
		   2;
	int64_t d, dims[GPU_MAX_DIMS];
	int a, i;

	if (tv_get_tensor(c, ARG(0), 0, &x) || tv_get_int(c, ARG(1), &d) ||
	    tv_get_tensor(c, ARG(2), 0, &idx))
		return -1;
	if (trace_axis(c, d, x->rank, &a))
		return -1;
	if (idx->rank > 1)
		return trace_error(c, "Index has to be a vector/scalar");
	it = sh_index64(c, idx, "index");
	if (!it)
		return -1;
	ie = index_along(c, x, a, it);
	if (!ie)
		goto done;
	for (i = 0; i < ie->rank; i++)
		dims[i] = ie->dims[i];
	if (kind == 0) {
		src = sh_scalar_expanded(c, ARG(3), x->dtype, ie->rank, dims);
	} else {
		struct gpu_tensor *s, *s1;

		if (tv_get_tensor(c, ARG(3), 0, &s))
			goto done;
		s1 = sh_atleast1(c, s);
		if (!s1)
			goto done;
		if (s1->rank != ie->rank || memcmp(s1->dims, dims,
						   sizeof(int64_t) * ie->rank)) {
			gpu_free(s1);
			trace_error(c, "source does not have the expected "
				    "shape (self with dimension %d of the "
				    "index's length)", a);
			goto done;
		}
		if (kind == 2 && !sh_is_none(ARG(4)) &&
		    !(ARG(4)->kind == TV_INT && ARG(4)->u.i == 1)) {
			struct gpu_tensor *al = sh_scalar_expanded(
				c, ARG(4), x->dtype, s1->rank, s1->dims);

			if (al)
				src = sh_binary(c, GPU_MUL, s1, al, x->dtype,
						s1->rank, s1->dims);
			gpu_free(al);
			gpu_free(s1);
		} else {
			src = s1;
		}
	}
	if (!src)
		goto done;
	if (x->rank == 0) {
		struct gpu_tensor *x1 = sh_atleast1(c, x), *y1;

		y1 = x1 ? sh_scatter(c, x1, 0, ie, src, kind == 2) : NULL;
		if (y1)
			y = trace_view(c, y1, 0, NULL, NULL, y1->offset);
		gpu_free(x1);
		gpu_free(y1);
	} else {
		y = sh_scatter(c, x, a, ie, src, kind == 2);
	}
done:
	gpu_free(it);
	gpu_free(ie);
	gpu_free(src);
	if (!y)
		return -1;
	return sh_finish(c, n, in, y, out);
}

/* --- advanced indexing --------------------------------------------------- */

/* positions of the nonzero elements of t (row-major), as int64 coordinates
 * [count][rank] on the host (malloc'd) */
static int64_t *host_nonzero(struct trace_ctx *c, const struct gpu_tensor *t,
			     int64_t *count)
{
	int64_t n = gpu_numel(t), i, k = 0, *co;
	double *v = trace_to_host(c, t, IR_DTYPE_DOUBLE);
	int r = t->rank, j;

	if (!v)
		return NULL;
	for (i = 0; i < n; i++)
		k += v[i] != 0;
	co = malloc(sizeof(*co) * (k * r > 0 ? k * r : 1));
	if (!co) {
		free(v);
		trace_oom(c);
		return NULL;
	}
	k = 0;
	for (i = 0; i < n; i++) {
		int64_t rem = i;

		if (v[i] == 0)
			continue;
		for (j = r - 1; j >= 0; j--) {
			co[k * r + j] = rem % t->dims[j];
			rem /= t->dims[j];
		}
		k++;
	}
	free(v);
	*count = k;
	return co;
}

/* the index list of index / index_put: per dim of x an int64 index tensor
 * or NULL (bool masks become one index per dim they cover); returns the
 * number of dims covered */
static int expand_indices(struct trace_ctx *c, const struct gpu_tensor *x,
			  const struct tval *list, struct gpu_tensor **idx)
{
	int i, p = 0, j;

	if (!sh_is_list(list))
		return trace_error(c, "expected a list of indices");
	for (i = 0; i < GPU_MAX_DIMS; i++)
		idx[i] = NULL;
	for (i = 0; i < list->u.list.n; i++) {
		const struct tval *v = list->u.list.items[i];
		const struct gpu_tensor *t;

		if (sh_is_none(v)) {
			p++;
			continue;
		}
		if (v->kind != TV_TENSOR) {
			if (v->kind == TV_INT) {
				/* a plain int index */
				idx[p] = trace_as_tensor(c, v, IR_DTYPE_INT64);
				if (!idx[p])
					goto fail;
				p++;
				continue;
			}
			trace_error(c, "tensors used as indices must be long, "
				    "int, byte or bool tensors");
			goto fail;
		}
		t = v->u.t;
		if (t->dtype == IR_DTYPE_BOOL || t->dtype == IR_DTYPE_UINT8) {
			int64_t cnt, *co;

			if (t->rank == 0) {
				trace_error(c, "indexing with a 0-d boolean "
					    "mask is not supported");
				goto fail;
			}
			if (p + t->rank > x->rank) {
				trace_error(c, "too many indices for tensor of "
					    "dimension %d", x->rank);
				goto fail;
			}
			for (j = 0; j < t->rank; j++)
				if (t->dims[j] != x->dims[p + j]) {
					trace_error(c, "The shape of the mask "
						    "[%lld] at index %d does "
						    "not match the shape of "
						    "the indexed tensor [%lld] "
						    "at index %d",
						    (long long)t->dims[j], j,
						    (long long)x->dims[p + j],
						    p + j);
					goto fail;
				}
			co = host_nonzero(c, t, &cnt);
			if (!co)
				goto fail;
			for (j = 0; j < t->rank; j++) {
				int64_t *col = malloc(sizeof(*col) *
						      (cnt ? cnt : 1)), m;

				if (!col) {
					free(co);
					trace_oom(c);
					goto fail;
				}
				for (m = 0; m < cnt; m++)
					col[m] = co[m * t->rank + j];
				idx[p + j] = trace_from_host(c, IR_DTYPE_INT64,
							     1, &cnt,
							     IR_DTYPE_INT64,
							     col);
				free(col);
				if (!idx[p + j]) {
					free(co);
					goto fail;
				}
			}
			free(co);
			p += t->rank;
			continue;
		}
		if (p >= x->rank) {
			trace_error(c, "too many indices for tensor of "
				    "dimension %d", x->rank);
			goto fail;
		}
		idx[p] = sh_index64(c, t, "tensors used as indices");
		if (!idx[p])
			goto fail;
		p++;
	}
	if (p > x->rank) {
		trace_error(c, "too many indices for tensor of dimension %d",
			    x->rank);
		goto fail;
	}
	return p;
fail:
	sh_free_all(idx, GPU_MAX_DIMS);
	return -1;
}

static int any_index(struct gpu_tensor **idx)
{
	int i;

	for (i = 0; i < GPU_MAX_DIMS; i++)
		if (idx[i])
			return 1;
	return 0;
}

/* the geometry of an advanced indexing of x */
struct adv {
	int perm[GPU_MAX_DIMS]; /* x's dims, indexed ones at [p, p+k) */
	int p, k;
	int brank;              /* broadcast index shape */
	int64_t bdims[GPU_MAX_DIMS];
	int64_t P, M, N, S;     /* x as [P, M, S], result as [P, N, S] */
	int rrank;              /* the result's shape */
	int64_t rdims[GPU_MAX_DIMS];
	struct gpu_tensor *flat; /* [N] int64 into the M indexed positions */
};

static int adv_plan(struct trace_ctx *c, const struct gpu_tensor *x,
		    struct gpu_tensor **idx, struct adv *A)
{
	int i, j, first = -1, last = -1, adjacent = 1, q = 0;
	int64_t pd[GPU_MAX_DIMS];

	memset(A, 0, sizeof(*A));
	A->k = 0;
	for (i = 0; i < x->rank; i++)
		if (idx[i]) {
			if (first < 0)
				first = i;
			else if (last != i - 1)
				adjacent = 0;
			last = i;
			A->k++;
		}
	if (sh_broadcast_all(c, idx, x->rank, &A->brank, A->bdims))
		return -1;
	A->N = sh_prod(A->bdims, A->brank);
	if (adjacent) {
		for (i = 0; i < x->rank; i++)
			A->perm[i] = i;
		A->p = first;
	} else {
		for (i = 0; i < x->rank; i++)
			if (idx[i])
				A->perm[q++] = i;
		for (i = 0; i < x->rank; i++)
			if (!idx[i])
				A->perm[q++] = i;
		A->p = 0;
	}
	for (i = 0; i < x->rank; i++)
		pd[i] = x->dims[A->perm[i]];
	A->P = sh_prod(pd, A->p);
	A->M = sh_prod(pd + A->p, A->k);
	A->S = sh_prod(pd + A->p + A->k, x->rank - A->p - A->k);
	A->rrank = x->rank - A->k + A->brank;
	if (A->rrank > GPU_MAX_DIMS)
		return trace_error(c, "result of rank %d is not supported",
				   A->rrank);
	q = 0;
	for (i = 0; i < A->p; i++)
		A->rdims[q++] = pd[i];
	for (i = 0; i < A->brank; i++)
		A->rdims[q++] = A->bdims[i];
	for (i = A->p + A->k; i < x->rank; i++)
		A->rdims[q++] = pd[i];
	/* the flat index */
	if (A->k == 1) {
		int64_t m1 = -1;

		A->flat = sh_reshape(c, idx[first], 1, &m1);
		return A->flat ? 0 : -1;
	} else {
		int64_t *flat = malloc(sizeof(*flat) * (A->N ? A->N : 1)), e;
		int64_t mstride = 1;

		if (!flat)
			return trace_oom(c);
		for (e = 0; e < A->N; e++)
			flat[e] = 0;
		for (j = A->k - 1; j >= 0; j--) {
			int dim = A->perm[A->p + j];
			int64_t size = x->dims[dim], *h;
			struct gpu_tensor *ex = sh_expand(c, idx[dim],
							  A->brank, A->bdims);

			h = ex ? trace_to_host(c, ex, IR_DTYPE_INT64) : NULL;
			gpu_free(ex);
			if (!h) {
				free(flat);
				return -1;
			}
			for (e = 0; e < A->N; e++) {
				int64_t v = h[e];

				if (v < -size || v >= size) {
					free(h);
					free(flat);
					return trace_error(c, "index %lld is out "
							   "of bounds for "
							   "dimension %d with "
							   "size %lld",
							   (long long)v, dim,
							   (long long)size);
				}
				if (v < 0)
					v += size;
				flat[e] += v * mstride;
			}
			free(h);
			mstride *= size;
		}
		A->flat = trace_from_host(c, IR_DTYPE_INT64, 1, &A->N,
					  IR_DTYPE_INT64, flat);
		free(flat);
		return A->flat ? 0 : -1;
	}
}

/* x permuted as A plans and viewed as [P, M, S] */
static struct gpu_tensor *adv_x3(struct trace_ctx *c,
				 const struct gpu_tensor *x,
				 const struct adv *A)
{
	struct gpu_tensor *xp = sh_permute(c, x, A->perm), *x3;
	int64_t d3[3] = { A->P, A->M, A->S };

	if (!xp)
		return NULL;
	x3 = sh_reshape(c, xp, 3, d3);
	gpu_free(xp);
	return x3;
}

/* index(self, indices) */
static int op_index(struct trace_ctx *c, const struct ir_node *n,
		    struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x, *idx[GPU_MAX_DIMS], *x3 = NULL, *y3 = NULL,
			  *y = NULL;
	struct adv A;
	int64_t d3[3];
	int k;

	if (sh_is_list(ARG(0)))
		return sh_list_select(c, ARG(0), ARG(1), out);
	if (tv_get_tensor(c, ARG(0), 0, &x))
		return -1;
	k = expand_indices(c, x, ARG(1), idx);
	if (k < 0)
		return -1;
	if (!any_index(idx)) {
		sh_free_all(idx, GPU_MAX_DIMS);
		return trace_out(c, out, sh_copy(c, x));
	}
	if (adv_plan(c, x, idx, &A))
		goto done;
	x3 = adv_x3(c, x, &A);
	if (!x3)
		goto done;
	d3[0] = A.P;
	d3[1] = A.N;
	d3[2] = A.S;
	y3 = trace_empty(c, x->dtype, 3, d3);
	if (!y3)
		goto done;
	if (gpu_numel(y3) && c->be->index_select(x3, 1, A.flat, y3)) {
		trace_gpu_error(c);
		goto done;
	}
	y = sh_reshape(c, y3, A.rrank, A.rdims);
done:
	sh_free_all(idx, GPU_MAX_DIMS);
	gpu_free(A.flat);
	gpu_free(x3);
	gpu_free(y3);
	return trace_out(c, out, y);
}

/* index_put(self, indices, values, accumulate=False), index_put_,
 * _index_put_impl_ */
static int op_index_put(struct trace_ctx *c, const struct ir_node *n,
			struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x, *v, *idx[GPU_MAX_DIMS], *x3 = NULL, *y3 = NULL,
			  *vc = NULL, *ve = NULL, *v3 = NULL, *i3 = NULL,
			  *y = NULL, *yp = NULL;
	int64_t d3[3], is3[3], pd[GPU_MAX_DIMS], ps[GPU_MAX_DIMS];
	int inv[GPU_MAX_DIMS], acc = 0, k, i, identity = 1;
	struct adv A;

	memset(&A, 0, sizeof(A));
	if (tv_get_tensor(c, ARG(0), 0, &x) || tv_get_tensor(c, ARG(2), 0, &v))
		return -1;
	if (!sh_is_none(ARG(3)) && tv_get_bool(c, ARG(3), &acc))
		return -1;
	k = expand_indices(c, x, ARG(1), idx);
	if (k < 0)
		return -1;
	if (!any_index(idx)) {
		/* no index: self[...] = values */
		sh_free_all(idx, GPU_MAX_DIMS);
		ve = sh_expand(c, v, x->rank, x->dims);
		if (!ve)
			return -1;
		if (acc) {
			y = sh_binary(c, GPU_ADD, x, ve, x->dtype, x->rank,
				      x->dims);
		} else {
			y = sh_copy_as(c, ve, x->dtype);
		}
		gpu_free(ve);
		return sh_finish(c, n, in, y, out);
	}
	if (adv_plan(c, x, idx, &A))
		goto done;
	x3 = adv_x3(c, x, &A);
	if (!x3)
		goto done;
	d3[0] = A.P;
	d3[1] = A.M;
	d3[2] = A.S;
	y3 = trace_empty(c, x->dtype, 3, d3);
	if (!y3)
		goto done;
	/* the values as [P, N, S] in x's dtype */
	vc = trace_cast(c, v, x->dtype);
	if (!vc)
		goto done;
	ve = sh_expand(c, vc, A.rrank, A.rdims);
	if (!ve) {
		goto done;
	}
	d3[1] = A.N;
	v3 = sh_reshape(c, ve, 3, d3);
	if (!v3)
		goto done;
	is3[0] = 0;
	is3[1] = A.flat->strides[0];
	is3[2] = 0;
	i3 = trace_view(c, A.flat, 3, d3, is3, A.flat->offset);
	if (!i3)
		goto done;
	if (A.N == 0 || A.P == 0 || A.S == 0) {
		if (gpu_numel(y3) && c->be->copy(x3, y3)) {
			trace_gpu_error(c);
			goto done;
		}
	} else if (c->be->scatter(x3, 1, i3, v3, acc, y3)) {
		trace_gpu_error(c);
		goto done;
	}
	/* back to x's dim order */
	for (i = 0; i < x->rank; i++) {
		pd[i] = x->dims[A.perm[i]];
		inv[A.perm[i]] = i;
		if (A.perm[i] != i)
			identity = 0;
	}
	gpu_contiguous_strides(x->rank, pd, ps);
	yp = trace_view(c, y3, x->rank, pd, ps, y3->offset);
	if (!yp)
		goto done;
	if (identity) {
		y = yp;
		yp = NULL;
	} else {
		struct gpu_tensor *t = sh_permute(c, yp, inv);

		if (t) {
			y = sh_copy(c, t);
			gpu_free(t);
		}
	}
done:
	sh_free_all(idx, GPU_MAX_DIMS);
	gpu_free(A.flat);
	gpu_free(x3);
	gpu_free(y3);
	gpu_free(vc);
	gpu_free(ve);
	gpu_free(v3);
	gpu_free(i3);
	gpu_free(yp);
	if (!y)
		return -1;
	return sh_finish(c, n, in, y, out);
}

/* --- masks, nonzero ------------------------------------------------------- */

/* flat positions of mask's nonzeros (mask broadcast to (rank, dims)) */
static struct gpu_tensor *mask_positions(struct trace_ctx *c,
					 const struct gpu_tensor *mask,
					 int rank, const int64_t *dims,
					 int64_t *count)
{
	struct gpu_tensor *me, *p;
	int64_t n, i, k = 0, *pos;
	double *v;

	if (mask->dtype != IR_DTYPE_BOOL && mask->dtype != IR_DTYPE_UINT8) {
		trace_error(c, "expected a boolean mask, got a tensor of "
			    "another dtype");
		return NULL;
	}
	me = sh_expand(c, mask, rank, dims);
	if (!me)
		return NULL;
	v = trace_to_host(c, me, IR_DTYPE_DOUBLE);
	n = gpu_numel(me);
	gpu_free(me);
	if (!v)
		return NULL;
	pos = malloc(sizeof(*pos) * (n ? n : 1));
	if (!pos) {
		free(v);
		trace_oom(c);
		return NULL;
	}
	for (i = 0; i < n; i++)
		if (v[i] != 0)
			pos[k++] = i;
	free(v);
	p = trace_from_host(c, IR_DTYPE_INT64, 1, &k, IR_DTYPE_INT64, pos);
	free(pos);
	*count = k;
	return p;
}

/* masked_select(self, mask) */
static int op_masked_select(struct trace_ctx *c, const struct ir_node *n,
			    struct tval **in, int nin, struct tval **out,
			    int nout)
{
	struct gpu_tensor *x, *m, *pos, *xe = NULL, *xf = NULL, *y = NULL;
	int64_t dims[GPU_MAX_DIMS], cnt, m1 = -1;
	int rank;

	if (tv_get_tensor(c, ARG(0), 0, &x) || tv_get_tensor(c, ARG(1), 0, &m))
		return -1;
	if (trace_broadcast_dims(c, x, m, &rank, dims))
		return -1;
	pos = mask_positions(c, m, rank, dims, &cnt);
	if (!pos)
		return -1;
	xe = sh_expand(c, x, rank, dims);
	if (xe)
		xf = sh_reshape(c, xe, 1, &m1);
	if (xf)
		y = sh_index_select(c, xf, 0, pos);
	gpu_free(pos);
	gpu_free(xe);
	gpu_free(xf);
	return trace_out(c, out, y);
}

/* masked_scatter(self, mask, source), masked_scatter_ */
static int op_masked_scatter(struct trace_ctx *c, const struct ir_node *n,
			     struct tval **in, int nin, struct tval **out,
			     int nout)
{
	struct gpu_tensor *x, *m, *s, *pos, *xf = NULL, *sf = NULL,
			  *sn = NULL, *yf = NULL, *y = NULL;
	int64_t dims[GPU_MAX_DIMS], cnt, m1 = -1;
	int rank;

	if (tv_get_tensor(c, ARG(0), 0, &x) ||
	    tv_get_tensor(c, ARG(1), 0, &m) || tv_get_tensor(c, ARG(2), 0, &s))
		return -1;
	if (trace_broadcast_dims(c, x, m, &rank, dims))
		return -1;
	if (sh_is_inplace(n) && (rank != x->rank ||
			      memcmp(dims, x->dims, sizeof(int64_t) * rank)))
		return trace_error(c, "masked_scatter_: the mask must "
				   "broadcast to self's shape");
	pos = mask_positions(c, m, rank, dims, &cnt);
	if (!pos)
		return -1;
	if (cnt > gpu_numel(s)) {
		gpu_free(pos);
		return trace_error(c, "masked_scatter: expected source to have "
				   "at least %lld elements, got %lld",
				   (long long)cnt, (long long)gpu_numel(s));
	}
	{
		struct gpu_tensor *xe = sh_expand(c, x, rank, dims);

		if (xe)
			xf = sh_reshape(c, xe, 1, &m1);
		gpu_free(xe);
	}
	sf = sh_reshape(c, s, 1, &m1);
	if (sf)
		sn = sh_narrow(c, sf, 0, 0, cnt, 1);
	if (xf && sn)
		yf = sh_scatter(c, xf, 0, pos, sn, 0);
	if (yf)
		y = sh_reshape(c, yf, rank, dims);
	gpu_free(pos);
	gpu_free(xf);
	gpu_free(sf);
	gpu_free(sn);
	gpu_free(yf);
	if (!y)
		return -1;
	return sh_finish(c, n, in, y, out);
}

static struct gpu_tensor *sh_nonzero(struct trace_ctx *c,
				     const struct gpu_tensor *x)
{
	int64_t cnt, *co, dims[2];
	struct gpu_tensor *y;

	co = host_nonzero(c, x, &cnt);
	if (!co)
		return NULL;
	dims[0] = cnt;
	dims[1] = x->rank;
	y = trace_from_host(c, IR_DTYPE_INT64, 2, dims, IR_DTYPE_INT64, co);
	free(co);
	return y;
}

/* nonzero(self), argwhere(self) */
static int op_nonzero(struct trace_ctx *c, const struct ir_node *n,
		      struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x;

	if (tv_get_tensor(c, ARG(0), 0, &x))
		return -1;
	return trace_out(c, out, sh_nonzero(c, x));
}

/* nonzero_numpy(self): one index tensor per dim */
static int op_nonzero_numpy(struct trace_ctx *c, const struct ir_node *n,
			    struct tval **in, int nin, struct tval **out,
			    int nout)
{
	struct gpu_tensor *x, *nz, *ys[GPU_MAX_DIMS];
	int i, r;

	if (tv_get_tensor(c, ARG(0), 0, &x))
		return -1;
	nz = sh_nonzero(c, x);
	if (!nz)
		return -1;
	r = x->rank;
	for (i = 0; i < r; i++) {
		struct gpu_tensor *col = sh_select(c, nz, 1, i);

		ys[i] = col ? sh_copy(c, col) : NULL;
		gpu_free(col);
		if (!ys[i]) {
			sh_free_all(ys, i);
			gpu_free(nz);
			return -1;
		}
	}
	gpu_free(nz);
	return sh_set_list(c, out, ys, r);
}

/* --- sorting -------------------------------------------------------------- */

/* values and indices of the k largest / smallest along axis a */
static int sh_topk(struct trace_ctx *c, const struct gpu_tensor *x, int a,
		   int64_t k, int largest, int sorted, struct gpu_tensor **vals,
		   struct gpu_tensor **idxs)
{
	struct gpu_tensor *x1, *v, *i;
	int64_t dims[GPU_MAX_DIMS];

	*vals = *idxs = NULL;
	x1 = sh_atleast1(c, x);
	if (!x1)
		return -1;
	if (k < 0 || k > x1->dims[a]) {
		gpu_free(x1);
		return trace_error(c, "selected index k out of range");
	}
	memcpy(dims, x1->dims, sizeof(dims));
	dims[a] = k;
	v = trace_empty(c, x->dtype, x1->rank, dims);
	i = v ? trace_empty(c, IR_DTYPE_INT64, x1->rank, dims) : NULL;
	if (!i) {
		gpu_free(v);
		gpu_free(x1);
		return -1;
	}
	if (gpu_numel(v) && c->be->topk(x1, a, k, largest, sorted, v, i)) {
		gpu_free(v);
		gpu_free(i);
		gpu_free(x1);
		return trace_gpu_error(c);
	}
	gpu_free(x1);
	if (x->rank == 0) {
		struct gpu_tensor *v0 = trace_view(c, v, 0, NULL, NULL, v->offset),
				  *i0 = trace_view(c, i, 0, NULL, NULL, i->offset);

		gpu_free(v);
		gpu_free(i);
		v = v0;
		i = i0;
		if (!v || !i) {
			gpu_free(v);
			gpu_free(i);
			return -1;
		}
	}
	*vals = v;
	*idxs = i;
	return 0;
}

static int set_pair(struct trace_ctx *c, struct tval **out, int nout,
		    struct gpu_tensor *v, struct gpu_tensor *i)
{
	if (trace_out(c, &out[0], v)) {
		gpu_free(i);
		return -1;
	}
	if (nout < 2) {
		gpu_free(i);
		return 0;
	}
	if (trace_out(c, &out[1], i)) {
		tv_unref(out[0]);
		out[0] = NULL;
		return -1;
	}
	return 0;
}

/* topk(self, k, dim=-1, largest=True, sorted=True) */
static int op_topk(struct trace_ctx *c, const struct ir_node *n,
		   struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x, *v, *i;
	int64_t k, d = -1;
	int largest = 1, sorted = 1, a;

	if (tv_get_tensor(c, ARG(0), 0, &x) || tv_get_int(c, ARG(1), &k))
		return -1;
	if ((!sh_is_none(ARG(2)) && tv_get_int(c, ARG(2), &d)) ||
	    (!sh_is_none(ARG(3)) && tv_get_bool(c, ARG(3), &largest)) ||
	    (!sh_is_none(ARG(4)) && tv_get_bool(c, ARG(4), &sorted)))
		return -1;
	if (trace_axis(c, d, x->rank, &a))
		return -1;
	if (sh_topk(c, x, a, k, largest, sorted, &v, &i))
		return -1;
	return set_pair(c, out, nout, v, i);
}

/* sort(self, dim=-1, descending=False), sort(self, stable, dim, desc),
 * argsort (the same two forms), msort(self) */
static int op_sort(struct trace_ctx *c, const struct ir_node *n,
		   struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x, *v, *i;
	int64_t d = -1;
	int desc = 0, a, base = 1;
	int arg = strstr(n->kind, "argsort") != NULL;

	if (sh_is_list(ARG(0)))
		return trace_error(c, "sorting a list is not supported");
	if (tv_get_tensor(c, ARG(0), 0, &x))
		return -1;
	if (n->op == OP_aten_msort) {
		d = 0;
	} else {
		/* the stable overload has (stable, dim, descending) */
		if (nin >= 4)
			base = 2;
		if ((!sh_is_none(ARG(base)) && tv_get_int(c, ARG(base), &d)) ||
		    (!sh_is_none(ARG(base + 1)) &&
		     tv_get_bool(c, ARG(base + 1), &desc)))
			return -1;
	}
	if (trace_axis(c, d, x->rank, &a))
		return -1;
	if (sh_topk(c, x, a, x->rank ? x->dims[a] : 1, desc, 1, &v, &i))
		return -1;
	if (arg) {
		gpu_free(v);
		return trace_out(c, out, i);
	}
	if (n->op == OP_aten_msort) {
		gpu_free(i);
		return trace_out(c, out, v);
	}
	return set_pair(c, out, nout, v, i);
}

/* kthvalue(self, k, dim=-1, keepdim=False) */
static int op_kthvalue(struct trace_ctx *c, const struct ir_node *n,
		       struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x, *v, *i, *vs = NULL, *is = NULL, *vk = NULL,
			  *ik = NULL;
	int64_t k, d = -1;
	int keep = 0, a;

	if (tv_get_tensor(c, ARG(0), 0, &x) || tv_get_int(c, ARG(1), &k))
		return -1;
	if ((!sh_is_none(ARG(2)) && tv_get_int(c, ARG(2), &d)) ||
	    (!sh_is_none(ARG(3)) && tv_get_bool(c, ARG(3), &keep)))
		return -1;
	if (trace_axis(c, d, x->rank, &a))
		return -1;
	if (k < 1 || k > (x->rank ? x->dims[a] : 1))
		return trace_error(c, "kthvalue(): selected number k out of "
				   "range for dimension %d", a);
	if (sh_topk(c, x, a, k, 0, 1, &v, &i))
		return -1;
	if (x->rank == 0)
		return set_pair(c, out, nout, v, i);
	vs = sh_select(c, v, a, k - 1);
	is = sh_select(c, i, a, k - 1);
	gpu_free(v);
	gpu_free(i);
	if (vs && is && keep) {
		vk = sh_unsqueeze(c, vs, a);
		ik = sh_unsqueeze(c, is, a);
		gpu_free(vs);
		gpu_free(is);
		vs = vk;
		is = ik;
	}
	if (!vs || !is) {
		gpu_free(vs);
		gpu_free(is);
		return -1;
	}
	v = sh_copy(c, vs);
	i = sh_copy(c, is);
	gpu_free(vs);
	gpu_free(is);
	if (!v || !i) {
		gpu_free(v);
		gpu_free(i);
		return -1;
	}
	return set_pair(c, out, nout, v, i);
}

/* --- unique --------------------------------------------------------------- */

static const double *cmp_vals;

static int cmp_idx(const void *pa, const void *pb)
{
	int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
	double va = cmp_vals[a], vb = cmp_vals[b];

	if (va < vb)
		return -1;
	if (va > vb)
		return 1;
	return a < b ? -1 : a > b;
}

/* unique over x's elements (flattened): sorted, or consecutive runs; sets
 * out[0] values, out[1] inverse (x's shape, or [0] when not asked),
 * out[2] counts (or [0]) */
static int sh_unique(struct trace_ctx *c, const struct gpu_tensor *x,
		     int consecutive, int inv_wanted, int cnt_wanted,
		     struct tval **out, int nout)
{
	int64_t n = gpu_numel(x), i, g = 0, *order, *first, *inv, *cnt, zero = 0,
		m1 = -1;
	struct gpu_tensor *xf = NULL, *fi = NULL, *vals = NULL, *ti = NULL,
			  *tc = NULL;
	double *v;
	int rc = -1;

	v = trace_to_host(c, x, IR_DTYPE_DOUBLE);
	if (!v)
		return -1;
	order = malloc(sizeof(*order) * (n ? n : 1));
	first = malloc(sizeof(*first) * (n ? n : 1));
	inv = malloc(sizeof(*inv) * (n ? n : 1));
	cnt = malloc(sizeof(*cnt) * (n ? n : 1));
	if (!order || !first || !inv || !cnt) {
		trace_oom(c);
		goto done;
	}
	for (i = 0; i < n; i++)
		order[i] = i;
	if (!consecutive) {
		cmp_vals = v;
		qsort(order, n, sizeof(*order), cmp_idx);
		cmp_vals = NULL;
	}
	for (i = 0; i < n; i++) {
		if (i == 0 || v[order[i]] != v[order[i - 1]]) {
			first[g] = order[i];
			cnt[g] = 0;
			g++;
		}
		cnt[g - 1]++;
		inv[order[i]] = g - 1;
	}
	xf = sh_reshape(c, x, 1, &m1);
	fi = xf ? trace_from_host(c, IR_DTYPE_INT64, 1, &g, IR_DTYPE_INT64,
				  first) : NULL;
	vals = fi ? sh_index_select(c, xf, 0, fi) : NULL;
	if (!vals)
		goto done;
	if (inv_wanted)
		ti = trace_from_host(c, IR_DTYPE_INT64, x->rank, x->dims,
				     IR_DTYPE_INT64, inv);
	else
		ti = trace_empty(c, IR_DTYPE_INT64, 1, &zero);
	if (cnt_wanted)
		tc = trace_from_host(c, IR_DTYPE_INT64, 1, &g, IR_DTYPE_INT64,
				     cnt);
	else
		tc = trace_empty(c, IR_DTYPE_INT64, 1, &zero);
	if (!ti || !tc)
		goto done;
	if (trace_out(c, &out[0], vals)) {
		vals = NULL;
		goto done;
	}
	vals = NULL;
	if (nout > 1) {
		if (trace_out(c, &out[1], ti)) {
			ti = NULL;
			goto undo;
		}
		ti = NULL;
	}
	if (nout > 2) {
		if (trace_out(c, &out[2], tc)) {
			tc = NULL;
			goto undo;
		}
		tc = NULL;
	}
	rc = 0;
	goto done;
undo:
	for (i = 0; i < nout && i < 3; i++) {
		tv_unref(out[i]);
		out[i] = NULL;
	}
done:
	free(v);
	free(order);
	free(first);
	free(inv);
	free(cnt);
	gpu_free(xf);
	gpu_free(fi);
	gpu_free(vals);
	gpu_free(ti);
	gpu_free(tc);
	return rc;
}

/* rows of length len compared lexicographically (unique_dim) */
static const double *cmp_rows;
static int64_t cmp_len;

static int cmp_row(const void *pa, const void *pb)
{
	int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb, i;

	for (i = 0; i < cmp_len; i++) {
		double va = cmp_rows[a * cmp_len + i],
		       vb = cmp_rows[b * cmp_len + i];

		if (va < vb)
			return -1;
		if (va > vb)
			return 1;
	}
	return a < b ? -1 : a > b;
}

/* unique_dim(self, dim, sorted=True, return_inverse=False,
 * return_counts=False): unique slices along dim, sorted; inverse and
 * counts are always computed (as torch does) */
static int op_unique_dim(struct trace_ctx *c, const struct ir_node *n,
			 struct tval **in, int nin, struct tval **out,
			 int nout)
{
	struct gpu_tensor *x, *xm = NULL, *fi = NULL, *vals = NULL,
			  *ti = NULL, *tc = NULL;
	int64_t d, rows, len, i, g = 0, *order = NULL, *first = NULL,
		*inv = NULL, *cnt = NULL;
	int a, perm[GPU_MAX_DIMS], j, rc = -1;
	double *v = NULL;

	if (tv_get_tensor(c, ARG(0), 0, &x) || tv_get_int(c, ARG(1), &d))
		return -1;
	if (trace_axis(c, d, x->rank, &a))
		return -1;
	if (x->rank == 0)
		return trace_error(c, "unique_dim of a 0-dim tensor");
	rows = x->dims[a];
	len = rows ? gpu_numel(x) / rows : 0;
	perm[0] = a;
	for (i = 0, j = 1; i < x->rank; i++)
		if (i != a)
			perm[j++] = (int)i;
	xm = sh_permute(c, x, perm);
	if (!xm)
		return -1;
	v = trace_to_host(c, xm, IR_DTYPE_DOUBLE);
	order = malloc(sizeof(*order) * (rows ? rows : 1));
	first = malloc(sizeof(*first) * (rows ? rows : 1));
	inv = malloc(sizeof(*inv) * (rows ? rows : 1));
	cnt = malloc(sizeof(*cnt) * (rows ? rows : 1));
	if (!v || !order || !first || !inv || !cnt) {
		if (v)
			trace_oom(c);
		goto done;
	}
	for (i = 0; i < rows; i++)
		order[i] = i;
	cmp_rows = v;
	cmp_len = len;
	qsort(order, rows, sizeof(*order), cmp_row);
	for (i = 0; i < rows; i++) {
		if (i == 0 || memcmp(v + order[i] * len, v + order[i - 1] * len,
				     sizeof(double) * len)) {
			first[g] = order[i];
			cnt[g] = 0;
			g++;
		}
		cnt[g - 1]++;
		inv[order[i]] = g - 1;
	}
	cmp_rows = NULL;
	fi = trace_from_host(c, IR_DTYPE_INT64, 1, &g, IR_DTYPE_INT64, first);
	vals = fi ? sh_index_select(c, x, a, fi) : NULL;
	ti = vals ? trace_from_host(c, IR_DTYPE_INT64, 1, &rows, IR_DTYPE_INT64,
				    inv) : NULL;
	tc = ti ? trace_from_host(c, IR_DTYPE_INT64, 1, &g, IR_DTYPE_INT64, cnt) : NULL;
	if (!tc)
		goto done;
	out[0] = tv_tensor(vals);
	vals = NULL;
	if (nout > 1) {
		out[1] = tv_tensor(ti);
		ti = NULL;
	}
	if (nout > 2) {
		out[2] = tv_tensor(tc);
		tc = NULL;
	}
	if (!out[0] || (nout > 1 && !out[1]) || (nout > 2 && !out[2])) {
		for (j = 0; j < nout && j < 3; j++) {
			tv_unref(out[j]);
			out[j] = NULL;
		}
		trace_oom(c);
		goto done;
	}
	rc = 0;
done:
	free(v);
	free(order);
	free(first);
	free(inv);
	free(cnt);
	gpu_free(xm);
	gpu_free(fi);
	gpu_free(vals);
	gpu_free(ti);
	gpu_free(tc);
	return rc;
}

/* _unique2(self, sorted=True, return_inverse=False, return_counts=False),
 * _unique(self, sorted=True, return_inverse=False),
 * unique_consecutive(self, return_inverse, return_counts, dim=None) */
static int op_unique(struct trace_ctx *c, const struct ir_node *n,
		     struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x;
	int consecutive = strstr(n->kind, "consecutive") != NULL;
	int ri = 0, rcnt = 0, b = consecutive ? 1 : 2;
	int plain = n->op == OP_aten__unique;

	if (tv_get_tensor(c, ARG(0), 0, &x))
		return -1;
	if ((!sh_is_none(ARG(b)) && tv_get_bool(c, ARG(b), &ri)) ||
	    (!plain && !sh_is_none(ARG(b + 1)) &&
	     tv_get_bool(c, ARG(b + 1), &rcnt)))
		return -1;
	if (consecutive && !sh_is_none(ARG(3)))
		return trace_error(c, "unique_consecutive with dim is not "
				   "supported");
	return sh_unique(c, x, consecutive, ri, rcnt, out, nout);
}

/* --- one_hot, searchsorted ---------------------------------------------- */

/* one_hot(self, num_classes=-1) */
static int op_one_hot(struct trace_ctx *c, const struct ir_node *n,
		      struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x, *z = NULL, *xi = NULL, *ones = NULL, *y = NULL;
	int64_t nc = -1, dims[GPU_MAX_DIMS], i, cnt, *h;
	struct tval one;

	if (tv_get_tensor(c, ARG(0), 0, &x))
		return -1;
	if (x->dtype != IR_DTYPE_INT64)
		return trace_error(c, "one_hot is only applicable to index "
				   "tensor.");
	if (!sh_is_none(ARG(1)) && tv_get_int(c, ARG(1), &nc))
		return -1;
	cnt = gpu_numel(x);
	if (nc == -1 && cnt == 0)
		return trace_error(c, "Can not infer total number of classes "
				   "from empty tensor.");
	h = trace_to_host(c, x, IR_DTYPE_INT64);
	if (!h)
		return -1;
	if (nc == -1) {
		for (i = 0; i < cnt; i++)
			if (h[i] + 1 > nc)
				nc = h[i] + 1;
	}
	for (i = 0; i < cnt; i++) {
		if (h[i] < 0) {
			free(h);
			return trace_error(c, "Class values must be "
					   "non-negative.");
		}
		if (h[i] >= nc) {
			free(h);
			return trace_error(c, "Class values must be smaller "
					   "than num_classes.");
		}
	}
	free(h);
	if (x->rank + 1 > GPU_MAX_DIMS)
		return trace_error(c, "one_hot of rank %d is not supported",
				   x->rank + 1);
	memcpy(dims, x->dims, sizeof(int64_t) * x->rank);
	dims[x->rank] = nc;
	z = trace_empty(c, IR_DTYPE_INT64, x->rank + 1, dims);
	if (!z || sh_fill(c, z, 0))
		goto done;
	if (cnt == 0 || nc == 0) {
		y = z;
		z = NULL;
		goto done;
	}
	xi = sh_unsqueeze(c, x, x->rank);
	memset(&one, 0, sizeof(one));
	one.kind = TV_INT;
	one.u.i = 1;
	if (xi)
		ones = sh_scalar_expanded(c, &one, IR_DTYPE_INT64, xi->rank,
					  xi->dims);
	if (ones)
		y = sh_scatter(c, z, x->rank, xi, ones, 0);
done:
	gpu_free(z);
	gpu_free(xi);
	gpu_free(ones);
	return trace_out(c, out, y);
}

/* searchsorted(sorted_sequence, self, out_int32, right, side, sorter),
 * bucketize(self, boundaries, out_int32, right): on the host */
static int op_searchsorted(struct trace_ctx *c, const struct ir_node *n,
			   struct tval **in, int nin, struct tval **out,
			   int nout)
{
	int bucket = strstr(n->kind, "bucketize") != NULL;
	const struct tval *seqv = bucket ? ARG(1) : ARG(0),
			  *selfv = bucket ? ARG(0) : ARG(1);
	struct gpu_tensor *seq, *self = NULL, *y = NULL;
	int out32 = 0, right = 0, own = 0;
	int64_t nseq, inner, rows, nself, per, i, *res = NULL;
	double *s = NULL, *q = NULL;

	if (tv_get_tensor(c, seqv, 0, &seq))
		return -1;
	if ((!sh_is_none(ARG(2)) && tv_get_bool(c, ARG(2), &out32)) ||
	    (!sh_is_none(ARG(3)) && tv_get_bool(c, ARG(3), &right)))
		return -1;
	if (!bucket && ARG(4) && ARG(4)->kind == TV_STR)
		right = !strcmp(ARG(4)->u.s, "right");
	if (!bucket && !sh_is_none(ARG(5)))
		return trace_error(c, "searchsorted with sorter is not "
				   "supported");
	if (selfv && selfv->kind == TV_TENSOR) {
		self = selfv->u.t;
	} else {
		self = sh_scalar(c, selfv, IR_DTYPE_DOUBLE);
		if (!self)
			return -1;
		own = 1;
	}
	if (seq->rank == 0)
		return trace_error(c, "boundaries tensor must be 1 dimension or "
				   "more");
	inner = seq->dims[seq->rank - 1];
	nseq = gpu_numel(seq);
	rows = inner ? nseq / inner : 0;
	nself = gpu_numel(self);
	if (seq->rank > 1) {
		if (self->rank != seq->rank ||
		    memcmp(self->dims, seq->dims,
			   sizeof(int64_t) * (seq->rank - 1))) {
			if (own)
				gpu_free(self);
			return trace_error(c, "boundaries and input must have "
					   "the same leading dimensions");
		}
		per = self->dims[self->rank - 1];
	} else {
		per = nself;
		rows = 1;
	}
	s = trace_to_host(c, seq, IR_DTYPE_DOUBLE);
	q = s ? trace_to_host(c, self, IR_DTYPE_DOUBLE) : NULL;
	res = q ? malloc(sizeof(*res) * (nself ? nself : 1)) : NULL;
	if (q && !res)
		trace_oom(c);
	if (res) {
		for (i = 0; i < nself; i++) {
			int64_t r = per ? i / per : 0, lo = 0, hi = inner;
			const double *b = s + (rows > 1 ? r * inner : 0);

			while (lo < hi) {
				int64_t mid = lo + (hi - lo) / 2;

				if (right ? b[mid] <= q[i] : b[mid] < q[i])
					lo = mid + 1;
				else
					hi = mid;
			}
			res[i] = lo;
		}
		y = trace_from_host(c, IR_DTYPE_INT64, self->rank, self->dims,
				    IR_DTYPE_INT64, res);
		if (y && out32) {
			struct gpu_tensor *t = sh_copy_as(c, y,
							  IR_DTYPE_INT32);

			gpu_free(y);
			y = t;
		}
	}
	free(s);
	free(q);
	free(res);
	if (own)
		gpu_free(self);
	return trace_out(c, out, y);
}

/* --- the table ------------------------------------------------------------ */

const struct trace_op trace_ops_shape[] = {
	/* reshaping */
	{ OP_aten_view, op_view, 0 },
	{ OP_aten_reshape, op_view, 0 },
	{ OP_aten__unsafe_view, op_view, 0 },
	{ OP_aten_view_as, op_view_as, 0 },
	{ OP_aten_reshape_as, op_view_as, 0 },
	{ OP_aten__reshape_from_tensor, op_reshape_from_tensor, 0 },
	{ OP_aten__shape_as_tensor, op_shape_as_tensor, 0 },
	{ OP_aten_flatten, op_flatten, 0 },
	{ OP_aten_unflatten, op_unflatten, 0 },
	{ OP_aten_ravel, op_ravel, 0 },
	/* permutations */
	{ OP_aten_permute, op_permute, 0 },
	{ OP_aten_transpose, op_transpose, 0 },
	{ OP_aten_transpose_, op_transpose, 0 },
	{ OP_aten_swapaxes, op_transpose, 0 },
	{ OP_aten_swapaxes_, op_transpose, 0 },
	{ OP_aten_swapdims, op_transpose, 0 },
	{ OP_aten_swapdims_, op_transpose, 0 },
	{ OP_aten_t, op_t, 0 },
	{ OP_aten_t_, op_t, 0 },
	{ OP_aten_numpy_T, op_numpy_t, 0 },
	{ OP_aten_T, op_numpy_t, 0 },
	{ OP_aten_mT, op_mt, 0 },
	{ OP_aten_mH, op_mt, 0 },
	{ OP_aten_adjoint, op_mt, 0 },
	{ OP_aten_movedim, op_movedim, 0 },
	{ OP_aten_moveaxis, op_movedim, 0 },
	{ OP_aten_unsqueeze, op_unsqueeze, 0 },
	{ OP_aten_unsqueeze_, op_unsqueeze, 0 },
	{ OP_aten_squeeze, op_squeeze, 0 },
	{ OP_aten_squeeze_, op_squeeze, 0 },
	/* expansion */
	{ OP_aten_expand, op_expand, 0 },
	{ OP_aten_broadcast_to, op_expand, 0 },
	{ OP_aten_expand_as, op_expand_as, 0 },
	{ OP_aten_broadcast_tensors, op_broadcast_tensors, 0 },
	{ OP_aten_meshgrid, op_meshgrid, 0 },
	/* slicing */
	{ OP_aten_select, op_select, 0 },
	{ OP_aten_slice, op_slice, 0 },
	{ OP_aten_narrow, op_narrow, 0 },
	{ OP_aten_split, op_split, 0 },
	{ OP_aten_split_with_sizes, op_split, 0 },
	{ OP_aten_unsafe_split, op_split, 0 },
	{ OP_aten_unsafe_split_with_sizes, op_split, 0 },
	{ OP_aten_chunk, op_chunk, 0 },
	{ OP_aten_unsafe_chunk, op_chunk, 0 },
	{ OP_aten_tensor_split, op_tensor_split, 0 },
	{ OP_aten_unbind, op_unbind, 0 },
	{ OP_aten_diagonal, op_diagonal, 0 },
	{ OP_aten_diag_embed, op_diag_embed, 0 },
	{ OP_aten_diag, op_diag, 0 },
	{ OP_aten_trace, op_trace, 0 },
	{ OP_aten_unfold, op_unfold, 0 },
	{ OP_aten_as_strided, op_as_strided, 0 },
	{ OP_aten_atleast_1d, op_atleast, 0 },
	{ OP_aten_atleast_2d, op_atleast, 0 },
	{ OP_aten_atleast_3d, op_atleast, 0 },
	/* joining, repetition */
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
	/* reordering */
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
	{ OP_aten_topk, op_topk, 0 },
	{ OP_aten_sort, op_sort, 0 },
	{ OP_aten_argsort, op_sort, 0 },
	{ OP_aten_msort, op_sort, 0 },
	{ OP_aten_kthvalue, op_kthvalue, 0 },
	{ OP_aten__unique2, op_unique, 0 },
	{ OP_aten__unique, op_unique, 0 },
	{ OP_aten_unique_dim, op_unique_dim, 0 },
	{ OP_aten_unique_consecutive, op_unique, 0 },
	/* indexing */
	{ OP_aten_index, op_index, 0 },
	{ OP_aten_index_put, op_index_put, 0 },
	{ OP_aten_index_put_, op_index_put, 0 },
	{ OP_aten__index_put_impl_, op_index_put, 0 },
	{ OP_aten_index_select, op_index_select, 0 },
	{ OP_aten_gather, op_gather, 0 },
	{ OP_aten_take, op_take, 0 },
	{ OP_aten_take_along_dim, op_take_along_dim, 0 },
	{ OP_aten_scatter, op_scatter, 0 },
	{ OP_aten_scatter_, op_scatter, 0 },
	{ OP_aten_scatter_add, op_scatter, 0 },
	{ OP_aten_scatter_add_, op_scatter, 0 },
	{ OP_aten_scatter_reduce, op_scatter, 0 },
	{ OP_aten_scatter_reduce_, op_scatter, 0 },
	{ OP_aten_index_fill, op_index_fca, 0 },
	{ OP_aten_index_fill_, op_index_fca, 0 },
	{ OP_aten_index_copy, op_index_fca, 0 },
	{ OP_aten_index_copy_, op_index_fca, 0 },
	{ OP_aten_index_add, op_index_fca, 0 },
	{ OP_aten_index_add_, op_index_fca, 0 },
	{ OP_aten_masked_select, op_masked_select, 0 },
	{ OP_aten_masked_scatter, op_masked_scatter, 0 },
	{ OP_aten_masked_scatter_, op_masked_scatter, 0 },
	{ OP_aten_nonzero, op_nonzero, 0 },
	{ OP_aten_argwhere, op_nonzero, 0 },
	{ OP_aten_nonzero_numpy, op_nonzero_numpy, 0 },
	{ OP_aten_one_hot, op_one_hot, 0 },
	{ OP_aten_searchsorted, op_searchsorted, 0 },
	{ OP_aten_bucketize, op_searchsorted, 0 },
	{ OP_torchvision_nms, op_nms, 0 },
	{ OP_torchvision_roi_align, op_roi_align, 0 },
	/* padding */
	{ OP_aten_constant_pad_nd, op_constant_pad_nd, 0 },
	{ OP_aten_pad, op_pad, 0 },
	{ OP_aten_reflection_pad1d, op_pad_mode, 0 },
	{ OP_aten_reflection_pad2d, op_pad_mode, 0 },
	{ OP_aten_reflection_pad3d, op_pad_mode, 0 },
	{ OP_aten_replication_pad1d, op_pad_mode, 0 },
	{ OP_aten_replication_pad2d, op_pad_mode, 0 },
	{ OP_aten_replication_pad3d, op_pad_mode, 0 },
	{ OP_aten__pad_circular, op_pad_mode, 0 },
	/* shuffles, patches, products */
	{ OP_aten_pixel_shuffle, op_pixel_shuffle, 0 },
	{ OP_aten_pixel_unshuffle, op_pixel_shuffle, 0 },
	{ OP_aten_channel_shuffle, op_channel_shuffle, 0 },
	{ OP_aten_native_channel_shuffle, op_channel_shuffle, 0 },
	{ OP_aten_im2col, op_im2col, 0 },
	{ OP_aten_col2im, op_col2im, 0 },
	{ OP_aten_cross, op_cross, 0 },
	{ OP_aten_linalg_cross, op_cross, 0 },
	{ OP_aten_outer, op_outer, 0 },
	{ OP_aten_ger, op_outer, 0 },
	{ OP_NONE, NULL, 0 },
};

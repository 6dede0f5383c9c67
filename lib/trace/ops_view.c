/*
 * ops_view.c - aten ops for `trace` (see trace_int.h) that torch implements as
 * views: view, reshape, flatten, permute, transpose, squeeze, unsqueeze,
 * expand, broadcast_to, select, slice, narrow, split, chunk, unbind,
 * diagonal, unfold, as_strided.  They return gpu_view()s sharing storage,
 * so that in-place writes through them behave as in torch.
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ops_shape.h"

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

/* view_as(self, other), reshape_as(self, other), expand_as(self, other):
 * self reshaped (expanded) to other's dims */
static int op_view_as(struct trace_ctx *c, const struct ir_node *n,
		      struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x, *o;

	if (tv_get_tensor(c, ARG(0), 0, &x) || tv_get_tensor(c, ARG(1), 0, &o))
		return -1;
	if (n->op == OP_aten_expand_as)
		return trace_out(c, out, sh_expand(c, x, o->rank, o->dims));
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
	if (trace_inplace(n))
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

/* mT, mH, adjoint, matrix_H (.H: 2-D only): the last two dims swapped
 * (real dtypes); a 0-d tensor is itself */
static int op_mt(struct trace_ctx *c, const struct ir_node *n,
		 struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x;
	int h = n->op == OP_aten_matrix_H;
	const char *what = h ? "H" : n->op == OP_aten_mH ? "mH" :
			   n->op == OP_aten_adjoint ? "adjoint()" : "mT";

	if (tv_get_tensor(c, ARG(0), 0, &x))
		return -1;
	if (x->rank == 0) /* torch: the 0-d tensor itself */
		return trace_out(c, out, sh_reshape(c, x, 0, x->dims));
	if (h && x->rank != 2)
		return trace_error(c, "tensor.H is only supported on matrices "
				   "(2-D tensors). Got %d-D tensor.", x->rank);
	if (x->rank < 2)
		return trace_error(c, "tensor.%s is only supported on matrices "
				   "or batches of matrices. Got %d-D tensor.",
				   what, x->rank);
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
	unsigned mask = ~0u;

	if (tv_get_tensor(c, ARG(0), 0, &x))
		return -1;
	if (!sh_is_none(ARG(1)) && sh_dims_mask(c, ARG(1), x->rank, 1, &mask))
		return -1;
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

/* a list's tensors and what sh_make_list's makers below do to each */
struct each {
	struct gpu_tensor **ts;
	int rank;	/* broadcast_tensors: the shape; meshgrid: dims;
			 * atleast: the least rank */
	int64_t dims[GPU_MAX_DIMS];
	int swap;	/* meshgrid: the first two grids' places swapped */
};

static struct gpu_tensor *make_expanded(struct trace_ctx *c, int i,
					void *arg)
{
	struct each *e = arg;

	return sh_expand(c, e->ts[i], e->rank, e->dims);
}

/* broadcast_tensors(tensors) */
static int op_broadcast_tensors(struct trace_ctx *c, const struct ir_node *n,
				struct tval **in, int nin, struct tval **out,
				int nout)
{
	struct each e;
	int k, rc;

	if (sh_get_tensor_list(c, ARG(0), &e.ts, &k))
		return -1;
	rc = sh_broadcast_all(c, e.ts, k, &e.rank, e.dims);
	if (!rc)
		rc = sh_make_list(c, out, k, make_expanded, &e);
	free(e.ts);
	return rc;
}

/* meshgrid's grid i: tensor i's elements along dim i of dims (with the
 * first two tensors' places swapped and their grids swapped back, as torch
 * does for "xy": it does not transpose them) */
static struct gpu_tensor *make_grid(struct trace_ctx *c, int i, void *arg)
{
	struct each *e = arg;
	int64_t strides[GPU_MAX_DIMS];
	int p = e->swap && i < 2 ? 1 - i : i, j;

	for (j = 0; j < e->rank; j++)
		strides[j] = 0;
	strides[p] = e->ts[p]->rank ? e->ts[p]->strides[0] : 0;
	return trace_view(c, e->ts[p], e->rank, e->dims, strides,
			  e->ts[p]->offset);
}

/* meshgrid(tensors), meshgrid(tensors, indexing) */
static int op_meshgrid(struct trace_ctx *c, const struct ir_node *n,
		       struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor **ts;
	struct each e;
	int k, i, rc, xy = 0;

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
		e.dims[i] = gpu_numel(ts[i]);
	}
	e.ts = ts;
	e.rank = k;
	e.swap = xy;
	rc = sh_make_list(c, out, k, make_grid, &e);
	free(ts);
	return rc;
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

/* x's pieces along axis a: split's of the given sizes (made in order,
 * off where the next begins), unbind's selections (sizes NULL) */
struct pieces {
	const struct gpu_tensor *x;
	int a;
	const int64_t *sizes;
	int64_t off;
};

static struct gpu_tensor *make_piece(struct trace_ctx *c, int i, void *arg)
{
	struct pieces *p = arg;
	struct gpu_tensor *y;

	if (!p->sizes)
		return sh_select(c, p->x, p->a, i);
	y = sh_narrow(c, p->x, p->a, p->off, p->sizes[i], 1);
	p->off += p->sizes[i];
	return y;
}

/* out = list of views of x along axis a with the given sizes */
static int split_sizes(struct trace_ctx *c, const struct gpu_tensor *x, int a,
		       const int64_t *sizes, int k, struct tval **out)
{
	struct pieces p = { x, a, sizes, 0 };

	return sh_make_list(c, out, k, make_piece, &p);
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

/* The view op whose *_copy form op is (functionalized graphs), or
 * OP_NONE. */
static enum aten_op view_of_copy(enum aten_op op)
{
	switch (op) {
	case OP_aten_view_copy: return OP_aten_view;
	case OP_aten_permute_copy: return OP_aten_permute;
	case OP_aten_expand_copy: return OP_aten_expand;
	case OP_aten_squeeze_copy: return OP_aten_squeeze;
	case OP_aten_unsqueeze_copy: return OP_aten_unsqueeze;
	case OP_aten_t_copy: return OP_aten_t;
	case OP_aten_transpose_copy: return OP_aten_transpose;
	case OP_aten_slice_copy: return OP_aten_slice;
	case OP_aten_select_copy: return OP_aten_select;
	case OP_aten_detach_copy: return OP_aten_detach;
	case OP_aten_alias_copy: return OP_aten_alias;
	case OP_aten_diagonal_copy: return OP_aten_diagonal;
	case OP_aten_unbind_copy: return OP_aten_unbind;
	case OP_aten_split_copy: return OP_aten_split;
	case OP_aten_split_with_sizes_copy: return OP_aten_split_with_sizes;
	case OP_aten_as_strided_copy: return OP_aten_as_strided;
	default: return OP_NONE;
	}
}

/* *pv's tensors as new contiguous tensors of their own storage, in new
 * values (a kernel may return its input's value itself) */
static int own_copy(struct trace_ctx *c, struct tval **pv)
{
	struct tval *v = *pv;
	if (v->kind == TV_LIST || v->kind == TV_TUPLE) {
		if (v->refs > 1)
			return trace_error(c, "a list the view shares");
		for (int i = 0; i < v->u.list.n; i++)
			if (own_copy(c, &v->u.list.items[i]))
				return -1;
		return 0;
	}
	if (v->kind != TV_TENSOR)
		return 0;
	struct gpu_tensor *t = v->u.t;
	struct gpu_tensor *y = trace_empty(c, t->dtype, t->rank, t->dims);
	if (!y || trace_write_into(c, y, t)) {
		gpu_free(y);
		return -1;
	}
	struct tval *nv = tv_tensor(y);	/* frees y when it fails */
	if (!nv)
		return trace_oom(c);
	tv_unref(v);
	*pv = nv;
	return 0;
}

/* the *_copy forms of the view ops: the view's kernel (on the node as
 * the view op), its results then copied into storage of their own */
static int op_view_copy(struct trace_ctx *c, const struct ir_node *n,
			struct tval **in, int nin, struct tval **out, int nout)
{
	enum aten_op v = view_of_copy(n->op);
	const struct trace_op *r = trace_group_op(v, TRACE_TENSOR);
	struct ir_node as = *n;

	if (!r)
		return trace_error(c, "no kernel for the view of %s", n->kind);
	as.op = v;
	as.kind = aten_op_name(v);
	if (r->fn(c, &as, in, nin, out, nout))
		return -1;
	for (int i = 0; i < nout; i++)
		if (out[i] && own_copy(c, &out[i]))
			return -1;
	return 0;
}

/* hsplit (dim 1, 0 of a 1-d tensor), vsplit (0), dsplit (2) of self by
 * sections (which must divide the dim, as torch checks) or indices:
 * tensor_split at that dim */
static int op_hvd_split(struct trace_ctx *c, const struct ir_node *n,
			struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x;
	int64_t sec, d;
	int need = n->op == OP_aten_dsplit ? 3 : n->op == OP_aten_vsplit ? 2 : 1;
	const char *name = n->op == OP_aten_dsplit ? "dsplit" :
			   n->op == OP_aten_vsplit ? "vsplit" : "hsplit";

	if (nin < 2 || tv_get_tensor(c, in[0], 0, &x))
		return nin < 2 ? trace_error(c, "%s expects 2 arguments", name)
			       : -1;
	if (x->rank < need)
		return trace_error(c, "torch.%s requires a tensor with at least "
				   "%d dimension, but got a tensor with %d "
				   "dimensions!", name, need, x->rank);
	d = n->op == OP_aten_dsplit ? 2 : n->op == OP_aten_vsplit ? 0 :
	    x->rank == 1 ? 0 : 1;
	if (in[1] && in[1]->kind == TV_INT) {
		if (tv_get_int(c, in[1], &sec))
			return -1;
		if (sec == 0 || x->dims[d] % sec)
			return trace_error(c, "torch.%s attempted to split along "
					   "dimension %lld, but the size of the "
					   "dimension %lld is not divisible by "
					   "the split_size %lld!", name,
					   (long long)d, (long long)x->dims[d],
					   (long long)sec);
	}
	struct tval *a[3] = { in[0], in[1], tv_int(d) };
	if (!a[2])
		return trace_oom(c);
	int rc = op_tensor_split(c, n, a, 3, out, nout);
	tv_unref(a[2]);
	return rc;
}

/* unbind(self, dim=0) */
static int op_unbind(struct trace_ctx *c, const struct ir_node *n,
		     struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x;
	int64_t d = 0;
	int a;

	if (tv_get_tensor(c, ARG(0), 0, &x))
		return -1;
	if (!sh_is_none(ARG(1)) && tv_get_int(c, ARG(1), &d))
		return -1;
	if (x->rank == 0)
		return trace_error(c, "Dimension specified as 0 but tensor "
				   "has no dimensions");
	if (trace_axis(c, d, x->rank, &a))
		return -1;
	if (x->dims[a] > INT_MAX)
		return trace_oom(c); /* a list of more than INT_MAX tensors */
	{
		struct pieces p = { x, a, NULL, 0 };

		return sh_make_list(c, out, (int)x->dims[a], make_piece, &p);
	}
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

static struct gpu_tensor *make_atleast(struct trace_ctx *c, int i, void *arg)
{
	struct each *e = arg;

	return sh_atleast(c, e->ts[i], e->rank);
}

/* atleast_Nd(self) and atleast_Nd(tensors) */
static int op_atleast(struct trace_ctx *c, const struct ir_node *n,
		      struct tval **in, int nin, struct tval **out, int nout)
{
	int nd = trace_op_dims(n->op);
	struct each e;
	int k, rc;

	if (!sh_is_list(ARG(0))) {
		struct gpu_tensor *x;

		if (tv_get_tensor(c, ARG(0), 0, &x))
			return -1;
		return trace_out(c, out, sh_atleast(c, x, nd));
	}
	if (sh_get_tensor_list(c, ARG(0), &e.ts, &k))
		return -1;
	e.rank = nd;
	rc = sh_make_list(c, out, k, make_atleast, &e);
	free(e.ts);
	return rc;
}

/* --- the table ------------------------------------------------------------ */

const struct trace_op trace_ops_view[] = {
	{ OP_aten_view, op_view, 0 },
	{ OP_aten_view_copy, op_view_copy, 0 },
	{ OP_aten_permute_copy, op_view_copy, 0 },
	{ OP_aten_expand_copy, op_view_copy, 0 },
	{ OP_aten_squeeze_copy, op_view_copy, 0 },
	{ OP_aten_unsqueeze_copy, op_view_copy, 0 },
	{ OP_aten_t_copy, op_view_copy, 0 },
	{ OP_aten_transpose_copy, op_view_copy, 0 },
	{ OP_aten_slice_copy, op_view_copy, 0 },
	{ OP_aten_select_copy, op_view_copy, 0 },
	{ OP_aten_detach_copy, op_view_copy, 0 },
	{ OP_aten_alias_copy, op_view_copy, 0 },
	{ OP_aten_diagonal_copy, op_view_copy, 0 },
	{ OP_aten_unbind_copy, op_view_copy, 0 },
	{ OP_aten_split_copy, op_view_copy, 0 },
	{ OP_aten_split_with_sizes_copy, op_view_copy, 0 },
	{ OP_aten_as_strided_copy, op_view_copy, 0 },
	{ OP_aten_reshape, op_view, 0 },
	{ OP_aten__unsafe_view, op_view, 0 },
	{ OP_aten_view_as, op_view_as, 0 },
	{ OP_aten_reshape_as, op_view_as, 0 },
	{ OP_aten__reshape_from_tensor, op_reshape_from_tensor, 0 },
	{ OP_aten__shape_as_tensor, op_shape_as_tensor, 0 },
	{ OP_aten_flatten, op_flatten, 0 },
	{ OP_aten_unflatten, op_unflatten, 0 },
	{ OP_aten_ravel, op_ravel, 0 },
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
	{ OP_aten_matrix_H, op_mt, 0 },
	{ OP_aten_movedim, op_movedim, 0 },
	{ OP_aten_moveaxis, op_movedim, 0 },
	{ OP_aten_unsqueeze, op_unsqueeze, 0 },
	{ OP_aten_unsqueeze_, op_unsqueeze, 0 },
	{ OP_aten_squeeze, op_squeeze, 0 },
	{ OP_aten_squeeze_, op_squeeze, 0 },
	{ OP_aten_expand, op_expand, 0 },
	{ OP_aten_broadcast_to, op_expand, 0 },
	{ OP_aten_expand_as, op_view_as, 0 },
	{ OP_aten_broadcast_tensors, op_broadcast_tensors, 0 },
	{ OP_aten_meshgrid, op_meshgrid, 0 },
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
	{ OP_aten_hsplit, op_hvd_split, 0 },
	{ OP_aten_vsplit, op_hvd_split, 0 },
	{ OP_aten_dsplit, op_hvd_split, 0 },
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
	{ OP_NONE, NULL, 0 },
};

/*
 * ops_index.c - indexing ops for `trace` (see trace_int.h): gather,
 * scatter, index_select, index (advanced indexing), index_put, masks,
 * nonzero, one_hot, searchsorted.  Data-dependent shapes (nonzero, masks)
 * are computed on the host from a download.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ops_shape.h"

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

struct gpu_tensor *sh_rank0(struct trace_ctx *c, struct gpu_tensor *t)
{
	struct gpu_tensor *v;

	if (!t)
		return NULL;
	v = trace_view(c, t, 0, NULL, NULL, t->offset);
	gpu_free(t);
	return v;
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
	if (x->rank == 0)
		y = sh_rank0(c, y);
	gpu_free(it);
	gpu_free(x1);
	return y;
}

/* gather's and scatter's index, of x's rank (or both of rank <= 1) and of
 * integers: *it as int64, *x1 and *i1 x and it viewed at rank >= 1 (the
 * caller frees all three, set or NULL); 0 or -1 (reported, messages naming
 * x xname and the index what) */
static int gather_index(struct trace_ctx *c, const struct gpu_tensor *x,
			const struct gpu_tensor *index, const char *xname,
			const char *what, struct gpu_tensor **it,
			struct gpu_tensor **x1, struct gpu_tensor **i1)
{
	*it = *x1 = *i1 = NULL;
	if (index->rank != x->rank && !(x->rank <= 1 && index->rank <= 1))
		return trace_error(c, "Index tensor must have the same number "
				   "of dimensions as %s tensor", xname);
	*it = sh_index64(c, index, what);
	if (!*it)
		return -1;
	*x1 = sh_atleast1(c, x);
	*i1 = sh_atleast1(c, *it);
	return *x1 && *i1 ? 0 : -1;
}

/* gather(x, a, index) with index of x's rank */
static struct gpu_tensor *sh_gather(struct trace_ctx *c,
				    const struct gpu_tensor *x, int a,
				    const struct gpu_tensor *index)
{
	struct gpu_tensor *it, *x1, *i1, *y = NULL;
	int i;

	if (gather_index(c, x, index, "input", "gather(): index", &it, &x1,
			 &i1))
		goto done;
	for (i = 0; i < x1->rank; i++)
		if (i != a && i1->dims[i] > x1->dims[i]) {
			trace_error(c, "Size does not match at dimension %d "
				    "expected index %lld to be smaller than "
				    "self %lld apart from dimension %d", i,
				    (long long)i1->dims[i],
				    (long long)x1->dims[i], a);
			goto done;
		}
	y = trace_empty(c, x->dtype, i1->rank, i1->dims);
	if (y && gpu_numel(y) && c->be->gather(x1, a, i1, y)) {
		trace_gpu_error(c);
		gpu_free(y);
		y = NULL;
	}
	if (it->rank == 0)
		y = sh_rank0(c, y);
done:
	gpu_free(it);
	gpu_free(x1);
	gpu_free(i1);
	return y;
}

/* gather(self, dim, index, sparse_grad=False), index_select(self, dim,
 * index) */
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
	if (n->op == OP_aten_index_select)
		return trace_out(c, out, sh_index_select(c, x, a, idx));
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
	struct gpu_tensor *it, *x1, *i1, *s1 = NULL, *sv = NULL, *sc = NULL,
			  *y = NULL;
	int i;

	if (gather_index(c, x, index, "self", "scatter(): index", &it, &x1,
			 &i1))
		goto done;
	s1 = sh_atleast1(c, src);
	if (!s1)
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
	if (x->rank == 0)
		y = sh_rank0(c, y);
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
		s = sh_rank0(c, s);
		if (!s)
			return NULL;
	}
	e = sh_expand(c, s, rank, dims);
	gpu_free(s);
	return e;
}

/* scatter(self, dim, index, src | value, [reduce="add"]), scatter_,
 * scatter_add, scatter_add_ (scatter_reduce: ops_index_host.c) */
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
	if (n->op == OP_aten_scatter_add || n->op == OP_aten_scatter_add_)
		op = 1;
	if (ARG(4) && ARG(4)->kind == TV_STR)
		reduce = ARG(4)->u.s;
	if (reduce) {
		if (!strcmp(reduce, "add"))
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
			own = sh_rank0(c, own);
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

/* index_add's source s (at least 1-d) as a view of dims (self's with dim
 * a the index's length): torch 1.13 adds source.select(a, i) to
 * self.select(a, index[i]), broadcasting the slice, so the source's other
 * dims align with self's from the right (stride 0 where broadcast); NULL
 * (no error set) where they cannot */
static struct gpu_tensor *index_add_source(struct trace_ctx *c,
					   const struct gpu_tensor *s, int a,
					   int r, const int64_t *dims)
{
	int64_t st[GPU_MAX_DIMS];
	int i, q, lead = r - s->rank;

	if (lead < 0 || a >= s->rank || s->dims[a] != dims[a])
		return NULL;
	for (i = 0; i < r; i++) {
		if (i == a) {
			st[i] = s->strides[a];
			continue;
		}
		/* self's i-th other dim is the source's q-th other dim */
		q = (i < a ? i : i - 1) - lead;
		if (q < 0) {
			st[i] = 0;
			continue;
		}
		q = q < a ? q : q + 1;
		if (s->dims[q] != dims[i] && s->dims[q] != 1)
			return NULL;
		st[i] = s->dims[q] == dims[i] ? s->strides[q] : 0;
	}
	return trace_view(c, s, r, dims, st, s->offset);
}

/* index_fill(self, dim, index, value), index_copy(self, dim, index,
 * source), index_add(self, dim, index, source, alpha=1) and their in-place
 * forms */
static int op_index_fca(struct trace_ctx *c, const struct ir_node *n,
			struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x, *idx, *it = NULL, *ie = NULL, *src = NULL,
			  *y = NULL;
	int kind = n->op == OP_aten_index_fill || n->op == OP_aten_index_fill_ ?
		   0 : n->op == OP_aten_index_copy ||
		   n->op == OP_aten_index_copy_ ? 1 : 2;
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
		if (kind == 2 && (s1->rank != ie->rank ||
				  memcmp(s1->dims, dims,
					 sizeof(int64_t) * ie->rank))) {
			struct gpu_tensor *b = index_add_source(c, s1, a,
								ie->rank,
								dims);

			if (b) {
				gpu_free(s1);
				s1 = b;
			}
		}
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

/* index's and index_put's start: A planned for x and idx, *x3 x viewed as
 * [P, M, S] and *y3 a new tensor of x's dtype shaped [P, M, S] (put) or
 * [P, N, S] (the result of indexing); 0 or -1 (reported; what is set is
 * the caller's to free) */
static int adv_begin(struct trace_ctx *c, const struct gpu_tensor *x,
		     struct gpu_tensor **idx, struct adv *A, int put,
		     struct gpu_tensor **x3, struct gpu_tensor **y3)
{
	int64_t d3[3];

	if (adv_plan(c, x, idx, A))
		return -1;
	*x3 = adv_x3(c, x, A);
	if (!*x3)
		return -1;
	d3[0] = A->P;
	d3[1] = put ? A->M : A->N;
	d3[2] = A->S;
	*y3 = trace_empty(c, x->dtype, 3, d3);
	return *y3 ? 0 : -1;
}

/* index(self, indices) */
static int op_index(struct trace_ctx *c, const struct ir_node *n,
		    struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x, *idx[GPU_MAX_DIMS], *x3 = NULL, *y3 = NULL,
			  *y = NULL;
	struct adv A;
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
	if (adv_begin(c, x, idx, &A, 0, &x3, &y3))
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
	if (adv_begin(c, x, idx, &A, 1, &x3, &y3))
		goto done;
	/* the values as [P, N, S] in x's dtype */
	vc = trace_cast(c, v, x->dtype);
	if (!vc)
		goto done;
	ve = sh_expand(c, vc, A.rrank, A.rdims);
	if (!ve) {
		goto done;
	}
	d3[0] = A.P;
	d3[1] = A.N;
	d3[2] = A.S;
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
	if (trace_inplace(n) && (rank != x->rank ||
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
	int bucket = n->op == OP_aten_bucketize;
	const struct tval *seqv = bucket ? ARG(1) : ARG(0),
			  *selfv = bucket ? ARG(0) : ARG(1);
	struct gpu_tensor *seq, *self = NULL, *y = NULL, *sorter = NULL;
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
	if (!bucket && !sh_is_none(ARG(5)) &&
	    tv_get_tensor(c, ARG(5), 0, &sorter))
		return -1;
	if (sorter && (sorter->rank != seq->rank ||
		       memcmp(sorter->dims, seq->dims,
			      sizeof(int64_t) * seq->rank) ||
		       sorter->dtype != IR_DTYPE_INT64))
		return trace_error(c, "sorter must be a long tensor of the "
				   "boundaries' size");
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
	if (s && sorter) {
		/* the boundaries in sorter's order, row by row */
		int64_t *so = trace_to_host(c, sorter, IR_DTYPE_INT64);
		double *t = NULL;
		if (so && !(t = malloc(sizeof(*t) * (nseq ? nseq : 1))))
			trace_oom(c);
		for (i = 0; t && i < nseq; i++) {
			int64_t k = so[i];
			if (k < 0 || k >= inner) {
				trace_error(c, "sorter index out of range");
				free(t);
				t = NULL;
				break;
			}
			t[i] = s[i - i % inner + k];
		}
		free(so);
		free(s);
		s = t;
	}
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

				/* as torch: a NaN value goes right */
				if (right ? !(b[mid] > q[i])
					  : !(b[mid] >= q[i]))
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

const struct trace_op trace_ops_index[] = {
	{ OP_aten_index, op_index, 0 },
	{ OP_aten__unsafe_index, op_index, 0 },
	{ OP_aten_index_put, op_index_put, 0 },
	{ OP_aten__unsafe_index_put, op_index_put, 0 },
	{ OP_aten_index_put_, op_index_put, 0 },
	{ OP_aten__index_put_impl_, op_index_put, 0 },
	{ OP_aten_index_select, op_gather, 0 },
	{ OP_aten_gather, op_gather, 0 },
	{ OP_aten_take, op_take, 0 },
	{ OP_aten_take_along_dim, op_take_along_dim, 0 },
	{ OP_aten_scatter, op_scatter, 0 },
	{ OP_aten_scatter_, op_scatter, 0 },
	{ OP_aten_scatter_add, op_scatter, 0 },
	{ OP_aten_scatter_add_, op_scatter, 0 },
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
	{ OP_NONE, NULL, 0 },
};

/*
 * ops_sort.c - sorting ops for `trace` (see trace_int.h): sort, argsort,
 * msort, topk, kthvalue, unique and its variants.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ops_shape.h"

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
		v = sh_rank0(c, v);
		i = sh_rank0(c, i);
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
	int arg = n->op == OP_aten_argsort;

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

/* rows of len doubles compared lexicographically, ties by position
 * (qsort_r's comparator over row numbers) */
struct row_set {
	const double *v;
	int64_t len;
};

static int cmp_row(const void *pa, const void *pb, void *ctx)
{
	const struct row_set *rs = ctx;
	int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb, i;

	for (i = 0; i < rs->len; i++) {
		double va = rs->v[a * rs->len + i], vb = rs->v[b * rs->len + i];

		if (va < vb)
			return -1;
		if (va > vb)
			return 1;
	}
	return a < b ? -1 : a > b;
}

/* the groups of equal rows among v's rows (len doubles each), for unique
 * and unique_dim */
struct uniq {
	int64_t *order;	/* the rows, sorted when asked */
	int64_t *first;	/* each group's first row in order */
	int64_t *inv;	/* each row's group */
	int64_t *cnt;	/* each group's size */
	int64_t g;	/* the number of groups */
};

static void uniq_free(struct uniq *u)
{
	free(u->order);
	free(u->first);
	free(u->inv);
	free(u->cnt);
}

/* u's groups: rows in their order or sorted (sort), a new group where a
 * row differs from the one before it: by value (!=, so 0 and -0 are one
 * group and each NaN its own) or by its bytes (bits); 0 or -1 (out of
 * memory, reported) */
static int uniq_find(struct trace_ctx *c, const double *v, int64_t rows,
		     int64_t len, int sort, int bits, struct uniq *u)
{
	int64_t i, m = rows ? rows : 1;

	u->order = malloc(sizeof(*u->order) * m);
	u->first = malloc(sizeof(*u->first) * m);
	u->inv = malloc(sizeof(*u->inv) * m);
	u->cnt = malloc(sizeof(*u->cnt) * m);
	u->g = 0;
	if (!u->order || !u->first || !u->inv || !u->cnt)
		return trace_oom(c);
	for (i = 0; i < rows; i++)
		u->order[i] = i;
	if (sort) {
		struct row_set rs = { v, len };

		qsort_r(u->order, rows, sizeof(*u->order), cmp_row, &rs);
	}
	for (i = 0; i < rows; i++) {
		const double *r = v + u->order[i] * len;
		int differs = i == 0;

		if (!differs && bits)
			differs = memcmp(r, v + u->order[i - 1] * len,
					 sizeof(double) * len) != 0;
		else if (!differs)
			differs = *r != v[u->order[i - 1] * len];
		if (differs) {
			u->first[u->g] = u->order[i];
			u->cnt[u->g] = 0;
			u->g++;
		}
		u->cnt[u->g - 1]++;
		u->inv[u->order[i]] = u->g - 1;
	}
	return 0;
}

/* unique's outputs from v, x's rows along axis a (len doubles each, as
 * uniq_find groups them): out[0] x's first row of each group; where nout
 * asks, out[1] each row's group (shaped inv_rank, inv_dims; [0] when
 * inv_rank < 0) and out[2] each group's size ([0] unless cnt_wanted);
 * 0, or -1 (reported) with out cleared */
static int unique_rows(struct trace_ctx *c, const struct gpu_tensor *x,
		       int a, const double *v, int64_t rows, int64_t len,
		       int sort, int bits, int inv_rank, const int64_t *inv_dims,
		       int cnt_wanted, struct tval **out, int nout)
{
	struct uniq u = { 0 };
	struct gpu_tensor *fi = NULL, *ts[3] = { NULL, NULL, NULL };
	int64_t zero = 0;
	int i, j, rc = -1;

	if (uniq_find(c, v, rows, len, sort, bits, &u))
		goto done;
	fi = trace_from_host(c, IR_DTYPE_INT64, 1, &u.g, IR_DTYPE_INT64,
			     u.first);
	ts[0] = fi ? sh_index_select(c, x, a, fi) : NULL;
	if (!ts[0])
		goto done;
	if (inv_rank >= 0)
		ts[1] = trace_from_host(c, IR_DTYPE_INT64, inv_rank, inv_dims,
					IR_DTYPE_INT64, u.inv);
	else
		ts[1] = trace_empty(c, IR_DTYPE_INT64, 1, &zero);
	if (cnt_wanted)
		ts[2] = trace_from_host(c, IR_DTYPE_INT64, 1, &u.g,
					IR_DTYPE_INT64, u.cnt);
	else
		ts[2] = trace_empty(c, IR_DTYPE_INT64, 1, &zero);
	if (!ts[1] || !ts[2])
		goto done;
	for (i = 0; i < 3; i++) {
		struct gpu_tensor *t = ts[i];

		ts[i] = NULL;
		if (i && i >= nout) {
			gpu_free(t);
			continue;
		}
		if (trace_out(c, &out[i], t)) {
			for (j = 0; j < i; j++) {
				tv_unref(out[j]);
				out[j] = NULL;
			}
			goto done;
		}
	}
	rc = 0;
done:
	uniq_free(&u);
	gpu_free(fi);
	sh_free_all(ts, 3);
	return rc;
}

/* unique over x's elements (flattened): sorted, or consecutive runs; sets
 * out[0] values, out[1] inverse (x's shape, or [0] when not asked),
 * out[2] counts (or [0]) */
static int sh_unique(struct trace_ctx *c, const struct gpu_tensor *x,
		     int consecutive, int inv_wanted, int cnt_wanted,
		     struct tval **out, int nout)
{
	int64_t m1 = -1;
	struct gpu_tensor *xf;
	double *v;
	int rc = -1;

	v = trace_to_host(c, x, IR_DTYPE_DOUBLE);
	if (!v)
		return -1;
	xf = sh_reshape(c, x, 1, &m1);
	if (xf)
		rc = unique_rows(c, xf, 0, v, gpu_numel(x), 1, !consecutive, 0,
				 inv_wanted ? x->rank : -1, x->dims,
				 cnt_wanted, out, nout);
	free(v);
	gpu_free(xf);
	return rc;
}

/* unique_dim(self, dim, sorted=True, return_inverse=False,
 * return_counts=False): unique slices along dim, sorted; inverse and
 * counts are always computed (as torch does); unique_consecutive(self,
 * return_inverse, return_counts, dim) with a dim: the runs of equal
 * slices (torch's same template, consecutive) */
static int op_unique_dim(struct trace_ctx *c, const struct ir_node *n,
			 struct tval **in, int nin, struct tval **out,
			 int nout)
{
	struct gpu_tensor *x, *xm;
	int64_t d, rows, len, i;
	int a, perm[GPU_MAX_DIMS], j, rc = -1;
	int consecutive = n->op == OP_aten_unique_consecutive;
	double *v;

	if (tv_get_tensor(c, ARG(0), 0, &x) ||
	    tv_get_int(c, ARG(consecutive ? 3 : 1), &d))
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
	if (v)
		rc = unique_rows(c, x, a, v, rows, len, !consecutive, 1, 1,
				 &rows, 1, out, nout);
	free(v);
	gpu_free(xm);
	return rc;
}

/* _unique2(self, sorted=True, return_inverse=False, return_counts=False),
 * _unique(self, sorted=True, return_inverse=False),
 * unique_consecutive(self, return_inverse, return_counts, dim=None) */
static int op_unique(struct trace_ctx *c, const struct ir_node *n,
		     struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x;
	int consecutive = n->op == OP_aten_unique_consecutive;
	int ri = 0, rcnt = 0, b = consecutive ? 1 : 2;
	int plain = n->op == OP_aten__unique;

	if (tv_get_tensor(c, ARG(0), 0, &x))
		return -1;
	if ((!sh_is_none(ARG(b)) && tv_get_bool(c, ARG(b), &ri)) ||
	    (!plain && !sh_is_none(ARG(b + 1)) &&
	     tv_get_bool(c, ARG(b + 1), &rcnt)))
		return -1;
	if (consecutive && !sh_is_none(ARG(3)))
		return op_unique_dim(c, n, in, nin, out, nout);
	return sh_unique(c, x, consecutive, ri, rcnt, out, nout);
}

/* --- the table ------------------------------------------------------------ */

const struct trace_op trace_ops_sort[] = {
	{ OP_aten_topk, op_topk, 0 },
	{ OP_aten_sort, op_sort, 0 },
	{ OP_aten_argsort, op_sort, 0 },
	{ OP_aten_msort, op_sort, 0 },
	{ OP_aten_kthvalue, op_kthvalue, 0 },
	{ OP_aten__unique2, op_unique, 0 },
	{ OP_aten__unique, op_unique, 0 },
	{ OP_aten_unique_dim, op_unique_dim, 0 },
	{ OP_aten_unique_consecutive, op_unique, 0 },
	{ OP_NONE, NULL, 0 },
};

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
		return trace_error(c, "unique_consecutive with dim is not "
				   "supported");
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

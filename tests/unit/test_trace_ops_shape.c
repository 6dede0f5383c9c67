/*
 * test_trace_ops_shape.c - the `trace` stage's shape, view, joining and
 * indexing ops (lib/trace/ops_shape.c), run through their op table on the
 * CPU backend and compared with naive references computed here (index
 * arithmetic over row-major arrays).  Views are checked to share storage
 * and in-place ops to write through views, as torch's do;
 * tests/302-trace-ops-shape.bats checks the same ops against torch itself.
 */
#include "unit.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trace_int.h"

static struct diag dg;
static struct trace_ctx ctx;

static int setup(void)
{
	const struct gpu_backend *be = gpu_backend_get(GPU_BACKEND_CPU);

	if (!be || !be->copy || !be->fill) {
		unit_skip("the CPU backend is not built yet");
		return -1;
	}
	diag_init(&dg, "test");
	dg.quiet = 1;
	memset(&ctx, 0, sizeof(ctx));
	ctx.be = be;
	ctx.d = &dg;
	return 0;
}

/* a kernel the op needs is still a stub: skip rather than fail */
static int stubbed(void)
{
	const char *e = gpu_last_error();

	if (e && strstr(e, "not implemented")) {
		unit_skip(e);
		return 1;
	}
	return 0;
}

/* a tensor of dtype dt holding v (row-major) */
static struct tval *mk(enum ir_dtype dt, int rank, const int64_t *dims,
		       const double *v)
{
	struct gpu_tensor *d = gpu_empty(ctx.be, IR_DTYPE_DOUBLE, rank, dims);
	struct gpu_tensor *y = gpu_empty(ctx.be, dt, rank, dims);

	if (gpu_numel(d))
		ctx.be->upload(d->storage->data, v,
			       sizeof(double) * gpu_numel(d));
	if (gpu_numel(d))
		ctx.be->copy(d, y);
	gpu_free(d);
	return tv_tensor(y);
}

/* a float tensor holding 0, 1, 2, ... */
static struct tval *iota(enum ir_dtype dt, int rank, const int64_t *dims)
{
	int64_t n = 1, i;
	double *v;
	struct tval *t;

	for (i = 0; i < rank; i++)
		n *= dims[i];
	v = malloc(sizeof(*v) * (n + 1));
	for (i = 0; i < n; i++)
		v[i] = (double)i;
	t = mk(dt, rank, dims, v);
	free(v);
	return t;
}

static double *host(const struct tval *v)
{
	double *h = malloc(sizeof(double) * (gpu_numel(v->u.t) + 1));

	if (gpu_numel(v->u.t))
		gpu_to_host(v->u.t, IR_DTYPE_DOUBLE, h);
	return h;
}

static struct tval *ints(int n, const int64_t *v)
{
	struct tval *l = tv_list(TV_LIST);
	int i;

	for (i = 0; i < n; i++)
		tv_list_push(l, tv_int(v[i]));
	return l;
}

#include "trace_fixture.h"

static int same_dims(const struct tval *v, int rank, const int64_t *dims)
{
	return v && v->kind == TV_TENSOR && v->u.t->rank == rank &&
	       !memcmp(v->u.t->dims, dims, sizeof(int64_t) * rank);
}

/* compares v's elements with want[] */
static void check_vals(const struct tval *v, const double *want, int64_t n,
		       int line)
{
	double *h;
	int64_t i;

	if (!v || v->kind != TV_TENSOR || gpu_numel(v->u.t) != n) {
		unit_fail(__FILE__, line, "wrong result shape");
		return;
	}
	h = host(v);
	for (i = 0; i < n; i++)
		if (h[i] != want[i]) {
			unit_fail(__FILE__, line, "element %lld: %g != %g",
				  (long long)i, h[i], want[i]);
			break;
		}
	free(h);
}

#define CHECK_VALS(v, want, n) check_vals((v), (want), (n), __LINE__)

/* --- tests ----------------------------------------------------------------- */

static void test_view_shares_storage(void)
{
	int64_t d[2] = { 2, 6 }, s[3] = { 3, -1, 2 }, want[3] = { 3, 2, 2 };
	struct tval *x, *in[2], *y;
	double w[12];
	int i;

	if (setup())
		return;
	x = iota(IR_DTYPE_FLOAT, 2, d);
	in[0] = tv_ref(x);
	in[1] = ints(3, s);
	y = run1("aten::view", in, 2);
	CHECK(same_dims(y, 3, want));
	CHECK(y && y->u.t->storage == x->u.t->storage);
	for (i = 0; i < 12; i++)
		w[i] = i;
	CHECK_VALS(y, w, 12);
	tv_unref(y);
	/* -1 twice is an error */
	in[0] = tv_ref(x);
	s[0] = -1;
	in[1] = ints(3, s);
	CHECK(run1("aten::reshape", in, 2) == NULL);
	tv_unref(x);
}

static void test_permute_reshape_copies(void)
{
	int64_t d[3] = { 2, 3, 4 }, p[3] = { 2, 0, 1 }, s[2] = { 8, 3 },
		pd[3] = { 4, 2, 3 };
	struct tval *x, *in[2], *y, *z;
	double w[24];
	int a, b, k;

	if (setup())
		return;
	x = iota(IR_DTYPE_FLOAT, 3, d);
	in[0] = tv_ref(x);
	in[1] = ints(3, p);
	y = run1("aten::permute", in, 2);
	CHECK(same_dims(y, 3, pd));
	CHECK(y && y->u.t->storage == x->u.t->storage);
	/* y[k][a][b] = x[a][b][k] */
	for (k = 0; k < 4; k++)
		for (a = 0; a < 2; a++)
			for (b = 0; b < 3; b++)
				w[(k * 2 + a) * 3 + b] = (a * 3 + b) * 4 + k;
	CHECK_VALS(y, w, 24);
	/* a permuted tensor cannot be viewed as [8, 3] without a copy */
	in[0] = tv_ref(y);
	in[1] = ints(2, s);
	z = run1("aten::reshape", in, 2);
	CHECK(same_dims(z, 2, s));
	CHECK(z && z->u.t->storage != x->u.t->storage);
	CHECK_VALS(z, w, 24);
	tv_unref(z);
	tv_unref(y);
	tv_unref(x);
}

static void test_transpose_flatten_movedim(void)
{
	int64_t d[3] = { 2, 3, 4 }, fd[2] = { 6, 4 }, md[3] = { 3, 4, 2 };
	struct tval *x, *in[3], *y;
	double w[24];
	int a, b, k;

	if (setup())
		return;
	x = iota(IR_DTYPE_INT64, 3, d);
	in[0] = tv_ref(x);
	in[1] = tv_int(0);
	in[2] = tv_int(1);
	y = run1("aten::flatten", in, 3);
	CHECK(same_dims(y, 2, fd));
	CHECK(y && y->u.t->storage == x->u.t->storage);
	tv_unref(y);
	/* movedim(0, -1): y[b][k][a] = x[a][b][k] */
	in[0] = tv_ref(x);
	in[1] = tv_int(0);
	in[2] = tv_int(-1);
	y = run1("aten::movedim", in, 3);
	CHECK(same_dims(y, 3, md));
	for (b = 0; b < 3; b++)
		for (k = 0; k < 4; k++)
			for (a = 0; a < 2; a++)
				w[(b * 4 + k) * 2 + a] = (a * 3 + b) * 4 + k;
	CHECK_VALS(y, w, 24);
	tv_unref(y);
	/* transpose out of range */
	in[0] = tv_ref(x);
	in[1] = tv_int(0);
	in[2] = tv_int(3);
	CHECK(run1("aten::transpose", in, 3) == NULL);
	tv_unref(x);
}

static void test_squeeze_unsqueeze_expand(void)
{
	int64_t d[3] = { 1, 3, 1 }, sq[1] = { 3 }, sq0[2] = { 3, 1 },
		us[4] = { 1, 3, 1, 1 }, ex[3] = { 2, -1, 4 },
		exd[3] = { 2, 3, 4 };
	struct tval *x, *in[3], *y;
	double w[24];
	int i;

	if (setup())
		return;
	x = iota(IR_DTYPE_FLOAT, 3, d);
	in[0] = tv_ref(x);
	y = run1("aten::squeeze", in, 1);
	CHECK(same_dims(y, 1, sq));
	tv_unref(y);
	in[0] = tv_ref(x);
	in[1] = tv_int(0);
	y = run1("aten::squeeze", in, 2);
	CHECK(same_dims(y, 2, sq0));
	tv_unref(y);
	in[0] = tv_ref(x);
	in[1] = tv_int(-1);
	y = run1("aten::unsqueeze", in, 2);
	CHECK(same_dims(y, 4, us));
	tv_unref(y);
	in[0] = tv_ref(x);
	in[1] = ints(3, ex);
	in[2] = tv_bool(0);
	y = run1("aten::expand", in, 3);
	CHECK(same_dims(y, 3, exd));
	CHECK(y && y->u.t->strides[0] == 0 && y->u.t->strides[2] == 0);
	for (i = 0; i < 24; i++)
		w[i] = (i / 4) % 3;
	CHECK_VALS(y, w, 24);
	tv_unref(y);
	/* expanding a non-singleton dim fails */
	in[0] = tv_ref(x);
	ex[1] = 5;
	in[1] = ints(3, ex);
	in[2] = tv_bool(0);
	CHECK(run1("aten::expand", in, 3) == NULL);
	tv_unref(x);
}

static void test_slice_select_write_through(void)
{
	int64_t d[2] = { 4, 5 }, sd[2] = { 4, 2 };
	struct tval *x, *in[5], *y, *s;
	double w[20];
	int i, j;

	if (setup())
		return;
	x = iota(IR_DTYPE_FLOAT, 2, d);
	/* x[:, 1:5:2] */
	in[0] = tv_ref(x);
	in[1] = tv_int(1);
	in[2] = tv_int(1);
	in[3] = tv_int(100);
	in[4] = tv_int(2);
	y = run1("aten::slice", in, 5);
	CHECK(same_dims(y, 2, sd));
	for (i = 0; i < 4; i++)
		for (j = 0; j < 2; j++)
			w[i * 2 + j] = i * 5 + 1 + 2 * j;
	CHECK_VALS(y, w, 8);
	/* x[-1] */
	in[0] = tv_ref(x);
	in[1] = tv_int(0);
	in[2] = tv_int(-1);
	s = run1("aten::select", in, 3);
	CHECK(s && s->u.t->rank == 1 && s->u.t->dims[0] == 5);
	for (j = 0; j < 5; j++)
		w[j] = 15 + j;
	CHECK_VALS(s, w, 5);
	/* writing into the slice view writes into x */
	if (y) {
		struct gpu_tensor *m1 = gpu_empty(ctx.be, IR_DTYPE_FLOAT, 2,
						  sd);

		ctx.be->fill(m1, -1);
		ctx.be->copy(m1, y->u.t);
		gpu_free(m1);
	}
	for (i = 0; i < 20; i++)
		w[i] = (i % 5 == 1 || i % 5 == 3) ? -1 : i;
	CHECK_VALS(x, w, 20);
	tv_unref(s);
	tv_unref(y);
	/* select out of range */
	in[0] = tv_ref(x);
	in[1] = tv_int(0);
	in[2] = tv_int(4);
	CHECK(run1("aten::select", in, 3) == NULL);
	tv_unref(x);
}

static void test_split_chunk_unbind(void)
{
	int64_t d[2] = { 7, 2 }, sz[3] = { 1, 4, 2 };
	struct tval *x, *in[3], *y;
	double w[14];
	int i;

	if (setup())
		return;
	x = iota(IR_DTYPE_FLOAT, 2, d);
	in[0] = tv_ref(x);
	in[1] = tv_int(3);
	in[2] = tv_int(0);
	y = run1("aten::split", in, 3);
	CHECK(y && y->kind == TV_LIST && y->u.list.n == 3);
	if (y && y->kind == TV_LIST && y->u.list.n == 3) {
		CHECK_INT(y->u.list.items[2]->u.t->dims[0], 1);
		for (i = 0; i < 2; i++)
			w[i] = 12 + i;
		CHECK_VALS(y->u.list.items[2], w, 2);
	}
	tv_unref(y);
	in[0] = tv_ref(x);
	in[1] = ints(3, sz);
	in[2] = tv_int(0);
	y = run1("aten::split_with_sizes", in, 3);
	CHECK(y && y->kind == TV_LIST && y->u.list.n == 3);
	if (y && y->kind == TV_LIST && y->u.list.n == 3) {
		CHECK_INT(y->u.list.items[1]->u.t->dims[0], 4);
		for (i = 0; i < 8; i++)
			w[i] = 2 + i;
		CHECK_VALS(y->u.list.items[1], w, 8);
	}
	tv_unref(y);
	/* chunk(7, 3) -> 3, 3, 1 */
	in[0] = tv_ref(x);
	in[1] = tv_int(3);
	in[2] = tv_int(0);
	y = run1("aten::chunk", in, 3);
	CHECK(y && y->kind == TV_LIST && y->u.list.n == 3);
	if (y && y->kind == TV_LIST && y->u.list.n == 3)
		CHECK_INT(y->u.list.items[2]->u.t->dims[0], 1);
	tv_unref(y);
	in[0] = tv_ref(x);
	in[1] = tv_int(1);
	y = run1("aten::unbind", in, 2);
	CHECK(y && y->kind == TV_LIST && y->u.list.n == 2);
	if (y && y->kind == TV_LIST && y->u.list.n == 2) {
		for (i = 0; i < 7; i++)
			w[i] = 2 * i + 1;
		CHECK_VALS(y->u.list.items[1], w, 7);
	}
	tv_unref(y);
	/* sizes that do not sum up */
	in[0] = tv_ref(x);
	sz[0] = 2;
	in[1] = ints(3, sz);
	in[2] = tv_int(0);
	CHECK(run1("aten::split_with_sizes", in, 3) == NULL);
	tv_unref(x);
}

static void test_cat_stack_promote(void)
{
	int64_t da[2] = { 2, 2 }, db[2] = { 2, 1 }, cd[2] = { 2, 3 },
		sd[3] = { 2, 2, 2 };
	double va[4] = { 1, 2, 3, 4 }, vb[2] = { 0.5, -1.5 };
	double w[8] = { 1, 2, 0.5, 3, 4, -1.5 };
	struct tval *a, *b, *l, *in[2], *y;

	if (setup())
		return;
	a = mk(IR_DTYPE_INT64, 2, da, va);
	b = mk(IR_DTYPE_FLOAT, 2, db, vb);
	l = tv_list(TV_LIST);
	tv_list_push(l, tv_ref(a));
	tv_list_push(l, tv_ref(b));
	in[0] = l;
	in[1] = tv_int(-1);
	y = run1("aten::cat", in, 2);
	CHECK(same_dims(y, 2, cd));
	CHECK(y && y->u.t->dtype == IR_DTYPE_FLOAT);
	CHECK_VALS(y, w, 6);
	tv_unref(y);
	/* stack(a, a, dim=1): y[i][k][j] = a[i][j] */
	l = tv_list(TV_LIST);
	tv_list_push(l, tv_ref(a));
	tv_list_push(l, tv_ref(a));
	in[0] = l;
	in[1] = tv_int(1);
	y = run1("aten::stack", in, 2);
	CHECK(same_dims(y, 3, sd));
	{
		double ws[8] = { 1, 2, 1, 2, 3, 4, 3, 4 };

		CHECK_VALS(y, ws, 8);
	}
	tv_unref(y);
	/* shapes that differ off the cat dim */
	l = tv_list(TV_LIST);
	tv_list_push(l, tv_ref(a));
	tv_list_push(l, tv_ref(b));
	in[0] = l;
	in[1] = tv_int(0);
	CHECK(run1("aten::cat", in, 2) == NULL);
	tv_unref(a);
	tv_unref(b);
}

static void test_repeat_tile(void)
{
	int64_t d[2] = { 2, 3 }, r[3] = { 2, 1, 2 }, rd[3] = { 2, 2, 6 };
	struct tval *x, *in[2], *y;
	double w[24];
	int i, j, k;

	if (setup())
		return;
	x = iota(IR_DTYPE_FLOAT, 2, d);
	in[0] = tv_ref(x);
	in[1] = ints(3, r);
	y = run1("aten::repeat", in, 2);
	CHECK(same_dims(y, 3, rd));
	for (i = 0; i < 2; i++)
		for (j = 0; j < 2; j++)
			for (k = 0; k < 6; k++)
				w[(i * 2 + j) * 6 + k] = j * 3 + k % 3;
	CHECK_VALS(y, w, 24);
	tv_unref(y);
	tv_unref(x);
}

static void test_index_advanced(void)
{
	int64_t d[3] = { 3, 4, 5 }, id[2] = { 2, 1 }, jd[1] = { 3 },
		rd[4] = { 3, 2, 3, 5 }, nd[3] = { 2, 3, 4 };
	double iv[2] = { 2, -1 }, jv[3] = { 0, 3, 1 };
	struct tval *x, *l, *in[2], *y;
	double w[120];
	int a, b, c2, e;

	if (setup())
		return;
	x = iota(IR_DTYPE_FLOAT, 3, d);
	/* x[:, i, j] with i [2,1], j [3]: adjacent, broadcast to [2, 3] */
	l = tv_list(TV_LIST);
	tv_list_push(l, tv_none());
	tv_list_push(l, mk(IR_DTYPE_INT64, 2, id, iv));
	tv_list_push(l, mk(IR_DTYPE_INT64, 1, jd, jv));
	in[0] = tv_ref(x);
	in[1] = l;
	y = run1("aten::index", in, 2);
	if (!y && stubbed()) {
		tv_unref(x);
		return;
	}
	{
		int64_t rd2[3] = { 3, 2, 3 };

		CHECK(same_dims(y, 3, rd2));
		for (a = 0; a < 3; a++)
			for (b = 0; b < 2; b++)
				for (c2 = 0; c2 < 3; c2++) {
					int ii = b == 0 ? 2 : 3;

					w[(a * 2 + b) * 3 + c2] = a * 20 +
						ii * 5 + jv[c2];
				}
		CHECK_VALS(y, w, 18);
	}
	tv_unref(y);
	(void)rd;
	/* x[i, :, j] (not adjacent): broadcast dims first -> [2, 3, 4] */
	l = tv_list(TV_LIST);
	tv_list_push(l, mk(IR_DTYPE_INT64, 2, id, iv));
	tv_list_push(l, tv_none());
	tv_list_push(l, mk(IR_DTYPE_INT64, 1, jd, jv));
	in[0] = tv_ref(x);
	in[1] = l;
	y = run1("aten::index", in, 2);
	CHECK(same_dims(y, 3, nd));
	for (a = 0; a < 2; a++)
		for (c2 = 0; c2 < 3; c2++)
			for (e = 0; e < 4; e++) {
				int ii = a == 0 ? 2 : 2;	/* -1 -> 2 */

				w[(a * 3 + c2) * 4 + e] = ii * 20 + e * 5 +
					jv[c2];
			}
	CHECK_VALS(y, w, 24);
	tv_unref(y);
	/* out of range */
	l = tv_list(TV_LIST);
	iv[0] = 3;
	tv_list_push(l, mk(IR_DTYPE_INT64, 2, id, iv));
	tv_list_push(l, mk(IR_DTYPE_INT64, 1, jd, jv));
	in[0] = tv_ref(x);
	in[1] = l;
	CHECK(run1("aten::index", in, 2) == NULL);
	tv_unref(x);
}

static void test_index_mask_and_put(void)
{
	int64_t d[2] = { 3, 4 }, md[1] = { 3 }, vd[1] = { 1 };
	double mv[3] = { 1, 0, 1 }, one = 10;
	struct tval *x, *l, *in[4], *y;
	double w[12];
	int i;

	if (setup())
		return;
	x = iota(IR_DTYPE_FLOAT, 2, d);
	/* x[mask] with mask over dim 0 -> rows 0 and 2 */
	l = tv_list(TV_LIST);
	tv_list_push(l, mk(IR_DTYPE_BOOL, 1, md, mv));
	in[0] = tv_ref(x);
	in[1] = l;
	y = run1("aten::index", in, 2);
	if (!y && stubbed()) {
		tv_unref(x);
		return;
	}
	for (i = 0; i < 8; i++)
		w[i] = i < 4 ? i : i + 4;
	CHECK_VALS(y, w, 8);
	tv_unref(y);
	/* index_put_(x, [mask], 10, accumulate=True) writes through */
	l = tv_list(TV_LIST);
	tv_list_push(l, mk(IR_DTYPE_BOOL, 1, md, mv));
	in[0] = tv_ref(x);
	in[1] = l;
	in[2] = mk(IR_DTYPE_FLOAT, 1, vd, &one);
	in[3] = tv_bool(1);
	y = run1("aten::index_put_", in, 4);
	CHECK(y == x);
	for (i = 0; i < 12; i++)
		w[i] = i + (i < 4 || i >= 8 ? 10 : 0);
	CHECK_VALS(x, w, 12);
	tv_unref(y);
	tv_unref(x);
}

static void test_gather_scatter(void)
{
	int64_t d[2] = { 2, 3 }, id[2] = { 2, 2 };
	double iv[4] = { 2, 0, 1, 1 };
	struct tval *x, *in[4], *y;
	double w[6];

	if (setup())
		return;
	x = iota(IR_DTYPE_FLOAT, 2, d);
	in[0] = tv_ref(x);
	in[1] = tv_int(1);
	in[2] = mk(IR_DTYPE_INT64, 2, id, iv);
	in[3] = tv_bool(0);
	y = run1("aten::gather", in, 4);
	if (!y && stubbed()) {
		tv_unref(x);
		return;
	}
	{
		double wg[4] = { 2, 0, 4, 4 };

		CHECK_VALS(y, wg, 4);
	}
	tv_unref(y);
	/* scatter_add(zeros-like x, 1, idx, ones) */
	in[0] = tv_ref(x);
	in[1] = tv_int(1);
	in[2] = mk(IR_DTYPE_INT64, 2, id, iv);
	in[3] = tv_ref(x);
	y = run1("aten::scatter_add", in, 4);
	/* row 0: x[0] + {0->2: 0, 1->0: 1}; row 1: x[1] + {3->1, 4->1} */
	w[0] = 0 + 1;
	w[1] = 1;
	w[2] = 2 + 0;
	w[3] = 3;
	w[4] = 4 + 3 + 4;
	w[5] = 5;
	CHECK_VALS(y, w, 6);
	tv_unref(y);
	tv_unref(x);
}

static void test_sort_topk_unique_nonzero(void)
{
	int64_t d[1] = { 6 };
	double v[6] = { 3, 1, 3, 0, 2, 1 };
	struct tval *x, *in[5], *out[3];
	double wv[3] = { 3, 3, 2 }, wi[3] = { 0, 2, 4 };
	double uv[4] = { 0, 1, 2, 3 }, ui[6] = { 3, 1, 3, 0, 2, 1 },
	       uc[4] = { 1, 2, 1, 2 };

	if (setup())
		return;
	x = mk(IR_DTYPE_FLOAT, 1, d, v);
	in[0] = tv_ref(x);
	in[1] = tv_int(3);
	in[2] = tv_int(-1);
	in[3] = tv_bool(1);
	in[4] = tv_bool(1);
	if (run("aten::topk", in, 5, out, 2)) {
		if (!stubbed())
			CHECK(!"topk failed");
		tv_unref(x);
		return;
	}
	CHECK_VALS(out[0], wv, 3);
	CHECK_VALS(out[1], wi, 3);
	tv_unref(out[0]);
	tv_unref(out[1]);
	in[0] = tv_ref(x);
	in[1] = tv_bool(1);
	in[2] = tv_bool(1);
	in[3] = tv_bool(1);
	CHECK(run("aten::_unique2", in, 4, out, 3) == 0);
	CHECK_VALS(out[0], uv, 4);
	CHECK_VALS(out[1], ui, 6);
	CHECK_VALS(out[2], uc, 4);
	tv_unref(out[0]);
	tv_unref(out[1]);
	tv_unref(out[2]);
	in[0] = tv_ref(x);
	out[0] = run1("aten::nonzero", in, 1);
	{
		double nz[5] = { 0, 1, 2, 4, 5 };
		int64_t nd[2] = { 5, 1 };

		CHECK(same_dims(out[0], 2, nd));
		CHECK_VALS(out[0], nz, 5);
	}
	tv_unref(out[0]);
	tv_unref(x);
}

static void test_pad_flip_roll_tril(void)
{
	int64_t d[2] = { 2, 3 }, p[2] = { 1, 2 }, pd[2] = { 2, 6 },
		sh[1] = { 1 }, dm[1] = { 1 };
	struct tval *x, *in[3], *y;
	double w[12];
	int i, j;

	if (setup())
		return;
	x = iota(IR_DTYPE_FLOAT, 2, d);
	/* roll along dim 1 by 1: a cat of slices, no special kernel */
	in[0] = tv_ref(x);
	in[1] = ints(1, sh);
	in[2] = ints(1, dm);
	y = run1("aten::roll", in, 3);
	for (i = 0; i < 2; i++)
		for (j = 0; j < 3; j++)
			w[i * 3 + j] = i * 3 + (j + 2) % 3;
	CHECK_VALS(y, w, 6);
	tv_unref(y);
	/* tril(x, 0) */
	in[0] = tv_ref(x);
	in[1] = tv_int(0);
	y = run1("aten::tril", in, 2);
	for (i = 0; i < 2; i++)
		for (j = 0; j < 3; j++)
			w[i * 3 + j] = j <= i ? i * 3 + j : 0;
	CHECK_VALS(y, w, 6);
	tv_unref(y);
	/* constant pad of the last dim by (1, 2) with 7 */
	in[0] = tv_ref(x);
	in[1] = ints(2, p);
	in[2] = tv_float(7);
	y = run1("aten::constant_pad_nd", in, 3);
	if (!y && stubbed()) {
		tv_unref(x);
		return;
	}
	CHECK(same_dims(y, 2, pd));
	for (i = 0; i < 2; i++)
		for (j = 0; j < 6; j++)
			w[i * 6 + j] = j >= 1 && j < 4 ? i * 3 + j - 1 : 7;
	CHECK_VALS(y, w, 12);
	tv_unref(y);
	/* flip dim 1 */
	in[0] = tv_ref(x);
	in[1] = ints(1, dm);
	y = run1("aten::flip", in, 2);
	if (!y && stubbed()) {
		tv_unref(x);
		return;
	}
	for (i = 0; i < 2; i++)
		for (j = 0; j < 3; j++)
			w[i * 3 + j] = i * 3 + 2 - j;
	CHECK_VALS(y, w, 6);
	tv_unref(y);
	tv_unref(x);
}

static void test_diagonal_pixel_shuffle(void)
{
	int64_t d[2] = { 3, 4 }, pd[4] = { 1, 4, 2, 2 }, od[4] = { 1, 1, 4, 4 };
	struct tval *x, *in[4], *y;
	double w[16];
	int c2, h, ww;

	if (setup())
		return;
	x = iota(IR_DTYPE_FLOAT, 2, d);
	/* diagonal offset 1: x[0][1], x[1][2], x[2][3] */
	in[0] = tv_ref(x);
	in[1] = tv_int(1);
	in[2] = tv_int(0);
	in[3] = tv_int(1);
	y = run1("aten::diagonal", in, 4);
	{
		double wd[3] = { 1, 6, 11 };

		CHECK_VALS(y, wd, 3);
	}
	CHECK(y && y->u.t->storage == x->u.t->storage);
	tv_unref(y);
	tv_unref(x);
	/* pixel_shuffle r=2: y[0][0][h][w] = x[0][(h%2)*2 + w%2][h/2][w/2] */
	x = iota(IR_DTYPE_FLOAT, 4, pd);
	in[0] = tv_ref(x);
	in[1] = tv_int(2);
	y = run1("aten::pixel_shuffle", in, 2);
	CHECK(same_dims(y, 4, od));
	for (h = 0; h < 4; h++)
		for (ww = 0; ww < 4; ww++) {
			c2 = (h % 2) * 2 + ww % 2;
			w[h * 4 + ww] = c2 * 4 + (h / 2) * 2 + ww / 2;
		}
	CHECK_VALS(y, w, 16);
	tv_unref(y);
	tv_unref(x);
}

const struct unit_test unit_tests[] = {
	UNIT(test_view_shares_storage),
	UNIT(test_permute_reshape_copies),
	UNIT(test_transpose_flatten_movedim),
	UNIT(test_squeeze_unsqueeze_expand),
	UNIT(test_slice_select_write_through),
	UNIT(test_split_chunk_unbind),
	UNIT(test_cat_stack_promote),
	UNIT(test_repeat_tile),
	UNIT(test_index_advanced),
	UNIT(test_index_mask_and_put),
	UNIT(test_gather_scatter),
	UNIT(test_sort_topk_unique_nonzero),
	UNIT(test_pad_flip_roll_tril),
	UNIT(test_diagonal_pixel_shuffle),
	{ 0 }
};

/*
 * test_trace_ops_tensor.c - the `trace` stage's elementwise, reduction,
 * creation and conversion ops (lib/trace/ops_tensor.c, ops_util.c), run
 * through their op table on the CPU backend and compared with naive
 * references computed here (libm formulas, loops over the elements).  The
 * type promotion cases follow torch.result_type's documented rules;
 * tests/301-trace-ops-tensor.bats checks the same ops against torch itself.
 */
#include "unit.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trace_int.h"

static struct diag dg;
static struct trace_ctx ctx;

static int setup(void)
{
	const struct gpu_backend *be = gpu_backend_get(GPU_BACKEND_CPU);

	if (!be || !be->copy || !be->binary || !be->reduce || !be->unary) {
		unit_skip("the CPU backend is not built yet");
		return -1;
	}
	diag_init(&dg, "test");
	dg.quiet = 1;
	memset(&ctx, 0, sizeof(ctx));
	ctx.be = be;
	ctx.d = &dg;
	ctx.seed = 42;
	return 0;
}

static uint64_t rng = 12345;

static double rnd(void)
{
	rng = rng * 6364136223846793005ull + 1442695040888963407ull;
	return (double)(rng >> 11) / 9007199254740992.0 * 4 - 2;
}

static struct tval *mk(enum ir_dtype dt, int rank, const int64_t *dims,
		       const double *v)
{
	struct gpu_tensor *d = gpu_empty(ctx.be, IR_DTYPE_DOUBLE, rank, dims);
	struct gpu_tensor *y = gpu_empty(ctx.be, dt, rank, dims);

	ctx.be->upload(d->storage->data, v, sizeof(double) * gpu_numel(d));
	ctx.be->copy(d, y);
	gpu_free(d);
	return tv_tensor(y);
}

static struct tval *mk_rand(enum ir_dtype dt, int rank, const int64_t *dims,
			    double *vals)
{
	int64_t n = 1, i;

	for (i = 0; i < rank; i++)
		n *= dims[i];
	for (i = 0; i < n; i++)
		vals[i] = dt == IR_DTYPE_FLOAT || dt == IR_DTYPE_DOUBLE ?
			  rnd() : floor(rnd() * 5);
	return mk(dt, rank, dims, vals);
}

static double *host(const struct tval *v)
{
	double *h = malloc(sizeof(double) * (gpu_numel(v->u.t) + 1));

	gpu_to_host(v->u.t, IR_DTYPE_DOUBLE, h);
	return h;
}

#include "trace_fixture.h"

#define NEAR(a, b, tol) (fabs((a) - (b)) <= (tol) * (1 + fabs(b)))

static int check_dims(const struct tval *v, int rank, const int64_t *dims)
{
	int i;

	if (!v || v->kind != TV_TENSOR || v->u.t->rank != rank)
		return 0;
	for (i = 0; i < rank; i++)
		if (v->u.t->dims[i] != dims[i])
			return 0;
	return 1;
}

/* --- promotion ------------------------------------------------------------ */

static enum ir_dtype promote_t(enum ir_dtype a, int ra, enum ir_dtype b,
			       int rb)
{
	struct gpu_tensor ta, tb;
	struct tval va = { .kind = TV_TENSOR, .refs = 1 }, vb = va;

	memset(&ta, 0, sizeof(ta));
	memset(&tb, 0, sizeof(tb));
	ta.dtype = a;
	ta.rank = ra;
	tb.dtype = b;
	tb.rank = rb;
	va.u.t = &ta;
	vb.u.t = &tb;
	return trace_promote(&va, &vb);
}

static enum ir_dtype promote_s(enum ir_dtype a, int ra, enum tv_kind k)
{
	struct gpu_tensor ta;
	struct tval va = { .kind = TV_TENSOR, .refs = 1 }, vs = { .refs = 1 };

	memset(&ta, 0, sizeof(ta));
	ta.dtype = a;
	ta.rank = ra;
	va.u.t = &ta;
	vs.kind = k;
	return trace_promote(&va, &vs);
}

static void test_promote(void)
{
	/* torch.result_type: dimensioned tensors beat zero-dim ones, which
	 * beat Python scalars, unless the weaker one is of a higher
	 * category (bool < integral < floating) */
	CHECK_INT(promote_t(IR_DTYPE_FLOAT, 1, IR_DTYPE_DOUBLE, 1),
		  IR_DTYPE_DOUBLE);
	CHECK_INT(promote_t(IR_DTYPE_FLOAT, 1, IR_DTYPE_DOUBLE, 0),
		  IR_DTYPE_FLOAT);
	CHECK_INT(promote_t(IR_DTYPE_INT32, 1, IR_DTYPE_INT64, 0),
		  IR_DTYPE_INT32);
	CHECK_INT(promote_t(IR_DTYPE_INT32, 1, IR_DTYPE_DOUBLE, 0),
		  IR_DTYPE_DOUBLE);
	CHECK_INT(promote_t(IR_DTYPE_UINT8, 1, IR_DTYPE_INT8, 1),
		  IR_DTYPE_INT16);
	CHECK_INT(promote_t(IR_DTYPE_FLOAT16, 1, IR_DTYPE_BFLOAT16, 1),
		  IR_DTYPE_FLOAT);
	CHECK_INT(promote_t(IR_DTYPE_BOOL, 1, IR_DTYPE_BOOL, 0),
		  IR_DTYPE_BOOL);
	CHECK_INT(promote_t(IR_DTYPE_BOOL, 1, IR_DTYPE_UINT8, 0),
		  IR_DTYPE_UINT8);
	CHECK_INT(promote_s(IR_DTYPE_INT64, 1, TV_FLOAT), IR_DTYPE_FLOAT);
	CHECK_INT(promote_s(IR_DTYPE_UINT8, 1, TV_INT), IR_DTYPE_UINT8);
	CHECK_INT(promote_s(IR_DTYPE_BOOL, 1, TV_INT), IR_DTYPE_INT64);
	CHECK_INT(promote_s(IR_DTYPE_FLOAT16, 1, TV_FLOAT), IR_DTYPE_FLOAT16);
	CHECK_INT(promote_s(IR_DTYPE_INT32, 0, TV_INT), IR_DTYPE_INT32);
	CHECK_INT(promote_s(IR_DTYPE_BOOL, 0, TV_BOOL), IR_DTYPE_BOOL);
	CHECK_INT(promote_s(IR_DTYPE_DOUBLE, 1, TV_FLOAT), IR_DTYPE_DOUBLE);
}

static void test_broadcast_axis(void)
{
	struct gpu_tensor a, b, *e;
	int64_t dims[GPU_MAX_DIMS];
	int rank, ax;

	if (setup())
		return;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	a.rank = 3;
	a.dims[0] = 2; a.dims[1] = 1; a.dims[2] = 4;
	b.rank = 2;
	b.dims[0] = 3; b.dims[1] = 1;
	CHECK_INT(trace_broadcast_dims(&ctx, &a, &b, &rank, dims), 0);
	CHECK_INT(rank, 3);
	CHECK(dims[0] == 2 && dims[1] == 3 && dims[2] == 4);
	b.dims[1] = 5;
	CHECK_INT(trace_broadcast_dims(&ctx, &a, &b, &rank, dims), -1);
	CHECK_INT(trace_axis(&ctx, -1, 3, &ax), 0);
	CHECK_INT(ax, 2);
	CHECK_INT(trace_axis(&ctx, 3, 3, &ax), -1);
	CHECK_INT(trace_axis(&ctx, -1, 0, &ax), 0);
	{
		int64_t d[2] = { 1, 3 }, want[3] = { 2, 4, 3 };
		double v[3] = { 1, 2, 3 };
		struct tval *t = mk(IR_DTYPE_FLOAT, 2, d, v);

		e = trace_expand(t->u.t, 3, want);
		CHECK(e && e->strides[0] == 0 && e->strides[1] == 0 &&
		      e->strides[2] == 1 && e->storage == t->u.t->storage);
		gpu_free(e);
		tv_unref(t);
	}
}

/* --- elementwise ------------------------------------------------------------ */

static void test_add_alpha_broadcast(void)
{
	int64_t da[2] = { 2, 3 }, db[1] = { 3 };
	double a[6], b[3], *y;
	struct tval *in[3], *o;
	int i;

	if (setup())
		return;
	in[0] = mk_rand(IR_DTYPE_FLOAT, 2, da, a);
	in[1] = mk_rand(IR_DTYPE_FLOAT, 1, db, b);
	in[2] = tv_float(2.5);
	o = run1("aten::add", in, 3);
	CHECK(check_dims(o, 2, da));
	if (!o)
		return;
	CHECK_INT(o->u.t->dtype, IR_DTYPE_FLOAT);
	y = host(o);
	for (i = 0; i < 6; i++)
		CHECK(NEAR(y[i], a[i] + 2.5 * b[i % 3], 1e-6));
	free(y);
	tv_unref(o);

	/* rsub(self, other, alpha) = other - alpha * self */
	in[0] = mk(IR_DTYPE_FLOAT, 2, da, a);
	in[1] = tv_int(3);
	in[2] = tv_int(2);
	o = run1("aten::rsub", in, 3);
	CHECK(o != NULL);
	if (o) {
		y = host(o);
		for (i = 0; i < 6; i++)
			CHECK(NEAR(y[i], 3 - 2 * a[i], 1e-6));
		free(y);
		tv_unref(o);
	}
}

static void test_int_division(void)
{
	int64_t d[1] = { 6 };
	double a[6] = { -7, 7, -7, 7, 0, 5 }, b[6] = { 2, 2, -2, -2, 3, -3 };
	double *y;
	struct tval *in[3], *o;
	int i;

	if (setup())
		return;
	/* true division of ints: float */
	in[0] = mk(IR_DTYPE_INT64, 1, d, a);
	in[1] = mk(IR_DTYPE_INT64, 1, d, b);
	o = run1("aten::div", in, 2);
	CHECK(o && o->u.t->dtype == IR_DTYPE_FLOAT);
	if (o) {
		y = host(o);
		for (i = 0; i < 6; i++)
			CHECK(NEAR(y[i], a[i] / b[i], 1e-6));
		free(y);
		tv_unref(o);
	}
	/* rounding modes, and floor_divide (floors in torch 1.13) */
	{
		static const char *const modes[] = { "floor", "trunc" };
		int m;

		for (m = 0; m < 3; m++) {
			in[0] = mk(IR_DTYPE_INT64, 1, d, a);
			in[1] = mk(IR_DTYPE_INT64, 1, d, b);
			if (m < 2) {
				in[2] = tv_str(modes[m]);
				o = run1("aten::div", in, 3);
			} else {
				o = run1("aten::floor_divide", in, 2);
			}
			CHECK(o && o->u.t->dtype == IR_DTYPE_INT64);
			if (!o)
				continue;
			y = host(o);
			for (i = 0; i < 6; i++)
				CHECK_INT(y[i], m == 1 ? trunc(a[i] / b[i]) :
					  floor(a[i] / b[i]));
			free(y);
			tv_unref(o);
		}
	}
	/* remainder takes the divisor's sign, fmod the dividend's */
	in[0] = mk(IR_DTYPE_INT64, 1, d, a);
	in[1] = mk(IR_DTYPE_INT64, 1, d, b);
	o = run1("aten::remainder", in, 2);
	if (o) {
		y = host(o);
		for (i = 0; i < 6; i++)
			CHECK_INT(y[i], a[i] - b[i] * floor(a[i] / b[i]));
		free(y);
		tv_unref(o);
	}
	in[0] = mk(IR_DTYPE_INT64, 1, d, a);
	in[1] = mk(IR_DTYPE_INT64, 1, d, b);
	o = run1("aten::fmod", in, 2);
	CHECK(o != NULL);
	if (o) {
		y = host(o);
		for (i = 0; i < 6; i++)
			CHECK_INT(y[i], fmod(a[i], b[i]));
		free(y);
		tv_unref(o);
	}
	/* int tensor + float scalar promotes to the default float */
	in[0] = mk(IR_DTYPE_INT64, 1, d, a);
	in[1] = tv_float(0.5);
	o = run1("aten::mul", in, 2);
	CHECK(o && o->u.t->dtype == IR_DTYPE_FLOAT);
	if (o) {
		y = host(o);
		for (i = 0; i < 6; i++)
			CHECK(NEAR(y[i], a[i] * 0.5, 1e-6));
		free(y);
		tv_unref(o);
	}
}

static double ref_act(const char *k, double x)
{
	if (!strcmp(k, "aten::sigmoid"))
		return 1 / (1 + exp(-x));
	if (!strcmp(k, "aten::tanh"))
		return tanh(x);
	if (!strcmp(k, "aten::gelu"))
		return 0.5 * x * (1 + erf(x / sqrt(2)));
	if (!strcmp(k, "aten::silu"))
		return x / (1 + exp(-x));
	if (!strcmp(k, "aten::hardswish"))
		return x * fmin(fmax(x + 3, 0), 6) / 6;
	if (!strcmp(k, "aten::hardsigmoid"))
		return fmin(fmax(x + 3, 0), 6) / 6;
	if (!strcmp(k, "aten::mish"))
		return x * tanh(log1p(exp(x)));
	if (!strcmp(k, "aten::softplus"))
		return log1p(exp(x));
	if (!strcmp(k, "aten::log_sigmoid"))
		return -log1p(exp(-x));
	if (!strcmp(k, "aten::relu6"))
		return fmin(fmax(x, 0), 6);
	if (!strcmp(k, "aten::selu"))
		return 1.0507009873554804934193349852946 *
		       (x > 0 ? x : 1.6732632423543772848170429916717 *
			(exp(x) - 1));
	if (!strcmp(k, "aten::exp"))
		return exp(x);
	if (!strcmp(k, "aten::abs"))
		return fabs(x);
	if (!strcmp(k, "aten::neg"))
		return -x;
	if (!strcmp(k, "aten::floor"))
		return floor(x);
	if (!strcmp(k, "aten::erf"))
		return erf(x);
	if (!strcmp(k, "aten::atan"))
		return atan(x);
	return NAN;
}

static void test_unary(void)
{
	static const char *const kinds[] = {
		"aten::sigmoid", "aten::tanh", "aten::gelu", "aten::silu",
		"aten::hardswish", "aten::hardsigmoid", "aten::mish",
		"aten::softplus", "aten::log_sigmoid",
		"aten::relu6", "aten::selu", "aten::exp", "aten::abs",
		"aten::neg", "aten::floor", "aten::erf", "aten::atan",
	};
	int64_t d[2] = { 3, 4 };
	double x[12], *y;
	size_t k;
	int i;

	if (setup())
		return;
	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		struct tval *in[4], *o;
		int nin = 1;

		in[0] = mk_rand(IR_DTYPE_FLOAT, 2, d, x);
		x[0] = 3.5; /* relu6 above 6 after scaling below */
		tv_unref(in[0]);
		for (i = 0; i < 12; i++)
			x[i] *= 4;
		in[0] = mk(IR_DTYPE_FLOAT, 2, d, x);
		if (!strcmp(kinds[k], "aten::softplus")) {
			in[1] = tv_int(1);
			in[2] = tv_int(20);
			nin = 3;
		} else if (!strcmp(kinds[k], "aten::gelu")) {
			in[1] = tv_str("none");
			nin = 2;
		}
		o = run1(kinds[k], in, nin);
		if (!o) {
			unit_fail(__FILE__, __LINE__, "%s failed", kinds[k]);
			continue;
		}
		y = host(o);
		for (i = 0; i < 12; i++)
			if (!NEAR(y[i], ref_act(kinds[k], x[i]), 1e-5))
				unit_fail(__FILE__, __LINE__, "%s(%g) = %g, "
					  "want %g", kinds[k], x[i], y[i],
					  ref_act(kinds[k], x[i]));
		free(y);
		tv_unref(o);
	}
	/* sqrt of an int tensor is float */
	{
		double v[3] = { 1, 4, 9 };
		int64_t d3 = 3;
		struct tval *in[1] = { mk(IR_DTYPE_INT64, 1, &d3, v) }, *o;

		o = run1("aten::sqrt", in, 1);
		CHECK(o && o->u.t->dtype == IR_DTYPE_FLOAT);
		if (o) {
			y = host(o);
			CHECK(y[0] == 1 && y[1] == 2 && y[2] == 3);
			free(y);
			tv_unref(o);
		}
	}
}

static void test_leaky_elu_clamp(void)
{
	int64_t d[1] = { 8 };
	double x[8], *y;
	struct tval *in[4], *o;
	int i;

	if (setup())
		return;
	in[0] = mk_rand(IR_DTYPE_FLOAT, 1, d, x);
	in[1] = tv_float(0.2);
	o = run1("aten::leaky_relu", in, 2);
	CHECK(o != NULL);
	if (o) {
		y = host(o);
		for (i = 0; i < 8; i++)
			CHECK(NEAR(y[i], x[i] > 0 ? x[i] : 0.2 * x[i], 1e-6));
		free(y);
		tv_unref(o);
	}
	in[0] = mk(IR_DTYPE_FLOAT, 1, d, x);
	in[1] = tv_float(0.7);
	in[2] = tv_int(2);
	in[3] = tv_int(3);
	o = run1("aten::elu", in, 4);
	CHECK(o != NULL);
	if (o) {
		y = host(o);
		for (i = 0; i < 8; i++)
			CHECK(NEAR(y[i], x[i] > 0 ? 2 * x[i] :
				   2 * 0.7 * (exp(3 * x[i]) - 1), 1e-5));
		free(y);
		tv_unref(o);
	}
	in[0] = mk(IR_DTYPE_FLOAT, 1, d, x);
	in[1] = tv_float(-0.5);
	in[2] = tv_none();
	o = run1("aten::clamp", in, 3);
	CHECK(o != NULL);
	if (o) {
		y = host(o);
		for (i = 0; i < 8; i++)
			CHECK(NEAR(y[i], fmax(x[i], -0.5), 1e-7));
		free(y);
		tv_unref(o);
	}
	/* clamp with tensor bounds */
	{
		double lo[8], hi[8];
		struct tval *t;

		for (i = 0; i < 8; i++) {
			lo[i] = -1 + 0.1 * i;
			hi[i] = lo[i] + 0.5;
		}
		in[0] = mk(IR_DTYPE_FLOAT, 1, d, x);
		in[1] = mk(IR_DTYPE_FLOAT, 1, d, lo);
		in[2] = mk(IR_DTYPE_FLOAT, 1, d, hi);
		t = run1("aten::clamp", in, 3);
		CHECK(t != NULL);
		if (t) {
			y = host(t);
			for (i = 0; i < 8; i++)
				CHECK(NEAR(y[i], fmin(fmax(x[i], lo[i]),
						      hi[i]), 1e-7));
			free(y);
			tv_unref(t);
		}
	}
}

static void test_where_masked_fill(void)
{
	int64_t d[2] = { 2, 3 }, d1[1] = { 3 };
	double x[6], m[3] = { 1, 0, 1 }, *y;
	struct tval *in[3], *o;
	int i;

	if (setup())
		return;
	in[0] = mk_rand(IR_DTYPE_FLOAT, 2, d, x);
	in[1] = mk(IR_DTYPE_BOOL, 1, d1, m);
	in[2] = tv_float(-9);
	o = run1("aten::masked_fill", in, 3);
	CHECK(check_dims(o, 2, d));
	if (o) {
		y = host(o);
		for (i = 0; i < 6; i++)
			CHECK(NEAR(y[i], m[i % 3] ? -9 : x[i], 1e-7));
		free(y);
		tv_unref(o);
	}
	/* where(cond, tensor, scalar) */
	in[0] = mk(IR_DTYPE_BOOL, 1, d1, m);
	in[1] = mk(IR_DTYPE_FLOAT, 2, d, x);
	in[2] = tv_int(7);
	o = run1("aten::where", in, 3);
	CHECK(o && o->u.t->dtype == IR_DTYPE_FLOAT && check_dims(o, 2, d));
	if (o) {
		y = host(o);
		for (i = 0; i < 6; i++)
			CHECK(NEAR(y[i], m[i % 3] ? x[i] : 7, 1e-7));
		free(y);
		tv_unref(o);
	}
	/* where(cond): indices of the non-zeros, per dim */
	{
		double c[6] = { 0, 1, 0, 1, 1, 0 };
		struct tval *l;

		in[0] = mk(IR_DTYPE_FLOAT, 2, d, c);
		l = run1("aten::where", in, 1);
		CHECK(l && l->kind == TV_LIST && l->u.list.n == 2);
		if (l && l->kind == TV_LIST && l->u.list.n == 2) {
			double *r = host(l->u.list.items[0]);
			double *cc = host(l->u.list.items[1]);

			CHECK(gpu_numel(l->u.list.items[0]->u.t) == 3);
			CHECK(r[0] == 0 && r[1] == 1 && r[2] == 1);
			CHECK(cc[0] == 1 && cc[1] == 0 && cc[2] == 1);
			free(r);
			free(cc);
		}
		tv_unref(l);
	}
}

/* --- reductions ------------------------------------------------------------ */

static struct tval *int_list(int n, const int64_t *v)
{
	struct tval *l = tv_list(TV_LIST);
	int i;

	for (i = 0; i < n; i++)
		tv_list_push(l, tv_int(v[i]));
	return l;
}

static void test_reductions(void)
{
	int64_t d[3] = { 2, 3, 4 }, ax1 = 1, axes[2] = { 0, 2 };
	double x[24], *y;
	struct tval *in[4], *o, *outs[2];
	int i, j, k;

	if (setup())
		return;
	/* sum over dim 1, keepdim false */
	in[0] = mk_rand(IR_DTYPE_FLOAT, 3, d, x);
	in[1] = int_list(1, &ax1);
	in[2] = tv_bool(0);
	in[3] = tv_none();
	o = run1("aten::sum", in, 4);
	{
		int64_t want[2] = { 2, 4 };

		CHECK(check_dims(o, 2, want));
	}
	if (o) {
		y = host(o);
		for (i = 0; i < 2; i++)
			for (k = 0; k < 4; k++) {
				double s = 0;

				for (j = 0; j < 3; j++)
					s += x[i * 12 + j * 4 + k];
				CHECK(NEAR(y[i * 4 + k], s, 1e-5));
			}
		free(y);
		tv_unref(o);
	}
	/* mean over dims 0 and 2, keepdim */
	in[0] = mk(IR_DTYPE_FLOAT, 3, d, x);
	in[1] = int_list(2, axes);
	in[2] = tv_bool(1);
	in[3] = tv_none();
	o = run1("aten::mean", in, 4);
	{
		int64_t want[3] = { 1, 3, 1 };

		CHECK(check_dims(o, 3, want));
	}
	if (o) {
		y = host(o);
		for (j = 0; j < 3; j++) {
			double s = 0;

			for (i = 0; i < 2; i++)
				for (k = 0; k < 4; k++)
					s += x[i * 12 + j * 4 + k];
			CHECK(NEAR(y[j], s / 8, 1e-5));
		}
		free(y);
		tv_unref(o);
	}
	/* var (unbiased) and mean over everything: var_mean */
	in[0] = mk(IR_DTYPE_FLOAT, 3, d, x);
	in[1] = tv_bool(1);
	if (!run("aten::var_mean", in, 2, outs, 2)) {
		double *v = host(outs[0]), *mn = host(outs[1]), s = 0, ss = 0;

		for (i = 0; i < 24; i++)
			s += x[i];
		for (i = 0; i < 24; i++)
			ss += (x[i] - s / 24) * (x[i] - s / 24);
		CHECK(outs[0]->u.t->rank == 0);
		CHECK(NEAR(v[0], ss / 23, 1e-5));
		CHECK(NEAR(mn[0], s / 24, 1e-5));
		free(v);
		free(mn);
	} else {
		CHECK(!"var_mean failed");
	}
	tv_unref(outs[0]);
	tv_unref(outs[1]);
	/* std with correction=0 over dim 2 */
	in[0] = mk(IR_DTYPE_FLOAT, 3, d, x);
	in[1] = tv_int(2);
	in[2] = tv_int(0);
	in[3] = tv_bool(0);
	o = run1("aten::std", in, 4);
	CHECK(o != NULL);
	if (o) {
		y = host(o);
		for (i = 0; i < 6; i++) {
			double s = 0, ss = 0;

			for (k = 0; k < 4; k++)
				s += x[i * 4 + k];
			for (k = 0; k < 4; k++)
				ss += (x[i * 4 + k] - s / 4) *
				      (x[i * 4 + k] - s / 4);
			CHECK(NEAR(y[i], sqrt(ss / 4), 1e-5));
		}
		free(y);
		tv_unref(o);
	}
	/* max.dim: values and indices */
	in[0] = mk(IR_DTYPE_FLOAT, 3, d, x);
	in[1] = tv_int(-1);
	in[2] = tv_bool(0);
	if (!run("aten::max", in, 3, outs, 2)) {
		double *v = host(outs[0]), *ix = host(outs[1]);

		CHECK(outs[1]->u.t->dtype == IR_DTYPE_INT64);
		for (i = 0; i < 6; i++) {
			int best = 0;

			for (k = 1; k < 4; k++)
				if (x[i * 4 + k] > x[i * 4 + best])
					best = k;
			CHECK(NEAR(v[i], x[i * 4 + best], 1e-7));
			CHECK_INT(ix[i], best);
		}
		free(v);
		free(ix);
	} else {
		CHECK(!"max.dim failed");
	}
	tv_unref(outs[0]);
	tv_unref(outs[1]);
	/* argmin over everything with keepdim: shape of ones */
	in[0] = mk(IR_DTYPE_FLOAT, 3, d, x);
	in[1] = tv_none();
	in[2] = tv_bool(1);
	o = run1("aten::argmin", in, 3);
	{
		int64_t ones[3] = { 1, 1, 1 };
		int best = 0;

		CHECK(check_dims(o, 3, ones));
		for (i = 1; i < 24; i++)
			if (x[i] < x[best])
				best = i;
		if (o) {
			y = host(o);
			CHECK_INT(y[0], best);
			free(y);
		}
		tv_unref(o);
	}
	/* sum of an int tensor is int64; prod too */
	{
		int64_t d4 = 4;
		double v[4] = { 1, -2, 3, 4 };

		in[0] = mk(IR_DTYPE_INT32, 1, &d4, v);
		in[1] = tv_none();
		o = run1("aten::prod", in, 2);
		CHECK(o && o->u.t->dtype == IR_DTYPE_INT64 &&
		      o->u.t->rank == 0);
		if (o) {
			y = host(o);
			CHECK_INT(y[0], -24);
			free(y);
			tv_unref(o);
		}
	}
	/* logsumexp, cumsum, norms */
	in[0] = mk(IR_DTYPE_FLOAT, 3, d, x);
	in[1] = int_list(1, &ax1);
	in[2] = tv_bool(0);
	o = run1("aten::logsumexp", in, 3);
	CHECK(o != NULL);
	if (o) {
		y = host(o);
		for (i = 0; i < 2; i++)
			for (k = 0; k < 4; k++) {
				double s = 0;

				for (j = 0; j < 3; j++)
					s += exp(x[i * 12 + j * 4 + k]);
				CHECK(NEAR(y[i * 4 + k], log(s), 1e-5));
			}
		free(y);
		tv_unref(o);
	}
	in[0] = mk(IR_DTYPE_FLOAT, 3, d, x);
	in[1] = tv_int(2);
	in[2] = tv_none();
	o = run1("aten::cumsum", in, 3);
	CHECK(check_dims(o, 3, d));
	if (o) {
		y = host(o);
		for (i = 0; i < 6; i++) {
			double s = 0;

			for (k = 0; k < 4; k++) {
				s += x[i * 4 + k];
				CHECK(NEAR(y[i * 4 + k], s, 1e-5));
			}
		}
		free(y);
		tv_unref(o);
	}
	{
		static const double ps[] = { 1, 2, 3, INFINITY };
		size_t p;

		for (p = 0; p < sizeof(ps) / sizeof(ps[0]); p++) {
			double s = 0;

			in[0] = mk(IR_DTYPE_FLOAT, 3, d, x);
			in[1] = tv_float(ps[p]);
			o = run1("aten::norm", in, 2);
			if (!o) {
				CHECK(!"norm failed");
				continue;
			}
			for (i = 0; i < 24; i++)
				s = isinf(ps[p]) ? fmax(s, fabs(x[i])) :
				    s + pow(fabs(x[i]), ps[p]);
			if (!isinf(ps[p]))
				s = pow(s, 1 / ps[p]);
			y = host(o);
			CHECK(NEAR(y[0], s, 1e-5));
			free(y);
			tv_unref(o);
		}
	}
}

/* --- in place, creation, conversion ------------------------------------------ */

static void test_inplace_view(void)
{
	int64_t d[2] = { 3, 4 }, cd = 3, cs = 4;
	double x[12], *y;
	struct tval *base, *col, *in[3], *o;
	int i;

	if (setup())
		return;
	base = mk_rand(IR_DTYPE_FLOAT, 2, d, x);
	/* col = base[:, 1] */
	col = tv_tensor(gpu_view(base->u.t, 1, &cd, &cs, 1));
	in[0] = tv_ref(col);
	in[1] = tv_int(10);
	in[2] = tv_int(1);
	o = run1("aten::add_", in, 3);
	CHECK(o && o->u.t->storage == base->u.t->storage);
	tv_unref(o);
	y = host(base);
	for (i = 0; i < 12; i++)
		CHECK(NEAR(y[i], x[i] + (i % 4 == 1 ? 10 : 0), 1e-6));
	free(y);
	/* relu_ on the whole tensor */
	in[0] = tv_ref(base);
	o = run1("aten::relu_", in, 1);
	tv_unref(o);
	y = host(base);
	for (i = 0; i < 12; i++)
		CHECK(NEAR(y[i], fmax(x[i] + (i % 4 == 1 ? 10 : 0), 0), 1e-6));
	free(y);
	/* float result into an int tensor is refused */
	{
		int64_t d2 = 2;
		double v[2] = { 1, 2 };

		in[0] = mk(IR_DTYPE_INT64, 1, &d2, v);
		in[1] = tv_float(0.5);
		in[2] = tv_int(1);
		o = run1("aten::add_", in, 3);
		CHECK(o == NULL);
	}
	/* fill_ and zero_ through the column view */
	in[0] = tv_ref(col);
	in[1] = tv_float(3.25);
	o = run1("aten::fill_", in, 2);
	tv_unref(o);
	y = host(base);
	for (i = 0; i < 12; i++)
		if (i % 4 == 1)
			CHECK(y[i] == 3.25);
	free(y);
	tv_unref(col);
	tv_unref(base);
	/* a mapped (borrowed, here read-only) weight gets a private copy
	 * before an in-place write; the bytes it maps stay as they were */
	{
		static const double w[3] = { 1.5, -2, 4 };
		int64_t d3 = 3;
		struct gpu_tensor *t = gpu_from_host(ctx.be, IR_DTYPE_DOUBLE,
						     1, &d3, NULL, w,
						     sizeof(w));
		struct tval *tv = tv_tensor(t);

		CHECK(tv != NULL);
		if (!tv)
			return;
		in[0] = tv_ref(tv);
		in[1] = tv_int(1);
		o = run1("aten::mul_", in, 2);
		tv_unref(o);
		in[0] = tv_ref(tv);
		in[1] = tv_float(0.5);
		in[2] = tv_int(1);
		o = run1("aten::add_", in, 3);
		CHECK(o && o->u.t->storage == tv->u.t->storage);
		tv_unref(o);
		y = host(tv);
		for (i = 0; i < 3; i++)
			CHECK(y[i] == w[i] + 0.5);
		CHECK(w[0] == 1.5 && w[1] == -2 && w[2] == 4);
		free(y);
		tv_unref(tv);
	}
}

static void test_creation(void)
{
	struct tval *in[7], *o;
	double *y;
	int64_t sz[2] = { 2, 3 };
	int i;

	if (setup())
		return;
	/* full with an int fill: int64 */
	in[0] = int_list(2, sz);
	in[1] = tv_int(7);
	for (i = 2; i < 6; i++)
		in[i] = tv_none();
	o = run1("aten::full", in, 6);
	CHECK(o && o->u.t->dtype == IR_DTYPE_INT64 && check_dims(o, 2, sz));
	if (o) {
		y = host(o);
		for (i = 0; i < 6; i++)
			CHECK(y[i] == 7);
		free(y);
		tv_unref(o);
	}
	/* zeros: float */
	in[0] = int_list(2, sz);
	for (i = 1; i < 5; i++)
		in[i] = tv_none();
	o = run1("aten::zeros", in, 5);
	CHECK(o && o->u.t->dtype == IR_DTYPE_FLOAT);
	tv_unref(o);
	/* arange(start, end, step) ints and floats */
	in[0] = tv_int(-3);
	in[1] = tv_int(8);
	in[2] = tv_int(3);
	for (i = 3; i < 7; i++)
		in[i] = tv_none();
	o = run1("aten::arange", in, 7);
	CHECK(o && o->u.t->dtype == IR_DTYPE_INT64 &&
	      gpu_numel(o->u.t) == 4);
	if (o) {
		y = host(o);
		for (i = 0; i < 4; i++)
			CHECK(y[i] == -3 + 3 * i);
		free(y);
		tv_unref(o);
	}
	in[0] = tv_float(0.5);
	for (i = 1; i < 5; i++)
		in[i] = tv_none();
	o = run1("aten::arange", in, 5);
	CHECK(o && o->u.t->dtype == IR_DTYPE_FLOAT && gpu_numel(o->u.t) == 1);
	tv_unref(o);
	/* linspace */
	in[0] = tv_int(-1);
	in[1] = tv_int(2);
	in[2] = tv_int(7);
	for (i = 3; i < 7; i++)
		in[i] = tv_none();
	o = run1("aten::linspace", in, 7);
	CHECK(o && gpu_numel(o->u.t) == 7);
	if (o) {
		y = host(o);
		for (i = 0; i < 7; i++)
			CHECK(NEAR(y[i], -1 + 0.5 * i, 1e-6));
		free(y);
		tv_unref(o);
	}
	/* eye(n, m) */
	in[0] = tv_int(2);
	in[1] = tv_int(3);
	for (i = 2; i < 6; i++)
		in[i] = tv_none();
	o = run1("aten::eye", in, 6);
	CHECK(check_dims(o, 2, sz));
	if (o) {
		y = host(o);
		for (i = 0; i < 6; i++)
			CHECK(y[i] == (i / 3 == i % 3));
		free(y);
		tv_unref(o);
	}
	/* tensor([[1, 2.5], [3, 4]]) */
	{
		struct tval *l = tv_list(TV_LIST), *r1 = tv_list(TV_LIST),
			    *r2 = tv_list(TV_LIST);
		int64_t d22[2] = { 2, 2 };

		tv_list_push(r1, tv_int(1));
		tv_list_push(r1, tv_float(2.5));
		tv_list_push(r2, tv_int(3));
		tv_list_push(r2, tv_int(4));
		tv_list_push(l, r1);
		tv_list_push(l, r2);
		in[0] = l;
		in[1] = tv_none();
		in[2] = tv_none();
		in[3] = tv_bool(0);
		o = run1("aten::tensor", in, 4);
		CHECK(o && o->u.t->dtype == IR_DTYPE_FLOAT &&
		      check_dims(o, 2, d22));
		if (o) {
			y = host(o);
			CHECK(y[0] == 1 && y[1] == 2.5 && y[2] == 3 &&
			      y[3] == 4);
			free(y);
			tv_unref(o);
		}
	}
	/* rand: in [0, 1), deterministic for one seed */
	{
		double *a, *b;
		struct tval *o2;
		int64_t s = 100;

		ctx.seed = 7;
		in[0] = int_list(1, &s);
		for (i = 1; i < 5; i++)
			in[i] = tv_none();
		o = run1("aten::rand", in, 5);
		ctx.seed = 7;
		in[0] = int_list(1, &s);
		for (i = 1; i < 5; i++)
			in[i] = tv_none();
		o2 = run1("aten::rand", in, 5);
		CHECK(o && o2);
		if (o && o2) {
			a = host(o);
			b = host(o2);
			for (i = 0; i < 100; i++)
				CHECK(a[i] >= 0 && a[i] < 1 && a[i] == b[i]);
			free(a);
			free(b);
		}
		tv_unref(o);
		tv_unref(o2);
	}
}

static void test_conversion(void)
{
	int64_t d[1] = { 4 };
	double x[4] = { -1.7, 0.2, 2.9, -0.0 }, *y;
	struct tval *in[6], *o, *src;
	int i;

	if (setup())
		return;
	/* to.dtype(self, Long, non_blocking, copy, memory_format) */
	src = mk(IR_DTYPE_FLOAT, 1, d, x);
	in[0] = tv_ref(src);
	in[1] = tv_int(4);
	in[2] = tv_bool(0);
	in[3] = tv_bool(0);
	in[4] = tv_none();
	o = run1("aten::to", in, 5);
	CHECK(o && o->u.t->dtype == IR_DTYPE_INT64);
	if (o) {
		y = host(o);
		for (i = 0; i < 4; i++)
			CHECK_INT(y[i], trunc(x[i]));
		free(y);
		tv_unref(o);
	}
	/* to the same dtype without copy: the same storage */
	in[0] = tv_ref(src);
	in[1] = tv_int(6);
	in[2] = tv_bool(0);
	in[3] = tv_bool(0);
	in[4] = tv_none();
	o = run1("aten::to", in, 5);
	CHECK(o && o->u.t->storage == src->u.t->storage);
	tv_unref(o);
	/* clone never shares */
	in[0] = tv_ref(src);
	in[1] = tv_none();
	o = run1("aten::clone", in, 2);
	CHECK(o && o->u.t->storage != src->u.t->storage);
	tv_unref(o);
	/* bool conversion of ints: != 0 */
	in[0] = tv_ref(src);
	in[1] = tv_int(11);
	in[2] = tv_bool(0);
	in[3] = tv_bool(0);
	in[4] = tv_none();
	o = run1("aten::to", in, 5);
	CHECK(o && o->u.t->dtype == IR_DTYPE_BOOL);
	if (o) {
		y = host(o);
		for (i = 0; i < 4; i++)
			CHECK_INT(y[i], x[i] != 0);
		free(y);
		tv_unref(o);
	}
	tv_unref(src);
}

static void test_errors(void)
{
	int64_t a[1] = { 3 }, b[1] = { 4 };
	double v[4] = { 1, 2, 3, 4 };
	struct tval *in[3], *o;
	int before;

	if (setup())
		return;
	before = dg.nerrors;
	in[0] = mk(IR_DTYPE_FLOAT, 1, a, v);
	in[1] = mk(IR_DTYPE_FLOAT, 1, b, v);
	in[2] = tv_int(1);
	o = run1("aten::add", in, 3);
	CHECK(o == NULL);
	CHECK(dg.nerrors == before + 1);
	in[0] = mk(IR_DTYPE_FLOAT, 1, a, v);
	in[1] = tv_int(5);
	in[2] = tv_bool(0);
	o = run1("aten::sum", in, 3);
	CHECK(o == NULL);
	in[0] = mk(IR_DTYPE_INT64, 1, a, v);
	in[1] = tv_none();
	o = run1("aten::mean", in, 2);
	CHECK(o == NULL);
}

/* every op of the table, given arguments of the wrong kinds, returns 0 or
 * -1 with an error (never crashes, leaks or succeeds without a value) */
static void test_every_op_robust(void)
{
	const struct trace_op *o;
	int64_t d[2] = { 2, 3 };
	double v[6] = { 1, -2, 3, 0.5, -0.25, 2 };
	int variant, i;

	if (setup())
		return;
	for (o = trace_ops_tensor; o->op != OP_NONE; o++) {
		for (variant = 0; variant < 4; variant++) {
			struct tval *in[8], *out[2] = { NULL, NULL };
			struct ir_node n;
			int rc;

			for (i = 0; i < 8; i++) {
				switch (variant) {
				case 0:
					in[i] = i ? tv_none() :
						mk(IR_DTYPE_FLOAT, 2, d, v);
					break;
				case 1:
					in[i] = i < 3 ?
						mk(IR_DTYPE_FLOAT, 2, d, v) :
						tv_none();
					break;
				case 2:
					in[i] = i ? tv_int(1) :
						mk(IR_DTYPE_INT64, 2, d, v);
					break;
				default:
					in[i] = tv_str("x");
					break;
				}
			}
			memset(&n, 0, sizeof(n));
			n.kind = aten_op_name(o->op);
			n.op = o->op;
			ctx.node = &n;
			rc = o->fn(&ctx, &n, in, 8, out, 2);
			if (rc != 0 && rc != -1)
				unit_fail(__FILE__, __LINE__, "%s: rc %d",
					  n.kind, rc);
			if (rc == 0 && !out[0])
				unit_fail(__FILE__, __LINE__, "%s: no output",
					  n.kind);
			for (i = 0; i < 8; i++)
				tv_unref(in[i]);
			tv_unref(out[0]);
			tv_unref(out[1]);
			ctx.node = NULL;
		}
	}
}

const struct unit_test unit_tests[] = {
	UNIT(test_promote),
	UNIT(test_broadcast_axis),
	UNIT(test_add_alpha_broadcast),
	UNIT(test_int_division),
	UNIT(test_unary),
	UNIT(test_leaky_elu_clamp),
	UNIT(test_where_masked_fill),
	UNIT(test_reductions),
	UNIT(test_inplace_view),
	UNIT(test_creation),
	UNIT(test_conversion),
	UNIT(test_errors),
	UNIT(test_every_op_robust),
	{ 0 },
};

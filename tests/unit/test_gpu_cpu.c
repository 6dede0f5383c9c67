/*
 * test_gpu_cpu.c - the CPU backend (lib/gpu/cpu*.c, gpu.c) against naive
 * references written here: tensor views and refcounts, casts, elementwise
 * ops with broadcasting and strides, reductions, matmul, convolution
 * (direct loops), pooling, norms, softmax, indexing, topk, pad and resize,
 * on random data over several shapes and dtypes.  Kernel timings against
 * torch are in bench/kernels.py.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"
#include "unit.h"

static uint64_t rng = 88172645463325252ull;

static double urand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (double)(rng >> 11) / 9007199254740992.0;
}

static const struct gpu_backend *be(void)
{
	return gpu_backend_get(GPU_BACKEND_CPU);
}

/* A tensor of dtype dt with values v (row-major), via a double staging
 * tensor and the backend's copy. */
static struct gpu_tensor *mk(enum ir_dtype dt, int rank, const int64_t *dims,
			     const double *v)
{
	struct gpu_tensor *d, *t;
	int64_t n = 1;

	for (int i = 0; i < rank; i++)
		n *= dims[i];
	d = gpu_from_host(be(), IR_DTYPE_DOUBLE, rank, dims, NULL, v,
			  (size_t)n * sizeof(double));
	t = gpu_empty(be(), dt, rank, dims);
	if (!d || !t || be()->copy(d, t))
		unit_fail(__FILE__, __LINE__, "mk: %s", gpu_last_error());
	gpu_free(d);
	return t;
}

static double *rnd(int64_t n, double lo, double hi, int integral)
{
	double *v = malloc((size_t)(n ? n : 1) * sizeof(double));

	for (int64_t i = 0; i < n; i++) {
		v[i] = lo + (hi - lo) * urand();
		if (integral)
			v[i] = floor(v[i]);
	}
	return v;
}

/* t's values as doubles (caller frees) */
static double *vals(const struct gpu_tensor *t)
{
	int64_t n = gpu_numel(t);
	double *v = malloc((size_t)(n ? n : 1) * sizeof(double));

	if (gpu_to_host(t, IR_DTYPE_DOUBLE, v))
		unit_fail(__FILE__, __LINE__, "to_host: %s", gpu_last_error());
	return v;
}

static int close_to(double a, double b, double tol)
{
	if (isnan(a) || isnan(b))
		return isnan(a) && isnan(b);
	if (isinf(a) || isinf(b))
		return a == b;
	return fabs(a - b) <= tol * (1 + fabs(b));
}

/* compares n values, reports the first mismatch */
static void expect(const char *what, const double *got, const double *want,
		   int64_t n, double tol)
{
	for (int64_t i = 0; i < n; i++)
		if (!close_to(got[i], want[i], tol)) {
			unit_fail(__FILE__, __LINE__, "%s: [%lld] %.9g != %.9g",
				  what, (long long)i, got[i], want[i]);
			return;
		}
}

static void expect_t(const char *what, const struct gpu_tensor *t,
		     const double *want, double tol)
{
	double *g = vals(t);

	expect(what, g, want, gpu_numel(t), tol);
	free(g);
}

/* --- tensors ----------------------------------------------------------------- */

static void test_views(void)
{
	int64_t d[3] = { 2, 3, 4 }, td[2] = { 4, 3 }, ts[2] = { 1, 4 };
	double *v = rnd(24, -1, 1, 0), *g;
	struct gpu_tensor *a = mk(IR_DTYPE_FLOAT, 3, d, v), *t, *c, *c2;

	CHECK_INT(gpu_numel(a), 24);
	CHECK(gpu_is_contiguous(a));
	CHECK_INT(a->storage->refs, 1);
	/* the transpose of a[1] (a [3, 4] matrix at offset 12) */
	t = gpu_view(a, 2, td, ts, 12);
	CHECK_INT(a->storage->refs, 2);
	CHECK(!gpu_is_contiguous(t));
	c = gpu_contiguous(t);
	CHECK(gpu_is_contiguous(c));
	g = vals(c);
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 3; j++)
			CHECK(g[i * 3 + j] == (double)(float)v[12 + j * 4 + i]);
	CHECK(gpu_item_double(t, 5) == (double)(float)v[12 + 2 * 4 + 1]);
	c2 = gpu_contiguous(c); /* already contiguous: shares storage */
	CHECK(c2->storage == c->storage);
	gpu_free(c2);
	gpu_free(c);
	gpu_free(a);
	CHECK_INT(t->storage->refs, 1);
	gpu_free(t);
	gpu_free(NULL);
	free(g);
	free(v);
	CHECK(gpu_empty(be(), IR_DTYPE_FLOAT, 9, d) == NULL);
	CHECK(strstr(gpu_last_error(), "rank") != NULL);
	CHECK(gpu_threads() >= 1);
	CHECK(gpu_backend_available(GPU_BACKEND_CPU));
	CHECK_STR(gpu_backend_name(GPU_BACKEND_CPU), "cpu");
}

static void test_copy_casts(void)
{
	static const enum ir_dtype dts[] = {
		IR_DTYPE_FLOAT, IR_DTYPE_DOUBLE, IR_DTYPE_FLOAT16,
		IR_DTYPE_BFLOAT16, IR_DTYPE_INT64, IR_DTYPE_INT32,
		IR_DTYPE_INT16, IR_DTYPE_INT8, IR_DTYPE_UINT8, IR_DTYPE_BOOL,
	};
	/* values every dtype holds exactly (small ints), plus fractions */
	double v[8] = { 0, 1, 2, 3, 100, 7, 1.75, 2.5 };
	int64_t d[1] = { 8 };

	for (size_t a = 0; a < sizeof(dts) / sizeof(dts[0]); a++)
		for (size_t b = 0; b < sizeof(dts) / sizeof(dts[0]); b++) {
			struct gpu_tensor *x = mk(dts[a], 1, d, v);
			struct gpu_tensor *y = gpu_empty(be(), dts[b], 1, d);
			double *gx = vals(x), *gy, want[8];

			CHECK(be()->copy(x, y) == 0);
			gy = vals(y);
			for (int i = 0; i < 8; i++) {
				double s = gx[i];

				if (dts[b] == IR_DTYPE_BOOL)
					want[i] = s != 0;
				else if (dts[b] != IR_DTYPE_FLOAT &&
					 dts[b] != IR_DTYPE_DOUBLE &&
					 dts[b] != IR_DTYPE_FLOAT16 &&
					 dts[b] != IR_DTYPE_BFLOAT16)
					want[i] = trunc(s);
				else
					want[i] = s;
			}
			expect("cast", gy, want, 8, 0);
			free(gx);
			free(gy);
			gpu_free(x);
			gpu_free(y);
		}
	/* float16 / bfloat16 rounding: to nearest even */
	{
		double in[4] = { 1.0 + 1.0 / 2048, 1.0 + 3.0 / 2048, 65504,
				 1e-7 };
		double w16[4] = { 1.0, 1.0 + 4.0 / 2048, 65504,
				  1.0 / (1 << 24) * 2 };
		int64_t d4[1] = { 4 };
		struct gpu_tensor *x = mk(IR_DTYPE_FLOAT, 1, d4, in);
		struct gpu_tensor *h = gpu_empty(be(), IR_DTYPE_FLOAT16, 1, d4);

		CHECK(be()->copy(x, h) == 0);
		expect_t("f16 rounding", h, w16, 0);
		gpu_free(x);
		gpu_free(h);
	}
	/* integer wrap: 300 -> uint8 44, -1 -> uint8 255 */
	{
		double in[2] = { 300, -1 }, want[2] = { 44, 255 };
		int64_t d2[1] = { 2 };
		struct gpu_tensor *x = mk(IR_DTYPE_INT64, 1, d2, in);
		struct gpu_tensor *u = gpu_empty(be(), IR_DTYPE_UINT8, 1, d2);

		CHECK(be()->copy(x, u) == 0);
		expect_t("wrap", u, want, 0);
		gpu_free(x);
		gpu_free(u);
	}
}

/* --- elementwise -------------------------------------------------------------- */

static double ref_unary(enum gpu_unary op, double x, double a, double b)
{
	switch (op) {
	case GPU_NEG: return -x;
	case GPU_ABS: return fabs(x);
	case GPU_EXP: return exp(x);
	case GPU_LOG: return log(x);
	case GPU_SQRT: return sqrt(x);
	case GPU_TANH: return tanh(x);
	case GPU_SIGMOID: return 1 / (1 + exp(-x));
	case GPU_RELU: return x > 0 ? x : 0;
	case GPU_GELU:
		return a ? 0.5 * x * (1 + tanh(sqrt(2 / M_PI) *
					       (x + 0.044715 * x * x * x)))
			 : x * 0.5 * (1 + erf(x / sqrt(2)));
	case GPU_SILU: return x / (1 + exp(-x));
	case GPU_HARDTANH: return x < a ? a : (x > b ? b : x);
	case GPU_HARDSWISH: return x * fmin(fmax(x + 3, 0), 6) / 6;
	case GPU_HARDSIGMOID: return fmin(fmax(x + 3, 0), 6) / 6;
	case GPU_LEAKY_RELU: return x >= 0 ? x : a * x;
	case GPU_ELU: return x > 0 ? b * x : b * a * (exp(x) - 1);
	case GPU_SOFTPLUS: return x * a > b ? x : log(1 + exp(a * x)) / a;
	case GPU_ROUND: return nearbyint(x);
	case GPU_FLOOR: return floor(x);
	case GPU_SIGN: return x > 0 ? 1 : (x < 0 ? -1 : 0);
	case GPU_POW_SCALAR: return pow(x, a);
	case GPU_ERF: return erf(x);
	case GPU_MISH: return x * tanh(log(1 + exp(x)));
	default: return NAN;
	}
}

static void test_unary(void)
{
	static const enum gpu_unary ops[] = {
		GPU_NEG, GPU_ABS, GPU_EXP, GPU_LOG, GPU_SQRT, GPU_TANH,
		GPU_SIGMOID, GPU_RELU, GPU_GELU, GPU_SILU, GPU_HARDTANH,
		GPU_HARDSWISH, GPU_HARDSIGMOID, GPU_LEAKY_RELU, GPU_ELU,
		GPU_SOFTPLUS, GPU_ROUND, GPU_FLOOR, GPU_SIGN, GPU_POW_SCALAR,
		GPU_ERF, GPU_MISH,
	};
	int64_t d[2] = { 37, 29 }, td[2] = { 29, 37 }, ts[2] = { 1, 29 };

	for (int dbl = 0; dbl < 2; dbl++)
		for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++) {
			enum gpu_unary op = ops[k];
			int pos = op == GPU_LOG || op == GPU_SQRT;
			double *v = rnd(37 * 29, pos ? 0.01 : -5, 5, 0);
			double a = op == GPU_GELU ? (double)(k & 1) :
				   op == GPU_HARDTANH ? -1.5 :
				   op == GPU_LEAKY_RELU ? 0.1 :
				   op == GPU_ELU ? 1.3 :
				   op == GPU_SOFTPLUS ? 2 :
				   op == GPU_POW_SCALAR ? 3 : 0;
			double b = op == GPU_HARDTANH ? 2.5 :
				   op == GPU_ELU ? 1.05 :
				   op == GPU_SOFTPLUS ? 5 : 0;
			enum ir_dtype dt = dbl ? IR_DTYPE_DOUBLE : IR_DTYPE_FLOAT;
			struct gpu_tensor *x = mk(dt, 2, d, v), *xt, *y;
			double *want = malloc(sizeof(double) * 37 * 29), *xv;

			/* read the input transposed (strided) */
			xt = gpu_view(x, 2, td, ts, 0);
			y = gpu_empty(be(), dt, 2, td);
			xv = vals(x);
			for (int i = 0; i < 29; i++)
				for (int j = 0; j < 37; j++)
					want[i * 37 + j] = ref_unary(op,
						xv[j * 29 + i], a, b);
			CHECK(be()->unary(op, xt, y, a, b) == 0);
			expect(dbl ? "unary f64" : "unary f32",
			       (double[]){ 0 }, (double[]){ 0 }, 1, 0);
			{
				double *g = vals(y);

				for (int64_t i = 0; i < 37 * 29; i++)
					if (!close_to(g[i], want[i],
						      dbl ? 1e-12 : 2e-6)) {
						unit_fail(__FILE__, __LINE__,
							  "unary op %d dt %d [%lld]: "
							  "%.9g != %.9g", (int)op,
							  (int)dt, (long long)i,
							  g[i], want[i]);
						break;
					}
				free(g);
			}
			free(v);
			free(xv);
			free(want);
			gpu_free(x);
			gpu_free(xt);
			gpu_free(y);
		}
	/* integers: neg, abs, clamp; isnan -> bool; float16 via float */
	{
		int64_t d5[1] = { 5 };
		double v[5] = { -3, -1, 0, 2, 7 }, wabs[5] = { 3, 1, 0, 2, 7 };
		double wcl[5] = { -1, -1, 0, 2, 3 };
		struct gpu_tensor *x = mk(IR_DTYPE_INT32, 1, d5, v);
		struct gpu_tensor *y = gpu_empty(be(), IR_DTYPE_INT32, 1, d5);

		CHECK(be()->unary(GPU_ABS, x, y, 0, 0) == 0);
		expect_t("abs i32", y, wabs, 0);
		CHECK(be()->unary(GPU_HARDTANH, x, y, -1, 3) == 0);
		expect_t("clamp i32", y, wcl, 0);
		CHECK(be()->unary(GPU_EXP, x, y, 0, 0) == -1);
		gpu_free(x);
		gpu_free(y);
	}
	{
		int64_t d3[1] = { 3 };
		double v[3] = { 1, NAN, -INFINITY }, w[3] = { 0, 1, 0 };
		double wi[3] = { 0, 0, 1 }, we[3] = { M_E, NAN, 0 };
		struct gpu_tensor *x = mk(IR_DTYPE_FLOAT16, 1, d3, v);
		struct gpu_tensor *y = gpu_empty(be(), IR_DTYPE_BOOL, 1, d3);
		struct gpu_tensor *h = gpu_empty(be(), IR_DTYPE_FLOAT16, 1, d3);

		CHECK(be()->unary(GPU_ISNAN, x, y, 0, 0) == 0);
		expect_t("isnan", y, w, 0);
		CHECK(be()->unary(GPU_ISINF, x, y, 0, 0) == 0);
		expect_t("isinf", y, wi, 0);
		CHECK(be()->unary(GPU_EXP, x, h, 0, 0) == 0);
		expect_t("exp f16", h, we, 1e-3);
		gpu_free(x);
		gpu_free(y);
		gpu_free(h);
	}
}

/* python semantics, written independently of the kernels */
static double py_floordiv(double a, double b)
{
	return floor(a / b);
}

static double py_mod(double a, double b)
{
	return a - floor(a / b) * b;
}

static double ref_binary(enum gpu_binary op, double a, double b)
{
	switch (op) {
	case GPU_ADD: return a + b;
	case GPU_SUB: return a - b;
	case GPU_MUL: return a * b;
	case GPU_DIV: return a / b;
	case GPU_FLOOR_DIV: return py_floordiv(a, b);
	case GPU_TRUNC_DIV: return trunc(a / b);
	case GPU_REMAINDER: return py_mod(a, b);
	case GPU_FMOD: return fmod(a, b);
	case GPU_MAX: return a > b ? a : b;
	case GPU_MIN: return a < b ? a : b;
	case GPU_EQ: return a == b;
	case GPU_NE: return a != b;
	case GPU_LT: return a < b;
	case GPU_LE: return a <= b;
	case GPU_GT: return a > b;
	case GPU_GE: return a >= b;
	case GPU_LOGICAL_AND: return a != 0 && b != 0;
	case GPU_LOGICAL_OR: return a != 0 || b != 0;
	case GPU_LOGICAL_XOR: return (a != 0) != (b != 0);
	case GPU_BITWISE_AND: return (double)((int64_t)a & (int64_t)b);
	case GPU_BITWISE_OR: return (double)((int64_t)a | (int64_t)b);
	case GPU_BITWISE_XOR: return (double)((int64_t)a ^ (int64_t)b);
	case GPU_POW: return pow(a, b);
	case GPU_ATAN2: return atan2(a, b);
	default: return NAN;
	}
}

static void test_binary(void)
{
	/* y [4, 5, 6]: a broadcast [4, 1, 6], b [5, 1] (stride 0s) */
	int64_t yd[3] = { 4, 5, 6 }, ad[3] = { 4, 1, 6 }, bd[2] = { 5, 1 };
	static const enum ir_dtype dts[] = { IR_DTYPE_FLOAT, IR_DTYPE_DOUBLE,
					     IR_DTYPE_INT64, IR_DTYPE_INT32,
					     IR_DTYPE_INT8 };

	for (size_t t = 0; t < sizeof(dts) / sizeof(dts[0]); t++)
		for (int op = 0; op < GPU_BINARY_COUNT; op++) {
			enum ir_dtype dt = dts[t];
			int isf = dt == IR_DTYPE_FLOAT || dt == IR_DTYPE_DOUBLE;
			int cmp = (op >= GPU_EQ && op <= GPU_LOGICAL_XOR);
			double *av = rnd(24, -9, 9, !isf), *bv = rnd(5, -9, 9, !isf);
			struct gpu_tensor *a, *b, *av_, *bv_, *y;
			int64_t as[3] = { 6, 0, 1 }, bs[3] = { 0, 1, 0 };
			double want[120];
			int rc;

			if (!isf && (op == GPU_DIV || op == GPU_ATAN2))
				goto next;
			if (isf && op >= GPU_BITWISE_AND)
				goto next;
			if (op == GPU_POW) {
				for (int i = 0; i < 5; i++)
					bv[i] = isf ? bv[i] / 3 : fabs(bv[i]) / 3;
				for (int i = 0; i < 24; i++)
					av[i] = isf ? fabs(av[i]) : av[i];
			}
			for (int i = 0; i < 5; i++)
				if (bv[i] == 0)
					bv[i] = 3; /* no integer division by 0 */
			a = mk(dt, 3, ad, av);
			b = mk(dt, 2, bd, bv);
			av_ = gpu_view(a, 3, yd, as, 0);
			bv_ = gpu_view(b, 3, yd, bs, 0);
			y = gpu_empty(be(), cmp ? IR_DTYPE_BOOL : dt, 3, yd);
			{
				double *ga = vals(a), *gb = vals(b);

				for (int i = 0; i < 4; i++)
					for (int j = 0; j < 5; j++)
						for (int k = 0; k < 6; k++) {
							double r = ref_binary(op,
								ga[i * 6 + k], gb[j]);

							if (!isf && !cmp && dt == IR_DTYPE_INT8)
								r = (double)(int8_t)(int64_t)r;
							want[(i * 5 + j) * 6 + k] = r;
						}
				free(ga);
				free(gb);
			}
			rc = be()->binary(op, av_, bv_, y);
			CHECK(rc == 0);
			if (!rc) {
				double *g = vals(y);

				for (int i = 0; i < 120; i++)
					if (!close_to(g[i], want[i],
						      dt == IR_DTYPE_FLOAT ? 1e-6 : 1e-12)) {
						unit_fail(__FILE__, __LINE__,
							  "binary op %d dt %d [%d]: "
							  "%.9g != %.9g", op, (int)dt,
							  i, g[i], want[i]);
						break;
					}
				free(g);
			}
			gpu_free(a);
			gpu_free(b);
			gpu_free(av_);
			gpu_free(bv_);
			gpu_free(y);
next:
			free(av);
			free(bv);
		}
	/* integer division by zero is an error, not a crash */
	{
		int64_t d2[1] = { 2 };
		double a[2] = { 1, 2 }, z[2] = { 1, 0 };
		struct gpu_tensor *x = mk(IR_DTYPE_INT64, 1, d2, a);
		struct gpu_tensor *w = mk(IR_DTYPE_INT64, 1, d2, z);
		struct gpu_tensor *y = gpu_empty(be(), IR_DTYPE_INT64, 1, d2);

		CHECK(be()->binary(GPU_FLOOR_DIV, x, w, y) == -1);
		CHECK(strstr(gpu_last_error(), "division by zero") != NULL);
		gpu_free(x);
		gpu_free(w);
		gpu_free(y);
	}
}

static void test_where_fill_arange(void)
{
	int64_t d[2] = { 3, 4 }, cd[2] = { 3, 1 }, cs[2] = { 1, 0 };
	double cv[3] = { 1, 0, 1 }, *av = rnd(12, -1, 1, 0), want[12];
	struct gpu_tensor *c = mk(IR_DTYPE_BOOL, 2, cd, cv), *cb;
	struct gpu_tensor *a = mk(IR_DTYPE_FLOAT, 2, d, av);
	struct gpu_tensor *b = gpu_empty(be(), IR_DTYPE_FLOAT, 2, d);
	struct gpu_tensor *y = gpu_empty(be(), IR_DTYPE_FLOAT, 2, d);
	struct gpu_tensor *r = gpu_empty(be(), IR_DTYPE_INT64, 1, d + 1);
	double *ga = vals(a), wr[4] = { 5, 2, -1, -4 };

	CHECK(be()->fill(b, -2.5) == 0);
	cb = gpu_view(c, 2, d, cs, 0);
	for (int i = 0; i < 12; i++)
		want[i] = cv[i / 4] ? ga[i] : -2.5;
	CHECK(be()->where(cb, a, b, y) == 0);
	expect_t("where", y, want, 0);
	CHECK(be()->arange(r, 5, -3) == 0);
	expect_t("arange", r, wr, 0);
	gpu_free(c);
	gpu_free(cb);
	gpu_free(a);
	gpu_free(b);
	gpu_free(y);
	gpu_free(r);
	free(av);
	free(ga);
}

/* --- reduce ---------------------------------------------------------------- */

static void test_reduce(void)
{
	int64_t d[3] = { 3, 5, 7 };
	double *v = rnd(105, -4, 4, 0);
	struct gpu_tensor *xf = mk(IR_DTYPE_DOUBLE, 3, d, v);
	double *x = vals(xf);

	for (uint32_t mask = 1; mask < 8; mask++)
		for (int op = 0; op < GPU_REDUCE_COUNT; op++) {
			int64_t yd[3];
			int nbits = __builtin_popcount(mask);
			struct gpu_tensor *y;
			double want[105];
			int64_t nout = 1;

			if ((op == GPU_RARGMAX || op == GPU_RARGMIN) && nbits != 1)
				continue;
			for (int k = 0; k < 3; k++) {
				yd[k] = mask & (1u << k) ? 1 : d[k];
				nout *= yd[k];
			}
			y = gpu_empty(be(), op == GPU_RARGMAX || op == GPU_RARGMIN ?
				      IR_DTYPE_INT64 : op == GPU_RALL || op == GPU_RANY ?
				      IR_DTYPE_BOOL : IR_DTYPE_DOUBLE, 3, yd);
			for (int64_t o = 0; o < nout; o++) {
				int64_t oi[3] = { o / (yd[1] * yd[2]),
						  (o / yd[2]) % yd[1], o % yd[2] };
				double s = 0, s2 = 0, p = 1, mx = -INFINITY,
				       mn = INFINITY, l1 = 0, cnt = 0, best = 0;
				int64_t bi = -1, pos = 0;
				int all = 1, any = 0;

				for (int64_t i = 0; i < 3; i++)
				for (int64_t j = 0; j < 5; j++)
				for (int64_t k = 0; k < 7; k++) {
					int64_t ii[3] = { i, j, k };
					int in = 1;
					double e;

					for (int q = 0; q < 3; q++)
						if (!(mask & (1u << q)) && ii[q] != oi[q])
							in = 0;
					if (!in)
						continue;
					e = x[(i * 5 + j) * 7 + k];
					s += e;
					s2 += e * e;
					p *= e;
					mx = fmax(mx, e);
					mn = fmin(mn, e);
					l1 += fabs(e);
					all &= e != 0;
					any |= e != 0;
					if (bi < 0 || (op == GPU_RARGMAX ? e > best : e < best)) {
						best = e;
						bi = pos;
					}
					pos++;
					cnt++;
				}
				switch (op) {
				case GPU_RSUM: want[o] = s; break;
				case GPU_RMEAN: want[o] = s / cnt; break;
				case GPU_RPROD: want[o] = p; break;
				case GPU_RMAX: want[o] = mx; break;
				case GPU_RMIN: want[o] = mn; break;
				case GPU_RARGMAX: case GPU_RARGMIN: want[o] = (double)bi; break;
				case GPU_RALL: want[o] = all; break;
				case GPU_RANY: want[o] = any; break;
				case GPU_RL1: want[o] = l1; break;
				case GPU_RL2: want[o] = sqrt(s2); break;
				case GPU_RLOGSUMEXP: {
					double acc = 0;

					for (int64_t i = 0; i < 105; i++) {
						int64_t ii[3] = { i / 35, (i / 7) % 5, i % 7 };
						int in = 1;

						for (int q = 0; q < 3; q++)
							if (!(mask & (1u << q)) && ii[q] != oi[q])
								in = 0;
						if (in)
							acc += exp(x[i]);
					}
					want[o] = log(acc);
					break;
				}
				case GPU_RVAR:
					want[o] = (s2 - s * s / cnt) / (cnt - 1);
					break;
				}
			}
			if (be()->reduce(op, xf, mask, 1, y)) {
				unit_fail(__FILE__, __LINE__, "reduce %d: %s", op,
					  gpu_last_error());
			} else {
				double *g = vals(y);

				for (int64_t o = 0; o < nout; o++)
					if (!close_to(g[o], want[o], 1e-9)) {
						unit_fail(__FILE__, __LINE__,
							  "reduce op %d mask %u [%lld]: "
							  "%.9g != %.9g", op, mask,
							  (long long)o, g[o], want[o]);
						break;
					}
				free(g);
			}
			gpu_free(y);
		}
	/* integer sum of int32 into int64; argmax ties: first wins */
	{
		int64_t d4[1] = { 4 }, one[1] = { 1 };
		double iv[4] = { 2e9, 2e9, -5, 2e9 };
		struct gpu_tensor *xi = mk(IR_DTYPE_INT64, 1, d4, iv), *x32;
		struct gpu_tensor *ys = gpu_empty(be(), IR_DTYPE_INT64, 1, one);
		double ws[1] = { 6e9 - 5 }, wa[1] = { 0 };

		CHECK(be()->reduce(GPU_RSUM, xi, 1, 0, ys) == 0);
		expect_t("int sum", ys, ws, 0);
		CHECK(be()->reduce(GPU_RARGMAX, xi, 1, 0, ys) == 0);
		expect_t("argmax ties", ys, wa, 0);
		x32 = gpu_empty(be(), IR_DTYPE_INT32, 1, d4);
		CHECK(be()->copy(xi, x32) == 0);
		gpu_free(x32);
		gpu_free(xi);
		gpu_free(ys);
	}
	gpu_free(xf);
	free(v);
	free(x);
}

/* --- matmul ----------------------------------------------------------------- */

static void test_matmul(void)
{
	static const enum ir_dtype dts[] = { IR_DTYPE_FLOAT, IR_DTYPE_DOUBLE,
					     IR_DTYPE_INT64, IR_DTYPE_FLOAT16 };

	for (size_t t = 0; t < sizeof(dts) / sizeof(dts[0]); t++)
		for (int ta = 0; ta < 2; ta++)
			for (int tb = 0; tb < 2; tb++)
				for (int bc = 0; bc < 2; bc++) {
	enum ir_dtype dt = dts[t];
	int isint = dt == IR_DTYPE_INT64;
	int64_t B = 3, M = 5, K = 7, N = 4;
	int64_t ad[3] = { B, ta ? K : M, ta ? M : K };
	int64_t bd[3] = { bc ? 1 : B, tb ? N : K, tb ? K : N };
	int64_t yd[3] = { B, M, N }, cd[1] = { N };
	double *av = rnd(B * M * K, -3, 3, isint || dt == IR_DTYPE_FLOAT16);
	double *bv = rnd(B * K * N, -3, 3, isint || dt == IR_DTYPE_FLOAT16);
	double *cv = rnd(N, -3, 3, 1), want[60];
	struct gpu_tensor *a = mk(dt, 3, ad, av), *b = mk(dt, 3, bd, bv);
	struct gpu_tensor *c = mk(dt, 1, cd, cv), *bb, *cc, *y;
	int64_t bs[3] = { bc ? 0 : b->strides[0], b->strides[1], b->strides[2] };
	int64_t cs[3] = { 0, 0, 1 };
	double alpha = isint ? 2 : 1.5, beta = isint ? 3 : 0.5;

	bb = gpu_view(b, 3, (int64_t[]){ B, bd[1], bd[2] }, bs, 0);
	cc = gpu_view(c, 3, yd, cs, 0);
	y = gpu_empty(be(), dt, 3, yd);
	for (int64_t q = 0; q < B; q++)
		for (int64_t i = 0; i < M; i++)
			for (int64_t j = 0; j < N; j++) {
				double s = 0;

				for (int64_t k = 0; k < K; k++) {
					double x = ta ? av[(q * K + k) * M + i] :
						   av[(q * M + i) * K + k];
					int64_t qb = bc ? 0 : q;
					double z = tb ? bv[(qb * N + j) * K + k] :
						   bv[(qb * K + k) * N + j];

					s += x * z;
				}
				want[(q * M + i) * N + j] = alpha * s + beta * cv[j];
			}
	CHECK(be()->matmul(a, bb, cc, ta, tb, alpha, beta, y) == 0);
	expect("matmul", (double[]){ 0 }, (double[]){ 0 }, 1, 0);
	{
		double *g = vals(y);

		for (int i = 0; i < B * M * N; i++)
			if (!close_to(g[i], want[i], dt == IR_DTYPE_FLOAT16 ? 2e-3 :
				      dt == IR_DTYPE_FLOAT ? 1e-5 : 1e-12)) {
				unit_fail(__FILE__, __LINE__, "matmul dt %d ta %d tb %d "
					  "bc %d [%d]: %.9g != %.9g", (int)dt, ta,
					  tb, bc, i, g[i], want[i]);
				break;
			}
		free(g);
	}
	gpu_free(a);
	gpu_free(b);
	gpu_free(c);
	gpu_free(bb);
	gpu_free(cc);
	gpu_free(y);
	free(av);
	free(bv);
	free(cv);
				}
}

/* --- conv ------------------------------------------------------------------ */

static void conv_case(int ns, const int64_t *in, int64_t n, int64_t c, int64_t o,
		      const int64_t *k, const int64_t *s, const int64_t *p,
		      const int64_t *dl, const int64_t *op, int64_t g,
		      int transposed, int bias, enum ir_dtype dt)
{
	struct gpu_conv cp = { .nspatial = ns, .groups = g,
			       .transposed = transposed };
	int64_t xd[5] = { n, c }, wd[5], yd[5] = { n, o }, bd[1] = { o };
	int64_t out[3], nx = n * c, nw, ny = n * o, cg = c / g, og = o / g;
	int64_t in3[3] = { 1, 1, 1 }, out3[3] = { 1, 1, 1 }, k3[3] = { 1, 1, 1 };
	int64_t s3[3] = { 1, 1, 1 }, p3[3] = { 0, 0, 0 }, d3[3] = { 1, 1, 1 };
	double *xv, *wv, *bv, *want;
	struct gpu_tensor *x, *w, *b = NULL, *y;

	wd[0] = transposed ? c : o;
	wd[1] = transposed ? og : cg;
	nw = wd[0] * wd[1];
	for (int i = 0; i < ns; i++) {
		cp.stride[i] = s[i];
		cp.pad[i] = p[i];
		cp.dilation[i] = dl[i];
		cp.output_padding[i] = op ? op[i] : 0;
		if (transposed)
			out[i] = (in[i] - 1) * s[i] - 2 * p[i] +
				 dl[i] * (k[i] - 1) + 1 + cp.output_padding[i];
		else
			out[i] = (in[i] + 2 * p[i] - dl[i] * (k[i] - 1) - 1) /
				 s[i] + 1;
		xd[2 + i] = in[i];
		wd[2 + i] = k[i];
		yd[2 + i] = out[i];
		nx *= in[i];
		nw *= k[i];
		ny *= out[i];
		in3[3 - ns + i] = in[i];
		out3[3 - ns + i] = out[i];
		k3[3 - ns + i] = k[i];
		s3[3 - ns + i] = s[i];
		p3[3 - ns + i] = p[i];
		d3[3 - ns + i] = dl[i];
	}
	xv = rnd(nx, -1, 1, 0);
	wv = rnd(nw, -1, 1, 0);
	bv = rnd(o, -1, 1, 0);
	want = calloc((size_t)ny, sizeof(double));
	/* direct convolution (transposed: the scatter form) */
	for (int64_t b0 = 0; b0 < n; b0++)
	for (int64_t oc = 0; oc < o; oc++)
	for (int64_t q = 0; q < out3[0] * out3[1] * out3[2]; q++)
		want[(b0 * o + oc) * out3[0] * out3[1] * out3[2] + q] =
			bias ? bv[oc] : 0;
	for (int64_t b0 = 0; b0 < n; b0++)
	for (int64_t gi = 0; gi < g; gi++)
	for (int64_t oo = 0; oo < og; oo++)
	for (int64_t ci = 0; ci < cg; ci++)
	for (int64_t kd = 0; kd < k3[0]; kd++)
	for (int64_t kh = 0; kh < k3[1]; kh++)
	for (int64_t kw = 0; kw < k3[2]; kw++) {
		int64_t oc = gi * og + oo, ic = gi * cg + ci;
		double wt = transposed ?
			wv[(((ic * og + oo) * k3[0] + kd) * k3[1] + kh) * k3[2] + kw] :
			wv[(((oc * cg + ci) * k3[0] + kd) * k3[1] + kh) * k3[2] + kw];

		if (!transposed) {
			for (int64_t od = 0; od < out3[0]; od++)
			for (int64_t oh = 0; oh < out3[1]; oh++)
			for (int64_t ow = 0; ow < out3[2]; ow++) {
				int64_t id = od * s3[0] - p3[0] + kd * d3[0];
				int64_t ih = oh * s3[1] - p3[1] + kh * d3[1];
				int64_t iw = ow * s3[2] - p3[2] + kw * d3[2];

				if (id < 0 || id >= in3[0] || ih < 0 || ih >= in3[1] ||
				    iw < 0 || iw >= in3[2])
					continue;
				want[(((b0 * o + oc) * out3[0] + od) * out3[1] + oh) *
				     out3[2] + ow] += wt *
					xv[(((b0 * c + ic) * in3[0] + id) * in3[1] + ih) *
					   in3[2] + iw];
			}
		} else {
			for (int64_t id = 0; id < in3[0]; id++)
			for (int64_t ih = 0; ih < in3[1]; ih++)
			for (int64_t iw = 0; iw < in3[2]; iw++) {
				int64_t od = id * s3[0] - p3[0] + kd * d3[0];
				int64_t oh = ih * s3[1] - p3[1] + kh * d3[1];
				int64_t ow = iw * s3[2] - p3[2] + kw * d3[2];

				if (od < 0 || od >= out3[0] || oh < 0 ||
				    oh >= out3[1] || ow < 0 || ow >= out3[2])
					continue;
				want[(((b0 * o + oc) * out3[0] + od) * out3[1] + oh) *
				     out3[2] + ow] += wt *
					xv[(((b0 * c + ic) * in3[0] + id) * in3[1] + ih) *
					   in3[2] + iw];
			}
		}
	}
	x = mk(dt, ns + 2, xd, xv);
	w = mk(dt, ns + 2, wd, wv);
	if (bias)
		b = mk(dt, 1, bd, bv);
	y = gpu_empty(be(), dt, ns + 2, yd);
	if (be()->conv(&cp, x, w, b, y)) {
		unit_fail(__FILE__, __LINE__, "conv: %s", gpu_last_error());
	} else {
		double *gv = vals(y);

		for (int64_t i = 0; i < ny; i++)
			if (!close_to(gv[i], want[i], dt == IR_DTYPE_FLOAT ? 1e-5 : 1e-12)) {
				unit_fail(__FILE__, __LINE__, "conv ns %d g %lld tr %d "
					  "[%lld]: %.9g != %.9g", ns, (long long)g,
					  transposed, (long long)i, gv[i], want[i]);
				break;
			}
		free(gv);
	}
	gpu_free(x);
	gpu_free(w);
	gpu_free(b);
	gpu_free(y);
	free(xv);
	free(wv);
	free(bv);
	free(want);
}

static void test_conv(void)
{
	const int64_t one[3] = { 1, 1, 1 }, zero[3] = { 0, 0, 0 };

	for (int dbl = 0; dbl < 2; dbl++) {
		enum ir_dtype dt = dbl ? IR_DTYPE_DOUBLE : IR_DTYPE_FLOAT;

		/* 2-d: 3x3 pad 1; 7x7 stride 2 pad 3; 1x1; 1x1 stride 2 */
		conv_case(2, (int64_t[]){ 9, 8 }, 2, 4, 6, (int64_t[]){ 3, 3 },
			  one, one, one, NULL, 1, 0, 1, dt);
		conv_case(2, (int64_t[]){ 15, 13 }, 1, 3, 8, (int64_t[]){ 7, 7 },
			  (int64_t[]){ 2, 2 }, (int64_t[]){ 3, 3 }, one, NULL, 1,
			  0, 1, dt);
		conv_case(2, (int64_t[]){ 7, 6 }, 2, 8, 5, one, one, zero, one,
			  NULL, 1, 0, 0, dt);
		conv_case(2, (int64_t[]){ 7, 6 }, 1, 8, 4, one,
			  (int64_t[]){ 2, 2 }, zero, one, NULL, 1, 0, 1, dt);
		/* groups, dilation, asymmetric stride */
		conv_case(2, (int64_t[]){ 11, 10 }, 2, 6, 9, (int64_t[]){ 3, 2 },
			  (int64_t[]){ 2, 1 }, (int64_t[]){ 2, 1 },
			  (int64_t[]){ 2, 3 }, NULL, 3, 0, 1, dt);
		/* depthwise */
		conv_case(2, (int64_t[]){ 9, 9 }, 2, 5, 5, (int64_t[]){ 3, 3 },
			  (int64_t[]){ 2, 2 }, one, one, NULL, 5, 0, 1, dt);
		/* 1-d and 3-d */
		conv_case(1, (int64_t[]){ 20 }, 2, 3, 4, (int64_t[]){ 5 },
			  (int64_t[]){ 2 }, (int64_t[]){ 2 }, (int64_t[]){ 2 },
			  NULL, 1, 0, 1, dt);
		conv_case(3, (int64_t[]){ 5, 6, 7 }, 1, 2, 3,
			  (int64_t[]){ 3, 2, 3 }, one, one, one, NULL, 1, 0, 1, dt);
		/* transposed: stride 2, output_padding, groups; 1-d; 3-d */
		conv_case(2, (int64_t[]){ 5, 4 }, 2, 4, 6, (int64_t[]){ 3, 3 },
			  (int64_t[]){ 2, 2 }, one, one, (int64_t[]){ 1, 0 }, 2,
			  1, 1, dt);
		conv_case(1, (int64_t[]){ 8 }, 1, 3, 2, (int64_t[]){ 4 },
			  (int64_t[]){ 3 }, (int64_t[]){ 1 }, (int64_t[]){ 2 },
			  NULL, 1, 1, 0, dt);
		conv_case(3, (int64_t[]){ 3, 4, 3 }, 1, 2, 2,
			  (int64_t[]){ 2, 2, 2 }, (int64_t[]){ 2, 1, 2 }, zero,
			  one, NULL, 1, 1, 1, dt);
	}
}

/* Convolutions whose im2col is larger than one column block (blocked,
 * blocks spread over threads or serial with a split gemm), pointwise ones
 * big enough for the split gemm, and a large matmul: at 1, 2 and 3
 * threads against the same direct references. */
static void test_conv_big(void)
{
	const int64_t one[3] = { 1, 1, 1 }, zero[3] = { 0, 0, 0 };
	int saved = gpu_threads();

	for (int t = 1; t <= 3; t++) {
		gpu_set_threads(t);
		/* 3x3 pad 1 over 40x40, 32 -> 16 channels: 4 column blocks */
		conv_case(2, (int64_t[]){ 40, 40 }, 1, 32, 16,
			  (int64_t[]){ 3, 3 }, one, one, one, NULL, 1, 0, 0,
			  IR_DTYPE_FLOAT);
		/* stride 2, pad 2, dilation 2, two images, bias: 2 blocks */
		conv_case(2, (int64_t[]){ 41, 43 }, 2, 40, 12,
			  (int64_t[]){ 3, 3 }, (int64_t[]){ 2, 2 },
			  (int64_t[]){ 2, 2 }, (int64_t[]){ 2, 2 }, NULL, 1, 0, 1,
			  IR_DTYPE_FLOAT);
		/* 7x7 stride 2 pad 3 over 3 channels (resnet's first) */
		conv_case(2, (int64_t[]){ 64, 60 }, 1, 3, 8,
			  (int64_t[]){ 7, 7 }, (int64_t[]){ 2, 2 },
			  (int64_t[]){ 3, 3 }, one, NULL, 1, 0, 0,
			  IR_DTYPE_FLOAT);
		/* pointwise, split gemm by columns, then by rows */
		conv_case(2, (int64_t[]){ 40, 40 }, 1, 64, 48, one, one, zero,
			  one, NULL, 1, 0, t == 2, IR_DTYPE_FLOAT);
		conv_case(2, (int64_t[]){ 5, 5 }, 1, 300, 400, one, one, zero,
			  one, NULL, 1, 0, 1, IR_DTYPE_DOUBLE);
		{
			int64_t M = 70, K = 90, N = 130;
			int64_t ad[2] = { M, K }, bd[2] = { N, K }, yd[2] = { M, N };
			double *av = rnd(M * K, -1, 1, 0), *bv = rnd(K * N, -1, 1, 0);
			double *want = malloc(sizeof(double) * (size_t)(M * N));
			struct gpu_tensor *a = mk(IR_DTYPE_FLOAT, 2, ad, av);
			struct gpu_tensor *b = mk(IR_DTYPE_FLOAT, 2, bd, bv);
			struct gpu_tensor *y = gpu_empty(be(), IR_DTYPE_FLOAT, 2, yd);

			for (int64_t i = 0; i < M; i++)
				for (int64_t j = 0; j < N; j++) {
					double acc = 0;

					for (int64_t k = 0; k < K; k++)
						acc += av[i * K + k] * bv[j * K + k];
					want[i * N + j] = acc;
				}
			CHECK(be()->matmul(a, b, NULL, 0, 1, 1, 0, y) == 0);
			expect_t("big matmul", y, want, 1e-5);
			gpu_free(a);
			gpu_free(b);
			gpu_free(y);
			free(av);
			free(bv);
			free(want);
		}
	}
	gpu_set_threads(saved);
}

/* --- pooling, norms, softmax -------------------------------------------------- */

static void test_pool(void)
{
	/* x [2, 3, 9, 8]; max 3x3 s2 p1 (resnet's), dilation 2; avg with
	 * ceil-mode style output (caller's dims), pad counted or not */
	int64_t xd[4] = { 2, 3, 9, 8 };
	double *xv = rnd(2 * 3 * 9 * 8, -2, 2, 0);
	struct gpu_tensor *x = mk(IR_DTYPE_FLOAT, 4, xd, xv);
	double *gx = vals(x);

	for (int cse = 0; cse < 5; cse++) {
		struct gpu_pool p = { .nspatial = 2 };
		int64_t oh, ow, yd[4];
		struct gpu_tensor *y, *ind;
		double *want, *wi;
		int ceil_mode = cse >= 3;

		p.kind = cse < 2 ? GPU_POOL_MAX : GPU_POOL_AVG;
		p.kernel[0] = 3; p.kernel[1] = cse == 1 ? 2 : 3;
		p.stride[0] = 2; p.stride[1] = 2;
		p.pad[0] = 1; p.pad[1] = cse == 4 ? 0 : 1;
		p.dilation[0] = cse == 1 ? 2 : 1; p.dilation[1] = 1;
		p.count_include_pad = cse == 3;
		p.divisor_override = 0;
		{
			int64_t eh = p.dilation[0] * (p.kernel[0] - 1) + 1;
			int64_t ew = p.dilation[1] * (p.kernel[1] - 1) + 1;
			int64_t nh = 9 + 2 * p.pad[0] - eh, nw = 8 + 2 * p.pad[1] - ew;

			oh = (ceil_mode ? (nh + p.stride[0] - 1) : nh) / p.stride[0] + 1;
			ow = (ceil_mode ? (nw + p.stride[1] - 1) : nw) / p.stride[1] + 1;
			/* torch: the last window must start inside the input or
			 * the left padding */
			if (ceil_mode && (oh - 1) * p.stride[0] >= 9 + p.pad[0])
				oh--;
			if (ceil_mode && (ow - 1) * p.stride[1] >= 8 + p.pad[1])
				ow--;
		}
		yd[0] = 2; yd[1] = 3; yd[2] = oh; yd[3] = ow;
		y = gpu_empty(be(), IR_DTYPE_FLOAT, 4, yd);
		ind = gpu_empty(be(), IR_DTYPE_INT64, 4, yd);
		want = malloc(sizeof(double) * (size_t)(6 * oh * ow));
		wi = malloc(sizeof(double) * (size_t)(6 * oh * ow));
		for (int pl = 0; pl < 6; pl++)
			for (int64_t i = 0; i < oh; i++)
				for (int64_t j = 0; j < ow; j++) {
					double m = -INFINITY, s = 0;
					int64_t mi = -1, cnt = 0, tot = 0;

					for (int64_t a = 0; a < p.kernel[0]; a++)
						for (int64_t b = 0; b < p.kernel[1]; b++) {
							int64_t h = i * 2 - p.pad[0] + a * p.dilation[0];
							int64_t w = j * 2 - p.pad[1] + b * p.dilation[1];

							if (h < 9 + p.pad[0] && w < 8 + p.pad[1])
								tot++;
							if (h < 0 || h >= 9 || w < 0 || w >= 8)
								continue;
							if (gx[pl * 72 + h * 8 + w] > m) {
								m = gx[pl * 72 + h * 8 + w];
								mi = h * 8 + w;
							}
							s += gx[pl * 72 + h * 8 + w];
							cnt++;
						}
					want[(pl * oh + i) * ow + j] = p.kind == GPU_POOL_MAX ?
						m : s / (double)(p.count_include_pad ? tot : cnt);
					wi[(pl * oh + i) * ow + j] = (double)mi;
				}
		CHECK(be()->pool(&p, x, y, p.kind == GPU_POOL_MAX ? ind : NULL) == 0);
		expect_t("pool", y, want, 1e-6);
		if (p.kind == GPU_POOL_MAX) {
			expect_t("pool indices", ind, wi, 0);
			/* without indices (the fast float path) */
			CHECK(be()->fill(y, 7) == 0);
			CHECK(be()->pool(&p, x, y, NULL) == 0);
			expect_t("pool without indices", y, want, 1e-6);
		}
		gpu_free(y);
		gpu_free(ind);
		free(want);
		free(wi);
	}
	/* adaptive: 9x8 -> 4x3 (overlapping bins), avg and max */
	for (int k = 0; k < 2; k++) {
		int64_t yd[4] = { 2, 3, 4, 3 };
		struct gpu_tensor *y = gpu_empty(be(), IR_DTYPE_FLOAT, 4, yd);
		double want[72];

		for (int pl = 0; pl < 6; pl++)
			for (int i = 0; i < 4; i++)
				for (int j = 0; j < 3; j++) {
					int h0 = (int)floor(i * 9.0 / 4), h1 = (int)ceil((i + 1) * 9.0 / 4);
					int w0 = (int)floor(j * 8.0 / 3), w1 = (int)ceil((j + 1) * 8.0 / 3);
					double s = 0, m = -INFINITY;

					for (int h = h0; h < h1; h++)
						for (int w = w0; w < w1; w++) {
							s += gx[pl * 72 + h * 8 + w];
							m = fmax(m, gx[pl * 72 + h * 8 + w]);
						}
					want[(pl * 4 + i) * 3 + j] = k ? m :
						s / ((h1 - h0) * (w1 - w0));
				}
		CHECK(be()->adaptive_pool(k ? GPU_POOL_MAX : GPU_POOL_AVG, 2, x, y) == 0);
		expect_t("adaptive pool", y, want, 1e-6);
		gpu_free(y);
	}
	gpu_free(x);
	free(xv);
	free(gx);
}

/* Max pooling with NaNs: a window holding one gives NaN (torch), with and
 * without indices; 1-d pooling too. */
static void test_pool_nan(void)
{
	int64_t xd[4] = { 1, 2, 6, 7 };
	double *xv = rnd(84, -2, 2, 0);
	struct gpu_tensor *x, *y, *ind;
	struct gpu_pool p = { .kind = GPU_POOL_MAX, .nspatial = 2,
			      .kernel = { 2, 3 }, .stride = { 2, 2 },
			      .pad = { 0, 1 }, .dilation = { 1, 1 } };
	int64_t yd[4] = { 1, 2, 3, 4 };
	double want[24];

	xv[9] = NAN;  /* plane 0, row 1, col 2 */
	xv[42 + 13] = NAN; /* plane 1, row 1, col 6 */
	x = mk(IR_DTYPE_FLOAT, 4, xd, xv);
	for (int pl = 0; pl < 2; pl++)
		for (int i = 0; i < 3; i++)
			for (int j = 0; j < 4; j++) {
				double m = -INFINITY;
				int nan = 0;

				for (int a = 0; a < 2; a++)
					for (int b = 0; b < 3; b++) {
						int h = i * 2 + a, w = j * 2 - 1 + b;
						double v;

						if (w < 0 || w >= 7)
							continue;
						v = xv[pl * 42 + h * 7 + w];
						if (isnan(v))
							nan = 1;
						else if (v > m)
							m = v;
					}
				want[(pl * 3 + i) * 4 + j] = nan ? NAN : m;
			}
	y = gpu_empty(be(), IR_DTYPE_FLOAT, 4, yd);
	ind = gpu_empty(be(), IR_DTYPE_INT64, 4, yd);
	CHECK(be()->pool(&p, x, y, NULL) == 0);
	expect_t("pool nan", y, want, 1e-6);
	CHECK(be()->pool(&p, x, y, ind) == 0);
	expect_t("pool nan, indices", y, want, 1e-6);
	gpu_free(y);
	gpu_free(ind);
	{
		/* 1-d: x viewed as [1, 2*6, 7], kernel 3 stride 2 pad 1 */
		int64_t xd1[3] = { 1, 12, 7 }, yd1[3] = { 1, 12, 4 };
		struct gpu_pool p1 = { .kind = GPU_POOL_MAX, .nspatial = 1,
				       .kernel = { 3 }, .stride = { 2 },
				       .pad = { 1 }, .dilation = { 1 } };
		struct gpu_tensor *x1 = gpu_view(x, 3, xd1, NULL, 0);
		double w1[48];

		for (int r = 0; r < 12; r++)
			for (int j = 0; j < 4; j++) {
				double m = -INFINITY;
				int nan = 0;

				for (int b = 0; b < 3; b++) {
					int w = j * 2 - 1 + b;

					if (w < 0 || w >= 7)
						continue;
					if (isnan(xv[r * 7 + w]))
						nan = 1;
					else if (xv[r * 7 + w] > m)
						m = xv[r * 7 + w];
				}
				w1[r * 4 + j] = nan ? NAN : m;
			}
		y = gpu_empty(be(), IR_DTYPE_FLOAT, 3, yd1);
		CHECK(be()->pool(&p1, x1, y, NULL) == 0);
		expect_t("pool 1-d", y, w1, 1e-6);
		gpu_free(y);
		gpu_free(x1);
	}
	gpu_free(x);
	free(xv);
}

static void test_norms_softmax(void)
{
	int64_t xd[3] = { 2, 6, 10 }, cd[1] = { 6 }, ld[1] = { 10 };
	double *xv = rnd(120, -3, 3, 0), *wv = rnd(10, 0.5, 2, 0);
	double *bv = rnd(10, -1, 1, 0), *mv = rnd(6, -1, 1, 0), *vv = rnd(6, 0.5, 2, 0);
	struct gpu_tensor *x = mk(IR_DTYPE_FLOAT, 3, xd, xv);
	struct gpu_tensor *y = gpu_empty(be(), IR_DTYPE_FLOAT, 3, xd);
	struct gpu_tensor *w6 = mk(IR_DTYPE_FLOAT, 1, cd, wv), *b6 = mk(IR_DTYPE_FLOAT, 1, cd, bv);
	struct gpu_tensor *m6 = mk(IR_DTYPE_FLOAT, 1, cd, mv), *v6 = mk(IR_DTYPE_FLOAT, 1, cd, vv);
	struct gpu_tensor *w10 = mk(IR_DTYPE_FLOAT, 1, ld, wv), *b10 = mk(IR_DTYPE_FLOAT, 1, ld, bv);
	double *g = vals(x), *gw = vals(w10), *gb = vals(b10), *gm = vals(m6), *gv = vals(v6);
	double want[120];
	const double eps = 1e-5;

	/* batch norm, eval */
	for (int i = 0; i < 120; i++) {
		int c = (i / 10) % 6;

		want[i] = (g[i] - gm[c]) / sqrt(gv[c] + eps) * gw[c] + gb[c];
	}
	CHECK(be()->batch_norm(x, m6, v6, w6, b6, eps, y) == 0);
	expect_t("batch_norm", y, want, 1e-5);
	/* batch statistics */
	for (int c = 0; c < 6; c++) {
		double s = 0, ss = 0, mu, var;

		for (int n = 0; n < 2; n++)
			for (int k = 0; k < 10; k++)
				s += g[(n * 6 + c) * 10 + k];
		mu = s / 20;
		for (int n = 0; n < 2; n++)
			for (int k = 0; k < 10; k++)
				ss += pow(g[(n * 6 + c) * 10 + k] - mu, 2);
		var = ss / 20;
		for (int n = 0; n < 2; n++)
			for (int k = 0; k < 10; k++)
				want[(n * 6 + c) * 10 + k] =
					(g[(n * 6 + c) * 10 + k] - mu) / sqrt(var + eps);
	}
	CHECK(be()->batch_norm(x, NULL, NULL, NULL, NULL, eps, y) == 0);
	expect_t("batch_norm batch stats", y, want, 1e-5);
	/* group norm, 3 groups of 2 channels */
	for (int n = 0; n < 2; n++)
		for (int gr = 0; gr < 3; gr++) {
			double s = 0, ss = 0, mu, var;
			int base = (n * 6 + gr * 2) * 10;

			for (int k = 0; k < 20; k++)
				s += g[base + k];
			mu = s / 20;
			for (int k = 0; k < 20; k++)
				ss += pow(g[base + k] - mu, 2);
			var = ss / 20;
			for (int k = 0; k < 20; k++)
				want[base + k] = (g[base + k] - mu) / sqrt(var + eps) *
						 gw[gr * 2 + k / 10] + gb[gr * 2 + k / 10];
		}
	CHECK(be()->group_norm(x, 3, w6, b6, eps, y) == 0);
	expect_t("group_norm", y, want, 1e-5);
	/* layer norm over the last dim */
	for (int r = 0; r < 12; r++) {
		double s = 0, ss = 0, mu, var;

		for (int k = 0; k < 10; k++)
			s += g[r * 10 + k];
		mu = s / 10;
		for (int k = 0; k < 10; k++)
			ss += pow(g[r * 10 + k] - mu, 2);
		var = ss / 10;
		for (int k = 0; k < 10; k++)
			want[r * 10 + k] = (g[r * 10 + k] - mu) / sqrt(var + eps) *
					   gw[k] + gb[k];
	}
	CHECK(be()->layer_norm(x, 1, w10, b10, eps, y) == 0);
	expect_t("layer_norm", y, want, 1e-5);
	/* softmax / log_softmax along the middle axis */
	for (int lg = 0; lg < 2; lg++) {
		for (int n = 0; n < 2; n++)
			for (int k = 0; k < 10; k++) {
				double s = 0;

				for (int c = 0; c < 6; c++)
					s += exp(g[(n * 6 + c) * 10 + k]);
				for (int c = 0; c < 6; c++)
					want[(n * 6 + c) * 10 + k] = lg ?
						g[(n * 6 + c) * 10 + k] - log(s) :
						exp(g[(n * 6 + c) * 10 + k]) / s;
			}
		CHECK(be()->softmax(x, 1, lg, y) == 0);
		expect_t("softmax", y, want, 1e-6);
	}
	/* cumsum along the last axis, reversed; cumprod of ints */
	for (int n = 0; n < 12; n++) {
		double s = 0;

		for (int k = 9; k >= 0; k--) {
			s += g[n * 10 + k];
			want[n * 10 + k] = s;
		}
	}
	CHECK(be()->cumulative(x, 2, 0, 1, y) == 0);
	expect_t("cumsum reverse", y, want, 1e-6);
	{
		double iv[4] = { 2, -3, 4, 5 }, wp[4] = { 2, -6, -24, -120 };
		int64_t d4[1] = { 4 };
		struct gpu_tensor *xi = mk(IR_DTYPE_INT32, 1, d4, iv);
		struct gpu_tensor *yi = gpu_empty(be(), IR_DTYPE_INT64, 1, d4);

		CHECK(be()->cumulative(xi, 0, 1, 0, yi) == 0);
		expect_t("cumprod int", yi, wp, 0);
		gpu_free(xi);
		gpu_free(yi);
	}
	gpu_free(x); gpu_free(y); gpu_free(w6); gpu_free(b6); gpu_free(m6);
	gpu_free(v6); gpu_free(w10); gpu_free(b10);
	free(xv); free(wv); free(bv); free(mv); free(vv);
	free(g); free(gw); free(gb); free(gm); free(gv);
}

/* --- indexing, topk, pad, resize -------------------------------------------- */

static void test_indexing(void)
{
	int64_t xd[2] = { 4, 5 }, id[2] = { 3, 5 }, sd[1] = { 3 };
	double *xv = rnd(20, -5, 5, 1), iv[15], sv[3] = { 3, -1, 0 };
	struct gpu_tensor *x = mk(IR_DTYPE_INT64, 2, xd, xv), *ix, *y, *sel, *ys, *src;
	double want[20];

	for (int i = 0; i < 15; i++)
		iv[i] = (double)((i * 7) % 4);
	ix = mk(IR_DTYPE_INT64, 2, id, iv);
	/* gather along axis 0: y[i][j] = x[ix[i][j]][j] */
	y = gpu_empty(be(), IR_DTYPE_INT64, 2, id);
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 5; j++)
			want[i * 5 + j] = xv[(int)iv[i * 5 + j] * 5 + j];
	CHECK(be()->gather(x, 0, ix, y) == 0);
	expect_t("gather", y, want, 0);
	/* index_select rows 3, -1 (= 3), 0 */
	sel = mk(IR_DTYPE_INT64, 1, sd, sv);
	ys = gpu_empty(be(), IR_DTYPE_INT64, 2, id);
	for (int j = 0; j < 5; j++) {
		want[j] = xv[15 + j];
		want[5 + j] = xv[15 + j];
		want[10 + j] = xv[j];
	}
	CHECK(be()->index_select(x, 0, sel, ys) == 0);
	expect_t("index_select", ys, want, 0);
	/* out of range is an error */
	sv[0] = 4;
	gpu_free(sel);
	sel = mk(IR_DTYPE_INT64, 1, sd, sv);
	CHECK(be()->index_select(x, 0, sel, ys) == -1);
	/* scatter_add along axis 0 */
	src = mk(IR_DTYPE_INT64, 2, id, iv);
	{
		struct gpu_tensor *yy = gpu_empty(be(), IR_DTYPE_INT64, 2, xd);

		memcpy(want, xv, sizeof(want));
		for (int i = 0; i < 3; i++)
			for (int j = 0; j < 5; j++)
				want[(int)iv[i * 5 + j] * 5 + j] += iv[i * 5 + j];
		CHECK(be()->scatter(x, 0, ix, src, 1, yy) == 0);
		expect_t("scatter_add", yy, want, 0);
		gpu_free(yy);
	}
	gpu_free(x); gpu_free(ix); gpu_free(y); gpu_free(sel); gpu_free(ys);
	gpu_free(src);
	free(xv);
}

static void test_topk(void)
{
	/* ties: equal values keep their order (lower index first) */
	int64_t xd[2] = { 2, 6 }, yd[2] = { 2, 3 };
	double xv[12] = { 1, 5, 3, 5, 2, 5,   4, 4, 4, 1, 0, 9 };
	double wv[6] = { 5, 5, 5, 9, 4, 4 }, wi[6] = { 1, 3, 5, 5, 0, 1 };
	double sv[6] = { 1, 2, 3, 0, 1, 4 }, si[6] = { 0, 4, 2, 10 - 6, 3, 0 };
	struct gpu_tensor *x = mk(IR_DTYPE_FLOAT, 2, xd, xv);
	struct gpu_tensor *v = gpu_empty(be(), IR_DTYPE_FLOAT, 2, yd);
	struct gpu_tensor *i = gpu_empty(be(), IR_DTYPE_INT64, 2, yd);

	CHECK(be()->topk(x, 1, 3, 1, 1, v, i) == 0);
	expect_t("topk values", v, wv, 0);
	expect_t("topk indices", i, wi, 0);
	CHECK(be()->topk(x, 1, 3, 0, 1, v, i) == 0);
	expect_t("bottomk values", v, sv, 0);
	si[3] = 4; si[4] = 3; si[5] = 0;
	expect_t("bottomk indices", i, si, 0);
	gpu_free(x); gpu_free(v); gpu_free(i);
}

static void test_pad(void)
{
	int64_t xd[2] = { 3, 4 };
	double *xv = rnd(12, -1, 1, 0);
	struct gpu_tensor *x = mk(IR_DTYPE_DOUBLE, 2, xd, xv);

	for (int mode = 0; mode < 4; mode++) {
		int64_t pads[4] = { 1, 2, 3, -1 }, yd[2] = { 6, 6 };
		struct gpu_tensor *y = gpu_empty(be(), IR_DTYPE_DOUBLE, 2, yd);
		double want[36];

		for (int i = 0; i < 6; i++)
			for (int j = 0; j < 6; j++) {
				int si = i - 1, sj = j - 3, out = 0;
				int64_t n[2] = { 3, 4 };
				int *s[2] = { &si, &sj };

				for (int k = 0; k < 2; k++) {
					int v = *s[k];

					if (v >= 0 && v < n[k])
						continue;
					if (mode == GPU_PAD_CONSTANT)
						out = 1;
					else if (mode == GPU_PAD_REFLECT)
						v = v < 0 ? -v : 2 * ((int)n[k] - 1) - v;
					else if (mode == GPU_PAD_REPLICATE)
						v = v < 0 ? 0 : (int)n[k] - 1;
					else
						v = (v + (int)n[k]) % (int)n[k];
					*s[k] = v;
				}
				want[i * 6 + j] = out ? 7.5 : xv[si * 4 + sj];
			}
		CHECK(be()->pad(x, pads, mode, 7.5, y) == 0);
		expect_t("pad", y, want, 0);
		gpu_free(y);
	}
	gpu_free(x);
	free(xv);
}

static void test_resize(void)
{
	/* bilinear on a linear ramp is exact: the value is the source
	 * coordinate, so the reference is the coordinate map itself */
	int64_t xd[4] = { 1, 1, 4, 5 }, yd[4] = { 1, 1, 7, 9 };
	double xv[20];
	struct gpu_tensor *x, *y;

	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 5; j++)
			xv[i * 5 + j] = 10 * i + j;
	x = mk(IR_DTYPE_DOUBLE, 4, xd, xv);
	y = gpu_empty(be(), IR_DTYPE_DOUBLE, 4, yd);
	for (int ac = 0; ac < 2; ac++) {
		double want[63];

		for (int i = 0; i < 7; i++)
			for (int j = 0; j < 9; j++) {
				double sh = ac ? i * 3.0 / 6 : fmin(fmax((i + 0.5) * 4 / 7 - 0.5, 0), 3);
				double sw = ac ? j * 4.0 / 8 : fmin(fmax((j + 0.5) * 5 / 9 - 0.5, 0), 4);

				want[i * 9 + j] = 10 * sh + sw;
			}
		CHECK(be()->resize(x, 2, GPU_INTERP_LINEAR, ac, NULL, y) == 0);
		expect_t("bilinear", y, want, 1e-12);
	}
	{
		double want[63];

		for (int i = 0; i < 7; i++)
			for (int j = 0; j < 9; j++)
				want[i * 9 + j] = 10 * floor(i * 4.0 / 7) + floor(j * 5.0 / 9);
		CHECK(be()->resize(x, 2, GPU_INTERP_NEAREST, 0, NULL, y) == 0);
		expect_t("nearest", y, want, 0);
	}
	gpu_free(x);
	gpu_free(y);
}


/* --- timings (PT2ONNX_GPU_BENCH=1; bench/kernels.py compares with torch) --- */

#include <time.h>

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* the conv layers of torchvision's resnet50 at batch 1, 224x224:
 * name, C, O, H (=W), kernel, stride, pad */
static const struct bench_conv {
	const char *name;
	int64_t c, o, hw, k, s, p;
} bench_convs[] = {
	{ "conv1_7x7s2", 3, 64, 224, 7, 2, 3 },
	{ "l1_1x1_64_64", 64, 64, 56, 1, 1, 0 },
	{ "l1_3x3_64", 64, 64, 56, 3, 1, 1 },
	{ "l1_1x1_64_256", 64, 256, 56, 1, 1, 0 },
	{ "l1_1x1_256_64", 256, 64, 56, 1, 1, 0 },
	{ "l2_3x3s2_128", 128, 128, 56, 3, 2, 1 },
	{ "l2_3x3_128", 128, 128, 28, 3, 1, 1 },
	{ "l2_1x1_512_128", 512, 128, 28, 1, 1, 0 },
	{ "l2_ds_1x1s2_256_512", 256, 512, 56, 1, 2, 0 },
	{ "l3_3x3_256", 256, 256, 14, 3, 1, 1 },
	{ "l3_1x1_1024_256", 1024, 256, 14, 1, 1, 0 },
	{ "l3_1x1_256_1024", 256, 1024, 14, 1, 1, 0 },
	{ "l4_3x3_512", 512, 512, 7, 3, 1, 1 },
	{ "l4_1x1_2048_512", 2048, 512, 7, 1, 1, 0 },
	{ "l4_1x1_512_2048", 512, 2048, 7, 1, 1, 0 },
};

static double time_it(int (*fn)(void *), void *ctx)
{
	double best = 1e30;

	fn(ctx); /* warm-up */
	for (int r = 0; r < 5; r++) {
		double t0 = now_ms();

		fn(ctx);
		if (now_ms() - t0 < best)
			best = now_ms() - t0;
	}
	return best;
}

struct bench_ctx {
	struct gpu_conv cp;
	struct gpu_pool pp;
	struct gpu_tensor *x, *w, *b, *y, *m, *v;
};

static int run_conv(void *arg)
{
	struct bench_ctx *c = arg;

	return be()->conv(&c->cp, c->x, c->w, c->b, c->y);
}

static int run_pool(void *arg)
{
	struct bench_ctx *c = arg;

	return be()->pool(&c->pp, c->x, c->y, NULL);
}

static int run_bn(void *arg)
{
	struct bench_ctx *c = arg;

	return be()->batch_norm(c->x, c->m, c->v, c->w, c->b, 1e-5, c->y);
}

static int run_relu(void *arg)
{
	struct bench_ctx *c = arg;

	return be()->unary(GPU_RELU, c->x, c->y, 0, 0);
}

static int run_add(void *arg)
{
	struct bench_ctx *c = arg;

	return be()->binary(GPU_ADD, c->x, c->w, c->y);
}

static int run_linear(void *arg)
{
	struct bench_ctx *c = arg;

	return be()->matmul(c->x, c->w, c->b, 0, 1, 1, 1, c->y);
}

static struct gpu_tensor *bench_rand(int rank, const int64_t *dims)
{
	struct gpu_tensor *t = gpu_empty(be(), IR_DTYPE_FLOAT, rank, dims);
	float *p = t->storage->data;

	for (int64_t i = 0; i < gpu_numel(t); i++)
		p[i] = (float)urand() - 0.5f;
	return t;
}

static void test_bench(void)
{
	const char *e = getenv("PT2ONNX_GPU_BENCH");
	struct bench_ctx c;

	if (!e || !*e) {
		unit_skip("timings only with PT2ONNX_GPU_BENCH=1");
		return;
	}
	printf("bench threads %d\n", gpu_threads());
	for (size_t i = 0; i < sizeof(bench_convs) / sizeof(bench_convs[0]); i++) {
		const struct bench_conv *bc = &bench_convs[i];
		int64_t oh = (bc->hw + 2 * bc->p - bc->k) / bc->s + 1;
		int64_t xd[4] = { 1, bc->c, bc->hw, bc->hw };
		int64_t wd[4] = { bc->o, bc->c, bc->k, bc->k };
		int64_t yd[4] = { 1, bc->o, oh, oh }, bd[1] = { bc->o };

		memset(&c, 0, sizeof(c));
		c.cp.nspatial = 2;
		c.cp.groups = 1;
		for (int k = 0; k < 2; k++) {
			c.cp.stride[k] = bc->s;
			c.cp.pad[k] = bc->p;
			c.cp.dilation[k] = 1;
		}
		c.x = bench_rand(4, xd);
		c.w = bench_rand(4, wd);
		c.b = bench_rand(1, bd);
		c.y = gpu_empty(be(), IR_DTYPE_FLOAT, 4, yd);
		printf("bench conv %s %.3f ms\n", bc->name, time_it(run_conv, &c));
		gpu_free(c.x); gpu_free(c.w); gpu_free(c.b); gpu_free(c.y);
	}
	{
		int64_t xd[4] = { 1, 64, 112, 112 }, yd[4] = { 1, 64, 56, 56 };
		int64_t cd[1] = { 64 };

		memset(&c, 0, sizeof(c));
		c.pp.kind = GPU_POOL_MAX;
		c.pp.nspatial = 2;
		for (int k = 0; k < 2; k++) {
			c.pp.kernel[k] = 3;
			c.pp.stride[k] = 2;
			c.pp.pad[k] = 1;
			c.pp.dilation[k] = 1;
		}
		c.x = bench_rand(4, xd);
		c.y = gpu_empty(be(), IR_DTYPE_FLOAT, 4, yd);
		printf("bench maxpool_3x3s2_112 %.3f ms\n", time_it(run_pool, &c));
		gpu_free(c.y);
		c.y = gpu_empty(be(), IR_DTYPE_FLOAT, 4, xd);
		c.m = bench_rand(1, cd);
		c.v = bench_rand(1, cd);
		c.w = bench_rand(1, cd);
		c.b = bench_rand(1, cd);
		CHECK(be()->unary(GPU_ABS, c.v, c.v, 0, 0) == 0);
		printf("bench batch_norm_64x112 %.3f ms\n", time_it(run_bn, &c));
		printf("bench relu_64x112 %.3f ms\n", time_it(run_relu, &c));
		gpu_free(c.w);
		c.w = bench_rand(4, xd);
		printf("bench add_64x112 %.3f ms\n", time_it(run_add, &c));
		gpu_free(c.x); gpu_free(c.y); gpu_free(c.m); gpu_free(c.v);
		gpu_free(c.w); gpu_free(c.b);
	}
	{
		int64_t xd[2] = { 1, 2048 }, wd[2] = { 1000, 2048 }, yd[2] = { 1, 1000 };
		int64_t bd[2] = { 1, 1000 };

		memset(&c, 0, sizeof(c));
		c.x = bench_rand(2, xd);
		c.w = bench_rand(2, wd);
		c.b = bench_rand(2, bd);
		c.y = gpu_empty(be(), IR_DTYPE_FLOAT, 2, yd);
		printf("bench linear_2048_1000 %.3f ms\n", time_it(run_linear, &c));
		gpu_free(c.x); gpu_free(c.w); gpu_free(c.b); gpu_free(c.y);
	}
}

/* --device auto's choice (gpu_auto_backend) on the cases measured on a
 * 16-core H100 machine (issue 17): resnet50 (0.1 GB) traced in 0.18 s on
 * the CPU, 0.49 s on CUDA; a 680M GPT (2.73 GB) at batch 1 in 0.67 s and
 * 0.9-1.4 s: both the CPU.  Without a device always the CPU; a batch that
 * multiplies the work past CUDA's start-up and copy takes CUDA; fewer CPU
 * threads make CUDA worth it sooner. */
static void test_auto_device(void)
{
	char why[256];

	CHECK_INT(gpu_auto_backend(102000000, 1, 16, 1, why, sizeof why),
		  GPU_BACKEND_CPU);
	CHECK(strstr(why, "the CPU, CUDA's start-up would dominate"));
	CHECK(strstr(why, "102.0 MB of weights, batch 1"));
	CHECK_INT(gpu_auto_backend(2730000000u, 1, 16, 1, NULL, 0),
		  GPU_BACKEND_CPU);
	CHECK_INT(gpu_auto_backend(2730000000u, 64, 16, 1, why, sizeof why),
		  GPU_BACKEND_CUDA);
	CHECK(strstr(why, "CUDA, the work outweighs its start-up"));
	CHECK_INT(gpu_auto_backend(2730000000u, 64, 16, 0, why, sizeof why),
		  GPU_BACKEND_CPU);
	CHECK(strstr(why, "no CUDA device, the CPU"));
	/* the same model and batch: on 1 thread the CPU's estimate grows */
	CHECK_INT(gpu_auto_backend(2730000000u, 1, 1, 1, NULL, 0),
		  GPU_BACKEND_CUDA);
	/* nothing to compute: never worth CUDA's start-up */
	CHECK_INT(gpu_auto_backend(0, 1000000, 1, 1, NULL, 0),
		  GPU_BACKEND_CPU);
}

const struct unit_test unit_tests[] = {
	UNIT(test_views),
	UNIT(test_copy_casts),
	UNIT(test_unary),
	UNIT(test_binary),
	UNIT(test_where_fill_arange),
	UNIT(test_reduce),
	UNIT(test_matmul),
	UNIT(test_conv),
	UNIT(test_pool),
	UNIT(test_norms_softmax),
	UNIT(test_indexing),
	UNIT(test_topk),
	UNIT(test_pad),
	UNIT(test_resize),
	UNIT(test_conv_big),
	UNIT(test_pool_nan),
	UNIT(test_auto_device),
	UNIT(test_bench),
	{ 0 }
};

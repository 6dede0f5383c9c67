/*
 * test_gpu_cuda.c - the CUDA backend against the CPU backend, kernel by
 * kernel: the same random data (several shapes, strided and broadcast
 * views, dtypes) through both tables, results compared within a float
 * tolerance (exactly for integers and indices).  The CPU backend is the
 * reference (test_gpu_cpu.c checks it against naive loops and torch).
 *
 * Without a CUDA device (or a build without nvcc) every test is skipped.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"
#include "unit.h"

static const struct gpu_backend *CPU, *GPU;

static int setup(void)
{
	if (!gpu_backend_available(GPU_BACKEND_CUDA)) {
		unit_skip("no CUDA device");
		return 0;
	}
	GPU = gpu_backend_get(GPU_BACKEND_CUDA);
	CPU = gpu_backend_get(GPU_BACKEND_CPU);
	if (!GPU || !CPU) {
		unit_fail(__FILE__, __LINE__, "backend tables missing");
		return 0;
	}
	return 1;
}

/* --- deterministic random data ------------------------------------------ */

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static double urand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (double)(rng >> 11) / 9007199254740992.0;
}

/* --- a tensor on both backends ------------------------------------------ */

struct pair {
	struct gpu_tensor *c, *g; /* cpu, cuda */
};

static int64_t numel(int rank, const int64_t *dims)
{
	int64_t n = 1;
	for (int i = 0; i < rank; i++)
		n *= dims[i];
	return n;
}

static struct pair pempty(enum ir_dtype dt, int rank, const int64_t *dims)
{
	struct pair p = { gpu_empty(CPU, dt, rank, dims),
			  gpu_empty(GPU, dt, rank, dims) };
	return p;
}

static void pfree(struct pair p)
{
	gpu_free(p.c);
	gpu_free(p.g);
}

/* the same values (uniform in [lo, hi), whole numbers when `integral`)
 * in dtype dt on both backends: converted by the CPU backend, uploaded */
static struct pair mk(enum ir_dtype dt, int rank, const int64_t *dims,
		      double lo, double hi, int integral)
{
	int64_t n = numel(rank, dims);
	struct pair p = pempty(dt, rank, dims);
	struct gpu_tensor *d = gpu_empty(CPU, IR_DTYPE_DOUBLE, rank, dims);
	double *v = d ? d->storage->data : NULL;
	size_t bytes = (size_t)n * ir_dtype_size(dt);
	void *buf = malloc(bytes ? bytes : 1);

	if (!p.c || !p.g || !d || !buf) {
		unit_fail(__FILE__, __LINE__, "allocation failed: %s",
			  gpu_last_error());
		abort();
	}
	for (int64_t i = 0; i < n; i++) {
		double x = lo + (hi - lo) * urand();
		v[i] = integral ? floor(x) : x;
	}
	CHECK_INT(CPU->copy(d, p.c), 0);
	CHECK_INT(gpu_to_host(p.c, IR_DTYPE_UNDEFINED, buf), 0);
	CHECK_INT(GPU->upload(p.g->storage->data, buf, bytes), 0);
	free(buf);
	gpu_free(d);
	return p;
}

static struct pair pview(struct pair p, int rank, const int64_t *dims,
			 const int64_t *strides, int64_t offset)
{
	struct pair v = { gpu_view(p.c, rank, dims, strides, offset),
			  gpu_view(p.g, rank, dims, strides, offset) };
	return v;
}

/* the same values as mk(), as a strided view (every other element of a
 * tensor twice as long in its last dim) */
static struct pair mk_strided(enum ir_dtype dt, int rank, const int64_t *dims,
			      double lo, double hi, int integral)
{
	int64_t bd[GPU_MAX_DIMS], st[GPU_MAX_DIMS];
	memcpy(bd, dims, (size_t)rank * sizeof(int64_t));
	bd[rank - 1] *= 2;
	struct pair b = mk(dt, rank, bd, lo, hi, integral);
	memcpy(st, b.c->strides, (size_t)rank * sizeof(int64_t));
	st[rank - 1] = 2;
	struct pair v = pview(b, rank, dims, st, 1);
	pfree(b);
	return v;
}

/* p transposed in its last two dims (a strided view) */
static struct pair ptrans(struct pair p)
{
	int r = p.c->rank;
	int64_t d[GPU_MAX_DIMS], s[GPU_MAX_DIMS];
	memcpy(d, p.c->dims, sizeof(d));
	memcpy(s, p.c->strides, sizeof(s));
	d[r - 2] = p.c->dims[r - 1];
	d[r - 1] = p.c->dims[r - 2];
	s[r - 2] = p.c->strides[r - 1];
	s[r - 1] = p.c->strides[r - 2];
	return pview(p, r, d, s, p.c->offset);
}

static int near(double a, double b, double rtol, double atol)
{
	if (isnan(a) || isnan(b))
		return isnan(a) && isnan(b);
	if (isinf(a) || isinf(b))
		return a == b;
	return fabs(a - b) <= atol + rtol * fabs(b);
}

/* 1 when the CUDA result matches the CPU one */
static int pcmp_at(struct pair p, double rtol, double atol, const char *what,
		   int line)
{
	int64_t n = gpu_numel(p.c);
	double *a = malloc((size_t)(n ? n : 1) * sizeof(double));
	double *b = malloc((size_t)(n ? n : 1) * sizeof(double));
	int ok = 1;

	if (!a || !b || gpu_to_host(p.c, IR_DTYPE_DOUBLE, a) ||
	    gpu_to_host(p.g, IR_DTYPE_DOUBLE, b)) {
		unit_fail(__FILE__, line, "%s: reading back: %s", what,
			  gpu_last_error());
		ok = 0;
	}
	for (int64_t i = 0; ok && i < n; i++)
		if (!near(b[i], a[i], rtol, atol)) {
			unit_fail(__FILE__, line,
				  "%s: element %lld: cuda %.9g, cpu %.9g", what,
				  (long long)i, b[i], a[i]);
			ok = 0;
		}
	free(a);
	free(b);
	return ok;
}

#define PCMP(p, rtol, atol, what) pcmp_at(p, rtol, atol, what, __LINE__)

/* both backends return 0 */
#define BOTH(expr_c, expr_g) \
	do { \
		int rc_ = (expr_c); \
		int rg_ = (expr_g); \
		if (rc_ || rg_) \
			unit_fail(__FILE__, __LINE__, "cpu %d cuda %d: %s", \
				  rc_, rg_, gpu_last_error()); \
	} while (0)

#define NEED(fn) \
	do { \
		if (!CPU->fn || !GPU->fn) { \
			unit_fail(__FILE__, __LINE__, "%s missing", #fn); \
			return; \
		} \
	} while (0)

static int low_prec(enum ir_dtype dt)
{
	return dt == IR_DTYPE_FLOAT16 || dt == IR_DTYPE_BFLOAT16;
}

static const double FTOL = 1e-5, DTOL = 1e-12;

/* --- copy, fill, arange -------------------------------------------------- */

static const enum ir_dtype all_dt[] = {
	IR_DTYPE_FLOAT, IR_DTYPE_DOUBLE, IR_DTYPE_FLOAT16, IR_DTYPE_BFLOAT16,
	IR_DTYPE_INT64, IR_DTYPE_INT32, IR_DTYPE_INT16, IR_DTYPE_INT8,
	IR_DTYPE_UINT8, IR_DTYPE_BOOL,
};
#define NDT (sizeof(all_dt) / sizeof(all_dt[0]))

static void test_cuda_copy(void)
{
	if (!setup())
		return;
	NEED(copy);
	int64_t dims[3] = { 3, 5, 7 };
	for (size_t i = 0; i < NDT; i++)
		for (size_t j = 0; j < NDT; j++) {
			/* values every dtype holds (uint8: non-negative) */
			int uns = all_dt[j] == IR_DTYPE_UINT8 ||
				  all_dt[i] == IR_DTYPE_UINT8;
			struct pair x = mk(all_dt[i], 3, dims, uns ? 0 : -60, 60,
					   0);
			/* a permuted view, and a broadcast one */
			int64_t pd[3] = { 7, 3, 5 }, ps[3] = { 1, 35, 7 };
			struct pair xv = pview(x, 3, pd, ps, 0);
			struct pair y = pempty(all_dt[j], 3, pd);
			BOTH(CPU->copy(xv.c, y.c), GPU->copy(xv.g, y.g));
			PCMP(y, low_prec(all_dt[j]) ? 1e-2 : 0, 0, "copy permuted");
			int64_t bd[3] = { 4, 5, 7 }, bs[3] = { 0, 7, 1 };
			struct pair xb = pview(x, 3, bd, bs, 35);
			struct pair yb = pempty(all_dt[j], 3, bd);
			BOTH(CPU->copy(xb.c, yb.c), GPU->copy(xb.g, yb.g));
			PCMP(yb, low_prec(all_dt[j]) ? 1e-2 : 0, 0, "copy broadcast");
			pfree(x);
			pfree(xv);
			pfree(y);
			pfree(xb);
			pfree(yb);
		}
}

static void test_cuda_fill_arange(void)
{
	if (!setup())
		return;
	NEED(fill);
	NEED(arange);
	int64_t dims[2] = { 33, 65 }, n = 1000;
	for (size_t i = 0; i < NDT; i++) {
		struct pair y = pempty(all_dt[i], 2, dims);
		BOTH(CPU->fill(y.c, 3.0), GPU->fill(y.g, 3.0));
		PCMP(y, 0, 0, "fill");
		pfree(y);
		if (all_dt[i] == IR_DTYPE_BOOL || all_dt[i] == IR_DTYPE_INT8 ||
		    all_dt[i] == IR_DTYPE_UINT8)
			continue;
		struct pair a = pempty(all_dt[i], 1, &n);
		int fl = all_dt[i] == IR_DTYPE_FLOAT ||
			 all_dt[i] == IR_DTYPE_DOUBLE ||
			 all_dt[i] == IR_DTYPE_FLOAT16 ||
			 all_dt[i] == IR_DTYPE_BFLOAT16;
		double step = fl ? 0.25 : 3;
		BOTH(CPU->arange(a.c, -7, step), GPU->arange(a.g, -7, step));
		PCMP(a, low_prec(all_dt[i]) ? 1e-2 : 1e-7, 0, "arange");
		pfree(a);
	}
}

/* --- unary, binary, where ------------------------------------------------ */

/* an input range where op is defined */
static void unary_domain(int op, double *lo, double *hi)
{
	*lo = -3;
	*hi = 3;
	switch (op) {
	case GPU_SQRT: case GPU_RSQRT: case GPU_LOG: case GPU_LOG2:
	case GPU_LOG10: case GPU_RECIPROCAL:
		*lo = 0.1;
		*hi = 5;
		break;
	case GPU_LOG1P: *lo = -0.9; break;
	case GPU_ACOSH: *lo = 1.01; *hi = 5; break;
	case GPU_ASIN: case GPU_ACOS: case GPU_ATANH:
		*lo = -0.95;
		*hi = 0.95;
		break;
	case GPU_LOGIT: *lo = 0.02; *hi = 0.98; break;
	case GPU_POW_SCALAR: *lo = 0.1; break;
	default: break;
	}
}

static void unary_params(int op, double *a, double *b)
{
	*a = 0;
	*b = 0;
	switch (op) {
	case GPU_GELU: *a = (urand() < 0.5); break;
	case GPU_LEAKY_RELU: *a = 0.1; break;
	case GPU_ELU: *a = 1.6732632423543772; *b = 1.0507009873554805; break;
	case GPU_CELU: *a = 0.7; break;
	case GPU_HARDTANH: *a = -0.5; *b = 1.5; break;
	case GPU_HARDSHRINK: case GPU_SOFTSHRINK: *a = 0.5; break;
	case GPU_SOFTPLUS: *a = 2; *b = 3; break;
	case GPU_THRESHOLD: *a = 0.3; *b = -2; break;
	case GPU_POW_SCALAR: *a = 2.5; break;
	case GPU_RPOW_SCALAR: *a = 1.7; break;
	case GPU_LOGIT: *a = urand() < 0.5 ? -1 : 0.1; break;
	default: break;
	}
}

static int unary_bool(int op)
{
	return op == GPU_NOT || op == GPU_ISNAN || op == GPU_ISINF;
}

static void test_cuda_unary(void)
{
	if (!setup())
		return;
	NEED(unary);
	int64_t dims[3] = { 4, 6, 9 };
	enum ir_dtype fdt[] = { IR_DTYPE_FLOAT, IR_DTYPE_DOUBLE,
				IR_DTYPE_FLOAT16 };
	for (int op = 0; op < GPU_UNARY_COUNT; op++) {
		if (op == GPU_BITWISE_NOT)
			continue;
		for (int k = 0; k < 3; k++) {
			double lo, hi, a, b;
			unary_domain(op, &lo, &hi);
			unary_params(op, &a, &b);
			struct pair x = mk(fdt[k], 3, dims, lo, hi, 0);
			struct pair xt = ptrans(x); /* [4, 9, 6] strided */
			struct pair y = pempty(unary_bool(op) ? IR_DTYPE_BOOL :
					       fdt[k], 3, xt.c->dims);
			BOTH(CPU->unary(op, xt.c, y.c, a, b),
			     GPU->unary(op, xt.g, y.g, a, b));
			if (!PCMP(y, k == 1 ? DTOL : (k == 2 ? 2e-3 : FTOL),
				  k == 1 ? 1e-12 : 1e-5, "unary"))
				fprintf(stderr, "  (op %d dtype %d)\n", op, fdt[k]);
			pfree(x);
			pfree(xt);
			pfree(y);
		}
	}
	/* integer ops */
	int iops[] = { GPU_NEG, GPU_ABS, GPU_SIGN, GPU_NOT, GPU_BITWISE_NOT,
		       GPU_RELU, GPU_HARDTANH, GPU_POW_SCALAR };
	enum ir_dtype idt[] = { IR_DTYPE_INT64, IR_DTYPE_INT32, IR_DTYPE_INT8,
				IR_DTYPE_BOOL };
	for (size_t i = 0; i < sizeof(iops) / sizeof(iops[0]); i++)
		for (int k = 0; k < 4; k++) {
			int op = iops[i];
			if (idt[k] == IR_DTYPE_BOOL && op != GPU_NOT &&
			    op != GPU_BITWISE_NOT)
				continue;
			struct pair x = mk(idt[k], 3, dims, -9, 9, 1);
			struct pair y = pempty(op == GPU_NOT ? IR_DTYPE_BOOL :
					       idt[k], 3, dims);
			double a = op == GPU_POW_SCALAR ? 3 : -4, b = 5;
			BOTH(CPU->unary(op, x.c, y.c, a, b),
			     GPU->unary(op, x.g, y.g, a, b));
			if (!PCMP(y, 0, 0, "unary int"))
				fprintf(stderr, "  (op %d dtype %d)\n", op, idt[k]);
			pfree(x);
			pfree(y);
		}
}

static int binary_bool(int op)
{
	return op >= GPU_EQ && op <= GPU_LOGICAL_XOR;
}

static void test_cuda_binary(void)
{
	if (!setup())
		return;
	NEED(binary);
	/* a [5, 1 -> 6, 7] broadcast, b [5, 6, 7] transposed view */
	int64_t ad[3] = { 5, 1, 7 }, yd[3] = { 5, 6, 7 }, bd[3] = { 5, 7, 6 };
	int64_t as[3] = { 7, 0, 1 };
	enum ir_dtype dts[] = { IR_DTYPE_FLOAT, IR_DTYPE_DOUBLE, IR_DTYPE_INT64,
				IR_DTYPE_INT32, IR_DTYPE_UINT8, IR_DTYPE_BOOL };
	for (int op = 0; op < GPU_BINARY_COUNT; op++)
		for (int k = 0; k < 6; k++) {
			enum ir_dtype dt = dts[k];
			int fl = k < 2;
			if (fl && op >= GPU_BITWISE_AND)
				continue;
			if (dt == IR_DTYPE_BOOL &&
			    !(binary_bool(op) || op >= GPU_BITWISE_AND ||
			      op == GPU_MAX || op == GPU_MIN))
				continue;
			if (!fl && (op == GPU_DIV || op == GPU_ATAN2))
				continue;
			if (dt == IR_DTYPE_UINT8 && (op == GPU_SUB || op == GPU_POW))
				continue;
			double lo = dt == IR_DTYPE_BOOL ? 0 : (dt == IR_DTYPE_UINT8 ? 1 : -6);
			double hi = dt == IR_DTYPE_BOOL ? 2 : 6;
			if (op == GPU_POW)
				lo = fl ? 0.2 : 0;
			struct pair a0 = mk(dt, 3, ad, lo, hi, !fl);
			struct pair b0 = mk(dt, 3, bd, op == GPU_POW ? 0 : lo,
					    op == GPU_POW ? 4 : hi, !fl);
			/* no zero divisors for the integer divisions */
			if (!fl && dt != IR_DTYPE_BOOL &&
			    (op == GPU_FLOOR_DIV || op == GPU_TRUNC_DIV ||
			     op == GPU_REMAINDER || op == GPU_FMOD)) {
				pfree(b0);
				b0 = mk(dt, 3, bd, 1, 6, 1);
			}
			struct pair a = pview(a0, 3, yd, as, 0);
			struct pair b = ptrans(b0);
			struct pair y = pempty(binary_bool(op) ? IR_DTYPE_BOOL :
					       dt, 3, yd);
			BOTH(CPU->binary(op, a.c, b.c, y.c),
			     GPU->binary(op, a.g, b.g, y.g));
			if (!PCMP(y, fl ? (k ? DTOL : FTOL) : 0,
				  fl ? (k ? 1e-12 : 1e-5) : 0, "binary"))
				fprintf(stderr, "  (op %d dtype %d)\n", op, dt);
			pfree(a0);
			pfree(b0);
			pfree(a);
			pfree(b);
			pfree(y);
		}
}

static void test_cuda_where(void)
{
	if (!setup())
		return;
	NEED(where);
	int64_t d[2] = { 17, 31 }, cd[2] = { 1, 31 }, cs[2] = { 0, 1 };
	enum ir_dtype dts[] = { IR_DTYPE_FLOAT, IR_DTYPE_INT64, IR_DTYPE_UINT8 };
	for (int k = 0; k < 3; k++) {
		struct pair c0 = mk(IR_DTYPE_BOOL, 2, cd, 0, 2, 1);
		struct pair c = pview(c0, 2, d, cs, 0);
		struct pair a = mk(dts[k], 2, d, 0, 100, 1);
		struct pair bt = mk_strided(dts[k], 2, d, 0, 100, 0);
		struct pair y = pempty(dts[k], 2, d);
		BOTH(CPU->where(c.c, a.c, bt.c, y.c),
		     GPU->where(c.g, a.g, bt.g, y.g));
		PCMP(y, 0, 0, "where");
		pfree(c0);
		pfree(c);
		pfree(a);
		pfree(bt);
		pfree(y);
	}
}

/* --- reduce, cumulative -------------------------------------------------- */

static void test_cuda_reduce(void)
{
	if (!setup())
		return;
	NEED(reduce);
	struct {
		int rank;
		int64_t dims[4];
		uint32_t mask;
	} cases[] = {
		{ 3, { 4, 5, 6 }, 4 }, { 3, { 4, 5, 6 }, 1 },
		{ 3, { 4, 5, 6 }, 5 }, { 3, { 4, 5, 6 }, 7 },
		{ 2, { 3, 5000 }, 2 }, { 2, { 2, 70000 }, 2 },
		{ 2, { 3000, 40 }, 2 }, { 4, { 2, 3, 4, 5 }, 10 },
	};
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
		for (int op = 0; op < GPU_REDUCE_COUNT; op++)
			for (int k = 0; k < 3; k++) {
				enum ir_dtype dt = k == 0 ? IR_DTYPE_FLOAT :
						   (k == 1 ? IR_DTYPE_DOUBLE :
						    IR_DTYPE_INT64);
				int arg = op == GPU_RARGMAX || op == GPU_RARGMIN;
				int r = cases[c].rank;
				uint32_t m = cases[c].mask;
				if (arg && __builtin_popcount(m) != 1)
					continue;
				if (k == 2 && (op == GPU_RMEAN || op == GPU_RL2 ||
					       op == GPU_RL1 ||
					       op == GPU_RLOGSUMEXP ||
					       op == GPU_RVAR))
					continue;
				if (op == GPU_RPROD && numel(r, cases[c].dims) > 1000)
					continue;
				double lo = op == GPU_RPROD ? 0.5 : -10;
				double hi = op == GPU_RPROD ? 1.5 : 10;
				struct pair x0 = mk(dt, r, cases[c].dims,
						    k == 2 ? -3 : lo,
						    k == 2 ? 3 : hi, k == 2);
				/* reversed dims order: a strided view */
				int64_t vd[4], vs[4], yd[4];
				uint32_t vm = 0;
				for (int i = 0; i < r; i++) {
					vd[i] = x0.c->dims[r - 1 - i];
					vs[i] = x0.c->strides[r - 1 - i];
					if (m & (1u << i))
						vm |= 1u << i;
				}
				struct pair x = pview(x0, r, vd, vs, 0);
				for (int i = 0; i < r; i++)
					yd[i] = (vm & (1u << i)) ? 1 : vd[i];
				enum ir_dtype yt = arg ? IR_DTYPE_INT64 :
					(op == GPU_RALL || op == GPU_RANY) ?
					IR_DTYPE_BOOL : dt;
				struct pair y = pempty(yt, r, yd);
				double param = op == GPU_RVAR ? (urand() < 0.5) : 0;
				BOTH(CPU->reduce(op, x.c, vm, param, y.c),
				     GPU->reduce(op, x.g, vm, param, y.g));
				int64_t nred = 1;
				for (int i = 0; i < r; i++)
					if (vm & (1u << i))
						nred *= vd[i];
				if (!PCMP(y, k == 1 ? 1e-10 : 1e-4,
					  k == 1 ? 1e-9 : 1e-5 * (double)nred,
					  "reduce"))
					fprintf(stderr, "  (case %zu op %d dtype %d)\n",
						c, op, dt);
				pfree(x0);
				pfree(x);
				pfree(y);
			}
}

static void test_cuda_cumulative(void)
{
	if (!setup())
		return;
	NEED(cumulative);
	int64_t d[3] = { 3, 40, 5 };
	for (int k = 0; k < 2; k++)
		for (int axis = 0; axis < 3; axis++)
			for (int prod = 0; prod < 2; prod++)
				for (int rev = 0; rev < 2; rev++) {
					enum ir_dtype dt = k ? IR_DTYPE_INT64 :
							   IR_DTYPE_FLOAT;
					struct pair x0 = mk(dt, 3, d,
							    prod ? (k ? 1 : 0.9) : -5,
							    prod ? (k ? 3 : 1.1) : 5, k);
					struct pair x = ptrans(x0);
					struct pair y = pempty(dt, 3, x.c->dims);
					BOTH(CPU->cumulative(x.c, axis, prod, rev, y.c),
					     GPU->cumulative(x.g, axis, prod, rev, y.g));
					PCMP(y, 1e-5, 1e-4, "cumulative");
					pfree(x0);
					pfree(x);
					pfree(y);
				}
}

/* --- matmul -------------------------------------------------------------- */

static void test_cuda_matmul(void)
{
	if (!setup())
		return;
	NEED(matmul);
	int64_t M = 37, N = 29, K = 53;
	for (int k = 0; k < 2; k++)
		for (int ta = 0; ta < 2; ta++)
			for (int tb = 0; tb < 2; tb++)
				for (int mode = 0; mode < 3; mode++) {
					enum ir_dtype dt = k ? IR_DTYPE_DOUBLE :
							   IR_DTYPE_FLOAT;
					/* a: [3, M, K] (ta: [3, K, M]); b [K, N]
					 * broadcast over the batch (stride 0) */
					int64_t ad[3] = { 3, ta ? K : M, ta ? M : K };
					int64_t bd[2] = { tb ? N : K, tb ? K : N };
					struct pair a = mk(dt, 3, ad, -1, 1, 0);
					/* mode 1: a's matrix as a transposed view */
					struct pair av;
					if (mode == 1) {
						int64_t sd[3] = { 3, ad[2], ad[1] };
						struct pair s = mk(dt, 3, sd, -1, 1, 0);
						av = ptrans(s);
						pfree(a);
						a = s;
					} else {
						av = pview(a, 3, a.c->dims, a.c->strides, 0);
					}
					struct pair b0 = mk(dt, 2, bd, -1, 1, 0);
					int64_t bvd[3] = { 3, bd[0], bd[1] };
					int64_t bvs[3] = { 0, bd[1], 1 };
					struct pair b = pview(b0, 3, bvd, bvs, 0);
					int64_t yd[3] = { 3, M, N };
					int64_t cd[3] = { 1, 1, N }, cs[3] = { 0, 0, 1 };
					struct pair c0 = mk(dt, 3, cd, -1, 1, 0);
					int64_t cvd[3] = { 3, M, N };
					struct pair c = pview(c0, 3, cvd, cs, 0);
					struct pair y = pempty(dt, 3, yd);
					int usec = mode == 2;
					BOTH(CPU->matmul(av.c, b.c, usec ? c.c : NULL, ta, tb,
							 0.7, usec ? 0.3 : 0, y.c),
					     GPU->matmul(av.g, b.g, usec ? c.g : NULL, ta, tb,
							 0.7, usec ? 0.3 : 0, y.g));
					if (!PCMP(y, k ? 1e-12 : 1e-4, k ? 1e-12 : 1e-5,
						  "matmul"))
						fprintf(stderr, "  (dt %d ta %d tb %d mode %d)\n",
							dt, ta, tb, mode);
					pfree(a);
					pfree(av);
					pfree(b0);
					pfree(b);
					pfree(c0);
					pfree(c);
					pfree(y);
				}
}

/* --- conv, pool ---------------------------------------------------------- */

static int64_t conv_out(int64_t in, int64_t k, int64_t s, int64_t p,
			int64_t d)
{
	return (in + 2 * p - d * (k - 1) - 1) / s + 1;
}

static void test_cuda_conv(void)
{
	if (!setup())
		return;
	NEED(conv);
	struct {
		int nsp;
		int64_t n, c, o, g;
		int64_t in[3], k[3], s[3], p[3], d[3], op[3];
		int transposed, bias;
	} cases[] = {
		{ 2, 2, 6, 8, 2, { 9, 11 }, { 3, 3 }, { 1, 2 }, { 1, 0 }, { 1, 1 }, { 0 }, 0, 1 },
		{ 2, 1, 16, 16, 16, { 8, 8 }, { 3, 3 }, { 1, 1 }, { 1, 1 }, { 1, 1 }, { 0 }, 0, 1 },
		{ 2, 2, 5, 7, 1, { 6, 7 }, { 1, 1 }, { 1, 1 }, { 0, 0 }, { 1, 1 }, { 0 }, 0, 0 },
		{ 2, 1, 4, 4, 1, { 10, 10 }, { 3, 2 }, { 2, 1 }, { 2, 1 }, { 2, 3 }, { 0 }, 0, 1 },
		{ 1, 3, 4, 6, 2, { 20 }, { 5 }, { 3 }, { 2 }, { 1 }, { 0 }, 0, 1 },
		{ 3, 1, 3, 4, 1, { 5, 6, 7 }, { 2, 3, 3 }, { 1, 2, 1 }, { 1, 1, 0 }, { 1, 1, 2 }, { 0 }, 0, 1 },
		{ 2, 2, 6, 4, 2, { 5, 6 }, { 3, 3 }, { 2, 2 }, { 1, 1 }, { 1, 1 }, { 1, 0 }, 1, 1 },
		{ 1, 1, 3, 5, 1, { 7 }, { 4 }, { 3 }, { 1 }, { 2 }, { 2 }, 1, 0 },
	};
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
		for (int k = 0; k < 2; k++) {
			enum ir_dtype dt = k ? IR_DTYPE_DOUBLE : IR_DTYPE_FLOAT;
			struct gpu_conv p;
			memset(&p, 0, sizeof(p));
			int nsp = cases[c].nsp;
			p.nspatial = nsp;
			p.groups = cases[c].g;
			p.transposed = cases[c].transposed;
			int64_t xd[5] = { cases[c].n, cases[c].c }, wd[5], yd[5];
			int64_t G = cases[c].g;
			if (p.transposed) {
				wd[0] = cases[c].c;
				wd[1] = cases[c].o / G;
			} else {
				wd[0] = cases[c].o;
				wd[1] = cases[c].c / G;
			}
			yd[0] = cases[c].n;
			yd[1] = cases[c].o;
			for (int i = 0; i < nsp; i++) {
				p.stride[i] = cases[c].s[i];
				p.pad[i] = cases[c].p[i];
				p.dilation[i] = cases[c].d[i];
				p.output_padding[i] = cases[c].op[i];
				xd[2 + i] = cases[c].in[i];
				wd[2 + i] = cases[c].k[i];
				yd[2 + i] = p.transposed ?
					(cases[c].in[i] - 1) * p.stride[i] - 2 * p.pad[i] +
					p.dilation[i] * (cases[c].k[i] - 1) +
					p.output_padding[i] + 1 :
					conv_out(cases[c].in[i], cases[c].k[i],
						 p.stride[i], p.pad[i], p.dilation[i]);
			}
			struct pair x = mk(dt, nsp + 2, xd, -1, 1, 0);
			struct pair w = mk(dt, nsp + 2, wd, -1, 1, 0);
			struct pair b = mk(dt, 1, &yd[1], -1, 1, 0);
			struct pair y = pempty(dt, nsp + 2, yd);
			int hb = cases[c].bias;
			BOTH(CPU->conv(&p, x.c, w.c, hb ? b.c : NULL, y.c),
			     GPU->conv(&p, x.g, w.g, hb ? b.g : NULL, y.g));
			if (!PCMP(y, k ? 1e-11 : 1e-4, k ? 1e-11 : 1e-5, "conv"))
				fprintf(stderr, "  (case %zu dtype %d)\n", c, dt);
			pfree(x);
			pfree(w);
			pfree(b);
			pfree(y);
		}
	/* a strided (channels-last) input */
	{
		struct gpu_conv p;
		memset(&p, 0, sizeof(p));
		p.nspatial = 2;
		p.groups = 1;
		p.stride[0] = p.stride[1] = 1;
		p.pad[0] = p.pad[1] = 1;
		p.dilation[0] = p.dilation[1] = 1;
		int64_t xd[4] = { 2, 7, 7, 3 }; /* N H W C */
		struct pair x0 = mk(IR_DTYPE_FLOAT, 4, xd, -1, 1, 0);
		int64_t vd[4] = { 2, 3, 7, 7 }, vs[4] = { 147, 1, 21, 3 };
		struct pair x = pview(x0, 4, vd, vs, 0);
		int64_t wd[4] = { 5, 3, 3, 3 }, yd[4] = { 2, 5, 7, 7 };
		struct pair w = mk(IR_DTYPE_FLOAT, 4, wd, -1, 1, 0);
		struct pair y = pempty(IR_DTYPE_FLOAT, 4, yd);
		BOTH(CPU->conv(&p, x.c, w.c, NULL, y.c),
		     GPU->conv(&p, x.g, w.g, NULL, y.g));
		PCMP(y, 1e-4, 1e-5, "conv channels-last");
		pfree(x0);
		pfree(x);
		pfree(w);
		pfree(y);
	}
}

static int64_t pool_out(int64_t in, int64_t k, int64_t s, int64_t p,
			int64_t d, int ceil_mode)
{
	int64_t num = in + 2 * p - d * (k - 1) - 1;
	int64_t o = (ceil_mode ? (num + s - 1) / s : num / s) + 1;
	if (ceil_mode && (o - 1) * s >= in + p)
		o--;
	return o;
}

static void test_cuda_pool(void)
{
	if (!setup())
		return;
	NEED(pool);
	NEED(adaptive_pool);
	struct {
		int nsp;
		int64_t in[3], k[3], s[3], p[3], d[3];
		int ceil_mode;
	} cases[] = {
		{ 2, { 9, 10 }, { 3, 3 }, { 2, 2 }, { 1, 1 }, { 1, 1 }, 0 },
		{ 2, { 9, 10 }, { 3, 2 }, { 2, 3 }, { 1, 0 }, { 1, 1 }, 1 },
		{ 2, { 12, 12 }, { 3, 3 }, { 1, 1 }, { 1, 1 }, { 2, 2 }, 0 },
		{ 1, { 17 }, { 4 }, { 3 }, { 2 }, { 1 }, 1 },
		{ 3, { 5, 6, 7 }, { 2, 3, 2 }, { 2, 1, 2 }, { 1, 1, 0 }, { 1, 1, 1 }, 0 },
	};
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
		for (int kind = 0; kind < 2; kind++)
			for (int cip = 0; cip < 2; cip++) {
				int nsp = cases[c].nsp;
				struct gpu_pool p;
				memset(&p, 0, sizeof(p));
				p.kind = kind ? GPU_POOL_AVG : GPU_POOL_MAX;
				p.nspatial = nsp;
				p.count_include_pad = cip;
				p.divisor_override = (kind && cip && c == 1) ? 5 : 0;
				int64_t xd[5] = { 2, 3 }, yd[5] = { 2, 3 };
				for (int i = 0; i < nsp; i++) {
					p.kernel[i] = cases[c].k[i];
					p.stride[i] = cases[c].s[i];
					p.pad[i] = cases[c].p[i];
					p.dilation[i] = kind ? 1 : cases[c].d[i];
					xd[2 + i] = cases[c].in[i];
					yd[2 + i] = pool_out(cases[c].in[i], p.kernel[i],
							     p.stride[i], p.pad[i],
							     p.dilation[i],
							     cases[c].ceil_mode);
				}
				struct pair xt = mk_strided(IR_DTYPE_FLOAT, nsp + 2, xd,
							    -5, 5, 0);
				struct pair y = pempty(IR_DTYPE_FLOAT, nsp + 2, yd);
				struct pair ind = pempty(IR_DTYPE_INT64, nsp + 2, yd);
				BOTH(CPU->pool(&p, xt.c, y.c, kind ? NULL : ind.c),
				     GPU->pool(&p, xt.g, y.g, kind ? NULL : ind.g));
				if (!PCMP(y, 1e-5, 1e-6, "pool"))
					fprintf(stderr, "  (case %zu kind %d cip %d)\n",
						c, kind, cip);
				if (!kind)
					PCMP(ind, 0, 0, "pool indices");
				pfree(xt);
				pfree(y);
				pfree(ind);
			}
	/* adaptive: bins that overlap and bins that do not */
	int64_t ins[3][3] = { { 10, 7, 0 }, { 13, 0, 0 }, { 5, 9, 6 } };
	int64_t outs[3][3] = { { 3, 4, 0 }, { 5, 0, 0 }, { 2, 4, 3 } };
	int nsps[3] = { 2, 1, 3 };
	for (int c = 0; c < 3; c++)
		for (int kind = 0; kind < 2; kind++) {
			int nsp = nsps[c];
			int64_t xd[5] = { 2, 3 }, yd[5] = { 2, 3 };
			for (int i = 0; i < nsp; i++) {
				xd[2 + i] = ins[c][i];
				yd[2 + i] = outs[c][i];
			}
			struct pair x = mk(IR_DTYPE_FLOAT, nsp + 2, xd, -5, 5, 0);
			struct pair y = pempty(IR_DTYPE_FLOAT, nsp + 2, yd);
			BOTH(CPU->adaptive_pool(kind, nsp, x.c, y.c),
			     GPU->adaptive_pool(kind, nsp, x.g, y.g));
			PCMP(y, 1e-5, 1e-6, "adaptive_pool");
			pfree(x);
			pfree(y);
		}
}

/* --- softmax, norms ------------------------------------------------------ */

static void test_cuda_softmax(void)
{
	if (!setup())
		return;
	NEED(softmax);
	int64_t shapes[3][3] = { { 4, 7, 5 }, { 3, 5000, 2 }, { 2, 3, 9000 } };
	for (int s = 0; s < 3; s++)
		for (int axis = 0; axis < 3; axis++)
			for (int lg = 0; lg < 2; lg++)
				for (int k = 0; k < 2; k++) {
					enum ir_dtype dt = k ? IR_DTYPE_DOUBLE :
							   IR_DTYPE_FLOAT;
					struct pair x0 = mk(dt, 3, shapes[s], -8, 8, 0);
					struct pair x = ptrans(x0);
					struct pair y = pempty(dt, 3, x.c->dims);
					BOTH(CPU->softmax(x.c, axis, lg, y.c),
					     GPU->softmax(x.g, axis, lg, y.g));
					PCMP(y, k ? 1e-10 : 1e-4, k ? 1e-14 : 1e-7,
					     "softmax");
					pfree(x0);
					pfree(x);
					pfree(y);
				}
}

static void test_cuda_norms(void)
{
	if (!setup())
		return;
	NEED(batch_norm);
	NEED(group_norm);
	NEED(layer_norm);
	int64_t xd[4] = { 3, 6, 5, 7 }, C = 6;
	for (int k = 0; k < 2; k++) {
		enum ir_dtype dt = k ? IR_DTYPE_DOUBLE : IR_DTYPE_FLOAT;
		double rt = k ? 1e-10 : 1e-4, at = k ? 1e-10 : 1e-4;
		struct pair x0 = mk(dt, 4, xd, -3, 4, 0);
		struct pair x = ptrans(x0); /* [3, 6, 7, 5] strided */
		struct pair m = mk(dt, 1, &C, -1, 1, 0);
		struct pair v = mk(dt, 1, &C, 0.5, 2, 0);
		struct pair w = mk(dt, 1, &C, -2, 2, 0);
		struct pair b = mk(dt, 1, &C, -2, 2, 0);
		struct pair y = pempty(dt, 4, x.c->dims);
		BOTH(CPU->batch_norm(x.c, m.c, v.c, w.c, b.c, 1e-5, y.c),
		     GPU->batch_norm(x.g, m.g, v.g, w.g, b.g, 1e-5, y.g));
		PCMP(y, rt, at, "batch_norm");
		BOTH(CPU->batch_norm(x.c, NULL, NULL, w.c, NULL, 1e-5, y.c),
		     GPU->batch_norm(x.g, NULL, NULL, w.g, NULL, 1e-5, y.g));
		PCMP(y, rt, at, "batch_norm (batch statistics)");
		int64_t groups[3] = { 1, 3, 6 };
		for (int g = 0; g < 3; g++) {
			BOTH(CPU->group_norm(x.c, groups[g], w.c, b.c, 1e-5, y.c),
			     GPU->group_norm(x.g, groups[g], w.g, b.g, 1e-5, y.g));
			PCMP(y, rt, at, "group_norm");
		}
		BOTH(CPU->group_norm(x.c, 2, NULL, NULL, 1e-3, y.c),
		     GPU->group_norm(x.g, 2, NULL, NULL, 1e-3, y.g));
		PCMP(y, rt, at, "group_norm (no affine)");
		for (int na = 1; na <= 3; na++) {
			struct pair lw = mk(dt, na, x.c->dims + 4 - na, -2, 2, 0);
			struct pair lb = mk(dt, na, x.c->dims + 4 - na, -2, 2, 0);
			BOTH(CPU->layer_norm(x.c, na, lw.c, lb.c, 1e-5, y.c),
			     GPU->layer_norm(x.g, na, lw.g, lb.g, 1e-5, y.g));
			PCMP(y, rt, at, "layer_norm");
			BOTH(CPU->layer_norm(x.c, na, NULL, NULL, 1e-5, y.c),
			     GPU->layer_norm(x.g, na, NULL, NULL, 1e-5, y.g));
			PCMP(y, rt, at, "layer_norm (no affine)");
			pfree(lw);
			pfree(lb);
		}
		/* a long normalised axis (block per line) */
		int64_t ld[2] = { 3, 20000 };
		struct pair lx = mk(dt, 2, ld, -3, 4, 0);
		struct pair ly = pempty(dt, 2, ld);
		BOTH(CPU->layer_norm(lx.c, 1, NULL, NULL, 1e-5, ly.c),
		     GPU->layer_norm(lx.g, 1, NULL, NULL, 1e-5, ly.g));
		PCMP(ly, rt, at, "layer_norm (long)");
		pfree(lx);
		pfree(ly);
		pfree(x0);
		pfree(x);
		pfree(m);
		pfree(v);
		pfree(w);
		pfree(b);
		pfree(y);
	}
}

/* --- indexing ------------------------------------------------------------ */

static void test_cuda_index(void)
{
	if (!setup())
		return;
	NEED(gather);
	NEED(index_select);
	NEED(scatter);
	enum ir_dtype dts[] = { IR_DTYPE_FLOAT, IR_DTYPE_INT64, IR_DTYPE_UINT8,
				IR_DTYPE_FLOAT16 };
	int64_t xd[3] = { 5, 6, 7 };
	for (int k = 0; k < 4; k++)
		for (int axis = 0; axis < 3; axis++) {
			enum ir_dtype dt = dts[k];
			struct pair x0 = mk(dt, 3, xd, 0, 100, 1);
			struct pair x = ptrans(x0); /* [5, 7, 6] */
			int64_t len = x.c->dims[axis];
			/* gather: index [4, 3, 5] (smaller than x), negatives */
			int64_t id[3] = { 4, 3, 5 };
			id[axis] = 9;
			struct pair ix = mk(IR_DTYPE_INT64, 3, id, -len, len, 1);
			struct pair y = pempty(dt, 3, id);
			BOTH(CPU->gather(x.c, axis, ix.c, y.c),
			     GPU->gather(x.g, axis, ix.g, y.g));
			PCMP(y, 0, 0, "gather");
			/* index_select with a strided index */
			int64_t n2 = 12, one = 1;
			struct pair is0 = mk(IR_DTYPE_INT64, 1, &n2, -len, len, 1);
			int64_t six = 6, two = 2;
			struct pair is = pview(is0, 1, &six, &two, 1);
			int64_t sd[3] = { x.c->dims[0], x.c->dims[1], x.c->dims[2] };
			sd[axis] = 6;
			struct pair ys = pempty(dt, 3, sd);
			BOTH(CPU->index_select(x.c, axis, is.c, ys.c),
			     GPU->index_select(x.g, axis, is.g, ys.g));
			PCMP(ys, 0, 0, "index_select");
			(void)one;
			/* scatter add (duplicates) over a smaller index */
			int64_t cd[3] = { 4, 5, 6 };
			cd[axis] = 8;
			struct pair ci = mk(IR_DTYPE_INT64, 3, cd, -len, len, 1);
			struct pair src = mk(dt, 3, cd, 0, 3, 1);
			struct pair yo = pempty(dt, 3, x.c->dims);
			BOTH(CPU->scatter(x.c, axis, ci.c, src.c, 1, yo.c),
			     GPU->scatter(x.g, axis, ci.g, src.g, 1, yo.g));
			PCMP(yo, dt == IR_DTYPE_FLOAT16 ? 1e-2 : 0, 0, "scatter add");
			/* scatter set: a permutation along the axis, no repeats */
			int64_t pd[3] = { x.c->dims[0], x.c->dims[1], x.c->dims[2] };
			struct pair pi = pempty(IR_DTYPE_INT64, 3, pd);
			int64_t pn = gpu_numel(pi.c);
			int64_t *pv = malloc((size_t)pn * sizeof(int64_t));
			int64_t inner = 1;
			for (int d = axis + 1; d < 3; d++)
				inner *= pd[d];
			for (int64_t i = 0; i < pn; i++) {
				int64_t c = (i / inner) % len;
				pv[i] = (c * 11 + 3 + (i / (inner * len))) % len;
			}
			memcpy(pi.c->storage->data, pv, (size_t)pn * 8);
			CHECK_INT(GPU->upload(pi.g->storage->data, pv, (size_t)pn * 8), 0);
			free(pv);
			struct pair src2 = mk(dt, 3, pd, 0, 100, 1);
			BOTH(CPU->scatter(x.c, axis, pi.c, src2.c, 0, yo.c),
			     GPU->scatter(x.g, axis, pi.g, src2.g, 0, yo.g));
			PCMP(yo, 0, 0, "scatter set");
			pfree(x0);
			pfree(x);
			pfree(ix);
			pfree(y);
			pfree(is0);
			pfree(is);
			pfree(ys);
			pfree(ci);
			pfree(src);
			pfree(yo);
			pfree(pi);
			pfree(src2);
		}
	/* out of range: an error on both, never a crash */
	int64_t d1 = 4, d2 = 3;
	struct pair x = mk(IR_DTYPE_FLOAT, 1, &d1, 0, 1, 0);
	struct pair ix = mk(IR_DTYPE_INT64, 1, &d2, 4, 5, 1);
	struct pair y = pempty(IR_DTYPE_FLOAT, 1, &d2);
	CHECK(CPU->gather(x.c, 0, ix.c, y.c) == -1);
	CHECK(GPU->gather(x.g, 0, ix.g, y.g) == -1);
	CHECK(GPU->index_select(x.g, 0, ix.g, y.g) == -1);
	pfree(x);
	pfree(ix);
	pfree(y);
}

/* --- topk / sort --------------------------------------------------------- */

static void test_cuda_topk(void)
{
	if (!setup())
		return;
	NEED(topk);
	int64_t shapes[3][2] = { { 6, 50 }, { 3, 3000 }, { 40, 7 } };
	for (int s = 0; s < 3; s++)
		for (int axis = 0; axis < 2; axis++)
			for (int largest = 0; largest < 2; largest++)
				for (int k = 0; k < 2; k++) {
					enum ir_dtype dt = k ? IR_DTYPE_INT64 :
							   IR_DTYPE_FLOAT;
					/* distinct values: a scaled permutation */
					struct pair x = pempty(dt, 2, shapes[s]);
					int64_t n = gpu_numel(x.c);
					struct gpu_tensor *d = gpu_empty(CPU, IR_DTYPE_DOUBLE, 2, shapes[s]);
					double *v = d->storage->data;
					for (int64_t i = 0; i < n; i++)
						v[i] = (double)((i * 7919) % n) - n / 2;
					CHECK_INT(CPU->copy(d, x.c), 0);
					CHECK_INT(GPU->upload(x.g->storage->data,
							      x.c->storage->data,
							      (size_t)n * ir_dtype_size(dt)), 0);
					gpu_free(d);
					int64_t len = shapes[s][axis];
					int64_t kk = s == 1 ? len : (len + 1) / 2;
					int64_t od[2] = { shapes[s][0], shapes[s][1] };
					od[axis] = kk;
					struct pair val = pempty(dt, 2, od);
					struct pair ind = pempty(IR_DTYPE_INT64, 2, od);
					BOTH(CPU->topk(x.c, axis, kk, largest, 1, val.c, ind.c),
					     GPU->topk(x.g, axis, kk, largest, 1, val.g, ind.g));
					PCMP(val, 0, 0, "topk values");
					PCMP(ind, 0, 0, "topk indices");
					pfree(x);
					pfree(val);
					pfree(ind);
				}
	/* sort is stable: ties keep their order */
	int64_t sd[2] = { 4, 300 };
	struct pair x = mk(IR_DTYPE_FLOAT, 2, sd, 0, 5, 1);
	struct pair val = pempty(IR_DTYPE_FLOAT, 2, sd);
	struct pair ind = pempty(IR_DTYPE_INT64, 2, sd);
	for (int largest = 0; largest < 2; largest++) {
		BOTH(CPU->topk(x.c, 1, 300, largest, 1, val.c, ind.c),
		     GPU->topk(x.g, 1, 300, largest, 1, val.g, ind.g));
		PCMP(val, 0, 0, "sort values");
		PCMP(ind, 0, 0, "sort indices (stable)");
	}
	pfree(x);
	pfree(val);
	pfree(ind);
}

/* --- pad, resize --------------------------------------------------------- */

static void test_cuda_pad(void)
{
	if (!setup())
		return;
	NEED(pad);
	int64_t xd[3] = { 2, 5, 6 };
	int64_t pads[3][6] = { { 0, 0, 2, 3, 1, 4 }, { 1, 0, -1, 2, 3, -2 },
			       { 0, 0, 4, 4, 5, 5 } };
	for (int mode = 0; mode < 4; mode++)
		for (int c = 0; c < 3; c++)
			for (int k = 0; k < 2; k++) {
				if (mode == GPU_PAD_REFLECT && c == 2)
					continue; /* pads must be < dims */
				enum ir_dtype dt = k ? IR_DTYPE_INT64 : IR_DTYPE_FLOAT;
				struct pair x0 = mk(dt, 3, xd, -9, 9, k);
				struct pair x = ptrans(x0); /* [2, 6, 5] */
				int64_t yd[3];
				for (int i = 0; i < 3; i++)
					yd[i] = x.c->dims[i] + pads[c][2 * i] +
						pads[c][2 * i + 1];
				struct pair y = pempty(dt, 3, yd);
				double val = k ? 3 : 2.5;
				BOTH(CPU->pad(x.c, pads[c], mode, val, y.c),
				     GPU->pad(x.g, pads[c], mode, val, y.g));
				if (!PCMP(y, 0, 0, "pad"))
					fprintf(stderr, "  (mode %d case %d)\n", mode, c);
				pfree(x0);
				pfree(x);
				pfree(y);
			}
}

static void test_cuda_resize(void)
{
	if (!setup())
		return;
	NEED(resize);
	struct {
		int nsp, mode, align;
		int64_t in[3], out[3];
		double sc[3];
	} cases[] = {
		{ 2, GPU_INTERP_NEAREST, 0, { 5, 7 }, { 10, 14 }, { 0, 0 } },
		{ 2, GPU_INTERP_NEAREST, 0, { 5, 7 }, { 8, 3 }, { 0, 0 } },
		{ 2, GPU_INTERP_NEAREST, 0, { 5, 7 }, { 7, 10 }, { 1.5, 1.5 } },
		{ 2, GPU_INTERP_NEAREST_EXACT, 0, { 5, 7 }, { 8, 3 }, { 0, 0 } },
		{ 1, GPU_INTERP_LINEAR, 0, { 9 }, { 20 }, { 0 } },
		{ 1, GPU_INTERP_LINEAR, 1, { 9 }, { 20 }, { 0 } },
		{ 2, GPU_INTERP_LINEAR, 0, { 6, 5 }, { 9, 13 }, { 0, 0 } },
		{ 2, GPU_INTERP_LINEAR, 1, { 6, 5 }, { 9, 13 }, { 0, 0 } },
		{ 2, GPU_INTERP_LINEAR, 0, { 6, 5 }, { 4, 3 }, { 0, 0 } },
		{ 2, GPU_INTERP_LINEAR, 0, { 6, 5 }, { 15, 12 }, { 2.5, 2.5 } },
		{ 3, GPU_INTERP_LINEAR, 0, { 3, 4, 5 }, { 6, 7, 8 }, { 0, 0, 0 } },
		{ 3, GPU_INTERP_LINEAR, 1, { 3, 4, 5 }, { 6, 7, 8 }, { 0, 0, 0 } },
		{ 2, GPU_INTERP_CUBIC, 0, { 6, 5 }, { 11, 13 }, { 0, 0 } },
		{ 2, GPU_INTERP_CUBIC, 1, { 6, 5 }, { 11, 13 }, { 0, 0 } },
		{ 2, GPU_INTERP_CUBIC, 0, { 6, 5 }, { 3, 2 }, { 0, 0 } },
	};
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		int nsp = cases[c].nsp;
		int64_t xd[5] = { 2, 3 }, yd[5] = { 2, 3 };
		for (int i = 0; i < nsp; i++) {
			xd[2 + i] = cases[c].in[i];
			yd[2 + i] = cases[c].out[i];
		}
		struct pair x = mk(IR_DTYPE_FLOAT, nsp + 2, xd, -5, 5, 0);
		struct pair y = pempty(IR_DTYPE_FLOAT, nsp + 2, yd);
		BOTH(CPU->resize(x.c, nsp, cases[c].mode, cases[c].align,
				 cases[c].sc, y.c),
		     GPU->resize(x.g, nsp, cases[c].mode, cases[c].align,
				 cases[c].sc, y.g));
		if (!PCMP(y, 1e-5, 1e-5, "resize"))
			fprintf(stderr, "  (case %zu)\n", c);
		pfree(x);
		pfree(y);
	}
}

/* --- memory -------------------------------------------------------------- */

static void test_cuda_memory(void)
{
	if (!setup())
		return;
	/* round trips of odd sizes through the caching allocator */
	for (size_t n = 1; n < (1u << 22); n = n * 3 + 1) {
		unsigned char *h = malloc(n), *back = malloc(n);
		void *d = GPU->alloc(n);
		CHECK(d != NULL);
		for (size_t i = 0; i < n; i++)
			h[i] = (unsigned char)(i * 31 + n);
		CHECK_INT(GPU->upload(d, h, n), 0);
		CHECK_INT(GPU->download(back, d, n), 0);
		CHECK(!memcmp(h, back, n));
		GPU->release(d);
		free(h);
		free(back);
	}
	/* an impossible allocation fails with a message, and nothing breaks */
	void *p = GPU->alloc((size_t)1 << 50);
	CHECK(p == NULL);
	CHECK(strstr(gpu_last_error(), "memory") != NULL);
	void *q = GPU->alloc(64);
	CHECK(q != NULL);
	GPU->release(q);
}

const struct unit_test unit_tests[] = {
	UNIT(test_cuda_memory),
	UNIT(test_cuda_copy),
	UNIT(test_cuda_fill_arange),
	UNIT(test_cuda_unary),
	UNIT(test_cuda_binary),
	UNIT(test_cuda_where),
	UNIT(test_cuda_reduce),
	UNIT(test_cuda_cumulative),
	UNIT(test_cuda_matmul),
	UNIT(test_cuda_conv),
	UNIT(test_cuda_pool),
	UNIT(test_cuda_softmax),
	UNIT(test_cuda_norms),
	UNIT(test_cuda_index),
	UNIT(test_cuda_topk),
	UNIT(test_cuda_pad),
	UNIT(test_cuda_resize),
	{ 0 },
};

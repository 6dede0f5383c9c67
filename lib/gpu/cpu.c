/*
 * cpu.c - the CPU backend's kernel table (gpu.h) and its elementwise
 * kernels: memory, copy/cast, fill, arange, unary, binary and where, all on
 * the strided iterator of cpu_pool.c.  float32, float64 and int64 are
 * computed natively; the narrower ints through int64, float16 and bfloat16
 * through float32.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"
#include "gpu_int.h"

/* --- memory -------------------------------------------------------------- */

/*
 * Blocks of at least CACHE_MIN bytes are kept when released and handed out
 * again (best fit, at most 1.5 times the size asked for): a model's run
 * allocates and frees the same activation sizes op after op, and fresh
 * big blocks come from mmap, so every one would be page-faulted and zeroed
 * by the kernel again.  At most CACHE_BYTES stay cached (the oldest go
 * first).  Off under AddressSanitizer, which must see every free.
 */
#if defined(__SANITIZE_ADDRESS__)
#define CPU_CACHE 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CPU_CACHE 0
#endif
#endif
#ifndef CPU_CACHE
#define CPU_CACHE 1
#endif

#define CACHE_MIN ((size_t)64 << 10)
#define CACHE_BYTES ((size_t)512 << 20)
#define CACHE_SLOTS 64
#define HDR 64 /* the block's size lives in front of it; keeps alignment */

static struct {
	pthread_mutex_t mu;
	void *blk[CACHE_SLOTS]; /* header addresses, oldest first */
	size_t size[CACHE_SLOTS];
	int n;
	size_t bytes;
	int hooked;
} cache = { .mu = PTHREAD_MUTEX_INITIALIZER };

static void cache_drop_all(void)
{
	pthread_mutex_lock(&cache.mu);
	for (int i = 0; i < cache.n; i++)
		free(cache.blk[i]);
	cache.n = 0;
	cache.bytes = 0;
	pthread_mutex_unlock(&cache.mu);
}

void *cpu_mem_alloc(size_t bytes)
{
	void *p = NULL;
	int best = -1;

	bytes = (bytes + 63) & ~(size_t)63;
	if (!bytes)
		bytes = 64;
	if (bytes > SIZE_MAX - HDR - 4095)
		return NULL;
	if (CPU_CACHE && bytes >= CACHE_MIN) {
		bytes = (bytes + 4095) & ~(size_t)4095;
		pthread_mutex_lock(&cache.mu);
		for (int i = 0; i < cache.n; i++)
			if (cache.size[i] >= bytes &&
			    cache.size[i] - bytes <= bytes / 2 &&
			    (best < 0 || cache.size[i] < cache.size[best]))
				best = i;
		if (best >= 0) {
			p = cache.blk[best];
			cache.bytes -= cache.size[best];
			cache.n--;
			memmove(&cache.blk[best], &cache.blk[best + 1],
				(size_t)(cache.n - best) * sizeof(void *));
			memmove(&cache.size[best], &cache.size[best + 1],
				(size_t)(cache.n - best) * sizeof(size_t));
		}
		pthread_mutex_unlock(&cache.mu);
		if (p)
			return (char *)p + HDR;
	}
	if (posix_memalign(&p, 64, bytes + HDR))
		return NULL;
	*(size_t *)p = bytes;
	return (char *)p + HDR;
}

void cpu_mem_release(void *q)
{
	void *p, *drop[CACHE_SLOTS];
	size_t bytes;
	int ndrop = 0;

	if (!q)
		return;
	p = (char *)q - HDR;
	bytes = *(size_t *)p;
	if (!CPU_CACHE || bytes < CACHE_MIN || bytes > CACHE_BYTES / 2) {
		free(p);
		return;
	}
	pthread_mutex_lock(&cache.mu);
	if (!cache.hooked) {
		cache.hooked = 1;
		atexit(cache_drop_all);
	}
	while (cache.n > 0 && (cache.n == CACHE_SLOTS ||
			       cache.bytes + bytes > CACHE_BYTES)) {
		drop[ndrop++] = cache.blk[0];
		cache.bytes -= cache.size[0];
		cache.n--;
		memmove(&cache.blk[0], &cache.blk[1],
			(size_t)cache.n * sizeof(void *));
		memmove(&cache.size[0], &cache.size[1],
			(size_t)cache.n * sizeof(size_t));
	}
	cache.blk[cache.n] = p;
	cache.size[cache.n] = bytes;
	cache.n++;
	cache.bytes += bytes;
	pthread_mutex_unlock(&cache.mu);
	for (int i = 0; i < ndrop; i++)
		free(drop[i]);
}

static int cpu_upload(void *dst, const void *src, size_t bytes)
{
	if (bytes)
		memcpy(dst, src, bytes);
	return 0;
}

int cpu_check_dtype(const char *what, enum ir_dtype dt, int floats_only)
{
	if (dt == IR_DTYPE_FLOAT || dt == IR_DTYPE_DOUBLE)
		return 0;
	if (!floats_only && (cpu_is_int(dt) || cpu_is_float(dt)))
		return 0;
	gpu_set_error("cpu %s: dtype %s not supported", what,
		      ir_dtype_torch_name(dt));
	return -1;
}

/* --- copy ---------------------------------------------------------------- */

struct copy_ctx {
	enum ir_dtype xt, yt;
	size_t esz;
};

static void copy_same(void *arg, int64_t n, char **p, const int64_t *s)
{
	const struct copy_ctx *c = arg;
	size_t esz = c->esz;

	if (s[0] == (int64_t)esz && s[1] == (int64_t)esz) {
		memcpy(p[0], p[1], (size_t)n * esz);
		return;
	}
	switch (esz) {
	case 1:
		for (int64_t i = 0; i < n; i++)
			p[0][i * s[0]] = p[1][i * s[1]];
		break;
	case 2:
		for (int64_t i = 0; i < n; i++)
			*(uint16_t *)(p[0] + i * s[0]) =
				*(const uint16_t *)(p[1] + i * s[1]);
		break;
	case 4:
		for (int64_t i = 0; i < n; i++)
			*(uint32_t *)(p[0] + i * s[0]) =
				*(const uint32_t *)(p[1] + i * s[1]);
		break;
	case 8:
		for (int64_t i = 0; i < n; i++)
			*(uint64_t *)(p[0] + i * s[0]) =
				*(const uint64_t *)(p[1] + i * s[1]);
		break;
	default:
		for (int64_t i = 0; i < n; i++)
			memcpy(p[0] + i * s[0], p[1] + i * s[1], esz);
	}
}

#define CONV_LOOP(TX, TY, EXPR) \
	for (int64_t i = 0; i < n; i++) { \
		TX x = *(const TX *)(p[1] + i * s[1]); \
		*(TY *)(p[0] + i * s[0]) = (EXPR); \
	}

static void copy_conv(void *arg, int64_t n, char **p, const int64_t *s)
{
	const struct copy_ctx *c = arg;
	enum ir_dtype xt = c->xt, yt = c->yt;

	/* the frequent pairs without per-element dispatch */
	if (xt == IR_DTYPE_FLOAT && yt == IR_DTYPE_DOUBLE) {
		CONV_LOOP(float, double, x);
	} else if (xt == IR_DTYPE_DOUBLE && yt == IR_DTYPE_FLOAT) {
		CONV_LOOP(double, float, (float)x);
	} else if (xt == IR_DTYPE_FLOAT && yt == IR_DTYPE_FLOAT16) {
		CONV_LOOP(float, uint16_t, cpu_float_to_half(x));
	} else if (xt == IR_DTYPE_FLOAT16 && yt == IR_DTYPE_FLOAT) {
		CONV_LOOP(uint16_t, float, cpu_half_to_float(x));
	} else if (xt == IR_DTYPE_FLOAT && yt == IR_DTYPE_BFLOAT16) {
		CONV_LOOP(float, uint16_t, cpu_float_to_bf16(x));
	} else if (xt == IR_DTYPE_BFLOAT16 && yt == IR_DTYPE_FLOAT) {
		CONV_LOOP(uint16_t, float, cpu_bf16_to_float(x));
	} else if (xt == IR_DTYPE_INT64 && yt == IR_DTYPE_FLOAT) {
		CONV_LOOP(int64_t, float, (float)x);
	} else if (xt == IR_DTYPE_BOOL && yt == IR_DTYPE_FLOAT) {
		CONV_LOOP(uint8_t, float, x != 0);
	} else if (cpu_is_float(xt) || cpu_is_float(yt)) {
		if (yt == IR_DTYPE_BOOL) {
			for (int64_t i = 0; i < n; i++)
				*(uint8_t *)(p[0] + i * s[0]) =
					cpu_ld_d(p[1] + i * s[1], xt) != 0;
		} else {
			for (int64_t i = 0; i < n; i++)
				cpu_st_d(p[0] + i * s[0], yt,
					 cpu_ld_d(p[1] + i * s[1], xt));
		}
	} else {
		for (int64_t i = 0; i < n; i++)
			cpu_st_i(p[0] + i * s[0], yt,
				 cpu_ld_i(p[1] + i * s[1], xt));
	}
}

static int known_dtype(enum ir_dtype dt)
{
	return cpu_is_float(dt) || cpu_is_int(dt);
}

int cpu_copy(const struct gpu_tensor *x, struct gpu_tensor *y)
{
	struct cpu_iter it;
	const struct gpu_tensor *ts[2] = { y, x };
	struct copy_ctx c = { x->dtype, y->dtype, ir_dtype_size(x->dtype) };

	if (x->rank != y->rank ||
	    memcmp(x->dims, y->dims, (size_t)x->rank * sizeof(int64_t))) {
		gpu_set_error("cpu copy: shapes differ");
		return -1;
	}
	if (x->dtype != y->dtype &&
	    (!known_dtype(x->dtype) || !known_dtype(y->dtype))) {
		gpu_set_error("cpu copy: %s to %s not supported",
			      ir_dtype_torch_name(x->dtype),
			      ir_dtype_torch_name(y->dtype));
		return -1;
	}
	if (!c.esz) {
		gpu_set_error("cpu copy: dtype %s not supported",
			      ir_dtype_torch_name(x->dtype));
		return -1;
	}
	cpu_iter_init(&it, y->rank, y->dims, 2, ts);
	cpu_iter_run(&it, x->dtype == y->dtype ? copy_same : copy_conv, &c);
	return 0;
}

struct gpu_tensor *cpu_compact_as(const struct gpu_tensor *t,
				  enum ir_dtype dt)
{
	int64_t dims[GPU_MAX_DIMS], strides[GPU_MAX_DIMS];
	struct gpu_tensor src = *t, *c;

	for (int d = 0; d < t->rank; d++) {
		dims[d] = t->strides[d] == 0 ? 1 : t->dims[d];
		src.dims[d] = dims[d];
	}
	c = gpu_empty(t->storage->be, dt, t->rank, dims);
	if (!c)
		return NULL;
	if (cpu_copy(&src, c)) {
		gpu_free(c);
		return NULL;
	}
	gpu_contiguous_strides(t->rank, dims, strides);
	for (int d = 0; d < t->rank; d++) {
		c->dims[d] = t->dims[d];
		c->strides[d] = t->strides[d] == 0 ? 0 : strides[d];
	}
	return c;
}

/* --- fill, arange ---------------------------------------------------------- */

static int cpu_fill(struct gpu_tensor *y, double v)
{
	size_t esz = ir_dtype_size(y->dtype);
	int64_t n = gpu_numel(y);
	char *p = cpu_base(y);
	_Alignas(8) char one[8];

	if (!known_dtype(y->dtype)) {
		gpu_set_error("cpu fill: dtype %s not supported",
			      ir_dtype_torch_name(y->dtype));
		return -1;
	}
	if (!gpu_is_contiguous(y)) {
		gpu_set_error("cpu fill: output not contiguous");
		return -1;
	}
	cpu_st_d(one, y->dtype, v);
	if (esz == 1) {
		memset(p, one[0], (size_t)n);
		return 0;
	}
	if (v == 0 && !signbit(v)) {
		memset(p, 0, (size_t)n * esz);
		return 0;
	}
	for (int64_t i = 0; i < n; i++)
		memcpy(p + (size_t)i * esz, one, esz);
	return 0;
}

static int cpu_arange(struct gpu_tensor *y, double start, double step)
{
	size_t esz = ir_dtype_size(y->dtype);
	int64_t n = gpu_numel(y);
	char *p = cpu_base(y);

	if (!known_dtype(y->dtype)) {
		gpu_set_error("cpu arange: dtype %s not supported",
			      ir_dtype_torch_name(y->dtype));
		return -1;
	}
	for (int64_t i = 0; i < n; i++)
		cpu_st_d(p + (size_t)i * esz, y->dtype,
			 start + (double)i * step);
	return 0;
}

/* --- unary ------------------------------------------------------------- */

struct un_ctx {
	enum gpu_unary op;
	enum ir_dtype xt;
	double a, b;
};

/* One loop per op; contiguous operands get a plain indexed loop. */
#define UN_LOOP(T, EXPR) do { \
	if (s[0] == (int64_t)sizeof(T) && s[1] == (int64_t)sizeof(T)) { \
		T *restrict yp = (T *)p[0]; \
		const T *restrict xp = (const T *)p[1]; \
		for (int64_t i = 0; i < n; i++) { \
			T x = xp[i]; yp[i] = (EXPR); \
		} \
	} else { \
		for (int64_t i = 0; i < n; i++) { \
			T x = *(const T *)(p[1] + i * s[1]); \
			*(T *)(p[0] + i * s[0]) = (EXPR); \
		} \
	} } while (0)

static float f_gelu_tanh(float x)
{
	const float k = 0.7978845608028654f; /* sqrt(2/pi) */

	return 0.5f * x * (1.0f + tanhf(k * (x + 0.044715f * x * x * x)));
}

static double d_gelu_tanh(double x)
{
	const double k = 0.7978845608028654;

	return 0.5 * x * (1.0 + tanh(k * (x + 0.044715 * x * x * x)));
}

static float f_softplus(float x, float beta, float thr)
{
	return x * beta > thr ? x : log1pf(expf(x * beta)) / beta;
}

static double d_softplus(double x, double beta, double thr)
{
	return x * beta > thr ? x : log1p(exp(x * beta)) / beta;
}

static float f_logit(float x, float eps)
{
	if (eps >= 0)
		x = x < eps ? eps : (x > 1 - eps ? 1 - eps : x);
	return logf(x / (1 - x));
}

static double d_logit(double x, double eps)
{
	if (eps >= 0)
		x = x < eps ? eps : (x > 1 - eps ? 1 - eps : x);
	return log(x / (1 - x));
}

static float f_sign(float x)
{
	return (float)((0 < x) - (x < 0));
}

static double d_sign(double x)
{
	return (double)((0 < x) - (x < 0));
}

/* The float ops over T with math functions F##suffix: expanded for float
 * (suffix f) and double. */
#define UN_FLOAT_CASES(T, M, SIGN, GELU_T, SOFTPLUS, LOGIT) \
	case GPU_NEG: UN_LOOP(T, -x); break; \
	case GPU_ABS: UN_LOOP(T, M(fabs)(x)); break; \
	case GPU_SIGN: UN_LOOP(T, isnan(x) ? x : SIGN(x)); break; \
	case GPU_RECIPROCAL: UN_LOOP(T, 1 / x); break; \
	case GPU_SQRT: UN_LOOP(T, M(sqrt)(x)); break; \
	case GPU_RSQRT: UN_LOOP(T, 1 / M(sqrt)(x)); break; \
	case GPU_EXP: UN_LOOP(T, M(exp)(x)); break; \
	case GPU_EXPM1: UN_LOOP(T, M(expm1)(x)); break; \
	case GPU_LOG: UN_LOOP(T, M(log)(x)); break; \
	case GPU_LOG1P: UN_LOOP(T, M(log1p)(x)); break; \
	case GPU_LOG2: UN_LOOP(T, M(log2)(x)); break; \
	case GPU_LOG10: UN_LOOP(T, M(log10)(x)); break; \
	case GPU_SIN: UN_LOOP(T, M(sin)(x)); break; \
	case GPU_COS: UN_LOOP(T, M(cos)(x)); break; \
	case GPU_TAN: UN_LOOP(T, M(tan)(x)); break; \
	case GPU_ASIN: UN_LOOP(T, M(asin)(x)); break; \
	case GPU_ACOS: UN_LOOP(T, M(acos)(x)); break; \
	case GPU_ATAN: UN_LOOP(T, M(atan)(x)); break; \
	case GPU_SINH: UN_LOOP(T, M(sinh)(x)); break; \
	case GPU_COSH: UN_LOOP(T, M(cosh)(x)); break; \
	case GPU_TANH: UN_LOOP(T, M(tanh)(x)); break; \
	case GPU_ASINH: UN_LOOP(T, M(asinh)(x)); break; \
	case GPU_ACOSH: UN_LOOP(T, M(acosh)(x)); break; \
	case GPU_ATANH: UN_LOOP(T, M(atanh)(x)); break; \
	case GPU_ERF: UN_LOOP(T, M(erf)(x)); break; \
	case GPU_FLOOR: UN_LOOP(T, M(floor)(x)); break; \
	case GPU_CEIL: UN_LOOP(T, M(ceil)(x)); break; \
	case GPU_ROUND: UN_LOOP(T, M(nearbyint)(x)); break; \
	case GPU_TRUNC: UN_LOOP(T, M(trunc)(x)); break; \
	case GPU_FRAC: UN_LOOP(T, x - M(trunc)(x)); break; \
	case GPU_RELU: UN_LOOP(T, x < 0 ? 0 : x); break; /* NaN stays */ \
	case GPU_SIGMOID: UN_LOOP(T, 1 / (1 + M(exp)(-x))); break; \
	case GPU_SILU: UN_LOOP(T, x / (1 + M(exp)(-x))); break; \
	case GPU_MISH: UN_LOOP(T, x * M(tanh)(M(log1p)(M(exp)(x)))); break; \
	case GPU_SOFTSIGN: UN_LOOP(T, x / (1 + M(fabs)(x))); break; \
	case GPU_GELU: \
		if (a != 0) \
			UN_LOOP(T, GELU_T(x)); \
		else \
			UN_LOOP(T, (T)0.5 * x * \
				(1 + M(erf)(x * (T)0.70710678118654752440))); \
		break; \
	case GPU_LEAKY_RELU: UN_LOOP(T, x > 0 ? x : x * a); break; \
	case GPU_ELU: \
		UN_LOOP(T, x > 0 ? x * b : a * M(expm1)(x) * b); break; \
	case GPU_CELU: \
		UN_LOOP(T, x > 0 ? x : a * M(expm1)(x / a)); break; \
	case GPU_HARDTANH: \
		UN_LOOP(T, isnan(x) ? x : (x < a ? a : (x > b ? b : x))); \
		break; \
	case GPU_HARDSIGMOID: \
		UN_LOOP(T, x <= -3 ? 0 : (x >= 3 ? 1 : x / 6 + (T)0.5)); \
		break; \
	case GPU_HARDSWISH: \
		UN_LOOP(T, x <= -3 ? 0 : (x >= 3 ? x : x * (x + 3) / 6)); \
		break; \
	case GPU_HARDSHRINK: \
		UN_LOOP(T, (x >= -a && x <= a) ? 0 : x); break; \
	case GPU_SOFTSHRINK: \
		UN_LOOP(T, x > a ? x - a : (x < -a ? x + a : 0)); break; \
	case GPU_SOFTPLUS: UN_LOOP(T, SOFTPLUS(x, a, b)); break; \
	case GPU_THRESHOLD: UN_LOOP(T, x > a ? x : b); break; \
	case GPU_POW_SCALAR: \
		if (a == 2) \
			UN_LOOP(T, x * x); \
		else if (a == 0.5) \
			UN_LOOP(T, M(sqrt)(x)); \
		else \
			UN_LOOP(T, M(pow)(x, a)); \
		break; \
	case GPU_RPOW_SCALAR: UN_LOOP(T, M(pow)(a, x)); break; \
	case GPU_LOGIT: UN_LOOP(T, LOGIT(x, a)); break;

#define MF(fn) fn##f
#define MD(fn) fn

static void un_f32(void *arg, int64_t n, char **p, const int64_t *s)
{
	const struct un_ctx *c = arg;
	float a = (float)c->a, b = (float)c->b;

	switch (c->op) {
	UN_FLOAT_CASES(float, MF, f_sign, f_gelu_tanh, f_softplus, f_logit)
	default:
		break;
	}
}

static void un_f64(void *arg, int64_t n, char **p, const int64_t *s)
{
	const struct un_ctx *c = arg;
	double a = c->a, b = c->b;

	switch (c->op) {
	UN_FLOAT_CASES(double, MD, d_sign, d_gelu_tanh, d_softplus, d_logit)
	default:
		break;
	}
}

static int64_t i_clamp(int64_t x, double lo, double hi)
{
	if ((double)x < lo)
		return cpu_f2i(ceil(lo));
	if ((double)x > hi)
		return cpu_f2i(floor(hi));
	return x;
}

static int64_t i_pow(int64_t x, int64_t e)
{
	uint64_t r = 1, b = (uint64_t)x;

	while (e > 0) {
		if (e & 1)
			r *= b;
		b *= b;
		e >>= 1;
	}
	return (int64_t)r;
}

static void un_i64(void *arg, int64_t n, char **p, const int64_t *s)
{
	const struct un_ctx *c = arg;
	double a = c->a, b = c->b;

	switch (c->op) {
	case GPU_NEG: UN_LOOP(int64_t, (int64_t)(0 - (uint64_t)x)); break;
	case GPU_ABS:
		UN_LOOP(int64_t, x < 0 ? (int64_t)(0 - (uint64_t)x) : x);
		break;
	case GPU_SIGN: UN_LOOP(int64_t, (0 < x) - (x < 0)); break;
	case GPU_FLOOR: case GPU_CEIL: case GPU_ROUND: case GPU_TRUNC:
		UN_LOOP(int64_t, x); break;
	case GPU_BITWISE_NOT: UN_LOOP(int64_t, ~x); break;
	case GPU_RELU: UN_LOOP(int64_t, x > 0 ? x : 0); break;
	case GPU_HARDTANH: UN_LOOP(int64_t, i_clamp(x, a, b)); break;
	case GPU_THRESHOLD:
		UN_LOOP(int64_t, (double)x > a ? x : cpu_f2i(b)); break;
	case GPU_POW_SCALAR: UN_LOOP(int64_t, i_pow(x, (int64_t)a)); break;
	default:
		break;
	}
}

/* NOT, ISNAN, ISINF: any dtype in, bool out. */
static void un_bool(void *arg, int64_t n, char **p, const int64_t *s)
{
	const struct un_ctx *c = arg;

	for (int64_t i = 0; i < n; i++) {
		double v = cpu_ld_d(p[1] + i * s[1], c->xt);
		uint8_t r;

		if (c->op == GPU_NOT)
			r = v == 0;
		else if (c->op == GPU_ISNAN)
			r = isnan(v) != 0;
		else
			r = isinf(v) != 0;
		*(uint8_t *)(p[0] + i * s[0]) = r;
	}
}

static int int_unary_ok(enum gpu_unary op)
{
	switch (op) {
	case GPU_NEG: case GPU_ABS: case GPU_SIGN: case GPU_FLOOR:
	case GPU_CEIL: case GPU_ROUND: case GPU_TRUNC: case GPU_BITWISE_NOT:
	case GPU_RELU: case GPU_HARDTANH: case GPU_THRESHOLD:
	case GPU_POW_SCALAR:
		return 1;
	default:
		return 0;
	}
}

static int same_shape(const struct gpu_tensor *a, const struct gpu_tensor *b)
{
	return a->rank == b->rank &&
	       !memcmp(a->dims, b->dims, (size_t)a->rank * sizeof(int64_t));
}

/* Runs an elementwise kernel over y (operand 0) and in[]: inputs not of
 * dtype ict go through compact copies (ict UNDEFINED: taken as they are),
 * y through a temporary when its dtype is not yct (UNDEFINED: y as is). */
static int run_elementwise(struct gpu_tensor *y, enum ir_dtype yct,
			   enum ir_dtype ict, int nin,
			   const struct gpu_tensor *const *in,
			   cpu_inner_fn fn, void *ctx)
{
	const struct gpu_tensor *ts[CPU_MAX_OPS];
	struct gpu_tensor *tmp[CPU_MAX_OPS] = { 0 }, *yt = NULL;
	struct cpu_iter it;
	int rc = -1;

	for (int k = 0; k < nin; k++) {
		ts[k + 1] = in[k];
		if (!same_shape(in[k], y)) {
			gpu_set_error("cpu elementwise: operand shapes differ");
			goto out;
		}
		if (ict != IR_DTYPE_UNDEFINED && in[k]->dtype != ict) {
			tmp[k] = cpu_compact_as(in[k], ict);
			if (!tmp[k])
				goto out;
			ts[k + 1] = tmp[k];
		}
	}
	ts[0] = y;
	if (yct != IR_DTYPE_UNDEFINED && y->dtype != yct) {
		yt = gpu_empty(y->storage->be, yct, y->rank, y->dims);
		if (!yt)
			goto out;
		ts[0] = yt;
	}
	cpu_iter_init(&it, y->rank, y->dims, nin + 1, ts);
	cpu_iter_run(&it, fn, ctx);
	rc = 0;
	if (yt)
		rc = cpu_copy(yt, y);
out:
	for (int k = 0; k < nin; k++)
		gpu_free(tmp[k]);
	gpu_free(yt);
	return rc;
}

static int cpu_unary(enum gpu_unary op, const struct gpu_tensor *x,
		     struct gpu_tensor *y, double a, double b)
{
	struct un_ctx c = { op, x->dtype, a, b };
	enum ir_dtype dt = y->dtype, ct;
	const struct gpu_tensor *in[1] = { x };
	cpu_inner_fn fn;

	if (!known_dtype(x->dtype) || !known_dtype(dt)) {
		gpu_set_error("cpu unary: dtype %s not supported",
			      ir_dtype_torch_name(x->dtype));
		return -1;
	}
	if ((unsigned)op >= GPU_UNARY_COUNT) {
		gpu_set_error("cpu unary: op %d unknown", (int)op);
		return -1;
	}
	if (op == GPU_NOT || op == GPU_ISNAN || op == GPU_ISINF ||
	    (op == GPU_BITWISE_NOT && dt == IR_DTYPE_BOOL)) {
		if (op == GPU_BITWISE_NOT)
			c.op = GPU_NOT;
		return run_elementwise(y, IR_DTYPE_BOOL, IR_DTYPE_UNDEFINED, 1,
				       in, un_bool, &c);
	}
	if (dt == IR_DTYPE_DOUBLE) {
		ct = IR_DTYPE_DOUBLE;
		fn = un_f64;
	} else if (cpu_is_float(dt)) {
		ct = IR_DTYPE_FLOAT;
		fn = un_f32;
		if (op == GPU_BITWISE_NOT) {
			gpu_set_error("cpu unary: bitwise_not of %s",
				      ir_dtype_torch_name(dt));
			return -1;
		}
	} else {
		if (!int_unary_ok(op)) {
			gpu_set_error("cpu unary: op %d not defined for %s",
				      (int)op, ir_dtype_torch_name(dt));
			return -1;
		}
		ct = IR_DTYPE_INT64;
		fn = un_i64;
	}
	return run_elementwise(y, ct, ct, 1, in, fn, &c);
}

/* --- binary -------------------------------------------------------------- */

struct bin_ctx {
	enum gpu_binary op;
	int error; /* set by a loop: integer division by zero */
};

#define BIN_LOOP(T, TY, EXPR) do { \
	if (s[0] == (int64_t)sizeof(TY) && s[1] == (int64_t)sizeof(T) && \
	    s[2] == (int64_t)sizeof(T)) { \
		TY *restrict yp = (TY *)p[0]; \
		const T *restrict ap = (const T *)p[1]; \
		const T *restrict bp = (const T *)p[2]; \
		for (int64_t i = 0; i < n; i++) { \
			T x = ap[i], z = bp[i]; yp[i] = (EXPR); \
		} \
	} else if (s[0] == (int64_t)sizeof(TY) && s[1] == (int64_t)sizeof(T) && \
		   s[2] == 0) { \
		TY *restrict yp = (TY *)p[0]; \
		const T *restrict ap = (const T *)p[1]; \
		const T z = *(const T *)p[2]; \
		for (int64_t i = 0; i < n; i++) { \
			T x = ap[i]; yp[i] = (EXPR); \
		} \
	} else { \
		for (int64_t i = 0; i < n; i++) { \
			T x = *(const T *)(p[1] + i * s[1]); \
			T z = *(const T *)(p[2] + i * s[2]); \
			*(TY *)(p[0] + i * s[0]) = (EXPR); \
		} \
	} } while (0)

/* torch's div_floor_floating */
#define FLOORDIV_BODY(T, M) \
	T mod, div, fl; \
	if (b == 0) \
		return a / b; \
	mod = M(fmod)(a, b); \
	div = (a - mod) / b; \
	if (mod != 0 && (b < 0) != (mod < 0)) \
		div -= 1; \
	if (div != 0) { \
		fl = M(floor)(div); \
		if (div - fl > (T)0.5) \
			fl += 1; \
	} else { \
		fl = M(copysign)(0, a / b); \
	} \
	return fl;

static float f_floordiv(float a, float b) { FLOORDIV_BODY(float, MF) }
static double d_floordiv(double a, double b) { FLOORDIV_BODY(double, MD) }

static float f_rem(float a, float b)
{
	float m = fmodf(a, b);

	if (m != 0 && (b < 0) != (m < 0))
		m += b;
	return m;
}

static double d_rem(double a, double b)
{
	double m = fmod(a, b);

	if (m != 0 && (b < 0) != (m < 0))
		m += b;
	return m;
}

#define FMAXT(x, z) (isnan(x) ? (x) : (isnan(z) ? (z) : ((x) > (z) ? (x) : (z))))
#define FMINT(x, z) (isnan(x) ? (x) : (isnan(z) ? (z) : ((x) < (z) ? (x) : (z))))

#define BIN_FLOAT_CASES(T, M, FLOORDIV, REM) \
	case GPU_ADD: BIN_LOOP(T, T, x + z); break; \
	case GPU_SUB: BIN_LOOP(T, T, x - z); break; \
	case GPU_MUL: BIN_LOOP(T, T, x * z); break; \
	case GPU_DIV: BIN_LOOP(T, T, x / z); break; \
	case GPU_FLOOR_DIV: BIN_LOOP(T, T, FLOORDIV(x, z)); break; \
	case GPU_TRUNC_DIV: BIN_LOOP(T, T, M(trunc)(x / z)); break; \
	case GPU_REMAINDER: BIN_LOOP(T, T, REM(x, z)); break; \
	case GPU_FMOD: BIN_LOOP(T, T, M(fmod)(x, z)); break; \
	case GPU_POW: BIN_LOOP(T, T, M(pow)(x, z)); break; \
	case GPU_MAX: BIN_LOOP(T, T, FMAXT(x, z)); break; \
	case GPU_MIN: BIN_LOOP(T, T, FMINT(x, z)); break; \
	case GPU_ATAN2: BIN_LOOP(T, T, M(atan2)(x, z)); break; \
	case GPU_EQ: BIN_LOOP(T, uint8_t, x == z); break; \
	case GPU_NE: BIN_LOOP(T, uint8_t, x != z); break; \
	case GPU_LT: BIN_LOOP(T, uint8_t, x < z); break; \
	case GPU_LE: BIN_LOOP(T, uint8_t, x <= z); break; \
	case GPU_GT: BIN_LOOP(T, uint8_t, x > z); break; \
	case GPU_GE: BIN_LOOP(T, uint8_t, x >= z); break; \
	case GPU_LOGICAL_AND: BIN_LOOP(T, uint8_t, x != 0 && z != 0); break; \
	case GPU_LOGICAL_OR: BIN_LOOP(T, uint8_t, x != 0 || z != 0); break; \
	case GPU_LOGICAL_XOR: \
		BIN_LOOP(T, uint8_t, (x != 0) != (z != 0)); break;

static void bin_f32(void *arg, int64_t n, char **p, const int64_t *s)
{
	const struct bin_ctx *c = arg;

	switch (c->op) {
	BIN_FLOAT_CASES(float, MF, f_floordiv, f_rem)
	default:
		break;
	}
}

static void bin_f64(void *arg, int64_t n, char **p, const int64_t *s)
{
	const struct bin_ctx *c = arg;

	switch (c->op) {
	BIN_FLOAT_CASES(double, MD, d_floordiv, d_rem)
	default:
		break;
	}
}

static int64_t i_floordiv(int64_t a, int64_t b)
{
	int64_t q;

	if (b == -1)
		return (int64_t)(0 - (uint64_t)a);
	q = a / b;
	if ((a % b != 0) && ((a < 0) != (b < 0)))
		q--;
	return q;
}

static int64_t i_truncdiv(int64_t a, int64_t b)
{
	return b == -1 ? (int64_t)(0 - (uint64_t)a) : a / b;
}

static int64_t i_rem(int64_t a, int64_t b)
{
	int64_t m;

	if (b == -1)
		return 0;
	m = a % b;
	if (m != 0 && ((m < 0) != (b < 0)))
		m += b;
	return m;
}

static int64_t i_fmod(int64_t a, int64_t b)
{
	return b == -1 ? 0 : a % b;
}

static void bin_i64(void *arg, int64_t n, char **p, const int64_t *s)
{
	struct bin_ctx *c = arg;
	int div = c->op == GPU_FLOOR_DIV || c->op == GPU_TRUNC_DIV ||
		  c->op == GPU_REMAINDER || c->op == GPU_FMOD ||
		  c->op == GPU_DIV;

	if (div || c->op == GPU_POW) {
		/* check the divisors (exponents) first: no UB, one error */
		for (int64_t i = 0; i < n; i++) {
			int64_t z = *(const int64_t *)(p[2] + i * s[2]);

			if (div && z == 0) {
				c->error = 1;
				return;
			}
			if (c->op == GPU_POW && z < 0) {
				int64_t x = *(const int64_t *)(p[1] + i * s[1]);

				if (x != 1 && x != -1) {
					c->error = 2;
					return;
				}
			}
		}
	}
	switch (c->op) {
	case GPU_ADD:
		BIN_LOOP(int64_t, int64_t, (int64_t)((uint64_t)x + (uint64_t)z));
		break;
	case GPU_SUB:
		BIN_LOOP(int64_t, int64_t, (int64_t)((uint64_t)x - (uint64_t)z));
		break;
	case GPU_MUL:
		BIN_LOOP(int64_t, int64_t, (int64_t)((uint64_t)x * (uint64_t)z));
		break;
	case GPU_DIV: case GPU_TRUNC_DIV:
		BIN_LOOP(int64_t, int64_t, i_truncdiv(x, z)); break;
	case GPU_FLOOR_DIV: BIN_LOOP(int64_t, int64_t, i_floordiv(x, z)); break;
	case GPU_REMAINDER: BIN_LOOP(int64_t, int64_t, i_rem(x, z)); break;
	case GPU_FMOD: BIN_LOOP(int64_t, int64_t, i_fmod(x, z)); break;
	case GPU_POW:
		BIN_LOOP(int64_t, int64_t,
			 z >= 0 ? i_pow(x, z) : (x == 1 || (z & 1) == 0 ? 1 : -1));
		break;
	case GPU_MAX: BIN_LOOP(int64_t, int64_t, x > z ? x : z); break;
	case GPU_MIN: BIN_LOOP(int64_t, int64_t, x < z ? x : z); break;
	case GPU_EQ: BIN_LOOP(int64_t, uint8_t, x == z); break;
	case GPU_NE: BIN_LOOP(int64_t, uint8_t, x != z); break;
	case GPU_LT: BIN_LOOP(int64_t, uint8_t, x < z); break;
	case GPU_LE: BIN_LOOP(int64_t, uint8_t, x <= z); break;
	case GPU_GT: BIN_LOOP(int64_t, uint8_t, x > z); break;
	case GPU_GE: BIN_LOOP(int64_t, uint8_t, x >= z); break;
	case GPU_LOGICAL_AND: BIN_LOOP(int64_t, uint8_t, x && z); break;
	case GPU_LOGICAL_OR: BIN_LOOP(int64_t, uint8_t, x || z); break;
	case GPU_LOGICAL_XOR: BIN_LOOP(int64_t, uint8_t, !x != !z); break;
	case GPU_BITWISE_AND: BIN_LOOP(int64_t, int64_t, x & z); break;
	case GPU_BITWISE_OR: BIN_LOOP(int64_t, int64_t, x | z); break;
	case GPU_BITWISE_XOR: BIN_LOOP(int64_t, int64_t, x ^ z); break;
	default:
		break;
	}
}

static int bool_out(enum gpu_binary op)
{
	return (op >= GPU_EQ && op <= GPU_GE) ||
	       (op >= GPU_LOGICAL_AND && op <= GPU_LOGICAL_XOR);
}

static int cpu_binary(enum gpu_binary op, const struct gpu_tensor *a,
		      const struct gpu_tensor *b, struct gpu_tensor *y)
{
	struct bin_ctx c = { op, 0 };
	const struct gpu_tensor *in[2] = { a, b };
	enum ir_dtype dt, ct;
	cpu_inner_fn fn;
	int rc;

	if ((unsigned)op >= GPU_BINARY_COUNT) {
		gpu_set_error("cpu binary: op %d unknown", (int)op);
		return -1;
	}
	if (!known_dtype(a->dtype) || !known_dtype(b->dtype) ||
	    !known_dtype(y->dtype)) {
		gpu_set_error("cpu binary: dtype %s not supported",
			      ir_dtype_torch_name(known_dtype(a->dtype) ?
						  b->dtype : a->dtype));
		return -1;
	}
	/* the compute type: a's (b's when they differ and b is wider) */
	dt = bool_out(op) ? a->dtype : y->dtype;
	if (a->dtype != b->dtype && bool_out(op))
		dt = cpu_is_float(a->dtype) || cpu_is_float(b->dtype) ?
		     IR_DTYPE_DOUBLE : IR_DTYPE_INT64;
	if (dt == IR_DTYPE_DOUBLE) {
		ct = IR_DTYPE_DOUBLE;
		fn = bin_f64;
	} else if (cpu_is_float(dt)) {
		ct = IR_DTYPE_FLOAT;
		fn = bin_f32;
	} else {
		ct = IR_DTYPE_INT64;
		fn = bin_i64;
	}
	if (ct != IR_DTYPE_INT64 && op >= GPU_BITWISE_AND) {
		gpu_set_error("cpu binary: bitwise op on %s",
			      ir_dtype_torch_name(dt));
		return -1;
	}
	rc = run_elementwise(y, bool_out(op) ? IR_DTYPE_BOOL : ct, ct, 2, in,
			     fn, &c);
	if (!rc && c.error == 1) {
		gpu_set_error("integer division by zero");
		return -1;
	}
	if (!rc && c.error == 2) {
		gpu_set_error("integers to negative integer powers are not "
			      "allowed");
		return -1;
	}
	return rc;
}

/* --- where --------------------------------------------------------------- */

static void where_loop(void *arg, int64_t n, char **p, const int64_t *s)
{
	size_t esz = *(const size_t *)arg;

	for (int64_t i = 0; i < n; i++) {
		const char *src = *(const uint8_t *)(p[1] + i * s[1]) ?
				  p[2] + i * s[2] : p[3] + i * s[3];

		switch (esz) {
		case 1: p[0][i * s[0]] = *src; break;
		case 2: *(uint16_t *)(p[0] + i * s[0]) = *(const uint16_t *)src; break;
		case 4: *(uint32_t *)(p[0] + i * s[0]) = *(const uint32_t *)src; break;
		default: *(uint64_t *)(p[0] + i * s[0]) = *(const uint64_t *)src; break;
		}
	}
}

static int cpu_where(const struct gpu_tensor *cond, const struct gpu_tensor *a,
		     const struct gpu_tensor *b, struct gpu_tensor *y)
{
	const struct gpu_tensor *ts[4] = { y, cond, a, b };
	struct gpu_tensor *tmp[3] = { 0 };
	size_t esz = ir_dtype_size(y->dtype);
	struct cpu_iter it;
	int rc = -1;

	if (!known_dtype(y->dtype)) {
		gpu_set_error("cpu where: dtype %s not supported",
			      ir_dtype_torch_name(y->dtype));
		return -1;
	}
	for (int k = 1; k < 4; k++) {
		enum ir_dtype want = k == 1 ? IR_DTYPE_BOOL : y->dtype;

		if (!same_shape(ts[k], y)) {
			gpu_set_error("cpu where: operand shapes differ");
			goto out;
		}
		if (ts[k]->dtype != want &&
		    !(k == 1 && ts[k]->dtype == IR_DTYPE_UINT8)) {
			tmp[k - 1] = cpu_compact_as(ts[k], want);
			if (!tmp[k - 1])
				goto out;
			ts[k] = tmp[k - 1];
		}
	}
	cpu_iter_init(&it, y->rank, y->dims, 4, ts);
	cpu_iter_run(&it, where_loop, &esz);
	rc = 0;
out:
	for (int k = 0; k < 3; k++)
		gpu_free(tmp[k]);
	return rc;
}

/* --- the table ------------------------------------------------------------ */

static const struct gpu_backend cpu_backend = {
	.id = GPU_BACKEND_CPU,
	.name = "cpu",
	.alloc = cpu_mem_alloc,
	.release = cpu_mem_release,
	.upload = cpu_upload,
	.download = cpu_upload,
	.copy = cpu_copy,
	.fill = cpu_fill,
	.arange = cpu_arange,
	.unary = cpu_unary,
	.binary = cpu_binary,
	.where = cpu_where,
	.reduce = cpu_reduce,
	.cumulative = cpu_cumulative,
	.matmul = cpu_matmul,
	.conv = cpu_conv,
	.pool = cpu_pool,
	.adaptive_pool = cpu_adaptive_pool,
	.softmax = cpu_softmax,
	.batch_norm = cpu_batch_norm,
	.group_norm = cpu_group_norm,
	.layer_norm = cpu_layer_norm,
	.gather = cpu_gather,
	.index_select = cpu_index_select,
	.scatter = cpu_scatter,
	.topk = cpu_topk,
	.pad = cpu_pad,
	.resize = cpu_resize,
};

const struct gpu_backend *gpu_cpu_backend(void)
{
	return &cpu_backend;
}

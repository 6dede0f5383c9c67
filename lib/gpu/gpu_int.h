/*
 * gpu_int.h - private helpers of the CPU backend (lib/gpu/cpu*.c): element
 * loads and stores of every dtype, fp16/bf16 conversion, the strided N-d
 * iterator the elementwise kernels share, and a parallel-for over a small
 * persistent thread pool.
 */
#ifndef PT2ONNX_GPU_INT_H
#define PT2ONNX_GPU_INT_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "gpu.h"

/* GCC's -O2 only vectorises loops whose trip count is a multiple of the
 * vector width ("very cheap" cost model): the kernels' inner loops over n
 * elements need the dynamic model to be vectorised at all. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("vect-cost-model=dynamic")
#endif

/* --- fp16 / bf16 --------------------------------------------------------- */

static inline float cpu_half_to_float(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1f,
		 man = h & 0x3ff, bits;
	float f;

	if (exp == 0) {
		/* zero or subnormal: man * 2^-24 */
		f = (float)man * 5.9604644775390625e-8f;
		memcpy(&bits, &f, 4);
		bits |= sign;
	} else if (exp == 31) {
		bits = sign | 0x7f800000u | (man << 13);
	} else {
		bits = sign | ((exp + 112) << 23) | (man << 13);
	}
	memcpy(&f, &bits, 4);
	return f;
}

static inline uint16_t cpu_float_to_half(float f)
{
	uint32_t x, sign, e, man;
	int exp;

	memcpy(&x, &f, 4);
	sign = (x >> 16) & 0x8000;
	e = (x >> 23) & 0xff;
	man = x & 0x7fffff;
	if (e == 255) /* inf, nan */
		return (uint16_t)(sign | 0x7c00 | (man ? 0x200 | (man >> 13) : 0));
	exp = (int)e - 127 + 15;
	if (exp >= 31)
		return (uint16_t)(sign | 0x7c00);
	if (exp <= 0) {
		/* subnormal half or zero: round to nearest even */
		uint32_t m, shift, r, half;

		if (exp < -10)
			return (uint16_t)sign;
		m = man | 0x800000;
		shift = (uint32_t)(14 - exp);
		r = m >> shift;
		half = 1u << (shift - 1);
		if ((m & ((1u << shift) - 1)) > half ||
		    ((m & ((1u << shift) - 1)) == half && (r & 1)))
			r++;
		return (uint16_t)(sign | r);
	}
	{
		uint32_t h = sign | ((uint32_t)exp << 10) | (man >> 13);
		uint32_t rest = man & 0x1fff;

		if (rest > 0x1000 || (rest == 0x1000 && (h & 1)))
			h++; /* may carry into the exponent: correct */
		return (uint16_t)h;
	}
}

static inline float cpu_bf16_to_float(uint16_t h)
{
	uint32_t bits = (uint32_t)h << 16;
	float f;

	memcpy(&f, &bits, 4);
	return f;
}

static inline uint16_t cpu_float_to_bf16(float f)
{
	uint32_t x;

	memcpy(&x, &f, 4);
	if ((x & 0x7fffffff) > 0x7f800000) /* nan */
		return (uint16_t)((x >> 16) | 0x40);
	x += 0x7fff + ((x >> 16) & 1);
	return (uint16_t)(x >> 16);
}

/* --- element access by dtype ---------------------------------------------- */

/* float -> integer as C does for in-range values; NaN, inf and values out
 * of int64's range become INT64_MIN (x86's answer) instead of UB. */
static inline int64_t cpu_f2i(double v)
{
	if (!(v > -9223372036854775808.0 && v < 9223372036854775808.0))
		return INT64_MIN;
	return (int64_t)v;
}

static inline int cpu_is_float(enum ir_dtype dt)
{
	return dt == IR_DTYPE_FLOAT || dt == IR_DTYPE_DOUBLE ||
	       dt == IR_DTYPE_FLOAT16 || dt == IR_DTYPE_BFLOAT16;
}

static inline int cpu_is_int(enum ir_dtype dt)
{
	return dt == IR_DTYPE_INT64 || dt == IR_DTYPE_INT32 ||
	       dt == IR_DTYPE_INT16 || dt == IR_DTYPE_INT8 ||
	       dt == IR_DTYPE_UINT8 || dt == IR_DTYPE_BOOL;
}

static inline double cpu_ld_d(const void *p, enum ir_dtype dt)
{
	switch (dt) {
	case IR_DTYPE_FLOAT: return *(const float *)p;
	case IR_DTYPE_DOUBLE: return *(const double *)p;
	case IR_DTYPE_FLOAT16: return cpu_half_to_float(*(const uint16_t *)p);
	case IR_DTYPE_BFLOAT16: return cpu_bf16_to_float(*(const uint16_t *)p);
	case IR_DTYPE_INT64: return (double)*(const int64_t *)p;
	case IR_DTYPE_INT32: return *(const int32_t *)p;
	case IR_DTYPE_INT16: return *(const int16_t *)p;
	case IR_DTYPE_INT8: return *(const int8_t *)p;
	case IR_DTYPE_UINT8: return *(const uint8_t *)p;
	case IR_DTYPE_BOOL: return *(const uint8_t *)p != 0;
	default: return 0;
	}
}

static inline int64_t cpu_ld_i(const void *p, enum ir_dtype dt)
{
	switch (dt) {
	case IR_DTYPE_INT64: return *(const int64_t *)p;
	case IR_DTYPE_INT32: return *(const int32_t *)p;
	case IR_DTYPE_INT16: return *(const int16_t *)p;
	case IR_DTYPE_INT8: return *(const int8_t *)p;
	case IR_DTYPE_UINT8: return *(const uint8_t *)p;
	case IR_DTYPE_BOOL: return *(const uint8_t *)p != 0;
	default: return cpu_f2i(cpu_ld_d(p, dt));
	}
}

static inline void cpu_st_d(void *p, enum ir_dtype dt, double v)
{
	switch (dt) {
	case IR_DTYPE_FLOAT: *(float *)p = (float)v; break;
	case IR_DTYPE_DOUBLE: *(double *)p = v; break;
	case IR_DTYPE_FLOAT16: *(uint16_t *)p = cpu_float_to_half((float)v); break;
	case IR_DTYPE_BFLOAT16: *(uint16_t *)p = cpu_float_to_bf16((float)v); break;
	case IR_DTYPE_BOOL: *(uint8_t *)p = v != 0; break;
	case IR_DTYPE_INT64: *(int64_t *)p = cpu_f2i(v); break;
	case IR_DTYPE_INT32: *(int32_t *)p = (int32_t)(uint64_t)cpu_f2i(v); break;
	case IR_DTYPE_INT16: *(int16_t *)p = (int16_t)(uint64_t)cpu_f2i(v); break;
	case IR_DTYPE_INT8: *(int8_t *)p = (int8_t)(uint64_t)cpu_f2i(v); break;
	case IR_DTYPE_UINT8: *(uint8_t *)p = (uint8_t)(uint64_t)cpu_f2i(v); break;
	default: break;
	}
}

static inline void cpu_st_i(void *p, enum ir_dtype dt, int64_t v)
{
	switch (dt) {
	case IR_DTYPE_INT64: *(int64_t *)p = v; break;
	case IR_DTYPE_INT32: *(int32_t *)p = (int32_t)(uint64_t)v; break;
	case IR_DTYPE_INT16: *(int16_t *)p = (int16_t)(uint64_t)v; break;
	case IR_DTYPE_INT8: *(int8_t *)p = (int8_t)(uint64_t)v; break;
	case IR_DTYPE_UINT8: *(uint8_t *)p = (uint8_t)(uint64_t)v; break;
	case IR_DTYPE_BOOL: *(uint8_t *)p = v != 0; break;
	default: cpu_st_d(p, dt, (double)v); break;
	}
}

/* Address of t's element at its offset (element 0 of the view). */
static inline char *cpu_base(const struct gpu_tensor *t)
{
	return (char *)t->storage->data +
	       t->offset * (int64_t)ir_dtype_size(t->dtype);
}

/* --- the strided iterator ------------------------------------------------- */

#define CPU_MAX_OPS 4

/* Operands over one shape; op 0 is usually the output.  Strides in bytes. */
struct cpu_iter {
	int nops;
	int rank;
	int64_t dims[GPU_MAX_DIMS];
	int64_t strides[CPU_MAX_OPS][GPU_MAX_DIMS];
	char *base[CPU_MAX_OPS];
};

/* The inner loop: n elements, op k at ptr[k] advancing by stride[k] bytes. */
typedef void (*cpu_inner_fn)(void *ctx, int64_t n, char **ptr,
			     const int64_t *stride);

/* Sets up it over dims with the tensors ts[0..nops) (each with the same
 * rank and dims as `dims`, strides may be 0), merges and drops dims. */
void cpu_iter_init(struct cpu_iter *it, int rank, const int64_t *dims,
		   int nops, const struct gpu_tensor *const *ts);
/* Runs fn over every element, split over the threads when big enough. */
void cpu_iter_run(const struct cpu_iter *it, cpu_inner_fn fn, void *ctx);
int64_t cpu_iter_numel(const struct cpu_iter *it);

/* --- threads ------------------------------------------------------------- */

/* fn(ctx, begin, end) over [0, n) in pieces of at least `grain` items, on
 * up to gpu_threads() threads (the caller's included). */
void cpu_parallel_for(int64_t n, int64_t grain,
		      void (*fn)(void *ctx, int64_t begin, int64_t end),
		      void *ctx);

/* --- shared helpers --------------------------------------------------------- */

/* The backend's alloc and release (cpu.c): 64-byte aligned; big blocks
 * are cached for reuse.  Kernels take their scratch buffers here too. */
void *cpu_mem_alloc(size_t bytes);
void cpu_mem_release(void *p);

/* A contiguous tensor of dtype dt holding t's values, with t's dims; dims
 * where t has stride 0 are stored once and keep stride 0 (no expansion).
 * NULL with the error set. */
struct gpu_tensor *cpu_compact_as(const struct gpu_tensor *t,
				  enum ir_dtype dt);
int cpu_copy(const struct gpu_tensor *x, struct gpu_tensor *y);
int cpu_check_dtype(const char *what, enum ir_dtype dt, int floats_only);

/* Kernels of the table, by file. */
int cpu_reduce(enum gpu_reduce op, const struct gpu_tensor *x,
	       uint32_t axes_mask, double param, struct gpu_tensor *y);
int cpu_cumulative(const struct gpu_tensor *x, int axis, int prod,
		   int reverse, struct gpu_tensor *y);
int cpu_softmax(const struct gpu_tensor *x, int axis, int log,
		struct gpu_tensor *y);
int cpu_batch_norm(const struct gpu_tensor *x, const struct gpu_tensor *mean,
		   const struct gpu_tensor *var,
		   const struct gpu_tensor *weight,
		   const struct gpu_tensor *bias, double eps,
		   struct gpu_tensor *y);
int cpu_group_norm(const struct gpu_tensor *x, int64_t groups,
		   const struct gpu_tensor *weight,
		   const struct gpu_tensor *bias, double eps,
		   struct gpu_tensor *y);
int cpu_layer_norm(const struct gpu_tensor *x, int naxes,
		   const struct gpu_tensor *weight,
		   const struct gpu_tensor *bias, double eps,
		   struct gpu_tensor *y);
int cpu_matmul(const struct gpu_tensor *a, const struct gpu_tensor *b,
	       const struct gpu_tensor *c, int trans_a, int trans_b,
	       double alpha, double beta, struct gpu_tensor *y);
int cpu_conv(const struct gpu_conv *p, const struct gpu_tensor *x,
	     const struct gpu_tensor *w, const struct gpu_tensor *bias,
	     struct gpu_tensor *y);
int cpu_pool(const struct gpu_pool *p, const struct gpu_tensor *x,
	     struct gpu_tensor *y, struct gpu_tensor *indices);
int cpu_adaptive_pool(enum gpu_pool_kind kind, int nspatial,
		      const struct gpu_tensor *x, struct gpu_tensor *y);
int cpu_pad(const struct gpu_tensor *x, const int64_t *pads,
	    enum gpu_pad_mode mode, double value, struct gpu_tensor *y);
int cpu_resize(const struct gpu_tensor *x, int nspatial,
	       enum gpu_interp mode, int align_corners,
	       const double *scales, struct gpu_tensor *y);
int cpu_gather(const struct gpu_tensor *x, int axis,
	       const struct gpu_tensor *index, struct gpu_tensor *y);
int cpu_index_select(const struct gpu_tensor *x, int axis,
		     const struct gpu_tensor *index, struct gpu_tensor *y);
int cpu_scatter(const struct gpu_tensor *x, int axis,
		const struct gpu_tensor *index, const struct gpu_tensor *src,
		int op, struct gpu_tensor *y);
int cpu_topk(const struct gpu_tensor *x, int axis, int64_t k, int largest,
	     int sorted, struct gpu_tensor *values,
	     struct gpu_tensor *indices);

#endif

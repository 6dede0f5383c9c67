/*
 * cuda_int.h - private helpers of the CUDA backend (lib/gpu/cuda.cu:
 * memory and elementwise/reduction kernels; lib/gpu/cuda_nn.cu: cuBLAS
 * matrix products, convolution, pooling, norms, indexing, sort, pad,
 * resize).  C++ (nvcc) only; gpu.h stays the one public interface.
 *
 * Geometry: a struct cu_idx maps a row-major linear index over `dims` to
 * an element offset through `st` (strides in elements, 0 = broadcast).
 * Kernels take tensors as struct cu_ten (base pointer already moved by the
 * view's offset, dtype, geometry) and convert elements through cu_ld /
 * cu_st, so one kernel body serves every dtype; the compute type is a
 * template parameter (float for f32/f16/bf16, double, int64 for integers
 * and bool).
 *
 * Errors: every CUDA runtime call goes through CU_CHECK, which sets the
 * gpu error (statement, file, line) and makes the function return -1.
 */
#ifndef PT2ONNX_CUDA_INT_H
#define PT2ONNX_CUDA_INT_H

#include <cstdint>
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

extern "C" {
#include "gpu.h"
}

#define CU_THREADS 256

/* a runtime call that must succeed, else gpu error + return -1 */
#define CU_CHECK(stmt) \
	do { \
		cudaError_t e_ = (stmt); \
		if (e_ != cudaSuccess) { \
			gpu_set_error("cuda: %s: %s (%s:%d)", #stmt, \
				      cudaGetErrorString(e_), __FILE__, \
				      __LINE__); \
			return -1; \
		} \
	} while (0)

/* after a kernel launch */
#define CU_LAUNCHED() CU_CHECK(cudaGetLastError())

struct cu_idx {
	int rank;                  /* 0: every index maps to offset 0 */
	int64_t dims[GPU_MAX_DIMS];
	int64_t st[GPU_MAX_DIMS];  /* strides in elements */
};

struct cu_ten {
	char *p;                   /* data + offset * element size */
	int dt;                    /* enum ir_dtype */
	cu_idx g;                  /* the view's dims and strides */
};

/* i must be below the product of g's dims: the outermost coordinate is
 * what is left, so merged (rank 1) geometries cost no division */
__host__ __device__ static inline int64_t cu_off(const cu_idx &g, int64_t i)
{
	int64_t off = 0;
	for (int d = g.rank - 1; d > 0; d--) {
		int64_t n = g.dims[d];
		int64_t q = i / n;
		off += (i - q * n) * g.st[d];
		i = q;
	}
	return g.rank > 0 ? off + i * g.st[0] : 0;
}

/* --- element conversion ------------------------------------------------ */

template <typename D, typename S> __device__ static inline D cu_cvt(S v)
{
	return static_cast<D>(v);
}
template <> __device__ inline bool cu_cvt<bool, float>(float v) { return v != 0; }
template <> __device__ inline bool cu_cvt<bool, double>(double v) { return v != 0; }
template <> __device__ inline bool cu_cvt<bool, int64_t>(int64_t v) { return v != 0; }

__device__ static inline bool cu_is_float_dev(int dt)
{
	return dt == IR_DTYPE_FLOAT || dt == IR_DTYPE_DOUBLE ||
	       dt == IR_DTYPE_FLOAT16 || dt == IR_DTYPE_BFLOAT16;
}

/* element i (already offset) of p as compute type C */
template <typename C>
__device__ static inline C cu_ld(const char *p, int dt, int64_t i)
{
	switch (dt) {
	case IR_DTYPE_FLOAT:
		return cu_cvt<C>(((const float *)p)[i]);
	case IR_DTYPE_DOUBLE:
		return cu_cvt<C>(((const double *)p)[i]);
	case IR_DTYPE_FLOAT16:
		return cu_cvt<C>(__half2float(((const __half *)p)[i]));
	case IR_DTYPE_BFLOAT16:
		return cu_cvt<C>(__bfloat162float(((const __nv_bfloat16 *)p)[i]));
	case IR_DTYPE_INT64:
		return cu_cvt<C>(((const int64_t *)p)[i]);
	case IR_DTYPE_INT32:
		return cu_cvt<C>((int64_t)((const int32_t *)p)[i]);
	case IR_DTYPE_INT16:
		return cu_cvt<C>((int64_t)((const int16_t *)p)[i]);
	case IR_DTYPE_INT8:
		return cu_cvt<C>((int64_t)((const int8_t *)p)[i]);
	case IR_DTYPE_UINT8:
		return cu_cvt<C>((int64_t)((const uint8_t *)p)[i]);
	case IR_DTYPE_BOOL:
		return cu_cvt<C>((int64_t)(((const uint8_t *)p)[i] != 0));
	default:
		return cu_cvt<C>((int64_t)0);
	}
}

/* floating value to an integer type: truncation (via int64) */
template <typename C> __device__ static inline int64_t cu_to_i64(C v)
{
	return (int64_t)v;
}
template <> __device__ inline int64_t cu_to_i64<float>(float v)
{
	return v != v ? 0 : (int64_t)v;
}
template <> __device__ inline int64_t cu_to_i64<double>(double v)
{
	return v != v ? 0 : (int64_t)v;
}

template <typename C>
__device__ static inline void cu_st(char *p, int dt, int64_t i, C v)
{
	switch (dt) {
	case IR_DTYPE_FLOAT:
		((float *)p)[i] = cu_cvt<float>(v);
		break;
	case IR_DTYPE_DOUBLE:
		((double *)p)[i] = cu_cvt<double>(v);
		break;
	case IR_DTYPE_FLOAT16:
		((__half *)p)[i] = __double2half(cu_cvt<double>(v));
		break;
	case IR_DTYPE_BFLOAT16:
		((__nv_bfloat16 *)p)[i] = __double2bfloat16(cu_cvt<double>(v));
		break;
	case IR_DTYPE_INT64:
		((int64_t *)p)[i] = cu_to_i64(v);
		break;
	case IR_DTYPE_INT32:
		((int32_t *)p)[i] = (int32_t)cu_to_i64(v);
		break;
	case IR_DTYPE_INT16:
		((int16_t *)p)[i] = (int16_t)cu_to_i64(v);
		break;
	case IR_DTYPE_INT8:
		((int8_t *)p)[i] = (int8_t)cu_to_i64(v);
		break;
	case IR_DTYPE_UINT8:
		((uint8_t *)p)[i] = (uint8_t)cu_to_i64(v);
		break;
	case IR_DTYPE_BOOL:
		((uint8_t *)p)[i] = v != 0;
		break;
	default:
		break;
	}
}

/* --- host helpers (cuda.cu) --------------------------------------------- */

/* 1 when a and b have the same rank and dims */
static inline int cu_same_dims(const struct gpu_tensor *a,
			       const struct gpu_tensor *b)
{
	if (a->rank != b->rank)
		return 0;
	for (int d = 0; d < a->rank; d++)
		if (a->dims[d] != b->dims[d])
			return 0;
	return 1;
}

/* axis (negative: from the end) in [0, rank) (rank 0: 0), or -1 */
static inline int cu_axis(int axis, int rank)
{
	int r = rank ? rank : 1;
	if (axis < 0)
		axis += r;
	return axis >= 0 && axis < r ? axis : -1;
}

/* 1 when dt is one the kernels load and store */
int cu_dtype_ok(enum ir_dtype dt);
int cu_is_float(enum ir_dtype dt);
/* t as a kernel argument (its own dims and strides) */
cu_ten cu_view(const struct gpu_tensor *t);
/* geometry over `rank` dims with the given strides */
cu_idx cu_geom(int rank, const int64_t *dims, const int64_t *strides);
/* merges the dims every operand walks contiguously, drops size-1 dims:
 * one geometry per operand in g[], all over the same merged dims */
void cu_coalesce(int rank, const int64_t *dims, int nops,
		 const int64_t *const *strides, cu_idx *g);
/* grid size for n work items of CU_THREADS threads (grid-stride loops) */
unsigned cu_blocks(int64_t n);
/* device scratch memory through the backend's caching allocator */
void *cu_alloc(size_t bytes);
void cu_release(void *p);
/* the device flag index kernels raise on an out-of-range index: reset
 * before, read (and reset) after: 1 when raised, -1 on a CUDA error */
int *cu_flag_ptr(void);
int cu_flag_reset(void);
int cu_flag_read(void);
/* y (contiguous, dtype/dims as x) = x, any strides/dtypes */
int cu_copy(const struct gpu_tensor *x, struct gpu_tensor *y);
int cu_require_out(const struct gpu_tensor *y, const char *what);

/* --- the kernels of cuda_nn.cu ------------------------------------------ */

int cu_matmul(const struct gpu_tensor *a, const struct gpu_tensor *b,
	      const struct gpu_tensor *c, int trans_a, int trans_b,
	      double alpha, double beta, struct gpu_tensor *y);
int cu_conv(const struct gpu_conv *p, const struct gpu_tensor *x,
	    const struct gpu_tensor *w, const struct gpu_tensor *bias,
	    struct gpu_tensor *y);
int cu_pool(const struct gpu_pool *p, const struct gpu_tensor *x,
	    struct gpu_tensor *y, struct gpu_tensor *indices);
int cu_adaptive_pool(enum gpu_pool_kind kind, int nspatial,
		     const struct gpu_tensor *x, struct gpu_tensor *y);
int cu_softmax(const struct gpu_tensor *x, int axis, int log,
	       struct gpu_tensor *y);
int cu_batch_norm(const struct gpu_tensor *x, const struct gpu_tensor *mean,
		  const struct gpu_tensor *var, const struct gpu_tensor *weight,
		  const struct gpu_tensor *bias, double eps,
		  struct gpu_tensor *y);
int cu_group_norm(const struct gpu_tensor *x, int64_t groups,
		  const struct gpu_tensor *weight,
		  const struct gpu_tensor *bias, double eps,
		  struct gpu_tensor *y);
int cu_layer_norm(const struct gpu_tensor *x, int naxes,
		  const struct gpu_tensor *weight,
		  const struct gpu_tensor *bias, double eps,
		  struct gpu_tensor *y);
int cu_gather(const struct gpu_tensor *x, int axis,
	      const struct gpu_tensor *index, struct gpu_tensor *y);
int cu_index_select(const struct gpu_tensor *x, int axis,
		    const struct gpu_tensor *index, struct gpu_tensor *y);
int cu_scatter(const struct gpu_tensor *x, int axis,
	       const struct gpu_tensor *index, const struct gpu_tensor *src,
	       int op, struct gpu_tensor *y);
int cu_topk(const struct gpu_tensor *x, int axis, int64_t k, int largest,
	    int sorted, struct gpu_tensor *values, struct gpu_tensor *indices);
int cu_pad(const struct gpu_tensor *x, const int64_t *pads,
	   enum gpu_pad_mode mode, double value, struct gpu_tensor *y);
int cu_resize(const struct gpu_tensor *x, int nspatial, enum gpu_interp mode,
	      int align_corners, const double *scales, struct gpu_tensor *y);

#endif

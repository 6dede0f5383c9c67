/*
 * gpu.h - the compute backends `trace` runs models on: one kernel interface,
 * two backends.
 *
 * CPU is the reference and always built (matrix products through BLAS, the
 * rest in plain C over the cores).  CUDA is built when nvcc is found
 * (PT2ONNX_HAVE_CUDA): cuBLAS for matrix products, our kernels for the rest.
 *
 * The interface is small on purpose: aten semantics (argument parsing,
 * broadcasting, type promotion, view rules) live in lib/trace; a backend
 * only computes.  Every primitive below has one meaning on both backends,
 * and tests/unit/test_gpu_cuda.c compares them kernel by kernel.
 *
 * Tensors are torch-like: a refcounted storage on one backend, and a view
 * of it (dtype, dims, strides in elements, offset in elements).  Views are
 * free (transpose, slice, expand with stride 0); kernels read strided
 * inputs unless a primitive says "contiguous", and always write contiguous
 * outputs that the caller allocated (gpu_empty).
 *
 * Errors: a primitive returns 0, or -1 after gpu_set_error() (a message
 * read back with gpu_last_error()): out of device memory, a dtype the
 * kernel does not have.  Nothing aborts.
 */
#ifndef PT2ONNX_GPU_H
#define PT2ONNX_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "ir.h" /* enum ir_dtype */

enum gpu_backend_id {
	GPU_BACKEND_CPU = 0,
	GPU_BACKEND_CUDA,
	GPU_BACKEND_COUNT
};

#define GPU_MAX_DIMS 8

struct gpu_backend;

/* Bytes on one backend, shared by the views of it. */
struct gpu_storage {
	const struct gpu_backend *be;
	void *data;        /* host pointer (CPU) or device pointer (CUDA) */
	size_t bytes;
	int refs;
	int borrowed;      /* data not ours (a mapped weight): not freed */
};

/* A view.  A rank-0 tensor has one element. */
struct gpu_tensor {
	enum ir_dtype dtype;
	int rank;
	int64_t dims[GPU_MAX_DIMS];
	int64_t strides[GPU_MAX_DIMS]; /* in elements; 0 = broadcast */
	int64_t offset;                /* in elements from storage->data */
	struct gpu_storage *storage;
};

/* --- tensors (gpu.c, backend-independent) ------------------------------ */

/* A new contiguous tensor on backend be; its data is uninitialised.
 * NULL (with the error set) when out of memory or rank > GPU_MAX_DIMS. */
struct gpu_tensor *gpu_empty(const struct gpu_backend *be, enum ir_dtype dt,
			     int rank, const int64_t *dims);
/* A new view sharing t's storage (refs + 1), with the given geometry. */
struct gpu_tensor *gpu_view(const struct gpu_tensor *t, int rank,
			    const int64_t *dims, const int64_t *strides,
			    int64_t offset);
/* A tensor over host bytes that stay the caller's (a mapped archive
 * weight): on CPU no copy; on CUDA uploaded.  strides NULL: contiguous. */
struct gpu_tensor *gpu_from_host(const struct gpu_backend *be,
				 enum ir_dtype dt, int rank,
				 const int64_t *dims, const int64_t *strides,
				 const void *data, size_t bytes);
/* Drops one reference to the view (and the storage when its last view
 * goes).  NULL is a no-op. */
void gpu_free(struct gpu_tensor *t);

int64_t gpu_numel(const struct gpu_tensor *t);
/* 1 when t is row-major contiguous (offset may be non-zero). */
int gpu_is_contiguous(const struct gpu_tensor *t);
/* Row-major strides for dims. */
void gpu_contiguous_strides(int rank, const int64_t *dims, int64_t *strides);
/* A contiguous copy of t on t's backend (a new reference to t itself when
 * already contiguous). */
struct gpu_tensor *gpu_contiguous(struct gpu_tensor *t);
/* t's elements, contiguous, copied into host memory dst (numel * size
 * bytes), converted to dtype `as` (UNDEFINED: t's own). Returns 0 or -1. */
int gpu_to_host(const struct gpu_tensor *t, enum ir_dtype as, void *dst);
/* Element i (row-major over t's dims) as a double / int64 (for scalars
 * and small shape tensors; slow, copies from the device). */
double gpu_item_double(const struct gpu_tensor *t, int64_t i);
int64_t gpu_item_int(const struct gpu_tensor *t, int64_t i);

void gpu_set_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *gpu_last_error(void);

/* --- backends ----------------------------------------------------------- */

const char *gpu_backend_name(enum gpu_backend_id b);
/* 1 when the backend was built in and a device is present. */
int gpu_backend_available(enum gpu_backend_id b);
/* The backend's kernel table, or NULL when not available. */
const struct gpu_backend *gpu_backend_get(enum gpu_backend_id b);
/* The backends' own entry points, for gpu.c: cpu.c's table; cuda.cu's
 * table, or NULL when no CUDA device is present (only declared when built
 * with PT2ONNX_HAVE_CUDA). */
const struct gpu_backend *gpu_cpu_backend(void);
#ifdef PT2ONNX_HAVE_CUDA
const struct gpu_backend *gpu_cuda_backend(void);
#endif
/* --device auto: the backend a trace of a model should run on, from its
 * weight bytes and batch (the work estimate: every weight is read and used
 * about once per sample, so CPU time ~ weight_bytes x batch / threads) and
 * whether CUDA is present.  CUDA costs start-up (~0.3 s measured on an
 * H100) and copying the weights to the device; it is chosen only when that
 * and its own compute are estimated to take less than the CPU would.
 * why (n bytes, may be NULL) gets one line saying which and why. */
enum gpu_backend_id gpu_auto_backend(uint64_t weight_bytes, int64_t batch,
				     int threads, int cuda_present,
				     char *why, size_t n);
/* Threads the CPU backend may use (default: the cores; PT2ONNX_THREADS). */
void gpu_set_threads(int n);
int gpu_threads(void);

/* Elementwise ops.  Unary: y = f(x; a, b) with the parameters noted. */
enum gpu_unary {
	GPU_NEG, GPU_ABS, GPU_SIGN, GPU_RECIPROCAL, GPU_SQRT, GPU_RSQRT,
	GPU_EXP, GPU_EXPM1, GPU_LOG, GPU_LOG1P, GPU_LOG2, GPU_LOG10,
	GPU_SIN, GPU_COS, GPU_TAN, GPU_ASIN, GPU_ACOS, GPU_ATAN,
	GPU_SINH, GPU_COSH, GPU_TANH, GPU_ASINH, GPU_ACOSH, GPU_ATANH,
	GPU_ERF, GPU_FLOOR, GPU_CEIL, GPU_ROUND /* half to even */, GPU_TRUNC,
	GPU_FRAC, GPU_NOT /* logical, any dtype -> y's dtype (bool) */,
	GPU_BITWISE_NOT, GPU_ISNAN, GPU_ISINF, /* -> bool */
	GPU_RELU, GPU_SIGMOID, GPU_SILU, GPU_MISH, GPU_SOFTSIGN,
	GPU_GELU,        /* a: 0 erf, 1 tanh approximation */
	GPU_LEAKY_RELU,  /* a: negative slope */
	GPU_ELU,         /* a: alpha, b: scale (selu: alpha, scale) */
	GPU_CELU,        /* a: alpha */
	GPU_HARDTANH,    /* clamp to [a, b] (also relu6, clamp) */
	GPU_HARDSIGMOID, /* relu6(x + 3) / 6 */
	GPU_HARDSWISH,   /* x * relu6(x + 3) / 6 */
	GPU_HARDSHRINK, GPU_SOFTSHRINK, /* a: lambda */
	GPU_SOFTPLUS,    /* a: beta, b: threshold */
	GPU_THRESHOLD,   /* x > a ? x : b */
	GPU_POW_SCALAR,  /* x ** a */
	GPU_RPOW_SCALAR, /* a ** x */
	GPU_LOGIT,       /* a: eps (< 0: none) */
	GPU_UNARY_COUNT
};

/* Binary: y = a op b.  a and b are already broadcast to y's dims (stride 0
 * where broadcast) and of one dtype, the compute type; y's dtype is that
 * type, or bool for the comparisons and logical ops. */
enum gpu_binary {
	GPU_ADD, GPU_SUB, GPU_MUL,
	GPU_DIV,       /* true division (ints: callers cast to float first) */
	GPU_FLOOR_DIV, /* python floor division */
	GPU_TRUNC_DIV,
	GPU_REMAINDER, /* python modulo: sign of the divisor */
	GPU_FMOD,      /* C fmod: sign of the dividend */
	GPU_POW, GPU_MAX, GPU_MIN, GPU_ATAN2,
	GPU_EQ, GPU_NE, GPU_LT, GPU_LE, GPU_GT, GPU_GE,   /* -> bool */
	GPU_LOGICAL_AND, GPU_LOGICAL_OR, GPU_LOGICAL_XOR, /* -> bool */
	GPU_BITWISE_AND, GPU_BITWISE_OR, GPU_BITWISE_XOR, /* ints, bool */
	GPU_BINARY_COUNT
};

enum gpu_reduce {
	GPU_RSUM, GPU_RMEAN, GPU_RPROD, GPU_RMAX, GPU_RMIN,
	GPU_RARGMAX, GPU_RARGMIN, /* one axis; y is int64; first index wins */
	GPU_RALL, GPU_RANY,       /* -> bool */
	GPU_RL1, GPU_RL2,         /* sum |x|, sqrt(sum x^2) */
	GPU_RLOGSUMEXP,
	GPU_RVAR,                 /* param: correction (0 population, 1 unbiased) */
	GPU_REDUCE_COUNT
};

enum gpu_pool_kind { GPU_POOL_MAX, GPU_POOL_AVG };
enum gpu_pad_mode { GPU_PAD_CONSTANT, GPU_PAD_REFLECT, GPU_PAD_REPLICATE,
		    GPU_PAD_CIRCULAR };
enum gpu_interp { GPU_INTERP_NEAREST, GPU_INTERP_LINEAR, GPU_INTERP_CUBIC,
		  GPU_INTERP_NEAREST_EXACT };

/* Convolution over 1 to 3 spatial dims: x [N, C, *in], w [O, C/groups,
 * *k] (transposed: [C, O/groups, *k]), bias [O] or NULL, y [N, O, *out]
 * allocated by the caller from the usual formulas. */
struct gpu_conv {
	int nspatial;
	int64_t stride[3], pad[3], dilation[3], output_padding[3];
	int64_t groups;
	int transposed;
};

/* Pooling over 1 to 3 spatial dims, x [N, C, *in] -> y [N, C, *out].
 * pad is symmetric; ceil_mode as torch's (the caller computes out dims).
 * avg: count_include_pad, divisor_override (0: none).  indices (max only,
 * may be NULL): int64, flat index into each (n, c) plane, as torch's. */
struct gpu_pool {
	enum gpu_pool_kind kind;
	int nspatial;
	int64_t kernel[3], stride[3], pad[3], dilation[3];
	int count_include_pad;
	int64_t divisor_override;
};

/* The kernel table.  Every function returns 0 or -1 (error set).  Outputs
 * are contiguous, allocated by the caller on this backend with the right
 * dtype and dims; inputs may be strided unless marked "contig". */
struct gpu_backend {
	enum gpu_backend_id id;
	const char *name;
	/* memory */
	void *(*alloc)(size_t bytes);            /* NULL on failure */
	void (*release)(void *p);
	int (*upload)(void *dst, const void *src, size_t bytes);
	int (*download)(void *dst, const void *src, size_t bytes);

	/* y = x converted to y's dtype (any dtype pair; float -> int
	 * truncates, -> bool is != 0).  x's dims equal y's; x strided: this
	 * is also contiguous(), expand() materialised, cast. */
	int (*copy)(const struct gpu_tensor *x, struct gpu_tensor *y);
	/* every element of y = v */
	int (*fill)(struct gpu_tensor *y, double v);
	/* y[i] = start + i * step, y 1-d */
	int (*arange)(struct gpu_tensor *y, double start, double step);
	int (*unary)(enum gpu_unary op, const struct gpu_tensor *x,
		     struct gpu_tensor *y, double a, double b);
	int (*binary)(enum gpu_binary op, const struct gpu_tensor *a,
		      const struct gpu_tensor *b, struct gpu_tensor *y);
	/* y = cond ? a : b; all three broadcast to y's dims; cond bool */
	int (*where)(const struct gpu_tensor *cond, const struct gpu_tensor *a,
		     const struct gpu_tensor *b, struct gpu_tensor *y);
	/* Reduce over the axes set in axes_mask (bit i = axis i of x); y has
	 * x's rank with those dims 1.  param: GPU_RVAR's correction. */
	int (*reduce)(enum gpu_reduce op, const struct gpu_tensor *x,
		      uint32_t axes_mask, double param, struct gpu_tensor *y);
	/* Inclusive scan along axis (cumsum; prod: cumprod); y as x. */
	int (*cumulative)(const struct gpu_tensor *x, int axis, int prod,
			  int reverse, struct gpu_tensor *y);

	/* y[b] = alpha * op(a[b]) @ op(b[b]) + beta * c (c NULL: 0), where a
	 * is [..., M, K] (trans_a: [..., K, M]), b [..., K, N] (trans_b:
	 * [..., N, K]), c broadcast to y [..., M, N].  a and b's batch dims
	 * are already broadcast to y's (stride 0 allowed); the last two
	 * dims may be strided.  float32 and float64 at least. */
	int (*matmul)(const struct gpu_tensor *a, const struct gpu_tensor *b,
		      const struct gpu_tensor *c, int trans_a, int trans_b,
		      double alpha, double beta, struct gpu_tensor *y);
	int (*conv)(const struct gpu_conv *p, const struct gpu_tensor *x,
		    const struct gpu_tensor *w, const struct gpu_tensor *bias,
		    struct gpu_tensor *y);
	int (*pool)(const struct gpu_pool *p, const struct gpu_tensor *x,
		    struct gpu_tensor *y, struct gpu_tensor *indices);
	/* Adaptive pooling (torch's bins: start = floor(i*in/out), end =
	 * ceil((i+1)*in/out)) over the last nspatial dims. */
	int (*adaptive_pool)(enum gpu_pool_kind kind, int nspatial,
			     const struct gpu_tensor *x, struct gpu_tensor *y);
	/* softmax along axis (log: log_softmax) */
	int (*softmax)(const struct gpu_tensor *x, int axis, int log,
		       struct gpu_tensor *y);
	/* Normalisation: y = (x - mean) / sqrt(var + eps) * weight + bias.
	 * x [N, C, *]; statistics over the elements of each (n, group) for
	 * groups (group_norm; instance norm is groups == C), or given as
	 * mean/var [C] (batch_norm in eval; mean/var NULL with groups 0:
	 * batch statistics over N and spatial dims).  weight, bias [C] or
	 * NULL. */
	int (*batch_norm)(const struct gpu_tensor *x,
			  const struct gpu_tensor *mean,
			  const struct gpu_tensor *var,
			  const struct gpu_tensor *weight,
			  const struct gpu_tensor *bias, double eps,
			  struct gpu_tensor *y);
	int (*group_norm)(const struct gpu_tensor *x, int64_t groups,
			  const struct gpu_tensor *weight,
			  const struct gpu_tensor *bias, double eps,
			  struct gpu_tensor *y);
	/* layer norm over the last `naxes` dims; weight, bias shaped as those
	 * dims or NULL */
	int (*layer_norm)(const struct gpu_tensor *x, int naxes,
			  const struct gpu_tensor *weight,
			  const struct gpu_tensor *bias, double eps,
			  struct gpu_tensor *y);

	/* Indexing.  index is int64 (negative counts from the end; out of
	 * range is an error).
	 * gather: y[..i..] = x[..index[..i..]..] along axis, index of y's
	 *   dims (torch.gather).
	 * index_select: y = x with dim `axis` replaced by index's (1-d)
	 *   entries (also embedding).
	 * scatter: y = x, then y[..index[i]..] (op: 0 set, 1 add) = src[i]
	 *   along axis (torch.scatter / scatter_add; index_put along one
	 *   axis). */
	int (*gather)(const struct gpu_tensor *x, int axis,
		      const struct gpu_tensor *index, struct gpu_tensor *y);
	int (*index_select)(const struct gpu_tensor *x, int axis,
			    const struct gpu_tensor *index,
			    struct gpu_tensor *y);
	int (*scatter)(const struct gpu_tensor *x, int axis,
		       const struct gpu_tensor *index,
		       const struct gpu_tensor *src, int op,
		       struct gpu_tensor *y);
	/* Along axis: the k largest (largest=1) or smallest, sorted when
	 * `sorted`; values and int64 indices shaped as x with dim axis = k.
	 * sort is topk with k = dims[axis]; stable. */
	int (*topk)(const struct gpu_tensor *x, int axis, int64_t k,
		    int largest, int sorted, struct gpu_tensor *values,
		    struct gpu_tensor *indices);
	/* Padding of each dim: pads[2*i] before, pads[2*i+1] after (negative
	 * crops), y's dims accordingly. */
	int (*pad)(const struct gpu_tensor *x, const int64_t *pads,
		   enum gpu_pad_mode mode, double value, struct gpu_tensor *y);
	/* Resampling of the last nspatial dims (x [N, C, *in] -> y [N, C,
	 * *out]).  scales[i]: the user's scale factor for dim i or 0 (then
	 * in/out); align_corners as torch. Linear over 1-3 dims, cubic 2. */
	int (*resize)(const struct gpu_tensor *x, int nspatial,
		      enum gpu_interp mode, int align_corners,
		      const double *scales, struct gpu_tensor *y);
};

#endif

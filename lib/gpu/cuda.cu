/*
 * cuda.cu - the CUDA backend of gpu.h, part one: device discovery, the
 * caching device allocator, host<->device copies, and the elementwise,
 * reduction and scan kernels (copy, fill, arange, unary, binary, where,
 * reduce, cumulative).  The rest of the table is in cuda_nn.cu.
 *
 * Elementwise kernels are written once over strided N-d views: the host
 * merges the dims every operand walks contiguously (and drops size-1
 * dims), so the common contiguous case is one division per element.  All
 * of them run on the legacy default stream, so a block released to the
 * cache is never reused before the kernels queued on it have run.
 *
 * gpu_cuda_backend() returns NULL, quietly, when no device is present.
 *
 * What each primitive takes (anything else: gpu_set_error + -1):
 *   copy, fill, arange, where, pad, gather, index_select, scatter, topk:
 *     float32, float64, float16, bfloat16, int64, int32, int16, int8,
 *     uint8, bool (copy: any pair of them)
 *   unary, binary: the same dtypes; the compute type is y's (float for
 *     the 16-bit floats), the operands' for the ops with a bool result;
 *     integer ops in int64 (bitwise ops: integers and bool only)
 *   reduce, cumulative: every dtype above (sum, prod, max, min, argmax,
 *     argmin, all, any, l1 of integers exact in int64; the rest in
 *     double)
 *   matmul, conv: float32, float64, float16, bfloat16 (cuBLAS; float32
 *     without TF32)
 *   pool, adaptive_pool, softmax, norms, resize: the four float dtypes
 */
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <unordered_map>

#include "cuda_int.h"

/* --- dtypes and geometry ------------------------------------------------- */

int cu_dtype_ok(enum ir_dtype dt)
{
	switch (dt) {
	case IR_DTYPE_FLOAT: case IR_DTYPE_DOUBLE: case IR_DTYPE_FLOAT16:
	case IR_DTYPE_BFLOAT16: case IR_DTYPE_INT64: case IR_DTYPE_INT32:
	case IR_DTYPE_INT16: case IR_DTYPE_INT8: case IR_DTYPE_UINT8:
	case IR_DTYPE_BOOL:
		return 1;
	default:
		return 0;
	}
}

int cu_is_float(enum ir_dtype dt)
{
	return dt == IR_DTYPE_FLOAT || dt == IR_DTYPE_DOUBLE ||
	       dt == IR_DTYPE_FLOAT16 || dt == IR_DTYPE_BFLOAT16;
}

cu_idx cu_geom(int rank, const int64_t *dims, const int64_t *strides)
{
	cu_idx g;
	memset(&g, 0, sizeof(g));
	g.rank = rank;
	for (int d = 0; d < rank; d++) {
		g.dims[d] = dims[d] > 0 ? dims[d] : 1;
		g.st[d] = strides[d];
	}
	return g;
}

cu_ten cu_view(const struct gpu_tensor *t)
{
	cu_ten v;
	v.p = (char *)t->storage->data +
	      t->offset * (int64_t)ir_dtype_size(t->dtype);
	v.dt = t->dtype;
	v.g = cu_geom(t->rank, t->dims, t->strides);
	return v;
}

unsigned cu_blocks(int64_t n)
{
	int64_t b = (n + CU_THREADS - 1) / CU_THREADS;
	if (b < 1)
		b = 1;
	if (b > (1 << 20))
		b = 1 << 20;
	return (unsigned)b;
}

int cu_require_out(const struct gpu_tensor *y, const char *what)
{
	if (!gpu_is_contiguous(y)) {
		gpu_set_error("cuda: %s: the output must be contiguous", what);
		return -1;
	}
	return 0;
}

/*
 * Merges the dims of `rank` (dims, per-operand strides) that every operand
 * walks contiguously, drops size-1 dims, and writes one geometry per
 * operand into g[] (all with the same merged dims).
 */
void cu_coalesce(int rank, const int64_t *dims, int nops,
			const int64_t *const *strides, cu_idx *g)
{
	int64_t md[GPU_MAX_DIMS], ms[4][GPU_MAX_DIMS];
	int r = 0;

	for (int d = 0; d < rank; d++) {
		if (dims[d] == 1)
			continue;
		int merge = r > 0;
		for (int k = 0; merge && k < nops; k++)
			if (ms[k][r - 1] != strides[k][d] * dims[d])
				merge = 0;
		if (merge) {
			md[r - 1] *= dims[d];
			for (int k = 0; k < nops; k++)
				ms[k][r - 1] = strides[k][d];
		} else {
			md[r] = dims[d];
			for (int k = 0; k < nops; k++)
				ms[k][r] = strides[k][d];
			r++;
		}
	}
	for (int k = 0; k < nops; k++)
		g[k] = cu_geom(r, md, ms[k]);
}

/* --- memory: a caching allocator over cudaMalloc ---------------------- */

static std::mutex cu_mem_mu;
static std::unordered_map<void *, size_t> cu_live;  /* pointer -> class */
static std::multimap<size_t, void *> cu_cache;      /* class -> free block */
static size_t cu_cached_bytes;
#define CU_CACHE_MAX ((size_t)8 << 30)

/* sizes rounded to 512 bytes, then to a quarter of their power of two */
static size_t cu_size_class(size_t n)
{
	if (n < 512)
		return 512;
	n = (n + 511) & ~(size_t)511;
	if (n <= ((size_t)1 << 20))
		return n;
	size_t p = (size_t)1 << (63 - __builtin_clzll(n));
	size_t q = p / 4;
	return (n + q - 1) / q * q;
}

static void cu_cache_drop_locked(void)
{
	for (auto &kv : cu_cache)
		cudaFree(kv.second);
	cu_cache.clear();
	cu_cached_bytes = 0;
}

void *cu_alloc(size_t bytes)
{
	size_t cls = cu_size_class(bytes);
	void *p = NULL;
	std::lock_guard<std::mutex> lk(cu_mem_mu);
	auto it = cu_cache.find(cls);
	if (it != cu_cache.end()) {
		p = it->second;
		cu_cache.erase(it);
		cu_cached_bytes -= cls;
	} else if (cudaMalloc(&p, cls) != cudaSuccess) {
		cudaGetLastError();
		cu_cache_drop_locked();
		p = NULL;
		if (cudaMalloc(&p, cls) != cudaSuccess) {
			cudaGetLastError();
			gpu_set_error("cuda: out of memory on the device (%zu bytes)",
				      bytes);
			return NULL;
		}
	}
	cu_live[p] = cls;
	return p;
}

void cu_release(void *p)
{
	if (!p)
		return;
	std::lock_guard<std::mutex> lk(cu_mem_mu);
	auto it = cu_live.find(p);
	if (it == cu_live.end())
		return; /* not ours: nothing sane to do */
	size_t cls = it->second;
	cu_live.erase(it);
	if (cu_cached_bytes + cls > CU_CACHE_MAX) {
		cudaFree(p);
		return;
	}
	cu_cache.emplace(cls, p);
	cu_cached_bytes += cls;
}

static int cu_upload(void *dst, const void *src, size_t bytes)
{
	if (!bytes)
		return 0;
	CU_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
	return 0;
}

static int cu_download(void *dst, const void *src, size_t bytes)
{
	if (!bytes)
		return 0;
	CU_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost));
	return 0;
}

/* the index-error flag of gather/scatter/index_select */
static int *cu_flag;

int *cu_flag_ptr(void)
{
	return cu_flag;
}

int cu_flag_reset(void)
{
	CU_CHECK(cudaMemset(cu_flag, 0, sizeof(int)));
	return 0;
}

int cu_flag_read(void)
{
	int v = 0;
	CU_CHECK(cudaMemcpy(&v, cu_flag, sizeof(int), cudaMemcpyDeviceToHost));
	return v != 0;
}

/* --- copy, fill, arange -------------------------------------------------- */

/* exact element moves when the dtypes agree (any dtype, by size) */
template <typename T>
__global__ void k_move(int64_t n, cu_ten x, cu_ten y)
{
	for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
	     i += (int64_t)gridDim.x * blockDim.x)
		((T *)y.p)[cu_off(y.g, i)] = ((const T *)x.p)[cu_off(x.g, i)];
}

template <typename C>
__global__ void k_convert(int64_t n, cu_ten x, cu_ten y)
{
	for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
	     i += (int64_t)gridDim.x * blockDim.x)
		cu_st<C>(y.p, y.dt, cu_off(y.g, i),
			 cu_ld<C>(x.p, x.dt, cu_off(x.g, i)));
}

static int cu_check_dt(enum ir_dtype dt, const char *what)
{
	if (!cu_dtype_ok(dt)) {
		gpu_set_error("cuda: %s: dtype %s is not supported", what,
			      ir_dtype_onnx_name(dt));
		return -1;
	}
	return 0;
}

int cu_copy(const struct gpu_tensor *x, struct gpu_tensor *y)
{
	int64_t n = gpu_numel(y);
	if (cu_check_dt(x->dtype, "copy") || cu_check_dt(y->dtype, "copy"))
		return -1;
	if (!cu_same_dims(x, y)) {
		gpu_set_error("cuda: copy: shapes differ (rank %d into %d)",
			      x->rank, y->rank);
		return -1;
	}
	if (!n)
		return 0;
	cu_ten xv = cu_view(x), yv = cu_view(y);
	const int64_t *st[2] = { x->strides, y->strides };
	cu_idx g[2];
	cu_coalesce(y->rank, y->dims, 2, st, g);
	xv.g = g[0];
	yv.g = g[1];
	unsigned nb = cu_blocks(n);
	if (x->dtype == y->dtype) {
		switch (ir_dtype_size(x->dtype)) {
		case 1: k_move<uint8_t><<<nb, CU_THREADS>>>(n, xv, yv); break;
		case 2: k_move<uint16_t><<<nb, CU_THREADS>>>(n, xv, yv); break;
		case 4: k_move<uint32_t><<<nb, CU_THREADS>>>(n, xv, yv); break;
		default: k_move<uint64_t><<<nb, CU_THREADS>>>(n, xv, yv); break;
		}
	} else if (x->dtype == IR_DTYPE_INT64 && !cu_is_float(y->dtype)) {
		k_convert<int64_t><<<nb, CU_THREADS>>>(n, xv, yv);
	} else if (cu_is_float(x->dtype) && !cu_is_float(y->dtype)) {
		/* float -> int truncates (through double: exact) */
		k_convert<double><<<nb, CU_THREADS>>>(n, xv, yv);
	} else if (!cu_is_float(x->dtype) && !cu_is_float(y->dtype)) {
		k_convert<int64_t><<<nb, CU_THREADS>>>(n, xv, yv);
	} else {
		k_convert<double><<<nb, CU_THREADS>>>(n, xv, yv);
	}
	CU_LAUNCHED();
	return 0;
}

template <typename C>
__global__ void k_fill(int64_t n, cu_ten y, C v)
{
	for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
	     i += (int64_t)gridDim.x * blockDim.x)
		cu_st<C>(y.p, y.dt, cu_off(y.g, i), v);
}

static int cu_fill(struct gpu_tensor *y, double v)
{
	int64_t n = gpu_numel(y);
	if (cu_check_dt(y->dtype, "fill"))
		return -1;
	if (!n)
		return 0;
	cu_ten yv = cu_view(y);
	const int64_t *st[1] = { y->strides };
	cu_coalesce(y->rank, y->dims, 1, st, &yv.g);
	if (cu_is_float(y->dtype) || y->dtype == IR_DTYPE_BOOL)
		k_fill<double><<<cu_blocks(n), CU_THREADS>>>(n, yv, v);
	else
		k_fill<int64_t><<<cu_blocks(n), CU_THREADS>>>(
			n, yv, std::isnan(v) ? 0 : (int64_t)v);
	CU_LAUNCHED();
	return 0;
}

__global__ void k_arange(int64_t n, cu_ten y, double start, double step)
{
	for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
	     i += (int64_t)gridDim.x * blockDim.x)
		cu_st<double>(y.p, y.dt, cu_off(y.g, i), start + (double)i * step);
}

static int cu_arange(struct gpu_tensor *y, double start, double step)
{
	int64_t n = gpu_numel(y);
	if (cu_check_dt(y->dtype, "arange"))
		return -1;
	if (!n)
		return 0;
	cu_ten yv = cu_view(y);
	int64_t d = n, s = y->rank ? y->strides[y->rank - 1] : 1;
	yv.g = cu_geom(1, &d, &s);
	k_arange<<<cu_blocks(n), CU_THREADS>>>(n, yv, start, step);
	CU_LAUNCHED();
	return 0;
}

/* --- unary --------------------------------------------------------------- */

template <typename C> __device__ static inline C u_sigmoid(C x)
{
	return (C)1 / ((C)1 + exp(-x));
}

template <typename C> __device__ static inline C u_relu6(C x)
{
	return x < (C)0 ? (C)0 : (x > (C)6 ? (C)6 : x);
}

template <typename C>
__device__ static inline C un_float(int op, C x, C a, C b)
{
	switch (op) {
	case GPU_NEG: return -x;
	case GPU_ABS: return fabs(x);
	case GPU_SIGN: return x != x ? x : (C)((x > 0) - (x < 0));
	case GPU_RECIPROCAL: return (C)1 / x;
	case GPU_SQRT: return sqrt(x);
	case GPU_RSQRT: return (C)1 / sqrt(x);
	case GPU_EXP: return exp(x);
	case GPU_EXPM1: return expm1(x);
	case GPU_LOG: return log(x);
	case GPU_LOG1P: return log1p(x);
	case GPU_LOG2: return log2(x);
	case GPU_LOG10: return log10(x);
	case GPU_SIN: return sin(x);
	case GPU_COS: return cos(x);
	case GPU_TAN: return tan(x);
	case GPU_ASIN: return asin(x);
	case GPU_ACOS: return acos(x);
	case GPU_ATAN: return atan(x);
	case GPU_SINH: return sinh(x);
	case GPU_COSH: return cosh(x);
	case GPU_TANH: return tanh(x);
	case GPU_ASINH: return asinh(x);
	case GPU_ACOSH: return acosh(x);
	case GPU_ATANH: return atanh(x);
	case GPU_ERF: return erf(x);
	case GPU_FLOOR: return floor(x);
	case GPU_CEIL: return ceil(x);
	case GPU_ROUND: return rint(x);
	case GPU_TRUNC: return trunc(x);
	case GPU_FRAC: return x - trunc(x);
	case GPU_NOT: return (C)(x == (C)0);
	case GPU_ISNAN: return (C)(x != x);
	case GPU_ISINF: return (C)(isinf(x) ? 1 : 0);
	case GPU_RELU: return x < (C)0 ? (C)0 : x;
	case GPU_SIGMOID: return u_sigmoid(x);
	case GPU_SILU: return x * u_sigmoid(x);
	case GPU_MISH: {
		C sp = x > (C)20 ? x : log1p(exp(x));
		return x * tanh(sp);
	}
	case GPU_SOFTSIGN: return x / ((C)1 + fabs(x));
	case GPU_GELU:
		if (a == (C)0)
			return (C)0.5 * x * ((C)1 + erf(x * (C)M_SQRT1_2));
		return (C)0.5 * x *
		       ((C)1 + tanh((C)(M_2_SQRTPI * M_SQRT1_2) *
				    (x + (C)0.044715 * x * x * x)));
	case GPU_LEAKY_RELU: return x > (C)0 ? x : x * a;
	case GPU_ELU: return x > (C)0 ? b * x : b * a * expm1(x);
	case GPU_CELU:
		return (x > (C)0 ? x : (C)0) +
		       (x > (C)0 ? (C)0 : a * expm1(x / a));
	case GPU_HARDTANH: return x < a ? a : (x > b ? b : x);
	case GPU_HARDSIGMOID: return u_relu6(x + (C)3) / (C)6;
	case GPU_HARDSWISH: return x * u_relu6(x + (C)3) / (C)6;
	case GPU_HARDSHRINK: return (x >= -a && x <= a) ? (C)0 : x;
	case GPU_SOFTSHRINK:
		return x > a ? x - a : (x < -a ? x + a : (C)0);
	case GPU_SOFTPLUS:
		return x * a > b ? x : log1p(exp(x * a)) / a;
	case GPU_THRESHOLD: return x > a ? x : b;
	case GPU_POW_SCALAR:
		if (a == (C)2)
			return x * x;
		return pow(x, a);
	case GPU_RPOW_SCALAR: return pow(a, x);
	case GPU_LOGIT: {
		C z = x;
		if (a >= (C)0)
			z = z < a ? a : (z > (C)1 - a ? (C)1 - a : z);
		return log(z / ((C)1 - z));
	}
	default: return x;
	}
}

__device__ static inline int64_t i_pow(int64_t x, int64_t e)
{
	if (e < 0)
		return x == 1 ? 1 : (x == -1 ? ((e & 1) ? -1 : 1) : 0);
	int64_t r = 1;
	while (e) {
		if (e & 1)
			r *= x;
		x *= x;
		e >>= 1;
	}
	return r;
}

/* the unary ops that mean something on integers (and bool) */
static int un_int_ok(int op)
{
	switch (op) {
	case GPU_NEG: case GPU_ABS: case GPU_SIGN: case GPU_NOT:
	case GPU_BITWISE_NOT: case GPU_ISNAN: case GPU_ISINF: case GPU_RELU:
	case GPU_HARDTANH: case GPU_POW_SCALAR: case GPU_FLOOR: case GPU_CEIL:
	case GPU_ROUND: case GPU_TRUNC: case GPU_THRESHOLD:
		return 1;
	default:
		return 0;
	}
}

__device__ static inline int64_t un_int(int op, int64_t x, double a, double b)
{
	switch (op) {
	case GPU_NEG: return -x;
	case GPU_ABS: return x < 0 ? -x : x;
	case GPU_SIGN: return (x > 0) - (x < 0);
	case GPU_NOT: return x == 0;
	case GPU_BITWISE_NOT: return ~x;
	case GPU_ISNAN: case GPU_ISINF: return 0;
	case GPU_RELU: return x < 0 ? 0 : x;
	case GPU_HARDTANH:
		return (double)x < a ? (int64_t)a :
		       ((double)x > b ? (int64_t)b : x);
	case GPU_THRESHOLD: return (double)x > a ? x : (int64_t)b;
	case GPU_POW_SCALAR: return i_pow(x, (int64_t)a);
	default: return x; /* floor, ceil, round, trunc */
	}
}

template <typename C>
__global__ void k_unary_f(int op, int64_t n, cu_ten x, cu_ten y, C a, C b)
{
	for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
	     i += (int64_t)gridDim.x * blockDim.x) {
		C v = cu_ld<C>(x.p, x.dt, cu_off(x.g, i));
		cu_st<C>(y.p, y.dt, cu_off(y.g, i), un_float<C>(op, v, a, b));
	}
}

__global__ void k_unary_i(int op, int64_t n, cu_ten x, cu_ten y, double a,
			  double b)
{
	for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
	     i += (int64_t)gridDim.x * blockDim.x) {
		int64_t v = cu_ld<int64_t>(x.p, x.dt, cu_off(x.g, i));
		cu_st<int64_t>(y.p, y.dt, cu_off(y.g, i), un_int(op, v, a, b));
	}
}

/* x and y as kernel arguments over y's dims, merged */
static void cu_pair(const struct gpu_tensor *x, const struct gpu_tensor *y,
		    cu_ten *xv, cu_ten *yv)
{
	const int64_t *st[2] = { x->strides, y->strides };
	cu_idx g[2];
	*xv = cu_view(x);
	*yv = cu_view(y);
	cu_coalesce(y->rank, y->dims, 2, st, g);
	xv->g = g[0];
	yv->g = g[1];
}

static int cu_unary(enum gpu_unary op, const struct gpu_tensor *x,
		    struct gpu_tensor *y, double a, double b)
{
	int64_t n = gpu_numel(y);
	if (cu_check_dt(x->dtype, "unary") || cu_check_dt(y->dtype, "unary"))
		return -1;
	if ((int)op < 0 || op >= GPU_UNARY_COUNT || !cu_same_dims(x, y)) {
		gpu_set_error("cuda: unary: bad op %d or ranks", (int)op);
		return -1;
	}
	if (!n)
		return 0;
	cu_ten xv, yv;
	cu_pair(x, y, &xv, &yv);
	unsigned nb = cu_blocks(n);
	/* the compute type, as the CPU backend: y's dtype, or x's for the
	 * ops with a bool result */
	int iop = op;
	if (op == GPU_BITWISE_NOT && y->dtype == IR_DTYPE_BOOL)
		iop = GPU_NOT;
	int bool_out = iop == GPU_NOT || iop == GPU_ISNAN || iop == GPU_ISINF;
	enum ir_dtype dt = bool_out ? x->dtype : y->dtype;
	if (dt == IR_DTYPE_DOUBLE) {
		k_unary_f<double><<<nb, CU_THREADS>>>(iop, n, xv, yv, a, b);
	} else if (cu_is_float(dt)) {
		if (iop == GPU_BITWISE_NOT) {
			gpu_set_error("cuda: bitwise_not of a float tensor");
			return -1;
		}
		k_unary_f<float><<<nb, CU_THREADS>>>(iop, n, xv, yv, (float)a,
						      (float)b);
	} else if (!un_int_ok(iop)) {
		/* the float ops on integers: computed in double */
		k_unary_f<double><<<nb, CU_THREADS>>>(iop, n, xv, yv, a, b);
	} else {
		k_unary_i<<<nb, CU_THREADS>>>(iop, n, xv, yv, a, b);
	}
	CU_LAUNCHED();
	return 0;
}

/* --- binary -------------------------------------------------------------- */

template <typename C> __device__ static inline C b_floordiv(C a, C b)
{
	if (b == (C)0)
		return a / b;
	C mod = fmod(a, b);
	C div = (a - mod) / b;
	if (mod != (C)0 && ((b < (C)0) != (mod < (C)0)))
		div -= (C)1;
	C fl;
	if (div != (C)0) {
		fl = floor(div);
		if (div - fl > (C)0.5)
			fl += (C)1;
	} else {
		fl = copysign((C)0, a / b);
	}
	return fl;
}

template <typename C>
__device__ static inline C b_float(int op, C a, C b)
{
	switch (op) {
	case GPU_ADD: return a + b;
	case GPU_SUB: return a - b;
	case GPU_MUL: return a * b;
	case GPU_DIV: return a / b;
	case GPU_FLOOR_DIV: return b_floordiv(a, b);
	case GPU_TRUNC_DIV: return trunc(a / b);
	case GPU_REMAINDER: {
		C m = fmod(a, b);
		if (m != (C)0 && ((b < (C)0) != (m < (C)0)))
			m += b;
		return m;
	}
	case GPU_FMOD: return fmod(a, b);
	case GPU_POW: return pow(a, b);
	case GPU_MAX: return a != a ? a : (b != b ? b : (a > b ? a : b));
	case GPU_MIN: return a != a ? a : (b != b ? b : (a < b ? a : b));
	case GPU_ATAN2: return atan2(a, b);
	case GPU_EQ: return (C)(a == b);
	case GPU_NE: return (C)(a != b);
	case GPU_LT: return (C)(a < b);
	case GPU_LE: return (C)(a <= b);
	case GPU_GT: return (C)(a > b);
	case GPU_GE: return (C)(a >= b);
	case GPU_LOGICAL_AND: return (C)(a != (C)0 && b != (C)0);
	case GPU_LOGICAL_OR: return (C)(a != (C)0 || b != (C)0);
	case GPU_LOGICAL_XOR: return (C)((a != (C)0) != (b != (C)0));
	default: return (C)0;
	}
}

/* integer division by zero raises flag 1, a negative power flag 2 */
__device__ static inline int64_t b_int(int op, int64_t a, int64_t b,
				       int *flag)
{
	if (!b && (op == GPU_DIV || op == GPU_TRUNC_DIV || op == GPU_FLOOR_DIV ||
		   op == GPU_REMAINDER || op == GPU_FMOD)) {
		atomicExch(flag, 1);
		return 0;
	}
	if (op == GPU_POW && b < 0 && a != 1 && a != -1) {
		atomicExch(flag, 2);
		return 0;
	}
	switch (op) {
	case GPU_ADD: return a + b;
	case GPU_SUB: return a - b;
	case GPU_MUL: return a * b;
	case GPU_DIV: case GPU_TRUNC_DIV: return b ? a / b : 0;
	case GPU_FLOOR_DIV: {
		if (!b)
			return 0;
		int64_t q = a / b;
		if ((a % b != 0) && ((a < 0) != (b < 0)))
			q--;
		return q;
	}
	case GPU_REMAINDER: {
		if (!b)
			return 0;
		int64_t r = a % b;
		if (r != 0 && ((r < 0) != (b < 0)))
			r += b;
		return r;
	}
	case GPU_FMOD: return b ? a % b : 0;
	case GPU_POW: return i_pow(a, b);
	case GPU_MAX: return a > b ? a : b;
	case GPU_MIN: return a < b ? a : b;
	case GPU_EQ: return a == b;
	case GPU_NE: return a != b;
	case GPU_LT: return a < b;
	case GPU_LE: return a <= b;
	case GPU_GT: return a > b;
	case GPU_GE: return a >= b;
	case GPU_LOGICAL_AND: return a && b;
	case GPU_LOGICAL_OR: return a || b;
	case GPU_LOGICAL_XOR: return (a != 0) != (b != 0);
	case GPU_BITWISE_AND: return a & b;
	case GPU_BITWISE_OR: return a | b;
	case GPU_BITWISE_XOR: return a ^ b;
	default: return 0;
	}
}

template <typename C>
__global__ void k_binary_f(int op, int64_t n, cu_ten a, cu_ten b, cu_ten y)
{
	for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
	     i += (int64_t)gridDim.x * blockDim.x) {
		C u = cu_ld<C>(a.p, a.dt, cu_off(a.g, i));
		C v = cu_ld<C>(b.p, b.dt, cu_off(b.g, i));
		cu_st<C>(y.p, y.dt, cu_off(y.g, i), b_float<C>(op, u, v));
	}
}

__global__ void k_binary_i(int op, int64_t n, cu_ten a, cu_ten b, cu_ten y,
			   int *flag)
{
	for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
	     i += (int64_t)gridDim.x * blockDim.x) {
		int64_t u = cu_ld<int64_t>(a.p, a.dt, cu_off(a.g, i));
		int64_t v = cu_ld<int64_t>(b.p, b.dt, cu_off(b.g, i));
		cu_st<int64_t>(y.p, y.dt, cu_off(y.g, i), b_int(op, u, v, flag));
	}
}

static int cu_binary(enum gpu_binary op, const struct gpu_tensor *a,
		     const struct gpu_tensor *b, struct gpu_tensor *y)
{
	int64_t n = gpu_numel(y);
	if (cu_check_dt(a->dtype, "binary") || cu_check_dt(b->dtype, "binary") ||
	    cu_check_dt(y->dtype, "binary"))
		return -1;
	if ((int)op < 0 || op >= GPU_BINARY_COUNT || !cu_same_dims(a, y) ||
	    !cu_same_dims(b, y)) {
		gpu_set_error("cuda: binary: bad op %d or ranks", (int)op);
		return -1;
	}
	/* the compute type, as the CPU backend: y's dtype, or for the ops
	 * with a bool result the operands' (the wider class when mixed) */
	int bool_out = op >= GPU_EQ && op <= GPU_LOGICAL_XOR;
	enum ir_dtype dt = bool_out ? a->dtype : y->dtype;
	if (bool_out && a->dtype != b->dtype)
		dt = cu_is_float(a->dtype) || cu_is_float(b->dtype) ?
		     IR_DTYPE_DOUBLE : IR_DTYPE_INT64;
	int fl = cu_is_float(dt);
	if (fl && (op == GPU_BITWISE_AND || op == GPU_BITWISE_OR ||
		   op == GPU_BITWISE_XOR)) {
		gpu_set_error("cuda: bitwise op on a float tensor");
		return -1;
	}
	if (!n)
		return 0;
	const int64_t *st[3] = { a->strides, b->strides, y->strides };
	cu_idx g[3];
	cu_ten av = cu_view(a), bv = cu_view(b), yv = cu_view(y);
	cu_coalesce(y->rank, y->dims, 3, st, g);
	av.g = g[0];
	bv.g = g[1];
	yv.g = g[2];
	unsigned nb = cu_blocks(n);
	if (dt == IR_DTYPE_DOUBLE) {
		k_binary_f<double><<<nb, CU_THREADS>>>(op, n, av, bv, yv);
	} else if (fl) {
		k_binary_f<float><<<nb, CU_THREADS>>>(op, n, av, bv, yv);
	} else if (op == GPU_ATAN2) {
		k_binary_f<double><<<nb, CU_THREADS>>>(op, n, av, bv, yv);
	} else {
		int check = op == GPU_DIV || op == GPU_TRUNC_DIV ||
			    op == GPU_FLOOR_DIV || op == GPU_REMAINDER ||
			    op == GPU_FMOD || op == GPU_POW;
		if (check && cu_flag_reset())
			return -1;
		k_binary_i<<<nb, CU_THREADS>>>(op, n, av, bv, yv, cu_flag_ptr());
		CU_LAUNCHED();
		if (check) {
			int f = 0;
			CU_CHECK(cudaMemcpy(&f, cu_flag_ptr(), sizeof(int),
					    cudaMemcpyDeviceToHost));
			if (f == 1) {
				gpu_set_error("integer division by zero");
				return -1;
			}
			if (f == 2) {
				gpu_set_error("integers to negative integer powers are not allowed");
				return -1;
			}
		}
	}
	CU_LAUNCHED();
	return 0;
}

/* --- where --------------------------------------------------------------- */

template <typename C>
__global__ void k_where(int64_t n, cu_ten c, cu_ten a, cu_ten b, cu_ten y)
{
	for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
	     i += (int64_t)gridDim.x * blockDim.x) {
		int64_t cv = cu_ld<int64_t>(c.p, c.dt, cu_off(c.g, i));
		C v = cv ? cu_ld<C>(a.p, a.dt, cu_off(a.g, i)) :
			   cu_ld<C>(b.p, b.dt, cu_off(b.g, i));
		cu_st<C>(y.p, y.dt, cu_off(y.g, i), v);
	}
}

static int cu_where(const struct gpu_tensor *cond, const struct gpu_tensor *a,
		    const struct gpu_tensor *b, struct gpu_tensor *y)
{
	int64_t n = gpu_numel(y);
	if (cu_check_dt(cond->dtype, "where") || cu_check_dt(a->dtype, "where") ||
	    cu_check_dt(b->dtype, "where") || cu_check_dt(y->dtype, "where"))
		return -1;
	if (!cu_same_dims(cond, y) || !cu_same_dims(a, y) ||
	    !cu_same_dims(b, y)) {
		gpu_set_error("cuda: where: operands not broadcast to the output");
		return -1;
	}
	if (!n)
		return 0;
	const int64_t *st[4] = { cond->strides, a->strides, b->strides,
				 y->strides };
	cu_idx g[4];
	cu_ten cv = cu_view(cond), av = cu_view(a), bv = cu_view(b),
	       yv = cu_view(y);
	cu_coalesce(y->rank, y->dims, 4, st, g);
	cv.g = g[0];
	av.g = g[1];
	bv.g = g[2];
	yv.g = g[3];
	if (cu_is_float(y->dtype))
		k_where<double><<<cu_blocks(n), CU_THREADS>>>(n, cv, av, bv, yv);
	else
		k_where<int64_t><<<cu_blocks(n), CU_THREADS>>>(n, cv, av, bv, yv);
	CU_LAUNCHED();
	return 0;
}

/* --- reduce -------------------------------------------------------------- */

template <typename A> __device__ static inline A r_lowest(void);
template <> __device__ inline double r_lowest<double>(void) { return -INFINITY; }
template <> __device__ inline int64_t r_lowest<int64_t>(void) { return INT64_MIN; }
template <typename A> __device__ static inline A r_highest(void);
template <> __device__ inline double r_highest<double>(void) { return INFINITY; }
template <> __device__ inline int64_t r_highest<int64_t>(void) { return INT64_MAX; }

template <typename A> __device__ static inline bool r_nan(A v) { return v != v; }

/* the accumulator's start for op (pass 1; pass 2 always sums) */
template <typename A> __device__ static inline A r_ident(int op)
{
	switch (op) {
	case GPU_RPROD: case GPU_RALL: return (A)1;
	case GPU_RMAX: case GPU_RARGMAX: case GPU_RLOGSUMEXP:
		return r_lowest<A>();
	case GPU_RMIN: case GPU_RARGMIN: return r_highest<A>();
	default: return (A)0;
	}
}

/* folds (w, j) into (v, i) */
template <typename A>
__device__ static inline void r_fold(int op, A &v, int64_t &i, A w, int64_t j)
{
	switch (op) {
	case GPU_RPROD: v *= w; break;
	case GPU_RMAX: case GPU_RLOGSUMEXP:
		if (!r_nan(v) && (r_nan(w) || w > v))
			v = w;
		break;
	case GPU_RMIN:
		if (!r_nan(v) && (r_nan(w) || w < v))
			v = w;
		break;
	case GPU_RARGMAX: case GPU_RARGMIN: {
		bool vn = r_nan(v), wn = r_nan(w), take;
		if (vn || wn)
			take = wn && (!vn || j < i);
		else if (w == v)
			take = j < i;
		else
			take = op == GPU_RARGMAX ? w > v : w < v;
		if (take) {
			v = w;
			i = j;
		}
		break;
	}
	case GPU_RALL: v = (v != (A)0 && w != (A)0) ? (A)1 : (A)0; break;
	case GPU_RANY: v = (v != (A)0 || w != (A)0) ? (A)1 : (A)0; break;
	default: v += w; break;
	}
}

/* element x of pass 1 (or 2, around m) as the value folded */
template <typename A>
__device__ static inline A r_map(int op, int pass, A x, A m)
{
	if (pass == 2) {
		if (op == GPU_RLOGSUMEXP)
			return (A)exp((double)(x - m));
		A d = x - m;
		return d * d; /* var */
	}
	switch (op) {
	case GPU_RL1: return x < (A)0 ? -x : x;
	case GPU_RL2: return x * x;
	case GPU_RALL: case GPU_RANY: return x != (A)0 ? (A)1 : (A)0;
	default: return x;
	}
}

/*
 * One group of G threads per output element (G = 1, 32 or 256; 256/G
 * outputs per block).  Outer index o walks y's elements (the kept dims of
 * x, geometry xo); inner index j walks the reduced dims (geometry xi).
 */
template <typename A, int G>
__global__ void k_reduce(int op, int64_t nout, int64_t nred, cu_ten x,
			 cu_idx xo, cu_idx xi, cu_ten y, double param)
{
	__shared__ A sv[CU_THREADS];
	__shared__ int64_t si[CU_THREADS];
	const int per = CU_THREADS / G;
	int grp = threadIdx.x / G, lane = threadIdx.x % G;
	bool two = op == GPU_RLOGSUMEXP || op == GPU_RVAR;

	for (int64_t base = (int64_t)blockIdx.x * per; base < nout;
	     base += (int64_t)gridDim.x * per) {
		int64_t o = base + grp;
		bool act = o < nout;
		int64_t ob = act ? cu_off(xo, o) : 0;
		A m = 0, res = 0;
		for (int pass = 1; pass <= (two ? 2 : 1); pass++) {
			int fop = pass == 2 ? GPU_RSUM :
				  (op == GPU_RVAR ? GPU_RSUM : op);
			A v = r_ident<A>(fop);
			int64_t vi = INT64_MAX;
			if (act)
				for (int64_t j = lane; j < nred; j += G) {
					A e = cu_ld<A>(x.p, x.dt,
						       ob + cu_off(xi, j));
					r_fold<A>(fop, v, vi,
						  r_map<A>(op, pass, e, m), j);
				}
			sv[threadIdx.x] = v;
			si[threadIdx.x] = vi;
			__syncthreads();
			for (int s = G / 2; s > 0; s >>= 1) {
				if (lane < s) {
					A w = sv[threadIdx.x + s];
					int64_t wi = si[threadIdx.x + s];
					A u = sv[threadIdx.x];
					int64_t ui = si[threadIdx.x];
					r_fold<A>(fop, u, ui, w, wi);
					sv[threadIdx.x] = u;
					si[threadIdx.x] = ui;
				}
				__syncthreads();
			}
			A r = sv[grp * G];
			int64_t ri = si[grp * G];
			__syncthreads();
			if (pass == 1 && two) {
				if (op == GPU_RVAR)
					m = nred ? r / (A)nred : (A)0;
				else
					m = isinf((double)r) ? (A)0 : r;
			}
			if (pass == 1 && (op == GPU_RARGMAX || op == GPU_RARGMIN))
				res = (A)(ri == INT64_MAX ? 0 : ri);
			else
				res = r;
		}
		if (act && lane == 0) {
			int64_t yo = cu_off(y.g, o);
			switch (op) {
			case GPU_RMEAN:
				cu_st<double>(y.p, y.dt, yo,
					      (double)res / (double)nred);
				break;
			case GPU_RL2:
				cu_st<double>(y.p, y.dt, yo, sqrt((double)res));
				break;
			case GPU_RLOGSUMEXP:
				cu_st<double>(y.p, y.dt, yo,
					      log((double)res) + (double)m);
				break;
			case GPU_RVAR: {
				double dof = (double)nred - param;
				cu_st<double>(y.p, y.dt, yo,
					      (double)res / (dof > 0 ? dof : 0));
				break;
			}
			case GPU_RARGMAX: case GPU_RARGMIN:
				cu_st<int64_t>(y.p, y.dt, yo, (int64_t)res);
				break;
			default:
				cu_st<A>(y.p, y.dt, yo, res);
				break;
			}
		}
	}
}

template <typename A>
static void cu_reduce_launch(int op, int64_t nout, int64_t nred, cu_ten xv,
			     cu_idx xo, cu_idx xi, cu_ten yv, double param)
{
	if (nred <= 16) {
		unsigned nb = cu_blocks(nout);
		k_reduce<A, 1><<<nb, CU_THREADS>>>(op, nout, nred, xv, xo, xi,
						    yv, param);
	} else if (nred <= 4096 || nout >= 1024) {
		unsigned nb = cu_blocks((nout + 7) / 8 * CU_THREADS);
		k_reduce<A, 32><<<nb, CU_THREADS>>>(op, nout, nred, xv, xo, xi,
						     yv, param);
	} else {
		unsigned nb = cu_blocks(nout * CU_THREADS);
		k_reduce<A, CU_THREADS><<<nb, CU_THREADS>>>(
			op, nout, nred, xv, xo, xi, yv, param);
	}
}

static int cu_reduce(enum gpu_reduce op, const struct gpu_tensor *x,
		     uint32_t axes_mask, double param, struct gpu_tensor *y)
{
	if (cu_check_dt(x->dtype, "reduce") || cu_check_dt(y->dtype, "reduce"))
		return -1;
	if ((int)op < 0 || op >= GPU_REDUCE_COUNT || x->rank != y->rank) {
		gpu_set_error("cuda: reduce: bad op %d or ranks", (int)op);
		return -1;
	}
	int64_t od[GPU_MAX_DIMS], os[GPU_MAX_DIMS], rd[GPU_MAX_DIMS],
		rs[GPU_MAX_DIMS];
	int no = 0, nr = 0;
	int64_t nout = 1, nred = 1;
	for (int d = 0; d < x->rank; d++) {
		if (axes_mask & (1u << d)) {
			rd[nr] = x->dims[d];
			rs[nr++] = x->strides[d];
			nred *= x->dims[d];
		} else {
			if (y->dims[d] != x->dims[d]) {
				gpu_set_error("cuda: reduce: output dim %d is %lld, not %lld",
					      d, (long long)y->dims[d],
					      (long long)x->dims[d]);
				return -1;
			}
			od[no] = x->dims[d];
			os[no++] = x->strides[d];
			nout *= x->dims[d];
		}
	}
	if (!nout)
		return 0;
	cu_ten xv = cu_view(x), yv = cu_view(y);
	cu_idx xo = cu_geom(no, od, os), xi = cu_geom(nr, rd, rs);
	int intacc = !cu_is_float(x->dtype) &&
		     (op == GPU_RSUM || op == GPU_RPROD || op == GPU_RMAX ||
		      op == GPU_RMIN || op == GPU_RARGMAX || op == GPU_RARGMIN ||
		      op == GPU_RALL || op == GPU_RANY || op == GPU_RL1);
	if (intacc)
		cu_reduce_launch<int64_t>(op, nout, nred, xv, xo, xi, yv, param);
	else
		cu_reduce_launch<double>(op, nout, nred, xv, xo, xi, yv, param);
	CU_LAUNCHED();
	return 0;
}

/* --- cumulative (one thread per line) ------------------------------------ */

template <typename A>
__global__ void k_cumulative(int64_t nlines, int64_t len, cu_ten x,
			     int64_t xs, cu_ten y, int64_t ys, int prod,
			     int reverse)
{
	for (int64_t l = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
	     l < nlines; l += (int64_t)gridDim.x * blockDim.x) {
		int64_t xb = cu_off(x.g, l), yb = cu_off(y.g, l);
		A acc = prod ? (A)1 : (A)0;
		for (int64_t k = 0; k < len; k++) {
			int64_t j = reverse ? len - 1 - k : k;
			A v = cu_ld<A>(x.p, x.dt, xb + j * xs);
			acc = prod ? acc * v : acc + v;
			cu_st<A>(y.p, y.dt, yb + j * ys, acc);
		}
	}
}

static int cu_cumulative(const struct gpu_tensor *x, int axis, int prod,
			 int reverse, struct gpu_tensor *y)
{
	if (cu_check_dt(x->dtype, "cumulative") ||
	    cu_check_dt(y->dtype, "cumulative"))
		return -1;
	axis = cu_axis(axis, x->rank);
	if (!cu_same_dims(x, y) || axis < 0) {
		gpu_set_error("cuda: cumulative: bad axis %d", axis);
		return -1;
	}
	int64_t n = gpu_numel(y);
	if (!n)
		return 0;
	int64_t od[GPU_MAX_DIMS], xs[GPU_MAX_DIMS], ysd[GPU_MAX_DIMS];
	int r = 0;
	for (int d = 0; d < x->rank; d++) {
		if (d == axis)
			continue;
		od[r] = x->dims[d];
		xs[r] = x->strides[d];
		ysd[r++] = y->strides[d];
	}
	int64_t len = x->rank ? x->dims[axis] : 1;
	int64_t xa = x->rank ? x->strides[axis] : 0;
	int64_t ya = y->rank ? y->strides[axis] : 0;
	cu_ten xv = cu_view(x), yv = cu_view(y);
	xv.g = cu_geom(r, od, xs);
	yv.g = cu_geom(r, od, ysd);
	int64_t nlines = n / len;
	if (cu_is_float(x->dtype) || cu_is_float(y->dtype))
		k_cumulative<double><<<cu_blocks(nlines), CU_THREADS>>>(
			nlines, len, xv, xa, yv, ya, prod, reverse);
	else
		k_cumulative<int64_t><<<cu_blocks(nlines), CU_THREADS>>>(
			nlines, len, xv, xa, yv, ya, prod, reverse);
	CU_LAUNCHED();
	return 0;
}

/* --- the table ------------------------------------------------------------ */

static struct gpu_backend cu_table;
static int cu_present;

static void cu_init(void)
{
	int n = 0;
	if (cudaGetDeviceCount(&n) != cudaSuccess || n <= 0) {
		cudaGetLastError();
		return;
	}
	if (cudaMalloc((void **)&cu_flag, sizeof(int)) != cudaSuccess) {
		cudaGetLastError();
		return;
	}
	cudaMemset(cu_flag, 0, sizeof(int));
	cu_table.id = GPU_BACKEND_CUDA;
	cu_table.name = "cuda";
	cu_table.alloc = cu_alloc;
	cu_table.release = cu_release;
	cu_table.upload = cu_upload;
	cu_table.download = cu_download;
	cu_table.copy = cu_copy;
	cu_table.fill = cu_fill;
	cu_table.arange = cu_arange;
	cu_table.unary = cu_unary;
	cu_table.binary = cu_binary;
	cu_table.where = cu_where;
	cu_table.reduce = cu_reduce;
	cu_table.cumulative = cu_cumulative;
	cu_table.matmul = cu_matmul;
	cu_table.conv = cu_conv;
	cu_table.pool = cu_pool;
	cu_table.adaptive_pool = cu_adaptive_pool;
	cu_table.softmax = cu_softmax;
	cu_table.batch_norm = cu_batch_norm;
	cu_table.group_norm = cu_group_norm;
	cu_table.layer_norm = cu_layer_norm;
	cu_table.gather = cu_gather;
	cu_table.index_select = cu_index_select;
	cu_table.scatter = cu_scatter;
	cu_table.topk = cu_topk;
	cu_table.pad = cu_pad;
	cu_table.resize = cu_resize;
	cu_present = 1;
}

extern "C" const struct gpu_backend *gpu_cuda_backend(void)
{
	static std::once_flag once;
	std::call_once(once, cu_init);
	return cu_present ? &cu_table : NULL;
}

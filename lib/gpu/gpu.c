/*
 * gpu.c - backend registry and backend-independent tensor handling (see
 * gpu.h): tensor views over refcounted storages, host transfers, the
 * thread-local error message and the CPU thread count.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cblas.h>

#include "gpu.h"
#include "gpu_int.h"
#include "rlimits.h"

static _Thread_local char gpu_err[512];

void gpu_set_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(gpu_err, sizeof(gpu_err), fmt, ap);
	va_end(ap);
}

const char *gpu_last_error(void)
{
	return gpu_err[0] ? gpu_err : "unknown error";
}

/* --- tensors ------------------------------------------------------------ */

int64_t gpu_numel(const struct gpu_tensor *t)
{
	int64_t n = 1;

	for (int i = 0; i < t->rank; i++)
		n *= t->dims[i];
	return n;
}

void gpu_contiguous_strides(int rank, const int64_t *dims, int64_t *strides)
{
	uint64_t s = 1;	/* unsigned: a shape with a zero dim may have
			   other dims whose product overflows; its strides
			   are never used to address an element */

	for (int i = rank - 1; i >= 0; i--) {
		strides[i] = (int64_t)s;
		s *= dims[i] > 0 ? (uint64_t)dims[i] : 1;
	}
}

int gpu_is_contiguous(const struct gpu_tensor *t)
{
	int64_t s = 1;

	for (int i = t->rank - 1; i >= 0; i--) {
		if (t->dims[i] == 0)
			return 1;
		if (t->dims[i] != 1 && t->strides[i] != s)
			return 0;
		s *= t->dims[i];
	}
	return 1;
}

static struct gpu_tensor *tensor_new(struct gpu_storage *st,
				     enum ir_dtype dt, int rank,
				     const int64_t *dims,
				     const int64_t *strides, int64_t offset)
{
	struct gpu_tensor *t;

	if (rank < 0 || rank > GPU_MAX_DIMS) {
		gpu_set_error("rank %d: at most %d dims", rank, GPU_MAX_DIMS);
		return NULL;
	}
	t = calloc(1, sizeof(*t));
	if (!t) {
		gpu_set_error("out of memory");
		return NULL;
	}
	t->dtype = dt;
	t->rank = rank;
	for (int i = 0; i < rank; i++)
		t->dims[i] = dims[i];
	if (strides)
		for (int i = 0; i < rank; i++)
			t->strides[i] = strides[i];
	else
		gpu_contiguous_strides(rank, dims, t->strides);
	t->offset = offset;
	t->storage = st;
	return t;
}

static void storage_put(struct gpu_storage *st)
{
	if (!st || --st->refs > 0)
		return;
	if (!st->borrowed && st->data)
		st->be->release(st->data);
	free(st);
}

struct gpu_tensor *gpu_empty(const struct gpu_backend *be, enum ir_dtype dt,
			     int rank, const int64_t *dims)
{
	struct gpu_storage *st;
	struct gpu_tensor *t;
	size_t esz = ir_dtype_size(dt), n = 1, span = 1;

	if (!be) {
		gpu_set_error("no backend");
		return NULL;
	}
	if (!esz) {
		gpu_set_error("gpu_empty: dtype %s has no element size",
			      ir_dtype_torch_name(dt));
		return NULL;
	}
	if (rank < 0 || rank > GPU_MAX_DIMS) {
		gpu_set_error("rank %d: at most %d dims", rank, GPU_MAX_DIMS);
		return NULL;
	}
	for (int i = 0; i < rank; i++) {
		if (dims[i] < 0) {
			gpu_set_error("negative dimension %lld",
				      (long long)dims[i]);
			return NULL;
		}
		if (dims[i] && n > SIZE_MAX / esz / (size_t)dims[i]) {
			gpu_set_error("tensor too large");
			return NULL;
		}
		n *= (size_t)dims[i];
		/* the dims other than zeros must fit too: strides and index
		   arithmetic multiply them even when the tensor is empty */
		if (dims[i] > 1) {
			if (span > (size_t)INT64_MAX / esz / (size_t)dims[i]) {
				gpu_set_error("tensor too large");
				return NULL;
			}
			span *= (size_t)dims[i];
		}
	}
	if (n * esz > LIMIT_TRACE_TENSOR_BYTES) {
		gpu_set_error("a tensor of %zu bytes: over the limit of %llu",
			      n * esz, (unsigned long long)
			      LIMIT_TRACE_TENSOR_BYTES);
		return NULL;
	}
	st = calloc(1, sizeof(*st));
	if (!st) {
		gpu_set_error("out of memory");
		return NULL;
	}
	st->be = be;
	st->bytes = n * esz;
	st->refs = 1;
	st->data = be->alloc(st->bytes ? st->bytes : esz);
	if (!st->data) {
		free(st);
		gpu_set_error("out of %s memory allocating %zu bytes",
			      be->name, n * esz);
		return NULL;
	}
	t = tensor_new(st, dt, rank, dims, NULL, 0);
	if (!t)
		storage_put(st);
	return t;
}

struct gpu_tensor *gpu_view(const struct gpu_tensor *t, int rank,
			    const int64_t *dims, const int64_t *strides,
			    int64_t offset)
{
	struct gpu_tensor *v;
	uint64_t n = 1;

	/* a view is free, but every kernel walks its elements: one that
	 * claims more elements than the limit on a tensor's bytes (an
	 * expand to [1e9, 1e9, ...]) is refused, before numel overflows */
	for (int i = 0; i < rank && i < GPU_MAX_DIMS; i++) {
		if (dims[i] < 0 ||
		    __builtin_mul_overflow(n, (uint64_t)dims[i], &n) ||
		    n > LIMIT_TRACE_TENSOR_BYTES) {
			gpu_set_error("a view of more than %llu elements: over "
				      "the limit", (unsigned long long)
				      LIMIT_TRACE_TENSOR_BYTES);
			return NULL;
		}
	}
	v = tensor_new(t->storage, t->dtype, rank, dims, strides, offset);
	if (v)
		t->storage->refs++;
	return v;
}

struct gpu_tensor *gpu_from_host(const struct gpu_backend *be,
				 enum ir_dtype dt, int rank,
				 const int64_t *dims, const int64_t *strides,
				 const void *data, size_t bytes)
{
	struct gpu_storage *st;
	struct gpu_tensor *t;

	if (!be) {
		gpu_set_error("no backend");
		return NULL;
	}
	/* a storage at an offset of the archive that is not a multiple of
	 * its element size (torch reads such archives) is copied into an
	 * aligned buffer: the kernels load elements as their C types */
	size_t align = ir_dtype_size(dt);
	if (align > 16 || !align)
		align = 16;
	if (be->id == GPU_BACKEND_CPU && (uintptr_t)data % align == 0) {
		st = calloc(1, sizeof(*st));
		if (!st) {
			gpu_set_error("out of memory");
			return NULL;
		}
		st->be = be;
		st->data = (void *)data;
		st->bytes = bytes;
		st->refs = 1;
		st->borrowed = 1;
		t = tensor_new(st, dt, rank, dims, strides, 0);
		if (!t)
			storage_put(st);
		return t;
	}
	st = calloc(1, sizeof(*st));
	if (!st) {
		gpu_set_error("out of memory");
		return NULL;
	}
	st->be = be;
	st->bytes = bytes;
	st->refs = 1;
	st->data = be->alloc(bytes ? bytes : 1);
	if (!st->data) {
		free(st);
		gpu_set_error("out of %s memory allocating %zu bytes",
			      be->name, bytes);
		return NULL;
	}
	if (bytes && be->upload(st->data, data, bytes)) {
		storage_put(st);
		return NULL;
	}
	t = tensor_new(st, dt, rank, dims, strides, 0);
	if (!t)
		storage_put(st);
	return t;
}

void gpu_free(struct gpu_tensor *t)
{
	if (!t)
		return;
	storage_put(t->storage);
	free(t);
}

struct gpu_tensor *gpu_contiguous(struct gpu_tensor *t)
{
	struct gpu_tensor *y;
	const struct gpu_backend *be = t->storage->be;

	if (gpu_is_contiguous(t))
		return gpu_view(t, t->rank, t->dims, t->strides, t->offset);
	y = gpu_empty(be, t->dtype, t->rank, t->dims);
	if (!y)
		return NULL;
	if (be->copy(t, y)) {
		gpu_free(y);
		return NULL;
	}
	return y;
}

int gpu_to_host(const struct gpu_tensor *t, enum ir_dtype as, void *dst)
{
	const struct gpu_backend *be = t->storage->be;
	struct gpu_tensor *c, host;
	struct gpu_storage hs;
	int64_t n = gpu_numel(t);
	size_t esz = ir_dtype_size(t->dtype);
	int rc;

	if (as == IR_DTYPE_UNDEFINED)
		as = t->dtype;
	if (n == 0)
		return 0;
	if (be->id == GPU_BACKEND_CPU) {
		/* convert straight into dst */
		memset(&hs, 0, sizeof(hs));
		hs.be = be;
		hs.data = dst;
		hs.bytes = (size_t)n * ir_dtype_size(as);
		hs.refs = 1;
		hs.borrowed = 1;
		host = *t;
		host.dtype = as;
		host.storage = &hs;
		host.offset = 0;
		gpu_contiguous_strides(t->rank, t->dims, host.strides);
		return be->copy(t, &host);
	}
	/* device: make a contiguous tensor of dtype `as` there, download */
	c = gpu_empty(be, as, t->rank, t->dims);
	if (!c)
		return -1;
	rc = be->copy(t, c);
	if (!rc)
		rc = be->download(dst, c->storage->data, (size_t)n *
				  ir_dtype_size(as));
	(void)esz;
	gpu_free(c);
	return rc;
}

static int item_fetch(const struct gpu_tensor *t, int64_t i,
		      enum ir_dtype as, void *out)
{
	struct gpu_tensor one = *t;
	int64_t off = t->offset, n = gpu_numel(t);

	if (i < 0 || i >= n) {
		gpu_set_error("item %lld of %lld elements", (long long)i,
			      (long long)n);
		return -1;
	}
	for (int d = t->rank - 1; d >= 0; d--) {
		int64_t k = i % t->dims[d];

		i /= t->dims[d];
		off += k * t->strides[d];
	}
	one.rank = 0;
	one.offset = off;
	return gpu_to_host(&one, as, out);
}

double gpu_item_double(const struct gpu_tensor *t, int64_t i)
{
	double v = 0;

	if (item_fetch(t, i, IR_DTYPE_DOUBLE, &v))
		return 0;
	return v;
}

int64_t gpu_item_int(const struct gpu_tensor *t, int64_t i)
{
	int64_t v = 0;

	if (item_fetch(t, i, IR_DTYPE_INT64, &v))
		return 0;
	return v;
}

/* --- backends ----------------------------------------------------------- */

const char *gpu_backend_name(enum gpu_backend_id b)
{
	switch (b) {
	case GPU_BACKEND_CPU:
		return "cpu";
	case GPU_BACKEND_CUDA:
		return "cuda";
	default:
		return "unknown";
	}
}

const struct gpu_backend *gpu_backend_get(enum gpu_backend_id b)
{
	switch (b) {
	case GPU_BACKEND_CPU:
		return gpu_cpu_backend();
#ifdef PT2ONNX_HAVE_CUDA
	case GPU_BACKEND_CUDA:
		return gpu_cuda_backend();
#endif
	default:
		return NULL;
	}
}

int gpu_backend_available(enum gpu_backend_id b)
{
	return gpu_backend_get(b) != NULL;
}

/* The estimates of gpu_auto_backend, calibrated on a 16-core H100
 * machine (issue 17): a 680M-parameter GPT (2.73 GB, batch 1) traced in
 * 0.67 s on the CPU and 0.9-1.4 s on CUDA; resnet50 (0.1 GB) in 0.18 s
 * and 0.49 s. */
#define AUTO_CUDA_START_S 0.3       /* CUDA's context and first kernels */
#define AUTO_CPU_BPS_THREAD 0.25e9  /* weight bytes x batch per s, a thread */
#define AUTO_H2D_BPS 3e9            /* weights to the device, from a file */
#define AUTO_GPU_BPS 50e9           /* weight bytes x batch per s on CUDA */

enum gpu_backend_id gpu_auto_backend(uint64_t weight_bytes, int64_t batch,
				     int threads, int cuda_present,
				     char *why, size_t n)
{
	double work = (double)weight_bytes * (double)(batch > 1 ? batch : 1);
	double cpu = work / (AUTO_CPU_BPS_THREAD * (threads > 1 ? threads : 1));
	double cuda = AUTO_CUDA_START_S + (double)weight_bytes / AUTO_H2D_BPS +
		      work / AUTO_GPU_BPS;
	enum gpu_backend_id b = cuda_present && cuda < cpu ? GPU_BACKEND_CUDA
							   : GPU_BACKEND_CPU;

	if (why && n)
		snprintf(why, n, "auto: %s; %.1f MB of weights, batch %lld, "
			 "estimated cpu %.3f s on %d threads, cuda %.3f s "
			 "with %.1f s start-up",
			 !cuda_present ? "no CUDA device, the CPU" :
			 b == GPU_BACKEND_CUDA ? "CUDA, the work outweighs its "
						 "start-up" :
			 "the CPU, CUDA's start-up would dominate",
			 (double)weight_bytes / 1e6, (long long)(batch > 1 ?
								 batch : 1),
			 cpu, threads > 1 ? threads : 1, cuda,
			 AUTO_CUDA_START_S);
	return b;
}

static int gpu_nthreads; /* 0: not decided yet */

static int default_threads(void)
{
	const char *e = getenv("PT2ONNX_THREADS");
	long n;

	if (e && *e) {
		char *end;

		n = strtol(e, &end, 10);
		if (*end == '\0' && n > 0 && n <= 1024)
			return (int)n;
	}
	n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)(n > 1024 ? 1024 : n) : 1;
}

void gpu_set_threads(int n)
{
	if (n <= 0)
		n = default_threads();
	gpu_nthreads = n;
	/* BLAS runs in the calling thread: the CPU backend splits products
	 * over its own pool (cpu_blas.c), whose idle threads sleep instead
	 * of spinning as OpenBLAS's do on a busy machine */
	openblas_set_num_threads(1);
}

int gpu_threads(void)
{
	if (!gpu_nthreads)
		gpu_set_threads(0);
	return gpu_nthreads;
}

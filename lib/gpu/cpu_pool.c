/*
 * cpu_pool.c - the CPU backend's threads: a small persistent pool behind
 * cpu_parallel_for (gpu_int.h), and the strided N-d iterator that the
 * elementwise kernels run on.
 */
#include <pthread.h>
#include <stdlib.h>

#include "gpu.h"
#include "gpu_int.h"

/* --- the pool ------------------------------------------------------------ */

typedef void (*range_fn)(void *ctx, int64_t begin, int64_t end);

static struct {
	pthread_mutex_t mu;
	pthread_cond_t go, done;
	pthread_mutex_t busy;  /* one parallel region at a time */
	int started;           /* worker threads running */
	unsigned gen;          /* bumped per region */
	range_fn fn;
	void *ctx;
	int64_t n;
	int nchunks, next, remaining;
} pool = {
	.mu = PTHREAD_MUTEX_INITIALIZER,
	.go = PTHREAD_COND_INITIALIZER,
	.done = PTHREAD_COND_INITIALIZER,
	.busy = PTHREAD_MUTEX_INITIALIZER,
};

static _Thread_local int in_region;

/* Takes and runs chunks until none is left; called with pool.mu held,
 * returns with it held. */
static void run_chunks(void)
{
	while (pool.next < pool.nchunks) {
		int c = pool.next++;
		int64_t b = pool.n * c / pool.nchunks;
		int64_t e = pool.n * (c + 1) / pool.nchunks;
		range_fn fn = pool.fn;
		void *ctx = pool.ctx;

		pthread_mutex_unlock(&pool.mu);
		fn(ctx, b, e);
		pthread_mutex_lock(&pool.mu);
		if (--pool.remaining == 0)
			pthread_cond_broadcast(&pool.done);
	}
}

static void *worker(void *arg)
{
	unsigned seen = 0;

	(void)arg;
	in_region = 1;
	pthread_mutex_lock(&pool.mu);
	for (;;) {
		while (pool.gen == seen)
			pthread_cond_wait(&pool.go, &pool.mu);
		seen = pool.gen;
		run_chunks();
	}
	return NULL;
}

static void pool_grow(int want)
{
	while (pool.started < want) {
		pthread_t t;
		pthread_attr_t at;

		pthread_attr_init(&at);
		pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
		if (pthread_create(&t, &at, worker, NULL)) {
			pthread_attr_destroy(&at);
			return;
		}
		pthread_attr_destroy(&at);
		pool.started++;
	}
}

void cpu_parallel_for(int64_t n, int64_t grain, range_fn fn, void *ctx)
{
	int threads = gpu_threads();
	int64_t chunks;

	if (n <= 0)
		return;
	if (grain < 1)
		grain = 1;
	chunks = n / grain;
	if (chunks > threads)
		chunks = threads;
	if (chunks <= 1 || in_region || pthread_mutex_trylock(&pool.busy)) {
		fn(ctx, 0, n);
		return;
	}
	pthread_mutex_lock(&pool.mu);
	pool_grow(threads - 1);
	if (pool.started == 0) {
		pthread_mutex_unlock(&pool.mu);
		pthread_mutex_unlock(&pool.busy);
		fn(ctx, 0, n);
		return;
	}
	pool.fn = fn;
	pool.ctx = ctx;
	pool.n = n;
	pool.nchunks = (int)chunks;
	pool.next = 0;
	pool.remaining = (int)chunks;
	pool.gen++;
	pthread_cond_broadcast(&pool.go);
	in_region = 1;
	run_chunks();
	while (pool.remaining > 0)
		pthread_cond_wait(&pool.done, &pool.mu);
	in_region = 0;
	pthread_mutex_unlock(&pool.mu);
	pthread_mutex_unlock(&pool.busy);
}

/* --- the iterator -------------------------------------------------------- */

void cpu_iter_init(struct cpu_iter *it, int rank, const int64_t *dims,
		   int nops, const struct gpu_tensor *const *ts)
{
	int r = 0;

	it->nops = nops;
	for (int k = 0; k < nops; k++)
		it->base[k] = cpu_base(ts[k]);
	/* keep the dims that are not 1, outermost first */
	for (int d = 0; d < rank; d++) {
		if (dims[d] == 1)
			continue;
		it->dims[r] = dims[d];
		for (int k = 0; k < nops; k++)
			it->strides[k][r] = ts[k]->strides[d] *
					    (int64_t)ir_dtype_size(ts[k]->dtype);
		r++;
	}
	/* merge a dim into the next inner one when every operand allows */
	for (int d = r - 2; d >= 0; d--) {
		int ok = 1;

		for (int k = 0; k < nops && ok; k++)
			ok = it->strides[k][d] ==
			     it->strides[k][d + 1] * it->dims[d + 1];
		if (!ok)
			continue;
		it->dims[d] *= it->dims[d + 1];
		for (int k = 0; k < nops; k++)
			it->strides[k][d] = it->strides[k][d + 1];
		for (int e = d + 1; e < r - 1; e++) {
			it->dims[e] = it->dims[e + 1];
			for (int k = 0; k < nops; k++)
				it->strides[k][e] = it->strides[k][e + 1];
		}
		r--;
	}
	it->rank = r;
}

int64_t cpu_iter_numel(const struct cpu_iter *it)
{
	int64_t n = 1;

	for (int d = 0; d < it->rank; d++)
		n *= it->dims[d];
	return n;
}

struct iter_job {
	const struct cpu_iter *it;
	cpu_inner_fn fn;
	void *ctx;
};

static void iter_range(void *arg, int64_t b, int64_t e)
{
	const struct iter_job *j = arg;
	const struct cpu_iter *it = j->it;
	int64_t idx[GPU_MAX_DIMS], rest = b, inner, stride[CPU_MAX_OPS];
	char *ptr[CPU_MAX_OPS];
	int r = it->rank;

	if (r == 0) {
		for (int k = 0; k < it->nops; k++) {
			ptr[k] = it->base[k];
			stride[k] = 0;
		}
		j->fn(j->ctx, 1, ptr, stride);
		return;
	}
	for (int d = r - 1; d >= 0; d--) {
		idx[d] = rest % it->dims[d];
		rest /= it->dims[d];
	}
	inner = it->dims[r - 1];
	for (int k = 0; k < it->nops; k++)
		stride[k] = it->strides[k][r - 1];
	while (b < e) {
		int64_t n = inner - idx[r - 1];

		if (n > e - b)
			n = e - b;
		for (int k = 0; k < it->nops; k++) {
			char *p = it->base[k];

			for (int d = 0; d < r; d++)
				p += idx[d] * it->strides[k][d];
			ptr[k] = p;
		}
		j->fn(j->ctx, n, ptr, stride);
		b += n;
		idx[r - 1] += n;
		for (int d = r - 1; d > 0 && idx[d] >= it->dims[d]; d--) {
			idx[d] = 0;
			idx[d - 1]++;
		}
	}
}

void cpu_iter_run(const struct cpu_iter *it, cpu_inner_fn fn, void *ctx)
{
	struct iter_job j = { it, fn, ctx };
	int64_t n = cpu_iter_numel(it);

	if (n == 0)
		return;
	cpu_parallel_for(n, 32768, iter_range, &j);
}

/*
 * test_trace_oom.c - a trace kernel whose host memory runs out part way
 * fails with trace_oom's "out of memory" rather than output what it did
 * not compute: cov's host kernel (lib/trace/ops_stats_host.c, cov_host's
 * calloc of the averages).  This binary's own calloc fails the one call
 * chosen; under AddressSanitizer, whose calloc it would replace, the test
 * is skipped.
 */
#include "unit.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace_int.h"

static struct trace_ctx ctx;

#include "trace_fixture.h"

/* gcc's mark of AddressSanitizer, or clang's */
#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

#ifndef UNDER_ASAN
#define OWN_CALLOC 1
static struct diag dg;
static size_t fail_n, fail_size; /* the calloc(n, size) to fail; 0: none */

/* malloc and a zeroing loop (not memset: the compiler may turn malloc
 * and memset back into a call of calloc) */
void *calloc(size_t n, size_t size)
{
	volatile unsigned char *p;
	size_t bytes;

	if (fail_n && n == fail_n && size == fail_size)
		return NULL;
	if (size && n > SIZE_MAX / size)
		return NULL;
	bytes = n * size;
	p = malloc(bytes > 0 ? bytes : 1);
	for (size_t i = 0; p && i < bytes; i++)
		p[i] = 0;
	return (void *)p;
}
#endif

/* cov of a [1234, 2] input with the averages' calloc(1235, 8) failing */
static void test_cov_host_oom(void)
{
#ifndef OWN_CALLOC
	unit_skip("calloc is AddressSanitizer's");
#else
	const struct gpu_backend *be = gpu_backend_get(GPU_BACKEND_CPU);
	enum { V = 1234 };
	int64_t dims[2] = { V, 2 };
	double *v = malloc(sizeof(double) * V * 2);
	struct tval *in[4], *out[1];
	char msg[256] = "";
	FILE *f = tmpfile();

	if (!be || !be->copy || !v || !f) {
		free(v);
		if (f)
			fclose(f);
		unit_skip("the CPU backend is not built yet");
		return;
	}
	diag_init(&dg, "test");
	dg.out = f;
	memset(&ctx, 0, sizeof(ctx));
	ctx.be = be;
	ctx.d = &dg;
	for (int i = 0; i < V * 2; i++)
		v[i] = i % 7 - 3;
	struct gpu_tensor *d = gpu_empty(be, IR_DTYPE_DOUBLE, 2, dims);
	struct gpu_tensor *x = gpu_empty(be, IR_DTYPE_FLOAT, 2, dims);
	be->upload(d->storage->data, v, sizeof(double) * V * 2);
	be->copy(d, x);
	gpu_free(d);
	free(v);
	in[0] = tv_tensor(x);
	in[1] = tv_int(1);
	in[2] = tv_none();
	in[3] = tv_none();
	fail_n = V + 1;
	fail_size = sizeof(double);
	CHECK(run("aten::cov", in, 4, out, 1) == -1);
	fail_n = 0;
	tv_unref(out[0]);
	rewind(f);
	CHECK(fgets(msg, sizeof(msg), f) != NULL);
	CHECK(strstr(msg, "aten::cov: out of memory") != NULL);
	fclose(f);
#endif
}

const struct unit_test unit_tests[] = {
	UNIT(test_cov_host_oom),
	{ 0 },
};

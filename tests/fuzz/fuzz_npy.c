/*
 * fuzz_npy.c - libFuzzer target for the .npy reader of `trace`
 * (lib/trace/npy.c, npy_read): the input is written to a memory file and
 * read onto the CPU backend.  A file that loads must hold as many bytes as
 * its tensor needs and must survive npy_write + npy_read unchanged (dtype,
 * dims, bytes); one that does not must give exactly one error.  Any
 * crash, leak or sanitizer report is a bug.
 *
 * Build and run (from the repository root; clang and libclang-rt-14-dev):
 *
 *   make fuzz
 *   mkdir -p build/fuzz/corpus/fuzz_npy && build/fuzz/bin/fuzz_npy \
 *     -max_total_time=60 build/fuzz/corpus/fuzz_npy tests/fuzz/corpus/npy
 *
 * The seed corpus (tests/fuzz/corpus/npy) holds .npy files numpy wrote
 * (every dtype npy_read takes, ranks 0 to 4, an empty tensor, a version
 * 2.0 header) and a few it must refuse (Fortran order, big-endian, a
 * truncated body, a bad magic, a header without a shape).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "gpu.h"
#include "trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int mem_file(const char *name, char *path, size_t len)
{
	int fd = memfd_create(name, 0);

	if (fd < 0)
		abort();
	snprintf(path, len, "/proc/self/fd/%d", fd);
	return fd;
}

static void put(int fd, const uint8_t *data, size_t size)
{
	if (ftruncate(fd, 0) || (size && pwrite(fd, data, size, 0) !=
				 (ssize_t)size))
		abort();
}

static void *bytes_of(const struct gpu_tensor *t, size_t *n)
{
	void *b;

	*n = (size_t)gpu_numel(t) * ir_dtype_size(t->dtype);
	b = malloc(*n ? *n : 1);
	if (!b || gpu_to_host(t, IR_DTYPE_UNDEFINED, b))
		abort();
	return b;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1, fd2 = -1;
	static char path[64], path2[64];
	const struct gpu_backend *be = gpu_backend_get(GPU_BACKEND_CPU);
	struct gpu_tensor *t, *u;
	struct diag d;
	void *a, *b;
	size_t na, nb;

	if (fd < 0) {
		fd = mem_file("fuzz.npy", path, sizeof(path));
		fd2 = mem_file("again.npy", path2, sizeof(path2));
	}
	put(fd, data, size);
	diag_init(&d, "fuzz");
	d.quiet = 1;
	t = npy_read(path, be, &d);
	if (!t) {
		if (d.nerrors != 1)
			abort(); /* one error per failure */
		return 0;
	}
	if (d.nerrors)
		abort();
	a = bytes_of(t, &na);
	if (na > size)
		abort(); /* the data comes from the file */
	put(fd2, NULL, 0);
	if (npy_write(path2, t, &d))
		abort();
	u = npy_read(path2, be, &d);
	if (!u || u->dtype != t->dtype || u->rank != t->rank ||
	    memcmp(u->dims, t->dims, sizeof(int64_t) * (size_t)t->rank))
		abort();
	b = bytes_of(u, &nb);
	if (na != nb || memcmp(a, b, na))
		abort();
	free(a);
	free(b);
	gpu_free(u);
	gpu_free(t);
	return 0;
}

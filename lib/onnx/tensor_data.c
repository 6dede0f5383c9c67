/*
 * tensor_data.c - streaming a tensor's bytes into an output file (see
 * tensor_data.h).
 *
 * Contiguous references are copied with pread() in TENSOR_DATA_CHUNK
 * pieces, so the weights pass through the page cache and never through
 * this process's heap.  Strided references map the byte range they span
 * and gather it row by row into the same chunk buffer.
 */
#include "tensor_data.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arena.h"

void tensor_reader_init(struct tensor_reader *r)
{
	r->buf = NULL;
	r->fd = -1;
	r->path = NULL;
}

void tensor_reader_release(struct tensor_reader *r)
{
	if (r->fd >= 0)
		close(r->fd);
	free(r->buf);
	free(r->path);
	tensor_reader_init(r);
}

uint64_t tensor_data_size(const struct ir_tensor *t)
{
	size_t es = ir_dtype_size(t->dtype);
	uint64_t n = ir_tensor_numel(t), bytes;
	if (__builtin_mul_overflow(n, (uint64_t)es, &bytes))
		return UINT64_MAX;
	return bytes;
}

/* Whether strides (rank entries, may be NULL) are the row-major ones;
 * dims of size 1 may have any stride. */
static int strides_contiguous(const struct ir_tensor *t)
{
	int64_t expect = 1;
	if (!t->ref.strides)
		return 1;
	for (int i = t->rank - 1; i >= 0; i--) {
		if (t->dims[i] != 1 && t->ref.strides[i] != expect)
			return 0;
		expect *= t->dims[i];
	}
	return 1;
}

/* Bytes from element 0 to the end of the last element a strided
 * reference touches; -1 after reporting when strides are negative or the
 * span overflows. */
static int ref_span(const struct ir_tensor *t, const char *what,
		    uint64_t *span, struct diag *d)
{
	uint64_t size = ir_dtype_size(t->dtype), last = 0;

	if (ir_tensor_numel(t) == 0) {
		*span = 0;
		return 0;
	}
	if (strides_contiguous(t)) {
		*span = tensor_data_size(t);
		return *span == UINT64_MAX ? diag_error(d, "%s: too large", what)
					   : 0;
	}
	for (int i = 0; i < t->rank; i++) {
		uint64_t step;
		if (t->dims[i] <= 1)
			continue;
		if (t->ref.strides[i] < 0)
			return diag_error(d, "%s: negative strides are not "
					  "supported", what);
		if (__builtin_mul_overflow((uint64_t)(t->dims[i] - 1),
					   (uint64_t)t->ref.strides[i], &step) ||
		    __builtin_add_overflow(last, step, &last))
			return diag_error(d, "%s: strides overflow", what);
	}
	if (__builtin_add_overflow(last, 1, &last) ||
	    __builtin_mul_overflow(last, size, span))
		return diag_error(d, "%s: strides overflow", what);
	return 0;
}

int tensor_data_check(const struct ir_tensor *t, const char *what,
		      struct diag *d)
{
	struct stat st;
	uint64_t need, end;

	if (t->dtype <= IR_DTYPE_UNDEFINED || t->dtype >= IR_DTYPE_COUNT) {
		diag_error(d, "%s has no known element type", what);
		return EXIT_UNSUPPORTED;
	}
	for (int i = 0; i < t->rank; i++) {
		if (t->dims[i] < 0) {
			diag_error(d, "%s has a negative dimension", what);
			return EXIT_BAD_INPUT;
		}
	}
	if (t->dtype == IR_DTYPE_STRING) {
		if (t->data_kind == IR_DATA_REF) {
			diag_error(d, "%s: string tensors cannot refer to a "
				   "file", what);
			return EXIT_UNSUPPORTED;
		}
		if (ir_tensor_numel(t) && !t->strings) {
			diag_error(d, "%s: string tensor without strings",
				   what);
			return EXIT_BAD_INPUT;
		}
		return 0;
	}
	need = tensor_data_size(t);
	if (t->data_kind == IR_DATA_INLINE) {
		if (t->bytes.len != need) {
			diag_error(d, "%s: inline data is %zu bytes, expected "
				   "%llu", what, t->bytes.len,
				   (unsigned long long)need);
			return EXIT_BAD_INPUT;
		}
		return 0;
	}
	if (!t->ref.file || !*t->ref.file) {
		diag_error(d, "%s: reference without a file", what);
		return EXIT_BAD_INPUT;
	}
	if (ref_span(t, what, &need, d))
		return EXIT_UNSUPPORTED;
	if (need > t->ref.length) {
		diag_error(d, "%s needs %llu bytes but its reference into '%s' "
			   "has length %llu", what, (unsigned long long)need,
			   t->ref.file, (unsigned long long)t->ref.length);
		return EXIT_BAD_INPUT;
	}
	if (stat(t->ref.file, &st) != 0) {
		diag_error(d, "%s: cannot open '%s': %s", what, t->ref.file,
			   strerror(errno));
		return EXIT_BAD_INPUT;
	}
	if (__builtin_add_overflow(t->ref.offset, t->ref.length, &end) ||
	    (S_ISREG(st.st_mode) && end > (uint64_t)st.st_size)) {
		diag_error(d, "%s: '%s' is %lld bytes, shorter than the "
			   "reference (offset %llu + length %llu)", what,
			   t->ref.file, (long long)st.st_size,
			   (unsigned long long)t->ref.offset,
			   (unsigned long long)t->ref.length);
		return EXIT_BAD_INPUT;
	}
	return 0;
}

static int reader_open(struct tensor_reader *r, const char *path,
		       const char *what, struct diag *d)
{
	if (!r->buf)
		r->buf = xmalloc(TENSOR_DATA_CHUNK);
	if (r->fd >= 0 && r->path && !strcmp(r->path, path))
		return 0;
	if (r->fd >= 0)
		close(r->fd);
	free(r->path);
	r->path = NULL;
	r->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0) {
		diag_error(d, "%s: cannot open '%s': %s", what, path,
			   strerror(errno));
		return EXIT_BAD_INPUT;
	}
	r->path = xstrdup(path);
	return 0;
}

/* Contiguous bytes [off, off + len) of the open file to out. */
static int copy_range(struct tensor_reader *r, uint64_t off, uint64_t len,
		      const char *what, struct outfile *out, struct diag *d)
{
	while (len) {
		size_t want = len < TENSOR_DATA_CHUNK ? (size_t)len
						      : TENSOR_DATA_CHUNK;
		ssize_t got = pread(r->fd, r->buf, want, (off_t)off);
		if (got < 0) {
			if (errno == EINTR)
				continue;
			diag_error(d, "%s: cannot read '%s': %s", what,
				   r->path, strerror(errno));
			return EXIT_IO;
		}
		if (got == 0) {
			diag_error(d, "%s: '%s' ended before the reference "
				   "did (did it change?)", what, r->path);
			return EXIT_BAD_INPUT;
		}
		if (outfile_write(out, r->buf, (size_t)got, d))
			return EXIT_IO;
		off += (uint64_t)got;
		len -= (uint64_t)got;
	}
	return 0;
}

/* Strided: map the span and gather into row-major order. */
static int copy_strided(struct tensor_reader *r, const struct ir_tensor *t,
			const char *what, struct outfile *out, struct diag *d)
{
	uint64_t span;
	long page = sysconf(_SC_PAGESIZE);
	size_t es = ir_dtype_size(t->dtype), fill = 0;
	int rank = t->rank, rc = 0;

	if (ref_span(t, what, &span, d))
		return EXIT_UNSUPPORTED;
	uint64_t start = t->ref.offset & ~(uint64_t)(page - 1);
	size_t maplen = (size_t)(t->ref.offset - start + span);
	unsigned char *map = mmap(NULL, maplen, PROT_READ, MAP_PRIVATE, r->fd,
				  (off_t)start);
	if (map == MAP_FAILED) {
		diag_error(d, "%s: cannot map '%s': %s", what, r->path,
			   strerror(errno));
		return EXIT_IO;
	}
	const unsigned char *base = map + (t->ref.offset - start);
	int64_t *idx = xcalloc((size_t)rank, sizeof(*idx));
	int64_t n = t->dims[rank - 1], s = t->ref.strides[rank - 1];

	for (;;) {
		int64_t off = 0;
		for (int i = 0; i < rank - 1; i++)
			off += idx[i] * t->ref.strides[i];
		for (int64_t j = 0; j < n; j++) {
			if (fill + es > TENSOR_DATA_CHUNK) {
				if (outfile_write(out, r->buf, fill, d)) {
					rc = EXIT_IO;
					goto done;
				}
				fill = 0;
			}
			memcpy(r->buf + fill, base + (size_t)(off + j * s) * es,
			       es);
			fill += es;
		}
		int i = rank - 2;
		while (i >= 0 && ++idx[i] == t->dims[i])
			idx[i--] = 0;
		if (i < 0)
			break;
	}
	if (fill && outfile_write(out, r->buf, fill, d))
		rc = EXIT_IO;
done:
	free(idx);
	munmap(map, maplen);
	return rc;
}

int tensor_data_copy(struct tensor_reader *r, const struct ir_tensor *t,
		     const char *what, struct outfile *out, struct diag *d)
{
	uint64_t size = tensor_data_size(t);
	int rc;

	if (t->data_kind == IR_DATA_INLINE) {
		if (t->bytes.len != size) {
			diag_error(d, "%s: inline data is %zu bytes, expected "
				   "%llu", what, t->bytes.len,
				   (unsigned long long)size);
			return EXIT_BAD_INPUT;
		}
		return outfile_write(out, t->bytes.data, t->bytes.len, d)
			       ? EXIT_IO : 0;
	}
	if (size == 0)
		return 0;
	if ((rc = reader_open(r, t->ref.file, what, d)))
		return rc;
	if (strides_contiguous(t))
		return copy_range(r, t->ref.offset, size, what, out, d);
	return copy_strided(r, t, what, out, d);
}

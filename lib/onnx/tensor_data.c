/*
 * tensor_data.c - streaming a tensor's bytes into an output file (see
 * tensor_data.h).
 *
 * Contiguous references are copied with pread() in TENSOR_DATA_CHUNK
 * pieces, so the weights pass through the page cache and never through
 * this process's heap.  Strided references map the byte range they span
 * and gather it row by row into the same chunk buffer; a transposed one
 * (fold turns Transpose of a weight into such a view) 64 rows at a time
 * into a tile buffer, so that each source cache line is read once.
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

/* n elements of es bytes, s elements apart at src, to dst. */
static void gather(unsigned char *dst, const unsigned char *src, int64_t n,
		   int64_t s, size_t es)
{
	int64_t i;

	if (s == 1) {
		memcpy(dst, src, (size_t)n * es);
		return;
	}
#define GATHER(T) \
	for (i = 0; i < n; i++) { \
		T v; \
		memcpy(&v, src + (size_t)(i * s) * sizeof(T), sizeof(T)); \
		memcpy(dst + (size_t)i * sizeof(T), &v, sizeof(T)); \
	}
	switch (es) {
	case 1: GATHER(uint8_t) break;
	case 2: GATHER(uint16_t) break;
	case 4: GATHER(uint32_t) break;
	case 8: GATHER(uint64_t) break;
	default:
		for (i = 0; i < n; i++)
			memcpy(dst + (size_t)i * es, src + (size_t)(i * s) * es,
			       es);
	}
#undef GATHER
}

#define TILE 64 /* output rows gathered together by transpose() */
#define TILE_BYTES ((size_t)16 << 20) /* at most, in one tile buffer */
#define DROP_SPAN ((uint64_t)64 << 20) /* larger sources are unmapped... */
#define DROP_WINDOW ((size_t)4 << 20)  /* ...behind windows of this size, */
#define DROP_TILE ((size_t)64 << 20)   /* with tiles up to this size */

/* Columns [j0, j1) of bb output rows of n elements from a transposed
 * source: element j of row b is src[j * s + b].  Each source cache line
 * is read once for bb rows, rather than once per row. */
static void transpose(unsigned char *dst, const unsigned char *src,
		      int64_t bb, int64_t n, int64_t j0, int64_t j1,
		      int64_t s, size_t es)
{
	int64_t j, b;
#define TRANSPOSE(T) \
	for (j = j0; j < j1; j++) { \
		const unsigned char *p = src + (size_t)(j * s) * sizeof(T); \
		for (b = 0; b < bb; b++) { \
			T v; \
			memcpy(&v, p + (size_t)b * sizeof(T), sizeof(T)); \
			memcpy(dst + (size_t)(b * n + j) * sizeof(T), &v, \
			       sizeof(T)); \
		} \
	}
	switch (es) {
	case 1: TRANSPOSE(uint8_t) break;
	case 2: TRANSPOSE(uint16_t) break;
	case 4: TRANSPOSE(uint32_t) break;
	case 8: TRANSPOSE(uint64_t) break;
	default:
		for (j = j0; j < j1; j++)
			for (b = 0; b < bb; b++)
				memcpy(dst + (size_t)(b * n + j) * es,
				       src + (size_t)(j * s + b) * es, es);
	}
#undef TRANSPOSE
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
	size_t row = (size_t)n * es;

	/* A transpose (the second-last dim contiguous in the source, the
	 * last not): up to TILE output rows at a time into a buffer of their
	 * own, so that each source cache line (and page) is visited once
	 * for all of them. */
	if (rank >= 2 && t->ref.strides[rank - 2] == 1 && s != 1 && n) {
		int64_t m = t->dims[rank - 2], tile = TILE;
		int drop = span > DROP_SPAN;
		/* source rows per window: about DROP_WINDOW bytes */
		int64_t win = drop ? (int64_t)(DROP_WINDOW / ((size_t)s * es))
				   : n;
		if (win < 1)
			win = 1;
		if (drop) /* fewer passes over the source, each re-mapping it */
			tile = (int64_t)(DROP_TILE / row);
		while (tile > 1 && (size_t)tile * row > (drop ? DROP_TILE
							      : TILE_BYTES))
			tile /= 2;
		if (tile > m)
			tile = m;
		if (tile < 1)
			tile = 1;
		unsigned char *tb = xmalloc((size_t)tile * row);
		for (;;) {
			int64_t off = 0;
			for (int i = 0; i < rank - 2; i++)
				off += idx[i] * t->ref.strides[i];
			for (int64_t r0 = 0; r0 < m; r0 += tile) {
				int64_t bb = m - r0 < tile ? m - r0 : tile;
				/* a window of source rows at a time; the
				 * pages behind it are dropped from our
				 * mapping (they stay in the page cache), so
				 * that a large transposed weight does not
				 * count whole in our RSS */
				for (int64_t j0 = 0; j0 < n; j0 += win) {
					int64_t j1 = n - j0 < win ? n - j0 : win;
					j1 += j0;
					transpose(tb, base + (size_t)(off + r0) *
						  es, bb, n, j0, j1, s, es);
					if (!drop)
						continue;
					size_t end = (size_t)(base - map) +
						(size_t)((off + r0 + j1 * s) *
							 (int64_t)es);
					end &= ~(size_t)(page - 1);
					if (end > maplen)
						end = maplen & ~(size_t)(page - 1);
					if (end)
						madvise(map, end, MADV_DONTNEED);
				}
				if (outfile_write(out, tb, (size_t)bb * row, d)) {
					rc = EXIT_IO;
					break;
				}
			}
			int i = rank - 3;
			while (!rc && i >= 0 && ++idx[i] == t->dims[i])
				idx[i--] = 0;
			if (rc || i < 0)
				break;
		}
		free(tb);
		goto done;
	}

	/* otherwise one output row (the last dim) at a time, whole in the
	 * buffer when it fits; the element copy typed by size so that it is
	 * a load and a store */
	for (;;) {
		int64_t off = 0;
		for (int i = 0; i < rank - 1; i++)
			off += idx[i] * t->ref.strides[i];
		const unsigned char *src = base + (size_t)off * es;
		for (int64_t j = 0; j < n;) {
			if (fill + es > TENSOR_DATA_CHUNK) {
				if (outfile_write(out, r->buf, fill, d)) {
					rc = EXIT_IO;
					goto done;
				}
				fill = 0;
			}
			int64_t k = (int64_t)((TENSOR_DATA_CHUNK - fill) / es);
			if (k > n - j)
				k = n - j;
			gather(r->buf + fill, src + (size_t)(j * s) * es, k, s,
			       es);
			fill += (size_t)k * es;
			j += k;
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

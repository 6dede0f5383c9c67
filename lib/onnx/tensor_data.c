/*
 * tensor_data.c - streaming a tensor's bytes into an output file (see
 * tensor_data.h).
 *
 * Contiguous references are copied by the kernel (copy_file_range) when
 * the output is a regular file, else with pread() in TENSOR_DATA_CHUNK
 * pieces, so the weights pass through the page cache and never (or only
 * a chunk at a time) through this process's heap.  Strided references map
 * the byte range they span and gather it row by row into the same chunk
 * buffer.  A transposed one (fold turns Transpose of a weight into such a
 * view: nearly every weight of a transformer) is transposed in squares of
 * TR_BLOCK x TR_BLOCK elements (source lines prefetched a square ahead), by
 * two threads (each half of the columns), into output tiles of about
 * TR_OUT bytes, each written at once while it is still in the cache (a
 * large tile written cold costs several times more).  A source over
 * DROP_SPAN is read in at most TR_PASSES passes (larger tiles), the pages
 * behind each thread dropped from the mapping as it goes, so that RSS stays
 * near a tile whatever the weight's size.  A scaled view (fold's Conv +
 * BatchNormalization, docs/ir.md) is read a chunk at a time with pread(),
 * multiplied there row factor by row factor and written; from 2 MiB up the
 * helper reads and computes the next chunk while this one is written (in
 * a mapping of the source instead: 4% more CPU and 4 MB more RSS for
 * resnet50's weights, 20 alternated runs).
 */
#include "tensor_data.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arena.h"
#include "fold.h"
#include "rlimits.h"
#include "weight_bytes.h"
#include "zip.h"

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

/* Bytes from element 0 to the end of the last element a strided
 * reference touches; -1 after reporting when strides are negative or the
 * span overflows. */
static int ref_span(const struct ir_tensor *t, const char *what,
		    uint64_t *span, struct diag *d)
{
	switch (weight_span(t, span)) {
	case WEIGHT_OK:
		return 0;
	case WEIGHT_NEG_STRIDE:
		return diag_error(d, "%s: negative strides are not supported",
				  what);
	default:
		return diag_error(d, weight_contiguous(t) ? "%s: too large" :
				  "%s: strides overflow", what);
	}
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
	const char *bad = weight_scale_problem(t, IR_LEVEL_ONNX);
	if (bad) {
		diag_error(d, "%s: %s", what, bad);
		return EXIT_BAD_INPUT;
	}
	if (need > t->ref.length) {
		diag_error(d, "%s needs %llu bytes but its reference into '%s' "
			   "has length %llu", what, (unsigned long long)need,
			   t->ref.file, (unsigned long long)t->ref.length);
		return EXIT_BAD_INPUT;
	}
	/* a view that expands its bytes (stride 0) is written out whole:
	 * past the limit it is refused rather than written for hours */
	if (tensor_data_size(t) > t->ref.length &&
	    tensor_data_size(t) > LIMIT_EMIT_EXPAND_BYTES) {
		diag_error(d, "%s: its view of %llu bytes in '%s' expands to "
			   "%llu bytes, over the limit of %llu", what,
			   (unsigned long long)t->ref.length, t->ref.file,
			   (unsigned long long)tensor_data_size(t),
			   (unsigned long long)LIMIT_EMIT_EXPAND_BYTES);
		return EXIT_UNSUPPORTED;
	}
	if (stat(t->ref.file, &st) != 0) {
		diag_error(d, "%s: cannot open '%s': %s", what, t->ref.file,
			   strerror(errno));
		return EXIT_BAD_INPUT;
	}
	if (!S_ISREG(st.st_mode)) {
		diag_error(d, "%s: '%s' is not a regular file", what,
			   t->ref.file);
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

/* 1 when real path p is dir or under it. */
static int under(const char *p, const char *dir)
{
	size_t n = strlen(dir);

	if (n == 1 && dir[0] == '/')
		return 1;
	return !strncmp(p, dir, n) && (p[n] == '/' || !p[n]);
}

/* The byte ranges of the stored entries of a torch archive's data/ and
 * constants/ folders (the weights, and the tensors the code holds:
 * constants.pkl's storages) in the regular file p, into a (none when p is
 * not a zip). */
static void archive_spans(const char *p, struct tensor_allow *a)
{
	struct diag quiet;
	struct zip *z;

	diag_init(&quiet, "emit");
	quiet.quiet = 1;
	z = zip_open(p, &quiet);
	if (!z)
		return;
	a->spans = xmalloc(sizeof(*a->spans) * 2 * (z->nentries + 1));
	for (uint32_t i = 0; i < z->nentries; i++) {
		struct zip_entry *e = &z->entries[i];
		const char *slash = strchr(e->name, '/');
		uint64_t at;

		if (!slash || (strncmp(slash, "/data/", 6) &&
			       strncmp(slash, "/constants/", 11)) ||
		    e->method != ZIP_METHOD_STORED ||
		    zip_locate(z, e, &at, &quiet))
			continue;
		a->spans[2 * a->nspans] = at;
		a->spans[2 * a->nspans + 1] = at + e->csize;
		a->nspans++;
	}
	zip_close(z);
}

/* 1 when [off, off + len) lies inside one of a's stored entries. */
static int in_archive_data(const struct tensor_allow *a, uint64_t off,
			   uint64_t len)
{
	for (uint32_t i = 0; i < a->nspans; i++) {
		uint64_t at = a->spans[2 * i], size = a->spans[2 * i + 1] - at;
		if (off >= at && len <= size && off - at <= size - len)
			return 1;
	}
	return 0;
}

/* 1 when the regular file p starts with fold's data file header. */
static int is_fold_data(const char *p)
{
	char hdr[sizeof(FOLD_DATA_MAGIC) - 1];
	int fd = open(p, O_RDONLY | O_CLOEXEC | O_NONBLOCK), ok;

	if (fd < 0)
		return 0;
	ok = pread(fd, hdr, sizeof(hdr), 0) == (ssize_t)sizeof(hdr) &&
	     !memcmp(hdr, FOLD_DATA_MAGIC, sizeof(hdr));
	close(fd);
	return ok;
}

void tensor_allow_release(struct tensor_allow *a)
{
	free(a->file);
	free(a->spans);
	memset(a, 0, sizeof(*a));
}

/* Fills a for file: what kind of file it is, where. */
static void allow_look(struct tensor_allow *a, const char *file,
		       const char *const *dirs, uint32_t ndirs)
{
	struct stat st;
	char *real;

	tensor_allow_release(a);
	a->file = xstrdup(file);
	real = realpath(file, NULL);
	if (real && stat(real, &st) == 0 && S_ISREG(st.st_mode)) {
		a->regular = 1;
		for (uint32_t i = 0; i < ndirs && !a->by_place; i++)
			a->by_place = under(real, dirs[i]);
		if (!a->by_place)
			a->by_place = is_fold_data(real);
		if (!a->by_place)
			archive_spans(real, a);
	}
	free(real);
}

int tensor_data_allowed(const struct ir_tensor *t, const char *what,
			const char *const *dirs, uint32_t ndirs,
			struct tensor_allow *a, struct diag *d)
{
	int ok;

	if (t->data_kind != IR_DATA_REF || !t->ref.file)
		return 0;
	if (!a->file || strcmp(a->file, t->ref.file))
		allow_look(a, t->ref.file, dirs, ndirs);
	ok = a->regular && (a->by_place ||
			    in_archive_data(a, t->ref.offset, t->ref.length));
	if (!ok)
		diag_error(d, "%s: '%s' is not a file emit may read: outside "
			   "the model's folder, not a torch archive's data "
			   "nor a fold data file (--weights-from DIR allows "
			   "a folder)", what, t->ref.file);
	return ok ? 0 : EXIT_BAD_INPUT;
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
	/* O_NONBLOCK: a FIFO swapped in after the check must not block the
	 * open; only a regular file is read */
	struct stat st;
	r->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (r->fd < 0) {
		diag_error(d, "%s: cannot open '%s': %s", what, path,
			   strerror(errno));
		return EXIT_BAD_INPUT;
	}
	if (fstat(r->fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		diag_error(d, "%s: '%s' is not a regular file", what, path);
		close(r->fd);
		r->fd = -1;
		return EXIT_BAD_INPUT;
	}
	r->path = xstrdup(path);
	return 0;
}

#define KERNEL_COPY_MIN ((uint64_t)256 << 10) /* smaller: through the buffer */

/* Contiguous bytes [*off, *off + *len) of the open file to out by
 * copy_file_range(), advancing *off and *len.  Returns 0 (all of it, or
 * nothing when the kernel cannot: *len left for the caller), or an exit
 * status after reporting. */
static int copy_kernel(struct tensor_reader *r, uint64_t *off, uint64_t *len,
		       const char *what, struct outfile *out, struct diag *d)
{
	struct stat st;
	int fd;

	if (*len < KERNEL_COPY_MIN || !out->fp)
		return 0;
	fd = fileno(out->fp);
	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		return 0;
	/* a zero-length write: a failed output (or PT2ONNX_FAIL_WRITE's
	 * fault) fails here as it would for the bytes */
	if (outfile_write(out, "", 0, d))
		return EXIT_IO;
	if (fflush(out->fp) != 0) {
		out->failed = 1;
		diag_error(d, "cannot write '%s': %s",
			   out->path ? out->path : "<stdout>", strerror(errno));
		return EXIT_IO;
	}
	while (*len) {
		loff_t in = (loff_t)*off;
		size_t want = *len > ((uint64_t)1 << 30) ? (size_t)1 << 30
							 : (size_t)*len;
		ssize_t got = copy_file_range(r->fd, &in, fd, NULL, want, 0);
		if (got < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EXDEV || errno == EINVAL ||
			    errno == ENOSYS || errno == EOPNOTSUPP ||
			    errno == EBADF || errno == ETXTBSY)
				return 0; /* the rest through the buffer */
			out->failed = 1;
			diag_error(d, "%s: cannot copy from '%s' to '%s': %s",
				   what, r->path,
				   out->path ? out->path : "<stdout>",
				   strerror(errno));
			return EXIT_IO;
		}
		if (got == 0)
			return 0; /* a short source: pread() says so */
		*off += (uint64_t)got;
		*len -= (uint64_t)got;
	}
	return 0;
}

/* Contiguous bytes [off, off + len) of the open file to out. */
static int copy_range(struct tensor_reader *r, uint64_t off, uint64_t len,
		      const char *what, struct outfile *out, struct diag *d)
{
	int rc = copy_kernel(r, &off, &len, what, out, d);

	if (rc)
		return rc;
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

#define TR_BLOCK 32 /* elements: the side of a square transposed at once */
#define TR_OUT ((size_t)1 << 20) /* output tile: written while in the cache */
#define TR_PASSES 4 /* at most, over a source larger than DROP_SPAN */
#define TR_THREADS_MIN ((size_t)4 << 20) /* smaller weights: one thread */
#define DROP_SPAN ((uint64_t)64 << 20) /* larger sources are unmapped... */
#define DROP_WINDOW ((size_t)8 << 20)  /* ...behind windows of this size */

/* One thread's share of a transposed tile: output columns [j0, j1) of bb
 * rows of n elements; element j of row b is src[j * s + b]. */
struct tr_job {
	unsigned char *dst;
	const unsigned char *src;
	int64_t bb, n, s, j0, j1;
	size_t es;
	unsigned char *map;       /* the mapping, for dropping pages */
	size_t maplen;
	int drop;                 /* drop source pages behind the job */
	size_t page;
};

/* Rows [b0, b1) of columns [ja, jb): a square that fits in L1. */
#define TR_SQUARE(T) \
	for (int64_t b = b0; b < b1; b++) { \
		unsigned char *o = j->dst + (size_t)(b * j->n) * sizeof(T); \
		const unsigned char *p = j->src + (size_t)b * sizeof(T); \
		for (int64_t c = ja; c < jb; c++) { \
			T v; \
			memcpy(&v, p + (size_t)(c * j->s) * sizeof(T), \
			       sizeof(T)); \
			memcpy(o + (size_t)c * sizeof(T), &v, sizeof(T)); \
		} \
	}

static void tr_square(const struct tr_job *j, int64_t b0, int64_t b1,
		      int64_t ja, int64_t jb)
{
	switch (j->es) {
	case 1: TR_SQUARE(uint8_t) break;
	case 2: TR_SQUARE(uint16_t) break;
	case 4: TR_SQUARE(uint32_t) break;
	case 8: TR_SQUARE(uint64_t) break;
	default:
		for (int64_t b = b0; b < b1; b++)
			for (int64_t c = ja; c < jb; c++)
				memcpy(j->dst + (size_t)(b * j->n + c) * j->es,
				       j->src + (size_t)(c * j->s + b) * j->es,
				       j->es);
	}
}
#undef TR_SQUARE

/* Source pages [from, to) of the mapping (byte offsets, rounded inwards
 * to pages) dropped from it: they stay in the page cache. */
static void drop_pages(const struct tr_job *j, size_t from, size_t to)
{
	from = (from + j->page - 1) & ~(j->page - 1);
	to &= ~(j->page - 1);
	if (to > (j->maplen & ~(j->page - 1)))
		to = j->maplen & ~(j->page - 1);
	if (to > from)
		madvise(j->map + from, to - from, MADV_DONTNEED);
}

static void *tr_run(void *arg)
{
	const struct tr_job *j = arg;
	size_t row = (size_t)j->s * j->es; /* source bytes per column */
	size_t base = (size_t)(j->src - j->map);
	size_t dropped = base + (size_t)j->j0 * row, next = dropped + DROP_WINDOW;

	for (int64_t ja = j->j0; ja < j->j1; ja += TR_BLOCK) {
		int64_t jb = j->j1 - ja < TR_BLOCK ? j->j1 : ja + TR_BLOCK;
		for (int64_t b0 = 0; b0 < j->bb; b0 += TR_BLOCK) {
			int64_t b1 = j->bb - b0 < TR_BLOCK ? j->bb
							   : b0 + TR_BLOCK;
			/* the next square's source lines, ahead of need: the
			 * loads are what the transpose waits for */
			int64_t pa = b1 < j->bb ? ja : jb;
			int64_t pb = b1 < j->bb ? b1 : 0;
			int64_t pe = pa + TR_BLOCK < j->j1 ? pa + TR_BLOCK
							   : j->j1;
			for (int64_t c = pa; c < pe; c++) {
				const unsigned char *q = j->src +
					(size_t)(c * j->s + pb) * j->es;
				__builtin_prefetch(q);
				__builtin_prefetch(q + 64);
			}
			tr_square(j, b0, b1, ja, jb);
		}
		if (!j->drop)
			continue;
		/* the source columns (rows of the weight) done so far */
		size_t done = base + (size_t)jb * row;
		if (done >= next || jb == j->j1) {
			drop_pages(j, dropped, done);
			dropped = done;
			next = done + DROP_WINDOW;
		}
	}
	return NULL;
}

/* A helper thread, started per weight, that runs one job at a time while
 * the caller does other work: half of each transposed tile (the right-hand
 * columns), or the next chunk of a scaled view while the caller writes
 * this one. */
struct helper {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	void *(*fn)(void *);
	void *arg;
	int have_job, done, quit, started;
};

static void *helper_main(void *arg)
{
	struct helper *p = arg;

	pthread_mutex_lock(&p->mu);
	for (;;) {
		while (!p->have_job && !p->quit)
			pthread_cond_wait(&p->cv, &p->mu);
		if (p->quit)
			break;
		p->have_job = 0;
		pthread_mutex_unlock(&p->mu);
		p->fn(p->arg);
		pthread_mutex_lock(&p->mu);
		p->done = 1;
		pthread_cond_broadcast(&p->cv);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

/* Starts the helper where there is a second CPU (p->started says). */
static void helper_start(struct helper *p)
{
	memset(p, 0, sizeof(*p));
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		return;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	if (pthread_create(&p->th, NULL, helper_main, p) != 0) {
		pthread_cond_destroy(&p->cv);
		pthread_mutex_destroy(&p->mu);
		return;
	}
	p->started = 1;
}

static void helper_stop(struct helper *p)
{
	if (!p->started)
		return;
	pthread_mutex_lock(&p->mu);
	p->quit = 1;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	pthread_join(p->th, NULL);
	pthread_cond_destroy(&p->cv);
	pthread_mutex_destroy(&p->mu);
	p->started = 0;
}

/* fn(arg) on the helper; helper_wait() before the next post. */
static void helper_post(struct helper *p, void *(*fn)(void *), void *arg)
{
	pthread_mutex_lock(&p->mu);
	p->fn = fn;
	p->arg = arg;
	p->have_job = 1;
	p->done = 0;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
}

static void helper_wait(struct helper *p)
{
	pthread_mutex_lock(&p->mu);
	while (!p->done)
		pthread_cond_wait(&p->cv, &p->mu);
	pthread_mutex_unlock(&p->mu);
}

/* A tile of bb output rows, its columns split with the helper when there
 * is one. */
static void transpose_tile(struct helper *p, const struct tr_job *all)
{
	struct tr_job mine = *all, theirs = *all;

	if (!p->started || all->n < 2 * TR_BLOCK) {
		tr_run(&mine);
		return;
	}
	mine.j1 = (all->n / 2 + TR_BLOCK - 1) / TR_BLOCK * TR_BLOCK;
	theirs.j0 = mine.j1;
	helper_post(p, tr_run, &theirs);
	tr_run(&mine);
	helper_wait(p);
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
	 * last not): tiles of whole output rows, each transposed in squares
	 * and written while it is still in the cache; over a large source,
	 * fewer (larger) tiles, each a pass over the source that drops the
	 * pages behind it */
	if (rank >= 2 && t->ref.strides[rank - 2] == 1 && s != 1 && n) {
		int64_t m = t->dims[rank - 2];
		int drop = span > DROP_SPAN;
		int64_t tile = (int64_t)(TR_OUT / row);
		if (drop && tile < (m + TR_PASSES - 1) / TR_PASSES)
			tile = (m + TR_PASSES - 1) / TR_PASSES;
		tile = tile / TR_BLOCK * TR_BLOCK;
		if (tile < TR_BLOCK)
			tile = TR_BLOCK;
		if (tile > m)
			tile = m;
		unsigned char *tb = xmalloc((size_t)tile * row);
		struct tr_job job = {
			.dst = tb, .n = n, .s = s, .es = es, .map = map,
			.maplen = maplen, .drop = drop, .page = (size_t)page,
		};
		struct helper pool;
		if (tensor_data_size(t) >= TR_THREADS_MIN)
			helper_start(&pool);
		else
			memset(&pool, 0, sizeof(pool));
		for (;;) {
			int64_t off = 0;
			for (int i = 0; i < rank - 2; i++)
				off += idx[i] * t->ref.strides[i];
			for (int64_t r0 = 0; r0 < m; r0 += tile) {
				job.bb = m - r0 < tile ? m - r0 : tile;
				job.src = base + (size_t)(off + r0) * es;
				job.j0 = 0;
				job.j1 = n;
				transpose_tile(&pool, &job);
				if (outfile_write(out, tb, (size_t)job.bb * row,
						  d)) {
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
		helper_stop(&pool);
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

/* Elements [at, at + k) of a scaled view (per elements a row): read from
 * the file (element 0 at off) into dst[0, k) and computed there. */
struct sc_job {
	float *dst;
	int fd;
	uint64_t off;
	const double *scale;
	uint64_t at, k, per;
	enum weight_err err;
	int errnum; /* errno of a failed read (the helper's own) */
};

static void *sc_run(void *arg)
{
	struct sc_job *j = arg;

	j->err = weight_pread(j->fd, j->dst, (size_t)j->k * sizeof(float),
			      j->off + j->at * sizeof(float));
	j->errnum = errno;
	for (uint64_t i = j->at; !j->err && i < j->at + j->k;) {
		uint64_t row = i / j->per, end = (row + 1) * j->per;
		if (end > j->at + j->k)
			end = j->at + j->k;
		weight_scale_row(j->dst + (i - j->at), j->dst + (i - j->at),
				 end - i, j->scale[row]);
		i = end;
	}
	return NULL;
}

#define SC_THREADS_MIN ((uint64_t)2 * TENSOR_DATA_CHUNK) /* smaller: one */

/* A scaled view (contiguous, Float; tensor_data_check said so): each
 * output chunk read into a buffer, computed there (sc_run) and written;
 * from two chunks up, the helper reads and computes the next chunk into a
 * second buffer while this one is written. */
static int copy_scaled(struct tensor_reader *r, const struct ir_tensor *t,
		       const char *what, struct outfile *out, struct diag *d)
{
	uint64_t size = tensor_data_size(t), n = ir_tensor_numel(t);
	const uint64_t cap = TENSOR_DATA_CHUNK / sizeof(float);
	struct helper h;
	float *bufs[2] = { (float *)(void *)r->buf, NULL };
	int rc = 0, cur = 0;
	struct sc_job job[2] = { {
		.fd = r->fd,
		.off = t->ref.offset,
		.scale = t->ref.scale,
		.per = n / (uint64_t)t->dims[0],
	} };

	job[1] = job[0];
	memset(&h, 0, sizeof(h));
	if (size >= SC_THREADS_MIN) {
		helper_start(&h);
		if (h.started)
			bufs[1] = xmalloc(TENSOR_DATA_CHUNK);
	}
	job[0].dst = bufs[0];
	job[0].k = n < cap ? n : cap;
	sc_run(&job[0]);
	for (;;) {
		struct sc_job *now = &job[cur], *next = &job[!cur];
		if (now->err) {
			if (now->err == WEIGHT_READ)
				diag_error(d, "%s: cannot read '%s': %s", what,
					   r->path, strerror(now->errnum));
			else
				diag_error(d, "%s: '%s' ended before the "
					   "reference did (did it change?)",
					   what, r->path);
			rc = now->err == WEIGHT_READ ? EXIT_IO : EXIT_BAD_INPUT;
			break;
		}
		next->at = now->at + now->k;
		next->k = n - next->at < cap ? n - next->at : cap;
		next->dst = bufs[1] ? bufs[!cur] : bufs[0];
		if (next->k && bufs[1])
			helper_post(&h, sc_run, next);
		if (outfile_write(out, now->dst, (size_t)now->k * sizeof(float),
				  d))
			rc = EXIT_IO;
		if (next->k && bufs[1])
			helper_wait(&h);
		else if (next->k && !rc)
			sc_run(next);
		if (rc || !next->k)
			break;
		cur = !cur;
	}
	helper_stop(&h);
	free(bufs[1]);
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
	if (t->ref.scale)
		return copy_scaled(r, t, what, out, d);
	if (weight_contiguous(t))
		return copy_range(r, t->ref.offset, size, what, out, d);
	return copy_strided(r, t, what, out, d);
}

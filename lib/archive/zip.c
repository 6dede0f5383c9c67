/*
 * zip.c - the zip reader behind .pt archives (see zip.h).
 *
 * Costs: zip_open does two or three preads (the tail, maybe the ZIP64 end
 * record, the central directory) and O(n log n) work for n entries (a sort
 * by offset to prove that entries do not overlap).  zip_locate is one pread
 * of the local header and the name after it.  zip_read allocates the
 * entry's size once and streams compressed input through a 64 KiB buffer.
 *
 * Every number read from the file is checked before it is used as a size,
 * an offset or a count; sums are computed with overflow checks.
 */
#include "zip.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "quote.h"
#include "rlimits.h"

#define SIG_LOCAL 0x04034b50u
#define SIG_CENTRAL 0x02014b50u
#define SIG_EOCD 0x06054b50u
#define SIG_EOCD64 0x06064b50u
#define SIG_LOC64 0x07064b50u

#define EOCD_LEN 22
#define LOC64_LEN 20
#define EOCD64_LEN 56
#define CENTRAL_LEN 46
#define LOCAL_LEN 30
#define MAX_COMMENT 65535
#define IO_CHUNK 65536
#define ZIP_MAX_ENTRIES (1u << 28) /* keeps the hash's size in 32 bits */

/* --- little helpers ------------------------------------------------------ */

static uint16_t rd16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t rd32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint64_t rd64(const unsigned char *p)
{
	return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

/* Reports msg with d->file set to the zip's name for the call. */
__attribute__((format(printf, 3, 4)))
static int zerr(const struct zip *z, struct diag *d, const char *fmt, ...)
{
	char msg[768];
	va_list ap;
	const char *old = d->file;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	d->file = z->name;
	diag_error(d, "%s", msg);
	d->file = old;
	return -1;
}

/* The entry's name, quoted for a message. */
#define ENAME(buf, e) quote_bytes(buf, sizeof buf, (e)->name, (e)->name_len)

int zip_pread(struct zip *z, void *buf, size_t len, uint64_t offset,
	      struct diag *d)
{
	if (offset > z->size || len > z->size - offset)
		return zerr(z, d, "read of %zu bytes at offset %llu runs past "
			    "the end of the file (%llu bytes)", len,
			    (unsigned long long)offset,
			    (unsigned long long)z->size);
	if (z->mem) {
		memcpy(buf, z->mem + offset, len);
		return 0;
	}
	unsigned char *p = buf;
	while (len) {
		ssize_t n = pread(z->fd, p, len, (off_t)offset);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return zerr(z, d, "read at offset %llu: %s",
				    (unsigned long long)offset,
				    strerror(errno));
		if (n == 0)
			return zerr(z, d, "file shrank while reading (offset "
				    "%llu)", (unsigned long long)offset);
		p += n;
		len -= (size_t)n;
		offset += (uint64_t)n;
	}
	return 0;
}

static uint32_t name_hash(const char *s, size_t len)
{
	uint32_t h = 2166136261u; /* FNV-1a */
	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 16777619u;
	}
	return h;
}

const struct zip_entry *zip_find_n(const struct zip *z, const char *name,
				   size_t len)
{
	if (!z || !z->hash || !name)
		return NULL;
	uint32_t i = name_hash(name, len) & z->hash_mask;
	for (;; i = (i + 1) & z->hash_mask) {
		uint32_t slot = z->hash[i];
		if (!slot)
			return NULL;
		const struct zip_entry *e = &z->entries[slot - 1];
		if (e->name_len == len && !memcmp(e->name, name, len))
			return e;
	}
}

const struct zip_entry *zip_find(const struct zip *z, const char *name)
{
	return name ? zip_find_n(z, name, strlen(name)) : NULL;
}

/* --- opening ------------------------------------------------------------- */

/* Finds the end records; sets cd_offset, cd_size and *count. */
static int read_tail(struct zip *z, uint64_t *count, struct diag *d)
{
	size_t tail_len = z->size < EOCD_LEN + MAX_COMMENT + LOC64_LEN
				  ? (size_t)z->size
				  : EOCD_LEN + MAX_COMMENT + LOC64_LEN;
	uint64_t tail_off = z->size - tail_len;
	unsigned char *tail;
	long eocd = -1;

	if (z->size < EOCD_LEN)
		return zerr(z, d, "not a zip archive (%llu bytes, too short "
			    "for an end of central directory record)",
			    (unsigned long long)z->size);
	tail = xmalloc(tail_len);
	if (zip_pread(z, tail, tail_len, tail_off, d)) {
		free(tail);
		return -1;
	}
	/* The last signature whose comment ends within the file. */
	for (long i = (long)tail_len - EOCD_LEN; i >= 0; i--) {
		if (rd32(tail + i) == SIG_EOCD &&
		    (size_t)i + EOCD_LEN + rd16(tail + i + 20) <= tail_len) {
			eocd = i;
			break;
		}
	}
	if (eocd < 0) {
		free(tail);
		return zerr(z, d, "not a zip archive (no end of central "
			    "directory record)");
	}
	const unsigned char *e = tail + eocd;
	uint64_t region_end = tail_off + (uint64_t)eocd;
	if (rd16(e + 4) != 0 || rd16(e + 6) != 0) {
		free(tail);
		return zerr(z, d, "multi-disk zip archives are not supported");
	}
	*count = rd16(e + 10);
	z->cd_size = rd32(e + 12);
	z->cd_offset = rd32(e + 16);

	if (eocd >= LOC64_LEN && rd32(e - LOC64_LEN) == SIG_LOC64) {
		const unsigned char *l = e - LOC64_LEN;
		uint64_t off64 = rd64(l + 8);
		unsigned char r[EOCD64_LEN];
		uint64_t loc_pos = region_end - LOC64_LEN;

		if (rd32(l + 4) != 0 || rd32(l + 16) > 1) {
			free(tail);
			return zerr(z, d, "multi-disk zip archives are not "
				    "supported");
		}
		if (off64 > loc_pos || loc_pos - off64 < EOCD64_LEN) {
			free(tail);
			return zerr(z, d, "ZIP64 end record offset %llu is out "
				    "of range", (unsigned long long)off64);
		}
		free(tail);
		if (zip_pread(z, r, sizeof r, off64, d))
			return -1;
		if (rd32(r) != SIG_EOCD64)
			return zerr(z, d, "no ZIP64 end of central directory "
				    "record at offset %llu",
				    (unsigned long long)off64);
		if (rd32(r + 16) != 0 || rd32(r + 20) != 0)
			return zerr(z, d, "multi-disk zip archives are not "
				    "supported");
		*count = rd64(r + 32);
		z->cd_size = rd64(r + 40);
		z->cd_offset = rd64(r + 48);
		z->zip64 = 1;
		region_end = off64;
	} else {
		free(tail);
	}
	if (z->cd_offset > region_end || z->cd_size > region_end - z->cd_offset)
		return zerr(z, d, "central directory (offset %llu, %llu bytes) "
			    "is out of range (it must end by offset %llu)",
			    (unsigned long long)z->cd_offset,
			    (unsigned long long)z->cd_size,
			    (unsigned long long)region_end);
	if (*count > z->cd_size / CENTRAL_LEN || *count > ZIP_MAX_ENTRIES)
		return zerr(z, d, "central directory claims %llu entries in "
			    "%llu bytes", (unsigned long long)*count,
			    (unsigned long long)z->cd_size);
	return 0;
}

/* Applies a ZIP64 extended information extra field (id 1) to e. */
static int read_extra(struct zip *z, struct zip_entry *e, int need_usize,
		      int need_csize, int need_off, const unsigned char *p,
		      size_t len, struct diag *d)
{
	char nb[QUOTE_MAX];
	while (len >= 4) {
		uint16_t id = rd16(p), sz = rd16(p + 2);
		if ((size_t)sz > len - 4)
			return zerr(z, d, "entry '%s': extra field runs past "
				    "its record", ENAME(nb, e));
		if (id == 1) {
			const unsigned char *q = p + 4, *end = q + sz;
			if (need_usize) {
				if (end - q < 8)
					goto short64;
				e->usize = rd64(q);
				q += 8;
				need_usize = 0;
			}
			if (need_csize) {
				if (end - q < 8)
					goto short64;
				e->csize = rd64(q);
				q += 8;
				need_csize = 0;
			}
			if (need_off) {
				if (end - q < 8)
					goto short64;
				e->header_offset = rd64(q);
				need_off = 0;
			}
		}
		p += 4 + sz;
		len -= 4 + (size_t)sz;
	}
	if (need_usize || need_csize || need_off)
		return zerr(z, d, "entry '%s': sizes or offset marked ZIP64 "
			    "but no ZIP64 extra field gives them",
			    ENAME(nb, e));
	return 0;
short64:
	return zerr(z, d, "entry '%s': ZIP64 extra field is too short",
		    ENAME(nb, e));
}

static int read_directory(struct zip *z, uint64_t count, struct diag *d)
{
	unsigned char *cd = malloc(z->cd_size ? (size_t)z->cd_size : 1);
	size_t pos = 0;
	char nb[QUOTE_MAX];

	if (!cd)
		return zerr(z, d, "out of memory for a central directory of "
			    "%llu bytes", (unsigned long long)z->cd_size);
	if (zip_pread(z, cd, (size_t)z->cd_size, z->cd_offset, d)) {
		free(cd);
		return -1;
	}
	z->entries = arena_alloc(&z->arena, (count ? count : 1) *
					    sizeof *z->entries);
	uint32_t cap = 16;
	while (cap < 2 * count)
		cap <<= 1;
	z->hash = arena_alloc(&z->arena, cap * sizeof *z->hash);
	z->hash_mask = cap - 1;

	for (uint64_t i = 0; i < count; i++) {
		const unsigned char *r = cd + pos;
		struct zip_entry *e = &z->entries[i];

		if (z->cd_size - pos < CENTRAL_LEN || rd32(r) != SIG_CENTRAL) {
			zerr(z, d, "central directory record %llu (offset "
			     "%llu) is truncated or has a bad signature",
			     (unsigned long long)i,
			     (unsigned long long)(z->cd_offset + pos));
			goto fail;
		}
		size_t nlen = rd16(r + 28), xlen = rd16(r + 30),
		       clen = rd16(r + 32);
		if (z->cd_size - pos - CENTRAL_LEN < nlen + xlen + clen) {
			zerr(z, d, "central directory record %llu runs past "
			     "the directory", (unsigned long long)i);
			goto fail;
		}
		const char *name = (const char *)r + CENTRAL_LEN;
		if (nlen == 0 || memchr(name, 0, nlen)) {
			zerr(z, d, "central directory record %llu has an %s "
			     "name", (unsigned long long)i,
			     nlen ? "embedded NUL in its" : "empty");
			goto fail;
		}
		char *copy = arena_alloc(&z->arena, nlen + 1);
		memcpy(copy, name, nlen);
		e->name = copy;
		e->name_len = (uint32_t)nlen;
		e->flags = rd16(r + 8);
		e->method = rd16(r + 10);
		e->crc32 = rd32(r + 16);
		e->csize = rd32(r + 20);
		e->usize = rd32(r + 24);
		e->header_offset = rd32(r + 42);
		int disk = rd16(r + 34);
		if (read_extra(z, e, e->usize == 0xffffffffu,
			       e->csize == 0xffffffffu,
			       e->header_offset == 0xffffffffu,
			       r + CENTRAL_LEN + nlen, xlen, d))
			goto fail;
		if (disk != 0 && disk != 0xffff) {
			zerr(z, d, "entry '%s' is on disk %d: multi-disk zip "
			     "archives are not supported", ENAME(nb, e), disk);
			goto fail;
		}
		if (e->method == ZIP_METHOD_STORED && e->csize != e->usize) {
			zerr(z, d, "entry '%s' is stored but its sizes differ "
			     "(%llu compressed, %llu uncompressed)",
			     ENAME(nb, e), (unsigned long long)e->csize,
			     (unsigned long long)e->usize);
			goto fail;
		}
		/* insert by name, refusing duplicates */
		uint32_t h = name_hash(e->name, nlen) & z->hash_mask;
		while (z->hash[h]) {
			const struct zip_entry *o = &z->entries[z->hash[h] - 1];
			if (o->name_len == nlen && !memcmp(o->name, e->name, nlen)) {
				zerr(z, d, "duplicate entry '%s'", ENAME(nb, e));
				goto fail;
			}
			h = (h + 1) & z->hash_mask;
		}
		z->hash[h] = (uint32_t)i + 1;
		z->nentries = (uint32_t)i + 1;
		pos += CENTRAL_LEN + nlen + xlen + clen;
	}
	free(cd);
	return 0;
fail:
	free(cd);
	return -1;
}

static int by_offset(const void *a, const void *b, void *zp)
{
	const struct zip *z = zp;
	uint64_t x = z->entries[*(const uint32_t *)a].header_offset;
	uint64_t y = z->entries[*(const uint32_t *)b].header_offset;
	return x < y ? -1 : x > y;
}

/* Proves that entries lie before the directory and do not overlap. */
static int check_layout(struct zip *z, struct diag *d)
{
	uint32_t n = z->nentries;
	uint32_t *idx = xmalloc((n ? n : 1) * sizeof *idx);
	char nb[QUOTE_MAX], nb2[QUOTE_MAX];
	int rc = 0;

	for (uint32_t i = 0; i < n; i++)
		idx[i] = i;
	qsort_r(idx, n, sizeof *idx, by_offset, z);
	for (uint32_t k = 0; k < n && !rc; k++) {
		struct zip_entry *e = &z->entries[idx[k]];
		uint64_t limit = k + 1 < n
					 ? z->entries[idx[k + 1]].header_offset
					 : z->cd_offset;
		uint64_t start = e->header_offset;
		if (start > z->cd_offset ||
		    z->cd_offset - start < LOCAL_LEN + (uint64_t)e->name_len) {
			rc = zerr(z, d, "entry '%s': local header offset %llu "
				  "is beyond the entries' area (the central "
				  "directory starts at %llu)", ENAME(nb, e),
				  (unsigned long long)start,
				  (unsigned long long)z->cd_offset);
			break;
		}
		uint64_t room = limit - start; /* limit >= start: sorted */
		if (room < LOCAL_LEN + (uint64_t)e->name_len ||
		    room - LOCAL_LEN - e->name_len < e->csize) {
			if (k + 1 < n)
				rc = zerr(z, d, "entry '%s' (offset %llu, %llu "
					  "bytes) overlaps entry '%s' (offset "
					  "%llu)", ENAME(nb, e),
					  (unsigned long long)start,
					  (unsigned long long)e->csize,
					  ENAME(nb2, &z->entries[idx[k + 1]]),
					  (unsigned long long)limit);
			else
				rc = zerr(z, d, "entry '%s' (offset %llu, %llu "
					  "bytes) runs into the central "
					  "directory (offset %llu)",
					  ENAME(nb, e), (unsigned long long)start,
					  (unsigned long long)e->csize,
					  (unsigned long long)limit);
			break;
		}
		e->limit = limit;
	}
	free(idx);
	return rc;
}

static struct zip *open_common(struct zip *z, struct diag *d)
{
	uint64_t count = 0;
	if (read_tail(z, &count, d) || read_directory(z, count, d) ||
	    check_layout(z, d)) {
		zip_close(z);
		return NULL;
	}
	return z;
}

static struct zip *zip_new(const char *name)
{
	struct zip *z = xcalloc(1, sizeof *z);
	z->fd = -1;
	z->name = name ? xstrdup(name) : xstrdup("<zip>");
	return z;
}

struct zip *zip_open_fd(int fd, const char *name, struct diag *d)
{
	struct zip *z = zip_new(name);
	struct stat st;

	z->fd = fd;
	if (fstat(fd, &st) < 0) {
		zerr(z, d, "%s", strerror(errno));
		zip_close(z);
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		zerr(z, d, "not a regular file (a zip archive must be seekable)");
		zip_close(z);
		return NULL;
	}
	z->size = (uint64_t)st.st_size;
	return open_common(z, d);
}

struct zip *zip_open(const char *path, struct diag *d)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		const char *old = d->file;
		d->file = path;
		diag_error(d, "%s", strerror(errno));
		d->file = old;
		return NULL;
	}
	struct zip *z = zip_open_fd(fd, path, d);
	if (!z) {
		close(fd);
		return NULL;
	}
	z->own_fd = 1;
	return z;
}

struct zip *zip_open_mem(const void *buf, size_t len, const char *name,
			 struct diag *d)
{
	struct zip *z = zip_new(name);
	static const unsigned char empty[1];
	z->mem = buf ? buf : empty;
	z->size = buf ? len : 0;
	return open_common(z, d);
}

void zip_close(struct zip *z)
{
	if (!z)
		return;
	if (z->own_fd && z->fd >= 0)
		close(z->fd);
	arena_release(&z->arena);
	free((char *)z->name);
	free(z);
}

/* --- reading ------------------------------------------------------------- */

int zip_locate(struct zip *z, const struct zip_entry *ce, uint64_t *offset,
	       struct diag *d)
{
	struct zip_entry *e = (struct zip_entry *)ce; /* the cache is ours */
	unsigned char small[LOCAL_LEN + 256];
	char nb[QUOTE_MAX];

	if (!e->data_offset) {
		/* the header and the name in one pread: check_layout proved
		 * 30 + name_len + csize fit before limit */
		size_t want = LOCAL_LEN + (size_t)e->name_len;
		unsigned char *h = want <= sizeof small ? small
							: xmalloc(want);
		int bad = zip_pread(z, h, want, e->header_offset, d);
		size_t nlen = 0, xlen = 0;
		if (!bad && rd32(h) != SIG_LOCAL)
			bad = zerr(z, d, "entry '%s': no local header at "
				   "offset %llu", ENAME(nb, e),
				   (unsigned long long)e->header_offset);
		if (!bad) {
			nlen = rd16(h + 26);
			xlen = rd16(h + 28);
			if (nlen != e->name_len ||
			    memcmp(h + LOCAL_LEN, e->name, nlen))
				bad = zerr(z, d, "entry '%s': local header "
					   "names a different entry",
					   ENAME(nb, e));
		}
		if (!bad && rd16(h + 8) != e->method)
			bad = zerr(z, d, "entry '%s': local header says "
				   "method %u, the directory %u", ENAME(nb, e),
				   rd16(h + 8), e->method);
		if (h != small)
			free(h);
		if (bad)
			return -1;
		uint64_t data = e->header_offset + LOCAL_LEN + nlen + xlen;
		if (data > e->limit || e->limit - data < e->csize)
			return zerr(z, d, "entry '%s': data (offset %llu, %llu "
				    "bytes) runs past the next entry or the "
				    "directory (offset %llu)", ENAME(nb, e),
				    (unsigned long long)data,
				    (unsigned long long)e->csize,
				    (unsigned long long)e->limit);
		e->data_offset = data;
	}
	if (offset)
		*offset = e->data_offset;
	return 0;
}

static int check_readable(struct zip *z, const struct zip_entry *e,
			  struct diag *d)
{
	char nb[QUOTE_MAX];
	if (e->flags & 1)
		return zerr(z, d, "entry '%s' is encrypted", ENAME(nb, e));
	if (e->method != ZIP_METHOD_STORED && e->method != ZIP_METHOD_DEFLATED)
		return zerr(z, d, "entry '%s' uses compression method %u "
			    "(only stored and deflate are supported)",
			    ENAME(nb, e), e->method);
	if (e->method == ZIP_METHOD_DEFLATED &&
	    e->usize / 1032 > e->csize + 64)
		return zerr(z, d, "entry '%s' claims %llu bytes from %llu "
			    "compressed, more than deflate can produce",
			    ENAME(nb, e), (unsigned long long)e->usize,
			    (unsigned long long)e->csize);
	return 0;
}

/* Decodes e's data.  With out non-NULL (room for e->usize bytes) the data
 * lands there; otherwise it passes through a window and is only counted
 * and checksummed.  Checks size and CRC-32. */
static int extract(struct zip *z, const struct zip_entry *e,
		   unsigned char *out, struct diag *d)
{
	unsigned char *in = xmalloc(IO_CHUNK);
	unsigned char *window = out ? NULL : xmalloc(IO_CHUNK);
	unsigned char spill[16];
	uint64_t off, remaining = e->csize, produced = 0;
	uLong crc = crc32(0, Z_NULL, 0);
	char nb[QUOTE_MAX];
	int rc = -1;
	z_stream s;

	memset(&s, 0, sizeof s);
	if (zip_locate(z, e, &off, d))
		goto done;
	if (e->method == ZIP_METHOD_STORED) {
		while (remaining) {
			size_t n = remaining < IO_CHUNK ? (size_t)remaining
							: IO_CHUNK;
			unsigned char *dst = out ? out + produced : in;
			if (zip_pread(z, dst, n, off, d))
				goto done;
			crc = crc32(crc, dst, (uInt)n);
			off += n;
			remaining -= n;
			produced += n;
		}
	} else {
		if (inflateInit2(&s, -MAX_WBITS) != Z_OK) {
			zerr(z, d, "entry '%s': zlib cannot start",
			     ENAME(nb, e));
			goto done;
		}
		for (;;) {
			if (s.avail_in == 0 && remaining) {
				size_t n = remaining < IO_CHUNK
						   ? (size_t)remaining
						   : IO_CHUNK;
				if (zip_pread(z, in, n, off, d))
					goto inflate_done;
				s.next_in = in;
				s.avail_in = (uInt)n;
				off += n;
				remaining -= n;
			}
			unsigned char *dst;
			uInt room;
			int overflow = produced >= e->usize;
			if (out && !overflow) {
				uint64_t left = e->usize - produced;
				dst = out + produced;
				room = left < (1u << 30) ? (uInt)left : 1u << 30;
			} else if (out) {
				/* the buffer is full: any more output is an
				   error, caught below */
				dst = spill;
				room = sizeof spill;
			} else {
				dst = window;
				room = IO_CHUNK;
			}
			s.next_out = dst;
			s.avail_out = room;
			int ret = inflate(&s, Z_NO_FLUSH);
			uInt got = room - s.avail_out;
			if (got && (overflow || produced + got > e->usize)) {
				zerr(z, d, "entry '%s' inflates to more than the "
				     "%llu bytes the directory declares",
				     ENAME(nb, e), (unsigned long long)e->usize);
				goto inflate_done;
			}
			crc = crc32(crc, dst, got);
			produced += got;
			if (ret == Z_STREAM_END)
				break;
			if (ret != Z_OK && ret != Z_BUF_ERROR) {
				zerr(z, d, "entry '%s': corrupt deflate data "
				     "(%s)", ENAME(nb, e),
				     s.msg ? s.msg : "zlib error");
				goto inflate_done;
			}
			if (s.avail_in == 0 && !remaining && got == 0) {
				zerr(z, d, "entry '%s': deflate data ends before "
				     "the end of the stream", ENAME(nb, e));
				goto inflate_done;
			}
		}
		inflateEnd(&s);
	}
	if (produced != e->usize) {
		zerr(z, d, "entry '%s' inflates to %llu bytes, the directory "
		     "declares %llu", ENAME(nb, e),
		     (unsigned long long)produced, (unsigned long long)e->usize);
		goto done;
	}
	if ((uint32_t)crc != e->crc32) {
		zerr(z, d, "entry '%s': bad CRC-32 (computed %08x, the "
		     "directory says %08x)", ENAME(nb, e), (unsigned)crc,
		     (unsigned)e->crc32);
		goto done;
	}
	rc = 0;
	goto done;
inflate_done:
	inflateEnd(&s);
done:
	free(in);
	free(window);
	return rc;
}

int zip_read(struct zip *z, const struct zip_entry *e, void **buf,
	     size_t *len, struct diag *d)
{
	char nb[QUOTE_MAX];
	*buf = NULL;
	if (len)
		*len = 0;
	if (check_readable(z, e, d))
		return -1;
	if (e->usize >= SIZE_MAX)
		return zerr(z, d, "entry '%s' is too large", ENAME(nb, e));
	/* what is read into memory (pickles, code, constants; weights are
	 * mapped or streamed, never read here) has a limit: a 1 MB entry
	 * inflating to 1 GiB is a zip bomb, not a model */
	if (e->usize > LIMIT_ZIP_INFLATE_BYTES)
		return zerr(z, d, "entry '%s' is %llu bytes, over the limit of "
			    "%llu for a record read into memory", ENAME(nb, e),
			    (unsigned long long)e->usize,
			    (unsigned long long)LIMIT_ZIP_INFLATE_BYTES);
	unsigned char *out = malloc((size_t)e->usize + 1);
	if (!out)
		return zerr(z, d, "entry '%s': out of memory for %llu bytes",
			    ENAME(nb, e), (unsigned long long)e->usize);
	if (extract(z, e, out, d)) {
		free(out);
		return -1;
	}
	out[e->usize] = 0;
	*buf = out;
	if (len)
		*len = (size_t)e->usize;
	return 0;
}

int zip_verify(struct zip *z, const struct zip_entry *e, struct diag *d)
{
	if (check_readable(z, e, d))
		return -1;
	return extract(z, e, NULL, d);
}

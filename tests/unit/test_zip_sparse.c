/*
 * test_zip_sparse.c - lib/archive/zip.c on a real file past 4 GiB: a sparse
 * file (no disk space used) whose first entry is a stored 4 GiB + 64 KiB
 * "weight" and whose second entry starts after it, so that the 64-bit
 * paths (ZIP64 end record and locator, ZIP64 extra fields for sizes and
 * for a local header offset, pread at offsets over 4 GiB) run on a file
 * and not only in memory.  The big entry is never read: opening the zip,
 * finding and locating both entries and reading the small one must read
 * under 256 KiB (this process's rchar in /proc/self/io), and the small
 * one's bytes come back as written.  Skipped where the file system cannot hold
 * a sparse file that large.
 */
#define _FILE_OFFSET_BITS 64
#include "unit.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "zip.h"

#define BIG_NAME "m/data/0"
#define SMALL_NAME "m/data.pkl"
#define BIG_SIZE ((4ull << 30) + (64u << 10))

static const char small_text[] = "bytes after the 4 GiB mark\n";

/* A little-endian byte writer over a fixed buffer. */
struct buf {
	unsigned char b[2048];
	size_t n;
};

static void put(struct buf *w, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		w->b[w->n++] = (unsigned char)(v >> (8 * i));
}

static void put_s(struct buf *w, const void *p, size_t n)
{
	memcpy(w->b + w->n, p, n);
	w->n += n;
}

/* A local header: sizes as given (0xffffffff with a ZIP64 extra field). */
static void local_header(struct buf *w, const char *name, uint32_t crc,
			 uint64_t size)
{
	int big = size >= 0xffffffffu;
	put(w, 0x04034b50, 4);
	put(w, big ? 45 : 20, 2);               /* version needed */
	put(w, 0, 2);                           /* flags */
	put(w, 0, 2);                           /* stored */
	put(w, 0, 4);                           /* time, date */
	put(w, crc, 4);
	put(w, big ? 0xffffffffu : size, 4);    /* compressed */
	put(w, big ? 0xffffffffu : size, 4);    /* uncompressed */
	put(w, strlen(name), 2);
	put(w, big ? 20 : 0, 2);                /* extra length */
	put_s(w, name, strlen(name));
	if (big) {
		put(w, 1, 2);
		put(w, 16, 2);
		put(w, size, 8);
		put(w, size, 8);
	}
}

/* A central directory record with the ZIP64 extra field it needs. */
static void cd_record(struct buf *w, const char *name, uint32_t crc,
		      uint64_t size, uint64_t offset)
{
	int big = size >= 0xffffffffu, far = offset >= 0xffffffffu;
	put(w, 0x02014b50, 4);
	put(w, 45, 2);                          /* version made by */
	put(w, 45, 2);                          /* version needed */
	put(w, 0, 2);
	put(w, 0, 2);
	put(w, 0, 4);
	put(w, crc, 4);
	put(w, big ? 0xffffffffu : size, 4);
	put(w, big ? 0xffffffffu : size, 4);
	put(w, strlen(name), 2);
	put(w, (big ? 16 : 0) + (far ? 8 : 0) + (big || far ? 4 : 0), 2);
	put(w, 0, 2);                           /* comment */
	put(w, 0, 2);                           /* disk */
	put(w, 0, 2);                           /* internal attributes */
	put(w, 0, 4);                           /* external attributes */
	put(w, far ? 0xffffffffu : offset, 4);
	put_s(w, name, strlen(name));
	if (big || far) {
		put(w, 1, 2);
		put(w, (big ? 16 : 0) + (far ? 8 : 0), 2);
		if (big) {
			put(w, size, 8);
			put(w, size, 8);
		}
		if (far)
			put(w, offset, 8);
	}
}

static int pwrite_all(int fd, const void *p, size_t n, uint64_t off)
{
	return pwrite(fd, p, n, (off_t)off) == (ssize_t)n ? 0 : -1;
}

static long long rchar(void)
{
	char line[128];
	long long v = -1;
	FILE *f = fopen("/proc/self/io", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "rchar: %lld", &v) == 1)
			break;
	fclose(f);
	return v;
}

static void test_zip_sparse_past_4gib(void)
{
	char path[] = "/tmp/pt2onnx-test-zip-sparse-XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	if (fd < 0)
		return;

	/* the big entry's CRC is never checked (it is never read): a
	 * reader that did check it would fail on this one */
	uint32_t small_crc = (uint32_t)crc32(0, (const Bytef *)small_text,
					     sizeof small_text - 1);
	struct buf h0 = { .n = 0 }, h1 = { .n = 0 }, cd = { .n = 0 },
		   tail = { .n = 0 };
	local_header(&h0, BIG_NAME, 0x12345678, BIG_SIZE);
	uint64_t big_data = h0.n;
	uint64_t off1 = big_data + BIG_SIZE;
	local_header(&h1, SMALL_NAME, small_crc, sizeof small_text - 1);
	uint64_t small_data = off1 + h1.n;
	uint64_t cd_off = small_data + sizeof small_text - 1;
	cd_record(&cd, BIG_NAME, 0x12345678, BIG_SIZE, 0);
	cd_record(&cd, SMALL_NAME, small_crc, sizeof small_text - 1, off1);
	uint64_t eocd64 = cd_off + cd.n;
	put(&tail, 0x06064b50, 4);              /* ZIP64 end record */
	put(&tail, 44, 8);
	put(&tail, 45, 2);
	put(&tail, 45, 2);
	put(&tail, 0, 4);
	put(&tail, 0, 4);
	put(&tail, 2, 8);
	put(&tail, 2, 8);
	put(&tail, cd.n, 8);
	put(&tail, cd_off, 8);
	put(&tail, 0x07064b50, 4);              /* ZIP64 locator */
	put(&tail, 0, 4);
	put(&tail, eocd64, 8);
	put(&tail, 1, 4);
	put(&tail, 0x06054b50, 4);              /* classic end record */
	put(&tail, 0, 2);
	put(&tail, 0, 2);
	put(&tail, 0xffff, 2);
	put(&tail, 0xffff, 2);
	put(&tail, 0xffffffffu, 4);
	put(&tail, 0xffffffffu, 4);
	put(&tail, 0, 2);

	if (pwrite_all(fd, h0.b, h0.n, 0) ||
	    pwrite_all(fd, h1.b, h1.n, off1) ||
	    pwrite_all(fd, small_text, sizeof small_text - 1, small_data) ||
	    pwrite_all(fd, cd.b, cd.n, cd_off) ||
	    pwrite_all(fd, tail.b, tail.n, eocd64)) {
		int e = errno;
		close(fd);
		unlink(path);
		if (e == EFBIG || e == ENOSPC || e == EDQUOT) {
			unit_skip("no sparse file over 4 GiB here");
			return;
		}
		CHECK(!"writing the sparse zip");
		return;
	}
	close(fd);

	struct diag d;
	diag_init(&d, "test");
	long long r0 = rchar();
	struct zip *z = zip_open(path, &d);
	CHECK(z != NULL);
	if (z) {
		CHECK(z->zip64);
		CHECK_INT(z->nentries, 2);
		CHECK_INT(z->size, eocd64 + tail.n);
		const struct zip_entry *big = zip_find(z, BIG_NAME);
		const struct zip_entry *small = zip_find(z, SMALL_NAME);
		CHECK(big && small);
		if (big && small) {
			uint64_t off = 0;
			CHECK_INT(big->usize, BIG_SIZE);
			CHECK_INT(big->csize, BIG_SIZE);
			CHECK_INT(small->header_offset, off1);
			CHECK_INT(zip_locate(z, big, &off, &d), 0);
			CHECK_INT(off, big_data);
			CHECK_INT(zip_locate(z, small, &off, &d), 0);
			CHECK_INT(off, small_data);
			void *text = NULL;
			size_t len = 0;
			CHECK_INT(zip_read(z, small, &text, &len, &d), 0);
			CHECK_INT(len, sizeof small_text - 1);
			if (text)
				CHECK_STR((const char *)text, small_text);
			free(text);
			CHECK_INT(zip_verify(z, small, &d), 0);
		}
		zip_close(z);
	}
	long long r1 = rchar();
	/* the tail (up to 64 KiB + 22 bytes: the longest comment), the
	 * directory, two local headers, the small entry, /proc/self/io */
	if (r0 >= 0 && r1 >= 0 && r1 - r0 >= 256 * 1024)
		unit_fail(__FILE__, __LINE__, "read %lld bytes", r1 - r0);
	CHECK_INT(d.nerrors, 0);
	unlink(path);
}

/* A 300-byte name (past zip_locate's stack buffer): found, located and
 * read; with its local copy's last byte changed, a clear error. */
static void test_zip_long_name(void)
{
	char name[301];
	static const char body[] = "long-named entry";
	uint32_t crc = (uint32_t)crc32(0, (const Bytef *)body,
				       sizeof body - 1);

	for (int i = 0; i < 300; i++)
		name[i] = "m/long/"[i % 7];
	name[300] = 0;
	for (int spoil = 0; spoil < 2; spoil++) {
		struct buf w = { .n = 0 };
		local_header(&w, name, crc, sizeof body - 1);
		if (spoil)
			w.b[30 + 299] ^= 1;
		uint64_t data = w.n;
		put_s(&w, body, sizeof body - 1);
		uint64_t cd_off = w.n;
		cd_record(&w, name, crc, sizeof body - 1, 0);
		uint64_t cd_len = w.n - cd_off;
		put(&w, 0x06054b50, 4);
		put(&w, 0, 4);
		put(&w, 1, 2);
		put(&w, 1, 2);
		put(&w, cd_len, 4);
		put(&w, cd_off, 4);
		put(&w, 0, 2);

		struct diag d;
		char *msgs = NULL;
		size_t msgs_len = 0;
		diag_init(&d, "test");
		d.out = open_memstream(&msgs, &msgs_len);
		struct zip *z = zip_open_mem(w.b, w.n, "long.zip", &d);
		CHECK(z != NULL);
		const struct zip_entry *e = z ? zip_find(z, name) : NULL;
		CHECK(e != NULL);
		if (e) {
			uint64_t off = 0;
			void *text = NULL;
			if (!spoil) {
				CHECK_INT(zip_locate(z, e, &off, &d), 0);
				CHECK_INT(off, data);
				CHECK_INT(zip_read(z, e, &text, NULL, &d), 0);
				if (text)
					CHECK_STR((const char *)text, body);
				free(text);
				CHECK_INT(d.nerrors, 0);
			} else {
				CHECK_INT(zip_locate(z, e, &off, &d), -1);
				CHECK_INT(zip_read(z, e, &text, NULL, &d), -1);
				CHECK(text == NULL);
				CHECK_INT(d.nerrors, 2);
			}
		}
		zip_close(z);
		fclose(d.out);
		if (spoil)
			CHECK(msgs && strstr(msgs, "local header names a "
					     "different entry"));
		free(msgs);
	}
}

const struct unit_test unit_tests[] = {
	UNIT(test_zip_long_name),
	UNIT(test_zip_sparse_past_4gib),
	{ 0 },
};

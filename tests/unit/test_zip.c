/*
 * test_zip.c - unit tests of lib/archive/zip.c on zips built in memory
 * (tests/archive/zipbuild.h): torch-style and ordinary entries, ZIP64 end
 * records, and every kind of damage the reader must report without
 * crashing (truncation at every length, every byte flipped, bad CRC,
 * overlapping and duplicate entries, offsets out of range, methods it
 * cannot read, deflate streams longer or shorter than declared).
 */
#include "unit.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../archive/zipbuild.h"
#include "zip.h"

/* A diag whose messages land in a string. */
struct capture {
	struct diag d;
	char *text;
	size_t len;
};

static void cap_init(struct capture *c)
{
	diag_init(&c->d, "test");
	c->text = NULL;
	c->len = 0;
	c->d.out = open_memstream(&c->text, &c->len);
}

static const char *cap_text(struct capture *c)
{
	fflush(c->d.out);
	return c->text ? c->text : "";
}

static void cap_free(struct capture *c)
{
	fclose(c->d.out);
	free(c->text);
}

/* 1 when the captured text holds s, and every message is one line. */
static int cap_has(struct capture *c, const char *s)
{
	const char *t = cap_text(c);
	int lines = 0;
	for (const char *p = t; *p; p++)
		lines += *p == '\n';
	if (lines != c->d.nerrors + c->d.nwarnings) {
		fprintf(stderr, "  messages are not one line each: %s", t);
		return 0;
	}
	if (!strstr(t, s)) {
		fprintf(stderr, "  expected '%s' in: %s", s, t);
		return 0;
	}
	return 1;
}

static const char text_a[] = "hello, stored world\n";

/* A sample: stored, deflated (big enough to compress), empty, torch-style. */
static void sample(struct zb *z, int zip64)
{
	static char big[3000];
	for (size_t i = 0; i < sizeof big; i++)
		big[i] = "abcdefgh\n"[i % 9 + (i % 7 == 0)];
	zb_add(z, "m/a.txt", text_a, sizeof text_a - 1, ZB_STORED);
	zb_add(z, "m/code/big.py", big, sizeof big, ZB_DEFLATE | ZB_TORCH);
	zb_add(z, "m/empty", "", 0, ZB_STORED | ZB_TORCH);
	zb_add(z, "m/data/0", "\1\2\3\4\5\6\7\10", 8, ZB_STORED | ZB_TORCH);
	zb_finish(z, zip64);
}

/* Opens and reads every entry; returns the number of failures. */
static int read_all(struct zip *z, struct diag *d)
{
	int bad = 0;
	for (uint32_t i = 0; i < z->nentries; i++) {
		void *buf;
		size_t len;
		if (zip_read(z, &z->entries[i], &buf, &len, d))
			bad++;
		else
			free(buf);
	}
	return bad;
}

static void test_zip_basic(void)
{
	struct zb b = ZB_INIT;
	struct capture c;
	cap_init(&c);
	sample(&b, 0);
	struct zip *z = zip_open_mem(b.buf, b.len, "sample.zip", &c.d);
	CHECK(z != NULL);
	if (!z)
		goto out;
	CHECK_INT(z->nentries, 4);
	CHECK(!z->zip64);
	const struct zip_entry *e = zip_find(z, "m/a.txt");
	CHECK(e != NULL);
	CHECK(zip_find(z, "m/a.tx") == NULL);
	CHECK(zip_find(z, "m/nope") == NULL);
	void *buf = NULL;
	size_t len = 0;
	CHECK_INT(zip_read(z, e, &buf, &len, &c.d), 0);
	CHECK_INT(len, sizeof text_a - 1);
	CHECK(buf && !memcmp(buf, text_a, len) && ((char *)buf)[len] == 0);
	free(buf);

	e = zip_find(z, "m/code/big.py");
	CHECK(e && e->method == ZIP_METHOD_DEFLATED && e->csize < e->usize);
	CHECK_INT(zip_read(z, e, &buf, &len, &c.d), 0);
	CHECK_INT(len, 3000);
	free(buf);

	/* torch-style stored data: 64-byte aligned, bytes in place */
	e = zip_find(z, "m/data/0");
	uint64_t off = 0;
	CHECK_INT(zip_locate(z, e, &off, &c.d), 0);
	CHECK_INT(off % 64, 0);
	CHECK(off + 8 <= b.len && !memcmp(b.buf + off, "\1\2\3\4\5\6\7\10", 8));
	CHECK_INT(zip_verify(z, e, &c.d), 0);
	CHECK_INT(zip_verify(z, zip_find(z, "m/code/big.py"), &c.d), 0);

	e = zip_find(z, "m/empty");
	CHECK_INT(zip_read(z, e, &buf, &len, &c.d), 0);
	CHECK_INT(len, 0);
	free(buf);
	CHECK_INT(c.d.nerrors, 0);
	zip_close(z);
out:
	zb_free(&b);
	cap_free(&c);
}

static void test_zip_zip64(void)
{
	struct zb b = ZB_INIT;
	struct capture c;
	cap_init(&c);
	sample(&b, 1);
	/* spoil the classic end record's numbers: ZIP64's must be used */
	zb_put16(&b, b.eocd_offset + 8, 0xffff);
	zb_put16(&b, b.eocd_offset + 10, 0xffff);
	zb_put32(&b, b.eocd_offset + 12, 0xffffffffu);
	zb_put32(&b, b.eocd_offset + 16, 0xffffffffu);
	struct zip *z = zip_open_mem(b.buf, b.len, "z64.zip", &c.d);
	CHECK(z != NULL);
	if (z) {
		CHECK(z->zip64);
		CHECK_INT(z->nentries, 4);
		CHECK_INT(read_all(z, &c.d), 0);
		zip_close(z);
	}
	zb_free(&b);
	cap_free(&c);
}

/* A zip of one entry whose central sizes and offset are 0xffffffff, given
 * by a ZIP64 extra field (without the offset when full is 0). */
static void build_zip64_extra(struct zb *b, int full)
{
	zb_add(b, "x/one", "0123456789", 10, ZB_STORED);
	b->cd_offset = b->len;
	zb_u32(b, 0x02014b50);
	zb_u16(b, 0x031e);
	zb_u16(b, 45);
	zb_u16(b, 0);
	zb_u16(b, 0);
	zb_u32(b, 0);
	zb_u32(b, b->e[0].crc);
	zb_u32(b, 0xffffffffu);
	zb_u32(b, 0xffffffffu);
	zb_u16(b, 5);
	zb_u16(b, full ? 4 + 24 : 4 + 16);
	zb_u16(b, 0);
	zb_u16(b, 0);
	zb_u16(b, 0);
	zb_u32(b, 0);
	zb_u32(b, 0xffffffffu);
	zb_bytes(b, "x/one", 5);
	zb_u16(b, 1);
	zb_u16(b, full ? 24 : 16);
	zb_u64(b, 10);
	zb_u64(b, 10);
	if (full)
		zb_u64(b, 0);
	b->cd_size = b->len - b->cd_offset;
	zb_u32(b, 0x06054b50);
	zb_u32(b, 0);
	zb_u16(b, 1);
	zb_u16(b, 1);
	zb_u32(b, (uint32_t)b->cd_size);
	zb_u32(b, (uint32_t)b->cd_offset);
	zb_u16(b, 0);
}

static void test_zip_zip64_extra(void)
{
	struct zb b = ZB_INIT;
	struct capture c;
	cap_init(&c);
	build_zip64_extra(&b, 1);
	struct zip *z = zip_open_mem(b.buf, b.len, "x.zip", &c.d);
	CHECK(z != NULL);
	if (z) {
		const struct zip_entry *e = zip_find(z, "x/one");
		CHECK(e && e->usize == 10 && e->csize == 10 &&
		      e->header_offset == 0);
		CHECK_INT(read_all(z, &c.d), 0);
		zip_close(z);
	}
	zb_free(&b);
	build_zip64_extra(&b, 0);
	z = zip_open_mem(b.buf, b.len, "x.zip", &c.d);
	CHECK(z == NULL);
	CHECK(cap_has(&c, "ZIP64 extra field is too short"));
	zip_close(z);
	zb_free(&b);
	cap_free(&c);
}

static void expect_open_error(const void *buf, size_t len, const char *msg)
{
	struct capture c;
	cap_init(&c);
	struct zip *z = zip_open_mem(buf, len, "bad.zip", &c.d);
	CHECK(z == NULL);
	CHECK(cap_has(&c, "test: bad.zip: "));
	CHECK(cap_has(&c, msg));
	zip_close(z);
	cap_free(&c);
}

static void test_zip_not_zip(void)
{
	static const char text[] = "this is not a zip archive at all, just text";
	expect_open_error(text, sizeof text, "not a zip archive");
	expect_open_error("", 0, "not a zip archive");
	expect_open_error(NULL, 0, "not a zip archive");
	unsigned char eocd[22] = { 'P', 'K', 5, 6 };
	struct capture c;
	cap_init(&c);
	struct zip *z = zip_open_mem(eocd, sizeof eocd, "e.zip", &c.d);
	CHECK(z != NULL); /* an empty zip is a zip */
	if (z)
		CHECK_INT(z->nentries, 0);
	zip_close(z);
	cap_free(&c);
}

/* Every prefix of the sample: an error (or, never, a crash). */
static void test_zip_truncations(void)
{
	for (int zip64 = 0; zip64 < 2; zip64++) {
		struct zb b = ZB_INIT;
		sample(&b, zip64);
		for (size_t n = 0; n < b.len; n++) {
			struct capture c;
			cap_init(&c);
			unsigned char *copy = malloc(n + 1);
			memcpy(copy, b.buf, n);
			struct zip *z = zip_open_mem(copy, n, "t.zip", &c.d);
			if (z) {
				read_all(z, &c.d);
				zip_close(z);
			}
			if (n < b.len)
				CHECK(c.d.nerrors > 0);
			CHECK(cap_has(&c, "t.zip"));
			free(copy);
			cap_free(&c);
		}
		zb_free(&b);
	}
}

/* Every byte flipped (three ways): an error or a good read, no crash. */
static void test_zip_flips(void)
{
	struct zb b = ZB_INIT;
	static const unsigned char xors[] = { 0xff, 0x01, 0x80 };
	sample(&b, 1);
	for (size_t i = 0; i < b.len; i++) {
		for (size_t k = 0; k < sizeof xors; k++) {
			struct capture c;
			cap_init(&c);
			c.d.quiet = 1;
			b.buf[i] ^= xors[k];
			struct zip *z = zip_open_mem(b.buf, b.len, "f.zip", &c.d);
			if (z) {
				read_all(z, &c.d);
				for (uint32_t j = 0; j < z->nentries; j++)
					zip_verify(z, &z->entries[j], &c.d);
				zip_close(z);
			}
			b.buf[i] ^= xors[k];
			cap_free(&c);
		}
	}
	zb_free(&b);
}

static void test_zip_bad_crc(void)
{
	struct zb b = ZB_INIT;
	struct capture c;
	cap_init(&c);
	sample(&b, 0);
	b.buf[b.e[0].offset + 30 + strlen(b.e[0].name)] ^= 0x20; /* data */
	struct zip *z = zip_open_mem(b.buf, b.len, "crc.zip", &c.d);
	CHECK(z != NULL);
	if (z) {
		void *buf = (void *)1;
		CHECK_INT(zip_read(z, zip_find(z, "m/a.txt"), &buf, NULL, &c.d),
			  -1);
		CHECK(buf == NULL);
		CHECK(cap_has(&c, "entry 'm/a.txt': bad CRC-32"));
		zip_close(z);
	}
	zb_free(&b);
	cap_free(&c);
}

static void test_zip_duplicate(void)
{
	struct zb b = ZB_INIT;
	zb_add(&b, "m/x", "1", 1, ZB_STORED);
	zb_add(&b, "m/x", "2", 1, ZB_STORED);
	zb_finish(&b, 0);
	expect_open_error(b.buf, b.len, "duplicate entry 'm/x'");
	zb_free(&b);
}

static void test_zip_overlap(void)
{
	struct zb b = ZB_INIT;
	zb_add(&b, "m/x", "11111111", 8, ZB_STORED);
	zb_add(&b, "m/y", "22222222", 8, ZB_STORED);
	b.e[1].offset = 4; /* inside the first entry */
	zb_finish(&b, 0);
	expect_open_error(b.buf, b.len, "overlaps entry");
	zb_free(&b);

	/* the same data shared by two directory entries (a zip bomb shape) */
	zb_add(&b, "m/x", "11111111", 8, ZB_STORED);
	zb_add(&b, "m/y", "22222222", 8, ZB_STORED);
	b.e[1].offset = 0;
	memcpy(b.e[1].name, "m/x", 4); /* same name length: fits */
	b.e[1].name[2] = 'z';
	zb_finish(&b, 0);
	expect_open_error(b.buf, b.len, "overlaps entry");
	zb_free(&b);

	/* an entry whose data runs into the central directory */
	zb_add(&b, "m/x", "11111111", 8, ZB_STORED);
	b.e[0].csize = b.e[0].usize = 100;
	zb_finish(&b, 0);
	expect_open_error(b.buf, b.len, "runs into the central directory");
	zb_free(&b);
}

static void test_zip_out_of_range(void)
{
	struct zb b = ZB_INIT;
	sample(&b, 0);
	zb_put32(&b, b.eocd_offset + 16, (uint32_t)b.len); /* cd offset */
	expect_open_error(b.buf, b.len, "central directory (offset");
	zb_free(&b);

	sample(&b, 0);
	zb_put32(&b, b.eocd_offset + 12, (uint32_t)b.cd_size + 100);
	expect_open_error(b.buf, b.len, "is out of range");
	zb_free(&b);

	sample(&b, 0);
	zb_put16(&b, b.eocd_offset + 10, 60000); /* entry count */
	expect_open_error(b.buf, b.len, "claims 60000 entries");
	zb_free(&b);

	sample(&b, 0);
	zb_put32(&b, zb_cd_record(&b, 2) + 42, 0x7fffffff); /* header offset */
	expect_open_error(b.buf, b.len, "beyond the entries' area");
	zb_free(&b);

	sample(&b, 1);
	/* the ZIP64 locator's offset */
	zb_put32(&b, b.eocd_offset - 20 + 8, 0x7ffffff0);
	expect_open_error(b.buf, b.len, "ZIP64 end record offset");
	zb_free(&b);

	sample(&b, 0);
	zb_put32(&b, zb_cd_record(&b, 1), 0x12345678); /* signature */
	expect_open_error(b.buf, b.len, "bad signature");
	zb_free(&b);

	sample(&b, 0);
	zb_put16(&b, zb_cd_record(&b, 0) + 28, 0); /* empty name */
	expect_open_error(b.buf, b.len, "empty name");
	zb_free(&b);
}

static void test_zip_local_header(void)
{
	struct zb b = ZB_INIT;
	struct capture c;
	cap_init(&c);
	sample(&b, 0);
	b.buf[b.e[3].offset + 30] ^= 1; /* local name differs */
	b.buf[b.e[0].offset] = 'X';     /* local signature */
	struct zip *z = zip_open_mem(b.buf, b.len, "lh.zip", &c.d);
	CHECK(z != NULL);
	if (z) {
		CHECK_INT(zip_locate(z, zip_find(z, "m/data/0"), NULL, &c.d), -1);
		CHECK(cap_has(&c, "local header names a different entry"));
		CHECK_INT(zip_locate(z, zip_find(z, "m/a.txt"), NULL, &c.d), -1);
		CHECK(cap_has(&c, "no local header at offset 0"));
		zip_close(z);
	}
	zb_free(&b);
	cap_free(&c);

	/* a local extra field so long that the data passes the next entry */
	cap_init(&c);
	sample(&b, 0);
	zb_put16(&b, b.e[0].offset + 28, 5000);
	z = zip_open_mem(b.buf, b.len, "lh.zip", &c.d);
	CHECK(z != NULL);
	if (z) {
		CHECK_INT(read_all(z, &c.d), 1);
		CHECK(cap_has(&c, "runs past the next entry"));
		zip_close(z);
	}
	zb_free(&b);
	cap_free(&c);
}

static void test_zip_method(void)
{
	struct zb b = ZB_INIT;
	struct capture c;
	cap_init(&c);
	zb_add(&b, "m/bz", "abc", 3, ZB_STORED);
	zb_add(&b, "m/enc", "abc", 3, ZB_STORED);
	b.e[0].method = 12;
	b.e[1].flags = 1;
	zb_finish(&b, 0);
	struct zip *z = zip_open_mem(b.buf, b.len, "m.zip", &c.d);
	CHECK(z != NULL); /* listing is fine */
	if (z) {
		void *buf;
		CHECK_INT(zip_read(z, zip_find(z, "m/bz"), &buf, NULL, &c.d), -1);
		CHECK(cap_has(&c, "entry 'm/bz' uses compression method 12"));
		CHECK_INT(zip_read(z, zip_find(z, "m/enc"), &buf, NULL, &c.d), -1);
		CHECK(cap_has(&c, "entry 'm/enc' is encrypted"));
		zip_close(z);
	}
	zb_free(&b);
	cap_free(&c);
}

/* Declared sizes that the deflate stream does not match. */
static void test_zip_declared_size(void)
{
	static char big[5000];
	memset(big, 'q', sizeof big);
	const struct {
		uint64_t usize;
		const char *msg;
	} cases[] = {
		{ 4999, "inflates to more than the 4999 bytes" },
		{ 100, "inflates to more than the 100 bytes" },
		{ 5001, "inflates to 5000 bytes, the directory declares 5001" },
		{ 4000000000u, "more than deflate can produce" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct zb b = ZB_INIT;
		struct capture c;
		cap_init(&c);
		zb_add(&b, "m/big", big, sizeof big, ZB_DEFLATE);
		b.e[0].usize = cases[i].usize;
		zb_finish(&b, 0);
		struct zip *z = zip_open_mem(b.buf, b.len, "s.zip", &c.d);
		CHECK(z != NULL);
		if (z) {
			void *buf;
			CHECK_INT(zip_read(z, &z->entries[0], &buf, NULL, &c.d),
				  -1);
			CHECK(cap_has(&c, cases[i].msg));
			zip_close(z);
		}
		zb_free(&b);
		cap_free(&c);
	}
	/* a deflate stream cut short */
	struct zb b = ZB_INIT;
	struct capture c;
	cap_init(&c);
	zb_add(&b, "m/big", big, sizeof big, ZB_DEFLATE);
	b.e[0].csize -= 3;
	zb_finish(&b, 0);
	struct zip *z = zip_open_mem(b.buf, b.len, "s.zip", &c.d);
	CHECK(z != NULL);
	if (z) {
		void *buf;
		CHECK_INT(zip_read(z, &z->entries[0], &buf, NULL, &c.d), -1);
		CHECK(cap_has(&c, "deflate data ends before the end of the "
			      "stream"));
		zip_close(z);
	}
	zb_free(&b);
	cap_free(&c);
}

static void test_zip_file(void)
{
	struct zb b = ZB_INIT;
	struct capture c;
	char path[] = "/tmp/pt2onnx-test-zip-XXXXXX";
	int fd = mkstemp(path);
	cap_init(&c);
	CHECK(fd >= 0);
	sample(&b, 1);
	CHECK(write(fd, b.buf, b.len) == (ssize_t)b.len);
	close(fd);
	struct zip *z = zip_open(path, &c.d);
	CHECK(z != NULL);
	if (z) {
		CHECK_INT(read_all(z, &c.d), 0);
		zip_close(z);
	}
	unlink(path);
	z = zip_open(path, &c.d);
	CHECK(z == NULL);
	CHECK(cap_has(&c, "No such file or directory"));
	z = zip_open("/", &c.d);
	CHECK(z == NULL);
	CHECK(cap_has(&c, "not a regular file"));
	zb_free(&b);
	cap_free(&c);
}

/* Names holding newlines are printed escaped: messages stay one line. */
static void test_zip_quoted_names(void)
{
	struct zb b = ZB_INIT;
	zb_add(&b, "m/evil\nname", "1", 1, ZB_STORED);
	zb_add(&b, "m/evil\nname", "2", 1, ZB_STORED);
	zb_finish(&b, 0);
	expect_open_error(b.buf, b.len, "duplicate entry 'm/evil\\x0aname'");
	zb_free(&b);
}

const struct unit_test unit_tests[] = {
	UNIT(test_zip_basic),
	UNIT(test_zip_zip64),
	UNIT(test_zip_zip64_extra),
	UNIT(test_zip_not_zip),
	UNIT(test_zip_truncations),
	UNIT(test_zip_flips),
	UNIT(test_zip_bad_crc),
	UNIT(test_zip_duplicate),
	UNIT(test_zip_overlap),
	UNIT(test_zip_out_of_range),
	UNIT(test_zip_local_header),
	UNIT(test_zip_method),
	UNIT(test_zip_declared_size),
	UNIT(test_zip_file),
	UNIT(test_zip_quoted_names),
	{ 0 },
};

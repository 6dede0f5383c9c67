/*
 * test_trace_npy.c - lib/trace/npy.c: .npy files written and read back for
 * every dtype, headers of format 1.0 and 2.0 built here byte by byte from
 * the format's description, and the errors on broken files.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace.h"
#include "unit.h"

static char dir[64];

static const char *tmp(const char *name)
{
	static char path[128];

	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/tmp/test_trace_npy.XXXXXX");
		if (!mkdtemp(dir))
			return NULL;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

static void quiet_diag(struct diag *d)
{
	diag_init(d, "test");
	d->quiet = 1;
}

static const struct gpu_backend *cpu(void)
{
	return gpu_backend_get(GPU_BACKEND_CPU);
}

/* Writes raw bytes to a file. */
static int put(const char *path, const void *a, size_t na, const void *b,
	       size_t nb)
{
	FILE *f = fopen(path, "wb");
	int ok;

	if (!f)
		return -1;
	ok = fwrite(a, 1, na, f) == na && fwrite(b, 1, nb, f) == nb;
	return fclose(f) == 0 && ok ? 0 : -1;
}

/* A version 1.0 file with header dict h and data. */
static int put_v1(const char *path, const char *h, const void *data,
		  size_t n)
{
	unsigned char buf[512];
	size_t hl = strlen(h), total = 10 + hl + 1, pad = 0;

	while ((total + pad) % 64)
		pad++;
	memcpy(buf, "\x93NUMPY\x01\x00", 8);
	buf[8] = (unsigned char)((hl + pad + 1) & 0xff);
	buf[9] = (unsigned char)((hl + pad + 1) >> 8);
	memcpy(buf + 10, h, hl);
	memset(buf + 10 + hl, ' ', pad);
	buf[10 + hl + pad] = '\n';
	return put(path, buf, 10 + hl + pad + 1, data, n);
}

static void test_roundtrip_dtypes(void)
{
	static const enum ir_dtype dts[] = {
		IR_DTYPE_FLOAT, IR_DTYPE_DOUBLE, IR_DTYPE_FLOAT16,
		IR_DTYPE_INT64, IR_DTYPE_INT32, IR_DTYPE_INT16, IR_DTYPE_INT8,
		IR_DTYPE_UINT8, IR_DTYPE_BOOL,
	};
	int64_t dims[3] = { 2, 3, 4 };
	struct diag d;
	size_t k;

	quiet_diag(&d);
	if (!cpu()) {
		unit_skip("no CPU backend");
		return;
	}
	for (k = 0; k < sizeof(dts) / sizeof(dts[0]); k++) {
		struct gpu_tensor *t = gpu_empty(cpu(), dts[k], 3, dims), *r;
		size_t es = ir_dtype_size(dts[k]), i;
		unsigned char *p;

		CHECK(t != NULL);
		if (!t)
			continue;
		p = t->storage->data;
		for (i = 0; i < 24 * es; i++)
			p[i] = dts[k] == IR_DTYPE_BOOL ? (unsigned char)(i % 3 == 0)
				: (unsigned char)(i * 37 + 11);
		if (dts[k] == IR_DTYPE_FLOAT16)
			for (i = 0; i < 24; i++)
				p[2 * i + 1] &= 0x3f; /* finite halves */
		CHECK_INT(npy_write(tmp("a.npy"), t, &d), 0);
		r = npy_read(tmp("a.npy"), cpu(), &d);
		CHECK(r != NULL);
		if (r) {
			CHECK_INT(r->dtype, dts[k]);
			CHECK_INT(r->rank, 3);
			CHECK_INT(r->dims[0], 2);
			CHECK_INT(r->dims[2], 4);
			CHECK(!memcmp((char *)r->storage->data +
				      r->offset * (int64_t)es, p, 24 * es));
		}
		gpu_free(r);
		gpu_free(t);
	}
	unlink(tmp("a.npy"));
}

static void test_rank0_and_rank1(void)
{
	struct diag d;
	struct gpu_tensor *t, *r;
	int64_t one[1] = { 5 };

	quiet_diag(&d);
	t = gpu_empty(cpu(), IR_DTYPE_INT64, 0, NULL);
	CHECK(t != NULL);
	if (!t)
		return;
	*(int64_t *)t->storage->data = -7;
	CHECK_INT(npy_write(tmp("s.npy"), t, &d), 0);
	r = npy_read(tmp("s.npy"), cpu(), &d);
	CHECK(r && r->rank == 0 && *(int64_t *)r->storage->data == -7);
	gpu_free(r);
	gpu_free(t);
	t = gpu_empty(cpu(), IR_DTYPE_FLOAT, 1, one);
	for (int i = 0; i < 5; i++)
		((float *)t->storage->data)[i] = (float)i / 3;
	CHECK_INT(npy_write(tmp("v.npy"), t, &d), 0);
	r = npy_read(tmp("v.npy"), cpu(), &d);
	CHECK(r && r->rank == 1 && r->dims[0] == 5 &&
	      ((float *)r->storage->data)[4] == (float)4 / 3);
	gpu_free(r);
	gpu_free(t);
	unlink(tmp("s.npy"));
	unlink(tmp("v.npy"));
}

/* a strided view is written in row-major order of its own dims */
static void test_write_strided(void)
{
	struct diag d;
	int64_t dims[2] = { 2, 3 }, tdims[2] = { 3, 2 }, tstr[2] = { 1, 3 };
	struct gpu_tensor *t, *v, *r;
	float *p, *q;
	int i, j;

	quiet_diag(&d);
	t = gpu_empty(cpu(), IR_DTYPE_FLOAT, 2, dims);
	p = t->storage->data;
	for (i = 0; i < 6; i++)
		p[i] = (float)i;
	v = gpu_view(t, 2, tdims, tstr, 0); /* the transpose */
	CHECK_INT(npy_write(tmp("t.npy"), v, &d), 0);
	r = npy_read(tmp("t.npy"), cpu(), &d);
	CHECK(r && r->dims[0] == 3 && r->dims[1] == 2);
	if (r) {
		q = r->storage->data;
		for (i = 0; i < 3; i++)
			for (j = 0; j < 2; j++)
				CHECK(q[i * 2 + j] == p[j * 3 + i]);
	}
	gpu_free(r);
	gpu_free(v);
	gpu_free(t);
	unlink(tmp("t.npy"));
}

static void test_handmade_headers(void)
{
	struct diag d;
	struct gpu_tensor *r;
	int32_t data[6] = { 1, -2, 3, -4, 5, -6 };
	unsigned char v2[16 + 64];
	const char *h = "{'descr': '<i4', 'fortran_order': False, "
			"'shape': (3, 2), }";
	size_t hl = strlen(h), tot;

	quiet_diag(&d);
	CHECK_INT(put_v1(tmp("h1.npy"), h, data, sizeof(data)), 0);
	r = npy_read(tmp("h1.npy"), cpu(), &d);
	CHECK(r && r->dtype == IR_DTYPE_INT32 && r->dims[0] == 3 &&
	      ((int32_t *)r->storage->data)[5] == -6);
	gpu_free(r);
	/* version 2.0: a 4-byte header length */
	memcpy(v2, "\x93NUMPY\x02\x00", 8);
	tot = 12 + hl + 1;
	while (tot % 16)
		tot++;
	memset(v2 + 12, ' ', tot - 12);
	memcpy(v2 + 12, h, hl);
	v2[tot - 1] = '\n';
	v2[8] = (unsigned char)(tot - 12);
	v2[9] = v2[10] = v2[11] = 0;
	CHECK_INT(put(tmp("h2.npy"), v2, tot, data, sizeof(data)), 0);
	r = npy_read(tmp("h2.npy"), cpu(), &d);
	CHECK(r && r->dims[1] == 2 && ((int32_t *)r->storage->data)[0] == 1);
	gpu_free(r);
	unlink(tmp("h1.npy"));
	unlink(tmp("h2.npy"));
}

static void expect_error(const char *name, const char *h, const void *data,
			 size_t n)
{
	struct diag d;
	struct gpu_tensor *r;

	quiet_diag(&d);
	CHECK_INT(put_v1(tmp(name), h, data, n), 0);
	r = npy_read(tmp(name), cpu(), &d);
	if (r)
		unit_fail(__FILE__, __LINE__, "%s: read a bad file", h);
	CHECK(d.nerrors == 1);
	gpu_free(r);
	unlink(tmp(name));
}

static void test_errors(void)
{
	float f[4] = { 0 };
	struct diag d;

	expect_error("e1.npy", "{'descr': '>f4', 'fortran_order': False, "
		     "'shape': (4,), }", f, sizeof(f));
	expect_error("e2.npy", "{'descr': '<f4', 'fortran_order': True, "
		     "'shape': (2, 2), }", f, sizeof(f));
	expect_error("e3.npy", "{'descr': '<c8', 'fortran_order': False, "
		     "'shape': (2,), }", f, sizeof(f));
	expect_error("e4.npy", "{'descr': '<f4', 'fortran_order': False, "
		     "'shape': (5,), }", f, sizeof(f)); /* truncated data */
	expect_error("e5.npy", "{'descr': '<f4', 'fortran_order': False, "
		     "'shape': (a,), }", f, sizeof(f));
	expect_error("e6.npy", "{'fortran_order': False, 'shape': (4,), }",
		     f, sizeof(f));
	expect_error("e7.npy", "{'descr': '<f4', 'fortran_order': False, "
		     "'shape': (1,1,1,1,1,1,1,1,1), }", f, sizeof(f));
	/* a shape far larger than the file (2^40 floats): refused as
	 * truncated before any allocation for it (ASan would abort on one) */
	expect_error("e10.npy", "{'descr': '<f4', 'fortran_order': False, "
		     "'shape': (1048576, 1048576), }", f, sizeof(f));
	/* an empty tensor whose other dims overflow an int64 product (the
	 * fuzzer's find): refused, not a signed overflow in the strides */
	expect_error("e11.npy", "{'descr': '<f4', 'fortran_order': False, "
		     "'shape': (0, 4611686018427387904, 4611686018427387904), }",
		     f, 0);
	/* not a .npy at all, truncated header, missing file */
	quiet_diag(&d);
	CHECK_INT(put(tmp("e8.npy"), "hello world", 11, "", 0), 0);
	CHECK(npy_read(tmp("e8.npy"), cpu(), &d) == NULL);
	CHECK_INT(put(tmp("e9.npy"), "\x93NUMPY\x01\x00\x40\x00{'de", 14, "",
		      0), 0);
	CHECK(npy_read(tmp("e9.npy"), cpu(), &d) == NULL);
	CHECK(npy_read(tmp("missing.npy"), cpu(), &d) == NULL);
	CHECK_INT(d.nerrors, 3);
	unlink(tmp("e8.npy"));
	unlink(tmp("e9.npy"));
	rmdir(dir);
}

static void test_write_errors(void)
{
	struct diag d;
	int64_t dims[1] = { 2 };
	struct gpu_tensor *t = gpu_empty(cpu(), IR_DTYPE_FLOAT, 1, dims);

	quiet_diag(&d);
	CHECK(npy_write("/nonexistent-dir/x.npy", t, &d) < 0);
	CHECK_INT(d.nerrors, 1);
	gpu_free(t);
}

const struct unit_test unit_tests[] = {
	UNIT(test_roundtrip_dtypes),
	UNIT(test_rank0_and_rank1),
	UNIT(test_write_strided),
	UNIT(test_handmade_headers),
	UNIT(test_errors),
	UNIT(test_write_errors),
	{ 0 },
};

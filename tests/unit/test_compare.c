/*
 * test_compare.c - lib/common/compare.c (pt2onnx --verify's closeness
 * test: numpy.allclose's |got - want| <= atol + rtol * |want|, NaN equal to
 * NaN, ints exact, dtype and shape first) and npy_load (lib/common/
 * npy_header.c) on files trace's npy_write made and on a truncated one.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compare.h"
#include "trace.h"
#include "unit.h"

static struct npy_array arr(enum ir_dtype dt, int rank, const int64_t *dims,
			    void *data)
{
	struct npy_array a;
	memset(&a, 0, sizeof(a));
	a.h.dtype = dt;
	a.h.rank = rank;
	for (int i = 0; i < rank; i++)
		a.h.dims[i] = dims[i];
	a.data = data;
	a.nbytes = (size_t)npy_numel(&a.h) * ir_dtype_size(dt);
	return a;
}

static void test_tolerance_is_allclose(void)
{
	int64_t d[1] = { 3 };
	float want[3] = { 1000.0f, 0.0f, -2.0f };
	/* each within atol + rtol * |want| of want, by the rule */
	float ok[3] = { 1000.0f + 0.5f * 1000.0f * (float)COMPARE_RTOL,
			(float)(COMPARE_ATOL / 2), -2.0f };
	float bad[3] = { 1000.0f + 2.0f * 1000.0f * (float)COMPARE_RTOL,
			 (float)(COMPARE_ATOL * 4), -2.0f };
	struct npy_array w = arr(IR_DTYPE_FLOAT, 1, d, want);
	struct npy_array g = arr(IR_DTYPE_FLOAT, 1, d, ok);
	struct compare_result r;

	CHECK(compare_arrays(&g, &w, COMPARE_RTOL, COMPARE_ATOL, &r) == 1);
	CHECK_INT(r.n, 3);
	CHECK_INT(r.nbad, 0);
	g = arr(IR_DTYPE_FLOAT, 1, d, bad);
	CHECK(compare_arrays(&g, &w, COMPARE_RTOL, COMPARE_ATOL, &r) == 0);
	CHECK_INT(r.nbad, 2);
	CHECK_INT(r.worst, 0);
	CHECK(!strncmp(r.why, "2 of 3 elements differ (largest at 0: ", 38));
}

static void test_nan_inf_ints(void)
{
	int64_t d[1] = { 2 };
	double w[2] = { NAN, INFINITY }, g1[2] = { NAN, INFINITY },
	       g2[2] = { 0.0, -INFINITY };
	struct npy_array W = arr(IR_DTYPE_DOUBLE, 1, d, w);
	struct npy_array G = arr(IR_DTYPE_DOUBLE, 1, d, g1);
	struct compare_result r;

	CHECK(compare_arrays(&G, &W, COMPARE_RTOL, COMPARE_ATOL, &r) == 1);
	G = arr(IR_DTYPE_DOUBLE, 1, d, g2);
	CHECK(compare_arrays(&G, &W, COMPARE_RTOL, COMPARE_ATOL, &r) == 0);
	CHECK_INT(r.nbad, 2);

	int64_t iw[2] = { 5, 1000000 }, ig[2] = { 5, 1000001 };
	W = arr(IR_DTYPE_INT64, 1, d, iw);
	G = arr(IR_DTYPE_INT64, 1, d, ig);
	/* within rtol as floats, but integers must be equal */
	CHECK(compare_arrays(&G, &W, COMPARE_RTOL, COMPARE_ATOL, &r) == 0);
	CHECK_INT(r.nbad, 1);
	CHECK_INT(r.worst, 1);
}

static void test_dtype_and_shape_first(void)
{
	int64_t d23[2] = { 2, 3 }, d32[2] = { 3, 2 };
	float f[6] = { 0 };
	double g[6] = { 0 };
	struct npy_array W = arr(IR_DTYPE_FLOAT, 2, d23, f);
	struct npy_array G = arr(IR_DTYPE_DOUBLE, 2, d23, g);
	struct compare_result r;

	CHECK(compare_arrays(&G, &W, COMPARE_RTOL, COMPARE_ATOL, &r) == 0);
	CHECK_STR(r.why, "dtype double, expected float");
	G = arr(IR_DTYPE_FLOAT, 2, d32, f);
	CHECK(compare_arrays(&G, &W, COMPARE_RTOL, COMPARE_ATOL, &r) == 0);
	CHECK_STR(r.why, "shape [3,2], expected [2,3]");
}

static void test_npy_load(void)
{
	char dir[] = "/tmp/test_compare.XXXXXX", path[64], cut[64];
	struct diag d;
	int64_t dims[2] = { 2, 3 };
	struct npy_array a;

	diag_init(&d, "test");
	d.quiet = 1;
	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/a.npy", dir);
	snprintf(cut, sizeof(cut), "%s/cut.npy", dir);
	struct gpu_tensor *t = gpu_empty(gpu_backend_get(GPU_BACKEND_CPU),
					 IR_DTYPE_INT32, 2, dims);
	CHECK(t != NULL);
	if (!t)
		return;
	t->storage->be->fill(t, 7.0);
	CHECK_INT(npy_write(path, t, &d), 0);
	gpu_free(t);
	CHECK_INT(npy_load(path, &a, &d), 0);
	CHECK_INT(a.h.dtype, IR_DTYPE_INT32);
	CHECK_INT(a.h.rank, 2);
	CHECK_INT(a.nbytes, 24);
	CHECK_INT(((int32_t *)a.data)[5], 7);
	npy_array_free(&a);
	/* the same file less its last byte */
	FILE *in = fopen(path, "rb"), *out = fopen(cut, "wb");
	char buf[512];
	size_t n = in ? fread(buf, 1, sizeof(buf), in) : 0;
	if (out && n)
		fwrite(buf, 1, n - 1, out);
	if (in)
		fclose(in);
	if (out)
		fclose(out);
	CHECK_INT(npy_load(cut, &a, &d), -1);
	CHECK(a.data == NULL);
	unlink(path);
	unlink(cut);
	rmdir(dir);
}

const struct unit_test unit_tests[] = {
	UNIT(test_tolerance_is_allclose),
	UNIT(test_nan_inf_ints),
	UNIT(test_dtype_and_shape_first),
	UNIT(test_npy_load),
	{ 0 },
};

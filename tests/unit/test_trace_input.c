/*
 * test_trace_input.c - lib/trace/input.c: the --input SPEC parser of
 * `trace` and its deterministic random input values.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"
#include "unit.h"

static int parse(const char *spec, struct trace_input *in)
{
	struct diag d;

	diag_init(&d, "test");
	d.quiet = 1;
	return trace_parse_input(spec, in, &d);
}

static void test_specs(void)
{
	struct trace_input in;

	CHECK_INT(parse("x=f32[1,3,224,224]", &in), 0);
	CHECK_STR(in.name, "x");
	CHECK_INT(in.dtype, IR_DTYPE_FLOAT);
	CHECK_INT(in.rank, 4);
	CHECK_INT(in.dims[3], 224);
	CHECK(in.npy == NULL && in.symbols[0] == NULL);
	trace_input_release(&in);

	CHECK_INT(parse("i64[2, 5]", &in), 0);
	CHECK(in.name == NULL);
	CHECK_INT(in.dtype, IR_DTYPE_INT64);
	CHECK_INT(in.rank, 2);
	CHECK_INT(in.dims[1], 5);
	trace_input_release(&in);

	CHECK_INT(parse("x=f32[batch:4,3]", &in), 0);
	CHECK_STR(in.symbols[0], "batch");
	CHECK_INT(in.dims[0], 4);
	CHECK(in.symbols[1] == NULL);
	trace_input_release(&in);

	CHECK_INT(parse("bool", &in), 0);
	CHECK_INT(in.rank, 0);
	CHECK_INT(in.dtype, IR_DTYPE_BOOL);
	trace_input_release(&in);

	CHECK_INT(parse("u8[]", &in), 0);
	CHECK_INT(in.rank, 0);
	trace_input_release(&in);

	CHECK_INT(parse("x=dir/in.npy", &in), 0);
	CHECK_STR(in.name, "x");
	CHECK_STR(in.npy, "dir/in.npy");
	trace_input_release(&in);

	CHECK_INT(parse("in.npy", &in), 0);
	CHECK(in.name == NULL);
	CHECK_STR(in.npy, "in.npy");
	trace_input_release(&in);
}

static void test_bad_specs(void)
{
	static const char *const bad[] = {
		"x=f33[1]", "=f32[1]", "x=f32[1,", "x=f32[1,2]x", "f32[batch]",
		"f32[?]", "f32[-1]", "f32[1,2,3,4,5,6,7,8,9]", "f32[a:]",
		"f32[,]", NULL,
	};
	struct trace_input in;
	int i;

	for (i = 0; bad[i]; i++) {
		if (parse(bad[i], &in) == 0)
			unit_fail(__FILE__, __LINE__, "accepted '%s'", bad[i]);
		trace_input_release(&in);
	}
}

static void test_random_values(void)
{
	enum { N = 20000 };
	double *a = malloc(N * sizeof(double)), *b = malloc(N * sizeof(double));
	double mean = 0, var = 0, lo = 1e9, hi = -1e9;
	int i, ok = 1, counts[10] = { 0 };

	CHECK(a && b);
	if (!a || !b)
		goto out;
	trace_fill_random(a, N, IR_DTYPE_FLOAT, 0, 42);
	trace_fill_random(b, N, IR_DTYPE_FLOAT, 0, 42);
	CHECK(!memcmp(a, b, N * sizeof(double)));
	for (i = 0; i < N; i++) {
		lo = fmin(lo, a[i]);
		hi = fmax(hi, a[i]);
		mean += a[i] / N;
	}
	/* uniform on [-1, 1): mean 0, the range nearly covered */
	CHECK(lo >= -1 && hi < 1 && lo < -0.99 && hi > 0.99);
	CHECK(fabs(mean) < 0.03);
	trace_fill_random(b, N, IR_DTYPE_FLOAT, 0, 43);
	CHECK(memcmp(a, b, N * sizeof(double)) != 0);
	/* standard normal: mean 0, variance 1 */
	trace_fill_random(a, N, IR_DTYPE_DOUBLE, 1, 1);
	mean = 0;
	for (i = 0; i < N; i++)
		mean += a[i] / N;
	for (i = 0; i < N; i++)
		var += (a[i] - mean) * (a[i] - mean) / N;
	CHECK(fabs(mean) < 0.05 && fabs(var - 1) < 0.05);
	/* ints in [0, 10), every value taken */
	trace_fill_random(a, N, IR_DTYPE_INT64, 0, 5);
	for (i = 0; i < N; i++) {
		if (a[i] != floor(a[i]) || a[i] < 0 || a[i] >= 10)
			ok = 0;
		else
			counts[(int)a[i]]++;
	}
	CHECK(ok);
	for (i = 0; i < 10; i++)
		CHECK(counts[i] > N / 20);
	trace_fill_random(a, N, IR_DTYPE_BOOL, 0, 5);
	for (i = 0, mean = 0; i < N; i++) {
		ok &= a[i] == 0 || a[i] == 1;
		mean += a[i] / N;
	}
	CHECK(ok && fabs(mean - 0.5) < 0.03);
out:
	free(a);
	free(b);
}

const struct unit_test unit_tests[] = {
	UNIT(test_specs),
	UNIT(test_bad_specs),
	UNIT(test_random_values),
	{ 0 },
};

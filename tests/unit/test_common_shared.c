/*
 * test_common_shared.c - lib/common's one-of-each pieces (issue 15): the
 * weight reader (weight_bytes.c), the --input parser (input_spec.c) with
 * its dtype table (ir.c), the weight-list append (ir.c) and diag.h's
 * out-of-memory rule.  Expected spans are docs/ir.md's definition of a
 * reference's length (sum over the dims of (size-1) x stride, plus one
 * element, times the element size), computed from each view's own dims
 * and strides; no number is typed in as a result.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arena.h"
#include "diag.h"
#include "input_spec.h"
#include "ir.h"
#include "unit.h"
#include "weight_bytes.h"

static struct ir_tensor ref(enum ir_dtype dt, int rank, int64_t *dims,
			    int64_t *strides)
{
	struct ir_tensor t;

	memset(&t, 0, sizeof(t));
	t.dtype = dt;
	t.rank = rank;
	t.dims = dims;
	t.data_kind = IR_DATA_REF;
	t.ref.file = "unused";
	t.ref.strides = strides;
	return t;
}

/* The span of a view as numpy defines its extent: sum of (dim-1)*stride
 * over the dims, plus one element; row-major when strides are NULL. */
static void test_span(void)
{
	int64_t dims[2] = { 3, 5 }, tr[2] = { 1, 3 }, ex[2] = { 0, 1 };
	int64_t neg[2] = { -5, 1 }, big[2] = { INT64_MAX / 2, 1 };
	struct ir_tensor t = ref(IR_DTYPE_FLOAT, 2, dims, NULL);
	uint64_t span;

	CHECK_INT(weight_span(&t, &span), WEIGHT_OK);
	CHECK_INT(span, ir_tensor_numel(&t) * ir_dtype_size(t.dtype));
	CHECK(weight_contiguous(&t));
	t.ref.strides = tr; /* the transpose of a 5x3 matrix */
	CHECK(!weight_contiguous(&t));
	CHECK_INT(weight_span(&t, &span), WEIGHT_OK);
	CHECK_INT(span, ((dims[0] - 1) * tr[0] + (dims[1] - 1) * tr[1] + 1) *
			4);
	t.ref.strides = ex; /* expand of a 5-vector: the bytes of one row */
	CHECK_INT(weight_span(&t, &span), WEIGHT_OK);
	CHECK_INT(span, dims[1] * 4);
	t.ref.strides = neg;
	CHECK_INT(weight_span(&t, &span), WEIGHT_NEG_STRIDE);
	t.ref.strides = big;
	CHECK_INT(weight_span(&t, &span), WEIGHT_OVERFLOW);
	dims[0] = 0; /* no element: nothing spanned, whatever the strides */
	CHECK_INT(weight_span(&t, &span), WEIGHT_OK);
	CHECK_INT(span, 0);
	t.dtype = IR_DTYPE_STRING;
	CHECK_INT(weight_span(&t, &span), WEIGHT_NO_SIZE);
}

/* The gather reads element (i, j) at i*s0 + j*s1 of the source: the
 * transpose of a row-major matrix is its columns. */
static void test_gather_and_read(void)
{
	int64_t dims[2] = { 2, 3 }, tr[2] = { 1, 2 };
	struct ir_tensor t = ref(IR_DTYPE_INT32, 2, dims, tr);
	int32_t src[6], dst[6], back[6];
	char path[] = "/tmp/test_common_shared_XXXXXX";
	int fd = mkstemp(path);

	for (int i = 0; i < 6; i++)
		src[i] = i * 7 + 1;
	weight_gather(dst, src, &t);
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 3; j++)
			CHECK_INT(dst[i * 3 + j], src[i * tr[0] + j * tr[1]]);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	CHECK(write(fd, src, sizeof(src)) == (ssize_t)sizeof(src));
	close(fd);
	CHECK_INT(weight_read(path, 4, back, 5 * 4), WEIGHT_OK);
	CHECK(!memcmp(back, src + 1, 5 * 4));
	CHECK_INT(weight_read(path, 8, back, 5 * 4), WEIGHT_SHORT);
	unlink(path);
	CHECK_INT(weight_read(path, 0, back, 4), WEIGHT_OPEN);
	CHECK_INT(errno, ENOENT);
}

static int parse(const char *spec, unsigned flags, struct input_spec *in)
{
	struct diag d;

	diag_init(&d, "test");
	d.quiet = 1;
	return input_spec_parse(spec, flags, 64, in, &d);
}

static void test_input_spec(void)
{
	struct input_spec in;

	/* tuples, lists, numbers, bools and None (issue 14) */
	CHECK_INT(parse("hx=(f32[1,2,3], [i64[2],b.npy],)", 0, &in), 0);
	CHECK_STR(in.name, "hx");
	CHECK_INT(in.kind, INPUT_SPEC_TUPLE);
	CHECK_INT(in.nitems, 2);
	CHECK_INT(in.items[0].rank, 3);
	CHECK_INT(in.items[1].kind, INPUT_SPEC_LIST);
	CHECK_STR(in.items[1].items[1].npy, "b.npy");
	CHECK_INT(input_spec_leaves(&in), 3);
	input_spec_release(&in);
	CHECK_INT(parse("n=3", 0, &in), 0);
	CHECK_INT(in.kind, INPUT_SPEC_INT);
	CHECK_INT(in.ival, 3);
	input_spec_release(&in);
	CHECK_INT(parse("f=float:-2", 0, &in), 0);
	CHECK_INT(in.kind, INPUT_SPEC_FLOAT);
	CHECK(in.fval == -2.0);
	input_spec_release(&in);
	CHECK_INT(parse("b=False", 0, &in), 0);
	CHECK_INT(in.kind, INPUT_SPEC_BOOL);
	CHECK_INT(in.ival, 0);
	input_spec_release(&in);
	CHECK_INT(parse("y=none", 0, &in), 0);
	CHECK_INT(in.kind, INPUT_SPEC_NONE);
	input_spec_release(&in);
	CHECK_INT(parse("x=()", 0, &in), 0);
	CHECK_INT(in.nitems, 0);
	input_spec_release(&in);
	CHECK_INT(parse("x=(f32[2]", 0, &in), -1);
	input_spec_release(&in);
	CHECK_INT(parse("x=[f32[2],,f32[2]]", 0, &in), -1);
	input_spec_release(&in);
	CHECK_INT(parse("x=(f32[2]))", 0, &in), -1);
	input_spec_release(&in);
	CHECK_INT(parse("n=int:1.5", 0, &in), -1);
	input_spec_release(&in);
	CHECK_INT(parse("b=bool:yes", 0, &in), -1);
	input_spec_release(&in);
	CHECK_INT(parse("x=((((((((((((((((((f32))))))))))))))))))", 0, &in),
		  -1);
	input_spec_release(&in);

	CHECK_INT(parse("x=f32[batch,3,?]", 0, &in), 0);
	CHECK_STR(in.name, "x");
	CHECK_INT(in.rank, 3);
	CHECK_STR(in.symbols[0], "batch");
	CHECK_INT(in.dims[2], -1);
	input_spec_release(&in);
	/* a tool that runs the model needs every size */
	CHECK_INT(parse("x=f32[batch,3]", INPUT_SPEC_RUN, &in), -1);
	input_spec_release(&in);
	CHECK_INT(parse("x=f32[?,3]", INPUT_SPEC_RUN, &in), -1);
	input_spec_release(&in);
	CHECK_INT(parse("x=f32[batch:4,3]", INPUT_SPEC_RUN, &in), 0);
	CHECK_STR(in.symbols[0], "batch");
	CHECK_INT(in.dims[0], 4);
	input_spec_release(&in);
	CHECK_INT(parse("x=f32[batch:4,3]", 0, &in), -1);
	input_spec_release(&in);
	CHECK_INT(parse("a.npy", 0, &in), 0);
	CHECK_STR(in.npy, "a.npy");
	input_spec_release(&in);
	CHECK_INT(parse("f32[1,,2]", 0, &in), -1);
	input_spec_release(&in);
	CHECK_INT(parse("=f32[1]", 0, &in), -1);
	input_spec_release(&in);
	/* no fixed limit but the caller's */
	CHECK_INT(parse("f32[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1]", 0, &in),
		  0);
	CHECK_INT(in.rank, 20);
	input_spec_release(&in);
}

/* One table: every dtype with a .npy code reads back from its descr, and
 * the spec names and npy codes agree on the element size. */
static void test_dtype_table(void)
{
	for (int dt = 1; dt < IR_DTYPE_COUNT; dt++) {
		const char *code = ir_dtype_npy_code((enum ir_dtype)dt);
		const char *name = ir_dtype_spec_name((enum ir_dtype)dt);
		char descr[8];

		if (name)
			CHECK_INT(ir_dtype_from_spec(name, strlen(name)), dt);
		if (!code)
			continue;
		CHECK(name != NULL);
		snprintf(descr, sizeof(descr), "<%s", code);
		CHECK_INT(ir_dtype_from_npy(descr), dt);
		CHECK_INT((size_t)atoi(code + 1), ir_dtype_size((enum ir_dtype)dt));
		snprintf(descr, sizeof(descr), ">%s", code);
		CHECK_INT(ir_dtype_from_npy(descr),
			  ir_dtype_size((enum ir_dtype)dt) == 1 ? dt : 0);
	}
}

static void test_append_weight(void)
{
	struct ir_graph *g = ir_graph_new(IR_LEVEL_ATEN);
	int64_t dims[1] = { 2 };
	struct ir_tensor *t = ir_tensor_new(g, IR_DTYPE_FLOAT, 1, dims);
	struct ir_block *sub = ir_block_new(g);

	ir_add_weight(g, NULL, "a", t);
	ir_add_weight(g, NULL, "b", t);
	ir_add_weight(g, sub, "c", t);
	CHECK_INT(g->nweights, 2);
	CHECK_STR(g->weights->value->name, "a");
	CHECK_STR(g->weights_tail->value->name, "b");
	CHECK(g->weights_tail->next == NULL);
	CHECK_STR(sub->weights->value->name, "c");
	ir_graph_free(g);
}

/* gcc says __SANITIZE_ADDRESS__ under -fsanitize=address, clang says it
 * through __has_feature */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNIT_CLANG_ASAN 1
#endif
#endif
#ifndef UNIT_CLANG_ASAN
#define UNIT_CLANG_ASAN 0
#endif

static jmp_buf oom_jump;
static size_t oom_size;

static void oom_catch(size_t size)
{
	oom_size = size;
	longjmp(oom_jump, 1);
}

/* diag.h's rule: x*alloc never return NULL and never print; they call the
 * handler the tool installed, with the size asked for. */
static void test_oom_rule(void)
{
	volatile size_t huge = SIZE_MAX / 2;

#if defined(__SANITIZE_ADDRESS__) || UNIT_CLANG_ASAN
	unit_skip("ASan reports a failed allocation of this size itself");
	return;
#endif
	diag_set_oom(oom_catch);
	if (!setjmp(oom_jump)) {
		void *p = xmalloc(huge);

		free(p);
		unit_fail(__FILE__, __LINE__, "xmalloc(%zu) returned",
			  (size_t)huge);
	} else {
		CHECK_INT(oom_size, huge);
	}
	diag_set_oom(NULL);
}

const struct unit_test unit_tests[] = {
	UNIT(test_oom_rule),
	UNIT(test_span),
	UNIT(test_gather_and_read),
	UNIT(test_input_spec),
	UNIT(test_dtype_table),
	UNIT(test_append_weight),
	{ 0 },
};

/*
 * test_pickle.c - unit tests of lib/archive/pickle.c on pickles written by
 * hand from the opcode table (pickletools' names in the comments): what
 * torch.jit.save writes (modules, tensors, views, typed lists, devices,
 * quantized tensors), the protocol 3-5 opcodes, and every error the
 * unpickler must report: refused globals (os.system), every truncation of a
 * sample, every byte flipped, memo out of range, stack and mark underflow,
 * cycles, depth, tensors that do not fit their storage.
 */
#include "unit.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pickle.h"

#include "../archive/picklebuild.h"

/* --- running it ---------------------------------------------------------- */

struct run {
	struct arena arena;
	struct pickle_doc doc;
	struct diag d;
	char *text;
	size_t tlen;
	int rc;
};

static void run(struct run *r, const void *buf, size_t len)
{
	memset(r, 0, sizeof *r);
	diag_init(&r->d, "test");
	r->d.out = open_memstream(&r->text, &r->tlen);
	r->rc = pickle_load(&r->doc, &r->arena, buf, len, "data.pkl", &r->d);
	fflush(r->d.out);
}

static void run_free(struct run *r)
{
	fclose(r->d.out);
	free(r->text);
	arena_release(&r->arena);
}

/* The load failed with one one-line message holding msg. */
static int failed_with(struct run *r, const char *msg)
{
	const char *t = r->text ? r->text : "";
	if (r->rc != -1 || r->doc.root || r->d.nerrors != 1) {
		fprintf(stderr, "  expected one error, got rc %d, %d errors: %s",
			r->rc, r->d.nerrors, t);
		return 0;
	}
	if (!strstr(t, msg) || strncmp(t, "test: data.pkl: offset ", 23) ||
	    strchr(t, '\n') != t + strlen(t) - 1) {
		fprintf(stderr, "  expected '%s' in one line: %s", msg, t);
		return 0;
	}
	return 1;
}

static void expect_error_at(struct pb *p, const char *msg, int line)
{
	struct run r;
	run(&r, p->buf, p->len);
	if (!failed_with(&r, msg))
		unit_fail(__FILE__, line, "expect_error(\"%s\")", msg);
	run_free(&r);
}

#define expect_error(p, msg) expect_error_at(p, msg, __LINE__)

/* --- samples ------------------------------------------------------------- */

/* A module as torch.jit.save writes it. */
static void module_sample(struct pb *p)
{
	static const int64_t s23[] = { 2, 3 }, st31[] = { 3, 1 },
			     s32[] = { 3, 2 }, st13[] = { 1, 3 };
	p->len = 0;
	op(p, 0x80); /* PROTO 2 */
	op(p, 2);
	global(p, "__torch__", "M");
	put(p, 0);
	op(p, ')'); /* EMPTY_TUPLE */
	op(p, 0x81); /* NEWOBJ */
	op(p, '}'); /* EMPTY_DICT */
	op(p, '(');
	str(p, "w");
	tensor_v2(p, "FloatStorage", "0", 6, 0, s23, st31, 2, 1);
	put(p, 1);
	str(p, "wt"); /* a transposed view of the same storage, memoized */
	get(p, 1);
	op(p, '0'); /* POP: just exercising it */
	global(p, "torch._utils", "_rebuild_tensor_v2");
	op(p, '(');
	op(p, '(');
	str(p, "storage");
	global(p, "torch", "FloatStorage");
	str(p, "0");
	str(p, "cpu");
	pint(p, 6);
	op(p, 't');
	op(p, 'Q');
	pint(p, 0);
	int_tuple(p, s32, 2);
	int_tuple(p, st13, 2);
	op(p, 0x89);
	ordered_dict(p);
	op(p, 't');
	op(p, 'R');
	str(p, "sizes");
	global(p, "torch.jit._pickle", "build_intlist");
	op(p, '(');
	op(p, ']');
	op(p, '(');
	pint(p, 1);
	pint(p, 300);
	pint(p, -70000);
	pint(p, (int64_t)1 << 40);
	op(p, 'e'); /* APPENDS */
	op(p, 't');
	op(p, 'R');
	str(p, "sub");
	global(p, "__torch__.torch.nn.modules.linear", "Linear");
	op(p, ')');
	op(p, 0x81);
	op(p, '}');
	op(p, '(');
	str(p, "training");
	op(p, 0x89);
	str(p, "name");
	op(p, 'N');
	op(p, 'u'); /* SETITEMS */
	op(p, 'b'); /* BUILD */
	str(p, "dev");
	global(p, "torch", "device");
	str(p, "cuda:1");
	op(p, 0x85); /* TUPLE1 */
	op(p, 'R');
	str(p, "f");
	pfloat(p, -1.5);
	str(p, "t");
	op(p, 0x88);
	op(p, 'u');
	op(p, 'b');
	op(p, '.');
}

static void test_pickle_module(void)
{
	struct pb p;
	struct run r;
	module_sample(&p);
	run(&r, p.buf, p.len);
	CHECK_INT(r.rc, 0);
	CHECK_INT(r.d.nerrors, 0);
	const struct pickle_value *m = r.doc.root;
	CHECK(m && m->kind == PICKLE_OBJECT);
	if (!m || m->kind != PICKLE_OBJECT)
		goto out;
	CHECK_STR(m->u.object->class_name, "__torch__.M");
	CHECK(m->u.object->state && m->u.object->state->kind == PICKLE_DICT);
	CHECK_INT(r.doc.protocol, 2);
	CHECK_INT(r.doc.nstorages, 2);
	CHECK_INT(r.doc.ntensors, 2);

	const struct pickle_value *w = pickle_attr(m, "w");
	CHECK(w && w->kind == PICKLE_TENSOR);
	if (w && w->kind == PICKLE_TENSOR) {
		const struct pickle_tensor *t = w->u.tensor;
		CHECK_STR(t->storage->key, "0");
		CHECK_STR(t->storage->type_name, "Float");
		CHECK_STR(t->storage->location, "cpu");
		CHECK_INT(t->storage->numel, 6);
		CHECK_INT(t->dtype, IR_DTYPE_FLOAT);
		CHECK_INT(t->elem_size, 4);
		CHECK_INT(t->rank, 2);
		CHECK_INT(t->sizes[0], 2);
		CHECK_INT(t->sizes[1], 3);
		CHECK_INT(t->strides[0], 3);
		CHECK_INT(t->numel, 6);
		CHECK_INT(t->extent, 6);
		CHECK(t->requires_grad);
		CHECK(!t->qscheme);
	}
	const struct pickle_value *wt = pickle_attr(m, "wt");
	CHECK(wt && wt->kind == PICKLE_TENSOR);
	if (wt && wt->kind == PICKLE_TENSOR) {
		CHECK_INT(wt->u.tensor->strides[0], 1);
		CHECK_INT(wt->u.tensor->strides[1], 3);
		CHECK(!wt->u.tensor->requires_grad);
	}
	const struct pickle_value *sz = pickle_attr(m, "sizes");
	CHECK(sz && sz->kind == PICKLE_LIST && sz->u.seq.n == 4);
	if (sz && sz->kind == PICKLE_LIST && sz->u.seq.n == 4) {
		CHECK_STR(sz->type_tag, "List[int]");
		CHECK_INT(sz->u.seq.items[1]->u.i, 300);
		CHECK_INT(sz->u.seq.items[2]->u.i, -70000);
		CHECK_INT(sz->u.seq.items[3]->u.i, (int64_t)1 << 40);
	}
	const struct pickle_value *sub = pickle_attr(m, "sub");
	CHECK(sub && sub->kind == PICKLE_OBJECT);
	CHECK_STR(sub->u.object->class_name,
		  "__torch__.torch.nn.modules.linear.Linear");
	CHECK(pickle_attr(sub, "training")->kind == PICKLE_BOOL);
	CHECK(pickle_attr(sub, "name")->kind == PICKLE_NONE);
	CHECK(pickle_attr(sub, "nope") == NULL);
	const struct pickle_value *dev = pickle_attr(m, "dev");
	CHECK(dev && dev->kind == PICKLE_DEVICE);
	CHECK_STR(dev->u.s.data, "cuda:1");
	CHECK(pickle_attr(m, "f")->u.f == -1.5);
	CHECK(pickle_attr(m, "t")->u.b == 1);

	/* the printer walks it all */
	char *text = NULL;
	size_t tl = 0;
	FILE *fp = open_memstream(&text, &tl);
	pickle_print(fp, m, 10);
	fclose(fp);
	CHECK(strstr(text, "'dev': device('cuda:1')") != NULL);
	CHECK(strstr(text, "Float[3, 2] stride (1, 3) storage '0'+0") != NULL);
	free(text);
out:
	run_free(&r);
}

/* Every proper prefix fails with a message; none crashes. */
static void test_pickle_truncations(void)
{
	struct pb p;
	module_sample(&p);
	for (size_t n = 0; n < p.len; n++) {
		struct run r;
		unsigned char *copy = malloc(n + 1);
		memcpy(copy, p.buf, n);
		run(&r, copy, n);
		CHECK(failed_with(&r, ""));
		CHECK(strstr(r.text, "truncated") || strstr(r.text, "underflow"));
		run_free(&r);
		free(copy);
	}
}

/* Every byte flipped three ways: an error or a value, never a crash. */
static void test_pickle_flips(void)
{
	struct pb p;
	static const unsigned char xors[] = { 0xff, 0x01, 0x40 };
	module_sample(&p);
	for (size_t i = 0; i < p.len; i++)
		for (size_t k = 0; k < sizeof xors; k++) {
			struct run r;
			p.buf[i] ^= xors[k];
			run(&r, p.buf, p.len);
			CHECK(r.rc == 0 || r.d.nerrors == 1);
			p.buf[i] ^= xors[k];
			run_free(&r);
		}
}

static void test_pickle_refuse_globals(void)
{
	struct pb p = { .len = 0 };
	op(&p, 0x80);
	op(&p, 2);
	global(&p, "os", "system");
	str(&p, "echo owned");
	op(&p, 0x85);
	op(&p, 'R');
	op(&p, '.');
	expect_error(&p, "offset 2 (GLOBAL): refusing global 'os.system' "
		     "(not a torch archive construct)");

	/* the same through STACK_GLOBAL (protocol 4) */
	p.len = 0;
	op(&p, 0x80);
	op(&p, 4);
	str(&p, "builtins");
	str(&p, "eval");
	op(&p, 0x93);
	op(&p, '.');
	expect_error(&p, "(STACK_GLOBAL): refusing global 'builtins.eval'");

	static const char *const bad[][2] = {
		{ "torch.storage", "TypedStorage" },
		{ "torch._utils", "_rebuild_sparse_tensor" },
		{ "torch", "load" },
		{ "__torch__x", "Evil" },
		{ "copyreg", "_reconstructor" },
		{ "torch.jit._pickle", "build_tensor_from_id" },
		{ "collections", "defaultdict" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		char msg[200];
		p.len = 0;
		global(&p, bad[i][0], bad[i][1]);
		op(&p, '.');
		snprintf(msg, sizeof msg, "refusing global '%s.%s'", bad[i][0],
			 bad[i][1]);
		expect_error(&p, msg);
	}
	/* an unprintable name stays on one line */
	p.len = 0;
	global(&p, "os\033[2J", "sys\rtem");
	op(&p, '.');
	expect_error(&p, "refusing global 'os\\x1b[2J.sys\\x0dtem'");
}

static void test_pickle_memo(void)
{
	struct pb p = { .len = 0 };
	get(&p, 5);
	op(&p, '.');
	expect_error(&p, "(BINGET): memo index 5 out of range (the memo has 0 "
		     "entries)");

	p.len = 0;
	op(&p, 'N');
	put(&p, 0);
	op(&p, 'j'); /* LONG_BINGET */
	le(&p, 0xffffffffu, 4);
	op(&p, '.');
	expect_error(&p, "memo index 4294967295 out of range (the memo has 1 "
		     "entries)");

	p.len = 0;
	op(&p, 'N');
	op(&p, 'r'); /* LONG_BINPUT */
	le(&p, 7, 4);
	op(&p, '.');
	expect_error(&p, "(LONG_BINPUT): memo index 7 skips past the next free "
		     "slot 0");

	p.len = 0;
	put(&p, 0); /* nothing to memoize */
	expect_error(&p, "(BINPUT): stack underflow");

	/* overwrite, MEMOIZE, get back */
	p.len = 0;
	op(&p, 'N');
	put(&p, 0);
	op(&p, 0x88);
	put(&p, 0);
	op(&p, 0x94); /* MEMOIZE: slot 1 */
	get(&p, 0);
	get(&p, 1);
	op(&p, 0x87); /* TUPLE3 */
	op(&p, '.');
	struct run r;
	run(&r, p.buf, p.len);
	CHECK_INT(r.rc, 0);
	if (!r.rc) {
		CHECK_INT(r.doc.root->u.seq.n, 3);
		CHECK(r.doc.root->u.seq.items[1]->kind == PICKLE_BOOL);
		CHECK(r.doc.root->u.seq.items[2] == r.doc.root->u.seq.items[0]);
	}
	run_free(&r);
}

static void test_pickle_underflow(void)
{
	struct pb p = { .len = 0 };
	op(&p, 'N');
	op(&p, 0x86); /* TUPLE2 with one item */
	op(&p, '.');
	expect_error(&p, "(TUPLE2): stack underflow: 2 items needed");

	p.len = 0;
	op(&p, ']');
	op(&p, 'e'); /* APPENDS without MARK */
	expect_error(&p, "(APPENDS): no MARK to close");

	p.len = 0;
	op(&p, '(');
	op(&p, 'N');
	op(&p, 'e'); /* APPENDS with nothing below the mark */
	expect_error(&p, "(APPENDS): stack underflow: no container below");

	p.len = 0;
	op(&p, 'N');
	op(&p, '(');
	op(&p, 0x85); /* TUPLE1 would take an item below the mark */
	expect_error(&p, "(TUPLE1): stack underflow: 1 items needed");

	p.len = 0;
	op(&p, 'N');
	op(&p, '(');
	op(&p, '.'); /* STOP pops below the mark */
	expect_error(&p, "(STOP): stack underflow (below a MARK)");

	p.len = 0;
	op(&p, '.');
	expect_error(&p, "offset 0 (STOP): stack underflow");

	p.len = 0;
	op(&p, '0'); /* POP on nothing */
	expect_error(&p, "(POP): no MARK to close");

	p.len = 0;
	op(&p, 'N');
	op(&p, 'N');
	op(&p, 's'); /* SETITEM: two items, no dict */
	expect_error(&p, "(SETITEM): stack underflow");

	p.len = 0;
	op(&p, '}');
	op(&p, '(');
	op(&p, 'N');
	op(&p, 'u'); /* SETITEMS with an odd count */
	expect_error(&p, "(SETITEMS): odd number of items");

	p.len = 0;
	op(&p, 'N');
	op(&p, '(');
	op(&p, 'N');
	op(&p, 'e'); /* APPENDS onto a None */
	expect_error(&p, "(APPENDS): target must be a list, not none");

	p.len = 0;
	op(&p, 'I');
	expect_error(&p, "offset 0 (unknown opcode): unsupported opcode 0x49");

	p.len = 0;
	op(&p, 0x80);
	op(&p, 9);
	expect_error(&p, "(PROTO): unsupported protocol 9");

	p.len = 0;
	op(&p, 'N');
	expect_error(&p, "truncated: no STOP opcode");
}

static void test_pickle_cycles_and_depth(void)
{
	struct pb p = { .len = 0 };
	op(&p, ']');
	put(&p, 0);
	get(&p, 0);
	op(&p, 'a'); /* APPEND the list to itself */
	op(&p, '.');
	expect_error(&p, "contains a cycle");

	/* nesting: 600 levels is too deep, 400 is fine */
	for (int levels = 400; levels <= 600; levels += 200) {
		p.len = 0;
		op(&p, 'N');
		for (int i = 0; i < levels; i++)
			op(&p, 0x85);
		op(&p, '.');
		struct run r;
		run(&r, p.buf, p.len);
		if (levels > PICKLE_MAX_DEPTH)
			CHECK(failed_with(&r, "nested deeper than 512 levels"));
		else
			CHECK_INT(r.rc, 0);
		run_free(&r);
	}
	/* shared, not cyclic: 2^200 paths, 200 values; must be quick */
	p.len = 0;
	op(&p, 'N');
	for (int i = 0; i < 200; i++) {
		op(&p, '2'); /* DUP */
		op(&p, 0x86);
	}
	op(&p, '.');
	struct run r;
	run(&r, p.buf, p.len);
	CHECK_INT(r.rc, 0);
	run_free(&r);

	/* deep through a shared node: the first path is short, a later one
	 * long: still refused */
	p.len = 0;
	op(&p, 'N');
	for (int i = 0; i < 300; i++)
		op(&p, 0x85);
	put(&p, 0);
	for (int i = 0; i < 300; i++)
		op(&p, 0x85);
	get(&p, 0);
	op(&p, 0x86); /* (deep, shared) */
	op(&p, '.');
	expect_error(&p, "nested deeper than 512 levels");
}

static void test_pickle_numbers(void)
{
	struct pb p = { .len = 0 };
	op(&p, 0x80);
	op(&p, 2);
	op(&p, '(');
	pint(&p, 255);
	pint(&p, 65535);
	pint(&p, -1);
	pint(&p, INT64_MIN);
	op(&p, 0x8a); /* LONG1 of 9 bytes: -2 with sign extension */
	op(&p, 9);
	raw(&p, "\xfe\xff\xff\xff\xff\xff\xff\xff\xff", 9);
	op(&p, 0x8a); /* LONG1 of 0 bytes: 0 */
	op(&p, 0);
	op(&p, 0x8a); /* LONG1 of 2 bytes: -32768 */
	op(&p, 2);
	raw(&p, "\x00\x80", 2);
	op(&p, 0x8b); /* LONG4 of 1 byte: 5 */
	le(&p, 1, 4);
	op(&p, 5);
	pfloat(&p, 0.1);
	pfloat(&p, -INFINITY);
	global(&p, "builtins", "complex");
	pfloat(&p, 1.0);
	pint(&p, 2);
	op(&p, 0x86);
	op(&p, 'R');
	op(&p, 't');
	op(&p, '.');
	struct run r;
	run(&r, p.buf, p.len);
	CHECK_INT(r.rc, 0);
	if (!r.rc) {
		struct pickle_value **it = r.doc.root->u.seq.items;
		CHECK_INT(r.doc.root->u.seq.n, 11);
		CHECK_INT(it[0]->u.i, 255);
		CHECK_INT(it[1]->u.i, 65535);
		CHECK_INT(it[2]->u.i, -1);
		CHECK(it[3]->u.i == INT64_MIN);
		CHECK_INT(it[4]->u.i, -2);
		CHECK_INT(it[5]->u.i, 0);
		CHECK_INT(it[6]->u.i, -32768);
		CHECK_INT(it[7]->u.i, 5);
		CHECK(it[8]->u.f == 0.1);
		CHECK(isinf(it[9]->u.f) && it[9]->u.f < 0);
		CHECK(it[10]->kind == PICKLE_COMPLEX && it[10]->u.c.re == 1.0 &&
		      it[10]->u.c.im == 2.0);
	}
	run_free(&r);

	p.len = 0;
	op(&p, 0x8a); /* 2^64: beyond int64 */
	op(&p, 9);
	raw(&p, "\0\0\0\0\0\0\0\0\1", 9);
	op(&p, '.');
	expect_error(&p, "(LONG1): integer of 9 bytes does not fit in 64 bits");

	p.len = 0;
	op(&p, 0x8a); /* 2^63: the ninth byte is 0 but the eighth's top bit set */
	op(&p, 9);
	raw(&p, "\0\0\0\0\0\0\0\x80\0", 9);
	op(&p, '.');
	expect_error(&p, "does not fit in 64 bits");

	p.len = 0;
	op(&p, 0x8b);
	le(&p, 0x80000000u, 4);
	expect_error(&p, "(LONG4): negative length");

	p.len = 0;
	op(&p, 'X');
	le(&p, 1000, 4);
	raw(&p, "abc", 3);
	expect_error(&p, "(BINUNICODE): truncated: string of 1000 bytes, 3 left");
}

/* Protocol 4 opcodes: FRAME, SHORT_BINUNICODE, MEMOIZE, STACK_GLOBAL,
 * EMPTY_SET/ADDITEMS, FROZENSET, SHORT_BINBYTES, BINUNICODE8, NEWOBJ_EX. */
static void test_pickle_protocol4(void)
{
	struct pb p = { .len = 0 };
	op(&p, 0x80);
	op(&p, 4);
	op(&p, 0x95); /* FRAME */
	le(&p, 100, 8);
	op(&p, '(');
	op(&p, 0x8c);
	op(&p, 5);
	raw(&p, "torch", 5);
	op(&p, 0x94);
	op(&p, 0x8c);
	op(&p, 6);
	raw(&p, "device", 6);
	op(&p, 0x94);
	op(&p, 0x93); /* STACK_GLOBAL */
	op(&p, 0x94);
	op(&p, 0x8c);
	op(&p, 4);
	raw(&p, "cuda", 4);
	pint(&p, 3);
	op(&p, 0x86);
	op(&p, 'R'); /* torch.device('cuda', 3) */
	op(&p, 0x8f); /* EMPTY_SET */
	op(&p, '(');
	pint(&p, 1);
	pint(&p, 2);
	op(&p, 0x90); /* ADDITEMS */
	op(&p, '(');
	pint(&p, 7);
	op(&p, 0x91); /* FROZENSET */
	op(&p, 'C'); /* SHORT_BINBYTES */
	op(&p, 3);
	raw(&p, "a\0c", 3);
	op(&p, 0x8d); /* BINUNICODE8 */
	le(&p, 2, 8);
	raw(&p, "hi", 2);
	global(&p, "__torch__", "Obj");
	op(&p, ')');
	op(&p, '}');
	op(&p, 0x92); /* NEWOBJ_EX */
	op(&p, '(');
	op(&p, 't');
	op(&p, 'b'); /* BUILD with an (empty) tuple state */
	op(&p, '(');
	op(&p, 'l'); /* LIST */
	op(&p, '(');
	str(&p, "k");
	pint(&p, 1);
	op(&p, 'd'); /* DICT */
	op(&p, '(');
	op(&p, 'N');
	op(&p, '1'); /* POP_MARK */
	op(&p, 't');
	op(&p, '.');
	struct run r;
	run(&r, p.buf, p.len);
	CHECK_INT(r.rc, 0);
	if (!r.rc) {
		struct pickle_value **it = r.doc.root->u.seq.items;
		CHECK_INT(r.doc.protocol, 4);
		CHECK_INT(r.doc.root->u.seq.n, 8);
		CHECK(it[0]->kind == PICKLE_DEVICE);
		CHECK_STR(it[0]->u.s.data, "cuda:3");
		CHECK(it[1]->kind == PICKLE_SET && it[1]->u.seq.n == 2);
		CHECK(it[2]->kind == PICKLE_SET && it[2]->u.seq.n == 1);
		CHECK(it[3]->kind == PICKLE_BYTES && it[3]->u.s.len == 3 &&
		      !memcmp(it[3]->u.s.data, "a\0c", 3));
		CHECK(pickle_str_eq(it[4], "hi"));
		CHECK(it[5]->kind == PICKLE_OBJECT &&
		      it[5]->u.object->state->kind == PICKLE_TUPLE);
		CHECK(it[6]->kind == PICKLE_LIST && it[6]->u.seq.n == 0);
		CHECK(it[7]->kind == PICKLE_DICT &&
		      pickle_dict_get(it[7], "k")->u.i == 1);
	}
	run_free(&r);
}

static void test_pickle_torch_constructs(void)
{
	static const int64_t s4[] = { 4 }, st1[] = { 1 }, s5[] = { 5 };
	struct pb p = { .len = 0 };
	op(&p, 0x80);
	op(&p, 2);
	op(&p, '(');
	/* 0: quantized, per tensor */
	global(&p, "torch._utils", "_rebuild_qtensor");
	op(&p, '(');
	storage(&p, "QInt8Storage", "q", 4);
	pint(&p, 0);
	int_tuple(&p, s4, 1);
	int_tuple(&p, st1, 1);
	op(&p, '(');
	global(&p, "torch", "per_tensor_affine");
	pfloat(&p, 0.5);
	pint(&p, 3);
	op(&p, 't');
	op(&p, 0x89);
	ordered_dict(&p);
	op(&p, 't');
	op(&p, 'R');
	/* 1: a parameter */
	global(&p, "torch._utils", "_rebuild_parameter");
	op(&p, '(');
	tensor_v2(&p, "HalfStorage", "h", 4, 0, s4, st1, 1, 0);
	op(&p, 0x88);
	ordered_dict(&p);
	op(&p, 't');
	op(&p, 'R');
	/* 2: _rebuild_from_type_v2(_rebuild_tensor_v2, Parameter, args, {}) */
	global(&p, "torch._tensor", "_rebuild_from_type_v2");
	op(&p, '(');
	global(&p, "torch._utils", "_rebuild_tensor_v2");
	global(&p, "torch.nn.parameter", "Parameter");
	op(&p, '(');
	storage(&p, "BFloat16Storage", "b", 4);
	pint(&p, 1);
	int_tuple(&p, st1, 1);
	int_tuple(&p, st1, 1);
	op(&p, 0x89);
	ordered_dict(&p);
	op(&p, 't');
	op(&p, '}');
	op(&p, 't');
	op(&p, 'R');
	/* 3: _rebuild_tensor_v3 on an untyped storage of 16 bytes */
	global(&p, "torch._utils", "_rebuild_tensor_v3");
	op(&p, '(');
	storage(&p, "UntypedStorage", "u", 16);
	pint(&p, 0);
	int_tuple(&p, s4, 1);
	int_tuple(&p, st1, 1);
	op(&p, 0x89);
	ordered_dict(&p);
	global(&p, "torch", "float32");
	op(&p, 't');
	op(&p, 'R');
	/* 4: v2 with the 2.x math-bits dict */
	global(&p, "torch._utils", "_rebuild_tensor_v2");
	op(&p, '(');
	storage(&p, "ComplexFloatStorage", "c", 1);
	pint(&p, 0);
	op(&p, ')');
	op(&p, ')');
	op(&p, 0x89);
	ordered_dict(&p);
	op(&p, '}');
	op(&p, '(');
	str(&p, "conj");
	op(&p, 0x88);
	op(&p, 'u');
	op(&p, 't');
	op(&p, 'R');
	/* 5: restore_type_tag */
	global(&p, "torch.jit._pickle", "restore_type_tag");
	op(&p, '}');
	op(&p, '(');
	str(&p, "a");
	pint(&p, 1);
	op(&p, 'u');
	str(&p, "Dict[str, int]");
	op(&p, 0x86);
	op(&p, 'R');
	/* 6: an enum */
	global(&p, "__torch__", "Color");
	pint(&p, 2);
	op(&p, 'R');
	/* 7: an empty tensor with a storage offset at the very end */
	static const int64_t s0[] = { 0 };
	tensor_v2(&p, "LongStorage", "e", 3, 3, s0, st1, 1, 0);
	/* 8: a stride-0 (expanded) tensor */
	tensor_v2(&p, "DoubleStorage", "x", 1, 0, s5, s0, 1, 0);
	op(&p, 't');
	op(&p, '.');
	struct run r;
	run(&r, p.buf, p.len);
	CHECK_INT(r.rc, 0);
	if (r.rc) {
		fprintf(stderr, "  %s", r.text);
		run_free(&r);
		return;
	}
	struct pickle_value **it = r.doc.root->u.seq.items;
	CHECK_INT(r.doc.root->u.seq.n, 9);
	const struct pickle_tensor *q = it[0]->u.tensor;
	CHECK_INT(q->qscheme, PICKLE_QSCHEME_PER_TENSOR_AFFINE);
	CHECK(q->q_scale == 0.5);
	CHECK_INT(q->q_zero_point, 3);
	CHECK_INT(q->dtype, IR_DTYPE_INT8);
	CHECK(q->storage->quantized);
	CHECK(it[1]->u.tensor->is_parameter && it[1]->u.tensor->requires_grad);
	CHECK_INT(it[1]->u.tensor->dtype, IR_DTYPE_FLOAT16);
	CHECK(it[2]->kind == PICKLE_TENSOR && it[2]->u.tensor->is_parameter);
	CHECK_INT(it[2]->u.tensor->offset, 1);
	CHECK_INT(it[2]->u.tensor->dtype, IR_DTYPE_BFLOAT16);
	CHECK_INT(it[3]->u.tensor->dtype, IR_DTYPE_FLOAT);
	CHECK_INT(it[3]->u.tensor->elem_size, 4);
	CHECK_INT(it[3]->u.tensor->storage->elem_size, 1);
	CHECK(it[4]->u.tensor->conj && !it[4]->u.tensor->neg);
	CHECK_INT(it[4]->u.tensor->rank, 0);
	CHECK_INT(it[4]->u.tensor->numel, 1);
	CHECK_STR(it[5]->type_tag, "Dict[str, int]");
	CHECK(it[6]->kind == PICKLE_OBJECT && it[6]->u.object->is_enum &&
	      it[6]->u.object->state->u.i == 2);
	CHECK_STR(it[6]->u.object->class_name, "__torch__.Color");
	CHECK_INT(it[7]->u.tensor->numel, 0);
	CHECK_INT(it[7]->u.tensor->extent, 0);
	CHECK_INT(it[8]->u.tensor->extent, 1);
	CHECK_INT(r.doc.ntensors, 8); /* _rebuild_parameter's makes two */
	run_free(&r);
}

static void test_pickle_bad_tensors(void)
{
	static const int64_t s4[] = { 4 }, s5[] = { 5 }, st1[] = { 1 },
			     st2[] = { 2 }, big[] = { (int64_t)1 << 40,
						      (int64_t)1 << 40 },
			     bigst[] = { 1, 1 };
	struct pb p = { .len = 0 };
	tensor_v2(&p, "FloatStorage", "0", 4, 0, s5, st1, 1, 0);
	op(&p, '.');
	expect_error(&p, "(REDUCE): _rebuild_tensor_v2: tensor (offset 0, 5 "
		     "elements spanned, 4 bytes each) does not fit its storage "
		     "'0' (16 bytes)");

	p.len = 0;
	tensor_v2(&p, "FloatStorage", "0", 8, 2, s4, st2, 1, 0);
	op(&p, '.');
	expect_error(&p, "does not fit its storage");

	p.len = 0;
	tensor_v2(&p, "FloatStorage", "0", 8, 9, (const int64_t[]){ 0 }, st1,
		  1, 0);
	op(&p, '.');
	expect_error(&p, "storage offset 9 is past the end of storage '0'");

	p.len = 0;
	tensor_v2(&p, "FloatStorage", "0", 8, -1, s4, st1, 1, 0);
	op(&p, '.');
	expect_error(&p, "negative storage offset -1");

	p.len = 0;
	tensor_v2(&p, "FloatStorage", "0", 8, 0, big, bigst, 2, 0);
	op(&p, '.');
	expect_error(&p, "overflow");

	p.len = 0;
	global(&p, "torch._utils", "_rebuild_tensor_v2");
	op(&p, '(');
	storage(&p, "FloatStorage", "0", 4);
	pint(&p, 0);
	int_tuple(&p, s4, 1);
	int_tuple(&p, bigst, 2);
	op(&p, 0x89);
	ordered_dict(&p);
	op(&p, 't');
	op(&p, 'R');
	op(&p, '.');
	expect_error(&p, "1 sizes but 2 strides");

	p.len = 0;
	storage(&p, "FloatStorage", "0", INT64_MAX / 2);
	op(&p, '.');
	expect_error(&p, "(BINPERSID): storage '0': 4611686018427387903 "
		     "elements overflow");

	p.len = 0;
	str(&p, "not a tuple");
	op(&p, 'Q');
	expect_error(&p, "persistent id is not ('storage'");

	p.len = 0;
	global(&p, "torch._utils", "_rebuild_tensor_v2");
	op(&p, ')');
	op(&p, 'R');
	expect_error(&p, "_rebuild_tensor_v2 takes 6 or 7 arguments, not 0");

	p.len = 0;
	global(&p, "torch._utils", "_rebuild_tensor_v2");
	str(&p, "x");
	op(&p, 'R');
	expect_error(&p, "needs a tuple of arguments, not str");

	p.len = 0;
	global(&p, "torch", "FloatStorage");
	op(&p, ')');
	op(&p, 'R');
	expect_error(&p, "'torch.FloatStorage' cannot be called");

	p.len = 0;
	str(&p, "x");
	op(&p, ')');
	op(&p, 'R');
	expect_error(&p, "(REDUCE): cannot call a str");

	p.len = 0;
	global(&p, "collections", "OrderedDict");
	op(&p, ')');
	op(&p, 0x81);
	expect_error(&p, "(NEWOBJ): 'collections.OrderedDict' cannot be "
		     "instantiated");

	p.len = 0;
	global(&p, "__torch__", "M");
	op(&p, ')');
	op(&p, 0x81);
	op(&p, '}');
	op(&p, 'b');
	op(&p, '}');
	op(&p, 'b');
	expect_error(&p, "(BUILD): object of class '__torch__.M' built twice");

	p.len = 0;
	op(&p, ']');
	op(&p, '}');
	op(&p, 'b');
	expect_error(&p, "(BUILD): cannot set the state of a list");

	p.len = 0;
	global(&p, "torch.jit._pickle", "build_intlist");
	op(&p, '(');
	op(&p, '}');
	op(&p, 't');
	op(&p, 'R');
	expect_error(&p, "'torch.jit._pickle.build_intlist' needs a list, not "
		     "dict");
}

const struct unit_test unit_tests[] = {
	UNIT(test_pickle_module),
	UNIT(test_pickle_truncations),
	UNIT(test_pickle_flips),
	UNIT(test_pickle_refuse_globals),
	UNIT(test_pickle_memo),
	UNIT(test_pickle_underflow),
	UNIT(test_pickle_cycles_and_depth),
	UNIT(test_pickle_numbers),
	UNIT(test_pickle_protocol4),
	UNIT(test_pickle_torch_constructs),
	UNIT(test_pickle_bad_tensors),
	{ 0 },
};

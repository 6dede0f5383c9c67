/*
 * fuzz_script.c - libFuzzer target for the script compiler
 * (lib/script/compile*.c, passes.c, shapes.c): the input is the source of
 * code/__torch__.py, compiled against a fixed hand-made module tree, so
 * that mutations reach the compiler rather than the zip's checksums.  The
 * root object is a `__torch__.M` with attributes `training` (True), `n`
 * (int 3), `f` (float), `s` (str), `t` (tuple (1, 2)), `l` (List[int]),
 * `w` (a Float(2, 2) tensor), `none` (None) and `sub`, another `__torch__.M`
 * (whose `sub` is None), so that `self.sub.forward` recursion, attribute
 * resolution and weights are all reachable.  Malformed or unsupported input
 * must only produce diagnostics; a graph must verify and print.
 * FUZZ_SCRIPT_VERBOSE=1 shows the messages and graphs (to check seeds).
 *
 * Build and run (from the repository root; clang and libclang-rt-14-dev):
 *
 *   make fuzz && build/fuzz/bin/fuzz_script -max_total_time=300 \
 *     -dict=tests/fuzz/ts_parser.dict build/fuzz/corpus/fuzz_script \
 *     tests/fuzz/corpus/script
 *
 * The seed corpus (tests/fuzz/corpus/script) holds small modules in
 * python_print's style: calls of submodules and functions, if/else, for and
 * while loops, tuples, in-place ops.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../archive/picklebuild.h"
#include "../archive/zipbuild.h"
#include "compile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* One `__torch__.M` object; depth 0 has a `sub` of depth 1. */
static void module_obj(struct pb *p, int depth)
{
	static const int64_t sz[2] = { 2, 2 }, st[2] = { 2, 1 };

	global(p, "__torch__", "M");
	op(p, ')');
	op(p, 0x81); /* NEWOBJ */
	op(p, '}');  /* EMPTY_DICT */
	op(p, '(');  /* MARK */
	str(p, "training");
	op(p, 0x88);
	str(p, "n");
	pint(p, 3);
	str(p, "f");
	pfloat(p, 0.5);
	str(p, "s");
	str(p, "zeros");
	str(p, "t");
	op(p, 'K'); op(p, 1);
	op(p, 'K'); op(p, 2);
	op(p, 0x86); /* TUPLE2 */
	str(p, "l");
	op(p, ']');
	op(p, '(');
	pint(p, 1);
	pint(p, 2);
	op(p, 'e'); /* APPENDS */
	str(p, "w");
	tensor_v2(p, "FloatStorage", "0", 4, 0, sz, st, 2, 0);
	str(p, "none");
	op(p, 'N');
	str(p, "sub");
	if (depth == 0)
		module_obj(p, 1);
	else
		op(p, 'N');
	op(p, 'u'); /* SETITEMS */
	op(p, 'b'); /* BUILD */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *sink;
	static const float w[4] = { 1, 2, 3, 4 };
	struct pb *p = calloc(1, sizeof(*p));
	struct pb *c = calloc(1, sizeof(*c));
	struct zb z = ZB_INIT;
	struct diag d;
	struct torch_archive *ar;
	struct script_options o = { NULL, NULL, 0 };
	struct ir_graph *g;
	int code;

	if (!sink) /* FUZZ_SCRIPT_VERBOSE=1: messages and graphs shown */
		sink = getenv("FUZZ_SCRIPT_VERBOSE") ? stderr :
			fopen("/dev/null", "w");
	if (!p || !c || size > 60000)
		goto out;
	op(p, 0x80); op(p, 2); /* PROTO 2 */
	module_obj(p, 0);
	op(p, '.');
	op(c, 0x80); op(c, 2);
	op(c, ')'); /* an empty constants tuple */
	op(c, '.');
	zb_add(&z, "m/version", "3\n", 2, ZB_STORED | ZB_TORCH);
	zb_add(&z, "m/data.pkl", p->buf, p->len, ZB_STORED | ZB_TORCH);
	zb_add(&z, "m/constants.pkl", c->buf, c->len, ZB_STORED | ZB_TORCH);
	zb_add(&z, "m/data/0", w, sizeof(w), ZB_STORED | ZB_TORCH);
	zb_add(&z, "m/code/__torch__.py", data, size, ZB_STORED | ZB_TORCH);
	zb_finish(&z, 1);
	diag_init(&d, "fuzz");
	d.out = sink;
	ar = torch_archive_open_mem(z.buf, z.len, "fuzz.pt", &d);
	if (!ar)
		goto out;
	g = script_compile(ar, &o, &d, &code);
	torch_archive_close(ar);
	if (g) {
		if (code != EXIT_OK || ir_write_text(g, sink, &d))
			abort(); /* a compiled graph always prints */
		ir_graph_free(g);
	} else if (code == EXIT_OK || code == EXIT_INTERNAL) {
		abort(); /* failures say why; EXIT_INTERNAL is ir_verify's */
	}
out:
	zb_free(&z);
	free(p);
	free(c);
	return 0;
}

/*
 * fuzz_script.c - libFuzzer target for the script compiler
 * (lib/script/compile*.c, passes.c, shapes.c): the input is the source of
 * code/__torch__.py, compiled against a fixed hand-made module tree
 * (fuzz_archive.h), so that mutations reach the compiler rather than the
 * zip's checksums, and `self.sub.forward` recursion, attribute resolution
 * and weights are all reachable.  Malformed or unsupported input
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

#include "compile.h"
#include "fuzz_archive.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *sink;
	struct zb z = ZB_INIT;
	struct diag d;
	struct torch_archive *ar;
	struct script_options o = { NULL, NULL, 0 };
	struct ir_graph *g;
	int code;

	if (!sink) /* FUZZ_SCRIPT_VERBOSE=1: messages and graphs shown */
		sink = getenv("FUZZ_SCRIPT_VERBOSE") ? stderr :
			fopen("/dev/null", "w");
	if (fuzz_archive(data, size, &z))
		goto out;
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
	return 0;
}

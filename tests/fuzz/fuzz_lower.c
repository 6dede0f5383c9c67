/*
 * fuzz_lower.c - libFuzzer target for lower (lib/lower: the symbolics, its
 * integer constant folding and build.c's small-tensor folding) and fold
 * (lib/fold: fold_eval.c's evaluator and the peephole passes): the input
 * is text IR; an aten-level graph is lowered at the opset its first byte
 * picks (7..17), and a graph that lowers is folded.  Malformed or
 * unsupported input must only give diagnostics with an exit code; a
 * lowered or folded graph must verify.  FUZZ_LOWER_VERBOSE=1 shows the
 * messages.
 *
 *   make fuzz && build/fuzz/bin/fuzz_lower -max_total_time=60 \
 *     -dict=tests/fuzz/ir_text.dict build/fuzz/corpus/fuzz_lower \
 *     tests/fuzz/corpus/lower
 *
 * Seeds (tests/fuzz/corpus/lower): the lower and fold IR files of
 * tests/data and issue 16's reproducers (INT64_MIN // -1, Expand past
 * int64, dims of INT64_MAX).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fold.h"
#include "ir.h"
#include "lower.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *sink;
	struct diag d;
	struct ir_graph *g;
	struct lower_options lo;
	struct fold_options fo;
	struct fold_stats st;
	int rc;

	if (!sink)
		sink = getenv("FUZZ_LOWER_VERBOSE") ? stderr :
			fopen("/dev/null", "w");
	if (size < 1 || size > 100000)
		return 0;
	diag_init(&d, "fuzz");
	d.out = sink;
	g = ir_read_text_mem((const char *)data + 1, size - 1, "fuzz.ir", &d);
	if (!g)
		return 0;
	memset(&lo, 0, sizeof(lo));
	lo.opset = LOWER_OPSET_MIN + data[0] % (LOWER_OPSET_MAX -
						LOWER_OPSET_MIN + 1);
	rc = g->level == IR_LEVEL_ATEN ? lower_graph(g, &lo, &d) : EXIT_OK;
	if (rc == EXIT_OK) {
		if (ir_verify(g, &d))
			abort(); /* lower's output is a valid graph */
		fold_options_init(&fo);
		fo.max_bytes = 1 << 20;
		memset(&st, 0, sizeof(st));
		rc = fold_graph(g, &fo, &st, &d);
		if (rc == EXIT_OK && ir_verify(g, &d))
			abort();
	}
	if (rc == EXIT_INTERNAL)
		abort();
	ir_graph_free(g);
	return 0;
}

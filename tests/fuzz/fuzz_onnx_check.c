/*
 * fuzz_onnx_check.c - libFuzzer target for reading and checking .onnx
 * models: onnx_read_mem (protobuf-c unpack behind a nesting guard),
 * onnx_check_model, onnx_to_ir, and the text and dot writers on the result.
 *
 * Invariants checked besides "no crash, no sanitizer report, no leak":
 * a refused input says why (an error was reported); and a model the checker
 * accepts without warnings prints as text IR that the text reader reads
 * back without error (what `check --print m.onnx | emit` relies on).  The
 * warnings are for experimental ops (ATen, Scale...), which onnx and we
 * skip unchecked, subgraphs and all, so their models may not print
 * readably.
 *
 * Build and run from the repository root (`make fuzz` builds every target
 * into build/fuzz/bin; `make fuzz-smoke` runs each for FUZZ_SECONDS):
 *
 *   make fuzz
 *   mkdir -p build/fuzz/corpus/fuzz_onnx_check
 *   build/fuzz/bin/fuzz_onnx_check -max_total_time=300 \
 *       build/fuzz/corpus/fuzz_onnx_check tests/fuzz/corpus/onnx_check
 *
 * The seed corpus (tests/fuzz/corpus/onnx_check/) holds small models built
 * by tests/check/make_broken.py and from libonnx-testdata: control flow,
 * sequences, strings, sparse and external data, a local function.  External
 * data is resolved against a directory that does not exist, so the target
 * never reads files named by its input.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "ir.h"
#include "ir_dot.h"
#include "onnx_check.h"
#include "onnx_read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *path = "/nonexistent-fuzz-dir/model.onnx";
	struct diag d;
	Onnx__ModelProto *m;

	diag_init(&d, "fuzz");
	d.quiet = 1;
	if (onnx_read_mem(data, size, &m, &d) != ONNX_READ_OK) {
		if (!d.nerrors)
			abort(); /* refused without saying why */
		return 0;
	}
	int problems = onnx_check_model(m, path, &d);
	if (problems != d.nerrors)
		abort(); /* the count returned is the count reported */
	int unchecked = d.nwarnings; /* experimental ops, skipped as onnx does */

	struct ir_graph *g = onnx_to_ir(m, path, &d);
	char *text = NULL, *dot = NULL;
	size_t tlen = 0, dlen = 0;
	FILE *fp = open_memstream(&text, &tlen);
	if (!fp || ir_write_text(g, fp, &d))
		abort();
	fclose(fp);
	fp = open_memstream(&dot, &dlen);
	if (!fp || ir_write_dot(g, fp, &d))
		abort();
	fclose(fp);
	ir_graph_free(g);

	if (!problems && !unchecked) {
		struct diag d2;
		diag_init(&d2, "fuzz");
		struct ir_graph *g2 = ir_read_text_mem(text, tlen, "printed",
						       &d2);
		if (!g2 || d2.nerrors) {
			fprintf(stderr, "fuzz: the text IR of a valid model does "
				"not read back:\n%s\n", text);
			abort();
		}
		ir_graph_free(g2);
	}
	free(text);
	free(dot);
	onnx_model_free(m);
	return 0;
}

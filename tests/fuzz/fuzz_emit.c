/*
 * fuzz_emit.c - libFuzzer target for emit's writer (lib/onnx/onnx_write.c:
 * naming, the plan, protobuf streaming, inline tensor data): the input is
 * text IR of ONNX level, written as a model to /dev/null.  Weight
 * references are allowed nowhere (restrict_weights with no folder), so the
 * target never reads files the input names.  A failure must be a
 * diagnostic with an exit code.  FUZZ_EMIT_VERBOSE=1 shows the messages.
 *
 *   make fuzz && build/fuzz/bin/fuzz_emit -max_total_time=60 \
 *     -dict=tests/fuzz/ir_text.dict build/fuzz/corpus/fuzz_emit \
 *     tests/fuzz/corpus/emit
 *
 * Seeds (tests/fuzz/corpus/emit): tests/data's emit IR files and issue
 * 16's reproducers (8000 nodes in one scope cut to 300, a stride-0 weight
 * of 1e12 elements, a weight() naming /etc/passwd).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "ir.h"
#include "onnx_write.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *sink;
	struct diag d;
	struct ir_graph *g;
	struct onnx_write_options o;
	int rc;

	if (!sink)
		sink = getenv("FUZZ_EMIT_VERBOSE") ? stderr :
			fopen("/dev/null", "w");
	if (size > 200000)
		return 0;
	diag_init(&d, "fuzz");
	d.out = sink;
	g = ir_read_text_mem((const char *)data, size, "fuzz.ir", &d);
	if (!g)
		return 0;
	onnx_write_options_init(&o);
	o.restrict_weights = 1; /* no folder: no weight file is read */
	rc = onnx_write_model(g, &o, "/dev/null", &d);
	if (rc == EXIT_INTERNAL || (rc == EXIT_OK && d.nerrors))
		abort();
	onnx_write_options_release(&o);
	ir_graph_free(g);
	return 0;
}

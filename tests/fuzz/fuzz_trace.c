/*
 * fuzz_trace.c - libFuzzer target for trace's interpreter and kernels
 * (lib/trace/interp.c, ops_*.c, lib/gpu/cpu*.c): the input is the source
 * of code/__torch__.py in the archive of fuzz_archive.h; what script
 * compiles of it is run by trace_run() on the CPU with one input x, a
 * Float(2, 2) (the module's weight `w` has that shape too), at most 20000
 * ops a run (trace_options.max_steps), so that `while True` costs little.
 * The archive is written to /tmp/fuzz_trace_PID.pt for each run, since
 * trace maps weights from the archive's file.
 * A failure must be a diagnostic with an exit code; a recorded graph must
 * print.  FUZZ_TRACE_VERBOSE=1 shows the messages and graphs.
 *
 *   make fuzz && build/fuzz/bin/fuzz_trace -max_total_time=60 \
 *     -dict=tests/fuzz/ts_parser.dict build/fuzz/corpus/fuzz_trace \
 *     tests/fuzz/corpus/trace
 *
 * The seeds (tests/fuzz/corpus/trace) are the script seeds and the trace
 * reproducers of issue 16 (eye overflow, INT64_MIN // -1, while True, ...)
 * written against this module.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "compile.h"
#include "fuzz_archive.h"
#include "trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[64]; /* the archive file of this process */

static void remove_archive(void)
{
	unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *sink;
	FILE *f;
	struct zb z = ZB_INIT;
	struct diag d;
	struct torch_archive *ar;
	struct script_options so = { NULL, NULL, 0 };
	struct trace_options to = { 0 };
	struct trace_input in = { 0 };
	struct ir_graph *g, *r;
	int code;

	if (!sink)
		sink = getenv("FUZZ_TRACE_VERBOSE") ? stderr :
			fopen("/dev/null", "w");
	if (fuzz_archive(data, size, &z))
		goto out;
	diag_init(&d, "fuzz");
	d.out = sink;
	/* a file, not memory: trace maps the weights from the archive's path */
	if (!path[0]) {
		snprintf(path, sizeof(path), "/tmp/fuzz_trace_%d.pt",
			 (int)getpid());
		atexit(remove_archive);
	}
	f = fopen(path, "wb");
	if (!f)
		goto out;
	if (fwrite(z.buf, 1, z.len, f) != z.len) {
		fclose(f);
		goto out;
	}
	fclose(f);
	ar = torch_archive_open(path, &d);
	if (!ar)
		goto out;
	g = script_compile(ar, &so, &d, &code);
	torch_archive_close(ar);
	if (!g)
		goto out;
	in.dtype = IR_DTYPE_FLOAT;
	in.rank = 2;
	in.dims[0] = in.dims[1] = 2;
	to.backend = gpu_backend_get(GPU_BACKEND_CPU);
	to.inputs = &in;
	to.ninputs = 1;
	to.seed = 1;
	to.max_steps = 20000;
	r = trace_run(g, &to, &d, &code);
	if (r) {
		if (ir_write_text(r, sink, &d))
			abort(); /* a recorded graph always prints */
		ir_graph_free(r);
	} else if (code == EXIT_OK || code == EXIT_INTERNAL) {
		abort(); /* failures say why */
	}
	ir_graph_free(g);
out:
	zb_free(&z);
	return 0;
}

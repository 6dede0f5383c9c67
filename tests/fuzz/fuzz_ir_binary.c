/*
 * fuzz_ir_binary.c - libFuzzer target for the binary IR reader and writer.
 *
 * Reads the input with ir_read_binary_mem().  Whatever it accepts must also
 * be written (ir_write_binary), read back, and written again to the same
 * bytes: a stream the reader takes is one the next stage can take.  Any
 * crash, sanitizer report, leak or broken invariant (abort) is a bug.
 *
 * Build and run from the repository root, without the Makefile:
 *
 *   clang -std=c11 -D_GNU_SOURCE -g -O1 \
 *       -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
 *       -Ilib/common -o build/fuzz_ir_binary tests/fuzz/fuzz_ir_binary.c \
 *       lib/common/ir.c lib/common/ir_binary.c lib/common/ir_verify.c \
 *       lib/common/ir_text.c lib/common/arena.c lib/common/diag.c \
 *       -lmsgpackc -lm
 *   mkdir -p build/fuzz-corpus
 *   build/fuzz_ir_binary -max_total_time=300 -max_len=65536 \
 *       build/fuzz-corpus tests/fuzz/corpus/ir_binary
 *
 * The seed corpus in tests/fuzz/corpus/ir_binary/ comes from the unit
 * test's sample streams:
 *   PT2ONNX_CORPUS_DIR=tests/fuzz/corpus/ir_binary \
 *       build/tests/test_ir_binary test_roundtrip test_messages
 * libFuzzer's default -rss_limit_mb=2048 (and malloc limit) also catches
 * an input that makes the reader allocate far more than its size.
 */
#include "ir.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Writes g to memory; aborts when the writer refuses what was read. */
static char *write_or_die(const struct ir_graph *g, size_t *len)
{
	struct diag d;
	char *buf = NULL;
	FILE *fp = open_memstream(&buf, len);

	diag_init(&d, "fuzz");
	if (!fp)
		abort();
	if (ir_write_binary(g, fp, &d)) {
		fprintf(stderr, "fuzz: the writer refused a graph the reader "
			"accepted\n");
		abort();
	}
	fclose(fp);
	return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct diag d;
	struct ir_graph *g, *g2;
	char *a, *b;
	size_t alen = 0, blen = 0;

	diag_init(&d, "fuzz");
	d.quiet = 1;
	g = ir_read_binary_mem(data, size, "fuzz", &d);
	if (!g) {
		if (!d.nerrors)
			abort(); /* refused without saying why */
		return 0;
	}
	if (d.nerrors)
		abort(); /* accepted after reporting an error */
	a = write_or_die(g, &alen);
	ir_graph_free(g);

	diag_init(&d, "fuzz");
	g2 = ir_read_binary_mem(a, alen, "rewritten", &d);
	if (!g2) {
		fprintf(stderr, "fuzz: the rewritten stream does not read\n");
		abort();
	}
	b = write_or_die(g2, &blen);
	ir_graph_free(g2);
	if (alen != blen || memcmp(a, b, alen)) {
		fprintf(stderr, "fuzz: write -> read -> write changed the "
			"bytes\n");
		abort();
	}
	free(a);
	free(b);
	return 0;
}

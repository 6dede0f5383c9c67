/*
 * fuzz_ir_text.c - libFuzzer target for the text IR reader and printer
 * (lib/common/ir_text.c).
 *
 * Any input must be rejected with a message or parsed; a parsed graph must
 * print, and the printed text must parse and print again to the same bytes
 * (the printer's output is canonical).  A crash, a sanitizer report or an
 * abort() below is a bug.
 *
 * `make fuzz` builds every target into build/fuzz/bin/ and `make fuzz-smoke`
 * runs each briefly on its committed corpus.  By hand, from the repository
 * root (clang with libFuzzer: Debian's clang and libclang-rt-14-dev):
 *
 *   clang -std=c11 -D_GNU_SOURCE -g -O1 \
 *       -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
 *       -Ilib/common -o build/fuzz_ir_text tests/fuzz/fuzz_ir_text.c \
 *       lib/common/ir.c lib/common/ir_text.c lib/common/ir_binary.c \
 *       lib/common/ir_verify.c lib/common/arena.c lib/common/diag.c \
 *       -lmsgpackc -lm
 *   mkdir -p build/fuzz-corpus-ir_text
 *   build/fuzz_ir_text -dict=tests/fuzz/ir_text.dict -max_total_time=300 \
 *       build/fuzz-corpus-ir_text tests/fuzz/corpus/ir_text
 *
 * libFuzzer adds what it finds to the first directory, so the committed
 * seeds (tests/fuzz/corpus/ir_text/: the golden samples of
 * tests/unit/test_ir_text.c and a hand-written variant) stay as they are.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* g printed into a malloc'd string; NULL when the printer fails */
static char *print(const struct ir_graph *g, size_t *len)
{
	struct diag d;
	char *buf = NULL;
	FILE *mem = open_memstream(&buf, len);
	if (!mem)
		abort();
	diag_init(&d, "fuzz");
	d.quiet = 1;
	int rc = ir_write_text(g, mem, &d);
	fclose(mem);
	if (rc < 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct diag d;
	size_t alen, blen;

	diag_init(&d, "fuzz");
	d.quiet = 1;
	struct ir_graph *g = ir_read_text_mem((const char *)data, size, "fuzz",
					      &d);
	if (!g) {
		if (!d.nerrors)
			abort(); /* rejected without saying why */
		return 0;
	}
	char *a = print(g, &alen);
	ir_graph_free(g);
	if (!a)
		abort(); /* a graph the reader accepted must print */

	diag_init(&d, "fuzz");
	d.quiet = 1;
	g = ir_read_text_mem(a, alen, "printed", &d);
	if (!g)
		abort(); /* the printer's output must read back */
	char *b = print(g, &blen);
	ir_graph_free(g);
	if (!b || alen != blen || memcmp(a, b, alen))
		abort(); /* ...and print the same */
	free(a);
	free(b);
	return 0;
}

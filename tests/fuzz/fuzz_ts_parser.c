/*
 * fuzz_ts_parser.c - libFuzzer target for the TorchScript lexer and parser
 * (lib/script/ts_lexer.c, ts_parser.c, ts_print.c): parse the input as a
 * code/ file, as an expression and as a type, and print every tree that
 * comes out.  Any crash, leak, hang or sanitizer report is a bug: malformed
 * input must only produce one diagnostic.  The invariant checked here too:
 * a parse either succeeds with no error or fails with exactly one.
 *
 * Build and run (from the repository root; clang and libclang-rt-14-dev):
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined \
 *     -fno-sanitize-recover=undefined -std=c11 -D_GNU_SOURCE \
 *     -Ilib/common -Ilib/script tests/fuzz/fuzz_ts_parser.c \
 *     lib/script/ts_lexer.c lib/script/ts_parser.c lib/script/ts_print.c \
 *     lib/common/arena.c lib/common/diag.c -lm -o build/fuzz_ts_parser
 *   mkdir -p build/fuzz-ts && nice -n 10 build/fuzz_ts_parser \
 *     -max_total_time=300 -max_len=8192 -dict=tests/fuzz/ts_parser.dict \
 *     build/fuzz-ts tests/fuzz/corpus/ts_parser
 *
 * The seed corpus (tests/fuzz/corpus/ts_parser) holds small code/ files of real
 * archives (tests/script/make_sources.py) and a file of the rest of the
 * grammar.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "ts_parser.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *sink(void)
{
	static FILE *f;
	if (!f)
		f = fopen("/dev/null", "w");
	return f;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *src = (const char *)data;
	struct arena a = ARENA_INIT;
	struct diag d;
	struct ts_module *m;
	struct ts_expr *e;
	struct ts_type *t;

	diag_init(&d, "fuzz");
	d.quiet = 1;
	m = ts_parse(&a, &d, "fuzz.py", src, size);
	if (m ? d.nerrors != 0 : d.nerrors != 1)
		abort();
	if (m && sink())
		ts_print_module(sink(), m);

	diag_init(&d, "fuzz");
	d.quiet = 1;
	e = ts_parse_expr(&a, &d, "fuzz.py", src, size);
	if (e ? d.nerrors != 0 : d.nerrors != 1)
		abort();
	if (e && sink())
		ts_print_expr(sink(), e);

	diag_init(&d, "fuzz");
	d.quiet = 1;
	t = ts_parse_type(&a, &d, "fuzz.py", src, size);
	if (t ? d.nerrors != 0 : d.nerrors != 1)
		abort();
	if (t && sink())
		ts_print_type(sink(), t);
	arena_release(&a);
	return 0;
}

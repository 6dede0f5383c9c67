/*
 * fuzz_pt2.c - libFuzzer target for the torch.export reader (lib/pt2/pt2.c):
 * an input that starts like a zip ("PK\3\4") is opened as the whole .pt2
 * archive; anything else is taken as models/model.json and put in a small
 * archive around it (tests/archive/pt2build.h: one float parameter "w"),
 * so that the fuzzer works on the JSON the reader walks.  The graph read,
 * if any, is written as binary IR to memory.  Any crash, leak or sanitizer
 * report is a bug: malformed input must only produce diagnostics.
 *
 * `make fuzz` builds it (build/fuzz/bin/fuzz_pt2); `make fuzz-smoke` runs
 * it on tests/fuzz/corpus/pt2 (the small program of pt2build.h, the
 * model.json of ../shared/torch2's index_add_cumsum, and the whole .pt2
 * of tests/data/pt2).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../archive/pt2build.h"
#include "pt2.h"
#include "zip.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct diag d;
	struct zb z = ZB_INIT;
	struct pt2_options o = { NULL, "fuzz.pt2" };
	const void *buf = data;
	size_t len = size;
	int code;

	diag_init(&d, "fuzz");
	d.quiet = 1;
	if (size < 4 || memcmp(data, "PK\3\4", 4)) {
		pt2_build(&z, (const char *)data, size, 2, 1);
		buf = z.buf;
		len = z.len;
	}
	struct zip *zp = zip_open_mem(buf, len, "fuzz.pt2", &d);
	if (zp) {
		struct ir_graph *g = pt2_read(zp, &o, &d, &code);
		if (g) {
			char *out = NULL;
			size_t n = 0;
			FILE *fp = open_memstream(&out, &n);
			if (fp) {
				ir_write_binary(g, fp, &d);
				fclose(fp);
			}
			free(out);
			ir_graph_free(g);
		} else if (code == EXIT_OK) {
			abort(); /* no graph must come with an exit status */
		}
		zip_close(zp);
	}
	zb_free(&z);
	return 0;
}

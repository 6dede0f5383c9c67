/*
 * fuzz_zip.c - libFuzzer target for the zip reader and the archive layer
 * above it (lib/archive/zip.c, torch_archive.c): open the input as a zip,
 * read, locate and verify every entry, then open it as a TorchScript archive
 * and look up a class's source.  Any crash, leak or sanitizer report is a
 * bug: malformed input must only produce diagnostics.
 *
 * Build and run (from the repository root; clang and libclang-rt-14-dev):
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined \
 *     -fno-sanitize-recover=all -std=c11 -D_GNU_SOURCE \
 *     -Ilib/common -Ilib/archive tests/fuzz/fuzz_zip.c lib/archive/[a-z]*.c \
 *     lib/common/arena.c lib/common/diag.c -lz -o build/fuzz_zip
 *   mkdir -p build/fuzz-zip && nice -n 10 build/fuzz_zip -max_total_time=300 \
 *     -max_len=65536 build/fuzz-zip tests/fuzz/corpus/zip
 *
 * The seed corpus (tests/fuzz/corpus/zip) holds small real archives written
 * by torch.jit.save (tests/archive/make_archives.py) and zips written by
 * Python's zipfile (stored, deflated, ZIP64).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "torch_archive.h"
#include "zip.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct diag d;
	diag_init(&d, "fuzz");
	d.quiet = 1;

	struct zip *z = zip_open_mem(data, size, "fuzz.zip", &d);
	if (z) {
		for (uint32_t i = 0; i < z->nentries; i++) {
			const struct zip_entry *e = &z->entries[i];
			void *buf;
			size_t len;
			uint64_t off;
			if (zip_find_n(z, e->name, e->name_len) != e)
				abort(); /* lookup must find every entry */
			zip_locate(z, e, &off, &d);
			if (!zip_read(z, e, &buf, &len, &d))
				free(buf);
			zip_verify(z, e, &d);
		}
		zip_close(z);
	}

	struct torch_archive *ar = torch_archive_open_mem(data, size, "fuzz.pt",
							  &d);
	if (ar) {
		const char *text;
		size_t len;
		torch_archive_class_source(ar, "__torch__.M", &text, &len, NULL,
					   &d);
		for (uint32_t i = 0; i < ar->data.ntensors; i++) {
			uint64_t off, n;
			torch_archive_tensor_span(ar, ar->data.tensors[i], &off,
						  &n);
			if (n && (off > size || n > size - off))
				abort(); /* spans must lie inside the input */
		}
		torch_archive_close(ar);
	}
	return 0;
}

/*
 * fuzz_pickle.c - libFuzzer target for the restricted unpickler
 * (lib/archive/pickle.c): unpickle the input, and when it loads, print the
 * value tree and check the documented invariants (tensor extents fit their
 * storages).  Malformed input must only produce diagnostics.
 *
 * Build and run (from the repository root; clang and libclang-rt-14-dev):
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined \
 *     -fno-sanitize-recover=all -std=c11 -D_GNU_SOURCE \
 *     -Ilib/common -Ilib/archive tests/fuzz/fuzz_pickle.c lib/archive/[a-z]*.c \
 *     lib/common/arena.c lib/common/diag.c -lz -o build/fuzz_pickle
 *   mkdir -p build/fuzz-pickle && nice -n 10 build/fuzz_pickle \
 *     -max_total_time=300 -dict=tests/fuzz/pickle.dict build/fuzz-pickle \
 *     tests/fuzz/corpus/pickle
 *
 * The seed corpus (tests/fuzz/corpus/pickle) holds data.pkl and
 * constants.pkl records of archives written by torch.jit.save
 * (tests/archive/make_archives.py) and pickles of plain values written by
 * Python at protocols 2 to 5.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "pickle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *sink;
	struct diag d;
	struct arena a = ARENA_INIT;
	struct pickle_doc doc;

	if (!sink)
		sink = fopen("/dev/null", "w");
	diag_init(&d, "fuzz");
	d.quiet = 1;
	if (!pickle_load(&doc, &a, data, size, "fuzz.pkl", &d)) {
		if (!doc.root || d.nerrors)
			abort();
		pickle_print(sink, doc.root, 1000);
		for (uint32_t i = 0; i < doc.ntensors; i++) {
			const struct pickle_tensor *t = doc.tensors[i];
			uint64_t bytes = t->storage->numel * t->storage->elem_size;
			if (t->numel && ((uint64_t)t->offset + t->extent) *
						t->elem_size > bytes)
				abort();
		}
	} else if (doc.root || d.nerrors != 1) {
		abort(); /* one error per failure, no result */
	}
	arena_release(&a);
	return 0;
}

/*
 * rlimits.h - the resource limits every stage enforces against hostile
 * input, in one place.  Each is far above what a real model reaches (the
 * conformance set's largest value is noted beside it) and each is listed,
 * with its number, in README's "Limits" section.  Past a limit the stage
 * refuses with one line naming the file and the limit, never runs on.
 */
#ifndef PT2ONNX_RLIMITS_H
#define PT2ONNX_RLIMITS_H

#include <stdint.h>

/* trace: ops the interpreter runs in one trace (loop bodies once per
 * iteration): a `while True` stops here, after about 20 s and 0.8 GB
 * (each op run is recorded).  A traced resnet50 runs about 200, a
 * 36-layer transformer a few thousand. */
#define LIMIT_TRACE_STEPS ((int64_t)2 * 1000 * 1000)
/* trace: items in one list value (`[0] * 10**12`). */
#define LIMIT_TRACE_LIST_ITEMS ((int64_t)1 << 24)
/* trace: bytes of one tensor the interpreter allocates (16 GiB). */
#define LIMIT_TRACE_TENSOR_BYTES ((uint64_t)16 << 30)
/* emit: bytes a weight reference may expand to beyond the bytes its file
 * holds for it (a stride-0 view of a few bytes claiming 1e12 elements). A
 * reference whose written size is at most its length is not limited. */
#define LIMIT_EMIT_EXPAND_BYTES ((uint64_t)1 << 30)
/* archive: bytes one zip entry may inflate to in memory (pickles, code,
 * constants; the weights' data entries are mapped or streamed, not
 * inflated by this reader). */
#define LIMIT_ZIP_INFLATE_BYTES ((uint64_t)256 << 20)

#endif

/*
 * tensor_data.h - a tensor's bytes copied to an output file, from the IR's
 * inline data or from the file a weight refers to, without holding more
 * than one 1 MiB chunk in memory.
 *
 * The bytes written are ONNX's raw_data layout: row-major, contiguous,
 * little-endian, numel x element size.  A reference with strides that are
 * not the contiguous ones is gathered through a read-only mapping of the
 * range it spans (rare: torch saves most storages contiguous).
 *
 * Errors name the tensor (`what`, e.g. "weight 'fc.weight'") and the file.
 * Functions return 0 or an exit code from diag.h after reporting:
 * EXIT_BAD_INPUT for a missing, short or changed weight file or inline data
 * of the wrong length, EXIT_UNSUPPORTED for what ONNX's raw_data cannot hold
 * (string tensors by reference, negative strides), EXIT_IO for read and
 * write errors.
 */
#ifndef PT2ONNX_TENSOR_DATA_H
#define PT2ONNX_TENSOR_DATA_H

#include <stdint.h>

#include "diag.h"
#include "ir.h"
#include "outfile.h"

#define TENSOR_DATA_CHUNK (1u << 20) /* bytes read and written at a time */

/* Reads weight files: one chunk buffer and the last file opened. */
struct tensor_reader {
	unsigned char *buf; /* TENSOR_DATA_CHUNK bytes, allocated on demand */
	int fd;             /* the open weight file, -1 when none */
	char *path;         /* its path (malloc'd), NULL when none */
};

void tensor_reader_init(struct tensor_reader *r);
/* Closes the file and frees the buffer; r can be used again. */
void tensor_reader_release(struct tensor_reader *r);

/* Bytes of t's data in raw_data form: numel x element size (0 for
 * strings and undefined dtypes). */
uint64_t tensor_data_size(const struct ir_tensor *t);

/* Checks, before anything is written, that t's data can be copied: dtype
 * known, inline length right, weight file present and long enough for
 * offset + length, the tensor's extent within length. */
int tensor_data_check(const struct ir_tensor *t, const char *what,
		      struct diag *d);

/* What tensor_data_allowed learnt about the last weight file it looked
 * at, so that the weights of one archive cost one look at its directory,
 * not one each.  Zeroed to start; tensor_allow_release frees it. */
struct tensor_allow {
	char *file;              /* the reference's file as given */
	int regular;             /* its real path is a regular file */
	int by_place;            /* under one of dirs, or fold data */
	uint64_t *spans;         /* else its stored data/ entries' byte
				    ranges [start, end) in pairs */
	uint32_t nspans;
};
void tensor_allow_release(struct tensor_allow *a);

/* Whether t's weight file may be read (docs/ir.md, "Which files a
 * weight() may read"): its real path is under one of dirs (real paths),
 * or it is a torch archive whose stored data/ entry holds the referenced
 * bytes, or a fold data file (FOLD_DATA_MAGIC).  0, or EXIT_BAD_INPUT
 * after reporting.  Inline tensors are always allowed.  a (the same dirs
 * every call) remembers the last file. */
int tensor_data_allowed(const struct ir_tensor *t, const char *what,
			const char *const *dirs, uint32_t ndirs,
			struct tensor_allow *a, struct diag *d);

/* Copies tensor_data_size(t) bytes of t's data to out. */
int tensor_data_copy(struct tensor_reader *r, const struct ir_tensor *t,
		     const char *what, struct outfile *out, struct diag *d);

#endif

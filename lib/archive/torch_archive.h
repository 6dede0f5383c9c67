/*
 * torch_archive.h - a TorchScript archive (torch.jit.save's model.pt)
 * opened for reading: the module tree, the constants, the code, and where
 * each tensor's bytes lie in the file.
 *
 * torch_archive_open() reads the zip's directory, the `version` record (or
 * `.data/version`), `byteorder` when present (big-endian is refused),
 * `data.pkl` (the module object tree) and `constants.pkl` (a tuple: the
 * CONSTANTS.cN of the code), and resolves every storage the pickles name to
 * its record, `data/<key>` or `constants/<key>`: the record must be stored
 * (not deflated) and hold numel x element size bytes, and each tensor's
 * extent must fit its storage.  Weights are never read: a tensor is a file
 * offset and a byte length, ready for struct ir_data_ref.  Code files are
 * inflated on demand and cached.  Cost: a few preads plus the two pickles;
 * a 100 MB model opens in about a millisecond.
 *
 * All entries sit under one folder (`archive/`, or the model's name); the
 * functions below take names relative to it ("code/__torch__.py").
 *
 * Ownership: the archive owns everything it returns (values, sources,
 * entries) until torch_archive_close().  Errors are reported to the diag
 * as one line naming the file and the entry.
 */
#ifndef PT2ONNX_TORCH_ARCHIVE_H
#define PT2ONNX_TORCH_ARCHIVE_H

#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "diag.h"
#include "pickle.h"
#include "zip.h"

#define TORCH_VERSION_MIN 1
#define TORCH_VERSION_MAX 20

struct torch_source; /* a cached, inflated code file */

struct torch_archive {
	char *path;                     /* as given to open */
	struct zip *zip;
	struct arena arena;             /* pickled values, names, lists */
	const char *prefix;             /* "resnet18/": every entry's folder */
	size_t prefix_len;
	int64_t version;                /* the `version` record: 1..20 */
	int version_in_data;            /* it was `.data/version` (2.x) */
	const char *byteorder;          /* "little", or NULL when absent */
	struct pickle_doc data;         /* data.pkl: root is the module */
	struct pickle_doc constants;    /* constants.pkl: root is a tuple; an
					   empty tuple when the record is
					   missing */
	const struct zip_entry **code;  /* code/…py, in directory order */
	uint32_t ncode;
	const struct zip_entry **debug; /* …debug_pkl records */
	uint32_t ndebug;
	struct torch_source *sources;   /* inflated code, newest first */
};

/* Opens path.  Returns NULL after reporting to d. */
struct torch_archive *torch_archive_open(const char *path, struct diag *d);
/* The same over len bytes in memory, which must outlive the archive (fuzzers,
 * tests); name is used in messages. */
struct torch_archive *torch_archive_open_mem(const void *buf, size_t len,
					     const char *name, struct diag *d);
/* Frees everything; NULL is a no-op. */
void torch_archive_close(struct torch_archive *ar);

/* The module object (an OBJECT value: class name, attribute dict). */
const struct pickle_value *torch_archive_root(const struct torch_archive *ar);
/* constants.pkl's tuple (CONSTANTS.c0 is item 0). */
const struct pickle_value *torch_archive_constants(
	const struct torch_archive *ar);

/* The entry `<prefix><rel>`, or NULL. */
const struct zip_entry *torch_archive_entry(const struct torch_archive *ar,
					    const char *rel);
/* Reads `<prefix><rel>` whole into a malloc'd, NUL-terminated buffer (see
 * zip_read).  Returns 0, or -1 after reporting (a missing entry too). */
int torch_archive_read(struct torch_archive *ar, const char *rel, void **buf,
		       size_t *len, struct diag *d);

/* The source file that defines a qualified TorchScript name:
 * `__torch__.torchvision.models.resnet.ResNet` is looked up as
 * code/__torch__/torchvision/models/resnet.py, then shorter module paths
 * (`__torch__.Net` is in code/__torch__.py).  Sets *text (NUL-terminated,
 * owned by the archive, cached), *len and, when non-NULL, *file (the entry
 * name relative to the prefix).  Returns 0, or -1 after reporting. */
int torch_archive_class_source(struct torch_archive *ar, const char *qualname,
			       const char **text, size_t *len,
			       const char **file, struct diag *d);

/* Where t's bytes lie: the file offset of its first element (storage
 * offset included) and the bytes from there that its strides can reach
 * (extent x element size; 0 for an empty tensor).  t must come from this
 * archive's pickles (checked at open, so no error is possible). */
void torch_archive_tensor_span(const struct torch_archive *ar,
			       const struct pickle_tensor *t, uint64_t *offset,
			       uint64_t *length);
/* 1 when t's strides are the contiguous (row-major) ones for its sizes. */
int torch_tensor_is_contiguous(const struct pickle_tensor *t);

/* Reads every entry once to check its CRC-32 (the weights too: costs a
 * read of the whole file).  Returns the number of bad entries reported. */
int torch_archive_verify(struct torch_archive *ar, struct diag *d);

#endif

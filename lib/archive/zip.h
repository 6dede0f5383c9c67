/*
 * zip.h - a zip reader for torch.jit.save archives (and any ordinary zip).
 *
 * Opening reads only the tail of the file (the end of central directory
 * record, the ZIP64 locator and end record when present) and the central
 * directory, with pread: a 3 GB archive opens in about a millisecond and
 * the weights are never touched.  Each entry's data offset comes from its
 * local header (30 bytes plus the name and extra lengths), read on demand by
 * zip_locate(); the sizes always come from the central directory (torch's
 * local headers carry zeros and a data descriptor).
 *
 * Invariants checked at open, so later calls can trust them:
 *   - every entry's local header, name and compressed data lie before the
 *     central directory and do not overlap the next entry (no overlapping
 *     entries, hence no "zip bomb" built from shared data);
 *   - names are unique, non-empty and hold no NUL byte;
 *   - a stored entry's compressed and uncompressed sizes are equal.
 * Methods other than stored (0) and deflate (8), and encrypted entries, are
 * accepted at open (listing them is harmless) and refused when read.
 *
 * Errors go to the struct diag as one line naming the file (as d->file,
 * set for the duration of the call) and the entry.  Input is never trusted:
 * a malformed file gives an error, never a crash.
 *
 * Ownership: a struct zip owns its entries and their names; pointers into it
 * stay valid until zip_close().  zip_read() returns a malloc'd buffer that
 * the caller frees.  zip_open() owns the fd it opens; zip_open_fd() and
 * zip_open_mem() borrow theirs, which must outlive the zip.
 */
#ifndef PT2ONNX_ZIP_H
#define PT2ONNX_ZIP_H

#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "diag.h"

enum zip_method {
	ZIP_METHOD_STORED = 0,
	ZIP_METHOD_DEFLATED = 8,
};

struct zip_entry {
	const char *name;       /* NUL-terminated, as in the central directory */
	uint32_t name_len;      /* strlen(name) */
	uint16_t method;        /* enum zip_method, or another (refused on read) */
	uint16_t flags;         /* general purpose flags; bit 0: encrypted */
	uint32_t crc32;         /* of the uncompressed data */
	uint64_t csize;         /* compressed size (ZIP64 resolved) */
	uint64_t usize;         /* uncompressed size (ZIP64 resolved) */
	uint64_t header_offset; /* of the local header */
	uint64_t limit;         /* the next entry's header, or the directory:
				   this entry's bytes must end before it */
	uint64_t data_offset;   /* of the first data byte; 0 until located */
};

struct zip {
	const char *name;        /* for messages: the path, or the name given */
	int fd;                  /* -1 for an in-memory zip */
	int own_fd;              /* close fd on zip_close */
	const unsigned char *mem; /* in-memory zip, or NULL */
	uint64_t size;           /* file size */
	uint64_t cd_offset;      /* central directory: offset and size */
	uint64_t cd_size;
	int zip64;               /* a ZIP64 end record was found */
	struct zip_entry *entries; /* in central directory order */
	uint32_t nentries;
	uint32_t *hash;          /* open addressing: entry index + 1, 0 empty */
	uint32_t hash_mask;
	struct arena arena;      /* entries, names, hash */
};

/* Opens the zip at path.  Returns NULL after reporting to d. */
struct zip *zip_open(const char *path, struct diag *d);
/* The same over an open fd (not closed by zip_close); name is for
 * messages. */
struct zip *zip_open_fd(int fd, const char *name, struct diag *d);
/* The same over len bytes in memory (fuzzers, unit tests). */
struct zip *zip_open_mem(const void *buf, size_t len, const char *name,
			 struct diag *d);
/* Frees the zip and closes the fd it owns.  NULL is a no-op. */
void zip_close(struct zip *z);

/* The entry named name (exact bytes), or NULL.  O(1). */
const struct zip_entry *zip_find(const struct zip *z, const char *name);
/* As zip_find with a name that is not NUL-terminated. */
const struct zip_entry *zip_find_n(const struct zip *z, const char *name,
				   size_t len);

/* Reads e's local header and sets e->data_offset (cached: the first call
 * costs one pread).  Checks the header's signature and name, and that the
 * data ends before e->limit.  Returns 0, or -1 after reporting.  With
 * offset non-NULL, stores the data offset there. */
int zip_locate(struct zip *z, const struct zip_entry *e, uint64_t *offset,
	       struct diag *d);

/* Reads e whole into a malloc'd buffer of e->usize + 1 bytes (the extra
 * byte is a NUL, so text entries are C strings).  Deflated entries are
 * inflated with zlib, stopping at the declared size: more or less output
 * than declared is an error, as is a bad CRC-32.  Refuses methods other
 * than stored and deflate, encrypted entries, and sizes that could not
 * come from deflate (usize > 1032 x csize + 64 KiB).  Returns 0 and sets
 * *buf (and *len when non-NULL), or returns -1 after reporting, *buf NULL. */
int zip_read(struct zip *z, const struct zip_entry *e, void **buf,
	     size_t *len, struct diag *d);

/* Reads e's data (streaming, 64 KiB at a time) only to check its CRC-32:
 * the way to verify a stored weight without keeping it.  Returns 0, or -1
 * after reporting. */
int zip_verify(struct zip *z, const struct zip_entry *e, struct diag *d);

/* pread on the zip: exactly len bytes at offset, or -1 after reporting
 * (short read, past the end).  For callers that read stored data in
 * place. */
int zip_pread(struct zip *z, void *buf, size_t len, uint64_t offset,
	      struct diag *d);

#endif

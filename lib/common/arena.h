/*
 * arena.h - a bump allocator: many small allocations, one free.
 *
 * Each IR graph owns one.  Chunks grow geometrically; an allocation larger
 * than half a chunk gets a chunk of its own, so big inline tensors do not
 * waste space.  Memory is zeroed.  Out of memory goes to
 * diag_out_of_memory() (diag.h's rule: the tool's handler, which exits
 * EXIT_IO): bookkeeping bounded by the input's size has no recovery path
 * worth a branch at every allocation.
 */
#ifndef PT2ONNX_ARENA_H
#define PT2ONNX_ARENA_H

#include <stddef.h>

struct arena_chunk;

struct arena {
	struct arena_chunk *head; /* newest chunk first */
	size_t chunk_size;        /* size of the next ordinary chunk */
	size_t total;             /* bytes handed out, for statistics */
};

#define ARENA_INIT { NULL, 0, 0 }

/* Zeroed, 16-byte aligned memory that lives until arena_release(). */
void *arena_alloc(struct arena *a, size_t size);
/* Frees every chunk; the arena can be used again. */
void arena_release(struct arena *a);

/* malloc/calloc/realloc/strdup that call diag_out_of_memory() instead of
 * returning NULL (for bookkeeping only: see diag.h). */
void *xmalloc(size_t size);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n); /* n bytes of s, NUL added */

#endif

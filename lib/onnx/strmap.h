/*
 * strmap.h - a string-keyed hash map (open addressing, FNV-1a), the name
 * tables of the ONNX checker and reader.
 *
 * Keys are not copied: they must outlive the map (they point into the
 * unpacked protobuf or an IR arena).  Values are opaque pointers; NULL is a
 * valid value, so strmap_get reports presence separately.  The table is
 * malloc'd and freed by strmap_release().  Insertion is amortised O(1).
 */
#ifndef PT2ONNX_STRMAP_H
#define PT2ONNX_STRMAP_H

#include <stddef.h>

struct strmap_entry {
	const char *key; /* NULL: empty slot */
	void *value;
};

struct strmap {
	struct strmap_entry *slots;
	size_t cap;   /* power of two, or 0 */
	size_t count;
};

#define STRMAP_INIT { NULL, 0, 0 }

/* Sets key to value.  Returns 1 when the key was new, 0 when an existing
 * entry was overwritten. */
int strmap_put(struct strmap *m, const char *key, void *value);
/* Adds key only when absent.  Returns 1 when added, 0 when present. */
int strmap_add(struct strmap *m, const char *key, void *value);
/* 1 and *value set (when value is not NULL) if key is present, else 0. */
int strmap_get(const struct strmap *m, const char *key, void **value);
/* Frees the table; the map is empty and reusable afterwards. */
void strmap_release(struct strmap *m);

#endif

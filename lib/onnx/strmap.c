/*
 * strmap.c - string-keyed open-addressing hash map (see strmap.h).
 * Load factor at most 1/2; linear probing; no deletion.
 */
#include "strmap.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"

static size_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a 64 */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return (size_t)h;
}

static struct strmap_entry *find_slot(struct strmap_entry *slots, size_t cap,
				      const char *key)
{
	size_t j = hash_str(key) & (cap - 1);
	while (slots[j].key && strcmp(slots[j].key, key))
		j = (j + 1) & (cap - 1);
	return &slots[j];
}

static void grow(struct strmap *m)
{
	size_t ncap = m->cap ? m->cap * 2 : 16;
	struct strmap_entry *ns = xcalloc(ncap, sizeof(*ns));
	for (size_t i = 0; i < m->cap; i++)
		if (m->slots[i].key)
			*find_slot(ns, ncap, m->slots[i].key) = m->slots[i];
	free(m->slots);
	m->slots = ns;
	m->cap = ncap;
}

static int insert(struct strmap *m, const char *key, void *value,
		  int overwrite)
{
	if ((m->count + 1) * 2 > m->cap)
		grow(m);
	struct strmap_entry *e = find_slot(m->slots, m->cap, key);
	if (e->key) {
		if (overwrite)
			e->value = value;
		return 0;
	}
	e->key = key;
	e->value = value;
	m->count++;
	return 1;
}

int strmap_put(struct strmap *m, const char *key, void *value)
{
	return insert(m, key, value, 1);
}

int strmap_add(struct strmap *m, const char *key, void *value)
{
	return insert(m, key, value, 0);
}

int strmap_get(const struct strmap *m, const char *key, void **value)
{
	if (!m->cap)
		return 0;
	struct strmap_entry *e = find_slot(m->slots, m->cap, key);
	if (!e->key)
		return 0;
	if (value)
		*value = e->value;
	return 1;
}

void strmap_release(struct strmap *m)
{
	free(m->slots);
	m->slots = NULL;
	m->cap = m->count = 0;
}

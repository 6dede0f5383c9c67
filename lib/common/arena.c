/*
 * arena.c - the bump allocator behind every IR graph (see arena.h).
 */
#include "arena.h"
#include "diag.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct arena_chunk {
	struct arena_chunk *next;
	size_t size; /* usable bytes after the header */
	size_t used;
	_Alignas(16) unsigned char data[];
};

/* diag.h's out-of-memory rule: the tool's handler, else abort. */
#define out_of_memory(size) diag_out_of_memory(size)

void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);
	if (!p)
		out_of_memory(size);
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		out_of_memory(n * size);
	return p;
}

void *xrealloc(void *p, size_t size)
{
	void *q = realloc(p, size ? size : 1);
	if (!q)
		out_of_memory(size);
	return q;
}

char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = xmalloc(n);
	memcpy(p, s, n);
	return p;
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

void *arena_alloc(struct arena *a, size_t size)
{
	size_t need = (size + 15) & ~(size_t)15;
	struct arena_chunk *c = a->head;

	if (need < size)
		out_of_memory(size);
	if (!c || c->size - c->used < need) {
		size_t csize;
		int own;
		if (a->chunk_size == 0)
			a->chunk_size = 64 * 1024;
		own = need > a->chunk_size / 2;
		if (own) {
			csize = need; /* a chunk of its own */
		} else {
			csize = a->chunk_size;
			if (a->chunk_size < 16 * 1024 * 1024)
				a->chunk_size *= 2;
		}
		if (csize > SIZE_MAX - sizeof(*c))
			out_of_memory(size);
		c = calloc(1, sizeof(*c) + csize);
		if (!c)
			out_of_memory(size);
		c->size = csize;
		if (own && a->head) {
			/* keep the partly used chunk at the head */
			c->next = a->head->next;
			a->head->next = c;
			c->used = need;
			a->total += size;
			return c->data;
		}
		c->next = a->head;
		a->head = c;
	}
	void *p = c->data + c->used;
	c->used += need;
	a->total += size;
	return p;
}

void arena_release(struct arena *a)
{
	struct arena_chunk *c = a->head;
	while (c) {
		struct arena_chunk *next = c->next;
		free(c);
		c = next;
	}
	a->head = NULL;
	a->chunk_size = 0;
	a->total = 0;
}

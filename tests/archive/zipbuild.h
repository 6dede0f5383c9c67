/*
 * zipbuild.h - builds zip archives in memory for the unit tests
 * (test_zip.c, test_torch_archive.c), the way torch.jit.save writes them
 * or the way an ordinary zip tool does.
 *
 *     struct zb z = ZB_INIT;
 *     zb_add(&z, "m/version", "3\n", 2, ZB_STORED | ZB_TORCH);
 *     zb_finish(&z, 1);            // 1: with a ZIP64 end record + locator
 *     ... z.buf, z.len ...
 *     zb_free(&z);
 *
 * ZB_TORCH writes what PyTorchStreamWriter writes: a local header with
 * zero CRC and sizes and flag 0x08, an "FB" extra field padding the data
 * to a 64-byte boundary, and a data descriptor after the data.  Without it,
 * the local header carries the sizes and no descriptor follows.
 * Header-only (static functions), test code: it aborts on out-of-memory.
 */
#ifndef PT2ONNX_ZIPBUILD_H
#define PT2ONNX_ZIPBUILD_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define ZB_STORED 0
#define ZB_DEFLATE 1
#define ZB_TORCH 2
#define ZB_MAX 64

struct zb_entry {
	char name[128];
	uint16_t method;
	uint16_t flags;
	uint32_t crc;
	uint64_t csize, usize, offset;
};

struct zb {
	unsigned char *buf;
	size_t len, cap;
	struct zb_entry e[ZB_MAX];
	int n;
	size_t cd_offset, cd_size; /* set by zb_finish */
	size_t eocd_offset;        /* of the classic end record */
};

#define ZB_INIT { NULL, 0, 0, { { "", 0, 0, 0, 0, 0, 0 } }, 0, 0, 0, 0 }

static inline void zb_bytes(struct zb *z, const void *p, size_t n)
{
	if (z->len + n > z->cap) {
		z->cap = (z->len + n) * 2 + 256;
		z->buf = realloc(z->buf, z->cap);
		if (!z->buf)
			abort();
	}
	if (n)
		memcpy(z->buf + z->len, p, n);
	z->len += n;
}

static inline void zb_u16(struct zb *z, unsigned v)
{
	unsigned char b[2] = { (unsigned char)v, (unsigned char)(v >> 8) };
	zb_bytes(z, b, 2);
}

static inline void zb_u32(struct zb *z, uint32_t v)
{
	zb_u16(z, v & 0xffff);
	zb_u16(z, v >> 16);
}

static inline void zb_u64(struct zb *z, uint64_t v)
{
	zb_u32(z, (uint32_t)v);
	zb_u32(z, (uint32_t)(v >> 32));
}

/* Raw deflate of data into a malloc'd buffer. */
static unsigned char *zb_deflate(const void *data, size_t len, size_t *out)
{
	z_stream s;
	memset(&s, 0, sizeof s);
	if (deflateInit2(&s, 9, Z_DEFLATED, -MAX_WBITS, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		abort();
	size_t cap = deflateBound(&s, (uLong)len) + 16;
	unsigned char *buf = malloc(cap);
	s.next_in = (unsigned char *)data;
	s.avail_in = (uInt)len;
	s.next_out = buf;
	s.avail_out = (uInt)cap;
	if (deflate(&s, Z_FINISH) != Z_STREAM_END)
		abort();
	*out = s.total_out;
	deflateEnd(&s);
	return buf;
}

/* Appends an entry; returns its index. */
static inline int zb_add(struct zb *z, const char *name, const void *data,
		  size_t len, int how)
{
	struct zb_entry *e = &z->e[z->n];
	size_t nlen = strlen(name), clen = len;
	unsigned char *comp = NULL;
	const void *payload = data;

	if (z->n == ZB_MAX)
		abort();
	snprintf(e->name, sizeof e->name, "%s", name);
	e->method = (how & ZB_DEFLATE) ? 8 : 0;
	e->flags = (how & ZB_TORCH) ? 0x0808 : 0;
	e->crc = (uint32_t)crc32(0, data, (uInt)len);
	if (how & ZB_DEFLATE) {
		comp = zb_deflate(data, len, &clen);
		payload = comp;
	}
	e->csize = clen;
	e->usize = len;
	e->offset = z->len;
	zb_u32(z, 0x04034b50);
	zb_u16(z, 20);
	zb_u16(z, e->flags);
	zb_u16(z, e->method);
	zb_u32(z, 0); /* time, date */
	if (how & ZB_TORCH) {
		zb_u32(z, 0);
		zb_u32(z, 0);
		zb_u32(z, 0);
	} else {
		zb_u32(z, e->crc);
		zb_u32(z, (uint32_t)clen);
		zb_u32(z, (uint32_t)len);
	}
	zb_u16(z, (unsigned)nlen);
	size_t pad = 0;
	if (how & ZB_TORCH) {
		size_t at = z->len + 2 + nlen + 4;
		pad = (64 - at % 64) % 64;
	}
	zb_u16(z, (how & ZB_TORCH) ? (unsigned)(4 + pad) : 0);
	zb_bytes(z, name, nlen);
	if (how & ZB_TORCH) {
		zb_bytes(z, "FB", 2);
		zb_u16(z, (unsigned)pad);
		for (size_t i = 0; i < pad; i++)
			zb_bytes(z, "Z", 1);
	}
	zb_bytes(z, payload, clen);
	if (how & ZB_TORCH) {
		zb_u32(z, 0x08074b50);
		zb_u32(z, e->crc);
		zb_u32(z, (uint32_t)clen);
		zb_u32(z, (uint32_t)len);
	}
	free(comp);
	return z->n++;
}

/* Writes the central directory and the end records. */
static inline void zb_finish(struct zb *z, int zip64)
{
	z->cd_offset = z->len;
	for (int i = 0; i < z->n; i++) {
		struct zb_entry *e = &z->e[i];
		size_t nlen = strlen(e->name);
		zb_u32(z, 0x02014b50);
		zb_u16(z, 0x031e);
		zb_u16(z, 20);
		zb_u16(z, e->flags);
		zb_u16(z, e->method);
		zb_u32(z, 0);
		zb_u32(z, e->crc);
		zb_u32(z, (uint32_t)e->csize);
		zb_u32(z, (uint32_t)e->usize);
		zb_u16(z, (unsigned)nlen);
		zb_u16(z, 0); /* extra */
		zb_u16(z, 0); /* comment */
		zb_u16(z, 0); /* disk */
		zb_u16(z, 0);
		zb_u32(z, 0);
		zb_u32(z, (uint32_t)e->offset);
		zb_bytes(z, e->name, nlen);
	}
	z->cd_size = z->len - z->cd_offset;
	if (zip64) {
		size_t rec = z->len;
		zb_u32(z, 0x06064b50);
		zb_u64(z, 44);
		zb_u16(z, 0x031e);
		zb_u16(z, 45);
		zb_u32(z, 0);
		zb_u32(z, 0);
		zb_u64(z, (uint64_t)z->n);
		zb_u64(z, (uint64_t)z->n);
		zb_u64(z, z->cd_size);
		zb_u64(z, z->cd_offset);
		zb_u32(z, 0x07064b50);
		zb_u32(z, 0);
		zb_u64(z, rec);
		zb_u32(z, 1);
	}
	z->eocd_offset = z->len;
	zb_u32(z, 0x06054b50);
	zb_u16(z, 0);
	zb_u16(z, 0);
	zb_u16(z, (unsigned)z->n);
	zb_u16(z, (unsigned)z->n);
	zb_u32(z, (uint32_t)z->cd_size);
	zb_u32(z, (uint32_t)z->cd_offset);
	zb_u16(z, 0);
}

static inline void zb_free(struct zb *z)
{
	free(z->buf);
	z->buf = NULL;
	z->len = z->cap = 0;
	z->n = 0;
}

/* Little-endian stores into a finished buffer (for corrupting it). */
static inline void zb_put16(struct zb *z, size_t at, unsigned v)
{
	z->buf[at] = (unsigned char)v;
	z->buf[at + 1] = (unsigned char)(v >> 8);
}

static inline void zb_put32(struct zb *z, size_t at, uint32_t v)
{
	zb_put16(z, at, v & 0xffff);
	zb_put16(z, at + 2, v >> 16);
}

/* Offset of entry i's central directory record in a finished zip. */
static inline size_t zb_cd_record(const struct zb *z, int i)
{
	size_t at = z->cd_offset;
	for (int k = 0; k < i; k++)
		at += 46 + strlen(z->e[k].name);
	return at;
}

#endif

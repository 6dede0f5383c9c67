/*
 * ir_binary.c - the binary (msgpack) form of the IR: ir_read_binary(),
 * ir_read_binary_mem() and ir_write_binary().  docs/ir.md "Binary form" is
 * the reference for the format; this file is its one implementation.
 *
 * Reading is incremental: bytes go from the FILE (or memory) into a buffer
 * a chunk at a time, and records are decoded one at a time, copied into the
 * graph's arena and their decoded objects freed before the next one.  A
 * record is held whole in memory while it is decoded (the buffer, then its
 * copy in the arena): a weight with inline data costs twice its size for
 * that moment, a weight by reference nothing.
 *
 * The decoder is our own (msgpack-c's unpacker nests only 32 levels deep, a
 * compiled-in stack): scan_object() first walks a record's bytes to check
 * that it is complete, well-formed and nested no deeper than MP_MAX_DEPTH;
 * only then does decode() turn it into msgpack_object trees (msgpack-c's
 * types, so that the code below reads them as before; strings and bins
 * point into the buffer).  Nothing is allocated from a count in a header
 * before the scan has seen the items it counts: a 5-byte array header
 * claiming 4 billion items costs nothing but an error, and a whole record
 * costs at most 24 bytes of objects per byte of record.
 *
 * Every problem in the input is one diag_error() line naming the record by
 * index (the header is record 0) and kind; nothing here asserts on input.
 * Structural problems (a wrong type, a missing key, a truncated stream) stop
 * reading; undefined and duplicate names are reported and reading goes on,
 * so that a stream with several such mistakes shows them all.  The reader
 * ends with ir_verify().
 *
 * Writing is deterministic (fixed key order, smallest encodings), so
 * write -> read -> write gives the same bytes.  The writer refuses what the
 * reader would refuse (inline data of the wrong length, nesting too deep,
 * a string over msgpack's 4 GiB limit) rather than write a stream that the
 * next stage cannot read.
 */
#include "ir.h"
#include "weight_bytes.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <msgpack.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK (64 * 1024)  /* bytes asked from the source at a time */
#define FILL_MAX ((size_t)64 << 20) /* most asked at once for a large bin */
#define IR_MAX_RANK 64     /* tensors and tensor types */
#define IR_MAX_BLOCK_NEST 256 /* blocks inside blocks: 4 msgpack levels each */
#define IR_MAX_TYPE_NEST 64   /* types inside types: 2 levels each */
/* msgpack levels of one record: the nesting above, and room for the
 * record's own map, values and types around them */
#define MP_MAX_DEPTH (4 * IR_MAX_BLOCK_NEST + 2 * IR_MAX_TYPE_NEST + 16)
#define ZONE_CHUNK ((size_t)64 << 10) /* decoded objects: bytes per chunk */
#define MP_MAX_LEN 0xffffffffu /* longest str, bin, array or map */
#define NAME_SHOWN 64      /* bytes of a name quoted in a message */

/* --- names in messages ---------------------------------------------------- */

/* Writes s (len bytes) into buf for a one-line message: control bytes,
 * quotes and non-ASCII as \xHH, cut at NAME_SHOWN bytes with "...". */
static const char *show(char *buf, size_t size, const char *s, size_t len)
{
	size_t o = 0;
	size_t i;

	for (i = 0; i < len && i < NAME_SHOWN && o + 8 < size; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\')
			o += (size_t)snprintf(buf + o, size - o, "\\x%02x", c);
		else
			buf[o++] = (char)c;
	}
	if (i < len && o + 4 < size) {
		memcpy(buf + o, "...", 3);
		o += 3;
	}
	buf[o] = 0;
	return buf;
}

#define SHOWN_SIZE (NAME_SHOWN * 4 + 8)

/* --- the scanner ------------------------------------------------------------ */

enum scan_result {
	SCAN_DONE,  /* one whole object of s->pos bytes */
	SCAN_MORE,  /* needs bytes past the end of the buffer */
	SCAN_BAD,   /* not msgpack (0xc1, or an ext of length 2^32-1) */
	SCAN_DEEP,  /* nested deeper than MP_MAX_DEPTH */
};

/* Resumable: the state is kept between calls while the buffer grows (the
 * buffer may move, the object's start stays at offset 0). */
struct scan {
	size_t pos;                   /* bytes of whole items scanned */
	uint64_t need;                /* SCAN_MORE: bytes the item being
					 scanned needs from offset 0 (0:
					 unknown, its header is cut) */
	int base;                     /* containers already open around it */
	int depth;                    /* open non-empty containers */
	uint64_t left[MP_MAX_DEPTH];  /* items still to come in each */
};

static uint64_t be(const unsigned char *p, int n)
{
	uint64_t v = 0;
	for (int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

/* Scans the msgpack object at p[0..avail) from where s left off. */
static enum scan_result scan_object(struct scan *s, const unsigned char *p,
				    size_t avail)
{
	for (;;) {
		size_t at = s->pos, hdr = 1;
		uint64_t body = 0, items = 0;
		int container = 0;

		if (at >= avail)
			return SCAN_MORE;
		unsigned c = p[at];
		if (c <= 0x7f || c >= 0xe0 || c == 0xc0 || c == 0xc2 ||
		    c == 0xc3) {
			/* fixint, nil, bool */
		} else if (c <= 0x8f) {
			items = 2 * (uint64_t)(c & 0x0f);
			container = 1;
		} else if (c <= 0x9f) {
			items = c & 0x0f;
			container = 1;
		} else if (c <= 0xbf) {
			body = c & 0x1f;
		} else {
			int lenbytes = 0, extra = 0;
			switch (c) {
			case 0xc4: case 0xd9: lenbytes = 1; break; /* bin8 str8 */
			case 0xc5: case 0xda: lenbytes = 2; break;
			case 0xc6: case 0xdb: lenbytes = 4; break;
			case 0xc7: lenbytes = 1; extra = 1; break; /* ext */
			case 0xc8: lenbytes = 2; extra = 1; break;
			case 0xc9: lenbytes = 4; extra = 1; break;
			case 0xca: hdr = 5; break;  /* float32 */
			case 0xcb: hdr = 9; break;  /* float64 */
			case 0xcc: case 0xd0: hdr = 2; break;
			case 0xcd: case 0xd1: hdr = 3; break;
			case 0xce: case 0xd2: hdr = 5; break;
			case 0xcf: case 0xd3: hdr = 9; break;
			case 0xd4: hdr = 3; break;  /* fixext 1..16 */
			case 0xd5: hdr = 4; break;
			case 0xd6: hdr = 6; break;
			case 0xd7: hdr = 10; break;
			case 0xd8: hdr = 18; break;
			case 0xdc: lenbytes = 2; container = 1; break;
			case 0xdd: lenbytes = 4; container = 1; break;
			case 0xde: lenbytes = 2; container = 2; break;
			case 0xdf: lenbytes = 4; container = 2; break;
			default: return SCAN_BAD; /* 0xc1 */
			}
			if (lenbytes) {
				if (avail - at < 1 + (size_t)lenbytes)
					return SCAN_MORE;
				uint64_t n = be(p + at + 1, lenbytes);
				hdr = 1 + (size_t)lenbytes;
				if (container)
					items = n * (uint64_t)container;
				else if (extra && n == MP_MAX_LEN)
					return SCAN_BAD; /* its size wraps */
				else
					body = n + (uint64_t)extra;
				container = container != 0;
			}
		}
		if (avail - at < hdr || avail - at - hdr < body) {
			s->need = (uint64_t)at + hdr + body;
			return SCAN_MORE;
		}
		if (container && s->base + s->depth >= MP_MAX_DEPTH)
			return SCAN_DEEP;
		s->pos = at + hdr + (size_t)body;
		if (container && items) {
			s->left[s->depth++] = items;
			continue;
		}
		/* an item is complete: close the containers it completes */
		while (s->depth > 0 && --s->left[s->depth - 1] == 0)
			s->depth--;
		if (s->depth == 0)
			return SCAN_DONE;
	}
}

/* 1 when b holds exactly one msgpack object that a reader can read at
 * nesting `base`. */
static int one_object(const struct ir_bytes *b, int base)
{
	struct scan s;

	if (!b->data || !b->len)
		return 0;
	s.pos = 0;
	s.need = 0;
	s.depth = 0;
	s.base = base;
	return scan_object(&s, (const unsigned char *)b->data, b->len) ==
		       SCAN_DONE && s.pos == b->len;
}

/* --- the decoder -------------------------------------------------------------- */

/* Chunks the decoded objects of one record come from, all freed at once. */
struct zchunk {
	struct zchunk *next;
	size_t used, cap;
	max_align_t data[];
};

static void *zalloc(struct zchunk **z, size_t size)
{
	struct zchunk *c = *z;

	size = (size + sizeof(max_align_t) - 1) & ~(sizeof(max_align_t) - 1);
	if (!c || c->cap - c->used < size) {
		size_t cap = size > ZONE_CHUNK ? size : ZONE_CHUNK;
		c = xmalloc(sizeof(*c) + cap);
		c->next = *z;
		c->used = 0;
		c->cap = cap;
		*z = c;
	}
	void *p = (char *)c->data + c->used;
	c->used += size;
	return p;
}

static void zfree(struct zchunk **z)
{
	while (*z) {
		struct zchunk *c = *z;
		*z = c->next;
		free(c);
	}
}

/* Decodes the object at p + *pos into o, as msgpack-c's unpacker would:
 * the same types, strings, bins and exts pointing into p.  Only for bytes
 * scan_object() has accepted: they are complete and nested no deeper than
 * MP_MAX_DEPTH, and every count is backed by items, so no check is made
 * here. */
static void decode(struct zchunk **z, const unsigned char *p, size_t *pos,
		   msgpack_object *o)
{
	size_t at = *pos;
	unsigned c = p[at++];
	uint64_t n = 0;
	int64_t i;

	memset(o, 0, sizeof(*o));
	if (c <= 0x7f) {
		o->type = MSGPACK_OBJECT_POSITIVE_INTEGER;
		o->via.u64 = c;
	} else if (c >= 0xe0) {
		o->type = MSGPACK_OBJECT_NEGATIVE_INTEGER;
		o->via.i64 = (int8_t)c;
	} else if (c <= 0x8f) {
		n = c & 0x0f;
		goto map;
	} else if (c <= 0x9f) {
		n = c & 0x0f;
		goto array;
	} else if (c <= 0xbf) {
		n = c & 0x1f;
		goto str;
	} else {
		switch (c) {
		case 0xc0:
			o->type = MSGPACK_OBJECT_NIL;
			break;
		case 0xc2: case 0xc3:
			o->type = MSGPACK_OBJECT_BOOLEAN;
			o->via.boolean = c == 0xc3;
			break;
		case 0xc4: case 0xc5: case 0xc6: {
			int lb = 1 << (c - 0xc4);
			n = be(p + at, lb);
			at += (size_t)lb;
			o->type = MSGPACK_OBJECT_BIN;
			o->via.bin.size = (uint32_t)n;
			o->via.bin.ptr = (const char *)p + at;
			at += (size_t)n;
			break;
		}
		case 0xc7: case 0xc8: case 0xc9: {
			int lb = 1 << (c - 0xc7);
			n = be(p + at, lb);
			at += (size_t)lb;
			goto ext;
		}
		case 0xca: {
			uint32_t u = (uint32_t)be(p + at, 4);
			float f;
			memcpy(&f, &u, sizeof(f));
			o->type = MSGPACK_OBJECT_FLOAT32;
			o->via.f64 = f;
			at += 4;
			break;
		}
		case 0xcb: {
			uint64_t u = be(p + at, 8);
			double f;
			memcpy(&f, &u, sizeof(f));
			o->type = MSGPACK_OBJECT_FLOAT64;
			o->via.f64 = f;
			at += 8;
			break;
		}
		case 0xcc: case 0xcd: case 0xce: case 0xcf: {
			int lb = 1 << (c - 0xcc);
			o->type = MSGPACK_OBJECT_POSITIVE_INTEGER;
			o->via.u64 = be(p + at, lb);
			at += (size_t)lb;
			break;
		}
		case 0xd0: case 0xd1: case 0xd2: case 0xd3: {
			int lb = 1 << (c - 0xd0);
			uint64_t u = be(p + at, lb);
			at += (size_t)lb;
			if (lb < 8 && u >> (8 * lb - 1)) /* sign-extend */
				u |= ~(uint64_t)0 << (8 * lb);
			i = (int64_t)u;
			if (i >= 0) {
				o->type = MSGPACK_OBJECT_POSITIVE_INTEGER;
				o->via.u64 = (uint64_t)i;
			} else {
				o->type = MSGPACK_OBJECT_NEGATIVE_INTEGER;
				o->via.i64 = i;
			}
			break;
		}
		case 0xd4: case 0xd5: case 0xd6: case 0xd7: case 0xd8:
			n = (uint64_t)1 << (c - 0xd4);
			goto ext;
		case 0xd9: case 0xda: case 0xdb: {
			int lb = 1 << (c - 0xd9);
			n = be(p + at, lb);
			at += (size_t)lb;
			goto str;
		}
		case 0xdc: case 0xdd:
			n = be(p + at, c == 0xdc ? 2 : 4);
			at += c == 0xdc ? 2 : 4;
			goto array;
		case 0xde: case 0xdf:
			n = be(p + at, c == 0xde ? 2 : 4);
			at += c == 0xde ? 2 : 4;
			goto map;
		default: /* 0xc1: refused by the scan */
			BUG("decode() on bytes the scan refused");
		}
	}
	*pos = at;
	return;
str:
	o->type = MSGPACK_OBJECT_STR;
	o->via.str.size = (uint32_t)n;
	o->via.str.ptr = (const char *)p + at;
	*pos = at + (size_t)n;
	return;
ext:
	o->type = MSGPACK_OBJECT_EXT;
	o->via.ext.type = (int8_t)p[at];
	o->via.ext.size = (uint32_t)n;
	o->via.ext.ptr = (const char *)p + at + 1;
	*pos = at + 1 + (size_t)n;
	return;
array:
	o->type = MSGPACK_OBJECT_ARRAY;
	o->via.array.size = (uint32_t)n;
	*pos = at;
	if (n) {
		msgpack_object *a = zalloc(z, sizeof(*a) * (size_t)n);
		o->via.array.ptr = a;
		for (uint64_t k = 0; k < n; k++)
			decode(z, p, pos, &a[k]);
	}
	return;
map:
	o->type = MSGPACK_OBJECT_MAP;
	o->via.map.size = (uint32_t)n;
	*pos = at;
	if (n) {
		msgpack_object_kv *kv = zalloc(z, sizeof(*kv) * (size_t)n);
		o->via.map.ptr = kv;
		for (uint64_t k = 0; k < n; k++) {
			decode(z, p, pos, &kv[k].key);
			decode(z, p, pos, &kv[k].val);
		}
	}
}

/* --- reading: the source ------------------------------------------------------ */

/* the known records seen so far: they come in this order */
enum phase {
	PHASE_HEAD, PHASE_GRAPH, PHASE_WEIGHT, PHASE_INPUT, PHASE_NODE,
	PHASE_OUTPUT,
};

struct reader {
	struct ir_graph *g;
	struct diag *d;
	FILE *fp;                    /* NULL when reading memory */
	const unsigned char *mem;
	size_t memlen, mempos;
	unsigned char *buf;          /* bytes read and not yet decoded: */
	size_t cap, off, used;       /* buf[off..used) */
	struct zchunk *zone;         /* the current record's objects */
	msgpack_object obj;          /* the current record */
	struct scan sc;
	const char *rec_bytes;       /* the current record's bytes */
	size_t rec_len;
	uint32_t rec;                /* index of the current record */
	char where[512];             /* "record 7 (node aten::add): block 0" */
	size_t wlen;
	char *scratch;               /* a NUL-terminated name, for lookups */
	size_t scratch_cap;
	char shown[4][SHOWN_SIZE];   /* names quoted in one message */
	int nshown;
	int nerrors;                 /* problems reported */
	enum phase phase;            /* the last known record */
	uint32_t counts[IR_RAW_OUTPUTS + 1]; /* records per section */
};

static const char *rshow(struct reader *r, const char *s, size_t len)
{
	char *buf = r->shown[r->nshown++ & 3];
	return show(buf, SHOWN_SIZE, s, len);
}

static const char *rshowz(struct reader *r, const char *s)
{
	return rshow(r, s, strlen(s));
}

/* Reports a problem in the current record.  Returns -1. */
__attribute__((format(printf, 2, 3)))
static int rerr(struct reader *r, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	diag_error(r->d, "%s: %s", r->where, msg);
	r->nerrors++;
	return -1;
}

__attribute__((format(printf, 2, 3)))
static void set_where(struct reader *r, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(r->where, sizeof(r->where), fmt, ap);
	va_end(ap);
	r->wlen = n < 0 ? 0 : (size_t)n < sizeof(r->where) ?
		(size_t)n : sizeof(r->where) - 1;
}

/* Appends ": <what>" to the place named in messages; returns what
 * pop_where() needs to undo it. */
__attribute__((format(printf, 2, 3)))
static size_t push_where(struct reader *r, const char *fmt, ...)
{
	size_t old = r->wlen, room = sizeof(r->where) - r->wlen;
	va_list ap;
	int n;

	if (room > 3) {
		memcpy(r->where + r->wlen, ": ", 3);
		r->wlen += 2;
		room -= 2;
		va_start(ap, fmt);
		n = vsnprintf(r->where + r->wlen, room, fmt, ap);
		va_end(ap);
		if (n > 0)
			r->wlen += (size_t)n < room ? (size_t)n : room - 1;
	}
	return old;
}

static void pop_where(struct reader *r, size_t old)
{
	r->wlen = old;
	r->where[old] = 0;
}

/* Makes room for `want` more bytes after buf[used]: the undecoded bytes
 * moved to the front, the buffer grown to exactly what a large item needs
 * (one buffer of its size, not a doubling chain of copies).  Returns 0, or
 * -1 when out of memory. */
static int reserve(struct reader *r, size_t want)
{
	if (r->off) {
		memmove(r->buf, r->buf + r->off, r->used - r->off);
		r->used -= r->off;
		r->off = 0;
	}
	if (r->cap - r->used >= want)
		return 0;
	size_t cap = r->used + want;
	if (want <= CHUNK && cap < 2 * r->cap)
		cap = 2 * r->cap;
	unsigned char *b = realloc(r->buf, cap);
	if (!b)
		return -1;
	r->buf = b;
	r->cap = cap;
	return 0;
}

/* Reads more bytes into the buffer: a chunk, or `want` bytes at once when
 * more are known to be needed.  Returns how many (0 at the end of the
 * input), or -1 after reporting. */
static long fill(struct reader *r, size_t want)
{
	size_t cap, n;

	if (want < CHUNK)
		want = CHUNK;
	if (reserve(r, want)) {
		diag_error(r->d, "out of memory reading record %u", r->rec);
		r->nerrors++;
		return -1;
	}
	cap = r->cap - r->used;
	if (want > CHUNK && cap > want)
		cap = want; /* exactly the rest of the item */
	if (r->fp) {
		n = fread(r->buf + r->used, 1, cap, r->fp);
		if (n == 0 && ferror(r->fp)) {
			diag_error(r->d, "read error: %s", strerror(errno));
			r->nerrors++;
			return -1;
		}
	} else {
		n = r->memlen - r->mempos;
		if (n > cap)
			n = cap;
		if (n)
			memcpy(r->buf + r->used, r->mem + r->mempos, n);
		r->mempos += n;
	}
	r->used += n;
	return (long)(n > LONG_MAX ? LONG_MAX : n);
}

/* The next msgpack object of the stream.  Returns 1 with *out set (valid
 * until the next call), 0 at a clean end of input (no byte of another
 * object), -1 after reporting. */
static int next_object(struct reader *r, const msgpack_object **out)
{
	const unsigned char *p;
	size_t avail, pos = 0;

	zfree(&r->zone);
	/* after a large record, give its buffer back */
	if (r->cap > 4 * CHUNK && r->used - r->off <= CHUNK) {
		reserve(r, 0);
		unsigned char *b = realloc(r->buf, 2 * CHUNK);
		if (b) {
			r->buf = b;
			r->cap = 2 * CHUNK;
		}
	}
	r->sc.pos = 0; /* not the whole of left[]: it is large */
	r->sc.need = 0;
	r->sc.depth = 0;
	r->sc.base = 0;
	for (;;) {
		p = r->buf ? r->buf + r->off : (const unsigned char *)"";
		avail = r->used - r->off;
		enum scan_result s = scan_object(&r->sc, p, avail);
		if (s == SCAN_DONE)
			break;
		if (s == SCAN_BAD)
			return rerr(r, "not msgpack: byte 0x%02x at offset %zu "
				    "of the record", p[r->sc.pos], r->sc.pos);
		if (s == SCAN_DEEP)
			return rerr(r, "nested deeper than %d msgpack levels",
				    MP_MAX_DEPTH);
		/* the rest of a large item at once, but never more than
		 * FILL_MAX on the word of a header alone (a truncated or
		 * hostile stream must not make us allocate gigabytes) */
		uint64_t more = r->sc.need > avail ? r->sc.need - avail : 0;
		long n = fill(r, more > FILL_MAX ? FILL_MAX : (size_t)more);
		if (n < 0)
			return -1;
		if (n == 0) {
			if (avail == 0)
				return 0;
			diag_error(r->d, "truncated stream: record %u ends "
				   "after %zu bytes, inside a msgpack object",
				   r->rec, avail);
			r->nerrors++;
			return -1;
		}
	}
	r->rec_bytes = (const char *)p;
	r->rec_len = r->sc.pos;
	decode(&r->zone, p, &pos, &r->obj);
	if (pos != r->sc.pos)
		BUG("decoded %zu bytes of a %zu-byte record", pos, r->sc.pos);
	r->off += pos;
	*out = &r->obj;
	return 1;
}

/* --- reading: msgpack objects --------------------------------------------------- */

static const char *mp_type(const msgpack_object *o)
{
	switch (o->type) {
	case MSGPACK_OBJECT_NIL: return "nil";
	case MSGPACK_OBJECT_BOOLEAN: return "a bool";
	case MSGPACK_OBJECT_POSITIVE_INTEGER:
	case MSGPACK_OBJECT_NEGATIVE_INTEGER: return "an int";
	case MSGPACK_OBJECT_FLOAT32:
	case MSGPACK_OBJECT_FLOAT64: return "a float";
	case MSGPACK_OBJECT_STR: return "a string";
	case MSGPACK_OBJECT_ARRAY: return "an array";
	case MSGPACK_OBJECT_MAP: return "a map";
	case MSGPACK_OBJECT_BIN: return "bin";
	case MSGPACK_OBJECT_EXT: return "an ext";
	}
	return "unknown";
}

static int is_str(const msgpack_object *o, const char *s)
{
	size_t n = strlen(s);
	return o->type == MSGPACK_OBJECT_STR && o->via.str.size == n &&
	       !memcmp(o->via.str.ptr, s, n);
}

/* A copy of len bytes into the arena, NUL-terminated. */
static char *copy_bytes(struct reader *r, const char *p, size_t len)
{
	char *s = ir_alloc(r->g, len + 1);
	if (len)
		memcpy(s, p, len);
	return s;
}

static int wrong_type(struct reader *r, const char *what,
		      const msgpack_object *o, const char *expected)
{
	return rerr(r, "%s is %s, expected %s", what, mp_type(o), expected);
}

static int missing(struct reader *r, const char *key)
{
	return rerr(r, "missing key \"%s\"", key);
}

/* Copies a str into the arena.  nonempty: the empty string is an error.
 * Strings with NUL bytes are refused: the IR keeps them as C strings. */
static int want_str(struct reader *r, const msgpack_object *o,
		    const char *what, int nonempty, const char **out)
{
	if (o->type != MSGPACK_OBJECT_STR)
		return wrong_type(r, what, o, "a string");
	if (nonempty && !o->via.str.size)
		return rerr(r, "%s is empty", what);
	if (o->via.str.size && memchr(o->via.str.ptr, 0, o->via.str.size))
		return rerr(r, "%s holds a NUL byte", what);
	*out = copy_bytes(r, o->via.str.ptr, o->via.str.size);
	return 0;
}

/* As want_str, into r->scratch (valid until the next call): names that
 * are looked up, not kept. */
static const char *scratch_name(struct reader *r, const msgpack_object *o,
				const char *what)
{
	size_t n;

	if (o->type != MSGPACK_OBJECT_STR) {
		wrong_type(r, what, o, "a string");
		return NULL;
	}
	n = o->via.str.size;
	if (!n) {
		rerr(r, "%s is empty", what);
		return NULL;
	}
	if (memchr(o->via.str.ptr, 0, n)) {
		rerr(r, "%s holds a NUL byte", what);
		return NULL;
	}
	if (n + 1 > r->scratch_cap) {
		r->scratch_cap = n + 1 > 2 * r->scratch_cap ? n + 1 :
			2 * r->scratch_cap;
		r->scratch = xrealloc(r->scratch, r->scratch_cap);
	}
	memcpy(r->scratch, o->via.str.ptr, n);
	r->scratch[n] = 0;
	return r->scratch;
}

/* str or bin, bytes kept as they are. */
static int want_bytes(struct reader *r, const msgpack_object *o,
		      const char *what, struct ir_bytes *out)
{
	if (o->type == MSGPACK_OBJECT_BIN) {
		out->len = o->via.bin.size;
		out->data = copy_bytes(r, o->via.bin.ptr, out->len);
	} else if (o->type == MSGPACK_OBJECT_STR) {
		out->len = o->via.str.size;
		out->data = copy_bytes(r, o->via.str.ptr, out->len);
	} else {
		return wrong_type(r, what, o, "bin");
	}
	return 0;
}

static int want_i64(struct reader *r, const msgpack_object *o,
		    const char *what, int64_t *out)
{
	if (o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER) {
		*out = o->via.i64;
	} else if (o->type == MSGPACK_OBJECT_POSITIVE_INTEGER) {
		if (o->via.u64 > INT64_MAX)
			return rerr(r, "%s is out of range (%" PRIu64 ")",
				    what, o->via.u64);
		*out = (int64_t)o->via.u64;
	} else {
		return wrong_type(r, what, o, "an int");
	}
	return 0;
}

/* A non-negative int no larger than max. */
static int want_u64(struct reader *r, const msgpack_object *o,
		    const char *what, uint64_t max, uint64_t *out)
{
	if (o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER)
		return rerr(r, "%s is negative (%" PRId64 ")", what,
			    o->via.i64);
	if (o->type != MSGPACK_OBJECT_POSITIVE_INTEGER)
		return wrong_type(r, what, o, "an int");
	if (o->via.u64 > max)
		return rerr(r, "%s is out of range (%" PRIu64 ")", what,
			    o->via.u64);
	*out = o->via.u64;
	return 0;
}

static int want_array(struct reader *r, const msgpack_object *o,
		      const char *what, const msgpack_object_array **out)
{
	if (o->type != MSGPACK_OBJECT_ARRAY)
		return wrong_type(r, what, o, "an array");
	*out = &o->via.array;
	return 0;
}

/* Byte strings sorted to find duplicates in n log n. */
struct key {
	const char *p;
	size_t len;
};

static int key_cmp(const void *a, const void *b)
{
	const struct key *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = n ? memcmp(x->p, y->p, n) : 0;
	return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* The first key given twice, or NULL.  Sorts keys. */
static const struct key *find_duplicate(struct key *keys, size_t n)
{
	if (n < 2)
		return NULL;
	qsort(keys, n, sizeof(*keys), key_cmp);
	for (size_t i = 1; i < n; i++)
		if (!key_cmp(&keys[i - 1], &keys[i]))
			return &keys[i];
	return NULL;
}

/* Splits the map o (`what` in messages) by key: vals[i] is the value of
 * names[i] (NULL-terminated list) or NULL.  Keys must be strings, each
 * given once.  Unknown keys go to *extra as a msgpack map when extra is
 * not NULL, and are dropped otherwise. */
static int get_keys(struct reader *r, const msgpack_object *o,
		    const char *what, const char *const *names,
		    const msgpack_object **vals, struct ir_bytes *extra)
{
	const msgpack_object_map *m;
	struct key *unknown = NULL;
	uint32_t nunknown = 0, nnames = 0;
	int ret = 0;

	if (o->type != MSGPACK_OBJECT_MAP)
		return wrong_type(r, what, o, "a map");
	m = &o->via.map;
	while (names[nnames])
		vals[nnames++] = NULL;
	for (uint32_t i = 0; i < m->size; i++) {
		const msgpack_object *k = &m->ptr[i].key;
		uint32_t j;
		if (k->type != MSGPACK_OBJECT_STR) {
			ret = rerr(r, "%s has a key that is %s, not a string",
				   what, mp_type(k));
			goto out;
		}
		for (j = 0; j < nnames && !is_str(k, names[j]); j++)
			;
		if (j < nnames) {
			if (vals[j]) {
				ret = rerr(r, "%s has key \"%s\" twice", what,
					   names[j]);
				goto out;
			}
			vals[j] = &m->ptr[i].val;
		} else if (extra) {
			if (!unknown)
				unknown = xmalloc(sizeof(*unknown) * m->size);
			unknown[nunknown].p = k->via.str.ptr;
			unknown[nunknown++].len = k->via.str.size;
		}
	}
	if (!nunknown)
		goto out;
	const struct key *dup = find_duplicate(unknown, nunknown);
	if (dup) {
		ret = rerr(r, "%s has key \"%s\" twice", what,
			   rshow(r, dup->p, dup->len));
		goto out;
	}
	/* the unknown keys, in their order, re-packed as one map */
	msgpack_sbuffer sb;
	msgpack_packer pk;
	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
	msgpack_pack_map(&pk, nunknown);
	for (uint32_t i = 0; i < m->size; i++) {
		const msgpack_object *k = &m->ptr[i].key;
		uint32_t j;
		for (j = 0; j < nnames && !is_str(k, names[j]); j++)
			;
		if (j < nnames)
			continue;
		msgpack_pack_object(&pk, *k);
		msgpack_pack_object(&pk, m->ptr[i].val);
	}
	extra->len = sb.size;
	extra->data = copy_bytes(r, sb.data, sb.size);
	msgpack_sbuffer_destroy(&sb);
out:
	free(unknown);
	return ret;
}

/* --- reading: types, tensors, values --------------------------------------------- */

static const char *const type_kinds[IR_TYPE_COUNT] = {
	[IR_TYPE_UNKNOWN] = "any",
	[IR_TYPE_TENSOR] = "tensor",
	[IR_TYPE_INT] = "int",
	[IR_TYPE_FLOAT] = "float",
	[IR_TYPE_BOOL] = "bool",
	[IR_TYPE_STR] = "str",
	[IR_TYPE_NONE] = "none",
	[IR_TYPE_DEVICE] = "device",
	[IR_TYPE_LIST] = "list",
	[IR_TYPE_TUPLE] = "tuple",
	[IR_TYPE_OPTIONAL] = "optional",
	[IR_TYPE_DICT] = "dict",
	[IR_TYPE_CLASS] = "class",
};

/* How many element types a kind takes: -1 any number, 0 none. */
static int type_nelems(enum ir_type_kind k)
{
	switch (k) {
	case IR_TYPE_LIST: case IR_TYPE_OPTIONAL: return 1;
	case IR_TYPE_DICT: return 2;
	case IR_TYPE_TUPLE: return -1;
	default: return 0;
	}
}

static int want_dtype(struct reader *r, const msgpack_object *o,
		      const char *what, int tensor, enum ir_dtype *out)
{
	uint64_t v;

	if (want_u64(r, o, what, UINT64_MAX, &v))
		return -1;
	if (v >= IR_DTYPE_COUNT || (tensor && v == IR_DTYPE_UNDEFINED))
		return rerr(r, "%s %" PRIu64 " is not a known element type",
			    what, v);
	*out = (enum ir_dtype)v;
	return 0;
}

static struct ir_type *read_type(struct reader *r, const msgpack_object *o)
{
	static const char *const keys[] = { "k", "dtype", "shape", "elems",
					    "name", NULL };
	const msgpack_object *v[5];
	const msgpack_object_array *a = NULL;
	struct ir_type *t;
	int kind, want;

	if (get_keys(r, o, "type", keys, v, NULL))
		return NULL;
	if (!v[0])
		return missing(r, "k"), NULL;
	for (kind = 0; kind < IR_TYPE_COUNT && !is_str(v[0], type_kinds[kind]);
	     kind++)
		;
	if (kind == IR_TYPE_COUNT) {
		if (v[0]->type != MSGPACK_OBJECT_STR)
			wrong_type(r, "type \"k\"", v[0], "a string");
		else
			rerr(r, "unknown type kind \"%s\"",
			     rshow(r, v[0]->via.str.ptr, v[0]->via.str.size));
		return NULL;
	}
	t = ir_type_new(r->g, (enum ir_type_kind)kind);
	if (kind == IR_TYPE_TENSOR) {
		if (!v[1])
			return missing(r, "dtype"), NULL;
		if (want_dtype(r, v[1], "\"dtype\"", 0, &t->dtype))
			return NULL;
		if (!v[2])
			return missing(r, "shape"), NULL;
		if (v[2]->type == MSGPACK_OBJECT_NIL)
			return t; /* rank unknown */
		if (want_array(r, v[2], "\"shape\"", &a))
			return NULL;
		if (a->size > IR_MAX_RANK)
			return rerr(r, "rank %u is over %d", a->size,
				    IR_MAX_RANK), NULL;
		t->rank = (int)a->size;
		if (a->size)
			t->dims = ir_alloc(r->g, sizeof(*t->dims) * a->size);
		for (uint32_t i = 0; i < a->size; i++) {
			const msgpack_object *d = &a->ptr[i];
			struct ir_dim *dim = &t->dims[i];
			if (d->type == MSGPACK_OBJECT_NIL) {
				dim->kind = IR_DIM_UNKNOWN;
			} else if (d->type == MSGPACK_OBJECT_STR) {
				dim->kind = IR_DIM_SYMBOL;
				if (want_str(r, d, "dim symbol", 1,
					     &dim->symbol))
					return NULL;
			} else if (d->type == MSGPACK_OBJECT_POSITIVE_INTEGER ||
				   d->type == MSGPACK_OBJECT_NEGATIVE_INTEGER) {
				uint64_t x = 0;
				dim->kind = IR_DIM_FIXED;
				if (want_u64(r, d, "dim", INT64_MAX, &x))
					return NULL;
				dim->value = (int64_t)x;
			} else {
				wrong_type(r, "dim", d,
					   "an int, a string or nil");
				return NULL;
			}
		}
		return t;
	}
	if (kind == IR_TYPE_CLASS) {
		if (!v[4])
			return missing(r, "name"), NULL;
		if (want_str(r, v[4], "class \"name\"", 0, &t->name))
			return NULL;
		return t;
	}
	want = type_nelems((enum ir_type_kind)kind);
	if (!want)
		return t;
	if (!v[3])
		return missing(r, "elems"), NULL;
	if (want_array(r, v[3], "\"elems\"", &a))
		return NULL;
	if (want > 0 && a->size != (uint32_t)want)
		return rerr(r, "a %s type has %d element type%s, not %u",
			    type_kinds[kind], want, want > 1 ? "s" : "",
			    a->size), NULL;
	t->nelems = a->size;
	if (a->size)
		t->elems = ir_alloc(r->g, sizeof(*t->elems) * a->size);
	for (uint32_t i = 0; i < a->size; i++)
		if (!(t->elems[i] = read_type(r, &a->ptr[i])))
			return NULL;
	return t;
}

/* numel * size, or UINT64_MAX when it does not fit. */
static uint64_t mul_sat(uint64_t a, uint64_t b)
{
	if (a && b > UINT64_MAX / a)
		return UINT64_MAX;
	return a * b;
}

/* Element count of dims, UINT64_MAX on overflow. */
static uint64_t dims_numel(const int64_t *dims, int rank)
{
	uint64_t n = 1;
	for (int i = 0; i < rank; i++)
		if (dims[i] == 0)
			return 0;
	for (int i = 0; i < rank; i++)
		n = mul_sat(n, (uint64_t)dims[i]);
	return n;
}

/* Bytes a strided tensor spans from element 0, UINT64_MAX on overflow. */
static uint64_t span_bytes(const int64_t *dims, const int64_t *strides,
			   int rank, size_t esize)
{
	uint64_t last = 0;

	if (dims_numel(dims, rank) == 0)
		return 0;
	for (int i = 0; i < rank; i++) {
		uint64_t step = mul_sat((uint64_t)dims[i] - 1,
					(uint64_t)strides[i]);
		if (step == UINT64_MAX || last > UINT64_MAX - 1 - step)
			return UINT64_MAX;
		last += step;
	}
	return mul_sat(last + 1, esize);
}

static int read_ints(struct reader *r, const msgpack_object *o,
		     const char *what, int64_t nonneg, int64_t **out,
		     uint32_t *n)
{
	const msgpack_object_array *a = NULL;

	if (want_array(r, o, what, &a))
		return -1;
	*n = a->size;
	/* never NULL: an empty "strides" stays present */
	*out = ir_alloc(r->g, sizeof(**out) * (a->size + 1));
	for (uint32_t i = 0; i < a->size; i++) {
		if (nonneg) {
			uint64_t x = 0;
			if (want_u64(r, &a->ptr[i], what, INT64_MAX, &x))
				return -1;
			(*out)[i] = (int64_t)x;
		} else if (want_i64(r, &a->ptr[i], what, &(*out)[i])) {
			return -1;
		}
	}
	return 0;
}

static struct ir_tensor *read_tensor(struct reader *r,
				     const msgpack_object *o)
{
	/* "sref": a scaled view, a "ref" with a required "scale"; its own
	 * key so that a reader that does not know scaled views refuses the
	 * tensor (none of data/strings/ref) instead of reading it unscaled */
	static const char *const keys[] = { "dtype", "dims", "data",
					    "strings", "ref", "doc", "sref",
					    NULL };
	static const char *const rkeys[] = { "file", "offset", "length",
					     "strides", "scale", NULL };
	const msgpack_object *v[7], *rv[5];
	const char *rname;
	struct ir_tensor *t;
	enum ir_dtype dt = IR_DTYPE_UNDEFINED;
	int64_t *dims;
	uint32_t rank;
	uint64_t numel, want;
	size_t esize;

	if (get_keys(r, o, "tensor", keys, v, NULL))
		return NULL;
	if (!v[0])
		return missing(r, "dtype"), NULL;
	if (want_dtype(r, v[0], "tensor \"dtype\"", 1, &dt))
		return NULL;
	if (!v[1])
		return missing(r, "dims"), NULL;
	if (read_ints(r, v[1], "tensor \"dims\"", 1, &dims, &rank))
		return NULL;
	if (rank > IR_MAX_RANK)
		return rerr(r, "tensor rank %u is over %d", rank,
			    IR_MAX_RANK), NULL;
	t = ir_alloc(r->g, sizeof(*t));
	t->dtype = dt;
	t->rank = (int)rank;
	t->dims = dims;
	numel = dims_numel(dims, (int)rank);
	esize = ir_dtype_size(dt);
	if (numel == UINT64_MAX)
		return rerr(r, "tensor has too many elements"), NULL;
	if (!!v[2] + !!v[3] + !!v[4] + !!v[6] != 1)
		return rerr(r, "tensor needs exactly one of \"data\", "
			    "\"strings\", \"ref\" and \"sref\""), NULL;
	if (v[5] && want_str(r, v[5], "tensor \"doc\"", 0, &t->doc))
		return NULL;
	if (v[2]) {
		if (dt == IR_DTYPE_STRING)
			return rerr(r, "a string tensor has \"strings\", "
				    "not \"data\""), NULL;
		if (v[2]->type != MSGPACK_OBJECT_BIN)
			return wrong_type(r, "tensor \"data\"", v[2], "bin"),
				NULL;
		want = mul_sat(numel, esize);
		if (v[2]->via.bin.size != want)
			return rerr(r, "inline data is %u bytes, expected "
				    "%" PRIu64 " (%" PRIu64 " elements of %zu)",
				    v[2]->via.bin.size, want, numel, esize),
				NULL;
		t->data_kind = IR_DATA_INLINE;
		t->bytes.len = v[2]->via.bin.size;
		t->bytes.data = copy_bytes(r, v[2]->via.bin.ptr, t->bytes.len);
		return t;
	}
	if (v[3]) {
		const msgpack_object_array *a = NULL;
		if (dt != IR_DTYPE_STRING)
			return rerr(r, "only string tensors have \"strings\""),
				NULL;
		if (want_array(r, v[3], "tensor \"strings\"", &a))
			return NULL;
		if (a->size != numel)
			return rerr(r, "tensor has %u strings, expected "
				    "%" PRIu64, a->size, numel), NULL;
		t->data_kind = IR_DATA_INLINE;
		t->strings = ir_alloc(r->g, sizeof(*t->strings) * (a->size + 1));
		for (uint32_t i = 0; i < a->size; i++)
			if (want_bytes(r, &a->ptr[i], "tensor string",
				       &t->strings[i]))
				return NULL;
		return t;
	}
	/* a reference */
	if (dt == IR_DTYPE_STRING)
		return rerr(r, "a string tensor cannot be a reference"), NULL;
	t->data_kind = IR_DATA_REF;
	rname = v[6] ? "tensor \"sref\"" : "tensor \"ref\"";
	if (get_keys(r, v[6] ? v[6] : v[4], rname, rkeys, rv, NULL))
		return NULL;
	if (v[6] && !rv[4])
		return rerr(r, "an \"sref\" (a scaled view) needs \"scale\""),
			NULL;
	if (v[4] && rv[4])
		return rerr(r, "a \"ref\" has no \"scale\" (a scaled view is "
			    "an \"sref\")"), NULL;
	if (!rv[0])
		return missing(r, "file"), NULL;
	if (want_str(r, rv[0], "ref \"file\"", 1, &t->ref.file))
		return NULL;
	if (!rv[1])
		return missing(r, "offset"), NULL;
	if (want_u64(r, rv[1], "ref \"offset\"", UINT64_MAX, &t->ref.offset))
		return NULL;
	if (!rv[2])
		return missing(r, "length"), NULL;
	if (want_u64(r, rv[2], "ref \"length\"",
		     UINT64_MAX - t->ref.offset, &t->ref.length))
		return NULL;
	if (rv[3]) {
		uint32_t n;
		if (read_ints(r, rv[3], "ref \"strides\"", 1, &t->ref.strides,
			      &n))
			return NULL;
		if (n != rank)
			return rerr(r, "ref has %u strides for rank %u", n,
				    rank), NULL;
		want = span_bytes(dims, t->ref.strides, (int)rank, esize);
	} else {
		want = mul_sat(numel, esize);
	}
	if (want == UINT64_MAX)
		return rerr(r, "tensor has too many elements"), NULL;
	if (t->ref.length < want)
		return rerr(r, "ref \"length\" %" PRIu64 " is less than the "
			    "%" PRIu64 " bytes the tensor spans",
			    t->ref.length, want), NULL;
	if (rv[4]) {
		const char *bad;
		if (rv[4]->type != MSGPACK_OBJECT_BIN)
			return wrong_type(r, "ref \"scale\"", rv[4], "bin"),
				NULL;
		static double set; /* until checked: dims[0] factors */
		t->ref.scale = &set;
		if ((bad = weight_scale_problem(t, r->g->level)))
			return rerr(r, "%s", bad), NULL;
		if ((uint64_t)rv[4]->via.bin.size != mul_sat((uint64_t)dims[0],
							     sizeof(double)))
			return rerr(r, "ref \"scale\" is %u bytes, expected "
				    "%" PRId64 " float64 factors",
				    rv[4]->via.bin.size, dims[0]), NULL;
		t->ref.scale = ir_alloc(r->g, rv[4]->via.bin.size + 1);
		memcpy(t->ref.scale, rv[4]->via.bin.ptr, rv[4]->via.bin.size);
	}
	return t;
}

/* A value that cannot be registered because its name is taken: kept out
 * of the name table so that reading can go on. */
static struct ir_value *detached_value(struct reader *r, const char *name,
				       struct ir_type *type)
{
	struct ir_value *v = ir_alloc(r->g, sizeof(*v));
	v->name = ir_strdup(r->g, name);
	v->type = type;
	return v;
}

/* Defines a value named `name` (scratch is fine) of type t. */
static struct ir_value *define(struct reader *r, const char *name,
			       struct ir_type *t)
{
	if (ir_find_value(r->g, name)) {
		rerr(r, "value %%%s is defined twice", rshowz(r, name));
		return detached_value(r, name, t);
	}
	return ir_value_new(r->g, name, t);
}

static struct ir_value *read_value(struct reader *r, const msgpack_object *o,
				   const char *what)
{
	static const char *const keys[] = { "name", "type", NULL };
	const msgpack_object *v[2];
	struct ir_type *t;
	const char *name;

	if (get_keys(r, o, what, keys, v, NULL))
		return NULL;
	if (!v[0])
		return missing(r, "name"), NULL;
	if (!v[1])
		return missing(r, "type"), NULL;
	if (!(t = read_type(r, v[1])))
		return NULL;
	if (!(name = scratch_name(r, v[0], "value \"name\"")))
		return NULL;
	return define(r, name, t);
}

/* The value named by o (a str), NULL after reporting when undefined;
 * *bad is set for a structural error. */
static struct ir_value *use(struct reader *r, const msgpack_object *o,
			    const char *what, uint32_t i, int *bad)
{
	char label[48];
	const char *name;
	struct ir_value *v;

	snprintf(label, sizeof(label), "%s %u", what, i);
	if (!(name = scratch_name(r, o, label))) {
		*bad = 1;
		return NULL;
	}
	if (!(v = ir_find_value(r->g, name)))
		rerr(r, "%s names undefined value %%%s", label,
		     rshowz(r, name));
	return v;
}

/* --- reading: blocks, attributes, nodes ---------------------------------------------- */

static int read_node(struct reader *r, const msgpack_object *o,
		     struct ir_block *b, uint32_t index);

/* A {"name", "tensor"} weight entry (a "weight" record or a subgraph
 * weight): its extra keys go to the weight.  Returns the weight, NULL on a
 * structural error or when the name is taken (then *bad is not set). */
static struct ir_weight *read_weight(struct reader *r,
				     const msgpack_object *o,
				     const char *const *keys, int *bad)
{
	const msgpack_object *v[3];
	struct ir_bytes extra = { NULL, 0 };
	struct ir_tensor *t;
	struct ir_weight *w;
	const char *name;

	*bad = 1;
	/* keys is {"name", "tensor", NULL} or {"name", "tensor", "r", NULL} */
	if (get_keys(r, o, "weight", keys, v, &extra))
		return NULL;
	if (!v[0])
		return missing(r, "name"), NULL;
	if (!v[1])
		return missing(r, "tensor"), NULL;
	if (!(t = read_tensor(r, v[1])))
		return NULL;
	if (!(name = scratch_name(r, v[0], "weight \"name\"")))
		return NULL;
	*bad = 0;
	if (ir_find_value(r->g, name)) {
		rerr(r, "weight %%%s is defined twice", rshowz(r, name));
		return NULL;
	}
	w = ir_alloc(r->g, sizeof(*w));
	w->tensor = t;
	w->extra = extra;
	w->value = ir_value_new(r->g, name, ir_tensor_type(r->g, t));
	w->value->weight = w;
	return w;
}

static int read_block(struct reader *r, const msgpack_object *o,
		      struct ir_block *b)
{
	static const char *const keys[] = { "name", "params", "nodes",
					    "returns", "weights", NULL };
	static const char *const wkeys[] = { "name", "tensor", NULL };
	const msgpack_object *v[5];
	const msgpack_object_array *a = NULL;
	struct ir_weight **tail = &b->weights;

	if (get_keys(r, o, "block", keys, v, NULL))
		return -1;
	if (v[0] && want_str(r, v[0], "block \"name\"", 0, &b->name))
		return -1;
	if (!v[1])
		return missing(r, "params");
	if (!v[2])
		return missing(r, "nodes");
	if (!v[3])
		return missing(r, "returns");
	if (v[4]) {
		if (want_array(r, v[4], "block \"weights\"", &a))
			return -1;
		for (uint32_t i = 0; i < a->size; i++) {
			int bad;
			size_t at = push_where(r, "weight %u", i);
			struct ir_weight *w = read_weight(r, &a->ptr[i], wkeys,
							  &bad);
			pop_where(r, at);
			if (bad)
				return -1;
			if (w) {
				*tail = w;
				tail = &w->next;
			}
		}
	}
	if (want_array(r, v[1], "block \"params\"", &a))
		return -1;
	for (uint32_t i = 0; i < a->size; i++) {
		size_t at = push_where(r, "param %u", i);
		struct ir_value *p = read_value(r, &a->ptr[i], "block param");
		pop_where(r, at);
		if (!p)
			return -1;
		ir_block_add_param(r->g, b, p);
	}
	if (want_array(r, v[2], "block \"nodes\"", &a))
		return -1;
	for (uint32_t i = 0; i < a->size; i++)
		if (read_node(r, &a->ptr[i], b, i))
			return -1;
	if (want_array(r, v[3], "block \"returns\"", &a))
		return -1;
	for (uint32_t i = 0; i < a->size; i++) {
		int bad = 0;
		struct ir_value *x = use(r, &a->ptr[i], "return", i, &bad);
		if (bad)
			return -1;
		if (x)
			ir_block_add_return(r->g, b, x);
	}
	return 0;
}

static const char *const attr_kinds[IR_ATTR_COUNT] = {
	[IR_ATTR_INT] = "i", [IR_ATTR_FLOAT] = "f", [IR_ATTR_STRING] = "s",
	[IR_ATTR_TENSOR] = "t", [IR_ATTR_GRAPH] = "g", [IR_ATTR_INTS] = "is",
	[IR_ATTR_FLOATS] = "fs", [IR_ATTR_STRINGS] = "ss",
	[IR_ATTR_TENSORS] = "ts", [IR_ATTR_GRAPHS] = "gs",
	[IR_ATTR_RAW] = NULL,
};

static int want_f64(struct reader *r, const msgpack_object *o,
		    const char *what, double *out)
{
	if (o->type != MSGPACK_OBJECT_FLOAT64 &&
	    o->type != MSGPACK_OBJECT_FLOAT32)
		return wrong_type(r, what, o, "a float");
	*out = o->via.f64;
	return 0;
}

static struct ir_block *read_subgraph(struct reader *r,
				      const msgpack_object *o,
				      struct ir_node *n, const char *fmt,
				      uint32_t i)
{
	struct ir_block *b = ir_block_new(r->g);
	size_t at = push_where(r, fmt, i);
	int bad;

	b->owner = n;
	bad = read_block(r, o, b);
	pop_where(r, at);
	return bad ? NULL : b;
}

static int read_attr(struct reader *r, const msgpack_object *o,
		     struct ir_node *n, struct ir_attr *at)
{
	static const char *const keys[] = { "n", "k", "v", NULL };
	const msgpack_object *v[3];
	const msgpack_object_array *a = NULL;
	int kind;

	if (get_keys(r, o, "attribute", keys, v, NULL))
		return -1;
	if (!v[0])
		return missing(r, "n");
	if (want_str(r, v[0], "attribute \"n\"", 1, &at->name))
		return -1;
	if (!v[1])
		return missing(r, "k");
	if (v[1]->type != MSGPACK_OBJECT_STR)
		return wrong_type(r, "attribute \"k\"", v[1], "a string");
	for (kind = 0; kind < IR_ATTR_RAW && !is_str(v[1], attr_kinds[kind]);
	     kind++)
		;
	at->kind = (enum ir_attr_kind)kind;
	if (kind == IR_ATTR_RAW) {
		/* a kind from the future: the whole map, as it came */
		msgpack_sbuffer sb;
		msgpack_packer pk;
		msgpack_sbuffer_init(&sb);
		msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
		msgpack_pack_object(&pk, *o);
		at->u.raw.len = sb.size;
		at->u.raw.data = copy_bytes(r, sb.data, sb.size);
		msgpack_sbuffer_destroy(&sb);
		return 0;
	}
	if (!v[2])
		return missing(r, "v");
	if (kind >= IR_ATTR_INTS) {
		if (want_array(r, v[2], "attribute \"v\"", &a))
			return -1;
		at->count = a->size;
	}
	switch (at->kind) {
	case IR_ATTR_INT:
		return want_i64(r, v[2], "attribute \"v\"", &at->u.i);
	case IR_ATTR_FLOAT:
		return want_f64(r, v[2], "attribute \"v\"", &at->u.f);
	case IR_ATTR_STRING:
		return want_bytes(r, v[2], "attribute \"v\"", &at->u.s);
	case IR_ATTR_TENSOR:
		return (at->u.t = read_tensor(r, v[2])) ? 0 : -1;
	case IR_ATTR_GRAPH:
		at->u.g = read_subgraph(r, v[2], n, "graph", 0);
		return at->u.g ? 0 : -1;
	case IR_ATTR_INTS:
		at->u.ints = ir_alloc(r->g, sizeof(int64_t) * (a->size + 1));
		for (uint32_t i = 0; i < a->size; i++)
			if (want_i64(r, &a->ptr[i], "attribute int",
				     &at->u.ints[i]))
				return -1;
		return 0;
	case IR_ATTR_FLOATS:
		at->u.floats = ir_alloc(r->g, sizeof(double) * (a->size + 1));
		for (uint32_t i = 0; i < a->size; i++)
			if (want_f64(r, &a->ptr[i], "attribute float",
				     &at->u.floats[i]))
				return -1;
		return 0;
	case IR_ATTR_STRINGS:
		at->u.strings = ir_alloc(r->g, sizeof(struct ir_bytes) *
					 (a->size + 1));
		for (uint32_t i = 0; i < a->size; i++)
			if (want_bytes(r, &a->ptr[i], "attribute string",
				       &at->u.strings[i]))
				return -1;
		return 0;
	case IR_ATTR_TENSORS:
		at->u.tensors = ir_alloc(r->g, sizeof(struct ir_tensor *) *
					 (a->size + 1));
		for (uint32_t i = 0; i < a->size; i++)
			if (!(at->u.tensors[i] = read_tensor(r, &a->ptr[i])))
				return -1;
		return 0;
	case IR_ATTR_GRAPHS:
		at->u.graphs = ir_alloc(r->g, sizeof(struct ir_block *) *
					(a->size + 1));
		for (uint32_t i = 0; i < a->size; i++)
			if (!(at->u.graphs[i] = read_subgraph(r, &a->ptr[i], n,
							       "graph %u", i)))
				return -1;
		return 0;
	default:
		return -1;
	}
}

static const char *const node_keys[] = {
	"r", "kind", "inputs", "outputs", "attrs", "blocks", "name", "scope",
	"source", "doc", NULL
};

/* Reads the node o and appends it to b.  `index` is its place in a nested
 * block (for messages), UINT32_MAX for a "node" record. */
static int read_node(struct reader *r, const msgpack_object *o,
		     struct ir_block *b, uint32_t index)
{
	const msgpack_object *v[10];
	const msgpack_object_array *ins = NULL, *outs = NULL, *attrs = NULL;
	const msgpack_object_array *blocks = NULL;
	struct ir_bytes extra = { NULL, 0 };
	const char *kind;
	struct ir_node *n;
	size_t at = r->wlen;
	int ret = -1;

	if (index != UINT32_MAX)
		at = push_where(r, "node %u", index);
	if (get_keys(r, o, "node", node_keys, v, &extra))
		goto out;
	if (!v[1]) {
		missing(r, "kind");
		goto out;
	}
	if (want_str(r, v[1], "node \"kind\"", 1, &kind))
		goto out;
	if (index == UINT32_MAX) {
		set_where(r, "record %u (node %s)", r->rec, rshowz(r, kind));
	} else {
		pop_where(r, at);
		push_where(r, "node %u (%s)", index, rshowz(r, kind));
	}
	if (v[0] && !is_str(v[0], "node")) {
		rerr(r, "a node in a block has \"r\" other than \"node\"");
		goto out;
	}
	if (!v[2] || !v[3] || !v[4] || !v[5]) {
		missing(r, !v[2] ? "inputs" : !v[3] ? "outputs" :
			!v[4] ? "attrs" : "blocks");
		goto out;
	}
	if (want_array(r, v[2], "node \"inputs\"", &ins) ||
	    want_array(r, v[3], "node \"outputs\"", &outs) ||
	    want_array(r, v[4], "node \"attrs\"", &attrs) ||
	    want_array(r, v[5], "node \"blocks\"", &blocks))
		goto out;

	n = ir_alloc(r->g, sizeof(*n));
	ir_node_set_kind(n, kind);
	n->extra = extra;
	if ((v[6] && want_str(r, v[6], "node \"name\"", 0, &n->name)) ||
	    (v[7] && want_str(r, v[7], "node \"scope\"", 0, &n->scope)) ||
	    (v[8] && want_str(r, v[8], "node \"source\"", 0, &n->source)) ||
	    (v[9] && want_str(r, v[9], "node \"doc\"", 0, &n->doc)))
		goto out;
	ir_block_append(b, n);

	/* inputs, then subgraphs, then outputs: neither may use the outputs */
	n->ninputs = ins->size;
	if (ins->size)
		n->inputs = ir_alloc(r->g, sizeof(*n->inputs) * ins->size);
	for (uint32_t i = 0; i < ins->size; i++) {
		int bad = 0;
		if (ins->ptr[i].type == MSGPACK_OBJECT_NIL)
			continue; /* an absent optional input */
		n->inputs[i] = use(r, &ins->ptr[i], "input", i, &bad);
		if (bad)
			goto out;
	}
	n->nattrs = attrs->size;
	if (attrs->size)
		n->attrs = ir_alloc(r->g, sizeof(*n->attrs) * attrs->size);
	for (uint32_t i = 0; i < attrs->size; i++) {
		size_t a_at = push_where(r, "attribute %u", i);
		int bad = read_attr(r, &attrs->ptr[i], n, &n->attrs[i]);
		pop_where(r, a_at);
		if (bad)
			goto out;
	}
	if (attrs->size > 1) {
		struct key *names = xmalloc(sizeof(*names) * attrs->size);
		for (uint32_t i = 0; i < attrs->size; i++) {
			names[i].p = n->attrs[i].name;
			names[i].len = strlen(n->attrs[i].name);
		}
		const struct key *dup = find_duplicate(names, attrs->size);
		if (dup)
			rerr(r, "attribute \"%s\" is given twice",
			     rshow(r, dup->p, dup->len));
		free(names);
		if (dup)
			goto out;
	}
	n->nblocks = blocks->size;
	if (blocks->size)
		n->blocks = ir_alloc(r->g, sizeof(*n->blocks) * blocks->size);
	for (uint32_t i = 0; i < blocks->size; i++)
		if (!(n->blocks[i] = read_subgraph(r, &blocks->ptr[i], n,
						   "block %u", i)))
			goto out;
	n->noutputs = outs->size;
	if (outs->size)
		n->outputs = ir_alloc(r->g, sizeof(*n->outputs) * outs->size);
	for (uint32_t i = 0; i < outs->size; i++) {
		size_t o_at = push_where(r, "output %u", i);
		struct ir_value *x = read_value(r, &outs->ptr[i], "output");
		pop_where(r, o_at);
		if (!x)
			goto out;
		ir_node_set_output(n, i, x);
	}
	ret = 0;
out:
	if (index != UINT32_MAX)
		pop_where(r, at);
	return ret;
}

/* --- reading: records ------------------------------------------------------------ */

static int read_header(struct reader *r, const msgpack_object *o)
{
	static const char *const keys[] = { "pt2onnx-ir", "level", "producer",
					    NULL };
	const msgpack_object *v[3];
	const msgpack_object_array *a = NULL;
	uint64_t major = 0, minor = 0;

	set_where(r, "record 0 (header)");
	if (o->type != MSGPACK_OBJECT_MAP)
		return rerr(r, "not a pt2onnx IR stream: the first object is "
			    "%s, not a header map", mp_type(o));
	if (get_keys(r, o, "header", keys, v, &r->g->header_extra))
		return -1;
	if (!v[0])
		return rerr(r, "not a pt2onnx IR stream: no \"pt2onnx-ir\" "
			    "version in the header");
	if (want_array(r, v[0], "\"pt2onnx-ir\"", &a))
		return -1;
	if (a->size != 2)
		return rerr(r, "\"pt2onnx-ir\" has %u entries, expected "
			    "[major, minor]", a->size);
	if (want_u64(r, &a->ptr[0], "major version", UINT32_MAX, &major) ||
	    want_u64(r, &a->ptr[1], "minor version", UINT32_MAX, &minor))
		return -1;
	if (major != IR_FORMAT_MAJOR)
		return rerr(r, "IR format version %" PRIu64 ".%" PRIu64
			    " is not supported (this reader knows %d.x)",
			    major, minor, IR_FORMAT_MAJOR);
	if (!v[1])
		return missing(r, "level");
	if (is_str(v[1], "aten"))
		r->g->level = IR_LEVEL_ATEN;
	else if (is_str(v[1], "onnx"))
		r->g->level = IR_LEVEL_ONNX;
	else if (v[1]->type != MSGPACK_OBJECT_STR)
		return wrong_type(r, "\"level\"", v[1], "a string");
	else
		return rerr(r, "unknown level \"%s\" (expected \"aten\" or "
			    "\"onnx\")", rshow(r, v[1]->via.str.ptr,
					       v[1]->via.str.size));
	if (v[2] && want_str(r, v[2], "\"producer\"", 0, &r->g->producer))
		return -1;
	return 0;
}

static int read_graph(struct reader *r, const msgpack_object *o)
{
	static const char *const keys[] = { "r", "name", "doc", "opsets",
					    "props", NULL };
	const msgpack_object *v[5];
	const msgpack_object_array *a = NULL;
	struct ir_graph *g = r->g;

	if (get_keys(r, o, "record", keys, v, &g->extra))
		return -1;
	if ((v[1] && want_str(r, v[1], "graph \"name\"", 0, &g->name)) ||
	    (v[2] && want_str(r, v[2], "graph \"doc\"", 0, &g->doc)))
		return -1;
	if (!v[3])
		return missing(r, "opsets");
	if (!v[4])
		return missing(r, "props");
	if (want_array(r, v[3], "\"opsets\"", &a))
		return -1;
	g->nopsets = a->size;
	if (a->size)
		g->opsets = ir_alloc(g, sizeof(*g->opsets) * a->size);
	for (uint32_t i = 0; i < a->size; i++) {
		const msgpack_object_array *e = NULL;
		if (want_array(r, &a->ptr[i], "opset entry", &e))
			return -1;
		if (e->size != 2)
			return rerr(r, "opset %u has %u entries, expected "
				    "[domain, version]", i, e->size);
		if (want_str(r, &e->ptr[0], "opset domain", 0,
			     &g->opsets[i].domain) ||
		    want_i64(r, &e->ptr[1], "opset version",
			     &g->opsets[i].version))
			return -1;
	}
	if (a->size > 1) {
		struct key *doms = xmalloc(sizeof(*doms) * a->size);
		for (uint32_t i = 0; i < a->size; i++) {
			doms[i].p = g->opsets[i].domain;
			doms[i].len = strlen(g->opsets[i].domain);
		}
		const struct key *dup = find_duplicate(doms, a->size);
		if (dup)
			rerr(r, "opset domain \"%s\" is imported twice",
			     rshow(r, dup->p, dup->len));
		free(doms);
		if (dup)
			return -1;
	}
	if (want_array(r, v[4], "\"props\"", &a))
		return -1;
	g->nprops = a->size;
	if (a->size)
		g->props = ir_alloc(g, sizeof(*g->props) * a->size);
	for (uint32_t i = 0; i < a->size; i++) {
		const msgpack_object_array *e = NULL;
		if (want_array(r, &a->ptr[i], "prop entry", &e))
			return -1;
		if (e->size != 2)
			return rerr(r, "prop %u has %u entries, expected "
				    "[key, value]", i, e->size);
		if (want_str(r, &e->ptr[0], "prop key", 0, &g->props[i].key) ||
		    want_str(r, &e->ptr[1], "prop value", 0,
			     &g->props[i].value))
			return -1;
	}
	return 0;
}

static int read_weight_record(struct reader *r, const msgpack_object *o)
{
	static const char *const keys[] = { "name", "tensor", "r", NULL };
	struct ir_weight *w;
	int bad;

	/* name the weight in messages when its name is readable */
	if (o->type == MSGPACK_OBJECT_MAP) {
		for (uint32_t i = 0; i < o->via.map.size; i++) {
			const msgpack_object_kv *kv = &o->via.map.ptr[i];
			if (is_str(&kv->key, "name") &&
			    kv->val.type == MSGPACK_OBJECT_STR)
				set_where(r, "record %u (weight %s)", r->rec,
					  rshow(r, kv->val.via.str.ptr,
						kv->val.via.str.size));
		}
	}
	w = read_weight(r, o, keys, &bad);
	if (bad)
		return -1;
	if (w)
		ir_append_weight(r->g, NULL, w);
	return 0;
}

static int read_input(struct reader *r, const msgpack_object *o)
{
	static const char *const keys[] = { "r", "value", NULL };
	const msgpack_object *v[2];
	struct ir_value *x;

	if (get_keys(r, o, "record", keys, v, NULL))
		return -1;
	if (!v[1])
		return missing(r, "value");
	if (!(x = read_value(r, v[1], "input \"value\"")))
		return -1;
	ir_block_add_param(r->g, r->g->top, x);
	return 0;
}

static int read_output(struct reader *r, const msgpack_object *o)
{
	static const char *const keys[] = { "r", "name", NULL };
	const msgpack_object *v[2];
	struct ir_value *x;
	int bad = 0;

	if (get_keys(r, o, "record", keys, v, NULL))
		return -1;
	if (!v[1])
		return missing(r, "name");
	x = use(r, v[1], "output", r->g->top->nreturns, &bad);
	if (bad)
		return -1;
	if (x)
		ir_block_add_return(r->g, r->g->top, x);
	return 0;
}

struct ir_raw_record *ir_add_raw_record(struct ir_graph *g, const void *bytes,
					size_t len,
					enum ir_raw_section section,
					uint32_t index)
{
	struct ir_raw_record *rr = ir_alloc(g, sizeof(*rr));
	char *p = ir_alloc(g, len + 1);

	if (len)
		memcpy(p, bytes, len);
	rr->bytes.data = p;
	rr->bytes.len = len;
	rr->section = section;
	rr->index = index;
	if (g->unknown_tail)
		g->unknown_tail->next = rr;
	else
		g->unknown = rr;
	g->unknown_tail = rr;
	return rr;
}

static const struct {
	const char *name;
	enum phase phase;
} record_kinds[] = {
	{ "graph", PHASE_GRAPH }, { "weight", PHASE_WEIGHT },
	{ "input", PHASE_INPUT }, { "node", PHASE_NODE },
	{ "output", PHASE_OUTPUT },
};

/* Reads record r->rec.  Returns 1 after "end", 0 to go on, -1 to stop. */
static int read_record(struct reader *r, const msgpack_object *o)
{
	const msgpack_object *kind = NULL;
	size_t k;

	set_where(r, "record %u", r->rec);
	if (o->type != MSGPACK_OBJECT_MAP)
		return wrong_type(r, "the record", o, "a map");
	for (uint32_t i = 0; i < o->via.map.size; i++) {
		if (!is_str(&o->via.map.ptr[i].key, "r"))
			continue;
		if (kind)
			return rerr(r, "the record has key \"r\" twice");
		kind = &o->via.map.ptr[i].val;
	}
	if (!kind)
		return missing(r, "r");
	if (kind->type != MSGPACK_OBJECT_STR)
		return wrong_type(r, "\"r\"", kind, "a string");
	if (is_str(kind, "end")) {
		set_where(r, "record %u (end)", r->rec);
		if (r->phase < PHASE_GRAPH)
			return rerr(r, "\"end\" before the \"graph\" record");
		return 1;
	}
	for (k = 0; k < sizeof(record_kinds) / sizeof(record_kinds[0]); k++)
		if (is_str(kind, record_kinds[k].name))
			break;
	if (k == sizeof(record_kinds) / sizeof(record_kinds[0])) {
		/* unknown: kept verbatim, with its place */
		static const enum ir_raw_section sect[] = {
			[PHASE_HEAD] = IR_RAW_HEAD,
			[PHASE_GRAPH] = IR_RAW_WEIGHTS,
			[PHASE_WEIGHT] = IR_RAW_WEIGHTS,
			[PHASE_INPUT] = IR_RAW_INPUTS,
			[PHASE_NODE] = IR_RAW_NODES,
			[PHASE_OUTPUT] = IR_RAW_OUTPUTS,
		};
		enum ir_raw_section s = sect[r->phase];
		ir_add_raw_record(r->g, r->rec_bytes, r->rec_len, s,
				  r->counts[s]);
		return 0;
	}
	enum phase ph = record_kinds[k].phase;
	const char *kname = record_kinds[k].name;
	set_where(r, "record %u (%s)", r->rec, kname);
	if (r->phase == PHASE_HEAD && ph != PHASE_GRAPH)
		return rerr(r, "the first record must be \"graph\"");
	if (ph == PHASE_GRAPH && r->phase != PHASE_HEAD)
		return rerr(r, "a second \"graph\" record");
	if (ph < r->phase) {
		for (k = 0; record_kinds[k].phase != r->phase; k++)
			;
		return rerr(r, "\"%s\" record after a \"%s\" record",
			    kname, record_kinds[k].name);
	}
	r->phase = ph;
	switch (ph) {
	case PHASE_GRAPH:
		return read_graph(r, o);
	case PHASE_WEIGHT:
		r->counts[IR_RAW_WEIGHTS]++;
		return read_weight_record(r, o);
	case PHASE_INPUT:
		r->counts[IR_RAW_INPUTS]++;
		return read_input(r, o);
	case PHASE_NODE:
		r->counts[IR_RAW_NODES]++;
		return read_node(r, o, r->g->top, UINT32_MAX);
	case PHASE_OUTPUT:
		r->counts[IR_RAW_OUTPUTS]++;
		return read_output(r, o);
	default:
		return -1;
	}
}

/* Anything after "end" is an error: one stream holds one graph. */
static int at_end(struct reader *r)
{
	if (r->used > r->off)
		return 0;
	if (r->fp) {
		int c = getc(r->fp);
		if (c != EOF)
			return 0;
		if (ferror(r->fp)) {
			diag_error(r->d, "read error: %s", strerror(errno));
			r->nerrors++;
		}
		return 1;
	}
	return r->mempos == r->memlen;
}

static struct ir_graph *read_stream(struct reader *r)
{
	const msgpack_object *o;
	int ret;

	r->g = ir_graph_new(IR_LEVEL_ATEN);
	set_where(r, "record 0 (header)");
	ret = next_object(r, &o);
	if (ret == 0) {
		diag_error(r->d, "truncated stream: empty input");
		r->nerrors++;
	} else if (ret > 0 && !read_header(r, o)) {
		for (r->rec = 1;; r->rec++) {
			set_where(r, "record %u", r->rec);
			ret = next_object(r, &o);
			if (ret < 0)
				break;
			if (ret == 0) {
				diag_error(r->d, "truncated stream: no \"end\" "
					   "record after record %u",
					   r->rec - 1);
				r->nerrors++;
				break;
			}
			ret = read_record(r, o);
			if (ret < 0)
				break;
			if (ret > 0) {
				if (!at_end(r))
					rerr(r, "data after the \"end\" "
					     "record");
				break;
			}
		}
	}
	zfree(&r->zone);
	free(r->buf);
	free(r->scratch);
	if (!r->nerrors && ir_verify(r->g, r->d))
		r->nerrors++;
	if (r->nerrors) {
		ir_graph_free(r->g);
		return NULL;
	}
	return r->g;
}

struct ir_graph *ir_read_binary(struct ir_source *src, struct diag *d)
{
	struct reader *r = xcalloc(1, sizeof(*r));
	const char *old_file = d->file;
	struct ir_graph *g;

	r->d = d;
	r->fp = src->fp;
	if (!d->file && src->name)
		d->file = src->name;
	g = read_stream(r);
	d->file = old_file;
	free(r);
	return g;
}

struct ir_graph *ir_read_binary_mem(const void *buf, size_t len,
				    const char *name, struct diag *d)
{
	struct reader *r = xcalloc(1, sizeof(*r));
	const char *old_file = d->file;
	struct ir_graph *g;

	r->d = d;
	r->mem = buf;
	r->memlen = buf ? len : 0;
	if (!d->file && name)
		d->file = name;
	g = read_stream(r);
	d->file = old_file;
	free(r);
	return g;
}

/* --- writing ------------------------------------------------------------------------ */

struct writer {
	msgpack_packer pk;
	FILE *fp;
	struct diag *d;
	int io_error;   /* a write to fp failed (errno kept) */
	int saved_errno;
	int failed;     /* the graph cannot be written */
	int depth;      /* open containers */
	char shown[2][SHOWN_SIZE];
	int nshown;
};

static int write_cb(void *data, const char *buf, size_t len)
{
	struct writer *w = data;

	if (w->io_error || w->failed)
		return -1;
	if (len && fwrite(buf, 1, len, w->fp) != len) {
		w->io_error = 1;
		w->saved_errno = errno;
		return -1;
	}
	return 0;
}

__attribute__((format(printf, 2, 3)))
static void werr(struct writer *w, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (w->failed)
		return; /* the first problem is enough: nothing is written */
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	diag_error(w->d, "cannot write the IR: %s", msg);
	w->failed = 1;
}

static const char *wshow(struct writer *w, const char *s)
{
	if (!s)
		return "(null)";
	return show(w->shown[w->nshown++ & 1], SHOWN_SIZE, s, strlen(s));
}

static void begin(struct writer *w)
{
	if (w->depth >= MP_MAX_DEPTH)
		werr(w, "the graph is nested deeper than %d msgpack levels",
		     MP_MAX_DEPTH);
	w->depth++;
}

static void wmap(struct writer *w, size_t n)
{
	begin(w);
	msgpack_pack_map(&w->pk, n);
}

static void warray(struct writer *w, size_t n)
{
	if (n > MP_MAX_LEN)
		werr(w, "an array of %zu entries is over msgpack's limit", n);
	begin(w);
	msgpack_pack_array(&w->pk, n);
}

static void wend(struct writer *w)
{
	w->depth--;
}

static void wstr(struct writer *w, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (n > MP_MAX_LEN) {
		werr(w, "a string of %zu bytes is over msgpack's limit", n);
		return;
	}
	msgpack_pack_str(&w->pk, n);
	msgpack_pack_str_body(&w->pk, s, n);
}

static void wbin(struct writer *w, const void *p, size_t n)
{
	if (n > MP_MAX_LEN) {
		werr(w, "%zu bytes are over msgpack's 4 GiB limit for one "
		     "string", n);
		return;
	}
	msgpack_pack_bin(&w->pk, n);
	msgpack_pack_bin_body(&w->pk, p, n);
}

static void wint(struct writer *w, int64_t v)
{
	msgpack_pack_int64(&w->pk, v);
}

/* A key and a str value. */
static void wkv(struct writer *w, const char *key, const char *val)
{
	wstr(w, key);
	wstr(w, val);
}

/* Looks up `key` in the msgpack map b (already checked by one_object()).
 * Returns 1 with the str value in *val and *len, 0 when the key is missing or
 * not a str, -1 when b is not a map. */
static int map_str(const struct ir_bytes *b, const char *key,
		   const char **val, size_t *len)
{
	struct zchunk *z = NULL;
	msgpack_object o;
	size_t off = 0;
	int ret = -1;

	decode(&z, (const unsigned char *)b->data, &off, &o);
	if (o.type == MSGPACK_OBJECT_MAP) {
		ret = 0;
		for (uint32_t i = 0; i < o.via.map.size; i++) {
			const msgpack_object_kv *kv = &o.via.map.ptr[i];
			if (is_str(&kv->key, key) &&
			    kv->val.type == MSGPACK_OBJECT_STR) {
				/* points into b, not into the zone */
				*val = kv->val.via.str.ptr;
				*len = kv->val.via.str.size;
				ret = 1;
				break;
			}
		}
	}
	zfree(&z);
	return ret;
}

/* A record of unknown kind: one map whose "r" names no known record. */
static void write_raw_record(struct writer *w, const struct ir_bytes *b)
{
	static const char *const known[] = { "graph", "weight", "input",
					     "node", "output", "end" };
	const char *r = NULL;
	size_t n = 0;

	if (!one_object(b, 0) || map_str(b, "r", &r, &n) <= 0) {
		werr(w, "a record of unknown kind is not a msgpack map with a "
		     "string \"r\"");
		return;
	}
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		if (strlen(known[i]) == n && !memcmp(known[i], r, n)) {
			werr(w, "a record of unknown kind has \"r\" \"%s\"",
			     known[i]);
			return;
		}
	}
	write_cb(w, b->data, b->len);
}

/* A RAW attribute: the whole attribute map as it was read, {"n": name,
 * "k": kind, "v": value, ...}, its "n" the attribute's name. */
static void write_raw_attr(struct writer *w, const struct ir_node *n,
			   const struct ir_attr *a)
{
	const char *name = NULL;
	size_t len = 0;

	if (!one_object(&a->u.raw, w->depth)) {
		werr(w, "node %s: raw attribute %s is not one msgpack object",
		     wshow(w, n->kind), wshow(w, a->name));
		return;
	}
	if (map_str(&a->u.raw, "n", &name, &len) <= 0 || !a->name ||
	    strlen(a->name) != len || memcmp(a->name, name, len)) {
		werr(w, "node %s: raw attribute %s is not an attribute map "
		     "with \"n\" its name", wshow(w, n->kind),
		     wshow(w, a->name));
		return;
	}
	write_cb(w, a->u.raw.data, a->u.raw.len);
}

/* Entries in the extra map b (0 for none); its body is left in *body. */
static uint32_t extra_count(struct writer *w, const struct ir_bytes *b,
			    struct ir_bytes *body, const char *what)
{
	const unsigned char *p = (const unsigned char *)b->data;
	size_t hdr;
	uint32_t n;

	body->data = NULL;
	body->len = 0;
	if (!b->len)
		return 0;
	if (!one_object(b, w->depth)) {
		werr(w, "the unknown keys of %s are not one msgpack map", what);
		return 0;
	}
	if (p[0] >= 0x80 && p[0] <= 0x8f) {
		n = p[0] & 0x0f;
		hdr = 1;
	} else if (p[0] == 0xde) {
		n = (uint32_t)be(p + 1, 2);
		hdr = 3;
	} else if (p[0] == 0xdf) {
		n = (uint32_t)be(p + 1, 4);
		hdr = 5;
	} else {
		werr(w, "the unknown keys of %s are not a msgpack map", what);
		return 0;
	}
	body->data = b->data + hdr;
	body->len = b->len - hdr;
	return n;
}

static void write_type(struct writer *w, const struct ir_type *t)
{
	int want;

	if (!t) {
		wmap(w, 1);
		wkv(w, "k", "any");
		wend(w);
		return;
	}
	if ((unsigned)t->kind >= IR_TYPE_COUNT) {
		werr(w, "a type of unknown kind %d", (int)t->kind);
		return;
	}
	switch (t->kind) {
	case IR_TYPE_TENSOR:
		wmap(w, 3);
		wkv(w, "k", "tensor");
		wstr(w, "dtype");
		if ((unsigned)t->dtype >= IR_DTYPE_COUNT)
			werr(w, "a tensor type of unknown dtype %d",
			     (int)t->dtype);
		wint(w, t->dtype);
		wstr(w, "shape");
		if (t->rank < 0) {
			msgpack_pack_nil(&w->pk);
		} else {
			if (t->rank > IR_MAX_RANK)
				werr(w, "a tensor type of rank %d (over %d)",
				     t->rank, IR_MAX_RANK);
			warray(w, (size_t)t->rank);
			for (int i = 0; i < t->rank; i++) {
				const struct ir_dim *d = t->dims ? &t->dims[i] :
					NULL;
				if (!d || d->kind == IR_DIM_UNKNOWN) {
					msgpack_pack_nil(&w->pk);
				} else if (d->kind == IR_DIM_FIXED) {
					if (d->value < 0)
						werr(w, "a negative dim %" PRId64,
						     d->value);
					wint(w, d->value);
				} else if (d->symbol && *d->symbol) {
					wstr(w, d->symbol);
				} else {
					werr(w, "a symbolic dim without a name");
				}
			}
			wend(w);
		}
		wend(w);
		return;
	case IR_TYPE_CLASS:
		wmap(w, 2);
		wkv(w, "k", "class");
		wkv(w, "name", t->name ? t->name : "");
		wend(w);
		return;
	default:
		break;
	}
	want = type_nelems(t->kind);
	if (!want) {
		wmap(w, 1);
		wkv(w, "k", type_kinds[t->kind]);
		wend(w);
		return;
	}
	if ((want > 0 && t->nelems != (uint32_t)want) || (t->nelems &&
							   !t->elems)) {
		werr(w, "a %s type with %u element types", type_kinds[t->kind],
		     t->nelems);
		return;
	}
	wmap(w, 2);
	wkv(w, "k", type_kinds[t->kind]);
	wstr(w, "elems");
	warray(w, t->nelems);
	for (uint32_t i = 0; i < t->nelems; i++)
		write_type(w, t->elems[i]);
	wend(w);
	wend(w);
}

static void write_value(struct writer *w, const struct ir_value *v,
			const char *what)
{
	if (!v || !v->name || !*v->name) {
		werr(w, "%s without a name", what);
		return;
	}
	wmap(w, 2);
	wkv(w, "name", v->name);
	wstr(w, "type");
	write_type(w, v->type);
	wend(w);
}

static void write_tensor(struct writer *w, const struct ir_tensor *t,
			 const char *what)
{
	uint64_t numel;
	size_t esize;

	if (!t) {
		werr(w, "%s has no tensor", what);
		return;
	}
	if (t->dtype <= IR_DTYPE_UNDEFINED || t->dtype >= IR_DTYPE_COUNT) {
		werr(w, "%s has dtype %d", what, (int)t->dtype);
		return;
	}
	if (t->rank < 0 || t->rank > IR_MAX_RANK || (t->rank && !t->dims)) {
		werr(w, "%s has rank %d", what, t->rank);
		return;
	}
	for (int i = 0; i < t->rank; i++) {
		if (t->dims[i] < 0) {
			werr(w, "%s has a negative dim", what);
			return;
		}
	}
	numel = dims_numel(t->dims, t->rank);
	esize = ir_dtype_size(t->dtype);
	wmap(w, 3 + (t->doc != NULL));
	wstr(w, "dtype");
	wint(w, t->dtype);
	wstr(w, "dims");
	warray(w, (size_t)t->rank);
	for (int i = 0; i < t->rank; i++)
		wint(w, t->dims[i]);
	wend(w);
	if (t->data_kind == IR_DATA_REF) {
		const struct ir_data_ref *ref = &t->ref;
		uint64_t want;
		if (t->dtype == IR_DTYPE_STRING || !ref->file || !*ref->file) {
			werr(w, "%s is a reference without a file, or to "
			     "strings", what);
			return;
		}
		for (int i = 0; ref->strides && i < t->rank; i++) {
			if (ref->strides[i] < 0) {
				werr(w, "%s has a negative stride", what);
				return;
			}
		}
		want = ref->strides ? span_bytes(t->dims, ref->strides,
						 t->rank, esize) :
			mul_sat(numel, esize);
		if (want == UINT64_MAX || ref->length < want ||
		    ref->offset > UINT64_MAX - ref->length) {
			werr(w, "%s: reference length %" PRIu64 " does not "
			     "cover the tensor, or runs past 2^64", what,
			     ref->length);
			return;
		}
		/* (the level is the reader's to check) */
		const char *bad = weight_scale_problem(t, IR_LEVEL_ONNX);
		if (bad || (ref->scale && t->dims[0] >
			    (int64_t)(MP_MAX_LEN / sizeof(double)))) {
			werr(w, "%s: %s", what, bad ? bad :
			     "a scaled view of too many rows");
			return;
		}
		wstr(w, ref->scale ? "sref" : "ref");
		wmap(w, 3 + (ref->strides != NULL) + (ref->scale != NULL));
		wkv(w, "file", ref->file);
		wstr(w, "offset");
		msgpack_pack_uint64(&w->pk, ref->offset);
		wstr(w, "length");
		msgpack_pack_uint64(&w->pk, ref->length);
		if (ref->strides) {
			wstr(w, "strides");
			warray(w, (size_t)t->rank);
			for (int i = 0; i < t->rank; i++)
				wint(w, ref->strides[i]);
			wend(w);
		}
		if (ref->scale) {
			wstr(w, "scale");
			wbin(w, ref->scale, (size_t)t->dims[0] * sizeof(double));
		}
		wend(w);
	} else if (t->dtype == IR_DTYPE_STRING) {
		if (numel > MP_MAX_LEN || (numel && !t->strings)) {
			werr(w, "%s: string tensor without its %" PRIu64
			     " strings", what, numel);
			return;
		}
		wstr(w, "strings");
		warray(w, (size_t)numel);
		for (uint64_t i = 0; i < numel; i++)
			wbin(w, t->strings[i].data, t->strings[i].len);
		wend(w);
	} else {
		if (mul_sat(numel, esize) != t->bytes.len ||
		    (t->bytes.len && !t->bytes.data)) {
			werr(w, "%s: inline data is %zu bytes, expected "
			     "%" PRIu64 " elements of %zu", what, t->bytes.len,
			     numel, esize);
			return;
		}
		wstr(w, "data");
		wbin(w, t->bytes.data, t->bytes.len);
	}
	if (t->doc)
		wkv(w, "doc", t->doc);
	wend(w);
}

static void write_node(struct writer *w, const struct ir_node *n);

static void write_block(struct writer *w, const struct ir_block *b,
			const char *what)
{
	uint32_t nw = 0;
	const struct ir_weight *x;

	if (!b) {
		werr(w, "%s is missing", what);
		return;
	}
	for (x = b->weights; x; x = x->next)
		nw++;
	wmap(w, 3 + (b->name != NULL) + (nw > 0));
	if (b->name)
		wkv(w, "name", b->name);
	wstr(w, "params");
	warray(w, b->nparams);
	for (uint32_t i = 0; i < b->nparams; i++)
		write_value(w, b->params[i], "a block parameter");
	wend(w);
	wstr(w, "nodes");
	uint32_t nn = 0;
	for (const struct ir_node *n = b->first; n; n = n->next)
		nn++;
	warray(w, nn);
	for (const struct ir_node *n = b->first; n && !w->failed; n = n->next)
		write_node(w, n);
	wend(w);
	wstr(w, "returns");
	warray(w, b->nreturns);
	for (uint32_t i = 0; i < b->nreturns; i++) {
		const struct ir_value *v = b->returns[i];
		if (!v || !v->name)
			werr(w, "%s: return %u is not set", what, i);
		else
			wstr(w, v->name);
	}
	wend(w);
	if (nw) {
		wstr(w, "weights");
		warray(w, nw);
		for (x = b->weights; x; x = x->next) {
			struct ir_bytes body;
			const char *name = x->value ? x->value->name : NULL;
			uint32_t ne = extra_count(w, &x->extra, &body,
						  "a subgraph weight");
			if (!name || !*name) {
				werr(w, "%s has a weight without a name", what);
				return;
			}
			wmap(w, 2 + ne);
			wkv(w, "name", name);
			wstr(w, "tensor");
			write_tensor(w, x->tensor, "a subgraph weight");
			if (ne)
				write_cb(w, body.data, body.len);
			wend(w);
		}
		wend(w);
	}
	wend(w);
}

static void write_attr(struct writer *w, const struct ir_node *n,
		       const struct ir_attr *a)
{
	const char *name = a->name;
	uint32_t c = a->count;

	if (a->kind == IR_ATTR_RAW) {
		write_raw_attr(w, n, a);
		return;
	}
	if ((unsigned)a->kind >= IR_ATTR_COUNT || !name || !*name) {
		werr(w, "node %s: an attribute of kind %d named \"%s\"",
		     wshow(w, n->kind), (int)a->kind, wshow(w, name));
		return;
	}
	wmap(w, 3);
	wkv(w, "n", name);
	wkv(w, "k", attr_kinds[a->kind]);
	wstr(w, "v");
	switch (a->kind) {
	case IR_ATTR_INT:
		wint(w, a->u.i);
		break;
	case IR_ATTR_FLOAT:
		msgpack_pack_double(&w->pk, a->u.f);
		break;
	case IR_ATTR_STRING:
		wbin(w, a->u.s.data, a->u.s.len);
		break;
	case IR_ATTR_TENSOR:
		write_tensor(w, a->u.t, "a tensor attribute");
		break;
	case IR_ATTR_GRAPH:
		write_block(w, a->u.g, "a graph attribute");
		break;
	default:
		/* lists */
		if (c && !a->u.ints) {
			werr(w, "node %s: attribute %s has %u entries and no "
			     "array", wshow(w, n->kind), wshow(w, name), c);
			break;
		}
		warray(w, c);
		for (uint32_t i = 0; i < c && !w->failed; i++) {
			switch (a->kind) {
			case IR_ATTR_INTS:
				wint(w, a->u.ints[i]);
				break;
			case IR_ATTR_FLOATS:
				msgpack_pack_double(&w->pk, a->u.floats[i]);
				break;
			case IR_ATTR_STRINGS:
				wbin(w, a->u.strings[i].data,
				     a->u.strings[i].len);
				break;
			case IR_ATTR_TENSORS:
				write_tensor(w, a->u.tensors[i],
					     "a tensor attribute");
				break;
			default:
				write_block(w, a->u.graphs[i],
					    "a graph attribute");
				break;
			}
		}
		wend(w);
		break;
	}
	wend(w);
}

static void write_node(struct writer *w, const struct ir_node *n)
{
	struct ir_bytes body;
	uint32_t ne;

	if (!n->kind || !*n->kind) {
		werr(w, "a node without a kind");
		return;
	}
	ne = extra_count(w, &n->extra, &body, "a node");
	wmap(w, 6 + (n->name != NULL) + (n->scope != NULL) +
	     (n->source != NULL) + (n->doc != NULL) + ne);
	wkv(w, "r", "node");
	wkv(w, "kind", n->kind);
	wstr(w, "inputs");
	warray(w, n->ninputs);
	for (uint32_t i = 0; i < n->ninputs; i++) {
		const struct ir_value *v = n->inputs[i];
		if (!v)
			msgpack_pack_nil(&w->pk);
		else if (!v->name || !*v->name)
			werr(w, "node %s: input %u has no name",
			     wshow(w, n->kind), i);
		else
			wstr(w, v->name);
	}
	wend(w);
	wstr(w, "outputs");
	warray(w, n->noutputs);
	for (uint32_t i = 0; i < n->noutputs; i++) {
		if (!n->outputs[i])
			werr(w, "node %s: output %u is not set",
			     wshow(w, n->kind), i);
		write_value(w, n->outputs[i], "a node output");
	}
	wend(w);
	wstr(w, "attrs");
	warray(w, n->nattrs);
	for (uint32_t i = 0; i < n->nattrs; i++)
		write_attr(w, n, &n->attrs[i]);
	wend(w);
	wstr(w, "blocks");
	warray(w, n->nblocks);
	for (uint32_t i = 0; i < n->nblocks; i++)
		write_block(w, n->blocks[i], "a nested block");
	wend(w);
	if (n->name)
		wkv(w, "name", n->name);
	if (n->scope)
		wkv(w, "scope", n->scope);
	if (n->source)
		wkv(w, "source", n->source);
	if (n->doc)
		wkv(w, "doc", n->doc);
	if (ne)
		write_cb(w, body.data, body.len);
	wend(w);
}

/* Records of unknown kind in the order they are written. */
struct raw_pos {
	const struct ir_raw_record *rr;
	uint32_t order;
};

static int raw_cmp(const void *a, const void *b)
{
	const struct raw_pos *x = a, *y = b;
	unsigned sx = (unsigned)x->rr->section, sy = (unsigned)y->rr->section;

	if (sx != sy)
		return sx < sy ? -1 : 1;
	if (x->rr->index != y->rr->index)
		return x->rr->index < y->rr->index ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

struct raws {
	struct raw_pos *v;
	uint32_t n, at;
};

/* Writes the unknown records due before item `index` of `section`
 * (UINT32_MAX: all those left in it and in earlier sections). */
static void flush_raws(struct writer *w, struct raws *rs, unsigned section,
		       uint32_t index)
{
	while (rs->at < rs->n && !w->failed) {
		const struct ir_raw_record *rr = rs->v[rs->at].rr;
		if ((unsigned)rr->section > section ||
		    ((unsigned)rr->section == section && rr->index > index))
			break;
		write_raw_record(w, &rr->bytes);
		rs->at++;
	}
}

int ir_write_binary(const struct ir_graph *g, FILE *fp, struct diag *d)
{
	struct writer w;
	struct raws rs = { NULL, 0, 0 };
	const struct ir_raw_record *rr;
	const struct ir_weight *x;
	struct ir_bytes body;
	uint32_t ne, i;

	memset(&w, 0, sizeof(w));
	w.fp = fp;
	w.d = d;
	msgpack_packer_init(&w.pk, &w, write_cb);
	if (!g || !g->top) {
		werr(&w, "no graph");
		return -1;
	}
	for (rr = g->unknown; rr; rr = rr->next)
		rs.n++;
	if (rs.n) {
		rs.v = xmalloc(sizeof(*rs.v) * rs.n);
		for (i = 0, rr = g->unknown; rr; rr = rr->next, i++) {
			rs.v[i].rr = rr;
			rs.v[i].order = i;
		}
		qsort(rs.v, rs.n, sizeof(*rs.v), raw_cmp);
	}

	/* header */
	ne = extra_count(&w, &g->header_extra, &body, "the header");
	wmap(&w, 2 + (g->producer != NULL) + ne);
	wstr(&w, "pt2onnx-ir");
	warray(&w, 2);
	wint(&w, IR_FORMAT_MAJOR);
	wint(&w, IR_FORMAT_MINOR);
	wend(&w);
	wkv(&w, "level", g->level == IR_LEVEL_ONNX ? "onnx" : "aten");
	if (g->producer)
		wkv(&w, "producer", g->producer);
	if (ne)
		write_cb(&w, body.data, body.len);
	wend(&w);
	flush_raws(&w, &rs, IR_RAW_HEAD, UINT32_MAX);

	/* graph */
	ne = extra_count(&w, &g->extra, &body, "the graph record");
	wmap(&w, 3 + (g->name != NULL) + (g->doc != NULL) + ne);
	wkv(&w, "r", "graph");
	if (g->name)
		wkv(&w, "name", g->name);
	if (g->doc)
		wkv(&w, "doc", g->doc);
	wstr(&w, "opsets");
	warray(&w, g->nopsets);
	for (i = 0; i < g->nopsets; i++) {
		warray(&w, 2);
		wstr(&w, g->opsets[i].domain ? g->opsets[i].domain : "");
		wint(&w, g->opsets[i].version);
		wend(&w);
	}
	wend(&w);
	wstr(&w, "props");
	warray(&w, g->nprops);
	for (i = 0; i < g->nprops; i++) {
		warray(&w, 2);
		wstr(&w, g->props[i].key ? g->props[i].key : "");
		wstr(&w, g->props[i].value ? g->props[i].value : "");
		wend(&w);
	}
	wend(&w);
	if (ne)
		write_cb(&w, body.data, body.len);
	wend(&w);

	/* weights */
	for (i = 0, x = g->weights; x && !w.failed; x = x->next, i++) {
		const char *name = x->value ? x->value->name : NULL;
		flush_raws(&w, &rs, IR_RAW_WEIGHTS, i);
		if (!name || !*name) {
			werr(&w, "weight %u has no name", i);
			break;
		}
		ne = extra_count(&w, &x->extra, &body, "a weight");
		wmap(&w, 3 + ne);
		wkv(&w, "r", "weight");
		wkv(&w, "name", name);
		wstr(&w, "tensor");
		write_tensor(&w, x->tensor, wshow(&w, name));
		if (ne)
			write_cb(&w, body.data, body.len);
		wend(&w);
	}
	flush_raws(&w, &rs, IR_RAW_WEIGHTS, UINT32_MAX);

	/* inputs */
	for (i = 0; i < g->top->nparams && !w.failed; i++) {
		flush_raws(&w, &rs, IR_RAW_INPUTS, i);
		wmap(&w, 2);
		wkv(&w, "r", "input");
		wstr(&w, "value");
		write_value(&w, g->top->params[i], "a graph input");
		wend(&w);
	}
	flush_raws(&w, &rs, IR_RAW_INPUTS, UINT32_MAX);

	/* nodes */
	i = 0;
	for (const struct ir_node *n = g->top->first; n && !w.failed;
	     n = n->next, i++) {
		flush_raws(&w, &rs, IR_RAW_NODES, i);
		write_node(&w, n);
	}
	flush_raws(&w, &rs, IR_RAW_NODES, UINT32_MAX);

	/* outputs */
	for (i = 0; i < g->top->nreturns && !w.failed; i++) {
		const struct ir_value *v = g->top->returns[i];
		flush_raws(&w, &rs, IR_RAW_OUTPUTS, i);
		if (!v || !v->name) {
			werr(&w, "graph output %u is not set", i);
			break;
		}
		wmap(&w, 2);
		wkv(&w, "r", "output");
		wkv(&w, "name", v->name);
		wend(&w);
	}
	flush_raws(&w, &rs, UINT32_MAX, UINT32_MAX);

	wmap(&w, 1);
	wkv(&w, "r", "end");
	wend(&w);
	free(rs.v);

	if (w.failed)
		return -1;
	if (!w.io_error && fflush(fp) == EOF) {
		w.io_error = 1;
		w.saved_errno = errno;
	}
	if (w.io_error || ferror(fp)) {
		diag_error(d, "write error: %s",
			   strerror(w.io_error ? w.saved_errno : EIO));
		return -1;
	}
	return 0;
}

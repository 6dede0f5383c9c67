/*
 * onnx_read.c - loading .onnx files with protobuf-c (see onnx_read.h).
 *
 * A plain file is mapped (no copy through read()) and read lazily:
 * protobuf-c copies every bytes field it unpacks, so before it sees the
 * file, a copy of the wire format is made in which each TensorProto
 * raw_data of LAZY_MIN bytes and more is a 16-byte marker (a per-process
 * random magic and an index); after unpacking, those tensors' raw_data
 * point into the mapping, which stays until onnx_model_free() (which puts
 * protobuf-c's own buffers back before freeing).  The weights are thus
 * never copied, and their pages are read only by what looks at them: a
 * check of a model of gigabytes stays at megabytes of RSS.  Pipes (and
 * onnx_read_mem) are read into memory and unpacked whole, at about twice
 * their size.  A file cut short by someone else while it is mapped would
 * end the process with SIGBUS: check reads models, it does not share them.  Before unpacking, a walk over the wire format follows the message
 * fields (found through protobuf-c's descriptors) and refuses nesting deeper
 * than ONNX_READ_MAX_DEPTH, so that a hostile file cannot exhaust the stack
 * in protobuf-c's recursive parser or in the recursive passes after it.
 */
#include "onnx_read.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "arena.h"

/* Reads a varint at *pos; 0 when truncated or too long. */
static int read_varint(const uint8_t *p, size_t len, size_t *pos,
		       uint64_t *v)
{
	uint64_t x = 0;
	for (int shift = 0; shift < 64; shift += 7) {
		if (*pos >= len)
			return 0;
		uint8_t b = p[(*pos)++];
		x |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = x;
			return 1;
		}
	}
	return 0;
}

/* 0 when the message in p[0..len) nests deeper than the limit; 1 otherwise
 * (including malformed input, which protobuf-c reports itself). */
static int depth_ok(const uint8_t *p, size_t len,
		    const ProtobufCMessageDescriptor *desc, int depth)
{
	if (depth > ONNX_READ_MAX_DEPTH)
		return 0;
	size_t pos = 0;
	while (pos < len) {
		uint64_t key, n;
		if (!read_varint(p, len, &pos, &key))
			return 1;
		switch (key & 7) {
		case 0:
			if (!read_varint(p, len, &pos, &n))
				return 1;
			break;
		case 1:
			if (len - pos < 8)
				return 1;
			pos += 8;
			break;
		case 5:
			if (len - pos < 4)
				return 1;
			pos += 4;
			break;
		case 2: {
			if (!read_varint(p, len, &pos, &n) || n > len - pos)
				return 1;
			uint64_t fn = key >> 3;
			const ProtobufCFieldDescriptor *f =
				fn <= UINT32_MAX ?
				protobuf_c_message_descriptor_get_field(
					desc, (unsigned)fn) : NULL;
			if (f && f->type == PROTOBUF_C_TYPE_MESSAGE &&
			    !depth_ok(p + pos, (size_t)n, f->descriptor,
				      depth + 1))
				return 0;
			pos += (size_t)n;
			break;
		}
		default:
			return 1; /* groups and bad wire types: unpack decides */
		}
	}
	return 1;
}

int onnx_read_mem(const void *buf, size_t len, Onnx__ModelProto **out,
		  struct diag *d)
{
	*out = NULL;
	if (len == 0) {
		diag_error(d, "not an ONNX model (empty file)");
		return ONNX_READ_MALFORMED;
	}
	if (!depth_ok(buf, len, &onnx__model_proto__descriptor, 0)) {
		diag_error(d, "not an ONNX model (messages nested deeper than "
			   "%d levels)", ONNX_READ_MAX_DEPTH);
		return ONNX_READ_MALFORMED;
	}
	Onnx__ModelProto *m = onnx__model_proto__unpack(NULL, len, buf);
	if (!m) {
		diag_error(d, "not an ONNX model (protobuf parse failed: "
			   "truncated or not protobuf)");
		return ONNX_READ_MALFORMED;
	}
	/* any bytes parse as some protobuf with luck; a model has at least
	 * one of these */
	if (!m->has_ir_version && !m->graph && !m->n_opset_import) {
		onnx__model_proto__free_unpacked(m, NULL);
		diag_error(d, "not an ONNX model (no ir_version, opset_import "
			   "or graph)");
		return ONNX_READ_MALFORMED;
	}
	*out = m;
	return ONNX_READ_OK;
}

/* --- lazy raw_data ---------------------------------------------------------- */

#define LAZY_MIN 4096 /* raw_data of this many bytes and more stays mapped */
#define LAZY_MARK 16  /* bytes of a marker: magic, then a 64-bit index */

struct lazy_patch {
	Onnx__TensorProto *t;
	uint8_t *orig;           /* protobuf-c's copy of the marker */
};

/* A model read lazily: its mapping and the raw_data pointing into it. */
struct lazy {
	Onnx__ModelProto *m;
	void *map;
	size_t maplen;
	uint64_t *off, *len;     /* the stripped raw_data, by index */
	size_t n, cap;
	struct lazy_patch *patch;
	size_t npatch, patchcap;
	struct lazy *next;
};

static struct lazy *lazies; /* models still to be freed */
static uint8_t magic[8];
static int have_magic;

struct obuf {
	uint8_t *b;
	size_t len, cap;
};

static void oput(struct obuf *o, const void *p, size_t n)
{
	if (o->cap - o->len < n) {
		size_t cap = o->cap ? o->cap : 4096;
		while (cap - o->len < n)
			cap *= 2;
		o->b = xrealloc(o->b, cap);
		o->cap = cap;
	}
	if (n)
		memcpy(o->b + o->len, p, n);
	o->len += n;
}

static void oput_varint(struct obuf *o, uint64_t v)
{
	uint8_t b[10];
	size_t n = 0;
	while (v >= 0x80) {
		b[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	b[n++] = (uint8_t)v;
	oput(o, b, n);
}

/* Copies the message p[0..len) (of type desc) to o with large raw_data
 * fields of tensors replaced by markers.  Malformed bytes are copied as
 * they are, for protobuf-c to refuse.  Nesting is bounded by depth_ok(),
 * which has passed on the same bytes. */
static void strip(struct lazy *z, const uint8_t *base, const uint8_t *p,
		  size_t len, const ProtobufCMessageDescriptor *desc,
		  struct obuf *o)
{
	size_t pos = 0;
	while (pos < len) {
		size_t at = pos;
		uint64_t key, n;
		if (!read_varint(p, len, &pos, &key) || (key & 7) != 2 ||
		    !read_varint(p, len, &pos, &n) || n > len - pos) {
			/* not a length-delimited field: copy the rest up to
			 * the next field the simple way */
			pos = at;
			if (!read_varint(p, len, &pos, &key)) {
				oput(o, p + at, len - at); /* as it is */
				break;
			}
			switch (key & 7) {
			case 0:
				if (!read_varint(p, len, &pos, &n))
					pos = len;
				break;
			case 1:
				pos = len - pos < 8 ? len : pos + 8;
				break;
			case 5:
				pos = len - pos < 4 ? len : pos + 4;
				break;
			default:
				pos = len;
			}
			oput(o, p + at, pos - at);
			continue;
		}
		uint64_t fn = key >> 3;
		const ProtobufCFieldDescriptor *f =
			fn <= UINT32_MAX ? protobuf_c_message_descriptor_get_field(
				desc, (unsigned)fn) : NULL;
		if (desc == &onnx__tensor_proto__descriptor && fn == 9 &&
		    n >= LAZY_MIN) {
			uint8_t mark[LAZY_MARK];
			uint64_t idx = z->n;
			if (z->n == z->cap) {
				z->cap = z->cap ? 2 * z->cap : 64;
				z->off = xrealloc(z->off, z->cap * sizeof(*z->off));
				z->len = xrealloc(z->len, z->cap * sizeof(*z->len));
			}
			z->off[z->n] = (uint64_t)(p + pos - base);
			z->len[z->n++] = n;
			memcpy(mark, magic, 8);
			memcpy(mark + 8, &idx, 8);
			oput_varint(o, key);
			oput_varint(o, LAZY_MARK);
			oput(o, mark, LAZY_MARK);
		} else if (f && f->type == PROTOBUF_C_TYPE_MESSAGE) {
			struct obuf c = { 0 };
			strip(z, base, p + pos, (size_t)n, f->descriptor, &c);
			oput_varint(o, key);
			oput_varint(o, c.len);
			oput(o, c.b, c.len);
			free(c.b);
		} else {
			oput(o, p + at, pos - at + (size_t)n);
		}
		pos += (size_t)n;
	}
}

/* Points the marked raw_data of every tensor under msg into the mapping. */
static void unmark(struct lazy *z, ProtobufCMessage *msg)
{
	const ProtobufCMessageDescriptor *desc = msg->descriptor;

	if (desc == &onnx__tensor_proto__descriptor) {
		Onnx__TensorProto *t = (Onnx__TensorProto *)msg;
		uint64_t idx;
		if (t->has_raw_data && t->raw_data.len == LAZY_MARK &&
		    !memcmp(t->raw_data.data, magic, 8)) {
			memcpy(&idx, t->raw_data.data + 8, 8);
			if (idx < z->n) {
				if (z->npatch == z->patchcap) {
					z->patchcap = z->patchcap ?
						2 * z->patchcap : 64;
					z->patch = xrealloc(z->patch,
						z->patchcap * sizeof(*z->patch));
				}
				z->patch[z->npatch].t = t;
				z->patch[z->npatch++].orig = t->raw_data.data;
				t->raw_data.data = (uint8_t *)z->map + z->off[idx];
				t->raw_data.len = (size_t)z->len[idx];
			}
		}
	}
	for (unsigned i = 0; i < desc->n_fields; i++) {
		const ProtobufCFieldDescriptor *f = &desc->fields[i];
		char *at = (char *)msg + f->offset;
		if (f->type != PROTOBUF_C_TYPE_MESSAGE)
			continue;
		if ((f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) &&
		    *(uint32_t *)((char *)msg + f->quantifier_offset) != f->id)
			continue;
		if (f->label == PROTOBUF_C_LABEL_REPEATED) {
			size_t n = *(size_t *)((char *)msg + f->quantifier_offset);
			ProtobufCMessage **a = *(ProtobufCMessage ***)at;
			for (size_t k = 0; k < n; k++)
				if (a[k])
					unmark(z, a[k]);
		} else if (*(ProtobufCMessage **)at) {
			unmark(z, *(ProtobufCMessage **)at);
		}
	}
}

static void lazy_free(struct lazy *z)
{
	for (size_t i = 0; i < z->npatch; i++) {
		z->patch[i].t->raw_data.data = z->patch[i].orig;
		z->patch[i].t->raw_data.len = LAZY_MARK;
	}
	if (z->m)
		onnx__model_proto__free_unpacked(z->m, NULL);
	munmap(z->map, z->maplen);
	free(z->off);
	free(z->len);
	free(z->patch);
	free(z);
}

/* Unpacks the mapped file map[0..len) lazily (see the top). */
static int read_lazy(void *map, size_t len, Onnx__ModelProto **out,
		     struct diag *d)
{
	struct lazy *z = xcalloc(1, sizeof(*z));
	struct obuf o = { 0 };
	int r;

	if (!have_magic) {
		if (getrandom(magic, sizeof(magic), 0) != sizeof(magic)) {
			uint64_t v = (uint64_t)time(NULL) * 0x9e3779b97f4a7c15u ^
				     (uint64_t)getpid() ^ (uint64_t)(uintptr_t)z;
			memcpy(magic, &v, sizeof(v));
		}
		have_magic = 1;
	}
	z->map = map;
	z->maplen = len;
	if (!depth_ok(map, len, &onnx__model_proto__descriptor, 0)) {
		/* onnx_read_mem() says so */
		r = onnx_read_mem(map, len, out, d);
		munmap(map, len);
		free(z);
		return r;
	}
	strip(z, map, map, len, &onnx__model_proto__descriptor, &o);
	r = onnx_read_mem(o.b ? o.b : (uint8_t *)"", o.len, out, d);
	free(o.b);
	if (r != ONNX_READ_OK) {
		lazy_free(z);
		return r;
	}
	z->m = *out;
	unmark(z, &z->m->base);
	z->next = lazies;
	lazies = z;
	return r;
}

int onnx_read_file(const char *path, Onnx__ModelProto **out, struct diag *d)
{
	int fd = 0;
	*out = NULL;
	if (strcmp(path, "-")) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			diag_error(d, "cannot open: %s", strerror(errno));
			return ONNX_READ_IO;
		}
	}
	struct stat st;
	size_t cap = 1 << 16, len = 0;
	if (fstat(fd, &st) == 0) {
		if (S_ISDIR(st.st_mode)) {
			diag_error(d, "cannot read: %s", strerror(EISDIR));
			if (fd)
				close(fd);
			return ONNX_READ_IO;
		}
		if (S_ISREG(st.st_mode) && st.st_size > 0 &&
		    (uint64_t)st.st_size < SIZE_MAX) {
			void *map = mmap(NULL, (size_t)st.st_size, PROT_READ,
					 MAP_PRIVATE, fd, 0);
			if (map != MAP_FAILED) {
				if (fd)
					close(fd);
				return read_lazy(map, (size_t)st.st_size, out,
						 d);
			}
			cap = (size_t)st.st_size + 1;
		}
	}
	uint8_t *buf = xmalloc(cap);
	for (;;) {
		if (len == cap) {
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		ssize_t n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			diag_error(d, "cannot read: %s", strerror(errno));
			free(buf);
			if (fd)
				close(fd);
			return ONNX_READ_IO;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (fd)
		close(fd);
	int r = onnx_read_mem(buf, len, out, d);
	free(buf);
	return r;
}

void onnx_model_free(Onnx__ModelProto *m)
{
	if (!m)
		return;
	for (struct lazy **p = &lazies; *p; p = &(*p)->next) {
		if ((*p)->m == m) {
			struct lazy *z = *p;
			*p = z->next;
			lazy_free(z);
			return;
		}
	}
	onnx__model_proto__free_unpacked(m, NULL);
}

char *onnx_model_dir(const char *path)
{
	const char *slash = path && strcmp(path, "-") ? strrchr(path, '/')
						       : NULL;
	size_t n = slash ? (size_t)(slash - path + 1) : 0;
	char *dir = xmalloc(n + 1);
	memcpy(dir, path, n);
	dir[n] = 0;
	return dir;
}

int onnx_path_has_dotdot(const char *p)
{
	for (const char *s = p; (s = strstr(s, "..")); s += 2) {
		int start = s == p || s[-1] == '/' || s[-1] == '\\';
		int end = s[2] == 0 || s[2] == '/' || s[2] == '\\';
		if (start && end)
			return 1;
	}
	return 0;
}

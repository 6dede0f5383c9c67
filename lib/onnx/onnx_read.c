/*
 * onnx_read.c - loading .onnx files with protobuf-c (see onnx_read.h).
 *
 * The whole file is read into memory and unpacked; protobuf-c copies what
 * it keeps, so the buffer is freed at once and the peak is about twice the
 * file.  Before unpacking, a walk over the wire format follows the message
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
#include <sys/stat.h>
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
		if (S_ISREG(st.st_mode) && st.st_size > 0)
			cap = (size_t)st.st_size + 1;
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
	if (m)
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

/*
 * pb_stream.c - protobuf messages written as measured piece trees (see
 * pb_stream.h).  Measuring walks the tree once; writing walks it again,
 * emitting each sub-message's tag and length before its children.
 */
#include "pb_stream.h"

#include <string.h>

#define PB_WIRE_LEN 2 /* wire type of length-delimited fields */

size_t pb_varint_size(uint64_t v)
{
	size_t n = 1;
	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

size_t pb_varint_put(unsigned char *buf, uint64_t v)
{
	size_t n = 0;
	while (v >= 0x80) {
		buf[n++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	buf[n++] = (unsigned char)v;
	return n;
}

static size_t header_size(uint32_t field, uint64_t body)
{
	if (!field)
		return 0;
	return pb_varint_size((uint64_t)field << 3 | PB_WIRE_LEN) +
	       pb_varint_size(body);
}

static size_t header_put(unsigned char *buf, uint32_t field, uint64_t body)
{
	size_t n;
	if (!field)
		return 0;
	n = pb_varint_put(buf, (uint64_t)field << 3 | PB_WIRE_LEN);
	return n + pb_varint_put(buf + n, body);
}

struct pb_piece *pb_msg(struct arena *a, uint32_t field)
{
	struct pb_piece *p = arena_alloc(a, sizeof(*p));
	p->kind = PB_MSG;
	p->field = field;
	return p;
}

struct pb_piece *pb_bytes(struct arena *a, const void *buf, size_t len)
{
	struct pb_piece *p = arena_alloc(a, sizeof(*p));
	p->kind = PB_BYTES;
	p->bytes = buf;
	p->len = len;
	return p;
}

struct pb_piece *pb_packed(struct arena *a, uint32_t field,
			   const ProtobufCMessage *m)
{
	size_t body = protobuf_c_message_get_packed_size(m);
	size_t head = header_size(field, body);
	unsigned char *buf = arena_alloc(a, head + body);
	header_put(buf, field, body);
	if (protobuf_c_message_pack(m, buf + head) != body)
		BUG("protobuf-c packed a different size than it measured");
	return pb_bytes(a, buf, head + body);
}

struct pb_piece *pb_data(struct arena *a, uint32_t field,
			 const struct ir_tensor *t, const char *what)
{
	struct pb_piece *p = arena_alloc(a, sizeof(*p));
	p->kind = PB_DATA;
	p->field = field;
	p->tensor = t;
	p->what = what;
	p->body = tensor_data_size(t);
	return p;
}

void pb_append(struct pb_piece *msg, struct pb_piece *child)
{
	child->next = NULL;
	if (msg->last)
		msg->last->next = child;
	else
		msg->first = child;
	msg->last = child;
}

uint64_t pb_measure(struct pb_piece *p)
{
	switch (p->kind) {
	case PB_BYTES:
		return p->len;
	case PB_DATA:
		return header_size(p->field, p->body) + p->body;
	case PB_MSG:
		p->body = 0;
		for (struct pb_piece *c = p->first; c; c = c->next)
			p->body += pb_measure(c);
		return header_size(p->field, p->body) + p->body;
	}
	BUG("unknown piece kind %d", (int)p->kind);
}

int pb_write(const struct pb_piece *p, struct tensor_reader *r,
	     struct outfile *out, struct diag *d)
{
	unsigned char head[24];
	size_t n;
	int rc;

	switch (p->kind) {
	case PB_BYTES:
		return outfile_write(out, p->bytes, p->len, d) ? EXIT_IO : 0;
	case PB_DATA:
		n = header_put(head, p->field, p->body);
		if (outfile_write(out, head, n, d))
			return EXIT_IO;
		return tensor_data_copy(r, p->tensor, p->what, out, d);
	case PB_MSG:
		n = header_put(head, p->field, p->body);
		if (n && outfile_write(out, head, n, d))
			return EXIT_IO;
		for (const struct pb_piece *c = p->first; c; c = c->next)
			if ((rc = pb_write(c, r, out, d)))
				return rc;
		return 0;
	}
	BUG("unknown piece kind %d", (int)p->kind);
}

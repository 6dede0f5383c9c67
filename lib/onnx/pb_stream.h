/*
 * pb_stream.h - a protobuf message written as a tree of pieces whose sizes
 * are known before the first byte goes out, so that the bytes of large
 * fields (tensor data) can be streamed from their files instead of being
 * packed in memory.
 *
 * A piece is one of:
 *   PB_BYTES  bytes already encoded (fields packed with protobuf-c, with
 *             their tags): written as they are;
 *   PB_MSG    a length-delimited sub-message, field `field`, whose body is
 *             its children in order (field 0: the top-level message, no tag
 *             or length);
 *   PB_DATA   a bytes field `field` holding a tensor's raw data, copied by
 *             tensor_data_copy() when written.
 * Protobuf readers accept fields in any order and merge repeated ones, so a
 * message may be split into several pieces.
 *
 * Pieces live in the caller's arena and do not own what they point to.
 */
#ifndef PT2ONNX_PB_STREAM_H
#define PT2ONNX_PB_STREAM_H

#include <protobuf-c/protobuf-c.h>
#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "diag.h"
#include "ir.h"
#include "outfile.h"
#include "tensor_data.h"

enum pb_piece_kind {
	PB_BYTES = 0,
	PB_MSG,
	PB_DATA,
};

struct pb_piece {
	enum pb_piece_kind kind;
	uint32_t field;                 /* MSG, DATA: field number */
	const unsigned char *bytes;     /* BYTES */
	size_t len;                     /* BYTES */
	struct pb_piece *first, *last;  /* MSG: children */
	const struct ir_tensor *tensor; /* DATA */
	const char *what;               /* DATA: the tensor, for messages */
	uint64_t body;                  /* MSG, DATA: payload bytes (MSG: set
					   by pb_measure) */
	struct pb_piece *next;          /* sibling */
};

/* Size of v as a varint (1..10). */
size_t pb_varint_size(uint64_t v);
/* Encodes v into buf (10 bytes of room); returns the bytes used. */
size_t pb_varint_put(unsigned char *buf, uint64_t v);

/* Constructors; never NULL (the arena aborts when out of memory). */
struct pb_piece *pb_msg(struct arena *a, uint32_t field);
struct pb_piece *pb_bytes(struct arena *a, const void *buf, size_t len);
/* m packed with protobuf-c, as field `field` (tag and length before it),
 * or bare when field is 0. */
struct pb_piece *pb_packed(struct arena *a, uint32_t field,
			   const ProtobufCMessage *m);
/* A bytes field holding t's data (tensor_data_size(t) bytes). */
struct pb_piece *pb_data(struct arena *a, uint32_t field,
			 const struct ir_tensor *t, const char *what);
/* Appends child to msg's body. */
void pb_append(struct pb_piece *msg, struct pb_piece *child);

/* Encoded size of p, tag and length included; fills in MSG bodies. */
uint64_t pb_measure(struct pb_piece *p);
/* Writes p (measured) to out.  Returns 0 or an exit code after
 * reporting (see tensor_data.h). */
int pb_write(const struct pb_piece *p, struct tensor_reader *r,
	     struct outfile *out, struct diag *d);

#endif

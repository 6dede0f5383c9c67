/*
 * weight_bytes.h - the one reader of a weight's bytes: the extent a tensor
 * (inline or a reference into a file) spans given its dtype, dims and
 * strides, checked for negative strides and overflow; exact reads at an
 * offset; and the gather of a strided view into row-major order.  Trace's
 * interpreter, lower's scalar inlining, fold's constant reads and emit's
 * streaming all go through it; each keeps only its own message and its
 * own way of holding the bytes (a mapping, an arena, an output file).
 */
#ifndef PT2ONNX_WEIGHT_BYTES_H
#define PT2ONNX_WEIGHT_BYTES_H

#include <stddef.h>
#include <stdint.h>

#include "ir.h"

/* What went wrong; the caller words the message (errno is set for
 * WEIGHT_OPEN and WEIGHT_READ). */
enum weight_err {
	WEIGHT_OK = 0,
	WEIGHT_NO_SIZE,    /* the dtype has no fixed element size (string) */
	WEIGHT_NEG_STRIDE, /* a dimension over 1 has a negative stride */
	WEIGHT_OVERFLOW,   /* the extent does not fit in 64 bits */
	WEIGHT_OPEN,       /* the file cannot be opened */
	WEIGHT_READ,       /* a read failed */
	WEIGHT_SHORT,      /* the file ends before offset + length */
};

/* The strides of t's view, in elements: the reference's own, or NULL when
 * t is inline or its reference is contiguous by omission. */
const int64_t *weight_strides(const struct ir_tensor *t);

/* 1 when strides (rank entries, NULL: contiguous) are the row-major ones
 * of dims; dims of size 1 may have any stride. */
int weight_strides_contiguous(int rank, const int64_t *dims,
			      const int64_t *strides);
/* The same for t's view (an inline tensor is contiguous). */
int weight_contiguous(const struct ir_tensor *t);

/* Bytes from element 0 to the end of the last element t's view touches
 * (docs/ir.md's "length"): numel x size when contiguous, 0 when t has no
 * element. */
enum weight_err weight_span(const struct ir_tensor *t, uint64_t *bytes);

/* Exactly len bytes of fd at off into buf (EINTR retried). */
enum weight_err weight_pread(int fd, void *buf, size_t len, uint64_t off);

/* Exactly len bytes of `file` at off into buf: opens, reads, closes. */
enum weight_err weight_read(const char *file, uint64_t off, void *buf,
			    size_t len);

/* NULL when t's scale (a scaled view, docs/ir.md) is well formed or
 * absent, else what is wrong with it, for the caller's message: a scale
 * needs a Float tensor of rank 1 or more read contiguously (its dims[0]
 * factors were checked by the reader that made it). */
const char *weight_scale_problem(const struct ir_tensor *t, int level);

/* Applies t's scale (if any) to its numel elements in buf, row-major: each
 * is (float)((double)x * scale[index along dim 0]), the multiply fold's
 * BatchNormalization fusion made before views (bytes the same). */
void weight_scale_apply(const struct ir_tensor *t, void *buf);

/* The same for n elements of row `row` (an index along dim 0): one
 * factor for all of them. */
void weight_scale_row(float *dst, const float *src, uint64_t n, double s);

/* The elements of t's strided view whose element 0 is at src (its span
 * read whole) into dst, row-major and contiguous (numel x size bytes). */
void weight_gather(void *dst, const void *src, const struct ir_tensor *t);

#endif

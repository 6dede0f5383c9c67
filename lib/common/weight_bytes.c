/*
 * weight_bytes.c - the one reader of a weight's bytes (see weight_bytes.h).
 */
#include "weight_bytes.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "intmath.h"

const int64_t *weight_strides(const struct ir_tensor *t)
{
	return t->data_kind == IR_DATA_REF ? t->ref.strides : NULL;
}

int weight_strides_contiguous(int rank, const int64_t *dims,
			      const int64_t *strides)
{
	int64_t expect = 1;

	if (!strides)
		return 1;
	for (int i = rank - 1; i >= 0; i--) {
		if (dims[i] != 1 && strides[i] != expect)
			return 0;
		expect = i64_wrap_mul(expect, dims[i]);
	}
	return 1;
}

int weight_contiguous(const struct ir_tensor *t)
{
	return weight_strides_contiguous(t->rank, t->dims, weight_strides(t));
}

enum weight_err weight_span(const struct ir_tensor *t, uint64_t *bytes)
{
	const int64_t *st = weight_strides(t);
	uint64_t size = ir_dtype_size(t->dtype), n = 1, last = 0;

	*bytes = 0;
	if (!size)
		return WEIGHT_NO_SIZE;
	for (int i = 0; i < t->rank; i++)
		if (t->dims[i] <= 0)
			return WEIGHT_OK; /* no element */
	if (!st || weight_contiguous(t)) {
		for (int i = 0; i < t->rank; i++)
			if (__builtin_mul_overflow(n, (uint64_t)t->dims[i], &n))
				return WEIGHT_OVERFLOW;
		return __builtin_mul_overflow(n, size, bytes) ?
		       WEIGHT_OVERFLOW : WEIGHT_OK;
	}
	for (int i = 0; i < t->rank; i++) {
		uint64_t step;

		if (t->dims[i] <= 1)
			continue;
		if (st[i] < 0)
			return WEIGHT_NEG_STRIDE;
		if (__builtin_mul_overflow((uint64_t)(t->dims[i] - 1),
					   (uint64_t)st[i], &step) ||
		    __builtin_add_overflow(last, step, &last))
			return WEIGHT_OVERFLOW;
	}
	if (__builtin_add_overflow(last, 1, &last) ||
	    __builtin_mul_overflow(last, size, bytes))
		return WEIGHT_OVERFLOW;
	return WEIGHT_OK;
}

enum weight_err weight_pread(int fd, void *buf, size_t len, uint64_t off)
{
	size_t got = 0;

	while (got < len) {
		ssize_t k = pread(fd, (char *)buf + got, len - got,
				  (off_t)(off + got));
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return WEIGHT_READ;
		if (k == 0)
			return WEIGHT_SHORT;
		got += (size_t)k;
	}
	return WEIGHT_OK;
}

enum weight_err weight_read(const char *file, uint64_t off, void *buf,
			    size_t len)
{
	enum weight_err e;
	int fd = open(file, O_RDONLY | O_CLOEXEC), saved;

	if (fd < 0)
		return WEIGHT_OPEN;
	e = weight_pread(fd, buf, len, off);
	saved = errno;
	close(fd);
	errno = saved;
	return e;
}

void weight_gather(void *dst, const void *src, const struct ir_tensor *t)
{
	const int64_t *st = weight_strides(t);
	size_t es = ir_dtype_size(t->dtype);
	uint64_t n = ir_tensor_numel(t);

	if (!st) {
		memcpy(dst, src, (size_t)(n * es));
		return;
	}
	for (uint64_t i = 0; i < n; i++) {
		uint64_t rem = i, from = 0;

		for (int j = t->rank - 1; j >= 0; j--) {
			from += rem % (uint64_t)t->dims[j] * (uint64_t)st[j];
			rem /= (uint64_t)t->dims[j];
		}
		memcpy((char *)dst + i * es, (const char *)src + from * es,
		       es);
	}
}

const char *weight_scale_problem(const struct ir_tensor *t, int level)
{
	if (t->data_kind != IR_DATA_REF || !t->ref.scale)
		return NULL;
	if (level != IR_LEVEL_ONNX)
		return "a scaled view (\"scale\") in aten-level IR (only "
		       "fold writes one)";
	if (t->dtype != IR_DTYPE_FLOAT)
		return "a scaled view (\"scale\") of a tensor that is not "
		       "Float";
	if (t->rank < 1)
		return "a scaled view (\"scale\") of a scalar";
	if (!weight_contiguous(t))
		return "a scaled view (\"scale\") with strides";
	return NULL;
}

/* Eight lanes at a time (GCC's vector extensions: cvtps2pd, mulpd,
 * cvtpd2ps), each lane the scalar loop's own operations, so the bytes do
 * not depend on the lane; src may be dst, and need not be aligned. */
typedef float f32x8 __attribute__((vector_size(32)));
typedef double f64x8 __attribute__((vector_size(64)));

void weight_scale_row(float *dst, const float *src, uint64_t n, double s)
{
	uint64_t j = 0;

	for (; j + 8 <= n; j += 8) {
		f32x8 x, y;
		memcpy(&x, src + j, sizeof(x));
		y = __builtin_convertvector(__builtin_convertvector(x, f64x8) *
					    s, f32x8);
		memcpy(dst + j, &y, sizeof(y));
	}
	for (; j < n; j++) {
		float x; /* src may be misaligned (an archive's offset) */
		memcpy(&x, src + j, sizeof(x));
		dst[j] = (float)((double)x * s);
	}
}

void weight_scale_apply(const struct ir_tensor *t, void *buf)
{
	uint64_t n, per;

	if (t->data_kind != IR_DATA_REF || !t->ref.scale || t->rank < 1 ||
	    !(n = ir_tensor_numel(t)))
		return;
	per = n / (uint64_t)t->dims[0];
	for (int64_t i = 0; i < t->dims[0]; i++) {
		float *p = (float *)buf + (uint64_t)i * per;
		weight_scale_row(p, p, per, t->ref.scale[i]);
	}
}

/*
 * npy.c - numpy .npy files for `trace`: reading --input tensors and writing
 * --save-outputs (trace.h).  Format 1.0/2.0/3.0 headers, little-endian,
 * C order; the dtypes <f4 <f8 <f2 <i8 <i4 <i2 |i1 |u1 |b1.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "npy_header.h"
#include "trace.h"

struct gpu_tensor *npy_read(const char *path, const struct gpu_backend *be,
			    struct diag *d)
{
	FILE *f = fopen(path, "rb");
	struct npy_header h;
	void *buf = NULL;
	size_t need;
	const int64_t *dims = h.dims;
	int rank, i;
	enum ir_dtype dt;
	uint64_t span = 1;
	struct gpu_tensor *t = NULL;

	if (!f) {
		diag_error(d, "%s: cannot open: %s", path, strerror(errno));
		return NULL;
	}
	if (npy_header_read(f, path, &h, d))
		goto out;
	rank = h.rank;
	dt = h.dtype;
	if (rank > GPU_MAX_DIMS) {
		diag_error(d, "%s: more than %d dims", path, GPU_MAX_DIMS);
		goto out;
	}
	for (i = 0; i < rank; i++) {
		/* zeros aside, the dims' product must fit an int64 byte
		   count: strides multiply them even for an empty tensor */
		if (dims[i] > 1 && span > INT64_MAX / 16 / (uint64_t)dims[i]) {
			diag_error(d, "%s: .npy shape too large", path);
			goto out;
		}
		if (dims[i] > 1)
			span *= (uint64_t)dims[i];
	}
	if (npy_read_data(f, path, &h, &buf, &need, d))
		goto out;
	if (dt == IR_DTYPE_BOOL) {
		for (size_t k = 0; k < need; k++)
			((unsigned char *)buf)[k] = ((unsigned char *)buf)[k]
						    != 0;
	}
	t = gpu_empty(be, dt, rank, dims);
	if (!t) {
		diag_error(d, "%s: %s", path, gpu_last_error());
		goto out;
	}
	if (need && be->upload(t->storage->data, buf, need)) {
		diag_error(d, "%s: %s", path, gpu_last_error());
		gpu_free(t);
		t = NULL;
	}
out:
	free(buf);
	fclose(f);
	return t;
}

int npy_write(const char *path, const struct gpu_tensor *t, struct diag *d)
{
	char hdr[512], shape[256];
	size_t n = 0, hl, total, bytes;
	const char *descr = NULL;
	void *buf;
	FILE *f;
	int ok;

	descr = ir_dtype_npy_code(t->dtype);
	if (!descr)
		return diag_error(d, "%s: dtype %s has no .npy form", path,
				  ir_dtype_torch_name(t->dtype));
	shape[0] = 0;
	for (int k = 0; k < t->rank; k++)
		n += (size_t)snprintf(shape + n, sizeof(shape) - n, "%lld,%s",
				      (long long)t->dims[k],
				      k + 1 < t->rank ? " " : "");
	if (t->rank > 1)
		shape[n - 1] = 0; /* "(2, 3)" not "(2, 3,)" */
	hl = (size_t)snprintf(hdr, sizeof(hdr),
			      "{'descr': '%c%s', 'fortran_order': False, "
			      "'shape': (%s), }", descr[0] == 'b' ||
			      descr[1] == '1' ? '|' : '<', descr, shape);
	/* pad with spaces so that the data starts 64-byte aligned */
	total = 10 + hl + 1;
	while (total % 64)
		total++, hdr[hl++] = ' ';
	hdr[hl++] = '\n';
	bytes = (size_t)gpu_numel(t) * ir_dtype_size(t->dtype);
	buf = malloc(bytes ? bytes : 1);
	if (!buf)
		return diag_error(d, "%s: out of memory", path);
	if (gpu_to_host(t, IR_DTYPE_UNDEFINED, buf)) {
		free(buf);
		return diag_error(d, "%s: %s", path, gpu_last_error());
	}
	f = fopen(path, "wb");
	if (!f) {
		free(buf);
		return diag_error(d, "%s: cannot create: %s", path,
				  strerror(errno));
	}
	ok = fwrite("\x93NUMPY\x01\x00", 1, 8, f) == 8;
	ok = ok && fputc((int)(hl & 0xff), f) != EOF &&
	     fputc((int)(hl >> 8), f) != EOF;
	ok = ok && fwrite(hdr, 1, hl, f) == hl;
	ok = ok && fwrite(buf, 1, bytes, f) == bytes;
	free(buf);
	if (fclose(f) != 0)
		ok = 0;
	if (!ok) {
		remove(path);
		return diag_error(d, "%s: write failed: %s", path,
				  strerror(errno));
	}
	return 0;
}

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

#include "trace.h"

#define NPY_MAX_HEADER (1 << 20)

/* The value of 'key' in a header dict: a pointer just after its colon. */
static const char *npy_key(const char *h, const char *key)
{
	char q1[32], q2[32];
	const char *p;

	snprintf(q1, sizeof(q1), "'%s'", key);
	snprintf(q2, sizeof(q2), "\"%s\"", key);
	p = strstr(h, q1);
	if (!p)
		p = strstr(h, q2);
	if (!p)
		return NULL;
	p += strlen(q1);
	while (*p == ' ')
		p++;
	if (*p != ':')
		return NULL;
	p++;
	while (*p == ' ')
		p++;
	return p;
}

static int npy_parse_header(const char *path, const char *h,
			    enum ir_dtype *dt, int *rank, int64_t *dims,
			    struct diag *d)
{
	const char *p = npy_key(h, "descr"), *e;
	char descr[16];
	size_t n;

	if (!p || (*p != '\'' && *p != '"'))
		return diag_error(d, "%s: .npy header has no 'descr'", path);
	e = strchr(p + 1, *p);
	if (!e || (size_t)(e - p - 1) >= sizeof(descr))
		return diag_error(d, "%s: bad 'descr' in .npy header", path);
	n = (size_t)(e - p - 1);
	memcpy(descr, p + 1, n);
	descr[n] = 0;
	*dt = ir_dtype_from_npy(descr);
	if (*dt == IR_DTYPE_UNDEFINED)
		return diag_error(d, "%s: unsupported .npy dtype '%s' (little-"
				  "endian f4 f8 f2 i8 i4 i2 i1 u1 b1)", path,
				  descr);
	p = npy_key(h, "fortran_order");
	if (!p || (strncmp(p, "False", 5) && strncmp(p, "True", 4)))
		return diag_error(d, "%s: bad 'fortran_order' in .npy header",
				  path);
	if (!strncmp(p, "True", 4))
		return diag_error(d, "%s: Fortran-order .npy files are not "
				  "supported", path);
	p = npy_key(h, "shape");
	if (!p || *p != '(')
		return diag_error(d, "%s: bad 'shape' in .npy header", path);
	p++;
	*rank = 0;
	for (;;) {
		char *end;
		long long v;

		while (*p == ' ')
			p++;
		if (*p == ')')
			break;
		if (!isdigit((unsigned char)*p))
			return diag_error(d, "%s: bad 'shape' in .npy header",
					  path);
		errno = 0;
		v = strtoll(p, &end, 10);
		if (errno || v < 0)
			return diag_error(d, "%s: bad dim in .npy shape", path);
		if (*rank >= GPU_MAX_DIMS)
			return diag_error(d, "%s: more than %d dims", path,
					  GPU_MAX_DIMS);
		dims[(*rank)++] = v;
		p = end;
		while (*p == ' ')
			p++;
		if (*p == ',')
			p++;
		else if (*p != ')')
			return diag_error(d, "%s: bad 'shape' in .npy header",
					  path);
	}
	return 0;
}

struct gpu_tensor *npy_read(const char *path, const struct gpu_backend *be,
			    struct diag *d)
{
	FILE *f = fopen(path, "rb");
	unsigned char magic[8], len[4];
	char *hdr = NULL;
	void *buf = NULL;
	size_t hl, need, esz;
	int64_t dims[GPU_MAX_DIMS];
	int rank = 0, i;
	enum ir_dtype dt = IR_DTYPE_UNDEFINED;
	uint64_t numel = 1, span = 1;
	struct gpu_tensor *t = NULL;

	if (!f) {
		diag_error(d, "%s: cannot open: %s", path, strerror(errno));
		return NULL;
	}
	if (fread(magic, 1, 8, f) != 8 || memcmp(magic, "\x93NUMPY", 6)) {
		diag_error(d, "%s: not a .npy file", path);
		goto out;
	}
	if (magic[6] == 1) {
		if (fread(len, 1, 2, f) != 2)
			goto trunc;
		hl = len[0] | (size_t)len[1] << 8;
	} else if (magic[6] == 2 || magic[6] == 3) {
		if (fread(len, 1, 4, f) != 4)
			goto trunc;
		hl = len[0] | (size_t)len[1] << 8 | (size_t)len[2] << 16 |
		     (size_t)len[3] << 24;
	} else {
		diag_error(d, "%s: unsupported .npy version %d.%d", path,
			   magic[6], magic[7]);
		goto out;
	}
	if (hl > NPY_MAX_HEADER) {
		diag_error(d, "%s: .npy header too long", path);
		goto out;
	}
	hdr = malloc(hl + 1);
	if (!hdr) {
		diag_error(d, "%s: out of memory", path);
		goto out;
	}
	if (fread(hdr, 1, hl, f) != hl)
		goto trunc;
	hdr[hl] = 0;
	if (npy_parse_header(path, hdr, &dt, &rank, dims, d))
		goto out;
	for (i = 0; i < rank; i++) {
		/* zeros aside, the dims' product must fit an int64 byte
		   count: strides multiply them even for an empty tensor */
		if (dims[i] > 1 && span > INT64_MAX / 16 / (uint64_t)dims[i]) {
			diag_error(d, "%s: .npy shape too large", path);
			goto out;
		}
		if (dims[i] > 1)
			span *= (uint64_t)dims[i];
		numel *= (uint64_t)dims[i];
	}
	esz = ir_dtype_size(dt);
	need = (size_t)numel * esz;
	{
		/* a shape the file cannot hold: no allocation for it */
		struct stat st;
		long pos = ftell(f);

		if (pos >= 0 && !fstat(fileno(f), &st) && S_ISREG(st.st_mode) &&
		    (uint64_t)st.st_size - (uint64_t)pos < need)
			goto trunc;
	}
	buf = malloc(need ? need : 1);
	if (!buf) {
		diag_error(d, "%s: out of memory for %zu bytes", path, need);
		goto out;
	}
	if (fread(buf, 1, need, f) != need)
		goto trunc;
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
	goto out;
trunc:
	diag_error(d, "%s: truncated .npy file", path);
out:
	free(buf);
	free(hdr);
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

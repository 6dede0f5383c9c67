/*
 * npy_header.c - reads a .npy file's header (npy_header.h): magic, format
 * version, header length, and the dict's 'descr', 'fortran_order' and
 * 'shape'; and whole arrays (npy_load).
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "npy_header.h"

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
		if (*rank >= NPY_MAX_DIMS)
			return diag_error(d, "%s: more than %d dims", path,
					  NPY_MAX_DIMS);
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

int npy_header_read(FILE *f, const char *path, struct npy_header *h,
		    struct diag *d)
{
	unsigned char magic[8], len[4];
	char *hdr;
	size_t hl;
	int rc;

	memset(h, 0, sizeof(*h));
	if (fread(magic, 1, 8, f) != 8 || memcmp(magic, "\x93NUMPY", 6))
		return diag_error(d, "%s: not a .npy file", path);
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
		return diag_error(d, "%s: unsupported .npy version %d.%d", path,
				  magic[6], magic[7]);
	}
	if (hl > NPY_MAX_HEADER)
		return diag_error(d, "%s: .npy header too long", path);
	hdr = malloc(hl + 1);
	if (!hdr)
		return diag_error(d, "%s: out of memory", path);
	if (fread(hdr, 1, hl, f) != hl) {
		free(hdr);
		goto trunc;
	}
	hdr[hl] = 0;
	rc = npy_parse_header(path, hdr, &h->dtype, &h->rank, h->dims, d);
	free(hdr);
	return rc;
trunc:
	return diag_error(d, "%s: truncated .npy file", path);
}

uint64_t npy_numel(const struct npy_header *h)
{
	uint64_t n = 1;

	for (int i = 0; i < h->rank; i++)
		n *= (uint64_t)h->dims[i];
	return n;
}

int npy_read_data(FILE *f, const char *path, const struct npy_header *h,
		  void **data, size_t *nbytes, struct diag *d)
{
	struct stat st;
	long pos = ftell(f);
	uint64_t need = 1;
	size_t esz = ir_dtype_size(h->dtype);

	*data = NULL;
	*nbytes = 0;
	for (int i = 0; i < h->rank; i++)
		if (__builtin_mul_overflow(need, (uint64_t)h->dims[i], &need))
			goto short_file;
	if (pos < 0 || fstat(fileno(f), &st) || !esz ||
	    __builtin_mul_overflow(need, esz, &need) ||
	    (S_ISREG(st.st_mode) &&
	     (uint64_t)st.st_size - (uint64_t)pos < need) ||
	    need > SIZE_MAX)
		goto short_file;
	*data = malloc(need ? (size_t)need : 1);
	if (!*data)
		return diag_error(d, "%s: out of memory for %llu bytes", path,
				  (unsigned long long)need);
	if (fread(*data, 1, (size_t)need, f) != (size_t)need) {
		free(*data);
		*data = NULL;
		goto short_file;
	}
	*nbytes = (size_t)need;
	return 0;
short_file:
	return diag_error(d, "%s: truncated .npy file", path);
}

int npy_load(const char *path, struct npy_array *a, struct diag *d)
{
	FILE *f = fopen(path, "rb");
	int rc;

	memset(a, 0, sizeof(*a));
	if (!f)
		return diag_error(d, "%s: cannot open: %s", path,
				  strerror(errno));
	rc = npy_header_read(f, path, &a->h, d) ? -1 :
	     npy_read_data(f, path, &a->h, &a->data, &a->nbytes, d);
	fclose(f);
	return rc;
}

void npy_array_free(struct npy_array *a)
{
	free(a->data);
	a->data = NULL;
	a->nbytes = 0;
}

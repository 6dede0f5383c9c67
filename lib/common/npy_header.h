/*
 * npy_header.h - the header of a numpy .npy file (format 1.0, 2.0 and 3.0,
 * little-endian or byte-wide dtypes, C order): the one reader behind
 * script's and trace's `--input NAME=FILE.npy` (script takes the dtype and
 * shape; trace reads the data after it, lib/trace/npy.c).
 */
#ifndef PT2ONNX_NPY_HEADER_H
#define PT2ONNX_NPY_HEADER_H

#include <stdint.h>
#include <stdio.h>

#include "diag.h"
#include "ir.h"

#define NPY_MAX_DIMS 64

struct npy_header {
	enum ir_dtype dtype;  /* ir_dtype_from_npy of 'descr' */
	int rank;
	int64_t dims[NPY_MAX_DIMS];
};

/* Reads the header of f, positioned at the file's start, and leaves f at
 * the first data byte.  path names the file in the one-line messages
 * ("PATH: not a .npy file", "PATH: truncated .npy file", ...).  0, or -1
 * after reporting. */
int npy_header_read(FILE *f, const char *path, struct npy_header *h,
		    struct diag *d);

/* A whole array in memory: a .npy file's (npy_load) or ONNX Runtime's
 * output (ort_dl.h).  data is malloc'd, nbytes long, C order. */
struct npy_array {
	struct npy_header h;
	void *data;
	size_t nbytes;
};

/* Elements of h's shape (1 for rank 0). */
uint64_t npy_numel(const struct npy_header *h);

/* Reads the data that follows h in f (npy_header_read left f there):
 * *data malloc'd, *nbytes long.  A file shorter than h's shape is refused
 * before anything is allocated.  0, or -1 after reporting. */
int npy_read_data(FILE *f, const char *path, const struct npy_header *h,
		  void **data, size_t *nbytes, struct diag *d);

/* Reads the .npy file at path, header and data (a file shorter than its
 * shape is refused).  0, or -1 after reporting. */
int npy_load(const char *path, struct npy_array *a, struct diag *d);

void npy_array_free(struct npy_array *a);

#endif

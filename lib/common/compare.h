/*
 * compare.h - are two arrays the same within a tolerance: pt2onnx --verify
 * compares ONNX Runtime's outputs of the exported model with trace's
 * outputs of the archive on the same inputs.
 *
 * The test is numpy.allclose's and torch.onnx.verification's:
 * |got - want| <= atol + rtol * |want| per element, NaN equal to NaN, an
 * infinity equal to the same infinity; integers and bools exactly.  The
 * dtypes and shapes must be the same.
 */
#ifndef PT2ONNX_COMPARE_H
#define PT2ONNX_COMPARE_H

#include <stdint.h>

#include "npy_header.h"

/* torch.onnx.verification.VerificationOptions' defaults (torch 1.13). */
#define COMPARE_RTOL 1e-3
#define COMPARE_ATOL 1e-7

struct compare_result {
	uint64_t n;       /* elements compared */
	uint64_t nbad;    /* elements outside the tolerance */
	uint64_t worst;   /* flat index of the largest |got - want| */
	double got, want; /* the values there */
	double max_abs;   /* that difference */
	char why[160];    /* when not close: one line saying why */
};

/* Compares got with want.  Returns 1 when close, 0 when not (r->why says
 * what differs: the dtype, the shape, or how many elements). */
int compare_arrays(const struct npy_array *got, const struct npy_array *want,
		   double rtol, double atol, struct compare_result *r);

#endif

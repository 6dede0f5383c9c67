/*
 * input_spec.h - the one parser of --input SPEC, shared by `script` and
 * `trace` (and through them pt2onnx): `x=f32[batch,3,224,224]`,
 * `f32[1,3]` (positional), `x=a.npy` or `a.npy`.  A dim is a number, a
 * name (a symbol: a dynamic axis), `?` or `*` (unknown); a tool that runs
 * the model (trace) asks for INPUT_SPEC_RUN: every dim then needs a size,
 * a name written `batch:4`.
 */
#ifndef PT2ONNX_INPUT_SPEC_H
#define PT2ONNX_INPUT_SPEC_H

#include <stdint.h>

#include "diag.h"
#include "ir.h"

#define INPUT_SPEC_RUN 1u /* dims need sizes: `name:SIZE`, no `?` */

struct input_spec {
	char *name;          /* NULL: positional */
	char *npy;           /* a .npy file, or NULL (then dtype and dims) */
	enum ir_dtype dtype;
	int rank;            /* 0 for `f32` or `f32[]` */
	int64_t *dims;       /* rank entries; -1: unknown; with a symbol,
				its size (RUN) or -1 */
	char **symbols;      /* rank entries, each a dim's name or NULL */
};

/* Parses spec into *in (released with input_spec_release even after an
 * error).  0, or -1 after reporting "--input 'SPEC': ..." to d; a spec of
 * more than max_rank dims is refused. */
int input_spec_parse(const char *spec, unsigned flags, int max_rank,
		     struct input_spec *in, struct diag *d);

/* The dims of a list `d0, d1, ...` closed by `close` (']' for a spec, ')'
 * for a .npy shape, where a trailing comma is allowed) at p, appended to
 * in (its rank counted from in->rank).  0, or -1 when the list is not
 * one (no report: the caller words it); -2 after reporting. */
int input_spec_dims(const char *p, char close, const char *spec,
		    unsigned flags, int max_rank, struct input_spec *in,
		    struct diag *d);

void input_spec_release(struct input_spec *in);

#endif

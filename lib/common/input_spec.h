/*
 * input_spec.h - the one parser of --input SPEC, shared by `script` and
 * `trace` (and through them pt2onnx): `x=f32[batch,3,224,224]`,
 * `f32[1,3]` (positional), `x=a.npy` or `a.npy`.  A dim is a number, a
 * name (a symbol: a dynamic axis), `?` or `*` (unknown); a tool that runs
 * the model (trace) asks for INPUT_SPEC_RUN: every dim then needs a size,
 * a name written `batch:4`.
 *
 * The arguments torch.onnx.export takes besides tensors: a tuple
 * `hx=(f32[1,2,3],f32[1,2,3])`, a list `xs=[f32[2],f32[2]]` (nested, items
 * any of these, `.npy` files too), a number `n=3`, `f=0.5` (or
 * `n=int:3`, `f=float:0.5`), a bool `b=true` (`bool:true`) and None
 * (`none`).  A tuple or list is flattened into graph inputs, one a tensor
 * leaf, named INPUT_SPEC_ITEM_NAME (`hx.0`, `hx.1`, nested `hx.0.1`), as
 * torch.onnx.export flattens them; numbers, bools and None are constants.
 */
#ifndef PT2ONNX_INPUT_SPEC_H
#define PT2ONNX_INPUT_SPEC_H

#include <stdint.h>

#include "diag.h"
#include "ir.h"

#define INPUT_SPEC_RUN 1u /* dims need sizes: `name:SIZE`, no `?` */

/* The name of item i of a tuple or list argument named NAME. */
#define INPUT_SPEC_ITEM_NAME "%s.%d"
#define INPUT_SPEC_MAX_DEPTH 16 /* tuples in lists in tuples ... */

enum input_spec_kind {
	INPUT_SPEC_TENSOR = 0, /* npy, or dtype and dims */
	INPUT_SPEC_TUPLE,      /* items */
	INPUT_SPEC_LIST,       /* items */
	INPUT_SPEC_INT,        /* ival */
	INPUT_SPEC_FLOAT,      /* fval */
	INPUT_SPEC_BOOL,       /* ival, 0 or 1 */
	INPUT_SPEC_NONE,
};

struct input_spec {
	char *name;          /* NULL: positional (always, in items) */
	enum input_spec_kind kind;
	struct input_spec *items; /* a tuple's or list's, nitems of them */
	int nitems;
	int64_t ival;
	double fval;
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

/* The tensors of in (1 for a tensor; a tuple's or list's, all levels). */
int input_spec_leaves(const struct input_spec *in);

#endif

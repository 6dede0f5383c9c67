/*
 * input.c - the graph inputs of `trace`: --input SPEC (parsed by
 * lib/common/input_spec.c, every dim with a size; a tuple's or list's
 * tensors one graph input each) and the
 * deterministic pseudo-random values of inputs given by dtype and shape
 * (trace.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input_spec.h"
#include "trace.h"

void trace_input_release(struct trace_input *in)
{
	int i;

	if (!in)
		return;
	free((char *)in->name);
	free((char *)in->npy);
	for (i = 0; i < GPU_MAX_DIMS; i++)
		free((char *)in->symbols[i]);
	memset(in, 0, sizeof(*in));
}

/* The trace input of tensor spec is, named name (NULL: positional). */
static int leaf_input(const struct input_spec *is, const char *name,
		      struct trace_input *in, struct diag *d)
{
	memset(in, 0, sizeof(*in));
	if ((name && !(in->name = strdup(name))) ||
	    (is->npy && !(in->npy = strdup(is->npy))))
		return diag_error(d, "out of memory");
	in->dtype = is->dtype;
	in->rank = is->rank;
	for (int i = 0; i < is->rank; i++) {
		in->dims[i] = is->dims[i];
		if (is->symbols[i] &&
		    !(in->symbols[i] = strdup(is->symbols[i])))
			return diag_error(d, "out of memory");
	}
	return 0;
}

static int add_leaves(const struct input_spec *is, const char *name,
		      struct trace_input **arr, int *n, struct diag *d)
{
	struct trace_input *na;

	if (is->kind == INPUT_SPEC_TENSOR) {
		na = realloc(*arr, sizeof(*na) * (size_t)(*n + 1));
		if (!na)
			return diag_error(d, "out of memory");
		*arr = na;
		(*n)++;
		return leaf_input(is, name, &na[*n - 1], d);
	}
	for (int i = 0; i < is->nitems; i++) {
		char *sub = NULL;
		int rc;

		if (name && asprintf(&sub, INPUT_SPEC_ITEM_NAME, name, i) < 0)
			return diag_error(d, "out of memory");
		rc = add_leaves(&is->items[i], sub, arr, n, d);
		free(sub);
		if (rc)
			return -1;
	}
	return 0;
}

int trace_input_leaves(const struct input_spec *is, struct trace_input **arr,
		       int *n, struct diag *d)
{
	return add_leaves(is, is->name, arr, n, d);
}

int trace_parse_input(const char *spec, struct trace_input *in,
		      struct diag *d)
{
	struct input_spec is;
	int rc;

	memset(in, 0, sizeof(*in));
	rc = input_spec_parse(spec, INPUT_SPEC_RUN, GPU_MAX_DIMS, &is, d);
	if (!rc && is.kind != INPUT_SPEC_TENSOR)
		rc = diag_error(d, "--input '%s': not a tensor", spec);
	if (!rc)
		rc = leaf_input(&is, is.name, in, d);
	input_spec_release(&is);
	return rc;
}

/* splitmix64: a small, good, reproducible stream */
static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double rng_unit(uint64_t *s)
{
	return (double)(rng_next(s) >> 11) * (1.0 / 9007199254740992.0);
}

/* Fills a host buffer of n doubles: floats uniform in [-1, 1) (normal:
 * standard normal), ints in [0, 10), bools 0/1. */
void trace_fill_random(double *out, int64_t n, enum ir_dtype dt, int normal,
		       uint64_t seed)
{
	uint64_t s = seed * 0x2545f4914f6cdd1dULL + 0x1234567ULL;
	int64_t i;

	for (i = 0; i < n; i++) {
		switch (dt) {
		case IR_DTYPE_FLOAT:
		case IR_DTYPE_DOUBLE:
		case IR_DTYPE_FLOAT16:
		case IR_DTYPE_BFLOAT16:
			if (normal) {
				double u1 = rng_unit(&s), u2 = rng_unit(&s);

				if (u1 < 1e-300)
					u1 = 1e-300;
				out[i] = sqrt(-2 * log(u1)) *
					 cos(6.283185307179586 * u2);
			} else {
				out[i] = 2 * rng_unit(&s) - 1;
			}
			break;
		case IR_DTYPE_BOOL:
			out[i] = (double)(rng_next(&s) >> 63);
			break;
		default:
			out[i] = (double)(rng_next(&s) % 10);
			break;
		}
	}
}

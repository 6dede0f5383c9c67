/*
 * script_input.c - the --input SPEC of `script` (and `trace`): a dtype and a
 * shape for one graph input, written `x=f32[batch,3,224,224]`,
 * `f32[1,3,224,224]` (positional), or a .npy file (`x=a.npy`, `a.npy`)
 * whose header gives dtype and shape; or a tuple, list, number, bool or
 * None argument (input_spec.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile.h"
#include "input_spec.h"
#include "npy_header.h"

/* The spec's dims (count already checked) as the script input's; run:
 * a named dim is its size. */
static int take_dims(struct script_input *in, const struct input_spec *is,
		     int run, struct diag *d)
{
	in->rank = is->rank;
	for (int i = 0; i < is->rank; i++) {
		struct ir_dim *dm = &in->dims[i];

		if (is->symbols[i] && !run) {
			dm->kind = IR_DIM_SYMBOL;
			dm->symbol = strdup(is->symbols[i]);
			if (!dm->symbol) {
				dm->kind = IR_DIM_UNKNOWN;
				return diag_error(d, "out of memory");
			}
		} else if (is->dims[i] < 0) {
			dm->kind = IR_DIM_UNKNOWN;
		} else {
			dm->kind = IR_DIM_FIXED;
			dm->value = is->dims[i];
		}
	}
	return 0;
}

/* The dtype and shape of a .npy file's header (npy_header.h). */
static int parse_npy(const char *path, struct script_input *in,
		     const char *spec, struct diag *d)
{
	FILE *f = fopen(path, "rb");
	struct npy_header h;
	int rc;

	if (!f)
		return diag_error(d, "--input '%s': cannot open '%s'", spec,
				  path);
	rc = npy_header_read(f, path, &h, d);
	fclose(f);
	if (rc)
		return -1;
	in->dtype = h.dtype;
	in->rank = h.rank;
	for (int i = 0; i < h.rank; i++) {
		in->dims[i].kind = IR_DIM_FIXED;
		in->dims[i].value = h.dims[i];
	}
	return 0;
}

int script_input_from_spec(const struct input_spec *is, int run,
			   const char *spec, struct script_input *in,
			   struct diag *d)
{
	memset(in, 0, sizeof(*in));
	in->rank = -1;
	in->kind = is->kind;
	in->ival = is->ival;
	in->fval = is->fval;
	if (is->name && !(in->name = strdup(is->name)))
		return diag_error(d, "out of memory");
	if (is->kind == INPUT_SPEC_TUPLE || is->kind == INPUT_SPEC_LIST) {
		in->items = calloc((size_t)is->nitems + 1, sizeof(*in->items));
		if (!in->items)
			return diag_error(d, "out of memory");
		in->nitems = is->nitems;
		for (int i = 0; i < is->nitems; i++)
			if (script_input_from_spec(&is->items[i], run, spec,
						   &in->items[i], d))
				return -1;
		return 0;
	}
	if (is->kind != INPUT_SPEC_TENSOR)
		return 0;
	if (is->npy) {
		struct diag quiet = *d;

		quiet.quiet = run || d->quiet;
		if (parse_npy(is->npy, in, spec, &quiet)) {
			in->rank = -1;
			return run ? 0 : -1;
		}
		return 0;
	}
	in->dtype = is->dtype;
	return take_dims(in, is, run, d);
}

int script_parse_input(const char *spec, struct script_input *in,
		       struct diag *d)
{
	struct input_spec is;
	int rc;

	memset(in, 0, sizeof(*in));
	in->rank = -1;
	if (input_spec_parse(spec, 0, 64, &is, d)) {
		input_spec_release(&is);
		return -1;
	}
	rc = script_input_from_spec(&is, 0, spec, in, d);
	input_spec_release(&is);
	return rc;
}

void script_input_release(struct script_input *in)
{
	int i;

	if (!in)
		return;
	free((char *)in->name);
	in->name = NULL;
	for (i = 0; i < in->rank && i < 64; i++)
		if (in->dims[i].kind == IR_DIM_SYMBOL) {
			free((char *)in->dims[i].symbol);
			in->dims[i].symbol = NULL;
		}
	for (i = 0; i < in->nitems; i++)
		script_input_release(&in->items[i]);
	free(in->items);
	in->items = NULL;
	in->nitems = 0;
}

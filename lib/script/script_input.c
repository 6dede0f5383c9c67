/*
 * script_input.c - the --input SPEC of `script` (and `trace`): a dtype and a
 * shape for one graph input, written `x=f32[batch,3,224,224]`,
 * `f32[1,3,224,224]` (positional), or a .npy file (`x=a.npy`, `a.npy`)
 * whose header gives dtype and shape.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile.h"
#include "input_spec.h"
#include "npy_header.h"

/* The spec's dims (count already checked) as the script input's. */
static void take_dims(struct script_input *in, struct input_spec *is)
{
	in->rank = is->rank;
	for (int i = 0; i < is->rank; i++) {
		struct ir_dim *dm = &in->dims[i];

		if (is->symbols[i]) {
			dm->kind = IR_DIM_SYMBOL;
			dm->symbol = is->symbols[i];
			is->symbols[i] = NULL;
		} else if (is->dims[i] < 0) {
			dm->kind = IR_DIM_UNKNOWN;
		} else {
			dm->kind = IR_DIM_FIXED;
			dm->value = is->dims[i];
		}
	}
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

int script_parse_input(const char *spec, struct script_input *in,
		       struct diag *d)
{
	struct input_spec is;
	int rc = 0;

	memset(in, 0, sizeof(*in));
	in->rank = -1;
	if (input_spec_parse(spec, 0, 64, &is, d)) {
		input_spec_release(&is);
		return -1;
	}
	in->name = is.name;
	is.name = NULL;
	if (is.npy)
		rc = parse_npy(is.npy, in, spec, d);
	else {
		in->dtype = is.dtype;
		take_dims(in, &is);
	}
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
}

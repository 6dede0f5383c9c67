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

static int parse_npy(const char *path, struct script_input *in,
		     const char *spec, struct diag *d)
{
	FILE *f = fopen(path, "rb");
	unsigned char h[10];
	char hdr[4096], *p, *q;
	size_t hl;
	struct input_spec is = { 0 };
	int k;

	if (!f)
		return diag_error(d, "--input '%s': cannot open '%s'", spec,
				  path);
	if (fread(h, 1, 10, f) != 10 || memcmp(h, "\x93NUMPY", 6)) {
		fclose(f);
		return diag_error(d, "--input '%s': '%s' is not a .npy file",
				  spec, path);
	}
	if (h[6] == 1) {
		hl = h[8] | (size_t)h[9] << 8;
	} else {
		unsigned char e[2];
		if (fread(e, 1, 2, f) != 2) {
			fclose(f);
			return diag_error(d, "--input '%s': truncated '%s'",
					  spec, path);
		}
		hl = h[8] | (size_t)h[9] << 8 | (size_t)e[0] << 16 |
		     (size_t)e[1] << 24;
	}
	if (hl >= sizeof(hdr) || fread(hdr, 1, hl, f) != hl) {
		fclose(f);
		return diag_error(d, "--input '%s': bad header in '%s'", spec,
				  path);
	}
	fclose(f);
	hdr[hl] = 0;
	p = strstr(hdr, "'descr'");
	if (!p || !(p = strchr(p + 7, '\'')))
		return diag_error(d, "--input '%s': no descr in '%s'", spec,
				  path);
	p++;
	q = strchr(p, '\'');
	if (!q)
		return diag_error(d, "--input '%s': bad descr in '%s'", spec,
				  path);
	*q = 0;
	in->dtype = ir_dtype_from_npy(p);
	if (!in->dtype)
		return diag_error(d, "--input '%s': unsupported dtype '%s' in "
				  "'%s'", spec, *p == '<' || *p == '|' ||
				  *p == '=' || *p == '>' ? p + 1 : p, path);
	p = strstr(q + 1, "'shape'");
	if (!p || !(p = strchr(p, '(')))
		return diag_error(d, "--input '%s': no shape in '%s'", spec,
				  path);
	q = strchr(p, ')');
	if (q)
		q[1] = 0; /* the shape ends the text parsed */
	k = q ? input_spec_dims(p + 1, ')', spec, 0, 64, &is, d) : -1;
	if (!k)
		take_dims(in, &is);
	input_spec_release(&is);
	if (k == -1)
		return diag_error(d, "--input '%s': bad shape in '%s'", spec,
				  path);
	return k ? -1 : 0;
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

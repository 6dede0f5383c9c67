/*
 * script_input.c - the --input SPEC of `script` (and `trace`): a dtype and a
 * shape for one graph input, written `x=f32[batch,3,224,224]`,
 * `f32[1,3,224,224]` (positional), or a .npy file (`x=a.npy`, `a.npy`)
 * whose header gives dtype and shape.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile.h"

static int parse_dims(const char *p, struct script_input *in,
		      const char *spec, struct diag *d, char close)
{
	in->rank = 0;
	while (*p == ' ')
		p++;
	if (*p == close)
		return p[1] ? -1 : 0;
	for (;;) {
		const char *s;
		struct ir_dim *dm;
		while (*p == ' ')
			p++;
		if (in->rank >= 64)
			return diag_error(d, "--input '%s': more than 64 dims",
					  spec);
		dm = &in->dims[in->rank++];
		s = p;
		if (isdigit((unsigned char)*p)) {
			char *end;
			long long v = strtoll(p, &end, 10);
			if (v < 0 || end == p)
				return -1;
			dm->kind = IR_DIM_FIXED;
			dm->value = v;
			p = end;
		} else if (*p == '?' || *p == '*') {
			dm->kind = IR_DIM_UNKNOWN;
			p++;
		} else if (isalpha((unsigned char)*p) || *p == '_') {
			char *sym;
			while (isalnum((unsigned char)*p) || *p == '_')
				p++;
			sym = malloc((size_t)(p - s) + 1);
			if (!sym)
				return -1;
			memcpy(sym, s, (size_t)(p - s));
			sym[p - s] = 0;
			dm->kind = IR_DIM_SYMBOL;
			dm->symbol = sym;
		} else
			return -1;
		while (*p == ' ')
			p++;
		if (*p == ',') {
			p++;
			while (*p == ' ')
				p++;
			if (*p == close && close == ')')
				return p[1] ? -1 : 0;
			continue;
		}
		if (*p == close)
			return p[1] && close == ']' ? -1 : 0;
		return -1;
	}
}

static int parse_npy(const char *path, struct script_input *in,
		     const char *spec, struct diag *d)
{
	FILE *f = fopen(path, "rb");
	unsigned char h[10];
	char hdr[4096], *p, *q;
	size_t hl;
	int big = 0;

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
	if (*p == '>' && strcmp(p + 1, "i1") && strcmp(p + 1, "u1") &&
	    strcmp(p + 1, "b1"))
		big = 1;
	if (*p == '<' || *p == '|' || *p == '=' || *p == '>')
		p++;
	in->dtype = !strcmp(p, "f4") ? IR_DTYPE_FLOAT :
		!strcmp(p, "f8") ? IR_DTYPE_DOUBLE :
		!strcmp(p, "f2") ? IR_DTYPE_FLOAT16 :
		!strcmp(p, "i8") ? IR_DTYPE_INT64 :
		!strcmp(p, "i4") ? IR_DTYPE_INT32 :
		!strcmp(p, "i2") ? IR_DTYPE_INT16 :
		!strcmp(p, "i1") ? IR_DTYPE_INT8 :
		!strcmp(p, "u1") ? IR_DTYPE_UINT8 :
		!strcmp(p, "b1") ? IR_DTYPE_BOOL : IR_DTYPE_UNDEFINED;
	if (!in->dtype || big)
		return diag_error(d, "--input '%s': unsupported dtype '%s' in "
				  "'%s'", spec, p, path);
	p = strstr(q + 1, "'shape'");
	if (!p || !(p = strchr(p, '(')))
		return diag_error(d, "--input '%s': no shape in '%s'", spec,
				  path);
	if (parse_dims(p + 1, in, spec, d, ')') < 0) {
		q = strchr(p, ')');
		/* parse_dims wants ')' last: cut the rest */
		if (q) {
			q[1] = 0;
			if (!parse_dims(p + 1, in, spec, d, ')'))
				return 0;
		}
		return diag_error(d, "--input '%s': bad shape in '%s'", spec,
				  path);
	}
	return 0;
}

int script_parse_input(const char *spec, struct script_input *in,
		       struct diag *d)
{
	const char *eq = strchr(spec, '='), *body = spec, *br;
	size_t n;

	memset(in, 0, sizeof(*in));
	in->rank = -1;
	if (eq) {
		char *name = strndup(spec, (size_t)(eq - spec));
		if (!name || !*name)
			return free(name), diag_error(d, "--input '%s': empty "
						      "name", spec);
		in->name = name;
		body = eq + 1;
	}
	n = strlen(body);
	if (n > 4 && !strcmp(body + n - 4, ".npy"))
		return parse_npy(body, in, spec, d);
	br = strchr(body, '[');
	n = br ? (size_t)(br - body) : strlen(body);
	in->dtype = ir_dtype_from_spec(body, n);
	if (!in->dtype)
		return diag_error(d, "--input '%s': unknown dtype '%.*s' (f32 "
				  "f64 f16 bf16 i64 i32 i16 i8 u8 bool)", spec,
				  (int)n, body);
	if (!br) {
		in->rank = 0;
		return 0;
	}
	if (parse_dims(br + 1, in, spec, d, ']'))
		return diag_error(d, "--input '%s': expected DTYPE[DIM,...] "
				  "with dims numbers or names", spec);
	return 0;
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

/*
 * input_spec.c - the one --input SPEC parser (see input_spec.h).
 */
#include "input_spec.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The largest size a dim may be given: far over any tensor a trace can
 * allocate (rlimits.h), small enough that products stay in int64. */
#define INPUT_SPEC_MAX_DIM ((int64_t)1 << 40)

void input_spec_release(struct input_spec *in)
{
	if (!in)
		return;
	free(in->name);
	free(in->npy);
	for (int i = 0; i < in->rank; i++)
		if (in->symbols)
			free(in->symbols[i]);
	free(in->symbols);
	free(in->dims);
	memset(in, 0, sizeof(*in));
}

static int oom(struct diag *d)
{
	diag_error(d, "out of memory");
	return -2;
}

/* One more dim slot in in; -2 after reporting. */
static int add_dim(struct input_spec *in, const char *spec, int max_rank,
		   struct diag *d)
{
	int64_t *nd;
	char **ns;

	if (in->rank >= max_rank) {
		diag_error(d, "--input '%s': more than %d dims", spec,
			   max_rank);
		return -2;
	}
	nd = realloc(in->dims, sizeof(*nd) * (size_t)(in->rank + 1));
	if (!nd)
		return oom(d);
	in->dims = nd;
	ns = realloc(in->symbols, sizeof(*ns) * (size_t)(in->rank + 1));
	if (!ns)
		return oom(d);
	in->symbols = ns;
	in->dims[in->rank] = -1;
	in->symbols[in->rank] = NULL;
	in->rank++;
	return 0;
}

int input_spec_dims(const char *p, char close, const char *spec,
		    unsigned flags, int max_rank, struct input_spec *in,
		    struct diag *d)
{
	int run = (flags & INPUT_SPEC_RUN) != 0, k;

	while (*p == ' ')
		p++;
	if (*p == close)
		return p[1] ? -1 : 0;
	for (;;) {
		const char *s;

		while (*p == ' ')
			p++;
		if ((k = add_dim(in, spec, max_rank, d)))
			return k;
		s = p;
		if (isalpha((unsigned char)*p) || *p == '_') {
			while (isalnum((unsigned char)*p) || *p == '_')
				p++;
			if (run && *p != ':') {
				diag_error(d, "--input '%s': dim '%.*s' needs "
					   "a size to run with ('%.*s:4')",
					   spec, (int)(p - s), s, (int)(p - s),
					   s);
				return -2;
			}
			in->symbols[in->rank - 1] = strndup(s, (size_t)(p - s));
			if (!in->symbols[in->rank - 1])
				return oom(d);
			if (run)
				p++; /* the ':' before the size */
		} else if (*p == '?' || *p == '*') {
			if (run) {
				diag_error(d, "--input '%s': an unknown dim "
					   "cannot be run: give a size", spec);
				return -2;
			}
			p++;
		}
		if (p == s || (run && in->symbols[in->rank - 1])) {
			char *end;
			long long v;

			if (!isdigit((unsigned char)*p))
				return -1;
			errno = 0;
			v = strtoll(p, &end, 10);
			if (errno || v < 0 || v > INPUT_SPEC_MAX_DIM)
				return -1;
			in->dims[in->rank - 1] = v;
			p = end;
		}
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
		if (*p == close && !p[1])
			return 0;
		return -1;
	}
}

int input_spec_parse(const char *spec, unsigned flags, int max_rank,
		     struct input_spec *in, struct diag *d)
{
	const char *eq = strchr(spec, '='), *br = strchr(spec, '[');
	const char *body = spec;
	size_t n;
	int k;

	memset(in, 0, sizeof(*in));
	if (eq && (!br || eq < br)) {
		if (eq == spec)
			return diag_error(d, "--input '%s': empty name", spec);
		in->name = strndup(spec, (size_t)(eq - spec));
		if (!in->name)
			return diag_error(d, "out of memory");
		body = eq + 1;
	}
	n = strlen(body);
	if (n > 4 && !strcmp(body + n - 4, ".npy")) {
		in->npy = strdup(body);
		return in->npy ? 0 : diag_error(d, "out of memory");
	}
	br = strchr(body, '[');
	n = br ? (size_t)(br - body) : strlen(body);
	in->dtype = ir_dtype_from_spec(body, n);
	if (!in->dtype)
		return diag_error(d, "--input '%s': unknown dtype '%.*s' (f32 "
				  "f64 f16 bf16 i64 i32 i16 i8 u8 bool, or a "
				  ".npy file)", spec, (int)n, body);
	if (!br)
		return 0; /* a rank-0 tensor */
	k = input_spec_dims(br + 1, ']', spec, flags, max_rank, in, d);
	if (k == -1)
		return diag_error(d, "--input '%s': expected DTYPE[DIM,...] "
				  "with dims numbers%s", spec,
				  flags & INPUT_SPEC_RUN ?
				  ", or NAME:SIZE for a dynamic axis" :
				  " or names");
	return k ? -1 : 0;
}

/*
 * input.c - the graph inputs of `trace`: the --input SPEC parser and the
 * deterministic pseudo-random values of inputs given by dtype and shape
 * (trace.h).
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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

static int bad_dims(const char *spec, struct diag *d)
{
	return diag_error(d, "--input '%s': expected DTYPE[DIM,...] with dims "
			  "numbers, or NAME:SIZE for a dynamic axis", spec);
}

int trace_parse_input(const char *spec, struct trace_input *in,
		      struct diag *d)
{
	const char *eq = strchr(spec, '='), *body = spec, *br, *p;
	size_t n;

	memset(in, 0, sizeof(*in));
	if (eq && (!strchr(spec, '[') || eq < strchr(spec, '['))) {
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
		if (!in->npy)
			return diag_error(d, "out of memory");
		return 0;
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
	p = br + 1;
	while (*p == ' ')
		p++;
	if (*p == ']')
		return p[1] ? bad_dims(spec, d) : 0;
	for (;;) {
		const char *s;
		char *end;
		long long v;

		while (*p == ' ')
			p++;
		if (in->rank >= GPU_MAX_DIMS)
			return diag_error(d, "--input '%s': more than %d dims",
					  spec, GPU_MAX_DIMS);
		s = p;
		if (isalpha((unsigned char)*p) || *p == '_') {
			while (isalnum((unsigned char)*p) || *p == '_')
				p++;
			if (*p != ':')
				return diag_error(d, "--input '%s': dim '%.*s' "
						  "needs a size to run with "
						  "('%.*s:4')", spec,
						  (int)(p - s), s,
						  (int)(p - s), s);
			in->symbols[in->rank] = strndup(s, (size_t)(p - s));
			if (!in->symbols[in->rank])
				return diag_error(d, "out of memory");
			p++;
		} else if (*p == '?' || *p == '*') {
			return diag_error(d, "--input '%s': an unknown dim "
					  "cannot be run: give a size", spec);
		}
		if (!isdigit((unsigned char)*p))
			return bad_dims(spec, d);
		errno = 0;
		v = strtoll(p, &end, 10);
		if (errno || v < 0 || v > ((int64_t)1 << 40))
			return bad_dims(spec, d);
		in->dims[in->rank++] = v;
		p = end;
		while (*p == ' ')
			p++;
		if (*p == ',') {
			p++;
			continue;
		}
		if (*p == ']' && !p[1])
			return 0;
		return bad_dims(spec, d);
	}
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

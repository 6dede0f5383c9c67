/*
 * input_spec.c - the one --input SPEC parser (see input_spec.h): tensors,
 * .npy files, tuples and lists of them, numbers, bools and None.
 */
#include "input_spec.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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
	for (int i = 0; i < in->nitems; i++)
		input_spec_release(&in->items[i]);
	free(in->items);
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

/* A number or a bool written as Python would (`3`, `0.5`, `true`,
 * `False`) or with its kind (`int:3`, `float:0.5`, `bool:true`), or
 * None (`none`, `None`).  1 when body is one (in set), 0 when it is not,
 * -1 after reporting. */
static int parse_scalar(const char *body, const char *spec,
			struct input_spec *in, struct diag *d)
{
	static const char *const kinds[] = { "int:", "float:", "bool:" };
	size_t n = strlen(body);
	int want = -1;
	char *end;

	if (n > 4 && !strcmp(body + n - 4, ".npy"))
		return 0;
	if (!strcmp(body, "none") || !strcmp(body, "None")) {
		in->kind = INPUT_SPEC_NONE;
		return 1;
	}
	for (int k = 0; k < 3; k++)
		if (!strncmp(body, kinds[k], strlen(kinds[k]))) {
			want = k;
			body += strlen(kinds[k]);
		}
	if (want == 2 || (want < 0 && (!strcmp(body, "true") ||
				       !strcmp(body, "false") ||
				       !strcmp(body, "True") ||
				       !strcmp(body, "False")))) {
		in->kind = INPUT_SPEC_BOOL;
		if (!strcasecmp(body, "true") || !strcmp(body, "1"))
			in->ival = 1;
		else if (strcasecmp(body, "false") && strcmp(body, "0"))
			return diag_error(d, "--input '%s': '%s' is not a bool "
					  "(true or false)", spec, body);
		return 1;
	}
	if (want < 0 && !isdigit((unsigned char)*body) &&
	    !((*body == '-' || *body == '.') &&
	      isdigit((unsigned char)body[1])))
		return 0;
	errno = 0;
	if (want == 0 || (want < 0 && !strpbrk(body, ".eE"))) {
		long long v = strtoll(body, &end, 10);

		in->kind = INPUT_SPEC_INT;
		in->ival = v;
	} else {
		in->kind = INPUT_SPEC_FLOAT;
		in->fval = strtod(body, &end);
	}
	if (errno || end == body || *end)
		return diag_error(d, "--input '%s': '%s' is not %s", spec, body,
				  in->kind == INPUT_SPEC_INT ? "an int" :
				  "a float");
	return 1;
}

/* A tensor: DTYPE[DIMS] or a .npy file. */
static int parse_tensor(const char *body, const char *spec, unsigned flags,
			int max_rank, struct input_spec *in, struct diag *d)
{
	const char *br;
	size_t n = strlen(body);
	int k;

	in->kind = INPUT_SPEC_TENSOR;
	if (n > 4 && !strcmp(body + n - 4, ".npy")) {
		in->npy = strdup(body);
		return in->npy ? 0 : diag_error(d, "out of memory");
	}
	br = strchr(body, '[');
	n = br ? (size_t)(br - body) : strlen(body);
	in->dtype = ir_dtype_from_spec(body, n);
	if (!in->dtype)
		return diag_error(d, "--input '%s': unknown dtype '%.*s' (f32 "
				  "f64 f16 bf16 i64 i32 i16 i8 u8 bool, a .npy "
				  "file, (A, B) a tuple, [A, B] a list, a "
				  "number, true, false or none)", spec, (int)n,
				  body);
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

/* The length of the item at p: up to a ',' or an unmatched ')' or ']'. */
static size_t item_len(const char *p)
{
	int depth = 0;
	size_t n = 0;

	for (; p[n]; n++) {
		if (p[n] == '(' || p[n] == '[')
			depth++;
		else if ((p[n] == ')' || p[n] == ']') && depth-- == 0)
			break;
		else if (p[n] == ',' && depth == 0)
			break;
	}
	return n;
}

static int parse_value(const char *body, const char *spec, unsigned flags,
		       int max_rank, int depth, struct input_spec *in,
		       struct diag *d);

/* The items of a tuple `(A, B)` or a list `[A, B]` at body (its opening
 * bracket), closed by the last character. */
static int parse_items(const char *body, const char *spec, unsigned flags,
		       int max_rank, int depth, struct input_spec *in,
		       struct diag *d)
{
	char close = *body == '(' ? ')' : ']';
	const char *p = body + 1;
	size_t n = strlen(body);

	in->kind = *body == '(' ? INPUT_SPEC_TUPLE : INPUT_SPEC_LIST;
	if (body[n - 1] != close)
		return diag_error(d, "--input '%s': '%c' without its '%c'",
				  spec, *body, close);
	for (;;) {
		size_t len;
		struct input_spec *ni;
		char *item;
		int rc;

		while (*p == ' ')
			p++;
		if (*p == close && !p[1])
			return 0;
		len = item_len(p);
		if (p[len] != ',' && !(p[len] == close && !p[len + 1]))
			return diag_error(d, "--input '%s': unbalanced "
					  "brackets", spec);
		ni = realloc(in->items, sizeof(*ni) * (size_t)(in->nitems + 1));
		if (!ni)
			return diag_error(d, "out of memory");
		in->items = ni;
		memset(&ni[in->nitems], 0, sizeof(*ni));
		in->nitems++;
		while (len && p[len - 1] == ' ')
			len--;
		item = strndup(p, len);
		if (!item)
			return diag_error(d, "out of memory");
		rc = parse_value(item, spec, flags, max_rank, depth + 1,
				 &in->items[in->nitems - 1], d);
		free(item);
		if (rc)
			return -1;
		p += item_len(p);
		if (*p == ',')
			p++;
	}
}

static int parse_value(const char *body, const char *spec, unsigned flags,
		       int max_rank, int depth, struct input_spec *in,
		       struct diag *d)
{
	int k;

	if (depth > INPUT_SPEC_MAX_DEPTH)
		return diag_error(d, "--input '%s': nested deeper than %d",
				  spec, INPUT_SPEC_MAX_DEPTH);
	if (!*body)
		return diag_error(d, "--input '%s': an empty item", spec);
	if (*body == '(' || *body == '[')
		return parse_items(body, spec, flags, max_rank, depth, in, d);
	k = parse_scalar(body, spec, in, d);
	if (k)
		return k < 0 ? -1 : 0;
	return parse_tensor(body, spec, flags, max_rank, in, d);
}

int input_spec_parse(const char *spec, unsigned flags, int max_rank,
		     struct input_spec *in, struct diag *d)
{
	const char *eq = strchr(spec, '='), *body = spec;
	size_t open = strcspn(spec, "[(");

	memset(in, 0, sizeof(*in));
	if (eq && (size_t)(eq - spec) < open) {
		if (eq == spec)
			return diag_error(d, "--input '%s': empty name", spec);
		in->name = strndup(spec, (size_t)(eq - spec));
		if (!in->name)
			return diag_error(d, "out of memory");
		body = eq + 1;
	}
	return parse_value(body, spec, flags, max_rank, 0, in, d);
}

int input_spec_leaves(const struct input_spec *in)
{
	int n = 0;

	if (in->kind == INPUT_SPEC_TENSOR)
		return 1;
	for (int i = 0; i < in->nitems; i++)
		n += input_spec_leaves(&in->items[i]);
	return n;
}

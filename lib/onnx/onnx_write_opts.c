/*
 * onnx_write_opts.c - the options of onnx_write_model() and the parsers
 * for their command-line forms (see onnx_write.h).
 *
 * Two syntaxes are accepted for the structured options: a compact one made
 * for shells ("x:0=batch;y:0", "a,b", "dom=2") and the Python literals a
 * torch.onnx.export call would contain ('{"x": {0: "batch"}}', '["a"]'),
 * read by a small tokenizer that knows strings, integers and {}[]():,
 * and nothing else.
 */
#include "onnx_write.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"

void onnx_write_options_init(struct onnx_write_options *o)
{
	const char *env = getenv("PT2ONNX_EXTERNAL_THRESHOLD");

	memset(o, 0, sizeof(*o));
	o->export_params = 1;
	o->max_model_size = 2147483647u; /* protobuf refuses 2 GiB and up */
	if (env && *env) {
		char *end;
		errno = 0;
		unsigned long long v = strtoull(env, &end, 10);
		if (!errno && !*end)
			o->max_model_size = v;
	}
}

static void free_names(char **names, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

void onnx_write_options_release(struct onnx_write_options *o)
{
	free_names(o->input_names, o->ninput_names);
	free_names(o->output_names, o->noutput_names);
	for (uint32_t i = 0; i < o->ndyn_axes; i++) {
		free(o->dyn_axes[i].value);
		free(o->dyn_axes[i].name);
	}
	free(o->dyn_axes);
	for (uint32_t i = 0; i < o->ncustom_opsets; i++)
		free(o->custom_opsets[i].domain);
	free(o->custom_opsets);
	free(o->external_data_file);
	free(o->producer_name);
	free(o->producer_version);
	free_names(o->weight_dirs, o->nweight_dirs);
	free_names(o->function_types, o->nfunction_types);
	memset(o, 0, sizeof(*o));
}

int onnx_write_options_allow_weights(struct onnx_write_options *o,
				     const char *path, struct diag *d)
{
	char *real = realpath(path, NULL);

	if (!real)
		return diag_error(d, "weights folder '%s': %s", path,
				  strerror(errno));
	o->weight_dirs = xrealloc(o->weight_dirs, sizeof(*o->weight_dirs) *
				  (o->nweight_dirs + 1));
	o->weight_dirs[o->nweight_dirs++] = real;
	return 0;
}

/* --- a tokenizer for Python literals -------------------------------------- */

struct lex {
	const char *s;    /* the whole option value, for messages */
	const char *p;    /* next character */
	const char *what; /* "dynamic axes", for messages */
	struct diag *d;
};

static char lex_peek(struct lex *l)
{
	while (isspace((unsigned char)*l->p))
		l->p++;
	return *l->p;
}

static int lex_fail(struct lex *l, const char *expected)
{
	return diag_error(l->d, "%s '%s': expected %s at offset %d", l->what,
			  l->s, expected, (int)(l->p - l->s));
}

static int lex_expect(struct lex *l, char c)
{
	char want[4] = { '\'', c, '\'', 0 };
	if (lex_peek(l) != c)
		return lex_fail(l, want);
	l->p++;
	return 0;
}

/* Consumes c if it is next; returns 1 if it was. */
static int lex_accept(struct lex *l, char c)
{
	if (lex_peek(l) != c)
		return 0;
	l->p++;
	return 1;
}

static int lex_string(struct lex *l, char **out)
{
	char q = lex_peek(l);
	size_t cap = 16, n = 0;
	char *buf;

	if (q != '"' && q != '\'')
		return lex_fail(l, "a quoted string");
	buf = xmalloc(cap);
	for (l->p++; *l->p != q; l->p++) {
		char c = *l->p;
		if (!c) {
			free(buf);
			return lex_fail(l, "a closing quote");
		}
		if (c == '\\') {
			c = *++l->p;
			if (c == 'n')
				c = '\n';
			else if (c == 't')
				c = '\t';
			else if (!c) {
				free(buf);
				return lex_fail(l, "a closing quote");
			}
		}
		if (n + 2 > cap)
			buf = xrealloc(buf, cap *= 2);
		buf[n++] = c;
	}
	l->p++;
	buf[n] = 0;
	*out = buf;
	return 0;
}

static int lex_int(struct lex *l, int64_t *out)
{
	char *end;
	lex_peek(l);
	if (!isdigit((unsigned char)*l->p) && *l->p != '-')
		return lex_fail(l, "an integer");
	errno = 0;
	long long v = strtoll(l->p, &end, 10);
	if (errno || end == l->p)
		return lex_fail(l, "an integer");
	l->p = end;
	*out = v;
	return 0;
}

/* An axis key of torch's dict: an integer, or (what json.dumps writes) an
 * integer in quotes, "0". */
static int lex_axis_key(struct lex *l, int64_t *out)
{
	const char *at;
	char *s, *end;
	char q = lex_peek(l);

	if (q != '"' && q != '\'')
		return lex_int(l, out);
	at = l->p;
	if (lex_string(l, &s))
		return -1;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	int ok = !errno && end != s && !*end &&
		 (isdigit((unsigned char)*s) || *s == '-');
	free(s);
	if (!ok) {
		l->p = at;
		return lex_fail(l, "an axis (an integer, quoted or not)");
	}
	*out = v;
	return 0;
}

static int lex_end(struct lex *l)
{
	if (lex_peek(l))
		return lex_fail(l, "the end");
	return 0;
}

/* --- names ---------------------------------------------------------------- */

static void push_name(char ***names, uint32_t *n, char *name)
{
	*names = xrealloc(*names, sizeof(**names) * (*n + 1));
	(*names)[(*n)++] = name;
}

int onnx_write_parse_names(char ***names, uint32_t *n, const char *spec,
			   struct diag *d)
{
	struct lex l = { spec, spec, "names", d };
	char close;

	if (lex_peek(&l) == '[' || lex_peek(&l) == '(') {
		close = *l.p++ == '[' ? ']' : ')';
		while (!lex_accept(&l, close)) {
			char *s;
			if (lex_string(&l, &s))
				return -1;
			if (!*s) {
				free(s);
				return diag_error(d, "names '%s': empty name",
						  spec);
			}
			push_name(names, n, s);
			if (!lex_accept(&l, ',') && lex_peek(&l) != close)
				return lex_fail(&l, "',' or the closing bracket");
		}
		return lex_end(&l);
	}
	for (const char *p = spec;;) {
		const char *e = strchr(p, ',');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (!len)
			return diag_error(d, "names '%s': empty name", spec);
		push_name(names, n, xstrndup(p, len));
		if (!e)
			return 0;
		p = e + 1;
	}
}

/* --- dynamic axes --------------------------------------------------------- */

static int add_axis(struct onnx_write_options *o, const char *spec,
		    const char *value, size_t vlen, int64_t axis,
		    const char *name, size_t nlen, uint32_t index,
		    struct diag *d)
{
	if (axis < 0)
		return diag_error(d, "dynamic axes '%s': axis %lld of '%.*s' "
				  "is negative", spec, (long long)axis,
				  (int)vlen, value);
	if (name && !nlen)
		return diag_error(d, "dynamic axes '%s': empty name for axis "
				  "%lld of '%.*s'", spec, (long long)axis,
				  (int)vlen, value);
	for (uint32_t i = 0; i < o->ndyn_axes; i++) {
		struct onnx_dyn_axis *a = &o->dyn_axes[i];
		if (a->axis == axis && strlen(a->value) == vlen &&
		    !memcmp(a->value, value, vlen))
			return diag_error(d, "dynamic axes '%s': axis %lld of "
					  "'%.*s' given twice", spec,
					  (long long)axis, (int)vlen, value);
	}
	o->dyn_axes = xrealloc(o->dyn_axes,
			       sizeof(*o->dyn_axes) * (o->ndyn_axes + 1));
	struct onnx_dyn_axis *a = &o->dyn_axes[o->ndyn_axes++];
	a->value = xstrndup(value, vlen);
	a->axis = axis;
	a->name = name ? xstrndup(name, nlen) : NULL;
	a->index = index;
	return 0;
}

/* torch's dict: {"x": {0: "batch"}, "y": [0, 1]}; the axes of the inner
 * dict may be quoted, {"x": {"0": "batch"}}, as json.dumps writes them. */
static int parse_axes_dict(struct onnx_write_options *o, const char *spec,
			   struct diag *d)
{
	struct lex l = { spec, spec, "dynamic axes", d };

	if (lex_expect(&l, '{'))
		return -1;
	while (!lex_accept(&l, '}')) {
		char *key;
		int rc = 0;
		if (lex_string(&l, &key))
			return -1;
		if (lex_expect(&l, ':')) {
			free(key);
			return -1;
		}
		if (lex_accept(&l, '{')) {
			while (!rc && !lex_accept(&l, '}')) {
				int64_t axis;
				char *name;
				if (lex_axis_key(&l, &axis) ||
				    lex_expect(&l, ':') ||
				    lex_string(&l, &name)) {
					rc = -1;
					break;
				}
				rc = add_axis(o, spec, key, strlen(key), axis,
					      name, strlen(name), 0, d);
				free(name);
				if (!rc && !lex_accept(&l, ',') &&
				    lex_peek(&l) != '}')
					rc = lex_fail(&l, "',' or '}'");
			}
		} else if (lex_peek(&l) == '[' || lex_peek(&l) == '(') {
			char close = *l.p++ == '[' ? ']' : ')';
			uint32_t index = 0;
			while (!rc && !lex_accept(&l, close)) {
				int64_t axis;
				if (lex_int(&l, &axis)) {
					rc = -1;
					break;
				}
				rc = add_axis(o, spec, key, strlen(key), axis,
					      NULL, 0, index++, d);
				if (!rc && !lex_accept(&l, ',') &&
				    lex_peek(&l) != close)
					rc = lex_fail(&l, "',' or the closing "
						      "bracket");
			}
		} else {
			rc = lex_fail(&l, "'{' or '['");
		}
		free(key);
		if (rc)
			return -1;
		if (!lex_accept(&l, ',') && lex_peek(&l) != '}')
			return lex_fail(&l, "',' or '}'");
	}
	return lex_end(&l);
}

/* Whether s[0..len) is an axis list: "0=batch,2=h" or "0,2". */
static int is_axis_list(const char *s, size_t len)
{
	size_t i = 0;
	if (!len)
		return 0;
	while (i < len) {
		if (!isdigit((unsigned char)s[i]))
			return 0;
		while (i < len && isdigit((unsigned char)s[i]))
			i++;
		if (i < len && s[i] == '=')
			while (i < len && s[i] != ',')
				i++;
		if (i < len && s[i] != ',')
			return 0;
		if (i < len && ++i == len)
			return 0; /* trailing comma */
	}
	return 1;
}

/* One compact entry: NAME:AXES, the name being everything before the last
 * ':' that is followed by a valid axis list (names may contain ':'). */
static int parse_axes_entry(struct onnx_write_options *o, const char *spec,
			    const char *e, size_t len, struct diag *d)
{
	const char *colon = NULL;
	for (size_t i = len; i-- > 0;) {
		if (e[i] == ':' && i > 0 && is_axis_list(e + i + 1, len - i - 1)) {
			colon = e + i;
			break;
		}
	}
	if (!colon)
		return diag_error(d, "dynamic axes '%s': expected NAME:AXIS=LABEL"
				  ",... or NAME:AXIS,... in '%.*s'", spec,
				  (int)len, e);
	const char *p = colon + 1, *end = e + len;
	size_t vlen = (size_t)(colon - e);
	int named = -1;
	for (uint32_t index = 0; p < end; index++) {
		const char *c = memchr(p, ',', (size_t)(end - p));
		const char *item_end = c ? c : end;
		const char *eq = memchr(p, '=', (size_t)(item_end - p));
		if (named >= 0 && named != (eq != NULL))
			return diag_error(d, "dynamic axes '%s': '%.*s' mixes "
					  "named and unnamed axes (use a dict "
					  "or a list, as torch does)", spec,
					  (int)vlen, e);
		named = eq != NULL;
		int64_t axis = strtoll(p, NULL, 10);
		if (add_axis(o, spec, e, vlen, axis, eq ? eq + 1 : NULL,
			     eq ? (size_t)(item_end - eq - 1) : 0, index, d))
			return -1;
		p = c ? c + 1 : end;
	}
	return 0;
}

int onnx_write_parse_dynamic_axes(struct onnx_write_options *o,
				  const char *spec, struct diag *d)
{
	const char *p = spec;
	while (isspace((unsigned char)*p))
		p++;
	if (*p == '{')
		return parse_axes_dict(o, spec, d);
	for (;;) {
		const char *e = strchr(p, ';');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (len && parse_axes_entry(o, spec, p, len, d))
			return -1;
		if (!e)
			return 0;
		p = e + 1;
	}
}

/* --- custom opsets -------------------------------------------------------- */

static int add_opset(struct onnx_write_options *o, const char *spec,
		     const char *domain, size_t dlen, int64_t version,
		     struct diag *d)
{
	if (!dlen || (dlen == 7 && !memcmp(domain, "ai.onnx", 7)))
		return diag_error(d, "custom opset '%s': the default domain's "
				  "version is the opset (--opset)", spec);
	if (version < 1)
		return diag_error(d, "custom opset '%s': version %lld is not "
				  "positive", spec, (long long)version);
	for (uint32_t i = 0; i < o->ncustom_opsets; i++) {
		if (strlen(o->custom_opsets[i].domain) == dlen &&
		    !memcmp(o->custom_opsets[i].domain, domain, dlen)) {
			o->custom_opsets[i].version = version;
			return 0;
		}
	}
	o->custom_opsets = xrealloc(o->custom_opsets,
				    sizeof(*o->custom_opsets) *
					    (o->ncustom_opsets + 1));
	o->custom_opsets[o->ncustom_opsets].domain = xstrndup(domain, dlen);
	o->custom_opsets[o->ncustom_opsets++].version = version;
	return 0;
}

int onnx_write_parse_custom_opset(struct onnx_write_options *o,
				  const char *spec, struct diag *d)
{
	struct lex l = { spec, spec, "custom opset", d };

	if (lex_peek(&l) == '{') {
		l.p++;
		while (!lex_accept(&l, '}')) {
			char *dom;
			int64_t v;
			if (lex_string(&l, &dom))
				return -1;
			int rc = lex_expect(&l, ':') || lex_int(&l, &v) ||
				 add_opset(o, spec, dom, strlen(dom), v, d);
			free(dom);
			if (rc)
				return -1;
			if (!lex_accept(&l, ',') && lex_peek(&l) != '}')
				return lex_fail(&l, "',' or '}'");
		}
		return lex_end(&l);
	}
	for (const char *p = spec;;) {
		const char *e = strchr(p, ',');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		const char *eq = memchr(p, '=', len);
		char *end;
		if (!eq)
			return diag_error(d, "custom opset '%s': expected "
					  "DOMAIN=VERSION", spec);
		errno = 0;
		long long v = strtoll(eq + 1, &end, 10);
		if (errno || end == eq + 1 || end != p + len)
			return diag_error(d, "custom opset '%s': '%.*s' is not "
					  "a version", spec,
					  (int)(p + len - eq - 1), eq + 1);
		if (add_opset(o, spec, p, (size_t)(eq - p), v, d))
			return -1;
		if (!e)
			return 0;
		p = e + 1;
	}
}

/*
 * aten_schema.c - lookup, overload resolution and printing over the generated
 * schema table (see aten_schema.h).
 *
 * The table is aten_schemas.inc: unique argument records (aten_args), one
 * index list (aten_arg_index) giving each schema's arguments then returns,
 * and the schema rows sorted by qualified name.  Nothing here allocates.
 */
#include "aten_schema.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "aten_schemas.inc"

_Static_assert(ATEN_SCHEMAS_MAX_ARGS <= ATEN_MAX_ARGS,
	       "raise ATEN_MAX_ARGS: a schema has more arguments");
_Static_assert(sizeof(aten_schema_table) / sizeof(aten_schema_table[0]) ==
	       ATEN_SCHEMAS_COUNT, "schema count");

size_t aten_schema_count(void)
{
	return ATEN_SCHEMAS_COUNT;
}

const char *aten_schema_torch_version(void)
{
	return ATEN_SCHEMAS_TORCH_VERSION;
}

const struct aten_schema *aten_schema_at(size_t i)
{
	return i < ATEN_SCHEMAS_COUNT ? &aten_schema_table[i] : NULL;
}

const struct aten_schema *aten_schema_lookup(const char *qualname,
					     size_t *count)
{
	size_t lo = 0, hi = ATEN_SCHEMAS_COUNT, end;

	*count = 0;
	if (!qualname)
		return NULL;
	while (lo < hi) { /* first entry whose name >= qualname */
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(aten_schema_table[mid].name, qualname) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (end = lo; end < ATEN_SCHEMAS_COUNT &&
	     !strcmp(aten_schema_table[end].name, qualname); end++)
		;
	if (end == lo)
		return NULL;
	*count = end - lo;
	return &aten_schema_table[lo];
}

int aten_schema_visible(const struct aten_schema *s, enum aten_era era)
{
	return !(s->flags & ATEN_SCHEMA_TWIN) ||
	       (s->flags & (era == ATEN_ERA_2_11 ? ATEN_SCHEMA_IN_2_11
						 : ATEN_SCHEMA_IN_1_13));
}

const struct aten_schema *aten_schema_find_era(const char *qualname,
					       const char *overload,
					       enum aten_era era)
{
	size_t n;
	const struct aten_schema *s = aten_schema_lookup(qualname, &n);

	for (size_t i = 0; i < n; i++)
		if (!strcmp(s[i].overload, overload ? overload : "") &&
		    aten_schema_visible(&s[i], era))
			return &s[i];
	return NULL;
}

const struct aten_schema *aten_schema_find(const char *qualname,
					   const char *overload)
{
	return aten_schema_find_era(qualname, overload, ATEN_ERA_1_13);
}

const struct aten_arg *aten_schema_arg(const struct aten_schema *s, int i)
{
	if (!s || i < 0 || i >= s->nargs)
		return NULL;
	return &aten_args[aten_arg_index[s->first_arg + i]];
}

const struct aten_arg *aten_schema_ret(const struct aten_schema *s, int i)
{
	if (!s || i < 0 || i >= s->nrets)
		return NULL;
	return &aten_args[aten_arg_index[s->first_ret + i]];
}

int aten_schema_arg_index(const struct aten_schema *s, const char *name)
{
	for (int i = 0; s && name && i < s->nargs; i++)
		if (!strcmp(aten_schema_arg(s, i)->name, name))
			return i;
	return -1;
}

const int64_t *aten_arg_default_ints(const struct aten_arg *a)
{
	if (a->def_kind != ATEN_DEF_INTS && a->def_kind != ATEN_DEF_BOOLS)
		return NULL;
	return &aten_default_ints[a->def_i];
}

const double *aten_arg_default_floats(const struct aten_arg *a)
{
	if (a->def_kind != ATEN_DEF_FLOATS)
		return NULL;
	return &aten_default_floats[a->def_i];
}

/* --- matching -------------------------------------------------------------- */

static const char *const kind_names[ATEN_KIND_COUNT] = {
	[ATEN_KIND_ANY] = "Any",
	[ATEN_KIND_TENSOR] = "Tensor",
	[ATEN_KIND_INT] = "int",
	[ATEN_KIND_FLOAT] = "float",
	[ATEN_KIND_BOOL] = "bool",
	[ATEN_KIND_COMPLEX] = "complex",
	[ATEN_KIND_NUMBER] = "Scalar",
	[ATEN_KIND_STR] = "str",
	[ATEN_KIND_NONE] = "None",
	[ATEN_KIND_DEVICE] = "Device",
	[ATEN_KIND_INT_LIST] = "int[]",
	[ATEN_KIND_FLOAT_LIST] = "float[]",
	[ATEN_KIND_BOOL_LIST] = "bool[]",
	[ATEN_KIND_TENSOR_LIST] = "Tensor[]",
	[ATEN_KIND_OPT_TENSOR_LIST] = "Tensor?[]",
	[ATEN_KIND_STR_LIST] = "str[]",
	[ATEN_KIND_LIST] = "list",
	[ATEN_KIND_TUPLE] = "tuple",
	[ATEN_KIND_DICT] = "dict",
	[ATEN_KIND_OBJECT] = "object",
};

const char *aten_kind_name(unsigned kind)
{
	unsigned k = kind & ~(unsigned)ATEN_KIND_OPTIONAL;
	if (k >= ATEN_KIND_COUNT)
		return "?";
	if (kind & ATEN_KIND_OPTIONAL) {
		/* "Optional[int]" etc.: a small fixed set, kept static */
		static const char *const opt[ATEN_KIND_COUNT] = {
			[ATEN_KIND_TENSOR] = "Tensor?", [ATEN_KIND_INT] = "int?",
			[ATEN_KIND_FLOAT] = "float?", [ATEN_KIND_BOOL] = "bool?",
			[ATEN_KIND_STR] = "str?", [ATEN_KIND_INT_LIST] = "int[]?",
			[ATEN_KIND_FLOAT_LIST] = "float[]?",
			[ATEN_KIND_TENSOR_LIST] = "Tensor[]?",
		};
		return opt[k] ? opt[k] : "Optional";
	}
	return kind_names[k];
}

/* Does a list value of kind k fit a list parameter with element base b? */
static int list_fits(unsigned k, const struct aten_arg *p)
{
	int elem_opt = (p->flags & ATEN_ARG_ELEM_OPTIONAL) != 0;

	if (p->base == ATEN_BASE_ANY || p->base == ATEN_BASE_COMPOSITE ||
	    k == ATEN_KIND_LIST)
		return 1;
	switch (k) {
	case ATEN_KIND_INT_LIST:
		return p->base == ATEN_BASE_INT && !elem_opt;
	case ATEN_KIND_FLOAT_LIST:
		return p->base == ATEN_BASE_FLOAT && !elem_opt;
	case ATEN_KIND_BOOL_LIST:
		return p->base == ATEN_BASE_BOOL && !elem_opt;
	case ATEN_KIND_TENSOR_LIST:
		return p->base == ATEN_BASE_TENSOR && !elem_opt;
	case ATEN_KIND_OPT_TENSOR_LIST:
		return p->base == ATEN_BASE_TENSOR && elem_opt;
	case ATEN_KIND_STR_LIST:
		return p->base == ATEN_BASE_STR && !elem_opt;
	default:
		return 0;
	}
}

static int is_list_kind(unsigned k)
{
	return k >= ATEN_KIND_INT_LIST && k <= ATEN_KIND_LIST;
}

/* Which kinds of value a parameter of a (non-list) base takes: as they are
 * (ATEN_CONV_NONE) or, where conversions are allowed, by conv.  Any and
 * composite parameters take every kind. */
static const struct {
	unsigned char base;	/* enum aten_base */
	unsigned char kind;	/* enum aten_kind */
	unsigned char conv;	/* enum aten_conv */
} scalar_fits[] = {
	{ ATEN_BASE_TENSOR, ATEN_KIND_TENSOR, ATEN_CONV_NONE },
	{ ATEN_BASE_INT, ATEN_KIND_INT, ATEN_CONV_NONE },
	{ ATEN_BASE_INT, ATEN_KIND_TENSOR, ATEN_CONV_TENSOR_TO_INT },
	{ ATEN_BASE_INT, ATEN_KIND_NUMBER, ATEN_CONV_TO_INT },
	{ ATEN_BASE_INT, ATEN_KIND_BOOL, ATEN_CONV_TO_INT },
	{ ATEN_BASE_FLOAT, ATEN_KIND_FLOAT, ATEN_CONV_NONE },
	{ ATEN_BASE_FLOAT, ATEN_KIND_TENSOR, ATEN_CONV_TENSOR_TO_FLOAT },
	{ ATEN_BASE_FLOAT, ATEN_KIND_NUMBER, ATEN_CONV_TO_FLOAT },
	{ ATEN_BASE_FLOAT, ATEN_KIND_BOOL, ATEN_CONV_TO_FLOAT },
	{ ATEN_BASE_NUMBER, ATEN_KIND_INT, ATEN_CONV_NONE },
	{ ATEN_BASE_NUMBER, ATEN_KIND_FLOAT, ATEN_CONV_NONE },
	{ ATEN_BASE_NUMBER, ATEN_KIND_COMPLEX, ATEN_CONV_NONE },
	{ ATEN_BASE_NUMBER, ATEN_KIND_NUMBER, ATEN_CONV_NONE },
	{ ATEN_BASE_NUMBER, ATEN_KIND_TENSOR, ATEN_CONV_TENSOR_TO_NUMBER },
	{ ATEN_BASE_NUMBER, ATEN_KIND_BOOL, ATEN_CONV_TO_INT },
	{ ATEN_BASE_COMPLEX, ATEN_KIND_COMPLEX, ATEN_CONV_NONE },
	{ ATEN_BASE_COMPLEX, ATEN_KIND_TENSOR, ATEN_CONV_TENSOR_TO_NUMBER },
	{ ATEN_BASE_BOOL, ATEN_KIND_BOOL, ATEN_CONV_NONE },
	{ ATEN_BASE_STR, ATEN_KIND_STR, ATEN_CONV_NONE },
	{ ATEN_BASE_DEVICE, ATEN_KIND_DEVICE, ATEN_CONV_NONE },
	{ ATEN_BASE_DEVICE, ATEN_KIND_STR, ATEN_CONV_STR_TO_DEVICE },
	{ ATEN_BASE_NONE, ATEN_KIND_NONE, ATEN_CONV_NONE },
	{ ATEN_BASE_TUPLE, ATEN_KIND_TUPLE, ATEN_CONV_NONE },
	{ ATEN_BASE_DICT, ATEN_KIND_DICT, ATEN_CONV_NONE },
	{ ATEN_BASE_OBJECT, ATEN_KIND_OBJECT, ATEN_CONV_NONE },
};

/* Does a value of kind k (no OPTIONAL bit) fit parameter p, with p's outer
 * Optional already accounted for?  Sets *conv.  Returns 1 when it does. */
static int value_fits(unsigned k, const struct aten_arg *p, int allow_conv,
		      enum aten_conv *conv)
{
	size_t i;

	*conv = ATEN_CONV_NONE;
	if (k == ATEN_KIND_ANY)
		return 1;
	if (p->flags & ATEN_ARG_LIST) {
		if (is_list_kind(k))
			return list_fits(k, p);
		if (k == ATEN_KIND_TUPLE) {
			*conv = ATEN_CONV_TUPLE_TO_LIST;
			return 1;
		}
		if (p->list_n && ((k == ATEN_KIND_INT && p->base == ATEN_BASE_INT) ||
				  (k == ATEN_KIND_FLOAT &&
				   p->base == ATEN_BASE_FLOAT))) {
			*conv = ATEN_CONV_BROADCAST;
			return 1;
		}
		return 0;
	}
	if (p->base == ATEN_BASE_ANY || p->base == ATEN_BASE_COMPOSITE)
		return 1; /* composite: not modelled, let the reader check */
	for (i = 0; i < sizeof(scalar_fits) / sizeof(scalar_fits[0]); i++) {
		if (scalar_fits[i].base != p->base || scalar_fits[i].kind != k)
			continue;
		if (scalar_fits[i].conv == ATEN_CONV_NONE)
			return 1;
		if (!allow_conv)
			return 0;
		*conv = (enum aten_conv)scalar_fits[i].conv;
		return 1;
	}
	return 0;
}

/* Whole check of one argument of kind `kind` (maybe OPTIONAL) against p. */
static int arg_fits(unsigned kind, const struct aten_arg *p, int allow_conv,
		    enum aten_conv *conv)
{
	unsigned k = kind & ~(unsigned)ATEN_KIND_OPTIONAL;
	int p_opt = (p->flags & ATEN_ARG_OPTIONAL) != 0;

	*conv = ATEN_CONV_NONE;
	if (k >= ATEN_KIND_COUNT)
		return 0;
	if (k == ATEN_KIND_NONE)
		return p_opt || p->base == ATEN_BASE_NONE ||
		       (p->base == ATEN_BASE_ANY && !(p->flags & ATEN_ARG_LIST));
	if (kind & ATEN_KIND_OPTIONAL) {
		/* Optional[T] fits T? (and Any); never T itself */
		if (!(p->flags & ATEN_ARG_LIST) && p->base == ATEN_BASE_ANY)
			return 1;
		if (!p_opt)
			return 0;
		return value_fits(k, p, 0, conv) && *conv == ATEN_CONV_NONE;
	}
	return value_fits(k, p, allow_conv, conv);
}

static void why_set(char *why, size_t whylen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void why_set(char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;
	if (!why || !whylen)
		return;
	va_start(ap, fmt);
	vsnprintf(why, whylen, fmt, ap);
	va_end(ap);
}

int aten_schema_bind(const struct aten_schema *s,
		     const struct aten_call_arg *args, int nargs,
		     int allow_conv, struct aten_match *m,
		     char *why, size_t whylen)
{
	int npos = 0, used = 0, nkw_used = 0, nkw;

	memset(m, 0, sizeof(*m));
	if (!s || nargs < 0 || (nargs > 0 && !args)) {
		why_set(why, whylen, "no schema");
		return -1;
	}
	while (npos < nargs && !args[npos].name)
		npos++;
	for (int i = npos; i < nargs; i++)
		if (!args[i].name) {
			why_set(why, whylen, "positional argument after "
				"keyword argument");
			return -1;
		}
	nkw = nargs - npos;
	for (int i = 0; i < s->nargs; i++) {
		const struct aten_arg *p = aten_schema_arg(s, i);
		int src = -1;

		if (!(p->flags & ATEN_ARG_KWARG_ONLY) && used < npos) {
			src = used++;
		} else {
			for (int j = npos; j < nargs; j++)
				if (!strcmp(args[j].name, p->name)) {
					src = j;
					nkw_used++;
					break;
				}
		}
		if (src < 0) {
			if (p->def_kind == ATEN_DEF_NONE_GIVEN) {
				why_set(why, whylen,
					"argument '%s' not provided", p->name);
				return -1;
			}
			m->bind[i].arg = ATEN_BIND_DEFAULT;
			continue;
		}
		if (!arg_fits(args[src].kind, p, allow_conv, &m->bind[i].conv)) {
			why_set(why, whylen, "argument '%s' must be %s, not %s",
				p->name, p->type, aten_kind_name(args[src].kind));
			return -1;
		}
		if (m->bind[i].conv != ATEN_CONV_NONE)
			m->converted = 1;
		m->bind[i].arg = src;
	}
	if (used < npos) {
		if (!(s->flags & ATEN_SCHEMA_VARARG)) {
			why_set(why, whylen, "expected at most %d positional "
				"arguments, got %d", used, npos);
			return -1;
		}
		m->nvararg = npos - used;
	}
	if (nkw_used < nkw) {
		for (int j = npos; j < nargs; j++)
			if (aten_schema_arg_index(s, args[j].name) < 0) {
				why_set(why, whylen, "unknown keyword argument "
					"'%s'", args[j].name);
				return -1;
			}
		why_set(why, whylen, "argument given twice");
		return -1;
	}
	m->schema = s;
	return 0;
}

int aten_schema_resolve(const char *qualname,
			const struct aten_call_arg *args, int nargs,
			struct aten_match *m, char *why, size_t whylen)
{
	return aten_schema_resolve_era(qualname, ATEN_ERA_1_13, args, nargs, m,
				       why, whylen);
}

int aten_schema_resolve_era(const char *qualname, enum aten_era era,
			    const struct aten_call_arg *args, int nargs,
			    struct aten_match *m, char *why, size_t whylen)
{
	size_t n, seen = 0;
	const struct aten_schema *s = aten_schema_lookup(qualname, &n);

	memset(m, 0, sizeof(*m));
	if (!s) {
		why_set(why, whylen, "unknown operator '%s'",
			qualname ? qualname : "(null)");
		return -1;
	}
	char first[128] = "";

	for (int pass = 0; pass < 2; pass++) {
		seen = 0;
		for (size_t i = 0; i < n; i++) {
			if (!aten_schema_visible(&s[i], era))
				continue;
			seen++;
			if (!aten_schema_bind(&s[i], args, nargs, pass, m,
					      pass && seen == 1 ? first : NULL,
					      sizeof(first)))
				return 0;
		}
	}
	if (seen > 1)
		why_set(why, whylen, "no overload of '%s' matches (%zu tried; "
			"the first: %s)", qualname, seen, first);
	else
		why_set(why, whylen, "%s", first);
	m->schema = NULL;
	return -1;
}

/* --- printing -------------------------------------------------------------- */

/* A bounded string builder: always NUL-terminated, counts what it needed. */
struct sbuf {
	char *buf;
	size_t cap, len;
};

static void sb_put(struct sbuf *b, const char *s, size_t n)
{
	if (b->len < b->cap) {
		size_t room = b->cap - 1 - b->len;
		memcpy(b->buf + b->len, s, n < room ? n : room);
		b->buf[b->len + (n < room ? n : room)] = 0;
	}
	b->len += n;
}

static void sb_str(struct sbuf *b, const char *s)
{
	sb_put(b, s, strlen(s));
}

static void sb_printf(struct sbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	char tmp[64];
	va_list ap;
	int n;
	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n > 0)
		sb_put(b, tmp, (size_t)n < sizeof(tmp) ? (size_t)n
			: sizeof(tmp) - 1);
}

/* A double as IValue::repr writes it: "1.", "-0.", else %.17g. */
static void sb_double(struct sbuf *b, double d)
{
	if ((fpclassify(d) == FP_NORMAL || fpclassify(d) == FP_ZERO) &&
	    fabs(d) < 1e10 && (double)(long long)d == d) {
		if (d == 0 && signbit(d))
			sb_str(b, "-0.");
		else
			sb_printf(b, "%lld.", (long long)d);
		return;
	}
	if (isnan(d))
		sb_str(b, "nan");
	else if (isinf(d))
		sb_str(b, d < 0 ? "-inf" : "inf");
	else
		sb_printf(b, "%.17g", d);
}

/* A string as c10::printQuotedString writes it. */
static void sb_quoted(struct sbuf *b, const char *s)
{
	sb_put(b, "\"", 1);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		switch (c) {
		case '\\': sb_str(b, "\\\\"); break;
		case '\'': sb_str(b, "\\'"); break;
		case '"': sb_str(b, "\\\""); break;
		case '\a': sb_str(b, "\\a"); break;
		case '\b': sb_str(b, "\\b"); break;
		case '\f': sb_str(b, "\\f"); break;
		case '\n': sb_str(b, "\\n"); break;
		case '\r': sb_str(b, "\\r"); break;
		case '\t': sb_str(b, "\\t"); break;
		case '\v': sb_str(b, "\\v"); break;
		default:
			if (c >= 0x20 && c < 0x7f)
				sb_put(b, (const char *)&c, 1);
			else
				sb_printf(b, "\\%03o", c);
		}
	}
	sb_put(b, "\"", 1);
}

static void sb_default(struct sbuf *b, const struct aten_arg *a)
{
	const int64_t *iv;
	const double *fv;

	switch (a->def_kind) {
	case ATEN_DEF_NONE:
		sb_str(b, "None");
		break;
	case ATEN_DEF_INT:
		sb_printf(b, "%lld", (long long)a->def_i);
		break;
	case ATEN_DEF_FLOAT:
		sb_double(b, a->def_f);
		break;
	case ATEN_DEF_BOOL:
		sb_str(b, a->def_i ? "True" : "False");
		break;
	case ATEN_DEF_STR:
		sb_quoted(b, a->def_s ? a->def_s : "");
		break;
	case ATEN_DEF_INTS:
		iv = aten_arg_default_ints(a);
		/* torch writes `int[2] stride=1` for [1, 1] */
		if (!strncmp(a->type, "int[", 4) &&
		    a->type[strlen(a->type) - 1] == ']' && a->def_n > 1) {
			int same = 1;
			for (int i = 1; i < a->def_n; i++)
				same &= iv[i] == iv[0];
			if (same) {
				sb_printf(b, "%lld", (long long)iv[0]);
				break;
			}
		}
		sb_str(b, "[");
		for (int i = 0; i < a->def_n; i++)
			sb_printf(b, "%s%lld", i ? ", " : "", (long long)iv[i]);
		sb_str(b, "]");
		break;
	case ATEN_DEF_BOOLS:
		iv = aten_arg_default_ints(a);
		sb_str(b, "[");
		for (int i = 0; i < a->def_n; i++)
			sb_printf(b, "%s%s", i ? ", " : "",
				  iv[i] ? "True" : "False");
		sb_str(b, "]");
		break;
	case ATEN_DEF_FLOATS:
		fv = aten_arg_default_floats(a);
		sb_str(b, "[");
		for (int i = 0; i < a->def_n; i++) {
			if (i)
				sb_str(b, ", ");
			sb_double(b, fv[i]);
		}
		sb_str(b, "]");
		break;
	default:
		break;
	}
}

size_t aten_arg_format_default(const struct aten_arg *a, char *buf, size_t n)
{
	struct sbuf b = { buf, n, 0 };
	if (n)
		buf[0] = 0;
	sb_default(&b, a);
	return b.len;
}

static void sb_arg(struct sbuf *b, const struct aten_arg *a)
{
	size_t tl = strlen(a->type);
	size_t at = a->alias_at <= tl ? a->alias_at : tl;

	if (a->alias) {
		sb_put(b, a->type, at);
		sb_str(b, "(");
		sb_str(b, a->alias);
		sb_str(b, ")");
		sb_str(b, a->type + at);
	} else {
		sb_str(b, a->type);
	}
	if (a->name[0]) {
		sb_str(b, " ");
		sb_str(b, a->name);
	}
	if (a->def_kind != ATEN_DEF_NONE_GIVEN) {
		sb_str(b, "=");
		sb_default(b, a);
	}
}

size_t aten_schema_format(const struct aten_schema *s, char *buf, size_t n)
{
	struct sbuf b = { buf, n, 0 };
	int kw = 0, paren;

	if (n)
		buf[0] = 0;
	sb_str(&b, s->name);
	if (s->overload[0]) {
		sb_str(&b, ".");
		sb_str(&b, s->overload);
	}
	sb_str(&b, "(");
	for (int i = 0; i < s->nargs; i++) {
		const struct aten_arg *a = aten_schema_arg(s, i);
		if (i)
			sb_str(&b, ", ");
		if ((a->flags & ATEN_ARG_KWARG_ONLY) && !kw) {
			sb_str(&b, "*, ");
			kw = 1;
		}
		sb_arg(&b, a);
	}
	if (s->flags & ATEN_SCHEMA_VARARG)
		sb_str(&b, s->nargs ? ", ..." : "...");
	sb_str(&b, ") -> ");
	/* FunctionSchema's operator<<: parentheses unless one return (or
	 * only `...`), and around one return whose type starts with '(' */
	paren = !((s->nrets == 1 && !(s->flags & ATEN_SCHEMA_VARRET)) ||
		  (s->nrets == 0 && (s->flags & ATEN_SCHEMA_VARRET)));
	if (s->nrets == 1 && !paren && aten_schema_ret(s, 0)->type[0] == '(')
		paren = 1;
	if (paren)
		sb_str(&b, "(");
	for (int i = 0; i < s->nrets; i++) {
		if (i)
			sb_str(&b, ", ");
		sb_arg(&b, aten_schema_ret(s, i));
	}
	if (s->flags & ATEN_SCHEMA_VARRET)
		sb_str(&b, s->nrets ? ", ..." : "...");
	if (paren)
		sb_str(&b, ")");
	return b.len;
}

/*
 * ir_text.c - the text form of the IR: a printer and a parser that are
 * exact inverses of each other (docs/ir.md, "Text form").
 *
 * The printer walks the graph once and writes straight to the FILE.  The
 * parser reads the whole input into memory (NUL-terminated, so every scan
 * stops at the end) and walks it with one cursor: recursive descent over
 * lines, where indentation says only where a block ends.  The first error
 * is reported with its line and stops the parse.  Nothing in the input is
 * trusted: recursion is bounded (MAX_DEPTH nested types, MAX_BLOCK_DEPTH
 * nested blocks), counts are checked against what the input can hold
 * before anything is allocated, and malformed input is never an assertion.
 *
 * Invariants: canonical text (what the printer writes) parses and prints
 * back byte for byte; graph -> text -> graph keeps every field the binary
 * form keeps, floats bit for bit (NaN payloads included).
 *
 * Scoping: values are unique in the graph; a use must see a definition
 * earlier in its block or an enclosing one.  While parsing, each value's
 * `aux` points at a scratch record (defining line, in scope or not); the
 * parser clears `aux` again before it returns.
 *
 * Costs: both directions are linear in the text, plus one hash lookup per
 * value reference.  The parser holds the whole text in memory.
 */
#include "ir.h"
#include "weight_bytes.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 64        /* nested types */
#define MAX_BLOCK_DEPTH 256 /* nested blocks (as the binary form) */
#define MAX_INDENT 100000   /* longest indentation accepted */
#define MAX_NUMBER_LEN 512  /* longest numeric literal accepted */
#define NSHOW 4             /* message buffers in use at once */
#define MAX_RANK 64         /* dimensions of a tensor (as the binary form) */

#define NAN64_BITS 0x7ff8000000000000ull /* what "nan" reads as (double) */
#define NAN32_BITS 0x7fc00000u           /* what "nan" reads as (float) */

/* --- character classes (ASCII, no locale) ------------------------------- */

static int is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static int is_alpha(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int hex_val(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* identifiers: graph, block, attribute and class names, dim symbols */
static int is_ident_start(int c)
{
	return is_alpha(c) || c == '_';
}

static int is_ident_char(int c)
{
	return is_alpha(c) || is_digit(c) || c == '_' || c == '.' || c == '-';
}

/* bare value names, after '%' */
static int is_vname_char(int c)
{
	return is_alpha(c) || is_digit(c) || c == '_' || c == '.' || c == '/' ||
	       c == ':' || c == '-';
}

/* bare node kinds */
static int is_kind_char(int c)
{
	return is_alpha(c) || is_digit(c) || c == '_' || c == '.' || c == ':' ||
	       c == '-';
}

static int ident_ok(const char *s)
{
	if (!is_ident_start((unsigned char)s[0]))
		return 0;
	for (s++; *s; s++)
		if (!is_ident_char((unsigned char)*s))
			return 0;
	return 1;
}

static int vname_ok(const char *s)
{
	size_t n = strlen(s);
	if (!n || s[n - 1] == ':')
		return 0;
	for (; *s; s++)
		if (!is_vname_char((unsigned char)*s))
			return 0;
	return 1;
}

static int kind_ok(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!is_kind_char((unsigned char)*s))
			return 0;
	return 1;
}

/* "block" followed by digits: the label of a nested block */
static int is_block_label(const char *s, size_t n)
{
	if (n < 6 || memcmp(s, "block", 5))
		return 0;
	for (size_t i = 5; i < n; i++)
		if (!is_digit((unsigned char)s[i]))
			return 0;
	return 1;
}

/* attribute names that need quotes: the pseudo-attributes and block labels */
static int attr_name_bare(const char *s)
{
	return ident_ok(s) && strcmp(s, "onnx_name") &&
	       strcmp(s, "doc_string") && strcmp(s, "extra") &&
	       !is_block_label(s, strlen(s));
}

static const char *const type_words[] = {
	"Tensor", "int", "float", "bool", "str", "NoneType", "Device", "Any",
	"Dynamic", "Dict", NULL
};

/* class names that would read back as another type need quotes */
static int class_name_bare(const char *s)
{
	if (!ident_ok(s) || ir_dtype_from_name(s, strlen(s)) >= 0)
		return 0;
	for (int i = 0; type_words[i]; i++)
		if (!strcmp(s, type_words[i]))
			return 0;
	return 1;
}

/* scopes print bare when they are one printable ASCII word without '#' */
static int scope_bare(const char *s)
{
	if (!*s || *s == '"')
		return 0;
	for (; *s; s++)
		if ((unsigned char)*s <= 0x20 || (unsigned char)*s >= 0x7f ||
		    *s == '#')
			return 0;
	return 1;
}

/* sources run to the end of the line: printable ASCII, no edge spaces */
static int source_bare(const char *s)
{
	size_t n = strlen(s);
	if (!n || *s == '"' || s[0] == ' ' || s[n - 1] == ' ')
		return 0;
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			return 0;
	return 1;
}

/* --- little-endian element access ---------------------------------------- */

static uint64_t load_le(const unsigned char *p, size_t n)
{
	uint64_t v = 0;
	while (n--)
		v = (v << 8) | p[n];
	return v;
}

static void store_le(unsigned char *p, uint64_t v, size_t n)
{
	for (size_t i = 0; i < n; i++, v >>= 8)
		p[i] = (unsigned char)v;
}

/* numel of dims, 0 on overflow with *ovf set */
static uint64_t checked_numel(int rank, const int64_t *dims, int *ovf)
{
	uint64_t n = 1;
	*ovf = 0;
	for (int i = 0; i < rank; i++) {
		uint64_t d = dims[i] < 0 ? 0 : (uint64_t)dims[i];
		if (d && n > UINT64_MAX / d) {
			*ovf = 1;
			return 0;
		}
		n *= d;
	}
	return n;
}

/* --- msgpack bytes ------------------------------------------------------ */

/* Skips one msgpack object at p[*pi..n), advancing *pi.  Returns 0, or -1
 * when the bytes end first or hold the unused tag 0xc1.  Walks headers
 * without allocating: `pending` counts the objects still to skip. */
static int mp_skip(const unsigned char *p, size_t n, size_t *pi)
{
	uint64_t pending = 1;
	size_t i = *pi;
	while (pending) {
		uint64_t len = 0, items = 0;
		size_t lb = 0, fixed = 0;
		unsigned c;
		if (i >= n || pending > n - i)
			return -1; /* each object takes a byte at least */
		pending--;
		c = p[i++];
		if (c <= 0x7f || c >= 0xe0 || c == 0xc0 || c == 0xc2 ||
		    c == 0xc3)
			continue;
		if ((c & 0xf0) == 0x80)
			items = 2 * (uint64_t)(c & 0x0f);
		else if ((c & 0xf0) == 0x90)
			items = c & 0x0f;
		else if ((c & 0xe0) == 0xa0)
			fixed = c & 0x1f;
		else
			switch (c) {
			case 0xc4: case 0xd9: lb = 1; break; /* bin8, str8 */
			case 0xc5: case 0xda: lb = 2; break;
			case 0xc6: case 0xdb: lb = 4; break;
			case 0xc7: lb = 1; fixed = 1; break;  /* ext: + type */
			case 0xc8: lb = 2; fixed = 1; break;
			case 0xc9: lb = 4; fixed = 1; break;
			case 0xca: fixed = 4; break;
			case 0xcb: fixed = 8; break;
			case 0xcc: case 0xd0: fixed = 1; break;
			case 0xcd: case 0xd1: fixed = 2; break;
			case 0xce: case 0xd2: fixed = 4; break;
			case 0xcf: case 0xd3: fixed = 8; break;
			case 0xd4: fixed = 2; break;          /* fixext */
			case 0xd5: fixed = 3; break;
			case 0xd6: fixed = 5; break;
			case 0xd7: fixed = 9; break;
			case 0xd8: fixed = 17; break;
			case 0xdc: case 0xde: lb = 2; break;  /* array/map 16 */
			case 0xdd: case 0xdf: lb = 4; break;
			default: return -1;                   /* 0xc1 */
			}
		if (lb) {
			if (n - i < lb)
				return -1;
			for (size_t k = 0; k < lb; k++)
				len = len << 8 | p[i++];
			if (c >= 0xdc && c <= 0xdf)
				items = c >= 0xde ? 2 * len : len;
			else
				fixed += len;
		}
		if (n - i < fixed)
			return -1;
		i += fixed;
		pending += items;
	}
	*pi = i;
	return 0;
}

/* 1 when p[0..n) is exactly one msgpack map (what raw"..." must hold: an
 * unknown attribute, record or set of keys) */
static int msgpack_one_map(const unsigned char *p, size_t n)
{
	size_t i = 0;
	if (!n || !((p[0] & 0xf0) == 0x80 || p[0] == 0xde || p[0] == 0xdf))
		return 0;
	return !mp_skip(p, n, &i) && i == n;
}

/* A msgpack str at p[*pi..n) (a checked object): sets *s, *len and
 * advances.  Returns -1, not advancing, when it is not a str. */
static int mp_str(const unsigned char *p, size_t n, size_t *pi,
		  const char **s, size_t *len)
{
	size_t i = *pi, lb = 0;
	uint64_t l = 0;
	unsigned c = p[i++];
	if ((c & 0xe0) == 0xa0)
		l = c & 0x1f;
	else if (c >= 0xd9 && c <= 0xdb)
		lb = (size_t)1 << (c - 0xd9);
	else
		return -1;
	if (lb > n - i)
		return -1;
	for (size_t k = 0; k < lb; k++)
		l = l << 8 | p[i++];
	if (l > n - i)
		return -1;
	*s = (const char *)p + i;
	*len = (size_t)l;
	*pi = i + (size_t)l;
	return 0;
}

/* The str value of `key` in the map p[0..n) (msgpack_one_map holds).
 * Returns 0 and sets *val, *vlen; -1 when absent or not a str. */
static int msgpack_map_str(const unsigned char *p, size_t n, const char *key,
			   const char **val, size_t *vlen)
{
	size_t i = 1;
	uint64_t count = p[0] & 0x0f;
	if (p[0] == 0xde || p[0] == 0xdf) {
		size_t lb = p[0] == 0xde ? 2 : 4;
		for (count = 0; i <= lb; i++)
			count = count << 8 | p[i];
	}
	for (uint64_t k = 0; k < count && i < n; k++) {
		const char *s;
		size_t l, at = i;
		if (!mp_str(p, n, &i, &s, &l) && l == strlen(key) &&
		    !memcmp(s, key, l))
			return i < n ? mp_str(p, n, &i, val, vlen) : -1;
		i = at;
		if (mp_skip(p, n, &i) || mp_skip(p, n, &i))
			return -1;
	}
	return -1;
}

/* --- floats that read back bit for bit ----------------------------------- */

/* Appends '.' when s would otherwise read as an integer. */
static void mark_float(char *buf, size_t size)
{
	if (strpbrk(buf, ".eEni"))
		return;
	size_t n = strlen(buf);
	if (n + 1 < size) {
		buf[n] = '.';
		buf[n + 1] = 0;
	}
}

static void fmt_f64(char *buf, size_t size, double v)
{
	uint64_t bits;
	memcpy(&bits, &v, sizeof(bits));
	if (isnan(v)) {
		if (bits == NAN64_BITS)
			snprintf(buf, size, "nan");
		else if (bits == (NAN64_BITS | 1ull << 63))
			snprintf(buf, size, "-nan");
		else
			snprintf(buf, size, "nan(0x%016" PRIx64 ")", bits);
		return;
	}
	if (isinf(v)) {
		snprintf(buf, size, v < 0 ? "-inf" : "inf");
		return;
	}
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, size, "%.*g", prec, v);
		double back = strtod(buf, NULL);
		if (!memcmp(&back, &v, sizeof(v)))
			break;
	}
	mark_float(buf, size);
}

static void fmt_f32(char *buf, size_t size, float v)
{
	uint32_t bits;
	memcpy(&bits, &v, sizeof(bits));
	if (isnan(v)) {
		if (bits == NAN32_BITS)
			snprintf(buf, size, "nan");
		else if (bits == (NAN32_BITS | 1u << 31))
			snprintf(buf, size, "-nan");
		else
			snprintf(buf, size, "nan(0x%08" PRIx32 ")", bits);
		return;
	}
	if (isinf(v)) {
		snprintf(buf, size, v < 0 ? "-inf" : "inf");
		return;
	}
	for (int prec = 6; prec <= 9; prec++) {
		snprintf(buf, size, "%.*g", prec, (double)v);
		float back = strtof(buf, NULL);
		if (!memcmp(&back, &v, sizeof(v)))
			break;
	}
	mark_float(buf, size);
}

/* ========================================================================
 * The printer
 * ======================================================================== */

struct printer {
	FILE *fp;
	struct diag *d;
	int failed; /* a problem was reported: the output is not valid */
	int brief;  /* tensor data of more than BRIEF_MAX values as its size */
};

#define BRIEF_MAX 16

static void pr_bad(struct printer *pr, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void pr_bad(struct printer *pr, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	if (pr->failed++)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	diag_error(pr->d, "cannot print the IR as text: %s", msg);
}

static void pr_indent(struct printer *pr, int n)
{
	while (n-- > 0)
		fputc(' ', pr->fp);
}

/* "..." with C escapes; bytes outside printable ASCII as \xHH */
static void pr_quoted(struct printer *pr, const char *s, size_t n)
{
	fputc('"', pr->fp);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		switch (c) {
		case '"':
			fputs("\\\"", pr->fp);
			break;
		case '\\':
			fputs("\\\\", pr->fp);
			break;
		case '\n':
			fputs("\\n", pr->fp);
			break;
		case '\t':
			fputs("\\t", pr->fp);
			break;
		case '\r':
			fputs("\\r", pr->fp);
			break;
		default:
			if (c >= 0x20 && c < 0x7f)
				fputc(c, pr->fp);
			else
				fprintf(pr->fp, "\\x%02x", c);
		}
	}
	fputc('"', pr->fp);
}

static void pr_cstr(struct printer *pr, const char *s)
{
	pr_quoted(pr, s, strlen(s));
}

static void pr_hex(struct printer *pr, const char *prefix, struct ir_bytes b)
{
	fprintf(pr->fp, "%s\"", prefix);
	for (size_t i = 0; i < b.len; i++)
		fprintf(pr->fp, "%02x", (unsigned char)b.data[i]);
	fputc('"', pr->fp);
}

static void pr_ident(struct printer *pr, const char *s)
{
	if (ident_ok(s))
		fputs(s, pr->fp);
	else
		pr_cstr(pr, s);
}

static void pr_vname(struct printer *pr, const struct ir_value *v)
{
	if (!v || !v->name) {
		pr_bad(pr, "a value without a name");
		fputs("%\"\"", pr->fp);
		return;
	}
	fputc('%', pr->fp);
	if (vname_ok(v->name))
		fputs(v->name, pr->fp);
	else
		pr_cstr(pr, v->name);
}

static void pr_attr_name(struct printer *pr, const char *s)
{
	if (attr_name_bare(s))
		fputs(s, pr->fp);
	else
		pr_cstr(pr, s);
}

static void pr_f64(struct printer *pr, double v)
{
	char buf[64];
	fmt_f64(buf, sizeof(buf), v);
	fputs(buf, pr->fp);
}

static void pr_dims(struct printer *pr, int rank, const int64_t *dims)
{
	fputc('(', pr->fp);
	for (int i = 0; i < rank; i++)
		fprintf(pr->fp, "%s%" PRId64, i ? ", " : "", dims[i]);
	fputc(')', pr->fp);
}

static void pr_type(struct printer *pr, const struct ir_type *t, int depth)
{
	if (!t) {
		fputs("Any", pr->fp);
		return;
	}
	if (depth >= MAX_DEPTH) {
		pr_bad(pr, "a type nested deeper than %d levels", MAX_DEPTH);
		return;
	}
	switch (t->kind) {
	case IR_TYPE_UNKNOWN:
		fputs("Any", pr->fp);
		return;
	case IR_TYPE_TENSOR:
		if ((unsigned)t->dtype >= IR_DTYPE_COUNT)
			pr_bad(pr, "a tensor type with dtype %d", (int)t->dtype);
		fputs(ir_dtype_torch_name(t->dtype), pr->fp);
		if (t->rank < -1 || (t->rank > 0 && !t->dims)) {
			pr_bad(pr, "a tensor type of rank %d without dims",
			       t->rank);
			return;
		}
		if (t->rank < 0)
			return;
		fputc('(', pr->fp);
		for (int i = 0; i < t->rank; i++) {
			const struct ir_dim *dm = &t->dims[i];
			if (i)
				fputs(", ", pr->fp);
			if (dm->kind == IR_DIM_FIXED)
				fprintf(pr->fp, "%" PRId64, dm->value);
			else if (dm->kind == IR_DIM_SYMBOL && dm->symbol)
				pr_ident(pr, dm->symbol);
			else if (dm->kind == IR_DIM_UNKNOWN)
				fputc('*', pr->fp);
			else
				pr_bad(pr, "a malformed dimension");
		}
		fputc(')', pr->fp);
		return;
	case IR_TYPE_INT:
		fputs("int", pr->fp);
		return;
	case IR_TYPE_FLOAT:
		fputs("float", pr->fp);
		return;
	case IR_TYPE_BOOL:
		fputs("bool", pr->fp);
		return;
	case IR_TYPE_STR:
		fputs("str", pr->fp);
		return;
	case IR_TYPE_NONE:
		fputs("NoneType", pr->fp);
		return;
	case IR_TYPE_DEVICE:
		fputs("Device", pr->fp);
		return;
	case IR_TYPE_LIST:
	case IR_TYPE_OPTIONAL:
		if (t->nelems != 1 || !t->elems) {
			pr_bad(pr, "a list or optional type with %u element types",
			       t->nelems);
			return;
		}
		pr_type(pr, t->elems[0], depth + 1);
		fputs(t->kind == IR_TYPE_LIST ? "[]" : "?", pr->fp);
		return;
	case IR_TYPE_TUPLE:
	case IR_TYPE_DICT:
		if (t->nelems && !t->elems) {
			pr_bad(pr, "a tuple type without element types");
			return;
		}
		if (t->kind == IR_TYPE_DICT && t->nelems != 2) {
			pr_bad(pr, "a dict type with %u element types",
			       t->nelems);
			return;
		}
		fputs(t->kind == IR_TYPE_DICT ? "Dict(" : "(", pr->fp);
		for (uint32_t i = 0; i < t->nelems; i++) {
			if (i)
				fputs(", ", pr->fp);
			pr_type(pr, t->elems[i], depth + 1);
		}
		fputc(')', pr->fp);
		return;
	case IR_TYPE_CLASS:
		if (!t->name) {
			pr_bad(pr, "a class type without a name");
			return;
		}
		if (class_name_bare(t->name))
			fputs(t->name, pr->fp);
		else
			pr_cstr(pr, t->name);
		return;
	default:
		pr_bad(pr, "a type of kind %d", (int)t->kind);
	}
}

static void pr_elem(struct printer *pr, enum ir_dtype dt,
		    const unsigned char *p)
{
	char buf[64];
	uint64_t u = load_le(p, ir_dtype_size(dt));
	switch (dt) {
	case IR_DTYPE_FLOAT: {
		uint32_t b32 = (uint32_t)u;
		float f;
		memcpy(&f, &b32, sizeof(f));
		fmt_f32(buf, sizeof(buf), f);
		fputs(buf, pr->fp);
		return;
	}
	case IR_DTYPE_DOUBLE: {
		double f;
		memcpy(&f, &u, sizeof(f));
		fmt_f64(buf, sizeof(buf), f);
		fputs(buf, pr->fp);
		return;
	}
	case IR_DTYPE_INT8:
		fprintf(pr->fp, "%d", (int)(int8_t)u);
		return;
	case IR_DTYPE_INT16:
		fprintf(pr->fp, "%d", (int)(int16_t)u);
		return;
	case IR_DTYPE_INT32:
		fprintf(pr->fp, "%" PRId32, (int32_t)u);
		return;
	case IR_DTYPE_INT64:
		fprintf(pr->fp, "%" PRId64, (int64_t)u);
		return;
	default: /* unsigned and Bool */
		fprintf(pr->fp, "%" PRIu64, u);
	}
}

/* whether inline data of dt is printed as {values} (else hex"...") */
static int dtype_has_literals(enum ir_dtype dt)
{
	switch (dt) {
	case IR_DTYPE_FLOAT:
	case IR_DTYPE_DOUBLE:
	case IR_DTYPE_UINT8:
	case IR_DTYPE_INT8:
	case IR_DTYPE_UINT16:
	case IR_DTYPE_INT16:
	case IR_DTYPE_INT32:
	case IR_DTYPE_INT64:
	case IR_DTYPE_UINT32:
	case IR_DTYPE_UINT64:
	case IR_DTYPE_BOOL:
	case IR_DTYPE_STRING:
		return 1;
	default:
		return 0;
	}
}

static void pr_tensor_data(struct printer *pr, const struct ir_tensor *t,
			   const char *what)
{
	int ovf;
	uint64_t numel = checked_numel(t->rank, t->dims, &ovf);

	if (t->data_kind == IR_DATA_REF) {
		fputs("weight(", pr->fp);
		pr_cstr(pr, t->ref.file ? t->ref.file : "");
		if (!t->ref.file)
			pr_bad(pr, "%s refers to no file", what);
		fprintf(pr->fp, ", offset=%" PRIu64 ", length=%" PRIu64,
			t->ref.offset, t->ref.length);
		if (t->ref.strides && t->rank > 0) {
			fputs(", strides=[", pr->fp);
			for (int i = 0; i < t->rank; i++)
				fprintf(pr->fp, "%s%" PRId64, i ? ", " : "",
					t->ref.strides[i]);
			fputc(']', pr->fp);
		}
		if (t->ref.scale && t->rank > 0 && pr->brief &&
		    (uint64_t)t->dims[0] > BRIEF_MAX) {
			fprintf(pr->fp, ", scale=<%" PRId64 " factors>",
				t->dims[0]);
		} else if (t->ref.scale && t->rank > 0) {
			fputs(", scale=[", pr->fp);
			for (int64_t i = 0; i < t->dims[0]; i++) {
				if (i)
					fputs(", ", pr->fp);
				pr_f64(pr, t->ref.scale[i]);
			}
			fputc(']', pr->fp);
		} else if (t->ref.scale) {
			pr_bad(pr, "%s: a scaled view of a scalar", what);
		}
		fputc(')', pr->fp);
		return;
	}
	if (t->data_kind != IR_DATA_INLINE || ovf) {
		pr_bad(pr, "%s is malformed", what);
		return;
	}
	if (pr->brief && numel > BRIEF_MAX) {
		fprintf(pr->fp, "<%" PRIu64 " values, %zu bytes>", numel,
			t->dtype == IR_DTYPE_STRING ? (size_t)0 : t->bytes.len);
		return;
	}
	if (t->dtype == IR_DTYPE_STRING) {
		if (numel && !t->strings) {
			pr_bad(pr, "%s has no strings", what);
			return;
		}
		fputc('{', pr->fp);
		for (uint64_t i = 0; i < numel; i++) {
			if (i)
				fputs(", ", pr->fp);
			pr_quoted(pr, t->strings[i].data ? t->strings[i].data : "",
				  t->strings[i].len);
		}
		fputc('}', pr->fp);
		return;
	}
	size_t size = ir_dtype_size(t->dtype);
	const unsigned char *p = (const unsigned char *)t->bytes.data;
	if (t->bytes.len && !p) {
		pr_bad(pr, "%s has no data", what);
		return;
	}
	if (size && (numel > SIZE_MAX / size || t->bytes.len != numel * size)) {
		pr_bad(pr, "%s has %zu bytes of data, expected %" PRIu64 " x %zu",
		       what, t->bytes.len, numel, size);
		return;
	}
	int literal = dtype_has_literals(t->dtype);
	if (t->dtype == IR_DTYPE_BOOL)
		for (size_t i = 0; i < t->bytes.len && literal; i++)
			literal = p[i] <= 1;
	if (!literal) {
		pr_hex(pr, "hex", t->bytes);
		return;
	}
	fputc('{', pr->fp);
	for (uint64_t i = 0; i < numel; i++) {
		if (i)
			fputs(", ", pr->fp);
		pr_elem(pr, t->dtype, p + i * size);
	}
	fputc('}', pr->fp);
}

/* TYPE DATA [doc_string="..."], the type taken from the tensor */
static void pr_tensor(struct printer *pr, const struct ir_tensor *t,
		      const char *what, int space)
{
	if (!t) {
		pr_bad(pr, "%s has no tensor", what);
		return;
	}
	if ((unsigned)t->dtype >= IR_DTYPE_COUNT || t->rank < 0 ||
	    (t->rank > 0 && !t->dims)) {
		pr_bad(pr, "%s has a malformed tensor", what);
		return;
	}
	fputs(ir_dtype_torch_name(t->dtype), pr->fp);
	pr_dims(pr, t->rank, t->dims);
	if (space)
		fputs(" = ", pr->fp);
	pr_tensor_data(pr, t, what);
	if (t->doc) {
		fputs(" doc_string=", pr->fp);
		pr_cstr(pr, t->doc);
	}
}

/* a graph attribute printed as blocks under its node (else in brackets) */
static int attr_is_block(const struct ir_attr *a)
{
	return a->kind == IR_ATTR_GRAPH ||
	       (a->kind == IR_ATTR_GRAPHS && a->count > 0);
}

static void pr_attr_value(struct printer *pr, const struct ir_attr *a)
{
	FILE *fp = pr->fp;
	if (a->count && a->kind >= IR_ATTR_INTS && a->kind <= IR_ATTR_GRAPHS &&
	    !a->u.ints) {
		pr_bad(pr, "attribute '%s' has no values", a->name);
		return;
	}
	switch (a->kind) {
	case IR_ATTR_INT:
		fprintf(fp, "%" PRId64, a->u.i);
		return;
	case IR_ATTR_FLOAT:
		pr_f64(pr, a->u.f);
		return;
	case IR_ATTR_STRING:
		pr_quoted(pr, a->u.s.data ? a->u.s.data : "", a->u.s.len);
		return;
	case IR_ATTR_TENSOR:
		pr_tensor(pr, a->u.t, "a tensor attribute", 0);
		return;
	case IR_ATTR_GRAPH:
		fputs("graph", fp);
		return;
	case IR_ATTR_GRAPHS:
		fputs("graph[]", fp);
		return;
	case IR_ATTR_INTS:
		fputc('[', fp);
		for (uint32_t i = 0; i < a->count; i++)
			fprintf(fp, "%s%" PRId64, i ? ", " : "", a->u.ints[i]);
		fputc(']', fp);
		return;
	case IR_ATTR_FLOATS:
		if (!a->count) {
			fputs("float[]", fp);
			return;
		}
		fputc('[', fp);
		for (uint32_t i = 0; i < a->count; i++) {
			if (i)
				fputs(", ", fp);
			pr_f64(pr, a->u.floats[i]);
		}
		fputc(']', fp);
		return;
	case IR_ATTR_STRINGS:
		if (!a->count) {
			fputs("str[]", fp);
			return;
		}
		fputc('[', fp);
		for (uint32_t i = 0; i < a->count; i++) {
			if (i)
				fputs(", ", fp);
			pr_quoted(pr, a->u.strings[i].data ? a->u.strings[i].data
							   : "",
				  a->u.strings[i].len);
		}
		fputc(']', fp);
		return;
	case IR_ATTR_TENSORS:
		if (!a->count) {
			fputs("Tensor[]", fp);
			return;
		}
		fputc('[', fp);
		for (uint32_t i = 0; i < a->count; i++) {
			if (i)
				fputs(", ", fp);
			pr_tensor(pr, a->u.tensors[i], "a tensor attribute", 0);
		}
		fputc(']', fp);
		return;
	case IR_ATTR_RAW:
		pr_hex(pr, "raw", a->u.raw);
		return;
	default:
		pr_bad(pr, "attribute '%s' has kind %d", a->name, (int)a->kind);
	}
}

static void pr_block(struct printer *pr, const char *label, long index,
		     int nested, const struct ir_block *b, int ind, int depth);

/* one parameter: %name : TYPE, or a weight %name : TYPE = DATA */
static void pr_param(struct printer *pr, const struct ir_value *v)
{
	pr_vname(pr, v);
	fputs(" : ", pr->fp);
	if (v && v->weight) {
		pr_tensor(pr, v->weight->tensor, "a weight", 1);
		if (v->weight->extra.len)
			pr_hex(pr, " extra=raw", v->weight->extra);
	} else
		pr_type(pr, v ? v->type : NULL, 0);
}

/* PARAMS of a block: its params, then its weights; `sep` between them */
static void pr_params(struct printer *pr, const struct ir_block *b,
		      const struct ir_weight *w, const char *sep)
{
	int n = 0;
	fputc('(', pr->fp);
	if (b->nparams && !b->params) {
		pr_bad(pr, "a block without its parameters");
		return;
	}
	for (uint32_t i = 0; i < b->nparams; i++, n++) {
		if (n)
			fputs(sep, pr->fp);
		if (b->params[i] && b->params[i]->weight)
			pr_bad(pr, "a weight among the parameters");
		pr_param(pr, b->params[i]);
	}
	for (; w; w = w->next, n++) {
		if (n)
			fputs(sep, pr->fp);
		if (!w->value || w->value->weight != w) {
			pr_bad(pr, "a weight without its value");
			return;
		}
		pr_param(pr, w->value);
	}
	fputc(')', pr->fp);
}

static void pr_returns(struct printer *pr, const struct ir_block *b)
{
	fputc('(', pr->fp);
	if (b->nreturns && !b->returns) {
		pr_bad(pr, "a block without its returns");
		return;
	}
	for (uint32_t i = 0; i < b->nreturns; i++) {
		if (i)
			fputs(", ", pr->fp);
		pr_vname(pr, b->returns[i]);
	}
	fputc(')', pr->fp);
}

static void pr_node(struct printer *pr, const struct ir_node *n, int ind,
		    int depth)
{
	FILE *fp = pr->fp;
	int marks = 0, seen_block = 0, nb = 0;

	if ((n->noutputs && !n->outputs) || (n->ninputs && !n->inputs) ||
	    (n->nattrs && !n->attrs) || (n->nblocks && !n->blocks)) {
		pr_bad(pr, "a malformed node");
		return;
	}
	pr_indent(pr, ind);
	for (uint32_t i = 0; i < n->noutputs; i++) {
		if (i)
			fputs(", ", fp);
		pr_vname(pr, n->outputs[i]);
		fputs(" : ", fp);
		pr_type(pr, n->outputs[i] ? n->outputs[i]->type : NULL, 0);
	}
	fputs(n->noutputs ? " = " : "= ", fp);
	if (!n->kind)
		pr_bad(pr, "a node without a kind");
	else if (kind_ok(n->kind))
		fputs(n->kind, fp);
	else
		pr_cstr(pr, n->kind);

	/* graph attributes keep their place among the others with a marker
	 * (name=graph) only when one comes before a bracketed attribute */
	for (uint32_t i = 0; i < n->nattrs; i++) {
		if (attr_is_block(&n->attrs[i]))
			seen_block = 1;
		else if (seen_block)
			marks = 1;
	}
	for (uint32_t i = 0; i < n->nattrs; i++) {
		const struct ir_attr *a = &n->attrs[i];
		if (attr_is_block(a) && !marks)
			continue;
		fputs(nb++ ? ", " : "[", fp);
		pr_attr_name(pr, a->name ? a->name : "");
		fputc('=', fp);
		pr_attr_value(pr, a);
	}
	if (n->name) {
		fputs(nb++ ? ", " : "[", fp);
		fputs("onnx_name=", fp);
		pr_cstr(pr, n->name);
	}
	if (n->doc) {
		fputs(nb++ ? ", " : "[", fp);
		fputs("doc_string=", fp);
		pr_cstr(pr, n->doc);
	}
	if (n->extra.len) {
		fputs(nb++ ? ", " : "[", fp);
		pr_hex(pr, "extra=raw", n->extra);
	}
	if (nb)
		fputc(']', fp);

	fputc('(', fp);
	for (uint32_t i = 0; i < n->ninputs; i++) {
		if (i)
			fputs(", ", fp);
		if (n->inputs[i])
			pr_vname(pr, n->inputs[i]);
		else
			fputc('_', fp);
	}
	fputc(')', fp);
	if (n->scope) {
		fputs(", scope: ", fp);
		if (scope_bare(n->scope))
			fputs(n->scope, fp);
		else
			pr_cstr(pr, n->scope);
	}
	if (n->source) {
		fputs(" # ", fp);
		if (source_bare(n->source))
			fputs(n->source, fp);
		else
			pr_cstr(pr, n->source);
	}
	fputc('\n', fp);

	if ((n->nblocks || seen_block) && depth >= MAX_BLOCK_DEPTH) {
		pr_bad(pr, "blocks nested deeper than %d levels",
		       MAX_BLOCK_DEPTH);
		return;
	}
	for (uint32_t i = 0; i < n->nblocks; i++)
		pr_block(pr, NULL, i, 1, n->blocks[i], ind + 2, depth + 1);
	for (uint32_t i = 0; i < n->nattrs; i++) {
		const struct ir_attr *a = &n->attrs[i];
		if (a->kind == IR_ATTR_GRAPH)
			pr_block(pr, a->name, -1, 0, a->u.g, ind + 2, depth + 1);
		else if (a->kind == IR_ATTR_GRAPHS && a->count && a->u.graphs)
			for (uint32_t j = 0; j < a->count; j++)
				pr_block(pr, a->name, j, 0, a->u.graphs[j],
					 ind + 2, depth + 1);
	}
}

static void pr_nodes(struct printer *pr, const struct ir_block *b, int ind,
		     int depth)
{
	for (const struct ir_node *n = b->first; n && !pr->failed; n = n->next)
		pr_node(pr, n, ind, depth);
}

/* LABEL [NAME](PARAMS):, its nodes, -> (RETURNS) */
static void pr_block(struct printer *pr, const char *label, long index,
		     int nested, const struct ir_block *b, int ind, int depth)
{
	if (!b) {
		pr_bad(pr, "a missing block");
		return;
	}
	pr_indent(pr, ind);
	if (nested) {
		fprintf(pr->fp, "block%ld", index);
	} else {
		pr_attr_name(pr, label ? label : "");
		if (index >= 0)
			fprintf(pr->fp, "[%ld]", index);
	}
	if (b->name) {
		fputc(' ', pr->fp);
		pr_ident(pr, b->name);
	}
	pr_params(pr, b, b->weights, ", ");
	fputs(":\n", pr->fp);
	pr_nodes(pr, b, ind + 2, depth);
	pr_indent(pr, ind + 2);
	fputs("-> ", pr->fp);
	pr_returns(pr, b);
	fputc('\n', pr->fp);
}

/* names of enum ir_raw_section in `unknown SECTION INDEX hex"..."` */
static const char *const section_names[] = {
	[IR_RAW_HEAD] = "head",
	[IR_RAW_WEIGHTS] = "weights",
	[IR_RAW_INPUTS] = "inputs",
	[IR_RAW_NODES] = "nodes",
	[IR_RAW_OUTPUTS] = "outputs",
};
#define NSECTIONS (sizeof(section_names) / sizeof(section_names[0]))

/* Writes the header lines, the graph line, the nodes and `return`. */
int ir_write_text(const struct ir_graph *g, FILE *fp, struct diag *d)
{
	return ir_write_text_as(g, fp, 0, d);
}

int ir_write_text_as(const struct ir_graph *g, FILE *fp, int brief,
		     struct diag *d)
{
	struct printer pr = { fp, d, 0, brief };

	if (g->level != IR_LEVEL_ATEN && g->level != IR_LEVEL_ONNX)
		pr_bad(&pr, "unknown level %d", (int)g->level);
	fprintf(fp, "ir %d.%d %s\n", IR_FORMAT_MAJOR, IR_FORMAT_MINOR,
		g->level == IR_LEVEL_ONNX ? "onnx" : "aten");
	if (g->producer) {
		fputs("producer ", fp);
		pr_cstr(&pr, g->producer);
		fputc('\n', fp);
	}
	if (g->header_extra.len) {
		pr_hex(&pr, "header_extra raw", g->header_extra);
		fputc('\n', fp);
	}
	if (g->doc) {
		fputs("doc ", fp);
		pr_cstr(&pr, g->doc);
		fputc('\n', fp);
	}
	for (uint32_t i = 0; i < g->nopsets; i++) {
		fputs("opset ", fp);
		pr_cstr(&pr, g->opsets[i].domain ? g->opsets[i].domain : "");
		fprintf(fp, " %" PRId64 "\n", g->opsets[i].version);
	}
	for (uint32_t i = 0; i < g->nprops; i++) {
		fputs("prop ", fp);
		pr_cstr(&pr, g->props[i].key ? g->props[i].key : "");
		fputc(' ', fp);
		pr_cstr(&pr, g->props[i].value ? g->props[i].value : "");
		fputc('\n', fp);
	}
	if (g->extra.len) {
		pr_hex(&pr, "graph_extra raw", g->extra);
		fputc('\n', fp);
	}
	for (const struct ir_raw_record *r = g->unknown; r; r = r->next) {
		fputs("unknown ", fp);
		if (r->section != IR_RAW_HEAD || r->index) {
			if ((unsigned)r->section >= NSECTIONS)
				pr_bad(&pr, "an unknown record in section %d",
				       (int)r->section);
			else
				fprintf(fp, "%s %" PRIu32 " ",
					section_names[r->section], r->index);
		}
		pr_hex(&pr, "hex", r->bytes);
		fputc('\n', fp);
	}
	fputs("graph", fp);
	if (g->name) {
		fputc(' ', fp);
		pr_ident(&pr, g->name);
	}
	if (!g->top) {
		pr_bad(&pr, "the graph has no top block");
	} else {
		pr_params(&pr, g->top, g->weights, ",\n      ");
		fputs(":\n", fp);
		pr_nodes(&pr, g->top, 2, 0);
		fputs("  return ", fp);
		pr_returns(&pr, g->top);
		fputc('\n', fp);
	}
	if (fflush(fp) || ferror(fp)) {
		diag_error(d, "writing the IR as text: %s", strerror(errno));
		return -1;
	}
	return pr.failed ? -1 : 0;
}

/* ========================================================================
 * The parser
 * ======================================================================== */

struct vinfo {
	int line;    /* where the value is defined */
	int visible; /* in scope at the parser's position */
};

struct sbuf {
	char *data; /* NUL-terminated, malloc'd */
	size_t len, cap;
};

struct parser {
	struct ir_graph *g;
	struct diag *d;
	const char *buf;         /* the input, NUL-terminated */
	const char *end;         /* buf + its length */
	const char *p;           /* the cursor */
	int line;                /* line of the cursor, from 1 */
	int failed;              /* an error was reported: unwind */
	int depth;               /* blocks open around the cursor */
	struct arena scratch;    /* vinfo records */
	struct ir_value **scope; /* values in scope, innermost last */
	size_t nscope, capscope;
	struct sbuf sb;          /* the last string, name or hex decoded */
	char show[NSHOW][160];   /* for messages: show_text(), show_vname() */
	int nshow;
	char gotbuf[160];        /* for messages: got() */
};

static int perr_at(struct parser *ps, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int perr_at(struct parser *ps, int line, const char *fmt, ...)
{
	char msg[640];
	va_list ap;
	if (ps->failed)
		return -1;
	ps->failed = 1;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	diag_error_at(ps->d, line, "%s", msg);
	return -1;
}

#define perr(ps, ...) perr_at((ps), (ps)->line, __VA_ARGS__)

/* s[0..n) made printable into b[cap]: escapes, "..." when cut short */
static void escape_into(char *b, size_t cap, const char *s, size_t n)
{
	size_t o = 0;
	for (size_t i = 0; i < n && o + 8 < cap; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x20 && c < 0x7f && c != '\\')
			b[o++] = (char)c;
		else
			o += (size_t)snprintf(b + o, cap - o, "\\x%02x", c);
		if (o + 8 >= cap && i + 1 < n) {
			memcpy(b + o, "...", 3);
			o += 3;
			break;
		}
	}
	b[o] = 0;
}

/* s[0..n) made printable for a message, in one of NSHOW rotating buffers */
static const char *show_text(struct parser *ps, const char *s, size_t n)
{
	char *b = ps->show[ps->nshow++ % NSHOW];
	escape_into(b, sizeof(ps->show[0]), s, n);
	return b;
}

/* the value name as written: %name or %"..." */
static const char *show_vname(struct parser *ps, const char *name)
{
	char tmp[120];
	char *b = ps->show[ps->nshow++ % NSHOW];
	escape_into(tmp, sizeof(tmp), name, strlen(name));
	snprintf(b, sizeof(ps->show[0]), vname_ok(name) ? "%%%s" : "%%\"%s\"",
		 tmp);
	return b;
}

/* what the cursor is on, for "expected X, got Y" */
static const char *got(struct parser *ps)
{
	const char *p = ps->p;
	char tmp[120];
	if (!*p)
		return "end of input";
	if (*p == '\n')
		return "end of line";
	if (*p == '\r')
		return "a carriage return (lines must end in \\n alone)";
	size_t n = 0;
	while (p[n] && p[n] != ' ' && p[n] != '\n' && p[n] != '\t' && n < 24)
		n++;
	escape_into(tmp, sizeof(tmp), p, n);
	snprintf(ps->gotbuf, sizeof(ps->gotbuf), "'%s'", tmp);
	return ps->gotbuf;
}

static void sb_reset(struct sbuf *s)
{
	if (!s->data) {
		s->cap = 64;
		s->data = xmalloc(s->cap);
	}
	s->len = 0;
	s->data[0] = 0;
}

static void sb_putc(struct sbuf *s, char c)
{
	if (s->len + 2 > s->cap) {
		s->cap *= 2;
		s->data = xrealloc(s->data, s->cap);
	}
	s->data[s->len++] = c;
	s->data[s->len] = 0;
}

static void sb_put(struct sbuf *s, const char *p, size_t n)
{
	while (n--)
		sb_putc(s, *p++);
}

static void skip_sp(struct parser *ps)
{
	while (*ps->p == ' ' || *ps->p == '\t')
		ps->p++;
}

/* skips spaces, newlines and comments: inside parameter lists */
static void skip_spnl(struct parser *ps)
{
	for (;;) {
		skip_sp(ps);
		if (*ps->p == '\n') {
			ps->p++;
			ps->line++;
		} else if (*ps->p == '#') {
			while (*ps->p && *ps->p != '\n')
				ps->p++;
		} else {
			return;
		}
	}
}

static int eat(struct parser *ps, char c)
{
	skip_sp(ps);
	if (*ps->p != c)
		return 0;
	ps->p++;
	return 1;
}

static int expect(struct parser *ps, char c, const char *where)
{
	if (eat(ps, c))
		return 0;
	return perr(ps, "expected '%c' %s, got %s", c, where, got(ps));
}

/* the keyword w, not followed by an identifier character */
static int at_word(struct parser *ps, const char *w)
{
	size_t n = strlen(w);
	return !strncmp(ps->p, w, n) && !is_ident_char((unsigned char)ps->p[n]);
}

static int eat_word(struct parser *ps, const char *w)
{
	skip_sp(ps);
	if (!at_word(ps, w))
		return 0;
	ps->p += strlen(w);
	return 1;
}

/* the end of a line, with an optional comment before it */
static int expect_eol(struct parser *ps, const char *after)
{
	skip_sp(ps);
	if (*ps->p == '#')
		while (*ps->p && *ps->p != '\n')
			ps->p++;
	if (*ps->p == '\n') {
		ps->p++;
		ps->line++;
		return 0;
	}
	if (!*ps->p)
		return 0;
	return perr(ps, "unexpected %s after %s", got(ps), after);
}

/* Skips blank and comment-only lines.  Returns the indentation of the next
 * line with content, the cursor left at its start; -1 at the end of the
 * input; -2 after reporting bad indentation. */
static int next_indent(struct parser *ps)
{
	for (;;) {
		const char *q = ps->p;
		int n = 0, tab = 0;
		while (*q == ' ' || *q == '\t') {
			tab |= *q == '\t';
			q++;
			if (++n > MAX_INDENT)
				return perr(ps, "line indented too deeply"), -2;
		}
		if (*q == '#')
			while (*q && *q != '\n')
				q++;
		if (*q == '\n') {
			ps->p = q + 1;
			ps->line++;
			continue;
		}
		if (!*q) {
			ps->p = q;
			return -1;
		}
		if (tab)
			return perr(ps, "tab in indentation (indent with spaces)"),
			       -2;
		return n;
	}
}

/* --- tokens ------------------------------------------------------------ */

/* "..." at the cursor, decoded into ps->sb */
static int parse_string(struct parser *ps)
{
	int line = ps->line;
	sb_reset(&ps->sb);
	if (*ps->p != '"')
		return perr(ps, "expected a string, got %s", got(ps));
	ps->p++;
	for (;;) {
		unsigned char c = (unsigned char)*ps->p;
		if (!c || c == '\n')
			return perr_at(ps, line, "unterminated string");
		ps->p++;
		if (c == '"')
			return 0;
		if (c != '\\') {
			sb_putc(&ps->sb, (char)c);
			continue;
		}
		c = (unsigned char)*ps->p;
		switch (c) {
		case 'n':
			sb_putc(&ps->sb, '\n');
			break;
		case 't':
			sb_putc(&ps->sb, '\t');
			break;
		case 'r':
			sb_putc(&ps->sb, '\r');
			break;
		case '0':
			sb_putc(&ps->sb, 0);
			break;
		case '\\':
		case '"':
		case '\'':
			sb_putc(&ps->sb, (char)c);
			break;
		case 'x': {
			int h = hex_val((unsigned char)ps->p[1]);
			int l = h < 0 ? -1 : hex_val((unsigned char)ps->p[2]);
			if (l < 0)
				return perr(ps, "'\\x' needs two hex digits");
			sb_putc(&ps->sb, (char)(h * 16 + l));
			ps->p += 2;
			break;
		}
		default:
			if (!c || c == '\n')
				return perr_at(ps, line, "unterminated string");
			return perr(ps, "unknown escape '\\%s' in a string",
				    show_text(ps, ps->p, 1));
		}
		ps->p++;
	}
}

/* PREFIX"HEX" at the cursor (prefix already eaten), bytes into ps->sb */
static int parse_hex(struct parser *ps)
{
	int line = ps->line;
	sb_reset(&ps->sb);
	if (*ps->p != '"')
		return perr(ps, "expected '\"' to start hex data, got %s",
			    got(ps));
	ps->p++;
	for (;;) {
		int c = (unsigned char)*ps->p;
		if (c == '"') {
			ps->p++;
			return 0;
		}
		if (!c || c == '\n')
			return perr_at(ps, line, "unterminated hex string");
		int h = hex_val(c), l = hex_val((unsigned char)ps->p[1]);
		if (h < 0)
			return perr(ps, "bad hex digit %s", got(ps));
		if (ps->p[1] == '"')
			return perr(ps, "odd number of hex digits");
		if (!ps->p[1] || ps->p[1] == '\n')
			return perr_at(ps, line, "unterminated hex string");
		if (l < 0) {
			ps->p++;
			return perr(ps, "bad hex digit %s", got(ps));
		}
		sb_putc(&ps->sb, (char)(h * 16 + l));
		ps->p += 2;
	}
}

/* ps->sb as an arena C string; NULL after reporting an embedded NUL */
static const char *sb_cstr(struct parser *ps, const char *what)
{
	if (memchr(ps->sb.data, 0, ps->sb.len)) {
		perr(ps, "NUL byte in %s", what);
		return NULL;
	}
	return ir_strndup(ps->g, ps->sb.data, ps->sb.len);
}

static struct ir_bytes sb_bytes(struct parser *ps)
{
	struct ir_bytes b;
	char *p = ir_alloc(ps->g, ps->sb.len + 1);
	memcpy(p, ps->sb.data, ps->sb.len);
	b.data = p;
	b.len = ps->sb.len;
	return b;
}

/* ps->sb must be one msgpack map */
static int check_map(struct parser *ps, const char *what)
{
	if (msgpack_one_map((const unsigned char *)ps->sb.data, ps->sb.len))
		return 0;
	return perr(ps, "%s is not one msgpack map", what);
}

/* raw"HEX" (a msgpack map) into ps->sb, after `after` */
static int parse_raw(struct parser *ps, const char *after)
{
	skip_sp(ps);
	if (!at_word(ps, "raw") || ps->p[3] != '"')
		return perr(ps, "expected raw\"...\" after '%s', got %s", after,
			    got(ps));
	ps->p += 3;
	if (parse_hex(ps) < 0)
		return -1;
	return check_map(ps, "the raw\"...\" data");
}

/* a quoted string as a C string in the arena */
static const char *parse_cstring(struct parser *ps, const char *what)
{
	skip_sp(ps);
	if (*ps->p != '"') {
		perr(ps, "expected a string (%s), got %s", what, got(ps));
		return NULL;
	}
	if (parse_string(ps) < 0)
		return NULL;
	return sb_cstr(ps, what);
}

/* an identifier or a quoted string, into ps->sb; 0 or -1 */
static int parse_name_sb(struct parser *ps, const char *what)
{
	skip_sp(ps);
	if (*ps->p == '"')
		return parse_string(ps);
	if (!is_ident_start((unsigned char)*ps->p))
		return perr(ps, "expected %s, got %s", what, got(ps));
	const char *s = ps->p;
	while (is_ident_char((unsigned char)*ps->p))
		ps->p++;
	sb_reset(&ps->sb);
	sb_put(&ps->sb, s, (size_t)(ps->p - s));
	return 0;
}

static const char *parse_name(struct parser *ps, const char *what)
{
	if (parse_name_sb(ps, what) < 0)
		return NULL;
	return sb_cstr(ps, what);
}

/* '%' NAME or '%' "..." into ps->sb */
static int parse_vname(struct parser *ps)
{
	skip_sp(ps);
	if (*ps->p != '%')
		return perr(ps, "expected a value (%%name), got %s", got(ps));
	ps->p++;
	if (*ps->p == '"') {
		if (parse_string(ps) < 0)
			return -1;
		if (!ps->sb.len)
			return perr(ps, "empty value name");
		if (memchr(ps->sb.data, 0, ps->sb.len))
			return perr(ps, "NUL byte in a value name");
		return 0;
	}
	const char *s = ps->p;
	while (is_vname_char((unsigned char)*ps->p))
		ps->p++;
	while (ps->p > s && ps->p[-1] == ':')
		ps->p--;
	if (ps->p == s)
		return perr(ps, "expected a value name after '%%', got %s",
			    got(ps));
	sb_reset(&ps->sb);
	sb_put(&ps->sb, s, (size_t)(ps->p - s));
	return 0;
}

/* --- numbers ------------------------------------------------------------ */

struct num {
	const char *s;    /* the token in the input */
	size_t n;
	int is_float;     /* has '.', an exponent, inf or nan */
	int neg;          /* starts with '-' */
	int special;      /* 0, or NUM_INF, NUM_NAN, NUM_NANBITS */
	uint64_t nanbits; /* NUM_NANBITS: the bits in nan(0x...) */
	int line;
};

enum { NUM_INF = 1, NUM_NAN, NUM_NANBITS };

static int at_number(struct parser *ps)
{
	const char *p = ps->p;
	if (*p == '-' || *p == '+')
		p++;
	return is_digit((unsigned char)*p) ||
	       (*p == '.' && is_digit((unsigned char)p[1])) ||
	       !strncmp(p, "inf", 3) || !strncmp(p, "nan", 3);
}

static int lex_number(struct parser *ps, struct num *nm)
{
	const char *p = ps->p;
	memset(nm, 0, sizeof(*nm));
	nm->s = p;
	nm->line = ps->line;
	if (*p == '-' || *p == '+')
		nm->neg = *p++ == '-';
	if (!strncmp(p, "inf", 3)) {
		p += 3;
		nm->is_float = 1;
		nm->special = NUM_INF;
	} else if (!strncmp(p, "nan", 3)) {
		p += 3;
		nm->is_float = 1;
		nm->special = NUM_NAN;
		if (*p == '(') {
			int nd = 0;
			if (p[1] != '0' || (p[2] != 'x' && p[2] != 'X'))
				return perr(ps, "expected nan(0xBITS)");
			for (p += 3; hex_val((unsigned char)*p) >= 0; p++) {
				if (++nd > 16)
					return perr(ps, "too many digits in nan(0x...)");
				nm->nanbits = nm->nanbits << 4 |
					      (uint64_t)hex_val((unsigned char)*p);
			}
			if (!nd || *p != ')')
				return perr(ps, "expected nan(0xBITS)");
			p++;
			nm->special = NUM_NANBITS;
		}
	} else {
		int digits = 0;
		while (is_digit((unsigned char)*p))
			p++, digits++;
		if (*p == '.') {
			nm->is_float = 1;
			for (p++; is_digit((unsigned char)*p); p++)
				digits++;
		}
		if (!digits) {
			ps->p = nm->s;
			return perr(ps, "expected a number, got %s", got(ps));
		}
		if (*p == 'e' || *p == 'E') {
			nm->is_float = 1;
			p++;
			if (*p == '+' || *p == '-')
				p++;
			if (!is_digit((unsigned char)*p))
				return perr(ps, "malformed number '%s'",
					    show_text(ps, nm->s,
						      (size_t)(p - nm->s)));
			while (is_digit((unsigned char)*p))
				p++;
		}
	}
	if (is_ident_char((unsigned char)*p) || *p == '(')
		return perr(ps, "malformed number '%s'",
			    show_text(ps, nm->s, (size_t)(p - nm->s) + 1));
	nm->n = (size_t)(p - nm->s);
	if (nm->n > MAX_NUMBER_LEN)
		return perr(ps, "number too long");
	ps->p = p;
	return 0;
}

/* the token NUL-terminated in buf (MAX_NUMBER_LEN + 1 bytes) */
static const char *num_text(const struct num *nm, char *buf)
{
	memcpy(buf, nm->s, nm->n);
	buf[nm->n] = 0;
	return buf;
}

static int num_i64(struct parser *ps, const struct num *nm, int64_t *out)
{
	char buf[MAX_NUMBER_LEN + 1];
	if (nm->is_float)
		return perr_at(ps, nm->line, "expected an integer, got '%s'",
			       show_text(ps, nm->s, nm->n));
	errno = 0;
	*out = strtoll(num_text(nm, buf), NULL, 10);
	if (errno == ERANGE)
		return perr_at(ps, nm->line, "integer '%s' out of range",
			       show_text(ps, nm->s, nm->n));
	return 0;
}

static int num_u64(struct parser *ps, const struct num *nm, uint64_t *out)
{
	char buf[MAX_NUMBER_LEN + 1];
	if (nm->is_float || nm->neg)
		return perr_at(ps, nm->line,
			       "expected a non-negative integer, got '%s'",
			       show_text(ps, nm->s, nm->n));
	errno = 0;
	*out = strtoull(num_text(nm, buf), NULL, 10);
	if (errno == ERANGE)
		return perr_at(ps, nm->line, "integer '%s' out of range",
			       show_text(ps, nm->s, nm->n));
	return 0;
}

static int num_f64(struct parser *ps, const struct num *nm, double *out)
{
	char buf[MAX_NUMBER_LEN + 1];
	uint64_t bits;
	switch (nm->special) {
	case NUM_INF:
		*out = nm->neg ? -INFINITY : INFINITY;
		return 0;
	case NUM_NAN:
		bits = NAN64_BITS | (nm->neg ? 1ull << 63 : 0);
		memcpy(out, &bits, sizeof(bits));
		return 0;
	case NUM_NANBITS:
		bits = nm->nanbits;
		if (nm->neg || (bits & 0x7ff0000000000000ull) !=
				       0x7ff0000000000000ull ||
		    !(bits & 0x000fffffffffffffull))
			return perr_at(ps, nm->line,
				       "'%s' is not a double NaN",
				       show_text(ps, nm->s, nm->n));
		memcpy(out, &bits, sizeof(bits));
		return 0;
	}
	*out = strtod(num_text(nm, buf), NULL);
	if (isinf(*out))
		return perr_at(ps, nm->line, "number '%s' out of range",
			       show_text(ps, nm->s, nm->n));
	return 0;
}

static int num_f32(struct parser *ps, const struct num *nm, float *out)
{
	char buf[MAX_NUMBER_LEN + 1];
	uint32_t bits;
	switch (nm->special) {
	case NUM_INF:
		*out = nm->neg ? -INFINITY : INFINITY;
		return 0;
	case NUM_NAN:
		bits = NAN32_BITS | (nm->neg ? 1u << 31 : 0);
		memcpy(out, &bits, sizeof(bits));
		return 0;
	case NUM_NANBITS:
		bits = (uint32_t)nm->nanbits;
		if (nm->neg || nm->nanbits > UINT32_MAX ||
		    (bits & 0x7f800000u) != 0x7f800000u || !(bits & 0x7fffffu))
			return perr_at(ps, nm->line, "'%s' is not a float NaN",
				       show_text(ps, nm->s, nm->n));
		memcpy(out, &bits, sizeof(bits));
		return 0;
	}
	*out = strtof(num_text(nm, buf), NULL);
	if (isinf(*out))
		return perr_at(ps, nm->line, "number '%s' out of range for Float",
			       show_text(ps, nm->s, nm->n));
	return 0;
}

static int parse_i64(struct parser *ps, int64_t *out, const char *what)
{
	struct num nm;
	skip_sp(ps);
	if (!at_number(ps))
		return perr(ps, "expected %s, got %s", what, got(ps));
	if (lex_number(ps, &nm) < 0)
		return -1;
	return num_i64(ps, &nm, out);
}

static int parse_u64(struct parser *ps, uint64_t *out, const char *what)
{
	struct num nm;
	skip_sp(ps);
	if (!at_number(ps))
		return perr(ps, "expected %s, got %s", what, got(ps));
	if (lex_number(ps, &nm) < 0)
		return -1;
	return num_u64(ps, &nm, out);
}

/* --- growable arrays (malloc'd, copied to the arena when done) ---------- */

struct vec {
	void *data;
	size_t n, cap, size;
};

static void *vec_push(struct vec *v)
{
	if (v->n == v->cap) {
		v->cap = v->cap ? v->cap * 2 : 8;
		v->data = xrealloc(v->data, v->cap * v->size);
	}
	void *e = (char *)v->data + v->n++ * v->size;
	memset(e, 0, v->size);
	return e;
}

static void *vec_to_arena(struct parser *ps, const struct vec *v)
{
	if (!v->n)
		return NULL;
	void *p = ir_alloc(ps->g, v->n * v->size);
	memcpy(p, v->data, v->n * v->size);
	return p;
}

static void vec_free(struct vec *v)
{
	free(v->data);
	v->data = NULL;
	v->n = v->cap = 0;
}

/* --- values and scopes --------------------------------------------------- */

static void scope_push(struct parser *ps, struct ir_value *v)
{
	if (ps->nscope == ps->capscope) {
		ps->capscope = ps->capscope ? ps->capscope * 2 : 64;
		ps->scope = xrealloc(ps->scope,
				     ps->capscope * sizeof(*ps->scope));
	}
	ps->scope[ps->nscope++] = v;
	((struct vinfo *)v->aux)->visible = 1;
}

static void scope_pop(struct parser *ps, size_t mark)
{
	while (ps->nscope > mark)
		((struct vinfo *)ps->scope[--ps->nscope]->aux)->visible = 0;
}

/* 0 when `name` is free; else reports where it was defined */
static int check_new_name(struct parser *ps, const char *name, int line)
{
	struct ir_value *old = ir_find_value(ps->g, name);
	if (!old)
		return 0;
	struct vinfo *vi = old->aux;
	return perr_at(ps, line, "value '%s' is already defined at line %d",
		       show_vname(ps, name), vi ? vi->line : 0);
}

static void note_value(struct parser *ps, struct ir_value *v, int line)
{
	struct vinfo *vi = arena_alloc(&ps->scratch, sizeof(*vi));
	vi->line = line;
	v->aux = vi;
}

/* the value named in ps->sb, which must be in scope */
static struct ir_value *use_value(struct parser *ps)
{
	struct ir_value *v = ir_find_value(ps->g, ps->sb.data);
	if (!v) {
		perr(ps, "undefined value '%s'", show_vname(ps, ps->sb.data));
		return NULL;
	}
	struct vinfo *vi = v->aux;
	if (!vi->visible) {
		perr(ps, "value '%s' (defined at line %d) is not in scope here",
		     show_vname(ps, ps->sb.data), vi->line);
		return NULL;
	}
	return v;
}

/* --- types --------------------------------------------------------------- */

/* torch's extras inside a tensor type: strides=[...], requires_grad=N,
 * device=WORD.  Read and dropped. */
static int skip_torch_extra(struct parser *ps)
{
	skip_sp(ps);
	if (*ps->p == '[') {
		while (*ps->p && *ps->p != ']' && *ps->p != '\n')
			ps->p++;
		if (*ps->p != ']')
			return perr(ps, "expected ']', got %s", got(ps));
		ps->p++;
		return 0;
	}
	while (*ps->p && *ps->p != ',' && *ps->p != ')' && *ps->p != '\n' &&
	       *ps->p != ' ')
		ps->p++;
	return 0;
}

/* (DIM, ...) of a tensor type, at '(' */
static int parse_dims(struct parser *ps, struct ir_type *t)
{
	struct vec dims = { NULL, 0, 0, sizeof(struct ir_dim) };
	int rc = -1;
	ps->p++;
	skip_sp(ps);
	if (*ps->p == ')') {
		ps->p++;
		t->rank = 0;
		return 0;
	}
	for (;;) {
		skip_sp(ps);
		int c = (unsigned char)*ps->p;
		if (c == '*' || c == '?') {
			struct ir_dim *dm = vec_push(&dims);
			dm->kind = IR_DIM_UNKNOWN;
			ps->p++;
		} else if (c == '"') {
			if (parse_string(ps) < 0)
				goto out;
			struct ir_dim *dm = vec_push(&dims);
			dm->kind = IR_DIM_SYMBOL;
			if (!(dm->symbol = sb_cstr(ps, "a dimension name")))
				goto out;
		} else if (is_ident_start(c)) {
			const char *s = ps->p;
			while (is_ident_char((unsigned char)*ps->p))
				ps->p++;
			size_t n = (size_t)(ps->p - s);
			skip_sp(ps);
			if (*ps->p == '=') {
				ps->p++;
				if (skip_torch_extra(ps) < 0)
					goto out;
			} else {
				struct ir_dim *dm = vec_push(&dims);
				dm->kind = IR_DIM_SYMBOL;
				dm->symbol = ir_strndup(ps->g, s, n);
			}
		} else if (at_number(ps)) {
			struct ir_dim *dm = vec_push(&dims);
			dm->kind = IR_DIM_FIXED;
			if (parse_i64(ps, &dm->value, "a dimension") < 0)
				goto out;
			if (dm->value < 0) {
				perr(ps, "negative dimension %" PRId64, dm->value);
				goto out;
			}
		} else {
			perr(ps, "expected a dimension (a size, a name or '*'), got %s",
			     got(ps));
			goto out;
		}
		if (dims.n > MAX_RANK) {
			perr(ps, "more than %d dimensions", MAX_RANK);
			goto out;
		}
		skip_sp(ps);
		if (*ps->p == ',') {
			ps->p++;
			continue;
		}
		if (*ps->p == ')') {
			ps->p++;
			break;
		}
		perr(ps, "expected ',' or ')' in a shape, got %s", got(ps));
		goto out;
	}
	t->rank = (int)dims.n;
	t->dims = vec_to_arena(ps, &dims);
	rc = 0;
out:
	vec_free(&dims);
	return rc;
}

static struct ir_type *parse_type(struct parser *ps, int depth, int *height);

/* (T, ...) after '(' has been seen: a tuple, or the arguments of Dict */
static int parse_type_list(struct parser *ps, struct ir_type *t, int depth,
			   int *height)
{
	struct vec el = { NULL, 0, 0, sizeof(struct ir_type *) };
	int rc = -1;
	*height = 1;
	ps->p++;
	skip_sp(ps);
	if (*ps->p == ')') {
		ps->p++;
		return 0;
	}
	for (;;) {
		int h;
		struct ir_type *e = parse_type(ps, depth + 1, &h);
		if (!e)
			goto out;
		*(struct ir_type **)vec_push(&el) = e;
		if (h + 1 > *height)
			*height = h + 1;
		skip_sp(ps);
		if (*ps->p == ',') {
			ps->p++;
			continue;
		}
		if (*ps->p == ')') {
			ps->p++;
			break;
		}
		perr(ps, "expected ',' or ')' in a type, got %s", got(ps));
		goto out;
	}
	t->elems = vec_to_arena(ps, &el);
	t->nelems = (uint32_t)el.n;
	rc = 0;
out:
	vec_free(&el);
	return rc;
}

static struct ir_type *parse_type(struct parser *ps, int depth, int *height)
{
	struct ir_graph *g = ps->g;
	struct ir_type *t;
	int h = 1;

	if (depth >= MAX_DEPTH) {
		perr(ps, "type nested deeper than %d levels", MAX_DEPTH);
		return NULL;
	}
	skip_sp(ps);
	if (*ps->p == '(') {
		t = ir_type_new(g, IR_TYPE_TUPLE);
		if (parse_type_list(ps, t, depth, &h) < 0)
			return NULL;
	} else if (*ps->p == '"') {
		t = ir_type_new(g, IR_TYPE_CLASS);
		if (parse_string(ps) < 0 ||
		    !(t->name = sb_cstr(ps, "a class name")))
			return NULL;
	} else if (is_ident_start((unsigned char)*ps->p)) {
		const char *s = ps->p;
		while (is_ident_char((unsigned char)*ps->p))
			ps->p++;
		size_t n = (size_t)(ps->p - s);
		int dt = ir_dtype_from_name(s, n);
		if (dt >= 0 && strlen(ir_dtype_torch_name(dt)) == n &&
		    !memcmp(ir_dtype_torch_name(dt), s, n))
			;
		else if (n == 6 && !memcmp(s, "Tensor", 6))
			dt = IR_DTYPE_UNDEFINED;
		else
			dt = -1;
#define WORD(w) (n == sizeof(w) - 1 && !memcmp(s, w, n))
		if (dt >= 0) {
			t = ir_type_new(g, IR_TYPE_TENSOR);
			t->dtype = (enum ir_dtype)dt;
			skip_sp(ps);
			if (*ps->p == '(' && parse_dims(ps, t) < 0)
				return NULL;
		} else if (WORD("int")) {
			t = ir_type_new(g, IR_TYPE_INT);
		} else if (WORD("float")) {
			t = ir_type_new(g, IR_TYPE_FLOAT);
		} else if (WORD("bool")) {
			t = ir_type_new(g, IR_TYPE_BOOL);
		} else if (WORD("str")) {
			t = ir_type_new(g, IR_TYPE_STR);
		} else if (WORD("NoneType")) {
			t = ir_type_new(g, IR_TYPE_NONE);
		} else if (WORD("Device")) {
			t = ir_type_new(g, IR_TYPE_DEVICE);
		} else if (WORD("Any") || WORD("Dynamic")) {
			t = ir_type_new(g, IR_TYPE_UNKNOWN);
		} else if (WORD("Dict")) {
			t = ir_type_new(g, IR_TYPE_DICT);
			skip_sp(ps);
			if (*ps->p != '(') {
				perr(ps, "expected '(' after 'Dict', got %s",
				     got(ps));
				return NULL;
			}
			int line = ps->line;
			if (parse_type_list(ps, t, depth, &h) < 0)
				return NULL;
			if (t->nelems != 2) {
				perr_at(ps, line, "Dict needs two types (key, value), got %u",
					t->nelems);
				return NULL;
			}
		} else if (ir_dtype_from_name(s, n) >= 0) {
			perr(ps, "unknown type '%s' (tensor types use torch's names: Float, Long...)",
			     show_text(ps, s, n));
			return NULL;
		} else {
			skip_sp(ps);
			if (*ps->p == '(') {
				perr(ps, "unknown type '%s'", show_text(ps, s, n));
				return NULL;
			}
			t = ir_type_new(g, IR_TYPE_CLASS);
			t->name = ir_strndup(g, s, n);
		}
#undef WORD
	} else {
		perr(ps, "expected a type, got %s", got(ps));
		return NULL;
	}
	/* postfix: T[] (list), T? (optional) */
	for (;;) {
		enum ir_type_kind k;
		if (ps->p[0] == '[' && ps->p[1] == ']')
			k = IR_TYPE_LIST;
		else if (ps->p[0] == '?')
			k = IR_TYPE_OPTIONAL;
		else
			break;
		ps->p += k == IR_TYPE_LIST ? 2 : 1;
		if (++h + depth > MAX_DEPTH) {
			perr(ps, "type nested deeper than %d levels", MAX_DEPTH);
			return NULL;
		}
		struct ir_type *w = ir_type_new(g, k);
		w->elems = ir_alloc(g, sizeof(*w->elems));
		w->elems[0] = t;
		w->nelems = 1;
		t = w;
	}
	if (h + depth > MAX_DEPTH) {
		perr(ps, "type nested deeper than %d levels", MAX_DEPTH);
		return NULL;
	}
	*height = h;
	return t;
}

/* a tensor type with a fixed shape, as a new tensor without data */
static struct ir_tensor *tensor_from_type(struct parser *ps,
					  const struct ir_type *t, int line,
					  const char *what)
{
	if (t->kind != IR_TYPE_TENSOR || t->rank < 0) {
		perr_at(ps, line, "%s needs a tensor type with a shape", what);
		return NULL;
	}
	if (t->dtype == IR_DTYPE_UNDEFINED) {
		perr_at(ps, line, "%s needs a dtype (Float, Long...), not Tensor",
			what);
		return NULL;
	}
	struct ir_tensor *x = ir_tensor_new(ps->g, t->dtype, t->rank, NULL);
	for (int i = 0; i < t->rank; i++) {
		if (t->dims[i].kind != IR_DIM_FIXED) {
			perr_at(ps, line, "%s needs fixed dimensions", what);
			return NULL;
		}
		x->dims[i] = t->dims[i].value;
	}
	return x;
}

/* --- tensor data --------------------------------------------------------- */

static int parse_elem(struct parser *ps, enum ir_dtype dt, unsigned char *dst)
{
	struct num nm;
	int64_t i;
	uint64_t u;
	skip_sp(ps);
	if (!at_number(ps))
		return perr(ps, "expected a %s value, got %s",
			    ir_dtype_torch_name(dt), got(ps));
	if (lex_number(ps, &nm) < 0)
		return -1;
	switch (dt) {
	case IR_DTYPE_FLOAT: {
		float f;
		uint32_t b;
		if (num_f32(ps, &nm, &f) < 0)
			return -1;
		memcpy(&b, &f, sizeof(b));
		store_le(dst, b, 4);
		return 0;
	}
	case IR_DTYPE_DOUBLE: {
		double f;
		if (num_f64(ps, &nm, &f) < 0)
			return -1;
		memcpy(&u, &f, sizeof(u));
		store_le(dst, u, 8);
		return 0;
	}
	case IR_DTYPE_UINT8:
	case IR_DTYPE_UINT16:
	case IR_DTYPE_UINT32:
	case IR_DTYPE_UINT64: {
		size_t size = ir_dtype_size(dt);
		if (num_u64(ps, &nm, &u) < 0)
			return -1;
		if (size < 8 && u >> (size * 8))
			return perr_at(ps, nm.line, "%s value %" PRIu64 " out of range",
				       ir_dtype_torch_name(dt), u);
		store_le(dst, u, size);
		return 0;
	}
	default: { /* signed and Bool */
		size_t size = ir_dtype_size(dt);
		if (num_i64(ps, &nm, &i) < 0)
			return -1;
		if (dt == IR_DTYPE_BOOL && (i < 0 || i > 1))
			return perr_at(ps, nm.line, "Bool value must be 0 or 1, got %" PRId64, i);
		if (size < 8) {
			int64_t lim = (int64_t)1 << (size * 8 - 1);
			if (i < -lim || i >= lim)
				return perr_at(ps, nm.line, "%s value %" PRId64 " out of range",
					       ir_dtype_torch_name(dt), i);
		}
		store_le(dst, (uint64_t)i, size);
		return 0;
	}
	}
}

/* scale=[F, ...] in weight(...): dims[0] float64 factors, after "scale" */
static int parse_scale(struct parser *ps, struct ir_tensor *t)
{
	int64_t n = 0, want = t->rank > 0 ? t->dims[0] : 0;

	if (expect(ps, '=', "after 'scale'") < 0 ||
	    expect(ps, '[', "after 'scale='") < 0)
		return -1;
	if (t->rank < 1)
		return perr(ps, "a scaled view (scale=) of a scalar");
	/* room for the factors the rest of the text can hold (each takes a
	 * character at least), not for dims[0] of them: a hostile dims[0]
	 * (2^61) overflowed the size and the factors ran past the buffer */
	int64_t room = want < ps->end - ps->p ? want : ps->end - ps->p;
	t->ref.scale = ir_alloc(ps->g, sizeof(double) * ((size_t)room + 1));
	for (;;) {
		struct num nm;
		skip_sp(ps);
		if (*ps->p == ']' && !n) {
			ps->p++;
			break;
		}
		if (!at_number(ps))
			return perr(ps, "expected a scale factor, got %s",
				    got(ps));
		if (n == want)
			return perr(ps, "more scale factors than the %" PRId64
				    " rows", want);
		if (lex_number(ps, &nm) < 0 ||
		    num_f64(ps, &nm, &t->ref.scale[n++]) < 0)
			return -1;
		skip_sp(ps);
		if (*ps->p == ',') {
			ps->p++;
			continue;
		}
		if (expect(ps, ']', "after the scale factors") < 0)
			return -1;
		break;
	}
	if (n != want)
		return perr(ps, "%" PRId64 " scale factors for %" PRId64
			    " rows", n, want);
	return 0;
}

/* weight("FILE", offset=N, length=N[, strides=[...]][, scale=[...]]),
 * after "weight" */
static int parse_ref(struct parser *ps, struct ir_tensor *t)
{
	int have_off = 0, have_len = 0, have_str = 0, have_scale = 0;
	if (expect(ps, '(', "after 'weight'") < 0)
		return -1;
	skip_sp(ps);
	t->data_kind = IR_DATA_REF;
	if (t->dtype == IR_DTYPE_STRING)
		return perr(ps, "String data cannot be a weight(...) reference");
	if (!(t->ref.file = parse_cstring(ps, "the weight's file")))
		return -1;
	if (!*t->ref.file)
		return perr(ps, "weight(...) with an empty file name");
	for (;;) {
		skip_sp(ps);
		if (*ps->p == ')') {
			ps->p++;
			break;
		}
		if (expect(ps, ',', "in weight(...)") < 0)
			return -1;
		skip_sp(ps);
		if (eat_word(ps, "offset")) {
			if (have_off++)
				return perr(ps, "'offset' given twice");
			if (expect(ps, '=', "after 'offset'") < 0 ||
			    parse_u64(ps, &t->ref.offset, "an offset") < 0)
				return -1;
		} else if (eat_word(ps, "length")) {
			if (have_len++)
				return perr(ps, "'length' given twice");
			if (expect(ps, '=', "after 'length'") < 0 ||
			    parse_u64(ps, &t->ref.length, "a length") < 0)
				return -1;
		} else if (eat_word(ps, "strides")) {
			int n = 0;
			if (have_str++)
				return perr(ps, "'strides' given twice");
			if (expect(ps, '=', "after 'strides'") < 0 ||
			    expect(ps, '[', "after 'strides='") < 0)
				return -1;
			t->ref.strides = ir_alloc(ps->g, sizeof(int64_t) *
						  ((size_t)t->rank + 1));
			skip_sp(ps);
			if (*ps->p == ']') {
				ps->p++;
			} else {
				for (;;) {
					int64_t v;
					if (parse_i64(ps, &v, "a stride") < 0)
						return -1;
					if (v < 0)
						return perr(ps, "negative stride %" PRId64,
							    v);
					if (n == t->rank)
						return perr(ps, "more strides than the %d dimensions",
							    t->rank);
					t->ref.strides[n++] = v;
					skip_sp(ps);
					if (*ps->p == ',') {
						ps->p++;
						continue;
					}
					if (expect(ps, ']', "after the strides") < 0)
						return -1;
					break;
				}
			}
			if (n != t->rank)
				return perr(ps, "%d strides for %d dimensions", n,
					    t->rank);
			if (!t->rank)
				t->ref.strides = NULL; /* nothing to stride */
		} else if (eat_word(ps, "scale")) {
			if (have_scale++)
				return perr(ps, "'scale' given twice");
			if (parse_scale(ps, t) < 0)
				return -1;
		} else {
			return perr(ps, "expected offset=, length=, strides= or scale= in weight(...), got %s",
				    got(ps));
		}
	}
	if (!have_off || !have_len)
		return perr(ps, "weight(...) needs offset= and length=");
	const char *bad = weight_scale_problem(t, ps->g->level);
	if (bad)
		return perr(ps, "%s", bad);
	return 0;
}

/* {v, ...} | hex"..." | weight(...), then doc_string="..." */
static int parse_tensor_data(struct parser *ps, struct ir_tensor *t)
{
	int ovf, line = ps->line;
	uint64_t numel = checked_numel(t->rank, t->dims, &ovf);
	size_t size = ir_dtype_size(t->dtype);
	const char *dname = ir_dtype_torch_name(t->dtype);

	if (ovf)
		return perr(ps, "tensor has too many elements");
	skip_sp(ps);
	t->data_kind = IR_DATA_INLINE;
	if (*ps->p == '{') {
		uint64_t count = 0;
		unsigned char *data = NULL;
		if (!dtype_has_literals(t->dtype))
			return perr(ps, "%s data must be written as hex\"...\"",
				    dname);
		/* every value takes at least one character */
		if (numel > (uint64_t)(ps->end - ps->p))
			return perr(ps, "tensor of %" PRIu64 " elements: too few values",
				    numel);
		if (t->dtype == IR_DTYPE_STRING)
			t->strings = numel ? ir_alloc(ps->g, sizeof(*t->strings) *
							      (size_t)numel)
					   : NULL;
		else if (numel)
			data = ir_alloc(ps->g, (size_t)numel * size);
		ps->p++;
		skip_sp(ps);
		if (*ps->p == '}') {
			ps->p++;
		} else {
			for (;;) {
				skip_sp(ps);
				if (count == numel)
					return perr(ps, "more than %" PRIu64 " values for a tensor of %" PRIu64 " elements",
						    numel, numel);
				if (t->dtype == IR_DTYPE_STRING) {
					if (*ps->p != '"')
						return perr(ps, "expected a string, got %s",
							    got(ps));
					if (parse_string(ps) < 0)
						return -1;
					t->strings[count] = sb_bytes(ps);
				} else if (parse_elem(ps, t->dtype,
						      data + count * size) < 0) {
					return -1;
				}
				count++;
				skip_sp(ps);
				if (*ps->p == ',') {
					ps->p++;
					continue;
				}
				if (*ps->p == '}') {
					ps->p++;
					break;
				}
				return perr(ps, "expected ',' or '}' in tensor data, got %s",
					    got(ps));
			}
		}
		if (count != numel)
			return perr_at(ps, line, "tensor data has %" PRIu64 " values, expected %" PRIu64,
				       count, numel);
		t->bytes.data = (const char *)data;
		t->bytes.len = (size_t)numel * size;
	} else if (at_word(ps, "hex") && ps->p[3] == '"') {
		ps->p += 3;
		if (t->dtype == IR_DTYPE_STRING)
			return perr(ps, "String data must be written as {\"...\", ...}");
		if (parse_hex(ps) < 0)
			return -1;
		if (size && (numel > SIZE_MAX / size ||
			     ps->sb.len != numel * size))
			return perr_at(ps, line, "hex data has %zu bytes, expected %" PRIu64 " (%" PRIu64 " x %zu)",
				       ps->sb.len, numel * size, numel, size);
		t->bytes = sb_bytes(ps);
	} else if (eat_word(ps, "weight")) {
		if (parse_ref(ps, t) < 0)
			return -1;
	} else {
		return perr(ps, "expected tensor data ({...}, hex\"...\" or weight(...)), got %s",
			    got(ps));
	}
	if (eat_word(ps, "doc_string")) {
		if (expect(ps, '=', "after 'doc_string'") < 0 ||
		    !(t->doc = parse_cstring(ps, "a doc string")))
			return -1;
	}
	return 0;
}

/* TYPE DATA: a tensor attribute */
static struct ir_tensor *parse_tensor(struct parser *ps)
{
	int h, line = ps->line;
	struct ir_type *ty = parse_type(ps, 0, &h);
	if (!ty)
		return NULL;
	struct ir_tensor *t = tensor_from_type(ps, ty, line, "a tensor");
	if (!t || parse_tensor_data(ps, t) < 0)
		return NULL;
	return t;
}

/* --- attributes ---------------------------------------------------------- */

/* [v, ...] at '[' */
static int parse_attr_list(struct parser *ps, struct ir_attr *a)
{
	struct vec nums = { NULL, 0, 0, sizeof(struct num) };
	struct vec strs = { NULL, 0, 0, sizeof(struct ir_bytes) };
	struct vec tens = { NULL, 0, 0, sizeof(struct ir_tensor *) };
	int rc = -1, any_float = 0;
	enum ir_attr_kind kind = IR_ATTR_INTS;

	ps->p++;
	skip_sp(ps);
	if (*ps->p == ']') {
		ps->p++;
		a->kind = IR_ATTR_INTS;
		return 0;
	}
	for (size_t i = 0;; i++) {
		enum ir_attr_kind k;
		skip_sp(ps);
		if (*ps->p == '"')
			k = IR_ATTR_STRINGS;
		else if (at_number(ps))
			k = IR_ATTR_INTS;
		else if (is_ident_start((unsigned char)*ps->p) &&
			 !at_word(ps, "graph"))
			k = IR_ATTR_TENSORS;
		else {
			perr(ps, "expected a list element, got %s", got(ps));
			goto out;
		}
		if (!i)
			kind = k;
		else if (k != kind) {
			perr(ps, "a list mixes kinds of values");
			goto out;
		}
		if (k == IR_ATTR_STRINGS) {
			if (parse_string(ps) < 0)
				goto out;
			*(struct ir_bytes *)vec_push(&strs) = sb_bytes(ps);
		} else if (k == IR_ATTR_INTS) {
			struct num *nm = vec_push(&nums);
			if (lex_number(ps, nm) < 0)
				goto out;
			any_float |= nm->is_float;
		} else {
			struct ir_tensor *t = parse_tensor(ps);
			if (!t)
				goto out;
			*(struct ir_tensor **)vec_push(&tens) = t;
		}
		if (i >= UINT32_MAX - 1) {
			perr(ps, "list too long");
			goto out;
		}
		skip_sp(ps);
		if (*ps->p == ',') {
			ps->p++;
			continue;
		}
		if (*ps->p == ']') {
			ps->p++;
			break;
		}
		perr(ps, "expected ',' or ']' in a list, got %s", got(ps));
		goto out;
	}
	if (kind == IR_ATTR_INTS && any_float) {
		a->kind = IR_ATTR_FLOATS;
		a->count = (uint32_t)nums.n;
		a->u.floats = ir_alloc(ps->g, sizeof(double) * nums.n);
		for (size_t i = 0; i < nums.n; i++)
			if (num_f64(ps, (struct num *)nums.data + i,
				    &a->u.floats[i]) < 0)
				goto out;
	} else if (kind == IR_ATTR_INTS) {
		a->kind = IR_ATTR_INTS;
		a->count = (uint32_t)nums.n;
		a->u.ints = ir_alloc(ps->g, sizeof(int64_t) * nums.n);
		for (size_t i = 0; i < nums.n; i++)
			if (num_i64(ps, (struct num *)nums.data + i,
				    &a->u.ints[i]) < 0)
				goto out;
	} else if (kind == IR_ATTR_STRINGS) {
		a->kind = kind;
		a->count = (uint32_t)strs.n;
		a->u.strings = vec_to_arena(ps, &strs);
	} else {
		a->kind = kind;
		a->count = (uint32_t)tens.n;
		a->u.tensors = vec_to_arena(ps, &tens);
	}
	rc = 0;
out:
	vec_free(&nums);
	vec_free(&strs);
	vec_free(&tens);
	return rc;
}

/* the value after NAME= */
static int parse_attr_value(struct parser *ps, struct ir_attr *a)
{
	skip_sp(ps);
	if (at_word(ps, "graph")) {
		ps->p += 5;
		if (ps->p[0] == '[' && ps->p[1] == ']') {
			ps->p += 2;
			a->kind = IR_ATTR_GRAPHS;
		} else {
			a->kind = IR_ATTR_GRAPH; /* u.g filled by its block */
		}
		return 0;
	}
	if (at_word(ps, "raw") && ps->p[3] == '"') {
		ps->p += 3;
		if (parse_hex(ps) < 0 || check_map(ps, "the raw\"...\" data") < 0)
			return -1;
		const char *in;
		size_t inlen;
		if (msgpack_map_str((const unsigned char *)ps->sb.data,
				    ps->sb.len, "n", &in, &inlen) < 0)
			return perr(ps, "raw attribute '%s' has no \"n\" (its name) inside",
				    show_text(ps, a->name, strlen(a->name)));
		if (inlen != strlen(a->name) || memcmp(in, a->name, inlen))
			return perr(ps, "raw attribute '%s' is named '%s' inside",
				    show_text(ps, a->name, strlen(a->name)),
				    show_text(ps, in, inlen));
		a->kind = IR_ATTR_RAW;
		a->u.raw = sb_bytes(ps);
		return 0;
	}
	if (!strncmp(ps->p, "float[]", 7)) {
		ps->p += 7;
		a->kind = IR_ATTR_FLOATS;
		return 0;
	}
	if (!strncmp(ps->p, "str[]", 5)) {
		ps->p += 5;
		a->kind = IR_ATTR_STRINGS;
		return 0;
	}
	if (!strncmp(ps->p, "Tensor[]", 8)) {
		ps->p += 8;
		a->kind = IR_ATTR_TENSORS;
		return 0;
	}
	if (*ps->p == '"') {
		if (parse_string(ps) < 0)
			return -1;
		a->kind = IR_ATTR_STRING;
		a->u.s = sb_bytes(ps);
		return 0;
	}
	if (*ps->p == '[')
		return parse_attr_list(ps, a);
	if (at_number(ps)) {
		struct num nm;
		if (lex_number(ps, &nm) < 0)
			return -1;
		if (nm.is_float) {
			a->kind = IR_ATTR_FLOAT;
			return num_f64(ps, &nm, &a->u.f);
		}
		a->kind = IR_ATTR_INT;
		return num_i64(ps, &nm, &a->u.i);
	}
	if (is_ident_start((unsigned char)*ps->p)) {
		a->kind = IR_ATTR_TENSOR;
		a->u.t = parse_tensor(ps);
		return a->u.t ? 0 : -1;
	}
	return perr(ps, "expected an attribute value, got %s", got(ps));
}

/* [NAME=VALUE, ...] at '[' */
static int parse_attrs(struct parser *ps, struct ir_node *n)
{
	struct ir_graph *g = ps->g;
	int have_name = 0, have_doc = 0, have_extra = 0;
	ps->p++;
	skip_sp(ps);
	if (*ps->p == ']') {
		ps->p++;
		return 0;
	}
	for (;;) {
		skip_sp(ps);
		int pseudo = 0;
		if (at_word(ps, "onnx_name"))
			pseudo = 1;
		else if (at_word(ps, "doc_string"))
			pseudo = 2;
		else if (at_word(ps, "extra"))
			pseudo = 3;
		if (parse_name_sb(ps, "an attribute name") < 0)
			return -1;
		if (expect(ps, '=', "after an attribute name") < 0)
			return -1;
		skip_sp(ps);
		if (pseudo == 1) {
			if (have_name++)
				return perr(ps, "'onnx_name' given twice");
			if (!(n->name = parse_cstring(ps, "onnx_name")))
				return -1;
		} else if (pseudo == 2) {
			if (have_doc++)
				return perr(ps, "'doc_string' given twice");
			if (!(n->doc = parse_cstring(ps, "doc_string")))
				return -1;
		} else if (pseudo == 3) {
			if (have_extra++)
				return perr(ps, "'extra' given twice");
			if (parse_raw(ps, "extra=") < 0)
				return -1;
			n->extra = sb_bytes(ps);
		} else {
			const char *name = sb_cstr(ps, "an attribute name");
			if (!name)
				return -1;
			if (!*name)
				return perr(ps, "empty attribute name");
			if (ir_node_find_attr(n, name))
				return perr(ps, "attribute '%s' given twice",
					    show_text(ps, name, strlen(name)));
			struct ir_attr *a = ir_node_add_attr(g, n, name,
							     IR_ATTR_INT);
			if (parse_attr_value(ps, a) < 0)
				return -1;
		}
		skip_sp(ps);
		if (*ps->p == ',') {
			ps->p++;
			continue;
		}
		if (*ps->p == ']') {
			ps->p++;
			return 0;
		}
		return perr(ps, "expected ',' or ']' after an attribute, got %s",
			    got(ps));
	}
}

/* --- blocks and nodes ---------------------------------------------------- */

static int parse_body(struct parser *ps, struct ir_block *b, int outer,
		      int top, const char *label, int start_line);

/* (PARAMS) of the graph (top) or of block b; values join the scope */
static int parse_params(struct parser *ps, struct ir_block *b, int top)
{
	struct ir_graph *g = ps->g;
	if (expect(ps, '(', "before the parameters") < 0)
		return -1;
	skip_spnl(ps);
	if (*ps->p == ')') {
		ps->p++;
		return 0;
	}
	for (;;) {
		int line, h;
		skip_spnl(ps);
		line = ps->line;
		if (parse_vname(ps) < 0)
			return -1;
		const char *name = ir_strndup(g, ps->sb.data, ps->sb.len);
		if (check_new_name(ps, name, line) < 0)
			return -1;
		if (expect(ps, ':', "after a parameter name") < 0)
			return -1;
		struct ir_type *t = parse_type(ps, 0, &h);
		if (!t)
			return -1;
		struct ir_value *v;
		if (eat(ps, '=')) {
			struct ir_tensor *x =
				tensor_from_type(ps, t, line, "a weight");
			if (!x || parse_tensor_data(ps, x) < 0)
				return -1;
			v = ir_add_weight(g, top ? NULL : b, name, x);
			if (eat_word(ps, "extra")) {
				if (expect(ps, '=', "after 'extra'") < 0 ||
				    parse_raw(ps, "extra=") < 0)
					return -1;
				v->weight->extra = sb_bytes(ps);
			}
		} else {
			v = ir_value_new(g, name, t);
			ir_block_add_param(g, b, v);
		}
		note_value(ps, v, line);
		scope_push(ps, v);
		skip_spnl(ps);
		if (*ps->p == ',') {
			ps->p++;
			continue;
		}
		if (*ps->p == ')') {
			ps->p++;
			return 0;
		}
		return perr(ps, "expected ',' or ')' after a parameter, got %s",
			    got(ps));
	}
}

/* (%a, ...) after '->' or 'return' */
static int parse_returns(struct parser *ps, struct ir_block *b)
{
	if (expect(ps, '(', "before the returned values") < 0)
		return -1;
	skip_sp(ps);
	if (*ps->p == ')') {
		ps->p++;
		return 0;
	}
	for (;;) {
		struct ir_value *v;
		if (parse_vname(ps) < 0 || !(v = use_value(ps)))
			return -1;
		ir_block_add_return(ps->g, b, v);
		skip_sp(ps);
		if (*ps->p == ',') {
			ps->p++;
			continue;
		}
		if (*ps->p == ')') {
			ps->p++;
			return 0;
		}
		return perr(ps, "expected ',' or ')' after a returned value, got %s",
			    got(ps));
	}
}

/* the node line, up to and including its end of line */
static struct ir_node *parse_node_line(struct parser *ps, struct ir_block *b)
{
	struct ir_graph *g = ps->g;
	struct vec outs = { NULL, 0, 0, sizeof(struct ir_value *) };
	struct vec ins = { NULL, 0, 0, sizeof(struct ir_value *) };
	struct ir_node *n = NULL, *ret = NULL;
	int line = ps->line;

	skip_sp(ps);
	if (*ps->p == '%') {
		for (;;) {
			int h;
			if (parse_vname(ps) < 0 ||
			    check_new_name(ps, ps->sb.data, line) < 0)
				goto out;
			struct ir_value *v = ir_value_new(g, ps->sb.data, NULL);
			note_value(ps, v, line);
			*(struct ir_value **)vec_push(&outs) = v;
			if (expect(ps, ':', "after an output name") < 0 ||
			    !(v->type = parse_type(ps, 0, &h)))
				goto out;
			if (!eat(ps, ','))
				break;
		}
	}
	if (expect(ps, '=', "after the outputs") < 0)
		goto out;
	skip_sp(ps);
	const char *kind;
	if (*ps->p == '"') {
		if (parse_string(ps) < 0 || !(kind = sb_cstr(ps, "a node kind")))
			goto out;
	} else {
		const char *s = ps->p;
		while (is_kind_char((unsigned char)*ps->p))
			ps->p++;
		if (ps->p == s) {
			perr(ps, "expected a node kind (domain::op), got %s",
			     got(ps));
			goto out;
		}
		kind = ir_strndup(g, s, (size_t)(ps->p - s));
	}
	n = ir_node_new(g, NULL, "", 0, 0);
	ir_node_set_kind(n, kind);
	skip_sp(ps);
	if (*ps->p == '[' && parse_attrs(ps, n) < 0)
		goto out;
	if (expect(ps, '(', "before the inputs") < 0)
		goto out;
	skip_sp(ps);
	if (*ps->p == ')') {
		ps->p++;
	} else {
		for (;;) {
			struct ir_value *v = NULL;
			skip_sp(ps);
			if (ps->p[0] == '_' && !is_vname_char((unsigned char)ps->p[1]))
				ps->p++;
			else if (parse_vname(ps) < 0 || !(v = use_value(ps)))
				goto out;
			*(struct ir_value **)vec_push(&ins) = v;
			if (ins.n >= UINT32_MAX) {
				perr(ps, "too many inputs");
				goto out;
			}
			skip_sp(ps);
			if (*ps->p == ',') {
				ps->p++;
				continue;
			}
			if (*ps->p == ')') {
				ps->p++;
				break;
			}
			perr(ps, "expected ',' or ')' after an input, got %s",
			     got(ps));
			goto out;
		}
	}
	n->ninputs = (uint32_t)ins.n;
	n->inputs = vec_to_arena(ps, &ins);
	n->noutputs = (uint32_t)outs.n;
	n->outputs = vec_to_arena(ps, &outs);
	for (uint32_t i = 0; i < n->noutputs; i++)
		n->outputs[i]->producer = n;

	if (eat(ps, ',')) {
		if (!eat_word(ps, "scope") ||
		    expect(ps, ':', "after 'scope'") < 0) {
			if (!ps->failed)
				perr(ps, "expected 'scope:' after ',', got %s",
				     got(ps));
			goto out;
		}
		skip_sp(ps);
		if (*ps->p == '"') {
			if (!(n->scope = parse_cstring(ps, "a scope")))
				goto out;
		} else {
			const char *s = ps->p;
			while ((unsigned char)*ps->p > 0x20 && *ps->p != '#' &&
			       *ps->p != 0x7f)
				ps->p++;
			if (ps->p == s) {
				perr(ps, "expected a scope after 'scope:', got %s",
				     got(ps));
				goto out;
			}
			n->scope = ir_strndup(g, s, (size_t)(ps->p - s));
		}
	}
	skip_sp(ps);
	if (*ps->p == '#') {
		ps->p++;
		skip_sp(ps);
		if (*ps->p == '"') {
			if (!(n->source = parse_cstring(ps, "a source location")))
				goto out;
		} else {
			const char *s = ps->p, *e;
			while (*ps->p && *ps->p != '\n')
				ps->p++;
			for (e = ps->p; e > s && (e[-1] == ' ' || e[-1] == '\t');)
				e--;
			for (const char *q = s; q < e; q++) {
				if (*q == '\r') {
					ps->p = q;
					perr(ps, "unexpected %s in a source location",
					     got(ps));
					goto out;
				}
			}
			if (e > s)
				n->source = ir_strndup(g, s, (size_t)(e - s));
		}
	}
	if (expect_eol(ps, "the node") < 0)
		goto out;
	ir_block_append(b, n);
	ret = n;
out:
	vec_free(&outs);
	vec_free(&ins);
	return ret;
}

/* LABEL[INDEX] NAME(PARAMS): and the block's body, under node n */
static int parse_label_block(struct parser *ps, struct ir_node *n, int ind)
{
	struct ir_graph *g = ps->g;
	int line = ps->line, nested = 0, rc;
	int64_t index = -1;
	const char *label;
	struct ir_block *b;
	char what[200];

	if (*ps->p == '%' || *ps->p == '=' || *ps->p == '-')
		return perr(ps, "unexpected indentation");
	if (ps->depth >= MAX_BLOCK_DEPTH)
		return perr(ps, "blocks nested deeper than %d levels",
			    MAX_BLOCK_DEPTH);
	if (*ps->p != '"' && !is_ident_start((unsigned char)*ps->p))
		return perr(ps, "expected a block label (block0, then_branch...), got %s",
			    got(ps));
	nested = *ps->p != '"';
	if (parse_name_sb(ps, "a block label") < 0 ||
	    !(label = sb_cstr(ps, "a block label")))
		return -1;
	nested = nested && is_block_label(label, strlen(label));
	if (*ps->p == '[') {
		ps->p++;
		if (nested)
			return perr(ps, "nested block '%s' cannot have an index",
				    label);
		if (parse_i64(ps, &index, "an index") < 0 ||
		    expect(ps, ']', "after the index") < 0)
			return -1;
		if (index < 0 || index >= UINT32_MAX)
			return perr(ps, "index %" PRId64 " out of range", index);
	}
	skip_sp(ps);
	const char *bname = NULL;
	if (*ps->p != '(' && !(bname = parse_name(ps, "a block name or '('")))
		return -1;

	if (nested) {
		char want[32];
		snprintf(want, sizeof(want), "block%u", n->nblocks);
		if (strcmp(label, want))
			return perr(ps, "expected '%s', got '%s'", want,
				    show_text(ps, label, strlen(label)));
		b = ir_node_add_block(g, n);
		snprintf(what, sizeof(what), "%s", label);
	} else {
		struct ir_attr *a = ir_node_find_attr(n, label);
		const char *shown = show_text(ps, label, strlen(label));
		b = ir_block_new(g);
		b->owner = n;
		if (!a)
			a = ir_node_add_attr(g, n, label, index < 0 ? IR_ATTR_GRAPH
								    : IR_ATTR_GRAPHS);
		if (a->kind == IR_ATTR_GRAPH) {
			if (index >= 0)
				return perr(ps, "attribute '%s' is one graph: its block is '%s', without an index",
					    shown, shown);
			if (a->u.g)
				return perr(ps, "a second block for attribute '%s'",
					    shown);
			a->u.g = b;
			snprintf(what, sizeof(what), "%s", shown);
		} else if (a->kind == IR_ATTR_GRAPHS) {
			if (index < 0)
				return perr(ps, "attribute '%s' is a list of graphs: its blocks are '%s[0]', '%s[1]'...",
					    shown, shown, shown);
			if ((uint64_t)index != a->count)
				return perr(ps, "expected '%s[%u]', got '%s[%" PRId64 "]'",
					    shown, a->count, shown, index);
			if ((a->count & (a->count - 1)) == 0) {
				uint32_t cap = a->count ? a->count * 2 : 1;
				struct ir_block **nb =
					ir_alloc(g, sizeof(*nb) * cap);
				if (a->count)
					memcpy(nb, a->u.graphs,
					       sizeof(*nb) * a->count);
				a->u.graphs = nb;
			}
			a->u.graphs[a->count++] = b;
			snprintf(what, sizeof(what), "%s[%" PRId64 "]", shown,
				 index);
		} else {
			return perr(ps, "attribute '%s' is not a graph", shown);
		}
	}
	b->name = bname;

	size_t mark = ps->nscope;
	if (parse_params(ps, b, 0) < 0 ||
	    expect(ps, ':', "after the block's parameters") < 0 ||
	    expect_eol(ps, "the block's ':'") < 0)
		return -1;
	ps->depth++;
	rc = parse_body(ps, b, ind, 0, what, line);
	ps->depth--;
	scope_pop(ps, mark);
	return rc;
}

/* blocks under node n, whose line had indentation `ind` */
static int parse_node_blocks(struct parser *ps, struct ir_node *n, int ind,
			     int line)
{
	int lab = -1;
	for (;;) {
		int i = next_indent(ps);
		if (i == -2)
			return -1;
		if (i <= ind)
			break;
		if (lab < 0)
			lab = i;
		else if (i != lab)
			return perr(ps, "bad indentation: %d spaces, where this node's blocks have %d",
				    i, lab);
		ps->p += i;
		if (parse_label_block(ps, n, lab) < 0)
			return -1;
	}
	for (uint32_t i = 0; i < n->nattrs; i++)
		if (n->attrs[i].kind == IR_ATTR_GRAPH && !n->attrs[i].u.g)
			return perr_at(ps, line, "graph attribute '%s' has no block",
				       show_text(ps, n->attrs[i].name,
						 strlen(n->attrs[i].name)));
	return 0;
}

/* the statements of block b, up to its return line; `outer` is the
 * indentation of the line that opened it */
static int parse_body(struct parser *ps, struct ir_block *b, int outer,
		      int top, const char *label, int start_line)
{
	int ind = -1;
	const char *ret = top ? "return (...)" : "-> (...)";
	for (;;) {
		int i = next_indent(ps);
		if (i == -2)
			return -1;
		if (i < 0 || i <= outer || (ind >= 0 && i < ind)) {
			if (top)
				return perr(ps, "missing '%s' at the end of the graph",
					    ret);
			return perr(ps, "missing '%s' at the end of block '%s' (line %d)",
				    ret, label, start_line);
		}
		if (ind < 0)
			ind = i;
		else if (i > ind)
			return perr(ps, "unexpected indentation: %d spaces, expected %d",
				    i, ind);
		ps->p += i;
		if (ps->p[0] == '-' && ps->p[1] == '>') {
			if (top)
				return perr(ps, "'->' outside a block (the graph ends with 'return')");
			ps->p += 2;
			if (parse_returns(ps, b) < 0)
				return -1;
			return expect_eol(ps, "the block's returns");
		}
		if (at_word(ps, "return")) {
			if (!top)
				return perr(ps, "'return' inside a block (blocks end with '-> (...)')");
			ps->p += 6;
			if (parse_returns(ps, b) < 0)
				return -1;
			eat(ps, ';');
			return expect_eol(ps, "'return'");
		}
		if (*ps->p != '%' && *ps->p != '=')
			return perr(ps, "expected a node or '%s', got %s", ret,
				    got(ps));
		int line = ps->line;
		size_t nout;
		struct ir_node *n = parse_node_line(ps, b);
		if (!n || parse_node_blocks(ps, n, ind, line) < 0)
			return -1;
		/* the outputs come into scope after the node's blocks */
		for (nout = 0; nout < n->noutputs; nout++)
			scope_push(ps, n->outputs[nout]);
	}
}

/* header lines, then graph NAME(PARAMS): and the body */
static int parse_graph(struct parser *ps)
{
	struct ir_graph *g = ps->g;
	int64_t major, minor;
	int i = next_indent(ps);

	if (i == -2)
		return -1;
	if (i < 0)
		return perr(ps, "empty input: expected 'ir %d.%d LEVEL'",
			    IR_FORMAT_MAJOR, IR_FORMAT_MINOR);
	ps->p += i;
	if (!eat_word(ps, "ir"))
		return perr(ps, "expected 'ir %d.%d LEVEL' as the first line, got %s",
			    IR_FORMAT_MAJOR, IR_FORMAT_MINOR, got(ps));
	skip_sp(ps);
	if (!is_digit((unsigned char)*ps->p))
		return perr(ps, "expected a version MAJOR.MINOR after 'ir', got %s",
			    got(ps));
	/* "1.0" lexes as one float: read the two halves by hand */
	major = minor = 0;
	while (is_digit((unsigned char)*ps->p) && major < 1000000)
		major = major * 10 + (*ps->p++ - '0');
	if (*ps->p++ != '.' || !is_digit((unsigned char)*ps->p)) {
		ps->p--;
		return perr(ps, "expected a version MAJOR.MINOR after 'ir', got %s",
			    got(ps));
	}
	while (is_digit((unsigned char)*ps->p) && minor < 1000000)
		minor = minor * 10 + (*ps->p++ - '0');
	if (major != IR_FORMAT_MAJOR)
		return perr(ps, "IR version %" PRId64 ".%" PRId64 " is not supported (this reader knows %d.x)",
			    major, minor, IR_FORMAT_MAJOR);
	if (eat_word(ps, "aten"))
		g->level = IR_LEVEL_ATEN;
	else if (eat_word(ps, "onnx"))
		g->level = IR_LEVEL_ONNX;
	else
		return perr(ps, "expected the level (aten or onnx) after the version, got %s",
			    got(ps));
	if (expect_eol(ps, "the 'ir' line") < 0)
		return -1;

	for (;;) {
		i = next_indent(ps);
		if (i == -2)
			return -1;
		if (i < 0)
			return perr(ps, "missing 'graph' line");
		ps->p += i;
		if (at_word(ps, "graph"))
			break;
		if (eat_word(ps, "opset")) {
			const char *dom = parse_cstring(ps, "an opset domain");
			int64_t v;
			if (!dom || parse_i64(ps, &v, "an opset version") < 0)
				return -1;
			if (ir_opset_version(g, dom) >= 0)
				return perr(ps, "second opset for domain '%s'",
					    show_text(ps, dom, strlen(dom)));
			ir_add_opset(g, dom, v);
		} else if (eat_word(ps, "prop")) {
			const char *k = parse_cstring(ps, "a property key"), *v;
			if (!k || !(v = parse_cstring(ps, "a property value")))
				return -1;
			ir_add_prop(g, k, v);
		} else if (eat_word(ps, "producer")) {
			if (g->producer)
				return perr(ps, "second 'producer' line");
			if (!(g->producer = parse_cstring(ps, "the producer")))
				return -1;
		} else if (eat_word(ps, "doc")) {
			if (g->doc)
				return perr(ps, "second 'doc' line");
			if (!(g->doc = parse_cstring(ps, "the doc string")))
				return -1;
		} else if (eat_word(ps, "header_extra")) {
			if (g->header_extra.len)
				return perr(ps, "second 'header_extra' line");
			if (parse_raw(ps, "header_extra") < 0)
				return -1;
			g->header_extra = sb_bytes(ps);
		} else if (eat_word(ps, "graph_extra")) {
			if (g->extra.len)
				return perr(ps, "second 'graph_extra' line");
			if (parse_raw(ps, "graph_extra") < 0)
				return -1;
			g->extra = sb_bytes(ps);
		} else if (eat_word(ps, "unknown")) {
			unsigned sec = IR_RAW_HEAD;
			uint64_t index = 0;
			skip_sp(ps);
			if (!at_word(ps, "hex")) {
				for (sec = 0; sec < NSECTIONS; sec++)
					if (eat_word(ps, section_names[sec]))
						break;
				if (sec == NSECTIONS)
					return perr(ps, "expected a section (head, weights, inputs, nodes, outputs) or hex\"...\" after 'unknown', got %s",
						    got(ps));
				if (parse_u64(ps, &index, "an index") < 0)
					return -1;
				if (index > UINT32_MAX)
					return perr(ps, "index %" PRIu64 " out of range",
						    index);
				skip_sp(ps);
			}
			if (!at_word(ps, "hex") || ps->p[3] != '"')
				return perr(ps, "expected hex\"...\" after 'unknown', got %s",
					    got(ps));
			ps->p += 3;
			if (parse_hex(ps) < 0 ||
			    check_map(ps, "the unknown record") < 0)
				return -1;
			struct ir_raw_record *r = ir_alloc(g, sizeof(*r));
			r->bytes = sb_bytes(ps);
			r->section = (enum ir_raw_section)sec;
			r->index = (uint32_t)index;
			if (g->unknown_tail)
				g->unknown_tail->next = r;
			else
				g->unknown = r;
			g->unknown_tail = r;
		} else {
			return perr(ps, "expected a header line (opset, prop, producer, doc, header_extra, graph_extra, unknown) or 'graph', got %s",
				    got(ps));
		}
		if (expect_eol(ps, "a header line") < 0)
			return -1;
	}

	int line = ps->line;
	ps->p += 5;
	skip_sp(ps);
	if (*ps->p != '(' && !(g->name = parse_name(ps, "a graph name or '('")))
		return -1;
	if (parse_params(ps, g->top, 1) < 0 ||
	    expect(ps, ':', "after the graph's parameters") < 0 ||
	    expect_eol(ps, "the graph's ':'") < 0)
		return -1;
	if (parse_body(ps, g->top, i, 1, "graph", line) < 0)
		return -1;
	i = next_indent(ps);
	if (i == -2)
		return -1;
	if (i >= 0) {
		ps->p += i;
		return perr(ps, "unexpected %s after the graph's 'return'",
			    got(ps));
	}
	return 0;
}

/* Parses text[0..len), whose text[len] is NUL; frees text. */
static struct ir_graph *parse_owned(char *text, size_t len, const char *name,
				    struct diag *d)
{
	struct parser ps;
	const char *old_file = d->file;
	struct ir_graph *g;
	const char *nul = memchr(text, 0, len);

	memset(&ps, 0, sizeof(ps));
	d->file = name ? name : "<input>";
	ps.d = d;
	ps.line = 1;
	if (nul) {
		for (const char *q = text; q < nul; q++)
			ps.line += *q == '\n';
		perr(&ps, "NUL byte in the text");
		d->file = old_file;
		free(text);
		return NULL;
	}
	ps.buf = ps.p = text;
	ps.end = text + len;
	ps.g = g = ir_graph_new(IR_LEVEL_ATEN);

	int rc = parse_graph(&ps);

	/* leave no parser state in the graph */
	for (uint32_t i = 0; i < g->vcap; i++)
		if (g->vtab[i])
			g->vtab[i]->aux = NULL;
	free(ps.scope);
	free(ps.sb.data);
	free(text);
	arena_release(&ps.scratch);
	if (rc < 0 || ps.failed || ir_verify(g, d) > 0) {
		ir_graph_free(g);
		g = NULL;
	}
	d->file = old_file;
	return g;
}

struct ir_graph *ir_read_text_mem(const char *buf, size_t len,
				  const char *name, struct diag *d)
{
	char *copy = xmalloc(len + 1);
	if (len)
		memcpy(copy, buf, len);
	copy[len] = 0;
	return parse_owned(copy, len, name, d);
}

/* Reads the whole stream (a pipe is fine), then parses it in place. */
struct ir_graph *ir_read_text(struct ir_source *src, struct diag *d)
{
	size_t len = 0, cap = 1 << 16;
	char *buf = xmalloc(cap);
	for (;;) {
		if (cap - len < 2) {
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		size_t n = fread(buf + len, 1, cap - len - 1, src->fp);
		len += n;
		if (n == 0)
			break;
	}
	if (ferror(src->fp)) {
		const char *old = d->file;
		d->file = src->name;
		diag_error(d, "read error: %s", strerror(errno));
		d->file = old;
		free(buf);
		return NULL;
	}
	buf[len] = 0;
	return parse_owned(buf, len, src->name, d);
}

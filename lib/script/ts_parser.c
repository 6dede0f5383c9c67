/*
 * ts_parser.c - recursive-descent parser for python_print's TorchScript
 * (see ts_parser.h).
 *
 * One token of lookahead (`tok`) plus one peeked token (`ahead`) for the
 * two places that need it (`name=` keyword arguments, `not in`).  The first
 * error is reported and unwinds to ts_parse() with longjmp: everything
 * allocated so far is in the caller's arena, so nothing leaks, and no parse
 * function needs an error path.  Arrays grow by doubling inside the arena
 * (the old copy is dropped: at most 2x waste).
 */
#include "ts_parser.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ts_lexer.h"

#define TS_MAX_DOTTED 4096

struct parser {
	struct ts_lexer lx;
	struct ts_token tok;   /* the current token */
	struct ts_token ahead; /* the one after it, when has_ahead */
	int has_ahead;
	struct arena *arena;
	struct diag *diag;
	const char *file;
	int depth;             /* nesting, limited by TS_MAX_DEPTH */
	struct ts_expr *big;   /* an INT literal 9223372036854775808 that only
				  a minus in front of it makes valid */
	jmp_buf fail;
};

/* --- errors and tokens ------------------------------------------------------ */

static void describe(const struct ts_token *t, char *buf, size_t n)
{
	switch (t->kind) {
	case TS_TOK_NAME:
	case TS_TOK_INT:
	case TS_TOK_FLOAT:
	case TS_TOK_IMAG:
		snprintf(buf, n, "'%.*s'", t->len > 40 ? 40 : (int)t->len,
			 t->text ? t->text : "");
		break;
	case TS_TOK_STRING:
		snprintf(buf, n, "string literal");
		break;
	case TS_TOK_EOF: case TS_TOK_NEWLINE: case TS_TOK_INDENT:
	case TS_TOK_DEDENT: case TS_TOK_ERROR:
		snprintf(buf, n, "%s", ts_tok_name(t->kind));
		break;
	default:
		snprintf(buf, n, "'%s'", ts_tok_name(t->kind));
		break;
	}
}

static void p_fail(struct parser *p, struct ts_loc loc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), noreturn));

static void p_fail(struct parser *p, struct ts_loc loc, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	if (!p->lx.failed) { /* the lexer has reported its own error */
		va_start(ap, fmt);
		vsnprintf(msg, sizeof(msg), fmt, ap);
		va_end(ap);
		diag_error(p->diag, "%s:%d:%d: %s", p->file, loc.line, loc.col,
			   msg);
	}
	longjmp(p->fail, 1);
}

static void unexpected(struct parser *p, const char *expected)
	__attribute__((noreturn));

static void unexpected(struct parser *p, const char *expected)
{
	char what[64];
	describe(&p->tok, what, sizeof(what));
	if (expected)
		p_fail(p, p->tok.loc, "expected %s but found %s", expected,
		       what);
	if (p->tok.kind == TS_TOK_INDENT)
		p_fail(p, p->tok.loc, "unexpected indent");
	p_fail(p, p->tok.loc, "unexpected %s", what);
}

static void advance(struct parser *p)
{
	if (p->has_ahead) {
		p->tok = p->ahead;
		p->has_ahead = 0;
	} else {
		ts_lexer_next(&p->lx, &p->tok);
	}
	if (p->tok.kind == TS_TOK_ERROR)
		longjmp(p->fail, 1); /* reported by the lexer */
}

static const struct ts_token *peek(struct parser *p)
{
	if (!p->has_ahead) {
		ts_lexer_next(&p->lx, &p->ahead);
		p->has_ahead = 1;
	}
	return &p->ahead;
}

static int accept(struct parser *p, enum ts_tok k)
{
	if (p->tok.kind != k)
		return 0;
	advance(p);
	return 1;
}

static void expect(struct parser *p, enum ts_tok k)
{
	char what[32];
	if (p->tok.kind == k) {
		advance(p);
		return;
	}
	snprintf(what, sizeof(what), "'%s'", ts_tok_name(k));
	if (k == TS_TOK_NEWLINE || k == TS_TOK_INDENT)
		snprintf(what, sizeof(what), "%s", ts_tok_name(k));
	unexpected(p, what);
}

static void enter(struct parser *p)
{
	if (++p->depth > TS_MAX_DEPTH)
		p_fail(p, p->tok.loc, "nested too deeply (more than %d levels)",
		       TS_MAX_DEPTH);
}

static void leave(struct parser *p)
{
	p->depth--;
}

/* --- allocation ------------------------------------------------------------- */

static void *p_new(struct parser *p, size_t size)
{
	return arena_alloc(p->arena, size);
}

static char *p_strndup(struct parser *p, const char *s, size_t n)
{
	char *d = arena_alloc(p->arena, n + 1);
	memcpy(d, s, n);
	d[n] = 0;
	return d;
}

static const char *tok_str(struct parser *p)
{
	return p_strndup(p, p->tok.text, p->tok.len);
}

/* Growable arrays in the arena. */
#define VEC(T) struct { T *v; int n, cap; }
#define VEC_PUSH(p, vec, x) do { \
		if ((vec).n == (vec).cap) \
			(vec).v = vec_grow((p), (vec).v, &(vec).cap, (vec).n, \
					   sizeof(*(vec).v)); \
		(vec).v[(vec).n++] = (x); \
	} while (0)

typedef VEC(struct ts_stmt *) stmt_vec;
typedef VEC(struct ts_field *) field_vec;
typedef VEC(struct ts_def *) def_vec;
typedef VEC(struct ts_import *) import_vec;

static void *vec_grow(struct parser *p, void *old, int *cap, int n,
		      size_t elem)
{
	int ncap = *cap ? *cap * 2 : 4;
	void *v;

	if (ncap > (1 << 24))
		p_fail(p, p->tok.loc, "too many items");
	v = arena_alloc(p->arena, (size_t)ncap * elem);
	if (n)
		memcpy(v, old, (size_t)n * elem);
	*cap = ncap;
	return v;
}

static struct ts_expr *new_expr(struct parser *p, enum ts_expr_kind k,
				struct ts_loc loc)
{
	struct ts_expr *e = p_new(p, sizeof(*e));
	e->kind = k;
	e->loc = loc;
	return e;
}

static struct ts_stmt *new_stmt(struct parser *p, enum ts_stmt_kind k,
				struct ts_loc loc)
{
	struct ts_stmt *s = p_new(p, sizeof(*s));
	s->kind = k;
	s->loc = loc;
	return s;
}

/* A binary node; like every node it is located where its text starts
 * (the lhs), as Python's ast does. */
static struct ts_expr *binary(struct parser *p, enum ts_op op,
			      struct ts_expr *lhs, struct ts_expr *rhs)
{
	struct ts_expr *e = new_expr(p, TS_EXPR_BINARY, lhs->loc);
	e->u.binary.op = op;
	e->u.binary.lhs = lhs;
	e->u.binary.rhs = rhs;
	return e;
}

/* --- types ------------------------------------------------------------------ */

/* Joins parts of names with '.' (or nothing) into one arena string. */
static char *join_parts(struct parser *p, const char *const *parts,
			const size_t *lens, int n, const char *sep)
{
	size_t total = 1, sl = strlen(sep), o = 0;
	char *s;

	for (int i = 0; i < n; i++)
		total += lens[i] + (i ? sl : 0);
	s = arena_alloc(p->arena, total);
	for (int i = 0; i < n; i++) {
		if (i) {
			memcpy(s + o, sep, sl);
			o += sl;
		}
		memcpy(s + o, parts[i], lens[i]);
		o += lens[i];
	}
	s[o] = 0;
	return s;
}

/* NAME ('.' NAME)*, as one string. */
static const char *parse_dotted(struct parser *p)
{
	VEC(const char *) parts = { 0 };
	VEC(size_t) lens = { 0 };

	if (p->tok.kind != TS_TOK_NAME)
		unexpected(p, "a name");
	for (;;) {
		VEC_PUSH(p, parts, p->tok.text);
		VEC_PUSH(p, lens, p->tok.len);
		advance(p);
		if (p->tok.kind != TS_TOK_DOT)
			break;
		advance(p);
		if (p->tok.kind != TS_TOK_NAME)
			unexpected(p, "a name after '.'");
	}
	return join_parts(p, parts.v, lens.v, parts.n, ".");
}

static struct ts_type *parse_type(struct parser *p)
{
	struct ts_type *t = p_new(p, sizeof(*t));
	VEC(struct ts_type *) args = { 0 };

	enter(p);
	t->loc = p->tok.loc;
	if (p->tok.kind == TS_TOK_NONE) {
		t->name = "None";
		advance(p);
	} else if (p->tok.kind == TS_TOK_NAME) {
		t->name = parse_dotted(p);
	} else {
		unexpected(p, "a type");
	}
	if (accept(p, TS_TOK_LBRACKET)) {
		t->bracketed = 1;
		if (p->tok.kind == TS_TOK_LPAREN && peek(p)->kind == TS_TOK_RPAREN) {
			advance(p); /* Tuple[()] */
			advance(p);
		} else {
			do {
				if (p->tok.kind == TS_TOK_RBRACKET && args.n)
					break; /* trailing comma */
				VEC_PUSH(p, args, parse_type(p));
			} while (accept(p, TS_TOK_COMMA));
		}
		expect(p, TS_TOK_RBRACKET);
	}
	t->args = args.v;
	t->nargs = args.n;
	leave(p);
	return t;
}

/* --- expressions ------------------------------------------------------------ */

static struct ts_expr *parse_test(struct parser *p);
static struct ts_expr *parse_factor(struct parser *p);
static struct ts_expr *parse_binary(struct parser *p, int level);
static struct ts_expr *parse_bitor(struct parser *p);

static int starts_expr(enum ts_tok k)
{
	switch (k) {
	case TS_TOK_NAME: case TS_TOK_INT: case TS_TOK_FLOAT:
	case TS_TOK_IMAG: case TS_TOK_STRING: case TS_TOK_LPAREN:
	case TS_TOK_LBRACKET: case TS_TOK_LBRACE: case TS_TOK_MINUS:
	case TS_TOK_PLUS: case TS_TOK_TILDE: case TS_TOK_NOT:
	case TS_TOK_TRUE: case TS_TOK_FALSE: case TS_TOK_NONE:
	case TS_TOK_ELLIPSIS: case TS_TOK_LAMBDA:
		return 1;
	default:
		return 0;
	}
}

/* test (',' test)* [','] : a tuple when there is a comma. */
static struct ts_expr *parse_testlist(struct parser *p)
{
	struct ts_loc loc = p->tok.loc;
	struct ts_expr *first = parse_test(p), *e;
	VEC(struct ts_expr *) items = { 0 };

	if (p->tok.kind != TS_TOK_COMMA)
		return first;
	VEC_PUSH(p, items, first);
	while (accept(p, TS_TOK_COMMA) && starts_expr(p->tok.kind))
		VEC_PUSH(p, items, parse_test(p));
	e = new_expr(p, TS_EXPR_TUPLE, loc);
	e->u.list.items = items.v;
	e->u.list.n = items.n;
	return e;
}

static void check_no_comprehension(struct parser *p)
{
	if (p->tok.kind == TS_TOK_FOR)
		p_fail(p, p->tok.loc, "comprehensions are not supported");
}

/* '(' already consumed */
static void parse_call_args(struct parser *p, struct ts_expr *call)
{
	VEC(struct ts_expr *) args = { 0 };
	VEC(struct ts_kwarg *) kwargs = { 0 };

	while (p->tok.kind != TS_TOK_RPAREN) {
		if (p->tok.kind == TS_TOK_STAR || p->tok.kind == TS_TOK_DSTAR)
			p_fail(p, p->tok.loc,
			       "starred arguments are not supported");
		if (p->tok.kind == TS_TOK_NAME &&
		    peek(p)->kind == TS_TOK_ASSIGN) {
			struct ts_kwarg *kw = p_new(p, sizeof(*kw));
			kw->loc = p->tok.loc;
			kw->name = tok_str(p);
			for (int i = 0; i < kwargs.n; i++)
				if (!strcmp(kwargs.v[i]->name, kw->name))
					p_fail(p, kw->loc, "keyword argument "
					       "'%s' repeated", kw->name);
			advance(p);
			advance(p);
			kw->value = parse_test(p);
			VEC_PUSH(p, kwargs, kw);
		} else {
			struct ts_loc loc = p->tok.loc;
			struct ts_expr *a = parse_test(p);
			check_no_comprehension(p);
			if (kwargs.n)
				p_fail(p, loc, "positional argument follows "
				       "keyword argument");
			VEC_PUSH(p, args, a);
		}
		if (!accept(p, TS_TOK_COMMA))
			break;
	}
	expect(p, TS_TOK_RPAREN);
	call->u.call.args = args.v;
	call->u.call.nargs = args.n;
	call->u.call.kwargs = kwargs.v;
	call->u.call.nkwargs = kwargs.n;
}

static int ends_slice_part(enum ts_tok k)
{
	return k == TS_TOK_COLON || k == TS_TOK_COMMA || k == TS_TOK_RBRACKET;
}

static struct ts_expr *parse_subscript_item(struct parser *p)
{
	struct ts_loc loc = p->tok.loc;
	struct ts_expr *lo = NULL, *e;

	if (p->tok.kind != TS_TOK_COLON) {
		lo = parse_test(p);
		if (p->tok.kind != TS_TOK_COLON)
			return lo;
	}
	advance(p); /* ':' */
	e = new_expr(p, TS_EXPR_SLICE, loc);
	e->u.slice.lo = lo;
	if (!ends_slice_part(p->tok.kind))
		e->u.slice.hi = parse_test(p);
	if (accept(p, TS_TOK_COLON) && !ends_slice_part(p->tok.kind))
		e->u.slice.step = parse_test(p);
	return e;
}

/* '[' already consumed */
static struct ts_expr *parse_subscript(struct parser *p, struct ts_expr *obj,
				       struct ts_loc loc)
{
	struct ts_expr *e = new_expr(p, TS_EXPR_SUBSCRIPT, loc);
	struct ts_loc iloc = p->tok.loc;
	struct ts_expr *first;
	VEC(struct ts_expr *) items = { 0 };

	if (p->tok.kind == TS_TOK_RBRACKET)
		unexpected(p, "an index");
	first = parse_subscript_item(p);
	if (p->tok.kind == TS_TOK_COMMA) {
		struct ts_expr *t = new_expr(p, TS_EXPR_TUPLE, iloc);
		VEC_PUSH(p, items, first);
		while (accept(p, TS_TOK_COMMA) && p->tok.kind != TS_TOK_RBRACKET)
			VEC_PUSH(p, items, parse_subscript_item(p));
		t->u.list.items = items.v;
		t->u.list.n = items.n;
		first = t;
	}
	expect(p, TS_TOK_RBRACKET);
	e->u.sub.obj = obj;
	e->u.sub.index = first;
	return e;
}

/* The special forms whose arguments are types. */
static struct ts_expr *parse_special(struct parser *p, enum ts_expr_kind k,
				     struct ts_loc loc)
{
	struct ts_expr *e = new_expr(p, k, loc);

	advance(p); /* the name */
	expect(p, TS_TOK_LPAREN);
	if (k == TS_EXPR_ISINSTANCE) {
		VEC(struct ts_type *) types = { 0 };
		e->u.isinst.value = parse_test(p);
		expect(p, TS_TOK_COMMA);
		if (accept(p, TS_TOK_LPAREN)) {
			do {
				if (p->tok.kind == TS_TOK_RPAREN && types.n)
					break;
				VEC_PUSH(p, types, parse_type(p));
			} while (accept(p, TS_TOK_COMMA));
			expect(p, TS_TOK_RPAREN);
		} else {
			VEC_PUSH(p, types, parse_type(p));
		}
		e->u.isinst.types = types.v;
		e->u.isinst.ntypes = types.n;
	} else {
		e->u.cast.type = parse_type(p);
		if (k != TS_EXPR_UNINITIALIZED) {
			expect(p, TS_TOK_COMMA);
			e->u.cast.value = parse_test(p);
		}
	}
	accept(p, TS_TOK_COMMA);
	expect(p, TS_TOK_RPAREN);
	return e;
}

static struct ts_expr *parse_string(struct parser *p)
{
	struct ts_expr *e = new_expr(p, TS_EXPR_STR, p->tok.loc);
	VEC(const char *) parts = { 0 };
	VEC(size_t) lens = { 0 };
	size_t n = 0;

	while (p->tok.kind == TS_TOK_STRING) { /* "a" "b" is "ab" */
		VEC_PUSH(p, parts, p->tok.str);
		VEC_PUSH(p, lens, p->tok.str_len);
		n += p->tok.str_len;
		advance(p);
	}
	if (parts.n == 1) {
		e->u.str.s = parts.v[0];
	} else {
		e->u.str.s = join_parts(p, parts.v, lens.v, parts.n, "");
	}
	e->u.str.len = n;
	return e;
}

static struct ts_expr *parse_atom(struct parser *p)
{
	struct ts_loc loc = p->tok.loc;
	struct ts_expr *e;

	switch (p->tok.kind) {
	case TS_TOK_NAME:
		if (peek(p)->kind == TS_TOK_LPAREN) {
			static const struct {
				const char *name;
				enum ts_expr_kind kind;
			} forms[] = {
				{ "annotate", TS_EXPR_ANNOTATE },
				{ "unchecked_cast", TS_EXPR_UNCHECKED_CAST },
				{ "uninitialized", TS_EXPR_UNINITIALIZED },
				{ "isinstance", TS_EXPR_ISINSTANCE },
			};
			for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++)
				if (strlen(forms[i].name) == p->tok.len &&
				    !memcmp(forms[i].name, p->tok.text, p->tok.len))
					return parse_special(p, forms[i].kind, loc);
		}
		e = new_expr(p, TS_EXPR_NAME, loc);
		e->u.name = tok_str(p);
		advance(p);
		return e;
	case TS_TOK_INT:
		e = new_expr(p, TS_EXPR_INT, loc);
		if (p->tok.ival_overflow || p->tok.ival > (uint64_t)INT64_MAX + 1)
			p_fail(p, loc, "integer literal out of range");
		if (p->tok.ival == (uint64_t)INT64_MAX + 1) {
			e->u.i = INT64_MIN; /* valid only after a minus */
			p->big = e;
		} else {
			e->u.i = (int64_t)p->tok.ival;
		}
		advance(p);
		return e;
	case TS_TOK_FLOAT:
	case TS_TOK_IMAG:
		e = new_expr(p, p->tok.kind == TS_TOK_FLOAT ? TS_EXPR_FLOAT
			     : TS_EXPR_IMAG, loc);
		e->u.f = p->tok.fval;
		advance(p);
		return e;
	case TS_TOK_STRING:
		return parse_string(p);
	case TS_TOK_TRUE:
	case TS_TOK_FALSE:
		e = new_expr(p, TS_EXPR_BOOL, loc);
		e->u.i = p->tok.kind == TS_TOK_TRUE;
		advance(p);
		return e;
	case TS_TOK_NONE:
		advance(p);
		return new_expr(p, TS_EXPR_NONE, loc);
	case TS_TOK_ELLIPSIS:
		advance(p);
		return new_expr(p, TS_EXPR_ELLIPSIS, loc);
	case TS_TOK_LPAREN: {
		VEC(struct ts_expr *) items = { 0 };
		struct ts_expr *first;
		advance(p);
		if (accept(p, TS_TOK_RPAREN)) {
			e = new_expr(p, TS_EXPR_TUPLE, loc);
			return e;
		}
		first = parse_test(p);
		check_no_comprehension(p);
		if (accept(p, TS_TOK_RPAREN))
			return first; /* parentheses only group */
		expect(p, TS_TOK_COMMA);
		VEC_PUSH(p, items, first);
		while (p->tok.kind != TS_TOK_RPAREN) {
			VEC_PUSH(p, items, parse_test(p));
			if (!accept(p, TS_TOK_COMMA))
				break;
		}
		expect(p, TS_TOK_RPAREN);
		e = new_expr(p, TS_EXPR_TUPLE, loc);
		e->u.list.items = items.v;
		e->u.list.n = items.n;
		return e;
	}
	case TS_TOK_LBRACKET: {
		VEC(struct ts_expr *) items = { 0 };
		advance(p);
		while (p->tok.kind != TS_TOK_RBRACKET) {
			VEC_PUSH(p, items, parse_test(p));
			check_no_comprehension(p);
			if (!accept(p, TS_TOK_COMMA))
				break;
		}
		expect(p, TS_TOK_RBRACKET);
		e = new_expr(p, TS_EXPR_LIST, loc);
		e->u.list.items = items.v;
		e->u.list.n = items.n;
		return e;
	}
	case TS_TOK_LBRACE: {
		VEC(struct ts_expr *) keys = { 0 };
		VEC(struct ts_expr *) values = { 0 };
		advance(p);
		while (p->tok.kind != TS_TOK_RBRACE) {
			VEC_PUSH(p, keys, parse_test(p));
			if (p->tok.kind != TS_TOK_COLON)
				p_fail(p, p->tok.loc, "sets are not supported");
			advance(p);
			VEC_PUSH(p, values, parse_test(p));
			check_no_comprehension(p);
			if (!accept(p, TS_TOK_COMMA))
				break;
		}
		expect(p, TS_TOK_RBRACE);
		e = new_expr(p, TS_EXPR_DICT, loc);
		e->u.dict.keys = keys.v;
		e->u.dict.values = values.v;
		e->u.dict.n = keys.n;
		return e;
	}
	case TS_TOK_LAMBDA:
		p_fail(p, loc, "lambdas are not supported");
	default:
		unexpected(p, "an expression");
	}
}

/* The dotted spelling of obj.name when obj is a chain of names (NULL when
 * longer than TS_MAX_DOTTED: no real name is). */
static const char *dotted_of(struct parser *p, const struct ts_expr *obj,
			     const char *name)
{
	const char *base = NULL;
	size_t bl, nl = strlen(name);
	char *s;

	if (obj->kind == TS_EXPR_NAME)
		base = obj->u.name;
	else if (obj->kind == TS_EXPR_ATTR)
		base = obj->u.attr.dotted;
	if (!base)
		return NULL;
	bl = strlen(base);
	if (bl + nl > TS_MAX_DOTTED)
		return NULL;
	s = arena_alloc(p->arena, bl + 1 + nl + 1);
	memcpy(s, base, bl);
	s[bl] = '.';
	memcpy(s + bl + 1, name, nl + 1);
	return s;
}

/* atom trailer*: each trailer nests the tree one level deeper, and counts
 * against TS_MAX_DEPTH like any nesting, so that walkers of the tree can
 * recurse safely. */
static struct ts_expr *parse_atom_expr(struct parser *p)
{
	struct ts_expr *e = parse_atom(p);
	int saved = p->depth;

	for (;; enter(p)) {
		struct ts_expr *t;

		if (e == p->big && (p->tok.kind == TS_TOK_LPAREN ||
				    p->tok.kind == TS_TOK_LBRACKET ||
				    p->tok.kind == TS_TOK_DOT))
			p_fail(p, e->loc, "integer literal out of range");
		switch (p->tok.kind) {
		case TS_TOK_LPAREN:
			advance(p);
			t = new_expr(p, TS_EXPR_CALL, e->loc);
			t->u.call.fn = e;
			parse_call_args(p, t);
			e = t;
			break;
		case TS_TOK_LBRACKET:
			advance(p);
			e = parse_subscript(p, e, e->loc);
			break;
		case TS_TOK_DOT:
			advance(p);
			if (p->tok.kind != TS_TOK_NAME)
				unexpected(p, "an attribute name");
			t = new_expr(p, TS_EXPR_ATTR, e->loc);
			t->u.attr.obj = e;
			t->u.attr.name = tok_str(p);
			t->u.attr.dotted = dotted_of(p, e, t->u.attr.name);
			advance(p);
			e = t;
			break;
		default:
			p->depth = saved;
			return e;
		}
	}
}

static struct ts_expr *parse_power(struct parser *p)
{
	struct ts_expr *e = parse_atom_expr(p);

	if (p->tok.kind == TS_TOK_DSTAR) {
		if (e == p->big)
			p_fail(p, e->loc, "integer literal out of range");
		enter(p);
		advance(p);
		e = binary(p, TS_OP_POW, e, parse_factor(p));
		leave(p);
	}
	return e;
}

/* A factor that may still be the pending 9223372036854775808. */
static struct ts_expr *parse_factor_inner(struct parser *p)
{
	struct ts_loc loc = p->tok.loc;
	enum ts_op op;
	struct ts_expr *operand, *e;

	switch (p->tok.kind) {
	case TS_TOK_MINUS: op = TS_OP_NEG; break;
	case TS_TOK_PLUS: op = TS_OP_POS; break;
	case TS_TOK_TILDE: op = TS_OP_INVERT; break;
	default: return parse_power(p);
	}
	enter(p);
	advance(p);
	if (op != TS_OP_NEG) {
		operand = parse_factor(p);
	} else {
		operand = parse_factor_inner(p);
		/* fold a minus into a literal: -1, -1.5, -inf */
		if (operand->kind == TS_EXPR_INT) {
			if (operand == p->big) {
				p->big = NULL; /* INT64_MIN already */
			} else if (operand->u.i == INT64_MIN) {
				p_fail(p, operand->loc,
				       "integer literal out of range");
			} else {
				operand->u.i = -operand->u.i;
			}
			operand->loc = loc;
			leave(p);
			return operand;
		}
		if (operand->kind == TS_EXPR_FLOAT ||
		    operand->kind == TS_EXPR_IMAG) {
			operand->u.f = -operand->u.f;
			operand->loc = loc;
			leave(p);
			return operand;
		}
	}
	e = new_expr(p, TS_EXPR_UNARY, loc);
	e->u.unary.op = op;
	e->u.unary.operand = operand;
	leave(p);
	return e;
}

static struct ts_expr *parse_factor(struct parser *p)
{
	struct ts_expr *e = parse_factor_inner(p);
	if (e == p->big)
		p_fail(p, e->loc, "integer literal out of range");
	return e;
}

/* The binary operators from '|' down to '*': their precedence level,
 * loosest first (all left-associative), or -1. */
#define BINOP_LEVELS 6

static int binop_level(enum ts_tok k, enum ts_op *op)
{
	switch (k) {
	case TS_TOK_PIPE: *op = TS_OP_BITOR; return 0;
	case TS_TOK_CARET: *op = TS_OP_BITXOR; return 1;
	case TS_TOK_AMP: *op = TS_OP_BITAND; return 2;
	case TS_TOK_LSHIFT: *op = TS_OP_LSHIFT; return 3;
	case TS_TOK_RSHIFT: *op = TS_OP_RSHIFT; return 3;
	case TS_TOK_PLUS: *op = TS_OP_ADD; return 4;
	case TS_TOK_MINUS: *op = TS_OP_SUB; return 4;
	case TS_TOK_STAR: *op = TS_OP_MUL; return 5;
	case TS_TOK_SLASH: *op = TS_OP_DIV; return 5;
	case TS_TOK_DSLASH: *op = TS_OP_FLOORDIV; return 5;
	case TS_TOK_PERCENT: *op = TS_OP_MOD; return 5;
	case TS_TOK_AT: *op = TS_OP_MATMUL; return 5;
	default: return -1;
	}
}

/* One precedence level of binary operators.  Each operator in a chain
 * deepens the (left-leaning) tree, so each counts against TS_MAX_DEPTH. */
static struct ts_expr *parse_binary(struct parser *p, int level)
{
	struct ts_expr *e;
	int saved = p->depth;
	enum ts_op op = TS_OP_ADD;

	if (level == BINOP_LEVELS)
		return parse_factor(p);
	e = parse_binary(p, level + 1);
	while (binop_level(p->tok.kind, &op) == level) {
		enter(p);
		advance(p);
		e = binary(p, op, e, parse_binary(p, level + 1));
	}
	p->depth = saved;
	return e;
}

static struct ts_expr *parse_bitor(struct parser *p)
{
	return parse_binary(p, 0);
}

static struct ts_expr *parse_comparison(struct parser *p)
{
	struct ts_expr *e = parse_bitor(p);
	int saved = p->depth;

	for (;; enter(p)) {
		enum ts_op op;
		switch (p->tok.kind) {
		case TS_TOK_EQ: op = TS_OP_EQ; break;
		case TS_TOK_NE: op = TS_OP_NE; break;
		case TS_TOK_LT: op = TS_OP_LT; break;
		case TS_TOK_LE: op = TS_OP_LE; break;
		case TS_TOK_GT: op = TS_OP_GT; break;
		case TS_TOK_GE: op = TS_OP_GE; break;
		case TS_TOK_IN: op = TS_OP_IN; break;
		case TS_TOK_IS:
			op = TS_OP_IS;
			if (peek(p)->kind == TS_TOK_NOT) {
				advance(p);
				op = TS_OP_IS_NOT;
			}
			break;
		case TS_TOK_NOT:
			if (peek(p)->kind == TS_TOK_IN) {
				advance(p);
				op = TS_OP_NOT_IN;
				break;
			}
			/* fall through */
		default:
			p->depth = saved;
			return e;
		}
		advance(p);
		e = binary(p, op, e, parse_bitor(p));
	}
}

static struct ts_expr *parse_not(struct parser *p)
{
	struct ts_loc loc = p->tok.loc;
	struct ts_expr *e;

	if (p->tok.kind != TS_TOK_NOT)
		return parse_comparison(p);
	enter(p);
	advance(p);
	e = new_expr(p, TS_EXPR_UNARY, loc);
	e->u.unary.op = TS_OP_NOT;
	e->u.unary.operand = parse_not(p);
	leave(p);
	return e;
}

static struct ts_expr *parse_and(struct parser *p)
{
	struct ts_expr *e = parse_not(p);
	int saved = p->depth;
	while (p->tok.kind == TS_TOK_AND) {
		enter(p);
		advance(p);
		e = binary(p, TS_OP_AND, e, parse_not(p));
	}
	p->depth = saved;
	return e;
}

static struct ts_expr *parse_or(struct parser *p)
{
	struct ts_expr *e = parse_and(p);
	int saved = p->depth;
	while (p->tok.kind == TS_TOK_OR) {
		enter(p);
		advance(p);
		e = binary(p, TS_OP_OR, e, parse_and(p));
	}
	p->depth = saved;
	return e;
}

static struct ts_expr *parse_test(struct parser *p)
{
	struct ts_expr *e;

	enter(p);
	if (p->tok.kind == TS_TOK_LAMBDA)
		p_fail(p, p->tok.loc, "lambdas are not supported");
	e = parse_or(p);
	if (p->tok.kind == TS_TOK_IF) {
		struct ts_expr *c = new_expr(p, TS_EXPR_IFEXP, e->loc);
		advance(p);
		c->u.ifexp.then = e;
		c->u.ifexp.cond = parse_or(p);
		expect(p, TS_TOK_ELSE);
		c->u.ifexp.orelse = parse_test(p);
		e = c;
	}
	leave(p);
	return e;
}

/* --- statements ------------------------------------------------------------- */

static void parse_stmt(struct parser *p, stmt_vec *out);
static struct ts_def *parse_def(struct parser *p, struct ts_expr **decos,
				int ndecos);

/* After the ':' of a compound statement: an indented block, or simple
 * statements on the same line. */
static void parse_block(struct parser *p, struct ts_block *b)
{
	stmt_vec stmts = { 0 };

	enter(p);
	if (accept(p, TS_TOK_NEWLINE)) {
		expect(p, TS_TOK_INDENT);
		do
			parse_stmt(p, &stmts);
		while (p->tok.kind != TS_TOK_DEDENT && p->tok.kind != TS_TOK_EOF);
		expect(p, TS_TOK_DEDENT);
	} else {
		parse_stmt(p, &stmts);
	}
	b->stmts = stmts.v;
	b->n = stmts.n;
	leave(p);
}

static void check_target(struct parser *p, const struct ts_expr *t)
{
	if (t->kind != TS_EXPR_NAME && t->kind != TS_EXPR_ATTR &&
	    t->kind != TS_EXPR_SUBSCRIPT)
		p_fail(p, t->loc, "cannot assign to this expression");
}

static enum ts_op aug_op(enum ts_tok k, int *ok)
{
	*ok = 1;
	switch (k) {
	case TS_TOK_PLUSEQ: return TS_OP_ADD;
	case TS_TOK_MINUSEQ: return TS_OP_SUB;
	case TS_TOK_STAREQ: return TS_OP_MUL;
	case TS_TOK_SLASHEQ: return TS_OP_DIV;
	case TS_TOK_DSLASHEQ: return TS_OP_FLOORDIV;
	case TS_TOK_PERCENTEQ: return TS_OP_MOD;
	case TS_TOK_DSTAREQ: return TS_OP_POW;
	case TS_TOK_ATEQ: return TS_OP_MATMUL;
	case TS_TOK_AMPEQ: return TS_OP_BITAND;
	case TS_TOK_PIPEEQ: return TS_OP_BITOR;
	case TS_TOK_CARETEQ: return TS_OP_BITXOR;
	case TS_TOK_LSHIFTEQ: return TS_OP_LSHIFT;
	case TS_TOK_RSHIFTEQ: return TS_OP_RSHIFT;
	default: *ok = 0; return TS_OP_ADD;
	}
}

/* An expression statement, an assignment or an augmented assignment. */
static struct ts_stmt *parse_expr_stmt(struct parser *p)
{
	struct ts_loc loc = p->tok.loc;
	VEC(struct ts_expr *) items = { 0 };
	int trailing = 0, ok;
	struct ts_stmt *s;
	enum ts_op op;

	VEC_PUSH(p, items, parse_test(p));
	while (p->tok.kind == TS_TOK_COMMA) {
		advance(p);
		if (!starts_expr(p->tok.kind)) {
			trailing = 1;
			break;
		}
		VEC_PUSH(p, items, parse_test(p));
	}
	if (p->tok.kind == TS_TOK_ASSIGN) {
		advance(p);
		s = new_stmt(p, TS_STMT_ASSIGN, loc);
		for (int i = 0; i < items.n; i++)
			check_target(p, items.v[i]);
		s->u.assign.targets = items.v;
		s->u.assign.ntargets = items.n;
		s->u.assign.unpack = items.n > 1 || trailing;
		s->u.assign.value = parse_testlist(p);
		if (p->tok.kind == TS_TOK_ASSIGN)
			p_fail(p, p->tok.loc,
			       "chained assignment is not supported");
		return s;
	}
	if (p->tok.kind == TS_TOK_COLON && items.n == 1 && !trailing) {
		advance(p);
		check_target(p, items.v[0]);
		s = new_stmt(p, TS_STMT_ASSIGN, loc);
		s->u.assign.targets = items.v;
		s->u.assign.ntargets = 1;
		s->u.assign.type = parse_type(p);
		if (accept(p, TS_TOK_ASSIGN))
			s->u.assign.value = parse_testlist(p);
		return s;
	}
	op = aug_op(p->tok.kind, &ok);
	if (ok) {
		if (items.n != 1 || trailing)
			p_fail(p, p->tok.loc, "augmented assignment to more "
			       "than one target");
		check_target(p, items.v[0]);
		advance(p);
		s = new_stmt(p, TS_STMT_AUGASSIGN, loc);
		s->u.aug.target = items.v[0];
		s->u.aug.op = op;
		s->u.aug.value = parse_testlist(p);
		return s;
	}
	s = new_stmt(p, TS_STMT_EXPR, loc);
	if (items.n == 1 && !trailing) {
		s->u.expr = items.v[0];
	} else {
		struct ts_expr *t = new_expr(p, TS_EXPR_TUPLE, loc);
		t->u.list.items = items.v;
		t->u.list.n = items.n;
		s->u.expr = t;
	}
	return s;
}

static struct ts_stmt *parse_small_stmt(struct parser *p)
{
	struct ts_loc loc = p->tok.loc;
	struct ts_stmt *s;

	switch (p->tok.kind) {
	case TS_TOK_PASS:
		advance(p);
		return new_stmt(p, TS_STMT_PASS, loc);
	case TS_TOK_BREAK:
		advance(p);
		return new_stmt(p, TS_STMT_BREAK, loc);
	case TS_TOK_CONTINUE:
		advance(p);
		return new_stmt(p, TS_STMT_CONTINUE, loc);
	case TS_TOK_RETURN:
		advance(p);
		s = new_stmt(p, TS_STMT_RETURN, loc);
		if (starts_expr(p->tok.kind))
			s->u.value = parse_testlist(p);
		return s;
	case TS_TOK_RAISE:
		advance(p);
		s = new_stmt(p, TS_STMT_RAISE, loc);
		if (starts_expr(p->tok.kind))
			s->u.value = parse_test(p);
		if (p->tok.kind == TS_TOK_FROM)
			p_fail(p, p->tok.loc, "'raise ... from' is not supported");
		return s;
	case TS_TOK_ASSERT:
		advance(p);
		s = new_stmt(p, TS_STMT_ASSERT, loc);
		s->u.assert_.cond = parse_test(p);
		if (accept(p, TS_TOK_COMMA))
			s->u.assert_.msg = parse_test(p);
		return s;
	case TS_TOK_DEL: case TS_TOK_GLOBAL: case TS_TOK_NONLOCAL:
	case TS_TOK_YIELD: case TS_TOK_TRY: case TS_TOK_EXCEPT:
	case TS_TOK_FINALLY:
		p_fail(p, loc, "'%s' is not supported", ts_tok_name(p->tok.kind));
	default:
		if (!starts_expr(p->tok.kind))
			unexpected(p, NULL);
		return parse_expr_stmt(p);
	}
}

/* small_stmt (';' small_stmt)* [';'] NEWLINE */
static void parse_simple_line(struct parser *p, stmt_vec *out)
{
	do {
		if (p->tok.kind == TS_TOK_NEWLINE)
			break;
		VEC_PUSH(p, *out, parse_small_stmt(p));
	} while (accept(p, TS_TOK_SEMI));
	expect(p, TS_TOK_NEWLINE);
}

static struct ts_stmt *parse_if(struct parser *p)
{
	struct ts_stmt *s = new_stmt(p, TS_STMT_IF, p->tok.loc);

	enter(p);
	advance(p); /* if / elif */
	s->u.if_.cond = parse_test(p);
	expect(p, TS_TOK_COLON);
	parse_block(p, &s->u.if_.then);
	if (p->tok.kind == TS_TOK_ELIF) {
		struct ts_stmt **one = p_new(p, sizeof(*one));
		one[0] = parse_if(p);
		s->u.if_.orelse.stmts = one;
		s->u.if_.orelse.n = 1;
	} else if (accept(p, TS_TOK_ELSE)) {
		expect(p, TS_TOK_COLON);
		parse_block(p, &s->u.if_.orelse);
	}
	leave(p);
	return s;
}

/* The targets of `for a, b in`: expressions without comparisons. */
static void parse_for_targets(struct parser *p, struct ts_stmt *s)
{
	VEC(struct ts_expr *) items = { 0 };
	int trailing = 0;

	for (;;) {
		struct ts_expr *t = parse_bitor(p);
		check_target(p, t);
		VEC_PUSH(p, items, t);
		if (!accept(p, TS_TOK_COMMA))
			break;
		if (p->tok.kind == TS_TOK_IN) {
			trailing = 1;
			break;
		}
	}
	s->u.for_.targets = items.v;
	s->u.for_.ntargets = items.n;
	s->u.for_.unpack = items.n > 1 || trailing;
}

/* with a as x, b: -> nested WITH statements */
static struct ts_stmt *parse_with_items(struct parser *p, struct ts_loc loc)
{
	struct ts_stmt *s = new_stmt(p, TS_STMT_WITH, loc);

	enter(p);
	s->u.with.ctx = parse_test(p);
	if (accept(p, TS_TOK_AS)) {
		s->u.with.target = parse_bitor(p);
		check_target(p, s->u.with.target);
	}
	if (accept(p, TS_TOK_COMMA)) {
		struct ts_stmt **one = p_new(p, sizeof(*one));
		one[0] = parse_with_items(p, p->tok.loc);
		s->u.with.body.stmts = one;
		s->u.with.body.n = 1;
	} else {
		expect(p, TS_TOK_COLON);
		parse_block(p, &s->u.with.body);
	}
	leave(p);
	return s;
}

static void parse_decorators(struct parser *p, struct ts_expr ***decos,
			     int *n)
{
	VEC(struct ts_expr *) v = { 0 };
	while (accept(p, TS_TOK_AT)) {
		VEC_PUSH(p, v, parse_test(p));
		expect(p, TS_TOK_NEWLINE);
	}
	if (p->tok.kind != TS_TOK_DEF)
		unexpected(p, "'def' after decorators");
	*decos = v.v;
	*n = v.n;
}

/* One statement (compound or a line of simple ones), pushed to *vec. */
static void parse_stmt(struct parser *p, stmt_vec *out)
{
	struct ts_loc loc = p->tok.loc;
	struct ts_stmt *s;
	struct ts_expr **decos = NULL;
	int ndecos = 0;

	switch (p->tok.kind) {
	case TS_TOK_IF:
		s = parse_if(p);
		break;
	case TS_TOK_WHILE:
		s = new_stmt(p, TS_STMT_WHILE, loc);
		advance(p);
		s->u.while_.cond = parse_test(p);
		expect(p, TS_TOK_COLON);
		parse_block(p, &s->u.while_.body);
		break;
	case TS_TOK_FOR:
		s = new_stmt(p, TS_STMT_FOR, loc);
		advance(p);
		parse_for_targets(p, s);
		expect(p, TS_TOK_IN);
		s->u.for_.iter = parse_testlist(p);
		expect(p, TS_TOK_COLON);
		parse_block(p, &s->u.for_.body);
		break;
	case TS_TOK_WITH:
		advance(p);
		s = parse_with_items(p, loc);
		break;
	case TS_TOK_AT:
		parse_decorators(p, &decos, &ndecos);
		/* fall through */
	case TS_TOK_DEF:
		s = new_stmt(p, TS_STMT_DEF, p->tok.loc);
		s->u.def = parse_def(p, decos, ndecos);
		break;
	case TS_TOK_CLASS:
		p_fail(p, loc, "a class definition is not allowed here");
	case TS_TOK_ELIF:
	case TS_TOK_ELSE:
		p_fail(p, loc, "'%s' without 'if'", ts_tok_name(p->tok.kind));
	default:
		parse_simple_line(p, out);
		return;
	}
	VEC_PUSH(p, *out, s);
}

static struct ts_def *parse_def(struct parser *p, struct ts_expr **decos,
				int ndecos)
{
	struct ts_def *d = p_new(p, sizeof(*d));
	VEC(struct ts_param *) params = { 0 };

	enter(p);
	d->loc = p->tok.loc;
	d->decorators = decos;
	d->ndecorators = ndecos;
	expect(p, TS_TOK_DEF);
	if (p->tok.kind != TS_TOK_NAME)
		unexpected(p, "a function name");
	d->name = tok_str(p);
	advance(p);
	expect(p, TS_TOK_LPAREN);
	while (p->tok.kind != TS_TOK_RPAREN) {
		struct ts_param *a = p_new(p, sizeof(*a));
		if (p->tok.kind == TS_TOK_STAR || p->tok.kind == TS_TOK_DSTAR)
			p_fail(p, p->tok.loc,
			       "starred parameters are not supported");
		if (p->tok.kind != TS_TOK_NAME)
			unexpected(p, "a parameter name");
		a->loc = p->tok.loc;
		a->name = tok_str(p);
		for (int i = 0; i < params.n; i++)
			if (!strcmp(params.v[i]->name, a->name))
				p_fail(p, a->loc, "duplicate parameter '%s'",
				       a->name);
		advance(p);
		if (accept(p, TS_TOK_COLON))
			a->type = parse_type(p);
		if (accept(p, TS_TOK_ASSIGN))
			a->def = parse_test(p);
		VEC_PUSH(p, params, a);
		if (!accept(p, TS_TOK_COMMA))
			break;
	}
	expect(p, TS_TOK_RPAREN);
	d->params = params.v;
	d->nparams = params.n;
	if (accept(p, TS_TOK_ARROW))
		d->ret = parse_type(p);
	expect(p, TS_TOK_COLON);
	parse_block(p, &d->body);
	leave(p);
	return d;
}

/* --- classes ---------------------------------------------------------------- */

/* `["a", "b", ]`: the strings of a list or tuple literal of strings. */
static void string_list(struct parser *p, const struct ts_expr *e,
			const char ***out, int *n)
{
	const char **v;

	if (e->kind != TS_EXPR_LIST && e->kind != TS_EXPR_TUPLE)
		p_fail(p, e->loc, "expected a list of strings");
	v = p_new(p, sizeof(*v) * (size_t)(e->u.list.n + 1));
	for (int i = 0; i < e->u.list.n; i++) {
		if (e->u.list.items[i]->kind != TS_EXPR_STR)
			p_fail(p, e->u.list.items[i]->loc,
			       "expected a list of strings");
		v[i] = e->u.list.items[i]->u.str.s;
	}
	*out = v;
	*n = e->u.list.n;
}

static int tok_is(const struct ts_token *t, const char *s)
{
	return t->kind == TS_TOK_NAME && strlen(s) == t->len &&
	       !memcmp(t->text, s, t->len);
}

static void parse_class_item(struct parser *p, struct ts_class *c,
			     field_vec *fields, def_vec *methods)
{
	struct ts_field *f;
	struct ts_expr **decos = NULL;
	int ndecos = 0;

	switch (p->tok.kind) {
	case TS_TOK_PASS:
		advance(p);
		expect(p, TS_TOK_NEWLINE);
		return;
	case TS_TOK_STRING: /* a docstring */
		parse_string(p);
		expect(p, TS_TOK_NEWLINE);
		return;
	case TS_TOK_AT:
		parse_decorators(p, &decos, &ndecos);
		/* fall through */
	case TS_TOK_DEF:
		VEC_PUSH(p, *methods, parse_def(p, decos, ndecos));
		return;
	case TS_TOK_NAME:
		break;
	default:
		unexpected(p, "an attribute or a method in the class body");
	}
	f = p_new(p, sizeof(*f));
	f->loc = p->tok.loc;
	if (tok_is(&p->tok, "__annotations__") &&
	    peek(p)->kind == TS_TOK_LBRACKET) {
		/* __annotations__["0"] = T */
		advance(p);
		advance(p);
		if (p->tok.kind != TS_TOK_STRING)
			unexpected(p, "an attribute name string");
		f->name = p->tok.str;
		advance(p);
		expect(p, TS_TOK_RBRACKET);
		expect(p, TS_TOK_ASSIGN);
		f->type = parse_type(p);
		expect(p, TS_TOK_NEWLINE);
		VEC_PUSH(p, *fields, f);
		return;
	}
	f->name = tok_str(p);
	advance(p);
	if (accept(p, TS_TOK_COLON)) { /* name : T [= value] */
		f->type = parse_type(p);
		if (!strcmp(f->type->name, "Final") && f->type->nargs == 1) {
			f->is_final = 1;
			f->type = f->type->args[0];
		}
		if (accept(p, TS_TOK_ASSIGN))
			f->value = parse_testlist(p);
		expect(p, TS_TOK_NEWLINE);
		VEC_PUSH(p, *fields, f);
		return;
	}
	expect(p, TS_TOK_ASSIGN);
	f->value = parse_testlist(p);
	expect(p, TS_TOK_NEWLINE);
	if (!strcmp(f->name, "__parameters__"))
		string_list(p, f->value, &c->parameters, &c->nparameters);
	else if (!strcmp(f->name, "__buffers__"))
		string_list(p, f->value, &c->buffers, &c->nbuffers);
	else if (!strcmp(f->name, "__forward_hooks__"))
		string_list(p, f->value, &c->forward_hooks, &c->nforward_hooks);
	else if (!strcmp(f->name, "__forward_pre_hooks__"))
		string_list(p, f->value, &c->forward_pre_hooks,
			    &c->nforward_pre_hooks);
	else if (strcmp(f->name, "__annotations__"))
		VEC_PUSH(p, *fields, f); /* Enum members, __constants__ */
}

static struct ts_class *parse_class(struct parser *p)
{
	struct ts_class *c = p_new(p, sizeof(*c));
	field_vec fields = { 0 };
	def_vec methods = { 0 };

	enter(p);
	c->loc = p->tok.loc;
	advance(p); /* class */
	if (p->tok.kind != TS_TOK_NAME)
		unexpected(p, "a class name");
	c->name = tok_str(p);
	advance(p);
	if (accept(p, TS_TOK_LPAREN)) {
		if (p->tok.kind != TS_TOK_RPAREN)
			c->base = parse_dotted(p);
		if (p->tok.kind == TS_TOK_COMMA)
			p_fail(p, p->tok.loc,
			       "more than one base class is not supported");
		expect(p, TS_TOK_RPAREN);
	}
	expect(p, TS_TOK_COLON);
	if (accept(p, TS_TOK_NEWLINE)) {
		expect(p, TS_TOK_INDENT);
		do
			parse_class_item(p, c, &fields, &methods);
		while (p->tok.kind != TS_TOK_DEDENT && p->tok.kind != TS_TOK_EOF);
		expect(p, TS_TOK_DEDENT);
	} else {
		expect(p, TS_TOK_PASS); /* class X: pass */
		expect(p, TS_TOK_NEWLINE);
	}
	c->fields = fields.v;
	c->nfields = fields.n;
	c->methods = methods.v;
	c->nmethods = methods.n;
	if (!c->parameters)
		c->parameters = p_new(p, sizeof(*c->parameters));
	if (!c->buffers)
		c->buffers = p_new(p, sizeof(*c->buffers));
	leave(p);
	return c;
}

/* --- modules ---------------------------------------------------------------- */

/* A relative or absolute module name: '.'* dotted */
static const char *parse_module_name(struct parser *p)
{
	size_t dots = 0;
	const char *name = "";
	char *s;

	while (p->tok.kind == TS_TOK_DOT || p->tok.kind == TS_TOK_ELLIPSIS) {
		dots += p->tok.kind == TS_TOK_DOT ? 1 : 3;
		advance(p);
	}
	if (p->tok.kind == TS_TOK_NAME || !dots)
		name = parse_dotted(p);
	if (!dots)
		return name;
	s = arena_alloc(p->arena, dots + strlen(name) + 1);
	memset(s, '.', dots);
	memcpy(s + dots, name, strlen(name) + 1);
	return s;
}

static const char *parse_as(struct parser *p)
{
	const char *as;
	if (!accept(p, TS_TOK_AS))
		return NULL;
	if (p->tok.kind != TS_TOK_NAME)
		unexpected(p, "a name after 'as'");
	as = tok_str(p);
	advance(p);
	return as;
}

static void parse_import(struct parser *p, import_vec *out)
{

	if (accept(p, TS_TOK_IMPORT)) {
		do {
			struct ts_import *im = p_new(p, sizeof(*im));
			im->loc = p->tok.loc;
			im->module = parse_dotted(p);
			im->as = parse_as(p);
			VEC_PUSH(p, *out, im);
		} while (accept(p, TS_TOK_COMMA));
	} else {
		const char *module;
		int paren;
		expect(p, TS_TOK_FROM);
		module = parse_module_name(p);
		expect(p, TS_TOK_IMPORT);
		paren = accept(p, TS_TOK_LPAREN);
		do {
			struct ts_import *im = p_new(p, sizeof(*im));
			if (paren && p->tok.kind == TS_TOK_RPAREN)
				break;
			im->loc = p->tok.loc;
			im->module = module;
			if (accept(p, TS_TOK_STAR)) {
				im->name = "*";
			} else {
				if (p->tok.kind != TS_TOK_NAME)
					unexpected(p, "a name to import");
				im->name = tok_str(p);
				advance(p);
				im->as = parse_as(p);
			}
			VEC_PUSH(p, *out, im);
		} while (accept(p, TS_TOK_COMMA));
		if (paren)
			expect(p, TS_TOK_RPAREN);
	}
	expect(p, TS_TOK_NEWLINE);
}

static struct ts_module *parse_module(struct parser *p)
{
	struct ts_module *m = p_new(p, sizeof(*m));
	import_vec imports = { 0 };
	VEC(struct ts_class *) classes = { 0 };
	def_vec defs = { 0 };
	stmt_vec stmts = { 0 };

	m->file = p_strndup(p, p->file, strlen(p->file));
	advance(p);
	while (p->tok.kind != TS_TOK_EOF) {
		struct ts_expr **decos = NULL;
		int ndecos = 0;

		switch (p->tok.kind) {
		case TS_TOK_NEWLINE:
			advance(p);
			break;
		case TS_TOK_CLASS:
			VEC_PUSH(p, classes, parse_class(p));
			break;
		case TS_TOK_AT:
			parse_decorators(p, &decos, &ndecos);
			/* fall through */
		case TS_TOK_DEF:
			VEC_PUSH(p, defs, parse_def(p, decos, ndecos));
			break;
		case TS_TOK_IMPORT:
		case TS_TOK_FROM:
			parse_import(p, &imports);
			break;
		default:
			parse_stmt(p, &stmts);
			break;
		}
	}
	m->imports = imports.v;
	m->nimports = imports.n;
	m->classes = classes.v;
	m->nclasses = classes.n;
	m->defs = defs.v;
	m->ndefs = defs.n;
	m->stmts = stmts.v;
	m->nstmts = stmts.n;
	return m;
}

static int p_init(struct parser *p, struct arena *a, struct diag *d,
		  const char *file, const char *src, size_t len)
{
	memset(p, 0, sizeof(*p));
	p->arena = a;
	p->diag = d;
	p->file = file ? file : "<source>";
	if (len > TS_MAX_SOURCE) {
		diag_error(d, "%s: source too large (%zu bytes)", p->file, len);
		return -1;
	}
	ts_lexer_init(&p->lx, p->file, src, len, a, d);
	return 0;
}

struct ts_module *ts_parse(struct arena *a, struct diag *d, const char *file,
			   const char *src, size_t len)
{
	struct parser *p = xcalloc(1, sizeof(*p));
	struct ts_module *volatile m = NULL;

	if (!p_init(p, a, d, file, src, len) && !setjmp(p->fail))
		m = parse_module(p);
	free(p);
	return m;
}

struct ts_expr *ts_parse_expr(struct arena *a, struct diag *d,
			      const char *file, const char *src, size_t len)
{
	struct parser *p = xcalloc(1, sizeof(*p));
	struct ts_expr *volatile e = NULL;

	if (!p_init(p, a, d, file, src, len) && !setjmp(p->fail)) {
		struct ts_expr *r;
		advance(p);
		r = parse_testlist(p);
		accept(p, TS_TOK_NEWLINE);
		if (p->tok.kind != TS_TOK_EOF)
			unexpected(p, "end of expression");
		e = r;
	}
	free(p);
	return e;
}

struct ts_type *ts_parse_type(struct arena *a, struct diag *d,
			      const char *file, const char *src, size_t len)
{
	struct parser *p = xcalloc(1, sizeof(*p));
	struct ts_type *volatile t = NULL;

	if (!p_init(p, a, d, file, src, len) && !setjmp(p->fail)) {
		struct ts_type *r;
		advance(p);
		r = parse_type(p);
		accept(p, TS_TOK_NEWLINE);
		if (p->tok.kind != TS_TOK_EOF)
			unexpected(p, "end of type");
		t = r;
	}
	free(p);
	return t;
}

/*
 * ts_lexer.c - tokens of TorchScript source (see ts_lexer.h).
 *
 * Indentation follows Python's tokenizer: at the start of each line outside
 * brackets the leading blanks are measured (a tab goes to the next multiple
 * of 8); blank and comment-only lines do not count; a deeper line pushes the
 * stack and gives INDENT, a shallower one pops it and gives one DEDENT per
 * level, and must land on a level seen before.  At the end of the file the
 * pending NEWLINE and DEDENTs come before EOF.  Escapes are those torch's
 * parseStringLiteral accepts and Python means the same by: \\ \' \" \a \b
 * \f \n \r \t \v \xHH \OOO and backslash-newline; others are errors.
 *
 * Costs: one pass over the source, O(1) memory besides string literals.
 */
#include "ts_lexer.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const tok_names[TS_TOK_COUNT] = {
#define TS_TOK_NAME_(name, text) text,
	TS_TOKENS(TS_TOK_NAME_)
#undef TS_TOK_NAME_
};

const char *ts_tok_name(enum ts_tok kind)
{
	if ((unsigned)kind >= TS_TOK_COUNT)
		return "?";
	return tok_names[kind];
}

static const struct {
	const char *word;
	enum ts_tok kind;
} keywords[] = { /* in no order: looked up only for names of 2 to 8 bytes */
	{ "def", TS_TOK_DEF }, { "class", TS_TOK_CLASS }, { "if", TS_TOK_IF },
	{ "elif", TS_TOK_ELIF }, { "else", TS_TOK_ELSE },
	{ "for", TS_TOK_FOR }, { "while", TS_TOK_WHILE }, { "in", TS_TOK_IN },
	{ "is", TS_TOK_IS }, { "not", TS_TOK_NOT }, { "and", TS_TOK_AND },
	{ "or", TS_TOK_OR }, { "return", TS_TOK_RETURN },
	{ "pass", TS_TOK_PASS }, { "raise", TS_TOK_RAISE },
	{ "assert", TS_TOK_ASSERT }, { "break", TS_TOK_BREAK },
	{ "continue", TS_TOK_CONTINUE }, { "with", TS_TOK_WITH },
	{ "as", TS_TOK_AS }, { "import", TS_TOK_IMPORT },
	{ "from", TS_TOK_FROM }, { "True", TS_TOK_TRUE },
	{ "False", TS_TOK_FALSE }, { "None", TS_TOK_NONE },
	{ "lambda", TS_TOK_LAMBDA }, { "del", TS_TOK_DEL },
	{ "global", TS_TOK_GLOBAL }, { "nonlocal", TS_TOK_NONLOCAL },
	{ "yield", TS_TOK_YIELD }, { "try", TS_TOK_TRY },
	{ "except", TS_TOK_EXCEPT }, { "finally", TS_TOK_FINALLY },
};

/* Punctuation: the longest match at src[0..n), or TS_TOK_ERROR; *len is
 * its length. */
static enum ts_tok punct(const char *s, size_t n, size_t *len)
{
	int c1 = n > 1 ? (unsigned char)s[1] : -1;
	int c2 = n > 2 ? (unsigned char)s[2] : -1;

	*len = 1;
#define TWO(c, k) if (c1 == (c)) { *len = 2; return k; }
#define THREE(a, b, k) if (c1 == (a) && c2 == (b)) { *len = 3; return k; }
	switch (s[0]) {
	case '(': return TS_TOK_LPAREN;
	case ')': return TS_TOK_RPAREN;
	case '[': return TS_TOK_LBRACKET;
	case ']': return TS_TOK_RBRACKET;
	case '{': return TS_TOK_LBRACE;
	case '}': return TS_TOK_RBRACE;
	case ',': return TS_TOK_COMMA;
	case ':': return TS_TOK_COLON;
	case ';': return TS_TOK_SEMI;
	case '~': return TS_TOK_TILDE;
	case '.': THREE('.', '.', TS_TOK_ELLIPSIS) return TS_TOK_DOT;
	case '@': TWO('=', TS_TOK_ATEQ) return TS_TOK_AT;
	case '=': TWO('=', TS_TOK_EQ) return TS_TOK_ASSIGN;
	case '+': TWO('=', TS_TOK_PLUSEQ) return TS_TOK_PLUS;
	case '-': TWO('=', TS_TOK_MINUSEQ) TWO('>', TS_TOK_ARROW)
		return TS_TOK_MINUS;
	case '*': THREE('*', '=', TS_TOK_DSTAREQ) TWO('*', TS_TOK_DSTAR)
		TWO('=', TS_TOK_STAREQ) return TS_TOK_STAR;
	case '/': THREE('/', '=', TS_TOK_DSLASHEQ) TWO('/', TS_TOK_DSLASH)
		TWO('=', TS_TOK_SLASHEQ) return TS_TOK_SLASH;
	case '%': TWO('=', TS_TOK_PERCENTEQ) return TS_TOK_PERCENT;
	case '&': TWO('=', TS_TOK_AMPEQ) return TS_TOK_AMP;
	case '|': TWO('=', TS_TOK_PIPEEQ) return TS_TOK_PIPE;
	case '^': TWO('=', TS_TOK_CARETEQ) return TS_TOK_CARET;
	case '<': THREE('<', '=', TS_TOK_LSHIFTEQ) TWO('<', TS_TOK_LSHIFT)
		TWO('=', TS_TOK_LE) return TS_TOK_LT;
	case '>': THREE('>', '=', TS_TOK_RSHIFTEQ) TWO('>', TS_TOK_RSHIFT)
		TWO('=', TS_TOK_GE) return TS_TOK_GT;
	case '!': TWO('=', TS_TOK_NE) return TS_TOK_ERROR;
	default: return TS_TOK_ERROR;
	}
#undef TWO
#undef THREE
}

void ts_lexer_init(struct ts_lexer *lx, const char *file, const char *src,
		   size_t len, struct arena *a, struct diag *d)
{
	memset(lx, 0, sizeof(*lx));
	lx->file = file ? file : "<source>";
	lx->src = src ? src : "";
	lx->len = src ? len : 0;
	lx->line = 1;
	lx->nindents = 1; /* indents[0] = 0 */
	lx->at_line_start = 1;
	lx->arena = a;
	lx->diag = d;
	/* a UTF-8 byte order mark is not part of the text */
	if (lx->len >= 3 && !memcmp(lx->src, "\xef\xbb\xbf", 3))
		lx->pos = lx->line_start = 3;
}

static void lx_error(struct ts_lexer *lx, int line, int col,
		     const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void lx_error(struct ts_lexer *lx, int line, int col,
		     const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!lx->failed)
		diag_error(lx->diag, "%s:%d:%d: %s", lx->file, line, col, msg);
	lx->failed = 1;
}

static int lx_col(const struct ts_lexer *lx, size_t pos)
{
	size_t c = pos - lx->line_start + 1;
	return c > (size_t)0x7fffffff ? 0x7fffffff : (int)c;
}

static int peekc(const struct ts_lexer *lx, size_t off)
{
	size_t p = lx->pos + off;
	return p < lx->len ? (unsigned char)lx->src[p] : -1;
}

static int is_ident_start(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int is_ident_char(int c)
{
	return is_ident_start(c) || (c >= '0' && c <= '9');
}

static int is_digit_in(int c, int base)
{
	switch (base) {
	case 2: return c == '0' || c == '1';
	case 8: return c >= '0' && c <= '7';
	case 16: return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
			(c >= 'A' && c <= 'F');
	default: return c >= '0' && c <= '9';
	}
}

static int digit_value(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return c - 'A' + 10;
}

/* Consumes one line break (\n, \r\n or \r) at pos and starts a new line. */
static void take_newline(struct ts_lexer *lx)
{
	if (peekc(lx, 0) == '\r' && peekc(lx, 1) == '\n')
		lx->pos += 2;
	else
		lx->pos += 1;
	lx->line++;
	lx->line_start = lx->pos;
}

static void lex_number(struct ts_lexer *lx, struct ts_token *t)
{
	size_t start = lx->pos;
	int base = 10, is_float = 0, c;
	uint64_t v = 0;
	char buf[128];

	if (peekc(lx, 0) == '0' && (peekc(lx, 1) == 'x' || peekc(lx, 1) == 'X'
				    || peekc(lx, 1) == 'o' || peekc(lx, 1) == 'O'
				    || peekc(lx, 1) == 'b' || peekc(lx, 1) == 'B')) {
		c = peekc(lx, 1) | 0x20;
		base = c == 'x' ? 16 : c == 'o' ? 8 : 2;
		lx->pos += 2;
		if (!is_digit_in(peekc(lx, 0), base)) {
			lx_error(lx, t->loc.line, t->loc.col,
				 "invalid number literal");
			return;
		}
	}
	while (is_digit_in(peekc(lx, 0), base)) {
		int dv = digit_value(peekc(lx, 0));
		if (v > (UINT64_MAX - (uint64_t)dv) / (uint64_t)base)
			t->ival_overflow = 1;
		v = v * (uint64_t)base + (uint64_t)dv;
		lx->pos++;
	}
	if (base == 10 && peekc(lx, 0) == '.' && peekc(lx, 1) != '.') {
		is_float = 1;
		lx->pos++;
		while (is_digit_in(peekc(lx, 0), 10))
			lx->pos++;
	}
	if (base == 10 && (peekc(lx, 0) == 'e' || peekc(lx, 0) == 'E')) {
		size_t k = 1;
		if (peekc(lx, 1) == '+' || peekc(lx, 1) == '-')
			k = 2;
		if (!is_digit_in(peekc(lx, k), 10)) {
			lx_error(lx, t->loc.line, t->loc.col,
				 "malformed exponent in number literal");
			return;
		}
		is_float = 1;
		lx->pos += k;
		while (is_digit_in(peekc(lx, 0), 10))
			lx->pos++;
	}
	t->kind = is_float ? TS_TOK_FLOAT : TS_TOK_INT;
	if (base == 10 && (peekc(lx, 0) == 'j' || peekc(lx, 0) == 'J')) {
		t->kind = TS_TOK_IMAG;
		lx->pos++;
	}
	if (is_ident_char(peekc(lx, 0)) || peekc(lx, 0) >= 0x80) {
		lx_error(lx, t->loc.line, t->loc.col, "invalid number literal");
		return;
	}
	t->text = lx->src + start;
	t->len = lx->pos - start;
	if (t->kind == TS_TOK_INT) {
		t->ival = v;
		return;
	}
	/* strtod needs a NUL-terminated copy, without the j */
	{
		size_t n = t->len - (t->kind == TS_TOK_IMAG);
		if (n >= sizeof(buf)) {
			lx_error(lx, t->loc.line, t->loc.col,
				 "number literal too long");
			return;
		}
		memcpy(buf, t->text, n);
		buf[n] = 0;
		t->fval = strtod(buf, NULL);
	}
}

/* Decodes the body of a string literal, raw[0..n), into the arena.  The
 * body was checked for its end already; escapes are checked here. */
static void decode_string(struct ts_lexer *lx, struct ts_token *t,
			  const char *raw, size_t n)
{
	char *out = arena_alloc(lx->arena, n + 1);
	size_t o = 0, i = 0;

	while (i < n) {
		char c = raw[i];
		if (c != '\\') {
			out[o++] = c;
			i++;
			continue;
		}
		c = i + 1 < n ? raw[i + 1] : 0;
		i += 2;
		switch (c) {
		case '\\': case '\'': case '"': out[o++] = c; break;
		case 'a': out[o++] = '\a'; break;
		case 'b': out[o++] = '\b'; break;
		case 'f': out[o++] = '\f'; break;
		case 'n': out[o++] = '\n'; break;
		case 'r': out[o++] = '\r'; break;
		case 't': out[o++] = '\t'; break;
		case 'v': out[o++] = '\v'; break;
		case '\n': break; /* backslash-newline: nothing */
		case '\r':
			if (i < n && raw[i] == '\n')
				i++;
			break;
		case 'x':
			if (i + 1 < n && is_digit_in((unsigned char)raw[i], 16) &&
			    is_digit_in((unsigned char)raw[i + 1], 16)) {
				out[o++] = (char)(digit_value((unsigned char)raw[i]) * 16 +
						  digit_value((unsigned char)raw[i + 1]));
				i += 2;
				break;
			}
			lx_error(lx, t->loc.line, t->loc.col,
				 "invalid \\x escape in string literal");
			return;
		default:
			if (c >= '0' && c <= '7') {
				int val = c - '0', k = 0;
				while (k < 2 && i < n && raw[i] >= '0' && raw[i] <= '7') {
					val = val * 8 + (raw[i] - '0');
					i++;
					k++;
				}
				if (val > 255) {
					lx_error(lx, t->loc.line, t->loc.col,
						 "octal escape out of range in "
						 "string literal");
					return;
				}
				out[o++] = (char)val;
				break;
			}
			if (c >= 0x20 && c < 0x7f)
				lx_error(lx, t->loc.line, t->loc.col,
					 "invalid escape '\\%c' in string literal",
					 c);
			else
				lx_error(lx, t->loc.line, t->loc.col,
					 "invalid escape in string literal");
			return;
		}
	}
	out[o] = 0;
	t->str = out;
	t->str_len = o;
}

static void lex_string(struct ts_lexer *lx, struct ts_token *t)
{
	char q = lx->src[lx->pos];
	int triple = peekc(lx, 1) == q && peekc(lx, 2) == q;
	size_t qlen = triple ? 3 : 1, start = lx->pos, body;

	lx->pos += qlen;
	body = lx->pos;
	for (;;) {
		int c = peekc(lx, 0);
		if (c < 0 || (!triple && (c == '\n' || c == '\r'))) {
			lx_error(lx, t->loc.line, t->loc.col,
				 "unterminated string literal");
			return;
		}
		if (c == '\\') {
			int n = peekc(lx, 1);
			if (n == '\n' || n == '\r') {
				lx->pos++;
				take_newline(lx);
			} else if (n < 0) {
				lx->pos++;
			} else {
				lx->pos += 2;
			}
			continue;
		}
		if (c == '\n' || c == '\r') {
			take_newline(lx);
			continue;
		}
		if (c == q && (!triple || (peekc(lx, 1) == q && peekc(lx, 2) == q)))
			break;
		lx->pos++;
	}
	t->kind = TS_TOK_STRING;
	decode_string(lx, t, lx->src + body, lx->pos - body);
	lx->pos += qlen;
	t->text = lx->src + start;
	t->len = lx->pos - start;
}

/* Measures the indentation of a new line.  Returns 1 with an INDENT or
 * DEDENT in t, 0 when the line is blank (skipped) or at the same level. */
static int lex_indent(struct ts_lexer *lx, struct ts_token *t)
{
	int col = 0, c;

	while ((c = peekc(lx, 0)) == ' ' || c == '\t' || c == '\f') {
		if (c == ' ')
			col++;
		else if (c == '\t')
			col = (col / 8 + 1) * 8;
		else
			col = 0;
		if (col > 100000)
			col = 100000;
		lx->pos++;
	}
	if (c < 0 || c == '#' || c == '\n' || c == '\r')
		return 0; /* blank line: the main loop skips it */
	lx->at_line_start = 0;
	t->loc.line = lx->line;
	t->loc.col = lx_col(lx, lx->pos);
	if (col > lx->indents[lx->nindents - 1]) {
		if (lx->nindents > TS_MAX_INDENT) {
			lx_error(lx, t->loc.line, t->loc.col,
				 "too many levels of indentation");
			t->kind = TS_TOK_ERROR;
			return 1;
		}
		lx->indents[lx->nindents++] = col;
		t->kind = TS_TOK_INDENT;
		return 1;
	}
	if (col < lx->indents[lx->nindents - 1]) {
		int pops = 0;
		while (lx->nindents > 1 && col < lx->indents[lx->nindents - 1]) {
			lx->nindents--;
			pops++;
		}
		if (col != lx->indents[lx->nindents - 1]) {
			lx_error(lx, t->loc.line, t->loc.col, "unindent does not "
				 "match any outer indentation level");
			t->kind = TS_TOK_ERROR;
			return 1;
		}
		lx->pending_dedents = pops - 1;
		t->kind = TS_TOK_DEDENT;
		return 1;
	}
	return 0;
}

void ts_lexer_next(struct ts_lexer *lx, struct ts_token *t)
{
	memset(t, 0, sizeof(*t));
	for (;;) {
		int c;

		t->loc.line = lx->line;
		t->loc.col = lx_col(lx, lx->pos);
		if (lx->failed) {
			t->kind = TS_TOK_ERROR;
			return;
		}
		if (lx->pending_dedents > 0) {
			lx->pending_dedents--;
			t->kind = TS_TOK_DEDENT;
			return;
		}
		if (lx->at_line_start && lx->depth == 0) {
			if (lex_indent(lx, t))
				return;
			t->loc.col = lx_col(lx, lx->pos);
		}
		while ((c = peekc(lx, 0)) == ' ' || c == '\t' || c == '\f')
			lx->pos++;
		t->loc.col = lx_col(lx, lx->pos);
		if (c < 0) {
			if (lx->line_has_tokens) {
				lx->line_has_tokens = 0;
				t->kind = TS_TOK_NEWLINE;
				return;
			}
			if (lx->nindents > 1) {
				lx->nindents--;
				t->kind = TS_TOK_DEDENT;
				return;
			}
			t->kind = TS_TOK_EOF;
			return;
		}
		if (c == '#') {
			while ((c = peekc(lx, 0)) >= 0 && c != '\n' && c != '\r')
				lx->pos++;
			continue;
		}
		if (c == '\n' || c == '\r') {
			take_newline(lx);
			if (lx->depth == 0) {
				lx->at_line_start = 1;
				if (lx->line_has_tokens) {
					lx->line_has_tokens = 0;
					t->kind = TS_TOK_NEWLINE;
					return;
				}
			}
			continue;
		}
		if (c == '\\') {
			int n = peekc(lx, 1);
			if (n == '\n' || n == '\r') {
				lx->pos++;
				take_newline(lx);
				continue;
			}
			lx_error(lx, t->loc.line, t->loc.col, "unexpected "
				 "character after line continuation");
			continue;
		}
		break;
	}

	/* a token proper */
	lx->line_has_tokens = 1;
	{
		int c = peekc(lx, 0);
		size_t start = lx->pos;

		if (is_ident_start(c)) {
			while (is_ident_char(peekc(lx, 0)))
				lx->pos++;
			t->kind = TS_TOK_NAME;
			t->text = lx->src + start;
			t->len = lx->pos - start;
			if (t->len >= 2 && t->len <= 8 && t->text[0] != '_')
				for (size_t i = 0; i < sizeof(keywords) / sizeof(keywords[0]); i++)
					if (keywords[i].word[0] == t->text[0] &&
					    !strncmp(keywords[i].word, t->text, t->len) &&
					    !keywords[i].word[t->len]) {
						t->kind = keywords[i].kind;
						return;
					}
			/* python_print reserves inf and nan for the floats */
			if (t->len == 3 && !memcmp(t->text, "inf", 3)) {
				t->kind = TS_TOK_FLOAT;
				t->fval = (double)INFINITY;
			} else if (t->len == 3 && !memcmp(t->text, "nan", 3)) {
				t->kind = TS_TOK_FLOAT;
				t->fval = (double)NAN;
			} else if (t->len == 4 && !memcmp(t->text, "infj", 4)) {
				t->kind = TS_TOK_IMAG;
				t->fval = (double)INFINITY;
			} else if (t->len == 4 && !memcmp(t->text, "nanj", 4)) {
				t->kind = TS_TOK_IMAG;
				t->fval = (double)NAN;
			}
			return;
		}
		if ((c >= '0' && c <= '9') ||
		    (c == '.' && peekc(lx, 1) >= '0' && peekc(lx, 1) <= '9')) {
			lex_number(lx, t);
			if (lx->failed)
				t->kind = TS_TOK_ERROR;
			return;
		}
		if (c == '"' || c == '\'') {
			lex_string(lx, t);
			if (lx->failed)
				t->kind = TS_TOK_ERROR;
			return;
		}
		{
			size_t n;
			enum ts_tok k = punct(lx->src + lx->pos, lx->len - lx->pos, &n);
			if (k != TS_TOK_ERROR) {
				t->kind = k;
				t->text = lx->src + start;
				t->len = n;
				lx->pos += n;
				if (k == TS_TOK_LPAREN || k == TS_TOK_LBRACKET ||
				    k == TS_TOK_LBRACE)
					lx->depth++;
				else if ((k == TS_TOK_RPAREN || k == TS_TOK_RBRACKET ||
					  k == TS_TOK_RBRACE) && lx->depth > 0)
					lx->depth--;
				return;
			}
		}
		if (c >= 0x21 && c < 0x7f)
			lx_error(lx, t->loc.line, t->loc.col,
				 "unexpected character '%c'", c);
		else
			lx_error(lx, t->loc.line, t->loc.col,
				 "unexpected byte 0x%02x", (unsigned)c);
		t->kind = TS_TOK_ERROR;
	}
}

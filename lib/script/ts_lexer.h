/*
 * ts_lexer.h - tokens of TorchScript source, Python style: INDENT and DEDENT
 * from leading whitespace, NEWLINE at the end of each logical line, line
 * joining inside brackets and after a backslash, `#` comments, string
 * literals with Python's escapes (decoded), int and float literals (`1`,
 * `0x1f`, `1.`, `.5`, `1e-05`, `2j`) and the names `inf` and `nan` as floats.
 *
 * Pull model: ts_lexer_next() returns one token at a time, so memory is
 * constant whatever the file size; only decoded string literals go to the
 * arena.  On malformed input it reports one error to the diag
 * ("file:line:col: unterminated string literal") and returns TS_TOK_ERROR,
 * and keeps returning it.  The source need not be NUL-terminated.
 *
 * Ownership: the lexer borrows the source, the arena and the diag; token
 * `text` points into the source, `str` into the arena.
 */
#ifndef PT2ONNX_TS_LEXER_H
#define PT2ONNX_TS_LEXER_H

#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "diag.h"
#include "ts_ast.h"

#define TS_MAX_INDENT 100      /* nesting of indented blocks, as Python */
#define TS_MAX_SOURCE (1u << 30) /* larger sources are refused */

#define TS_TOKENS(X) \
	X(EOF, "end of file") X(ERROR, "error") X(NEWLINE, "end of line") \
	X(INDENT, "indent") X(DEDENT, "dedent") X(NAME, "name") \
	X(INT, "integer") X(FLOAT, "float") X(IMAG, "imaginary number") \
	X(STRING, "string") \
	X(DEF, "def") X(CLASS, "class") X(IF, "if") X(ELIF, "elif") \
	X(ELSE, "else") X(FOR, "for") X(WHILE, "while") X(IN, "in") \
	X(IS, "is") X(NOT, "not") X(AND, "and") X(OR, "or") \
	X(RETURN, "return") X(PASS, "pass") X(RAISE, "raise") \
	X(ASSERT, "assert") X(BREAK, "break") X(CONTINUE, "continue") \
	X(WITH, "with") X(AS, "as") X(IMPORT, "import") X(FROM, "from") \
	X(TRUE, "True") X(FALSE, "False") X(NONE, "None") \
	X(LAMBDA, "lambda") X(DEL, "del") X(GLOBAL, "global") \
	X(NONLOCAL, "nonlocal") X(YIELD, "yield") X(TRY, "try") \
	X(EXCEPT, "except") X(FINALLY, "finally") \
	X(LPAREN, "(") X(RPAREN, ")") X(LBRACKET, "[") X(RBRACKET, "]") \
	X(LBRACE, "{") X(RBRACE, "}") X(COMMA, ",") X(COLON, ":") \
	X(SEMI, ";") X(DOT, ".") X(ELLIPSIS, "...") X(ARROW, "->") \
	X(AT, "@") X(ASSIGN, "=") \
	X(PLUS, "+") X(MINUS, "-") X(STAR, "*") X(SLASH, "/") \
	X(DSLASH, "//") X(PERCENT, "%") X(DSTAR, "**") X(LSHIFT, "<<") \
	X(RSHIFT, ">>") X(AMP, "&") X(PIPE, "|") X(CARET, "^") \
	X(TILDE, "~") X(EQ, "==") X(NE, "!=") X(LT, "<") X(LE, "<=") \
	X(GT, ">") X(GE, ">=") \
	X(PLUSEQ, "+=") X(MINUSEQ, "-=") X(STAREQ, "*=") X(SLASHEQ, "/=") \
	X(DSLASHEQ, "//=") X(PERCENTEQ, "%=") X(DSTAREQ, "**=") \
	X(ATEQ, "@=") X(AMPEQ, "&=") X(PIPEEQ, "|=") X(CARETEQ, "^=") \
	X(LSHIFTEQ, "<<=") X(RSHIFTEQ, ">>=")

enum ts_tok {
#define TS_TOK_ENUM(name, text) TS_TOK_##name,
	TS_TOKENS(TS_TOK_ENUM)
#undef TS_TOK_ENUM
	TS_TOK_COUNT
};

struct ts_token {
	enum ts_tok kind;
	struct ts_loc loc;
	const char *text; /* the token in the source (NULL for the synthetic
			     NEWLINE, INDENT, DEDENT and EOF) */
	size_t len;
	const char *str;  /* STRING: decoded bytes in the arena, NUL-ended */
	size_t str_len;
	uint64_t ival;    /* INT: the value (magnitude) */
	int ival_overflow; /* INT: did not fit in 64 bits */
	double fval;      /* FLOAT, IMAG */
};

struct ts_lexer {
	const char *file;  /* for messages */
	const char *src;
	size_t len;
	size_t pos;        /* next byte to read */
	size_t line_start; /* offset of the current line's first byte */
	int line;
	int indents[TS_MAX_INDENT + 1]; /* indentation stack, [0] = 0 */
	int nindents;
	int pending_dedents;
	int depth;         /* open brackets */
	int at_line_start; /* indentation still to be measured */
	int line_has_tokens; /* a NEWLINE is due at the end of the line */
	int failed;
	struct arena *arena;
	struct diag *diag;
};

/* Prepares lx to read src[0..len).  file names the source in messages. */
void ts_lexer_init(struct ts_lexer *lx, const char *file, const char *src,
		   size_t len, struct arena *a, struct diag *d);
/* The next token; TS_TOK_EOF at the end (again and again), TS_TOK_ERROR
 * after reporting a malformed input (again and again). */
void ts_lexer_next(struct ts_lexer *lx, struct ts_token *t);
/* What a token kind looks like in messages: "')'", "end of line". */
const char *ts_tok_name(enum ts_tok kind);

#endif

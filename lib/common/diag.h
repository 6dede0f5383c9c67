/*
 * diag.h - diagnostics: how the library reports errors, and the exit codes
 * every tool shares.
 *
 * The library never exits and never prints on its own: it reports to a
 * struct diag and returns an error value.  Errors accumulate, so a stage can
 * report every problem it finds (every unconvertible op, every checker rule
 * broken), not just the first.  Each message is one line:
 *
 *     tool: file: message
 *
 * with the file left out when the diag has none.  Only tools exit.
 */
#ifndef PT2ONNX_DIAG_H
#define PT2ONNX_DIAG_H

#include <stdio.h>

/* Exit codes, the same for every tool (documented in README.md). */
enum exit_code {
	EXIT_OK = 0,          /* success; check: the model is valid */
	EXIT_INVALID = 1,     /* check: the model breaks ONNX rules */
	EXIT_USAGE = 2,       /* bad command line */
	EXIT_BAD_INPUT = 3,   /* malformed or truncated input file or stream */
	EXIT_UNSUPPORTED = 4, /* well-formed input we cannot convert */
	EXIT_IO = 5,          /* an I/O or system error (disk full, EPIPE) */
	EXIT_INTERNAL = 70,   /* a bug: BUG() was hit */
};

struct diag {
	const char *tool;   /* "emit" */
	const char *file;   /* the input being read, may be NULL */
	FILE *out;          /* where messages go; NULL means stderr */
	int nerrors;
	int nwarnings;
	int max_errors;     /* stop printing after this many (0: no limit) */
	int quiet;          /* count but do not print */
};

void diag_init(struct diag *d, const char *tool);

/* Report an error/warning; printf-style, no trailing newline.  Returns -1
 * so that `return diag_error(...)` reads well. */
int diag_error(struct diag *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void diag_warning(struct diag *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* As diag_error, naming a position in the input: "file:line: message". */
int diag_error_at(struct diag *d, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Tools only: print "tool: message" to stderr and exit with code. */
void die(struct diag *d, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), noreturn));

/* An internal invariant was broken: a bug, not bad input. */
#define BUG(...) bug_at(__FILE__, __LINE__, __VA_ARGS__)
void bug_at(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), noreturn));

#endif

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
 * with the file left out when the diag has none.  Only tools exit.  Out
 * of memory follows the rule below (diag_out_of_memory).
 *
 * What a function returns, by layer (one convention each; the message is
 * always in the diag, never only in the return value):
 *  - a library function: 0, or -1 after reporting (`return diag_error()`);
 *    a pointer-returning one, NULL after reporting.
 *  - a stage's entry point (lower_graph, fold_graph, onnx_write_model,
 *    the trace and script runs, the .pt2 and tool_io readers): an enum
 *    exit_code (a reader returning a pointer sets *code), because the
 *    class of failure (bad input, unsupported, I/O) is the tool's exit
 *    status and only the stage knows it.
 *  - a lowering rule (lib/lower's symbolic rows): 0 done, 1 declined with
 *    a reason (lw_decline: the next row for the op is tried), -1 failed.
 *  - the compute backend (lib/gpu): -1 with the reason in gpu_last_error(),
 *    a thread-local string, since kernels have no diag; the caller (trace)
 *    copies it into its diag (trace_gpu_error) at once.
 */
#ifndef PT2ONNX_DIAG_H
#define PT2ONNX_DIAG_H

#include <stddef.h>
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

/*
 * Out of memory: the one rule.
 *
 *  - An allocation whose size the input chooses (tensor data, buffers,
 *    tables sized from numbers read in a file or a spec) uses malloc; on
 *    failure the function reports "out of memory" through its struct diag
 *    and returns an error, which the tool turns into EXIT_IO.
 *  - Bookkeeping bounded by the input's own size (the arena, IR nodes and
 *    values, names, lists grown an item at a time) uses arena.h's x*alloc,
 *    which on failure call diag_out_of_memory(): the handler the tool
 *    installed with diag_set_oom() (every tool installs tool_opts.h's, which
 *    prints "TOOL: out of memory allocating N bytes" and exits EXIT_IO).
 *    With none installed (unit tests, a library user) it aborts without a
 *    word.  So the library itself never prints or exits.
 */
typedef void (*diag_oom_fn)(size_t size);
void diag_set_oom(diag_oom_fn fn);
void diag_out_of_memory(size_t size) __attribute__((noreturn));

/* Tools only: print "tool: message" to stderr and exit with code. */
void die(struct diag *d, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), noreturn));

/* An internal invariant was broken: a bug, not bad input. */
#define BUG(...) bug_at(__FILE__, __LINE__, __VA_ARGS__)
void bug_at(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), noreturn));

#endif

/*
 * tool_io.h - what every IR stage does at its two ends: read the IR named
 * on the command line (or standard input), and write the IR to -o FILE (or
 * standard output) whole or not at all, binary unless -S.  One place, so
 * that the stages cannot drift apart in how they treat "-", terminals,
 * write failures and exit codes.
 */
#ifndef PT2ONNX_TOOL_IO_H
#define PT2ONNX_TOOL_IO_H

#include "diag.h"
#include "ir.h"
#include "tool_opts.h"

/* Reads one graph from path ("-" or NULL: standard input), binary or text.
 * Sets d->file to the input's name for the messages that follow.  Returns
 * the graph, or NULL with *code set to EXIT_IO (cannot open) or
 * EXIT_BAD_INPUT (malformed), after reporting. */
struct ir_graph *tool_read_ir(const char *path, struct diag *d, int *code);

/* Writes g to path ("-" or NULL: standard output) as text when `text` is
 * set, else as binary, which is refused on a terminal unless `force`.  The
 * file appears whole or not at all (outfile.h; PT2ONNX_FAIL_WRITE injects a
 * failure).  Returns EXIT_OK, EXIT_USAGE (terminal) or EXIT_IO. */
int tool_write_ir(const struct ir_graph *g, const char *path, int text,
		  int force, struct diag *d);

/* buf[0..len) to path ("-": standard output), whole or not at all
 * (outfile.h).  0, or -1 after reporting. */
int tool_write_buf(const char *path, const void *buf, size_t len,
		   struct diag *d);

/* A front door's last step (script, trace, unpt2): code where g is NULL
 * (not made, reported), else g written to out as tool_write_ir does, then
 * freed, and that exit code. */
int tool_finish_ir(struct ir_graph *g, int code, const struct tool_out *out,
		   struct diag *d);

#endif

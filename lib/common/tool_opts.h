/*
 * tool_opts.h - the option scaffolding every tool's main shares: one
 * --version line, one answer to a wrong option, one --help.  Tools only
 * (these print); the library reports through struct diag.
 */
#ifndef PT2ONNX_TOOL_OPTS_H
#define PT2ONNX_TOOL_OPTS_H

#include <stdio.h>

/* Every tool's main calls it first: names the tool for the out-of-memory
 * handler it installs (diag.h's rule: "TOOL: out of memory allocating N
 * bytes" on standard error, exit EXIT_IO). */
void tool_init(const char *tool);

/* --version: prints "TOOL (pt2onnx) VERSION" and, when extra is not NULL,
 * extra on the next line(s); returns EXIT_OK. */
int tool_version(const char *tool, const char *extra);

/* --help: prints usage to standard output; returns EXIT_OK. */
int tool_help(const char *usage);

/* A wrong option or argument (getopt has said which): prints "Try 'TOOL
 * --help'." to standard error; returns EXIT_USAGE. */
int tool_bad_option(const char *tool);

#endif

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

/* Where an IR tool writes: -o FILE (default "-"), -S (text), -f (binary
 * to a terminal). */
struct tool_out {
	const char *output;
	int text, force;
};
#define TOOL_OUT_INIT { "-", 0, 0 }

/* Rows of a tool's getopt_long table for the options tool_option answers:
 * -o/--output and -f/--force of a tool that writes (a tool with --text
 * adds its own row), and -h/--help, -V/--version with the table's end. */
#define TOOL_LONG_OPTIONS_OUT \
	{ "output", required_argument, NULL, 'o' }, \
	{ "force", no_argument, NULL, 'f' }
#define TOOL_LONG_OPTIONS_END \
	{ "help", no_argument, NULL, 'h' }, \
	{ "version", no_argument, NULL, 'V' }, \
	{ NULL, 0, NULL, 0 }

#define TOOL_OPT_CONTINUE (-1)
/* The options every tool shares, for getopt's answer c (arg: optarg):
 * -h/--help, -V/--version, and with out -o, -S and -f.  TOOL_OPT_CONTINUE
 * when c was one that parsing goes on after; else the exit code the tool
 * returns: EXIT_OK after --help or --version, EXIT_USAGE after "Try
 * 'TOOL --help'." for an option that is none of them (getopt has said
 * why).  Each tool's switch ends with `default: tool_option(...)`. */
int tool_option(const char *tool, const char *usage, int c, const char *arg,
		struct tool_out *out);

/* --version: prints "TOOL (pt2onnx) VERSION" and, when extra is not NULL,
 * extra on the next line(s); returns EXIT_OK. */
int tool_version(const char *tool, const char *extra);

/* --help: prints usage to standard output; returns EXIT_OK. */
int tool_help(const char *usage);

/* A wrong option or argument (getopt has said which): prints "Try 'TOOL
 * --help'." to standard error; returns EXIT_USAGE. */
int tool_bad_option(const char *tool);

#endif

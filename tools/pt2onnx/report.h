/*
 * report.h - what pt2onnx measures of an export and how it shows it:
 * --profile's table on standard error, --report's markdown file, the
 * progress line and the summary line (report.c).
 */
#ifndef PT2ONNX_REPORT_H
#define PT2ONNX_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "ir.h"

struct stage_stat {
	const char *name;  /* "script", "lower", ..., "verify" */
	double wall_s;     /* from its start to its exit */
	double cpu_s;      /* user + system */
	long maxrss_kb;    /* peak resident set */
	int status;        /* exit status (128 + signal); -1: did not run */
};

struct op_count {
	const char *kind;  /* "aten::conv2d" */
	uint64_t n;
};

/* The node kinds of g, every block, most used first (then by name);
 * malloc'd, *n of them. */
struct op_count *report_count_ops(const struct ir_graph *g, int *n);

/* Bytes of g's weights (their dtype's size times their elements). */
uint64_t report_weight_bytes(const struct ir_graph *g);

struct report {
	const char *model, *output, *front, *opset;
	const struct stage_stat *stats;
	int nstats;
	const struct op_count *ops; /* NULL: the front stage wrote none */
	int nops;
	int failed;                 /* index in stats of the stage that
				       failed, or -1 */
	const char *fail_messages;  /* its standard error, or NULL */
	const char *verify;         /* --verify's lines, or NULL */
	int rc;                     /* pt2onnx's exit status */
	double total_s;
	long peak_kb;               /* the largest process's peak */
};

/* --report FILE: markdown. */
void report_write(FILE *fp, const struct report *r);

/* --profile: one line per stage, then the total. */
void profile_write(FILE *fp, const struct stage_stat *s, int n,
		   double total_s);

#endif

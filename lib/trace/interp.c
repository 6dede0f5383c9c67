/*
 * interp.c - the `trace` interpreter (see trace.h).  Placeholder.
 */
#include <stdarg.h>
#include <stdio.h>

#include "trace_int.h"

const struct trace_op trace_ops_prim[] = {
	{ NULL, NULL },
};

const struct trace_op trace_ops_scalar[] = {
	{ NULL, NULL },
};

int trace_error(struct trace_ctx *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	return -1;
}

/*
 * diag.c - one-line error messages that accumulate (see diag.h).
 */
#include "diag.h"

#include <stdarg.h>
#include <stdlib.h>

static diag_oom_fn oom_handler;

void diag_set_oom(diag_oom_fn fn)
{
	oom_handler = fn;
}

void diag_out_of_memory(size_t size)
{
	if (oom_handler)
		oom_handler(size);
	abort(); /* no handler, or one that returned */
}

void diag_init(struct diag *d, const char *tool)
{
	d->tool = tool;
	d->file = NULL;
	d->out = NULL;
	d->nerrors = 0;
	d->nwarnings = 0;
	d->max_errors = 0;
	d->quiet = 0;
}

static void vreport(struct diag *d, const char *what, int line,
		    const char *fmt, va_list ap)
{
	FILE *out = d->out ? d->out : stderr;
	int count = d->nerrors + d->nwarnings;

	if (d->quiet || (d->max_errors && count > d->max_errors))
		return;
	if (d->max_errors && count == d->max_errors) {
		fprintf(out, "%s: too many errors, stopping here\n",
			d->tool ? d->tool : "pt2onnx");
		return;
	}
	fprintf(out, "%s: ", d->tool ? d->tool : "pt2onnx");
	if (d->file && line > 0)
		fprintf(out, "%s:%d: ", d->file, line);
	else if (d->file)
		fprintf(out, "%s: ", d->file);
	if (what)
		fprintf(out, "%s: ", what);
	vfprintf(out, fmt, ap);
	fputc('\n', out);
}

int diag_error(struct diag *d, const char *fmt, ...)
{
	va_list ap;
	d->nerrors++;
	va_start(ap, fmt);
	vreport(d, NULL, 0, fmt, ap);
	va_end(ap);
	return -1;
}

int diag_error_at(struct diag *d, int line, const char *fmt, ...)
{
	va_list ap;
	d->nerrors++;
	va_start(ap, fmt);
	vreport(d, NULL, line, fmt, ap);
	va_end(ap);
	return -1;
}

void diag_warning(struct diag *d, const char *fmt, ...)
{
	va_list ap;
	d->nwarnings++;
	va_start(ap, fmt);
	vreport(d, "warning", 0, fmt, ap);
	va_end(ap);
}

void die(struct diag *d, int code, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s: ", d && d->tool ? d->tool : "pt2onnx");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(code);
}

void bug_at(const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "pt2onnx: BUG at %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(EXIT_INTERNAL);
}

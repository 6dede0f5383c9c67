/*
 * unit.c - main() of every C unit test (see unit.h).
 */
#include "unit.h"

#include <stdarg.h>
#include <stdlib.h>

int unit_failures;
static const char *skip_reason;

void unit_skip(const char *why)
{
	skip_reason = why ? why : "skipped";
}

void unit_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "  FAIL %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	unit_failures++;
}

static int selected(int argc, char **argv, const char *name)
{
	if (argc < 2)
		return 1;
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], name))
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	int passed = 0, failed = 0, skipped = 0;
	for (const struct unit_test *t = unit_tests; t->name; t++) {
		if (!selected(argc, argv, t->name))
			continue;
		unit_failures = 0;
		skip_reason = NULL;
		t->fn();
		if (unit_failures) {
			printf("not ok %s\n", t->name);
			failed++;
		} else if (skip_reason) {
			printf("skip %s: %s\n", t->name, skip_reason);
			skipped++;
		} else {
			printf("ok %s\n", t->name);
			passed++;
		}
	}
	if (skipped)
		printf("%d passed, %d failed, %d skipped\n", passed, failed,
		       skipped);
	else
		printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}

/*
 * unit.h - the smallest test harness that does the job: TEST() functions
 * registered in a table, CHECK() that records a failure with file and line
 * and goes on, and a closing line "N passed, N failed" that CI reads.
 *
 *     static void test_foo(void) { CHECK(1 + 1 == 2); }
 *     const struct unit_test unit_tests[] = { UNIT(test_foo), { 0 } };
 *
 * unit.c has main(): it runs every test (or those named on the command
 * line) and exits non-zero if any CHECK failed.  A test that calls
 * unit_skip() is reported as skipped, not passed.
 */
#ifndef PT2ONNX_UNIT_H
#define PT2ONNX_UNIT_H

#include <stdio.h>
#include <string.h>

struct unit_test {
	const char *name;
	void (*fn)(void);
};

#define UNIT(fn) { #fn, fn }

extern const struct unit_test unit_tests[]; /* ends with { 0 } */
extern int unit_failures;                   /* CHECKs failed in this test */

void unit_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Marks the running test skipped (counted apart, never as passed); the
 * test should return right after. */
void unit_skip(const char *why);

#define CHECK(cond) \
	do { if (!(cond)) unit_fail(__FILE__, __LINE__, "%s", #cond); } while (0)
#define CHECK_INT(a, b) \
	do { long long a_ = (long long)(a), b_ = (long long)(b); \
	     if (a_ != b_) unit_fail(__FILE__, __LINE__, "%s == %s: %lld != %lld", \
				     #a, #b, a_, b_); } while (0)
#define CHECK_STR(a, b) \
	do { const char *a_ = (a), *b_ = (b); \
	     if (!a_ || !b_ || strcmp(a_, b_)) \
		     unit_fail(__FILE__, __LINE__, "%s == %s: \"%s\" != \"%s\"", \
			       #a, #b, a_ ? a_ : "(null)", b_ ? b_ : "(null)"); \
	} while (0)

#endif

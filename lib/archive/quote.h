/*
 * quote.h - names from untrusted files made safe to print in a one-line
 * message.
 *
 * Entry names and pickle strings come from the input: they may hold
 * newlines, escapes or megabytes.  quote_bytes() copies at most a bounded
 * prefix, writing non-printable bytes as \xNN, so a diagnostic stays one
 * short line whatever the file holds.  No allocation; cost O(cap).
 */
#ifndef PT2ONNX_QUOTE_H
#define PT2ONNX_QUOTE_H

#include <stddef.h>

/* Room for a quoted name of the default length: pass buffers this big. */
#define QUOTE_MAX 240

/* Writes a printable, NUL-terminated copy of s[0..len) into dst (cap bytes,
 * cap >= 8), ending in "..." when cut short.  Returns dst, so that it can be
 * used as a printf argument.  s may be NULL when len is 0. */
const char *quote_bytes(char *dst, size_t cap, const void *s, size_t len);

#endif

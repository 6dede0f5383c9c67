/*
 * ts_parser.h - a recursive-descent parser for the TorchScript source that
 * torch's python_print.cpp writes (torch 1.x and 2.x archives), into the
 * tree of ts_ast.h.
 *
 * The language is Python's statement and expression syntax minus what
 * python_print never writes (lambdas, comprehensions, try, star-args,
 * chained assignment), with TorchScript's forms on top: typed `def`s, class
 * bodies of attribute declarations, `annotate`/`unchecked_cast`/
 * `uninitialized`/`isinstance` with type arguments.  Operator precedence and
 * associativity are Python's; comparisons do not chain (torch's parser reads
 * `a < b < c` as `(a < b) < c`).
 *
 * Errors: the first syntax error is reported to the diag as one line
 * "file:line:col: message" and parsing stops (NULL is returned).  No input
 * crashes the parser: nesting is limited (TS_MAX_DEPTH), numbers are
 * range-checked, every token is checked before it is used.
 *
 * Ownership: the tree lives in the arena passed in; the source is only read
 * during the call.  Costs: linear in the source (about 20 MB/s); about 10x
 * the source size in arena memory.
 */
#ifndef PT2ONNX_TS_PARSER_H
#define PT2ONNX_TS_PARSER_H

#include <stddef.h>

#include "arena.h"
#include "diag.h"
#include "ts_ast.h"

#define TS_MAX_DEPTH 200 /* nested expressions, types and blocks */

/* Parses one source file src[0..len) (need not be NUL-terminated) named
 * file in messages.  Returns the module, or NULL after reporting an error. */
struct ts_module *ts_parse(struct arena *a, struct diag *d, const char *file,
			   const char *src, size_t len);

/* Parses src as a single expression (a testlist: `a, b` is a tuple), for
 * tests and tools.  NULL after reporting an error. */
struct ts_expr *ts_parse_expr(struct arena *a, struct diag *d,
			      const char *file, const char *src, size_t len);

/* Parses src as a single type expression ("Dict[str, List[Tensor]]"). */
struct ts_type *ts_parse_type(struct arena *a, struct diag *d,
			      const char *file, const char *src, size_t len);

#endif

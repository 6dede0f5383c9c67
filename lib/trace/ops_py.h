/*
 * ops_py.h - what the ops on Python values share (prim, list and dict ops,
 * Python arithmetic): the signature macro of an op function and the value
 * helpers more than one of their files uses.
 */
#ifndef PT2ONNX_OPS_PY_H
#define PT2ONNX_OPS_PY_H

#include <stddef.h>

#include "trace_int.h"

#define OPFN(name) \
	static int name(struct trace_ctx *c, const struct ir_node *n, \
			struct tval **in, int nin, struct tval **out, int nout)

/* A number (int, float or bool) as a double. */
double py_num(const struct tval *v);
/* Python's `a is b` (1 or 0). */
int py_same_value(const struct tval *a, const struct tval *b);
/* Python's `a == b` (1 or 0). */
int py_equal_values(const struct tval *a, const struct tval *b);
/* str(v) into buf as snprintf: the length it needs. */
int py_fmt_value(const struct tval *v, char *buf, size_t len);
/* A list op (len, list, copy, `in`, item set, pop, del) reached with a
 * dict as in[0]: runs it and returns 1 with *rc the op's status; 0 when
 * in[0] is not a dict. */
int py_dict_op(struct trace_ctx *c, enum aten_op kind, struct tval **in,
	       int nin, struct tval **out, int nout, int *rc);
/* In an OPFN: hands a dict in in[0] to py_dict_op and returns its status. */
#define DICT_OP() do { \
		int rc_; \
		if (py_dict_op(c, n->op, in, nin, out, nout, &rc_)) \
			return rc_; \
	} while (0)

#endif

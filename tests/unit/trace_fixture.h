/*
 * trace_fixture.h - what the unit tests of trace's op tables share: run
 * one op of a table on tvals, as the interpreter would, with no graph.
 *
 * The including file defines `ctx` (a struct trace_ctx set up on the CPU
 * backend) before including it.  An op is looked up as the interpreter
 * does for a tensor input: in the tensor group of tables (ops_*.c).
 */
#ifndef PT2ONNX_TRACE_FIXTURE_H
#define PT2ONNX_TRACE_FIXTURE_H

#include <string.h>

#include "trace_int.h"

static inline trace_op_fn lookup(const char *kind)
{
	const struct trace_op *o = trace_group_op(aten_op_id(kind),
						  TRACE_TENSOR);

	return o ? o->fn : NULL;
}

/* runs kind on in[0..nin) (the references are taken over); outputs in
 * out[0..nout); returns the op's status, -2 when the table lacks kind */
static inline int run(const char *kind, struct tval **in, int nin,
		      struct tval **out, int nout)
{
	struct ir_node n;
	trace_op_fn fn = lookup(kind);
	int rc, i;

	memset(&n, 0, sizeof(n));
	n.kind = kind;
	n.op = aten_op_id(kind);
	ctx.node = &n;
	for (i = 0; i < nout; i++)
		out[i] = NULL;
	rc = fn ? fn(&ctx, &n, in, nin, out, nout) : -2;
	for (i = 0; i < nin; i++)
		tv_unref(in[i]);
	ctx.node = NULL;
	return rc;
}

static inline struct tval *run1(const char *kind, struct tval **in, int nin)
{
	struct tval *o = NULL;

	if (run(kind, in, nin, &o, 1)) {
		tv_unref(o);
		return NULL;
	}
	return o;
}

#endif

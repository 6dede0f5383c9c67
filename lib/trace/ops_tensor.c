/*
 * ops_tensor.c - aten op implementations for `trace` (see trace_int.h).
 */
#include "trace_int.h"

const struct trace_op trace_ops_tensor[] = {
	{ NULL, NULL },
};

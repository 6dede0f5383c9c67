/*
 * symbolic_extra_math.c - symbolic functions for aten ops that the opset
 * tables (symbolic_opset9.c ... 17) do not have.  One function per op for
 * every opset, branching on c->opset; see lower_int.h.
 */
#include "symbolic_common.h"

static const struct symbolic entries[] = {
	{ NULL, NULL },
};

const struct symbolic_table symbolic_extra_math_table = {
	9, entries, 0,
};

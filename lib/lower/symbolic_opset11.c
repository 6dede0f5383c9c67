/*
 * symbolic_opset11.c - opset 11 entries (torch's symbolic_opset11.py):
 * ops that need GatherElements, CumSum.
 */
#include "symbolic_common.h"

static const struct symbolic opset11[] = {
	{ OP_aten_gather, 11, 0, SYM_PRIO_BASE, sym_gather11 },
	{ OP_aten_cumsum, 11, 0, SYM_PRIO_BASE, sym_cumsum11 },
};

const struct symbolic_table symbolic_opset11_table = {
	opset11, sizeof(opset11) / sizeof(opset11[0]),
};

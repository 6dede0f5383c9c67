/*
 * symbolic_opset11.c - opset 11 entries (torch's symbolic_opset11.py):
 * ops that need GatherElements, CumSum.
 */
#include "symbolic_common.h"

static const struct symbolic opset11[] = {
	{ "aten::gather", sym_gather11 },
	{ "aten::cumsum", sym_cumsum11 },
};

const struct symbolic_table symbolic_opset11_table = {
	11, opset11, sizeof(opset11) / sizeof(opset11[0]),
};

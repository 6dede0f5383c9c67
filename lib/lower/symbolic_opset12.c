/*
 * symbolic_opset12.c - opset 12 entries (torch's symbolic_opset12.py):
 * Einsum.
 */
#include "symbolic_common.h"

static const struct symbolic opset12[] = {
	{ OP_aten_einsum, 12, 0, SYM_PRIO_BASE, sym_einsum12 },
};

const struct symbolic_table symbolic_opset12_table = {
	opset12, sizeof(opset12) / sizeof(opset12[0]),
};

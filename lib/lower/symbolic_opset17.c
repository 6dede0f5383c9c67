/*
 * symbolic_opset17.c - opset 17 entries (torch's symbolic_opset17.py):
 * LayerNormalization.
 */
#include "symbolic_common.h"

static const struct symbolic opset17[] = {
	{ OP_aten_layer_norm, 17, 0, SYM_PRIO_BASE, sym_layer_norm17 },
};

const struct symbolic_table symbolic_opset17_table = {
	opset17, sizeof(opset17) / sizeof(opset17[0]),
};

/*
 * symbolic_opset13.c - opset 13 entries (torch's symbolic_opset13.py).
 * Opset 13 moved the axes of Unsqueeze, Squeeze, ReduceSum and the split
 * of Split from attributes to inputs; the builders (build.c) emit either
 * form by the target opset, so these entries are the base functions,
 * registered again to record that their ONNX form changes here.
 */
#include "symbolic_common.h"

static const struct symbolic opset13[] = {
	{ "aten::split", sym_split },
	{ "aten::split_with_sizes", sym_split },
	{ "aten::squeeze", sym_squeeze },
	{ "aten::sum", sym_sum },
	{ "aten::unsqueeze", sym_unsqueeze },
};

const struct symbolic_table symbolic_opset13_table = {
	13, opset13, sizeof(opset13) / sizeof(opset13[0]),
};

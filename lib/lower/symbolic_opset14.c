/*
 * symbolic_opset14.c - opset 14 entries (torch's symbolic_opset14.py):
 * Trilu for tril/triu, HardSwish.
 */
#include "symbolic_common.h"

static const struct symbolic opset14[] = {
	{ "aten::hardswish", sym_hardswish14 },
	{ "aten::tril", sym_tril14 },
	{ "aten::triu", sym_triu14 },
};

const struct symbolic_table symbolic_opset14_table = {
	14, opset14, sizeof(opset14) / sizeof(opset14[0]),
};

/*
 * symbolic_opset14.c - opset 14 entries (torch's symbolic_opset14.py):
 * Trilu for tril/triu, HardSwish.
 */
#include "symbolic_common.h"

static const struct symbolic opset14[] = {
	{ OP_aten_hardswish, 14, 0, SYM_PRIO_BASE, sym_hardswish14 },
	{ OP_aten_tril, 14, 0, SYM_PRIO_BASE, sym_tril14 },
	{ OP_aten_triu, 14, 0, SYM_PRIO_BASE, sym_triu14 },
};

const struct symbolic_table symbolic_opset14_table = {
	opset14, sizeof(opset14) / sizeof(opset14[0]),
};

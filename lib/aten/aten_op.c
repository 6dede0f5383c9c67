/*
 * aten_op.c - the operator registry's names and flags (aten_op.h): the
 * tables aten_ops.inc expands into, and the name-to-id search.
 */
#include <string.h>

#include "aten_op.h"

static const char *const op_names[OP_COUNT] = {
	[OP_NONE] = "",
#define ATEN_OP(ns, name, flags) [OP_##ns##_##name] = #ns "::" #name,
#include "aten_ops.inc"
#undef ATEN_OP
};

static const unsigned char op_flags[OP_COUNT] = {
#define ATEN_OP(ns, name, flags) [OP_##ns##_##name] = (flags),
#include "aten_ops.inc"
#undef ATEN_OP
};

enum aten_op aten_op_id(const char *qualname)
{
	/* ids 1 .. OP_COUNT-1 are in the order of their sorted names */
	int lo = 1, hi = OP_COUNT - 1;

	if (!qualname)
		return OP_NONE;
	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;
		int c = strcmp(op_names[mid], qualname);
		if (!c)
			return (enum aten_op)mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return OP_NONE;
}

const char *aten_op_name(enum aten_op op)
{
	return (int)op > 0 && op < OP_COUNT ? op_names[op] : "";
}

unsigned aten_op_flags(enum aten_op op)
{
	return (int)op > 0 && op < OP_COUNT ? op_flags[op] : 0;
}

int aten_op_in(enum aten_op op, const enum aten_op *ops, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		if (ops[i] == op)
			return op != OP_NONE;
	return 0;
}

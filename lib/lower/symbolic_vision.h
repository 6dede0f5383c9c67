/*
 * symbolic_vision.h - the symbolic functions of symbolic_vision.c that
 * take over cases an opset table's symbolic declines (same contract as
 * symbolic_fn, lower_int.h): each handles its cases and calls the opset
 * tables' function (sym_index, sym_where, sym_split, sym_unbind) for the
 * rest, so either table order works.
 */
#ifndef PT2ONNX_SYMBOLIC_VISION_H
#define PT2ONNX_SYMBOLIC_VISION_H

#include "lower_int.h"

/* index with boolean masks or several index tensors (GatherND) */
int vision_index(struct lower_ctx *c, struct ir_node *n,
		 struct ir_value **out);
/* where(condition): NonZero's rows as a list of index tensors */
int vision_where(struct lower_ctx *c, struct ir_node *n,
		 struct ir_value **out);
/* split_with_sizes with sizes known only at run time */
int vision_split(struct lower_ctx *c, struct ir_node *n,
		 struct ir_value **out);
/* unbind over a dim of unknown size, the count from a prim::ListUnpack */
int vision_unbind(struct lower_ctx *c, struct ir_node *n,
		  struct ir_value **out);
/* repeat with repeats known only at run time */
int vision_repeat(struct lower_ctx *c, struct ir_node *n,
		  struct ir_value **out);

#endif

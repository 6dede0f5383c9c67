/*
 * fold_peep.h - the peephole pass of `fold` (fold_peep.c), run after
 * constant folding: no-op nodes and Identity removed, Slice chains merged,
 * LogSoftmax + NegativeLogLikelihoodLoss fused, common subexpressions (and
 * equal Constant nodes) merged, as torch's peephole and CSE passes do.
 */
#ifndef PT2ONNX_FOLD_PEEP_H
#define PT2ONNX_FOLD_PEEP_H

#include <stdint.h>

#include "ir.h"

struct fold_peep_stats {
	uint32_t identities; /* Identity and no-op nodes removed */
	uint32_t slices;     /* Slice (Expand) nodes merged into the next */
	uint32_t fused;      /* LogSoftmax + NLL, written-out RMSNorm fused */
	uint32_t cse;        /* nodes merged into an equal earlier one */
};

/* Runs the pass over g (ONNX level, default-domain opset `opset`).  Needs
 * value->uses counted (node inputs in every block and block returns) and
 * value->aux NULL on entry; leaves both stale (recount after).  Nodes it
 * makes unused are left for dead-code elimination.  0, or -1 when out of
 * memory. */
int fold_peephole(struct ir_graph *g, int64_t opset,
		  struct fold_peep_stats *st);

#endif

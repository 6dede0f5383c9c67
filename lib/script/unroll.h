/*
 * unroll.h - the script stage's loop unrolling and list folding
 * (unroll.c), run by script_passes (passes.c):
 *
 *   script_unroll_loop  a prim::Loop of a constant trip count whose
 *                       condition stays constant, whose body computes
 *                       only scalars and lists (no tensor results), and
 *                       whose size times iterations is small, becomes the
 *                       body's nodes once per iteration;
 *   script_fold_lists   a prim::ListConstruct changed only by append,
 *                       insert, pop and _set_item of its own block (the
 *                       indices constant), read only by aten ops of that
 *                       block, becomes a prim::ListConstruct of the known
 *                       elements before each node that reads it (len and
 *                       __getitem__ of a constant element fold); a list of
 *                       tensors only appended to is left as torch keeps it
 *                       (densenet's features, lower reads it).
 */
#ifndef PT2ONNX_SCRIPT_UNROLL_H
#define PT2ONNX_SCRIPT_UNROLL_H

#include "ir.h"

#define SCRIPT_UNROLL_MAX_ITERS 64   /* iterations of one loop */
#define SCRIPT_UNROLL_MAX_NODES 4096 /* body nodes x iterations */

/* Unrolls loop n in place when it qualifies: the copies of its body go
 * before n, each copied node folded (script_fold_node) as it is placed,
 * the outputs of n get their replacements in v->aux, and n is unlinked.
 * Returns 1 when unrolled, 0 when n is left as it was. */
int script_unroll_loop(struct ir_graph *g, struct ir_node *n);

/* Rewrites the lists of block b (and nested blocks) that qualify, as
 * above; `uses` counters must be current.  Returns the number of nodes
 * changed (0: nothing). */
int script_fold_lists(struct ir_graph *g, struct ir_block *b, int depth);

#endif

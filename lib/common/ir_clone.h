/*
 * ir_clone.h - copies of nodes (ir_clone.c): a map from original values
 * to their copies, a node copied with its blocks (the script stage's
 * unrolling and lower's), and the loops that change lists, which lower
 * unrolls.
 */
#ifndef PT2ONNX_IR_CLONE_H
#define PT2ONNX_IR_CLONE_H

#include "ir.h"

/* Original value -> copy (open addressing; zero-initialise, then free). */
struct ir_vmap {
	const struct ir_value **k;
	struct ir_value **v;
	size_t cap, len;
};

/* 0, or -1 when out of memory. */
int ir_vmap_put(struct ir_vmap *m, const struct ir_value *k,
		struct ir_value *v);
/* The copy of k, or k itself (a value from outside what was copied). */
struct ir_value *ir_vmap_get(const struct ir_vmap *m, struct ir_value *k);
void ir_vmap_free(struct ir_vmap *m);

/* A copy of x (not placed in a block), its inputs mapped through m, its
 * outputs and the values of its blocks entered into m; NULL when out of
 * memory or nested deeper than 64. */
struct ir_node *ir_node_clone(struct ir_graph *g, struct ir_vmap *m,
			      const struct ir_node *x, int depth);

/* 1 for list mutations whose result, when they have one, is the list
 * itself (append, insert, _set_item, extend, clear, reverse). */
int ir_list_mutation(enum aten_op op);

/* 1 when loop n's carried lists change: it carries a list or dict, or its
 * body changes one made before it (append, _set_item, pop... on it).
 * Lower unrolls such a loop when it knows the trip count, even when its
 * body computes tensors: the lists become known element by element
 * (GeneralizedRCNNTransform's `images[i] = image`). */
int ir_loop_changes_lists(const struct ir_node *n);

#endif

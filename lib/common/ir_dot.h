/*
 * ir_dot.h - any IR graph (aten or ONNX level) drawn as Graphviz dot.
 *
 * Nodes are boxes labelled with their kind and name; edges carry the value
 * names; graph inputs are ellipses, weights grey boxes, graph outputs
 * double octagons; subgraphs (graph attributes, nested blocks) are
 * clusters, with edges from enclosing values drawn into them.  Reads the
 * graph only.
 */
#ifndef PT2ONNX_IR_DOT_H
#define PT2ONNX_IR_DOT_H

#include <stdio.h>

#include "diag.h"
#include "ir.h"

/* Writes g to fp as a `digraph`.  Returns 0, or -1 after reporting a write
 * error to d. */
int ir_write_dot(const struct ir_graph *g, FILE *fp, struct diag *d);

#endif

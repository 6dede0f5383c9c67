/*
 * onnx_functions.h - torch.onnx.export's export_modules_as_functions for
 * `emit`: the nodes of the main graph that run inside one instance of a
 * chosen module type (by the node scopes a trace writes,
 * "M/Block[b1]/Linear[fc]") become one call of an ONNX local function
 * (FunctionProto) of that type, as torch 1.13 does.
 *
 * This file plans which nodes go where; onnx_write.c writes the calls
 * and the functions.  Instances of one type whose nodes differ get one
 * function per group of identical ones (Type, Type.1, ...), as torch's.
 * What it does not do is refused with one line, never written
 * differently: a selected type inside another selected instance (torch
 * nests the functions), control flow in an instance, and a graph whose
 * order cannot hold a call in one place (a module called twice in one
 * instance: a trace's scopes do not tell the calls apart).
 */
#ifndef PT2ONNX_ONNX_FUNCTIONS_H
#define PT2ONNX_ONNX_FUNCTIONS_H

#include <stdint.h>

#include "diag.h"
#include "ir.h"

/* One module instance: its nodes (in block order) and the values that
 * cross its boundary. */
struct onnx_fn_instance {
	char *type;            /* module type ("Block"): the op_type */
	char *domain;          /* the function's domain */
	char *scope;           /* "M/Block[b1]" (malloc'd) */
	const struct ir_node **nodes;
	uint32_t nnodes;
	const struct ir_value **ins;  /* used, not made, in first-use order */
	uint32_t nins;
	const struct ir_value **outs; /* made, used outside, in node order */
	uint32_t nouts;
	int body;              /* 1: the first of its group, whose nodes are
				  the function's body */
	char *fname;           /* body: the function's name, Type or Type.N
				  (one per group of identical instances) */
	uint32_t fn;           /* the instance whose body it calls */
};

struct onnx_fn_plan {
	struct onnx_fn_instance *inst;
	uint32_t ninst;
	/* the instance of each node of the top block, by pointer (sorted) */
	struct onnx_fn_entry { const struct ir_node *n; uint32_t inst; } *map;
	uint32_t nmap;
	/* Constants only instances use: in their functions, not the graph
	 * (sorted by pointer; duplicates allowed) */
	const struct ir_node **dropped;
	uint32_t ndropped;
};

/* Plans the functions of g's top block for the module types types[0..n)
 * ("Block", or "pkg.mod.Block": domain pkg.mod; a bare name's domain is
 * "local").  0 with *p filled (p->ninst 0 when no node is in such a
 * module), or an exit code after one line to d. */
int onnx_fn_plan(const struct ir_graph *g, char *const *types, uint32_t n,
		 struct onnx_fn_plan *p, struct diag *d);
/* The instance node nd is in, or NULL. */
const struct onnx_fn_instance *onnx_fn_of(const struct onnx_fn_plan *p,
					  const struct ir_node *nd);
/* 1 when v is made inside an instance and not one of its outputs (it
 * lives only in the function). */
int onnx_fn_hidden(const struct onnx_fn_plan *p, const struct ir_value *v);
/* 1 when nd is a Constant written only inside functions. */
int onnx_fn_dropped(const struct onnx_fn_plan *p, const struct ir_node *nd);
void onnx_fn_plan_release(struct onnx_fn_plan *p);

#endif

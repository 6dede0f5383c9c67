/*
 * onnx_functions.h - torch.onnx.export's export_modules_as_functions for
 * `emit`: the nodes of the main graph that run inside one instance of a
 * chosen module type (by the node scopes script, trace and unpt2 write,
 * "M/Block[b1]/Linear[fc]") become one call of an ONNX local function
 * (FunctionProto) of that type, as torch 1.13 does.
 *
 * This file plans which nodes go where; onnx_write.c writes the calls
 * and the functions.  Instances of one type whose nodes differ get one
 * function per group of identical ones (Type, Type.1, ...), as torch's.
 * A selected type inside another selected instance is a call in that
 * instance's function (nested functions, as torch's).  What it does not
 * do is refused with one line, never written differently: control flow
 * in an instance, and a graph whose order cannot hold a call in one
 * place.  A module called twice is two instances (a stage writes one
 * call's nodes together: the same scope after another's nodes is the
 * next call).  Differences from torch 1.13: a bare type's domain is
 * "local" (torch's is the class's Python module: the scopes keep
 * only the class name), and instances that differ in an attribute are
 * separate functions (Type.1), where torch makes the module's attributes
 * function attributes.
 */
#ifndef PT2ONNX_ONNX_FUNCTIONS_H
#define PT2ONNX_ONNX_FUNCTIONS_H

#include <stdint.h>

#include "diag.h"
#include "ir.h"

#define ONNX_FN_NONE UINT32_MAX

/* One item of a function's body: a node, or (n NULL) the call of the
 * instance `call` nested in it. */
struct onnx_fn_item {
	const struct ir_node *n;
	uint32_t call;
};

/* One module instance: its body (its own nodes and the calls of the
 * instances nested in it, in block order) and the values that cross its
 * boundary. */
struct onnx_fn_instance {
	char *type;            /* module type ("Block"): the op_type */
	char *domain;          /* the function's domain */
	char *scope;           /* "M/Block[b1]" (malloc'd) */
	uint32_t parent;       /* the instance it is nested in, or
				  ONNX_FN_NONE (a call in the graph) */
	struct onnx_fn_item *items;
	uint32_t nitems;
	const struct ir_node *last; /* its last node (nested ones included)
				       in block order: where its call stands */
	const struct ir_value **ins;  /* used, not made, in first-use order */
	uint32_t nins;
	const struct ir_value **outs; /* made, used outside, in node order */
	uint32_t nouts;
	uint32_t height;       /* 0: nothing nested; else 1 + the highest
				  nested instance's */
	int body;              /* 1: the first of its group, whose items are
				  the function's body */
	char *fname;           /* body: the function's name, Type or Type.N
				  (one per group of identical instances) */
	uint32_t fn;           /* the instance whose body it calls */
};

struct onnx_fn_plan {
	struct onnx_fn_instance *inst;
	uint32_t ninst;
	/* the innermost instance of each node of the top block, by pointer
	 * (sorted) */
	struct onnx_fn_entry { const struct ir_node *n; uint32_t inst; } *map;
	uint32_t nmap;
	/* Constants only instances use: in their functions, not the graph
	 * (sorted by pointer; duplicates allowed) */
	const struct ir_node **dropped;
	uint32_t ndropped;
};

/* Plans the functions of g's top block for the module types types[0..n)
 * ("Block", or "pkg.mod.Block": domain pkg.mod; a bare name's domain is
 * "local"; "*": every module type, the root's included, as torch's
 * export_modules_as_functions=True).  0 with *p filled (p->ninst 0 when no node is in such a
 * module), or an exit code after one line to d. */
int onnx_fn_plan(const struct ir_graph *g, char *const *types, uint32_t n,
		 struct onnx_fn_plan *p, struct diag *d);
/* The innermost instance node nd is in, or NULL. */
const struct onnx_fn_instance *onnx_fn_of(const struct onnx_fn_plan *p,
					  const struct ir_node *nd);
/* The outermost instance node nd is in (its call is in the graph), or
 * NULL. */
const struct onnx_fn_instance *onnx_fn_top(const struct onnx_fn_plan *p,
					   const struct ir_node *nd);
/* 1 when v is made inside an instance and not an output of the
 * outermost one (it lives only in the functions). */
int onnx_fn_hidden(const struct onnx_fn_plan *p, const struct ir_value *v);
/* 1 when nd is a Constant written only inside functions. */
int onnx_fn_dropped(const struct onnx_fn_plan *p, const struct ir_node *nd);
void onnx_fn_plan_release(struct onnx_fn_plan *p);

#endif

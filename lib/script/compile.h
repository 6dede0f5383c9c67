/*
 * compile.h - the `script` stage's compiler: a TorchScript archive's forward
 * method (or another) as an aten-level IR graph in SSA form, the way torch's
 * graph looks after inlining, freezing and constant propagation (the
 * contract is docs/ir.md, "Conventions of the two levels / Aten level").
 *
 * script_compile() parses the root module's class source, inlines every
 * submodule call, method and free function (module scopes recorded as torch
 * does), resolves `self.x` statically against the pickled module tree
 * (parameters and buffers become weights referring into the archive, other
 * attributes constants, `training` False), refills schema defaults, folds
 * what is static (constant conditions, `is None`, tuples), turns
 * if/for/while into prim::If/prim::Loop, removes raising branches, and runs
 * the clean-up passes (script_passes) and type propagation (script_shapes).
 *
 * Errors: one line each to the diag, naming the code file, line:col and the
 * construct.  *code is set to EXIT_BAD_INPUT (unparseable source, a missing
 * class) or EXIT_UNSUPPORTED (a construct the compiler does not handle).
 * Never crashes on hostile archives: inlining is limited to
 * SCRIPT_MAX_INLINE nested calls.
 *
 * Ownership: the returned graph is the caller's (ir_graph_free); it refers
 * to the archive's file by path only, so the archive may be closed.
 */
#ifndef PT2ONNX_COMPILE_H
#define PT2ONNX_COMPILE_H

#include <stdio.h>

#include "diag.h"
#include "input_spec.h"
#include "ir.h"
#include "onnx_write.h"
#include "torch_archive.h"

#define SCRIPT_MAX_INLINE 256     /* nested inlined calls */
#define SCRIPT_MAX_RECURSION 2000 /* nested expressions and blocks, all
				     inlined levels together */

/* The type of one forward argument given on the command line: a tensor
 * (kind INPUT_SPEC_TENSOR), or a tuple, list, number, bool or None
 * (input_spec.h), whose tensors become graph inputs of their own. */
struct script_input {
	const char *name;      /* NULL: positional */
	enum input_spec_kind kind;
	struct script_input *items; /* a tuple's or list's */
	int nitems;
	int64_t ival;          /* int, bool */
	double fval;           /* float */
	struct ir_type *type;  /* allocated in the graph given to
				  script_parse_input, or NULL */
	enum ir_dtype dtype;   /* parsed form, see script_parse_input */
	int rank;              /* -1 unknown */
	struct ir_dim dims[64];
};

struct script_options {
	const char *method;                /* NULL: "forward" */
	const struct script_input *inputs; /* in order given */
	int ninputs;
	int require_inputs; /* a Tensor argument without --input is refused
			       (an export needs its type; pt2onnx sets it) */
	/* --dynamic-axes: each axis named there is a symbol in the graph
	 * input's type whatever size --input gave, so that nothing
	 * downstream sees the example's size; inputs are named by forward's
	 * argument names, or by --input-names (graph inputs in order) */
	const struct onnx_write_options *dyn; /* NULL: none */
};

/* Parses an --input SPEC: `x=f32[batch,3,224,224]`, `f32[1,3]`, or a .npy
 * path (named `x=a.npy` or not), whose header gives dtype and shape.
 * Returns 0, or -1 after reporting.  Symbol names are malloc'd. */
int script_parse_input(const char *spec, struct script_input *in,
		       struct diag *d);
/* The script input of a parsed spec (its text spec, for messages); run:
 * is was parsed with INPUT_SPEC_RUN (trace's), its named dims are taken
 * as their sizes and a .npy that cannot be read leaves the rank unknown
 * (trace reports it when it reads it).  0, or -1 after reporting. */
int script_input_from_spec(const struct input_spec *is, int run,
			   const char *spec, struct script_input *in,
			   struct diag *d);
/* Frees what script_parse_input allocated (name, symbols); NULL is a
 * no-op. */
void script_input_release(struct script_input *in);

/* Compiles method o->method of ar's root module.  Returns the graph, or NULL
 * after reporting (every problem it can find) with *code set. */
struct ir_graph *script_compile(struct torch_archive *ar,
				const struct script_options *o,
				struct diag *d, int *code);

/* Clean-up passes (passes.c): constant propagation of int/bool arithmetic,
 * unrolling of loops of a constant trip count that compute no tensors and
 * folding of the lists they build (unroll.c), dead code elimination,
 * dropping unused weights.  Returns nothing: cannot fail. */
void script_passes(struct ir_graph *g);

/* torch's operator upgraders (upgraders.c): in the graph of an archive
 * whose `version` record is archive_version, each node of an operator
 * overload whose meaning changed after that version (div before 4, full
 * before 5, linspace before 8, logspace before 9, gelu before 10) is
 * rewritten as the current ops torch.jit.load substitutes.  Cannot fail. */
void script_upgrade(struct ir_graph *g, int64_t archive_version);
/* For a call that leaves out argument `arg` of operator op: 1, with the
 * value to pass in *value, when an archive of archive_version could leave
 * it out (its schema then had a default that torch 1.13's has not, which
 * the upgrader maps to *value: linspace's and logspace's steps); else 0. */
int script_upgrade_missing_arg(enum aten_op op, const char *arg,
			       int64_t archive_version, int64_t *value);

/* Type propagation for one node (shapes.c): sets the output types of n from
 * its inputs' types and constant inputs, for the ops it knows; leaves
 * unknown what it cannot infer. */
void script_infer_node(struct ir_graph *g, struct ir_node *n);
/* Prints one line per operator that has a shape rule (shapes.c), sorted:
 * "aten::relu: shape" (`script --list-ops`, README's operator table). */
void script_list_ops(FILE *fp);

/* Helpers shared by the compiler's files. */
/* 1 when v is produced by a prim::Constant holding an int or bool (value
 * into *out). */
int script_const_int(const struct ir_value *v, int64_t *out);
int script_const_float(const struct ir_value *v, double *out);
/* 1 when v is a constant None. */
int script_const_none(const struct ir_value *v);
/* 1 when list value l may be changed after its prim::ListConstruct (a
 * mutating op or a prim:: node takes it later in its block); then its
 * elements cannot be read off the construct. */
int script_list_mutated(const struct ir_value *l);
/* Does a node of op change state other than its outputs (an in-place op,
 * a list, dict or object mutation, print, raise)?  Dead code elimination
 * keeps it (passes.c). */
int script_side_effect(enum aten_op op);
/* The elements of list l as node n sees them (fold_static.c): l a
 * prim::ListConstruct in n's block, changed between there and n only by
 * aten::append nodes of that block.  The count (elements in out[0..max)),
 * -1 when not known so. */
int script_list_at(const struct ir_value *l, const struct ir_node *n,
		   struct ir_value **out, int max);

#endif

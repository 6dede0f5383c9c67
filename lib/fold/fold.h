/*
 * fold.h - the `fold` stage's passes over an ONNX-level graph, as
 * torch.onnx.export runs them after symbolic lowering:
 *
 *   1. eval peephole: Conv followed by BatchNormalization (inference) with
 *      constant parameters becomes one Conv with new weights;
 *   2. constant folding (opset >= 9): a node of a foldable kind (the table
 *      in fold_eval.c) whose inputs are all constants (initializers or
 *      onnx::Constant outputs) is evaluated on the CPU and its outputs
 *      become initializers with inline data; Shape (and Size) of a value
 *      whose shape is fully static folds too, and Gather of a Shape where
 *      the dims it selects are fixed; a symbolic or unknown dim never
 *      becomes a constant; an If with a constant condition becomes the
 *      branch it takes; then (opset >= 9, with or without constant
 *      folding, as torch) the peephole pass of fold_peep.h (no-op nodes,
 *      Identity, Slice of Slice, common subexpressions, LogSoftmax +
 *      NLLLoss), whose removals fold -v counts as dead nodes;
 *   3. dead code: nodes whose outputs are unused removed (subgraphs too),
 *      then unused initializers;
 *   4. identical initializers de-duplicated (references compared by file,
 *      offset, length and strides without reading; inline data by content).
 *
 * Weights the passes compute on are read (inline, or pread from the file a
 * reference names); every other weight passes through untouched, never
 * read.  Identity, Reshape, Flatten, Squeeze, Unsqueeze and Transpose of a
 * weight by reference read nothing either: their result is a reference to
 * the same bytes with new dims (and strides).  Computed results are
 * inline, or with fold_options.data_file, written to that file as they are
 * made and passed on as references into it (the stream stays small and no
 * stage holds them in memory).
 *
 * Ownership: everything new lives in the graph's arena.
 */
#ifndef PT2ONNX_FOLD_H
#define PT2ONNX_FOLD_H

#include <stdint.h>

#include "diag.h"
#include "ir.h"

struct fold_options {
	int constant_fold;  /* pass 2 (torch's do_constant_folding) */
	int peephole;       /* pass 2's peepholes (on whatever constant_fold) */
	int bn_fold;        /* pass 1 */
	int dce;            /* pass 3 */
	int dedup;          /* pass 4 */
	uint64_t max_bytes; /* a folded result larger than this is left as
			       a node (default 1 GiB) */
	const char *data_file; /* NULL (default): results inline; else
				  results of data_min bytes and more go to
				  this file (created, truncated, on the
				  first one) and are referenced by its
				  absolute path; removed when folding
				  fails or a signal ends the process
				  while folding (outfile_track).  It must outlive every stage that
				  reads the stream. */
	uint64_t data_min;  /* default 4096 */
};

/* A data file starts with this line, NUL-padded to FOLD_DATA_HEADER
 * bytes; the results follow (emit reads weights from such files wherever
 * they are: docs/ir.md, "Which files a weight() may read"). */
#define FOLD_DATA_MAGIC "pt2onnx fold data 1\n"
#define FOLD_DATA_HEADER 64

struct fold_stats {
	uint32_t folded;          /* nodes replaced by initializers */
	uint32_t bn_folded;       /* BatchNormalization nodes fused */
	uint32_t dead_nodes;      /* nodes removed as dead */
	uint32_t dead_weights;    /* initializers removed as unused */
	uint32_t deduped;         /* initializers merged into an equal one */
	uint64_t data_bytes;      /* size of the data file written, 0 when
				     none was created */
};

/* Defaults: every pass on. */
void fold_options_init(struct fold_options *o);

/* Runs the passes on g (ONNX level).  Returns 0, or an exit code from
 * diag.h after reporting to d: EXIT_UNSUPPORTED for an aten-level graph,
 * EXIT_BAD_INPUT for a weight file that is missing or short, EXIT_IO for a
 * read error.  A node that cannot be evaluated (malformed attributes,
 * integer division by zero, an out-of-range index) is not an error: it
 * stays a node for the checker or the runtime to judge.  stats may be
 * NULL. */
int fold_graph(struct ir_graph *g, const struct fold_options *o,
	       struct fold_stats *stats, struct diag *d);

/* --- the CPU evaluator (fold_eval.c), exposed for unit tests ------------ */

enum fold_eval_result {
	FOLD_EVAL_OK = 0,
	FOLD_EVAL_SKIP = 1, /* not foldable: leave the node */
};

struct fold_eval {
	struct ir_graph *g;        /* results are allocated in its arena */
	const struct ir_node *n;   /* the node evaluated */
	int64_t opset;             /* default-domain opset */
	struct ir_tensor **in;     /* n->ninputs: inline contiguous tensors,
				      NULL for absent inputs (and for input
				      0 of Shape/Size, see in_types) */
	const struct ir_type **in_types; /* the input values' types */
	struct ir_tensor **out;    /* n->noutputs, filled by the op */
	uint64_t max_bytes;        /* skip results larger than this */
};

/* Flags of a foldable kind. */
#define FOLD_OP_SHAPE_ONLY 1u /* input 0 needs a static shape, not data */

/* The evaluator of `kind` ("onnx::Add"), or NULL when it is not
 * foldable.  *flags gets the kind's flags. */
int (*fold_op_lookup(const char *kind, unsigned *flags))(struct fold_eval *e);
/* The i-th foldable kind in the table's (sorted) order, NULL past the
 * end. */
const char *fold_op_kind(size_t i);

/* Slice's plan (e evaluates an onnx::Slice; only x's dtype and dims are
 * looked at, never its data): for each of x's rank axes (at most 64) the
 * first index taken, the step and the result's dim.  FOLD_EVAL_OK, or
 * FOLD_EVAL_SKIP when the node's arguments do not say for sure. */
int fold_slice_plan(struct fold_eval *e, const struct ir_tensor *x,
		    int64_t *first, int64_t *step, int64_t *dims);

/* A Constant node's value as an inline tensor (value, value_int(s),
 * value_float(s)), or NULL when it has none of those. */
struct ir_tensor *fold_constant_value(struct ir_graph *g,
				      const struct ir_node *n);

/* Element access on inline tensors of numeric dtypes (half and bfloat16
 * converted).  Integer dtypes read as int64 (uint64 wraps), bool as 0/1. */
double fold_get_f(const struct ir_tensor *t, uint64_t i);
int64_t fold_get_i(const struct ir_tensor *t, uint64_t i);
void fold_set_f(struct ir_tensor *t, uint64_t i, double v);
void fold_set_i(struct ir_tensor *t, uint64_t i, int64_t v);
/* 1 for FLOAT, DOUBLE, FLOAT16, BFLOAT16. */
int fold_dtype_is_float(enum ir_dtype dt);
/* A new inline tensor with zeroed data, or NULL when it would exceed
 * max_bytes (0: no limit). */
struct ir_tensor *fold_tensor_alloc(struct ir_graph *g, enum ir_dtype dt,
				    int rank, const int64_t *dims,
				    uint64_t max_bytes);

#endif

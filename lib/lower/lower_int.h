/*
 * lower_int.h - what lower.c, build.c and the symbolic_opsetN.c tables
 * share: the lowering context, the graph builder, reading an aten node's
 * arguments, and the symbolic-function registry.
 *
 * Symbolic functions are data: each symbolic_*.c file holds rows
 * { op, from, to, prio, fn } (struct symbolic below) for the operators it
 * implements, keyed by registry id (aten_op.h); the lookup for target opset
 * T takes the row serving T of highest priority, the opset ranges written
 * in the rows (a newer opset's form starts where the older one ends, as
 * torch's registry picks the greatest version <= T).
 *
 * A symbolic reads its aten node (constants through lw_int() & co., tensor
 * inputs through lw_tensor()), emits ONNX nodes with the b_* builders
 * (inserted before the aten node, each typed by build.c's inference) and
 * stores one value per aten output in out[].  It returns 0, or 1 to decline
 * (c->why says why: "only constant dims"...), leaving nothing it built
 * used.  Ownership: everything lives in the graph's arena.
 */
#ifndef PT2ONNX_LOWER_INT_H
#define PT2ONNX_LOWER_INT_H

#include <stdint.h>

#include "ir.h"
#include "ir_clone.h"
#include "lower.h"

struct lw_list; /* lower.c: an aten list value known as ONNX values */
struct lw_copy; /* lower.c: a value that copies another (x.clone()) */

struct lower_ctx {
	struct ir_graph *g;
	struct diag *d;
	const struct lower_options *o;
	int opset;             /* target opset */
	struct ir_block *blk;  /* the block being lowered */
	struct ir_node *pos;   /* new nodes go before it (NULL: at the end) */
	struct ir_node *cur;   /* the aten node being lowered */
	const char *why;       /* a declining symbolic's reason */
	struct lw_list *lists; /* list values known element-wise */
	struct ir_vmap *views; /* a view's aten value -> its record in
				  lists (lw_add_view; the record cast to
				  the map's value type); lower_graph's, one
				  for every context (If and Loop copy and
				  restore the context around their blocks) */
	struct lw_copy *copies; /* values that are copies, not aliases */
	int nunsupported;      /* ops reported unconvertible */
	const char **custom_warned; /* ops warned about as custom nodes */
	int ncustom_warned;
	int nmalformed;        /* aten nodes not as docs/ir.md says */
	struct lw_packed *packed; /* packed sequences lowered so far
				     (symbolic_rnn.c) */
};

typedef int (*symbolic_fn)(struct lower_ctx *c, struct ir_node *n,
			   struct ir_value **out);

/* One row of the symbolic table: op's symbolic fn for opsets from..to (0:
 * LOWER_OPSET_MIN, 0: LOWER_OPSET_MAX).  Each symbolic_*.c file holds the
 * rows of the operators it implements, one row per (operator, function);
 * lower.c indexes them all by op once.  Of the rows that serve one (op,
 * opset), the one of higher prio wins; no two of them have the same prio
 * (tests/unit/test_lower_symbolic.c checks it).  A newer opset's form of an
 * op is a row from that opset, the older row ending just before it. */
enum {
	SYM_PRIO_BASE = 0, /* the operator's symbolic */
	SYM_PRIO_OVER = 1, /* a pre-check taken before the base row: handles
			      the cases the base declines and calls the base
			      function for the rest (symbolic_vision.c) */
};

struct symbolic {
	enum aten_op op;
	int from, to;
	int prio;
	symbolic_fn fn;
};

struct symbolic_table {
	const struct symbolic *entries;
	size_t count;
};

/* The rows of each file; lower.c's symbolic_tables[] lists them all. */
extern const struct symbolic_table symbolic_driver_table; /* lower.c */
extern const struct symbolic_table symbolic_dicts_table; /* lower_dicts.c */
extern const struct symbolic_table symbolic_opset9_table;
extern const struct symbolic_table symbolic_opset11_table;
extern const struct symbolic_table symbolic_opset12_table;
extern const struct symbolic_table symbolic_opset14_table;
extern const struct symbolic_table symbolic_opset17_table;
/* Symbolics for ops the opset tables do not have, one function each for
 * every opset (branching on c->opset). */
extern const struct symbolic_table symbolic_extra_math_table;  /* symbolic_extra_math.c */
extern const struct symbolic_table symbolic_extra_nn_table;    /* symbolic_extra_nn.c */
extern const struct symbolic_table symbolic_extra_shape_table; /* symbolic_extra_shape.c */
extern const struct symbolic_table symbolic_fft_table;         /* symbolic_fft.c */
extern const struct symbolic_table symbolic_long_tail_table;  /* symbolic_long_tail.c */
extern const struct symbolic_table symbolic_stats_table;      /* symbolic_stats.c */
extern const struct symbolic_table symbolic_linalg_table;     /* symbolic_linalg.c */
extern const struct symbolic_table symbolic_hist_table;       /* symbolic_hist.c */
extern const struct symbolic_table symbolic_reduce_table;     /* symbolic_reduce.c */
extern const struct symbolic_table symbolic_loss_table;       /* symbolic_loss.c */
extern const struct symbolic_table symbolic_pointwise_table;  /* symbolic_pointwise.c */
extern const struct symbolic_table symbolic_products_table;   /* symbolic_products.c */
extern const struct symbolic_table symbolic_special_table;    /* symbolic_special.c */
extern const struct symbolic_table symbolic_linalg_orth_table; /* symbolic_linalg_orth.c */
/* Why op has no symbolic on purpose, or NULL (symbolic_long_tail.c). */
const char *sym_refusal(enum aten_op op);
/* torchvision::* ops, and the index/where/split/unbind/repeat cases the
 * opset tables decline (symbolic_vision.c): rows of SYM_PRIO_OVER, each
 * handling its own cases and calling the opset tables' symbolic for the
 * rest. */
extern const struct symbolic_table symbolic_vision_table;
extern const struct symbolic_table *const symbolic_tables[];
extern const size_t symbolic_ntables;
#define SYM_ROWS_MAX 2048 /* rows lower.c's index holds */

/* plugin.c: 1 when a plugin serves node kind `kind` at opset; the
 * symbolic that calls it (same contract as a symbolic_fn). */
int lower_plugin_has(const struct lower_plugins *p, const char *kind,
		     int opset);
int lower_plugin_symbolic(struct lower_ctx *c, struct ir_node *n,
			  struct ir_value **out);

/* The symbolic for op at opset, NULL when none. */
symbolic_fn symbolic_lookup(enum aten_op op, int opset);
/* The lowest opset above opset that op has a row for, 0 when none: what
 * lower's "has no symbolic" line says an op needs. */
int symbolic_next_opset(enum aten_op op, int opset);
/* The symbolic for the internal kind "complex::OP" (a user of a complex
 * value that symbolic_fft.c renamed; such a node's op is OP_NONE), NULL
 * when none (symbolic_fft.c). */
symbolic_fn symbolic_fft_complex(const char *kind);

/* --- builder (build.c) ------------------------------------------------- */

/* A new node "onnx::" op (op without domain; "dom::Op" kept as given) with
 * nin inputs (NULL entries allowed: absent optional) and nout outputs,
 * inserted at the context's position.  Attributes are added with b_attr_*;
 * then b_done() infers the output types and returns output 0. */
struct ir_node *b_node(struct lower_ctx *c, const char *op, int nin,
		       struct ir_value *const *ins, int nout);
void b_attr_i(struct lower_ctx *c, struct ir_node *n, const char *name,
	      int64_t v);
void b_attr_f(struct lower_ctx *c, struct ir_node *n, const char *name,
	      double v);
void b_attr_s(struct lower_ctx *c, struct ir_node *n, const char *name,
	      const char *s);
void b_attr_ints(struct lower_ctx *c, struct ir_node *n, const char *name,
		 const int64_t *v, int count);
void b_attr_floats(struct lower_ctx *c, struct ir_node *n, const char *name,
		   const double *v, int count);
struct ir_value *b_done(struct lower_ctx *c, struct ir_node *n);
/* Re-runs inference on n (after attributes changed). */
void b_infer(struct lower_ctx *c, struct ir_node *n);

/* One-output shorthands. */
struct ir_value *b_op1(struct lower_ctx *c, const char *op,
		       struct ir_value *a);
struct ir_value *b_op2(struct lower_ctx *c, const char *op,
		       struct ir_value *a, struct ir_value *b);
struct ir_value *b_op3(struct lower_ctx *c, const char *op,
		       struct ir_value *a, struct ir_value *b,
		       struct ir_value *d);

/* Constants (onnx::Constant with a tensor attribute). rank 0 or 1. */
struct ir_value *b_const_i64s(struct lower_ctx *c, const int64_t *v, int n,
			      int rank);
/* The n int64s v as a constant of the given dims (their product n). */
struct ir_value *b_const_i64_shaped(struct lower_ctx *c, const int64_t *v,
				    int n, const int64_t *dims, int rank);
struct ir_value *b_const_i64(struct lower_ctx *c, int64_t v); /* 0-d */
/* v as a one-element tensor of dtype dt, 0-d (rank 0) or [1] (rank 1);
 * NULL for a dtype it does not encode (half, bfloat16, ...: go through
 * float and a Cast, as b_const_scalar does). */
struct ir_tensor *b_scalar_tensor(struct lower_ctx *c, double v,
				  enum ir_dtype dt, int rank);
/* A 0-d (rank 0) or [1] (rank 1) scalar of dtype dt holding v. */
struct ir_value *b_const_scalar(struct lower_ctx *c, double v,
				enum ir_dtype dt, int rank);
struct ir_value *b_const_bool(struct lower_ctx *c, int v);
/* Transpose of x (rank entries of perm). */
struct ir_value *b_transpose(struct lower_ctx *c, struct ir_value *x,
			     const int64_t *perm, int rank);
/* x (of rank r >= 2) with its last two dims swapped, torch's mT. */
struct ir_value *b_swap_last2(struct lower_ctx *c, struct ir_value *x, int r);
/* Concat of the k values v along axis. */
struct ir_value *b_concat(struct lower_ctx *c, int k,
			  struct ir_value *const *v, int64_t axis);
/* x @ w^T (+ b when b), w [N, K] as torch's Linear keeps it.  Gemm with
 * transB=1 reads w as it is, so its bytes reach the output untouched (a
 * Transpose of it would make emit write a transposed copy).  x of rank 2:
 * one Gemm, C = b.  Higher rank with fixed dims: Reshape to [rows, K],
 * Gemm, Reshape back, Add b (ONNX Runtime's MatMul of a 2-d weight is the
 * same one GEMM over the rows, so the outputs are the same bits).  Gemm
 * only from opset 11 (C optional) and for Float/Double; otherwise, or with
 * dims not fixed, MatMul by Transpose(w) (fold transposes it once). */
struct ir_value *b_linear(struct lower_ctx *c, struct ir_value *x,
			  struct ir_value *w, struct ir_value *b);
/* w when v is Transpose(w) of a rank-2 w with perm [1, 0], else NULL. */
struct ir_value *b_untransposed2(const struct ir_value *v);
/* A constant of the given dims (any rank) from v in row-major order:
 * Double when dt is Double, else Float. */
struct ir_value *b_const_reals(struct lower_ctx *c, const double *v,
			       const int64_t *dims, int rank, enum ir_dtype dt);

struct ir_value *b_cast(struct lower_ctx *c, struct ir_value *v,
			enum ir_dtype dt); /* v itself when already dt */
/* Across opsets: axes an attribute before 13, an input from 13. */
struct ir_value *b_unsqueeze(struct lower_ctx *c, struct ir_value *v,
			     const int64_t *axes, int n);
struct ir_value *b_squeeze(struct lower_ctx *c, struct ir_value *v,
			   const int64_t *axes, int n); /* n 0: all */
/* ReduceOp with axes (n 0: all); ReduceSum takes an input from 13. */
struct ir_value *b_reduce(struct lower_ctx *c, const char *op,
			  struct ir_value *v, const int64_t *axes, int n,
			  int keepdims);
/* Slice: attributes before 10, inputs from 10. */
/* v reversed along axis (>= 0): Slice with step -1 (opset 10) */
struct ir_value *b_flip(struct lower_ctx *c, struct ir_value *v,
			int64_t axis);
struct ir_value *b_slice(struct lower_ctx *c, struct ir_value *v,
			 int64_t start, int64_t end, int64_t axis,
			 int64_t step);
/* Split into n outputs of sizes (sizes NULL: equal). outs get the values. */
void b_split(struct lower_ctx *c, struct ir_value *v, int64_t axis,
	     const int64_t *sizes, int n, struct ir_value **outs);
/* Shape(v)[dim] as a 0-d Long. */
struct ir_value *b_dim(struct lower_ctx *c, struct ir_value *v, int64_t dim);
/* One step of a Loop's body: from the iteration number it (0-d int64,
 * from 0) and the carried values v[], the next ones into nv[] */
typedef void (*b_loop_step)(struct lower_ctx *c, const void *ctx,
			    struct ir_value *it, struct ir_value **v,
			    struct ir_value **nv);
#define B_LOOP_MAX_CARRIED 8
/* an ONNX Loop of trip (0-d int64) iterations carrying k values from
 * init[] through step (each keeping its type); their last values into
 * fin[] */
void b_loop(struct lower_ctx *c, struct ir_value *trip, int k,
	    struct ir_value **init, b_loop_step step, const void *ctx,
	    struct ir_value **fin);
/* b_loop that ends early: the carried bool tensor init[until] (until
 * >= 0) says which elements are done, and the Loop stops once all are */
void b_loop_until(struct lower_ctx *c, struct ir_value *trip, int k,
		  struct ir_value **init, b_loop_step step, const void *ctx,
		  struct ir_value **fin, int until);
/* Clip to [lo, hi] (NAN: no bound); attributes before 11. */
struct ir_value *b_clip(struct lower_ctx *c, struct ir_value *v, double lo,
			double hi);

/* random.c: a random draw of float dtype dt, of like's shape (like), of
 * the shape a 1-d Long `shape` holds, or of dims[k] (exactly one of the
 * three): uniform in [a, b) (normal 0) or normal of mean a and std b.
 * ONNX's random nodes up to opset 21; from 22, where ONNX Runtime 1.30
 * runs none of them, built on Dropout's mask (random.c says how). */
struct ir_value *b_random(struct lower_ctx *c, int normal,
			  struct ir_value *like, struct ir_value *shape,
			  const int64_t *dims, int k, enum ir_dtype dt,
			  double a, double b);
/* 1 when the target opset has ONNX's random nodes as ONNX Runtime runs
 * them (Multinomial among them). */
int b_random_nodes(const struct lower_ctx *c);

/* The constant tensor behind v (an onnx::Constant), or NULL. */
const struct ir_tensor *b_const_of(const struct ir_value *v);
/* Reads constant integer values of v (Long/Int tensor) into out (max).
 * Returns the count, or -1 when v is not such a constant. */
int b_const_ints(const struct ir_value *v, int64_t *out, int max);

/* An ONNX sequence type: Tensor[] of elements of dtype dt, rank rank (-1
 * unknown). */
struct ir_type *b_seq_type(struct lower_ctx *c, enum ir_dtype dt, int rank);
/* 1 when v is an ONNX sequence built by a lowered node. */
int b_is_seq(const struct ir_value *v);
/* The dtype of a tensor (or scalar) type, UNDEFINED if unknown. */
enum ir_dtype b_dtype_of_type(const struct ir_type *t);

/* Type helpers. */
enum ir_dtype b_dtype(const struct ir_value *v); /* UNDEFINED if unknown */
int b_rank(const struct ir_value *v);            /* -1 if unknown */
/* The fixed size of dim of v (negative dims count from the end), or -1
 * when the rank or that dim is not known. */
int64_t b_dim_size(const struct ir_value *v, int64_t dim);
int b_is_float(enum ir_dtype dt);

/* input_check.c: 0 when aten node n's tensor inputs (remapped) fit what
 * the op needs as far as their types say (fixed dims and dtypes only);
 * else -1 after one line naming the graph inputs they come from, with
 * c->nmalformed counted. */
int lower_check_inputs(struct lower_ctx *c, struct ir_node *n);

/* --- arguments (lower.c) ----------------------------------------------- */

/* Input i of n, remapped to its ONNX value. */
struct ir_value *lw_in(struct lower_ctx *c, struct ir_node *n, int i);
/* Input i as an ONNX tensor: scalars become constants (int: Long, float:
 * Float, bool: Bool), int lists 1-d Long tensors. NULL if it cannot. */
struct ir_value *lw_tensor(struct lower_ctx *c, struct ir_node *n, int i);
/* A scalar input as a tensor of dtype dt (constants folded, else Cast). */
struct ir_value *lw_scalar_as(struct lower_ctx *c, struct ir_node *n, int i,
			      enum ir_dtype dt, int rank);
int lw_is_none(struct lower_ctx *c, struct ir_node *n, int i);
/* 1 and *v when input i is a constant int/bool (resp. number). */
int lw_int(struct lower_ctx *c, struct ir_node *n, int i, int64_t *v);
int lw_float(struct lower_ctx *c, struct ir_node *n, int i, double *v);
/* 1 when input i is a constant number (python scalar), with *isfloat. */
int lw_is_scalar(struct lower_ctx *c, struct ir_node *n, int i, int *isfloat);
/* A constant string input, or NULL. */
const char *lw_str(struct lower_ctx *c, struct ir_node *n, int i);
/* Constant int list (or a single int, broadcast to `bcast` entries when
 * bcast > 0): the count, -1 when not constant. */
int lw_ints(struct lower_ctx *c, struct ir_node *n, int i, int64_t *v,
	    int max, int bcast);
/* The elements of a list input (prim::ListConstruct or a list produced by
 * a lowered op) as ONNX values; count or -1. */
int lw_list(struct lower_ctx *c, struct ir_node *n, int i,
	    struct ir_value **v, int max);
/* A list input as an ONNX sequence (opset 11): a sequence already, or
 * SequenceConstruct / SequenceEmpty of a list known element-wise; NULL
 * if neither. */
struct ir_value *lw_seq(struct lower_ctx *c, struct ir_node *n, int i);
/* Records that aten list value `list` holds vals[0..n). */
void lw_set_list(struct lower_ctx *c, struct ir_value *list,
		 struct ir_value **vals, int n);
/* Declines with a reason; returns 1. */
int lw_decline(struct lower_ctx *c, const char *why);
/* Can node n's input i (an aten value) be written in place: it and the
 * bases of its views belong to the block being lowered?  0, or 1
 * declined (lower_alias.c). */
int lw_input_writable(struct lower_ctx *c, struct ir_node *n, int i);
/* n's input i now reads the ONNX value v, as after torch's in-place
 * write (batch_norm's running statistics): later reads of it and of its
 * aliases see v, a view's base gets v scattered back.  Only after
 * lw_input_writable, as a symbolic's last step.  0, or 1 declined. */
int lw_write_input(struct lower_ctx *c, struct ir_node *n, int i,
		   struct ir_value *v);

/* torch ScalarType number -> ONNX dtype, UNDEFINED when unknown. */
enum ir_dtype lw_torch_dtype(int64_t st);
/* torch's promotion of two dtypes (result_type for two tensors). */
enum ir_dtype lw_promote(enum ir_dtype a, enum ir_dtype b);

#endif

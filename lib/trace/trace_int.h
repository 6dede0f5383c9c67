/*
 * trace_int.h - what the interpreter (interp.c) and the aten op
 * implementations (ops_*.c) share: run-time values and the op table.
 *
 * An op implementation computes; it does not record.  The interpreter
 * records every node it runs whose inputs include a traced value (a
 * tensor, or an int derived from aten::size), with the output types the
 * op produced, so that ops_*.c only deal with aten semantics: argument
 * kinds, broadcasting, type promotion, views, calling lib/gpu.
 */
#ifndef PT2ONNX_TRACE_INT_H
#define PT2ONNX_TRACE_INT_H

#include <stdint.h>

#include "aten_op.h"
#include "diag.h"
#include "gpu.h"
#include "ir.h"
#include "trace.h"

enum tv_kind {
	TV_NONE = 0,
	TV_TENSOR,
	TV_INT,
	TV_FLOAT,
	TV_BOOL,
	TV_STR,
	TV_DEVICE, /* s: "cpu", "cuda" */
	TV_DTYPE,  /* i: an ir_dtype (torch passes dtypes as ints; aten ops
		      taking ScalarType see TV_INT with torch's numbering,
		      see tv_dtype()) */
	TV_LIST,
	TV_TUPLE,
	TV_DICT,   /* u.list: keys and values alternating (k0, v0, k1, v1,
		      ...), in insertion order as Python's dicts */
};

/* A run-time value, refcounted (tv_ref / tv_unref). */
struct tval {
	enum tv_kind kind;
	int refs;
	union {
		struct gpu_tensor *t; /* TENSOR (owned) */
		int64_t i;            /* INT, BOOL, DTYPE */
		double f;             /* FLOAT */
		const char *s;        /* STR, DEVICE (malloc'd, owned) */
		struct {
			struct tval **items; /* owned references */
			int n, cap;
		} list;               /* LIST, TUPLE, DICT */
	} u;
	/* The value in the recorded graph this stands for: always set for
	 * tensors once recorded; for ints, set when derived from aten::size
	 * (a traced int); NULL for Python constants, which the interpreter
	 * materialises as prim::Constant / prim::ListConstruct on use. */
	struct ir_value *rec;
	/* A quantized tensor (quantize_per_tensor): t holds the integers
	 * (uint8 for quint8, int8 for qint8, int32 for qint32), real value
	 * = (q - zero) * scale. */
	struct {
		int on;
		double scale;
		int64_t zero;
	} q;
};

/* Constructors return a value with one reference; NULL only when out of
 * memory.  tv_tensor takes over the caller's reference to t. */
struct tval *tv_none(void);
struct tval *tv_int(int64_t i);
struct tval *tv_float(double f);
struct tval *tv_bool(int b);
struct tval *tv_str(const char *s);
struct tval *tv_tensor(struct gpu_tensor *t);
struct tval *tv_device(const char *s); /* TV_DEVICE "cpu", "cuda" */
struct tval *tv_list(enum tv_kind kind /* TV_LIST, TV_TUPLE or TV_DICT */);
/* Appends item (taking over the caller's reference).  0 or -1. */
int tv_list_push(struct tval *l, struct tval *item);
struct tval *tv_ref(struct tval *v);
void tv_unref(struct tval *v);

/* Argument readers for op implementations.  Each returns 0, or -1 after
 * reporting through trace_error (naming the op, the argument and what it
 * got).  Ints accept bools; floats accept ints and bools; an int list
 * accepts one int (broadcast to `n` entries when n > 0) and a list of
 * ints. */
struct trace_ctx;
int tv_get_int(struct trace_ctx *c, const struct tval *v, int64_t *out);
int tv_get_float(struct trace_ctx *c, const struct tval *v, double *out);
int tv_get_bool(struct trace_ctx *c, const struct tval *v, int *out);
/* up to `max` ints into out, count into *n */
int tv_get_ints(struct trace_ctx *c, const struct tval *v, int64_t *out,
		int max, int *n);
/* a torch ScalarType number (as aten ops take dtype=) as an ir_dtype;
 * None gives `dflt` */
int tv_get_dtype(struct trace_ctx *c, const struct tval *v,
		 enum ir_dtype dflt, enum ir_dtype *out);
/* torch's ScalarType numbering <-> ir_dtype */
enum ir_dtype tv_dtype_from_torch(int64_t scalar_type);
int64_t tv_dtype_to_torch(enum ir_dtype dt);
/* A tensor argument (NULL and no error for None when `optional`). */
int tv_get_tensor(struct trace_ctx *c, const struct tval *v, int optional,
		  struct gpu_tensor **out);

/* The interpreter's state, as ops see it. */
struct trace_ctx {
	const struct gpu_backend *be;
	struct diag *d;
	const struct ir_node *node; /* the node being run, for messages */
	uint64_t seed;              /* rand ops: deterministic stream */
	void *interp;               /* interp.c's own state */
};

/* Reports "OP (SCOPE): message" as one error line for the current node.
 * Returns -1, for `return trace_error(c, ...)`. */
int trace_error(struct trace_ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A gpu_* failure: reports gpu_last_error() for the node.  Returns -1. */
int trace_gpu_error(struct trace_ctx *c);
/* trace_error(c, "out of memory"). */
int trace_oom(struct trace_ctx *c);
/* A warning about kind, given once a run. */
void trace_warn_once(struct trace_ctx *c, const char *kind, const char *msg);
/* The run's exit code (EXIT_*): set (over any earlier one), read; 0 while
 * nothing failed. */
void trace_set_code(struct trace_ctx *c, int code);
int trace_code(struct trace_ctx *c);

/* What interp.c gives the prim ops (ops_prim.c): the value of a
 * prim::Constant node (tensor constants read as weights are), NULL after
 * reporting or when out of memory; and a recorded op of one input giving
 * a number (int(x) of a traced tensor), its output value. */
struct tval *trace_constant(struct trace_ctx *c, const struct ir_node *n);
struct ir_value *trace_record_scalar(struct trace_ctx *c, enum aten_op op,
				     struct ir_value *in,
				     enum ir_type_kind kind);

/* An op implementation: reads in[0..nin), sets out[0..nout) to new values
 * (one reference each).  Returns 0 or -1 after trace_error.  `n` is the
 * node being run (its kind, its output types from script, its attrs). */
typedef int (*trace_op_fn)(struct trace_ctx *c, const struct ir_node *n,
			   struct tval **in, int nin, struct tval **out,
			   int nout);

/* One row of an op table: the operator's registry id, its function and
 * TRACE_OP_* flags.  Each table ends with a row of OP_NONE. */
enum {
	/* a prim or scalar op that only moves Python values around: never
	 * recorded, even on a traced int (len, append, dict ops, ...) */
	TRACE_OP_PYTHON = 1 << 0,
};

struct trace_op {
	enum aten_op op;
	trace_op_fn fn;
	unsigned flags;
};

/* The op tables, one or more per file.  Which group each belongs to and
 * the order they are searched in is written once, in optable.c's
 * trace_tables; trace_find_op looks a node up in this order, first match
 * wins: the prim group always; the scalar group only when no input holds
 * a tensor (so that aten::add on two ints is Python arithmetic and
 * aten::add on a tensor is the tensor op); then the tensor group; then
 * the scalar group (an int plus a 0-d tensor).  An op that takes both
 * scalars and tensors (aten::add(Tensor, Scalar)) is found in the tensor
 * group because one input is a tensor. */
enum trace_group { TRACE_PRIM, TRACE_SCALAR, TRACE_TENSOR, TRACE_NGROUPS };

struct trace_table {
	const char *name; /* "trace_ops_nn", for tests and messages */
	const struct trace_op *rows;
	enum trace_group group;
};

extern const struct trace_op trace_ops_prim[];    /* ops_prim.c: prim::, aten::size, dim, len, __getitem__, append, Int, item... */
extern const struct trace_op trace_ops_dict[];    /* ops_dict.c: dicts */
extern const struct trace_op trace_ops_scalar[];  /* ops_scalar.c: Python arithmetic, comparisons and math on ints, floats, bools, strings; list(), sort */
extern const struct trace_op trace_ops_tensor[];  /* ops_tensor.c: elementwise, reductions, creation */
extern const struct trace_op trace_ops_shape[];   /* ops_shape.c: cat, repeat, flip, tril, pad, cross */
extern const struct trace_op trace_ops_view[];    /* ops_view.c: views, slicing, split */
extern const struct trace_op trace_ops_index[];   /* ops_index.c: gather, scatter, index, masks, nonzero */
extern const struct trace_op trace_ops_sort[];    /* ops_sort.c: sort, topk, unique */
extern const struct trace_op trace_ops_detect[];  /* ops_detect.c: nms, roi_align */
extern const struct trace_op trace_ops_im2col[];  /* ops_im2col.c: shuffles, im2col, col2im */
extern const struct trace_op trace_ops_nn[];      /* ops_nn.c: conv, pool, norms, linear, attention */
extern const struct trace_op trace_ops_math_host[]; /* ops_math_host.c: erfc, exp2, logaddexp, copysign, hypot, xlogy, addr on the host */
extern const struct trace_op trace_ops_index_host[]; /* ops_index_host.c: scatter_reduce, index_reduce on the host */
extern const struct trace_op trace_ops_special_host[]; /* ops_special_host.c: the orthogonal polynomials and special functions on the host */
extern const struct trace_op trace_ops_stats_host[]; /* ops_stats_host.c: block_diag, cartesian_prod, cov, corrcoef, nanmedian on the host */
extern const struct trace_op trace_ops_linalg_host[]; /* ops_linalg_host.c: cholesky, triangular solves, LU, solve, inv on the host */
/* a [n, n] := its inverse, as linalg_inv's trace kernel computes it
 * (getrf, then getrs of I); -1 when out of memory (ops_linalg_host.c) */
int trace_inv_host(double *a, int64_t n);
extern const struct trace_op trace_ops_hist_host[]; /* ops_hist_host.c: bincount, histc, histogram on the host */
extern const struct trace_op trace_ops_fft_host[]; /* ops_fft_host.c: fft_irfft, fft_hfft and their 2-d, n-d forms on the host */
extern const struct trace_op trace_ops_reduce_host[]; /* ops_reduce_host.c: nansum, nanmean, sum_to_size, trapezoid, cumulative_trapezoid, renorm on the host */
extern const struct trace_op trace_ops_products_host[]; /* ops_products_host.c: kron, vdot, vecdot, vander, multi_dot, matrix_power, combinations, fftshift, narrow_copy, as_strided_scatter on the host */
extern const struct trace_op trace_ops_linalg_orth_host[]; /* ops_linalg_orth_host.c: QR, symmetric eigenvalues, singular values and what is built on them, on the host */
/* The singular-value norms of x over its axes a0 < a1: kind 'n' the
 * nuclear norm, '2' the largest, '-' the smallest; NULL after reporting
 * (ops_linalg_orth_host.c) */
struct gpu_tensor *trace_svd_norm(struct trace_ctx *c, struct gpu_tensor *x,
				  char kind, int a0, int a1, int keep,
				  enum ir_dtype dt);

/* Every table in lookup order, ending with a NULL name (optable.c). */
extern const struct trace_table trace_tables[];

/* The row that runs op (trace_find_op's order, above), NULL when trace has
 * none; *group says which group it came from.  O(1): an index by id built
 * once, on the first call. */
const struct trace_op *trace_find_op(enum aten_op op, int has_tensor,
				     enum trace_group *group);
/* The first row of op in one group, NULL when the group has none. */
const struct trace_op *trace_group_op(enum aten_op op, enum trace_group g);

/* Shared helpers for ops (ops_util.c). */
/* torch's result type for a binary op: tensors' dtypes, or a Python
 * scalar's category (int, float, bool) which does not widen a tensor of
 * the same category (torch.result_type). */
enum ir_dtype trace_promote(const struct tval *a, const struct tval *b);
/* Broadcast shape of a and b, or -1 after reporting. */
int trace_broadcast_dims(struct trace_ctx *c, const struct gpu_tensor *a,
			 const struct gpu_tensor *b, int *rank,
			 int64_t *dims);
/* A view of t broadcast to (rank, dims) (stride 0 where expanded). */
struct gpu_tensor *trace_expand(const struct gpu_tensor *t, int rank,
				const int64_t *dims);
/* t cast to dt (a new reference to t when already dt). */
struct gpu_tensor *trace_cast(struct trace_ctx *c, struct gpu_tensor *t,
			      enum ir_dtype dt);
/* A tensor or scalar argument as a tensor of dtype dt (a scalar becomes a
 * rank-0 tensor).  NULL after reporting. */
struct gpu_tensor *trace_as_tensor(struct trace_ctx *c, const struct tval *v,
				   enum ir_dtype dt);
/* a and b (tensors or numbers) broadcast, on the host as doubles
 * (malloc'd *va, *vb), their float result dtype in *dt; 0, or -1 after
 * reporting (ops_math_host.c). */
int trace_pair_host(struct trace_ctx *c, struct tval *a, struct tval *b,
		    enum ir_dtype *dt, int *rank, int64_t *dims,
		    double **va, double **vb);
/* Whether n is an in-place form (aten::add_: the registry's
 * ATEN_OP_INPLACE), whose result is written into its first input. */
int trace_inplace(const struct ir_node *n);
/* The N of an operator whose registry name says Nd (max_pool2d,
 * max_pool2d_with_indices, upsample_bilinear2d, atleast_3d): its spatial
 * or minimum rank, 1 to 3; 0 when the name says none. */
int trace_op_dims(enum aten_op op);
/* Normalises axis against rank (negative counts from the end); -1 after
 * reporting when out of range. */
int trace_axis(struct trace_ctx *c, int64_t axis, int rank, int *out);
/* In-place writes: dst (any view) = src broadcast to dst's dims and
 * converted to dst's dtype.  A mapped archive weight gets a private copy
 * of its storage first (every view of it sees the write).  0 or -1 after
 * reporting. */
int trace_write_into(struct trace_ctx *c, struct gpu_tensor *dst,
		     const struct gpu_tensor *src);

/* Tensors for op implementations.  Those returning a tensor return a new
 * reference (gpu_free it), or NULL after reporting for the node. */
/* A new contiguous tensor on c->be (rank at most GPU_MAX_DIMS). */
struct gpu_tensor *trace_empty(struct trace_ctx *c, enum ir_dtype dt,
			       int rank, const int64_t *dims);
/* A view of t's storage with that geometry; trace_alias: t's own. */
struct gpu_tensor *trace_view(struct trace_ctx *c, const struct gpu_tensor *t,
			      int rank, const int64_t *dims,
			      const int64_t *strides, int64_t offset);
struct gpu_tensor *trace_alias(struct trace_ctx *c,
			       const struct gpu_tensor *t);
/* *out = a value holding t (taking t over); -1 when t is NULL. */
int trace_out(struct trace_ctx *c, struct tval **out, struct gpu_tensor *t);
/* t's elements on the host, row-major, converted to `as` (UNDEFINED:
 * t's dtype); malloc'd. */
void *trace_to_host(struct trace_ctx *c, const struct gpu_tensor *t,
		    enum ir_dtype as);
/* A new tensor of dtype dt (UNDEFINED: host_dt) from row-major host data
 * of dtype host_dt. */
struct gpu_tensor *trace_from_host(struct trace_ctx *c, enum ir_dtype dt,
				   int rank, const int64_t *dims,
				   enum ir_dtype host_dt, const void *data);

#endif

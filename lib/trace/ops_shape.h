/*
 * ops_shape.h - what the shape, view, indexing, sorting, detection and
 * im2col ops (ops_shape.c, ops_view.c, ops_index.c, ops_sort.c,
 * ops_detect.c, ops_im2col.c) share: argument helpers, copies, and the
 * view ops the others build on.
 */
#ifndef PT2ONNX_OPS_SHAPE_H
#define PT2ONNX_OPS_SHAPE_H

#include <stdint.h>

#include "trace_int.h"

#define ARG(i) ((i) < nin ? in[(i)] : NULL)

int sh_is_none(const struct tval *v);
int sh_is_list(const struct tval *v);
int sh_is_float_dtype(enum ir_dtype dt);
/* *mask (bit a set for each axis a) of v, one dim or a list of dims, in a
 * tensor of rank r; where twice, a dim is an error (or, with dups, allowed);
 * 0 or -1 (reported) */
int sh_dims_mask(struct trace_ctx *c, const struct tval *v, int r, int dups,
		 unsigned *mask);
/* a new contiguous tensor of dtype dt (UNDEFINED: t's) holding t's
 * elements: always new storage */
struct gpu_tensor *sh_copy_as(struct trace_ctx *c,
			      const struct gpu_tensor *t,
			      enum ir_dtype dt);
struct gpu_tensor *sh_copy(struct trace_ctx *c,
			   const struct gpu_tensor *t);
/* copies x into the (possibly strided) view dst: trace_write_into, which
 * also gives a mapped weight written in place its own storage */
int sh_copy_into(struct trace_ctx *c, const struct gpu_tensor *x,
		 struct gpu_tensor *dst);
int sh_fill(struct trace_ctx *c, struct gpu_tensor *y, double v);
/* a rank-0 tensor of dtype dt holding the scalar or 0-d tensor v */
struct gpu_tensor *sh_scalar(struct trace_ctx *c, const struct tval *v,
			     enum ir_dtype dt);
/* out = a list of n tensors (taking over the references) */
int sh_set_list(struct trace_ctx *c, struct tval **out,
		struct gpu_tensor **ts, int n);
/* out = a list of n new tensors, the i-th make(c, i, arg), made in order
 * (NULL: reported, the list and what was made are freed); 0 or -1 */
int sh_make_list(struct trace_ctx *c, struct tval **out, int n,
		 struct gpu_tensor *(*make)(struct trace_ctx *c, int i,
					    void *arg),
		 void *arg);
void sh_free_all(struct gpu_tensor **ts, int n);
/* the tensors of a Tensor[] argument into *ts (malloc'd array of
 * borrowed pointers) */
int sh_get_tensor_list(struct trace_ctx *c, const struct tval *v,
		       struct gpu_tensor ***ts, int *n);
/* out[0] = y for the functional form, y copied into in[0] for the
 * in-place form (kind ending in '_') */
int sh_finish(struct trace_ctx *c, const struct ir_node *n,
	      struct tval **in, struct gpu_tensor *y, struct tval **out);
int64_t sh_prod(const int64_t *d, int n);
/* x as shape (n, shape) with any -1 resolved: a view when the strides
 * allow, else a contiguous copy viewed (reshape's rule; view uses it too,
 * since our strides may differ from torch's where it copies) */
struct gpu_tensor *sh_reshape(struct trace_ctx *c,
			      const struct gpu_tensor *x, int n,
			      const int64_t *shape_in);
struct gpu_tensor *sh_permute(struct trace_ctx *c,
			      const struct gpu_tensor *x,
			      const int *perm);
struct gpu_tensor *sh_transpose(struct trace_ctx *c,
				const struct gpu_tensor *x, int a,
				int b);
struct gpu_tensor *sh_unsqueeze(struct trace_ctx *c,
				const struct gpu_tensor *x, int a);
struct gpu_tensor *sh_expand(struct trace_ctx *c,
			     const struct gpu_tensor *x, int rank,
			     const int64_t *dims_in);
/* the broadcast shape of n tensors */
int sh_broadcast_all(struct trace_ctx *c, struct gpu_tensor **ts, int n,
		     int *rank, int64_t *dims);
struct gpu_tensor *sh_select(struct trace_ctx *c,
			     const struct gpu_tensor *x, int a,
			     int64_t idx);
/* x[start : start + len * step : step] along axis a (in range) */
struct gpu_tensor *sh_narrow(struct trace_ctx *c,
			     const struct gpu_tensor *x, int a,
			     int64_t start, int64_t len, int64_t step);
/* Python's list indexing for aten::select.t / __getitem__ on lists */
int sh_list_select(struct trace_ctx *c, const struct tval *l,
		   const struct tval *iv, struct tval **out);
/* atleast_1d / 2d / 3d of one tensor */
struct gpu_tensor *sh_atleast(struct trace_ctx *c,
			      const struct gpu_tensor *x, int nd);
struct gpu_tensor *sh_pad(struct trace_ctx *c,
			  const struct gpu_tensor *x,
			  const int64_t *pads, enum gpu_pad_mode mode,
			  double value);
/* y = a op b for two tensors broadcast to (rank, dims), in dtype dt */
struct gpu_tensor *sh_binary(struct trace_ctx *c, enum gpu_binary op,
			     const struct gpu_tensor *a,
			     const struct gpu_tensor *b,
			     enum ir_dtype dt, int rank,
			     const int64_t *dims);
/* x (rank 0 is viewed as [1]) as a view of rank >= 1 */
struct gpu_tensor *sh_atleast1(struct trace_ctx *c,
			       const struct gpu_tensor *x);
/* t (consumed; NULL passes through) as a rank-0 view of its first element;
 * NULL where the view fails */
struct gpu_tensor *sh_rank0(struct trace_ctx *c, struct gpu_tensor *t);
/* index_select(self, dim, index) */
struct gpu_tensor *sh_index_select(struct trace_ctx *c,
				   const struct gpu_tensor *x, int a,
				   const struct gpu_tensor *index);

#endif

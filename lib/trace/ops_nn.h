/*
 * ops_nn.h - what the neural-network op files (ops_nn.c, ops_nn_seq.c)
 * share: small tensor helpers over the context's backend (beside
 * trace_int.h's trace_empty, trace_view, trace_out, trace_to_host ...),
 * and the op functions ops_nn_seq.c adds to ops_nn.c's table.
 *
 * Ownership: every helper returning a struct gpu_tensor * returns a new
 * reference (free it with gpu_free), or NULL after reporting through
 * trace_error / trace_gpu_error; input tensors are borrowed.
 */
#ifndef PT2ONNX_OPS_NN_H
#define PT2ONNX_OPS_NN_H

#include "trace_int.h"

/* t broadcast to (rank, dims) as a stride-0 view. */
struct gpu_tensor *nn_expand(struct trace_ctx *c, const struct gpu_tensor *t,
			     int rank, const int64_t *dims);
/* t with new dims (same numel): a view when t is contiguous, else a
 * contiguous copy viewed. */
struct gpu_tensor *nn_reshape(struct trace_ctx *c, struct gpu_tensor *t,
			      int rank, const int64_t *dims);
/* A contiguous copy of t (a new reference to t when contiguous). */
struct gpu_tensor *nn_contig(struct trace_ctx *c, struct gpu_tensor *t);
/* Views: dims a and b swapped; dim axis narrowed to [start, start+len);
 * a size-1 dim inserted at axis; dim axis (of size 1) removed; dims
 * permuted (out dim i = t's dim perm[i]). */
struct gpu_tensor *nn_transpose(struct trace_ctx *c,
				const struct gpu_tensor *t, int a, int b);
struct gpu_tensor *nn_narrow(struct trace_ctx *c, const struct gpu_tensor *t,
			     int axis, int64_t start, int64_t len);
struct gpu_tensor *nn_unsqueeze(struct trace_ctx *c,
				const struct gpu_tensor *t, int axis);
struct gpu_tensor *nn_squeeze(struct trace_ctx *c, const struct gpu_tensor *t,
			      int axis);
struct gpu_tensor *nn_permute(struct trace_ctx *c, const struct gpu_tensor *t,
			      const int *perm);
/* Elementwise: y = op(x; a, b); y = a op b (broadcast, computed in a's
 * dtype, or b's when only b is floating); y = a op s. */
struct gpu_tensor *nn_unary(struct trace_ctx *c, enum gpu_unary op,
			    const struct gpu_tensor *x, double a, double b);
struct gpu_tensor *nn_binary(struct trace_ctx *c, enum gpu_binary op,
			     struct gpu_tensor *a, struct gpu_tensor *b);
struct gpu_tensor *nn_binary_s(struct trace_ctx *c, enum gpu_binary op,
			       struct gpu_tensor *a, double s);
/* A rank-0 tensor holding v. */
struct gpu_tensor *nn_scalar(struct trace_ctx *c, enum ir_dtype dt, double v);
/* Reduction over the axes in mask; keepdim as torch. */
struct gpu_tensor *nn_reduce(struct trace_ctx *c, enum gpu_reduce op,
			     const struct gpu_tensor *x, uint32_t mask,
			     int keepdim, double param);
/* torch.matmul(a, op(b)) * alpha + beta * bias, where op(b) is b, or b
 * with its last two dims swapped when trans_b; bias broadcasts to the
 * result (NULL: none).  Batch dims broadcast; 1-d operands as torch. */
struct gpu_tensor *nn_matmul(struct trace_ctx *c, const struct gpu_tensor *a,
			     const struct gpu_tensor *b, int trans_b,
			     const struct gpu_tensor *bias, double alpha,
			     double beta);
/* torch.nn.functional.linear: x @ w^T + bias. */
struct gpu_tensor *nn_linear(struct trace_ctx *c, const struct gpu_tensor *x,
			     const struct gpu_tensor *w,
			     const struct gpu_tensor *bias);
struct gpu_tensor *nn_softmax(struct trace_ctx *c, const struct gpu_tensor *x,
			      int axis, int log);
struct gpu_tensor *nn_layer_norm(struct trace_ctx *c,
				 const struct gpu_tensor *x, int naxes,
				 const struct gpu_tensor *w,
				 const struct gpu_tensor *b, double eps);
/* be->copy(src, dst) with the error reported. */
int nn_copy(struct trace_ctx *c, const struct gpu_tensor *src,
	    struct gpu_tensor *dst);
int nn_is_float(enum ir_dtype dt);

/* ops_nn_seq.c: recurrent layers, attention, losses, distances, einsum. */
int nn_op_lstm(struct trace_ctx *c, const struct ir_node *n,
	       struct tval **in, int nin, struct tval **out, int nout);
int nn_op_gru(struct trace_ctx *c, const struct ir_node *n,
	      struct tval **in, int nin, struct tval **out, int nout);
int nn_op_rnn_tanh(struct trace_ctx *c, const struct ir_node *n,
		   struct tval **in, int nin, struct tval **out, int nout);
int nn_op_rnn_relu(struct trace_ctx *c, const struct ir_node *n,
		   struct tval **in, int nin, struct tval **out, int nout);
int nn_op_lstm_cell(struct trace_ctx *c, const struct ir_node *n,
		    struct tval **in, int nin, struct tval **out, int nout);
int nn_op_gru_cell(struct trace_ctx *c, const struct ir_node *n,
		   struct tval **in, int nin, struct tval **out, int nout);
int nn_op_rnn_tanh_cell(struct trace_ctx *c, const struct ir_node *n,
			struct tval **in, int nin, struct tval **out,
			int nout);
int nn_op_rnn_relu_cell(struct trace_ctx *c, const struct ir_node *n,
			struct tval **in, int nin, struct tval **out,
			int nout);
int nn_op_mha(struct trace_ctx *c, const struct ir_node *n,
	      struct tval **in, int nin, struct tval **out, int nout);
int nn_op_encoder_layer(struct trace_ctx *c, const struct ir_node *n,
			struct tval **in, int nin, struct tval **out,
			int nout);
int nn_op_scaled_dot_product_attention(struct trace_ctx *c,
				       const struct ir_node *n,
				       struct tval **in, int nin,
				       struct tval **out, int nout);
int nn_op_sdpa(struct trace_ctx *c, const struct ir_node *n,
	       struct tval **in, int nin, struct tval **out, int nout);
int nn_op_einsum(struct trace_ctx *c, const struct ir_node *n,
		 struct tval **in, int nin, struct tval **out, int nout);
int nn_op_tensordot(struct trace_ctx *c, const struct ir_node *n,
		    struct tval **in, int nin, struct tval **out, int nout);
int nn_op_bilinear(struct trace_ctx *c, const struct ir_node *n,
		   struct tval **in, int nin, struct tval **out, int nout);
int nn_op_cosine_similarity(struct trace_ctx *c, const struct ir_node *n,
			    struct tval **in, int nin, struct tval **out,
			    int nout);
int nn_op_pairwise_distance(struct trace_ctx *c, const struct ir_node *n,
			    struct tval **in, int nin, struct tval **out,
			    int nout);
int nn_op_cdist(struct trace_ctx *c, const struct ir_node *n,
		struct tval **in, int nin, struct tval **out, int nout);
int nn_op_bce_logits(struct trace_ctx *c, const struct ir_node *n,
		     struct tval **in, int nin, struct tval **out, int nout);
int nn_op_bce(struct trace_ctx *c, const struct ir_node *n,
	      struct tval **in, int nin, struct tval **out, int nout);
int nn_op_nll_loss(struct trace_ctx *c, const struct ir_node *n,
		   struct tval **in, int nin, struct tval **out, int nout);
int nn_op_cross_entropy(struct trace_ctx *c, const struct ir_node *n,
			struct tval **in, int nin, struct tval **out,
			int nout);
int nn_op_kl_div(struct trace_ctx *c, const struct ir_node *n,
		 struct tval **in, int nin, struct tval **out, int nout);
/* huber, hinge_embedding, margin_ranking, poisson_nll, soft_margin */
int nn_op_pw_loss2(struct trace_ctx *c, const struct ir_node *n,
		   struct tval **in, int nin, struct tval **out, int nout);
/* ctc_loss (both overloads): LossCTC.cpp's CPU kernel (ops_nn_seq.c) */
int nn_op_ctc_loss(struct trace_ctx *c, const struct ir_node *n,
		   struct tval **in, int nin, struct tval **out, int nout);
/* cosine_embedding_loss, triplet_margin_loss */
int nn_op_embed_loss(struct trace_ctx *c, const struct ir_node *n,
		     struct tval **in, int nin, struct tval **out, int nout);
/* multi_margin_loss, multilabel_margin_loss */
int nn_op_margin_loss(struct trace_ctx *c, const struct ir_node *n,
		      struct tval **in, int nin, struct tval **out, int nout);
int nn_op_mse_loss(struct trace_ctx *c, const struct ir_node *n,
		   struct tval **in, int nin, struct tval **out, int nout);
int nn_op_l1_loss(struct trace_ctx *c, const struct ir_node *n,
		  struct tval **in, int nin, struct tval **out, int nout);
int nn_op_smooth_l1_loss(struct trace_ctx *c, const struct ir_node *n,
			 struct tval **in, int nin, struct tval **out,
			 int nout);
int nn_op_embedding_bag(struct trace_ctx *c, const struct ir_node *n,
			struct tval **in, int nin, struct tval **out,
			int nout);
int nn_op_pack_padded(struct trace_ctx *c, const struct ir_node *n,
		      struct tval **in, int nin, struct tval **out, int nout);
int nn_op_pad_packed(struct trace_ctx *c, const struct ir_node *n,
		     struct tval **in, int nin, struct tval **out, int nout);
int nn_op_grid_sampler(struct trace_ctx *c, const struct ir_node *n,
		       struct tval **in, int nin, struct tval **out, int nout);
int nn_op_embedding_renorm(struct trace_ctx *c, const struct ir_node *n,
			   struct tval **in, int nin, struct tval **out,
			   int nout);

#endif

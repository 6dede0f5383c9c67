/*
 * symbolic_common.h - symbolic functions shared between the per-opset
 * tables (symbolic_opset9.c defines the elementwise, linear-algebra,
 * convolution and normalisation ones, symbolic_shape.c the shape,
 * indexing, reduction and creation ones).  Same contract as symbolic_fn
 * (lower_int.h).
 */
#ifndef PT2ONNX_SYMBOLIC_COMMON_H
#define PT2ONNX_SYMBOLIC_COMMON_H

#include "lower_int.h"

#define SYM(fn) int fn(struct lower_ctx *c, struct ir_node *n, \
		       struct ir_value **out)

/* torch's implicit promotion for inputs ia, ib of n. */
enum ir_dtype sym_result_type(struct lower_ctx *c, struct ir_node *n,
			      int ia, int ib);
/* Input i as a tensor of dtype dt: scalars become constants of dt. */
struct ir_value *sym_operand(struct lower_ctx *c, struct ir_node *n, int i,
			     enum ir_dtype dt);
/* n's inputs 0 and 1 (tensors or numbers) as tensors of the float
 * dtype torch computes a float function of them in (their promotion,
 * Float for integers and bools); 0, or 1 declined
 * (symbolic_long_tail.c). */
int sym_float_pair(struct lower_ctx *c, struct ir_node *n,
		   struct ir_value **a, struct ir_value **b);
/* bitwise and / or / xor of n's inputs 0 and 1 (lop And, Or, Xor; bop
 * BitwiseAnd ...): of bools lop, of integers bop from opset 18, bit by
 * bit before (symbolic_long_tail.c). */
int sym_bitwise(struct lower_ctx *c, struct ir_node *n, struct ir_value **out,
		const char *lop, const char *bop);
/* (x - mean) / sqrt(var + eps) over the last k dims. */
struct ir_value *sym_layer_norm_decomposed(struct lower_ctx *c,
					   struct ir_value *x, int k,
					   double eps);
/* y * weight + bias, n's inputs 1 and 2 (either None), per channel (dim
 * 1) of a rank-r y; each cast to dt unless dt is IR_DTYPE_UNDEFINED.
 * NULL when one is not a tensor (the caller declines). */
struct ir_value *sym_channel_affine(struct lower_ctx *c, struct ir_node *n,
				    struct ir_value *y, int r,
				    enum ir_dtype dt);
/* 0, 1, ..., cnt - 1 (cnt a 0-d number) as a 1-d Long: Range from opset
 * 11, NonZero of ones before (symbolic_shape.c). */
struct ir_value *sym_arange_count(struct lower_ctx *c, struct ir_value *cnt);
/* The constant scale_factors list at input i of n (sp floats) into sc:
 * from a prim::ListConstruct (script) or a prim::Constant float list
 * (trace); 1 when read, 0 when not (symbolic_shape.c). */
int sym_scale_factors(struct lower_ctx *c, struct ir_node *n, int i,
		      double *sc, int sp);
/* ceil_mode below opset 10: adds to the end pads (pads[sp..2sp)) what
 * makes floor mode count ceil mode's windows over x's last sp dims (exact
 * for static sizes, stride - 1 for unknown ones); 0, or 1 declined
 * (symbolic_opset9.c). */
int sym_pool_ceil_pads(struct lower_ctx *c, struct ir_value *x, int sp,
		       const int64_t *k, const int64_t *st, const int64_t *pad,
		       const int64_t *dil, int64_t *pads);
/* How a torch pooling over x's last sp dims with ceil_mode becomes an ONNX
 * one at c->opset: the pads, ONNX's ceil_mode, whether windows may reach
 * past the padding (an average with count_include_pad then needs torch's
 * divisor) and the axes whose count sym_pool_slice must cut to torch's;
 * 0, or 1 declined (symbolic_opset9.c). */
struct sym_pool_plan {
	int64_t pads[16];
	int64_t ceil;
	int reach;
	int slice[8];
};
int sym_pool_plan(struct lower_ctx *c, struct ir_value *x, int sp,
		  const int64_t *k, const int64_t *st, const int64_t *pad,
		  const int64_t *dil, int64_t ceil, struct sym_pool_plan *pl);
struct ir_value *sym_pool_slice(struct lower_ctx *c, struct ir_value *y,
				struct ir_value *x, int sp, const int64_t *k,
				const int64_t *st, const int64_t *pad,
				const int64_t *dil,
				const struct sym_pool_plan *pl);
/* The bool tril (upper 0) / triu (upper 1) mask of diagonal k over rows'
 * dim rd by cols' dim cd (symbolic_shape.c); NULL when it cannot. */
struct ir_value *sym_tri_bool(struct lower_ctx *c, struct ir_value *rows,
			      int rd, struct ir_value *cols, int cd,
			      int64_t k, int upper);
/* tril (upper 0) / triu (upper 1) without Trilu. */
int sym_tri_mask(struct lower_ctx *c, struct ir_node *n,
		 struct ir_value **out, int upper);
/* _pad_circular(self, pad): Slices and Concats (symbolic_extra_nn.c);
 * aten::pad's circular mode below opset 19 too. */
int sym_x_pad_circular(struct lower_ctx *c, struct ir_node *n,
		       struct ir_value **out);

SYM(sym_flatten); SYM(sym_view); SYM(sym_permute); SYM(sym_transpose);
SYM(sym_t); SYM(sym_cat); SYM(sym_stack); SYM(sym_chunk); SYM(sym_split);
SYM(sym_unbind); SYM(sym_slice); SYM(sym_select); SYM(sym_unsqueeze);
SYM(sym_squeeze); SYM(sym_expand); SYM(sym_expand_as); SYM(sym_mean);
SYM(sym_sum); SYM(sym_size); SYM(sym_numel); SYM(sym_dim); SYM(sym_zero);
SYM(sym_embedding); SYM(sym_masked_fill); SYM(sym_where); SYM(sym_tril);
SYM(sym_triu); SYM(sym_arange); SYM(sym_zeros); SYM(sym_ones);
SYM(sym_full); SYM(sym_zeros_like); SYM(sym_ones_like);
SYM(sym_full_like); SYM(sym_to); SYM(sym_type_as); SYM(sym_max);
SYM(sym_min); SYM(sym_argmax); SYM(sym_argmin); SYM(sym_topk);
SYM(sym_index_select); SYM(sym_constant_pad_nd); SYM(sym_pad);
SYM(sym_upsample_nearest); SYM(sym_upsample_bilinear); SYM(sym_int);
SYM(sym_float); SYM(sym_bool); SYM(sym_num_to_tensor); SYM(sym_repeat);
SYM(sym_gather11); SYM(sym_cumsum11); SYM(sym_tril14); SYM(sym_triu14);
SYM(sym_layer_norm17); SYM(sym_hardswish14); SYM(sym_amax); SYM(sym_amin);
SYM(sym_prod); SYM(sym_remainder); SYM(sym_var); SYM(sym_std);
SYM(sym_flip); SYM(sym_norm); SYM(sym_linalg_vector_norm); SYM(sym_sdpa);
SYM(sym_einsum12); SYM(sym_index);
/* A tensor of dtype dt and shape `shape` (1-d Long) filled with v
 * (ConstantOfShape; symbolic_extra_math.c). */
struct ir_value *sym_fill_shape(struct lower_ctx *c, struct ir_value *shape,
				double v, enum ir_dtype dt);
/* beta * self + alpha * prod, torch's addmm family (symbolic_long_tail.c):
 * inputs ibeta, ialpha (-1: absent) constant or run-time numbers; self
 * dropped for a constant beta of 0. */
int sym_beta_alpha(struct lower_ctx *c, struct ir_node *n,
		   struct ir_value **out, struct ir_value *self,
		   struct ir_value *prod, int ibeta, int ialpha);
/* tensor_split(self, sections | indices, ...) at dim: input 1 as
 * tensor_split reads it (symbolic_extra_shape.c). */
int sym_split_at(struct lower_ctx *c, struct ir_node *n,
		 struct ir_value **out, int64_t dim);
/* A reduction's dim (idim) and keepdim (ikeep) inputs (-1: absent;
 * None or []: k 0, all dims); 0, or 1 declined (symbolic_extra_math.c). */
int sym_red_args(struct lower_ctx *c, struct ir_node *n, int idim,
		 int ikeep, int64_t *axes, int *k, int64_t *keep);
/* The vector p-norm of x over axes (k 0: all; p 0, 1, 2, +-inf or any
 * other) (symbolic_extra_math.c). */
struct ir_value *sym_pnorm(struct lower_ctx *c, struct ir_value *x,
			   double p, const int64_t *axes, int k, int keep);
/* A loss's inputs 0 and 1 in their promoted float dtype and its
 * constant reduction at input ired (0 none, 1 mean, 2 sum); 0, or 1
 * declined (symbolic_long_tail.c). */
int sym_loss_args(struct lower_ctx *c, struct ir_node *n, int ired,
		  struct ir_value **a, struct ir_value **b, int64_t *red);
/* v reduced as a loss's reduction says (symbolic_long_tail.c). */
struct ir_value *sym_loss_reduce(struct lower_ctx *c, struct ir_value *v,
				 int64_t red);
/* The inverse of a [..., n, n] (rank r, float32 or float64): getrf and
 * getrs of I in ONNX Loops, opset 11 (symbolic_linalg.c); NULL declined. */
struct ir_value *sym_linalg_inverse(struct lower_ctx *c, struct ir_value *a,
				    int r);
/* U's diagonal [..., n] of getrf of a [..., n, n]^T (rank r, float32 or
 * float64) and whether its pivots make an odd permutation (bool [...]):
 * torch 1.13's linalg_det and slogdet factor the transpose of a
 * contiguous A (BatchLinearAlgebra.cpp, _linalg_det_out); opset 11
 * (symbolic_linalg.c). */
void sym_linalg_lu_diag(struct lower_ctx *c, struct ir_value *a, int r,
			struct ir_value **diag, struct ir_value **odd);
/* Why linalg_eigh, linalg_svd and the vector forms of symeig and svd are
 * refused (symbolic_long_tail.c, symbolic_linalg_orth.c). */
#define SYM_LAPACK_SIGNS "the eigenvectors' (singular vectors') signs " \
	"depend on LAPACK's algorithm (no rule fixes them); the values-only " \
	"forms (linalg_eigvalsh, linalg_svdvals, symeig without eigenvectors, " \
	"svd without compute_uv) are supported"
/* The singular-value norms of x over axes a0 != a1 (>= 0): kind 'n' the
 * nuclear norm, '2' the largest, '-' the smallest, in x's dtype (opset
 * 11: Jacobi in a Loop; symbolic_linalg_orth.c); 0, or 1 declined. */
int sym_svd_norm(struct lower_ctx *c, struct ir_value *x, char kind,
		 int64_t a0, int64_t a1, int keep, struct ir_value **out);
/* The matrix norm of x over axes a0, a1: sord 'fro' or 'nuc', else ord
 * +-1, +-2 or +-inf (symbolic_extra_math.c); 0, or 1 declined. */
int sym_matrix_norm(struct lower_ctx *c, struct ir_value *x, const char *sord,
		    double ord, int64_t a0, int64_t a1, int keep,
		    struct ir_value **out);
/* diagonal(self, offset=0, dim1=0, dim2=1) (symbolic_extra_shape.c). */
SYM(sym_x_diagonal);
/* symbolic_transformer.c */
SYM(sym_transformer_encoder_layer_fwd); SYM(sym_native_multi_head_attention);
SYM(sym_scaled_dot_product_attention);
/* symbolic_misc.c */
SYM(sym_bool_and); SYM(sym_bool_or); SYM(sym_bool_xor); SYM(sym_tensor);
SYM(sym_scatter); SYM(sym_index_put); SYM(sym_copy_);
/* symbolic_rnn.c */
SYM(sym_lstm); SYM(sym_gru); SYM(sym_rnn_tanh); SYM(sym_rnn_relu);
SYM(sym_lstm_cell); SYM(sym_gru_cell);
SYM(sym_pack_padded_sequence); SYM(sym_pad_packed_sequence);
SYM(sym_packed_size);
SYM(sym_rnn_tanh_cell); SYM(sym_rnn_relu_cell);

#endif

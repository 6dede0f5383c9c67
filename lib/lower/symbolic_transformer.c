/*
 * symbolic_transformer.c - attention: aten::scaled_dot_product_attention
 * (torch 2.x), torch 1.13's aten::_scaled_dot_product_attention, and the
 * fused fast-path ops that torch 1.13 records
 * for nn.TransformerEncoderLayer and nn.MultiheadAttention in eval mode
 * (aten::_transformer_encoder_layer_fwd, aten::_native_multi_head_attention),
 * which torch's own exporter has no symbolic for.  All share attend()
 * (scores, mask, Softmax, weighted values).  Lowered to plain ONNX
 * (MatMul, Add, Softmax, LayerNormalization from 17 or its decomposition
 * below; sdpa is one Attention node from 23), with the semantics of torch's Python reference paths
 * (TransformerEncoderLayer._sa_block/_ff_block, F.multi_head_attention_forward):
 * inputs are batch-first (B, L, E), q scaled by 1/sqrt(head_dim), a bool
 * mask masks out (its positions get probability 0, as torch's masked
 * softmax), a float mask is added.
 */
#include <math.h>
#include <string.h>

#include "symbolic_common.h"

#define IN(i) lw_in(c, n, (i))
#define T(i) lw_tensor(c, n, (i))

static struct ir_value *layer_norm(struct lower_ctx *c, struct ir_value *x,
				   struct ir_value *w, struct ir_value *b,
				   double eps)
{
	if (c->opset >= 17) {
		struct ir_value *in[3] = { x, w, b };
		struct ir_node *ln = b_node(c, "LayerNormalization", 3, in, 1);
		b_attr_i(c, ln, "axis", -1);
		b_attr_f(c, ln, "epsilon", eps);
		return b_done(c, ln);
	}
	struct ir_value *y = sym_layer_norm_decomposed(c, x, 1, eps);
	return b_op2(c, "Add", b_op2(c, "Mul", y, w), b);
}

/* gelu (erf form) or relu */
static struct ir_value *activation(struct lower_ctx *c, struct ir_value *x,
				   int gelu)
{
	if (!gelu)
		return b_op1(c, "Relu", x);
	enum ir_dtype dt = b_dtype(x);
	struct ir_value *e = b_op1(c, "Erf", b_op2(c, "Div", x,
				   b_const_scalar(c, M_SQRT2, dt, 0)));
	struct ir_value *h = b_op2(c, "Add", e, b_const_scalar(c, 1, dt, 0));
	return b_op2(c, "Mul", b_op2(c, "Mul", x, h),
		     b_const_scalar(c, 0.5, dt, 0));
}

/* (B, L, E) -> (B, H, L, D) */
static struct ir_value *heads(struct lower_ctx *c, struct ir_value *x,
			      int64_t h, int64_t d)
{
	static const int64_t perm[4] = { 0, 2, 1, 3 };
	int64_t shape[4] = { 0, 0, h, d };
	x = b_op2(c, "Reshape", x, b_const_i64s(c, shape, 4, 1));
	return b_transpose(c, x, perm, 4);
}

/* What attend() computes: softmax(q k^T [+ mask]) v over the last two
 * dims, any leading dims broadcast by MatMul. */
struct attn {
	struct ir_value *q, *k, *v; /* (..., L, E), (..., S, E), (..., S, Ev) */
	struct ir_value *qs, *ks;   /* q, k^T multiplied by these; NULL: 1 */
	struct ir_value *mask;      /* float: added to the scores; bool: see
				       mask_drops; NULL: none */
	int mask_drops;             /* a bool mask's true entries are masked
				       out (else they take part) */
	int causal;                 /* tril(ones(L, S)) as a bool mask that
				       keeps (no `mask` then) */
	struct ir_value *weights;   /* out: the probabilities (..., L, S) */
};

/* Attention as torch's exporter writes it (symbolic_opset14.py,
 * scaled_dot_product_attention): Transpose of k, MatMul of the scaled
 * operands, a bool mask turned into 0/-inf and added, Softmax on the last
 * axis, MatMul with v.  Positions a bool or causal mask drops get
 * probability 0 afterwards, so that a row masked out entirely is 0 (torch's
 * masked softmax and, from 2.5, its SDPA math path) rather than NaN.
 * NULL when k's rank is unknown (c->why set). */
static struct ir_value *attend(struct lower_ctx *c, struct attn *a)
{
	int r = b_rank(a->k);
	enum ir_dtype dt = b_dtype(a->q);
	if (dt == IR_DTYPE_UNDEFINED)
		dt = IR_DTYPE_FLOAT;
	if (r < 2) {
		lw_decline(c, "key's rank unknown");
		return NULL;
	}
	struct ir_value *q = a->q, *kt = b_swap_last2(c, a->k, r);
	if (a->qs)
		q = b_op2(c, "Mul", q, a->qs);
	if (a->ks)
		kt = b_op2(c, "Mul", kt, a->ks);
	struct ir_value *s = b_op2(c, "MatMul", q, kt);
	if (c->opset < 13 && b_rank(s) < 2) {
		lw_decline(c, "scores' rank unknown (Softmax before opset 13)");
		return NULL;
	}
	struct ir_value *keep = NULL, *mask = a->mask;
	if (a->causal) {
		int rq = b_rank(a->q);
		keep = rq >= 2 ? sym_tri_bool(c, a->q, rq - 2, a->k, r - 2, 0, 0)
			       : NULL;
		if (!keep) {
			lw_decline(c, "is_causal with lengths it cannot range");
			return NULL;
		}
	} else if (mask && b_dtype(mask) == IR_DTYPE_BOOL) {
		keep = a->mask_drops ? b_op1(c, "Not", mask) : mask;
	}
	if (keep)
		mask = b_op3(c, "Where", keep, b_const_scalar(c, 0, dt, 0),
			     b_const_scalar(c, -INFINITY, dt, 0));
	if (mask)
		s = b_op2(c, "Add", s, b_cast(c, mask, dt));
	struct ir_node *sm = b_node(c, "Softmax", 1, &s, 1);
	b_attr_i(c, sm, "axis", c->opset >= 13 ? -1 : b_rank(s) - 1);
	struct ir_value *p = b_done(c, sm);
	if (keep)
		p = b_op3(c, "Where", keep, p, b_const_scalar(c, 0, dt, 0));
	a->weights = p;
	return b_op2(c, "MatMul", p, a->v);
}

struct mha {
	int64_t e, h;
	struct ir_value *mask; /* NULL: none */
	int64_t mask_type;     /* 1 key padding (B, S), else attention mask */
	int need_weights, average;
	struct ir_value *weights; /* out: (B, L, S) or (B, H, L, S) */
};

/* Multi-head attention of q (B, L, E) over k, v (B, S, E) with the packed
 * projection wqkv (3E, E), bqkv (3E), out projection wo, bo. */
static struct ir_value *attention(struct lower_ctx *c, struct mha *m,
				  struct ir_value *q, struct ir_value *k,
				  struct ir_value *v, struct ir_value *wqkv,
				  struct ir_value *bqkv, struct ir_value *wo,
				  struct ir_value *bo)
{
	int64_t d = m->e / m->h;
	enum ir_dtype dt = b_dtype(q);
	if (dt == IR_DTYPE_UNDEFINED)
		dt = IR_DTYPE_FLOAT;
	struct ir_value *w[3], *b[3];
	b_split(c, wqkv, 0, NULL, 3, w);
	b_split(c, bqkv, 0, NULL, 3, b);
	struct ir_value *qp = heads(c, b_linear(c, q, w[0], b[0]), m->h, d);
	struct ir_value *kp = heads(c, b_linear(c, k, w[1], b[1]), m->h, d);
	struct ir_value *vp = heads(c, b_linear(c, v, w[2], b[2]), m->h, d);
	struct attn a = {
		.q = qp, .k = kp, .v = vp, .mask = m->mask, .mask_drops = 1,
		.qs = b_const_scalar(c, 1.0 / sqrt((double)d), dt, 0),
	};
	if (a.mask && m->mask_type == 1 && b_rank(a.mask) == 2) {
		int64_t ax[2] = { 1, 2 };
		a.mask = b_unsqueeze(c, a.mask, ax, 2); /* (B, 1, 1, S) */
	}
	struct ir_value *pv = attend(c, &a);
	if (!pv)
		return NULL;
	if (m->need_weights) {
		int64_t one = 1;
		m->weights = m->average
			     ? b_reduce(c, "ReduceMean", a.weights, &one, 1, 0)
			     : a.weights;
	}
	static const int64_t back[4] = { 0, 2, 1, 3 };
	struct ir_value *o = b_transpose(c, pv, back, 4);
	int64_t shape[3] = { 0, 0, m->e };
	o = b_op2(c, "Reshape", o, b_const_i64s(c, shape, 3, 1));
	return b_linear(c, o, wo, bo);
}

/* the mask and mask_type arguments at im, it */
static int read_mask(struct lower_ctx *c, struct ir_node *n, int im, int it,
		     struct mha *m)
{
	m->mask = NULL;
	m->mask_type = 0;
	if (lw_is_none(c, n, im))
		return 0;
	m->mask = T(im);
	if (!m->mask)
		return -1;
	if (!lw_is_none(c, n, it) && !lw_int(c, n, it, &m->mask_type))
		return -1;
	if (lw_is_none(c, n, it) && b_rank(m->mask) == 2 &&
	    b_rank(IN(0)) == 3)
		m->mask_type = 0;
	return 0;
}

/* _transformer_encoder_layer_fwd(src, embed_dim, num_heads, qkv_weight,
 * qkv_bias, proj_weight, proj_bias, use_gelu, norm_first, eps,
 * norm_weight_1, norm_bias_1, norm_weight_2, norm_bias_2, ffn_weight_1,
 * ffn_bias_1, ffn_weight_2, ffn_bias_2, mask, mask_type) */
SYM(sym_transformer_encoder_layer_fwd)
{
	struct mha m = { 0 };
	int64_t gelu, norm_first;
	double eps;
	struct ir_value *x = T(0);
	if (n->ninputs != 20)
		return lw_decline(c, "unexpected arguments");
	if (!lw_int(c, n, 1, &m.e) || !lw_int(c, n, 2, &m.h) ||
	    !lw_int(c, n, 7, &gelu) || !lw_int(c, n, 8, &norm_first) ||
	    !lw_float(c, n, 9, &eps))
		return lw_decline(c, "embed_dim, num_heads, use_gelu, "
				  "norm_first or eps not constant");
	if (m.h < 1 || m.e % m.h)
		return lw_decline(c, "embed_dim is not a multiple of num_heads");
	if (b_rank(x) != 3)
		return lw_decline(c, "the input is not (batch, seq, embed)");
	if (read_mask(c, n, 18, 19, &m))
		return lw_decline(c, "mask or mask_type not understood");
	struct ir_value *wqkv = T(3), *bqkv = T(4), *wo = T(5), *bo = T(6);
	struct ir_value *n1w = T(10), *n1b = T(11), *n2w = T(12), *n2b = T(13);
	struct ir_value *w1 = T(14), *b1 = T(15), *w2 = T(16), *b2 = T(17);
	struct ir_value *a, *f;
	if (norm_first) {
		a = layer_norm(c, x, n1w, n1b, eps);
		struct ir_value *y = attention(c, &m, a, a, a, wqkv, bqkv,
					       wo, bo);
		if (!y)
			return 1;
		x = b_op2(c, "Add", x, y);
		f = layer_norm(c, x, n2w, n2b, eps);
		f = b_linear(c, activation(c, b_linear(c, f, w1, b1), (int)gelu),
			   w2, b2);
		out[0] = b_op2(c, "Add", x, f);
	} else {
		a = attention(c, &m, x, x, x, wqkv, bqkv, wo, bo);
		if (!a)
			return 1;
		x = layer_norm(c, b_op2(c, "Add", x, a), n1w, n1b, eps);
		f = b_linear(c, activation(c, b_linear(c, x, w1, b1), (int)gelu),
			   w2, b2);
		out[0] = layer_norm(c, b_op2(c, "Add", x, f), n2w, n2b, eps);
	}
	return 0;
}

/* _native_multi_head_attention(query, key, value, embed_dim, num_head,
 * qkv_weight, qkv_bias, proj_weight, proj_bias, mask, need_weights,
 * average_attn_weights, mask_type) -> (out, weights) */
SYM(sym_native_multi_head_attention)
{
	struct mha m = { 0 };
	int64_t nw, avg;
	if (n->ninputs != 13 || n->noutputs != 2)
		return lw_decline(c, "unexpected arguments");
	if (!lw_int(c, n, 3, &m.e) || !lw_int(c, n, 4, &m.h) ||
	    !lw_int(c, n, 10, &nw) || !lw_int(c, n, 11, &avg))
		return lw_decline(c, "embed_dim, num_head, need_weights or "
				  "average_attn_weights not constant");
	if (m.h < 1 || m.e % m.h)
		return lw_decline(c, "embed_dim is not a multiple of num_head");
	struct ir_value *q = T(0), *k = T(1), *v = T(2);
	if (b_rank(q) != 3 || b_rank(k) != 3 || b_rank(v) != 3)
		return lw_decline(c, "the inputs are not (batch, seq, embed)");
	if (read_mask(c, n, 9, 12, &m))
		return lw_decline(c, "mask or mask_type not understood");
	m.need_weights = (int)nw;
	m.average = (int)avg;
	out[0] = attention(c, &m, q, k, v, T(5), T(6), T(7), T(8));
	out[1] = m.weights;
	return out[0] ? 0 : 1;
}

/* k or v (..., Hkv, S, E) with each head repeated r times in place
 * (repeat_interleave(r, -3)): Unsqueeze, Expand, then Reshape to
 * Shape(x)[:-3] + [-1] + Shape(x)[-2:]. */
static struct ir_value *repeat_heads(struct lower_ctx *c, struct ir_value *x,
				     int64_t r)
{
	int rk = b_rank(x);
	int64_t shape[64], ax = rk - 2, minus = -1;
	struct ir_value *sh = b_op1(c, "Shape", x), *parts[3];
	int k = 0;
	for (int i = 0; i < rk + 1; i++)
		shape[i] = 1;
	shape[rk - 2] = r;
	if (rk > 3)
		parts[k++] = b_slice(c, sh, 0, rk - 3, 0, 1);
	parts[k++] = b_const_i64s(c, &minus, 1, 1);
	parts[k++] = b_slice(c, sh, rk - 2, rk, 0, 1);
	struct ir_value *cat = b_concat(c, k, parts, 0);
	x = b_unsqueeze(c, x, &ax, 1);
	x = b_op2(c, "Expand", x, b_const_i64s(c, shape, rk + 1, 1));
	return b_op2(c, "Reshape", x, cat);
}

/* The factor of the scores: `scale` (have), else 1/sqrt(E) of q
 * (..., L, E); its square root when root, that of |scale| negated for q
 * (neg) when scale < 0, as torch's math path.  A 0-d constant when
 * known, else computed from Shape. */
static struct ir_value *score_scale(struct lower_ctx *c, struct ir_value *q,
				    int have, double scale, int root, int neg)
{
	enum ir_dtype dt = b_dtype(q);
	int64_t e = b_dim_size(q, -1);
	if (!have && e > 0) {
		have = 1;
		scale = 1 / sqrt((double)e);
	}
	if (have && root)
		return b_const_scalar(c, (neg && scale < 0 ? -1 : 1) *
				      sqrt(fabs(scale)), dt, 0);
	if (have)
		return b_const_scalar(c, scale, dt, 0);
	struct ir_value *s = b_op1(c, "Reciprocal", b_op1(c, "Sqrt",
		b_cast(c, b_dim(c, q, b_rank(q) - 1), dt)));
	return root ? b_op1(c, "Sqrt", s) : s;
}

/* dropout_p at input i: 0, or any value in eval mode (an exported model
 * runs in inference, where torch's exporter's Dropout is the identity). */
static int eval_dropout(struct lower_ctx *c, struct ir_node *n, int i)
{
	double p = 0;
	if (!lw_float(c, n, i, &p))
		return lw_decline(c, "dropout_p not constant");
	if (p != 0 && c->o->training != LOWER_TRAINING_EVAL)
		return lw_decline(c, "dropout in attention in training mode");
	return 0;
}

/* Whether dim i of x and dim j of y (negative: from the end) are known to
 * be the same. */
static int same_dim(const struct ir_value *x, int i, const struct ir_value *y,
		    int j)
{
	return ir_dim_same(x->type->dims[i < 0 ? b_rank(x) + i : i],
			   y->type->dims[j < 0 ? b_rank(y) + j : j]);
}

/* Whether a's rank-4 operands and mask (if any) are ones ONNX Runtime's
 * Attention takes as torch does: one batch, key and value with the same
 * heads and length (torch broadcasts other batch dims, ORT does not), and
 * a mask of rank 2 or 4 whose last two dims are the query's length and the
 * key's, as they are (ORT 1.30 broadcasts a mask's leading dims only: a
 * (1, H, 1, S) mask is refused at run time). */
static int fusable(const struct attn *a)
{
	int r = a->mask ? b_rank(a->mask) : 0;
	if (!same_dim(a->q, 0, a->k, 0) || !same_dim(a->k, 0, a->v, 0) ||
	    !same_dim(a->k, 1, a->v, 1) || !same_dim(a->k, 2, a->v, 2))
		return 0;
	return !a->mask || ((r == 2 || r == 4) &&
			    same_dim(a->mask, -2, a->q, -2) &&
			    same_dim(a->mask, -1, a->k, -2));
}

/* ONNX's Attention (opset 23) for sdpa on rank-4 (B, H, L, E) operands: the
 * same product as attend(), in one node.  Its semantics match torch 2.x's
 * at every point this uses (checked against ONNX Runtime 1.30 at 23-26):
 * scale defaults to 1/sqrt(E) (scale > 0 here: a negative one is
 * decomposed), a bool mask's true entries take part and a float mask is
 * added, is_causal is tril(ones(L, S)) (upper-left, as torch), key/value
 * with fewer heads than the query are shared by groups of query heads (as
 * enable_gqa's repeat_interleave), and a row a bool mask drops entirely
 * is 0 (torch's math path from 2.5); what fusable() refuses is decomposed.
 * scale 0: the default. */
static struct ir_value *fused_attention(struct lower_ctx *c,
					const struct attn *a, double scale)
{
	struct ir_value *in[4] = { a->q, a->k, a->v, a->mask };
	if (a->mask && b_dtype(a->mask) != IR_DTYPE_BOOL &&
	    b_dtype(a->mask) != b_dtype(a->q))
		in[3] = b_cast(c, a->mask, b_dtype(a->q));
	struct ir_node *at = b_node(c, "Attention", a->mask ? 4 : 3, in, 1);
	if (a->causal)
		b_attr_i(c, at, "is_causal", 1);
	if (scale > 0)
		b_attr_f(c, at, "scale", scale);
	return b_done(c, at);
}

/* scaled_dot_product_attention(query, key, value, attn_mask=None,
 * dropout_p=0., is_causal=False, *, scale=None, enable_gqa=False), torch
 * 2.x: from opset 23 one Attention node where fused_attention() says it
 * matches; else as torch's exporter (symbolic_opset14.py), q and k^T each
 * scaled by sqrt(scale); with enable_gqa and fewer key/value heads than
 * query heads, each k/v head repeated for its group of query heads, as
 * torch's math path does (repeat_interleave on dim -3). */
SYM(sym_scaled_dot_product_attention)
{
	struct attn a = { .q = T(0), .k = T(1), .v = T(2) };
	int64_t causal = 0, gqa = 0;
	double scale = 0;
	if (n->ninputs < 3 || !a.q || !a.k || !a.v)
		return lw_decline(c, "query, key or value missing");
	if (n->ninputs > 4 && eval_dropout(c, n, 4))
		return 1;
	if (n->ninputs > 5 && !lw_int(c, n, 5, &causal))
		return lw_decline(c, "is_causal not constant");
	int have = n->ninputs > 6 && !lw_is_none(c, n, 6);
	if (have && !lw_float(c, n, 6, &scale))
		return lw_decline(c, "scale not constant");
	if (n->ninputs > 7 && !lw_int(c, n, 7, &gqa))
		return lw_decline(c, "enable_gqa not constant");
	if (n->ninputs > 3 && !lw_is_none(c, n, 3)) {
		if (causal) /* torch refuses the pair too */
			return lw_decline(c, "attn_mask and is_causal together");
		a.mask = T(3);
		if (!a.mask)
			return lw_decline(c, "attn_mask is not a tensor");
	}
	a.causal = (int)causal;
	if (gqa) {
		int64_t hq = b_dim_size(a.q, -3), hk = b_dim_size(a.k, -3),
			hv = b_dim_size(a.v, -3);
		if (hq < 1 || hk < 1 || hv < 1)
			return lw_decline(c, "enable_gqa with head counts unknown");
		if (hq % hk || hq % hv)
			return lw_decline(c, "query heads not a multiple of "
					  "key/value heads");
	}
	if (c->opset >= 23 && (!have || scale > 0) && b_rank(a.q) == 4 &&
	    b_rank(a.k) == 4 && b_rank(a.v) == 4 && fusable(&a)) {
		out[0] = fused_attention(c, &a, have ? scale : 0);
		return 0;
	}
	if (gqa) {
		int64_t hq = b_dim_size(a.q, -3), hk = b_dim_size(a.k, -3),
			hv = b_dim_size(a.v, -3);
		if (hk != hq)
			a.k = repeat_heads(c, a.k, hq / hk);
		if (hv != hq)
			a.v = repeat_heads(c, a.v, hq / hv);
	}
	a.qs = score_scale(c, a.q, have, scale, 1, 1);
	a.ks = have && scale < 0 ? score_scale(c, a.q, have, scale, 1, 0)
				 : a.qs;
	out[0] = attend(c, &a);
	return out[0] ? 0 : 1;
}

/* _scaled_dot_product_attention(query, key, value, attn_mask, dropout_p,
 * need_attn_weights, is_causal) -> (out, weights), torch 1.13: q scaled
 * by 1/sqrt(E) as its math path. */
SYM(sym_sdpa)
{
	struct attn a = { .q = T(0), .k = T(1), .v = T(2) };
	int64_t causal = 0;
	if (n->ninputs < 7 || !a.q || !a.k || !a.v)
		return lw_decline(c, "unexpected arguments");
	if (eval_dropout(c, n, 4))
		return 1;
	if (!lw_int(c, n, 6, &causal))
		return lw_decline(c, "is_causal not constant");
	if (!lw_is_none(c, n, 3) && !(a.mask = T(3)))
		return lw_decline(c, "attn_mask is not a tensor");
	if (a.mask && causal)
		return lw_decline(c, "attn_mask and is_causal together");
	a.causal = (int)causal;
	a.qs = score_scale(c, a.q, 0, 0, 0, 0);
	out[0] = attend(c, &a);
	if (n->noutputs > 1)
		out[1] = a.weights;
	return out[0] ? 0 : 1;
}

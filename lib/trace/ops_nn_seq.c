/*
 * ops_nn_seq.c - aten op implementations for `trace` (see trace_int.h,
 * ops_nn.h), the composite ones: recurrent layers (lstm, gru, rnn_tanh,
 * rnn_relu, their packed forms and cells), attention (the fast-path
 * _native_multi_head_attention and _transformer_encoder_layer_fwd that
 * torch 1.13 records in eval, _scaled_dot_product_attention, torch 2.x's
 * scaled_dot_product_attention), einsum,
 * tensordot, bilinear, distances, losses, grid_sampler and
 * embedding_renorm_.
 *
 * They are built from the backend's kernels (matmul, elementwise,
 * softmax, layer norm) with torch 1.13's formulas; losses and a few
 * index-driven ops compute on the host in double (their tensors are
 * small), then upload the result.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ops_nn.h"
#include "ops_shape.h"

static void free_all(struct gpu_tensor **t, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		gpu_free(t[i]);
		t[i] = NULL;
	}
}

static int opt_tensor(struct trace_ctx *c, struct tval **in, int nin, int i,
		      struct gpu_tensor **t)
{
	if (i >= nin) {
		*t = NULL;
		return 0;
	}
	return tv_get_tensor(c, in[i], 1, t);
}

static int list_tensors(struct trace_ctx *c, const struct tval *v,
			struct gpu_tensor ***out, int *n)
{
	int i;

	if (!v || (v->kind != TV_LIST && v->kind != TV_TUPLE))
		return trace_error(c, "expected a list of tensors");
	*n = v->u.list.n;
	*out = calloc(*n > 0 ? *n : 1, sizeof(**out));
	if (!*out)
		return trace_error(c, "out of memory");
	for (i = 0; i < *n; i++)
		if (tv_get_tensor(c, v->u.list.items[i], 0, &(*out)[i])) {
			free(*out);
			*out = NULL;
			return -1;
		}
	return 0;
}

/* --- recurrent layers -------------------------------------------------- */

enum cell_kind { CELL_LSTM, CELL_GRU, CELL_TANH, CELL_RELU };

struct cell_w {
	const struct gpu_tensor *w_ih, *w_hh, *b_ih, *b_hh, *w_hr;
};

static int cell_gates(enum cell_kind k)
{
	return k == CELL_LSTM ? 4 : k == CELL_GRU ? 3 : 1;
}

/* One step.  xg: x @ w_ih^T + b_ih (+ b_hh for LSTM and plain RNNs)
 * [B, G*H]; h [B, Hout], cs [B, H] (LSTM) -> *hn, *cn (new tensors). */
static int cell_step(struct trace_ctx *c, enum cell_kind k,
		     const struct cell_w *w, int bias_folded,
		     struct gpu_tensor *xg, struct gpu_tensor *h,
		     struct gpu_tensor *cs, struct gpu_tensor **hn,
		     struct gpu_tensor **cn)
{
	struct gpu_tensor *t[16] = { NULL };
	int64_t G = w->w_hh->dims[0];
	int rc = -1;

	*hn = NULL;
	if (cn)
		*cn = NULL;
	if (k == CELL_LSTM) {
		int64_t hs = G / 4;

		/* gates = xg + h @ w_hh^T (+ b_hh) */
		t[0] = nn_matmul(c, h, w->w_hh, 1, xg, 1, 1);
		if (!t[0])
			goto out;
		if (!bias_folded && w->b_hh) {
			t[1] = nn_binary(c, GPU_ADD, t[0], (struct gpu_tensor *)
					 w->b_hh);
			if (!t[1])
				goto out;
			gpu_free(t[0]);
			t[0] = t[1];
			t[1] = NULL;
		}
		t[1] = nn_narrow(c, t[0], 1, 0, hs);
		t[2] = t[1] ? nn_narrow(c, t[0], 1, hs, hs) : NULL;
		t[3] = t[2] ? nn_narrow(c, t[0], 1, 2 * hs, hs) : NULL;
		t[4] = t[3] ? nn_narrow(c, t[0], 1, 3 * hs, hs) : NULL;
		if (!t[4])
			goto out;
		t[5] = nn_unary(c, GPU_SIGMOID, t[1], 0, 0);  /* i */
		t[6] = t[5] ? nn_unary(c, GPU_SIGMOID, t[2], 0, 0) : NULL; /* f */
		t[7] = t[6] ? nn_unary(c, GPU_TANH, t[3], 0, 0) : NULL;  /* g */
		t[8] = t[7] ? nn_unary(c, GPU_SIGMOID, t[4], 0, 0) : NULL; /* o */
		t[9] = t[8] ? nn_binary(c, GPU_MUL, t[6], cs) : NULL;
		t[10] = t[9] ? nn_binary(c, GPU_MUL, t[5], t[7]) : NULL;
		*cn = t[10] ? nn_binary(c, GPU_ADD, t[9], t[10]) : NULL;
		t[11] = *cn ? nn_unary(c, GPU_TANH, *cn, 0, 0) : NULL;
		t[12] = t[11] ? nn_binary(c, GPU_MUL, t[8], t[11]) : NULL;
		if (!t[12])
			goto out;
		if (w->w_hr) {
			*hn = nn_matmul(c, t[12], w->w_hr, 1, NULL, 1, 0);
		} else {
			*hn = t[12];
			t[12] = NULL;
		}
	} else if (k == CELL_GRU) {
		int64_t hs = G / 3;

		t[0] = nn_matmul(c, h, w->w_hh, 1, w->b_hh, 1, 1); /* gh */
		if (!t[0])
			goto out;
		t[1] = nn_narrow(c, xg, 1, 0, hs);
		t[2] = nn_narrow(c, xg, 1, hs, hs);
		t[3] = nn_narrow(c, xg, 1, 2 * hs, hs);
		t[4] = nn_narrow(c, t[0], 1, 0, hs);
		t[5] = nn_narrow(c, t[0], 1, hs, hs);
		t[6] = nn_narrow(c, t[0], 1, 2 * hs, hs);
		if (!t[1] || !t[2] || !t[3] || !t[4] || !t[5] || !t[6])
			goto out;
		t[7] = nn_binary(c, GPU_ADD, t[1], t[4]);
		t[8] = t[7] ? nn_unary(c, GPU_SIGMOID, t[7], 0, 0) : NULL; /* r */
		gpu_free(t[7]);
		t[7] = t[8] ? nn_binary(c, GPU_ADD, t[2], t[5]) : NULL;
		t[9] = t[7] ? nn_unary(c, GPU_SIGMOID, t[7], 0, 0) : NULL; /* z */
		gpu_free(t[7]);
		t[7] = t[9] ? nn_binary(c, GPU_MUL, t[8], t[6]) : NULL;
		t[10] = t[7] ? nn_binary(c, GPU_ADD, t[3], t[7]) : NULL;
		t[11] = t[10] ? nn_unary(c, GPU_TANH, t[10], 0, 0) : NULL; /* n */
		/* h' = n + z * (h - n) */
		t[12] = t[11] ? nn_binary(c, GPU_SUB, h, t[11]) : NULL;
		t[13] = t[12] ? nn_binary(c, GPU_MUL, t[9], t[12]) : NULL;
		*hn = t[13] ? nn_binary(c, GPU_ADD, t[11], t[13]) : NULL;
		if (!*hn)
			goto out;
	} else {
		t[0] = nn_matmul(c, h, w->w_hh, 1, xg, 1, 1);
		if (!t[0])
			goto out;
		if (!bias_folded && w->b_hh) {
			t[1] = nn_binary(c, GPU_ADD, t[0], (struct gpu_tensor *)
					 w->b_hh);
			if (!t[1])
				goto out;
			gpu_free(t[0]);
			t[0] = t[1];
			t[1] = NULL;
		}
		*hn = nn_unary(c, k == CELL_TANH ? GPU_TANH : GPU_RELU, t[0],
			       0, 0);
		if (!*hn)
			goto out;
	}
	rc = 0;
out:
	free_all(t, 16);
	if (rc) {
		gpu_free(*hn);
		*hn = NULL;
		if (cn) {
			gpu_free(*cn);
			*cn = NULL;
		}
	}
	return rc;
}

/* One direction of one layer over a sequence laid out as rows of x2
 * [rows, I]: step s covers rows [off[s], off[s] + bs[s]) (batch sizes
 * non-increasing).  h [B, Hout], cs [B, H] are updated in place; each
 * step's h goes to y's rows, columns [col, col + Hout). */
static int rnn_dir(struct trace_ctx *c, enum cell_kind k,
		   const struct cell_w *w, struct gpu_tensor *x2,
		   const int64_t *off, const int64_t *bs, int64_t T,
		   int reverse, struct gpu_tensor *h, struct gpu_tensor *cs,
		   struct gpu_tensor *y, int64_t col)
{
	struct gpu_tensor *xg = NULL, *xgb = NULL;
	int64_t s, hout = h->dims[1];
	int fold = k != CELL_GRU && w->b_hh, rc = -1;

	xg = nn_linear(c, x2, w->w_ih, w->b_ih);
	if (!xg)
		return -1;
	if (fold) {
		xgb = nn_binary(c, GPU_ADD, xg, (struct gpu_tensor *)w->b_hh);
		gpu_free(xg);
		xg = xgb;
		xgb = NULL;
		if (!xg)
			return -1;
	}
	for (s = 0; s < T; s++) {
		int64_t t = reverse ? T - 1 - s : s, b = bs[t];
		struct gpu_tensor *xt, *hp, *cp = NULL, *hn = NULL, *cn = NULL;
		struct gpu_tensor *yv = NULL, *yc = NULL;
		int err;

		xt = nn_narrow(c, xg, 0, off[t], b);
		hp = xt ? nn_narrow(c, h, 0, 0, b) : NULL;
		if (hp && cs)
			cp = nn_narrow(c, cs, 0, 0, b);
		err = !hp || (cs && !cp) ||
		      cell_step(c, k, w, fold, xt, hp, cp, &hn,
				cs ? &cn : NULL);
		if (!err)
			err = nn_copy(c, hn, hp) || (cs && nn_copy(c, cn, cp));
		if (!err) {
			yv = nn_narrow(c, y, 0, off[t], b);
			yc = yv ? nn_narrow(c, yv, 1, col, hout) : NULL;
			err = !yc || nn_copy(c, hn, yc);
		}
		gpu_free(xt);
		gpu_free(hp);
		gpu_free(cp);
		gpu_free(hn);
		gpu_free(cn);
		gpu_free(yv);
		gpu_free(yc);
		if (err)
			goto out;
	}
	rc = 0;
out:
	gpu_free(xg);
	return rc;
}

/* aten::lstm/gru/rnn_tanh/rnn_relu, .input and .data overloads */
static int rnn_op(struct trace_ctx *c, enum cell_kind k, struct tval **in,
		  int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x, *bsz = NULL, *h0 = NULL, *c0 = NULL;
	struct gpu_tensor **params = NULL, **hx = NULL;
	struct gpu_tensor *hn = NULL, *cn = NULL, *cur = NULL, *y = NULL;
	struct gpu_tensor *xt = NULL;
	int64_t *off = NULL, *bs = NULL, T, B, rows, layers, dims[3];
	int packed, np, nhx = 0, has_bias, bidir, batch_first = 0, per, D;
	int i, l, d, rc = -1, a;
	double drop;
	int train;

	if (nin < 9)
		return trace_error(c, "expected 9 arguments");
	packed = in[3] && in[3]->kind == TV_LIST;
	a = packed ? 1 : 0;
	if (tv_get_tensor(c, in[0], 0, &x))
		return -1;
	if (packed && tv_get_tensor(c, in[1], 0, &bsz))
		return -1;
	if (k == CELL_LSTM) {
		if (list_tensors(c, in[1 + a], &hx, &nhx))
			return -1;
		if (nhx != 2) {
			free(hx);
			return trace_error(c, "lstm expects two hidden states");
		}
		h0 = hx[0];
		c0 = hx[1];
		free(hx);
		hx = NULL;
	} else if (tv_get_tensor(c, in[1 + a], 0, &h0)) {
		return -1;
	}
	if (list_tensors(c, in[2 + a], &params, &np))
		return -1;
	if (tv_get_bool(c, in[3 + a], &has_bias) ||
	    tv_get_int(c, in[4 + a], &layers) ||
	    tv_get_float(c, in[5 + a], &drop) ||
	    tv_get_bool(c, in[6 + a], &train) ||
	    tv_get_bool(c, in[7 + a], &bidir) ||
	    (!packed && tv_get_bool(c, in[8], &batch_first)))
		goto out;
	if (train && drop > 0 && layers > 1) {
		trace_error(c, "dropout between layers in training mode is "
			    "random: trace the model in eval mode");
		goto out;
	}
	D = bidir ? 2 : 1;
	if (layers < 1 || np % (layers * D)) {
		trace_error(c, "%d parameters for %lld layers", np,
			    (long long)layers);
		goto out;
	}
	per = np / (int)(layers * D);
	if (per != (has_bias ? 4 : 2) && !(k == CELL_LSTM &&
					   per == (has_bias ? 5 : 3))) {
		trace_error(c, "%d parameters per layer and direction", per);
		goto out;
	}
	/* the sequence as rows [T*B, I] or packed [sum(bs), I] */
	if (packed) {
		double *bv;

		if (x->rank != 2 || bsz->rank != 1) {
			trace_error(c, "packed data must be 2-D with 1-D "
				    "batch sizes");
			goto out;
		}
		T = bsz->dims[0];
		bv = trace_to_host(c, bsz, IR_DTYPE_DOUBLE);
		off = malloc(sizeof(*off) * (size_t)(T + 1));
		bs = malloc(sizeof(*bs) * (size_t)(T + 1));
		if (!bv || !off || !bs) {
			free(bv);
			if (off && bs)
				trace_error(c, "out of memory");
			goto out;
		}
		rows = 0;
		for (i = 0; i < T; i++) {
			bs[i] = (int64_t)bv[i];
			off[i] = rows;
			rows += bs[i];
		}
		free(bv);
		B = T > 0 ? bs[0] : 0;
		if (rows != x->dims[0]) {
			trace_error(c, "batch sizes add up to %lld, data has "
				    "%lld rows", (long long)rows,
				    (long long)x->dims[0]);
			goto out;
		}
		cur = trace_alias(c, x);
	} else {
		if (x->rank != 3) {
			trace_error(c, "input must have 3 dimensions, got %d",
				    x->rank);
			goto out;
		}
		xt = batch_first ? nn_transpose(c, x, 0, 1) : trace_alias(c, x);
		if (!xt)
			goto out;
		T = xt->dims[0];
		B = xt->dims[1];
		rows = T * B;
		off = malloc(sizeof(*off) * (size_t)(T + 1));
		bs = malloc(sizeof(*bs) * (size_t)(T + 1));
		if (!off || !bs) {
			trace_error(c, "out of memory");
			goto out;
		}
		for (i = 0; i < T; i++) {
			off[i] = i * B;
			bs[i] = B;
		}
		dims[0] = rows;
		dims[1] = xt->dims[2];
		cur = nn_reshape(c, xt, 2, dims);
	}
	if (!cur)
		goto out;
	if (h0->rank != 3 || h0->dims[0] != layers * D || h0->dims[1] != B ||
	    (c0 && (c0->rank != 3 || c0->dims[0] != layers * D ||
		    c0->dims[1] != B))) {
		trace_error(c, "expected hidden size (%lld, %lld, *), got a "
			    "tensor of rank %d", (long long)(layers * D),
			    (long long)B, h0->rank);
		goto out;
	}
	hn = trace_empty(c, x->dtype, 3, h0->dims);
	if (!hn || nn_copy(c, h0, hn))
		goto out;
	if (c0) {
		cn = trace_empty(c, x->dtype, 3, c0->dims);
		if (!cn || nn_copy(c, c0, cn))
			goto out;
	}
	for (l = 0; l < layers; l++) {
		int64_t hout = h0->dims[2];

		dims[0] = rows;
		dims[1] = D * hout;
		y = trace_empty(c, x->dtype, 2, dims);
		if (!y)
			goto out;
		for (d = 0; d < D; d++) {
			struct gpu_tensor **p = params + (l * D + d) * per;
			struct gpu_tensor *hv, *hs = NULL, *cv = NULL;
			struct gpu_tensor *cs2 = NULL;
			struct cell_w w;
			int err;

			memset(&w, 0, sizeof(w));
			w.w_ih = p[0];
			w.w_hh = p[1];
			if (has_bias) {
				w.b_ih = p[2];
				w.b_hh = p[3];
			}
			if (per == (has_bias ? 5 : 3))
				w.w_hr = p[per - 1];
			if (w.w_ih->rank != 2 || w.w_hh->rank != 2 ||
			    w.w_ih->dims[1] != cur->dims[1] ||
			    w.w_hh->dims[0] != w.w_ih->dims[0] ||
			    w.w_ih->dims[0] % cell_gates(k) ||
			    w.w_hh->dims[1] != hout ||
			    (c0 && c0->dims[2] * cell_gates(k) !=
			     w.w_ih->dims[0]) ||
			    (w.w_hr && (w.w_hr->rank != 2 ||
					w.w_hr->dims[0] != hout))) {
				trace_error(c, "layer %d: weights do not fit "
					    "input size %lld and hidden size "
					    "%lld", l, (long long)cur->dims[1],
					    (long long)hout);
				goto out;
			}
			hv = nn_narrow(c, hn, 0, l * D + d, 1);
			hs = hv ? nn_squeeze(c, hv, 0) : NULL;
			gpu_free(hv);
			if (cn) {
				cv = nn_narrow(c, cn, 0, l * D + d, 1);
				cs2 = cv ? nn_squeeze(c, cv, 0) : NULL;
				gpu_free(cv);
			}
			err = !hs || (cn && !cs2) ||
			      rnn_dir(c, k, &w, cur, off, bs, T, d == 1, hs,
				      cs2, y, d * hout);
			gpu_free(hs);
			gpu_free(cs2);
			if (err)
				goto out;
		}
		gpu_free(cur);
		cur = y;
		y = NULL;
	}
	/* outputs */
	if (packed) {
		out[0] = tv_tensor(cur);
		cur = NULL;
	} else {
		struct gpu_tensor *o3;

		dims[0] = T;
		dims[1] = B;
		dims[2] = cur->dims[1];
		o3 = nn_reshape(c, cur, 3, dims);
		if (o3 && batch_first) {
			struct gpu_tensor *tt = nn_transpose(c, o3, 0, 1);

			gpu_free(o3);
			o3 = tt;
		}
		if (trace_out(c, out, o3))
			goto out;
	}
	if (!out[0])
		goto out;
	if (nout > 1) {
		out[1] = tv_tensor(hn);
		hn = NULL;
	}
	if (nout > 2 && cn) {
		out[2] = tv_tensor(cn);
		cn = NULL;
	}
	rc = 0;
out:
	free(params);
	free(off);
	free(bs);
	gpu_free(hn);
	gpu_free(cn);
	gpu_free(cur);
	gpu_free(y);
	gpu_free(xt);
	return rc;
}

int nn_op_lstm(struct trace_ctx *c, const struct ir_node *n,
	       struct tval **in, int nin, struct tval **out, int nout)
{
	(void)n;
	return rnn_op(c, CELL_LSTM, in, nin, out, nout);
}

int nn_op_gru(struct trace_ctx *c, const struct ir_node *n,
	      struct tval **in, int nin, struct tval **out, int nout)
{
	(void)n;
	return rnn_op(c, CELL_GRU, in, nin, out, nout);
}

int nn_op_rnn_tanh(struct trace_ctx *c, const struct ir_node *n,
		   struct tval **in, int nin, struct tval **out, int nout)
{
	(void)n;
	return rnn_op(c, CELL_TANH, in, nin, out, nout);
}

int nn_op_rnn_relu(struct trace_ctx *c, const struct ir_node *n,
		   struct tval **in, int nin, struct tval **out, int nout)
{
	(void)n;
	return rnn_op(c, CELL_RELU, in, nin, out, nout);
}

/* *_cell(input, hx, w_ih, w_hh, b_ih, b_hh); input [B, I] or [I] */
static int cell_op(struct trace_ctx *c, enum cell_kind k, struct tval **in,
		   int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x, *h, *cs = NULL, **hx = NULL, *xg = NULL;
	struct gpu_tensor *x2 = NULL, *h2 = NULL, *c2 = NULL, *hn = NULL;
	struct gpu_tensor *cn = NULL;
	struct cell_w w;
	int nhx, unb, rc = -1;

	memset(&w, 0, sizeof(w));
	if (tv_get_tensor(c, in[0], 0, &x))
		return -1;
	if (k == CELL_LSTM) {
		if (list_tensors(c, in[1], &hx, &nhx))
			return -1;
		if (nhx != 2) {
			free(hx);
			return trace_error(c, "lstm_cell expects two hidden "
					   "states");
		}
		h = hx[0];
		cs = hx[1];
		free(hx);
	} else if (tv_get_tensor(c, in[1], 0, &h)) {
		return -1;
	}
	if (tv_get_tensor(c, in[2], 0, (struct gpu_tensor **)&w.w_ih) ||
	    tv_get_tensor(c, in[3], 0, (struct gpu_tensor **)&w.w_hh) ||
	    opt_tensor(c, in, nin, 4, (struct gpu_tensor **)&w.b_ih) ||
	    opt_tensor(c, in, nin, 5, (struct gpu_tensor **)&w.b_hh))
		return -1;
	if (x->rank != 1 && x->rank != 2)
		return trace_error(c, "expected input to be 1D or 2D, got "
				   "%dD", x->rank);
	unb = x->rank == 1;
	x2 = unb ? nn_unsqueeze(c, x, 0) : trace_alias(c, x);
	h2 = unb ? nn_unsqueeze(c, h, 0) : trace_alias(c, h);
	if (cs)
		c2 = unb ? nn_unsqueeze(c, cs, 0) : trace_alias(c, cs);
	if (!x2 || !h2 || (cs && !c2))
		goto out;
	xg = nn_linear(c, x2, w.w_ih, w.b_ih);
	if (!xg || cell_step(c, k, &w, 0, xg, h2, c2, &hn,
			     cs ? &cn : NULL))
		goto out;
	if (trace_out(c, out, unb ? nn_squeeze(c, hn, 0) : trace_alias(c, hn)))
		goto out;
	if (cs && nout > 1 && trace_out(c, out + 1, unb ? nn_squeeze(c, cn, 0) :
				     trace_alias(c, cn))) {
		tv_unref(out[0]);
		out[0] = NULL;
		goto out;
	}
	rc = 0;
out:
	gpu_free(x2);
	gpu_free(h2);
	gpu_free(c2);
	gpu_free(xg);
	gpu_free(hn);
	gpu_free(cn);
	return rc;
}

int nn_op_lstm_cell(struct trace_ctx *c, const struct ir_node *n,
		    struct tval **in, int nin, struct tval **out, int nout)
{
	(void)n;
	return cell_op(c, CELL_LSTM, in, nin, out, nout);
}

int nn_op_gru_cell(struct trace_ctx *c, const struct ir_node *n,
		   struct tval **in, int nin, struct tval **out, int nout)
{
	(void)n;
	return cell_op(c, CELL_GRU, in, nin, out, nout);
}

int nn_op_rnn_tanh_cell(struct trace_ctx *c, const struct ir_node *n,
			struct tval **in, int nin, struct tval **out,
			int nout)
{
	(void)n;
	return cell_op(c, CELL_TANH, in, nin, out, nout);
}

int nn_op_rnn_relu_cell(struct trace_ctx *c, const struct ir_node *n,
			struct tval **in, int nin, struct tval **out,
			int nout)
{
	(void)n;
	return cell_op(c, CELL_RELU, in, nin, out, nout);
}

/* --- attention --------------------------------------------------------- */

static int same_tensor(const struct gpu_tensor *a,
		       const struct gpu_tensor *b)
{
	return a == b || (a->storage == b->storage && a->offset == b->offset &&
			  a->rank == b->rank && a->dtype == b->dtype &&
			  !memcmp(a->dims, b->dims,
				  sizeof(int64_t) * a->rank) &&
			  !memcmp(a->strides, b->strides,
				  sizeof(int64_t) * a->rank));
}

/* [B, T, E] -> [B, H, T, E/H] (a view) */
static struct gpu_tensor *split_heads(struct trace_ctx *c,
				      struct gpu_tensor *x, int64_t heads)
{
	int64_t d[4] = { x->dims[0], x->dims[1], heads, x->dims[2] / heads };
	int perm[4] = { 0, 2, 1, 3 };
	struct gpu_tensor *v = nn_reshape(c, x, 4, d), *p;

	if (!v)
		return NULL;
	p = nn_permute(c, v, perm);
	gpu_free(v);
	return p;
}

/* softmax over the last dim of scores with masked entries (mask true)
 * left out; fully masked rows give 0, as torch's masked softmax */
static struct gpu_tensor *masked_softmax(struct trace_ctx *c,
					 struct gpu_tensor *s,
					 struct gpu_tensor *mask,
					 int64_t mask_type)
{
	struct gpu_tensor *m = NULL, *mb = NULL, *me = NULL, *ninf = NULL;
	struct gpu_tensor *sm = NULL, *y = NULL, *nan = NULL, *zero = NULL;
	struct gpu_tensor *res = NULL;

	if (!mask)
		return nn_softmax(c, s, s->rank - 1, 0);
	mb = trace_cast(c, mask, IR_DTYPE_BOOL);
	if (!mb)
		goto out;
	if (s->rank == 4 && mask_type == 1 && mb->rank == 2) {
		int64_t d[4] = { mb->dims[0], 1, 1, mb->dims[1] };

		m = nn_reshape(c, mb, 4, d);
	} else {
		m = trace_alias(c, mb);
	}
	me = m ? nn_expand(c, m, s->rank, s->dims) : NULL;
	ninf = me ? nn_scalar(c, s->dtype, -INFINITY) : NULL;
	if (!ninf)
		goto out;
	{
		struct gpu_tensor *ne = nn_expand(c, ninf, s->rank, s->dims);

		sm = ne ? trace_empty(c, s->dtype, s->rank, s->dims) : NULL;
		if (sm && c->be->where(me, ne, s, sm)) {
			trace_gpu_error(c);
			gpu_free(sm);
			sm = NULL;
		}
		gpu_free(ne);
	}
	y = sm ? nn_softmax(c, sm, s->rank - 1, 0) : NULL;
	nan = y ? trace_empty(c, IR_DTYPE_BOOL, y->rank, y->dims) : NULL;
	if (!nan)
		goto out;
	if (c->be->unary(GPU_ISNAN, y, nan, 0, 0)) {
		trace_gpu_error(c);
		goto out;
	}
	zero = nn_scalar(c, s->dtype, 0);
	if (zero) {
		struct gpu_tensor *ze = nn_expand(c, zero, y->rank, y->dims);

		res = ze ? trace_empty(c, s->dtype, y->rank, y->dims) : NULL;
		if (res && c->be->where(nan, ze, y, res)) {
			trace_gpu_error(c);
			gpu_free(res);
			res = NULL;
		}
		gpu_free(ze);
	}
out:
	gpu_free(m);
	gpu_free(mb);
	gpu_free(me);
	gpu_free(ninf);
	gpu_free(sm);
	gpu_free(y);
	gpu_free(nan);
	gpu_free(zero);
	return res;
}

/* torch 1.13's native multi-head attention; q, k, v [B, T, E];
 * *weights (may be NULL): the attention weights, averaged over heads
 * when `average` */
static struct gpu_tensor *mha_run(struct trace_ctx *c, struct gpu_tensor *q,
				  struct gpu_tensor *k, struct gpu_tensor *v,
				  int64_t E, int64_t H,
				  const struct gpu_tensor *qkv_w,
				  const struct gpu_tensor *qkv_b,
				  const struct gpu_tensor *pw,
				  const struct gpu_tensor *pb,
				  struct gpu_tensor *mask, int64_t mask_type,
				  struct gpu_tensor **weights, int average)
{
	struct gpu_tensor *t[20] = { NULL };
	struct gpu_tensor *res = NULL;
	int64_t dh, d3[3];
	int i, same = q == k && k == v;

	if (weights)
		*weights = NULL;
	if (q->rank != 3 || k->rank != 3 || v->rank != 3 || H <= 0 ||
	    E % H || q->dims[2] != E) {
		trace_error(c, "expected 3-D query, key and value of embed "
			    "dim %lld divisible by %lld heads", (long long)E,
			    (long long)H);
		return NULL;
	}
	dh = E / H;
	if (same) {
		t[0] = nn_linear(c, q, qkv_w, qkv_b); /* [B, L, 3E] */
		if (!t[0])
			goto out;
		t[1] = nn_narrow(c, t[0], 2, 0, E);
		t[2] = nn_narrow(c, t[0], 2, E, E);
		t[3] = nn_narrow(c, t[0], 2, 2 * E, E);
	} else {
		struct gpu_tensor *w[3] = { NULL }, *b[3] = { NULL };

		for (i = 0; i < 3; i++) {
			w[i] = nn_narrow(c, qkv_w, 0, i * E, E);
			b[i] = qkv_b ? nn_narrow(c, qkv_b, 0, i * E, E) : NULL;
			if (w[i] && (!qkv_b || b[i]))
				t[1 + i] = nn_linear(c, i == 0 ? q : i == 1 ?
						     k : v, w[i], b[i]);
			gpu_free(w[i]);
			gpu_free(b[i]);
		}
	}
	if (!t[1] || !t[2] || !t[3])
		goto out;
	/* q / sqrt(dh), heads split */
	t[4] = nn_binary_s(c, GPU_DIV, t[1], sqrt((double)dh));
	t[5] = t[4] ? split_heads(c, t[4], H) : NULL;  /* [B, H, L, dh] */
	t[6] = t[5] ? split_heads(c, t[2], H) : NULL;  /* [B, H, S, dh] */
	t[7] = t[6] ? split_heads(c, t[3], H) : NULL;
	t[8] = t[7] ? nn_matmul(c, t[5], t[6], 1, NULL, 1, 0) : NULL;
	t[9] = t[8] ? masked_softmax(c, t[8], mask, mask_type) : NULL;
	t[10] = t[9] ? nn_matmul(c, t[9], t[7], 0, NULL, 1, 0) : NULL;
	if (!t[10])
		goto out;
	/* [B, H, L, dh] -> [B, L, E] */
	t[11] = nn_transpose(c, t[10], 1, 2);
	d3[0] = q->dims[0];
	d3[1] = q->dims[1];
	d3[2] = E;
	t[12] = t[11] ? nn_reshape(c, t[11], 3, d3) : NULL;
	res = t[12] ? nn_linear(c, t[12], pw, pb) : NULL;
	if (res && weights) {
		if (average) {
			t[13] = nn_reduce(c, GPU_RSUM, t[9], 1u << 1, 0, 0);
			*weights = t[13] ? nn_binary_s(c, GPU_DIV, t[13],
						       (double)H) : NULL;
		} else {
			*weights = t[9];
			t[9] = NULL;
		}
		if (!*weights) {
			gpu_free(res);
			res = NULL;
		}
	}
out:
	free_all(t, 20);
	return res;
}

/* _native_multi_head_attention(query, key, value, embed_dim, num_head,
 * qkv_weight, qkv_bias, proj_weight, proj_bias, mask, need_weights,
 * average_attn_weights, mask_type) -> (out, weights or None) */
int nn_op_mha(struct trace_ctx *c, const struct ir_node *n,
	      struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *q, *k, *v, *qw, *qb, *pw, *pb, *mask = NULL;
	struct gpu_tensor *wts = NULL, *y;
	int64_t E, H, mt = -1;
	int need = 1, avg = 1;

	(void)n;
	if (nin < 9)
		return trace_error(c, "expected 13 arguments");
	if (tv_get_tensor(c, in[0], 0, &q) || tv_get_tensor(c, in[1], 0, &k) ||
	    tv_get_tensor(c, in[2], 0, &v) || tv_get_int(c, in[3], &E) ||
	    tv_get_int(c, in[4], &H) || tv_get_tensor(c, in[5], 0, &qw) ||
	    tv_get_tensor(c, in[6], 1, &qb) || tv_get_tensor(c, in[7], 0, &pw) ||
	    tv_get_tensor(c, in[8], 1, &pb) || opt_tensor(c, in, nin, 9, &mask) ||
	    (nin > 10 && tv_get_bool(c, in[10], &need)) ||
	    (nin > 11 && tv_get_bool(c, in[11], &avg)) ||
	    (nin > 12 && in[12]->kind != TV_NONE &&
	     tv_get_int(c, in[12], &mt)))
		return -1;
	/* the same tensor passed three times: one projection, as torch */
	if (same_tensor(q, k) && same_tensor(k, v))
		k = v = q;
	y = mha_run(c, q, k, v, E, H, qw, qb, pw, pb, mask, mt,
		    need && nout > 1 ? &wts : NULL, avg);
	if (trace_out(c, out, y))
		return -1;
	if (nout > 1) {
		out[1] = wts ? tv_tensor(wts) : tv_none();
		if (!out[1]) {
			tv_unref(out[0]);
			out[0] = NULL;
			return trace_error(c, "out of memory");
		}
	}
	return 0;
}

/* _transformer_encoder_layer_fwd(src, embed_dim, num_heads, qkv_weight,
 * qkv_bias, proj_weight, proj_bias, use_gelu, norm_first, eps,
 * norm_weight_1, norm_bias_1, norm_weight_2, norm_bias_2, ffn_weight_1,
 * ffn_bias_1, ffn_weight_2, ffn_bias_2, mask, mask_type) */
int nn_op_encoder_layer(struct trace_ctx *c, const struct ir_node *n,
			struct tval **in, int nin, struct tval **out,
			int nout)
{
	struct gpu_tensor *src, *w[14], *mask = NULL, *t[12] = { NULL };
	int64_t E, H, mt = -1;
	int gelu, norm_first, i, rc = -1;
	double eps;

	(void)n; (void)nout;
	if (nin < 18)
		return trace_error(c, "expected 20 arguments");
	if (tv_get_tensor(c, in[0], 0, &src) || tv_get_int(c, in[1], &E) ||
	    tv_get_int(c, in[2], &H) || tv_get_bool(c, in[7], &gelu) ||
	    tv_get_bool(c, in[8], &norm_first) || tv_get_float(c, in[9], &eps))
		return -1;
	/* w: qkv_w, qkv_b, proj_w, proj_b, (7..9 unused), n1w, n1b, n2w,
	 * n2b, f1w, f1b, f2w, f2b */
	for (i = 0; i < 4; i++)
		if (tv_get_tensor(c, in[3 + i], 1, &w[i]))
			return -1;
	for (i = 0; i < 8; i++)
		if (tv_get_tensor(c, in[10 + i], 1, &w[6 + i]))
			return -1;
	if (opt_tensor(c, in, nin, 18, &mask) ||
	    (nin > 19 && in[19]->kind != TV_NONE && tv_get_int(c, in[19], &mt)))
		return -1;
	if (src->rank != 3)
		return trace_error(c, "expected a 3-D (batch first) source, "
				   "got %dD", src->rank);
	/* x = norm_first ? ln1(src) : src; x = mha(x) + src */
	t[0] = norm_first ? nn_layer_norm(c, src, 1, w[6], w[7], eps) :
			    trace_alias(c, src);
	t[1] = t[0] ? mha_run(c, t[0], t[0], t[0], E, H, w[0], w[1], w[2],
			      w[3], mask, mt, NULL, 1) : NULL;
	t[2] = t[1] ? nn_binary(c, GPU_ADD, t[1], src) : NULL;
	if (!t[2])
		goto out;
	if (!norm_first) {
		t[3] = nn_layer_norm(c, t[2], 1, w[6], w[7], eps);
		if (!t[3])
			goto out;
	} else {
		t[3] = t[2];
		t[2] = NULL;
	}
	/* ffn with residual */
	t[4] = norm_first ? nn_layer_norm(c, t[3], 1, w[8], w[9], eps) :
			    trace_alias(c, t[3]);
	t[5] = t[4] ? nn_linear(c, t[4], w[10], w[11]) : NULL;
	t[6] = t[5] ? nn_unary(c, gelu ? GPU_GELU : GPU_RELU, t[5], 0, 0) :
		      NULL;
	t[7] = t[6] ? nn_linear(c, t[6], w[12], w[13]) : NULL;
	t[8] = t[7] ? nn_binary(c, GPU_ADD, t[7], t[3]) : NULL;
	if (!t[8])
		goto out;
	if (!norm_first) {
		rc = trace_out(c, out, nn_layer_norm(c, t[8], 1, w[8], w[9],
						  eps));
	} else {
		out[0] = tv_tensor(t[8]);
		t[8] = NULL;
		rc = out[0] ? 0 : trace_error(c, "out of memory");
	}
out:
	free_all(t, 12);
	return rc;
}

/* t (..., H, S, E) with each head repeated r times in place (torch's
 * repeat_interleave(r, -3) of enable_gqa): a new reference. */
static struct gpu_tensor *repeat_heads(struct trace_ctx *c,
				       struct gpu_tensor *t, int64_t r)
{
	int64_t d[GPU_MAX_DIMS];
	struct gpu_tensor *u, *e, *y;
	int i, rk = t->rank;

	if (r == 1)
		return trace_alias(c, t);
	if (rk < 3 || rk + 1 > GPU_MAX_DIMS) {
		trace_error(c, "enable_gqa needs (..., heads, seq, dim) inputs");
		return NULL;
	}
	u = nn_unsqueeze(c, t, rk - 2);
	for (i = 0; u && i < rk + 1; i++)
		d[i] = u->dims[i];
	d[rk - 2] = r;
	e = u ? nn_expand(c, u, rk + 1, d) : NULL;
	for (i = 0; i < rk; i++)
		d[i] = t->dims[i];
	d[rk - 3] = t->dims[rk - 3] * r;
	y = e ? nn_reshape(c, e, rk, d) : NULL;
	gpu_free(u);
	gpu_free(e);
	return y;
}

/* softmax(q k^T * scale [+ mask]) v as torch's math path: q and k each
 * multiplied by sqrt(|scale|) (q by its negative for a negative scale),
 * a bool mask's false entries (and, causal, those above the diagonal)
 * left out of the softmax, rows left out entirely giving 0; a float mask
 * added.  *w (when w) gets the probabilities. */
static struct gpu_tensor *sdpa_run(struct trace_ctx *c, struct gpu_tensor *q,
				   struct gpu_tensor *k, struct gpu_tensor *v,
				   struct gpu_tensor *mask, int causal,
				   double scale, struct gpu_tensor **w)
{
	struct gpu_tensor *t[6] = { NULL }, *y = NULL;
	double sf = sqrt(fabs(scale));

	if (q->rank < 2 || k->rank < 2 || v->rank < 2) {
		trace_error(c, "query, key and value must be at least 2-D");
		return NULL;
	}
	if (causal && mask) {
		trace_error(c, "explicit attn_mask should not be set when "
			    "is_causal=True");
		return NULL;
	}
	t[0] = nn_binary_s(c, GPU_MUL, q, scale < 0 ? -sf : sf);
	t[1] = t[0] ? nn_binary_s(c, GPU_MUL, k, sf) : NULL;
	t[2] = t[1] ? nn_matmul(c, t[0], t[1], 1, NULL, 1, 0) : NULL;
	if (!t[2])
		goto out;
	if (causal) {
		int64_t L = t[2]->dims[t[2]->rank - 2];
		int64_t S = t[2]->dims[t[2]->rank - 1], i, j, d2[2] = { L, S };
		double *m = malloc(sizeof(double) * (size_t)(L * S > 0 ?
							     L * S : 1));

		if (!m) {
			trace_error(c, "out of memory");
			goto out;
		}
		for (i = 0; i < L; i++)
			for (j = 0; j < S; j++)
				m[i * S + j] = j > i;
		t[3] = trace_from_host(c, IR_DTYPE_BOOL, 2, d2, IR_DTYPE_DOUBLE,
				       m);
		free(m);
		t[4] = t[3] ? masked_softmax(c, t[2], t[3], -1) : NULL;
	} else if (mask && mask->dtype == IR_DTYPE_BOOL) {
		/* true: take part */
		t[3] = nn_unary(c, GPU_NOT, mask, 0, 0);
		t[4] = t[3] ? masked_softmax(c, t[2], t[3], -1) : NULL;
	} else if (mask) {
		t[3] = nn_binary(c, GPU_ADD, t[2], mask);
		t[4] = t[3] ? nn_softmax(c, t[3], t[3]->rank - 1, 0) : NULL;
	} else {
		t[4] = nn_softmax(c, t[2], t[2]->rank - 1, 0);
	}
	y = t[4] ? nn_matmul(c, t[4], v, 0, NULL, 1, 0) : NULL;
	if (y && w) {
		*w = t[4];
		t[4] = NULL;
	}
out:
	free_all(t, 6);
	return y;
}

/* dropout_p of an attention op: 0 only (trace runs in eval). */
static int no_dropout(struct trace_ctx *c, struct tval **in, int nin, int i)
{
	double drop = 0;

	if (nin > i && tv_get_float(c, in[i], &drop))
		return -1;
	if (drop > 0)
		return trace_error(c, "attention dropout is random: trace in "
				   "eval mode with dropout_p=0");
	return 0;
}

/* _scaled_dot_product_attention(q, k, v, attn_mask, dropout_p,
 * need_attn_weights, is_causal) -> (out, weights), torch 1.13's math */
int nn_op_sdpa(struct trace_ctx *c, const struct ir_node *n,
	       struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *q, *k, *v, *mask = NULL, *w = NULL;
	int causal = 0;

	(void)n;
	if (tv_get_tensor(c, in[0], 0, &q) || tv_get_tensor(c, in[1], 0, &k) ||
	    tv_get_tensor(c, in[2], 0, &v) || opt_tensor(c, in, nin, 3, &mask) ||
	    no_dropout(c, in, nin, 4) ||
	    (nin > 6 && tv_get_bool(c, in[6], &causal)))
		return -1;
	if (q->rank < 1)
		return trace_error(c, "query must be at least 2-D");
	if (trace_out(c, out, sdpa_run(c, q, k, v, mask, causal,
		      1 / sqrt((double)q->dims[q->rank - 1]),
		      nout > 1 ? &w : NULL)))
		return -1;
	if (nout > 1) {
		out[1] = tv_tensor(w);
		if (!out[1]) {
			tv_unref(out[0]);
			out[0] = NULL;
			return trace_error(c, "out of memory");
		}
	}
	return 0;
}

/* scaled_dot_product_attention(query, key, value, attn_mask=None,
 * dropout_p=0., is_causal=False, *, scale=None, enable_gqa=False),
 * torch 2.x's math path (_scaled_dot_product_attention_math): with
 * enable_gqa, key and value heads repeated up to the query's. */
int nn_op_scaled_dot_product_attention(struct trace_ctx *c,
				       const struct ir_node *n,
				       struct tval **in, int nin,
				       struct tval **out, int nout)
{
	struct gpu_tensor *q, *k, *v, *mask = NULL, *kr = NULL, *vr = NULL;
	double scale;
	int causal = 0, gqa = 0, rc;

	(void)n; (void)nout;
	if (nin < 3 || tv_get_tensor(c, in[0], 0, &q) ||
	    tv_get_tensor(c, in[1], 0, &k) || tv_get_tensor(c, in[2], 0, &v) ||
	    opt_tensor(c, in, nin, 3, &mask) || no_dropout(c, in, nin, 4) ||
	    (nin > 5 && tv_get_bool(c, in[5], &causal)) ||
	    (nin > 7 && tv_get_bool(c, in[7], &gqa)))
		return -1;
	if (q->rank < 1)
		return trace_error(c, "query must be at least 2-D");
	scale = 1 / sqrt((double)q->dims[q->rank - 1]);
	if (nin > 6 && in[6]->kind != TV_NONE && tv_get_float(c, in[6], &scale))
		return -1;
	if (gqa && q->rank >= 3 && k->rank == q->rank && v->rank == q->rank) {
		int64_t hq = q->dims[q->rank - 3], hk = k->dims[k->rank - 3];
		int64_t hv = v->dims[v->rank - 3];

		if (hk < 1 || hv < 1 || hq % hk || hq % hv)
			return trace_error(c, "number of heads in key/value "
					   "must divide number of heads in "
					   "query");
		kr = repeat_heads(c, k, hq / hk);
		vr = kr ? repeat_heads(c, v, hq / hv) : NULL;
		if (!vr) {
			gpu_free(kr);
			return -1;
		}
		k = kr;
		v = vr;
	}
	rc = trace_out(c, out, sdpa_run(c, q, k, v, mask, causal, scale,
					 NULL));
	gpu_free(kr);
	gpu_free(vr);
	return rc;
}

/* --- einsum, tensordot, bilinear --------------------------------------- */

#define EIN_MAXL 64 /* 52 letters, then ellipsis dims */

struct ein_op {
	struct gpu_tensor *t;
	int lab[GPU_MAX_DIMS]; /* label of each dim, all distinct */
};

static int ein_label(char ch)
{
	if (ch >= 'A' && ch <= 'Z')
		return ch - 'A';
	if (ch >= 'a' && ch <= 'z')
		return 26 + ch - 'a';
	return -1;
}

/* Sums t over the dims whose label is not in keep[]; drops them. */
static int ein_sum_out(struct trace_ctx *c, struct ein_op *o, int nd,
		       const int *keep)
{
	uint32_t mask = 0;
	int i, r = 0;
	struct gpu_tensor *y;

	for (i = 0; i < nd; i++)
		if (!keep[o->lab[i]])
			mask |= 1u << i;
	if (!mask)
		return 0;
	y = nn_reduce(c, GPU_RSUM, o->t, mask, 0, 0);
	if (!y)
		return -1;
	for (i = 0; i < nd; i++)
		if (!((mask >> i) & 1))
			o->lab[r++] = o->lab[i];
	gpu_free(o->t);
	o->t = y;
	return 0;
}

/* Contracts a with b (labels in use[] kept); the result replaces a. */
static int ein_pair(struct trace_ctx *c, struct ein_op *a, struct ein_op *b,
		    const int *needed)
{
	int inA[EIN_MAXL] = { 0 }, inB[EIN_MAXL] = { 0 };
	int bat[GPU_MAX_DIMS], ka[GPU_MAX_DIMS], kb[GPU_MAX_DIMS];
	int con[GPU_MAX_DIMS], nbat = 0, nka = 0, nkb = 0, ncon = 0;
	int pa[GPU_MAX_DIMS], pb[GPU_MAX_DIMS], i, j, l, r, rc = -1;
	int posA[EIN_MAXL], posB[EIN_MAXL];
	int64_t M = 1, N = 1, K = 1, da[GPU_MAX_DIMS], db[GPU_MAX_DIMS];
	int64_t dr[GPU_MAX_DIMS];
	struct gpu_tensor *ta = NULL, *tb = NULL, *ra = NULL, *rb = NULL;
	struct gpu_tensor *y = NULL, *yr = NULL;
	int keepA[EIN_MAXL] = { 0 }, keepB[EIN_MAXL] = { 0 };

	for (i = 0; i < a->t->rank; i++) {
		inA[a->lab[i]] = 1;
		posA[a->lab[i]] = i;
	}
	for (i = 0; i < b->t->rank; i++) {
		inB[b->lab[i]] = 1;
		posB[b->lab[i]] = i;
	}
	/* labels only in one operand and not needed: summed out first */
	for (l = 0; l < EIN_MAXL; l++) {
		keepA[l] = inA[l] && (inB[l] || needed[l]);
		keepB[l] = inB[l] && (inA[l] || needed[l]);
	}
	if (ein_sum_out(c, a, a->t->rank, keepA) ||
	    ein_sum_out(c, b, b->t->rank, keepB))
		return -1;
	for (l = 0; l < EIN_MAXL; l++)
		inA[l] = inB[l] = 0;
	for (i = 0; i < a->t->rank; i++) {
		inA[a->lab[i]] = 1;
		posA[a->lab[i]] = i;
	}
	for (i = 0; i < b->t->rank; i++) {
		inB[b->lab[i]] = 1;
		posB[b->lab[i]] = i;
	}
	for (l = 0; l < EIN_MAXL; l++) {
		if (inA[l] && inB[l]) {
			if (needed[l])
				bat[nbat++] = l;
			else
				con[ncon++] = l;
		} else if (inA[l]) {
			ka[nka++] = l;
		} else if (inB[l]) {
			kb[nkb++] = l;
		}
	}
	if (nbat + 2 > GPU_MAX_DIMS || nbat + nka + nkb > GPU_MAX_DIMS)
		return trace_error(c, "einsum: too many dims");
	/* a -> [bat, ka, con], b -> [bat, con, kb] */
	r = 0;
	for (i = 0; i < nbat; i++)
		pa[r++] = posA[bat[i]];
	for (i = 0; i < nka; i++)
		pa[r++] = posA[ka[i]];
	for (i = 0; i < ncon; i++)
		pa[r++] = posA[con[i]];
	r = 0;
	for (i = 0; i < nbat; i++)
		pb[r++] = posB[bat[i]];
	for (i = 0; i < ncon; i++)
		pb[r++] = posB[con[i]];
	for (i = 0; i < nkb; i++)
		pb[r++] = posB[kb[i]];
	for (i = 0; i < ncon; i++) {
		int64_t x = a->t->dims[posA[con[i]]];
		int64_t z = b->t->dims[posB[con[i]]];

		if (x != z)
			return trace_error(c, "einsum: operands do not "
					   "broadcast: dims of %lld and %lld "
					   "for one summed label",
					   (long long)x, (long long)z);
		K *= x;
	}
	for (i = 0; i < nka; i++)
		M *= a->t->dims[posA[ka[i]]];
	for (i = 0; i < nkb; i++)
		N *= b->t->dims[posB[kb[i]]];
	ta = nn_permute(c, a->t, pa);
	tb = ta ? nn_permute(c, b->t, pb) : NULL;
	if (!tb)
		goto out;
	for (i = 0; i < nbat; i++) {
		da[i] = ta->dims[i];
		db[i] = tb->dims[i];
	}
	da[nbat] = M;
	da[nbat + 1] = K;
	db[nbat] = K;
	db[nbat + 1] = N;
	ra = nn_reshape(c, ta, nbat + 2, da);
	rb = ra ? nn_reshape(c, tb, nbat + 2, db) : NULL;
	y = rb ? nn_matmul(c, ra, rb, 0, NULL, 1, 0) : NULL;
	if (!y)
		goto out;
	r = 0;
	for (i = 0; i < nbat; i++) {
		dr[r] = y->dims[i];
		a->lab[r++] = bat[i];
	}
	for (i = 0; i < nka; i++) {
		dr[r] = ta->dims[nbat + i];
		a->lab[r++] = ka[i];
	}
	for (j = 0; j < nkb; j++) {
		dr[r] = tb->dims[nbat + ncon + j];
		a->lab[r++] = kb[j];
	}
	yr = nn_reshape(c, y, r, dr);
	if (!yr)
		goto out;
	gpu_free(a->t);
	a->t = yr;
	rc = 0;
out:
	gpu_free(ta);
	gpu_free(tb);
	gpu_free(ra);
	gpu_free(rb);
	gpu_free(y);
	return rc;
}

/* einsum(equation, tensors, path) */
int nn_op_einsum(struct trace_ctx *c, const struct ir_node *n,
		 struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor **ts = NULL;
	struct ein_op *ops = NULL;
	const char *eq, *arrow, *p;
	int nt, i, j, l, rc = -1, ell = 0, outl[EIN_MAXL], nout_l = 0;
	int count[EIN_MAXL] = { 0 }, needed[EIN_MAXL];
	int64_t size[EIN_MAXL];

	(void)n; (void)nin; (void)nout;
	if (!in[0] || in[0]->kind != TV_STR)
		return trace_error(c, "einsum: expected an equation string");
	eq = in[0]->u.s;
	if (list_tensors(c, in[1], &ts, &nt))
		return -1;
	ops = calloc(nt > 0 ? nt : 1, sizeof(*ops));
	if (!ops) {
		trace_error(c, "out of memory");
		goto out;
	}
	for (l = 0; l < EIN_MAXL; l++)
		size[l] = -1;
	arrow = strstr(eq, "->");
	/* operands: labels, ellipsis, diagonals */
	p = eq;
	for (i = 0; i < nt; i++) {
		int lab[2 * GPU_MAX_DIMS], nl = 0, epos = -1, edims, r;
		struct gpu_tensor *t = ts[i];

		while (*p && *p != ',' && (!arrow || p < arrow)) {
			if (*p == ' ') {
				p++;
			} else if (!strncmp(p, "...", 3)) {
				if (epos >= 0) {
					trace_error(c, "einsum: more than one "
						    "ellipsis in an operand");
					goto out;
				}
				epos = nl;
				p += 3;
			} else if (ein_label(*p) >= 0 &&
				   nl < 2 * GPU_MAX_DIMS) {
				lab[nl++] = ein_label(*p++);
			} else {
				trace_error(c, "einsum: invalid subscript "
					    "'%c' in '%s'", *p, eq);
				goto out;
			}
		}
		if (*p == ',')
			p++;
		edims = t->rank - nl;
		if ((epos < 0 && edims != 0) || edims < 0) {
			trace_error(c, "einsum: the number of subscripts in "
				    "the equation (%d) does not match the "
				    "number of dimensions (%d) for operand %d",
				    nl, t->rank, i);
			goto out;
		}
		if (edims > ell)
			ell = edims;
		/* full label list, ellipsis dims as 52 + k (right-aligned
		 * later against ell) */
		{
			int full[GPU_MAX_DIMS], k = 0;

			for (j = 0; j < nl; j++) {
				if (j == epos) {
					for (r = 0; r < edims; r++)
						full[k++] = -1 - r;
				}
				full[k++] = lab[j];
			}
			if (epos == nl)
				for (r = 0; r < edims; r++)
					full[k++] = -1 - r;
			memcpy(ops[i].lab, full, sizeof(full));
			ops[i].t = t;
		}
	}
	if (*p && (!arrow || p < arrow)) {
		trace_error(c, "einsum: more operands in the equation than "
			    "tensors (%d)", nt);
		goto out;
	}
	if (ell > EIN_MAXL - 52) {
		trace_error(c, "einsum: too many ellipsis dims");
		goto out;
	}
	/* resolve ellipsis labels, take diagonals, check sizes */
	for (i = 0; i < nt; i++) {
		struct gpu_tensor *t = ts[i];
		int nl = 0, edims = 0, r;
		int64_t dims[GPU_MAX_DIMS], st[GPU_MAX_DIMS];
		int labs[GPU_MAX_DIMS] = { 0 };

		for (j = 0; j < t->rank; j++)
			if (ops[i].lab[j] < 0)
				edims++;
		for (j = 0; j < t->rank; j++) {
			int lb = ops[i].lab[j];

			if (lb < 0)
				lb = 52 + (ell - edims) + (-1 - lb);
			for (r = 0; r < nl; r++)
				if (labs[r] == lb)
					break;
			if (r < nl) {
				if (dims[r] != t->dims[j]) {
					trace_error(c, "einsum: subscript "
						    "repeated with different "
						    "sizes");
					goto out;
				}
				st[r] += t->strides[j];
				continue;
			}
			labs[nl] = lb;
			dims[nl] = t->dims[j];
			st[nl++] = t->strides[j];
		}
		ops[i].t = gpu_view(t, nl, dims, st, t->offset);
		if (!ops[i].t) {
			trace_gpu_error(c);
			goto out;
		}
		memcpy(ops[i].lab, labs, sizeof(labs));
		for (j = 0; j < nl; j++) {
			count[labs[j]]++;
			if (size[labs[j]] < 0 || size[labs[j]] == 1)
				size[labs[j]] = dims[j];
		}
	}
	/* the output's labels */
	if (arrow) {
		int seen[EIN_MAXL] = { 0 };

		p = arrow + 2;
		while (*p) {
			if (*p == ' ') {
				p++;
			} else if (!strncmp(p, "...", 3)) {
				for (j = 0; j < ell; j++)
					outl[nout_l++] = 52 + j;
				p += 3;
			} else if (ein_label(*p) >= 0 &&
				   count[ein_label(*p)] > 0 &&
				   !seen[ein_label(*p)] &&
				   nout_l < GPU_MAX_DIMS) {
				seen[ein_label(*p)] = 1;
				outl[nout_l++] = ein_label(*p++);
			} else {
				trace_error(c, "einsum: output subscript '%c' "
					    "is invalid, repeated or absent "
					    "from the operands", *p);
				goto out;
			}
		}
	} else {
		for (j = 0; j < ell; j++)
			outl[nout_l++] = 52 + j;
		for (l = 0; l < 52; l++)
			if (count[l] == 1 && nout_l < GPU_MAX_DIMS)
				outl[nout_l++] = l;
	}
	/* contract left to right */
	for (i = 1; i < nt; i++) {
		int k;

		for (l = 0; l < EIN_MAXL; l++)
			needed[l] = 0;
		for (j = 0; j < nout_l; j++)
			needed[outl[j]] = 1;
		for (k = i + 1; k < nt; k++)
			for (j = 0; j < ops[k].t->rank; j++)
				needed[ops[k].lab[j]] = 1;
		if (ein_pair(c, &ops[0], &ops[i], needed))
			goto out;
	}
	if (nt < 1) {
		trace_error(c, "einsum: must provide at least one operand");
		goto out;
	}
	for (l = 0; l < EIN_MAXL; l++)
		needed[l] = 0;
	for (j = 0; j < nout_l; j++)
		needed[outl[j]] = 1;
	if (ein_sum_out(c, &ops[0], ops[0].t->rank, needed))
		goto out;
	{
		int perm[GPU_MAX_DIMS], r;
		struct gpu_tensor *pt, *y;

		for (j = 0; j < nout_l; j++)
			for (r = 0; r < ops[0].t->rank; r++)
				if (ops[0].lab[r] == outl[j])
					perm[j] = r;
		pt = nn_permute(c, ops[0].t, perm);
		y = pt ? trace_empty(c, pt->dtype, pt->rank, pt->dims) : NULL;
		if (y && nn_copy(c, pt, y)) {
			gpu_free(y);
			y = NULL;
		}
		gpu_free(pt);
		rc = trace_out(c, out, y);
	}
out:
	if (ops)
		for (i = 0; i < nt; i++)
			if (ops[i].t != ts[i])
				gpu_free(ops[i].t);
	free(ops);
	free(ts);
	return rc;
}

/* tensordot(self, other, dims_self, dims_other) */
int nn_op_tensordot(struct trace_ctx *c, const struct ir_node *n,
		    struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *a, *b, *pa = NULL, *pb = NULL, *ra = NULL;
	struct gpu_tensor *rb = NULL, *y = NULL;
	int64_t da[GPU_MAX_DIMS], db[GPU_MAX_DIMS], d2[2], dr[GPU_MAX_DIMS];
	int na, nb2, i, j, r, ua[GPU_MAX_DIMS] = { 0 }, ub[GPU_MAX_DIMS] = { 0 };
	int perma[GPU_MAX_DIMS], permb[GPU_MAX_DIMS], rc = -1, ax;
	int64_t M = 1, N = 1, K = 1;

	(void)n; (void)nin; (void)nout;
	if (tv_get_tensor(c, in[0], 0, &a) || tv_get_tensor(c, in[1], 0, &b) ||
	    tv_get_ints(c, in[2], da, GPU_MAX_DIMS, &na) ||
	    tv_get_ints(c, in[3], db, GPU_MAX_DIMS, &nb2))
		return -1;
	if (na != nb2)
		return trace_error(c, "both dimension lists should have same "
				   "length");
	for (i = 0; i < na; i++) {
		int x2;

		if (trace_axis(c, da[i], a->rank, &ax) ||
		    trace_axis(c, db[i], b->rank, &x2))
			return -1;
		if (a->dims[ax] != b->dims[x2])
			return trace_error(c, "contracted dimensions need to "
					   "match, but first has size %lld in "
					   "dim %d and second has size %lld in "
					   "dim %d", (long long)a->dims[ax],
					   ax, (long long)b->dims[x2], x2);
		ua[ax] = 1;
		ub[x2] = 1;
		perma[a->rank - na + i] = ax;
		permb[i] = x2;
		K *= a->dims[ax];
	}
	r = 0;
	for (i = 0, j = 0; i < a->rank; i++)
		if (!ua[i]) {
			perma[j++] = i;
			M *= a->dims[i];
			dr[r++] = a->dims[i];
		}
	for (i = 0, j = na; i < b->rank; i++)
		if (!ub[i]) {
			permb[j++] = i;
			N *= b->dims[i];
			dr[r++] = b->dims[i];
		}
	pa = nn_permute(c, a, perma);
	pb = pa ? nn_permute(c, b, permb) : NULL;
	d2[0] = M;
	d2[1] = K;
	ra = pb ? nn_reshape(c, pa, 2, d2) : NULL;
	d2[0] = K;
	d2[1] = N;
	rb = ra ? nn_reshape(c, pb, 2, d2) : NULL;
	y = rb ? nn_matmul(c, ra, rb, 0, NULL, 1, 0) : NULL;
	if (y)
		rc = trace_out(c, out, nn_reshape(c, y, r, dr));
	gpu_free(pa);
	gpu_free(pb);
	gpu_free(ra);
	gpu_free(rb);
	gpu_free(y);
	return rc;
}

/* bilinear(x1 [*, I], x2 [*, J], weight [O, I, J], bias [O]) */
int nn_op_bilinear(struct trace_ctx *c, const struct ir_node *n,
		   struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x1, *x2, *w, *b, *t[8] = { NULL };
	int64_t I, J, O, R = 1, d[3], dr[GPU_MAX_DIMS];
	int perm[3] = { 1, 0, 2 }, i, rc = -1;

	(void)n; (void)nout;
	if (tv_get_tensor(c, in[0], 0, &x1) || tv_get_tensor(c, in[1], 0, &x2) ||
	    tv_get_tensor(c, in[2], 0, &w) || opt_tensor(c, in, nin, 3, &b))
		return -1;
	if (w->rank != 3 || x1->rank < 1 || x1->rank != x2->rank)
		return trace_error(c, "bilinear: weight must be 3-D and the "
				   "inputs of one rank");
	O = w->dims[0];
	I = w->dims[1];
	J = w->dims[2];
	if (x1->dims[x1->rank - 1] != I || x2->dims[x2->rank - 1] != J)
		return trace_error(c, "bilinear: input sizes do not fit the "
				   "weight");
	for (i = 0; i < x1->rank - 1; i++) {
		R *= x1->dims[i];
		dr[i] = x1->dims[i];
	}
	dr[x1->rank - 1] = O;
	d[0] = R;
	d[1] = I;
	t[0] = nn_reshape(c, x1, 2, d);                 /* [R, I] */
	t[1] = t[0] ? nn_permute(c, w, perm) : NULL;     /* [I, O, J] */
	d[0] = I;
	d[1] = O * J;
	t[2] = t[1] ? nn_reshape(c, t[1], 2, d) : NULL;
	t[3] = t[2] ? nn_matmul(c, t[0], t[2], 0, NULL, 1, 0) : NULL;
	d[0] = R;
	d[1] = O;
	d[2] = J;
	t[4] = t[3] ? nn_reshape(c, t[3], 3, d) : NULL;  /* [R, O, J] */
	d[1] = J;
	d[2] = 1;
	t[5] = t[4] ? nn_reshape(c, x2, 3, d) : NULL;    /* [R, J, 1] */
	t[6] = t[5] ? nn_matmul(c, t[4], t[5], 0, NULL, 1, 0) : NULL;
	if (!t[6])
		goto out;
	t[7] = nn_reshape(c, t[6], x1->rank, dr);
	if (t[7] && b) {
		rc = trace_out(c, out, nn_binary(c, GPU_ADD, t[7], b));
	} else if (t[7]) {
		out[0] = tv_tensor(t[7]);
		t[7] = NULL;
		rc = out[0] ? 0 : trace_error(c, "out of memory");
	}
out:
	free_all(t, 8);
	return rc;
}

/* --- distances --------------------------------------------------------- */

/* the p-norm of x over the axes in mask */
static struct gpu_tensor *pnorm(struct trace_ctx *c, struct gpu_tensor *x,
				uint32_t mask, int keepdim, double p)
{
	struct gpu_tensor *a, *y, *s;

	if (p == 2)
		return nn_reduce(c, GPU_RL2, x, mask, keepdim, 0);
	if (p == 1)
		return nn_reduce(c, GPU_RL1, x, mask, keepdim, 0);
	a = nn_unary(c, GPU_ABS, x, 0, 0);
	if (!a)
		return NULL;
	if (isinf(p)) {
		y = nn_reduce(c, p > 0 ? GPU_RMAX : GPU_RMIN, a, mask,
			      keepdim, 0);
	} else if (p == 0) {
		struct gpu_tensor *nz = nn_binary_s(c, GPU_NE, a, 0);
		struct gpu_tensor *f = nz ? trace_cast(c, nz, x->dtype) : NULL;

		y = f ? nn_reduce(c, GPU_RSUM, f, mask, keepdim, 0) : NULL;
		gpu_free(nz);
		gpu_free(f);
	} else {
		struct gpu_tensor *pw = nn_unary(c, GPU_POW_SCALAR, a, p, 0);

		s = pw ? nn_reduce(c, GPU_RSUM, pw, mask, keepdim, 0) : NULL;
		y = s ? nn_unary(c, GPU_POW_SCALAR, s, 1.0 / p, 0) : NULL;
		gpu_free(pw);
		gpu_free(s);
	}
	gpu_free(a);
	return y;
}

/* cosine_similarity(x1, x2, dim, eps) = sum(x1*x2) /
 * sqrt(clamp_min(sum(x1^2) * sum(x2^2), eps^2)) */
int nn_op_cosine_similarity(struct trace_ctx *c, const struct ir_node *n,
			    struct tval **in, int nin, struct tval **out,
			    int nout)
{
	struct gpu_tensor *a, *b, *t[10] = { NULL };
	int64_t dim = 1, dims[GPU_MAX_DIMS];
	double eps = 1e-8;
	int ax, rank, rc = -1;

	(void)n; (void)nout;
	if (tv_get_tensor(c, in[0], 0, &a) || tv_get_tensor(c, in[1], 0, &b) ||
	    (nin > 2 && tv_get_int(c, in[2], &dim)) ||
	    (nin > 3 && tv_get_float(c, in[3], &eps)))
		return -1;
	if (trace_broadcast_dims(c, a, b, &rank, dims) ||
	    trace_axis(c, dim, rank, &ax))
		return -1;
	t[0] = nn_binary(c, GPU_MUL, a, b);
	t[1] = t[0] ? nn_expand(c, t[0], rank, dims) : NULL;
	t[2] = t[1] ? nn_binary(c, GPU_MUL, a, a) : NULL;
	t[3] = t[2] ? nn_binary(c, GPU_MUL, b, b) : NULL;
	if (!t[3])
		goto out;
	{
		struct gpu_tensor *e2 = nn_expand(c, t[2], rank, dims);
		struct gpu_tensor *e3 = e2 ? nn_expand(c, t[3], rank, dims) :
				       NULL;

		t[4] = nn_reduce(c, GPU_RSUM, t[1], 1u << ax, 0, 0);
		t[5] = e3 ? nn_reduce(c, GPU_RSUM, e2, 1u << ax, 0, 0) : NULL;
		t[6] = t[5] ? nn_reduce(c, GPU_RSUM, e3, 1u << ax, 0, 0) :
			      NULL;
		gpu_free(e2);
		gpu_free(e3);
	}
	t[7] = t[6] && t[4] ? nn_binary(c, GPU_MUL, t[5], t[6]) : NULL;
	t[8] = t[7] ? nn_unary(c, GPU_HARDTANH, t[7], eps * eps, INFINITY) :
		      NULL;
	t[9] = t[8] ? nn_unary(c, GPU_SQRT, t[8], 0, 0) : NULL;
	if (t[9])
		rc = trace_out(c, out, nn_binary(c, GPU_DIV, t[4], t[9]));
out:
	free_all(t, 10);
	return rc;
}

/* pairwise_distance(x1, x2, p, eps, keepdim) = norm(x1 - x2 + eps, p,
 * last dim) */
int nn_op_pairwise_distance(struct trace_ctx *c, const struct ir_node *n,
			    struct tval **in, int nin, struct tval **out,
			    int nout)
{
	struct gpu_tensor *a, *b, *d, *e, *y = NULL;
	double p = 2, eps = 1e-6;
	int keep = 0, rank;

	(void)n; (void)nout;
	if (tv_get_tensor(c, in[0], 0, &a) || tv_get_tensor(c, in[1], 0, &b) ||
	    (nin > 2 && tv_get_float(c, in[2], &p)) ||
	    (nin > 3 && tv_get_float(c, in[3], &eps)) ||
	    (nin > 4 && tv_get_bool(c, in[4], &keep)))
		return -1;
	rank = a->rank > b->rank ? a->rank : b->rank;
	if (rank == 0)
		return trace_error(c, "pairwise_distance of scalars");
	d = nn_binary(c, GPU_SUB, a, b);
	e = d ? nn_binary_s(c, GPU_ADD, d, eps) : NULL;
	if (e)
		y = pnorm(c, e, 1u << (rank - 1), keep, p);
	gpu_free(d);
	gpu_free(e);
	return trace_out(c, out, y);
}

/* cdist(x1 [*, P, M], x2 [*, R, M], p, compute_mode) -> [*, P, R] */
int nn_op_cdist(struct trace_ctx *c, const struct ir_node *n,
		struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *a, *b, *ua = NULL, *ub = NULL, *d = NULL;
	struct gpu_tensor *y = NULL;
	double p = 2;

	(void)n; (void)nout;
	if (tv_get_tensor(c, in[0], 0, &a) || tv_get_tensor(c, in[1], 0, &b) ||
	    (nin > 2 && tv_get_float(c, in[2], &p)))
		return -1;
	if (a->rank < 2 || b->rank < 2 ||
	    a->dims[a->rank - 1] != b->dims[b->rank - 1])
		return trace_error(c, "cdist only supports at least 2D tensors "
				   "with the same number of columns");
	if (p < 0)
		return trace_error(c, "cdist only supports non-negative p "
				   "values");
	ua = nn_unsqueeze(c, a, a->rank - 1);     /* [*, P, 1, M] */
	ub = ua ? nn_unsqueeze(c, b, b->rank - 2) : NULL; /* [*, 1, R, M] */
	d = ub ? nn_binary(c, GPU_SUB, ua, ub) : NULL;
	if (d)
		y = pnorm(c, d, 1u << (d->rank - 1), 0, p);
	gpu_free(ua);
	gpu_free(ub);
	gpu_free(d);
	return trace_out(c, out, y);
}

/* --- losses (host, in double) ------------------------------------------ */

/* reduction: 0 none, 1 mean, 2 sum */
static struct gpu_tensor *reduce_loss(struct trace_ctx *c, enum ir_dtype dt,
				      double *v, int rank,
				      const int64_t *dims, int64_t reduction)
{
	int64_t n = 1, i;
	double s = 0;

	for (i = 0; i < rank; i++)
		n *= dims[i];
	if (reduction == 0)
		return trace_from_host(c, dt, rank, dims, IR_DTYPE_DOUBLE, v);
	for (i = 0; i < n; i++)
		s += v[i];
	if (reduction == 1)
		s = n > 0 ? s / (double)n : NAN;
	return trace_from_host(c, dt, 0, NULL, IR_DTYPE_DOUBLE, &s);
}

/* the tensors of in[0..k) broadcast to one shape, on the host; optional
 * ones (NULL) give NULL */
static int host_broadcast(struct trace_ctx *c, struct gpu_tensor **t, int k,
			  double **v, int *rank, int64_t *dims)
{
	int i, r = 0, rr;
	int64_t d[GPU_MAX_DIMS];
	struct gpu_tensor *first = NULL;

	for (i = 0; i < k; i++) {
		v[i] = NULL;
		if (!t[i])
			continue;
		if (!first) {
			first = t[i];
			r = t[i]->rank;
			memcpy(dims, t[i]->dims, sizeof(int64_t) * r);
			continue;
		}
		{
			struct gpu_tensor tmp = *first;

			tmp.rank = r;
			memcpy(tmp.dims, dims, sizeof(int64_t) * r);
			if (trace_broadcast_dims(c, &tmp, t[i], &rr, d))
				return -1;
			r = rr;
			memcpy(dims, d, sizeof(int64_t) * r);
		}
	}
	for (i = 0; i < k; i++) {
		struct gpu_tensor *e;

		if (!t[i])
			continue;
		e = nn_expand(c, t[i], r, dims);
		v[i] = e ? trace_to_host(c, e, IR_DTYPE_DOUBLE) : NULL;
		gpu_free(e);
		if (!v[i]) {
			while (--i >= 0) {
				free(v[i]);
				v[i] = NULL;
			}
			return -1;
		}
	}
	*rank = r;
	return 0;
}

enum pw_loss { PW_MSE, PW_L1, PW_SMOOTH_L1, PW_KL, PW_BCE, PW_BCE_LOGITS,
	       PW_HUBER, PW_HINGE, PW_MARGIN_RANK, PW_POISSON,
	       PW_SOFT_MARGIN };

/* clamp_min(v, 0) as torch's: NaN stays */
static double clamp0(double v)
{
	return v < 0 ? 0 : v;
}

/* the pointwise losses: args (self, target[, weight[, pos_weight]]) or
 * (input1, input2, target); pr: the loss's numbers (beta, delta,
 * margin; poisson: log_input, full, eps) */
static int pointwise_loss(struct trace_ctx *c, enum pw_loss kind,
			  struct gpu_tensor **t, int k, int64_t reduction,
			  const double *pr, struct tval **out)
{
	double param = pr[0];

	double *v[4], *r = NULL;
	int64_t dims[GPU_MAX_DIMS], nel = 1, i;
	int rank, j, rc = -1;

	if (host_broadcast(c, t, k, v, &rank, dims))
		return -1;
	for (j = 0; j < rank; j++)
		nel *= dims[j];
	r = malloc(sizeof(double) * (size_t)(nel > 0 ? nel : 1));
	if (!r) {
		trace_error(c, "out of memory");
		goto out;
	}
	for (i = 0; i < nel; i++) {
		double x = v[0][i], y = v[1][i], d = x - y, l;

		switch (kind) {
		case PW_MSE:
			l = d * d;
			break;
		case PW_L1:
			l = fabs(d);
			break;
		case PW_SMOOTH_L1:
			l = param == 0 ? fabs(d) : fabs(d) < param ?
			    0.5 * d * d / param : fabs(d) - 0.5 * param;
			break;
		case PW_KL:
			/* param: log_target */
			if (param != 0)
				l = exp(y) * (y - x);
			else
				l = (y == 0 ? 0 : y * log(y)) - y * x;
			break;
		case PW_BCE: {
			double lx = log(x), l1x = log(1 - x);

			if (lx < -100)
				lx = -100;
			if (l1x < -100)
				l1x = -100;
			l = -(y * lx + (1 - y) * l1x);
			if (k > 2 && v[2])
				l *= v[2][i];
			break;
		}
		case PW_HUBER: /* param: delta */
			l = fabs(d) < param ? 0.5 * d * d
					    : param * (fabs(d) - 0.5 * param);
			break;
		case PW_HINGE: /* param: margin */
			l = (y != 1 ? clamp0(param - x) : 0) + (y != -1 ? x : 0);
			break;
		case PW_MARGIN_RANK: /* (x1, x2, target), param: margin */
			l = clamp0(-v[2][i] * d + param);
			break;
		case PW_POISSON: /* log_input, full, eps */
			l = pr[0] != 0 ? exp(x) - y * x : x - y * log(x + pr[2]);
			if (pr[1] != 0 && y > 1)
				l += y * log(y) - y + 0.5 * log(2 * M_PI * y);
			break;
		case PW_SOFT_MARGIN:
			l = log1p(exp(-x * y));
			break;
		default: { /* PW_BCE_LOGITS */
			double mv = -x > 0 ? -x : 0;

			if (k > 3 && v[3]) {
				double lw = (v[3][i] - 1) * y + 1;

				l = (1 - y) * x + lw * (log(exp(-mv) +
							    exp(-x - mv)) + mv);
			} else {
				l = (1 - y) * x + mv + log(exp(-mv) +
							   exp(-x - mv));
			}
			if (k > 2 && v[2])
				l *= v[2][i];
			break;
		}
		}
		r[i] = l;
	}
	rc = trace_out(c, out, reduce_loss(c, t[0]->dtype, r, rank, dims,
					reduction));
out:
	for (j = 0; j < k; j++)
		free(v[j]);
	free(r);
	return rc;
}

static int loss_args(struct trace_ctx *c, struct tval **in, int nin,
		     int nt, struct gpu_tensor **t, int ri, int64_t *red)
{
	int i;

	for (i = 0; i < nt; i++)
		if (tv_get_tensor(c, in[i], i >= 2, &t[i]))
			return -1;
	*red = 1;
	if (ri < nin && tv_get_int(c, in[ri], red))
		return -1;
	if (*red < 0 || *red > 2)
		return trace_error(c, "%lld is not a valid value for "
				   "reduction", (long long)*red);
	return 0;
}

int nn_op_mse_loss(struct trace_ctx *c, const struct ir_node *n,
		   struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *t[2];
	int64_t red;

	(void)n; (void)nout;
	if (loss_args(c, in, nin, 2, t, 2, &red))
		return -1;
	return pointwise_loss(c, PW_MSE, t, 2, red, (double[]){ 0 }, out);
}

int nn_op_l1_loss(struct trace_ctx *c, const struct ir_node *n,
		  struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *t[2];
	int64_t red;

	(void)n; (void)nout;
	if (loss_args(c, in, nin, 2, t, 2, &red))
		return -1;
	return pointwise_loss(c, PW_L1, t, 2, red, (double[]){ 0 }, out);
}

int nn_op_smooth_l1_loss(struct trace_ctx *c, const struct ir_node *n,
			 struct tval **in, int nin, struct tval **out,
			 int nout)
{
	struct gpu_tensor *t[2];
	int64_t red;
	double beta = 1;

	(void)n; (void)nout;
	if (loss_args(c, in, nin, 2, t, 2, &red) ||
	    (nin > 3 && tv_get_float(c, in[3], &beta)))
		return -1;
	return pointwise_loss(c, PW_SMOOTH_L1, t, 2, red, &beta, out);
}

/* kl_div(self, target, reduction, log_target) */
int nn_op_kl_div(struct trace_ctx *c, const struct ir_node *n,
		 struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *t[2];
	int64_t red;
	int lt = 0;

	(void)n; (void)nout;
	if (loss_args(c, in, nin, 2, t, 2, &red) ||
	    (nin > 3 && tv_get_bool(c, in[3], &lt)))
		return -1;
	return pointwise_loss(c, PW_KL, t, 2, red, (double[]){ lt }, out);
}

/* binary_cross_entropy(self, target, weight, reduction) */
int nn_op_bce(struct trace_ctx *c, const struct ir_node *n,
	      struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *t[3];
	int64_t red;

	(void)n; (void)nout;
	if (loss_args(c, in, nin, nin > 2 ? 3 : 2, t, 3, &red))
		return -1;
	if (nin <= 2)
		t[2] = NULL;
	return pointwise_loss(c, PW_BCE, t, 3, red, (double[]){ 0 }, out);
}

/* binary_cross_entropy_with_logits(self, target, weight, pos_weight,
 * reduction) */
int nn_op_bce_logits(struct trace_ctx *c, const struct ir_node *n,
		     struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *t[4] = { NULL };
	int64_t red;

	(void)n; (void)nout;
	if (loss_args(c, in, nin, nin > 3 ? 4 : 2, t, 4, &red))
		return -1;
	return pointwise_loss(c, PW_BCE_LOGITS, t, 4, red, (double[]){ 0 }, out);
}

/* huber_loss(self, target, reduction, delta), hinge_embedding_loss(self,
 * target, margin, reduction), margin_ranking_loss(input1, input2, target,
 * margin, reduction), poisson_nll_loss(input, target, log_input, full,
 * eps, reduction) (the Stirling term where target > 1),
 * soft_margin_loss(self, target, reduction): torch 1.13's Loss.cpp */
int nn_op_pw_loss2(struct trace_ctx *c, const struct ir_node *n,
		   struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *t[3] = { NULL };
	int64_t red;
	double pr[3] = { 1, 0, 1e-8 };
	int lg = 1, full = 0;

	(void)nout;
	switch (n->op) {
	case OP_aten_huber_loss:
		if (loss_args(c, in, nin, 2, t, 2, &red) ||
		    (nin > 3 && tv_get_float(c, in[3], &pr[0])))
			return -1;
		return pointwise_loss(c, PW_HUBER, t, 2, red, pr, out);
	case OP_aten_hinge_embedding_loss:
		if (loss_args(c, in, nin, 2, t, 3, &red) ||
		    (nin > 2 && tv_get_float(c, in[2], &pr[0])))
			return -1;
		return pointwise_loss(c, PW_HINGE, t, 2, red, pr, out);
	case OP_aten_margin_ranking_loss:
		pr[0] = 0;
		if (loss_args(c, in, nin, 3, t, 4, &red) ||
		    (nin > 3 && tv_get_float(c, in[3], &pr[0])))
			return -1;
		if (!t[2])
			return trace_error(c, "margin_ranking_loss: no target");
		return pointwise_loss(c, PW_MARGIN_RANK, t, 3, red, pr, out);
	case OP_aten_poisson_nll_loss:
		if (loss_args(c, in, nin, 2, t, 5, &red) ||
		    tv_get_bool(c, in[2], &lg) || tv_get_bool(c, in[3], &full) ||
		    tv_get_float(c, in[4], &pr[2]))
			return -1;
		pr[0] = lg;
		pr[1] = full;
		return pointwise_loss(c, PW_POISSON, t, 2, red, pr, out);
	default: /* soft_margin_loss */
		if (loss_args(c, in, nin, 2, t, 2, &red))
			return -1;
		return pointwise_loss(c, PW_SOFT_MARGIN, t, 2, red, pr, out);
	}
}

/* ctc_loss's arithmetic in its float type (f: float, as torch's
 * std::exp/std::log of floats) */
#define CTC_R(v) (f ? (double)(float)(v) : (v))
#define CTC_EXP(v) (f ? (double)expf((float)(v)) : exp(v))
#define CTC_LOG(v) (f ? (double)logf((float)(v)) : log(v))

/* a lengths argument (int[] or an integer tensor) of k entries as int64 */
static int64_t *ctc_lengths(struct trace_ctx *c, struct tval *v, int64_t k)
{
	int64_t *h = NULL;
	int got = 0;
	if (v->kind == TV_TENSOR) {
		if (sh_is_float_dtype(v->u.t->dtype) || gpu_numel(v->u.t) != k) {
			trace_error(c, "ctc_loss: the lengths must be %lld integers", (long long)k);
			return NULL;
		}
		return trace_to_host(c, v->u.t, IR_DTYPE_INT64);
	}
	h = malloc(sizeof(*h) * (size_t)(k + 1));
	if (!h) {
		trace_oom(c);
		return NULL;
	}
	if (tv_get_ints(c, v, h, (int)k + 1, &got) || got != k) {
		if (got != k)
			trace_error(c, "ctc_loss: the lengths must be %lld integers", (long long)k);
		free(h);
		return NULL;
	}
	return h;
}

/* ctc_loss(log_probs, targets, input_lengths, target_lengths, blank,
 * reduction, zero_infinity) of [T, N, C] (or [T, C]) log_probs, targets
 * [N, S] padded or concatenated: per batch element LossCTC.cpp's
 * log-space alpha recursion over the extended targets, its negative log
 * likelihood; inf as 0 with zero_infinity; mean divides by the target
 * lengths (at least 1) before the mean.  An input length of 0 (torch
 * reads before its buffer) gives the first frame's value, as lower's */
int nn_op_ctc_loss(struct trace_ctx *c, const struct ir_node *n,
		   struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *lp, *tg, *y;
	int64_t blank = 0, red = 1, T, N, C, S, *il = NULL, *tl = NULL, *ht = NULL, off = 0, one = 1;
	double *h = NULL, *al = NULL, *nll = NULL, res = 0;
	int zinf = 0, rc = -1, f;

	(void)n;
	(void)nout;
	if (tv_get_tensor(c, in[0], 0, &lp) || tv_get_tensor(c, in[1], 0, &tg) ||
	    (nin > 4 && tv_get_int(c, in[4], &blank)) || (nin > 5 && tv_get_int(c, in[5], &red)) ||
	    (nin > 6 && tv_get_bool(c, in[6], &zinf)))
		return -1;
	if ((lp->dtype != IR_DTYPE_FLOAT && lp->dtype != IR_DTYPE_DOUBLE) || (lp->rank != 2 && lp->rank != 3))
		return trace_error(c, "ctc_loss: log_probs must be float32 or float64 [T, N, C] or [T, C]");
	if (sh_is_float_dtype(tg->dtype) || tg->rank < 1 || tg->rank > 2 || (lp->rank == 2 && tg->rank != 1))
		return trace_error(c, "ctc_loss: targets must be integers [N, S] or [sum(target_lengths)]");
	f = lp->dtype == IR_DTYPE_FLOAT;
	T = lp->dims[0];
	N = lp->rank == 3 ? lp->dims[1] : 1;
	C = lp->dims[lp->rank - 1];
	S = lp->rank == 3 && tg->rank == 2 ? tg->dims[1] : tg->dims[0];
	if (blank < 0 || blank >= C)
		return trace_error(c, "blank must be in label range");
	if (red < 0 || red > 2)
		return trace_error(c, "ctc_loss: reduction must be none, mean or sum");
	if (T < 1)
		return trace_error(c, "ctc_loss: log_probs has no time steps");
	/* padded targets: a row per batch element (LossCTC.cpp's checkSize;
	 * fewer rows were read past) */
	if (lp->rank == 3 && tg->rank == 2 && tg->dims[0] != N)
		return trace_error(c, "ctc_loss: targets of %lld rows for a batch of %lld",
				   (long long)tg->dims[0], (long long)N);
	if (!(il = ctc_lengths(c, in[2], N)) || !(tl = ctc_lengths(c, in[3], N)) ||
	    !(h = trace_to_host(c, lp, IR_DTYPE_DOUBLE)) || !(ht = trace_to_host(c, tg, IR_DTYPE_INT64)))
		goto done;
	nll = malloc(sizeof(*nll) * (size_t)N);
	al = malloc(sizeof(*al) * (size_t)(4 * S + 2 + 2));
	if (!nll || !al) {
		trace_oom(c);
		goto done;
	}
	for (int64_t b = 0; b < N; b++) {
		int64_t L = tl[b], Ti = il[b], Lp;
		const int64_t *tgt = ht + (tg->rank == 2 && lp->rank == 3 ? b * S : off);
		double *pa = al, *ca = al + 2 * S + 2;
		if (L < 0 || Ti < 0 || Ti > T || (tg->rank == 2 && lp->rank == 3 ? L > S : off + L > S)) {
			trace_error(c, "ctc_loss: batch element %lld: input length %lld or target length %lld out of range",
				    (long long)b, (long long)Ti, (long long)L);
			goto done;
		}
		off += L;
		Lp = 2 * L + 1;
		for (int64_t s = 0; s < Lp; s++) {
			int64_t k = s % 2 ? tgt[s / 2] : blank;
			if (k < 0 || k >= C) {
				trace_error(c, "ctc_loss: target %lld out of the label range", (long long)k);
				goto done;
			}
		}
#define LP(t, k) h[((t) * N + b) * C + (k)]
#define PRIME(s) ((s) % 2 ? tgt[(s) / 2] : blank)
		for (int64_t s = 0; s < Lp; s++)
			pa[s] = s == 0 ? LP(0, blank) : s == 1 ? LP(0, PRIME(1)) : -INFINITY;
		for (int64_t t = 1; t < Ti; t++) {
			for (int64_t s = 0; s < Lp; s++) {
				double a1 = pa[s], a2 = -INFINITY, a3 = -INFINITY, mx = a1;
				if (s > 0) {
					a2 = pa[s - 1];
					mx = a2 > mx ? a2 : mx;
				}
				if (s > 1 && PRIME(s - 2) != PRIME(s)) {
					a3 = pa[s - 2];
					mx = a3 > mx ? a3 : mx;
				}
				if (mx == -INFINITY)
					mx = 0;
				double sum = CTC_R(CTC_R(CTC_EXP(CTC_R(a1 - mx)) + CTC_EXP(CTC_R(a2 - mx))) +
						   CTC_EXP(CTC_R(a3 - mx)));
				ca[s] = CTC_R(CTC_R(CTC_LOG(sum) + mx) + LP(t, PRIME(s)));
			}
			double *sw = pa;
			pa = ca;
			ca = sw;
		}
#undef LP
#undef PRIME
		double l1 = pa[2 * L], l2 = L > 0 ? pa[2 * L - 1] : -INFINITY;
		double m = l1 > l2 ? l1 : l2;
		m = m == -INFINITY ? 0 : m;
		nll[b] = -CTC_R(CTC_LOG(CTC_R(CTC_EXP(CTC_R(l1 - m)) + CTC_EXP(CTC_R(l2 - m)))) + m);
		if (zinf && nll[b] == INFINITY)
			nll[b] = 0;
	}
	if (red == 0) {
		y = trace_from_host(c, lp->dtype, lp->rank == 3 ? 1 : 0, &N, IR_DTYPE_DOUBLE, nll);
	} else {
		for (int64_t b = 0; b < N; b++)
			res = CTC_R(res + (red == 1 ? CTC_R(nll[b] / (double)(tl[b] > 1 ? tl[b] : 1)) : nll[b]));
		if (red == 1)
			res = CTC_R(res / (double)N);
		y = trace_from_host(c, lp->dtype, 0, &one, IR_DTYPE_DOUBLE, &res);
	}
	rc = y ? trace_out(c, out, y) : -1;
done:
	free(il);
	free(tl);
	free(h);
	free(ht);
	free(al);
	free(nll);
	return rc;
}

/* the p-norm of d[0..len) (p 0: the nonzero count, inf: the largest) */
static double vec_pnorm(const double *d, int64_t len, int64_t step, double p)
{
	double s = 0;
	for (int64_t j = 0; j < len; j++) {
		double a = fabs(d[j * step]);
		if (p == 0)
			s += a != 0;
		else if (isinf(p))
			s = a > s || isnan(a) ? a : s;
		else
			s += p == 1 ? a : p == 2 ? a * a : pow(a, p);
	}
	return p == 0 || p == 1 || isinf(p) ? s : p == 2 ? sqrt(s) : pow(s, 1 / p);
}

/* cosine_embedding_loss(input1, input2, target, margin, reduction):
 * cos over the last dim (squared magnitudes + 1e-12), 1 - cos where
 * target is 1, clamp_min(cos - margin, 0) where it is -1;
 * triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
 * reduction): clamp_min(margin + d(a, p) - d(a, n), 0), d the
 * pairwise_distance norm(u - v + eps, p) over the last dim (swap: the
 * smaller of d(a, n) and d(p, n)) */
int nn_op_embed_loss(struct trace_ctx *c, const struct ir_node *n,
		     struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *t[3];
	double *v[3], margin = n->op == OP_aten_triplet_margin_loss, p = 2;
	double eps = 1e-6, *r = NULL, *tg = NULL;
	int64_t dims[GPU_MAX_DIMS], red = 1, rows = 1, len;
	int rank, swap = 0, trip = n->op == OP_aten_triplet_margin_loss, rc;

	(void)nout;
	for (int i = 0; i < 3; i++)
		if (tv_get_tensor(c, in[i], 0, &t[i]))
			return -1;
	if ((nin > 3 && tv_get_float(c, in[3], &margin)) ||
	    (trip && nin > 4 && tv_get_float(c, in[4], &p)) ||
	    (trip && nin > 5 && tv_get_float(c, in[5], &eps)) ||
	    (trip && nin > 6 && tv_get_bool(c, in[6], &swap)) ||
	    (nin > (trip ? 7 : 4) && tv_get_int(c, in[trip ? 7 : 4], &red)))
		return -1;
	if (host_broadcast(c, t, trip ? 3 : 2, v, &rank, dims))
		return -1;
	if (!trip)
		v[2] = NULL;
	len = rank ? dims[rank - 1] : 1;
	for (int i = 0; i + 1 < rank; i++)
		rows *= dims[i];
	r = malloc(sizeof(*r) * (size_t)(rows + 1));
	double *df = malloc(sizeof(*df) * (size_t)(len + 1));
	if (!trip)
		tg = trace_to_host(c, t[2], IR_DTYPE_DOUBLE);
	rc = -1;
	if (!r || !df || (!trip && !tg)) {
		if (r && df)
			goto done;
		trace_oom(c);
		goto done;
	}
	if (!trip && t[2]->rank != (rank ? rank - 1 : 0)) {
		trace_error(c, "cosine_embedding_loss: target's dims do not "
			    "match the inputs'");
		goto done;
	}
	for (int64_t i = 0; i < rows; i++) {
		const double *a = v[0] + i * len, *b = v[1] + i * len;
		if (!trip) {
			double pr = 0, m1 = 0, m2 = 0;
			for (int64_t j = 0; j < len; j++) {
				pr += a[j] * b[j];
				m1 += a[j] * a[j];
				m2 += b[j] * b[j];
			}
			double cs = pr / sqrt((m1 + 1e-12) * (m2 + 1e-12));
			r[i] = (tg[i] == 1 ? 1 - cs : 0) +
			       (tg[i] == -1 ? clamp0(cs - margin) : 0);
			continue;
		}
		const double *ng = v[2] + i * len;
		for (int64_t j = 0; j < len; j++)
			df[j] = a[j] - b[j] + eps;
		double dp = vec_pnorm(df, len, 1, p);
		for (int64_t j = 0; j < len; j++)
			df[j] = a[j] - ng[j] + eps;
		double dn = vec_pnorm(df, len, 1, p);
		if (swap) {
			for (int64_t j = 0; j < len; j++)
				df[j] = b[j] - ng[j] + eps;
			double ds = vec_pnorm(df, len, 1, p);
			dn = isnan(ds) || ds < dn ? ds : dn;
		}
		r[i] = clamp0(margin + dp - dn);
	}
	rc = trace_out(c, out, reduce_loss(c, t[0]->dtype, r,
					   rank ? rank - 1 : 0, dims, red));
done:
	for (int i = 0; i < (trip ? 3 : 2); i++)
		free(v[i]);
	free(r);
	free(df);
	free(tg);
	return rc;
}

/* multi_margin_loss(self [N, C] or [C], target, p=1, margin=1,
 * weight=None, reduction) and multilabel_margin_loss(self, target
 * (labels, ended by -1), reduction), as torch's CPU kernels: per row
 * the sum over classes j of max(0, margin - x[y] + x[j])^p (times
 * weight[y]) for j != y, or of max(0, 1 - x[t] + x[j]) over the labels t
 * before the first -1 and the j that are not labels, over C */
int nn_op_margin_loss(struct trace_ctx *c, const struct ir_node *n,
		      struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x, *tt, *w = NULL;
	double p = 1, margin = 1, *hx, *ht, *hw = NULL, *r;
	int64_t red = 1, N, C;
	int ml = n->op == OP_aten_multilabel_margin_loss, rc;

	(void)nout;
	if (tv_get_tensor(c, in[0], 0, &x) || tv_get_tensor(c, in[1], 0, &tt))
		return -1;
	if (ml) {
		if (nin > 2 && tv_get_int(c, in[2], &red))
			return -1;
	} else if ((nin > 2 && tv_get_float(c, in[2], &p)) ||
		   (nin > 3 && tv_get_float(c, in[3], &margin)) ||
		   (nin > 4 && tv_get_tensor(c, in[4], 1, &w)) ||
		   (nin > 5 && tv_get_int(c, in[5], &red))) {
		return -1;
	}
	if (x->rank < 1 || x->rank > 2 || (!ml && p != 1 && p != 2))
		return trace_error(c, "%s: expected a 1-d or 2-d input%s",
				   ml ? "multilabel_margin_loss" :
				   "multi_margin_loss", ml ? "" :
				   " and p 1 or 2");
	N = x->rank == 2 ? x->dims[0] : 1;
	C = x->dims[x->rank - 1];
	if ((ml && (tt->rank != x->rank || tt->dims[tt->rank - 1] != C)) ||
	    (!ml && (tt->rank > 1 || (tt->rank ? tt->dims[0] : 1) != N)))
		return trace_error(c, "inconsistent target size");
	hx = trace_to_host(c, x, IR_DTYPE_DOUBLE);
	ht = hx ? trace_to_host(c, tt, IR_DTYPE_DOUBLE) : NULL;
	hw = ht && w ? trace_to_host(c, w, IR_DTYPE_DOUBLE) : NULL;
	r = malloc(sizeof(*r) * (size_t)(N + 1));
	char *ist = malloc((size_t)C + 1);
	rc = -1;
	if (!hx || !ht || (w && !hw) || !r || !ist) {
		if (hx && ht && (!w || hw))
			trace_oom(c);
		goto done;
	}
	for (int64_t i = 0; i < N; i++) {
		const double *xi = hx + i * C;
		double sum = 0;
		if (!ml) {
			int64_t y = (int64_t)ht[i];
			if (y < 0 || y >= C) {
				trace_error(c, "target out of bounds");
				goto done;
			}
			for (int64_t j = 0; j < C; j++) {
				double z = margin - xi[y] + xi[j];
				if (j == y || !(z > 0))
					continue;
				double h = p == 1 ? z : z * z;
				sum += hw ? h * hw[y] : h;
			}
		} else {
			const double *ti = ht + i * C;
			memset(ist, 0, (size_t)C);
			for (int64_t k = 0; k < C && ti[k] >= 0; k++) {
				if (ti[k] >= (double)C) {
					trace_error(c, "target out of bounds");
					goto done;
				}
				ist[(int64_t)ti[k]] = 1;
			}
			for (int64_t k = 0; k < C && ti[k] >= 0; k++)
				for (int64_t j = 0; j < C; j++) {
					double z = 1 - xi[(int64_t)ti[k]] + xi[j];
					if (!ist[j] && z > 0)
						sum += z;
				}
		}
		r[i] = sum / (double)C;
	}
	rc = trace_out(c, out, reduce_loss(c, x->dtype, r,
					   x->rank == 2 ? 1 : 0, &N, red));
done:
	free(hx);
	free(ht);
	free(hw);
	free(r);
	free(ist);
	return rc;
}

/* Class-index losses on host values: logp [N, C, inner] (row-major as
 * the input), targets [N, inner]; per-element loss into l, weights of the
 * counted elements summed into *wsum. */
static int nll_core(struct trace_ctx *c, const double *logp, const double *tg,
		    const double *w, int64_t N, int64_t C, int64_t inner,
		    int64_t ignore, double *l, double *wsum)
{
	int64_t i, k;

	*wsum = 0;
	for (i = 0; i < N; i++)
		for (k = 0; k < inner; k++) {
			int64_t t = (int64_t)tg[i * inner + k];
			double wt;

			if (t == ignore) {
				l[i * inner + k] = 0;
				continue;
			}
			if (t < 0 || t >= C)
				return trace_error(c, "target %lld is out of "
						   "bounds", (long long)t);
			wt = w ? w[t] : 1;
			l[i * inner + k] = -wt * logp[(i * C + t) * inner + k];
			*wsum += wt;
		}
	return 0;
}

/* nll geometry: self [N, C, *] or [C]; target [N, *] or [] */
static int nll_geom(struct trace_ctx *c, const struct gpu_tensor *x,
		    const struct gpu_tensor *tg, int64_t *N, int64_t *C,
		    int64_t *inner)
{
	int i;

	if (x->rank < 1)
		return trace_error(c, "input tensor should be 1D or more");
	if (x->rank == 1) {
		*N = 1;
		*C = x->dims[0];
		*inner = 1;
		if (tg->rank != 0)
			return trace_error(c, "expected a 0-D target for 1-D "
					   "input");
		return 0;
	}
	*N = x->dims[0];
	*C = x->dims[1];
	*inner = 1;
	for (i = 2; i < x->rank; i++)
		*inner *= x->dims[i];
	if (tg->rank != x->rank - 1 || tg->dims[0] != *N)
		return trace_error(c, "expected target of size [%lld, ...] "
				   "and rank %d, got rank %d", (long long)*N,
				   x->rank - 1, tg->rank);
	for (i = 2; i < x->rank; i++)
		if (tg->dims[i - 1] != x->dims[i])
			return trace_error(c, "target and input sizes do not "
					   "match");
	return 0;
}

/* nll_loss / nll_loss2d / nll_loss_nd(self, target, weight, reduction,
 * ignore_index) */
int nn_op_nll_loss(struct trace_ctx *c, const struct ir_node *n,
		   struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x, *tg, *w;
	int64_t red = 1, ign = -100, N, C, inner;
	double *xv = NULL, *tv = NULL, *wv = NULL, *l = NULL, wsum;
	int rc = -1;

	(void)n; (void)nout;
	if (tv_get_tensor(c, in[0], 0, &x) || tv_get_tensor(c, in[1], 0, &tg) ||
	    opt_tensor(c, in, nin, 2, &w) ||
	    (nin > 3 && tv_get_int(c, in[3], &red)) ||
	    (nin > 4 && tv_get_int(c, in[4], &ign)))
		return -1;
	if (nll_geom(c, x, tg, &N, &C, &inner))
		return -1;
	if (w && gpu_numel(w) != C)
		return trace_error(c, "weight tensor should be defined either "
				   "for all %lld classes or no classes",
				   (long long)C);
	xv = trace_to_host(c, x, IR_DTYPE_DOUBLE);
	tv = xv ? trace_to_host(c, tg, IR_DTYPE_DOUBLE) : NULL;
	wv = tv && w ? trace_to_host(c, w, IR_DTYPE_DOUBLE) : NULL;
	l = malloc(sizeof(double) * (size_t)(N * inner > 0 ? N * inner : 1));
	if (!tv || (w && !wv) || !l)
		goto out;
	if (nll_core(c, xv, tv, wv, N, C, inner, ign, l, &wsum))
		goto out;
	if (red == 1) {
		double s = 0;
		int64_t i;

		for (i = 0; i < N * inner; i++)
			s += l[i];
		s /= wsum;
		rc = trace_out(c, out, trace_from_host(c, x->dtype, 0, NULL,
						    IR_DTYPE_DOUBLE, &s));
	} else {
		rc = trace_out(c, out, reduce_loss(c, x->dtype, l, tg->rank,
						tg->dims, red));
	}
out:
	if (!l && tv)
		trace_error(c, "out of memory");
	free(xv);
	free(tv);
	free(wv);
	free(l);
	return rc;
}

/* cross_entropy_loss(self, target, weight, reduction, ignore_index,
 * label_smoothing): class indices or class probabilities */
int nn_op_cross_entropy(struct trace_ctx *c, const struct ir_node *n,
			struct tval **in, int nin, struct tval **out,
			int nout)
{
	struct gpu_tensor *x, *tg, *w, *lp = NULL;
	int64_t red = 1, ign = -100, N, C, inner, i, j, k;
	double ls = 0, *lv = NULL, *tv = NULL, *wv = NULL, *l = NULL, wsum;
	int rc = -1, ax;

	(void)n; (void)nout;
	if (tv_get_tensor(c, in[0], 0, &x) || tv_get_tensor(c, in[1], 0, &tg) ||
	    opt_tensor(c, in, nin, 2, &w) ||
	    (nin > 3 && tv_get_int(c, in[3], &red)) ||
	    (nin > 4 && tv_get_int(c, in[4], &ign)) ||
	    (nin > 5 && tv_get_float(c, in[5], &ls)))
		return -1;
	if (x->rank < 1)
		return trace_error(c, "input tensor should be 1D or more");
	ax = x->rank == 1 ? 0 : 1;
	C = x->dims[ax];
	N = x->rank == 1 ? 1 : x->dims[0];
	inner = 1;
	for (i = 2; i < x->rank; i++)
		inner *= x->dims[i];
	if (w && gpu_numel(w) != C)
		return trace_error(c, "weight tensor should be defined either "
				   "for all %lld classes or no classes",
				   (long long)C);
	lp = nn_softmax(c, x, ax, 1);
	lv = lp ? trace_to_host(c, lp, IR_DTYPE_DOUBLE) : NULL;
	tv = lv ? trace_to_host(c, tg, IR_DTYPE_DOUBLE) : NULL;
	wv = tv && w ? trace_to_host(c, w, IR_DTYPE_DOUBLE) : NULL;
	l = malloc(sizeof(double) * (size_t)(N * inner > 0 ? N * inner : 1));
	if (!tv || (w && !wv) || !l)
		goto out;
	if (nn_is_float(tg->dtype)) {
		/* probabilities, shaped as the input */
		if (tg->rank != x->rank || gpu_numel(tg) != gpu_numel(x)) {
			trace_error(c, "expected target of the input's shape "
				    "for class probabilities");
			goto out;
		}
		for (i = 0; i < N; i++)
			for (k = 0; k < inner; k++) {
				double s = 0;

				for (j = 0; j < C; j++) {
					int64_t e = (i * C + j) * inner + k;
					double t = tv[e] * (1 - ls) + ls / C;

					s -= lv[e] * t * (wv ? wv[j] : 1);
				}
				l[i * inner + k] = s;
			}
		if (red == 1) {
			double s = 0;

			for (i = 0; i < N * inner; i++)
				s += l[i];
			s /= (double)(N * inner);
			rc = trace_out(c, out, trace_from_host(c, x->dtype, 0,
							    NULL,
							    IR_DTYPE_DOUBLE, &s));
		} else {
			int64_t d[GPU_MAX_DIMS];
			int r = 0;

			for (i = 0; i < x->rank; i++)
				if (i != ax)
					d[r++] = x->dims[i];
			rc = trace_out(c, out, reduce_loss(c, x->dtype, l, r, d,
							red));
		}
		goto out;
	}
	if (nll_geom(c, x, tg, &N, &C, &inner) ||
	    nll_core(c, lv, tv, wv, N, C, inner, ign, l, &wsum))
		goto out;
	{
		double nll = 0, sm = 0, cnt = 0, *sl = NULL;

		if (ls > 0) {
			sl = malloc(sizeof(double) * (size_t)(N * inner > 0 ?
							      N * inner : 1));
			if (!sl) {
				trace_error(c, "out of memory");
				goto out;
			}
			for (i = 0; i < N; i++)
				for (k = 0; k < inner; k++) {
					double s = 0;

					if ((int64_t)tv[i * inner + k] == ign) {
						sl[i * inner + k] = 0;
						continue;
					}
					cnt++;
					for (j = 0; j < C; j++)
						s -= lv[(i * C + j) * inner + k] *
						     (wv ? wv[j] : 1);
					sl[i * inner + k] = s;
				}
		}
		if (red == 0) {
			if (sl)
				for (i = 0; i < N * inner; i++)
					l[i] = (1 - ls) * l[i] + sl[i] * ls /
					       (double)C;
			free(sl);
			rc = trace_out(c, out, reduce_loss(c, x->dtype, l,
							tg->rank, tg->dims,
							0));
			goto out;
		}
		for (i = 0; i < N * inner; i++) {
			nll += l[i];
			if (sl)
				sm += sl[i];
		}
		if (red == 1) {
			nll /= wsum;
			sm /= wv ? wsum : cnt;
		}
		free(sl);
		if (ls > 0)
			nll = (1 - ls) * nll + sm * ls / (double)C;
		rc = trace_out(c, out, trace_from_host(c, x->dtype, 0, NULL,
						    IR_DTYPE_DOUBLE, &nll));
	}
out:
	if (!l && tv)
		trace_error(c, "out of memory");
	gpu_free(lp);
	free(lv);
	free(tv);
	free(wv);
	free(l);
	return rc;
}

/* embedding_bag(weight, indices, offsets, scale_grad_by_freq, mode,
 * sparse, per_sample_weights, include_last_offset[, padding_idx]) ->
 * (output, offset2bag, bag_size, max_indices) */
int nn_op_embedding_bag(struct trace_ctx *c, const struct ir_node *n,
			struct tval **in, int nin, struct tval **out,
			int nout)
{
	struct gpu_tensor *w, *idx, *offs, *psw = NULL;
	int64_t mode = 0, pad = -1, ni, no, nb, D, b, i, j, d1[1], d2[2];
	double *iv = NULL, *ov = NULL, *pv = NULL, *wv = NULL, *r = NULL;
	double *o2b = NULL, *bsz = NULL, *mi = NULL;
	int last = 0, rc = -1, has_pad = 0;

	(void)n;
	if (nin < 8)
		return trace_error(c, "expected 8 or 9 arguments");
	if (tv_get_tensor(c, in[0], 0, &w) || tv_get_tensor(c, in[1], 0, &idx) ||
	    tv_get_tensor(c, in[2], 0, &offs) || tv_get_int(c, in[4], &mode) ||
	    tv_get_tensor(c, in[6], 1, &psw) || tv_get_bool(c, in[7], &last))
		return -1;
	if (nin > 8 && in[8]->kind != TV_NONE) {
		if (tv_get_int(c, in[8], &pad))
			return -1;
		has_pad = 1;
	}
	if (w->rank != 2 || idx->rank != 1 || offs->rank != 1)
		return trace_error(c, "expected 2-D weight, 1-D indices and "
				   "offsets");
	if (psw && mode != 0)
		return trace_error(c, "embedding_bag: per_sample_weights is "
				   "only supported for mode='sum'");
	ni = idx->dims[0];
	no = offs->dims[0];
	nb = last ? no - 1 : no;
	D = w->dims[1];
	if (nb < 0)
		return trace_error(c, "no offsets");
	if (has_pad && pad < 0)
		pad += w->dims[0];
	iv = trace_to_host(c, idx, IR_DTYPE_DOUBLE);
	ov = iv ? trace_to_host(c, offs, IR_DTYPE_DOUBLE) : NULL;
	pv = ov && psw ? trace_to_host(c, psw, IR_DTYPE_DOUBLE) : NULL;
	wv = ov ? trace_to_host(c, w, IR_DTYPE_DOUBLE) : NULL;
	r = calloc((size_t)(nb * D > 0 ? nb * D : 1), sizeof(double));
	o2b = calloc((size_t)(ni > 0 ? ni : 1), sizeof(double));
	bsz = calloc((size_t)(nb > 0 ? nb : 1), sizeof(double));
	mi = calloc((size_t)(nb * D > 0 ? nb * D : 1), sizeof(double));
	if (!wv || (psw && !pv) || !r || !o2b || !bsz || !mi) {
		if (wv && (!r || !o2b || !bsz || !mi))
			trace_error(c, "out of memory");
		goto out;
	}
	for (b = 0; b < nb; b++) {
		int64_t s = (int64_t)ov[b];
		int64_t e = b + 1 < no ? (int64_t)ov[b + 1] : ni;
		int64_t cnt = 0;

		if (e > ni)
			e = ni;
		for (j = 0; j < D; j++)
			mi[b * D + j] = -1;
		for (i = s; i < e; i++) {
			int64_t row = (int64_t)iv[i];

			o2b[i] = (double)b;
			if (row < 0 || row >= w->dims[0]) {
				trace_error(c, "index %lld is out of range",
					    (long long)row);
				goto out;
			}
			if (has_pad && row == pad)
				continue;
			for (j = 0; j < D; j++) {
				double x = wv[row * D + j] * (pv ? pv[i] : 1);

				if (mode == 2) {
					if (cnt == 0 || x > r[b * D + j]) {
						r[b * D + j] = x;
						mi[b * D + j] = (double)row;
					}
				} else {
					r[b * D + j] += x;
				}
			}
			cnt++;
		}
		bsz[b] = (double)cnt;
		if (mode == 1 && cnt > 0)
			for (j = 0; j < D; j++)
				r[b * D + j] /= (double)cnt;
	}
	d2[0] = nb;
	d2[1] = D;
	if (trace_out(c, out, trace_from_host(c, w->dtype, 2, d2, IR_DTYPE_DOUBLE,
					   r)))
		goto out;
	d1[0] = ni;
	if (nout > 1 && trace_out(c, out + 1, trace_from_host(c, IR_DTYPE_INT64, 1,
							   d1, IR_DTYPE_DOUBLE,
							   o2b)))
		goto fail;
	d1[0] = nb;
	if (nout > 2 && trace_out(c, out + 2, trace_from_host(c, IR_DTYPE_INT64, 1,
							   d1, IR_DTYPE_DOUBLE,
							   bsz)))
		goto fail;
	if (nout > 3 && trace_out(c, out + 3, mode == 2 ?
			       trace_from_host(c, IR_DTYPE_INT64, 2, d2,
					       IR_DTYPE_DOUBLE, mi) :
			       trace_from_host(c, IR_DTYPE_INT64, 1, d1,
					       IR_DTYPE_DOUBLE, bsz)))
		goto fail;
	rc = 0;
	goto out;
fail:
	for (i = 0; i < nout && i < 4; i++) {
		tv_unref(out[i]);
		out[i] = NULL;
	}
out:
	free(iv);
	free(ov);
	free(pv);
	free(wv);
	free(r);
	free(o2b);
	free(bsz);
	free(mi);
	return rc;
}

/* _pack_padded_sequence(input, lengths, batch_first) -> (data,
 * batch_sizes): lengths sorted decreasing, as pack_padded_sequence's
 * enforce_sorted path (the unsorted path sorts in Python first) */
int nn_op_pack_padded(struct trace_ctx *c, const struct ir_node *n,
		      struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x, *len, *xt = NULL, *data = NULL;
	double *lv = NULL, *bsv = NULL;
	int64_t B, T, t, b, rows = 0, dims[GPU_MAX_DIMS], d1[1];
	int bf = 0, rc = -1;

	(void)n; (void)nin;
	if (tv_get_tensor(c, in[0], 0, &x) || tv_get_tensor(c, in[1], 0, &len) ||
	    tv_get_bool(c, in[2], &bf))
		return -1;
	if (x->rank < 2 || len->rank != 1)
		return trace_error(c, "expected input of rank 2 or more and "
				   "1-D lengths");
	xt = bf ? nn_transpose(c, x, 0, 1) : trace_alias(c, x);
	if (!xt)
		return -1;
	T = xt->dims[0];
	B = xt->dims[1];
	if (len->dims[0] != B) {
		trace_error(c, "expected %lld lengths, got %lld", (long long)B,
			    (long long)len->dims[0]);
		goto out;
	}
	lv = trace_to_host(c, len, IR_DTYPE_DOUBLE);
	bsv = lv ? malloc(sizeof(double) * (size_t)(T > 0 ? T : 1)) : NULL;
	if (!bsv) {
		if (lv)
			trace_error(c, "out of memory");
		goto out;
	}
	for (b = 0; b < B; b++) {
		if (lv[b] <= 0 || lv[b] > T || (b && lv[b] > lv[b - 1])) {
			trace_error(c, "lengths must be positive, at most %lld "
				    "and sorted in decreasing order",
				    (long long)T);
			goto out;
		}
	}
	T = B > 0 ? (int64_t)lv[0] : 0;
	for (t = 0; t < T; t++) {
		int64_t k = 0;

		for (b = 0; b < B; b++)
			k += lv[b] > t;
		bsv[t] = (double)k;
		rows += k;
	}
	memcpy(dims, xt->dims + 1, sizeof(int64_t) * (xt->rank - 1));
	dims[0] = rows;
	data = trace_empty(c, x->dtype, xt->rank - 1, dims);
	if (!data)
		goto out;
	rows = 0;
	for (t = 0; t < T; t++) {
		struct gpu_tensor *row = nn_narrow(c, xt, 0, t, 1);
		struct gpu_tensor *r2 = row ? nn_squeeze(c, row, 0) : NULL;
		struct gpu_tensor *src = r2 ? nn_narrow(c, r2, 0, 0,
							(int64_t)bsv[t]) : NULL;
		struct gpu_tensor *dst = src ? nn_narrow(c, data, 0, rows,
							 (int64_t)bsv[t]) : NULL;
		int err = !dst || nn_copy(c, src, dst);

		gpu_free(row);
		gpu_free(r2);
		gpu_free(src);
		gpu_free(dst);
		if (err)
			goto out;
		rows += (int64_t)bsv[t];
	}
	d1[0] = T;
	if (trace_out(c, out, data))
		goto out;
	data = NULL;
	if (nout > 1 && trace_out(c, out + 1, trace_from_host(c, IR_DTYPE_INT64, 1,
							   d1, IR_DTYPE_DOUBLE,
							   bsv))) {
		tv_unref(out[0]);
		out[0] = NULL;
		goto out;
	}
	rc = 0;
out:
	gpu_free(xt);
	gpu_free(data);
	free(lv);
	free(bsv);
	return rc;
}

/* _pad_packed_sequence(data, batch_sizes, batch_first, padding_value,
 * total_length) -> (output, lengths) */
int nn_op_pad_packed(struct trace_ctx *c, const struct ir_node *n,
		     struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *data, *bsz, *y = NULL, *res = NULL;
	double *bv = NULL, *lens = NULL, pv = 0;
	int64_t T, B, tl = 0, t, b, rows = 0, dims[GPU_MAX_DIMS], d1[1];
	int bf = 0, rc = -1;

	(void)n; (void)nin;
	if (tv_get_tensor(c, in[0], 0, &data) ||
	    tv_get_tensor(c, in[1], 0, &bsz) || tv_get_bool(c, in[2], &bf) ||
	    tv_get_float(c, in[3], &pv) || tv_get_int(c, in[4], &tl))
		return -1;
	if (data->rank < 1 || bsz->rank != 1 || data->rank + 1 > GPU_MAX_DIMS)
		return trace_error(c, "expected packed data and 1-D batch "
				   "sizes");
	T = bsz->dims[0];
	bv = trace_to_host(c, bsz, IR_DTYPE_DOUBLE);
	if (!bv)
		return -1;
	B = T > 0 ? (int64_t)bv[0] : 0;
	if (tl < T)
		tl = T;
	lens = calloc((size_t)(B > 0 ? B : 1), sizeof(double));
	if (!lens) {
		trace_error(c, "out of memory");
		goto out;
	}
	dims[0] = tl;
	dims[1] = B;
	memcpy(dims + 2, data->dims + 1, sizeof(int64_t) * (data->rank - 1));
	y = trace_empty(c, data->dtype, data->rank + 1, dims);
	if (!y || c->be->fill(y, pv)) {
		if (y)
			trace_gpu_error(c);
		goto out;
	}
	for (t = 0; t < T; t++) {
		int64_t k = (int64_t)bv[t];
		struct gpu_tensor *src = nn_narrow(c, data, 0, rows, k);
		struct gpu_tensor *row = src ? nn_narrow(c, y, 0, t, 1) : NULL;
		struct gpu_tensor *r2 = row ? nn_squeeze(c, row, 0) : NULL;
		struct gpu_tensor *dst = r2 ? nn_narrow(c, r2, 0, 0, k) : NULL;
		int err = !dst || nn_copy(c, src, dst);

		gpu_free(src);
		gpu_free(row);
		gpu_free(r2);
		gpu_free(dst);
		if (err)
			goto out;
		for (b = 0; b < k && b < B; b++)
			lens[b] = (double)(t + 1);
		rows += k;
	}
	res = bf ? nn_transpose(c, y, 0, 1) : trace_alias(c, y);
	if (trace_out(c, out, res))
		goto out;
	d1[0] = B;
	if (nout > 1 && trace_out(c, out + 1, trace_from_host(c, IR_DTYPE_INT64, 1,
							   d1, IR_DTYPE_DOUBLE,
							   lens))) {
		tv_unref(out[0]);
		out[0] = NULL;
		goto out;
	}
	rc = 0;
out:
	gpu_free(y);
	free(bv);
	free(lens);
	return rc;
}

/* --- grid sampling, embedding renorm ------------------------------------ */

/* torch's reflect_coordinates: x reflected into [lo2 / 2, hi2 / 2] */
static double gs_reflect(double x, int64_t lo2, int64_t hi2)
{
	double lo, span, extra, flips;

	if (lo2 == hi2)
		return 0;
	lo = (double)lo2 / 2;
	span = (double)(hi2 - lo2) / 2;
	x = fabs(x - lo);
	extra = fmod(x, span);
	flips = floor(x / span);
	return fmod(flips, 2) == 0 ? extra + lo : span - extra + lo;
}

static double gs_clip(double x, int64_t size)
{
	return x < 0 ? 0 : x > (double)(size - 1) ? (double)(size - 1) : x;
}

/* padding (0 zeros, 1 border, 2 reflection) applied to a pixel
 * coordinate, as grid_sampler_compute_source_index */
static double gs_pad(double x, int64_t size, int pad, int align)
{
	if (pad == 1)
		return gs_clip(x, size);
	if (pad == 2) {
		x = align ? gs_reflect(x, 0, 2 * (size - 1)) :
		    gs_reflect(x, -1, 2 * size - 1);
		return gs_clip(x, size);
	}
	return x;
}

static double gs_unnorm(double g, int64_t size, int align)
{
	return align ? (g + 1) / 2 * (double)(size - 1) :
	       ((g + 1) * (double)size - 1) / 2;
}

/* plane[y][x] with zeros outside */
static double gs_at(const double *plane, int64_t h, int64_t w, int64_t y,
		    int64_t x)
{
	return y >= 0 && y < h && x >= 0 && x < w ? plane[y * w + x] : 0;
}

static void gs_cubic(double t, double *co)
{
	const double a = -0.75;
	double x;

	x = t + 1;
	co[0] = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
	x = t;
	co[1] = ((a + 2) * x - (a + 3)) * x * x + 1;
	x = 1 - t;
	co[2] = ((a + 2) * x - (a + 3)) * x * x + 1;
	x = 2 - t;
	co[3] = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
}

/* one output value of a plane at grid point (gx, gy) */
static double gs_sample(const double *p, int64_t h, int64_t w, double gx,
			double gy, int mode, int pad, int align)
{
	double x = gs_unnorm(gx, w, align), y = gs_unnorm(gy, h, align);
	double fx, fy, cx[4], cy[4], s = 0;
	int64_t x0, y0;
	int i, j;

	if (!isfinite(x) || !isfinite(y))
		return 0;
	/* far outside: the same result, and int64 conversions stay defined */
	x = fmax(fmin(x, 1e15), -1e15);
	y = fmax(fmin(y, 1e15), -1e15);

	if (mode == 2) { /* bicubic: padding per tap */
		x0 = (int64_t)floor(x);
		y0 = (int64_t)floor(y);
		gs_cubic(x - (double)x0, cx);
		gs_cubic(y - (double)y0, cy);
		for (j = 0; j < 4; j++)
			for (i = 0; i < 4; i++) {
				double tx = gs_pad((double)(x0 - 1 + i), w,
						   pad, align);
				double ty = gs_pad((double)(y0 - 1 + j), h,
						   pad, align);

				s += cx[i] * cy[j] * gs_at(p, h, w,
					(int64_t)ty, (int64_t)tx);
			}
		return s;
	}
	x = gs_pad(x, w, pad, align);
	y = gs_pad(y, h, pad, align);
	if (mode == 1)
		return gs_at(p, h, w, (int64_t)nearbyint(y),
			     (int64_t)nearbyint(x));
	x0 = (int64_t)floor(x);
	y0 = (int64_t)floor(y);
	fx = x - (double)x0;
	fy = y - (double)y0;
	return gs_at(p, h, w, y0, x0) * (1 - fx) * (1 - fy) +
	       gs_at(p, h, w, y0, x0 + 1) * fx * (1 - fy) +
	       gs_at(p, h, w, y0 + 1, x0) * (1 - fx) * fy +
	       gs_at(p, h, w, y0 + 1, x0 + 1) * fx * fy;
}

/* grid_sampler(input, grid, interpolation_mode, padding_mode,
 * align_corners), also grid_sampler_2d: 4-d input (N, C, H, W), grid
 * (N, Ho, Wo, 2) of (x, y) in [-1, 1]; on the host in double */
int nn_op_grid_sampler(struct trace_ctx *c, const struct ir_node *n,
		       struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x, *g;
	int64_t mode = 0, pad = 0, dims[4], nb, ch, h, w, ho, wo, b, k, i;
	double *xv = NULL, *gv = NULL, *r = NULL;
	int align = 0, rc = -1;

	(void)n; (void)nout;
	if (nin < 5 || tv_get_tensor(c, in[0], 0, &x) ||
	    tv_get_tensor(c, in[1], 0, &g) || tv_get_int(c, in[2], &mode) ||
	    tv_get_int(c, in[3], &pad) || tv_get_bool(c, in[4], &align))
		return nin < 5 ? trace_error(c, "expected 5 arguments") : -1;
	if (x->rank == 5)
		return trace_error(c, "5-d (volumetric) grid sampling is not "
				   "supported");
	if (x->rank != 4 || g->rank != 4 || g->dims[3] != 2 ||
	    g->dims[0] != x->dims[0])
		return trace_error(c, "expected a 4-d input and a grid of "
				   "(N, H, W, 2) with the same N");
	if (mode < 0 || mode > 2 || pad < 0 || pad > 2)
		return trace_error(c, "interpolation mode %lld or padding "
				   "mode %lld out of range", (long long)mode,
				   (long long)pad);
	if (!nn_is_float(x->dtype) || !nn_is_float(g->dtype))
		return trace_error(c, "expected floating-point input and grid");
	nb = x->dims[0];
	ch = x->dims[1];
	h = x->dims[2];
	w = x->dims[3];
	ho = g->dims[1];
	wo = g->dims[2];
	dims[0] = nb;
	dims[1] = ch;
	dims[2] = ho;
	dims[3] = wo;
	xv = trace_to_host(c, x, IR_DTYPE_DOUBLE);
	gv = xv ? trace_to_host(c, g, IR_DTYPE_DOUBLE) : NULL;
	r = gv ? malloc(sizeof(double) * (size_t)(nb * ch * ho * wo > 0 ?
						   nb * ch * ho * wo : 1)) :
		 NULL;
	if (gv && !r)
		trace_error(c, "out of memory");
	if (!r)
		goto out;
	for (b = 0; b < nb; b++)
		for (k = 0; k < ch; k++) {
			const double *p = xv + (b * ch + k) * h * w;
			double *o = r + (b * ch + k) * ho * wo;

			for (i = 0; i < ho * wo; i++) {
				const double *gp = gv + (b * ho * wo + i) * 2;

				o[i] = gs_sample(p, h, w, gp[0], gp[1],
						 (int)mode, (int)pad, align);
			}
		}
	rc = trace_out(c, out, trace_from_host(c, x->dtype, 4, dims,
					    IR_DTYPE_DOUBLE, r));
out:
	free(xv);
	free(gv);
	free(r);
	return rc;
}

/* embedding_renorm_(weight, indices, max_norm, norm_type): the rows that
 * indices name whose norm exceeds max_norm scaled to max_norm / (norm +
 * 1e-7), in place; returns weight */
int nn_op_embedding_renorm(struct trace_ctx *c, const struct ir_node *n,
			   struct tval **in, int nin, struct tval **out,
			   int nout)
{
	struct gpu_tensor *w, *idx, *nw;
	double maxn, p, *wv, *iv = NULL;
	int64_t rows, cols, cnt, i, j;
	char *seen = NULL;
	int rc = -1;

	(void)n; (void)nout;
	if (nin < 4 || tv_get_tensor(c, in[0], 0, &w) ||
	    tv_get_tensor(c, in[1], 0, &idx) || tv_get_float(c, in[2], &maxn) ||
	    tv_get_float(c, in[3], &p))
		return nin < 4 ? trace_error(c, "expected 4 arguments") : -1;
	if (w->rank != 2)
		return trace_error(c, "the weight must be 2-d");
	if (!nn_is_float(w->dtype))
		return trace_error(c, "the weight must be floating-point");
	if (nn_is_float(idx->dtype) || idx->dtype == IR_DTYPE_BOOL)
		return trace_error(c, "indices must be integers");
	rows = w->dims[0];
	cols = w->dims[1];
	cnt = gpu_numel(idx);
	wv = trace_to_host(c, w, IR_DTYPE_DOUBLE);
	iv = wv ? trace_to_host(c, idx, IR_DTYPE_DOUBLE) : NULL;
	seen = iv ? calloc((size_t)(rows > 0 ? rows : 1), 1) : NULL;
	if (iv && !seen)
		trace_error(c, "out of memory");
	if (!seen)
		goto out;
	for (i = 0; i < cnt; i++) {
		int64_t r = (int64_t)iv[i];
		double norm = 0;

		if (r < 0 || r >= rows) {
			trace_error(c, "index %lld out of range for %lld rows",
				    (long long)r, (long long)rows);
			goto out;
		}
		if (seen[r])
			continue;
		seen[r] = 1;
		for (j = 0; j < cols; j++) {
			double a = fabs(wv[r * cols + j]);

			if (p == 1)
				norm += a;
			else if (p == 2)
				norm += a * a;
			else if (isinf(p))
				norm = a > norm ? a : norm;
			else
				norm += pow(a, p);
		}
		norm = p == 1 || isinf(p) ? norm : p == 2 ? sqrt(norm) :
		       pow(norm, 1 / p);
		if (norm > maxn)
			for (j = 0; j < cols; j++)
				wv[r * cols + j] *= maxn / (norm + 1e-7);
	}
	nw = trace_from_host(c, w->dtype, 2, w->dims, IR_DTYPE_DOUBLE, wv);
	if (!nw)
		goto out;
	rc = trace_write_into(c, w, nw);
	gpu_free(nw);
	if (!rc)
		rc = trace_out(c, out, trace_alias(c, w));
out:
	free(wv);
	free(iv);
	free(seen);
	return rc;
}

/*
 * symbolic_rnn.c - aten::lstm, aten::gru, aten::rnn_tanh and
 * aten::rnn_relu (their .input overloads, what nn.LSTM/GRU/RNN record) as
 * ONNX LSTM, GRU and RNN nodes, one per layer, as torch's
 * symbolic_opset9._generic_rnn does: the gates reordered from torch's
 * (LSTM i f g o, GRU r z n) to ONNX's (i o f c, z r h), W/R/B stacked per
 * direction, GRU with linear_before_reset=1, Y reshaped back to
 * (seq, batch, directions * hidden), the final states concatenated over the
 * layers, batch_first by a Transpose on each side.  Dropout between layers
 * is a training-mode thing and is dropped (eval).  The ONNX nodes' unused
 * outputs (Y_h, Y_c of inner layers) are named values nobody reads: the IR
 * has no absent node output (docs/ir.md).
 */
#include <string.h>

#include "symbolic_common.h"

#define T(i) lw_tensor(c, n, (i))

enum rnn_kind { RNN_LSTM, RNN_GRU, RNN_TANH, RNN_RELU };

/* w (gates * hidden, ...) with its gate blocks put in ONNX's order */
static struct ir_value *reorder(struct lower_ctx *c, struct ir_value *w,
				enum rnn_kind k, int64_t hid)
{
	/* source gate of each ONNX gate */
	static const int lstm[4] = { 0, 3, 1, 2 }, gru[3] = { 1, 0, 2 };
	const int *src = k == RNN_LSTM ? lstm : gru;
	int ng = k == RNN_LSTM ? 4 : 3;
	if (k == RNN_TANH || k == RNN_RELU)
		return w;
	struct ir_value *parts[4];
	for (int i = 0; i < ng; i++)
		parts[i] = b_slice(c, w, src[i] * hid, (src[i] + 1) * hid, 0, 1);
	struct ir_node *cat = b_node(c, "Concat", ng, parts, 1);
	b_attr_i(c, cat, "axis", 0);
	return b_done(c, cat);
}

static struct ir_value *concat0(struct lower_ctx *c, struct ir_value **v,
				int k)
{
	if (k == 1)
		return v[0];
	struct ir_node *cat = b_node(c, "Concat", k, v, 1);
	b_attr_i(c, cat, "axis", 0);
	return b_done(c, cat);
}

static struct ir_value *unsq0(struct lower_ctx *c, struct ir_value *v)
{
	int64_t zero = 0;
	return b_unsqueeze(c, v, &zero, 1);
}

static struct ir_value *transpose3(struct lower_ctx *c, struct ir_value *x)
{
	static const int64_t perm[3] = { 1, 0, 2 };
	struct ir_node *t = b_node(c, "Transpose", 1, &x, 1);
	b_attr_ints(c, t, "perm", perm, 3);
	return b_done(c, t);
}

static void set_type(struct lower_ctx *c, struct ir_value *v, enum ir_dtype dt,
		     int rank)
{
	v->type = ir_type_tensor(c->g, dt, rank, NULL);
	for (int i = 0; i < rank; i++)
		v->type->dims[i].kind = IR_DIM_UNKNOWN;
}

static int generic_rnn(struct lower_ctx *c, struct ir_node *n,
		       struct ir_value **out, enum rnn_kind k)
{
	/* lstm.input(input, hx[], params[], has_biases, num_layers, dropout,
	 * train, bidirectional, batch_first); gru/rnn: hx a tensor */
	int64_t bias, layers, bidir, bfirst;
	struct ir_value *x = T(0), *params[256], *hx[2];
	if (n->ninputs != 9)
		return lw_decline(c, "only the .input overload (no packed "
				  "sequences)");
	if (!lw_int(c, n, 3, &bias) || !lw_int(c, n, 4, &layers) ||
	    !lw_int(c, n, 7, &bidir) || !lw_int(c, n, 8, &bfirst))
		return lw_decline(c, "has_biases, num_layers, bidirectional or "
				  "batch_first not constant");
	int np = lw_list(c, n, 2, params, 256);
	int dirs = bidir ? 2 : 1, per = bias ? 4 : 2;
	if (np < 0 || layers < 1 || np != layers * dirs * per)
		return lw_decline(c, "the parameters are not a list of "
				  "num_layers x directions weights");
	int nh = k == RNN_LSTM ? 2 : 1;
	if (k == RNN_LSTM) {
		if (lw_list(c, n, 1, hx, 2) != 2)
			return lw_decline(c, "hx is not a list (h0, c0)");
	} else {
		hx[0] = T(1);
	}
	if (!x || !hx[0] || b_rank(x) != 3)
		return lw_decline(c, "the input is not (seq, batch, feature)");
	int ng = k == RNN_LSTM ? 4 : k == RNN_GRU ? 3 : 1;
	int r = b_rank(params[0]);
	if (r != 2 || params[0]->type->dims[0].kind != IR_DIM_FIXED)
		return lw_decline(c, "weight shapes unknown");
	int64_t hid = params[0]->type->dims[0].value / ng;
	enum ir_dtype dt = b_dtype(x);
	const char *op = k == RNN_LSTM ? "LSTM" : k == RNN_GRU ? "GRU" : "RNN";

	if (bfirst)
		x = transpose3(c, x);
	struct ir_value *hn[2][64];
	if (layers > 64)
		return lw_decline(c, "more than 64 layers");
	for (int64_t l = 0; l < layers; l++) {
		struct ir_value *w[2], *rr[2], *bb[2];
		for (int d = 0; d < dirs; d++) {
			struct ir_value **p = params + (l * dirs + d) * per;
			w[d] = unsq0(c, reorder(c, p[0], k, hid));
			rr[d] = unsq0(c, reorder(c, p[1], k, hid));
			if (bias) {
				struct ir_value *bs[2] = {
					reorder(c, p[2], k, hid),
					reorder(c, p[3], k, hid) };
				bb[d] = unsq0(c, concat0(c, bs, 2));
			}
		}
		struct ir_value *in[8] = { x, concat0(c, w, dirs),
			concat0(c, rr, dirs), bias ? concat0(c, bb, dirs) : NULL,
			NULL, NULL, NULL, NULL };
		for (int s = 0; s < nh; s++)
			in[5 + s] = b_slice(c, hx[s], l * dirs, (l + 1) * dirs,
					    0, 1);
		struct ir_node *nd = b_node(c, op, 5 + nh, in, 1 + nh);
		b_attr_i(c, nd, "hidden_size", hid);
		if (bidir)
			b_attr_s(c, nd, "direction", "bidirectional");
		if (k == RNN_GRU)
			b_attr_i(c, nd, "linear_before_reset", 1);
		if (k == RNN_TANH || k == RNN_RELU) {
			struct ir_attr *a = ir_node_add_attr(c->g, nd,
					"activations", IR_ATTR_STRINGS);
			a->count = (uint32_t)dirs;
			a->u.strings = ir_alloc(c->g, sizeof(*a->u.strings) * 2);
			for (int d = 0; d < dirs; d++) {
				a->u.strings[d].data = k == RNN_TANH ? "Tanh"
								      : "Relu";
				a->u.strings[d].len = 4;
			}
		}
		b_done(c, nd);
		set_type(c, nd->outputs[0], dt, 4);
		for (int s = 0; s < nh; s++) {
			set_type(c, nd->outputs[1 + s], dt, 3);
			hn[s][l] = nd->outputs[1 + s];
		}
		/* Y (seq, dirs, batch, hidden) -> (seq, batch, dirs * hidden) */
		struct ir_value *y = nd->outputs[0];
		if (bidir) {
			static const int64_t perm[4] = { 0, 2, 1, 3 };
			struct ir_node *t = b_node(c, "Transpose", 1, &y, 1);
			b_attr_ints(c, t, "perm", perm, 4);
			int64_t shape[3] = { 0, 0, -1 };
			y = b_op2(c, "Reshape", b_done(c, t),
				  b_const_i64s(c, shape, 3, 1));
		} else {
			int64_t one = 1;
			y = b_squeeze(c, y, &one, 1);
		}
		x = y;
	}
	out[0] = bfirst ? transpose3(c, x) : x;
	for (int s = 0; s < nh; s++)
		out[1 + s] = concat0(c, hn[s], (int)layers);
	return 0;
}

SYM(sym_lstm) { return generic_rnn(c, n, out, RNN_LSTM); }
SYM(sym_gru) { return generic_rnn(c, n, out, RNN_GRU); }
SYM(sym_rnn_tanh) { return generic_rnn(c, n, out, RNN_TANH); }
SYM(sym_rnn_relu) { return generic_rnn(c, n, out, RNN_RELU); }

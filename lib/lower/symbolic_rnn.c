/*
 * symbolic_rnn.c - aten::lstm, aten::gru, aten::rnn_tanh and
 * aten::rnn_relu (their .input overloads, what nn.LSTM/GRU/RNN record) as
 * ONNX LSTM, GRU and RNN nodes, one per layer, after torch's
 * symbolic_opset9._generic_rnn: the gates reordered from torch's (LSTM
 * i f g o, GRU r z n) to ONNX's (i o f c, z r h), W/R/B stacked per
 * direction, GRU with linear_before_reset=1, Y reshaped back to
 * (seq, batch, directions * hidden), the final states concatenated over the
 * layers, batch_first by a Transpose on each side.  Dropout between layers
 * is a training-mode thing and is dropped (eval).  The ONNX nodes' unused
 * outputs (Y_h, Y_c of inner layers) are named values nobody reads: the IR
 * has no absent node output (docs/ir.md).
 *
 * Fewer nodes than torch's where the result is the same:
 *  - an initial state of zeros (what nn.LSTM & co. build when given none:
 *    a ConstantOfShape of 0) is left out, the ONNX default; the nodes that
 *    built it are then dead and fold drops them;
 *  - an initial state is cut per layer by one Split into equal parts, not
 *    a Slice per layer, and not at all for one layer;
 *  - weights that are weights (or constants) are reordered by Slices and
 *    Concats that fold computes; computed ones (aten::lstm on graph
 *    inputs) by one Split per tensor and one Concat per W, R or B;
 *  - the last layer's Y of a batch_first bidirectional RNN goes straight to
 *    (batch, seq, 2 * hidden) by one Transpose and a Reshape;
 *  - the axes (opset 13+) and shapes are Constants made once per aten node
 *    and shared by every Unsqueeze, Squeeze and Reshape that needs them.
 * tests/411-lower-rnn.bats holds each case to torch.onnx.export's count.
 */
#include <string.h>

#include "symbolic_common.h"

#define T(i) lw_tensor(c, n, (i))

enum rnn_kind { RNN_LSTM, RNN_GRU, RNN_TANH, RNN_RELU };

/* source (torch) gate of each ONNX gate */
static const int lstm_src[4] = { 0, 3, 1, 2 }, gru_src[3] = { 1, 0, 2 };

static int ngates(enum rnn_kind k)
{
	return k == RNN_LSTM ? 4 : k == RNN_GRU ? 3 : 1;
}

static const int *gate_src(enum rnn_kind k)
{
	return k == RNN_LSTM ? lstm_src : gru_src;
}

/* w (gates * hidden, ...) with its gate blocks put in ONNX's order, by
 * Slices (for weights: fold computes them) */
static struct ir_value *reorder(struct lower_ctx *c, struct ir_value *w,
				enum rnn_kind k, int64_t hid)
{
	const int *src = gate_src(k);
	int ng = ngates(k);
	if (ng == 1)
		return w;
	struct ir_value *parts[4];
	for (int i = 0; i < ng; i++)
		parts[i] = b_slice(c, w, src[i] * hid, (src[i] + 1) * hid, 0, 1);
	return b_concat(c, ng, parts, 0);
}

/* appends w's gate blocks in ONNX's order to parts[*np], by one Split */
static void split_gates(struct lower_ctx *c, struct ir_value *w,
			enum rnn_kind k, struct ir_value **parts, int *np)
{
	int ng = ngates(k);
	if (ng == 1) {
		parts[(*np)++] = w;
		return;
	}
	struct ir_value *g[4];
	b_split(c, w, 0, NULL, ng, g);
	for (int i = 0; i < ng; i++)
		parts[(*np)++] = g[gate_src(k)[i]];
}

static struct ir_value *concat0(struct lower_ctx *c, struct ir_value **v,
				int k)
{
	if (k == 1)
		return v[0];
	return b_concat(c, k, v, 0);
}

/* The Long constants of one lowering, each made once and shared by the
 * nodes that need it (axes, shapes). */
struct kcache {
	int n;
	struct {
		int64_t v[3];
		int len;
		struct ir_value *val;
	} e[8];
};

static struct ir_value *kconst(struct lower_ctx *c, struct kcache *kc,
			       const int64_t *v, int len)
{
	for (int i = 0; i < kc->n; i++)
		if (kc->e[i].len == len &&
		    !memcmp(kc->e[i].v, v, sizeof(*v) * (size_t)len))
			return kc->e[i].val;
	struct ir_value *k = b_const_i64s(c, v, len, 1);
	if (kc->n < 8 && len <= 3) {
		memcpy(kc->e[kc->n].v, v, sizeof(*v) * (size_t)len);
		kc->e[kc->n].len = len;
		kc->e[kc->n++].val = k;
	}
	return k;
}

/* Unsqueeze or Squeeze of one axis: an attribute before opset 13, a
 * shared constant from 13 */
static struct ir_value *axis_op(struct lower_ctx *c, struct kcache *kc,
				const char *op, struct ir_value *v,
				int64_t axis)
{
	if (c->opset < 13)
		return op[0] == 'U' ? b_unsqueeze(c, v, &axis, 1)
				    : b_squeeze(c, v, &axis, 1);
	struct ir_value *in[2] = { v, kconst(c, kc, &axis, 1) };
	return b_done(c, b_node(c, op, 2, in, 1));
}

static struct ir_value *unsq0(struct lower_ctx *c, struct kcache *kc,
			      struct ir_value *v)
{
	return axis_op(c, kc, "Unsqueeze", v, 0);
}

static struct ir_value *reshape(struct lower_ctx *c, struct kcache *kc,
				struct ir_value *v, const int64_t *shape,
				int rank)
{
	return b_op2(c, "Reshape", v, kconst(c, kc, shape, rank));
}

static const int64_t swap01[3] = { 1, 0, 2 };

/* 1 when v is known to hold zeros only: a ConstantOfShape of 0 (what
 * nn.LSTM & co. build for a missing hx) or a Constant of zeros */
static int is_zeros(const struct ir_value *v)
{
	const struct ir_node *p = v ? v->producer : NULL;
	if (!p)
		return 0;
	int cos = !strcmp(p->kind, "onnx::ConstantOfShape");
	if (!cos && strcmp(p->kind, "onnx::Constant"))
		return 0;
	struct ir_attr *a = ir_node_find_attr(p, "value");
	if (!a)
		return cos; /* ConstantOfShape's default: a float 0 */
	if (a->kind != IR_ATTR_TENSOR || a->u.t->data_kind != IR_DATA_INLINE ||
	    !a->u.t->bytes.data)
		return 0;
	for (size_t i = 0; i < a->u.t->bytes.len; i++)
		if (((const unsigned char *)a->u.t->bytes.data)[i])
			return 0;
	return 1;
}

/* 1 when fold can compute v: a weight or a Constant */
static int foldable(const struct ir_value *v)
{
	return v->weight || (v->producer &&
			     !strcmp(v->producer->kind, "onnx::Constant"));
}

/* a tensor type of rank dims: dim i is x's dim from[i] when from[i] >= 0,
 * else the size size[i] */
static void set_type(struct lower_ctx *c, struct ir_value *v, enum ir_dtype dt,
		     const struct ir_value *x, const int *from,
		     const int64_t *size, int rank)
{
	struct ir_type *t = ir_type_tensor(c->g, dt, rank, NULL);
	for (int i = 0; i < rank; i++) {
		t->dims[i].kind = IR_DIM_UNKNOWN;
		if (from[i] < 0) {
			t->dims[i].kind = IR_DIM_FIXED;
			t->dims[i].value = size[i];
		} else if (b_rank(x) == 3) {
			t->dims[i] = x->type->dims[from[i]];
		}
	}
	v->type = t;
}

/* W, R and B of one layer (ONNX's (dirs, gates * hidden, ...)) from
 * p[d * per + j], j 0..per-1 of each direction */
static void layer_weights(struct lower_ctx *c, struct kcache *kc,
			  struct ir_value **p, int dirs, int per,
			  enum rnn_kind k, int64_t hid, struct ir_value **wrb)
{
	int fold = 1, ng = ngates(k);
	for (int i = 0; i < dirs * per; i++)
		fold &= foldable(p[i]);
	for (int j = 0; j < 2; j++) {
		struct ir_value *v[8];
		int nv = 0;
		for (int d = 0; d < dirs; d++) {
			if (fold)
				v[nv++] = unsq0(c, kc, reorder(c,
						p[d * per + j], k, hid));
			else
				split_gates(c, p[d * per + j], k, v, &nv);
		}
		if (fold) {
			wrb[j] = concat0(c, v, nv);
		} else if (dirs == 1) {
			wrb[j] = unsq0(c, kc, concat0(c, v, nv));
		} else {
			int64_t shape[3] = { dirs, ng * hid, -1 };
			wrb[j] = reshape(c, kc, concat0(c, v, nv), shape, 3);
		}
	}
	wrb[2] = NULL;
	if (per < 4)
		return;
	struct ir_value *v[16];
	int nv = 0;
	for (int d = 0; d < dirs; d++) {
		if (fold) {
			struct ir_value *bs[2] = {
				reorder(c, p[d * per + 2], k, hid),
				reorder(c, p[d * per + 3], k, hid) };
			v[nv++] = unsq0(c, kc, concat0(c, bs, 2));
		} else {
			split_gates(c, p[d * per + 2], k, v, &nv);
			split_gates(c, p[d * per + 3], k, v, &nv);
		}
	}
	if (fold) {
		wrb[2] = concat0(c, v, nv);
	} else if (dirs == 1) {
		wrb[2] = unsq0(c, kc, concat0(c, v, nv));
	} else {
		int64_t shape[2] = { dirs, -1 };
		wrb[2] = reshape(c, kc, concat0(c, v, nv), shape, 2);
	}
}

/* 1 when n is an RNN's .data overload (a packed sequence: data,
 * batch_sizes, hx, params, ...), whose params (input 3) is a list where
 * the .input overload has has_biases */
static int packed_overload(const struct ir_node *n)
{
	return n->ninputs == 9 && n->inputs[3]->type &&
	       n->inputs[3]->type->kind == IR_TYPE_LIST;
}

/* What a packed sequence is once lowered: _pack_padded_sequence's data
 * (the padded input, time first) and batch_sizes (the lengths, int32),
 * and an RNN's output on them (its padded Y).  Each is known by two
 * values, the aten node's output and the symbolic's (lower.c binds one to
 * the other; a later node reads either). */
enum { PK_DATA, PK_RNN_OUT };
struct lw_packed {
	const struct ir_value *v[2], *lens[2];
	int role;
	struct ir_value *longest; /* size(batch_sizes, 0) lowered */
	struct lw_packed *next;
};

static void packed_add(struct lower_ctx *c, struct ir_node *n,
		       struct ir_value **out, const struct ir_value *const *lens,
		       int role)
{
	struct lw_packed *p = ir_alloc(c->g, sizeof(*p));
	p->v[0] = n->outputs[0];
	p->v[1] = out[0];
	p->lens[0] = lens[0];
	p->lens[1] = lens[1];
	p->role = role;
	p->longest = NULL;
	p->next = c->packed;
	c->packed = p;
}

/* The packing whose role value is input 0 of n and lengths input 1. */
static const struct lw_packed *packed_find(const struct lower_ctx *c,
					   const struct ir_node *n, int role)
{
	const struct ir_value *v = n->inputs[0], *l = n->inputs[1];
	for (const struct lw_packed *p = c->packed; p; p = p->next)
		if (p->role == role && (p->v[0] == v || p->v[1] == v) &&
		    (p->lens[0] == l || p->lens[1] == l))
			return p;
	return NULL;
}

static int generic_rnn(struct lower_ctx *c, struct ir_node *n,
		       struct ir_value **out, enum rnn_kind k)
{
	/* lstm.input(input, hx[], params[], has_biases, num_layers, dropout,
	 * train, bidirectional, batch_first); gru/rnn: hx a tensor.  The
	 * .data overload (data, batch_sizes, hx, params, has_biases,
	 * num_layers, dropout, train, bidirectional) of a packed sequence
	 * runs on the padded input _pack_padded_sequence passed through,
	 * its lengths ONNX's sequence_lens, as torch's ONNX passes
	 * (pushPackingPastRnn, removeNopPacking) lower it. */
	int64_t bias, layers, bidir, bfirst = 0;
	struct ir_value *x = T(0), *params[256], *hx[2], *seq_lens = NULL;
	int pk = packed_overload(n);
	if (n->ninputs != 9)
		return lw_decline(c, "not the .input or .data overload");
	const struct lw_packed *pd = pk ? packed_find(c, n, PK_DATA) : NULL;
	if (pk && !pd)
		return lw_decline(c, "a packed sequence not made by "
				  "pack_padded_sequence");
	if (pk)
		seq_lens = T(1);
	if (!lw_int(c, n, 3 + pk, &bias) || !lw_int(c, n, 4 + pk, &layers) ||
	    !lw_int(c, n, 7 + pk, &bidir) || (!pk && !lw_int(c, n, 8, &bfirst)))
		return lw_decline(c, "has_biases, num_layers, bidirectional or "
				  "batch_first not constant");
	int np = lw_list(c, n, 2 + pk, params, 256);
	int dirs = bidir ? 2 : 1, per = bias ? 4 : 2;
	if (np < 0 || layers < 1 || np != layers * dirs * per)
		return lw_decline(c, "the parameters are not a list of "
				  "num_layers x directions weights");
	if (layers > 64)
		return lw_decline(c, "more than 64 layers");
	int nh = k == RNN_LSTM ? 2 : 1;
	if (k == RNN_LSTM) {
		if (lw_list(c, n, 1 + pk, hx, 2) != 2)
			return lw_decline(c, "hx is not a list (h0, c0)");
	} else {
		hx[0] = T(1 + pk);
	}
	if (!x || !hx[0] || (nh == 2 && !hx[1]) || b_rank(x) != 3)
		return lw_decline(c, "the input is not (seq, batch, feature)");
	int ng = ngates(k);
	if (b_rank(params[0]) != 2 ||
	    params[0]->type->dims[0].kind != IR_DIM_FIXED)
		return lw_decline(c, "weight shapes unknown");
	int64_t hid = params[0]->type->dims[0].value / ng;
	enum ir_dtype dt = b_dtype(x);
	const char *op = k == RNN_LSTM ? "LSTM" : k == RNN_GRU ? "GRU" : "RNN";
	const struct ir_value *x0 = x;
	/* (seq, batch) of the input, as dims of x0 */
	int sq = bfirst ? 1 : 0, bt = bfirst ? 0 : 1;

	if (bfirst)
		x = b_transpose(c, x, swap01, 3);
	/* per state: its slice for each layer (NULL: zeros, left out) */
	struct ir_value *h0[2][64];
	for (int s = 0; s < nh; s++) {
		if (is_zeros(hx[s]))
			memset(h0[s], 0, sizeof(h0[s]));
		else if (layers == 1)
			h0[s][0] = hx[s];
		else
			b_split(c, hx[s], 0, NULL, (int)layers, h0[s]);
	}
	struct ir_value *hn[2][64];
	struct kcache kc = { 0 };
	for (int64_t l = 0; l < layers; l++) {
		struct ir_value *in[7] = { x };
		in[4] = seq_lens;
		layer_weights(c, &kc, params + l * dirs * per, dirs, per, k,
			      hid, in + 1);
		for (int s = 0; s < nh; s++)
			in[5 + s] = h0[s][l];
		int nin = 5 + nh;
		while (!in[nin - 1])
			nin--;
		struct ir_node *nd = b_node(c, op, nin, in, 1 + nh);
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
		/* Y (seq, dirs, batch, hidden), Y_h (dirs, batch, hidden) */
		const int fy[4] = { sq, -1, bt, -1 }, fh[3] = { -1, bt, -1 };
		const int64_t sy[4] = { 0, dirs, 0, hid },
			      sh[3] = { dirs, 0, hid };
		set_type(c, nd->outputs[0], dt, x0, fy, sy, 4);
		for (int s = 0; s < nh; s++) {
			set_type(c, nd->outputs[1 + s], dt, x0, fh, sh, 3);
			hn[s][l] = nd->outputs[1 + s];
		}
		struct ir_value *y = nd->outputs[0];
		int last = l == layers - 1;
		if (bidir) {
			/* -> (seq, batch, 2 * hidden), or straight to
			 * (batch, seq, 2 * hidden) for batch_first */
			static const int64_t p0[4] = { 0, 2, 1, 3 },
					     p1[4] = { 2, 0, 1, 3 };
			int64_t shape[3] = { 0, 0, -1 };
			y = b_transpose(c, y, last && bfirst ? p1 : p0, 4);
			y = reshape(c, &kc, y, shape, 3);
		} else {
			y = axis_op(c, &kc, "Squeeze", y, 1);
			if (last && bfirst)
				y = b_transpose(c, y, swap01, 3);
		}
		x = y;
	}
	out[0] = x;
	for (int s = 0; s < nh; s++)
		out[1 + s] = concat0(c, hn[s], (int)layers);
	if (pk)
		packed_add(c, n, out, pd->lens, PK_RNN_OUT);
	return 0;
}

/*
 * Packed sequences, as torch 1.13's exporter has them (symbolic_opset9's
 * _pack_padded_sequence and _pad_packed_sequence, then its ONNX passes
 * pushPackingPastRnn and removeNopPacking): packing passes the padded
 * input through (time first) with its lengths as int32, the RNN between
 * takes them as sequence_lens (its Y is 0 past each length, its final
 * states those at each length), and unpacking passes the RNN's Y through
 * with the lengths.  Anything but an RNN on the packed data, or a padding
 * value other than 0 (ONNX's RNNs pad with 0), is declined rather than
 * made a model that differs from torch.
 */
/* The kind of a node from `from` on (nested blocks too; aten nodes not
 * lowered yet) that reads v and is not an RNN or its dtype or device
 * (the same packed or not), or NULL. */
static const char *non_rnn_user(const struct ir_node *from,
				const struct ir_value *v)
{
	for (const struct ir_node *u = from; u; u = u->next) {
		int rnn = u->op == OP_aten_lstm || u->op == OP_aten_gru ||
			  u->op == OP_aten_rnn_tanh || u->op == OP_aten_rnn_relu ||
			  u->op == OP_prim_dtype || u->op == OP_prim_device;
		for (uint32_t i = 0; i < u->ninputs && !rnn; i++)
			if (u->inputs[i] == v)
				return u->kind;
		for (uint32_t b = 0; b < u->nblocks; b++) {
			const char *k = non_rnn_user(u->blocks[b]->first, v);
			if (k)
				return k;
		}
	}
	return NULL;
}

static int is_rnn_op(enum aten_op op)
{
	return op == OP_aten_lstm || op == OP_aten_gru ||
	       op == OP_aten_rnn_tanh || op == OP_aten_rnn_relu;
}

/* Where batch_sizes may go, since lowering makes it the lengths (torch's
 * passes do the same): an RNN or _pad_packed_sequence; its size(0) into
 * _pad_packed_sequence's total_length (read there as the longest
 * length, which it is in torch); and batch_sizes[0], the
 * batch, through Int and size lists into zeros that only become an RNN's
 * initial state (dropped as zeros, whatever their shape: nn.LSTM & co.
 * build them so when given no state).  The kind of the first other
 * reader, from `from` on (nested blocks too), or NULL. */
enum bs_flow { BS_LENGTHS, BS_SIZE, BS_FIRST, BS_ZEROS };

static const char *batch_sizes_misuse(struct lower_ctx *c,
				      struct ir_node *from,
				      const struct ir_value *v,
				      enum bs_flow flow, int depth)
{
	if (depth > 16)
		return "a chain of reads too deep to follow";
	for (struct ir_node *u = from; u; u = u->next) {
		for (uint32_t b = 0; b < u->nblocks; b++) {
			const char *k = batch_sizes_misuse(c,
							   u->blocks[b]->first,
							   v, flow, depth);
			if (k)
				return k;
		}
		int reads = 0, at = -1;
		for (uint32_t i = 0; i < u->ninputs; i++)
			if (u->inputs[i] == v) {
				reads = 1;
				at = (int)i;
			}
		if (!reads)
			continue;
		enum bs_flow next;
		int64_t k;
		switch (flow) {
		case BS_LENGTHS:
			if (is_rnn_op(u->op) ||
			    u->op == OP_aten__pad_packed_sequence ||
			    u->op == OP_prim_dtype || u->op == OP_prim_device)
				continue;
			if (u->op == OP_aten_size && u->ninputs == 2)
				next = BS_SIZE;
			else if (u->op == OP_aten_select && u->ninputs == 3 &&
				 lw_int(c, u, 1, &k) && k == 0 &&
				 lw_int(c, u, 2, &k) && k == 0)
				next = BS_FIRST;
			else
				return u->kind;
			break;
		case BS_SIZE:
			if (u->op == OP_aten__pad_packed_sequence && at == 4)
				continue;
			if (u->op == OP_prim_NumToTensor ||
			    u->op == OP_aten_Int || u->op == OP_aten_IntImplicit)
				next = BS_SIZE;
			else
				return u->kind;
			break;
		case BS_FIRST:
			if (u->op == OP_aten_Int || u->op == OP_aten_IntImplicit ||
			    u->op == OP_prim_ListConstruct)
				next = BS_FIRST;
			else if (u->op == OP_aten_zeros && at == 0)
				next = BS_ZEROS;
			else
				return u->kind;
			break;
		default: /* BS_ZEROS */
			if (is_rnn_op(u->op) && at == 2)
				continue;
			if (u->op == OP_prim_ListConstruct ||
			    u->op == OP_prim_TupleConstruct)
				next = BS_ZEROS;
			else
				return u->kind;
			break;
		}
		for (uint32_t o = 0; o < u->noutputs; o++) {
			const char *r = batch_sizes_misuse(c, u->next,
							   u->outputs[o],
							   next, depth + 1);
			if (r)
				return r;
		}
	}
	return NULL;
}

SYM(sym_pack_padded_sequence)
{
	/* _pack_padded_sequence(input, lengths, batch_first) -> (data,
	 * batch_sizes) */
	int64_t bf;
	struct ir_value *x = T(0), *len = T(1);
	if (!x || !len || b_rank(x) != 3)
		return lw_decline(c, "the input is not 3-d");
	if (!lw_int(c, n, 2, &bf))
		return lw_decline(c, "batch_first not constant");
	const char *other = non_rnn_user(n->next, n->outputs[0]);
	if (other)
		return lw_decline(c, ir_strfmt(c->g, "the packed data goes "
					       "to %s, not an RNN", other));
	other = batch_sizes_misuse(c, n->next, n->outputs[1], BS_LENGTHS, 0);
	if (other)
		return lw_decline(c, ir_strfmt(c->g, "batch_sizes is read by "
					       "%s, which would see the "
					       "lengths instead", other));
	out[0] = bf ? b_transpose(c, x, swap01, 3) : x;
	out[1] = b_cast(c, len, IR_DTYPE_INT32);
	const struct ir_value *lens[2] = { n->outputs[1], out[1] };
	packed_add(c, n, out, lens, PK_DATA);
	return 0;
}

/* The packing whose batch_sizes (aten or lowered) is v, or NULL. */
static struct lw_packed *packed_of_lens(const struct lower_ctx *c,
					const struct ir_value *v)
{
	for (struct lw_packed *p = c->packed; p; p = p->next)
		if (p->role == PK_DATA && (p->lens[0] == v || p->lens[1] == v))
			return p;
	return NULL;
}

/* size(batch_sizes, 0) of a packing is the longest length in torch (one
 * batch size per step), not the lengths' count that lowering's
 * batch_sizes (the lengths) has: ReduceMax of them, kept on the packing
 * so _pad_packed_sequence knows its total_length for the longest.  Any
 * other size goes to sym_size. */
SYM(sym_packed_size)
{
	int64_t d;
	struct lw_packed *p = n->ninputs == 2 ?
			      packed_of_lens(c, n->inputs[0]) : NULL;
	if (!p || !lw_int(c, n, 1, &d) || d != 0)
		return sym_size(c, n, out);
	if (!p->longest)
		p->longest = b_reduce(c, "ReduceMax",
				      b_cast(c, T(0), IR_DTYPE_INT64),
				      NULL, 0, 0);
	out[0] = p->longest;
	return 0;
}

/* v with Casts, Identities and Reshapes (lowered Int and NumToTensor)
 * taken off. */
static const struct ir_value *strip_int(const struct ir_value *v)
{
	for (int d = 0; d < 16 && v && v->producer; d++) {
		const char *k = v->producer->kind;
		if (strcmp(k, "onnx::Cast") && strcmp(k, "onnx::Identity") &&
		    strcmp(k, "onnx::Reshape") && strcmp(k, "onnx::Squeeze") &&
		    strcmp(k, "onnx::Unsqueeze"))
			break;
		v = v->producer->inputs[0];
	}
	return v;
}

/* y's first len steps along axis 0 (len a 0-d number), with zeros past
 * y's own steps when pad: Slice from opset 10, before it Gather of
 * 0..len-1. */
static struct ir_value *time_prefix(struct lower_ctx *c, struct ir_value *y,
				    struct ir_value *len, int pad)
{
	int64_t zero = 0;
	len = b_cast(c, len, IR_DTYPE_INT64);
	if (pad) {
		struct ir_value *dims[2] = {
			b_unsqueeze(c, len, &zero, 1),
			b_slice(c, b_op1(c, "Shape", y), 1, INT64_MAX, 0, 1)
		};
		struct ir_value *z = sym_fill_shape(c, b_concat(c, 2, dims, 0),
						    0, b_dtype(y));
		struct ir_value *yz[2] = { y, z };
		y = b_concat(c, 2, yz, 0);
	}
	if (c->opset >= 10) {
		struct ir_value *in[4] = { y, b_const_i64s(c, &zero, 1, 1),
					   b_unsqueeze(c, len, &zero, 1),
					   b_const_i64s(c, &zero, 1, 1) };
		return b_done(c, b_node(c, "Slice", 4, in, 1));
	}
	struct ir_value *g[2] = { y, sym_arange_count(c, len) };
	struct ir_node *gn = b_node(c, "Gather", 2, g, 1);
	b_attr_i(c, gn, "axis", 0);
	return b_done(c, gn);
}

SYM(sym_pad_packed_sequence)
{
	/* _pad_packed_sequence(data, batch_sizes, batch_first,
	 * padding_value, total_length) -> (output, lengths): torch's output
	 * has total_length steps (batch_sizes.size(0), the longest length,
	 * when the user gives none), not the padded input's; the RNN's Y
	 * has the input's steps, 0 past each length, so it is cut to them
	 * (and padded with 0 when total_length is longer) */
	int64_t bf, tl;
	double pad;
	if (!packed_find(c, n, PK_RNN_OUT))
		return lw_decline(c, "the packed data is not an RNN's output "
				  "on pack_padded_sequence's");
	if (!lw_int(c, n, 2, &bf) || !lw_float(c, n, 3, &pad))
		return lw_decline(c, "batch_first or padding_value not "
				  "constant");
	if (pad != 0)
		return lw_decline(c, "padding_value not 0: ONNX's RNNs pad "
				  "with 0");
	struct ir_value *y = T(0), *lens = b_cast(c, T(1), IR_DTYPE_INT64);
	int64_t steps = b_dim_size(y, 0);
	const struct lw_packed *pk = packed_of_lens(c, n->inputs[1]);
	struct ir_value *tlv = lw_in(c, n, 4);
	if (pk && pk->longest && tlv && strip_int(tlv) == pk->longest)
		y = time_prefix(c, y, tlv, 0);
	else if (lw_int(c, n, 4, &tl)) {
		if (tl != steps)
			y = time_prefix(c, y, b_const_i64(c, tl),
					steps < 0 || tl > steps);
	} else {
		struct ir_value *len = lw_scalar_as(c, n, 4, IR_DTYPE_INT64, 0);
		if (!len)
			return lw_decline(c, "total_length is not a number");
		y = time_prefix(c, y, len, 1);
	}
	out[0] = bf ? b_transpose(c, y, swap01, 3) : y;
	out[1] = lens;
	return 0;
}

SYM(sym_lstm) { return generic_rnn(c, n, out, RNN_LSTM); }
SYM(sym_gru) { return generic_rnn(c, n, out, RNN_GRU); }
SYM(sym_rnn_tanh) { return generic_rnn(c, n, out, RNN_TANH); }
SYM(sym_rnn_relu) { return generic_rnn(c, n, out, RNN_RELU); }

/*
 * The single-step cells: lstm_cell(input, [hx, cx], w_ih, w_hh, b_ih?,
 * b_hh?) -> (hy, cy), gru_cell(input, hx, w_ih, w_hh, b_ih?, b_hh?) and
 * rnn_tanh_cell / rnn_relu_cell -> hy, written out as torch's cell
 * formulas (MatMul by the transposed weights, torch's gate order), which
 * runs at every opset; torch's symbolics go through a one-step LSTM/GRU
 * node instead.
 */

/* x @ w^T (+ b): w [G, I], x [..., I] */
static struct ir_value *cell_linear(struct lower_ctx *c, struct ir_node *n,
				    struct ir_value *x, int iw, int ib)
{
	struct ir_value *w = T(iw);
	if (!w || b_rank(w) != 2)
		return NULL;
	int64_t perm[2] = { 1, 0 };
	struct ir_node *t = b_node(c, "Transpose", 1, &w, 1);
	b_attr_ints(c, t, "perm", perm, 2);
	struct ir_value *y = b_op2(c, "MatMul", x, b_done(c, t));
	if ((int)n->ninputs > ib && !lw_is_none(c, n, ib)) {
		struct ir_value *b = T(ib);
		if (!b)
			return NULL;
		y = b_op2(c, "Add", y, b);
	}
	return y;
}

static int cell(struct lower_ctx *c, struct ir_node *n,
		struct ir_value **out, enum rnn_kind k)
{
	struct ir_value *x = T(0), *h, *cx = NULL, *hs[2];
	if (k == RNN_LSTM) {
		if (lw_list(c, n, 1, hs, 2) != 2 || !hs[0] || !hs[1])
			return lw_decline(c, "hx is not a list of two tensors");
		h = hs[0];
		cx = hs[1];
	} else {
		h = T(1);
	}
	int r = x ? b_rank(x) : -1;
	if (!h || r < 1)
		return lw_decline(c, "input rank unknown");
	struct ir_value *gi = cell_linear(c, n, x, 2, 4);
	struct ir_value *gh = cell_linear(c, n, h, 3, 5);
	if (!gi || !gh)
		return lw_decline(c, "weights are not 2-d tensors");
	int g = ngates(k);
	struct ir_value *a[4], *b[4];
	if (k == RNN_GRU) {
		b_split(c, gi, r - 1, NULL, 3, a);
		b_split(c, gh, r - 1, NULL, 3, b);
		struct ir_value *rg = b_op1(c, "Sigmoid", b_op2(c, "Add", a[0], b[0]));
		struct ir_value *z = b_op1(c, "Sigmoid", b_op2(c, "Add", a[1], b[1]));
		struct ir_value *nn = b_op1(c, "Tanh", b_op2(c, "Add", a[2],
					b_op2(c, "Mul", rg, b[2])));
		/* (1 - z) * n + z * h = n + z * (h - n) */
		out[0] = b_op2(c, "Add", nn, b_op2(c, "Mul", z,
					b_op2(c, "Sub", h, nn)));
		return 0;
	}
	struct ir_value *s = b_op2(c, "Add", gi, gh);
	if (k == RNN_TANH || k == RNN_RELU) {
		out[0] = b_op1(c, k == RNN_TANH ? "Tanh" : "Relu", s);
		return 0;
	}
	b_split(c, s, r - 1, NULL, g, a);
	struct ir_value *ig = b_op1(c, "Sigmoid", a[0]);
	struct ir_value *fg = b_op1(c, "Sigmoid", a[1]);
	struct ir_value *cg = b_op1(c, "Tanh", a[2]);
	struct ir_value *og = b_op1(c, "Sigmoid", a[3]);
	struct ir_value *cy = b_op2(c, "Add", b_op2(c, "Mul", fg, cx),
				    b_op2(c, "Mul", ig, cg));
	out[0] = b_op2(c, "Mul", og, b_op1(c, "Tanh", cy));
	if (n->noutputs > 1)
		out[1] = cy;
	return 0;
}

SYM(sym_lstm_cell) { return cell(c, n, out, RNN_LSTM); }
SYM(sym_gru_cell) { return cell(c, n, out, RNN_GRU); }
SYM(sym_rnn_tanh_cell) { return cell(c, n, out, RNN_TANH); }
SYM(sym_rnn_relu_cell) { return cell(c, n, out, RNN_RELU); }

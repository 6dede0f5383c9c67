/*
 * symbolic_loss.c - more of issue 14's long tail, the losses torch 1.13
 * records as one operator: huber_loss, hinge_embedding_loss,
 * margin_ranking_loss, poisson_nll_loss, soft_margin_loss,
 * cosine_embedding_loss, triplet_margin_loss, multi_margin_loss and
 * multilabel_margin_loss.  Each is an exact ONNX decomposition of torch's
 * definition (ATen/native/Loss.cpp, LossMultiMargin.cpp,
 * LossMultiLabelMargin.cpp), reduced as its reduction says (none, mean,
 * sum), or declines with the reason.  ctc_loss is torch's CPU kernel
 * (LossCTC.cpp): the log-space alpha recursion over the extended targets
 * (blanks between and around the labels) in one ONNX Loop over time,
 * every batch element at once, each frozen past its input length.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "symbolic_common.h"

#define T(i) lw_tensor(c, n, (i))
#define NARGS ((int)n->ninputs)

static struct ir_value *scal(struct lower_ctx *c, double v, enum ir_dtype dt)
{
	return b_const_scalar(c, v, dt, 0);
}

/* clamp_min(v, 0) as torch's: NaN stays */
static struct ir_value *clamp0(struct lower_ctx *c, struct ir_value *v)
{
	struct ir_value *z = scal(c, 0, b_dtype(v));
	return b_op3(c, "Where", b_op2(c, "Less", v, z), z, v);
}

/* where(cond, v, 0) */
static struct ir_value *or_zero(struct lower_ctx *c, struct ir_value *cond,
				struct ir_value *v)
{
	return b_op3(c, "Where", cond, v, scal(c, 0, b_dtype(v)));
}

/* number input i (constant) or its default */
static int num_arg(struct lower_ctx *c, struct ir_node *n, int i, double *v)
{
	return i >= NARGS || lw_float(c, n, i, v);
}

/* huber_loss(self, target, reduction, delta): 0.5 z^2 where z = |x - y|
 * < delta, else delta (z - 0.5 delta) */
static SYM(sym_huber_loss)
{
	struct ir_value *a, *b;
	int64_t red;
	double delta = 1;
	if (sym_loss_args(c, n, 2, &a, &b, &red))
		return 1;
	if (!num_arg(c, n, 3, &delta))
		return lw_decline(c, "delta not constant");
	enum ir_dtype dt = b_dtype(a);
	struct ir_value *z = b_op1(c, "Abs", b_op2(c, "Sub", a, b));
	struct ir_value *dv = scal(c, delta, dt);
	struct ir_value *l = b_op3(c, "Where", b_op2(c, "Less", z, dv),
		b_op2(c, "Mul", scal(c, 0.5, dt), b_op2(c, "Mul", z, z)),
		b_op2(c, "Mul", dv, b_op2(c, "Sub", z, scal(c, 0.5 * delta, dt))));
	out[0] = sym_loss_reduce(c, l, red);
	return 0;
}

/* hinge_embedding_loss(self, target, margin, reduction):
 * clamp_min(margin - x, 0) where target != 1, plus x where target != -1 */
static SYM(sym_hinge_embedding_loss)
{
	struct ir_value *x, *t;
	int64_t red;
	double margin = 1;
	if (sym_loss_args(c, n, 3, &x, &t, &red))
		return 1;
	if (!num_arg(c, n, 2, &margin))
		return lw_decline(c, "margin not constant");
	enum ir_dtype dt = b_dtype(x);
	struct ir_value *pm = b_op1(c, "Not", b_op2(c, "Equal", t, scal(c, 1, dt)));
	struct ir_value *nm = b_op1(c, "Not", b_op2(c, "Equal", t, scal(c, -1, dt)));
	struct ir_value *l = b_op2(c, "Add",
		or_zero(c, pm, clamp0(c, b_op2(c, "Sub", scal(c, margin, dt), x))),
		or_zero(c, nm, x));
	out[0] = sym_loss_reduce(c, l, red);
	return 0;
}

/* margin_ranking_loss(input1, input2, target, margin, reduction):
 * clamp_min(-target * (input1 - input2) + margin, 0) */
static SYM(sym_margin_ranking_loss)
{
	struct ir_value *a, *b, *t = T(2);
	int64_t red;
	double margin = 0;
	if (sym_loss_args(c, n, 4, &a, &b, &red))
		return 1;
	if (!t || !num_arg(c, n, 3, &margin))
		return lw_decline(c, "target not a tensor or margin not constant");
	enum ir_dtype dt = b_dtype(a);
	struct ir_value *l = b_op2(c, "Add", b_op2(c, "Mul", b_op1(c, "Neg",
				b_cast(c, t, dt)), b_op2(c, "Sub", a, b)),
				scal(c, margin, dt));
	out[0] = sym_loss_reduce(c, clamp0(c, l), red);
	return 0;
}

/* poisson_nll_loss(input, target, log_input, full, eps, reduction):
 * exp(x) - t x (log_input) or x - t log(x + eps); full adds Stirling's
 * t log t - t + 0.5 log(2 pi t) where t > 1 (torch masks t <= 1) */
static SYM(sym_poisson_nll_loss)
{
	struct ir_value *x, *t;
	int64_t red, lg, full;
	double eps;
	if (sym_loss_args(c, n, 5, &x, &t, &red))
		return 1;
	if (!lw_int(c, n, 2, &lg) || !lw_int(c, n, 3, &full) ||
	    !lw_float(c, n, 4, &eps))
		return lw_decline(c, "log_input, full or eps not constant");
	enum ir_dtype dt = b_dtype(x);
	struct ir_value *l = lg ?
		b_op2(c, "Sub", b_op1(c, "Exp", x), b_op2(c, "Mul", t, x)) :
		b_op2(c, "Sub", x, b_op2(c, "Mul", t, b_op1(c, "Log",
			b_op2(c, "Add", x, scal(c, eps, dt)))));
	if (full) {
		struct ir_value *st = b_op2(c, "Add", b_op2(c, "Sub",
			b_op2(c, "Mul", t, b_op1(c, "Log", t)), t),
			b_op2(c, "Mul", scal(c, 0.5, dt), b_op1(c, "Log",
				b_op2(c, "Mul", scal(c, 2 * M_PI, dt), t))));
		struct ir_value *one = scal(c, 1, dt);
		struct ir_value *le = b_op2(c, "Or", b_op2(c, "Less", t, one),
					    b_op2(c, "Equal", t, one));
		l = b_op2(c, "Add", l, b_op3(c, "Where", le, scal(c, 0, dt), st));
	}
	out[0] = sym_loss_reduce(c, l, red);
	return 0;
}

/* soft_margin_loss(self, target, reduction): log1p(exp(-x y)) */
static SYM(sym_soft_margin_loss)
{
	struct ir_value *x, *t;
	int64_t red;
	if (sym_loss_args(c, n, 2, &x, &t, &red))
		return 1;
	out[0] = sym_loss_reduce(c, b_op1(c, "Softplus", b_op1(c, "Neg",
				 b_op2(c, "Mul", x, t))), red);
	return 0;
}

/* cosine_embedding_loss(input1, input2, target, margin, reduction): cos
 * over dim target.dim() (squared magnitudes + 1e-12, their product's
 * root), 1 - cos where target is 1, clamp_min(cos - margin, 0) where it
 * is -1 */
static SYM(sym_cosine_embedding_loss)
{
	struct ir_value *a, *b, *t = T(2);
	int64_t red;
	double margin = 0;
	if (sym_loss_args(c, n, 4, &a, &b, &red))
		return 1;
	if (!t || b_rank(t) < 0 || !num_arg(c, n, 3, &margin))
		return lw_decline(c, "target of unknown rank or margin not constant");
	enum ir_dtype dt = b_dtype(a);
	int64_t ax = b_rank(t);
	t = b_cast(c, t, dt);
	struct ir_value *eps = scal(c, 1e-12, dt);
	struct ir_value *pr = b_reduce(c, "ReduceSum", b_op2(c, "Mul", a, b), &ax, 1, 0);
	struct ir_value *m1 = b_op2(c, "Add", b_reduce(c, "ReduceSum",
				    b_op2(c, "Mul", a, a), &ax, 1, 0), eps);
	struct ir_value *m2 = b_op2(c, "Add", b_reduce(c, "ReduceSum",
				    b_op2(c, "Mul", b, b), &ax, 1, 0), eps);
	struct ir_value *cs = b_op2(c, "Div", pr, b_op1(c, "Sqrt",
				    b_op2(c, "Mul", m1, m2)));
	struct ir_value *l = b_op2(c, "Add",
		or_zero(c, b_op2(c, "Equal", t, scal(c, 1, dt)),
			b_op2(c, "Sub", scal(c, 1, dt), cs)),
		or_zero(c, b_op2(c, "Equal", t, scal(c, -1, dt)),
			clamp0(c, b_op2(c, "Sub", cs, scal(c, margin, dt)))));
	out[0] = sym_loss_reduce(c, l, red);
	return 0;
}

/* pairwise_distance(u, v, p, eps) over the last of r dims */
static struct ir_value *pdist_last(struct lower_ctx *c, struct ir_value *u,
				   struct ir_value *v, double p, double eps,
				   int64_t r)
{
	struct ir_value *d = b_op2(c, "Add", b_op2(c, "Sub", u, v),
				   scal(c, eps, b_dtype(u)));
	int64_t ax = r - 1;
	return sym_pnorm(c, d, p, &ax, 1, 0);
}

/* triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
 * reduction): clamp_min(margin + d(a, p) - d(a, n), 0), d torch's
 * pairwise_distance (swap: the smaller of d(a, n) and d(p, n)) */
static SYM(sym_triplet_margin_loss)
{
	struct ir_value *a = T(0), *p = T(1), *ng = T(2);
	double margin = 1, pw = 2, eps = 1e-6;
	int64_t swap = 0, red = 1;
	if (!a || !p || !ng || !b_is_float(b_dtype(a)))
		return lw_decline(c, "the inputs are not float tensors");
	if (!num_arg(c, n, 3, &margin) || !num_arg(c, n, 4, &pw) ||
	    !num_arg(c, n, 5, &eps) || (NARGS > 6 && !lw_int(c, n, 6, &swap)) ||
	    (NARGS > 7 && !lw_int(c, n, 7, &red)) || red < 0 || red > 2)
		return lw_decline(c, "margin, p, eps, swap or reduction not constant");
	int r = b_rank(a);
	if (b_rank(p) > r)
		r = b_rank(p);
	if (b_rank(ng) > r)
		r = b_rank(ng);
	if (b_rank(a) < 0 || b_rank(p) < 0 || b_rank(ng) < 0 || r < 1)
		return lw_decline(c, "inputs of unknown rank or 0-d");
	enum ir_dtype dt = b_dtype(a);
	p = b_cast(c, p, dt);
	ng = b_cast(c, ng, dt);
	struct ir_value *dp = pdist_last(c, a, p, pw, eps, r);
	struct ir_value *dn = pdist_last(c, a, ng, pw, eps, r);
	if (swap)
		dn = b_op2(c, "Min", dn, pdist_last(c, p, ng, pw, eps, r));
	struct ir_value *l = clamp0(c, b_op2(c, "Sub", b_op2(c, "Add",
			scal(c, margin, dt), dp), dn));
	out[0] = sym_loss_reduce(c, l, red);
	return 0;
}

/* the class index k of a [1, C] row: 0, 1, ..., C - 1 */
static struct ir_value *class_row(struct lower_ctx *c, struct ir_value *x)
{
	int64_t shp[2] = { 1, -1 };
	return b_op2(c, "Reshape", sym_arange_count(c, b_dim(c, x, 1)),
		     b_const_i64s(c, shp, 2, 1));
}

/* multi_margin_loss(self [N, C] or [C], target, p (1 or 2), margin,
 * weight, reduction) as torch's CPU kernel: per row the sum over j !=
 * y of max(0, margin - x[y] + x[j])^p (times weight[y]) over C; a 0-d
 * target gives a 0-d loss */
static SYM(sym_multi_margin_loss)
{
	struct ir_value *x = T(0), *t = T(1), *w = NULL;
	double p = 1, margin = 1;
	int64_t red = 1, one = 1, z = 0;
	if (!x || !t || !b_is_float(b_dtype(x)) || b_rank(x) < 1 ||
	    b_rank(x) > 2 || b_rank(t) < 0 || b_rank(t) > 1)
		return lw_decline(c, "self is not a 1-d or 2-d float tensor, or target not 0-d or 1-d");
	if (!num_arg(c, n, 2, &p) || !num_arg(c, n, 3, &margin) ||
	    (NARGS > 5 && !lw_int(c, n, 5, &red)) || red < 0 || red > 2)
		return lw_decline(c, "p, margin or reduction not constant");
	if (p != 1 && p != 2)
		return lw_decline(c, "p other than 1 or 2 (torch refuses it)");
	if (NARGS > 4 && !lw_is_none(c, n, 4) && !(w = T(4)))
		return lw_decline(c, "weight is not a tensor");
	enum ir_dtype dt = b_dtype(x);
	int t0 = b_rank(t) == 0;
	if (b_rank(x) == 1)
		x = b_unsqueeze(c, x, &z, 1);
	t = b_cast(c, t0 ? b_unsqueeze(c, t, &z, 1) : t, IR_DTYPE_INT64);
	struct ir_value *tc = b_unsqueeze(c, t, &one, 1);		/* [N, 1] */
	struct ir_node *g = b_node(c, "GatherElements", 2,
				   (struct ir_value *[]){ x, tc }, 1);
	b_attr_i(c, g, "axis", 1);
	struct ir_value *zv = b_op2(c, "Add", b_op2(c, "Sub", scal(c, margin, dt),
					b_done(c, g)), x);
	struct ir_value *h = or_zero(c, b_op2(c, "Greater", zv, scal(c, 0, dt)), zv);
	if (p == 2)
		h = b_op2(c, "Mul", h, h);
	if (w) {
		struct ir_node *gw = b_node(c, "Gather", 2,
			(struct ir_value *[]){ b_cast(c, w, dt), tc }, 1);
		b_attr_i(c, gw, "axis", 0);
		h = b_op2(c, "Mul", h, b_done(c, gw));
	}
	h = b_op3(c, "Where", b_op2(c, "Equal", class_row(c, x), tc),
		  scal(c, 0, dt), h);
	struct ir_value *l = b_op2(c, "Div", b_reduce(c, "ReduceSum", h, &one, 1, 0),
				   b_cast(c, b_dim(c, x, 1), dt));
	if (t0)
		l = b_squeeze(c, l, &z, 1);
	out[0] = sym_loss_reduce(c, l, red);
	return 0;
}

/* multilabel_margin_loss(self [N, C] or [C], target (class labels ended
 * by the first -1), reduction) as torch's CPU kernel: per row the sum of
 * max(0, 1 - x[t] + x[j]) over the labels t before the first -1 and the
 * classes j that are not among them, over C; a 1-d self gives a 0-d
 * loss.  The labels in force: a CumSum of the negatives is 0. */
static SYM(sym_multilabel_margin_loss)
{
	struct ir_value *x = T(0), *t = T(1);
	int64_t red = 1, one = 1, two = 2, z = 0, a12[2] = { 1, 2 };
	if (!x || !t || !b_is_float(b_dtype(x)) || b_rank(x) < 1 ||
	    b_rank(x) > 2 || b_rank(t) != b_rank(x))
		return lw_decline(c, "self is not a 1-d or 2-d float tensor with a target of its rank");
	if (NARGS > 2 && (!lw_int(c, n, 2, &red) || red < 0 || red > 2))
		return lw_decline(c, "reduction not constant");
	enum ir_dtype dt = b_dtype(x);
	int v1 = b_rank(x) == 1;
	if (v1) {
		x = b_unsqueeze(c, x, &z, 1);
		t = b_unsqueeze(c, t, &z, 1);
	}
	t = b_cast(c, t, IR_DTYPE_INT64);
	struct ir_value *neg = b_cast(c, b_op2(c, "Less", t, b_const_i64(c, 0)),
				      IR_DTYPE_INT64);
	struct ir_node *cs = b_node(c, "CumSum", 2,
		(struct ir_value *[]){ neg, b_const_i64(c, 1) }, 1);
	struct ir_value *valid = b_op2(c, "Equal", b_done(c, cs),
				       b_const_i64(c, 0));	/* [N, K] */
	struct ir_value *tv = b_op3(c, "Where", valid, t, b_const_i64(c, 0));
	/* is_target[N, j]: some label in force is j */
	struct ir_value *hit = b_op2(c, "And", b_op2(c, "Equal",
		b_unsqueeze(c, tv, &two, 1), b_unsqueeze(c, class_row(c, x),
							 &z, 1)),
		b_unsqueeze(c, valid, &two, 1));		/* [N, K, C] */
	struct ir_value *ist = b_op2(c, "Greater", b_reduce(c, "ReduceMax",
		b_cast(c, hit, dt), &one, 1, 0), scal(c, 0, dt));	/* [N, C] */
	struct ir_node *g = b_node(c, "GatherElements", 2,
				   (struct ir_value *[]){ x, tv }, 1);
	b_attr_i(c, g, "axis", 1);
	struct ir_value *zv = b_op2(c, "Add", b_op2(c, "Sub", scal(c, 1, dt),
		b_unsqueeze(c, b_done(c, g), &two, 1)), b_unsqueeze(c, x, &one, 1));
	struct ir_value *m = b_op2(c, "And", b_op2(c, "And",
		b_unsqueeze(c, valid, &two, 1),
		b_unsqueeze(c, b_op1(c, "Not", ist), &one, 1)),
		b_op2(c, "Greater", zv, scal(c, 0, dt)));
	struct ir_value *l = b_op2(c, "Div", b_reduce(c, "ReduceSum",
		or_zero(c, m, zv), a12, 2, 0), b_cast(c, b_dim(c, x, 1), dt));
	if (v1)
		l = b_squeeze(c, l, &z, 1);
	out[0] = sym_loss_reduce(c, l, red);
	return 0;
}

/* v [N, S'] shifted k columns right, -inf coming in */
static struct ir_value *ctc_shift(struct lower_ctx *c, struct ir_value *v,
				  int64_t k, struct ir_value *ninf)
{
	struct ir_value *head = b_slice(c, v, 0, k, 1, 1);
	struct ir_value *p[2] = { b_op2(c, "Expand", ninf, b_op1(c, "Shape", head)),
				  b_slice(c, v, 0, -k, 1, 1) };
	return b_concat(c, 2, p, 1);
}

/* max(v, 0) of Longs (Max of integers only from opset 12) */
static struct ir_value *ctc_pos(struct lower_ctx *c, struct ir_value *v)
{
	struct ir_value *z = b_const_i64(c, 0);
	return b_op3(c, "Where", b_op2(c, "Less", v, z), z, v);
}

/* m with torch's -inf max taken as 0 */
static struct ir_value *ctc_max0(struct lower_ctx *c, struct ir_value *m,
				 struct ir_value *ninf)
{
	return b_op3(c, "Where", b_op2(c, "Equal", m, ninf), scal(c, 0, b_dtype(m)), m);
}

struct ctc {
	struct ir_value *lpe;  /* [T, N, S'] log_probs of the extended targets */
	struct ir_value *skip; /* [N, S'] whether s may come from s - 2 */
	struct ir_value *ilen; /* [N, 1] input lengths, Long */
	struct ir_value *ninf; /* 0-d -inf */
};

/* step it (time t = it + 1): log_alpha[t, s] = logsumexp(alpha[s],
 * alpha[s - 1], alpha[s - 2] where allowed) + lp[t, l'(s)], as
 * LossCTC.cpp sums it; the elements whose input ends before t kept */
static void ctc_body(struct lower_ctx *c, const void *ctx,
		     struct ir_value *it, struct ir_value **v,
		     struct ir_value **nv)
{
	const struct ctc *q = ctx;
	struct ir_value *t = b_op2(c, "Add", it, b_const_i64(c, 1));
	struct ir_node *g = b_node(c, "Gather", 2, (struct ir_value *[]){ q->lpe, t }, 1);
	b_attr_i(c, g, "axis", 0);
	struct ir_value *lpt = b_done(c, g);
	struct ir_value *a1 = v[0], *a2 = ctc_shift(c, v[0], 1, q->ninf);
	struct ir_value *a3 = b_op3(c, "Where", q->skip, ctc_shift(c, v[0], 2, q->ninf), q->ninf);
	struct ir_value *m = ctc_max0(c, b_op2(c, "Max", b_op2(c, "Max", a1, a2), a3), q->ninf);
	struct ir_value *sum = b_op2(c, "Add", b_op2(c, "Add",
		b_op1(c, "Exp", b_op2(c, "Sub", a1, m)), b_op1(c, "Exp", b_op2(c, "Sub", a2, m))),
		b_op1(c, "Exp", b_op2(c, "Sub", a3, m)));
	struct ir_value *r = b_op2(c, "Add", b_op2(c, "Add", b_op1(c, "Log", sum), m), lpt);
	nv[0] = b_op3(c, "Where", b_op2(c, "Less", t, q->ilen), r, v[0]);
}

/* ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0,
 * reduction=Mean, zero_infinity=False), lengths as int[] or Tensors:
 * log_probs [T, N, C] (or [T, C] unbatched), targets padded [N, S] or
 * concatenated [sum(target_lengths)] */
static SYM(sym_ctc_loss)
{
	struct ir_value *lp = T(0), *tg = T(1), *il = T(2), *tl = T(3);
	int64_t blank = 0, red = 1, zinf = 0, a0 = 0, a1 = 1, a2 = 2, m1 = -1;
	int rl = lp ? b_rank(lp) : -1, rt = tg ? b_rank(tg) : -1;
	enum ir_dtype dt = lp ? b_dtype(lp) : IR_DTYPE_UNDEFINED;
	if ((dt != IR_DTYPE_FLOAT && dt != IR_DTYPE_DOUBLE) || (rl != 2 && rl != 3))
		return lw_decline(c, "ctc_loss's log_probs must be float32 or float64 [T, N, C] or [T, C]");
	if (!tg || !il || !tl || (rt != 1 && rt != 2) || (rl == 2 && rt != 1) ||
	    b_is_float(b_dtype(tg)) || b_is_float(b_dtype(il)) || b_is_float(b_dtype(tl)))
		return lw_decline(c, "ctc_loss's targets and lengths must be integers, targets [N, S] or [sum(lengths)] ([S] unbatched)");
	if ((NARGS > 4 && !lw_int(c, n, 4, &blank)) || (NARGS > 5 && !lw_int(c, n, 5, &red)) ||
	    (NARGS > 6 && !lw_int(c, n, 6, &zinf)))
		return lw_decline(c, "ctc_loss's blank, reduction and zero_infinity must be constants");
	if (red < 0 || red > 2)
		return lw_decline(c, "ctc_loss's reduction must be none, mean or sum");
	int64_t C = b_dim_size(lp, -1);
	/* (a negative blank with C unknown was taken from the end by
	 * GatherElements: a model where torch raises) */
	if (blank < 0 || (C >= 0 && blank >= C))
		return lw_decline(c, "blank must be in label range");
	tg = b_cast(c, tg, IR_DTYPE_INT64);
	il = b_op2(c, "Reshape", b_cast(c, il, IR_DTYPE_INT64), b_const_i64s(c, &m1, 1, 1));
	tl = b_op2(c, "Reshape", b_cast(c, tl, IR_DTYPE_INT64), b_const_i64s(c, &m1, 1, 1));
	if (rl == 2) { /* unbatched: a batch of one, padded */
		lp = b_unsqueeze(c, lp, &a1, 1);
		tg = b_unsqueeze(c, tg, &a0, 1);
		rt = 2;
	}
	struct ir_value *ninf = scal(c, -INFINITY, dt), *zero = b_const_i64(c, 0);
	struct ir_value *blk = b_const_i64(c, blank), *nb = b_dim(c, lp, 1), *T0 = b_dim(c, lp, 0);
	struct ir_value *tp;
	if (rt == 2) { /* padded: one more column (of blanks) */
		struct ir_value *sh[2] = { b_unsqueeze(c, nb, &a0, 1), b_const_i64s(c, &a1, 1, 1) };
		struct ir_value *p[2] = { tg, b_op2(c, "Expand", blk, b_concat(c, 2, sh, 0)) };
		tp = b_concat(c, 2, p, 1);
	} else { /* concatenated: row b from its offset (exclusive CumSum) */
		struct ir_value *p[2] = { tg, b_const_i64s(c, &blank, 1, 1) };
		struct ir_value *tf = b_concat(c, 2, p, 0), *len = b_dim(c, tf, 0);
		struct ir_node *cs = b_node(c, "CumSum", 2, (struct ir_value *[]){ tl, zero }, 1);
		b_attr_i(c, cs, "exclusive", 1);
		struct ir_value *off = b_done(c, cs);
		struct ir_value *idx = b_op2(c, "Add", b_unsqueeze(c, off, &a1, 1),
					     b_unsqueeze(c, sym_arange_count(c, len), &a0, 1));
		idx = b_op3(c, "Where", b_op2(c, "Less", idx, len), idx,
			    b_op2(c, "Sub", len, b_const_i64(c, 1)));
		tp = b_op2(c, "Gather", tf, idx);
	}
	/* extended targets [N, 2 S1 + 1]: blank, l1, blank, l2 ... blank;
	 * labels outside [0, C) (padding) as blanks */
	if (C >= 0)
		tp = b_op3(c, "Where", b_op2(c, "And", b_op1(c, "Not", b_op2(c, "Less", tp, zero)),
					   b_op2(c, "Less", tp, b_const_i64(c, C))), tp, blk);
	struct ir_value *bl = b_op2(c, "Expand", blk, b_op1(c, "Shape", tp));
	struct ir_value *pr[2] = { b_unsqueeze(c, bl, &a2, 1), b_unsqueeze(c, tp, &a2, 1) };
	int64_t rs[2] = { 0, -1 };
	struct ir_value *ex[2] = { b_op2(c, "Reshape", b_concat(c, 2, pr, 2), b_const_i64s(c, rs, 2, 1)),
				   b_slice(c, bl, 0, 1, 1, 1) };
	struct ir_value *ext = b_concat(c, 2, ex, 1);
	struct ir_value *sr = sym_arange_count(c, b_dim(c, ext, 1));
	struct ir_value *p2[2] = { b_slice(c, ext, 0, 2, 1, 1), b_slice(c, ext, 0, -2, 1, 1) };
	struct ctc q;
	q.skip = b_op2(c, "And", b_op1(c, "Not", b_op2(c, "Equal", ext, b_concat(c, 2, p2, 1))),
		       b_op2(c, "Greater", sr, b_const_i64(c, 1)));
	struct ir_value *shp[2] = { b_unsqueeze(c, T0, &a0, 1), b_op1(c, "Shape", ext) };
	struct ir_value *ie = b_op2(c, "Expand", b_unsqueeze(c, ext, &a0, 1), b_concat(c, 2, shp, 0));
	struct ir_node *ge = b_node(c, "GatherElements", 2, (struct ir_value *[]){ lp, ie }, 1);
	b_attr_i(c, ge, "axis", 2);
	q.lpe = b_done(c, ge);
	q.ilen = b_unsqueeze(c, il, &a1, 1);
	q.ninf = ninf;
	struct ir_value *tl1 = b_unsqueeze(c, tl, &a1, 1);
	struct ir_node *g0 = b_node(c, "Gather", 2, (struct ir_value *[]){ q.lpe, zero }, 1);
	b_attr_i(c, g0, "axis", 0);
	struct ir_value *first = b_op2(c, "Or", b_op2(c, "Equal", sr, zero),
		b_op2(c, "And", b_op2(c, "Equal", sr, b_const_i64(c, 1)), b_op2(c, "Greater", tl1, zero)));
	struct ir_value *alpha = b_op3(c, "Where", first, b_done(c, g0), ninf), *fin;
	struct ir_value *trip = ctc_pos(c, b_op2(c, "Sub", T0, b_const_i64(c, 1)));
	b_loop(c, trip, 1, &alpha, ctc_body, &q, &fin);
	/* -log(exp(l1) + exp(l2)): l1 at 2 L, l2 at 2 L - 1 (-inf for L 0) */
	struct ir_value *i2 = b_op2(c, "Mul", tl1, b_const_i64(c, 2));
	struct ir_node *gl1 = b_node(c, "GatherElements", 2, (struct ir_value *[]){ fin, i2 }, 1);
	b_attr_i(c, gl1, "axis", 1);
	struct ir_value *l1 = b_done(c, gl1);
	struct ir_node *gl2 = b_node(c, "GatherElements", 2, (struct ir_value *[]){ fin,
		ctc_pos(c, b_op2(c, "Sub", i2, b_const_i64(c, 1))) }, 1);
	b_attr_i(c, gl2, "axis", 1);
	struct ir_value *l2 = b_op3(c, "Where", b_op2(c, "Greater", tl1, zero), b_done(c, gl2), ninf);
	struct ir_value *m = ctc_max0(c, b_op2(c, "Max", l1, l2), ninf);
	struct ir_value *ll = b_op2(c, "Add", b_op1(c, "Log", b_op2(c, "Add",
		b_op1(c, "Exp", b_op2(c, "Sub", l1, m)), b_op1(c, "Exp", b_op2(c, "Sub", l2, m)))), m);
	struct ir_value *nll = b_squeeze(c, b_op1(c, "Neg", ll), &a1, 1);
	if (zinf)
		nll = b_op3(c, "Where", b_op2(c, "Equal", nll, scal(c, INFINITY, dt)), scal(c, 0, dt), nll);
	if (red == 0)
		out[0] = rl == 2 ? b_squeeze(c, nll, &a0, 1) : nll;
	else if (red == 2)
		out[0] = b_reduce(c, "ReduceSum", nll, NULL, 0, 0);
	else
		out[0] = b_reduce(c, "ReduceMean", b_op2(c, "Div", nll,
			b_op2(c, "Max", b_cast(c, tl, dt), scal(c, 1, dt))), NULL, 0, 0);
	return 0;
}

static const struct symbolic entries[] = {
	{ OP_aten_ctc_loss, 11, 0, SYM_PRIO_BASE, sym_ctc_loss },
	{ OP_aten_huber_loss, 9, 0, SYM_PRIO_BASE, sym_huber_loss },
	{ OP_aten_hinge_embedding_loss, 11, 0, SYM_PRIO_BASE, sym_hinge_embedding_loss },
	{ OP_aten_margin_ranking_loss, 9, 0, SYM_PRIO_BASE, sym_margin_ranking_loss },
	{ OP_aten_poisson_nll_loss, 11, 0, SYM_PRIO_BASE, sym_poisson_nll_loss },
	{ OP_aten_soft_margin_loss, 0, 0, SYM_PRIO_BASE, sym_soft_margin_loss },
	{ OP_aten_cosine_embedding_loss, 11, 0, SYM_PRIO_BASE, sym_cosine_embedding_loss },
	{ OP_aten_triplet_margin_loss, 9, 0, SYM_PRIO_BASE, sym_triplet_margin_loss },
	{ OP_aten_multi_margin_loss, 11, 0, SYM_PRIO_BASE, sym_multi_margin_loss },
	{ OP_aten_multilabel_margin_loss, 11, 0, SYM_PRIO_BASE, sym_multilabel_margin_loss },
};

const struct symbolic_table symbolic_loss_table = {
	entries, sizeof(entries) / sizeof(entries[0])
};

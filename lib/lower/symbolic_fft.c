/*
 * symbolic_fft.c - torch.fft (aten::fft_*) and the complex tensors around
 * it: view_as_real / view_as_complex, real, imag, abs, angle, conj,
 * complex, polar, mul / add / sub / div / neg of complex tensors (with
 * each other and with real tensors or numbers), fftshift / ifftshift,
 * fftfreq / rfftfreq, stft and istft, and _fft_r2c / _fft_c2r (the
 * internal forms torch.export graphs call).  One
 * function per op for every opset, branching on c->opset; see
 * lower_int.h.
 *
 * Representation.  Inside lower a complex tensor of shape S is a real
 * tensor of shape [S..., 2] (re, im in the last dim), the layout of ONNX's
 * DFT; complex64 is Float pairs, complex128 Double pairs.  `script` types
 * fft outputs as plain Tensor, so the IR dtype cannot say which values are
 * complex: the node that produces a complex value here carries the doc
 * string CPLX_DOC (for a value that needs no computation, an Identity
 * carries it; the mark stays in the ONNX as that node's doc_string), and
 * is_cplx() reads that mark on the producer.  A complex64 / complex128
 * parameter is already (re, im) pairs in the archive: its first use here
 * retypes the weight in place as Float / Double [..., 2] (the same bytes,
 * never read) and marks its tensor (cplx_weight).
 *
 * Who may use a complex value.  When a symbolic here yields one, it looks
 * at every later use of the aten value (claim_from): the ops of this file
 * read the mark themselves; abs, mul, add, sub, div, neg (and their
 * in-place forms) and the pass-through ops (clone, contiguous, detach,
 * resolve_conj, resolve_neg) have real-tensor symbolics in the opset
 * tables, which take precedence, so such a user is renamed complex::OP
 * and converts through this table's complex::OP entry.  Any other use (a
 * sum, a reshape, a list, a block's output) and a complex graph output
 * make the producing op decline with one line: the ONNX graph would
 * compute on the (re, im) pairs as if they were real, so the model must
 * take .real / .imag / .abs() or torch.view_as_real first.
 *
 * Transforms.  From opset 17 each transformed dim is one onnx::DFT
 * (forward or inverse, onesided for rfft, dft_length for n/s, the input
 * given a batch dim when the dim is 0); irfft / hfft weight the half
 * spectrum (1, 2, ..., 2, 1) and take the real part of an inverse DFT of
 * length n; a length known only at run time works (weights, norm factors
 * and dft_length computed from the input's shape).  Below 17 a transformed dim of static length is one MatMul with
 * a constant DFT matrix (cos / sin computed in double, stored in the
 * tensor's dtype), the (re, im) pairs interleaved into its rows and
 * columns; padding and truncation to n, the half-spectrum weights and
 * torch's norm ("backward" / "forward" / "ortho") are folded into the
 * matrix.  A dynamic length below 17 is refused with one line.
 *
 * stft is one Conv (stride hop) whose 2 * freqs kernels are the DFT basis
 * times the window, its channels then paired into (re, im); istft one
 * ConvTranspose of the inverse basis times the window (the frames'
 * overlap-add), divided by the overlap-added squared window and trimmed as
 * torch trims.  Both work at every opset and any signal length (a dynamic
 * istft length from opset 10).  The window is a value (a buffer of the
 * archive, which lower does not read): `fold` multiplies it in.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "symbolic_common.h"

#define CPLX_DOC "pt2onnx: complex (re, im) pairs in the last dim"
#define MAXD 16
/* the largest DFT matrix built below opset 17, in elements */
#define MAT_MAX ((int64_t)1 << 24)

static const double PI = 3.14159265358979323846;

/* --- complex values ------------------------------------------------------ */

static int is_cplx(const struct ir_value *v)
{
	if (v && v->weight && v->weight->tensor &&
	    v->weight->tensor->doc && !strcmp(v->weight->tensor->doc, CPLX_DOC))
		return 1;
	return v && v->producer && v->producer->doc &&
	       !strcmp(v->producer->doc, CPLX_DOC);
}

/* a complex value not made here (a complex parameter or constant) */
static int raw_complex(const struct ir_value *v)
{
	enum ir_dtype dt = b_dtype(v);
	return dt == IR_DTYPE_COMPLEX64 || dt == IR_DTYPE_COMPLEX128;
}

/* users of a complex value that convert through complex::OP */
static const enum aten_op renamed[] = {
	OP_aten_abs, OP_aten_mul, OP_aten_mul_, OP_aten_add, OP_aten_add_,
	OP_aten_sub, OP_aten_sub_, OP_aten_div, OP_aten_div_, OP_aten_neg,
	OP_aten_neg_, OP_aten_clone, OP_aten_contiguous, OP_aten_detach,
	OP_aten_resolve_conj, OP_aten_resolve_neg, OP_aten_slice,
	OP_aten_select, OP_aten_unsqueeze, OP_aten_squeeze, OP_aten_permute,
	OP_aten_transpose, OP_aten_reshape, OP_aten_view, OP_aten_flatten,
	OP_aten_sum, OP_aten_mean,
};

/* ops of this file that take a complex input as it is */
static const enum aten_op own[] = {
	OP_aten_fft_fft, OP_aten_fft_ifft, OP_aten_fft_irfft,
	OP_aten_fft_hfft, OP_aten_fft_fft2, OP_aten_fft_ifft2,
	OP_aten_fft_irfft2, OP_aten_fft_hfft2, OP_aten_fft_fftn,
	OP_aten_fft_ifftn, OP_aten_fft_irfftn, OP_aten_fft_hfftn,
	OP_aten_view_as_real, OP_aten_real, OP_aten_imag, OP_aten_angle,
	OP_aten_conj, OP_aten__conj, OP_aten_conj_physical, OP_aten_istft,
	OP_aten_fft_fftshift, OP_aten_fft_ifftshift, OP_aten__fft_c2r,
};

static int in_list(enum aten_op op, const enum aten_op *l, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (op == l[i])
			return 1;
	return 0;
}

static int uses_value(const struct ir_node *m, const struct ir_value *v)
{
	for (uint32_t i = 0; i < m->ninputs; i++)
		if (m->inputs[i] == v)
			return 1;
	return 0;
}

static int returns_value(const struct ir_block *b, const struct ir_value *v)
{
	for (uint32_t i = 0; i < b->nreturns; i++)
		if (b->returns[i] == v)
			return 1;
	return 0;
}

/* Checks (rename 0) or renames (rename 1) the users of v from node m on in
 * block b and the blocks nested in it; 0 when all can take a complex v,
 * else 1 with c->why set. */
static int claim_from(struct lower_ctx *c, struct ir_block *b,
		      struct ir_node *m, struct ir_value *v, int rename,
		      int view)
{
	for (; m; m = m->next) {
		for (uint32_t k = 0; k < m->nblocks; k++)
			if (claim_from(c, m->blocks[k], m->blocks[k]->first, v,
				       rename, view))
				return 1;
		if (!uses_value(m, v))
			continue;
		const char *k = m->kind;
		size_t kl = strlen(k);
		if (view && kl > 1 && k[kl - 1] == '_' && m->inputs[0] == v) {
			/* torch writes through the view into its base */
			c->why = ir_strfmt(c->g, "%s writes into a view of a "
					   "complex tensor", k);
			return 1;
		}
		if (!strncmp(k, "complex::", 9))
			continue;
		if (in_list(m->op, own, sizeof(own) / sizeof(own[0])))
			continue;
		if (in_list(m->op, renamed, sizeof(renamed) / sizeof(renamed[0]))) {
			if (rename) {
				/* an internal kind, not an operator */
				ir_node_set_kind(m, ir_strfmt(c->g, "complex::%s",
							      k + 6));
			}
			continue;
		}
		c->why = ir_strfmt(c->g, "its complex result is used by %s, "
				   "which has no complex form here (take "
				   ".real, .imag, .abs() or "
				   "torch.view_as_real of it first)", k);
		return 1;
	}
	if (returns_value(b, v)) {
		c->why = b == c->g->top
			? "a complex graph output has no ONNX form here: return "
			  "torch.view_as_real(x) or x.abs()"
			: "a complex value leaves a block (an if or loop): "
			  "take torch.view_as_real of it inside";
		return 1;
	}
	return 0;
}

/* A complex parameter (a weight of dtype complex64 / complex128) as the
 * (re, im) pairs its bytes already are: the weight retyped in place to
 * Float / Double [..., 2] (strides doubled), its tensor marked, every use
 * claimed.  0, or 1 declined (a use that cannot take it). */
static int cplx_weight(struct lower_ctx *c, struct ir_value *v)
{
	struct ir_tensor *t = v && v->weight ? v->weight->tensor : NULL;
	if (!t || (t->dtype != IR_DTYPE_COMPLEX64 &&
		   t->dtype != IR_DTYPE_COMPLEX128) ||
	    v->type->kind != IR_TYPE_TENSOR || t->rank > MAXD ||
	    v->type->rank != t->rank)
		return lw_decline(c, "a complex value that is neither a "
				  "parameter nor made by ops with a complex "
				  "form here");
	if (claim_from(c, c->g->top, c->g->top->first, v, 0, 0))
		return 1;
	claim_from(c, c->g->top, c->g->top->first, v, 1, 0);
	enum ir_dtype dt = t->dtype == IR_DTYPE_COMPLEX64 ? IR_DTYPE_FLOAT
							  : IR_DTYPE_DOUBLE;
	int64_t *dims = ir_alloc(c->g, sizeof(int64_t) * (size_t)(t->rank + 1));
	for (int i = 0; i < t->rank; i++)
		dims[i] = t->dims[i];
	dims[t->rank] = 2;
	if (t->data_kind == IR_DATA_REF && t->ref.strides) {
		int64_t *st = ir_alloc(c->g, sizeof(int64_t) *
				       (size_t)(t->rank + 1));
		for (int i = 0; i < t->rank; i++)
			st[i] = 2 * t->ref.strides[i];
		st[t->rank] = 1;
		t->ref.strides = st;
	}
	t->dims = dims;
	t->rank++;
	t->dtype = dt;
	t->doc = CPLX_DOC;
	v->type = ir_tensor_type(c->g, t);
	return 0;
}

/* input i of n, a complex parameter made pairs (cplx_weight); NULL when
 * declined */
static struct ir_value *in_c(struct lower_ctx *c, struct ir_node *n, int i)
{
	struct ir_value *v = lw_in(c, n, i);
	if (v && raw_complex(v) && cplx_weight(c, v))
		return NULL;
	return v;
}

/* The complex result v of n: its users claimed, v marked (v must be made
 * by a node built for n), out[0] set; view: n's result is a view of its
 * input in torch (in-place users refused).  0, or 1 declined. */
static int yield_any(struct lower_ctx *c, struct ir_node *n,
		     struct ir_value *v, struct ir_value **out, int view)
{
	struct ir_value *o = n->outputs[0];
	if (claim_from(c, c->blk, n->next, o, 0, view))
		return 1;
	claim_from(c, c->blk, n->next, o, 1, view);
	if (!is_cplx(v)) {
		if (!v->producer)
			v = b_op1(c, "Identity", v);
		v->producer->doc = CPLX_DOC;
	}
	out[0] = v;
	return 0;
}

static int yield_cplx(struct lower_ctx *c, struct ir_node *n,
		      struct ir_value *v, struct ir_value **out)
{
	return yield_any(c, n, v, out, 0);
}

static int yield_view(struct lower_ctx *c, struct ir_node *n,
		      struct ir_value *v, struct ir_value **out)
{
	return yield_any(c, n, v, out, 1);
}

/* A fresh marked copy (view_as_complex of an existing value) */
static struct ir_value *cplx_identity(struct lower_ctx *c, struct ir_value *v)
{
	struct ir_value *r = b_op1(c, "Identity", v);
	r->producer->doc = CPLX_DOC;
	return r;
}

/* --- small builders ----------------------------------------------------- */

/* [a, b] of dtype dt */
static struct ir_value *pair_const(struct lower_ctx *c, double a, double b,
				   enum ir_dtype dt)
{
	double v[2] = { a, b };
	int64_t two = 2;
	return b_const_reals(c, v, &two, 1, dt);
}

static struct ir_value *gather_last(struct lower_ctx *c, struct ir_value *x,
				    int64_t idx)
{
	struct ir_node *g = b_node(c, "Gather", 2,
				   (struct ir_value *[]){ x, b_const_i64(c, idx) },
				   1);
	b_attr_i(c, g, "axis", b_rank(x) - 1);
	return b_done(c, g);
}

static struct ir_value *concat_last(struct lower_ctx *c, struct ir_value *a,
				    struct ir_value *b)
{
	return b_concat(c, 2, (struct ir_value *[]){ a, b }, b_rank(a) - 1);
}

/* (re, im) of complex x, each [S..., 1] */
static void split_ri(struct lower_ctx *c, struct ir_value *x,
		     struct ir_value **re, struct ir_value **im)
{
	int r = b_rank(x);
	*re = b_slice(c, x, 0, 1, r - 1, 1);
	*im = b_slice(c, x, 1, 2, r - 1, 1);
}

/* real tensor v (rank known) with a trailing dim of 1, in dtype dt */
static struct ir_value *unsq_last(struct lower_ctx *c, struct ir_value *v,
				  enum ir_dtype dt)
{
	int64_t ax = b_rank(v);
	return b_unsqueeze(c, b_cast(c, v, dt), &ax, 1);
}

/* real v as complex (v, 0) */
static struct ir_value *real_to_cplx(struct lower_ctx *c, struct ir_value *v,
				     enum ir_dtype dt)
{
	return b_op2(c, "Mul", unsq_last(c, v, dt), pair_const(c, 1, 0, dt));
}

static struct ir_value *cmul(struct lower_ctx *c, struct ir_value *a,
			     struct ir_value *b)
{
	struct ir_value *ar, *ai, *br, *bi;
	split_ri(c, a, &ar, &ai);
	split_ri(c, b, &br, &bi);
	struct ir_value *re = b_op2(c, "Sub", b_op2(c, "Mul", ar, br),
				    b_op2(c, "Mul", ai, bi));
	struct ir_value *im = b_op2(c, "Add", b_op2(c, "Mul", ar, bi),
				    b_op2(c, "Mul", ai, br));
	return concat_last(c, re, im);
}

/* The component dtype of input x (real ints become Float); UNDEFINED
 * when unsupported. */
static enum ir_dtype comp_dtype(struct ir_value *x)
{
	enum ir_dtype dt = b_dtype(x);
	if (dt == IR_DTYPE_FLOAT || dt == IR_DTYPE_DOUBLE)
		return dt;
	if (dt == IR_DTYPE_UNDEFINED || b_is_float(dt) ||
	    dt == IR_DTYPE_COMPLEX64 || dt == IR_DTYPE_COMPLEX128)
		return IR_DTYPE_UNDEFINED;
	return IR_DTYPE_FLOAT;
}



/* --- transforms ------------------------------------------------------- */

enum fkind {
	F_C2C, /* complex (or real) in, complex out, length n */
	F_R2C, /* real in, the n/2 + 1 half spectrum out */
	F_C2R, /* half spectrum in, real out of length n */
};

/* torch's norm: 0 backward, 1 forward, 2 ortho; -1 unknown */
static int norm_mode(struct lower_ctx *c, struct ir_node *n, int i)
{
	if (lw_is_none(c, n, i))
		return 0;
	const char *s = lw_str(c, n, i);
	if (!s)
		return -1;
	if (!strcmp(s, "backward"))
		return 0;
	if (!strcmp(s, "forward"))
		return 1;
	if (!strcmp(s, "ortho"))
		return 2;
	return -1;
}

/* torch's factor on one dim of length len; inv: an inverse-type op
 * (ifft, irfft, ihfft).  NAN when it needs len and len is unknown. */
static double norm_factor(int mode, int inv, int64_t len)
{
	if (mode == 2)
		return len > 0 ? 1.0 / sqrt((double)len) : NAN;
	if ((mode == 0) == (inv != 0))
		return len > 0 ? 1.0 / (double)len : NAN;
	return 1.0;
}

static int64_t fixed_dim(const struct ir_value *x, int i)
{
	if (b_rank(x) <= i || x->type->dims[i].kind != IR_DIM_FIXED)
		return -1;
	return x->type->dims[i].value;
}

/* The type of DFT's output: x's with dim ax of length len (-1 unknown)
 * and a last dim of 2. */
static void set_dft_type(struct lower_ctx *c, struct ir_value *y,
			 const struct ir_value *x, int ax, int64_t len)
{
	if (b_rank(x) < 1)
		return;
	struct ir_type *t = ir_type_copy(c->g, x->type);
	t->dims[ax].kind = len >= 0 ? IR_DIM_FIXED : IR_DIM_UNKNOWN;
	t->dims[ax].value = len >= 0 ? len : 0;
	t->dims[ax].symbol = NULL;
	t->dims[t->rank - 1].kind = IR_DIM_FIXED;
	t->dims[t->rank - 1].value = 2;
	t->dims[t->rank - 1].symbol = NULL;
	y->type = t;
}

/* n ** e in dtype dt, n a 0-d Long value: a 0-d tensor */
static struct ir_value *len_pow(struct lower_ctx *c, struct ir_value *n,
				double e, enum ir_dtype dt)
{
	return b_op2(c, "Pow", b_cast(c, n, dt), b_const_scalar(c, e, dt, 0));
}

/* One 1-d transform of x (complex when cplx, logical rank R) along dim
 * d with onnx::DFT (opset 17).  sign: the exponent's (-1 forward); n the
 * transform length (-1: the input's, then dynamic when the dim is), given:
 * n came from the call; mode, inv: torch's norm and direction.  A length
 * known only at run time is read from the input's shape (norm factors,
 * the half-spectrum weights and DFT's dft_length then computed).  NULL
 * when declined. */
static struct ir_value *dft17(struct lower_ctx *c, struct ir_value *x,
			      int cplx, int R, int d, enum fkind k, int sign,
			      int64_t n, int given, int mode, int inv)
{
	enum ir_dtype dt = b_dtype(x);
	int64_t lin = fixed_dim(x, d);
	if (n < 0 && lin >= 0)
		n = k == F_C2R ? 2 * (lin - 1) : lin;
	if (n == 0 || (n < 0 && n != -1) || (n < 0 && given)) {
		lw_decline(c, "an empty transform");
		return NULL;
	}
	int onnx_inv = k == F_C2R || (k == F_C2C && sign > 0);
	/* the factor is n ** e: torch's norm, times n for ONNX's inverse */
	double e = (mode == 2 ? -0.5 : (mode == 0) == (inv != 0) ? -1 : 0) +
		   onnx_inv;
	double mult = e == 0 ? 1 : n > 0 ? pow((double)n, e) : 1;
	if (!cplx) {
		int64_t ax = R;
		x = b_unsqueeze(c, x, &ax, 1);
	}
	int lead = d == 0;
	if (lead) {
		int64_t z = 0;
		x = b_unsqueeze(c, x, &z, 1);
	}
	int ax = d + lead;
	struct ir_value *nval = NULL, *multv = NULL;
	if (n < 0) {
		nval = b_dim(c, x, ax);
		if (k == F_C2R)
			nval = b_op2(c, "Mul", b_op2(c, "Sub", nval,
						     b_const_i64(c, 1)),
				     b_const_i64(c, 2));
		if (e != 0)
			multv = len_pow(c, nval, e, dt);
	}
	int64_t outlen = n < 0 ? -1 : k == F_R2C ? n / 2 + 1 : n;
	int64_t cur = lin; /* the signal's length entering the DFT */
	if (k == F_C2R) {
		/* weights (w, +-w) along the dim: 1 for the DC term and,
		 * n even, the Nyquist one, 2 for the rest; the hfft's
		 * conjugate in the sign of the imaginary part */
		int rk = R + lead + 1 - ax;
		int64_t dims[MAXD + 2];
		for (int i = 1; i < rk - 1; i++)
			dims[i] = 1;
		dims[rk - 1] = 2;
		if (n >= 0 && (lin < 0 || lin > n / 2 + 1))
			x = b_slice(c, x, 0, n / 2 + 1, ax, 1);
		if (n >= 0 && lin >= 0) {
			int64_t lk = lin < n / 2 + 1 ? lin : n / 2 + 1;
			double *w = ir_alloc(c->g, sizeof(double) * 2 *
					     (size_t)lk);
			dims[0] = lk;
			for (int64_t i = 0; i < lk; i++) {
				double wk = i == 0 || (n % 2 == 0 &&
						       i == n / 2) ? 1 : 2;
				w[2 * i] = wk * mult;
				w[2 * i + 1] = sign > 0 ? wk * mult
							: -wk * mult;
			}
			x = b_op2(c, "Mul", x, b_const_reals(c, w, dims, rk, dt));
			cur = lk;
		} else {
			struct ir_value *kr = b_op3(c, "Range", b_const_i64(c, 0),
						    b_dim(c, x, ax),
						    b_const_i64(c, 1));
			struct ir_value *nn = nval ? nval : b_const_i64(c, n);
			struct ir_value *w = b_op2(c, "Sub",
				b_op2(c, "Sub", b_const_scalar(c, 2, dt, 0),
				      b_cast(c, b_op2(c, "Equal", kr,
						      b_const_i64(c, 0)), dt)),
				b_cast(c, b_op2(c, "Equal", b_op2(c, "Mul", kr,
						b_const_i64(c, 2)), nn), dt));
			dims[0] = -1;
			dims[rk - 1] = 1;
			w = b_op2(c, "Reshape", w, b_const_i64s(c, dims, rk, 1));
			x = b_op2(c, "Mul", b_op2(c, "Mul", x, w),
				  pair_const(c, mult, sign > 0 ? mult : -mult,
					     dt));
			if (multv)
				x = b_op2(c, "Mul", x, multv);
			cur = -1;
		}
		mult = 1;
		multv = NULL;
	}
	struct ir_value *in[3] = { x, NULL, NULL };
	if ((given || k == F_C2R) && (cur < 0 || cur != n))
		in[1] = nval ? nval : b_const_i64(c, n);
	/* DFT-20 takes the axis as its third input (an attribute at 17) */
	struct ir_node *nd;
	if (c->opset >= 20) {
		in[2] = b_const_i64(c, ax);
		nd = b_node(c, "DFT", 3, in, 1);
	} else {
		nd = b_node(c, "DFT", in[1] ? 2 : 1, in, 1);
		b_attr_i(c, nd, "axis", ax);
	}
	if (onnx_inv)
		b_attr_i(c, nd, "inverse", 1);
	if (k == F_R2C)
		b_attr_i(c, nd, "onesided", 1);
	struct ir_value *y = b_done(c, nd);
	set_dft_type(c, y, x, ax, outlen);
	if (k == F_R2C && sign > 0)
		y = b_op2(c, "Mul", y, pair_const(c, mult, -mult, dt));
	else if (mult != 1)
		y = b_op2(c, "Mul", y, b_const_scalar(c, mult, dt, 0));
	if (multv)
		y = b_op2(c, "Mul", y, multv);
	if (k == F_C2R)
		y = gather_last(c, y, 0);
	if (lead) {
		int64_t z = 0;
		y = b_squeeze(c, y, &z, 1);
	}
	return y;
}

/* cos and sin of 2 pi q / n, exact at the quarter turns (the DC and
 * Nyquist terms of a real signal then have imaginary parts of exactly 0,
 * as torch's) */
static void unit_root(int64_t q, int64_t n, double *cs, double *sn)
{
	static const double qc[4] = { 1, 0, -1, 0 }, qs[4] = { 0, 1, 0, -1 };
	if ((4 * q) % n == 0) {
		*cs = qc[(4 * q) / n];
		*sn = qs[(4 * q) / n];
		return;
	}
	double t = 2 * PI * (double)q / (double)n;
	*cs = cos(t);
	*sn = sin(t);
}

/* The same with a constant DFT matrix (any opset): x's dim d moved last,
 * its (re, im) pairs flattened, one MatMul, and back. */
static struct ir_value *dft_matrix(struct lower_ctx *c, struct ir_value *x,
				   int cplx, int R, int d, enum fkind k,
				   int sign, int64_t n, int mode, int inv,
				   const char *op)
{
	enum ir_dtype dt = b_dtype(x);
	int64_t lin = fixed_dim(x, d);
	if (lin < 0) {
		lw_decline(c, ir_strfmt(c->g, "%s over a dim of dynamic length "
					"needs ONNX DFT (opset 17) at opset %d",
					op, c->opset));
		return NULL;
	}
	if (n < 0)
		n = k == F_C2R ? 2 * (lin - 1) : lin;
	if (n < 1) {
		lw_decline(c, "an empty transform");
		return NULL;
	}
	double scale = norm_factor(mode, inv, n);
	int64_t lout = k == F_R2C ? n / 2 + 1 : n;
	int ocplx = k != F_C2R;
	int64_t rows = (cplx ? 2 : 1) * lin, cols = (ocplx ? 2 : 1) * lout;
	if (rows * cols > MAT_MAX) {
		lw_decline(c, ir_strfmt(c->g, "a %lld-point %s as a matrix is "
					"too large at opset %d (use opset 17)",
					(long long)n, op, c->opset));
		return NULL;
	}
	double *w = ir_alloc(c->g, sizeof(double) * (size_t)(rows * cols));
	int64_t kmax = k == F_C2R ? n / 2 + 1 : n;
	if (kmax > lin)
		kmax = lin;
	for (int64_t i = 0; i < kmax; i++)
		for (int64_t m = 0; m < lout; m++) {
			double cs, sn;
			unit_root((i * m) % n, n, &cs, &sn);
			cs *= scale;
			sn *= sign * scale;
			if (k == F_C2R) {
				/* Re((xr + i xi) e^(i sign t)), weighted */
				double wk = i == 0 || (n % 2 == 0 && i == n / 2)
					? 1 : 2;
				w[(2 * i) * cols + m] = wk * cs;
				w[(2 * i + 1) * cols + m] = -wk * sn;
			} else if (cplx) {
				w[(2 * i) * cols + 2 * m] = cs;
				w[(2 * i) * cols + 2 * m + 1] = sn;
				w[(2 * i + 1) * cols + 2 * m] = -sn;
				w[(2 * i + 1) * cols + 2 * m + 1] = cs;
			} else {
				w[i * cols + 2 * m] = cs;
				w[i * cols + 2 * m + 1] = sn;
			}
		}
	int64_t perm[MAXD + 1], inv_perm[MAXD + 1], shp[MAXD + 1];
	int moved = d != R - 1;
	if (moved) {
		int j = 0;
		for (int i = 0; i < R; i++)
			if (i != d)
				perm[j++] = i;
		perm[j++] = d;
		if (cplx)
			perm[j++] = R;
		x = b_transpose(c, x, perm, j);
	}
	if (cplx) {
		for (int i = 0; i < R - 1; i++)
			shp[i] = 0;
		shp[R - 1] = -1;
		x = b_op2(c, "Reshape", x, b_const_i64s(c, shp, R, 1));
	}
	int64_t wd[2] = { rows, cols };
	struct ir_value *y = b_op2(c, "MatMul", x,
				   b_const_reals(c, w, wd, 2, dt));
	if (ocplx) {
		for (int i = 0; i < R - 1; i++)
			shp[i] = 0;
		shp[R - 1] = lout;
		shp[R] = 2;
		y = b_op2(c, "Reshape", y, b_const_i64s(c, shp, R + 1, 1));
	}
	if (moved) {
		for (int i = 0; i < R; i++)
			inv_perm[perm[i]] = i;
		inv_perm[R] = R;
		y = b_transpose(c, y, inv_perm, R + ocplx);
	}
	return y;
}

static struct ir_value *dft1(struct lower_ctx *c, struct ir_value *x,
			     int cplx, int R, int d, enum fkind k, int sign,
			     int64_t n, int given, int mode, int inv,
			     const char *op)
{
	if (c->opset >= 17)
		return dft17(c, x, cplx, R, d, k, sign, n, given, mode, inv);
	return dft_matrix(c, x, cplx, R, d, k, sign, n, mode, inv, op);
}

/* --- the fft ops -------------------------------------------------------- */

enum fop {
	OP_FFT, OP_IFFT, OP_RFFT, OP_IRFFT, OP_HFFT, OP_IHFFT,
};

/* The input of a transform as a real (cplx 0) or complex value of a
 * supported dtype, with its logical rank; NULL declined. */
static struct ir_value *fft_input(struct lower_ctx *c, struct ir_node *n,
				  int *cplx, int *R, enum fop f)
{
	struct ir_value *x = in_c(c, n, 0);
	if (!x || x->type->kind != IR_TYPE_TENSOR) {
		if (!c->why)
			lw_decline(c, "the input is not a tensor");
		return NULL;
	}
	*cplx = is_cplx(x);
	if (*cplx && (f == OP_RFFT || f == OP_IHFFT)) {
		lw_decline(c, "the input is complex (torch takes a real one)");
		return NULL;
	}
	enum ir_dtype dt = comp_dtype(x);
	if (dt == IR_DTYPE_UNDEFINED) {
		lw_decline(c, "input dtype not Float or Double");
		return NULL;
	}
	if (b_rank(x) < 0 || b_rank(x) - *cplx > MAXD) {
		lw_decline(c, "input rank unknown");
		return NULL;
	}
	if (!*cplx && (f == OP_IRFFT || f == OP_HFFT)) {
		/* a real half spectrum: zero imaginary parts */
		x = real_to_cplx(c, x, dt);
		*cplx = 1;
	} else {
		x = b_cast(c, x, dt);
	}
	*R = b_rank(x) - *cplx;
	return x;
}

/* dims[0..cnt) of a rank-R input made non-negative; 1 declined (out of
 * range, or one given twice) */
static int wrap_dims(struct lower_ctx *c, int64_t *dims, int cnt, int R)
{
	for (int i = 0; i < cnt; i++) {
		if (dims[i] < -R || dims[i] >= R)
			return lw_decline(c, "dim out of range");
		if (dims[i] < 0)
			dims[i] += R;
		for (int j = 0; j < i; j++)
			if (dims[j] == dims[i])
				return lw_decline(c, "a dim given twice");
	}
	return 0;
}

/* fft_fft / ifft / rfft / irfft / hfft / ihfft (self, n?, dim, norm?) and
 * the 2-d / n-d forms (self, s?, dim?, norm?): nd 0 one dim, 2 fft2, -1
 * fftn. */
static int fft_any(struct lower_ctx *c, struct ir_node *n,
		   struct ir_value **out, enum fop f, int nd, const char *op)
{
	int cplx, R;
	struct ir_value *x = fft_input(c, n, &cplx, &R, f);
	if (!x)
		return 1;
	int mode = norm_mode(c, n, 3);
	if (mode < 0)
		return lw_decline(c, "norm not a constant backward, forward "
				  "or ortho");
	int64_t dims[MAXD], ns[MAXD];
	int cnt, haves = 0;
	if (nd == 0) {
		cnt = 1;
		if (!lw_int(c, n, 2, &dims[0]))
			return lw_decline(c, "dim not constant");
		ns[0] = -1;
		if (!lw_is_none(c, n, 1)) {
			if (!lw_int(c, n, 1, &ns[0]))
				return lw_decline(c, "n not constant");
			if (ns[0] < 1)
				return lw_decline(c, "n must be positive");
			haves = 1;
		}
	} else {
		int sc = -1, dc = -1;
		if (!lw_is_none(c, n, 1)) {
			sc = lw_ints(c, n, 1, ns, MAXD, 0);
			if (sc < 0)
				return lw_decline(c, "s not constant");
			haves = 1;
		}
		if (!lw_is_none(c, n, 2)) {
			dc = lw_ints(c, n, 2, dims, MAXD, 0);
			if (dc < 0)
				return lw_decline(c, "dim not constant");
		}
		if (dc < 0) {
			cnt = sc >= 0 ? sc : R;
			if (cnt > R)
				return lw_decline(c, "s longer than the rank");
			for (int i = 0; i < cnt; i++)
				dims[i] = R - cnt + i;
		} else {
			cnt = dc;
			if (sc >= 0 && sc != dc)
				return lw_decline(c, "s and dim of different "
						  "lengths");
		}
		if (sc < 0)
			for (int i = 0; i < cnt; i++)
				ns[i] = -1;
	}
	if (cnt < 1 && (f != OP_FFT && f != OP_IFFT))
		return lw_decline(c, "no dims to transform");
	if (wrap_dims(c, dims, cnt, R))
		return 1;
	for (int i = 0; i < cnt; i++) {
		if (ns[i] == -1 || !haves)
			ns[i] = -1;
		else if (ns[i] < 1)
			return lw_decline(c, "s must be positive");
	}
	int inv = f == OP_IFFT || f == OP_IRFFT || f == OP_IHFFT;
	int sign = f == OP_IFFT || f == OP_IRFFT || f == OP_IHFFT ? 1 : -1;
	int last = cnt - 1;
	struct ir_value *y = x;
	int yc = cplx;
	if (f == OP_RFFT || f == OP_IHFFT) {
		/* the half spectrum of the last dim first */
		y = dft1(c, y, 0, R, (int)dims[last], F_R2C, sign, ns[last],
			 ns[last] >= 0, mode, inv, op);
		if (!y)
			return 1;
		yc = 1;
		for (int i = 0; i < last; i++) {
			y = dft1(c, y, 1, R, (int)dims[i], F_C2C, sign, ns[i],
				 ns[i] >= 0, mode, inv, op);
			if (!y)
				return 1;
		}
		return yield_cplx(c, n, y, out);
	}
	int upto = f == OP_IRFFT || f == OP_HFFT ? last : cnt;
	for (int i = 0; i < upto; i++) {
		y = dft1(c, y, yc, R, (int)dims[i], F_C2C, sign, ns[i],
			 ns[i] >= 0, mode, inv, op);
		if (!y)
			return 1;
		yc = 1;
	}
	if (f == OP_IRFFT || f == OP_HFFT) {
		y = dft1(c, y, 1, R, (int)dims[last], F_C2R, sign, ns[last],
			 ns[last] >= 0, mode, inv, op);
		if (!y)
			return 1;
		out[0] = y;
		return 0;
	}
	if (!yc) /* fftn over no dims: the input as complex */
		y = real_to_cplx(c, y, b_dtype(y));
	return yield_cplx(c, n, y, out);
}

#define FFT_SYM(name, f, nd)                                             \
	static int sym_##name(struct lower_ctx *c, struct ir_node *n,    \
			      struct ir_value **out)                     \
	{                                                                \
		return fft_any(c, n, out, f, nd,                         \
			       aten_op_name(OP_aten_##name));            \
	}
FFT_SYM(fft_fft, OP_FFT, 0)
FFT_SYM(fft_ifft, OP_IFFT, 0)
FFT_SYM(fft_rfft, OP_RFFT, 0)
FFT_SYM(fft_irfft, OP_IRFFT, 0)
FFT_SYM(fft_hfft, OP_HFFT, 0)
FFT_SYM(fft_ihfft, OP_IHFFT, 0)
FFT_SYM(fft_fft2, OP_FFT, 2)
FFT_SYM(fft_ifft2, OP_IFFT, 2)
FFT_SYM(fft_rfft2, OP_RFFT, 2)
FFT_SYM(fft_irfft2, OP_IRFFT, 2)
FFT_SYM(fft_hfft2, OP_HFFT, 2)
FFT_SYM(fft_ihfft2, OP_IHFFT, 2)
FFT_SYM(fft_fftn, OP_FFT, -1)
FFT_SYM(fft_ifftn, OP_IFFT, -1)
FFT_SYM(fft_rfftn, OP_RFFT, -1)
FFT_SYM(fft_irfftn, OP_IRFFT, -1)
FFT_SYM(fft_hfftn, OP_HFFT, -1)
FFT_SYM(fft_ihfftn, OP_IHFFT, -1)

/* torch.fft's internal forms, which torch.export graphs call after
 * run_decompositions(): _fft_r2c(self, dim[], normalization, onesided), a
 * forward transform (rfftn's when onesided, else fftn's of a real
 * input), and _fft_c2r(self, dim[], normalization, last_dim_size), the
 * inverse of a half spectrum (irfftn's).  normalization is ATen's
 * fft_norm_mode (0 none, 1 by 1/sqrt(n), 2 by 1/n), read here as the
 * norm_mode of the same factor; the transforms are fft_any's. */
static int fft_internal(struct lower_ctx *c, struct ir_node *n,
			struct ir_value **out, int c2r, const char *op)
{
	int cplx, R;
	struct ir_value *x = fft_input(c, n, &cplx, &R,
				       c2r ? OP_IRFFT : OP_RFFT);
	if (!x)
		return 1;
	int64_t norm, last_n = -1, dims[MAXD];
	int onesided = 1;
	if (!lw_int(c, n, 2, &norm) || norm < 0 || norm > 2)
		return lw_decline(c, "normalization not a constant 0, 1 or 2");
	/* forward: none backward, 1/sqrt(n) ortho, 1/n forward; inverse:
	 * none forward, 1/n backward */
	static const int fwd_mode[3] = { 0, 2, 1 }, inv_mode[3] = { 1, 2, 0 };
	int mode = c2r ? inv_mode[norm] : fwd_mode[norm];
	if (c2r) {
		if (!lw_int(c, n, 3, &last_n) || last_n < 1)
			return lw_decline(c, "last_dim_size not a positive "
					  "constant");
	} else {
		int64_t b;
		if (!lw_int(c, n, 3, &b))
			return lw_decline(c, "onesided not constant");
		onesided = b != 0;
	}
	int cnt = lw_ints(c, n, 1, dims, MAXD, 0);
	if (cnt < 1)
		return lw_decline(c, "dim not a constant, non-empty list");
	if (wrap_dims(c, dims, cnt, R))
		return 1;
	int last = cnt - 1, sign = c2r ? 1 : -1;
	struct ir_value *y = x;
	int yc = cplx;
	if (!c2r) {
		y = dft1(c, y, 0, R, (int)dims[last],
			 onesided ? F_R2C : F_C2C, sign, -1, 0, mode, 0, op);
		if (!y)
			return 1;
		yc = 1;
	}
	for (int i = 0; i < last; i++) {
		y = dft1(c, y, yc, R, (int)dims[i], F_C2C, sign, -1, 0, mode,
			 c2r, op);
		if (!y)
			return 1;
		yc = 1;
	}
	if (!c2r)
		return yield_cplx(c, n, y, out);
	y = dft1(c, y, 1, R, (int)dims[last], F_C2R, sign, last_n, 1, mode, 1,
		 op);
	if (!y)
		return 1;
	out[0] = y;
	return 0;
}

static int sym__fft_r2c(struct lower_ctx *c, struct ir_node *n,
			struct ir_value **out)
{
	return fft_internal(c, n, out, 0, aten_op_name(OP_aten__fft_r2c));
}

static int sym__fft_c2r(struct lower_ctx *c, struct ir_node *n,
			struct ir_value **out)
{
	return fft_internal(c, n, out, 1, aten_op_name(OP_aten__fft_c2r));
}

/* --- complex views and parts ------------------------------------------ */

static int sym_view_as_real(struct lower_ctx *c, struct ir_node *n,
			    struct ir_value **out)
{
	struct ir_value *x = lw_in(c, n, 0);
	if (!is_cplx(x))
		return lw_decline(c, x && x->producer &&
				  strncmp(x->producer->kind, "onnx::", 6)
				  ? "its input's op was not converted"
				  : "the input is not complex");
	/* a new, unmarked value: the same data, now real */
	out[0] = b_op1(c, "Identity", x);
	return 0;
}

static int sym_view_as_complex(struct lower_ctx *c, struct ir_node *n,
			       struct ir_value **out)
{
	struct ir_value *x = lw_in(c, n, 0);
	if (!x || is_cplx(x))
		return lw_decline(c, "the input is complex already");
	int r = b_rank(x);
	if (r < 1 || fixed_dim(x, r - 1) != 2)
		return lw_decline(c, "the input's last dim is not 2");
	if (b_dtype(x) != IR_DTYPE_FLOAT && b_dtype(x) != IR_DTYPE_DOUBLE)
		return lw_decline(c, "input dtype not Float or Double");
	return yield_view(c, n, cplx_identity(c, x), out);
}

static int part(struct lower_ctx *c, struct ir_node *n, struct ir_value **out,
		int which)
{
	struct ir_value *x = in_c(c, n, 0);
	if (!x)
		return c->why ? 1 : lw_decline(c, "the input is not a tensor");
	if (!is_cplx(x)) {
		if (which)
			return lw_decline(c, "imag of a real tensor");
		out[0] = x; /* torch: real of a real tensor is itself */
		return 0;
	}
	if (b_rank(x) < 1)
		return lw_decline(c, "input rank unknown");
	out[0] = gather_last(c, x, which);
	return 0;
}

static int sym_real(struct lower_ctx *c, struct ir_node *n,
		    struct ir_value **out)
{
	return part(c, n, out, 0);
}

static int sym_imag(struct lower_ctx *c, struct ir_node *n,
		    struct ir_value **out)
{
	return part(c, n, out, 1);
}

static int sym_conj(struct lower_ctx *c, struct ir_node *n,
		    struct ir_value **out)
{
	struct ir_value *x = in_c(c, n, 0);
	if (!x)
		return c->why ? 1 : lw_decline(c, "the input is not a tensor");
	if (!is_cplx(x)) {
		out[0] = x; /* conj of a real tensor is itself */
		return 0;
	}
	return yield_cplx(c, n, b_op2(c, "Mul", x,
				      pair_const(c, 1, -1, b_dtype(x))), out);
}

/* atan2(y, x) from Atan, as torch's angle: 0 at (0, 0), NaN in, NaN out */
static struct ir_value *atan2_of(struct lower_ctx *c, struct ir_value *y,
				 struct ir_value *x, enum ir_dtype dt)
{
	struct ir_value *zero = b_const_scalar(c, 0, dt, 0);
	struct ir_value *t = b_op1(c, "Atan", b_op2(c, "Div", y, x));
	struct ir_value *xneg = b_op2(c, "Less", x, zero);
	struct ir_value *yneg = b_op2(c, "Less", y, zero);
	struct ir_value *pi = b_const_scalar(c, PI, dt, 0);
	/* x < 0: t + pi for y >= 0, t - pi for y < 0 */
	struct ir_value *shift = b_op3(c, "Where", yneg,
				       b_const_scalar(c, -PI, dt, 0), pi);
	struct ir_value *r = b_op3(c, "Where", xneg, b_op2(c, "Add", t, shift),
				   t);
	/* x == 0 (either sign): sign(y) * pi / 2 */
	struct ir_value *xz = b_op1(c, "Not",
		b_op2(c, "Or", xneg, b_op2(c, "Greater", x, zero)));
	r = b_op3(c, "Where", xz,
		  b_op2(c, "Mul", b_op1(c, "Sign", y),
			b_const_scalar(c, PI / 2, dt, 0)), r);
	struct ir_value *nan = b_op2(c, "Or", b_op1(c, "IsNaN", x),
				     b_op1(c, "IsNaN", y));
	return b_op3(c, "Where", nan, b_op2(c, "Add", x, y), r);
}

static int sym_angle(struct lower_ctx *c, struct ir_node *n,
		     struct ir_value **out)
{
	struct ir_value *x = lw_in(c, n, 0);
	if (!x || x->type->kind != IR_TYPE_TENSOR)
		return lw_decline(c, "the input is not a tensor");
	if (c->opset < 9)
		return lw_decline(c, "needs opset 9 (Where, Sign, IsNaN)");
	if (is_cplx(x)) {
		if (b_rank(x) < 1)
			return lw_decline(c, "input rank unknown");
		enum ir_dtype dt = b_dtype(x);
		out[0] = atan2_of(c, gather_last(c, x, 1), gather_last(c, x, 0),
				  dt);
		return 0;
	}
	/* real: pi for negatives, 0 else, NaN kept (ints give Float) */
	enum ir_dtype dt = comp_dtype(x);
	if (dt == IR_DTYPE_UNDEFINED)
		return lw_decline(c, "input dtype not supported");
	x = b_cast(c, x, dt);
	struct ir_value *zero = b_const_scalar(c, 0, dt, 0);
	struct ir_value *r = b_op3(c, "Where", b_op2(c, "Less", x, zero),
				   b_const_scalar(c, PI, dt, 0), zero);
	out[0] = b_op3(c, "Where", b_op1(c, "IsNaN", x), x, r);
	return 0;
}

static int sym_complex(struct lower_ctx *c, struct ir_node *n,
		       struct ir_value **out)
{
	struct ir_value *re = lw_in(c, n, 0), *im = lw_in(c, n, 1);
	if (!re || !im || is_cplx(re) || is_cplx(im) ||
	    re->type->kind != IR_TYPE_TENSOR || im->type->kind != IR_TYPE_TENSOR)
		return lw_decline(c, "real and imag must be real tensors");
	enum ir_dtype dt = b_dtype(re);
	if ((dt != IR_DTYPE_FLOAT && dt != IR_DTYPE_DOUBLE) || b_dtype(im) != dt)
		return lw_decline(c, "real and imag not both Float or Double");
	if (b_rank(re) < 0 || b_rank(im) < 0)
		return lw_decline(c, "input rank unknown");
	re = unsq_last(c, re, dt);
	im = unsq_last(c, im, dt);
	if (!ir_type_equal(re->type, im->type)) {
		/* broadcast each to the other's shape */
		if (c->opset < 8)
			return lw_decline(c, "broadcasting needs opset 8");
		struct ir_value *sr = b_op1(c, "Shape", re);
		struct ir_value *si = b_op1(c, "Shape", im);
		re = b_op2(c, "Expand", re, si);
		im = b_op2(c, "Expand", im, sr);
	}
	return yield_cplx(c, n, concat_last(c, re, im), out);
}

static int sym_polar(struct lower_ctx *c, struct ir_node *n,
		     struct ir_value **out)
{
	struct ir_value *a = lw_in(c, n, 0), *t = lw_in(c, n, 1);
	if (!a || !t || is_cplx(a) || is_cplx(t) ||
	    a->type->kind != IR_TYPE_TENSOR || t->type->kind != IR_TYPE_TENSOR)
		return lw_decline(c, "abs and angle must be real tensors");
	enum ir_dtype dt = b_dtype(a);
	if ((dt != IR_DTYPE_FLOAT && dt != IR_DTYPE_DOUBLE) || b_dtype(t) != dt)
		return lw_decline(c, "abs and angle not both Float or Double");
	if (b_rank(a) < 0 || b_rank(t) < 0)
		return lw_decline(c, "input rank unknown");
	struct ir_value *re = b_op2(c, "Mul", a, b_op1(c, "Cos", t));
	struct ir_value *im = b_op2(c, "Mul", a, b_op1(c, "Sin", t));
	return yield_cplx(c, n, concat_last(c, unsq_last(c, re, dt),
					    unsq_last(c, im, dt)), out);
}

/* --- complex arithmetic (the renamed users) ---------------------------- */

static int sym_c_abs(struct lower_ctx *c, struct ir_node *n,
		     struct ir_value **out)
{
	struct ir_value *x = in_c(c, n, 0);
	if (!is_cplx(x) || b_rank(x) < 1)
		return lw_decline(c, "the input is not complex");
	int64_t ax = b_rank(x) - 1;
	out[0] = b_op1(c, "Sqrt", b_reduce(c, "ReduceSumSquare", x, &ax, 1, 0));
	return 0;
}

static int sym_c_neg(struct lower_ctx *c, struct ir_node *n,
		     struct ir_value **out)
{
	struct ir_value *x = lw_in(c, n, 0);
	if (!is_cplx(x))
		return lw_decline(c, "the input is not complex");
	return yield_cplx(c, n, b_op1(c, "Neg", x), out);
}

/* clone, contiguous, detach, resolve_conj, resolve_neg: the value itself */
static int sym_c_same(struct lower_ctx *c, struct ir_node *n,
		      struct ir_value **out)
{
	struct ir_value *x = lw_in(c, n, 0);
	if (!is_cplx(x))
		return lw_decline(c, "the input is not complex");
	struct ir_value *o = n->outputs[0];
	if (claim_from(c, c->blk, n->next, o, 0, 0))
		return 1;
	claim_from(c, c->blk, n->next, o, 1, 0);
	out[0] = x;
	return 0;
}

/* The operands of a binary op: a, b (at least one complex), the complex
 * dtype; scalars as 0-d constants.  1 declined. */
static int operands(struct lower_ctx *c, struct ir_node *n,
		    struct ir_value **a, struct ir_value **b, int *ac,
		    int *bc, enum ir_dtype *dt)
{
	*a = in_c(c, n, 0);
	*b = *a ? in_c(c, n, 1) : NULL;
	if (!*a || !*b)
		return c->why ? 1 : lw_decline(c, "an operand is not a value");
	*ac = is_cplx(*a);
	*bc = is_cplx(*b);
	if (!*ac && !*bc)
		return lw_decline(c, "no complex operand");
	*dt = b_dtype(*ac ? *a : *b);
	if (!*ac)
		*a = lw_tensor(c, n, 0);
	if (!*bc)
		*b = lw_tensor(c, n, 1);
	if (!*a || !*b)
		return lw_decline(c, "an operand is not a tensor or a number");
	if ((!*ac && b_rank(*a) < 0) || (!*bc && b_rank(*b) < 0))
		return lw_decline(c, "operand rank unknown");
	if (*ac && *bc && b_dtype(*a) != b_dtype(*b))
		return lw_decline(c, "complex operands of different dtypes");
	return 0;
}

static int sym_c_mul(struct lower_ctx *c, struct ir_node *n,
		     struct ir_value **out)
{
	struct ir_value *a, *b;
	int ac, bc;
	enum ir_dtype dt;
	if (operands(c, n, &a, &b, &ac, &bc, &dt))
		return 1;
	struct ir_value *y;
	if (ac && bc)
		y = cmul(c, a, b);
	else if (ac)
		y = b_op2(c, "Mul", a, unsq_last(c, b, dt));
	else
		y = b_op2(c, "Mul", unsq_last(c, a, dt), b);
	return yield_cplx(c, n, y, out);
}

static int add_sub(struct lower_ctx *c, struct ir_node *n,
		   struct ir_value **out, const char *op)
{
	struct ir_value *a, *b;
	int ac, bc;
	enum ir_dtype dt;
	double alpha = 1;
	if (n->ninputs > 2 && !lw_is_none(c, n, 2) &&
	    !lw_float(c, n, 2, &alpha))
		return lw_decline(c, "alpha not a constant real number");
	if (operands(c, n, &a, &b, &ac, &bc, &dt))
		return 1;
	if (!ac)
		a = real_to_cplx(c, a, dt);
	if (!bc)
		b = real_to_cplx(c, b, dt);
	if (alpha != 1)
		b = b_op2(c, "Mul", b, b_const_scalar(c, alpha, dt, 0));
	return yield_cplx(c, n, b_op2(c, op, a, b), out);
}

static int sym_c_add(struct lower_ctx *c, struct ir_node *n,
		     struct ir_value **out)
{
	return add_sub(c, n, out, "Add");
}

static int sym_c_sub(struct lower_ctx *c, struct ir_node *n,
		     struct ir_value **out)
{
	return add_sub(c, n, out, "Sub");
}

static int sym_c_div(struct lower_ctx *c, struct ir_node *n,
		     struct ir_value **out)
{
	struct ir_value *a, *b;
	int ac, bc;
	enum ir_dtype dt;
	if (n->ninputs > 2 && !lw_is_none(c, n, 2))
		return lw_decline(c, "rounding_mode of a complex division");
	if (operands(c, n, &a, &b, &ac, &bc, &dt))
		return 1;
	if (!bc)
		return yield_cplx(c, n, b_op2(c, "Div", a,
					      unsq_last(c, b, dt)), out);
	/* a / b = a * conj(b) / |b|^2 */
	int64_t ax = b_rank(b) - 1;
	struct ir_value *den = b_reduce(c, "ReduceSumSquare", b, &ax, 1, 1);
	struct ir_value *cb = b_op2(c, "Mul", b, pair_const(c, 1, -1, dt));
	struct ir_value *num = ac ? cmul(c, a, cb)
				  : b_op2(c, "Mul", unsq_last(c, a, dt), cb);
	return yield_cplx(c, n, b_op2(c, "Div", num, den), out);
}

/* --- shape ops and reductions of complex tensors (renamed users) ------- */

/* x complex of known logical rank; *R set.  NULL declined. */
static struct ir_value *cplx_in(struct lower_ctx *c, struct ir_node *n,
				int *R)
{
	struct ir_value *x = in_c(c, n, 0);
	if (!is_cplx(x)) {
		if (!c->why)
			lw_decline(c, "the input is not complex");
		return NULL;
	}
	*R = b_rank(x) - 1;
	if (*R < 0 || *R > MAXD) {
		lw_decline(c, "input rank unknown");
		return NULL;
	}
	return x;
}

/* a constant dim input i of a logical rank R (R + 1 for unsqueeze), made
 * non-negative; -1 declined */
static int64_t dim_arg(struct lower_ctx *c, struct ir_node *n, int i, int R)
{
	int64_t d;
	if (!lw_int(c, n, i, &d) || d < -R || d >= R) {
		lw_decline(c, "dim not a constant in range");
		return -1;
	}
	return d < 0 ? d + R : d;
}

static int sym_c_slice(struct lower_ctx *c, struct ir_node *n,
		       struct ir_value **out)
{
	/* slice(self, dim, start?, end?, step) */
	int R;
	struct ir_value *x = cplx_in(c, n, &R);
	if (!x)
		return 1;
	int64_t d = dim_arg(c, n, 1, R), st = 0, en = INT64_MAX, step = 1;
	if (d < 0)
		return 1;
	if ((!lw_is_none(c, n, 2) && !lw_int(c, n, 2, &st)) ||
	    (!lw_is_none(c, n, 3) && !lw_int(c, n, 3, &en)) ||
	    !lw_int(c, n, 4, &step))
		return lw_decline(c, "start, end or step not constant");
	if (step < 1 || (step > 1 && c->opset < 10))
		return lw_decline(c, "a step other than 1 needs opset 10");
	return yield_view(c, n, b_slice(c, x, st, en, d, step), out);
}

static int sym_c_select(struct lower_ctx *c, struct ir_node *n,
			struct ir_value **out)
{
	int R;
	struct ir_value *x = cplx_in(c, n, &R);
	if (!x)
		return 1;
	int64_t d = dim_arg(c, n, 1, R), i;
	if (d < 0)
		return 1;
	if (!lw_int(c, n, 2, &i))
		return lw_decline(c, "index not constant");
	if (i < 0) {
		int64_t len = fixed_dim(x, (int)d);
		if (len < 0)
			return lw_decline(c, "a negative index into a dynamic "
					  "dim");
		i += len;
	}
	struct ir_node *g = b_node(c, "Gather", 2,
				   (struct ir_value *[]){ x, b_const_i64(c, i) },
				   1);
	b_attr_i(c, g, "axis", d);
	return yield_view(c, n, b_done(c, g), out);
}

static int sym_c_unsqueeze(struct lower_ctx *c, struct ir_node *n,
			   struct ir_value **out)
{
	int R;
	struct ir_value *x = cplx_in(c, n, &R);
	if (!x)
		return 1;
	int64_t d = dim_arg(c, n, 1, R + 1);
	if (d < 0)
		return 1;
	return yield_view(c, n, b_unsqueeze(c, x, &d, 1), out);
}

static int sym_c_squeeze(struct lower_ctx *c, struct ir_node *n,
			 struct ir_value **out)
{
	int R;
	struct ir_value *x = cplx_in(c, n, &R);
	if (!x)
		return 1;
	int64_t ax[MAXD];
	int k = 0;
	if (n->ninputs > 1) {
		int64_t d = dim_arg(c, n, 1, R);
		if (d < 0)
			return 1;
		if (fixed_dim(x, (int)d) < 0)
			return lw_decline(c, "squeeze of a dynamic dim");
		if (fixed_dim(x, (int)d) == 1)
			ax[k++] = d;
	} else {
		for (int i = 0; i < R; i++) {
			if (fixed_dim(x, i) < 0)
				return lw_decline(c, "squeeze of a dynamic dim");
			if (fixed_dim(x, i) == 1)
				ax[k++] = i;
		}
	}
	struct ir_value *y = k ? b_squeeze(c, x, ax, k) : b_op1(c, "Identity", x);
	return yield_view(c, n, y, out);
}

static int sym_c_permute(struct lower_ctx *c, struct ir_node *n,
			 struct ir_value **out)
{
	int R;
	struct ir_value *x = cplx_in(c, n, &R);
	if (!x)
		return 1;
	int64_t p[MAXD + 1];
	if (lw_ints(c, n, 1, p, MAXD, 0) != R)
		return lw_decline(c, "dims not constant");
	for (int i = 0; i < R; i++) {
		if (p[i] < -R || p[i] >= R)
			return lw_decline(c, "dim out of range");
		if (p[i] < 0)
			p[i] += R;
	}
	p[R] = R;
	return yield_view(c, n, b_transpose(c, x, p, R + 1), out);
}

static int sym_c_transpose(struct lower_ctx *c, struct ir_node *n,
			   struct ir_value **out)
{
	int R;
	struct ir_value *x = cplx_in(c, n, &R);
	if (!x)
		return 1;
	int64_t a = dim_arg(c, n, 1, R), b, p[MAXD + 1];
	if (a < 0 || (b = dim_arg(c, n, 2, R)) < 0)
		return 1;
	for (int i = 0; i <= R; i++)
		p[i] = i;
	p[a] = b;
	p[b] = a;
	return yield_view(c, n, b_transpose(c, x, p, R + 1), out);
}

/* reshape / view (self, shape): the shape and the pair */
static int sym_c_reshape(struct lower_ctx *c, struct ir_node *n,
			 struct ir_value **out)
{
	int R;
	struct ir_value *x = cplx_in(c, n, &R);
	if (!x)
		return 1;
	int64_t shp[MAXD + 1];
	int k = lw_ints(c, n, 1, shp, MAXD, 0);
	if (k < 0)
		return lw_decline(c, "shape not constant");
	for (int i = 0; i < k; i++)
		if (shp[i] == 0)
			return lw_decline(c, "a 0 in the shape");
	shp[k] = 2;
	struct ir_value *y = b_op2(c, "Reshape", x,
				   b_const_i64s(c, shp, k + 1, 1));
	return yield_view(c, n, y, out);
}

static int sym_c_flatten(struct lower_ctx *c, struct ir_node *n,
			 struct ir_value **out)
{
	/* flatten(self, start_dim, end_dim): 0 copies a dim, -1 the rest */
	int R;
	struct ir_value *x = cplx_in(c, n, &R);
	if (!x)
		return 1;
	if (R == 0)
		return yield_view(c, n, b_op1(c, "Identity", x), out);
	int64_t a = dim_arg(c, n, 1, R), b, shp[MAXD + 1];
	if (a < 0 || (b = dim_arg(c, n, 2, R)) < 0)
		return 1;
	if (b < a)
		return lw_decline(c, "end_dim before start_dim");
	int k = 0;
	for (int i = 0; i < a; i++)
		shp[k++] = 0;
	shp[k++] = -1;
	for (int i = (int)b + 1; i < R; i++) {
		if (fixed_dim(x, i) < 0)
			return lw_decline(c, "a dynamic dim after end_dim");
		shp[k++] = fixed_dim(x, i);
	}
	shp[k++] = 2;
	struct ir_value *y = b_op2(c, "Reshape", x, b_const_i64s(c, shp, k, 1));
	return yield_view(c, n, y, out);
}

/* sum / mean (self, dim?, keepdim, dtype?) or (self, dtype?) */
static int reduce_c(struct lower_ctx *c, struct ir_node *n,
		    struct ir_value **out, const char *op)
{
	int R;
	struct ir_value *x = cplx_in(c, n, &R);
	if (!x)
		return 1;
	int64_t ax[MAXD], keep = 0;
	int k = R;
	if (n->ninputs >= 3) {
		if (!lw_is_none(c, n, 1)) {
			k = lw_ints(c, n, 1, ax, MAXD, 1);
			if (k < 0)
				return lw_decline(c, "dim not constant");
		}
		if (!lw_int(c, n, 2, &keep))
			return lw_decline(c, "keepdim not constant");
		if (n->ninputs > 3 && !lw_is_none(c, n, 3))
			return lw_decline(c, "a dtype for a complex reduction");
	} else if (n->ninputs == 2 && !lw_is_none(c, n, 1)) {
		return lw_decline(c, "a dtype for a complex reduction");
	}
	if (k == 0 || k == R)
		for (int i = 0; i < R; i++)
			ax[i] = i;
	if (k == 0)
		k = R;
	for (int i = 0; i < k; i++) {
		if (ax[i] < -R || ax[i] >= R)
			return lw_decline(c, "dim out of range");
		if (ax[i] < 0)
			ax[i] += R;
	}
	if (k == 0)
		return yield_cplx(c, n, b_op1(c, "Identity", x), out);
	return yield_cplx(c, n, b_reduce(c, op, x, ax, k, (int)keep), out);
}

static int sym_c_sum(struct lower_ctx *c, struct ir_node *n,
		     struct ir_value **out)
{
	return reduce_c(c, n, out, "ReduceSum");
}

static int sym_c_mean(struct lower_ctx *c, struct ir_node *n,
		      struct ir_value **out)
{
	return reduce_c(c, n, out, "ReduceMean");
}

/* --- fftshift, ifftshift, fftfreq, rfftfreq ----------------------------- */

/* fft_fftshift / fft_ifftshift (self, dim?): a roll by half of each
 * (static) dim as two slices and a Concat; real or complex */
static int shift_any(struct lower_ctx *c, struct ir_node *n,
		     struct ir_value **out, int inverse)
{
	struct ir_value *x = in_c(c, n, 0);
	if (!x || x->type->kind != IR_TYPE_TENSOR)
		return c->why ? 1 : lw_decline(c, "the input is not a tensor");
	int cplx = is_cplx(x), R = b_rank(x) - cplx;
	if (b_rank(x) < 0 || R > MAXD)
		return lw_decline(c, "input rank unknown");
	int64_t dims[MAXD];
	int k = R;
	if (!lw_is_none(c, n, 1)) {
		k = lw_ints(c, n, 1, dims, MAXD, 1);
		if (k < 0)
			return lw_decline(c, "dim not constant");
	} else {
		for (int i = 0; i < R; i++)
			dims[i] = i;
	}
	struct ir_value *y = x;
	for (int i = 0; i < k; i++) {
		int64_t d = dims[i] < 0 ? dims[i] + R : dims[i];
		int64_t len = d >= 0 && d < R ? fixed_dim(x, (int)d) : -1;
		if (d < 0 || d >= R)
			return lw_decline(c, "dim out of range");
		if (len < 0)
			return lw_decline(c, "a shift over a dynamic dim");
		/* fftshift: the last len / 2 first; ifftshift: the first
		 * len / 2 last */
		int64_t cut = inverse ? len / 2 : len - len / 2;
		if (cut == 0 || cut == len)
			continue;
		y = b_concat(c, 2, (struct ir_value *[]){
			b_slice(c, y, cut, len, d, 1),
			b_slice(c, y, 0, cut, d, 1) }, d);
	}
	if (y == x)
		y = b_op1(c, "Identity", x);
	if (!cplx) {
		out[0] = y;
		return 0;
	}
	return yield_cplx(c, n, y, out);
}

static int sym_fftshift(struct lower_ctx *c, struct ir_node *n,
			struct ir_value **out)
{
	return shift_any(c, n, out, 0);
}

static int sym_ifftshift(struct lower_ctx *c, struct ir_node *n,
			 struct ir_value **out)
{
	return shift_any(c, n, out, 1);
}

/* fft_fftfreq / fft_rfftfreq (n, d, dtype?, layout?, device?, pin?): a
 * constant */
static int freq_any(struct lower_ctx *c, struct ir_node *n,
		    struct ir_value **out, int half)
{
	int64_t len, st;
	double d = 1;
	if (!lw_int(c, n, 0, &len) || len < 1)
		return lw_decline(c, "n not a positive constant");
	if (n->ninputs > 1 && !lw_float(c, n, 1, &d))
		return lw_decline(c, "d not constant");
	enum ir_dtype dt = IR_DTYPE_FLOAT;
	if (n->ninputs > 2 && !lw_is_none(c, n, 2)) {
		if (!lw_int(c, n, 2, &st))
			return lw_decline(c, "dtype not constant");
		dt = lw_torch_dtype(st);
		if (dt != IR_DTYPE_FLOAT && dt != IR_DTYPE_DOUBLE)
			return lw_decline(c, "dtype not Float or Double");
	}
	int64_t cnt = half ? len / 2 + 1 : len;
	double *v = ir_alloc(c->g, sizeof(double) * (size_t)cnt);
	for (int64_t i = 0; i < cnt; i++) {
		int64_t k = !half && i >= (len + 1) / 2 ? i - len : i;
		v[i] = (double)k / (d * (double)len);
	}
	out[0] = b_const_reals(c, v, &cnt, 1, dt);
	return 0;
}

static int sym_fftfreq(struct lower_ctx *c, struct ir_node *n,
		       struct ir_value **out)
{
	return freq_any(c, n, out, 0);
}

static int sym_rfftfreq(struct lower_ctx *c, struct ir_node *n,
			struct ir_value **out)
{
	return freq_any(c, n, out, 1);
}

/* --- stft / istft ------------------------------------------------------ */

/* The window of n_fft samples: win (win_len samples, NULL for ones)
 * centred with zeros; NULL when it is all ones. */
static struct ir_value *stft_window(struct lower_ctx *c, struct ir_value *win,
				    int64_t nfft, int64_t winl,
				    enum ir_dtype dt)
{
	int64_t left = (nfft - winl) / 2, right = nfft - winl - left;
	if (!win) {
		if (winl == nfft)
			return NULL;
		double *v = ir_alloc(c->g, sizeof(double) * (size_t)nfft);
		for (int64_t i = left; i < left + winl; i++)
			v[i] = 1;
		return b_const_reals(c, v, &nfft, 1, dt);
	}
	win = b_cast(c, win, dt);
	if (left || right) {
		double *z = ir_alloc(c->g, sizeof(double) * (size_t)nfft);
		struct ir_value *parts[3];
		int k = 0;
		if (left)
			parts[k++] = b_const_reals(c, z, &left, 1, dt);
		parts[k++] = win;
		if (right)
			parts[k++] = b_const_reals(c, z, &right, 1, dt);
		win = b_concat(c, k, parts, 0);
	}
	return win;
}

/* The stft arguments both ops share: n_fft, hop, win_length, window (a
 * value or NULL); 0 or 1 declined. */
static int stft_args(struct lower_ctx *c, struct ir_node *n, int64_t *nfft,
		     int64_t *hop, int64_t *winl, struct ir_value **win)
{
	if (!lw_int(c, n, 1, nfft) || *nfft < 1)
		return lw_decline(c, "n_fft not a positive constant");
	*hop = *nfft / 4;
	if (!lw_is_none(c, n, 2) && !lw_int(c, n, 2, hop))
		return lw_decline(c, "hop_length not constant");
	*winl = *nfft;
	if (!lw_is_none(c, n, 3) && !lw_int(c, n, 3, winl))
		return lw_decline(c, "win_length not constant");
	if (*hop < 1 || *winl < 1 || *winl > *nfft)
		return lw_decline(c, "hop_length or win_length out of range");
	*win = NULL;
	if (!lw_is_none(c, n, 4)) {
		*win = lw_in(c, n, 4);
		if (!*win || b_rank(*win) != 1 || is_cplx(*win))
			return lw_decline(c, "window not a real 1-d tensor");
		if (fixed_dim(*win, 0) >= 0 && fixed_dim(*win, 0) != *winl)
			return lw_decline(c, "window not win_length long");
	}
	return 0;
}

/* aten::stft(self, n_fft, hop?, win_length?, window?, normalized,
 * onesided?, return_complex?) (and .center with center=False): one Conv
 * whose kernels are the windowed DFT basis, stride hop; any length. */
static int sym_stft(struct lower_ctx *c, struct ir_node *n,
		    struct ir_value **out)
{
	struct ir_value *x = lw_in(c, n, 0), *win;
	int64_t nfft, hop, winl, norm = 0, ones = 1, rc = 0;
	if (!x || x->type->kind != IR_TYPE_TENSOR || is_cplx(x))
		return lw_decline(c, "the input is not a real tensor");
	enum ir_dtype dt = comp_dtype(x);
	int r = b_rank(x);
	if (dt == IR_DTYPE_UNDEFINED || (r != 1 && r != 2))
		return lw_decline(c, "input not a 1-d or 2-d Float or Double");
	if (stft_args(c, n, &nfft, &hop, &winl, &win))
		return 1;
	int ci = 5;
	if (n->ninputs == 10) {
		int64_t center;
		if (!lw_int(c, n, 5, &center) || center)
			return lw_decline(c, "center=True (torch.stft pads "
					  "before this op)");
		ci = 7;
	}
	if (!lw_int(c, n, ci, &norm))
		return lw_decline(c, "normalized not constant");
	if (!lw_is_none(c, n, ci + 1) && !lw_int(c, n, ci + 1, &ones))
		return lw_decline(c, "onesided not constant");
	if (!lw_is_none(c, n, ci + 2) && !lw_int(c, n, ci + 2, &rc))
		return lw_decline(c, "return_complex not constant");
	int64_t f = ones ? nfft / 2 + 1 : nfft;
	if (2 * f * nfft > MAT_MAX)
		return lw_decline(c, "n_fft too large for the DFT kernels");
	double scale = norm ? 1.0 / sqrt((double)nfft) : 1;
	double *w = ir_alloc(c->g, sizeof(double) * (size_t)(2 * f * nfft));
	for (int64_t k = 0; k < f; k++)
		for (int64_t t = 0; t < nfft; t++) {
			double cs, sn;
			unit_root((k * t) % nfft, nfft, &cs, &sn);
			w[(2 * k) * nfft + t] = cs * scale;
			w[(2 * k + 1) * nfft + t] = -sn * scale;
		}
	int64_t wd[3] = { 2 * f, 1, nfft };
	struct ir_value *kern = b_const_reals(c, w, wd, 3, dt);
	struct ir_value *wv = stft_window(c, win, nfft, winl, dt);
	if (wv) {
		int64_t s3[3] = { 1, 1, nfft };
		kern = b_op2(c, "Mul", kern, b_op2(c, "Reshape", wv,
					b_const_i64s(c, s3, 3, 1)));
	}
	int64_t ax[2] = { 0, 1 };
	x = b_unsqueeze(c, b_cast(c, x, dt), r == 1 ? ax : ax + 1,
			r == 1 ? 2 : 1);
	struct ir_node *cv = b_node(c, "Conv", 2,
				    (struct ir_value *[]){ x, kern }, 1);
	b_attr_ints(c, cv, "kernel_shape", &nfft, 1);
	b_attr_ints(c, cv, "strides", &hop, 1);
	struct ir_value *y = b_done(c, cv);
	int64_t s4[4] = { 0, f, 2, -1 }, perm[4] = { 0, 1, 3, 2 };
	y = b_transpose(c, b_op2(c, "Reshape", y, b_const_i64s(c, s4, 4, 1)),
		      perm, 4);
	if (r == 1)
		y = b_squeeze(c, y, ax, 1);
	if (!rc) {
		out[0] = y;
		return 0;
	}
	return yield_cplx(c, n, y, out);
}

/* aten::istft(self, n_fft, hop?, win_length?, window?, center,
 * normalized, onesided?, length?, return_complex): each frame's inverse
 * DFT times the window, overlap-added by one ConvTranspose (stride hop),
 * divided by the overlap-added squared window, trimmed as torch does. */
static int sym_istft(struct lower_ctx *c, struct ir_node *n,
		     struct ir_value **out)
{
	struct ir_value *x = lw_in(c, n, 0), *win;
	int64_t nfft, hop, winl, center, norm, ones = 1, rc = 0, length = -1;
	/* complex (its (re, im) pairs), or torch 1.13's deprecated real
	 * form: the pairs themselves, a last dim of 2 */
	if (!is_cplx(x) && !(x && (b_dtype(x) == IR_DTYPE_FLOAT ||
				   b_dtype(x) == IR_DTYPE_DOUBLE) &&
			     b_rank(x) > 0 && fixed_dim(x, b_rank(x) - 1) == 2))
		return lw_decline(c, "the input is not complex nor real (re, im) "
				     "pairs in a last dim of 2");
	enum ir_dtype dt = b_dtype(x);
	int r = b_rank(x) - 1;
	if (r != 2 && r != 3)
		return lw_decline(c, "input not [freq, frames] or [batch, "
				  "freq, frames]");
	if (stft_args(c, n, &nfft, &hop, &winl, &win))
		return 1;
	if (!lw_int(c, n, 5, &center) || !lw_int(c, n, 6, &norm))
		return lw_decline(c, "center or normalized not constant");
	if (!lw_is_none(c, n, 7) && !lw_int(c, n, 7, &ones))
		return lw_decline(c, "onesided not constant");
	struct ir_value *lenv = NULL;
	if (!lw_is_none(c, n, 8) && !lw_int(c, n, 8, &length)) {
		lenv = lw_tensor(c, n, 8);
		if (!lenv || c->opset < 10)
			return lw_decline(c, "a dynamic length needs opset 10");
	}
	if (!lw_is_none(c, n, 9) && !lw_int(c, n, 9, &rc))
		return lw_decline(c, "return_complex not constant");
	if (rc)
		return lw_decline(c, "return_complex=True");
	int64_t fin = fixed_dim(x, r - 2);
	/* onesided None: torch's n_freq != n_fft */
	if (lw_is_none(c, n, 7) && fin >= 0)
		ones = fin != nfft;
	int64_t f = ones ? nfft / 2 + 1 : nfft;
	if (fin >= 0 && fin != f)
		return lw_decline(c, "the input's frequency count is not "
				  "n_fft's");
	/* a real output is the complex-to-real inverse of the first n_fft
	 * / 2 + 1 bins (SpectralOps.cpp's _fft_c2r), also of a two-sided
	 * spectrum */
	if (!ones) {
		f = nfft / 2 + 1;
		x = b_slice(c, x, 0, f, r - 2, 1);
		ones = 1;
	}
	if (2 * f * nfft > MAT_MAX)
		return lw_decline(c, "n_fft too large for the DFT kernels");
	double scale = (norm ? sqrt((double)nfft) : 1) / (double)nfft;
	double *w = ir_alloc(c->g, sizeof(double) * (size_t)(2 * f * nfft));
	for (int64_t k = 0; k < f; k++) {
		double wk = !ones || k == 0 || (nfft % 2 == 0 && k == nfft / 2)
			? 1 : 2;
		for (int64_t t = 0; t < nfft; t++) {
			double cs, sn;
			unit_root((k * t) % nfft, nfft, &cs, &sn);
			w[(2 * k) * nfft + t] = wk * cs * scale;
			w[(2 * k + 1) * nfft + t] = -wk * sn * scale;
		}
	}
	int64_t wd[3] = { 2 * f, 1, nfft }, s3[3] = { 1, 1, nfft };
	struct ir_value *kern = b_const_reals(c, w, wd, 3, dt);
	struct ir_value *wv = stft_window(c, win, nfft, winl, dt), *wr = NULL;
	if (wv) {
		wr = b_op2(c, "Reshape", wv, b_const_i64s(c, s3, 3, 1));
		kern = b_op2(c, "Mul", kern, wr);
	}
	/* [B, F, T, 2] -> [B, F, 2, T] -> [B, 2F, T] */
	if (r == 2) {
		int64_t z = 0;
		x = b_unsqueeze(c, x, &z, 1);
	}
	int64_t perm[4] = { 0, 1, 3, 2 }, s3b[3] = { 0, 2 * f, -1 };
	x = b_op2(c, "Reshape", b_transpose(c, x, perm, 4),
		  b_const_i64s(c, s3b, 3, 1));
	struct ir_node *ct = b_node(c, "ConvTranspose", 2,
				    (struct ir_value *[]){ x, kern }, 1);
	b_attr_ints(c, ct, "kernel_shape", &nfft, 1);
	b_attr_ints(c, ct, "strides", &hop, 1);
	struct ir_value *y = b_done(c, ct);
	/* the envelope: ones over the frames, overlap-added squared window */
	struct ir_value *frames = b_slice(c, b_slice(c, x, 0, 1, 1, 1),
					  0, 1, 0, 1);
	struct ir_value *ones_t = b_op2(c, "Expand",
					b_const_scalar(c, 1, dt, 0),
					b_op1(c, "Shape", frames));
	struct ir_value *w2;
	if (wr) {
		w2 = b_op2(c, "Mul", wr, wr);
	} else {
		double *v = ir_alloc(c->g, sizeof(double) * (size_t)nfft);
		for (int64_t i = 0; i < nfft; i++)
			v[i] = 1;
		w2 = b_const_reals(c, v, s3, 3, dt);
	}
	struct ir_node *ce = b_node(c, "ConvTranspose", 2,
				    (struct ir_value *[]){ ones_t, w2 }, 1);
	b_attr_ints(c, ce, "kernel_shape", &nfft, 1);
	b_attr_ints(c, ce, "strides", &hop, 1);
	struct ir_value *env = b_done(c, ce);
	/* trim: [start, start + length) or, without a length, to the end
	 * less n_fft / 2 when centred */
	int64_t start = center ? nfft / 2 : 0;
	int64_t sq = 1;
	y = b_squeeze(c, y, &sq, 1);
	env = b_squeeze(c, env, &sq, 1);
	if (lenv) {
		struct ir_value *st = b_const_i64s(c, &start, 1, 1);
		int64_t one1 = 1, axis = 1;
		struct ir_value *en = b_op2(c, "Add", st,
			b_op2(c, "Reshape", b_cast(c, lenv, IR_DTYPE_INT64),
			      b_const_i64s(c, &one1, 1, 1)));
		struct ir_value *axv = b_const_i64s(c, &axis, 1, 1);
		y = b_done(c, b_node(c, "Slice", 4,
				(struct ir_value *[]){ y, st, en, axv }, 1));
		env = b_done(c, b_node(c, "Slice", 4,
				(struct ir_value *[]){ env, st, en, axv }, 1));
	} else {
		int64_t end = length >= 0 ? start + length
					  : center ? -(nfft / 2) : INT64_MAX;
		if (length >= 0 && fixed_dim(y, 1) >= 0 &&
		    end > fixed_dim(y, 1))
			return lw_decline(c, "length longer than the signal");
		if (end == 0)
			return lw_decline(c, "an empty signal");
		y = b_slice(c, y, start, end, 1, 1);
		env = b_slice(c, env, start, end, 1, 1);
	}
	y = b_op2(c, "Div", y, env);
	if (r == 2) {
		int64_t z = 0;
		y = b_squeeze(c, y, &z, 1);
	}
	out[0] = y;
	return 0;
}

static const struct symbolic entries[] = {
	{ OP_aten__fft_r2c, 0, 0, SYM_PRIO_BASE, sym__fft_r2c },
	{ OP_aten__fft_c2r, 0, 0, SYM_PRIO_BASE, sym__fft_c2r },
	{ OP_aten_fft_fft, 0, 0, SYM_PRIO_BASE, sym_fft_fft },
	{ OP_aten_fft_ifft, 0, 0, SYM_PRIO_BASE, sym_fft_ifft },
	{ OP_aten_fft_rfft, 0, 0, SYM_PRIO_BASE, sym_fft_rfft },
	{ OP_aten_fft_irfft, 0, 0, SYM_PRIO_BASE, sym_fft_irfft },
	{ OP_aten_fft_hfft, 0, 0, SYM_PRIO_BASE, sym_fft_hfft },
	{ OP_aten_fft_ihfft, 0, 0, SYM_PRIO_BASE, sym_fft_ihfft },
	{ OP_aten_fft_fft2, 0, 0, SYM_PRIO_BASE, sym_fft_fft2 },
	{ OP_aten_fft_ifft2, 0, 0, SYM_PRIO_BASE, sym_fft_ifft2 },
	{ OP_aten_fft_rfft2, 0, 0, SYM_PRIO_BASE, sym_fft_rfft2 },
	{ OP_aten_fft_irfft2, 0, 0, SYM_PRIO_BASE, sym_fft_irfft2 },
	{ OP_aten_fft_hfft2, 0, 0, SYM_PRIO_BASE, sym_fft_hfft2 },
	{ OP_aten_fft_ihfft2, 0, 0, SYM_PRIO_BASE, sym_fft_ihfft2 },
	{ OP_aten_fft_fftn, 0, 0, SYM_PRIO_BASE, sym_fft_fftn },
	{ OP_aten_fft_ifftn, 0, 0, SYM_PRIO_BASE, sym_fft_ifftn },
	{ OP_aten_fft_rfftn, 0, 0, SYM_PRIO_BASE, sym_fft_rfftn },
	{ OP_aten_fft_irfftn, 0, 0, SYM_PRIO_BASE, sym_fft_irfftn },
	{ OP_aten_fft_hfftn, 0, 0, SYM_PRIO_BASE, sym_fft_hfftn },
	{ OP_aten_fft_ihfftn, 0, 0, SYM_PRIO_BASE, sym_fft_ihfftn },
	{ OP_aten_fft_fftshift, 0, 0, SYM_PRIO_BASE, sym_fftshift },
	{ OP_aten_fft_ifftshift, 0, 0, SYM_PRIO_BASE, sym_ifftshift },
	{ OP_aten_fft_fftfreq, 0, 0, SYM_PRIO_BASE, sym_fftfreq },
	{ OP_aten_fft_rfftfreq, 0, 0, SYM_PRIO_BASE, sym_rfftfreq },
	{ OP_aten_view_as_real, 0, 0, SYM_PRIO_BASE, sym_view_as_real },
	{ OP_aten_view_as_complex, 0, 0, SYM_PRIO_BASE, sym_view_as_complex },
	{ OP_aten_real, 0, 0, SYM_PRIO_BASE, sym_real },
	{ OP_aten_imag, 0, 0, SYM_PRIO_BASE, sym_imag },
	{ OP_aten_angle, 0, 0, SYM_PRIO_BASE, sym_angle },
	{ OP_aten_conj, 0, 0, SYM_PRIO_BASE, sym_conj },
	{ OP_aten__conj, 0, 0, SYM_PRIO_BASE, sym_conj },
	{ OP_aten_conj_physical, 0, 0, SYM_PRIO_BASE, sym_conj },
	{ OP_aten_complex, 0, 0, SYM_PRIO_BASE, sym_complex },
	{ OP_aten_polar, 0, 0, SYM_PRIO_BASE, sym_polar },
	{ OP_aten_stft, 0, 0, SYM_PRIO_BASE, sym_stft },
	{ OP_aten_istft, 0, 0, SYM_PRIO_BASE, sym_istft },
};

const struct symbolic_table symbolic_fft_table = {
	entries, sizeof(entries) / sizeof(entries[0]),
};

/* The internal kinds complex::OP, by name: a small table of this file's
 * own (they are no operators of the registry). */
static const struct {
	const char *name;
	symbolic_fn fn;
} complex_ops[] = {
	{ "complex::abs", sym_c_abs },
	{ "complex::neg", sym_c_neg },
	{ "complex::mul", sym_c_mul },
	{ "complex::add", sym_c_add },
	{ "complex::sub", sym_c_sub },
	{ "complex::div", sym_c_div },
	{ "complex::clone", sym_c_same },
	{ "complex::contiguous", sym_c_same },
	{ "complex::detach", sym_c_same },
	{ "complex::resolve_conj", sym_c_same },
	{ "complex::resolve_neg", sym_c_same },
	{ "complex::slice", sym_c_slice },
	{ "complex::select", sym_c_select },
	{ "complex::unsqueeze", sym_c_unsqueeze },
	{ "complex::squeeze", sym_c_squeeze },
	{ "complex::permute", sym_c_permute },
	{ "complex::transpose", sym_c_transpose },
	{ "complex::reshape", sym_c_reshape },
	{ "complex::view", sym_c_reshape },
	{ "complex::flatten", sym_c_flatten },
	{ "complex::sum", sym_c_sum },
	{ "complex::mean", sym_c_mean },
};

symbolic_fn symbolic_fft_complex(const char *kind)
{
	for (size_t i = 0; i < sizeof(complex_ops) / sizeof(complex_ops[0]); i++)
		if (!strcmp(complex_ops[i].name, kind))
			return complex_ops[i].fn;
	return NULL;
}

/*
 * shapes.c - dtype and shape propagation for the aten ops common in CNNs
 * and transformers (convolution, linear/addmm/matmul, elementwise with
 * broadcasting, pooling, flatten/view/reshape with constant shapes, cat,
 * normalisation, unary ops, softmax, embedding, transpose/permute,
 * unsqueeze/squeeze/select/unflatten on a constant dim,
 * scaled_dot_product_attention).
 *
 * Never guesses: a dim is fixed or a symbol only when it follows from the
 * inputs' types and constant arguments; symbols are carried through (a
 * `batch` dim stays `batch`); anything else stays unknown.
 */
#include <stdio.h>
#include <string.h>

#include "compile.h"

#define MAXR 64

static const struct ir_type *tin(const struct ir_node *n, uint32_t i)
{
	if (i >= n->ninputs || !n->inputs[i] ||
	    n->inputs[i]->type->kind != IR_TYPE_TENSOR)
		return NULL;
	return n->inputs[i]->type;
}

static int cint(const struct ir_node *n, uint32_t i, int64_t *v)
{
	return i < n->ninputs && n->inputs[i] &&
	       script_const_int(n->inputs[i], v);
}

/* The constant ints of a prim::ListConstruct; returns the count or -1. */
static int cints(const struct ir_node *n, uint32_t i, int64_t *out, int max)
{
	const struct ir_node *p;
	uint32_t k;

	if (i >= n->ninputs || !n->inputs[i] || !n->inputs[i]->producer)
		return -1;
	p = n->inputs[i]->producer;
	if (p->op != OP_prim_ListConstruct || (int)p->ninputs > max ||
	    script_list_mutated(n->inputs[i]))
		return -1;
	for (k = 0; k < p->ninputs; k++)
		if (!p->inputs[k] || !script_const_int(p->inputs[k], &out[k]))
			return -1;
	return (int)p->ninputs;
}

static struct ir_dim fixed(int64_t v)
{
	struct ir_dim d = { IR_DIM_FIXED, v, NULL };
	return d;
}

static struct ir_dim unknown(void)
{
	struct ir_dim d = { IR_DIM_UNKNOWN, 0, NULL };
	return d;
}

static void set_out(struct ir_graph *g, struct ir_node *n, uint32_t o,
		    enum ir_dtype dt, int rank, const struct ir_dim *dims)
{
	struct ir_type *t;
	int i;

	if (o >= n->noutputs)
		return;
	if (n->outputs[o]->type->kind != IR_TYPE_TENSOR &&
	    n->outputs[o]->type->kind != IR_TYPE_UNKNOWN)
		return;
	t = ir_type_tensor(g, dt, rank, NULL);
	for (i = 0; i < rank && dims; i++)
		t->dims[i] = dims[i];
	n->outputs[o]->type = t;
}

static void same_as(struct ir_graph *g, struct ir_node *n,
		    const struct ir_type *a)
{
	if (a)
		set_out(g, n, 0, a->dtype, a->rank, a->rank > 0 ? a->dims : NULL);
}

static int norm_dim(int64_t d, int rank)
{
	if (d < 0)
		d += rank;
	return d >= 0 && d < rank ? (int)d : -1;
}

/* (in + 2p - d(k-1) - 1) / s + 1 */
static struct ir_dim pool_dim(struct ir_dim in, int64_t k, int64_t s,
			      int64_t p, int64_t d, int ceil_mode)
{
	int64_t num;

	if (in.kind != IR_DIM_FIXED || s <= 0)
		return unknown();
	num = in.value + 2 * p - d * (k - 1) - 1;
	if (num < 0)
		return unknown();
	if (ceil_mode) {
		int64_t o = (num + s - 1) / s + 1;
		if ((o - 1) * s >= in.value + p)
			o--;
		return fixed(o);
	}
	return fixed(num / s + 1);
}

static enum ir_dtype promote(enum ir_dtype a, enum ir_dtype b)
{
	if (a == b)
		return a;
	if (!a || !b)
		return IR_DTYPE_UNDEFINED;
	if (a == IR_DTYPE_DOUBLE || b == IR_DTYPE_DOUBLE)
		return IR_DTYPE_DOUBLE;
	if (a == IR_DTYPE_FLOAT || b == IR_DTYPE_FLOAT)
		return IR_DTYPE_FLOAT;
	return IR_DTYPE_UNDEFINED;
}

static void broadcast(struct ir_graph *g, struct ir_node *n, int cmp)
{
	const struct ir_type *a = tin(n, 0), *b = tin(n, 1);
	struct ir_dim dims[MAXR];
	enum ir_dtype dt;
	int r, i;

	if (!a)
		return;
	if (!b) {
		/* tensor op scalar: the tensor's shape; the dtype stays unless
		 * a float scalar meets an integer tensor */
		const struct ir_value *s = n->ninputs > 1 ? n->inputs[1] : NULL;
		dt = a->dtype;
		if (s && s->type->kind == IR_TYPE_FLOAT &&
		    dt != IR_DTYPE_FLOAT && dt != IR_DTYPE_DOUBLE &&
		    dt != IR_DTYPE_FLOAT16 && dt != IR_DTYPE_BFLOAT16)
			dt = IR_DTYPE_UNDEFINED;
		/* true division of an integer tensor: the default float */
		if (n->op == OP_aten_div && n->ninputs == 2 &&
		    dt != IR_DTYPE_UNDEFINED && dt != IR_DTYPE_FLOAT &&
		    dt != IR_DTYPE_DOUBLE && dt != IR_DTYPE_FLOAT16 &&
		    dt != IR_DTYPE_BFLOAT16)
			dt = IR_DTYPE_FLOAT;
		if (!s || (s->type->kind != IR_TYPE_INT &&
			   s->type->kind != IR_TYPE_FLOAT &&
			   s->type->kind != IR_TYPE_BOOL))
			return;
		set_out(g, n, 0, cmp ? IR_DTYPE_BOOL : dt, a->rank,
			a->rank > 0 ? a->dims : NULL);
		return;
	}
	dt = cmp ? IR_DTYPE_BOOL : promote(a->dtype, b->dtype);
	if (n->op == OP_aten_div && dt != IR_DTYPE_FLOAT &&
	    dt != IR_DTYPE_DOUBLE)
		dt = IR_DTYPE_UNDEFINED;
	if (a->rank < 0 || b->rank < 0) {
		set_out(g, n, 0, dt, -1, NULL);
		return;
	}
	r = a->rank > b->rank ? a->rank : b->rank;
	for (i = 0; i < r; i++) {
		int ia = i - (r - a->rank), ib = i - (r - b->rank);
		struct ir_dim da = ia >= 0 ? a->dims[ia] : fixed(1);
		struct ir_dim db = ib >= 0 ? b->dims[ib] : fixed(1);
		if (da.kind == IR_DIM_FIXED && da.value == 1)
			dims[i] = db;
		else if (db.kind == IR_DIM_FIXED && db.value == 1)
			dims[i] = da;
		else if (ir_dim_same(da, db))
			dims[i] = da;
		else if (da.kind == IR_DIM_FIXED && db.kind != IR_DIM_FIXED)
			dims[i] = da.value == 1 ? db : da;
		else if (db.kind == IR_DIM_FIXED && da.kind != IR_DIM_FIXED)
			dims[i] = db;
		else
			dims[i] = unknown();
	}
	set_out(g, n, 0, dt, r, dims);
}

/* 1 when input i is a constant string equal to s (conv's padding). */
static int cstr_is(const struct ir_node *n, uint32_t i, const char *s)
{
	const struct ir_value *v = i < n->ninputs ? n->inputs[i] : NULL;
	const struct ir_attr *a;

	if (!v || !v->producer || v->producer->op != OP_prim_Constant)
		return 0;
	a = ir_node_find_attr(v->producer, "value");
	return a && a->kind == IR_ATTR_STRING && a->u.s.len == strlen(s) &&
	       !memcmp(a->u.s.data, s, a->u.s.len);
}

static void conv(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_type *x = tin(n, 0), *w = tin(n, 1);
	int64_t st[8], pd[8], dl[8];
	struct ir_dim dims[MAXR];
	int sp, i, ns, np, nd, transposed = 0, lead = 0;
	int64_t v;

	/* conv1d/2d/3d also take an unbatched input (one dim less) */
	if (x && w && w->rank >= 3 && x->rank == w->rank - 1 &&
	    n->op != OP_aten__convolution && n->op != OP_aten_convolution)
		lead = 1;
	if (!x || !w || x->rank + lead < 3 || w->rank != x->rank + lead)
		return;
	sp = w->rank - 2;
	ns = cints(n, 3, st, 8);
	np = cints(n, 4, pd, 8);
	nd = cints(n, 5, dl, 8);
	if (cstr_is(n, 4, "valid")) {
		np = 1;
		pd[0] = 0;
	}
	if (n->op == OP_aten__convolution ||
	    n->op == OP_aten_convolution) {
		if (!cint(n, 6, &v))
			return;
		transposed = (int)v;
	}
	if (transposed) {
		set_out(g, n, 0, x->dtype, x->rank, NULL);
		return;
	}
	dims[0] = x->dims[0];
	dims[1 - lead] = w->dims[0];
	for (i = 0; i < sp; i++) {
		struct ir_dim k = w->dims[2 + i];
		int j = 2 + i - lead;
		if (cstr_is(n, 4, "same")) {
			/* torch: 'same' keeps the size (stride 1) */
			dims[j] = x->dims[j];
			continue;
		}
		if (ns < 1 || np < 1 || nd < 1 || k.kind != IR_DIM_FIXED) {
			dims[j] = unknown();
			continue;
		}
		dims[j] = pool_dim(x->dims[j], k.value,
				   st[ns == 1 ? 0 : i < ns ? i : 0],
				   pd[np == 1 ? 0 : i < np ? i : 0],
				   dl[nd == 1 ? 0 : i < nd ? i : 0], 0);
	}
	set_out(g, n, 0, x->dtype, x->rank, dims);
}

static void pool(struct ir_graph *g, struct ir_node *n, int sp)
{
	const struct ir_type *x = tin(n, 0);
	int64_t k[8], st[8], pd[8], dl[8] = { 1, 1, 1 }, cm = 0;
	struct ir_dim dims[MAXR];
	int nk, ns, np, nd = 1, i, avg = strstr(n->kind, "avg") != NULL;

	if (!x || x->rank < sp + 1)
		return;
	nk = cints(n, 1, k, 8);
	ns = cints(n, 2, st, 8);
	np = cints(n, 3, pd, 8);
	if (!avg) {
		nd = cints(n, 4, dl, 8);
		if (!cint(n, 5, &cm))
			nk = -1;
	} else if (!cint(n, 4, &cm))
		nk = -1;
	if (ns == 0) {
		memcpy(st, k, sizeof(st));
		ns = nk;
	}
	for (i = 0; i < x->rank; i++)
		dims[i] = x->dims[i];
	for (i = 0; i < sp; i++) {
		int d = x->rank - sp + i;
		if (nk < 1 || ns < 1 || np < 1 || nd < 1) {
			dims[d] = unknown();
			continue;
		}
		dims[d] = pool_dim(x->dims[d], k[nk == 1 ? 0 : i],
				   st[ns == 1 ? 0 : i], pd[np == 1 ? 0 : i],
				   dl[nd == 1 ? 0 : i], (int)cm);
	}
	set_out(g, n, 0, x->dtype, x->rank, dims);
}

static void adaptive(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_type *x = tin(n, 0);
	int64_t os[8];
	struct ir_dim dims[MAXR];
	int no = cints(n, 1, os, 8), i;

	if (!x || no < 1 || x->rank < no)
		return;
	for (i = 0; i < x->rank; i++)
		dims[i] = x->dims[i];
	for (i = 0; i < no; i++)
		dims[x->rank - no + i] = fixed(os[i]);
	set_out(g, n, 0, x->dtype, x->rank, dims);
}

static void flatten(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_type *x = tin(n, 0);
	int64_t s, e, prod = 1;
	struct ir_dim dims[MAXR];
	int a, b, i, r = 0, known = 1;

	if (!x || x->rank < 0 || !cint(n, 1, &s) || !cint(n, 2, &e))
		return;
	if (x->rank == 0) {
		struct ir_dim one = fixed(1);
		set_out(g, n, 0, x->dtype, 1, &one);
		return;
	}
	a = norm_dim(s, x->rank);
	b = norm_dim(e, x->rank);
	if (a < 0 || b < 0 || a > b)
		return;
	for (i = 0; i < a; i++)
		dims[r++] = x->dims[i];
	for (i = a; i <= b; i++) {
		if (x->dims[i].kind != IR_DIM_FIXED)
			known = 0;
		else
			prod *= x->dims[i].value;
	}
	dims[r++] = a == b ? x->dims[a] : known ? fixed(prod) : unknown();
	for (i = b + 1; i < x->rank; i++)
		dims[r++] = x->dims[i];
	set_out(g, n, 0, x->dtype, r, dims);
}

/* The dim an int value stands for: a constant >= 0, or a dim of a tensor
 * read with aten::size(t, i), aten::size(t)[i] or its prim::ListUnpack. */
static struct ir_dim size_dim(const struct ir_value *v)
{
	const struct ir_node *p = v ? v->producer : NULL;
	const struct ir_type *t = NULL;
	int64_t k = -1;
	uint32_t j;

	if (v && script_const_int(v, &k))
		return k >= 0 ? fixed(k) : unknown();
	if (!p)
		return unknown();
	if (p->op == OP_aten_size && p->ninputs == 2 &&
	    cint(p, 1, &k))
		t = tin(p, 0);
	else if ((p->op == OP_aten___getitem__ && p->ninputs == 2 &&
		  cint(p, 1, &k)) || p->op == OP_prim_ListUnpack) {
		const struct ir_node *q = p->inputs[0] ? p->inputs[0]->producer
						       : NULL;
		if (p->op == OP_prim_ListUnpack)
			for (j = 0; j < p->noutputs; j++)
				if (p->outputs[j] == v)
					k = j;
		if (q && q->op == OP_aten_size && q->ninputs == 1)
			t = tin(q, 0);
	}
	if (!t || t->rank < 0)
		return unknown();
	if (k < 0)
		k += t->rank;
	if (k < 0 || k >= t->rank)
		return unknown();
	return t->dims[k];
}

static void reshape(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_type *x = tin(n, 0);
	int64_t sh[MAXR], total = 1, known = 1;
	struct ir_dim dims[MAXR];
	int ns = cints(n, 1, sh, MAXR), i, neg = -1;

	if (!x)
		return;
	if (n->op == OP_aten_view && n->ninputs == 2 &&
	    n->inputs[1] && n->inputs[1]->type->kind == IR_TYPE_INT) {
		/* view.dtype: a bare ScalarType, the same shape when the
		 * element sizes agree */
		static const enum ir_dtype st[] = {
			IR_DTYPE_UINT8, IR_DTYPE_INT8, IR_DTYPE_INT16,
			IR_DTYPE_INT32, IR_DTYPE_INT64, IR_DTYPE_FLOAT16,
			IR_DTYPE_FLOAT, IR_DTYPE_DOUBLE,
		};
		int64_t k;
		enum ir_dtype dt = IR_DTYPE_UNDEFINED;
		if (cint(n, 1, &k) && k >= 0 &&
		    k < (int64_t)(sizeof(st) / sizeof(st[0])))
			dt = st[k];
		else if (cint(n, 1, &k) && k == 11)
			dt = IR_DTYPE_BOOL;
		else if (cint(n, 1, &k) && k == 15)
			dt = IR_DTYPE_BFLOAT16;
		if (dt != IR_DTYPE_UNDEFINED && x->dtype != IR_DTYPE_UNDEFINED &&
		    ir_dtype_size(dt) == ir_dtype_size(x->dtype))
			set_out(g, n, 0, dt, x->rank, x->dims);
		else
			set_out(g, n, 0, dt, -1, NULL);
		return;
	}
	if (ns < 0) {
		/* a list of sizes not all constant: its length is the rank,
		 * sizes read off aten::size the dims they came from */
		const struct ir_node *p = n->inputs[1] ? n->inputs[1]->producer
						       : NULL;
		int r = -1;
		if (p && p->op == OP_prim_ListConstruct &&
		    p->ninputs <= MAXR && !script_list_mutated(n->inputs[1])) {
			r = (int)p->ninputs;
			for (i = 0; i < r; i++)
				dims[i] = size_dim(p->inputs[i]);
		}
		set_out(g, n, 0, x->dtype, r, dims);
		return;
	}
	if (x->rank >= 0)
		for (i = 0; i < x->rank; i++) {
			if (x->dims[i].kind != IR_DIM_FIXED)
				known = 0;
			else
				total *= x->dims[i].value;
		}
	else
		known = 0;
	for (i = 0; i < ns; i++) {
		if (sh[i] == -1 && neg < 0) {
			neg = i;
			dims[i] = unknown();
		} else if (sh[i] >= 0)
			dims[i] = fixed(sh[i]);
		else
			return;
	}
	if (neg >= 0 && known) {
		int64_t rest = 1;
		for (i = 0; i < ns; i++)
			if (i != neg)
				rest *= sh[i];
		if (rest > 0 && total % rest == 0)
			dims[neg] = fixed(total / rest);
	}
	set_out(g, n, 0, x->dtype, ns, dims);
}

static void matmul(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_type *a = tin(n, 0), *b = tin(n, 1);
	struct ir_dim dims[MAXR];
	int r, i;

	if (!a || !b)
		return;
	if (a->rank < 1 || b->rank < 1) {
		set_out(g, n, 0, promote(a->dtype, b->dtype), -1, NULL);
		return;
	}
	if (b->rank == 1) {
		for (i = 0; i < a->rank - 1; i++)
			dims[i] = a->dims[i];
		set_out(g, n, 0, promote(a->dtype, b->dtype), a->rank - 1,
			dims);
		return;
	}
	if (a->rank == 1) {
		for (i = 0; i < b->rank - 2; i++)
			dims[i] = b->dims[i];
		dims[i] = b->dims[b->rank - 1];
		set_out(g, n, 0, promote(a->dtype, b->dtype), b->rank - 1,
			dims);
		return;
	}
	r = a->rank > b->rank ? a->rank : b->rank;
	for (i = 0; i < r - 2; i++) {
		int ia = i - (r - a->rank), ib = i - (r - b->rank);
		struct ir_dim da = ia >= 0 ? a->dims[ia] : fixed(1);
		struct ir_dim db = ib >= 0 ? b->dims[ib] : fixed(1);
		dims[i] = da.kind == IR_DIM_FIXED && da.value == 1 ? db :
			db.kind == IR_DIM_FIXED && db.value == 1 ? da :
			ir_dim_same(da, db) ? da : unknown();
	}
	dims[r - 2] = a->dims[a->rank - 2];
	dims[r - 1] = b->dims[b->rank - 1];
	set_out(g, n, 0, promote(a->dtype, b->dtype), r, dims);
}

static void linear(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_type *x = tin(n, 0), *w = tin(n, 1);
	struct ir_dim dims[MAXR];
	int i;

	if (!x || !w || x->rank < 1 || w->rank != 2)
		return;
	for (i = 0; i < x->rank - 1; i++)
		dims[i] = x->dims[i];
	dims[x->rank - 1] = w->dims[0];
	set_out(g, n, 0, x->dtype, x->rank, dims);
}

static void cat(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_node *l;
	const struct ir_type *t0;
	struct ir_dim dims[MAXR];
	int64_t d, sum = 0;
	int ax, i, known = 1;
	uint32_t k;

	if (!n->inputs[0] || !n->inputs[0]->producer ||
	    n->inputs[0]->producer->op != OP_prim_ListConstruct ||
	    script_list_mutated(n->inputs[0]) || !cint(n, 1, &d))
		return;
	l = n->inputs[0]->producer;
	if (!l->ninputs || l->inputs[0]->type->kind != IR_TYPE_TENSOR)
		return;
	t0 = l->inputs[0]->type;
	if (t0->rank < 1 || (ax = norm_dim(d, t0->rank)) < 0)
		return;
	for (i = 0; i < t0->rank; i++)
		dims[i] = t0->dims[i];
	for (k = 0; k < l->ninputs; k++) {
		const struct ir_type *t = l->inputs[k]->type;
		if (t->kind != IR_TYPE_TENSOR || t->rank != t0->rank ||
		    t->dtype != t0->dtype)
			return;
		if (t->dims[ax].kind != IR_DIM_FIXED)
			known = 0;
		else
			sum += t->dims[ax].value;
		for (i = 0; i < t0->rank; i++)
			if (i != ax && !ir_dim_same(dims[i], t->dims[i]))
				dims[i] = unknown();
	}
	dims[ax] = known ? fixed(sum) : unknown();
	set_out(g, n, 0, t0->dtype, t0->rank, dims);
}

static void transpose(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_type *x = tin(n, 0);
	struct ir_dim dims[MAXR], t;
	int64_t a, b;
	int i, ia, ib;

	if (!x || x->rank < 0 || !cint(n, 1, &a) || !cint(n, 2, &b))
		return;
	if (x->rank == 0) {
		same_as(g, n, x);
		return;
	}
	ia = norm_dim(a, x->rank);
	ib = norm_dim(b, x->rank);
	if (ia < 0 || ib < 0)
		return;
	for (i = 0; i < x->rank; i++)
		dims[i] = x->dims[i];
	t = dims[ia];
	dims[ia] = dims[ib];
	dims[ib] = t;
	set_out(g, n, 0, x->dtype, x->rank, dims);
}

static void permute(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_type *x = tin(n, 0);
	int64_t p[MAXR];
	struct ir_dim dims[MAXR];
	int np = cints(n, 1, p, MAXR), i;

	if (!x || x->rank < 0 || np != x->rank)
		return;
	for (i = 0; i < np; i++) {
		int d = norm_dim(p[i], x->rank);
		if (d < 0)
			return;
		dims[i] = x->dims[d];
	}
	set_out(g, n, 0, x->dtype, x->rank, dims);
}

static void embedding(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_type *w = tin(n, 0), *ix = tin(n, 1);
	struct ir_dim dims[MAXR];
	int i;

	if (!w || !ix || w->rank != 2 || ix->rank < 0 || ix->rank >= MAXR)
		return;
	for (i = 0; i < ix->rank; i++)
		dims[i] = ix->dims[i];
	dims[ix->rank] = w->dims[1];
	set_out(g, n, 0, w->dtype, ix->rank + 1, dims);
}

/* unsqueeze(x, d), squeeze(x, d), select(x, d, i), unflatten(x, d, sizes):
 * ops that insert, drop or split one dim of x, with d constant. */
static void one_dim(struct ir_graph *g, struct ir_node *n)
{
	enum aten_op k = n->op;
	const struct ir_type *x = tin(n, 0);
	struct ir_dim dims[MAXR];
	int64_t d;
	int r, at, j, o = 0;

	if (n->ninputs != 2u + (k == OP_aten_unflatten || k == OP_aten_select))
		return;
	if (!x || x->rank < 0 || x->rank >= MAXR - 8 || !cint(n, 1, &d))
		return;
	r = x->rank;
	at = norm_dim(d, k == OP_aten_unsqueeze ? r + 1 : r);
	if (at < 0)
		return;
	if (k == OP_aten_unsqueeze) {
		for (j = 0; j < r + 1; j++)
			dims[j] = j < at ? x->dims[j]
					 : j == at ? fixed(1) : x->dims[j - 1];
		set_out(g, n, 0, x->dtype, r + 1, dims);
		return;
	}
	if (k == OP_aten_squeeze && (x->dims[at].kind != IR_DIM_FIXED ||
				      x->dims[at].value != 1)) {
		if (x->dims[at].kind == IR_DIM_FIXED) /* not 1: unchanged */
			same_as(g, n, x);
		return;
	}
	for (j = 0; j < at; j++)
		dims[o++] = x->dims[j];
	if (k == OP_aten_unflatten) {
		const struct ir_node *p = n->ninputs > 2 && n->inputs[2]
					  ? n->inputs[2]->producer : NULL;
		int64_t prod = 1, v;
		int minus = -1;
		if (!p || p->op != OP_prim_ListConstruct ||
		    p->ninputs > 8 || script_list_mutated(n->inputs[2]))
			return;
		for (j = 0; j < (int)p->ninputs; j++) {
			if (cint(p, (uint32_t)j, &v) && v == -1) {
				minus = o;
				dims[o++] = unknown();
				continue;
			}
			dims[o] = size_dim(p->inputs[j]);
			if (dims[o].kind == IR_DIM_FIXED)
				prod *= dims[o].value;
			else
				prod = -1;
			o++;
		}
		if (minus >= 0 && prod > 0 && x->dims[at].kind == IR_DIM_FIXED)
			dims[minus] = fixed(x->dims[at].value / prod);
	}
	for (j = at + 1; j < r; j++)
		dims[o++] = x->dims[j];
	set_out(g, n, 0, x->dtype, o, dims);
}

static void addmm(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_type *a = tin(n, 1), *b = tin(n, 2);
	struct ir_dim dims[2];

	if (a && b && a->rank == 2 && b->rank == 2) {
		dims[0] = a->dims[0];
		dims[1] = b->dims[1];
		set_out(g, n, 0, a->dtype, 2, dims);
	}
}

static void arith(struct ir_graph *g, struct ir_node *n)
{
	broadcast(g, n, 0);
}

/* a float function of two broadcast operands (xlog1py, the special_
 * polynomials) and of one (float_unary): integers and bools promote to
 * the default Float */
static void float_out(struct ir_node *n)
{
	struct ir_type *t = n->noutputs ? n->outputs[0]->type : NULL;

	if (t && t->kind == IR_TYPE_TENSOR && t->dtype != IR_DTYPE_UNDEFINED &&
	    t->dtype != IR_DTYPE_FLOAT && t->dtype != IR_DTYPE_DOUBLE &&
	    t->dtype != IR_DTYPE_FLOAT16 && t->dtype != IR_DTYPE_BFLOAT16)
		t->dtype = IR_DTYPE_FLOAT;
}

static void float_binary(struct ir_graph *g, struct ir_node *n)
{
	broadcast(g, n, 0);
	float_out(n);
}

/* a float function of one tensor (lgamma, i0, mvlgamma...): shaped as
 * it; polygamma(n, self) as self */
static void float_unary(struct ir_graph *g, struct ir_node *n)
{
	same_as(g, n, tin(n, n->op == OP_aten_polygamma ||
			     n->op == OP_aten_special_polygamma));
	float_out(n);
}

/* frexp(self): the mantissa as self, the exponent int32 of its shape */
static void frexp_rule(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_type *a = tin(n, 0);

	if (!a)
		return;
	same_as(g, n, a);
	set_out(g, n, 1, IR_DTYPE_INT32, a->rank, a->rank > 0 ? a->dims : NULL);
}

/* linalg_eig(self [..., n, n]): complex eigenvalues [..., n] and
 * eigenvectors [..., n, n] (no ONNX meaning: lower refuses it; the
 * shapes type what an aten fallback exports); view_as_real(complex
 * [...]): its real dtype [..., 2] */
static void complex_views(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_type *a = tin(n, 0);
	struct ir_dim dims[MAXR];
	enum ir_dtype dt;

	if (!a || a->rank < 0 || a->rank >= MAXR)
		return;
	for (int i = 0; i < a->rank; i++)
		dims[i] = a->dims[i];
	if (n->op == OP_aten_view_as_real) {
		dt = a->dtype == IR_DTYPE_COMPLEX64 ? IR_DTYPE_FLOAT :
		     a->dtype == IR_DTYPE_COMPLEX128 ? IR_DTYPE_DOUBLE : IR_DTYPE_UNDEFINED;
		if (dt == IR_DTYPE_UNDEFINED)
			return;
		dims[a->rank] = (struct ir_dim){ IR_DIM_FIXED, 2, NULL };
		set_out(g, n, 0, dt, a->rank + 1, dims);
		return;
	}
	dt = a->dtype == IR_DTYPE_FLOAT ? IR_DTYPE_COMPLEX64 :
	     a->dtype == IR_DTYPE_DOUBLE ? IR_DTYPE_COMPLEX128 : IR_DTYPE_UNDEFINED;
	if (dt == IR_DTYPE_UNDEFINED || a->rank < 2)
		return;
	set_out(g, n, 0, dt, a->rank - 1, dims);
	set_out(g, n, 1, dt, a->rank, dims);
}

static void compare(struct ir_graph *g, struct ir_node *n)
{
	broadcast(g, n, 1);
}

static void pool1d(struct ir_graph *g, struct ir_node *n)
{
	pool(g, n, 1);
}

static void pool2d(struct ir_graph *g, struct ir_node *n)
{
	pool(g, n, 2);
}

static void pool3d(struct ir_graph *g, struct ir_node *n)
{
	pool(g, n, 3);
}

/* N, C kept; the spatial dims from output_size when it is a list read off
 * sizes, else unknown: the rank is known. */
static void upsample(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_type *x = tin(n, 0);
	const struct ir_node *p = n->ninputs > 1 && n->inputs[1]
				  ? n->inputs[1]->producer : NULL;
	struct ir_dim dims[MAXR];
	int j;

	if (!x || x->rank < 3 || x->rank > MAXR)
		return;
	for (j = 0; j < x->rank; j++)
		dims[j] = j < 2 ? x->dims[j] : unknown();
	if (p && p->op == OP_prim_ListConstruct &&
	    (int)p->ninputs == x->rank - 2 &&
	    !script_list_mutated(n->inputs[1]))
		for (j = 2; j < x->rank; j++)
			dims[j] = size_dim(p->inputs[j - 2]);
	set_out(g, n, 0, x->dtype, x->rank, dims);
}

/* sizes from a list: -1 keeps the input's dim */
static void expand(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_type *x = tin(n, 0);
	const struct ir_node *p = n->ninputs >= 2 && n->inputs[1]
				  ? n->inputs[1]->producer : NULL;
	struct ir_dim dims[MAXR];
	int r, j, off;

	if (!x || x->rank < 0 || !p || p->op != OP_prim_ListConstruct ||
	    p->ninputs > MAXR || (int)p->ninputs < x->rank ||
	    script_list_mutated(n->inputs[1]))
		return;
	r = (int)p->ninputs;
	off = r - x->rank;
	for (j = 0; j < r; j++) {
		int64_t v;
		if (cint(p, (uint32_t)j, &v) && v == -1)
			dims[j] = j >= off ? x->dims[j - off] : unknown();
		else
			dims[j] = size_dim(p->inputs[j]);
	}
	set_out(g, n, 0, x->dtype, r, dims);
}

static void transpose2d(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_type *x = tin(n, 0);
	struct ir_dim dims[2];

	if (x && x->rank == 2) {
		dims[0] = x->dims[1];
		dims[1] = x->dims[0];
		set_out(g, n, 0, x->dtype, 2, dims);
	} else if (x && x->rank >= 0 && x->rank < 2)
		same_as(g, n, x);
}

static void size_list(struct ir_graph *g, struct ir_node *n)
{
	struct ir_type *t;

	if (n->ninputs != 1)
		return;
	t = ir_type_new(g, IR_TYPE_LIST);
	t->nelems = 1;
	t->elems = ir_alloc(g, sizeof(*t->elems));
	t->elems[0] = ir_type_new(g, IR_TYPE_INT);
	n->outputs[0]->type = t;
}

/* shaped as the first input: elementwise ops, normalisations, and the
 * fused transformer layers (the output is shaped as the query) */
static void unary(struct ir_graph *g, struct ir_node *n)
{
	same_as(g, n, tin(n, 0));
}

/* (..., L, E) query, (..., S, Ev) value -> (..., L, Ev) */
static void sdpa(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_type *q = tin(n, 0), *v = tin(n, 2);
	struct ir_dim dims[MAXR];

	if (!q || !v || q->rank < 2 || q->rank > MAXR || v->rank < 1)
		return;
	memcpy(dims, q->dims, sizeof(dims[0]) * (size_t)q->rank);
	dims[q->rank - 1] = v->dims[v->rank - 1];
	set_out(g, n, 0, q->dtype, q->rank, dims);
}

/* _pack_padded_sequence(input (T, B, *) or (B, T, *), lengths, ...) ->
 * (data (sum of lengths, *), batch_sizes (T) Long), kept to a 3-d input */
static void pack_padded(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_type *x = tin(n, 0);
	struct ir_dim dims[2] = { unknown(), unknown() };

	if (!x || x->rank != 3 || n->noutputs != 2)
		return;
	dims[1] = x->dims[2];
	set_out(g, n, 0, x->dtype, 2, dims);
	set_out(g, n, 1, IR_DTYPE_INT64, 1, dims);
}

/* one broadcast dim of x and y: a fixed 1 gives way, equal ones stay */
static struct ir_dim bdim(struct ir_dim x, struct ir_dim y)
{
	if (x.kind == IR_DIM_FIXED && x.value == 1)
		return y;
	if (y.kind == IR_DIM_FIXED && y.value == 1)
		return x;
	if (x.kind == y.kind && x.kind == IR_DIM_FIXED && x.value == y.value)
		return x;
	if (x.kind == y.kind && x.kind == IR_DIM_SYMBOL &&
	    !strcmp(x.symbol, y.symbol))
		return x;
	return unknown();
}

/* the broadcast batch of a (less its last ta dims) and b (less tb; b
 * NULL: a's alone) into dims; its rank, -1 when unknown */
static int batch_dims(const struct ir_type *a, int ta,
		      const struct ir_type *b, int tb, struct ir_dim *dims)
{
	int ra = a->rank - ta, rb = b ? b->rank - tb : 0;
	int r = ra > rb ? ra : rb;
	if (ra < 0 || rb < 0 || r > MAXR - 3)
		return -1;
	for (int i = 0; i < r; i++) {
		struct ir_dim x = i - (r - ra) >= 0 ? a->dims[i - (r - ra)] : fixed(1);
		struct ir_dim y = b && i - (r - rb) >= 0 ? b->dims[i - (r - rb)]
							  : fixed(1);
		dims[i] = bdim(x, y);
	}
	return r;
}

/* the min of two dims, where both are fixed */
static struct ir_dim min_dim(struct ir_dim x, struct ir_dim y)
{
	if (x.kind == IR_DIM_FIXED && y.kind == IR_DIM_FIXED)
		return fixed(x.value < y.value ? x.value : y.value);
	if (x.kind == y.kind && x.kind == IR_DIM_SYMBOL &&
	    !strcmp(x.symbol, y.symbol))
		return x;
	return unknown();
}

/* The direct factorizations (lib/lower/symbolic_linalg.c): their outputs
 * from A [..., m, n] and B, with torch's batch broadcast; an int32 info
 * of the batch where the op returns one */
static void linalg(struct ir_graph *g, struct ir_node *n)
{
	struct ir_dim d[MAXR];
	const struct ir_type *a, *b = NULL;
	int r, ia = 0, ib = -1, info = -1;

	switch (n->op) {
	case OP_aten_triangular_solve: case OP_aten_cholesky_solve:
	case OP_aten_lu_solve:
		ib = 0, ia = 1;
		break;
	case OP_aten_linalg_solve_triangular: case OP_aten_linalg_solve:
	case OP_aten_linalg_solve_ex:
		ib = 1;
		break;
	case OP_aten_linalg_lu_solve:
		ib = 2;
		break;
	default:
		break;
	}
	a = tin(n, (uint32_t)ia);
	if (ib >= 0)
		b = tin(n, (uint32_t)ib);
	if (!a || a->rank < 2 || (ib >= 0 && (!b || b->rank < 1)))
		return;
	struct ir_dim rows = a->dims[a->rank - 2], cols = a->dims[a->rank - 1];
	switch (n->op) {
	case OP_aten_linalg_lu_factor: case OP_aten_linalg_lu_factor_ex:
	case OP_aten__lu_with_info:
		same_as(g, n, a);
		r = batch_dims(a, 2, NULL, 0, d);
		d[r] = min_dim(rows, cols);
		set_out(g, n, 1, IR_DTYPE_INT32, r + 1, d);
		info = 2;
		break;
	case OP_aten_linalg_lu: case OP_aten_lu_unpack:
		r = batch_dims(a, 2, NULL, 0, d);
		d[r] = rows, d[r + 1] = rows;
		set_out(g, n, 0, a->dtype, r + 2, d);
		d[r + 1] = min_dim(rows, cols);
		set_out(g, n, 1, a->dtype, r + 2, d);
		d[r] = d[r + 1], d[r + 1] = cols;
		set_out(g, n, 2, a->dtype, r + 2, d);
		return;
	case OP_aten_triangular_solve: case OP_aten_cholesky_solve:
	case OP_aten_lu_solve: case OP_aten_linalg_solve_triangular:
	case OP_aten_linalg_lu_solve:
		if (b->rank < 2)
			return;
		r = batch_dims(a, 2, b, 2, d);
		d[r] = b->dims[b->rank - 2], d[r + 1] = b->dims[b->rank - 1];
		set_out(g, n, 0, b->dtype, r + 2, d);
		if (n->op == OP_aten_triangular_solve)
			set_out(g, n, 1, a->dtype, a->rank, a->dims);
		return;
	case OP_aten_linalg_solve: case OP_aten_linalg_solve_ex: {
		/* torch's vector B: 1-d, or A's shape less its last dim */
		int vec = b->rank == 1;
		if (b->rank == a->rank - 1) {
			vec = 1;
			for (int i = 0; i < b->rank; i++) {
				if (a->dims[i].kind != IR_DIM_FIXED ||
				    b->dims[i].kind != IR_DIM_FIXED)
					return;
				vec &= a->dims[i].value == b->dims[i].value;
			}
		}
		if (!vec && b->rank < 2)
			return;
		r = batch_dims(a, 2, b, vec ? 1 : 2, d);
		d[r] = b->dims[b->rank - (vec ? 1 : 2)];
		if (!vec)
			d[r + 1] = b->dims[b->rank - 1];
		set_out(g, n, 0, b->dtype, r + (vec ? 1 : 2), d);
		r = batch_dims(a, 2, b, vec ? 1 : 2, d);
		set_out(g, n, 1, IR_DTYPE_INT32, r, d);
		return;
	}
	default: /* cholesky, linalg_cholesky(_ex), cholesky_inverse, inv */
		same_as(g, n, a);
		info = 1;
		break;
	}
	if (info >= 0) {
		r = batch_dims(a, 2, NULL, 0, d);
		set_out(g, n, (uint32_t)info, IR_DTYPE_INT32, r, d);
	}
}

/* isin: Bool, shaped as its elements (0-d for a number) */
static void isin_rule(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_type *a = tin(n, 0);
	if (a)
		set_out(g, n, 0, IR_DTYPE_BOOL, a->rank, a->rank > 0 ? a->dims : NULL);
	else if (n->ninputs > 0 && n->inputs[0]->type->kind != IR_TYPE_TENSOR &&
		 n->inputs[0]->type->kind != IR_TYPE_UNKNOWN)
		set_out(g, n, 0, IR_DTYPE_BOOL, 0, NULL);
}

/* ctc_loss: log_probs' dtype; [N] for reduction none (0-d unbatched),
 * else 0-d */
static void ctc_rule(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_type *lp = tin(n, 0);
	int64_t red = 1;
	if (!lp || (lp->rank != 2 && lp->rank != 3) || (n->ninputs > 5 && !cint(n, 5, &red)))
		return;
	if (red == 0 && lp->rank == 3)
		set_out(g, n, 0, lp->dtype, 1, &lp->dims[1]);
	else
		set_out(g, n, 0, lp->dtype, 0, NULL);
}

typedef void shape_rule(struct ir_graph *g, struct ir_node *n);

/* The script stage's column of the operator registry: each operator's shape
 * rule, by id.  An operator with none keeps unknown output types. */
static shape_rule *const shape_rules[OP_COUNT] = {
	[OP_aten_conv1d] = conv,
	[OP_aten_conv2d] = conv,
	[OP_aten_conv3d] = conv,
	[OP_aten__convolution] = conv,
	[OP_aten_convolution] = conv,
	[OP_aten__convolution_mode] = conv,
	[OP_aten_linear] = linear,
	[OP_aten_matmul] = matmul,
	[OP_aten_cholesky] = linalg,
	[OP_aten_linalg_cholesky] = linalg,
	[OP_aten_linalg_cholesky_ex] = linalg,
	[OP_aten_cholesky_inverse] = linalg,
	[OP_aten_cholesky_solve] = linalg,
	[OP_aten_triangular_solve] = linalg,
	[OP_aten_linalg_solve_triangular] = linalg,
	[OP_aten_linalg_lu_factor] = linalg,
	[OP_aten_linalg_lu_factor_ex] = linalg,
	[OP_aten__lu_with_info] = linalg,
	[OP_aten_linalg_lu] = linalg,
	[OP_aten_lu_unpack] = linalg,
	[OP_aten_lu_solve] = linalg,
	[OP_aten_linalg_lu_solve] = linalg,
	[OP_aten_linalg_solve] = linalg,
	[OP_aten_linalg_solve_ex] = linalg,
	[OP_aten_linalg_inv] = linalg,
	[OP_aten_linalg_matrix_exp] = unary,
	[OP_aten_matrix_exp] = unary,
	[OP_aten_isin] = isin_rule,
	[OP_aten_ctc_loss] = ctc_rule,
	[OP_aten_linalg_inv_ex] = linalg,
	[OP_aten_inverse] = linalg,
	[OP_aten_mm] = matmul,
	[OP_aten_bmm] = matmul,
	[OP_aten_addmm] = addmm,
	[OP_aten_add] = arith,
	[OP_aten_special_digamma] = float_unary,
	[OP_aten_special_psi] = float_unary,
	[OP_aten_special_gammaln] = float_unary,
	[OP_aten_mvlgamma] = float_unary,
	[OP_aten_special_multigammaln] = float_unary,
	[OP_aten_special_i0] = float_unary,
	[OP_aten_special_i0e] = float_unary,
	[OP_aten_special_i1] = float_unary,
	[OP_aten_special_i1e] = float_unary,
	[OP_aten_special_modified_bessel_i0] = float_unary,
	[OP_aten_special_modified_bessel_i1] = float_unary,
	[OP_aten_special_spherical_bessel_j0] = float_unary,
	[OP_aten_special_ndtri] = float_unary,
	[OP_aten_special_airy_ai] = float_unary,
	[OP_aten_special_erfcx] = float_unary,
	[OP_aten_special_log_ndtr] = float_unary,
	[OP_aten_special_erfinv] = float_unary,
	[OP_aten_special_bessel_j0] = float_unary,
	[OP_aten_special_bessel_j1] = float_unary,
	[OP_aten_special_bessel_y0] = float_unary,
	[OP_aten_special_bessel_y1] = float_unary,
	[OP_aten_special_modified_bessel_k0] = float_unary,
	[OP_aten_special_modified_bessel_k1] = float_unary,
	[OP_aten_special_scaled_modified_bessel_k0] = float_unary,
	[OP_aten_special_scaled_modified_bessel_k1] = float_unary,
	[OP_aten_polygamma] = float_unary,
	[OP_aten_special_polygamma] = float_unary,
	[OP_aten_igamma] = float_binary,
	[OP_aten_igammac] = float_binary,
	[OP_aten_special_gammainc] = float_binary,
	[OP_aten_special_gammaincc] = float_binary,
	[OP_aten_special_chebyshev_polynomial_t] = float_binary,
	[OP_aten_special_chebyshev_polynomial_u] = float_binary,
	[OP_aten_special_chebyshev_polynomial_v] = float_binary,
	[OP_aten_special_chebyshev_polynomial_w] = float_binary,
	[OP_aten_special_shifted_chebyshev_polynomial_t] = float_binary,
	[OP_aten_special_shifted_chebyshev_polynomial_u] = float_binary,
	[OP_aten_special_shifted_chebyshev_polynomial_v] = float_binary,
	[OP_aten_special_shifted_chebyshev_polynomial_w] = float_binary,
	[OP_aten_special_hermite_polynomial_h] = float_binary,
	[OP_aten_special_hermite_polynomial_he] = float_binary,
	[OP_aten_special_laguerre_polynomial_l] = float_binary,
	[OP_aten_special_legendre_polynomial_p] = float_binary,
	[OP_aten_special_xlog1py] = float_binary,
	[OP_aten_special_zeta] = float_binary,
	[OP_aten_nextafter] = float_binary,
	[OP_aten_frexp] = frexp_rule,
	[OP_aten_linalg_eig] = complex_views,
	[OP_aten_view_as_real] = complex_views,
	[OP_aten_sub] = arith,
	[OP_aten_mul] = arith,
	[OP_aten_div] = arith,
	[OP_aten_maximum] = arith,
	[OP_aten_minimum] = arith,
	[OP_aten_heaviside] = arith,
	[OP_aten_gcd] = arith,
	[OP_aten_lcm] = arith,
	[OP_aten_eq] = compare,
	[OP_aten_isclose] = compare,
	[OP_aten_ne] = compare,
	[OP_aten_lt] = compare,
	[OP_aten_le] = compare,
	[OP_aten_gt] = compare,
	[OP_aten_ge] = compare,
	[OP_aten_max_pool1d] = pool1d,
	[OP_aten_avg_pool1d] = pool1d,
	[OP_aten_max_pool2d] = pool2d,
	[OP_aten_avg_pool2d] = pool2d,
	[OP_aten_max_pool3d] = pool3d,
	[OP_aten_avg_pool3d] = pool3d,
	[OP_aten_adaptive_avg_pool1d] = adaptive,
	[OP_aten_adaptive_avg_pool2d] = adaptive,
	[OP_aten_adaptive_avg_pool3d] = adaptive,
	[OP_aten_adaptive_max_pool1d] = adaptive,
	[OP_aten_adaptive_max_pool2d] = adaptive,
	[OP_aten_adaptive_max_pool3d] = adaptive,
	[OP_aten_flatten] = flatten,
	[OP_aten_view] = reshape,
	[OP_aten_reshape] = reshape,
	[OP_aten_cat] = cat,
	[OP_aten_upsample_nearest1d] = upsample,
	[OP_aten_upsample_nearest2d] = upsample,
	[OP_aten_upsample_nearest3d] = upsample,
	[OP_aten_upsample_linear1d] = upsample,
	[OP_aten_upsample_bilinear2d] = upsample,
	[OP_aten_upsample_bicubic2d] = upsample,
	[OP_aten_upsample_trilinear3d] = upsample,
	[OP_aten__upsample_bilinear2d_aa] = upsample,
	[OP_aten_expand] = expand,
	[OP_aten_transpose] = transpose,
	[OP_aten_t] = transpose2d,
	[OP_aten_permute] = permute,
	[OP_aten_embedding] = embedding,
	[OP_aten_size] = size_list,
	[OP_aten__transformer_encoder_layer_fwd] = unary,
	[OP_aten__native_multi_head_attention] = unary,
	[OP_aten_unsqueeze] = one_dim,
	[OP_aten_squeeze] = one_dim,
	[OP_aten_unflatten] = one_dim,
	[OP_aten_select] = one_dim,
	[OP_aten_scaled_dot_product_attention] = sdpa,
	[OP_aten_relu] = unary,
	[OP_aten_positive] = unary,
	[OP_aten_relu_] = unary,
	[OP_aten_sigmoid] = unary,
	[OP_aten_tanh] = unary,
	[OP_aten_gelu] = unary,
	[OP_aten_neg] = unary,
	[OP_aten_exp] = unary,
	[OP_aten_log] = unary,
	[OP_aten_sqrt] = unary,
	[OP_aten_rsqrt] = unary,
	[OP_aten_abs] = unary,
	[OP_aten_dropout] = unary,
	[OP_aten_contiguous] = unary,
	[OP_aten_clone] = unary,
	[OP_aten_hardtanh] = unary,
	[OP_aten_leaky_relu] = unary,
	[OP_aten_silu] = unary,
	[OP_aten_hardswish] = unary,
	[OP_aten_hardsigmoid] = unary,
	[OP_aten_batch_norm] = unary,
	[OP_aten_layer_norm] = unary,
	[OP_aten_softmax] = unary,
	[OP_aten_log_softmax] = unary,
	[OP_aten_relu6] = unary,
	[OP_aten_elu] = unary,
	[OP_aten_sin] = unary,
	[OP_aten_cos] = unary,
	[OP_aten_erf] = unary,
	[OP_aten_reciprocal] = unary,
	[OP_aten_detach] = unary,
	[OP_aten_group_norm] = unary,
	[OP_aten_instance_norm] = unary,
	[OP_aten_feature_dropout] = unary,
	[OP_aten_alpha_dropout] = unary,
	[OP_aten_mish] = unary,
	[OP_aten_softplus] = unary,
	[OP_aten_selu] = unary,
	[OP_aten_celu] = unary,
	[OP_aten_prelu] = unary,
	[OP_aten_floor] = unary,
	[OP_aten_ceil] = unary,
	[OP_aten_round] = unary,
	[OP_aten_sign] = unary,
	[OP_aten_clamp] = unary,
	[OP_aten_clamp_min] = unary,
	[OP_aten_clamp_max] = unary,
	[OP_aten_square] = unary,
	/* elementwise, same shape and dtype, that ONNX has no op for (an
	 * export with operator_export_type onnx_aten_fallback makes ATen
	 * nodes of them, whose outputs then have types) */
	[OP_aten_frac] = unary,
	[OP_aten_trunc] = unary,
	[OP_aten_digamma] = float_unary,
	[OP_aten_lgamma] = float_unary,
	[OP_aten_erfinv] = float_unary,
	[OP_aten_i0] = float_unary,
	[OP_aten_sinc] = unary,
	[OP_aten_deg2rad] = unary,
	[OP_aten_rad2deg] = unary,
	[OP_aten_logit] = unary,
	[OP_aten_special_entr] = unary,
	[OP_aten_logcumsumexp] = unary,
	[OP_aten_rms_norm] = unary,
	[OP_aten__pack_padded_sequence] = pack_padded,
};

void script_infer_node(struct ir_graph *g, struct ir_node *n)
{
	shape_rule *rule;

	if ((int)n->op <= 0 || n->op >= OP_COUNT || !n->noutputs)
		return;
	rule = shape_rules[n->op];
	if (rule)
		rule(g, n);
}

void script_list_ops(FILE *fp)
{
	int op;

	/* ids are in the order of their sorted names */
	for (op = 1; op < OP_COUNT; op++)
		if (shape_rules[op])
			fprintf(fp, "%s: shape\n",
				aten_op_name((enum aten_op)op));
}

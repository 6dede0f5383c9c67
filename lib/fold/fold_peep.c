/*
 * fold_peep.c - fold's peephole pass (fold_peep.h), after constant
 * folding, in one walk over every block in order:
 *   - a node that does nothing becomes an Identity: Cast to its own dtype,
 *     Expand or Reshape to the shape it has, Slice over everything,
 *     Transpose with the identity perm, Concat of one input, x + 0, x - 0,
 *     x * 1, x / 1 (a one-element constant that broadcasts into x, same
 *     dtype: torch's peephole drops aten::add(x, 0) and friends the same
 *     way);
 *   - an Identity goes: its uses read its input, or, when its output is
 *     returned by its block, the node that makes its input (same block,
 *     no other use) makes the output directly;
 *   - Slice of Slice with constant parameters over other axes becomes one
 *     Slice (torch's flip, max_pool's indices), and a Slice's steps input
 *     of ones is dropped (as torch writes it); Expand of Expand with
 *     constant shapes one Expand;
 *   - Resize's unused roi (and empty scales beside sizes) left out from
 *     opset 13, as torch writes it;
 *   - NegativeLogLikelihoodLoss of LogSoftmax over axis 1 becomes
 *     SoftmaxCrossEntropyLoss (opset 12 and later; torch's
 *     fuseLogSoftmaxNllLoss);
 *   - an RMSNorm written out (x * Reciprocal(Sqrt(ReduceMean(x^2) + eps))
 *     [* weight]) becomes RMSNormalization (opset 23 and later);
 *   - common subexpressions: a node equal to an earlier one of its block
 *     (kind, inputs, attributes; Constant nodes by value) is dropped for
 *     it, as torch's CSE pass; random ops and nodes with subgraphs never.
 * Values whose name is returned by some block are never replaced (an
 * output keeps its name).  Replacements are recorded in value->aux and
 * applied to the inputs of each node as the walk reaches it (uses come
 * after definitions), keeping value->uses right.
 */
#include "fold_peep.h"

#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "fold.h"

#define MAXK 64

/* --- a set of pointers (returned values) -------------------------------- */

struct pset {
	const void **slot;
	size_t cap, n;
};

static size_t phash(const void *p, size_t cap)
{
	uint64_t h = (uint64_t)(uintptr_t)p * 0x9e3779b97f4a7c15ull;
	return (size_t)(h >> 17) & (cap - 1);
}

static void pset_add(struct pset *s, const void *p)
{
	if (2 * (s->n + 1) > s->cap) {
		struct pset t = { NULL, s->cap ? s->cap * 2 : 64, 0 };
		t.slot = xcalloc(t.cap, sizeof(*t.slot));
		for (size_t i = 0; i < s->cap; i++)
			if (s->slot[i])
				pset_add(&t, s->slot[i]);
		free(s->slot);
		*s = t;
	}
	size_t i = phash(p, s->cap);
	while (s->slot[i]) {
		if (s->slot[i] == p)
			return;
		i = (i + 1) & (s->cap - 1);
	}
	s->slot[i] = p;
	s->n++;
}

static int pset_has(const struct pset *s, const void *p)
{
	if (!s->cap)
		return 0;
	for (size_t i = phash(p, s->cap); s->slot[i]; i = (i + 1) & (s->cap - 1))
		if (s->slot[i] == p)
			return 1;
	return 0;
}

/* --- context ------------------------------------------------------------ */

struct peep {
	struct ir_graph *g;
	int64_t opset;
	struct pset rets; /* values some block returns */
	struct fold_peep_stats *st;
};

typedef void (*blk_fn)(struct peep *p, struct ir_block *b);

static void each_block(struct peep *p, struct ir_node *n, blk_fn fn)
{
	for (uint32_t i = 0; i < n->nblocks; i++)
		fn(p, n->blocks[i]);
	for (uint32_t i = 0; i < n->nattrs; i++) {
		struct ir_attr *a = &n->attrs[i];
		if (a->kind == IR_ATTR_GRAPH)
			fn(p, a->u.g);
		else if (a->kind == IR_ATTR_GRAPHS)
			for (uint32_t j = 0; j < a->count; j++)
				fn(p, a->u.graphs[j]);
	}
}

static int has_sub(const struct ir_node *n)
{
	if (n->nblocks)
		return 1;
	for (uint32_t i = 0; i < n->nattrs; i++)
		if (n->attrs[i].kind == IR_ATTR_GRAPH ||
		    n->attrs[i].kind == IR_ATTR_GRAPHS)
			return 1;
	return 0;
}

static void mark_rets(struct peep *p, struct ir_block *b)
{
	for (uint32_t i = 0; i < b->nreturns; i++)
		pset_add(&p->rets, b->returns[i]);
	for (struct ir_node *n = b->first; n; n = n->next)
		each_block(p, n, mark_rets);
}

static int returned(const struct peep *p, const struct ir_value *v)
{
	return pset_has(&p->rets, v);
}

/* the value v now stands for (replacements chased) */
static struct ir_value *chase(struct ir_value *v)
{
	while (v && v->aux)
		v = v->aux;
	return v;
}

static void set_input(struct ir_node *n, uint32_t i, struct ir_value *v)
{
	if (n->inputs[i] && n->inputs[i]->uses)
		n->inputs[i]->uses--;
	n->inputs[i] = v;
	if (v)
		v->uses++;
}

/* Uses of `from` (not returned anywhere) read `to` from now on: its uses
 * count as to's already (the inputs are rewritten as the walk reaches
 * them, with no change to the counts). */
static void replace(struct ir_value *from, struct ir_value *to)
{
	from->aux = to;
	to->uses += from->uses;
	from->uses = 0;
}

static void reread(struct ir_node *n)
{
	for (uint32_t i = 0; i < n->ninputs; i++)
		n->inputs[i] = chase(n->inputs[i]);
}

static void drop_node(struct ir_node *n)
{
	for (uint32_t i = 0; i < n->ninputs; i++)
		if (n->inputs[i] && n->inputs[i]->uses)
			n->inputs[i]->uses--;
	ir_node_unlink(n);
}

/* --- constants ---------------------------------------------------------- */

static const struct ir_tensor *cst(struct peep *p, const struct ir_value *v)
{
	const struct ir_tensor *t = NULL;
	if (!v)
		return NULL;
	if (v->weight)
		t = v->weight->tensor;
	else if (v->producer && !strcmp(v->producer->kind, "onnx::Constant"))
		t = fold_constant_value(p->g, v->producer);
	if (!t || t->data_kind != IR_DATA_INLINE || !ir_dtype_size(t->dtype) ||
	    t->bytes.len != ir_tensor_numel(t) * ir_dtype_size(t->dtype))
		return NULL;
	return t;
}

/* A constant Long/Int tensor of at most MAXK elements into v; the count,
 * or -1. */
static int cst_ints(struct peep *p, const struct ir_value *x, int64_t *v)
{
	const struct ir_tensor *t = cst(p, x);
	if (!t || t->rank > 1 || (t->dtype != IR_DTYPE_INT64 &&
				  t->dtype != IR_DTYPE_INT32))
		return -1;
	uint64_t k = ir_tensor_numel(t);
	if (k > MAXK)
		return -1;
	for (uint64_t i = 0; i < k; i++)
		v[i] = fold_get_i(t, i);
	return (int)k;
}

static int attr_ints(const struct ir_node *n, const char *name, int64_t *v)
{
	const struct ir_attr *a = ir_node_find_attr(n, name);
	if (!a || a->kind != IR_ATTR_INTS || a->count > MAXK)
		return -1;
	memcpy(v, a->u.ints, sizeof(*v) * a->count);
	return (int)a->count;
}

static int64_t attr_int(const struct ir_node *n, const char *name, int64_t d)
{
	const struct ir_attr *a = ir_node_find_attr(n, name);
	return a && a->kind == IR_ATTR_INT ? a->u.i : d;
}

static const struct ir_type *tensor_type(const struct ir_value *v)
{
	return v && v->type->kind == IR_TYPE_TENSOR ? v->type : NULL;
}

static int rank_of(const struct ir_value *v)
{
	const struct ir_type *t = tensor_type(v);
	return t ? t->rank : -1;
}

static enum ir_dtype dtype_of(const struct ir_value *v)
{
	const struct ir_type *t = tensor_type(v);
	return t ? t->dtype : IR_DTYPE_UNDEFINED;
}

/* dim i of v when fixed, else -1 */
static int64_t fixed_dim(const struct ir_value *v, int i)
{
	const struct ir_type *t = tensor_type(v);
	if (!t || i < 0 || i >= t->rank || t->dims[i].kind != IR_DIM_FIXED)
		return -1;
	return t->dims[i].value;
}

/* A new onnx::Constant holding t, before pos. */
static struct ir_value *new_const(struct peep *p, struct ir_node *pos,
				  struct ir_tensor *t)
{
	struct ir_node *cn = ir_node_new(p->g, NULL, "onnx::Constant", 0, 1);
	ir_node_add_attr(p->g, cn, "value", IR_ATTR_TENSOR)->u.t = t;
	struct ir_value *o = ir_value_new(p->g, NULL, ir_tensor_type(p->g, t));
	ir_node_set_output(cn, 0, o);
	cn->scope = pos->scope;
	ir_block_insert_before(pos, cn);
	return o;
}

/* A new onnx::Constant holding the 1-d Long vector v[0..k), before pos. */
static struct ir_value *new_ints(struct peep *p, struct ir_node *pos,
				 const int64_t *v, int k)
{
	int64_t d = k;
	struct ir_tensor *t = fold_tensor_alloc(p->g, IR_DTYPE_INT64, 1, &d, 0);
	for (int i = 0; i < k; i++)
		fold_set_i(t, (uint64_t)i, v[i]);
	return new_const(p, pos, t);
}

/* --- no-op nodes --------------------------------------------------------- */

/* 1 when the constant one-element c, broadcast against x, leaves x's shape
 * and dtype as they are and its value is `unit`. */
static int unit_operand(struct peep *p, struct ir_value *x,
			struct ir_value *cv, struct ir_value *out, double unit)
{
	const struct ir_tensor *c = cst(p, cv);
	enum ir_dtype dt = dtype_of(x);
	if (!c || ir_tensor_numel(c) != 1 || dt == IR_DTYPE_UNDEFINED ||
	    c->dtype != dt || dtype_of(out) != dt)
		return 0;
	if (c->rank > 0 && (rank_of(x) < c->rank))
		return 0;
	if (fold_dtype_is_float(dt))
		return fold_get_f(c, 0) == unit;
	return fold_get_i(c, 0) == (int64_t)unit;
}

/* Slice parameters (inputs from opset 10, attributes before): count, or
 * -1 when not constant. */
static int slice_params(struct peep *p, struct ir_node *n, int64_t *st,
			int64_t *en, int64_t *ax, int64_t *sp)
{
	int k, ke, ka, ks;
	if (p->opset < 10) {
		k = attr_ints(n, "starts", st);
		ke = attr_ints(n, "ends", en);
		ka = ir_node_find_attr(n, "axes") ? attr_ints(n, "axes", ax)
						   : -2;
		ks = -2;
	} else {
		if (n->ninputs < 3)
			return -1;
		k = cst_ints(p, n->inputs[1], st);
		ke = cst_ints(p, n->inputs[2], en);
		ka = n->ninputs > 3 && n->inputs[3] ?
		     cst_ints(p, n->inputs[3], ax) : -2;
		ks = n->ninputs > 4 && n->inputs[4] ?
		     cst_ints(p, n->inputs[4], sp) : -2;
	}
	if (k < 0 || ke != k || ka == -1 || ks == -1 ||
	    (ka >= 0 && ka != k) || (ks >= 0 && ks != k))
		return -1;
	for (int i = 0; i < k; i++) {
		if (ka < 0)
			ax[i] = i;
		if (ks < 0)
			sp[i] = 1;
	}
	return k;
}

/* axes normalised against rank r (-1: unknown): 0, or -1 when one cannot
 * be or two are equal */
static int norm_axes(int64_t *ax, int k, int r)
{
	for (int i = 0; i < k; i++) {
		if (ax[i] < 0) {
			if (r < 0)
				return -1;
			ax[i] += r;
		}
		if (ax[i] < 0 || (r >= 0 && ax[i] >= r))
			return -1;
		for (int j = 0; j < i; j++)
			if (ax[j] == ax[i])
				return -1;
	}
	return 0;
}

static int slice_is_noop(struct peep *p, struct ir_node *n)
{
	int64_t st[MAXK], en[MAXK], ax[MAXK], sp[MAXK];
	struct ir_value *x = n->ninputs ? n->inputs[0] : NULL;
	int k = slice_params(p, n, st, en, ax, sp);
	int r = rank_of(x);
	if (k < 0 || r < 0 || norm_axes(ax, k, r))
		return 0;
	for (int i = 0; i < k; i++) {
		int64_t d = fixed_dim(x, (int)ax[i]);
		if (sp[i] != 1)
			return 0;
		if (d < 0) { /* unknown size: only [0, "the end") */
			if (st[i] != 0 || en[i] < (INT64_C(1) << 62))
				return 0;
			continue;
		}
		int64_t s = st[i] < 0 ? st[i] + d : st[i];
		int64_t e = en[i] < 0 ? en[i] + d : en[i];
		if (s > 0 || e < d)
			return 0;
	}
	return 1;
}

static int expand_is_noop(struct peep *p, struct ir_node *n)
{
	int64_t s[MAXK];
	struct ir_value *x = n->inputs[0];
	int k = n->ninputs == 2 ? cst_ints(p, n->inputs[1], s) : -1;
	int r = rank_of(x);
	if (k < 0 || r < 0 || k > r)
		return 0;
	for (int i = 0; i < k; i++) {
		int64_t d = fixed_dim(x, r - k + i);
		if (s[i] != 1 && s[i] != d)
			return 0;
	}
	return 1;
}

static int reshape_is_noop(struct peep *p, struct ir_node *n)
{
	int64_t s[MAXK];
	struct ir_value *x = n->inputs[0];
	int k = n->ninputs == 2 ? cst_ints(p, n->inputs[1], s) : -1;
	int r = rank_of(x), infer = -1;
	int allowzero = (int)attr_int(n, "allowzero", 0);
	if (k < 0 || r != k)
		return 0;
	for (int i = 0; i < k; i++) {
		int64_t d = fixed_dim(x, i);
		if (s[i] == 0 && !allowzero)
			continue;
		if (s[i] == -1 && infer < 0) {
			infer = i;
			continue;
		}
		if (s[i] != d || d < 0)
			return 0;
	}
	/* the -1 gets what is left: x's own dim unless a dim is 0 */
	for (int i = 0; infer >= 0 && i < k; i++)
		if (fixed_dim(x, i) == 0)
			return 0;
	return 1;
}

/* The input that n merely passes on, or NULL. */
static struct ir_value *noop_input(struct peep *p, struct ir_node *n)
{
	const char *k = n->kind + 6;
	struct ir_value *a = n->ninputs > 0 ? n->inputs[0] : NULL;
	struct ir_value *b = n->ninputs > 1 ? n->inputs[1] : NULL;
	struct ir_value *o = n->outputs[0];
	if (!a)
		return NULL;
	if (!strcmp(k, "Cast") && n->ninputs == 1) {
		enum ir_dtype dt = dtype_of(a);
		return dt != IR_DTYPE_UNDEFINED &&
		       attr_int(n, "to", -1) == (int64_t)dt ? a : NULL;
	}
	if (!strcmp(k, "Expand"))
		return expand_is_noop(p, n) ? a : NULL;
	if (!strcmp(k, "Reshape"))
		return reshape_is_noop(p, n) ? a : NULL;
	if (!strcmp(k, "Slice"))
		return slice_is_noop(p, n) ? a : NULL;
	if (!strcmp(k, "Concat"))
		return n->ninputs == 1 ? a : NULL;
	if (!strcmp(k, "Transpose") && n->ninputs == 1) {
		int64_t perm[MAXK];
		int m = attr_ints(n, "perm", perm), r = rank_of(a);
		if (m < 0)
			return r >= 0 && r <= 1 ? a : NULL;
		for (int i = 0; i < m; i++)
			if (perm[i] != i)
				return NULL;
		return a;
	}
	if (n->ninputs != 2)
		return NULL;
	if (!strcmp(k, "Add")) {
		if (unit_operand(p, a, b, o, 0))
			return a;
		return unit_operand(p, b, a, o, 0) ? b : NULL;
	}
	if (!strcmp(k, "Mul")) {
		if (unit_operand(p, a, b, o, 1))
			return a;
		return unit_operand(p, b, a, o, 1) ? b : NULL;
	}
	if (!strcmp(k, "Sub"))
		return unit_operand(p, a, b, o, 0) ? a : NULL;
	if (!strcmp(k, "Div"))
		return unit_operand(p, a, b, o, 1) ? a : NULL;
	return NULL;
}

/* n (one output) passes x on: n's uses read x, or x's producer makes n's
 * output.  1 when n went. */
static int bypass(struct peep *p, struct ir_block *b, struct ir_node *n,
		  struct ir_value *x)
{
	struct ir_value *o = n->outputs[0];
	if (!returned(p, o)) {
		drop_node(n);
		replace(o, x);
		p->st->identities++;
		return 1;
	}
	/* a returned name: x's producer makes it instead */
	struct ir_node *q = x->producer;
	if (!q || q->owner != b || x->weight || returned(p, x) ||
	    x->uses != 1 || !b->nreturns)
		return 0;
	for (uint32_t i = 0; i < b->nreturns; i++)
		if (b->returns[i] == o)
			goto own;
	return 0;
own:
	for (uint32_t i = 0; i < q->noutputs; i++) {
		if (q->outputs[i] != x)
			continue;
		drop_node(n);
		ir_node_set_output(q, i, o);
		p->st->identities++;
		return 1;
	}
	return 0;
}

/* --- Slice of Slice ------------------------------------------------------- */

static void merge_slices(struct peep *p, struct ir_node *n)
{
	int64_t st[2 * MAXK], en[2 * MAXK], ax[2 * MAXK], sp[2 * MAXK];
	struct ir_value *y = n->ninputs ? n->inputs[0] : NULL;
	struct ir_node *a = y ? y->producer : NULL;
	if (!a || a->owner != n->owner || strcmp(a->kind, "onnx::Slice") ||
	    y->uses != 1 || returned(p, y) || !a->ninputs || !a->inputs[0])
		return;
	int ka = slice_params(p, a, st, en, ax, sp);
	if (ka < 0 || ka > MAXK)
		return;
	int kb = slice_params(p, n, st + ka, en + ka, ax + ka, sp + ka);
	int r = rank_of(a->inputs[0]);
	if (kb < 0 || norm_axes(ax, ka + kb, r))
		return;
	int k = ka + kb, steps = 0;
	for (int i = 0; i < k; i++)
		steps |= sp[i] != 1;
	if (p->opset < 10) {
		n->nattrs = 0;
		n->attrs = NULL;
		struct ir_attr *t;
		const char *names[3] = { "starts", "ends", "axes" };
		int64_t *vals[3] = { st, en, ax };
		for (int j = 0; j < 3; j++) {
			t = ir_node_add_attr(p->g, n, names[j], IR_ATTR_INTS);
			t->count = (uint32_t)k;
			t->u.ints = ir_alloc(p->g, sizeof(int64_t) * (size_t)k);
			memcpy(t->u.ints, vals[j], sizeof(int64_t) * (size_t)k);
		}
		set_input(n, 0, a->inputs[0]);
	} else {
		struct ir_value **in = ir_alloc(p->g, sizeof(*in) * 5);
		for (uint32_t i = 0; i < n->ninputs; i++)
			if (n->inputs[i] && n->inputs[i]->uses)
				n->inputs[i]->uses--;
		in[0] = a->inputs[0];
		in[1] = new_ints(p, n, st, k);
		in[2] = new_ints(p, n, en, k);
		in[3] = new_ints(p, n, ax, k);
		in[4] = steps ? new_ints(p, n, sp, k) : NULL;
		n->inputs = in;
		n->ninputs = steps ? 5 : 4;
		for (uint32_t i = 0; i < n->ninputs; i++)
			in[i]->uses++;
	}
	p->st->slices++;
}

/* a Slice's steps input of ones: dropped */
static void slice_steps(struct peep *p, struct ir_node *n)
{
	int64_t sp[MAXK];
	if (p->opset < 10 || n->ninputs != 5 || !n->inputs[4])
		return;
	int k = cst_ints(p, n->inputs[4], sp);
	for (int i = 0; i < k; i++)
		if (sp[i] != 1)
			return;
	if (k < 0)
		return;
	set_input(n, 4, NULL);
	n->ninputs = n->inputs[3] ? 4 : 3;
}

/* --- Expand of Expand ---------------------------------------------------- */

/* Expand(Expand(x, s1), s2) with constant shapes is Expand(x, the
 * broadcast of s1 and s2): broadcasting is associative. */
static int merge_expands(struct peep *p, struct ir_node *n)
{
	int64_t s1[MAXK], s2[MAXK], r[MAXK];
	struct ir_value *y = n->ninputs == 2 ? n->inputs[0] : NULL;
	struct ir_node *a = y ? y->producer : NULL;
	if (!a || a->owner != n->owner || strcmp(a->kind, "onnx::Expand") ||
	    a->ninputs != 2 || y->uses != 1 || returned(p, y))
		return 0;
	int k1 = cst_ints(p, a->inputs[1], s1), k2 = cst_ints(p, n->inputs[1], s2);
	if (k1 < 0 || k2 < 0)
		return 0;
	int k = k1 > k2 ? k1 : k2;
	for (int i = 0; i < k; i++) {
		int64_t u = i < k1 ? s1[k1 - 1 - i] : 1;
		int64_t v = i < k2 ? s2[k2 - 1 - i] : 1;
		if (u != v && u != 1 && v != 1)
			return 0;
		r[k - 1 - i] = u == 1 ? v : u;
	}
	set_input(n, 0, a->inputs[0]);
	set_input(n, 1, new_ints(p, n, r, k));
	p->st->slices++;
	return 1;
}

/* --- Resize ------------------------------------------------------------- */

/* From opset 13 Resize's roi and scales are optional: a roi that only
 * tf_crop_and_resize reads, and an empty scales beside sizes, are
 * dropped (torch writes them so). */
static void resize_inputs(struct peep *p, struct ir_node *n)
{
	const struct ir_attr *m = ir_node_find_attr(n, "coordinate_transformation_mode");
	if (p->opset < 13 || n->ninputs < 3)
		return;
	if (n->inputs[1] && cst(p, n->inputs[1]) &&
	    !(m && m->kind == IR_ATTR_STRING &&
	      m->u.s.len == 18 && !memcmp(m->u.s.data, "tf_crop_and_resize", 18)))
		set_input(n, 1, NULL);
	const struct ir_tensor *sc = n->inputs[2] ? cst(p, n->inputs[2]) : NULL;
	if (n->ninputs == 4 && n->inputs[3] && sc && !ir_tensor_numel(sc))
		set_input(n, 2, NULL);
}

/* --- LogSoftmax + NegativeLogLikelihoodLoss ----------------------------- */

static void fuse_nll(struct peep *p, struct ir_node *n)
{
	struct ir_value *l = n->ninputs >= 2 ? n->inputs[0] : NULL;
	struct ir_node *ls = l ? l->producer : NULL;
	if (p->opset < 12 || !ls || ls->owner != n->owner ||
	    strcmp(ls->kind, "onnx::LogSoftmax") || ls->ninputs != 1 ||
	    l->uses != 1 || returned(p, l) || n->noutputs != 1)
		return;
	struct ir_value *x = ls->inputs[0];
	int r = rank_of(x);
	int64_t axis = attr_int(ls, "axis", p->opset >= 13 ? -1 : 1);
	if (r < 2 || (axis < 0 ? axis + r : axis) != 1 ||
	    (p->opset < 13 && r != 2))
		return;
	ir_node_set_kind(n, "onnx::SoftmaxCrossEntropyLoss");
	set_input(n, 0, x);
	p->st->fused++;
}

/* --- RMSNorm written out: RMSNormalization (opset 23) ------------------- */

/* v's producer when it is an `kind` node of n's block whose output only
 * this use reads, else NULL. */
static struct ir_node *sole_producer(struct peep *p, const struct ir_node *n,
				     const struct ir_value *v,
				     const char *kind)
{
	struct ir_node *m = v ? v->producer : NULL;
	if (!m || m->owner != n->owner || strcmp(m->kind, kind) ||
	    m->noutputs != 1 || v->uses != 1 || returned(p, v))
		return NULL;
	return m;
}

/* a one-element float constant's value into *v */
static int cst_scalar(struct peep *p, const struct ir_value *x,
		      enum ir_dtype dt, double *v)
{
	const struct ir_tensor *t = cst(p, x);
	if (!t || t->dtype != dt || ir_tensor_numel(t) != 1)
		return 0;
	*v = fold_get_f(t, 0);
	return 1;
}

/* Whether Mul node n is x * Reciprocal(Sqrt(ReduceMean(x^2 over the last
 * k axes, keepdims) + eps)) on a Float x: *x, *k and *eps set. x^2 is
 * Pow(x, 2) or Mul(x, x); every intermediate is read only by the next. */
static int rms_pattern(struct peep *p, struct ir_node *n, struct ir_value **x,
		       int *k, double *eps)
{
	for (int side = 0; side < 2; side++) {
		struct ir_value *xv = n->inputs[side], *rv = n->inputs[!side];
		struct ir_node *rc = sole_producer(p, n, rv, "onnx::Reciprocal");
		struct ir_node *sq = rc && rc->ninputs == 1
			? sole_producer(p, rc, rc->inputs[0], "onnx::Sqrt") : NULL;
		struct ir_node *ad = sq && sq->ninputs == 1
			? sole_producer(p, sq, sq->inputs[0], "onnx::Add") : NULL;
		int r = rank_of(xv);
		if (!ad || ad->ninputs != 2 || r < 1 ||
		    dtype_of(xv) != IR_DTYPE_FLOAT)
			continue;
		int mi = cst_scalar(p, ad->inputs[1], IR_DTYPE_FLOAT, eps) ? 0
		       : cst_scalar(p, ad->inputs[0], IR_DTYPE_FLOAT, eps) ? 1
		       : -1;
		struct ir_node *rm = mi < 0 || *eps < 0 ? NULL
			: sole_producer(p, ad, ad->inputs[mi], "onnx::ReduceMean");
		if (!rm || rm->ninputs < 1 || attr_int(rm, "keepdims", 1) != 1 ||
		    attr_int(rm, "noop_with_empty_axes", 0))
			continue;
		int64_t ax[MAXK];
		int na = p->opset >= 18 ? (rm->ninputs > 1
					   ? cst_ints(p, rm->inputs[1], ax) : -1)
					: attr_ints(rm, "axes", ax);
		if (na < 1 || na > r || norm_axes(ax, na, r))
			continue;
		/* the last na axes, in any order */
		int64_t seen = 0;
		for (int i = 0; i < na; i++)
			if (ax[i] >= r - na && ax[i] < r && r - 1 - ax[i] < 63)
				seen |= (int64_t)1 << (r - 1 - ax[i]);
		if (seen != ((int64_t)1 << na) - 1)
			continue;
		struct ir_value *sv = rm->inputs[0];
		struct ir_node *pw = sv ? sv->producer : NULL;
		double two = 0;
		if (!pw || pw->owner != n->owner || sv->uses != 1 ||
		    returned(p, sv) || pw->ninputs != 2 || pw->inputs[0] != xv)
			continue;
		if (!(!strcmp(pw->kind, "onnx::Pow") &&
		      cst_scalar(p, pw->inputs[1], IR_DTYPE_FLOAT, &two) &&
		      two == 2) &&
		    !(!strcmp(pw->kind, "onnx::Mul") && pw->inputs[1] == xv))
			continue;
		*x = xv;
		*k = na;
		return 1;
	}
	return 0;
}

/* From opset 23 an RMSNorm the model writes out (x * rsqrt(mean(x^2) +
 * eps), as LLaMA's RMSNorm module does) becomes one RMSNormalization node:
 * the same arithmetic in float (stash_type 1) on a Float x, with a scale of
 * ones; a following Mul by a tensor of exactly the normalized shape (the
 * module's weight) becomes that scale.  ONNX Runtime 1.30 matches the written-out form to
 * float rounding (tests/596-fold-rmsnorm.bats). */
static void fuse_rms(struct peep *p, struct ir_node *n)
{
	struct ir_value *x;
	int k;
	double eps;
	if (p->opset < 23 || n->ninputs != 2 || n->noutputs != 1)
		return;
	/* the weight: Mul(RMSNormalization(x, ones), w) */
	for (int side = 0; side < 2; side++) {
		struct ir_value *y = n->inputs[side], *w = n->inputs[!side];
		struct ir_node *q = sole_producer(p, n, y,
						  "onnx::RMSNormalization");
		const struct ir_tensor *one = q && q->ninputs == 2
					      ? cst(p, q->inputs[1]) : NULL;
		int same = one && dtype_of(w) == one->dtype &&
			   rank_of(w) == one->rank;
		for (int i = 0; same && i < one->rank; i++)
			same = fixed_dim(w, i) == one->dims[i];
		if (!same)
			continue;
		uint64_t cnt = ir_tensor_numel(one), i;
		for (i = 0; i < cnt && fold_get_f(one, i) == 1; i++)
			;
		if (i < cnt)
			continue;
		set_input(q, 1, w);
		/* n reads y alone: an Identity, which the walk drops next */
		set_input(n, 0, y);
		set_input(n, 1, NULL);
		n->ninputs = 1;
		ir_node_set_kind(n, "onnx::Identity");
		return;
	}
	if (!rms_pattern(p, n, &x, &k, &eps))
		return;
	int r = rank_of(x);
	int64_t dims[MAXK];
	for (int i = 0; i < k; i++)
		if ((dims[i] = fixed_dim(x, r - k + i)) < 0)
			return;
	struct ir_tensor *t = fold_tensor_alloc(p->g, IR_DTYPE_FLOAT, k, dims,
						(uint64_t)1 << 26);
	if (!t)
		return;
	for (uint64_t i = 0; i < ir_tensor_numel(t); i++)
		fold_set_f(t, i, 1);
	struct ir_value *ones = new_const(p, n, t);
	set_input(n, 0, x);
	set_input(n, 1, ones);
	ir_node_set_kind(n, "onnx::RMSNormalization");
	ir_node_add_attr(p->g, n, "axis", IR_ATTR_INT)->u.i = r - k;
	ir_node_add_attr(p->g, n, "epsilon", IR_ATTR_FLOAT)->u.f = eps;
	p->st->fused++;
}

/* --- common subexpressions ------------------------------------------------ */

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdull;
}

static uint64_t str_hash(const char *s, size_t n, uint64_t h)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
	return h;
}

static int node_equal(const struct ir_node *a, const struct ir_node *b)
{
	if (strcmp(a->kind, b->kind) || a->ninputs != b->ninputs ||
	    a->noutputs != b->noutputs || a->nattrs != b->nattrs)
		return 0;
	for (uint32_t i = 0; i < a->ninputs; i++)
		if (a->inputs[i] != b->inputs[i])
			return 0;
	/* the same types too: one value cannot carry two (SequenceEmpty of
	 * sequences of different ranks) */
	for (uint32_t i = 0; i < a->noutputs; i++)
		if (!a->outputs[i] || !b->outputs[i] ||
		    !ir_type_equal(a->outputs[i]->type, b->outputs[i]->type))
			return 0;
	for (uint32_t i = 0; i < a->nattrs; i++) {
		uint32_t j;
		for (j = 0; j < b->nattrs; j++)
			if (!strcmp(a->attrs[i].name, b->attrs[j].name))
				break;
		if (j == b->nattrs || !ir_attr_equal(&a->attrs[i], &b->attrs[j]))
			return 0;
	}
	return 1;
}

static uint64_t node_hash(const struct ir_node *n)
{
	uint64_t h = str_hash(n->kind, strlen(n->kind), 0xcbf29ce484222325ull);
	h = mix(h, n->ninputs);
	for (uint32_t i = 0; i < n->ninputs; i++)
		h = mix(h, (uint64_t)(uintptr_t)n->inputs[i]);
	h = mix(h, n->nattrs);
	/* attribute values by name only, and a Constant's data: cheap, and
	 * equal nodes hash equal */
	for (uint32_t i = 0; i < n->nattrs; i++) {
		const struct ir_attr *a = &n->attrs[i];
		uint64_t x = str_hash(a->name, strlen(a->name), 0);
		if (a->kind == IR_ATTR_INT)
			x = mix(x, (uint64_t)a->u.i);
		else if (a->kind == IR_ATTR_TENSOR &&
			 a->u.t->data_kind == IR_DATA_INLINE &&
			 a->u.t->dtype != IR_DTYPE_STRING)
			x = str_hash(a->u.t->bytes.data,
				     a->u.t->bytes.len < 256 ? a->u.t->bytes.len
							     : 256, x);
		h ^= x; /* order-free: attributes may come in any order */
	}
	return h;
}

static int cse_ok(const struct ir_node *n)
{
	const char *k = n->kind;
	if (strncmp(k, "onnx::", 6) || !n->noutputs || has_sub(n))
		return 0;
	k += 6;
	return !strstr(k, "Random") && strcmp(k, "Multinomial") &&
	       strcmp(k, "Bernoulli") && strcmp(k, "Dropout");
}

struct ntab {
	struct ir_node **slot;
	uint64_t *hash;
	size_t cap, n;
};

static void ntab_put(struct ntab *t, struct ir_node *n, uint64_t h)
{
	if (2 * (t->n + 1) > t->cap) {
		struct ntab u = { NULL, NULL, t->cap ? t->cap * 2 : 64, 0 };
		u.slot = xcalloc(u.cap, sizeof(*u.slot));
		u.hash = xcalloc(u.cap, sizeof(*u.hash));
		for (size_t i = 0; i < t->cap; i++)
			if (t->slot[i])
				ntab_put(&u, t->slot[i], t->hash[i]);
		free(t->slot);
		free(t->hash);
		*t = u;
	}
	size_t i = (size_t)(h >> 7) & (t->cap - 1);
	while (t->slot[i])
		i = (i + 1) & (t->cap - 1);
	t->slot[i] = n;
	t->hash[i] = h;
	t->n++;
}

static struct ir_node *ntab_find(const struct ntab *t, const struct ir_node *n,
				 uint64_t h)
{
	if (!t->cap)
		return NULL;
	for (size_t i = (size_t)(h >> 7) & (t->cap - 1); t->slot[i];
	     i = (i + 1) & (t->cap - 1))
		if (t->hash[i] == h && t->slot[i]->owner &&
		    node_equal(t->slot[i], n))
			return t->slot[i];
	return NULL;
}

/* n is dropped for an equal earlier node of its block, or remembered. */
static int cse(struct peep *p, struct ntab *t, struct ir_node *n)
{
	if (!cse_ok(n))
		return 0;
	uint64_t h = node_hash(n);
	struct ir_node *m = ntab_find(t, n, h);
	if (!m) {
		ntab_put(t, n, h);
		return 0;
	}
	for (uint32_t i = 0; i < n->noutputs; i++)
		if (n->outputs[i] && returned(p, n->outputs[i]))
			return 0;
	for (uint32_t i = 0; i < n->noutputs; i++)
		if (n->outputs[i])
			replace(n->outputs[i], m->outputs[i]);
	drop_node(n);
	p->st->cse++;
	return 1;
}

/* --- the walk -------------------------------------------------------------- */

static void peep_block(struct peep *p, struct ir_block *b)
{
	struct ntab t = { 0 };
	for (struct ir_node *n = b->first, *next; n; n = next) {
		next = n->next;
		reread(n);
		each_block(p, n, peep_block);
		if (!strcmp(n->kind, "onnx::Slice") ||
		    !strcmp(n->kind, "onnx::Expand")) {
			struct ir_node *prev = n->prev;
			if (n->kind[6] == 'S') {
				merge_slices(p, n);
				slice_steps(p, n);
			} else {
				merge_expands(p, n);
			}
			/* the Constants the merge made: merged with equal ones */
			for (struct ir_node *m = prev ? prev->next : b->first,
			     *mn; m && m != n; m = mn) {
				mn = m->next;
				cse(p, &t, m);
			}
			/* the ones CSE dropped: their uses (n) re-read */
			reread(n);
		} else if (!strcmp(n->kind, "onnx::Resize")) {
			resize_inputs(p, n);
		} else if (!strcmp(n->kind, "onnx::NegativeLogLikelihoodLoss")) {
			fuse_nll(p, n);
		} else if (!strcmp(n->kind, "onnx::Mul")) {
			fuse_rms(p, n);
		}
		if (n->noutputs == 1 && n->outputs[0] &&
		    !strncmp(n->kind, "onnx::", 6)) {
			struct ir_value *x = !strcmp(n->kind, "onnx::Identity")
					     ? (n->ninputs == 1 ? n->inputs[0]
								: NULL)
					     : noop_input(p, n);
			if (x && bypass(p, b, n, x))
				continue;
		}
		cse(p, &t, n);
	}
	/* a block's returns never name a replaced value (returned values
	 * are never replaced), but a subgraph may return an outer one */
	for (uint32_t i = 0; i < b->nreturns; i++)
		if (b->returns[i]->aux)
			b->returns[i] = chase(b->returns[i]);
	free(t.slot);
	free(t.hash);
}

int fold_peephole(struct ir_graph *g, int64_t opset,
		  struct fold_peep_stats *st)
{
	struct fold_peep_stats local;
	struct peep p = { .g = g, .opset = opset, .st = st ? st : &local };
	memset(p.st, 0, sizeof(*p.st));
	mark_rets(&p, g->top);
	peep_block(&p, g->top);
	free(p.rets.slot);
	return 0;
}

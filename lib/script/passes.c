/*
 * passes.c - the script stage's clean-up passes over an aten-level graph:
 * folding of int/float/bool arithmetic on prim::Constant inputs (also used
 * node by node while compiling, so that static conditions fold), dead code
 * elimination that keeps side effects (raises, prints, list mutation,
 * in-place ops left in place), and removal of weights nothing uses; the
 * outputs of a prim::If whose arms return the same value or equal
 * constants become that value; aten::__range_length and
 * aten::__derive_index of constants fold; loops of a constant trip count
 * that compute no tensors are unrolled and the lists they build folded
 * (unroll.c).
 *
 * Costs: linear in the nodes, a few sweeps until nothing changes.
 */
#include <math.h>
#include <string.h>

#include "compile.h"
#include "intmath.h"
#include "unroll.h"

struct ir_value *script_fold_node(struct ir_graph *g, struct ir_node *n);
struct ir_value *script_fold_static(struct ir_graph *g, struct ir_node *n);

static struct ir_value *new_const(struct ir_graph *g, struct ir_node *at,
				  enum ir_type_kind k, int64_t i, double f)
{
	struct ir_node *c = ir_node_new(g, NULL,
					aten_op_name(OP_prim_Constant), 0, 1);
	struct ir_attr *a;

	ir_node_set_output(c, 0, ir_value_new(g, NULL, ir_type_new(g, k)));
	a = ir_node_add_attr(g, c, "value", k == IR_TYPE_FLOAT ?
			     IR_ATTR_FLOAT : IR_ATTR_INT);
	if (k == IR_TYPE_FLOAT)
		a->u.f = f;
	else
		a->u.i = k == IR_TYPE_BOOL ? i != 0 : i;
	c->scope = at->scope;
	c->source = at->source;
	ir_block_insert_before(at, c);
	return c->outputs[0];
}


/* 1 when a node after list l's producer (in its block or blocks nested
 * there) may mutate l. */
static int list_mutated_in(const struct ir_node *from,
			   const struct ir_value *l, int depth)
{
	const struct ir_node *n;
	uint32_t i;

	if (depth > 64)
		return 1;
	for (n = from; n; n = n->next) {
		if (script_side_effect(n->op) || !strncmp(n->kind, "prim::", 6))
			for (i = 0; i < n->ninputs; i++)
				if (n->inputs[i] == l &&
				    n->op != OP_prim_ListUnpack)
					return 1;
		for (i = 0; i < n->nblocks; i++)
			if (list_mutated_in(n->blocks[i]->first, l, depth + 1))
				return 1;
	}
	return 0;
}

int script_list_mutated(const struct ir_value *l)
{
	if (!l->producer)
		return 1;
	return list_mutated_in(l->producer->next, l, 0);
}

static int num(const struct ir_value *v, int *isf, int64_t *i, double *f)
{
	if (!v)
		return 0;
	if (script_const_int(v, i)) {
		*isf = 0;
		*f = (double)*i;
		return 1;
	}
	if (script_const_float(v, f)) {
		*isf = 1;
		return 1;
	}
	return 0;
}


/* Folds n when its inputs are constants and it is int/float/bool
 * arithmetic or comparison; the replacement constant is inserted before n
 * and n is unlinked.  Returns the replacement, or NULL. */
struct ir_value *script_fold_node(struct ir_graph *g, struct ir_node *n)
{
	enum aten_op k = n->op;
	int fa = 0, fb = 0, isf;
	int64_t a = 0, b = 0, r = 0;
	double x = 0, y = 0, rf = 0;
	enum ir_type_kind rk;
	struct ir_value *v;

	if (n->noutputs != 1 || !n->owner)
		return NULL;
	if ((v = script_fold_static(g, n)))
		return v;
	if (n->ninputs == 1 && num(n->inputs[0], &fa, &a, &x)) {
		rk = n->outputs[0]->type->kind;
		if (k == OP_aten___not__ && !fa) {
			r = !a;
			rk = IR_TYPE_BOOL;
		} else if (k == OP_aten_neg) {
			r = i64_wrap_neg(a); /* torch's wrap (intmath.h) */
			rf = -x;
			rk = fa ? IR_TYPE_FLOAT : IR_TYPE_INT;
		} else if (k == OP_aten_Int && !fa) {
			r = a;
			rk = IR_TYPE_INT;
		} else if (k == OP_aten_Bool) {
			r = fa ? x != 0 : a != 0;
			rk = IR_TYPE_BOOL;
		} else if (k == OP_aten_Float) {
			rf = x;
			rk = IR_TYPE_FLOAT;
		} else
			return NULL;
		goto done;
	}
	if (n->ninputs == 1 && k == OP_aten_dim && n->inputs[0] &&
	    n->inputs[0]->type->kind == IR_TYPE_TENSOR &&
	    n->inputs[0]->type->rank >= 0) {
		/* the rank is known from the types (given with --input) */
		r = n->inputs[0]->type->rank;
		rk = IR_TYPE_INT;
		goto done;
	}
	if (n->ninputs == 1 && k == OP_aten_len && n->inputs[0] &&
	    n->inputs[0]->producer &&
	    n->inputs[0]->producer->op == OP_prim_ListConstruct &&
	    n->inputs[0]->producer->owner == n->owner) {
		if (list_mutated_in(n->inputs[0]->producer->next, n->inputs[0],
				    0))
			return NULL;
		r = n->inputs[0]->producer->ninputs;
		rk = IR_TYPE_INT;
		goto done;
	}
	if (n->ninputs == 3 && (k == OP_aten___range_length ||
				k == OP_aten___derive_index)) {
		int64_t c;
		if (!script_const_int(n->inputs[0], &a) ||
		    !script_const_int(n->inputs[1], &b) ||
		    !script_const_int(n->inputs[2], &c) ||
		    n->inputs[0]->type->kind != IR_TYPE_INT ||
		    n->inputs[1]->type->kind != IR_TYPE_INT ||
		    n->inputs[2]->type->kind != IR_TYPE_INT)
			return NULL;
		rk = IR_TYPE_INT;
		if (k == OP_aten___derive_index) {
			/* start + index * step (a, b, c: index, start, step) */
			r = (int64_t)((uint64_t)b + (uint64_t)a * (uint64_t)c);
			goto done;
		}
		/* torch's range length of (lo, hi, step): 0 when empty */
		if (c == 0 || c == INT64_MIN)
			return NULL; /* raises at run time */
		if (c > 0 && a < b)
			r = (int64_t)(1 + ((uint64_t)b - 1 - (uint64_t)a) /
					  (uint64_t)c);
		else if (c < 0 && a > b)
			r = (int64_t)(1 + ((uint64_t)a - 1 - (uint64_t)b) /
					  (uint64_t)-c);
		else
			r = 0;
		goto done;
	}
	if (n->ninputs != 2 || !num(n->inputs[0], &fa, &a, &x) ||
	    !num(n->inputs[1], &fb, &b, &y))
		return NULL;
	isf = fa || fb;
	rk = isf ? IR_TYPE_FLOAT : IR_TYPE_INT;
	if (k == OP_aten_add) {
		r = i64_wrap_add(a, b);
		rf = x + y;
	} else if (k == OP_aten_sub) {
		r = i64_wrap_sub(a, b);
		rf = x - y;
	} else if (k == OP_aten_mul) {
		r = i64_wrap_mul(a, b);
		rf = x * y;
	} else if (k == OP_aten_floordiv && !isf) {
		/* not folded where torch has no result: a later stage
		 * refuses it with a line */
		if (i64_floordiv(a, b, &r))
			return NULL;
	} else if (k == OP_aten_remainder && !isf) {
		if (i64_mod(a, b, &r))
			return NULL;
	} else if (k == OP_aten_div) {
		if (y == 0)
			return NULL;
		rf = x / y;
		rk = IR_TYPE_FLOAT;
	} else {
		int c;
		if (k == OP_aten_eq)
			c = isf ? x == y : a == b;
		else if (k == OP_aten_ne)
			c = isf ? x != y : a != b;
		else if (k == OP_aten_lt)
			c = isf ? x < y : a < b;
		else if (k == OP_aten_le)
			c = isf ? x <= y : a <= b;
		else if (k == OP_aten_gt)
			c = isf ? x > y : a > b;
		else if (k == OP_aten_ge)
			c = isf ? x >= y : a >= b;
		else if (k == OP_aten___and__ && !isf)
			c = a && b;
		else if (k == OP_aten___or__ && !isf)
			c = a || b;
		else
			return NULL;
		r = c;
		rk = IR_TYPE_BOOL;
	}
	if (n->outputs[0]->type->kind != IR_TYPE_UNKNOWN &&
	    n->outputs[0]->type->kind != rk)
		return NULL;
done:
	v = new_const(g, n, rk, r, rf);
	ir_node_unlink(n);
	return v;
}

/* --- dead code elimination -------------------------------------------- */

int script_side_effect(enum aten_op op)
{
	/* the schemas' written arguments: in-place ops left in place (their
	 * Tensor(a!) self), list, dict and object mutations (append,
	 * _set_item, pop, Delete, update...); and the ops whose effect no
	 * argument shows */
	return (aten_op_flags(op) & (ATEN_OP_INPLACE | ATEN_OP_MUTATES)) ||
	       ATEN_ONE_OF(op, OP_prim_RaiseException, OP_prim_Print,
			   OP_aten_warn, OP_prim_SetAttr);
}

static int block_has_effects(const struct ir_block *b, int depth);

static int node_has_effects(const struct ir_node *n, int depth)
{
	uint32_t i;

	if (script_side_effect(n->op))
		return 1;
	if (depth > 64)
		return 1;
	for (i = 0; i < n->nblocks; i++)
		if (block_has_effects(n->blocks[i], depth + 1))
			return 1;
	return 0;
}

static int block_has_effects(const struct ir_block *b, int depth)
{
	const struct ir_node *n;

	for (n = b->first; n; n = n->next)
		if (node_has_effects(n, depth))
			return 1;
	return 0;
}

static void count_uses_block(struct ir_block *b, int depth)
{
	struct ir_node *n;
	uint32_t i;

	for (i = 0; i < b->nreturns; i++)
		b->returns[i]->uses++;
	for (n = b->first; n; n = n->next) {
		for (i = 0; i < n->ninputs; i++)
			if (n->inputs[i])
				n->inputs[i]->uses++;
		if (depth < 200)
			for (i = 0; i < n->nblocks; i++)
				count_uses_block(n->blocks[i], depth + 1);
	}
}

static void zero_uses_block(struct ir_block *b, int depth)
{
	struct ir_node *n;
	uint32_t i;

	for (i = 0; i < b->nparams; i++)
		b->params[i]->uses = 0;
	for (n = b->first; n; n = n->next) {
		for (i = 0; i < n->noutputs; i++)
			n->outputs[i]->uses = 0;
		for (i = 0; i < n->ninputs; i++)
			if (n->inputs[i])
				n->inputs[i]->uses = 0;
		if (depth < 200)
			for (i = 0; i < n->nblocks; i++)
				zero_uses_block(n->blocks[i], depth + 1);
	}
}

static int dce_block(struct ir_block *b, int depth)
{
	struct ir_node *n, *prev;
	int removed = 0;
	uint32_t i;

	for (n = b->last; n; n = prev) {
		int used = 0;
		prev = n->prev;
		for (i = 0; i < n->noutputs; i++)
			used |= n->outputs[i]->uses > 0;
		if (!used && !node_has_effects(n, 0)) {
			for (i = 0; i < n->ninputs; i++)
				if (n->inputs[i] && n->inputs[i]->uses)
					n->inputs[i]->uses--;
			ir_node_unlink(n);
			removed++;
			continue;
		}
		if (depth < 200)
			for (i = 0; i < n->nblocks; i++)
				removed += dce_block(n->blocks[i], depth + 1);
	}
	return removed;
}

/* --- lists only appended to ------------------------------------------------
 * A prim::ListConstruct whose every use is an aten::append (result unused)
 * is dead with its appends: what the fast-path checks of torch leave once
 * the all()/any() reading them folded. */

static int list_uses_ok(const struct ir_block *b, const struct ir_value *l,
			int *napp, int depth)
{
	const struct ir_node *n;
	uint32_t i;

	if (depth > 200)
		return 0;
	for (i = 0; i < b->nreturns; i++)
		if (b->returns[i] == l)
			return 0;
	for (n = b->first; n; n = n->next) {
		for (i = 0; i < n->ninputs; i++) {
			if (n->inputs[i] != l)
				continue;
			if (n->op != OP_aten_append || i != 0 ||
			    n->ninputs != 2 || n->inputs[1] == l ||
			    n->outputs[0]->uses)
				return 0;
			(*napp)++;
		}
		for (i = 0; i < n->nblocks; i++)
			if (!list_uses_ok(n->blocks[i], l, napp, depth + 1))
				return 0;
	}
	return 1;
}

static int drop_appends(struct ir_block *b, const struct ir_value *l,
			int depth)
{
	struct ir_node *n, *next;
	int removed = 0;
	uint32_t i;

	for (n = b->first; n; n = next) {
		next = n->next;
		if (n->op == OP_aten_append && n->inputs[0] == l) {
			ir_node_unlink(n);
			removed++;
			continue;
		}
		if (depth < 200)
			for (i = 0; i < n->nblocks; i++)
				removed += drop_appends(n->blocks[i], l,
							depth + 1);
	}
	return removed;
}

static int dead_lists(struct ir_graph *g, struct ir_block *b, int depth)
{
	struct ir_node *n, *next;
	int removed = 0;
	uint32_t i;

	for (n = b->first; n; n = next) {
		int napp = 0;
		next = n->next;
		if (depth < 200)
			for (i = 0; i < n->nblocks; i++)
				removed += dead_lists(g, n->blocks[i], depth + 1);
		if (n->op != OP_prim_ListConstruct || n->noutputs != 1 ||
		    !n->outputs[0]->uses)
			continue;
		if (!list_uses_ok(n->owner, n->outputs[0], &napp, 0) ||
		    (uint32_t)napp != n->outputs[0]->uses)
			continue;
		removed += drop_appends(n->owner, n->outputs[0], 0);
		next = n->next;
		n->outputs[0]->uses = 0;
	}
	return removed;
}

/* Forward constant propagation: folds nodes whose inputs became constant,
 * replacing uses through v->aux. */
static struct ir_value *repl(struct ir_value *v)
{
	int guard = 0;

	while (v && v->aux && guard++ < 1000)
		v = v->aux;
	return v;
}

/* A prim::If whose condition is a constant becomes the nodes of the branch
 * it takes; its outputs are replaced (v->aux) by that branch's returns. */
static int fold_if(struct ir_node *n)
{
	struct ir_block *b;
	struct ir_node *x, *next;
	int64_t cond;
	uint32_t i;

	if (n->op != OP_prim_If || n->nblocks != 2 || n->ninputs != 1)
		return 0;
	if (!script_const_int(n->inputs[0], &cond)) {
		/* both arms empty and returning the same values */
		if (n->blocks[0]->first || n->blocks[1]->first ||
		    n->blocks[0]->nreturns != n->noutputs ||
		    n->blocks[1]->nreturns != n->noutputs)
			return 0;
		for (i = 0; i < n->noutputs; i++)
			if (n->blocks[0]->returns[i] != n->blocks[1]->returns[i])
				return 0;
		cond = 1;
	}
	b = n->blocks[cond ? 0 : 1];
	if (b->nreturns != n->noutputs)
		return 0;
	for (x = b->first; x; x = next) {
		next = x->next;
		ir_node_unlink(x);
		ir_block_insert_before(n, x);
	}
	for (i = 0; i < n->noutputs; i++)
		n->outputs[i]->aux = b->returns[i] == n->outputs[i] ? NULL
				     : b->returns[i];
	ir_node_unlink(n);
	return 1;
}

static int same_const(const struct ir_node *a, const struct ir_node *b);

/* Outputs of a prim::If whose arms return the same value (one defined
 * before the If) or equal constants are that value, as torch's constant
 * propagation finds (interpolate's `mode == ...` chains).  A constant of
 * the first arm moves before the If.  The uses are replaced (v->aux); the
 * If itself goes when nothing else uses it. */
static void fold_if_outputs(struct ir_node *n)
{
	uint32_t i;

	if (n->op != OP_prim_If || n->nblocks != 2 ||
	    n->blocks[0]->nreturns != n->noutputs ||
	    n->blocks[1]->nreturns != n->noutputs)
		return;
	for (i = 0; i < n->noutputs; i++) {
		struct ir_value *a = n->blocks[0]->returns[i];
		struct ir_value *b = n->blocks[1]->returns[i];

		if (!a || !b || n->outputs[i]->aux)
			continue;
		if (a != b) {
			if (!a->producer || !b->producer ||
			    a->producer->op != OP_prim_Constant ||
			    b->producer->op != OP_prim_Constant ||
			    !same_const(a->producer, b->producer) ||
			    !ir_type_equal(a->type, n->outputs[i]->type))
				continue;
			if (a->producer->owner == n->blocks[0]) {
				struct ir_node *k = a->producer;
				ir_node_unlink(k);
				ir_block_insert_before(n, k);
			} else if (a->producer->owner == n->blocks[1]) {
				continue;
			}
		} else if (a->producer && (a->producer->owner == n->blocks[0] ||
					   a->producer->owner == n->blocks[1])) {
			continue;
		}
		n->outputs[i]->aux = a;
	}
}

/* prim::ListUnpack of a list whose elements are known (built by a
 * prim::ListConstruct and appends): its outputs become the elements. */
static int fold_unpack(struct ir_node *n)
{
	struct ir_value *el[256];
	uint32_t i;

	if (n->op == OP_prim_TupleUnpack && n->ninputs == 1 &&
	    n->inputs[0] && n->inputs[0]->producer &&
	    n->inputs[0]->producer->op == OP_prim_TupleConstruct &&
	    n->inputs[0]->producer->ninputs == n->noutputs) {
		for (i = 0; i < n->noutputs; i++)
			n->outputs[i]->aux = n->inputs[0]->producer->inputs[i];
		ir_node_unlink(n);
		return 1;
	}
	if (n->op != OP_prim_ListUnpack || n->ninputs != 1 ||
	    script_list_at(n->inputs[0], n, el, 256) != (int)n->noutputs)
		return 0;
	for (i = 0; i < n->noutputs; i++)
		n->outputs[i]->aux = el[i];
	ir_node_unlink(n);
	return 1;
}

static int fold_block(struct ir_graph *g, struct ir_block *b, int depth)
{
	struct ir_node *n, *next;
	int folded = 0;
	uint32_t i;

	for (n = b->first; n; n = next) {
		next = n->next;
		for (i = 0; i < n->ninputs; i++)
			n->inputs[i] = repl(n->inputs[i]);
		if (depth < 200)
			for (i = 0; i < n->nblocks; i++)
				folded += fold_block(g, n->blocks[i], depth + 1);
		if (fold_if(n) || fold_unpack(n) || script_unroll_loop(g, n)) {
			folded++;
			continue;
		}
		fold_if_outputs(n);
		if (n->noutputs && n->outputs[0]->type->kind == IR_TYPE_TENSOR &&
		    n->outputs[0]->type->rank < 0 &&
		    n->outputs[0]->type->dtype == IR_DTYPE_UNDEFINED)
			script_infer_node(g, n); /* inputs may be known now */
		{
			struct ir_value *out = n->outputs ? n->outputs[0] : NULL;
			struct ir_value *f = script_fold_node(g, n);
			if (f) {
				out->aux = f;
				folded++;
			}
		}
	}
	for (i = 0; i < b->nreturns; i++)
		b->returns[i] = repl(b->returns[i]);
	return folded;
}

static void clear_aux(struct ir_block *b, int depth)
{
	struct ir_node *n;
	uint32_t i;

	for (n = b->first; n; n = n->next) {
		for (i = 0; i < n->noutputs; i++)
			n->outputs[i]->aux = NULL;
		if (depth < 200)
			for (i = 0; i < n->nblocks; i++)
				clear_aux(n->blocks[i], depth + 1);
	}
}

/* --- constant pooling ----------------------------------------------------
 * Every scalar prim::Constant moves to the top of the graph, once per
 * (type, value), as torch's ConstantPooling does; uses are redirected
 * through v->aux. */

static int same_const(const struct ir_node *a, const struct ir_node *b)
{
	const struct ir_attr *x = ir_node_find_attr(a, "value");
	const struct ir_attr *y = ir_node_find_attr(b, "value");

	if (a->outputs[0]->type->kind != b->outputs[0]->type->kind)
		return 0;
	if (!x || !y)
		return !x && !y;
	if (x->kind != y->kind)
		return 0;
	switch (x->kind) {
	case IR_ATTR_INT:
		return x->u.i == y->u.i;
	case IR_ATTR_FLOAT:
		return !memcmp(&x->u.f, &y->u.f, sizeof(double));
	case IR_ATTR_STRING:
		return x->u.s.len == y->u.s.len &&
		       !memcmp(x->u.s.data, y->u.s.data, x->u.s.len);
	default:
		return 0;
	}
}

struct pool {
	struct ir_node **n;
	size_t len, cap;
};

static void pool_block(struct ir_graph *g, struct ir_block *b,
		       struct pool *p, struct ir_node **anchor, int depth)
{
	struct ir_node *n, *next;
	size_t i;
	uint32_t k;

	for (n = b->first; n; n = next) {
		next = n->next;
		if (depth < 200)
			for (k = 0; k < n->nblocks; k++)
				pool_block(g, n->blocks[k], p, anchor, depth + 1);
		if (n->op != OP_prim_Constant || n->noutputs != 1 ||
		    n->nattrs > 1)
			continue;
		switch (n->outputs[0]->type->kind) {
		case IR_TYPE_INT: case IR_TYPE_FLOAT: case IR_TYPE_BOOL:
		case IR_TYPE_STR: case IR_TYPE_NONE: case IR_TYPE_DEVICE:
			break;
		default:
			continue;
		}
		for (i = 0; i < p->len; i++)
			if (p->n[i] == n || same_const(p->n[i], n))
				break;
		if (i < p->len && p->n[i] == n)
			continue; /* moved here already */
		if (i < p->len) {
			n->outputs[0]->aux = p->n[i]->outputs[0];
			ir_node_unlink(n);
			continue;
		}
		if (p->len == p->cap) {
			size_t cap = p->cap ? p->cap * 2 : 64;
			struct ir_node **nn = ir_alloc(g, sizeof(*nn) * cap);
			if (p->len)
				memcpy(nn, p->n, sizeof(*nn) * p->len);
			p->n = nn;
			p->cap = cap;
		}
		p->n[p->len++] = n;
		n->scope = NULL; /* shared by every module now */
		ir_node_unlink(n);
		if (*anchor)
			ir_block_insert_before(*anchor, n);
		else
			ir_block_append(g->top, n);
	}
}

static void redirect(struct ir_block *b, int depth)
{
	struct ir_node *n;
	uint32_t i;

	for (n = b->first; n; n = n->next) {
		for (i = 0; i < n->ninputs; i++)
			n->inputs[i] = repl(n->inputs[i]);
		if (depth < 200)
			for (i = 0; i < n->nblocks; i++)
				redirect(n->blocks[i], depth + 1);
	}
	for (i = 0; i < b->nreturns; i++)
		b->returns[i] = repl(b->returns[i]);
}

static void pool_constants(struct ir_graph *g)
{
	struct pool p = { NULL, 0, 0 };
	struct ir_node *anchor = g->top->first;

	clear_aux(g->top, 0);
	/* constants go before the first node of the graph, in order */
	while (anchor && anchor->op == OP_prim_Constant)
		anchor = anchor->next;
	pool_block(g, g->top, &p, &anchor, 0);
	redirect(g->top, 0);
	clear_aux(g->top, 0);
}

void script_passes(struct ir_graph *g)
{
	struct ir_weight *w, **pw;
	int round;

	for (round = 0; round < 8; round++) {
		int changed;

		clear_aux(g->top, 0);
		changed = fold_block(g, g->top, 0);
		for (w = g->weights; w; w = w->next)
			w->value->uses = 0;
		zero_uses_block(g->top, 0);
		count_uses_block(g->top, 0);
		changed += dce_block(g->top, 0);
		changed += dead_lists(g, g->top, 0);
		for (w = g->weights; w; w = w->next)
			w->value->uses = 0;
		zero_uses_block(g->top, 0);
		count_uses_block(g->top, 0);
		changed += script_fold_lists(g, g->top, 0);
		if (!changed)
			break;
	}
	pool_constants(g);
	for (w = g->weights; w; w = w->next)
		w->value->uses = 0;
	zero_uses_block(g->top, 0);
	count_uses_block(g->top, 0);
	g->nweights = 0;
	g->weights_tail = NULL;
	for (pw = &g->weights; *pw;) {
		if (!(*pw)->value->uses) {
			*pw = (*pw)->next;
			continue;
		}
		g->weights_tail = *pw;
		g->nweights++;
		pw = &(*pw)->next;
	}
}

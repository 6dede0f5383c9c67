/*
 * compile_stmt.c - statements of the script compiler: assignments (tuple
 * unpacking resolved statically where the tuple is known), if/else as
 * prim::If (folded when the condition is constant, a raising arm removed),
 * for-range and while as prim::Loop with the loop-carried variables that
 * exist before the loop, `with`, `assert` (dropped: its failure branch
 * raises), `return` at the end of a function.
 *
 * SSA: the environment maps names to compile-time values; an arm or a loop
 * body works on a copy, and the names that differ afterwards become the
 * node's outputs.  Fields of objects made before an if and set in its arms
 * are journaled per arm (struct objw), undone after it, and merged the
 * same way; in a loop body they are refused.  Assignments to attributes
 * set object fields or override module attributes (sc_module_set).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile_int.h"

static int assign_target(struct sc *c, const struct ts_expr *t,
			 struct cval *v, struct ts_loc loc)
{
	if (t->kind == TS_EXPR_NAME) {
		env_set(c, c->fr->env, t->u.name, v);
		return 0;
	}
	if (t->kind == TS_EXPR_ATTR) {
		struct cval *o = sc_expr(c, t->u.attr.obj);
		if (!o)
			return -1;
		if (o->kind == CV_OBJECT)
			return sc_obj_set(c, o, t->u.attr.name, v, loc);
		if (o->kind == CV_VALUE &&
		    o->v->type->kind == IR_TYPE_CLASS)
			return sc_obj_setattr(c, o->v, t->u.attr.name, v,
					      loc);
		if (o->kind == CV_MODULE) {
			/* `self._has_warned = True`: static from here on */
			sc_module_set(c, o->mod, t->u.attr.name, v);
			return 0;
		}
	}
	return sc_error(c, t->loc, EXIT_UNSUPPORTED, "unsupported construct: "
			"assignment to an attribute or subscript");
}

static int unpack(struct sc *c, struct ts_expr **targets, int n,
		  struct cval *v, struct ts_loc loc)
{
	int i;

	if (v->kind == CV_TUPLE) {
		if (v->n != n)
			return sc_error(c, loc, EXIT_BAD_INPUT, "unpacking %d "
					"values into %d names", v->n, n);
		for (i = 0; i < n; i++)
			if (assign_target(c, targets[i], v->items[i], loc))
				return -1;
		return 0;
	}
	if (v->kind == CV_VALUE && (v->v->type->kind == IR_TYPE_TUPLE ||
				    v->v->type->kind == IR_TYPE_LIST)) {
		int tuple = v->v->type->kind == IR_TYPE_TUPLE;
		struct ir_node *nd;
		if (tuple && (int)v->v->type->nelems != n)
			return sc_error(c, loc, EXIT_BAD_INPUT, "unpacking a "
					"tuple of %u into %d names",
					v->v->type->nelems, n);
		nd = sc_node(c, tuple ? OP_prim_TupleUnpack : OP_prim_ListUnpack,
			     1, n, loc);
		nd->inputs[0] = v->v;
		for (i = 0; i < n; i++) {
			nd->outputs[i]->type = ir_type_copy(c->g, tuple ?
				v->v->type->elems[i] : v->v->type->elems[0]);
			if (assign_target(c, targets[i],
					  cv_value(c, nd->outputs[i]), loc))
				return -1;
		}
		return 0;
	}
	return sc_error(c, loc, EXIT_UNSUPPORTED, "unsupported construct: "
			"unpacking a value that is not a tuple or list");
}

/* Names assigned anywhere in b (targets of assignments and loops). */
static void assigned_names(struct sc *c, const struct ts_block *b,
			   struct env *out, int depth)
{
	int i, k;

	if (depth > 256)
		return;
	for (i = 0; i < b->n; i++) {
		const struct ts_stmt *s = b->stmts[i];
		switch (s->kind) {
		case TS_STMT_ASSIGN:
			for (k = 0; k < s->u.assign.ntargets; k++)
				if (s->u.assign.targets[k]->kind == TS_EXPR_NAME)
					env_set(c, out,
						s->u.assign.targets[k]->u.name,
						NULL);
			break;
		case TS_STMT_AUGASSIGN:
			if (s->u.aug.target->kind == TS_EXPR_NAME)
				env_set(c, out, s->u.aug.target->u.name, NULL);
			break;
		case TS_STMT_IF:
			assigned_names(c, &s->u.if_.then, out, depth + 1);
			assigned_names(c, &s->u.if_.orelse, out, depth + 1);
			break;
		case TS_STMT_FOR:
			for (k = 0; k < s->u.for_.ntargets; k++)
				if (s->u.for_.targets[k]->kind == TS_EXPR_NAME)
					env_set(c, out,
						s->u.for_.targets[k]->u.name,
						NULL);
			assigned_names(c, &s->u.for_.body, out, depth + 1);
			break;
		case TS_STMT_WHILE:
			assigned_names(c, &s->u.while_.body, out, depth + 1);
			break;
		case TS_STMT_WITH:
			assigned_names(c, &s->u.with.body, out, depth + 1);
			break;
		default:
			break;
		}
	}
}

/* The more general of two types: equal parts kept, differing dims unknown,
 * differing ranks or kinds unknown. */
static struct ir_type *merge_types(struct sc *c, const struct ir_type *a,
				   const struct ir_type *b)
{
	struct ir_type *r;
	int i;

	if (ir_type_equal(a, b))
		return ir_type_copy(c->g, a);
	if (a->kind == IR_TYPE_TENSOR && b->kind == IR_TYPE_TENSOR) {
		r = ir_type_tensor(c->g, a->dtype == b->dtype ? a->dtype : 0,
				   a->rank == b->rank ? a->rank : -1, NULL);
		for (i = 0; r->rank > 0 && i < r->rank; i++) {
			if (a->dims[i].kind == b->dims[i].kind &&
			    a->dims[i].value == b->dims[i].value &&
			    (a->dims[i].kind != IR_DIM_SYMBOL ||
			     !strcmp(a->dims[i].symbol, b->dims[i].symbol)))
				r->dims[i] = a->dims[i];
		}
		return r;
	}
	if (a->kind == IR_TYPE_NONE && b->kind != IR_TYPE_NONE) {
		r = ir_type_new(c->g, IR_TYPE_OPTIONAL);
		r->nelems = 1;
		r->elems = ir_alloc(c->g, sizeof(*r->elems));
		r->elems[0] = ir_type_copy(c->g, b);
		return r;
	}
	if (b->kind == IR_TYPE_NONE && a->kind != IR_TYPE_NONE)
		return merge_types(c, b, a);
	if (a->kind == IR_TYPE_OPTIONAL && b->kind != IR_TYPE_OPTIONAL) {
		r = ir_type_new(c->g, IR_TYPE_OPTIONAL);
		r->nelems = 1;
		r->elems = ir_alloc(c->g, sizeof(*r->elems));
		r->elems[0] = merge_types(c, a->elems[0], b);
		return r;
	}
	if (b->kind == IR_TYPE_OPTIONAL && a->kind != IR_TYPE_OPTIONAL)
		return merge_types(c, b, a);
	if (a->kind == b->kind && a->nelems == b->nelems &&
	    (a->kind == IR_TYPE_TUPLE || a->kind == IR_TYPE_LIST ||
	     a->kind == IR_TYPE_OPTIONAL)) {
		/* element by element: (Tensor(2, 3), Tensor) and an
		 * uninitialized Tuple[Tensor, Tensor] */
		r = ir_type_new(c->g, a->kind);
		r->nelems = a->nelems;
		r->elems = ir_alloc(c->g, sizeof(*r->elems) *
				    (a->nelems ? a->nelems : 1));
		for (i = 0; i < (int)a->nelems; i++)
			r->elems[i] = merge_types(c, a->elems[i], b->elems[i]);
		return r;
	}
	if (a->kind == b->kind && a->kind != IR_TYPE_TUPLE &&
	    a->kind != IR_TYPE_CLASS && a->kind != IR_TYPE_LIST &&
	    a->kind != IR_TYPE_OPTIONAL && a->kind != IR_TYPE_DICT)
		return ir_type_copy(c->g, a);
	return ir_type_new(c->g, IR_TYPE_UNKNOWN);
}

static void move_nodes(struct ir_block *from, struct ir_block *to)
{
	struct ir_node *n, *next;

	for (n = from->first; n; n = next) {
		next = n->next;
		ir_node_unlink(n);
		ir_block_append(to, n);
	}
}

static struct ir_block *attach_block(struct sc *c, struct ir_node *n,
				     struct ir_block *b)
{
	struct ir_block *nb = ir_node_add_block(c->g, n);

	move_nodes(b, nb);
	sc_block_moved(c, b, nb);
	nb->params = b->params;
	nb->nparams = b->nparams;
	return nb;
}

/* Sets o's field name back to v (NULL: unset), without journaling. */
static void obj_restore(struct cval *o, const char *name, struct cval *v)
{
	int i;

	for (i = 0; i < o->n; i++)
		if (!strcmp(o->names[i], name)) {
			if (v) {
				o->items[i] = v;
			} else {
				o->items[i] = o->items[o->n - 1];
				o->names[i] = o->names[o->n - 1];
				o->n--;
			}
			return;
		}
}

/* Compiles b into a fresh block with env e; sets *raised, and *log to
 * the fields of outer objects the arm set (their values as the arm left
 * them in nv; the objects themselves back as they were before). */
static struct ir_block *arm(struct sc *c, const struct ts_block *b,
			    struct env *e, int *raised, struct objw **log)
{
	struct ir_block *saved_blk = c->blk, *nb = ir_block_new(c->g);
	struct env *saved_env = c->fr->env;
	struct objw **saved_log = c->objlog, *w;
	int saved_raised = c->raised;

	*log = NULL;
	c->objlog = log;
	c->blk = nb;
	c->fr->env = e;
	c->raised = 0;
	if (b->n)
		sc_block(c, b);
	*raised = c->raised;
	c->raised = saved_raised;
	c->blk = saved_blk;
	c->fr->env = saved_env;
	c->objlog = saved_log;
	for (w = *log; w; w = w->next) {
		w->nv = sc_obj_get(w->o, w->name);
		obj_restore(w->o, w->name, w->old);
	}
	return nb;
}

/* The value arm log l left in field name of o, or its value before. */
static struct cval *arm_field(struct objw *l, struct cval *o,
			      const char *name)
{
	for (; l; l = l->next)
		if (l->o == o && !strcmp(l->name, name))
			return l->nv;
	return sc_obj_get(o, name);
}

/* Replays an arm's field writes in the current block. */
static int replay(struct sc *c, struct objw *l, struct ts_loc loc)
{
	for (; l; l = l->next)
		if (l->nv && sc_obj_set(c, l->o, l->name, l->nv, loc))
			return -1;
	return 0;
}

static int if_stmt(struct sc *c, const struct ts_stmt *s)
{
	struct cval *cond = sc_expr(c, s->u.if_.cond);
	struct ir_value *cv;
	struct env *e0, *e1, *e2;
	struct ir_block *b1, *b2;
	struct ir_node *n;
	int r1, r2, i, nout = 0;
	int64_t k;
	const char **names;
	struct ir_value **v1, **v2;
	struct objw *l1, *l2, *w, **fw;
	int nw = 0;

	if (!cond)
		return -1;
	if (cond->kind != CV_VALUE)
		return sc_block(c, &s->u.if_.then);
	cv = cond->v;
	if (script_const_int(cv, &k) || script_const_none(cv)) {
		if (script_const_none(cv))
			k = 0;
		if (k)
			return sc_block(c, &s->u.if_.then);
		return s->u.if_.orelse.n ? sc_block(c, &s->u.if_.orelse) : 0;
	}
	if (cv->type->kind != IR_TYPE_BOOL) {
		struct ir_node *bn = sc_node(c, OP_aten_Bool, 1, 1, s->loc);
		bn->inputs[0] = cv;
		bn->outputs[0]->type = ir_type_new(c->g, IR_TYPE_BOOL);
		cv = bn->outputs[0];
	}
	e0 = c->fr->env;
	e1 = env_copy(c, e0);
	e2 = env_copy(c, e0);
	b1 = arm(c, &s->u.if_.then, e1, &r1, &l1);
	if (c->err)
		return -1;
	b2 = arm(c, &s->u.if_.orelse, e2, &r2, &l2);
	if (c->err)
		return -1;
	if (r1 && r2) {
		move_nodes(b1, c->blk);
		sc_block_moved(c, b1, c->blk);
		c->raised = 1;
		return 0;
	}
	if (r1 || r2) {
		move_nodes(r1 ? b2 : b1, c->blk);
		sc_block_moved(c, r1 ? b2 : b1, c->blk);
		*e0 = *(r1 ? e2 : e1); /* callers hold e0 */
		c->fr->env = e0;
		return replay(c, r1 ? l2 : l1, s->loc);
	}
	for (w = l1; w; w = w->next)
		nw++;
	for (w = l2; w; w = w->next)
		nw++;
	fw = ir_alloc(c->g, sizeof(*fw) * (e1->n + nw + 1));
	names = ir_alloc(c->g, sizeof(*names) * (e1->n + nw + 1));
	v1 = ir_alloc(c->g, sizeof(*v1) * (e1->n + nw + 1));
	v2 = ir_alloc(c->g, sizeof(*v2) * (e1->n + nw + 1));
	/* fields of outer objects set in either arm: merged as names are */
	for (k = 0; k < 2; k++)
		for (w = k ? l2 : l1; w; w = w->next) {
			struct cval *a = arm_field(l1, w->o, w->name);
			struct cval *b = arm_field(l2, w->o, w->name);
			struct ir_block *saved = c->blk;
			int j, dup = 0;

			for (j = 0; j < nout; j++)
				dup |= fw[j] && fw[j]->o == w->o &&
				       !strcmp(fw[j]->name, w->name);
			if (dup)
				continue;
			if (!a || !b)
				return sc_error(c, s->loc, EXIT_UNSUPPORTED,
						"unsupported construct: field "
						"'%s' of an object of '%s' set "
						"in one arm of an if only",
						w->name, w->o->qual);
			if (a == b || (a->kind == CV_VALUE &&
				       b->kind == CV_VALUE && a->v == b->v)) {
				if (sc_obj_set(c, w->o, w->name, a, s->loc))
					return -1;
				continue;
			}
			c->blk = b1;
			v1[nout] = sc_to_value(c, a, s->loc);
			c->blk = b2;
			v2[nout] = sc_to_value(c, b, s->loc);
			c->blk = saved;
			if (!v1[nout] || !v2[nout])
				return -1;
			fw[nout] = w;
			names[nout++] = NULL;
		}
	for (i = 0; i < e1->n; i++) {
		struct cval *a = e1->b[i].cv, *b = env_get(e2, e1->b[i].name);
		struct ir_block *saved = c->blk;
		if (!b)
			continue;
		if (a == b || (a->kind == CV_VALUE && b->kind == CV_VALUE &&
			       a->v == b->v)) {
			env_set(c, e0, e1->b[i].name, a);
			continue;
		}
		if (a->kind == CV_MODULE || b->kind == CV_MODULE ||
		    a->kind == CV_FUNC || b->kind == CV_FUNC ||
		    a->kind == CV_OBJECT || b->kind == CV_OBJECT) {
			if (a->kind == b->kind && a->kind != CV_OBJECT &&
			    a->mod == b->mod && a->qual == b->qual)
				env_set(c, e0, e1->b[i].name, a);
			/* else the name is not usable after the if */
			continue;
		}
		c->blk = b1;
		v1[nout] = sc_to_value(c, a, s->loc);
		c->blk = b2;
		v2[nout] = sc_to_value(c, b, s->loc);
		c->blk = saved;
		if (!v1[nout] || !v2[nout])
			return -1;
		fw[nout] = NULL;
		names[nout++] = e1->b[i].name;
	}
	n = sc_node(c, OP_prim_If, 1, nout, s->loc);
	n->inputs[0] = cv;
	b1 = attach_block(c, n, b1);
	b2 = attach_block(c, n, b2);
	for (i = 0; i < nout; i++) {
		int64_t k1, k2;
		struct cval *r = NULL;

		ir_block_add_return(c->g, b1, v1[i]);
		ir_block_add_return(c->g, b2, v2[i]);
		n->outputs[i]->type = merge_types(c, v1[i]->type, v2[i]->type);
		if (script_const_int(v1[i], &k1) &&
		    script_const_int(v2[i], &k2) && k1 == k2 &&
		    v1[i]->type->kind == v2[i]->type->kind)
			/* both arms give the same constant (interpolate's
			 * `dim == 4 and mode == "bicubic"`): the name is that
			 * constant, so that what tests it folds now, as
			 * torch's constant propagation folds it */
			r = cv_value(c, v1[i]->type->kind == IR_TYPE_BOOL ?
				     sc_const_bool(c, (int)k1, s->loc) :
				     sc_const_int(c, k1, s->loc));
		else
			r = cv_value(c, n->outputs[i]);
		if (names[i])
			env_set(c, e0, names[i], r);
		else if (sc_obj_set(c, fw[i]->o, fw[i]->name, r, s->loc))
			return -1;
	}
	c->fr->env = e0;
	return 0;
}

/* for i in range(n) / while cond: a prim::Loop. */
static int loop_stmt(struct sc *c, const struct ts_stmt *s)
{
	int is_for = s->kind == TS_STMT_FOR;
	const struct ts_block *body = is_for ? &s->u.for_.body :
		&s->u.while_.body;
	struct env *names = env_new(c), *e0 = c->fr->env, *eb;
	struct ir_value *trip, *cond0, **init, *condv;
	struct ir_type **types;
	struct ir_block *b = NULL;
	struct ir_node *n;
	const char **carried;
	int ncar = 0, i, attempt, raised;
	int64_t k;

	if (is_for) {
		const struct ts_expr *it = s->u.for_.iter;
		struct cval *tv;
		if (s->u.for_.ntargets != 1 ||
		    s->u.for_.targets[0]->kind != TS_EXPR_NAME)
			return sc_error(c, s->loc, EXIT_UNSUPPORTED,
					"unsupported construct: for with "
					"several targets");
		if (it->kind != TS_EXPR_CALL ||
		    it->u.call.fn->kind != TS_EXPR_NAME ||
		    strcmp(it->u.call.fn->u.name, "range") ||
		    it->u.call.nargs != 1 || it->u.call.nkwargs) {
			/* a static tuple: unrolled */
			tv = sc_expr(c, it);
			if (!tv)
				return -1;
			if (tv->kind != CV_TUPLE)
				return sc_error(c, s->loc, EXIT_UNSUPPORTED,
						"unsupported construct: for "
						"over something else than "
						"range(n) or a tuple");
			for (i = 0; i < tv->n && !c->err; i++) {
				env_set(c, c->fr->env,
					s->u.for_.targets[0]->u.name,
					tv->items[i]);
				sc_block(c, body);
			}
			return c->err ? -1 : 0;
		}
		trip = sc_expr_value(c, it->u.call.args[0]);
		if (!trip)
			return -1;
		if (script_const_int(trip, &k) && k <= 0)
			return 0;
		cond0 = sc_const_bool(c, 1, s->loc);
	} else {
		cond0 = sc_expr_value(c, s->u.while_.cond);
		if (!cond0)
			return -1;
		if (script_const_int(cond0, &k) && !k)
			return 0;
		trip = sc_const_int(c, INT64_MAX, s->loc);
	}
	assigned_names(c, body, names, 0);
	carried = ir_alloc(c->g, sizeof(*carried) * (names->n + 1));
	init = ir_alloc(c->g, sizeof(*init) * (names->n + 1));
	types = ir_alloc(c->g, sizeof(*types) * (names->n + 1));
	for (i = 0; i < names->n; i++) {
		struct cval *cv = env_get(e0, names->b[i].name);
		if (!cv || cv->kind == CV_MODULE || cv->kind == CV_FUNC ||
		    cv->kind == CV_DICT || cv->kind == CV_OBJECT)
			continue; /* static: changes in the body are refused */
		if (!(init[ncar] = sc_to_value(c, cv, s->loc)))
			return -1;
		types[ncar] = init[ncar]->type;
		carried[ncar++] = names->b[i].name;
	}
	/* again when a carried type widened, or an object became a value
	 * in the body (reads before that in the body were static) */
	for (attempt = 0; attempt < 4; attempt++) {
		struct ir_block *saved = c->blk;
		uint32_t saved_mark = c->loop_mark;
		struct objw **saved_log = c->objlog;
		int again = 0, conv0 = c->nobjconv;

		c->loop_mark = c->g->next_id;
		c->objlog = NULL;
		b = ir_block_new(c->g);
		eb = env_copy(c, e0);
		{
			struct ir_value *iv = ir_value_new(c->g, NULL,
				ir_type_new(c->g, IR_TYPE_INT));
			ir_block_add_param(c->g, b, iv);
			if (is_for)
				env_set(c, eb, s->u.for_.targets[0]->u.name,
					cv_value(c, iv));
		}
		for (i = 0; i < ncar; i++) {
			struct ir_value *p = ir_value_new(c->g, NULL,
				ir_type_copy(c->g, types[i]));
			ir_block_add_param(c->g, b, p);
			env_set(c, eb, carried[i], cv_value(c, p));
		}
		c->blk = b;
		c->fr->env = eb;
		raised = c->raised;
		sc_block(c, body);
		c->raised = raised;
		c->loop_mark = saved_mark;
		c->objlog = saved_log;
		if (c->nobjconv != conv0)
			again = 1;
		if (c->err) {
			c->blk = saved;
			c->fr->env = e0;
			return -1;
		}
		condv = is_for ? sc_const_bool(c, 1, s->loc) :
			sc_expr_value(c, s->u.while_.cond);
		if (!condv) {
			c->blk = saved;
			c->fr->env = e0;
			return -1;
		}
		ir_block_add_return(c->g, b, condv);
		for (i = 0; i < ncar; i++) {
			struct ir_value *rv = sc_to_value(c, env_get(eb,
							carried[i]), s->loc);
			if (!rv) {
				c->blk = saved;
				c->fr->env = e0;
				return -1;
			}
			ir_block_add_return(c->g, b, rv);
			if (!ir_type_equal(rv->type, types[i])) {
				types[i] = merge_types(c, types[i], rv->type);
				again = 1;
			}
		}
		c->blk = saved;
		c->fr->env = e0;
		if (!again)
			break;
	}
	n = sc_node(c, OP_prim_Loop, 2 + ncar, ncar, s->loc);
	n->inputs[0] = trip;
	n->inputs[1] = cond0;
	{
		struct ir_block *nb = attach_block(c, n, b);
		nb->returns = b->returns;
		nb->nreturns = b->nreturns;
	}
	for (i = 0; i < ncar; i++) {
		n->inputs[2 + i] = init[i];
		n->outputs[i]->type = ir_type_copy(c->g, types[i]);
		env_set(c, e0, carried[i], cv_value(c, n->outputs[i]));
	}
	return 0;
}

static int stmt(struct sc *c, const struct ts_stmt *s)
{
	struct cval *v;
	int i;

	switch (s->kind) {
	case TS_STMT_EXPR:
		return sc_expr(c, s->u.expr) ? 0 : -1;
	case TS_STMT_ASSIGN:
		if (!s->u.assign.value)
			return 0;
		v = sc_expr(c, s->u.assign.value);
		if (!v)
			return -1;
		if (s->u.assign.unpack)
			return unpack(c, s->u.assign.targets,
				      s->u.assign.ntargets, v, s->loc);
		if (s->u.assign.ntargets != 1)
			return sc_error(c, s->loc, EXIT_UNSUPPORTED,
					"unsupported construct: chained "
					"assignment");
		return assign_target(c, s->u.assign.targets[0], v, s->loc);
	case TS_STMT_AUGASSIGN:
		return sc_error(c, s->loc, EXIT_UNSUPPORTED, "unsupported "
				"construct: augmented assignment '%s='",
				ts_op_str(s->u.aug.op));
	case TS_STMT_IF:
		return if_stmt(c, s);
	case TS_STMT_FOR:
	case TS_STMT_WHILE:
		return loop_stmt(c, s);
	case TS_STMT_WITH:
		if (s->u.with.target)
			return sc_error(c, s->loc, EXIT_UNSUPPORTED,
					"unsupported construct: 'with ... as'");
		return sc_block(c, &s->u.with.body);
	case TS_STMT_RETURN:
		if (c->blk != c->fr->entry)
			return sc_error(c, s->loc, EXIT_UNSUPPORTED,
					"unsupported construct: return inside "
					"a block");
		c->retval = s->u.value ? sc_expr(c, s->u.value) :
			cv_value(c, sc_const_none(c, s->loc));
		c->returned = 1;
		return c->retval ? 0 : -1;
	case TS_STMT_RAISE: {
		struct ir_node *n = sc_node(c, OP_prim_RaiseException, 0, 0,
					    s->loc);
		(void)n;
		c->raised = 1;
		return 0;
	}
	case TS_STMT_ASSERT:
	case TS_STMT_PASS:
		return 0;
	case TS_STMT_BREAK:
	case TS_STMT_CONTINUE:
	case TS_STMT_DEF:
	default:
		(void)i;
		return sc_error(c, s->loc, EXIT_UNSUPPORTED, "unsupported "
				"construct: %s", s->kind == TS_STMT_BREAK ?
				"break" : s->kind == TS_STMT_CONTINUE ?
				"continue" : "nested def");
	}
}

int sc_block(struct sc *c, const struct ts_block *b)
{
	int i;

	if (c->rdepth >= SCRIPT_MAX_RECURSION)
		return sc_error(c, b->n ? b->stmts[0]->loc : (struct ts_loc){0, 0},
				EXIT_UNSUPPORTED, "unsupported construct: code "
				"nested deeper than %d levels (inlined calls "
				"included)", SCRIPT_MAX_RECURSION);
	c->rdepth++;
	for (i = 0; i < b->n; i++) {
		if (c->err)
			break;
		if (c->raised || c->returned)
			break;
		if (stmt(c, b->stmts[i]))
			break;
	}
	c->rdepth--;
	return c->err ? -1 : 0;
}

/*
 * upgraders.c - torch's operator upgraders for archives older than the
 * current semantics of an operator, as a pass over the compiled aten graph
 * (script_upgrade), so that `lower` and `trace` see only current ops.
 *
 * torch.jit.load reads an archive's `version` record and, for every node
 * whose operator overload changed meaning after that version, substitutes
 * an "upgrader" written in TorchScript.  torch 1.13's table (its
 * torch/csrc/jit/operator_upgraders/version_map.cpp and
 * upgraders_entry.cpp; the same table is what torch 1.13's
 * torch._C._get_operator_version_map() and _generate_upgraders_graph()
 * return), with the versions it applies to:
 *
 *   div.Tensor, div_.Tensor, div.out     0-3  true division when self,
 *                                             other (or out) is floating,
 *                                             else rounding_mode 'trunc'
 *   div.Scalar, div_.Scalar              0-3  the same, a Python float
 *                                             scalar counting as floating
 *   div.*_mode, div_.*_mode, div.out_mode 0-3 unchanged (the current op)
 *   full                                 0-4  dtype None: the fill value
 *                                             becomes a float first
 *   full.names, full.out                 0-4  unchanged
 *   linspace, linspace.out               0-7  steps None means 100
 *   logspace, logspace.out               0-8  steps None means 100
 *   gelu, gelu.out                       0-9  approximate='none'
 *
 * The overload of a node is told from its inputs (the IR names the op, not
 * the overload): the number of inputs and whether they are tensors,
 * numbers, strings or None.  Where the float-ness of div's operands is
 * known from their types, the node is rewritten in place (a 'trunc'
 * constant added, or nothing); where it is not, the node becomes torch's
 * upgrader graph: a prim::If on aten::is_floating_point (prim::isinstance
 * for a scalar of unknown type) whose arms are the two current calls.
 * full's fill value goes through aten::Float, folded when constant.
 * (`lower` has no aten::is_floating_point: the If form converts through
 * `trace`, which resolves it, or not at all.)
 *
 * torch writes the lowest version the ops of a model need (3 when it has
 * none of these), so its own archives never hold a node this pass changes:
 * only archives of older torch releases, or rewritten ones, do.
 *
 * linspace/logspace calls without steps, as old archives print them, do not
 * bind to torch 1.13's schemas, where steps is required:
 * script_upgrade_missing_arg gives the compiler the value to pass instead
 * (what the upgrader makes of the old default, None).  Not handled: a dtype
 * or steps that is an Optional known only at run time (left as it is).
 *
 * Costs: one walk over the nodes, nested blocks included.
 */
#include <string.h>

#include "compile.h"

struct ir_value *script_fold_node(struct ir_graph *g, struct ir_node *n);

/* The first archive version at which each operator has its current
 * meaning: nodes from older archives are upgraded. */
#define UPG_DIV_BUMP 4
#define UPG_FULL_BUMP 5
#define UPG_LINSPACE_BUMP 8
#define UPG_LOGSPACE_BUMP 9
#define UPG_GELU_BUMP 10

static int vkind(const struct ir_value *v)
{
	return v ? (int)v->type->kind : IR_TYPE_UNKNOWN;
}

/* is_floating_point of a tensor: 1, 0, or -1 when its dtype is unknown. */
static int tensor_floating(const struct ir_value *v)
{
	switch (v->type->dtype) {
	case IR_DTYPE_UNDEFINED:
		return -1;
	case IR_DTYPE_FLOAT:
	case IR_DTYPE_DOUBLE:
	case IR_DTYPE_FLOAT16:
	case IR_DTYPE_BFLOAT16:
		return 1;
	default:
		return 0;
	}
}

/* isinstance(v, float) of a Scalar: 1, 0, or -1 when not known. */
static int scalar_floating(const struct ir_value *v)
{
	switch (vkind(v)) {
	case IR_TYPE_FLOAT:
		return 1;
	case IR_TYPE_INT:
	case IR_TYPE_BOOL:
		return 0;
	default:
		return -1;
	}
}

/* Three-valued or. */
static int or3(int a, int b)
{
	if (a == 1 || b == 1)
		return 1;
	return a < 0 || b < 0 ? -1 : 0;
}

static struct ir_node *new_before(struct ir_graph *g, struct ir_node *at,
				  enum aten_op op, uint32_t nin,
				  enum ir_type_kind out)
{
	struct ir_node *c = ir_node_new(g, NULL, aten_op_name(op), nin, 1);

	ir_node_set_output(c, 0, ir_value_new(g, NULL, ir_type_new(g, out)));
	c->scope = at->scope;
	c->source = at->source;
	ir_block_insert_before(at, c);
	return c;
}

static struct ir_value *const_str(struct ir_graph *g, struct ir_node *at,
				  const char *s)
{
	struct ir_node *c = new_before(g, at, OP_prim_Constant, 0,
				       IR_TYPE_STR);
	struct ir_attr *a = ir_node_add_attr(g, c, "value", IR_ATTR_STRING);

	a->u.s.data = ir_strdup(g, s);
	a->u.s.len = strlen(s);
	return c->outputs[0];
}

static struct ir_value *const_int(struct ir_graph *g, struct ir_node *at,
				  int64_t v)
{
	struct ir_node *c = new_before(g, at, OP_prim_Constant, 0,
				       IR_TYPE_INT);

	ir_node_add_attr(g, c, "value", IR_ATTR_INT)->u.i = v;
	return c->outputs[0];
}

/* Inserts v as input `at` of n, the later inputs moving up one. */
static void insert_input(struct ir_graph *g, struct ir_node *n, uint32_t at,
			 struct ir_value *v)
{
	struct ir_value **in = ir_alloc(g, sizeof(*in) * (n->ninputs + 1));
	uint32_t i;

	for (i = 0; i < at; i++)
		in[i] = n->inputs[i];
	in[at] = v;
	for (i = at; i < n->ninputs; i++)
		in[i + 1] = n->inputs[i];
	n->inputs = in;
	n->ninputs++;
}

/* The output's type with the dtype forgotten (shape kept), then inferred
 * again from the new inputs; integer trunc division keeps the operands'
 * dtype when they agree. */
static void retype_div(struct ir_graph *g, struct ir_node *n, int trunc)
{
	struct ir_value *o = n->outputs[0], *a = n->inputs[0];
	const struct ir_value *b = n->inputs[1];

	if (o->type->kind != IR_TYPE_TENSOR)
		return;
	o->type = ir_type_copy(g, o->type);
	o->type->dtype = IR_DTYPE_UNDEFINED;
	script_infer_node(g, n);
	if (!trunc || o->type->kind != IR_TYPE_TENSOR ||
	    tensor_floating(a) != 0 || a->type->dtype == IR_DTYPE_BOOL)
		return;
	if ((vkind(b) == IR_TYPE_TENSOR && b->type->dtype == a->type->dtype) ||
	    vkind(b) == IR_TYPE_INT)
		o->type->dtype = a->type->dtype;
}

/* The condition `self.is_floating_point() or other... ` of the upgrader
 * for the operands whose float-ness is not known (ops[i] with known[i] <
 * 0), as a bool value computed before n. */
static struct ir_value *float_cond(struct ir_graph *g, struct ir_node *n,
				   struct ir_value **ops, const int *known,
				   int nops)
{
	struct ir_value *cond = NULL;
	int i;

	for (i = 0; i < nops; i++) {
		struct ir_node *t;
		if (known[i] >= 0)
			continue;
		if (vkind(ops[i]) == IR_TYPE_TENSOR) {
			t = new_before(g, n, OP_aten_is_floating_point, 1,
				       IR_TYPE_BOOL);
		} else {
			struct ir_attr *a;
			t = new_before(g, n, OP_prim_isinstance, 1,
				       IR_TYPE_BOOL);
			a = ir_node_add_attr(g, t, "types", IR_ATTR_STRINGS);
			a->count = 1;
			a->u.strings = ir_alloc(g, sizeof(*a->u.strings));
			a->u.strings[0].data = ir_strdup(g, "float");
			a->u.strings[0].len = 5;
		}
		t->inputs[0] = ops[i];
		if (cond) {
			struct ir_node *o = new_before(g, n, OP_aten___or__, 2,
						       IR_TYPE_BOOL);
			o->inputs[0] = cond;
			o->inputs[1] = t->outputs[0];
			cond = o->outputs[0];
		} else
			cond = t->outputs[0];
	}
	return cond;
}

/* A copy of div node n appended to block b, with 'trunc' inserted at input
 * `at` when trunc is set; returns its output. */
static struct ir_value *div_arm(struct ir_graph *g, struct ir_block *b,
				const struct ir_node *n, struct ir_value *mode,
				uint32_t at)
{
	struct ir_node *d = ir_node_new(g, b, n->kind, n->ninputs, 1);
	struct ir_type *t;
	uint32_t i;

	for (i = 0; i < n->ninputs; i++)
		d->inputs[i] = n->inputs[i];
	d->scope = n->scope;
	d->source = n->source;
	t = ir_type_copy(g, n->outputs[0]->type);
	ir_node_set_output(d, 0, ir_value_new(g, NULL, t));
	if (mode) {
		insert_input(g, d, at, mode);
		retype_div(g, d, 1);
	}
	ir_block_add_return(g, b, d->outputs[0]);
	return d->outputs[0];
}

/* aten::div / aten::div_ of an archive older than version 4.  Returns 1
 * when the graph changed. */
static int upgrade_div(struct ir_graph *g, struct ir_node *n)
{
	struct ir_value *ops[3];
	int known[3], fl, nops = 2, i;
	struct ir_value *mode, *cond;
	struct ir_node *ifn;
	struct ir_type *t;

	if (n->ninputs < 2 || n->noutputs != 1 || !n->inputs[1] ||
	    vkind(n->inputs[0]) != IR_TYPE_TENSOR)
		return 0; /* div.int, div.float, div(Scalar, Scalar)... */
	if (n->ninputs == 3 && vkind(n->inputs[2]) != IR_TYPE_TENSOR)
		return 0; /* div.Tensor_mode, div.Scalar_mode: unchanged */
	if (n->ninputs > 3)
		return 0; /* div.out_mode: unchanged */
	ops[0] = n->inputs[0];
	ops[1] = n->inputs[1];
	known[0] = tensor_floating(ops[0]);
	if (vkind(ops[1]) == IR_TYPE_TENSOR)
		known[1] = tensor_floating(ops[1]);
	else
		known[1] = scalar_floating(ops[1]);
	if (n->ninputs == 3) { /* div.out: out counts too */
		ops[2] = n->inputs[2];
		known[2] = tensor_floating(ops[2]);
		nops = 3;
	}
	for (fl = 0, i = 0; i < nops; i++)
		fl = or3(fl, known[i]);
	if (fl == 1)
		return 0; /* true division, as now */
	mode = const_str(g, n, "trunc");
	if (fl == 0) {
		insert_input(g, n, 2, mode);
		retype_div(g, n, 1);
		return 1;
	}
	/* not known before run time: torch's upgrader graph */
	cond = float_cond(g, n, ops, known, nops);
	ifn = ir_node_new(g, NULL, aten_op_name(OP_prim_If), 1, 1);
	ifn->inputs[0] = cond;
	ifn->scope = n->scope;
	ifn->source = n->source;
	ir_block_insert_before(n, ifn);
	ir_node_unlink(n);
	div_arm(g, ir_node_add_block(g, ifn), n, NULL, 2);
	div_arm(g, ir_node_add_block(g, ifn), n, mode, 2);
	t = n->outputs[0]->type;
	if (t->kind == IR_TYPE_TENSOR) {
		t = ir_type_copy(g, t);
		t->dtype = IR_DTYPE_UNDEFINED;
		n->outputs[0]->type = t;
	}
	ir_node_set_output(ifn, 0, n->outputs[0]); /* n is unlinked */
	return 1;
}

/* aten::full(size, fill_value, dtype, layout, device, pin_memory) of an
 * archive older than version 5: with dtype None, float(fill_value). */
static int upgrade_full(struct ir_graph *g, struct ir_node *n)
{
	struct ir_node *f;
	struct ir_value *v;

	if (n->ninputs != 6 || !n->inputs[1] ||
	    vkind(n->inputs[2]) != IR_TYPE_NONE ||
	    vkind(n->inputs[1]) == IR_TYPE_FLOAT ||
	    vkind(n->inputs[1]) == IR_TYPE_TENSOR)
		return 0; /* full.names, full.out, a dtype, a float fill */
	f = new_before(g, n, OP_aten_Float, 1, IR_TYPE_FLOAT);
	f->inputs[0] = n->inputs[1];
	v = script_fold_node(g, f);
	n->inputs[1] = v ? v : f->outputs[0];
	if (n->outputs[0]->type->kind == IR_TYPE_TENSOR) {
		n->outputs[0]->type = ir_type_copy(g, n->outputs[0]->type);
		n->outputs[0]->type->dtype = IR_DTYPE_UNDEFINED;
	}
	script_infer_node(g, n);
	return 1;
}

/* aten::linspace / aten::logspace (and .out) with steps None: 100. */
static int upgrade_steps(struct ir_graph *g, struct ir_node *n)
{
	if (n->ninputs < 3 || vkind(n->inputs[2]) != IR_TYPE_NONE)
		return 0;
	n->inputs[2] = const_int(g, n, 100);
	script_infer_node(g, n);
	return 1;
}

/* aten::gelu(self) and gelu.out(self, out): approximate='none'. */
static int upgrade_gelu(struct ir_graph *g, struct ir_node *n)
{
	if (n->ninputs == 1 ||
	    (n->ninputs == 2 && vkind(n->inputs[1]) == IR_TYPE_TENSOR)) {
		insert_input(g, n, 1, const_str(g, n, "none"));
		return 1;
	}
	return 0;
}

static int upgrade_block(struct ir_graph *g, struct ir_block *b,
			 int64_t version, int depth)
{
	struct ir_node *n, *next;
	int changed = 0;
	uint32_t i;

	if (depth > 256)
		return 0; /* the IR nests no deeper */
	for (n = b->first; n; n = next) {
		enum aten_op k = n->op;
		next = n->next;
		for (i = 0; i < n->nblocks; i++)
			changed += upgrade_block(g, n->blocks[i], version,
						 depth + 1);
		if ((k == OP_aten_div || k == OP_aten_div_) &&
		    version < UPG_DIV_BUMP)
			changed += upgrade_div(g, n);
		else if (k == OP_aten_full && version < UPG_FULL_BUMP)
			changed += upgrade_full(g, n);
		else if ((k == OP_aten_linspace &&
			  version < UPG_LINSPACE_BUMP) ||
			 (k == OP_aten_logspace &&
			  version < UPG_LOGSPACE_BUMP))
			changed += upgrade_steps(g, n);
		else if (k == OP_aten_gelu && version < UPG_GELU_BUMP)
			changed += upgrade_gelu(g, n);
	}
	return changed;
}

int script_upgrade_missing_arg(enum aten_op op, const char *arg,
			       int64_t archive_version, int64_t *value)
{
	if (strcmp(arg, "steps") ||
	    !((op == OP_aten_linspace &&
	       archive_version < UPG_LINSPACE_BUMP) ||
	      (op == OP_aten_logspace &&
	       archive_version < UPG_LOGSPACE_BUMP)))
		return 0;
	*value = 100; /* None, as the upgraders read it */
	return 1;
}

void script_upgrade(struct ir_graph *g, int64_t archive_version)
{
	if (!g || archive_version >= UPG_GELU_BUMP)
		return; /* every operator has its current meaning */
	upgrade_block(g, g->top, archive_version, 0);
}

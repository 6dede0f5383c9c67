/*
 * input_check.c - lower's check that the tensors an aten op gets fit what
 * the op needs, where the types say so: the inner dims of linear and the
 * matmul family, a convolution's input channels and rank, and an integer
 * or bool tensor where torch needs floats (linear, conv, matmul with a
 * float operand).  torch raises on these; without the check the script
 * path wrote a model that passed onnx.checker and failed in ONNX Runtime
 * (an --input that does not fit the archive).  Only fixed dims are
 * compared: a symbolic or unknown dim is never refused.
 *
 * The error names the graph inputs the bad tensor is computed from, so
 * that the user sees which --input disagrees:
 *   input 'x' f32[3,17]: aten::linear at Net/Linear[fc] needs last dim 12
 *   (weight f32[5,12])
 */
#include <stdio.h>
#include <string.h>

#include "diag.h"
#include "lower_int.h"

#define SPEC_MAX 160
#define WALK_MAX 4096 /* producers followed to find the graph inputs */

static int is_param(const struct ir_graph *g, const struct ir_value *v)
{
	for (uint32_t i = 0; i < g->top->nparams; i++)
		if (g->top->params[i] == v)
			return 1;
	return 0;
}

/* Appends to buf the graph inputs (not weights) that v is computed from,
 * as "input 'x' f32[3,17]", comma-separated; uses ->uses as a visited
 * mark (free while lowering: count_uses starts from zero after it). */
static void inputs_of(const struct ir_graph *g, struct ir_value *v,
		      char *buf, size_t n, int *steps)
{
	char spec[SPEC_MAX];
	size_t k;

	if (!v || v->uses || ++*steps > WALK_MAX)
		return;
	v->uses = 1;
	if (!v->producer) {
		if (v->weight || !is_param(g, v))
			return;
		k = strlen(buf);
		if (k < n)
			snprintf(buf + k, n - k, "%sinput '%s' %s", k ? ", " : "",
				 v->name, ir_type_spec(v->type, spec,
						       sizeof(spec)));
		return;
	}
	for (uint32_t i = 0; i < v->producer->ninputs; i++)
		inputs_of(g, v->producer->inputs[i], buf, n, steps);
}

/* Reports n's tensor input i as not fitting (what it needs, and the
 * other operand `other` for context); counts it as malformed. */
static int refuse(struct lower_ctx *c, struct ir_node *n, int i,
		  const char *needs, const char *what,
		  const struct ir_value *other)
{
	char from[512] = "", got[SPEC_MAX], oth[SPEC_MAX];
	int steps = 0;
	struct ir_value *v = n->inputs[i];

	inputs_of(c->g, v, from, sizeof(from), &steps);
	ir_type_spec(v->type, got, sizeof(got));
	if (other)
		ir_type_spec(other->type, oth, sizeof(oth));
	c->nmalformed++;
	/* the bad tensor is the input itself: its spec is in the prefix */
	int direct = !v->producer && is_param(c->g, v);
	diag_error(c->d, "%s%s%s%s%s needs %s%s%s%s%s%s%s", from,
		   *from ? ": " : "", n->kind, n->scope ? " at " : "",
		   n->scope ? n->scope : "", needs,
		   direct ? "" : ", got ", direct ? "" : got,
		   other ? " (" : "", other ? what : "",
		   other ? oth : "", other ? ")" : "");
	return -1;
}

static int fixed_dim(const struct ir_value *v, int axis, int64_t *d)
{
	const struct ir_type *t = v->type;
	if (t->kind != IR_TYPE_TENSOR || t->rank <= 0)
		return 0;
	if (axis < 0)
		axis += t->rank;
	if (axis < 0 || axis >= t->rank || t->dims[axis].kind != IR_DIM_FIXED)
		return 0;
	*d = t->dims[axis].value;
	return 1;
}

static int is_tensor(const struct ir_value *v)
{
	return v && v->type->kind == IR_TYPE_TENSOR;
}

static int is_intlike(enum ir_dtype dt)
{
	return dt != IR_DTYPE_UNDEFINED && !b_is_float(dt) &&
	       dt != IR_DTYPE_COMPLEX64 && dt != IR_DTYPE_COMPLEX128 &&
	       dt != IR_DTYPE_STRING;
}

/* torch raises on an integer (or bool) tensor x against a float weight w
 * (or other operand), and on two float dtypes when x is a graph input
 * (its dtype is the user's --input, exactly known) */
static int dtype_fits(struct lower_ctx *c, struct ir_node *n, int xi, int wi,
		      const char *what)
{
	const struct ir_value *x = n->inputs[xi], *w = n->inputs[wi];
	enum ir_dtype dx = b_dtype(x), dw = b_dtype(w);

	if (!is_tensor(x) || !is_tensor(w) || dx == IR_DTYPE_UNDEFINED ||
	    dw == IR_DTYPE_UNDEFINED || dx == dw)
		return 0;
	if ((is_intlike(dx) && b_is_float(dw)) ||
	    (b_is_float(dx) && b_is_float(dw) && !x->producer &&
	     is_param(c->g, x)))
		return refuse(c, n, xi, ir_dtype_spec_name(dw)
			      ? ir_dtype_spec_name(dw) : ir_dtype_torch_name(dw),
			      what, w);
	return 0;
}

/* a's last dim against b's contracted dim (rows; the only dim of a 1-d b) */
static int inner_fits(struct lower_ctx *c, struct ir_node *n, int ai, int bi,
		      int b_axis, const char *what)
{
	const struct ir_value *a = n->inputs[ai], *b = n->inputs[bi];
	int64_t ka, kb;
	char need[64];

	if (!is_tensor(a) || !is_tensor(b))
		return 0;
	if (a->type->rank == 0 || b->type->rank == 0) {
		snprintf(need, sizeof(need), "tensors of at least one dim");
		return refuse(c, n, a->type->rank ? bi : ai, need, what,
			      a->type->rank ? a : b);
	}
	if (b->type->rank == 1)
		b_axis = 0;
	if (!fixed_dim(a, -1, &ka) || !fixed_dim(b, b_axis, &kb) || ka == kb)
		return 0;
	snprintf(need, sizeof(need), "last dim %lld", (long long)kb);
	return refuse(c, n, ai, need, what, b);
}

/* conv: input rank (batched or not) and channels against the weight */
static int conv_fits(struct lower_ctx *c, struct ir_node *n, int gi,
		     int transposed)
{
	const struct ir_value *x = n->inputs[0], *w = n->inputs[1];
	int64_t groups = 1, cw, cx;
	char need[96];

	if (!is_tensor(x) || !is_tensor(w) || w->type->rank < 3 ||
	    x->type->rank < 0)
		return 0;
	int rw = w->type->rank, rx = x->type->rank;
	if (rx != rw && rx != rw - 1) {
		snprintf(need, sizeof(need), "a %d-d input (or %d-d unbatched)",
			 rw, rw - 1);
		return refuse(c, n, 0, need, "weight ", w);
	}
	if (gi >= 0 && (uint32_t)gi < n->ninputs &&
	    !lw_int(c, n, gi, &groups))
		return 0; /* groups not constant: channels not known */
	if (groups < 1 || !fixed_dim(w, transposed ? 0 : 1, &cw) ||
	    !fixed_dim(x, rx == rw ? 1 : 0, &cx))
		return 0;
	if (!transposed)
		cw *= groups;
	if (cx == cw)
		return 0;
	snprintf(need, sizeof(need), "%lld input channels (dim %d)",
		 (long long)cw, rx == rw ? 1 : 0);
	return refuse(c, n, 0, need, "weight ", w);
}

int lower_check_inputs(struct lower_ctx *c, struct ir_node *n)
{
	if (n->op == OP_aten_linear && n->ninputs >= 2)
		return dtype_fits(c, n, 0, 1, "weight ") ||
		       inner_fits(c, n, 0, 1, 1, "weight ");
	if ((n->op == OP_aten_matmul || n->op == OP_aten_mm ||
	     n->op == OP_aten_bmm) && n->ninputs >= 2) {
		/* the integer side is the one refused, else the left */
		int bad = n->inputs[1]->weight ? 0 :
			  is_tensor(n->inputs[0]) &&
			  is_intlike(b_dtype(n->inputs[0])) ? 0 : 1;
		const char *w = n->inputs[1 - bad]->weight ? "weight "
							     : "other operand ";
		for (int i = 0; n->op == OP_aten_bmm && i < 2; i++)
			if (is_tensor(n->inputs[i]) &&
			    n->inputs[i]->type->rank >= 0 &&
			    n->inputs[i]->type->rank != 3)
				return refuse(c, n, i, "3-d tensors", w,
					      n->inputs[1 - i]);
		return dtype_fits(c, n, bad, 1 - bad, w) ||
		       inner_fits(c, n, 0, 1, -2, n->inputs[1]->weight
				  ? "weight " : "other operand ");
	}
	if (n->op == OP_aten_addmm && n->ninputs >= 3)
		return dtype_fits(c, n, 1, 2, "weight ") ||
		       inner_fits(c, n, 1, 2, 0, "other operand ");
	if ((n->op == OP_aten_conv1d || n->op == OP_aten_conv2d ||
	     n->op == OP_aten_conv3d || n->op == OP_aten__convolution_mode) &&
	    n->ninputs >= 2)
		return dtype_fits(c, n, 0, 1, "weight ") ||
		       conv_fits(c, n, n->ninputs >= 7 ? 6 : -1, 0);
	if ((n->op == OP_aten_conv_transpose1d ||
	     n->op == OP_aten_conv_transpose2d ||
	     n->op == OP_aten_conv_transpose3d) && n->ninputs >= 2)
		return dtype_fits(c, n, 0, 1, "weight ") ||
		       conv_fits(c, n, n->ninputs >= 7 ? 6 : -1, 1);
	if ((n->op == OP_aten__convolution || n->op == OP_aten_convolution) &&
	    n->ninputs >= 9) {
		int64_t tr;
		if (!lw_int(c, n, 6, &tr))
			return 0;
		return dtype_fits(c, n, 0, 1, "weight ") ||
		       conv_fits(c, n, 8, (int)tr);
	}
	return 0;
}

/*
 * fold_static.c - folds what torch's freezing and constant propagation
 * settle for an eval-mode export, so that the checks torch's Python fast
 * paths (nn.MultiheadAttention, nn.TransformerEncoder) keep in a scripted
 * graph reduce to the branch an export takes:
 *
 *   - `a is b` / `a is not b`: None against None or a non-Optional value,
 *     a value against itself, two distinct tensors (graph inputs, weights,
 *     results of non-aliasing aten ops) as torch.onnx.export sees them;
 *   - prim::unchecked_cast of a value whose type is already known;
 *   - torch.is_grad_enabled() False (export runs under no_grad),
 *     is_autocast_enabled() False, prim::is_cuda/is_nested/... False
 *     (tensors on the CPU, not nested);
 *   - prim::dtype and is_floating_point of tensors of known dtype;
 *   - prim::device as the constant Device "cpu", str() of it, t.cpu() as
 *     t, and the string ops on constants: len, find, format, ==, !=;
 *   - `x in l` of constants, a list known element-wise (numbers or str);
 *   - all()/any() of a bool list whose elements are known, also a list
 *     built by appends in the same block (len() of such a list too).
 *
 * script_fold_static() is called by script_fold_node (passes.c), so it runs
 * while compiling (static conditions fold as they are emitted) and in the
 * clean-up passes.  Same contract: the replacement is inserted before n,
 * n is unlinked, the replacement value returned; NULL when nothing folds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile.h"

struct ir_value *script_fold_static(struct ir_graph *g, struct ir_node *n);

static struct ir_node *new_const_node(struct ir_graph *g, struct ir_node *at,
				      enum ir_type_kind k)
{
	struct ir_node *c = ir_node_new(g, NULL,
					aten_op_name(OP_prim_Constant), 0, 1);

	ir_node_set_output(c, 0, ir_value_new(g, NULL, ir_type_new(g, k)));
	c->scope = at->scope;
	c->source = at->source;
	ir_block_insert_before(at, c);
	return c;
}

static struct ir_value *const_intk(struct ir_graph *g, struct ir_node *at,
				   enum ir_type_kind k, int64_t v)
{
	struct ir_node *c = new_const_node(g, at, k);

	ir_node_add_attr(g, c, "value", IR_ATTR_INT)->u.i =
		k == IR_TYPE_BOOL ? v != 0 : v;
	return c->outputs[0];
}

static struct ir_value *const_strk(struct ir_graph *g, struct ir_node *at,
				   enum ir_type_kind k, const char *s,
				   size_t len)
{
	struct ir_node *c = new_const_node(g, at, k);
	struct ir_attr *a = ir_node_add_attr(g, c, "value", IR_ATTR_STRING);

	a->u.s.data = ir_strndup(g, s, len);
	a->u.s.len = len;
	return c->outputs[0];
}

/* A constant string (or Device) value: its bytes, else NULL. */
static const char *const_str(const struct ir_value *v, size_t *len,
			     enum ir_type_kind k)
{
	const struct ir_attr *a;

	if (!v || !v->producer || v->producer->op != OP_prim_Constant ||
	    v->type->kind != k)
		return NULL;
	a = ir_node_find_attr(v->producer, "value");
	if (!a || a->kind != IR_ATTR_STRING)
		return NULL;
	*len = a->u.s.len;
	return a->u.s.data ? a->u.s.data : "";
}

/* torch's ScalarType number of an IR dtype, -1 when it has none. */
static int torch_scalar_type(enum ir_dtype dt)
{
	switch (dt) {
	case IR_DTYPE_UINT8: return 0;
	case IR_DTYPE_INT8: return 1;
	case IR_DTYPE_INT16: return 2;
	case IR_DTYPE_INT32: return 3;
	case IR_DTYPE_INT64: return 4;
	case IR_DTYPE_FLOAT16: return 5;
	case IR_DTYPE_FLOAT: return 6;
	case IR_DTYPE_DOUBLE: return 7;
	case IR_DTYPE_COMPLEX64: return 9;
	case IR_DTYPE_COMPLEX128: return 10;
	case IR_DTYPE_BOOL: return 11;
	case IR_DTYPE_BFLOAT16: return 15;
	default: return -1;
	}
}

/* --- identity ------------------------------------------------------------ */

static const struct ir_value *strip_cast(const struct ir_value *v)
{
	int guard = 0;

	while (v && v->producer && guard++ < 64 &&
	       v->producer->op == OP_prim_unchecked_cast &&
	       v->producer->ninputs == 1)
		v = v->producer->inputs[0];
	return v;
}

static int is_graph_input(const struct ir_graph *g, const struct ir_value *v)
{
	uint32_t i;

	for (i = 0; i < g->top->nparams; i++)
		if (g->top->params[i] == v)
			return 1;
	return 0;
}

/* 1 when v is a tensor object of its own: a graph input, a weight, or the
 * result of an aten op that never returns one of its inputs. */
static int fresh_tensor(const struct ir_graph *g, const struct ir_value *v)
{
	const char *k;
	size_t len;

	if (v->type->kind != IR_TYPE_TENSOR)
		return 0;
	if (v->weight)
		return 1;
	if (!v->producer)
		return is_graph_input(g, v);
	k = v->producer->kind;
	len = strlen(k);
	if (strncmp(k, "aten::", 6) || k[len - 1] == '_')
		return 0;
	return !ATEN_ONE_OF(v->producer->op, OP_aten_contiguous, OP_aten_to,
			    OP_aten_type_as, OP_aten___getitem__,
			    OP_aten_alias, OP_aten_detach, OP_aten_view_as,
			    OP_aten_reshape_as, OP_aten_expand_as,
			    OP_aten_clone);
}

/* 1 identical, 0 distinct, -1 unknown. */
static int identical(const struct ir_graph *g, const struct ir_value *a,
		     const struct ir_value *b)
{
	enum ir_type_kind ka, kb;

	a = strip_cast(a);
	b = strip_cast(b);
	if (!a || !b)
		return -1;
	if (a == b)
		return 1;
	ka = a->type->kind;
	kb = b->type->kind;
	if (ka == IR_TYPE_NONE && kb == IR_TYPE_NONE)
		return 1;
	if (ka == IR_TYPE_NONE || kb == IR_TYPE_NONE) {
		enum ir_type_kind o = ka == IR_TYPE_NONE ? kb : ka;
		return o == IR_TYPE_UNKNOWN || o == IR_TYPE_OPTIONAL ||
		       o == IR_TYPE_CLASS ? -1 : 0;
	}
	if (fresh_tensor(g, a) && fresh_tensor(g, b))
		return 0;
	return -1;
}

/* --- lists built by appends ---------------------------------------------- */

/* The elements of list l as seen by node n: l a prim::ListConstruct in n's
 * block, changed between there and n only by aten::append nodes of that
 * block.  Returns the count (elements in out[0..max)), -1 when unknown. */

static int uses_value(const struct ir_node *x, const struct ir_value *l,
		      int depth)
{
	uint32_t i;
	const struct ir_node *y;

	for (i = 0; i < x->ninputs; i++)
		if (x->inputs[i] == l)
			return 1;
	if (depth > 64)
		return 1;
	for (i = 0; i < x->nblocks; i++) {
		for (y = x->blocks[i]->first; y; y = y->next)
			if (uses_value(y, l, depth + 1))
				return 1;
		for (uint32_t r = 0; r < x->blocks[i]->nreturns; r++)
			if (x->blocks[i]->returns[r] == l)
				return 1;
	}
	return 0;
}

int script_list_at(const struct ir_value *l, const struct ir_node *n,
		   struct ir_value **out, int max)
{
	const struct ir_node *p = l ? l->producer : NULL, *x;
	int cnt;

	if (!p || p->op != OP_prim_ListConstruct || p->owner != n->owner)
		return -1;
	if ((int)p->ninputs > max)
		return -1;
	cnt = (int)p->ninputs;
	for (int i = 0; i < cnt; i++)
		out[i] = p->inputs[i];
	for (x = p->next; x && x != n; x = x->next) {
		if (!uses_value(x, l, 0))
			continue;
		if (x->op == OP_aten_append && x->ninputs == 2 &&
		    x->inputs[0] == l && x->inputs[1] != l) {
			if (cnt >= max)
				return -1;
			out[cnt++] = x->inputs[1];
			continue;
		}
		if (ATEN_ONE_OF(x->op, OP_aten_len, OP_aten_all, OP_aten_any,
				OP_aten___getitem__, OP_prim_ListUnpack) &&
		    !x->nblocks)
			continue;
		return -1;
	}
	return x == n ? cnt : -1;
}

/* --- strings --------------------------------------------------------------- */

/* Python's str.find(sub, start, end). */
static int64_t py_find(const char *s, size_t n, const char *sub, size_t m,
		       int64_t start, int64_t end)
{
	int64_t len = (int64_t)n;

	if (end > len)
		end = len;
	else if (end < 0 && (end += len) < 0)
		end = 0;
	if (start < 0 && (start += len) < 0)
		start = 0;
	if (start > len || end - start < (int64_t)m)
		return -1;
	for (int64_t i = start; i + (int64_t)m <= end; i++)
		if (!memcmp(s + i, sub, m))
			return i;
	return -1;
}

/* Python's str(x) of a constant argument of format(), appended to buf.
 * Returns 0, -1 when x is not a constant it knows. */
static int fmt_arg(const struct ir_value *x, char *buf, size_t cap,
		   size_t *at)
{
	char tmp[64];
	const char *s = tmp;
	size_t len;
	int64_t i;
	double f;

	if (script_const_none(x)) {
		s = "None";
		len = 4;
	} else if (x->type->kind == IR_TYPE_BOOL && script_const_int(x, &i)) {
		s = i ? "True" : "False";
		len = strlen(s);
	} else if (script_const_int(x, &i)) {
		len = (size_t)snprintf(tmp, sizeof(tmp), "%lld", (long long)i);
	} else if (script_const_float(x, &f)) {
		int p;
		for (p = 1; p < 17; p++) {
			snprintf(tmp, sizeof(tmp), "%.*g", p, f);
			if (strtod(tmp, NULL) == f)
				break;
		}
		len = (size_t)snprintf(tmp, sizeof(tmp), "%.*g", p, f);
		if (!strpbrk(tmp, ".eEn") && len + 2 < sizeof(tmp)) {
			memcpy(tmp + len, ".0", 3);
			len += 2;
		}
	} else if (!(s = const_str(x, &len, IR_TYPE_STR)) &&
		   !(s = const_str(x, &len, IR_TYPE_DEVICE))) {
		return -1;
	}
	if (*at + len >= cap)
		return -1;
	memcpy(buf + *at, s, len);
	*at += len;
	return 0;
}

/* torch's aten::format: "{}" fields filled in order with the arguments. */
static struct ir_value *fold_format(struct ir_graph *g, struct ir_node *n)
{
	char buf[4096];
	size_t flen, at = 0;
	const char *f;
	uint32_t arg = 1;

	if (n->ninputs < 1 || !(f = const_str(n->inputs[0], &flen, IR_TYPE_STR)))
		return NULL;
	for (size_t i = 0; i < flen; i++) {
		if (f[i] == '{' && i + 1 < flen && f[i + 1] == '}') {
			if (arg >= n->ninputs ||
			    fmt_arg(n->inputs[arg++], buf, sizeof(buf), &at))
				return NULL;
			i++;
			continue;
		}
		if (at + 1 >= sizeof(buf))
			return NULL;
		buf[at++] = f[i];
	}
	return const_strk(g, n, IR_TYPE_STR, buf, at);
}

/* --- the folds ------------------------------------------------------------ */

/* The value of an int, bool or float constant v; 1 when it is one. */
static int num_const(const struct ir_value *v, double *out)
{
	int64_t i;

	if (v->type->kind == IR_TYPE_FLOAT)
		return script_const_float(v, out);
	if ((v->type->kind != IR_TYPE_INT && v->type->kind != IR_TYPE_BOOL) ||
	    !script_const_int(v, &i))
		return 0;
	*out = (double)i;
	return 1;
}

struct ir_value *script_fold_static(struct ir_graph *g, struct ir_node *n)
{
	struct ir_value *r = NULL, *in0 = n->ninputs ? n->inputs[0] : NULL;
	enum ir_type_kind ok = n->noutputs == 1 ? n->outputs[0]->type->kind
						: IR_TYPE_UNKNOWN;
	const char *s, *t;
	size_t sl, tl;
	int64_t i, j;

	if (n->noutputs != 1 || !n->owner)
		return NULL;
	if (ATEN_ONE_OF(n->op, OP_aten___is__, OP_aten___isnot__) &&
	    n->ninputs == 2) {
		int same = identical(g, n->inputs[0], n->inputs[1]);
		if (same < 0)
			return NULL;
		r = const_intk(g, n, IR_TYPE_BOOL,
			       n->op == OP_aten___is__ ? same : !same);
	} else if (n->op == OP_prim_unchecked_cast && n->ninputs == 1) {
		enum ir_type_kind k = in0->type->kind;
		if (k == IR_TYPE_UNKNOWN || k == IR_TYPE_OPTIONAL ||
		    k == IR_TYPE_NONE || k == IR_TYPE_CLASS)
			return NULL;
		r = in0;
	} else if (ATEN_ONE_OF(n->op, OP_aten_is_grad_enabled,
			       OP_aten_is_autocast_enabled,
			       OP_aten_is_autocast_cpu_enabled,
			       OP_aten_is_inference_mode_enabled,
			       OP_prim_is_cuda, OP_prim_is_nested,
			       OP_prim_is_sparse, OP_prim_is_sparse_csr,
			       OP_prim_is_mkldnn, OP_prim_is_quantized,
			       OP_prim_is_meta, OP_prim_is_xpu, OP_prim_is_mps,
			       OP_prim_is_vulkan, OP_prim_is_ipu,
			       OP_prim_is_ort, OP_prim_is_hpu)) {
		r = const_intk(g, n, IR_TYPE_BOOL, 0);
	} else if (ATEN_ONE_OF(n->op, OP_prim_dtype,
			       OP_aten_is_floating_point) &&
		   n->ninputs == 1 && in0->type->kind == IR_TYPE_TENSOR) {
		int st = torch_scalar_type(in0->type->dtype);
		if (st < 0)
			return NULL;
		if (n->op == OP_prim_dtype)
			r = const_intk(g, n, IR_TYPE_INT, st);
		else
			r = const_intk(g, n, IR_TYPE_BOOL,
				       st == 5 || st == 6 || st == 7 || st == 15);
	} else if (n->op == OP_prim_device && n->ninputs == 1 &&
		   in0->type->kind == IR_TYPE_TENSOR) {
		r = const_strk(g, n, IR_TYPE_DEVICE, "cpu", 3);
	} else if (n->op == OP_aten_cpu && n->ninputs == 1 &&
		   in0->type->kind == IR_TYPE_TENSOR) {
		r = in0; /* already there (pad_packed_sequence's lengths) */
	} else if (n->op == OP_aten_str && n->ninputs == 1) {
		if ((s = const_str(in0, &sl, IR_TYPE_STR)))
			r = in0;
		else if ((s = const_str(in0, &sl, IR_TYPE_DEVICE)))
			r = const_strk(g, n, IR_TYPE_STR, s, sl);
		else
			return NULL;
	} else if (n->op == OP_aten_len && n->ninputs == 1) {
		struct ir_value *el[256];
		int k;
		if ((s = const_str(in0, &sl, IR_TYPE_STR)))
			r = const_intk(g, n, IR_TYPE_INT, (int64_t)sl);
		else if ((k = script_list_at(in0, n, el, 256)) >= 0)
			r = const_intk(g, n, IR_TYPE_INT, k);
		else
			return NULL;
	} else if (n->op == OP_aten_find && n->ninputs == 4) {
		if (!(s = const_str(in0, &sl, IR_TYPE_STR)) ||
		    !(t = const_str(n->inputs[1], &tl, IR_TYPE_STR)) ||
		    !script_const_int(n->inputs[2], &i) ||
		    !script_const_int(n->inputs[3], &j))
			return NULL;
		r = const_intk(g, n, IR_TYPE_INT, py_find(s, sl, t, tl, i, j));
	} else if (n->op == OP_aten_format) {
		r = fold_format(g, n);
	} else if (ATEN_ONE_OF(n->op, OP_aten_eq, OP_aten_ne) &&
		   n->ninputs == 2 &&
		   (s = const_str(in0, &sl, IR_TYPE_STR)) &&
		   (t = const_str(n->inputs[1], &tl, IR_TYPE_STR))) {
		int eq = sl == tl && !memcmp(s, t, sl);
		r = const_intk(g, n, IR_TYPE_BOOL,
			       n->op == OP_aten_eq ? eq : !eq);
	} else if (n->op == OP_aten___contains__ && n->ninputs == 2 &&
		   in0->type->kind == IR_TYPE_LIST) {
		/* x in [a, b, ...]: constants against a constant */
		struct ir_value *el[256];
		int k = script_list_at(in0, n, el, 256), found = 0;
		double xv, ev;
		if (k < 0)
			return NULL;
		s = const_str(n->inputs[1], &sl, IR_TYPE_STR);
		if (!s && !num_const(n->inputs[1], &xv))
			return NULL;
		for (int e = 0; e < k; e++) {
			if (s && (t = const_str(el[e], &tl, IR_TYPE_STR)))
				found |= sl == tl && !memcmp(s, t, sl);
			else if (!s && num_const(el[e], &ev))
				found |= ev == xv;
			else
				return NULL;
		}
		r = const_intk(g, n, IR_TYPE_BOOL, found);
	} else if (ATEN_ONE_OF(n->op, OP_aten_all, OP_aten_any) &&
		   n->ninputs == 1 &&
		   in0->type->kind == IR_TYPE_LIST) {
		struct ir_value *el[256];
		int k = script_list_at(in0, n, el, 256), all = 1, any = 0;
		if (k < 0)
			return NULL;
		for (int e = 0; e < k; e++) {
			if (!script_const_int(el[e], &i))
				return NULL;
			all &= i != 0;
			any |= i != 0;
		}
		r = const_intk(g, n, IR_TYPE_BOOL,
			       n->op == OP_aten_all ? all : any);
	}
	if (!r)
		return NULL;
	if (ok != IR_TYPE_UNKNOWN && r->type->kind != ok &&
	    !(ok == IR_TYPE_OPTIONAL || r == in0)) {
		ir_node_unlink(r->producer);
		return NULL;
	}
	ir_node_unlink(n);
	return r;
}

/*
 * lower.c - the lowering driver: walks an aten-level graph block by block
 * and replaces each node by what its symbolic function (symbolic_opsetN.c)
 * builds, as torch.onnx.export's _run_symbolic_function does.
 *
 * How values are rewired: the ONNX value a symbolic returns for an aten
 * output takes over the aten value itself (same name, same users) when the
 * symbolic built it; when it returns an existing value (dropout, contiguous)
 * the aten value is remapped through value->aux and users read it through
 * lw_in().  prim::Constant scalars and prim::ListConstruct stay in place
 * while symbolics read them and are removed at the end (or turned into
 * onnx::Constant where something still uses them).  prim::If / prim::Loop
 * become onnx::If / onnx::Loop whose graph attributes are the old blocks,
 * lowered in place.  Lists of tensors are followed element-wise (split,
 * chunk, size(), ListConstruct, append in straight-line code), so
 * ListUnpack and cat need no ONNX sequences; l.copy() and l[i] = v
 * update the element-wise record, and a list changed in an if's branch
 * gets its changed elements as outputs of the If (lw_if_lists).  Dicts of
 * constant keys are followed the same way (lower_dicts.c).  A loop of a
 * trip count known here whose lists change is unrolled (unroll_loop); a
 * None it carries is dropped (drop_none_carried).  In-place
 * ops (relu_) lower as their out-of-place form, later uses of the mutated
 * value in the same block reading the result; on a slice/select view the
 * result is scattered back into the base (lw_write_back).  Writes follow
 * torch's aliasing: a write reaches every value that aliases the written
 * one (x.detach(), x.contiguous(), views), never one that copies it
 * (x.clone()), though both read the same ONNX value until then (see
 * "aliases and copies" below).  Integer
 * arithmetic on constants (a trace's size % 2) is folded.  At the end
 * unused scalar constants and dead ONNX nodes are removed, None graph
 * outputs dropped (as torch does).  Costs: one pass, linear in the nodes
 * (list and view look-ups linear in the number of records).
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aten_schema.h"
#include "intmath.h"
#include "ir_clone.h"
#include "onnx_schema.h"
#include "lower_driver.h"
#include "lower_int.h"
#include "symbolic_common.h"
#include "weight_bytes.h"

const struct symbolic_table *const symbolic_tables[] = {
	&symbolic_driver_table, &symbolic_dicts_table, &symbolic_opset9_table,
	&symbolic_opset11_table, &symbolic_opset12_table,
	&symbolic_opset14_table, &symbolic_opset17_table,
	&symbolic_extra_math_table, &symbolic_extra_nn_table,
	&symbolic_extra_shape_table, &symbolic_fft_table,
	&symbolic_vision_table, &symbolic_long_tail_table,
	&symbolic_stats_table,
	&symbolic_hist_table,
	&symbolic_reduce_table,
	&symbolic_loss_table,
	&symbolic_pointwise_table,
	&symbolic_products_table,
	&symbolic_special_table,
	&symbolic_linalg_table,
	&symbolic_linalg_orth_table,
};
const size_t symbolic_ntables =
	sizeof(symbolic_tables) / sizeof(symbolic_tables[0]);

/* The index over every file's rows, built once: the rows of op are
 * sym_rows[sym_first[op] .. sym_first[op + 1]). */
static const struct symbolic *sym_rows[SYM_ROWS_MAX];
static unsigned short sym_first[OP_COUNT + 1];
static pthread_once_t sym_once = PTHREAD_ONCE_INIT;

static void sym_build_index(void)
{
	/* a counting sort by op (tests/unit/test_lower_symbolic.c checks
	 * that every row fits and has a real op) */
	unsigned short cnt[OP_COUNT + 1] = { 0 };
	for (size_t t = 0; t < symbolic_ntables; t++)
		for (size_t i = 0; i < symbolic_tables[t]->count; i++) {
			enum aten_op op = symbolic_tables[t]->entries[i].op;
			if (op > OP_NONE && op < OP_COUNT)
				cnt[op + 1]++;
		}
	for (int op = 0; op < OP_COUNT; op++)
		sym_first[op + 1] = (unsigned short)(sym_first[op] + cnt[op + 1]);
	unsigned short at[OP_COUNT];
	memcpy(at, sym_first, sizeof(at));
	for (size_t t = 0; t < symbolic_ntables; t++)
		for (size_t i = 0; i < symbolic_tables[t]->count; i++) {
			const struct symbolic *r = &symbolic_tables[t]->entries[i];
			if (r->op > OP_NONE && r->op < OP_COUNT &&
			    at[r->op] < SYM_ROWS_MAX)
				sym_rows[at[r->op]++] = r;
		}
}

symbolic_fn symbolic_lookup(enum aten_op op, int opset)
{
	if (op <= OP_NONE || op >= OP_COUNT)
		return NULL;
	pthread_once(&sym_once, sym_build_index);
	const struct symbolic *best = NULL;
	for (unsigned i = sym_first[op]; i < sym_first[op + 1] &&
	     i < SYM_ROWS_MAX; i++) {
		const struct symbolic *r = sym_rows[i];
		int from = r->from ? r->from : LOWER_OPSET_MIN;
		int to = r->to ? r->to : LOWER_OPSET_MAX;
		if (from <= opset && opset <= to &&
		    (!best || r->prio > best->prio))
			best = r;
	}
	return best ? best->fn : NULL;
}

int symbolic_next_opset(enum aten_op op, int opset)
{
	if (op <= OP_NONE || op >= OP_COUNT)
		return 0;
	pthread_once(&sym_once, sym_build_index);
	int next = 0;
	for (unsigned i = sym_first[op]; i < sym_first[op + 1] &&
	     i < SYM_ROWS_MAX; i++) {
		int from = sym_rows[i]->from ? sym_rows[i]->from
					     : LOWER_OPSET_MIN;
		if (from > opset && (!next || from < next))
			next = from;
	}
	return next;
}

void lower_list_ops(FILE *fp)
{
	/* ids are in the order of their names */
	for (int op = OP_NONE + 1; op < OP_COUNT; op++) {
		int any = 0;
		for (int o = LOWER_OPSET_MIN; o <= LOWER_OPSET_MAX; o++)
			if (symbolic_lookup((enum aten_op)op, o)) {
				if (!any)
					fprintf(fp, "%s:",
						aten_op_name((enum aten_op)op));
				any = 1;
				fprintf(fp, " %d", o);
			}
		if (any)
			fputc('\n', fp);
	}
}

/* --- arguments ----------------------------------------------------------- */

struct ir_value *lw_in(struct lower_ctx *c, struct ir_node *n, int i)
{
	if (i < 0 || (uint32_t)i >= n->ninputs)
		return NULL;
	return lw_remap(c, n->inputs[i]);
}

static struct ir_node *producer(struct lower_ctx *c, struct ir_node *n, int i)
{
	struct ir_value *v = lw_in(c, n, i);
	return v ? v->producer : NULL;
}

static struct ir_attr *const_attr(struct lower_ctx *c, struct ir_node *n,
				  int i)
{
	struct ir_node *p = producer(c, n, i);
	if (!p || p->op != OP_prim_Constant)
		return NULL;
	return ir_node_find_attr(p, "value");
}

int lw_is_none(struct lower_ctx *c, struct ir_node *n, int i)
{
	struct ir_value *v = lw_in(c, n, i);
	if (!v)
		return 1;
	if (v->type->kind == IR_TYPE_NONE)
		return 1;
	struct ir_node *p = v->producer;
	return p && p->op == OP_prim_Constant &&
	       !ir_node_find_attr(p, "value") &&
	       v->type->kind != IR_TYPE_TENSOR;
}

int lw_int(struct lower_ctx *c, struct ir_node *n, int i, int64_t *v)
{
	struct ir_attr *a = const_attr(c, n, i);
	if (a && a->kind == IR_ATTR_INT) {
		*v = a->u.i;
		return 1;
	}
	struct ir_value *x = lw_in(c, n, i);
	int64_t t[1];
	if (x && b_rank(x) == 0 && b_const_ints(x, t, 1) == 1) {
		*v = t[0];
		return 1;
	}
	return 0;
}

int lw_float(struct lower_ctx *c, struct ir_node *n, int i, double *v)
{
	struct ir_attr *a = const_attr(c, n, i);
	if (a && a->kind == IR_ATTR_FLOAT) {
		*v = a->u.f;
		return 1;
	}
	int64_t k;
	if (lw_int(c, n, i, &k)) {
		*v = (double)k;
		return 1;
	}
	return 0;
}

int lw_is_scalar(struct lower_ctx *c, struct ir_node *n, int i, int *isfloat)
{
	struct ir_value *v = lw_in(c, n, i);
	if (!v)
		return 0;
	switch (v->type->kind) {
	case IR_TYPE_INT: case IR_TYPE_BOOL: *isfloat = 0; return 1;
	case IR_TYPE_FLOAT: *isfloat = 1; return 1;
	default: return 0;
	}
}

const char *lw_str(struct lower_ctx *c, struct ir_node *n, int i)
{
	struct ir_attr *a = const_attr(c, n, i);
	if (a && a->kind == IR_ATTR_STRING)
		return ir_strndup(c->g, a->u.s.data, a->u.s.len);
	return NULL;
}

int lw_ints(struct lower_ctx *c, struct ir_node *n, int i, int64_t *v,
	    int max, int bcast)
{
	struct ir_attr *a = const_attr(c, n, i);
	if (a && a->kind == IR_ATTR_INT) {
		int k = bcast > 0 ? bcast : 1;
		if (k > max)
			return -1;
		for (int j = 0; j < k; j++)
			v[j] = a->u.i;
		return k;
	}
	if (a && a->kind == IR_ATTR_INTS) {
		if (a->count > (uint32_t)max)
			return -1;
		memcpy(v, a->u.ints, sizeof(int64_t) * a->count);
		return (int)a->count;
	}
	struct ir_value *lv = lw_in(c, n, i);
	struct lw_list *l = lv && lv->type->kind == IR_TYPE_LIST
			    ? lw_find_list(c, lv) : NULL;
	if (l) { /* known element-wise (changed since it was built) */
		if (l->n > max)
			return -1;
		for (int j = 0; j < l->n; j++)
			if (b_rank(l->vals[j]) > 1 ||
			    b_const_ints(l->vals[j], &v[j], 1) != 1)
				return -1;
		return l->n;
	}
	struct ir_node *p = producer(c, n, i);
	if (p && p->op == OP_prim_ListConstruct) {
		if (p->ninputs > (uint32_t)max)
			return -1;
		for (uint32_t j = 0; j < p->ninputs; j++)
			if (!lw_int(c, p, (int)j, &v[j]))
				return -1;
		return (int)p->ninputs;
	}
	struct ir_value *x = lw_in(c, n, i);
	if (x && b_rank(x) == 1)
		return b_const_ints(x, v, max);
	return -1;
}

static struct ir_value *scalar_const(struct lower_ctx *c, struct ir_attr *a,
				     const struct ir_value *v, enum ir_dtype dt,
				     int rank)
{
	if (a->kind == IR_ATTR_INT) {
		if (dt == IR_DTYPE_UNDEFINED)
			dt = v->type->kind == IR_TYPE_BOOL ? IR_DTYPE_BOOL
							   : IR_DTYPE_INT64;
		if (dt == IR_DTYPE_INT64)
			return b_const_i64s(c, &a->u.i, 1, rank);
		return b_const_scalar(c, (double)a->u.i, dt, rank);
	}
	if (a->kind == IR_ATTR_FLOAT)
		return b_const_scalar(c, a->u.f, dt ? dt : IR_DTYPE_FLOAT, rank);
	if (a->kind == IR_ATTR_INTS)
		return b_const_i64s(c, a->u.ints, (int)a->count, 1);
	return NULL;
}

/* A list of numbers known element-wise as a 1-d tensor of dt, a Concat
 * of its elements (float lists as Double, bool lists as Bool: torch.tensor
 * casts to its own dtype after); NULL for an element of rank 2 or more. */
static struct ir_value *number_list_tensor(struct lower_ctx *c,
					   struct lw_list *l,
					   enum ir_dtype dt)
{
	struct ir_value **parts = ir_alloc(c->g, sizeof(*parts) * (l->n + 1));
	int64_t none = 0;
	if (!l->n)
		return b_cast(c, b_const_i64s(c, &none, 0, 1), dt);
	for (int j = 0; j < l->n; j++) {
		struct ir_value *e = b_cast(c, l->vals[j], dt);
		if (b_rank(e) != 0 && b_rank(e) != 1)
			return NULL;
		if (b_rank(e) == 0) {
			int64_t zero = 0;
			e = b_unsqueeze(c, e, &zero, 1);
		}
		parts[j] = e;
	}
	return b_concat(c, l->n, parts, 0);
}

/* An int list known element-wise (l.copy(), l[i] = v) as a 1-d Long:
 * a constant when every element is one, else number_list_tensor's. */
static struct ir_value *int_list_tensor(struct lower_ctx *c,
					struct lw_list *l)
{
	int64_t *k = ir_alloc(c->g, sizeof(*k) * (l->n + 1));
	int allc = 1;
	for (int j = 0; j < l->n; j++)
		if (b_rank(l->vals[j]) > 1 ||
		    b_const_ints(l->vals[j], &k[j], 1) != 1)
			allc = 0;
	if (allc)
		return b_const_i64s(c, k, l->n, 1);
	return number_list_tensor(c, l, IR_DTYPE_INT64);
}

struct ir_value *lw_tensor(struct lower_ctx *c, struct ir_node *n, int i)
{
	struct ir_value *v = lw_in(c, n, i);
	if (!v)
		return NULL;
	struct ir_node *p = v->producer;
	if (p && p->op == OP_prim_Constant) {
		struct ir_attr *a = ir_node_find_attr(p, "value");
		return a ? scalar_const(c, a, v, IR_DTYPE_UNDEFINED, 0) : NULL;
	}
	/* an int list known element-wise, changed since it was built */
	struct lw_list *l = v->type->kind == IR_TYPE_LIST ? lw_find_list(c, v)
							  : NULL;
	if (l && v->type->nelems && v->type->elems[0]->kind == IR_TYPE_INT)
		return int_list_tensor(c, l);
	/* float and bool lists known element-wise (a loop of appends
	 * unrolled): never the list value itself, which has no ONNX form */
	if (l && v->type->nelems && (v->type->elems[0]->kind == IR_TYPE_FLOAT ||
				     v->type->elems[0]->kind == IR_TYPE_BOOL))
		return number_list_tensor(c, l, v->type->elems[0]->kind ==
					  IR_TYPE_FLOAT ? IR_DTYPE_DOUBLE
							: IR_DTYPE_BOOL);
	if (p && p->op == OP_prim_ListConstruct) {
		int64_t k[64];
		int cnt = lw_ints(c, n, i, k, 64, 0);
		if (cnt >= 0)
			return b_const_i64s(c, k, cnt, 1);
		if (v->type->kind == IR_TYPE_LIST && v->type->nelems &&
		    v->type->elems[0]->kind != IR_TYPE_INT)
			return NULL;
		struct ir_value **parts = ir_alloc(c->g, sizeof(*parts) *
						   (p->ninputs + 1));
		for (uint32_t j = 0; j < p->ninputs; j++) {
			int64_t kv;
			if (lw_int(c, p, (int)j, &kv)) {
				parts[j] = b_const_i64s(c, &kv, 1, 1);
				continue;
			}
			struct ir_value *e = lw_tensor(c, p, (int)j);
			if (!e)
				return NULL;
			e = b_cast(c, e, IR_DTYPE_INT64);
			if (b_rank(e) == 0) {
				int64_t zero = 0;
				e = b_unsqueeze(c, e, &zero, 1);
			}
			parts[j] = e;
		}
		return b_concat(c, (int)p->ninputs, parts, 0);
	}
	if (v->type->kind == IR_TYPE_NONE || v->type->kind == IR_TYPE_STR ||
	    v->type->kind == IR_TYPE_DEVICE)
		return NULL;
	return v;
}

struct ir_value *lw_scalar_as(struct lower_ctx *c, struct ir_node *n, int i,
			      enum ir_dtype dt, int rank)
{
	struct ir_attr *a = const_attr(c, n, i);
	if (a && (a->kind == IR_ATTR_INT || a->kind == IR_ATTR_FLOAT))
		return scalar_const(c, a, lw_in(c, n, i), dt, rank);
	struct ir_value *v = lw_tensor(c, n, i);
	if (!v)
		return NULL;
	if (dt != IR_DTYPE_UNDEFINED)
		v = b_cast(c, v, dt);
	if (rank == 1 && b_rank(v) == 0) {
		int64_t zero = 0;
		v = b_unsqueeze(c, v, &zero, 1);
	}
	return v;
}

int lw_decline(struct lower_ctx *c, const char *why)
{
	c->why = why;
	return 1;
}

enum ir_dtype lw_torch_dtype(int64_t st)
{
	static const enum ir_dtype map[] = {
		IR_DTYPE_UINT8, IR_DTYPE_INT8, IR_DTYPE_INT16, IR_DTYPE_INT32,
		IR_DTYPE_INT64, IR_DTYPE_FLOAT16, IR_DTYPE_FLOAT,
		IR_DTYPE_DOUBLE, IR_DTYPE_UNDEFINED, IR_DTYPE_COMPLEX64,
		IR_DTYPE_COMPLEX128, IR_DTYPE_BOOL, IR_DTYPE_UNDEFINED,
		IR_DTYPE_UNDEFINED, IR_DTYPE_UNDEFINED, IR_DTYPE_BFLOAT16,
	};
	if (st < 0 || st >= (int64_t)(sizeof(map) / sizeof(map[0])))
		return IR_DTYPE_UNDEFINED;
	return map[st];
}

static int dtype_rank(enum ir_dtype dt)
{
	switch (dt) {
	case IR_DTYPE_BOOL: return 0;
	case IR_DTYPE_UINT8: return 1;
	case IR_DTYPE_INT8: return 2;
	case IR_DTYPE_INT16: return 3;
	case IR_DTYPE_INT32: return 4;
	case IR_DTYPE_INT64: return 5;
	case IR_DTYPE_FLOAT16: return 6;
	case IR_DTYPE_BFLOAT16: return 7;
	case IR_DTYPE_FLOAT: return 8;
	case IR_DTYPE_DOUBLE: return 9;
	default: return -1;
	}
}

enum ir_dtype lw_promote(enum ir_dtype a, enum ir_dtype b)
{
	if (a == IR_DTYPE_UNDEFINED)
		return b;
	if (b == IR_DTYPE_UNDEFINED)
		return a;
	int ra = dtype_rank(a), rb = dtype_rank(b);
	if (ra < 0 || rb < 0)
		return a;
	if ((a == IR_DTYPE_FLOAT16 && b == IR_DTYPE_BFLOAT16) ||
	    (b == IR_DTYPE_FLOAT16 && a == IR_DTYPE_BFLOAT16))
		return IR_DTYPE_FLOAT;
	if ((a == IR_DTYPE_UINT8 && b == IR_DTYPE_INT8) ||
	    (a == IR_DTYPE_INT8 && b == IR_DTYPE_UINT8))
		return IR_DTYPE_INT16;
	return ra >= rb ? a : b;
}

/* --- types --------------------------------------------------------------- */

/* The ONNX type of an aten value type: scalars become 0-d tensors. */
static struct ir_type *onnx_type(struct lower_ctx *c, const struct ir_type *t)
{
	enum ir_dtype dt;
	switch (t->kind) {
	case IR_TYPE_INT: dt = IR_DTYPE_INT64; break;
	case IR_TYPE_FLOAT: dt = IR_DTYPE_FLOAT; break;
	case IR_TYPE_BOOL: dt = IR_DTYPE_BOOL; break;
	default: return (struct ir_type *)t;
	}
	return ir_type_tensor(c->g, dt, 0, NULL);
}

/* The inferred type r, completed from the aten type a where r knows less. */
static struct ir_type *merge_type(struct lower_ctx *c, struct ir_type *r,
				  const struct ir_type *a)
{
	a = onnx_type(c, a);
	if (r->kind != IR_TYPE_TENSOR || a->kind != IR_TYPE_TENSOR)
		return r->kind == IR_TYPE_TENSOR ? r : (struct ir_type *)a;
	struct ir_type *t = ir_type_copy(c->g, r);
	if (t->dtype == IR_DTYPE_UNDEFINED)
		t->dtype = a->dtype;
	if (t->rank < 0 && a->rank >= 0)
		return merge_type(c, ir_type_copy(c->g, a), t);
	if (t->rank == a->rank)
		for (int i = 0; i < t->rank; i++)
			if (t->dims[i].kind == IR_DIM_UNKNOWN)
				t->dims[i] = a->dims[i];
	return t;
}

/* --- nodes --------------------------------------------------------------- */

static void lower_block(struct lower_ctx *c, struct ir_block *b);
static void lower_node(struct lower_ctx *c, struct ir_node *n);
static int is_new(struct ir_node *first, struct ir_node *stop,
		  struct ir_node *x)
{
	for (struct ir_node *m = first; m && m != stop; m = m->next)
		if (m == x)
			return 1;
	return 0;
}

/* Binds aten output o to the ONNX value r built by nodes first..stop. */
static void bind_output(struct lower_ctx *c, struct ir_value *o,
			struct ir_value *r, struct ir_node *first,
			struct ir_node *stop)
{
	if (r->producer && is_new(first, stop, r->producer) &&
	    r->type->kind == IR_TYPE_TENSOR) {
		struct ir_node *p = r->producer;
		for (uint32_t k = 0; k < p->noutputs; k++)
			if (p->outputs[k] == r)
				ir_node_set_output(p, k, o);
		o->type = merge_type(c, r->type, o->type);
		for (struct ir_node *m = first; m && m != stop; m = m->next)
			for (uint32_t k = 0; k < m->ninputs; k++)
				if (m->inputs[k] == r)
					m->inputs[k] = o;
		r->aux = o;
		return;
	}
	o->aux = r;
}

static struct ir_node *new_before(struct lower_ctx *c, const char *kind,
				  uint32_t nin, uint32_t nout)
{
	struct ir_node *n = ir_node_new(c->g, NULL, kind, nin, nout);
	n->scope = c->cur->scope;
	n->source = c->cur->source;
	ir_block_insert_before(c->pos, n);
	return n;
}

/* Warns, once per op, that n became the custom node `kind`. */
static void warn_custom(struct lower_ctx *c, const struct ir_node *n,
			const char *kind)
{
	for (int i = 0; i < c->ncustom_warned; i++)
		if (!strcmp(c->custom_warned[i], n->kind))
			return;
	const char **w = ir_alloc(c->g, sizeof(*w) *
				  (size_t)(c->ncustom_warned + 1));
	if (c->ncustom_warned)
		memcpy(w, c->custom_warned, sizeof(*w) *
		       (size_t)c->ncustom_warned);
	w[c->ncustom_warned++] = n->kind;
	c->custom_warned = w;
	diag_warning(c->d, "%s%s%s: exported as the custom node %s, which "
		     "standard ONNX runtimes cannot run", n->kind,
		     n->scope ? " at " : "", n->scope ? n->scope : "", kind);
}

/* The torch whose schemas the graph's calls were bound against: a torch
 * 2.x archive's (the prop torch_era "2.x" that script and unpt2 write),
 * else 1.13's. */
static enum aten_era graph_era(const struct ir_graph *g)
{
	for (uint32_t i = 0; i < g->nprops; i++)
		if (!strcmp(g->props[i].key, "torch_era") &&
		    !strcmp(g->props[i].value, "2.x"))
			return ATEN_ERA_2_11;
	return ATEN_ERA_1_13;
}

/* An aten op as torch's ATen fallback node (org.pytorch.aten::ATen with
 * the op in its "operator" attribute), or with `fallthrough` as the op
 * itself in that domain (org.pytorch.aten::cummax, operator_export_type
 * onnx_fallthrough); non-tensor arguments become attributes named after
 * the arguments of the schema the call was bound against (graph_era).
 * Custom nodes: the model is valid ONNX, but standard runtimes cannot
 * run it, which a warning says. */
static void aten_node(struct lower_ctx *c, struct ir_node *n, int fallthrough)
{
	const struct aten_schema *s = aten_schema_find_era(n->kind, "",
							 graph_era(c->g));
	uint32_t nin = 0;
	struct ir_value **ins = ir_alloc(c->g, sizeof(*ins) * (n->ninputs + 1));
	struct ir_node *a;
	for (uint32_t i = 0; i < n->ninputs; i++) {
		struct ir_value *v = lw_in(c, n, (int)i);
		if (v && v->type->kind == IR_TYPE_TENSOR &&
		    !(v->producer && !strncmp(v->producer->kind, "prim::", 6)))
			ins[nin++] = v;
	}
	a = new_before(c, fallthrough ? ir_strfmt(c->g, "org.pytorch.aten::%s",
					       n->kind + 6)
				    : "org.pytorch.aten::ATen", nin,
		       n->noutputs);
	if (nin)	/* a->inputs is NULL for none */
		memcpy(a->inputs, ins, sizeof(*ins) * nin);
	if (!fallthrough) {
		b_attr_s(c, a, "operator", n->kind + 6);
		b_attr_s(c, a, "overload_name", "");
	}
	warn_custom(c, n, a->kind);
	for (uint32_t i = 0; i < n->ninputs; i++) {
		struct ir_attr *ca = const_attr(c, n, (int)i);
		const struct aten_arg *arg = s ? aten_schema_arg(s, (int)i) : NULL;
		const char *name = arg ? arg->name : ir_strfmt(c->g, "arg%u", i);
		int64_t iv[64];
		int k;
		if (ca && ca->kind == IR_ATTR_INT)
			b_attr_i(c, a, name, ca->u.i);
		else if (ca && ca->kind == IR_ATTR_FLOAT)
			b_attr_f(c, a, name, ca->u.f);
		else if (ca && ca->kind == IR_ATTR_STRING)
			b_attr_s(c, a, name, lw_str(c, n, (int)i));
		else if (!ca && (k = lw_ints(c, n, (int)i, iv, 64, 0)) >= 0 &&
			 lw_in(c, n, (int)i)->type->kind != IR_TYPE_TENSOR)
			b_attr_ints(c, a, name, iv, k);
	}
	for (uint32_t i = 0; i < n->noutputs; i++) {
		ir_node_set_output(a, i, n->outputs[i]);
		n->outputs[i]->type = onnx_type(c, n->outputs[i]->type);
	}
	ir_add_opset(c->g, "org.pytorch.aten", 1);
}

void lw_report(struct lower_ctx *c, struct ir_node *n, const char *why)
{
	c->nunsupported++;
	if (!why)
		why = sym_refusal(n->op);
	int next = why ? 0 : symbolic_next_opset(n->op, c->opset);
	if (next)
		why = ir_strfmt(c->g, "needs opset %d", next);
	diag_error(c->d, "%s%s%s%s%s%s has no symbolic for opset %d%s%s",
		   n->kind, n->scope ? " at " : "", n->scope ? n->scope : "",
		   n->source ? " (" : "", n->source ? n->source : "",
		   n->source ? ")" : "", c->opset, why ? ": " : "",
		   why ? why : "");
}

/* --- ifs ------------------------------------------------------------------
 * An If whose condition is known at export (x.is_floating_point(), a dtype
 * or rank test, a frozen flag, and/or/not of those) is not emitted: the
 * branch taken is lowered in place, as torch's exporter folds such ifs in
 * its passes.  Otherwise both branches become an onnx::If, whose outputs
 * must agree in dtype (ONNX's rule; torch.onnx.export writes a model that
 * fails onnx.checker there), and in rank before opset 11: a disagreement
 * is refused with one line.  From 11, different ranks give an output of
 * no rank (refused where it is a graph output, which needs a shape). */

#define COND_DEPTH 32

/* The value of the one-element constant expression v: an onnx::Constant
 * (or an inline scalar weight) of one element, or Not, And, Or, Xor,
 * Equal, Less, Greater, LessOrEqual, GreaterOrEqual, Neg, Cast, Identity,
 * Squeeze, Unsqueeze, Reshape of such.  1 and *r when known, else 0. */
static int const_eval(const struct ir_value *v, double *r, int depth)
{
	const struct ir_tensor *t = b_const_of(v);
	if (t) {
		if (ir_tensor_numel(t) != 1 || t->data_kind != IR_DATA_INLINE ||
		    t->bytes.len < ir_dtype_size(t->dtype))
			return 0;
		const char *p = t->bytes.data;
		switch (t->dtype) {
		case IR_DTYPE_BOOL: case IR_DTYPE_UINT8:
			*r = (unsigned char)p[0]; return 1;
		case IR_DTYPE_INT8: *r = (signed char)p[0]; return 1;
		case IR_DTYPE_INT16: { int16_t x; memcpy(&x, p, 2); *r = x; return 1; }
		case IR_DTYPE_INT32: { int32_t x; memcpy(&x, p, 4); *r = x; return 1; }
		case IR_DTYPE_INT64: { int64_t x; memcpy(&x, p, 8);
			if (x > (1LL << 53) || x < -(1LL << 53))
				return 0;
			*r = (double)x; return 1; }
		case IR_DTYPE_FLOAT: { float x; memcpy(&x, p, 4); *r = x; return 1; }
		case IR_DTYPE_DOUBLE: memcpy(r, p, 8); return 1;
		default: return 0;
		}
	}
	struct ir_node *p = v ? v->producer : NULL;
	if (!p || depth > COND_DEPTH || strncmp(p->kind, "onnx::", 6) ||
	    p->noutputs != 1 || p->ninputs < 1 || p->ninputs > 2)
		return 0;
	const char *op = p->kind + 6;
	double a, b = 0;
	if (!p->inputs[0] || !const_eval(p->inputs[0], &a, depth + 1))
		return 0;
	if (!strcmp(op, "Identity") || !strcmp(op, "Squeeze") ||
	    !strcmp(op, "Unsqueeze") || !strcmp(op, "Reshape")) {
		*r = a;
		return 1;
	}
	if (!strcmp(op, "Not") && p->ninputs == 1) {
		*r = a == 0;
		return 1;
	}
	if (!strcmp(op, "Neg") && p->ninputs == 1) {
		*r = -a;
		return 1;
	}
	if (!strcmp(op, "Cast") && p->ninputs == 1) {
		struct ir_attr *to = ir_node_find_attr(p, "to");
		if (!to || to->kind != IR_ATTR_INT)
			return 0;
		switch ((enum ir_dtype)to->u.i) {
		case IR_DTYPE_BOOL: *r = a != 0; return 1;
		case IR_DTYPE_INT8: case IR_DTYPE_INT16: case IR_DTYPE_INT32:
		case IR_DTYPE_INT64: case IR_DTYPE_UINT8:
			if (!isfinite(a))
				return 0;
			*r = trunc(a);
			return 1;
		case IR_DTYPE_FLOAT: *r = (float)a; return 1;
		case IR_DTYPE_DOUBLE: *r = a; return 1;
		default: return 0;
		}
	}
	if (p->ninputs != 2 || !p->inputs[1] ||
	    !const_eval(p->inputs[1], &b, depth + 1))
		return 0;
	if (!strcmp(op, "And"))
		*r = a != 0 && b != 0;
	else if (!strcmp(op, "Or"))
		*r = a != 0 || b != 0;
	else if (!strcmp(op, "Xor"))
		*r = (a != 0) != (b != 0);
	else if (!strcmp(op, "Equal"))
		*r = a == b;
	else if (!strcmp(op, "Less"))
		*r = a < b;
	else if (!strcmp(op, "Greater"))
		*r = a > b;
	else if (!strcmp(op, "LessOrEqual"))
		*r = a <= b;
	else if (!strcmp(op, "GreaterOrEqual"))
		*r = a >= b;
	else
		return 0;
	return 1;
}

/* The branch k of If n, known to be taken, lowered in place before n: its
 * nodes move into the enclosing block and are lowered there; the If's
 * outputs become the branch's returns (typed by that branch). */
static void inline_branch(struct lower_ctx *c, struct ir_node *n, int k)
{
	struct ir_block *b = n->blocks[k], *outer = c->blk;
	struct ir_node *first = NULL;

	while (b->first) {
		struct ir_node *m = b->first;
		ir_node_unlink(m);
		ir_block_insert_before(n, m);
		if (!first)
			first = m;
	}
	for (struct ir_node *m = first, *next; m && m != n; m = next) {
		next = m->next;
		c->blk = outer;
		lower_node(c, m);
	}
	c->blk = outer;
	c->cur = n;
	c->pos = n;
	if (b->nreturns != n->noutputs) {
		c->nmalformed++;
		diag_error(c->d, "prim::If%s%s: a branch returns %u values for "
			   "%u outputs", n->scope ? " at " : "",
			   n->scope ? n->scope : "", b->nreturns, n->noutputs);
		return;
	}
	for (uint32_t i = 0; i < n->noutputs; i++) {
		struct ir_value *r = lw_remap(c, b->returns[i]);
		if (r && r != n->outputs[i])
			n->outputs[i]->aux = r;
	}
}

/* The type of output `which` of If n from its branches' returned types t
 * and e: one dtype (refused, returning NULL, when both are known and
 * differ), the shape where they agree (unknown dims where they do not, no
 * rank where the ranks differ). */
struct ir_type *lw_if_out_type(struct lower_ctx *c, struct ir_node *n,
			       uint32_t which, const struct ir_type *t,
			       const struct ir_type *e)
{
	if (t->kind != IR_TYPE_TENSOR || e->kind != IR_TYPE_TENSOR)
		return t->kind == IR_TYPE_TENSOR || e->kind != IR_TYPE_TENSOR
		       ? (struct ir_type *)t : (struct ir_type *)e;
	if (t->dtype != IR_DTYPE_UNDEFINED && e->dtype != IR_DTYPE_UNDEFINED &&
	    t->dtype != e->dtype) {
		const char *name = which < n->noutputs && n->outputs[which]->name
				   ? n->outputs[which]->name : NULL;
		c->nunsupported++;
		diag_error(c->d, "prim::If%s%s%s%s%s: output %u%s%s%s is %s in "
			   "the then-branch but %s in the else-branch, and an "
			   "ONNX If needs one dtype (the condition is not "
			   "known at export)",
			   n->scope ? " at " : "", n->scope ? n->scope : "",
			   n->source ? " (" : "", n->source ? n->source : "",
			   n->source ? ")" : "", which, name ? " (%" : "",
			   name ? name : "", name ? ")" : "",
			   ir_dtype_torch_name(t->dtype),
			   ir_dtype_torch_name(e->dtype));
		return NULL;
	}
	if (t->rank < 0 || e->rank < 0) {
		struct ir_type *r = ir_type_copy(c->g, t->rank < 0 ? e : t);
		if (r->dtype == IR_DTYPE_UNDEFINED)
			r->dtype = t->rank < 0 ? t->dtype : e->dtype;
		return r;
	}
	enum ir_dtype dt = t->dtype != IR_DTYPE_UNDEFINED ? t->dtype : e->dtype;
	if (t->rank != e->rank && c->opset < 11) {
		c->nunsupported++;
		diag_error(c->d, "prim::If%s%s%s%s%s: output %u is rank %d in "
			   "the then-branch but rank %d in the else-branch, and "
			   "an ONNX If before opset 11 needs one rank (the "
			   "condition is not known at export)",
			   n->scope ? " at " : "", n->scope ? n->scope : "",
			   n->source ? " (" : "", n->source ? n->source : "",
			   n->source ? ")" : "", which, t->rank, e->rank);
		return NULL;
	}
	if (t->rank != e->rank)
		return ir_type_tensor(c->g, dt, -1, NULL);
	struct ir_type *r = ir_type_copy(c->g, t);
	r->dtype = dt;
	for (int i = 0; i < r->rank; i++) {
		const struct ir_dim *x = &t->dims[i], *y = &e->dims[i];
		int same = x->kind == y->kind &&
			   (x->kind != IR_DIM_FIXED || x->value == y->value) &&
			   (x->kind != IR_DIM_SYMBOL ||
			    (x->symbol && y->symbol &&
			     !strcmp(x->symbol, y->symbol)));
		if (!same) {
			r->dims[i].kind = IR_DIM_UNKNOWN;
			r->dims[i].value = 0;
			r->dims[i].symbol = NULL;
		}
	}
	return r;
}

static void lower_if(struct lower_ctx *c, struct ir_node *n)
{
	struct ir_value *cond = lw_tensor(c, n, 0);
	double known;
	if (!cond || n->nblocks != 2) {
		lw_report(c, n, "malformed prim::If");
		return;
	}
	if (const_eval(cond, &known, 0)) {
		inline_branch(c, n, known != 0 ? 0 : 1);
		return;
	}
	if (b_dtype(cond) != IR_DTYPE_BOOL)
		cond = b_cast(c, cond, IR_DTYPE_BOOL);
	struct ir_node *nd = new_before(c, "onnx::If", 1, n->noutputs);
	nd->inputs[0] = cond;
	static const char *const names[2] = { "then_branch", "else_branch" };
	for (int k = 0; k < 2; k++) {
		struct ir_block *b = n->blocks[k];
		ir_node_add_attr(c->g, nd, names[k], IR_ATTR_GRAPH)->u.g = b;
		b->owner = nd;
	}
	n->nblocks = 0;
	struct lower_ctx save = *c;
	struct lw_list *after[2];
	for (int k = 0; k < 2; k++) {
		c->lists = save.lists;
		lower_block(c, nd->attrs[k].u.g);
		after[k] = c->lists;
	}
	save.nunsupported = c->nunsupported;
	save.nmalformed = c->nmalformed;
	*c = save;
	nd = lw_if_lists(c, n, nd, after);
	if (!nd->noutputs) {
		/* an If with no outputs (a branch that only warned, as
		 * torch.nn.functional's size checks): ONNX has no effects */
		ir_node_unlink(nd);
		return;
	}
	struct ir_block *tb = nd->attrs[0].u.g, *eb = nd->attrs[1].u.g;
	for (uint32_t i = 0; i < n->noutputs; i++) {
		struct ir_value *o = n->outputs[i];
		ir_node_set_output(nd, i, o);
		if (i >= tb->nreturns) {
			o->type = onnx_type(c, o->type);
			continue;
		}
		struct ir_type *t = tb->returns[i]->type;
		if (i < eb->nreturns) {
			t = lw_if_out_type(c, n, i, t, eb->returns[i]->type);
			if (!t)
				return;
		}
		o->type = merge_type(c, t, o->type);
	}
}

/* A carried value that enters loop n as None and that the body returns
 * unchanged (its parameter, or a value typed None) stays None: it leaves
 * the loop (ONNX Loop carries tensors and sequences only), its parameter
 * and output read the None that went in (GeneralizedRCNNTransform's
 * `targets` when none are given). */
static void drop_none_carried(struct lower_ctx *c, struct ir_node *n)
{
	struct ir_block *b = n->blocks[0];
	uint32_t k = 2;

	if (b->nreturns != n->ninputs - 1 || n->noutputs != n->ninputs - 2)
		return;
	for (uint32_t i = 2; i < n->ninputs; i++) {
		struct ir_value *p = b->params[i - 1], *r = b->returns[i - 1];
		if (!lw_is_none(c, n, (int)i) ||
		    (r != p && r->type->kind != IR_TYPE_NONE)) {
			n->inputs[k] = n->inputs[i];
			b->params[k - 1] = p;
			b->returns[k - 1] = r;
			n->outputs[k - 2] = n->outputs[i - 2];
			k++;
			continue;
		}
		p->aux = lw_in(c, n, (int)i);
		n->outputs[i - 2]->aux = p->aux;
	}
	b->nparams -= n->ninputs - k;
	b->nreturns -= n->ninputs - k;
	n->noutputs -= n->ninputs - k;
	n->ninputs = k;
}

#define LOWER_UNROLL_MAX_ITERS 64   /* iterations of one loop */
#define LOWER_UNROLL_MAX_NODES 4096 /* body nodes x iterations */

static uint32_t block_size(const struct ir_block *b, int depth)
{
	uint32_t k = 0;

	if (depth > 64)
		return LOWER_UNROLL_MAX_NODES + 1;
	for (const struct ir_node *x = b->first; x; x = x->next) {
		k++;
		for (uint32_t i = 0; i < x->nblocks; i++)
			k += block_size(x->blocks[i], depth + 1);
		if (k > LOWER_UNROLL_MAX_NODES)
			break;
	}
	return k;
}

/* 1 when block b (of loop, or nested) writes in place (copy_, add_...)
 * into a value made before the loop, which a Loop body cannot. */
static int writes_outer(const struct ir_block *b, const struct ir_node *loop,
			int depth)
{
	if (depth > 32)
		return 0;
	for (const struct ir_node *x = b->first; x; x = x->next) {
		size_t kl = strlen(x->kind);
		if (x->ninputs && x->inputs[0] && kl > 2 &&
		    x->kind[kl - 1] == '_' && x->kind[kl - 2] != '_' &&
		    !strncmp(x->kind, "aten::", 6)) {
			/* the written value, or the base of the views the
			 * body took of it */
			const struct ir_value *v = x->inputs[0];
			for (int g = 0; g < 64; g++) {
				const struct ir_block *o = v->producer ?
					v->producer->owner : NULL;
				int in = 0;
				for (int h = 0; o && o->owner && h < 256;
				     o = o->owner->owner, h++)
					in |= o->owner == loop;
				if (!in)
					return 1;
				if (!lw_is_view_op(v->producer) ||
				    !v->producer->ninputs)
					break;
				v = v->producer->inputs[0];
			}
		}
		for (uint32_t i = 0; i < x->nblocks; i++)
			if (writes_outer(x->blocks[i], loop, depth + 1))
				return 1;
	}
	return 0;
}

/* 1 when block b (of loop, or nested) indexes a list made before the loop
 * whose elements are not tensors (d.items()'s tuples, str keys): no ONNX
 * sequence holds them. */
static int reads_outer_items(const struct ir_block *b,
			     const struct ir_node *loop, int depth)
{
	if (depth > 32)
		return 0;
	for (const struct ir_node *x = b->first; x; x = x->next) {
		const struct ir_value *l = x->ninputs ? x->inputs[0] : NULL;
		if (x->op == OP_aten___getitem__ && l &&
		    l->type->kind == IR_TYPE_LIST && l->type->nelems == 1 &&
		    l->type->elems[0]->kind != IR_TYPE_TENSOR &&
		    !lw_defined_in((struct ir_block *)b, (struct ir_value *)l))
			return 1;
		for (uint32_t i = 0; i < x->nblocks; i++)
			if (reads_outer_items(x->blocks[i], loop, depth + 1))
				return 1;
	}
	return 0;
}

/* Loop n of a trip count known here (a len the script stage could not
 * fold: a list lower follows element-wise) whose carried lists change
 * (ir_loop_changes_lists), whose body writes in place into a value made
 * before it, or indexes a list of non-tensors made before it, whose condition stays a constant true: the
 * body is copied before n once per iteration and the copies lowered in
 * place, as the script stage unrolls what it can (lib/script/unroll.c);
 * the lists become known element by element.  1 when unrolled. */
static int unroll_loop(struct lower_ctx *c, struct ir_node *n)
{
	struct ir_block *body = n->blocks[0], *outer = c->blk;
	uint32_t nc = n->ninputs - 2;
	int64_t trips, cond, keep;

	if (!lw_int(c, n, 0, &trips) || !lw_int(c, n, 1, &cond) ||
	    body->nreturns != nc + 1 || n->noutputs != nc ||
	    (!ir_loop_changes_lists(n) && !writes_outer(body, n, 0) &&
	     !reads_outer_items(body, n, 0)))
		return 0;
	struct ir_node *cp = body->returns[0]->producer;
	struct ir_attr *ca = cp && cp->op == OP_prim_Constant &&
			     !lw_defined_in(body, body->returns[0])
			     ? ir_node_find_attr(cp, "value") : NULL;
	if (!ca || ca->kind != IR_ATTR_INT || !(keep = ca->u.i))
		return 0;
	if (!cond || trips < 0)
		trips = 0;
	uint64_t size = block_size(body, 0) + 1;
	if (trips > LOWER_UNROLL_MAX_ITERS ||
	    (uint64_t)trips * size > LOWER_UNROLL_MAX_NODES)
		return 0;
	struct ir_value **carried = ir_alloc(c->g, sizeof(*carried) * (nc + 1));
	struct ir_vmap m = { 0 };
	for (uint32_t i = 0; i < nc; i++)
		carried[i] = n->inputs[2 + i];
	for (int64_t it = 0; it < trips; it++) {
		struct ir_node *k = ir_node_new(c->g, NULL,
			aten_op_name(OP_prim_Constant), 0, 1);
		ir_node_set_output(k, 0, ir_value_new(c->g, NULL,
				   ir_type_new(c->g, IR_TYPE_INT)));
		ir_node_add_attr(c->g, k, "value", IR_ATTR_INT)->u.i = it;
		k->scope = n->scope;
		k->source = n->source;
		ir_block_insert_before(n, k);
		int bad = ir_vmap_put(&m, body->params[0], k->outputs[0]);
		for (uint32_t i = 0; i < nc && !bad; i++)
			bad = ir_vmap_put(&m, body->params[1 + i], carried[i]);
		struct ir_node *first = NULL;
		for (struct ir_node *x = body->first; x && !bad; x = x->next) {
			struct ir_node *y = ir_node_clone(c->g, &m, x, 0);
			if (!y) {
				bad = 1;
				break;
			}
			ir_block_insert_before(n, y);
			if (!first)
				first = y;
		}
		if (bad) {
			ir_vmap_free(&m);
			lw_report(c, n, "out of memory unrolling the loop");
			return 1;
		}
		for (struct ir_node *y = first, *next; y && y != n; y = next) {
			next = y->next;
			c->blk = outer;
			lower_node(c, y);
			if (c->nmalformed)
				break;
		}
		c->blk = outer;
		for (uint32_t i = 0; i < nc; i++)
			carried[i] = ir_vmap_get(&m, body->returns[1 + i]);
		if (c->nmalformed)
			break;
	}
	ir_vmap_free(&m);
	c->cur = n;
	c->pos = n;
	for (uint32_t i = 0; i < nc; i++)
		if (carried[i] != n->outputs[i])
			n->outputs[i]->aux = lw_remap(c, carried[i]);
	return 1;
}

static void lower_loop(struct lower_ctx *c, struct ir_node *n)
{
	if (n->nblocks != 1 || n->ninputs < 2 ||
	    n->blocks[0]->nparams != n->ninputs - 1) {
		lw_report(c, n, "malformed prim::Loop");
		return;
	}
	drop_none_carried(c, n);
	if (unroll_loop(c, n))
		return;
	uint32_t ncar = n->ninputs - 2;
	struct ir_value **ins = ir_alloc(c->g, sizeof(*ins) * n->ninputs);
	for (uint32_t i = 0; i < n->ninputs; i++) {
		struct ir_value *v = lw_in(c, n, (int)i);
		if (i >= 2 && v && (v->type->kind == IR_TYPE_LIST ||
				    b_is_seq(v))) {
			if (c->opset < 13) {
				/* Loop carries sequences from opset 13 */
				lw_report(c, n, "a list carried through a loop "
				       "needs ONNX Loop with sequences "
				       "(opset 13)");
				return;
			}
			ins[i] = lw_seq(c, n, (int)i);
		} else {
			ins[i] = lw_tensor(c, n, (int)i);
		}
		if (!ins[i]) {
			lw_report(c, n, "a loop input is not a tensor");
			return;
		}
	}
	ins[0] = b_cast(c, ins[0], IR_DTYPE_INT64);
	ins[1] = b_cast(c, ins[1], IR_DTYPE_BOOL);
	struct ir_node *nd = new_before(c, "onnx::Loop", n->ninputs,
					n->noutputs);
	memcpy(nd->inputs, ins, sizeof(*ins) * n->ninputs);
	struct ir_block *b = n->blocks[0];
	struct ir_value **old = b->params;
	uint32_t nold = b->nparams;
	b->params = NULL;
	b->nparams = 0;
	old[0]->type = ir_type_tensor(c->g, IR_DTYPE_INT64, 0, NULL);
	ir_block_add_param(c->g, b, old[0]);
	ir_block_add_param(c->g, b, ir_value_new(c->g, NULL,
			   ir_type_tensor(c->g, IR_DTYPE_BOOL, 0, NULL)));
	for (uint32_t i = 1; i < nold; i++) {
		old[i]->type = merge_type(c, old[i]->type, nd->inputs[i + 1]->type);
		ir_block_add_param(c->g, b, old[i]);
	}
	ir_node_add_attr(c->g, nd, "body", IR_ATTR_GRAPH)->u.g = b;
	b->owner = nd;
	n->nblocks = 0;
	struct lower_ctx save = *c;
	lower_block(c, b);
	save.lists = c->lists;
	save.nunsupported = c->nunsupported;
	*c = save;
	lw_fix_seq_dtypes(c, nd, b);
	if (b->nreturns >= 1 && b_dtype(b->returns[0]) != IR_DTYPE_BOOL)
		diag_warning(c->d, "loop condition is not a bool");
	for (uint32_t i = 0; i < n->noutputs && i < ncar; i++) {
		ir_node_set_output(nd, i, n->outputs[i]);
		if (b->params[i + 2]->type->kind == IR_TYPE_LIST)
			n->outputs[i]->type = b->params[i + 2]->type;
		else
			n->outputs[i]->type = merge_type(c,
				b->params[i + 2]->type, n->outputs[i]->type);
	}
}

static int is_prim_data(enum aten_op op)
{
	return op == OP_prim_Constant || op == OP_prim_ListConstruct ||
	       op == OP_prim_TupleConstruct;
}

/* An aten node must have every schema argument as an input (docs/ir.md):
 * no absent input, and as many as some overload takes.  Reports and
 * returns 0 when not. */
static int arity_ok(struct lower_ctx *c, struct ir_node *n)
{
	size_t count;
	const struct aten_schema *s = aten_schema_lookup(n->kind, &count);
	for (uint32_t i = 0; i < n->ninputs; i++)
		if (!n->inputs[i])
			goto bad;
	if (!s)
		return 1; /* not in torch's table: nothing to check */
	for (size_t i = 0; i < count; i++)
		if (s[i].nargs == n->ninputs ||
		    ((s[i].flags & ATEN_SCHEMA_VARARG) &&
		     n->ninputs >= s[i].nargs))
			return 1;
bad:
	c->nmalformed++;
	diag_error(c->d, "%s%s%s: %u inputs, which no overload of its schema "
		   "takes (every argument must be an input)", n->kind,
		   n->scope ? " at " : "", n->scope ? n->scope : "",
		   n->ninputs);
	return 0;
}

/* torch ScalarType number of an ONNX dtype, -1 when none. */
static int64_t torch_scalar_type(enum ir_dtype dt)
{
	for (int64_t st = 0; st < 16; st++)
		if (lw_torch_dtype(st) == dt && dt != IR_DTYPE_UNDEFINED)
			return st;
	return -1;
}

/* The node becomes a prim::Constant (no inputs), with an int value when
 * has_value. */
static void to_constant(struct lower_ctx *c, struct ir_node *n, int has_value,
			int64_t v)
{
	ir_node_set_kind(n, aten_op_name(OP_prim_Constant));
	n->ninputs = 0;
	n->nattrs = 0;
	if (has_value)
		ir_node_add_attr(c->g, n, "value", IR_ATTR_INT)->u.i = v;
}

int lw_str_eq(struct lower_ctx *c, struct ir_value *a, struct ir_value *b)
{
	const struct ir_attr *s[2];
	struct ir_value *v[2] = { a, b };
	for (int i = 0; i < 2; i++) {
		struct ir_node *p = v[i] ? v[i]->producer : NULL;
		s[i] = p && p->op == OP_prim_Constant ?
		       ir_node_find_attr(p, "value") : NULL;
		if (!s[i] || s[i]->kind != IR_ATTR_STRING)
			return -1;
	}
	return s[0]->u.s.len == s[1]->u.s.len &&
	       (!s[0]->u.s.len ||
		!memcmp(s[0]->u.s.data, s[1]->u.s.data, s[0]->u.s.len));
}

static void to_str_constant(struct lower_ctx *c, struct ir_node *n,
			    const char *s, size_t len)
{
	to_constant(c, n, 0, 0);
	struct ir_attr *a = ir_node_add_attr(c->g, n, "value", IR_ATTR_STRING);
	a->u.s.data = ir_strndup(c->g, s, len);
	a->u.s.len = len;
}

/* Ops on a tensor's metadata that torch's exporter folds before the
 * symbolics run (device, dtype, is_cuda): they become constants here.  A
 * Device has no ONNX meaning: it becomes a None-like constant that the
 * creation ops' device arguments ignore; its type is "cpu".  str() of a
 * constant int and == / != of constant strs fold too.  Returns 1 when n
 * was one. */
static int fold_meta(struct lower_ctx *c, struct ir_node *n)
{
	if (n->noutputs != 1)
		return 0;
	if (n->op == OP_aten_device || n->op == OP_prim_device ||
	    n->op == OP_prim_layout || n->op == OP_aten_layout) {
		to_constant(c, n, 0, 0);
		return 1;
	}
	if (n->op == OP_prim_is_cuda || n->op == OP_aten_is_cuda ||
	    n->op == OP_prim_is_sparse || n->op == OP_prim_is_quantized ||
	    n->op == OP_prim_is_mkldnn || n->op == OP_prim_is_meta ||
	    n->op == OP_prim_requires_grad) {
		to_constant(c, n, 1, 0);
		return 1;
	}
	if (n->op == OP_prim_type && n->ninputs == 1 &&
	    n->inputs[0]->type->kind == IR_TYPE_DEVICE) {
		/* a device's type: "cpu", as is_cuda is false (torchvision's
		 * batched_nms picks a size threshold by it) */
		to_str_constant(c, n, "cpu", 3);
		return 1;
	}
	int64_t iv;
	if (n->op == OP_aten_str && n->ninputs == 1 &&
	    n->inputs[0]->type->kind == IR_TYPE_INT && lw_int(c, n, 0, &iv)) {
		/* str() of a constant int (SSD's feature names): the digits */
		char buf[32];
		int len = snprintf(buf, sizeof(buf), "%lld", (long long)iv);
		to_str_constant(c, n, buf, (size_t)len);
		return 1;
	}
	if ((n->op == OP_aten_eq || n->op == OP_aten_ne) && n->ninputs == 2 &&
	    n->inputs[0]->type->kind == IR_TYPE_STR &&
	    n->inputs[1]->type->kind == IR_TYPE_STR) {
		/* two constant strs: the answer */
		int eq = lw_str_eq(c, lw_in(c, n, 0), lw_in(c, n, 1));
		if (eq < 0)
			return 0;
		to_constant(c, n, 1, n->op == OP_aten_eq ? eq : !eq);
		return 1;
	}
	if (n->op == OP_prim_dtype && n->ninputs == 1) {
		struct ir_value *x = lw_in(c, n, 0);
		int64_t st = x ? torch_scalar_type(b_dtype(x)) : -1;
		if (st < 0)
			return 0;
		to_constant(c, n, 1, st);
		return 1;
	}
	return 0;
}

/* Integer arithmetic on constants, as a trace records size arithmetic
 * (x.size(1) % 2 through NumToTensor, remainder, Int): folded here, as
 * torch's exporter folds it, so that the pads, shapes and slice bounds
 * made from it are constants.  Inputs: ints, or 0-d Long constants; a
 * Tensor result becomes a 0-d Long constant.  1 when n was folded. */
static int fold_int_arith(struct lower_ctx *c, struct ir_node *n)
{
	static const enum aten_op ops[] = {
		OP_aten_add, OP_aten_sub, OP_aten_mul, OP_aten_floordiv,
		OP_aten_floor_divide, OP_aten_remainder, OP_aten_neg,
		OP_aten_Int, OP_prim_NumToTensor, OP_aten_ScalarImplicit,
	};
	const char *k = n->kind;
	int64_t a[3] = { 0, 0, 1 }, r;
	size_t i;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (n->op == ops[i])
			break;
	if (i == sizeof(ops) / sizeof(ops[0]) || n->noutputs != 1 ||
	    n->ninputs < 1 || n->ninputs > 3)
		return 0;
	enum ir_type_kind ok = n->outputs[0]->type->kind;
	if (ok != IR_TYPE_INT && ok != IR_TYPE_TENSOR)
		return 0;
	for (uint32_t j = 0; j < n->ninputs; j++) {
		struct ir_value *x = lw_in(c, n, (int)j);
		if (!x || !lw_int(c, n, (int)j, &a[j]))
			return 0;
		if (x->type->kind == IR_TYPE_BOOL ||
		    (x->type->kind == IR_TYPE_TENSOR &&
		     b_dtype(x) != IR_DTYPE_INT64))
			return 0;
	}
	/* ints wrap as torch's int64_t does (intmath.h) */
	if (n->op == OP_aten_add)
		r = i64_wrap_add(a[0], i64_wrap_mul(a[1], a[2]));
	else if (n->op == OP_aten_sub)
		r = i64_wrap_sub(a[0], i64_wrap_mul(a[1], a[2]));
	else if (n->op == OP_aten_mul)
		r = i64_wrap_mul(a[0], a[1]);
	else if (n->op == OP_aten_neg)
		r = i64_wrap_neg(a[0]);
	else if (n->op == OP_aten_remainder ||
		 n->op == OP_aten_floordiv ||
		 n->op == OP_aten_floor_divide) {
		int rem = n->op == OP_aten_remainder;
		if (a[1] == 0)
			return 0;
		/* INT64_MIN // -1 and % -1: torch dies with SIGFPE; refused */
		if (rem ? i64_mod(a[0], a[1], &r) :
			  i64_floordiv(a[0], a[1], &r)) {
			c->nunsupported++;
			diag_error(c->d, "%s%s%s: integer overflow: %lld %s %lld "
				   "has no int64 result", k,
				   n->source ? " at " : "",
				   n->source ? n->source : "",
				   (long long)a[0], rem ? "%" : "//",
				   (long long)a[1]);
			return 1;
		}
	} else {
		r = a[0];
	}
	if (ok == IR_TYPE_INT) {
		to_constant(c, n, 1, r);
		return 1;
	}
	n->outputs[0]->aux = b_const_i64(c, r);
	ir_node_unlink(n);
	return 1;
}

/* 1 when every ONNX node a symbolic built (after `before`, up to n) exists
 * at the target opset with its number of inputs; else sets c->why to the
 * op and the first opset that has it, and returns 0. */
static int opset_ok(struct lower_ctx *c, struct ir_node *before,
		    struct ir_node *n)
{
	struct ir_node *m = before ? before->next : c->blk->first;
	for (; m && m != n; m = m->next) {
		if (strncmp(m->kind, "onnx::", 6))
			continue;
		const char *op = m->kind + 6;
		const struct onnx_schema *s = onnx_schema_find("", op, c->opset);
		if (s && !s->deprecated && (int)m->ninputs >= s->min_input &&
		    (int)m->ninputs <= s->max_input)
			continue;
		int since = 0;
		for (int v = c->opset + 1; v <= 22 && !since; v++) {
			const struct onnx_schema *t = onnx_schema_find("", op, v);
			if (t && !t->deprecated && (int)m->ninputs >= t->min_input &&
			    (int)m->ninputs <= t->max_input)
				since = v;
		}
		if (since)
			c->why = ir_strfmt(c->g, "needs ONNX %s of opset %d "
					   "(or later)", op, since);
		else
			c->why = ir_strfmt(c->g, "ONNX %s as built is not "
					   "valid at opset %d", op, c->opset);
		return 0;
	}
	return 1;
}

/* After n's symbolic bound its outputs: an output that reads an
 * existing value (its symbolic returned one) aliases n's input 0 at the
 * aten level (so that a write into it finds input 0's alias chain), or is
 * a copy of that value (lw_copies_input); the result of an in-place op is
 * its input 0, which now reads what the op computed: 0, or 1 with
 * c->why. */
static int bind_aliases(struct lower_ctx *c, struct ir_node *n,
			struct ir_value *in0, struct ir_value **out,
			int inplace)
{
	for (uint32_t i = 0; i < n->noutputs; i++) {
		struct ir_value *o = n->outputs[i];
		if (!out[i] || !o->aux || (inplace && i == 0))
			continue;
		if (o->type->kind == IR_TYPE_TENSOR && lw_copies_input(c, n, i))
			lw_set_copy(c, o, lw_remap(c, o));
		else if (i == 0 && in0 && lw_remap(c, in0) == lw_remap(c, o))
			o->aux = in0;
	}
	if (!inplace || !n->noutputs || !out[0] || !in0)
		return 0;
	struct ir_value *o = n->outputs[0], *r = lw_remap(c, o);
	if (r == lw_remap(c, in0)) {
		if (o->aux)
			o->aux = in0; /* a no-op: the result is in0 */
		return 0;
	}
	struct ir_value *root = lw_alias_root(c, in0);
	if (o->aux) {
		/* an existing value: in0 gets a copy of it, and the op's
		 * result is in0 itself */
		lw_set_copy(c, root, r);
		o->aux = in0;
	} else {
		root->aux = o;
	}
	return lw_write_back(c, in0);
}

/* The symbolic for a node of kind k and registry id op: the table's, or
 * symbolic_fft.c's for its internal complex::OP kinds. */
static symbolic_fn node_symbolic(struct lower_ctx *c, const char *k,
				 enum aten_op op)
{
	if (op != OP_NONE)
		return symbolic_lookup(op, c->opset);
	return !strncmp(k, "complex::", 9) ? symbolic_fft_complex(k) : NULL;
}

static void lower_node(struct lower_ctx *c, struct ir_node *n)
{
	/* input 0 as the aten value, before remap: what an in-place op
	 * writes and what an alias output refers to */
	struct ir_value *in0 = n->ninputs ? n->inputs[0] : NULL;
	for (uint32_t i = 0; i < n->ninputs; i++)
		n->inputs[i] = lw_remap(c, n->inputs[i]);
	c->cur = n;
	c->pos = n;
	c->why = NULL;
	const char *k = n->kind;

	if (n->op == OP_prim_Constant) {
		struct ir_attr *a = ir_node_find_attr(n, "value");
		if (a && a->kind == IR_ATTR_TENSOR && n->noutputs == 1) {
			ir_node_set_kind(n, "onnx::Constant");
			n->outputs[0]->type = merge_type(c,
				ir_tensor_type(c->g, a->u.t), n->outputs[0]->type);
		}
		return;
	}
	if (is_prim_data(n->op))
		return;
	if (fold_meta(c, n) || fold_int_arith(c, n))
		return;
	if (n->op == OP_prim_ListUnpack || n->op == OP_prim_TupleUnpack) {
		struct ir_value *vals[256];
		struct ir_node *tp = producer(c, n, 0);
		if (n->op == OP_prim_TupleUnpack && tp &&
		    tp->op == OP_prim_TupleConstruct &&
		    tp->ninputs == n->noutputs) {
			/* a tuple lower made (a dict's items) */
			for (uint32_t i = 0; i < n->noutputs; i++)
				n->outputs[i]->aux = lw_remap(c, tp->inputs[i]);
			ir_node_unlink(n);
			return;
		}
		int cnt = lw_list(c, n, 0, vals, 256);
		if (cnt != (int)n->noutputs) {
			lw_report(c, n, "the list is not known element-wise");
			return;
		}
		for (int i = 0; i < cnt; i++)
			n->outputs[i]->aux = vals[i];
		ir_node_unlink(n);
		return;
	}
	if (n->op == OP_prim_If) {
		lower_if(c, n);
		ir_node_unlink(n);
		return;
	}
	if (n->op == OP_prim_Loop) {
		lower_loop(c, n);
		ir_node_unlink(n);
		return;
	}
	int isaten = !strncmp(k, "aten::", 6);
	if (isaten && !arity_ok(c, n))
		return;
	if (isaten && lower_check_inputs(c, n))
		return;
	if (isaten && c->o->export_type == LOWER_EXPORT_ONNX_ATEN) {
		aten_node(c, n, 0);
		ir_node_unlink(n);
		return;
	}
	symbolic_fn fn = node_symbolic(c, k, n->op);
	int inplace = 0;
	size_t klen = strlen(k);
	if (!fn && klen > 2 && k[klen - 1] == '_' && k[klen - 2] != '_') {
		/* x.relu_(): the out-of-place op, and later uses of x in this
		 * block see the result (torch's remove-inplace-ops pass) */
		const char *base = ir_strndup(c->g, k, klen - 1);
		fn = node_symbolic(c, base, aten_op_id(base));
		inplace = fn != NULL;
	}
	if (n->op == OP_aten_copy_)
		inplace = fn != NULL;
	if (inplace && in0 && !lw_of_block(c, lw_alias_root(c, in0))) {
		fn = NULL;
		c->why = "in-place op on a value from an enclosing block";
	}
	if (inplace && fn && in0 &&
	    (lw_views_ok(c, in0) ||
	     (n->op == OP_aten_copy_ && lw_copy_target_ok(c, in0))))
		fn = NULL;
	/* a plugin's symbolic first (it overrides), then the built-in one
	 * when the plugin declines */
	int plug = lower_plugin_has(c->o->plugins, k, c->opset);
	for (int pass = plug ? 0 : 1; pass < 2; pass++) {
		symbolic_fn f = pass ? fn : lower_plugin_symbolic;
		if (!f)
			continue;
		int inpl = pass ? inplace : 0;
		if (!pass)
			c->why = NULL;
		struct ir_node *before = n->prev;
		struct ir_value **out = ir_alloc(c->g, sizeof(*out) *
						 (n->noutputs + 1));
		if (f(c, n, out) == 0 && opset_ok(c, before, n)) {
			struct ir_node *first = before ? before->next
						       : c->blk->first;
			for (uint32_t i = 0; i < n->noutputs; i++)
				if (out[i])
					bind_output(c, n->outputs[i], out[i],
						    first, n);
			if (bind_aliases(c, n, in0, out, inpl)) {
				lw_report(c, n, c->why);
				return;
			}
			if (lw_is_view_op(n) && n->noutputs &&
			    lw_remap(c, n->outputs[0]) == n->outputs[0])
				lw_add_view(c, n->outputs[0], n, in0);
			ir_node_unlink(n);
			return;
		}
		/* declined: drop what it built */
		struct ir_node *m = before ? before->next : c->blk->first;
		while (m && m != n) {
			struct ir_node *next = m->next;
			ir_node_unlink(m);
			m = next;
		}
	}
	if (isaten && (c->o->export_type == LOWER_EXPORT_ONNX_ATEN_FALLBACK ||
		       c->o->export_type == LOWER_EXPORT_ONNX_FALLTHROUGH)) {
		aten_node(c, n, c->o->export_type ==
				LOWER_EXPORT_ONNX_FALLTHROUGH);
		ir_node_unlink(n);
		return;
	}
	if (c->o->export_type == LOWER_EXPORT_ONNX_FALLTHROUGH)
		return;
	lw_report(c, n, c->why);
}

/* 1 when v is a parameter of b or made by a node of b (a subgraph must
 * return its own values: an outer one gets an Identity). */
int lw_defined_in(struct ir_block *b, struct ir_value *v)
{
	for (uint32_t i = 0; i < b->nparams; i++)
		if (b->params[i] == v)
			return 1;
	return v->producer && v->producer->owner == b;
}

/* The elements of a returned tuple, nested tuples flattened (torch's
 * (y, (h, c))), None left out. */
static void add_tuple_returns(struct lower_ctx *c, struct ir_block *b,
			      struct ir_node *p, int depth)
{
	for (uint32_t j = 0; j < p->ninputs; j++) {
		struct ir_value *v = lw_remap(c, p->inputs[j]);
		struct ir_node *q = v->producer;
		if (q && depth < 32 && q->op == OP_prim_TupleConstruct)
			add_tuple_returns(c, b, q, depth + 1);
		else if (v->type->kind != IR_TYPE_NONE)
			ir_block_add_return(c->g, b, v);
	}
}

/* The elements of a returned list, tuple or dict known element-wise
 * (lw_list records), nested ones flattened (a list of dicts: each dict's
 * values in insertion order, as torch.onnx.export flattens outputs). */
static void add_record_returns(struct lower_ctx *c, struct ir_block *b,
			       const struct lw_list *l, int depth)
{
	for (int j = 0; j < l->n; j++) {
		struct ir_value *v = lw_remap(c, l->vals[j]);
		struct lw_list *s = lw_find_list(c, v);
		struct ir_node *q = v->producer;
		if (s && depth < 32)
			add_record_returns(c, b, s, depth + 1);
		else if (q && depth < 32 && q->op == OP_prim_TupleConstruct)
			add_tuple_returns(c, b, q, depth + 1);
		else if (v->type->kind != IR_TYPE_NONE)
			ir_block_add_return(c->g, b, v);
	}
}

/* A graph output must have a shape (onnx.checker): an output of an
 * onnx::If whose branches return different ranks has none, and is
 * refused with one line (torch.onnx.export declares the then-branch's
 * shape, which is wrong when the else-branch runs). */
static void if_rank_output(struct lower_ctx *c, struct ir_value *v)
{
	struct ir_node *p = v->producer;
	if (!p || strcmp(p->kind, "onnx::If") || b_rank(v) >= 0 ||
	    v->type->kind != IR_TYPE_TENSOR || p->nattrs < 2)
		return;
	uint32_t k = 0;
	while (k < p->noutputs && p->outputs[k] != v)
		k++;
	struct ir_attr *at = ir_node_find_attr(p, "then_branch");
	struct ir_attr *ae = ir_node_find_attr(p, "else_branch");
	if (!at || !ae || at->kind != IR_ATTR_GRAPH ||
	    ae->kind != IR_ATTR_GRAPH)
		return;
	struct ir_block *t = at->u.g, *e = ae->u.g;
	if (k >= t->nreturns || k >= e->nreturns)
		return;
	int rt = b_rank(t->returns[k]), re = b_rank(e->returns[k]);
	if (rt < 0 || re < 0 || rt == re)
		return;
	c->nunsupported++;
	diag_error(c->d, "prim::If%s%s%s%s%s: output %u (%%%s) is rank %d in "
		   "the then-branch but rank %d in the else-branch, and it is "
		   "a graph output, which needs one shape (the condition is "
		   "not known at export)",
		   p->scope ? " at " : "", p->scope ? p->scope : "",
		   p->source ? " (" : "", p->source ? p->source : "",
		   p->source ? ")" : "", k, v->name ? v->name : "?", rt, re);
}

/* 1 when value r is defined in the lowered graph: a parameter of block b,
 * a weight, or the output of a node in place. */
static int defined_here(struct ir_block *b, struct ir_value *r)
{
	if (r->weight || (r->producer && r->producer->owner))
		return 1;
	for (uint32_t i = 0; i < b->nparams; i++)
		if (b->params[i] == r)
			return 1;
	return 0;
}

static void lower_block(struct lower_ctx *c, struct ir_block *b)
{
	c->blk = b;
	for (struct ir_node *n = b->first, *next; n; n = next) {
		next = n->next;
		c->blk = b;
		lower_node(c, n);
		if (c->nmalformed)
			return; /* the rest would only repeat it */
	}
	c->blk = b;
	c->pos = NULL;
	c->cur = NULL;
	/* returns: remapped or constant values get an Identity (or
	 * a constant) that defines the returned name */
	struct ir_value **rets = b->returns;
	uint32_t nret = b->nreturns;
	b->returns = NULL;
	b->nreturns = 0;
	for (uint32_t i = 0; i < nret; i++) {
		struct ir_value *r = rets[i];
		struct lw_list *l = b->owner ? NULL : lw_find_list(c, lw_remap(c, r));
		struct ir_node *p = r->producer;
		if (l) { /* a list or dict output: its elements, flattened */
			add_record_returns(c, b, l, 0);
			continue;
		}
		if (!b->owner && p && p->op == OP_prim_TupleConstruct) {
			add_tuple_returns(c, b, p, 0);
			continue;
		}
		if (!b->owner && r->type->kind == IR_TYPE_NONE)
			continue; /* torch drops None outputs */
		struct ir_value *m = lw_remap(c, r);
		if (b->owner) {
			/* a subgraph returns values of its own: a fresh
			 * constant, or an Identity of an outer value */
			struct ir_node tmp = { 0 };
			tmp.inputs = &m;
			tmp.ninputs = 1;
			struct ir_value *t = m;
			if (m->producer && is_prim_data(m->producer->op))
				t = lw_tensor(c, &tmp, 0);
			if (!t)
				t = m;
			if (!lw_defined_in(b, t))
				t = b_op1(c, "Identity", t);
			ir_block_add_return(c->g, b, t);
			continue;
		}
		if (m != r || (p && is_prim_data(p->op))) {
			struct ir_node tmp = { 0 };
			tmp.inputs = &m;
			tmp.ninputs = 1;
			struct ir_value *t = m;
			if (m->producer && is_prim_data(m->producer->op))
				t = lw_tensor(c, &tmp, 0);
			if (t && defined_here(b, r)) {
				/* r itself is defined already (an input or
				 * the value a later write replaced): the
				 * Identity defines a new output */
				struct ir_node *id = b_node(c, "Identity", 1, &t, 1);
				struct ir_value *u = b_done(c, id);
				u->type = merge_type(c, u->type, r->type);
				ir_block_add_return(c->g, b, u);
				continue;
			}
			if (t) {
				struct ir_node *id = b_node(c, "Identity", 1, &t, 1);
				ir_node_set_output(id, 0, r);
				r->type = merge_type(c, t->type, r->type);
				r->aux = NULL;
			}
		}
		ir_block_add_return(c->g, b, r);
	}
	if (!b->owner)
		for (uint32_t i = 0; i < b->nreturns; i++)
			if_rank_output(c, b->returns[i]);
}

/* --- clean-up ------------------------------------------------------------ */

static void count_uses(struct ir_block *b)
{
	for (struct ir_node *n = b->first; n; n = n->next) {
		for (uint32_t i = 0; i < n->ninputs; i++)
			if (n->inputs[i])
				n->inputs[i]->uses++;
		for (uint32_t i = 0; i < n->nblocks; i++)
			count_uses(n->blocks[i]);
		for (uint32_t i = 0; i < n->nattrs; i++)
			if (n->attrs[i].kind == IR_ATTR_GRAPH)
				count_uses(n->attrs[i].u.g);
	}
	for (uint32_t i = 0; i < b->nreturns; i++)
		b->returns[i]->uses++;
}

static void cleanup_block(struct lower_ctx *c, struct ir_block *b)
{
	/* last to first, so that a list goes before the constants in it */
	for (struct ir_node *n = b->last, *next; n; n = next) {
		next = n->prev;
		for (uint32_t i = 0; i < n->nblocks; i++)
			cleanup_block(c, n->blocks[i]);
		for (uint32_t i = 0; i < n->nattrs; i++)
			if (n->attrs[i].kind == IR_ATTR_GRAPH)
				cleanup_block(c, n->attrs[i].u.g);
		if (!is_prim_data(n->op)) {
			/* dead ONNX nodes (a symbolic's spare constant) */
			int used = 0;
			for (uint32_t i = 0; i < n->noutputs; i++)
				used |= n->outputs[i]->uses != 0;
			if (used || strncmp(n->kind, "onnx::", 6) ||
			    !strcmp(n->kind, "onnx::If") ||
			    !strcmp(n->kind, "onnx::Loop"))
				continue;
		}
		if (n->noutputs == 1 && n->outputs[0]->uses &&
		    c->o->export_type != LOWER_EXPORT_ONNX_FALLTHROUGH) {
			/* still used by an ONNX node: a constant tensor */
			struct ir_node tmp = { 0 };
			struct ir_value *v = n->outputs[0];
			tmp.inputs = &v;
			tmp.ninputs = 1;
			c->blk = b;
			c->pos = n;
			c->cur = n;
			struct ir_value *t = lw_tensor(c, &tmp, 0);
			if (t && t->producer && t->producer != n) {
				ir_node_set_output(t->producer, 0, v);
				v->type = t->type;
				ir_node_unlink(n);
			}
			continue;
		}
		if (n->noutputs == 1 && n->outputs[0]->uses)
			continue;
		for (uint32_t i = 0; i < n->ninputs; i++)
			if (n->inputs[i])
				n->inputs[i]->uses--;
		ir_node_unlink(n);
	}
}

static void clear_aux(struct ir_graph *g)
{
	for (uint32_t i = 0; i < g->vcap; i++)
		if (g->vtab[i]) {
			g->vtab[i]->aux = NULL;
			g->vtab[i]->uses = 0;
		}
}

/* Scalar weights (a traced archive's CONSTANTS.c0 = tensor(2)) are read
 * from their file into inline data, so that the symbolics see them as
 * constants as torch's exporter does.  The one place lower reads weight
 * bytes: at most 8 bytes each; a file that cannot be read leaves the
 * weight a reference. */
static void inline_scalar_weights(struct ir_graph *g)
{
	for (struct ir_weight *w = g->weights; w; w = w->next) {
		struct ir_tensor *t = w->tensor;
		size_t es = ir_dtype_size(t->dtype);
		if (t->data_kind != IR_DATA_REF || ir_tensor_numel(t) != 1 ||
		    es == 0 || es > 8 || t->ref.length < es)
			continue;
		char *p = ir_alloc(g, 8);
		if (weight_read(t->ref.file, t->ref.offset, p, es))
			continue;
		t->data_kind = IR_DATA_INLINE;
		t->bytes.data = p;
		t->bytes.len = es;
		t->ref.strides = NULL;
	}
}

int lower_graph(struct ir_graph *g, const struct lower_options *o,
		struct diag *d)
{
	if (g->level != IR_LEVEL_ATEN) {
		diag_error(d, "the input is ONNX-level IR already "
			   "(lower reads aten-level IR)");
		return EXIT_BAD_INPUT;
	}
	struct lower_ctx c = { 0 };
	struct ir_vmap views = { 0 };
	c.views = &views;
	c.g = g;
	c.d = d;
	c.o = o;
	c.opset = o->opset;
	clear_aux(g);
	inline_scalar_weights(g);
	lw_carry_lists(g, g->top, 0);
	lower_block(&c, g->top);
	ir_vmap_free(&views);
	if (c.nmalformed)
		return EXIT_BAD_INPUT;
	if (c.nunsupported)
		return EXIT_UNSUPPORTED;
	clear_aux(g);
	count_uses(g->top);
	cleanup_block(&c, g->top);
	/* graph inputs typed as scalars become 0-d tensors */
	for (uint32_t i = 0; i < g->top->nparams; i++)
		g->top->params[i]->type = onnx_type(&c, g->top->params[i]->type);
	clear_aux(g);
	g->level = IR_LEVEL_ONNX;
	if (ir_opset_version(g, "") < 0)
		ir_add_opset(g, "", o->opset);
	return EXIT_OK;
}

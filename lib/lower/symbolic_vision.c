/*
 * symbolic_vision.c - torchvision::* ops (nms, roi_align, roi_pool) and
 * the cases of aten::index, aten::where, split_with_sizes and unbind that
 * torchvision's detection models need and the opset tables decline:
 * boolean-mask and multi-tensor indexing, where(condition), split sizes
 * known only at run time, unbind over a dim of unknown size whose count a
 * prim::ListUnpack gives.  This table is consulted first (lower.c); each
 * entry handles its own cases and delegates the rest to the opset tables'
 * symbolic.  torchvision's ops/_register_onnx_ops.py and torch 1.13's
 * symbolic_opset9/11.py `index` are the semantic reference.
 */
#include <stdint.h>
#include <string.h>

#include "symbolic_common.h"
#include "symbolic_vision.h"

#define T(i) lw_tensor(c, n, (i))
#define MAXI 64

/* Gives v the tensor type dt with rank dims (dims[i] < 0: unknown). */
static void set_tensor_type(struct lower_ctx *c, struct ir_value *v,
			    enum ir_dtype dt, int rank, const int64_t *dims)
{
	struct ir_type *t = ir_type_new(c->g, IR_TYPE_TENSOR);
	t->dtype = dt;
	t->rank = rank;
	if (rank > 0) {
		t->dims = ir_alloc(c->g, sizeof(struct ir_dim) * rank);
		for (int i = 0; i < rank; i++) {
			t->dims[i].kind = dims && dims[i] >= 0 ? IR_DIM_FIXED
							       : IR_DIM_UNKNOWN;
			t->dims[i].value = dims && dims[i] >= 0 ? dims[i] : 0;
			t->dims[i].symbol = NULL;
		}
	}
	v->type = t;
}

/* dim i of x when fixed, else -1 */
static int64_t fixed_dim(const struct ir_value *x, int i)
{
	if (i < 0 || b_rank(x) <= i || x->type->dims[i].kind != IR_DIM_FIXED)
		return -1;
	return x->type->dims[i].value;
}

/* Gather(x, i) along axis with a 0-d index: drops that axis. */
static struct ir_value *take(struct lower_ctx *c, struct ir_value *x,
			     int64_t i, int64_t axis)
{
	struct ir_node *g = b_node(c, "Gather", 2, (struct ir_value *[]){
		x, b_const_i64(c, i) }, 1);
	b_attr_i(c, g, "axis", axis);
	return b_done(c, g);
}

/* b_transpose, or x itself when perm is the identity */
static struct ir_value *vision_transpose(struct lower_ctx *c,
					 struct ir_value *x,
					 const int64_t *perm, int r)
{
	for (int i = 0; i < r; i++)
		if (perm[i] != i)
			return b_transpose(c, x, perm, r);
	return x;
}

/* --- torchvision ops ----------------------------------------------------- */

static int vis_nms(struct lower_ctx *c, struct ir_node *n,
		   struct ir_value **out)
{
	/* nms(boxes [N, 4], scores [N], float iou_threshold) -> Long [K],
	 * the kept indices by decreasing score */
	if (c->opset < 10)
		return lw_decline(c, "NonMaxSuppression needs opset 10");
	struct ir_value *boxes = T(0), *scores = T(1);
	if (!boxes || !scores)
		return lw_decline(c, "boxes or scores not tensors");
	struct ir_value *iou = lw_scalar_as(c, n, 2, IR_DTYPE_FLOAT, 1);
	if (!iou)
		return lw_decline(c, "iou_threshold not a number");
	int64_t zero = 0, big = INT64_MAX, k1[2] = { 0, 1 };
	/* ONNX Runtime's NonMaxSuppression takes float only */
	boxes = b_unsqueeze(c, b_cast(c, boxes, IR_DTYPE_FLOAT), &zero, 1);
	scores = b_unsqueeze(c, b_cast(c, scores, IR_DTYPE_FLOAT), k1, 2);
	struct ir_value *in[4] = { boxes, scores, b_const_i64s(c, &big, 1, 1),
				   iou };
	struct ir_node *nm = b_node(c, "NonMaxSuppression", 4, in, 1);
	struct ir_value *sel = b_done(c, nm);
	int64_t dims[2] = { -1, 3 };
	set_tensor_type(c, sel, IR_DTYPE_INT64, 2, dims);
	/* [K, 3] of (batch, class, box): the box column */
	out[0] = take(c, sel, 2, 1);
	return 0;
}

/* rois [K, 5] (batch index, x1, y1, x2, y2) as RoiAlign's / MaxRoiPool's
 * inputs: the boxes [K, 4] and the batch indices, Long [K]. */
static void split_rois(struct lower_ctx *c, struct ir_value *rois,
		       struct ir_value **boxes, struct ir_value **batch)
{
	*batch = b_cast(c, take(c, rois, 0, 1), IR_DTYPE_INT64);
	*boxes = b_slice(c, rois, 1, 5, 1, 1);
}

static int vis_roi_align(struct lower_ctx *c, struct ir_node *n,
			 struct ir_value **out)
{
	/* roi_align(input, rois, float spatial_scale, int pooled_height,
	 * int pooled_width, int sampling_ratio, bool aligned) */
	struct ir_value *x = T(0), *rois = T(1), *boxes, *batch, *sv = NULL;
	double scale = 1;
	int64_t ph, pw, sr, aligned;
	if (c->opset < 10)
		return lw_decline(c, "RoiAlign needs opset 10");
	if (!x || !rois)
		return lw_decline(c, "input or rois not tensors");
	enum ir_dtype dt = b_dtype(x);
	/* a spatial_scale known at run time only (a scripted pooler's):
	 * the boxes scaled, RoiAlign's spatial_scale 1 */
	if (!lw_float(c, n, 2, &scale) &&
	    !(sv = lw_scalar_as(c, n, 2, dt, 0)))
		return lw_decline(c, "spatial_scale not a number");
	if (!lw_int(c, n, 3, &ph) || !lw_int(c, n, 4, &pw) ||
	    !lw_int(c, n, 5, &sr) || !lw_int(c, n, 6, &aligned))
		return lw_decline(c, "roi_align's parameters not constant");
	if (!sv && scale == 0)
		return lw_decline(c, "spatial_scale 0");
	split_rois(c, rois, &boxes, &batch);
	boxes = b_cast(c, boxes, dt);
	if (sv)
		boxes = b_op2(c, "Mul", boxes, sv);
	if (aligned && c->opset < 16) {
		/* aligned=True samples at (roi * scale - 0.5): shift the boxes
		 * by half a pixel of the feature map (exact where the scaled
		 * rois are at least 1 wide, as output_half_pixel clamps) */
		boxes = b_op2(c, "Sub", boxes,
			      b_const_scalar(c, sv ? 0.5 : 0.5 / scale, dt, 0));
	}
	struct ir_node *ra = b_node(c, "RoiAlign", 3, (struct ir_value *[]){
		x, boxes, batch }, 1);
	if (c->opset >= 16)
		b_attr_s(c, ra, "coordinate_transformation_mode",
			 aligned ? "half_pixel" : "output_half_pixel");
	b_attr_i(c, ra, "output_height", ph);
	b_attr_i(c, ra, "output_width", pw);
	b_attr_i(c, ra, "sampling_ratio", sr < 0 ? 0 : sr);
	b_attr_f(c, ra, "spatial_scale", sv ? 1.0 : scale);
	out[0] = b_done(c, ra);
	int64_t dims[4] = { fixed_dim(rois, 0), fixed_dim(x, 1), ph, pw };
	set_tensor_type(c, out[0], dt, 4, dims);
	return 0;
}

static int vis_roi_pool(struct lower_ctx *c, struct ir_node *n,
			struct ir_value **out)
{
	/* roi_pool(input, rois, float spatial_scale, int pooled_height,
	 * int pooled_width) -> (output, argmax) */
	struct ir_value *x = T(0), *rois = T(1);
	double scale;
	int64_t ps[2];
	if (!x || !rois)
		return lw_decline(c, "input or rois not tensors");
	if (!lw_float(c, n, 2, &scale) || !lw_int(c, n, 3, &ps[0]) ||
	    !lw_int(c, n, 4, &ps[1]))
		return lw_decline(c, "roi_pool's parameters not constant");
	struct ir_node *mp = b_node(c, "MaxRoiPool", 2, (struct ir_value *[]){
		x, b_cast(c, rois, b_dtype(x)) }, 1);
	b_attr_ints(c, mp, "pooled_shape", ps, 2);
	b_attr_f(c, mp, "spatial_scale", scale);
	out[0] = b_done(c, mp);
	int64_t dims[4] = { fixed_dim(rois, 0), fixed_dim(x, 1), ps[0], ps[1] };
	set_tensor_type(c, out[0], b_dtype(x), 4, dims);
	/* the argmax output has no ONNX counterpart */
	if (n->noutputs > 1)
		out[1] = NULL;
	return 0;
}

/* --- where(condition) ---------------------------------------------------- */

/* NonZero(x) [r, n] as r index tensors [n]; 0, or -1 when x's rank is
 * unknown or 0. */
static int nonzero_rows(struct lower_ctx *c, struct ir_value *x,
			struct ir_value **rows, int max)
{
	int r = b_rank(x);
	if (r < 1 || r > max)
		return -1;
	if (b_dtype(x) != IR_DTYPE_BOOL && b_dtype(x) != IR_DTYPE_UINT8 &&
	    !b_is_float(b_dtype(x)) && b_dtype(x) != IR_DTYPE_INT64 &&
	    b_dtype(x) != IR_DTYPE_INT32)
		x = b_cast(c, x, IR_DTYPE_BOOL);
	struct ir_value *nz = b_op1(c, "NonZero", x);
	for (int i = 0; i < r; i++)
		rows[i] = take(c, nz, i, 0);
	return r;
}

int vision_where(struct lower_ctx *c, struct ir_node *n,
		 struct ir_value **out)
{
	if (n->ninputs >= 3)
		return sym_where(c, n, out);
	/* where(condition) = condition.nonzero(as_tuple=True) */
	struct ir_value *x = T(0), *rows[MAXI];
	if (c->opset < 9)
		return lw_decline(c, "NonZero needs opset 9");
	if (!x)
		return lw_decline(c, "condition not a tensor");
	int r = nonzero_rows(c, x, rows, MAXI);
	if (r < 0)
		return lw_decline(c, "condition's rank unknown or 0");
	lw_set_list(c, n->outputs[0], rows, r);
	out[0] = NULL;
	return 0;
}

/* --- index ---------------------------------------------------------------- */

/* index(self, Tensor?[] indices) with masks (their nonzero() as index
 * tensors, torch's rule) or several index tensors: the index tensors
 * broadcast, stacked on a last axis and GatherND over x with their dims
 * moved first; the broadcast dims land where the first index was when the
 * indexed dims are consecutive, first otherwise (numpy's rule). */
int vision_index(struct lower_ctx *c, struct ir_node *n,
		 struct ir_value **out)
{
	struct ir_node *p = lw_in(c, n, 1) ? lw_in(c, n, 1)->producer : NULL;
	struct ir_value *ent[MAXI], *ix[MAXI];
	int pos[MAXI], k = 0, ne, masks = 0, untyped = 0;

	if (p && p->op == OP_prim_ListConstruct) {
		if (p->ninputs > MAXI)
			return sym_index(c, n, out);
		ne = (int)p->ninputs;
		for (int i = 0; i < ne; i++)
			ent[i] = lw_is_none(c, p, i) ? NULL
						      : lw_tensor(c, p, i);
	} else {
		/* a list known element-wise (where(condition)'s) */
		ne = lw_list(c, n, 1, ent, MAXI);
		if (ne < 0)
			return sym_index(c, n, out);
	}
	int nt = 0;
	for (int i = 0; i < ne; i++) {
		if (!ent[i])
			continue;
		nt++;
		enum ir_dtype dt = b_dtype(ent[i]);
		if (dt == IR_DTYPE_BOOL || dt == IR_DTYPE_UINT8)
			masks++;
		else if (dt == IR_DTYPE_UNDEFINED)
			untyped++;
	}
	if (untyped || nt == 0 || (nt == 1 && !masks && p &&
				   p->op == OP_prim_ListConstruct))
		return sym_index(c, n, out);

	struct ir_value *x = T(0);
	int r = b_rank(x);
	if (!x || r < 0)
		return lw_decline(c, "indexed tensor's rank unknown");
	if (r > MAXI)
		return lw_decline(c, "rank too large");
	/* the index tensors per indexed dim */
	int d = 0;
	for (int i = 0; i < ne; i++) {
		if (!ent[i]) {
			d++;
			continue;
		}
		enum ir_dtype dt = b_dtype(ent[i]);
		if (dt == IR_DTYPE_BOOL || dt == IR_DTYPE_UINT8) {
			struct ir_value *rows[MAXI];
			int m = nonzero_rows(c, ent[i], rows, MAXI);
			if (m < 0)
				return lw_decline(c, "mask rank unknown or 0");
			if (k + m > MAXI)
				return lw_decline(c, "too many indices");
			for (int j = 0; j < m; j++) {
				pos[k] = d + j;
				ix[k++] = rows[j];
			}
			d += m;
		} else if (k < MAXI) {
			pos[k] = d++;
			ix[k++] = b_cast(c, ent[i], IR_DTYPE_INT64);
		} else {
			return lw_decline(c, "too many indices");
		}
	}
	if (d > r)
		return lw_decline(c, "too many indices");
	int consec = 1;
	for (int i = 1; i < k; i++)
		if (pos[i] != pos[0] + i)
			consec = 0;
	if (k == 1 && b_rank(ix[0]) == 1) {
		/* one 1-d index (a 1-d mask): Gather on its dim */
		struct ir_node *g = b_node(c, "Gather", 2, (struct ir_value *[]){
			x, ix[0] }, 1);
		b_attr_i(c, g, "axis", pos[0]);
		out[0] = b_done(c, g);
		return 0;
	}
	if (c->opset < 11)
		return lw_decline(c, "several index tensors need GatherND "
				     "(opset 11)");
	/* broadcast the index tensors */
	int br = 0, same = 1;
	int64_t bd[MAXI];
	for (int i = 0; i < k; i++) {
		int ri = b_rank(ix[i]);
		if (ri < 0 || ri > MAXI)
			return lw_decline(c, "index tensor's rank unknown");
		if (ri > br)
			br = ri;
	}
	if (br + r - k > MAXI)
		return lw_decline(c, "rank too large");
	for (int j = 0; j < br; j++)
		bd[j] = -1;
	for (int i = 0; i < k; i++) {
		if (b_rank(ix[i]) != br)
			same = 0;
		for (int j = 0; j < b_rank(ix[i]); j++) {
			int64_t v = fixed_dim(ix[i], j);
			if (i == 0)
				bd[j] = v;
			else if (v < 0 || v != bd[j])
				same = 0;
		}
	}
	if (!same) {
		/* the broadcast shape of their sum */
		struct ir_value *sum = ix[0];
		for (int i = 1; i < k; i++)
			sum = b_op2(c, "Add", sum, ix[i]);
		struct ir_value *sh = b_op1(c, "Shape", sum);
		for (int i = 0; i < k; i++)
			ix[i] = b_op2(c, "Expand", ix[i], sh);
		for (int j = 0; j < br; j++)
			bd[j] = -1;
	}
	int64_t last = br;
	for (int i = 0; i < k; i++)
		ix[i] = b_unsqueeze(c, ix[i], &last, 1);
	struct ir_value *stacked = b_concat(c, k, ix, br);
	/* the indexed dims first */
	int64_t perm[MAXI], m = 0;
	for (int i = 0; i < k; i++)
		perm[m++] = pos[i];
	for (int j = 0; j < r; j++) {
		int used = 0;
		for (int i = 0; i < k; i++)
			if (pos[i] == j)
				used = 1;
		if (!used)
			perm[m++] = j;
	}
	struct ir_value *xt = vision_transpose(c, x, perm, r);
	struct ir_value *y = b_done(c, b_node(c, "GatherND", 2,
		(struct ir_value *[]){ xt, stacked }, 1));
	int yr = br + r - k;
	int64_t yd[MAXI];
	for (int j = 0; j < br; j++)
		yd[j] = bd[j];
	for (int j = k; j < r; j++)
		yd[br + j - k] = fixed_dim(x, (int)perm[j]);
	set_tensor_type(c, y, b_dtype(x), yr, yd);
	if (consec && pos[0] > 0) {
		/* the broadcast dims back to where the first index was */
		int64_t back[MAXI], yd2[MAXI];
		int s = pos[0], q = 0;
		for (int j = 0; j < s; j++)
			back[q++] = br + j;
		for (int j = 0; j < br; j++)
			back[q++] = j;
		for (int j = br + s; j < yr; j++)
			back[q++] = j;
		for (int j = 0; j < yr; j++)
			yd2[j] = yd[back[j]];
		y = vision_transpose(c, y, back, yr);
		set_tensor_type(c, y, b_dtype(x), yr, yd2);
	}
	out[0] = y;
	return 0;
}

/* --- split_with_sizes, unbind -------------------------------------------- */

/* split_with_sizes(self, int[] split_sizes, dim) (or split with an int
 * list) with sizes known only at run time (a list known element-wise):
 * Split with its `split` input from opset 13, Slices between the running
 * sums before. */
int vision_split(struct lower_ctx *c, struct ir_node *n,
		 struct ir_value **out)
{
	struct ir_value *x = T(0), *el[256], *parts[256];
	int64_t dim, one = 1, cs[256];
	struct ir_value *l = lw_in(c, n, 1);
	/* split_with_sizes, or split's int[] overload (script) */
	int list = n->op == OP_aten_split_with_sizes ||
		   (l && (l->type->kind == IR_TYPE_LIST ||
			  (l->producer &&
			   l->producer->op == OP_prim_ListConstruct)));
	if (!list || lw_ints(c, n, 1, cs, 256, 0) >= 1 ||
	    !lw_int(c, n, 2, &dim))
		return sym_split(c, n, out);
	int k = lw_list(c, n, 1, el, 256);
	int r = b_rank(x);
	if (k < 1 || r < 0 || !x)
		return sym_split(c, n, out);
	if (dim < 0)
		dim += r;
	if (dim < 0 || dim >= r)
		return lw_decline(c, "split dim out of range");
	if (c->opset < 10)
		return lw_decline(c, "split sizes not constant");
	for (int i = 0; i < k; i++) {
		el[i] = b_cast(c, el[i], IR_DTYPE_INT64);
		if (b_rank(el[i]) == 0)
			el[i] = b_unsqueeze(c, el[i], (int64_t[]){ 0 }, 1);
		else if (b_rank(el[i]) != 1)
			return lw_decline(c, "a split size not a number");
	}
	if (c->opset >= 13) {
		struct ir_value *sizes = el[0];
		if (k > 1) {
			sizes = b_concat(c, k, el, 0);
		}
		struct ir_node *sp = b_node(c, "Split", 2, (struct ir_value *[]){
			x, sizes }, k);
		b_attr_i(c, sp, "axis", dim);
		b_done(c, sp);
		for (int i = 0; i < k; i++)
			parts[i] = sp->outputs[i];
	} else {
		int64_t zero = 0;
		struct ir_value *start = b_const_i64s(c, &zero, 1, 1);
		struct ir_value *axes = b_const_i64s(c, &dim, 1, 1);
		struct ir_value *step = b_const_i64s(c, &one, 1, 1);
		for (int i = 0; i < k; i++) {
			struct ir_value *end = b_op2(c, "Add", start, el[i]);
			parts[i] = b_done(c, b_node(c, "Slice", 5,
				(struct ir_value *[]){ x, start, end, axes,
						       step }, 1));
			start = end;
		}
	}
	/* the pieces' sizes along dim are known at run time only (Split's
	 * inference would take them for equal ones) */
	int64_t dims[MAXI];
	if (r <= MAXI) {
		for (int j = 0; j < r; j++)
			dims[j] = j == dim ? -1 : fixed_dim(x, j);
		for (int i = 0; i < k; i++)
			set_tensor_type(c, parts[i], b_dtype(x), r, dims);
	}
	lw_set_list(c, n->outputs[0], parts, k);
	out[0] = NULL;
	return 0;
}

/* The output count of the prim::ListUnpack of list value v after n in its
 * block, -1 when none. */
static int unpack_count(struct ir_node *n, struct ir_value *v)
{
	for (struct ir_node *u = n->next; u; u = u->next)
		if (u->op == OP_prim_ListUnpack && u->ninputs == 1 &&
		    u->inputs[0] == v)
			return (int)u->noutputs;
	return -1;
}

/* unbind(self, dim) over a dim of unknown size, the count from the
 * prim::ListUnpack that takes the list. */
int vision_unbind(struct lower_ctx *c, struct ir_node *n,
		  struct ir_value **out)
{
	struct ir_value *x = T(0), *parts[256];
	int64_t dim;
	int r = b_rank(x);
	if (!x || !lw_int(c, n, 1, &dim) || r < 0)
		return sym_unbind(c, n, out);
	if (dim < 0)
		dim += r;
	if (dim < 0 || dim >= r || fixed_dim(x, (int)dim) >= 0)
		return sym_unbind(c, n, out);
	int k = unpack_count(n, n->outputs[0]);
	if (k < 1 || k > 256)
		return sym_unbind(c, n, out);
	if (k == 1)
		parts[0] = x;
	else
		b_split(c, x, dim, NULL, k, parts);
	for (int i = 0; i < k; i++)
		parts[i] = b_squeeze(c, parts[i], &dim, 1);
	lw_set_list(c, n->outputs[0], parts, k);
	out[0] = NULL;
	return 0;
}

/* repeat(self, int[] repeats) with repeats known only at run time (their
 * count known): Tile, as sym_repeat does for constant ones. */
int vision_repeat(struct lower_ctx *c, struct ir_node *n,
		  struct ir_value **out)
{
	struct ir_value *x = T(0), *el[64];
	int64_t k[64], axes[64];
	int r = b_rank(x);
	if (lw_ints(c, n, 1, k, 64, 0) >= 0 || r < 0)
		return sym_repeat(c, n, out);
	int nk = lw_list(c, n, 1, el, 64);
	struct ir_value *reps = nk >= r ? T(1) : NULL;
	if (!reps || b_rank(reps) != 1)
		return sym_repeat(c, n, out);
	if (nk > r) { /* torch prepends dims of 1 */
		for (int i = 0; i < nk - r; i++)
			axes[i] = i;
		x = b_unsqueeze(c, x, axes, nk - r);
	}
	out[0] = b_op2(c, "Tile", x, b_cast(c, reps, IR_DTYPE_INT64));
	set_tensor_type(c, out[0], b_dtype(x), nk, NULL);
	return 0;
}

/* The aten rows are SYM_PRIO_OVER: they win over symbolic_opset9.c's rows
 * of the same ops at every opset, take the cases those decline (indices
 * known only at run time, a list of sizes, ...) and call them for the
 * rest. */
static const struct symbolic vision[] = {
	{ OP_aten_index, 0, 0, SYM_PRIO_OVER, vision_index },
	{ OP_aten__unsafe_index, 0, 0, SYM_PRIO_OVER, vision_index },
	{ OP_aten_repeat, 0, 0, SYM_PRIO_OVER, vision_repeat },
	{ OP_aten_split, 0, 0, SYM_PRIO_OVER, vision_split },
	{ OP_aten_split_with_sizes, 0, 0, SYM_PRIO_OVER, vision_split },
	{ OP_aten_unbind, 0, 0, SYM_PRIO_OVER, vision_unbind },
	{ OP_aten_where, 9, 0, SYM_PRIO_OVER, vision_where },
	{ OP_torchvision_nms, 0, 0, SYM_PRIO_BASE, vis_nms },
	{ OP_torchvision_roi_align, 0, 0, SYM_PRIO_BASE, vis_roi_align },
	{ OP_torchvision_roi_pool, 0, 0, SYM_PRIO_BASE, vis_roi_pool },
};

const struct symbolic_table symbolic_vision_table = {
	vision, sizeof(vision) / sizeof(vision[0]),
};

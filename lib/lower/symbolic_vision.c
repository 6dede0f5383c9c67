/*
 * symbolic_vision.c - torchvision::* ops (nms, roi_align, roi_pool) and
 * the cases of aten::index, aten::where, split_with_sizes and unbind that
 * torchvision's detection models need and the opset tables decline:
 * boolean-mask and multi-tensor indexing, where(condition), split sizes
 * known only at run time, unbind over a dim of unknown size whose count a
 * prim::ListUnpack gives.  This table is consulted first (lower.c); each
 * entry handles its own cases and delegates the rest to the opset tables'
 * symbolic.  torchvision's ops/_register_onnx_ops.py and torch 1.13's
 * symbolic_opset9/11.py `index` are the semantic reference.  roi_align
 * is RoiAlign up to opset 21 and, from 22 (no kernel in ONNX Runtime
 * 1.30), torchvision's CPU kernel written out (roi_align_exact).
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

/* RoiAlign nodes up to this opset: ONNX Runtime 1.30 has no kernel for
 * RoiAlign-22 (any dtype: "Could not find an implementation for
 * RoiAlign(22)"), the only version a model of opset 22 or above may use;
 * from 22 roi_align is the exact decomposition below.  A newer runtime
 * that runs RoiAlign-22 moves this number (tests/433 asks ORT). */
#define ROI_ALIGN_NODE_LAST 21
/* the most samples per roi along an axis (pooled size * sampling_ratio) */
#define ROI_AXIS_MAX 4096

/* Reshape of x to the dims given (0: x's dim there, as ONNX's rule, so
 * that a dim of K rois stays right when K is 0). */
static struct ir_value *reshape_to(struct lower_ctx *c, struct ir_value *x,
				   const int64_t *dims, int rank)
{
	return b_op2(c, "Reshape", x, b_const_i64s(c, dims, rank, 1));
}

/* a and b [K, S] stacked on a new last dim: [K, S, 2] */
static struct ir_value *pair(struct lower_ctx *c, struct ir_value *a,
			     struct ir_value *b)
{
	int64_t last = 2;
	struct ir_value *in[2] = { b_unsqueeze(c, a, &last, 1),
				   b_unsqueeze(c, b, &last, 1) };
	return b_concat(c, 2, in, 2);
}

/* One axis of roi_align's sampling (torchvision's CPU kernel,
 * pre_calc_for_bilinear_interpolate): for rois starting at start [K, 1]
 * with bins of bin [K, 1] (dtype cd), the P * G sample coordinates
 * start + p * bin + (i + .5) * bin / G (s = p * G + i), and for each the
 * low and high pixel index ([K, P * G, 2], Long) and their weights
 * ([K, P * G, 2], cd) along an axis of len pixels (0-d Long): a sample
 * below -1 or above len weighs 0; else it is clamped to [0, len - 1],
 * low = floor, high = min(low + 1, len - 1), weights 1 - l and l with
 * l = sample - low. */
static void roi_axis(struct lower_ctx *c, struct ir_value *start,
		     struct ir_value *bin, int64_t p, int64_t g,
		     struct ir_value *len, enum ir_dtype cd,
		     struct ir_value **idx, struct ir_value **w)
{
	int64_t s = p * g;
	double a[ROI_AXIS_MAX], b[ROI_AXIS_MAX];
	for (int64_t k = 0; k < s; k++) {
		a[k] = (double)(k / g);
		b[k] = (double)(k % g) + 0.5;
	}
	struct ir_value *av = b_const_reals(c, a, &s, 1, cd);
	struct ir_value *bv = b_const_reals(c, b, &s, 1, cd);
	struct ir_value *y = b_op2(c, "Add", b_op2(c, "Add", start,
		b_op2(c, "Mul", av, bin)), b_op2(c, "Div",
		b_op2(c, "Mul", bv, bin), b_const_scalar(c, (double)g, cd, 0)));
	struct ir_value *lenf = b_cast(c, len, cd);
	struct ir_value *last = b_op2(c, "Sub", len, b_const_i64(c, 1));
	struct ir_value *out = b_op2(c, "Or",
		b_op2(c, "Less", y, b_const_scalar(c, -1, cd, 0)),
		b_op2(c, "Greater", y, lenf));
	struct ir_value *valid = b_cast(c, b_op1(c, "Not", out), cd);
	y = b_op2(c, "Min", b_op2(c, "Max", y, b_const_scalar(c, 0, cd, 0)),
		  b_cast(c, last, cd));
	struct ir_value *lof = b_op1(c, "Floor", y);
	struct ir_value *lo = b_cast(c, lof, IR_DTYPE_INT64);
	struct ir_value *hi = b_op2(c, "Min", b_op2(c, "Add", lo,
		b_const_i64(c, 1)), last);
	struct ir_value *l = b_op2(c, "Sub", y, lof);
	struct ir_value *h = b_op2(c, "Sub", b_const_scalar(c, 1, cd, 0), l);
	*idx = pair(c, lo, hi);
	*w = pair(c, b_op2(c, "Mul", h, valid), b_op2(c, "Mul", l, valid));
}

/* roi_align as torchvision's CPU kernel computes it, from ops ONNX
 * Runtime runs at every opset (for opsets without its RoiAlign): x [N, C,
 * H, W], boxes [K, 4] (x1, y1, x2, y2), batch [K] Long, the spatial scale
 * a number (scale) or a 0-d Double (sv); sr > 0 samples per bin and axis.
 * Each roi's start and end are box * scale - (aligned ? 0.5 : 0), in
 * double as torch's (a double spatial_scale), its size at least 1 unless
 * aligned; the sr * sr bilinear samples of a bin are averaged.  The
 * weights are separable: per roi, rows (y) and columns (x) each give
 * indices and weights [P * sr, 2]; their outer sum and product index the
 * feature map as [N * H * W, C] (Gather: [K, PH, PW, 4 sr^2, C], the one
 * large intermediate, no per-roi copy of the map) and weigh it (MatMul).
 * Returns [K, C, PH, PW] of x's dtype (half and bfloat16 computed in
 * float). */
static struct ir_value *roi_align_exact(struct lower_ctx *c,
					struct ir_value *x,
					struct ir_value *boxes,
					struct ir_value *batch, double scale,
					struct ir_value *sv, int64_t ph,
					int64_t pw, int64_t sr, int aligned)
{
	enum ir_dtype dt = b_dtype(x);
	enum ir_dtype cd = dt == IR_DTYPE_DOUBLE ? dt : IR_DTYPE_FLOAT;
	int64_t g2 = sr * sr, z = 0;
	x = b_cast(c, x, cd);
	struct ir_value *bd = b_cast(c, boxes, IR_DTYPE_DOUBLE);
	bd = b_op2(c, "Mul", bd, sv ? sv : b_const_scalar(c, scale,
		IR_DTYPE_DOUBLE, 0));
	if (aligned)
		bd = b_op2(c, "Sub", bd, b_const_scalar(c, 0.5,
			IR_DTYPE_DOUBLE, 0));
	bd = b_cast(c, bd, cd);
	struct ir_value *start = b_slice(c, bd, 0, 2, 1, 1);
	struct ir_value *size = b_op2(c, "Sub", b_slice(c, bd, 2, 4, 1, 1),
				      start);
	if (!aligned)
		size = b_op2(c, "Max", size, b_const_scalar(c, 1, cd, 0));
	double pooled[2] = { (double)pw, (double)ph };
	int64_t two = 2;
	struct ir_value *bin = b_op2(c, "Div", size,
				     b_const_reals(c, pooled, &two, 1, cd));
	struct ir_value *iy, *wy, *ix, *wx;
	roi_axis(c, b_slice(c, start, 1, 2, 1, 1), b_slice(c, bin, 1, 2, 1, 1),
		 ph, sr, b_dim(c, x, 2), cd, &iy, &wy);
	roi_axis(c, b_slice(c, start, 0, 1, 1, 1), b_slice(c, bin, 0, 1, 1, 1),
		 pw, sr, b_dim(c, x, 3), cd, &ix, &wx);
	/* the flat pixel index b * H * W + y * W + x */
	struct ir_value *wd = b_dim(c, x, 3);
	struct ir_value *hw = b_op2(c, "Mul", b_dim(c, x, 2), wd);
	int64_t k12[2] = { 1, 2 };
	iy = b_op2(c, "Add", b_op2(c, "Mul", iy, wd), b_unsqueeze(c,
		b_op2(c, "Mul", batch, hw), k12, 2));
	int64_t ry[7] = { z, ph, 1, sr, 1, 2, 1 };
	int64_t rx[7] = { z, 1, pw, 1, sr, 1, 2 };
	int64_t ri[4] = { z, ph, pw, 4 * g2 }, rw[5] = { z, ph, pw, 1, 4 * g2 };
	struct ir_value *idx = reshape_to(c, b_op2(c, "Add",
		reshape_to(c, iy, ry, 7), reshape_to(c, ix, rx, 7)), ri, 4);
	struct ir_value *w = reshape_to(c, b_op2(c, "Mul",
		reshape_to(c, wy, ry, 7), reshape_to(c, wx, rx, 7)), rw, 5);
	int64_t nhwc[4] = { 0, 2, 3, 1 }, kcpp[4] = { 0, 3, 1, 2 }, three = 3;
	struct ir_node *fl = b_node(c, "Flatten", 1, (struct ir_value *[]){
		b_transpose(c, x, nhwc, 4) }, 1);
	b_attr_i(c, fl, "axis", 3);
	struct ir_node *ga = b_node(c, "Gather", 2, (struct ir_value *[]){
		b_done(c, fl), idx }, 1);
	b_attr_i(c, ga, "axis", 0);
	struct ir_value *y = b_op2(c, "MatMul", w, b_done(c, ga));
	y = b_transpose(c, b_squeeze(c, y, &three, 1), kcpp, 4);
	y = b_op2(c, "Div", y, b_const_scalar(c, (double)g2, cd, 0));
	return b_cast(c, y, dt);
}

static int vis_roi_align(struct lower_ctx *c, struct ir_node *n,
			 struct ir_value **out)
{
	/* roi_align(input, rois, float spatial_scale, int pooled_height,
	 * int pooled_width, int sampling_ratio, bool aligned) */
	struct ir_value *x = T(0), *rois = T(1), *boxes, *batch, *sv = NULL;
	double scale = 1;
	int64_t ph, pw, sr, aligned;
	int node = c->opset <= ROI_ALIGN_NODE_LAST;
	if (c->opset < 10)
		return lw_decline(c, "RoiAlign needs opset 10");
	if (!x || !rois)
		return lw_decline(c, "input or rois not tensors");
	enum ir_dtype dt = b_dtype(x);
	/* a spatial_scale known at run time only (a scripted pooler's):
	 * the boxes scaled, RoiAlign's spatial_scale 1 */
	if (!lw_float(c, n, 2, &scale) &&
	    !(sv = lw_scalar_as(c, n, 2, node ? dt : IR_DTYPE_DOUBLE, 0)))
		return lw_decline(c, "spatial_scale not a number");
	if (!lw_int(c, n, 3, &ph) || !lw_int(c, n, 4, &pw) ||
	    !lw_int(c, n, 5, &sr) || !lw_int(c, n, 6, &aligned))
		return lw_decline(c, "roi_align's parameters not constant");
	if (!sv && scale == 0)
		return lw_decline(c, "spatial_scale 0");
	if (!node && sr <= 0)
		return lw_decline(c, "sampling_ratio <= 0 (adaptive, per roi) "
				     "has no exact form without RoiAlign, "
				     "which ONNX Runtime 1.30 runs up to opset "
				     "21: export at --opset-version 21");
	if (!node && (ph < 1 || pw < 1 || sr > ROI_AXIS_MAX / ph ||
		      sr > ROI_AXIS_MAX / pw))
		return lw_decline(c, "pooled size or sampling_ratio out of "
				     "range");
	if (!node && !b_is_float(dt))
		return lw_decline(c, "input not floating point");
	split_rois(c, rois, &boxes, &batch);
	if (!node) {
		out[0] = roi_align_exact(c, x, boxes, batch, scale, sv, ph, pw,
					 sr, (int)aligned);
		goto typed;
	}
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
typed:;
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
		/* the dims the sum's broadcast knows (torchvision's rpn:
		 * [batch_idx, top_n_idx] of [1, 1] and [1, K]) */
		for (int j = 0; j < br; j++)
			bd[j] = b_rank(sum) == br ? fixed_dim(sum, j) : -1;
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

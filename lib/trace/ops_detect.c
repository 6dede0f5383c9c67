/*
 * ops_detect.c - detection ops for `trace` (see trace_int.h): torchvision's
 * nms and roi_align.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ops_shape.h"

/* --- detection ----------------------------------------------------------- */

static const double *nms_scores;

static int cmp_score_desc(const void *pa, const void *pb)
{
	int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;

	if (nms_scores[a] > nms_scores[b])
		return -1;
	if (nms_scores[a] < nms_scores[b])
		return 1;
	return a < b ? -1 : a > b;
}

/* torchvision::nms(dets [N, 4] (x1, y1, x2, y2), scores [N], iou_threshold):
 * the kept boxes' indices by decreasing score, as torchvision's CPU
 * kernel (greedy, suppressing IoU > threshold); on the host */
static int op_nms(struct trace_ctx *c, const struct ir_node *n,
		  struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *b, *s;
	double thr, *bx = NULL, *sc = NULL;
	int64_t nb, i, j, k = 0, *order = NULL, *keep = NULL;
	unsigned char *dead = NULL;
	int rc = -1;

	if (tv_get_tensor(c, ARG(0), 0, &b) || tv_get_tensor(c, ARG(1), 0, &s) ||
	    tv_get_float(c, ARG(2), &thr))
		return -1;
	if (b->rank != 2 || b->dims[1] != 4)
		return trace_error(c, "boxes should be a 2d tensor of shape "
				   "[N, 4], got %dD", b->rank);
	if (s->rank != 1 || s->dims[0] != b->dims[0])
		return trace_error(c, "scores should be a 1d tensor with as "
				   "many entries as boxes");
	nb = b->dims[0];
	bx = trace_to_host(c, b, IR_DTYPE_DOUBLE);
	sc = bx ? trace_to_host(c, s, IR_DTYPE_DOUBLE) : NULL;
	if (!sc)
		goto done;
	order = malloc(sizeof(*order) * (nb ? nb : 1));
	keep = malloc(sizeof(*keep) * (nb ? nb : 1));
	dead = calloc(nb ? nb : 1, 1);
	if (!order || !keep || !dead) {
		trace_oom(c);
		goto done;
	}
	for (i = 0; i < nb; i++)
		order[i] = i;
	nms_scores = sc;
	qsort(order, nb, sizeof(*order), cmp_score_desc);
	nms_scores = NULL;
	if (b->dtype == IR_DTYPE_FLOAT) {
		/* in float arithmetic, as torchvision's kernel for float boxes */
		for (i = 0; i < 4 * nb; i++)
			bx[i] = (float)bx[i];
	}
	for (i = 0; i < nb; i++) {
		const double *p = bx + 4 * order[i];
		double ia = (p[2] - p[0]) * (p[3] - p[1]);

		if (b->dtype == IR_DTYPE_FLOAT)
			ia = (float)ia;
		if (dead[i])
			continue;
		keep[k++] = order[i];
		for (j = i + 1; j < nb; j++) {
			const double *q = bx + 4 * order[j];
			double w, h, inter, ja, ovr;

			if (dead[j])
				continue;
			w = (p[2] < q[2] ? p[2] : q[2]) -
			    (p[0] > q[0] ? p[0] : q[0]);
			h = (p[3] < q[3] ? p[3] : q[3]) -
			    (p[1] > q[1] ? p[1] : q[1]);
			ja = (q[2] - q[0]) * (q[3] - q[1]);
			if (b->dtype == IR_DTYPE_FLOAT) {
				float fw = (float)w > 0 ? (float)w : 0;
				float fh = (float)h > 0 ? (float)h : 0;
				float fi = fw * fh;
				float fa = (float)ia, fj = (float)ja;

				ovr = fi / (fa + fj - fi);
			} else {
				inter = (w > 0 ? w : 0) * (h > 0 ? h : 0);
				ovr = inter / (ia + ja - inter);
			}
			if (ovr > thr)
				dead[j] = 1;
		}
	}
	rc = trace_out(c, out, trace_from_host(c, IR_DTYPE_INT64, 1, &k,
						IR_DTYPE_INT64, keep));
done:
	free(bx);
	free(sc);
	free(order);
	free(keep);
	free(dead);
	return rc;
}

/* One bilinear sample of plane v (h x w) at (y, x), as torchvision's
 * roi_align kernel: 0 outside [-1, h] x [-1, w], clamped inside. */
static double roi_bilinear(const double *v, int64_t h, int64_t w, double y,
			   double x)
{
	int64_t y0, x0, y1, x1;
	double ly, lx;

	if (y < -1.0 || y > (double)h || x < -1.0 || x > (double)w)
		return 0;
	if (y <= 0)
		y = 0;
	if (x <= 0)
		x = 0;
	y0 = (int64_t)y;
	x0 = (int64_t)x;
	if (y0 >= h - 1) {
		y1 = y0 = h - 1;
		y = (double)y0;
	} else {
		y1 = y0 + 1;
	}
	if (x0 >= w - 1) {
		x1 = x0 = w - 1;
		x = (double)x0;
	} else {
		x1 = x0 + 1;
	}
	ly = y - (double)y0;
	lx = x - (double)x0;
	return (1 - ly) * (1 - lx) * v[y0 * w + x0] +
	       (1 - ly) * lx * v[y0 * w + x1] +
	       ly * (1 - lx) * v[y1 * w + x0] + ly * lx * v[y1 * w + x1];
}

/* torchvision::roi_align(input [N, C, H, W], rois [K, 5] (batch index,
 * x1, y1, x2, y2), spatial_scale, pooled_height, pooled_width,
 * sampling_ratio, aligned) -> [K, C, pooled_height, pooled_width]: each
 * bin the mean of a grid of bilinear samples, as torchvision's CPU kernel
 * (roi_align_kernel.cpp; aligned shifts the box by half a pixel, and a
 * sampling_ratio <= 0 takes ceil(bin size) samples a side); on the host */
static int op_roi_align(struct trace_ctx *c, const struct ir_node *n,
			struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x, *r;
	double scale, *xv = NULL, *rv = NULL, *ov = NULL;
	int64_t ph, pw, ratio, dims[4];
	int aligned, rc = -1;

	if (tv_get_tensor(c, ARG(0), 0, &x) || tv_get_tensor(c, ARG(1), 0, &r) ||
	    tv_get_float(c, ARG(2), &scale) || tv_get_int(c, ARG(3), &ph) ||
	    tv_get_int(c, ARG(4), &pw) || tv_get_int(c, ARG(5), &ratio) ||
	    tv_get_bool(c, ARG(6), &aligned))
		return -1;
	if (x->rank != 4)
		return trace_error(c, "roi_align: input should be 4d [N, C, H, "
				   "W], got %dD", x->rank);
	if (r->rank != 2 || r->dims[1] != 5)
		return trace_error(c, "roi_align: rois should be a 2d tensor "
				   "of shape [K, 5]");
	if (ph <= 0 || pw <= 0 || ph > 4096 || pw > 4096)
		return trace_error(c, "roi_align: bad output size %lld x %lld",
				   (long long)ph, (long long)pw);
	int64_t nb = x->dims[0], ch = x->dims[1], h = x->dims[2],
		w = x->dims[3], k = r->dims[0];
	dims[0] = k;
	dims[1] = ch;
	dims[2] = ph;
	dims[3] = pw;
	xv = trace_to_host(c, x, IR_DTYPE_DOUBLE);
	rv = xv ? trace_to_host(c, r, IR_DTYPE_DOUBLE) : NULL;
	if (!rv)
		goto done;
	ov = calloc((size_t)(k * ch * ph * pw) + 1, sizeof(*ov));
	if (!ov) {
		trace_oom(c);
		goto done;
	}
	for (int64_t i = 0; i < k; i++) {
		const double *b = rv + 5 * i;
		double off = aligned ? 0.5 : 0;
		double sx = b[1] * scale - off, sy = b[2] * scale - off;
		double rw = b[3] * scale - off - sx, rh = b[4] * scale - off - sy;
		int64_t bi = (int64_t)b[0];

		if (b[0] != b[0] || bi < 0 || bi >= nb) {
			trace_error(c, "roi_align: roi %lld names batch index "
				    "%g of %lld", (long long)i, b[0],
				    (long long)nb);
			goto done;
		}
		if (!aligned) {
			rw = rw > 1 ? rw : 1;
			rh = rh > 1 ? rh : 1;
		}
		double bh = rh / (double)ph, bw = rw / (double)pw;
		int64_t gh = ratio > 0 ? ratio : (int64_t)ceil(rh / (double)ph);
		int64_t gw = ratio > 0 ? ratio : (int64_t)ceil(rw / (double)pw);
		if (gh > 1 << 16 || gw > 1 << 16) {
			trace_error(c, "roi_align: roi %lld spans too many "
				    "samples", (long long)i);
			goto done;
		}
		double cnt = gh * gw > 1 ? (double)(gh * gw) : 1;
		for (int64_t cc = 0; cc < ch; cc++) {
			const double *v = xv + (bi * ch + cc) * h * w;
			double *o = ov + ((i * ch + cc) * ph) * pw;

			for (int64_t py = 0; py < ph; py++)
				for (int64_t px = 0; px < pw; px++) {
					double acc = 0;

					for (int64_t iy = 0; iy < gh; iy++) {
						double yy = sy + (double)py * bh +
							    ((double)iy + .5) *
							    bh / (double)gh;
						for (int64_t ix = 0; ix < gw;
						     ix++) {
							double xx = sx +
								(double)px * bw +
								((double)ix + .5) *
								bw / (double)gw;
							acc += roi_bilinear(
								v, h, w, yy, xx);
						}
					}
					o[py * pw + px] = acc / cnt;
				}
		}
	}
	rc = trace_out(c, out, trace_from_host(c, x->dtype, 4, dims,
						IR_DTYPE_DOUBLE, ov));
done:
	free(xv);
	free(rv);
	free(ov);
	return rc;
}

/* --- the table ------------------------------------------------------------ */

const struct trace_op trace_ops_detect[] = {
	{ OP_torchvision_nms, op_nms, 0 },
	{ OP_torchvision_roi_align, op_roi_align, 0 },
	{ OP_NONE, NULL, 0 },
};

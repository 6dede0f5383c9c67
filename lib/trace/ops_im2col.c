/*
 * ops_im2col.c - patch and shuffle ops for `trace` (see trace_int.h):
 * pixel_shuffle, pixel_unshuffle, channel_shuffle, im2col (unfold of
 * images), col2im (fold).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ops_shape.h"

/* --- pixel / channel shuffles, im2col / col2im ---------------------------- */

/* x viewed as (rank, dims), permuted, copied, viewed as (orank, odims) */
static struct gpu_tensor *view_perm_copy(struct trace_ctx *c,
					 const struct gpu_tensor *x, int rank,
					 const int64_t *dims, const int *perm,
					 int orank, const int64_t *odims)
{
	struct gpu_tensor *v, *p, *cp, *y;

	v = sh_reshape(c, x, rank, dims);
	if (!v)
		return NULL;
	p = sh_permute(c, v, perm);
	gpu_free(v);
	if (!p)
		return NULL;
	cp = sh_copy(c, p);
	gpu_free(p);
	if (!cp)
		return NULL;
	y = sh_reshape(c, cp, orank, odims);
	gpu_free(cp);
	return y;
}

/* pixel_shuffle(self, r), pixel_unshuffle(self, r) */
static int op_pixel_shuffle(struct trace_ctx *c, const struct ir_node *n,
			    struct tval **in, int nin, struct tval **out,
			    int nout)
{
	struct gpu_tensor *x;
	int64_t r, dims[GPU_MAX_DIMS], odims[GPU_MAX_DIMS], C, H, W;
	int perm[GPU_MAX_DIMS], b, i;
	int un = n->op == OP_aten_pixel_unshuffle;

	if (tv_get_tensor(c, ARG(0), 0, &x) || tv_get_int(c, ARG(1), &r))
		return -1;
	if (x->rank < 3)
		return trace_error(c, "pixel_%s expects input to have at least "
				   "3 dimensions, but got input with %d "
				   "dimension(s)", un ? "unshuffle" : "shuffle",
				   x->rank);
	if (r <= 0)
		return trace_error(c, "factor must be greater than 0, but got "
				   "%lld", (long long)r);
	b = x->rank - 3;
	if (b + 5 > GPU_MAX_DIMS)
		return trace_error(c, "too many batch dimensions");
	C = x->dims[b];
	H = x->dims[b + 1];
	W = x->dims[b + 2];
	for (i = 0; i < b; i++) {
		dims[i] = odims[i] = x->dims[i];
		perm[i] = i;
	}
	if (!un) {
		if (C % (r * r))
			return trace_error(c, "pixel_shuffle expects its input's "
					   "'channel' dimension to be divisible "
					   "by the square of upscale_factor, "
					   "but input.size(-3)=%lld is not "
					   "divisible by %lld", (long long)C,
					   (long long)(r * r));
		/* [*, C', r, r, H, W] -> [*, C', H, r, W, r] */
		dims[b] = C / (r * r);
		dims[b + 1] = r;
		dims[b + 2] = r;
		dims[b + 3] = H;
		dims[b + 4] = W;
		perm[b] = b;
		perm[b + 1] = b + 3;
		perm[b + 2] = b + 1;
		perm[b + 3] = b + 4;
		perm[b + 4] = b + 2;
		odims[b] = C / (r * r);
		odims[b + 1] = H * r;
		odims[b + 2] = W * r;
	} else {
		if (H % r || W % r)
			return trace_error(c, "pixel_unshuffle expects height "
					   "and width to be divisible by "
					   "downscale_factor");
		/* [*, C, H', r, W', r] -> [*, C, r, r, H', W'] */
		dims[b] = C;
		dims[b + 1] = H / r;
		dims[b + 2] = r;
		dims[b + 3] = W / r;
		dims[b + 4] = r;
		perm[b] = b;
		perm[b + 1] = b + 2;
		perm[b + 2] = b + 4;
		perm[b + 3] = b + 1;
		perm[b + 4] = b + 3;
		odims[b] = C * r * r;
		odims[b + 1] = H / r;
		odims[b + 2] = W / r;
	}
	return trace_out(c, out, view_perm_copy(c, x, b + 5, dims, perm,
						 b + 3, odims));
}

/* channel_shuffle(self, groups), native_channel_shuffle */
static int op_channel_shuffle(struct trace_ctx *c, const struct ir_node *n,
			      struct tval **in, int nin, struct tval **out,
			      int nout)
{
	struct gpu_tensor *x;
	int64_t g, dims[GPU_MAX_DIMS];
	int perm[GPU_MAX_DIMS], i;

	if (tv_get_tensor(c, ARG(0), 0, &x) || tv_get_int(c, ARG(1), &g))
		return -1;
	if (x->rank < 3 || x->rank + 1 > GPU_MAX_DIMS)
		return trace_error(c, "channel_shuffle expects input to have "
				   "at least 3 dimensions, but got input with "
				   "%d dimension(s)", x->rank);
	if (g <= 0 || x->dims[1] % g)
		return trace_error(c, "Number of channels must be divisible "
				   "by groups. Got %lld channels and %lld "
				   "groups.", (long long)x->dims[1],
				   (long long)g);
	dims[0] = x->dims[0];
	dims[1] = g;
	dims[2] = x->dims[1] / g;
	for (i = 2; i < x->rank; i++)
		dims[i + 1] = x->dims[i];
	for (i = 0; i <= x->rank; i++)
		perm[i] = i;
	perm[1] = 2;
	perm[2] = 1;
	return trace_out(c, out, view_perm_copy(c, x, x->rank + 1, dims, perm,
						 x->rank, x->dims));
}

/* im2col(self, kernel_size, dilation, padding, stride) */
static int op_im2col(struct trace_ctx *c, const struct ir_node *n,
		     struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x, *x4 = NULL, *xp = NULL, *v = NULL, *cp = NULL,
			  *y = NULL;
	int64_t k[2], dl[2], pd[2], st[2], o[2], pads[2 * GPU_MAX_DIMS] = { 0 },
		dims[6], strides[6], od[3];
	int nk, nd, np, ns, batched, i;

	if (tv_get_tensor(c, ARG(0), 0, &x) ||
	    tv_get_ints(c, ARG(1), k, 2, &nk) ||
	    tv_get_ints(c, ARG(2), dl, 2, &nd) ||
	    tv_get_ints(c, ARG(3), pd, 2, &np) ||
	    tv_get_ints(c, ARG(4), st, 2, &ns))
		return -1;
	if (nk != 2 || nd != 2 || np != 2 || ns != 2)
		return trace_error(c, "im2col expects 2 values for each of "
				   "kernel_size, dilation, padding, stride");
	if (x->rank != 3 && x->rank != 4)
		return trace_error(c, "Expected 3D or 4D (batch mode) tensor "
				   "for input, but got %dD", x->rank);
	batched = x->rank == 4;
	if (batched) {
		x4 = trace_alias(c, x);
	} else {
		int64_t s[4] = { 1, x->dims[0], x->dims[1], x->dims[2] };

		x4 = sh_reshape(c, x, 4, s);
	}
	if (!x4)
		return -1;
	for (i = 0; i < 2; i++) {
		o[i] = (x4->dims[2 + i] + 2 * pd[i] - dl[i] * (k[i] - 1) - 1) /
		       st[i] + 1;
		pads[2 * (2 + i)] = pads[2 * (2 + i) + 1] = pd[i];
		if (o[i] <= 0 || k[i] <= 0 || st[i] <= 0 || dl[i] <= 0) {
			gpu_free(x4);
			return trace_error(c, "im2col: the given input, kernel "
					   "and padding give no output");
		}
	}
	xp = sh_pad(c, x4, pads, GPU_PAD_CONSTANT, 0);
	gpu_free(x4);
	if (!xp)
		return -1;
	dims[0] = xp->dims[0];
	dims[1] = xp->dims[1];
	dims[2] = k[0];
	dims[3] = k[1];
	dims[4] = o[0];
	dims[5] = o[1];
	strides[0] = xp->strides[0];
	strides[1] = xp->strides[1];
	strides[2] = dl[0] * xp->strides[2];
	strides[3] = dl[1] * xp->strides[3];
	strides[4] = st[0] * xp->strides[2];
	strides[5] = st[1] * xp->strides[3];
	v = trace_view(c, xp, 6, dims, strides, xp->offset);
	if (v)
		cp = sh_copy(c, v);
	if (cp) {
		od[0] = dims[0];
		od[1] = dims[1] * k[0] * k[1];
		od[2] = o[0] * o[1];
		y = batched ? sh_reshape(c, cp, 3, od) :
		      sh_reshape(c, cp, 2, od + 1);
	}
	gpu_free(xp);
	gpu_free(v);
	gpu_free(cp);
	return trace_out(c, out, y);
}

/* col2im(self, output_size, kernel_size, dilation, padding, stride) */
static int op_col2im(struct trace_ctx *c, const struct ir_node *n,
		     struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x, *x6 = NULL, *buf = NULL, *y = NULL;
	int64_t os[2], k[2], dl[2], pd[2], st[2], o[2], N, C, bd[4],
		dims[GPU_MAX_DIMS], strides[GPU_MAX_DIMS];
	int n1, n2, n3, n4, n5, batched, i, j, rc = -1;

	if (tv_get_tensor(c, ARG(0), 0, &x) ||
	    tv_get_ints(c, ARG(1), os, 2, &n1) ||
	    tv_get_ints(c, ARG(2), k, 2, &n2) ||
	    tv_get_ints(c, ARG(3), dl, 2, &n3) ||
	    tv_get_ints(c, ARG(4), pd, 2, &n4) ||
	    tv_get_ints(c, ARG(5), st, 2, &n5))
		return -1;
	if (n1 != 2 || n2 != 2 || n3 != 2 || n4 != 2 || n5 != 2)
		return trace_error(c, "col2im expects 2 values for each size");
	if (x->rank != 2 && x->rank != 3)
		return trace_error(c, "Expected 2D or 3D (batch mode) tensor "
				   "for input, but got %dD", x->rank);
	batched = x->rank == 3;
	N = batched ? x->dims[0] : 1;
	if (k[0] <= 0 || k[1] <= 0 || x->dims[batched] % (k[0] * k[1]))
		return trace_error(c, "Expected size of input's dimension 1 to "
				   "be divisible by the product of "
				   "kernel_size");
	C = x->dims[batched] / (k[0] * k[1]);
	for (i = 0; i < 2; i++)
		o[i] = (os[i] + 2 * pd[i] - dl[i] * (k[i] - 1) - 1) / st[i] + 1;
	if (o[0] * o[1] != x->dims[batched + 1])
		return trace_error(c, "Given output_size, kernel_size, "
				   "dilation, padding, stride, expected size "
				   "of input's dimension 2 to match the "
				   "calculated number of sliding blocks %lld, "
				   "but got %lld", (long long)(o[0] * o[1]),
				   (long long)x->dims[batched + 1]);
	{
		int64_t s6[6] = { N, C, k[0], k[1], o[0], o[1] };

		x6 = sh_reshape(c, x, 6, s6);
	}
	bd[0] = N;
	bd[1] = C;
	bd[2] = os[0] + 2 * pd[0];
	bd[3] = os[1] + 2 * pd[1];
	if (x6)
		buf = trace_empty(c, x->dtype, 4, bd);
	if (!buf || sh_fill(c, buf, 0))
		goto done;
	for (i = 0; i < k[0]; i++)
		for (j = 0; j < k[1]; j++) {
			struct gpu_tensor *dst, *src, *sum;
			int64_t sd[4] = { N, C, o[0], o[1] };
			int64_t ss[4] = { buf->strides[0], buf->strides[1],
					  st[0] * buf->strides[2],
					  st[1] * buf->strides[3] };
			int64_t xs[4] = { x6->strides[0], x6->strides[1],
					  x6->strides[4], x6->strides[5] };
			int bad;

			dst = trace_view(c, buf, 4, sd, ss, buf->offset +
				      i * dl[0] * buf->strides[2] +
				      j * dl[1] * buf->strides[3]);
			src = trace_view(c, x6, 4, sd, xs, x6->offset +
				      i * x6->strides[2] + j * x6->strides[3]);
			sum = trace_empty(c, x->dtype, 4, sd);
			bad = !dst || !src || !sum;
			if (!bad && gpu_numel(sum) &&
			    c->be->binary(GPU_ADD, dst, src, sum)) {
				trace_gpu_error(c);
				bad = 1;
			}
			if (!bad && sh_copy_into(c, sum, dst))
				bad = 1;
			gpu_free(dst);
			gpu_free(src);
			gpu_free(sum);
			if (bad)
				goto done;
		}
	/* crop the padding */
	for (i = 0; i < 4; i++) {
		dims[i] = i < 2 ? bd[i] : os[i - 2];
		strides[i] = buf->strides[i];
	}
	{
		struct gpu_tensor *v = trace_view(c, buf, 4, dims, strides,
					       buf->offset + pd[0] *
					       buf->strides[2] + pd[1] *
					       buf->strides[3]);

		if (v) {
			struct gpu_tensor *cp = sh_copy(c, v);

			if (cp) {
				y = batched ? trace_alias(c, cp) :
				    sh_reshape(c, cp, 3, dims + 1);
				gpu_free(cp);
			}
			gpu_free(v);
		}
	}
	if (y)
		rc = trace_out(c, out, y);
done:
	gpu_free(x6);
	gpu_free(buf);
	return rc;
}

/* --- the table ------------------------------------------------------------ */

const struct trace_op trace_ops_im2col[] = {
	{ OP_aten_pixel_shuffle, op_pixel_shuffle, 0 },
	{ OP_aten_pixel_unshuffle, op_pixel_shuffle, 0 },
	{ OP_aten_channel_shuffle, op_channel_shuffle, 0 },
	{ OP_aten_native_channel_shuffle, op_channel_shuffle, 0 },
	{ OP_aten_im2col, op_im2col, 0 },
	{ OP_aten_col2im, op_col2im, 0 },
	{ OP_NONE, NULL, 0 },
};

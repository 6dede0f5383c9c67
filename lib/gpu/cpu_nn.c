/*
 * cpu_nn.c - the CPU backend's spatial kernels: max/avg pooling (1-3
 * spatial dims, torch's padding, ceil_mode and divisor rules), adaptive
 * pooling, padding (constant, reflect, replicate, circular) and resizing
 * (nearest, nearest-exact, linear over 1-3 dims, bicubic 2-d) with torch's
 * source-index arithmetic.
 */
#include <stdlib.h>
#include <string.h>

#include "gpu.h"
#include "gpu_int.h"

/* x contiguous in dtype ct: a new reference or a converted copy. */
static struct gpu_tensor *contig(const struct gpu_tensor *x, enum ir_dtype ct)
{
	struct gpu_tensor *t;

	if (x->dtype == ct && gpu_is_contiguous(x))
		return gpu_view(x, x->rank, x->dims, x->strides, x->offset);
	t = gpu_empty(x->storage->be, ct, x->rank, x->dims);
	if (t && cpu_copy(x, t)) {
		gpu_free(t);
		return NULL;
	}
	return t;
}

/* Shared set-up of the float spatial kernels: contiguous x in ct (float
 * or double), y itself or a temporary of ct. */
static int spatial_io(const struct gpu_tensor *x, struct gpu_tensor *y,
		      struct gpu_tensor **xc, struct gpu_tensor **yc,
		      const char *what)
{
	enum ir_dtype ct;

	*xc = *yc = NULL;
	if (!cpu_is_float(x->dtype) || !cpu_is_float(y->dtype)) {
		gpu_set_error("cpu %s: dtype %s not supported", what,
			      ir_dtype_torch_name(cpu_is_float(x->dtype) ?
						  y->dtype : x->dtype));
		return -1;
	}
	ct = y->dtype == IR_DTYPE_DOUBLE ? IR_DTYPE_DOUBLE : IR_DTYPE_FLOAT;
	*xc = contig(x, ct);
	if (!*xc)
		return -1;
	if (y->dtype == ct)
		*yc = gpu_view(y, y->rank, y->dims, y->strides, y->offset);
	else
		*yc = gpu_empty(y->storage->be, ct, y->rank, y->dims);
	if (!*yc) {
		gpu_free(*xc);
		*xc = NULL;
		return -1;
	}
	return 0;
}

static int spatial_done(struct gpu_tensor *xc, struct gpu_tensor *yc,
			struct gpu_tensor *y, int rc)
{
	if (!rc && yc->dtype != y->dtype)
		rc = cpu_copy(yc, y);
	gpu_free(xc);
	gpu_free(yc);
	return rc;
}

/* Spatial geometry padded to 3 dims (leading 1s). */
struct sgeo {
	int64_t in[3], out[3], k[3], s[3], p[3], d[3];
	int64_t pin, pout, planes;
};

static int sgeo_init(struct sgeo *g, int ns, const struct gpu_tensor *x,
		     const struct gpu_tensor *y, const char *what)
{
	if (ns < 1 || ns > 3 || x->rank < ns + 1 || y->rank != x->rank) {
		gpu_set_error("cpu %s: %d spatial dims of a rank-%d tensor",
			      what, ns, x->rank);
		return -1;
	}
	for (int d = 0; d < x->rank - ns; d++)
		if (x->dims[d] != y->dims[d]) {
			gpu_set_error("cpu %s: leading dims differ", what);
			return -1;
		}
	g->pin = g->pout = 1;
	for (int i = 0; i < 3; i++) {
		int s = i - (3 - ns);

		g->in[i] = s < 0 ? 1 : x->dims[x->rank - ns + s];
		g->out[i] = s < 0 ? 1 : y->dims[y->rank - ns + s];
		g->k[i] = g->s[i] = g->d[i] = 1;
		g->p[i] = 0;
		g->pin *= g->in[i];
		g->pout *= g->out[i];
	}
	g->planes = g->pin ? gpu_numel(x) / g->pin : 0;
	return 0;
}

/* --- pooling ------------------------------------------------------------ */

struct pool_job {
	const struct gpu_pool *p;
	struct sgeo g;
	const char *x;
	char *y;
	int64_t *ind;
	int dbl;
};

#define POOL_BODY(T) \
	for (int64_t pl = b; pl < e; pl++) { \
		const T *x = (const T *)j->x + pl * g->pin; \
		T *y = (T *)j->y + pl * g->pout; \
		int64_t *ind = j->ind ? j->ind + pl * g->pout : NULL; \
		int64_t q = 0; \
		for (int64_t od = 0; od < g->out[0]; od++) \
		for (int64_t oh = 0; oh < g->out[1]; oh++) \
		for (int64_t ow = 0; ow < g->out[2]; ow++, q++) { \
			int64_t st[3] = { od * g->s[0] - g->p[0], \
					  oh * g->s[1] - g->p[1], \
					  ow * g->s[2] - g->p[2] }; \
			if (j->p->kind == GPU_POOL_MAX) { \
				T m = -INFINITY; \
				int64_t mi = -1; \
				for (int64_t kd = 0; kd < g->k[0]; kd++) { \
					int64_t id = st[0] + kd * g->d[0]; \
					if (id < 0 || id >= g->in[0]) \
						continue; \
					for (int64_t kh = 0; kh < g->k[1]; kh++) { \
						int64_t ih = st[1] + kh * g->d[1]; \
						const T *xr; \
						if (ih < 0 || ih >= g->in[1]) \
							continue; \
						xr = x + (id * g->in[1] + ih) * g->in[2]; \
						for (int64_t kw = 0; kw < g->k[2]; kw++) { \
							int64_t iw = st[2] + kw * g->d[2]; \
							T v; \
							if (iw < 0 || iw >= g->in[2]) \
								continue; \
							v = xr[iw]; \
							if (mi < 0 || v > m || isnan(v)) { \
								if (mi >= 0 && isnan(m)) \
									continue; \
								m = v; \
								mi = (id * g->in[1] + ih) * g->in[2] + iw; \
							} \
						} \
					} \
				} \
				y[q] = m; \
				if (ind) \
					ind[q] = mi < 0 ? 0 : mi; \
			} else { \
				int64_t en[3], cnt, pool_size = 1, div; \
				double s = 0; \
				for (int i = 0; i < 3; i++) { \
					en[i] = st[i] + g->k[i]; \
					if (en[i] > g->in[i] + g->p[i]) \
						en[i] = g->in[i] + g->p[i]; \
					pool_size *= en[i] - st[i]; \
					if (st[i] < 0) \
						st[i] = 0; \
					if (en[i] > g->in[i]) \
						en[i] = g->in[i]; \
				} \
				cnt = (en[0] - st[0]) * (en[1] - st[1]) * (en[2] - st[2]); \
				for (int64_t id = st[0]; id < en[0]; id++) \
				for (int64_t ih = st[1]; ih < en[1]; ih++) { \
					const T *xr = x + (id * g->in[1] + ih) * g->in[2]; \
					for (int64_t iw = st[2]; iw < en[2]; iw++) \
						s += xr[iw]; \
				} \
				if (j->p->divisor_override) \
					div = j->p->divisor_override; \
				else \
					div = j->p->count_include_pad ? pool_size : cnt; \
				y[q] = (T)(s / (double)div); \
			} \
		} \
	}

/* First output index o in [0, out) with 0 <= o * s + i0 < in, and one past
 * the last. */
static void valid_range(int64_t i0, int64_t s, int64_t in, int64_t out,
			int64_t *lo, int64_t *hi)
{
	int64_t l = 0, h;

	if (i0 < 0)
		l = (-i0 + s - 1) / s;
	h = in - i0 > 0 ? (in - i0 + s - 1) / s : 0;
	if (h > out)
		h = out;
	if (l > h)
		l = h;
	*lo = l;
	*hi = h;
}

/* Max pooling of one float plane over 1 or 2 spatial dims, no indices: a
 * running max per output row, one kernel tap at a time over the outputs
 * that tap reads inside the input (branch-free, vectorisable).  NaN wins
 * as in torch (v > m or v is NaN: take v). */
static void maxpool2d_f32(const struct sgeo *g, const float *x, float *y)
{
	for (int64_t oh = 0; oh < g->out[1]; oh++) {
		float *yr = y + oh * g->out[2];

		for (int64_t ow = 0; ow < g->out[2]; ow++)
			yr[ow] = -INFINITY;
		for (int64_t kh = 0; kh < g->k[1]; kh++) {
			int64_t ih = oh * g->s[1] - g->p[1] + kh * g->d[1];

			if (ih < 0 || ih >= g->in[1])
				continue;
			for (int64_t kw = 0; kw < g->k[2]; kw++) {
				int64_t iw0 = -g->p[2] + kw * g->d[2], lo, hi;
				const float *xs = x + ih * g->in[2] + iw0;
				int64_t sw = g->s[2];

				valid_range(iw0, sw, g->in[2], g->out[2], &lo,
					    &hi);
				for (int64_t ow = lo; ow < hi; ow++) {
					float v = xs[ow * sw], m = yr[ow];

					yr[ow] = ((v > m) | (v != v)) ? v : m;
				}
			}
		}
	}
}

static void pool_range(void *arg, int64_t b, int64_t e)
{
	const struct pool_job *j = arg;
	const struct sgeo *g = &j->g;

	if (!j->dbl && !j->ind && j->p->kind == GPU_POOL_MAX &&
	    g->out[0] == 1 && g->k[0] == 1 && g->in[0] == 1) {
		for (int64_t pl = b; pl < e; pl++)
			maxpool2d_f32(g, (const float *)j->x + pl * g->pin,
				      (float *)j->y + pl * g->pout);
		return;
	}
	if (j->dbl) {
		POOL_BODY(double)
	} else {
		POOL_BODY(float)
	}
}

int cpu_pool(const struct gpu_pool *p, const struct gpu_tensor *x,
	     struct gpu_tensor *y, struct gpu_tensor *indices)
{
	struct pool_job j;
	struct gpu_tensor *xc, *yc;
	int ns = p->nspatial;

	memset(&j, 0, sizeof(j));
	if (sgeo_init(&j.g, ns, x, y, "pool"))
		return -1;
	for (int i = 0; i < ns; i++) {
		int k = 3 - ns + i;

		j.g.k[k] = p->kernel[i];
		j.g.s[k] = p->stride[i];
		j.g.p[k] = p->pad[i];
		j.g.d[k] = p->kind == GPU_POOL_MAX && p->dilation[i] > 0 ?
			   p->dilation[i] : 1;
		if (p->kernel[i] < 1 || p->stride[i] < 1 || p->pad[i] < 0) {
			gpu_set_error("cpu pool: bad kernel, stride or pad");
			return -1;
		}
	}
	if (indices && (indices->dtype != IR_DTYPE_INT64 ||
			gpu_numel(indices) != gpu_numel(y) ||
			!gpu_is_contiguous(indices))) {
		gpu_set_error("cpu pool: indices must be contiguous int64 "
			      "shaped as y");
		return -1;
	}
	if (spatial_io(x, y, &xc, &yc, "pool"))
		return -1;
	j.p = p;
	j.x = cpu_base(xc);
	j.y = cpu_base(yc);
	j.ind = indices && p->kind == GPU_POOL_MAX ?
		(int64_t *)cpu_base(indices) : NULL;
	j.dbl = yc->dtype == IR_DTYPE_DOUBLE;
	cpu_parallel_for(j.g.planes, 1 + 4096 / (j.g.pout + 1), pool_range,
			 &j);
	return spatial_done(xc, yc, y, 0);
}

/* --- adaptive pooling ------------------------------------------------------ */

struct apool_job {
	struct sgeo g;
	enum gpu_pool_kind kind;
	const char *x;
	char *y;
	int dbl;
};

static int64_t bin_start(int64_t i, int64_t in, int64_t out)
{
	return (i * in) / out;
}

static int64_t bin_end(int64_t i, int64_t in, int64_t out)
{
	return ((i + 1) * in + out - 1) / out;
}

#define APOOL_BODY(T) \
	for (int64_t pl = b; pl < e; pl++) { \
		const T *x = (const T *)j->x + pl * g->pin; \
		T *y = (T *)j->y + pl * g->pout; \
		int64_t q = 0; \
		for (int64_t od = 0; od < g->out[0]; od++) \
		for (int64_t oh = 0; oh < g->out[1]; oh++) \
		for (int64_t ow = 0; ow < g->out[2]; ow++, q++) { \
			int64_t d0 = bin_start(od, g->in[0], g->out[0]); \
			int64_t d1 = bin_end(od, g->in[0], g->out[0]); \
			int64_t h0 = bin_start(oh, g->in[1], g->out[1]); \
			int64_t h1 = bin_end(oh, g->in[1], g->out[1]); \
			int64_t w0 = bin_start(ow, g->in[2], g->out[2]); \
			int64_t w1 = bin_end(ow, g->in[2], g->out[2]); \
			double s = 0; \
			T m = -INFINITY; \
			for (int64_t id = d0; id < d1; id++) \
			for (int64_t ih = h0; ih < h1; ih++) { \
				const T *xr = x + (id * g->in[1] + ih) * g->in[2]; \
				if (j->kind == GPU_POOL_AVG) { \
					for (int64_t iw = w0; iw < w1; iw++) \
						s += xr[iw]; \
				} else { \
					for (int64_t iw = w0; iw < w1; iw++) \
						if (xr[iw] > m || isnan(xr[iw])) \
							m = isnan(m) ? m : xr[iw]; \
				} \
			} \
			if (j->kind == GPU_POOL_AVG) \
				y[q] = (T)(s / (double)((d1 - d0) * (h1 - h0) * (w1 - w0))); \
			else \
				y[q] = m; \
		} \
	}

static void apool_range(void *arg, int64_t b, int64_t e)
{
	const struct apool_job *j = arg;
	const struct sgeo *g = &j->g;

	if (j->dbl) {
		APOOL_BODY(double)
	} else {
		APOOL_BODY(float)
	}
}

int cpu_adaptive_pool(enum gpu_pool_kind kind, int nspatial,
		      const struct gpu_tensor *x, struct gpu_tensor *y)
{
	struct apool_job j;
	struct gpu_tensor *xc, *yc;

	memset(&j, 0, sizeof(j));
	if (sgeo_init(&j.g, nspatial, x, y, "adaptive_pool"))
		return -1;
	for (int i = 0; i < 3; i++)
		if (j.g.out[i] < 1 || j.g.in[i] < 1) {
			if (gpu_numel(y) == 0)
				return 0;
			gpu_set_error("cpu adaptive_pool: empty input or "
				      "output");
			return -1;
		}
	if (spatial_io(x, y, &xc, &yc, "adaptive_pool"))
		return -1;
	j.kind = kind;
	j.x = cpu_base(xc);
	j.y = cpu_base(yc);
	j.dbl = yc->dtype == IR_DTYPE_DOUBLE;
	cpu_parallel_for(j.g.planes, 1 + 4096 / (j.g.pin + 1), apool_range,
			 &j);
	return spatial_done(xc, yc, y, 0);
}

/* --- pad ------------------------------------------------------------------- */

struct pad_job {
	const struct gpu_tensor *x;
	struct gpu_tensor *y;
	const int64_t *pads;
	enum gpu_pad_mode mode;
	_Alignas(8) char value[8];
	size_t esz;
};

/* source index of output index i along a dim of n with `before`, or -1 */
static int64_t pad_src(enum gpu_pad_mode mode, int64_t i, int64_t before,
		       int64_t n)
{
	int64_t j = i - before;

	if (j >= 0 && j < n)
		return j;
	if (n <= 0)
		return -1;
	switch (mode) {
	case GPU_PAD_REFLECT:
		if (n == 1)
			return 0;
		{
			int64_t period = 2 * (n - 1);

			j %= period;
			if (j < 0)
				j += period;
			return j < n ? j : period - j;
		}
	case GPU_PAD_REPLICATE:
		return j < 0 ? 0 : n - 1;
	case GPU_PAD_CIRCULAR:
		j %= n;
		return j < 0 ? j + n : j;
	default:
		return -1;
	}
}

static void pad_range(void *arg, int64_t b, int64_t e)
{
	const struct pad_job *j = arg;
	const struct gpu_tensor *x = j->x, *y = j->y;
	int r = y->rank;
	int64_t len = r ? y->dims[r - 1] : 1;
	size_t esz = j->esz;

	for (int64_t row = b; row < e; row++) {
		int64_t rest = row, off = 0;
		int outside = 0;
		char *dst = cpu_base(y) + (size_t)(row * len) * esz;
		const char *src;

		for (int d = r - 2; d >= 0; d--) {
			int64_t i = rest % y->dims[d], s;

			rest /= y->dims[d];
			s = pad_src(j->mode, i, j->pads[2 * d], x->dims[d]);
			if (s < 0)
				outside = 1;
			else
				off += s * x->strides[d];
		}
		src = cpu_base(x) + off * (int64_t)esz;
		for (int64_t i = 0; i < len; i++) {
			int64_t s = outside ? -1 :
				    r ? pad_src(j->mode, i, j->pads[2 * (r - 1)],
						x->dims[r - 1]) : 0;

			if (s < 0)
				memcpy(dst + (size_t)i * esz, j->value, esz);
			else
				memcpy(dst + (size_t)i * esz,
				       src + s * (r ? x->strides[r - 1] : 0) *
				       (int64_t)esz, esz);
		}
	}
}

int cpu_pad(const struct gpu_tensor *x, const int64_t *pads,
	    enum gpu_pad_mode mode, double value, struct gpu_tensor *y)
{
	struct pad_job j;
	int r = x->rank;
	int64_t rows;

	memset(&j, 0, sizeof(j));
	if (x->dtype != y->dtype || !(cpu_is_float(x->dtype) ||
				      cpu_is_int(x->dtype))) {
		gpu_set_error("cpu pad: dtype %s (y %s) not supported",
			      ir_dtype_torch_name(x->dtype),
			      ir_dtype_torch_name(y->dtype));
		return -1;
	}
	if (y->rank != r) {
		gpu_set_error("cpu pad: ranks differ");
		return -1;
	}
	for (int d = 0; d < r; d++) {
		if (x->dims[d] + pads[2 * d] + pads[2 * d + 1] != y->dims[d]) {
			gpu_set_error("cpu pad: y's dim %d is not x's plus the "
				      "pads", d);
			return -1;
		}
		if (mode != GPU_PAD_CONSTANT && x->dims[d] == 0 &&
		    y->dims[d] > 0) {
			gpu_set_error("cpu pad: cannot pad an empty dim in "
				      "this mode");
			return -1;
		}
	}
	j.x = x;
	j.y = y;
	j.pads = pads;
	j.mode = mode;
	j.esz = ir_dtype_size(y->dtype);
	cpu_st_d(j.value, y->dtype, value);
	if (gpu_numel(y) == 0)
		return 0;
	rows = r ? gpu_numel(y) / y->dims[r - 1] : 1;
	cpu_parallel_for(rows, 64, pad_range, &j);
	return 0;
}

/* --- resize ---------------------------------------------------------------- */

/* torch's area_pixel_compute_scale */
static double area_scale(int64_t in, int64_t out, int align, double scale)
{
	if (align)
		return out > 1 ? (double)(in - 1) / (double)(out - 1) : 0;
	if (scale > 0)
		return 1.0 / scale;
	return (double)in / (double)out;
}

struct lin_tab {
	int64_t i0, i1;
	double l0, l1;
};

struct resize_job {
	struct sgeo g;
	enum gpu_interp mode;
	int align;
	double sc[3];     /* per padded dim */
	struct lin_tab *tab[3];
	int64_t *near[3];
	const char *x;
	char *y;
	int dbl;
	size_t esz;
};

static double cubic1(double x, double a)
{
	return ((a + 2) * x - (a + 3)) * x * x + 1;
}

static double cubic2(double x, double a)
{
	return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
}

static void resize_range(void *arg, int64_t b, int64_t e)
{
	const struct resize_job *j = arg;
	const struct sgeo *g = &j->g;

	for (int64_t pl = b; pl < e; pl++) {
		int64_t q = 0;

		for (int64_t od = 0; od < g->out[0]; od++)
		for (int64_t oh = 0; oh < g->out[1]; oh++)
		for (int64_t ow = 0; ow < g->out[2]; ow++, q++) {
			int64_t yo = pl * g->pout + q;

			if (j->mode == GPU_INTERP_NEAREST ||
			    j->mode == GPU_INTERP_NEAREST_EXACT) {
				int64_t xo = pl * g->pin +
					     (j->near[0][od] * g->in[1] +
					      j->near[1][oh]) * g->in[2] +
					     j->near[2][ow];

				memcpy(j->y + (size_t)yo * j->esz,
				       j->x + (size_t)xo * j->esz, j->esz);
			} else if (j->mode == GPU_INTERP_LINEAR) {
				const struct lin_tab *td = &j->tab[0][od];
				const struct lin_tab *th = &j->tab[1][oh];
				const struct lin_tab *tw = &j->tab[2][ow];
				double s = 0;

				for (int c = 0; c < 8; c++) {
					int64_t id = c & 4 ? td->i1 : td->i0;
					int64_t ih = c & 2 ? th->i1 : th->i0;
					int64_t iw = c & 1 ? tw->i1 : tw->i0;
					double wgt = (c & 4 ? td->l1 : td->l0) *
						     (c & 2 ? th->l1 : th->l0) *
						     (c & 1 ? tw->l1 : tw->l0);
					int64_t xo = pl * g->pin +
						     (id * g->in[1] + ih) * g->in[2] + iw;
					double v = j->dbl ?
						   ((const double *)j->x)[xo] :
						   ((const float *)j->x)[xo];

					if (wgt != 0)
						s += wgt * v;
				}
				if (j->dbl)
					((double *)j->y)[yo] = s;
				else
					((float *)j->y)[yo] = (float)s;
			} else {
				/* bicubic over dims 1 and 2 */
				double sh, sw, th, tw, ch[4], cw[4], s = 0;
				int64_t ih, iw;
				const double A = -0.75;

				sh = j->align ? j->sc[1] * (double)oh :
				     j->sc[1] * ((double)oh + 0.5) - 0.5;
				sw = j->align ? j->sc[2] * (double)ow :
				     j->sc[2] * ((double)ow + 0.5) - 0.5;
				ih = (int64_t)floor(sh);
				iw = (int64_t)floor(sw);
				th = sh - (double)ih;
				tw = sw - (double)iw;
				ch[0] = cubic2(th + 1, A);
				ch[1] = cubic1(th, A);
				ch[2] = cubic1(1 - th, A);
				ch[3] = cubic2(2 - th, A);
				cw[0] = cubic2(tw + 1, A);
				cw[1] = cubic1(tw, A);
				cw[2] = cubic1(1 - tw, A);
				cw[3] = cubic2(2 - tw, A);
				for (int a = 0; a < 4; a++) {
					int64_t hh = ih - 1 + a;

					hh = hh < 0 ? 0 : (hh >= g->in[1] ? g->in[1] - 1 : hh);
					for (int c = 0; c < 4; c++) {
						int64_t ww = iw - 1 + c;
						int64_t xo;
						double v;

						ww = ww < 0 ? 0 : (ww >= g->in[2] ? g->in[2] - 1 : ww);
						xo = pl * g->pin + (od * g->in[1] + hh) *
						     g->in[2] + ww;
						v = j->dbl ? ((const double *)j->x)[xo] :
						    ((const float *)j->x)[xo];
						s += ch[a] * cw[c] * v;
					}
				}
				if (j->dbl)
					((double *)j->y)[yo] = s;
				else
					((float *)j->y)[yo] = (float)s;
			}
		}
	}
}

int cpu_resize(const struct gpu_tensor *x, int nspatial,
	       enum gpu_interp mode, int align_corners,
	       const double *scales, struct gpu_tensor *y)
{
	struct resize_job j;
	struct gpu_tensor *xc = NULL, *yc = NULL;
	int ns = nspatial, rc = -1, nearest;

	memset(&j, 0, sizeof(j));
	if (sgeo_init(&j.g, ns, x, y, "resize"))
		return -1;
	nearest = mode == GPU_INTERP_NEAREST || mode == GPU_INTERP_NEAREST_EXACT;
	if (mode == GPU_INTERP_CUBIC && ns != 2) {
		gpu_set_error("cpu resize: cubic over 2 dims only");
		return -1;
	}
	if (gpu_numel(y) == 0)
		return 0;
	if (gpu_numel(x) == 0) {
		gpu_set_error("cpu resize: empty input");
		return -1;
	}
	if (nearest) {
		if (x->dtype != y->dtype ||
		    !(cpu_is_float(x->dtype) || cpu_is_int(x->dtype))) {
			gpu_set_error("cpu resize: dtype %s not supported",
				      ir_dtype_torch_name(x->dtype));
			return -1;
		}
		xc = contig(x, x->dtype);
		if (!xc)
			return -1;
		yc = gpu_view(y, y->rank, y->dims, y->strides, y->offset);
		if (!yc) {
			gpu_free(xc);
			return -1;
		}
	} else if (spatial_io(x, y, &xc, &yc, "resize")) {
		return -1;
	}
	j.mode = mode;
	j.align = align_corners;
	j.x = cpu_base(xc);
	j.y = cpu_base(yc);
	j.dbl = yc->dtype == IR_DTYPE_DOUBLE;
	j.esz = ir_dtype_size(yc->dtype);
	for (int i = 0; i < 3; i++) {
		int s = i - (3 - ns);
		double user = s < 0 || !scales ? 0 : scales[s];
		int64_t in = j.g.in[i], out = j.g.out[i];

		if (nearest) {
			/* torch: float arithmetic, compute_scales_value */
			float sc = user > 0 ? (float)(1.0 / user) :
				   (float)in / (float)out;

			j.near[i] = malloc((size_t)out * sizeof(int64_t));
			if (!j.near[i])
				goto oom;
			for (int64_t o = 0; o < out; o++) {
				int64_t src;

				if (mode == GPU_INTERP_NEAREST_EXACT)
					src = (int64_t)floorf(((float)o + 0.5f) * sc);
				else if (out == in)
					src = o;
				else if (out == 2 * in)
					src = o >> 1;
				else
					src = (int64_t)floorf((float)o * sc);
				j.near[i][o] = src < in - 1 ? src : in - 1;
			}
			continue;
		}
		j.sc[i] = area_scale(in, out, align_corners, user);
		if (mode != GPU_INTERP_LINEAR)
			continue;
		j.tab[i] = malloc((size_t)out * sizeof(struct lin_tab));
		if (!j.tab[i])
			goto oom;
		for (int64_t o = 0; o < out; o++) {
			struct lin_tab *t = &j.tab[i][o];
			double src;

			if (s < 0 || in == out) {
				t->i0 = t->i1 = s < 0 ? 0 : o;
				t->l0 = 1;
				t->l1 = 0;
				continue;
			}
			if (j.dbl) {
				src = align_corners ? j.sc[i] * (double)o :
				      j.sc[i] * ((double)o + 0.5) - 0.5;
				if (src < 0)
					src = 0;
			} else {
				/* torch computes these in float for float */
				float fs = (float)j.sc[i], fsrc;

				fsrc = align_corners ? fs * (float)o :
				       fs * ((float)o + 0.5f) - 0.5f;
				if (fsrc < 0)
					fsrc = 0;
				src = fsrc;
			}
			t->i0 = (int64_t)src;
			if (t->i0 > in - 1)
				t->i0 = in - 1;
			t->i1 = t->i0 + (t->i0 < in - 1 ? 1 : 0);
			if (j.dbl) {
				t->l1 = src - (double)t->i0;
				t->l0 = 1 - t->l1;
			} else {
				float l1 = (float)src - (float)t->i0;

				t->l1 = l1;
				t->l0 = 1.0f - l1;
			}
		}
	}
	cpu_parallel_for(j.g.planes, 1 + 4096 / (j.g.pout + 1), resize_range,
			 &j);
	rc = 0;
	goto out;
oom:
	gpu_set_error("cpu resize: out of memory");
out:
	for (int i = 0; i < 3; i++) {
		free(j.near[i]);
		free(j.tab[i]);
	}
	if (nearest) {
		gpu_free(xc);
		gpu_free(yc);
		return rc;
	}
	return spatial_done(xc, yc, y, rc);
}

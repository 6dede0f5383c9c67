/*
 * cpu_reduce.c - the CPU backend's reductions and the kernels built on row
 * statistics: reduce (sum, mean, prod, max, min, arg max/min, all, any,
 * norms, logsumexp, var), cumulative sums and products, softmax, and
 * batch / group / layer normalisation.  Floats accumulate in double,
 * integers in int64 (wrapping).
 */
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"
#include "gpu_int.h"

#define BLOCK 1024

/* --- the reduced sub-space of one output element -------------------------- */

struct rspace {
	int nr;
	int64_t dims[GPU_MAX_DIMS], strides[GPU_MAX_DIMS]; /* elements */
	int64_t count;
};

/* Loads elements [j0, j0 + n) of the reduced space at base into d (as
 * double) or l (as int64). */
static void load_block(const struct rspace *rs, const char *base,
		       enum ir_dtype dt, int64_t j0, int64_t n, double *d,
		       int64_t *l)
{
	int64_t idx[GPU_MAX_DIMS], rest = j0, off = 0, done = 0;
	int nr = rs->nr;
	size_t esz = ir_dtype_size(dt);

	if (nr == 0) {
		if (d)
			d[0] = cpu_ld_d(base, dt);
		else
			l[0] = cpu_ld_i(base, dt);
		return;
	}
	for (int k = nr - 1; k >= 0; k--) {
		idx[k] = rest % rs->dims[k];
		rest /= rs->dims[k];
		off += idx[k] * rs->strides[k];
	}
	while (done < n) {
		int64_t run = rs->dims[nr - 1] - idx[nr - 1], st = rs->strides[nr - 1];
		const char *p = base + off * (int64_t)esz;

		if (run > n - done)
			run = n - done;
		if (d) {
			double *o = d + done;

			if (dt == IR_DTYPE_FLOAT) {
				const float *f = (const float *)p;

				for (int64_t i = 0; i < run; i++)
					o[i] = f[i * st];
			} else if (dt == IR_DTYPE_DOUBLE) {
				const double *f = (const double *)p;

				for (int64_t i = 0; i < run; i++)
					o[i] = f[i * st];
			} else {
				for (int64_t i = 0; i < run; i++)
					o[i] = cpu_ld_d(p + i * st * (int64_t)esz, dt);
			}
		} else {
			int64_t *o = l + done;

			for (int64_t i = 0; i < run; i++)
				o[i] = cpu_ld_i(p + i * st * (int64_t)esz, dt);
		}
		done += run;
		idx[nr - 1] += run;
		off += run * st;
		for (int k = nr - 1; k > 0 && idx[k] >= rs->dims[k]; k--) {
			off -= idx[k] * rs->strides[k];
			idx[k] = 0;
			idx[k - 1]++;
			off += rs->strides[k - 1];
		}
	}
}

/* --- reduce ---------------------------------------------------------------- */

struct red_job {
	enum gpu_reduce op;
	const struct gpu_tensor *x;
	struct gpu_tensor *y;
	struct rspace rs;
	int nk;                          /* kept dims */
	int64_t kdims[GPU_MAX_DIMS], kstrides[GPU_MAX_DIMS];
	double param;
	int ints;
	int oom;
};

static double red_double(const struct red_job *j, const char *base,
			 double *buf, int64_t *arg)
{
	enum gpu_reduce op = j->op;
	int64_t cnt = j->rs.count;
	double s = 0, c = 0, m = -INFINITY, best = 0, mean = 0, m2 = 0;
	int64_t bi = -1, seen = 0;

	if (op == GPU_RPROD || op == GPU_RALL)
		s = 1;
	if (op == GPU_RMAX)
		s = -INFINITY;
	if (op == GPU_RMIN)
		s = INFINITY;
	for (int64_t j0 = 0; j0 < cnt; j0 += BLOCK) {
		int64_t n = cnt - j0 < BLOCK ? cnt - j0 : BLOCK;

		load_block(&j->rs, base, j->x->dtype, j0, n, buf, NULL);
		switch (op) {
		case GPU_RSUM: case GPU_RMEAN:
			for (int64_t i = 0; i < n; i++) {
				/* Kahan: sums of many floats stay exact-ish */
				double yv = buf[i] - c, t = s + yv;

				c = (t - s) - yv;
				s = t;
			}
			break;
		case GPU_RPROD:
			for (int64_t i = 0; i < n; i++)
				s *= buf[i];
			break;
		case GPU_RMAX:
			for (int64_t i = 0; i < n; i++)
				if (buf[i] > s || isnan(buf[i]))
					s = isnan(s) ? s : buf[i];
			break;
		case GPU_RMIN:
			for (int64_t i = 0; i < n; i++)
				if (buf[i] < s || isnan(buf[i]))
					s = isnan(s) ? s : buf[i];
			break;
		case GPU_RARGMAX: case GPU_RARGMIN:
			for (int64_t i = 0; i < n; i++) {
				double v = buf[i];
				int better;

				if (bi >= 0 && isnan(best))
					break;
				better = bi < 0 || isnan(v) ||
					 (op == GPU_RARGMAX ? v > best : v < best);
				if (better) {
					best = v;
					bi = j0 + i;
				}
			}
			break;
		case GPU_RALL:
			for (int64_t i = 0; i < n; i++)
				if (buf[i] == 0)
					s = 0;
			break;
		case GPU_RANY:
			for (int64_t i = 0; i < n; i++)
				if (buf[i] != 0)
					s = 1;
			break;
		case GPU_RL1:
			for (int64_t i = 0; i < n; i++)
				s += fabs(buf[i]);
			break;
		case GPU_RL2:
			for (int64_t i = 0; i < n; i++)
				s += buf[i] * buf[i];
			break;
		case GPU_RLOGSUMEXP:
			for (int64_t i = 0; i < n; i++) {
				double v = buf[i];

				if (v > m) {
					if (m != -INFINITY)
						s *= exp(m - v);
					m = v;
				}
				if (m != -INFINITY || v != -INFINITY)
					s += exp(v - m);
				if (isnan(v))
					m = s = v;
			}
			break;
		case GPU_RVAR:
			/* Welford */
			for (int64_t i = 0; i < n; i++) {
				double dlt = buf[i] - mean;

				seen++;
				mean += dlt / (double)seen;
				m2 += dlt * (buf[i] - mean);
			}
			break;
		default:
			break;
		}
	}
	switch (op) {
	case GPU_RMEAN:
		return s / (double)cnt;
	case GPU_RARGMAX: case GPU_RARGMIN:
		*arg = bi < 0 ? 0 : bi;
		return 0;
	case GPU_RL2:
		return sqrt(s);
	case GPU_RLOGSUMEXP:
		if (m == -INFINITY)
			return -INFINITY;
		if (isinf(m))
			return m;
		return m + log(s);
	case GPU_RVAR: {
		double dof = (double)cnt - j->param;

		return dof > 0 ? m2 / dof : (dof == 0 && cnt ? INFINITY : NAN);
	}
	default:
		return s;
	}
}

static int64_t red_int(const struct red_job *j, const char *base,
		       int64_t *buf, int64_t *arg)
{
	enum gpu_reduce op = j->op;
	int64_t cnt = j->rs.count, best = 0, bi = -1;
	uint64_t s = 0;
	int64_t mx = INT64_MIN, mn = INT64_MAX;

	if (op == GPU_RPROD || op == GPU_RALL)
		s = 1;
	for (int64_t j0 = 0; j0 < cnt; j0 += BLOCK) {
		int64_t n = cnt - j0 < BLOCK ? cnt - j0 : BLOCK;

		load_block(&j->rs, base, j->x->dtype, j0, n, NULL, buf);
		for (int64_t i = 0; i < n; i++) {
			int64_t v = buf[i];

			switch (op) {
			case GPU_RSUM: s += (uint64_t)v; break;
			case GPU_RPROD: s *= (uint64_t)v; break;
			case GPU_RMAX: if (v > mx) mx = v; break;
			case GPU_RMIN: if (v < mn) mn = v; break;
			case GPU_RARGMAX:
				if (bi < 0 || v > best) {
					best = v;
					bi = j0 + i;
				}
				break;
			case GPU_RARGMIN:
				if (bi < 0 || v < best) {
					best = v;
					bi = j0 + i;
				}
				break;
			case GPU_RALL: if (!v) s = 0; break;
			case GPU_RANY: if (v) s = 1; break;
			default: break;
			}
		}
	}
	switch (op) {
	case GPU_RMAX: return mx;
	case GPU_RMIN: return mn;
	case GPU_RARGMAX: case GPU_RARGMIN:
		*arg = bi < 0 ? 0 : bi;
		return 0;
	default: return (int64_t)s;
	}
}

static void red_range(void *arg, int64_t b, int64_t e)
{
	struct red_job *j = arg;
	size_t yesz = ir_dtype_size(j->y->dtype);
	size_t xesz = ir_dtype_size(j->x->dtype);
	char *py = cpu_base(j->y);
	const char *px = cpu_base(j->x);
	void *buf = malloc(BLOCK * sizeof(double));

	if (!buf) {
		j->oom = 1;
		return;
	}
	for (int64_t o = b; o < e; o++) {
		int64_t off = 0, rest = o, a = 0;
		const char *base;
		char *dst = py + (size_t)o * yesz;

		for (int k = j->nk - 1; k >= 0; k--) {
			off += (rest % j->kdims[k]) * j->kstrides[k];
			rest /= j->kdims[k];
		}
		base = px + off * (int64_t)xesz;
		if (j->ints) {
			int64_t v = red_int(j, base, buf, &a);

			if (j->op == GPU_RARGMAX || j->op == GPU_RARGMIN)
				cpu_st_i(dst, j->y->dtype, a);
			else
				cpu_st_i(dst, j->y->dtype, v);
		} else {
			double v = red_double(j, base, buf, &a);

			if (j->op == GPU_RARGMAX || j->op == GPU_RARGMIN)
				cpu_st_i(dst, j->y->dtype, a);
			else
				cpu_st_d(dst, j->y->dtype, v);
		}
	}
	free(buf);
}

int cpu_reduce(enum gpu_reduce op, const struct gpu_tensor *x,
	       uint32_t axes_mask, double param, struct gpu_tensor *y)
{
	struct red_job j;
	int64_t nout = 1;

	memset(&j, 0, sizeof(j));
	if ((unsigned)op >= GPU_REDUCE_COUNT) {
		gpu_set_error("cpu reduce: op %d unknown", (int)op);
		return -1;
	}
	if (!(cpu_is_float(x->dtype) || cpu_is_int(x->dtype)) ||
	    !(cpu_is_float(y->dtype) || cpu_is_int(y->dtype))) {
		gpu_set_error("cpu reduce: dtype %s not supported",
			      ir_dtype_torch_name(x->dtype));
		return -1;
	}
	if (y->rank != x->rank) {
		gpu_set_error("cpu reduce: y must keep x's rank");
		return -1;
	}
	j.op = op;
	j.x = x;
	j.y = y;
	j.param = param;
	j.rs.count = 1;
	for (int d = 0; d < x->rank; d++) {
		if (axes_mask & (1u << d)) {
			if (y->dims[d] != 1) {
				gpu_set_error("cpu reduce: reduced dim %d of y "
					      "is not 1", d);
				return -1;
			}
			if (x->dims[d] == 1)
				continue;
			j.rs.dims[j.rs.nr] = x->dims[d];
			j.rs.strides[j.rs.nr++] = x->strides[d];
			j.rs.count *= x->dims[d];
		} else {
			if (y->dims[d] != x->dims[d]) {
				gpu_set_error("cpu reduce: kept dims differ");
				return -1;
			}
			j.kdims[j.nk] = x->dims[d];
			j.kstrides[j.nk++] = x->strides[d];
			nout *= x->dims[d];
		}
	}
	if (j.rs.count == 0 && (op == GPU_RMAX || op == GPU_RMIN ||
				op == GPU_RARGMAX || op == GPU_RARGMIN)) {
		gpu_set_error("cpu reduce: max/min of an empty dimension");
		return -1;
	}
	j.ints = !cpu_is_float(x->dtype) &&
		 (op == GPU_RSUM || op == GPU_RPROD || op == GPU_RMAX ||
		  op == GPU_RMIN || op == GPU_RARGMAX || op == GPU_RARGMIN ||
		  op == GPU_RALL || op == GPU_RANY);
	cpu_parallel_for(nout, j.rs.count >= 4096 ? 1 : 4096 / (j.rs.count + 1) + 1,
			 red_range, &j);
	if (j.oom) {
		gpu_set_error("cpu reduce: out of memory");
		return -1;
	}
	return 0;
}

/* --- lines along one axis (cumulative, softmax) ----------------------------- */

struct line_job {
	const struct gpu_tensor *x;
	struct gpu_tensor *y;
	int axis;
	int64_t len, inner;     /* y contiguous: line i at (o, *, in) */
	int flag, reverse;      /* cumulative: prod; softmax: log */
	int oom;
};

/* offset (elements) of line l's first element in x, and in y */
static void line_offsets(const struct line_job *j, int64_t l, int64_t *ox,
			 int64_t *oy)
{
	const struct gpu_tensor *x = j->x;
	int64_t rest = l, off = 0;

	for (int d = x->rank - 1; d >= 0; d--) {
		if (d == j->axis)
			continue;
		off += (rest % x->dims[d]) * x->strides[d];
		rest /= x->dims[d];
	}
	*ox = off;
	*oy = (l / j->inner) * j->len * j->inner + l % j->inner;
}

static void cum_range(void *arg, int64_t b, int64_t e)
{
	const struct line_job *j = arg;
	const struct gpu_tensor *x = j->x;
	enum ir_dtype xt = x->dtype, yt = j->y->dtype;
	size_t xs = ir_dtype_size(xt), ys = ir_dtype_size(yt);
	int64_t sx = x->strides[j->axis];
	int ints = !cpu_is_float(xt) && !cpu_is_float(yt);

	for (int64_t l = b; l < e; l++) {
		int64_t ox, oy;
		const char *px;
		char *py;
		double s = j->flag ? 1 : 0;
		uint64_t si = j->flag ? 1 : 0;

		line_offsets(j, l, &ox, &oy);
		px = cpu_base(x) + ox * (int64_t)xs;
		py = cpu_base(j->y) + oy * (int64_t)ys;
		for (int64_t q = 0; q < j->len; q++) {
			int64_t i = j->reverse ? j->len - 1 - q : q;
			const char *src = px + i * sx * (int64_t)xs;
			char *dst = py + i * j->inner * (int64_t)ys;

			if (ints) {
				uint64_t v = (uint64_t)cpu_ld_i(src, xt);

				si = j->flag ? si * v : si + v;
				cpu_st_i(dst, yt, (int64_t)si);
			} else {
				double v = cpu_ld_d(src, xt);

				s = j->flag ? s * v : s + v;
				cpu_st_d(dst, yt, s);
			}
		}
	}
}

static int line_setup(struct line_job *j, const struct gpu_tensor *x,
		      int axis, struct gpu_tensor *y, const char *what)
{
	memset(j, 0, sizeof(*j));
	if (axis < 0)
		axis += x->rank;
	if (x->rank == 0 && (axis == 0 || axis == -1)) {
		axis = 0;
	} else if (axis < 0 || axis >= x->rank) {
		gpu_set_error("cpu %s: axis %d out of range", what, axis);
		return -1;
	}
	if (y->rank != x->rank ||
	    memcmp(x->dims, y->dims, (size_t)x->rank * sizeof(int64_t))) {
		gpu_set_error("cpu %s: y's shape differs from x's", what);
		return -1;
	}
	j->x = x;
	j->y = y;
	j->axis = axis;
	j->len = x->rank ? x->dims[axis] : 1;
	j->inner = 1;
	for (int d = axis + 1; d < x->rank; d++)
		j->inner *= x->dims[d];
	return 0;
}

int cpu_cumulative(const struct gpu_tensor *x, int axis, int prod,
		   int reverse, struct gpu_tensor *y)
{
	struct line_job j;
	struct gpu_tensor x0;
	int64_t n;

	if (!(cpu_is_float(x->dtype) || cpu_is_int(x->dtype)) ||
	    !(cpu_is_float(y->dtype) || cpu_is_int(y->dtype))) {
		gpu_set_error("cpu cumulative: dtype %s not supported",
			      ir_dtype_torch_name(x->dtype));
		return -1;
	}
	if (x->rank == 0) {
		/* a scalar is a line of one */
		x0 = *x;
		x0.rank = 1;
		x0.dims[0] = 1;
		x0.strides[0] = 1;
		x = &x0;
	}
	{
		struct gpu_tensor y0 = *y;

		if (y->rank == 0) {
			y0.rank = 1;
			y0.dims[0] = 1;
			y0.strides[0] = 1;
		}
		if (line_setup(&j, x, axis, &y0, "cumulative"))
			return -1;
		j.y = y;
		j.flag = prod;
		j.reverse = reverse;
		n = gpu_numel(x);
		if (n == 0)
			return 0;
		cpu_parallel_for(n / j.len, 64, cum_range, &j);
	}
	return 0;
}

/* --- softmax ----------------------------------------------------------------- */

static void softmax_range(void *arg, int64_t b, int64_t e)
{
	struct line_job *j = arg;
	const struct gpu_tensor *x = j->x;
	enum ir_dtype xt = x->dtype, yt = j->y->dtype;
	size_t xs = ir_dtype_size(xt), ys = ir_dtype_size(yt);
	int64_t sx = x->strides[j->axis], len = j->len;
	double *buf = malloc((size_t)(len ? len : 1) * sizeof(double));

	if (!buf) {
		j->oom = 1;
		return;
	}
	for (int64_t l = b; l < e; l++) {
		int64_t ox, oy;
		const char *px;
		char *py;
		double m = -INFINITY, s = 0;

		line_offsets(j, l, &ox, &oy);
		px = cpu_base(x) + ox * (int64_t)xs;
		py = cpu_base(j->y) + oy * (int64_t)ys;
		if (xt == IR_DTYPE_FLOAT) {
			const float *f = (const float *)px;

			for (int64_t i = 0; i < len; i++)
				buf[i] = f[i * sx];
		} else {
			for (int64_t i = 0; i < len; i++)
				buf[i] = cpu_ld_d(px + i * sx * (int64_t)xs, xt);
		}
		for (int64_t i = 0; i < len; i++)
			if (buf[i] > m || isnan(buf[i]))
				m = isnan(m) ? m : buf[i];
		if (m == -INFINITY)
			m = 0; /* all -inf: exp gives 0s, then nan as torch */
		for (int64_t i = 0; i < len; i++) {
			buf[i] -= m;
			s += exp(buf[i]);
		}
		if (j->flag) {
			double ls = log(s);

			for (int64_t i = 0; i < len; i++)
				buf[i] -= ls;
		} else {
			double inv = 1 / s;

			for (int64_t i = 0; i < len; i++)
				buf[i] = exp(buf[i]) * inv;
		}
		if (yt == IR_DTYPE_FLOAT) {
			float *f = (float *)py;

			for (int64_t i = 0; i < len; i++)
				f[i * j->inner] = (float)buf[i];
		} else {
			for (int64_t i = 0; i < len; i++)
				cpu_st_d(py + i * j->inner * (int64_t)ys, yt,
					 buf[i]);
		}
	}
	free(buf);
}

int cpu_softmax(const struct gpu_tensor *x, int axis, int log,
		struct gpu_tensor *y)
{
	struct line_job j;
	struct gpu_tensor x0 = *x, y0 = *y;
	int64_t n;

	if (!cpu_is_float(x->dtype) || !cpu_is_float(y->dtype)) {
		gpu_set_error("cpu softmax: dtype %s not supported",
			      ir_dtype_torch_name(cpu_is_float(x->dtype) ?
						  y->dtype : x->dtype));
		return -1;
	}
	if (x->rank == 0) {
		x0.rank = y0.rank = 1;
		x0.dims[0] = y0.dims[0] = 1;
		x0.strides[0] = y0.strides[0] = 1;
	}
	if (line_setup(&j, &x0, axis, &y0, "softmax"))
		return -1;
	j.flag = log;
	n = gpu_numel(x);
	if (n == 0)
		return 0;
	cpu_parallel_for(n / j.len, 1 + 8192 / (j.len + 1), softmax_range, &j);
	if (j.oom) {
		gpu_set_error("cpu softmax: out of memory");
		return -1;
	}
	return 0;
}

/* --- normalisation ------------------------------------------------------------ */

/* x as a contiguous tensor of dtype ct (a new reference or a copy). */
static struct gpu_tensor *contig_as(const struct gpu_tensor *x,
				    enum ir_dtype ct)
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

/* a [C] parameter as doubles (v NULL: def) */
static int param_vec(const struct gpu_tensor *v, int64_t c, double def,
		     double *out, const char *what)
{
	if (!v) {
		for (int64_t i = 0; i < c; i++)
			out[i] = def;
		return 0;
	}
	if (gpu_numel(v) != c) {
		gpu_set_error("cpu norm: %s has %lld elements, want %lld", what,
			      (long long)gpu_numel(v), (long long)c);
		return -1;
	}
	{
		/* row-major over v's dims */
		int64_t idx = 0;

		for (int64_t i = 0; i < c; i++) {
			int64_t rest = i, off = 0;

			for (int d = v->rank - 1; d >= 0; d--) {
				off += (rest % v->dims[d]) * v->strides[d];
				rest /= v->dims[d];
			}
			out[idx++] = cpu_ld_d(cpu_base(v) + off *
					      (int64_t)ir_dtype_size(v->dtype),
					      v->dtype);
		}
	}
	return 0;
}

/* y = x * scale[ch] + shift[ch] per plane of `plane` elements, plane p
 * having channel p % c. */
struct affine_job {
	const char *x;
	char *y;
	const double *scale, *shift;
	int64_t c, plane;
	int dbl;
};

static void affine_range(void *arg, int64_t b, int64_t e)
{
	const struct affine_job *j = arg;

	for (int64_t p = b; p < e; p++) {
		int64_t ch = p % j->c;

		if (j->dbl) {
			const double *x = (const double *)j->x + p * j->plane;
			double *y = (double *)j->y + p * j->plane;
			double sc = j->scale[ch], sh = j->shift[ch];

			for (int64_t i = 0; i < j->plane; i++)
				y[i] = x[i] * sc + sh;
		} else {
			const float *x = (const float *)j->x + p * j->plane;
			float *y = (float *)j->y + p * j->plane;
			float sc = (float)j->scale[ch], sh = (float)j->shift[ch];

			for (int64_t i = 0; i < j->plane; i++)
				y[i] = x[i] * sc + sh;
		}
	}
}

/* mean and biased variance of n contiguous elements (two passes) */
static void stats(const char *p, int dbl, int64_t n, double *mean,
		  double *var)
{
	double s = 0, ss = 0, m;

	if (dbl) {
		const double *x = (const double *)p;

		for (int64_t i = 0; i < n; i++)
			s += x[i];
		m = n ? s / (double)n : 0;
		for (int64_t i = 0; i < n; i++)
			ss += (x[i] - m) * (x[i] - m);
	} else {
		const float *x = (const float *)p;

		for (int64_t i = 0; i < n; i++)
			s += x[i];
		m = n ? s / (double)n : 0;
		for (int64_t i = 0; i < n; i++)
			ss += ((double)x[i] - m) * ((double)x[i] - m);
	}
	*mean = m;
	*var = n ? ss / (double)n : NAN;
}

/* Prepares x and y for a norm kernel in float or double, contiguous. */
static int norm_io(const struct gpu_tensor *x, struct gpu_tensor *y,
		   struct gpu_tensor **xc, struct gpu_tensor **yc, int *dbl,
		   const char *what)
{
	enum ir_dtype ct;

	*xc = *yc = NULL;
	if (!cpu_is_float(x->dtype) || !cpu_is_float(y->dtype)) {
		gpu_set_error("cpu %s: dtype %s not supported", what,
			      ir_dtype_torch_name(x->dtype));
		return -1;
	}
	if (x->rank != y->rank ||
	    memcmp(x->dims, y->dims, (size_t)x->rank * sizeof(int64_t))) {
		gpu_set_error("cpu %s: y's shape differs from x's", what);
		return -1;
	}
	ct = y->dtype == IR_DTYPE_DOUBLE ? IR_DTYPE_DOUBLE : IR_DTYPE_FLOAT;
	*dbl = ct == IR_DTYPE_DOUBLE;
	*xc = contig_as(x, ct);
	if (!*xc)
		return -1;
	if (y->dtype != ct) {
		*yc = gpu_empty(y->storage->be, ct, y->rank, y->dims);
		if (!*yc) {
			gpu_free(*xc);
			return -1;
		}
	} else {
		*yc = gpu_view(y, y->rank, y->dims, y->strides, y->offset);
	}
	return 0;
}

static int norm_finish(struct gpu_tensor *xc, struct gpu_tensor *yc,
		       struct gpu_tensor *y, int rc)
{
	if (!rc && yc->dtype != y->dtype)
		rc = cpu_copy(yc, y);
	gpu_free(xc);
	gpu_free(yc);
	return rc;
}

int cpu_batch_norm(const struct gpu_tensor *x, const struct gpu_tensor *mean,
		   const struct gpu_tensor *var,
		   const struct gpu_tensor *weight,
		   const struct gpu_tensor *bias, double eps,
		   struct gpu_tensor *y)
{
	struct gpu_tensor *xc, *yc;
	double *buf;
	int64_t n, c, plane = 1;
	int dbl, rc = -1;

	if (x->rank < 2) {
		gpu_set_error("cpu batch_norm: x needs [N, C, ...]");
		return -1;
	}
	if (norm_io(x, y, &xc, &yc, &dbl, "batch_norm"))
		return -1;
	n = x->dims[0];
	c = x->dims[1];
	for (int d = 2; d < x->rank; d++)
		plane *= x->dims[d];
	buf = malloc((size_t)(4 * c + 1) * sizeof(double));
	if (!buf) {
		gpu_set_error("cpu batch_norm: out of memory");
		return norm_finish(xc, yc, y, -1);
	}
	{
		double *mu = buf, *va = buf + c, *sc = buf + 2 * c,
		       *sh = buf + 3 * c;

		if (mean && var) {
			if (param_vec(mean, c, 0, mu, "mean") ||
			    param_vec(var, c, 1, va, "var"))
				goto out;
		} else {
			/* batch statistics over N and the spatial dims */
			size_t esz = dbl ? 8 : 4;

			for (int64_t ch = 0; ch < c; ch++) {
				double s = 0, ss = 0, m;
				int64_t cnt = n * plane;

				for (int64_t i = 0; i < n; i++) {
					double pm, pv;

					stats(cpu_base(xc) + (size_t)((i * c + ch) *
								      plane) * esz,
					      dbl, plane, &pm, &pv);
					s += pm * (double)plane;
					ss += (pv + pm * pm) * (double)plane;
				}
				m = cnt ? s / (double)cnt : 0;
				mu[ch] = m;
				va[ch] = cnt ? ss / (double)cnt - m * m : NAN;
				if (va[ch] < 0)
					va[ch] = 0;
			}
		}
		if (param_vec(weight, c, 1, sc, "weight") ||
		    param_vec(bias, c, 0, sh, "bias"))
			goto out;
		for (int64_t ch = 0; ch < c; ch++) {
			double inv = 1 / sqrt(va[ch] + eps);

			sc[ch] *= inv;
			sh[ch] -= mu[ch] * sc[ch];
		}
		{
			struct affine_job j = { cpu_base(xc), cpu_base(yc), sc,
						sh, c, plane, dbl };

			cpu_parallel_for(n * c, 1 + 16384 / (plane + 1),
					 affine_range, &j);
		}
	}
	rc = 0;
out:
	free(buf);
	return norm_finish(xc, yc, y, rc);
}

struct gn_job {
	const char *x;
	char *y;
	const double *w, *b;
	int64_t c, groups, cg, plane;
	double eps;
	int dbl;
};

static void gn_range(void *arg, int64_t b, int64_t e)
{
	const struct gn_job *j = arg;
	size_t esz = j->dbl ? 8 : 4;

	for (int64_t ng = b; ng < e; ng++) {
		int64_t n = ng / j->groups, g = ng % j->groups;
		int64_t first = (n * j->c + g * j->cg) * j->plane;
		double mean, var, inv;

		stats(j->x + (size_t)first * esz, j->dbl, j->cg * j->plane,
		      &mean, &var);
		inv = 1 / sqrt(var + j->eps);
		for (int64_t k = 0; k < j->cg; k++) {
			int64_t ch = g * j->cg + k;
			double sc = j->w[ch] * inv, sh = j->b[ch] - mean * sc;
			int64_t off = first + k * j->plane;

			if (j->dbl) {
				const double *x = (const double *)j->x + off;
				double *y = (double *)j->y + off;

				for (int64_t i = 0; i < j->plane; i++)
					y[i] = x[i] * sc + sh;
			} else {
				const float *x = (const float *)j->x + off;
				float *y = (float *)j->y + off;
				float fs = (float)sc, fh = (float)sh;

				for (int64_t i = 0; i < j->plane; i++)
					y[i] = x[i] * fs + fh;
			}
		}
	}
}

int cpu_group_norm(const struct gpu_tensor *x, int64_t groups,
		   const struct gpu_tensor *weight,
		   const struct gpu_tensor *bias, double eps,
		   struct gpu_tensor *y)
{
	struct gpu_tensor *xc, *yc;
	double *buf;
	int64_t c, plane = 1;
	int dbl, rc = -1;

	if (x->rank < 2 || groups < 1 || x->dims[1] % groups) {
		gpu_set_error("cpu group_norm: x needs [N, C, ...] with C a "
			      "multiple of groups");
		return -1;
	}
	if (norm_io(x, y, &xc, &yc, &dbl, "group_norm"))
		return -1;
	c = x->dims[1];
	for (int d = 2; d < x->rank; d++)
		plane *= x->dims[d];
	buf = malloc((size_t)(2 * c + 1) * sizeof(double));
	if (!buf) {
		gpu_set_error("cpu group_norm: out of memory");
		return norm_finish(xc, yc, y, -1);
	}
	if (!param_vec(weight, c, 1, buf, "weight") &&
	    !param_vec(bias, c, 0, buf + c, "bias")) {
		struct gn_job j = { cpu_base(xc), cpu_base(yc), buf, buf + c,
				    c, groups, c / groups, plane, eps, dbl };

		cpu_parallel_for(x->dims[0] * groups, 1, gn_range, &j);
		rc = 0;
	}
	free(buf);
	return norm_finish(xc, yc, y, rc);
}

struct ln_job {
	const char *x;
	char *y;
	const double *w, *b;
	int64_t len;
	double eps;
	int dbl;
};

static void ln_range(void *arg, int64_t b, int64_t e)
{
	const struct ln_job *j = arg;
	size_t esz = j->dbl ? 8 : 4;

	for (int64_t r = b; r < e; r++) {
		double mean, var, inv;
		int64_t off = r * j->len;

		stats(j->x + (size_t)off * esz, j->dbl, j->len, &mean, &var);
		inv = 1 / sqrt(var + j->eps);
		if (j->dbl) {
			const double *x = (const double *)j->x + off;
			double *y = (double *)j->y + off;

			for (int64_t i = 0; i < j->len; i++)
				y[i] = (x[i] - mean) * inv * j->w[i] + j->b[i];
		} else {
			const float *x = (const float *)j->x + off;
			float *y = (float *)j->y + off;

			for (int64_t i = 0; i < j->len; i++)
				y[i] = (float)(((double)x[i] - mean) * inv *
					       j->w[i] + j->b[i]);
		}
	}
}

int cpu_layer_norm(const struct gpu_tensor *x, int naxes,
		   const struct gpu_tensor *weight,
		   const struct gpu_tensor *bias, double eps,
		   struct gpu_tensor *y)
{
	struct gpu_tensor *xc, *yc;
	double *buf;
	int64_t len = 1, rows;
	int dbl, rc = -1;

	if (naxes < 0 || naxes > x->rank) {
		gpu_set_error("cpu layer_norm: %d axes of a rank-%d tensor",
			      naxes, x->rank);
		return -1;
	}
	if (norm_io(x, y, &xc, &yc, &dbl, "layer_norm"))
		return -1;
	for (int d = x->rank - naxes; d < x->rank; d++)
		len *= x->dims[d];
	rows = len ? gpu_numel(x) / len : 0;
	buf = malloc((size_t)(2 * len + 1) * sizeof(double));
	if (!buf) {
		gpu_set_error("cpu layer_norm: out of memory");
		return norm_finish(xc, yc, y, -1);
	}
	if (!param_vec(weight, len, 1, buf, "weight") &&
	    !param_vec(bias, len, 0, buf + len, "bias")) {
		struct ln_job j = { cpu_base(xc), cpu_base(yc), buf, buf + len,
				    len, eps, dbl };

		cpu_parallel_for(rows, 1 + 16384 / (len + 1), ln_range, &j);
		rc = 0;
	}
	free(buf);
	return norm_finish(xc, yc, y, rc);
}

/*
 * cpu_index.c - the CPU backend's indexing kernels: gather, index_select
 * (also embedding), scatter / scatter_add and topk / sort (stable: equal
 * values keep their order; NaN is the largest value, as torch).  Any dtype
 * the backend knows; indices int64 (another integer dtype is read as one).
 */
#include <stdlib.h>
#include <string.h>

#include "gpu.h"
#include "gpu_int.h"

static int norm_axis(int axis, int rank, const char *what)
{
	int r = rank ? rank : 1;

	if (axis < 0)
		axis += r;
	if (axis < 0 || axis >= r) {
		gpu_set_error("cpu %s: axis out of range", what);
		return -1;
	}
	return axis;
}

/* element offset (elements) of row-major index i over t's dims */
static int64_t elem_off(const struct gpu_tensor *t, int64_t i, int64_t *idx)
{
	int64_t off = 0;

	for (int d = t->rank - 1; d >= 0; d--) {
		idx[d] = i % t->dims[d];
		i /= t->dims[d];
		off += idx[d] * t->strides[d];
	}
	return off;
}

static int index_dtype_ok(const struct gpu_tensor *index, const char *what)
{
	if (!cpu_is_int(index->dtype) || index->dtype == IR_DTYPE_BOOL) {
		gpu_set_error("cpu %s: index dtype %s is not an integer", what,
			      ir_dtype_torch_name(index->dtype));
		return -1;
	}
	return 0;
}

static int known(enum ir_dtype dt)
{
	return cpu_is_float(dt) || cpu_is_int(dt);
}

/* --- gather -------------------------------------------------------------- */

struct gather_job {
	const struct gpu_tensor *x, *index;
	struct gpu_tensor *y;
	int axis;
	int bad;
};

static void gather_range(void *arg, int64_t b, int64_t e)
{
	struct gather_job *j = arg;
	const struct gpu_tensor *x = j->x, *ix = j->index;
	size_t esz = ir_dtype_size(x->dtype);
	size_t isz = ir_dtype_size(ix->dtype);
	int64_t idx[GPU_MAX_DIMS], n = x->rank ? x->dims[j->axis] : 1;

	for (int64_t i = b; i < e; i++) {
		int64_t io = elem_off(ix, i, idx), k, off = 0;

		k = cpu_ld_i(cpu_base(ix) + io * (int64_t)isz, ix->dtype);
		if (k < 0)
			k += n;
		if (k < 0 || k >= n) {
			j->bad = 1;
			return;
		}
		for (int d = 0; d < x->rank; d++)
			off += (d == j->axis ? k : idx[d]) * x->strides[d];
		memcpy(cpu_base(j->y) + (size_t)i * esz,
		       cpu_base(x) + off * (int64_t)esz, esz);
	}
}

int cpu_gather(const struct gpu_tensor *x, int axis,
	       const struct gpu_tensor *index, struct gpu_tensor *y)
{
	struct gather_job j = { x, index, y, 0, 0 };

	if ((axis = norm_axis(axis, x->rank, "gather")) < 0 ||
	    index_dtype_ok(index, "gather"))
		return -1;
	if (x->dtype != y->dtype || !known(x->dtype)) {
		gpu_set_error("cpu gather: dtype %s (y %s) not supported",
			      ir_dtype_torch_name(x->dtype),
			      ir_dtype_torch_name(y->dtype));
		return -1;
	}
	if (index->rank != x->rank || y->rank != x->rank ||
	    memcmp(index->dims, y->dims, (size_t)y->rank * sizeof(int64_t))) {
		gpu_set_error("cpu gather: index and y must have x's rank and "
			      "one shape");
		return -1;
	}
	for (int d = 0; d < x->rank; d++)
		if (d != axis && index->dims[d] > x->dims[d]) {
			gpu_set_error("cpu gather: index dim %d larger than "
				      "x's", d);
			return -1;
		}
	j.axis = axis;
	cpu_parallel_for(gpu_numel(y), 16384, gather_range, &j);
	if (j.bad) {
		gpu_set_error("cpu gather: index out of range");
		return -1;
	}
	return 0;
}

/* --- index_select ------------------------------------------------------------- */

struct isel_job {
	const struct gpu_tensor *x;
	struct gpu_tensor *y;
	const int64_t *k;     /* the normalised indices */
	int axis;
	int64_t nk, inner;
};

static void isel_range(void *arg, int64_t b, int64_t e)
{
	const struct isel_job *j = arg;
	const struct gpu_tensor *x = j->x;
	size_t esz = ir_dtype_size(x->dtype);
	int inner_contig = 1;
	int64_t s = 1;

	for (int d = x->rank - 1; d > j->axis; d--) {
		if (x->dims[d] != 1 && x->strides[d] != s)
			inner_contig = 0;
		s *= x->dims[d];
	}
	/* rows (outer, kk): inner elements each */
	for (int64_t r = b; r < e; r++) {
		int64_t outer = r / j->nk, kk = r % j->nk, off = 0, rest = outer;
		char *dst = cpu_base(j->y) + (size_t)(r * j->inner) * esz;

		for (int d = j->axis - 1; d >= 0; d--) {
			off += (rest % x->dims[d]) * x->strides[d];
			rest /= x->dims[d];
		}
		if (x->rank)
			off += j->k[kk] * x->strides[j->axis];
		if (inner_contig) {
			memcpy(dst, cpu_base(x) + off * (int64_t)esz,
			       (size_t)j->inner * esz);
			continue;
		}
		for (int64_t i = 0; i < j->inner; i++) {
			int64_t o2 = off, rest2 = i;

			for (int d = x->rank - 1; d > j->axis; d--) {
				o2 += (rest2 % x->dims[d]) * x->strides[d];
				rest2 /= x->dims[d];
			}
			memcpy(dst + (size_t)i * esz,
			       cpu_base(x) + o2 * (int64_t)esz, esz);
		}
	}
}

int cpu_index_select(const struct gpu_tensor *x, int axis,
		     const struct gpu_tensor *index, struct gpu_tensor *y)
{
	struct isel_job j;
	int64_t *k, nk, n, outer = 1, idx[GPU_MAX_DIMS];
	size_t isz = ir_dtype_size(index->dtype);

	if ((axis = norm_axis(axis, x->rank, "index_select")) < 0 ||
	    index_dtype_ok(index, "index_select"))
		return -1;
	if (x->dtype != y->dtype || !known(x->dtype)) {
		gpu_set_error("cpu index_select: dtype %s (y %s) not supported",
			      ir_dtype_torch_name(x->dtype),
			      ir_dtype_torch_name(y->dtype));
		return -1;
	}
	if (index->rank > 1) {
		gpu_set_error("cpu index_select: index must be 1-d");
		return -1;
	}
	nk = gpu_numel(index);
	n = x->rank ? x->dims[axis] : 1;
	if (y->rank != x->rank) {
		gpu_set_error("cpu index_select: y must have x's rank");
		return -1;
	}
	for (int d = 0; d < x->rank; d++)
		if (y->dims[d] != (d == axis ? nk : x->dims[d])) {
			gpu_set_error("cpu index_select: y's dims do not agree");
			return -1;
		}
	k = malloc((size_t)(nk ? nk : 1) * sizeof(int64_t));
	if (!k) {
		gpu_set_error("cpu index_select: out of memory");
		return -1;
	}
	for (int64_t i = 0; i < nk; i++) {
		int64_t v = cpu_ld_i(cpu_base(index) + elem_off(index, i, idx) *
				     (int64_t)isz, index->dtype);

		if (v < 0)
			v += n;
		if (v < 0 || v >= n) {
			free(k);
			gpu_set_error("cpu index_select: index %lld out of "
				      "range for size %lld",
				      (long long)(v < 0 ? v - n : v),
				      (long long)n);
			return -1;
		}
		k[i] = v;
	}
	j.x = x;
	j.y = y;
	j.k = k;
	j.axis = axis;
	j.nk = nk;
	j.inner = 1;
	for (int d = axis + 1; d < x->rank; d++)
		j.inner *= x->dims[d];
	for (int d = 0; d < axis; d++)
		outer *= x->dims[d];
	if (j.inner > 0)
		cpu_parallel_for(outer * nk, 1 + 16384 / (j.inner + 1),
				 isel_range, &j);
	free(k);
	return 0;
}

/* --- scatter --------------------------------------------------------------- */

int cpu_scatter(const struct gpu_tensor *x, int axis,
		const struct gpu_tensor *index, const struct gpu_tensor *src,
		int op, struct gpu_tensor *y)
{
	int64_t idx[GPU_MAX_DIMS], sidx[GPU_MAX_DIMS], n, total;
	size_t esz = ir_dtype_size(y->dtype), isz = ir_dtype_size(index->dtype);
	size_t ssz = ir_dtype_size(src->dtype);
	int ints = !cpu_is_float(y->dtype);

	if ((axis = norm_axis(axis, x->rank, "scatter")) < 0 ||
	    index_dtype_ok(index, "scatter"))
		return -1;
	if (x->dtype != y->dtype || !known(y->dtype) || !known(src->dtype)) {
		gpu_set_error("cpu scatter: dtype %s not supported",
			      ir_dtype_torch_name(y->dtype));
		return -1;
	}
	if (index->rank != x->rank || src->rank != x->rank) {
		gpu_set_error("cpu scatter: index and src must have x's rank");
		return -1;
	}
	for (int d = 0; d < x->rank; d++)
		if (index->dims[d] > src->dims[d] ||
		    (d != axis && index->dims[d] > x->dims[d])) {
			gpu_set_error("cpu scatter: index dim %d too large", d);
			return -1;
		}
	if (cpu_copy(x, y))
		return -1;
	n = x->rank ? x->dims[axis] : 1;
	total = gpu_numel(index);
	for (int64_t i = 0; i < total; i++) {
		int64_t io = elem_off(index, i, idx), k, so = 0, yo = 0;
		const char *sp;
		char *yp;

		k = cpu_ld_i(cpu_base(index) + io * (int64_t)isz, index->dtype);
		if (k < 0)
			k += n;
		if (k < 0 || k >= n) {
			gpu_set_error("cpu scatter: index out of range");
			return -1;
		}
		/* y contiguous */
		for (int d = 0; d < x->rank; d++) {
			int64_t yi = d == axis ? k : idx[d];

			sidx[d] = idx[d];
			so += sidx[d] * src->strides[d];
			yo = yo * y->dims[d] + yi;
		}
		sp = cpu_base(src) + so * (int64_t)ssz;
		yp = cpu_base(y) + yo * (int64_t)esz;
		if (op == 1) {
			if (ints)
				cpu_st_i(yp, y->dtype, (int64_t)((uint64_t)cpu_ld_i(yp, y->dtype) +
						      (uint64_t)cpu_ld_i(sp, src->dtype)));
			else
				cpu_st_d(yp, y->dtype, cpu_ld_d(yp, y->dtype) +
					 cpu_ld_d(sp, src->dtype));
		} else if (src->dtype == y->dtype) {
			memcpy(yp, sp, esz);
		} else if (ints && !cpu_is_float(src->dtype)) {
			cpu_st_i(yp, y->dtype, cpu_ld_i(sp, src->dtype));
		} else {
			cpu_st_d(yp, y->dtype, cpu_ld_d(sp, src->dtype));
		}
	}
	return 0;
}

/* --- topk / sort ------------------------------------------------------------ */

struct kv {
	double v;     /* floats */
	int64_t iv;   /* integers */
	int64_t i;
};

/* descending (largest first), NaN first, ties by index */
static int cmp_desc_d(const void *pa, const void *pb)
{
	const struct kv *a = pa, *b = pb;
	int an = isnan(a->v), bn = isnan(b->v);

	if (an != bn)
		return an ? -1 : 1;
	if (!an && a->v != b->v)
		return a->v > b->v ? -1 : 1;
	return (a->i > b->i) - (a->i < b->i);
}

/* ascending, NaN last, ties by index */
static int cmp_asc_d(const void *pa, const void *pb)
{
	const struct kv *a = pa, *b = pb;
	int an = isnan(a->v), bn = isnan(b->v);

	if (an != bn)
		return an ? 1 : -1;
	if (!an && a->v != b->v)
		return a->v < b->v ? -1 : 1;
	return (a->i > b->i) - (a->i < b->i);
}

static int cmp_desc_i(const void *pa, const void *pb)
{
	const struct kv *a = pa, *b = pb;

	if (a->iv != b->iv)
		return a->iv > b->iv ? -1 : 1;
	return (a->i > b->i) - (a->i < b->i);
}

static int cmp_asc_i(const void *pa, const void *pb)
{
	const struct kv *a = pa, *b = pb;

	if (a->iv != b->iv)
		return a->iv < b->iv ? -1 : 1;
	return (a->i > b->i) - (a->i < b->i);
}

struct topk_job {
	const struct gpu_tensor *x;
	struct gpu_tensor *v, *ix;
	int axis, largest, ints;
	int64_t k, len, inner;
	int oom;
};

static void topk_range(void *arg, int64_t b, int64_t e)
{
	struct topk_job *j = arg;
	const struct gpu_tensor *x = j->x;
	size_t xs = ir_dtype_size(x->dtype), vs = ir_dtype_size(j->v->dtype);
	struct kv *buf = malloc((size_t)(j->len ? j->len : 1) * sizeof(*buf));
	int64_t sx = x->rank ? x->strides[j->axis] : 0;
	int (*cmp)(const void *, const void *);

	if (!buf) {
		j->oom = 1;
		return;
	}
	if (j->ints)
		cmp = j->largest ? cmp_desc_i : cmp_asc_i;
	else
		cmp = j->largest ? cmp_desc_d : cmp_asc_d;
	for (int64_t l = b; l < e; l++) {
		int64_t rest = l, off = 0, o = l / j->inner, in = l % j->inner;
		char *vp, *ip;

		for (int d = x->rank - 1; d >= 0; d--) {
			if (d == j->axis)
				continue;
			off += (rest % x->dims[d]) * x->strides[d];
			rest /= x->dims[d];
		}
		for (int64_t i = 0; i < j->len; i++) {
			const char *p = cpu_base(x) + (off + i * sx) * (int64_t)xs;

			buf[i].i = i;
			if (j->ints)
				buf[i].iv = cpu_ld_i(p, x->dtype);
			else
				buf[i].v = cpu_ld_d(p, x->dtype);
		}
		qsort(buf, (size_t)j->len, sizeof(*buf), cmp);
		vp = cpu_base(j->v) + (size_t)(o * j->k * j->inner + in) * vs;
		ip = j->ix ? cpu_base(j->ix) +
			     (size_t)(o * j->k * j->inner + in) * 8 : NULL;
		for (int64_t q = 0; q < j->k; q++) {
			const char *p = cpu_base(x) + (off + buf[q].i * sx) *
					(int64_t)xs;

			memcpy(vp + (size_t)(q * j->inner) * vs, p, vs);
			if (ip)
				((int64_t *)ip)[q * j->inner] = buf[q].i;
		}
	}
	free(buf);
}

int cpu_topk(const struct gpu_tensor *x, int axis, int64_t k, int largest,
	     int sorted, struct gpu_tensor *values,
	     struct gpu_tensor *indices)
{
	struct topk_job j;
	int64_t lines;

	memset(&j, 0, sizeof(j));
	if ((axis = norm_axis(axis, x->rank, "topk")) < 0)
		return -1;
	if (x->dtype != values->dtype || !known(x->dtype) ||
	    (indices && indices->dtype != IR_DTYPE_INT64)) {
		gpu_set_error("cpu topk: dtype %s not supported (values as x, "
			      "indices int64)", ir_dtype_torch_name(x->dtype));
		return -1;
	}
	j.len = x->rank ? x->dims[axis] : 1;
	if (k < 0 || k > j.len) {
		gpu_set_error("cpu topk: k %lld out of range for size %lld",
			      (long long)k, (long long)j.len);
		return -1;
	}
	if (values->rank != x->rank || (indices && indices->rank != x->rank)) {
		gpu_set_error("cpu topk: outputs must have x's rank");
		return -1;
	}
	for (int d = 0; d < x->rank; d++) {
		int64_t want = d == axis ? k : x->dims[d];

		if (values->dims[d] != want ||
		    (indices && indices->dims[d] != want)) {
			gpu_set_error("cpu topk: output dims do not agree");
			return -1;
		}
	}
	j.x = x;
	j.v = values;
	j.ix = indices;
	j.axis = axis;
	j.largest = largest;
	j.k = k;
	j.ints = !cpu_is_float(x->dtype);
	j.inner = 1;
	for (int d = axis + 1; d < x->rank; d++)
		j.inner *= x->dims[d];
	lines = j.len ? gpu_numel(x) / j.len : 0;
	if (k == 0 || lines == 0)
		return 0;
	cpu_parallel_for(lines, 1 + 4096 / (j.len + 1), topk_range, &j);
	if (j.oom) {
		gpu_set_error("cpu topk: out of memory");
		return -1;
	}
	return 0;
}

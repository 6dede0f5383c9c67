/*
 * cpu_blas.c - the CPU backend's matrix kernels: batched matmul through
 * OpenBLAS (float32, float64; float16/bfloat16 through float32; integers
 * by a plain loop), and convolution over 1 to 3 spatial dims as im2col +
 * gemm per group (1x1 stride-1 convs straight on the input, depthwise
 * convs by direct loops, transposed convs as gemm + col2im).
 */
#include <stdlib.h>
#include <string.h>

#include <cblas.h>

#include "gpu.h"
#include "gpu_int.h"

/* --- matmul -------------------------------------------------------------- */

/* How BLAS reads a rows x cols matrix with element strides (srow, scol):
 * 0 with trans and ld set, or -1 when it needs a copy. */
static int blas_layout(int64_t rows, int64_t cols, int64_t srow, int64_t scol,
		       int *trans, int64_t *ld)
{
	int64_t mc = cols > 1 ? cols : 1, mr = rows > 1 ? rows : 1;

	if ((scol == 1 || cols == 1) && (rows == 1 || srow >= mc)) {
		*trans = 0;
		*ld = rows == 1 ? mc : srow;
		return 0;
	}
	if ((srow == 1 || rows == 1) && (cols == 1 || scol >= mr)) {
		*trans = 1;
		*ld = cols == 1 ? mr : scol;
		return 0;
	}
	return -1;
}

/* One BLAS call in the calling thread (OpenBLAS runs single-threaded:
 * gpu_set_threads; the threads are ours, see gemm()). */
static void gemm1(enum ir_dtype dt, int ta, int tb, int64_t m, int64_t n,
		  int64_t k, double alpha, const void *a, int64_t lda,
		  const void *b, int64_t ldb, double beta, void *c,
		  int64_t ldc)
{
	if (dt == IR_DTYPE_FLOAT)
		cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans,
			    tb ? CblasTrans : CblasNoTrans, (int)m, (int)n,
			    (int)k, (float)alpha, a, (int)lda, b, (int)ldb,
			    (float)beta, c, (int)ldc);
	else
		cblas_dgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans,
			    tb ? CblasTrans : CblasNoTrans, (int)m, (int)n,
			    (int)k, alpha, a, (int)lda, b, (int)ldb, beta, c,
			    (int)ldc);
}

struct gemm_job {
	enum ir_dtype dt;
	int ta, tb, by_cols;
	int64_t m, n, k, lda, ldb, ldc, chunk;
	double alpha, beta;
	const char *a, *b;
	char *c;
};

/* Chunks [b, e) of C's columns (by_cols) or rows. */
static void gemm_range(void *arg, int64_t b, int64_t e)
{
	const struct gemm_job *j = arg;
	size_t esz = ir_dtype_size(j->dt);
	int64_t lim = j->by_cols ? j->n : j->m;
	int64_t i0 = b * j->chunk, i1 = e * j->chunk < lim ? e * j->chunk : lim;

	if (i1 <= i0)
		return;
	if (j->by_cols)
		gemm1(j->dt, j->ta, j->tb, j->m, i1 - i0, j->k, j->alpha,
		      j->a, j->lda,
		      j->b + (size_t)(j->tb ? i0 * j->ldb : i0) * esz, j->ldb,
		      j->beta, j->c + (size_t)i0 * esz, j->ldc);
	else
		gemm1(j->dt, j->ta, j->tb, i1 - i0, j->n, j->k, j->alpha,
		      j->a + (size_t)(j->ta ? i0 : i0 * j->lda) * esz, j->lda,
		      j->b, j->ldb, j->beta,
		      j->c + (size_t)(i0 * j->ldc) * esz, j->ldc);
}

/* C = alpha op(A) op(B) + beta C on up to gpu_threads() threads of the
 * pool: C split into column (or, when it is taller than wide, row) slabs,
 * one single-threaded BLAS call per slab.  Small products, and calls from
 * inside a parallel region, run in the calling thread. */
static void gemm(enum ir_dtype dt, int ta, int tb, int64_t m, int64_t n,
		 int64_t k, double alpha, const void *a, int64_t lda,
		 const void *b, int64_t ldb, double beta, void *c,
		 int64_t ldc)
{
	int t = gpu_threads();
	struct gemm_job j = { dt, ta, tb, n >= m, m, n, k, lda, ldb, ldc, 0,
			      alpha, beta, a, b, c };
	int64_t span = j.by_cols ? n : m;

	if (t <= 1 || m * n * k < ((int64_t)1 << 18) || span < 32) {
		gemm1(dt, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c,
		      ldc);
		return;
	}
	j.chunk = (span + t - 1) / t;
	j.chunk = (j.chunk + 15) / 16 * 16;
	cpu_parallel_for((span + j.chunk - 1) / j.chunk, 1, gemm_range, &j);
}

/* Integer matmul, int64 operands (strided), y contiguous int64. */
static void imatmul(int64_t m, int64_t n, int64_t k, const int64_t *a,
		    int64_t sam, int64_t sak, const int64_t *b, int64_t sbk,
		    int64_t sbn, double alpha, double beta, int64_t *y)
{
	int64_t al = (int64_t)alpha, be = (int64_t)beta;

	for (int64_t i = 0; i < m; i++)
		for (int64_t j = 0; j < n; j++) {
			uint64_t s = 0;

			for (int64_t q = 0; q < k; q++)
				s += (uint64_t)a[i * sam + q * sak] *
				     (uint64_t)b[q * sbk + j * sbn];
			y[i * n + j] = (int64_t)(s * (uint64_t)al +
						 (uint64_t)y[i * n + j] *
						 (uint64_t)be);
		}
}

static int matmul_native(const struct gpu_tensor *a,
			 const struct gpu_tensor *b, int trans_a, int trans_b,
			 double alpha, double beta, struct gpu_tensor *y)
{
	enum ir_dtype dt = y->dtype;
	int r = y->rank, nb = r - 2;
	int64_t m = y->dims[r - 2], n = y->dims[r - 1];
	int64_t k = trans_a ? a->dims[r - 2] : a->dims[r - 1];
	/* element strides of the logical A (m, k) and B (k, n) */
	int64_t sam = trans_a ? a->strides[r - 1] : a->strides[r - 2];
	int64_t sak = trans_a ? a->strides[r - 2] : a->strides[r - 1];
	int64_t sbk = trans_b ? b->strides[r - 1] : b->strides[r - 2];
	int64_t sbn = trans_b ? b->strides[r - 2] : b->strides[r - 1];
	size_t esz = ir_dtype_size(dt);
	int64_t batch = 1, idx[GPU_MAX_DIMS] = { 0 };
	int tA = 0, tB = 0;
	int64_t lda = 0, ldb = 0;
	char *pa = cpu_base(a), *pb = cpu_base(b), *py = cpu_base(y);

	for (int d = 0; d < nb; d++)
		batch *= y->dims[d];
	if (m == 0 || n == 0 || batch == 0)
		return 0;
	if (dt != IR_DTYPE_INT64) {
		if (blas_layout(m, k, sam, sak, &tA, &lda) ||
		    blas_layout(k, n, sbk, sbn, &tB, &ldb)) {
			gpu_set_error("cpu matmul: operand layout");
			return -1;
		}
		if (k == 0) {
			/* y = beta * y: gemm with k = 0 is not portable */
			if (beta == 0)
				memset(py, 0, (size_t)(batch * m * n) * esz);
			else
				for (int64_t i = 0; i < batch * m * n; i++)
					cpu_st_d(py + (size_t)i * esz, dt, beta *
						 cpu_ld_d(py + (size_t)i * esz, dt));
			return 0;
		}
	}
	/* one gemm for the whole batch when B is shared and A's rows are
	 * evenly spaced across the batch (linear layers on [B, T, K]) */
	if (dt != IR_DTYPE_INT64 && nb > 0 && !tA && m > 0) {
		int ok = 1;
		int64_t span = m * lda;

		for (int d = nb - 1; d >= 0 && ok; d--) {
			ok = b->strides[d] == 0 &&
			     (y->dims[d] == 1 || a->strides[d] == span);
			span *= y->dims[d];
		}
		if (ok) {
			gemm(dt, 0, tB, batch * m, n, k, alpha, pa, lda, pb,
			     ldb, beta, py, n);
			return 0;
		}
	}
	for (int64_t bi = 0; bi < batch; bi++) {
		int64_t oa = 0, ob = 0;

		for (int d = 0; d < nb; d++) {
			oa += idx[d] * a->strides[d];
			ob += idx[d] * b->strides[d];
		}
		if (dt == IR_DTYPE_INT64)
			imatmul(m, n, k, (const int64_t *)pa + oa, sam, sak,
				(const int64_t *)pb + ob, sbk, sbn, alpha,
				beta, (int64_t *)py + bi * m * n);
		else
			gemm(dt, tA, tB, m, n, k, alpha,
			     pa + (size_t)oa * esz, lda,
			     pb + (size_t)ob * esz, ldb, beta,
			     py + (size_t)(bi * m * n) * esz, n);
		for (int d = nb - 1; d >= 0; d--) {
			if (++idx[d] < y->dims[d])
				break;
			idx[d] = 0;
		}
	}
	return 0;
}

/* A contiguous copy of t in dtype dt when its last two dims do not suit
 * BLAS (or its dtype is not dt); else NULL with *out = t. */
static int prepare(const struct gpu_tensor *t, enum ir_dtype dt,
		   const struct gpu_tensor **out, struct gpu_tensor **tmp)
{
	int r = t->rank, tr;
	int64_t ld;

	*tmp = NULL;
	*out = t;
	if (t->dtype == dt && (dt == IR_DTYPE_INT64 ||
	    !blas_layout(t->dims[r - 2], t->dims[r - 1], t->strides[r - 2],
			 t->strides[r - 1], &tr, &ld)))
		return 0;
	*tmp = cpu_compact_as(t, dt);
	if (!*tmp)
		return -1;
	/* compact keeps stride-0 dims: fine for the batch dims, but the
	 * matrix dims must be real for BLAS */
	if (t->strides[r - 2] == 0 || t->strides[r - 1] == 0) {
		struct gpu_tensor *full = gpu_empty(t->storage->be, dt, r,
						    t->dims);

		if (!full || cpu_copy(*tmp, full)) {
			gpu_free(full);
			gpu_free(*tmp);
			*tmp = NULL;
			return -1;
		}
		gpu_free(*tmp);
		*tmp = full;
	}
	*out = *tmp;
	return 0;
}

int cpu_matmul(const struct gpu_tensor *a, const struct gpu_tensor *b,
	       const struct gpu_tensor *c, int trans_a, int trans_b,
	       double alpha, double beta, struct gpu_tensor *y)
{
	enum ir_dtype ct;
	const struct gpu_tensor *ua, *ub;
	struct gpu_tensor *ta = NULL, *tb = NULL, *yt = NULL;
	int r = y->rank, rc = -1;

	if (r < 2 || a->rank != r || b->rank != r) {
		gpu_set_error("cpu matmul: operands must have y's rank (>= 2)");
		return -1;
	}
	if (y->dtype == IR_DTYPE_DOUBLE)
		ct = IR_DTYPE_DOUBLE;
	else if (cpu_is_float(y->dtype))
		ct = IR_DTYPE_FLOAT;
	else if (cpu_is_int(y->dtype))
		ct = IR_DTYPE_INT64;
	else
		return cpu_check_dtype("matmul", y->dtype, 1);
	{
		int64_t m = y->dims[r - 2], n = y->dims[r - 1];
		int64_t am = trans_a ? a->dims[r - 1] : a->dims[r - 2];
		int64_t ak = trans_a ? a->dims[r - 2] : a->dims[r - 1];
		int64_t bk = trans_b ? b->dims[r - 1] : b->dims[r - 2];
		int64_t bn = trans_b ? b->dims[r - 2] : b->dims[r - 1];

		if (am != m || bn != n || ak != bk) {
			gpu_set_error("cpu matmul: shapes do not agree");
			return -1;
		}
		for (int d = 0; d < r - 2; d++)
			if (a->dims[d] != y->dims[d] ||
			    b->dims[d] != y->dims[d]) {
				gpu_set_error("cpu matmul: batch dims differ");
				return -1;
			}
	}
	if (prepare(a, ct, &ua, &ta) || prepare(b, ct, &ub, &tb))
		goto out;
	if (y->dtype != ct) {
		yt = gpu_empty(y->storage->be, ct, r, y->dims);
		if (!yt)
			goto out;
	}
	if (c && beta != 0) {
		if (cpu_copy(c, yt ? yt : y))
			goto out;
	} else {
		beta = 0;
		if (ct == IR_DTYPE_INT64)
			memset(cpu_base(yt ? yt : y), 0,
			       (size_t)gpu_numel(y) * sizeof(int64_t));
	}
	rc = matmul_native(ua, ub, trans_a, trans_b, alpha, beta,
			   yt ? yt : y);
	if (!rc && yt)
		rc = cpu_copy(yt, y);
out:
	gpu_free(ta);
	gpu_free(tb);
	gpu_free(yt);
	return rc;
}

/* --- convolution ---------------------------------------------------------- */

/* Bytes of im2col columns per block (about half an L2 cache). */
#define CONV_COL_BYTES ((int64_t)512 << 10)

/* Geometry with 3 spatial dims (missing ones are 1). */
struct conv_geo {
	int64_t n, c, o, g, cg, og;
	int64_t in[3], out[3], k[3], s[3], p[3], d[3];
	int64_t pin, pout, kk; /* products */
};

struct im2col_job {
	const struct conv_geo *g;
	const char *x;   /* this image's group: [cg, in...] */
	char *col;       /* [cg * kk, p1 - p0] */
	int64_t p0, p1;  /* the block of output positions */
	int dbl;
};

/* First output index o in [0, out) with 0 <= o * s + i0 < in, and one past
 * the last: the part of an output row that reads the input row. */
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

/* Row `row` of col (one input channel and kernel offset) over the output
 * positions [p0, p1), segment by segment of output rows: zeros where the
 * kernel reads padding, a copy (stride 1) or a strided gather else. */
#define IM2COL_BODY(T) \
	for (int64_t row = b; row < e; row++) { \
		int64_t c = row / g->kk, kr = row % g->kk; \
		int64_t kw = kr % g->k[2], kh = (kr / g->k[2]) % g->k[1]; \
		int64_t kd = kr / (g->k[2] * g->k[1]); \
		const T *xc = (const T *)j->x + c * g->pin; \
		T *dst = (T *)j->col + row * (j->p1 - j->p0); \
		int64_t iw0 = -g->p[2] + kw * g->d[2], sw = g->s[2]; \
		int64_t lo, hi, q = j->p0; \
		valid_range(iw0, sw, g->in[2], g->out[2], &lo, &hi); \
		while (q < j->p1) { \
			int64_t ow = q % g->out[2], r = q / g->out[2]; \
			int64_t oh = r % g->out[1], od = r / g->out[1]; \
			int64_t len = g->out[2] - ow, a0, a1; \
			int64_t id = od * g->s[0] - g->p[0] + kd * g->d[0]; \
			int64_t ih = oh * g->s[1] - g->p[1] + kh * g->d[1]; \
			if (len > j->p1 - q) \
				len = j->p1 - q; \
			if (id < 0 || id >= g->in[0] || ih < 0 || \
			    ih >= g->in[1]) { \
				memset(dst, 0, (size_t)len * sizeof(T)); \
			} else { \
				const T *xr = xc + (id * g->in[1] + ih) * g->in[2]; \
				a0 = lo > ow ? lo : ow; \
				a1 = hi < ow + len ? hi : ow + len; \
				if (a1 < a0) \
					a1 = a0; \
				for (int64_t o = ow; o < a0 && o < ow + len; o++) \
					dst[o - ow] = 0; \
				if (sw == 1) { \
					memcpy(dst + (a0 - ow), xr + iw0 + a0, \
					       (size_t)(a1 - a0) * sizeof(T)); \
				} else { \
					const T *xs = xr + iw0; \
					T *ds = dst - ow; \
					for (int64_t o = a0; o < a1; o++) \
						ds[o] = xs[o * sw]; \
				} \
				for (int64_t o = a1 > ow ? a1 : ow; o < ow + len; o++) \
					dst[o - ow] = 0; \
			} \
			dst += len; \
			q += len; \
		} \
	}

static void im2col_range(void *arg, int64_t b, int64_t e)
{
	const struct im2col_job *j = arg;
	const struct conv_geo *g = j->g;

	if (j->dbl) {
		IM2COL_BODY(double)
	} else {
		IM2COL_BODY(float)
	}
}

struct col2im_job {
	const struct conv_geo *g;
	const char *col; /* [og * kk, pin] */
	char *y;         /* this image's group: [og, out...] */
	int dbl;
};

/* transposed: output position = in * stride - pad + k * dilation */
#define COL2IM_BODY(T) \
	for (int64_t o = b; o < e; o++) { \
		T *yo = (T *)j->y + o * g->pout; \
		for (int64_t kr = 0; kr < g->kk; kr++) { \
			int64_t kw = kr % g->k[2], kh = (kr / g->k[2]) % g->k[1]; \
			int64_t kd = kr / (g->k[2] * g->k[1]); \
			const T *src = (const T *)j->col + (o * g->kk + kr) * g->pin; \
			for (int64_t id = 0; id < g->in[0]; id++) { \
				int64_t od = id * g->s[0] - g->p[0] + kd * g->d[0]; \
				if (od < 0 || od >= g->out[0]) \
					continue; \
				for (int64_t ih = 0; ih < g->in[1]; ih++) { \
					int64_t oh = ih * g->s[1] - g->p[1] + kh * g->d[1]; \
					const T *sr = src + (id * g->in[1] + ih) * g->in[2]; \
					T *yr; \
					if (oh < 0 || oh >= g->out[1]) \
						continue; \
					yr = yo + (od * g->out[1] + oh) * g->out[2]; \
					for (int64_t iw = 0; iw < g->in[2]; iw++) { \
						int64_t ow = iw * g->s[2] - g->p[2] + kw * g->d[2]; \
						if (ow >= 0 && ow < g->out[2]) \
							yr[ow] += sr[iw]; \
					} \
				} \
			} \
		} \
	}

static void col2im_range(void *arg, int64_t b, int64_t e)
{
	const struct col2im_job *j = arg;
	const struct conv_geo *g = j->g;

	if (j->dbl) {
		COL2IM_BODY(double)
	} else {
		COL2IM_BODY(float)
	}
}

/* Depthwise (one input and one output channel per group), direct. */
struct dw_job {
	const struct conv_geo *g;
	const char *x, *w, *bias;
	char *y;
	int dbl;
};

#define DW_BODY(T) \
	for (int64_t pl = b; pl < e; pl++) { \
		int64_t ch = pl % g->o; \
		const T *xc = (const T *)j->x + pl * g->pin; \
		const T *wc = (const T *)j->w + ch * g->kk; \
		T *yc = (T *)j->y + pl * g->pout; \
		T b0 = j->bias ? ((const T *)j->bias)[ch] : 0; \
		for (int64_t od = 0; od < g->out[0]; od++) \
		for (int64_t oh = 0; oh < g->out[1]; oh++) \
		for (int64_t ow = 0; ow < g->out[2]; ow++) { \
			T acc = b0; \
			for (int64_t kd = 0; kd < g->k[0]; kd++) { \
				int64_t id = od * g->s[0] - g->p[0] + kd * g->d[0]; \
				if (id < 0 || id >= g->in[0]) \
					continue; \
				for (int64_t kh = 0; kh < g->k[1]; kh++) { \
					int64_t ih = oh * g->s[1] - g->p[1] + kh * g->d[1]; \
					const T *xr, *wr; \
					if (ih < 0 || ih >= g->in[1]) \
						continue; \
					xr = xc + (id * g->in[1] + ih) * g->in[2]; \
					wr = wc + (kd * g->k[1] + kh) * g->k[2]; \
					for (int64_t kw = 0; kw < g->k[2]; kw++) { \
						int64_t iw = ow * g->s[2] - g->p[2] + kw * g->d[2]; \
						if (iw >= 0 && iw < g->in[2]) \
							acc += xr[iw] * wr[kw]; \
					} \
				} \
			} \
			yc[(od * g->out[1] + oh) * g->out[2] + ow] = acc; \
		} \
	}

static void dw_range(void *arg, int64_t b, int64_t e)
{
	const struct dw_job *j = arg;
	const struct conv_geo *g = j->g;

	if (j->dbl) {
		DW_BODY(double)
	} else {
		DW_BODY(float)
	}
}

/* y[n] planes = bias (or 0) */
static void fill_bias(const struct conv_geo *g, const char *bias, char *y,
		      int64_t planes_o, int64_t plane, int dbl)
{
	for (int64_t i = 0; i < g->n; i++)
		for (int64_t o = 0; o < planes_o; o++) {
			int64_t base = (i * planes_o + o) * plane;

			if (dbl) {
				double v = bias ? ((const double *)bias)[o] : 0;

				for (int64_t q = 0; q < plane; q++)
					((double *)y)[base + q] = v;
			} else {
				float v = bias ? ((const float *)bias)[o] : 0;

				for (int64_t q = 0; q < plane; q++)
					((float *)y)[base + q] = v;
			}
		}
}

/* Blocks [b, e) of output positions of one image's group, each as
 * im2col into a column buffer of this call's own + one single-threaded
 * gemm (the blocks are spread over the pool's threads). */
struct conv_blocks_job {
	const struct conv_geo *g;
	enum ir_dtype dt;
	const char *x, *w;
	char *y;
	int64_t blk;
	int bias, dbl;
	int failed;
};

static void conv_blocks_range(void *arg, int64_t b, int64_t e)
{
	struct conv_blocks_job *cj = arg;
	const struct conv_geo *g = cj->g;
	size_t esz = ir_dtype_size(cj->dt);
	int64_t rows = g->cg * g->kk;
	char *col = cpu_mem_alloc((size_t)(rows * cj->blk) * esz);

	if (!col) {
		cj->failed = 1;
		return;
	}
	for (int64_t bi = b; bi < e; bi++) {
		int64_t p0 = bi * cj->blk;
		int64_t p1 = p0 + cj->blk < g->pout ? p0 + cj->blk : g->pout;
		struct im2col_job j = { g, cj->x, col, p0, p1, cj->dbl };

		im2col_range(&j, 0, rows);
		gemm1(cj->dt, 0, 0, g->og, p1 - p0, rows, 1.0, cj->w, rows,
		      col, p1 - p0, cj->bias ? 1.0 : 0.0,
		      cj->y + (size_t)p0 * esz, g->pout);
	}
	cpu_mem_release(col);
}

static int conv_native(const struct gpu_conv *p, const struct gpu_tensor *x,
		       const struct gpu_tensor *w,
		       const struct gpu_tensor *bias, struct gpu_tensor *y)
{
	struct conv_geo g;
	int ns = p->nspatial, dbl = y->dtype == IR_DTYPE_DOUBLE;
	size_t esz = ir_dtype_size(y->dtype);
	const char *px = cpu_base(x), *pw = cpu_base(w);
	const char *pb = bias ? cpu_base(bias) : NULL;
	char *py = cpu_base(y), *col = NULL;
	int pointwise;
	int64_t blk = 0, nblk = 0;
	int nthr = gpu_threads(), par_blocks = 0;

	memset(&g, 0, sizeof(g));
	g.n = x->dims[0];
	g.c = x->dims[1];
	g.o = y->dims[1];
	g.g = p->groups;
	g.cg = g.c / g.g;
	g.og = g.o / g.g;
	g.pin = g.pout = g.kk = 1;
	for (int i = 0; i < 3; i++) {
		int s = i - (3 - ns); /* index into the spatial dims */

		if (s < 0) {
			g.in[i] = g.out[i] = g.k[i] = g.s[i] = g.d[i] = 1;
			g.p[i] = 0;
		} else {
			g.in[i] = x->dims[2 + s];
			g.out[i] = y->dims[2 + s];
			g.k[i] = w->dims[2 + s];
			g.s[i] = p->stride[s];
			g.p[i] = p->pad[s];
			g.d[i] = p->dilation[s];
		}
		g.pin *= g.in[i];
		g.pout *= g.out[i];
		g.kk *= g.k[i];
	}
	if (!p->transposed) {
		pointwise = g.kk == 1;
		for (int i = 0; i < 3; i++)
			if (g.s[i] != 1 || g.p[i] != 0)
				pointwise = 0;
		if (g.cg == 1 && g.og == 1 && g.g > 1) {
			struct dw_job j = { &g, px, pw, pb, py, dbl };

			cpu_parallel_for(g.n * g.o, 1, dw_range, &j);
			return 0;
		}
		if (!pointwise) {
			/* output positions per block: the block's columns of
			 * col stay in cache between im2col and the gemm */
			int64_t rows = g.cg * g.kk;

			blk = g.pout;
			if (rows * g.pout * (int64_t)esz > CONV_COL_BYTES) {
				blk = CONV_COL_BYTES / (rows * (int64_t)esz);
				blk = blk < 64 ? 64 : (blk + 15) / 16 * 16;
				if (blk > g.pout)
					blk = g.pout;
			}
			nblk = (g.pout + blk - 1) / blk;
			par_blocks = nblk >= 2 * nthr ||
				     (nthr > 1 && nblk % nthr == 0);
			/* whole blocks per thread: each has its own buffer */
			if (!par_blocks)
				col = cpu_mem_alloc((size_t)(rows * blk) * esz);
			if (!par_blocks && !col) {
				gpu_set_error("cpu conv: out of memory");
				return -1;
			}
		}
		if (pb)
			fill_bias(&g, pb, py, g.o, g.pout, dbl);
		for (int64_t i = 0; i < g.n; i++)
			for (int64_t gi = 0; gi < g.g; gi++) {
				const char *xg = px + (size_t)((i * g.c + gi * g.cg) *
							      g.pin) * esz;
				char *yg = py + (size_t)((i * g.o + gi * g.og) *
							g.pout) * esz;
				const char *wg = pw + (size_t)(gi * g.og * g.cg *
							      g.kk) * esz;

				if (pointwise) {
					gemm(y->dtype, 0, 0, g.og, g.pout, g.cg,
					     1.0, wg, g.cg, xg, g.pout,
					     pb ? 1.0 : 0.0, yg, g.pout);
					continue;
				}
				if (par_blocks) {
					struct conv_blocks_job cj = {
						&g, y->dtype, xg, wg, yg, blk,
						pb != NULL, dbl, 0 };

					cpu_parallel_for(nblk, 1, conv_blocks_range,
							 &cj);
					if (cj.failed) {
						cpu_mem_release(col);
						gpu_set_error("cpu conv: out of memory");
						return -1;
					}
					continue;
				}
				for (int64_t p0 = 0; p0 < g.pout; p0 += blk) {
					int64_t p1 = p0 + blk < g.pout ?
						     p0 + blk : g.pout;
					struct im2col_job j = { &g, xg, col, p0,
								p1, dbl };

					cpu_parallel_for(g.cg * g.kk,
							 1 + 65536 / (p1 - p0),
							 im2col_range, &j);
					gemm(y->dtype, 0, 0, g.og, p1 - p0,
					     g.cg * g.kk, 1.0, wg, g.cg * g.kk,
					     col, p1 - p0, pb ? 1.0 : 0.0,
					     yg + (size_t)p0 * esz, g.pout);
				}
			}
		cpu_mem_release(col);
		return 0;
	}
	/* transposed: x [N, C, in], w [C, og, k], y [N, og * g, out] */
	col = cpu_mem_alloc((size_t)(g.og * g.kk * g.pin) * esz);
	if (!col) {
		gpu_set_error("cpu conv: out of memory");
		return -1;
	}
	fill_bias(&g, pb, py, g.o, g.pout, dbl);
	for (int64_t i = 0; i < g.n; i++)
		for (int64_t gi = 0; gi < g.g; gi++) {
			const char *xg = px + (size_t)((i * g.c + gi * g.cg) *
						      g.pin) * esz;
			char *yg = py + (size_t)((i * g.o + gi * g.og) *
						g.pout) * esz;
			const char *wg = pw + (size_t)(gi * g.cg * g.og *
						      g.kk) * esz;
			struct col2im_job j = { &g, col, yg, dbl };

			/* col [og*kk, pin] = w_g^T [og*kk, cg] @ x_g [cg, pin] */
			gemm(y->dtype, 1, 0, g.og * g.kk, g.pin, g.cg, 1.0,
			     wg, g.og * g.kk, xg, g.pin, 0.0, col, g.pin);
			cpu_parallel_for(g.og, 1, col2im_range, &j);
		}
	cpu_mem_release(col);
	return 0;
}

int cpu_conv(const struct gpu_conv *p, const struct gpu_tensor *x,
	     const struct gpu_tensor *w, const struct gpu_tensor *bias,
	     struct gpu_tensor *y)
{
	enum ir_dtype ct = y->dtype == IR_DTYPE_DOUBLE ? IR_DTYPE_DOUBLE :
			   IR_DTYPE_FLOAT;
	const struct gpu_tensor *in[3] = { x, w, bias };
	struct gpu_tensor *tmp[3] = { 0 }, *yt = NULL;
	int ns = p->nspatial, rc = -1;

	if (ns < 1 || ns > 3 || x->rank != ns + 2 || w->rank != ns + 2 ||
	    y->rank != ns + 2 || p->groups < 1) {
		gpu_set_error("cpu conv: bad ranks or groups");
		return -1;
	}
	if (!cpu_is_float(y->dtype))
		return cpu_check_dtype("conv", y->dtype, 1);
	{
		int64_t c = x->dims[1], o = y->dims[1], g = p->groups;
		int64_t wc = p->transposed ? w->dims[0] : w->dims[1] * g;
		int64_t wo = p->transposed ? w->dims[1] * g : w->dims[0];

		if (c % g || o % g || wc != c || wo != o ||
		    x->dims[0] != y->dims[0] ||
		    (bias && (bias->rank != 1 || bias->dims[0] != o))) {
			gpu_set_error("cpu conv: shapes do not agree");
			return -1;
		}
	}
	for (int k = 0; k < 3; k++) {
		if (!in[k])
			continue;
		if (in[k]->dtype != ct || !gpu_is_contiguous(in[k])) {
			tmp[k] = gpu_empty(in[k]->storage->be, ct, in[k]->rank,
					   in[k]->dims);
			if (!tmp[k] || cpu_copy(in[k], tmp[k]))
				goto out;
			in[k] = tmp[k];
		}
	}
	if (y->dtype != ct) {
		yt = gpu_empty(y->storage->be, ct, y->rank, y->dims);
		if (!yt)
			goto out;
	}
	if (gpu_numel(y) == 0) {
		rc = 0;
		goto out;
	}
	rc = conv_native(p, in[0], in[1], in[2], yt ? yt : y);
	if (!rc && yt)
		rc = cpu_copy(yt, y);
out:
	for (int k = 0; k < 3; k++)
		gpu_free(tmp[k]);
	gpu_free(yt);
	return rc;
}

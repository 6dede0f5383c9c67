/*
 * ops_special_host.c - trace kernels on the host for torch's special
 * functions (issue 14's long tail): the orthogonal polynomials
 * special_{,shifted_}chebyshev_polynomial_{t,u,v,w},
 * special_hermite_polynomial_{h,he}, special_laguerre_polynomial_l and
 * special_legendre_polynomial_p; lgamma, digamma, mvlgamma, i0, i0e, i1,
 * i1e, the Bessel functions j0, j1, y0, y1, the modified i0, i1, k0 and
 * k1 (and k scaled), spherical_bessel_j0, zeta, ndtri, erfinv, erfcx,
 * log_ndtr, airy_ai, polygamma and igamma/igammac (the regularized
 * incomplete gamma functions, special_gammainc/gammaincc).
 * Each reads its inputs to the host as doubles, computes as torch 1.13's
 * aten/src/ATen/native/Math.h does (the polynomials: the same special
 * cases and recurrence, each operation rounded to the result dtype; the
 * functions: lib/common/special_math.c's Cephes forms, lgamma C's; each
 * in double, rounded once to a float result, where torch's float kernels
 * round every step: float results may differ from torch's by a few ulps,
 * and where torch's float intermediates overflow (i0 above 88.7) these
 * stay finite) and
 * writes the result back, so it runs on either backend.
 * lib/lower/symbolic_special.c builds the same computations in ONNX.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "special_math.h"
#include "trace_int.h"

/* v rounded to float where the result is float (each step of torch's
 * float kernel rounds; double rounding of one +, -, *, / through double
 * gives the float result) */
static double rnd(int fl, double v)
{
	return fl ? (double)(float)v : v;
}

#define R(v) rnd(fl, (v))

/* n as torch's static_cast<int64_t> reads it on x86: NaN and values out
 * of range are INT64_MIN (so every polynomial is 0 there) */
static int64_t degree_of(double v)
{
	if (!(fabs(v) < 9.2e18))
		return INT64_MIN;
	return (int64_t)v;
}

/* chebyshev kinds T U V W (0..3), shifted (of 2x - 1) or not */
static double chebyshev(int kind, int shifted, double x, int64_t n, int fl)
{
	double y = shifted ? R(R(x + x) - 1) : x, p = 1, q, r = 0;
	int thr = shifted ? (kind == 3 ? 4 : 6) : (kind == 0 ? 6 : 8);
	int pos = shifted ? x == 1 : x == 1, neg = shifted ? x == 0 : x == -1;
	double sg = n % 2 == 0 ? 1 : -1;
	double n1 = R((double)n + 1), n2 = R((double)n + n + 1);

	if (n < 0)
		return 0;
	if (pos || neg) {
		switch (kind) {
		case 0: return pos ? 1 : sg;
		case 1: return pos ? n1 : sg * n1;
		case 2: return pos ? 1 : sg * n2;
		default: return pos ? n2 : sg;
		}
	}
	if (n > thr && fabs(y) < 1) {
		double a = R(acos(y)), h = R(a / 2), nh = R(R((double)n) + 0.5);
		switch (kind) {
		case 0:
			return R(cos(R(R((double)n) * a)));
		case 1:
			if (R(sin(a)) != 0)
				return R(R(sin(R(n1 * a))) / R(sin(a)));
			return R(R(n1 * R(cos(R(n1 * a)))) / y);
		case 2:
			if (R(sin(h)) != 1)
				return R(R(cos(R(nh * a))) / R(cos(h)));
			return sg * n2;
		default:
			if (R(cos(h)) != 1)
				return R(R(sin(R(nh * a))) / R(sin(h)));
			return !shifted && x > 0 ? n2 : sg;
		}
	}
	q = kind == 0 ? y : kind == 1 ? R(y + y)
			  : R(R(y + y) + (kind == 2 ? -1 : 1));
	if (n == 0)
		return 1;
	if (n == 1)
		return q;
	for (int64_t k = 2; k <= n && !isnan(q); k++) {
		r = R(R(R(y + y) * q) - p);
		p = q;
		q = r;
	}
	return q;
}

/* hermite (physicists' h, probabilists' he), laguerre, legendre */
static double classical(enum aten_op op, double x, int64_t n, int fl)
{
	double p = 1, q, r;

	if (n < 0)
		return 0;
	if (op == OP_aten_special_laguerre_polynomial_l && x == 0)
		return 1;
	if (op == OP_aten_special_legendre_polynomial_p && fabs(x) == 1)
		return x > 0 || n % 2 == 0 ? 1 : -1;
	if (n == 0)
		return 1;
	switch (op) {
	case OP_aten_special_hermite_polynomial_h: q = R(x + x); break;
	case OP_aten_special_laguerre_polynomial_l: q = R(1 - x); break;
	default: q = x; break;
	}
	for (int64_t j = 1; j < n && !isnan(q); j++) {
		double k = R((double)j);
		switch (op) {
		case OP_aten_special_hermite_polynomial_h:
			k = R(2.0 * (double)j);
			r = R(R(R(x + x) * q) - R(k * p));
			break;
		case OP_aten_special_hermite_polynomial_he:
			r = R(R(x * q) - R(k * p));
			break;
		case OP_aten_special_laguerre_polynomial_l:
			r = R(R(R(R(R(k + k) + R(1 - x)) * q) - R(k * p)) /
			      R(k + 1));
			break;
		default: /* legendre */
			r = R(R(R(R(R(k + k + 1) * x) * q) - R(k * p)) /
			      R(k + 1));
			break;
		}
		p = q;
		q = r;
	}
	return q;
}

static double polynomial(enum aten_op op, double x, double nv, int fl)
{
	int64_t n = degree_of(nv);

	switch (op) {
	case OP_aten_special_zeta: return sf_zeta(x, nv);
	case OP_aten_igamma: case OP_aten_special_gammainc:
		return rnd(fl, sf_igamma(x, nv, 0));
	case OP_aten_igammac: case OP_aten_special_gammaincc:
		return rnd(fl, sf_igamma(x, nv, 1));
	case OP_aten_special_chebyshev_polynomial_t: return chebyshev(0, 0, x, n, fl);
	case OP_aten_special_chebyshev_polynomial_u: return chebyshev(1, 0, x, n, fl);
	case OP_aten_special_chebyshev_polynomial_v: return chebyshev(2, 0, x, n, fl);
	case OP_aten_special_chebyshev_polynomial_w: return chebyshev(3, 0, x, n, fl);
	case OP_aten_special_shifted_chebyshev_polynomial_t: return chebyshev(0, 1, x, n, fl);
	case OP_aten_special_shifted_chebyshev_polynomial_u: return chebyshev(1, 1, x, n, fl);
	case OP_aten_special_shifted_chebyshev_polynomial_v: return chebyshev(2, 1, x, n, fl);
	case OP_aten_special_shifted_chebyshev_polynomial_w: return chebyshev(3, 1, x, n, fl);
	default: return classical(op, x, n, fl);
	}
}

/* special_*_polynomial_*(x, n), special_zeta(x, q) and igamma(c)(a, x)
 * (special_gammainc(c)): two tensors
 * or numbers, broadcast, in their float result dtype */
static int op_polynomial(struct trace_ctx *c, const struct ir_node *n,
			 struct tval **in, int nin, struct tval **out,
			 int nout)
{
	int64_t dims[GPU_MAX_DIMS], cnt = 1;
	double *a, *b;
	enum ir_dtype dt;
	int rank, fl;
	struct gpu_tensor *y;

	if (trace_pair_host(c, in[0], in[1], &dt, &rank, dims, &a, &b))
		return -1;
	fl = dt != IR_DTYPE_DOUBLE;
	for (int i = 0; i < rank; i++)
		cnt *= dims[i];
	for (int64_t i = 0; i < cnt; i++)
		a[i] = polynomial(n->op, a[i], b[i], fl);
	y = trace_from_host(c, dt, rank, dims, IR_DTYPE_DOUBLE, a);
	free(a);
	free(b);
	return trace_out(c, out, y);
}

static int is_float(enum ir_dtype dt)
{
	return dt == IR_DTYPE_FLOAT || dt == IR_DTYPE_DOUBLE ||
	       dt == IR_DTYPE_FLOAT16 || dt == IR_DTYPE_BFLOAT16;
}

/* exp(|x|), in float where the result is (torch's float i0 overflows
 * there) */
static double exp_abs(double x, int fl)
{
	return rnd(fl, exp(fabs(x)));
}

static double special_of(enum aten_op op, double x, int fl)
{
	switch (op) {
	case OP_aten_lgamma: case OP_aten_special_gammaln: return lgamma(x);
	case OP_aten_digamma: case OP_aten_special_digamma:
	case OP_aten_special_psi: return sf_digamma(x);
	case OP_aten_i0: case OP_aten_special_i0:
	case OP_aten_special_modified_bessel_i0: return exp_abs(x, fl) * sf_i0e(x);
	case OP_aten_special_i0e: return sf_i0e(x);
	case OP_aten_special_i1: case OP_aten_special_modified_bessel_i1:
		return exp_abs(x, fl) * sf_i1e(x);
	case OP_aten_special_i1e: return sf_i1e(x);
	case OP_aten_special_ndtri: return sf_ndtri(x);
	case OP_aten_special_erfcx: return sf_erfcx(x);
	case OP_aten_special_airy_ai: return sf_airy_ai(x, DBL_EPSILON);
	case OP_aten_special_log_ndtr: return sf_log_ndtr(x);
	case OP_aten_erfinv: case OP_aten_special_erfinv: return sf_erfinv(x);
	case OP_aten_special_bessel_j0: return sf_bessel_jy_of(x, 0, 0);
	case OP_aten_special_bessel_j1: return sf_bessel_jy_of(x, 1, 0);
	case OP_aten_special_bessel_y0: return sf_bessel_jy_of(x, 0, 1);
	case OP_aten_special_bessel_y1: return sf_bessel_jy_of(x, 1, 1);
	case OP_aten_special_modified_bessel_k0: return sf_bessel_k(x, 0, 0);
	case OP_aten_special_modified_bessel_k1: return sf_bessel_k(x, 1, 0);
	case OP_aten_special_scaled_modified_bessel_k0: return sf_bessel_k(x, 0, 1);
	case OP_aten_special_scaled_modified_bessel_k1: return sf_bessel_k(x, 1, 1);
	default: return sf_spherical_j0(x); /* special_spherical_bessel_j0 */
	}
}

/* a special function of one tensor, in its dtype (Float for integers);
 * mvlgamma(x, p): sum over j < p of lgamma(x - j/2) + p(p-1)/4 log(pi)
 * (torch 1.13 checks p >= 1 only) */
static int op_special_unary(struct trace_ctx *c, const struct ir_node *n,
			    struct tval **in, int nin, struct tval **out,
			    int nout)
{
	struct gpu_tensor *x, *y;
	double *v;
	int64_t cnt = 1, p = 0;
	int mv = n->op == OP_aten_mvlgamma || n->op == OP_aten_special_multigammaln;
	int fl;

	if (tv_get_tensor(c, in[0], 0, &x) || (mv && tv_get_int(c, in[1], &p)))
		return -1;
	if (mv && p < 1)
		return trace_error(c, "mvlgamma: p has to be greater than or "
				   "equal to 1");
	v = trace_to_host(c, x, IR_DTYPE_DOUBLE);
	if (!v)
		return -1;
	fl = x->dtype != IR_DTYPE_DOUBLE;
	for (int i = 0; i < x->rank; i++)
		cnt *= x->dims[i];
	for (int64_t i = 0; i < cnt; i++) {
		if (!mv) {
			v[i] = special_of(n->op, v[i], fl);
			continue;
		}
		double s = (double)p * (double)(p - 1) / 4 * log(M_PI);
		/* x - j/2 in the dtype, as torch adds its arange */
		for (int64_t j = 0; j < p; j++)
			s += lgamma(rnd(fl, v[i] - 0.5 * (double)j));
		v[i] = s;
	}
	y = trace_from_host(c, is_float(x->dtype) ? x->dtype : IR_DTYPE_FLOAT,
			    x->rank, x->dims, IR_DTYPE_DOUBLE, v);
	free(v);
	return trace_out(c, out, y);
}

/* polygamma(n, self): n a constant, self a tensor, in its float dtype */
static int op_polygamma(struct trace_ctx *c, const struct ir_node *n,
			struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x, *y;
	double *v;
	int64_t cnt = 1, k;

	if (tv_get_int(c, in[0], &k) || tv_get_tensor(c, in[1], 0, &x))
		return -1;
	if (k < 0)
		return trace_error(c, "polygamma(n, x) does not support negative n.");
	v = trace_to_host(c, x, IR_DTYPE_DOUBLE);
	if (!v)
		return -1;
	for (int i = 0; i < x->rank; i++)
		cnt *= x->dims[i];
	for (int64_t i = 0; i < cnt; i++)
		v[i] = sf_polygamma(k, v[i]);
	y = trace_from_host(c, is_float(x->dtype) ? x->dtype : IR_DTYPE_FLOAT,
			    x->rank, x->dims, IR_DTYPE_DOUBLE, v);
	free(v);
	return trace_out(c, out, y);
}

const struct trace_op trace_ops_special_host[] = {
	{ OP_aten_special_chebyshev_polynomial_t, op_polynomial, 0 },
	{ OP_aten_special_chebyshev_polynomial_u, op_polynomial, 0 },
	{ OP_aten_special_chebyshev_polynomial_v, op_polynomial, 0 },
	{ OP_aten_special_chebyshev_polynomial_w, op_polynomial, 0 },
	{ OP_aten_special_shifted_chebyshev_polynomial_t, op_polynomial, 0 },
	{ OP_aten_special_shifted_chebyshev_polynomial_u, op_polynomial, 0 },
	{ OP_aten_special_shifted_chebyshev_polynomial_v, op_polynomial, 0 },
	{ OP_aten_special_shifted_chebyshev_polynomial_w, op_polynomial, 0 },
	{ OP_aten_special_hermite_polynomial_h, op_polynomial, 0 },
	{ OP_aten_special_hermite_polynomial_he, op_polynomial, 0 },
	{ OP_aten_special_laguerre_polynomial_l, op_polynomial, 0 },
	{ OP_aten_special_legendre_polynomial_p, op_polynomial, 0 },
	{ OP_aten_special_zeta, op_polynomial, 0 },
	{ OP_aten_igamma, op_polynomial, 0 },
	{ OP_aten_igammac, op_polynomial, 0 },
	{ OP_aten_special_gammainc, op_polynomial, 0 },
	{ OP_aten_special_gammaincc, op_polynomial, 0 },
	{ OP_aten_polygamma, op_polygamma, 0 },
	{ OP_aten_special_polygamma, op_polygamma, 0 },
	{ OP_aten_lgamma, op_special_unary, 0 },
	{ OP_aten_special_gammaln, op_special_unary, 0 },
	{ OP_aten_digamma, op_special_unary, 0 },
	{ OP_aten_special_digamma, op_special_unary, 0 },
	{ OP_aten_special_psi, op_special_unary, 0 },
	{ OP_aten_mvlgamma, op_special_unary, 0 },
	{ OP_aten_special_multigammaln, op_special_unary, 0 },
	{ OP_aten_i0, op_special_unary, 0 },
	{ OP_aten_special_i0, op_special_unary, 0 },
	{ OP_aten_special_i0e, op_special_unary, 0 },
	{ OP_aten_special_i1, op_special_unary, 0 },
	{ OP_aten_special_i1e, op_special_unary, 0 },
	{ OP_aten_special_modified_bessel_i0, op_special_unary, 0 },
	{ OP_aten_special_modified_bessel_i1, op_special_unary, 0 },
	{ OP_aten_special_spherical_bessel_j0, op_special_unary, 0 },
	{ OP_aten_special_ndtri, op_special_unary, 0 },
	{ OP_aten_special_erfcx, op_special_unary, 0 },
	{ OP_aten_special_airy_ai, op_special_unary, 0 },
	{ OP_aten_special_log_ndtr, op_special_unary, 0 },
	{ OP_aten_erfinv, op_special_unary, 0 },
	{ OP_aten_special_erfinv, op_special_unary, 0 },
	{ OP_aten_special_bessel_j0, op_special_unary, 0 },
	{ OP_aten_special_bessel_j1, op_special_unary, 0 },
	{ OP_aten_special_bessel_y0, op_special_unary, 0 },
	{ OP_aten_special_bessel_y1, op_special_unary, 0 },
	{ OP_aten_special_modified_bessel_k0, op_special_unary, 0 },
	{ OP_aten_special_modified_bessel_k1, op_special_unary, 0 },
	{ OP_aten_special_scaled_modified_bessel_k0, op_special_unary, 0 },
	{ OP_aten_special_scaled_modified_bessel_k1, op_special_unary, 0 },
	{ OP_NONE, NULL, 0 },
};

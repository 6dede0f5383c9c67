/*
 * special_math.h - torch 1.13's special functions on the host (Math.h's
 * Cephes-derived forms), shared by trace's kernels (lib/trace/
 * ops_special_host.c, which computes them) and lower's symbolics
 * (lib/lower/symbolic_special.c, which builds the same series in ONNX from
 * the same coefficients).  Also matrix_exp's Taylor forms (the same
 * split: ops_linalg_host.c computes them, symbolic_linalg.c builds them).
 */
#ifndef PT2ONNX_SPECIAL_MATH_H
#define PT2ONNX_SPECIAL_MATH_H

#include <stdint.h>

/* Cephes' Chebyshev coefficients of the exponentially scaled modified
 * Bessel functions I0 and I1: over [0, 8] (A, of x/2 - 2) and (8, inf)
 * (B, of 32/x - 2), highest order first. */
#define SF_I0_NA 30
#define SF_I0_NB 25
#define SF_I1_NA 29
#define SF_I1_NB 25
extern const double sf_i0_a[SF_I0_NA], sf_i0_b[SF_I0_NB];
extern const double sf_i1_a[SF_I1_NA], sf_i1_b[SF_I1_NB];

/* Cephes' Chebyshev coefficients of the modified Bessel functions K0 and
 * K1 (torch's modified_bessel_k0/k1_forward): over (0, 2] (A, of x^2 - 2)
 * and above (B, of 8/x - 2). */
#define SF_K0_NA 10
#define SF_K1_NA 11
#define SF_K_NB 25
extern const double sf_k0_a[SF_K0_NA], sf_k0_b[SF_K_NB];
extern const double sf_k1_a[SF_K1_NA], sf_k1_b[SF_K_NB];

/* Cephes' rational approximations of the Bessel functions J0, J1, Y0, Y1
 * (torch's bessel_j0/j1/y0/y1_forward), per order: PP/PQ and QP/QQ of
 * 25/x^2 above 5, RP/RQ (J) and YP/YQ (Y) of x^2 up to 5, and J's zeros
 * that its small form factors out; highest order first (Horner). */
struct sf_bessel_jy {
	const double *pp, *pq, *qp, *qq, *rp, *rq, *yp, *yq;
	int npp, npq, nqp, nqq, nrp, nrq, nyp, nyq;
	double z1, z2; /* J's first two zeros squared */
};
extern const struct sf_bessel_jy sf_bessel_jy[2];
/* J (y 0) or Y (y 1) of order 0 or 1 as torch's bessel_*_forward. */
double sf_bessel_jy_of(double x, int order, int y);

/* Cephes' chbevl: the Chebyshev series c[0..n) at y. */
double sf_chbevl(double y, const double *c, int n);
/* exp(-|x|) I0(x) and exp(-|x|) I1(x) (odd), torch's calc_i0e/calc_i1e. */
double sf_i0e(double x);
double sf_i1e(double x);
/* trigamma as torch's (Math.h), and polygamma(n, x): digamma, trigamma,
 * else (-1)^(n+1) n! zeta(n + 1, x). */
double sf_trigamma(double x);
double sf_polygamma(int64_t n, double x);
/* K0 and K1 (one), exp(x) K (scaled): inf at 0, NaN below. */
double sf_bessel_k(double x, int one, int scaled);
/* digamma as torch's calc_digamma: x pushed to >= 10 and the asymptotic
 * series (Cephes' psi), the reflection below 0; +-inf at +-0, NaN at
 * negative integers. */
double sf_digamma(double x);
/* The asymptotic series of digamma: its coefficients, highest order first
 * (of 1/x^2), and digamma(10). */
#define SF_PSI_N 7
extern const double sf_psi_a[SF_PSI_N];
#define SF_PSI_10 2.25175258906672110764
/* Hurwitz zeta(x, q) as torch's zeta (Cephes): the sum to q + i > 9 (at
 * least 9 terms) and the Euler-Maclaurin tail of 12 terms, each ending
 * once a term is below SF_MACHEP of the sum; inf at x == 1, NaN below,
 * inf at q a nonpositive integer, NaN for q <= 0 and x not an integer. */
#define SF_ZETA_N 12
#define SF_MACHEP 1.11022302462515654042E-16
extern const double sf_zeta_a[SF_ZETA_N];
double sf_zeta(double x, double q);
/* ndtri, the inverse of the normal CDF, as torch's calc_ndtri (Cephes):
 * P0/Q0 of (y - 1/2)^2 in the centre, P1/Q1 and P2/Q2 of
 * 1/sqrt(-2 log y) in the tails; highest order first. */
#define SF_NDTRI_N0 5
#define SF_NDTRI_NQ0 9
#define SF_NDTRI_N 9
extern const double sf_ndtri_p0[SF_NDTRI_N0], sf_ndtri_q0[SF_NDTRI_NQ0];
extern const double sf_ndtri_p1[SF_NDTRI_N], sf_ndtri_q1[SF_NDTRI_N];
extern const double sf_ndtri_p2[SF_NDTRI_N], sf_ndtri_q2[SF_NDTRI_N];
#define SF_EXP_M2 0.13533528323661269189 /* exp(-2) */
#define SF_S2PI 2.50662827463100050242 /* sqrt(2 pi) */
double sf_ndtri(double y);
/* erfinv as torch's calc_erfinv (Pavlis): a rational first guess, its
 * coefficients below (a, b for |y| <= 0.7; c, d above, of
 * sqrt(-log((1 - |y|)/2))), and two Newton steps on erf. */
extern const double sf_erfinv_a[4], sf_erfinv_b[4], sf_erfinv_c[4],
	sf_erfinv_d[2];
double sf_erfinv(double y);
/* erfcx(x) = exp(x^2) erfc(x): Cephes' erfc quotients P/Q (1..8) and
 * R/S (8..50) of x, their leading 1 of Q and S implied; above 50 the
 * continued fraction torch's erfcx takes, below 1 exp(x^2)(1 - erf(x)),
 * below 0 2 exp(x^2) - erfcx(-x) (not torch's method, Faddeeva's
 * Chebyshev table, but measured against it: tests/424). */
#define SF_ERFC_NP 9
#define SF_ERFC_NQ 8
#define SF_ERFC_NR 6
#define SF_ERFC_NS 6
extern const double sf_erfc_p[SF_ERFC_NP], sf_erfc_q[SF_ERFC_NQ];
extern const double sf_erfc_r[SF_ERFC_NR], sf_erfc_s[SF_ERFC_NS];
double sf_erfcx(double x);
/* log of the normal CDF as torch's calc_log_ndtr, on sf_erfcx. */
double sf_log_ndtr(double x);
/* Airy Ai as torch's airy_ai_forward (Cephes): AFN/AFD, AGN/AGD of
 * 1/zeta^2 with the phase below -2.09, AN/AD of 1/zeta above 2.09 (zeta
 * = 2/3 |x|^(3/2)), between them the power series until a term is below
 * eps (the dtype's epsilon) of the sum; 0 above 103.892, NaN at
 * infinities. */
#define SF_AIRY_NA 8
#define SF_AIRY_NF 9
#define SF_AIRY_NGN 11
#define SF_AIRY_NGD 10
extern const double sf_airy_an[SF_AIRY_NA], sf_airy_ad[SF_AIRY_NA];
extern const double sf_airy_afn[SF_AIRY_NF], sf_airy_afd[SF_AIRY_NF];
extern const double sf_airy_agn[SF_AIRY_NGN], sf_airy_agd[SF_AIRY_NGD];
#define SF_AIRY_C1 0.355028053887817239260
#define SF_AIRY_C2 0.258819403792806798405
#define SF_SQRT1_PI 5.64189583547756286948e-01
double sf_airy_ai(double x, double eps);
/* spherical Bessel j0 as torch: sin(x)/x, its series below |x| 0.5, 0 at
 * infinities. */
double sf_spherical_j0(double x);

/* The regularized incomplete gamma functions P(a, x) (igamma; upper 0)
 * and Q(a, x) (igammac; upper 1), in double: torch's boundary values
 * (calc_igamma: a or x below 0 NaN; a 0: P 1 for x > 0, else NaN; x 0:
 * P 0; a inf: P 0, NaN with x inf; x inf: P 1), else e^-x x^a / Gamma(a)
 * times the series of P for x < a + 1 or the continued fraction of Q
 * (modified Lentz) otherwise, each to SF_MACHEP of its value, at most
 * SF_IGAMMA_MAX steps (enough for a up to 1e8); the other one is 1 less
 * it.  Not torch's method (Cephes' igam with the uniform asymptotic
 * series for large a near x), measured against it (docs/operators.md). */
#define SF_IGAMMA_MAX 100000
#define SF_IGAMMA_TINY 1e-300
int sf_igamma_special(double a, double x, int upper, double *v);
double sf_igamma(double a, double x, int upper);

/* matrix_exp (torch 1.13's LinearAlgebra.cpp, after Bader, Blanes and
 * Casas, "Computing the Matrix Exponential with an Optimized Taylor
 * Polynomial Approximation", Mathematics 7 (2019) 1174): a matrix whose
 * 1-norm is at most theta[i] (float or double's row) takes the Taylor
 * form of degree 1, 2, 4, 8, 12 (i = 0..4); from theta[4] on, degree 18
 * of A / 2^s, s = max(0, ceil(log2(norm / theta[5]))), squared s times.
 * The forms from the powers I, A, A^2, A^3, A^6:
 *   T1 = I + A;  T2 = T1 + A^2 / 2;  T4 = T1 + A^2 (I/2 + A/6 + A^2/24);
 *   T8: A4 = A^2 (t8[0] A + t8[1] A^2),
 *       A8 = (t8[2] A^2 + A4)(t8[3] I + t8[4] A + t8[5] A^2 + t8[6] A4),
 *       T8 = T1 + t8[7] A^2 + A8;
 *   T12: B_i = sum_j t12[i][j] P_j (P: I, A, A^2, A^3), B2 += B3 B3,
 *       T12 = B0 + (B1 + B2) B2;
 *   T18: B_i = sum_j t18[i][j] P_j (P: I, A, A^2, A^3, A^6), B3 += B0 B4,
 *       T18 = B1 + (B2 + B3) B3. */
extern const double sf_mexp_theta[2][6]; /* [0] float, [1] double */
extern const double sf_mexp_t8[8];
extern const double sf_mexp_t12[4][4];
extern const double sf_mexp_t18[5][5];

#endif

/*
 * ops_fft_host.c - trace kernels on the host for the fft operators with a
 * real output: fft_irfft, fft_hfft, their 2-d and n-d forms.  The input is
 * real (trace has no complex tensors): it is read as a complex spectrum
 * of zero imaginary part, as torch reads a real input.  As torch 1.13's
 * SpectralOps.cpp: an inverse (irfft) or forward (hfft) complex DFT over
 * every dim but the last, then the complex-to-real transform of the last
 * (its Hermitian half, n/2 + 1 entries, zero-padded or trimmed; the
 * imaginary parts of the first and, n even, the middle entry ignored),
 * scaled by the norm ("backward", "forward", "ortho").  Direct DFTs in
 * double, the output in the input's float dtype.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trace_int.h"

#define FFT_MAXD 8

/* one DFT along axis of the complex array (re, im) of dims (rank r):
 * X[k] = sum_t x[t] e^(sign 2 pi i k t / len), len dims[axis] */
static int dft_axis(double *re, double *im, const int64_t *dims, int r,
		    int axis, int sign)
{
	int64_t len = dims[axis], inner = 1, outer = 1;
	for (int i = axis + 1; i < r; i++)
		inner *= dims[i];
	for (int i = 0; i < axis; i++)
		outer *= dims[i];
	double *buf = malloc(sizeof(*buf) * (size_t)(len * 2 + 1));
	if (!buf)
		return -1;
	for (int64_t o = 0; o < outer; o++)
		for (int64_t p = 0; p < inner; p++) {
			int64_t base = o * len * inner + p;
			for (int64_t k = 0; k < len; k++) {
				double sr = 0, si = 0;
				for (int64_t t = 0; t < len; t++) {
					double a = sign * 2 * M_PI *
						   (double)((k * t) % len) / (double)len;
					double xr = re[base + t * inner],
					       xi = im[base + t * inner];
					sr += xr * cos(a) - xi * sin(a);
					si += xr * sin(a) + xi * cos(a);
				}
				buf[2 * k] = sr;
				buf[2 * k + 1] = si;
			}
			for (int64_t k = 0; k < len; k++) {
				re[base + k * inner] = buf[2 * k];
				im[base + k * inner] = buf[2 * k + 1];
			}
		}
	free(buf);
	return 0;
}

/* the dims of an optional int list / int argument v into out (count n);
 * 0 for None (*n = -1) */
static int opt_ints(struct trace_ctx *c, const struct tval *v, int64_t *out,
		    int *n)
{
	if (v->kind == TV_NONE) {
		*n = -1;
		return 0;
	}
	if (v->kind == TV_INT) {
		out[0] = v->u.i;
		*n = 1;
		return 0;
	}
	return tv_get_ints(c, v, out, FFT_MAXD, n);
}

/* fft_irfft(self, n, dim, norm), fft_irfft2/n(self, s, dim, norm) and the
 * hfft forms */
static int op_fft_c2r(struct trace_ctx *c, const struct ir_node *n,
		      struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x, *y;
	int64_t S[FFT_MAXD], D[FFT_MAXD], od[FFT_MAXD], wd[FFT_MAXD];
	int ns = -1, nd = -1, r, one, two, herm, rc = -1;
	const char *norm = NULL;
	enum aten_op op = n->op;

	one = op == OP_aten_fft_irfft || op == OP_aten_fft_hfft;
	two = op == OP_aten_fft_irfft2 || op == OP_aten_fft_hfft2;
	herm = op == OP_aten_fft_hfft || op == OP_aten_fft_hfft2 ||
	       op == OP_aten_fft_hfftn;
	(void)nout;
	if (tv_get_tensor(c, in[0], 0, &x) ||
	    (nin > 1 && opt_ints(c, in[1], S, &ns)) ||
	    (nin > 2 && opt_ints(c, in[2], D, &nd)))
		return -1;
	if (nin > 3 && in[3]->kind == TV_STR)
		norm = in[3]->u.s;
	if (x->dtype == IR_DTYPE_COMPLEX64 || x->dtype == IR_DTYPE_COMPLEX128)
		return trace_error(c, "complex tensors are not supported");
	r = x->rank;
	if (r > FFT_MAXD)
		return trace_error(c, "fft: at most %d dims", FFT_MAXD);
	if (one) {
		if (nd < 0) {
			D[0] = -1;
			nd = 1;
		}
		if (ns > 1 || nd != 1)
			return trace_error(c, "fft: n and dim must be single ints");
	} else if (nd < 0) {
		if (two) {
			D[0] = -2;
			D[1] = -1;
			nd = 2;
		} else {
			nd = ns >= 0 ? ns : r;
			for (int i = 0; i < nd; i++)
				D[i] = r - nd + i;
		}
	}
	if (nd < 1 || (ns >= 0 && ns != nd))
		return trace_error(c, "When given, dim and shape arguments must have the same length");
	for (int i = 0; i < nd; i++) {
		if (D[i] < -r || D[i] >= r)
			return trace_error(c, "Dimension out of range (expected to be in range of [%d, %d], but got %lld)",
					   -r, r - 1, (long long)D[i]);
		D[i] = D[i] < 0 ? D[i] + r : D[i];
		for (int j = 0; j < i; j++)
			if (D[j] == D[i])
				return trace_error(c, "FFT dims must be unique");
		if (ns < 0)
			S[i] = i < nd - 1 ? x->dims[D[i]] : 2 * (x->dims[D[i]] - 1);
		if (S[i] < 1)
			return trace_error(c, "Invalid number of data points (%lld) specified",
					   (long long)S[i]);
	}
	/* the working array: fft dims resized, the last to S/2 + 1 */
	int64_t last = D[nd - 1], half = S[nd - 1] / 2 + 1, wn = 1, on = 1;
	memcpy(wd, x->dims, sizeof(*wd) * (size_t)r);
	for (int i = 0; i < nd; i++)
		wd[D[i]] = i < nd - 1 ? S[i] : half;
	memcpy(od, wd, sizeof(*od) * (size_t)r);
	od[last] = S[nd - 1];
	for (int i = 0; i < r; i++) {
		wn *= wd[i];
		on *= od[i];
	}
	double *h = trace_to_host(c, x, IR_DTYPE_DOUBLE);
	double *re = calloc((size_t)(wn ? wn : 1), sizeof(*re));
	double *im = calloc((size_t)(wn ? wn : 1), sizeof(*im));
	double *o = calloc((size_t)(on ? on : 1), sizeof(*o));
	if (!h || !re || !im || !o) {
		if (h)
			trace_oom(c);
		goto done;
	}
	/* copy the input into the working array (padding with zeros) */
	for (int64_t k = 0; k < wn; k++) {
		int64_t rem = k, src = 0, stride = 1, ok = 1;
		for (int i = r - 1; i >= 0; i--) {
			int64_t idx = rem % wd[i];
			rem /= wd[i];
			if (idx >= x->dims[i])
				ok = 0;
			src += idx * stride;
			stride *= x->dims[i];
		}
		re[k] = ok ? h[src] : 0;
	}
	for (int i = 0; i < nd - 1; i++)
		if (dft_axis(re, im, wd, r, (int)D[i], herm ? -1 : 1)) {
			trace_oom(c);
			goto done;
		}
	/* the complex-to-real transform of the last dim */
	{
		int64_t len = S[nd - 1], inner = 1, outer = 1;
		double sign = herm ? -1 : 1, scale = 1, N = 1;
		for (int i = (int)last + 1; i < r; i++)
			inner *= wd[i];
		for (int i = 0; i < (int)last; i++)
			outer *= wd[i];
		for (int i = 0; i < nd; i++)
			N *= (double)S[i];
		if (!norm || !strcmp(norm, "backward"))
			scale = herm ? 1 : 1 / N;
		else if (!strcmp(norm, "forward"))
			scale = herm ? 1 / N : 1;
		else if (!strcmp(norm, "ortho"))
			scale = 1 / sqrt(N);
		else {
			trace_error(c, "Invalid normalization mode: \"%s\"", norm);
			goto done;
		}
		for (int64_t a = 0; a < outer; a++)
			for (int64_t p = 0; p < inner; p++)
				for (int64_t t = 0; t < len; t++) {
					const int64_t wb = a * half * inner + p;
					double s = re[wb];
					for (int64_t k = 1; k < half; k++) {
						double ang = sign * 2 * M_PI *
							     (double)((k * t) % len) / (double)len;
						double yr = re[wb + k * inner],
						       yi = im[wb + k * inner];
						if (2 * k == len)
							s += yr * cos(ang);
						else
							s += 2 * (yr * cos(ang) - yi * sin(ang));
					}
					o[(a * len + t) * inner + p] = s * scale;
				}
	}
	y = trace_from_host(c, x->dtype == IR_DTYPE_DOUBLE ? IR_DTYPE_DOUBLE
							 : IR_DTYPE_FLOAT,
			    r, od, IR_DTYPE_DOUBLE, o);
	rc = y ? trace_out(c, out, y) : -1;
done:
	free(h);
	free(re);
	free(im);
	free(o);
	return rc;
}

const struct trace_op trace_ops_fft_host[] = {
	{ OP_aten_fft_irfft, op_fft_c2r, 0 },
	{ OP_aten_fft_hfft, op_fft_c2r, 0 },
	{ OP_aten_fft_irfft2, op_fft_c2r, 0 },
	{ OP_aten_fft_hfft2, op_fft_c2r, 0 },
	{ OP_aten_fft_irfftn, op_fft_c2r, 0 },
	{ OP_aten_fft_hfftn, op_fft_c2r, 0 },
	{ OP_NONE, NULL, 0 },
};

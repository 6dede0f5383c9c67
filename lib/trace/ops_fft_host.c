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
 * double, the output in the input's float dtype.  Also stft (its (re,
 * im) pairs in a last dim of 2) and istft (of such pairs).
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

/* stft's and istft's shared arguments (1..4): n_fft, hop (n_fft / 4),
 * win_length (n_fft), the window on the host, centred in n_fft samples
 * with zeros (ones of win_length without one); *win malloc'd */
static int stft_args(struct trace_ctx *c, struct tval **in, int64_t *nfft,
		     int64_t *hop, double **win)
{
	int64_t winl;
	struct gpu_tensor *w = NULL;
	double *hw = NULL;

	*win = NULL;
	if (tv_get_int(c, in[1], nfft))
		return -1;
	*hop = *nfft / 4;
	winl = *nfft;
	if ((in[2]->kind != TV_NONE && tv_get_int(c, in[2], hop)) ||
	    (in[3]->kind != TV_NONE && tv_get_int(c, in[3], &winl)) ||
	    tv_get_tensor(c, in[4], 1, &w))
		return -1;
	if (*nfft < 1 || *hop < 1 || winl < 1 || winl > *nfft)
		return trace_error(c, "stft: expected 0 < n_fft, 0 < hop_length "
				   "and 0 < win_length <= n_fft");
	if (w && (w->rank != 1 || w->dims[0] != winl))
		return trace_error(c, "stft: expected a 1D window tensor of "
				   "size equal to win_length=%lld", (long long)winl);
	if (w && !(hw = trace_to_host(c, w, IR_DTYPE_DOUBLE)))
		return -1;
	*win = calloc((size_t)*nfft, sizeof(double));
	if (!*win) {
		free(hw);
		return trace_error(c, "out of memory");
	}
	for (int64_t i = 0; i < winl; i++)
		(*win)[(*nfft - winl) / 2 + i] = hw ? hw[i] : 1;
	free(hw);
	return 0;
}

/* stft(self, n_fft, hop?, win_length?, window?, normalized, onesided?,
 * return_complex?) and .center (center, pad_mode before normalized) of
 * a real 1-d or 2-d signal: each frame t (hop apart) times the window,
 * its DFT's first freqs bins (n_fft / 2 + 1 onesided) as (re, im) pairs
 * in a last dim of 2 (return_complex False: trace has no complex
 * tensors), 1/sqrt(n_fft) normalized; centring pads before this op */
static int op_stft(struct trace_ctx *c, const struct ir_node *n,
		   struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x, *y;
	int64_t nfft, hop, ones = 1, norm = 0, rc = 0, center = 0, b, len, fr, f;
	int ci = nin >= 10 ? 7 : 5;
	double *win = NULL, *h = NULL, *o = NULL;
	int ret = -1;

	if (tv_get_tensor(c, in[0], 0, &x) || stft_args(c, in, &nfft, &hop, &win))
		return -1;
	if ((nin >= 10 && tv_get_int(c, in[5], &center)) ||
	    tv_get_int(c, in[ci], &norm) ||
	    (in[ci + 1]->kind != TV_NONE && tv_get_int(c, in[ci + 1], &ones)) ||
	    (nin > ci + 2 && in[ci + 2]->kind != TV_NONE && tv_get_int(c, in[ci + 2], &rc)))
		goto done;
	if (rc || center || (x->dtype != IR_DTYPE_FLOAT && x->dtype != IR_DTYPE_DOUBLE) ||
	    (x->rank != 1 && x->rank != 2)) {
		trace_error(c, "stft: a real 1-d or 2-d float signal, center=False and "
			    "return_complex=False are supported (trace has no complex tensors)");
		goto done;
	}
	b = x->rank == 2 ? x->dims[0] : 1;
	len = x->dims[x->rank - 1];
	if (len < nfft) {
		trace_error(c, "stft: expected 0 < n_fft < %lld, but got n_fft=%lld",
			    (long long)len, (long long)nfft);
		goto done;
	}
	fr = 1 + (len - nfft) / hop;
	f = ones ? nfft / 2 + 1 : nfft;
	if (!(h = trace_to_host(c, x, IR_DTYPE_DOUBLE)))
		goto done;
	o = malloc(sizeof(*o) * (size_t)(b * f * fr * 2 + 1));
	if (!o) {
		trace_error(c, "out of memory");
		goto done;
	}
	double scale = norm ? 1 / sqrt((double)nfft) : 1;
	for (int64_t i = 0; i < b; i++)
		for (int64_t k = 0; k < f; k++)
			for (int64_t t = 0; t < fr; t++) {
				const double *s = h + i * len + t * hop;
				double sr = 0, si = 0;
				for (int64_t j = 0; j < nfft; j++) {
					double a = -2 * M_PI * (double)((k * j) % nfft) / (double)nfft;
					sr += win[j] * s[j] * cos(a);
					si += win[j] * s[j] * sin(a);
				}
				o[((i * f + k) * fr + t) * 2] = sr * scale;
				o[((i * f + k) * fr + t) * 2 + 1] = si * scale;
			}
	int64_t od[4] = { b, f, fr, 2 };
	y = trace_from_host(c, x->dtype, x->rank + 2, x->rank == 2 ? od : od + 1,
			    IR_DTYPE_DOUBLE, o);
	ret = y ? trace_out(c, out, y) : -1;
done:
	free(win);
	free(h);
	free(o);
	return ret;
}

/* istft(self, n_fft, hop?, win_length?, window?, center, normalized,
 * onesided?, length?, return_complex) of a spectrum given as real (re,
 * im) pairs [freq, frames, 2] or [batch, freq, frames, 2] (torch 1.13's
 * deprecated real form; trace has no complex tensors): each frame's
 * complex-to-real inverse DFT of its first n_fft / 2 + 1 bins (1/n_fft,
 * or 1/sqrt(n_fft) normalized) times the window, overlap-added, divided
 * by the overlap-added squared window, trimmed to [n_fft / 2 centred,
 * + length) and zero-padded past the signal, as SpectralOps.cpp */
static int op_istft(struct trace_ctx *c, const struct ir_node *n,
		    struct tval **in, int nin, struct tval **out, int nout)
{
	struct gpu_tensor *x, *y;
	int64_t nfft, hop, center = 1, norm = 0, ones = -1, length = -1, rc = 0,
		b, f, fr, total, start, end, half;
	double *win = NULL, *h = NULL, *sig = NULL, *env = NULL, *o = NULL,
		*frame = NULL;
	int ret = -1;

	if (tv_get_tensor(c, in[0], 0, &x) || stft_args(c, in, &nfft, &hop, &win))
		return -1;
	if (tv_get_int(c, in[5], &center) || tv_get_int(c, in[6], &norm) ||
	    (in[7]->kind != TV_NONE && tv_get_int(c, in[7], &ones)) ||
	    (in[8]->kind != TV_NONE && tv_get_int(c, in[8], &length)) ||
	    (nin > 9 && tv_get_int(c, in[9], &rc)))
		goto done;
	if (rc || (x->rank != 3 && x->rank != 4) || x->dims[x->rank - 1] != 2 ||
	    (x->dtype != IR_DTYPE_FLOAT && x->dtype != IR_DTYPE_DOUBLE)) {
		trace_error(c, "istft: a spectrum of real (re, im) pairs [freq, frames, 2] "
			    "or [batch, freq, frames, 2] and return_complex=False are "
			    "supported (trace has no complex tensors)");
		goto done;
	}
	b = x->rank == 4 ? x->dims[0] : 1;
	f = x->dims[x->rank - 3];
	fr = x->dims[x->rank - 2];
	if (ones < 0)
		ones = f != nfft;
	if ((ones && f != nfft / 2 + 1) || (!ones && f != nfft)) {
		trace_error(c, "istft: expected the frequency dimension (%lld) to be "
			    "n_fft / 2 + 1 onesided, n_fft otherwise", (long long)f);
		goto done;
	}
	if (fr < 1) {
		trace_error(c, "istft: no frames");
		goto done;
	}
	half = nfft / 2 + 1 < f ? nfft / 2 + 1 : f;
	total = nfft + hop * (fr - 1);
	start = center ? nfft / 2 : 0;
	end = length >= 0 ? start + length : center ? total - nfft / 2 : total;
	if (end < start)
		end = start;
	if (!(h = trace_to_host(c, x, IR_DTYPE_DOUBLE)))
		goto done;
	sig = calloc((size_t)(b * total + 1), sizeof(double));
	env = calloc((size_t)(total + 1), sizeof(double));
	frame = calloc((size_t)nfft, sizeof(double));
	o = calloc((size_t)(b * (end - start) + 1), sizeof(double));
	if (!sig || !env || !frame || !o) {
		trace_error(c, "out of memory");
		goto done;
	}
	double scale = norm ? 1 / sqrt((double)nfft) : 1 / (double)nfft;
	for (int64_t t = 0; t < fr; t++)
		for (int64_t j = 0; j < nfft; j++)
			env[t * hop + j] += win[j] * win[j];
	for (int64_t i = 0; i < b; i++)
		for (int64_t t = 0; t < fr; t++) {
			for (int64_t j = 0; j < nfft; j++) {
				double s = 0;
				for (int64_t k = 0; k < half; k++) {
					const double *z = h + ((i * f + k) * fr + t) * 2;
					double a = 2 * M_PI * (double)((k * j) % nfft) / (double)nfft;
					double w = k == 0 || 2 * k == nfft ? 1 : 2;
					s += w * (z[0] * cos(a) - (k == 0 ? 0 : z[1] * sin(a)));
				}
				frame[j] = s * scale;
			}
			for (int64_t j = 0; j < nfft; j++)
				sig[i * total + t * hop + j] += frame[j] * win[j];
		}
	for (int64_t p = start; p < end && p < total; p++)
		if (fabs(env[p]) < 1e-11) {
			trace_error(c, "istft: window overlap add min: %g", fabs(env[p]));
			goto done;
		}
	for (int64_t i = 0; i < b; i++)
		for (int64_t p = start; p < end; p++)
			o[i * (end - start) + p - start] =
				p < total ? sig[i * total + p] / env[p] : 0;
	int64_t od[2] = { b, end - start };
	y = trace_from_host(c, x->dtype, x->rank == 4 ? 2 : 1, x->rank == 4 ? od : od + 1,
			    IR_DTYPE_DOUBLE, o);
	ret = y ? trace_out(c, out, y) : -1;
done:
	free(win);
	free(h);
	free(sig);
	free(env);
	free(frame);
	free(o);
	return ret;
}

const struct trace_op trace_ops_fft_host[] = {
	{ OP_aten_fft_irfft, op_fft_c2r, 0 },
	{ OP_aten_fft_hfft, op_fft_c2r, 0 },
	{ OP_aten_fft_irfft2, op_fft_c2r, 0 },
	{ OP_aten_fft_hfft2, op_fft_c2r, 0 },
	{ OP_aten_fft_irfftn, op_fft_c2r, 0 },
	{ OP_aten_fft_hfftn, op_fft_c2r, 0 },
	{ OP_aten_stft, op_stft, 0 },
	{ OP_aten_istft, op_istft, 0 },
	{ OP_NONE, NULL, 0 },
};

/*
 * compare.c - compare_arrays (compare.h): the element-wise closeness test
 * of pt2onnx --verify.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "compare.h"
#include "gpu_int.h" /* cpu_ld_d: any dtype's element as a double */

static void shape_text(const struct npy_header *h, char *buf, size_t size)
{
	size_t k = 0;

	k += (size_t)snprintf(buf, size, "[");
	for (int i = 0; i < h->rank && k < size; i++)
		k += (size_t)snprintf(buf + k, size - k, "%s%lld",
				      i ? "," : "", (long long)h->dims[i]);
	if (k < size)
		snprintf(buf + k, size - k, "]");
}

int compare_arrays(const struct npy_array *got, const struct npy_array *want,
		   double rtol, double atol, struct compare_result *r)
{
	enum ir_dtype dt = want->h.dtype;
	char gs[64], ws[64];

	memset(r, 0, sizeof(*r));
	if (got->h.dtype != dt) {
		snprintf(r->why, sizeof(r->why), "dtype %s, expected %s",
			 ir_dtype_onnx_name(got->h.dtype),
			 ir_dtype_onnx_name(dt));
		return 0;
	}
	int same = got->h.rank == want->h.rank;
	for (int i = 0; same && i < want->h.rank; i++)
		same = got->h.dims[i] == want->h.dims[i];
	size_t esz = ir_dtype_size(dt);
	if (!same || !esz || got->nbytes != want->nbytes ||
	    want->nbytes != npy_numel(&want->h) * esz) {
		shape_text(&got->h, gs, sizeof(gs));
		shape_text(&want->h, ws, sizeof(ws));
		snprintf(r->why, sizeof(r->why), "shape %s, expected %s", gs,
			 ws);
		return 0;
	}
	r->n = want->nbytes / esz;
	int exact = cpu_is_int(dt);
	for (uint64_t i = 0; i < r->n; i++) {
		double g = cpu_ld_d((const char *)got->data + i * esz, dt);
		double w = cpu_ld_d((const char *)want->data + i * esz, dt);
		double diff;
		int ok;

		if (isnan(g) || isnan(w)) {
			ok = isnan(g) && isnan(w);
			diff = ok ? 0 : INFINITY;
		} else if (isinf(g) || isinf(w)) {
			ok = g == w;
			diff = ok ? 0 : INFINITY;
		} else {
			diff = fabs(g - w);
			ok = exact ? g == w : diff <= atol + rtol * fabs(w);
		}
		if (!ok)
			r->nbad++;
		if (diff > r->max_abs || (!ok && r->nbad == 1)) {
			r->max_abs = diff;
			r->worst = i;
			r->got = g;
			r->want = w;
		}
	}
	if (r->nbad) {
		snprintf(r->why, sizeof(r->why), "%llu of %llu elements differ "
			 "(largest at %llu: %.9g, expected %.9g)",
			 (unsigned long long)r->nbad, (unsigned long long)r->n,
			 (unsigned long long)r->worst, r->got, r->want);
		return 0;
	}
	return 1;
}

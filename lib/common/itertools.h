/*
 * itertools.h - the index tuples of torch.combinations (itertools'
 * combinations and combinations_with_replacement order), shared by
 * trace's kernel and lower's constant indices.
 */
#ifndef PT2ONNX_ITERTOOLS_H
#define PT2ONNX_ITERTOOLS_H

#include <stdint.h>

/* The r-element combinations of 0..m-1 (rep: with replacement) in
 * lexicographic order, written row by row into out (r entries each; NULL:
 * only counted) up to cap rows; returns their count, or cap + 1 when
 * there are more.  r is at most 64; r 0 gives none. */
static inline int64_t combos_fill(int64_t m, int64_t r, int rep,
				  int64_t *out, int64_t cap)
{
	int64_t pick[64], k = 0;
	if (r <= 0 || r > 64 || (rep ? m <= 0 : r > m))
		return 0;
	for (int64_t i = 0; i < r; i++)
		pick[i] = rep ? 0 : i;
	for (;;) {
		if (out && k < cap)
			for (int64_t i = 0; i < r; i++)
				out[k * r + i] = pick[i];
		if (++k > cap)
			return k;
		int64_t i = r - 1;
		while (i >= 0 && pick[i] == (rep ? m - 1 : m - r + i))
			i--;
		if (i < 0)
			return k;
		pick[i]++;
		for (int64_t j = i + 1; j < r; j++)
			pick[j] = rep ? pick[i] : pick[j - 1] + 1;
	}
}

#endif

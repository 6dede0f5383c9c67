/*
 * symbolic_products.c - more of issue 14's long tail of shapes and
 * products: kron, vdot (real), linalg_vecdot, linalg_vander,
 * linalg_multi_dot, linalg_matrix_power (matrix_power; n known when
 * converting, a negative one of the inverse from opset 11), combinations,
 * narrow_copy, new_empty_strided and as_strided_scatter.  Each is an exact ONNX decomposition of torch
 * 1.13's definition (ATen/native: LinearAlgebra.cpp, Itertools.cpp,
 * TensorShape.cpp) or declines with the reason.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "itertools.h"
#include "symbolic_common.h"

#define T(i) lw_tensor(c, n, (i))
#define NARGS ((int)n->ninputs)
#define MAXR 32

/* kron(self, other): with both padded to one rank r by leading 1s,
 * self's dims interleaved with 1s times other's the other way round, the
 * product reshaped to the dims' products */
static SYM(sym_kron)
{
	struct ir_value *a = T(0), *b = T(1);
	int ra = a ? b_rank(a) : -1, rb = b ? b_rank(b) : -1;
	int64_t ax[2 * MAXR];
	if (ra < 0 || rb < 0 || ra > MAXR || rb > MAXR)
		return lw_decline(c, "inputs of unknown rank");
	enum ir_dtype dt = lw_promote(b_dtype(a), b_dtype(b));
	if (dt == IR_DTYPE_UNDEFINED)
		return lw_decline(c, "inputs of unknown dtype");
	int r = ra > rb ? ra : rb;
	a = b_cast(c, a, dt);
	b = b_cast(c, b, dt);
	for (int i = 0; i < r; i++)
		ax[i] = i;
	if (ra < r)
		a = b_unsqueeze(c, a, ax, r - ra);
	if (rb < r)
		b = b_unsqueeze(c, b, ax, r - rb);
	if (!r) {
		out[0] = b_op2(c, "Mul", a, b);
		return 0;
	}
	struct ir_value *shape = b_op2(c, "Mul", b_op1(c, "Shape", a),
				       b_op1(c, "Shape", b));
	for (int i = 0; i < r; i++)
		ax[i] = 2 * i + 1;
	struct ir_value *a2 = b_unsqueeze(c, a, ax, r);
	for (int i = 0; i < r; i++)
		ax[i] = 2 * i;
	struct ir_value *b2 = b_unsqueeze(c, b, ax, r);
	out[0] = b_op2(c, "Reshape", b_op2(c, "Mul", a2, b2), shape);
	return 0;
}

/* vdot(self, other) of real 1-d tensors (MatMul's dot; integers:
 * ReduceSum of the products); linalg_vecdot(x, y, dim=-1): ReduceSum of
 * the products over dim */
static SYM(sym_vdot)
{
	enum ir_dtype dt = sym_result_type(c, n, 0, 1);
	struct ir_value *a = sym_operand(c, n, 0, dt), *b = sym_operand(c, n, 1, dt);
	int64_t dim = -1;
	if (!a || !b || dt == IR_DTYPE_UNDEFINED || b_rank(a) < 0 || b_rank(b) < 0)
		return lw_decline(c, "operands are not tensors of known dtype and rank");
	if (n->op == OP_aten_vdot) {
		if (b_rank(a) != 1 || b_rank(b) != 1)
			return lw_decline(c, "vdot of tensors that are not 1-d");
		if (b_is_float(dt)) {
			out[0] = b_op2(c, "MatMul", a, b);
			return 0;
		}
	} else if (NARGS > 2 && !lw_int(c, n, 2, &dim)) {
		return lw_decline(c, "dim not constant");
	}
	int r = b_rank(a) > b_rank(b) ? b_rank(a) : b_rank(b);
	dim = dim < 0 ? dim + r : dim;
	if (dim < 0 || dim >= r)
		return lw_decline(c, "dim out of range");
	out[0] = b_reduce(c, "ReduceSum", b_op2(c, "Mul", a, b), &dim, 1, 0);
	return 0;
}

/* linalg_vander(x, N=None): [.., n, N]: ones, then x, x*x, ... by
 * repeated multiplication, as torch's cumprod */
static SYM(sym_linalg_vander)
{
	struct ir_value *x = T(0), *p[65];
	int r = x ? b_rank(x) : -1;
	int64_t N;
	if (r < 1)
		return lw_decline(c, "x is not a tensor of known rank 1 or more");
	enum ir_dtype dt = b_dtype(x);
	if (dt == IR_DTYPE_BOOL || dt == IR_DTYPE_FLOAT16 ||
	    dt == IR_DTYPE_BFLOAT16 || dt == IR_DTYPE_UNDEFINED)
		return lw_decline(c, "an input dtype torch's vander refuses");
	if (NARGS > 1 && !lw_is_none(c, n, 1)) {
		if (!lw_int(c, n, 1, &N))
			return lw_decline(c, "N not constant");
	} else {
		N = b_dim_size(x, r - 1);
	}
	if (N <= 1 || N > 64)
		return lw_decline(c, "N not known, or not in 2..64");
	int64_t ax = r;
	struct ir_value *v = sym_fill_shape(c, b_op1(c, "Shape", x), 1, dt);
	for (int64_t k = 0; k < N; k++) {
		p[k] = b_unsqueeze(c, v, &ax, 1);
		if (k + 1 < N)
			v = b_op2(c, "Mul", v, x);
	}
	out[0] = b_concat(c, (int)N, p, r);
	return 0;
}

/* the chain mats[i..j] multiplied in the order s says (torch's
 * matrix_chain_multiplication) */
static struct ir_value *chain(struct lower_ctx *c, struct ir_value **mats,
			      int64_t s[][MAXR], int i, int j)
{
	if (i == j)
		return mats[i];
	return b_op2(c, "MatMul", chain(c, mats, s, i, (int)s[i][j]),
		     chain(c, mats, s, (int)s[i][j] + 1, j));
}

/* linalg_multi_dot(tensors): the first (1-d: a row) and last (1-d: a
 * column) with 2-d matrices between, multiplied in torch's order: two
 * directly, three by comparing (AB)C with A(BC), more by the matrix chain
 * order's dynamic program (fixed sizes needed) */
static SYM(sym_linalg_multi_dot)
{
	struct ir_value *m[MAXR];
	int64_t p[MAXR + 1], cost[MAXR][MAXR], s[MAXR][MAXR], z = 0, l1 = -1;
	int k = lw_list(c, n, 0, m, MAXR);
	if (k < 2)
		return lw_decline(c, "tensors is not a list of 2 or more known element-wise");
	int first1 = b_rank(m[0]) == 1, last1 = b_rank(m[k - 1]) == 1;
	for (int i = 0; i < k; i++) {
		int r = m[i] ? b_rank(m[i]) : -1;
		if (r != 2 && !(r == 1 && (i == 0 || i == k - 1)))
			return lw_decline(c, "a tensor that is not 2-d (1-d at the ends)");
	}
	if (first1)
		m[0] = b_unsqueeze(c, m[0], &z, 1);
	if (last1)
		m[k - 1] = b_unsqueeze(c, m[k - 1], &l1, 1);
	enum ir_dtype dt = b_dtype(m[0]);
	for (int i = 0; i < k; i++) {
		m[i] = b_cast(c, m[i], dt);
		p[i] = b_dim_size(m[i], 0);
		if (p[i] < 0 && k > 2)
			return lw_decline(c, "the matrices' sizes are not fixed");
	}
	p[k] = b_dim_size(m[k - 1], 1);
	if (p[k] < 0 && k > 2)
		return lw_decline(c, "the matrices' sizes are not fixed");
	struct ir_value *y;
	if (k == 2) {
		y = b_op2(c, "MatMul", m[0], m[1]);
	} else if (k == 3) {
		/* torch: cost_1 (AB)C, cost_2 A(BC); A(BC) when cost_1 is
		 * larger */
		int64_t a = p[0], bb = p[1], cc = p[2], d = p[3];
		if (a * cc * (bb + d) > bb * d * (a + cc))
			y = b_op2(c, "MatMul", m[0], b_op2(c, "MatMul", m[1], m[2]));
		else
			y = b_op2(c, "MatMul", b_op2(c, "MatMul", m[0], m[1]), m[2]);
	} else {
		for (int i = 0; i < k; i++)
			cost[i][i] = 0;
		for (int l = 1; l < k; l++)
			for (int i = 0; i < k - l; i++) {
				int j = i + l;
				cost[i][j] = INT64_MAX;
				for (int q = i; q < j; q++) {
					int64_t v = cost[i][q] + cost[q + 1][j] +
						    p[i] * p[q + 1] * p[j + 1];
					if (v < cost[i][j]) {
						cost[i][j] = v;
						s[i][j] = q;
					}
				}
			}
		y = chain(c, m, s, 0, k - 1);
	}
	if (last1)
		y = b_squeeze(c, y, &l1, 1);
	if (first1) {
		int64_t a0 = 0;
		y = b_squeeze(c, y, &a0, 1);
	}
	out[0] = y;
	return 0;
}

/* linalg_matrix_power / matrix_power(A [.., m, m], n): n known when
 * converting; 0 the identity of A's shape, 1 A, 2 A A, 3 (A A) A, more
 * torch's binary decomposition (z squared per bit, multiplied into the
 * result where the bit is 1); a negative n of A's inverse, as torch */
static SYM(sym_matrix_power)
{
	struct ir_value *a = T(0);
	int64_t p;
	int r = a ? b_rank(a) : -1;
	if (r < 2)
		return lw_decline(c, "A is not a tensor of known rank 2 or more");
	if (!lw_int(c, n, 1, &p))
		return lw_decline(c, "n not known when converting");
	if (p < 0) {
		/* torch: linalg_inv(A) ** -n (symbolic_linalg.c's, opset 11) */
		if (c->opset < 11)
			return lw_decline(c, "a negative n needs the inverse "
					  "(an ONNX Loop of LU): opset 11");
		if (!(a = sym_linalg_inverse(c, a, r)))
			return 1;
		p = -p;
	}
	enum ir_dtype dt = b_dtype(a);
	if (!p) {
		struct ir_value *sh = b_op1(c, "Shape", a);
		struct ir_value *sq = b_slice(c, sh, -2, INT64_MAX, 0, 1);
		struct ir_value *eye = b_op1(c, "EyeLike", sym_fill_shape(c, sq, 0, dt));
		out[0] = b_op2(c, "Expand", eye, sh);
		return 0;
	}
	if (p <= 3) {
		struct ir_value *y = a;
		if (p >= 2)
			y = b_op2(c, "MatMul", a, a);
		if (p == 3)
			y = b_op2(c, "MatMul", y, a);
		out[0] = p == 1 ? b_op1(c, "Identity", a) : y;
		return 0;
	}
	struct ir_value *z = NULL, *res = NULL;
	while (p > 0) {
		int bit = (int)(p % 2);
		p /= 2;
		z = z ? b_op2(c, "MatMul", z, z) : a;
		if (bit)
			res = res ? b_op2(c, "MatMul", res, z) : z;
	}
	out[0] = res;
	return 0;
}

/* combinations(self, r=2, with_replacement=False) of a 1-d self of fixed
 * length: Gather of the constant index rows (itertools' order) */
static SYM(sym_combinations)
{
	struct ir_value *x = T(0);
	int64_t r = 2, rep = 0;
	if (!x || b_rank(x) != 1 || b_dim_size(x, 0) < 0)
		return lw_decline(c, "self is not a 1-d tensor of fixed length");
	if ((NARGS > 1 && !lw_int(c, n, 1, &r)) ||
	    (NARGS > 2 && !lw_int(c, n, 2, &rep)))
		return lw_decline(c, "r or with_replacement not constant");
	if (r < 0 || r > 64)
		return lw_decline(c, "r out of range");
	int64_t m = b_dim_size(x, 0), cap = 1 << 20;
	int64_t k = combos_fill(m, r, (int)rep, NULL, cap);
	if (k > cap)
		return lw_decline(c, "too many combinations");
	struct ir_value *none = b_slice(c, x, 0, 0, 0, 1);
	if (!k) {
		int64_t shp[2] = { 0, r };
		out[0] = r ? b_op2(c, "Reshape", none, b_const_i64s(c, shp, 2, 1))
			   : none;
		return 0;
	}
	int64_t *idx = malloc(sizeof(*idx) * (size_t)(k * r));
	if (!idx)
		return lw_decline(c, "out of memory");
	combos_fill(m, r, (int)rep, idx, k);
	int64_t dims[2] = { k, r };
	struct ir_value *iv = b_const_i64_shaped(c, idx, (int)(k * r), dims, 2);
	free(idx);
	struct ir_node *g = b_node(c, "Gather", 2, (struct ir_value *[]){ x, iv }, 1);
	b_attr_i(c, g, "axis", 0);
	out[0] = b_done(c, g);
	return 0;
}

/* narrow_copy(self, dim, start, length): Slice (a negative start counts
 * from the end of a fixed dim) */
static SYM(sym_narrow_copy)
{
	struct ir_value *x = T(0);
	int64_t dim, st, len;
	int r = x ? b_rank(x) : -1;
	if (r < 1)
		return lw_decline(c, "self is not a tensor of known rank 1 or more");
	if (!lw_int(c, n, 1, &dim) || !lw_int(c, n, 2, &st) ||
	    !lw_int(c, n, 3, &len))
		return lw_decline(c, "dim, start or length not constant");
	dim = dim < 0 ? dim + r : dim;
	if (dim < 0 || dim >= r || len < 0)
		return lw_decline(c, "dim out of range or a negative length");
	if (st < 0) {
		if (b_dim_size(x, dim) < 0)
			return lw_decline(c, "a negative start on a dim of unknown size");
		st += b_dim_size(x, dim);
	}
	out[0] = b_slice(c, x, st, st + len, dim, 1);
	return 0;
}

/* new_empty_strided(self, size, stride, dtype, ...): uninitialised in
 * torch, zeros here (in dtype, or self's) */
static SYM(sym_new_empty_strided)
{
	struct ir_value *x = T(0);
	int64_t sz[64], st;
	int k = lw_ints(c, n, 1, sz, 64, 0);
	if (!x || k < 0)
		return lw_decline(c, "size not constant");
	enum ir_dtype dt = b_dtype(x);
	if (NARGS > 3 && !lw_is_none(c, n, 3)) {
		if (!lw_int(c, n, 3, &st) || lw_torch_dtype(st) == IR_DTYPE_UNDEFINED)
			return lw_decline(c, "dtype not constant");
		dt = lw_torch_dtype(st);
	}
	if (dt == IR_DTYPE_UNDEFINED)
		return lw_decline(c, "self's dtype unknown");
	out[0] = sym_fill_shape(c, b_const_i64s(c, sz, k, 1), 0, dt);
	return 0;
}

/* as_strided_scatter(self, src, size, stride, storage_offset): self (as
 * its row-major storage, of fixed size) with the places the view reads
 * set to src's elements; where the view reads a place twice, the last
 * of src's elements in order (as copy_ writes them) */
static SYM(sym_as_strided_scatter)
{
	struct ir_value *x = T(0), *src = T(1);
	int64_t sz[64], st[64], off = 0, idx[64] = { 0 }, flat = -1;
	int ns = lw_ints(c, n, 2, sz, 64, 0), nst = lw_ints(c, n, 3, st, 64, 0);
	int r = x ? b_rank(x) : -1;
	if (r < 0 || !src || ns < 0 || nst != ns)
		return lw_decline(c, "size or stride not constant");
	if (NARGS > 4 && !lw_is_none(c, n, 4) && !lw_int(c, n, 4, &off))
		return lw_decline(c, "storage_offset not constant");
	int64_t cnt = 1, sn = 1;
	for (int i = 0; i < r; i++)
		cnt = b_dim_size(x, i) < 0 || cnt < 0 ? -1 : cnt * b_dim_size(x, i);
	for (int i = 0; i < ns; i++)
		sn *= sz[i];
	if (cnt < 0 || cnt > (1 << 24) || sn > (1 << 24))
		return lw_decline(c, "self's size is not fixed");
	/* last[p]: the last of src's elements written to place p */
	int64_t *last = malloc(sizeof(*last) * (size_t)(cnt + 1));
	int64_t *pi = malloc(sizeof(*pi) * (size_t)(cnt + 1));
	int64_t *si = malloc(sizeof(*si) * (size_t)(cnt + 1));
	if (!last || !pi || !si) {
		free(last); free(pi); free(si);
		return lw_decline(c, "out of memory");
	}
	for (int64_t q = 0; q < cnt; q++)
		last[q] = -1;
	for (int64_t e = 0; e < sn; e++) {
		int64_t q = off;
		for (int i = 0; i < ns; i++)
			q += idx[i] * st[i];
		if (q < 0 || q >= cnt) {
			free(last); free(pi); free(si);
			return lw_decline(c, "the view reaches past self's storage");
		}
		last[q] = e;
		for (int i = ns - 1; i >= 0; i--) {
			if (++idx[i] < sz[i])
				break;
			idx[i] = 0;
		}
	}
	int64_t k = 0;
	for (int64_t q = 0; q < cnt; q++)
		if (last[q] >= 0) {
			pi[k] = q;
			si[k++] = last[q];
		}
	struct ir_value *xf = b_op2(c, "Reshape", x, b_const_i64s(c, &flat, 1, 1));
	if (k) {
		struct ir_value *sf = b_op2(c, "Reshape", b_cast(c, src, b_dtype(x)),
					    b_const_i64s(c, &flat, 1, 1));
		struct ir_node *g = b_node(c, "Gather", 2, (struct ir_value *[]){
			sf, b_const_i64s(c, si, (int)k, 1) }, 1);
		b_attr_i(c, g, "axis", 0);
		struct ir_node *sc = b_node(c, "ScatterElements", 3,
			(struct ir_value *[]){ xf, b_const_i64s(c, pi, (int)k, 1),
					       b_done(c, g) }, 1);
		b_attr_i(c, sc, "axis", 0);
		xf = b_done(c, sc);
	}
	free(last); free(pi); free(si);
	out[0] = b_op2(c, "Reshape", xf, b_op1(c, "Shape", x));
	return 0;
}

static const struct symbolic entries[] = {
	{ OP_aten_kron, 0, 0, SYM_PRIO_BASE, sym_kron },
	{ OP_aten_vdot, 0, 0, SYM_PRIO_BASE, sym_vdot },
	{ OP_aten_linalg_vecdot, 0, 0, SYM_PRIO_BASE, sym_vdot },
	{ OP_aten_linalg_vander, 9, 0, SYM_PRIO_BASE, sym_linalg_vander },
	{ OP_aten_linalg_multi_dot, 0, 0, SYM_PRIO_BASE, sym_linalg_multi_dot },
	{ OP_aten_linalg_matrix_power, 9, 0, SYM_PRIO_BASE, sym_matrix_power },
	{ OP_aten_matrix_power, 9, 0, SYM_PRIO_BASE, sym_matrix_power },
	{ OP_aten_combinations, 0, 0, SYM_PRIO_BASE, sym_combinations },
	{ OP_aten_narrow_copy, 0, 0, SYM_PRIO_BASE, sym_narrow_copy },
	{ OP_aten_new_empty_strided, 9, 0, SYM_PRIO_BASE, sym_new_empty_strided },
	{ OP_aten_as_strided_scatter, 11, 0, SYM_PRIO_BASE, sym_as_strided_scatter },
};

const struct symbolic_table symbolic_products_table = {
	entries, sizeof(entries) / sizeof(entries[0])
};

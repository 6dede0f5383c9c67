/*
 * symbolic_reduce.c - more of issue 14's long tail of reductions:
 * nansum, nanmean, sum_to_size, trapezoid, trapz, cumulative_trapezoid
 * and renorm.  Each is an exact ONNX decomposition of torch 1.13's
 * definition (ATen/native: ReduceOps.cpp's nansum, nanmean and renorm,
 * ExpandUtils' sum_to, Integration.cpp) or declines with the reason.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "symbolic_common.h"

#define T(i) lw_tensor(c, n, (i))
#define NARGS ((int)n->ninputs)

/* nansum / nanmean(self, dim=None, keepdim=False, *, dtype=None): NaNs
 * replaced by 0 before the sum; nanmean divides by the count of the
 * others (0 / 0: NaN, as torch); integers sum as Long */
static SYM(sym_nansum)
{
	struct ir_value *x = T(0);
	int64_t axes[64], keep = 0, st;
	int k = 0, mean = n->op == OP_aten_nanmean;
	if (!x || b_dtype(x) == IR_DTYPE_UNDEFINED || b_rank(x) < 0)
		return lw_decline(c, "the input is not a tensor of known dtype and rank");
	if (sym_red_args(c, n, 1, 2, axes, &k, &keep))
		return 1;
	enum ir_dtype dt = b_is_float(b_dtype(x)) ? b_dtype(x) : IR_DTYPE_INT64;
	if (NARGS > 3 && !lw_is_none(c, n, 3)) {
		if (!lw_int(c, n, 3, &st) || lw_torch_dtype(st) == IR_DTYPE_UNDEFINED)
			return lw_decline(c, "dtype not constant");
		dt = lw_torch_dtype(st);
	}
	if (mean && !b_is_float(dt))
		return lw_decline(c, "nanmean of a tensor that is not float");
	if (!b_rank(x))
		k = 0;
	struct ir_value *num = NULL;
	if (b_is_float(b_dtype(x))) {
		num = b_op1(c, "Not", b_op1(c, "IsNaN", x));
		x = b_op3(c, "Where", num, x,
			  b_const_scalar(c, 0, b_dtype(x), 0));
	}
	x = b_cast(c, x, dt);
	struct ir_value *s = b_reduce(c, "ReduceSum", x, axes, k, (int)keep);
	if (mean)
		s = b_op2(c, "Div", s, b_reduce(c, "ReduceSum",
			  b_cast(c, num, dt), axes, k, (int)keep));
	out[0] = s;
	return 0;
}

/* sum_to_size(self, size): summed (keepdims) over the dims where size
 * has 1 and over self's leading dims, then shaped as size; a sum of
 * integers is Long */
static SYM(sym_sum_to_size)
{
	struct ir_value *x = T(0);
	int64_t sz[64], axes[64];
	int r = x ? b_rank(x) : -1, k = lw_ints(c, n, 1, sz, 64, 0), na = 0;
	if (r < 0 || r > 64)
		return lw_decline(c, "the input's rank is unknown");
	if (k < 0 || k > r)
		return lw_decline(c, "size is not a constant list of at most the input's rank");
	for (int i = 0; i < r; i++) {
		int64_t have = b_dim_size(x, i);
		if (i < r - k || (sz[i - (r - k)] == 1 && have != 1))
			axes[na++] = i;
	}
	if (!na) {
		out[0] = b_op1(c, "Identity", x);
		return 0;
	}
	if (!b_is_float(b_dtype(x)))
		x = b_cast(c, x, IR_DTYPE_INT64);
	out[0] = b_op2(c, "Reshape", b_reduce(c, "ReduceSum", x, axes, na, 1),
		       b_const_i64s(c, sz, k, 1));
	return 0;
}

/* trapezoid / trapz / cumulative_trapezoid(y, x, dim) and (y, dx, dim)
 * as torch's Integration.cpp: with x, dx = x[1:] - x[:-1] along dim (a
 * 1-d x laid along dim, a shorter one with leading 1s), the sum (cumsum)
 * of dx * (y[1:] + y[:-1]) halved; with a number dx, (sum(y) - (y[0] +
 * y[-1]) * 0.5) * dx, and the cumsum of dx / 2 * (y[1:] + y[:-1]).
 * Integers are computed in Float. */
static SYM(sym_trapezoid)
{
	struct ir_value *y = T(0), *x = NULL;
	int r = y ? b_rank(y) : -1, cum = n->op == OP_aten_cumulative_trapezoid;
	int64_t dim = -1;
	double dx = 1;
	if (r < 1 || r > 64)
		return lw_decline(c, "y is not a tensor of known rank");
	if (NARGS > 2 && !lw_int(c, n, 2, &dim))
		return lw_decline(c, "dim not constant");
	dim = dim < 0 ? dim + r : dim;
	if (dim < 0 || dim >= r)
		return lw_decline(c, "dim out of range");
	if (NARGS > 1 && !lw_is_none(c, n, 1) && !lw_float(c, n, 1, &dx)) {
		x = T(1);
		if (!x || b_rank(x) < 1 || b_rank(x) > r)
			return lw_decline(c, "x is not a tensor of rank 1 to y's");
	}
	enum ir_dtype dt = x ? lw_promote(b_dtype(y), b_dtype(x)) : b_dtype(y);
	if (dt == IR_DTYPE_BOOL || b_dtype(y) == IR_DTYPE_BOOL)
		return lw_decline(c, "a bool input (torch refuses it)");
	if (!b_is_float(dt))
		dt = IR_DTYPE_FLOAT;
	y = b_cast(c, y, dt);
	int64_t len = b_dim_size(y, dim);
	if (len == 0 && !cum) {
		/* no samples: zeros (the empty sum) */
		out[0] = b_reduce(c, "ReduceSum", y, &dim, 1, 0);
		return 0;
	}
	if (cum && c->opset < 11)
		return lw_decline(c, "CumSum needs opset 11");
	struct ir_value *s = b_op2(c, "Add",
				   b_slice(c, y, 1, INT64_MAX, dim, 1),
				   b_slice(c, y, 0, -1, dim, 1));
	struct ir_value *v;
	if (x) {
		int xr = b_rank(x);
		x = b_cast(c, x, dt);
		if (xr == 1) {
			int64_t shp[64];
			for (int i = 0; i < r; i++)
				shp[i] = i == dim ? -1 : 1;
			x = b_op2(c, "Reshape", x, b_const_i64s(c, shp, r, 1));
		} else if (xr < r) {
			int64_t lead[64];
			for (int i = 0; i < r - xr; i++)
				lead[i] = i;
			x = b_unsqueeze(c, x, lead, r - xr);
		}
		struct ir_value *d = b_op2(c, "Sub",
					   b_slice(c, x, 1, INT64_MAX, dim, 1),
					   b_slice(c, x, 0, -1, dim, 1));
		v = b_op2(c, "Mul", d, s);
	} else if (cum) {
		v = b_op2(c, "Mul", b_const_scalar(c, dx / 2, dt, 0), s);
	} else {
		struct ir_value *ends = b_op2(c, "Add",
			b_slice(c, y, 0, 1, dim, 1),
			b_slice(c, y, -1, INT64_MAX, dim, 1));
		v = b_op2(c, "Sub", b_reduce(c, "ReduceSum", y, &dim, 1, 1),
			  b_op2(c, "Mul", ends, b_const_scalar(c, 0.5, dt, 0)));
		out[0] = b_squeeze(c, b_op2(c, "Mul", v,
				   b_const_scalar(c, dx, dt, 0)), &dim, 1);
		return 0;
	}
	if (cum) {
		struct ir_node *cs = b_node(c, "CumSum", 2, (struct ir_value *[]){
			v, b_const_i64(c, dim) }, 1);
		v = b_done(c, cs);
	} else {
		v = b_reduce(c, "ReduceSum", v, &dim, 1, 0);
	}
	out[0] = x ? b_op2(c, "Div", v, b_const_scalar(c, 2, dt, 0)) : v;
	return 0;
}

/* renorm(self, p, dim, maxnorm): self times maxnorm / (norm + 1e-7)
 * where the p-norm of its slice along dim exceeds maxnorm, else 1
 * (torch's renorm_scale_factor) */
static SYM(sym_renorm)
{
	struct ir_value *x = T(0);
	int r = x ? b_rank(x) : -1;
	int64_t dim, axes[64];
	double p, mx;
	if (r < 2 || r > 64 || !b_is_float(b_dtype(x)))
		return lw_decline(c, "the input is not a float tensor of known rank 2 or more");
	if (!lw_float(c, n, 1, &p) || !lw_int(c, n, 2, &dim) ||
	    !lw_float(c, n, 3, &mx))
		return lw_decline(c, "p, dim or maxnorm not constant");
	dim = dim < 0 ? dim + r : dim;
	if (dim < 0 || dim >= r)
		return lw_decline(c, "dim out of range");
	int k = 0;
	for (int i = 0; i < r; i++)
		if (i != dim)
			axes[k++] = i;
	enum ir_dtype dt = b_dtype(x);
	struct ir_value *nm = sym_pnorm(c, x, p, axes, k, 1);
	struct ir_value *mxv = b_const_scalar(c, mx, dt, 0);
	struct ir_value *f = b_op3(c, "Where", b_op2(c, "Greater", nm, mxv),
		b_op2(c, "Div", mxv, b_op2(c, "Add", nm,
					   b_const_scalar(c, 1e-7, dt, 0))),
		b_const_scalar(c, 1, dt, 0));
	out[0] = b_op2(c, "Mul", x, f);
	return 0;
}

static const struct symbolic entries[] = {
	{ OP_aten_nansum, 9, 0, SYM_PRIO_BASE, sym_nansum },
	{ OP_aten_nanmean, 9, 0, SYM_PRIO_BASE, sym_nansum },
	{ OP_aten_sum_to_size, 0, 0, SYM_PRIO_BASE, sym_sum_to_size },
	{ OP_aten_trapezoid, 0, 0, SYM_PRIO_BASE, sym_trapezoid },
	{ OP_aten_trapz, 0, 0, SYM_PRIO_BASE, sym_trapezoid },
	{ OP_aten_cumulative_trapezoid, 11, 0, SYM_PRIO_BASE, sym_trapezoid },
	{ OP_aten_renorm, 9, 0, SYM_PRIO_BASE, sym_renorm },
};

const struct symbolic_table symbolic_reduce_table = {
	entries, sizeof(entries) / sizeof(entries[0])
};

/*
 * random.c - the random draws the symbolics make (rand, randn, normal,
 * bernoulli, multinomial, rrelu): ONNX's random nodes (RandomUniform,
 * RandomNormal and their *Like forms) up to opset 21.  Their version 22
 * (bfloat16 added) is the only one a model of opset 22 or above may use,
 * and ONNX Runtime 1.30 has no kernel for it (nor for Bernoulli-22 and
 * Multinomial-22: "Could not find an implementation"), so from 22 a draw
 * is built from the one random node it does run there: Dropout in
 * training mode, whose mask is a fair coin per element at ratio 0.5.
 *
 * A uniform draw of a dtype with D significant bits (float 24, double 53,
 * half 11, bfloat16 8) is D coins weighted 2^-1 .. 2^-D and summed: every
 * multiple of 2^-D in [0, 1) with the same chance, which is what torch's
 * uniform_ draws (D random bits times 2^-D, at::uniform_real_distribution)
 * and RandomUniform's [0, 1).  The sum is exact in any order (each partial
 * sum has at most D significant bits).  A normal draw is Box-Muller of two
 * such uniforms, as torch's CPU normal_ (normal_fill: radius
 * sqrt(-2 log(1 - u1)), angle 2 pi u2).  docs/opsets.md has the
 * measurements.
 */
#include <math.h>

#include "lower_int.h"
#include "symbolic_common.h"

/* random nodes up to this opset; the coin form above */
#define RANDOM_NODES_LAST 21

static int coin_bits(enum ir_dtype dt)
{
	switch (dt) {
	case IR_DTYPE_DOUBLE: return 53;
	case IR_DTYPE_FLOAT16: return 11;
	case IR_DTYPE_BFLOAT16: return 8;
	default: return 24;
	}
}

/* Dropout in training mode at ratio 0.5 (its mask output). */
static struct ir_node *coin_dropout(struct lower_ctx *c, struct ir_value *x,
				    enum ir_dtype cd)
{
	struct ir_value *in[3] = { x, b_const_scalar(c, 0.5, cd, 0),
				   b_const_bool(c, 1) };
	struct ir_node *d = b_node(c, "Dropout", 3, in, 2);
	b_done(c, d);
	return d;
}

/* The input of the coins: of the shape `shape` (1-d Long) with a last
 * dim of bits, dtype cd.  Its values do not matter (Dropout's mask does
 * not read them): a 0-d one expanded, through a Dropout first so that
 * fold, which folds an Expand of constants, does not write a tensor bits
 * times the draw's size into the model (Dropout is never folded). */
static struct ir_value *coin_source(struct lower_ctx *c,
				    struct ir_value *shape, int bits,
				    enum ir_dtype cd)
{
	int64_t kb = bits;
	struct ir_value *cat[2] = { shape, b_const_i64s(c, &kb, 1, 1) };
	struct ir_value *cn = b_concat(c, 2, cat, 0);
	struct ir_node *one = coin_dropout(c, b_const_scalar(c, 1, cd, 0), cd);
	return b_op2(c, "Expand", one->outputs[0], cn);
}

/* A uniform [0, 1) of dtype cd (Float or Double) from the coins of wide
 * (coin_source, last dim bits), of wide's shape less that dim. */
static struct ir_value *coin_uniform(struct lower_ctx *c,
				     struct ir_value *wide, int bits,
				     enum ir_dtype cd)
{
	int64_t kb = bits, last = -1;
	double w[53];
	for (int i = 0; i < bits; i++)
		w[i] = ldexp(1.0, -(i + 1));
	struct ir_value *coins = b_cast(c, coin_dropout(c, wide, cd)->outputs[1],
					cd);
	struct ir_value *wv = b_const_reals(c, w, &kb, 1, cd);
	return b_reduce(c, "ReduceSum", b_op2(c, "Mul", coins, wv), &last, 1,
			0);
}

/* The random node of opsets up to 21. */
static struct ir_value *random_node(struct lower_ctx *c, int normal,
				    struct ir_value *like,
				    struct ir_value *shape,
				    const int64_t *dims, int k,
				    enum ir_dtype dt, double a, double b)
{
	const char *op = normal ? "RandomNormal" : "RandomUniform";
	if (shape)
		like = sym_fill_shape(c, shape, 0, dt);
	struct ir_node *r;
	if (like) {
		r = b_node(c, normal ? "RandomNormalLike" : "RandomUniformLike",
			   1, &like, 1);
	} else {
		r = b_node(c, op, 0, NULL, 1);
		b_attr_ints(c, r, "shape", dims, k);
	}
	if (normal ? a != 0 : a != 0 || b != 1) {
		b_attr_f(c, r, normal ? "mean" : "low", a);
		b_attr_f(c, r, normal ? "scale" : "high", b);
	}
	if (dt != IR_DTYPE_UNDEFINED || !like)
		b_attr_i(c, r, "dtype", dt);
	return b_done(c, r);
}

struct ir_value *b_random(struct lower_ctx *c, int normal,
			  struct ir_value *like, struct ir_value *shape,
			  const int64_t *dims, int k, enum ir_dtype dt,
			  double a, double b)
{
	if (c->opset <= RANDOM_NODES_LAST)
		return random_node(c, normal, like, shape, dims, k, dt, a, b);
	if (dt == IR_DTYPE_UNDEFINED && !like)
		dt = IR_DTYPE_FLOAT;
	enum ir_dtype cd = dt == IR_DTYPE_DOUBLE ? dt : IR_DTYPE_FLOAT;
	int bits = coin_bits(dt);
	if (like)
		shape = b_op1(c, "Shape", like);
	else if (!shape)
		shape = b_const_i64s(c, dims, k, 1);
	struct ir_value *wide = coin_source(c, shape, bits, cd);
	struct ir_value *u = coin_uniform(c, wide, bits, cd), *r;
	if (normal) {
		/* u1 = 1 - u in (0, 1], so that the log is finite */
		struct ir_value *u1 = b_op2(c, "Sub",
					    b_const_scalar(c, 1, cd, 0), u);
		struct ir_value *u2 = coin_uniform(c, wide, bits, cd);
		struct ir_value *rad = b_op1(c, "Sqrt", b_op2(c, "Mul",
				b_const_scalar(c, -2, cd, 0),
				b_op1(c, "Log", u1)));
		struct ir_value *th = b_op2(c, "Mul",
				b_const_scalar(c, 2 * M_PI, cd, 0), u2);
		r = b_op2(c, "Mul", rad, b_op1(c, "Cos", th));
		if (b != 1)
			r = b_op2(c, "Mul", r, b_const_scalar(c, b, cd, 0));
		if (a != 0)
			r = b_op2(c, "Add", r, b_const_scalar(c, a, cd, 0));
	} else {
		r = u;
		if (b - a != 1)
			r = b_op2(c, "Mul", r, b_const_scalar(c, b - a, cd, 0));
		if (a != 0)
			r = b_op2(c, "Add", r, b_const_scalar(c, a, cd, 0));
	}
	if (dt == IR_DTYPE_UNDEFINED && like)
		return b_op2(c, "CastLike", r, like); /* like's own dtype */
	return b_cast(c, r, dt);
}

int b_random_nodes(const struct lower_ctx *c)
{
	return c->opset <= RANDOM_NODES_LAST;
}

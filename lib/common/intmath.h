/*
 * intmath.h - int64 arithmetic with torch's scalar semantics and no
 * undefined behaviour, shared by the stages that evaluate TorchScript ints
 * (script's passes, trace's interpreter, lower's and fold's constant
 * folding).
 *
 * torch computes scalar ints in C++ int64_t on two's-complement CPUs:
 * +, -, *, unary - and abs wrap modulo 2^64 (abs(INT64_MIN) and
 * -INT64_MIN are INT64_MIN in torch 1.13, checked with
 * torch.tensor([-2**63]).abs() and its negation).  We compute the same
 * wrapped values through uint64_t, where C defines them.
 *
 * INT64_MIN // -1 and INT64_MIN % -1 have no defined torch result: torch
 * 1.13 dies with SIGFPE on both (scalar and tensor).  i64_floordiv and
 * i64_mod report them (and division by zero) by returning -1, and the
 * callers refuse with a line.
 */
#ifndef PT2ONNX_INTMATH_H
#define PT2ONNX_INTMATH_H

#include <stdint.h>

static inline int64_t i64_wrap_add(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a + (uint64_t)b);
}

static inline int64_t i64_wrap_sub(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a - (uint64_t)b);
}

static inline int64_t i64_wrap_mul(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a * (uint64_t)b);
}

static inline int64_t i64_wrap_neg(int64_t a)
{
	return (int64_t)(0 - (uint64_t)a);
}

static inline int64_t i64_wrap_abs(int64_t a)
{
	return a < 0 ? i64_wrap_neg(a) : a;
}

/* Python's a // b (rounds toward minus infinity) into *q: 0, or -1 when b
 * is 0 or the quotient does not fit (INT64_MIN // -1). */
static inline int i64_floordiv(int64_t a, int64_t b, int64_t *q)
{
	if (b == 0 || (a == INT64_MIN && b == -1))
		return -1;
	*q = a / b;
	if (a % b != 0 && ((a < 0) != (b < 0)))
		(*q)--;
	return 0;
}

/* Python's a % b (sign of b) into *m: 0, or -1 when b is 0 or a is
 * INT64_MIN and b is -1 (torch has no result there, see above). */
static inline int i64_mod(int64_t a, int64_t b, int64_t *m)
{
	if (b == 0 || (a == INT64_MIN && b == -1))
		return -1;
	*m = a % b;
	if (*m != 0 && ((*m < 0) != (b < 0)))
		*m += b;
	return 0;
}

/* a ** e for e >= 0 by squaring into *p: 0, or -1 when it overflows
 * int64 (the caller then computes it in double, as torch's pow.int does:
 * TorchScript's int ** int is a float). */
static inline int i64_pow(int64_t a, int64_t e, int64_t *p)
{
	int64_t r = 1, b = a;

	while (e > 0) {
		if ((e & 1) && __builtin_mul_overflow(r, b, &r))
			return -1;
		e >>= 1;
		if (e && __builtin_mul_overflow(b, b, &b))
			return -1;
	}
	*p = r;
	return 0;
}

#endif

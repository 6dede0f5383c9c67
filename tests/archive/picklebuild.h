/*
 * picklebuild.h - writes pickles by hand, opcode by opcode, for the unit
 * tests (test_pickle.c, test_torch_archive.c): the opcode bytes are those of
 * pickletools' table, the helpers the sequences torch.jit.save's pickler
 * emits (pushInt, pushGlobal, pushStorageOfTensor, pushLiteralTensor).
 * Header-only, static functions; a pickle is at most 64 KiB.
 */
#ifndef PT2ONNX_PICKLEBUILD_H
#define PT2ONNX_PICKLEBUILD_H

#include <stdint.h>
#include <string.h>

struct pb {
	unsigned char buf[1 << 16];
	size_t len;
};

static inline void op(struct pb *p, int c)
{
	p->buf[p->len++] = (unsigned char)c;
}

static inline void raw(struct pb *p, const void *s, size_t n)
{
	memcpy(p->buf + p->len, s, n);
	p->len += n;
}

static inline void le(struct pb *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		op(p, (int)((v >> (8 * i)) & 0xff));
}

/* BINUNICODE 'X' */
static inline void str(struct pb *p, const char *s)
{
	op(p, 'X');
	le(p, strlen(s), 4);
	raw(p, s, strlen(s));
}

/* GLOBAL 'c' */
static inline void global(struct pb *p, const char *module, const char *name)
{
	op(p, 'c');
	raw(p, module, strlen(module));
	op(p, '\n');
	raw(p, name, strlen(name));
	op(p, '\n');
}

/* torch's pushInt: BININT1 'K', BININT2 'M', BININT 'J', LONG1 0x8a */
static inline void pint(struct pb *p, int64_t v)
{
	if (v >= 0 && v < 256) {
		op(p, 'K');
		le(p, (uint64_t)v, 1);
	} else if (v >= 0 && v < 65536) {
		op(p, 'M');
		le(p, (uint64_t)v, 2);
	} else if (v >= INT32_MIN && v <= INT32_MAX) {
		op(p, 'J');
		le(p, (uint64_t)v, 4);
	} else {
		op(p, 0x8a);
		op(p, 8);
		le(p, (uint64_t)v, 8);
	}
}

/* BINFLOAT 'G', big-endian */
static inline void pfloat(struct pb *p, double f)
{
	uint64_t bits;
	memcpy(&bits, &f, 8);
	op(p, 'G');
	for (int i = 7; i >= 0; i--)
		op(p, (int)((bits >> (8 * i)) & 0xff));
}

static inline void put(struct pb *p, int i) /* BINPUT 'q' */
{
	op(p, 'q');
	op(p, i);
}

static inline void get(struct pb *p, int i) /* BINGET 'h' */
{
	op(p, 'h');
	op(p, i);
}

/* MARK 'storage' torch.<T>Storage key location numel TUPLE BINPERSID */
static inline void storage(struct pb *p, const char *type, const char *key,
		    int64_t numel)
{
	op(p, '(');
	str(p, "storage");
	global(p, "torch", type);
	str(p, key);
	str(p, "cpu");
	pint(p, numel);
	op(p, 't');
	op(p, 'Q');
}

static inline void int_tuple(struct pb *p, const int64_t *v, int n)
{
	op(p, '(');
	for (int i = 0; i < n; i++)
		pint(p, v[i]);
	op(p, 't');
}

/* collections.OrderedDict() */
static inline void ordered_dict(struct pb *p)
{
	global(p, "collections", "OrderedDict");
	op(p, ')');
	op(p, 'R');
}

/* _rebuild_tensor_v2(<storage on the stack already pushed by fn>, ...) */
static inline void tensor_v2(struct pb *p, const char *type, const char *key,
		      int64_t numel, int64_t offset, const int64_t *sizes,
		      const int64_t *strides, int rank, int requires_grad)
{
	global(p, "torch._utils", "_rebuild_tensor_v2");
	op(p, '(');
	storage(p, type, key, numel);
	pint(p, offset);
	int_tuple(p, sizes, rank);
	int_tuple(p, strides, rank);
	op(p, requires_grad ? 0x88 : 0x89);
	ordered_dict(p);
	op(p, 't');
	op(p, 'R');
}

#endif

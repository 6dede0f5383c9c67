/*
 * pickle.h - a restricted unpickler for the pickles in TorchScript archives
 * (data.pkl, constants.pkl), turning them into a tree of values.
 *
 * Nothing is executed.  A GLOBAL names either a TorchScript class
 * (`__torch__.…`, becoming an object value) or one of a fixed set of torch
 * constructs that are interpreted here as data: tensors
 * (torch._utils._rebuild_tensor_v2, _rebuild_qtensor, _rebuild_parameter,
 * torch._tensor._rebuild_from_type_v2), typed lists and dicts
 * (torch.jit._pickle.build_intlist … restore_type_tag), collections.OrderedDict,
 * torch.device, builtins.complex, storage classes (torch.FloatStorage …),
 * quantization schemes and dtypes.  Any other global is refused with an
 * error naming it: this is the answer to torch.load's code-execution hole.
 *
 * Opcodes: protocol 2 as torch writes it, plus the protocol 3-5 basics
 * (SHORT_BINUNICODE, BINUNICODE8, BINBYTES*, MEMOIZE, FRAME, STACK_GLOBAL,
 * EMPTY_SET/ADDITEMS/FROZENSET, NEWOBJ_EX, LONG4).  Text-protocol opcodes
 * (INT, STRING, GET, PUT…) and PERSID are refused.
 *
 * Limits: the memo grows one slot at a time as torch's unpickler requires
 * (a BINPUT beyond the next free slot is an error), so memory is O(input).
 * The finished value graph is checked to be acyclic and at most
 * PICKLE_MAX_DEPTH deep; it may share nodes (memo references), so a walker
 * that can meet the same container twice should mark what it visited (each
 * container has a distinct `id`).  Every tensor's extent is checked against
 * its storage's element count.
 *
 * Ownership: every value, string and array is allocated in the arena passed
 * to pickle_load and lives until that arena is released.  Strings are
 * NUL-terminated copies (they may also hold NULs: use the length).
 */
#ifndef PT2ONNX_PICKLE_H
#define PT2ONNX_PICKLE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "arena.h"
#include "diag.h"
#include "ir.h"

#define PICKLE_MAX_DEPTH 512 /* nesting of containers in the result */
#define PICKLE_MAX_RANK 64   /* dimensions of a tensor */

enum pickle_kind {
	PICKLE_NONE = 0,
	PICKLE_BOOL,    /* u.b */
	PICKLE_INT,     /* u.i */
	PICKLE_FLOAT,   /* u.f */
	PICKLE_COMPLEX, /* u.c (builtins.complex) */
	PICKLE_STR,     /* u.s: UTF-8 as written, not validated */
	PICKLE_BYTES,   /* u.s */
	PICKLE_TUPLE,   /* u.seq */
	PICKLE_LIST,    /* u.seq; type_tag from build_*list/restore_type_tag */
	PICKLE_SET,     /* u.seq (sets and frozensets, in pickle order) */
	PICKLE_DICT,    /* u.dict, insertion order; type_tag as for LIST */
	PICKLE_GLOBAL,  /* u.global: a class or construct not (yet) applied */
	PICKLE_OBJECT,  /* u.object: an instance of a TorchScript class */
	PICKLE_TENSOR,  /* u.tensor */
	PICKLE_STORAGE, /* u.storage: a persistent id ('storage', …) */
	PICKLE_DEVICE,  /* u.s: "cpu", "cuda:0" */
	PICKLE_KIND_COUNT
};

/* What a GLOBAL stands for. */
enum pickle_global_kind {
	PICKLE_G_CLASS = 0,      /* __torch__.…: a TorchScript class or enum */
	PICKLE_G_REBUILD_TENSOR, /* torch._utils._rebuild_tensor_v2 */
	PICKLE_G_REBUILD_TENSOR_V3, /* torch._utils._rebuild_tensor_v3 */
	PICKLE_G_REBUILD_QTENSOR, /* torch._utils._rebuild_qtensor */
	PICKLE_G_REBUILD_PARAMETER, /* torch._utils._rebuild_parameter */
	PICKLE_G_REBUILD_FROM_TYPE, /* torch._tensor._rebuild_from_type_v2 */
	PICKLE_G_BUILD_LIST,     /* torch.jit._pickle.build_{int,tensor,…}list */
	PICKLE_G_RESTORE_TYPE_TAG, /* torch.jit._pickle.restore_type_tag */
	PICKLE_G_ORDERED_DICT,   /* collections.OrderedDict */
	PICKLE_G_DEVICE,         /* torch.device */
	PICKLE_G_COMPLEX,        /* builtins.complex */
	PICKLE_G_STORAGE_TYPE,   /* torch.FloatStorage …: dtype, elem_size */
	PICKLE_G_QSCHEME,        /* torch.per_tensor_affine …: qscheme */
	PICKLE_G_DTYPE,          /* torch.float32 …: dtype, elem_size */
	PICKLE_G_TENSOR_TYPE,    /* torch.Tensor, torch.nn.parameter.Parameter */
};

enum pickle_qscheme {
	PICKLE_QSCHEME_NONE = 0,            /* not quantized */
	PICKLE_QSCHEME_PER_TENSOR_AFFINE,
	PICKLE_QSCHEME_PER_CHANNEL_AFFINE,
	PICKLE_QSCHEME_PER_TENSOR_SYMMETRIC,
	PICKLE_QSCHEME_PER_CHANNEL_SYMMETRIC,
	PICKLE_QSCHEME_PER_CHANNEL_AFFINE_FLOAT_QPARAMS,
};

struct pickle_value;

struct pickle_global {
	const char *module;          /* "torch._utils" */
	const char *name;            /* "_rebuild_tensor_v2" */
	enum pickle_global_kind kind;
	const char *type_name;       /* STORAGE_TYPE, DTYPE: torch's name
					("Float", "QInt8"); BUILD_LIST: the
					list type ("List[int]") */
	enum ir_dtype dtype;         /* STORAGE_TYPE, DTYPE; UNDEFINED when the
					IR has no such type (float8, qint4) */
	uint32_t elem_size;          /* STORAGE_TYPE, DTYPE: bytes/element */
	int quantized;               /* STORAGE_TYPE, DTYPE: QInt8 … */
	enum pickle_qscheme qscheme; /* QSCHEME */
};

/* A storage: one record of the archive, `<pickle dir>/<key>`. */
struct pickle_storage {
	const char *key;       /* "0" */
	const char *type_name; /* torch's scalar type name: "Float" */
	enum ir_dtype dtype;   /* UNDEFINED when the IR has no such type */
	uint32_t elem_size;    /* bytes per element (1 for untyped) */
	int quantized;         /* QInt8/QUInt8/QInt32/QUInt4x2 storages */
	const char *location;  /* "cpu", "cuda:0" */
	uint64_t numel;        /* elements; numel x elem_size bytes */
	/* Filled in by the archive layer (torch_archive.c), 0 before: */
	uint64_t file_offset;  /* of the storage's first byte in the file */
	const void *aux;       /* the zip entry holding the bytes */
};

struct pickle_tensor {
	struct pickle_storage *storage;
	enum ir_dtype dtype;    /* storage->dtype (v3: its dtype argument) */
	uint32_t elem_size;     /* bytes per element */
	int64_t offset;         /* storage offset, in elements, >= 0 */
	int rank;               /* <= PICKLE_MAX_RANK */
	int64_t *sizes;         /* rank entries, >= 0 */
	int64_t *strides;       /* rank entries, >= 0, in elements */
	uint64_t numel;         /* product of sizes */
	uint64_t extent;        /* elements from offset spanned: 0 when numel is
				   0, else 1 + sum (size-1) x stride;
				   (offset + extent) x elem_size fits the
				   storage's bytes (checked) */
	int requires_grad;
	int is_parameter;       /* rebuilt through _rebuild_parameter */
	int conj, neg;          /* math bits (2.x metadata dict) */
	enum pickle_qscheme qscheme; /* NONE unless _rebuild_qtensor */
	double q_scale;         /* PER_TENSOR_*: scale and zero point */
	int64_t q_zero_point;
	struct pickle_tensor *q_scales; /* PER_CHANNEL_*: per-channel tensors */
	struct pickle_tensor *q_zero_points;
	int64_t q_axis;
};

struct pickle_object {
	const char *class_name;     /* "__torch__.torch.nn.modules.conv.Conv2d" */
	struct pickle_value *state; /* what BUILD set: a DICT of attributes for
				       plain classes, any value for classes
				       with __getstate__ (often a TUPLE); the
				       enum's value for an enum; NULL before
				       BUILD */
	int is_enum;                /* made by REDUCE on the class: an enum */
};

struct pickle_value {
	enum pickle_kind kind;
	uint32_t id;              /* distinct per value, from 1: for visited
				     marks; < pickle_doc.nvalues + 1 */
	const char *type_tag;     /* LIST, DICT: "List[int]", "Dict[str,
				     Tensor]", or NULL when untagged */
	union {
		int b;
		int64_t i;
		double f;
		struct { double re, im; } c;
		struct { const char *data; size_t len; } s;
		struct {
			struct pickle_value **items;
			uint32_t n, cap;
		} seq;
		struct {
			struct pickle_value **keys, **vals;
			uint32_t n, cap;
		} dict;
		struct pickle_global *global;
		struct pickle_object *object;
		struct pickle_tensor *tensor;
		struct pickle_storage *storage;
	} u;
};

/* The result of one pickle_load. */
struct pickle_doc {
	struct pickle_value *root;          /* what STOP returned */
	struct pickle_storage **storages;   /* every persistent id, in order */
	uint32_t nstorages;
	struct pickle_tensor **tensors;     /* every tensor built, in order */
	uint32_t ntensors;
	uint32_t nvalues;                   /* ids used: 1 .. nvalues */
	int protocol;                       /* from PROTO, 0 if absent */
};

/* Unpickles buf[0..len) into doc, allocating in a.  name is used in
 * messages (as d->file for the call): "model.pt: m/data.pkl".  Returns 0,
 * or -1 after reporting one error naming the byte offset and opcode. */
int pickle_load(struct pickle_doc *doc, struct arena *a, const void *buf,
		size_t len, const char *name, struct diag *d);

/* "none", "bool", … for messages. */
const char *pickle_kind_name(enum pickle_kind kind);

/* The value stored under string key `key` in a DICT (the last one when a
 * key repeats), or NULL (also when v is NULL or not a dict). */
struct pickle_value *pickle_dict_get(const struct pickle_value *v,
				     const char *key);
/* An attribute of an OBJECT whose state is a DICT, or NULL. */
struct pickle_value *pickle_attr(const struct pickle_value *obj,
				 const char *name);
/* 1 when v is a STR equal to s. */
int pickle_str_eq(const struct pickle_value *v, const char *s);

/* Prints v as Python-like text, one line, for debugging and tests; strings
 * longer than 60 bytes and containers deeper than max_depth are elided. */
void pickle_print(FILE *fp, const struct pickle_value *v, int max_depth);

#endif

/*
 * pt2onnx_plugin.h - the public, versioned C ABI of `lower` plugins:
 * custom symbolics loaded at run time (`lower --plugin FILE.so`,
 * `pt2onnx --custom-symbolic FILE.so`), as torch's
 * register_custom_op_symbolic and 2.x's custom_translation_table, without
 * rebuilding pt2onnx.  docs/plugins.md walks through examples/plugins/.
 *
 * This header is all a plugin includes; it needs nothing else of pt2onnx
 * and links against nothing of it: every call goes through the function
 * table `api` that lower hands it.  A plugin exports two symbols:
 *
 *   uint32_t pt2onnx_plugin_abi(void);     returns PT2ONNX_PLUGIN_ABI
 *   int pt2onnx_plugin_register(const struct pt2onnx_api *api,
 *                               struct pt2onnx_registry *reg);
 *                                          calls api->register_symbolic()
 *                                          per op; 0, or non-zero to fail
 *
 * A registered symbolic serves op "ns::name" (as the IR spells it:
 * "mynamespace::myop", "aten::relu") at opsets from..to (0: no bound).  It
 * takes priority over pt2onnx's own symbolic for that op (torch's custom
 * symbolics override the built-in ones); of two plugins registering the
 * same op and opset, the one loaded last wins.
 *
 * The symbolic is called once per node of that op.  It reads the node's
 * inputs, builds ONNX nodes with make_node(), sets one value per output
 * with set_output(), and returns 0; or it returns decline(), and lower
 * goes on as if it had no row for this node (pt2onnx's symbolic, or the
 * "no symbolic" error).  Values (struct pt2onnx_value) live as long as
 * the export; pointers handed to the plugin must not be freed.
 *
 * dtypes are ONNX TensorProto.DataType numbers (1 float, 7 int64, ...).
 */
#ifndef PT2ONNX_PLUGIN_H
#define PT2ONNX_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The ABI version: raised on any incompatible change of this header. */
#define PT2ONNX_PLUGIN_ABI 1u

struct pt2onnx_ctx;      /* the node being lowered (opaque) */
struct pt2onnx_value;    /* an ONNX-level value (opaque) */
struct pt2onnx_registry; /* what register_symbolic adds to (opaque) */
struct pt2onnx_api;

typedef int (*pt2onnx_symbolic_fn)(const struct pt2onnx_api *api,
				   struct pt2onnx_ctx *ctx, void *user);

enum pt2onnx_attr_kind {
	PT2ONNX_ATTR_INT = 1,    /* i */
	PT2ONNX_ATTR_FLOAT = 2,  /* f */
	PT2ONNX_ATTR_STRING = 3, /* s (NUL-terminated) */
	PT2ONNX_ATTR_INTS = 4,   /* ints[0..count) */
	PT2ONNX_ATTR_FLOATS = 5, /* floats[0..count) */
};

/* One attribute of a node to make. */
struct pt2onnx_attr {
	const char *name;
	enum pt2onnx_attr_kind kind;
	int64_t i;
	double f;
	const char *s;
	const int64_t *ints;
	const double *floats;
	int count;
};

/* The function table lower hands a plugin.  `abi` is PT2ONNX_PLUGIN_ABI and
 * `size` sizeof(struct pt2onnx_api) of the lower that loaded it: a later
 * version of ABI 1 only appends members. */
struct pt2onnx_api {
	uint32_t abi;
	uint32_t size;

	/* at registration: op "ns::name", opsets from..to (0: no bound);
	 * 0, or -1 for a malformed name or range */
	int (*register_symbolic)(struct pt2onnx_registry *reg, const char *op,
				 int from, int to, pt2onnx_symbolic_fn fn,
				 void *user);

	/* --- the node being lowered --- */
	const char *(*op)(struct pt2onnx_ctx *ctx);   /* "ns::name" */
	int (*opset)(struct pt2onnx_ctx *ctx);        /* target opset */
	int (*num_inputs)(struct pt2onnx_ctx *ctx);
	int (*num_outputs)(struct pt2onnx_ctx *ctx);
	/* input i as an ONNX tensor value (a constant for a number or an
	 * int list), NULL when it is none of these */
	struct pt2onnx_value *(*input)(struct pt2onnx_ctx *ctx, int i);
	/* 1 when input i is None */
	int (*input_is_none)(struct pt2onnx_ctx *ctx, int i);
	/* a constant argument: 1 and *v, or 0 when not a constant of that
	 * kind; ints: the count read (at most max), -1 when not constant */
	int (*input_int)(struct pt2onnx_ctx *ctx, int i, int64_t *v);
	int (*input_float)(struct pt2onnx_ctx *ctx, int i, double *v);
	int (*input_ints)(struct pt2onnx_ctx *ctx, int i, int64_t *v, int max);
	const char *(*input_string)(struct pt2onnx_ctx *ctx, int i);

	/* --- values --- */
	int (*dtype)(const struct pt2onnx_value *v);   /* 0 unknown */
	int (*rank)(const struct pt2onnx_value *v);    /* -1 unknown */
	int64_t (*dim)(const struct pt2onnx_value *v, int d); /* -1 unknown */
	/* declares v's dtype (0: leave) and shape (rank -1: leave; dims[k]
	 * < 0: that dim unknown); for a custom-domain node's outputs, which
	 * lower cannot infer */
	void (*set_type)(struct pt2onnx_ctx *ctx, struct pt2onnx_value *v,
			 int dtype, int rank, const int64_t *dims);
	/* declares v's type to be like's: dtype and shape, named dynamic
	 * dims ("batch") included; the usual case of an elementwise op */
	void (*set_type_like)(struct pt2onnx_ctx *ctx, struct pt2onnx_value *v,
			      const struct pt2onnx_value *like);
	/* constants: a 1-d int64 tensor of n values; a 0-d scalar of dtype */
	struct pt2onnx_value *(*const_ints)(struct pt2onnx_ctx *ctx,
					    const int64_t *v, int n);
	struct pt2onnx_value *(*const_scalar)(struct pt2onnx_ctx *ctx,
					      double v, int dtype);

	/* --- building --- */
	/* a node op_type `op` of `domain` ("" or NULL: ONNX's own, whose
	 * outputs lower types by ONNX's rules; another domain: untyped
	 * until set_type) with nin inputs (NULL: an absent optional one),
	 * the attributes, and nout outputs stored in outs[0..nout).
	 * 0, or -1 (bad arguments) */
	int (*make_node)(struct pt2onnx_ctx *ctx, const char *domain,
			 const char *op, int nin,
			 struct pt2onnx_value *const *ins,
			 const struct pt2onnx_attr *attrs, int nattrs,
			 int nout, struct pt2onnx_value **outs);
	/* output i of the node being lowered is v: 0, or -1 */
	int (*set_output)(struct pt2onnx_ctx *ctx, int i,
			  struct pt2onnx_value *v);
	/* returns 1, the symbolic's value for "not this node": why is
	 * reported if nothing else lowers it */
	int (*decline)(struct pt2onnx_ctx *ctx, const char *why);
};

/* What a plugin exports. */
uint32_t pt2onnx_plugin_abi(void);
int pt2onnx_plugin_register(const struct pt2onnx_api *api,
			    struct pt2onnx_registry *reg);

#ifdef __cplusplus
}
#endif

#endif

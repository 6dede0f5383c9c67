/*
 * ir.h - the in-memory form of pt2onnx's IR, shared by every stage.
 *
 * One graph per stream.  A graph owns an arena: every node, value, type,
 * attribute and string hangs off it and is freed at once by ir_graph_free().
 * Weight bytes are not in the arena unless they came inline: a weight that
 * refers into a file (the .pt archive) stays a reference, and a stage that
 * does not compute on it passes the reference on without reading it.
 *
 * The same structures hold aten-level graphs (what `script` and `trace`
 * write: aten::, prim::, typed Python values, nested blocks) and ONNX-level
 * graphs (what `lower` writes: onnx:: and custom domains, tensors and
 * sequences, subgraphs as graph attributes).  docs/ir.md is the reference for
 * both the binary (msgpack) and the text form.
 *
 * Ownership: everything reachable from a graph belongs to it.  Functions
 * that take a `const char *` copy the string into the arena unless they say
 * otherwise.  Pointers stay valid until ir_graph_free().
 */
#ifndef PT2ONNX_IR_H
#define PT2ONNX_IR_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "arena.h"
#include "aten_op.h"
#include "diag.h"

#define IR_FORMAT_MAJOR 1 /* readers reject other majors */
#define IR_FORMAT_MINOR 0 /* readers accept any minor, passing unknowns on */

/* Element types.  Numbered as ONNX's TensorProto.DataType so that the ONNX
 * writer and reader need no table. */
enum ir_dtype {
	IR_DTYPE_UNDEFINED = 0,
	IR_DTYPE_FLOAT = 1,
	IR_DTYPE_UINT8 = 2,
	IR_DTYPE_INT8 = 3,
	IR_DTYPE_UINT16 = 4,
	IR_DTYPE_INT16 = 5,
	IR_DTYPE_INT32 = 6,
	IR_DTYPE_INT64 = 7,
	IR_DTYPE_STRING = 8,
	IR_DTYPE_BOOL = 9,
	IR_DTYPE_FLOAT16 = 10,
	IR_DTYPE_DOUBLE = 11,
	IR_DTYPE_UINT32 = 12,
	IR_DTYPE_UINT64 = 13,
	IR_DTYPE_COMPLEX64 = 14,
	IR_DTYPE_COMPLEX128 = 15,
	IR_DTYPE_BFLOAT16 = 16,
	IR_DTYPE_COUNT
};

/* Bytes per element, 0 for UNDEFINED and STRING. */
size_t ir_dtype_size(enum ir_dtype dt);
/* torch's name as printed in verbose graphs ("Float", "Long", "Char"...);
 * "Tensor" for UNDEFINED.  Never NULL. */
const char *ir_dtype_torch_name(enum ir_dtype dt);
/* ONNX's name ("float", "int64"...). Never NULL. */
const char *ir_dtype_onnx_name(enum ir_dtype dt);
/* The short name of --input specs ("f32", "i64", "bool"...), NULL for a
 * dtype that has none; and its inverse (len bytes of name), UNDEFINED
 * when the name is not one. */
const char *ir_dtype_spec_name(enum ir_dtype dt);
enum ir_dtype ir_dtype_from_spec(const char *name, size_t len);
/* The .npy type code ("f4", "i8", "b1"; no byte-order character), NULL
 * for a dtype with none; and the dtype of a .npy 'descr' ("<f4", "|u1"):
 * UNDEFINED unless it is little-endian (or one byte) and in the table. */
const char *ir_dtype_npy_code(enum ir_dtype dt);
enum ir_dtype ir_dtype_from_npy(const char *descr);
/* Inverse of ir_dtype_torch_name; also accepts the ONNX names.
 * Returns -1 when the name is unknown. */
int ir_dtype_from_name(const char *name, size_t len);

/* One dimension of a tensor shape. */
enum ir_dim_kind {
	IR_DIM_UNKNOWN = 0, /* nothing known: printed "*" */
	IR_DIM_FIXED,       /* value */
	IR_DIM_SYMBOL,      /* symbol: a named dynamic axis ("batch") */
};

struct ir_dim {
	enum ir_dim_kind kind;
	int64_t value;      /* IR_DIM_FIXED: the size (>= 0) */
	const char *symbol; /* IR_DIM_SYMBOL: the name; NULL otherwise */
};

/* Types of values.  Tensors carry dtype and shape; the rest are the
 * TorchScript value types an aten-level graph needs.  An ONNX sequence is
 * IR_TYPE_LIST of tensors; an ONNX optional is IR_TYPE_OPTIONAL. */
enum ir_type_kind {
	IR_TYPE_UNKNOWN = 0, /* not inferred yet ("Any") */
	IR_TYPE_TENSOR,
	IR_TYPE_INT,
	IR_TYPE_FLOAT,
	IR_TYPE_BOOL,
	IR_TYPE_STR,
	IR_TYPE_NONE,
	IR_TYPE_DEVICE,
	IR_TYPE_LIST,     /* elems[0] */
	IR_TYPE_TUPLE,    /* elems[0..nelems) */
	IR_TYPE_OPTIONAL, /* elems[0] */
	IR_TYPE_DICT,     /* elems[0] key, elems[1] value */
	IR_TYPE_CLASS,    /* name: a TorchScript class ("__torch__.Net") */
	IR_TYPE_COUNT
};

struct ir_type {
	enum ir_type_kind kind;
	enum ir_dtype dtype;    /* TENSOR: element type, UNDEFINED if unknown */
	int rank;               /* TENSOR: number of dims, -1 if unknown */
	struct ir_dim *dims;    /* TENSOR: rank entries */
	struct ir_type **elems; /* LIST, TUPLE, OPTIONAL, DICT */
	uint32_t nelems;
	const char *name;       /* CLASS: qualified name */
};

/* A value: produced by one node output, a block parameter or a graph input,
 * or a weight.  Names are unique in a graph (all blocks together). */
struct ir_value {
	const char *name;      /* never NULL, never empty */
	struct ir_type *type;  /* never NULL; kind UNKNOWN when not known */
	struct ir_node *producer; /* the node that defines it, NULL otherwise */
	struct ir_weight *weight; /* set when the value is a weight */
	uint32_t uses;         /* scratch counter for passes, not serialised */
	void *aux;             /* scratch pointer for passes, not serialised */
};

enum ir_attr_kind {
	IR_ATTR_INT = 0,   /* i */
	IR_ATTR_FLOAT,     /* f (a double: ONNX narrows to float on emit) */
	IR_ATTR_STRING,    /* s (bytes, may hold NULs: see len) */
	IR_ATTR_TENSOR,    /* t */
	IR_ATTR_GRAPH,     /* g: a subgraph, an ONNX If/Loop/Scan body */
	IR_ATTR_INTS,
	IR_ATTR_FLOATS,
	IR_ATTR_STRINGS,
	IR_ATTR_TENSORS,
	IR_ATTR_GRAPHS,
	IR_ATTR_RAW,       /* a kind this version does not know: u.raw is
			      the whole attribute map as it came ({"n": name,
			      "k": kind, "v": value, ...}, its "n" equal to
			      name), written back unchanged */
	IR_ATTR_COUNT
};

struct ir_tensor; /* below */
struct ir_block;  /* below */

struct ir_bytes {
	const char *data;
	size_t len;
};

struct ir_attr {
	const char *name;
	enum ir_attr_kind kind;
	uint32_t count; /* list kinds: number of entries */
	union {
		int64_t i;
		double f;
		struct ir_bytes s;
		struct ir_tensor *t;
		struct ir_block *g;
		int64_t *ints;
		double *floats;
		struct ir_bytes *strings;
		struct ir_tensor **tensors;
		struct ir_block **graphs;
		struct ir_bytes raw; /* RAW: one msgpack object, verbatim */
	} u;
};

/* Tensor data: inline bytes, or a reference into a file that stays there.
 * Inline data is little-endian and contiguous, row-major; STRING tensors
 * hold `nstrings` ir_bytes instead. */
enum ir_data_kind {
	IR_DATA_INLINE = 0,
	IR_DATA_REF,
};

struct ir_data_ref {
	const char *file;  /* path as the producer wrote it; relative paths are
			      resolved against the reading process's cwd */
	uint64_t offset;   /* byte offset of element 0 in the file */
	uint64_t length;   /* bytes from offset that the tensor may touch */
	int64_t *strides;  /* in elements, rank entries; NULL: contiguous */
	double *scale;     /* a scaled view (fold's Conv + BatchNormalization,
			      onnx level, Float, contiguous, rank >= 1):
			      dims[0] factors, element [i, ...] is
			      (float)((double)x * scale[i]); NULL: none */
};

struct ir_tensor {
	enum ir_dtype dtype;
	int rank;
	int64_t *dims; /* rank entries, all fixed */
	enum ir_data_kind data_kind;
	struct ir_bytes bytes;    /* INLINE, non-STRING */
	struct ir_bytes *strings; /* INLINE, STRING: numel entries */
	struct ir_data_ref ref;   /* REF */
	const char *doc;          /* doc string, may be NULL */
};

/* Elements in a tensor (1 for rank 0). */
uint64_t ir_tensor_numel(const struct ir_tensor *t);

/* A weight: a named tensor at graph level (torch's parameters and buffers,
 * ONNX's initializers). Its value is `value`, whose type matches `tensor`. */
struct ir_weight {
	struct ir_value *value;
	struct ir_tensor *tensor;
	struct ir_weight *next;
	struct ir_bytes extra; /* msgpack map of unknown keys of its binary
				  record, len 0 if none */
};

/* A node.  Inputs may hold NULL: an omitted optional input (ONNX's empty
 * name).  `extra` holds map entries of a binary node record this version
 * does not know, written back unchanged. */
struct ir_node {
	const char *kind;   /* "domain::op": "aten::conv2d", "onnx::Conv" */
	enum aten_op op;    /* kind's registry id (aten_op.h); OP_NONE for
			       onnx:: and kinds the registry lacks.  Kind and
			       id change together: ir_node_set_kind() */
	const char *name;   /* node name (ONNX's NodeProto.name), may be NULL */
	struct ir_value **inputs;
	uint32_t ninputs;
	struct ir_value **outputs;
	uint32_t noutputs;
	struct ir_attr *attrs;
	uint32_t nattrs;
	struct ir_block **blocks; /* prim::If, prim::Loop bodies */
	uint32_t nblocks;
	const char *scope;  /* "ResNet/Sequential[layer1]/...", may be NULL */
	const char *source; /* "model.py:12:4", may be NULL */
	const char *doc;    /* doc string, may be NULL */
	struct ir_bytes extra; /* msgpack map of unknown keys, len 0 if none */
	struct ir_block *owner;
	struct ir_node *prev, *next;
};

/* A block: parameters, a list of nodes, returned values.  The graph's top
 * level is a block whose params are the graph inputs; subgraphs are blocks
 * owned by a node (as a nested block or through a graph attribute). */
struct ir_block {
	const char *name;         /* subgraph name (ONNX GraphProto.name), may
				     be NULL */
	struct ir_value **params;
	uint32_t nparams;
	struct ir_value **returns;
	uint32_t nreturns;
	struct ir_node *first, *last;
	struct ir_node *owner;    /* NULL for the top block */
	struct ir_weight *weights; /* subgraph initializers (ONNX), may be NULL;
				      the top block's are graph->weights */
};

enum ir_level {
	IR_LEVEL_ATEN = 0,
	IR_LEVEL_ONNX,
};

struct ir_opset {
	const char *domain; /* "" is the default ONNX domain */
	int64_t version;
};

struct ir_prop {
	const char *key, *value;
};

/* Where a record of unknown kind sat in the stream, so that it is written
 * back in place: among the records of `section`, after `index` of them
 * (the top-level nodes before it, for IR_RAW_NODES).  An index past the
 * end of its section (a pass removed nodes) puts it at the section's end. */
enum ir_raw_section {
	IR_RAW_HEAD = 0, /* after the header, before the "graph" record */
	IR_RAW_WEIGHTS,  /* after "graph", among the "weight" records */
	IR_RAW_INPUTS,
	IR_RAW_NODES,
	IR_RAW_OUTPUTS,  /* among the "output" records, before "end" */
};

/* A record of a kind this version does not know, kept verbatim. */
struct ir_raw_record {
	struct ir_bytes bytes; /* one msgpack object */
	struct ir_raw_record *next;
	enum ir_raw_section section; /* where it sat (zeroed: right after */
	uint32_t index;              /* the header) */
};

struct ir_graph {
	struct arena arena;
	enum ir_level level;
	const char *name;         /* graph name, may be NULL */
	const char *doc;          /* graph doc string, may be NULL */
	const char *producer;     /* the stage or tool that wrote it */
	struct ir_opset *opsets;  /* ONNX level: opset imports */
	uint32_t nopsets;
	struct ir_prop *props;    /* free-form metadata, passed through */
	uint32_t nprops;
	struct ir_block *top;     /* params = inputs, returns = outputs */
	struct ir_weight *weights, *weights_tail; /* in order of appearance */
	uint32_t nweights;
	struct ir_raw_record *unknown, *unknown_tail; /* passed through */
	struct ir_bytes header_extra; /* msgpack map: unknown header keys */
	struct ir_bytes extra;    /* msgpack map: unknown "graph" record keys */
	uint32_t next_id;         /* for ir_fresh_name */
	struct ir_value **vtab;   /* name -> value hash (open addressing) */
	uint32_t vcap, nvalues;
};

/* --- construction ------------------------------------------------------ */

/* A new empty graph with an empty top block; NULL when out of memory. */
struct ir_graph *ir_graph_new(enum ir_level level);
/* Frees the graph and everything in its arena.  NULL is a no-op. */
void ir_graph_free(struct ir_graph *g);

/* Arena helpers: never return NULL (they abort on out-of-memory, the one
 * failure the tools do not recover from). */
void *ir_alloc(struct ir_graph *g, size_t size);     /* zeroed */
char *ir_strdup(struct ir_graph *g, const char *s);  /* NULL -> NULL */
char *ir_strndup(struct ir_graph *g, const char *s, size_t n);
/* printf into the arena. */
char *ir_strfmt(struct ir_graph *g, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Types.  Constructors return arena objects. */
struct ir_type *ir_type_new(struct ir_graph *g, enum ir_type_kind kind);
struct ir_type *ir_type_tensor(struct ir_graph *g, enum ir_dtype dt, int rank,
			       const int64_t *dims /* rank fixed dims or NULL
						      for all unknown */);
struct ir_type *ir_type_copy(struct ir_graph *g, const struct ir_type *t);
/* t as an --input spec would write it: "f32[3,batch,?]", "Tensor" when
 * neither dtype nor rank is known; written to buf (size n), returned. */
const char *ir_type_spec(const struct ir_type *t, char *buf, size_t n);
/* Deep equality; returns 1 when equal. */
int ir_type_equal(const struct ir_type *a, const struct ir_type *b);
/* 1 when two tensors hold the same inline data of the same dtype and dims
 * (a REF or STRING tensor equals only itself). */
int ir_tensor_equal(const struct ir_tensor *a, const struct ir_tensor *b);
/* 1 when two attributes have the same name, kind and value (tensors by
 * ir_tensor_equal; graphs never). */
int ir_attr_equal(const struct ir_attr *a, const struct ir_attr *b);
/* Whether two dims are known to be the same: both fixed and equal, or the
 * same symbol.  An unknown dim is the same as nothing. */
int ir_dim_same(struct ir_dim a, struct ir_dim b);

/* A new value named `name` (copied), or a fresh numbered name when NULL.
 * The name must not be in use: callers check with ir_find_value. */
struct ir_value *ir_value_new(struct ir_graph *g, const char *name,
			      struct ir_type *type);
/* A name not yet used in the graph, "prefix" + number. */
const char *ir_fresh_name(struct ir_graph *g, const char *prefix);
/* The value named `name`, or NULL.  Looks through every block. */
struct ir_value *ir_find_value(struct ir_graph *g, const char *name);

/* Gives n another kind (a string that lives as long as the graph) and the
 * registry id that goes with it: the one way to rename a node. */
void ir_node_set_kind(struct ir_node *n, const char *kind);
/* A new node of `kind` with room for the given inputs and outputs (NULL
 * entries) appended to block b (NULL: not linked yet). */
struct ir_node *ir_node_new(struct ir_graph *g, struct ir_block *b,
			    const char *kind, uint32_t ninputs,
			    uint32_t noutputs);
/* Output i of node n becomes value v (v->producer is set). */
void ir_node_set_output(struct ir_node *n, uint32_t i, struct ir_value *v);
/* Attributes: the added attribute, for the caller to fill in. */
struct ir_attr *ir_node_add_attr(struct ir_graph *g, struct ir_node *n,
				 const char *name, enum ir_attr_kind kind);
struct ir_attr *ir_node_find_attr(const struct ir_node *n, const char *name);
struct ir_block *ir_node_add_block(struct ir_graph *g, struct ir_node *n);
/* Linking nodes into blocks. */
void ir_block_append(struct ir_block *b, struct ir_node *n);
void ir_block_insert_before(struct ir_node *pos, struct ir_node *n);
void ir_node_unlink(struct ir_node *n);

struct ir_block *ir_block_new(struct ir_graph *g);
void ir_block_add_param(struct ir_graph *g, struct ir_block *b,
			struct ir_value *v);
void ir_block_add_return(struct ir_graph *g, struct ir_block *b,
			 struct ir_value *v);

/* A weight named `name` with tensor t, appended to the graph (block NULL)
 * or to a subgraph block.  Returns the weight's value. */
struct ir_value *ir_add_weight(struct ir_graph *g, struct ir_block *b,
			       const char *name, struct ir_tensor *t);
/* Appends weight w (its next set to NULL) to the graph's list (block NULL
 * or the top block; counted in nweights) or to a subgraph block's: the
 * one way a weight joins a list. */
void ir_append_weight(struct ir_graph *g, struct ir_block *b,
		      struct ir_weight *w);
struct ir_tensor *ir_tensor_new(struct ir_graph *g, enum ir_dtype dt,
				int rank, const int64_t *dims);
/* Type of a tensor as a value type. */
struct ir_type *ir_tensor_type(struct ir_graph *g, const struct ir_tensor *t);

void ir_add_opset(struct ir_graph *g, const char *domain, int64_t version);
/* The version of `domain` imported, or -1. */
int64_t ir_opset_version(const struct ir_graph *g, const char *domain);
void ir_add_prop(struct ir_graph *g, const char *key, const char *value);

/* --- reading and writing ----------------------------------------------- */

/* A byte source: a FILE (pipe or file) read incrementally. */
struct ir_source {
	FILE *fp;
	const char *name; /* for messages: the path, or "<stdin>" */
};

/* Reads one whole graph from src, binary or text (told apart by the first
 * byte).  Returns NULL after reporting every problem to d.  A truncated
 * stream, an unknown major version, a wrong type, an undefined value: each
 * is an error naming the record (binary) or line (text). */
struct ir_graph *ir_read(struct ir_source *src, struct diag *d);

/* Binary form (ir_binary.c). */
struct ir_graph *ir_read_binary(struct ir_source *src, struct diag *d);
/* Writes g to fp as msgpack records.  Returns 0, or -1 after reporting. */
int ir_write_binary(const struct ir_graph *g, FILE *fp, struct diag *d);
/* Reads from memory (fuzzers, unit tests). */
struct ir_graph *ir_read_binary_mem(const void *buf, size_t len,
				    const char *name, struct diag *d);
/* Appends a record of unknown kind (len bytes, one msgpack map, copied) to
 * g->unknown at `section`/`index`.  Returns it. */
struct ir_raw_record *ir_add_raw_record(struct ir_graph *g, const void *bytes,
					size_t len,
					enum ir_raw_section section,
					uint32_t index);

/* Text form (ir_text.c), torch's verbose style. */
struct ir_graph *ir_read_text(struct ir_source *src, struct diag *d);
struct ir_graph *ir_read_text_mem(const char *buf, size_t len,
				  const char *name, struct diag *d);
int ir_write_text(const struct ir_graph *g, FILE *fp, struct diag *d);
/* The same, or with `brief` a summary for people (pt2onnx -v), not to be
 * read back: tensor data of more than 16 values (weights, constants) is
 * printed as "<N values, N bytes>" after its type (dtype and shape). */
int ir_write_text_as(const struct ir_graph *g, FILE *fp, int brief,
		     struct diag *d);

/* Writes binary, or text when `text` is set (a stage's -S). */
int ir_write(const struct ir_graph *g, FILE *fp, int text, struct diag *d);

/* Structural checks every reader runs: every input defined before use in
 * its block or an enclosing one, names unique, types present.  Returns the
 * number of problems reported. */
int ir_verify(const struct ir_graph *g, struct diag *d);

#endif

/*
 * onnx_read.h - reading .onnx files: the protobuf (ModelProto) and its
 * conversion to pt2onnx's ONNX-level IR.
 *
 * onnx_read_file() loads and unpacks a model with protobuf-c; the
 * ModelProto it returns is the caller's, freed with onnx_model_free().
 * From a plain file, the raw_data of tensors of 4 KiB and more point into
 * the file, mapped until onnx_model_free() (never copied: checking a model
 * of gigabytes takes megabytes); treat them as read-only.
 * onnx_to_ir() builds a new IR graph (the caller's, ir_graph_free()) from a
 * ModelProto without modifying it; the graph copies everything it keeps, so
 * the proto can be freed first.  Neither validates the model: that is
 * onnx_check_model() (onnx_check.h); onnx_to_ir() converts what it can of
 * an invalid model so that `check --print` can show it.
 *
 * How the model maps to the IR:
 *   - opset_import -> graph opsets; graph name and doc string -> graph's.
 *   - nodes -> "domain::op_type" with the default domain spelled "onnx"
 *     (onnx::Conv, com.example::Foo); NodeProto.name -> node name,
 *     doc_string -> node doc.  An empty input name is an absent input
 *     (NULL); trailing empty outputs are dropped, inner ones get fresh
 *     names.
 *   - graph inputs -> top block params, except those that are also
 *     initializers: they become weights only, and the property
 *     "onnx.initializers_as_inputs" is "1" when every initializer was also
 *     an input (torch's keep_initializers_as_inputs).
 *   - initializers -> weights: inline data (raw_data or the typed fields,
 *     converted to little-endian contiguous bytes) inline; external data
 *     (data_location EXTERNAL) as IR_DATA_REF references into the side file,
 *     resolved against the model's directory, with its offset and length.
 *   - value types from graph inputs, outputs and value_info.
 *   - GRAPH/GRAPHS attributes -> IR_ATTR_GRAPH(S) blocks (params = subgraph
 *     inputs, returns = outputs, subgraph initializers = block weights).
 *   - model fields as properties: "onnx.ir_version", "onnx.producer_name",
 *     "onnx.producer_version", "onnx.domain", "onnx.model_version",
 *     "onnx.doc_string", and each metadata_props entry as
 *     "onnx.metadata.KEY".
 *   - not representable, dropped with a warning: sparse initializers,
 *     SPARSE_TENSOR(S) and TYPE_PROTO(S) attributes, model-local functions,
 *     training_info.
 * Names that ONNX scoping lets repeat (a subgraph input shadowing an outer
 * value) or that an invalid model repeats are made unique ("x.1").
 */
#ifndef PT2ONNX_ONNX_READ_H
#define PT2ONNX_ONNX_READ_H

#include <stddef.h>

#include "diag.h"
#include "ir.h"
#include "onnx.pb-c.h"

/* Results of onnx_read_file and onnx_read_mem. */
enum onnx_read_status {
	ONNX_READ_OK = 0,
	ONNX_READ_IO = -1,        /* the file could not be opened or read */
	ONNX_READ_MALFORMED = -2, /* not a protobuf ModelProto (or empty) */
};

/* Message nesting deeper than this is refused before unpacking, as
 * protobuf's own parser does (its default recursion limit). */
#define ONNX_READ_MAX_DEPTH 100

/* Reads path ("-": standard input) and unpacks it into *out.  Returns
 * ONNX_READ_OK, or a negative status after reporting one line to d (the
 * file name comes from d->file). */
int onnx_read_file(const char *path, Onnx__ModelProto **out, struct diag *d);
/* The same from memory (fuzzers, tests). */
int onnx_read_mem(const void *buf, size_t len, Onnx__ModelProto **out,
		  struct diag *d);
/* Frees a model from onnx_read_*.  NULL is a no-op. */
void onnx_model_free(Onnx__ModelProto *m);

/* Converts m to a new ONNX-level IR graph.  `path` is the model's file
 * name, used to resolve external data (NULL or "-": the current
 * directory).  Never NULL: what cannot be converted is reported to d as a
 * warning and left out. */
struct ir_graph *onnx_to_ir(const Onnx__ModelProto *m, const char *path,
			    struct diag *d);

/* The directory part of path with its trailing '/', or "" (malloc'd). */
char *onnx_model_dir(const char *path);

/* 1 when path has a ".." component (ONNX external data locations must
 * not: they are relative to the model's directory and inside it). */
int onnx_path_has_dotdot(const char *path);

#endif

/*
 * onnx_write.h - an ONNX-level IR graph written out as an .onnx model
 * (ModelProto), what `emit` does and torch.onnx.export's last step.
 *
 * The model is written in one pass without ever being whole in memory:
 * the graph's structure (nodes, value infos, tensor metadata) is packed
 * with protobuf-c, the ModelProto and GraphProto levels around it are
 * written by hand with their lengths computed first, and each tensor's
 * bytes are copied from the file its weight refers to (or from the inline
 * IR data) in 1 MiB chunks.  Peak memory is therefore the graph's
 * metadata plus one buffer, whatever the size of the weights.
 *
 * What it reproduces of torch.onnx.export (torch 1.13 utils.py/export.cpp):
 * input/output names, dynamic axes in both of torch's forms,
 * keep_initializers_as_inputs (forced below opset 9), export_params=False,
 * custom opsets (unlisted custom domains at version 1), external data in
 * ONNX's layout (forced past protobuf's 2 GB limit), ir_version from the
 * opset, scoped node names (`/layer1/layer1.0/conv1/Conv`), producer and
 * doc strings.
 *
 * Ownership: struct onnx_write_options owns copies of every string put in
 * it by the parse functions; onnx_write_options_release() frees them.  The
 * graph is only read.
 */
#ifndef PT2ONNX_ONNX_WRITE_H
#define PT2ONNX_ONNX_WRITE_H

#include <stdint.h>

#include "diag.h"
#include "ir.h"

/* One dynamic axis: axis `axis` of the graph input or output `value`
 * named `name`.  `name` NULL means torch's default for the list form,
 * "<value>_dynamic_axes_<index + 1>", index being the axis's position in
 * the list given for that value. */
struct onnx_dyn_axis {
	char *value;    /* input or output name, after renaming */
	int64_t axis;   /* >= 0 */
	char *name;     /* dim_param, or NULL for the default name */
	uint32_t index; /* position in the list form (default names) */
};

struct onnx_custom_opset {
	char *domain;    /* never "" (the default domain is --opset's) */
	int64_t version; /* >= 1 */
};

/* The effect of every torch.onnx.export option that `emit` handles. */
struct onnx_write_options {
	char **input_names;       /* renames graph inputs, in order */
	uint32_t ninput_names;
	char **output_names;      /* renames graph outputs, in order */
	uint32_t noutput_names;
	struct onnx_dyn_axis *dyn_axes;
	uint32_t ndyn_axes;
	struct onnx_custom_opset *custom_opsets; /* override the IR's */
	uint32_t ncustom_opsets;
	int64_t opset;            /* default-domain opset when the IR has
				     none; 0: none given */
	int keep_initializers_as_inputs; /* also forced below opset 9 */
	int export_params;        /* 0: weights become graph inputs */
	int external_data;        /* 1: weights >= 1 KiB to a side file */
	char *external_data_file; /* its location relative to the model's
				     directory; NULL: "<model name>.data" */
	uint64_t max_model_size;  /* a model larger than this goes to
				     external data on its own (default
				     2 GiB - 1, protobuf's limit;
				     PT2ONNX_EXTERNAL_THRESHOLD overrides) */
	char *producer_name;      /* NULL: "pt2onnx" */
	char *producer_version;   /* NULL: PT2ONNX_VERSION */
	int strip_doc_string;     /* 1: no doc_string anywhere */
	int restrict_weights;     /* 1: read only the weight files
				     tensor_data_allowed() allows (emit) */
	char **weight_dirs;       /* its folders (real paths, malloc'd) */
	uint32_t nweight_dirs;
	char **function_types;    /* export_modules_as_functions: module
				     types ("Block", "pkg.mod.Block"; "*"
				     every type) whose instances become
				     local functions, nested
				     (onnx_functions.h); opset 15+ */
	uint32_t nfunction_types;
};

/* Defaults: export params, no renames, no external data, the 2 GB limit
 * (or PT2ONNX_EXTERNAL_THRESHOLD bytes when that is set). */
void onnx_write_options_init(struct onnx_write_options *o);
/* Adds a folder (or file) whose weights may be read under
 * restrict_weights, resolved to its real path: 0, or -1 after reporting
 * when it does not exist. */
int onnx_write_options_allow_weights(struct onnx_write_options *o,
				     const char *path, struct diag *d);
/* Frees what the parse functions stored; o can be initialised again. */
void onnx_write_options_release(struct onnx_write_options *o);

/* Option parsers, for the tools.  Each returns 0, or -1 after reporting
 * the syntax error to d (the caller exits with EXIT_USAGE).
 *
 * Names: "a,b,c" or a Python list '["a", "b"]'; appends to the list, so
 * the option can be repeated. */
int onnx_write_parse_names(char ***names, uint32_t *n, const char *spec,
			   struct diag *d);
/* Dynamic axes, appended:
 *   "x:0=batch,2=height;y:0=batch"   named axes
 *   "x:0,2"                          list form: x_dynamic_axes_1, _2
 *   '{"x": {0: "batch"}, "y": [0]}'  torch's Python dict, either form */
int onnx_write_parse_dynamic_axes(struct onnx_write_options *o,
				  const char *spec, struct diag *d);
/* "DOMAIN=VERSION" or '{"DOMAIN": VERSION, ...}', appended. */
int onnx_write_parse_custom_opset(struct onnx_write_options *o,
				  const char *spec, struct diag *d);

/* The ir_version ONNX requires for a default-domain opset (7-8 -> 3 ...
 * 23 -> 11), or -1 when the opset is outside 1..23. */
int64_t onnx_ir_version_for_opset(int64_t opset);

/* Writes g as an ONNX model to path ("-": standard output), atomically:
 * on any failure neither the model nor its external data file exists
 * afterwards (standard output excepted).  Returns 0, or after reporting
 * every problem to d, the exit code that fits (diag.h):
 *   EXIT_USAGE        an option names no input or output, or conflicts
 *   EXIT_BAD_INPUT    a weight file missing or shorter than its reference,
 *                     inline data of the wrong length, no opset
 *   EXIT_UNSUPPORTED  aten-level IR, an attribute of unknown kind, a type
 *                     ONNX cannot express
 *   EXIT_IO           the model or its data could not be written */
int onnx_write_model(const struct ir_graph *g,
		     const struct onnx_write_options *o, const char *path,
		     struct diag *d);

#endif

/*
 * lower.h - the `lower` stage: an aten-level graph (what `script` and
 * `trace` write, docs/ir.md "Conventions of the two levels") rewritten in
 * place into an ONNX-level graph for one opset, as torch.onnx.export's
 * symbolic lowering and scalar type analysis do.
 *
 * Ownership: lower_graph() rewrites g in place (new nodes and values in its
 * arena); weights are passed through untouched and never read, except
 * one-element weights (a traced archive's CONSTANTS.cN), whose few bytes
 * are read from their file into inline data so that they act as constants.
 */
#ifndef PT2ONNX_LOWER_H
#define PT2ONNX_LOWER_H

#include <stdio.h>

#include "ir.h"
#include "version.h"

#define LOWER_OPSET_MIN PT2ONNX_OPSET_MIN
#define LOWER_OPSET_MAX PT2ONNX_OPSET_MAX

/* torch.onnx.OperatorExportTypes */
enum lower_export_type {
	LOWER_EXPORT_ONNX = 0,        /* every op must convert, else exit 4 */
	LOWER_EXPORT_ONNX_ATEN,       /* every aten op as an ATen node */
	LOWER_EXPORT_ONNX_ATEN_FALLBACK, /* ATen node where no symbolic */
	LOWER_EXPORT_ONNX_FALLTHROUGH,   /* unconvertible ops left as they are */
};

/* torch.onnx.TrainingMode */
enum lower_training {
	LOWER_TRAINING_EVAL = 0,
	LOWER_TRAINING_TRAIN,
	LOWER_TRAINING_PRESERVE,
};

struct lower_plugins; /* symbolics loaded from plugins (plugin.c) */

struct lower_options {
	int opset;                        /* target default-domain opset */
	enum lower_export_type export_type;
	enum lower_training training;
	const struct lower_plugins *plugins; /* NULL: none */
};

/* Lowers g (level aten) to ONNX level at o->opset.  Returns an exit code
 * (EXIT_OK; EXIT_UNSUPPORTED after reporting every unconvertible op to d;
 * EXIT_BAD_INPUT for a graph that is not aten level or is malformed). */
int lower_graph(struct ir_graph *g, const struct lower_options *o,
		struct diag *d);

/* Prints "aten::op: 9 11 13 ..." for every op with a symbolic: the opsets
 * (LOWER_OPSET_MIN..MAX) at which it converts. */
void lower_list_ops(FILE *fp);

/* Plugins (pt2onnx_plugin.h, plugin.c): custom symbolics from .so files,
 * which take priority over the built-in ones.  lower_plugin_load() opens
 * file (a bare name is one in the current directory), checks its ABI
 * version and calls its register function: 0, or -1 after one line naming
 * the file (cannot load, a missing symbol, another ABI version, a failed
 * or empty registration).  The plugins' code stays loaded until
 * lower_plugins_free(). */
struct lower_plugins *lower_plugins_new(void);
int lower_plugin_load(struct lower_plugins *p, const char *file,
		      struct diag *d);
void lower_plugins_free(struct lower_plugins *p);

#endif

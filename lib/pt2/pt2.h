/*
 * pt2.h - the reader of torch.export archives (torch.export.save's .pt2):
 * the serialized ExportedProgram of models/<name>.json (schema
 * torch/_export/serde/schema.py, major version 8) turned into the same
 * aten-level IR that script and trace write (docs/ir.md).
 *
 * The archive is a zip under one root folder: models/<name>.json,
 * data/weights/<name>_weights_config.json with data/weights/weight_N,
 * data/constants/<name>_constants_config.json with its files,
 * data/sample_inputs (pickles, never read), archive_format, byteorder,
 * .data/version.  JSON is parsed by jansson (the Debian library); nothing in
 * the archive is executed.
 *
 * What the graph gets: the program's user inputs (their names kept) as the
 * graph inputs, parameters and buffers (named by their fully qualified
 * names) and lifted tensor constants as weights that refer into the archive
 * (a stored entry: no copy; a deflated one is read inline), one aten node
 * per call with every schema argument filled (defaults from
 * lib/aten/aten_schema.h), the user outputs as the graph outputs.  Dims
 * that are a symbol of the range constraints ("s77") become that symbol.
 * sym_size becomes aten::size, the _operator arithmetic on SymInts the int
 * operators, getitem an element of the list it picks from; assertions
 * (_assert_tensor_metadata, _assert_scalar, sym_constrain_range...) are
 * dropped; the higher-order cond becomes prim::If (its subgraphs the
 * blocks), while_loop prim::Loop, wrap_with_* are inlined.  Calls that cannot be converted (other
 * higher-order operators, unknown operators) are listed all at once in one
 * error (EXIT_UNSUPPORTED).
 *
 * Each node gets torch's scope ("ViTTiny/Conv2d[patch]", from the call's
 * nn_module_stack, so that emit names it "/patch/Conv" as torch does) and
 * the innermost frame of its stack_trace as its source.
 *
 * Errors go to the diag as one line naming the archive (d->file) and, for
 * the JSON, the entry and the line; every count, index and size in the
 * archive is checked before use.
 */
#ifndef PT2ONNX_PT2_H
#define PT2ONNX_PT2_H

#include "diag.h"
#include "ir.h"
#include "zip.h"

struct pt2_options {
	const char *model;    /* models/<model>.json; NULL: the only one */
	const char *ref_file; /* the path weight references name (the
				 archive's path as given) */
};

/* 1 when z holds a torch.export program (<root>/models/<name>.json). */
int pt2_probe(const struct zip *z);

/* Reads the program.  Returns the graph, or NULL with *code set
 * (EXIT_BAD_INPUT: malformed archive; EXIT_UNSUPPORTED: well-formed but
 * not convertible; EXIT_USAGE: --model names no model) after reporting. */
struct ir_graph *pt2_read(struct zip *z, const struct pt2_options *o,
			  struct diag *d, int *code);

#endif

/*
 * onnx_check.h - validating an ONNX model as onnx.checker.check_model
 * does (onnx/checker.cc and OpSchema::Verify of python3-onnx 1.12), with
 * every problem reported rather than the first.
 *
 * The checks, each reported as one line naming the graph, node, attribute
 * or tensor and the rule (`node "Conv_3" (Conv): input #0 'X' uses
 * undefined value "x2"`):
 *   model:  ir_version set and not newer than the schema table's IR
 *           version; opset_import present from IR 3 (absent below);
 *           metadata_props keys unique.
 *   graph:  named; inputs and outputs named, and in the main graph typed
 *           (tensors with elem_type and shape); input names unique;
 *           initializers named and unique (and graph inputs below IR 4);
 *           every node input defined before (this graph, an enclosing one,
 *           an initializer) unless empty; every node output defined once
 *           (SSA, no shadowing of outer values).
 *   node:   op_type set; inputs or outputs present; domain imported; the
 *           schema for (domain, op, opset) found in the built-in domains
 *           and not deprecated; input and output counts within the
 *           schema's bounds; empty names only for optional formals;
 *           attributes named, typed, holding one value field matching the
 *           type, known to the schema (or `__`-prefixed), of the schema's
 *           type, present when required, given once.  Subgraphs are checked
 *           recursively with the enclosing values in scope.  Experimental
 *           ops (ATen, Scale, ...) are skipped with a warning, as onnx does.
 *   tensor: data_type set and known; one data field (none when empty),
 *           the one its data_type uses; no raw_data for strings; external
 *           data with a location whose file exists.  Sparse tensors as
 *           onnx checks them (values rank 1, indices INT64, in range and
 *           sorted).
 *   functions (IR >= 8): named, with a domain, unique outputs and
 *           attributes, topologically sorted, SSA, opset imports compatible
 *           with the model's.
 * Stricter than onnx 1.12 (rules the ONNX IR spec states but the 1.12
 * checker does not enforce), marked "[strict]" in onnx_check.c:
 *   graph outputs are defined; opset_import lists each domain once;
 *   ir_version is not negative; a tensor's data_type is a known one even
 *   with raw_data; raw_data holds exactly element count x element size
 *   bytes and typed data fields exactly the element count; dims are not
 *   negative; external data locations are relative, free of "..", name a
 *   regular file, and offset + length lies inside it.
 */
#ifndef PT2ONNX_ONNX_CHECK_H
#define PT2ONNX_ONNX_CHECK_H

#include "diag.h"
#include "onnx.pb-c.h"

/* Checks m, reporting each problem to d as an error (and skipped
 * experimental ops as warnings).  `path` is the model file's name, whose
 * directory external data locations are resolved against (NULL or "-": the
 * current directory).  Returns the number of problems, 0 when the model is
 * valid.  m is not modified. */
int onnx_check_model(const Onnx__ModelProto *m, const char *path,
		     struct diag *d);

#endif

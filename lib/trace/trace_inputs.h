/*
 * trace_inputs.h - what `trace` makes of its --input specs before and after
 * compiling: the script compiler's view of them (dtype and shape), and
 * --dynamic-axes turned into named dims of the inputs they name.
 */
#ifndef PT2ONNX_TRACE_INPUTS_H
#define PT2ONNX_TRACE_INPUTS_H

#include "compile.h"
#include "onnx_write.h"
#include "trace.h"

/* The script inputs (n of them, *out malloc'd, each released with
 * script_input_release) for the arguments specs[0..n) (parsed with
 * INPUT_SPEC_RUN), whose --input texts are texts[0..n): a .npy's dtype
 * and shape come from its header, unknown when it cannot be read
 * (trace_run reports that).  0, or -1 after reporting. */
int trace_script_inputs(const struct input_spec *specs, char *const *texts,
			int n, struct script_input **out, struct diag *d);

/* Gives the inputs the axes of dyn->dyn_axes name, by forward's parameter
 * names (g's top block; positional inputs take the names in order, renamed
 * by --input-names), their symbols.  0, or -1 after reporting an axis
 * past an input's rank. */
int trace_apply_dynamic_axes(struct trace_input *in, int n,
			     const struct ir_graph *g,
			     const struct onnx_write_options *dyn,
			     struct diag *d);

#endif

/*
 * trace_inputs.c - trace's inputs for the script compiler and its
 * --dynamic-axes (see trace_inputs.h); moved from tools/tracer/trace.c,
 * with no limit on the number of inputs or parameters.
 */
#include "trace_inputs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int trace_script_inputs(const struct input_spec *specs, char *const *texts,
			int n, struct script_input **out, struct diag *d)
{
	struct script_input *sin = calloc((size_t)n + 1, sizeof(*sin));

	*out = sin;
	if (!sin)
		return diag_error(d, "out of memory");
	for (int i = 0; i < n; i++)
		if (script_input_from_spec(&specs[i], 1, texts[i], &sin[i], d))
			return -1;
	return 0;
}

/* Each input's parameter name (forward's; NULL when it has none) into
 * pname[0..n). */
static void param_names(const struct trace_input *in, int n,
			const struct ir_graph *g,
			const struct onnx_write_options *dyn,
			const char **pname, char *used)
{
	uint32_t np = g->top->nparams, pos = 0;

	for (int i = 0; i < n; i++) {
		pname[i] = in[i].name;
		for (uint32_t k = 0; in[i].name && k < np; k++)
			if (!strcmp(g->top->params[k]->name, in[i].name))
				used[k] = 1;
	}
	for (int i = 0; i < n; i++) {
		if (in[i].name)
			continue;
		while (pos < np && used[pos])
			pos++;
		if (pos < np) {
			pname[i] = g->top->params[pos]->name;
			used[pos] = 1;
		}
	}
	/* --input-names renames the graph inputs (forward's arguments) in
	 * order: the axes name them so */
	for (int i = 0; i < n; i++)
		for (uint32_t k = 0; pname[i] && k < np &&
				     k < dyn->ninput_names; k++)
			if (!strcmp(g->top->params[k]->name, pname[i])) {
				pname[i] = dyn->input_names[k];
				break;
			}
}

int trace_apply_dynamic_axes(struct trace_input *in, int n,
			     const struct ir_graph *g,
			     const struct onnx_write_options *dyn,
			     struct diag *d)
{
	const char **pname = calloc((size_t)n + 1, sizeof(*pname));
	char *used = calloc((size_t)g->top->nparams + 1, 1);
	int rc = 0;

	if (!pname || !used) {
		free(pname);
		free(used);
		return diag_error(d, "out of memory");
	}
	param_names(in, n, g, dyn, pname, used);
	for (uint32_t a = 0; a < dyn->ndyn_axes && !rc; a++) {
		const struct onnx_dyn_axis *x = &dyn->dyn_axes[a];
		char *sym;
		int i;

		for (i = 0; i < n; i++)
			if (pname[i] && !strcmp(pname[i], x->value))
				break;
		if (i == n)
			continue; /* an output, or not an input of ours */
		if (x->axis >= GPU_MAX_DIMS || (!in[i].npy &&
						x->axis >= in[i].rank)) {
			rc = diag_error(d, "--dynamic-axes: input '%s' has "
					"no axis %lld", x->value,
					(long long)x->axis);
			break;
		}
		if (x->name)
			sym = strdup(x->name);
		else if (asprintf(&sym, "%s_dynamic_axes_%u", x->value,
				  x->index + 1) < 0)
			sym = NULL;
		if (!sym) {
			rc = diag_error(d, "out of memory");
			break;
		}
		free((char *)in[i].symbols[x->axis]);
		in[i].symbols[x->axis] = sym;
	}
	free(pname);
	free(used);
	return rc;
}

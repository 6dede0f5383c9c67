/*
 * optable.c - finding the function that runs a node: the list of trace's
 * op tables in lookup order (the one place that order is written), and an
 * index from operator id to table row, built once, so that running a node
 * costs one array read instead of a name search.
 */
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>

#include "trace_int.h"

const struct trace_table trace_tables[] = {
	{ "trace_ops_prim", trace_ops_prim, TRACE_PRIM },
	{ "trace_ops_dict", trace_ops_dict, TRACE_PRIM },
	{ "trace_ops_scalar", trace_ops_scalar, TRACE_SCALAR },
	{ "trace_ops_tensor", trace_ops_tensor, TRACE_TENSOR },
	{ "trace_ops_shape", trace_ops_shape, TRACE_TENSOR },
	{ "trace_ops_view", trace_ops_view, TRACE_TENSOR },
	{ "trace_ops_index", trace_ops_index, TRACE_TENSOR },
	{ "trace_ops_index_host", trace_ops_index_host, TRACE_TENSOR },
	{ "trace_ops_sort", trace_ops_sort, TRACE_TENSOR },
	{ "trace_ops_detect", trace_ops_detect, TRACE_TENSOR },
	{ "trace_ops_im2col", trace_ops_im2col, TRACE_TENSOR },
	{ "trace_ops_nn", trace_ops_nn, TRACE_TENSOR },
	{ "trace_ops_math_host", trace_ops_math_host, TRACE_TENSOR },
	{ "trace_ops_stats_host", trace_ops_stats_host, TRACE_TENSOR },
	{ "trace_ops_hist_host", trace_ops_hist_host, TRACE_TENSOR },
	{ "trace_ops_fft_host", trace_ops_fft_host, TRACE_TENSOR },
	{ "trace_ops_reduce_host", trace_ops_reduce_host, TRACE_TENSOR },
	{ "trace_ops_products_host", trace_ops_products_host, TRACE_TENSOR },
	{ "trace_ops_special_host", trace_ops_special_host, TRACE_TENSOR },
	{ "trace_ops_linalg_host", trace_ops_linalg_host, TRACE_TENSOR },
	{ "trace_ops_linalg_orth_host", trace_ops_linalg_orth_host, TRACE_TENSOR },
	{ NULL, NULL, TRACE_PRIM },
};

/* index[g][op]: the first row of op in group g, in trace_tables' order */
static const struct trace_op *index_by_id[TRACE_NGROUPS][OP_COUNT];
static pthread_once_t index_once = PTHREAD_ONCE_INIT;

static void build_index(void)
{
	const struct trace_table *t;
	const struct trace_op *r;

	for (t = trace_tables; t->name; t++)
		for (r = t->rows; r->op != OP_NONE; r++)
			if (r->op > OP_NONE && r->op < OP_COUNT &&
			    !index_by_id[t->group][r->op])
				index_by_id[t->group][r->op] = r;
}

const struct trace_op *trace_group_op(enum aten_op op, enum trace_group g)
{
	if (op <= OP_NONE || op >= OP_COUNT || g >= TRACE_NGROUPS)
		return NULL;
	pthread_once(&index_once, build_index);
	return index_by_id[g][op];
}

const struct trace_op *trace_find_op(enum aten_op op, int has_tensor,
				     enum trace_group *group)
{
	const struct trace_op *r;

	*group = TRACE_PRIM;
	if ((r = trace_group_op(op, TRACE_PRIM)))
		return r;
	*group = TRACE_SCALAR;
	if (!has_tensor && (r = trace_group_op(op, TRACE_SCALAR)))
		return r;
	*group = TRACE_TENSOR;
	if ((r = trace_group_op(op, TRACE_TENSOR)))
		return r;
	/* a scalar op reached with a tensor input (int + 0-d tensor) */
	*group = TRACE_SCALAR;
	return has_tensor ? trace_group_op(op, TRACE_SCALAR) : NULL;
}

/* One line per operator some table runs, sorted by name (the registry's
 * ids are in name order): "aten::relu: cpu cuda".
 *
 * The rule for "cuda": the CUDA backend (lib/gpu/cuda*.cu, built where
 * nvcc is found) runs it.  An op's function reaches a device only through
 * struct gpu_backend's primitives (and host copies through
 * upload/download), and cuda.cu's cu_init sets every one of them, so no op
 * lacks a CUDA kernel; the list says so whether or not this binary has the
 * backend built in (README's table, made from it, must not depend on the
 * build).  What a kernel refuses (a dtype, a rank: gpu_set_error) is known
 * only when it runs, on either backend, so it is not listed. */
void trace_list_ops(FILE *fp)
{
	int op, g;

	for (op = OP_NONE + 1; op < OP_COUNT; op++) {
		for (g = 0; g < TRACE_NGROUPS; g++)
			if (trace_group_op((enum aten_op)op,
					   (enum trace_group)g))
				break;
		if (g == TRACE_NGROUPS)
			continue;
		fprintf(fp, "%s: cpu cuda\n", aten_op_name((enum aten_op)op));
	}
}

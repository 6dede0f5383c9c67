/*
 * trace.h - the `trace` stage's engine: run an aten-level graph (what
 * script_compile() makes of an archive) once on real tensors and record
 * what ran, as torch.jit.trace does.
 *
 * The interpreter walks the graph node by node: prim::If takes the branch
 * its condition selects, prim::Loop runs its iterations, every aten op runs
 * on the backend's kernels (lib/gpu) and is recorded into a new, flat
 * aten-level graph with concrete dtypes and shapes.  Python-level values
 * (ints, floats, bools, lists of them) become constants, except what
 * derives from aten::size, which stays ops so that dynamic axes work.
 * Weights stay references into the archive.
 */
#ifndef PT2ONNX_TRACE_H
#define PT2ONNX_TRACE_H

#include <stdio.h>

#include "diag.h"
#include "gpu.h"
#include "ir.h"

struct trace_input {
	const char *name;      /* NULL: positional */
	const char *npy;       /* a .npy file to read, or NULL */
	enum ir_dtype dtype;   /* else: dtype and shape to fill */
	int rank;
	int64_t dims[GPU_MAX_DIMS];
	const char *symbols[GPU_MAX_DIMS]; /* named dims (dynamic axes) or NULL */
};

struct trace_options {
	const struct gpu_backend *backend;
	const struct trace_input *inputs;
	int ninputs;
	uint64_t seed;            /* for filled inputs */
	const char *save_outputs; /* directory for out<i>.npy, or NULL */
	const char *save_inputs;  /* directory for in<i>.npy (forward's
				     inputs in order, as run), or NULL */
	int list_missing;         /* report every op without a kernel */
	int randn;                /* filled float inputs: standard normal
				     (default uniform in [-1, 1)) */
	int64_t max_steps;        /* ops run at most; 0: LIMIT_TRACE_STEPS
				     (lib/common/rlimits.h) */
};

/* Runs graph g (aten level, from script_compile) and returns the recorded
 * graph, or NULL after reporting (one line per problem) with *code set:
 * EXIT_USAGE inputs that do not fit the signature, EXIT_UNSUPPORTED an op
 * without a kernel, EXIT_BAD_INPUT a model that raises, EXIT_IO a
 * weight that cannot be read. */
struct ir_graph *trace_run(struct ir_graph *g, const struct trace_options *o,
			   struct diag *d, int *code);

/* --list-missing: reports every distinct op of g (all blocks) that has no
 * implementation, with the scope of its first use.  Returns how many. */
int trace_list_missing(const struct ir_graph *g, struct diag *d);

/* --list-ops: every operator trace can run, sorted, one a line with the
 * backends that run it: "aten::relu: cpu cuda" (optable.c says when an op
 * is listed with cuda). */
void trace_list_ops(FILE *fp);

/* Parses an --input SPEC as script's (`x=f32[1,3,224,224]`, `f32[2,3]`,
 * `x=in.npy`, dims as numbers; a symbol `batch:4` names a dynamic axis of
 * size 4).  Returns 0 or -1 after reporting. */
int trace_parse_input(const char *spec, struct trace_input *in,
		      struct diag *d);

/* The graph inputs of an argument's spec is (parsed with INPUT_SPEC_RUN):
 * its tensors, a tuple's or list's each named INPUT_SPEC_ITEM_NAME after
 * the argument (positional when it is), appended to (*arr)[0..*n); a
 * number, bool or None has none (the script compiler makes it a
 * constant).  0, or -1 after reporting. */
struct input_spec;
int trace_input_leaves(const struct input_spec *is, struct trace_input **arr,
		       int *n, struct diag *d);

/* Frees what trace_parse_input allocated. */
void trace_input_release(struct trace_input *in);
/* n pseudo-random values from `seed` for a tensor of dtype dt: floats
 * uniform in [-1, 1) (standard normal when `normal`), ints in [0, 10),
 * bools 0 or 1. */
void trace_fill_random(double *out, int64_t n, enum ir_dtype dt, int normal,
		       uint64_t seed);

/* .npy reading and writing (npy.c): little-endian, C order, the dtypes of
 * ir_dtype that numpy has. */
struct gpu_tensor *npy_read(const char *path, const struct gpu_backend *be,
			    struct diag *d);
int npy_write(const char *path, const struct gpu_tensor *t, struct diag *d);

#endif

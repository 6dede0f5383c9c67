/*
 * trace.c - the `trace` stage: runs a TorchScript archive's forward method
 * once on example inputs (on the GPU when there is one) and writes the
 * aten ops that ran as flat aten-level IR, as torch.jit.trace records them.
 *
 * Thin: options, torch_archive_open() + script_compile() (the `script`
 * stage's compiler gives the graph to run), trace_run() (lib/trace), then
 * tool_write_ir() so that -o appears whole or not at all.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compile.h"
#include "diag.h"
#include "gpu.h"
#include "ir.h"
#include "onnx_write.h"
#include "tool_io.h"
#include "tool_opts.h"
#include "torch_archive.h"
#include "trace.h"
#include "input_spec.h"
#include "trace_inputs.h"
#include "version.h"

static const char usage_text[] =
"usage: trace [OPTIONS] MODEL.pt\n"
"\n"
"Runs the forward method of a TorchScript archive once on example inputs\n"
"and writes the aten ops that ran as aten-level IR (docs/ir.md), as\n"
"torch.jit.trace records them: ifs resolved, loops unrolled, every value\n"
"with its dtype and shape, tensor sizes kept as aten::size ops; weights\n"
"stay references into MODEL.pt.\n"
"\n"
"  -i, --input SPEC        an input of forward (repeatable; positional in\n"
"                          forward's order, or by name):\n"
"                            x=f32[1,3,224,224]  random values (--seed)\n"
"                            f32[1,3,224,224]    positional\n"
"                            x=input.npy         the values of a .npy file\n"
"                            x=f32[batch:4,3,8,8] a dynamic axis of size 4\n"
"                            hx=(f32[1,2,3],h.npy) a tuple, xs=[A,B] a list:\n"
"                                                its tensors inputs hx.0, hx.1\n"
"                            n=3, f=0.5, b=true, y=none  constants\n"
"                          dtypes f32 f64 f16 bf16 i64 i32 i16 i8 u8 bool;\n"
"                          random floats are uniform in [-1, 1), ints in\n"
"                          [0, 10)\n"
"      --randn             random floats standard normal instead\n"
"      --seed N            seed of the random inputs (default 0)\n"
"      --dynamic-axes SPEC mark input axes dynamic (repeatable):\n"
"                          'x:0=batch;y:0=batch', 'x:0,2' or torch's dict\n"
"                          '{\"x\": {0: \"batch\"}}'; names of outputs are\n"
"                          ignored (emit takes them)\n"
"      --input-names LIST  the names --dynamic-axes gives the graph\n"
"                          inputs, in order (as emit --input-names\n"
"                          renames them)\n"
"      --device DEV        cuda, cpu or auto (default auto: the CPU for\n"
"                          a model whose work CUDA start-up would\n"
"                          outweigh, else a GPU when present; -v says)\n"
"      --threads N         CPU threads (default: the cores)\n"
"      --save-outputs DIR  write the outputs as DIR/out0.npy, out1.npy...\n"
"                          (lists and tuples flattened)\n"
"      --save-inputs DIR   write forward's inputs, as run, as DIR/in0.npy,\n"
"                          in1.npy... (pt2onnx --verify feeds them to ONNX\n"
"                          Runtime)\n"
"      --list-missing      list every op the model uses that `trace` has\n"
"                          no implementation for, and exit (4 if any)\n"
"      --list-ops          the ops `trace` runs, one a line\n"
"  -v, --verbose           say on standard error which device ran the\n"
"                          trace (and, with auto, why)\n"
"  -m, --method NAME       the method to run (default forward)\n"
"  -o, --output FILE       write there (default '-': standard output)\n"
"  -S                      write the text form instead of binary\n"
"  -f, --force             write binary to a terminal\n"
"  -h, --help              this text\n"
"  -V, --version           the version\n"
"\n"
"Exit status: 0 written, 2 usage (inputs that do not fit forward), 3\n"
"malformed archive or input file, or a model that raises, 4 an op with no\n"
"implementation or an unsupported construct, 5 I/O error or out of\n"
"memory.\n";

enum {
	OPT_SEED = 256, OPT_DYN, OPT_INPUT_NAMES, OPT_DEVICE, OPT_THREADS, OPT_SAVE,
	OPT_SAVE_IN,
	OPT_MISSING, OPT_RANDN, OPT_LIST_OPS,
};

static const struct option long_options[] = {
	{ "input", required_argument, NULL, 'i' },
	{ "method", required_argument, NULL, 'm' },
	TOOL_LONG_OPTIONS_OUT,
	{ "verbose", no_argument, NULL, 'v' },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "dynamic-axes", required_argument, NULL, OPT_DYN },
	{ "input-names", required_argument, NULL, OPT_INPUT_NAMES },
	{ "device", required_argument, NULL, OPT_DEVICE },
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ "save-outputs", required_argument, NULL, OPT_SAVE },
	{ "save-inputs", required_argument, NULL, OPT_SAVE_IN },
	{ "list-missing", no_argument, NULL, OPT_MISSING },
	{ "randn", no_argument, NULL, OPT_RANDN },
	{ "list-ops", no_argument, NULL, OPT_LIST_OPS },
	TOOL_LONG_OPTIONS_END,
};

struct tool {
	struct input_spec *args; /* the --input arguments, nargs of them */
	char **specs;            /* their texts */
	int nargs;
	struct trace_input *in;  /* their tensors, the graph's inputs */
	int nin;
	struct script_input *sin;
	int nsin;
	struct onnx_write_options dyn;
};

static void tool_release(struct tool *t)
{
	int i;

	for (i = 0; i < t->nin; i++)
		trace_input_release(&t->in[i]);
	free(t->in);
	for (i = 0; i < t->nargs; i++)
		input_spec_release(&t->args[i]);
	free(t->args);
	free(t->specs);
	for (i = 0; i < t->nsin; i++)
		script_input_release(&t->sin[i]);
	free(t->sin);
	onnx_write_options_release(&t->dyn);
}

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;

	errno = 0;
	*out = strtoull(s, &end, 0);
	return errno || end == s || *end || *s == '-' ? -1 : 0;
}

/* --device auto: gpu_auto_backend on g's weight bytes and the inputs'
 * batch (the largest fixed first dim).  CUDA is probed (which starts it)
 * only when the estimate would take it. */
static const struct gpu_backend *auto_device(const struct ir_graph *g,
					     const struct script_input *in,
					     int nin, int verbose)
{
	uint64_t wb = 0;
	int64_t batch = 1;
	int cuda = 0;
	char why[256];

	for (const struct ir_weight *w = g->weights; w; w = w->next)
		wb += ir_tensor_numel(w->tensor) *
		      (uint64_t)ir_dtype_size(w->tensor->dtype);
	for (int i = 0; i < nin; i++)
		if (in[i].rank > 0 && in[i].dims[0].kind == IR_DIM_FIXED &&
		    in[i].dims[0].value > batch)
			batch = in[i].dims[0].value;
#ifdef PT2ONNX_HAVE_CUDA
	/* as if CUDA were there; probed only when it would be taken */
	cuda = gpu_auto_backend(wb, batch, gpu_threads(), 1, NULL, 0) !=
		       GPU_BACKEND_CUDA ||
	       gpu_backend_available(GPU_BACKEND_CUDA);
#endif
	enum gpu_backend_id b = gpu_auto_backend(wb, batch, gpu_threads(),
						 cuda, why, sizeof why);
	if (verbose)
		fprintf(stderr, "trace: device %s (%s)\n", gpu_backend_name(b),
			why);
	return gpu_backend_get(b) ? gpu_backend_get(b)
				  : gpu_backend_get(GPU_BACKEND_CPU);
}

int main(int argc, char **argv)
{
	struct diag d;
	struct tool t;
	struct trace_options to;
	struct script_options so;
	struct torch_archive *ar;
	struct ir_graph *g, *r;
	struct tool_out out = TOOL_OUT_INIT;
	const char *device = "auto";
	int c, code, list_missing = 0, verbose = 0;
	uint64_t u;

	diag_init(&d, "trace");
	tool_init("trace");
	memset(&t, 0, sizeof(t));
	memset(&to, 0, sizeof(to));
	memset(&so, 0, sizeof(so));
	onnx_write_options_init(&t.dyn);
	while ((c = getopt_long(argc, argv, "i:m:o:SfvhV", long_options,
				NULL)) != -1) {
		switch (c) {
		case 'i': {
			struct input_spec *in = realloc(t.args, sizeof(*in) *
							(size_t)(t.nargs + 1));
			char **sp = in ? realloc(t.specs, sizeof(*sp) *
						 (size_t)(t.nargs + 1)) : NULL;

			if (in)
				t.args = in;
			if (!in || !sp)
				die(&d, EXIT_IO, "out of memory");
			t.specs = sp;
			t.specs[t.nargs] = optarg;
			if (input_spec_parse(optarg, INPUT_SPEC_RUN,
					     GPU_MAX_DIMS, &t.args[t.nargs],
					     &d) ||
			    trace_input_leaves(&t.args[t.nargs], &t.in, &t.nin,
					       &d)) {
				t.nargs++;
				tool_release(&t);
				return EXIT_USAGE;
			}
			t.nargs++;
			break;
		}
		case 'm':
			so.method = optarg;
			break;
		case 'v':
			verbose = 1;
			break;
		case OPT_LIST_OPS:
			tool_release(&t);
			trace_list_ops(stdout);
			return EXIT_OK;
		case OPT_SEED:
			if (parse_u64(optarg, &to.seed)) {
				diag_error(&d, "--seed '%s': not a number",
					   optarg);
				tool_release(&t);
				return EXIT_USAGE;
			}
			break;
		case OPT_DYN:
			if (onnx_write_parse_dynamic_axes(&t.dyn, optarg, &d)) {
				tool_release(&t);
				return EXIT_USAGE;
			}
			break;
		case OPT_INPUT_NAMES:
			if (onnx_write_parse_names(&t.dyn.input_names,
						   &t.dyn.ninput_names, optarg,
						   &d)) {
				tool_release(&t);
				return EXIT_USAGE;
			}
			break;
		case OPT_DEVICE:
			device = optarg;
			break;
		case OPT_THREADS:
			if (parse_u64(optarg, &u) || u < 1 || u > 4096) {
				diag_error(&d, "--threads '%s': expected 1 to "
					   "4096", optarg);
				tool_release(&t);
				return EXIT_USAGE;
			}
			gpu_set_threads((int)u);
			break;
		case OPT_SAVE_IN:
			to.save_inputs = optarg;
			break;
		case OPT_SAVE:
			to.save_outputs = optarg;
			break;
		case OPT_MISSING:
			list_missing = 1;
			break;
		case OPT_RANDN:
			to.randn = 1;
			break;
		default:
			code = tool_option("trace", usage_text, c, optarg,
					   &out);
			if (code == TOOL_OPT_CONTINUE)
				break;
			tool_release(&t);
			return code;
		}
	}
	if (optind != argc - 1) {
		diag_error(&d, optind >= argc ? "expected one MODEL.pt argument"
			   : "one model at a time ('%s' is extra)",
			   argv[optind < argc ? optind + 1 : 0]);
		tool_release(&t);
		return tool_bad_option("trace");
	}
	if (!strcmp(device, "cpu")) {
		to.backend = gpu_backend_get(GPU_BACKEND_CPU);
	} else if (!strcmp(device, "cuda")) {
		to.backend = gpu_backend_get(GPU_BACKEND_CUDA);
		if (!to.backend) {
#ifdef PT2ONNX_HAVE_CUDA
			diag_error(&d, "--device cuda: no CUDA device; use "
				   "--device cpu or auto");
#else
			diag_error(&d, "--device cuda: built without CUDA "
				   "(no nvcc); use --device cpu or auto");
#endif
			tool_release(&t);
			return EXIT_USAGE;
		}
	} else if (!strcmp(device, "auto")) {
		/* chosen once the model's weights are known (auto_device) */
		to.backend = gpu_backend_get(GPU_BACKEND_CPU);
	} else {
		diag_error(&d, "--device '%s': expected cuda, cpu or auto",
			   device);
		tool_release(&t);
		return EXIT_USAGE;
	}
	if (!to.backend) {
		diag_error(&d, "no compute backend available");
		tool_release(&t);
		return EXIT_UNSUPPORTED;
	}
	if (verbose && strcmp(device, "auto"))
		fprintf(stderr, "trace: device %s (--device)\n",
			to.backend->name);
	if (access(argv[optind], R_OK) != 0) {
		diag_error(&d, "%s: %s", argv[optind], strerror(errno));
		tool_release(&t);
		return EXIT_IO;
	}
	ar = torch_archive_open(argv[optind], &d);
	if (!ar) {
		tool_release(&t);
		return EXIT_BAD_INPUT;
	}
	d.file = argv[optind];
	if (!list_missing) {
		int bad = trace_script_inputs(t.args, t.specs, t.nargs,
					      &t.sin, &d);

		t.nsin = t.sin ? t.nargs : 0;
		if (bad) {
			torch_archive_close(ar);
			tool_release(&t);
			return EXIT_USAGE;
		}
	}
	so.inputs = list_missing ? NULL : t.sin;
	so.ninputs = list_missing ? 0 : t.nsin;
	{
		/* inputs that do not fit: trace_run names the signature */
		struct diag quiet = d;

		quiet.quiet = 1;
		g = script_compile(ar, &so, &quiet, &code);
		if (!g && code == EXIT_USAGE) {
			so.inputs = NULL;
			so.ninputs = 0;
			g = script_compile(ar, &so, &d, &code);
		} else if (!g) {
			g = script_compile(ar, &so, &d, &code);
		}
	}
	torch_archive_close(ar);
	if (!g) {
		tool_release(&t);
		return code;
	}
	d.file = NULL;
	if (list_missing) {
		int n = trace_list_missing(g, &d);

		ir_graph_free(g);
		tool_release(&t);
		if (n == 0)
			printf("every op of %s has an implementation\n",
			       argv[optind]);
		return n ? EXIT_UNSUPPORTED : EXIT_OK;
	}
	if (trace_apply_dynamic_axes(t.in, t.nin, g, &t.dyn, &d)) {
		ir_graph_free(g);
		tool_release(&t);
		return EXIT_USAGE;
	}
	to.inputs = t.in;
	to.ninputs = t.nin;
	if (!strcmp(device, "auto"))
		to.backend = auto_device(g, t.sin, t.nsin, verbose);
	r = trace_run(g, &to, &d, &code);
	if (!r && to.backend->id == GPU_BACKEND_CUDA && code == EXIT_IO &&
	    strstr(gpu_last_error(), "out of") &&
	    strstr(gpu_last_error(), "memory")) {
		diag_warning(&d, "out of GPU memory: tracing again on the CPU");
		if (verbose)
			fprintf(stderr, "trace: device cpu (out of GPU "
				"memory)\n");
		to.backend = gpu_backend_get(GPU_BACKEND_CPU);
		r = trace_run(g, &to, &d, &code);
	}
	ir_graph_free(g);
	tool_release(&t);
	return tool_finish_ir(r, code, &out, &d);
}

/*
 * script.c - the `script` stage: a TorchScript archive (torch.jit.save's
 * model.pt) in, the aten-level IR of its forward method (or --method) out,
 * with control flow kept as prim::If / prim::Loop.
 *
 * Thin: options, torch_archive_open(), script_compile() (lib/script/
 * compile.c), ir_write() through an outfile so that -o appears whole or not
 * at all.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile.h"
#include "diag.h"
#include "ir.h"
#include "onnx_write.h"
#include "tool_io.h"
#include "tool_opts.h"
#include "torch_archive.h"
#include "version.h"

static const char usage_text[] =
"usage: script [OPTIONS] MODEL.pt\n"
"\n"
"Compiles the forward method of a TorchScript archive into aten-level IR\n"
"(docs/ir.md): submodules, methods and functions inlined, parameters and\n"
"buffers as weights referring into MODEL.pt, module attributes frozen,\n"
"control flow kept as prim::If / prim::Loop.\n"
"\n"
"  -i, --input SPEC      type of a graph input (repeatable):\n"
"                          x=f32[batch,3,224,224]   by name\n"
"                          f32[1,3,224,224]         positional\n"
"                          x=input.npy              from a .npy header\n"
"                          hx=(f32[1,2,3],f32[1,2,3])  a tuple, xs=[A,B]\n"
"                          a list: their tensors graph inputs hx.0, hx.1\n"
"                          n=3, f=0.5, b=true, y=none  constants\n"
"                        dtypes f32 f64 f16 bf16 i64 i32 i16 i8 u8 bool;\n"
"                        a dim is a number, a symbol or '?'\n"
"      --dynamic-axes SPEC  input axes that are symbols whatever size\n"
"                        --input gives (repeatable): 'x:0=batch;y:0=batch',\n"
"                        'x:0,2' (x_dynamic_axes_1, _2) or torch's dict\n"
"      --input-names LIST  the names --dynamic-axes gives the graph inputs,\n"
"                        in order (as emit --input-names renames them)\n"
"  -m, --method NAME     the method to compile (default forward)\n"
"      --require-inputs  refuse a Tensor argument that no --input types\n"
"                        (pt2onnx's export sets it)\n"
"  -o, --output FILE     write there (default '-': standard output)\n"
"  -S                    write the text form instead of binary\n"
"  -f, --force           write binary to a terminal\n"
"      --list-ops        the operators the compiler knows, one a line\n"
"  -h, --help            this text\n"
"  -V, --version         the version\n"
"\n"
"Exit status: 0 written, 2 usage, 3 malformed archive or unparseable code,\n"
"4 unsupported construct, 5 I/O error.\n";

static void release_inputs(struct script_input *in, int n)
{
	int i;

	for (i = 0; i < n; i++)
		script_input_release(&in[i]);
	free(in);
}

enum { OPT_DYN = 256, OPT_INPUT_NAMES, OPT_LIST_OPS };

static const struct option long_options[] = {
	{ "input", required_argument, NULL, 'i' },
	{ "dynamic-axes", required_argument, NULL, OPT_DYN },
	{ "input-names", required_argument, NULL, OPT_INPUT_NAMES },
	{ "method", required_argument, NULL, 'm' },
	{ "require-inputs", no_argument, NULL, 'R' },
	TOOL_LONG_OPTIONS_OUT,
	{ "list-ops", no_argument, NULL, OPT_LIST_OPS },
	TOOL_LONG_OPTIONS_END,
};

int main(int argc, char **argv)
{
	struct diag d;
	struct script_options o;
	struct onnx_write_options dyn;
	struct script_input *inputs = NULL;
	struct torch_archive *ar;
	struct ir_graph *g;
	struct tool_out out = TOOL_OUT_INIT;
	int c, code, ninputs = 0;

	diag_init(&d, "script");
	tool_init("script");
	memset(&o, 0, sizeof(o));
	onnx_write_options_init(&dyn);
	while ((c = getopt_long(argc, argv, "i:m:o:SfhV", long_options,
				NULL)) != -1) {
		switch (c) {
		case 'i':
			inputs = realloc(inputs, sizeof(*inputs) *
					 (ninputs + 1));
			if (!inputs)
				die(&d, EXIT_IO, "out of memory");
			if (script_parse_input(optarg, &inputs[ninputs], &d)) {
				script_input_release(&inputs[ninputs]);
				release_inputs(inputs, ninputs);
				return EXIT_USAGE;
			}
			ninputs++;
			break;
		case OPT_DYN:
			if (onnx_write_parse_dynamic_axes(&dyn, optarg, &d))
				goto bad_option;
			break;
		case OPT_INPUT_NAMES:
			if (onnx_write_parse_names(&dyn.input_names,
						   &dyn.ninput_names, optarg,
						   &d))
				goto bad_option;
			break;
		case 'm':
			o.method = optarg;
			break;
		case 'R':
			o.require_inputs = 1;
			break;
		case OPT_LIST_OPS:
			release_inputs(inputs, ninputs);
			onnx_write_options_release(&dyn);
			script_list_ops(stdout);
			return EXIT_OK;
		default:
			code = tool_option("script", usage_text, c, optarg,
					   &out);
			if (code == TOOL_OPT_CONTINUE)
				break;
			release_inputs(inputs, ninputs);
			onnx_write_options_release(&dyn);
			return code;
		}
	}
	if (optind != argc - 1) {
		diag_error(&d, "expected one MODEL.pt argument");
		release_inputs(inputs, ninputs);
		onnx_write_options_release(&dyn);
		return tool_bad_option("script");
	}
	o.inputs = inputs;
	o.ninputs = ninputs;
	o.dyn = &dyn;
	ar = torch_archive_open(argv[optind], &d);
	if (!ar) {
		release_inputs(inputs, ninputs);
		onnx_write_options_release(&dyn);
		return EXIT_BAD_INPUT;
	}
	d.file = argv[optind];
	g = script_compile(ar, &o, &d, &code);
	torch_archive_close(ar);
	release_inputs(inputs, ninputs);
	onnx_write_options_release(&dyn);
	return tool_finish_ir(g, code, &out, &d);
bad_option:
	release_inputs(inputs, ninputs);
	onnx_write_options_release(&dyn);
	return EXIT_USAGE;
}

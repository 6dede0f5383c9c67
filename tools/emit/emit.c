/*
 * emit.c - the `emit` stage: ONNX-level IR in, an .onnx model out.
 *
 * Thin by design: it parses options, reads the IR (binary or text, from a
 * file or standard input), and hands the graph to onnx_write_model()
 * (lib/onnx/onnx_write.c), which does the work and says which exit code
 * fits a failure.
 */
#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "ir.h"
#include "onnx_write.h"
#include "outfile.h"
#include "tool_io.h"
#include "tool_opts.h"
#include "version.h"

static const char usage_text[] =
"usage: emit [OPTIONS] [INPUT]\n"
"\n"
"Writes an ONNX-level IR stream (binary or text; INPUT or standard input)\n"
"as an ONNX model.  The output appears whole or not at all.\n"
"\n"
"  -o, --output FILE            the model (default '-': standard output,\n"
"                               refused when it is a terminal)\n"
"      --input-names LIST       rename the graph inputs in order: 'a,b' or\n"
"                               '[\"a\", \"b\"]' (repeatable; the weights\n"
"                               follow the inputs when they are inputs too)\n"
"      --output-names LIST      rename the graph outputs in order\n"
"      --dynamic-axes SPEC      name axes of inputs/outputs (by their final\n"
"                               names) as dynamic (repeatable):\n"
"                                 'x:0=batch,2=h;y:0=batch'  named axes\n"
"                                 'x:0,2'  torch's list form: the axes are\n"
"                                          named x_dynamic_axes_1, _2\n"
"                                 '{\"x\": {0: \"batch\"}, \"y\": [0]}'\n"
"                                          torch's dict, either form\n"
"      --opset N                the default-domain opset when the IR has\n"
"                               none (it must agree when the IR has one)\n"
"      --custom-opset DOMAIN=VERSION\n"
"                               version of a custom domain (repeatable, or\n"
"                               '{\"dom\": 2}'); unlisted ones get 1\n"
"      --keep-initializers-as-inputs\n"
"                               list the weights as graph inputs too\n"
"                               (always so below opset 9)\n"
"      --no-export-params       weights become graph inputs, not data\n"
"      --external-data[=FILE]   weights of 1 KiB and more go to FILE,\n"
"                               relative to the model's directory (default\n"
"                               MODEL.data), in ONNX's external data layout;\n"
"                               automatic for models over 2 GB\n"
"      --producer-name NAME     default 'pt2onnx'\n"
"      --producer-version V     default '" PT2ONNX_VERSION "'\n"
"      --strip-doc-string       write no doc strings (node doc strings are\n"
"                               the IR's doc, else its source location)\n"
"      --modules-as-functions TYPES\n"
"                               torch's export_modules_as_functions with a\n"
"                               set of module types ('Block,Layer', or\n"
"                               'pkg.mod.Block': domain pkg.mod, else\n"
"                               'local'): each instance (by its nodes'\n"
"                               module scopes) becomes a call of one ONNX\n"
"                               local function per type, nested ones\n"
"                               calls in their function; '*': every\n"
"                               type, the root's included; opset 15+\n"
"      --weights-from PATH      a folder (or file) whose weights may be\n"
"                               read, besides the current folder, the IR\n"
"                               file's, torch archives and fold's data\n"
"                               files (repeatable; docs/ir.md)\n"
"      --fsync                  fsync the model (and its data file)\n"
"                               before renaming it into place: durable\n"
"                               across a power loss, at the disk's speed\n"
"  -f, --force                  write binary to a terminal\n"
"  -h, --help                   this text\n"
"  -V, --version                the version\n"
"\n"
"Node names: the IR's, else torch's scoped names (/layer1/layer1.0/conv1/\n"
"Conv), else Kind_N; made unique with _N suffixes.  ir_version follows the\n"
"opset (7-8: 3, 9: 4, 10: 5, 11: 6, 12-14: 7, 15-18: 8, 19-20: 9, 21-22:\n"
"10, 23: 11, 24: 12, 25-26: 13).  PT2ONNX_EXTERNAL_THRESHOLD=BYTES lowers the 2 GB limit.\n"
"\n"
"Exit status: 0 written, 2 usage, 3 malformed input or weight file,\n"
"4 unsupported (aten-level IR, ...), 5 I/O error.\n";

enum {
	OPT_INPUT_NAMES = 256,
	OPT_OUTPUT_NAMES,
	OPT_DYNAMIC_AXES,
	OPT_OPSET,
	OPT_CUSTOM_OPSET,
	OPT_KEEP_INITS,
	OPT_NO_EXPORT_PARAMS,
	OPT_EXTERNAL_DATA,
	OPT_PRODUCER_NAME,
	OPT_PRODUCER_VERSION,
	OPT_STRIP_DOC,
	OPT_WEIGHTS_FROM,
	OPT_FUNCTIONS,
	OPT_FSYNC,
};

static const struct option long_options[] = {
	TOOL_LONG_OPTIONS_OUT,
	{ "input-names", required_argument, NULL, OPT_INPUT_NAMES },
	{ "modules-as-functions", required_argument, NULL, OPT_FUNCTIONS },
	{ "output-names", required_argument, NULL, OPT_OUTPUT_NAMES },
	{ "dynamic-axes", required_argument, NULL, OPT_DYNAMIC_AXES },
	{ "opset", required_argument, NULL, OPT_OPSET },
	{ "custom-opset", required_argument, NULL, OPT_CUSTOM_OPSET },
	{ "keep-initializers-as-inputs", no_argument, NULL, OPT_KEEP_INITS },
	{ "no-export-params", no_argument, NULL, OPT_NO_EXPORT_PARAMS },
	{ "external-data", optional_argument, NULL, OPT_EXTERNAL_DATA },
	{ "producer-name", required_argument, NULL, OPT_PRODUCER_NAME },
	{ "producer-version", required_argument, NULL, OPT_PRODUCER_VERSION },
	{ "strip-doc-string", no_argument, NULL, OPT_STRIP_DOC },
	{ "weights-from", required_argument, NULL, OPT_WEIGHTS_FROM },
	{ "fsync", no_argument, NULL, OPT_FSYNC },
	TOOL_LONG_OPTIONS_END,
};

static void replace(char **dst, const char *s)
{
	free(*dst);
	*dst = strdup(s);
	if (!*dst) {
		fputs("emit: out of memory\n", stderr);
		exit(EXIT_INTERNAL);
	}
}

int main(int argc, char **argv)
{
	struct diag d;
	struct onnx_write_options o;
	struct tool_out out = TOOL_OUT_INIT;
	int c, rc;

	diag_init(&d, "emit");
	tool_init("emit");
	onnx_write_options_init(&o);
	while ((c = getopt_long(argc, argv, "o:fhV", long_options, NULL)) != -1) {
		switch (c) {
		case OPT_INPUT_NAMES:
			if (onnx_write_parse_names(&o.input_names,
						   &o.ninput_names, optarg, &d))
				goto usage;
			break;
		case OPT_OUTPUT_NAMES:
			if (onnx_write_parse_names(&o.output_names,
						   &o.noutput_names, optarg, &d))
				goto usage;
			break;
		case OPT_FUNCTIONS:
			if (onnx_write_parse_names(&o.function_types,
						   &o.nfunction_types, optarg,
						   &d))
				goto usage;
			break;
		case OPT_DYNAMIC_AXES:
			if (onnx_write_parse_dynamic_axes(&o, optarg, &d))
				goto usage;
			break;
		case OPT_OPSET: {
			char *end;
			long v = strtol(optarg, &end, 10);
			if (*end || end == optarg || v < 1) {
				diag_error(&d, "--opset '%s' is not a positive "
					   "integer", optarg);
				goto usage;
			}
			o.opset = v;
			break;
		}
		case OPT_CUSTOM_OPSET:
			if (onnx_write_parse_custom_opset(&o, optarg, &d))
				goto usage;
			break;
		case OPT_KEEP_INITS:
			o.keep_initializers_as_inputs = 1;
			break;
		case OPT_NO_EXPORT_PARAMS:
			o.export_params = 0;
			break;
		case OPT_EXTERNAL_DATA:
			o.external_data = 1;
			if (optarg)
				replace(&o.external_data_file, optarg);
			break;
		case OPT_PRODUCER_NAME:
			replace(&o.producer_name, optarg);
			break;
		case OPT_PRODUCER_VERSION:
			replace(&o.producer_version, optarg);
			break;
		case OPT_STRIP_DOC:
			o.strip_doc_string = 1;
			break;
		case OPT_WEIGHTS_FROM:
			if (onnx_write_options_allow_weights(&o, optarg, &d))
				goto usage;
			break;
		case OPT_FSYNC:
			outfile_set_fsync(1);
			break;
		default:
			rc = tool_option("emit", usage_text, c, optarg, &out);
			if (rc == TOOL_OPT_CONTINUE)
				break;
			onnx_write_options_release(&o);
			return rc;
		}
	}
	if (argc - optind > 1) {
		diag_error(&d, "one input at most (try 'emit --help')");
		goto usage;
	}

	if (!strcmp(out.output, "-") && refuse_terminal(stdout, out.force, &d))
		goto usage;
	/* weights are read only from the model's folders: the current one
	 * (relative references resolve from it) and the IR file's (and see
	 * tensor_data_allowed) */
	const char *in = optind < argc ? argv[optind] : "-";
	char *dir = strcmp(in, "-") ? strdup(in) : NULL;
	struct diag quiet; /* a missing input is reported by its reader */
	diag_init(&quiet, "emit");
	quiet.quiet = 1;
	o.restrict_weights = 1;
	onnx_write_options_allow_weights(&o, ".", &quiet);
	if (dir)
		onnx_write_options_allow_weights(&o, dirname(dir), &quiet);
	free(dir);
	struct ir_graph *g = tool_read_ir(in, &d, &rc);
	if (g)
		rc = onnx_write_model(g, &o, out.output, &d);
	ir_graph_free(g);
	onnx_write_options_release(&o);
	return rc;
usage:
	onnx_write_options_release(&o);
	return EXIT_USAGE;
}

/*
 * lower.c - the `lower` stage: aten-level IR in, ONNX-level IR out, for
 * one opset (torch.onnx.export's symbolic lowering).
 *
 * Thin by design: options, reading the IR (binary or text, file or
 * standard input), lower_graph() (lib/lower), writing the IR.
 */
#include <ctype.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "ir.h"
#include "lower.h"
#include "outfile.h"
#include "tool_io.h"
#include "tool_opts.h"
#include "version.h"

static const char usage_text[] =
"usage: lower [OPTIONS] [INPUT]\n"
"\n"
"Rewrites an aten-level IR stream (binary or text; INPUT or standard\n"
"input) as ONNX-level IR for one opset, with torch.onnx.export's symbolic\n"
"functions and scalar type analysis.  Weights pass through untouched.\n"
"\n"
"  --opset N                    the target opset, "
	PT2ONNX_STR(PT2ONNX_OPSET_MIN) " to " PT2ONNX_STR(PT2ONNX_OPSET_MAX)
	" (default " PT2ONNX_STR(PT2ONNX_OPSET_DEFAULT) ")\n"
"  --operator-export-type T     onnx (default: every op must convert, else\n"
"                               all unconvertible ops are listed, exit 4),\n"
"                               onnx_aten (every aten op as an ATen node),\n"
"                               onnx_aten_fallback (ATen where no symbolic),\n"
"                               onnx_fallthrough (left as they are)\n"
"  --training MODE              eval (default), train, preserve\n"
"  --plugin FILE.so             load custom symbolics from a plugin (a C ABI,\n"
"                               pt2onnx_plugin.h; docs/plugins.md); they\n"
"                               take priority over the built-in ones;\n"
"                               repeatable, the last loaded wins\n"
"  --list-ops                   print 'aten::op: opsets...' for every op\n"
"                               with a symbolic, and exit\n"
"  -o, --output FILE            default '-': standard output (binary is\n"
"                               refused on a terminal)\n"
"  -S, --text                   write the text form\n"
"  -f, --force                  write binary to a terminal\n"
"  -h, --help                   this text\n"
"  -V, --version                the version\n"
"\n"
"Exit status: 0 written, 2 usage (a plugin that cannot be loaded too),\n"
"3 malformed input, 4 unsupported ops, "
"5 I/O error.\n";

enum { OPT_OPSET = 256, OPT_EXPORT_TYPE, OPT_TRAINING, OPT_LIST_OPS,
       OPT_PLUGIN };

static const struct option long_options[] = {
	{ "opset", required_argument, NULL, OPT_OPSET },
	{ "operator-export-type", required_argument, NULL, OPT_EXPORT_TYPE },
	{ "training", required_argument, NULL, OPT_TRAINING },
	{ "list-ops", no_argument, NULL, OPT_LIST_OPS },
	{ "plugin", required_argument, NULL, OPT_PLUGIN },
	TOOL_LONG_OPTIONS_OUT,
	{ "text", no_argument, NULL, 'S' },
	TOOL_LONG_OPTIONS_END,
};

/* file scope: reachable until exit on every return path */
static struct lower_plugins *plugins;

static int pick(const char *arg, const char *const *names, int n)
{
	char buf[64];
	size_t i;
	for (i = 0; arg[i] && i < sizeof(buf) - 1; i++)
		buf[i] = arg[i] == '-' ? '_' : (char)tolower((unsigned char)arg[i]);
	buf[i] = 0;
	for (int k = 0; k < n; k++)
		if (!strcmp(buf, names[k]))
			return k;
	return -1;
}

int main(int argc, char **argv)
{
	static const char *const types[] = { "onnx", "onnx_aten",
		"onnx_aten_fallback", "onnx_fallthrough" };
	static const char *const modes[] = { "eval", "train", "preserve" };
	struct diag d;
	struct lower_options o = { PT2ONNX_OPSET_DEFAULT, LOWER_EXPORT_ONNX,
				   LOWER_TRAINING_EVAL, NULL };
	struct tool_out out = TOOL_OUT_INIT;
	int c, k;

	diag_init(&d, "lower");
	tool_init("lower");
	while ((c = getopt_long(argc, argv, "o:SfhV", long_options, NULL)) != -1) {
		switch (c) {
		case OPT_OPSET: {
			char *end;
			long v = strtol(optarg, &end, 10);
			if (*end || end == optarg || v < LOWER_OPSET_MIN ||
			    v > LOWER_OPSET_MAX) {
				diag_error(&d, "--opset '%s' is not an opset "
					   "from %d to %d", optarg,
					   LOWER_OPSET_MIN, LOWER_OPSET_MAX);
				return EXIT_USAGE;
			}
			o.opset = (int)v;
			break;
		}
		case OPT_EXPORT_TYPE:
			if ((k = pick(optarg, types, 4)) < 0) {
				diag_error(&d, "--operator-export-type '%s' is "
					   "not onnx, onnx_aten, "
					   "onnx_aten_fallback or "
					   "onnx_fallthrough", optarg);
				return EXIT_USAGE;
			}
			o.export_type = (enum lower_export_type)k;
			break;
		case OPT_TRAINING:
			if ((k = pick(optarg, modes, 3)) < 0) {
				diag_error(&d, "--training '%s' is not eval, "
					   "train or preserve", optarg);
				return EXIT_USAGE;
			}
			o.training = (enum lower_training)k;
			break;
		case OPT_LIST_OPS:
			lower_list_ops(stdout);
			return EXIT_OK;
		case OPT_PLUGIN:
			if (!plugins)
				plugins = lower_plugins_new();
			if (lower_plugin_load(plugins, optarg, &d)) {
				lower_plugins_free(plugins);
				return EXIT_USAGE;
			}
			o.plugins = plugins;
			break;
		default:
			k = tool_option("lower", usage_text, c, optarg, &out);
			if (k != TOOL_OPT_CONTINUE)
				return k;
		}
	}
	if (argc - optind > 1) {
		diag_error(&d, "one input at most (try 'lower --help')");
		return EXIT_USAGE;
	}
	if (!out.text && !strcmp(out.output, "-") &&
	    refuse_terminal(stdout, out.force, &d))
		return EXIT_USAGE;
	int rc;
	struct ir_graph *g = tool_read_ir(optind < argc ? argv[optind] : "-",
					  &d, &rc);
	if (!g) {
		lower_plugins_free(plugins);
		return rc;
	}
	rc = lower_graph(g, &o, &d);
	if (rc == EXIT_OK)
		rc = tool_write_ir(g, out.output, out.text, out.force, &d);
	ir_graph_free(g);
	lower_plugins_free(plugins);
	return rc;
}

/*
 * check.c - `check`: validates .onnx models as onnx.checker.check_model
 * does, and prints them as pt2onnx text IR (--print) or Graphviz (--dot).
 *
 * Thin by design: reading is lib/onnx/onnx_read.c, the rules
 * lib/onnx/onnx_check.c, printing lib/common/ir_text.c and ir_dot.c.  Every
 * problem in every file is reported (one line each, on stderr); the exit
 * status is the worst of the files': 0 all valid, 1 some model breaks a
 * rule, 3 a file is not an ONNX model, 5 a file cannot be read.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "ir.h"
#include "ir_dot.h"
#include "onnx_check.h"
#include "onnx_read.h"
#include "onnx_schema.h"
#include "tool_opts.h"
#include "outfile.h"
#include "version.h"

static void usage(FILE *fp)
{
	fprintf(fp,
		"usage: check [OPTIONS] MODEL.onnx...\n"
		"\n"
		"Validates ONNX models with the rules of onnx.checker.check_model\n"
		"(and a few stricter ones of the ONNX IR spec), reporting every\n"
		"problem, each naming the graph, node, attribute or tensor.\n"
		"External data is looked up beside the model.  '-' reads standard\n"
		"input.\n"
		"\n"
		"  -p, --print        print each model as pt2onnx text IR (what\n"
		"                     `emit` reads), even when it is invalid\n"
		"      --weight-summary\n"
		"                     with --print: weights and constants of more\n"
		"                     than 16 values as their size, not their\n"
		"                     values (for reading, not for `emit`)\n"
		"  -d, --dot          print each model as a Graphviz digraph\n"
		"  -o, --output FILE  write --print/--dot output to FILE (one model)\n"
		"  -q, --quiet        print nothing; the exit status tells\n"
		"  -h, --help         this help\n"
		"  -V, --version      version and the operator schema source\n"
		"\n"
		"Without -q, each valid model is reported as 'MODEL: ok' on\n"
		"standard output (unless --print or --dot is given).\n"
		"\n"
		"Exit status: 0 every model is valid, 1 a model breaks a rule,\n"
		"2 bad usage, 3 a file is not an ONNX model (empty, truncated,\n"
		"not protobuf), 5 a file cannot be read or the output written.\n");
}

enum mode { MODE_CHECK, MODE_PRINT, MODE_DOT };

struct opts {
	enum mode mode;
	int quiet;
	const char *output;
	int brief;
};

/* Checks (and prints) one model; returns its exit code. */
static int check_one(const char *path, const struct opts *o, FILE *out)
{
	struct diag d;
	diag_init(&d, "check");
	d.file = strcmp(path, "-") ? path : "<stdin>";
	d.quiet = o->quiet;

	Onnx__ModelProto *m = NULL;
	int r = onnx_read_file(path, &m, &d);
	if (r == ONNX_READ_IO)
		return EXIT_IO;
	if (r != ONNX_READ_OK)
		return EXIT_BAD_INPUT;

	int problems = onnx_check_model(m, path, &d);
	int code = problems ? EXIT_INVALID : EXIT_OK;

	if (o->mode != MODE_CHECK) {
		struct ir_graph *g = onnx_to_ir(m, path, &d);
		int w = o->mode == MODE_PRINT ? ir_write_text_as(g, out,
								 o->brief, &d)
					      : ir_write_dot(g, out, &d);
		if (w)
			code = EXIT_IO;
		ir_graph_free(g);
	}
	onnx_model_free(m);

	if (!o->quiet && problems)
		fprintf(stderr, "check: %s: invalid (%d problem%s)\n", d.file,
			problems, problems == 1 ? "" : "s");
	else if (!o->quiet && o->mode == MODE_CHECK && !problems) {
		printf("%s: ok\n", d.file);
		fflush(stdout); /* in order with the messages on stderr */
	}
	return code;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "print", no_argument, NULL, 'p' },
		{ "dot", no_argument, NULL, 'd' },
		{ "weight-summary", no_argument, NULL, 'W' },
		{ "output", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		TOOL_LONG_OPTIONS_END,
	};
	struct opts o = { MODE_CHECK, 0, NULL, 0 };
	struct diag d;
	int c;

	diag_init(&d, "check");
	tool_init("check");
	while ((c = getopt_long(argc, argv, "pdo:qhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			o.mode = MODE_PRINT;
			break;
		case 'd':
			o.mode = MODE_DOT;
			break;
		case 'W':
			o.brief = 1;
			break;
		case 'o':
			o.output = optarg;
			break;
		case 'q':
			o.quiet = 1;
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		case 'V': {
			char extra[256];

			snprintf(extra, sizeof(extra), "operator schemas: %s, "
				 "%u schemas, IR version %d",
				 onnx_schema_source(), onnx_schema_count(),
				 onnx_schema_ir_version());
			return tool_version("check", extra);
		}
		default:
			return tool_bad_option("check");
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "check: no model given\n");
		return tool_bad_option("check");
	}
	if (o.output && o.mode == MODE_CHECK)
		die(&d, EXIT_USAGE, "-o needs --print or --dot");
	if (o.output && argc - optind > 1)
		die(&d, EXIT_USAGE, "-o takes one model");

	struct outfile out = { 0 };
	if (o.mode != MODE_CHECK) {
		if (outfile_open(&out, o.output ? o.output : "-", &d))
			return EXIT_IO;
	}

	int worst = EXIT_OK;
	for (int i = optind; i < argc; i++) {
		int r = check_one(argv[i], &o, out.fp);
		if (r > worst)
			worst = r;
	}

	if (o.mode != MODE_CHECK) {
		if (worst == EXIT_IO || worst == EXIT_BAD_INPUT) {
			outfile_abort(&out); /* no partial output file */
			if (out.fp == stdout)
				fflush(stdout);
		} else if (outfile_commit(&out, &d)) {
			return EXIT_IO;
		}
	} else if (fflush(stdout) || ferror(stdout)) {
		die(&d, EXIT_IO, "cannot write standard output");
	}
	return worst;
}

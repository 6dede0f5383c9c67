/*
 * fold.c - the `fold` stage: ONNX-level IR in, ONNX-level IR out, after
 * torch.onnx.export's closing passes (BatchNorm folded into Conv, constant
 * folding, dead code and unused initializers removed, identical
 * initializers merged).  Thin: options, ir_read, fold_graph()
 * (lib/fold/fold.c), ir_write.  With --data-file, the weights the passes
 * compute go to that file and the stream refers to them (pt2onnx uses it
 * so that computed weights do not cross the pipes inline; a Float Conv
 * weight by reference fused with a BatchNorm is a scaled view instead,
 * computed by emit).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "fold.h"
#include "ir.h"
#include "tool_io.h"
#include "tool_opts.h"
#include "version.h"

static const char usage_text[] =
"usage: fold [OPTIONS] [INPUT]\n"
"\n"
"Reads an ONNX-level IR stream (binary or text; INPUT or standard input)\n"
"and writes it back after torch.onnx.export's closing passes:\n"
"  1. Conv followed by BatchNormalization (inference, constant parameters)\n"
"     becomes one Conv with new weights;\n"
"  2. constant folding (opset 9 and later): nodes whose inputs are all\n"
"     constants, and Shape/Size of fully static shapes, become initializers;\n"
"     an If with a constant condition becomes the branch it takes; then\n"
"     torch's peepholes: nodes that do nothing (Cast to its own type,\n"
"     Reshape/Expand to the shape it has, whole Slice, identity Transpose,\n"
"     x+0, x*1, Identity) go, Slice of Slice becomes one, equal nodes merge,\n"
"     LogSoftmax + NLLLoss becomes SoftmaxCrossEntropyLoss (opset 12+),\n"
"     an RMSNorm written out (x * rsqrt(mean(x^2) + eps) [* weight])\n"
"     becomes RMSNormalization (opset 23+);\n"
"  3. unused nodes and initializers are removed;\n"
"  4. identical initializers are merged.\n"
"\n"
"  -o, --output FILE     where to write (default '-': standard output)\n"
"  -S, --text            write the text form instead of binary\n"
"      --no-fold         no pass at all: the graph is read, checked and\n"
"                        written back\n"
"      --no-constant-folding\n"
"                        skip pass 2's constant folding (torch's\n"
"                        do_constant_folding=False: the peepholes and the\n"
"                        other passes still run)\n"
"      --no-peephole     skip pass 2's peepholes\n"
"      --no-bn-fold      skip pass 1\n"
"      --no-dce          skip pass 3\n"
"      --no-dedup        skip pass 4\n"
"      --data-file FILE  write computed weights of 4 KiB and more to FILE\n"
"                        (created or truncated; absolute paths in the\n"
"                        stream) instead of inline: FILE must stay until\n"
"                        the stages after fold have read it\n"
"  -v, --verbose         say on standard error what each pass did\n"
"  -f, --force           write binary to a terminal\n"
"  -h, --help            this text\n"
"  -V, --version         the version\n"
"\n"
"Exit status: 0 written, 2 usage, 3 malformed input or weight file,\n"
"4 unsupported (aten-level IR), 5 I/O error.\n";

enum {
	OPT_NO_FOLD = 256,
	OPT_NO_CONSTANT_FOLDING,
	OPT_NO_PEEPHOLE,
	OPT_NO_BN_FOLD,
	OPT_NO_DCE,
	OPT_NO_DEDUP,
	OPT_DATA_FILE,
};

static const struct option long_options[] = {
	TOOL_LONG_OPTIONS_OUT,
	{ "text", no_argument, NULL, 'S' },
	{ "no-fold", no_argument, NULL, OPT_NO_FOLD },
	{ "no-constant-folding", no_argument, NULL, OPT_NO_CONSTANT_FOLDING },
	{ "no-peephole", no_argument, NULL, OPT_NO_PEEPHOLE },
	{ "no-bn-fold", no_argument, NULL, OPT_NO_BN_FOLD },
	{ "no-dce", no_argument, NULL, OPT_NO_DCE },
	{ "no-dedup", no_argument, NULL, OPT_NO_DEDUP },
	{ "data-file", required_argument, NULL, OPT_DATA_FILE },
	{ "verbose", no_argument, NULL, 'v' },
	TOOL_LONG_OPTIONS_END,
};

int main(int argc, char **argv)
{
	struct diag d;
	struct fold_options o;
	struct fold_stats st;
	struct tool_out out = TOOL_OUT_INIT;
	int verbose = 0, run = 1, c, rc;

	diag_init(&d, "fold");
	tool_init("fold");
	fold_options_init(&o);
	while ((c = getopt_long(argc, argv, "o:SvfhV", long_options, NULL))
	       != -1) {
		switch (c) {
		case OPT_NO_FOLD: run = 0; break;
		case OPT_NO_CONSTANT_FOLDING: o.constant_fold = 0; break;
		case OPT_NO_PEEPHOLE: o.peephole = 0; break;
		case OPT_NO_BN_FOLD: o.bn_fold = 0; break;
		case OPT_NO_DCE: o.dce = 0; break;
		case OPT_NO_DEDUP: o.dedup = 0; break;
		case OPT_DATA_FILE:
			if (!*optarg) {
				diag_error(&d, "--data-file: empty file name");
				return EXIT_USAGE;
			}
			o.data_file = optarg;
			break;
		case 'v': verbose = 1; break;
		default:
			rc = tool_option("fold", usage_text, c, optarg, &out);
			if (rc != TOOL_OPT_CONTINUE)
				return rc;
		}
	}
	if (argc - optind > 1) {
		diag_error(&d, "one input at most (try 'fold --help')");
		return EXIT_USAGE;
	}

	struct ir_graph *g = tool_read_ir(optind < argc ? argv[optind] : "-",
					  &d, &rc);
	if (!g)
		return rc;
	d.file = NULL;
	rc = run ? fold_graph(g, &o, &st, &d) : 0;
	if (!rc && run && verbose)
		fprintf(stderr, "fold: %u BatchNormalization fused, %u nodes "
			"folded, %u dead nodes and %u unused initializers "
			"removed, %u duplicate initializers merged, %llu "
			"bytes to the data file\n",
			st.bn_folded, st.folded, st.dead_nodes,
			st.dead_weights, st.deduped,
			(unsigned long long)st.data_bytes);
	if (!rc) {
		rc = tool_write_ir(g, out.output, out.text, out.force, &d);
		if (rc && st.data_bytes)
			unlink(o.data_file); /* no stream refers to it */
	}
	ir_graph_free(g);
	return rc;
}

/*
 * unpt2.c - the `unpt2` stage: a torch.export archive (torch.export.save's
 * .pt2) in, the aten-level IR of its program out (lib/pt2/pt2.c), the
 * third front door beside script and trace.  Nothing in the archive is
 * executed and the sample inputs are not read: the program carries its
 * input shapes.
 *
 * Thin: options, zip_open(), pt2_read(), tool_write_ir() (-o appears whole
 * or not at all).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "ir.h"
#include "pt2.h"
#include "tool_io.h"
#include "tool_opts.h"
#include "version.h"
#include "zip.h"

static const char usage_text[] =
"usage: unpt2 [OPTIONS] MODEL.pt2\n"
"\n"
"Reads the ExportedProgram of a torch.export archive (models/NAME.json,\n"
"schema major version 8) into aten-level IR (docs/ir.md): parameters,\n"
"buffers and tensor constants as weights referring into MODEL.pt2, the\n"
"program's user inputs and outputs under its names, dynamic dims as the\n"
"symbols of its range constraints.\n"
"\n"
"  -m, --model NAME      the program to read when the archive holds\n"
"                        several (models/NAME.json)\n"
"  -o, --output FILE     write there (default '-': standard output)\n"
"  -S                    write the text form instead of binary\n"
"  -f, --force           write binary to a terminal\n"
"  -h, --help            this text\n"
"  -V, --version         the version\n"
"\n"
"Exit status: 0 written, 2 usage, 3 malformed archive, 4 unsupported\n"
"construct (every call that cannot be converted is listed), 5 I/O error.\n";

static const struct option long_options[] = {
	{ "model", required_argument, NULL, 'm' },
	TOOL_LONG_OPTIONS_OUT,
	TOOL_LONG_OPTIONS_END,
};

int main(int argc, char **argv)
{
	struct diag d;
	struct pt2_options o;
	struct zip *z;
	struct ir_graph *g;
	struct tool_out out = TOOL_OUT_INIT;
	int c, code;

	tool_init("unpt2");
	diag_init(&d, "unpt2");
	memset(&o, 0, sizeof(o));
	while ((c = getopt_long(argc, argv, "m:o:SfhV", long_options,
				NULL)) != -1) {
		switch (c) {
		case 'm': o.model = optarg; break;
		default:
			code = tool_option("unpt2", usage_text, c, optarg, &out);
			if (code != TOOL_OPT_CONTINUE)
				return code;
		}
	}
	if (optind != argc - 1) {
		diag_error(&d, "expected one MODEL.pt2 argument");
		return tool_bad_option("unpt2");
	}
	o.ref_file = argv[optind];
	z = zip_open(argv[optind], &d);
	if (!z)
		return EXIT_BAD_INPUT;
	d.file = argv[optind];
	g = pt2_read(z, &o, &d, &code);
	zip_close(z);
	return tool_finish_ir(g, code, &out, &d);
}

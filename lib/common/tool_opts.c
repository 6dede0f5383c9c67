/*
 * tool_opts.c - the option scaffolding of the tools (see tool_opts.h).
 */
#include "tool_opts.h"

#include <stdlib.h>

#include "diag.h"
#include "version.h"

static const char *oom_tool = "pt2onnx";

static void tool_oom(size_t size)
{
	fprintf(stderr, "%s: out of memory allocating %zu bytes\n", oom_tool,
		size);
	exit(EXIT_IO);
}

void tool_init(const char *tool)
{
	oom_tool = tool;
	diag_set_oom(tool_oom);
}

int tool_version(const char *tool, const char *extra)
{
	printf("%s (pt2onnx) %s\n", tool, PT2ONNX_VERSION);
	if (extra)
		printf("%s\n", extra);
	return EXIT_OK;
}

int tool_help(const char *usage)
{
	fputs(usage, stdout);
	return EXIT_OK;
}

int tool_bad_option(const char *tool)
{
	fprintf(stderr, "Try '%s --help'.\n", tool);
	return EXIT_USAGE;
}

int tool_option(const char *tool, const char *usage, int c, const char *arg,
		struct tool_out *out)
{
	switch (c) {
	case 'h':
		return tool_help(usage);
	case 'V':
		return tool_version(tool, NULL);
	case 'o':
		if (!out)
			break;
		out->output = arg;
		return TOOL_OPT_CONTINUE;
	case 'S':
		if (!out)
			break;
		out->text = 1;
		return TOOL_OPT_CONTINUE;
	case 'f':
		if (!out)
			break;
		out->force = 1;
		return TOOL_OPT_CONTINUE;
	}
	return tool_bad_option(tool);
}

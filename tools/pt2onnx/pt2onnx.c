/*
 * pt2onnx.c - the wrapper: `pt2onnx STAGE ARGS...` runs one stage tool the
 * way git runs its plumbing, so that installed stages can live in
 * PREFIX/libexec/pt2onnx without shadowing system commands (`fold` is
 * coreutils, `script` is util-linux).
 *
 * Stages are looked up in $PT2ONNX_EXEC_PATH, then in ../libexec/pt2onnx
 * next to this binary (an install), then next to this binary (the build
 * tree's bin/).  Anything else is the one-command export
 * (`pt2onnx model.pt -o model.onnx`, export.c).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arena.h"
#include "diag.h"
#include "tool_opts.h"
#include "export.h"
#include "version.h"

static const struct {
	const char *name, *what;
} stages[] = {
	{ "trace", "run an archive once and record the aten ops that ran" },
	{ "script", "read an archive's code as an aten graph, control flow kept" },
	{ "unpt2", "read a torch.export archive (.pt2) as an aten graph" },
	{ "lower", "aten IR -> ONNX IR, per opset" },
	{ "fold", "constant folding and clean-up of ONNX IR" },
	{ "emit", "ONNX IR -> .onnx file" },
	{ "check", "validate and print any .onnx file" },
};

static void usage(FILE *fp)
{
	fprintf(fp, "usage: pt2onnx MODEL.pt -o MODEL.onnx [OPTIONS]\n"
		    "       pt2onnx STAGE [ARGS...]\n"
		    "       pt2onnx --help | --version | --exec-path\n\n"
		    "The first form exports in one command, at ONNX opset "
		    PT2ONNX_STR(PT2ONNX_OPSET_DEFAULT) "\nunless "
		    "--opset-version says another, from "
		    PT2ONNX_STR(PT2ONNX_OPSET_MIN) " to "
		    PT2ONNX_STR(PT2ONNX_OPSET_MAX) ".\nThe second runs "
		    "one stage.\n\n"
		    "stages (each has --help):\n");
	for (size_t i = 0; i < sizeof(stages) / sizeof(stages[0]); i++)
		fprintf(fp, "  %-8s %s\n", stages[i].name, stages[i].what);
	fputs("\nThe export (options named after torch.onnx.export's):\n\n",
	      fp);
	export_help(fp);
}

/* The directory this binary lives in, into buf; 0 or -1. */
static int self_dir(char *buf, size_t size)
{
	ssize_t n = readlink("/proc/self/exe", buf, size - 1);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	char *slash = strrchr(buf, '/');
	if (!slash)
		return -1;
	*slash = 0;
	return 0;
}

/* Finds the stage's executable; writes its path into out. 0 or -1. */
static int find_stage(const char *stage, char *out, size_t size)
{
	char dir[PATH_MAX];
	const char *env = getenv("PT2ONNX_EXEC_PATH");
	if (env && *env) {
		snprintf(out, size, "%s/%s", env, stage);
		if (access(out, X_OK) == 0)
			return 0;
	}
	if (self_dir(dir, sizeof(dir)) == 0) {
		snprintf(out, size, "%s/../libexec/pt2onnx/%s", dir, stage);
		if (access(out, X_OK) == 0)
			return 0;
		snprintf(out, size, "%s/%s", dir, stage);
		if (access(out, X_OK) == 0)
			return 0;
	}
	return -1;
}

/* find_stage for export.c: a path that stays valid, or NULL. */
static const char *stage_path(const char *stage)
{
	char path[PATH_MAX + 64];
	return find_stage(stage, path, sizeof(path)) == 0 ? xstrdup(path)
							  : NULL;
}

int main(int argc, char **argv)
{
	struct diag d;
	char path[PATH_MAX + 64], dir[PATH_MAX];

	diag_init(&d, "pt2onnx");
	tool_init("pt2onnx");
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "--version"))
		return tool_version("pt2onnx", NULL);
	if (!strcmp(argv[1], "--exec-path")) {
		if (find_stage("emit", path, sizeof(path)) == 0) {
			*strrchr(path, '/') = 0;
			printf("%s\n", path);
			return EXIT_OK;
		}
		if (self_dir(dir, sizeof(dir)) == 0)
			printf("%s\n", dir);
		return EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(stages) / sizeof(stages[0]); i++) {
		if (strcmp(argv[1], stages[i].name))
			continue;
		if (find_stage(stages[i].name, path, sizeof(path)) != 0)
			die(&d, EXIT_USAGE, "stage '%s' is not installed "
			    "(set PT2ONNX_EXEC_PATH)", stages[i].name);
		argv[1] = path;
		execv(path, argv + 1);
		die(&d, EXIT_IO, "cannot run '%s': %s", path, strerror(errno));
	}
	return export_main(argc, argv, stage_path);
}

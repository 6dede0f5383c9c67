/*
 * tool_io.c - reading and writing a stage's IR (see tool_io.h).
 *
 * The IR is serialised into memory first and then written through
 * outfile_write in one piece, so that a failure at any point (including an
 * injected one) leaves no file and the fault injection counts writes the
 * same way for every stage.
 */
#include "tool_io.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "outfile.h"

struct ir_graph *tool_read_ir(const char *path, struct diag *d, int *code)
{
	struct ir_source src;
	int is_stdin = !path || !strcmp(path, "-");

	src.fp = is_stdin ? stdin : fopen(path, "rb");
	src.name = is_stdin ? "<stdin>" : path;
	if (!src.fp) {
		diag_error(d, "cannot open '%s': %s", path, strerror(errno));
		*code = EXIT_IO;
		return NULL;
	}
	d->file = src.name;
	struct ir_graph *g = ir_read(&src, d);
	if (!is_stdin)
		fclose(src.fp);
	if (!g)
		*code = EXIT_BAD_INPUT;
	return g;
}

int tool_write_buf(const char *path, const void *buf, size_t len,
		   struct diag *d)
{
	struct outfile out;

	if (outfile_open(&out, path, d))
		return -1;
	if (outfile_write(&out, buf, len, d)) {
		outfile_abort(&out);
		return -1;
	}
	return outfile_commit(&out, d) ? -1 : 0;
}

int tool_write_ir(const struct ir_graph *g, const char *path, int text,
		  int force, struct diag *d)
{
	const char *saved = d->file;
	char *buf = NULL;
	size_t len = 0;
	int rc = EXIT_OK;

	d->file = NULL; /* messages below are about the output */
	if (!path)
		path = "-";
	if (!text && !strcmp(path, "-") && refuse_terminal(stdout, force, d)) {
		d->file = saved;
		return EXIT_USAGE;
	}
	FILE *mem = open_memstream(&buf, &len);
	if (!mem) {
		diag_error(d, "out of memory: %s", strerror(errno));
		d->file = saved;
		return EXIT_IO;
	}
	int bad = ir_write(g, mem, text, d);
	if (fclose(mem) != 0 || bad) {
		free(buf);
		d->file = saved;
		return bad ? EXIT_BAD_INPUT : EXIT_IO;
	}
	if (tool_write_buf(path, buf, len, d))
		rc = EXIT_IO;
	free(buf);
	d->file = saved;
	return rc;
}

int tool_finish_ir(struct ir_graph *g, int code, const struct tool_out *out,
		   struct diag *d)
{
	if (!g)
		return code;
	code = tool_write_ir(g, out->output, out->text, out->force, d);
	ir_graph_free(g);
	return code;
}

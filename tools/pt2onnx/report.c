/*
 * report.c - --report's markdown and --profile's table (report.h).
 */
#include <stdlib.h>
#include <string.h>

#include "report.h"

static int find_kind(struct op_count **c, int *n, int *cap, const char *kind)
{
	for (int i = 0; i < *n; i++)
		if (!strcmp((*c)[i].kind, kind))
			return i;
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		struct op_count *m = realloc(*c, (size_t)*cap * sizeof(**c));
		if (!m)
			return -1;
		*c = m;
	}
	(*c)[*n].kind = kind;
	(*c)[*n].n = 0;
	return (*n)++;
}

static void count_block(const struct ir_block *b, struct op_count **c, int *n,
			int *cap)
{
	for (const struct ir_node *nd = b->first; nd; nd = nd->next) {
		int k = find_kind(c, n, cap, nd->kind);
		if (k >= 0)
			(*c)[k].n++;
		for (uint32_t i = 0; i < nd->nblocks; i++)
			count_block(nd->blocks[i], c, n, cap);
	}
}

static int by_count(const void *a, const void *b)
{
	const struct op_count *x = a, *y = b;
	if (x->n != y->n)
		return x->n < y->n ? 1 : -1;
	return strcmp(x->kind, y->kind);
}

struct op_count *report_count_ops(const struct ir_graph *g, int *n)
{
	struct op_count *c = NULL;
	int cap = 0;

	*n = 0;
	count_block(g->top, &c, n, &cap);
	if (c)
		qsort(c, (size_t)*n, sizeof(*c), by_count);
	return c;
}

uint64_t report_weight_bytes(const struct ir_graph *g)
{
	uint64_t sum = 0;

	for (const struct ir_weight *w = g->weights; w; w = w->next)
		sum += ir_tensor_numel(w->tensor) *
		       ir_dtype_size(w->tensor->dtype);
	return sum;
}

static void stage_row(FILE *fp, const struct stage_stat *s, const char *fmt)
{
	char st[32];

	if (s->status < 0)
		snprintf(st, sizeof(st), "not run");
	else
		snprintf(st, sizeof(st), "%d", s->status);
	fprintf(fp, fmt, s->name, s->wall_s, s->cpu_s,
		(double)s->maxrss_kb / 1024.0, st);
}

void profile_write(FILE *fp, const struct stage_stat *s, int n,
		   double total_s)
{
	fprintf(fp, "pt2onnx: profile: %-8s %9s %9s %10s  %s\n", "stage",
		"wall s", "cpu s", "peak MiB", "exit");
	for (int i = 0; i < n; i++)
		stage_row(fp, &s[i], "pt2onnx: profile: %-8s %9.3f %9.3f "
			  "%10.1f  %s\n");
	fprintf(fp, "pt2onnx: profile: %-8s %9.3f\n", "total", total_s);
}

/* The op of a stage's message line: its first word with "::" in it. */
static int line_op(const char *line, size_t len, const char **op,
		   size_t *oplen)
{
	for (size_t i = 0; i + 1 < len; i++) {
		if (line[i] != ':' || line[i + 1] != ':')
			continue;
		size_t s = i, e = i + 2;
		while (s > 0 && line[s - 1] != ' ' && line[s - 1] != '\'' &&
		       line[s - 1] != '"')
			s--;
		while (e < len && line[e] != ' ' && line[e] != ':' &&
		       line[e] != ',' && line[e] != '\'' && line[e] != '"' &&
		       line[e] != '(')
			e++;
		*op = line + s;
		*oplen = e - s;
		return 1;
	}
	return 0;
}

/* Markdown cells: | would end one. */
static void cell(FILE *fp, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '|')
			fputs("\\|", fp);
		else if (s[i] != '\n')
			fputc(s[i], fp);
	}
}

void report_write(FILE *fp, const struct report *r)
{
	fprintf(fp, "# pt2onnx export report\n\n");
	fprintf(fp, "- model: `%s`\n- output: `%s`\n- front stage: %s\n"
		"- opset: %s\n- result: %s (exit %d)\n\n", r->model,
		r->output, r->front, r->opset, r->rc ? "failed" : "exported",
		r->rc);

	fprintf(fp, "## Ops seen\n\n");
	if (!r->ops) {
		fprintf(fp, "None: the %s stage wrote no graph.\n\n",
			r->front);
	} else {
		uint64_t total = 0;
		fprintf(fp, "The aten-level graph the %s stage wrote.\n\n"
			"| op | count |\n| --- | ---: |\n", r->front);
		for (int i = 0; i < r->nops; i++) {
			fprintf(fp, "| `%s` | %llu |\n", r->ops[i].kind,
				(unsigned long long)r->ops[i].n);
			total += r->ops[i].n;
		}
		fprintf(fp, "| total | %llu |\n\n", (unsigned long long)total);
	}

	fprintf(fp, "## Failures\n\n");
	if (r->failed < 0) {
		fprintf(fp, "None.\n\n");
	} else {
		const char *m = r->fail_messages ? r->fail_messages : "";
		fprintf(fp, "The %s stage failed (exit %d).\n\n",
			r->stats[r->failed].name, r->stats[r->failed].status);
		int header = 0;
		for (const char *p = m; *p;) {
			const char *nl = strchr(p, '\n');
			size_t len = nl ? (size_t)(nl - p) : strlen(p);
			const char *op;
			size_t oplen;
			if (line_op(p, len, &op, &oplen)) {
				if (!header)
					fprintf(fp, "| op | scope | message |\n"
						"| --- | --- | --- |\n");
				header = 1;
				fputs("| `", fp);
				cell(fp, op, oplen);
				fputs("` | ", fp);
				/* "OP at SCOPE (source) ...", lower's form */
				const char *sc = op + oplen, *end = p + len;
				size_t sl = 0;
				if (end - sc > 4 && !memcmp(sc, " at ", 4)) {
					sc += 4;
					while (sc + sl < end &&
					       strncmp(sc + sl, " (", 2) &&
					       strncmp(sc + sl, " has ", 5))
						sl++;
				}
				cell(fp, sc, sl);
				fputs(" | ", fp);
				cell(fp, p, len);
				fputs(" |\n", fp);
			}
			p += len + (nl != NULL);
		}
		fprintf(fp, "%sIts messages:\n\n```\n%s%s```\n\n",
			header ? "\n" : "", m,
			*m && m[strlen(m) - 1] != '\n' ? "\n" : "");
	}

	fprintf(fp, "## Time and memory\n\n"
		"The stages of one pipe run at once: a stage's wall time runs "
		"from its start to its exit.\n\n"
		"| stage | wall s | cpu s | peak RSS MiB | exit |\n"
		"| --- | ---: | ---: | ---: | --- |\n");
	for (int i = 0; i < r->nstats; i++)
		stage_row(fp, &r->stats[i], "| %s | %.3f | %.3f | %.1f | %s |\n");
	fprintf(fp, "\n- total wall time: %.3f s\n- peak memory (largest "
		"process): %.1f MiB\n\n", r->total_s,
		(double)r->peak_kb / 1024.0);

	if (r->verify && !*r->verify)
		fprintf(fp, "## Verification\n\nNot run: the export failed "
			"first.\n");
	else if (r->verify)
		fprintf(fp, "## Verification\n\n```\n%s```\n", r->verify);
}

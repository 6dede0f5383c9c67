/*
 * test_pt2_reader.c - unit tests of lib/pt2/pt2.c on torch.export
 * archives built in memory (tests/archive/pt2build.h): what the graph gets
 * (inputs, weights referring into the stored entry at the offset the zip
 * reader locates, schema defaults filled in, symbols), and the one-line
 * refusals of malformed programs.
 */
#include "unit.h"

#include <stdlib.h>
#include <string.h>

#include "../archive/pt2build.h"
#include "pt2.h"
#include "zip.h"

struct run {
	struct ir_graph *g;
	int code;
	char *text; /* the messages */
	size_t len;
	uint64_t weight_at; /* data offset of weight_0, from zip_locate */
};

/* Reads `json` in the small archive (weight strides s0, s1). */
static void read_pt2(struct run *r, const char *json, int s0, int s1)
{
	struct zb z = ZB_INIT;
	struct diag d;
	struct pt2_options o = { NULL, "m.pt2" };

	memset(r, 0, sizeof(*r));
	pt2_build(&z, json, strlen(json), s0, s1);
	diag_init(&d, "test");
	d.out = open_memstream(&r->text, &r->len);
	struct zip *zp = zip_open_mem(z.buf, z.len, "m.pt2", &d);
	CHECK(zp != NULL);
	if (zp) {
		const struct zip_entry *e = zip_find(zp,
			"exported/data/weights/weight_0");
		CHECK(e && !zip_locate(zp, e, &r->weight_at, &d));
		d.file = "m.pt2";
		r->g = pt2_read(zp, &o, &d, &r->code);
		zip_close(zp);
	}
	fclose(d.out);
	zb_free(&z);
}

static void run_free(struct run *r)
{
	ir_graph_free(r->g);
	free(r->text);
}

/* The program with `from` replaced by `to` (once). */
static char *edited(const char *from, const char *to)
{
	const char *p = strstr(PT2_SMALL_PROGRAM, from);
	size_t n = strlen(PT2_SMALL_PROGRAM) - strlen(from) + strlen(to) + 1;
	char *s = malloc(n);

	CHECK(p != NULL);
	if (!p) {
		snprintf(s, n, "%s", PT2_SMALL_PROGRAM);
		return s;
	}
	snprintf(s, n, "%.*s%s%s", (int)(p - PT2_SMALL_PROGRAM),
		 PT2_SMALL_PROGRAM, to, p + strlen(from));
	return s;
}

/* One error line holding `want`, exit `code`, no graph. */
static void check_refused(const char *json, int code, const char *want)
{
	struct run r;

	read_pt2(&r, json, 2, 1);
	CHECK(r.g == NULL);
	CHECK_INT(r.code, code);
	CHECK(r.text && strstr(r.text, want));
	CHECK(r.text && strchr(r.text, '\n') == r.text + r.len - 1);
	if (r.text && !strstr(r.text, want))
		fprintf(stderr, "  got: %s", r.text);
	run_free(&r);
}

static void test_small_program(void)
{
	struct run r;

	read_pt2(&r, PT2_SMALL_PROGRAM, 2, 1);
	CHECK(r.g != NULL);
	if (!r.g) {
		fprintf(stderr, "  %s", r.text ? r.text : "");
		run_free(&r);
		return;
	}
	struct ir_block *top = r.g->top;
	CHECK_INT(top->nparams, 1);
	CHECK_STR(top->params[0]->name, "x");
	CHECK_INT(top->params[0]->type->rank, 2);
	CHECK_INT(top->params[0]->type->dims[0].kind, IR_DIM_SYMBOL);
	CHECK_STR(top->params[0]->type->dims[0].symbol, "s0");
	CHECK_INT(r.g->nweights, 1);
	struct ir_weight *w = r.g->weights;
	CHECK_STR(w->value->name, "w");
	CHECK_INT(w->tensor->data_kind, IR_DATA_REF);
	CHECK_STR(w->tensor->ref.file, "m.pt2");
	CHECK_INT(w->tensor->ref.offset, r.weight_at);
	CHECK_INT(w->tensor->ref.length, 16);
	CHECK(w->tensor->ref.strides == NULL);
	/* add.Tensor(x, p_w) with alpha from the schema: aten::add(x, w, 1) */
	struct ir_node *n, *add = NULL, *size = NULL;
	for (n = top->first; n; n = n->next) {
		if (n->op == OP_aten_add)
			add = n;
		if (n->op == OP_aten_size)
			size = n;
	}
	CHECK(add && add->ninputs == 3);
	CHECK(size && size->ninputs == 2);
	if (add && add->ninputs == 3) {
		CHECK(add->inputs[0] == top->params[0]);
		CHECK(add->inputs[1] == w->value);
		struct ir_node *alpha = add->inputs[2]->producer;
		CHECK(alpha && alpha->op == OP_prim_Constant);
		struct ir_attr *a = alpha ? ir_node_find_attr(alpha, "value")
					  : NULL;
		CHECK(a && a->kind == IR_ATTR_INT && a->u.i == 1);
		CHECK_STR(add->outputs[0]->name, "add");
	}
	CHECK_INT(top->nreturns, 1);
	CHECK(add && top->returns[0] == add->outputs[0]);
	run_free(&r);
}

static void test_strided_weight(void)
{
	struct run r;

	read_pt2(&r, PT2_SMALL_PROGRAM, 1, 2); /* a transposed view */
	CHECK(r.g != NULL);
	if (r.g) {
		struct ir_tensor *t = r.g->weights->tensor;
		CHECK(t->ref.strides != NULL);
		CHECK(t->ref.strides && t->ref.strides[0] == 1 &&
		      t->ref.strides[1] == 2);
		CHECK_INT(t->ref.length, 16);
	}
	run_free(&r);
}

static void test_refusals(void)
{
	char *s;

	check_refused(s = edited("\"major\": 8", "\"major\": 7"),
		      EXIT_UNSUPPORTED, "schema version 7.17 is not supported "
		      "(only major version 8)");
	free(s);
	check_refused(s = edited("\"minor\": 17", "\"minor\": 17, \"minor\": "
				 "18"), EXIT_BAD_INPUT, "duplicate object key");
	free(s);
	check_refused(s = edited(", {\"name\": \"other\", \"arg\": {\"as_tensor"
				 "\": {\"name\": \"p_w\"}}, \"kind\": 1}", ""),
		      EXIT_BAD_INPUT, "argument 'other' of aten::add.Tensor is "
		      "missing");
	free(s);
	check_refused(s = edited("{\"as_tensor\": {\"name\": \"x\"}}, \"kind\""
				 ": 1}, {\"name\": \"dim\"", "{\"as_tensor\": "
				 "{\"name\": \"add\"}}, \"kind\": 1}, {\"name\": "
				 "\"dim\""), EXIT_BAD_INPUT,
		      "value 'add' is not defined before its use");
	free(s);
	check_refused(s = edited("\"parameter_name\": \"w\"",
				 "\"parameter_name\": \"v\""), EXIT_BAD_INPUT,
		      "parameter 'v' has no entry in the weights or constants "
		      "config");
	free(s);
	check_refused(s = edited("\"name\": \"add\"}}], \"name\": \"add\"",
				 "\"name\": \"a\\u0000b\"}}], \"name\": \"add\""),
		      EXIT_BAD_INPUT, "\\u0000 is not allowed");
	free(s);
	check_refused(s = edited("torch.ops.aten.add.Tensor",
				 "torch.ops.higher_order.cond"),
		      EXIT_UNSUPPORTED, "1 call cannot be converted: "
		      "torch.ops.higher_order.cond (node add)");
	free(s);
	check_refused("[1, 2]", EXIT_BAD_INPUT, "not a JSON object");
	check_refused("{\"schema_version\": ", EXIT_BAD_INPUT,
		      "exported/models/model.json:1:");
}

const struct unit_test unit_tests[] = {
	UNIT(test_small_program),
	UNIT(test_strided_weight),
	UNIT(test_refusals),
	{ 0 },
};

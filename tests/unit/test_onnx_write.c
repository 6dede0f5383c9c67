/*
 * test_onnx_write.c - unit tests for lib/onnx/onnx_write (option parsers,
 * the ir_version table, varints) and a model written from a graph built
 * with the ir.h API, read back with protobuf-c: names, types, attributes,
 * inline and strided by-reference data.
 */
#include "unit.h"

#include <stdlib.h>
#include <unistd.h>

#include "ir.h"
#include "onnx.pb-c.h"
#include "onnx_write.h"
#include "pb_stream.h"

static struct diag quiet_diag(void)
{
	struct diag d;
	diag_init(&d, "test");
	d.quiet = 1;
	return d;
}

static void test_ir_version_table(void)
{
	static const int64_t want[][2] = {
		{ 7, 3 }, { 8, 3 }, { 9, 4 }, { 10, 5 }, { 11, 6 }, { 12, 7 },
		{ 14, 7 }, { 15, 8 }, { 18, 8 }, { 19, 9 }, { 20, 9 },
		{ 21, 10 }, { 22, 10 }, { 23, 11 }, { 24, 12 }, { 25, 13 },
		{ 26, 13 }, { 0, -1 }, { 27, -1 },
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		CHECK_INT(onnx_ir_version_for_opset(want[i][0]), want[i][1]);
}

static void test_varint(void)
{
	unsigned char buf[10];
	CHECK_INT(pb_varint_size(0), 1);
	CHECK_INT(pb_varint_size(127), 1);
	CHECK_INT(pb_varint_size(128), 2);
	CHECK_INT(pb_varint_size(UINT64_MAX), 10);
	CHECK_INT(pb_varint_put(buf, 300), 2);
	CHECK_INT(buf[0], 0xac);
	CHECK_INT(buf[1], 0x02);
}

static void test_parse_names(void)
{
	struct diag d = quiet_diag();
	char **names = NULL;
	uint32_t n = 0;

	CHECK_INT(onnx_write_parse_names(&names, &n, "a,b", &d), 0);
	CHECK_INT(onnx_write_parse_names(&names, &n, "[\"c,d\", 'e']", &d), 0);
	CHECK_INT(n, 4);
	CHECK_STR(names[0], "a");
	CHECK_STR(names[2], "c,d");
	CHECK_STR(names[3], "e");
	CHECK_INT(onnx_write_parse_names(&names, &n, "a,,b", &d), -1);
	CHECK_INT(onnx_write_parse_names(&names, &n, "[\"a\"", &d), -1);
	CHECK_INT(onnx_write_parse_names(&names, &n, "[\"\"]", &d), -1);
	for (uint32_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

static void test_parse_dynamic_axes(void)
{
	struct diag d = quiet_diag();
	struct onnx_write_options o;

	onnx_write_options_init(&o);
	CHECK_INT(onnx_write_parse_dynamic_axes(&o, "x:0=batch,2=h;y:0,1", &d), 0);
	CHECK_INT(o.ndyn_axes, 4);
	CHECK_STR(o.dyn_axes[0].value, "x");
	CHECK_INT(o.dyn_axes[1].axis, 2);
	CHECK_STR(o.dyn_axes[1].name, "h");
	CHECK(o.dyn_axes[3].name == NULL);
	CHECK_INT(o.dyn_axes[3].index, 1);
	/* names may hold ':'; labels may too */
	CHECK_INT(onnx_write_parse_dynamic_axes(&o, "a:b:0=n:m", &d), 0);
	CHECK_STR(o.dyn_axes[4].value, "a:b");
	CHECK_STR(o.dyn_axes[4].name, "n:m");
	CHECK_INT(onnx_write_parse_dynamic_axes(
			  &o, "{'in': {1: \"s\"}, \"out\": [2, 3]}", &d), 0);
	CHECK_INT(o.ndyn_axes, 8);
	CHECK_STR(o.dyn_axes[5].name, "s");
	CHECK_INT(o.dyn_axes[7].axis, 3);
	CHECK_INT(o.dyn_axes[7].index, 1);
	CHECK_INT(onnx_write_parse_dynamic_axes(&o, "x:0=dup", &d), -1);
	CHECK_INT(onnx_write_parse_dynamic_axes(&o, "z", &d), -1);
	CHECK_INT(onnx_write_parse_dynamic_axes(&o, "z:0,", &d), -1);
	CHECK_INT(onnx_write_parse_dynamic_axes(&o, "z:0=a,1", &d), -1);
	CHECK_INT(onnx_write_parse_dynamic_axes(&o, "{\"z\": {-1: \"a\"}}", &d), -1);
	CHECK_INT(onnx_write_parse_dynamic_axes(&o, "{\"z\": [0}", &d), -1);
	onnx_write_options_release(&o);
}

static void test_parse_custom_opset(void)
{
	struct diag d = quiet_diag();
	struct onnx_write_options o;

	onnx_write_options_init(&o);
	CHECK_INT(onnx_write_parse_custom_opset(&o, "a.b=2,c=3", &d), 0);
	CHECK_INT(onnx_write_parse_custom_opset(&o, "{\"a.b\": 4}", &d), 0);
	CHECK_INT(o.ncustom_opsets, 2);
	CHECK_INT(o.custom_opsets[0].version, 4);
	CHECK_INT(onnx_write_parse_custom_opset(&o, "=1", &d), -1);
	CHECK_INT(onnx_write_parse_custom_opset(&o, "ai.onnx=1", &d), -1);
	CHECK_INT(onnx_write_parse_custom_opset(&o, "x=0", &d), -1);
	CHECK_INT(onnx_write_parse_custom_opset(&o, "x=1y", &d), -1);
	onnx_write_options_release(&o);
}

static Onnx__ModelProto *read_model(const char *path)
{
	FILE *fp = fopen(path, "rb");
	static unsigned char buf[1 << 16];
	size_t n = fp ? fread(buf, 1, sizeof(buf), fp) : 0;
	if (fp)
		fclose(fp);
	return onnx__model_proto__unpack(NULL, n, buf);
}

/* x : Float(batch, 3); w inline; t referring to a 3x2 matrix stored
 * transposed; y = Mul(x, w); z = MatMul(y, t) with the scope of a module */
static void test_write_and_read_back(void)
{
	struct diag d = quiet_diag();
	struct onnx_write_options o;
	char dir[] = "/tmp/test_onnx_write.XXXXXX", model[64], wfile[64];
	const float stored[6] = { 1, 2, 3, 4, 5, 6 }; /* 2x3, t = transpose */

	CHECK(mkdtemp(dir) != NULL);
	snprintf(model, sizeof(model), "%s/m.onnx", dir);
	snprintf(wfile, sizeof(wfile), "%s/w.bin", dir);
	FILE *fp = fopen(wfile, "wb");
	CHECK(fp && fwrite(stored, sizeof(stored), 1, fp) == 1);
	fclose(fp);

	struct ir_graph *g = ir_graph_new(IR_LEVEL_ONNX);
	ir_add_opset(g, "", 13);
	struct ir_type *xt = ir_type_tensor(g, IR_DTYPE_FLOAT, 2, NULL);
	xt->dims[0].kind = IR_DIM_SYMBOL;
	xt->dims[0].symbol = "batch";
	xt->dims[1].kind = IR_DIM_FIXED;
	xt->dims[1].value = 3;
	struct ir_value *x = ir_value_new(g, "x", xt);
	ir_block_add_param(g, g->top, x);

	int64_t d3 = 3, d32[2] = { 3, 2 };
	struct ir_tensor *wt = ir_tensor_new(g, IR_DTYPE_FLOAT, 1, &d3);
	static const float wdata[3] = { 0.5f, -1, 2 };
	wt->bytes.data = (const char *)wdata;
	wt->bytes.len = sizeof(wdata);
	struct ir_value *w = ir_add_weight(g, NULL, "w", wt);
	struct ir_tensor *tt = ir_tensor_new(g, IR_DTYPE_FLOAT, 2, d32);
	tt->data_kind = IR_DATA_REF;
	tt->ref.file = wfile;
	tt->ref.length = sizeof(stored);
	tt->ref.strides = ir_alloc(g, 2 * sizeof(int64_t));
	tt->ref.strides[0] = 1;
	tt->ref.strides[1] = 3;
	struct ir_value *t = ir_add_weight(g, NULL, "t", tt);

	struct ir_node *mul = ir_node_new(g, g->top, "onnx::Mul", 2, 1);
	mul->inputs[0] = x;
	mul->inputs[1] = w;
	struct ir_value *y = ir_value_new(g, "y", ir_type_copy(g, xt));
	ir_node_set_output(mul, 0, y);
	struct ir_node *mm = ir_node_new(g, g->top, "onnx::MatMul", 2, 1);
	mm->inputs[0] = y;
	mm->inputs[1] = t;
	mm->scope = "Net/Sequential[seq]/Linear[0]";
	struct ir_attr *a = ir_node_add_attr(g, mm, "alpha", IR_ATTR_FLOAT);
	a->u.f = 0.25;
	struct ir_type *zt = ir_type_tensor(g, IR_DTYPE_FLOAT, 2, NULL);
	zt->dims[1].kind = IR_DIM_FIXED;
	zt->dims[1].value = 2;
	struct ir_value *z = ir_value_new(g, "z", zt);
	ir_node_set_output(mm, 0, z);
	ir_block_add_return(g, g->top, z);

	onnx_write_options_init(&o);
	CHECK_INT(onnx_write_parse_names(&o.output_names, &o.noutput_names,
					 "out", &d), 0);
	CHECK_INT(onnx_write_parse_dynamic_axes(&o, "out:0", &d), 0);
	CHECK_INT(onnx_write_model(g, &o, model, &d), 0);
	CHECK_INT(d.nerrors, 0);

	Onnx__ModelProto *m = read_model(model);
	CHECK(m != NULL);
	if (m) {
		Onnx__GraphProto *gp = m->graph;
		CHECK_INT(m->ir_version, 7);
		CHECK_STR(m->producer_name, "pt2onnx");
		CHECK_INT(gp->n_node, 2);
		CHECK_STR(gp->node[1]->name, "/seq/seq.0/MatMul");
		CHECK_STR(gp->node[1]->output[0], "out");
		CHECK_INT(gp->node[1]->n_attribute, 1);
		CHECK(gp->node[1]->attribute[0]->f == 0.25f);
		CHECK_STR(gp->output[0]->name, "out");
		CHECK_STR(gp->output[0]->type->tensor_type->shape->dim[0]->dim_param,
			  "out_dynamic_axes_1");
		CHECK_STR(gp->input[0]->type->tensor_type->shape->dim[0]->dim_param,
			  "batch");
		CHECK_INT(gp->n_initializer, 2);
		CHECK_INT(gp->initializer[1]->raw_data.len, 24);
		const float want_t[6] = { 1, 4, 2, 5, 3, 6 };
		CHECK(gp->initializer[1]->raw_data.len == 24 &&
		      !memcmp(gp->initializer[1]->raw_data.data, want_t, 24));
		CHECK_INT(gp->n_value_info, 1);
		CHECK_STR(gp->value_info[0]->name, "y");
		onnx__model_proto__free_unpacked(m, NULL);
	}
	onnx_write_options_release(&o);

	/* a weight file shorter than its reference: error, no model */
	unlink(model);
	tt->ref.offset = 4;
	onnx_write_options_init(&o);
	CHECK_INT(onnx_write_model(g, &o, model, &d), EXIT_BAD_INPUT);
	CHECK(access(model, F_OK) != 0);
	onnx_write_options_release(&o);

	unlink(wfile);
	rmdir(dir);
	ir_graph_free(g);
}

static int same_file(const char *a, const char *b)
{
	FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
	int ca, cb, same = fa && fb;
	while (same && (ca = getc(fa)) == (cb = getc(fb)) && ca != EOF)
		;
	same = same && ca == cb;
	if (fa)
		fclose(fa);
	if (fb)
		fclose(fb);
	return same;
}

/* The same graph read as text and as binary IR gives the same model
 * (emit takes either; run from the repository root, as `make unit`). */
static void test_text_and_binary_input(void)
{
	struct diag d = quiet_diag();
	struct onnx_write_options o;
	char dir[] = "/tmp/test_onnx_write.XXXXXX", bin[64], m1[64], m2[64];
	struct ir_source src = { NULL, "tests/data/emit-if.ir" };

	CHECK(mkdtemp(dir) != NULL);
	snprintf(bin, sizeof(bin), "%s/if.pt2ir", dir);
	snprintf(m1, sizeof(m1), "%s/text.onnx", dir);
	snprintf(m2, sizeof(m2), "%s/bin.onnx", dir);
	src.fp = fopen(src.name, "rb");
	CHECK(src.fp != NULL);
	if (!src.fp)
		return;
	struct ir_graph *g = ir_read(&src, &d);
	fclose(src.fp);
	CHECK(g != NULL);
	if (!g)
		return;
	onnx_write_options_init(&o);
	CHECK_INT(onnx_write_model(g, &o, m1, &d), 0);
	FILE *fp = fopen(bin, "wb");
	CHECK_INT(ir_write_binary(g, fp, &d), 0);
	fclose(fp);
	ir_graph_free(g);

	src.fp = fopen(bin, "rb");
	src.name = bin;
	g = ir_read(&src, &d);
	fclose(src.fp);
	CHECK(g != NULL);
	if (g)
		CHECK_INT(onnx_write_model(g, &o, m2, &d), 0);
	CHECK(same_file(m1, m2));
	ir_graph_free(g);
	onnx_write_options_release(&o);
	unlink(bin);
	unlink(m1);
	unlink(m2);
	rmdir(dir);
}

const struct unit_test unit_tests[] = {
	UNIT(test_ir_version_table),
	UNIT(test_varint),
	UNIT(test_parse_names),
	UNIT(test_parse_dynamic_axes),
	UNIT(test_parse_custom_opset),
	UNIT(test_write_and_read_back),
	UNIT(test_text_and_binary_input),
	{ 0 },
};

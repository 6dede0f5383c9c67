/*
 * test_onnx_check.c - unit tests of the ONNX reading side: the schema table
 * lookups, strmap, onnx_read_mem's refusals, onnx_check_model on models
 * built in memory with protobuf-c, and onnx_to_ir's conversions (typed
 * tensor fields to little-endian bytes, external data references, names
 * made unique).  The bats tests (tests/700-check.bats) cover the tool and
 * the agreement with python3-onnx.
 */
#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "onnx_check.h"
#include "onnx_read.h"
#include "onnx_schema.h"
#include "strmap.h"
#include "unit.h"

/* --- the schema table ---------------------------------------------------- */

static void test_schema_find(void)
{
	const struct onnx_schema *s = onnx_schema_find("", "Conv", 13);
	CHECK(s && s->since_version == 11);
	s = onnx_schema_find(NULL, "Conv", 10);
	CHECK(s && s->since_version == 1);
	CHECK(onnx_schema_find("", "Conv", 0) == NULL);
	s = onnx_schema_find("", "Relu", 99); /* any later opset binds */
	CHECK(s && s->since_version == 14);
	CHECK(onnx_schema_find("", "Trilu", 13) == NULL);
	CHECK(onnx_schema_known_op("", "Trilu"));
	CHECK(!onnx_schema_known_op("", "NoSuchOp"));
	CHECK(onnx_schema_find("ai.onnx", "Relu", 13) == NULL);
	CHECK(onnx_schema_find("com.example", "Relu", 13) == NULL);
	s = onnx_schema_find("ai.onnx.ml", "LinearClassifier", 3);
	CHECK(s && s->since_version == 1);
	s = onnx_schema_find("", "Upsample", 10);
	CHECK(s && s->deprecated);
	s = onnx_schema_find("", "Upsample", 9);
	CHECK(s && !s->deprecated);
	CHECK(onnx_schema_count() > 400);
	/* onnx 1.23.1's table (lib/onnx/onnx_schemas.inc) */
	CHECK_INT(onnx_schema_ir_version(), 14);
	s = onnx_schema_find("", "GroupNormalization", 26);
	CHECK(s && s->since_version == 21);
	s = onnx_schema_find("", "Gelu", 20);
	CHECK(s && s->since_version == 20);
	CHECK(onnx_schema_find("", "Gelu", 19) == NULL);
}

static void test_schema_formals_and_attrs(void)
{
	const struct onnx_schema *s = onnx_schema_find("", "Conv", 11);
	CHECK_INT(s->min_input, 2);
	CHECK_INT(s->max_input, 3);
	CHECK_STR(onnx_schema_input(s, 1)->name, "W");
	CHECK_INT(onnx_schema_input(s, 2)->option, ONNX_FORMAL_OPTIONAL);
	CHECK(onnx_schema_input(s, 3) == NULL);
	const struct onnx_attr_def *a = onnx_schema_attr(s, "kernel_shape");
	CHECK(a && a->type == ONNX_ATTR_INTS && !a->required);
	CHECK(onnx_schema_attr(s, "nope") == NULL);
	a = onnx_schema_attr(onnx_schema_find("", "Cast", 13), "to");
	CHECK(a && a->type == ONNX_ATTR_INT && a->required);
	s = onnx_schema_find("", "Sum", 13);
	CHECK_INT(onnx_schema_input(s, 0)->option, ONNX_FORMAL_VARIADIC);
	s = onnx_schema_find("", "BatchNormalization", 15);
	CHECK_INT(s->outputs_allowed, (1 << 1) | (1 << 3));
	CHECK(onnx_schema_find("", "LayerNormalization", 17)->unchecked_attrs);
	CHECK(onnx_schema_builtin_domain(""));
	CHECK(onnx_schema_builtin_domain("ai.onnx.ml"));
	CHECK(!onnx_schema_builtin_domain("ai.onnx.preview.training"));
	CHECK(!onnx_schema_builtin_domain("com.example"));
	CHECK_INT(onnx_schema_domain("")->max_version, 28);
	s = onnx_schema_find("", "DFT", 20); /* axis became input 2 */
	CHECK_INT(s->max_input, 3);
	CHECK(onnx_schema_attr(s, "axis") == NULL);
	s = onnx_schema_find("", "Split", 18);
	CHECK(onnx_schema_attr(s, "num_outputs") != NULL);
	CHECK_STR(onnx_attr_type_name(ONNX_ATTR_GRAPHS), "GRAPHS");
	CHECK_STR(onnx_attr_type_name(99), "UNDEFINED");
}

/* --- strmap --------------------------------------------------------------- */

static void test_strmap(void)
{
	struct strmap m = STRMAP_INIT;
	static char keys[1000][8];
	void *v = NULL;
	CHECK(!strmap_get(&m, "a", NULL));
	for (int i = 0; i < 1000; i++) {
		snprintf(keys[i], sizeof(keys[i]), "k%d", i);
		CHECK(strmap_add(&m, keys[i], &keys[i]));
	}
	CHECK(!strmap_add(&m, "k5", NULL));
	CHECK(strmap_get(&m, "k5", &v) && v == &keys[5]);
	CHECK(!strmap_put(&m, "k5", NULL));
	CHECK(strmap_get(&m, "k5", &v) && v == NULL);
	CHECK(strmap_get(&m, "k999", &v) && v == &keys[999]);
	CHECK(!strmap_get(&m, "k1000", NULL));
	CHECK_INT(m.count, 1000);
	strmap_release(&m);
	CHECK(!strmap_get(&m, "k1", NULL));
}

/* --- reading -------------------------------------------------------------- */

static void test_read_refusals(void)
{
	struct diag d;
	Onnx__ModelProto *m;
	diag_init(&d, "test");
	d.quiet = 1;
	CHECK_INT(onnx_read_mem("", 0, &m, &d), ONNX_READ_MALFORMED);
	CHECK(m == NULL);
	CHECK_INT(onnx_read_mem("\xff\xff\xff", 3, &m, &d),
		  ONNX_READ_MALFORMED);
	/* an unknown varint field only: protobuf, but no model */
	CHECK_INT(onnx_read_mem("\xf8\x01\x01", 3, &m, &d),
		  ONNX_READ_MALFORMED);
	/* graph { node { attribute { g { node { ... } } } } } x 40: the
	 * nesting guard refuses it before protobuf-c recurses */
	size_t n = 0, cap = 1 << 16;
	unsigned char *buf = malloc(cap), *tmp = malloc(cap);
	static const unsigned char tags[] = { 0x32, 0x2a, 0x0a };
	for (int level = 0; level < 160; level++) {
		unsigned char tag = level == 159 ? 0x3a /* ModelProto.graph */
					       : tags[level % 3];
		size_t k = 0;
		tmp[k++] = tag;
		size_t len = n;
		do {
			tmp[k++] = (unsigned char)((len & 0x7f) |
						   (len > 0x7f ? 0x80 : 0));
			len >>= 7;
		} while (len);
		memcpy(tmp + k, buf, n);
		memcpy(buf, tmp, n + k);
		n += k;
	}
	CHECK_INT(onnx_read_mem(buf, n, &m, &d), ONNX_READ_MALFORMED);
	CHECK_INT(d.nerrors, 4);
	free(buf);
	free(tmp);
}

/* --- checking a model built in memory ------------------------------------- */

struct small {
	Onnx__ModelProto m;
	Onnx__OperatorSetIdProto op, *ops[1];
	Onnx__GraphProto g;
	Onnx__ValueInfoProto x, y, *ins[1], *outs[1];
	Onnx__TypeProto tx, ty;
	Onnx__TypeProto__Tensor ttx, tty;
	Onnx__TensorShapeProto shape;
	Onnx__NodeProto relu, *nodes[1];
	char *relu_in[1], *relu_out[1];
};

/* ir 7, opset 13: y = Relu(x), x and y float[] (rank 0) */
static void small_init(struct small *s)
{
	memset(s, 0, sizeof(*s));
	onnx__model_proto__init(&s->m);
	s->m.has_ir_version = 1;
	s->m.ir_version = 7;
	onnx__operator_set_id_proto__init(&s->op);
	s->op.domain = "";
	s->op.has_version = 1;
	s->op.version = 13;
	s->ops[0] = &s->op;
	s->m.n_opset_import = 1;
	s->m.opset_import = s->ops;
	onnx__graph_proto__init(&s->g);
	s->g.name = "small";
	onnx__tensor_shape_proto__init(&s->shape);
	Onnx__ValueInfoProto *v[2] = { &s->x, &s->y };
	Onnx__TypeProto *t[2] = { &s->tx, &s->ty };
	Onnx__TypeProto__Tensor *tt[2] = { &s->ttx, &s->tty };
	for (int i = 0; i < 2; i++) {
		onnx__value_info_proto__init(v[i]);
		onnx__type_proto__init(t[i]);
		onnx__type_proto__tensor__init(tt[i]);
		tt[i]->has_elem_type = 1;
		tt[i]->elem_type = 1;
		tt[i]->shape = &s->shape;
		t[i]->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
		t[i]->tensor_type = tt[i];
		v[i]->type = t[i];
	}
	s->x.name = "x";
	s->y.name = "y";
	s->ins[0] = &s->x;
	s->outs[0] = &s->y;
	s->g.n_input = s->g.n_output = 1;
	s->g.input = s->ins;
	s->g.output = s->outs;
	onnx__node_proto__init(&s->relu);
	s->relu.op_type = "Relu";
	s->relu.name = "r";
	s->relu_in[0] = "x";
	s->relu_out[0] = "y";
	s->relu.n_input = s->relu.n_output = 1;
	s->relu.input = s->relu_in;
	s->relu.output = s->relu_out;
	s->nodes[0] = &s->relu;
	s->g.n_node = 1;
	s->g.node = s->nodes;
	s->m.graph = &s->g;
}

static int check_quiet(const Onnx__ModelProto *m)
{
	struct diag d;
	diag_init(&d, "test");
	d.quiet = 1;
	int n = onnx_check_model(m, "m.onnx", &d);
	CHECK_INT(n, d.nerrors);
	return n;
}

static void test_check_small(void)
{
	struct small s;
	small_init(&s);
	CHECK_INT(check_quiet(&s.m), 0);

	s.m.ir_version = 0;
	CHECK_INT(check_quiet(&s.m), 1);
	s.m.ir_version = 7;

	s.relu.op_type = "Relu6";
	CHECK_INT(check_quiet(&s.m), 1);
	s.relu.op_type = "Relu";

	s.relu_in[0] = "nope";
	CHECK_INT(check_quiet(&s.m), 1);
	s.relu_in[0] = "x";

	/* several problems at once are all counted */
	s.g.name = "";
	s.relu_out[0] = "x";      /* SSA: x is an input */
	s.ttx.shape = NULL;       /* main-graph input without shape */
	CHECK_INT(check_quiet(&s.m), 4); /* + output y undefined (strict) */
	small_init(&s);

	s.m.graph = NULL;
	CHECK_INT(check_quiet(&s.m), 1);
}

static void test_check_tensor(void)
{
	struct small s;
	Onnx__TensorProto w, *inits[1] = { &w };
	int64_t dims[1] = { 2 };
	float vals[3] = { 1, 2, 3 };
	small_init(&s);
	onnx__tensor_proto__init(&w);
	w.name = "w";
	w.has_data_type = 1;
	w.data_type = 1;
	w.n_dims = 1;
	w.dims = dims;
	w.n_float_data = 2;
	w.float_data = vals;
	s.g.n_initializer = 1;
	s.g.initializer = inits;
	CHECK_INT(check_quiet(&s.m), 0);
	w.n_float_data = 3; /* strict: count */
	CHECK_INT(check_quiet(&s.m), 1);
	w.n_float_data = 2;
	w.has_raw_data = 1;
	w.raw_data.data = (uint8_t *)"abcdefgh";
	w.raw_data.len = 8;
	CHECK_INT(check_quiet(&s.m), 1); /* two data fields */
	w.n_float_data = 0;
	CHECK_INT(check_quiet(&s.m), 0);
	w.raw_data.len = 7; /* strict: length */
	CHECK_INT(check_quiet(&s.m), 1);
	w.raw_data.len = 8;
	w.data_type = 8; /* strings in raw_data */
	CHECK_INT(check_quiet(&s.m), 1);
}

/* --- conversion to the IR ------------------------------------------------- */

static void test_to_ir(void)
{
	struct small s;
	Onnx__TensorProto w, h, e, *inits[3] = { &w, &h, &e };
	Onnx__StringStringEntryProto loc, *ext[1] = { &loc };
	int64_t dims[1] = { 2 };
	float vals[2] = { 1.0f, -2.0f };
	int32_t halves[2] = { 0x3c00, 0xc000 }; /* 1.0, -2.0 as float16 */
	struct diag d;

	small_init(&s);
	onnx__tensor_proto__init(&w);
	w.name = "w";
	w.has_data_type = 1;
	w.data_type = 1;
	w.n_dims = 1;
	w.dims = dims;
	w.n_float_data = 2;
	w.float_data = vals;
	h = w;
	h.name = "h";
	h.data_type = 10;
	h.n_float_data = 0;
	h.n_int32_data = 2;
	h.int32_data = halves;
	e = w;
	e.name = "e";
	e.n_float_data = 0;
	e.has_data_location = 1;
	e.data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
	onnx__string_string_entry_proto__init(&loc);
	loc.key = "location";
	loc.value = "e.bin";
	e.n_external_data = 1;
	e.external_data = ext;
	s.g.n_initializer = 3;
	s.g.initializer = inits;
	s.relu_out[0] = "x"; /* a name used twice: made unique */

	diag_init(&d, "test");
	d.quiet = 1;
	struct ir_graph *g = onnx_to_ir(&s.m, "dir/m.onnx", &d);
	CHECK_INT(d.nerrors, 0);
	CHECK_STR(g->name, "small");
	CHECK_INT(ir_opset_version(g, ""), 13);
	CHECK_INT(g->nweights, 3);
	const struct ir_tensor *t = g->weights->tensor;
	CHECK_INT(t->bytes.len, 8);
	CHECK(!memcmp(t->bytes.data, "\x00\x00\x80\x3f\x00\x00\x00\xc0", 8));
	t = g->weights->next->tensor;
	CHECK_INT(t->dtype, IR_DTYPE_FLOAT16);
	CHECK_INT(t->bytes.len, 4);
	CHECK(!memcmp(t->bytes.data, "\x00\x3c\x00\xc0", 4));
	t = g->weights->next->next->tensor;
	CHECK_INT(t->data_kind, IR_DATA_REF);
	CHECK_STR(t->ref.file, "dir/e.bin");
	CHECK_INT(t->ref.offset, 0);
	CHECK_INT(t->ref.length, 8);
	CHECK_INT(g->top->nparams, 1);
	const struct ir_node *n = g->top->first;
	CHECK(n && !n->next);
	CHECK_STR(n->kind, "onnx::Relu");
	CHECK_STR(n->name, "r");
	CHECK(n->inputs[0] == g->top->params[0]);
	CHECK_STR(n->outputs[0]->name, "x.1");
	CHECK_INT(g->top->nreturns, 1); /* y, undefined: a dangling value */
	CHECK_STR(g->top->returns[0]->name, "y");
	ir_graph_free(g);
}

const struct unit_test unit_tests[] = {
	UNIT(test_schema_find),
	UNIT(test_schema_formals_and_attrs),
	UNIT(test_strmap),
	UNIT(test_read_refusals),
	UNIT(test_check_small),
	UNIT(test_check_tensor),
	UNIT(test_to_ir),
	{ 0 },
};

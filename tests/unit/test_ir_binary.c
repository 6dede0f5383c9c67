/*
 * test_ir_binary.c - the binary IR form (ir_binary.c) and ir_verify().
 *
 * A sample graph built with the ir.h API holds every type kind, attribute
 * kind (RAW too), inline, string and by-reference tensors, nested blocks,
 * subgraph attributes, absent inputs, unknown records and unknown keys.
 * It must survive write -> read -> write byte for byte, through memory, a
 * FILE and a real pipe fed a few bytes at a time.  Every prefix of it must
 * be refused as truncated; every field given a value of the wrong msgpack
 * type must be refused (and nothing may crash: run under ASan/UBSan).
 * Hand-written streams, in a small JSON-like notation (mp()), check each
 * error message the reader promises.
 *
 * With PT2ONNX_CORPUS_DIR set, test_roundtrip also writes the sample
 * streams there as a seed corpus for tests/fuzz/fuzz_ir_binary.c.
 */
#include "unit.h"
#include "ir.h"

#include <errno.h>
#include <math.h>
#include <msgpack.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* --- helpers ------------------------------------------------------------ */

struct buf {
	char *data;
	size_t len;
};

static void buf_free(struct buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = 0;
}

/* Writes g; returns 0 and the bytes, or -1 (messages in *msgs if given). */
static int write_mem(const struct ir_graph *g, struct buf *out,
		     struct buf *msgs)
{
	struct diag d;
	FILE *fp = open_memstream(&out->data, &out->len);
	FILE *mfp = NULL;
	int ret;

	diag_init(&d, "test");
	if (msgs)
		d.out = mfp = open_memstream(&msgs->data, &msgs->len);
	else
		d.quiet = 1;
	ret = ir_write_binary(g, fp, &d);
	fclose(fp);
	if (mfp)
		fclose(mfp);
	return ret;
}

/* Reads from memory; messages go to *msgs (always allocated). */
static struct ir_graph *read_mem(const void *p, size_t len, struct buf *msgs,
				 int *nerrors)
{
	struct diag d;
	struct ir_graph *g;

	diag_init(&d, "test");
	d.out = open_memstream(&msgs->data, &msgs->len);
	g = ir_read_binary_mem(p, len, "mem", &d);
	fclose(d.out);
	if (nerrors)
		*nerrors = d.nerrors;
	return g;
}

/* Lines in the messages. */
static int count_lines(const struct buf *msgs)
{
	int n = 0;
	for (size_t i = 0; i < msgs->len; i++)
		n += msgs->data[i] == '\n';
	return n;
}

static int contains(const struct buf *msgs, const char *s)
{
	return msgs->len && memmem(msgs->data, msgs->len, s, strlen(s)) != NULL;
}

static struct ir_bytes pack_done(struct ir_graph *g, msgpack_sbuffer *sb)
{
	struct ir_bytes b;
	char *p = ir_alloc(g, sb->size);
	memcpy(p, sb->data, sb->size);
	b.data = p;
	b.len = sb->size;
	msgpack_sbuffer_destroy(sb);
	return b;
}

static void pk_str(msgpack_packer *pk, const char *s)
{
	msgpack_pack_str(pk, strlen(s));
	msgpack_pack_str_body(pk, s, strlen(s));
}

/* --- mp(): streams written by hand ------------------------------------- */

/*
 * JSON with single quotes: {'k': [1, -2, 1.5, 'str', b'bin', null, true]}.
 * Strings take \xHH and \' escapes.  The text is a list of top-level
 * objects, written one after another as a stream: "[{…}, {…}]".
 */
static const char *mp_value(msgpack_sbuffer *out, const char *s);

static const char *mp_ws(const char *s)
{
	while (*s == ' ' || *s == '\n' || *s == '\t' || *s == ',' ||
	       *s == ':')
		s++;
	return s;
}

static const char *mp_string(const char *s, char *buf, size_t *len)
{
	size_t n = 0;
	for (s++; *s && *s != '\''; s++) {
		if (*s == '\\' && s[1] == 'x') {
			unsigned v;
			sscanf(s + 2, "%2x", &v);
			buf[n++] = (char)v;
			s += 3;
		} else if (*s == '\\') {
			buf[n++] = *++s;
		} else {
			buf[n++] = *s;
		}
	}
	*len = n;
	return *s ? s + 1 : s;
}

static const char *mp_value(msgpack_sbuffer *out, const char *s)
{
	msgpack_packer pk;
	msgpack_packer_init(&pk, out, msgpack_sbuffer_write);
	s = mp_ws(s);
	if (*s == '[' || *s == '{') {
		char close = *s == '[' ? ']' : '}';
		msgpack_sbuffer tmp;
		size_t n = 0;
		msgpack_sbuffer_init(&tmp);
		s = mp_ws(s + 1);
		while (*s && *s != close) {
			s = mp_ws(mp_value(&tmp, s));
			n++;
		}
		if (close == ']')
			msgpack_pack_array(&pk, n);
		else
			msgpack_pack_map(&pk, n / 2);
		msgpack_sbuffer_write(out, tmp.data, tmp.size);
		msgpack_sbuffer_destroy(&tmp);
		return *s ? s + 1 : s;
	}
	if (*s == '\'' || (*s == 'b' && s[1] == '\'')) {
		char buf[4096];
		size_t len;
		int bin = *s == 'b';
		s = mp_string(s + bin, buf, &len);
		if (bin) {
			msgpack_pack_bin(&pk, len);
			msgpack_pack_bin_body(&pk, buf, len);
		} else {
			msgpack_pack_str(&pk, len);
			msgpack_pack_str_body(&pk, buf, len);
		}
		return s;
	}
	if (!strncmp(s, "null", 4)) {
		msgpack_pack_nil(&pk);
		return s + 4;
	}
	if (!strncmp(s, "true", 4)) {
		msgpack_pack_true(&pk);
		return s + 4;
	}
	if (!strncmp(s, "false", 5)) {
		msgpack_pack_false(&pk);
		return s + 5;
	}
	char *end;
	size_t span = strspn(s, "-+0123456789.eE");
	if (memchr(s, '.', span) || memchr(s, 'e', span)) {
		msgpack_pack_double(&pk, strtod(s, &end));
	} else if (*s == '-') {
		msgpack_pack_int64(&pk, strtoll(s, &end, 10));
	} else {
		msgpack_pack_uint64(&pk, strtoull(s, &end, 10));
	}
	if (end == s) {
		fprintf(stderr, "mp: cannot parse at '%.20s'\n", s);
		abort();
	}
	return end;
}

/* The stream for text "[obj, obj, …]": its objects one after another. */
static struct buf mp(const char *text)
{
	msgpack_sbuffer all, one;
	struct buf b;
	const char *s = mp_ws(text);

	msgpack_sbuffer_init(&all);
	if (*s != '[')
		abort();
	s = mp_ws(s + 1);
	while (*s && *s != ']') {
		msgpack_sbuffer_init(&one);
		s = mp_ws(mp_value(&one, s));
		msgpack_sbuffer_write(&all, one.data, one.size);
		msgpack_sbuffer_destroy(&one);
	}
	b.data = malloc(all.size + 1);
	if (all.size)
		memcpy(b.data, all.data, all.size);
	b.len = all.size;
	msgpack_sbuffer_destroy(&all);
	return b;
}

/* --- the sample graph --------------------------------------------------- */

static struct ir_value *input(struct ir_graph *g, const char *name,
			      struct ir_type *t)
{
	struct ir_value *v = ir_value_new(g, name, t);
	ir_block_add_param(g, g->top, v);
	return v;
}

static struct ir_type *elems(struct ir_graph *g, enum ir_type_kind k, int n,
			     struct ir_type *a, struct ir_type *b)
{
	struct ir_type *t = ir_type_new(g, k);
	t->nelems = (uint32_t)n;
	t->elems = ir_alloc(g, sizeof(*t->elems) * 2);
	t->elems[0] = a;
	t->elems[1] = b;
	return t;
}

static struct ir_value *out1(struct ir_graph *g, struct ir_node *n,
			     uint32_t i, const char *name, struct ir_type *t)
{
	struct ir_value *v = ir_value_new(g, name, t);
	ir_node_set_output(n, i, v);
	return v;
}

static struct ir_type *ft(struct ir_graph *g, int rank, const int64_t *dims)
{
	return ir_type_tensor(g, IR_DTYPE_FLOAT, rank, dims);
}

static struct ir_tensor *inline_floats(struct ir_graph *g, int rank,
				       const int64_t *dims)
{
	struct ir_tensor *t = ir_tensor_new(g, IR_DTYPE_FLOAT, rank, dims);
	uint64_t n = ir_tensor_numel(t);
	float *f = ir_alloc(g, n * sizeof(float) + 1);
	for (uint64_t i = 0; i < n; i++)
		f[i] = (float)i * 0.25f - 1.0f;
	t->bytes.data = (const char *)f;
	t->bytes.len = n * sizeof(float);
	return t;
}

static void add_raw(struct ir_graph *g, const char *tag,
		    enum ir_raw_section s, uint32_t index)
{
	msgpack_sbuffer sb;
	msgpack_packer pk;
	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
	msgpack_pack_map(&pk, 3);
	pk_str(&pk, "r");
	pk_str(&pk, "x-annotation");
	pk_str(&pk, "x-tag");
	pk_str(&pk, tag);
	pk_str(&pk, "x-list");
	msgpack_pack_array(&pk, 3);
	msgpack_pack_int(&pk, 1);
	msgpack_pack_nil(&pk);
	msgpack_pack_double(&pk, 2.5);
	ir_add_raw_record(g, sb.data, sb.size, s, index);
	msgpack_sbuffer_destroy(&sb);
}

static struct ir_bytes extra_map(struct ir_graph *g, const char *key)
{
	msgpack_sbuffer sb;
	msgpack_packer pk;
	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
	msgpack_pack_map(&pk, 2);
	pk_str(&pk, key);
	pk_str(&pk, "kept");
	pk_str(&pk, "x-more");
	msgpack_pack_map(&pk, 1);
	pk_str(&pk, "x-a");
	msgpack_pack_array(&pk, 2);
	msgpack_pack_int(&pk, -7);
	msgpack_pack_true(&pk);
	return pack_done(g, &sb);
}

static struct ir_bytes raw_attr(struct ir_graph *g)
{
	msgpack_sbuffer sb;
	msgpack_packer pk;
	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
	msgpack_pack_map(&pk, 3);
	pk_str(&pk, "n");
	pk_str(&pk, "future");
	pk_str(&pk, "k");
	pk_str(&pk, "x-new-kind");
	pk_str(&pk, "v");
	msgpack_pack_map(&pk, 1);
	pk_str(&pk, "x-a");
	msgpack_pack_array(&pk, 2);
	msgpack_pack_int(&pk, 1);
	msgpack_pack_float(&pk, 0.5f);
	return pack_done(g, &sb);
}

/* A subgraph block: %name = onnx::Neg(%in), with a subgraph weight. */
static struct ir_block *neg_block(struct ir_graph *g, struct ir_node *owner,
				  const char *name, struct ir_value *in)
{
	struct ir_block *b = ir_block_new(g);
	char wname[64];
	int64_t one = 1;
	b->owner = owner;
	b->name = ir_strfmt(g, "%s_body", name);
	snprintf(wname, sizeof(wname), "%s.w", name);
	ir_add_weight(g, b, wname, inline_floats(g, 1, &one));
	struct ir_node *n = ir_node_new(g, b, "onnx::Neg", 1, 1);
	n->inputs[0] = in;
	ir_block_add_return(g, b, out1(g, n, 0, name, in->type));
	return b;
}

static struct ir_graph *build_sample(void)
{
	struct ir_graph *g = ir_graph_new(IR_LEVEL_ONNX);
	int64_t xd[4] = { 0, 3, 0, 8 }, wd[4] = { 4, 3, 3, 3 }, ten = 10;
	int64_t two3[2] = { 2, 3 }, two = 2;
	struct ir_value *x, *c, *n, *flag, *s, *w, *fcb, *lab;
	struct ir_node *nd;
	struct ir_attr *a;

	g->name = "small_cnn";
	g->doc = "a sample\nwith a newline";
	g->producer = "test_ir_binary";
	ir_add_opset(g, "", 13);
	ir_add_opset(g, "com.example", 1);
	ir_add_prop(g, "source", "resnet18.pt");
	ir_add_prop(g, "empty", "");
	g->header_extra = extra_map(g, "x-header");
	g->extra = extra_map(g, "x-graph");

	/* inputs: every type kind, symbolic and unknown dims */
	struct ir_type *tx = ft(g, 4, xd);
	tx->dims[0].kind = IR_DIM_SYMBOL;
	tx->dims[0].symbol = "batch";
	tx->dims[2].kind = IR_DIM_UNKNOWN;
	x = input(g, "x", tx);
	c = input(g, "c", ir_type_tensor(g, IR_DTYPE_BOOL, 0, NULL));
	n = input(g, "n", ir_type_new(g, IR_TYPE_INT));
	input(g, "f", ir_type_new(g, IR_TYPE_FLOAT));
	flag = input(g, "flag", ir_type_new(g, IR_TYPE_BOOL));
	s = input(g, "s", ir_type_new(g, IR_TYPE_STR));
	input(g, "none", ir_type_new(g, IR_TYPE_NONE));
	input(g, "dev", ir_type_new(g, IR_TYPE_DEVICE));
	input(g, "lst", elems(g, IR_TYPE_LIST, 1, ft(g, 1, &ten), NULL));
	input(g, "tup", elems(g, IR_TYPE_TUPLE, 2,
			      ir_type_tensor(g, IR_DTYPE_UNDEFINED, -1, NULL),
			      ir_type_new(g, IR_TYPE_INT)));
	input(g, "empty_tuple", elems(g, IR_TYPE_TUPLE, 0, NULL, NULL));
	input(g, "opt", elems(g, IR_TYPE_OPTIONAL, 1,
			      ir_type_tensor(g, IR_DTYPE_UNDEFINED, 2, NULL),
			      NULL));
	input(g, "dict", elems(g, IR_TYPE_DICT, 2, ir_type_new(g, IR_TYPE_STR),
			       ft(g, -1, NULL)));
	struct ir_type *cls = ir_type_new(g, IR_TYPE_CLASS);
	cls->name = "__torch__.Net";
	input(g, "cls", cls);
	input(g, "any", NULL);
	input(g, "name with \"quotes\" and \xc3\xa9",
	      ir_type_new(g, IR_TYPE_INT));

	/* weights: inline, by reference, strided, strings, scalar, half */
	w = ir_add_weight(g, NULL, "conv.weight", inline_floats(g, 4, wd));
	w->weight->extra = extra_map(g, "x-weight");
	struct ir_tensor *t = ir_tensor_new(g, IR_DTYPE_FLOAT, 1, &ten);
	t->data_kind = IR_DATA_REF;
	t->ref.file = "model.pt";
	t->ref.offset = 4160;
	t->ref.length = 40;
	fcb = ir_add_weight(g, NULL, "fc.bias", t);
	t = ir_tensor_new(g, IR_DTYPE_FLOAT, 2, two3);
	t->data_kind = IR_DATA_REF;
	t->ref.file = "archive/data/3";
	t->ref.offset = UINT64_C(1) << 40;
	t->ref.length = 24;
	t->ref.strides = ir_alloc(g, 2 * sizeof(int64_t));
	t->ref.strides[0] = 1;
	t->ref.strides[1] = 2;
	t->doc = "transposed";
	ir_add_weight(g, NULL, "strided", t);
	t = ir_tensor_new(g, IR_DTYPE_INT64, 0, NULL);
	t->data_kind = IR_DATA_REF;
	t->ref.file = "archive/data/4";
	t->ref.length = 8;
	t->ref.strides = ir_alloc(g, 8); /* rank 0: "strides": [] */
	ir_add_weight(g, NULL, "ref0", t);
	t = ir_tensor_new(g, IR_DTYPE_STRING, 1, &two);
	t->strings = ir_alloc(g, 2 * sizeof(*t->strings));
	t->strings[0].data = "cat";
	t->strings[0].len = 3;
	t->strings[1].data = "d\0g";
	t->strings[1].len = 3;
	lab = ir_add_weight(g, NULL, "labels", t);
	t = ir_tensor_new(g, IR_DTYPE_INT64, 0, NULL);
	int64_t *sv = ir_alloc(g, 8);
	*sv = -5;
	t->bytes.data = (const char *)sv;
	t->bytes.len = 8;
	ir_add_weight(g, NULL, "scalar", t);
	t = ir_tensor_new(g, IR_DTYPE_FLOAT16, 1, &two);
	t->bytes.data = "\x00\x3c\x00\xc0";
	t->bytes.len = 4;
	t->doc = "half";
	ir_add_weight(g, NULL, "half", t);
	t = ir_tensor_new(g, IR_DTYPE_FLOAT, 2, (int64_t[]){ 0, 5 });
	ir_add_weight(g, NULL, "empty", t);

	/* %3 = onnx::Conv(%x, %conv.weight, _) with everything a node has */
	nd = ir_node_new(g, g->top, "onnx::Conv", 3, 1);
	nd->inputs[0] = x;
	nd->inputs[1] = w;
	nd->name = "/conv/Conv";
	nd->scope = "Net/Conv2d[conv]";
	nd->source = "model.py:12:4";
	nd->doc = "a conv";
	a = ir_node_add_attr(g, nd, "kernel_shape", IR_ATTR_INTS);
	a->count = 2;
	a->u.ints = ir_alloc(g, 2 * sizeof(int64_t));
	a->u.ints[0] = a->u.ints[1] = 3;
	a = ir_node_add_attr(g, nd, "group", IR_ATTR_INT);
	a->u.i = 1;
	struct ir_value *v3 = out1(g, nd, 0, "3", ft(g, 4, wd));
	v3->type->dims[0].kind = IR_DIM_SYMBOL;
	v3->type->dims[0].symbol = "batch";

	/* %4 = onnx::Relu(%3) */
	nd = ir_node_new(g, g->top, "onnx::Relu", 1, 1);
	nd->inputs[0] = v3;
	struct ir_value *v4 = out1(g, nd, 0, "4", v3->type);

	/* %5 = onnx::If(%c) with two graph attributes */
	nd = ir_node_new(g, g->top, "onnx::If", 1, 1);
	nd->inputs[0] = c;
	a = ir_node_add_attr(g, nd, "then_branch", IR_ATTR_GRAPH);
	a->u.g = neg_block(g, nd, "6", v4);
	a = ir_node_add_attr(g, nd, "else_branch", IR_ATTR_GRAPH);
	a->u.g = ir_block_new(g);
	a->u.g->owner = nd;
	ir_block_add_return(g, a->u.g, v4);
	struct ir_value *v5 = out1(g, nd, 0, "5", v3->type);

	/* %7, %8 = prim::Loop(%n, %flag, %4): nested blocks, two deep */
	nd = ir_node_new(g, g->top, "prim::Loop", 3, 2);
	nd->inputs[0] = n;
	nd->inputs[1] = flag;
	nd->inputs[2] = v4;
	struct ir_block *body = ir_node_add_block(g, nd);
	struct ir_value *i = ir_value_new(g, "i", ir_type_new(g, IR_TYPE_INT));
	struct ir_value *acc = ir_value_new(g, "acc", v3->type);
	ir_block_add_param(g, body, i);
	ir_block_add_param(g, body, acc);
	struct ir_node *inner = ir_node_new(g, body, "prim::If", 1, 1);
	inner->inputs[0] = flag;
	struct ir_block *b0 = ir_node_add_block(g, inner);
	struct ir_node *add = ir_node_new(g, b0, "aten::add", 3, 1);
	add->inputs[0] = acc;
	add->inputs[1] = v5;
	add->inputs[2] = NULL;
	ir_block_add_return(g, b0, out1(g, add, 0, "sum", v3->type));
	struct ir_block *b1 = ir_node_add_block(g, inner);
	ir_block_add_return(g, b1, acc);
	struct ir_value *next = out1(g, inner, 0, "next", v3->type);
	ir_block_add_return(g, body, flag);
	ir_block_add_return(g, body, next);
	struct ir_value *v7 = out1(g, nd, 0, "7", v3->type);
	out1(g, nd, 1, "8", ir_type_new(g, IR_TYPE_INT));

	/* %9 = custom::Everything(...): every attribute kind, unknown keys */
	nd = ir_node_new(g, g->top, "custom::Everything", 4, 1);
	nd->inputs[0] = v7;
	nd->inputs[1] = NULL;
	nd->inputs[2] = fcb;
	nd->inputs[3] = lab;
	nd->extra = extra_map(g, "x-node");
	a = ir_node_add_attr(g, nd, "i", IR_ATTR_INT);
	a->u.i = INT64_MIN;
	a = ir_node_add_attr(g, nd, "f", IR_ATTR_FLOAT);
	a->u.f = -0.0;
	a = ir_node_add_attr(g, nd, "s", IR_ATTR_STRING);
	a->u.s.data = "bytes\0with NUL";
	a->u.s.len = 14;
	a = ir_node_add_attr(g, nd, "t", IR_ATTR_TENSOR);
	a->u.t = inline_floats(g, 2, two3);
	a = ir_node_add_attr(g, nd, "g", IR_ATTR_GRAPH);
	a->u.g = neg_block(g, nd, "g_out", v5);
	a = ir_node_add_attr(g, nd, "is", IR_ATTR_INTS);
	a->count = 3;
	a->u.ints = ir_alloc(g, 3 * sizeof(int64_t));
	a->u.ints[0] = INT64_MAX;
	a->u.ints[1] = -1;
	a->u.ints[2] = 0;
	a = ir_node_add_attr(g, nd, "fs", IR_ATTR_FLOATS);
	a->count = 4;
	a->u.floats = ir_alloc(g, 4 * sizeof(double));
	a->u.floats[0] = INFINITY;
	a->u.floats[1] = -INFINITY;
	a->u.floats[2] = NAN;
	a->u.floats[3] = 1e-300;
	a = ir_node_add_attr(g, nd, "ss", IR_ATTR_STRINGS);
	a->count = 2;
	a->u.strings = ir_alloc(g, 2 * sizeof(struct ir_bytes));
	a->u.strings[0].data = "";
	a->u.strings[1].data = "two";
	a->u.strings[1].len = 3;
	a = ir_node_add_attr(g, nd, "ts", IR_ATTR_TENSORS);
	a->count = 2;
	a->u.tensors = ir_alloc(g, 2 * sizeof(struct ir_tensor *));
	a->u.tensors[0] = inline_floats(g, 1, &two);
	a->u.tensors[1] = inline_floats(g, 0, NULL);
	a = ir_node_add_attr(g, nd, "gs", IR_ATTR_GRAPHS);
	a->count = 2;
	a->u.graphs = ir_alloc(g, 2 * sizeof(struct ir_block *));
	a->u.graphs[0] = neg_block(g, nd, "gs0", v4);
	a->u.graphs[1] = neg_block(g, nd, "gs1", x);
	a = ir_node_add_attr(g, nd, "empty_ints", IR_ATTR_INTS);
	a = ir_node_add_attr(g, nd, "empty_graphs", IR_ATTR_GRAPHS);
	a = ir_node_add_attr(g, nd, "future", IR_ATTR_RAW);
	a->u.raw = raw_attr(g);
	struct ir_value *v9 = out1(g, nd, 0, "9", ft(g, -1, NULL));

	/* a node without outputs */
	nd = ir_node_new(g, g->top, "prim::RaiseException", 1, 0);
	nd->inputs[0] = s;

	ir_block_add_return(g, g->top, v5);
	ir_block_add_return(g, g->top, v7);
	ir_block_add_return(g, g->top, v9);

	/* records of unknown kind, everywhere they can sit */
	add_raw(g, "head", IR_RAW_HEAD, 0);
	add_raw(g, "before weight 0", IR_RAW_WEIGHTS, 0);
	add_raw(g, "after weight 1", IR_RAW_WEIGHTS, 2);
	add_raw(g, "after the weights", IR_RAW_WEIGHTS, 99);
	add_raw(g, "after input 3", IR_RAW_INPUTS, 4);
	add_raw(g, "after node 0", IR_RAW_NODES, 1);
	add_raw(g, "after node 0, again", IR_RAW_NODES, 1);
	add_raw(g, "after the nodes", IR_RAW_NODES, 6);
	add_raw(g, "before output 0", IR_RAW_OUTPUTS, 0);
	add_raw(g, "before end", IR_RAW_OUTPUTS, 3);
	return g;
}

/* A small valid stream in the mp() notation, for the error tests. */
#define HDR "{'pt2onnx-ir': [1, 0], 'level': 'aten'}"
#define GRAPH "{'r': 'graph', 'opsets': [], 'props': []}"
#define HDR_ONNX "{'pt2onnx-ir': [1, 0], 'level': 'onnx'}"
#define END "{'r': 'end'}"
#define TF "{'k': 'tensor', 'dtype': 1, 'shape': [2]}"
#define IN(name) "{'r': 'input', 'value': {'name': '" name "', 'type': " TF "}}"
#define R16 "1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, "
#define R64 R16 R16 R16 R16
#define OUT(name) "{'r': 'output', 'name': '" name "'}"

/* --- round trips ---------------------------------------------------------- */

static void write_corpus(const char *dir, const char *name, const void *p,
			 size_t len)
{
	char path[4096];
	FILE *fp;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((fp = fopen(path, "wb"))) {
		fwrite(p, 1, len, fp);
		fclose(fp);
	}
}

static void test_roundtrip(void)
{
	struct ir_graph *g = build_sample(), *g2;
	struct buf a = { 0 }, b = { 0 }, msgs = { 0 };
	struct diag d;

	diag_init(&d, "test");
	CHECK_INT(ir_verify(g, &d), 0);
	CHECK_INT(write_mem(g, &a, NULL), 0);
	g2 = read_mem(a.data, a.len, &msgs, NULL);
	CHECK(g2 != NULL);
	if (!g2) {
		fprintf(stderr, "%.*s", (int)msgs.len, msgs.data);
		goto out;
	}
	CHECK_INT(write_mem(g2, &b, NULL), 0);
	CHECK_INT(a.len, b.len);
	CHECK(a.len == b.len && !memcmp(a.data, b.data, a.len));

	/* what came back, field by field where it matters */
	CHECK_INT(g2->level, IR_LEVEL_ONNX);
	CHECK_STR(g2->name, "small_cnn");
	CHECK_STR(g2->producer, "test_ir_binary");
	CHECK_INT(ir_opset_version(g2, "com.example"), 1);
	CHECK_INT(g2->nprops, 2);
	CHECK_INT(g2->nweights, 8);
	CHECK_INT(g2->top->nparams, 16);
	CHECK_INT(g2->top->nreturns, 3);
	struct ir_value *x = ir_find_value(g2, "x");
	CHECK(x && x->type->rank == 4 &&
	      x->type->dims[0].kind == IR_DIM_SYMBOL &&
	      !strcmp(x->type->dims[0].symbol, "batch") &&
	      x->type->dims[2].kind == IR_DIM_UNKNOWN &&
	      x->type->dims[3].value == 8);
	CHECK(ir_type_equal(x->type, ir_find_value(g, "x")->type));
	for (const struct ir_block *tb = g->top; tb; tb = NULL)
		for (uint32_t i = 0; i < tb->nparams; i++)
			CHECK(ir_type_equal(tb->params[i]->type,
					    g2->top->params[i]->type));
	struct ir_value *lab = ir_find_value(g2, "labels");
	CHECK(lab && lab->weight && lab->weight->tensor->strings[1].len == 3 &&
	      !memcmp(lab->weight->tensor->strings[1].data, "d\0g", 3));
	struct ir_value *st = ir_find_value(g2, "strided");
	CHECK(st && st->weight->tensor->data_kind == IR_DATA_REF &&
	      st->weight->tensor->ref.offset == UINT64_C(1) << 40 &&
	      st->weight->tensor->ref.strides[1] == 2);
	struct ir_value *r0 = ir_find_value(g2, "ref0");
	CHECK(r0 && r0->weight->tensor->ref.strides != NULL);
	struct ir_value *cw = ir_find_value(g2, "conv.weight");
	CHECK(cw && cw->weight->tensor->bytes.len == 108 * 4 &&
	      !memcmp(cw->weight->tensor->bytes.data,
		      ir_find_value(g, "conv.weight")->weight->tensor->bytes.data,
		      108 * 4));
	CHECK(cw && cw->weight->extra.len > 0);
	struct ir_value *v9 = ir_find_value(g2, "9");
	CHECK(v9 && v9->producer && v9->producer->ninputs == 4 &&
	      v9->producer->inputs[1] == NULL && v9->producer->extra.len > 0);
	if (v9 && v9->producer) {
		struct ir_node *n = v9->producer;
		struct ir_attr *at = ir_node_find_attr(n, "fs");
		CHECK(at && at->kind == IR_ATTR_FLOATS && isnan(at->u.floats[2]) &&
		      isinf(at->u.floats[0]));
		at = ir_node_find_attr(n, "future");
		CHECK(at && at->kind == IR_ATTR_RAW && at->u.raw.len > 0);
		at = ir_node_find_attr(n, "s");
		CHECK(at && at->u.s.len == 14);
		at = ir_node_find_attr(n, "i");
		CHECK(at && at->u.i == INT64_MIN);
		at = ir_node_find_attr(n, "f");
		CHECK(at && at->u.f == 0 && signbit(at->u.f));
	}
	struct ir_value *sum = ir_find_value(g2, "sum");
	CHECK(sum && sum->producer->owner->owner->owner->owner->owner ==
		     g2->top);
	/* unknown records: in the order and places they were read */
	const char *want[] = { "head", "before weight 0", "after weight 1",
			       "after the weights", "after input 3",
			       "after node 0", "after node 0, again",
			       "after the nodes", "before output 0",
			       "before end" };
	/* a place has one name after reading: the section of the known
	 * record before it ("before output 0" is "after the nodes") */
	const enum ir_raw_section sect[] = { IR_RAW_HEAD, IR_RAW_WEIGHTS,
		IR_RAW_WEIGHTS, IR_RAW_WEIGHTS, IR_RAW_INPUTS, IR_RAW_NODES,
		IR_RAW_NODES, IR_RAW_NODES, IR_RAW_NODES, IR_RAW_OUTPUTS };
	const uint32_t idx[] = { 0, 0, 2, 8, 4, 1, 1, 6, 6, 3 };
	int k = 0;
	for (struct ir_raw_record *rr = g2->unknown; rr; rr = rr->next, k++) {
		if (k >= 10)
			break;
		CHECK(memmem(rr->bytes.data, rr->bytes.len, want[k],
			     strlen(want[k])) != NULL);
		CHECK_INT(rr->section, sect[k]);
		CHECK_INT(rr->index, idx[k]);
	}
	CHECK_INT(k, 10);

	const char *dir = getenv("PT2ONNX_CORPUS_DIR");
	if (dir)
		write_corpus(dir, "sample.bin", a.data, a.len);
	ir_graph_free(g2);
out:
	ir_graph_free(g);
	buf_free(&a);
	buf_free(&b);
	buf_free(&msgs);
}

/* Reading through a FILE, and through ir_read()'s dispatch. */
static void test_roundtrip_file(void)
{
	struct ir_graph *g = build_sample(), *g2;
	struct buf a = { 0 }, b = { 0 };
	struct diag d;
	struct ir_source src;

	diag_init(&d, "test");
	CHECK_INT(write_mem(g, &a, NULL), 0);
	src.fp = fmemopen(a.data, a.len, "rb");
	src.name = "fmem";
	g2 = ir_read_binary(&src, &d);
	fclose(src.fp);
	CHECK(g2 != NULL);
	if (g2) {
		CHECK_INT(write_mem(g2, &b, NULL), 0);
		CHECK(a.len == b.len && !memcmp(a.data, b.data, a.len));
		ir_graph_free(g2);
	}
	buf_free(&b);
	src.fp = fmemopen(a.data, a.len, "rb");
	g2 = ir_read(&src, &d);
	fclose(src.fp);
	CHECK(g2 != NULL);
	if (g2) {
		CHECK_INT(write_mem(g2, &b, NULL), 0);
		CHECK(a.len == b.len && !memcmp(a.data, b.data, a.len));
		ir_graph_free(g2);
	}
	CHECK_INT(d.nerrors, 0);
	ir_graph_free(g);
	buf_free(&a);
	buf_free(&b);
}

/* A writer that dribbles bytes into a pipe: the reader must assemble
 * records across many short reads, and big records across buffer growth. */
static void test_pipe(void)
{
	struct ir_graph *g = build_sample(), *g2;
	struct buf a = { 0 }, b = { 0 };
	int64_t big = 300 * 1000; /* 1.2 MB of inline floats */
	struct diag d;
	int fds[2];
	pid_t pid;

	ir_add_weight(g, NULL, "big", inline_floats(g, 1, &big));
	CHECK_INT(write_mem(g, &a, NULL), 0);
	CHECK(pipe(fds) == 0);
	pid = fork();
	if (pid == 0) {
		size_t off = 0, step = 1;
		close(fds[0]);
		while (off < a.len) {
			size_t n = a.len - off < step ? a.len - off : step;
			ssize_t w = write(fds[1], a.data + off, n);
			if (w <= 0)
				_exit(1);
			off += (size_t)w;
			step = step < 70000 ? step * 3 + 1 : 1;
			if (off < 2000)
				usleep(100);
		}
		_exit(0);
	}
	close(fds[1]);
	struct ir_source src = { fdopen(fds[0], "rb"), "pipe" };
	diag_init(&d, "test");
	g2 = ir_read_binary(&src, &d);
	fclose(src.fp);
	int status = 0;
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK(g2 != NULL);
	if (g2) {
		CHECK_INT(write_mem(g2, &b, NULL), 0);
		CHECK(a.len == b.len && !memcmp(a.data, b.data, a.len));
		ir_graph_free(g2);
	}
	ir_graph_free(g);
	buf_free(&a);
	buf_free(&b);
}

/* --- truncation ------------------------------------------------------------ */

static void test_truncation(void)
{
	struct ir_graph *g = build_sample(), *g2;
	struct buf a = { 0 };
	int bad = 0, quiet_bad = 0;

	CHECK_INT(write_mem(g, &a, NULL), 0);
	for (size_t len = 0; len <= a.len; len++) {
		struct buf msgs = { 0 };
		int nerr = 0;
		/* a copy of exactly len bytes, so ASan sees any overread */
		char *p = malloc(len ? len : 1);
		memcpy(p, a.data, len);
		g2 = read_mem(p, len, &msgs, &nerr);
		if (len < a.len) {
			if (g2 || nerr == 0)
				bad++;
			else if (!memmem(msgs.data, msgs.len,
					 "truncated stream", 16))
				quiet_bad++;
		} else {
			CHECK(g2 != NULL);
		}
		ir_graph_free(g2);
		buf_free(&msgs);
		free(p);
	}
	CHECK_INT(bad, 0);
	CHECK_INT(quiet_bad, 0);

	/* the same through a FILE, at a stride */
	for (size_t len = 1; len < a.len; len += 7) {
		struct diag d;
		diag_init(&d, "test");
		d.quiet = 1;
		struct ir_source src = { fmemopen(a.data, len, "rb"), "f" };
		g2 = ir_read_binary(&src, &d);
		fclose(src.fp);
		if (g2 || !d.nerrors)
			bad++;
		ir_graph_free(g2);
	}
	CHECK_INT(bad, 0);
	ir_graph_free(g);
	buf_free(&a);
}

/* --- every field with a value of the wrong type ----------------------------- */

enum cat {
	C_NIL = 1 << 0, C_BOOL = 1 << 1, C_POS = 1 << 2, C_NEG = 1 << 3,
	C_FLOAT = 1 << 4, C_STR = 1 << 5, C_BIN = 1 << 6, C_ARRAY = 1 << 7,
	C_MAP = 1 << 8,
};

/* Types a field may have; 0 when the test does not know (anything may
 * be right, only a crash is wrong). */
static unsigned valid_for_key(const char *k, size_t n)
{
	static const struct { const char *k; unsigned mask; } t[] = {
		{ "r", C_STR }, { "kind", C_STR }, { "name", C_STR },
		{ "scope", C_STR }, { "source", C_STR }, { "doc", C_STR },
		{ "k", C_STR }, { "n", C_STR }, { "file", C_STR },
		{ "level", C_STR }, { "producer", C_STR },
		{ "inputs", C_ARRAY }, { "outputs", C_ARRAY },
		{ "attrs", C_ARRAY }, { "blocks", C_ARRAY },
		{ "opsets", C_ARRAY }, { "props", C_ARRAY },
		{ "params", C_ARRAY }, { "nodes", C_ARRAY },
		{ "returns", C_ARRAY }, { "weights", C_ARRAY },
		{ "elems", C_ARRAY }, { "dims", C_ARRAY },
		{ "strings", C_ARRAY }, { "strides", C_ARRAY },
		{ "pt2onnx-ir", C_ARRAY },
		{ "value", C_MAP }, { "tensor", C_MAP }, { "type", C_MAP },
		{ "ref", C_MAP },
		{ "dtype", C_POS }, { "offset", C_POS }, { "length", C_POS },
		{ "data", C_BIN }, { "shape", C_ARRAY | C_NIL },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (strlen(t[i].k) == n && !memcmp(t[i].k, k, n))
			return t[i].mask;
	return 0;
}

/* Types an element of the array under key k may have. */
static unsigned valid_for_elem(const char *k, size_t n)
{
	static const struct { const char *k; unsigned mask; } t[] = {
		{ "inputs", C_STR | C_NIL }, { "returns", C_STR },
		{ "outputs", C_MAP }, { "params", C_MAP }, { "nodes", C_MAP },
		{ "attrs", C_MAP }, { "blocks", C_MAP }, { "elems", C_MAP },
		{ "weights", C_MAP }, { "dims", C_POS }, { "strides", C_POS },
		{ "shape", C_POS | C_STR | C_NIL }, { "strings", C_BIN | C_STR },
		{ "opsets", C_ARRAY }, { "props", C_ARRAY },
		{ "pt2onnx-ir", C_POS },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (strlen(t[i].k) == n && !memcmp(t[i].k, k, n))
			return t[i].mask;
	return 0;
}

struct mutation_run {
	msgpack_unpacked *recs;
	size_t nrecs;
	int tried, refused, wrongly_accepted, inconsistent;
};

static void replacement(int i, msgpack_object *o, unsigned *cat)
{
	memset(o, 0, sizeof(*o));
	switch (i) {
	case 0: o->type = MSGPACK_OBJECT_NIL; *cat = C_NIL; break;
	case 1: o->type = MSGPACK_OBJECT_BOOLEAN; o->via.boolean = 1;
		*cat = C_BOOL; break;
	case 2: o->type = MSGPACK_OBJECT_POSITIVE_INTEGER; o->via.u64 = 1;
		*cat = C_POS; break;
	case 3: o->type = MSGPACK_OBJECT_NEGATIVE_INTEGER; o->via.i64 = -1;
		*cat = C_NEG; break;
	case 4: o->type = MSGPACK_OBJECT_FLOAT64; o->via.f64 = 1.5;
		*cat = C_FLOAT; break;
	case 5: o->type = MSGPACK_OBJECT_STR; o->via.str.ptr = "zz";
		o->via.str.size = 2; *cat = C_STR; break;
	case 6: o->type = MSGPACK_OBJECT_BIN; o->via.bin.ptr = "b";
		o->via.bin.size = 1; *cat = C_BIN; break;
	case 7: o->type = MSGPACK_OBJECT_ARRAY; *cat = C_ARRAY; break;
	default: o->type = MSGPACK_OBJECT_MAP; *cat = C_MAP; break;
	}
}

/* Re-packs the records (one of them changed) and reads the stream. */
static void try_stream(struct mutation_run *m, unsigned cat, unsigned valid,
		       const char *what)
{
	msgpack_sbuffer sb;
	msgpack_packer pk;
	struct buf msgs = { 0 }, w1 = { 0 }, w2 = { 0 };
	struct ir_graph *g, *g2;

	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
	for (size_t i = 0; i < m->nrecs; i++)
		msgpack_pack_object(&pk, m->recs[i].data);
	g = read_mem(sb.data, sb.size, &msgs, NULL);
	m->tried++;
	if (!g) {
		m->refused++;
	} else if (valid && !(valid & cat)) {
		m->wrongly_accepted++;
		fprintf(stderr, "  accepted a wrong type at %s\n", what);
	} else {
		/* accepted: it must write, and read back the same */
		struct buf msgs2 = { 0 };
		if (write_mem(g, &w1, NULL) ||
		    !(g2 = read_mem(w1.data, w1.len, &msgs2, NULL))) {
			m->inconsistent++;
		} else {
			if (write_mem(g2, &w2, NULL) || w1.len != w2.len ||
			    memcmp(w1.data, w2.data, w1.len))
				m->inconsistent++;
			ir_graph_free(g2);
		}
		buf_free(&msgs2);
	}
	ir_graph_free(g);
	buf_free(&msgs);
	buf_free(&w1);
	buf_free(&w2);
	msgpack_sbuffer_destroy(&sb);
}

static int unknown_record(const msgpack_object *o)
{
	if (o->type != MSGPACK_OBJECT_MAP)
		return 0;
	for (uint32_t i = 0; i < o->via.map.size; i++) {
		const msgpack_object *k = &o->via.map.ptr[i].key;
		const msgpack_object *v = &o->via.map.ptr[i].val;
		if (k->type == MSGPACK_OBJECT_STR && k->via.str.size == 1 &&
		    k->via.str.ptr[0] == 'r' && v->type == MSGPACK_OBJECT_STR &&
		    v->via.str.size > 2 && !memcmp(v->via.str.ptr, "x-", 2))
			return 1;
	}
	return 0;
}

static void mutate_slot(struct mutation_run *m, msgpack_object *slot,
			unsigned valid, const char *what)
{
	msgpack_object saved = *slot;
	for (int i = 0; i < 9; i++) {
		unsigned cat;
		replacement(i, slot, &cat);
		if (saved.type == slot->type)
			continue;
		try_stream(m, cat, valid, what);
	}
	*slot = saved;
}

static void walk(struct mutation_run *m, msgpack_object *o, const char *path)
{
	char sub[512];

	if (o->type == MSGPACK_OBJECT_MAP) {
		for (uint32_t i = 0; i < o->via.map.size; i++) {
			msgpack_object *k = &o->via.map.ptr[i].key;
			msgpack_object *v = &o->via.map.ptr[i].val;
			if (k->type != MSGPACK_OBJECT_STR)
				continue;
			const char *ks = k->via.str.ptr;
			size_t kn = k->via.str.size;
			if (kn >= 2 && !memcmp(ks, "x-", 2))
				continue; /* unknown keys: anything goes */
			if (kn == 1 && ks[0] == 'v')
				continue; /* typed by "k" */
			snprintf(sub, sizeof(sub), "%s.%.*s", path, (int)kn, ks);
			mutate_slot(m, v, valid_for_key(ks, kn), sub);
			if (v->type == MSGPACK_OBJECT_ARRAY) {
				unsigned ev = valid_for_elem(ks, kn);
				for (uint32_t j = 0; j < v->via.array.size; j++) {
					char el[600];
					snprintf(el, sizeof(el), "%s[%u]", sub, j);
					mutate_slot(m, &v->via.array.ptr[j], ev, el);
					walk(m, &v->via.array.ptr[j], el);
				}
			} else {
				walk(m, v, sub);
			}
		}
	}
}

static void test_wrong_types(void)
{
	struct ir_graph *g = build_sample();
	struct buf a = { 0 };
	struct mutation_run m = { 0 };
	size_t off = 0, cap = 64;

	CHECK_INT(write_mem(g, &a, NULL), 0);
	m.recs = calloc(cap, sizeof(*m.recs));
	while (off < a.len) {
		if (m.nrecs == cap) {
			cap *= 2;
			m.recs = realloc(m.recs, cap * sizeof(*m.recs));
		}
		msgpack_unpacked_init(&m.recs[m.nrecs]);
		if (msgpack_unpack_next(&m.recs[m.nrecs], a.data, a.len, &off) !=
		    MSGPACK_UNPACK_SUCCESS)
			break;
		m.nrecs++;
	}
	CHECK(m.nrecs > 40);
	for (size_t i = 0; i < m.nrecs; i++) {
		char path[32];
		if (unknown_record(&m.recs[i].data))
			continue;
		snprintf(path, sizeof(path), "record %zu", i);
		walk(&m, &m.recs[i].data, path);
	}
	CHECK(m.tried > 1000);
	CHECK(m.refused > m.tried / 2);
	CHECK_INT(m.wrongly_accepted, 0);
	CHECK_INT(m.inconsistent, 0);
	if (getenv("UNIT_VERBOSE"))
		fprintf(stderr, "  %d streams, %d refused\n", m.tried,
			m.refused);
	for (size_t i = 0; i < m.nrecs; i++)
		msgpack_unpacked_destroy(&m.recs[i]);
	free(m.recs);
	ir_graph_free(g);
	buf_free(&a);
}

/* --- hand-written streams: one message each ------------------------------- */

struct case_ {
	const char *stream; /* mp() notation */
	const char *message; /* NULL: must be read */
};

static const struct case_ cases[] = {
	/* the smallest streams there are */
	{ "[" HDR "," GRAPH "," END "]", NULL },
	{ "[{'pt2onnx-ir': [1, 7], 'level': 'onnx', 'x-new': 1}," GRAPH ","
	  END "]", NULL },
	{ "[" HDR "," GRAPH "," IN("x") ",{'r': 'node', 'kind': 'aten::neg', "
	  "'inputs': ['x'], 'outputs': [{'name': 'y', 'type': " TF "}], "
	  "'attrs': [], 'blocks': []}," OUT("y") "," END "]", NULL },
	/* unknown keys in nested objects are dropped, not refused */
	{ "[" HDR "," GRAPH ",{'r': 'input', 'x-a': 1, 'value': {'name': 'x', "
	  "'x-b': 2, 'type': {'k': 'int', 'x-c': 3}}}," END "]", NULL },
	/* unknown records anywhere, even before the graph */
	{ "[" HDR ",{'r': 'x-future', 'a': [1]}," GRAPH "," END "]", NULL },

	/* header */
	{ "[]", "truncated stream: empty input" },
	{ "[{'pt2onnx-ir': [2, 0], 'level': 'aten'}," GRAPH "," END "]",
	  "record 0 (header): IR format version 2.0 is not supported" },
	{ "[{'pt2onnx-ir': [0, 9], 'level': 'aten'}]",
	  "version 0.9 is not supported" },
	{ "[[1, 0]]", "not a pt2onnx IR stream: the first object is an array" },
	{ "[{'level': 'aten'}]", "no \"pt2onnx-ir\" version" },
	{ "[{'pt2onnx-ir': [1], 'level': 'aten'}]", "has 1 entries" },
	{ "[{'pt2onnx-ir': [1, 0]}]", "missing key \"level\"" },
	{ "[{'pt2onnx-ir': [1, 0], 'level': 'tf'}]", "unknown level \"tf\"" },
	{ "[{'pt2onnx-ir': [-1, 0], 'level': 'aten'}]",
	  "major version is negative" },

	/* record order and framing */
	{ "[" HDR "]", "truncated stream: no \"end\" record after record 0" },
	{ "[" HDR "," GRAPH "]", "truncated stream: no \"end\" record" },
	{ "[" HDR "," END "]", "record 1 (end): \"end\" before the \"graph\"" },
	{ "[" HDR "," IN("x") "]", "the first record must be \"graph\"" },
	{ "[" HDR "," GRAPH "," GRAPH "]",
	  "record 2 (graph): a second \"graph\" record" },
	{ "[" HDR "," GRAPH ",{'r': 'node', 'kind': 'a::b', 'inputs': [], "
	  "'outputs': [], 'attrs': [], 'blocks': []}," IN("x") "]",
	  "record 3 (input): \"input\" record after a \"node\" record" },
	{ "[" HDR "," GRAPH "," IN("x") ",{'r': 'weight', 'name': 'w', "
	  "'tensor': {'dtype': 1, 'dims': [], 'data': b'abcd'}}]",
	  "\"weight\" record after a \"input\" record" },
	{ "[" HDR "," GRAPH "," END ",{'r': 'end'}]",
	  "record 2 (end): data after the \"end\" record" },
	{ "[" HDR "," GRAPH ",7]", "record 2: the record is an int, expected "
	  "a map" },
	{ "[" HDR "," GRAPH ",{'kind': 'x'}]", "record 2: missing key \"r\"" },
	{ "[" HDR "," GRAPH ",{'r': 5}]", "record 2: \"r\" is an int" },
	{ "[" HDR "," GRAPH ",{'r': 'x-a', 'r': 'node'}]",
	  "record 2: the record has key \"r\" twice" },

	/* names */
	{ "[" HDR "," GRAPH "," IN("x") ",{'r': 'node', 'kind': 'aten::add', "
	  "'inputs': ['x', 'y'], 'outputs': [], 'attrs': [], 'blocks': []}]",
	  "record 3 (node aten::add): input 1 names undefined value %y" },
	{ "[" HDR "," GRAPH "," IN("x") ",{'r': 'node', 'kind': 'aten::neg', "
	  "'inputs': ['x'], 'outputs': [{'name': 'x', 'type': " TF "}], "
	  "'attrs': [], 'blocks': []}," END "]",
	  "record 3 (node aten::neg): output 0: value %x is defined twice" },
	{ "[" HDR "," GRAPH ",{'r': 'weight', 'name': 'w', 'tensor': "
	  "{'dtype': 1, 'dims': [], 'data': b'abcd'}}," IN("w") "," END "]",
	  "record 3 (input): value %w is defined twice" },
	{ "[" HDR "," GRAPH ",{'r': 'weight', 'name': 'w', 'tensor': "
	  "{'dtype': 1, 'dims': [], 'data': b'abcd'}},{'r': 'weight', "
	  "'name': 'w', 'tensor': {'dtype': 1, 'dims': [], 'data': b'abcd'}},"
	  END "]", "record 3 (weight w): weight %w is defined twice" },
	{ "[" HDR "," GRAPH "," IN("x") "," OUT("nope") "," END "]",
	  "record 3 (output): output 0 names undefined value %nope" },
	{ "[" HDR "," GRAPH "," IN("x") ",{'r': 'node', 'kind': 'a::b', "
	  "'inputs': ['o'], 'outputs': [{'name': 'o', 'type': " TF "}], "
	  "'attrs': [], 'blocks': []}," END "]",
	  "input 0 names undefined value %o" },
	/* a block cannot use its own node's outputs */
	{ "[" HDR "," GRAPH "," IN("x") ",{'r': 'node', 'kind': 'prim::If', "
	  "'inputs': ['x'], 'outputs': [{'name': 'o', 'type': " TF "}], "
	  "'attrs': [], 'blocks': [{'params': [], 'nodes': [], "
	  "'returns': ['o']}]}," END "]",
	  "record 3 (node prim::If): block 0: return 0 names undefined "
	  "value %o" },
	/* nor a value of a sibling block (ir_verify) */
	{ "[" HDR "," GRAPH "," IN("x") ",{'r': 'node', 'kind': 'prim::If', "
	  "'inputs': ['x'], 'outputs': [{'name': 'o', 'type': " TF "}], "
	  "'attrs': [], 'blocks': [{'params': [], 'nodes': [{'r': 'node', "
	  "'kind': 'aten::neg', 'inputs': ['x'], 'outputs': [{'name': 'in0', "
	  "'type': " TF "}], 'attrs': [], 'blocks': []}], 'returns': ['in0']},"
	  "{'params': [], 'nodes': [], 'returns': ['in0']}]}," END "]",
	  "node prim::If (-> %o): block 1: return 0: %in0 is defined in "
	  "another block" },
	/* nor may the graph return a value from inside a block */
	{ "[" HDR "," GRAPH "," IN("x") ",{'r': 'node', 'kind': 'prim::If', "
	  "'inputs': ['x'], 'outputs': [], 'attrs': [], 'blocks': [{'params': "
	  "[{'name': 'p', 'type': " TF "}], 'nodes': [], 'returns': ['p']}]},"
	  OUT("p") "," END "]",
	  "graph: return 0: %p is defined in another block" },
	{ "[" HDR "," GRAPH "," IN("x") ",{'r': 'node', 'kind': 'a::b', "
	  "'inputs': ['x'], 'outputs': [], 'attrs': [], 'blocks': [{'params': "
	  "[], 'nodes': [{'r': 'graph', 'kind': 'a::c', 'inputs': [], "
	  "'outputs': [], 'attrs': [], 'blocks': []}], 'returns': []}]}]",
	  "record 3 (node a::b): block 0: node 0 (a::c): a node in a block "
	  "has \"r\" other than \"node\"" },
	{ "[" HDR "," GRAPH ",{'r': 'input', 'value': {'name': '', "
	  "'type': {'k': 'int'}}}]", "value \"name\" is empty" },
	{ "[" HDR "," GRAPH ",{'r': 'input', 'value': {'name': 'a\\x00b', "
	  "'type': {'k': 'int'}}}]", "value \"name\" holds a NUL byte" },
	{ "[" HDR "," GRAPH ",{'r': 'input', 'value': {'name': 'a\\x0ab', "
	  "'type': {'k': 'int'}}}," IN("a\\x0ab") "," END "]",
	  "value %a\\x0ab is defined twice" },

	/* maps */
	{ "[" HDR "," GRAPH ",{'r': 'node', 'kind': 'a::b', 'kind': 'a::c'}]",
	  "node has key \"kind\" twice" },
	{ "[" HDR "," GRAPH ",{'r': 'node', 'x-u': 1, 'x-u': 2, 'kind': 'a', "
	  "'inputs': [], 'outputs': [], 'attrs': [], 'blocks': []}]",
	  "node has key \"x-u\" twice" },
	{ "[" HDR ",{'r': 'graph', 'opsets': [], 'props': [], 3: 4}]",
	  "record has a key that is an int, not a string" },
	{ "[" HDR "," GRAPH ",{'r': 'node', 'inputs': []}]",
	  "missing key \"kind\"" },
	{ "[" HDR "," GRAPH ",{'r': 'node', 'kind': 'a::b', 'inputs': [], "
	  "'outputs': [], 'blocks': []}]",
	  "record 2 (node a::b): missing key \"attrs\"" },
	{ "[" HDR ",{'r': 'graph', 'opsets': [['', 13], ['', 14]], "
	  "'props': []}]", "opset domain \"\" is imported twice" },
	{ "[" HDR ",{'r': 'graph', 'opsets': [['', 13, 1]], 'props': []}]",
	  "opset 0 has 3 entries" },
	{ "[" HDR ",{'r': 'graph', 'opsets': [], 'props': [['a']]}]",
	  "prop 0 has 1 entries" },

	/* types */
	{ "[" HDR "," GRAPH ",{'r': 'input', 'value': {'name': 'x', 'type': "
	  "{'k': 'tensor', 'dtype': 1, 'shape': [" R64 "1]}}}]",
	  "rank 65 is over 64" },
	{ "[" HDR "," GRAPH ",{'r': 'input', 'value': {'name': 'x', 'type': "
	  "{'k': 'tensor', 'dtype': 1, 'shape': [1, -3]}}}]",
	  "(input): dim is negative (-3)" },
	{ "[" HDR "," GRAPH ",{'r': 'input', 'value': {'name': 'x', 'type': "
	  "{'k': 'tensor', 'dtype': 1, 'shape': [1.5]}}}]",
	  "dim is a float, expected an int, a string or nil" },
	{ "[" HDR "," GRAPH ",{'r': 'input', 'value': {'name': 'x', 'type': "
	  "{'k': 'tensor', 'dtype': 1, 'shape': ['']}}}]",
	  "dim symbol is empty" },
	{ "[" HDR "," GRAPH ",{'r': 'input', 'value': {'name': 'x', 'type': "
	  "{'k': 'tensor', 'dtype': 17, 'shape': null}}}]",
	  "\"dtype\" 17 is not a known element type" },
	{ "[" HDR "," GRAPH ",{'r': 'input', 'value': {'name': 'x', 'type': "
	  "{'k': 'tensor', 'shape': null}}}]", "missing key \"dtype\"" },
	{ "[" HDR "," GRAPH ",{'r': 'input', 'value': {'name': 'x', 'type': "
	  "{'k': 'set'}}}]", "unknown type kind \"set\"" },
	{ "[" HDR "," GRAPH ",{'r': 'input', 'value': {'name': 'x', 'type': "
	  "{'k': 'list', 'elems': [{'k': 'int'}, {'k': 'int'}]}}}]",
	  "a list type has 1 element type, not 2" },
	{ "[" HDR "," GRAPH ",{'r': 'input', 'value': {'name': 'x', 'type': "
	  "{'k': 'dict', 'elems': [{'k': 'int'}]}}}]",
	  "a dict type has 2 element types, not 1" },
	{ "[" HDR "," GRAPH ",{'r': 'input', 'value': {'name': 'x', 'type': "
	  "{'k': 'optional'}}}]", "missing key \"elems\"" },
	{ "[" HDR "," GRAPH ",{'r': 'input', 'value': {'name': 'x', 'type': "
	  "{'k': 'class'}}}]", "missing key \"name\"" },

	/* tensors */
	{ "[" HDR "," GRAPH ",{'r': 'weight', 'name': 'w', 'tensor': "
	  "{'dtype': 7, 'dims': [1], 'data': b'abcd'}}]",
	  "record 2 (weight w): inline data is 4 bytes, expected 8 "
	  "(1 elements of 8)" },
	{ "[" HDR "," GRAPH ",{'r': 'weight', 'name': 'w', 'tensor': "
	  "{'dtype': 1, 'dims': [4294967296, 4294967296, 4294967296], "
	  "'data': b''}}]", "tensor has too many elements" },
	{ "[" HDR "," GRAPH ",{'r': 'weight', 'name': 'w', 'tensor': "
	  "{'dtype': 1, 'dims': [4611686018427387904], 'data': b''}}]",
	  "inline data is 0 bytes, expected 18446744073709551615" },
	{ "[" HDR "," GRAPH ",{'r': 'weight', 'name': 'w', 'tensor': "
	  "{'dtype': 1, 'dims': [2, -1], 'data': b''}}]",
	  "tensor \"dims\" is negative (-1)" },
	{ "[" HDR "," GRAPH ",{'r': 'weight', 'name': 'w', 'tensor': "
	  "{'dtype': 1, 'dims': [" R64 "1], 'data': b'abcd'}}]",
	  "tensor rank 65 is over 64" },
	{ "[" HDR "," GRAPH ",{'r': 'weight', 'name': 'w', 'tensor': "
	  "{'dtype': 0, 'dims': [], 'data': b''}}]",
	  "tensor \"dtype\" 0 is not a known element type" },
	{ "[" HDR "," GRAPH ",{'r': 'weight', 'name': 'w', 'tensor': "
	  "{'dtype': 1, 'dims': [], 'data': b'abcd', 'ref': {}}}]",
	  "tensor needs exactly one of \"data\", \"strings\", \"ref\" and \"sref\"" },
	{ "[" HDR "," GRAPH ",{'r': 'weight', 'name': 'w', 'tensor': "
	  "{'dtype': 1, 'dims': []}}]", "tensor needs exactly one of" },
	{ "[" HDR "," GRAPH ",{'r': 'weight', 'name': 'w', 'tensor': "
	  "{'dtype': 1, 'dims': [3], 'ref': {'file': 'm.pt', 'offset': 0, "
	  "'length': 8}}}]",
	  "ref \"length\" 8 is less than the 12 bytes the tensor spans" },
	{ "[" HDR "," GRAPH ",{'r': 'weight', 'name': 'w', 'tensor': "
	  "{'dtype': 1, 'dims': [3, 2], 'ref': {'file': 'm.pt', 'offset': 0, "
	  "'length': 24, 'strides': [1, 4]}}}]",
	  "ref \"length\" 24 is less than the 28 bytes the tensor spans" },
	{ "[" HDR "," GRAPH ",{'r': 'weight', 'name': 'w', 'tensor': "
	  "{'dtype': 1, 'dims': [3, 2], 'ref': {'file': 'm.pt', 'offset': 0, "
	  "'length': 24, 'strides': [1]}}}]", "ref has 1 strides for rank 2" },
	{ "[" HDR "," GRAPH ",{'r': 'weight', 'name': 'w', 'tensor': "
	  "{'dtype': 1, 'dims': [1], 'sref': {'file': 'm.pt', 'offset': 0, "
	  "'length': 4, 'scale': b'abcdefgh'}}}]",
	  "a scaled view (\"scale\") in aten-level IR (only fold writes one)" },
	{ "[" HDR_ONNX "," GRAPH ",{'r': 'weight', 'name': 'w', 'tensor': "
	  "{'dtype': 1, 'dims': [3], 'sref': {'file': 'm.pt', 'offset': 0, "
	  "'length': 12, 'scale': b'abcdefgh'}}}]",
	  "ref \"scale\" is 8 bytes, expected 3 float64 factors" },
	{ "[" HDR_ONNX "," GRAPH ",{'r': 'weight', 'name': 'w', 'tensor': "
	  "{'dtype': 7, 'dims': [1], 'sref': {'file': 'm.pt', 'offset': 0, "
	  "'length': 8, 'scale': b'abcdefgh'}}}]",
	  "a scaled view (\"scale\") of a tensor that is not Float" },
	{ "[" HDR_ONNX "," GRAPH ",{'r': 'weight', 'name': 'w', 'tensor': "
	  "{'dtype': 1, 'dims': [1], 'sref': {'file': 'm.pt', 'offset': 0, "
	  "'length': 4, 'scale': [2.0]}}}]",
	  "ref \"scale\" is an array, expected bin" },
	{ "[" HDR_ONNX "," GRAPH ",{'r': 'weight', 'name': 'w', 'tensor': "
	  "{'dtype': 1, 'dims': [1], 'ref': {'file': 'm.pt', 'offset': 0, "
	  "'length': 4, 'scale': b'abcdefgh'}}}]",
	  "a \"ref\" has no \"scale\" (a scaled view is an \"sref\")" },
	{ "[" HDR_ONNX "," GRAPH ",{'r': 'weight', 'name': 'w', 'tensor': "
	  "{'dtype': 1, 'dims': [1], 'sref': {'file': 'm.pt', 'offset': 0, "
	  "'length': 4}}}]",
	  "an \"sref\" (a scaled view) needs \"scale\"" },
	{ "[" HDR_ONNX "," GRAPH ",{'r': 'weight', 'name': 'w', 'tensor': "
	  "{'dtype': 1, 'dims': [1], 'data': b'abcd', 'sref': {'file': "
	  "'m.pt', 'offset': 0, 'length': 4, 'scale': b'abcdefgh'}}}]",
	  "tensor needs exactly one of \"data\", \"strings\", \"ref\" and \"sref\"" },
	{ "[" HDR "," GRAPH ",{'r': 'weight', 'name': 'w', 'tensor': "
	  "{'dtype': 1, 'dims': [3], 'ref': {'file': 'm.pt', "
	  "'offset': 18446744073709551615, 'length': 12}}}]",
	  "ref \"length\" is out of range (12)" },
	{ "[" HDR "," GRAPH ",{'r': 'weight', 'name': 'w', 'tensor': "
	  "{'dtype': 1, 'dims': [3], 'ref': {'offset': 0, 'length': 12}}}]",
	  "missing key \"file\"" },
	{ "[" HDR "," GRAPH ",{'r': 'weight', 'name': 'w', 'tensor': "
	  "{'dtype': 8, 'dims': [1], 'data': b'a'}}]",
	  "a string tensor has \"strings\", not \"data\"" },
	{ "[" HDR "," GRAPH ",{'r': 'weight', 'name': 'w', 'tensor': "
	  "{'dtype': 8, 'dims': [2], 'strings': [b'a']}}]",
	  "tensor has 1 strings, expected 2" },
	{ "[" HDR "," GRAPH ",{'r': 'weight', 'name': 'w', 'tensor': "
	  "{'dtype': 1, 'dims': [1], 'strings': [b'a']}}]",
	  "only string tensors have \"strings\"" },
	{ "[" HDR "," GRAPH ",{'r': 'weight', 'name': 'w', 'tensor': "
	  "{'dtype': 8, 'dims': [1], 'ref': {'file': 'a', 'offset': 0, "
	  "'length': 0}}}]", "a string tensor cannot be a reference" },

	/* attributes */
	{ "[" HDR "," GRAPH ",{'r': 'node', 'kind': 'a::b', 'inputs': [], "
	  "'outputs': [], 'attrs': [{'n': 'a', 'k': 'i', 'v': 1}, "
	  "{'n': 'a', 'k': 'f', 'v': 1.0}], 'blocks': []}]",
	  "record 2 (node a::b): attribute \"a\" is given twice" },
	{ "[" HDR "," GRAPH ",{'r': 'node', 'kind': 'a::b', 'inputs': [], "
	  "'outputs': [], 'attrs': [{'n': 'a', 'k': 'i', "
	  "'v': 9223372036854775808}], 'blocks': []}]",
	  "attribute 0: attribute \"v\" is out of range (9223372036854775808)" },
	{ "[" HDR "," GRAPH ",{'r': 'node', 'kind': 'a::b', 'inputs': [], "
	  "'outputs': [], 'attrs': [{'n': 'a', 'k': 'f', 'v': 1}], "
	  "'blocks': []}]", "attribute \"v\" is an int, expected a float" },
	{ "[" HDR "," GRAPH ",{'r': 'node', 'kind': 'a::b', 'inputs': [], "
	  "'outputs': [], 'attrs': [{'n': 'a', 'k': 'is', 'v': [1, 'x']}], "
	  "'blocks': []}]", "attribute int is a string, expected an int" },
	{ "[" HDR "," GRAPH ",{'r': 'node', 'kind': 'a::b', 'inputs': [], "
	  "'outputs': [], 'attrs': [{'n': 'a', 'k': 'i'}], 'blocks': []}]",
	  "missing key \"v\"" },
	{ "[" HDR "," GRAPH ",{'r': 'node', 'kind': 'a::b', 'inputs': [], "
	  "'outputs': [], 'attrs': [{'k': 'i', 'v': 1}], 'blocks': []}]",
	  "missing key \"n\"" },
	{ "[" HDR "," GRAPH ",{'r': 'node', 'kind': 'a::b', 'inputs': [], "
	  "'outputs': [], 'attrs': [{'n': 'g', 'k': 'g', 'v': {'params': [], "
	  "'nodes': [], 'returns': ['nope']}}], 'blocks': []}]",
	  "record 2 (node a::b): attribute 0: graph: return 0 names undefined "
	  "value %nope" },
	/* a kind from the future is kept, whatever its value */
	{ "[" HDR "," GRAPH ",{'r': 'node', 'kind': 'a::b', 'inputs': [], "
	  "'outputs': [], 'attrs': [{'n': 'a', 'k': 'x-new', 'v': [{}, null], "
	  "'x-more': 1}], 'blocks': []}," END "]", NULL },
};

static void test_messages(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct case_ *c = &cases[i];
		struct buf s = mp(c->stream), msgs = { 0 };
		int nerr = 0;
		struct ir_graph *g = read_mem(s.data, s.len, &msgs, &nerr);
		if (!c->message) {
			if (!g)
				unit_fail(__FILE__, __LINE__, "case %zu refused: "
					  "%.*s", i, (int)msgs.len, msgs.data);
			else if (getenv("PT2ONNX_CORPUS_DIR")) {
				char name[32];
				snprintf(name, sizeof(name), "case%zu.bin", i);
				write_corpus(getenv("PT2ONNX_CORPUS_DIR"), name,
					     s.data, s.len);
			}
		} else if (g || !nerr) {
			unit_fail(__FILE__, __LINE__, "case %zu accepted, "
				  "expected \"%s\"", i, c->message);
		} else if (!memmem(msgs.data, msgs.len, c->message,
				   strlen(c->message))) {
			unit_fail(__FILE__, __LINE__, "case %zu: expected "
				  "\"%s\", got: %.*s", i, c->message,
				  (int)msgs.len, msgs.data);
		}
		/* every message is one line naming the input */
		for (size_t k = 0; k < msgs.len; ) {
			const char *nl = memchr(msgs.data + k, '\n',
						msgs.len - k);
			CHECK(nl != NULL);
			if (!nl)
				break;
			CHECK(!strncmp(msgs.data + k, "test: mem: ", 11));
			k = (size_t)(nl - msgs.data) + 1;
		}
		ir_graph_free(g);
		buf_free(&s);
		buf_free(&msgs);
	}
}

/* Streams mp() cannot write: bad bytes, lies about lengths, nesting. */
static void test_malformed_bytes(void)
{
	struct buf hdr = mp("[" HDR "," GRAPH "]"), msgs = { 0 };
	static const struct {
		const char *bytes;
		size_t len;
		const char *message;
	} t[] = {
		{ "\xc1", 1, "record 2: not msgpack: byte 0xc1 at offset 0" },
		{ "\x81\xa1r\xc1", 4, "not msgpack: byte 0xc1 at offset 3" },
		/* an array of 2^32-1 items: must not be allocated up front */
		{ "\xdd\xff\xff\xff\xff", 5, "truncated stream: record 2 ends "
		  "after 5 bytes" },
		{ "\xdf\xff\xff\xff\xff\xa1r", 7, "truncated stream" },
		{ "\xc6\xff\xff\xff\xff" "abc", 8, "truncated stream" },
		{ "\xc9\xff\xff\xff\xff\x01", 6, "not msgpack" },
		{ "\x81\xa1r\xa3" "end\x00", 8,
		  "record 2 (end): data after the \"end\" record" },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		size_t n = hdr.len + t[i].len;
		char *p = malloc(n);
		int nerr = 0;
		memcpy(p, hdr.data, hdr.len);
		memcpy(p + hdr.len, t[i].bytes, t[i].len);
		struct ir_graph *g = read_mem(p, n, &msgs, &nerr);
		CHECK(g == NULL && nerr > 0);
		if (!memmem(msgs.data, msgs.len, t[i].message,
			    strlen(t[i].message)))
			unit_fail(__FILE__, __LINE__, "bytes %zu: expected "
				  "\"%s\", got: %.*s", i, t[i].message,
				  (int)msgs.len, msgs.data);
		ir_graph_free(g);
		buf_free(&msgs);
		free(p);
	}

	/* nesting: MP_MAX_DEPTH (1168) msgpack levels in one record, no more
	 * (the reader's own decoder: msgpack-c's stopped at 32) */
	for (int depth = 1164; depth <= 1172; depth++) {
		msgpack_sbuffer sb;
		msgpack_packer pk;
		msgpack_sbuffer_init(&sb);
		msgpack_sbuffer_write(&sb, hdr.data, hdr.len);
		msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
		msgpack_pack_map(&pk, 2);
		pk_str(&pk, "r");
		pk_str(&pk, "x-deep");
		pk_str(&pk, "x");
		for (int k = 1; k < depth - 1; k++)
			msgpack_pack_array(&pk, 1);
		msgpack_pack_array(&pk, 0);
		msgpack_pack_map(&pk, 1);
		pk_str(&pk, "r");
		pk_str(&pk, "end");
		int nerr = 0;
		struct ir_graph *g = read_mem(sb.data, sb.size, &msgs, &nerr);
		if (depth <= 1168) {
			CHECK(g != NULL);
		} else {
			CHECK(g == NULL);
			CHECK(contains(&msgs, "nested deeper than 1168"));
			CHECK(count_lines(&msgs) == 1);
		}
		if (g) {
			/* what was read must be written back and read again */
			struct buf w = { 0 }, m2 = { 0 };
			CHECK_INT(write_mem(g, &w, NULL), 0);
			struct ir_graph *g2 = read_mem(w.data, w.len, &m2, NULL);
			CHECK(g2 != NULL);
			ir_graph_free(g2);
			buf_free(&w);
			buf_free(&m2);
		}
		ir_graph_free(g);
		buf_free(&msgs);
		msgpack_sbuffer_destroy(&sb);
	}
	buf_free(&hdr);
}

/* prim::If nested k deep, the innermost node with a list-typed output. */
static struct ir_graph *deep_graph(int k)
{
	struct ir_graph *g = ir_graph_new(IR_LEVEL_ATEN);
	int64_t two = 2;
	struct ir_value *x = ir_value_new(g, "x", ft(g, 1, &two));
	struct ir_block *b = g->top;

	ir_block_add_param(g, g->top, x);
	for (int i = 0; i < k; i++) {
		struct ir_node *n = ir_node_new(g, b, "prim::If", 1, 1);
		n->inputs[0] = x;
		b = ir_node_add_block(g, n);
		char name[16];
		snprintf(name, sizeof(name), "o%d", i);
		out1(g, n, 0, name, ft(g, 1, &two));
	}
	struct ir_node *n = ir_node_new(g, b, "aten::neg", 1, 1);
	n->inputs[0] = x;
	out1(g, n, 0, "deepest", elems(g, IR_TYPE_LIST, 1, ft(g, 1, &two),
				       NULL));
	return g;
}

/* Nested blocks k deep: 256 (the documented bound) and more read back;
 * the writer refuses what readers cannot read. */
static void test_deep_blocks(void)
{
	static const int ks[] = { 1, 6, 7, 32, 100, 256, 280, 300, 1000 };
	int written = 0;
	for (size_t i = 0; i < sizeof(ks) / sizeof(ks[0]); i++) {
		int k = ks[i];
		struct ir_graph *g = deep_graph(k);
		struct buf w = { 0 }, msgs = { 0 }, m2 = { 0 }, w2 = { 0 };
		int ret = write_mem(g, &w, &msgs);
		if (ret == 0) {
			written = k;
			struct ir_graph *g2 = read_mem(w.data, w.len, &m2, NULL);
			CHECK(g2 != NULL);
			/* binary -> graph -> binary: the same bytes */
			if (g2) {
				CHECK_INT(write_mem(g2, &w2, NULL), 0);
				CHECK(w2.len == w.len &&
				      !memcmp(w2.data, w.data, w.len));
			}
			ir_graph_free(g2);
		} else {
			CHECK(k > 256);
			CHECK(contains(&msgs, "nested deeper"));
			CHECK(count_lines(&msgs) == 1);
		}
		ir_graph_free(g);
		buf_free(&w);
		buf_free(&w2);
		buf_free(&msgs);
		buf_free(&m2);
	}
	CHECK(written >= 256 && written < 1000);
	if (getenv("UNIT_VERBOSE"))
		fprintf(stderr, "  blocks nest %d deep at most\n", written);
}

/* A deep prim::If nest: binary -> text -> binary gives the same bytes (60
 * deep: the text form reads blocks 64 deep at most). */
static void test_deep_blocks_text(void)
{
	struct ir_graph *g = deep_graph(60);
	struct buf w = { 0 }, t = { 0 }, w2 = { 0 }, msgs = { 0 };
	struct diag d;

	CHECK_INT(write_mem(g, &w, NULL), 0);
	struct ir_graph *g1 = read_mem(w.data, w.len, &msgs, NULL);
	CHECK(g1 != NULL);
	diag_init(&d, "test");
	d.quiet = 1;
	FILE *fp = open_memstream(&t.data, &t.len);
	CHECK_INT(ir_write_text(g1, fp, &d), 0);
	fclose(fp);
	struct ir_graph *g2 = ir_read_text_mem(t.data, t.len, "text", &d);
	CHECK(g2 != NULL);
	if (g2) {
		CHECK_INT(write_mem(g2, &w2, NULL), 0);
		CHECK(w2.len == w.len && !memcmp(w2.data, w.data, w.len));
	}
	ir_graph_free(g2);
	ir_graph_free(g1);
	ir_graph_free(g);
	buf_free(&w);
	buf_free(&t);
	buf_free(&w2);
	buf_free(&msgs);
}

/* Every cut of a deep stream is one error line, never a crash. */
static void test_deep_truncated(void)
{
	struct ir_graph *g = deep_graph(200);
	struct buf w = { 0 };

	CHECK_INT(write_mem(g, &w, NULL), 0);
	for (size_t cut = 0; cut < w.len; cut += 1 + cut / 16) {
		struct buf msgs = { 0 };
		int nerr = 0;
		struct ir_graph *g2 = read_mem(w.data, cut, &msgs, &nerr);
		CHECK(g2 == NULL && nerr == 1);
		CHECK(count_lines(&msgs) == 1);
		CHECK(contains(&msgs, "truncated stream"));
		ir_graph_free(g2);
		buf_free(&msgs);
	}
	/* 0xc1 (a byte msgpack does not have) for each byte of the record
	 * that nests deepest: refused with one line where it is a header, a
	 * name that is off by a byte where it lands in a string */
	int refused = 0;
	for (size_t at = w.len / 2; at < w.len; at++) {
		struct buf msgs = { 0 };
		char save = w.data[at];
		w.data[at] = (char)0xc1;
		struct ir_graph *g2 = read_mem(w.data, w.len, &msgs, NULL);
		if (g2 == NULL && contains(&msgs, "not msgpack")) {
			refused++;
			CHECK(count_lines(&msgs) == 1);
		}
		w.data[at] = save;
		ir_graph_free(g2);
		buf_free(&msgs);
	}
	CHECK(refused > 100);
	ir_graph_free(g);
	buf_free(&w);
}

/* The writer refuses graphs that would not read back. */
static void test_write_errors(void)
{
	struct ir_graph *g = ir_graph_new(IR_LEVEL_ONNX);
	int64_t two = 2;
	struct buf w = { 0 }, msgs = { 0 };
	struct ir_tensor *t = ir_tensor_new(g, IR_DTYPE_FLOAT, 1, &two);
	t->bytes.data = "abc";
	t->bytes.len = 3;
	ir_add_weight(g, NULL, "w", t);
	CHECK_INT(write_mem(g, &w, &msgs), -1);
	CHECK(contains(&msgs, "inline data is 3 bytes"));
	buf_free(&w);
	buf_free(&msgs);
	t->bytes.data = "abcdefgh";
	t->bytes.len = 8;
	struct ir_node *n = ir_node_new(g, g->top, "a::b", 0, 1);
	CHECK_INT(write_mem(g, &w, &msgs), -1);
	CHECK(contains(&msgs, "output 0 is not set"));
	buf_free(&w);
	buf_free(&msgs);
	out1(g, n, 0, "o", NULL);
	n->extra.data = "\x91\x01"; /* an array, not a map */
	n->extra.len = 2;
	CHECK_INT(write_mem(g, &w, &msgs), -1);
	CHECK(contains(&msgs, "not a msgpack map"));
	buf_free(&w);
	buf_free(&msgs);
	n->extra.len = 0;
	struct ir_attr *a = ir_node_add_attr(g, n, "r", IR_ATTR_RAW);
	a->u.raw.data = "\x92\x01"; /* cut short */
	a->u.raw.len = 2;
	CHECK_INT(write_mem(g, &w, &msgs), -1);
	CHECK(contains(&msgs, "not one msgpack object"));
	buf_free(&w);
	buf_free(&msgs);
	a->u.raw.data = "\x81\xa1x\xc3"; /* {"x": true}: not an attribute */
	a->u.raw.len = 4;
	CHECK_INT(write_mem(g, &w, &msgs), -1);
	CHECK(contains(&msgs, "is not an attribute map"));
	buf_free(&w);
	buf_free(&msgs);
	a->u.raw.data = "\x83\xa1n\xa1q\xa1k\xa1z\xa1v\xc0"; /* "n" is not r */
	a->u.raw.len = 12;
	CHECK_INT(write_mem(g, &w, &msgs), -1);
	buf_free(&w);
	buf_free(&msgs);
	a->u.raw.data = "\x83\xa1n\xa1r\xa1k\xa1z\xa1v\xc0";
	CHECK_INT(write_mem(g, &w, &msgs), 0);
	buf_free(&w);
	buf_free(&msgs);
	/* records of unknown kind need an "r" that names no known record */
	struct ir_raw_record *rr = ir_add_raw_record(g, "\x80", 1,
						     IR_RAW_NODES, 0);
	CHECK_INT(write_mem(g, &w, &msgs), -1);
	CHECK(contains(&msgs, "with a string \"r\""));
	buf_free(&w);
	buf_free(&msgs);
	rr->bytes.data = "\x81\xa1r\xa4node";
	rr->bytes.len = 8;
	CHECK_INT(write_mem(g, &w, &msgs), -1);
	CHECK(contains(&msgs, "has \"r\" \"node\""));
	buf_free(&w);
	buf_free(&msgs);
	rr->bytes.data = "\x81\xa1r\xa4nodf";
	CHECK_INT(write_mem(g, &w, &msgs), 0);
	buf_free(&w);
	buf_free(&msgs);
	/* a reference must cover its tensor */
	t = ir_tensor_new(g, IR_DTYPE_FLOAT, 1, &two);
	t->data_kind = IR_DATA_REF;
	t->ref.file = "f";
	t->ref.length = 7;
	struct ir_value *rv = ir_add_weight(g, NULL, "short_ref", t);
	CHECK_INT(write_mem(g, &w, &msgs), -1);
	CHECK(contains(&msgs, "reference length 7 does not cover"));
	buf_free(&w);
	buf_free(&msgs);
	t->ref.length = 8;
	t->ref.offset = UINT64_MAX - 7;
	CHECK_INT(write_mem(g, &w, &msgs), -1);
	buf_free(&w);
	buf_free(&msgs);
	t->ref.offset = UINT64_MAX - 8;
	CHECK_INT(write_mem(g, &w, &msgs), 0);
	buf_free(&w);
	buf_free(&msgs);
	(void)rv;
	/* a write error is reported, not ignored */
	FILE *full = fopen("/dev/full", "w");
	if (full) {
		struct diag d;
		diag_init(&d, "test");
		d.quiet = 1;
		CHECK_INT(ir_write_binary(g, full, &d), -1);
		CHECK_INT(d.nerrors, 1);
		fclose(full);
	}
	ir_graph_free(g);
}

/* --- ir_verify on graphs built in C -------------------------------------- */

static int verify_count(const struct ir_graph *g, const char *want)
{
	struct buf msgs = { 0 };
	struct diag d;
	int n;

	diag_init(&d, "test");
	d.out = open_memstream(&msgs.data, &msgs.len);
	n = ir_verify(g, &d);
	fclose(d.out);
	if (want && !memmem(msgs.data, msgs.len, want, strlen(want)))
		unit_fail(__FILE__, __LINE__, "expected \"%s\", got: %.*s",
			  want, (int)msgs.len, msgs.data);
	buf_free(&msgs);
	return n;
}

static void test_verify(void)
{
	struct ir_graph *g = build_sample();
	CHECK_INT(verify_count(g, NULL), 0);
	ir_graph_free(g);

	/* used before it is defined */
	g = ir_graph_new(IR_LEVEL_ATEN);
	struct ir_value *x = input(g, "x", NULL);
	struct ir_node *a = ir_node_new(g, g->top, "aten::neg", 1, 1);
	struct ir_node *b = ir_node_new(g, g->top, "aten::neg", 1, 1);
	b->inputs[0] = x;
	struct ir_value *vb = out1(g, b, 0, "b", NULL);
	a->inputs[0] = vb;
	out1(g, a, 0, "a", NULL);
	CHECK_INT(verify_count(g, "node aten::neg (-> %a): input 0: %b is "
			       "not defined before its use"), 1);
	/* fixed by moving the node */
	ir_node_unlink(a);
	ir_block_append(g->top, a);
	CHECK_INT(verify_count(g, NULL), 0);
	/* a value defined twice */
	struct ir_node *c = ir_node_new(g, g->top, "aten::neg", 1, 1);
	c->inputs[0] = x;
	c->outputs[0] = vb;
	CHECK_INT(verify_count(g, "%b is defined twice"), 2);
	ir_node_unlink(c);
	CHECK_INT(verify_count(g, NULL), 0);
	/* two values with one name (built behind the name table's back) */
	struct ir_value *twin = ir_alloc(g, sizeof(*twin));
	twin->name = "a";
	twin->type = ir_type_new(g, IR_TYPE_INT);
	ir_block_add_param(g, g->top, twin);
	CHECK_INT(verify_count(g, "two values are named %a"), 1);
	g->top->nparams--;
	/* a graph output from inside a block, a block using its node's
	 * output, and an unset output */
	struct ir_node *iff = ir_node_new(g, g->top, "prim::If", 1, 2);
	iff->inputs[0] = x;
	struct ir_block *blk = ir_node_add_block(g, iff);
	struct ir_node *inner = ir_node_new(g, blk, "aten::neg", 1, 1);
	inner->inputs[0] = x;
	struct ir_value *in = out1(g, inner, 0, "inner", NULL);
	struct ir_value *o = out1(g, iff, 0, "o", NULL);
	ir_block_add_return(g, blk, o);
	ir_block_add_return(g, g->top, in);
	CHECK_INT(verify_count(g, "graph: return 0: %inner is defined in "
			       "another block"), 3);
	/* ir_verify leaves the graph alone: it can run twice */
	CHECK_INT(verify_count(g, "node prim::If (-> %o): output 1 is not set"),
		  3);
	ir_graph_free(g);

	/* many values: the name table grows while blocks open and close */
	g = ir_graph_new(IR_LEVEL_ATEN);
	struct ir_value *prev = input(g, "in", NULL);
	for (int i = 0; i < 3000; i++) {
		struct ir_node *n = ir_node_new(g, g->top, "prim::If", 1, 1);
		n->inputs[0] = prev;
		struct ir_block *bb = ir_node_add_block(g, n);
		struct ir_node *m = ir_node_new(g, bb, "aten::neg", 1, 1);
		m->inputs[0] = prev;
		char name[32];
		snprintf(name, sizeof(name), "inner%d", i);
		ir_block_add_return(g, bb, out1(g, m, 0, name, NULL));
		snprintf(name, sizeof(name), "v%d", i);
		prev = out1(g, n, 0, name, NULL);
	}
	ir_block_add_return(g, g->top, prev);
	CHECK_INT(verify_count(g, NULL), 0);
	ir_block_add_return(g, g->top, ir_find_value(g, "inner77"));
	CHECK_INT(verify_count(g, "%inner77 is defined in another block"), 1);
	ir_graph_free(g);
}

const struct unit_test unit_tests[] = {
	UNIT(test_roundtrip),
	UNIT(test_roundtrip_file),
	UNIT(test_pipe),
	UNIT(test_truncation),
	UNIT(test_wrong_types),
	UNIT(test_messages),
	UNIT(test_malformed_bytes),
	UNIT(test_deep_blocks),
	UNIT(test_deep_blocks_text),
	UNIT(test_deep_truncated),
	UNIT(test_write_errors),
	UNIT(test_verify),
	{ 0 },
};

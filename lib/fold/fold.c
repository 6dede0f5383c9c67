/*
 * fold.c - fold_graph(): the passes of fold.h over an ONNX-level graph.
 *
 * Invariants kept: a value keeps its name (a folded node's outputs become
 * initializers under the same names, so graph outputs and later uses need
 * no rewriting; a folded If's outputs are replaced by the branch's values
 * except those a block returns, which an Identity keeps); a node whose
 * output is returned by its block is not folded (ONNX wants graph outputs
 * produced by nodes); weights nobody computes on are never read.
 * Initializers made by folding in a subgraph become that subgraph's
 * initializers.
 *
 * Scratch: value->aux caches a constant's inline tensor during folding
 * and names the replacement during de-duplication; value->uses counts
 * uses (node inputs in every block, block returns).  Both are cleared
 * before each use.
 *
 * Costs: each pass walks the graph once (plus one walk per output of a
 * folded If, to rewrite its uses); constants are read once each (pread
 * straight into the tensor); de-duplication hashes inline data once (four
 * interleaved 64-bit multiply-xor lanes) and compares bytes only on equal
 * hashes.  Data movement of a weight by reference (Identity, Reshape,
 * Flatten, Squeeze, Unsqueeze of a contiguous one, Transpose of any) reads
 * nothing: the result refers to the same bytes (try_view).  A Slice of
 * one reads only the bytes the elements it takes span (slice_by_ref: a
 * causal mask's first rows, not the whole buffer).  Conv +
 * BatchNormalization of a Float weight by reference reads nothing: the
 * fused weight is a scaled view of it (docs/ir.md), which emit computes as
 * it writes; another weight is read into a scratch buffer, reused from one
 * fusion to the next, and, with a data file, computed into another.
 *
 * The data file (fold_options.data_file): results of data_min bytes and
 * more are written there as they are made (make_weight, try_bn) and become
 * references into it, so that they neither cross the pipe inline nor stay
 * in memory; equal blocks are written once (hash, then the bytes compared),
 * so de-duplication still merges equal results, now as equal references.
 */
#include "fold.h"
#include "fold_peep.h"
#include "outfile.h"
#include "weight_bytes.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "version.h"

/* A block written to the data file. */
struct data_ent {
	uint64_t h, off, len;
};

struct fold_ctx {
	struct ir_graph *g;
	const struct fold_options *o;
	struct fold_stats *st;
	struct diag *d;
	int64_t opset;
	int err;             /* first exit code reported, 0 when none */
	int dfd;             /* the data file, -1 until a result goes there */
	const char *dpath;   /* its absolute path (arena) */
	uint64_t dend;       /* its size so far */
	struct data_ent *dents; /* the blocks in it (malloc'd) */
	uint32_t ndents, capdents;
	char *scratch[2];    /* Conv weights in and out of a fusion, kept */
	size_t scap[2];      /* from one fusion to the next (malloc'd) */
};

void fold_options_init(struct fold_options *o)
{
	o->constant_fold = 1;
	o->peephole = 1;
	o->bn_fold = 1;
	o->dce = 1;
	o->dedup = 1;
	o->max_bytes = (uint64_t)1 << 30;
	o->data_file = NULL;
	o->data_min = 4096;
}

/* A fast hash of bytes for grouping equal blocks (equality is always
 * confirmed byte for byte): four interleaved multiply-xor lanes over
 * 64-bit words, then the tail. */
static uint64_t hash_bytes(const void *p, size_t n, uint64_t h)
{
	const unsigned char *s = p;
	const uint64_t k = 0x9e3779b97f4a7c15ull;
	uint64_t l[4] = { h, h ^ 1, h ^ 2, h ^ 3 };
	size_t i = 0;

	for (; i + 32 <= n; i += 32) {
		uint64_t w[4];
		memcpy(w, s + i, 32);
		for (int j = 0; j < 4; j++) {
			l[j] = (l[j] ^ w[j]) * k;
			l[j] ^= l[j] >> 29;
		}
	}
	h = l[0] ^ (l[1] * 3) ^ (l[2] * 5) ^ (l[3] * 7);
	for (; i < n; i++)
		h = (h ^ s[i]) * 0x100000001b3ull;
	return h ^ (h >> 31);
}

/* hash_bytes of a sample of a large block (its first and last 4 KiB and
 * 64 bytes of every 16 KiB between): blocks that differ almost always
 * differ there, and equal hashes are confirmed byte for byte anyway. */
static uint64_t hash_sample(const void *p, size_t n, uint64_t h)
{
	const char *s = p;

	if (n <= (size_t)1 << 16)
		return hash_bytes(p, n, h);
	h = hash_bytes(s, 4096, h);
	h = hash_bytes(s + n - 4096, 4096, h);
	for (size_t at = 4096; at + 64 <= n - 4096; at += 16384)
		h = hash_bytes(s + at, 64, h);
	return h;
}

/* --- walking ------------------------------------------------------------ */

typedef void (*block_fn)(struct fold_ctx *c, struct ir_block *b);

/* Calls fn on every subgraph block of node n (graph attributes and nested
 * blocks). */
static void each_sub(struct fold_ctx *c, struct ir_node *n, block_fn fn)
{
	for (uint32_t i = 0; i < n->nblocks; i++)
		fn(c, n->blocks[i]);
	for (uint32_t i = 0; i < n->nattrs; i++) {
		struct ir_attr *a = &n->attrs[i];
		if (a->kind == IR_ATTR_GRAPH)
			fn(c, a->u.g);
		else if (a->kind == IR_ATTR_GRAPHS)
			for (uint32_t j = 0; j < a->count; j++)
				fn(c, a->u.graphs[j]);
	}
}

static void clear_value(struct ir_value *v)
{
	if (v) {
		v->uses = 0;
		v->aux = NULL;
	}
}

static void clear_weights(struct ir_weight *w)
{
	for (; w; w = w->next)
		clear_value(w->value);
}

static void clear_values(struct fold_ctx *c, struct ir_block *b)
{
	for (uint32_t i = 0; i < b->nparams; i++)
		clear_value(b->params[i]);
	clear_weights(b->weights);
	for (struct ir_node *n = b->first; n; n = n->next) {
		for (uint32_t i = 0; i < n->noutputs; i++)
			clear_value(n->outputs[i]);
		for (uint32_t i = 0; i < n->ninputs; i++)
			clear_value(n->inputs[i]);
		each_sub(c, n, clear_values);
	}
}

static void count_uses(struct fold_ctx *c, struct ir_block *b)
{
	for (struct ir_node *n = b->first; n; n = n->next) {
		for (uint32_t i = 0; i < n->ninputs; i++)
			if (n->inputs[i])
				n->inputs[i]->uses++;
		each_sub(c, n, count_uses);
	}
	for (uint32_t i = 0; i < b->nreturns; i++)
		b->returns[i]->uses++;
}

static void reset_scratch(struct fold_ctx *c)
{
	clear_weights(c->g->weights);
	clear_values(c, c->g->top);
}

static void recount(struct fold_ctx *c)
{
	reset_scratch(c);
	count_uses(c, c->g->top);
}

static int is_returned(const struct ir_block *b, const struct ir_value *v)
{
	for (uint32_t i = 0; i < b->nreturns; i++)
		if (b->returns[i] == v)
			return 1;
	return 0;
}

/* --- constants ---------------------------------------------------------- */

/* Reads the elements a reference names, row-major and contiguous, into
 * dst (numel x element size bytes).  0, or -1 after reporting (c->err
 * set). */
static int read_ref_into(struct fold_ctx *c, const char *what,
			 const struct ir_tensor *t, char *dst)
{
	const struct ir_data_ref *r = &t->ref;
	int strided = !weight_contiguous(t);
	uint64_t span;
	enum weight_err e;

	if (!ir_tensor_numel(t))
		return 0;
	e = weight_span(t, &span);
	if (e || span > SIZE_MAX) {
		diag_error(c->d, "%s: %s", what, e == WEIGHT_NEG_STRIDE ?
			   "negative strides are not supported" :
			   "strides overflow");
		c->err = c->err ? c->err : EXIT_BAD_INPUT;
		return -1;
	}
	size_t len = (size_t)span;
	char *buf = strided ? malloc(len) : dst;
	if (!buf) {
		diag_error(c->d, "%s: out of memory reading %zu bytes", what,
			   len);
		c->err = c->err ? c->err : EXIT_IO;
		return -1;
	}
	e = weight_read(r->file, r->offset, buf, len);
	if (e) {
		if (e == WEIGHT_OPEN)
			diag_error(c->d, "%s: cannot open weight file '%s': %s",
				   what, r->file, strerror(errno));
		else if (e == WEIGHT_READ)
			diag_error(c->d, "%s: reading '%s': %s", what,
				   r->file, strerror(errno));
		else
			diag_error(c->d, "%s: weight file '%s' is "
				   "shorter than offset %llu + %zu "
				   "bytes", what, r->file,
				   (unsigned long long)r->offset, len);
		c->err = c->err ? c->err :
			 e == WEIGHT_READ ? EXIT_IO : EXIT_BAD_INPUT;
		if (strided)
			free(buf);
		return -1;
	}
	if (strided) {
		weight_gather(dst, buf, t);
		free(buf);
	}
	weight_scale_apply(t, dst);
	return 0;
}

/* Reads a referenced tensor into a new inline one (arena).  NULL after
 * reporting (c->err set), or without a report when it is a string tensor
 * or over max_bytes (not folded). */
static struct ir_tensor *read_ref(struct fold_ctx *c, const char *what,
				  const struct ir_tensor *t)
{
	struct ir_tensor *out;

	if (!ir_dtype_size(t->dtype))
		return NULL; /* strings are not folded */
	out = fold_tensor_alloc(c->g, t->dtype, t->rank, t->dims,
				c->o->max_bytes);
	if (!out)
		return NULL; /* too large to compute on: not folded */
	if (read_ref_into(c, what, t, (char *)out->bytes.data))
		return NULL;
	return out;
}

/* --- the data file ------------------------------------------------------- */

static int data_open(struct fold_ctx *c)
{
	char *abs;

	c->dfd = open(c->o->data_file, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC,
		      0644);
	if (c->dfd < 0) {
		diag_error(c->d, "cannot create the data file '%s': %s",
			   c->o->data_file, strerror(errno));
		c->err = c->err ? c->err : EXIT_IO;
		return -1;
	}
	abs = realpath(c->o->data_file, NULL);
	if (!abs) {
		diag_error(c->d, "the data file '%s': %s", c->o->data_file,
			   strerror(errno));
		c->err = c->err ? c->err : EXIT_IO;
		close(c->dfd);
		c->dfd = -1;
		unlink(c->o->data_file);
		return -1;
	}
	c->dpath = ir_strdup(c->g, abs);
	free(abs);
	/* half written if a signal ends us while folding: removed then */
	outfile_track((char *)c->dpath);
	/* the header that tells emit this is a fold data file (docs/ir.md,
	 * "Which files a weight() may read") */
	char hdr[FOLD_DATA_HEADER] = FOLD_DATA_MAGIC;
	if (pwrite(c->dfd, hdr, sizeof(hdr), 0) != (ssize_t)sizeof(hdr)) {
		diag_error(c->d, "writing the data file '%s': %s", c->dpath,
			   strerror(errno));
		c->err = c->err ? c->err : EXIT_IO;
		return -1;
	}
	c->dend = FOLD_DATA_HEADER;
	return 0;
}

/* 1 when the len bytes at off in the data file equal p. */
static int data_same(struct fold_ctx *c, uint64_t off, const void *p,
		     size_t len)
{
	size_t chunk = len < ((size_t)1 << 20) ? len : (size_t)1 << 20;
	char *buf = xmalloc(chunk);
	int same = 1;

	for (size_t at = 0; same && at < len; at += chunk) {
		size_t k = len - at < chunk ? len - at : chunk;
		same = !weight_pread(c->dfd, buf, k, off + at) &&
		       !memcmp(buf, (const char *)p + at, k);
	}
	free(buf);
	return same;
}

/* Puts len bytes in the data file, or finds an equal block there; *off
 * gets its offset.  0, or -1 after reporting (c->err set). */
static int data_put(struct fold_ctx *c, const void *p, size_t len,
		    uint64_t *off)
{
	uint64_t h = hash_sample(p, len, len), at;
	size_t done = 0;

	if (c->dfd < 0 && data_open(c))
		return -1;
	for (uint32_t i = 0; i < c->ndents; i++) {
		struct data_ent *e = &c->dents[i];
		if (e->h == h && e->len == len && data_same(c, e->off, p, len)) {
			*off = e->off;
			return 0;
		}
	}
	at = (c->dend + 63) & ~(uint64_t)63; /* cache-line aligned blocks */
	while (done < len) {
		ssize_t k = pwrite(c->dfd, (const char *)p + done, len - done,
				   (off_t)(at + done));
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			diag_error(c->d, "writing the data file '%s': %s",
				   c->dpath, k < 0 ? strerror(errno)
						   : "nothing written");
			c->err = c->err ? c->err : EXIT_IO;
			return -1;
		}
		done += (size_t)k;
	}
	if (c->ndents == c->capdents) {
		c->capdents = c->capdents ? 2 * c->capdents : 64;
		c->dents = xrealloc(c->dents, c->capdents * sizeof(*c->dents));
	}
	c->dents[c->ndents++] = (struct data_ent){ h, at, len };
	c->dend = at + len;
	*off = at;
	fault_stall("fold-data");
	return 0;
}

/* t becomes a contiguous reference to len bytes at off in the data
 * file. */
static void data_ref(struct fold_ctx *c, struct ir_tensor *t, uint64_t off,
		     size_t len)
{
	t->data_kind = IR_DATA_REF;
	t->bytes.data = NULL;
	t->bytes.len = 0;
	t->ref.file = c->dpath;
	t->ref.offset = off;
	t->ref.length = len;
	t->ref.strides = NULL;
}

/* Moves an inline result of data_min bytes or more to the data file (t
 * becomes a reference).  1 when moved. */
static int spill(struct fold_ctx *c, struct ir_tensor *t)
{
	uint64_t off;

	if (!c->o->data_file || t->data_kind != IR_DATA_INLINE ||
	    !ir_dtype_size(t->dtype) || !t->bytes.len ||
	    t->bytes.len < c->o->data_min)
		return 0;
	if (data_put(c, t->bytes.data, t->bytes.len, &off))
		return 0;
	data_ref(c, t, off, t->bytes.len);
	return 1;
}

/* An inline tensor usable as data, or NULL (not a constant, not readable,
 * strings).  `what` names it for messages. */
static struct ir_tensor *inline_of(struct fold_ctx *c, const char *what,
				   struct ir_tensor *t)
{
	if (!t || !ir_dtype_size(t->dtype))
		return NULL;
	if (t->data_kind == IR_DATA_REF)
		return read_ref(c, what, t);
	if (t->bytes.len != ir_tensor_numel(t) * ir_dtype_size(t->dtype))
		return NULL;
	return t;
}

/* The constant value of v (an initializer or an onnx::Constant output) as
 * inline data, cached in v->aux; NULL when v is not constant. */
static struct ir_tensor *const_of(struct fold_ctx *c, struct ir_value *v)
{
	struct ir_tensor *t = NULL;
	char what[160];

	if (!v)
		return NULL;
	if (v->aux)
		return v->aux;
	snprintf(what, sizeof(what), "weight '%s'", v->name);
	if (v->weight)
		t = inline_of(c, what, v->weight->tensor);
	else if (v->producer && !strcmp(v->producer->kind, "onnx::Constant") &&
		 v->producer->noutputs == 1)
		t = inline_of(c, what, fold_constant_value(c->g, v->producer));
	v->aux = t;
	return t;
}

static int is_const(const struct ir_value *v)
{
	return v && (v->weight || (v->producer &&
		     !strcmp(v->producer->kind, "onnx::Constant")));
}

/* Makes value v (a node output) an initializer of block b holding t
 * (moved to the data file when it goes there). */
static void make_weight(struct fold_ctx *c, struct ir_block *b,
			struct ir_value *v, struct ir_tensor *t)
{
	struct ir_graph *g = c->g;
	struct ir_weight *w = ir_alloc(g, sizeof(*w));
	w->tensor = t;
	w->value = v;
	v->weight = w;
	v->producer = NULL;
	v->type = ir_tensor_type(g, t);
	/* the cache holds inline data only: a reference is read if needed */
	v->aux = spill(c, t) || t->data_kind != IR_DATA_INLINE ? NULL : t;
	ir_append_weight(g, b, w);
}

/* A new initializer in block b named from `prefix`. */
static struct ir_value *new_weight(struct fold_ctx *c, struct ir_block *b,
				   const char *prefix, struct ir_tensor *t)
{
	struct ir_value *v = ir_value_new(c->g, ir_fresh_name(c->g, prefix),
					  ir_tensor_type(c->g, t));
	make_weight(c, b, v, t);
	return v;
}

/* 1 when the computed tensor agrees with what the IR says of the value
 * (dtype and fixed dims); a disagreement means we would change the graph's
 * meaning, so the node is left alone. */
static int agrees(const struct ir_type *ty, const struct ir_tensor *t)
{
	if (ty->kind == IR_TYPE_UNKNOWN)
		return 1;
	if (ty->kind != IR_TYPE_TENSOR)
		return 0;
	if (ty->dtype != IR_DTYPE_UNDEFINED && ty->dtype != t->dtype)
		return 0;
	if (ty->rank < 0)
		return 1;
	if (ty->rank != t->rank)
		return 0;
	for (int i = 0; i < t->rank; i++)
		if (ty->dims[i].kind == IR_DIM_FIXED &&
		    ty->dims[i].value != t->dims[i])
			return 0;
	return 1;
}

/* --- pass 2: constant folding ------------------------------------------ */

/* A reference's strides in elements (rank entries), the contiguous ones
 * when it has none. */
static void ref_strides(const struct ir_tensor *x, int64_t *base)
{
	int r = x->rank;

	if (x->ref.strides) {
		memcpy(base, x->ref.strides, sizeof(*base) * (size_t)r);
		return;
	}
	int64_t s = 1;
	for (int i = r - 1; i >= 0; i--) {
		base[i] = s;
		s *= x->dims[i];
	}
}

/* Identity, Reshape, Flatten, Squeeze and Unsqueeze of a contiguous weight
 * by reference, and Transpose of any weight by reference (x): the result
 * is the same bytes seen through other dims (and strides), so it becomes a
 * reference too and nothing is read.  The shape comes from the op's own
 * evaluator run on a stand-in without data (those ops never touch it);
 * Transpose's from its perm.  1 when n was replaced, -1 when the result
 * disagrees with n's type (n stays), 0 when it is not a view. */
static int try_view(struct fold_ctx *c, struct ir_block *b, struct ir_node *n,
		    int (*fn)(struct fold_eval *), struct fold_eval *e,
		    const struct ir_tensor *x)
{
	const char *k = n->kind;
	struct ir_tensor *t;

	if (n->noutputs != 1)
		return 0;
	/* a scaled view is seen only as it is (Identity): its factors go
	 * with dim 0 */
	if (x->ref.scale && strcmp(k, "onnx::Identity"))
		return 0;
	if (!strcmp(k, "onnx::Transpose")) {
		const struct ir_attr *a = ir_node_find_attr(n, "perm");
		int64_t base[64], dims[64];
		int64_t *st;
		char seen[64] = { 0 };
		int r = x->rank;
		if (r > 64 || (a && (a->kind != IR_ATTR_INTS ||
				     a->count != (uint32_t)r)))
			return 0;
		ref_strides(x, base);
		st = ir_alloc(c->g, sizeof(*st) * (size_t)(r ? r : 1));
		for (int i = 0; i < r; i++) {
			int64_t p = a ? a->u.ints[i] : r - 1 - i;
			if (p < 0 || p >= r || seen[p])
				return 0;
			seen[p] = 1;
			dims[i] = x->dims[p];
			st[i] = base[p];
		}
		t = ir_tensor_new(c->g, x->dtype, r, dims);
		t->data_kind = IR_DATA_REF;
		t->ref = x->ref;
		t->ref.strides = weight_strides_contiguous(r, dims, st) ? NULL : st;
	} else {
		int same = !strcmp(k, "onnx::Identity");
		if (!same && strcmp(k, "onnx::Reshape") &&
		    strcmp(k, "onnx::Flatten") && strcmp(k, "onnx::Squeeze") &&
		    strcmp(k, "onnx::Unsqueeze"))
			return 0;
		if (!same && !weight_strides_contiguous(x->rank, x->dims,
						       x->ref.strides))
			return 0;
		struct ir_tensor stand = *x;
		stand.data_kind = IR_DATA_INLINE;
		stand.bytes.data = NULL;
		stand.bytes.len = (size_t)(ir_tensor_numel(x) *
					   ir_dtype_size(x->dtype));
		e->in[0] = &stand;
		e->out[0] = NULL;
		if (fn(e) != FOLD_EVAL_OK || !e->out[0])
			return 0;
		t = e->out[0];
		t->data_kind = IR_DATA_REF;
		t->bytes.data = NULL;
		t->bytes.len = 0;
		t->ref = x->ref;
		if (!same)
			t->ref.strides = NULL;
	}
	if (!agrees(n->outputs[0]->type, t))
		return -1;
	make_weight(c, b, n->outputs[0], t);
	ir_node_unlink(n);
	c->st->folded++;
	return 1;
}

/* n, whose one output a block returns, becomes an onnx::Constant holding
 * t (inline, at most 1 MiB, and small enough to stay out of the data
 * file); 1 when it did. */
static int to_constant(struct fold_ctx *c, struct ir_node *n,
		       struct ir_tensor *t)
{
	if (t->data_kind != IR_DATA_INLINE || t->bytes.len > (1u << 20) ||
	    (c->o->data_file && t->bytes.len >= c->o->data_min))
		return 0;
	struct ir_node *cn = ir_node_new(c->g, NULL, "onnx::Constant", 0, 1);
	ir_node_add_attr(c->g, cn, "value", IR_ATTR_TENSOR)->u.t = t;
	cn->scope = n->scope;
	cn->source = n->source;
	ir_block_insert_before(n, cn);
	ir_node_set_output(cn, 0, n->outputs[0]);
	n->outputs[0]->aux = t;
	ir_node_unlink(n);
	c->st->folded++;
	return 1;
}

/* Slice (positive steps, a result not empty) of weight xv by reference:
 * the result is read through a strided reference to the elements it
 * takes, so that only the bytes they span are read (the first rows of a
 * causal-mask buffer, not all of it), and is the tensor op_slice would
 * compute from the whole weight.  NULL when n is not such a slice, or the
 * weight is over max_bytes (it is not folded then, as before), or after
 * reporting (c->err set). */
static struct ir_tensor *slice_by_ref(struct fold_ctx *c, struct ir_node *n,
				      struct fold_eval *e,
				      const struct ir_value *xv)
{
	const struct ir_tensor *x = xv->weight->tensor;
	int64_t first[64], step[64], dims[64], base[64];
	size_t es = ir_dtype_size(x->dtype);
	uint64_t span, delta = 0;
	int r = x->rank;

	if (strcmp(n->kind, "onnx::Slice") || n->noutputs != 1 || r < 1 ||
	    x->ref.scale ||
	    r > 64 || fold_slice_plan(e, x, first, step, dims) ||
	    weight_span(x, &span) != WEIGHT_OK ||
	    (c->o->max_bytes && span > c->o->max_bytes))
		return NULL;
	ref_strides(x, base);
	int64_t *st = ir_alloc(c->g, sizeof(*st) * (size_t)r);
	for (int i = 0; i < r; i++) {
		if (dims[i] <= 0 || step[i] <= 0)
			return NULL;
		/* every element taken is one of x's, so these stay within
		 * the span weight_span checked */
		delta += (uint64_t)(first[i] * base[i]);
		st[i] = dims[i] > 1 ? base[i] * step[i] : base[i];
	}
	struct ir_tensor *t = ir_tensor_new(c->g, x->dtype, r, dims);
	t->data_kind = IR_DATA_REF;
	t->ref = x->ref;
	t->ref.offset += delta * es;
	t->ref.length = x->ref.length > delta * es ?
			x->ref.length - delta * es : 0;
	t->ref.strides = weight_strides_contiguous(r, dims, st) ? NULL : st;
	char what[160];
	snprintf(what, sizeof(what), "weight '%s'", xv->name);
	return read_ref(c, what, t);
}

static int try_fold(struct fold_ctx *c, struct ir_block *b, struct ir_node *n)
{
	unsigned flags = 0;
	int (*fn)(struct fold_eval *) = fold_op_lookup(n->kind, &flags);
	struct fold_eval e;

	if (!fn || !n->noutputs || n->nblocks)
		return 0;
	/* a returned output needs a node: a Constant, as torch leaves it */
	int ret = 0;
	for (uint32_t i = 0; i < n->noutputs; i++)
		if (is_returned(b, n->outputs[i]))
			ret = 1;
	if (ret && n->noutputs != 1)
		return 0;
	for (uint32_t i = 0; ret && i < n->ninputs; i++) {
		struct ir_value *v = n->inputs[i];
		if (v && v->weight && ir_tensor_numel(v->weight->tensor) *
		    ir_dtype_size(v->weight->tensor->dtype) > (1u << 20))
			return 0; /* not read for a Constant it would not make */
	}
	e.g = c->g;
	e.n = n;
	e.opset = c->opset;
	e.max_bytes = c->o->max_bytes;
	e.in = ir_alloc(c->g, sizeof(*e.in) * (n->ninputs + 1));
	e.in_types = ir_alloc(c->g, sizeof(*e.in_types) * (n->ninputs + 1));
	e.out = ir_alloc(c->g, sizeof(*e.out) * n->noutputs);
	/* all constant before any is read: a weight is read only when the
	 * node will be evaluated */
	for (uint32_t i = 0; i < n->ninputs; i++)
		if (n->inputs[i] && !is_const(n->inputs[i]) &&
		    !(i == 0 && (flags & FOLD_OP_SHAPE_ONLY)))
			return 0;
	/* data movement of a weight by reference: a reference */
	struct ir_value *x = n->ninputs ? n->inputs[0] : NULL;
	int view = !ret && x && !x->aux && x->weight &&
		   x->weight->tensor->data_kind == IR_DATA_REF &&
		   ir_dtype_size(x->weight->tensor->dtype);
	for (uint32_t i = 0; i < n->ninputs; i++) {
		struct ir_value *v = n->inputs[i];
		if (!v)
			continue;
		e.in_types[i] = v->type;
		if ((i == 0 && (flags & FOLD_OP_SHAPE_ONLY)) || (i == 0 && view))
			continue;
		if (!(e.in[i] = const_of(c, v)))
			return 0;
	}
	e.out[0] = NULL;
	if (view) {
		int v = try_view(c, b, n, fn, &e, x->weight->tensor);
		if (v)
			return v > 0;
		if (c->err || (!(e.out[0] = slice_by_ref(c, n, &e, x)) &&
			       (c->err || !(e.in[0] = const_of(c, x)))))
			return 0;
	}
	if (!e.out[0] && fn(&e) != FOLD_EVAL_OK)
		return 0;
	for (uint32_t i = 0; i < n->noutputs; i++)
		if (!e.out[i] || !agrees(n->outputs[i]->type, e.out[i]))
			return 0;
	if (ret)
		return to_constant(c, n, e.out[0]);
	for (uint32_t i = 0; i < n->noutputs; i++)
		make_weight(c, b, n->outputs[i], e.out[i]);
	ir_node_unlink(n);
	c->st->folded++;
	return 1;
}

/* Gather(Shape(x), k) where the dims of x that k selects are fixed, even
 * though others are not: torch's shape inference folds `x.size(1)` with a
 * dynamic batch the same way.  The unknown dims never reach the result. */
static int try_shape_gather(struct fold_ctx *c, struct ir_block *b,
			    struct ir_node *n)
{
	struct ir_value *sv = n->ninputs == 2 ? n->inputs[0] : NULL;
	struct ir_node *sh = sv ? sv->producer : NULL;
	const struct ir_type *ty;
	struct ir_tensor *idx, *dims;
	const struct ir_attr *a;

	if (!sh || strcmp(sh->kind, "onnx::Shape") || sh->ninputs != 1 ||
	    !sh->inputs[0] || !is_const(n->inputs[1]) || is_returned(b, n->outputs[0]))
		return 0;
	ty = sh->inputs[0]->type;
	if (ty->kind != IR_TYPE_TENSOR || ty->rank < 0)
		return 0;
	int64_t r = ty->rank, s = 0, en = r;
	if ((a = ir_node_find_attr(sh, "start")) && a->kind == IR_ATTR_INT)
		s = a->u.i;
	if ((a = ir_node_find_attr(sh, "end")) && a->kind == IR_ATTR_INT)
		en = a->u.i;
	s = s < 0 ? s + r : s;
	en = en < 0 ? en + r : en;
	s = s < 0 ? 0 : s > r ? r : s;
	en = en < 0 ? 0 : en > r ? r : en;
	int64_t len = en > s ? en - s : 0;
	if (!(idx = const_of(c, n->inputs[1])) ||
	    (idx->dtype != IR_DTYPE_INT64 && idx->dtype != IR_DTYPE_INT32))
		return 0;
	a = ir_node_find_attr(n, "axis");
	if (a && (a->kind != IR_ATTR_INT || (a->u.i != 0 && a->u.i != -1)))
		return 0;
	uint64_t ni = ir_tensor_numel(idx);
	for (uint64_t i = 0; i < ni; i++) {
		int64_t k = fold_get_i(idx, i);
		k = k < 0 ? k + len : k;
		if (k < 0 || k >= len || ty->dims[s + k].kind != IR_DIM_FIXED)
			return 0;
	}
	/* the shape with placeholders for the dims nobody selects */
	dims = fold_tensor_alloc(c->g, IR_DTYPE_INT64, 1, &len, 0);
	for (int64_t i = 0; i < len; i++)
		fold_set_i(dims, (uint64_t)i, ty->dims[s + i].kind == IR_DIM_FIXED
			   ? ty->dims[s + i].value : -1);
	struct ir_tensor *ins[2] = { dims, idx }, *out[1] = { NULL };
	const struct ir_type *types[2] = { NULL, NULL };
	struct fold_eval e = { c->g, n, c->opset, ins, types, out,
			       c->o->max_bytes };
	if (fold_op_lookup("onnx::Gather", NULL)(&e) != FOLD_EVAL_OK ||
	    !out[0] || !agrees(n->outputs[0]->type, out[0]))
		return 0;
	make_weight(c, b, n->outputs[0], out[0]);
	ir_node_unlink(n);
	c->st->folded++;
	return 1;
}

/* --- If with a constant condition -------------------------------------- */

/* 1 when a block at or under b returns v */
static int returned_anywhere(struct ir_block *b, const struct ir_value *v)
{
	if (is_returned(b, v))
		return 1;
	for (struct ir_node *n = b->first; n; n = n->next) {
		for (uint32_t i = 0; i < n->nblocks; i++)
			if (returned_anywhere(n->blocks[i], v))
				return 1;
		for (uint32_t i = 0; i < n->nattrs; i++) {
			struct ir_attr *a = &n->attrs[i];
			if (a->kind == IR_ATTR_GRAPH && returned_anywhere(a->u.g, v))
				return 1;
			for (uint32_t j = 0; a->kind == IR_ATTR_GRAPHS &&
			     j < a->count; j++)
				if (returned_anywhere(a->u.graphs[j], v))
					return 1;
		}
	}
	return 0;
}

static void replace_uses(struct ir_block *b, const struct ir_value *from,
			 struct ir_value *to)
{
	for (struct ir_node *n = b->first; n; n = n->next) {
		for (uint32_t i = 0; i < n->ninputs; i++)
			if (n->inputs[i] == from)
				n->inputs[i] = to;
		for (uint32_t i = 0; i < n->nblocks; i++)
			replace_uses(n->blocks[i], from, to);
		for (uint32_t i = 0; i < n->nattrs; i++) {
			struct ir_attr *a = &n->attrs[i];
			if (a->kind == IR_ATTR_GRAPH)
				replace_uses(a->u.g, from, to);
			for (uint32_t j = 0; a->kind == IR_ATTR_GRAPHS &&
			     j < a->count; j++)
				replace_uses(a->u.graphs[j], from, to);
		}
	}
}

/* onnx::If whose condition is a constant: the branch taken replaces the
 * node (its nodes and initializers move to the enclosing block; uses of
 * the If's outputs go to the branch's returns, or an Identity keeps the
 * name of an output some block returns), as torch's fold_if_node pass. */
static int try_fold_if(struct fold_ctx *c, struct ir_block *b,
		       struct ir_node *n)
{
	const struct ir_attr *at = ir_node_find_attr(n, "then_branch");
	const struct ir_attr *ae = ir_node_find_attr(n, "else_branch");
	struct ir_tensor *cond;
	struct ir_block *g;

	if (n->ninputs != 1 || !is_const(n->inputs[0]) || !at || !ae ||
	    at->kind != IR_ATTR_GRAPH || ae->kind != IR_ATTR_GRAPH ||
	    n->nblocks)
		return 0;
	if (!(cond = const_of(c, n->inputs[0])) ||
	    ir_tensor_numel(cond) != 1 || cond->dtype != IR_DTYPE_BOOL)
		return 0;
	g = fold_get_i(cond, 0) ? at->u.g : ae->u.g;
	if (g->nparams || g->nreturns != n->noutputs)
		return 0;
	for (struct ir_weight *w = g->weights, *next; w; w = next) {
		next = w->next;
		w->next = NULL;
		make_weight(c, b, w->value, w->tensor);
	}
	g->weights = NULL;
	while (g->first) {
		struct ir_node *m = g->first;
		ir_node_unlink(m);
		ir_block_insert_before(n, m);
	}
	for (uint32_t i = 0; i < n->noutputs; i++) {
		struct ir_value *out = n->outputs[i], *ret = g->returns[i];
		if (returned_anywhere(c->g->top, out)) {
			struct ir_node *id = ir_node_new(c->g, NULL,
							 "onnx::Identity", 1, 1);
			id->inputs[0] = ret;
			id->scope = n->scope;
			ir_block_insert_before(n, id);
			ir_node_set_output(id, 0, out);
		} else {
			replace_uses(c->g->top, out, ret);
		}
	}
	ir_node_unlink(n);
	c->st->folded++;
	return 1;
}

static void fold_block(struct fold_ctx *c, struct ir_block *b)
{
	struct ir_node *n, *next;
	for (n = b->first; n && !c->err; n = next) {
		next = n->next;
		each_sub(c, n, fold_block);
		if (try_fold(c, b, n) || c->err)
			continue;
		if (!strcmp(n->kind, "onnx::Gather"))
			try_shape_gather(c, b, n);
		else if (!strcmp(n->kind, "onnx::If"))
			try_fold_if(c, b, n);
	}
}

/* --- pass 1: Conv + BatchNormalization --------------------------------- */

static int float_const(struct fold_ctx *c, struct ir_value *v,
		       struct ir_tensor **t)
{
	if (!is_const(v) || !(*t = const_of(c, v)))
		return 0;
	return fold_dtype_is_float((*t)->dtype);
}

/* Scratch buffer k of at least n bytes, kept for the next fusion (fresh
 * pages for every weight would cost more than the arithmetic). */
static char *scratch(struct fold_ctx *c, int k, size_t n)
{
	if (c->scap[k] < n) {
		free(c->scratch[k]);
		c->scap[k] = n > 2 * c->scap[k] ? n : 2 * c->scap[k];
		c->scratch[k] = xmalloc(c->scap[k]);
	}
	return c->scratch[k];
}

/* The Conv weight v as inline data: cached or inline as it is, else read
 * into a tensor whose bytes are scratch buffer 0.  NULL when v is not
 * usable (c->err set when reading failed). */
static struct ir_tensor *conv_weight(struct fold_ctx *c, struct ir_value *v)
{
	struct ir_tensor *r, *t;
	char what[160];

	if (v->aux || !v->weight || v->weight->tensor->data_kind != IR_DATA_REF)
		return const_of(c, v);
	r = v->weight->tensor;
	uint64_t n = ir_tensor_numel(r), es = ir_dtype_size(r->dtype);
	if (!es || n > c->o->max_bytes / es)
		return NULL;
	t = ir_tensor_new(c->g, r->dtype, r->rank, r->dims);
	t->data_kind = IR_DATA_INLINE;
	t->bytes.len = (size_t)(n * es);
	t->bytes.data = scratch(c, 0, t->bytes.len ? t->bytes.len : 1);
	snprintf(what, sizeof(what), "weight '%s'", v->name);
	if (read_ref_into(c, what, r, (char *)t->bytes.data))
		return NULL;
	return t;
}

/* nw (w's type) becomes w with row k (along dim 0, per elements each)
 * times scale[k]: computed, into the data file when it goes there.  0, or
 * -1 after reporting (c->err set). */
static int bn_compute(struct fold_ctx *c, const struct ir_tensor *w,
		      struct ir_tensor *nw, const double *scale, uint64_t per)
{
	size_t nbytes = w->bytes.len;
	int to_file = c->o->data_file && nbytes && nbytes >= c->o->data_min;
	char *obuf = to_file ? scratch(c, 1, nbytes) : nbytes ?
		     ir_alloc(c->g, nbytes) : (char *)"";
	uint64_t off;

	nw->data_kind = IR_DATA_INLINE;
	nw->bytes.data = obuf;
	nw->bytes.len = nbytes;
	for (int64_t k = 0; k < w->dims[0]; k++) {
		uint64_t u = (uint64_t)k;
		if (w->dtype == IR_DTYPE_FLOAT) {
			/* the same arithmetic as below (and as emit's for a
			 * scaled view), without the dispatch */
			weight_scale_row((float *)(void *)obuf + u * per,
					 (const float *)(const void *)
					 w->bytes.data + u * per, per,
					 scale[k]);
		} else {
			for (uint64_t j = 0; j < per; j++)
				fold_set_f(nw, u * per + j,
					   fold_get_f(w, u * per + j) *
					   scale[k]);
		}
	}
	if (!to_file)
		return 0;
	if (data_put(c, obuf, nbytes, &off))
		return -1;
	data_ref(c, nw, off, nbytes);
	return 0;
}

static void try_bn(struct fold_ctx *c, struct ir_block *b,
		   struct ir_node *bn)
{
	struct ir_value *x = bn->ninputs == 5 ? bn->inputs[0] : NULL;
	struct ir_node *conv = x ? x->producer : NULL;
	const struct ir_tensor *w;
	struct ir_tensor *cb = NULL, *sc, *be, *mu, *var;
	const struct ir_attr *a;
	if (!conv || strcmp(conv->kind, "onnx::Conv") || conv->owner != b ||
	    x->uses != 1 || is_returned(b, x) || conv->ninputs < 2 ||
	    conv->noutputs != 1)
		return;
	/* more than Y, used or not, is training mode (opsets 9-13: "Output
	 * case #1"; torch --training train writes it): batch statistics */
	if (bn->noutputs > 1)
		return;
	if ((a = ir_node_find_attr(bn, "training_mode")) &&
	    (a->kind != IR_ATTR_INT || a->u.i))
		return;
	if ((a = ir_node_find_attr(bn, "is_test")) &&
	    (a->kind != IR_ATTR_INT || !a->u.i))
		return;
	if ((a = ir_node_find_attr(bn, "spatial")) &&
	    (a->kind != IR_ATTR_INT || !a->u.i))
		return;
	double eps = 1e-5;
	if ((a = ir_node_find_attr(bn, "epsilon"))) {
		if (a->kind != IR_ATTR_FLOAT)
			return;
		eps = (float)a->u.f; /* ONNX stores it as a float */
	}
	for (uint32_t i = 1; i < 5; i++)
		if (!is_const(bn->inputs[i]))
			return;
	if (!is_const(conv->inputs[1]) || (conv->ninputs > 2 &&
	    conv->inputs[2] && !is_const(conv->inputs[2])))
		return;
	if ((conv->ninputs > 2 && conv->inputs[2] &&
	     !float_const(c, conv->inputs[2], &cb)) ||
	    !float_const(c, bn->inputs[1], &sc) ||
	    !float_const(c, bn->inputs[2], &be) ||
	    !float_const(c, bn->inputs[3], &mu) ||
	    !float_const(c, bn->inputs[4], &var))
		return;
	struct ir_value *wv = conv->inputs[1];
	const struct ir_tensor *r = wv->weight ? wv->weight->tensor : NULL;
	/* a Float weight in a file becomes a scaled view of it: emit
	 * multiplies as it writes (nothing read here) */
	int view = !wv->aux && r && r->data_kind == IR_DATA_REF &&
		   !r->ref.scale && r->dtype == IR_DTYPE_FLOAT &&
		   r->rank >= 3 && weight_contiguous(r) &&
		   ir_tensor_numel(r) <= c->o->max_bytes / sizeof(float);
	if (view) {
		w = r;
	} else if (!(w = conv_weight(c, wv)) ||
		   !fold_dtype_is_float(w->dtype) || w->rank < 3) {
		/* else the Conv weight last, into a buffer of our own when
		 * it is a reference (nothing else needs it in memory) */
		return;
	}
	int64_t oc = w->dims[0];
	uint64_t per = oc ? ir_tensor_numel(w) / (uint64_t)oc : 0;
	if ((cb && ir_tensor_numel(cb) != (uint64_t)oc) ||
	    ir_tensor_numel(sc) != (uint64_t)oc ||
	    ir_tensor_numel(be) != (uint64_t)oc ||
	    ir_tensor_numel(mu) != (uint64_t)oc ||
	    ir_tensor_numel(var) != (uint64_t)oc)
		return;
	struct ir_tensor *nw = ir_tensor_new(c->g, w->dtype, w->rank, w->dims);
	struct ir_tensor *nb = fold_tensor_alloc(c->g, w->dtype, 1, &oc, 0);
	double *scale = ir_alloc(c->g, sizeof(double) * ((size_t)oc + 1));
	for (int64_t k = 0; k < oc; k++) {
		uint64_t u = (uint64_t)k;
		double bias = cb ? fold_get_f(cb, u) : 0.0;
		scale[k] = fold_get_f(sc, u) / sqrt(fold_get_f(var, u) + eps);
		fold_set_f(nb, u, (bias - fold_get_f(mu, u)) * scale[k] +
			   fold_get_f(be, u));
	}
	if (view) {
		nw->data_kind = IR_DATA_REF;
		nw->ref = r->ref;
		nw->ref.scale = scale;
	} else if (bn_compute(c, w, nw, scale, per)) {
		return;
	}
	struct ir_value **ins = ir_alloc(c->g, sizeof(*ins) * 3);
	ins[0] = conv->inputs[0];
	ins[1] = new_weight(c, b, "onnx::Conv_", nw);
	ins[2] = new_weight(c, b, "onnx::Conv_", nb);
	ins[1]->uses = ins[2]->uses = 1;
	conv->inputs[1]->uses--;
	if (conv->ninputs > 2 && conv->inputs[2])
		conv->inputs[2]->uses--;
	conv->inputs = ins;
	conv->ninputs = 3;
	for (uint32_t i = 1; i < 5; i++)
		bn->inputs[i]->uses--;
	ir_node_set_output(conv, 0, bn->outputs[0]);
	ir_node_unlink(bn);
	c->st->bn_folded++;
}

static void bn_block(struct fold_ctx *c, struct ir_block *b)
{
	struct ir_node *n, *next;
	for (n = b->first; n && !c->err; n = next) {
		next = n->next;
		each_sub(c, n, bn_block);
		if (!strcmp(n->kind, "onnx::BatchNormalization"))
			try_bn(c, b, n);
	}
}

/* --- pass 3: dead code -------------------------------------------------- */

static void unuse_block(struct fold_ctx *c, struct ir_block *b);

/* Takes back the uses a removed node made (its inputs, its subgraphs). */
static void unuse_node(struct fold_ctx *c, struct ir_node *n)
{
	for (uint32_t i = 0; i < n->ninputs; i++)
		if (n->inputs[i] && n->inputs[i]->uses)
			n->inputs[i]->uses--;
	each_sub(c, n, unuse_block);
}

static void unuse_block(struct fold_ctx *c, struct ir_block *b)
{
	for (struct ir_node *n = b->first; n; n = n->next)
		unuse_node(c, n);
	for (uint32_t i = 0; i < b->nreturns; i++)
		if (b->returns[i]->uses)
			b->returns[i]->uses--;
}

/* Nodes that may be removed when unused: the default ONNX domain has no
 * side effects; other domains are left alone (a custom op may print,
 * write, count). */
static int removable(const struct ir_node *n)
{
	if (!n->noutputs || strncmp(n->kind, "onnx::", 6))
		return 0;
	for (uint32_t i = 0; i < n->noutputs; i++)
		if (n->outputs[i] && n->outputs[i]->uses)
			return 0;
	return 1;
}

static void dce_block(struct fold_ctx *c, struct ir_block *b)
{
	struct ir_node *n, *prev;
	for (n = b->last; n; n = prev) {
		prev = n->prev;
		if (removable(n)) {
			unuse_node(c, n);
			ir_node_unlink(n);
			c->st->dead_nodes++;
		} else {
			each_sub(c, n, dce_block);
		}
	}
}

/* Removes unused weights from a list; returns the new last one. */
static struct ir_weight *drop_unused(struct fold_ctx *c, struct ir_weight **pp)
{
	struct ir_weight *last = NULL;
	while (*pp) {
		if (!(*pp)->value->uses) {
			*pp = (*pp)->next;
			c->st->dead_weights++;
		} else {
			last = *pp;
			pp = &(*pp)->next;
		}
	}
	return last;
}

static void drop_unused_sub(struct fold_ctx *c, struct ir_block *b)
{
	drop_unused(c, &b->weights);
	for (struct ir_node *n = b->first; n; n = n->next)
		each_sub(c, n, drop_unused_sub);
}

static uint32_t count_weights(const struct ir_weight *w)
{
	uint32_t k = 0;
	for (; w; w = w->next)
		k++;
	return k;
}

static void drop_unused_weights(struct fold_ctx *c)
{
	struct ir_graph *g = c->g;
	g->weights_tail = drop_unused(c, &g->weights);
	g->nweights = count_weights(g->weights);
	for (struct ir_node *n = g->top->first; n; n = n->next)
		each_sub(c, n, drop_unused_sub);
}

/* --- pass 4: de-duplication -------------------------------------------- */

static uint64_t fnv(const void *p, size_t n, uint64_t h)
{
	const unsigned char *s = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ s[i]) * 0x100000001b3ull;
	return h;
}

static uint64_t weight_hash(const struct ir_tensor *t)
{
	uint64_t h = fnv(&t->dtype, sizeof(t->dtype), 0xcbf29ce484222325ull);
	h = fnv(&t->rank, sizeof(t->rank), h);
	if (t->rank > 0)
		h = fnv(t->dims, sizeof(*t->dims) * (size_t)t->rank, h);
	h = fnv(&t->data_kind, sizeof(t->data_kind), h);
	if (t->data_kind == IR_DATA_REF) {
		h = fnv(t->ref.file, strlen(t->ref.file), h);
		h = fnv(&t->ref.offset, sizeof(t->ref.offset), h);
		h = fnv(&t->ref.length, sizeof(t->ref.length), h);
		if (t->ref.scale)
			h = fnv(t->ref.scale, sizeof(double) *
				(size_t)t->dims[0], h);
	} else if (t->dtype == IR_DTYPE_STRING) {
		uint64_t n = ir_tensor_numel(t);
		for (uint64_t i = 0; i < n; i++)
			h = fnv(t->strings[i].data, t->strings[i].len,
				fnv(&t->strings[i].len, sizeof(size_t), h));
	} else {
		h = hash_sample(t->bytes.data, t->bytes.len, h);
	}
	return h;
}

static int bytes_eq(struct ir_bytes a, struct ir_bytes b)
{
	return a.len == b.len && (!a.len || !memcmp(a.data, b.data, a.len));
}

static int weight_equal(const struct ir_tensor *a, const struct ir_tensor *b)
{
	if (a->dtype != b->dtype || a->rank != b->rank ||
	    a->data_kind != b->data_kind)
		return 0;
	for (int i = 0; i < a->rank; i++)
		if (a->dims[i] != b->dims[i])
			return 0;
	if (a->data_kind == IR_DATA_REF) {
		if (strcmp(a->ref.file, b->ref.file) ||
		    a->ref.offset != b->ref.offset ||
		    a->ref.length != b->ref.length ||
		    !a->ref.strides != !b->ref.strides)
			return 0;
		for (int i = 0; a->ref.strides && i < a->rank; i++)
			if (a->ref.strides[i] != b->ref.strides[i])
				return 0;
		/* the same factors, bit for bit */
		if (!a->ref.scale != !b->ref.scale || (a->ref.scale &&
		    memcmp(a->ref.scale, b->ref.scale, sizeof(double) *
			   (size_t)a->dims[0])))
			return 0;
		return 1;
	}
	if (a->dtype == IR_DTYPE_STRING) {
		uint64_t n = ir_tensor_numel(a);
		for (uint64_t i = 0; i < n; i++)
			if (!bytes_eq(a->strings[i], b->strings[i]))
				return 0;
		return 1;
	}
	return bytes_eq(a->bytes, b->bytes);
}

struct hent {
	uint64_t h;
	uint32_t index; /* position in the list: the first of equals stays */
	struct ir_weight *w;
};

static int hent_cmp(const void *pa, const void *pb)
{
	const struct hent *a = pa, *b = pb;
	if (a->h != b->h)
		return a->h < b->h ? -1 : 1;
	return a->index < b->index ? -1 : a->index > b->index;
}

/* Marks duplicates in one weight list: dup->value->aux = the value kept
 * (the first equal one in the list).  A weight returned by a block (uses
 * set by mark_returned) is never replaced: that would rename an output. */
static void mark_dups(struct fold_ctx *c, struct ir_weight *list)
{
	uint32_t n = count_weights(list), k = 0;
	if (n < 2)
		return;
	struct hent *hs = xcalloc(n, sizeof(*hs));
	for (struct ir_weight *w = list; w; w = w->next, k++) {
		hs[k].h = weight_hash(w->tensor);
		hs[k].index = k;
		hs[k].w = w;
	}
	qsort(hs, n, sizeof(*hs), hent_cmp);
	for (uint32_t i = 0; i < n; i++) {
		if (hs[i].w->value->aux)
			continue;
		for (uint32_t j = i + 1; j < n && hs[j].h == hs[i].h; j++) {
			struct ir_value *v = hs[j].w->value;
			if (v->aux || v->uses ||
			    !weight_equal(hs[i].w->tensor, hs[j].w->tensor))
				continue;
			v->aux = hs[i].w->value;
			c->st->deduped++;
		}
	}
	free(hs);
}

static void mark_sub(struct fold_ctx *c, struct ir_block *b)
{
	mark_dups(c, b->weights);
	for (struct ir_node *n = b->first; n; n = n->next)
		each_sub(c, n, mark_sub);
}

static void mark_returned(struct fold_ctx *c, struct ir_block *b)
{
	for (uint32_t i = 0; i < b->nreturns; i++)
		b->returns[i]->uses = 1;
	for (struct ir_node *n = b->first; n; n = n->next)
		each_sub(c, n, mark_returned);
}

static struct ir_value *repl(struct ir_value *v)
{
	return v && v->weight && v->aux ? v->aux : v;
}

static void rewrite_block(struct fold_ctx *c, struct ir_block *b)
{
	for (struct ir_node *n = b->first; n; n = n->next) {
		for (uint32_t i = 0; i < n->ninputs; i++)
			n->inputs[i] = repl(n->inputs[i]);
		each_sub(c, n, rewrite_block);
	}
}

/* Removes the weights marked as duplicates from a list; returns the new
 * last one. */
static struct ir_weight *drop_dups(struct ir_weight **pp)
{
	struct ir_weight *last = NULL;
	while (*pp) {
		if ((*pp)->value->aux) {
			*pp = (*pp)->next;
		} else {
			last = *pp;
			pp = &(*pp)->next;
		}
	}
	return last;
}

static void drop_dups_sub(struct fold_ctx *c, struct ir_block *b)
{
	drop_dups(&b->weights);
	for (struct ir_node *n = b->first; n; n = n->next)
		each_sub(c, n, drop_dups_sub);
}

static void dedup(struct fold_ctx *c)
{
	struct ir_graph *g = c->g;
	reset_scratch(c);
	mark_returned(c, g->top);
	mark_dups(c, g->weights);
	for (struct ir_node *n = g->top->first; n; n = n->next)
		each_sub(c, n, mark_sub);
	rewrite_block(c, g->top);
	g->weights_tail = drop_dups(&g->weights);
	g->nweights = count_weights(g->weights);
	for (struct ir_node *n = g->top->first; n; n = n->next)
		each_sub(c, n, drop_dups_sub);
}

/* --- driver ------------------------------------------------------------- */

int fold_graph(struct ir_graph *g, const struct fold_options *o,
	       struct fold_stats *stats, struct diag *d)
{
	struct fold_stats local;
	struct fold_ctx c = { .g = g, .o = o, .st = stats ? stats : &local,
			      .d = d, .dfd = -1 };
	int rc;

	memset(c.st, 0, sizeof(*c.st));
	if (g->level != IR_LEVEL_ONNX) {
		diag_error(d, "fold works on ONNX-level IR; this graph is "
			   "aten-level (run 'lower' first)");
		return EXIT_UNSUPPORTED;
	}
	c.opset = ir_opset_version(g, "");
	if (c.opset > PT2ONNX_OPSET_MAX) {
		diag_error(d, "the graph is for opset %lld; fold knows opsets "
			   "up to %d", (long long)c.opset, PT2ONNX_OPSET_MAX);
		return EXIT_UNSUPPORTED;
	}
	if (o->bn_fold) {
		recount(&c);
		bn_block(&c, g->top);
	}
	if (o->constant_fold && !c.err) {
		if (c.opset >= 0 && c.opset < 9) {
			diag_warning(d, "constant folding needs opset 9 or "
				     "later (the graph imports %lld): not "
				     "applied", (long long)c.opset);
		} else {
			reset_scratch(&c);
			fold_block(&c, g->top);
		}
	}
	/* torch runs its peepholes whether or not it folds constants */
	if (o->peephole && !c.err && (c.opset < 0 || c.opset >= 9)) {
		struct fold_peep_stats ps;
		recount(&c);
		fold_peephole(g, c.opset, &ps);
		/* nodes gone: no-ops, merged, duplicates */
		c.st->dead_nodes += ps.identities + ps.slices + ps.fused +
				    ps.cse;
	}
	if (c.err)
		goto done;
	if (o->dce) {
		recount(&c);
		dce_block(&c, g->top);
		drop_unused_weights(&c);
	}
	if (o->dedup)
		dedup(&c);
	reset_scratch(&c);
	if (ir_verify(g, d))
		c.err = EXIT_INTERNAL;
done:
	rc = c.err;
	c.st->data_bytes = c.dend ? c.dend - FOLD_DATA_HEADER : 0;
	free(c.dents);
	free(c.scratch[0]);
	free(c.scratch[1]);
	if (c.dfd >= 0 && close(c.dfd) != 0 && !rc) {
		diag_error(d, "writing the data file '%s': %s", c.dpath,
			   strerror(errno));
		rc = EXIT_IO;
	}
	if (c.dpath)
		outfile_untrack(c.dpath);
	if (rc && c.dpath)
		unlink(c.dpath); /* nothing will refer to it */
	return rc;
}

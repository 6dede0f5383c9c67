/*
 * plugin.c - `lower` plugins (pt2onnx_plugin.h): loading a .so with
 * dlopen, checking its ABI version, keeping the symbolics it registers,
 * and the narrow builder API (struct pt2onnx_api) through which they read
 * the node being lowered and build ONNX nodes, on top of build.c's
 * builders and lower.c's argument readers.
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "diag.h"
#include "lower_int.h"
#include "pt2onnx_plugin.h"

struct plugin_row {
	char *op;
	int from, to;
	pt2onnx_symbolic_fn fn;
	void *user;
};

struct lower_plugins {
	struct plugin_row *rows;
	size_t nrows;
	void **handles;
	size_t nhandles;
};

/* what a plugin's register call adds to */
struct pt2onnx_registry {
	struct lower_plugins *p;
	int bad;
};

/* the node a plugin symbolic lowers */
struct pt2onnx_ctx {
	struct lower_ctx *c;
	struct ir_node *n;
	struct ir_value **out;
};

#define V(v) ((struct ir_value *)(v))
#define PV(v) ((struct pt2onnx_value *)(v))

/* "ns::name": a non-empty namespace and name of [A-Za-z0-9_.] */
static int op_name_ok(const char *s)
{
	const char *sep = s ? strstr(s, "::") : NULL;
	if (!sep || sep == s || !sep[2])
		return 0;
	for (const char *q = s; *q; q++) {
		if (q == sep || q == sep + 1)
			continue;
		if (!(*q == '_' || *q == '.' || (*q >= '0' && *q <= '9') ||
		      (*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z')))
			return 0;
	}
	return 1;
}

static int api_register(struct pt2onnx_registry *reg, const char *op,
			int from, int to, pt2onnx_symbolic_fn fn, void *user)
{
	if (!reg || !fn || !op_name_ok(op) || from < 0 || to < 0 ||
	    (to && from > to)) {
		if (reg)
			reg->bad = 1;
		return -1;
	}
	struct lower_plugins *p = reg->p;
	p->rows = xrealloc(p->rows, sizeof(*p->rows) * (p->nrows + 1));
	p->rows[p->nrows++] = (struct plugin_row){ xstrdup(op), from, to, fn,
						   user };
	return 0;
}

static const char *api_op(struct pt2onnx_ctx *x)
{
	return x->n->kind;
}

static int api_opset(struct pt2onnx_ctx *x)
{
	return x->c->opset;
}

static int api_num_inputs(struct pt2onnx_ctx *x)
{
	return (int)x->n->ninputs;
}

static int api_num_outputs(struct pt2onnx_ctx *x)
{
	return (int)x->n->noutputs;
}

static struct pt2onnx_value *api_input(struct pt2onnx_ctx *x, int i)
{
	if (i < 0 || (uint32_t)i >= x->n->ninputs)
		return NULL;
	return PV(lw_tensor(x->c, x->n, i));
}

static int api_input_is_none(struct pt2onnx_ctx *x, int i)
{
	return i >= 0 && (uint32_t)i < x->n->ninputs &&
	       lw_is_none(x->c, x->n, i);
}

static int api_input_int(struct pt2onnx_ctx *x, int i, int64_t *v)
{
	return v && lw_int(x->c, x->n, i, v);
}

static int api_input_float(struct pt2onnx_ctx *x, int i, double *v)
{
	return v && lw_float(x->c, x->n, i, v);
}

static int api_input_ints(struct pt2onnx_ctx *x, int i, int64_t *v, int max)
{
	if (!v || max < 0)
		return -1;
	return lw_ints(x->c, x->n, i, v, max, 0);
}

static const char *api_input_string(struct pt2onnx_ctx *x, int i)
{
	return lw_str(x->c, x->n, i);
}

static int api_dtype(const struct pt2onnx_value *v)
{
	return v ? (int)b_dtype(V(v)) : 0;
}

static int api_rank(const struct pt2onnx_value *v)
{
	return v ? b_rank(V(v)) : -1;
}

static int64_t api_dim(const struct pt2onnx_value *v, int d)
{
	return v ? b_dim_size(V(v), d) : -1;
}

static void api_set_type(struct pt2onnx_ctx *x, struct pt2onnx_value *pv,
			 int dtype, int rank, const int64_t *dims)
{
	struct ir_value *v = V(pv);
	if (!v || dtype < 0 || dtype >= IR_DTYPE_COUNT || rank > 64 ||
	    (rank > 0 && !dims))
		return;
	struct ir_type *old = v->type;
	enum ir_dtype dt = dtype ? (enum ir_dtype)dtype :
		(old->kind == IR_TYPE_TENSOR ? old->dtype : IR_DTYPE_UNDEFINED);
	struct ir_type *t;
	if (rank >= 0) {
		t = ir_type_new(x->c->g, IR_TYPE_TENSOR);
		t->dtype = dt;
		t->rank = rank;
		t->dims = ir_alloc(x->c->g, sizeof(*t->dims) *
					    (size_t)(rank ? rank : 1));
		for (int k = 0; k < rank; k++)
			if (dims[k] >= 0) {
				t->dims[k].kind = IR_DIM_FIXED;
				t->dims[k].value = dims[k];
			}
	} else if (old->kind == IR_TYPE_TENSOR) {
		t = ir_type_new(x->c->g, IR_TYPE_TENSOR);
		*t = *old;
		t->dtype = dt;
	} else {
		t = ir_type_new(x->c->g, IR_TYPE_TENSOR);
		t->dtype = dt;
		t->rank = -1;
	}
	v->type = t;
}

static void api_set_type_like(struct pt2onnx_ctx *x, struct pt2onnx_value *v,
			      const struct pt2onnx_value *like)
{
	if (!v || !like || V(like)->type->kind != IR_TYPE_TENSOR)
		return;
	const struct ir_type *l = V(like)->type;
	struct ir_type *t = ir_type_new(x->c->g, IR_TYPE_TENSOR);
	*t = *l;
	if (l->rank > 0) {
		t->dims = ir_alloc(x->c->g, sizeof(*t->dims) * (size_t)l->rank);
		memcpy(t->dims, l->dims, sizeof(*t->dims) * (size_t)l->rank);
	}
	V(v)->type = t;
}

static struct pt2onnx_value *api_const_ints(struct pt2onnx_ctx *x,
					    const int64_t *v, int n)
{
	if (!v || n < 0)
		return NULL;
	return PV(b_const_i64s(x->c, v, n, 1));
}

static struct pt2onnx_value *api_const_scalar(struct pt2onnx_ctx *x,
					      double v, int dtype)
{
	if (dtype <= 0 || dtype >= IR_DTYPE_COUNT)
		return NULL;
	return PV(b_const_scalar(x->c, v, (enum ir_dtype)dtype, 0));
}

/* an op_type or domain: non-empty, [A-Za-z0-9_.], no "::" */
static int name_ok(const char *s, int dots)
{
	if (!s || !*s)
		return 0;
	for (; *s; s++)
		if (!(*s == '_' || (dots && *s == '.') ||
		      (*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'z') ||
		      (*s >= 'A' && *s <= 'Z')))
			return 0;
	return 1;
}

static int api_make_node(struct pt2onnx_ctx *x, const char *domain,
			 const char *op, int nin,
			 struct pt2onnx_value *const *ins,
			 const struct pt2onnx_attr *attrs, int nattrs,
			 int nout, struct pt2onnx_value **outs)
{
	struct lower_ctx *c = x->c;
	if (!name_ok(op, 0) || (domain && *domain && !name_ok(domain, 1)) ||
	    (domain && !strcmp(domain, "ai.onnx")) || nin < 0 || nin > 4096 ||
	    nout < 1 || nout > 4096 || !outs || (nin && !ins) || nattrs < 0 ||
	    (nattrs && !attrs))
		return -1;
	for (int a = 0; a < nattrs; a++)
		if (!name_ok(attrs[a].name, 0) || attrs[a].kind <
		    PT2ONNX_ATTR_INT || attrs[a].kind > PT2ONNX_ATTR_FLOATS ||
		    (attrs[a].kind == PT2ONNX_ATTR_STRING && !attrs[a].s) ||
		    (attrs[a].kind >= PT2ONNX_ATTR_INTS &&
		     (attrs[a].count < 0 || (attrs[a].count &&
		      !(attrs[a].kind == PT2ONNX_ATTR_INTS ? (const void *)
			attrs[a].ints : (const void *)attrs[a].floats)))))
			return -1;
	const char *kind = domain && *domain ?
		ir_strfmt(c->g, "%s::%s", domain, op) : op;
	struct ir_node *n = b_node(c, kind, nin, (struct ir_value *const *)ins,
				   nout);
	for (int a = 0; a < nattrs; a++) {
		const struct pt2onnx_attr *t = &attrs[a];
		switch (t->kind) {
		case PT2ONNX_ATTR_INT:
			b_attr_i(c, n, t->name, t->i);
			break;
		case PT2ONNX_ATTR_FLOAT:
			b_attr_f(c, n, t->name, t->f);
			break;
		case PT2ONNX_ATTR_STRING:
			b_attr_s(c, n, t->name, t->s);
			break;
		case PT2ONNX_ATTR_INTS:
			b_attr_ints(c, n, t->name, t->ints, t->count);
			break;
		case PT2ONNX_ATTR_FLOATS:
			b_attr_floats(c, n, t->name, t->floats, t->count);
			break;
		}
	}
	b_done(c, n);
	for (int i = 0; i < nout; i++)
		outs[i] = PV(n->outputs[i]);
	return 0;
}

static int api_set_output(struct pt2onnx_ctx *x, int i,
			  struct pt2onnx_value *v)
{
	if (i < 0 || (uint32_t)i >= x->n->noutputs || !v)
		return -1;
	x->out[i] = V(v);
	return 0;
}

static int api_decline(struct pt2onnx_ctx *x, const char *why)
{
	return lw_decline(x->c, why ? ir_strfmt(x->c->g, "the plugin "
						"declined: %s", why)
				    : "the plugin declined");
}

static const struct pt2onnx_api plugin_api = {
	.abi = PT2ONNX_PLUGIN_ABI,
	.size = sizeof(struct pt2onnx_api),
	.register_symbolic = api_register,
	.op = api_op,
	.opset = api_opset,
	.num_inputs = api_num_inputs,
	.num_outputs = api_num_outputs,
	.input = api_input,
	.input_is_none = api_input_is_none,
	.input_int = api_input_int,
	.input_float = api_input_float,
	.input_ints = api_input_ints,
	.input_string = api_input_string,
	.dtype = api_dtype,
	.rank = api_rank,
	.dim = api_dim,
	.set_type = api_set_type,
	.set_type_like = api_set_type_like,
	.const_ints = api_const_ints,
	.const_scalar = api_const_scalar,
	.make_node = api_make_node,
	.set_output = api_set_output,
	.decline = api_decline,
};

struct lower_plugins *lower_plugins_new(void)
{
	struct lower_plugins *p = xmalloc(sizeof(*p));
	memset(p, 0, sizeof(*p));
	return p;
}

void lower_plugins_free(struct lower_plugins *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nrows; i++)
		free(p->rows[i].op);
	free(p->rows);
	for (size_t i = 0; i < p->nhandles; i++)
		dlclose(p->handles[i]);
	free(p->handles);
	free(p);
}

int lower_plugin_load(struct lower_plugins *p, const char *file,
		      struct diag *d)
{
	/* a bare name is a file here, not one of the linker's search path */
	size_t len = strlen(file);
	char *path = xmalloc(len + 3);
	memcpy(path, "./", 2);
	memcpy(path + 2, file, len + 1);
	if (strchr(file, '/'))
		memmove(path, path + 2, len + 1);
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	free(path);
	if (!h) {
		const char *e = dlerror();
		return diag_error(d, "plugin '%s': cannot load it: %s", file,
				  e ? e : "dlopen failed");
	}
	/* dlsym gives object pointers; POSIX makes them callable */
	uint32_t (*abi)(void);
	int (*reg)(const struct pt2onnx_api *, struct pt2onnx_registry *);
	*(void **)&abi = dlsym(h, "pt2onnx_plugin_abi");
	*(void **)&reg = dlsym(h, "pt2onnx_plugin_register");
	const char *missing = !abi ? "pt2onnx_plugin_abi" :
			      !reg ? "pt2onnx_plugin_register" : NULL;
	if (missing) {
		dlclose(h);
		return diag_error(d, "plugin '%s': no symbol %s (not a "
				  "pt2onnx plugin: see pt2onnx_plugin.h)",
				  file, missing);
	}
	uint32_t v = abi();
	if (v != PT2ONNX_PLUGIN_ABI) {
		dlclose(h);
		return diag_error(d, "plugin '%s': built for plugin ABI "
				  "version %u, this lower takes version %u "
				  "(rebuild it against this pt2onnx_plugin.h)",
				  file, (unsigned)v,
				  (unsigned)PT2ONNX_PLUGIN_ABI);
	}
	size_t before = p->nrows;
	struct pt2onnx_registry r = { p, 0 };
	int rc = reg(&plugin_api, &r);
	if (rc || r.bad || p->nrows == before) {
		for (size_t i = before; i < p->nrows; i++)
			free(p->rows[i].op);
		p->nrows = before;
		dlclose(h);
		return diag_error(d, "plugin '%s': %s", file,
				  r.bad ? "registered a malformed op name "
					  "(not \"ns::name\") or opset range" :
				  rc ? "pt2onnx_plugin_register failed" :
				  "registered no symbolic");
	}
	p->handles = xrealloc(p->handles,
			      sizeof(*p->handles) * (p->nhandles + 1));
	p->handles[p->nhandles++] = h;
	return 0;
}

/* the row for node kind k at opset, NULL when none: the last registered
 * wins */
static const struct plugin_row *plugin_row(const struct lower_plugins *p,
					   const char *k, int opset)
{
	for (size_t i = p ? p->nrows : 0; i-- > 0;) {
		const struct plugin_row *r = &p->rows[i];
		if ((!r->from || r->from <= opset) &&
		    (!r->to || opset <= r->to) && !strcmp(r->op, k))
			return r;
	}
	return NULL;
}

int lower_plugin_has(const struct lower_plugins *p, const char *kind,
		     int opset)
{
	return plugin_row(p, kind, opset) != NULL;
}

int lower_plugin_symbolic(struct lower_ctx *c, struct ir_node *n,
			  struct ir_value **out)
{
	const struct plugin_row *r = plugin_row(c->o->plugins, n->kind,
						c->opset);
	if (!r)
		return lw_decline(c, "no plugin symbolic");
	struct pt2onnx_ctx x = { c, n, out };
	int rc = r->fn(&plugin_api, &x, r->user);
	if (rc)
		return c->why ? 1 : lw_decline(c, "the plugin's symbolic "
					       "failed");
	for (uint32_t i = 0; i < n->noutputs; i++)
		if (!out[i])
			return lw_decline(c, ir_strfmt(c->g, "the plugin's "
						       "symbolic set no value "
						       "for output %u", i));
	return 0;
}

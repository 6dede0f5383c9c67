/*
 * compile_int.h - private structures of the script compiler, shared by
 * compile.c (driver, modules, weights, values), compile_expr.c (expressions
 * and calls) and compile_stmt.c (statements and control flow).
 *
 * Compile-time values (struct cval) are what a TorchScript name can stand
 * for while compiling: an IR value, a module object of the pickled tree, a
 * tuple known item by item, a function, a dict known entry by entry, or an
 * object of a TorchScript class known field by field.  Everything is
 * allocated in the graph's arena and freed with it.
 */
#ifndef PT2ONNX_COMPILE_INT_H
#define PT2ONNX_COMPILE_INT_H

#include "aten_schema.h"
#include "compile.h"
#include "pickle.h"
#include "ts_ast.h"

enum cval_kind {
	CV_VALUE = 0, /* v */
	CV_MODULE,    /* mod */
	CV_TUPLE,     /* items, n */
	CV_FUNC,      /* qual: a free function's qualified name */
	CV_DICT,      /* a dict known entry by entry: names (keys, "s:text"
			 or "i:123"), items (values), n; mutated in place
			 (dicts are references) only in blk, its block */
	CV_OBJECT,    /* an object of a TorchScript class (`C.__new__(C)`)
			 known field by field: qual (its class), cls, file,
			 names (fields), items, n; fields set in place in any
			 block (see sc_obj_set) */
};

struct modref {
	const struct pickle_value *obj; /* the module object */
	const char *scope;              /* "ResNet/Sequential[layer1]" */
	const char *path;               /* "layer1." ("" for the root) */
	const struct ts_class *cls;     /* its class, NULL until looked up */
	const char *file;               /* the code file defining cls */
};

struct cval {
	enum cval_kind kind;
	struct ir_value *v;
	struct modref *mod;
	struct cval **items;
	int n;
	const char **names;  /* CV_TUPLE of a NamedTuple: field names;
				CV_DICT: keys */
	const char *qual;
	int cap;                /* CV_DICT, CV_OBJECT: room in items and
				   names */
	struct ir_block *blk;   /* CV_DICT: the block that made it */
	const struct ts_class *cls; /* CV_OBJECT: its class */
	const char *file;           /* CV_OBJECT: the code file of cls */
	struct ir_type *ktype, *vtype; /* CV_DICT: declared key and value
					  types, or NULL */
};

/* A field of an object made outside the arm of an if being compiled, set
 * inside it: the value before (old, NULL when unset) and, once the arm is
 * done, the arm's (nv).  if_stmt merges the two arms' as it merges names. */
struct objw {
	struct cval *o;
	const char *name;
	struct cval *old, *nv;
	struct objw *next;
};

/* The nodes of block from moved to block to (an arm merged into its
 * parent, a block attached to its node): a static dict made in from is
 * made into a value in to (sc_live_block). */
struct blk_remap {
	struct ir_block *from, *to;
	struct blk_remap *next;
};

/* A module attribute set by the code (`self._has_warned = True`): later
 * reads see cv instead of the pickled value. */
struct attr_override {
	const struct pickle_value *obj;
	const char *name;
	struct cval *cv;
	struct attr_override *next;
};

struct binding {
	const char *name;
	struct cval *cv;
};

/* Bindings in the order made (b), with a hash index of them (hix: slots
 * holding index + 1, 0 empty; hcap a power of two, 0 while n is small) so
 * that a method of 100k statements binds in linear time. */
struct env {
	struct binding *b;
	int n, cap;
	int *hix;
	int hcap;
};

struct frame {
	struct env *env;
	struct modref *self;       /* the module `self` is, or NULL */
	const char *file;          /* code file of the function */
	const char *scope;         /* scope of the nodes it emits */
	struct ir_block *entry;    /* block the frame started in */
	struct frame *parent;
};

struct srcfile {
	const char *file;
	struct ts_module *mod;
	struct srcfile *next;
};

struct wmap {
	const struct pickle_tensor *t;
	struct ir_value *v;
	struct wmap *next;
};

struct sc {
	struct torch_archive *ar;
	const char *ref_file;   /* ar's path made absolute: weights refer to it */
	struct diag *d;
	const struct onnx_write_options *dyn; /* --dynamic-axes, or NULL */
	struct ir_graph *g;
	struct arena parse;        /* ASTs */
	struct srcfile *files;
	struct wmap *weights;
	struct ir_block *blk;      /* where nodes go */
	struct frame *fr;
	int depth;                 /* inlining depth */
	int rdepth;                /* recursion of expressions and blocks,
				      all inlined levels together */
	int raised;                /* the current block raised */
	int err;                   /* errors reported */
	int code;                  /* exit code of the first error */
	int returned;              /* the function body returned */
	struct cval *retval;
	struct attr_override *overrides;
	struct blk_remap *remaps;  /* blocks whose nodes moved elsewhere */
	int nobjconv;              /* objects made values by a field set in
				      a loop body (a body read them
				      statically: compiled again) */
	struct objw **objlog;      /* the arm being compiled: its field
				      writes; NULL outside arms and in loop
				      bodies */
	uint32_t loop_mark;        /* inside a loop body: g->next_id when the
				      innermost body began (values named
				      below it come from outside), else 0 */
};

/* compile.c */
int sc_error(struct sc *c, struct ts_loc loc, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* A node of registry id op (sc_node) or of any kind named by text (an
 * operator the registry lacks: sc_node_named), appended to the block being
 * compiled, its outputs new values. */
struct ir_node *sc_node(struct sc *c, enum aten_op op, uint32_t nin,
			uint32_t nout, struct ts_loc loc);
struct ir_node *sc_node_named(struct sc *c, const char *kind, uint32_t nin,
			      uint32_t nout, struct ts_loc loc);
struct ir_value *sc_const_int(struct sc *c, int64_t v, struct ts_loc loc);
struct ir_value *sc_const_bool(struct sc *c, int b, struct ts_loc loc);
struct ir_value *sc_const_float(struct sc *c, double f, struct ts_loc loc);
struct ir_value *sc_const_str(struct sc *c, const char *s, size_t len,
			      struct ts_loc loc);
struct ir_value *sc_const_none(struct sc *c, struct ts_loc loc);
struct cval *cv_value(struct sc *c, struct ir_value *v);
struct cval *cv_tuple(struct sc *c, struct cval **items, int n);
/* 1 when p, a method's first parameter, is its module m: named self, or
 * typed as m's class (python_print keeps the name the user wrote: `s`). */
int sc_is_self_param(const struct ts_param *p, const struct modref *m);
/* A prim::ListConstruct of vs[0..n), its items of type elem (NULL: the
 * first's). */
struct ir_value *sc_list_of(struct sc *c, struct ir_value **vs, int n,
			    struct ir_type *elem, struct ts_loc loc);
struct ir_value *sc_to_value(struct sc *c, struct cval *cv, struct ts_loc loc);
struct cval *sc_module_attr(struct sc *c, struct modref *m, const char *name,
			    struct ts_loc loc);
struct cval *sc_pickle_to_cval(struct sc *c, const struct pickle_value *pv,
			       const char *wname, struct ts_loc loc, int depth);
struct ts_module *sc_load_module(struct sc *c, const char *qualname,
				 const char **file, struct ts_loc loc);
const struct ts_class *sc_module_class(struct sc *c, struct modref *m,
				       struct ts_loc loc);
struct ir_type *sc_type_from_ts(struct sc *c, const struct ts_type *t);
struct ir_type *sc_type_from_schema(struct sc *c, const char *s);
const char *sc_short_class(struct sc *c, const char *qual);

struct env *env_new(struct sc *c);
struct env *env_copy(struct sc *c, const struct env *e);
struct cval *env_get(const struct env *e, const char *name);
void env_set(struct sc *c, struct env *e, const char *name, struct cval *cv);
/* Records that the nodes of from now live in to. */
void sc_block_moved(struct sc *c, struct ir_block *from, struct ir_block *to);
/* The block where nodes made for block b go now (b, or where its nodes
 * moved). */
struct ir_block *sc_live_block(struct sc *c, struct ir_block *b);

/* compile_expr.c */
struct cval *sc_expr(struct sc *c, const struct ts_expr *e);
struct ir_value *sc_expr_value(struct sc *c, const struct ts_expr *e);
struct cval *sc_dict_new(struct sc *c);
/* Sets key k (a constant str or int) of dict d to v; -1 after reporting. */
int sc_dict_set(struct sc *c, struct cval *d, struct cval *k, struct cval *v,
		struct ts_loc loc);
/* Sets field name of object o to v (inside an arm, journaled in
 * c->objlog); -1 after reporting. */
int sc_obj_set(struct sc *c, struct cval *o, const char *name, struct cval *v,
	       struct ts_loc loc);
/* Sets attribute name of module m to v for the rest of the compilation. */
void sc_module_set(struct sc *c, struct modref *m, const char *name,
		   struct cval *v);
/* The torch that saved the archive, whose schemas its calls bind against:
 * torch 2.x writes `.data/version` and `byteorder`, 1.x neither. */
enum aten_era sc_era(const struct sc *c);
struct cval *sc_call_op(struct sc *c, const char *qual, struct cval **args,
			int nargs, const char **kwnames, struct cval **kwargs,
			int nkw, struct ts_loc loc);
struct cval *sc_inline(struct sc *c, const struct ts_def *def,
		       const char *file, struct modref *self,
		       const char *scope, struct cval **args, int nargs,
		       const struct ts_kwarg *const *kw, struct cval **kwargs,
		       int nkw, struct ts_loc loc);
const struct ts_def *sc_find_method(const struct ts_class *cls,
				    const char *name);

/* An object as a value (class type): field name read with prim::GetAttr
 * (typed from the class's annotation), set with prim::SetAttr. */
struct cval *sc_obj_getattr(struct sc *c, struct ir_value *obj,
			    const char *name, struct ts_loc loc);
int sc_obj_setattr(struct sc *c, struct ir_value *obj, const char *name,
		   struct cval *v, struct ts_loc loc);
/* The value of field name of object o, NULL when unset. */
struct cval *sc_obj_get(const struct cval *o, const char *name);

/* compile_stmt.c */
int sc_block(struct sc *c, const struct ts_block *b);

#endif

/*
 * ts_ast.h - the syntax tree of TorchScript source as torch's python_print.cpp
 * writes it into an archive's code/ folder (torch 1.x and 2.x).
 *
 * The tree is close to the text, resolved only where the text is unambiguous
 * and a compiler would redo the same work everywhere:
 *   - `-1`, `-1.5`, `-inf` are literals (a minus applied to a literal folds);
 *   - `inf`, `nan` are float literals (python_print reserves those names);
 *   - `annotate(T, e)`, `unchecked_cast(T, e)`, `uninitialized(T)`,
 *     `isinstance(e, T)` are their own nodes, their types parsed as types;
 *   - an attribute chain made only of names (`torch.add`, `ops.prim.dtype`,
 *     `__torch__.foo.Bar`, `CONSTANTS.c0`) carries its dotted spelling, so a
 *     compiler tells an operator, a class, a constant or a submodule from one
 *     strcmp;
 *   - class bodies are sorted into parameters, buffers, typed attributes,
 *     constants (`Final[T] = v`) and methods;
 *   - `a, b, = e` and `a, b = c, d` are one assignment with several targets
 *     (`unpack` set), as torch's own parser reads them.
 * Blocks are arrays of statements, so an SSA builder walks an `if` arm or a
 * loop body as one unit; `while` and `for` keep the loop-carried form that
 * python_print writes (assignments before the loop and at the end of the
 * body).  Every node has a location (1-based line and byte column).  No
 * tree is deeper than a small multiple of TS_MAX_DEPTH (ts_parser.h), so
 * recursive walkers are safe.
 *
 * Ownership: every node, array and string lives in the arena given to
 * ts_parse() and dies with it.  Strings are NUL-terminated copies; string
 * literals may also hold NULs (see `len`).  Nothing points into the source
 * buffer, which the caller may free after parsing.
 */
#ifndef PT2ONNX_TS_AST_H
#define PT2ONNX_TS_AST_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct ts_loc {
	int line; /* 1-based */
	int col;  /* 1-based, in bytes */
};

/* A type expression: `Tensor`, `List[int]`, `Dict[str, Tensor]`,
 * `Tuple[()]`, `Optional[__torch__.a.B]`, `NoneType`, `Final[int]`. */
struct ts_type {
	struct ts_loc loc;
	const char *name;      /* dotted: "Tensor", "__torch__.a.B", "None" */
	struct ts_type **args; /* the bracketed arguments, nargs of them */
	int nargs;
	int bracketed;         /* written with [...]: Tuple[()] has 1, nargs 0 */
};

enum ts_op {
	/* binary arithmetic and bitwise */
	TS_OP_ADD = 0, TS_OP_SUB, TS_OP_MUL, TS_OP_DIV, TS_OP_FLOORDIV,
	TS_OP_MOD, TS_OP_POW, TS_OP_MATMUL, TS_OP_LSHIFT, TS_OP_RSHIFT,
	TS_OP_BITAND, TS_OP_BITOR, TS_OP_BITXOR,
	/* comparisons (left-associative, as torch's parser reads them) */
	TS_OP_EQ, TS_OP_NE, TS_OP_LT, TS_OP_LE, TS_OP_GT, TS_OP_GE,
	TS_OP_IS, TS_OP_IS_NOT, TS_OP_IN, TS_OP_NOT_IN,
	/* short-circuit: the rhs runs only when needed */
	TS_OP_AND, TS_OP_OR,
	/* unary */
	TS_OP_NEG, TS_OP_POS, TS_OP_INVERT, TS_OP_NOT,
	TS_OP_COUNT
};

/* "+", "is not", "not"...; "?" when out of range. */
const char *ts_op_str(enum ts_op op);

enum ts_expr_kind {
	TS_EXPR_NAME = 0,   /* u.name */
	TS_EXPR_INT,        /* u.i */
	TS_EXPR_FLOAT,      /* u.f (inf and nan included) */
	TS_EXPR_IMAG,       /* u.f: the imaginary part of `2j` */
	TS_EXPR_STR,        /* u.str */
	TS_EXPR_BOOL,       /* u.i: 0 or 1 */
	TS_EXPR_NONE,
	TS_EXPR_ELLIPSIS,   /* ... */
	TS_EXPR_ATTR,       /* u.attr: obj.name */
	TS_EXPR_CALL,       /* u.call: fn(args, name=value) */
	TS_EXPR_SUBSCRIPT,  /* u.sub: obj[index]; x[a, b] has a TUPLE index */
	TS_EXPR_SLICE,      /* u.slice: lo:hi:step, only inside a subscript */
	TS_EXPR_TUPLE,      /* u.list */
	TS_EXPR_LIST,       /* u.list */
	TS_EXPR_DICT,       /* u.dict */
	TS_EXPR_UNARY,      /* u.unary: NEG POS INVERT NOT */
	TS_EXPR_BINARY,     /* u.binary: arithmetic, comparison, AND, OR */
	TS_EXPR_IFEXP,      /* u.ifexp: then if cond else orelse */
	TS_EXPR_ANNOTATE,   /* u.cast: annotate(type, value) */
	TS_EXPR_UNCHECKED_CAST, /* u.cast: unchecked_cast(type, value) */
	TS_EXPR_UNINITIALIZED,  /* u.cast: uninitialized(type), value NULL */
	TS_EXPR_ISINSTANCE, /* u.isinst: isinstance(value, T or (T1, T2)) */
	TS_EXPR_COUNT
};

struct ts_expr;

struct ts_kwarg {
	struct ts_loc loc;
	const char *name;
	struct ts_expr *value;
};

struct ts_expr {
	enum ts_expr_kind kind;
	struct ts_loc loc;
	union {
		const char *name;
		int64_t i;
		double f;
		struct {
			const char *s; /* NUL-terminated; may hold NULs */
			size_t len;
		} str;
		struct {
			struct ts_expr *obj;
			const char *name;
			const char *dotted; /* "a.b.c" when obj is a chain of
					       names and attributes, else NULL */
		} attr;
		struct {
			struct ts_expr *fn;
			struct ts_expr **args;
			int nargs;
			struct ts_kwarg **kwargs;
			int nkwargs;
		} call;
		struct {
			struct ts_expr *obj;
			struct ts_expr *index;
		} sub;
		struct {
			struct ts_expr *lo, *hi, *step; /* each may be NULL */
		} slice;
		struct {
			struct ts_expr **items;
			int n;
		} list;
		struct {
			struct ts_expr **keys;
			struct ts_expr **values;
			int n;
		} dict;
		struct {
			enum ts_op op;
			struct ts_expr *operand;
		} unary;
		struct {
			enum ts_op op;
			struct ts_expr *lhs, *rhs;
		} binary;
		struct {
			struct ts_expr *cond, *then, *orelse;
		} ifexp;
		struct {
			struct ts_type *type;
			struct ts_expr *value; /* NULL for UNINITIALIZED */
		} cast;
		struct {
			struct ts_expr *value;
			struct ts_type **types;
			int ntypes;
		} isinst;
	} u;
};

struct ts_block {
	struct ts_stmt **stmts;
	int n; /* >= 1 for a parsed block */
};

enum ts_stmt_kind {
	TS_STMT_EXPR = 0,  /* u.expr */
	TS_STMT_ASSIGN,    /* u.assign */
	TS_STMT_AUGASSIGN, /* u.aug: target op= value */
	TS_STMT_IF,        /* u.if_: elif is an IF alone in the else block */
	TS_STMT_FOR,       /* u.for_ */
	TS_STMT_WHILE,     /* u.while_ */
	TS_STMT_WITH,      /* u.with */
	TS_STMT_RETURN,    /* u.value, NULL for a bare return */
	TS_STMT_RAISE,     /* u.value, NULL for a bare raise */
	TS_STMT_ASSERT,    /* u.assert_ */
	TS_STMT_PASS,
	TS_STMT_BREAK,
	TS_STMT_CONTINUE,
	TS_STMT_DEF,       /* u.def: a nested function (fork closures) */
	TS_STMT_COUNT
};

struct ts_def;

struct ts_stmt {
	enum ts_stmt_kind kind;
	struct ts_loc loc;
	union {
		struct ts_expr *expr;
		struct ts_expr *value;
		struct {
			struct ts_expr **targets; /* NAME, ATTR or SUBSCRIPT */
			int ntargets;
			int unpack;           /* `a, = e`, `a, b = e`: unpack
						 the value into the targets */
			struct ts_type *type; /* `x : T = e`, else NULL */
			struct ts_expr *value; /* NULL for a declaration
						  `x : T` */
		} assign;
		struct {
			struct ts_expr *target;
			enum ts_op op;
			struct ts_expr *value;
		} aug;
		struct {
			struct ts_expr *cond;
			struct ts_block then;
			struct ts_block orelse; /* n == 0 when there is no else */
		} if_;
		struct {
			struct ts_expr **targets;
			int ntargets;
			int unpack;
			struct ts_expr *iter; /* `range(n)` is a CALL of range */
			struct ts_block body;
		} for_;
		struct {
			struct ts_expr *cond;
			struct ts_block body;
		} while_;
		struct {
			struct ts_expr *ctx;
			struct ts_expr *target; /* `as x`, else NULL */
			struct ts_block body;
		} with;
		struct {
			struct ts_expr *cond, *msg; /* msg may be NULL */
		} assert_;
		struct ts_def *def;
	} u;
};

struct ts_param {
	struct ts_loc loc;
	const char *name;
	struct ts_type *type;  /* NULL when not written (`self` of methods) */
	struct ts_expr *def;   /* default value, else NULL */
};

struct ts_def {
	struct ts_loc loc;
	const char *name;
	struct ts_param **params;
	int nparams;
	struct ts_type *ret;        /* `-> T`, else NULL */
	struct ts_block body;
	struct ts_expr **decorators; /* `@torch.jit.unused`... */
	int ndecorators;
};

/* One entry of a class body other than a method or the __parameters__ /
 * __buffers__ / hook lists. */
struct ts_field {
	struct ts_loc loc;
	const char *name;      /* `0` for __annotations__["0"] = T */
	struct ts_type *type;  /* NULL for a bare `A = 1` (Enum members) */
	struct ts_expr *value; /* constants and Enum members, else NULL */
	int is_final;          /* `x : Final[T] = v`: type is T */
};

struct ts_class {
	struct ts_loc loc;
	const char *name;
	const char *base;            /* "Module", "NamedTuple", "Enum",
					"Interface", "ModuleInterface"; NULL */
	const char **parameters;     /* __parameters__ */
	int nparameters;
	const char **buffers;        /* __buffers__ */
	int nbuffers;
	const char **forward_hooks;  /* __forward_hooks__ */
	int nforward_hooks;
	const char **forward_pre_hooks; /* __forward_pre_hooks__ */
	int nforward_pre_hooks;
	struct ts_field **fields;    /* in source order */
	int nfields;
	struct ts_def **methods;     /* in source order */
	int nmethods;
};

struct ts_import {
	struct ts_loc loc;
	const char *module; /* "__torch__.a" of `import __torch__.a` */
	const char *name;   /* `from module import name`, else NULL */
	const char *as;     /* `as x`, else NULL */
};

/* One .py file of an archive's code/ folder. */
struct ts_module {
	const char *file;          /* as given to ts_parse() */
	struct ts_import **imports;
	int nimports;
	struct ts_class **classes;
	int nclasses;
	struct ts_def **defs;      /* free functions */
	int ndefs;
	struct ts_stmt **stmts;    /* other top-level statements, e.g. the
				      `op_version_set = 1` of old archives */
	int nstmts;
};

/* The operator a call's callee names, as python_print writes operators:
 * `torch.add` is "aten::add", `ops.prim.dtype` is "prim::dtype",
 * `torch.autograd.grad` is "aten::grad".  Writes the qualified name into
 * buf (n bytes) and returns buf; NULL (buf untouched) when callee is not
 * such a chain, is NULL, or the name does not fit. */
const char *ts_op_qualname(const struct ts_expr *callee, char *buf, size_t n);

/* Compact S-expression printers, for tests and debugging; the format is
 * documented at the top of ts_print.c.  NULL prints "_". */
void ts_print_type(FILE *f, const struct ts_type *t);
void ts_print_expr(FILE *f, const struct ts_expr *e);
void ts_print_stmt(FILE *f, const struct ts_stmt *s, int indent);
void ts_print_def(FILE *f, const struct ts_def *d, int indent);
void ts_print_module(FILE *f, const struct ts_module *m);

#endif

/*
 * ts_print.c - the compact S-expression form of ts_ast.h's tree, for golden
 * tests and debugging, and ts_op_qualname().  One statement a line, nested
 * blocks indented by two, so that a failing golden test shows the
 * statement that differs.  Costs: linear in the tree; writes to a FILE.
 */
#include "ts_ast.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

const char *ts_op_qualname(const struct ts_expr *callee, char *buf, size_t n)
{
	const char *d, *dot, *last;
	int w;

	if (!callee || callee->kind != TS_EXPR_ATTR || !callee->u.attr.dotted)
		return NULL;
	d = callee->u.attr.dotted;
	if (!strcmp(d, "torch.autograd.grad") ||
	    !strcmp(d, "torch.autograd.backward")) {
		w = snprintf(buf, n, "aten::%s", d + strlen("torch.autograd."));
	} else if (!strncmp(d, "torch.", 6) && !strchr(d + 6, '.')) {
		w = snprintf(buf, n, "aten::%s", d + 6);
	} else if (!strncmp(d, "ops.", 4) && (dot = strchr(d + 4, '.')) &&
		   dot > d + 4 && !strchr(dot + 1, '.')) {
		last = dot + 1;
		w = snprintf(buf, n, "%.*s::%s", (int)(dot - d - 4), d + 4, last);
	} else {
		return NULL;
	}
	return w > 0 && (size_t)w < n ? buf : NULL;
}

/*
 * Types print as written (`Dict[str, List[Tensor]]`).  Expressions:
 *   x  1  -2  1.5  inf  2j  "s"  True  None  ...
 *   (. obj name)             attribute
 *   (call fn a b (kw k v))   call
 *   (sub obj index)  (slice lo hi step)   `_` for a missing part
 *   (tuple ...)  (list ...)  (dict (k v) ...)
 *   (+ a b)  (- a)  (not a)  (is-not a b)  (not-in a b)  (and a b)
 *   (ifexp cond then else)
 *   (annotate T e)  (unchecked_cast T e)  (uninitialized T)
 *   (isinstance e T...)
 * Statements, one a line, nested blocks indented by two:
 *   (expr e)  (= x e)  (= (a b) e) for unpacking  (= x : T e)  (decl x T)
 *   (+= x e)  (return e)  (raise e)  (assert c m)  (pass)  (break)
 *   (if c (then ...) (else ...))  (for (targets) iter ...)  (while c ...)
 *   (with ctx target ...)
 *   (def name ((param T default) ...) RET ...)
 * Classes: (class Name Base (parameters "a") (buffers) (field n T v)
 * (final n T v) (def ...)); modules: (module (import m name as) ...).
 */

const char *ts_op_str(enum ts_op op)
{
	static const char *const names[TS_OP_COUNT] = {
		"+", "-", "*", "/", "//", "%", "**", "@", "<<", ">>", "&",
		"|", "^", "==", "!=", "<", "<=", ">", ">=", "is", "is not",
		"in", "not in", "and", "or", "-", "+", "~", "not",
	};
	if ((unsigned)op >= TS_OP_COUNT)
		return "?";
	return names[op];
}

static void print_sexp_op(FILE *f, enum ts_op op)
{
	const char *s = ts_op_str(op);
	for (; *s; s++)
		fputc(*s == ' ' ? '-' : *s, f);
}

void ts_print_type(FILE *f, const struct ts_type *t)
{
	if (!t) {
		fputs("_", f);
		return;
	}
	fputs(t->name, f);
	if (!t->bracketed)
		return;
	fputc('[', f);
	if (!t->nargs)
		fputs("()", f);
	for (int i = 0; i < t->nargs; i++) {
		if (i)
			fputs(", ", f);
		ts_print_type(f, t->args[i]);
	}
	fputc(']', f);
}

static void print_double(FILE *f, double v)
{
	char buf[64];
	if (isnan(v)) {
		fputs("nan", f);
		return;
	}
	if (isinf(v)) {
		fputs(v < 0 ? "-inf" : "inf", f);
		return;
	}
	snprintf(buf, sizeof(buf), "%.17g", v);
	fputs(buf, f);
	if (!strpbrk(buf, ".e"))
		fputs(".0", f);
}

static void print_str(FILE *f, const char *s, size_t n)
{
	fputc('"', f);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(f, "\\x%02x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void print_list(FILE *f, const char *head, struct ts_expr *const *v,
		       int n)
{
	fprintf(f, "(%s", head);
	for (int i = 0; i < n; i++) {
		fputc(' ', f);
		ts_print_expr(f, v[i]);
	}
	fputc(')', f);
}

void ts_print_expr(FILE *f, const struct ts_expr *e)
{
	if (!e) {
		fputs("_", f);
		return;
	}
	switch (e->kind) {
	case TS_EXPR_NAME:
		fputs(e->u.name, f);
		break;
	case TS_EXPR_INT:
		fprintf(f, "%" PRId64, e->u.i);
		break;
	case TS_EXPR_FLOAT:
		print_double(f, e->u.f);
		break;
	case TS_EXPR_IMAG:
		print_double(f, e->u.f);
		fputc('j', f);
		break;
	case TS_EXPR_STR:
		print_str(f, e->u.str.s, e->u.str.len);
		break;
	case TS_EXPR_BOOL:
		fputs(e->u.i ? "True" : "False", f);
		break;
	case TS_EXPR_NONE:
		fputs("None", f);
		break;
	case TS_EXPR_ELLIPSIS:
		fputs("...", f);
		break;
	case TS_EXPR_ATTR:
		fputs("(. ", f);
		ts_print_expr(f, e->u.attr.obj);
		fprintf(f, " %s)", e->u.attr.name);
		break;
	case TS_EXPR_CALL:
		fputs("(call ", f);
		ts_print_expr(f, e->u.call.fn);
		for (int i = 0; i < e->u.call.nargs; i++) {
			fputc(' ', f);
			ts_print_expr(f, e->u.call.args[i]);
		}
		for (int i = 0; i < e->u.call.nkwargs; i++) {
			fprintf(f, " (kw %s ", e->u.call.kwargs[i]->name);
			ts_print_expr(f, e->u.call.kwargs[i]->value);
			fputc(')', f);
		}
		fputc(')', f);
		break;
	case TS_EXPR_SUBSCRIPT:
		fputs("(sub ", f);
		ts_print_expr(f, e->u.sub.obj);
		fputc(' ', f);
		ts_print_expr(f, e->u.sub.index);
		fputc(')', f);
		break;
	case TS_EXPR_SLICE:
		fputs("(slice ", f);
		ts_print_expr(f, e->u.slice.lo);
		fputc(' ', f);
		ts_print_expr(f, e->u.slice.hi);
		fputc(' ', f);
		ts_print_expr(f, e->u.slice.step);
		fputc(')', f);
		break;
	case TS_EXPR_TUPLE:
		print_list(f, "tuple", e->u.list.items, e->u.list.n);
		break;
	case TS_EXPR_LIST:
		print_list(f, "list", e->u.list.items, e->u.list.n);
		break;
	case TS_EXPR_DICT:
		fputs("(dict", f);
		for (int i = 0; i < e->u.dict.n; i++) {
			fputs(" (", f);
			ts_print_expr(f, e->u.dict.keys[i]);
			fputc(' ', f);
			ts_print_expr(f, e->u.dict.values[i]);
			fputc(')', f);
		}
		fputc(')', f);
		break;
	case TS_EXPR_UNARY:
		fputc('(', f);
		print_sexp_op(f, e->u.unary.op);
		fputc(' ', f);
		ts_print_expr(f, e->u.unary.operand);
		fputc(')', f);
		break;
	case TS_EXPR_BINARY:
		fputc('(', f);
		print_sexp_op(f, e->u.binary.op);
		fputc(' ', f);
		ts_print_expr(f, e->u.binary.lhs);
		fputc(' ', f);
		ts_print_expr(f, e->u.binary.rhs);
		fputc(')', f);
		break;
	case TS_EXPR_IFEXP:
		fputs("(ifexp ", f);
		ts_print_expr(f, e->u.ifexp.cond);
		fputc(' ', f);
		ts_print_expr(f, e->u.ifexp.then);
		fputc(' ', f);
		ts_print_expr(f, e->u.ifexp.orelse);
		fputc(')', f);
		break;
	case TS_EXPR_ANNOTATE:
	case TS_EXPR_UNCHECKED_CAST:
		fputs(e->kind == TS_EXPR_ANNOTATE ? "(annotate " :
		      "(unchecked_cast ", f);
		ts_print_type(f, e->u.cast.type);
		fputc(' ', f);
		ts_print_expr(f, e->u.cast.value);
		fputc(')', f);
		break;
	case TS_EXPR_UNINITIALIZED:
		fputs("(uninitialized ", f);
		ts_print_type(f, e->u.cast.type);
		fputc(')', f);
		break;
	case TS_EXPR_ISINSTANCE:
		fputs("(isinstance ", f);
		ts_print_expr(f, e->u.isinst.value);
		for (int i = 0; i < e->u.isinst.ntypes; i++) {
			fputc(' ', f);
			ts_print_type(f, e->u.isinst.types[i]);
		}
		fputc(')', f);
		break;
	default:
		fputs("(?)", f);
		break;
	}
}

static void newline_indent(FILE *f, int indent)
{
	fputc('\n', f);
	for (int i = 0; i < indent; i++)
		fputc(' ', f);
}

static void print_block(FILE *f, const struct ts_block *b, int indent)
{
	for (int i = 0; i < b->n; i++) {
		newline_indent(f, indent);
		ts_print_stmt(f, b->stmts[i], indent);
	}
}

static void print_targets(FILE *f, struct ts_expr *const *t, int n,
			  int unpack)
{
	if (!unpack && n == 1) {
		ts_print_expr(f, t[0]);
		return;
	}
	fputc('(', f);
	for (int i = 0; i < n; i++) {
		if (i)
			fputc(' ', f);
		ts_print_expr(f, t[i]);
	}
	fputc(')', f);
}

void ts_print_stmt(FILE *f, const struct ts_stmt *s, int indent)
{
	switch (s->kind) {
	case TS_STMT_EXPR:
		fputs("(expr ", f);
		ts_print_expr(f, s->u.expr);
		fputc(')', f);
		break;
	case TS_STMT_ASSIGN:
		if (!s->u.assign.value) {
			fputs("(decl ", f);
			print_targets(f, s->u.assign.targets,
				      s->u.assign.ntargets, s->u.assign.unpack);
			fputc(' ', f);
			ts_print_type(f, s->u.assign.type);
			fputc(')', f);
			break;
		}
		fputs("(= ", f);
		print_targets(f, s->u.assign.targets, s->u.assign.ntargets,
			      s->u.assign.unpack);
		if (s->u.assign.type) {
			fputs(" : ", f);
			ts_print_type(f, s->u.assign.type);
		}
		fputc(' ', f);
		ts_print_expr(f, s->u.assign.value);
		fputc(')', f);
		break;
	case TS_STMT_AUGASSIGN:
		fputc('(', f);
		print_sexp_op(f, s->u.aug.op);
		fputs("= ", f);
		ts_print_expr(f, s->u.aug.target);
		fputc(' ', f);
		ts_print_expr(f, s->u.aug.value);
		fputc(')', f);
		break;
	case TS_STMT_IF:
		fputs("(if ", f);
		ts_print_expr(f, s->u.if_.cond);
		newline_indent(f, indent + 2);
		fputs("(then", f);
		print_block(f, &s->u.if_.then, indent + 4);
		fputc(')', f);
		if (s->u.if_.orelse.n) {
			newline_indent(f, indent + 2);
			fputs("(else", f);
			print_block(f, &s->u.if_.orelse, indent + 4);
			fputc(')', f);
		}
		fputc(')', f);
		break;
	case TS_STMT_FOR:
		fputs("(for ", f);
		print_targets(f, s->u.for_.targets, s->u.for_.ntargets, 1);
		fputc(' ', f);
		ts_print_expr(f, s->u.for_.iter);
		print_block(f, &s->u.for_.body, indent + 2);
		fputc(')', f);
		break;
	case TS_STMT_WHILE:
		fputs("(while ", f);
		ts_print_expr(f, s->u.while_.cond);
		print_block(f, &s->u.while_.body, indent + 2);
		fputc(')', f);
		break;
	case TS_STMT_WITH:
		fputs("(with ", f);
		ts_print_expr(f, s->u.with.ctx);
		fputc(' ', f);
		ts_print_expr(f, s->u.with.target);
		print_block(f, &s->u.with.body, indent + 2);
		fputc(')', f);
		break;
	case TS_STMT_RETURN:
	case TS_STMT_RAISE:
		fputs(s->kind == TS_STMT_RETURN ? "(return" : "(raise", f);
		if (s->u.value) {
			fputc(' ', f);
			ts_print_expr(f, s->u.value);
		}
		fputc(')', f);
		break;
	case TS_STMT_ASSERT:
		fputs("(assert ", f);
		ts_print_expr(f, s->u.assert_.cond);
		fputc(' ', f);
		ts_print_expr(f, s->u.assert_.msg);
		fputc(')', f);
		break;
	case TS_STMT_PASS:
		fputs("(pass)", f);
		break;
	case TS_STMT_BREAK:
		fputs("(break)", f);
		break;
	case TS_STMT_CONTINUE:
		fputs("(continue)", f);
		break;
	case TS_STMT_DEF:
		ts_print_def(f, s->u.def, indent);
		break;
	default:
		fputs("(?)", f);
		break;
	}
}

void ts_print_def(FILE *f, const struct ts_def *d, int indent)
{
	fprintf(f, "(def %s", d->name);
	for (int i = 0; i < d->ndecorators; i++) {
		fputs(" (@ ", f);
		ts_print_expr(f, d->decorators[i]);
		fputc(')', f);
	}
	fputs(" (", f);
	for (int i = 0; i < d->nparams; i++) {
		const struct ts_param *a = d->params[i];
		fprintf(f, "%s(%s ", i ? " " : "", a->name);
		ts_print_type(f, a->type);
		fputc(' ', f);
		ts_print_expr(f, a->def);
		fputc(')', f);
	}
	fputs(") ", f);
	ts_print_type(f, d->ret);
	print_block(f, &d->body, indent + 2);
	fputc(')', f);
}

static void print_names(FILE *f, const char *head, const char *const *v,
			int n)
{
	fprintf(f, "(%s", head);
	for (int i = 0; i < n; i++) {
		fputc(' ', f);
		print_str(f, v[i], strlen(v[i]));
	}
	fputc(')', f);
}

static void print_class(FILE *f, const struct ts_class *c)
{
	fprintf(f, "(class %s %s", c->name, c->base ? c->base : "_");
	newline_indent(f, 4);
	print_names(f, "parameters", c->parameters, c->nparameters);
	newline_indent(f, 4);
	print_names(f, "buffers", c->buffers, c->nbuffers);
	if (c->nforward_hooks) {
		newline_indent(f, 4);
		print_names(f, "forward_hooks", c->forward_hooks,
			    c->nforward_hooks);
	}
	if (c->nforward_pre_hooks) {
		newline_indent(f, 4);
		print_names(f, "forward_pre_hooks", c->forward_pre_hooks,
			    c->nforward_pre_hooks);
	}
	for (int i = 0; i < c->nfields; i++) {
		const struct ts_field *fl = c->fields[i];
		newline_indent(f, 4);
		fprintf(f, "(%s %s ", fl->is_final ? "final" : "field",
			fl->name);
		ts_print_type(f, fl->type);
		fputc(' ', f);
		ts_print_expr(f, fl->value);
		fputc(')', f);
	}
	for (int i = 0; i < c->nmethods; i++) {
		newline_indent(f, 4);
		ts_print_def(f, c->methods[i], 4);
	}
	fputc(')', f);
}

void ts_print_module(FILE *f, const struct ts_module *m)
{
	fputs("(module", f);
	for (int i = 0; i < m->nimports; i++) {
		const struct ts_import *im = m->imports[i];
		newline_indent(f, 2);
		fprintf(f, "(import %s %s %s)", im->module,
			im->name ? im->name : "_", im->as ? im->as : "_");
	}
	for (int i = 0; i < m->nstmts; i++) {
		newline_indent(f, 2);
		ts_print_stmt(f, m->stmts[i], 2);
	}
	for (int i = 0; i < m->nclasses; i++) {
		newline_indent(f, 2);
		print_class(f, m->classes[i]);
	}
	for (int i = 0; i < m->ndefs; i++) {
		newline_indent(f, 2);
		ts_print_def(f, m->defs[i], 2);
	}
	fputs(")\n", f);
}

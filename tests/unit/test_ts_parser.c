/*
 * test_ts_parser.c - the TorchScript lexer and parser (lib/script/ts_*).
 *
 * Golden tests print the tree in ts_print.c's S-expression form and compare
 * it with the text here; error tests compare the one-line message, location
 * included.  Robustness: a sample cut at every byte and mutated at every
 * byte must parse or fail with exactly one error, never crash (run it under
 * `make asan` too); pathological nesting must fail cleanly.
 *
 * Real archives: with PT2ONNX_SOURCES_DIR set (tests/200-script-parse.bats
 * sets it to what tests/script/make_sources.py extracted), every .py file
 * below it must parse without error.  Unset, that test says "skipped".
 */
#include "unit.h"

#include <ftw.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ts_lexer.h"
#include "ts_parser.h"

/* --- helpers ---------------------------------------------------------------- */

struct memout {
	char *buf;
	size_t len;
	FILE *f;
};

static void mo_open(struct memout *m)
{
	m->buf = NULL;
	m->len = 0;
	m->f = open_memstream(&m->buf, &m->len);
}

static char *mo_close(struct memout *m)
{
	fclose(m->f);
	return m->buf;
}

enum what { WHAT_MODULE, WHAT_EXPR, WHAT_TYPE };

/* Parses src; returns the printed tree (or "") and the diagnostics in
 * *err.  Both strings are malloc'ed. */
static char *parse_print(enum what w, const char *src, size_t len,
			 char **err, int *nerrors)
{
	struct arena a = ARENA_INIT;
	struct diag d;
	struct memout out, dg;

	diag_init(&d, "test");
	mo_open(&dg);
	d.out = dg.f;
	mo_open(&out);
	if (w == WHAT_MODULE) {
		struct ts_module *m = ts_parse(&a, &d, "t.py", src, len);
		if (m)
			ts_print_module(out.f, m);
	} else if (w == WHAT_EXPR) {
		struct ts_expr *e = ts_parse_expr(&a, &d, "t.py", src, len);
		if (e)
			ts_print_expr(out.f, e);
	} else {
		struct ts_type *t = ts_parse_type(&a, &d, "t.py", src, len);
		if (t)
			ts_print_type(out.f, t);
	}
	arena_release(&a);
	*err = mo_close(&dg);
	if (nerrors)
		*nerrors = d.nerrors;
	return mo_close(&out);
}

static void check_golden(const char *file, int line, enum what w,
			 const char *src, const char *want)
{
	char *err, *got = parse_print(w, src, strlen(src), &err, NULL);
	if (strcmp(got, want) || *err)
		unit_fail(file, line, "source\n%s\n  want\n%s\n  got\n%s\n  errors\n%s",
			  src, want, got, err);
	free(got);
	free(err);
}

#define GOLDEN(w, src, want) check_golden(__FILE__, __LINE__, w, src, want)

static void check_error(const char *file, int line, enum what w,
			const char *src, const char *want)
{
	int n;
	char *err, *got = parse_print(w, src, strlen(src), &err, &n);
	if (strcmp(err, want) || *got || n != 1)
		unit_fail(file, line, "source\n%s\n  want error\n%s  got (%d)\n%s"
			  "  and tree\n%s", src, want, n, err, got);
	free(got);
	free(err);
}

#define ERROR(src, want) check_error(__FILE__, __LINE__, WHAT_MODULE, src, want)

/* Tokens of src, one word each: text for names, numbers and punctuation,
 * s:DECODED for strings, > < $ for INDENT DEDENT NEWLINE, ! for an error. */
static char *tokens(const char *src)
{
	struct arena a = ARENA_INIT;
	struct diag d;
	struct ts_lexer lx;
	struct ts_token t;
	struct memout out;

	diag_init(&d, "test");
	d.quiet = 1;
	mo_open(&out);
	ts_lexer_init(&lx, "t.py", src, strlen(src), &a, &d);
	for (int i = 0; i < 1000; i++) {
		ts_lexer_next(&lx, &t);
		if (i)
			fputc(' ', out.f);
		switch (t.kind) {
		case TS_TOK_INDENT: fputc('>', out.f); break;
		case TS_TOK_DEDENT: fputc('<', out.f); break;
		case TS_TOK_NEWLINE: fputc('$', out.f); break;
		case TS_TOK_ERROR: fputc('!', out.f); break;
		case TS_TOK_EOF: fputs("EOF", out.f); break;
		case TS_TOK_STRING:
			fprintf(out.f, "s:%.*s", (int)t.str_len, t.str);
			break;
		default:
			fprintf(out.f, "%.*s", (int)t.len, t.text);
			break;
		}
		if (t.kind == TS_TOK_EOF || t.kind == TS_TOK_ERROR)
			break;
	}
	arena_release(&a);
	return mo_close(&out);
}

#define TOKENS(src, want) do { \
		char *got_ = tokens(src); \
		CHECK_STR(got_, want); \
		free(got_); \
	} while (0)

/* --- the lexer -------------------------------------------------------------- */

static void test_lexer_layout(void)
{
	TOKENS("def f(x):\n  if x:\n    y = [1,\n  2]  # c\n\n  return y\\\n + 1.\n",
	       "def f ( x ) : $ > if x : $ > y = [ 1 , 2 ] $ < return y + 1. "
	       "$ < EOF");
	/* no newline at the end; blank and comment lines; tabs */
	TOKENS("if a:\n\n   # only a comment\n\tb\nc", "if a : $ > b $ < c $ EOF");
	/* several dedents at once, and at the end of the file */
	TOKENS("a:\n b:\n  c\nd\n e\n", "a : $ > b : $ > c $ < < d $ > e $ < EOF");
	/* \r\n line ends, a byte order mark */
	TOKENS("\xef\xbb\xbf" "a = 1\r\nb\r\n", "a = 1 $ b $ EOF");
	TOKENS("", "EOF");
	TOKENS("\n\n  \n", "EOF");
	/* longest-match punctuation */
	TOKENS("a->b**=c//d...e<<=f!=g", "a -> b **= c // d ... e <<= f != g $ EOF");
	/* a bad dedent */
	TOKENS("a:\n    b\n  c\n", "a : $ > b $ !");
	TOKENS("a = 'x\n", "a = !");
	TOKENS("a ? b", "a !");
	TOKENS("a \\ b", "a !");
}

static void test_lexer_literals(void)
{
	struct { const char *src; int kind; double f; uint64_t i; } cases[] = {
		{ "1.", TS_TOK_FLOAT, 1.0, 0 },
		{ "1e-05", TS_TOK_FLOAT, 1e-05, 0 },
		{ "1.0000000000000001e-05", TS_TOK_FLOAT, 1e-05, 0 },
		{ ".5", TS_TOK_FLOAT, 0.5, 0 },
		{ "1.5E+3", TS_TOK_FLOAT, 1500.0, 0 },
		{ "0.", TS_TOK_FLOAT, 0.0, 0 },
		{ "2j", TS_TOK_IMAG, 2.0, 0 },
		{ "inf", TS_TOK_FLOAT, INFINITY, 0 },
		{ "42", TS_TOK_INT, 0, 42 },
		{ "0x1f", TS_TOK_INT, 0, 31 },
		{ "0o17", TS_TOK_INT, 0, 15 },
		{ "0b101", TS_TOK_INT, 0, 5 },
		{ "18446744073709551615", TS_TOK_INT, 0, UINT64_MAX },
	};
	struct arena a = ARENA_INIT;
	struct diag d;
	struct ts_lexer lx;
	struct ts_token t;

	diag_init(&d, "test");
	d.quiet = 1;
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		ts_lexer_init(&lx, "t.py", cases[k].src, strlen(cases[k].src),
			      &a, &d);
		ts_lexer_next(&lx, &t);
		CHECK_INT(t.kind, cases[k].kind);
		if (t.kind == TS_TOK_INT) {
			CHECK(t.ival == cases[k].i);
			CHECK_INT(t.ival_overflow, 0);
		} else {
			CHECK(t.fval == cases[k].f);
		}
		CHECK_INT(t.len, strlen(cases[k].src));
	}
	ts_lexer_init(&lx, "t.py", "nan -inf 18446744073709551616", 29, &a, &d);
	ts_lexer_next(&lx, &t);
	CHECK(t.kind == TS_TOK_FLOAT && isnan(t.fval));
	ts_lexer_next(&lx, &t);
	CHECK_INT(t.kind, TS_TOK_MINUS);
	ts_lexer_next(&lx, &t);
	CHECK(t.kind == TS_TOK_FLOAT && isinf(t.fval));
	ts_lexer_next(&lx, &t);
	CHECK(t.kind == TS_TOK_INT && t.ival_overflow);

	/* strings: escapes are decoded, adjacent quotes and NULs kept */
	TOKENS("'a\\tb\\\\\\\"\\'\\x41\\101\\n'", "s:a\tb\\\"'AA\n $ EOF");
	TOKENS("\"it's\" 'say \"hi\"'", "s:it's s:say \"hi\" $ EOF");
	TOKENS("'''a\nb''' \"\"\"c\"\"\"", "s:a\nb s:c $ EOF");
	TOKENS("'a\\\nb'", "s:ab $ EOF");
	TOKENS("'\\q'", "!");
	TOKENS("'\\x4'", "!");
	TOKENS("'\\777'", "!");
	TOKENS("'''abc", "!");
	TOKENS("1abc", "!");
	TOKENS("1e+", "!");
	TOKENS("0x", "!");
	ts_lexer_init(&lx, "t.py", "'a\\000b'", 8, &a, &d);
	ts_lexer_next(&lx, &t);
	CHECK_INT(t.str_len, 3);
	CHECK(!memcmp(t.str, "a\0b", 4));
	CHECK_STR(ts_tok_name(TS_TOK_ARROW), "->");
	CHECK_STR(ts_tok_name(TS_TOK_COUNT), "?");
	arena_release(&a);
}

/* --- expressions and types --------------------------------------------------- */

static void test_expressions(void)
{
	static const struct { const char *src, *want; } cases[] = {
		/* precedence and associativity, as Python */
		{ "a + b * c ** -d", "(+ a (* b (** c (- d))))" },
		{ "a - b - c", "(- (- a b) c)" },
		{ "a ** b ** c", "(** a (** b c))" },
		{ "-2 ** 2", "(- (** 2 2))" },
		{ "not a == b and c or d", "(or (and (not (== a b)) c) d)" },
		{ "a | b ^ c & d << e + f", "(| a (^ b (& c (<< d (+ e f)))))" },
		{ "a // b % c @ d / e", "(/ (@ (% (// a b) c) d) e)" },
		{ "~a + +b", "(+ (~ a) (+ b))" },
		{ "a < b < c", "(< (< a b) c)" },
		{ "a is not None", "(is-not a None)" },
		{ "a is b", "(is a b)" },
		{ "a not in b", "(not-in a b)" },
		{ "a in b", "(in a b)" },
		{ "x if c else y if d else z", "(ifexp c x (ifexp d y z))" },
		{ "a, b", "(tuple a b)" },
		{ "a,", "(tuple a)" },
		/* literals; a minus folds into a literal */
		{ "-1", "-1" },
		{ "-9223372036854775808", "-9223372036854775808" },
		{ "9223372036854775807", "9223372036854775807" },
		{ "- -1", "1" },
		{ "1.", "1.0" },
		{ "1e-05", "1.0000000000000001e-05" },
		{ "-inf", "-inf" },
		{ "nan", "nan" },
		{ "-2j", "-2.0j" },
		{ "-x", "(- x)" },
		{ "\"a\" 'b'", "\"ab\"" },
		{ "True, False, None, ...", "(tuple True False None ...)" },
		/* trailers */
		{ "self.conv1", "(. self conv1)" },
		{ "(self.conv1).forward(x, )", "(call (. (. self conv1) forward) x)" },
		{ "torch.add(x, y, alpha=2)", "(call (. torch add) x y (kw alpha 2))" },
		{ "ops.prim.RaiseException(\"m\", \"builtins.ValueError\")",
		  "(call (. (. ops prim) RaiseException) \"m\" \"builtins.ValueError\")" },
		{ "f()", "(call f)" },
		{ "f()()", "(call (call f))" },
		{ "x[0]", "(sub x 0)" },
		{ "(hx1)[0]", "(sub hx1 0)" },
		{ "x[1:2]", "(sub x (slice 1 2 _))" },
		{ "x[:, 0]", "(sub x (tuple (slice _ _ _) 0))" },
		{ "x[::2]", "(sub x (slice _ _ 2))" },
		{ "x[..., :1]", "(sub x (tuple ... (slice _ 1 _)))" },
		{ "x[a,]", "(sub x (tuple a))" },
		{ "CONSTANTS.c0", "(. CONSTANTS c0)" },
		/* displays */
		{ "()", "(tuple)" },
		{ "(a,)", "(tuple a)" },
		{ "(a)", "a" },
		{ "(a, b, )", "(tuple a b)" },
		{ "[]", "(list)" },
		{ "[a, b, ]", "(list a b)" },
		{ "{}", "(dict)" },
		{ "{\"a\": 1, \"b\": x, }", "(dict (\"a\" 1) (\"b\" x))" },
		/* TorchScript's forms */
		{ "annotate(List[int], [])", "(annotate List[int] (list))" },
		{ "annotate(Dict[str, Tensor], {})", "(annotate Dict[str, Tensor] (dict))" },
		{ "unchecked_cast(Optional[Tensor], x)",
		  "(unchecked_cast Optional[Tensor] x)" },
		{ "uninitialized(Tensor)", "(uninitialized Tensor)" },
		{ "isinstance(x, Tensor)", "(isinstance x Tensor)" },
		{ "isinstance(x, (int, List[float]))", "(isinstance x int List[float])" },
		{ "torch.__is__(x, None)", "(call (. torch __is__) x None)" },
		{ "__torch__.a.B.__new__(__torch__.a.B)",
		  "(call (. (. (. __torch__ a) B) __new__) (. (. __torch__ a) B))" },
		{ "getattr(self, \"0\")", "(call getattr self \"0\")" },
		{ "fork(__forked_function)", "(call fork __forked_function)" },
		/* line joining inside brackets */
		{ "f(a,\n  b,\n)", "(call f a b)" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_golden(__FILE__, __LINE__, WHAT_EXPR, cases[i].src,
			     cases[i].want);
	/* found by the fuzzer: a tree must not come back with an error */
	check_error(__FILE__, __LINE__, WHAT_EXPR, "x = 1\n",
		    "test: t.py:1:3: expected end of expression but found '='\n");
}

static void test_types(void)
{
	static const char *const same[] = {
		"Tensor", "List[int]", "Optional[Tensor]", "Tuple[int, int]",
		"Dict[str, Tensor]", "NoneType", "Tuple[()]", "None",
		"__torch__.torch.nn.modules.conv.___torch_mangle_0.Conv2d",
		"Optional[Tuple[Tensor, Tensor]]", "List[List[str]]",
		"Final[Tuple[str, str]]", "Union[int, float, NoneType]",
		"Dict[str, List[Optional[__torch__.a.B]]]",
	};
	for (size_t i = 0; i < sizeof(same) / sizeof(same[0]); i++)
		check_golden(__FILE__, __LINE__, WHAT_TYPE, same[i], same[i]);
	GOLDEN(WHAT_TYPE, "List[ int , ]", "List[int]");
	check_error(__FILE__, __LINE__, WHAT_TYPE, "List[",
		    "test: t.py:1:6: expected a type but found end of line\n");
	check_error(__FILE__, __LINE__, WHAT_TYPE, "3",
		    "test: t.py:1:1: expected a type but found '3'\n");
}

/* The dotted spelling of attribute chains, and locations. */
static void test_dotted_and_locations(void)
{
	struct arena a = ARENA_INIT;
	struct diag d;
	const char *src = "x = torch.add(a,\n      b)\n"
			  "y = (f(x)).forward(x)\n"
			  "if x:\n  z = -1\n";
	struct ts_module *m;
	struct ts_expr *call, *fn;

	diag_init(&d, "test");
	m = ts_parse(&a, &d, "t.py", src, strlen(src));
	CHECK(m != NULL);
	if (!m) {
		arena_release(&a);
		return;
	}
	CHECK_INT(m->nstmts, 3);
	call = m->stmts[0]->u.assign.value;
	CHECK_INT(call->kind, TS_EXPR_CALL);
	CHECK_INT(call->loc.line, 1);
	CHECK_INT(call->loc.col, 5);
	fn = call->u.call.fn;
	CHECK_STR(fn->u.attr.dotted, "torch.add");
	CHECK_INT(fn->loc.col, 5); /* where its text starts, as Python's ast */
	CHECK_INT(call->u.call.args[1]->loc.line, 2);
	CHECK_INT(call->u.call.args[1]->loc.col, 7);
	fn = m->stmts[1]->u.assign.value->u.call.fn;
	CHECK_STR(fn->u.attr.name, "forward");
	CHECK(fn->u.attr.dotted == NULL);
	CHECK_INT(m->stmts[2]->loc.line, 4);
	CHECK_INT(m->stmts[2]->u.if_.then.stmts[0]->loc.col, 3);
	CHECK_INT(m->stmts[2]->u.if_.then.stmts[0]->u.assign.value->loc.col, 7);
	CHECK_INT(m->stmts[2]->u.if_.then.stmts[0]->u.assign.value->u.i, -1);
	arena_release(&a);
}

/* How a compiler names the operator of a call. */
static void test_op_qualname(void)
{
	static const struct { const char *src, *want; } cases[] = {
		{ "torch.add", "aten::add" },
		{ "ops.prim.RaiseException", "prim::RaiseException" },
		{ "ops.quantized.conv2d", "quantized::conv2d" },
		{ "torch.autograd.grad", "aten::grad" },
		{ "torch.autograd.backward", "aten::backward" },
		{ "torch.nn.functional", NULL },
		{ "ops.prim", NULL },
		{ "ops.x", NULL },
		{ "ops.a.b.c", NULL },
		{ "torch", NULL },
		{ "__torch__.helper", NULL },
		{ "(f()).add", NULL },
		{ "torch.add(x)", NULL },
	};
	struct arena a = ARENA_INIT;
	struct diag d;
	char buf[64], tiny[6];

	diag_init(&d, "test");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ts_expr *e = ts_parse_expr(&a, &d, "t.py", cases[i].src,
						  strlen(cases[i].src));
		const char *got = e ? ts_op_qualname(e, buf, sizeof(buf)) : "?";
		if (cases[i].want)
			CHECK_STR(got, cases[i].want);
		else if (got)
			unit_fail(__FILE__, __LINE__, "%s: want NULL, got %s",
				  cases[i].src, got);
		if (!strcmp(cases[i].src, "torch.add"))
			CHECK(ts_op_qualname(e, tiny, sizeof(tiny)) == NULL);
	}
	CHECK(ts_op_qualname(NULL, buf, sizeof(buf)) == NULL);
	arena_release(&a);
}

/* --- whole files --------------------------------------------------------------- */

/* What python_print writes, and the rest of the grammar. */
static const char sample[] =
	"op_version_set = 1\n"
	"import __torch__.torch.nn.modules.conv\n"
	"from typing import List, Tuple as T\n"
	"class Net(Module):\n"
	"  __parameters__ = [\"weight\", \"bias\", ]\n"
	"  __buffers__ = [\"running\", ]\n"
	"  __forward_hooks__ = [\"hook\", ]\n"
	"  weight : Tensor\n"
	"  training : bool\n"
	"  __annotations__ = []\n"
	"  __annotations__[\"0\"] = __torch__.torch.nn.modules.conv.___torch_mangle_0.Conv2d\n"
	"  depth : Final[int] = 3\n"
	"  eps : Final[float] = 1.0000000000000001e-05\n"
	"  names : Final[Tuple[str, str]] = (\"a\", \"b\")\n"
	"  def forward(self: __torch__.Net,\n"
	"    x: Tensor,\n"
	"    n: int=2,\n"
	"    mask: Optional[Tensor]=None) -> Tuple[Tensor, List[int]]:\n"
	"    _0 = getattr(self, \"0\")\n"
	"    y = (_0).forward(x, )\n"
	"    if torch.__is__(mask, None):\n"
	"      mask0 = torch.ones_like(x)\n"
	"    else:\n"
	"      mask0 = unchecked_cast(Tensor, mask)\n"
	"    sizes = annotate(List[int], [])\n"
	"    _1 = 0\n"
	"    _2 = torch.gt(n, 0)\n"
	"    while _2:\n"
	"      _3 = torch.append(sizes, _1)\n"
	"      _4 = torch.add(_1, 1)\n"
	"      _2, _1 = torch.lt(_4, n), _4\n"
	"    for _5 in range(torch.len(sizes)):\n"
	"      a, b, = (sizes[_5], -1)\n"
	"    with _0:\n"
	"      z = torch.slice(torch.slice(y), 1, 0, 2)\n"
	"    z1 = z[:, 0:2:1]\n"
	"    ops.prim.RaiseException(\"bad\\n\\\"q\\\"\", \"builtins.RuntimeError\")\n"
	"    return (torch.mul(y, CONSTANTS.c0), sizes)\n"
	"class Color(Enum):\n"
	"  RED = 1\n"
	"  NAME = \"x\"\n"
	"class P(NamedTuple):\n"
	"  x : Tensor\n"
	"  y : int\n"
	"class I(ModuleInterface):\n"
	"  def forward(self, x: Tensor) -> Tensor:\n"
	"    pass\n"
	"@torch.jit.unused\n"
	"def helper(x: Tensor, k: int=-3) -> Tensor:\n"
	"  def __forked_function():\n"
	"    return x\n"
	"  fut = fork(__forked_function)\n"
	"  c = isinstance(x, (int, List[Tensor]))\n"
	"  u = uninitialized(Tensor)\n"
	"  k += 1\n"
	"  if not c and k >= 2 or k is not None:\n"
	"    pass\n"
	"  elif k in [1, 2]:\n"
	"    assert k != 3, \"msg\"\n"
	"  else:\n"
	"    raise ValueError(\"x\")\n"
	"  while True:\n"
	"    break\n"
	"  for i, j in d.items():\n"
	"    continue\n"
	"  with a as b, c: pass\n"
	"  s : List[int] = [1, 2]; t = 1\n"
	"  self.x = s\n"
	"  return x if c else -inf\n";

static const char sample_tree[] =
	"(module\n"
	"  (import __torch__.torch.nn.modules.conv _ _)\n"
	"  (import typing List _)\n"
	"  (import typing Tuple T)\n"
	"  (= op_version_set 1)\n"
	"  (class Net Module\n"
	"    (parameters \"weight\" \"bias\")\n"
	"    (buffers \"running\")\n"
	"    (forward_hooks \"hook\")\n"
	"    (field weight Tensor _)\n"
	"    (field training bool _)\n"
	"    (field 0 __torch__.torch.nn.modules.conv.___torch_mangle_0.Conv2d _)\n"
	"    (final depth int 3)\n"
	"    (final eps float 1.0000000000000001e-05)\n"
	"    (final names Tuple[str, str] (tuple \"a\" \"b\"))\n"
	"    (def forward ((self __torch__.Net _) (x Tensor _) (n int 2) "
	"(mask Optional[Tensor] None)) Tuple[Tensor, List[int]]\n"
	"      (= _0 (call getattr self \"0\"))\n"
	"      (= y (call (. _0 forward) x))\n"
	"      (if (call (. torch __is__) mask None)\n"
	"        (then\n"
	"          (= mask0 (call (. torch ones_like) x)))\n"
	"        (else\n"
	"          (= mask0 (unchecked_cast Tensor mask))))\n"
	"      (= sizes (annotate List[int] (list)))\n"
	"      (= _1 0)\n"
	"      (= _2 (call (. torch gt) n 0))\n"
	"      (while _2\n"
	"        (= _3 (call (. torch append) sizes _1))\n"
	"        (= _4 (call (. torch add) _1 1))\n"
	"        (= (_2 _1) (tuple (call (. torch lt) _4 n) _4)))\n"
	"      (for (_5) (call range (call (. torch len) sizes))\n"
	"        (= (a b) (tuple (sub sizes _5) -1)))\n"
	"      (with _0 _\n"
	"        (= z (call (. torch slice) (call (. torch slice) y) 1 0 2)))\n"
	"      (= z1 (sub z (tuple (slice _ _ _) (slice 0 2 1))))\n"
	"      (expr (call (. (. ops prim) RaiseException) \"bad\\n\\\"q\\\"\" "
	"\"builtins.RuntimeError\"))\n"
	"      (return (tuple (call (. torch mul) y (. CONSTANTS c0)) sizes))))\n"
	"  (class Color Enum\n"
	"    (parameters)\n"
	"    (buffers)\n"
	"    (field RED _ 1)\n"
	"    (field NAME _ \"x\"))\n"
	"  (class P NamedTuple\n"
	"    (parameters)\n"
	"    (buffers)\n"
	"    (field x Tensor _)\n"
	"    (field y int _))\n"
	"  (class I ModuleInterface\n"
	"    (parameters)\n"
	"    (buffers)\n"
	"    (def forward ((self _ _) (x Tensor _)) Tensor\n"
	"      (pass)))\n"
	"  (def helper (@ (. (. torch jit) unused)) ((x Tensor _) (k int -3)) Tensor\n"
	"    (def __forked_function () _\n"
	"      (return x))\n"
	"    (= fut (call fork __forked_function))\n"
	"    (= c (isinstance x int List[Tensor]))\n"
	"    (= u (uninitialized Tensor))\n"
	"    (+= k 1)\n"
	"    (if (or (and (not c) (>= k 2)) (is-not k None))\n"
	"      (then\n"
	"        (pass))\n"
	"      (else\n"
	"        (if (in k (list 1 2))\n"
	"          (then\n"
	"            (assert (!= k 3) \"msg\"))\n"
	"          (else\n"
	"            (raise (call ValueError \"x\"))))))\n"
	"    (while True\n"
	"      (break))\n"
	"    (for (i j) (call (. d items))\n"
	"      (continue))\n"
	"    (with a b\n"
	"      (with c _\n"
	"        (pass)))\n"
	"    (= s : List[int] (list 1 2))\n"
	"    (= t 1)\n"
	"    (= (. self x) s)\n"
	"    (return (ifexp c x -inf))))\n";

static void test_module(void)
{
	GOLDEN(WHAT_MODULE, sample, sample_tree);
	GOLDEN(WHAT_MODULE, "", "(module)\n");
	GOLDEN(WHAT_MODULE, "\n# nothing\n", "(module)\n");
	GOLDEN(WHAT_MODULE, "class A: pass\n",
	       "(module\n  (class A _\n    (parameters)\n    (buffers)))\n");
	GOLDEN(WHAT_MODULE, "def f(): return\n",
	       "(module\n  (def f () _\n    (return)))\n");
	GOLDEN(WHAT_MODULE, "if a: b = 1\nelse: pass",
	       "(module\n  (if a\n    (then\n      (= b 1))\n    (else\n"
	       "      (pass))))\n");
	GOLDEN(WHAT_MODULE, "x: int\n", "(module\n  (decl x int))\n");
	GOLDEN(WHAT_MODULE, "a, = b\n", "(module\n  (= (a) b))\n");
	GOLDEN(WHAT_MODULE, "x[0] = 1\n", "(module\n  (= (sub x 0) 1))\n");
	GOLDEN(WHAT_MODULE, "from . import a\nfrom x import (b, c as d, )\n",
	       "(module\n  (import . a _)\n  (import x b _)\n  (import x c d))\n");
}

/* --- errors -------------------------------------------------------------------- */

static void test_errors(void)
{
	ERROR("x = 'abc\n", "test: t.py:1:5: unterminated string literal\n");
	ERROR("x = \"\"\"abc\n\n", "test: t.py:1:5: unterminated string literal\n");
	ERROR("if a:\n    b\n  c\n", "test: t.py:3:3: unindent does not match "
	      "any outer indentation level\n");
	ERROR("a = 1\n  b = 2\n", "test: t.py:2:3: unexpected indent\n");
	ERROR("  a = 1\n", "test: t.py:1:3: unexpected indent\n");
	ERROR("if a\n  b\n", "test: t.py:1:5: expected ':' but found end of line\n");
	ERROR("if a:\nb\n", "test: t.py:2:1: expected indent but found 'b'\n");
	ERROR("x = (1, 2\n", "test: t.py:2:1: expected ')' but found end of line\n");
	ERROR("x = f(a b)\n", "test: t.py:1:9: expected ')' but found 'b'\n");
	ERROR("x = )\n", "test: t.py:1:5: expected an expression but found ')'\n");
	ERROR("x = 1 +\n", "test: t.py:1:8: expected an expression but found "
	      "end of line\n");
	ERROR("def f(x: ) -> T:\n  pass\n",
	      "test: t.py:1:10: expected a type but found ')'\n");
	ERROR("def f(x, x):\n  pass\n",
	      "test: t.py:1:10: duplicate parameter 'x'\n");
	ERROR("f(a=1, b)\n",
	      "test: t.py:1:8: positional argument follows keyword argument\n");
	ERROR("f(a=1, a=2)\n", "test: t.py:1:8: keyword argument 'a' repeated\n");
	ERROR("f(*a)\n", "test: t.py:1:3: starred arguments are not supported\n");
	ERROR("x = 9223372036854775808\n",
	      "test: t.py:1:5: integer literal out of range\n");
	ERROR("x = 99999999999999999999\n",
	      "test: t.py:1:5: integer literal out of range\n");
	ERROR("x = --9223372036854775808\n",
	      "test: t.py:1:6: integer literal out of range\n");
	ERROR("x = 9223372036854775808 ** 2\n",
	      "test: t.py:1:5: integer literal out of range\n");
	ERROR("x = '\\q'\n", "test: t.py:1:5: invalid escape '\\q' in string literal\n");
	ERROR("x = lambda: 1\n", "test: t.py:1:5: lambdas are not supported\n");
	ERROR("x = [a for a in b]\n",
	      "test: t.py:1:8: comprehensions are not supported\n");
	ERROR("x = {a}\n", "test: t.py:1:7: sets are not supported\n");
	ERROR("a = b = c\n",
	      "test: t.py:1:7: chained assignment is not supported\n");
	ERROR("f() = 1\n", "test: t.py:1:1: cannot assign to this expression\n");
	ERROR("a, b += 1\n",
	      "test: t.py:1:6: augmented assignment to more than one target\n");
	ERROR("else:\n  pass\n", "test: t.py:1:1: 'else' without 'if'\n");
	ERROR("try:\n  pass\n", "test: t.py:1:1: 'try' is not supported\n");
	ERROR("def f():\n  class A: pass\n",
	      "test: t.py:2:3: a class definition is not allowed here\n");
	ERROR("class A:\n  x + 1\n", "test: t.py:2:5: expected '=' but found '+'\n");
	ERROR("class A:\n  __parameters__ = [1]\n",
	      "test: t.py:2:21: expected a list of strings\n");
	ERROR("class A(B, C):\n  pass\n",
	      "test: t.py:1:10: more than one base class is not supported\n");
	ERROR("@deco\nx = 1\n",
	      "test: t.py:2:1: expected 'def' after decorators but found 'x'\n");
	ERROR("x = a.1\n", "test: t.py:1:6: expected end of line but found "
	      "'.1'\n");
	ERROR("x = a.if\n", "test: t.py:1:7: expected an attribute name but "
	      "found 'if'\n");
	ERROR("x = y[]\n", "test: t.py:1:7: expected an index but found ']'\n");
	ERROR("x = $\n", "test: t.py:1:5: unexpected character '$'\n");
	ERROR("x = \x01\n", "test: t.py:1:5: unexpected byte 0x01\n");
	ERROR("x = 'a' \\ 'b'\n",
	      "test: t.py:1:9: unexpected character after line continuation\n");
	ERROR("def f(:\n", "test: t.py:1:7: expected a parameter name but "
	      "found ':'\n");
	ERROR("x = 1 if y\n", "test: t.py:1:11: expected 'else' but found "
	      "end of line\n");
}

/* --- robustness ------------------------------------------------------------------ */

/* Parses src[0..len): must succeed quietly or fail with exactly one error. */
static int parse_once(const char *src, size_t len)
{
	struct arena a = ARENA_INIT;
	struct diag d;
	struct ts_module *m;
	int ok;

	diag_init(&d, "test");
	d.quiet = 1;
	m = ts_parse(&a, &d, "t.py", src, len);
	ok = m ? d.nerrors == 0 : d.nerrors == 1;
	arena_release(&a);
	return ok;
}

static void test_truncation(void)
{
	size_t len = strlen(sample);
	int bad = 0, parsed = 0;

	for (size_t i = 0; i <= len; i++) {
		/* a copy of exactly i bytes, so ASan sees any overread */
		char *cut = malloc(i ? i : 1);
		memcpy(cut, sample, i);
		if (!parse_once(cut, i)) {
			unit_fail(__FILE__, __LINE__, "cut at %zu", i);
			if (++bad > 5)
				break;
		}
		free(cut);
	}
	(void)parsed;
}

static void test_mutation(void)
{
	static const char subst[] = "([]:,.=\n \t\"\\#-\x80";
	size_t len = strlen(sample);
	char *copy = malloc(len);
	int bad = 0;

	for (size_t i = 0; i < len && bad < 5; i++) {
		for (size_t k = 0; k < sizeof(subst); k++) { /* NUL included */
			memcpy(copy, sample, len);
			copy[i] = subst[k];
			if (!parse_once(copy, len)) {
				unit_fail(__FILE__, __LINE__, "byte %zu -> 0x%02x",
					  i, (unsigned char)subst[k]);
				bad++;
			}
		}
		/* and with the byte deleted */
		memcpy(copy, sample, i);
		memcpy(copy + i, sample + i + 1, len - i - 1);
		if (!parse_once(copy, len - 1)) {
			unit_fail(__FILE__, __LINE__, "byte %zu deleted", i);
			bad++;
		}
	}
	free(copy);
}

static char *repeat(const char *head, const char *unit, size_t n,
		    const char *tail)
{
	size_t hl = strlen(head), ul = strlen(unit), tl = strlen(tail);
	char *s = malloc(hl + ul * n + tl + 1), *o = s;
	memcpy(o, head, hl);
	o += hl;
	for (size_t i = 0; i < n; i++, o += ul)
		memcpy(o, unit, ul);
	memcpy(o, tail, tl + 1);
	return s;
}

static void expect_clean_failure(const char *file, int line, char *src,
				 const char *msg)
{
	int n;
	char *err, *got = parse_print(WHAT_MODULE, src, strlen(src), &err, &n);
	if (n != 1 || !strstr(err, msg))
		unit_fail(file, line, "want one error with '%s', got %d: %s",
			  msg, n, err);
	free(got);
	free(err);
	free(src);
}

#define DEEP(src, msg) expect_clean_failure(__FILE__, __LINE__, src, msg)

static void test_deep_nesting(void)
{
	DEEP(repeat("x = ", "(", 100000, "1"), "nested too deeply");
	DEEP(repeat("x = ", "[", 100000, ""), "nested too deeply");
	DEEP(repeat("x = ", "-", 100000, "y"), "nested too deeply");
	DEEP(repeat("x = ", "not ", 100000, "y"), "nested too deeply");
	DEEP(repeat("x = a", " + a", 100000, "\n"), "nested too deeply");
	DEEP(repeat("x = a", " and a", 100000, "\n"), "nested too deeply");
	DEEP(repeat("x = a", " < a", 100000, "\n"), "nested too deeply");
	DEEP(repeat("x = a", " ** a", 100000, "\n"), "nested too deeply");
	DEEP(repeat("x = a", ".b", 100000, "\n"), "nested too deeply");
	DEEP(repeat("x = a", "()", 100000, "\n"), "nested too deeply");
	DEEP(repeat("x = a", "[0]", 100000, "\n"), "nested too deeply");
	DEEP(repeat("x = ", "a if b else ", 100000, "c\n"), "nested too deeply");
	DEEP(repeat("x : ", "List[", 100000, "int"), "nested too deeply");
	DEEP(repeat("if a:\n", " ", 0, ""), "expected indent");
	{
		/* 150 nested blocks: the parser's nesting limit */
		size_t n = 150, o = 0;
		char *s = malloc(n * (n + 8) + 16);
		for (size_t i = 0; i < n; i++) {
			memset(s + o, ' ', i);
			o += i;
			memcpy(s + o, "if a:\n", 6);
			o += 6;
		}
		memset(s + o, ' ', n);
		o += n;
		memcpy(s + o, "pass\n", 6);
		DEEP(s, "nested too deeply");
	}
	{
		/* the lexer's own limit of 100 indentation levels */
		size_t n = 150, o = 0;
		char *s = malloc(n * (n + 4) + 16), *t;
		for (size_t i = 0; i < n; i++) {
			memset(s + o, ' ', i);
			o += i;
			memcpy(s + o, "a\n", 2);
			o += 2;
		}
		s[o] = 0;
		t = tokens(s);
		CHECK(strlen(t) > 2 && !strcmp(t + strlen(t) - 2, " !"));
		free(t);
		free(s);
	}
	{
		/* long but flat inputs parse: many statements, a long list */
		char *s = repeat("x = [", "1, ", 100000, "]\n");
		CHECK(parse_once(s, strlen(s)));
		free(s);
		s = repeat("", "x = 1\n", 100000, "");
		CHECK(parse_once(s, strlen(s)));
		free(s);
		s = repeat("x = ", "'a' ", 100000, "\n");
		CHECK(parse_once(s, strlen(s)));
		free(s);
	}
}

/* --- real archives ---------------------------------------------------------------- */

static int nfiles, nlines, nfailed;

static int visit(const char *path, const struct stat *st, int type,
		 struct FTW *ftw)
{
	size_t pl = strlen(path);
	FILE *f;
	char *buf;
	long n;
	struct arena a = ARENA_INIT;
	struct diag d;

	(void)st;
	(void)ftw;
	if (type != FTW_F || pl < 3 || strcmp(path + pl - 3, ".py"))
		return 0;
	f = fopen(path, "rb");
	if (!f) {
		unit_fail(__FILE__, __LINE__, "cannot open %s", path);
		return 0;
	}
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc(n > 0 ? (size_t)n : 1);
	if (n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n)
		n = 0;
	fclose(f);
	diag_init(&d, "test");
	if (!ts_parse(&a, &d, path, buf, (size_t)n) || d.nerrors) {
		unit_fail(__FILE__, __LINE__, "%s does not parse", path);
		nfailed++;
	}
	for (long i = 0; i < n; i++)
		nlines += buf[i] == '\n';
	nfiles++;
	arena_release(&a);
	free(buf);
	return 0;
}

static void test_real_sources(void)
{
	const char *dir = getenv("PT2ONNX_SOURCES_DIR");

	if (!dir || !*dir) {
		unit_skip("PT2ONNX_SOURCES_DIR is not set "
			  "(tests/200-script-parse.bats sets it)");
		return;
	}
	nfiles = nlines = nfailed = 0;
	if (nftw(dir, visit, 16, FTW_PHYS))
		unit_fail(__FILE__, __LINE__, "cannot walk %s", dir);
	printf("  %d files, %d lines, %d failed to parse\n", nfiles, nlines,
	       nfailed);
	CHECK(nfiles > 0);
	CHECK_INT(nfailed, 0);
}

const struct unit_test unit_tests[] = {
	UNIT(test_lexer_layout),
	UNIT(test_lexer_literals),
	UNIT(test_expressions),
	UNIT(test_types),
	UNIT(test_dotted_and_locations),
	UNIT(test_op_qualname),
	UNIT(test_module),
	UNIT(test_errors),
	UNIT(test_truncation),
	UNIT(test_mutation),
	UNIT(test_deep_nesting),
	UNIT(test_real_sources),
	{ 0 },
};

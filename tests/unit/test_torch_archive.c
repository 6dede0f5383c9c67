/*
 * test_torch_archive.c - unit tests of lib/archive/torch_archive.c.
 *
 * Hand-made archives (tests/archive/zipbuild.h + picklebuild.h) check the
 * API and each error; test_archive_real opens the archives that
 * tests/archive/make_archives.py wrote with torch into the directory named
 * by PT2ONNX_ARCHIVE_DIR, and compares every tensor that torch reports
 * (expected.json) with what the library finds by walking the module tree:
 * dtype, shape, strides, storage offset, requires_grad, quantizer, and the
 * sum of the values read at the computed file offsets, which proves the
 * offsets.  Without PT2ONNX_ARCHIVE_DIR that test is skipped (run it
 * through tests/100-archive.bats).
 */
#include "unit.h"

#include <ctype.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../archive/picklebuild.h"
#include "../archive/zipbuild.h"
#include "torch_archive.h"

/* --- helpers ------------------------------------------------------------- */

struct capture {
	struct diag d;
	char *text;
	size_t len;
};

static void cap_init(struct capture *c)
{
	diag_init(&c->d, "test");
	c->text = NULL;
	c->len = 0;
	c->d.out = open_memstream(&c->text, &c->len);
}

static int cap_has(struct capture *c, const char *s)
{
	fflush(c->d.out);
	const char *t = c->text ? c->text : "";
	if (!strstr(t, s)) {
		fprintf(stderr, "  expected '%s' in: %s\n", s, t);
		return 0;
	}
	return 1;
}

static void cap_free(struct capture *c)
{
	fclose(c->d.out);
	free(c->text);
}

static char tmp_path[64];

static const char *write_temp(const void *buf, size_t len)
{
	snprintf(tmp_path, sizeof tmp_path, "/tmp/pt2onnx-archive-XXXXXX");
	int fd = mkstemp(tmp_path);
	if (fd < 0 || write(fd, buf, len) != (ssize_t)len)
		abort();
	close(fd);
	return tmp_path;
}

/* --- a hand-made archive ------------------------------------------------- */

static const float w_data[6] = { 1, 2, 3, 4, 5, 6 };
static const double c_data[2] = { 0.25, -8 };
static const char code_top[] =
	"class M(Module):\n  __parameters__ = [\"w\", ]\n  w : Tensor\n"
	"  def forward(self: __torch__.M, x: Tensor) -> Tensor:\n"
	"    return torch.add(x, CONSTANTS.c0)\n";
static const char code_sub[] = "class Cls(Module):\n  pass\n";

enum variant {
	V_GOOD = 0,
	V_NO_VERSION,
	V_BAD_VERSION,
	V_BIG_VERSION,
	V_DATA_VERSION,
	V_BIG_ENDIAN,
	V_NO_DATA_PKL,
	V_DATA_NOT_OBJECT,
	V_CONSTANTS_NOT_TUPLE,
	V_NO_CONSTANTS,
	V_DEFLATED_STORAGE,
	V_SHORT_STORAGE,
	V_MISSING_STORAGE,
	V_OUTSIDE,
	V_NO_FOLDER,
	V_EVIL_GLOBAL,
	V_COUNT
};

/* data.pkl: M(w = tensor [2, 3] of storage '0'); constants.pkl: (tensor,) */
static void build_archive(struct zb *z, enum variant v)
{
	static const int64_t s23[] = { 2, 3 }, st31[] = { 3, 1 }, s2[] = { 2 },
			     st1[] = { 1 };
	struct pb *p = malloc(sizeof *p);
	p->len = 0;
	op(p, 0x80);
	op(p, 2);
	if (v == V_DATA_NOT_OBJECT) {
		pint(p, 7);
	} else {
		global(p, "__torch__", "M");
		op(p, ')');
		op(p, 0x81);
		op(p, '}');
		op(p, '(');
		str(p, "w");
		tensor_v2(p, "FloatStorage", "0", 6, 0, s23, st31, 2, 1);
		str(p, "training");
		op(p, 0x89);
		if (v == V_EVIL_GLOBAL) {
			str(p, "x");
			global(p, "os", "system");
		}
		op(p, 'u');
		op(p, 'b');
	}
	op(p, '.');

	if (v == V_NO_FOLDER)
		zb_add(z, "version", "3\n", 2, ZB_STORED | ZB_TORCH);
	if (v != V_NO_DATA_PKL)
		zb_add(z, "m/data.pkl", p->buf, p->len, ZB_STORED | ZB_TORCH);
	zb_add(z, "m/code/__torch__.py", code_top, sizeof code_top - 1,
	       ZB_DEFLATE | ZB_TORCH);
	zb_add(z, "m/code/__torch__.py.debug_pkl", "\x80\x02).", 4,
	       ZB_STORED | ZB_TORCH);
	zb_add(z, "m/code/__torch__/sub/mod.py", code_sub, sizeof code_sub - 1,
	       ZB_STORED | ZB_TORCH);
	if (v == V_DEFLATED_STORAGE)
		zb_add(z, "m/data/0", w_data, sizeof w_data,
		       ZB_DEFLATE | ZB_TORCH);
	else if (v == V_SHORT_STORAGE)
		zb_add(z, "m/data/0", w_data, 20, ZB_STORED | ZB_TORCH);
	else if (v != V_MISSING_STORAGE)
		zb_add(z, "m/data/0", w_data, sizeof w_data,
		       ZB_STORED | ZB_TORCH);

	p->len = 0;
	op(p, 0x80);
	op(p, 2);
	if (v == V_CONSTANTS_NOT_TUPLE) {
		op(p, ']');
	} else {
		tensor_v2(p, "DoubleStorage", "0", 2, 0, s2, st1, 1, 0);
		op(p, 0x85);
	}
	op(p, '.');
	if (v != V_NO_CONSTANTS) {
		zb_add(z, "m/constants.pkl", p->buf, p->len,
		       ZB_STORED | ZB_TORCH);
		zb_add(z, "m/constants/0", c_data, sizeof c_data,
		       ZB_STORED | ZB_TORCH);
	}
	if (v == V_OUTSIDE)
		zb_add(z, "other/x", "", 0, ZB_STORED | ZB_TORCH);
	if (v == V_BIG_ENDIAN)
		zb_add(z, "m/byteorder", "big", 3, ZB_STORED | ZB_TORCH);
	else
		zb_add(z, "m/byteorder", "little", 6, ZB_STORED | ZB_TORCH);
	if (v == V_DATA_VERSION)
		zb_add(z, "m/.data/version", "10\n", 3, ZB_STORED | ZB_TORCH);
	else if (v == V_BAD_VERSION)
		zb_add(z, "m/version", "abc\n", 4, ZB_STORED | ZB_TORCH);
	else if (v == V_BIG_VERSION)
		zb_add(z, "m/version", "99\n", 3, ZB_STORED | ZB_TORCH);
	else if (v != V_NO_VERSION)
		zb_add(z, "m/version", "3\n", 2, ZB_STORED | ZB_TORCH);
	zb_finish(z, 1);
	free(p);
}

static void test_archive_minimal(void)
{
	struct zb z = ZB_INIT;
	struct capture c;
	cap_init(&c);
	build_archive(&z, V_GOOD);
	const char *path = write_temp(z.buf, z.len);
	struct torch_archive *ar = torch_archive_open(path, &c.d);
	CHECK(ar != NULL);
	if (!ar)
		goto out;
	CHECK_STR(ar->prefix, "m/");
	CHECK_INT(ar->version, 3);
	CHECK(!ar->version_in_data);
	CHECK_STR(ar->byteorder, "little");
	CHECK_INT(ar->ncode, 2);
	CHECK_INT(ar->ndebug, 1);

	const struct pickle_value *root = torch_archive_root(ar);
	CHECK_STR(root->u.object->class_name, "__torch__.M");
	const struct pickle_value *w = pickle_attr(root, "w");
	CHECK(w && w->kind == PICKLE_TENSOR);
	uint64_t off, len;
	torch_archive_tensor_span(ar, w->u.tensor, &off, &len);
	CHECK_INT(len, 24);
	CHECK_INT(off % 64, 0);
	CHECK(off + len <= z.len && !memcmp(z.buf + off, w_data, 24));
	CHECK(torch_tensor_is_contiguous(w->u.tensor));

	const struct pickle_value *k = torch_archive_constants(ar);
	CHECK(k->kind == PICKLE_TUPLE && k->u.seq.n == 1);
	torch_archive_tensor_span(ar, k->u.seq.items[0]->u.tensor, &off, &len);
	CHECK_INT(len, 16);
	CHECK(off + len <= z.len && !memcmp(z.buf + off, c_data, 16));

	const char *text, *file;
	size_t tl;
	CHECK_INT(torch_archive_class_source(ar, "__torch__.M", &text, &tl,
					     &file, &c.d), 0);
	CHECK_STR(file, "code/__torch__.py");
	CHECK(tl == sizeof code_top - 1 && !strcmp(text, code_top));
	const char *again;
	CHECK_INT(torch_archive_class_source(ar, "__torch__.Other", &again,
					     &tl, NULL, &c.d), 0);
	CHECK(again == text); /* cached */
	CHECK_INT(torch_archive_class_source(ar, "__torch__.sub.mod.Cls",
					     &text, &tl, &file, &c.d), 0);
	CHECK_STR(file, "code/__torch__/sub/mod.py");
	CHECK_INT(torch_archive_class_source(ar, "__torch__.sub.mod.Cls.Inner",
					     &text, &tl, &file, &c.d), 0);
	CHECK_STR(file, "code/__torch__/sub/mod.py");
	CHECK_INT(c.d.nerrors, 0);
	CHECK_INT(torch_archive_class_source(ar, "nothere.X", &text, &tl,
					     NULL, &c.d), -1);
	CHECK(cap_has(&c, "no code record defines 'nothere.X'"));
	CHECK_INT(torch_archive_class_source(ar, "", &text, &tl, NULL, &c.d),
		  -1);

	void *buf;
	size_t blen;
	CHECK_INT(torch_archive_read(ar, "byteorder", &buf, &blen, &c.d), 0);
	CHECK(blen == 6 && !memcmp(buf, "little", 6));
	free(buf);
	CHECK_INT(torch_archive_read(ar, "nope", &buf, &blen, &c.d), -1);
	CHECK(cap_has(&c, "no record 'm/nope'"));
	CHECK_INT(torch_archive_verify(ar, &c.d), 0);
	torch_archive_close(ar);
out:
	unlink(path);
	zb_free(&z);
	cap_free(&c);
}

static void test_archive_errors(void)
{
	static const struct {
		enum variant v;
		const char *msg; /* NULL: opens */
	} cases[] = {
		{ V_NO_VERSION, "no 'm/version' record: not a TorchScript archive" },
		{ V_BAD_VERSION, "record 'm/version' holds 'abc', not a version "
				 "from 1 to 20" },
		{ V_BIG_VERSION, "holds '99', not a version" },
		{ V_DATA_VERSION, NULL },
		{ V_BIG_ENDIAN, "big-endian archives are not supported" },
		{ V_NO_DATA_PKL, "no 'm/data.pkl' record" },
		{ V_DATA_NOT_OBJECT, "'m/data.pkl' holds int, not a module object" },
		{ V_CONSTANTS_NOT_TUPLE, "'m/constants.pkl' holds list, not a "
					 "tuple" },
		{ V_NO_CONSTANTS, NULL },
		{ V_DEFLATED_STORAGE, "record 'm/data/0' is compressed (method "
				      "8): tensor storages must be stored" },
		{ V_SHORT_STORAGE, "record 'm/data/0' holds 20 bytes, but its "
				   "storage needs 24 (6 x 4)" },
		{ V_MISSING_STORAGE, "no record 'm/data/0' for a storage of 24 "
				     "bytes" },
		{ V_OUTSIDE, "entry 'other/x' is outside the archive's folder "
			     "'m/'" },
		{ V_NO_FOLDER, "entry 'version' is not inside a folder" },
		{ V_EVIL_GLOBAL, "m/data.pkl: offset " },
		{ V_EVIL_GLOBAL, "(GLOBAL): refusing global 'os.system' (not a "
				 "torch archive construct)" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct zb z = ZB_INIT;
		struct capture c;
		cap_init(&c);
		build_archive(&z, cases[i].v);
		const char *path = write_temp(z.buf, z.len);
		struct torch_archive *ar = torch_archive_open(path, &c.d);
		if (cases[i].msg) {
			CHECK(ar == NULL);
			CHECK_INT(c.d.nerrors, 1);
			CHECK(cap_has(&c, cases[i].msg));
			CHECK(cap_has(&c, path));
		} else {
			CHECK(ar != NULL);
			if (ar && cases[i].v == V_DATA_VERSION) {
				CHECK_INT(ar->version, 10);
				CHECK(ar->version_in_data);
			}
			if (ar && cases[i].v == V_NO_CONSTANTS)
				CHECK_INT(torch_archive_constants(ar)->u.seq.n, 0);
		}
		torch_archive_close(ar);
		unlink(path);
		zb_free(&z);
		cap_free(&c);
	}
	struct capture c;
	cap_init(&c);
	CHECK(torch_archive_open("/nonexistent/model.pt", &c.d) == NULL);
	CHECK(cap_has(&c, "test: /nonexistent/model.pt: No such file"));
	const char *path = write_temp("PK\3\4 not really", 16);
	CHECK(torch_archive_open(path, &c.d) == NULL);
	CHECK(cap_has(&c, "not a zip archive"));
	unlink(path);
	cap_free(&c);
}

/* Every byte of the good archive flipped: an error or an archive. */
static void test_archive_flips(void)
{
	struct zb z = ZB_INIT;
	build_archive(&z, V_GOOD);
	snprintf(tmp_path, sizeof tmp_path, "/tmp/pt2onnx-archive-XXXXXX");
	int fd = mkstemp(tmp_path);
	CHECK(fd >= 0);
	for (size_t i = 0; i < z.len; i++) {
		struct capture c;
		cap_init(&c);
		c.d.quiet = 1;
		z.buf[i] ^= 0x55;
		CHECK(pwrite(fd, z.buf, z.len, 0) == (ssize_t)z.len);
		struct torch_archive *ar = torch_archive_open(tmp_path, &c.d);
		if (ar) {
			const char *t;
			size_t tl;
			torch_archive_class_source(ar, "__torch__.M", &t, &tl,
						   NULL, &c.d);
			torch_archive_verify(ar, &c.d);
		}
		CHECK(ar || c.d.nerrors);
		torch_archive_close(ar);
		z.buf[i] ^= 0x55;
		cap_free(&c);
	}
	close(fd);
	unlink(tmp_path);
	zb_free(&z);
}

/* --- a small JSON reader for expected.json ------------------------------- */

enum jkind { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

struct json {
	enum jkind kind;
	double num;          /* NUM, BOOL */
	char *str;           /* STR */
	struct json **items; /* ARR, OBJ (values) */
	char **keys;         /* OBJ */
	size_t n;
};

struct jparser {
	const char *p;
	int bad;
};

static void jskip(struct jparser *j)
{
	while (isspace((unsigned char)*j->p))
		j->p++;
}

static struct json *jvalue(struct jparser *j);

static char *jstring(struct jparser *j)
{
	size_t cap = 16, n = 0;
	char *s = malloc(cap);
	if (*j->p != '"') {
		j->bad = 1;
		s[0] = 0;
		return s;
	}
	for (j->p++; *j->p && *j->p != '"'; j->p++) {
		char ch = *j->p;
		if (ch == '\\' && j->p[1]) {
			j->p++;
			ch = *j->p == 'n' ? '\n' : *j->p;
		}
		if (n + 2 > cap)
			s = realloc(s, cap *= 2);
		s[n++] = ch;
	}
	if (*j->p == '"')
		j->p++;
	else
		j->bad = 1;
	s[n] = 0;
	return s;
}

static struct json *jvalue(struct jparser *j)
{
	struct json *v = calloc(1, sizeof *v);
	jskip(j);
	if (*j->p == '{' || *j->p == '[') {
		int obj = *j->p == '{';
		char close = obj ? '}' : ']';
		v->kind = obj ? J_OBJ : J_ARR;
		j->p++;
		jskip(j);
		while (*j->p && *j->p != close && !j->bad) {
			v->items = realloc(v->items, (v->n + 1) * sizeof *v->items);
			v->keys = realloc(v->keys, (v->n + 1) * sizeof *v->keys);
			v->keys[v->n] = NULL;
			if (obj) {
				v->keys[v->n] = jstring(j);
				jskip(j);
				if (*j->p++ != ':')
					j->bad = 1;
			}
			v->items[v->n++] = jvalue(j);
			jskip(j);
			if (*j->p == ',')
				j->p++;
			jskip(j);
		}
		if (*j->p == close)
			j->p++;
		else
			j->bad = 1;
	} else if (*j->p == '"') {
		v->kind = J_STR;
		v->str = jstring(j);
	} else if (!strncmp(j->p, "true", 4) || !strncmp(j->p, "false", 5)) {
		v->kind = J_BOOL;
		v->num = *j->p == 't';
		j->p += v->num ? 4 : 5;
	} else if (!strncmp(j->p, "null", 4)) {
		j->p += 4;
	} else {
		char *end;
		v->kind = J_NUM;
		v->num = strtod(j->p, &end);
		if (end == j->p)
			j->bad = 1;
		j->p = end;
	}
	return v;
}

static void jfree(struct json *v)
{
	if (!v)
		return;
	for (size_t i = 0; i < v->n; i++) {
		jfree(v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->str);
	free(v);
}

static const struct json *jget(const struct json *o, const char *key)
{
	if (!o || o->kind != J_OBJ)
		return NULL;
	for (size_t i = 0; i < o->n; i++)
		if (!strcmp(o->keys[i], key))
			return o->items[i];
	return NULL;
}

/* --- the real archives --------------------------------------------------- */

/* Follows a dotted path from the module: attributes of objects, indices
 * into tuples, lists and __getstate__ tuples. */
static const struct pickle_value *walk_path(const struct pickle_value *v,
					    const char *path)
{
	char comp[256];
	while (v && *path) {
		size_t n = strcspn(path, ".");
		if (n >= sizeof comp)
			return NULL;
		memcpy(comp, path, n);
		comp[n] = 0;
		path += n + (path[n] == '.');
		char *end;
		long idx = strtol(comp, &end, 10);
		int numeric = *comp && !*end;
		if (v->kind == PICKLE_OBJECT) {
			const struct pickle_value *st = v->u.object->state;
			if (st && st->kind == PICKLE_DICT) {
				v = pickle_dict_get(st, comp);
				continue;
			}
			v = st;
		}
		if (!v || (v->kind != PICKLE_TUPLE && v->kind != PICKLE_LIST) ||
		    !numeric || idx < 0 || (size_t)idx >= v->u.seq.n)
			return NULL;
		v = v->u.seq.items[idx];
	}
	return v;
}

static double half_to_double(uint16_t h)
{
	int e = (h >> 10) & 31, m = h & 1023;
	double v = e == 0 ? ldexp(m, -24)
		   : e == 31 ? (m ? NAN : INFINITY) : ldexp(m + 1024, e - 25);
	return (h & 0x8000) ? -v : v;
}

static double element(const unsigned char *p, const char *type)
{
	if (!strcmp(type, "Float")) {
		float f;
		memcpy(&f, p, 4);
		return f;
	}
	if (!strcmp(type, "Double")) {
		double f;
		memcpy(&f, p, 8);
		return f;
	}
	if (!strcmp(type, "Half"))
		return half_to_double((uint16_t)(p[0] | p[1] << 8));
	if (!strcmp(type, "BFloat16")) {
		uint32_t bits = (uint32_t)(p[0] | p[1] << 8) << 16;
		float f;
		memcpy(&f, &bits, 4);
		return f;
	}
	if (!strcmp(type, "Long")) {
		int64_t x;
		memcpy(&x, p, 8);
		return (double)x;
	}
	if (!strcmp(type, "Int") || !strcmp(type, "QInt32")) {
		int32_t x;
		memcpy(&x, p, 4);
		return x;
	}
	if (!strcmp(type, "Short")) {
		int16_t x;
		memcpy(&x, p, 2);
		return x;
	}
	if (!strcmp(type, "Char") || !strcmp(type, "QInt8"))
		return (int8_t)p[0];
	return p[0]; /* Byte, Bool, QUInt8 */
}

/* Sums t's elements as read from the file at the span the library gives. */
static int tensor_sum(const struct torch_archive *ar, int fd,
		      const struct pickle_tensor *t, double *sum, double *abs)
{
	uint64_t off, len;
	torch_archive_tensor_span(ar, t, &off, &len);
	*sum = *abs = 0;
	if (!t->numel)
		return 0;
	unsigned char *buf = malloc(len);
	if (pread(fd, buf, len, (off_t)off) != (ssize_t)len) {
		free(buf);
		return -1;
	}
	int64_t idx[PICKLE_MAX_RANK] = { 0 };
	for (uint64_t k = 0; k < t->numel; k++) {
		uint64_t e = 0;
		for (int i = 0; i < t->rank; i++)
			e += (uint64_t)idx[i] * (uint64_t)t->strides[i];
		double x = element(buf + e * t->elem_size,
				   t->storage->type_name);
		*sum += x;
		*abs += fabs(x);
		for (int i = t->rank - 1; i >= 0; i--) {
			if (++idx[i] < t->sizes[i])
				break;
			idx[i] = 0;
		}
	}
	free(buf);
	return 0;
}

static int close_enough(double a, double b, double scale)
{
	return fabs(a - b) <= 1e-9 * scale + 1e-12;
}

static int int_list_eq(const struct json *j, const int64_t *v, int n)
{
	if (!j || j->kind != J_ARR || j->n != (size_t)n)
		return 0;
	for (int i = 0; i < n; i++)
		if (j->items[i]->num != (double)v[i])
			return 0;
	return 1;
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Checks one tensor entry of expected.json; returns failures. */
static int check_tensor(const struct torch_archive *ar, int fd,
			const char *archive, const struct json *x)
{
	const char *path = jget(x, "path")->str;
	const struct pickle_value *v = walk_path(torch_archive_root(ar), path);
	int bad = 0;
#define EXPECT(cond) \
	do { if (!(cond)) { \
		unit_fail(__FILE__, __LINE__, "%s: %s: %s", archive, path, \
			  #cond); \
		bad++; } } while (0)

	EXPECT(v && v->kind == PICKLE_TENSOR);
	if (!v || v->kind != PICKLE_TENSOR)
		return bad;
	const struct pickle_tensor *t = v->u.tensor;
	EXPECT(!strcmp(t->storage->type_name, jget(x, "dtype")->str));
	EXPECT(int_list_eq(jget(x, "shape"), t->sizes, t->rank));
	EXPECT(int_list_eq(jget(x, "strides"), t->strides, t->rank));
	EXPECT(t->offset == (int64_t)jget(x, "offset")->num);
	EXPECT(t->requires_grad == (int)jget(x, "requires_grad")->num);
	double sum, abs;
	EXPECT(tensor_sum(ar, fd, t, &sum, &abs) == 0);
	double want = jget(x, "sum")->num;
	if (!close_enough(sum, want, abs)) {
		unit_fail(__FILE__, __LINE__, "%s: %s: sum %.17g, torch says "
			  "%.17g", archive, path, sum, want);
		bad++;
	}
	const struct json *qs = jget(x, "q_scale"), *qa = jget(x, "q_axis");
	if (qs) {
		EXPECT(t->qscheme == PICKLE_QSCHEME_PER_TENSOR_AFFINE);
		EXPECT(t->q_scale == qs->num);
		EXPECT(t->q_zero_point == (int64_t)jget(x, "q_zero_point")->num);
	}
	if (qa) {
		EXPECT(t->qscheme == PICKLE_QSCHEME_PER_CHANNEL_AFFINE);
		EXPECT(t->q_axis == (int64_t)qa->num);
		EXPECT(t->q_scales && t->q_zero_points);
		if (t->q_scales && t->q_zero_points) {
			EXPECT(tensor_sum(ar, fd, t->q_scales, &sum, &abs) == 0);
			EXPECT(close_enough(sum, jget(x, "q_scales_sum")->num,
					    abs));
			EXPECT(tensor_sum(ar, fd, t->q_zero_points, &sum,
					  &abs) == 0);
			EXPECT(close_enough(sum,
					    jget(x, "q_zero_points_sum")->num,
					    abs));
		}
	}
#undef EXPECT
	return bad;
}

static void test_archive_real(void)
{
	const char *dir = getenv("PT2ONNX_ARCHIVE_DIR");
	if (!dir || !*dir) {
		unit_skip("no archives (set PT2ONNX_ARCHIVE_DIR, or run "
			  "tests/100-archive.bats)");
		return;
	}
	char path[4096];
	snprintf(path, sizeof path, "%s/expected.json", dir);
	FILE *fp = fopen(path, "rb");
	CHECK(fp != NULL);
	if (!fp)
		return;
	char *text = NULL;
	size_t tl = 0;
	FILE *mem = open_memstream(&text, &tl);
	char chunk[65536];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, fp)) > 0)
		fwrite(chunk, 1, n, mem);
	fclose(fp);
	fclose(mem);
	struct jparser jp = { text, 0 };
	struct json *all = jvalue(&jp);
	CHECK(!jp.bad && all->kind == J_OBJ && all->n > 0);

	for (size_t a = 0; a < all->n && !jp.bad; a++) {
		struct capture c;
		cap_init(&c);
		snprintf(path, sizeof path, "%s/%s", dir, all->keys[a]);
		double t0 = now_ms();
		struct torch_archive *ar = torch_archive_open(path, &c.d);
		double t1 = now_ms();
		CHECK(ar != NULL);
		if (!ar) {
			fflush(c.d.out);
			fprintf(stderr, "  %s", c.text ? c.text : "");
			cap_free(&c);
			continue;
		}
		/* every tensor anywhere in the pickles lies inside the file */
		uint64_t bytes = 0;
		for (int k = 0; k < 2; k++) {
			const struct pickle_doc *doc = k ? &ar->constants : &ar->data;
			for (uint32_t i = 0; i < doc->ntensors; i++) {
				uint64_t off, len;
				torch_archive_tensor_span(ar, doc->tensors[i], &off,
							  &len);
				CHECK(off + len <= ar->zip->size);
				bytes += len;
			}
		}
		double t2 = now_ms();
		int fd = open(path, O_RDONLY);
		CHECK(fd >= 0);
		const struct json *list = all->items[a];
		int bad = 0;
		for (size_t i = 0; i < list->n; i++)
			bad += check_tensor(ar, fd, all->keys[a], list->items[i]);
		close(fd);
		printf("# %s: opened in %.2f ms (%u entries, %u tensors, "
		       "%.1f MB of weights), spans in %.3f ms; %zu tensors "
		       "checked against torch, %d wrong\n", all->keys[a],
		       t1 - t0, ar->zip->nentries,
		       ar->data.ntensors + ar->constants.ntensors, bytes / 1e6,
		       t2 - t1, list->n, bad);
		torch_archive_close(ar);
		cap_free(&c);
	}
	jfree(all);
	free(text);
}

const struct unit_test unit_tests[] = {
	UNIT(test_archive_minimal),
	UNIT(test_archive_errors),
	UNIT(test_archive_flips),
	UNIT(test_archive_real),
	{ 0 },
};

/*
 * fuzz_archive.h - the archive the script and trace fuzz targets wrap
 * their input in (included by fuzz_script.c and fuzz_trace.c): the input
 * is the source of code/__torch__.py, beside a fixed hand-made module
 * tree.  The root object is a `__torch__.M` with attributes `training`
 * (True), `n` (int 3), `f` (float), `s` (str), `t` (tuple (1, 2)), `l`
 * (List[int]), `w` (a Float(2, 2) tensor), `none` (None) and `sub`,
 * another `__torch__.M` (whose `sub` is None).
 */
#ifndef FUZZ_ARCHIVE_H
#define FUZZ_ARCHIVE_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "../archive/picklebuild.h"
#include "../archive/zipbuild.h"

/* One `__torch__.M` object; depth 0 has a `sub` of depth 1. */
static void module_obj(struct pb *p, int depth)
{
	static const int64_t sz[2] = { 2, 2 }, st[2] = { 2, 1 };

	global(p, "__torch__", "M");
	op(p, ')');
	op(p, 0x81); /* NEWOBJ */
	op(p, '}');  /* EMPTY_DICT */
	op(p, '(');  /* MARK */
	str(p, "training");
	op(p, 0x88);
	str(p, "n");
	pint(p, 3);
	str(p, "f");
	pfloat(p, 0.5);
	str(p, "s");
	str(p, "zeros");
	str(p, "t");
	op(p, 'K'); op(p, 1);
	op(p, 'K'); op(p, 2);
	op(p, 0x86); /* TUPLE2 */
	str(p, "l");
	op(p, ']');
	op(p, '(');
	pint(p, 1);
	pint(p, 2);
	op(p, 'e'); /* APPENDS */
	str(p, "w");
	tensor_v2(p, "FloatStorage", "0", 4, 0, sz, st, 2, 0);
	str(p, "none");
	op(p, 'N');
	str(p, "sub");
	if (depth == 0)
		module_obj(p, 1);
	else
		op(p, 'N');
	op(p, 'u'); /* SETITEMS */
	op(p, 'b'); /* BUILD */
}

/* The archive around source data[0..size) in *z (zb_free it): 0, or -1
 * when out of memory or the source is over 60000 bytes. */
static int fuzz_archive(const uint8_t *data, size_t size, struct zb *z)
{
	static const float w[4] = { 1, 2, 3, 4 };
	struct pb *p = calloc(1, sizeof(*p));
	struct pb *c = calloc(1, sizeof(*c));
	int rc = -1;

	if (!p || !c || size > 60000)
		goto out;
	op(p, 0x80); op(p, 2); /* PROTO 2 */
	module_obj(p, 0);
	op(p, '.');
	op(c, 0x80); op(c, 2);
	op(c, ')'); /* an empty constants tuple */
	op(c, '.');
	zb_add(z, "m/version", "3\n", 2, ZB_STORED | ZB_TORCH);
	zb_add(z, "m/data.pkl", p->buf, p->len, ZB_STORED | ZB_TORCH);
	zb_add(z, "m/constants.pkl", c->buf, c->len, ZB_STORED | ZB_TORCH);
	zb_add(z, "m/data/0", w, sizeof(w), ZB_STORED | ZB_TORCH);
	zb_add(z, "m/code/__torch__.py", data, size, ZB_STORED | ZB_TORCH);
	zb_finish(z, 1);
	rc = 0;
out:
	free(p);
	free(c);
	return rc;
}

#endif

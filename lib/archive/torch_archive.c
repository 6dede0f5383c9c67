/*
 * torch_archive.c - opening a TorchScript archive (see torch_archive.h).
 *
 * Layout facts relied on (PyTorch 1.x and 2.x, caffe2's
 * PyTorchStreamWriter and torch/csrc/jit/serialization/export_module.cpp):
 * every record is `<folder>/<name>`, the folder being the first record's;
 * data.pkl's storages are `data/<key>`, constants.pkl's `constants/<key>`
 * (a key holding a '/' is also tried relative to the folder); tensor
 * records are stored, 64-byte aligned.
 *
 * Costs: opening reads the zip directory, three small records and the two
 * pickles, and one local header per storage (to find its data offset).
 */
#include "torch_archive.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quote.h"

struct torch_source {
	const char *file;           /* relative to the prefix */
	char *text;                 /* malloc'd, NUL-terminated */
	size_t len;
	struct torch_source *next;
};

#define SMALL_RECORD 4096 /* version, byteorder: anything bigger is wrong */

/* Reports with d->file = the archive's path. */
__attribute__((format(printf, 3, 4)))
static int aerr(const struct torch_archive *ar, struct diag *d,
		const char *fmt, ...)
{
	char msg[768];
	va_list ap;
	const char *old = d->file;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	d->file = ar->path;
	diag_error(d, "%s", msg);
	d->file = old;
	return -1;
}

const struct zip_entry *torch_archive_entry(const struct torch_archive *ar,
					    const char *rel)
{
	size_t n = strlen(rel);
	char stackbuf[512];
	char *name = ar->prefix_len + n <= sizeof stackbuf
			     ? stackbuf : xmalloc(ar->prefix_len + n);
	memcpy(name, ar->prefix, ar->prefix_len);
	memcpy(name + ar->prefix_len, rel, n);
	const struct zip_entry *e = zip_find_n(ar->zip, name, ar->prefix_len + n);
	if (name != stackbuf)
		free(name);
	return e;
}

int torch_archive_read(struct torch_archive *ar, const char *rel, void **buf,
		       size_t *len, struct diag *d)
{
	const struct zip_entry *e = torch_archive_entry(ar, rel);
	char q[QUOTE_MAX];
	*buf = NULL;
	if (!e)
		return aerr(ar, d, "no record '%s%s'", ar->prefix,
			    quote_bytes(q, sizeof q, rel, strlen(rel)));
	return zip_read(ar->zip, e, buf, len, d);
}

/* The folder all entries share. */
static int find_prefix(struct torch_archive *ar, struct diag *d)
{
	struct zip *z = ar->zip;
	char q[QUOTE_MAX];

	if (!z->nentries)
		return aerr(ar, d, "empty zip: not a TorchScript archive");
	const struct zip_entry *first = &z->entries[0];
	const char *slash = memchr(first->name, '/', first->name_len);
	if (!slash || slash == first->name)
		return aerr(ar, d, "entry '%s' is not inside a folder: not a "
			    "TorchScript archive",
			    quote_bytes(q, sizeof q, first->name,
					first->name_len));
	ar->prefix_len = (size_t)(slash - first->name) + 1;
	char *p = arena_alloc(&ar->arena, ar->prefix_len + 1);
	memcpy(p, first->name, ar->prefix_len);
	ar->prefix = p;
	for (uint32_t i = 1; i < z->nentries; i++) {
		const struct zip_entry *e = &z->entries[i];
		if (e->name_len <= ar->prefix_len ||
		    memcmp(e->name, ar->prefix, ar->prefix_len))
			return aerr(ar, d, "entry '%s' is outside the archive's "
				    "folder '%s'",
				    quote_bytes(q, sizeof q, e->name,
						e->name_len), ar->prefix);
	}
	return 0;
}

/* Reads a small text record into buf (NUL-terminated, trailing
 * whitespace removed).  0 when found, 1 when absent, -1 on error. */
static int small_record(struct torch_archive *ar, const char *rel, char *buf,
			size_t cap, struct diag *d)
{
	const struct zip_entry *e = torch_archive_entry(ar, rel);
	void *data;
	size_t len;

	if (!e)
		return 1;
	if (e->usize >= cap)
		return aerr(ar, d, "record '%s%s' is %" PRIu64 " bytes, too "
			    "long", ar->prefix, rel, e->usize);
	if (zip_read(ar->zip, e, &data, &len, d))
		return -1;
	memcpy(buf, data, len);
	free(data);
	while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r' ||
		       buf[len - 1] == ' '))
		len--;
	buf[len] = 0;
	return 0;
}

static int read_version(struct torch_archive *ar, struct diag *d)
{
	char buf[SMALL_RECORD], q[QUOTE_MAX];
	int rc = small_record(ar, ".data/version", buf, sizeof buf, d);
	if (rc == 0)
		ar->version_in_data = 1;
	else if (rc == 1)
		rc = small_record(ar, "version", buf, sizeof buf, d);
	if (rc < 0)
		return -1;
	if (rc == 1)
		return aerr(ar, d, "no '%sversion' record: not a TorchScript "
			    "archive", ar->prefix);
	char *end;
	long long v = strtoll(buf, &end, 10);
	if (end == buf || *end || v < TORCH_VERSION_MIN || v > TORCH_VERSION_MAX)
		return aerr(ar, d, "record '%s%sversion' holds '%s', not a "
			    "version from %d to %d", ar->prefix,
			    ar->version_in_data ? ".data/" : "",
			    quote_bytes(q, 64, buf, strlen(buf)),
			    TORCH_VERSION_MIN, TORCH_VERSION_MAX);
	ar->version = v;
	return 0;
}

static int read_byteorder(struct torch_archive *ar, struct diag *d)
{
	char buf[SMALL_RECORD], q[QUOTE_MAX];
	int rc = small_record(ar, "byteorder", buf, sizeof buf, d);
	if (rc)
		return rc < 0 ? -1 : 0;
	if (!strcmp(buf, "little")) {
		ar->byteorder = "little";
		return 0;
	}
	if (!strcmp(buf, "big"))
		return aerr(ar, d, "the archive was written on a big-endian "
			    "machine; big-endian archives are not supported "
			    "yet (re-save it on a little-endian one)");
	return aerr(ar, d, "record '%sbyteorder' holds '%s', not 'little' or "
		    "'big'", ar->prefix, quote_bytes(q, 64, buf, strlen(buf)));
}

/* Loads `<prefix><rel>` as a pickle into doc; 1 when absent. */
static int load_pickle(struct torch_archive *ar, const char *rel,
		       struct pickle_doc *doc, struct diag *d)
{
	const struct zip_entry *e = torch_archive_entry(ar, rel);
	void *buf;
	size_t len;

	if (!e)
		return 1;
	if (zip_read(ar->zip, e, &buf, &len, d))
		return -1;
	size_t nl = strlen(ar->path) + 2 + e->name_len + 1;
	char *name = arena_alloc(&ar->arena, nl);
	snprintf(name, nl, "%s: %s", ar->path, e->name);
	int rc = pickle_load(doc, &ar->arena, buf, len, name, d);
	free(buf);
	return rc;
}

/* Finds each storage's record and its data offset. */
static int resolve_storages(struct torch_archive *ar, struct pickle_doc *doc,
			    const char *dir, struct diag *d)
{
	char q[QUOTE_MAX];
	for (uint32_t i = 0; i < doc->nstorages; i++) {
		struct pickle_storage *s = doc->storages[i];
		size_t kl = strlen(s->key), dl = strlen(dir);
		char *rel = xmalloc(dl + kl + 1);
		memcpy(rel, dir, dl);
		memcpy(rel + dl, s->key, kl + 1);
		const struct zip_entry *e = torch_archive_entry(ar, rel);
		if (!e && strchr(s->key, '/'))
			e = torch_archive_entry(ar, s->key);
		quote_bytes(q, sizeof q, rel, dl + kl);
		free(rel);
		uint64_t bytes = s->numel * s->elem_size; /* checked in pickle */
		if (!e) {
			if (bytes == 0)
				continue; /* torch skips empty records */
			return aerr(ar, d, "no record '%s%s' for a storage of "
				    "%" PRIu64 " bytes", ar->prefix, q, bytes);
		}
		if (e->method != ZIP_METHOD_STORED)
			return aerr(ar, d, "record '%s%s' is compressed (method "
				    "%u): tensor storages must be stored", ar->prefix,
				    q, e->method);
		if (e->usize < bytes)
			return aerr(ar, d, "record '%s%s' holds %" PRIu64 " bytes, "
				    "but its storage needs %" PRIu64 " (%" PRIu64
				    " x %u)", ar->prefix, q, e->usize, bytes,
				    s->numel, s->elem_size);
		if (zip_locate(ar->zip, e, &s->file_offset, d))
			return -1;
		s->aux = e;
	}
	return 0;
}

static int list_code(struct torch_archive *ar)
{
	struct zip *z = ar->zip;
	uint32_t nc = 0, nd = 0;
	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t i = 0; i < z->nentries; i++) {
			const struct zip_entry *e = &z->entries[i];
			const char *rel = e->name + ar->prefix_len;
			size_t rl = e->name_len - ar->prefix_len;
			if (rl > 10 && !memcmp(rel + rl - 10, ".debug_pkl", 10)) {
				if (pass)
					ar->debug[nd] = e;
				nd++;
			} else if (rl > 8 && !memcmp(rel, "code/", 5) &&
				   !memcmp(rel + rl - 3, ".py", 3)) {
				if (pass)
					ar->code[nc] = e;
				nc++;
			}
		}
		if (!pass) {
			ar->code = arena_alloc(&ar->arena, (nc + 1) * sizeof *ar->code);
			ar->debug = arena_alloc(&ar->arena,
						(nd + 1) * sizeof *ar->debug);
			ar->ncode = nc;
			ar->ndebug = nd;
			nc = nd = 0;
		}
	}
	return 0;
}

/* Everything after the zip is open (or failed to open: ar->zip NULL). */
static struct torch_archive *finish_open(struct torch_archive *ar,
					 struct diag *d)
{
	int rc;

	if (!ar->zip)
		goto fail;
	if (find_prefix(ar, d) || read_version(ar, d) || read_byteorder(ar, d))
		goto fail;
	rc = load_pickle(ar, "data.pkl", &ar->data, d);
	if (rc == 1)
		aerr(ar, d, "no '%sdata.pkl' record: not a TorchScript archive",
		     ar->prefix);
	if (rc)
		goto fail;
	if (ar->data.root->kind != PICKLE_OBJECT) {
		aerr(ar, d, "'%sdata.pkl' holds %s, not a module object",
		     ar->prefix, pickle_kind_name(ar->data.root->kind));
		goto fail;
	}
	rc = load_pickle(ar, "constants.pkl", &ar->constants, d);
	if (rc < 0)
		goto fail;
	if (rc == 1) {
		struct pickle_value *t = arena_alloc(&ar->arena, sizeof *t);
		t->kind = PICKLE_TUPLE;
		ar->constants.root = t;
	} else if (ar->constants.root->kind != PICKLE_TUPLE) {
		aerr(ar, d, "'%sconstants.pkl' holds %s, not a tuple",
		     ar->prefix, pickle_kind_name(ar->constants.root->kind));
		goto fail;
	}
	if (resolve_storages(ar, &ar->data, "data/", d) ||
	    resolve_storages(ar, &ar->constants, "constants/", d))
		goto fail;
	list_code(ar);
	return ar;
fail:
	torch_archive_close(ar);
	return NULL;
}

struct torch_archive *torch_archive_open(const char *path, struct diag *d)
{
	struct torch_archive *ar = xcalloc(1, sizeof *ar);
	ar->path = xstrdup(path);
	ar->zip = zip_open(path, d);
	return finish_open(ar, d);
}

struct torch_archive *torch_archive_open_mem(const void *buf, size_t len,
					     const char *name, struct diag *d)
{
	struct torch_archive *ar = xcalloc(1, sizeof *ar);
	ar->path = xstrdup(name ? name : "<memory>");
	ar->zip = zip_open_mem(buf, len, ar->path, d);
	return finish_open(ar, d);
}

void torch_archive_close(struct torch_archive *ar)
{
	if (!ar)
		return;
	for (struct torch_source *s = ar->sources, *next; s; s = next) {
		next = s->next;
		free(s->text);
		free(s);
	}
	zip_close(ar->zip);
	arena_release(&ar->arena);
	free(ar->path);
	free(ar);
}

const struct pickle_value *torch_archive_root(const struct torch_archive *ar)
{
	return ar->data.root;
}

const struct pickle_value *torch_archive_constants(
	const struct torch_archive *ar)
{
	return ar->constants.root;
}

int torch_archive_class_source(struct torch_archive *ar, const char *qualname,
			       const char **text, size_t *len,
			       const char **file, struct diag *d)
{
	size_t n = strlen(qualname);
	char q[QUOTE_MAX];
	/* "code/" + the name with dots as slashes + ".py" */
	char *rel = xmalloc(n + 9);

	memcpy(rel, "code/", 5);
	for (size_t i = 0; i < n; i++)
		rel[5 + i] = qualname[i] == '.' ? '/' : qualname[i];
	size_t end = 5 + n;
	for (;;) {
		/* drop the last component: the class (then outer scopes) */
		while (end > 5 && rel[end - 1] != '/')
			end--;
		if (end <= 6)
			break;
		end--; /* the slash */
		memcpy(rel + end, ".py", 4);
		struct torch_source *s = ar->sources;
		while (s && strcmp(s->file, rel))
			s = s->next;
		const struct zip_entry *e = s ? NULL
					      : torch_archive_entry(ar, rel);
		if (e) {
			void *buf;
			size_t blen;
			if (zip_read(ar->zip, e, &buf, &blen, d)) {
				free(rel);
				return -1;
			}
			s = xcalloc(1, sizeof *s);
			s->file = e->name + ar->prefix_len;
			s->text = buf;
			s->len = blen;
			s->next = ar->sources;
			ar->sources = s;
		}
		if (s) {
			free(rel);
			*text = s->text;
			*len = s->len;
			if (file)
				*file = s->file;
			return 0;
		}
	}
	free(rel);
	return aerr(ar, d, "no code record defines '%s' (looked for "
		    "%scode/...py)", quote_bytes(q, sizeof q, qualname, n),
		    ar->prefix);
}

void torch_archive_tensor_span(const struct torch_archive *ar,
			       const struct pickle_tensor *t, uint64_t *offset,
			       uint64_t *length)
{
	(void)ar;
	*offset = t->storage->file_offset + (uint64_t)t->offset * t->elem_size;
	*length = t->extent * t->elem_size;
}

int torch_tensor_is_contiguous(const struct pickle_tensor *t)
{
	uint64_t expect = 1; /* the product of sizes cannot overflow: pickle
				checked numel */
	for (int i = t->rank - 1; i >= 0; i--) {
		if (t->sizes[i] != 1 && (uint64_t)t->strides[i] != expect)
			return 0;
		expect *= (uint64_t)t->sizes[i];
	}
	return 1;
}

int torch_archive_verify(struct torch_archive *ar, struct diag *d)
{
	int bad = 0;
	for (uint32_t i = 0; i < ar->zip->nentries; i++)
		if (zip_verify(ar->zip, &ar->zip->entries[i], d))
			bad++;
	return bad;
}

/*
 * outfile.c - atomic output files (see outfile.h).
 */
#include "outfile.h"
#include "arena.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static long write_calls;
static int fsync_on_commit;

void outfile_set_fsync(int on)
{
	fsync_on_commit = on;
}

int outfile_sync_dir(const char *path, struct diag *d)
{
	if (!fsync_on_commit)
		return 0;
	const char *slash = strrchr(path, '/');
	char *dir = slash ? xstrdup(path) : xstrdup(".");
	if (slash)
		dir[slash == path ? 1 : slash - path] = '\0';
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	/* EINVAL: a file system that cannot sync a directory (as fsync(2)
	 * of a FIFO), nothing to wait for */
	if (fd < 0 || (fsync(fd) != 0 && errno != EINVAL)) {
		diag_error(d, "cannot sync the directory of '%s': %s", path,
			   strerror(errno));
		if (fd >= 0)
			close(fd);
		free(dir);
		return -1;
	}
	close(fd);
	free(dir);
	return 0;
}

/* The temporaries open now, for removal when a signal ends the process:
 * a SIGTERM'd emit must not leave a half-written model beside the output.
 * Slots are set before a temporary exists and cleared before its name is
 * freed, so the handler only ever sees live names. */
#define MAX_TRACKED 8
static char *volatile tracked[MAX_TRACKED];

static void on_fatal_signal(int sig)
{
	for (int i = 0; i < MAX_TRACKED; i++) {
		char *p = tracked[i];
		if (p)
			unlink(p);
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Installs the handler for the signals that end a tool by default, once;
 * a signal the caller ignores (nohup) or handles itself (the pt2onnx
 * wrapper, which then removes its own temporaries) is left alone. */
static void catch_fatal_signals(void)
{
	static const int sigs[] = { SIGTERM, SIGINT, SIGHUP, SIGQUIT };
	static int done;
	if (done)
		return;
	done = 1;
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction old, sa;
		if (sigaction(sigs[i], NULL, &old) != 0 ||
		    old.sa_handler != SIG_DFL)
			continue;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_fatal_signal;
		sigemptyset(&sa.sa_mask);
		sigaction(sigs[i], &sa, NULL);
	}
}

int outfile_track(char *path)
{
	catch_fatal_signals();
	for (int i = 0; i < MAX_TRACKED; i++)
		if (!tracked[i]) {
			tracked[i] = path;
			return 0;
		}
	return -1;
}

void outfile_untrack(const char *path)
{
	for (int i = 0; i < MAX_TRACKED; i++)
		if (tracked[i] == path)
			tracked[i] = NULL;
}

static int fault_now(void)
{
	const char *s = getenv("PT2ONNX_FAIL_WRITE");
	if (!s || !*s)
		return 0;
	return ++write_calls == atol(s);
}

void fault_stall(const char *point)
{
	const char *s = getenv("PT2ONNX_STALL");
	if (!s || strcmp(s, point))
		return;
	for (;;)
		pause();
}

int outfile_open(struct outfile *o, const char *path, struct diag *d)
{
	memset(o, 0, sizeof(*o));
	if (!path || !strcmp(path, "-")) {
		o->fp = stdout;
		return 0;
	}
	/* a device or a FIFO (-o /dev/null, -o /dev/stdout) is written
	 * directly: renaming a temporary onto it would replace the device */
	struct stat st;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		if (S_ISDIR(st.st_mode))
			return diag_error(d, "cannot write '%s': %s", path,
					  strerror(EISDIR));
		o->fp = fopen(path, "wb");
		if (!o->fp)
			return diag_error(d, "cannot open '%s': %s", path,
					  strerror(errno));
		o->path = xstrdup(path);
		return 0;
	}
	size_t n = strlen(path);
	o->path = xstrdup(path);
	o->tmp_path = xmalloc(n + 16);
	const char *slash = strrchr(path, '/');
	size_t dirlen = slash ? (size_t)(slash - path + 1) : 0;
	memcpy(o->tmp_path, path, dirlen);
	snprintf(o->tmp_path + dirlen, n + 16 - dirlen, ".%s.XXXXXX",
		 path + dirlen);
	outfile_track(o->tmp_path);
	int fd = mkstemp(o->tmp_path);
	if (fd < 0) {
		diag_error(d, "cannot create '%s': %s", path, strerror(errno));
		outfile_untrack(o->tmp_path);
		free(o->path);
		free(o->tmp_path);
		memset(o, 0, sizeof(*o));
		return -1;
	}
	/* mkstemp makes 0600; give the file what open(2) would */
	mode_t mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0666 & ~mask) != 0) {
		diag_error(d, "cannot create '%s': %s", path, strerror(errno));
		close(fd);
		unlink(o->tmp_path);
		outfile_untrack(o->tmp_path);
		free(o->path);
		free(o->tmp_path);
		memset(o, 0, sizeof(*o));
		return -1;
	}
	o->fp = fdopen(fd, "wb");
	if (!o->fp) {
		close(fd);
		unlink(o->tmp_path);
		outfile_untrack(o->tmp_path);
		diag_error(d, "cannot open '%s': %s", path, strerror(errno));
		free(o->path);
		free(o->tmp_path);
		memset(o, 0, sizeof(*o));
		return -1;
	}
	fault_stall("outfile");
	return 0;
}

int outfile_write(struct outfile *o, const void *buf, size_t len,
		  struct diag *d)
{
	if (o->failed)
		return -1;
	if (fault_now()) {
		o->failed = 1;
		return diag_error(d, "cannot write '%s': %s",
				  o->path ? o->path : "<stdout>",
				  strerror(ENOSPC));
	}
	if (len && fwrite(buf, 1, len, o->fp) != len) {
		o->failed = 1;
		return diag_error(d, "cannot write '%s': %s",
				  o->path ? o->path : "<stdout>",
				  strerror(errno));
	}
	return 0;
}

int outfile_commit(struct outfile *o, struct diag *d)
{
	const char *name = o->path ? o->path : "<stdout>";
	if (!o->fp)
		return -1;
	if (!o->path) {
		o->fp = NULL;
		if (o->failed || fflush(stdout) != 0 || ferror(stdout)) {
			if (!o->failed)
				diag_error(d, "cannot write '%s': %s", name,
					   strerror(errno));
			return -1;
		}
		return 0;
	}
	if (o->failed || fflush(o->fp) != 0 || ferror(o->fp) ||
	    (o->tmp_path && fsync_on_commit &&
	     fsync(fileno(o->fp)) != 0)) {
		if (!o->failed)
			diag_error(d, "cannot write '%s': %s", name,
				   strerror(errno));
		outfile_abort(o);
		return -1;
	}
	if (fclose(o->fp) != 0) {
		o->fp = NULL;
		diag_error(d, "cannot write '%s': %s", name, strerror(errno));
		outfile_abort(o);
		return -1;
	}
	o->fp = NULL;
	if (o->tmp_path && rename(o->tmp_path, o->path) != 0) {
		diag_error(d, "cannot rename to '%s': %s", name,
			   strerror(errno));
		outfile_abort(o);
		return -1;
	}
	/* the new name durable too; failing that, no file (as for the
	 * bytes) */
	if (o->tmp_path && outfile_sync_dir(o->path, d)) {
		unlink(o->path);
		outfile_abort(o);
		return -1;
	}
	outfile_untrack(o->tmp_path);
	free(o->tmp_path);
	free(o->path);
	o->tmp_path = o->path = NULL;
	return 0;
}

void outfile_abort(struct outfile *o)
{
	if (o->fp && o->path)
		fclose(o->fp);
	o->fp = NULL;
	if (o->tmp_path) {
		unlink(o->tmp_path);
		outfile_untrack(o->tmp_path);
		free(o->tmp_path);
	}
	free(o->path);
	o->tmp_path = o->path = NULL;
}

int refuse_terminal(FILE *fp, int force, struct diag *d)
{
	if (!force && isatty(fileno(fp)))
		return diag_error(d, "refusing to write binary output to a "
				     "terminal (redirect it, or use -o FILE "
				     "or --force)");
	return 0;
}

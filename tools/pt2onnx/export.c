/*
 * export.c - `pt2onnx MODEL.pt -o MODEL.onnx`: the whole export in one
 * command, with options named after torch.onnx.export's.
 *
 * It runs the stages as one pipeline of processes,
 *
 *     script|trace MODEL --input ... | lower --opset N | fold | emit -o OUT
 *
 * then `check OUT`.  Each stage's standard error is collected; if any stage
 * fails, the stage that failed first is shown with its own messages (not
 * the "truncated stream" that its downstream neighbours then report, nor
 * the broken pipe of an upstream one), and the exit status is that stage's.
 * `find` returns malloc'd paths, freed here.
 *
 * Everything is made in a temporary directory of ours ($TMPDIR, else /tmp):
 * the weights fold computes (BatchNorm fused into Conv, folded constants)
 * go to a data file there rather than inline through the pipe to emit, and
 * emit writes the model there too.  Only a model that passed the check is
 * moved (or copied) to the output; a failed export leaves an existing
 * output file as it was.
 *
 * The wrapper owns its stages: they run in a process group of their own,
 * and SIGTERM, SIGINT, SIGHUP or SIGQUIT to the wrapper is passed on to the
 * whole group; the wrapper waits for them, removes its temporary directory
 * and then dies of the same signal (exit status 128 + its number in a
 * shell), with no output written.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "arena.h"
#include "compare.h"
#include "diag.h"
#include "tool_io.h"
#include "export.h"
#include "onnx_read.h"
#include "ort_dl.h"
#include "outfile.h"
#include "report.h"
#include "pt2.h"
#include "version.h"
#include "zip.h"

/* ---- signals: the stages are ours ------------------------------------- */

static volatile sig_atomic_t caught; /* the first fatal signal, or 0 */
static volatile pid_t group;         /* the running stages' group, or 0 */

static const int fatal_sigs[] = { SIGTERM, SIGINT, SIGHUP, SIGQUIT };
#define NFATAL ((int)(sizeof(fatal_sigs) / sizeof(fatal_sigs[0])))

static void on_signal(int sig)
{
	if (!caught)
		caught = sig;
	if (group > 0)
		kill(-group, sig);
}

/* Catches the fatal signals that are not ignored (a signal ignored by
 * whoever started us, nohup's SIGHUP, stays ignored, for us and the
 * stages). */
static void catch_signals(void)
{
	for (int i = 0; i < NFATAL; i++) {
		struct sigaction old, sa;
		if (sigaction(fatal_sigs[i], NULL, &old) != 0 ||
		    old.sa_handler == SIG_IGN)
			continue;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_signal; /* no SA_RESTART: waits return */
		sigemptyset(&sa.sa_mask);
		sigaction(fatal_sigs[i], &sa, NULL);
	}
}

static void block_signals(sigset_t *old)
{
	sigset_t set;
	sigemptyset(&set);
	for (int i = 0; i < NFATAL; i++)
		sigaddset(&set, fatal_sigs[i]);
	sigprocmask(SIG_BLOCK, &set, old);
}

/* Dies of the signal caught, as if we had not caught it. */
static void die_of_caught(void)
{
	int sig = caught;
	signal(sig, SIG_DFL);
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
	_exit(128 + sig);
}

static int remove_one(const char *path, const struct stat *sb, int flag,
		      struct FTW *ftw)
{
	(void)sb; (void)ftw;
	if (flag == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

/* Removes our temporary directory and whatever is in it. */
static void remove_tmpdir(const char *dir)
{
	nftw(dir, remove_one, 8, FTW_DEPTH | FTW_PHYS);
}

/* The temporary directory, for an exit through die() after it was made. */
static char tmpdir_at_exit[PATH_MAX];

static void remove_tmpdir_at_exit(void)
{
	if (*tmpdir_at_exit)
		remove_tmpdir(tmpdir_at_exit);
}

/* Whether path names something that is written through rather than
 * replaced: standard output, a device, a FIFO. */
static int written_through(const char *path)
{
	struct stat st;
	return !strcmp(path, "-") ||
	       (stat(path, &st) == 0 && !S_ISREG(st.st_mode) &&
		!S_ISDIR(st.st_mode));
}

/* Puts the checked file `from` (in our temporary directory) at `to`: a
 * rename when both are on one file system, else a copy that appears whole
 * (outfile.h: a temporary beside `to`, renamed), or written through to
 * standard output, a device or a FIFO; with --fsync, the directory that
 * names it is synced after.  A signal caught meanwhile abandons it.
 * Returns 0, or an exit status after reporting. */
static int publish(struct diag *d, const char *from, const char *to)
{
	char buf[1 << 16];
	struct outfile o;
	ssize_t n = 0;

	if (!written_through(to) && rename(from, to) == 0) {
		/* --fsync: the name as durable as the bytes emit synced */
		if (outfile_sync_dir(to, d)) {
			unlink(to);
			return EXIT_IO;
		}
		return 0;
	}
	int in = open(from, O_RDONLY);
	if (in < 0) {
		diag_error(d, "cannot read '%s': %s", from, strerror(errno));
		return EXIT_IO;
	}
	if (outfile_open(&o, to, d)) {
		close(in);
		return EXIT_IO;
	}
	while (!caught && (n = read(in, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			diag_error(d, "cannot read '%s': %s", from,
				   strerror(errno));
			break;
		}
		if (outfile_write(&o, buf, (size_t)n, d))
			break;
	}
	close(in);
	if (caught || n != 0) {
		outfile_abort(&o);
		return EXIT_IO;
	}
	return outfile_commit(&o, d) ? EXIT_IO : EXIT_OK;
}

#define MAX_ARGS 256

struct argv_buf {
	const char *v[MAX_ARGS];
	int n;
};

static void push(struct diag *d, struct argv_buf *a, const char *s)
{
	if (a->n >= MAX_ARGS - 1)
		die(d, EXIT_USAGE, "too many arguments");
	a->v[a->n++] = s;
	a->v[a->n] = NULL;
}

static const char export_usage[] =
"usage: pt2onnx MODEL.pt -o MODEL.onnx [OPTIONS]\n"
"\n"
"Exports a TorchScript archive (torch.jit.save) to ONNX in one command:\n"
"script (or trace) | lower | fold | emit, then check.  The options follow\n"
"torch.onnx.export's.  A torch.export archive (torch.export.save's .pt2)\n"
"is read by the unpt2 stage instead, picked by looking at the archive:\n"
"it has the input shapes, so --input is not needed there (and ignored);\n"
"--input-names, --output-names and --dynamic-axes still apply.\n"
"\n"
"  -o, --output FILE                 the .onnx to write (required; '-' is\n"
"                                    standard output)\n"
"      --script                      read the archive's code, control flow\n"
"                                    kept (the default)\n"
"      --trace                       run the model once and record what ran\n"
"      --device DEV                  with --trace: cuda, cpu or auto\n"
"      --seed N                      with --trace: seed of random inputs\n"
"      --model NAME                  a .pt2 holding several programs: the\n"
"                                    one to export (models/NAME.json)\n"
"  -i, --input SPEC                  an input: x=f32[batch,3,224,224],\n"
"                                    f32[1,3,224,224] (positional) or a .npy\n"
"                                    file (repeatable; as torch's args);\n"
"                                    a tuple hx=(f32[1,2,3],h.npy), a list\n"
"                                    xs=[A,B], n=3, f=0.5, b=true, y=none\n"
"      --opset-version N             ONNX opset, "
	PT2ONNX_STR(PT2ONNX_OPSET_MIN) " to " PT2ONNX_STR(PT2ONNX_OPSET_MAX)
	" (default " PT2ONNX_STR(PT2ONNX_OPSET_DEFAULT) ", as torch 1.13)\n"
"      --input-names LIST            a,b or '[\"a\", \"b\"]'\n"
"      --output-names LIST\n"
"      --dynamic-axes SPEC           'x:0=batch;y:0=batch', 'x:0,2' or\n"
"                                    torch's dict '{\"x\": {0: \"batch\"}}'\n"
"      --do-constant-folding[=BOOL]  fold constants (default true; false\n"
"                                    keeps fold's other passes, as torch)\n"
"      --export-params[=BOOL]        weights in the model (default true)\n"
"      --keep-initializers-as-inputs[=BOOL]\n"
"      --operator-export-type TYPE   onnx, onnx_aten, onnx_aten_fallback,\n"
"                                    onnx_fallthrough (default onnx)\n"
"      --custom-opsets DOMAIN=VER    (repeatable)\n"
"      --custom-symbolic FILE.so     custom symbolics from a plugin, which\n"
"                                    override the built-in ones (as torch's\n"
"                                    register_custom_op_symbolic; `lower\n"
"                                    --plugin`, docs/plugins.md; repeatable)\n"
"      --training MODE               eval, train or preserve (default eval)\n"
"      --external-data[=FILE]        weights in a side file\n"
"      --fsync                       the model (and side file) on disk\n"
"                                    before it appears under its name, as\n"
"                                    `emit --fsync` (default: written like\n"
"                                    cp or torch, flushed by the kernel)\n"
"      --export-modules-as-functions[=BOOL|TYPES]\n"
"                                    TYPES ('Block,Layer', or\n"
"                                    'pkg.mod.Block' for domain pkg.mod):\n"
"                                    each instance of those module types an\n"
"                                    ONNX local function (opset 15+); true:\n"
"                                    every module type, the root's\n"
"                                    included, nested as torch's\n"
"      --strip-doc-string[=BOOL]     no doc strings (the source lines) in\n"
"                                    the model; default true, false with\n"
"                                    --verbose, as torch 1.13\n"
"      --verify[=BOOL]               run the model in ONNX Runtime and\n"
"                                    compare its outputs with trace's on\n"
"                                    the same inputs (below)\n"
"      --report[=FILE|BOOL]          a markdown report: the ops seen, the\n"
"                                    failures with their scopes, time and\n"
"                                    peak memory per stage (written also\n"
"                                    when the export fails); without FILE\n"
"                                    in the artifacts directory, named as\n"
"                                    torch 2.x's: onnx_export_TIME_STATUS.md\n"
"      --dump-exported-program[=BOOL]\n"
"                                    the program as pt2onnx read it (the\n"
"                                    front stage's graph as text IR,\n"
"                                    weights as their size) in the artifacts\n"
"                                    directory: onnx_export_TIME_program.txt\n"
"      --artifacts-dir DIR           where those go (default '.'; made\n"
"                                    when missing)\n"
"      --profile[=BOOL]              time and peak memory per stage on\n"
"                                    standard error\n"
"  -v, --verbose[=BOOL]              print the exported graph (text IR,\n"
"                                    weights as their size) to standard\n"
"                                    error\n"
"  -h, --help\n"
"\n"
"--verify loads libonnxruntime.so.1 with dlopen ($PT2ONNX_ORT_LIB if set,\n"
"else the library path) and feeds the model the inputs trace ran on (the\n"
"--input .npy files, or random ones of the given shapes, --seed; on the\n"
"script path trace runs the archive for the reference outputs); each\n"
"output must be within rtol 1e-3, atol 1e-7 of trace's (torch's\n"
"verification).  The model is written either way; the exit status is 1\n"
"when it does not match or ONNX Runtime cannot run it, 4 when ONNX\n"
"Runtime is not installed.\n"
"\n"
"On a terminal, an export that takes more than 2 s shows its progress on\n"
"standard error, and a finished one a summary line (output, opset,\n"
"nodes, weights, time), as it does with --verbose; otherwise pt2onnx\n"
"prints nothing on success, as torch.\n"
"\n"
"torch's spellings work too: --opset_version for --opset-version (each\n"
"option's underscore twin), and BOOL is True, False, true, false, 1 or 0,\n"
"given as --opt=BOOL or --opt BOOL.\n"
"\n"
"Exit status: that of the stage that failed first (see README.md), 1 when\n"
"the model fails the check; no output is written then, and an existing\n"
"file of that name is kept.  SIGTERM, SIGINT, SIGHUP and SIGQUIT stop\n"
"every stage, remove the temporary files and end pt2onnx by the same\n"
"signal (status 128 + its number).\n";

void export_help(FILE *fp)
{
	fputs(export_usage, fp);
}

static int parse_bool(struct diag *d, const char *opt, const char *v)
{
	if (!v || !strcmp(v, "true") || !strcmp(v, "True") || !strcmp(v, "1"))
		return 1;
	if (!strcmp(v, "false") || !strcmp(v, "False") || !strcmp(v, "0"))
		return 0;
	die(d, EXIT_USAGE, "--%s: '%s' is not true or false", opt, v);
}

struct stage {
	const char *name;
	struct argv_buf args;
	const char *cwd;  /* where it runs, or NULL: here */
	int out_to_err;   /* its standard output goes to its capture too */
	pid_t pid;
	int err_fd;       /* read end of its stderr capture (a temp file) */
	int status;       /* exit status, or 128 + the signal that ended it */
	int reaped;
	double t0, t1;    /* started, ended (now()) */
	struct rusage ru; /* its own, from wait4 */
};

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- progress on a terminal ------------------------------------------- */

/* Shown on standard error, when it is a terminal, once the export has run
 * PROGRESS_AFTER seconds: the stages still running and how much of the
 * weights emit has written (the model file growing in our temporary
 * directory, against the front stage's weights). */
#define PROGRESS_AFTER 2.0

static struct {
	int on;
	int shown;
	double start;
	const char *dir;   /* our temporary directory */
	const char *base;  /* the model's name in it */
	uint64_t total;    /* the front stage's weight bytes, 0: unknown */
} prog;

/* Bytes of the model emit is writing: BASE, or outfile's .BASE.XXXXXX. */
static uint64_t bytes_written(void)
{
	DIR *dir = opendir(prog.dir);
	struct dirent *e;
	uint64_t sum = 0;
	size_t bl = strlen(prog.base);

	if (!dir)
		return 0;
	while ((e = readdir(dir))) {
		const char *n = e->d_name;
		if (strcmp(n, prog.base) &&
		    !(n[0] == '.' && !strncmp(n + 1, prog.base, bl) &&
		      n[bl + 1] == '.'))
			continue;
		char path[PATH_MAX + 512];
		struct stat st;
		snprintf(path, sizeof(path), "%s/%s", prog.dir, n);
		if (stat(path, &st) == 0)
			sum += (uint64_t)st.st_size;
	}
	closedir(dir);
	return sum;
}

static void progress_tick(const struct stage *st, int n)
{
	double t = now() - prog.start;
	char line[256];
	size_t k = 0;

	if (!prog.on || t < PROGRESS_AFTER)
		return;
	k += (size_t)snprintf(line, sizeof(line), "pt2onnx: %.0f s:", t);
	for (int i = 0; i < n && k < sizeof(line); i++)
		if (st[i].pid && !st[i].reaped)
			k += (size_t)snprintf(line + k, sizeof(line) - k,
					      " %s", st[i].name);
	uint64_t w = bytes_written();
	if (k < sizeof(line) && prog.total && w)
		snprintf(line + k, sizeof(line) - k, ", weights %d%% written",
			 w >= prog.total ? 100 : (int)(100 * w / prog.total));
	else if (k < sizeof(line) && w)
		snprintf(line + k, sizeof(line) - k, ", %.1f MB written",
			 (double)w / 1e6);
	fprintf(stderr, "\r\033[K%s", line);
	fflush(stderr);
	prog.shown = 1;
}

/* Clears the progress line before anything else is printed. */
static void progress_clear(void)
{
	if (prog.shown)
		fputs("\r\033[K", stderr);
	prog.shown = 0;
}

/* Starts stage i of n reading from `in` (or our stdin when -1) and writing
 * to `out` (or our stdout when -1), in the stages' process group.  Runs
 * with the fatal signals blocked (`old` is the mask to restore in it). */
static void start_stage(struct diag *d, struct stage *s, int in, int out,
			int other, const sigset_t *old)
{
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid < 0)
		die(d, EXIT_IO, "fork: %s", strerror(errno));
	if (pid == 0) {
		setpgid(0, group);
		/* if the wrapper is killed outright, the stages go too */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != parent)
			_exit(128 + SIGTERM);
		for (int i = 0; i < NFATAL; i++) {
			struct sigaction sa;
			if (sigaction(fatal_sigs[i], NULL, &sa) == 0 &&
			    sa.sa_handler == on_signal)
				signal(fatal_sigs[i], SIG_DFL);
		}
		sigprocmask(SIG_SETMASK, old, NULL);
		if (in >= 0) {
			dup2(in, 0);
			close(in);
		}
		if (out >= 0) {
			dup2(out, 1);
			close(out);
		}
		if (other >= 0)
			close(other);
		if (s->out_to_err)
			dup2(s->err_fd, 1);
		dup2(s->err_fd, 2);
		close(s->err_fd);
		if (s->cwd && chdir(s->cwd) != 0) {
			fprintf(stderr, "pt2onnx: cannot enter '%s': %s\n",
				s->cwd, strerror(errno));
			_exit(EXIT_IO);
		}
		execv(s->args.v[0], (char *const *)s->args.v);
		fprintf(stderr, "pt2onnx: cannot run '%s': %s\n",
			s->args.v[0], strerror(errno));
		_exit(EXIT_IO);
	}
	/* both sides set the group, so that it exists before either goes on */
	setpgid(pid, group ? group : pid);
	if (!group)
		group = pid;
	s->pid = pid;
}

/* The stage whose failure made the others fail: the first one in pipe
 * order that failed, passing over one killed by SIGPIPE when a later stage
 * failed (it only lost its reader: `--opset-version 99` ends lower while
 * script still writes).  The stages after a failure fail on the truncated
 * stream, so the earliest real failure is the cause.  -1 when none did. */
static int first_failure(const struct stage *st, int n)
{
	int last = -1;
	for (int i = 0; i < n; i++)
		if (st[i].status)
			last = i;
	for (int i = 0; i < n; i++) {
		if (!st[i].status)
			continue;
		if (st[i].status == 128 + SIGPIPE && i < last)
			continue;
		return i;
	}
	return -1;
}

/* Runs the stages as a pipeline and waits for all of them; returns the
 * index of the stage that failed first (first_failure), or -1.  The first
 * reads in_file (NULL: nothing), the last writes to out_file (NULL: its
 * capture).  When a fatal signal has been caught (before or meanwhile),
 * it has been passed on to every stage; the caller checks `caught`. */
static int run_pipeline(struct diag *d, struct stage *st, int n,
			const char *in_file, const char *out_file)
{
	sigset_t old;
	int prev = -1, last_out = -1;

	for (int i = 0; i < n; i++) {
		char tmpl[] = "/tmp/pt2onnx-stderr-XXXXXX";
		int efd = mkstemp(tmpl);
		if (efd < 0)
			die(d, EXIT_IO, "cannot create a temporary file: %s",
			    strerror(errno));
		unlink(tmpl);
		st[i].err_fd = efd;
		st[i].pid = 0;
		st[i].status = 0;
		st[i].reaped = 0;
		memset(&st[i].ru, 0, sizeof(st[i].ru));
		st[i].t0 = st[i].t1 = 0;
	}
	/* the stages are not in the terminal's foreground group: they must
	 * not touch it (SIGTTIN, SIGTTOU would stop them), so the first reads
	 * nothing and the last one's output is collected with its messages */
	prev = open(in_file ? in_file : "/dev/null", O_RDONLY | O_CLOEXEC);
	if (prev < 0)
		die(d, EXIT_IO, "cannot open '%s': %s",
		    in_file ? in_file : "/dev/null", strerror(errno));
	if (out_file) {
		last_out = open(out_file, O_WRONLY | O_CREAT | O_TRUNC |
				O_CLOEXEC, 0600);
		if (last_out < 0)
			die(d, EXIT_IO, "cannot create '%s': %s", out_file,
			    strerror(errno));
	} else {
		st[n - 1].out_to_err = 1;
	}
	block_signals(&old);
	group = 0;
	for (int i = 0; i < n && !caught; i++) {
		int pfd[2] = { -1, -1 };
		if (i < n - 1 && pipe(pfd) != 0)
			die(d, EXIT_IO, "pipe: %s", strerror(errno));
		if (i == n - 1)
			pfd[1] = last_out;
		st[i].t0 = now();
		start_stage(d, &st[i], prev, pfd[1], pfd[0], &old);
		if (prev >= 0)
			close(prev);
		if (pfd[1] >= 0)
			close(pfd[1]);
		prev = pfd[0];
	}
	if (prev >= 0)
		close(prev);
	sigprocmask(SIG_SETMASK, &old, NULL); /* a pending signal: now */
	if (caught && group > 0)
		kill(-group, caught);
	int left = 0;
	for (int i = 0; i < n; i++) {
		if (st[i].pid)
			left++;
		else
			st[i].status = 128 + (caught ? caught : SIGTERM);
	}
	/* reaped as they end, so that each one's time is its own */
	while (left > 0) {
		int status;
		struct rusage ru;
		pid_t pid = wait4(-group, &status, prog.on ? WNOHANG : 0, &ru);
		if (pid == 0) {
			struct timespec ts = { 0, 100 * 1000 * 1000 };
			progress_tick(st, n);
			nanosleep(&ts, NULL);
			continue;
		}
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			BUG("wait4: %s", strerror(errno));
		}
		for (int i = 0; i < n; i++) {
			if (st[i].pid != pid || st[i].reaped)
				continue;
			st[i].reaped = 1;
			st[i].t1 = now();
			st[i].ru = ru;
			st[i].status = WIFEXITED(status) ? WEXITSTATUS(status)
				     : 128 + WTERMSIG(status);
			left--;
		}
	}
	progress_clear();
	group = 0;
	return first_failure(st, n);
}

/* The whole of a stage's capture, malloc'd. */
static char *read_all(int fd)
{
	size_t cap = 4096, len = 0;
	char *buf = xmalloc(cap);
	ssize_t n;

	lseek(fd, 0, SEEK_SET);
	while ((n = read(fd, buf + len, cap - len - 1)) > 0) {
		len += (size_t)n;
		if (cap - len < 2) {
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
	}
	buf[len] = 0;
	return buf;
}

static void show_stderr(int fd)
{
	char buf[4096];
	ssize_t n;
	lseek(fd, 0, SEEK_SET);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		if (fwrite(buf, 1, (size_t)n, stderr) != (size_t)n)
			break;
}

/* The stage paths came from find() (malloc'd). */
static void free_paths(struct stage *st, int n, const char *check)
{
	for (int i = 0; i < n; i++)
		free((char *)st[i].args.v[0]);
	free((char *)check);
}

/* The options that take a boolean (torch's Python booleans). */
static int is_bool_option(const char *name, size_t len)
{
	static const char *const names[] = {
		"do-constant-folding", "export-params",
		"keep-initializers-as-inputs", "export-modules-as-functions",
		"verbose", "verify", "profile", "strip-doc-string",
		"report", "dump-exported-program",
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i]) == len && !memcmp(names[i], name, len))
			return 1;
	return 0;
}

static int ends_with(const char *s, const char *end)
{
	size_t n = strlen(s), k = strlen(end);
	return n >= k && !strcmp(s + n - k, end);
}

static int is_bool_word(const char *s)
{
	static const char *const words[] = { "True", "False", "true", "false",
					     "1", "0" };
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (!strcmp(s, words[i]))
			return 1;
	return 0;
}

/* torch's spellings, rewritten in argv before getopt sees it: every long
 * option's underscore twin (--opset_version for --opset-version), and a
 * boolean given as its own word (--do-constant-folding False), which
 * becomes --do-constant-folding=False.  Stops at "--"; skips the value of
 * an option that takes one.  Returns the new argc (strings made here live
 * as long as the process). */
static int torch_spellings(int argc, char **argv, const struct option *opts)
{
	for (int i = 1; i < argc; i++) {
		char *a = argv[i];
		if (!strcmp(a, "--"))
			break;
		if ((!strcmp(a, "-o") || !strcmp(a, "-i")) && i + 1 < argc) {
			i++;
			continue;
		}
		if (strncmp(a, "--", 2) || !a[2])
			continue;
		size_t len = strcspn(a + 2, "=");
		char *made = NULL; /* a's copy, when made here */
		if (memchr(a + 2, '_', len)) {
			a = argv[i] = made = xstrdup(a);
			for (size_t k = 2; k < len + 2; k++)
				if (a[k] == '_')
					a[k] = '-';
		}
		int has_value = a[2 + len] == '=';
		const struct option *o = opts;
		while (o->name && (strlen(o->name) != len ||
				   memcmp(o->name, a + 2, len)))
			o++;
		if (!o->name || has_value)
			continue;
		if (o->has_arg == required_argument) {
			i++;
		} else if (is_bool_option(a + 2, len) && i + 1 < argc &&
			   is_bool_word(argv[i + 1])) {
			size_t n = strlen(a) + strlen(argv[i + 1]) + 2;
			char *joined = xmalloc(n);
			snprintf(joined, n, "%s=%s", a, argv[i + 1]);
			argv[i] = joined;
			free(made);
			memmove(argv + i + 1, argv + i + 2,
				(size_t)(argc - i - 1) * sizeof(*argv));
			argc--;
		}
	}
	return argc;
}

/* Where the export is made: our temporary directory, the model in it
 * under the output's own name (so that emit's default external data name,
 * MODEL.data, is the final one), fold's data file beside it. */
struct outplan {
	char tmpdir[PATH_MAX];
	char made[PATH_MAX + 256];     /* the model emit writes */
	char datafile[PATH_MAX + 16];  /* fold's computed weights */
	char location[PATH_MAX];       /* the side file, relative to both */
	char side_to[2 * PATH_MAX];    /* where the side file goes */
};

/* Makes the temporary directory and plans the names.  external: NULL (no
 * side file asked for; emit may still make one over 2 GB), "" (the default
 * name) or the name asked for.  Returns 0 or an exit status (reported). */
static int plan_output(struct diag *d, struct outplan *p, const char *output,
		       const char *external)
{
	struct stat ost;
	const char *tdir = getenv("TMPDIR");
	int through = written_through(output);

	memset(p, 0, sizeof(*p));
	if (through && external)
		die(d, EXIT_USAGE, "--external-data needs a regular file as "
		    "output, not '%s'", output);
	if (!through && stat(output, &ost) == 0 && S_ISDIR(ost.st_mode))
		die(d, EXIT_IO, "cannot write '%s': %s", output,
		    strerror(EISDIR));
	const char *slash = strrchr(output, '/');
	const char *base = through ? "model.onnx" : slash ? slash + 1 : output;
	int dirlen = slash ? (int)(slash - output + 1) : 0;
	/* the temporary directory is beside the output, so that the model
	 * (gigabytes, maybe) is renamed into place, never copied from another
	 * file system (a /tmp in memory, say); $TMPDIR only for what is
	 * written through */
	char tmpl[PATH_MAX + 32], dir[PATH_MAX];
	if (!through) {
		snprintf(dir, sizeof(dir), "%.*s", dirlen, output);
		tdir = dirlen ? dir : ".";
		if (access(tdir, W_OK) != 0)
			die(d, EXIT_IO, "cannot write '%s': %s", output,
			    strerror(errno));
		snprintf(tmpl, sizeof(tmpl), "%s.pt2onnx-XXXXXX", dir);
	} else {
		if (!tdir || !*tdir)
			tdir = "/tmp";
		snprintf(tmpl, sizeof(tmpl), "%s/pt2onnx-XXXXXX", tdir);
	}
	if (!mkdtemp(tmpl))
		die(d, EXIT_IO, "cannot create a temporary directory in "
		    "'%s': %s", tdir, strerror(errno));
	/* absolute: fold writes it into the stream for emit to read */
	if (!realpath(tmpl, p->tmpdir)) {
		rmdir(tmpl);
		die(d, EXIT_IO, "cannot create a temporary directory in "
		    "'%s': %s", tdir, strerror(errno));
	}
	snprintf(tmpdir_at_exit, sizeof(tmpdir_at_exit), "%s", p->tmpdir);
	atexit(remove_tmpdir_at_exit);
	snprintf(p->made, sizeof(p->made), "%s/%s", p->tmpdir, base);
	snprintf(p->datafile, sizeof(p->datafile), "%s/.fold.data",
		 p->tmpdir);
	if (external && *external)
		snprintf(p->location, sizeof(p->location), "%s", external);
	else
		snprintf(p->location, sizeof(p->location), "%s.data", base);
	snprintf(p->side_to, sizeof(p->side_to), "%.*s%s", dirlen, output,
		 p->location);
	/* a side file in a subdirectory: emit needs the directory there */
	char sub[2 * PATH_MAX];
	for (char *q = strchr(p->location, '/'); q; q = strchr(q + 1, '/')) {
		snprintf(sub, sizeof(sub), "%s/%.*s", p->tmpdir,
			 (int)(q - p->location), p->location);
		if (!strstr(sub, "/../") && mkdir(sub, 0700) != 0 &&
		    errno != EEXIST)
			break; /* emit reports it */
	}
	return 0;
}

/* What one export is asked for and what it measured. */
struct export_run {
	struct stage *st;        /* the four stages */
	const char *check_path;
	const char *trace_path;  /* --verify on the script path: the
				    reference's trace */
	const struct outplan *p;
	const char *output, *model, *opset;
	int verbose, trace;
	int split;               /* the front stage writes front.ir first */
	int verify, profile, summary;
	const char *report;      /* --report FILE, or NULL */
	int report_auto;         /* --report alone: named in artifacts */
	int dump;                /* --dump-exported-program */
	const char *artifacts;   /* --artifacts-dir (default ".") */
	char stamp[64];          /* torch 2.x's artifact time stamp */
	const struct argv_buf *front, *dynx; /* --input, --dynamic-axes */
	const struct argv_buf *tracex;       /* --device, --seed */
	char front_ir[PATH_MAX + 16];
	char verify_dir[PATH_MAX + 16];
	double start;
	struct stage_stat stats[8];
	int nstats;
	int failed;              /* index in stats, or -1 */
	char *fail_messages;
	struct ir_graph *front_g; /* the front stage's graph (ops' kinds) */
	struct op_count *ops;
	int nops;
	int verify_child;        /* in verify_in_child's child */
	char *verify_text;       /* --verify's lines, for the report */
	size_t verify_len;
};

static void add_stats(struct export_run *x, const struct stage *st, int n,
		      int ran)
{
	for (int i = 0; i < n && x->nstats < 8; i++) {
		struct stage_stat *s = &x->stats[x->nstats++];
		s->name = st[i].name;
		s->status = ran && st[i].pid ? st[i].status : -1;
		s->wall_s = st[i].t1 > st[i].t0 ? st[i].t1 - st[i].t0 : 0;
		s->cpu_s = (double)st[i].ru.ru_utime.tv_sec +
			   (double)st[i].ru.ru_utime.tv_usec * 1e-6 +
			   (double)st[i].ru.ru_stime.tv_sec +
			   (double)st[i].ru.ru_stime.tv_usec * 1e-6;
		s->maxrss_kb = st[i].ru.ru_maxrss;
	}
}

/* Notes a stage's failure: its messages are kept for the report. */
static void note_failure(struct export_run *x, const struct stage *s)
{
	x->fail_messages = read_all(s->err_fd);
	for (int i = 0; i < x->nstats; i++)
		if (x->stats[i].name == s->name)
			x->failed = i;
}

/* A line of --verify's, to standard error and to the report. */
static void verify_say(struct export_run *x, int show, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void verify_say(struct export_run *x, int show, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (x->verify_child) { /* the parent shows and keeps it */
		fprintf(stderr, "%spt2onnx: %s\n", show ? "" : "\001", line);
		return;
	}
	if (show)
		fprintf(stderr, "pt2onnx: %s\n", line);
	size_t n = strlen(line);
	x->verify_text = xrealloc(x->verify_text, x->verify_len + n + 2);
	memcpy(x->verify_text + x->verify_len, line, n);
	x->verify_len += n;
	x->verify_text[x->verify_len++] = '\n';
	x->verify_text[x->verify_len] = 0;
}

/* The front stage's graph, for the report's ops and progress's total. */
static void read_front(struct export_run *x)
{
	struct diag quiet;
	diag_init(&quiet, "pt2onnx");
	quiet.quiet = 1;
	FILE *f = fopen(x->front_ir, "rb");
	if (!f)
		return;
	struct ir_source src = { f, x->front_ir };
	struct ir_graph *g = ir_read(&src, &quiet);
	fclose(f);
	if (!g)
		return;
	x->front_g = g; /* the kinds point into it */
	x->ops = report_count_ops(g, &x->nops);
	if (!x->ops)
		x->ops = xmalloc(sizeof(*x->ops)); /* none, but a graph */
	prog.total = report_weight_bytes(g);
}

static int stage_failed(struct export_run *x, struct stage *s)
{
	note_failure(x, s);
	show_stderr(s->err_fd);
	fprintf(stderr, "pt2onnx: the %s stage failed (exit %d); no model "
		"written\n", s->name, s->status);
	return s->status;
}

/* Runs verify_ort in a child process of its own: ONNX Runtime, a large
 * library that is not ours, then cannot take the wrapper down with it (a
 * crash is a failed verification), its threads and memory end with the
 * child, and its time and peak memory are measured as a stage's.  The
 * child's standard error comes back through a pipe: shown, and kept for
 * the report (a line marked VERIFY_QUIET only kept).  Its process group
 * is ours to signal, as the stages' are. */
#define VERIFY_QUIET '\001'
static int verify_ort(struct diag *d, struct export_run *x);

static int verify_in_child(struct diag *d, struct export_run *x)
{
	struct stage v;
	int pfd[2];
	sigset_t old;

	memset(&v, 0, sizeof(v));
	v.name = "verify";
	if (pipe(pfd) != 0)
		die(d, EXIT_IO, "pipe: %s", strerror(errno));
	fflush(stderr);
	block_signals(&old);
	pid_t parent = getpid();
	v.t0 = now();
	pid_t pid = fork();
	if (pid < 0)
		die(d, EXIT_IO, "fork: %s", strerror(errno));
	if (pid == 0) {
		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != parent)
			_exit(128 + SIGTERM);
		for (int i = 0; i < NFATAL; i++)
			signal(fatal_sigs[i], SIG_DFL);
		sigprocmask(SIG_SETMASK, &old, NULL);
		close(pfd[0]);
		dup2(pfd[1], 2);
		close(pfd[1]);
		x->verify_child = 1;
		int rc = verify_ort(d, x);
		fflush(stderr);
		_exit(rc); /* no atexit: ONNX Runtime's globals stay as they are */
	}
	setpgid(pid, pid);
	group = pid;
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (caught)
		kill(-pid, caught);
	close(pfd[1]);
	char buf[4096];
	ssize_t n;
	char *text = NULL;
	size_t len = 0;
	while ((n = read(pfd[0], buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		text = xrealloc(text, len + (size_t)n + 1);
		memcpy(text + len, buf, (size_t)n);
		len += (size_t)n;
		text[len] = 0;
	}
	close(pfd[0]);
	int status;
	while (wait4(pid, &status, 0, &v.ru) < 0)
		if (errno != EINTR)
			BUG("wait4: %s", strerror(errno));
	group = 0;
	v.t1 = now();
	v.pid = pid;
	v.status = WIFEXITED(status) ? WEXITSTATUS(status)
		 : 128 + WTERMSIG(status);
	add_stats(x, &v, 1, 1);
	for (char *p = text; p && *p;) {
		char *nl = strchr(p, '\n');
		size_t l = nl ? (size_t)(nl - p) : strlen(p);
		int quiet = *p == VERIFY_QUIET;
		if (!quiet)
			fprintf(stderr, "%.*s\n", (int)l, p);
		/* the report keeps --verify's lines without "pt2onnx: " */
		const char *q = p + quiet;
		size_t ql = l - (size_t)quiet;
		if (ql > 9 && !memcmp(q, "pt2onnx: ", 9)) {
			q += 9;
			ql -= 9;
		}
		x->verify_text = xrealloc(x->verify_text,
					  x->verify_len + ql + 2);
		memcpy(x->verify_text + x->verify_len, q, ql);
		x->verify_len += ql;
		x->verify_text[x->verify_len++] = '\n';
		x->verify_text[x->verify_len] = 0;
		p += l + (nl != NULL);
	}
	free(text);
	if (caught)
		return EXIT_IO;
	if (WIFSIGNALED(status)) {
		fprintf(stderr, "pt2onnx: --verify: ONNX Runtime died of "
			"signal %d; the model was written unverified\n",
			WTERMSIG(status));
		return EXIT_INVALID;
	}
	return v.status;
}

/* --verify: ONNX Runtime's outputs of the checked model against trace's
 * outputs of the archive on the same inputs (the trace stage wrote both
 * into verify_dir on the trace path; on the script path trace runs now).
 * Returns 0, EXIT_INVALID when they differ or ONNX Runtime cannot run the
 * model, EXIT_UNSUPPORTED when ONNX Runtime is not installed. */
static int verify_model(struct diag *d, struct export_run *x)
{
	if (!x->trace) {
		struct stage ref[1];
		memset(ref, 0, sizeof(ref));
		ref[0].name = "trace";
		push(d, &ref[0].args, x->trace_path);
		push(d, &ref[0].args, x->model);
		for (int i = 0; i < x->front->n; i++)
			push(d, &ref[0].args, x->front->v[i]);
		for (int i = 0; i < x->dynx->n; i++)
			push(d, &ref[0].args, x->dynx->v[i]);
		for (int i = 0; i < x->tracex->n; i++)
			push(d, &ref[0].args, x->tracex->v[i]);
		push(d, &ref[0].args, "--save-inputs");
		push(d, &ref[0].args, x->verify_dir);
		push(d, &ref[0].args, "--save-outputs");
		push(d, &ref[0].args, x->verify_dir);
		push(d, &ref[0].args, "-o");
		push(d, &ref[0].args, "/dev/null");
		int failed = run_pipeline(d, ref, 1, NULL, NULL);
		add_stats(x, ref, 1, 1);
		if (caught)
			return EXIT_IO;
		if (failed >= 0) {
			show_stderr(ref[0].err_fd);
			verify_say(x, 1, "--verify: the trace stage could not "
				   "compute the reference outputs (exit %d)",
				   ref[0].status);
			close(ref[0].err_fd);
			return EXIT_INVALID;
		}
		close(ref[0].err_fd);
	}
	return verify_in_child(d, x);
}

/* ONNX Runtime's run and the comparison, in the child verify_in_child
 * makes.  Returns its exit status. */
static int verify_ort(struct diag *d, struct export_run *x)
{
	struct npy_array in[64], *out = NULL;
	int nin = 0, nout = 0, rc = 0;
	char path[2 * PATH_MAX];
	for (; nin < 64; nin++) {
		snprintf(path, sizeof(path), "%s/in%d.npy", x->verify_dir, nin);
		if (access(path, F_OK) != 0)
			break;
		if (npy_load(path, &in[nin], d)) {
			rc = EXIT_INVALID;
			goto out;
		}
	}
	struct ort_rt *rt = ort_load(NULL, d);
	if (!rt) {
		verify_say(x, 1, "--verify: cannot verify without ONNX "
			   "Runtime; the model was written unverified");
		rc = EXIT_UNSUPPORTED;
		goto out;
	}
	if (ort_run_model(rt, x->p->made, in, nin, &out, &nout, d)) {
		verify_say(x, 1, "--verify: ONNX Runtime %s cannot run the "
			   "model", ort_version(rt));
		rc = EXIT_INVALID;
		goto unload;
	}
	int nbad = 0, nref = 0;
	for (;; nref++) {
		snprintf(path, sizeof(path), "%s/out%d.npy", x->verify_dir,
			 nref);
		if (access(path, F_OK) != 0)
			break;
		if (nref >= nout)
			continue;
		struct npy_array want;
		struct compare_result cr;
		if (npy_load(path, &want, d)) {
			nbad++;
			continue;
		}
		if (!compare_arrays(&out[nref], &want, COMPARE_RTOL,
				    COMPARE_ATOL, &cr)) {
			nbad++;
			verify_say(x, 1, "--verify: output %d: %s", nref,
				   cr.why);
		} else {
			verify_say(x, x->verbose, "--verify: output %d: %llu "
				   "elements match (largest difference %.3g)",
				   nref, (unsigned long long)cr.n, cr.max_abs);
		}
		npy_array_free(&want);
	}
	if (nref != nout) {
		nbad++;
		verify_say(x, 1, "--verify: the model has %d outputs, the "
			   "trace %d", nout, nref);
	}
	if (nbad) {
		verify_say(x, 1, "--verify: '%s' does not match the trace "
			   "(ONNX Runtime %s, rtol %g, atol %g); it was "
			   "written all the same", x->output, ort_version(rt),
			   COMPARE_RTOL, COMPARE_ATOL);
		rc = EXIT_INVALID;
	} else {
		verify_say(x, 1, "--verify: %d output%s match%s the trace "
			   "(ONNX Runtime %s, rtol %g, atol %g)", nout,
			   nout == 1 ? "" : "s", nout == 1 ? "es" : "",
			   ort_version(rt), COMPARE_RTOL, COMPARE_ATOL);
	}
	for (int i = 0; i < nout; i++)
		npy_array_free(&out[i]);
	free(out);
unload:
	ort_unload(rt);
out:
	for (int i = 0; i < nin; i++)
		npy_array_free(&in[i]);
	return rc;
}

/* The summary line (output, opset, nodes, weights, time) into buf, from
 * the model before it is published; "" when it cannot be read. */
static void summary(const struct export_run *x, char *buf, size_t size)
{
	struct diag quiet;
	Onnx__ModelProto *m = NULL;
	diag_init(&quiet, "pt2onnx");
	quiet.quiet = 1;
	*buf = 0;
	if (onnx_read_file(x->p->made, &m, &quiet) != ONNX_READ_OK || !m ||
	    !m->graph) {
		onnx_model_free(m);
		return;
	}
	long long opset = 0;
	for (size_t i = 0; i < m->n_opset_import; i++)
		if (!m->opset_import[i]->domain ||
		    !*m->opset_import[i]->domain)
			opset = m->opset_import[i]->version;
	snprintf(buf, size, "pt2onnx: wrote %s: opset %lld, %zu nodes, %zu "
		 "weights, %.1f s\n", x->output, opset, m->graph->n_node,
		m->graph->n_initializer, now() - x->start);
	onnx_model_free(m);
}

/* The artifacts directory's file onnx_export_STAMP_WORD (torch 2.x's
 * names) in path.  0, or -1 (reported) when it does not fit. */
static int artifact_path(struct diag *d, const struct export_run *x,
			 const char *word, char *path, size_t size)
{
	int n = snprintf(path, size, "%s/onnx_export_%s_%s", x->artifacts,
			 x->stamp, word);
	if (n < 0 || (size_t)n >= size) {
		diag_error(d, "--artifacts-dir '%s': path too long",
			   x->artifacts);
		return -1;
	}
	return 0;
}

/* torch 2.x's artifact time stamp: %Y-%m-%d_%H-%M-%S-%f, local time */
static void artifact_stamp(char *buf, size_t size)
{
	struct timespec ts;
	struct tm tm;
	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	size_t n = strftime(buf, size, "%Y-%m-%d_%H-%M-%S", &tm);
	snprintf(buf + n, size - n, "-%06ld", ts.tv_nsec / 1000);
}

/* --dump-exported-program: the front stage's graph as pt2onnx read it,
 * as text IR with weights as their size (torch 2.x saves its
 * ExportedProgram as onnx_export_TIME.pt2 at this point, before the
 * conversion, which may then fail).  0, or -1 (reported). */
static int dump_program(struct diag *d, struct export_run *x)
{
	char path[PATH_MAX];
	char *buf = NULL;
	size_t len = 0;
	if (!x->front_g) {
		diag_error(d, "--dump-exported-program: cannot read the %s "
			   "stage's graph back", x->st[0].name);
		return -1;
	}
	if (artifact_path(d, x, "program.txt", path, sizeof(path)))
		return -1;
	FILE *mem = open_memstream(&buf, &len);
	if (!mem)
		die(d, EXIT_IO, "out of memory");
	int bad = ir_write_text_as(x->front_g, mem, 1, d);
	fclose(mem);
	if (!bad)
		bad = tool_write_buf(path, buf, len, d);
	free(buf);
	if (!bad && x->verbose)
		fprintf(stderr, "pt2onnx: the program read is in '%s'\n", path);
	return bad ? -1 : 0;
}

/* torch 2.x's report name's last word: the step that failed first
 * (pt_export: capturing the program, here the front stage; conversion;
 * checker; runtime or accuracy: --verify), or success. */
static const char *report_status(const struct export_run *x, int rc)
{
	if (x->failed >= 0) {
		const char *name = x->stats[x->failed].name;
		return !strcmp(name, x->st[0].name) ? "pt_export"
		     : !strcmp(name, "check") ? "checker" : "conversion";
	}
	if (!rc)
		return "success";
	if (x->verify && x->verify_text)
		return strstr(x->verify_text, "does not match the trace")
			? "accuracy" : "runtime";
	return "conversion";
}

/* Runs the pipeline, checks the model and puts it in place.  Returns the
 * exit status; on a caught signal the caller dies of it. */
static int run_export(struct diag *d, struct export_run *x)
{
	struct stage *st = x->st;
	const struct outplan *p = x->p;
	int failed;

	catch_signals();
	signal(SIGPIPE, SIG_DFL); /* the stages' writes to a closed pipe */
	if (x->split) {
		/* the front stage alone, its graph kept: the report's ops,
		 * progress's weights, each stage's own time */
		failed = run_pipeline(d, st, 1, NULL, x->front_ir);
		add_stats(x, st, 1, 1);
		if (caught)
			return EXIT_IO;
		if (failed >= 0) {
			add_stats(x, st + 1, 3, 0);
			return stage_failed(x, &st[0]);
		}
		read_front(x);
		if (x->dump && dump_program(d, x))
			return EXIT_IO;
		failed = run_pipeline(d, st + 1, 3, x->front_ir, NULL);
		add_stats(x, st + 1, 3, 1);
		if (failed >= 0)
			failed++;
	} else {
		failed = run_pipeline(d, st, 4, NULL, NULL);
		add_stats(x, st, 4, 1);
	}
	if (caught)
		return EXIT_IO;
	if (failed >= 0)
		return stage_failed(x, &st[failed]);
	for (int i = 0; i < 4; i++) {
		show_stderr(st[i].err_fd); /* warnings */
		close(st[i].err_fd);
	}

	/* the result must pass the checker, as torch.onnx.export's does; it
	 * runs where the model is, so that its messages name the output */
	struct stage chk[1];
	memset(chk, 0, sizeof(chk));
	chk[0].name = "check";
	chk[0].cwd = p->tmpdir;
	/* its --print goes to stderr with the rest (run_pipeline) */
	push(d, &chk[0].args, x->check_path);
	if (x->verbose) {
		push(d, &chk[0].args, "--print");
		push(d, &chk[0].args, "--weight-summary");
	} else {
		push(d, &chk[0].args, "-q");
	}
	push(d, &chk[0].args, strrchr(p->made, '/') + 1);
	failed = run_pipeline(d, chk, 1, NULL, NULL);
	add_stats(x, chk, 1, 1);
	if (caught)
		return EXIT_IO;
	if (failed >= 0) {
		note_failure(x, &chk[0]);
		show_stderr(chk[0].err_fd);
		fprintf(stderr, "pt2onnx: '%s' failed the ONNX check; not "
			"written\n", x->output);
		return EXIT_INVALID;
	}
	if (x->verbose)
		show_stderr(chk[0].err_fd);
	close(chk[0].err_fd);
	/* verified before it is published (-o - leaves nothing to run), but
	 * published whatever the outcome: the export itself succeeded, as
	 * torch.onnx.export(verify=True) leaves the model it wrote */
	int vrc = x->verify ? verify_model(d, x) : 0;
	if (caught)
		return EXIT_IO;
	char line[PATH_MAX + 128] = "";
	if (x->summary && !vrc)
		summary(x, line, sizeof(line));
	/* the stages are done: a reader of -o - that goes away is a write
	 * error (exit 5, temporaries removed), not death by SIGPIPE */
	signal(SIGPIPE, SIG_IGN);
	char side[2 * PATH_MAX];
	snprintf(side, sizeof(side), "%s/%s", p->tmpdir, p->location);
	int rc = 0;
	if (access(side, F_OK) == 0)
		rc = publish(d, side, p->side_to);
	if (!rc)
		rc = publish(d, p->made, x->output);
	if (!rc)
		fputs(line, stderr);
	return rc ? rc : vrc;
}

/* --report and --profile, whatever the outcome.  0, or -1 when the
 * report could not be written (reported). */
static int write_reports(struct diag *d, struct export_run *x, int rc)
{
	double total = now() - x->start;
	if (x->profile)
		profile_write(stderr, x->stats, x->nstats, total);
	char path[PATH_MAX];
	const char *to = x->report;
	if (x->report_auto) {
		char word[32];
		snprintf(word, sizeof(word), "%s.md", report_status(x, rc));
		if (artifact_path(d, x, word, path, sizeof(path)))
			return -1;
		to = path;
	}
	if (!to)
		return 0;
	struct report r = {
		.model = x->model, .output = x->output,
		.front = x->st[0].name, .opset = x->opset,
		.stats = x->stats, .nstats = x->nstats,
		.ops = x->ops, .nops = x->nops, .failed = x->failed,
		.fail_messages = x->fail_messages,
		.verify = x->verify ? (x->verify_text ? x->verify_text : "")
				    : NULL,
		.rc = rc, .total_s = total,
	};
	for (int i = 0; i < x->nstats; i++)
		if (x->stats[i].maxrss_kb > r.peak_kb)
			r.peak_kb = x->stats[i].maxrss_kb;
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	if (!mem)
		die(d, EXIT_IO, "out of memory");
	report_write(mem, &r);
	fclose(mem);
	int err = tool_write_buf(to, buf, len, d);
	free(buf);
	if (!err && x->report_auto && x->verbose)
		fprintf(stderr, "pt2onnx: the report is in '%s'\n", to);
	return err;
}

int export_main(int argc, char **argv, const char *(*find)(const char *))
{
	struct diag d;
	struct stage st[4];
	const char *output = NULL, *opx = NULL, *training = NULL;
	int trace = 0, fold = 1, verbose = 0, pt2 = 0;
	const char *pt2_model = NULL;
	int export_params = 1, keep_inits = 0;
	struct argv_buf front = { { 0 }, 0 }, emitx = { { 0 }, 0 };
	struct argv_buf dynx = { { 0 }, 0 }, tracex = { { 0 }, 0 };
	struct argv_buf lowerx = { { 0 }, 0 };
	const char *external = NULL, *opset = PT2ONNX_STR(PT2ONNX_OPSET_DEFAULT);
	int want_external = 0;
	int verify = 0, profile = 0, strip = -1; /* -1: not given */
	const char *report = NULL, *artifacts = ".";
	int report_auto = 0, dump = 0;
	const char *functions = NULL; /* export_modules_as_functions types */

	enum {
		OPT_SCRIPT = 256, OPT_TRACE, OPT_OPSET, OPT_IN_NAMES,
		OPT_OUT_NAMES, OPT_DYN, OPT_FOLD, OPT_PARAMS, OPT_KEEP,
		OPT_OPX, OPT_CUSTOM, OPT_TRAINING, OPT_EXTERNAL, OPT_FUNCS,
		OPT_DEVICE, OPT_SEED, OPT_MODEL, OPT_REPORT, OPT_PROFILE,
		OPT_VERIFY, OPT_STRIP, OPT_SYMBOLIC, OPT_DUMP, OPT_ARTIFACTS,
		OPT_FSYNC,
	};
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "script", no_argument, NULL, OPT_SCRIPT },
		{ "trace", no_argument, NULL, OPT_TRACE },
		{ "input", required_argument, NULL, 'i' },
		{ "opset-version", required_argument, NULL, OPT_OPSET },
		{ "input-names", required_argument, NULL, OPT_IN_NAMES },
		{ "output-names", required_argument, NULL, OPT_OUT_NAMES },
		{ "dynamic-axes", required_argument, NULL, OPT_DYN },
		{ "do-constant-folding", optional_argument, NULL, OPT_FOLD },
		{ "export-params", optional_argument, NULL, OPT_PARAMS },
		{ "keep-initializers-as-inputs", optional_argument, NULL,
		  OPT_KEEP },
		{ "operator-export-type", required_argument, NULL, OPT_OPX },
		{ "custom-opsets", required_argument, NULL, OPT_CUSTOM },
		{ "custom-symbolic", required_argument, NULL, OPT_SYMBOLIC },
		{ "training", required_argument, NULL, OPT_TRAINING },
		{ "external-data", optional_argument, NULL, OPT_EXTERNAL },
		{ "fsync", no_argument, NULL, OPT_FSYNC },
		{ "export-modules-as-functions", optional_argument, NULL,
		  OPT_FUNCS },
		{ "device", required_argument, NULL, OPT_DEVICE },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "model", required_argument, NULL, OPT_MODEL },
		{ "report", optional_argument, NULL, OPT_REPORT },
		{ "dump-exported-program", optional_argument, NULL, OPT_DUMP },
		{ "artifacts-dir", required_argument, NULL, OPT_ARTIFACTS },
		{ "profile", optional_argument, NULL, OPT_PROFILE },
		{ "verify", optional_argument, NULL, OPT_VERIFY },
		{ "strip-doc-string", optional_argument, NULL, OPT_STRIP },
		{ "verbose", optional_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};

	diag_init(&d, "pt2onnx");
	argc = torch_spellings(argc, argv, opts);
	for (;;) {
		int c = getopt_long(argc, argv, "o:i:vh", opts, NULL);
		if (c == -1)
			break;
		switch (c) {
		case 'o': output = optarg; break;
		case OPT_SCRIPT: trace = 0; break;
		case OPT_TRACE: trace = 1; break;
		case 'i': push(&d, &front, "--input"); push(&d, &front, optarg);
			  break;
		case OPT_OPSET: opset = optarg; break;
		case OPT_IN_NAMES: push(&d, &emitx, "--input-names");
				   push(&d, &emitx, optarg);
				   push(&d, &dynx, "--input-names");
				   push(&d, &dynx, optarg); break;
		case OPT_OUT_NAMES: push(&d, &emitx, "--output-names");
				    push(&d, &emitx, optarg); break;
		case OPT_DYN:
			push(&d, &emitx, "--dynamic-axes");
			push(&d, &emitx, optarg);
			push(&d, &dynx, "--dynamic-axes");
			push(&d, &dynx, optarg);
			break;
		case OPT_DEVICE: push(&d, &tracex, "--device");
				 push(&d, &tracex, optarg); break;
		case OPT_SEED: push(&d, &tracex, "--seed");
			       push(&d, &tracex, optarg); break;
		case OPT_MODEL: pt2_model = optarg; break;
		case OPT_FOLD:
			fold = parse_bool(&d, "do-constant-folding", optarg);
			break;
		case OPT_PARAMS:
			export_params = parse_bool(&d, "export-params", optarg);
			break;
		case OPT_KEEP:
			keep_inits = parse_bool(&d,
				"keep-initializers-as-inputs", optarg);
			break;
		case OPT_OPX: opx = optarg; break;
		case OPT_CUSTOM: push(&d, &emitx, "--custom-opset");
				 push(&d, &emitx, optarg); break;
		case OPT_SYMBOLIC: push(&d, &lowerx, "--plugin");
				   push(&d, &lowerx, optarg); break;
		case OPT_TRAINING: training = optarg; break;
		case OPT_EXTERNAL: want_external = 1; external = optarg; break;
		case OPT_FSYNC:
			/* emit's own files, and publish()'s copy */
			push(&d, &emitx, "--fsync");
			outfile_set_fsync(1);
			break;
		case OPT_FUNCS: /* False is torch's default: nothing to do */
			/* "--export-modules-as-functions Block": the types
			 * as the next word, when that is no file (the model) */
			if (!optarg && optind < argc && argv[optind][0] != '-' &&
			    access(argv[optind], F_OK) != 0)
				optarg = argv[optind++];
			if (optarg && !is_bool_word(optarg)) {
				functions = optarg;
				break;
			}
			/* True: every module type, nested, the root's
			 * included (torch 1.13's) */
			functions = parse_bool(&d, "export-modules-as-functions",
					       optarg) ? "*" : NULL;
			break;
		case 'v': verbose = parse_bool(&d, "verbose", optarg); break;
		case OPT_REPORT:
			/* "--report r.md": the path as the next word, unless
			 * it is an existing file other than a .md (the model) */
			if (!optarg && optind < argc && argv[optind][0] != '-' &&
			    (access(argv[optind], F_OK) != 0 ||
			     ends_with(argv[optind], ".md")))
				optarg = argv[optind++];
			if (optarg && !is_bool_word(optarg)) {
				report = optarg;
				report_auto = 0;
			} else {
				report_auto = parse_bool(&d, "report", optarg);
				report = NULL;
			}
			break;
		case OPT_DUMP:
			dump = parse_bool(&d, "dump-exported-program", optarg);
			break;
		case OPT_ARTIFACTS: artifacts = optarg; break;
		case OPT_PROFILE: profile = parse_bool(&d, "profile", optarg);
				  break;
		case OPT_VERIFY: verify = parse_bool(&d, "verify", optarg);
				 break;
		case OPT_STRIP: strip = parse_bool(&d, "strip-doc-string",
						   optarg); break;
		case 'h': export_help(stdout); return EXIT_OK;
		default:
			return tool_bad_option("pt2onnx");
		}
	}
	if (optind != argc - 1)
		die(&d, EXIT_USAGE, optind >= argc ? "no model given"
			: "one model at a time ('%s' is extra)", argv[optind + 1]);
	if (!output)
		die(&d, EXIT_USAGE, "no output given (-o MODEL.onnx)");
	if (tracex.n && !trace && !verify)
		die(&d, EXIT_USAGE, "--device and --seed need --trace (or "
		    "--verify, whose reference outputs trace computes)");
	/* refused here, in one line, before any stage starts */
	char *oend;
	long ov = strtol(opset, &oend, 10);
	if (*oend || oend == opset || ov < PT2ONNX_OPSET_MIN ||
	    ov > PT2ONNX_OPSET_MAX)
		die(&d, EXIT_USAGE, "--opset-version '%s' is not an opset from "
		    "%d to %d", opset, PT2ONNX_OPSET_MIN, PT2ONNX_OPSET_MAX);
	/* as torch 1.13, up front: a local function needs opset 15 */
	if (functions && ov < 15)
		die(&d, EXIT_USAGE, "--export-modules-as-functions needs opset "
		    "15 or later (local functions), not %ld: give "
		    "--opset-version 15", ov);
	const char *model = argv[optind];
	if (access(model, R_OK) != 0)
		die(&d, EXIT_IO, "cannot read '%s': %s", model,
		    strerror(errno));
	/* torch 2.x makes its artifacts_dir when something goes there */
	struct stat ast;
	if ((report_auto || dump) && mkdir(artifacts, 0777) != 0 &&
	    (errno != EEXIST || stat(artifacts, &ast) != 0 ||
	     !S_ISDIR(ast.st_mode)))
		die(&d, EXIT_IO, "--artifacts-dir '%s': %s", artifacts,
		    errno == EEXIST ? "not a directory" : strerror(errno));

	/* a torch.export archive goes to unpt2 (lib/pt2): it has the input
	 * shapes; emit applies the names and dynamic axes */
	struct diag quiet;
	diag_init(&quiet, "pt2onnx");
	quiet.quiet = 1;
	/* only a regular file is probed: opening a FIFO would block here,
	   before any stage runs (script reports what it is) */
	struct stat mst;
	struct zip *z = !stat(model, &mst) && S_ISREG(mst.st_mode)
			? zip_open(model, &quiet) : NULL;
	pt2 = z && pt2_probe(z);
	zip_close(z);
	if (pt2 && trace)
		die(&d, EXIT_USAGE, "--trace does not apply to '%s': a "
		    "torch.export archive is read, not run", model);
	if (functions) {
		push(&d, &emitx, "--modules-as-functions");
		push(&d, &emitx, functions);
	}
	if (pt2_model && !pt2)
		die(&d, EXIT_USAGE, "--model applies to a torch.export archive "
		    "(.pt2) only");
	if (pt2 && front.n) {
		diag_warning(&d, "--input is not needed for '%s': the "
			     "torch.export archive has the input shapes "
			     "(ignored)", model);
		front.n = 0;
	}
	if (pt2)
		dynx.n = 0;
	if (verify && pt2)
		die(&d, EXIT_USAGE, "--verify needs a TorchScript archive: "
		    "'%s' is a torch.export archive, which trace cannot run "
		    "for the reference outputs", model);
	if (verify && !export_params)
		die(&d, EXIT_USAGE, "--verify needs the weights in the model "
		    "(not --export-params=false)");

	const char *check_path = find("check");
	if (!check_path)
		die(&d, EXIT_UNSUPPORTED, "the 'check' stage is not built");
	const char *names[4] = { pt2 ? "unpt2" : trace ? "trace" : "script",
				 "lower", "fold", "emit" };
	for (int i = 0; i < 4; i++) {
		const char *path = find(names[i]);
		if (!path)
			die(&d, EXIT_UNSUPPORTED, "the '%s' stage is not built "
			    "or installed; see README.md", names[i]);
		memset(&st[i], 0, sizeof(st[i]));
		st[i].name = names[i];
		push(&d, &st[i].args, path);
	}
	push(&d, &st[0].args, model);
	if (pt2_model) {
		push(&d, &st[0].args, "--model");
		push(&d, &st[0].args, pt2_model);
	}
	if (!trace && !pt2) /* an export needs every input's type */
		push(&d, &st[0].args, "--require-inputs");
	for (int i = 0; i < front.n; i++)
		push(&d, &st[0].args, front.v[i]);
	/* trace and script make the dynamic input axes symbols in the graph
	 * they write (--input-names says which input is which), so that no
	 * stage sees the example's size there; emit names them (and the
	 * outputs') */
	for (int i = 0; i < dynx.n; i++)
		push(&d, &st[0].args, dynx.v[i]);
	for (int i = 0; trace && i < tracex.n; i++)
		push(&d, &st[0].args, tracex.v[i]);
	if (trace && verbose) /* trace says which device and why */
		push(&d, &st[0].args, "-v");
	push(&d, &st[1].args, "--opset");
	push(&d, &st[1].args, opset);
	if (opx) {
		push(&d, &st[1].args, "--operator-export-type");
		push(&d, &st[1].args, opx);
	}
	if (training) {
		push(&d, &st[1].args, "--training");
		push(&d, &st[1].args, training);
	}
	for (int i = 0; i < lowerx.n; i++)
		push(&d, &st[1].args, lowerx.v[i]);
	if (!fold)
		push(&d, &st[2].args, "--no-constant-folding");
	if (!strcmp(output, "-") && refuse_terminal(stdout, 0, &d))
		return EXIT_USAGE;
	struct outplan plan;
	int rc = plan_output(&d, &plan, output, want_external ? (external
				? external : "") : NULL);
	if (rc)
		return rc;
	push(&d, &st[3].args, "-o");
	push(&d, &st[3].args, plan.made);
	for (int i = 0; i < emitx.n; i++)
		push(&d, &st[3].args, emitx.v[i]);
	if (!export_params)
		push(&d, &st[3].args, "--no-export-params");
	if (keep_inits)
		push(&d, &st[3].args, "--keep-initializers-as-inputs");
	/* torch 1.13 strips doc strings unless verbose (its export passes
	 * strip_doc_string = not verbose) */
	if (strip < 0 ? !verbose : strip)
		push(&d, &st[3].args, "--strip-doc-string");
	char ext[PATH_MAX + 32];
	if (want_external) {
		snprintf(ext, sizeof(ext), "--external-data=%s", plan.location);
		push(&d, &st[3].args, ext);
	}
	push(&d, &st[2].args, "--data-file");
	push(&d, &st[2].args, plan.datafile);

	struct export_run x;
	memset(&x, 0, sizeof(x));
	x.st = st;
	x.check_path = check_path;
	x.p = &plan;
	x.output = output;
	x.model = model;
	x.opset = opset;
	x.verbose = verbose;
	x.trace = trace;
	x.verify = verify;
	x.profile = profile;
	x.report = report;
	x.report_auto = report_auto;
	x.dump = dump;
	x.artifacts = artifacts;
	artifact_stamp(x.stamp, sizeof(x.stamp));
	x.front = &front;
	x.dynx = &dynx;
	x.tracex = &tracex;
	x.failed = -1;
	x.start = now();
	/* progress and the summary only where a person reads them: torch
	 * prints nothing by default, and scripts' stderr stays clean */
	prog.on = isatty(STDERR_FILENO);
	x.summary = verbose || prog.on;
	prog.start = x.start;
	prog.dir = plan.tmpdir;
	prog.base = strrchr(plan.made, '/') + 1;
	x.split = report || report_auto || dump || profile || verify ||
		  prog.on;
	snprintf(x.front_ir, sizeof(x.front_ir), "%s/.front.ir", plan.tmpdir);
	snprintf(x.verify_dir, sizeof(x.verify_dir), "%s/.verify",
		 plan.tmpdir);
	if (verify && trace) {
		push(&d, &st[0].args, "--save-inputs");
		push(&d, &st[0].args, x.verify_dir);
		push(&d, &st[0].args, "--save-outputs");
		push(&d, &st[0].args, x.verify_dir);
	}
	if (verify && !trace && !(x.trace_path = find("trace")))
		die(&d, EXIT_UNSUPPORTED, "--verify needs the 'trace' stage, "
		    "which is not built or installed");
	rc = run_export(&d, &x);
	if (!caught && write_reports(&d, &x, rc) && !rc)
		rc = EXIT_IO;
	free_paths(st, 4, check_path);
	free((char *)x.trace_path);
	free(x.ops);
	ir_graph_free(x.front_g);
	free(x.fail_messages);
	free(x.verify_text);
	remove_tmpdir(plan.tmpdir);
	if (caught)
		die_of_caught();
	return rc;
}

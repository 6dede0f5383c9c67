/*
 * export.c - `pt2onnx MODEL.pt -o MODEL.onnx`: the whole export in one
 * command, with options named after torch.onnx.export's.
 *
 * It runs the stages as one pipeline of processes,
 *
 *     script|trace MODEL --input ... | lower --opset N | fold | emit -o OUT
 *
 * then `check OUT`.  Each stage's standard error is collected; if any stage
 * fails, the first failing stage's messages are shown (not the "truncated
 * stream" that its downstream neighbours then report), the output file is
 * removed (emit writes atomically, so it is only there when emit finished)
 * and the exit status is that stage's.  `find` returns malloc'd paths,
 * freed here.
 *
 * The weights fold computes (BatchNorm fused into Conv, folded constants)
 * go to a data file in a temporary directory of ours ($TMPDIR, else /tmp)
 * rather than inline through the pipe to emit, which copies them from
 * there; the directory is removed as soon as the pipeline has ended,
 * whatever happened.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "diag.h"
#include "export.h"
#include "version.h"

/* Copies file `from` into `to` (a device or a FIFO, opened for writing).
 * Returns 0, or -1 after reporting. */
static int copy_file(struct diag *d, const char *from, const char *to)
{
	char buf[1 << 16];
	int in = open(from, O_RDONLY), out = -1, rc = -1;
	ssize_t n = 0;

	if (in < 0) {
		diag_error(d, "cannot read '%s': %s", from, strerror(errno));
		return -1;
	}
	out = open(to, O_WRONLY);
	if (out < 0) {
		diag_error(d, "cannot write '%s': %s", to, strerror(errno));
		close(in);
		return -1;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0) {
		for (ssize_t off = 0; off < n;) {
			ssize_t w = write(out, buf + off, (size_t)(n - off));
			if (w < 0) {
				if (errno == EINTR)
					continue;
				diag_error(d, "cannot write '%s': %s", to,
					   strerror(errno));
				goto done;
			}
			off += w;
		}
	}
	if (n < 0)
		diag_error(d, "cannot read '%s': %s", from, strerror(errno));
	else
		rc = 0;
done:
	close(in);
	if (close(out) != 0 && rc == 0) {
		diag_error(d, "cannot write '%s': %s", to, strerror(errno));
		rc = -1;
	}
	return rc;
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
"torch.onnx.export's.\n"
"\n"
"  -o, --output FILE                 the .onnx to write (required)\n"
"      --script                      read the archive's code, control flow\n"
"                                    kept (the default)\n"
"      --trace                       run the model once and record what ran\n"
"      --device DEV                  with --trace: cuda, cpu or auto\n"
"      --seed N                      with --trace: seed of random inputs\n"
"  -i, --input SPEC                  an input: x=f32[batch,3,224,224],\n"
"                                    f32[1,3,224,224] (positional) or a .npy\n"
"                                    file (repeatable; as torch's args)\n"
"      --opset-version N             ONNX opset (default 14, as torch 1.13)\n"
"      --input-names LIST            a,b or '[\"a\", \"b\"]'\n"
"      --output-names LIST\n"
"      --dynamic-axes SPEC           'x:0=batch;y:0=batch', 'x:0,2' or\n"
"                                    torch's dict '{\"x\": {0: \"batch\"}}'\n"
"      --do-constant-folding[=BOOL]  fold constants (default true)\n"
"      --export-params[=BOOL]        weights in the model (default true)\n"
"      --keep-initializers-as-inputs[=BOOL]\n"
"      --operator-export-type TYPE   onnx, onnx_aten, onnx_aten_fallback,\n"
"                                    onnx_fallthrough (default onnx)\n"
"      --custom-opsets DOMAIN=VER    (repeatable)\n"
"      --training MODE               eval, train or preserve (default eval)\n"
"      --external-data[=FILE]        weights in a side file\n"
"      --export-modules-as-functions refused: not supported yet\n"
"  -v, --verbose                     print the exported graph (text IR) to\n"
"                                    standard error\n"
"  -h, --help\n"
"\n"
"Exit status: that of the first stage that failed (see README.md), or 1\n"
"when the written model fails the check (it is then removed).\n";

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
	pid_t pid;
	int err_fd;      /* read end of its stderr capture (a temp file) */
	int status;
};

/* Runs the stages as a pipeline; returns the index of the first failing
 * stage, or -1. */
static int run_pipeline(struct diag *d, struct stage *st, int n)
{
	int prev = -1;
	for (int i = 0; i < n; i++) {
		int pfd[2] = { -1, -1 };
		char tmpl[] = "/tmp/pt2onnx-stderr-XXXXXX";
		int efd = mkstemp(tmpl);
		if (efd < 0)
			die(d, EXIT_IO, "cannot create a temporary file: %s",
			    strerror(errno));
		unlink(tmpl);
		st[i].err_fd = efd;
		if (i < n - 1 && pipe(pfd) != 0)
			die(d, EXIT_IO, "pipe: %s", strerror(errno));
		pid_t pid = fork();
		if (pid < 0)
			die(d, EXIT_IO, "fork: %s", strerror(errno));
		if (pid == 0) {
			if (prev >= 0) {
				dup2(prev, 0);
				close(prev);
			}
			if (pfd[1] >= 0) {
				dup2(pfd[1], 1);
				close(pfd[1]);
				close(pfd[0]);
			}
			dup2(efd, 2);
			close(efd);
			execv(st[i].args.v[0], (char *const *)st[i].args.v);
			fprintf(stderr, "pt2onnx: cannot run '%s': %s\n",
				st[i].args.v[0], strerror(errno));
			_exit(EXIT_IO);
		}
		st[i].pid = pid;
		if (prev >= 0)
			close(prev);
		if (pfd[1] >= 0)
			close(pfd[1]);
		prev = pfd[0];
	}
	int first = -1;
	for (int i = 0; i < n; i++) {
		int status;
		while (waitpid(st[i].pid, &status, 0) < 0 && errno == EINTR)
			;
		st[i].status = WIFEXITED(status) ? WEXITSTATUS(status)
			     : 128 + WTERMSIG(status);
		if (st[i].status != 0 && first < 0)
			first = i;
	}
	return first;
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

int export_main(int argc, char **argv, const char *(*find)(const char *))
{
	struct diag d;
	struct stage st[4];
	const char *output = NULL, *opset = "14", *opx = NULL, *training = NULL;
	int trace = 0, fold = 1, verbose = 0;
	int export_params = 1, keep_inits = 0;
	struct argv_buf front = { { 0 }, 0 }, emitx = { { 0 }, 0 };
	struct argv_buf dynx = { { 0 }, 0 }, tracex = { { 0 }, 0 };
	const char *external = NULL;
	int want_external = 0;

	enum {
		OPT_SCRIPT = 256, OPT_TRACE, OPT_OPSET, OPT_IN_NAMES,
		OPT_OUT_NAMES, OPT_DYN, OPT_FOLD, OPT_PARAMS, OPT_KEEP,
		OPT_OPX, OPT_CUSTOM, OPT_TRAINING, OPT_EXTERNAL, OPT_FUNCS,
		OPT_DEVICE, OPT_SEED,
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
		{ "training", required_argument, NULL, OPT_TRAINING },
		{ "external-data", optional_argument, NULL, OPT_EXTERNAL },
		{ "export-modules-as-functions", optional_argument, NULL,
		  OPT_FUNCS },
		{ "device", required_argument, NULL, OPT_DEVICE },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};

	diag_init(&d, "pt2onnx");
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
		case OPT_TRAINING: training = optarg; break;
		case OPT_EXTERNAL: want_external = 1; external = optarg; break;
		case OPT_FUNCS:
			die(&d, EXIT_UNSUPPORTED, "--export-modules-as-functions "
			    "is not supported yet");
		case 'v': verbose = 1; break;
		case 'h': fputs(export_usage, stdout); return EXIT_OK;
		default:
			fputs(export_usage, stderr);
			return EXIT_USAGE;
		}
	}
	if (optind != argc - 1)
		die(&d, EXIT_USAGE, optind >= argc ? "no model given"
			: "one model at a time ('%s' is extra)", argv[optind + 1]);
	if (!output)
		die(&d, EXIT_USAGE, "no output given (-o MODEL.onnx)");
	if (tracex.n && !trace)
		die(&d, EXIT_USAGE, "--device and --seed need --trace");
	const char *model = argv[optind];
	if (access(model, R_OK) != 0)
		die(&d, EXIT_IO, "cannot read '%s': %s", model,
		    strerror(errno));

	const char *check_path = find("check");
	if (!check_path)
		die(&d, EXIT_UNSUPPORTED, "the 'check' stage is not built");
	const char *names[4] = { trace ? "trace" : "script", "lower", "fold",
				 "emit" };
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
	for (int i = 0; i < front.n; i++)
		push(&d, &st[0].args, front.v[i]);
	/* trace and script make the dynamic input axes symbols in the graph
	 * they write (--input-names says which input is which), so that no
	 * stage sees the example's size there; emit names them (and the
	 * outputs') */
	for (int i = 0; i < dynx.n; i++)
		push(&d, &st[0].args, dynx.v[i]);
	for (int i = 0; i < tracex.n; i++)
		push(&d, &st[0].args, tracex.v[i]);
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
	if (!fold)
		push(&d, &st[2].args, "--no-fold");
	char tmpdir[PATH_MAX], datafile[PATH_MAX + 16], special[PATH_MAX + 16];
	const char *tdir = getenv("TMPDIR");
	if (!tdir || !*tdir)
		tdir = "/tmp";
	snprintf(tmpdir, sizeof(tmpdir), "%s/pt2onnx-XXXXXX", tdir);
	if (!mkdtemp(tmpdir))
		die(&d, EXIT_IO, "cannot create a temporary directory in "
		    "'%s': %s", tdir, strerror(errno));
	snprintf(datafile, sizeof(datafile), "%s/fold.data", tmpdir);
	/* an output that is a device or a FIFO (-o /dev/null) cannot be read
	 * back by the check nor removed: the model is made and checked in
	 * the temporary directory, then copied there */
	struct stat ost;
	int to_special = stat(output, &ost) == 0 && !S_ISREG(ost.st_mode) &&
			 !S_ISDIR(ost.st_mode);
	snprintf(special, sizeof(special), "%s/model.onnx", tmpdir);
	if (to_special && want_external) {
		rmdir(tmpdir);
		die(&d, EXIT_USAGE, "--external-data needs a regular file as "
		    "output, not '%s'", output);
	}
	const char *made = to_special ? special : output;
	push(&d, &st[3].args, "-o");
	push(&d, &st[3].args, made);
	for (int i = 0; i < emitx.n; i++)
		push(&d, &st[3].args, emitx.v[i]);
	if (!export_params)
		push(&d, &st[3].args, "--no-export-params");
	if (keep_inits)
		push(&d, &st[3].args, "--keep-initializers-as-inputs");
	char ext[PATH_MAX + 32];
	if (want_external) {
		if (external)
			snprintf(ext, sizeof(ext), "--external-data=%s",
				 external);
		else
			snprintf(ext, sizeof(ext), "--external-data");
		push(&d, &st[3].args, ext);
	}

	if (fold) {
		push(&d, &st[2].args, "--data-file");
		push(&d, &st[2].args, datafile);
	}

	/* if the user interrupts us, the children get it too (same group) */
	signal(SIGPIPE, SIG_DFL);
	int failed = run_pipeline(&d, st, 4);
	unlink(datafile); /* emit has copied it into the model, or failed */
	if (failed >= 0) {
		show_stderr(st[failed].err_fd);
		unlink(made); /* emit never commits after an upstream failure,
				 but an old file of that name must not pass for
				 the result */
		rmdir(tmpdir);
		fprintf(stderr, "pt2onnx: the %s stage failed (exit %d); no "
			"model written\n", st[failed].name, st[failed].status);
		int status = st[failed].status;
		free_paths(st, 4, check_path);
		return status;
	}
	for (int i = 0; i < 4; i++) {
		show_stderr(st[i].err_fd); /* warnings */
		close(st[i].err_fd);
	}

	/* the result must pass the checker, as torch.onnx.export's does */
	struct stage chk[1];
	memset(chk, 0, sizeof(chk));
	chk[0].name = "check";
	push(&d, &chk[0].args, check_path);
	push(&d, &chk[0].args, verbose ? "--print" : "-q");
	push(&d, &chk[0].args, made);
	if (run_pipeline(&d, chk, 1) >= 0) {
		show_stderr(chk[0].err_fd);
		unlink(made);
		rmdir(tmpdir);
		fprintf(stderr, "pt2onnx: '%s' failed the ONNX check; removed\n",
			output);
		free_paths(st, 4, check_path);
		return EXIT_INVALID;
	}
	if (to_special && copy_file(&d, special, output) != 0) {
		unlink(special);
		rmdir(tmpdir);
		free_paths(st, 4, check_path);
		return EXIT_IO;
	}
	unlink(special);
	rmdir(tmpdir);
	if (verbose)
		show_stderr(chk[0].err_fd);
	free_paths(st, 4, check_path);
	return EXIT_OK;
}

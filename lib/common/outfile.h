/*
 * outfile.h - output files that appear whole or not at all.
 *
 * outfile_open() creates a temporary file beside the destination;
 * outfile_commit() flushes and renames it into place (when
 * outfile_set_fsync() asked for that, fsyncing it first and its directory
 * after, so that the name is as durable as the bytes); outfile_abort() (or a failed
 * commit) removes it.  A tool that dies half way therefore never leaves a
 * partial model behind.  Without fsync, as with cp and torch.save, a power
 * loss or kernel crash soon after may still leave the new file empty; the
 * fsync costs the time the disk takes to write it (docs/benchmarks.md).
 * "-" is standard output, written directly (a pipe cannot be taken back),
 * and so is a path that names something other than a regular file
 * (/dev/null, a FIFO).
 *
 * A temporary is removed too when SIGTERM, SIGINT, SIGHUP or SIGQUIT ends
 * the process (the first outfile_open installs a handler for each of them
 * that is at its default; the process then dies of the signal as before).
 *
 * Fault injection for tests: PT2ONNX_FAIL_WRITE=N makes the Nth
 * outfile_write() call fail with ENOSPC, proving that failures leave no
 * file.
 */
#ifndef PT2ONNX_OUTFILE_H
#define PT2ONNX_OUTFILE_H

#include <stddef.h>
#include <stdio.h>

#include "diag.h"

struct outfile {
	FILE *fp;          /* write through outfile_write or directly */
	char *path;        /* destination; NULL for stdout */
	char *tmp_path;    /* the temporary beside it; NULL when writing a
			      device or FIFO directly */
	int failed;        /* a write failed: commit will refuse */
};

/* Opens path ("-" for stdout).  Returns 0, or -1 after reporting to d. */
int outfile_open(struct outfile *o, const char *path, struct diag *d);
/* fwrite that records failure (and honours PT2ONNX_FAIL_WRITE).  Returns 0
 * or -1 (reported). */
int outfile_write(struct outfile *o, const void *buf, size_t len,
		  struct diag *d);
/* Makes the file appear under its name.  Returns 0, or -1 after reporting
 * and removing the temporary. */
int outfile_commit(struct outfile *o, struct diag *d);
/* Whether outfile_commit() fsyncs a file before renaming it and its
 * directory after (default no: emit --fsync). */
void outfile_set_fsync(int on);
/* When outfile_set_fsync() is on, fsyncs the directory that holds path (a
 * name just renamed into it); else nothing.  Returns 0, or -1 after
 * reporting. */
int outfile_sync_dir(const char *path, struct diag *d);
/* Removes the temporary; safe to call twice or after commit. */
void outfile_abort(struct outfile *o);

/* Registers path (which must stay valid until untracked) for removal if a
 * signal ends the process, as outfile_open does for its temporaries: for a
 * tool's other files that must not outlive it half-written.  Returns 0, or
 * -1 when too many are tracked (then it is not). */
int outfile_track(char *path);
void outfile_untrack(const char *path);

/* Fault injection for tests: where PT2ONNX_STALL names this point
 * ("outfile": a temporary output was just made; "fold-data": fold just
 * wrote a block of its --data-file), the process waits there for a signal
 * for ever, so that a test can signal a tool mid-write without racing it.
 * Does nothing otherwise. */
void fault_stall(const char *point);

/* Refuses (returns -1 after reporting) when fp is a terminal: binary output
 * is never written to one unless forced (llvm-dis's rule). */
int refuse_terminal(FILE *fp, int force, struct diag *d);

#endif

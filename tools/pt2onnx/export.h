/*
 * export.h - the one-command export of the pt2onnx wrapper (export.c).
 */
#ifndef PT2ONNX_EXPORT_H
#define PT2ONNX_EXPORT_H

#include <stdio.h>

/* Runs `pt2onnx MODEL -o OUT [OPTIONS]` (argv[0] is the wrapper); `find`
 * returns a stage's executable path or NULL.  Returns the exit status. */
int export_main(int argc, char **argv, const char *(*find)(const char *));

/* Prints the export's options (its --help). */
void export_help(FILE *fp);

#endif

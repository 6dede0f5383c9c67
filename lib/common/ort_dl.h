/*
 * ort_dl.h - ONNX Runtime, loaded at run time with dlopen: pt2onnx
 * --verify runs the exported model with it.  No ONNX Runtime header or
 * library is needed to build pt2onnx; the few entries of its C API used
 * here are declared in ort_dl.c from the 1.x ABI (a function table that
 * only grows, so any 1.x library from 1.0 on serves).
 *
 * The library is looked for at the path given, else $PT2ONNX_ORT_LIB,
 * else as libonnxruntime.so.1 on dlopen's own search path
 * (LD_LIBRARY_PATH, the system's libraries).
 */
#ifndef PT2ONNX_ORT_DL_H
#define PT2ONNX_ORT_DL_H

#include "diag.h"
#include "npy_header.h"

struct ort_rt; /* a loaded ONNX Runtime */

/* Loads it (path NULL: the search above).  NULL after reporting one line
 * that names what was tried. */
struct ort_rt *ort_load(const char *path, struct diag *d);

/* The library's version ("1.30.0"), and the file it was loaded from. */
const char *ort_version(const struct ort_rt *rt);
const char *ort_path(const struct ort_rt *rt);

/* Runs the model at model_path on CPU with in[0..nin) as its first nin
 * inputs (inputs past them must have initializers); *out gets every
 * output (malloc'd, *nout of them; free each with npy_array_free, then
 * the array).  0, or -1 after reporting ONNX Runtime's message. */
int ort_run_model(struct ort_rt *rt, const char *model_path,
		  const struct npy_array *in, int nin, struct npy_array **out,
		  int *nout, struct diag *d);

void ort_unload(struct ort_rt *rt);

#endif

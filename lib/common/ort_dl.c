/*
 * ort_dl.c - ONNX Runtime's C API through dlopen (ort_dl.h).
 *
 * The entries are declared here, not taken from onnxruntime_c_api.h (not
 * installed).  OrtGetApiBase() returns { GetApi, GetVersionString };
 * GetApi(version) returns the OrtApi table, a struct of function pointers
 * in a fixed order that releases only append to.  The slots used, by their
 * position in struct OrtApi of include/onnxruntime/core/session/
 * onnxruntime_c_api.h (microsoft/onnxruntime), all present in API version
 * 1.  Every entry but the Release* ones returns an OrtStatus*, NULL on
 * success.  The element types are ONNX's TensorProto numbers, as ir_dtype.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ort_dl.h"

enum {
	ORT_GetErrorMessage = 2,
	ORT_CreateEnv = 3,
	ORT_CreateSession = 7,
	ORT_Run = 9,
	ORT_CreateSessionOptions = 10,
	ORT_SessionGetInputCount = 30,
	ORT_SessionGetOutputCount = 31,
	ORT_SessionGetInputName = 36,
	ORT_SessionGetOutputName = 37,
	ORT_CreateTensorWithDataAsOrtValue = 49,
	ORT_IsTensor = 50,
	ORT_GetTensorMutableData = 51,
	ORT_GetTensorElementType = 60,
	ORT_GetDimensionsCount = 61,
	ORT_GetDimensions = 62,
	ORT_GetTensorTypeAndShape = 65,
	ORT_CreateCpuMemoryInfo = 69,
	ORT_AllocatorFree = 76,
	ORT_GetAllocatorWithDefaultOptions = 78,
	ORT_ReleaseEnv = 92,
	ORT_ReleaseStatus = 93,
	ORT_ReleaseMemoryInfo = 94,
	ORT_ReleaseSession = 95,
	ORT_ReleaseValue = 96,
	ORT_ReleaseTensorTypeAndShapeInfo = 99,
	ORT_ReleaseSessionOptions = 100,
};

#define ORT_API_VERSION_USED 1
#define ORT_LOGGING_LEVEL_FATAL 4
#define ORT_DEVICE_ALLOCATOR 0
#define ORT_MEM_TYPE_DEFAULT 0

typedef void (*ort_fn)(void);
typedef void *status_t; /* OrtStatus*, opaque */

struct ort_api_base {
	const ort_fn *(*get_api)(uint32_t version);
	const char *(*get_version_string)(void);
};

struct ort_rt {
	void *dl;
	const ort_fn *api;
	const char *version;
	char path[4096];
	void *env;
};

/* The table's entry i as a function of type T. */
#define F(rt, T, i) ((T)(rt)->api[(i)])

typedef const char *(*get_error_message_t)(const void *);
typedef void (*release_t)(void *);

/* Reports a failed status (and releases it).  Returns -1. */
static int failed(struct ort_rt *rt, status_t st, const char *what,
		  struct diag *d)
{
	diag_error(d, "ONNX Runtime: %s: %s", what,
		   F(rt, get_error_message_t, ORT_GetErrorMessage)(st));
	F(rt, release_t, ORT_ReleaseStatus)(st);
	return -1;
}

#define CALL(rt, T, i, what, d, ...) do { \
		status_t st_ = F(rt, T, i)(__VA_ARGS__); \
		if (st_) { \
			rc = failed(rt, st_, what, d); \
			goto out; \
		} \
	} while (0)

typedef status_t (*create_env_t)(int, const char *, void **);

struct ort_rt *ort_load(const char *path, struct diag *d)
{
	const char *env = getenv("PT2ONNX_ORT_LIB");
	const char *want = path ? path : env && *env ? env
		: "libonnxruntime.so.1";
	struct ort_rt *rt = calloc(1, sizeof(*rt));

	if (!rt) {
		diag_error(d, "out of memory");
		return NULL;
	}
	snprintf(rt->path, sizeof(rt->path), "%s", want);
	rt->dl = dlopen(want, RTLD_NOW | RTLD_LOCAL);
	if (!rt->dl) {
		diag_error(d, "ONNX Runtime is not available: cannot load "
			   "%s (%s); set PT2ONNX_ORT_LIB to its "
			   "libonnxruntime.so.1", want, dlerror());
		free(rt);
		return NULL;
	}
	const struct ort_api_base *(*get_base)(void);
	*(void **)&get_base = dlsym(rt->dl, "OrtGetApiBase");
	const struct ort_api_base *base = get_base ? get_base() : NULL;
	rt->api = base ? base->get_api(ORT_API_VERSION_USED) : NULL;
	if (!rt->api) {
		diag_error(d, "%s is not a usable ONNX Runtime (no "
			   "OrtGetApiBase, or API version %d refused)", want,
			   ORT_API_VERSION_USED);
		dlclose(rt->dl);
		free(rt);
		return NULL;
	}
	rt->version = base->get_version_string();
	int rc = 0;
	CALL(rt, create_env_t, ORT_CreateEnv, "CreateEnv", d,
	     ORT_LOGGING_LEVEL_FATAL, "pt2onnx", &rt->env);
out:
	if (rc) {
		dlclose(rt->dl);
		free(rt);
		return NULL;
	}
	return rt;
}

const char *ort_version(const struct ort_rt *rt)
{
	return rt->version ? rt->version : "?";
}

const char *ort_path(const struct ort_rt *rt)
{
	return rt->path;
}

void ort_unload(struct ort_rt *rt)
{
	if (!rt)
		return;
	if (rt->env)
		F(rt, release_t, ORT_ReleaseEnv)(rt->env);
	/* not dlclose'd: ONNX Runtime's threads and atexit handlers may
	   still refer into it */
	free(rt);
}

typedef status_t (*create_session_options_t)(void **);
typedef status_t (*create_session_t)(void *, const char *, void *, void **);
typedef status_t (*count_t)(const void *, size_t *);
typedef status_t (*get_name_t)(const void *, size_t, void *, char **);
typedef status_t (*get_allocator_t)(void **);
typedef status_t (*allocator_free_t)(void *, void *);
typedef status_t (*create_cpu_memory_info_t)(int, int, void **);
typedef status_t (*create_tensor_t)(const void *, void *, size_t,
				    const int64_t *, size_t, int, void **);
typedef status_t (*run_t)(void *, const void *, const char *const *,
			  const void *const *, size_t, const char *const *,
			  size_t, void **);
typedef status_t (*is_tensor_t)(const void *, int *);
typedef status_t (*get_data_t)(void *, void **);
typedef status_t (*get_type_shape_t)(const void *, void **);
typedef status_t (*get_elem_type_t)(const void *, int *);
typedef status_t (*get_dims_count_t)(const void *, size_t *);
typedef status_t (*get_dims_t)(const void *, int64_t *, size_t);

/* Copies output value v into a. */
static int take_output(struct ort_rt *rt, void *v, int k, struct npy_array *a,
		       struct diag *d)
{
	void *info = NULL, *data = NULL;
	int is_tensor = 0, elem = 0, rc = 0;
	size_t rank = 0;
	char what[64];

	snprintf(what, sizeof(what), "output %d", k);
	CALL(rt, is_tensor_t, ORT_IsTensor, what, d, v, &is_tensor);
	if (!is_tensor) {
		rc = diag_error(d, "ONNX Runtime: output %d is not a tensor "
				"(a sequence or map cannot be verified)", k);
		goto out;
	}
	CALL(rt, get_type_shape_t, ORT_GetTensorTypeAndShape, what, d, v,
	     &info);
	CALL(rt, get_elem_type_t, ORT_GetTensorElementType, what, d, info,
	     &elem);
	CALL(rt, get_dims_count_t, ORT_GetDimensionsCount, what, d, info,
	     &rank);
	if (rank > NPY_MAX_DIMS || elem <= 0 || elem >= IR_DTYPE_COUNT ||
	    !ir_dtype_size((enum ir_dtype)elem)) {
		rc = diag_error(d, "ONNX Runtime: output %d: element type %d "
				"of rank %zu cannot be compared", k, elem,
				rank);
		goto out;
	}
	a->h.dtype = (enum ir_dtype)elem;
	a->h.rank = (int)rank;
	CALL(rt, get_dims_t, ORT_GetDimensions, what, d, info, a->h.dims,
	     rank);
	a->nbytes = (size_t)npy_numel(&a->h) * ir_dtype_size(a->h.dtype);
	CALL(rt, get_data_t, ORT_GetTensorMutableData, what, d, v, &data);
	a->data = malloc(a->nbytes ? a->nbytes : 1);
	if (!a->data) {
		rc = diag_error(d, "out of memory");
		goto out;
	}
	if (a->nbytes)
		memcpy(a->data, data, a->nbytes);
out:
	if (info)
		F(rt, release_t, ORT_ReleaseTensorTypeAndShapeInfo)(info);
	return rc;
}

int ort_run_model(struct ort_rt *rt, const char *model_path,
		  const struct npy_array *in, int nin, struct npy_array **out,
		  int *nout, struct diag *d)
{
	void *opts = NULL, *sess = NULL, *alloc = NULL, *mem = NULL;
	size_t ni = 0, no = 0;
	char **in_names = NULL, **out_names = NULL;
	void **in_vals = NULL, **out_vals = NULL;
	struct npy_array *res = NULL;
	int rc = 0;

	*out = NULL;
	*nout = 0;
	CALL(rt, create_session_options_t, ORT_CreateSessionOptions,
	     "CreateSessionOptions", d, &opts);
	CALL(rt, create_session_t, ORT_CreateSession, model_path, d, rt->env,
	     model_path, opts, &sess);
	CALL(rt, count_t, ORT_SessionGetInputCount, "inputs", d, sess, &ni);
	CALL(rt, count_t, ORT_SessionGetOutputCount, "outputs", d, sess, &no);
	if (ni < (size_t)nin) {
		rc = diag_error(d, "%s has %zu inputs, but forward takes %d",
				model_path, ni, nin);
		goto out;
	}
	CALL(rt, get_allocator_t, ORT_GetAllocatorWithDefaultOptions,
	     "allocator", d, &alloc);
	in_names = calloc((size_t)nin + 1, sizeof(*in_names));
	in_vals = calloc((size_t)nin + 1, sizeof(*in_vals));
	out_names = calloc(no + 1, sizeof(*out_names));
	out_vals = calloc(no + 1, sizeof(*out_vals));
	res = calloc(no + 1, sizeof(*res));
	if (!in_names || !in_vals || !out_names || !out_vals || !res) {
		rc = diag_error(d, "out of memory");
		goto out;
	}
	for (int i = 0; i < nin; i++)
		CALL(rt, get_name_t, ORT_SessionGetInputName, "input name", d,
		     sess, (size_t)i, alloc, &in_names[i]);
	for (size_t i = 0; i < no; i++)
		CALL(rt, get_name_t, ORT_SessionGetOutputName, "output name",
		     d, sess, i, alloc, &out_names[i]);
	CALL(rt, create_cpu_memory_info_t, ORT_CreateCpuMemoryInfo,
	     "memory info", d, ORT_DEVICE_ALLOCATOR, ORT_MEM_TYPE_DEFAULT,
	     &mem);
	for (int i = 0; i < nin; i++)
		CALL(rt, create_tensor_t, ORT_CreateTensorWithDataAsOrtValue,
		     in_names[i], d, mem, in[i].data, in[i].nbytes,
		     in[i].h.dims, (size_t)in[i].h.rank, (int)in[i].h.dtype,
		     &in_vals[i]);
	CALL(rt, run_t, ORT_Run, model_path, d, sess, NULL,
	     (const char *const *)in_names, (const void *const *)in_vals,
	     (size_t)nin, (const char *const *)out_names, no, out_vals);
	for (size_t i = 0; i < no; i++)
		if (take_output(rt, out_vals[i], (int)i, &res[i], d)) {
			rc = -1;
			goto out;
		}
	*out = res;
	*nout = (int)no;
	res = NULL;
out:
	if (res) {
		for (size_t i = 0; i < no; i++)
			npy_array_free(&res[i]);
		free(res);
	}
	for (size_t i = 0; out_vals && i < no; i++)
		if (out_vals[i])
			F(rt, release_t, ORT_ReleaseValue)(out_vals[i]);
	for (int i = 0; in_vals && i < nin; i++)
		if (in_vals[i])
			F(rt, release_t, ORT_ReleaseValue)(in_vals[i]);
	for (int i = 0; in_names && i < nin; i++)
		if (in_names[i])
			F(rt, allocator_free_t, ORT_AllocatorFree)(alloc,
								   in_names[i]);
	for (size_t i = 0; out_names && i < no; i++)
		if (out_names[i])
			F(rt, allocator_free_t, ORT_AllocatorFree)(alloc,
								   out_names[i]);
	free(in_names);
	free(out_names);
	free(in_vals);
	free(out_vals);
	if (mem)
		F(rt, release_t, ORT_ReleaseMemoryInfo)(mem);
	if (sess)
		F(rt, release_t, ORT_ReleaseSession)(sess);
	if (opts)
		F(rt, release_t, ORT_ReleaseSessionOptions)(opts);
	return rc;
}

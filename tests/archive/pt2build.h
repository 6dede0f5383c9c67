/*
 * pt2build.h - a small torch.export archive built in memory around a
 * models/model.json given as text, for test_pt2_reader.c and fuzz_pt2.c:
 * the weights config names one float parameter "w" of shape [2, 2]
 * (data/weights/weight_0, 16 bytes, torch-style stored entry).
 * PT2_SMALL_PROGRAM is a program over it: y = add(x, p_w) with the
 * default alpha, and sym_size of x.  Header-only, test code.
 */
#ifndef PT2ONNX_PT2BUILD_H
#define PT2ONNX_PT2BUILD_H

#include "zipbuild.h"

#define PT2_WEIGHTS_CONFIG \
	"{\"config\": {\"w\": {\"path_name\": \"weight_0\", \"is_param\": " \
	"true, \"use_pickle\": false, \"tensor_meta\": {\"dtype\": 7, " \
	"\"sizes\": [{\"as_int\": 2}, {\"as_int\": 2}], \"requires_grad\": " \
	"true, \"device\": {\"type\": \"cpu\", \"index\": null}, " \
	"\"strides\": [{\"as_int\": %d}, {\"as_int\": %d}], " \
	"\"storage_offset\": {\"as_int\": 0}, \"layout\": 7}}}}"

#define PT2_TMETA(d0) \
	"{\"dtype\": 7, \"sizes\": [" d0 ", {\"as_int\": 2}], \"strides\": " \
	"[{\"as_int\": 2}, {\"as_int\": 1}], \"storage_offset\": " \
	"{\"as_int\": 0}, \"layout\": 7}"

#define PT2_SMALL_PROGRAM \
	"{\"schema_version\": {\"major\": 8, \"minor\": 17}, " \
	"\"range_constraints\": {\"s0\": {\"min_val\": 1, \"max_val\": 64}}, " \
	"\"graph_module\": {\"signature\": {\"input_specs\": [" \
	"{\"parameter\": {\"arg\": {\"name\": \"p_w\"}, \"parameter_name\": " \
	"\"w\"}}, {\"user_input\": {\"arg\": {\"as_tensor\": {\"name\": " \
	"\"x\"}}}}], \"output_specs\": [{\"user_output\": {\"arg\": " \
	"{\"as_tensor\": {\"name\": \"add\"}}}}]}, \"graph\": {" \
	"\"inputs\": [{\"as_tensor\": {\"name\": \"p_w\"}}, {\"as_tensor\": " \
	"{\"name\": \"x\"}}], \"outputs\": [{\"as_tensor\": {\"name\": " \
	"\"add\"}}], \"tensor_values\": {" \
	"\"p_w\": " PT2_TMETA("{\"as_int\": 2}") ", " \
	"\"x\": " PT2_TMETA("{\"as_expr\": {\"expr_str\": \"s0\"}}") ", " \
	"\"add\": " PT2_TMETA("{\"as_expr\": {\"expr_str\": \"s0\"}}") "}, " \
	"\"nodes\": [{\"target\": \"torch.ops.aten.sym_size.int\", " \
	"\"inputs\": [{\"name\": \"self\", \"arg\": {\"as_tensor\": " \
	"{\"name\": \"x\"}}, \"kind\": 1}, {\"name\": \"dim\", \"arg\": " \
	"{\"as_int\": 0}, \"kind\": 1}], \"outputs\": [{\"as_sym_int\": " \
	"{\"as_name\": \"n\"}}], \"name\": \"n\"}, " \
	"{\"target\": \"torch.ops.aten.add.Tensor\", \"inputs\": [" \
	"{\"name\": \"self\", \"arg\": {\"as_tensor\": {\"name\": \"x\"}}, " \
	"\"kind\": 1}, {\"name\": \"other\", \"arg\": {\"as_tensor\": " \
	"{\"name\": \"p_w\"}}, \"kind\": 1}], \"outputs\": [{\"as_tensor\": " \
	"{\"name\": \"add\"}}], \"name\": \"add\"}]}}}"

/* The archive around `json` (len bytes); the weight's strides are s0, s1
 * (2, 1: contiguous; 1, 2: its transpose). */
static inline void pt2_build(struct zb *z, const char *json, size_t len,
			     int s0, int s1)
{
	static const float w[4] = { 1, 2, 3, 4 };
	char conf[1024];
	int n = snprintf(conf, sizeof(conf), PT2_WEIGHTS_CONFIG, s0, s1);

	zb_add(z, "exported/archive_format", "pt2", 3, ZB_STORED);
	zb_add(z, "exported/models/model.json", json, len, ZB_STORED);
	zb_add(z, "exported/data/weights/model_weights_config.json", conf,
	       (size_t)n, ZB_STORED);
	zb_add(z, "exported/data/weights/weight_0", w, sizeof(w),
	       ZB_STORED | ZB_TORCH);
	zb_finish(z, 0);
}

#endif

/*
 * myop.c - an example `lower` plugin (docs/plugins.md): a custom symbolic
 * for mynamespace::myop, a custom C++ op (torch.library) that pt2onnx has
 * no symbolic for.  It is exported as a node of the custom domain
 * "mynamespace" (op type "myop"), as torch's
 *   register_custom_op_symbolic("mynamespace::myop",
 *       lambda g, x: g.op("mynamespace::myop", x), 1)
 * does; the output has the input's dtype and shape, which the plugin
 * declares (lower cannot infer a custom domain's op).
 *
 *   cc -shared -fPIC -I lib/lower -o myop.so examples/plugins/myop.c
 *   pt2onnx m.pt --custom-symbolic myop.so --custom-opsets mynamespace=1
 */

#include "pt2onnx_plugin.h"

static int myop(const struct pt2onnx_api *api, struct pt2onnx_ctx *ctx,
		void *user)
{
	(void)user;
	struct pt2onnx_value *x = api->input(ctx, 0), *y;
	if (!x || api->num_outputs(ctx) != 1)
		return api->decline(ctx, "expected one tensor in, one out");
	if (api->make_node(ctx, "mynamespace", "myop", 1, &x, NULL, 0, 1, &y))
		return api->decline(ctx, "make_node failed");
	/* torch's myop keeps its input's dtype and shape (a dynamic axis
	 * included); set_type() declares any other dtype and fixed shape */
	api->set_type_like(ctx, y, x);
	return api->set_output(ctx, 0, y);
}

uint32_t pt2onnx_plugin_abi(void)
{
	return PT2ONNX_PLUGIN_ABI;
}

int pt2onnx_plugin_register(const struct pt2onnx_api *api,
			    struct pt2onnx_registry *reg)
{
	/* every opset (0, 0): a custom domain has its own versions */
	return api->register_symbolic(reg, "mynamespace::myop", 0, 0, myop,
				      NULL);
}

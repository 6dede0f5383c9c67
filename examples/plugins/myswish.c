/*
 * myswish.c - an example `lower` plugin (docs/plugins.md) that lowers a
 * custom op to standard ONNX ops, so that any ONNX runtime runs the
 * model: mynamespace::myswish(x), which torch implements as
 * x * sigmoid(x), becomes Mul(x, Sigmoid(x)); lower types those nodes by
 * ONNX's rules and checks that they exist at the target opset.
 *
 *   cc -shared -fPIC -I lib/lower -o myswish.so examples/plugins/myswish.c
 *   pt2onnx m.pt --custom-symbolic myswish.so
 */

#include "pt2onnx_plugin.h"

static int myswish(const struct pt2onnx_api *api, struct pt2onnx_ctx *ctx,
		   void *user)
{
	(void)user;
	struct pt2onnx_value *x = api->input(ctx, 0), *s, *y;
	if (!x)
		return api->decline(ctx, "input 0 is not a tensor");
	if (api->make_node(ctx, NULL, "Sigmoid", 1, &x, NULL, 0, 1, &s))
		return api->decline(ctx, "make_node Sigmoid failed");
	struct pt2onnx_value *xs[2] = { x, s };
	if (api->make_node(ctx, NULL, "Mul", 2, xs, NULL, 0, 1, &y))
		return api->decline(ctx, "make_node Mul failed");
	return api->set_output(ctx, 0, y);
}

uint32_t pt2onnx_plugin_abi(void)
{
	return PT2ONNX_PLUGIN_ABI;
}

int pt2onnx_plugin_register(const struct pt2onnx_api *api,
			    struct pt2onnx_registry *reg)
{
	return api->register_symbolic(reg, "mynamespace::myswish", 0, 0,
				      myswish, NULL);
}

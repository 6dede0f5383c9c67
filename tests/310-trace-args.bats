#!/usr/bin/env bats
# 310-trace-args.bats - `trace` on forward arguments that are not tensors
# (issue 14): an LSTM's (h, c) state as a tuple, a list of tensors, nested
# tuples and lists, int, float and bool arguments and Optional given None
# or a tensor, in archives scripted and traced by torch 1.13
# (tests/args/make_args_models.py), given as dtype-and-shape specs (filled
# inputs: torch's outputs are compared on the .npy ones) and as .npy files.
# Tuples and lists are flattened into graph inputs NAME.0, NAME.1, numbers
# are constants; the recorded graph runs in ONNX Runtime and matches torch.
# bats file_tags=tier:standard

load helper

setup_file() {
	need_torch || return 0
	need_ort || return 0
}

# each NAME from archives SUFFIX (s, t), run on its .npy inputs
npy() {
	local sfx=$1 n
	shift
	args_build || return 1
	for n in "$@"; do
		args_run trace "$n.$sfx.pt" "$n" "$n.npyspec" ||
			{ echo "$n.$sfx failed"; return 1; }
	done
}

@test "trace args: LSTM (x, (h, c)), a list, nested tuples and lists; traced archives" {
	npy t lstm_state list_in nested
	run -0 "$PYTHON" -c 'import onnx
print([i.name for i in onnx.load("nested-trace.onnx").graph.input])'
	[ "$output" = "['a.0.0', 'a.0.1', 'a.1', 'b.0', 'b.1']" ]
}

@test "trace args: LSTM (x, (h, c)), a list, nested tuples and lists; scripted archives" {
	npy s lstm_state list_in nested
}

@test "trace args: int, float and bool arguments are constants; Optional None and a tensor" {
	npy s scalars opt_none opt_some
	run -0 "$PYTHON" -c 'import onnx
print([i.name for i in onnx.load("scalars-trace.onnx").graph.input])'
	[ "$output" = "['x']" ]
}

@test "trace args: a tuple given by dtype and shape, with a dynamic axis named in it" {
	args_build
	run -0 tool trace lstm_state.t.pt -i 'x=f32[5,b:2,4]' \
		-i 'hx=(f32[1,b:2,3],f32[1,b:2,3])' -o l.air
	run -0 tool lower l.air -o l.oir
	run -0 tool emit l.oir -o l.onnx
	run -0 "$PYTHON" -c 'import onnx
g = onnx.load("l.onnx").graph
print([(i.name, [d.dim_param or d.dim_value for d in i.type.tensor_type.shape.dim]) for i in g.input])'
	[ "$output" = "[('x', [5, 'b', 4]), ('hx.0', [1, 'b', 3]), ('hx.1', [1, 'b', 3])]" ]
}

@test "trace args: a tuple spec that does not fit, a tuple of unreadable .npy files" {
	args_build
	run -2 tool trace lstm_state.t.pt -i 'x=f32[5,2,4]' -i 'hx=(f32[1,b,3],f32[1,2,3])' -o x.air
	[[ "$output" == *"dim 'b' needs a size"* ]]
	run -3 tool trace lstm_state.t.pt -i 'x=f32[5,2,4]' -i 'hx=(nope.npy,f32[1,2,3])' -o x.air
	[[ "$output" == *"nope.npy"* ]]
	[ ! -e x.air ]
}

#!/usr/bin/env bats
# 882-pt2onnx-args.bats - the wrapper on forward arguments that are not
# tensors (issue 14): `pt2onnx --input 'hx=(f32[1,2,3],f32[1,2,3])'`,
# lists, .npy files as a tuple's items, numbers and None, both paths
# (script and --trace), on archives built by torch 1.13
# (tests/args/make_args_models.py); ONNX Runtime's outputs against
# torch's, the flattened inputs renamed by --input-names and given dynamic
# axes by --dynamic-axes; packed sequences (tests/args/make_packed_models.py)
# through the wrapper.
# bats file_tags=tier:standard

load helper

setup_file() {
	need_torch || return 0
	need_ort || return 0
}

# export NAME PT SPECFILE OUT [OPTION...]: pt2onnx PT with SPECFILE's
# --input lines and the options, into OUT
export_args() {
	local name=$1 pt=$2 specf=$3 out=$4 specs=() l
	shift 4
	while IFS= read -r l; do
		specs+=(-i "$l")
	done < "$specf"
	pt2onnx "$pt" "${specs[@]}" -o "$out" "$@"
}

# ort NAME MODEL FEED...: ONNX Runtime on MODEL against torch's outputs
ort() {
	local name=$1 model=$2
	shift 2
	rm -rf "out-$model"
	ort_run "$model" "out-$model" "$@" > /dev/null &&
		"$PYTHON" "$ORACLE_DIR/export_cases.py" compare "$name" \
			"out-$model" "$model"
}

@test "pt2onnx args: an LSTM's (h, c) as a tuple of .npy files, script and --trace" {
	args_build
	local feeds=(x=lstm_state.in.x.npy hx.0=lstm_state.in.hx.0.npy
		     hx.1=lstm_state.in.hx.1.npy)
	run -0 export_args lstm_state lstm_state.s.pt lstm_state.npyspec s.onnx
	run -0 ort lstm_state s.onnx "${feeds[@]}"
	run -0 export_args lstm_state lstm_state.t.pt lstm_state.npyspec t.onnx --trace
	run -0 ort lstm_state t.onnx "${feeds[@]}"
}

@test "pt2onnx args: --input-names and --dynamic-axes name the flattened inputs" {
	args_build
	run -0 pt2onnx lstm_state.s.pt -i 'x=f32[5,2,4]' \
		-i 'hx=(f32[1,2,3],f32[1,2,3])' --input-names x,h0,c0 \
		--dynamic-axes 'x:1=batch;h0:1=batch;c0:1=batch' -o n.onnx
	run -0 ort lstm_state n.onnx x=lstm_state.in.x.npy \
		h0=lstm_state.in.hx.0.npy c0=lstm_state.in.hx.1.npy
	run -0 "$PYTHON" -c 'import onnx
g = onnx.load("n.onnx").graph
print([(i.name, [d.dim_param or d.dim_value for d in i.type.tensor_type.shape.dim]) for i in g.input])'
	[ "$output" = "[('x', [5, 'batch', 4]), ('h0', [1, 'batch', 3]), ('c0', [1, 'batch', 3])]" ]
}

@test "pt2onnx args: a list, nested tuples, numbers, bool and None, script and --trace" {
	args_build
	local n m f feeds
	for n in list_in nested scalars opt_none opt_some; do
		feeds=()
		for f in "$n".in.*.npy; do
			m=${f#"$n".in.}
			feeds+=("${m%.npy}=$f")
		done
		run -0 export_args "$n" "$n.s.pt" "$n.spec" "$n-s.onnx"
		run -0 ort "$n" "$n-s.onnx" "${feeds[@]}"
		run -0 export_args "$n" "$n.s.pt" "$n.npyspec" "$n-t.onnx" --trace
		run -0 ort "$n" "$n-t.onnx" "${feeds[@]}"
	done
}

@test "pt2onnx args: packed sequences (RNN unsorted with h0, GRU sorted batch_first), script and --trace, four sets of lengths" {
	packed_build
	local n a
	for n in rnn_unsorted_bi_h0 gru_sorted_bf_bi_2l; do
		a=(-i "x=$n-0.x.npy" -i "lengths=$n-0.lengths.npy"
		   -i "h0=$n-0.h0.npy")
		run -0 pt2onnx "$n.s.pt" "${a[@]}" -o "$n-s.onnx"
		run -0 packed_ort "$n" "$n-s.onnx"
		run -0 pt2onnx "$n.t.pt" "${a[@]}" --trace -o "$n-t.onnx"
		run -0 packed_ort "$n" "$n-t.onnx"
	done
}

@test "pt2onnx args: a tuple given a tensor is refused, no model written" {
	args_build
	run -2 pt2onnx lstm_state.s.pt -i 'x=f32[5,2,4]' -i 'hx=f32[1,2,3]' -o r.onnx
	[[ "$output" == *"'hx': the argument is of type Tuple, not a tensor"* ]]
	[ ! -e r.onnx ]
}

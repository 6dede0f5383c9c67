#!/usr/bin/env bats
# 417-lower-opgaps.bats - per-operator gaps `lower` had beside
# torch.onnx.export: clamp / clamp_min / clamp_max with tensor bounds (Max /
# Min, broadcast, torch's result dtype), batch_norm whose own training flag
# asks for the batch's statistics, squeeze() of dynamic dims (the output
# gets the rank torch gives it), linalg_vector_norm of any ord (inf, -inf,
# 0, fractional, negative, a dtype), aten::_reshape_from_tensor.  Models are
# traced and scripted by real torch (tests/lower/make_opgaps.py); each is
# converted on the three paths (trace, script of the traced archive, script
# of the scripted one) at opsets 9, 13 and 17, checked by onnx.checker and
# run in ONNX Runtime, and compared with eager torch in dtype, shape and
# value on every input set (a second one of other sizes where axes are
# dynamic).
# bats file_tags=tier:full

load helper

# the harness: build, convert, same, all (tests/lower/opcases.bash)
OPCASES_GEN=make_opgaps.py
load lower/opcases

@test "lower: clamp, clamp_min, clamp_max with tensor bounds: Max/Min broadcast, min > max gives max, one side only; trace and script, 9 13 17" {
	run all clamp_t
	echo "$output"
	[ "$status" -eq 0 ]
	# tensor bounds are no Clip
	pt2onnx clamp_t/scripted.pt --script -i x=f32[4,5] -i lo=f32[5] -i hi=f32[4,1] -o c.onnx
	run check c.onnx --print
	[[ "$output" == *Max* && "$output" == *Min* && "$output" != *Clip* ]]
}

@test "lower: clamp of integers (Float Max/Min before opset 12), an Int bound on Long, a Float bound on Long gives Float, 9 13 17" {
	run all clamp_int
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: batch_norm with training=True uses the batch's statistics (3-d, running stats, weight, bias, momentum, eps; dynamic batch and length), 9 13 17" {
	run all bn_train
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: batch_norm with training=True and no running stats, weight or bias, 4-d and 2-d, 9 13 17" {
	run all bn_bare
	echo "$output"
	[ "$status" -eq 0 ]
	# --training train: no running stats to update, so the same batch
	# statistics' formula, not a BatchNormalization
	tool script bn_bare/scripted.pt -i x=f32[3,4,5,6] -i y=f32[8,3] -o bn.air
	run -0 tool lower --opset 13 --training train -S bn.air
	[[ "$output" != *"onnx::BatchNormalization"* ]]
	[[ "$output" == *"onnx::ReduceMean"* ]]
}

@test "lower: squeeze() of dynamic dims: the output has torch's rank (named axes taken as not 1), and all-ones input squeezes to 0-d, 9 13 17" {
	run all squeeze
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: linalg_vector_norm / norm of ord inf, -inf, 0, 3.5, 0.5, -2, 3 with a dtype, dims and keepdim, 9 13 17" {
	run all vnorm
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: _reshape_from_tensor reshapes by a shape tensor of dynamic dims, 9 13 17" {
	run all reshape_t
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: loops over range(a, x.size(0), step) when scripted (__range_length, __derive_index), an empty range on the second input, 9 13 17" {
	run all loops
	echo "$output"
	[ "$status" -eq 0 ]
	tool script -S loops/scripted.pt -i x=f32[n,3] > loops.air.txt
	grep -q 'aten::__range_length' loops.air.txt
	grep -q 'aten::__derive_index' loops.air.txt
}

@test "lower: item, as_tensor, list(x.size()) of dynamic dims, tensor of a float list and of computed numbers, 9 13 17" {
	run all misc
	echo "$output"
	[ "$status" -eq 0 ]
	tool script -S misc/scripted.pt -i x=f32[a,b] -i y=f32[3] > misc.air.txt
	for op in item as_tensor list tensor; do
		grep -q "aten::$op(" misc.air.txt || { echo "no aten::$op"; false; }
	done
}

@test "lower: the generic aten::convolution (strides, dilation, groups; transposed with output_padding), 9 13 17" {
	run all conv
	echo "$output"
	[ "$status" -eq 0 ]
	tool script -S conv/scripted.pt -i x=f32[2,4,9,8] -i w=f32[6,2,3,3] -i b=f32[6] -i wt=f32[4,3,3,2] > conv.air.txt
	grep -q 'aten::convolution(' conv.air.txt
}

@test "lower: fake_quantize_per_channel_affine with scale and zero point from float and int lists when scripted, 13 17" {
	run all fq 13 17
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: embedding_bag sum (per_sample_weights), mean, max with offsets (an empty bag, include_last_offset, padding_idx) and 2-d indices, 9 13 17" {
	run all embbag
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: quantize_per_tensor (quint8, qint8) and dequantize: QuantizeLinear / DequantizeLinear, 10 13 17; refused at 9" {
	run all quant 10 13 17
	echo "$output"
	[ "$status" -eq 0 ]
	tool script quant/scripted.pt -i x=f32[45] -o q.air
	run -4 tool lower --opset 9 q.air
	[[ "$output" == *"needs opset 10"* ]]
}

@test "lower: lstm_cell (with and without biases, chained), gru_cell, rnn_tanh_cell, rnn_relu_cell; dynamic batch, 9 13 17" {
	run all cells
	echo "$output"
	[ "$status" -eq 0 ]
	tool script -S cells/scripted.pt -i x=f32[b,4] -i h=f32[b,6] -i cx=f32[b,6] -i wi=f32[24,4] -i wh=f32[24,6] -i bi=f32[24] -i bh=f32[24] -i gwi=f32[18,4] -i gwh=f32[18,6] -i gbi=f32[18] -i gbh=f32[18] -i rwi=f32[6,4] -i rwh=f32[6,6] > cells.air.txt
	for op in lstm_cell gru_cell rnn_tanh_cell rnn_relu_cell; do
		grep -q "aten::$op(" cells.air.txt || { echo "no aten::$op"; false; }
	done
}

@test "lower: embedding with max_norm (aten::embedding_renorm): used rows over the norm renormalised, norm_type 2 1 3, the weight itself after it; trace paths, 9 13 17" {
	# torch's own scripted F.embedding has no renorm (its
	# _no_grad_embedding_renorm_ compiles to nothing: the scripted module
	# differs from eager torch), so the traced archives only
	PATHS="trace script:traced" run all renorm
	echo "$output"
	[ "$status" -eq 0 ]
	PATHS="trace script:traced" run all renorm_w
	echo "$output"
	[ "$status" -eq 0 ]
}

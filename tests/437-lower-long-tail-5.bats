#!/usr/bin/env bats
# 437-lower-long-tail-5.bats - the OpInfo family's last operators of issue
# 14: isin (lib/lower/symbolic_extra_shape.c, exact; trace:
# lib/trace/ops_index_host.c), histogramdd and its _histogramdd_* parts
# (lib/lower/symbolic_hist.c, exact; trace: lib/trace/ops_hist_host.c),
# linalg_matrix_exp and matrix_exp (lib/lower/symbolic_linalg.c, torch's
# Taylor forms with scaling and squaring, its worst error measured against
# torch; trace: lib/trace/ops_linalg_host.c), ctc_loss
# (lib/lower/symbolic_loss.c, torch's CPU kernel in a Loop over time, its
# error measured; trace: lib/trace/ops_nn_seq.c); the measurements by
# tests/lower/long_tail_5_error.py.
# Models traced and scripted by torch 1.13
# (tests/lower/make_long_tail_5.py), converted on the three paths, run in
# ONNX Runtime and compared with eager torch (tests/lower/opcases.bash).
# bats file_tags=tier:full

load helper

OPCASES_GEN=make_long_tail_5.py
load lower/opcases

@test "lower: isin (tensor, number either side; NaN, -0, inf; promoted dtypes; an empty test set, empty elements; assume_unique, invert) on the three paths, 11 17; refused at 10" {
	run all isin 11 17
	echo "$output"
	[ "$status" -eq 0 ]
	run -4 pt2onnx isin/scripted.pt -i x=f32[2,4] -i t=f32[6] -i i=i64[6] -i j=i32[2,2] -i k=f64[] -o r.onnx --opset-version 10
	[[ "$output" == *"aten::isin"*"has no symbolic for opset 10: needs opset 11"* ]]
	[ ! -e r.onnx ]
}

@test "lower: histogramdd (bin counts with a range, weight, density; one count over the data's range; edge tensors; float64 of rank 3; empty) and its _histogramdd_* parts on the three paths, 11 17" {
	run all hdd 11 17
	echo "$output"
	[ "$status" -eq 0 ]
	run all hddparts 11 17
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower: linalg_matrix_exp and matrix_exp (every Taylor form, squarings, float32 and float64, 1-by-1, batched, empty) on the three paths, 11 17; refused at 10" {
	run all mexp 11 17
	echo "$output"
	[ "$status" -eq 0 ]
	run -4 pt2onnx mexp/scripted.pt -i a=f32[12,4,4] -i d=f64[12,3,3] -i o=f32[2,1,1] -i b=f32[2,2,5,5] -i e=f32[0,3,3] -o r.onnx --opset-version 10
	[[ "$output" == *"aten::linalg_matrix_exp"*"has no symbolic for opset 10: needs opset 11"* ]]
	[ ! -e r.onnx ]
}

# feeds NAME MODEL: MODEL's inputs fed NAME/in1's arrays, in order
feeds() {
	"$PYTHON" - "$1" "$2" <<'PY'
import json, sys
import onnx
d, m = sys.argv[1:3]
order = [i["name"] for i in json.load(open(f"{d}/meta.json"))["inputs"]]
print(" ".join(f"{g.name}={d}/in1/{n}.npy" for g, n in zip(onnx.load(m).graph.input, order)))
PY
}

# measured NAME OP KIND: NAME's trace-path model at opset 13 in ONNX
# Runtime, and trace's own kernel values, within long_tail_5_error.py's
# bounds
measured() {
	build "$1" || return 1
	convert "$1" trace 13 || return 1
	rm -rf "$1/got" "$1/kern"
	ort_run "$1/trace-13.onnx" "$1/got" $(feeds "$1" "$1/trace-13.onnx") > /dev/null || return 1
	"$PYTHON" "$TESTS_DIR/lower/long_tail_5_error.py" "$1" "$1/got" "$1/trace-13.onnx" "$2" "$3" || return 1
	tool trace "$1/traced.pt" $(for i in $("$PYTHON" -c 'import json, sys; print(" ".join(i["name"] for i in json.load(open(sys.argv[1] + "/meta.json"))["inputs"]))' "$1"); do echo --input "$1/in1/$i.npy"; done) \
		--save-outputs "$1/kern" -o /dev/null || return 1
	"$PYTHON" "$TESTS_DIR/lower/long_tail_5_error.py" "$1" "$1/kern" - "$2" "$3"
}

@test "lower: matrix_exp's worst error against torch over sizes 1 to 16 and 1-norms 1e-8 to 30, float32 and float64, ONNX and trace's kernel, within the documented bounds" {
	run measured mexp_wide matrix_exp f32
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(grep -c "worst error" <<< "$output")" -eq 2 ]
	run measured mexp_wide64 matrix_exp f64
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(grep -c "worst error" <<< "$output")" -eq 2 ]
}

@test "lower: ctc_loss (padded targets with tensor lengths, concatenated with int[] lengths; none, mean, sum; zero_infinity; blank not 0; lengths below T, a target of 0; float64; unbatched) on the three paths, 11 17; refused at 10" {
	run all ctc 11 17
	echo "$output"
	[ "$status" -eq 0 ]
	run -4 pt2onnx ctc/scripted.pt -i lp=f32[7,5,5] -i tg=i64[5,4] -i il=i64[5] -i tl=i64[5] -i lp64=f64[7,4,6] -i tc=i32[6] -i u=f32[7,5] -o r.onnx --opset-version 10
	[[ "$output" == *"aten::ctc_loss"*"has no symbolic for opset 10: needs opset 11"* ]]
	[ ! -e r.onnx ]
}

@test "lower: ctc_loss's worst error against torch (T 50, a batch of 16, 20 classes, targets of 10 to 30), float32 and float64, ONNX and trace's kernel, within the documented bounds" {
	run measured ctc_wide ctc_loss f32
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(grep -c "worst error" <<< "$output")" -eq 2 ]
	run measured ctc_wide64 ctc_loss f64
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(grep -c "worst error" <<< "$output")" -eq 2 ]
}

#!/usr/bin/env bats
# 415-lower-fft.bats - `lower` and torch.fft: aten::fft_* (1-d, 2-d, n-d,
# real and Hermitian forms, n / s, dim and norm) and the complex-tensor ops
# around them (view_as_real / view_as_complex, real, imag, abs, angle,
# conj, complex, polar, + - * / with complex, real tensors and numbers).
# A complex value is a real tensor with a trailing (re, im) dim; opset 17
# uses onnx::DFT, opsets below a constant DFT matrix (static lengths).
# Models are torch.jit.script (and trace) archives built by torch here
# (tests/lower/fft_cases.py), torch's outputs the oracle: script | lower |
# fold | emit, onnx.checker, ONNX Runtime, compared with torch in dtype,
# shape and value (max relative error 1e-4) at opsets 9, 13 and 17.
# bats file_tags=tier:standard

load helper

setup_file() {
	need_torch || return 0
	need_ort || return 0
}

CASES="$TESTS_DIR/lower/fft_cases.py"

# convert NAME ARCHIVE OPSET: script | lower | fold | emit to NAME-OPSET.onnx
convert() {
	local specs=() l
	while IFS= read -r l; do
		specs+=(-i "$l")
	done < "$1.in.txt"
	set -o pipefail
	tool script "$2" "${specs[@]}" | tool lower --opset "$3" |
		tool fold | emit -o "$1-$3.onnx"
}

# same NAME OPSET: NAME-OPSET.onnx checked, run, compared with torch
same() {
	local feeds=() l
	while IFS= read -r l; do
		feeds+=("${l%%=*}=${l%%=*}.npy")
	done < "$1.in.txt"
	onnx_checker "$1-$2.onnx" || return 1
	rm -rf "out-$2"
	ort_run "$1-$2.onnx" "out-$2" "${feeds[@]}" > /dev/null || return 1
	"$PYTHON" "$CASES" compare "$1" "out-$2" "$1-$2.onnx"
}

# matches NAME [ARCHIVE [conv]]: at opsets 9 13 17 the model converts and
# matches torch; DFT nodes exactly from 17, MatMul (no DFT) below (conv:
# stft / istft, Conv or ConvTranspose at every opset)
matches() {
	local pt=${2:-$1.pt}
	for o in 9 13 17; do
		convert "$1" "$pt" "$o" || { echo "$1: opset $o did not convert"; return 1; }
		same "$1" "$o" || { echo "$1: opset $o differs"; return 1; }
		local ops
		if [ "${3:-}" = conv ]; then
			ops=$(tool check "$1-$o.onnx" --print)
			[[ "$ops" == *Conv* && "$ops" != *DFT* ]] ||
				{ echo "$1-$o: no Conv"; return 1; }
			continue
		fi
		ops=$(tool check "$1-$o.onnx" --print)
		if [ "$o" -ge 17 ]; then
			[[ "$ops" == *DFT* ]] || { echo "$1-$o: no DFT"; return 1; }
		else
			[[ "$ops" != *DFT* && "$ops" == *MatMul* ]] ||
				{ echo "$1-$o: DFT below 17 or no MatMul"; return 1; }
		fi
	done
}

@test "lower fft: view_as_real(rfft(x)) (dynamic batch), scripted and traced archives, 9 13 17" {
	fixture_run "$CASES" build rfft_real
	run matches rfft_real
	echo "$output"
	[ "$status" -eq 0 ]
	run matches rfft_real rfft_real_t.pt
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower fft: a spectral filter irfft(rfft(x) * w, n=16), scripted and traced; complex weights (view_as_complex), ortho" {
	fixture_run "$CASES" build spectral
	run matches spectral
	echo "$output"
	[ "$status" -eq 0 ]
	run matches spectral spectral_t.pt
	echo "$output"
	[ "$status" -eq 0 ]
	fixture_run "$CASES" build spectral_c
	run matches spectral_c
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower fft: fft2(x).abs() with backward and ortho norm, scripted and traced" {
	fixture_run "$CASES" build fft2_abs
	run matches fft2_abs
	echo "$output"
	[ "$status" -eq 0 ]
	run matches fft2_abs fft2_abs_t.pt
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower fft: n shorter and longer than the signal, dim=0, norm forward / ortho" {
	fixture_run "$CASES" build lengths
	run matches lengths
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower fft: ifft of a complex spectrum, irfft with odd, longer and shorter n, irfft of a real tensor" {
	fixture_run "$CASES" build inverse
	run matches inverse
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower fft: fftn / ifftn / rfftn / irfftn / rfft2 / irfft2 / ifft2 over dim lists with s" {
	fixture_run "$CASES" build nd
	run matches nd
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower fft: hfft and ihfft" {
	fixture_run "$CASES" build hermitian
	run matches hermitian
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower fft: complex arithmetic, real / imag / angle / conj / complex / polar" {
	fixture_run "$CASES" build elementwise
	run matches elementwise
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower fft: Double in, Double out (complex128)" {
	fixture_run "$CASES" build double
	run matches double
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower fft: slices, select, permute, reshape / view, transpose, (un)squeeze, flatten, sum, mean of complex tensors, scripted and traced" {
	fixture_run "$CASES" build shapes
	run matches shapes
	echo "$output"
	[ "$status" -eq 0 ]
	run matches shapes shapes_t.pt
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower fft: an in-place op on a view of a complex tensor (torch writes through to the base) is refused" {
	fixture_run "$CASES" build inplace_view
	tool script inplace_view.pt -i x=f32[2,16] -o inplace_view.air
	run -4 --separate-stderr tool lower --opset 13 inplace_view.air
	echo "$stderr"
	[[ "${stderr_lines[0]}" == *aten::mul_* && "${stderr_lines[0]}" == *view* ]]
}

@test "lower fft: complex64 parameters (the archive's bytes as (re, im) pairs), scripted and traced" {
	fixture_run "$CASES" build complex_param
	run matches complex_param
	echo "$output"
	[ "$status" -eq 0 ]
	run matches complex_param complex_param_t.pt
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower fft: fftshift / ifftshift (complex and real, odd and even dims), fftfreq / rfftfreq, scripted and traced" {
	fixture_run "$CASES" build shift
	run matches shift
	echo "$output"
	[ "$status" -eq 0 ]
	run matches shift shift_t.pt
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower fft: a complex graph output is refused with one line" {
	fixture_run "$CASES" build complex_out
	tool script complex_out.pt -i x=f32[2,16] -o complex_out.air
	for o in 9 13 17; do
		run -4 --separate-stderr tool lower --opset "$o" complex_out.air
		echo "$stderr"
		[ "${#stderr_lines[@]}" -eq 1 ]
		[[ "$stderr" == *aten::fft_rfft* && "$stderr" == *'complex graph output'* &&
		   "$stderr" == *view_as_real* ]]
	done
}

@test "lower fft: a complex value used by an op without a complex form is refused, naming that op" {
	fixture_run "$CASES" build complex_exp
	tool script complex_exp.pt -i x=f32[2,16] -o complex_exp.air
	run -4 --separate-stderr tool lower --opset 13 complex_exp.air
	echo "$stderr"
	[[ "${stderr_lines[0]}" == *aten::fft_rfft* && "${stderr_lines[0]}" == *aten::exp* ]]
}

@test "lower fft: a dynamic transform length converts at 17 (DFT), refused below with one line naming op and opset" {
	fixture_run "$CASES" build dynamic_len
	convert dynamic_len dynamic_len.pt 17
	run same dynamic_len 17
	echo "$output"
	[ "$status" -eq 0 ]
	tool script dynamic_len.pt -i 'x=f32[2,n]' -o dynamic_len.air
	run -4 --separate-stderr tool lower --opset 13 dynamic_len.air
	echo "$stderr"
	[[ "${stderr_lines[0]}" == *aten::fft_rfft* && "${stderr_lines[0]}" == *'opset 13'* &&
	   "${stderr_lines[0]}" == *'opset 17'* ]]
}

@test "lower fft: stft (window shorter than n_fft, centred and not, normalized, two-sided, 1-d), traced; center=False scripted" {
	fixture_run "$CASES" build stft
	run matches stft stft_t.pt conv
	echo "$output"
	[ "$status" -eq 0 ]
	fixture_run "$CASES" build stft_s
	run matches stft_s stft_s.pt conv
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower fft: istft(stft(x)) with and without length, traced; dynamic batch and length at 13 and 17 on another size" {
	fixture_run "$CASES" build istft
	run matches istft istft_t.pt conv
	echo "$output"
	[ "$status" -eq 0 ]
	fixture_run "$CASES" eager istft d2 3x80
	for o in 13 17; do
		set -o pipefail
		tool script istft_t.pt -i 'x=f32[b,n]' | tool lower --opset "$o" |
			tool fold | emit -o "dyn-$o.onnx"
		rm -rf "od-$o"
		ort_run "dyn-$o.onnx" "od-$o" x=d2_x.npy > /dev/null
		run "$PYTHON" "$CASES" compare d2 "od-$o" "dyn-$o.onnx"
		echo "$output"
		[ "$status" -eq 0 ]
		[[ "$output" == *'(3, 80)'* ]]
	done
}

@test "lower fft: dynamic batch and length at 17: irfft / hfft weights, n= and norms from the input's shape, run on three sizes (even, odd)" {
	fixture_run "$CASES" build dynamic
	set -o pipefail
	tool script dynamic.pt -i 'x=f32[b,n]' | tool lower --opset 17 |
		tool fold | emit -o dyn.onnx
	onnx_checker dyn.onnx
	for sh in 2x16 3x15 1x9; do
		fixture_run "$CASES" eager dynamic "e$sh" "$sh"
		rm -rf "o$sh"
		ort_run dyn.onnx "o$sh" "x=e${sh}_x.npy" > /dev/null
		run "$PYTHON" "$CASES" compare "e$sh" "o$sh" dyn.onnx
		echo "$output"
		[ "$status" -eq 0 ]
	done
}

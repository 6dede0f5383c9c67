#!/usr/bin/env bats
# 432-lower-fft-trace.bats - the trace kernels of the fft operators with a
# real output (lib/trace/ops_fft_host.c: fft_irfft, fft_hfft, fft_irfft2,
# fft_hfft2, fft_irfftn, fft_hfftn) with their lower rows
# (lib/lower/symbolic_fft.c).  Models traced and scripted by torch 1.13
# (tests/lower/make_fft_real.py), converted on the three paths, run in
# ONNX Runtime and compared with eager torch (tests/lower/opcases.bash).
# bats file_tags=tier:full

load helper

OPCASES_GEN=make_fft_real.py
load lower/opcases

@test "lower: irfft, hfft, irfft2, hfft2, irfftn, hfftn of real inputs (n / s, dim, norm, Double) on the three paths, 9 13 17" {
	run all c2r 9 13 17
	echo "$output"
	[ "$status" -eq 0 ]
	run trace_kernels_match c2r
	echo "$output"
	[ "$status" -eq 0 ]
}

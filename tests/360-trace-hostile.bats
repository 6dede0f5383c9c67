#!/usr/bin/env bats
# 360-trace-hostile.bats - issue 16's trace reproducers (tests/data/repro):
# what crashed or ran away (eye's n*m overflow, INT64_MIN // -1, expand to
# 1e18 elements, [0] * 10**12, while True, a 2^64-element input,
# histogramdd's 2^61 bins, ctc_loss's padded targets of fewer rows than
# the batch, conv's padding='same' with a dilation of 2^62) is refused with one line and no output; what torch defines (int ** int past int64,
# abs and neg of INT64_MIN, weights at unaligned archive offsets) gives
# torch's values.
# bats file_tags=tier:standard

load helper

setup_file() {
	need_torch || return 0
}

R="$ROOT_DIR/tests/data/repro"

refused() { # FILE LINE [ARGS]: trace exits 4 with exactly LINE, no output
	local f=$1 line=$2
	shift 2
	run -4 tool trace "$R/$f" -i 'x=f32[2,8]' "$@" -o out.ir
	[ "$output" = "$line" ]
	[ ! -e out.ir ]
}

@test "trace: INT64_MIN // -1 and % -1 are refused (torch dies with SIGFPE)" {
	refused ts_intmin_floordiv.pt "trace: aten::floordiv (Ctl): integer overflow: -9223372036854775808 // -1 has no int64 result"
	refused ts_intmin_mod.pt "trace: aten::remainder (Ctl): integer overflow: -9223372036854775808 % -1 has no torch result"
}

@test "trace: eye(2^32) and an expand to 1e18 elements are refused, not written past their buffers" {
	refused ts_eye_overflow.pt "trace: aten::eye (Ctl): eye(4294967296, 4294967296): over the limit of 17179869184 bytes for a tensor"
	refused ts_expand_huge_sum.pt "trace: aten::expand (Ctl): a view of more than 17179869184 elements: over the limit"
}

@test "trace: [1] * 10**12 and while True stop at their limits" {
	refused ts_list_mul_1e12.pt "trace: aten::mul (Ctl): a list of 1 x 1000000000000 items: over the limit of 16777216"
	refused ts_while_true.pt "trace: aten::relu (Ctl): more than 2000000 ops run (an endless loop?): over trace's limit"
}

@test "trace: an input of 2^64 elements is a usage error" {
	run -2 tool trace "$R/ts_neg_intmin_script.pt" -i 'x=f32[4294967296,4294967296]' -o out.ir
	[ "$output" = "trace: input 0: more than 2147483648 elements (the limit on a tensor's bytes is 17179869184)" ]
	[ ! -e out.ir ]
}

@test "trace: 3 ** 1000, abs(INT64_MIN), -INT64_MIN and unaligned weights give torch's outputs" {
	"$PYTHON" -c "import numpy as np, torch
x = (np.arange(16, dtype=np.float32).reshape(2, 8) - 5) / 3
x4 = np.random.RandomState(0).randn(1, 3, 8, 8).astype(np.float32)
np.save('x.npy', x); np.save('x4.npy', x4)
for f in ['ts_int_pow_overflow', 'ts_abs_intmin', 'ts_neg_intmin_script']:
    np.save(f + '.want.npy', torch.jit.load('$R/' + f + '.pt')(torch.from_numpy(x)).numpy())
np.save('unaligned_weights.want.npy', torch.jit.load('$R/unaligned_weights.pt')(torch.from_numpy(x4)).detach().numpy())"
	local f
	for f in ts_int_pow_overflow ts_abs_intmin ts_neg_intmin_script; do
		run -0 tool trace "$R/$f.pt" --input x.npy --save-outputs "got-$f" -o "$f.ir"
	done
	run -0 tool trace "$R/unaligned_weights.pt" --input x4.npy --save-outputs got-unaligned_weights -o u.ir
	"$PYTHON" -c "import numpy as np, sys
bad = [f for f in ['ts_int_pow_overflow', 'ts_abs_intmin', 'ts_neg_intmin_script', 'unaligned_weights']
       if not np.array_equal(np.load('got-' + f + '/out0.npy'), np.load(f + '.want.npy'), equal_nan=True)]
print(bad); sys.exit(1 if bad else 0)"
}

@test "trace: histogramdd with 2^61 bins is refused before its edges are allocated (their size overflowed: SIGSEGV)" {
	# (points of 2 coordinates: refused()'s x=f32[2,8] has 8)
	run -4 tool trace "$R/ts_histogramdd_bins_2e61.pt" -i 'x=f32[2,2]' -o out.ir
	[ "$output" = "trace: aten::histogramdd (M): torch.histogramdd: more than 2^24 bins in all (as lower takes them)" ]
	[ ! -e out.ir ]
}

@test "trace: ctc_loss with padded targets of fewer rows than the batch is refused (rows past the targets' buffer were read)" {
	run -4 tool trace "$R/ts_ctc_loss_targets_short.pt" -i 'lp=f32[1,4,2]' -i 'tg=i64[1,200000]' -o out.ir
	[ "$output" = "trace: aten::ctc_loss (M): ctc_loss: targets of 1 rows for a batch of 4" ]
	[ ! -e out.ir ]
}

@test "trace: isin of 2 million elements against 2 million test elements takes seconds (every pair compared: 4e12 steps)" {
	SECONDS=0
	run -0 timeout 120 "$BINDIR/trace" "$R/ts_isin_invert.pt" -i 'x=f32[2000000]' -i 't=f32[2000000]' -o out.ir
	[ "$SECONDS" -lt 30 ]
	# the sorted search gives torch's answers: NaN equals nothing, -0
	# equals 0, a NaN among the test elements, integers, no test elements
	"$PYTHON" -c "import numpy as np
x = np.array([np.nan, -0.0, 0.0, np.inf, -np.inf, 1.5, 2.0, 7.0, 1e30], np.float32)
np.save('x.npy', x); np.save('t.npy', np.array([0.0, np.nan, np.inf, 2.0, 2.0, 7.0, -5.0], np.float32))
np.save('xi.npy', np.arange(-6, 6).reshape(3, 4)); np.save('ti.npy', np.array([-3, 5, 0, 0, 2]))
np.save('te.npy', np.zeros(0, np.float32))"
	for c in "x t" "xi ti" "x te"; do
		set -- $c
		run -0 tool trace "$R/ts_isin_invert.pt" -i x=$1.npy -i t=$2.npy --save-outputs "got-$1-$2" -o /dev/null
		"$PYTHON" -c "import numpy as np, torch, sys
got = np.load('got-$1-$2/out0.npy')
want = torch.isin(torch.from_numpy(np.load('$1.npy')), torch.from_numpy(np.load('$2.npy')), invert=True).numpy()
sys.exit(0 if np.array_equal(got, want) else 1)"
	done
}

@test "trace: conv2d with padding='same' and a dilation of 2^62 is refused with one line (dilation x (kernel - 1) overflowed)" {
	run -4 tool trace "$R/ts_conv_same_dilation_2e62.pt" -i 'x=f32[1,1,4,4]' -i 'w=f32[1,1,3,3]' -o out.ir
	[ "$output" = "trace: aten::conv2d (M): padding='same': dilation 4611686018427387904 is not positive or its span overflows" ]
	[ ! -e out.ir ]
}

#!/usr/bin/env bats
# 496-lower-random.bats - the random operators at the opsets ONNX Runtime
# 1.30 has no random kernel for (22 and above: docs/opsets.md, "Where ONNX
# Runtime 1.30 does not run what pt2onnx writes"): rand, randn (sizes
# constant and read at run time), rand_like, randn_like (double), normal
# (tensors; numbers and a size), bernoulli (a tensor of probabilities; p),
# multinomial (with and without replacement), rrelu in training.  Each is
# converted by pt2onnx, validated and run in ONNX Runtime
# (tests/lower/random_check.py), and its sample judged against torch 1.13's
# sample of the same call: shape and dtype, a two-sample Kolmogorov-Smirnov
# test (alpha 1e-6), and what holds for every draw.  At 23 and 26 the draw
# is built on Dropout's mask (lib/lower/random.c); up to 21 it is ONNX's
# random nodes, as before.  The first test is the reason, asked of ONNX
# Runtime itself: a model of one random node runs at 21 and not at 22 (if a
# newer runtime runs it, random.c's RANDOM_NODES_LAST should move).

# bats file_tags=tier:standard

load helper

RC="$TESTS_DIR/lower/random_check.py"

@test "ONNX Runtime 1.30: the random nodes run at 21 and are refused at 22, 23 and 26; Dropout in training mode runs at all four" {
	need_ort
	run -0 "$PYTHON" - "$BATS_TEST_TMPDIR" <<'PY'
import os, sys
import numpy as np
import onnx
from onnx import helper as h, TensorProto as T
d = sys.argv[1]
x = h.make_tensor_value_info("x", T.FLOAT, [2, 3])
cases = {"RandomNormal": ([], dict(shape=[2, 3])), "RandomUniform": ([], dict(shape=[2, 3])),
         "RandomNormalLike": (["x"], {}), "RandomUniformLike": (["x"], {}),
         "Bernoulli": (["x"], {}), "Multinomial": (["x"], dict(sample_size=4))}
for v in (21, 22, 23, 26):
    for op, (ins, at) in cases.items():
        node = h.make_node(op, ins, ["y"], **at)
        out = h.make_tensor_value_info("y", T.INT32 if op == "Multinomial" else T.FLOAT, None)
        g = h.make_graph([node], "g", [x] if ins else [], [out])
        m = h.make_model(g, opset_imports=[h.make_opsetid("", v)])
        m.ir_version = 8
        onnx.save(m, os.path.join(d, f"{op}_{v}.onnx"))
    r = h.make_tensor("r", T.FLOAT, [], [0.5])
    t = h.make_tensor("t", T.BOOL, [], [True])
    node = h.make_node("Dropout", ["x", "r", "t"], ["y", "m"])
    g = h.make_graph([node], "g", [x], [h.make_tensor_value_info("y", T.FLOAT, None)], initializer=[r, t])
    m = h.make_model(g, opset_imports=[h.make_opsetid("", v)])
    m.ir_version = 8
    onnx.save(m, os.path.join(d, f"Dropout_{v}.onnx"))
np.save(os.path.join(d, "x.npy"), np.full((2, 3), 0.5, np.float32))
PY
	local op v a
	for op in RandomNormal RandomUniform RandomNormalLike RandomUniformLike Bernoulli Multinomial; do
		a="x=$BATS_TEST_TMPDIR/x.npy"
		[[ "$op" == *Like || "$op" == Bernoulli || "$op" == Multinomial ]] || a=
		run -0 ort_run "$BATS_TEST_TMPDIR/${op}_21.onnx" "$BATS_TEST_TMPDIR/o" $a
		for v in 22 23 26; do
			run -1 ort_run "$BATS_TEST_TMPDIR/${op}_$v.onnx" "$BATS_TEST_TMPDIR/o" $a
			[[ "$output" == *"Could not find an implementation for "*"(22)"* ]]
		done
	done
	for v in 21 22 23 26; do
		run -0 ort_run "$BATS_TEST_TMPDIR/Dropout_$v.onnx" "$BATS_TEST_TMPDIR/o" "x=$BATS_TEST_TMPDIR/x.npy"
	done
}

# random_cases OPSET OPSET: the 13 cases of random_check.py at both
# opsets convert, run in ONNX Runtime and draw as torch does
random_cases() {
	need_torch
	need_ort
	run -0 "$PYTHON" "$RC" "$BATS_TEST_TMPDIR" "$BINDIR" "$ORACLE_DIR/ort_run.js" "$@"
	[[ "$output" == *"random: 26 passed, 0 failed"* ]]
}

@test "lower: random operators at 23 and 26 run in ONNX Runtime 1.30 and draw as torch does (no random node left), script path" {
	random_cases 23 26
	# the coins: Dropout, and none of the nodes of the first test
	[ "$(grep -c '^nodes .*Dropout' <<<"$output")" = 26 ]
	run -1 grep -E '^nodes .*(Random|Bernoulli|Multinomial)' <<<"$output"
}

@test "lower: random operators up to 21 stay ONNX's random nodes (17 and 21), and draw as torch does" {
	random_cases 17 21
	# every case but multinomial with replacement (Multinomial) reads a
	# RandomUniform* or RandomNormal* node; none has a Dropout
	[ "$(grep -cE '^nodes .*(RandomUniform|RandomNormal|Multinomial)' <<<"$output")" = 26 ]
	run -1 grep -E '^nodes .*Dropout' <<<"$output"
}

#!/usr/bin/env bats
# 414-lower-alias.bats - in-place writes and torch's aliasing in `lower`
# (lib/lower/lower.c, "aliases and copies"): a write into x.clone() (or
# x.to(..., copy=True), torch.cat([x]), a copy_ target) must not reach x,
# though no ONNX node is emitted for the clone; a write into x after the
# clone must not reach the clone; a write into x.detach(), aten::alias(x),
# x.contiguous(), x.to(same dtype) or eval-mode dropout does reach x, as
# in eager torch.  Models (tests/lower/make_alias.py) are built by torch:
# torch.jit.trace and torch.jit.script archives, exported by pt2onnx on
# the trace path (trace) and the script path (both archives) at opsets
# 9, 13 and 17, checked by onnx.checker and run by ONNX Runtime, every
# output compared with eager torch's.
# bats file_tags=tier:standard

load helper

MODELS_ALL="clone_select clone_slice clone_inplace clone_src nested
clone_of_view result_write detach_write alias_write to_same dropout_eval
cat_one copy_into loop_write if_write outer_write loop_input"

setup_file() {
	need_torch || return 0
	need_ort || return 0
	M="$BATS_FILE_TMPDIR/m"
	mkdir -p "$M"
	cd "$M" || return 1
	# shellcheck disable=SC2086
	fixture_run "$BATS_TEST_DIRNAME/lower/make_alias.py" $MODELS_ALL
}

setup() {
	skip_missing
	M="$BATS_FILE_TMPDIR/m"
	WORK="$BATS_TEST_TMPDIR"
	cd "$WORK" || return 1
}

# all NAME...: pt2onnx of each model on every path and archive (those of
# $PATHS) at opsets 9, 13 and 17, each run by ONNX Runtime on the model's
# input; then every model checked by onnx.checker (full_check) and every
# output compared with eager torch's.  One line per failure.
all() {
	local n p a o f rc=0 files=()
	for n in "$@"; do
		for p in ${PATHS:-trace:traced script:traced script:scripted}; do
			a=${p##*:}
			p=${p%%:*}
			[ -e "$M/$n.$a.pt" ] || { echo "$n: no $a archive"; rc=1; continue; }
			for o in 9 13 17; do
				f="$n.$p.$a.$o"
				if ! tool pt2onnx "$M/$n.$a.pt" "--$p" -i "x=$M/$n.x.npy" \
				     --opset-version "$o" -o "$f.onnx"; then
					echo "$f: export failed"
					rc=1
					continue
				fi
				if ! ort_run "$f.onnx" "out.$f" "x=$M/$n.x.npy" > /dev/null; then
					echo "$f: ONNX Runtime failed"
					rc=1
					continue
				fi
				files+=("$f")
			done
		done
	done
	[ ${#files[@]} -gt 0 ] || return 1
	"$PYTHON" - "$M" "${files[@]}" <<'PY' || rc=1
import glob, sys
import numpy as np
import onnx
m, runs = sys.argv[1], sys.argv[2:]
bad = 0
for f in runs:
    name = f.split(".")[0]
    model = onnx.load(f"{f}.onnx")
    try:
        onnx.checker.check_model(model, full_check=True)
    except Exception as e:  # the checker raises several kinds
        print(f"{f}: onnx.checker: {str(e).strip().splitlines()[0]}")
        bad = 1
        continue
    outs = model.graph.output
    wants = sorted(glob.glob(f"{m}/{name}.want*.npy"),
                   key=lambda p: int(p.rsplit("want", 1)[1][:-4]))
    if len(outs) != len(wants):
        print(f"{f}: {len(outs)} outputs, torch's {len(wants)}")
        bad = 1
        continue
    for k, (o, w) in enumerate(zip(outs, wants)):
        g, w = np.load(f"out.{f}/{o.name}.npy"), np.load(w)
        if g.dtype != w.dtype or g.shape != w.shape:
            print(f"{f}: output {k}: {g.dtype}{g.shape}, torch's {w.dtype}{w.shape}")
            bad = 1
        elif not np.allclose(g, w, rtol=1e-5, atol=1e-6):
            print(f"{f}: output {k} differs from torch's:\n{g}\ntorch's:\n{w}")
            bad = 1
sys.exit(bad)
PY
	return $rc
}

@test "lower alias: a write into a select or slice view of a clone leaves the source as it was" {
	run all clone_select clone_slice
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower alias: an in-place op on a whole clone (and writes through its result and its detach()) leaves the source" {
	run all clone_inplace result_write
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower alias: writes into the source after a clone leave the clone; a mutated input returned is a new output" {
	run all clone_src
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower alias: nested views of a clone write back up to the clone only; a clone of a view is no view" {
	run all nested clone_of_view
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower alias: writes into detach(), aten::alias, contiguous(), to(same dtype), eval dropout reach the original (torch aliases them)" {
	run all detach_write alias_write to_same dropout_eval
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower alias: cat of one tensor, repeat(1, 1) and a copy_ target are new tensors (to(copy=True): above)" {
	run all cat_one copy_into
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "lower alias: a clone made and written in a loop body or an if branch (onnx::Loop / onnx::If when scripted)" {
	run all loop_write if_write
	echo "$output"
	[ "$status" -eq 0 ]
	for n in loop_write:Loop if_write:If; do
		tool pt2onnx "$M/${n%%:*}.scripted.pt" -i x=f32[4,5] -o s.onnx
		tool check s.onnx --print | grep -q "onnx::${n##*:}\|= ${n##*:}"
	done
}

@test "lower alias: a write in an if body into a value of an enclosing block is refused with one line (the trace path resolves it); one in a loop body is carried (or unrolled)" {
	# the trace path resolves the if and unrolls the loop: right values
	PATHS=trace:traced run all outer_write loop_input
	echo "$output"
	[ "$status" -eq 0 ]
	# lower unrolls a loop of a known count writing an enclosing value
	run all loop_input
	echo "$output"
	[ "$status" -eq 0 ]
	for n in outer_write; do
		tool script "$M/$n.scripted.pt" -i x=f32[4,5] -o "$n.air"
		for o in 9 13 17; do
			run -4 --separate-stderr tool lower --opset "$o" "$n.air"
			echo "$stderr"
			[ "${#stderr_lines[@]}" -eq 1 ]
			[[ "$stderr" == *"enclosing block"* ]]
			[ -z "$output" ]
		done
	done
}

#!/usr/bin/env bats
# 606-emit-weight-file-once.bats - emit looks at a weight file once, not
# once per weight: checking that it may read a torch archive (its stored
# data/ entries) opens the archive as often for a model of four weights as
# for one of one (issue 17; before, every weight reopened the archive and
# re-read its directory).  Oracles: torch 1.13's parameter counts,
# onnx.checker on the models written.
# bats file_tags=tier:standard

load helper

setup_file() {
	need_torch || return 0
}

# opens_of NAME: how many times emit opens NAME.pt while writing
# NAME.onnx from the trace path's folded IR (strace, emit alone), run in
# a folder of its own so that the archive is not in the model's folder
# (where any file may be read) but allowed as a torch archive
opens_of() {
	local name=$1 f ins=()
	for f in "${name}"_in_*.npy; do
		ins+=(--input "$f")
	done
	tool trace "$name.pt" "${ins[@]}" -o "$name.t.ir" || return 1
	tool lower --opset 17 "$name.t.ir" -o "$name.l.ir" || return 1
	tool fold --data-file "$PWD/$name.fold.data" "$name.l.ir" -o "$name.f.ir" || return 1
	mkdir -p "$name.w" && mv "$name.f.ir" "$name.w/" || return 1
	(cd "$name.w" && strace -f -e trace=openat -o ../"$name.st" "$BINDIR/emit" "$name.f.ir" -o ../"$name.onnx") || return 1
	grep -c "\"$PWD/$name.pt\"" "$name.st"
}

@test "emit: a torch archive is opened as often for four weights as for one" {
	command -v strace > /dev/null || skip "needs strace"
	fixture_run "$TESTS_DIR/lower/transb_models.py"
	# LeakSanitizer cannot run under ptrace (make test-asan)
	local ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
	export ASAN_OPTIONS
	run -0 "$PYTHON" -c "import torch
for n in ('mlp3', 'mlp4nb'):
    print(len(list(torch.jit.load(n + '.pt').parameters())))"
	[ "${lines[0]}" -gt "${lines[1]}" ]
	run -0 opens_of mlp3
	local many=$output
	run -0 opens_of mlp4nb
	[ "$output" -ge 1 ]
	[ "$many" -eq "$output" ]
	run -0 onnx_checker mlp3.onnx
	run -0 onnx_checker mlp4nb.onnx
}

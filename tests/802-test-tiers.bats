#!/usr/bin/env bats
# 802-test-tiers.bats - the test harness itself (docs/testing.md): every
# bats file names its tier, scripts/run-tests.sh counts passes, failures
# and skips right with files run two at a time and lists why tests were
# skipped, need_torch / need_ort in setup_file skip every test of a file,
# and fixture_run builds once, then copies from its cache.
# bats file_tags=tier:check

load helper

# a bats file named $1 under $WORK/t with the body on stdin, its tests
# written "TEST" (bats would take them for this file's own)
mkbats() {
	mkdir -p "$WORK/t"
	{ echo "load $TESTS_DIR/helper"; sed 's/^TEST /@test /'; } > "$WORK/t/$1.bats"
}

@test "tiers: every bats file has one tier tag: check, standard or full" {
	local f n bad=0
	for f in "$TESTS_DIR"/*.bats; do
		n=$(grep -cE '^# bats file_tags=.*tier:(check|standard|full)\b' "$f")
		if [ "$n" -ne 1 ]; then
			echo "$(basename "$f"): $n tier tags"
			bad=1
		fi
	done
	[ "$bad" -eq 0 ]
}

@test "run-tests: files two at a time, counted as bats counts them; the reasons for skips listed" {
	command -v parallel >/dev/null || skip "GNU parallel missing (make deps)"
	mkbats a <<'B'
TEST "a1" { true; }
TEST "a2" { skip "reason one"; }
TEST "a3" { false; }
B
	mkbats b <<'B'
TEST "b1" { sleep 0.2; }
TEST "b2" { skip "reason one"; }
TEST "b3" { skip "reason two"; }
TEST "b4" { true; }
B
	run -1 bash "$ROOT_DIR/scripts/run-tests.sh" --no-unit --jobs 2 \
		"$WORK" "$BINDIR" "$WORK/t/a.bats" "$WORK/t/b.bats"
	# the same files one at a time: the same counts
	serial=$(bash "$ROOT_DIR/scripts/run-tests.sh" --no-unit --jobs 1 \
		"$WORK" "$BINDIR" "$WORK/t/a.bats" "$WORK/t/b.bats" | tail -1)
	[ "${lines[-1]}" = "$serial" ]
	[ "${lines[-1]}" = "total: 3 passed, 1 failed, 3 skipped" ]
	[[ "$output" == *"2 at once"* ]]
	[[ "$output" == *"      2   reason one"* ]]
	[[ "$output" == *"      1   reason two"* ]]
	[[ "$output" == *"not ok 3 a3"* ]]
}

@test "run-tests: a tier runs the files tagged with it and those below it" {
	local check standard full f
	check=$(bash "$ROOT_DIR/scripts/run-tests.sh" --tier check --list)
	standard=$(bash "$ROOT_DIR/scripts/run-tests.sh" --tier standard --list)
	full=$(bash "$ROOT_DIR/scripts/run-tests.sh" --tier full --list)
	[[ "$check" == *"$(basename "$BATS_TEST_FILENAME")"* ]]
	for f in $check; do
		grep -q '^# bats file_tags=tier:check$' "$ROOT_DIR/$f"
		[[ " $(echo $standard) " == *" $f "* ]]
	done
	for f in $standard; do
		[[ " $(echo $full) " == *" $f "* ]]
		! grep -q '^# bats file_tags=tier:full$' "$ROOT_DIR/$f"
	done
	[ "$(echo "$full" | wc -l)" -eq "$(ls "$TESTS_DIR"/*.bats | wc -l)" ]
	run -2 bash "$ROOT_DIR/scripts/run-tests.sh" --tier fast "$WORK" "$BINDIR"
	[[ "$output" == *"unknown tier 'fast'"* ]]
}

@test "need_torch, need_ort: in setup_file every test of the file skips with the reason" {
	mkbats n <<'B'
setup_file() {
	need_torch || return 0
	need_ort || return 0
}
TEST "n1" { true; }
TEST "n2" { true; }
B
	run -0 env PT2ONNX_NO_TORCH=1 bats --tap "$WORK/t/n.bats"
	[ "${lines[1]}" = "ok 1 n1 # skip needs torch: python3-torch missing" ]
	[ "${lines[2]}" = "ok 2 n2 # skip needs torch: python3-torch missing" ]
	run -0 env PT2ONNX_NO_ORT=1 bats --tap "$WORK/t/n.bats"
	[[ "${lines[1]}" == "ok 1 n1"* ]]
	if [[ "${lines[1]}" != *"needs torch"* ]]; then
		[ "${lines[1]}" = "ok 1 n1 # skip needs ONNX Runtime: node or onnxruntime-node missing (make deps)" ]
	fi
}

@test "fixture_run: built once, then copied from the cache; a changed script builds again" {
	export PT2ONNX_FIXTURES="$WORK/fx" PT2ONNX_FIXTURE_SERVER=0 RUNS="$WORK/runs"
	cat > gen.py <<'PY'
import os, sys
open(os.environ["RUNS"], "a").write("run\n")
open("out.txt", "w").write(" ".join(sys.argv[1:]) + "\n")
PY
	mkdir a b c
	(cd a && fixture_run ../gen.py x y)
	(cd b && fixture_run ../gen.py x y)
	[ "$(cat a/out.txt)" = "x y" ]
	cmp a/out.txt b/out.txt
	[ "$(wc -l < runs)" -eq 1 ]
	[ ! -e b/.done ] && [ ! -e b/.build.log ]
	echo "# changed" >> gen.py
	(cd c && fixture_run ../gen.py x y)
	[ "$(wc -l < runs)" -eq 2 ]
	# a failed build prints its log and leaves nothing in the cache
	echo 'raise SystemExit("broken build")' > bad.py
	run -1 fixture_run bad.py
	[[ "$output" == *"broken build"* ]]
	[ -z "$(ls "$WORK/fx/bad" | grep -v '\.lock$\|\.tmp$')" ]
}

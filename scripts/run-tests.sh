#!/bin/bash
# run-tests.sh - runs every C unit test and every bats test, then prints one
# closing line "total: N passed, N failed, N skipped" (what CI reads) and
# exits non-zero when anything failed.  A skipped test is never counted as
# passed.
#
#   scripts/run-tests.sh UNITDIR BINDIR [BATS-FILES...]
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
unitdir=$1 bindir=$2
shift 2
passed=0 failed=0 skipped=0

for t in "$unitdir"/test_*; do
	[ -x "$t" ] || continue
	echo "== $t"
	out=$("$t" 2>&1)
	rc=$?
	printf '%s\n' "$out" | grep -v '^ok ' || true
	line=$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -1)
	if [ -z "$line" ]; then
		echo "run-tests: $t printed no result line (exit $rc)"
		failed=$((failed + 1))
		continue
	fi
	read -r p f s <<<"$(echo "$line" | sed -E 's/^([0-9]+) passed, ([0-9]+) failed(, ([0-9]+) skipped)?.*/\1 \2 \4/')"
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + ${s:-0}))
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "run-tests: $t exited $rc"
		failed=$((failed + 1))
	fi
done

files=("$@")
[ ${#files[@]} -gt 0 ] || files=(tests/*.bats)
echo "== bats ${files[*]}"
tap=$(mktemp)
PT2ONNX_BINDIR="$(cd "$bindir" && pwd)" PT2ONNX_UNITDIR="$(cd "$unitdir" && pwd)" \
	bats --tap "${files[@]}" 2>&1 | tee "$tap" | grep -Ev '^ok [0-9]+ [^#]*$'
b_skip=$(grep -cE '^ok [0-9]+ .*# skip' "$tap")
b_ok=$(grep -cE '^ok [0-9]+' "$tap")
b_fail=$(grep -cE '^not ok [0-9]+' "$tap")
plan=$(grep -E '^1\.\.[0-9]+' "$tap" | head -1 | cut -d. -f3)
grep -E '^ok [0-9]+ .*# skip' "$tap" > "$tap.skips"
rm -f "$tap"
passed=$((passed + b_ok - b_skip)) failed=$((failed + b_fail)) skipped=$((skipped + b_skip))
if [ -n "$plan" ] && [ $((b_ok + b_fail)) -ne "$plan" ]; then
	echo "run-tests: bats planned $plan tests but reported $((b_ok + b_fail))"
	failed=$((failed + plan - b_ok - b_fail))
fi

# what the skips were for, and how the build went, just above the total
[ "$skipped" -eq 0 ] || grep -hoE '# skip.*' "$tap.skips" 2>/dev/null | sort | uniq -c | sort -rn | head -5
[ -z "${PT2ONNX_BUILD_NOTE:-}" ] || echo "build: $PT2ONNX_BUILD_NOTE"
rm -f "$tap.skips"
echo "total: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]

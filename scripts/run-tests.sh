#!/bin/bash
# run-tests.sh - runs the C unit tests and the bats files of one tier, then
# prints one closing line "total: N passed, N failed, N skipped" (what CI
# reads) and exits non-zero when anything failed.  A skipped test is never
# counted as passed; the reasons for the skips are listed above the total.
#
#   scripts/run-tests.sh [--tier check|standard|full] [--jobs N] [--no-unit]
#                        UNITDIR BINDIR [BATS-FILES...]
#   scripts/run-tests.sh [--tier T] --list      the tier's bats files
#
# A bats file's tier is its tag line `# bats file_tags=tier:T` (check,
# standard or full; docs/testing.md); a tier runs its own files and those of
# the tiers below it.  A file with no tier tag runs in the standard tier.
# Files named on the command line run whatever their tier.  --jobs N runs N
# bats files at once (GNU parallel; the tests of one file stay in order).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
tier=standard jobs=1 unit=1 list=0
while [ $# -gt 0 ]; do
	case $1 in
	--tier) tier=$2; shift 2 ;;
	--list) list=1; shift ;;
	--jobs) jobs=$2; shift 2 ;;
	--no-unit) unit=0; shift ;;
	*) break ;;
	esac
done
case $tier in
check) tiers="check" ;;
standard) tiers="check standard" ;;
full) tiers="check standard full" ;;
*) echo "run-tests: unknown tier '$tier' (check, standard or full)" >&2; exit 2 ;;
esac
# file_tier FILE: the tier of a bats file, from its file_tags line
file_tier() {
	local t
	t=$(grep -m1 -E '^# bats file_tags=' "$1" | grep -oE 'tier:[a-z]+' | head -1)
	echo "${t#tier:}"
}

# tier_files: the bats files of the tier (into the array files)
tier_files() {
	local f t
	files=()
	for f in tests/*.bats; do
		t=$(file_tier "$f")
		if [ -z "$t" ]; then
			[ "$list" = 1 ] || echo "run-tests: $f has no '# bats file_tags=tier:...' line: run as standard"
			t=standard
		fi
		case " $tiers " in *" $t "*) files+=("$f") ;; esac
	done
}

if [ "$list" = 1 ]; then
	tier_files
	printf '%s\n' "${files[@]}"
	exit 0
fi
[ $# -ge 2 ] || { echo "usage: run-tests.sh [--tier T] [--jobs N] [--no-unit] UNITDIR BINDIR [BATS-FILES...]" >&2; exit 2; }
unitdir=$1 bindir=$2
shift 2
passed=0 failed=0 skipped=0
start=$SECONDS
tap=$(mktemp)
skips=$tap.skips
: > "$skips"

if [ "$unit" = 1 ]; then
	for t in "$unitdir"/test_*; do
		[ -x "$t" ] || continue
		echo "== $t"
		out=$("$t" 2>&1)
		rc=$?
		printf '%s\n' "$out" | grep -v '^ok ' || true
		# a unit test's skips ("skip NAME: why") join the bats ones
		printf '%s\n' "$out" | sed -nE 's/^skip [^:]*: */# skip /p' >> "$skips"
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
	echo "== unit tests: $((SECONDS - start)) s"
fi

files=("$@")
[ ${#files[@]} -gt 0 ] || tier_files

if [ ${#files[@]} -gt 0 ]; then
	par=()
	if [ "$jobs" -gt 1 ]; then
		if command -v parallel >/dev/null; then
			par=(--jobs "$jobs" --no-parallelize-within-files)
		else
			echo "run-tests: GNU parallel missing (make deps): bats files run one at a time"
		fi
	fi
	echo "== bats (tier $tier, ${#files[@]} files${par:+, $jobs at once}): ${files[*]}"
	PT2ONNX_BINDIR="$(cd "$bindir" && pwd)" PT2ONNX_UNITDIR="$(cd "$unitdir" && pwd)" \
		bats --tap --timing "${par[@]}" "${files[@]}" 2>&1 | tee "$tap" | grep --line-buffered -Ev '^ok [0-9]+ [^#]*$'
	# the slowest files, from bats' per-test times (tests are reported
	# in file order; a file's setup_file, e.g. cold fixture builds, is not
	# in them): what to look at when CI's budget is short
	for f in "${files[@]}"; do
		echo "$(basename "$f" .bats) $(grep -c '^@test' "$f")"
	done > "$tap.counts"
	echo "slowest bats files (their tests' time; setup_file not counted):"
	awk 'NR == FNR { name[NR] = $1; upto[NR] = (NR > 1 ? upto[NR - 1] : 0) + $2; n = NR; next }
	     /^(not )?ok [0-9]+ .* in [0-9]+ms$/ {
		t = $0; sub(/^(not )?ok /, "", t); k = t + 0
		ms = $0; sub(/.* in /, "", ms); ms += 0
		for (i = 1; i <= n && upto[i] < k; i++) ;
		if (i <= n) s[name[i]] += ms
	     }
	     END { for (f in s) printf "%8.1f s  %s\n", s[f] / 1000, f }' \
		"$tap.counts" "$tap" | sort -rn | head -12
	rm -f "$tap.counts"
fi
b_skip=$(grep -cE '^ok [0-9]+ .*# skip' "$tap")
b_ok=$(grep -cE '^ok [0-9]+' "$tap")
b_fail=$(grep -cE '^not ok [0-9]+' "$tap")
plan=$(grep -E '^1\.\.[0-9]+' "$tap" | head -1 | cut -d. -f3)
grep -E '^ok [0-9]+ .*# skip' "$tap" | sed -E 's/ in [0-9]+ms$//' >> "$skips"
rm -f "$tap"
passed=$((passed + b_ok - b_skip)) failed=$((failed + b_fail)) skipped=$((skipped + b_skip))
if [ -n "$plan" ] && [ $((b_ok + b_fail)) -ne "$plan" ]; then
	echo "run-tests: bats planned $plan tests but reported $((b_ok + b_fail))"
	failed=$((failed + plan - b_ok - b_fail))
fi

# why tests were skipped (each reason with its count), how the build went,
# how long it took, just above the total
if [ "$skipped" -gt 0 ]; then
	echo "skipped, by reason:"
	grep -hoE '# skip.*' "$skips" | sed 's/^# skip */  /' | sort | uniq -c | sort -rn
fi
[ -z "${PT2ONNX_BUILD_NOTE:-}" ] || echo "build: $PT2ONNX_BUILD_NOTE"
rm -f "$skips"
echo "tier $tier: $((SECONDS - start)) s"
echo "total: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]

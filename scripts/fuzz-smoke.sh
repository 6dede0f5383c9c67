#!/bin/bash
# fuzz-smoke.sh - runs every libFuzzer target for SECONDS on its committed
# corpus (plus a scratch corpus under build/fuzz/corpus), JOBS targets at
# once (libFuzzer is single-threaded; CI has 2 cores), and prints each
# target's summary when it ends.  Exits 1 when any target found a crash, a
# leak, a timeout or a sanitizer report (its "Test unit written" line names
# the reproducer).
#
#   scripts/fuzz-smoke.sh SECONDS JOBS FUZZ-BINARY...
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
[ $# -ge 3 ] || { echo "usage: fuzz-smoke.sh SECONDS JOBS FUZZ-BINARY..." >&2; exit 2; }
secs=$1 jobs=$2
shift 2
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

# one target: its exit status into $logs/NAME.rc, its output into NAME.log
one() {
	local b=$1 n c dict
	n=$(basename "$b")
	c=tests/fuzz/corpus/${n#fuzz_}
	dict=tests/fuzz/${n#fuzz_}.dict
	if [ -f "$dict" ]; then dict=-dict=$dict; else dict=; fi
	mkdir -p "build/fuzz/corpus/$n"
	"$b" -max_total_time="$secs" -rss_limit_mb=2048 -print_final_stats=1 \
		$dict "build/fuzz/corpus/$n" "$c" > "$logs/$n.log" 2>&1
	echo $? > "$logs/$n.rc"
	echo "== $n (${secs}s, exit $(cat "$logs/$n.rc"))"
	grep -E 'stat::number_of_executed_units|ERROR|SUMMARY|Test unit written' "$logs/$n.log"
}

running=0 failed=0
for b in "$@"; do
	one "$b" &
	running=$((running + 1))
	if [ "$running" -ge "$jobs" ]; then
		wait -n
		running=$((running - 1))
	fi
done
wait
for b in "$@"; do
	n=$(basename "$b")
	rc=$(cat "$logs/$n.rc" 2>/dev/null || echo 1)
	if [ "$rc" != 0 ]; then
		echo "fuzz-smoke: $n failed (exit $rc)"
		failed=1
	fi
done
exit $failed

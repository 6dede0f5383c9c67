#!/bin/bash
# startup.sh - the fixed cost of a no-op export (issue 17): each tool's
# start (`--version`) and a whole export of the example CNN by both paths,
# as CPU time over every process (perf stat, children included) and page
# faults, then the wall time of 20 exports in a row (emit's fsync of its
# output included).  Two builds side by side when given two bin/ folders:
#     bench/startup.sh [BINDIR [BINDIR2]]
# Needs perf; the load average is printed before and after.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
EX=$ROOT/examples/cnn.pt
DIRS=("${@:-$ROOT/bin}")
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
command -v perf > /dev/null || { echo "startup.sh: needs perf" >&2; exit 2; }
echo "load $(cut -d' ' -f1-3 /proc/loadavg)"
stat_line() { # LABEL CMD...: perf stat -r N of CMD, CPU ms and page faults
	local label=$1 n=$2
	shift 2
	perf stat -r "$n" -x, -e task-clock,page-faults "$@" 2>&1 > /dev/null |
		awk -F, -v l="$label" '{x[NR]=$1} END {printf "%-40s %6.2f ms CPU %6d page faults\n", l, x[1], x[2]}'
}
for b in script trace lower fold emit check pt2onnx; do
	for d in "${DIRS[@]}"; do
		stat_line "$b --version ($d)" 30 "$d/$b" --version
	done
done
for p in script trace; do
	for d in "${DIRS[@]}"; do
		stat_line "export --$p ($d)" 20 "$d/pt2onnx" "$EX" --$p \
			--input 'x=f32[1,3,8,8]' -o "$T/a.onnx"
	done
done
for d in "${DIRS[@]}"; do
	s=$(date +%s%N)
	for i in $(seq 20); do
		"$d/pt2onnx" "$EX" --script --input 'x=f32[1,3,8,8]' -o "$T/a.onnx"
	done
	e=$(date +%s%N)
	printf "%-40s %6d ms wall a run\n" "export --script x20 ($d)" $(( (e - s) / 20000000 ))
done
echo "load $(cut -d' ' -f1-3 /proc/loadavg)"

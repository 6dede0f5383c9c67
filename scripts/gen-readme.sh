#!/bin/bash
# gen-readme.sh - regenerates README.md's generated sections from the built
# tools, so the README cannot drift from them: each tool's --help, and the
# operator table from `script`, `trace` and `lower --list-ops`.  `make readme` runs it; the test
# tests/801-readme.bats fails when README.md is stale.
#
#   scripts/gen-readme.sh [BINDIR] > README.new
set -euo pipefail
cd "$(dirname "$0")/.."
bindir=${1:-bin}

tool_options() {
	local t
	for t in pt2onnx script trace unpt2 lower fold emit check; do
		[ -x "$bindir/$t" ] || continue
		echo "### \`$t\`"
		echo
		echo '```'
		"$bindir/$t" --help
		echo '```'
		echo
	done
}

# "9 10 11 13 14" -> "9–11, 13–14"
ranges() {
	awk '{ n = split($0, v, " "); out = ""; i = 1
		while (i <= n) { j = i; while (j < n && v[j + 1] == v[j] + 1) j++
			out = out (out == "" ? "" : ", ") (j > i ? v[i] "–" v[j] : v[i]); i = j + 1 }
		print out }'
}

# One row per operator any stage knows: script's shape rule (`script
# --list-ops`), trace's kernels on the CPU and CUDA backends (`trace
# --list-ops`), and the opsets lower converts it at (`lower --list-ops`).
operators() {
	if [ ! -x "$bindir/lower" ]; then
		echo "No operator converts yet: \`lower\` is not built."
		return
	fi
	local tmp t
	tmp=$(mktemp -d)
	for t in script trace lower; do
		"$bindir/$t" --list-ops 2>/dev/null | sed -E 's/:( |$)/\t/' | sort > "$tmp/$t" || : > "$tmp/$t"
	done
	echo "| operator | script shape rule | trace CPU | trace CUDA | lower, opsets |"
	echo "|---|---|---|---|---|"
	cut -f1 "$tmp/script" "$tmp/trace" "$tmp/lower" | sort -u | while read -r op; do
		local s c g l
		s=$(awk -F'\t' -v o="$op" '$1 == o { print "✓" }' "$tmp/script")
		c=$(awk -F'\t' -v o="$op" '$1 == o && $2 ~ /cpu/ { print "✓" }' "$tmp/trace")
		g=$(awk -F'\t' -v o="$op" '$1 == o && $2 ~ /cuda/ { print "✓" }' "$tmp/trace")
		l=$(awk -F'\t' -v o="$op" '$1 == o { print $2 }' "$tmp/lower" | ranges)
		echo "| \`$op\` | $s | $c | $g | $l |"
	done
	echo
	echo "$(cut -f1 "$tmp/script" "$tmp/trace" "$tmp/lower" | sort -u | wc -l) operators:" \
	     "$(wc -l < "$tmp/script") with a script shape rule," \
	     "$(grep -c cpu "$tmp/trace" || true) traced on the CPU," \
	     "$(grep -c cuda "$tmp/trace" || true) on CUDA," \
	     "$(wc -l < "$tmp/lower") converted by lower."
	rm -rf "$tmp"
}

replace() { # NAME: replaces the lines between the BEGIN/END markers with stdin
	awk -v name="$1" -v body="$2" '
		$0 ~ "<!-- BEGIN " name " " { print; while ((getline line < body) > 0) print line; skip = 1; next }
		$0 ~ "<!-- END " name " " { skip = 0 }
		!skip { print }
	' README.md.tmp > README.md.tmp2 && mv README.md.tmp2 README.md.tmp
}

cp README.md README.md.tmp
tmp=$(mktemp)
tool_options > "$tmp"; replace tool-options "$tmp"
operators > "$tmp"; replace operators "$tmp"
rm -f "$tmp"
cat README.md.tmp
rm -f README.md.tmp

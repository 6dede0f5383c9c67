#!/bin/bash
# gen-readme.sh - regenerates README.md's generated sections from the built
# tools, so the README cannot drift from them: each tool's --help, and the
# operator table from `lower --list-ops`.  `make readme` runs it; the test
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

operators() {
	if [ ! -x "$bindir/lower" ]; then
		echo "No operator converts yet: \`lower\` is not built."
		return
	fi
	local opsets
	opsets=$("$bindir/lower" --list-ops | cut -d: -f3- | tr ' ' '\n' | grep -E '^[0-9]+$' | sort -n | uniq | tr '\n' ' ')
	echo -n "| aten operator |"
	for o in $opsets; do echo -n " $o |"; done
	echo
	echo -n "|---|"
	for o in $opsets; do echo -n "---|"; done
	echo
	"$bindir/lower" --list-ops | while read -r op vers; do
		op=${op%:}
		echo -n "| \`$op\` |"
		for o in $opsets; do
			if [[ " $vers " == *" $o "* ]]; then echo -n " ✓ |"; else echo -n "  |"; fi
		done
		echo
	done
	echo
	echo "$("$bindir/lower" --list-ops | wc -l) operators."
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

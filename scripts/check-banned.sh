#!/bin/sh
# check-banned.sh - fails when project C code calls a banned function
# (git's banned.h list: unbounded string copies and formatting).
cd "$(dirname "$0")/.." || exit 2
pat='(^|[^_a-zA-Z0-9])(strcpy|strcat|strncpy|strncat|sprintf|vsprintf|gets)[[:space:]]*\('
if grep -nE "$pat" $(find lib tools tests/unit -name '*.c' -o -name '*.h' -o -name '*.cu') 2>/dev/null; then
	echo "check-banned: the calls above use banned functions (use snprintf, memcpy)" >&2
	exit 1
fi
exit 0

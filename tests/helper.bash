# helper.bash - shared set-up for every bats file: the binaries under test,
# a scratch directory, and oracles.  Load with `load helper`.
#
#   PT2ONNX_BINDIR   where the tools are (default: the build tree's bin/)
#   PT2ONNX_VALGRIND set to 1 to run every tool under valgrind
bats_require_minimum_version 1.5.0
export LC_ALL=C
TESTS_DIR="$(cd "$(dirname "${BATS_TEST_FILENAME}")" && pwd)"
ROOT_DIR="$(cd "$TESTS_DIR/.." && pwd)"
BINDIR="${PT2ONNX_BINDIR:-$ROOT_DIR/bin}"
ORACLE_DIR="$TESTS_DIR/oracle"
PYTHON=/usr/bin/python3

# run a tool from the build tree, optionally under valgrind
tool() {
	local name=$1; shift
	if [ "${PT2ONNX_VALGRIND:-0}" = 1 ]; then
		valgrind -q --error-exitcode=99 --leak-check=no "$BINDIR/$name" "$@"
	else
		"$BINDIR/$name" "$@"
	fi
}
emit() { tool emit "$@"; }
check() { tool check "$@"; }
pt2onnx() { tool pt2onnx "$@"; }

# python3-onnx's checker, full_check: the oracle for what emit writes
onnx_checker() {
	"$PYTHON" "$ORACLE_DIR/onnx_check.py" "$@"
}

# ONNX Runtime (npm onnxruntime-node): runs a model on inputs given as
# NAME=FILE.npy and writes each output as OUTDIR/NAME.npy
ort_run() {
	node "$ORACLE_DIR/ort_run.js" "$@"
}

setup() {
	WORK="$BATS_TEST_TMPDIR"
	cd "$WORK" || return 1
}

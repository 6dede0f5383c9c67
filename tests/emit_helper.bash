# emit_helper.bash - what the 1N-emit*.bats files share, on top of
# helper.bash: the sample IRs, the numpy reference, and oracle wrappers.
# Load with `load helper` then `load emit_helper`.
bats_require_minimum_version 1.5.0 # run -N
DATA="$TESTS_DIR/data"

# numpy references and comparisons (tests/oracle/reference.py)
reference() {
	"$PYTHON" "$ORACLE_DIR/reference.py" "$@"
}

# the ONNX checker on a copy of MODEL (and the data files given after it):
# onnx 1.12's check_model(path, full_check=True) writes the shape-inferred
# model back over the file it checks, which would change what later
# assertions look at.
check_model() {
	local dir
	dir=$(mktemp -d "$WORK/check.XXXXXX") || return 1
	cp "$@" "$dir/" || return 1
	(cd "$dir" && onnx_checker "$(basename "$1")")
}

# runs python with `m` the loaded model (external data not loaded) and
# `onnx` imported, printing what the expression gives
onnx_py() {
	local model=$1 expr=$2
	"$PYTHON" -c "import onnx, sys
m = onnx.load(sys.argv[1], load_external_data=False)
print(($expr))" "$model"
}

# no file left in the current directory but those named
only_files() {
	local got want
	got=$(ls -A | sort | tr '\n' ' ')
	want=""
	if [ $# -gt 0 ]; then
		want=$(printf '%s\n' "$@" | sort | tr '\n' ' ')
	fi
	if [ "$got" != "$want" ]; then
		echo "files: '$got', expected '$want'"
		return 1
	fi
}

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

# The `trace` op tests (81-83): $M/gen.py builds the archives under $M/m
# with tests/oracle/trace_cases.py (build_all); show its log if it fails.
trace_cases_gen() {
	mkdir -p "$M/m"
	PYTHONPATH="$ORACLE_DIR" "$PYTHON" "$M/gen.py" "$M/m" > "$M/gen.log" 2>&1 ||
		{ cat "$M/gen.log" >&2; return 1; }
}

# trace_group RULE GROUP [TRACE_ARG...]: traces every model of GROUP under
# $M/m (inputs in order, then TRACE_ARGs) and compares its outputs with
# torch's by RULE (ops or moves, see trace_cases.py); prints one line per
# failure.
trace_group() {
	local rule=$1 group=$2 d i dirs=() args rc=0
	shift 2

	for d in "$M"/m/*/; do
		d=${d%/}
		grep -q "\"group\": \"$group\"" "$d/meta.json" || continue
		args=()
		for i in $(ls "$d"/in*.npy | sort -V); do
			args+=(--input "$i")
		done
		rm -rf "$d/got"
		if ! tool trace "$d/model.pt" "${args[@]}" "$@" \
		     --save-outputs "$d/got" -o "$d/trace.ir" 2> "$d/err"; then
			echo "$(basename "$d"): trace failed: $(head -c 600 "$d/err")"
			rc=1
		fi
		dirs+=("$d")
	done
	[ ${#dirs[@]} -gt 0 ] || { echo "no models in group $group"; return 1; }
	"$PYTHON" "$ORACLE_DIR/trace_cases.py" compare "$rule" "${dirs[@]}" || rc=1
	return $rc
}

# The script | lower | fold | emit tests (54, 55-lower-extra-sym*): each file
# defines build NAME MODE, which writes NAME.pt, NAME.in.txt (name=spec a
# line), the inputs NAME.npy and torch's outputs want_NAME_K.npy (with
# tests/oracle/export_cases.py save; run_export_build runs such a script).
run_export_build() {
	PYTHONPATH="$ORACLE_DIR" "$PYTHON" "$@"
}

# export_run_onnx NAME AIR OPSET: lower | fold | emit, checked, run by ONNX
# Runtime, compared with torch's outputs (export_cases.py compare)
export_run_onnx() {
	local name=$1 air=$2 o=$3 feeds=()
	while IFS= read -r l; do
		feeds+=("${l%%=*}=${l%%=*}.npy")
	done < "$name.in.txt"
	set -o pipefail
	tool lower --opset "$o" "$air" | tool fold |
		emit -o "$name-$o.onnx" || return 1
	onnx_checker "$name-$o.onnx" || return 1
	rm -rf "out-$o"
	ort_run "$name-$o.onnx" "out-$o" "${feeds[@]}" > /dev/null || return 1
	"$PYTHON" "$ORACLE_DIR/export_cases.py" compare "$name" "out-$o" "$name-$o.onnx"
}

# export_check_model NAME MODE OPSETS...: build, script, then
# export_run_onnx at each opset
export_check_model() {
	local name=$1 mode=$2 o specs=()
	shift 2
	build "$name" "$mode" || return 1
	while IFS= read -r l; do
		specs+=(-i "$l")
	done < "$name.in.txt"
	tool script "$name.pt" "${specs[@]}" -o "$name.air" || return 1
	for o in "$@"; do
		export_run_onnx "$name" "$name.air" "$o" || return 1
	done
}

# Models exported once with dynamic dims and run at several sizes (tests/56,
# tests/58): the test file's `build NAME MODE` writes NAME.pt, NAME.spec and
# per size K the inputs and torch's outputs (tests/oracle/sizes.py).
# Every step stops the helper at its first failure.

# sizes_script_model NAME: NAME.air from NAME.pt with the specs of NAME.spec
sizes_script_model() {
	local name=$1 specs=() l
	while IFS= read -r l; do
		specs+=(-i "$l")
	done < "$name.spec"
	tool script "$name.pt" "${specs[@]}" -o "$name.air"
}

# sizes_run NAME OPSET: lower | fold | emit once, checked, then run by ONNX
# Runtime at every size built, each compared with torch's outputs
sizes_run() {
	local name=$1 o=$2
	set -o pipefail
	tool lower --opset "$o" "$name.air" | tool fold |
		emit -o "$name-$o.onnx" || return 1
	onnx_checker "$name-$o.onnx" || return 1
	sizes_ort "$name" "$name-$o.onnx" "out-$o"
}

# sizes_ort NAME MODEL OUT: MODEL run by ONNX Runtime on the inputs of
# every size K built for NAME (outputs in OUT-K), each compared with
# torch's outputs at that size
sizes_ort() {
	local name=$1 model=$2 out=$3 k feeds l
	for k in $(ls want_"$name"-*_0.npy | sed 's/.*-\([0-9]*\)_0.npy/\1/'); do
		feeds=()
		while IFS= read -r l; do
			feeds+=("${l%%=*}=$name-$k.${l%%=*}.npy")
		done < "$name.spec"
		rm -rf "$out-$k"
		ort_run "$model" "$out-$k" "${feeds[@]}" > /dev/null ||
			return 1
		"$PYTHON" "$ORACLE_DIR/export_cases.py" compare "$name-$k" \
			"$out-$k" "$model" || return 1
	done
}

# sizes_check_model NAME MODE OPSETS...: build, script, sizes_run each
sizes_check_model() {
	local name=$1 mode=$2 o
	shift 2
	build "$name" "$mode" || return 1
	sizes_script_model "$name" || return 1
	for o in "$@"; do
		sizes_run "$name" "$o" || return 1
	done
}

# sizes_export NAME [PT2ONNX_ARG...]: `pt2onnx NAME.pt` with the example
# sizes of NAME.spec and the arguments given (--dynamic-axes ...), checked
# by onnx.checker, every dim it declares as a number the same at every size
# (sizes.py declared), then run by ONNX Runtime at every size built
sizes_export() {
	local name=$1 specs=() l
	shift
	while IFS= read -r l; do
		specs+=(-i "$l")
	done < "$name.spec"
	pt2onnx "$name.pt" "${specs[@]}" "$@" -o "$name.onnx" || return 1
	onnx_checker "$name.onnx" || return 1
	"$PYTHON" "$ORACLE_DIR/sizes.py" declared "$name" "$name.onnx" ||
		return 1
	sizes_ort "$name" "$name.onnx" "out"
}

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
# the Python harnesses (tests/conformance/onnx_info.py) validate opsets
# above python3-onnx's with this build's check, not with bin/'s
export PT2ONNX_CHECK="${PT2ONNX_CHECK:-$BINDIR/check}"
ORACLE_DIR="$TESTS_DIR/oracle"
# PT2ONNX_PYTHON: another interpreter (the GPU machines' python3)
PYTHON="${PT2ONNX_PYTHON:-/usr/bin/python3}"

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

# --- what a test needs (docs/testing.md) ------------------------------------
# need_torch [MODULE...] and need_ort, in a test: skip it when python3-torch
# (or one of the extra modules named, say torchvision) or ONNX Runtime (node
# and tests/oracle/node_modules/onnxruntime-node, see `make deps`) is
# missing.  In setup_file (`need_torch || return 0`): every test of the
# file skips with the reason (bats 1.8 cannot skip from setup_file; the
# reason is passed on in BATS_PT2ONNX_SKIP, read by setup and skip_missing).
# PT2ONNX_NO_TORCH=1 and PT2ONNX_NO_ORT=1 act as if they were missing.
# Modules are looked up, not imported: fast enough for every test.
need_torch() {
	local m missing=
	for m in torch "$@"; do
		if [ "${PT2ONNX_NO_TORCH:-0}" = 1 ] ||
		   ! "$PYTHON" -c "import importlib.util, sys; sys.exit(importlib.util.find_spec('$m') is None)" 2>/dev/null; then
			missing="$missing python3-$m"
		fi
	done
	[ -z "$missing" ] || need_skip "needs torch:$missing missing"
}

need_ort() {
	if [ "${PT2ONNX_NO_ORT:-0}" = 1 ] || ! command -v node >/dev/null ||
	   [ ! -d "$ORACLE_DIR/node_modules/onnxruntime-node" ]; then
		need_skip "needs ONNX Runtime: node or onnxruntime-node missing (make deps)"
	fi
}

# need_skip REASON: skip this test, or (in setup_file) every test of the file
need_skip() {
	if [ -z "${BATS_TEST_NAME:-}" ]; then
		export BATS_PT2ONNX_SKIP="$1"
		return 1
	fi
	skip "$1"
}

# skip_missing: what setup does first (for files with their own setup)
skip_missing() {
	[ -z "${BATS_PT2ONNX_SKIP:-}" ] || skip "$BATS_PT2ONNX_SKIP"
}

# --- models built by torch, once, cached (docs/testing.md) -----------------
# Under build/fixtures (shared by the plain and the ASan runs), one
# directory per build, keyed by a hash of the build script and the local
# modules it imports (fixture_sources), its arguments (and the contents of
# those that are files), tests/oracle/fixtures.py and the versions of
# torch, torchvision and numpy.

# the installed oracle versions, read from their version files (no import)
fixture_versions() {
	"$PYTHON" - <<-'PY'
	import importlib.util, os
	for m in ("torch", "torchvision", "numpy"):
	    s = importlib.util.find_spec(m)
	    v = s and os.path.join(os.path.dirname(s.origin), "version.py")
	    print(m, open(v).read() if v and os.path.exists(v) else "none")
	PY
}

# fixture_sources SCRIPT: SCRIPT and the modules it imports, at any depth,
# from tests/oracle or its own directory (the Python the build runs)
fixture_sources() {
	local todo=("$1") seen=" " f n d
	while [ ${#todo[@]} -gt 0 ]; do
		f=${todo[0]}
		todo=("${todo[@]:1}")
		case $seen in *" $f "*) continue ;; esac
		seen="$seen$f "
		echo "$f"
		for n in $(sed -nE 's/^[[:space:]]*(import|from)[[:space:]]+([A-Za-z_][A-Za-z0-9_]*).*/\2/p' "$f" | sort -u); do
			for d in "$ORACLE_DIR" "$(dirname "$1")"; do
				[ ! -f "$d/$n.py" ] || todo+=("$d/$n.py")
			done
		done
	done
}

# fixture_exec DIR SCRIPT ARG...: runs SCRIPT ARG... in DIR (output to
# DIR/.build.log) through this bats file's build server (tests/oracle/
# fixtures.py: torch imported once per file), started at the first build;
# plain python3 when the server cannot be had, or PT2ONNX_FIXTURE_SERVER=0
fixture_exec() {
	local dir=$1 sockf="$BATS_FILE_TMPDIR/fixtures.sock" sock i rc
	shift
	if [ "${PT2ONNX_FIXTURE_SERVER:-1}" = 0 ]; then
		(cd "$dir" && PYTHONPATH="$ORACLE_DIR" "$PYTHON" "$@" > .build.log 2>&1)
		return
	fi
	if [ ! -s "$sockf" ]; then
		sock=$(mktemp -d /tmp/pt2onnx-fx.XXXXXX)/s
		echo "$sock" > "$sockf"
		PYTHONPATH="$ORACLE_DIR" nohup "$PYTHON" "$ORACLE_DIR/fixtures.py" serve \
			"$sock" "$BATS_FILE_TMPDIR" </dev/null >/dev/null 2>&1 3>&- &
		for i in $(seq 200); do
			[ -S "$sock" ] && break
			sleep 0.1
		done
	fi
	sock=$(cat "$sockf")
	PYTHONPATH="$ORACLE_DIR" "$PYTHON" "$ORACLE_DIR/fixtures.py" run "$sock" "$dir" "$@"
	rc=$?
	[ $rc -eq 75 ] || return $rc
	(cd "$dir" && PYTHONPATH="$ORACLE_DIR" "$PYTHON" "$@" > .build.log 2>&1)
}

# fixture_run SCRIPT ARG...: what `cd DEST && python3 SCRIPT ARG...` would
# write, copied into DEST (default the current directory; FIXTURE_DEST
# sets it) from the cache, built there first when missing.  An argument
# @OUT stands for the directory the script writes to.  On a failed build
# prints the build's log and returns 1.
fixture_run() {
	local script=$1 dest="${FIXTURE_DEST:-.}" a key d
	if [ -z "${PT2ONNX_FIXTURE_VERSIONS:-}" ]; then
		PT2ONNX_FIXTURE_VERSIONS=$(fixture_versions | sha256sum | cut -c1-16)
		export PT2ONNX_FIXTURE_VERSIONS
	fi
	key=$({
		echo "$PT2ONNX_FIXTURE_VERSIONS"
		fixture_sources "$script" | while IFS= read -r a; do cat "$a"; done
		cat "$ORACLE_DIR/fixtures.py"
		for a in "${@:2}"; do
			printf '%s\0' "$a"
			[ ! -f "$a" ] || cat "$a"
		done
	} | sha256sum | cut -c1-20)
	d="${PT2ONNX_FIXTURES:-$ROOT_DIR/build/fixtures}/$(basename "$script" .py)/$key"
	if [ ! -f "$d/.done" ]; then
		mkdir -p "${d%/*}"
		(
			flock 9
			[ ! -f "$d/.done" ] || exit 0
			rm -rf "$d.tmp" && mkdir -p "$d.tmp" || exit 1
			args=()
			for a in "${@:2}"; do
				[ "$a" != @OUT ] || a="$d.tmp"
				args+=("$a")
			done
			if ! fixture_exec "$d.tmp" "$(cd "$(dirname "$script")" && pwd)/$(basename "$script")" "${args[@]}"; then
				echo "fixture_run: $script ${*:2} failed:" >&2
				cat "$d.tmp/.build.log" >&2
				exit 1
			fi
			rm -rf "$d" && mv "$d.tmp" "$d" && touch "$d/.done"
		) 9> "$d.lock" || return 1
	fi
	mkdir -p "$dest" && cp -r "$d/." "$dest/" && rm -f "$dest/.done" "$dest/.build.log"
}

setup() {
	skip_missing
	WORK="$BATS_TEST_TMPDIR"
	cd "$WORK" || return 1
}

# The `trace` op tests (301-303): $M/gen.py builds the archives under $M/m
# with tests/oracle/trace_cases.py (build_all); show its log if it fails.
# Built once and cached (fixture_run).
trace_cases_gen() {
	FIXTURE_DEST="$M/m" fixture_run "$M/gen.py" @OUT
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

# The script | lower | fold | emit tests (404, 406-408 and others): each file
# defines build NAME MODE, which writes NAME.pt, NAME.in.txt (name=spec a
# line), the inputs NAME.npy and torch's outputs want_NAME_K.npy (with
# tests/oracle/export_cases.py save; run_export_build runs such a script).
# Built once and cached (fixture_run).
run_export_build() {
	fixture_run "$@"
}

# export_run_onnx NAME AIR OPSET...: lower | fold | emit NAME-OPSET.onnx at
# each OPSET, then each checked, run by ONNX Runtime and compared with
# torch's outputs (one Python and one node process: export_cases.py runs)
export_run_onnx() {
	local name=$1 air=$2 o feeds=""
	while IFS= read -r l; do
		feeds+=" ${l%%=*}=${l%%=*}.npy"
	done < "$name.in.txt"
	set -o pipefail
	for o in "${@:3}"; do
		tool lower --opset "$o" "$air" | tool fold |
			emit -o "$name-$o.onnx" || return 1
	done
	for o in "${@:3}"; do
		echo "$name $name-$o.onnx$feeds"
	done | "$PYTHON" "$ORACLE_DIR/export_cases.py" runs --checker
}

# export_check_model NAME MODE OPSETS...: build, script, then
# export_run_onnx at the opsets
export_check_model() {
	local name=$1 mode=$2 specs=()
	shift 2
	build "$name" "$mode" || return 1
	while IFS= read -r l; do
		specs+=(-i "$l")
	done < "$name.in.txt"
	tool script "$name.pt" "${specs[@]}" -o "$name.air" || return 1
	export_run_onnx "$name" "$name.air" "$@"
}

# Models exported once with dynamic dims and run at several sizes (tests/409,
# tests/412): the test file's `build NAME MODE` writes NAME.pt, NAME.spec and
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
	sizes_ort "$name" "$name-$o.onnx" --checker
}

# sizes_ort NAME MODEL [--checker]: MODEL (checked by onnx.checker first
# with --checker) run by ONNX Runtime on the inputs of every size K built
# for NAME, each compared with torch's outputs at that size (one Python
# and one node process for all: export_cases.py runs)
sizes_ort() {
	local name=$1 model=$2 k l line
	for k in $(ls want_"$name"-*_0.npy | sed 's/.*-\([0-9]*\)_0.npy/\1/'); do
		line="$name-$k $model"
		while IFS= read -r l; do
			line+=" ${l%%=*}=$name-$k.${l%%=*}.npy"
		done < "$name.spec"
		echo "$line"
	done | "$PYTHON" "$ORACLE_DIR/export_cases.py" runs "${@:3}"
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

# spawn CMD...: runs CMD (a path, not a shell function) in the background
# with SIGINT and SIGQUIT at their defaults (a non-interactive shell's `&`
# jobs ignore them; env --default-signal undoes it); its pid goes to ./pid,
# its exit status (128 + N when signal N ended it) to ./rc when it ends,
# its output to ./spawn.out and ./spawn.err
spawn() {
	rm -f pid rc
	bash -c 'env --default-signal=INT,QUIT "$@" > spawn.out 2> spawn.err &
		 echo $! > pid
		 wait $!; echo $? > rc.tmp; mv rc.tmp rc' _ "$@" 3>&- &
	wait_for '[ -s pid ]'
}

# wait_for CONDITION [TENTHS]: evaluates CONDITION every 0.1 s until it
# holds (0) or TENTHS tries (default 300) have failed (1)
wait_for() {
	local i
	for ((i = 0; i < ${2:-300}; i++)); do
		eval "$1" && return 0
		sleep 0.1
	done
	return 1
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
	"$PYTHON" "$ORACLE_DIR/sizes.py" declared "$name" "$name.onnx" ||
		return 1
	sizes_ort "$name" "$name.onnx" --checker
}

# tests/420 and 605: transb_export NAME [pt2onnx options]: NAME.onnx from
# tests/lower/transb_models.py's NAME.pt by the trace path, onnx.checker,
# ONNX Runtime on NAME_in_K.npy compared with torch's NAME_want_K.npy
transb_export() {
	local name=$1 f k=0 ins=() feeds=() n
	shift
	fixture_run "$TESTS_DIR/lower/transb_models.py" || return 1
	for f in "${name}"_in_*.npy; do
		ins+=(--input "$f")
	done
	pt2onnx "$name.pt" --trace "${ins[@]}" "$@" -o "$name.onnx" || return 1
	onnx_checker "$name.onnx" || return 1
	for n in $("$PYTHON" -c "import onnx, sys; print(' '.join(i.name for i in onnx.load(sys.argv[1]).graph.input))" "$name.onnx"); do
		feeds+=("$n=${name}_in_$k.npy")
		k=$((k + 1))
	done
	rm -rf "out_$name"
	ort_run "$name.onnx" "out_$name" "${feeds[@]}" > /dev/null || return 1
	k=0
	for n in $("$PYTHON" -c "import onnx, sys; print(' '.join(o.name for o in onnx.load(sys.argv[1]).graph.output))" "$name.onnx"); do
		"$PYTHON" "$ORACLE_DIR/reference.py" compare \
			"out_$name/$n.npy" "${name}_want_$k.npy" 1e-5 || return 1
		k=$((k + 1))
	done
	[ ! -f "${name}_want_$k.npy" ] && [ "$k" -gt 0 ]
}

# Forward arguments that are not tensors (tests/args/make_args_models.py,
# issue 14).  args_build: the archives, specs, inputs and torch's outputs
# of every case there into the current directory (cached, one build for
# every file that uses them).
args_build() {
	fixture_run "$TESTS_DIR/args/make_args_models.py" all
}

# args_run STAGE PT NAME SPECFILE [OPSET]: STAGE (script or trace) PT with
# one --input per line of SPECFILE | lower | fold | emit NAME-STAGE.onnx,
# checked by onnx.checker, run by ONNX Runtime on NAME's inputs
# (NAME.in.LEAF.npy, fed as graph input LEAF) and compared with torch's
args_run() {
	local stage=$1 pt=$2 name=$3 specf=$4 o=${5:-14} specs=() feeds=() l f
	while IFS= read -r l; do
		specs+=(-i "$l")
	done < "$specf"
	(set -o pipefail
	 tool "$stage" "$pt" "${specs[@]}" | tool lower --opset "$o" |
		tool fold | emit -o "$name-$stage.onnx") || return 1
	onnx_checker "$name-$stage.onnx" || return 1
	for f in "$name".in.*.npy; do
		[ -e "$f" ] || continue
		l=${f#"$name".in.}
		feeds+=("${l%.npy}=$f")
	done
	rm -rf "out-$name-$stage"
	ort_run "$name-$stage.onnx" "out-$name-$stage" "${feeds[@]}" \
		> /dev/null || return 1
	"$PYTHON" "$ORACLE_DIR/export_cases.py" compare "$name" \
		"out-$name-$stage" "$name-$stage.onnx"
}

# Packed sequences (tests/args/make_packed_models.py).  packed_build: the
# archives, inputs and torch's outputs per set of lengths (cached).
packed_build() {
	fixture_run "$TESTS_DIR/args/make_packed_models.py"
}

# packed_run STAGE PT NAME [OPSET]: STAGE (script or trace) PT on NAME's
# first inputs (.npy) | lower | fold | emit NAME-STAGE.onnx, checked, then
# packed_ort
packed_run() {
	local stage=$1 pt=$2 name=$3 o=${4:-13} out=$3-$1.onnx
	(set -o pipefail
	 tool "$stage" "$pt" -i "x=$name-0.x.npy" \
		-i "lengths=$name-0.lengths.npy" -i "h0=$name-0.h0.npy" |
		tool lower --opset "$o" | tool fold | emit -o "$out") || return 1
	packed_ort "$name" "$out" --checker
}

# packed_ort NAME MODEL [--checker]: MODEL (checked by onnx.checker first
# with --checker) run by ONNX Runtime on every set of lengths built for
# NAME (h0 fed where MODEL has it), each compared with torch's outputs
# (one Python and one node process for all: export_cases.py runs)
packed_ort() {
	local name=$1 out=$2 k
	for k in 0 1 2 3; do
		echo "$name-$k $out x=$name-$k.x.npy lengths=$name-$k.lengths.npy h0?=$name-$k.h0.npy"
	done | "$PYTHON" "$ORACLE_DIR/export_cases.py" runs "${@:3}"
}

# trace_kernels_match NAME: the trace kernels' own values (trace
# --save-outputs on NAME/traced.pt with input set 1 of an opcases case)
# against torch's outputs, in dtype, shape and value (NaNs in the same
# places, the finite values within 1e-5 of torch's largest)
trace_kernels_match() {
	local ins=()
	mapfile -t ins < <("$PYTHON" -c 'import json, sys
for i in json.load(open(sys.argv[1] + "/meta.json"))["inputs"]:
    print("--input"); print(sys.argv[1] + "/in1/" + i["name"] + ".npy")' "$1")
	rm -rf "$1/tk"
	tool trace "$1/traced.pt" "${ins[@]}" --save-outputs "$1/tk" -o "$1/tk.ir" || return 1
	"$PYTHON" - "$1" <<'PY'
import glob, sys
import numpy as np
d = sys.argv[1]
n = len(glob.glob(f"{d}/out1/*.npy"))
assert len(glob.glob(f"{d}/tk/out*.npy")) == n, "trace: another number of outputs"
for j in range(n):
    g, w = np.load(f"{d}/tk/out{j}.npy"), np.load(f"{d}/out1/{j}.npy")
    assert g.dtype == w.dtype and g.shape == w.shape, f"output {j}: {g.dtype}{g.shape}, torch's {w.dtype}{w.shape}"
    assert (np.isnan(g) == np.isnan(w)).all() if w.dtype.kind == "f" else True, f"output {j}: NaNs"
    fin = np.isfinite(w) if w.dtype.kind == "f" else np.ones(w.shape, bool)
    scale = max(float(np.max(np.abs(w[fin]))), 1e-30) if w.size else 1
    err = float(np.max(np.abs(g[fin].astype(np.float64) - w[fin]))) / scale if w.size else 0
    assert err <= 1e-5, f"output {j}: relative error {err:.3g}"
PY
}

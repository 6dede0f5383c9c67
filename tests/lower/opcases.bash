# opcases.bash - the harness of the lower tests that compare pt2onnx with
# eager torch per operator case (417-419, 421-429, 431, 432): a case NAME
# is built by tests/lower/$OPCASES_GEN (make_opgaps.py, make_long_tail.py
# ...; through tests/lower/opcases.py's write_case), converted on the three
# paths (trace, script of the traced archive, script of the scripted one),
# checked by onnx.checker, run in ONNX Runtime on every input set and
# compared with torch in dtype, shape and value (tests/lower/opcheck.py:
# one Python and one node process for all of a case's models).  Loaded by
# the bats file after it sets OPCASES_GEN.

# every file of the harness builds with torch and runs ONNX Runtime
setup_file() {
	need_torch || return 0
	need_ort || return 0
}

# build NAME: the model's archives, inputs and torch's outputs under NAME/,
# and pt2onnx's arguments on each path under NAME/args/
build() {
	FIXTURE_DEST="$1" fixture_run "$TESTS_DIR/lower/$OPCASES_GEN" "$1" @OUT &&
		"$PYTHON" "$TESTS_DIR/lower/opcheck.py" args "$1"
}

# convert NAME PATH OPSET: NAME/PATH-OPSET.onnx by pt2onnx on that path
convert() {
	local args
	mapfile -t args < "$1/args/${2/:/_}" || return 1
	pt2onnx "${args[@]}" -o "$1/${2/:/_}-$3.onnx" --opset-version "$3"
}

# all NAME [OPSET...]: every path ($PATHS, default all three) and opset
# (default 9 13 17) converts, passes the checker (python3-onnx (1.12)
# knows opsets up to 17: pt2onnx's own check above) and matches torch
all() {
	build "$1" || return 1
	local p o name=$1 opsets=("${@:2}") runs=()
	[ ${#opsets[@]} -gt 0 ] || opsets=(9 13 17)
	for p in ${PATHS:-trace script:traced script:scripted}; do
		for o in "${opsets[@]}"; do
			convert "$name" "$p" "$o" || { echo "$name $p $o: not converted"; return 1; }
			if [ "$o" -gt 17 ] && ! check "$name/${p/:/_}-$o.onnx" > /dev/null; then
				echo "check: $name/${p/:/_}-$o.onnx"
				echo "$name $p $o: differs"
				return 1
			fi
			runs+=("$p" "$o")
		done
	done
	"$PYTHON" "$TESTS_DIR/lower/opcheck.py" same "$name" "${runs[@]}"
}

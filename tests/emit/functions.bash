# functions.bash - the set-up of the local-function files (873 TYPES, 874
# True): tests/emit/make_functions.py's models, torch's own exports of them
# and their inputs, built once into $FIX.  Load after helper.

setup_file() {
	need_torch || return 0
	need_ort || return 0
	export FIX="$BATS_FILE_TMPDIR/fix"
	FIXTURE_DEST="$FIX" fixture_run "$TESTS_DIR/emit/make_functions.py"
}

# ort_matches_torch MODEL: ONNX Runtime's outputs of MODEL on the blocks
# model's inputs at batch 3 and 5 are torch's (1e-5)
ort_matches_torch() {
	local n
	for n in 3 5; do
		run -0 ort_run "$1" "out$n" x="$FIX/x$n.npy"
		run -0 "$PYTHON" "$ORACLE_DIR/reference.py" compare "out$n"/*.npy "$FIX/want$n.npy" 1e-5
	done
}

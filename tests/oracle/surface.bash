# surface.bash - the set-up of the wrapper-surface files (804 --report, 805
# --verify, 806 --artifacts-dir): surface_models.py's archives built once
# into the file's scratch directory ($F), each test run in its own.  Load
# after helper; SURFACE_NEEDS_ORT=1 first where the file needs ONNX Runtime.

setup_file() {
	need_torch || return 0
	if [ "${SURFACE_NEEDS_ORT:-0}" = 1 ]; then
		need_ort || return 0
	fi
	cd "$BATS_FILE_TMPDIR" || return 1
	fixture_run "$ORACLE_DIR/surface_models.py"
}

surface_setup() {
	skip_missing
	cd "$BATS_TEST_TMPDIR" || return 1
	F=$BATS_FILE_TMPDIR
}

setup() {
	surface_setup
}

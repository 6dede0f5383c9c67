# functions.bash - the set-up of the local-function files (873 TYPES, 874
# True): tests/emit/make_functions.py's models, torch's own exports of them
# and their inputs, built once into $FIX.  Load after helper.

setup_file() {
	need_torch || return 0
	need_ort || return 0
	export FIX="$BATS_FILE_TMPDIR/fix"
	FIXTURE_DEST="$FIX" fixture_run "$TESTS_DIR/emit/make_functions.py"
}

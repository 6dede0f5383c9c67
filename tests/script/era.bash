# era.bash - the set-up of the era files (205 script, 498 lower): one model
# saved by torch 1.13 and the same records laid out as torch 2.x does
# (tests/script/make_era_models.py), built once into $M; gen.ok marks a
# build that worked.  Load after helper.

M="${BATS_FILE_TMPDIR:-/tmp}/m"

setup_file() {
	need_torch || return 0
	mkdir -p "$M"
	FIXTURE_DEST="$M" fixture_run "$BATS_TEST_DIRNAME/script/make_era_models.py" \
		@OUT "$ROOT_DIR/third_party/torch/aten-2.11.0-schemas.txt" \
		> "$BATS_FILE_TMPDIR/gen.log" 2>&1 && touch "$BATS_FILE_TMPDIR/gen.ok"
}

#!/usr/bin/env bats
# 801-readme.bats - README.md's generated sections (each tool's --help, the
# operator table) match the tools as built: run `make readme` after
# changing a tool's options or lower's symbolic tables.
# bats file_tags=tier:check
load helper

@test "README.md's generated sections are up to date" {
	run -0 bash "$ROOT_DIR/scripts/gen-readme.sh" "$BINDIR"
	diff -u "$ROOT_DIR/README.md" <(printf '%s\n' "$output")
}

@test "README.md names the two set-up commands and .ci/run runs the test one" {
	grep -q '^    make deps && make example' "$ROOT_DIR/README.md"
	grep -q '^    make deps && make test' "$ROOT_DIR/README.md"
	grep -q '^make test$' "$ROOT_DIR/.ci/run"
}

#!/usr/bin/env bats
# 803-tool-options.bats - the tools' shared option scaffolding (issue 15,
# lib/common/tool_opts.c): one --version line "TOOL (pt2onnx) VERSION" for
# all seven, one answer to a wrong option (status 2, "Try 'TOOL --help'."),
# and --help on standard output with status 0.  The version expected is
# the one version.h holds (read from the header, not typed here).
# bats file_tags=tier:check

load helper

version_h() {
	sed -n 's/^#define PT2ONNX_VERSION "\(.*\)"$/\1/p' "$ROOT_DIR/lib/common/version.h"
}

@test "tools: every tool's --version is 'TOOL (pt2onnx) VERSION' from version.h" {
	local v t
	v=$(version_h)
	[ -n "$v" ]
	for t in script trace unpt2 lower fold emit check pt2onnx; do
		run -0 tool $t --version
		[ "${lines[0]}" = "$t (pt2onnx) $v" ]
	done
	# check adds its schema source on a second line, nothing else does
	run -0 tool check --version
	[[ "${lines[1]}" == "operator schemas: "* ]]
	run -0 tool emit --version
	[ "${#lines[@]}" -eq 1 ]
}

@test "tools: a wrong option is status 2 with one 'Try TOOL --help' line after getopt's" {
	local t
	for t in script trace unpt2 lower fold emit check; do
		run -2 tool $t --no-such-option
		[ "${lines[-1]}" = "Try '$t --help'." ]
		[ "${#lines[@]}" -eq 2 ]
	done
	run -2 tool pt2onnx "$ROOT_DIR/examples/cnn.pt" --no-such-option
	[ "${lines[-1]}" = "Try 'pt2onnx --help'." ]
}

@test "tools: --help is the usage on standard output, status 0" {
	local t
	for t in script trace unpt2 lower fold emit check; do
		run -0 --separate-stderr tool $t --help
		[[ "$output" == "usage: $t "* ]]
		[ -z "$stderr" ]
	done
}

@test "tools: script, trace, unpt2 and check name a missing model, then point at --help" {
	run -2 tool script
	[ "${lines[0]}" = "script: expected one MODEL.pt argument" ]
	[ "${lines[1]}" = "Try 'script --help'." ]
	run -2 tool trace
	[ "${lines[0]}" = "trace: expected one MODEL.pt argument" ]
	[ "${lines[1]}" = "Try 'trace --help'." ]
	run -2 tool unpt2
	[ "${lines[0]}" = "unpt2: expected one MODEL.pt2 argument" ]
	[ "${lines[1]}" = "Try 'unpt2 --help'." ]
	run -2 tool check
	[ "${lines[0]}" = "check: no model given" ]
	[ "${lines[1]}" = "Try 'check --help'." ]
	[ "${#lines[@]}" -eq 2 ]
}

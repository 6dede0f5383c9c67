#!/usr/bin/env bats
# 806-pt2onnx-artifacts.bats - issue 16 section 4: torch 2.x's
# dump_exported_program and artifacts_dir.  pt2onnx --report (no path)
# and --dump-exported-program write into --artifacts-dir (default '.'),
# named as torch 2.x names them (onnx_export_TIME_STATUS.md, the status of
# the step that failed first; the program as onnx_export_TIME_program.txt,
# where torch saves onnx_export_TIME.pt2).  The dump is the program as
# pt2onnx read it: its aten ops are torch's own graph's (torch 1.13 on the
# TorchScript archives of tests/oracle/surface_models.py, torch 2.11's
# pt2_ops in ../shared/torch2 for the .pt2 archives).
# bats file_tags=tier:standard

load helper
load oracle/surface

STAMP='[0-9]{4}-[0-9]{2}-[0-9]{2}_[0-9]{2}-[0-9]{2}-[0-9]{2}-[0-9]{6}'

# the aten ops of a dump, "kind count" sorted (as aten_ops.txt)
dump_ops() {
	grep -oE '= aten::[A-Za-z0-9_]+\(' "$1" | sed -E 's/^= (.*)\($/\1/' |
		sort | uniq -c | awk '{print $2, $1}'
}

@test "artifacts: --report and --dump-exported-program into --artifacts-dir, torch 2.x's names, one time stamp" {
	run -0 "$BINDIR/pt2onnx" "$F/net.pt" -i x=f32[2,3,8,8] -o m.onnx \
		--report --dump-exported-program --artifacts-dir art
	[ -z "$output" ]
	run -0 onnx_checker m.onnx
	run -0 ls art
	[ "${#lines[@]}" = 2 ]
	[[ "${lines[0]}" =~ ^onnx_export_(${STAMP})_program\.txt$ ]]
	stamp=${BASH_REMATCH[1]}
	[ "${lines[1]}" = "onnx_export_${stamp}_success.md" ]
	grep -qx -- '- result: exported (exit 0)' "art/${lines[1]}"
	# the program read: torch's graph's aten ops, weights as their size
	dump_ops "art/${lines[0]}" > ours.txt
	diff ours.txt "$F/aten_ops.txt"
	grep -q '^graph ' "art/${lines[0]}"
}

@test "artifacts: a conversion that fails: the program dumped before it, a _conversion report, no model" {
	run -4 "$BINDIR/pt2onnx" "$F/gap.pt" -i x=f32[2,4] -o g.onnx \
		--report --dump-exported-program --artifacts-dir art
	[[ "$output" == *"pt2onnx: the lower stage failed (exit 4); no model written"* ]]
	[ ! -e g.onnx ]
	run -0 ls art
	[ "${#lines[@]}" = 2 ]
	[[ "${lines[0]}" =~ ^onnx_export_(${STAMP})_conversion\.md$ ]]
	[ "${lines[1]}" = "onnx_export_${BASH_REMATCH[1]}_program.txt" ]
	grep -q 'aten::linalg_eig' "art/${lines[1]}"
	# the front stage failing is torch's pt_export (no program to dump)
	run -2 "$BINDIR/pt2onnx" "$F/net.pt" -o m.onnx --report \
		--dump-exported-program --artifacts-dir art2
	run -0 ls art2
	[ "${#lines[@]}" = 1 ]
	[[ "${lines[0]}" =~ ^onnx_export_${STAMP}_pt_export\.md$ ]]
	[ ! -e m.onnx ]
}

@test "artifacts: torch's spellings, '.' by default, --report FILE as before, False writes nothing" {
	run -0 "$BINDIR/pt2onnx" "$F/net.pt" -i x=f32[2,3,8,8] -o m.onnx \
		--report True --dump_exported_program=True
	run -0 ls
	[ "${#lines[@]}" = 3 ]
	[[ "${lines[0]}" == m.onnx ]]
	[[ "${lines[1]}" =~ ^onnx_export_${STAMP}_program\.txt$ ]]
	[[ "${lines[2]}" =~ ^onnx_export_${STAMP}_success\.md$ ]]
	rm onnx_export_*
	run -0 "$BINDIR/pt2onnx" "$F/net.pt" -i x=f32[2,3,8,8] -o m.onnx \
		--report r.md --artifacts_dir art --dump_exported_program False
	[ -f r.md ] && [ ! -e art ]
	# --report before the model: the model is no report's path
	run -0 "$BINDIR/pt2onnx" --report "$F/net.pt" -i x=f32[2,3,8,8] -o m.onnx \
		--artifacts-dir art3
	run -0 ls art3
	[[ "$output" =~ ^onnx_export_${STAMP}_success\.md$ ]]
	run -0 "$BINDIR/pt2onnx" "$F/net.pt" -i x=f32[2,3,8,8] -o m.onnx \
		--report=False --artifacts-dir art
	[ ! -e art ]
	# -v says where they went
	run -0 "$BINDIR/pt2onnx" "$F/net.pt" -i x=f32[2,3,8,8] -o m.onnx \
		--report --dump-exported-program --artifacts-dir art -v
	[[ "$output" =~ "pt2onnx: the program read is in 'art/onnx_export_"${STAMP}"_program.txt'" ]]
	[[ "$output" =~ "pt2onnx: the report is in 'art/onnx_export_"${STAMP}"_success.md'" ]]
}

@test "artifacts: a directory that cannot be made is refused in one line, exit 5, no model" {
	touch afile
	run -5 "$BINDIR/pt2onnx" "$F/net.pt" -i x=f32[2,3,8,8] -o m.onnx \
		--dump-exported-program --artifacts-dir afile
	[ "$output" = "pt2onnx: --artifacts-dir 'afile': not a directory" ]
	run -5 "$BINDIR/pt2onnx" "$F/net.pt" -i x=f32[2,3,8,8] -o m.onnx \
		--report --artifacts-dir no/such/dir
	[ "$output" = "pt2onnx: --artifacts-dir 'no/such/dir': No such file or directory" ]
	[ ! -e m.onnx ]
	run -2 "$BINDIR/pt2onnx" "$F/net.pt" -i x=f32[2,3,8,8] -o m.onnx \
		--dump-exported-program=maybe
	[ "$output" = "pt2onnx: --dump-exported-program: 'maybe' is not true or false" ]
}

@test "artifacts: a directory whose files' names do not fit PATH_MAX is refused in one line, exit 5, no file written" {
	# 20 levels of 203 characters: the directory (4080 bytes) can be
	# made, onnx_export_TIME_program.txt inside it cannot be named
	local long=. i
	for i in $(seq 20); do
		long="$long/$(printf 'd%.0s' $(seq 203))"
	done
	mkdir -p "$long"
	run -5 "$BINDIR/pt2onnx" "$F/net.pt" -i x=f32[2,3,8,8] -o m.onnx \
		--dump-exported-program --artifacts-dir "$long"
	[ "$output" = "pt2onnx: --artifacts-dir '$long': path too long" ]
	[ ! -e m.onnx ]
	[ -z "$(find . -type f)" ]
}

@test "artifacts: a .pt2's dump: the ExportedProgram's aten ops are torch 2.11's (meta.json pt2_ops)" {
	local shared=/work/shared/torch2/models
	[ -d "$shared" ] || need_skip "needs ../shared/torch2/models (torch 2.11's archives)" || return 0
	for m in convnext_block index_add_cumsum tiny_lm unet_tiny; do
		run -0 "$BINDIR/pt2onnx" "$shared/$m/exported.pt2" -o "$m.onnx" \
			--dump-exported-program --artifacts-dir "$m"
		run -0 "$PYTHON" - "$shared/$m/meta.json" "$m"/onnx_export_*_program.txt <<'PY'
import json, re, sys
want = {re.sub(r"^(\w+)\.(\w+)\..*$", r"\1::\2", o)
        for o in json.load(open(sys.argv[1]))["pt2_ops"]}
got = {k for k in re.findall(r"= (\w+::\w+)\(", open(sys.argv[2]).read())
       if not k.startswith("prim::")}
assert got == want, (got ^ want)
PY
	done
}

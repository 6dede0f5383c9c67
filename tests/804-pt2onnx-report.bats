#!/usr/bin/env bats
# 804-pt2onnx-report.bats - issue 16 section 4: pt2onnx --report FILE (the
# ops seen, the failures with their scopes, time and peak memory per
# stage), --profile, --strip-doc-string, and the progress and summary
# lines.  The models are built by torch 1.13 (tests/oracle/
# surface_models.py, cached): the ops the report lists are those of
# torch's own graph of the archive, the op it names as failing is the one
# torch.onnx.export refuses too, the doc strings follow torch's export,
# and the summary's counts are onnx's reading of the model written.
# bats file_tags=tier:standard

load helper
load oracle/surface

@test "report: the ops seen are torch's graph's, every stage timed, model written" {
	run -0 "$BINDIR/pt2onnx" "$F/net.pt" -i x=f32[2,3,8,8] -o m.onnx --report r.md
	[ -z "$output" ]
	run -0 onnx_checker m.onnx
	# the aten ops of the table, with their counts, are torch's
	grep -E '^\| `aten::' r.md | sed -E 's/^\| `([^`]*)` \| ([0-9]+) \|$/\1 \2/' | sort > ours.txt
	diff ours.txt "$F/aten_ops.txt"
	grep -qx -- '- result: exported (exit 0)' r.md
	grep -qx 'None.' r.md
	# one row per stage, each exit 0, with a time and a peak memory
	for s in script lower fold emit check; do
		grep -qE "^\| $s \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| 0 \|$" r.md
	done
	grep -qE '^- peak memory \(largest process\): [0-9.]+ MiB$' r.md
}

@test "report: a failed export names the stage, the op torch refuses too and its scope; no model" {
	echo old > g.onnx
	run -4 "$BINDIR/pt2onnx" "$F/gap.pt" -i x=f32[2,4] -o g.onnx --report r.md
	[ "$(cat g.onnx)" = old ]
	grep -qx -- '- result: failed (exit 4)' r.md
	grep -qx 'The lower stage failed (exit 4).' r.md
	op=$(cat "$F/gap_torch.txt")
	[ "$op" = aten::linalg_eig ]
	# the failing op, its scope (the module, torch's name) and lower's line
	grep -qE "^\| \`$op\` \| Gap \| lower: .*$op at Gap .*has no symbolic for opset 14: [^|]*complex[^|]* \|$" r.md
	# it was seen: the front stage's graph has it
	grep -qE "^\| \`$op\` \| 1 \|$" r.md
	grep -qE '^\| emit \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| 3 \|$' r.md
}

@test "report: a front stage that fails leaves a report with no ops and its message" {
	run -2 "$BINDIR/pt2onnx" "$F/net.pt" -o m.onnx --report r.md
	[ ! -e m.onnx ]
	grep -qx 'None: the script stage wrote no graph.' r.md
	grep -qx 'The script stage failed (exit 2).' r.md
	grep -q "^script: .*input 'x'" r.md
	grep -qE '^\| lower \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| not run \|$' r.md
}

@test "report: an unwritable report is exit 5; the model is still checked and written" {
	run -5 "$BINDIR/pt2onnx" "$F/net.pt" -i x=f32[2,3,8,8] -o m.onnx --report nodir/r.md
	[[ "$output" == *"nodir/r.md"* ]]
	run -0 onnx_checker m.onnx
}

@test "profile: one line per stage on stderr, nothing on stdout" {
	"$BINDIR/pt2onnx" --trace "$F/net.pt" -i x="$F/x.npy" -o m.onnx --profile 2> err.txt > out.txt
	[ ! -s out.txt ]
	for s in trace lower fold emit check; do
		grep -qE "^pt2onnx: profile: $s +[0-9.]+ +[0-9.]+ +[0-9.]+  0$" err.txt
	done
	grep -qE '^pt2onnx: profile: total +[0-9.]+$' err.txt
	[ "$(wc -l < err.txt)" = 7 ]
	run -0 onnx_checker m.onnx
}

@test "strip-doc-string: default and with -v as torch.onnx.export (strip unless verbose)" {
	count_docs() {
		"$PYTHON" -c 'import onnx, sys; print(sum(1 for n in onnx.load(sys.argv[1]).graph.node if n.doc_string))' "$1"
	}
	want_quiet=$(sed -n 's/^verbose=False //p' "$F/doc.txt")
	want_verbose=$(sed -n 's/^verbose=True //p' "$F/doc.txt")
	[ "$want_quiet" = 0 ] && [ "$want_verbose" -gt 0 ]
	run -0 "$BINDIR/pt2onnx" "$F/net.pt" -i x=f32[2,3,8,8] -o a.onnx
	[ "$(count_docs a.onnx)" = "$want_quiet" ]
	run -0 "$BINDIR/pt2onnx" "$F/net.pt" -i x=f32[2,3,8,8] -o b.onnx -v
	[ "$(count_docs b.onnx)" -gt 0 ]
	run -0 "$BINDIR/pt2onnx" "$F/net.pt" -i x=f32[2,3,8,8] -o c.onnx --strip-doc-string False
	[ "$(count_docs c.onnx)" -gt 0 ]
	run -0 "$BINDIR/pt2onnx" "$F/net.pt" -i x=f32[2,3,8,8] -o d.onnx -v --strip_doc_string=True
	[ "$(count_docs d.onnx)" = 0 ]
	run -2 "$BINDIR/pt2onnx" "$F/net.pt" -i x=f32[2,3,8,8] -o e.onnx --strip-doc-string=maybe
	[ "$output" = "pt2onnx: --strip-doc-string: 'maybe' is not true or false" ]
}

@test "summary: none when stderr is not a terminal; one line on a terminal, counts as onnx reads them" {
	run -0 "$BINDIR/pt2onnx" "$F/net.pt" -i x=f32[2,3,8,8] -o m.onnx
	[ -z "$output" ]
	[ -x /usr/bin/script ] || skip "needs util-linux script(1) for a terminal"
	/usr/bin/script -qec "'$BINDIR/pt2onnx' '$F/net.pt' -i x=f32[2,3,8,8] -o t.onnx" /dev/null > tty.txt
	want=$("$PYTHON" -c 'import onnx, sys
m = onnx.load(sys.argv[1])
o = [i.version for i in m.opset_import if i.domain in ("", "ai.onnx")][0]
print("pt2onnx: wrote t.onnx: opset %d, %d nodes, %d weights," % (o, len(m.graph.node), len(m.graph.initializer)))' t.onnx)
	line=$(tr -d '\r' < tty.txt | grep '^pt2onnx: wrote')
	[[ "$line" == "$want "*" s" ]]
	[ "$(tr -d '\r' < tty.txt | grep -c .)" = 1 ]
}

@test "progress: on a terminal, a slow export shows the stage running, then is cleared for the summary" {
	[ -x /usr/bin/script ] || skip "needs util-linux script(1) for a terminal"
	# a user's emit that takes 3 s (PT2ONNX_EXEC_PATH, README's stage lookup)
	mkdir stages
	for s in script lower fold check; do ln -s "$BINDIR/$s" stages/$s; done
	printf '#!/bin/sh\nsleep 3\nexec "%s/emit" "$@"\n' "$BINDIR" > stages/emit
	chmod +x stages/emit
	PT2ONNX_EXEC_PATH=$PWD/stages /usr/bin/script -qec "'$BINDIR/pt2onnx' '$F/net.pt' -i x=f32[2,3,8,8] -o t.onnx" /dev/null > tty.txt
	run -0 onnx_checker t.onnx
	# "pt2onnx: 2 s: emit" (the stages still running), each line erased
	grep -qaE $'\r\033\\[Kpt2onnx: [0-9]+ s:( fold)? emit' tty.txt
	grep -qa $'\r\033\\[Kpt2onnx: wrote t.onnx: opset 14, ' tty.txt
	# without a terminal, nothing
	PT2ONNX_EXEC_PATH=$PWD/stages run -0 "$BINDIR/pt2onnx" "$F/net.pt" -i x=f32[2,3,8,8] -o u.onnx
	[ -z "$output" ]
}

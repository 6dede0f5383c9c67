#!/usr/bin/env bats
# 870-pt2onnx-misuse.bats - the one-command export under misuse (issue 16,
# sections 2 and 3): signals to the wrapper, a stage that fails early, -o -,
# -v, a missing --input, torch's spellings, --help, --do-constant-folding
# false, and a failed export that must leave an existing output alone.
# bats file_tags=tier:standard

load helper

setup_file() {
	need_torch || return 0
}

EX="$ROOT_DIR/examples"
IN='x=f32[1,3,8,8]'

# starts an export that stalls in script (its archive is a FIFO nobody
# writes) with its own $TMPDIR; sets PGID, the stages' process group.  Its
# temporary directory is beside the output (.pt2onnx-*), not in $TMPDIR
stalled_export() {
	mkfifo "$WORK/stall.pt"
	mkdir -p "$WORK/tmp"
	TMPDIR="$WORK/tmp" spawn "$BINDIR/pt2onnx" "$WORK/stall.pt" -i "$IN" \
		-o out.onnx "$@"
	wait_for 'pgrep -f -- "script $WORK/stall.pt" > /dev/null'
	PGID=$(ps -o pgid= -p "$(pgrep -f -- "script $WORK/stall.pt")" |
	       tr -d ' ')
	# every stage runs, in a group of its own (not the wrapper's)
	wait_for '[ "$(pgrep -g "$PGID" | wc -l)" = 4 ]'
	[ "$PGID" != "$(ps -o pgid= -p "$(cat pid)" | tr -d ' ')" ]
	ls -d .pt2onnx-* > /dev/null
	run -0 ls -A "$WORK/tmp"
	[ -z "$output" ]
}

@test "pt2onnx: SIGTERM, SIGINT, SIGHUP stop every stage; no temp dir, no output" {
	for sig in TERM INT HUP; do
		stalled_export
		kill -s "$sig" "$(cat pid)"
		wait_for '[ -e rc ]'
		# the wrapper dies of the signal, as a shell reports it
		[ "$(cat rc)" = $((128 + $(kill -l "$sig"))) ]
		run -1 pgrep -g "$PGID"
		run -0 ls -A "$WORK/tmp"
		[ -z "$output" ]
		run -2 ls -d .pt2onnx-*
		[ ! -e out.onnx ]
		rm -f "$WORK/stall.pt"
	done
}

@test "pt2onnx: a signal leaves an existing output file as it was" {
	echo old > out.onnx
	stalled_export
	kill -s TERM "$(cat pid)"
	wait_for '[ -e rc ]'
	[ "$(cat rc)" = 143 ]
	run -1 pgrep -g "$PGID"
	[ "$(cat out.onnx)" = old ]
	run -2 ls -d .pt2onnx-*
}

@test "pt2onnx: a failed export leaves an existing output file as it was" {
	echo old > out.onnx
	run -2 pt2onnx "$EX/cnn.pt" -i "$IN" -o out.onnx --opset-version 99
	[ "$(cat out.onnx)" = old ]
	head -c 3000 "$EX/cnn.pt" > bad.pt
	run -3 pt2onnx bad.pt -i "$IN" -o out.onnx
	[ "$(cat out.onnx)" = old ]
	run -0 ls -A
	[ "$output" = "$(printf 'bad.pt\nout.onnx')" ]
}

@test "pt2onnx: the stage that fails first is reported with its message, never exit 141" {
	# an opset out of range is the wrapper's own one line: no stage starts
	run -2 pt2onnx "$EX/cnn.pt" -i "$IN" -o out.onnx --opset-version 99
	[ "$output" = "pt2onnx: --opset-version '99' is not an opset from 7 to 26" ]
	# lower alone says what is wrong with a 4-channel input; script,
	# upstream of it, may die of SIGPIPE meanwhile, and is not reported
	run -3 bash -c '"$1" "$2" -i "x=f32[1,4,8,8]" | "$3" --opset 14 > /dev/null' \
		_ "$BINDIR/script" "$EX/cnn.pt" "$BINDIR/lower"
	want="$output"
	[ -n "$want" ]
	for i in $(seq 10); do
		run -3 pt2onnx "$EX/cnn.pt" -i 'x=f32[1,4,8,8]' -o out.onnx
		[ "$output" = "$want
pt2onnx: the lower stage failed (exit 3); no model written" ]
	done
	[ ! -e out.onnx ]
}

@test "pt2onnx: -o - writes the checked model to standard output" {
	run -0 pt2onnx "$EX/cnn.pt" -i "$IN" -o file.onnx
	echo keep > ./-
	pt2onnx "$EX/cnn.pt" -i "$IN" -o - > std.onnx
	cmp std.onnx file.onnx
	run -0 onnx_checker std.onnx
	[ "$(cat ./-)" = keep ]
	rm ./-
	pt2onnx "$EX/cnn.pt" -i "$IN" -o - > std.onnx
	[ ! -e ./- ]
	run -0 ls -A
	[ "$output" = "$(printf 'file.onnx\nstd.onnx')" ]
}

@test "pt2onnx: -o - to a reader that is gone is a write error, exit 5, no temp dir" {
	mkdir tmp
	run -0 bash -c "TMPDIR=$WORK/tmp '$BINDIR/pt2onnx' '$EX/cnn.pt' -i '$IN' -o - | true"'; echo "${PIPESTATUS[0]}"'
	[ "$output" = "pt2onnx: cannot write '<stdout>': Broken pipe
5" ]
	run -0 ls -A tmp
	[ -z "$output" ]
}

@test "pt2onnx: -v writes to standard error, each weight as its size" {
	pt2onnx "$EX/cnn.pt" -i "$IN" -o v.onnx -v > out 2> err
	[ ! -s out ]
	# the sizes torch gives the archive's weights
	"$PYTHON" - "$EX/cnn.pt" > want <<'PY'
import sys, torch
for k, t in torch.jit.load(sys.argv[1]).state_dict().items():
    if t.numel() > 16:
        print(f"%{k} : Float({', '.join(map(str, t.shape))}) = "
              f"<{t.numel()} values, {t.numel() * t.element_size()} bytes>")
PY
	[ "$(wc -l < want)" = 2 ]
	while IFS= read -r line; do
		grep -qF -- "$line" err
	done < want
	grep -q 'onnx::Gemm' err
	# no value of the weights is printed: the text stays small
	[ "$(wc -c < err)" -lt 4000 ]
}

@test "pt2onnx: a missing --input names the argument and the spec to give" {
	run -2 pt2onnx "$EX/cnn.pt" -o out.onnx
	[ "$output" = "script: $EX/cnn.pt: forward takes input 'x' but no --input gives its type; pass e.g. --input 'x=f32[1,3,224,224]'
pt2onnx: the script stage failed (exit 2); no model written" ]
	[ ! -e out.onnx ]
	run -2 pt2onnx "$EX/cnn.pt" --trace -o out.onnx
	[ "$output" = "trace: input 'x' of forward(x) is not given (--input); pass e.g. --input 'x=f32[1,3,224,224]'
pt2onnx: the trace stage failed (exit 2); no model written" ]
	[ ! -e out.onnx ]
}

@test "pt2onnx: torch's spellings: underscores, and booleans as Python writes them" {
	run -0 pt2onnx "$EX/cnn.pt" -i "$IN" -o a.onnx --opset_version 13 \
		--input_names image --output_names=logits \
		--dynamic_axes 'image:0=batch' --do_constant_folding False \
		--export_params True --keep_initializers_as_inputs=True \
		--export_modules_as_functions False
	run -0 "$PYTHON" -c '
import onnx
m = onnx.load("a.onnx")
assert [o.version for o in m.opset_import if o.domain == ""] == [13]
assert m.graph.input[0].name == "image", m.graph.input
assert m.graph.input[0].type.tensor_type.shape.dim[0].dim_param == "batch"
assert [o.name for o in m.graph.output] == ["logits"]
inits = {i.name for i in m.graph.initializer}
assert inits and inits <= {i.name for i in m.graph.input}
'
	# every word for true and false, as --opt WORD and --opt=WORD
	for w in True true 1; do
		run -0 pt2onnx "$EX/cnn.pt" -i "$IN" -o t.onnx \
			--keep-initializers-as-inputs "$w"
		run -0 "$PYTHON" -c 'import onnx; g = onnx.load("t.onnx").graph; assert len(g.input) == 5'
		run -0 pt2onnx "$EX/cnn.pt" -i "$IN" -o t.onnx \
			--keep_initializers_as_inputs="$w"
		run -0 "$PYTHON" -c 'import onnx; g = onnx.load("t.onnx").graph; assert len(g.input) == 5'
	done
	for w in False false 0; do
		run -0 pt2onnx "$EX/cnn.pt" -i "$IN" -o f.onnx \
			--export-params "$w"
		run -0 "$PYTHON" -c 'import onnx; g = onnx.load("f.onnx").graph; assert not g.initializer and len(g.input) == 5'
		run -0 pt2onnx "$EX/cnn.pt" -i "$IN" -o f.onnx \
			--export_params="$w"
		run -0 "$PYTHON" -c 'import onnx; g = onnx.load("f.onnx").graph; assert not g.initializer and len(g.input) == 5'
	done
	run -2 pt2onnx "$EX/cnn.pt" -i "$IN" -o x.onnx --do_constant_folding=Maybe
	[[ "$output" == *"--do-constant-folding: 'Maybe' is not true or false"* ]]
	# True: every module a function, the graph one call of the root's
	run -0 pt2onnx "$EX/cnn.pt" -i "$IN" -o x.onnx \
		--export_modules_as_functions True --opset_version 15
	run -0 "$PYTHON" -c 'import onnx; m = onnx.load("x.onnx"); assert [n.domain for n in m.graph.node if n.domain] == ["local"] and m.functions'
}

@test "pt2onnx --help lists the export's options" {
	run -0 pt2onnx --help
	for o in --opset-version --input-names --dynamic-axes \
		 --do-constant-folding --operator-export-type --training; do
		[[ "$output" == *"$o"* ]]
	done
	[[ "$output" == *"emit "* && "$output" == *"check "* ]]
}

@test "pt2onnx: --do-constant-folding=false keeps fold's other passes, as torch" {
	cat > cb.py <<'PY'
import torch
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.bn = torch.nn.BatchNorm2d(8)
        self.fc = torch.nn.Linear(8, 4)
    def forward(self, x):
        return self.fc(self.bn(self.conv(x)).relu().mean(dim=(2, 3)))
torch.manual_seed(0)
m = M().eval()
torch.jit.save(torch.jit.script(m), "cb.pt")
torch.onnx.export(m, (torch.randn(1, 3, 8, 8),), "torch.onnx",
                  do_constant_folding=False, opset_version=14)
PY
	"$PYTHON" cb.py
	run -0 pt2onnx cb.pt -i "$IN" -o ours.onnx --do-constant-folding=false
	ops='import onnx, sys; print(sorted(n.op_type for n in onnx.load(sys.argv[1]).graph.node))'
	run -0 "$PYTHON" -c "$ops" torch.onnx
	want=$output
	[[ "$want" != *BatchNormalization* ]]
	run -0 "$PYTHON" -c "$ops" ours.onnx
	[ "$output" = "$want" ]
}

#!/usr/bin/env bats
# 495-lower-opsets.bats - the opsets after 17, up to the newest ONNX Runtime
# 1.30 runs (26): real torch 1.13 models (tests/lower/opset_cases.py:
# layer_norm, group_norm, both gelus, every reduction with and without
# keepdim, even and uneven splits, pad and interpolate modes, DFT,
# grid_sample, nn.Fold, scatter_reduce, a small resnet, a transformer
# encoder layer) through the
# script and the trace path, lower | fold | emit at 18, 20, 23 and 26,
# validated by check (onnx 1.23.1's schemas), run by ONNX Runtime and
# compared with torch's outputs (1e-4 relative); the fused operators'
# node counts; check at every opset; the refusal of 27.

# bats file_tags=tier:standard

load helper

CASES="${BATS_FILE_TMPDIR:-/tmp}/cases"

setup_file() {
	need_torch || return 0
	need_ort || return 0
	local m n specs l
	mkdir -p "$CASES"
	PYTHONPATH="$ORACLE_DIR" "$PYTHON" "$TESTS_DIR/lower/opset_cases.py" \
		"$CASES" > "$CASES/gen.log" 2>&1 ||
		{ cat "$CASES/gen.log" >&2; return 1; }
	# the aten IR of every model, once per path
	for m in script trace; do
		while IFS= read -r n; do
			specs=()
			while IFS= read -r l; do
				if [ "$m" = script ]; then
					specs+=(-i "$l")
				else
					specs+=(-i "${l%%=*}=$CASES/$m/$n/${l%%=*}.npy")
				fi
			done < "$CASES/$m/$n/$n.in.txt"
			"$BINDIR/$m" "$CASES/$m/$n/$n.pt" "${specs[@]}" \
				-o "$CASES/$m/$n/$n.air" || return 1
		done < "$CASES/$m.txt"
	done
}

# opset_convert MODE NAME OPSET: lower | fold | emit, check; prints why
# on failure
opset_convert() {
	local d="$CASES/$1/$2"
	(set -o pipefail
	 tool lower --opset "$3" "$d/$2.air" | tool fold | emit -o "$d/$2-$3.onnx") ||
		return 1
	check "$d/$2-$3.onnx" > /dev/null || { check "$d/$2-$3.onnx"; return 1; }
}

# opset_job MODE NAME OPSET: export_cases.py runs's line for that model:
# run by ONNX Runtime on NAME's inputs, compared with torch
opset_job() {
	local d="$CASES/$1/$2" l line
	line="$d/$2 $d/$2-$3.onnx"
	while IFS= read -r l; do
		line+=" ${l%%=*}=$d/${l%%=*}.npy"
	done < "$d/$2.in.txt"
	echo "$line"
}

# opset_run MODE NAME OPSET: lower | fold | emit, check, ONNX Runtime,
# compared with torch; prints why on failure
opset_run() {
	opset_convert "$@" || return 1
	opset_job "$@" | "$PYTHON" "$ORACLE_DIR/export_cases.py" runs
}

# every model of both paths at opset $1 (antialias: refused, see below),
# all run by ONNX Runtime and compared in one Python and one node process
opset_all() {
	local o=$1 m n bad=() jobs=()
	for m in script trace; do
		while IFS= read -r n; do
			[ "$n" = antialias ] && continue
			if opset_convert "$m" "$n" "$o"; then
				jobs+=("$(opset_job "$m" "$n" "$o")")
			else
				bad+=("$m/$n")
			fi
		done < "$CASES/$m.txt"
	done
	printf '%s\n' "${jobs[@]}" | "$PYTHON" "$ORACLE_DIR/export_cases.py" runs ||
		bad+=("(ONNX Runtime or torch: above)")
	[ ${#bad[@]} -eq 0 ] || { echo "opset $o failed: ${bad[*]}"; false; }
}

@test "opset 18: every model, script and trace, matches torch in ONNX Runtime" {
	opset_all 18
}

@test "opset 20: every model, script and trace, matches torch in ONNX Runtime" {
	opset_all 20
}

@test "opset 23: every model, script and trace, matches torch in ONNX Runtime" {
	opset_all 23
}

@test "opset 26: every model, script and trace, matches torch in ONNX Runtime" {
	opset_all 26
}

@test "circular padding: Pad's wrap from 19, Slices and Concats before; nn.Fold needs 18, scatter_reduce amax/amin lower at 17; antialiased interpolation refused" {
	local d="$CASES/script/circular" o
	for o in 17 18 19 26; do
		opset_run script circular "$o"
		run -0 "$PYTHON" -c "import onnx
print(sorted(a.s.decode() for n in onnx.load('$d/circular-$o.onnx').graph.node
             if n.op_type == 'Pad' for a in n.attribute if a.name == 'mode'))"
		[ "$output" = "$([ "$o" -ge 19 ] && echo "['wrap']" || echo "[]")" ]
	done
	# col2im is Col2Im, new in 18
	run -4 tool lower --opset 17 "$CASES/script/col2im/col2im.air"
	[[ "${lines[0]}" == *"aten::col2im"*"has no symbolic for opset 17: needs opset 18" ]]
	# scatter_reduce amax and amin are ScatterElements' max and min from
	# 18; below, a one-hot decomposition (427 compares it with torch)
	tool lower --opset 17 "$CASES/script/scatter/scatter.air" > /dev/null
	# ONNX Runtime 1.30's Resize antialias is not torch's: one line per op
	for o in 17 18 26; do
		run -4 tool lower --opset "$o" "$CASES/script/antialias/antialias.air"
		[ "${#lines[@]}" -eq 3 ]
		[[ "${lines[0]}" == *"aten::_upsample_bilinear2d_aa"*"antialiased interpolation: Resize's antialias (opset 18) disagrees with torch in ONNX Runtime" ]]
	done
}

# op_count FILE OP...: how many nodes of each OP FILE's main graph has,
# one line, in the order given
op_count() {
	"$PYTHON" -c "import onnx, sys
ops = [n.op_type for n in onnx.load(sys.argv[1]).graph.node]
print(*(ops.count(o) for o in sys.argv[2:]))" "$@"
}

@test "fused operators: LayerNormalization from 17, Mish from 18, Gelu from 20, GroupNormalization from 21" {
	# Norms: one layer_norm, two group_norms, two gelus (none, tanh)
	local m o d
	for m in script trace; do
		d="$CASES/$m/norms"
		for o in 16 17 18 19 20 21 23 26; do
			tool lower --opset "$o" "$d/norms.air" | tool fold |
				emit -o "$d/n$o.onnx"
			run -0 check "$d/n$o.onnx"
			run -0 op_count "$d/n$o.onnx" LayerNormalization Gelu GroupNormalization
			[ "$output" = "$([ "$o" -ge 17 ] && echo 1 || echo 0) $([ "$o" -ge 20 ] && echo 2 || echo 0) $([ "$o" -ge 21 ] && echo 2 || echo 0)" ]
		done
	done
	# Mish: two calls, one node each from 18
	for o in 17 18 26; do
		tool lower --opset "$o" "$CASES/trace/mish/mish.air" | tool fold |
			emit -o "m$o.onnx"
		run -0 op_count "m$o.onnx" Mish
		[ "$output" = "$([ "$o" -ge 18 ] && echo 2 || echo 0)" ]
	done
	# the approximation travels: one Gelu says tanh
	run -0 "$PYTHON" -c "import onnx
print(sorted(a.s.decode() for n in onnx.load('$d/n20.onnx').graph.node
             if n.op_type == 'Gelu' for a in n.attribute))"
	[ "$output" = "['tanh']" ]
}

@test "opset 18 and later: reductions take axes as an input, equal splits num_outputs" {
	local f="$CASES/script/reductions/reductions-18.onnx"
	[ -f "$f" ] || opset_run script reductions 18
	# no Reduce* node keeps an axes attribute; those with axes have 2 inputs
	run -0 "$PYTHON" -c "import onnx
g = onnx.load('$f').graph
r = [n for n in g.node if n.op_type.startswith('Reduce')]
print(len(r) > 0, sum(a.name == 'axes' for n in r for a in n.attribute))"
	[ "$output" = "True 0" ]
	f="$CASES/trace/splits/splits-18.onnx"
	[ -f "$f" ] || opset_run trace splits 18
	# unbind's equal split: Split with num_outputs, no split input
	run -0 "$PYTHON" -c "import onnx
g = onnx.load('$f').graph
print([len(n.output) for n in g.node if n.op_type == 'Split' and len(n.input) == 1
       and any(a.name == 'num_outputs' and a.i == len(n.output) for a in n.attribute)])"
	[ "$output" = "[3]" ]
}

@test "check validates the resnet at every opset from 7 to 26" {
	local o d="$CASES/script/resnet" bad=()
	for o in $(seq 7 26); do
		tool lower --opset "$o" "$d/resnet.air" | tool fold |
			emit -o "$d/r$o.onnx" || { bad+=("$o:pipeline"); continue; }
		check "$d/r$o.onnx" > /dev/null || bad+=("$o:check")
		# python3-onnx 1.12's checker agrees up to its opset 17
		if [ "$o" -le 17 ]; then
			onnx_checker "$d/r$o.onnx" > /dev/null || bad+=("$o:onnx")
		fi
	done
	[ ${#bad[@]} -eq 0 ] || { echo "${bad[*]}"; false; }
}

@test "opset 27 and 6: one clear line from every stage, never a broken pipe" {
	local air="$CASES/script/norms/norms.air"
	run -2 tool lower --opset 27 "$air"
	[ "$output" = "lower: --opset '27' is not an opset from 7 to 26" ]
	run -2 tool lower --opset 6 "$air"
	[ "$output" = "lower: --opset '6' is not an opset from 7 to 26" ]
	run -2 pt2onnx "$CASES/script/norms/norms.pt" -i x=f32[2,4,6,5] \
		--opset-version 27 -o n.onnx
	[ "$output" = "pt2onnx: --opset-version '27' is not an opset from 7 to 26" ]
	[ ! -e n.onnx ]
	# an IR that says 27: fold and emit refuse it
	tool lower --opset 26 -S "$air" | sed 's/^opset "" 26$/opset "" 27/' > n27.ir
	grep -q '^opset "" 27$' n27.ir
	run -4 tool fold n27.ir
	[ "$output" = "fold: the graph is for opset 27; fold knows opsets up to 26" ]
	run -4 emit n27.ir -o n.onnx
	[ "$output" = "emit: n27.ir: opset 27 is outside the range this emit knows (1 to 26)" ]
	[ ! -e n.onnx ]
	# --help says the range and the default
	run -0 pt2onnx --help
	[[ "$output" == *"at ONNX opset 14"$'\n'"unless --opset-version says another, from 7 to 26."* ]]
	run -0 pt2onnx "$CASES/script/norms/norms.pt" --help
	[[ "$output" == *"--opset-version N             ONNX opset, 7 to 26 (default 14, as torch 1.13)"* ]]
	run -0 tool lower --help
	[[ "$output" == *"--opset N                    the target opset, 7 to 26 (default 14)"* ]]
}

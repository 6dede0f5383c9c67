#!/usr/bin/env bats
# 203-script-upgraders.bats - torch's operator upgraders in `script`
# (lib/script/upgraders.c): an archive whose `version` record is older than
# an operator's current meaning is read as torch.jit.load reads it.
#
# torch 1.13 writes version 10; tests/script/make_upgrader_models.py scripts
# models using div, div_, full, linspace, logspace and gelu, copies each
# archive with only the version record changed (to the last version an
# upgrader applies to, and to the first it does not), checks that torch
# itself gives another result for the old copy where the upgrader changes
# the meaning, and records torch.jit.load's outputs for every copy.  Here
# pt2onnx (the script path) converts each copy; onnx.checker and ONNX
# Runtime run it, and the outputs must equal torch's (dtype, shape, values);
# the same through `pt2onnx --trace`, which compiles with the same pass.
#
# Needs Debian's python3-torch; skipped without.
# bats file_tags=tier:standard

load helper

M="${BATS_FILE_TMPDIR:-/tmp}/m"

setup_file() {
	need_torch || return 0
	need_ort || return 0
	mkdir -p "$BATS_FILE_TMPDIR/m"
	if FIXTURE_DEST="$BATS_FILE_TMPDIR/m" fixture_run \
		"$BATS_TEST_DIRNAME/script/make_upgrader_models.py" \
		build @OUT > "$BATS_FILE_TMPDIR/gen.log" 2>&1; then
		touch "$BATS_FILE_TMPDIR/gen.ok"
	fi
}

# need NAME: the archives of case NAME, skipped without torch; a generator
# that failed (torch reads an old archive as a new one...) fails the test
need() {
	need_torch
	if [ ! -f "$BATS_FILE_TMPDIR/gen.ok" ]; then
		cat "$BATS_FILE_TMPDIR/gen.log" >&2
		return 1
	fi
	[ -f "$M/$1.in.txt" ]
}

# convert NAME VARIANT OPSET [PT2ONNX_ARGS...]: pt2onnx on NAME.VARIANT.pt,
# onnx.checker, ONNX Runtime on NAME's inputs, compared with torch's
# outputs for that archive (want_NAME.VARIANT_K.npy)
convert() {
	local name=$1 v=$2 o=$3 specs=() feeds=() l
	shift 3
	while IFS= read -r l; do
		specs+=(--input "$l")
		feeds+=("${l%%=*}=$M/$name.${l%%=*}.npy")
	done < "$M/$name.in.txt"
	pt2onnx "$M/$name.$v.pt" "${specs[@]}" -o "$name.$v-$o.onnx" \
		--opset-version "$o" "$@" || return 1
	onnx_checker "$name.$v-$o.onnx" || return 1
	rm -rf "out-$name.$v-$o"
	ort_run "$name.$v-$o.onnx" "out-$name.$v-$o" "${feeds[@]}" > /dev/null ||
		return 1
	"$PYTHON" "$TESTS_DIR/script/make_upgrader_models.py" compare \
		"$M/want_$name.$v" "out-$name.$v-$o" "$name.$v-$o.onnx"
}

# ir NAME VARIANT: script -S of NAME.VARIANT.pt
ir() {
	tool script -S "$M/$1.$2.pt" $(sed 's/^/-i /' "$M/$1.in.txt")
}

@test "upgraders: div of integer tensors in a version 3 archive truncates, as torch.jit.load upgrades it (opsets 9 13 17)" {
	need div
	for o in 9 13 17; do
		run -0 convert div old "$o"
	done
	run -0 convert div old 13 --trace
	# a / b, div(a, 3) and a.div(b) get rounding_mode 'trunc'; the float
	# divisions and the one with a rounding mode stay as they were
	run -0 ir div old
	t=$(printf '%s\n' "$output" | grep -F 'prim::Constant[value="trunc"]' |
		sed 's/^ *\(%[^ ]*\) :.*/\1/')
	[ -n "$t" ]
	[ "$(printf '%s\n' "$output" | grep -c "= aten::div(%[^,]*, %[^,]*, $t)")" -eq 3 ]
	[ "$(printf '%s\n' "$output" | grep -c '= aten::div(')" -eq 6 ]
}

@test "upgraders: div_ in place in a version 3 archive truncates (torch refuses it at version 10)" {
	need div_inplace
	run -0 convert div_inplace old 13
	run -0 convert div_inplace old 13 --trace
	run -0 ir div_inplace old
	[[ "$output" == *'prim::Constant[value="trunc"]'* ]]
}

@test "upgraders: div whose dtypes script does not know becomes torch's upgrader graph (prim::If on is_floating_point); lower takes the branch (opsets 9 13 17), trace runs it" {
	need div_dyn
	run -0 ir div_dyn old
	[[ "$output" == *'aten::is_floating_point'* ]]
	[[ "$output" == *'prim::If'* ]]
	# the script path: is_floating_point is known from the dtypes lower
	# infers, so each If folds to the branch torch takes (its outputs'
	# dtypes, Long for the integer ones, are checked against torch's)
	for o in 9 13 17; do
		run -0 convert div_dyn old "$o"
		run -0 check "div_dyn.old-$o.onnx" --print
		[[ "$output" != *If* ]]
	done
	run -0 convert div_dyn old 13 --trace
	# the current archive: no upgrader graph
	run -0 ir div_dyn cur
	[[ "$output" != *'is_floating_point'* && "$output" != *trunc* ]]
	run -0 convert div_dyn cur 13 --trace
}

@test "upgraders: full with an int fill in a version 4 archive is a float tensor (opsets 9 13 17)" {
	need full
	for o in 9 13 17; do
		run -0 convert full old "$o"
	done
	run -0 convert full old 13 --trace
}

@test "upgraders: linspace with steps in a version 7 archive, logspace in a version 8 one: unchanged" {
	need linspace
	run -0 convert linspace old 13
	run -0 convert linspace edge 13
	# logspace's upgrader leaves a call with steps alone: the graph is
	# the current archive's, and it converts
	need logspace
	run -0 convert logspace old 13
	run -0 ir logspace old
	old=$output
	run -0 ir logspace cur
	[ "$old" = "$output" ]
	[[ "$output" == *'aten::logspace'* ]]
}

@test "upgraders: gelu in a version 9 archive gets approximate='none'" {
	need gelu
	run -0 convert gelu old 13
	run -0 ir gelu old
	n=$(printf '%s\n' "$output" | grep -F 'prim::Constant[value="none"]' |
		sed 's/^ *\(%[^ ]*\) :.*/\1/')
	[ -n "$n" ]
	[ "$(printf '%s\n' "$output" | grep -c "= aten::gelu(%[^,]*, $n)")" -eq 2 ]
}

@test "upgraders: the first version with the current meaning is not upgraded (div at 4, full at 5)" {
	for name in div div_dyn full; do
		need "$name"
		run -0 convert "$name" edge 13
		# the same graph as the current archive's, to the byte
		run -0 ir "$name" edge
		edge=$output
		run -0 ir "$name" cur
		[ "$edge" = "$output" ]
		run -0 ir "$name" old
		[ "$edge" != "$output" ]
	done
}

@test "upgraders: current-version archives are left untouched and match torch" {
	for name in div full linspace gelu; do
		need "$name"
		run -0 convert "$name" cur 13
	done
	run -0 ir div cur
	[[ "$output" != *trunc* ]]
	run -0 ir full cur
	[[ "$output" != *'aten::Float'* ]]
}

@test "upgraders: linspace and logspace without steps (old archives' form) take torch's old default" {
	need linspace_nosteps
	# torch 1.13 refuses that form at version 10, and so does script
	run -4 tool script -S "$M/linspace_nosteps.cur.pt" -i x=f32[6]
	run -4 tool script -S "$M/logspace_nosteps.cur.pt" -i x=f32[6]
	run tool script -S "$M/linspace_nosteps.old.pt" -i x=f32[6]
	if [ "$status" -eq 4 ] && [[ "$output" == *"call of 'aten::linspace'"* ]]; then
		skip "script does not bind linspace's old schema (steps optional) yet"
	fi
	run -0 convert linspace_nosteps old 13
	# logspace (no symbolic): the steps constant is as many as torch made
	steps=$("$PYTHON" -c 'import sys, numpy; print(numpy.load(sys.argv[1]).shape[-1])' \
		"$M/want_logspace_nosteps.old_0.npy")
	run -0 ir logspace_nosteps old
	c=$(printf '%s\n' "$output" | grep -F "prim::Constant[value=$steps]" |
		sed 's/^ *\(%[^ ]*\) :.*/\1/')
	[ -n "$c" ]
	printf '%s\n' "$output" | grep -q "= aten::logspace(%[^,]*, %[^,]*, $c,"
}

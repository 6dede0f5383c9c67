#!/usr/bin/env bats
# 429-stats-checks.bats - the reviewer's defects in the long tail of issue
# 14: cov's weights checked as torch checks them (trace and lower),
# nanmedian of a 0-d tensor along dims torch refuses (the 7-argument batch
# norm: tests/unit/test_trace_ops_nn.c, no archive reaches it), and pdist, diagonal_scatter and trace
# with their masks built at run time (no size cap, no constant growing
# with the input), compared with torch at the old caps' sizes and at 0 and
# 1 rows (tests/lower/make_stats_checks.py, tests/lower/opcases.bash).
# bats file_tags=tier:full

load helper

OPCASES_GEN=make_stats_checks.py
load lower/opcases

# small FILE...: each model under 16 KiB (a mask or an index of the
# old kind, at these sizes, is 32 KiB and more)
small() {
	local f
	for f in "$@"; do
		[ "$(stat -c %s "$f")" -lt 16384 ] || { echo "$f: $(stat -c %s "$f") bytes"; return 1; }
	done
}

@test "lower: pdist past 2048 rows (9 17), of 0 and 1 rows (9 11 17), on the three paths; the models small" {
	local k
	run all pdist_big 9 17
	echo "$output"
	[ "$status" -eq 0 ]
	for k in pdist_0 pdist_1; do
		run all "$k" 9 11 17
		echo "$output"
		[ "$status" -eq 0 ]
	done
	small pdist_big/*.onnx
}

@test "lower: diagonal_scatter past a 4096-wide diagonal and trace of 5000 columns, 4100 rows (9 17); diagonal_scatter of 1 row and of no matrix, trace of 0 rows and 1 row (9 11 17); on the three paths; the models small" {
	local k
	for k in dscatter_big trace_big; do
		run all "$k" 9 17
		echo "$output"
		[ "$status" -eq 0 ]
	done
	for k in dscatter_1 dscatter_empty trace_edge; do
		run all "$k" 9 11 17
		echo "$output"
		[ "$status" -eq 0 ]
	done
	small dscatter_big/*.onnx trace_big/*.onnx
}

@test "trace: cov's weights of the wrong numel, rank or dtype, or negative (or NaN), are refused in torch's words" {
	FIXTURE_DEST=cov fixture_run "$TESTS_DIR/lower/$OPCASES_GEN" cov @OUT
	local k m
	while read -r k m; do
		run -4 tool trace "cov/$m.pt" --input cov/x.npy --input "cov/$k.npy" -o out.ir
		echo "$k: $output"
		[ "${#lines[@]}" -eq 1 ]
		[[ "$output" == "trace: aten::cov"*": $(cat "cov/$k.msg")" ]]
		[ ! -e out.ir ]
	done < cov/cases.txt
}

@test "lower: cov's weights of a known wrong numel, rank or dtype are refused with torch's reason" {
	FIXTURE_DEST=cov fixture_run "$TESTS_DIR/lower/$OPCASES_GEN" cov @OUT
	local k m spec
	while read -r k m; do
		case $k in
		*_neg | *_nan) continue ;; # values: trace's, above
		f_numel) spec='fw=i64[3]' ;;
		f_dims) spec='fw=i64[1,5]' ;;
		f_float) spec='fw=f32[5]' ;;
		a_numel) spec='aw=f32[3]' ;;
		a_dims) spec='aw=f32[1,5]' ;;
		a_long) spec='aw=i64[5]' ;;
		esac
		run -4 pt2onnx "cov/$m.pt" --script --input 'x=f32[2,5]' --input "$spec" -o out.onnx
		echo "$k: $output"
		# torch's words, less the sizes it prints
		local want
		want=$(sed -E 's/ but got .*//' "cov/$k.msg")
		[[ "$output" == *"$want"* ]]
		[ ! -e out.onnx ]
	done < cov/cases.txt
}

@test "trace, lower: nanmedian of a 0-d tensor takes dim 0 and -1 only, as torch" {
	# a file: torch.jit.script reads the module's source
	cat > m.py <<'PY'
import numpy as np, torch
class M(torch.nn.Module):
    def forward(self, x, d: int):
        return torch.nanmedian(x, d)[0]
class M2(torch.nn.Module):
    def forward(self, x):
        return torch.nanmedian(x, 2)[0]
torch.jit.script(M()).save("m.pt")
torch.jit.script(M2()).save("m2.pt")
np.save("x.npy", np.array(2.5, dtype=np.float32))
for d in (0, -1, 1, -2):
    try:
        np.save(f"want{d}.npy", torch.nanmedian(torch.tensor(2.5), d)[0].numpy())
    except IndexError as e:
        open(f"err{d}.txt", "w").write(str(e) + "\n")
PY
	"$PYTHON" m.py
	local d
	for d in 0 -1; do
		run -0 tool trace m.pt --input x.npy --input "d=$d" --save-outputs "got$d" -o "m$d.ir"
		"$PYTHON" -c "import numpy as np, glob, sys
g = np.load(glob.glob('got$d/*.npy')[0]); w = np.load('want$d.npy')
assert g.dtype == w.dtype and g.shape == w.shape and (g == w).all(), (g, w)"
	done
	for d in 1 -2; do
		[ -f "err$d.txt" ]
		run -4 tool trace m.pt --input x.npy --input "d=$d" -o out.ir
		echo "$output"
		# torch's IndexError, its first letter in trace's case
		local err
		err=$(cat "err$d.txt")
		[[ "$output" == "trace: aten::nanmedian"*": d${err#D}" ]]
		[ ! -e out.ir ]
	done
	# lower, where dim is a constant: declined, no model
	run -4 pt2onnx m2.pt --script --input 'x=f32[]' -o m2.onnx
	echo "$output"
	[[ "$output" == *"aten::nanmedian"*"dim out of range for a 0-d input"* ]]
	[ ! -e m2.onnx ]
}

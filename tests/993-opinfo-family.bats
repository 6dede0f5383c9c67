#!/usr/bin/env bats
# 993-opinfo-family.bats - the conformance suite's opinfo family (issue 14):
# one traced model per (OpInfo, sample) of torch 1.13's op_db
# (tests/conformance/opinfo.py).  The listing covers every OpInfo of op_db,
# counted against op_db itself; a few samples are built, converted by
# pt2onnx's trace path at opset 13 and by torch.onnx.export, and judged by
# ONNX Runtime against torch's eager outputs (run.py); samples pt2onnx cannot
# be given are not applicable, with their reason; each sample is called as
# OpInfo's own tests call it (the OpInfo's op, a lambda for polygamma);
# report.py gives the family
# its own section.  The whole family's numbers are in docs/conformance.md
# (make conformance: hours).

# bats file_tags=tier:standard

load helper

GEN="$TESTS_DIR/conformance/generate.py"
RUN="$TESTS_DIR/conformance/run.py"

setup_file() {
	need_torch || return 0
	need_ort || return 0
	# the sample list (a child that imports torch and walks op_db), once
	"$PYTHON" "$GEN" --family opinfo --opinfo-samples 2 --list --work "$BATS_FILE_TMPDIR/cw" \
		>"$BATS_FILE_TMPDIR/list" 2>/dev/null
}

@test "opinfo: the listing has every OpInfo of torch 1.13's op_db, the first 2 samples of each or all, n/a ones with a reason" {
	local list="$BATS_FILE_TMPDIR/list"
	[ -s "$list" ]
	# op_db's own count of (OpInfo, sample) pairs, at most 2 per OpInfo, one dtype each
	local want
	want=$(PYTHONPATH="$TESTS_DIR/conformance/expecttest_stub:$TESTS_DIR/conformance" "$PYTHON" -c '
import torch, opmodels
n = nall = 0
names = set()
for o in opmodels.op_db():
    full = o.name + ("." + o.variant_test_name if o.variant_test_name else "")
    if full in names:
        continue
    names.add(full)
    dts = o.supported_dtypes("cpu")
    dt = next((d for d in opmodels.PREFERRED_DTYPES if d in dts), None)
    torch.manual_seed(0)  # a few sample lists depend on the generator (max_unpool.grad)
    try:
        k = len(list(o.sample_inputs("cpu", dt, requires_grad=False))) if dt else 1
    except Exception:
        k = 1
    n += max(min(k, 2), 1)
    nall += max(k, 1)
print(len(names), n, nall)' 2>/dev/null)
	local nops nsamples nall
	read -r nops nsamples nall <<<"$want"
	[ "$nops" -gt 600 ]
	[ "$(grep -c '^opinfo ' "$list")" -eq "$nsamples" ]
	[ "$(sed -n 's/.*(\(.*\) sample [0-9]*,.*/\1/p' "$list" | sort -u | wc -l)" -eq "$nops" ]
	# samples 0 and 1 only; n/a lines say why
	! grep -q ' sample [2-9][0-9]*,' "$list"
	grep -q '^opinfo .* opinfo_add_0 (add sample 0, float32)$' "$list"
	grep -q 'n/a: the sample has no model form: ' "$list"
	# --opinfo-samples 0: every sample
	run -0 "$PYTHON" "$GEN" --family opinfo --opinfo-samples 0 --list --work "$BATS_FILE_TMPDIR/cw"
	[ "$(grep -c '^opinfo ' <<<"$output")" -eq "$nall" ]
	[ "$nall" -gt 10000 ]
	# not in the fast subset (CI)
	run -0 "$PYTHON" "$GEN" --subset fast --family opinfo --list --work "$BATS_FILE_TMPDIR/cw"
	[[ "$output" == *"0 opinfo samples"* ]]
}

@test "opinfo: samples built, converted at opset 13 on the trace path only, beside torch.onnx.export; complex ones n/a" {
	local cw="$BATS_FILE_TMPDIR/cw" only='opinfo_add_0,opinfo_nn.functional.relu_0,opinfo_fft.fft_0'
	run -0 "$PYTHON" "$GEN" --family opinfo --only "$only" --work "$cw"
	echo '{"meta": {}, "models": {}}' >r.json
	run -0 "$PYTHON" "$RUN" --family opinfo --only "$only" --work "$cw" --pt2onnx "$BINDIR/pt2onnx" \
		--results r.json --update
	[[ "$output" == *"conformance: 2 (model, path, opset) convert and match, 0 do not yet, 1 not applicable"* ]]
	# what run.py merged: the trace path at 13 only, torch.onnx.export's verdict on the traced archive
	run -0 "$PYTHON" -c '
import json
m = json.load(open("r.json"))["models"]
for n in ("opinfo_add_0", "opinfo_nn.functional.relu_0", "opinfo_fft.fft_0"):
    r = m[n]
    print(n, r["family"], sorted(r["pt2onnx"]), sorted(r["pt2onnx"]["trace"]), r["pt2onnx"]["trace"]["13"]["status"],
          r.get("torch", {}).get("traced", {}).get("13", {}).get("pass"), r["pt2onnx"]["trace"]["13"].get("error", ""))'
	[[ "${lines[0]}" == "opinfo_add_0 opinfo ['trace'] ['13'] pass True " ]]
	[[ "${lines[1]}" == "opinfo_nn.functional.relu_0 opinfo ['trace'] ['13'] pass True " ]]
	[[ "${lines[2]}" == "opinfo_fft.fft_0 opinfo ['trace'] ['13'] n/a None model not generated: no model: output pt2onnx cannot give: complex output" ]]
	# the report: its own section, counted from the file
	run -0 "$PYTHON" "$TESTS_DIR/conformance/report.py" --results r.json -o c.md
	grep -q '^## OpInfo samples$' c.md
	grep -q '^| opinfo | 3 | 13 | 2/2 | · | · | · | 2/2 | – |$' c.md
	grep -q '^- 1× output pt2onnx cannot give: complex output$' c.md
}

@test "opinfo: a sample whose OpInfo calls a wrapper (polygamma's lambda takes x, n) is built as its own test calls it, n a constant" {
	local cw="$BATS_FILE_TMPDIR/cw" name='opinfo_polygamma.polygamma_n_0_0'
	run -0 "$PYTHON" "$GEN" --family opinfo --only "$name" --work "$cw" --no-torch-export
	local d="$cw/models/$name"
	# model.py calls the OpInfo itself; the traced graph has polygamma with n constant
	grep -q "^OP = opinfo_named('polygamma.polygamma_n_0')" "$d/model.py"
	# torch's own call on op_db's sample 0 (torch.polygamma(n, x)) gives the model's saved output
	run -0 env PYTHONPATH="$TESTS_DIR/conformance/expecttest_stub:$TESTS_DIR/conformance" "$PYTHON" -c '
import json, sys, numpy as np, torch, opmodels
o = opmodels.opinfo_named("polygamma.polygamma_n_0")
torch.manual_seed(0)
s = list(o.sample_inputs("cpu", torch.float32, requires_grad=False))[0]
d = sys.argv[1]
x = np.load(d + "/in1/x0.npy")
assert np.array_equal(x, s.input.numpy())
want = torch.polygamma(s.args[0], torch.from_numpy(x)).numpy()
print(json.load(open(d + "/meta.json"))["archives"]["traced"]["kinds"], np.array_equal(np.load(d + "/out1/0.npy"), want, equal_nan=True))' "$d"
	[ "$output" = "['aten::polygamma', 'prim::Constant'] True" ]
	# pt2onnx converts it and ONNX Runtime matches torch's outputs
	echo '{"meta": {}, "models": {}}' >r.json
	run -0 "$PYTHON" "$RUN" --family opinfo --only "$name" --work "$cw" --pt2onnx "$BINDIR/pt2onnx" --results r.json
	[[ "$output" == *"conformance: 1 (model, path, opset) convert and match, 0 do not yet, 0 not applicable"* ]]
}

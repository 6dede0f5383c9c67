#!/usr/bin/env bats
# 405-lower-extra-infer.bats - lower's type inference (lib/lower/build.c)
# for the ONNX ops the extra symbolics emit (Acos, IsNaN, RandomUniformLike,
# MaxPool's Indices, SoftmaxCrossEntropyLoss, DepthToSpace, OneHot, Unique,
# NonZero, Resize): each graph output's type in lower's text IR must have
# torch's dtype and rank, and every fixed dim torch's size (the oracle is
# torch running the same model on inputs of those shapes; the archive is
# traced, read by script, as trace records interpolate's scale list).
# bats file_tags=tier:standard

load helper

setup_file() {
	need_torch || return 0
	cd "$BATS_FILE_TMPDIR"
	cat > build_infer.py <<'PY'
import json
import torch
import torch.nn.functional as F


class M(torch.nn.Module):
    def forward(self, x, t):
        y, i = F.max_pool2d(x, 2, return_indices=True)
        return (torch.acos(x.clamp(-1, 1)), torch.isnan(x),
                torch.rand_like(x) * 0, y, i,
                F.cross_entropy(x.flatten(2).mean(2), t, reduction="none"),
                F.cross_entropy(x.flatten(2).mean(2), t),
                F.pixel_shuffle(x, 2), F.one_hot(t, 5),
                torch.nonzero(x > 0), F.interpolate(x, scale_factor=2.0),
                torch.unique(t))


torch.manual_seed(0)
x = torch.randn(2, 4, 6, 6)
t = torch.tensor([1, 3])
torch.jit.trace(M(), (x, t)).save("m.pt")
out = [{"dtype": str(o.dtype), "shape": list(o.shape)} for o in M()(x, t)]
json.dump(out, open("want.json", "w"))
PY
	/usr/bin/python3 build_infer.py
	cat > check_infer.py <<'PY'
import json
import re
import sys

DT = {"Float": "torch.float32", "Long": "torch.int64", "Bool": "torch.bool"}
text = open(sys.argv[1]).read()
fixed = sys.argv[2] == "fixed"
want = json.load(open("want.json"))
types = dict(re.findall(r"(%[\w.]+) : (\w+\([^)]*\)|\w+)", text))
ret = re.search(r"return \(([^)]*)\)", text).group(1).split(", ")
assert len(ret) == len(want), (ret, want)
bad = 0
for k, (name, w) in enumerate(zip(ret, want)):
    ty = types.get(name, "?")
    m = re.match(r"(\w+)(?:\((.*)\))?$", ty)
    dt, dims = m.group(1), (m.group(2) or "")
    dims = [d.strip() for d in dims.split(",")] if dims else []
    ok = DT.get(dt) == w["dtype"] and len(dims) == len(w["shape"])
    for d, s in zip(dims, w["shape"]):
        if d.isdigit() and int(d) != s:
            ok = False
    # with fixed input shapes, the data-independent outputs are fixed
    if fixed and k not in (9, 11) and not all(d.isdigit() for d in dims):
        ok = False
    if not ok:
        print(f"output {k}: {name} : {ty}, torch {w}")
        bad += 1
sys.exit(1 if bad else 0)
PY
}

@test "infer: extra ops' outputs typed as torch's, fixed input shapes" {
	cd "$BATS_FILE_TMPDIR"
	run_pipe() { "$BINDIR/script" m.pt --input 'x=f32[2,4,6,6]' \
		--input 't=i64[2]' | "$BINDIR/lower" --opset "$1" -S; }
	for op in 13 17; do
		run_pipe $op > m$op.txt
		run /usr/bin/python3 check_infer.py m$op.txt fixed
		echo "opset $op: $output"
		[ "$status" -eq 0 ]
	done
}

@test "infer: symbolic spatial dims keep ranks (DepthToSpace, Resize)" {
	cd "$BATS_FILE_TMPDIR"
	"$BINDIR/script" m.pt --input 'x=f32[2,4,h,w]' \
		--input 't=i64[2]' | "$BINDIR/lower" --opset 13 -S > ms.txt
	grep -q 'onnx::DepthToSpace' ms.txt
	run /usr/bin/python3 check_infer.py ms.txt symbolic
	echo "$output"
	[ "$status" -eq 0 ]
}

#!/usr/bin/env bats
# 881-pt2onnx-input-check.bats - issue 16 section 1: an --input that does
# not fit the archive is refused on the script path as on the trace path,
# never exported into a model that passes the checks and fails in ONNX
# Runtime.  lower (lib/lower/input_check.c) compares the tensors each op
# gets with what it needs (linear and the matmul family's inner dims, a
# convolution's rank and input channels, integer or other-float tensors
# against float weights), and refuses with one line naming the graph input,
# exit 3; trace fails running the op, exit 4.  Every case is one where
# torch itself raises (checked here on the same inputs), on a scripted and
# a traced archive of the same module.

# bats file_tags=tier:standard

load helper

setup_file() {
	need_torch || return 0
	cd "$BATS_FILE_TMPDIR" || return 1
	cat > build.py <<'PY'
import sys
import torch, torch.nn as nn, torchvision
torch.manual_seed(0)

class Lin(nn.Module):
    def __init__(self):
        super().__init__(); self.fc = nn.Linear(12, 5)
    def forward(self, x):
        return self.fc(x)

class MatW(nn.Module):
    def __init__(self):
        super().__init__(); self.w = nn.Parameter(torch.randn(12, 5))
    def forward(self, x):
        return torch.relu(x) @ self.w

class Bmm(nn.Module):
    def forward(self, a, b):
        return torch.bmm(a, b)

class Cnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(4, 8, 3, groups=2)
    def forward(self, x):
        return self.conv(x).relu()

DT = {"f32": torch.float32, "i64": torch.int64, "f64": torch.float64}

def example(spec):
    dt, dims = spec[:-1].split("[")
    return torch.ones(*[int(d) for d in dims.split(",")], dtype=DT[dt])

# name: module, the good inputs (for the trace), the bad --input specs
models = {
    "lin": (Lin(), ["x=f32[3,12]"]),
    "matw": (MatW(), ["x=f32[3,12]"]),
    "bmm": (Bmm(), ["a=f32[2,3,4]", "b=f32[2,4,6]"]),
    "cnn": (Cnn(), ["x=f32[1,4,8,8]"]),
    "r18": (torchvision.models.resnet18(), ["x=f32[1,3,64,64]"]),
}

def save(name):
    m, good = models[name]
    m.eval()
    args = tuple(example(s.split("=")[1]) for s in good)
    torch.jit.script(m).save(f"{name}s.pt")
    torch.jit.trace(m, args).save(f"{name}t.pt")

def raises(name, specs):
    """torch's verdict on the bad inputs: exit 0 when it raises"""
    m, good = models[name]
    m.eval()
    try:
        with torch.no_grad():
            m(*[example(s.split("=")[1]) for s in specs])
    except RuntimeError:
        return 0
    return 1

if __name__ == "__main__":
    if sys.argv[1] == "save":
        for n in sys.argv[2:]:
            save(n)
    else:
        sys.exit(raises(sys.argv[2], sys.argv[3:]))
PY
	"$PYTHON" build.py save lin matw bmm cnn r18 > build.log 2>&1 ||
		{ cat build.log >&2; return 1; }
}

setup() {
	skip_missing
	cd "$BATS_FILE_TMPDIR" || return 1
}

# refused NAME 'LINE-SCRIPTED' 'LINE-TRACED' 'TRACE-S' 'TRACE-T' SPEC...:
# torch raises on SPECs; pt2onnx on NAMEs.pt and NAMEt.pt refuses on the
# script path with the first line (exit 3) and with --trace with the
# second (exit 4); no model either way
refused() {
	local name=$1 ls=$2 lt=$3 ts=$4 tt=$5 s specs=()
	shift 5
	for s in "$@"; do
		specs+=(-i "$s")
	done
	"$PYTHON" build.py raises "$name" "$@" || {
		echo "torch does not raise on $*"; return 1; }
	check_refusal 3 "lower: <stdin>: $ls" "$name"s.pt "${specs[@]}" &&
	check_refusal 3 "lower: <stdin>: $lt" "$name"t.pt "${specs[@]}" &&
	check_refusal 4 "trace: $ts" "$name"s.pt "${specs[@]}" --trace &&
	check_refusal 4 "trace: $tt" "$name"t.pt "${specs[@]}" --trace
}

# check_refusal STATUS LINE ARG...: pt2onnx ARG... exits STATUS, its first
# line is LINE (the stage's; the wrapper's own follows), no model written
check_refusal() {
	local want=$1 line=$2 rc=0 out
	shift 2
	rm -f m.onnx
	out=$(pt2onnx "$@" -o m.onnx 2>&1) || rc=$?
	[ "$rc" = "$want" ] || { echo "exit $rc, not $want: $out"; return 1; }
	[ "$(head -1 <<< "$out")" = "$line" ] ||
		{ echo "got: $(head -1 <<< "$out")"; echo "not: $line"; return 1; }
	[ ! -e m.onnx ] || { echo "m.onnx written"; return 1; }
}

@test "refused: x=f32[3,17] into Linear(12, 5) (the issue's case)" {
	run -0 refused lin \
		"input 'x' f32[3,17]: aten::linear at Lin/Linear[fc] needs last dim 12 (weight f32[5,12])" \
		"input 'x' f32[3,17]: aten::linear at Lin/Linear[fc] needs last dim 12 (weight f32[5,12])" \
		"aten::linear (Lin/Linear[fc]): mat1 and mat2 shapes cannot be multiplied (3x17 and 12x5)" \
		"aten::linear (Lin/Linear[fc]): mat1 and mat2 shapes cannot be multiplied (3x17 and 12x5)" \
		'x=f32[3,17]'
}

@test "refused: an i64 input into a Linear, and an f64 one" {
	run -0 refused lin \
		"input 'x' i64[3,12]: aten::linear at Lin/Linear[fc] needs f32 (weight f32[5,12])" \
		"input 'x' i64[3,12]: aten::linear at Lin/Linear[fc] needs f32 (weight f32[5,12])" \
		"aten::linear (Lin/Linear[fc]): expected both operands to have the same dtype, but got Long and Float" \
		"aten::linear (Lin/Linear[fc]): expected both operands to have the same dtype, but got Long and Float" \
		'x=i64[3,12]'
	run -0 refused lin \
		"input 'x' f64[3,12]: aten::linear at Lin/Linear[fc] needs f32 (weight f32[5,12])" \
		"input 'x' f64[3,12]: aten::linear at Lin/Linear[fc] needs f32 (weight f32[5,12])" \
		"aten::linear (Lin/Linear[fc]): expected both operands to have the same dtype, but got Double and Float" \
		"aten::linear (Lin/Linear[fc]): expected both operands to have the same dtype, but got Double and Float" \
		'x=f64[3,12]'
}

@test "refused: relu(x) @ a parameter, wrong inner dim and an i64 input" {
	run -0 refused matw \
		"input 'x' f32[3,17]: aten::matmul at MatW needs last dim 12, got f32[3,17] (weight f32[12,5])" \
		"input 'x' f32[3,17]: aten::matmul at MatW needs last dim 12, got f32[3,17] (weight f32[12,5])" \
		"aten::matmul (MatW): mat1 and mat2 shapes cannot be multiplied (3x17 and 12x5)" \
		"aten::matmul (MatW): mat1 and mat2 shapes cannot be multiplied (3x17 and 12x5)" \
		'x=f32[3,17]'
	run -0 refused matw \
		"input 'x' i64[3,12]: aten::matmul at MatW needs f32, got i64[3,12] (weight f32[12,5])" \
		"input 'x' i64[3,12]: aten::matmul at MatW needs f32, got i64[3,12] (weight f32[12,5])" \
		"aten::matmul (MatW): expected both operands to have the same dtype, but got Long and Float" \
		"aten::matmul (MatW): expected both operands to have the same dtype, but got Long and Float" \
		'x=i64[3,12]'
}

@test "refused: bmm of two inputs that do not chain, and of a float and an i64 input" {
	run -0 refused bmm \
		"input 'a' f32[2,3,4]: aten::bmm at Bmm needs last dim 5 (other operand f32[2,5,6])" \
		"input 'a' f32[2,3,4]: aten::bmm at Bmm needs last dim 5 (other operand f32[2,5,6])" \
		"aten::bmm (Bmm): mat1 and mat2 shapes cannot be multiplied (3x4 and 5x6)" \
		"aten::bmm (Bmm): mat1 and mat2 shapes cannot be multiplied (3x4 and 5x6)" \
		'a=f32[2,3,4]' 'b=f32[2,5,6]'
	run -0 refused bmm \
		"input 'b' i64[2,4,6]: aten::bmm at Bmm needs f32 (other operand f32[2,3,4])" \
		"input 'b' i64[2,4,6]: aten::bmm at Bmm needs f32 (other operand f32[2,3,4])" \
		"aten::bmm (Bmm): expected both operands to have the same dtype, but got Float and Long" \
		"aten::bmm (Bmm): expected both operands to have the same dtype, but got Float and Long" \
		'a=f32[2,3,4]' 'b=i64[2,4,6]'
}

@test "refused: bmm of a 2-d input (rank)" {
	run -0 refused bmm \
		"input 'a' f32[3,4]: aten::bmm at Bmm needs 3-d tensors (other operand f32[2,4,6])" \
		"input 'a' f32[3,4]: aten::bmm at Bmm needs 3-d tensors (other operand f32[2,4,6])" \
		"aten::bmm (Bmm): batch1 must be a 3D tensor" \
		"aten::bmm (Bmm): batch1 must be a 3D tensor" \
		'a=f32[3,4]' 'b=f32[2,4,6]'
}

@test "refused: a grouped conv given the wrong channels, an i64 input, a rank-2 input" {
	run -0 refused cnn \
		"input 'x' f32[1,6,8,8]: aten::conv2d at Cnn/Conv2d[conv] needs 4 input channels (dim 1) (weight f32[8,2,3,3])" \
		"input 'x' f32[1,6,8,8]: aten::_convolution at Cnn/Conv2d[conv] needs 4 input channels (dim 1) (weight f32[8,2,3,3])" \
		"aten::conv2d (Cnn/Conv2d[conv]): given groups=2, weight of size [8, 2, ...], expected input to have 4 channels, but got 6 channels" \
		"aten::_convolution (Cnn/Conv2d[conv]): given groups=2, weight of size [8, 2, ...], expected input to have 4 channels, but got 6 channels" \
		'x=f32[1,6,8,8]'
	run -0 refused cnn \
		"input 'x' i64[1,4,8,8]: aten::conv2d at Cnn/Conv2d[conv] needs f32 (weight f32[8,2,3,3])" \
		"input 'x' i64[1,4,8,8]: aten::_convolution at Cnn/Conv2d[conv] needs f32 (weight f32[8,2,3,3])" \
		"aten::conv2d (Cnn/Conv2d[conv]): input type (Long) and weight type (Float) should be the same" \
		"aten::_convolution (Cnn/Conv2d[conv]): input type (Long) and weight type (Float) should be the same" \
		'x=i64[1,4,8,8]'
	run -0 refused cnn \
		"input 'x' f32[8,8]: aten::conv2d at Cnn/Conv2d[conv] needs a 4-d input (or 3-d unbatched) (weight f32[8,2,3,3])" \
		"input 'x' f32[8,8]: aten::_convolution at Cnn/Conv2d[conv] needs a 4-d input (or 3-d unbatched) (weight f32[8,2,3,3])" \
		"aten::conv2d (Cnn/Conv2d[conv]): expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size rank 2" \
		"aten::_convolution (Cnn/Conv2d[conv]): expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size rank 2" \
		'x=f32[8,8]'
}

@test "refused: resnet18 given 4 channels (the issue's case), and an i64 image" {
	run -0 refused r18 \
		"input 'x' f32[1,4,224,224]: aten::conv2d at ResNet/Conv2d[conv1] needs 3 input channels (dim 1) (weight f32[64,3,7,7])" \
		"input 'x' f32[1,4,224,224]: aten::_convolution at ResNet/Conv2d[conv1] needs 3 input channels (dim 1) (weight f32[64,3,7,7])" \
		"aten::conv2d (ResNet/Conv2d[conv1]): given groups=1, weight of size [64, 3, ...], expected input to have 3 channels, but got 4 channels" \
		"aten::_convolution (ResNet/Conv2d[conv1]): given groups=1, weight of size [64, 3, ...], expected input to have 3 channels, but got 4 channels" \
		'x=f32[1,4,224,224]'
	run -0 refused r18 \
		"input 'x' i64[1,3,64,64]: aten::conv2d at ResNet/Conv2d[conv1] needs f32 (weight f32[64,3,7,7])" \
		"input 'x' i64[1,3,64,64]: aten::_convolution at ResNet/Conv2d[conv1] needs f32 (weight f32[64,3,7,7])" \
		"aten::conv2d (ResNet/Conv2d[conv1]): input type (Long) and weight type (Float) should be the same" \
		"aten::_convolution (ResNet/Conv2d[conv1]): input type (Long) and weight type (Float) should be the same" \
		'x=i64[1,3,64,64]'
}

@test "not refused: a symbolic dim where the op needs a size (the runtime decides), checked by onnx.checker" {
	for a in s t; do
		run -0 pt2onnx lin$a.pt -i 'x=f32[3,k]' -o k.onnx
		run -0 onnx_checker k.onnx
		run -0 pt2onnx cnn$a.pt -i 'x=f32[n,c,8,8]' -o c.onnx
		run -0 onnx_checker c.onnx
		run -0 pt2onnx bmm$a.pt -i 'a=f32[2,3,k]' -i 'b=f32[2,m,6]' -o b.onnx
		run -0 onnx_checker b.onnx
	done
}

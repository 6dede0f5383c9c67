#!/usr/bin/env bats
# 210-script-args.bats - `script` on forward arguments that are not
# tensors (issue 14): an LSTM's (h, c) state as a tuple, a list of
# tensors, nested tuples and lists, int, float and bool arguments and
# Optional given None or a tensor, in archives scripted and traced by
# torch 1.13 (tests/args/make_args_models.py).  Each is given as --input
# specs (dtype and shape, and .npy files), lowered, checked by
# onnx.checker and run by ONNX Runtime against torch's outputs; tuples and
# lists are flattened into graph inputs named NAME.0, NAME.1, numbers are
# constants.  Specs that do not fit the argument are refused.
# bats file_tags=tier:standard

load helper

setup_file() {
	need_torch || return 0
	need_ort || return 0
}

# each NAME in both spec forms, from the archives SUFFIX (s, t)
both() {
	local sfx=$1 n
	shift
	args_build || return 1
	for n in "$@"; do
		args_run script "$n.$sfx.pt" "$n" "$n.spec" ||
			{ echo "$n.$sfx: dtype specs failed"; return 1; }
		args_run script "$n.$sfx.pt" "$n" "$n.npyspec" ||
			{ echo "$n.$sfx: .npy specs failed"; return 1; }
	done
}

@test "script args: LSTM (x, (h, c)), a list, nested tuples and lists; scripted archives" {
	both s lstm_state list_in nested
	# the tuple's items are graph inputs hx.0 and hx.1, after x
	run -0 "$PYTHON" -c 'import onnx
print([i.name for i in onnx.load("lstm_state-script.onnx").graph.input])'
	[ "$output" = "['x', 'hx.0', 'hx.1']" ]
}

@test "script args: LSTM (x, (h, c)), a list, nested tuples and lists; traced archives" {
	both t lstm_state list_in nested
}

@test "script args: int, float and bool arguments are constants; Optional None and a tensor" {
	both s scalars opt_none opt_some
	run -0 "$PYTHON" -c 'import onnx
print([i.name for i in onnx.load("scalars-script.onnx").graph.input])'
	[ "$output" = "['x']" ]
	# Python's spellings too: 3, 0.5, True
	run -0 tool script scalars.s.pt -i 'x=f32[2,3]' -i n=3 -i f=0.5 -i b=True -o s.air
}

@test "script args: specs that do not fit the argument are refused" {
	args_build
	run -2 tool script lstm_state.s.pt -i 'x=f32[5,2,4]' -i 'hx=f32[1,2,3]' -o x.air
	[[ "$output" == *"--input for 'hx': the argument is of type Tuple, not a tensor"* ]]
	run -2 tool script lstm_state.s.pt -i 'x=f32[5,2,4]' -i 'hx=(f32[1,2,3],)' -o x.air
	[[ "$output" == *"'hx': the argument is a tuple of 2 items, not 1"* ]]
	run -2 tool script scalars.s.pt -i 'x=f32[2,3]' -i n=0.5 -i f=1 -i b=true -o x.air
	[[ "$output" == *"'n': the argument is of type int, not a float"* ]]
	run -2 tool script list_in.s.pt -i 'xs=(f32[2],f32[2])' -o x.air
	[[ "$output" == *"'xs': the argument is of type List, not a tuple"* ]]
	run -2 tool script list_in.s.pt -i 'xs=[f32[2],f32[2]' -o x.air
	[[ "$output" == *"unbalanced brackets"* ]]
	run -2 tool script list_in.s.pt -i 'xs=[f32[2],,f32[2]]' -o x.air
	[[ "$output" == *"an empty item"* ]]
	run -2 tool script scalars.s.pt -i 'x=f32[2,3]' -i n=int:x -o x.air
	[[ "$output" == *"'x' is not an int"* ]]
	cat > dict.py <<'PY'
from typing import Dict

import torch
import torch.nn as nn


class D(nn.Module):
    def forward(self, d: Dict[str, torch.Tensor]):
        return d["a"] + 1


torch.jit.script(D()).save("dict.pt")
PY
	fixture_run dict.py
	run -2 tool script dict.pt -i 'd=(f32[2],)' -o x.air
	[[ "$output" == *"'d': the argument is a Dict, which --input cannot give"* ]]
	[ ! -e x.air ]
}

@test "script args: a module whose methods name self otherwise (s, me), with a tuple argument; script and trace" {
	need_torch
	cat > sname.py <<'PY'
from typing import Tuple

import numpy as np
import torch
import torch.nn as nn


class Sub(nn.Module):
    def __init__(me):
        super().__init__()
        me.lin = nn.Linear(4, 3)

    def forward(me, x):
        return me.lin(x).relu()


class Top(nn.Module):
    def __init__(s):
        super().__init__()
        s.sub = Sub()
        s.k = 2

    def forward(s, x, hx: Tuple[torch.Tensor, torch.Tensor]):
        return s.sub(x) * s.k + hx[0] - hx[1]


torch.manual_seed(0)
m = Top().eval()
x, h, c = torch.randn(2, 4), torch.randn(2, 3), torch.randn(2, 3)
torch.jit.script(m).save("sname.pt")
for n, v in (("x", x), ("hx.0", h), ("hx.1", c)):
    np.save(f"sname.in.{n}.npy", v.numpy())
with torch.no_grad():
    np.save("want_sname_0.npy", m(x, (h, c)).numpy())
with open("sname.spec", "w") as f:
    f.write("x=sname.in.x.npy\nhx=(sname.in.hx.0.npy,sname.in.hx.1.npy)\n")
PY
	fixture_run sname.py
	args_run script sname.pt sname sname.spec
	args_run trace sname.pt sname sname.spec
}

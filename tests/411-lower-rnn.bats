#!/usr/bin/env bats
# 411-lower-rnn.bats - aten::lstm, gru, rnn_tanh and rnn_relu
# (lib/lower/symbolic_rnn.c) against torch on two counts: ONNX Runtime's
# outputs match torch's (1e-4 relative error) at two sizes of the dynamic
# dims, and the graph has no more than 1.1 times the nodes of
# torch.onnx.export's for the same archive at the same opset (exported here
# by torch, with the same dynamic axes).  Covered: batch_first,
# bidirectional, 2 layers, with and without initial states (and an LSTM
# with only c0), no biases, and weights that are inputs (the op form) -
# traced and scripted archives, opsets 9 and 13.
# bats file_tags=tier:standard

load helper

setup_file() {
	need_torch || return 0
	need_ort || return 0
}

# build MODE NAME...: for each NAME of the table below, NAME.pt (trace or
# script), its inputs and torch's outputs per size (tests/oracle/sizes.py),
# and torch.onnx.export's node count at opsets 9 and 13 in NAME.torch-OPSET
build() {
	cat > build58r.py <<'PY'
import re
import sys
import warnings

import torch
import torch.nn as nn

warnings.filterwarnings("ignore")
torch.manual_seed(0)
mode, oracle, names = sys.argv[1], sys.argv[2], sys.argv[3:]


class Lstm(nn.Module):
    """state: 0 none, 1 h0 and c0, 2 c0 only"""
    def __init__(self, state, **kw):
        super().__init__()
        self.state = state
        self.rnn = nn.LSTM(8, 12, **kw)

    def forward(self, x, h0, c0):
        if self.state == 0:
            y, (h, c) = self.rnn(x)
        elif self.state == 1:
            y, (h, c) = self.rnn(x, (h0, c0))
        else:
            y, (h, c) = self.rnn(x, (torch.zeros_like(c0), c0))
        return y, h, c


class Rnn(nn.Module):
    """kind GRU or RNN; state: 0 none, 1 h0"""
    def __init__(self, kind, state, **kw):
        super().__init__()
        self.state = state
        self.rnn = getattr(nn, kind)(8, 12, **kw)

    def forward(self, x, h0, c0):
        if self.state == 0:
            return self.rnn(x)
        return self.rnn(x, h0)


class OpLstm(nn.Module):
    """aten::lstm on weights that are inputs, bidirectional, batch_first,
    zeros as the initial state"""
    def forward(self, x, wi, wh, bi, bh, wi2, wh2, bi2, bh2):
        h = torch.zeros(2, x.size(0), 4)
        return torch.lstm(x, [h, h], [wi, wh, bi, bh, wi2, wh2, bi2, bh2],
                          True, 1, 0.0, False, True, True)


class OpGru(nn.Module):
    """aten::gru on weight inputs, 2 layers, with an initial state"""
    def forward(self, x, h, wi, wh, bi, bh, wi2, wh2, bi2, bh2):
        return torch.gru(x, h, [wi, wh, bi, bh, wi2, wh2, bi2, bh2],
                         True, 2, 0.0, False, False, False)


class OpRnn(nn.Module):
    """aten::rnn_relu on weight inputs, no biases"""
    def forward(self, x, h, wi, wh):
        return torch.rnn_relu(x, h, [wi, wh], False, 1, 0.0, False, False,
                              False)


def ins(bf, layers_dirs, c0=True):
    x = ("x", "f32[b,t,8]", [(2, 5, 8), (3, 7, 8)]) if bf else \
        ("x", "f32[t,b,8]", [(5, 2, 8), (7, 3, 8)])
    h = [(layers_dirs, 2, 12), (layers_dirs, 3, 12)]
    return [x, ("h0", f"f32[{layers_dirs},b,12]", h),
            ("c0", f"f32[{layers_dirs},b,12]", h)]


def w(name, *shape):
    return (name, f"f32[{','.join(map(str, shape))}]", [shape, shape])


models = {
    "lstm_bf": (Lstm(0, batch_first=True), ins(1, 1)),
    "lstm_2l_bi_bf": (Lstm(0, num_layers=2, bidirectional=True,
                          batch_first=True), ins(1, 4)),
    "lstm_2l_bi_state": (Lstm(1, num_layers=2, bidirectional=True),
                         ins(0, 4)),
    "lstm_c0_nobias": (Lstm(2, num_layers=2, bias=False), ins(0, 2)),
    "gru_2l_bi": (Rnn("GRU", 0, num_layers=2, bidirectional=True), ins(0, 4)),
    "gru_bi_state_bf": (Rnn("GRU", 1, bidirectional=True, batch_first=True),
                        ins(1, 2)),
    "rnn_relu_bi": (Rnn("RNN", 0, nonlinearity="relu", bidirectional=True),
                    ins(0, 2)),
    "rnn_tanh_2l_state_bf": (Rnn("RNN", 1, num_layers=2, batch_first=True),
                             ins(1, 2)),
    "op_lstm": (OpLstm(), [("x", "f32[b,t,3]", [(2, 5, 3), (3, 6, 3)]),
                           w("wi", 16, 3), w("wh", 16, 4), w("bi", 16),
                           w("bh", 16), w("wi2", 16, 3), w("wh2", 16, 4),
                           w("bi2", 16), w("bh2", 16)]),
    "op_gru": (OpGru(), [("x", "f32[t,b,3]", [(5, 2, 3), (6, 3, 3)]),
                         ("h", "f32[2,b,4]", [(2, 2, 4), (2, 3, 4)]),
                         w("wi", 12, 3), w("wh", 12, 4), w("bi", 12),
                         w("bh", 12), w("wi2", 12, 4), w("wh2", 12, 4),
                         w("bi2", 12), w("bh2", 12)]),
    "op_rnn": (OpRnn(), [("x", "f32[t,b,3]", [(5, 2, 3), (6, 3, 3)]),
                         ("h", "f32[1,b,4]", [(1, 2, 4), (1, 3, 4)]),
                         w("wi", 4, 3), w("wh", 4, 4)]),
}
sys.path.insert(0, oracle)
from sizes import save_sizes  # noqa: E402

for name in names:
    save_sizes(name, mode, models)
    import numpy as np
    m, spec = models[name]
    inames = [n for n, _, _ in spec]
    args = tuple(torch.from_numpy(np.load(f"{name}-0.{n}.npy")) for n in inames)
    dyn = {}
    for n, s, _ in spec:
        dims = re.match(r"\w+\[(.*)\]", s).group(1).split(",")
        d = {i: v for i, v in enumerate(dims) if not v.isdigit()}
        if d:
            dyn[n] = d
    import onnx
    for o in (9, 13):
        f = f"{name}.torch-{o}.onnx"
        torch.onnx.export(torch.jit.load(f"{name}.pt"), args, f,
                          opset_version=o, input_names=inames,
                          dynamic_axes=dyn)
        with open(f"{name}.torch-{o}", "w") as out:
            out.write(f"{len(onnx.load(f).graph.node)}\n")
PY
	fixture_run build58r.py "$1" "$ORACLE_DIR" "${@:2}"
}

# nodes NAME OPSET: our node count and torch's for NAME at OPSET; fails
# when ours is above 1.1 times torch's
nodes() {
	local ours torch
	ours=$("$PYTHON" -c 'import onnx, sys
print(len(onnx.load(sys.argv[1]).graph.node))' "$1-$2.onnx") || return 1
	torch=$(cat "$1.torch-$2")
	echo "$1 opset $2: $ours nodes, torch.onnx.export $torch"
	[ $((ours * 10)) -le $((torch * 11)) ]
}

# check MODE NAME...: build, then per NAME and opset 9, 13: script | lower
# | fold | emit, ONNX Runtime at both sizes against torch, node counts
check_all() {
	local mode=$1 name o
	shift
	build "$mode" "$@" || return 1
	for name in "$@"; do
		sizes_script_model "$name" || { echo "$name: script failed"; return 1; }
		for o in 9 13; do
			sizes_run "$name" "$o" ||
				{ echo "$name opset $o: run failed"; return 1; }
			nodes "$name" "$o" || return 1
		done
	done
}

@test "lower: LSTM, traced: batch_first, 2 layers bidirectional, states, only c0, no biases; opsets 9 13" {
	check_all trace lstm_bf lstm_2l_bi_bf lstm_2l_bi_state \
		lstm_c0_nobias
	# no initial state: ONNX's initial_h and initial_c left empty
	run -0 "$PYTHON" -c 'import onnx
g = onnx.load("lstm_bf-13.onnx").graph
n = [n for n in g.node if n.op_type == "LSTM"]
assert len(n) == 1 and list(n[0].input[5:]) in ([], ["", ""]), n[0].input
assert not [n for n in g.node if n.op_type == "ConstantOfShape"]'
}

@test "lower: LSTM, scripted: batch_first, 2 layers bidirectional, states, only c0, no biases; opsets 9 13" {
	check_all script lstm_bf lstm_2l_bi_bf lstm_2l_bi_state \
		lstm_c0_nobias
}

@test "lower: GRU and RNN, traced and scripted: bidirectional, 2 layers, batch_first, with and without h0; opsets 9 13" {
	check_all trace gru_2l_bi gru_bi_state_bf rnn_relu_bi \
		rnn_tanh_2l_state_bf
	check_all script gru_2l_bi gru_bi_state_bf rnn_relu_bi \
		rnn_tanh_2l_state_bf
}

@test "lower: aten::lstm, gru, rnn_relu on weights that are inputs (the op form); opsets 9 13" {
	check_all trace op_lstm op_gru op_rnn
}

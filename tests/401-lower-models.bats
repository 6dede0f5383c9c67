#!/usr/bin/env bats
# 401-lower-models.bats - lower on torch-made archives of what torch 1.13's
# exporter cannot do or what the transformer and RNN families record: the
# fast-path ops (aten::_transformer_encoder_layer_fwd,
# aten::_native_multi_head_attention), aten::lstm/gru/rnn_tanh/rnn_relu,
# aten::device and a dynamic arange, tril below opset 14 on dynamic dims.
# Each model is built and traced by torch here (torch.jit.trace under
# no_grad in eval mode, as the fast path needs), its outputs computed by
# torch; then script | lower | emit, onnx.checker, ONNX Runtime, compared
# with 1e-4 relative error.
# bats file_tags=tier:standard

load helper

setup_file() {
	need_torch || return 0
	need_ort || return 0
}

# build NAME: NAME.pt, the inputs NAME.in.txt (name=spec=file) and torch's
# outputs want_NAME_K.npy
build() {
	cat > build51.py <<'PY'
import sys
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
name = sys.argv[1]


class GPTish(nn.Module):
    """positions from arange(T, device=idx.device), causal mask by tril"""
    def __init__(self):
        super().__init__()
        self.wte = nn.Embedding(50, 16)
        self.wpe = nn.Embedding(32, 16)
        self.ln = nn.LayerNorm(16)

    def forward(self, idx):
        t = idx.size(1)
        pos = torch.arange(0, t, dtype=torch.long, device=idx.device).unsqueeze(0)
        x = self.ln(self.wte(idx) + self.wpe(pos))
        att = x @ x.transpose(1, 2) / (x.size(-1) ** 0.5)
        mask = torch.tril(torch.ones(t, t, device=idx.device))
        att = att.masked_fill(mask == 0, float("-inf")).softmax(-1)
        return att @ x


class Enc(nn.Module):
    def __init__(self, gelu, norm_first, mask):
        super().__init__()
        layer = nn.TransformerEncoderLayer(32, 4, dim_feedforward=64, batch_first=True,
                                           activation="gelu" if gelu else "relu",
                                           norm_first=norm_first)
        self.enc = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.mask = mask

    def forward(self, x, pad):
        return self.enc(x, src_key_padding_mask=pad if self.mask else None)


class MHA(nn.Module):
    def __init__(self, avg):
        super().__init__()
        self.mha = nn.MultiheadAttention(32, 4, batch_first=True)
        self.avg = avg

    def forward(self, x, pad):
        y, w = self.mha(x, x, x, key_padding_mask=pad, average_attn_weights=self.avg)
        return y, w


class RNNs(nn.Module):
    def __init__(self, kind, state, **kw):
        super().__init__()
        self.rnn = getattr(nn, kind)(8, 12, **kw)
        self.state = state

    def forward(self, x, h0, c0):
        if not self.state:
            return self.rnn(x)
        if isinstance(self.rnn, nn.LSTM):
            return self.rnn(x, (h0, c0))
        return self.rnn(x, h0)


def pad(b, t):
    p = torch.zeros(b, t, dtype=torch.bool)
    p[:, t - 2:] = True
    return p


x = torch.randn(2, 6, 32)
models = {
    "gpt": (GPTish(), [("idx", torch.randint(0, 50, (2, 7)), "i64[b,t]")]),
    "enc_relu": (Enc(False, False, False), [("x", x, "f32[b,t,32]"), ("pad", pad(2, 6), "bool[b,t]")]),
    "enc_gelu_nf_mask": (Enc(True, True, True), [("x", x, "f32[b,t,32]"), ("pad", pad(2, 6), "bool[b,t]")]),
    "mha": (MHA(True), [("x", x, "f32[b,t,32]"), ("pad", pad(2, 6), "bool[b,t]")]),
    "mha_heads": (MHA(False), [("x", x, "f32[b,t,32]"), ("pad", pad(2, 6), "bool[b,t]")]),
}
h = torch.randn(4, 3, 12)
for kind in ("LSTM", "GRU", "RNN"):
    models[f"{kind}_2l_bi_state"] = (RNNs(kind, True, num_layers=2, bidirectional=True),
                                     [("x", torch.randn(5, 3, 8), "f32[t,b,8]"), ("h0", h, "f32[4,b,12]"),
                                      ("c0", torch.randn(4, 3, 12), "f32[4,b,12]")])
    models[f"{kind}_bf"] = (RNNs(kind, False, batch_first=True, **({"nonlinearity": "relu"} if kind == "RNN" else {})),
                            [("x", torch.randn(3, 5, 8), "f32[b,t,8]"), ("h0", h, "f32[4,b,12]"),
                             ("c0", h, "f32[4,b,12]")])
m, ins = models[name]
m.eval()
with torch.no_grad():
    args = tuple(t for _, t, _ in ins)
    tr = torch.jit.trace(m, args, check_trace=False)
    if name.startswith(("enc", "mha")):
        kinds = {n.kind() for n in tr.inlined_graph.nodes()}
        assert kinds & {"aten::_transformer_encoder_layer_fwd",
                        "aten::_native_multi_head_attention"}, "no fast path"
    tr.save(f"{name}.pt")
    out = m(*args)
outs = list(out) if isinstance(out, tuple) else [out]
flat = []
for o in outs:
    flat += list(o) if isinstance(o, tuple) else [o]
for k, o in enumerate(flat):
    np.save(f"want_{name}_{k}.npy", o.numpy())
with open(f"{name}.in.txt", "w") as f:
    for n, t, spec in ins:
        np.save(f"{n}.npy", t.numpy())
        f.write(f"{n}={spec}\n")
PY
	fixture_run build51.py "$1"
}

# check NAME OPSETS...: script | lower | emit at each opset, checked, run,
# compared with torch
check_model() {
	local name=$1 o specs=() feeds=()
	shift
	build "$name" || return 1
	while IFS= read -r l; do
		specs+=(-i "$l")
		feeds+=("${l%%=*}=${l%%=*}.npy")
	done < "$name.in.txt" || return 1
	tool script "$name.pt" "${specs[@]}" -o "$name.air" || return 1
	for o in "$@"; do
		set -o pipefail
		tool lower --opset "$o" "$name.air" | emit -o "$name-$o.onnx" || return 1
		onnx_checker "$name-$o.onnx" || return 1
		rm -rf "out-$o"
		ort_run "$name-$o.onnx" "out-$o" "${feeds[@]}" > /dev/null ||
			return 1
		"$PYTHON" - "$name" "out-$o" "$name-$o.onnx" <<'PY'
import glob, sys
import numpy as np
import onnx
name, out, path = sys.argv[1:4]
names = [o.name for o in onnx.load(path).graph.output]
wants = sorted(glob.glob(f"want_{name}_*.npy"), key=lambda p: int(p.rsplit("_", 1)[1][:-4]))
assert len(names) == len(wants), (names, wants)
for n, w in zip(names, wants):
    g, w = np.load(f"{out}/{n}.npy"), np.load(w)
    assert g.shape == w.shape, (n, g.shape, w.shape)
    scale = max(float(np.max(np.abs(w))), 1e-30)
    err = float(np.max(np.abs(g.astype(np.float64) - w))) / scale
    assert err <= 1e-4, f"{n}: relative error {err:.3g}"
PY
		[ $? -eq 0 ] || return 1
	done
}

@test "lower: aten::device, arange on a traced size, tril causal mask (GPT-style) at 9 13 17" {
	run -0 check_model gpt 9 13 17
}

@test "lower: TransformerEncoder fast path (_transformer_encoder_layer_fwd) relu, post-norm at 9 13 17" {
	run -0 check_model enc_relu 9 13 17
	run -0 tool lower --opset 17 -S enc_relu.air
	[[ "$output" == *onnx::LayerNormalization* && "$output" != *aten::* ]]
	run -0 tool lower --opset 13 -S enc_relu.air
	[[ "$output" != *LayerNormalization* && "$output" == *onnx::Softmax* ]]
}

@test "lower: TransformerEncoder fast path with gelu, norm_first and a key padding mask at 9 13 17" {
	run -0 check_model enc_gelu_nf_mask 9 13 17
}

@test "lower: MultiheadAttention fast path (_native_multi_head_attention), weights averaged and per head" {
	run -0 check_model mha 9 13 17
	run -0 check_model mha_heads 13
}

@test "lower: LSTM, GRU, RNN 2 layers bidirectional with initial states at 9 13 17" {
	for k in LSTM GRU RNN; do
		run -0 check_model ${k}_2l_bi_state 9 13 17
	done
	run -0 tool lower --opset 13 -S LSTM_2l_bi_state.air
	[[ "$output" == *'onnx::LSTM[hidden_size=12, direction="bidirectional"]'* ]]
	run -0 tool lower --opset 13 -S GRU_2l_bi_state.air
	[[ "$output" == *"linear_before_reset=1"* ]]
}

@test "lower: LSTM, GRU, RNN (relu) batch_first, no initial state, at 9 13 17" {
	for k in LSTM GRU RNN; do
		run -0 check_model ${k}_bf 9 13 17
	done
}

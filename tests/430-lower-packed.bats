#!/usr/bin/env bats
# 430-lower-packed.bats - packed sequences (issue 14):
# pack_padded_sequence and pad_packed_sequence around LSTM, GRU and RNN
# (enforce_sorted True and False, batch_first, bidirectional, 2 layers, an
# initial state), lowered as torch 1.13's exporter does (the RNN on the
# padded input with the lengths as sequence_lens), on archives scripted
# and traced by torch 1.13 (tests/args/make_packed_models.py), through
# both `script` and `trace`; ONNX Runtime's outputs match torch's for four
# sets of lengths, sorted and not.  The output has torch's steps: the
# longest length's (shorter than the padded input too) or total_length's
# (a number, longer than the input too, or x.size(0)).  What ONNX cannot say (packed data
# read by anything but an RNN, a padding value other than 0) is refused.
# bats file_tags=tier:standard

load helper

setup_file() {
	need_torch || return 0
	need_ort || return 0
}

# each NAME through both stages, from archives SUFFIX (s, t)
both() {
	local sfx=$1 n st
	shift
	packed_build || return 1
	for n in "$@"; do
		for st in script trace; do
			packed_run "$st" "$n.$sfx.pt" "$n" ||
				{ echo "$n.$sfx via $st failed"; return 1; }
		done
	done
}

@test "packed: LSTM unsorted, GRU sorted batch_first bidirectional 2 layers; scripted archives" {
	both s lstm_unsorted gru_sorted_bf_bi_2l
	# the ONNX LSTM reads the lengths as its sequence_lens
	run -0 "$PYTHON" -c 'import onnx
g = onnx.load("lstm_unsorted-script.onnx").graph
n = [n for n in g.node if n.op_type == "LSTM"]
assert len(n) == 1 and len(n[0].input) > 4 and n[0].input[4], n'
}

@test "packed: LSTM unsorted, GRU sorted batch_first bidirectional 2 layers; traced archives" {
	both t lstm_unsorted gru_sorted_bf_bi_2l
}

@test "packed: RNN unsorted bidirectional with h0 (lengths returned), LSTM sorted 2 layers; scripted and traced archives" {
	both s rnn_unsorted_bi_h0 lstm_sorted_2l
	both t rnn_unsorted_bi_h0 lstm_sorted_2l
}

@test "packed: the padded input longer than the longest length (output cut to it; total_length 7, 4 and x.size(0)); scripted and traced archives" {
	local cases=(gru_short gru_short_bf_bi_total7 rnn_short_total_xsize
		     gru_short_total4_h0 rnn_short_sorted_2l)
	both s "${cases[@]}"
	both t "${cases[@]}"
}

@test "packed: the output cut to the longest length, total_length 7, at opsets 9 (Gather) and 10 (Slice); sorted lengths (opset 9 has no TopK of Long)" {
	packed_build
	local o st
	for o in 9 10; do
		for st in script trace; do
			packed_run $st rnn_short_sorted_2l.${st:0:1}.pt rnn_short_sorted_2l $o
			packed_run $st gru_short_bf_bi_total7.${st:0:1}.pt gru_short_bf_bi_total7 $o
		done
	done
}

@test "packed: a padding value other than 0, packed data read by another op, and batch_sizes read otherwise are refused" {
	need_torch
	cat > bad.py <<'PY'
import torch
import torch.nn as nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence


class Pad(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(4, 3)

    def forward(self, x, lengths):
        y, _ = self.rnn(pack_padded_sequence(x, lengths))
        return pad_packed_sequence(y, padding_value=-1.0)[0]


class Data(nn.Module):
    def forward(self, x, lengths):
        p = pack_padded_sequence(x, lengths)
        return p.data * 2


# batch_sizes (how many sequences are alive at each step) read for
# something else than nn.LSTM's own zero state: the lowering makes it the
# lengths, so the model would silently differ from torch
class Sizes(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(4, 3)

    def forward(self, x, lengths):
        p = pack_padded_sequence(x, lengths)
        y, _ = self.rnn(p)
        return pad_packed_sequence(y)[0] * p.batch_sizes.float().sum()


torch.manual_seed(0)
args = (torch.randn(5, 2, 4), torch.tensor([5, 3]))
torch.jit.script(Pad()).save("pad.pt")
torch.jit.trace(Data(), args).save("data.pt")
torch.jit.script(Sizes()).save("sizes_s.pt")
torch.jit.trace(Sizes(), args).save("sizes_t.pt")
PY
	fixture_run bad.py
	run -0 tool script pad.pt -i 'x=f32[5,2,4]' -i 'lengths=i64[2]' -o pad.air
	run -4 tool lower pad.air -o pad.oir
	[[ "$output" == *"aten::_pad_packed_sequence"*"padding_value not 0"* ]]
	run -0 tool script data.pt -i 'x=f32[5,2,4]' -i 'lengths=i64[2]' -o data.air
	run -4 tool lower data.air -o data.oir
	[[ "$output" == *"aten::_pack_padded_sequence"*"the packed data goes to aten::mul, not an RNN"* ]]
	[ ! -e pad.oir ] && [ ! -e data.oir ]
	for a in sizes_s sizes_t; do
		run -0 tool script $a.pt -i 'x=f32[5,2,4]' -i 'lengths=i64[2]' -o $a.air
		run -4 tool lower $a.air -o $a.oir
		[[ "$output" == *"aten::_pack_padded_sequence"*"batch_sizes is read by aten::"*", which would see the lengths instead"* ]]
		[ ! -e $a.oir ]
	done
}

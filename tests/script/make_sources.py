#!/usr/bin/python3
# make_sources.py - builds real TorchScript archives with torch.jit.trace and
# torch.jit.script, saves them, and extracts every code/**.py entry, so the
# TorchScript parser (lib/script/ts_parser.c) can be tested on exactly what
# torch's python_print.cpp writes.
#
#   /usr/bin/python3 tests/script/make_sources.py OUTDIR [--keep-pt]
#
# Writes OUTDIR/<model>/<entry path inside the zip> for every .py entry
# (e.g. OUTDIR/resnet18_traced/code/__torch__/torchvision/models/resnet.py)
# and prints one line per model.  With --keep-pt the archives stay in
# OUTDIR/<model>.pt.  Needs Debian's python3-torch and python3-torchvision
# (run with /usr/bin/python3, not the pyenv python3 first on PATH).
# Costs: about 20 s and 200 MB of RAM on 2 cores; nothing is downloaded
# (torchvision models are built with random weights).
import os
import sys
import zipfile
from collections import namedtuple
from enum import Enum
from typing import Dict, List, NamedTuple, Optional, Tuple

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


# --- a scripted model that exercises the control-flow printer ---------------
class Point(NamedTuple):
	x: torch.Tensor
	y: int


class Color(Enum):
	RED = 1
	GREEN = 2


@torch.jit.script
class Counter(object):
	def __init__(self, start: int):
		self.n = start

	def bump(self, k: int) -> int:
		self.n += k
		return self.n


@torch.jit.interface
class Scaler(nn.Module):
	def forward(self, x: torch.Tensor) -> torch.Tensor:
		pass


class Twice(nn.Module):
	def forward(self, x: torch.Tensor) -> torch.Tensor:
		return x * 2


def helper(x: torch.Tensor, k: int = 3, eps: float = 1e-5) -> torch.Tensor:
	return x * k + eps


class ControlFlow(nn.Module):
	__constants__ = ["depth", "names"]
	scaler: Scaler

	def __init__(self):
		super().__init__()
		self.depth = 3
		self.names = ["a", "b"]
		self.lin = nn.Linear(4, 4)
		self.layers = nn.ModuleList([nn.Linear(4, 4) for _ in range(2)])
		self.seq = nn.Sequential(nn.ReLU(), nn.Dropout(0.1))
		self.scaler = Twice()
		self.register_buffer("running", torch.zeros(4))
		self.table: Dict[str, int] = {"x": 1, "y": 2}
		self.opt: Optional[torch.Tensor] = None

	def forward(self, x: torch.Tensor, n: int = 2, mask: Optional[torch.Tensor] = None,
		    scale: float = 1.0) -> Tuple[torch.Tensor, List[int], Dict[str, torch.Tensor]]:
		assert x.dim() == 2, "expected a matrix, got {} dims".format(x.dim())
		if mask is None:
			mask = torch.ones_like(x)
		elif mask.dtype == torch.bool:
			mask = mask.float()
		else:
			mask = mask * 1.0
		y = self.lin(x) * mask
		for layer in self.layers:
			y = layer(y)
		y = self.seq(y)
		y = self.scaler.forward(y)
		sizes: List[int] = []
		for i in range(n):
			sizes.append(i * self.depth)
			if i % 2 == 0:
				continue
			y = y + float(i)
		k = 0
		while k < 5 and y.sum() > -1e9:
			k += 1
			if k > 3:
				break
		out: Dict[str, torch.Tensor] = {}
		for name in self.names:
			out[name] = y
		for key, v in self.table.items():
			sizes.append(v)
		p = Point(y, k)
		if p.y > 100:
			raise RuntimeError("too many: " + str(p.y))
		c = Counter(1)
		sizes.append(c.bump(2))
		if Color.RED.value == 1:
			sizes.append(7)
		t = (1, 2.5, "s")
		sizes.append(int(t[1]))
		z = y if scale > 0.5 else -y
		z = helper(z, k=2)
		with torch.no_grad():
			z = z + 1
		if self.opt is not None:
			z = z + self.opt
		z = z[:, 0:2] if z.size(1) > 2 else z
		z = z[..., :1]
		sq = [v * v for v in sizes]
		s = "{}-{}".format(len(sq), "x")
		if s.startswith("0") or not isinstance(z, torch.Tensor):
			z = torch.neg(z)
		out["z"] = z.clamp(min=-float("inf"), max=float("inf"))
		out["nan"] = torch.full([1], float("nan"))
		return y, sizes, out


class Forked(nn.Module):
	def forward(self, x: torch.Tensor) -> torch.Tensor:
		fut = torch.jit.fork(helper, x)
		return torch.jit.wait(fut) + x


# --- a GPT-style block --------------------------------------------------------
class CausalSelfAttention(nn.Module):
	def __init__(self, d: int, h: int):
		super().__init__()
		self.h = h
		self.qkv = nn.Linear(d, 3 * d)
		self.proj = nn.Linear(d, d)
		self.register_buffer("mask", torch.tril(torch.ones(16, 16)).view(1, 1, 16, 16))

	def forward(self, x: torch.Tensor) -> torch.Tensor:
		b, t, c = x.size()
		q, k, v = self.qkv(x).split(c, dim=2)
		q = q.view(b, t, self.h, c // self.h).transpose(1, 2)
		k = k.view(b, t, self.h, c // self.h).transpose(1, 2)
		v = v.view(b, t, self.h, c // self.h).transpose(1, 2)
		att = (q @ k.transpose(-2, -1)) * (1.0 / (k.size(-1) ** 0.5))
		att = att.masked_fill(self.mask[:, :, :t, :t] == 0, float("-inf"))
		att = F.softmax(att, dim=-1)
		y = (att @ v).transpose(1, 2).contiguous().view(b, t, c)
		return self.proj(y)


class Block(nn.Module):
	def __init__(self, d: int = 32, h: int = 4):
		super().__init__()
		self.ln1 = nn.LayerNorm(d)
		self.attn = CausalSelfAttention(d, h)
		self.ln2 = nn.LayerNorm(d)
		self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

	def forward(self, x: torch.Tensor) -> torch.Tensor:
		x = x + self.attn(self.ln1(x))
		return x + self.mlp(self.ln2(x))


def models():
	import torchvision
	r18 = torchvision.models.resnet18(weights=None).eval()
	mb = torchvision.models.mobilenet_v3_small(weights=None).eval()
	img = torch.randn(1, 3, 64, 64)
	lstm = nn.LSTM(8, 16, num_layers=2, batch_first=True).eval()
	gru = nn.GRU(8, 16, bidirectional=True).eval()
	enc = nn.TransformerEncoder(
		nn.TransformerEncoderLayer(32, 4, 64, batch_first=True), 2).eval()
	blk = Block().eval()
	seq = torch.randn(2, 10, 32)
	yield "resnet18_traced", lambda: torch.jit.trace(r18, img)
	yield "resnet18_scripted", lambda: torch.jit.script(r18)
	yield "mobilenet_v3_small_traced", lambda: torch.jit.trace(mb, img)
	yield "mobilenet_v3_small_scripted", lambda: torch.jit.script(mb)
	yield "control_flow_scripted", lambda: torch.jit.script(ControlFlow().eval())
	yield "forked_scripted", lambda: torch.jit.script(Forked())
	yield "lstm_scripted", lambda: torch.jit.script(lstm)
	yield "lstm_traced", lambda: torch.jit.trace(lstm, torch.randn(2, 5, 8))
	yield "gru_scripted", lambda: torch.jit.script(gru)
	yield "transformer_encoder_scripted", lambda: torch.jit.script(enc)
	yield "transformer_encoder_traced", lambda: torch.jit.trace(enc, seq, check_trace=False)
	yield "gpt_block_scripted", lambda: torch.jit.script(blk)
	yield "gpt_block_traced", lambda: torch.jit.trace(blk, torch.randn(2, 16, 32))
	yield "function_scripted", lambda: torch.jit.script(helper)


def main():
	if len(sys.argv) < 2:
		sys.stderr.write("usage: make_sources.py OUTDIR [--keep-pt]\n")
		return 2
	out = sys.argv[1]
	keep = "--keep-pt" in sys.argv[2:]
	os.makedirs(out, exist_ok=True)
	failed = 0
	for name, build in models():
		pt = os.path.join(out, name + ".pt")
		try:
			m = build()
			torch.jit.save(m, pt)
		except Exception as e:  # report and go on with the others
			sys.stderr.write("make_sources: %s: %s\n" % (name, e))
			failed += 1
			continue
		nfiles = nlines = 0
		with zipfile.ZipFile(pt) as z:
			for entry in z.namelist():
				parts = entry.split("/")
				if len(parts) < 3 or parts[1] != "code" or not entry.endswith(".py"):
					continue
				dest = os.path.join(out, name, *parts[1:])
				os.makedirs(os.path.dirname(dest), exist_ok=True)
				data = z.read(entry)
				with open(dest, "wb") as f:
					f.write(data)
				nfiles += 1
				nlines += data.count(b"\n")
		if not keep:
			os.remove(pt)
		print("%s: %d files, %d lines" % (name, nfiles, nlines))
	return 1 if failed else 0


if __name__ == "__main__":
	sys.exit(main())

# make_fft_real.py - the models of tests/431-lower-fft-trace.bats: the fft
# operators with a real output (irfft, hfft, their 2-d and n-d forms; n / s,
# dim, norm; Double) of a real input, traced and scripted by torch 1.13,
# with torch's eager outputs as the oracle (opcases.py writes them), so
# that the trace path (lib/trace/ops_fft_host.c) is checked with the
# script path.
#
#   make_fft_real.py NAME DIR
import sys

import torch

from opcases import write_case

torch.manual_seed(0)
name, d = sys.argv[1], sys.argv[2]


class C2R(torch.nn.Module):
    def forward(self, x, y, z):
        return (torch.fft.irfft(x), torch.fft.irfft(x, n=7, dim=0, norm="ortho"),
                torch.fft.hfft(x), torch.fft.hfft(x, n=5, norm="forward"),
                torch.fft.irfft2(y), torch.fft.hfft2(y, s=[4, 5]),
                torch.fft.irfftn(y, dim=[0, 2]), torch.fft.hfftn(y, s=[3, 4, 6], norm="ortho"),
                torch.fft.irfftn(y, norm="forward"), torch.fft.hfft(z, n=8))


cases = {
    "c2r": (C2R(), [("x", torch.randn(3, 6), None, []), ("y", torch.randn(2, 3, 5), None, []),
                    ("z", torch.randn(4, 5, dtype=torch.double), None, [])]),
}
m, ins = cases[name]
write_case(m, ins, d)

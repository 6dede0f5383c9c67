#!/usr/bin/python3
"""fft_cases.py - the models of tests/415-lower-fft.bats: torch.fft and the
complex-tensor ops around it, as torch.jit.script (and trace) archives with
torch's outputs as the oracle.

  fft_cases.py build NAME      NAME.pt (and NAME_t.pt, traced), the inputs
                               as INPUT.npy, torch's outputs as
                               want_NAME_K.npy, NAME.in.txt ('x=f32[2,16]'
                               lines: script's --input specs)
  fft_cases.py names           the names, one a line
  fft_cases.py compare NAME OUTDIR MODEL.onnx
                               ONNX Runtime's outputs (OUTDIR/OUT.npy) against
                               torch's: dtype, shape, max relative error 1e-4
"""
import glob
import sys

import numpy as np


def compare(name, out, path):
    import onnx
    from onnx.mapping import TENSOR_TYPE_TO_NP_TYPE
    outs = onnx.load(path).graph.output
    wants = sorted(glob.glob(f"want_{name}_*.npy"),
                   key=lambda p: int(p.rsplit("_", 1)[1][:-4]))
    assert len(outs) == len(wants), ([o.name for o in outs], wants)
    for o, w in zip(outs, wants):
        g, w = np.load(f"{out}/{o.name}.npy"), np.load(w)
        declared = TENSOR_TYPE_TO_NP_TYPE[o.type.tensor_type.elem_type]
        assert declared == g.dtype, f"{o.name}: declared {declared}, runs as {g.dtype}"
        assert g.dtype == w.dtype, f"{o.name}: dtype {g.dtype}, torch's {w.dtype}"
        assert g.shape == w.shape, f"{o.name}: shape {g.shape}, torch's {w.shape}"
        scale = max(float(np.max(np.abs(w))), 1e-30)
        err = float(np.max(np.abs(g.astype(np.float64) - w))) / scale
        assert err <= 1e-4, f"{o.name}: relative error {err:.3g}"
        print(f"{o.name}: {g.shape} relative error {err:.2g}")


if __name__ == "__main__" and sys.argv[1:2] == ["compare"]:
    # the comparison needs no torch: not imported for it (2 s a call)
    compare(*sys.argv[2:5])
    sys.exit(0)

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402


class RfftReal(nn.Module):
    def forward(self, x):
        return torch.view_as_real(torch.fft.rfft(x))


class Spectral(nn.Module):
    """a spectral filter: real weights on the half spectrum"""
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(9))

    def forward(self, x):
        return torch.fft.irfft(torch.fft.rfft(x) * self.w, n=16)


class SpectralComplex(nn.Module):
    """complex weights (a parameter viewed as complex), both operand
    orders, ortho norm"""
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(9, 2))

    def forward(self, x):
        w = torch.view_as_complex(self.w)
        f = torch.fft.rfft(x, norm="ortho")
        return torch.fft.irfft(w * f, norm="ortho"), torch.fft.irfft(f * w, n=15)


class Fft2Abs(nn.Module):
    def forward(self, x):
        return torch.fft.fft2(x).abs(), torch.fft.fft2(x, norm="ortho").abs()


class Lengths(nn.Module):
    """n shorter and longer than the signal, dim=0, norm forward"""
    def forward(self, x):
        a = torch.view_as_real(torch.fft.fft(x, n=5))
        b = torch.view_as_real(torch.fft.fft(x, n=20, norm="forward"))
        c = torch.view_as_real(torch.fft.rfft(x, n=7, dim=0))
        d = torch.view_as_real(torch.fft.ifft(x, dim=0, norm="ortho").resolve_conj())
        return a, b, c, d


class Inverse(nn.Module):
    """ifft of a complex spectrum, irfft with odd / longer / shorter n"""
    def forward(self, x):
        f = torch.fft.fft(x)
        a = torch.fft.ifft(f).real
        b = torch.fft.irfft(torch.fft.rfft(x), n=15)
        c = torch.fft.irfft(torch.fft.rfft(x), n=40, norm="forward")
        d = torch.fft.irfft(torch.fft.rfft(x), n=6)
        e = torch.fft.irfft(x)  # a real half spectrum
        return a, b, c, d, e


class Nd(nn.Module):
    """fftn / ifftn / rfftn / irfftn / rfft2 / irfft2 / ifft2 over static
    dim lists"""
    def forward(self, x):
        a = torch.fft.irfftn(torch.fft.rfftn(x, dim=(1, 2)), s=(5, 6), dim=(1, 2))
        b = torch.view_as_real(torch.fft.fftn(x, s=(3, 8)))
        c = torch.fft.ifftn(torch.fft.fftn(x, norm="ortho"), norm="ortho").real
        d = torch.fft.irfft2(torch.fft.rfft2(x, norm="forward"), norm="forward")
        e = torch.view_as_real(torch.fft.ifft2(x, dim=(0, 2)))
        return a, b, c, d, e


class Hermitian(nn.Module):
    def forward(self, x):
        h = torch.fft.ihfft(x)
        a = torch.view_as_real(h.resolve_conj())
        b = torch.fft.hfft(h, n=16)
        c = torch.fft.hfft(h, norm="ortho")
        return a, b, c


class Elementwise(nn.Module):
    """real, imag, angle, conj, complex, polar, + - * / neg, by complex,
    real tensors and numbers"""
    def forward(self, x, y):
        f = torch.fft.fft(x)
        g = torch.complex(x, y)
        p = torch.polar(y.abs(), x)
        a = torch.view_as_real(f * g - p / 2.0 + 1.5)
        b = torch.view_as_real((f + g) / (g + 0.5))
        c = torch.view_as_real(torch.conj(f) - x) + torch.view_as_real(-g)
        d = f.real * 2 + f.imag + torch.angle(f * g) + torch.angle(x)
        e = torch.view_as_real(x / (g + 1) + 2 * f + torch.sub(f, g, alpha=0.5))
        return a, b, c, d, e


class DoubleFft(nn.Module):
    def forward(self, x):
        return torch.fft.irfft(torch.fft.rfft(x) * 0.5), torch.fft.fft(x).abs()


class Shapes(nn.Module):
    """slices, select, permute, reshape, transpose, unsqueeze, squeeze,
    flatten, sum and mean of a complex tensor; a low-pass irfft"""
    def forward(self, x):
        f = torch.fft.rfft(x)
        a = torch.view_as_real(f[..., 1:7])
        b = torch.view_as_real(f[:, -1])
        c = f.permute(2, 0, 1).reshape(9, 6).abs()
        d = torch.view_as_real(f.transpose(0, 1).unsqueeze(0).squeeze(0).flatten(1))
        e = torch.view_as_real(f.sum(-1) + f.mean(dim=(0,), keepdim=False).sum())
        g = torch.fft.irfft(f[..., :5], n=16)
        h = torch.view_as_real(f.view(6, 9)[2:].contiguous())
        return a, b, c, d, e, g, h


class InplaceView(nn.Module):
    def forward(self, x):
        f = torch.fft.rfft(x)
        f[..., 3:].mul_(0.0)
        return torch.fft.irfft(f)


class Dynamic(nn.Module):
    """transforms over a length known at run time (opset 17): norms,
    irfft / hfft weights and lengths from the input's shape"""
    def forward(self, x):
        f = torch.fft.rfft(x)
        a = torch.fft.irfft(f * 0.5)
        b = torch.fft.irfft(torch.fft.rfft(x, norm="ortho"), norm="ortho")
        c = torch.fft.fft(x, norm="forward").abs()
        d = torch.fft.irfft(f, n=12, norm="forward")
        e = torch.fft.hfft(f)
        g = torch.view_as_real(torch.fft.ifft(f, norm="ortho"))
        return a, b, c, d, e, g


class ComplexParam(nn.Module):
    """complex64 parameters (the archive's bytes read as (re, im) pairs)"""
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(9, dtype=torch.cfloat))
        self.v = nn.Parameter(torch.randn(3, 8, dtype=torch.cfloat))

    def forward(self, x):
        a = torch.fft.irfft(torch.fft.rfft(x) * self.w)
        b = (self.w.conj() * 2).abs() + self.w.real
        c = torch.view_as_real(torch.fft.ifft(self.v, dim=0)[1:])
        return a, b, c


class Shift(nn.Module):
    """fftshift / ifftshift of complex and real tensors (odd and even
    dims), fftfreq / rfftfreq"""
    def forward(self, x):
        f = torch.fft.fft2(x)
        a = torch.view_as_real(torch.fft.fftshift(f))
        b = torch.fft.ifftshift(torch.fft.fftshift(x, dim=(-1,)) * 2, dim=-1)
        c = torch.fft.fftshift(f, dim=0).abs()
        d = x * torch.fft.fftfreq(6, d=0.1)
        e = x[:, :4] + torch.fft.rfftfreq(6)
        g = torch.view_as_real(torch.fft.ifftshift(f, dim=(0, 1)))
        return a, b, c, d, e, g


class Stft(nn.Module):
    """stft with a window (padded when shorter than n_fft), centred
    (reflect) and not, normalized, onesided and two-sided, 1-d and 2-d"""
    def __init__(self):
        super().__init__()
        self.register_buffer("win", torch.hann_window(16))
        self.register_buffer("win8", torch.hann_window(8))

    def forward(self, x):
        a = torch.stft(x, 16, hop_length=4, window=self.win, return_complex=True).abs()
        b = torch.view_as_real(torch.stft(x, 12, hop_length=3, win_length=8,
                                          window=self.win8, normalized=True,
                                          center=False, return_complex=True))
        c = torch.view_as_real(torch.stft(x[0], 10, onesided=False, center=False,
                                          return_complex=True))
        return a, b, c


class StftScripted(nn.Module):
    """center=False: script keeps no padding code"""
    def __init__(self):
        super().__init__()
        self.register_buffer("win", torch.hann_window(16))

    def forward(self, x):
        s = torch.stft(x, 16, hop_length=4, window=self.win, center=False,
                       return_complex=True)
        return s.abs(), torch.angle(s)


class Istft(nn.Module):
    """istft(stft(x)): with a length, without (centred), a filter between"""
    def __init__(self):
        super().__init__()
        self.register_buffer("win", torch.hann_window(16))

    def forward(self, x):
        s = torch.stft(x, 16, hop_length=4, window=self.win, return_complex=True)
        a = torch.istft(s, 16, hop_length=4, window=self.win, length=x.shape[-1])
        b = torch.istft(s * 0.5, 16, hop_length=4, window=self.win)
        c = torch.istft(s, 16, hop_length=4, window=self.win, normalized=False,
                        center=True, length=50)
        return a, b, c


class ComplexOut(nn.Module):
    def forward(self, x):
        return torch.fft.rfft(x)


class ComplexExp(nn.Module):
    def forward(self, x):
        return torch.view_as_real(torch.fft.rfft(x).exp())


torch.manual_seed(0)
x16 = torch.randn(2, 16)
x3 = torch.randn(2, 5, 6)
x2 = torch.randn(4, 16)
y2 = torch.randn(4, 16)
CASES = {
    # name: (module, [(input name, value, script spec)], traced too)
    "rfft_real": (RfftReal(), [("x", x16, "f32[b,16]")], True),
    "spectral": (Spectral(), [("x", x16, "f32[2,16]")], True),
    "spectral_c": (SpectralComplex(), [("x", x16, "f32[2,16]")], False),
    "fft2_abs": (Fft2Abs(), [("x", x3, "f32[2,5,6]")], True),
    "lengths": (Lengths(), [("x", torch.randn(6, 8), "f32[6,8]")], False),
    "inverse": (Inverse(), [("x", x16, "f32[2,16]")], False),
    "nd": (Nd(), [("x", torch.randn(2, 4, 6), "f32[2,4,6]")], False),
    "hermitian": (Hermitian(), [("x", x16, "f32[2,16]")], False),
    "elementwise": (Elementwise(), [("x", x2, "f32[4,16]"), ("y", y2, "f32[4,16]")], False),
    "double": (DoubleFft(), [("x", torch.randn(3, 10, dtype=torch.float64), "f64[3,10]")], False),
    "shapes": (Shapes(), [("x", torch.randn(2, 3, 16), "f32[2,3,16]")], True),
    "inplace_view": (InplaceView(), [("x", x16, "f32[2,16]")], False),
    "stft": (Stft(), [("x", torch.randn(2, 64), "f32[2,64]")], True),
    "stft_s": (StftScripted(), [("x", torch.randn(2, 64), "f32[b,64]")], False),
    "istft": (Istft(), [("x", torch.randn(2, 64), "f32[2,64]")], True),
    "complex_out": (ComplexOut(), [("x", x16, "f32[2,16]")], False),
    "complex_exp": (ComplexExp(), [("x", x16, "f32[2,16]")], False),
    "complex_param": (ComplexParam(), [("x", x16, "f32[2,16]")], True),
    "shift": (Shift(), [("x", torch.randn(5, 6), "f32[5,6]")], True),
    "dynamic": (Dynamic(), [("x", x16, "f32[b,n]")], False),
    "dynamic_len": (RfftReal(), [("x", x16, "f32[2,n]")], False),
}


# scripted, these read torch.functional's code (aten::list), not ours
TRACE_ONLY = ("stft", "istft")


def build(name):
    torch.manual_seed(0)
    m, ins, traced = CASES[name]
    m.eval()
    args = tuple(t for _, t, _ in ins)
    with torch.no_grad():
        if not traced or name not in TRACE_ONLY:
            torch.jit.script(m).save(f"{name}.pt")
        if traced:
            torch.jit.trace(m, args).save(f"{name}_t.pt")
        out = m(*args)
    outs = list(out) if isinstance(out, tuple) else [out]
    for k, o in enumerate(outs):
        if not o.is_complex():
            np.save(f"want_{name}_{k}.npy", o.numpy())
    with open(f"{name}.in.txt", "w") as f:
        for n, t, spec in ins:
            np.save(f"{n}.npy", t.numpy())
            f.write(f"{n}={spec}\n")


def eager(name, prefix, shapes):
    torch.manual_seed(1)
    m, ins, _ = CASES[name]
    m.eval()
    args = []
    with open(f"{prefix}.in.txt", "w") as f:
        for (n, t, spec), shp in zip(ins, shapes):
            a = torch.randn(*[int(d) for d in shp.split("x")], dtype=t.dtype)
            np.save(f"{prefix}_{n}.npy", a.numpy())
            f.write(f"{n}={prefix}_{n}.npy\n")
            args.append(a)
    with torch.no_grad():
        out = m(*args)
    outs = list(out) if isinstance(out, tuple) else [out]
    for k, o in enumerate(outs):
        np.save(f"want_{prefix}_{k}.npy", o.numpy())


if __name__ == "__main__":
    if sys.argv[1] == "build":
        build(sys.argv[2])
    elif sys.argv[1] == "eager":
        # eager NAME PREFIX SHAPE...: new random inputs of these shapes
        # (2x64 ...) as PREFIX_INPUT.npy, torch's outputs as
        # want_PREFIX_K.npy, PREFIX.in.txt
        eager(sys.argv[2], sys.argv[3], sys.argv[4:])
    elif sys.argv[1] == "names":
        print("\n".join(CASES))
    elif sys.argv[1] == "compare":
        compare(*sys.argv[2:5])
    else:
        sys.exit(f"fft_cases.py: unknown command {sys.argv[1]}")

# make_special.py - the models of tests/423-lower-special-polynomials.bats
# and 424-lower-special-functions.bats:
# torch's orthogonal polynomials (special_*_polynomial_*, x and n tensors
# or numbers, n truncated, the special cases torch 1.13's Math.h has:
# n < 0, |x| == 1, Chebyshev's cos form above degree 6 or 8, NaN and
# infinite x and n), special_xlog1py and the special functions pt2onnx
# approximates (lgamma, digamma, mvlgamma, the Bessel functions, zeta,
# ndtri, erfinv; "wide", "wide64", "unit" and "unit64": each over a wide
# range, for the measured bounds of tests/lower/special_error.py),
# traced and scripted by torch 1.13, with torch's eager outputs as the
# oracle (opcases.py writes them).
#
#   make_special.py NAME DIR
import sys

import torch

from opcases import write_case

torch.manual_seed(0)
name, d = sys.argv[1], sys.argv[2]
S = torch.special
nan, inf = float("nan"), float("inf")


class Chebyshev(torch.nn.Module):
    """the eight Chebyshev polynomials, n a tensor (broadcast: x [k, 1]
    against n [m]) and a number"""
    def forward(self, x, n, xs, nd):
        return (S.chebyshev_polynomial_t(x, n), S.chebyshev_polynomial_u(x, n),
                S.chebyshev_polynomial_v(x, n), S.chebyshev_polynomial_w(x, n),
                S.shifted_chebyshev_polynomial_t(xs, n), S.shifted_chebyshev_polynomial_u(xs, n),
                S.shifted_chebyshev_polynomial_v(xs, n), S.shifted_chebyshev_polynomial_w(xs, n),
                S.chebyshev_polynomial_t(x, 9), S.shifted_chebyshev_polynomial_w(xs, 3.5),
                S.chebyshev_polynomial_u(x.double(), nd), S.shifted_chebyshev_polynomial_v(xs, nd))


class Classical(torch.nn.Module):
    """hermite h and he, laguerre, legendre; an integer n; xlog1py
    (x 0, y NaN, y near 0, y -1, infinities) with a number"""
    def forward(self, x, n, ni, a, b):
        return (S.hermite_polynomial_h(x, n), S.hermite_polynomial_he(x, n),
                S.laguerre_polynomial_l(x, n), S.legendre_polynomial_p(x, n),
                S.legendre_polynomial_p(x, ni), S.hermite_polynomial_he(x.double(), 4),
                S.laguerre_polynomial_l(x, ni),
                S.xlog1py(a, b), S.xlog1py(a, 0.5), S.xlog1py(2.0, b),
                S.xlog1py(a.double(), b))


class Gamma(torch.nn.Module):
    """lgamma, digamma, mvlgamma (p 1 and 3), polygamma (n 0 1 2 4) and
    their special_ names; an integer input"""
    def forward(self, x, i):
        return (torch.lgamma(x), torch.digamma(x), torch.mvlgamma(x.abs() + 1.5, 1),
                torch.mvlgamma(x.abs() + 1.5, 3), S.gammaln(x), S.psi(x), S.digamma(i),
                S.multigammaln(x.abs() + 2, 2), torch.lgamma(i), torch.polygamma(0, x),
                torch.polygamma(1, x), S.polygamma(2, x), torch.polygamma(4, x), torch.polygamma(1, i))


class Bessel(torch.nn.Module):
    """i0, i0e, i1, i1e, Bessel j0 j1 y0 y1, modified Bessel i0 i1 k0 k1
    (and k scaled), spherical Bessel j0, airy_ai; an integer input"""
    def forward(self, x, i):
        return (torch.i0(x), S.i0(x), S.i0e(x), S.i1(x), S.i1e(x),
                S.modified_bessel_i0(x), S.modified_bessel_i1(x),
                S.spherical_bessel_j0(x), S.i0e(i), S.spherical_bessel_j0(i),
                S.modified_bessel_k0(x), S.modified_bessel_k1(x), S.scaled_modified_bessel_k0(x),
                S.scaled_modified_bessel_k1(x), S.modified_bessel_k1(i), S.bessel_j0(x),
                S.bessel_j1(x), S.bessel_y0(x), S.bessel_y1(x), S.bessel_y1(i), S.airy_ai(x),
                S.airy_ai(i))


class Zeta(torch.nn.Module):
    """special_zeta (x 1, below 1, NaN; q nonpositive integers and not,
    NaN, inf; a number q), float32 and float64"""
    def forward(self, x, q):
        return (S.zeta(x, q), S.zeta(x.double(), q.double()), S.zeta(x, 2.0))


# the functions of "wide", in the order of its outputs
WIDE = ["lgamma", "digamma", "mvlgamma_p3", "i0", "i0e", "i1", "i1e", "modified_bessel_i0",
        "modified_bessel_i1", "spherical_bessel_j0", "modified_bessel_k0", "modified_bessel_k1",
        "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "bessel_j0", "bessel_j1",
        "bessel_y0", "bessel_y1", "airy_ai", "polygamma_n1", "polygamma_n3"]


class Wide(torch.nn.Module):
    def forward(self, x):
        return (torch.lgamma(x), torch.digamma(x), torch.mvlgamma(x, 3), torch.i0(x), S.i0e(x),
                S.i1(x), S.i1e(x), S.modified_bessel_i0(x), S.modified_bessel_i1(x),
                S.spherical_bessel_j0(x), S.modified_bessel_k0(x), S.modified_bessel_k1(x),
                S.scaled_modified_bessel_k0(x), S.scaled_modified_bessel_k1(x), S.bessel_j0(x),
                S.bessel_j1(x), S.bessel_y0(x), S.bessel_y1(x), S.airy_ai(x), torch.polygamma(1, x),
                torch.polygamma(3, x))


class Normal(torch.nn.Module):
    """ndtri (0, 1, outside, the centre and both tails), erfinv (+-1,
    outside) and special_erfinv; erfcx and log_ndtr over -10..10"""
    def forward(self, p):
        return (S.ndtri(p), torch.erfinv(p * 2 - 1), S.erfinv(p - 0.5), S.erfcx(p * 20 - 10),
                S.log_ndtr(p * 20 - 10))


class Unit(torch.nn.Module):
    def forward(self, x):
        return S.ndtri(x), torch.erfinv(x * 2 - 1), S.erfinv(x - 1)


class WideErf(torch.nn.Module):
    def forward(self, x):
        return S.erfcx(x), S.log_ndtr(x)


class Unit64(torch.nn.Module):
    def forward(self, x):
        return (S.ndtri(x),)


def unit(dt):
    """0..1 by 1e-5, down to 1e-38 and up to 1 - 1e-7, outside, NaN"""
    return torch.cat([torch.linspace(0, 1, 100001), torch.logspace(-38, -1, 3000),
                      1 - torch.logspace(-7, -1, 3000),
                      torch.tensor([-0.1, 1.1, nan, -0.0, inf])]).to(dt)


def wide(dt):
    """-30..30 by 0.003, +-1e-8..31 logarithmically, integers and
    halves near 0, poles, huge values, NaN, infinities"""
    return torch.cat([torch.linspace(-30, 30, 20001), torch.logspace(-8, 1.5, 3000),
                      -torch.logspace(-8, 1.5, 3000), torch.arange(-6.0, 6.5, 0.5),
                      torch.tensor([-0.0, -2.9999998, -1e-7, 1e-30, 87.0, 88.5, 89.0, 1e6, 1e30, 3e38,
                                    -1e30, nan, inf, -inf])]).to(dt)


def xs(k):
    """k values in (-1.5, 1.5) with torch's special points"""
    return torch.cat([torch.rand(k) * 3 - 1.5,
                      torch.tensor([1.0, -1.0, 0.0, 0.5, nan, inf, -inf, 1e-9, 2.0, -3.0])])


def degrees():
    """degrees -2..11 with fractions, and NaN, inf, -0.5"""
    return torch.cat([torch.arange(-2.0, 12.0), torch.tensor([2.7, 9.5, -0.5, nan, inf, 30.0])])


cases = {
    "chebyshev": (Chebyshev(), [("x", xs(14).reshape(-1, 1), None, []), ("n", degrees(), None, []),
                                ("xs", (xs(14) * 0.5 + 0.5).reshape(-1, 1), None, []),
                                ("nd", torch.tensor([0.0, 3.0, 8.9, 12.0, -1.0], dtype=torch.float64).reshape(-1, 1, 1),
                                 None, [])]),
    "classical": (Classical(), [("x", xs(14).reshape(-1, 1) * 2, None, []), ("n", degrees(), None, []),
                                ("ni", torch.tensor([0, 1, 5, -1, 12]).reshape(-1, 1, 1), None, []),
                                ("a", torch.tensor([0.0, 0.0, 1.5, -2.0, 3.0, 0.0, 1.0, nan, inf, 2.0]), None, []),
                                ("b", torch.tensor([nan, 1.0, 1e-9, 0.25, -1.0, inf, -0.5, 2.0, 3.0, -2.0]), None, [])]),
    "empty": (Chebyshev(), [("x", torch.zeros(0, 1), None, []), ("n", degrees(), None, []),
                            ("xs", torch.zeros(0, 1), None, []),
                            ("nd", torch.tensor([3.0], dtype=torch.float64).reshape(1, 1, 1), None, [])]),
    "gamma": (Gamma(), [("x", torch.cat([r for r in (torch.rand(40) * 20 - 10, torch.tensor([0.5, 1.0, 2.0, -0.5, -1.5, 10.0, nan, inf, 1e-3]))]), None, []),
                        ("i", torch.tensor([1, 2, 3, 7, 20, -1, 0]), None, [])]),
    "bessel": (Bessel(), [("x", torch.cat([torch.randn(40) * 6, torch.tensor([0.0, 8.0, -8.0, 0.25, 30.0, -20.0, nan])]), None, []),
                          ("i", torch.tensor([0, 1, -3, 9, 12]), None, [])]),
    "zeta": (Zeta(), [("x", torch.cat([torch.rand(60) * 20 + 1, torch.tensor([1.0, 0.5, 2.0, 3.0, 4.0, 1.0001, 100.0, nan,
                                                                           inf, 2.0, 2.0, 3.0, 2.5, 2.0])]), None, []),
                       ("q", torch.cat([torch.rand(60) * 30 - 10, torch.tensor([1.0, 1.0, -2.0, -2.5, -3.5, 1.0, 2.0, 1.0, 1.0,
                                                                                nan, inf, 0.0, -1.5, 1e-3])]), None, [])]),
    "normal": (Normal(), [("p", torch.cat([torch.rand(30), torch.tensor([0.0, 1.0, -0.5, 1.5, 1e-20, 0.1, 0.9, 0.99999, nan])]),
                           None, [])]),
    "unit": (Unit(), [("x", unit(torch.float32), None, [])]),
    "wide_erf": (WideErf(), [("x", torch.cat([wide(torch.float32), torch.logspace(1.5, 8, 2000),
                                               torch.tensor([50.0, 5e7, -6.1, -26.7, -27.0])]), None, [])]),
    "unit64": (Unit64(), [("x", unit(torch.float64), None, [])]),
    "wide": (Wide(), [("x", wide(torch.float32), None, [])]),
    "wide64": (Wide(), [("x", wide(torch.float64), None, [])]),
}
m, ins = cases[name]
write_case(m, ins, d)
NAMES = {"wide": WIDE, "wide64": WIDE, "unit": ["ndtri", "erfinv", "special_erfinv"], "unit64": ["ndtri"],
         "wide_erf": ["erfcx", "log_ndtr"]}
if name in NAMES:
    with open(f"{d}/names.txt", "w") as f:
        f.write("".join(n + "\n" for n in NAMES[name]))

# make_linalg_orth.py - the models of tests/436-lower-linalg-orth.bats: the
# orthogonal linear algebra of issue 14 (Householder QR in its forms,
# symmetric eigenvalues and singular values by Jacobi, and what is built
# on them), each case one module of several operators on tall, wide,
# square and batched matrices, float32 and float64, traced and scripted by
# torch 1.13, with torch's eager outputs as the oracle (opcases.py).
#
#   make_linalg_orth.py NAME DIR
import sys

import torch

from opcases import write_case

torch.manual_seed(0)
name, d = sys.argv[1], sys.argv[2]
r = torch.randn


class QR(torch.nn.Module):
    """linalg_qr's three modes, qr(some=False), geqrf, householder_product
    and ormqr (left, right, transposed)"""
    def forward(self, t, w, b, z, c):
        q1, r1 = torch.linalg.qr(t)
        q2, r2 = torch.linalg.qr(w, mode="complete")
        q3, r3 = torch.linalg.qr(z, mode="r")
        q4, r4 = torch.qr(b, some=False)
        g, tau = torch.geqrf(t)
        gz, tz = torch.geqrf(z)
        return (q1, r1, q2, r2, q3, r3, q4, r4, g, tau, gz, tz,
                torch.linalg.householder_product(g, tau),
                torch.ormqr(g, tau, c), torch.ormqr(g, tau, c, True, True),
                torch.ormqr(g, tau, c.transpose(-2, -1), False, False))


class Eig(torch.nn.Module):
    """eigvalsh (UPLO L and U, batched, float64) and svdvals (tall, wide,
    batched); the values-only forms of symeig and svd"""
    def forward(self, s, s64, t, w):
        e1, e2 = torch.symeig(s)
        u, sv, v = torch.svd(w, compute_uv=False)
        return (torch.linalg.eigvalsh(s), torch.linalg.eigvalsh(s, UPLO="U"),
                torch.linalg.eigvalsh(s64), torch.linalg.svdvals(t),
                torch.linalg.svdvals(w), torch.linalg.svdvals(s64),
                e1, e2, u, sv, v)


class Rank(torch.nn.Module):
    """matrix_rank and pinv (default, tol/rcond, atol and rtol, hermitian)
    and pinverse on rank-deficient, tall and wide matrices"""
    def forward(self, d, w, h):
        return (torch.linalg.matrix_rank(d), torch.linalg.matrix_rank(w),
                torch.linalg.matrix_rank(d, tol=0.5),
                torch.linalg.matrix_rank(d, atol=0.1, rtol=0.01),
                torch.linalg.matrix_rank(h, hermitian=True),
                torch.linalg.pinv(d), torch.linalg.pinv(w),
                torch.linalg.pinv(d, rcond=0.05),
                torch.linalg.pinv(h, hermitian=True), torch.pinverse(w))


class Norms(torch.nn.Module):
    """the 'nuc', 2, -2 matrix norms (dims, keepdim), nuclear_norm and
    cond (None, 2, -2, 'fro', 'nuc')"""
    def forward(self, x, s):
        return (torch.linalg.matrix_norm(x, "nuc"),
                torch.linalg.matrix_norm(x, 2, dim=(0, 2), keepdim=True),
                torch.linalg.matrix_norm(x, -2), torch.linalg.norm(s, 2),
                torch.nuclear_norm(s), torch.nuclear_norm(x, dim=(1, 2), keepdim=True),
                torch.norm(s, "nuc"),
                torch.linalg.cond(x), torch.linalg.cond(x, -2),
                torch.linalg.cond(s, "fro"), torch.linalg.cond(s, "nuc"))


class Lstsq(torch.nn.Module):
    """lstsq with the default driver (tall, wide, batched), gels (its
    residuals) and gelsd of a wide A (rank, singular values)"""
    def forward(self, t, bt, w, bw):
        a = torch.linalg.lstsq(t, bt)
        g = torch.linalg.lstsq(t, bt, driver="gels")
        s = torch.linalg.lstsq(w, bw, driver="gelsd")
        y = torch.linalg.lstsq(w, bw)
        return a + g + s + (y[0], y[2])


class Many(torch.nn.Module):
    """eigvalsh and svdvals of many random matrices, graded ones (spectra
    over 6 and 4 decades) among them: the Jacobi sweeps' error"""
    def forward(self, s, s64, a, a64):
        return (torch.linalg.eigvalsh(s), torch.linalg.eigvalsh(s64),
                torch.linalg.svdvals(a), torch.linalg.svdvals(a64))


class Refused(torch.nn.Module):
    """what stays refused: eigh's and svd's vectors, gelsd's residuals of
    a tall A (a shape that depends on the rank); cond with p 1 is
    tests/439's"""
    def forward(self, s, t, b):
        return (torch.linalg.eigh(s)[1], torch.linalg.svd(t)[0], torch.svd(t)[0],
                torch.linalg.lstsq(t, b, driver="gelsd")[0])


def graded(b, m, n, decades, dtype):
    x = r(b, m, n, dtype=dtype)
    x[: b // 4] = x[: b // 4] * torch.logspace(-decades, 0, n, dtype=dtype)
    return x


def deficient(*shape):
    """rank 2 matrices of the given shape"""
    return r(*shape[:-1], 2) @ r(*shape[:-2], 2, shape[-1])


def sym(*shape, dtype=torch.float32):
    a = r(*shape, dtype=dtype)
    return a + a.transpose(-2, -1)


zc = r(2, 4, 3)
zc[0, :, 1] = 0       # a zero column
zc[1, 1:, 0] = 0      # a column zero below the diagonal: tau 0, R's sign kept
zc[1, 0, 0] = -2.0
cases = {
    "qr": (QR(), [("t", r(5, 3), None, []), ("w", r(2, 3, 5, dtype=torch.float64), None, []),
                  ("b", r(2, 4, 4), None, []), ("z", zc, None, []), ("c", r(5, 2), None, [])]),
    "eig": (Eig(), [("s", sym(3, 4, 4), None, []), ("s64", sym(5, 5, dtype=torch.float64), None, []),
                    ("t", r(2, 6, 3), None, []), ("w", r(3, 7), None, [])]),
    "rank": (Rank(), [("d", deficient(2, 5, 4), None, []), ("w", r(3, 6), None, []),
                      ("h", torch.diag(torch.tensor([3.0, -2.0, 0.0, 1.0])), None, [])]),
    "norms": (Norms(), [("x", r(2, 3, 4), None, []), ("s", r(4, 4, dtype=torch.float64), None, [])]),
    "lstsq": (Lstsq(), [("t", r(2, 6, 3), None, []), ("bt", r(2, 6, 2), None, []),
                        ("w", r(3, 5), None, []), ("bw", r(3, 2), None, [])]),
    "many": (Many(), [("s", sym(100, 8, 8) * torch.logspace(-3, 0, 8), None, []),
                      ("s64", sym(100, 8, 8, dtype=torch.float64) * torch.logspace(-3, 0, 8, dtype=torch.float64), None, []),
                      ("a", graded(100, 8, 5, 4, torch.float32), None, []),
                      ("a64", graded(100, 5, 8, 4, torch.float64), None, [])]),
    "refused": (Refused(), [("s", sym(4, 4), None, []), ("t", r(5, 3), None, []),
                            ("b", r(5, 2), None, [])]),
}
m, ins = cases[name]
write_case(m, ins, d)

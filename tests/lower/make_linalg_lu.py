# make_linalg_lu.py - the models of tests/434-lower-linalg-lu.bats: the
# direct factorizations (cholesky and its solves and inverse, the
# triangular solves, LU with partial pivoting, solve and inv) on
# well-conditioned matrices (A = Q diag Q^T, or a dominant diagonal),
# batched, float32 and float64, traced and scripted by torch 1.13, with
# torch's eager outputs as the oracle (opcases.py writes them).
#
#   make_linalg_lu.py NAME DIR
import sys

import torch

from opcases import write_case

torch.manual_seed(0)
name, d = sys.argv[1], sys.argv[2]


def spd(*shape, dtype=torch.float32):
    """symmetric positive definite: Q diag(1..4) Q^T, batched"""
    n = shape[-1]
    q, _ = torch.linalg.qr(torch.randn(*shape, dtype=torch.float64))
    e = torch.linspace(1, 4, n, dtype=torch.float64)
    return (q @ torch.diag_embed(e.expand(*shape[:-1])) @ q.mT).to(dtype)


def tri(*shape, dtype=torch.float32):
    """a dominant diagonal and noise in both triangles (the solve reads
    one)"""
    n = shape[-1]
    a = torch.randn(*shape, dtype=torch.float64) * 0.3
    return (a + torch.eye(n, dtype=torch.float64) * 2).to(dtype)


def gen(*shape, dtype=torch.float32):
    """a general matrix, well conditioned, whose first column's largest
    entry is not on the diagonal (partial pivoting swaps rows)"""
    a = torch.randn(*shape, dtype=torch.float64)
    n = min(shape[-2], shape[-1])
    a[..., :n, :n] += torch.eye(n, dtype=torch.float64) * 1.5
    a[..., -1, 0] = 4.0
    return a.to(dtype)


class Chol(torch.nn.Module):
    """cholesky (upper), linalg_cholesky (upper), linalg_cholesky_ex (L and
    info of a positive definite batch; info alone of one that is not:
    torch's L there is LAPACK's partial work)"""
    def forward(self, a, b, np_):
        l, info = torch.linalg.cholesky_ex(a)
        return (torch.cholesky(a), torch.cholesky(a, upper=True),
                torch.linalg.cholesky(b), torch.linalg.cholesky(b, upper=True),
                l, info, torch.linalg.cholesky_ex(np_)[1])


class CholSolve(torch.nn.Module):
    """cholesky_solve (upper, B broadcast over the batch), cholesky_inverse
    (upper)"""
    def forward(self, a, b, a64):
        l = torch.linalg.cholesky(a)
        u = torch.linalg.cholesky(a, upper=True)
        l64 = torch.linalg.cholesky(a64)
        return (torch.cholesky_solve(b, l), torch.cholesky_solve(b, u, upper=True),
                torch.cholesky_inverse(l[0]), torch.cholesky_inverse(u[1], upper=True),
                torch.cholesky_inverse(l64))


class Tri(torch.nn.Module):
    """triangular_solve (upper, lower, transpose, unitriangular; its
    second output), linalg_solve_triangular (left=False, unitriangular)"""
    def forward(self, t, b, bt, t64, b64):
        x1, c1 = torch.triangular_solve(b, t)
        return (x1, c1, torch.triangular_solve(b, t, upper=False)[0],
                torch.triangular_solve(b, t, transpose=True)[0],
                torch.triangular_solve(b, t, upper=False, unitriangular=True)[0],
                torch.linalg.solve_triangular(t, b, upper=True),
                torch.linalg.solve_triangular(t, bt, upper=False, left=False),
                torch.linalg.solve_triangular(t, b, upper=False, unitriangular=True),
                torch.linalg.solve_triangular(t64, b64, upper=True))


class LU(torch.nn.Module):
    """linalg_lu_factor(_ex), torch.lu (_lu_with_info), linalg_lu and
    lu_unpack of square (pivoting), wide and tall matrices and a singular
    one (a zero pivot: info)"""
    def forward(self, a, w, h, s, a64):
        lu, piv = torch.linalg.lu_factor(a)
        lu2, piv2, info2 = torch.linalg.lu_factor_ex(s)
        lu3, piv3 = torch.lu(a64)
        p, l, u = torch.linalg.lu(w)
        p2, l2, u2 = torch.linalg.lu(h)
        p3, l3, u3 = torch.lu_unpack(lu, piv)
        return (lu, piv, lu2, piv2, info2, lu3, piv3, p, l, u, p2, l2, u2, p3, l3, u3)


class Solve(torch.nn.Module):
    """lu_solve, linalg_lu_solve (left=False, adjoint), linalg_solve
    (vector B, batched B, left=False), linalg_solve_ex, linalg_inv(_ex)
    (an empty matrix), inverse, linalg_tensorinv, linalg_tensorsolve
    (dims)"""
    def forward(self, a, b, v, bt, a64, b64, e, ta, tb, tm):
        lu, piv = torch.linalg.lu_factor(a)
        x, info = torch.linalg.solve_ex(a, b)
        iv, iinfo = torch.linalg.inv_ex(a)
        return (torch.lu_solve(b, lu, piv), torch.linalg.lu_solve(lu, piv, b),
                torch.linalg.lu_solve(lu, piv, b, adjoint=True),
                torch.linalg.lu_solve(lu, piv, bt, left=False),
                torch.linalg.solve(a, b), torch.linalg.solve(a, v),
                torch.linalg.solve(a, bt, left=False), x, info,
                torch.linalg.inv(a), iv, iinfo, torch.inverse(a64),
                torch.linalg.solve(a64, b64), torch.linalg.inv(e),
                torch.linalg.tensorinv(ta, ind=2), torch.linalg.tensorsolve(ta, tb),
                torch.linalg.tensorsolve(tm, tb, dims=(0,)))


class Ldl(torch.nn.Module):
    """linalg_ldl_factor: Bunch-Kaufman pivoting, refused"""
    def forward(self, a):
        return torch.linalg.ldl_factor(a)[0]


D = torch.float64
npd = spd(2, 4, 4)
npd[1, 2, 2] = -3.0  # the third pivot of the second matrix is negative
cases = {
    "ldl": (Ldl(), [("a", spd(3, 3), None, [])]),
    "chol": (Chol(), [("a", spd(2, 3, 4, 4), None, []), ("b", spd(5, 5, dtype=D), None, []),
                      ("np_", npd, None, [])]),
    "cholsolve": (CholSolve(), [("a", spd(2, 4, 4), None, []), ("b", torch.randn(4, 3), None, []),
                                ("a64", spd(3, 5, 5, dtype=D), None, [])]),
    "tri": (Tri(), [("t", tri(2, 4, 4), None, []), ("b", torch.randn(2, 4, 3), None, []),
                    ("bt", torch.randn(3, 4), None, []), ("t64", tri(5, 5, dtype=D), None, []),
                    ("b64", torch.randn(3, 5, 2, dtype=D), None, [])]),
    "lu": (LU(), [("a", gen(2, 4, 4), None, []), ("w", gen(3, 5), None, []), ("h", gen(2, 5, 3), None, []),
                  ("s", torch.tensor([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]]), None, []),
                  ("a64", gen(4, 4, dtype=D), None, [])]),
    "solve": (Solve(), [("a", gen(2, 4, 4), None, []), ("b", torch.randn(2, 4, 3), None, []),
                        ("v", torch.randn(4), None, []), ("bt", torch.randn(3, 4), None, []),
                        ("a64", gen(3, 5, 5, dtype=D), None, []), ("b64", torch.randn(5, 2, dtype=D), None, []),
                        ("e", torch.zeros(0, 0), None, []), ("ta", gen(6, 6).reshape(2, 3, 6), None, []),
                        ("tb", torch.randn(2, 3), None, []),
                        ("tm", gen(6, 6).reshape(2, 3, 6).movedim(2, 0).contiguous(), None, [])]),
}
m, ins = cases[name]
write_case(m, ins, d)

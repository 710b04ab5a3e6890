"""Harness cases (see primitive_cases.py) of the spec's numerics primitives: special
functions (ops/special_math.py), integer and bit math (ops/integer_math.py), linear algebra
(ops/linalg_solve.py, ops/linalg_decompose.py, ops/order_statistics.py) and the host
gradient rules (ops/host_grad.py). References are NumPy, SciPy and math-module formulas;
gradients the harness's finite differences. These primitives have no TVM lowering: graph
mode runs their kernels on the host (test_lowering checks that path with the same cases)."""

from __future__ import annotations

import math

import numpy as np
from scipy import special
from scipy.linalg import lapack

from framework.ops import bessel as bs
from framework.ops import fractional_pool as fp
from framework.ops import integer_math as im
from framework.ops import linalg_decompose as ld
from framework.ops import linalg_solve as ls
from framework.ops import special_math as sm
from framework.ops.debug import AssertOp
from framework.ops.host_grad import HostGrad
from framework.ops.order_statistics import Median

from .primitive_cases import Case, positive, rand

S = (2, 3)


def _spd(r):
    a = r.standard_normal((3, 3))
    return [a @ a.T + 3 * np.eye(3)]


def _square(r, batch=()):
    return r.standard_normal(batch + (3, 3)) + 3 * np.eye(3)


def _lower(r):
    return [np.linalg.cholesky(_spd(r)[0])]


def _ints(low, high, dtype=np.int32):
    return lambda r: [r.integers(low, high, S).astype(dtype), r.integers(low, high, S).astype(dtype)]


def _dgammainc_da(a, x):  # Richardson's extrapolation of two central differences
    def central(h):
        return (special.gammainc(a + h, x) - special.gammainc(a - h, x)) / (2 * h)

    return (4 * central(5e-4) - central(1e-3)) / 3


def _mvlgamma(x):
    return sum(special.gammaln(x - i / 2) for i in range(3)) + 1.5 * math.log(math.pi)


def _lgamma(x):
    return np.vectorize(math.lgamma)(x)


def _j0(x):  # Bessel's integral: J0(x) = (1/pi) int_0^pi cos(x sin t) dt (Simpson, 2001 nodes)
    t = np.linspace(0.0, np.pi, 2001)
    w = np.ones_like(t)
    w[1:-1:2], w[2:-1:2] = 4.0, 2.0
    return (np.cos(np.multiply.outer(x, np.sin(t))) * w).sum(-1) * (t[1] - t[0]) / 3 / np.pi


def _lu_inputs(r):
    from scipy.linalg import lu_factor

    lu, piv = lu_factor(r.standard_normal((3, 3)))
    return [r.standard_normal((3, 2)), lu, (piv + 1).astype(np.int32)]


def _lu_solve_ref(b, lu, piv):
    from scipy.linalg import lu_solve

    return lu_solve((lu, piv - 1), b)


def _lu_unpack_ref(lu, piv):
    rows = np.eye(3)
    for i, j in enumerate(piv - 1):  # LAPACK's swaps, in order: rows = P^T
        rows[[i, j]] = rows[[j, i]]
    return rows.T, np.tril(lu, -1) + np.eye(3), np.triu(lu)


def _svd_ref(a):
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    return s, u, vh.T


def _median_ref(x):
    k = (x.shape[-1] - 1) // 2
    idx = np.argsort(x, -1, kind="stable")[..., k]
    return np.take_along_axis(x, idx[..., None], -1)[..., 0], idx.astype(np.int64)


def _orgqr_inputs(r):
    h, tau = np.linalg.qr(r.standard_normal((4, 3)), mode="raw")
    return [h.T.copy(), tau]


NUMERICS_CASES = [
    Case(sm.Lgamma(), lambda r: [r.uniform(-3.5, 6, S) + 0.25], _lgamma),
    Case(sm.Digamma(), lambda r: [r.uniform(0.3, 6, S)], special.psi),
    Case(sm.Erfinv(), lambda r: [r.uniform(-0.9, 0.9, S)], special.erfinv),
    Case(sm.Polygamma(), lambda r: [np.array(2, np.int64), r.uniform(0.5, 4, S)],
         lambda n, x: special.polygamma(int(n), x), diff=(1,)),
    Case(sm.Mvlgamma(3), lambda r: [r.uniform(1.2, 5, S)], _mvlgamma),
    Case(sm.Igamma(), lambda r: [r.uniform(0.5, 4, S), r.uniform(0.2, 5, S)], special.gammainc),
    Case(sm.Igammac(), lambda r: [r.uniform(0.5, 4, (3,)), r.uniform(0.2, 5, S)], special.gammaincc),
    Case(sm.IgammaGradA(), lambda r: [r.uniform(0.5, 4, S), r.uniform(0.2, 5, S)], _dgammainc_da),
    # MindSpore's zeta has no gradient in its first argument (zero): q's is checked
    Case(sm.Zeta(), lambda r: [r.uniform(1.5, 4, S), r.uniform(0.5, 3, S)], special.zeta, diff=(1,)),
    # MindSpore's betainc differentiates x only (zeros for a and b)
    Case(sm.Betainc(), lambda r: [r.uniform(0.5, 4, S), r.uniform(0.5, 4, S), r.uniform(0.1, 0.9, S)],
         special.betainc, diff=(2,)),
    Case(bs.BesselI0(), rand(S), np.i0),
    Case(bs.BesselI0e(), rand(S), lambda x: np.i0(x) * np.exp(-np.abs(x))),
    Case(bs.BesselI1(), rand(S), special.i1),
    Case(bs.BesselI1e(), rand(S), special.i1e),
    Case(bs.BesselJ0(), lambda r: [r.uniform(-8, 8, S)], _j0),
    Case(bs.BesselJ1(), lambda r: [r.uniform(-8, 8, S)], special.j1),
    Case(bs.BesselK0(), positive(S), special.k0),
    Case(bs.BesselK0e(), positive(S), special.k0e),
    Case(bs.BesselK1(), positive(S), special.k1),
    Case(bs.BesselK1e(), positive(S), special.k1e),
    Case(bs.BesselY0(), positive(S), special.y0),
    Case(bs.BesselY1(), positive(S), special.y1),
    Case(im.Gcd(), _ints(-30, 30), np.gcd),
    Case(im.Lcm(), _ints(-30, 30, np.int64), np.lcm),
    Case(im.LeftShift(), lambda r: [r.integers(-50, 50, S).astype(np.int32),
                                    r.integers(0, 20, S).astype(np.int32)], np.left_shift),
    Case(im.RightShift(), lambda r: [r.integers(-500, 500, S).astype(np.int64),
                                     r.integers(0, 9, S).astype(np.int64)], np.right_shift),
    Case(im.PopulationCount(), lambda r: [r.integers(-1000, 1000, S).astype(np.int32)],
         lambda x: np.array([[bin(int(v) & 0xFFFFFFFF).count("1") for v in row] for row in x], np.uint8)),
    Case(im.NextAfter(), lambda r: [r.standard_normal(S), r.standard_normal(S)], np.nextafter, diff=(0,)),
    Case(im.Inv(), lambda r: [r.uniform(0.5, 2, S) * r.choice([-1, 1], S)], np.reciprocal),
    Case(im.Histogram(4, -1.0, 1.0), rand((20,)),
         lambda x: np.histogram(x, 4, (-1.0, 1.0))[0].astype(np.float32)),
    Case(ls.MatrixInverse(), lambda r: [_square(r, (2,))], np.linalg.inv),
    Case(ls.Det(), lambda r: [_square(r, (2,))], np.linalg.det),
    Case(ls.Slogdet(), lambda r: [_square(r, (2,))], lambda a: tuple(np.linalg.slogdet(a))),
    Case(ls.Logdet(), _spd, lambda a: np.log(np.linalg.det(a))),
    Case(ls.MatrixSolve(), lambda r: [_square(r), r.standard_normal((3, 2))], np.linalg.solve),
    Case(ls.MatrixSolve(True), lambda r: [_square(r), r.standard_normal((3, 2))],
         lambda a, b: np.linalg.solve(a.T, b)),
    Case(ls.CholeskySolve(), lambda r: [r.standard_normal((3, 2))] + _lower(r),
         lambda b, low: np.linalg.solve(low @ low.T, b)),
    Case(ls.CholeskySolve(True), lambda r: [r.standard_normal((3, 2)), _lower(r)[0].T],
         lambda b, up: np.linalg.solve(up.T @ up, b)),
    Case(ls.CholeskyInverse(), _lower, lambda low: np.linalg.inv(low @ low.T)),
    Case(ls.CholeskyInverse(True), lambda r: [_lower(r)[0].T], lambda up: np.linalg.inv(up.T @ up)),
    Case(ls.Pinv(), rand((4, 3)), np.linalg.pinv),
    Case(ls.Lstsq(), rand((5, 3), (5, 2)), lambda a, b: np.linalg.lstsq(a, b, rcond=None)[0]),
    Case(ls.LuSolve(), _lu_inputs, _lu_solve_ref),
    Case(ls.LuUnpack(), lambda r: _lu_inputs(r)[1:], _lu_unpack_ref, diff=(0,)),
    Case(ld.Cholesky(), _spd, np.linalg.cholesky),
    Case(ld.Cholesky(True), _spd, lambda a: np.linalg.cholesky(a).T),
    Case(ld.Qr(), rand((4, 3)), lambda a: tuple(np.linalg.qr(a))),
    Case(ld.Svd(), rand((4, 3)), _svd_ref),
    Case(ld.SingularValues(), rand((2, 3, 4)), lambda a: np.linalg.svd(a, compute_uv=False)),
    Case(ld.Geqrf(), rand((4, 3)), lambda a: (lapack.dgeqrf(a)[0], lapack.dgeqrf(a)[1])),
    Case(ld.Orgqr(), _orgqr_inputs, lambda h, tau: lapack.dorgqr(h, tau)[0]),
    Case(Median(-1), lambda r: [r.permutation(20).reshape(4, 5) * 0.1], _median_ref),
    Case(HostGrad("inverse", 0, (3, 3), "<f8"), lambda r: [np.linalg.inv(_square(r)), rand((3, 3))(r)[0]],
         lambda inv, g: -inv.T @ g @ inv.T),
]


# fractional max pooling (ops/fractional_pool.py): boundaries from the documented rules, the
# windows' maxima and the gradient at each window's first maximum by loops
def _pseudo_sequence(n, m):
    def ref(u):
        alpha, k = n / m, n // m
        v = u[0] * min((k + 2) / alpha - 1, (n + 1 - k) / alpha - (m - 1))
        return np.array([0] + [math.ceil(alpha * (i + v)) - 1 for i in range(1, m)] + [n], np.int64)
    return ref


def _shuffled_sequence(n, m):
    def ref(u):
        wider = set(np.argsort(u[1:], kind="stable")[: n % m].tolist())
        widths = [n // m + (1 if i in wider else 0) for i in range(m)]
        return np.array([sum(widths[:i]) for i in range(m + 1)], np.int64)
    return ref


def _pool_windows(x, rows, cols, overlapping):
    extra = 1 if overlapping else 0
    for i in range(len(rows) - 1):
        for j in range(len(cols) - 1):
            r1, c1 = min(rows[i + 1] + extra, x.shape[1]), min(cols[j + 1] + extra, x.shape[2])
            yield i, j, rows[i], r1, cols[j], c1


def _sequence_pool(overlapping):
    def ref(x, rows, cols):
        y = np.empty((x.shape[0], len(rows) - 1, len(cols) - 1, x.shape[3]), x.dtype)
        for i, j, r0, r1, c0, c1 in _pool_windows(x, rows, cols, overlapping):
            y[:, i, j] = x[:, r0:r1, c0:c1].max(axis=(1, 2))
        return y
    return ref


def _sequence_pool_grad(overlapping):
    def ref(x, rows, cols, dy):
        dx = np.zeros_like(x)
        for i, j, r0, r1, c0, c1 in _pool_windows(x, rows, cols, overlapping):
            for n in range(x.shape[0]):
                for ch in range(x.shape[3]):
                    patch = x[n, r0:r1, c0:c1, ch]
                    a, b = np.unravel_index(patch.argmax(), patch.shape)
                    dx[n, r0 + a, c0 + b, ch] += dy[n, i, j, ch]
        return dx
    return ref


_ROWS, _COLS = np.array([0, 2, 3, 5, 7], np.int64), np.array([0, 1, 3, 4, 6], np.int64)
NUMERICS_CASES += [
    Case(fp.PoolingSequence(7, 4, True), lambda r: [r.uniform(0, 1, 5)], _pseudo_sequence(7, 4)),
    Case(fp.PoolingSequence(11, 4, False), lambda r: [r.uniform(0, 1, 5)], _shuffled_sequence(11, 4)),
    Case(fp.SequencePool(False), lambda r: [r.standard_normal((2, 7, 6, 3)), _ROWS, _COLS],
         _sequence_pool(False), diff=(0,)),
    Case(fp.SequencePool(True), lambda r: [r.standard_normal((1, 7, 6, 2)), _ROWS, _COLS],
         _sequence_pool(True), diff=(0,)),
    Case(fp.SequencePoolGrad(True), lambda r: [r.standard_normal((1, 7, 6, 2)), _ROWS, _COLS,
                                               r.standard_normal((1, 4, 4, 2))], _sequence_pool_grad(True)),
    Case(AssertOp(2), lambda r: [np.array([True]), r.standard_normal(S)], lambda c, x: np.zeros(1, np.int32)),
]

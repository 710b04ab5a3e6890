"""Inverses, determinants and linear solves of (batches of) matrices: ``inverse``, ``det``,
``slogdet``, ``logdet``, ``matrix_solve``, ``cholesky_solve``, ``cholesky_inverse``, ``pinv``,
``lstsq``, ``lu_solve``, ``lu_unpack``.

Contracts (MindSpore 2.10 on CPU):

- Inputs are float32 or float64 (a ``TypeError`` otherwise), matrices in the last two
  axes with any batch axes in front; square where the operation needs it (``ValueError``).
  Results keep the dtype; kernels compute in float64 (LAPACK through NumPy) and round.
- ``slogdet`` gives ``(sign, log|det|)``; ``logdet`` is ``log(det)``, nan for a negative
  determinant and ``-inf`` for a singular matrix.
- ``cholesky_solve(b, u, upper)`` solves ``A x = b`` for ``A = u u^T`` (``upper``: ``u^T u``),
  ``cholesky_inverse(u, upper)`` inverts that ``A``; ``matrix_solve(a, b, adjoint)`` solves
  ``a x = b`` (``adjoint``: ``a^T x = b``); ``lstsq(input, A)`` the least-squares ``X`` of
  ``input X = A`` (full-rank ``input``); ``pinv`` the Moore-Penrose inverse, singular values
  below ``max(atol, rtol * s_max)`` dropped (default ``rtol``: ``max(m, n) * eps``);
  ``lu_unpack``/``lu_solve`` read LAPACK's ``getrf`` form (unit-lower ``L`` below the
  diagonal, ``U`` on and above, 1-based row swaps ``LU_pivots`` in int32).
- Gradients (``inverse``, ``det``, ``slogdet``, ``logdet``, the solves, ``cholesky_inverse``,
  ``pinv``, ``lu_unpack``) are the closed-form adjoints, computed on the host (:mod:`.host_grad`); every
  entry of a triangular factor is taken as free, as MindSpore's rules do.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..primitive import Primitive, Spec, shape_str
from .host_grad import host_grads, rule

_FLOATS = (np.float32, np.float64)


def _t(a: np.ndarray) -> np.ndarray:
    return np.swapaxes(a, -1, -2)


def matrices(op: str, x: Any, square: bool = True) -> tuple[int, ...]:
    """The shape of a float (batch of) matrix input, checked."""
    if np.dtype(x.dtype) not in _FLOATS:
        raise TypeError(f"{op}: needs a float32 or float64 input, got {x.dtype}")
    shape = tuple(x.shape)
    if len(shape) < 2:
        raise ValueError(f"{op}: needs matrices (rank >= 2), got shape {shape_str(shape)}")
    if square and shape[-1] != shape[-2]:
        raise ValueError(f"{op}: needs square matrices, got shape {shape_str(shape)}")
    return shape


class MatrixInverse(Primitive):
    def infer(self, x: Any) -> Spec:
        return Spec(matrices("inverse", x), x.dtype)

    def kernel(self, x):
        return np.linalg.inv(x.astype(np.float64)).astype(x.dtype)

    def bprop(self, x, *, out, dout, needs):
        return host_grads("inverse", (out, dout), (x,), needs)


@rule("inverse")
def _inverse_grad(inv, g):
    return (-_t(inv) @ g @ _t(inv),)


class Det(Primitive):
    def infer(self, x: Any) -> Spec:
        return Spec(matrices("det", x)[:-2], x.dtype)

    def kernel(self, x):
        return np.asarray(np.linalg.det(x.astype(np.float64))).astype(x.dtype)

    def bprop(self, x, *, out, dout, needs):
        return host_grads("det", (x, out, dout), (x,), needs)


@rule("det")
def _det_grad(x, det, g):
    """``g adj(A)^T`` (``det A * A^-T`` where ``A`` is invertible), with the adjugate from the
    SVD ``A = U S V^T``: ``adj(A) = det(U) det(V) V adj(S) U^T``, ``adj(S)`` the products of
    the other singular values: exact for singular ``A`` too."""
    u, s, vh = np.linalg.svd(x)
    n = s.shape[-1]
    others = np.stack([np.prod(np.delete(s, i, axis=-1), axis=-1) for i in range(n)], -1)
    signs = np.linalg.det(u) * np.linalg.det(vh)
    adj = signs[..., None, None] * (_t(vh) * others[..., None, :]) @ _t(u)
    return (g[..., None, None] * _t(adj),)


class Slogdet(Primitive):
    num_outputs = 2

    def infer(self, x: Any) -> tuple[Spec, Spec]:
        shape = matrices("slogdet", x)[:-2]
        return Spec(shape, x.dtype), Spec(shape, x.dtype)

    def kernel(self, x):
        sign, logabs = np.linalg.slogdet(x.astype(np.float64))
        return np.asarray(sign).astype(x.dtype), np.asarray(logabs).astype(x.dtype)

    def bprop(self, x, *, out, dout, needs):
        return host_grads("logabsdet", (x, dout[1]), (x,), needs)


@rule("logabsdet")
def _logabsdet_grad(x, g):
    return (g[..., None, None] * _t(np.linalg.inv(x)),)


class Logdet(Primitive):
    def infer(self, x: Any) -> Spec:
        return Spec(matrices("logdet", x)[:-2], x.dtype)

    def kernel(self, x):
        sign, logabs = np.linalg.slogdet(x.astype(np.float64))
        return np.asarray(np.where(sign < 0, np.nan, logabs)).astype(x.dtype)

    def bprop(self, x, *, out, dout, needs):
        return host_grads("logabsdet", (x, dout), (x,), needs)


class MatrixSolve(Primitive):
    def __init__(self, adjoint: bool = False) -> None:
        super().__init__(adjoint=bool(adjoint))

    def infer(self, a: Any, b: Any) -> Spec:
        sa, sb = matrices("matrix_solve", a), matrices("matrix_solve", b, square=False)
        if a.dtype != b.dtype or sa[-1] != sb[-2] or sa[:-2] != sb[:-2]:
            raise ValueError(f"matrix_solve: matrix {shape_str(sa)} {a.dtype} and rhs "
                             f"{shape_str(sb)} {b.dtype} do not match")
        return Spec(sb, b.dtype)

    def kernel(self, a, b):
        a64 = a.astype(np.float64)
        return np.linalg.solve(_t(a64) if self.adjoint else a64, b.astype(np.float64)).astype(b.dtype)

    def bprop(self, a, b, *, out, dout, needs):
        return host_grads("matrix_solve", (a, out, dout), (a, b), needs, adjoint=self.adjoint)


@rule("matrix_solve")
def _matrix_solve_grad(a, x, g, adjoint):
    m = _t(a) if adjoint else a
    gb = np.linalg.solve(_t(m), g)
    ga = -gb @ _t(x)
    return (_t(ga) if adjoint else ga), gb


def _cholesky_matrix(u: np.ndarray, upper: bool) -> np.ndarray:
    return _t(u) @ u if upper else u @ _t(u)


class CholeskySolve(Primitive):
    def __init__(self, upper: bool = False) -> None:
        super().__init__(upper=bool(upper))

    def infer(self, b: Any, u: Any) -> Spec:
        su, sb = matrices("cholesky_solve", u), matrices("cholesky_solve", b, square=False)
        if b.dtype != u.dtype or su[-1] != sb[-2]:
            raise ValueError(f"cholesky_solve: rhs {shape_str(sb)} {b.dtype} and factor "
                             f"{shape_str(su)} {u.dtype} do not match")
        return Spec(sb, b.dtype)

    def kernel(self, b, u):
        a = _cholesky_matrix(u.astype(np.float64), self.upper)
        return np.linalg.solve(a, b.astype(np.float64)).astype(b.dtype)

    def bprop(self, b, u, *, out, dout, needs):
        return host_grads("cholesky_solve", (u, out, dout), (b, u), needs, upper=self.upper)


@rule("cholesky_solve")
def _cholesky_solve_grad(u, x, g, upper):
    gb = np.linalg.solve(_cholesky_matrix(u, upper), g)
    ga = -gb @ _t(x)
    sym = ga + _t(ga)
    return gb, (u @ sym if upper else sym @ u)


class CholeskyInverse(Primitive):
    def __init__(self, upper: bool = False) -> None:
        super().__init__(upper=bool(upper))

    def infer(self, u: Any) -> Spec:
        return Spec(matrices("cholesky_inverse", u), u.dtype)

    def kernel(self, u):
        return np.linalg.inv(_cholesky_matrix(u.astype(np.float64), self.upper)).astype(u.dtype)

    def bprop(self, u, *, out, dout, needs):
        return host_grads("cholesky_inverse", (u, out, dout), (u,), needs, upper=self.upper)


@rule("cholesky_inverse")
def _cholesky_inverse_grad(u, inv, g, upper):
    core = inv @ (g + _t(g)) @ inv
    return (-(u @ core) if upper else -(core @ u),)


class Pinv(Primitive):
    def __init__(self, atol: float | None = None, rtol: float | None = None,
                 hermitian: bool = False) -> None:
        super().__init__(atol=atol, rtol=rtol, hermitian=bool(hermitian))

    def infer(self, x: Any) -> Spec:
        shape = matrices("pinv", x, square=self.hermitian)
        return Spec(shape[:-2] + (shape[-1], shape[-2]), x.dtype)

    def kernel(self, x):
        a = x.astype(np.float64)
        u, s, vh = np.linalg.svd(a, full_matrices=False)
        smax = s.max(axis=-1, keepdims=True) if s.shape[-1] else np.zeros(s.shape[:-1] + (1,))
        rtol = self.rtol
        if rtol is None:
            rtol = 0.0 if self.atol else max(a.shape[-2:]) * float(np.finfo(x.dtype).eps)
        cutoff = np.maximum(self.atol or 0.0, rtol * smax)
        inv_s = np.where(s > cutoff, 1.0 / np.where(s > cutoff, s, 1.0), 0.0)
        return (_t(vh) @ (inv_s[..., None] * _t(u))).astype(x.dtype)

    def bprop(self, x, *, out, dout, needs):
        return host_grads("pinv", (x, out, dout), (x,), needs)


@rule("pinv")
def _pinv_grad(a, p, g):  # Golub & Pereyra's derivative of the pseudo-inverse, transposed
    eye_m, eye_n = np.eye(a.shape[-2]), np.eye(a.shape[-1])
    return (-_t(p) @ g @ _t(p) + (eye_m - a @ p) @ _t(g) @ p @ _t(p)
            + _t(p) @ p @ _t(g) @ (eye_n - p @ a),)


class Lstsq(Primitive):
    differentiable = False

    def infer(self, x: Any, a: Any) -> Spec:
        sx, sa = matrices("lstsq", x, square=False), tuple(a.shape)
        if x.dtype != a.dtype or len(sa) not in (1, 2) or len(sx) != 2 or sa[0] != sx[0]:
            raise ValueError(f"lstsq: input {shape_str(sx)} {x.dtype} and A {shape_str(sa)} "
                             f"{a.dtype} do not match (2-d input, A of its rows)")
        return Spec((sx[1],) + sa[1:], x.dtype)

    def kernel(self, x, a):
        return np.linalg.lstsq(x.astype(np.float64), a.astype(np.float64), rcond=None)[0].astype(x.dtype)


def _permutation(pivots: np.ndarray, n: int) -> np.ndarray:
    """The row order ``perm`` with ``P^T A = A[perm]`` from 1-based LAPACK swaps, batched."""
    flat = pivots.reshape(-1, pivots.shape[-1]).astype(np.int64) - 1
    perms = np.tile(np.arange(n), (flat.shape[0], 1))
    for b in range(flat.shape[0]):
        for i, j in enumerate(flat[b]):
            perms[b, [i, j]] = perms[b, [j, i]]
    return perms.reshape(pivots.shape[:-1] + (n,))


def _check_lu(op: str, lu: Any, pivots: Any) -> tuple[int, ...]:
    shape = matrices(op, lu, square=False)
    want = shape[:-2] + (min(shape[-2:]),)
    if np.dtype(pivots.dtype).kind not in "iu" or tuple(pivots.shape) != want:
        raise ValueError(f"{op}: LU_pivots must be integers of shape {shape_str(want)}, got "
                         f"{shape_str(tuple(pivots.shape))}")
    return shape


class LuUnpack(Primitive):
    """``(P, L, U)`` with ``A = P L U`` from LAPACK's packed LU; the gradient reaches the
    packed entries ``L`` and ``U`` were read from (none through ``P``)."""

    num_outputs = 3

    def infer(self, lu: Any, pivots: Any) -> tuple[Spec, Spec, Spec]:
        shape = _check_lu("lu_unpack", lu, pivots)
        m, n = shape[-2:]
        k = min(m, n)
        batch = shape[:-2]
        return (Spec(batch + (m, m), lu.dtype), Spec(batch + (m, k), lu.dtype),
                Spec(batch + (k, n), lu.dtype))

    def kernel(self, lu, pivots):
        m, n = lu.shape[-2:]
        k = min(m, n)
        lower = np.tril(lu[..., :, :k], -1) + np.eye(m, k, dtype=lu.dtype)
        upper = np.triu(lu[..., :k, :])
        perm = _permutation(pivots, m)
        p = np.zeros(lu.shape[:-2] + (m, m), lu.dtype)
        np.put_along_axis(p, perm[..., :, None], 1, axis=-1)  # row i of P^T picks perm[i]
        return _t(p), lower.astype(lu.dtype), upper.astype(lu.dtype)

    def bprop(self, lu, pivots, *, out, dout, needs):
        return host_grads("lu_unpack", (lu, dout[1], dout[2]), (lu, pivots), (needs[0], False))


@rule("lu_unpack")
def _lu_unpack_grad(lu, g_lower, g_upper):
    m, n = lu.shape[-2:]
    k = min(m, n)
    grad = np.zeros(lu.shape)
    grad[..., :, :k] += np.tril(g_lower, -1)
    grad[..., :k, :] += np.triu(g_upper)
    return (grad,)


class LuSolve(Primitive):
    differentiable = False

    def infer(self, b: Any, lu: Any, pivots: Any) -> Spec:
        shape = _check_lu("lu_solve", lu, pivots)
        sb = matrices("lu_solve", b, square=False)
        if shape[-1] != shape[-2] or sb[-2] != shape[-1] or b.dtype != lu.dtype:
            raise ValueError(f"lu_solve: b {shape_str(sb)} {b.dtype} and LU_data {shape_str(shape)} "
                             f"{lu.dtype} do not match")
        return Spec(sb, b.dtype)

    def kernel(self, b, lu, pivots):
        p, lower, upper = LuUnpack().kernel(lu.astype(np.float64), pivots)
        return np.linalg.solve(p @ lower @ upper, b.astype(np.float64)).astype(b.dtype)


# -- functional forms (MindSpore's names and parameters) -----------------------------------
_INVERSE, _DET, _SLOGDET, _LOGDET, _LSTSQ = MatrixInverse(), Det(), Slogdet(), Logdet(), Lstsq()


def inverse(input):  # noqa: A002
    return _INVERSE(input)


def det(input):  # noqa: A002
    return _DET(input)


def slogdet(input):  # noqa: A002
    return _SLOGDET(input)


def logdet(input):  # noqa: A002
    return _LOGDET(input)


def matrix_solve(matrix, rhs, adjoint=False):
    return MatrixSolve(adjoint)(matrix, rhs)


def cholesky_solve(input, input2, upper=False):  # noqa: A002
    return CholeskySolve(upper)(input, input2)


def cholesky_inverse(input_x, upper=False):
    return CholeskyInverse(upper)(input_x)


def pinv(x, *, atol=None, rtol=None, hermitian=False):
    return Pinv(None if atol is None else float(atol), None if rtol is None else float(rtol),
                hermitian)(x)


def lstsq(input, A):  # noqa: A002, N803
    return _LSTSQ(input, A)


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):  # noqa: N803
    p, lower, upper = LuUnpack()(LU_data, LU_pivots)
    return (p if unpack_pivots else None,
            lower if unpack_data else None, upper if unpack_data else None)


def lu_solve(b, LU_data, LU_pivots):  # noqa: N803
    return LuSolve()(b, LU_data, LU_pivots)

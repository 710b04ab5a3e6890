"""Matrix decompositions: ``cholesky``, ``qr``, ``svd``, ``eig``/``eigvals``, ``geqrf`` and
``orgqr`` (Householder form), and the norms built on singular values (``matrix_norm``'s
``'nuc'``, 2, -2).

Contracts (MindSpore 2.10 on CPU; kernels are LAPACK through NumPy, in float64, rounded):

- float32/float64 (batches of) matrices in the last two axes; results keep the dtype.
- ``cholesky(A, upper)``: the lower factor ``L`` (``upper``: ``L^T``) of a symmetric positive
  definite ``A`` (its lower triangle is read, as LAPACK's), a ``ValueError`` naming the op
  otherwise. Gradient: with respect to that lower triangle (zero above the diagonal);
  MindSpore 2.10 has none on CPU.
- ``qr(A, mode)``: ``'reduced'`` or ``'complete'``; LAPACK's signs (``R``'s diagonal as
  Householder gives it). No gradient (MindSpore has none).
- ``svd(A, full_matrices, compute_uv)`` returns ``(s, u, v)`` with ``A = u diag(s) v^T``
  (``v``, not ``v^T``), ``s`` descending; only ``s`` with ``compute_uv=False``. The singular
  vectors' signs are LAPACK's (MindSpore's CPU kernel picks others: compare what they
  determine). Gradient: the reduced SVD's adjoint (Townsend's formula; distinct singular
  values).
- ``eig(A)`` gives complex eigenvalues and unit eigenvectors, ``eigvals`` the values (order
  and vectors' phases are LAPACK's); complex results run interpreted in graph mode (as
  :mod:`.complex_ops`). No gradient.
- ``geqrf(A)`` gives LAPACK's packed ``(h, tau)``; ``orgqr(h, tau)`` the ``m x n`` matrix of
  the first ``n`` columns of ``H_1 ... H_k``. No gradient.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..primitive import Primitive, Spec
from .host_grad import host_grads, rule
from .linalg_solve import _t, matrices


class Cholesky(Primitive):
    def __init__(self, upper: bool = False) -> None:
        super().__init__(upper=bool(upper))

    def infer(self, x: Any) -> Spec:
        return Spec(matrices("cholesky", x), x.dtype)

    def kernel(self, x):
        try:
            lower = np.linalg.cholesky(x.astype(np.float64))
        except np.linalg.LinAlgError:
            raise ValueError("cholesky: the input must be symmetric positive definite") from None
        return (_t(lower) if self.upper else lower).astype(x.dtype)

    def bprop(self, x, *, out, dout, needs):
        return host_grads("cholesky", (out, dout), (x,), needs, upper=self.upper)


@rule("cholesky")
def _cholesky_grad(factor, g, upper):
    lower, g = (_t(factor), _t(g)) if upper else (factor, g)
    phi = np.tril(_t(lower) @ g)
    phi[..., np.arange(phi.shape[-1]), np.arange(phi.shape[-1])] *= 0.5
    inv = np.linalg.inv(lower)
    s = _t(inv) @ phi @ inv
    sym = 0.5 * (s + _t(s))
    # the kernel reads A's lower triangle (LAPACK's): an entry below the diagonal stands for
    # both of its symmetric places
    return (np.tril(2.0 * sym) - sym * np.eye(sym.shape[-1]),)


class Qr(Primitive):
    num_outputs = 2
    differentiable = False

    def __init__(self, mode: str = "reduced") -> None:
        if mode not in ("reduced", "complete"):
            raise TypeError(f"qr: mode must be 'reduced' or 'complete', got {mode!r}")  # MindSpore's kind
        super().__init__(mode=mode)

    def infer(self, x: Any) -> tuple[Spec, Spec]:
        shape = matrices("qr", x, square=False)
        m, n = shape[-2:]
        k = m if self.mode == "complete" else min(m, n)
        return Spec(shape[:-2] + (m, k), x.dtype), Spec(shape[:-2] + (k, n), x.dtype)

    def kernel(self, x):
        q, r = np.linalg.qr(x.astype(np.float64), mode=self.mode)
        return q.astype(x.dtype), r.astype(x.dtype)


class Svd(Primitive):
    """``Svd(full_matrices)(x) -> (s, u, v)``."""

    num_outputs = 3

    def __init__(self, full_matrices: bool = False) -> None:
        super().__init__(full_matrices=bool(full_matrices))

    def infer(self, x: Any) -> tuple[Spec, Spec, Spec]:
        shape = matrices("svd", x, square=False)
        m, n = shape[-2:]
        k = min(m, n)
        mu, nv = (m, n) if self.full_matrices else (k, k)
        batch = shape[:-2]
        return Spec(batch + (k,), x.dtype), Spec(batch + (m, mu), x.dtype), Spec(batch + (n, nv), x.dtype)

    def kernel(self, x):
        u, s, vh = np.linalg.svd(x.astype(np.float64), full_matrices=self.full_matrices)
        return s.astype(x.dtype), u.astype(x.dtype), _t(vh).astype(x.dtype)

    def bprop(self, x, *, out, dout, needs):
        if self.full_matrices:  # the extra columns are not determined: no gradient through them
            raise ValueError("svd: the gradient needs full_matrices=False")
        return host_grads("svd", (x, *out, *dout), (x,), needs)


@rule("svd")
def _svd_grad(a, s, u, v, gs, gu, gv):
    k = s.shape[-1]
    s2 = s[..., None, :] ** 2 - s[..., :, None] ** 2  # s_j^2 - s_i^2
    off = ~np.eye(k, dtype=bool)
    f = np.where(off, 1.0 / np.where(off, s2, 1.0), 0.0)
    ut_gu, vt_gv = _t(u) @ gu, _t(v) @ gv
    j = f * (ut_gu - _t(ut_gu))
    kk = f * (vt_gv - _t(vt_gv))
    diag_s = s[..., :, None] * np.eye(k)
    inner = j @ diag_s + gs[..., :, None] * np.eye(k) + diag_s @ kk
    grad = u @ inner @ _t(v)
    inv_s = 1.0 / s[..., None, :]
    m, n = a.shape[-2:]
    if m > k:
        grad = grad + (np.eye(m) - u @ _t(u)) @ (gu * inv_s) @ _t(v)
    if n > k:
        grad = grad + u @ _t(gv * inv_s) @ (np.eye(n) - v @ _t(v))
    return (grad,)


class SingularValues(Primitive):
    """``svd(x, compute_uv=False)``: ``s`` alone, its gradient ``u diag(ds) v^T``."""

    def infer(self, x: Any) -> Spec:
        shape = matrices("svd", x, square=False)
        return Spec(shape[:-2] + (min(shape[-2:]),), x.dtype)

    def kernel(self, x):
        return np.linalg.svd(x.astype(np.float64), compute_uv=False).astype(x.dtype)

    def bprop(self, x, *, out, dout, needs):
        return host_grads("singular_values", (x, dout), (x,), needs)


@rule("singular_values")
def _singular_values_grad(a, gs):
    u, _, vh = np.linalg.svd(a, full_matrices=False)
    return ((u * gs[..., None, :]) @ vh,)


class Eig(Primitive, abstract=True):
    num_outputs = 2
    differentiable = False

    def infer(self, x: Any) -> tuple[Spec, Spec]:
        shape = matrices("eig", x)
        dtype = np.dtype(np.complex128 if np.dtype(x.dtype) == np.float64 else np.complex64)
        return Spec(shape[:-1], dtype), Spec(shape, dtype)

    def kernel(self, x):
        w, v = np.linalg.eig(x.astype(np.float64))
        dtype = np.dtype(np.complex128 if x.dtype == np.float64 else np.complex64)
        return w.astype(dtype), v.astype(dtype)


class Eigvals(Eig, abstract=True):
    num_outputs = 1

    def infer(self, x: Any) -> Spec:
        return Eig.infer(self, x)[0]

    def kernel(self, x):
        return Eig.kernel(self, x)[0]


class Geqrf(Primitive):
    num_outputs = 2
    differentiable = False

    def infer(self, x: Any) -> tuple[Spec, Spec]:
        shape = matrices("geqrf", x, square=False)
        return Spec(shape, x.dtype), Spec(shape[:-2] + (min(shape[-2:]),), x.dtype)

    def kernel(self, x):
        a = x.astype(np.float64)
        flat = a.reshape((-1,) + a.shape[-2:])
        hs, taus = zip(*(np.linalg.qr(m, mode="raw") for m in flat)) if len(flat) else ((), ())
        h = np.stack([_t(v) for v in hs]).reshape(a.shape) if hs else a
        tau = np.stack(taus).reshape(a.shape[:-2] + (min(a.shape[-2:]),)) if taus else \
            np.zeros(a.shape[:-2] + (min(a.shape[-2:]),))
        return h.astype(x.dtype), tau.astype(x.dtype)


class Orgqr(Primitive):
    differentiable = False

    def infer(self, h: Any, tau: Any) -> Spec:
        shape = matrices("orgqr", h, square=False)
        if tuple(tau.shape)[:-1] != shape[:-2] or tau.shape[-1] > shape[-1] or tau.dtype != h.dtype \
                or shape[-2] < shape[-1]:
            raise ValueError(f"orgqr: input {tuple(shape)} (m >= n) and input2 {tuple(tau.shape)} "
                             "(k <= n reflectors) of one dtype are needed")
        return Spec(shape, h.dtype)

    def kernel(self, h, tau):
        a, t = h.astype(np.float64), tau.astype(np.float64)
        m, n = a.shape[-2:]
        q = np.broadcast_to(np.eye(m, n), a.shape).copy()
        for i in reversed(range(t.shape[-1])):  # Q = H_1 ... H_k applied to the first n columns
            v = a[..., :, i].copy()
            v[..., :i] = 0.0
            v[..., i] = 1.0
            q = q - t[..., i, None, None] * v[..., :, None] * (v[..., None, :] @ q)
        return q.astype(h.dtype)


# -- functional forms ----------------------------------------------------------------------
_EIG, _EIGVALS, _GEQRF, _ORGQR, _SINGULAR = Eig(), Eigvals(), Geqrf(), Orgqr(), SingularValues()


def cholesky(input_x, upper=False):
    return Cholesky(upper)(input_x)


def qr(input, mode="reduced"):  # noqa: A002
    return Qr(mode)(input)


def svd(input, full_matrices=False, compute_uv=True):  # noqa: A002
    if not compute_uv:
        return _SINGULAR(input)
    return Svd(full_matrices)(input)


def eig(A):  # noqa: N803
    return _EIG(A)


def eigvals(A):  # noqa: N803
    return _EIGVALS(A)


def geqrf(input):  # noqa: A002
    return _GEQRF(input)


def orgqr(input, input2):  # noqa: A002
    return _ORGQR(input, input2)


def singular_values(x):
    return _SINGULAR(x)

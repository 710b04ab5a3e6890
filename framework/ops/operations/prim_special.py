"""Special-function and linear-algebra primitive classes (``P.Lgamma()``, ``P.BesselI0()``,
``P.Cholesky(upper)``, ``P.Svd(full_matrices, compute_uv)`` ...) over the functional ops:
attributes in the constructor, tensors in the call, in MindSpore 2.10's argument order. No
class holds a rule of its own: graph, gradient and kernels are those of the functions each
one applies (``framework/ops/special_math.py``, ``bessel.py``, ``linalg_*.py``).

Contracts (``P.X(attrs)(tensors)``):

- ``BesselI0()(x)`` ... ``BesselY1()(x)``, ``Digamma()(x)``, ``Lgamma()(x)``: element-wise;
  ``Igamma()(a, x)``, ``Igammac()(a, x)``, ``Zeta()(x, q)``, ``Polygamma()(n, x)`` (``n`` a
  0-d integer tensor), ``Mvlgamma(p)(x)``, ``Betainc()(a, b, x)`` (``I_x(a, b)``, one shape);
- ``Cholesky(upper=False)(x)``, ``CholeskyInverse(upper=False)(factor)``,
  ``CholeskySolve(upper=False)(b, factor)``;
- ``MatrixDeterminant()(x)``; ``LogMatrixDeterminant()(x)``: ``(sign, log|det|)``;
  ``MatrixSolve(adjoint=False)(matrix, rhs)``: ``matrix^H x = rhs`` with ``adjoint``;
- ``Svd(full_matrices=False, compute_uv=True)(x)``: ``(s, u, v)``; without ``compute_uv``
  ``u`` and ``v`` are the one-element zeros MindSpore gives;
- ``Eig(compute_v=False)(x)``: ``(values, vectors)``, complex; without ``compute_v`` the
  vectors are a 0-d zero, as MindSpore's;
- ``LuUnpack(unpack_data=True, unpack_pivots=True)(lu, pivots)``: ``(P, L, U)``;
  ``LuSolve()(b, lu, pivots)``; ``Orgqr()(x, tau)``.
"""

from __future__ import annotations

from typing import Any

from .. import functional as ops
from .._class_form import REQUIRED, class_form


def _unary(name: str) -> Any:
    return lambda x: getattr(ops, name)(x)


def _polygamma(n: Any, x: Any) -> Any:
    return ops.polygamma(n, x)


def _mvlgamma(x: Any, *, p: int) -> Any:
    return ops.mvlgamma(x, p)


def _cholesky(x: Any, *, upper: bool) -> Any:
    return ops.cholesky(x, upper)


def _cholesky_inverse(x: Any, *, upper: bool) -> Any:
    return ops.cholesky_inverse(x, upper)


def _cholesky_solve(b: Any, factor: Any, *, upper: bool) -> Any:
    return ops.cholesky_solve(b, factor, upper)


def _matrix_solve(matrix: Any, rhs: Any, *, adjoint: bool) -> Any:
    return ops.matrix_solve(matrix, rhs, adjoint)


def _svd(x: Any, *, full_matrices: bool, compute_uv: bool) -> Any:
    if compute_uv:
        return ops.svd(x, full_matrices, True)
    s = ops.svd(x, full_matrices, False)
    empty = ops.zeros((1,), s.dtype)
    return s, empty, empty


def _eig(x: Any, *, compute_v: bool) -> Any:
    values, vectors = ops.eig(x)
    return (values, vectors) if compute_v else (values, ops.zeros((), values.dtype))


def _lu_unpack(lu: Any, pivots: Any, *, unpack_data: bool, unpack_pivots: bool) -> Any:
    return ops.lu_unpack(lu, pivots, unpack_data, unpack_pivots)


BesselI0 = class_form("BesselI0", _unary("bessel_i0"))
BesselI0e = class_form("BesselI0e", _unary("bessel_i0e"))
BesselI1 = class_form("BesselI1", _unary("bessel_i1"))
BesselI1e = class_form("BesselI1e", _unary("bessel_i1e"))
BesselJ0 = class_form("BesselJ0", _unary("bessel_j0"))
BesselJ1 = class_form("BesselJ1", _unary("bessel_j1"))
BesselK0 = class_form("BesselK0", _unary("bessel_k0"))
BesselK0e = class_form("BesselK0e", _unary("bessel_k0e"))
BesselK1 = class_form("BesselK1", _unary("bessel_k1"))
BesselK1e = class_form("BesselK1e", _unary("bessel_k1e"))
BesselY0 = class_form("BesselY0", _unary("bessel_y0"))
BesselY1 = class_form("BesselY1", _unary("bessel_y1"))
Digamma = class_form("Digamma", _unary("digamma"))
Lgamma = class_form("Lgamma", _unary("lgamma"))
MatrixDeterminant = class_form("MatrixDeterminant", _unary("det"))
LogMatrixDeterminant = class_form("LogMatrixDeterminant", _unary("slogdet"))
Igamma = class_form("Igamma", lambda a, x: ops.igamma(a, x))
Igammac = class_form("Igammac", lambda a, x: ops.igammac(a, x))
Zeta = class_form("Zeta", lambda x, q: ops.zeta(x, q))
Polygamma = class_form("Polygamma", _polygamma)
Mvlgamma = class_form("Mvlgamma", _mvlgamma, p=REQUIRED)
Cholesky = class_form("Cholesky", _cholesky, upper=False)
CholeskyInverse = class_form("CholeskyInverse", _cholesky_inverse, upper=False)
CholeskySolve = class_form("CholeskySolve", _cholesky_solve, upper=False)
MatrixSolve = class_form("MatrixSolve", _matrix_solve, adjoint=False)
Svd = class_form("Svd", _svd, full_matrices=False, compute_uv=True)
Eig = class_form("Eig", _eig, compute_v=False)
LuUnpack = class_form("LuUnpack", _lu_unpack, unpack_data=True, unpack_pivots=True)
LuSolve = class_form("LuSolve", lambda b, lu, pivots: ops.lu_solve(b, lu, pivots))
Orgqr = class_form("Orgqr", lambda x, tau: ops.orgqr(x, tau))


def _betainc(a: Any, b: Any, x: Any) -> Any:
    from ..special_math import betainc  # MindSpore's ops has no functional form of it

    return betainc(a, b, x)


Betainc = class_form("Betainc", _betainc)

__all__ = [
    "BesselI0", "BesselI0e", "BesselI1", "BesselI1e", "BesselJ0", "BesselJ1", "BesselK0",
    "BesselK0e", "BesselK1", "BesselK1e", "BesselY0", "BesselY1", "Digamma", "Lgamma",
    "MatrixDeterminant", "LogMatrixDeterminant", "Igamma", "Igammac", "Zeta", "Polygamma",
    "Mvlgamma", "Cholesky", "CholeskyInverse", "CholeskySolve", "MatrixSolve", "Svd", "Eig",
    "LuUnpack", "LuSolve", "Orgqr", "Betainc",
]

"""Special functions: ``lgamma``, ``digamma``, ``polygamma``, ``mvlgamma``, ``erfinv``, the
incomplete gamma functions ``igamma``/``igammac``, Hurwitz's ``zeta`` and the regularized
incomplete beta function ``betainc`` (the Bessel
functions, on the same base, are in :mod:`.bessel`).

Contracts:

- Kernels evaluate SciPy's ``special`` functions (Cephes, already a dependency for ``erf``)
  in float64 and round to the input's float dtype, so float16/float32 results are the
  correctly rounded values (MindSpore's single-precision kernels agree to ~1e-5 relative).
- Float inputs keep their dtype; ``lgamma`` also takes integers (float32 result, as
  MindSpore's); the other ops refuse a non-float input with a ``TypeError``.
- Binary ops (``igamma``, ``igammac``, ``zeta``) broadcast and need one float dtype.
- Where MindSpore's CPU kernels choose a value outside the functions' domain, ours choose
  the same: ``lgamma(-inf)`` is ``inf``; ``igamma``/``igammac`` of ``a = 0`` are ``nan``;
  ``polygamma(n >= 1, +inf)`` is ``nan``.
- Gradients are MindSpore's: the derivative in closed form where one exists
  (``d lgamma = digamma``, ``d erfinv = sqrt(pi)/2 exp(erfinv^2)``,
  ``d/dq zeta(x, q) = -x zeta(x + 1, q)``, ``d/dx P(a, x) = x^(a-1) e^-x / Gamma(a)``);
  ``d/da P(a, x)`` by a float64 central difference (no closed form); none for ``zeta``'s
  ``x`` (MindSpore's is zero) or ``polygamma``'s order.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import special

from .. import dtype as mstype
from ..common.tensor import Tensor
from ..primitive import Primitive, Spec
from ._utils import broadcast_shape
from .elementwise import add, cast, exp, log, mul, neg, sub, sum_to
from .shape_ops import zeros_like


def _float_spec(op: str, x: Any, ints_to_float32: bool = False) -> Spec:
    if mstype.is_float(x.dtype):
        return Spec(tuple(x.shape), x.dtype)
    if ints_to_float32 and mstype.kind(x.dtype) in "iub":
        return Spec(tuple(x.shape), np.dtype(np.float32))
    raise TypeError(f"{op}: needs a floating-point input (float16, float32, float64), got {x.dtype}")


class _Special(Primitive, abstract=True):
    """Unary: ``fn`` maps float64 to float64; ``fix`` adjusts values outside the domain."""

    fn: Any = None
    ints_to_float32 = False

    def infer(self, x: Any) -> Spec:
        return _float_spec(type(self).__name__, x, self.ints_to_float32)

    def fix(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return y

    def kernel(self, x):
        dtype = self.infer(x).dtype
        x64 = x.astype(np.float64)
        with np.errstate(all="ignore"):
            y = self.fix(x64, np.asarray(type(self).fn(x64), np.float64))
        return y.astype(dtype)


class Lgamma(_Special):
    fn = special.gammaln
    ints_to_float32 = True

    def fix(self, x, y):
        return np.where(x == -np.inf, np.inf, y)

    def bprop(self, x, *, out, dout, needs):
        return (mul(dout, digamma(_as_float(x, out))),)


class Digamma(_Special):
    fn = special.psi

    def bprop(self, x, *, out, dout, needs):
        return (mul(dout, _POLYGAMMA(np.array(1, np.int64), x)),)


class Erfinv(_Special):
    fn = special.erfinv

    def bprop(self, x, *, out, dout, needs):
        return (mul(dout, mul(exp(mul(out, out)), math.sqrt(math.pi) / 2)),)


class Polygamma(Primitive):
    """``Polygamma()(n, x)``: the n-th derivative of digamma; ``n`` a 0-d integer tensor."""

    def infer(self, n: Any, x: Any) -> Spec:
        if tuple(n.shape) != () or mstype.kind(n.dtype) not in "iu":
            raise ValueError(f"polygamma: n must be a 0-d integer tensor, got shape {tuple(n.shape)} "
                             f"dtype {n.dtype}")
        return _float_spec("polygamma", x)

    def kernel(self, n, x):
        order = int(n)
        if order < 0:
            raise ValueError(f"polygamma: n must be non-negative, got {order}")
        x64 = x.astype(np.float64)
        with np.errstate(all="ignore"):
            y = special.psi(x64) if order == 0 else special.polygamma(order, x64)
            if order >= 1:
                y = np.where(x64 == np.inf, np.nan, y)
        return np.asarray(y).astype(x.dtype)

    def bprop(self, n, x, *, out, dout, needs):
        return None, mul(dout, _POLYGAMMA(add(cast(n, np.int64), 1), x))


class Mvlgamma(Primitive):
    """``Mvlgamma(p)(x)``: the multivariate log-gamma, ``sum_i lgamma(x - i/2)`` plus
    ``p (p - 1)/4 log(pi)``; every element must exceed ``(p - 1)/2``."""

    def __init__(self, p: int) -> None:
        if not isinstance(p, int) or isinstance(p, bool) or p < 1:
            raise ValueError(f"mvlgamma: p must be an int >= 1, got {p!r}")
        super().__init__(p=p)

    def infer(self, x: Any) -> Spec:
        return _float_spec("mvlgamma", x)

    def kernel(self, x):
        x64 = x.astype(np.float64)
        if np.any(~(x64 > (self.p - 1) / 2)):
            raise ValueError(f"mvlgamma: every element of the input must be greater than (p - 1)/2 = "
                             f"{(self.p - 1) / 2}")
        y = sum(special.gammaln(x64 - i / 2) for i in range(self.p))
        return (y + self.p * (self.p - 1) / 4 * math.log(math.pi)).astype(x.dtype)

    def bprop(self, x, *, out, dout, needs):
        total = digamma(x)
        for i in range(1, self.p):
            total = add(total, digamma(sub(x, i / 2)))
        return (mul(dout, total),)


class _Binary(Primitive, abstract=True):
    def infer(self, a: Any, x: Any) -> Spec:
        name = type(self).__name__
        _float_spec(name, a)
        _float_spec(name, x)
        if a.dtype != x.dtype:
            raise TypeError(f"{name}: both inputs need one dtype, got {a.dtype} and {x.dtype}")
        return Spec(broadcast_shape(tuple(a.shape), tuple(x.shape)), a.dtype)

    def kernel(self, a, x):
        with np.errstate(all="ignore"):
            y = self.fn64(a.astype(np.float64), x.astype(np.float64))
        return np.asarray(y).astype(a.dtype)


def _gammainc(a, x):
    return np.where(a == 0, np.nan, special.gammainc(a, x))


def _gammaincc(a, x):
    return np.where(a == 0, np.nan, special.gammaincc(a, x))


class Igamma(_Binary):
    """``P(a, x)``, the regularized lower incomplete gamma function."""

    sign = 1.0

    def fn64(self, a, x):
        return _gammainc(a, x)

    def bprop(self, a, x, *, out, dout, needs):
        d = mul(dout, self.sign)
        da = sum_to(mul(d, _IGAMMA_GRAD_A(a, x)), a.shape) if needs[0] else None
        dx = None
        if needs[1]:  # x^(a-1) e^-x / Gamma(a)
            density = exp(sub(sub(mul(sub(a, 1.0), log(x)), x), lgamma(a)))
            dx = sum_to(mul(d, density), x.shape)
        return da, dx


class Igammac(Igamma):
    """``Q(a, x) = 1 - P(a, x)``."""

    sign = -1.0

    def fn64(self, a, x):
        return _gammaincc(a, x)


class IgammaGradA(_Binary):
    """``d/da P(a, x)``: a float64 central difference (relative step 1e-5: truncation and
    rounding errors both near 1e-10, far below float32's)."""

    differentiable = False
    first_order_only = True

    def fn64(self, a, x):
        h = 1e-5 * np.maximum(np.abs(a), 1.0)
        return (_gammainc(a + h, x) - _gammainc(a - h, x)) / (2 * h)


class Zeta(_Binary):
    """Hurwitz's ``zeta(x, q) = sum_k (k + q)^-x``."""

    def fn64(self, x, q):
        return special.zeta(x, q)

    def bprop(self, x, q, *, out, dout, needs):
        dx = zeros_like(x) if needs[0] else None
        dq = sum_to(neg(mul(dout, mul(x, zeta(add(x, 1.0), q)))), q.shape) if needs[1] else None
        return dx, dq


class Betainc(Primitive):
    """``I_x(a, b)``, the regularized incomplete beta function (``P.Betainc()(a, b, x)``):
    ``a``, ``b``, ``x`` of one shape and float dtype; ``x`` outside [0, 1] gives nan.
    Its gradient is MindSpore's: ``x^(a-1) (1-x)^(b-1) / B(a, b)`` for ``x``, zero for ``a``
    and ``b``."""

    def infer(self, a: Any, b: Any, x: Any) -> Spec:
        for t in (a, b, x):
            _float_spec("betainc", t)
        if not tuple(a.shape) == tuple(b.shape) == tuple(x.shape) or not a.dtype == b.dtype == x.dtype:
            raise ValueError(f"betainc: a, b and x need one shape and dtype, got {tuple(a.shape)} "
                             f"{a.dtype}, {tuple(b.shape)} {b.dtype}, {tuple(x.shape)} {x.dtype}")
        return Spec(tuple(a.shape), a.dtype)

    def kernel(self, a, b, x):
        with np.errstate(all="ignore"):
            y = special.betainc(a.astype(np.float64), b.astype(np.float64), x.astype(np.float64))
        return np.asarray(y).astype(a.dtype)

    def bprop(self, a, b, x, *, out, dout, needs):
        dx = None
        if needs[2]:  # exp((a-1) log x + (b-1) log(1-x) - log B(a, b))
            log_beta = sub(add(lgamma(a), lgamma(b)), lgamma(add(a, b)))
            log_density = add(mul(sub(a, 1.0), log(x)), mul(sub(b, 1.0), log(sub(1.0, x))))
            dx = mul(dout, exp(sub(log_density, log_beta)))
        return (zeros_like(a) if needs[0] else None, zeros_like(b) if needs[1] else None, dx)


def _as_float(x: Any, out: Any) -> Any:
    """``x`` in ``out``'s float dtype (an integer input of ``lgamma``)."""
    return x if x.dtype == out.dtype else cast(x, out.dtype)


# -- functional forms (MindSpore's names and parameters) -----------------------------------
_LGAMMA, _DIGAMMA, _ERFINV, _POLYGAMMA = Lgamma(), Digamma(), Erfinv(), Polygamma()
_IGAMMA, _IGAMMAC, _IGAMMA_GRAD_A, _ZETA = Igamma(), Igammac(), IgammaGradA(), Zeta()
_BETAINC = Betainc()


def lgamma(input):  # noqa: A002  (MindSpore's parameter names)
    return _LGAMMA(input)


def digamma(input):  # noqa: A002
    return _DIGAMMA(input)


def erfinv(input):  # noqa: A002
    return _ERFINV(input)


def polygamma(n, input):  # noqa: A002
    """``n``: a 0-d integer tensor (or a Python int)."""
    if isinstance(n, int) and not isinstance(n, bool):
        n = Tensor(np.array(n, np.int64))
    return _POLYGAMMA(n, input)


def mvlgamma(input, p):  # noqa: A002
    return Mvlgamma(p)(input)


def igamma(input, other):  # noqa: A002
    return _IGAMMA(input, other)


def igammac(input, other):  # noqa: A002
    return _IGAMMAC(input, other)


def zeta(input, other):  # noqa: A002
    return _ZETA(input, other)


def betainc(a, b, x):
    """``I_x(a, b)`` (MindSpore has it as ``P.Betainc`` only)."""
    return _BETAINC(a, b, x)

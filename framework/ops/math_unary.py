"""Unary math primitives beyond :mod:`.elementwise`: inverse and hyperbolic trigonometry,
``expm1``/``log1p``/``erfc``, ``reciprocal``/``rsqrt``/``square``, rounding, sign, the
``isnan`` family and the logical/bitwise negations.

Contracts (each class: shape rule, NumPy kernel, bprop; lowerings in
``backend/tvm/lower/lowerings/math_functions.py``):

- float ops (``_FloatUnary``) take a float tensor and give its dtype (an integer input is
  a ``TypeError``, as MindSpore's CPU kernels refuse most of them);
- ``Square``/``Sign`` keep any numeric dtype; ``Floor``/``Ceil``/``Round``/``Trunc`` take
  floats and have a zero gradient (piecewise constant, as MindSpore's bprops);
- ``Round`` rounds half to even (NumPy's and MindSpore's CPU rule);
- ``IsNan``/``IsInf``/``IsFinite`` give bool (integers: never nan/inf), no gradient;
- ``LogicalNot`` takes bool, ``Invert`` integers (``~x``); no gradient.

Gradients are MindSpore's formulas, written with framework ops so they run in both modes.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import special

from .. import dtype as mstype
from ..primitive import Primitive, Spec
from ._utils import float_dtype
from .elementwise import add, cos, div, exp, mul, neg, sqrt, sub
from .shape_ops import zeros_like


class _FloatUnary(Primitive, abstract=True):
    """``fn`` is the NumPy ufunc; the output keeps the float input's dtype."""

    fn: Any = None

    def infer(self, x: Any) -> Spec:
        return Spec(tuple(x.shape), float_dtype(x.dtype))

    def kernel(self, x):
        with np.errstate(all="ignore"):  # out of the domain: nan/inf, as IEEE says
            return np.asarray(type(self).fn(x)).astype(x.dtype, copy=False)


class _Piecewise(_FloatUnary, abstract=True):
    """Piecewise-constant float op: zero gradient."""

    def bprop(self, x, *, out, dout, needs):
        return (zeros_like(x),)


class ACos(_FloatUnary):
    fn = np.arccos

    def bprop(self, x, *, out, dout, needs):
        return (neg(div(dout, sqrt(sub(1.0, mul(x, x))))),)


class Asin(_FloatUnary):
    fn = np.arcsin

    def bprop(self, x, *, out, dout, needs):
        return (div(dout, sqrt(sub(1.0, mul(x, x)))),)


class Atan(_FloatUnary):
    fn = np.arctan

    def bprop(self, x, *, out, dout, needs):
        return (div(dout, add(mul(x, x), 1.0)),)


class Acosh(_FloatUnary):
    fn = np.arccosh

    def bprop(self, x, *, out, dout, needs):
        return (div(dout, sinh(out)),)


class Asinh(_FloatUnary):
    fn = np.arcsinh

    def bprop(self, x, *, out, dout, needs):
        return (div(dout, cosh(out)),)


class Atanh(_FloatUnary):
    fn = np.arctanh

    def bprop(self, x, *, out, dout, needs):
        return (div(dout, sub(1.0, mul(x, x))),)


class Cosh(_FloatUnary):
    fn = np.cosh

    def bprop(self, x, *, out, dout, needs):
        return (mul(dout, sinh(x)),)


class Sinh(_FloatUnary):
    fn = np.sinh

    def bprop(self, x, *, out, dout, needs):
        return (mul(dout, cosh(x)),)


class Tan(_FloatUnary):
    fn = np.tan

    def bprop(self, x, *, out, dout, needs):
        return (div(dout, mul(cos(x), cos(x))),)


class Expm1(_FloatUnary):
    fn = np.expm1

    def bprop(self, x, *, out, dout, needs):
        return (mul(dout, exp(x)),)


class Log1p(_FloatUnary):
    fn = np.log1p

    def bprop(self, x, *, out, dout, needs):
        return (div(dout, add(x, 1.0)),)


class Erfc(_FloatUnary):
    """``1 - erf(x)``, without the cancellation for large ``x`` (SciPy's, in float64)."""

    def kernel(self, x):
        return special.erfc(np.asarray(x, np.float64)).astype(x.dtype)

    def bprop(self, x, *, out, dout, needs):
        return (mul(dout, mul(exp(neg(mul(x, x))), -2.0 / math.sqrt(math.pi))),)


class Reciprocal(_FloatUnary):
    fn = np.reciprocal

    def bprop(self, x, *, out, dout, needs):
        return (neg(mul(dout, mul(out, out))),)


class Rsqrt(_FloatUnary):
    def kernel(self, x):
        with np.errstate(all="ignore"):
            return (1 / np.sqrt(x)).astype(x.dtype, copy=False)

    def bprop(self, x, *, out, dout, needs):
        return (mul(dout, mul(mul(out, mul(out, out)), -0.5)),)


class Floor(_Piecewise):
    fn = np.floor


class Ceil(_Piecewise):
    fn = np.ceil


class Round(_Piecewise):
    fn = np.rint  # half to even


class Trunc(_Piecewise):
    fn = np.trunc


class _Numeric(Primitive, abstract=True):
    """Any numeric dtype in, the same dtype out."""

    def infer(self, x: Any) -> Spec:
        if mstype.kind(x.dtype) not in "fiu":
            raise TypeError(f"needs a numeric input, got {x.dtype}")
        return Spec(tuple(x.shape), x.dtype)


class Square(_Numeric):
    def kernel(self, x):
        return np.square(x)

    def bprop(self, x, *, out, dout, needs):
        return (mul(dout, mul(x, 2)),)


class Sign(_Numeric):
    def kernel(self, x):
        return np.sign(x)

    def bprop(self, x, *, out, dout, needs):
        return (zeros_like(x),)


class _Predicate(Primitive, abstract=True):
    """Elementwise test: bool out, no gradient."""

    differentiable = False
    fn: Any = None

    def infer(self, x: Any) -> Spec:
        return Spec(tuple(x.shape), np.dtype(np.bool_))

    def kernel(self, x):
        return type(self).fn(x)


class IsNan(_Predicate):
    fn = np.isnan


class IsInf(_Predicate):
    fn = np.isinf


class IsFinite(_Predicate):
    fn = np.isfinite


class LogicalNot(_Predicate):
    fn = np.logical_not

    def infer(self, x: Any) -> Spec:
        if np.dtype(x.dtype) != np.bool_:
            raise TypeError(f"needs a bool input, got {x.dtype}")
        return super().infer(x)


class Invert(Primitive):
    """``~x`` of an integer tensor."""

    differentiable = False

    def infer(self, x: Any) -> Spec:
        if mstype.kind(x.dtype) not in "iu":
            raise TypeError(f"needs an integer input, got {x.dtype}")
        return Spec(tuple(x.shape), x.dtype)

    def kernel(self, x):
        return np.invert(x)


# -- functional forms -----------------------------------------------------------------
_ACOS, _ASIN, _ATAN, _ACOSH, _ASINH, _ATANH = ACos(), Asin(), Atan(), Acosh(), Asinh(), Atanh()
_COSH, _SINH, _TAN, _EXPM1, _LOG1P, _ERFC = Cosh(), Sinh(), Tan(), Expm1(), Log1p(), Erfc()
_RECIPROCAL, _RSQRT, _SIGN = Reciprocal(), Rsqrt(), Sign()
_FLOOR, _CEIL, _ROUND, _TRUNC = Floor(), Ceil(), Round(), Trunc()
_ISNAN, _ISINF, _ISFINITE, _NOT, _INVERT = IsNan(), IsInf(), IsFinite(), LogicalNot(), Invert()


def acos(input):  # noqa: A002  (MindSpore's parameter name)
    return _ACOS(input)


def asin(input):  # noqa: A002
    return _ASIN(input)


def atan(input):  # noqa: A002
    return _ATAN(input)


def acosh(input):  # noqa: A002
    return _ACOSH(input)


def asinh(input):  # noqa: A002
    return _ASINH(input)


def atanh(input):  # noqa: A002
    return _ATANH(input)


def cosh(input):  # noqa: A002
    return _COSH(input)


def sinh(input):  # noqa: A002
    return _SINH(input)


def tan(input):  # noqa: A002
    return _TAN(input)


def expm1(input):  # noqa: A002
    return _EXPM1(input)


def log1p(input):  # noqa: A002
    return _LOG1P(input)


def erfc(input):  # noqa: A002
    return _ERFC(input)


def reciprocal(input):  # noqa: A002
    return _RECIPROCAL(input)


def rsqrt(input):  # noqa: A002
    return _RSQRT(input)


def sign(input):  # noqa: A002
    return _SIGN(input)


def floor(input):  # noqa: A002
    return _FLOOR(input)


def ceil(input):  # noqa: A002
    return _CEIL(input)


def round(input, *, decimals=0):  # noqa: A001, A002
    if decimals != 0:
        raise ValueError(f"round: only decimals=0 is supported, got {decimals}")
    return _ROUND(input)


def trunc(input):  # noqa: A002
    return _TRUNC(input)


def isnan(input):  # noqa: A002
    return _ISNAN(input)


def isinf(input):  # noqa: A002
    return _ISINF(input)


def isfinite(input):  # noqa: A002
    return _ISFINITE(input)


def logical_not(input):  # noqa: A002
    return _NOT(input)


def invert(input):  # noqa: A002
    return _INVERT(input)


arccos, arcsin, arctan, arccosh, arcsinh, arctanh = acos, asin, atan, acosh, asinh, atanh
Rint = Round

"""Binary primitives beyond :mod:`.elementwise`: ``Atan2`` and the logical and bitwise
and/or/xor (lowerings in ``backend/tvm/lower/lowerings/math_functions.py``).

Contracts (all broadcast like NumPy):

- ``Atan2()(y, x)``: ``atan(y / x)`` in the right quadrant, floats (MindSpore's
  promotion); gradient ``(x, -y) * dout / (x^2 + y^2)``, summed back to each shape;
- ``LogicalAnd/Or/Xor``: bool operands, bool out; the functional forms cast other
  dtypes to bool first (nonzero is True); no gradient;
- ``BitwiseAnd/Or/Xor``: integer or bool operands of one kind, NumPy's result dtype;
  no gradient.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtype as mstype
from ..common.tensor import Tensor
from ..primitive import Primitive, Spec
from ._utils import broadcast_shape, result_dtype
from .elementwise import add, cast, div, mul, neg, sum_to


class Atan2(Primitive):
    def infer(self, y: Any, x: Any) -> Spec:
        dtype = result_dtype(y.dtype, x.dtype)
        if not mstype.is_float(dtype):
            raise TypeError(f"needs floating-point inputs, got {y.dtype} and {x.dtype}")
        return Spec(broadcast_shape(y.shape, x.shape), dtype)

    def kernel(self, y, x):
        dtype = result_dtype(y.dtype, x.dtype)
        return np.arctan2(y, x).astype(dtype, copy=False)

    def bprop(self, y, x, *, out, dout, needs):
        scale = div(dout, add(mul(x, x), mul(y, y)))
        dy = sum_to(mul(scale, x), y.shape) if needs[0] else None
        dx = sum_to(neg(mul(scale, y)), x.shape) if needs[1] else None
        return dy, dx


class _Logical(Primitive, abstract=True):
    differentiable = False
    fn: Any = None

    def infer(self, x: Any, y: Any) -> Spec:
        if np.dtype(x.dtype) != np.bool_ or np.dtype(y.dtype) != np.bool_:
            raise TypeError(f"needs bool inputs, got {x.dtype} and {y.dtype}")
        return Spec(broadcast_shape(x.shape, y.shape), np.dtype(np.bool_))

    def kernel(self, x, y):
        return type(self).fn(x, y)


class LogicalAnd(_Logical):
    fn = np.logical_and


class LogicalOr(_Logical):
    fn = np.logical_or


class LogicalXor(_Logical):
    fn = np.logical_xor


class _Bitwise(Primitive, abstract=True):
    differentiable = False
    fn: Any = None

    def infer(self, x: Any, y: Any) -> Spec:
        if mstype.kind(x.dtype) not in "biu" or mstype.kind(y.dtype) not in "biu":
            raise TypeError(f"needs integer or bool inputs, got {x.dtype} and {y.dtype}")
        return Spec(broadcast_shape(x.shape, y.shape), np.result_type(x.dtype, y.dtype))

    def kernel(self, x, y):
        return type(self).fn(x, y).astype(np.result_type(x.dtype, y.dtype), copy=False)


class BitwiseAnd(_Bitwise):
    fn = np.bitwise_and


class BitwiseOr(_Bitwise):
    fn = np.bitwise_or


class BitwiseXor(_Bitwise):
    fn = np.bitwise_xor


# -- functional forms -----------------------------------------------------------------
_ATAN2, _AND, _OR, _XOR = Atan2(), LogicalAnd(), LogicalOr(), LogicalXor()
_BAND, _BOR, _BXOR = BitwiseAnd(), BitwiseOr(), BitwiseXor()


def _as_bool(x: Any) -> Any:
    if not isinstance(x, Tensor):
        return Tensor(np.asarray(x, np.bool_))
    return x if x.dtype == mstype.bool_ else cast(x, mstype.bool_)


def atan2(input, other):  # noqa: A002  (MindSpore's parameter names)
    return _ATAN2(input, other)


def logical_and(input, other):  # noqa: A002
    return _AND(_as_bool(input), _as_bool(other))


def logical_or(input, other):  # noqa: A002
    return _OR(_as_bool(input), _as_bool(other))


def logical_xor(input, other):  # noqa: A002
    return _XOR(_as_bool(input), _as_bool(other))


def bitwise_and(input, other):  # noqa: A002
    return _BAND(input, other)


def bitwise_or(input, other):  # noqa: A002
    return _BOR(input, other)


def bitwise_xor(input, other):  # noqa: A002
    return _BXOR(input, other)


arctan2 = atan2

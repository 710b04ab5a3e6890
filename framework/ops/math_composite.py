"""Math functions that are compositions of existing primitives (no rule of their own: they
trace to those primitives in graph mode and differentiate through their bprops).

Contracts:

- ``log2``/``log10``/``exp2``/``deg2rad``/``rad2deg``: float in, same dtype out (a
  constant factor, so within an ulp or two of a direct kernel);
- ``xlogy(x, y)``: ``x * log(y)``, 0 where ``x == 0`` (whatever ``y``); integer operands
  compute in float32;
- ``hypot``: ``sqrt(x^2 + y^2)`` (no rescaling: overflows past about 1.8e19 in float32);
- ``lerp(start, end, weight)``: ``start + weight * (end - start)``;
- ``logaddexp``/``logaddexp2``: ``m + log1p(b^-(|x - y|)) / log(b)`` with ``m = max(x, y)``
  (no overflow);
- ``fmod``: the remainder with the dividend's sign (floats ``x - trunc(x / y) * y``,
  integers from ``floor_mod`` of magnitudes); ``remainder`` is ``floor_mod`` (the divisor's);
- ``clamp``/``clip(input, min=None, max=None)``: ``min`` first, then ``max`` (so
  ``min > max`` gives ``max``); the gradient reaches ``input`` where
  ``min <= input <= max``;
- ``divide(input, other, rounding_mode=None)``: None true division, 'floor', 'trunc'.
"""

from __future__ import annotations

import math
from typing import Any

from .. import dtype as mstype
from ..common.tensor import Tensor
from ._class_form import class_form
from .elementwise import (
    abs,
    add,
    cast,
    div,
    equal,
    exp,
    floor_div,
    floor_mod,
    greater,
    less,
    log,
    maximum,
    mul,
    neg,
    select,
    sqrt,
    sub,
)
from .math_unary import log1p, trunc

LN2, LN10 = math.log(2.0), math.log(10.0)


def _is_tensor(x: Any) -> bool:
    return isinstance(x, Tensor)


def _float(x: Any) -> Any:
    return x if not _is_tensor(x) or mstype.is_float(x.dtype.np) else cast(x, mstype.float32)


def log2(input):  # noqa: A002  (MindSpore's parameter name)
    return mul(log(input), 1.0 / LN2)


def log10(input):  # noqa: A002
    return mul(log(input), 1.0 / LN10)


def exp2(input):  # noqa: A002
    return exp(mul(_float(input), LN2))


def deg2rad(x):
    return mul(x, math.pi / 180.0)


def rad2deg(x):
    return mul(x, 180.0 / math.pi)


def xlogy(input, other):  # noqa: A002
    x, y = _float(input), _float(other)
    zero = equal(x, 0.0)
    return select(zero, 0.0, mul(x, log(select(zero, 1.0, y))))


def hypot(input, other):  # noqa: A002
    return sqrt(add(mul(input, input), mul(other, other)))


def lerp(input, end, weight):  # noqa: A002
    return add(input, mul(weight, sub(end, input)))


def _logaddexp(x: Any, y: Any, base_log: float) -> Any:
    m = maximum(x, y)
    tail = log1p(exp(mul(abs(sub(x, y)), -base_log)))
    return add(m, tail if base_log == 1.0 else mul(tail, 1.0 / base_log))


def logaddexp(input, other):  # noqa: A002
    return _logaddexp(input, other, 1.0)


def logaddexp2(input, other):  # noqa: A002
    return _logaddexp(input, other, LN2)


def fmod(input, other):  # noqa: A002
    dividend = input if _is_tensor(input) else other
    if mstype.is_float(dividend.dtype.np) or not (_is_tensor(input) and _is_tensor(other)):
        if not mstype.is_float(dividend.dtype.np):
            input, other = _float(input), _float(other)
        return sub(input, mul(trunc(div(input, other)), other))
    magnitude = floor_mod(abs(input), abs(other))
    return select(less(input, 0), neg(magnitude), magnitude)


def remainder(input, other):  # noqa: A002
    return floor_mod(input, other)


def frac(input):  # noqa: A002
    return sub(input, trunc(input))


def true_divide(dividend, divisor):
    return div(dividend, divisor)


def divide(input, other, *, rounding_mode=None):  # noqa: A002
    if rounding_mode is None:
        return div(input, other)
    if rounding_mode == "floor":
        return floor_div(input, other)
    if rounding_mode == "trunc":
        if _is_tensor(input) and not mstype.is_float(input.dtype.np):
            out = fmod(input, other)  # integers: (x - fmod(x, y)) / y is exact
            return floor_div(sub(input, out), other)
        return trunc(div(input, other))
    raise ValueError(f"divide: rounding_mode must be None, 'floor' or 'trunc', got {rounding_mode!r}")


def floor_divide(input, other):  # noqa: A002
    return floor_div(input, other)


def subtract(input, other, *, alpha=1):  # noqa: A002
    return sub(input, other if alpha == 1 else mul(other, alpha))


def multiply(input, other):  # noqa: A002
    return mul(input, other)


def absolute(input):  # noqa: A002
    return abs(input)


def negative(input):  # noqa: A002
    return neg(input)


def positive(input):  # noqa: A002
    return input


def clamp(input, min=None, max=None):  # noqa: A001, A002  (MindSpore's names)
    if min is None and max is None:
        raise ValueError("clamp: min and max cannot both be None")
    out = input
    if min is not None:
        out = select(less(out, min), _bound(min, out), out)
    if max is not None:
        out = select(greater(out, max), _bound(max, out), out)
    return out


def _bound(value: Any, like: Any) -> Any:
    """A scalar bound in ``like``'s dtype (a tensor bound as it is: select promotes)."""
    if _is_tensor(value):
        return value
    if mstype.is_float(like.dtype.np) or isinstance(value, int):
        return value
    return float(value)


clip = clamp


def squared_difference(x, y):
    d = sub(x, y)
    return mul(d, d)


def div_no_nan(x, y):
    """``x / y``, 0 where ``y == 0``."""
    zero = equal(y, 0)
    return select(zero, 0.0, div(x, select(zero, 1, y)))


Xlogy = class_form("Xlogy", xlogy)
Hypot = class_form("Hypot", hypot)
Lerp = class_form("Lerp", lerp)
SquaredDifference = class_form("SquaredDifference", squared_difference)
DivNoNan = class_form("DivNoNan", div_no_nan)


def truncate_div(x, y):
    return divide(x, y, rounding_mode="trunc")


TruncateDiv = class_form("TruncateDiv", truncate_div)
TruncateMod = class_form("TruncateMod", fmod)

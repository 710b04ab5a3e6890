"""Elementwise and reduction functions (comparison aliases, sign tests, NaN
handling, closeness, mixed reductions): compositions of existing primitives, so both
modes and the gradients come from their rules.

Contracts (as MindSpore's of the same names):

- ``eq``/``ne``/``gt``/``ge``/``le``: the comparisons (bool out); ``all``/``any(input,
  axis=None, keep_dims=False)``: logical reductions;
- ``copysign(x, other)``: ``|x|`` with ``other``'s sign bit (``-0.0`` counts negative);
  ``signbit``: ``input < 0`` (MindSpore 2.10: False for ``-0.0``); ``sgn``: ``sign`` for
  real input; ``heaviside(input,
  values)``: 0 below 0, ``values`` at 0, 1 above; ``fmax``: the maximum ignoring a NaN;
- ``sinc``: ``sin(pi x) / (pi x)``, 1 at 0; ``logit(input, eps=None)``:
  ``log(p / (1 - p))`` with ``p`` clamped to ``[eps, 1 - eps]`` when ``eps`` is given;
- ``nan_to_num(input, nan=0.0, posinf=None, neginf=None)``: the dtype's largest finite
  values for the infinities by default; ``nansum``/``nanmean``: NaN entries left out;
- ``isclose(input, other, rtol, atol, equal_nan)``: ``|a - b| <= atol + rtol |b|``;
  ``isneginf``/``isposinf``; ``is_floating_point``/``is_tensor``/``numel``: Python answers;
- ``float_power(input, exponent)``: the power computed in float64 (MindSpore's dtype);
  ``xdivy``: ``x / y``, 0 where ``x == 0``; ``truncate_div``/``truncate_mod``: P's;
- ``std_mean``/``var_mean``: ``(std, mean)``/``(var, mean)``; ``aminmax(input, *, axis=0,
  keepdims=False)``: ``(min, max)``; ``argsort``: ``sort``'s indices; ``clip_by_value``:
  ``clamp``; ``vector_norm``: ``norm`` of the flattened axes; ``trapz(y, x=None, *,
  dx=1.0, dim=-1)``: the trapezoid rule.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import dtype as mstype
from ..common.tensor import Tensor
from . import elementwise as _elementwise
from . import reduce as _reduce
from . import reductions as _reductions
from .elementwise import (
    abs,
    cast,
    equal,
    greater,
    greater_equal,
    less,
    less_equal,
    log,
    maximum,
    not_equal,
    pow,
    sin,
)
from .masking import where
from .math_binary import atan2, logical_and, logical_or
from .math_composite import TruncateDiv, TruncateMod, clamp
from .math_unary import isinf, isnan, logical_not, sign
from .reduce import reduce_all, reduce_any, reduce_mean, reduce_sum
from .reductions import amax, amin, std, var
from .shape_ops import stop_gradient, zeros_like
from .sorting import sort

eq, ne, gt, ge, le = equal, not_equal, greater, greater_equal, less_equal


def all(input, axis=None, keep_dims=False):  # noqa: A001, A002  (MindSpore's names)
    return reduce_all(cast(input, mstype.bool_), () if axis is None else axis, keep_dims)


def any(input, axis=None, keep_dims=False):  # noqa: A001, A002
    return reduce_any(cast(input, mstype.bool_), () if axis is None else axis, keep_dims)


def _sign_bit(x: Any) -> Any:
    """True where the sign bit is set (``-0.0`` included): ``atan2(0, x)`` is pi there."""
    x = stop_gradient(x)
    return greater(atan2(zeros_like(x), x), 0.0)


def signbit(input):  # noqa: A002
    """``input < 0``: MindSpore 2.10's answer on CPU (False for ``-0.0``, unlike NumPy)."""
    return less(input, 0)


def copysign(x, other):
    if not isinstance(other, Tensor):
        other = Tensor(np.asarray(other, x.dtype.np))
    magnitude = abs(x)
    return where(_sign_bit(cast(other, x.dtype)), -magnitude, magnitude)


def sgn(input):  # noqa: A002
    return sign(input)


def heaviside(input, values):  # noqa: A002
    step = cast(greater(input, 0), input.dtype)
    return where(equal(input, 0), values + 0 * input, step)


def fmax(input, other):  # noqa: A002
    return where(isnan(input), other, where(isnan(other), input, maximum(input, other)))


def sinc(input):  # noqa: A002
    if input.dtype.np.kind != "f":
        input = cast(input, mstype.float32)
    zero = equal(input, 0.0)
    safe = where(zero, 1.0, input) * math.pi
    return where(zero, 1.0, sin(safe) / safe)


def logit(input, eps=None):  # noqa: A002
    p = input if eps is None else clamp(input, eps, 1.0 - eps)
    return log(p / (1.0 - p))


def nan_to_num(input, nan=None, posinf=None, neginf=None):  # noqa: A002
    info = np.finfo(input.dtype.np)
    nan = 0.0 if nan is None else nan
    posinf = float(info.max) if posinf is None else posinf
    neginf = float(info.min) if neginf is None else neginf
    x = where(isnan(input), nan, input)
    inf = isinf(x)
    return where(inf, where(greater(x, 0.0), posinf, neginf), x)


def _nan_zeroed(input: Any, dtype: Any) -> Any:  # noqa: A002
    x = input if dtype is None else cast(input, dtype)
    if x.dtype.np.kind != "f":
        return x
    return where(isnan(x), 0.0, x)


def nansum(input, axis=None, keepdims=False, *, dtype=None):  # noqa: A002
    return reduce_sum(_nan_zeroed(input, dtype), () if axis is None else axis, keepdims)


def nanmean(input, axis=None, keepdims=False, *, dtype=None):  # noqa: A002
    x = _nan_zeroed(input, dtype)
    axes = () if axis is None else axis
    count = reduce_sum(cast(logical_not(isnan(input)), x.dtype), axes, keepdims)
    return reduce_sum(x, axes, keepdims) / count


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):  # noqa: A002
    close = less_equal(abs(input - other), atol + rtol * abs(other))
    close = logical_or(close, equal(input, other))
    if equal_nan:
        close = logical_or(close, logical_and(isnan(input), isnan(other)))
    return close


def isneginf(input):  # noqa: A002
    return logical_and(isinf(input), less(input, 0))


def isposinf(input):  # noqa: A002
    return logical_and(isinf(input), greater(input, 0))


def is_floating_point(input):  # noqa: A002
    return input.dtype.np.kind == "f"


def is_tensor(obj):
    return isinstance(obj, Tensor)


def numel(input):  # noqa: A002
    return math.prod(input.shape)


def float_power(input, exponent):  # noqa: A002
    base = cast(input, mstype.float64)
    exp = cast(exponent, mstype.float64) if isinstance(exponent, Tensor) else float(exponent)
    return pow(base, exp)


def xdivy(x, y):
    return where(equal(x, 0), 0.0 * x, x / where(equal(x, 0), 1.0, y))


def truncate_div(x, y):
    return TruncateDiv()(x, y)


def truncate_mod(x, y):
    return TruncateMod()(x, y)


def std_mean(input, axis=None, ddof=0, keepdims=False):  # noqa: A002
    return std(input, axis, ddof, keepdims), reduce_mean(input, () if axis is None else axis,
                                                         keepdims)


def var_mean(input, axis=None, ddof=0, keepdims=False):  # noqa: A002
    return var(input, axis, ddof, keepdims), reduce_mean(input, () if axis is None else axis,
                                                         keepdims)


def aminmax(input, *, axis=0, keepdims=False):  # noqa: A002
    return amin(input, axis, keepdims), amax(input, axis, keepdims)


def argsort(input, axis=-1, descending=False):  # noqa: A002
    return sort(input, axis, descending)[1]


def clip_by_value(x, clip_value_min=None, clip_value_max=None):
    return clamp(x, clip_value_min, clip_value_max)


def vector_norm(x, ord=2, axis=None, keepdims=False, *, dtype=None):  # noqa: A002
    x = x if dtype is None else cast(x, dtype)
    axes = tuple(range(len(x.shape))) if axis is None else (axis,) if isinstance(axis, int) else tuple(axis)
    a = abs(x)
    if ord == math.inf:
        return _reduce.reduce_max(a, axes, keepdims)
    if ord == -math.inf:
        return _reductions.reduce_min(a, axes, keepdims)
    if ord == 0:
        return reduce_sum(cast(not_equal(x, 0), x.dtype), axes, keepdims)
    if ord == 1:
        return reduce_sum(a, axes, keepdims)
    if ord == 2:
        return _elementwise.sqrt(reduce_sum(x * x, axes, keepdims))
    return pow(reduce_sum(pow(a, float(ord)), axes, keepdims), 1.0 / ord)


def trapz(y, x=None, *, dx=1.0, dim=-1):
    n = y.shape[dim]
    lead = (slice(None),) * (dim % len(y.shape))
    left, right = y[(*lead, slice(0, n - 1))], y[(*lead, slice(1, n))]
    if x is None:
        return reduce_sum(left + right, dim) * (0.5 * dx)
    widths = x[(*lead, slice(1, n))] - x[(*lead, slice(0, n - 1))] if len(x.shape) > 1 else \
        x[1:] - x[:-1]
    return reduce_sum((left + right) * widths, dim) * 0.5

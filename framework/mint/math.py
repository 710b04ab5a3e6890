"""``mint``'s element-wise functions (PyTorch-style names and keywords) on ``framework.ops``.

Contracts, as MindSpore 2.10's ``mint``:

- one-input functions take ``input``; the floating-point ones (``sqrt``, ``exp``, ``sin``,
  ``sigmoid``...) compute integer and bool inputs in float32;
- ``add``/``sub`` take ``alpha`` (``input + alpha * other``); ``div``/``divide`` take
  ``rounding_mode`` (None: true division, float result; ``'trunc'``/``'floor'``: the
  input dtype);
- comparisons return bool tensors; ``equal`` and ``allclose`` return a Python ``bool``
  (they need concrete values: PyNative only);
- ``float_power`` computes in float64; ``round`` takes ``decimals``;
- ``gcd`` is integer-only (no gradient).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtype as mstype
from ..common.tensor import Tensor
from ..ops import functional as ops
from ..ops._utils import argument_error
from ._util import as_tensor, concrete, is_integral


def _float(x: Any) -> Any:
    x = as_tensor(x)
    return ops.cast(x, mstype.float32) if is_integral(x.dtype) else x


def _floating(fn: Any, name: str) -> Any:
    def mint_fn(input):  # noqa: A002  (mint's parameter name)
        return fn(_float(input))

    mint_fn.__name__ = mint_fn.__qualname__ = name
    mint_fn.__doc__ = f"``mint.{name}(input)``: ``ops.{fn.__name__}``, integers computed in float32."
    return mint_fn


def _same(fn: Any, name: str) -> Any:
    def mint_fn(input):  # noqa: A002
        return fn(as_tensor(input))

    mint_fn.__name__ = mint_fn.__qualname__ = name
    mint_fn.__doc__ = f"``mint.{name}(input)``: ``ops.{fn.__name__}``."
    return mint_fn


_FLOATING = ("acos", "acosh", "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctanh",
             "asin", "asinh", "atan", "atanh", "cos", "cosh", "erf", "erfc", "exp", "exp2",
             "expm1", "log", "log1p", "log2", "log10", "reciprocal", "rsqrt", "sigmoid", "sin",
             "sinc", "sinh", "sqrt", "tan", "tanh")
_SAME = ("abs", "neg", "negative", "square", "sign", "isfinite", "isinf",
         "isnan", "isneginf")

for _name in _FLOATING:
    globals()[_name] = _floating(getattr(ops, _name), _name)
for _name in _SAME:
    globals()[_name] = _same(getattr(ops, _name), _name)


def _rounding(fn: Any, name: str) -> Any:
    def mint_fn(input):  # noqa: A002
        x = as_tensor(input)
        return x if is_integral(x.dtype) else fn(x)

    mint_fn.__name__ = mint_fn.__qualname__ = name
    mint_fn.__doc__ = f"``mint.{name}(input)``: ``ops.{fn.__name__}`` (integers unchanged)."
    return mint_fn


ceil = _rounding(ops.ceil, "ceil")
floor = _rounding(ops.floor, "floor")
trunc = _rounding(ops.trunc, "trunc")
fix = _rounding(ops.trunc, "fix")


def frac(input):  # noqa: A002
    x = as_tensor(input)
    return x - trunc(x)


def round(input, *, decimals=0):  # noqa: A001, A002  (mint's names)
    """Half to even, as NumPy; ``decimals`` scales by ``10**decimals`` first."""
    x = as_tensor(input)
    if decimals == 0 or is_integral(x.dtype):
        return ops.round(x) if not is_integral(x.dtype) else x
    scale = 10.0 ** int(decimals)
    return ops.round(x * scale) / scale


def logical_not(input):  # noqa: A002
    return ops.logical_not(ops.cast(as_tensor(input), mstype.bool_))


def clone(input):  # noqa: A002
    return ops.reshape(as_tensor(input), tuple(input.shape))


def bitwise_not(input):  # noqa: A002
    x = as_tensor(input)
    return ops.logical_not(x) if x.dtype == mstype.bool_ else ops.invert(x)


# -- two inputs --------------------------------------------------------------------------
def _scaled(other: Any, alpha: Any, like: Any) -> Any:
    other = as_tensor(other, like)
    return other if alpha == 1 else other * alpha


def add(input, other, *, alpha=1):  # noqa: A002
    """``input + alpha * other``."""
    return ops.add(input, _scaled(other, alpha, input))


def sub(input, other, *, alpha=1):  # noqa: A002
    """``input - alpha * other``."""
    return ops.sub(input, _scaled(other, alpha, input))


def mul(input, other):  # noqa: A002
    return ops.mul(input, as_tensor(other, input))


def div(input, other, *, rounding_mode=None):  # noqa: A002
    """True division (float result); ``rounding_mode='trunc'`` or ``'floor'`` rounds and
    keeps the input dtype."""
    if rounding_mode not in (None, "trunc", "floor"):
        raise argument_error("div", ValueError(
            f"rounding_mode must be None, 'trunc' or 'floor', got {rounding_mode!r}"))
    x, y = as_tensor(input), as_tensor(other, input)
    if rounding_mode is None:
        return ops.div(_float(x), _float(y)) if is_integral(x.dtype) and is_integral(y.dtype) \
            else ops.div(x, y)
    if rounding_mode == "floor":
        return ops.floor_divide(x, y)
    quotient = ops.div(_float(x), _float(y))
    result = ops.trunc(quotient)
    return ops.cast(result, x.dtype) if is_integral(x.dtype) and is_integral(y.dtype) else result


divide = div


def floor_divide(input, other):  # noqa: A002
    return ops.floor_divide(as_tensor(input), as_tensor(other, input))


def remainder(input, other):  # noqa: A002
    return ops.remainder(as_tensor(input), as_tensor(other, input))


def fmod(input, other):  # noqa: A002
    return ops.fmod(as_tensor(input), as_tensor(other, input))


def pow(input, exponent):  # noqa: A001, A002
    if not isinstance(input, Tensor):
        return ops.pow(as_tensor(input, exponent), exponent)
    return ops.pow(input, as_tensor(exponent, input))


def float_power(input, exponent):  # noqa: A002
    """``input ** exponent`` in float64."""
    x = ops.cast(as_tensor(input), mstype.float64)
    return ops.pow(x, ops.cast(as_tensor(exponent), mstype.float64))


def _binary(fn: Any, name: str) -> Any:
    def mint_fn(input, other):  # noqa: A002
        if not isinstance(input, Tensor):
            return fn(as_tensor(input, other), other)
        return fn(input, as_tensor(other, input))

    mint_fn.__name__ = mint_fn.__qualname__ = name
    mint_fn.__doc__ = f"``mint.{name}(input, other)``: ``ops.{fn.__name__}``."
    return mint_fn


_BINARY = {
    "maximum": ops.maximum, "minimum": ops.minimum, "atan2": ops.atan2, "arctan2": ops.atan2,
    "logaddexp": ops.logaddexp, "logaddexp2": ops.logaddexp2, "xlogy": ops.xlogy,
    "logical_and": ops.logical_and, "logical_or": ops.logical_or, "logical_xor": ops.logical_xor,
    "bitwise_and": ops.bitwise_and, "bitwise_or": ops.bitwise_or, "bitwise_xor": ops.bitwise_xor,
    "eq": ops.eq, "ne": ops.ne, "not_equal": ops.ne, "gt": ops.gt, "greater": ops.gt,
    "ge": ops.greater_equal, "greater_equal": ops.greater_equal, "lt": ops.less, "less": ops.less,
    "le": ops.le, "less_equal": ops.le,
}
for _name, _fn in _BINARY.items():
    globals()[_name] = _binary(_fn, _name)


def lerp(input, end, weight):  # noqa: A002
    """``input + weight * (end - input)``."""
    return input + as_tensor(weight, input) * (end - input)


def addcdiv(input, tensor1, tensor2, *, value=1):  # noqa: A002
    return input + value * (tensor1 / tensor2)


def addcmul(input, tensor1, tensor2, *, value=1):  # noqa: A002
    return input + value * (tensor1 * tensor2)


def clamp(input, min=None, max=None):  # noqa: A001, A002
    """``input`` limited to ``[min, max]`` (either may be None, a number or a tensor)."""
    if min is None and max is None:
        raise argument_error("clamp", ValueError("give min, max or both"))
    out = as_tensor(input)
    if min is not None:  # a bound's gradient reaches the input where they tie, as MindSpore's
        bound = as_tensor(min, out)
        out = ops.where(ops.less(out, bound), bound, out)
    if max is not None:
        bound = as_tensor(max, out)
        out = ops.where(ops.greater(out, bound), bound, out)
    return out


clip = clamp


def nan_to_num(input, nan=None, posinf=None, neginf=None):  # noqa: A002
    return ops.nan_to_num(input, nan=0.0 if nan is None else nan, posinf=posinf, neginf=neginf)


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):  # noqa: A002
    return ops.isclose(input, as_tensor(other, input), rtol=rtol, atol=atol, equal_nan=equal_nan)


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):  # noqa: A002
    """A Python ``bool``: every element ``isclose`` (PyNative only)."""
    a, b = concrete("allclose", input, as_tensor(other, input))
    return bool(np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))


def equal(input, other):  # noqa: A002
    """A Python ``bool``: same shape and same values (PyNative only)."""
    a, b = concrete("equal", input, as_tensor(other, input))
    return bool(a.shape == b.shape and np.array_equal(a, b))


def gcd(input, other):  # noqa: A002
    """The greatest common divisor, element-wise (integers): Euclid's algorithm unrolled
    for the dtype's worst case (consecutive Fibonacci numbers), so it compiles as well."""
    a, b = as_tensor(input), as_tensor(other, input)
    if not (is_integral(a.dtype) and is_integral(b.dtype)) or mstype.bool_ in (a.dtype, b.dtype):
        raise argument_error("gcd", TypeError(f"needs integer inputs, got {a.dtype} and {b.dtype}"))
    a, b = ops.abs(a), ops.abs(b)
    if a.dtype != b.dtype:
        a, b = a + ops.zeros_like(b), b + ops.zeros_like(a)
    steps = 94 if np.dtype(mstype.to_np(a.dtype)).itemsize > 4 else 48
    for _ in range(steps):
        done = ops.eq(b, 0)
        remainder = ops.remainder(a, ops.where(done, ops.ones_like(b), b))
        a, b = ops.where(done, a, b), ops.where(done, b, remainder)
    return a


# erfinv: Giles' single-precision approximation, then two Newton steps on erf(x) = y.
_CENTRAL = (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
            -0.00125372503, -0.00417768164, 0.246640727, 1.50140941)
_TAIL = (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
         -0.0076224613, 0.00943887047, 1.00167406, 2.83297682)


def _poly(coefs: tuple[float, ...], w: Any) -> Any:
    p = coefs[0]
    for c in coefs[1:]:
        p = p * w + c
    return p


def erfinv(input):  # noqa: A002
    """The inverse error function (``erf(erfinv(y)) = y`` on ``(-1, 1)``; +-inf at +-1)."""
    y = _float(input)
    w = -ops.log((1.0 - y) * (1.0 + y))
    central = _poly(_CENTRAL, w - 2.5)
    tail = _poly(_TAIL, ops.sqrt(ops.maximum(w, 5.0)) - 3.0)
    x = ops.where(w < 5.0, central, tail) * y
    two_over_sqrt_pi = 1.1283791670955126
    for _ in range(2):
        step = (ops.erf(x) - y) / (two_over_sqrt_pi * ops.exp(-x * x))
        x = ops.where(ops.isfinite(step), x - step, x)
    return x


def polar(abs, angle):  # noqa: A002  (mint's names)
    """``abs * (cos(angle) + i sin(angle))``, complex (:func:`framework.ops.polar`)."""
    return ops.polar(abs, angle)


__all__ = sorted(n for n, v in list(globals().items())
                 if callable(v) and not n.startswith("_") and getattr(v, "__module__", "") == __name__)

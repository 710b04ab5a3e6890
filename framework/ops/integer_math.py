"""Integer and bit math: ``gcd``, ``lcm``, ``bitwise_left_shift``/``bitwise_right_shift``,
``population_count``, ``nextafter``, ``inv``, and the counting ops ``histc``/``bincount``.

Contracts (MindSpore 2.10's CPU kernels):

- ``gcd``/``lcm``: int16/int32/int64, broadcast, the wider dtype of the two; results are
  non-negative (``lcm(x, 0) = 0``). No gradient.
- Shifts: one integer dtype for both operands (a Python int takes the tensor's); the shift
  count is taken modulo the bit width of the machine word the kernel shifts (32 bits for
  8/16/32-bit types, 64 for 64-bit: x86's rule, which MindSpore's C++ kernels inherit), and
  a right shift of a signed value is arithmetic. No gradient.
- ``population_count``: the number of set bits of each element's two's-complement form, uint8.
- ``nextafter(x, y)``: the next float32/float64 after ``x`` towards ``y`` (computed in the
  input's own precision); gradient ``(dout, 0)`` as MindSpore's.
- ``inv(x) = 1/x``; integers give ``1/x`` truncated (``0`` for ``|x| > 1``) and the dtype's
  minimum for 0, as MindSpore's kernel; gradient ``-dout * out^2``.
- ``histc(input, bins, min, max)``: counts in ``bins`` equal bins over ``[min, max]`` (both
  0, or equal: the data's range), values outside ignored, ``max`` in the last bin; float32
  counts for float input (float64 too, which MindSpore's CPU kernel refuses), int32 for
  int32. No gradient.
- ``bincount(input, weights, minlength)``: float32 (weighted) counts of each non-negative
  value (negatives ignored); its length depends on the values, so it runs in PyNative only
  (graph mode stops with one line).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtype as mstype
from ..common.tensor import Tensor
from ..primitive import Primitive, Spec
from ._utils import argument_error, broadcast_shape
from .elementwise import mul, neg, sum_to
from .shape_ops import zeros_like

_GCD_TYPES = (np.int16, np.int32, np.int64)
_INT_KINDS = "iu"


def _check(op: str, x: Any, allowed: tuple, what: str) -> None:
    if np.dtype(x.dtype).type not in allowed:
        raise TypeError(f"{op}: needs {what}, got {x.dtype}")


class _GcdLcm(Primitive, abstract=True):
    differentiable = False
    fn: Any = None

    def infer(self, x: Any, y: Any) -> Spec:
        name = type(self).__name__.lower()
        for t in (x, y):
            _check(name, t, _GCD_TYPES, "int16, int32 or int64 inputs")
        return Spec(broadcast_shape(tuple(x.shape), tuple(y.shape)), np.promote_types(x.dtype, y.dtype))

    def kernel(self, x, y):
        dtype = np.promote_types(x.dtype, y.dtype)
        return type(self).fn(x.astype(dtype), y.astype(dtype)).astype(dtype)


class Gcd(_GcdLcm):
    fn = np.gcd


class Lcm(_GcdLcm):
    fn = np.lcm


class _Shift(Primitive, abstract=True):
    differentiable = False

    def infer(self, x: Any, y: Any) -> Spec:
        name = type(self).__name__
        for t in (x, y):
            if mstype.kind(t.dtype) not in _INT_KINDS:
                raise TypeError(f"{name}: needs integer inputs, got {t.dtype}")
        if x.dtype != y.dtype:
            raise TypeError(f"{name}: both inputs need one dtype, got {x.dtype} and {y.dtype}")
        return Spec(broadcast_shape(tuple(x.shape), tuple(y.shape)), x.dtype)

    def kernel(self, x, y):
        wide = np.int64 if x.dtype.itemsize == 8 else np.int32
        if x.dtype.kind == "u":
            wide = np.uint64 if x.dtype.itemsize == 8 else np.uint32
        bits = 63 if x.dtype.itemsize == 8 else 31
        count = (y.astype(np.int64) & bits).astype(wide)
        return self.shift(x.astype(wide), count).astype(x.dtype)


class LeftShift(_Shift):
    @staticmethod
    def shift(x, n):
        return np.left_shift(x, n)


class RightShift(_Shift):
    @staticmethod
    def shift(x, n):
        return np.right_shift(x, n)


class PopulationCount(Primitive):
    differentiable = False

    def infer(self, x: Any) -> Spec:
        if mstype.kind(x.dtype) not in _INT_KINDS:
            raise TypeError(f"population_count: needs an integer input, got {x.dtype}")
        return Spec(tuple(x.shape), np.dtype(np.uint8))

    def kernel(self, x):
        unsigned = x.view(np.dtype(f"u{x.dtype.itemsize}"))
        return np.bitwise_count(unsigned).astype(np.uint8)


class NextAfter(Primitive):
    def infer(self, x: Any, y: Any) -> Spec:
        for t in (x, y):
            if np.dtype(t.dtype) not in (np.float32, np.float64):
                raise TypeError(f"nextafter: needs float32 or float64 inputs, got {t.dtype}")
        if x.dtype != y.dtype:
            raise TypeError(f"nextafter: both inputs need one dtype, got {x.dtype} and {y.dtype}")
        return Spec(broadcast_shape(tuple(x.shape), tuple(y.shape)), x.dtype)

    def kernel(self, x, y):
        return np.nextafter(x, y)

    def bprop(self, x, y, *, out, dout, needs):
        return sum_to(dout, x.shape), (zeros_like(y) if needs[1] else None)


class Inv(Primitive):
    def infer(self, x: Any) -> Spec:
        if mstype.kind(x.dtype) not in "fi" and not mstype.is_float(x.dtype):
            raise TypeError(f"inv: needs a float or signed integer input, got {x.dtype}")
        return Spec(tuple(x.shape), x.dtype)

    def kernel(self, x):
        if mstype.is_float(x.dtype):
            with np.errstate(divide="ignore"):
                return (np.ones((), x.dtype) / x).astype(x.dtype)
        lowest = np.iinfo(x.dtype).min
        safe = np.where(x == 0, 1, x)
        return np.where(x == 0, lowest, np.where(np.abs(x) == 1, safe, 0)).astype(x.dtype)

    def bprop(self, x, *, out, dout, needs):
        return (neg(mul(dout, mul(out, out))),)


class Histogram(Primitive):
    """``Histogram(bins, min, max)(x)``: see ``histc`` in the module docstring."""

    differentiable = False

    def __init__(self, bins: int = 100, min: float = 0.0, max: float = 0.0) -> None:  # noqa: A002
        if not isinstance(bins, int) or isinstance(bins, bool) or bins <= 0:
            raise ValueError(f"histc: bins must be a positive int, got {bins!r}")
        if float(min) > float(max):
            raise ValueError(f"histc: min must be <= max, got min={min}, max={max}")
        super().__init__(bins=bins, min=float(min), max=float(max))

    def infer(self, x: Any) -> Spec:
        dtype = np.dtype(x.dtype)
        if dtype not in (np.float16, np.float32, np.float64, np.int32):  # float64: ours too
            raise TypeError(f"histc: needs a float16, float32, float64 or int32 input, got {dtype}")
        return Spec((self.bins,), np.dtype(np.int32 if dtype == np.int32 else np.float32))

    def kernel(self, x):
        v = x.astype(np.float64).ravel()
        lo, hi = self.min, self.max
        if lo == hi and v.size:
            lo, hi = float(v.min()), float(v.max())
        if lo == hi:
            lo, hi = lo - 1.0, hi + 1.0
        v = v[(v >= lo) & (v <= hi)]
        index = np.minimum(((v - lo) * self.bins / (hi - lo)).astype(np.int64), self.bins - 1)
        return np.bincount(index, minlength=self.bins).astype(self.infer(x).dtype)


# -- functional forms ------------------------------------------------------------------
_GCD, _LCM, _LSHIFT, _RSHIFT = Gcd(), Lcm(), LeftShift(), RightShift()
_POPCOUNT, _NEXTAFTER, _INV = PopulationCount(), NextAfter(), Inv()


def gcd(input, other):  # noqa: A002  (MindSpore's parameter names)
    return _GCD(input, other)


def lcm(input, other):  # noqa: A002
    return _LCM(input, other)


def _shift_operands(op: str, x: Any, y: Any) -> tuple[Any, Any]:
    """A Python int operand takes the other operand's dtype."""
    if not isinstance(x, Tensor) and not isinstance(y, Tensor):
        raise argument_error(op, TypeError("needs at least one tensor operand"))
    if not isinstance(x, Tensor):
        x = Tensor(np.asarray(x), dtype=y.dtype)
    if not isinstance(y, Tensor):
        y = Tensor(np.asarray(y), dtype=x.dtype)
    return x, y


def bitwise_left_shift(input, other):  # noqa: A002
    return _LSHIFT(*_shift_operands("bitwise_left_shift", input, other))


def bitwise_right_shift(input, other):  # noqa: A002
    return _RSHIFT(*_shift_operands("bitwise_right_shift", input, other))


def population_count(input_x):
    return _POPCOUNT(input_x)


def nextafter(input, other):  # noqa: A002
    return _NEXTAFTER(input, other)


def inv(x):
    return _INV(x)


def histc(input, bins=100, min=0.0, max=0.0):  # noqa: A002
    return Histogram(bins, min, max)(input)


def _values(op: str, t: Any) -> np.ndarray:
    data = getattr(t, "_data", t)
    if not isinstance(data, np.ndarray | np.generic | int | float | list | tuple):
        raise argument_error(op, RuntimeError(
            "its output shape depends on the input values, which graph mode (jit) cannot "
            "compile; call it in PyNative mode"))
    return np.asarray(data)


def bincount(input, weights=None, minlength=0):  # noqa: A002
    """Counts (weighted: sums of ``weights``) of each non-negative value, float32."""
    values = _values("bincount", input)
    if values.dtype.kind not in _INT_KINDS:
        raise argument_error("bincount", TypeError(f"needs an integer input, got {values.dtype}"))
    if not isinstance(minlength, int) or minlength < 0:
        raise argument_error("bincount", ValueError(f"minlength must be an int >= 0, got {minlength!r}"))
    flat = values.ravel().astype(np.int64)
    keep = flat >= 0
    w = None
    if weights is not None:
        w = _values("bincount", weights).astype(np.float64).ravel()
        if w.shape != flat.shape:
            raise argument_error("bincount", ValueError(
                f"weights must have the input's shape {values.shape}, got {np.shape(weights)}"))
        w = w[keep]
    length = max(int(flat.max()) + 1 if flat.size else 0, minlength)
    return Tensor(np.bincount(flat[keep], w, minlength=length).astype(np.float32))

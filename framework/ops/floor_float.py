"""Float floor division and modulo as MindSpore 2.10's CPU kernels (the same in both of its
modes), the PyNative kernels of ``FloorDiv``/``FloorMod`` for float results; graph mode
lowers the same formulas (framework/backend/tvm/lower/lowerings/elementwise.py).

Contracts (``X``, ``Y``: the operands in float64, whatever the float result dtype):

- ``x // y`` is ``floor(X / Y)``, cast to the result dtype. At rounding edges this is not
  NumPy's ``floor_divide`` for float64 (``1.0 // 0.1`` is 10, NumPy 9: NumPy floors the exact
  quotient, MindSpore the rounded one); for float32/float16 the float64 quotient is exact
  enough that both agree (``1.5 // 0.3`` is 4 in float32, 5 in float64).
- By zero (either sign): ``+inf`` for ``x > 0``, ``-inf`` for ``x < 0`` and for NaN, NaN for
  ``x == 0`` (so ``1 // -0.0`` is ``+inf``, unlike IEEE).
- ``x % y`` is ``X - floor(X / Y) * Y`` (rounded after each operation, no fused multiply-add),
  cast to the result dtype: NaN where ``y`` is 0 or infinite, ``+0.0`` for an exact multiple.

Integers (NumPy's floor division, with MindSpore's answers where the hardware would trap):
``min // -1`` is ``min`` (the quotient wraps) and ``min % -1`` is 0; ``x % 0`` is
MindSpore's (:mod:`framework.ops.int_edges`).
"""

from __future__ import annotations

import numpy as np

from .int_edges import indefinite, int_floor_divide_by_zero

F64 = np.dtype(np.float64)


def _operands(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return np.asarray(x).astype(F64), np.asarray(y).astype(F64)


def float_floor_div(x: np.ndarray, y: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """MindSpore's float ``x // y`` in ``dtype`` (see the module docstring)."""
    a, b = _operands(x, y)
    by_zero = np.where(a == 0, np.nan, np.where(a > 0, np.inf, -np.inf))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return np.where(b == 0, by_zero, np.floor(a / b)).astype(dtype)


def float_floor_mod(x: np.ndarray, y: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """MindSpore's float ``x % y`` in ``dtype`` (see the module docstring)."""
    a, b = _operands(x, y)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return (a - np.floor(a / b) * b).astype(dtype)


def ms_floor_divide(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``x // y``: float results as :func:`float_floor_div`, integers as NumPy's but by zero
    MindSpore's (``int_edges``)."""
    dtype = np.result_type(x, y)
    if dtype.kind == "f":
        return float_floor_div(x, y, dtype)
    with np.errstate(divide="ignore", over="ignore"):  # min // -1 wraps to min, as MindSpore's
        return int_floor_divide_by_zero(x, y, np.floor_divide(x, y))


def ms_floor_mod(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``x % y``: float results as :func:`float_floor_mod`, integers as NumPy's but by zero
    MindSpore's (``int_edges.indefinite``)."""
    dtype = np.result_type(x, y)
    if dtype.kind == "f":
        return float_floor_mod(x, y, dtype)
    with np.errstate(divide="ignore", over="ignore"):
        out = np.mod(x, y)
    zero = np.asarray(y) == 0
    if zero.any() and indefinite(out.dtype):
        out = np.where(np.broadcast_to(zero, out.shape), out.dtype.type(indefinite(out.dtype)), out)
    return out

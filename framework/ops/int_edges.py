"""Integer arithmetic where C's is undefined or traps, answered as MindSpore 2.10's CPU
kernels answer it (measured, the same in both of its modes), for both of our modes: the
PyNative kernels here, graph mode's lowerings in
framework/backend/tvm/lower/lowerings/elementwise.py.

MindSpore computes some integer ops through a float and converts back; a NaN or an
infinity then becomes the CPU's "integer indefinite" value (:func:`indefinite`): the
minimum of int32/int64, and 0 for the narrower types (truncated from int32's). So:

- ``x // 0`` is the dtype's max for x > 0, its min for x < 0, 0 for 0; ``x % 0`` is
  ``indefinite``; ``min // -1`` is ``min`` (it wraps) and ``min % -1`` is 0;
- ``x ** y`` with ``y < 0`` is ``pow(x, y)`` truncated toward zero: 1 for x == 1, +-1 for
  x == -1 (by the parity of y), 0 for |x| > 1, and ``indefinite`` for x == 0 (1 / 0).
"""

from __future__ import annotations

import numpy as np


def indefinite(dtype: np.dtype) -> int:
    """What a NaN or infinity converted to the integer ``dtype`` gives on MindSpore's CPU."""
    dtype = np.dtype(dtype)
    return int(np.iinfo(dtype).min) if dtype.kind == "i" and dtype.itemsize >= 4 else 0


def int_floor_divide_by_zero(x: np.ndarray, y: np.ndarray, out: np.ndarray) -> np.ndarray:
    """``out`` (NumPy's integer ``x // y``) with MindSpore's answer where ``y`` is 0."""
    zero = np.broadcast_to(np.asarray(y) == 0, out.shape)
    if not zero.any():
        return out
    info, sign = np.iinfo(out.dtype), np.broadcast_to(np.sign(x), out.shape)
    return np.where(zero, np.where(sign > 0, info.max, np.where(sign < 0, info.min, 0)),
                    out).astype(out.dtype)


def int_power(x: np.ndarray, y: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """``x ** y`` for an integer result ``dtype``: NumPy's for ``y >= 0`` (it refuses
    negative integer powers), MindSpore's above for ``y < 0``."""
    negative = np.asarray(y) < 0
    if not negative.any():
        return np.power(x, y).astype(dtype, copy=False)
    shape = np.broadcast_shapes(np.shape(x), np.shape(y))
    xb, yb = np.broadcast_to(x, shape).astype(dtype), np.broadcast_to(y, shape).astype(np.int64)
    with np.errstate(over="ignore"):
        plain = np.power(xb, np.where(negative, 0, yb).astype(dtype))
    odd = yb % 2 != 0
    fraction = np.where(xb == 1, 1, np.where(xb == -1, np.where(odd, -1, 1),
                                             np.where(xb == 0, indefinite(dtype), 0)))
    return np.where(np.broadcast_to(negative, shape), fraction, plain).astype(dtype)


def ms_power(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``x ** y`` (Pow's PyNative kernel): NumPy's, integers by :func:`int_power`."""
    dtype = np.result_type(x, y)
    return int_power(x, y, dtype) if dtype.kind in "iu" else np.power(x, y)

"""``mindspore.numpy``'s array creation functions (``ms.numpy.zeros(shape, dtype="float32")``),
as the model zoo's networks use them; the rest of ``mindspore.numpy`` is not here.

Contracts (MindSpore 2.10's): ``dtype`` is a framework dtype, its name (``"float32"``) or a
NumPy type; where it is not given, Python ints give int32, floats float32 and bools bool_
(``mindspore.numpy``'s defaults, not NumPy's int64/float64), a Tensor keeps its dtype.

- ``zeros(shape, dtype=float32)``, ``ones(shape, dtype=float32)``: ``shape`` an int or a
  tuple of ints; ``full(shape, fill_value, dtype=None)``: the dtype of ``fill_value``.
- ``zeros_like(a, dtype=None)``, ``ones_like(a, dtype=None)``, ``full_like(a, fill_value,
  dtype=None)``: ``a``'s shape and dtype.
- ``arange(start, stop=None, step=None, dtype=None)``: int32 when all are ints, else float32.
- ``array(obj, dtype=None)``/``asarray(obj, dtype=None)``: from a number, a (nested) list or
  tuple, or a Tensor; a NumPy array is a TypeError, as in MindSpore.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import dtype as mstype
from .common.tensor import Tensor


def _dtype(value: Any, dtype: Any) -> np.dtype:
    if dtype is not None:
        return mstype.to_np(dtype)
    if isinstance(value, Tensor):
        return np.dtype(value.dtype.np)
    kind = np.asarray(value).dtype.kind
    if kind == "b":
        return np.dtype(np.bool_)
    if kind in "iu":
        return np.dtype(np.int32)
    if kind == "f":
        return np.dtype(np.float32)
    raise TypeError(f"mindspore.numpy: unsupported data {value!r}")


def _shape(shape: Any) -> tuple[int, ...]:
    shape = (shape,) if isinstance(shape, int | np.integer) else tuple(shape)
    if not all(isinstance(s, int | np.integer) and s >= 0 for s in shape):
        raise ValueError(f"mindspore.numpy: shape must be non-negative ints, got {shape}")
    return tuple(int(s) for s in shape)


def full(shape: Any, fill_value: Any, dtype: Any = None) -> Tensor:
    return Tensor(np.full(_shape(shape), fill_value, _dtype(fill_value, dtype)))


def zeros(shape: Any, dtype: Any = mstype.float32) -> Tensor:
    return full(shape, 0, dtype)


def ones(shape: Any, dtype: Any = mstype.float32) -> Tensor:
    return full(shape, 1, dtype)


def full_like(a: Any, fill_value: Any, dtype: Any = None) -> Tensor:
    a = asarray(a)
    return full(a.shape, fill_value, dtype if dtype is not None else a.dtype)


def zeros_like(a: Any, dtype: Any = None) -> Tensor:
    return full_like(a, 0, dtype)


def ones_like(a: Any, dtype: Any = None) -> Tensor:
    return full_like(a, 1, dtype)


def arange(start: Any, stop: Any = None, step: Any = None, dtype: Any = None) -> Tensor:
    if stop is None:
        start, stop = 0, start
    step = 1 if step is None else step
    return Tensor(np.arange(start, stop, step).astype(_dtype([start, stop, step], dtype)))


def asarray(a: Any, dtype: Any = None) -> Tensor:
    if isinstance(a, np.ndarray):
        raise TypeError("mindspore.numpy.asarray: data must be an int, float, bool, Tensor, "
                        "list or tuple, got a numpy.ndarray (wrap it in Tensor first)")
    if isinstance(a, Tensor):
        return a if dtype is None or mstype.to_np(dtype) == a.dtype.np else Tensor(
            a.asnumpy().astype(mstype.to_np(dtype)))
    return Tensor(np.asarray(a, _dtype(a, dtype)))


def array(obj: Any, dtype: Any = None, copy: bool = True, ndmin: int = 0) -> Tensor:
    result = asarray(obj, dtype)
    if ndmin > len(result.shape):
        result = Tensor(result.asnumpy().reshape((1,) * (ndmin - len(result.shape)) + tuple(result.shape)))
    return result


__all__ = ["arange", "array", "asarray", "full", "full_like", "ones", "ones_like", "zeros",
           "zeros_like"]

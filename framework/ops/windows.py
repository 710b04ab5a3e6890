"""Window functions for spectral analysis: ``bartlett_window``, ``blackman_window``,
``hamming_window``, ``hann_window``, ``kaiser_window``.

Contracts (MindSpore 2.10):

- ``window_length`` is a non-negative int (``bartlett``/``blackman``: a 0-d integer Tensor,
  as MindSpore's primitives take it); ``periodic=True`` gives the first ``N`` points of the
  symmetric window of ``N + 1`` (for spectral analysis), ``False`` the symmetric window.
  Length 1 is ``[1]``, length 0 empty.
- ``dtype`` must be a float dtype. Its default is MindSpore's: float32 for ``bartlett``,
  ``blackman`` and ``hamming``, float64 for ``hann`` and ``kaiser`` (MindSpore builds those
  two in NumPy's float64 and does not cast them).
- Values are computed in float64 and rounded to ``dtype``. The windows are constants of
  their arguments: in graph mode they fold while compiling.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .. import dtype as mstype

if TYPE_CHECKING:
    from ..common.tensor import Tensor

from ..common.tensor import Tensor
from ._utils import argument_error


def _length(op: str, window_length: Any, tensor: bool) -> int:
    if tensor and isinstance(window_length, Tensor):
        data = getattr(window_length, "_data", None)
        if not isinstance(data, np.ndarray | np.generic):
            raise argument_error(op, RuntimeError(
                "its output shape depends on window_length's value, which graph mode (jit) "
                "cannot compile; pass it as a constant Tensor or call it in PyNative mode"))
        if data.ndim != 0 or data.dtype.kind not in "iu":
            raise argument_error(op, TypeError(
                f"window_length must be a 0-d integer Tensor, got shape {data.shape} dtype {data.dtype}"))
        window_length = int(data)
    elif tensor:
        raise argument_error(op, TypeError(
            f"window_length must be a 0-d integer Tensor, got {type(window_length).__name__}"))
    if not isinstance(window_length, int | np.integer) or isinstance(window_length, bool):
        raise argument_error(op, TypeError(
            f"window_length must be a non-negative integer, got {window_length!r}"))
    if window_length < 0:
        raise argument_error(op, ValueError(
            f"window_length must be a non-negative integer, got {window_length!r}"))
    return int(window_length)


def _window(op: str, window_length: Any, periodic: Any, dtype: Any, default: Any, shape_fn: Any,
            tensor: bool = False) -> Tensor:
    n = _length(op, window_length, tensor)
    if not isinstance(periodic, bool | np.bool_):
        raise argument_error(op, TypeError(f"periodic must be a bool, got {periodic!r}"))
    dtype = default if dtype is None else dtype
    np_dtype = mstype.to_np(dtype)
    if not mstype.is_float(np_dtype):
        raise argument_error(op, TypeError(f"dtype must be a float dtype, got {dtype}"))
    if n <= 1:
        return Tensor(np.ones(n, np_dtype))
    m = n + 1 if periodic else n  # points of the symmetric window
    k = np.arange(m, dtype=np.float64)
    return Tensor(shape_fn(k, m)[:n].astype(np_dtype))


def _cosine_sum(*coefficients: float) -> Any:
    def shape(k, m):
        phase = 2 * np.pi * k / (m - 1)
        return sum(c * (-1) ** i * np.cos(i * phase) for i, c in enumerate(coefficients))
    return shape


def bartlett_window(window_length, periodic=True, *, dtype=None):
    return _window("bartlett_window", window_length, periodic, dtype, mstype.float32,
                   lambda k, m: 1.0 - np.abs(2.0 * k / (m - 1) - 1.0), tensor=True)


def blackman_window(window_length, periodic=True, *, dtype=None):
    return _window("blackman_window", window_length, periodic, dtype, mstype.float32,
                   _cosine_sum(0.42, 0.5, 0.08), tensor=True)


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None):
    return _window("hamming_window", window_length, periodic, dtype, mstype.float32,
                   _cosine_sum(alpha, beta))


def hann_window(window_length, periodic=True, *, dtype=None):
    return _window("hann_window", window_length, periodic, dtype, mstype.float64,
                   _cosine_sum(0.5, 0.5))


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None):
    def shape(k, m):
        ratio = 2.0 * k / (m - 1) - 1.0
        return np.i0(beta * np.sqrt(np.clip(1.0 - ratio * ratio, 0.0, None))) / np.i0(beta)
    return _window("kaiser_window", window_length, periodic, dtype, mstype.float64, shape)

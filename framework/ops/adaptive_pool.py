"""1-d and adaptive pooling: compositions of strided slices, sums, maxima and
concatenation, so both modes and the gradients come from those primitives' rules.

Contracts (inputs ``(N, C, L)`` or ``(C, L)`` for 1-d, ``(N, C, H, W)`` or ``(C, H, W)``
for 2-d; the pooled axes are the last ones):

- ``avg_pool1d(input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False,
  count_include_pad=True)``: zeros ``padding`` each side, windows of ``kernel_size`` every
  ``stride``; the divisor is ``kernel_size``, or with ``count_include_pad=False`` the
  number of real entries under the window. ``ceil_mode=True`` is refused.
- ``max_pool1d(x, kernel_size, stride, padding=0)``: as above with ``-inf`` padding.
- ``adaptive_avg_pool1d(input, output_size)`` / ``adaptive_max_pool1d``: output ``i``
  reduces entries ``[floor(i L / out), ceil((i + 1) L / out))``;
  ``adaptive_avg_pool2d`` / ``adaptive_max_pool2d(input, output_size)``: the same on H,
  then on W (an ``int`` is both sizes, ``None`` keeps that axis' size); a rectangle's mean
  or max is the mean or max of its rows' means or maxima, so this is exact.
  ``return_indices=True`` is refused.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..common.tensor import Tensor
from .elementwise import maximum
from .masking import where
from .reduce import reduce_max, reduce_mean
from .shape_ops import concat, pad


def _check_rank(who: str, x: Any, ranks: tuple[int, ...]) -> None:
    if len(x.shape) not in ranks:
        raise ValueError(f"{who}: input must be {' or '.join(f'{r}-D' for r in ranks)}, got "
                         f"shape {tuple(x.shape)}")


def _positive(who: str, **values: int) -> None:
    for name, value in values.items():
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise ValueError(f"{who}: {name} must be a positive int, got {value!r}")


def _windows(who: str, x: Any, kernel_size: int, stride: int, padding: int, fill: float):
    """The ``kernel_size`` strided slices of ``x`` (last axis padded with ``fill``), one per
    window offset, and the output length."""
    _positive(who, kernel_size=kernel_size, stride=stride)
    if not isinstance(padding, int) or padding < 0 or padding > kernel_size // 2:
        raise ValueError(f"{who}: padding must be an int in [0, kernel_size // 2], got {padding!r}")
    length = x.shape[-1] + 2 * padding
    if length < kernel_size:
        raise ValueError(f"{who}: kernel_size {kernel_size} is larger than the padded length "
                         f"{length} of input {tuple(x.shape)}")
    if padding:
        pairs = ((0, 0),) * (len(x.shape) - 1) + ((padding, padding),)
        x = pad(x, pairs)
        if fill != 0:
            real = np.zeros(length, bool)
            real[padding: length - padding] = True
            x = where(Tensor(real), x, fill)
    out = (length - kernel_size) // stride + 1
    span = stride * (out - 1) + 1
    return [x[..., j: j + span: stride] for j in range(kernel_size)], out


def avg_pool1d(input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False,
               count_include_pad=True):
    who = "avg_pool1d"
    _check_rank(who, input_x, (2, 3))
    if ceil_mode:
        raise ValueError(f"{who}: ceil_mode=True is not supported; pad the input instead")
    slices, out = _windows(who, input_x, kernel_size, stride, padding, 0.0)
    total = slices[0]
    for piece in slices[1:]:
        total = total + piece
    if count_include_pad or not padding:
        return total / float(kernel_size)
    real = np.pad(np.ones(input_x.shape[-1]), padding)
    counts = np.array([real[i * stride: i * stride + kernel_size].sum() for i in range(out)])
    return total * (1.0 / counts).astype(input_x.dtype.np)


def max_pool1d(x, kernel_size, stride=None, padding=0):
    who = "max_pool1d"
    _check_rank(who, x, (2, 3))
    slices, _ = _windows(who, x, kernel_size, kernel_size if stride is None else stride,
                         padding, -math.inf)
    best = slices[0]
    for piece in slices[1:]:
        best = maximum(best, piece)
    return best


def _bins(length: int, out: int) -> list[tuple[int, int]]:
    return [((i * length) // out, -((-(i + 1) * length) // out)) for i in range(out)]


def _adaptive(who: str, x: Any, out: int | None, axis: int, reduce: Any) -> Any:
    length = x.shape[axis]
    if out is None:
        return x
    _positive(who, output_size=out)
    parts = []
    for start, stop in _bins(length, out):
        index = (Ellipsis, slice(start, stop)) + (slice(None),) * (-1 - axis)
        parts.append(reduce(x[index], axis, True))
    return parts[0] if len(parts) == 1 else concat(parts, axis)


def _size2(who: str, output_size: Any) -> tuple[Any, Any]:
    if isinstance(output_size, int) or output_size is None:
        return output_size, output_size
    if isinstance(output_size, tuple | list) and len(output_size) == 2:
        return tuple(output_size)
    raise ValueError(f"{who}: output_size must be an int or a pair, got {output_size!r}")


def _one_size(who: str, output_size: Any) -> int:
    if isinstance(output_size, tuple | list) and len(output_size) == 1:
        output_size = output_size[0]
    _positive(who, output_size=output_size)
    return output_size


def adaptive_avg_pool1d(input, output_size):  # noqa: A002  (MindSpore's parameter names)
    _check_rank("adaptive_avg_pool1d", input, (2, 3))
    return _adaptive("adaptive_avg_pool1d", input,
                     _one_size("adaptive_avg_pool1d", output_size), -1, reduce_mean)


def adaptive_max_pool1d(input, output_size):  # noqa: A002
    _check_rank("adaptive_max_pool1d", input, (2, 3))
    return _adaptive("adaptive_max_pool1d", input,
                     _one_size("adaptive_max_pool1d", output_size), -1, reduce_max)


def adaptive_avg_pool2d(input, output_size):  # noqa: A002
    who = "adaptive_avg_pool2d"
    _check_rank(who, input, (3, 4))
    h, w = _size2(who, output_size)
    return _adaptive(who, _adaptive(who, input, h, -2, reduce_mean), w, -1, reduce_mean)


def adaptive_max_pool2d(input, output_size, return_indices=False):  # noqa: A002
    who = "adaptive_max_pool2d"
    if return_indices:
        raise ValueError(f"{who}: return_indices=True is not supported")
    _check_rank(who, input, (3, 4))
    h, w = _size2(who, output_size)
    return _adaptive(who, _adaptive(who, input, h, -2, reduce_max), w, -1, reduce_max)

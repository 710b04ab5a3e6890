"""Resampling along spatial axes (``ops.interpolate``; ``mint.nn.functional.interpolate``
shares the axis plans and kernels), composed of ``Gather``, ``Mul`` and ``Add``: the source
indices and weights are constants of the sizes, so both modes and gradients follow those.

Contracts, per spatial axis of ``in`` entries resampled to ``out``:

- ``'nearest'``: source index ``floor(dst * step)``, ``step = in / out``;
- ``'linear'``/``'bilinear'``: the two neighbours of the source coordinate
  ``dst * (in - 1) / (out - 1)`` (``align_corners=True``) or ``(dst + 0.5) * step - 0.5``
  clamped at 0 (False), weighted by the distance;
- ``'bicubic'``: the four neighbours ``floor(src) - 1 .. floor(src) + 2`` of the same
  source coordinate (unclamped), weighted by Keys' cubic convolution of the fraction rounded
  to 1/1024 (the kernel's weight table), as MindSpore's CPU kernel (TensorFlow's resize):
  with ``align_corners`` ``A = -0.75`` and indices clamped to the axis; without it
  (half-pixel centres) ``A = -0.5``, and taps outside the axis get weight 0, the others
  renormalized to sum 1.

``interpolate(input, size=None, scale_factor=None, mode='nearest', align_corners=None,
recompute_scale_factor=None)`` is MindSpore 2.10's ``ops.interpolate`` on CPU: ``nearest``
on 3-d and 4-d inputs, ``linear`` on 3-d, ``bilinear`` and ``bicubic`` on 4-d, float inputs;
as MindSpore's table says, these modes take ``size`` (``scale_factor`` is a ValueError) and
``align_corners`` is refused with ``nearest``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import dtype as mstype
from ._utils import argument_error
from .elementwise import add, mul, sub
from .scatter_gather import gather

CUBIC_A, CUBIC_A_HALF_PIXEL, CUBIC_TABLE = -0.75, -0.5, 1024
# MindSpore's CPU modes of ops.interpolate and the input ranks each takes
MODES = {"nearest": (3, 4), "linear": (3,), "bilinear": (4,), "bicubic": (4,)}


def plan(op: str, spatial: tuple[int, ...], size: Any, scale_factor: Any,
         recompute: Any) -> list[tuple[int, float]]:
    """Per spatial axis: the output size and the source step per output index (``in/out``,
    or ``1/scale_factor`` when a scale is given and not recomputed)."""
    if (size is None) == (scale_factor is None):
        raise argument_error(op, ValueError("give exactly one of size and scale_factor"))
    if size is not None:
        sizes = (size,) * len(spatial) if isinstance(size, int) else tuple(size)
        steps = [n / m for n, m in zip(spatial, sizes, strict=False)]
    else:
        scales = (scale_factor,) * len(spatial) if isinstance(scale_factor, int | float) \
            else tuple(scale_factor)
        sizes = tuple(int(math.floor(n * s)) for n, s in zip(spatial, scales, strict=True))
        steps = [n / m if recompute else 1.0 / s for n, m, s in zip(spatial, sizes, scales, strict=True)]
    if len(sizes) != len(spatial):
        raise argument_error(op, ValueError(f"size {sizes} does not match {len(spatial)} spatial axes"))
    return list(zip(sizes, steps, strict=True))


def _source(axis_in: int, axis_out: int, step: float, align_corners: bool) -> np.ndarray:
    dst = np.arange(axis_out, dtype=np.float64)
    if align_corners:
        return dst * ((axis_in - 1) / (axis_out - 1)) if axis_out > 1 else np.zeros_like(dst)
    return (dst + 0.5) * step - 0.5


def taps(mode: str, axis_in: int, axis_out: int, step: float,
         align_corners: bool) -> list[tuple[np.ndarray, np.ndarray | None]]:
    """The source indices and their weights (None: 1) for each output index of one axis."""
    if mode == "nearest":
        return [(np.minimum(np.floor(np.arange(axis_out) * step), axis_in - 1).astype(np.int64), None)]
    src = _source(axis_in, axis_out, step, align_corners)
    if mode == "linear":
        src = np.maximum(src, 0.0)
        low = np.minimum(np.floor(src).astype(np.int64), axis_in - 1)
        weight = src - low
        return [(low, 1.0 - weight), (np.minimum(low + 1, axis_in - 1), weight)]
    base = np.floor(src).astype(np.int64)
    t = np.rint((src - base) * CUBIC_TABLE) / CUBIC_TABLE  # the kernel's weight table
    a = CUBIC_A if align_corners else CUBIC_A_HALF_PIXEL
    near = lambda d: ((a + 2) * d - (a + 3)) * d * d + 1  # noqa: E731  (|d| <= 1)
    far = lambda d: ((a * d - 5 * a) * d + 8 * a) * d - 4 * a  # noqa: E731  (1 < |d| < 2)
    weights = np.stack([far(t + 1), near(t), near(1 - t), far(2 - t)])
    index = np.stack([base + k - 1 for k in range(4)])
    if not align_corners:  # taps outside the axis drop out, the others share their weight
        weights = np.where((index >= 0) & (index < axis_in), weights, 0.0)
        weights = weights / weights.sum(axis=0)
    return [(np.clip(i, 0, axis_in - 1), w) for i, w in zip(index, weights, strict=True)]


def resample_axis(x: Any, axis: int, size: int, step: float, mode: str, align_corners: bool) -> Any:
    """``x`` resampled along ``axis`` to ``size`` entries (``mode``: nearest, linear, cubic)."""
    dtype = mstype.to_np(x.dtype)
    shape = [1] * len(x.shape)
    shape[axis] = size
    found = taps(mode, x.shape[axis], size, step, align_corners)
    if mode == "linear":  # below + (above - below) * w: exact where the neighbours are equal
        (low, _), (high, weight) = found
        below, above = gather(x, low, axis), gather(x, high, axis)
        return add(below, mul(sub(above, below), np.asarray(weight, dtype).reshape(shape)))
    out = None
    for index, weight in found:
        term = gather(x, index, axis)
        if weight is not None:
            term = mul(term, np.asarray(weight, dtype).reshape(shape))
        out = term if out is None else add(out, term)
    return out


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,  # noqa: A002
                recompute_scale_factor=None):
    """MindSpore's ``ops.interpolate`` on CPU (see the module docstring)."""
    op, rank = "interpolate", len(input.shape)
    if mode not in MODES:
        raise argument_error(op, ValueError(
            f"mode {mode!r} is not supported here (nearest, linear, bilinear, bicubic)"))
    if rank not in MODES[mode]:
        raise argument_error(op, ValueError(
            f"mode {mode!r} takes {' or '.join(f'{r}-d' for r in MODES[mode])} inputs, got {rank}-d"))
    if not mstype.is_float(mstype.to_np(input.dtype)):
        raise argument_error(op, TypeError(f"input must be a float tensor, got {input.dtype}"))
    if scale_factor is not None:
        raise argument_error(op, ValueError(
            f"scale_factor cannot be set with mode {mode!r} on a {rank}-d input (MindSpore's CPU "
            "modes take size)"))
    if align_corners is not None and mode == "nearest":
        raise argument_error(op, ValueError("align_corners cannot be set with mode 'nearest'"))
    kernel = {"bilinear": "linear", "bicubic": "cubic"}.get(mode, mode)
    out = input
    for offset, (n, step) in enumerate(plan(op, tuple(input.shape[2:]), size, None, None)):
        out = resample_axis(out, 2 + offset, n, step, kernel, bool(align_corners))
    return out

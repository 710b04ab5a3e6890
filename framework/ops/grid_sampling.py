"""``grid_sample``: an ``(N, C, H, W)`` (or ``(N, C, D, H, W)``) input read at the
normalized positions of ``grid`` (``(N, Ho, Wo, 2)`` of ``(x, y)``, or ``(..., 3)`` of
``(x, y, z)``) in [-1, 1], as MindSpore's (PyTorch's) ``grid_sample``.

``align_corners`` maps -1 and 1 to the corner pixels' centres (else to their outer
edges); ``padding_mode`` ``'zeros'`` reads 0 outside, ``'border'`` clamps the position,
``'reflection'`` mirrors it at the edges; ``mode`` ``'bilinear'`` (trilinear in 3-d)
weights the surrounding pixels, ``'nearest'`` rounds half to even. Positions are computed
with framework ops and the pixels read with ``Gather``, so both modes and the gradients
(input and grid) are those primitives'.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from .. import dtype as mstype
from ..common.tensor import Tensor
from ._utils import argument_error
from .elementwise import abs as absolute
from .elementwise import cast, floor_mod, maximum, minimum, select
from .math_binary import logical_and
from .math_unary import floor, round
from .scatter_gather import gather
from .shape_ops import expand_dims, reshape, transpose


def _unnormalize(coord: Any, size: int, align_corners: bool) -> Any:
    if align_corners:
        return (coord + 1.0) * (0.5 * (size - 1))
    return ((coord + 1.0) * size - 1.0) * 0.5


def _reflect(coord: Any, low: float, high: float) -> Any:
    """``coord`` mirrored into ``[low, high]`` (repeatedly)."""
    span = high - low
    if span <= 0:
        return coord * 0.0
    distance = absolute(coord - low)
    flips = floor(distance / span)
    extra = distance - flips * span
    even = floor_mod(flips, 2.0) < 0.5
    return select(even, extra + low, high - extra)


def _source(coord: Any, size: int, padding_mode: str, align_corners: bool) -> Any:
    coord = _unnormalize(coord, size, align_corners)
    if padding_mode == "reflection":
        coord = _reflect(coord, 0.0, float(size - 1)) if align_corners else \
            _reflect(coord, -0.5, size - 0.5)
    if padding_mode in ("border", "reflection"):
        coord = maximum(minimum(coord, float(size - 1)), 0.0)
    return coord


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):  # noqa: A002
    op = "grid_sample"
    if mode not in ("bilinear", "nearest"):
        raise argument_error(op, ValueError(f"mode must be 'bilinear' or 'nearest', got {mode!r}"))
    if padding_mode not in ("zeros", "border", "reflection"):
        raise argument_error(op, ValueError(
            f"padding_mode must be 'zeros', 'border' or 'reflection', got {padding_mode!r}"))
    dims = len(input.shape) - 2
    if dims not in (2, 3) or len(grid.shape) != dims + 2 or grid.shape[-1] != dims \
            or grid.shape[0] != input.shape[0]:
        raise argument_error(op, ValueError(
            f"input (N, C, H, W) needs grid (N, Ho, Wo, 2), (N, C, D, H, W) grid (N, Do, Ho, Wo, 3); "
            f"got {tuple(input.shape)} and {tuple(grid.shape)}"))
    corners = bool(align_corners)
    n, channels = input.shape[:2]
    sizes = tuple(input.shape[2:])  # (D,) H, W
    table = reshape(transpose(input, (0,) + tuple(range(2, dims + 2)) + (1,)), (-1, channels))
    # grid's last axis is (x, y[, z]): reversed, it follows the input's spatial axes
    coords = [_source(grid[..., dims - 1 - a], sizes[a], padding_mode, corners) for a in range(dims)]
    batch = reshape(cast(_arange(n), mstype.int64), (n,) + (1,) * dims)
    strides = [1] * dims
    for a in range(dims - 2, -1, -1):
        strides[a] = strides[a + 1] * sizes[a + 1]
    plane = int(sizes[0] * strides[0])

    def read(points: list[Any]) -> Any:
        """The pixels at integer ``points`` (0 outside the input), ``(N, *out, C)``."""
        ok, flat = None, batch * plane
        for a, p in enumerate(points):
            inside = logical_and(p > -0.5, p < sizes[a] - 0.5)
            ok = inside if ok is None else logical_and(ok, inside)
            flat = flat + cast(maximum(minimum(p, float(sizes[a] - 1)), 0.0), mstype.int64) * strides[a]
        values = gather(table, flat, 0)
        return values * expand_dims(cast(ok, values.dtype), -1)

    if mode == "nearest":
        out = read([round(c) for c in coords])
    else:
        low = [floor(c) for c in coords]
        frac = [expand_dims(c - f, -1) for c, f in zip(coords, low)]
        out = None
        for corner in itertools.product((0, 1), repeat=dims):
            weight = None
            for a, bit in enumerate(corner):
                w = frac[a] if bit else 1.0 - frac[a]
                weight = w if weight is None else weight * w
            term = read([f + float(bit) for f, bit in zip(low, corner)]) * weight
            out = term if out is None else out + term
    return transpose(out, (0, dims + 1) + tuple(range(1, dims + 1)))


def _arange(n: int) -> Any:
    return Tensor(np.arange(n, dtype=np.int64))

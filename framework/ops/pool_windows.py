"""Pooling windows over the last N axes as strided slices ("taps"), one per kernel offset:
a pool is then an elementwise reduction of its taps (max, sum), a composition of existing
primitives in both modes. Shapes are static, so the window geometry (output sizes, which
positions are padding) is worked out here in NumPy while tracing."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from ..common.tensor import Tensor
from . import creation as _creation
from . import elementwise as _elementwise
from . import shape_ops as _shape


def out_length(size: int, k: int, s: int, d: int, before: int, after: int, ceil_mode: bool) -> int:
    """Windows along one axis; with ``ceil_mode`` a last partial window counts when it
    starts inside the input or its leading padding."""
    span = size + before + after - (k - 1) * d - 1
    if span < 0:
        raise ValueError(f"the window {k} (dilation {d}) is larger than the padded length "
                         f"{size + before + after}")
    out = (-(-span // s) if ceil_mode else span // s) + 1
    if ceil_mode and (out - 1) * s >= size + before:
        out -= 1
    return out


class Windows:
    """The windows of ``x``'s last ``len(kernel)`` axes: ``pads`` (before, after) per axis
    filled with ``fill``, ``ceil_mode`` as PyTorch's/MindSpore's."""

    def __init__(self, shape: tuple[int, ...], kernel, stride, dilation, pads,
                 ceil_mode: bool = False) -> None:
        self.rank = len(kernel)
        self.sizes = tuple(shape[-self.rank:])
        self.kernel, self.stride, self.dilation = tuple(kernel), tuple(stride), tuple(dilation)
        self.pads = [tuple(p) for p in pads]
        self.out = tuple(out_length(n, k, s, d, b, a, ceil_mode) for n, k, s, d, (b, a)
                         in zip(self.sizes, kernel, stride, dilation, self.pads))
        # the padded input must hold every window, the partial last one too
        self.ends = tuple(max((o - 1) * s + (k - 1) * d + 1 - n - b, 0)
                          for o, s, k, d, n, (b, _) in zip(self.out, stride, kernel, dilation,
                                                            self.sizes, self.pads))

    def taps(self, x: Any, fill: float) -> list[Any]:
        """One strided slice of the padded ``x`` per kernel offset (row-major order)."""
        lead = len(x.shape) - self.rank
        for axis, ((before, _), end) in enumerate(zip(self.pads, self.ends)):
            if before or end:
                x = _pad_axis(x, lead + axis, before, end, fill)
        taps = []
        for offset in itertools.product(*(range(k) for k in self.kernel)):
            index = (slice(None),) * lead + tuple(
                slice(j * d, j * d + s * (o - 1) + 1, s)
                for j, d, s, o in zip(offset, self.dilation, self.stride, self.out))
            taps.append(x[index])
        return taps

    def counts(self, include_pad: bool) -> np.ndarray:
        """Per output position, the window's positions inside the input (``include_pad``:
        inside the input or its padding), broadcastable over the leading axes."""
        total = np.ones((1,) * self.rank)
        for axis, (n, k, s, d, (b, a), o) in enumerate(zip(self.sizes, self.kernel, self.stride,
                                                           self.dilation, self.pads, self.out)):
            lo, hi = (-b, n + a) if include_pad else (0, n)
            starts = np.arange(o) * s - b
            taps = starts[:, None] + np.arange(k)[None, :] * d
            per_axis = ((taps >= lo) & (taps < hi)).sum(1).astype(np.float64)
            shape = [1] * self.rank
            shape[axis] = o
            total = total * per_axis.reshape(shape)
        return total

    def positions(self) -> np.ndarray:
        """Per tap and output position, the flat index (over the last axes) of the input
        element the tap reads (-1 in the padding)."""
        grids = []
        for k, s, d, (b, _), o in zip(self.kernel, self.stride, self.dilation, self.pads,
                                      self.out):
            grids.append(np.arange(o)[None, :] * s - b + np.arange(k)[:, None] * d)  # k, o
        result = []
        for offset in itertools.product(*(range(k) for k in self.kernel)):
            coords = np.meshgrid(*(g[j] for g, j in zip(grids, offset)), indexing="ij")
            inside = np.logical_and.reduce([(c >= 0) & (c < n) for c, n in zip(coords, self.sizes)])
            flat = np.ravel_multi_index([np.clip(c, 0, n - 1) for c, n in zip(coords, self.sizes)],
                                        self.sizes)
            result.append(np.where(inside, flat, -1))
        return np.stack(result)



def _pad_axis(x: Any, axis: int, before: int, after: int, fill: float) -> Any:
    parts = []
    for width in (before, after):
        if width:
            shape = list(x.shape)
            shape[axis] = width
            parts.append(_creation.fill(x.dtype, tuple(shape), fill))
        else:
            parts.append(None)
    pieces = [p for p in (parts[0], x, parts[1]) if p is not None]
    return _shape.concat(pieces, axis) if len(pieces) > 1 else x


def max_of(taps: list[Any]) -> Any:
    best = taps[0]
    for tap in taps[1:]:
        best = _elementwise.maximum(best, tap)
    return best


def sum_of(taps: list[Any]) -> Any:
    total = taps[0]
    for tap in taps[1:]:
        total = total + tap
    return total


def argmax_index(windows: Windows, taps: list[Any], best: Any) -> Any:
    """For a max pool: the flat input index of each window's first maximum (int64). The taps
    are visited last to first, each one that holds the maximum overwriting the index, so the
    first one wins (selects only: no boolean arithmetic)."""
    positions = windows.positions()
    index = None
    for t in reversed(range(len(taps))):
        pos = _shape.broadcast_to(_tensor(positions[t]), tuple(best.shape))
        index = pos if index is None else _elementwise.select(_elementwise.equal(taps[t], best), pos, index)
    return index


def _tensor(array: np.ndarray) -> Any:
    return Tensor(array.astype(np.int64))

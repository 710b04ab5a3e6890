"""MindSpore's backward primitives of morphological 2-d dilation (``Dilation2D``, TensorFlow's
``dilation2d`` in NCHW): ``G.Dilation2DBackpropInput`` and ``G.Dilation2DBackpropFilter``.

The forward: ``y[n, c, i, j] = max over (a, b) of x[n, c, i * sh + a * dh - top, j * sw +
b * dw - left] + filter[c, a, b]``, entries in the padding never taken. 'VALID' gives
``ceil((H - (kh - 1) * dh) / sh)`` rows; 'SAME' ``ceil(H / sh)``, the padding split with the
odd entry after. Each output's gradient goes to its window's first maximum: to that input
entry (``BackpropInput``, x-shaped) and to that filter tap (``BackpropFilter``, filter-shaped,
summed over the batch and the outputs).

``(stride, dilation, pad_mode='SAME', data_format='NCHW')(x, filter, out_backprop)``:
``stride``/``dilation`` an int, 2 ints or ``(1, 1, h, w)``; ``x`` (N, C, H, W), ``filter``
(C, kh, kw), ``out_backprop`` the output's shape.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import dtype as mstype
from ..common.tensor import Tensor
from .elementwise import add, cast
from .pool_backprops import add_into_planes, pad_mode_of, window_geometry, window_positions, window_sizes
from .reduce import argmax
from .scatter_elements import GatherElements
from .segment import unsorted_segment_sum
from .shape_ops import broadcast_to, expand_dims, reshape
from .window_pool import _gathered, _lowest


class _Dilation2DBackprop:
    def __init__(self, stride: Any, dilation: Any, pad_mode: str = "SAME",
                 data_format: str = "NCHW") -> None:
        op = type(self).__name__
        if data_format != "NCHW":
            raise ValueError(f"{op}: data_format must be 'NCHW', got {data_format!r}")
        self.stride = window_sizes(op, "stride", stride, 2)
        self.dilation = window_sizes(op, "dilation", dilation, 2)
        self.pad_mode, self.data_format = pad_mode_of(op, pad_mode), data_format

    def _best(self, x: Any, filter: Any, out_backprop: Any) -> tuple[Any, np.ndarray]:  # noqa: A002
        """The (N, C, L) kernel tap of each output's first maximum, and the windows."""
        op = type(self).__name__
        if len(x.shape) != 4 or len(filter.shape) != 3 or filter.shape[0] != x.shape[1]:
            raise ValueError(f"{op}: x must be (N, C, H, W) and filter (C, kh, kw), got "
                             f"{tuple(x.shape)} and {tuple(filter.shape)}")
        spatial, kernel = tuple(x.shape[2:]), tuple(filter.shape[1:])
        outs, before = window_geometry(op, spatial, kernel, self.stride, self.pad_mode,
                                       dilation=self.dilation)
        if tuple(out_backprop.shape) != tuple(x.shape[:2]) + outs:
            raise ValueError(f"{op}: out_backprop must have shape {tuple(x.shape[:2]) + outs}, got "
                             f"{tuple(out_backprop.shape)}")
        positions = window_positions(spatial, kernel, self.stride, outs, before, self.dilation)
        taps = reshape(cast(filter, x.dtype), (1, x.shape[1], math.prod(kernel), 1))
        return argmax(add(_gathered(x, positions, _lowest(x)), taps), 2), positions


class Dilation2DBackpropInput(_Dilation2DBackprop):
    """``(x, filter, out_backprop) -> dx``."""

    def __call__(self, x: Any, filter: Any, out_backprop: Any) -> Any:  # noqa: A002
        best, positions = self._best(x, filter, out_backprop)
        n, c = x.shape[:2]
        table = broadcast_to(Tensor(positions), (n, c) + positions.shape)
        where = GatherElements(2)(table, expand_dims(cast(best, mstype.int64), 2))
        return add_into_planes(out_backprop, reshape(where, (n, c, -1)), tuple(x.shape))


class Dilation2DBackpropFilter(_Dilation2DBackprop):
    """``(x, filter, out_backprop) -> dfilter``."""

    def __call__(self, x: Any, filter: Any, out_backprop: Any) -> Any:  # noqa: A002
        best, _ = self._best(x, filter, out_backprop)
        c, taps = int(filter.shape[0]), math.prod(filter.shape[1:])
        offsets = Tensor((np.arange(c, dtype=np.int64) * taps).reshape(1, c, 1))
        ids = add(cast(best, mstype.int64), offsets)
        summed = unsorted_segment_sum(reshape(out_backprop, (-1,)), reshape(ids, (-1,)), c * taps)
        return reshape(summed, tuple(filter.shape))


__all__ = ["Dilation2DBackpropInput", "Dilation2DBackpropFilter"]

"""Fractional max pooling over pooling sequences (``P.FractionalMaxPool``): windows whose
boundaries along rows and columns are random sequences, not a fixed stride.

Contracts:

- ``PoolingSequence(size_in, size_out, pseudo_random)(u)``: the ``size_out + 1`` window
  boundaries (int64, ``0`` first and ``size_in`` last) from the uniform draws ``u`` (shape
  ``(size_out + 1,)``): with ``pseudo_random`` ``ceil(alpha (i + v)) - 1`` for ``alpha =
  size_in / size_out`` and ``v = u[0] * v_max`` (``v_max`` keeps every window between
  ``floor(alpha)`` and ``floor(alpha) + 1`` wide, as TensorFlow's definition); otherwise
  windows of ``floor(alpha)``, ``size_in mod size_out`` of them one wider, in the random
  order ``argsort(u[1:])``. No gradient.
- ``SequencePool(overlapping)(x, rows, cols)``: NHWC ``x`` max-pooled over the windows
  ``[rows[i], rows[i + 1])`` x ``[cols[j], cols[j + 1])`` (with ``overlapping`` the end
  included, clamped to the edge). Its gradient sends each output's gradient to the first
  maximum of its window (``SequencePoolGrad``), summed where overlapping windows share it.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import dtype as mstype
from ..primitive import Primitive, Spec
from .random_draw import random_draw


class PoolingSequence(Primitive):
    differentiable = False

    def __init__(self, size_in: int, size_out: int, pseudo_random: bool) -> None:
        super().__init__(size_in=size_in, size_out=size_out, pseudo_random=pseudo_random)

    def infer(self, u: Any) -> Spec:
        return Spec((self.size_out + 1,), np.dtype(np.int64))

    def kernel(self, u):
        n, m = self.size_in, self.size_out
        alpha, k = n / m, n // m
        if self.pseudo_random:
            v_max = min((k + 2) / alpha - 1, (n + 1 - k) / alpha - (m - 1))
            v = float(u[0]) * v_max
            inner = [math.ceil(alpha * (i + v)) - 1 for i in range(1, m)]
            return np.array([0, *inner, n], np.int64)
        widths = np.full(m, k, np.int64)
        widths[np.argsort(u[1:], kind="stable")[: n % m]] += 1
        return np.concatenate([[0], np.cumsum(widths)]).astype(np.int64)


def _windows(bounds: np.ndarray, size: int, overlapping: bool) -> list[tuple[int, int]]:
    ends = [min(int(e) + (1 if overlapping else 0), size) for e in bounds[1:]]
    return [(int(s), e) for s, e in zip(bounds[:-1], ends, strict=True)]


def _argmax_windows(x: np.ndarray, rows: np.ndarray, cols: np.ndarray, overlapping: bool):
    """Per output cell: the window's maximum and its flat (h * W + w) position, (N, h, w, C)."""
    n, h, w, c = x.shape
    rw, cw = _windows(rows, h, overlapping), _windows(cols, w, overlapping)
    values = np.empty((n, len(rw), len(cw), c), x.dtype)
    where = np.empty(values.shape, np.int64)
    for i, (r0, r1) in enumerate(rw):
        for j, (c0, c1) in enumerate(cw):
            patch = x[:, r0:r1, c0:c1, :].reshape(n, -1, c)
            first = patch.argmax(axis=1)  # the first maximum
            values[:, i, j] = np.take_along_axis(patch, first[:, None], 1)[:, 0]
            pw = c1 - c0
            where[:, i, j] = (r0 + first // pw) * w + c0 + first % pw
    return values, where


class SequencePool(Primitive):
    def __init__(self, overlapping: bool) -> None:
        super().__init__(overlapping=overlapping)

    def infer(self, x: Any, rows: Any, cols: Any) -> Spec:
        if len(x.shape) != 4:
            raise ValueError(f"FractionalMaxPool: x must be 4-d (NHWC), got shape {tuple(x.shape)}")
        return Spec((x.shape[0], rows.shape[0] - 1, cols.shape[0] - 1, x.shape[3]), x.dtype)

    def kernel(self, x, rows, cols):
        return _argmax_windows(x, rows, cols, self.overlapping)[0]

    def bprop(self, x, rows, cols, *, out, dout, needs):
        return SequencePoolGrad(self.overlapping)(x, rows, cols, dout), None, None


class SequencePoolGrad(Primitive):
    differentiable = False
    first_order_only = True

    def __init__(self, overlapping: bool) -> None:
        super().__init__(overlapping=overlapping)

    def infer(self, x: Any, rows: Any, cols: Any, dy: Any) -> Spec:
        return Spec(tuple(x.shape), x.dtype)

    def kernel(self, x, rows, cols, dy):
        n, h, w, c = x.shape
        _, where = _argmax_windows(x, rows, cols, self.overlapping)
        dx = np.zeros((n, h * w, c), np.float64)
        batch, channel = np.arange(n)[:, None, None, None], np.arange(c)[None, None, None, :]
        np.add.at(dx, (np.broadcast_to(batch, where.shape), where, np.broadcast_to(channel, where.shape)),
                  dy.astype(np.float64))
        return dx.reshape(x.shape).astype(x.dtype)


def fractional_max_pool(x: Any, pooling_ratio: Any, pseudo_random: bool = False,
                        overlapping: bool = False) -> Any:
    """``(y, row_sequence, col_sequence)`` (see the module docstring); ``pooling_ratio``:
    ``[1.0, rows, cols, 1.0]``, each at least 1."""
    ratio = [float(r) for r in pooling_ratio]
    if len(ratio) != 4 or ratio[0] != 1.0 or ratio[3] != 1.0 or min(ratio) < 1.0:
        raise ValueError(f"FractionalMaxPool: pooling_ratio must be [1.0, >= 1, >= 1, 1.0], got "
                         f"{pooling_ratio}")
    if len(x.shape) != 4 or not mstype.is_float(mstype.to_np(x.dtype)):
        raise TypeError(f"FractionalMaxPool: x must be a 4-d (NHWC) float tensor, got {x.dtype} "
                        f"of shape {tuple(x.shape)}")
    sequences = []
    for axis in (1, 2):
        size_in = int(x.shape[axis])
        size_out = int(size_in // ratio[axis])
        if size_out < 1:
            raise ValueError(f"FractionalMaxPool: pooling_ratio {ratio[axis]} leaves no output of axis "
                             f"{axis} (size {size_in})")
        u = random_draw("uniform", (size_out + 1,), np.float64)
        sequences.append(PoolingSequence(size_in, size_out, pseudo_random)(u))
    return SequencePool(overlapping)(x, *sequences), sequences[0], sequences[1]

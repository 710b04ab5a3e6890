"""Resizing by separable interpolation: per spatial axis an (out, in) matrix of weights,
worked out in NumPy from the static sizes and applied with one matmul, so gradients and
graph mode are those of the matmul (``nn.Upsample``, ``P.UpsampleNearest3D``,
``P.UpsampleTrilinear3D``). Coordinates follow MindSpore's documented mapping; bicubic is
TensorFlow's ResizeBicubic, which MindSpore runs."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..common.tensor import Tensor
from . import nn_ops as _nn_ops
from . import shape_ops as _shape


def _source(dst: np.ndarray, n_in: int, n_out: int, align_corners: bool) -> np.ndarray:
    """Input coordinates of output positions (MindSpore's documented mapping)."""
    if align_corners:
        return dst * ((n_in - 1) / (n_out - 1)) if n_out > 1 else np.zeros_like(dst)
    return (dst + 0.5) * (n_in / n_out) - 0.5 if n_out > 1 else np.zeros_like(dst)


def _cubic(t: np.ndarray, a: float = -0.75) -> list[np.ndarray]:
    """Keys' cubic convolution weights of the taps at -1, 0, 1, 2 for offsets ``t``."""
    def near(x):
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def weights(mode: str, n_in: int, n_out: int, align_corners: bool) -> np.ndarray:
    """The (n_out, n_in) matrix that resizes one axis."""
    w = np.zeros((n_out, n_in))
    dst = np.arange(n_out, dtype=np.float64)
    rows = np.arange(n_out)
    if mode in ("nearest", "nearest-exact"):
        offset = 0.5 if mode == "nearest-exact" else 0.0
        src = np.minimum(np.floor((dst + offset) * (n_in / n_out)), n_in - 1).astype(int)
        w[rows, src] = 1.0
    elif mode in ("linear", "bilinear", "trilinear"):
        src = np.maximum(_source(dst, n_in, n_out, align_corners), 0.0)
        lo = np.minimum(np.floor(src).astype(int), n_in - 1)
        hi = np.minimum(lo + 1, n_in - 1)
        frac = src - lo
        np.add.at(w, (rows, lo), 1.0 - frac)
        np.add.at(w, (rows, hi), frac)
    elif mode == "bicubic":
        # as TensorFlow's ResizeBicubic, which MindSpore's runs: half-pixel centres (no
        # align_corners) take Keys' a = -0.5 with taps outside the input dropped and the
        # rest renormalised; align_corners the legacy a = -0.75 with clamped taps
        src = _source(dst, n_in, n_out, align_corners)
        base = np.floor(src).astype(int)
        # the offset as TensorFlow's kernel reads its weight table: rounded to 1/1024
        offset = np.rint((src - base) * 1024) / 1024
        taps = _cubic(offset, -0.75 if align_corners else -0.5)
        if not align_corners:
            inside = [((base - 1 + k) >= 0) & ((base - 1 + k) < n_in) for k in range(4)]
            taps = [t * m for t, m in zip(taps, inside)]
            total = sum(taps)
            taps = [t / total for t in taps]
        for k, tap in enumerate(taps):
            np.add.at(w, (rows, np.clip(base - 1 + k, 0, n_in - 1)), tap)
    else:  # area: the mean over the adaptive bin
        for i in range(n_out):
            start, stop = (i * n_in) // n_out, -((-(i + 1) * n_in) // n_out)
            w[i, start:stop] = 1.0 / (stop - start)
    return w


def resize_axes(x: Any, sizes: tuple[int, ...], mode: str, align_corners: bool) -> Any:
    """``x`` with its last ``len(sizes)`` axes resized to ``sizes`` by ``mode``."""
    shape = tuple(x.shape)
    first = len(shape) - len(sizes)
    out = x
    for axis, (n_in, n_out) in enumerate(zip(shape[first:], sizes)):
        if n_in == n_out and mode != "bicubic":
            continue
        w = Tensor(weights(mode, n_in, n_out, align_corners).T.astype(x.dtype.np))
        # bring the axis last, resize it with one matmul, put it back
        perm = tuple(i for i in range(len(shape)) if i != first + axis) + (first + axis,)
        resized = _nn_ops.matmul(_shape.transpose(out, perm), w)
        out = _shape.transpose(resized, tuple(int(i) for i in np.argsort(perm)))
    return out

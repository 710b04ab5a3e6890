"""``nn.Upsample``: resizing by interpolation along each spatial axis in turn. Every mode
here is separable, so an axis is resized by one (out, in) matrix of weights worked out in
NumPy from the static sizes and applied with a matmul: a composition (gradients and graph
mode come with it)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import ops
from .cell import Cell
from .checks import tensor_shape

# mode -> the input ranks it takes
MODES = {"nearest": (3, 4, 5), "linear": (3,), "bilinear": (4,), "trilinear": (5,),
         "bicubic": (4,), "area": (3, 4, 5), "nearest-exact": (3, 4)}


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


class Upsample(Cell):
    """Resize the spatial axes of (N, C, [D, [H,]] W) to ``size`` or ``floor(size *
    scale_factor)`` by ``mode`` (nearest, linear, bilinear, trilinear, bicubic, area,
    nearest-exact); ``align_corners`` for the linear and cubic modes."""

    def __init__(self, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
                 align_corners: Any = None, recompute_scale_factor: Any = None) -> None:
        super().__init__()
        if mode not in MODES:
            raise ValueError(f"Upsample: mode must be one of {list(MODES)}, got {mode!r}")
        if (size is None) == (scale_factor is None):
            raise ValueError("Upsample: exactly one of size and scale_factor must be given")
        if align_corners and mode not in ("linear", "bilinear", "trilinear", "bicubic"):
            raise ValueError(f"Upsample: align_corners applies to the linear and bicubic modes, "
                             f"not {mode!r}")
        self.size, self.scale_factor, self.mode = size, scale_factor, mode
        self.align_corners = bool(align_corners)
        self.recompute_scale_factor = recompute_scale_factor

    def _sizes(self, spatial: tuple[int, ...]) -> tuple[int, ...]:
        rank = len(spatial)
        given = self.size if self.size is not None else self.scale_factor
        values = tuple(given) if isinstance(given, tuple | list) else (given,) * rank
        if len(values) != rank:
            raise ValueError(f"Upsample: {'size' if self.size is not None else 'scale_factor'} "
                             f"has {len(values)} values for {rank} spatial axes")
        if self.size is not None:
            return tuple(int(v) for v in values)
        return tuple(int(math.floor(n * float(f))) for n, f in zip(spatial, values))

    def construct(self, x):
        shape = tensor_shape("Upsample", x)
        if len(shape) not in MODES[self.mode]:
            raise ValueError(f"Upsample: mode {self.mode!r} takes a "
                             f"{' or '.join(f'{r}-d' for r in MODES[self.mode])} input, got {shape}")
        from ..tensor import Tensor

        spatial = shape[2:]
        sizes = self._sizes(spatial)
        if self.mode == "area" and len(spatial) == 1 and spatial[0] % sizes[0]:
            # MindSpore's 1-d area resize is an adaptive average pool that needs whole bins
            raise ValueError(f"Upsample: mode 'area' on a 3-d input needs the length {spatial[0]} "
                             f"to be divisible by the output size {sizes[0]}")
        if any(s < 1 for s in sizes):
            raise ValueError(f"Upsample: the output sizes {sizes} must be positive")
        out = x
        for axis, (n_in, n_out) in enumerate(zip(spatial, sizes)):
            if n_in == n_out and self.mode != "bicubic":
                continue
            w = Tensor(weights(self.mode, n_in, n_out, self.align_corners).T.astype(x.dtype.np))
            # bring the axis last, resize it with one matmul, put it back
            perm = tuple(i for i in range(len(shape)) if i != 2 + axis) + (2 + axis,)
            moved = ops.transpose(out, perm)
            resized = ops.matmul(moved, w)
            inverse = tuple(int(np.argsort(perm)[i]) for i in range(len(shape)))
            out = ops.transpose(resized, inverse)
        return out

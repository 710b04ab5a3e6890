"""``P.ResizeBicubic(align_corners=False, half_pixel_centers=False)(x, size)``: NCHW images
resized by cubic convolution, as MindSpore's CPU kernel (TensorFlow's ``resize_bicubic``).

Output position ``d`` samples ``d * scale`` (``scale = in / out``; ``align_corners``: ``(in -
1) / (out - 1)``), or with ``half_pixel_centers`` ``(d + 0.5) * scale - 0.5``, from the four
inputs around it, weighted by Keys' cubic kernel with ``a = -0.75`` (half-pixel: ``a =
-0.5``). The fractional offset is rounded to 1/1024 first (the kernels read the weights
from a table of that step). Taps outside the input repeat its edge; with half-pixel
centres they are dropped instead and the other weights renormalised.

The weights depend on the (static) sizes only, so the resize is two products with constant
matrices: values, gradients and graph mode are ``MatMul``'s.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtype as mstype
from ..common.tensor import Tensor
from ._class_form import class_form
from ._utils import argument_error
from .nn_ops import matmul
from .shape_ops import reshape, transpose

_TABLE_STEPS = 1024


def _keys(t: np.ndarray, a: float) -> np.ndarray:
    t = np.abs(t)
    near = ((a + 2) * t - (a + 3)) * t * t + 1
    far = ((a * t - 5 * a) * t + 8 * a) * t - 4 * a
    return np.where(t <= 1, near, np.where(t < 2, far, 0.0))


def cubic_weights(n_in: int, n_out: int, align_corners: bool, half_pixel: bool) -> np.ndarray:
    """``(n_out, n_in)``: row ``d`` holds the weights output ``d`` gives each input."""
    a = -0.5 if half_pixel else -0.75
    scale = (n_in - 1) / (n_out - 1) if align_corners and n_out > 1 else n_in / n_out
    dst = np.arange(n_out, dtype=np.float64)
    src = (dst + 0.5) * scale - 0.5 if half_pixel else dst * scale
    base = np.floor(src)
    frac = np.floor((src - base) * _TABLE_STEPS + 0.5) / _TABLE_STEPS
    weights = np.zeros((n_out, n_in))
    rows = np.arange(n_out)
    for k in range(-1, 3):
        index = base + k
        w = _keys(frac - k, a)
        if half_pixel:
            w = np.where((index >= 0) & (index <= n_in - 1), w, 0.0)
        np.add.at(weights, (rows, np.clip(index, 0, n_in - 1).astype(np.int64)), w)
    if half_pixel:
        weights /= weights.sum(1, keepdims=True)
    return weights


def _sizes(size: Any) -> tuple[int, int]:
    if hasattr(size, "asnumpy"):
        size = size.asnumpy().tolist()
    if not isinstance(size, list | tuple) or len(size) != 2:
        raise argument_error("ResizeBicubic", ValueError(
            f"size must hold 2 sizes (height, width), got {size!r}"))
    return int(size[0]), int(size[1])


def _constant(array: np.ndarray, dtype: Any) -> Any:
    return Tensor(np.ascontiguousarray(array.astype(mstype.to_np(dtype))))


def resize_bicubic(x: Any, size: Any, *, align_corners: bool = False,
                   half_pixel_centers: bool = False) -> Any:
    """See the module docstring."""
    if align_corners and half_pixel_centers:
        raise argument_error("ResizeBicubic", ValueError(
            "align_corners and half_pixel_centers cannot both be True"))
    if len(x.shape) != 4 or np.dtype(mstype.to_np(x.dtype)).kind != "f":
        raise argument_error("ResizeBicubic", TypeError(
            f"x must be a 4-D NCHW float tensor, got {x.dtype} of shape {tuple(x.shape)}"))
    n, c, h, w = x.shape
    out_h, out_w = _sizes(size)
    if out_h < 1 or out_w < 1:
        raise argument_error("ResizeBicubic", ValueError(f"the sizes must be positive, got {(out_h, out_w)}"))
    across = _constant(cubic_weights(w, out_w, align_corners, half_pixel_centers), x.dtype)
    down = _constant(cubic_weights(h, out_h, align_corners, half_pixel_centers), x.dtype)
    rows = matmul(reshape(x, (n * c * h, w)), across, transpose_b=True)  # (N*C*H, Wo)
    columns = reshape(transpose(reshape(rows, (n * c, h, out_w)), (0, 2, 1)), (n * c * out_w, h))
    out = matmul(columns, down, transpose_b=True)  # (N*C*Wo, Ho)
    return transpose(reshape(out, (n, c, out_w, out_h)), (0, 1, 3, 2))


ResizeBicubic = class_form("ResizeBicubic", resize_bicubic, align_corners=False, half_pixel_centers=False)

"""``mint.nn.functional``'s 1-d convolution and resampling, built on 2-d ops.

Contracts (PyTorch's, as MindSpore 2.10's ``mint``):

- ``conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1)``: NCL
  input, weight ``(out, in / groups, k)``; ``padding`` an int, ``'same'`` or ``'valid'``;
  computed as a 2-d convolution with a height of 1;
- ``interpolate(input, size=None, scale_factor=None, mode='nearest', align_corners=None)``
  for NCL / NCHW inputs, ``nearest``, ``linear`` (3-d) or ``bilinear`` (4-d), with
  :mod:`framework.ops.resample`'s kernels; ``step`` is ``in / out``, or ``1 / scale_factor``
  when a scale is given (and ``recompute_scale_factor`` is not set).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..common.tensor import Tensor
from ..dtype import int64 as ms_int64
from ..ops import functional as ops
from ..ops._utils import argument_error
from ..ops.resample import plan, resample_axis


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):  # noqa: A002
    if isinstance(padding, str):
        pad_mode, pads = padding, 0
    else:
        pad_mode, pads = "pad", (0, 0, int(padding), int(padding))
    out = ops.conv2d(ops.expand_dims(input, 2), ops.expand_dims(weight, 2), None, (1, stride),
                     pad_mode, pads, (1, dilation), groups)
    out = ops.squeeze(out, 2)
    return out if bias is None else out + ops.reshape(bias, (1, -1, 1))


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,  # noqa: A002
                recompute_scale_factor=None):
    spatial_axes = input.ndim - 2
    linear = {1: "linear", 2: "bilinear"}.get(spatial_axes)
    if spatial_axes not in (1, 2) or mode not in ("nearest", linear):
        raise argument_error("interpolate", ValueError(
            f"mode {mode!r} on a {input.ndim}-d input is not supported (nearest, linear for 3-d, "
            "bilinear for 4-d)"))
    axes = plan("interpolate", tuple(input.shape[2:]), size, scale_factor, recompute_scale_factor)
    out = input
    for offset, (n, step) in enumerate(axes):
        out = resample_axis(out, 2 + offset, n, step, "nearest" if mode == "nearest" else "linear",
                            bool(align_corners))
    return out


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):  # noqa: A002
    return interpolate(input, size, scale_factor, mode, align_corners)


def _unnormalize(coord: Any, size: int, align_corners: bool, padding_mode: str) -> Any:
    """A grid coordinate in [-1, 1] as a pixel coordinate (clipped for ``'border'``)."""
    pixel = (coord + 1.0) * ((size - 1) / 2.0) if align_corners else ((coord + 1.0) * size - 1.0) / 2.0
    return ops.clamp(pixel, 0.0, float(size - 1)) if padding_mode == "border" else pixel


def _corner(table: Any, shape: tuple[int, ...], ys: Any, xs: Any) -> Any:
    """``input[n, :, ys, xs]`` as ``(N, Ho, Wo, C)``, zero where the corner is outside."""
    n, height, width, channels = shape
    inside = ops.logical_and(ops.logical_and(ys >= 0, ys < height), ops.logical_and(xs >= 0, xs < width))
    batch = Tensor(np.arange(n, dtype=np.int64).reshape(n, 1, 1) * (height * width))
    flat = batch + ops.clamp(ys, 0, height - 1) * width + ops.clamp(xs, 0, width - 1)
    picked = ops.reshape(ops.gather(table, ops.reshape(flat, (-1,)), 0), tuple(ys.shape) + (channels,))
    return picked * ops.expand_dims(ops.cast(inside, table.dtype), -1)


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):  # noqa: A002
    """Samples a 4-d ``input`` (N, C, H, W) at ``grid`` (N, Ho, Wo, 2) of (x, y) in [-1, 1]:
    ``mode`` ``'bilinear'`` or ``'nearest'`` (half to even), ``padding_mode`` ``'zeros'`` or
    ``'border'``; the output is (N, C, Ho, Wo)."""
    if input.ndim != 4 or mode not in ("bilinear", "nearest") or padding_mode not in ("zeros", "border"):
        raise argument_error("grid_sample", ValueError(
            "supported: 4-d input, mode 'bilinear'/'nearest', padding_mode 'zeros'/'border'"))
    n, channels, height, width = input.shape
    table = ops.reshape(ops.transpose(input, (0, 2, 3, 1)), (-1, channels))
    shape = (n, height, width, channels)
    ix = _unnormalize(grid[..., 0], width, bool(align_corners), padding_mode)
    iy = _unnormalize(grid[..., 1], height, bool(align_corners), padding_mode)
    if mode == "nearest":
        out = _corner(table, shape, ops.cast(ops.round(iy), ms_int64), ops.cast(ops.round(ix), ms_int64))
    else:
        x0, y0 = ops.floor(ix), ops.floor(iy)
        wx, wy = ops.expand_dims(ix - x0, -1), ops.expand_dims(iy - y0, -1)
        x0, y0 = ops.cast(x0, ms_int64), ops.cast(y0, ms_int64)
        top = _corner(table, shape, y0, x0) * (1 - wx) + _corner(table, shape, y0, x0 + 1) * wx
        bottom = _corner(table, shape, y0 + 1, x0) * (1 - wx) + _corner(table, shape, y0 + 1, x0 + 1) * wx
        out = top * (1 - wy) + bottom * wy
    return ops.transpose(out, (0, 3, 1, 2))

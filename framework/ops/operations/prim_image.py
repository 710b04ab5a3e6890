"""Image primitive classes (resizing, grid sampling, space-to-batch, local response
normalisation, pooling with indices, unpooling, patches) over the functional ops we have,
as MindSpore 2.10's ``mindspore.ops.operations`` spell them. Resizing and
patches gather at positions computed from the (static) sizes (and blend them), so values,
gradients and graph mode come from ``gather``, ``scatter_add`` and elementwise ops.

Contracts (``P.X(attrs)(inputs)``; NCHW):

- ``ResizeNearestNeighbor(size, align_corners=False, half_pixel_centers=False)(x)``: the
  source of output ``d`` is ``floor(d * in / out)``, with ``align_corners`` ``floor(d * (in -
  1) / (out - 1) + 0.5)``; as MindSpore 2.10 on CPU, ``half_pixel_centers`` changes nothing;
  ``ResizeNearestNeighborV2(align_corners=False, half_pixel_centers=False)(x, size)``: the
  same, with ``half_pixel_centers`` ``floor((d + 0.5) * in / out)``;
- ``ResizeBilinearV2(align_corners=False, half_pixel_centers=False)(x, size)`` and
  ``ResizeLinear1D(coordinate_transformation_mode='align_corners')(x, size)`` (``(N, C, W)``,
  ``'align_corners'`` or ``'half_pixel'``): linear blends of the two neighbours of
  ``d * in / out`` (``align_corners``: ``d * (in - 1) / (out - 1)``; half-pixel: ``(d + 0.5)
  * in / out - 0.5``), clamped to the input;
- ``GridSampler2D(interpolation_mode='bilinear', padding_mode='zeros', align_corners=False)(x,
  grid)``: ``mint.nn.functional.grid_sample``;
- ``SpaceToBatchND(block_shape, paddings)(x)``: the spatial axes padded, then split into
  ``block_shape`` blocks moved to the batch (batch index ``(i * b1 + j) * N + n``);
- ``LRN(depth_radius=5, bias=1.0, alpha=1.0, beta=0.5, norm_region='ACROSS_CHANNELS')(x)``:
  ``x / (bias + alpha * sum of x**2 over channels c - r .. c + r) ** beta``;
- ``MaxPoolWithArgmaxV2(kernel_size, strides=None, pads=0, dilation=(1, 1), ceil_mode=False,
  argmax_type=int64)(x)``: ``(output, argmax)``, the window maxima and the flat ``H * W``
  index of each in its input channel (the first on ties, in window order);
- ``Im2Col(ksizes, strides=1, dilations=1, pads=0)(x)``: ``(N, C, kh * kw, L)``, each
  kernel offset's values over the ``L = Ho * Wo`` windows of the zero-padded input (``pads``
  an int, ``(h, w)`` or ``(top, bottom, left, right)``); ``Col2Im(kernel_size, dilation=1,
  padding=0, stride=1)(x, output_size)``: its adjoint, overlapping entries summed;
- ``MaxUnpool2D(ksize, strides=0, pads=0, output_shape=(), data_format='NCHW')(x, argmax)``:
  zeros of ``(H - 1) * stride - 2 * pad + ksize`` (or ``output_shape``) with each value
  of ``x`` at its flat ``argmax`` position in its channel.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import dtype as mstype
from ...mint import resample as mint_resample
from ...mint import shape as mint_shape
from .. import functional as ops
from .._class_form import REQUIRED, class_form
from ..padding_modes import pad as pad_last_first


def _tensor(array: np.ndarray) -> Any:
    from ...common.tensor import Tensor

    return Tensor(array)


def _sources(size_in: int, size_out: int, align_corners: bool, half_pixel: bool) -> np.ndarray:
    """Where each output position samples the input (TensorFlow's resize conventions)."""
    dst = np.arange(size_out, dtype=np.float64)
    if align_corners:
        return dst * ((size_in - 1) / (size_out - 1) if size_out > 1 else 0.0)
    scale = size_in / size_out
    return (dst + 0.5) * scale - 0.5 if half_pixel else dst * scale


def _sizes(who: str, x: Any, size: Any, rank: int) -> tuple[int, ...]:
    if hasattr(size, "asnumpy"):
        size = size.asnumpy().tolist()
    if isinstance(size, int):
        size = (size,)
    if len(x.shape) != rank or not isinstance(size, list | tuple) or len(size) != rank - 2:
        raise ValueError(f"{who}: needs a {rank}-D input and {rank - 2} output sizes, got shape "
                         f"{tuple(x.shape)} and size {size!r}")
    return tuple(int(s) for s in size)


def _take(x: Any, index: np.ndarray, axis: int) -> Any:
    return ops.gather(x, _tensor(index.astype(np.int32)), axis)


def _nearest(who: str, x: Any, size: Any, align_corners: bool, half_pixel: bool) -> Any:
    for axis, n_out in zip((2, 3), _sizes(who, x, size, 4)):
        n_in = x.shape[axis]
        if align_corners:
            src = np.floor(_sources(n_in, n_out, True, False) + 0.5)  # halves round up
        elif half_pixel:
            src = np.floor((np.arange(n_out) + 0.5) * (n_in / n_out))
        else:
            src = np.floor(_sources(n_in, n_out, False, False))
        x = _take(x, np.clip(src, 0, n_in - 1), axis)
    return x


def _linear(who: str, x: Any, size: Any, align_corners: bool, half_pixel: bool) -> Any:
    if align_corners and half_pixel:
        raise ValueError(f"{who}: align_corners and half_pixel_centers cannot both be True")
    rank = len(x.shape)
    for axis, n_out in zip(range(2, rank), _sizes(who, x, size, rank)):
        n_in = x.shape[axis]
        src = np.clip(_sources(n_in, n_out, align_corners, half_pixel), 0, n_in - 1)
        low = np.floor(src)
        high = np.minimum(low + 1, n_in - 1)
        shape = [1] * rank
        shape[axis] = n_out
        weight = ops.cast(_tensor((src - low).reshape(shape).astype(np.float32)), x.dtype)
        x = _take(x, low, axis) * (1 - weight) + _take(x, high, axis) * weight
    return x


def _resize_nearest(x: Any, *, size: Any, align_corners: bool, half_pixel_centers: bool) -> Any:
    del half_pixel_centers  # see the module docstring
    return _nearest("ResizeNearestNeighbor", x, size, align_corners, False)


def _resize_nearest_v2(x: Any, size: Any, *, align_corners: bool, half_pixel_centers: bool) -> Any:
    return _nearest("ResizeNearestNeighborV2", x, size, align_corners, half_pixel_centers)


def _resize_bilinear(x: Any, size: Any, *, align_corners: bool, half_pixel_centers: bool) -> Any:
    return _linear("ResizeBilinearV2", x, size, align_corners, half_pixel_centers)


def _resize_linear_1d(x: Any, size: Any, *, coordinate_transformation_mode: str) -> Any:
    mode = coordinate_transformation_mode
    if mode not in ("align_corners", "half_pixel"):
        raise ValueError(f"ResizeLinear1D: coordinate_transformation_mode must be 'align_corners' or "
                         f"'half_pixel', got {mode!r}")
    return _linear("ResizeLinear1D", x, size, mode == "align_corners", mode == "half_pixel")


def _grid_sampler(x: Any, grid: Any, *, interpolation_mode: str, padding_mode: str,
                  align_corners: bool) -> Any:
    return mint_resample.grid_sample(x, grid, interpolation_mode, padding_mode, align_corners)


def _space_to_batch(x: Any, *, block_shape: Any, paddings: Any) -> Any:
    blocks = [int(b) for b in (block_shape if isinstance(block_shape, list | tuple) else (block_shape,) * 2)]
    pads = np.asarray(paddings, np.int64).reshape(len(blocks), 2)
    if len(x.shape) != 4 or len(blocks) != 2:
        raise ValueError(f"SpaceToBatchND: needs a 4-D input and 2 block sizes, got shape {tuple(x.shape)} "
                         f"and block_shape {block_shape!r}")
    flat = tuple(int(p) for pair in pads[::-1] for p in pair)
    if any(flat):
        x = pad_last_first(x, flat)
    n, c, h, w = x.shape
    (b0, b1) = blocks
    if h % b0 or w % b1:
        raise ValueError(f"SpaceToBatchND: padded spatial shape {(h, w)} is not a multiple of "
                         f"{tuple(blocks)}")
    y = ops.reshape(x, (n, c, h // b0, b0, w // b1, b1))
    return ops.reshape(ops.transpose(y, (3, 5, 0, 1, 2, 4)), (b0 * b1 * n, c, h // b0, w // b1))


def _lrn(x: Any, *, depth_radius: int, bias: float, alpha: float, beta: float, norm_region: str) -> Any:
    if norm_region != "ACROSS_CHANNELS":
        raise ValueError(f"LRN: norm_region must be 'ACROSS_CHANNELS', got {norm_region!r}")
    channels = x.shape[1]
    padded = pad_last_first(x * x, (0, 0, 0, 0, depth_radius, depth_radius))
    total = ops.narrow(padded, 1, 0, channels)
    for shift in range(1, 2 * depth_radius + 1):
        total = total + ops.narrow(padded, 1, shift, channels)
    return x / ops.pow(total * alpha + bias, beta)


def _pool_size(size: int, kernel: int, stride: int, pad: int, dilation: int, ceil_mode: bool) -> int:
    span = size + 2 * pad - dilation * (kernel - 1) - 1
    out = (span + (stride - 1 if ceil_mode else 0)) // stride + 1
    if ceil_mode and (out - 1) * stride >= size + pad:  # the last window must start inside
        out -= 1
    return out


def _max_pool_argmax(x: Any, *, kernel_size: Any, strides: Any, pads: Any, dilation: Any, ceil_mode: bool,
                     argmax_type: Any) -> Any:
    if len(x.shape) != 4:
        raise ValueError(f"MaxPoolWithArgmaxV2: needs a 4-D NCHW input, got shape {tuple(x.shape)}")
    kernel = _pair(kernel_size)
    stride = kernel if strides is None else _pair(strides)
    pad, dil = _pair(pads), _pair(dilation)
    n, c, h, w = x.shape
    out = [_pool_size(size, k, s, p, d, ceil_mode)
           for size, k, s, p, d in zip((h, w), kernel, stride, pad, dil)]
    need = [(o - 1) * s + d * (k - 1) + 1 for o, s, d, k in zip(out, stride, dil, kernel)]
    extra = [max(0, nd - size - p) for nd, size, p in zip(need, (h, w), pad)]
    low = float(np.finfo(np.float32).min) if "float" in str(x.dtype).lower() else None
    padded = pad_last_first(x, (pad[1], pad[1] + extra[1], pad[0], pad[0] + extra[0]), value=low)
    windows, places = [], []
    rows, cols = np.arange(out[0]) * stride[0] - pad[0], np.arange(out[1]) * stride[1] - pad[1]
    for i in range(kernel[0]):
        for j in range(kernel[1]):
            top, left = i * dil[0], j * dil[1]
            windows.append(padded[:, :, top:top + (out[0] - 1) * stride[0] + 1:stride[0],
                                  left:left + (out[1] - 1) * stride[1] + 1:stride[1]])
            places.append((rows[:, None] + top) * w + (cols[None, :] + left))
    stacked = ops.stack(windows, -1)
    choice = ops.argmax(stacked, -1)
    table = _tensor(np.stack(places, -1).reshape(1, 1, out[0], out[1], -1).astype(np.int64))
    index = mint_shape.gather(ops.broadcast_to(table, (n, c, out[0], out[1], len(places))), 4,
                           ops.expand_dims(ops.cast(choice, table.dtype), -1))
    return stacked.max(-1), ops.cast(ops.squeeze(index, -1), argmax_type)


def _patch_geometry(who: str, shape: tuple, kernel: Any, stride: Any, dilation: Any, pad: Any,
                    size: tuple[int, int]) -> tuple[tuple[int, int, int, int], tuple[int, int], np.ndarray]:
    """Padding (top, bottom, left, right), the output grid and, per kernel offset and grid
    position, the flat index into the padded ``size`` plane: ``(kh * kw, Ho * Wo)``."""
    if len(shape) != 4:
        raise ValueError(f"{who}: needs a 4-D NCHW input, got shape {tuple(shape)}")
    (kh, kw), (sh, sw), (dh, dw) = _pair(kernel), _pair(stride), _pair(dilation)
    pads = (pad,) * 4 if isinstance(pad, int) else tuple(int(p) for p in pad)
    pads = pads if len(pads) == 4 else (pads[0], pads[0], pads[1], pads[1])
    height, width = size[0] + pads[0] + pads[1], size[1] + pads[2] + pads[3]
    grid = ((height - dh * (kh - 1) - 1) // sh + 1, (width - dw * (kw - 1) - 1) // sw + 1)
    if min(grid) < 1:
        raise ValueError(f"{who}: the kernel does not fit the padded input {(height, width)}")
    rows = np.arange(grid[0])[:, None] * sh
    cols = np.arange(grid[1])[None, :] * sw
    index = [((rows + i * dh) * width + cols + j * dw).ravel() for i in range(kh) for j in range(kw)]
    return pads, grid, np.stack(index)


def _im2col(x: Any, *, ksizes: Any, strides: Any, dilations: Any, pads: Any) -> Any:
    n, c, h, w = (tuple(x.shape) + (0,) * 4)[:4]
    geometry = _patch_geometry("Im2Col", tuple(x.shape), ksizes, strides, dilations, pads, (h, w))
    (top, bottom, left, right), _, index = geometry
    padded = x
    if any((top, bottom, left, right)):
        padded = pad_last_first(x, (left, right, top, bottom))
    flat = ops.reshape(padded, (n, c, -1))
    picked = ops.gather(flat, _tensor(index.ravel().astype(np.int32)), 2)
    return ops.reshape(picked, (n, c, *index.shape))


def _col2im(x: Any, output_size: Any, *, kernel_size: Any, dilation: Any, padding: Any, stride: Any) -> Any:
    size = output_size.asnumpy().tolist() if hasattr(output_size, "asnumpy") else list(output_size)
    h, w = int(size[0]), int(size[1])
    pads, _, index = _patch_geometry("Col2Im", tuple(x.shape), kernel_size, stride, dilation, padding, (h, w))
    n, c = x.shape[0], x.shape[1]
    if tuple(x.shape[2:]) != index.shape:
        raise ValueError(f"Col2Im: input {tuple(x.shape)} does not match the (kernel, positions) "
                         f"{index.shape}")
    height, width = h + pads[0] + pads[1], w + pads[2] + pads[3]
    places = ops.broadcast_to(_tensor(index.reshape(1, 1, -1).astype(np.int64)), (n, c, index.size))
    canvas = mint_shape.scatter_add(ops.zeros((n, c, height * width), x.dtype), 2, places,
                                 ops.reshape(x, (n, c, -1)))
    return ops.reshape(canvas, (n, c, height, width))[:, :, pads[0]:pads[0] + h, pads[2]:pads[2] + w]


def _pair(value: Any) -> tuple[int, int]:
    return (int(value), int(value)) if isinstance(value, int) else (int(value[-2]), int(value[-1]))


def _max_unpool(x: Any, argmax: Any, *, ksize: Any, strides: Any, pads: Any, output_shape: Any,
                data_format: str) -> Any:
    if data_format != "NCHW" or len(x.shape) != 4:
        raise ValueError(f"MaxUnpool2D: needs a 4-D NCHW input, got shape {tuple(x.shape)}, {data_format!r}")
    kernel, pad = _pair(ksize), _pair(pads)
    stride = kernel if strides in (0, (0, 0), None) else _pair(strides)
    n, c, h, w = x.shape
    if output_shape:
        out_h, out_w = int(output_shape[-2]), int(output_shape[-1])
    else:
        out_h = (h - 1) * stride[0] - 2 * pad[0] + kernel[0]
        out_w = (w - 1) * stride[1] - 2 * pad[1] + kernel[1]
    flat = ops.zeros((n, c, out_h * out_w), x.dtype)
    index = ops.reshape(argmax, (n, c, h * w))
    out = mint_shape.scatter(flat, 2, index, ops.reshape(x, (n, c, h * w)))
    return ops.reshape(out, (n, c, out_h, out_w))


ResizeNearestNeighbor = class_form("ResizeNearestNeighbor", _resize_nearest, size=REQUIRED,
                                   align_corners=False, half_pixel_centers=False)
ResizeNearestNeighborV2 = class_form("ResizeNearestNeighborV2", _resize_nearest_v2, align_corners=False,
                                     half_pixel_centers=False)
ResizeBilinearV2 = class_form("ResizeBilinearV2", _resize_bilinear, align_corners=False,
                              half_pixel_centers=False)
ResizeLinear1D = class_form("ResizeLinear1D", _resize_linear_1d,
                            coordinate_transformation_mode="align_corners")
GridSampler2D = class_form("GridSampler2D", _grid_sampler, interpolation_mode="bilinear",
                           padding_mode="zeros", align_corners=False)
SpaceToBatchND = class_form("SpaceToBatchND", _space_to_batch, block_shape=REQUIRED, paddings=REQUIRED)
LRN = class_form("LRN", _lrn, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5, norm_region="ACROSS_CHANNELS")
MaxPoolWithArgmaxV2 = class_form("MaxPoolWithArgmaxV2", _max_pool_argmax, kernel_size=REQUIRED,
                                 strides=None, pads=0, dilation=(1, 1), ceil_mode=False,
                                 argmax_type=mstype.int64)
Im2Col = class_form("Im2Col", _im2col, ksizes=REQUIRED, strides=1, dilations=1, pads=0)
Col2Im = class_form("Col2Im", _col2im, kernel_size=REQUIRED, dilation=1, padding=0, stride=1)
MaxUnpool2D = class_form("MaxUnpool2D", _max_unpool, ksize=REQUIRED, strides=0, pads=0, output_shape=(),
                         data_format="NCHW")

__all__ = ["Col2Im", "GridSampler2D", "Im2Col", "LRN", "MaxPoolWithArgmaxV2", "MaxUnpool2D",
           "ResizeBilinearV2", "ResizeLinear1D", "ResizeNearestNeighbor", "ResizeNearestNeighborV2",
           "SpaceToBatchND"]

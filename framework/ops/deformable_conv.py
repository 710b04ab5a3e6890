"""``deformable_conv2d``: a convolution whose every kernel tap reads the input at its own
learned offset (bilinear between pixels, zero outside the image), scaled by a learned mask.

``offsets`` is ``(N, 3 * dg * kh * kw, H_out, W_out)``: the x offsets, then the y offsets,
then the masks (each block ordered deformable group, then kernel row-major; MindSpore's
layout). The sample positions are computed with framework ops from the offsets, each
corner is read with ``GatherElements`` and the taps are contracted with the weight in one
product, so both modes and the gradients (input, weight, offsets, masks, bias) are those
primitives'.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtype as mstype
from ..common.tensor import Tensor
from ._class_form import REQUIRED, class_form
from ._utils import argument_error
from .elementwise import cast, greater, less
from .math_binary import logical_and
from .math_unary import floor
from .nn_ops import matmul
from .scatter_elements import GatherElements
from .shape_ops import broadcast_to, concat, expand_dims, reshape, transpose


def _tensor(array: np.ndarray) -> Any:
    return Tensor(np.ascontiguousarray(array))


def _four(op: str, name: str, value: Any) -> tuple[int, int, int, int]:
    values = tuple(int(v) for v in value)
    if len(values) != 4:
        raise argument_error(op, ValueError(f"{name} must be 4 ints, got {value!r}"))
    return values  # type: ignore[return-value]


def deformable_conv2d(x, weight, offsets, kernel_size, strides, padding, bias=None,
                      dilations=(1, 1, 1, 1), groups=1, deformable_groups=1, modulated=True):
    op = "deformable_conv2d"
    if len(x.shape) != 4 or len(weight.shape) != 4:
        raise argument_error(op, ValueError(
            f"x and weight must be 4-d, got {tuple(x.shape)}, {tuple(weight.shape)}"))
    n, c, h, w = x.shape
    kh, kw = (int(v) for v in kernel_size)
    _, _, sh, sw = _four(op, "strides", strides)
    top, bottom, left, right = _four(op, "padding", padding)
    _, _, dh, dw = _four(op, "dilations", dilations)
    cout, dg, k = weight.shape[0], int(deformable_groups), kh * kw
    if (c % groups or cout % groups or weight.shape[1] != c // groups or c % dg
            or tuple(weight.shape[2:]) != (kh, kw)):
        raise argument_error(op, ValueError(
            f"weight {tuple(weight.shape)} must be (C_out, C_in / groups, kh, kw) for x "
            f"{tuple(x.shape)}, groups={groups}, kernel_size={(kh, kw)} (C_in divisible by "
            f"deformable_groups={dg})"))
    ho = (h + top + bottom - dh * (kh - 1) - 1) // sh + 1
    wo = (w + left + right - dw * (kw - 1) - 1) // sw + 1
    if tuple(offsets.shape) != (n, 3 * dg * k, ho, wo):
        raise argument_error(op, ValueError(
            f"offsets must be (N, 3 * deformable_groups * kh * kw, H_out, W_out) = "
            f"{(n, 3 * dg * k, ho, wo)}, got {tuple(offsets.shape)}"))
    total = _taps(x, offsets, (kh, kw), (sh, sw), (top, left), (dh, dw), (ho, wo), dg, modulated)
    # (N, C, K, L) taps contracted with the weight, one product per group
    taps = reshape(total, (n, groups, (c // groups) * k, ho * wo))
    kernel = reshape(weight, (groups, cout // groups, (c // groups) * k))
    outs = [matmul(kernel[g], reshape(transpose(taps[:, g], (1, 0, 2)), ((c // groups) * k, -1)))
            for g in range(groups)]
    out = concat(outs, 0) if groups > 1 else outs[0]  # (C_out, N * L)
    out = transpose(reshape(out, (cout, n, ho, wo)), (1, 0, 2, 3))
    if bias is not None:
        out = out + reshape(bias, (1, cout, 1, 1))
    return out


def _taps(x: Any, offsets: Any, kernel: tuple[int, int], stride: tuple[int, int], start: tuple[int, int],
          dilation: tuple[int, int], out: tuple[int, int], dg: int, modulated: bool) -> Any:
    """``(N, dg, C / dg, kh * kw, H_out, W_out)``: each kernel tap's bilinear sample of ``x`` at
    its offset position (times its mask when ``modulated``)."""
    n, c, h, w = x.shape
    (kh, kw), (sh, sw), (top, left), (dh, dw), (ho, wo) = kernel, stride, start, dilation, out
    k = kh * kw
    dtype = mstype.to_np(x.dtype)
    # the undeformed tap positions: (1, 1, K, Ho, Wo)
    ki, kj = (a.reshape(-1) for a in np.meshgrid(np.arange(kh), np.arange(kw), indexing="ij"))
    rows = ki[:, None, None] * dh + (np.arange(ho) * sh - top)[None, :, None] + np.zeros((1, 1, wo))
    cols = kj[:, None, None] * dw + (np.arange(wo) * sw - left)[None, None, :] + np.zeros((1, ho, 1))
    base_y = _tensor(rows.reshape(1, 1, k, ho, wo).astype(dtype))
    base_x = _tensor(cols.reshape(1, 1, k, ho, wo).astype(dtype))
    parts = reshape(offsets, (n, 3, dg, k, ho, wo))
    ys, xs = parts[:, 1] + base_y, parts[:, 0] + base_x  # (N, dg, K, Ho, Wo)
    y0, x0 = floor(ys), floor(xs)
    fy, fx = ys - y0, xs - x0
    images = reshape(x, (n, dg, c // dg, h * w))
    total = None
    for dy_, wy in ((0.0, 1.0 - fy), (1.0, fy)):
        for dx_, wx in ((0.0, 1.0 - fx), (1.0, fx)):
            yy, xx = y0 + dy_, x0 + dx_
            inside = _inside(yy, xx, h, w, x.dtype)
            row = cast(yy * inside, mstype.int64)
            col = cast(xx * inside, mstype.int64)
            flat = reshape(row * w + col, (n, dg, 1, k * ho * wo))
            index = broadcast_to(flat, (n, dg, c // dg, k * ho * wo))
            value = reshape(GatherElements(3)(images, index), (n, dg, c // dg, k, ho, wo))
            term = value * expand_dims(wy * wx * inside, 2)
            total = term if total is None else total + term
    if modulated:
        total = total * expand_dims(parts[:, 2], 2)
    return total


def _deformable_offsets(x, offsets, *, strides, pads, ksize, dilations, data_format, deformable_groups,
                        modulated):
    """``P.DeformableOffsets``: the deformed taps laid out per output pixel, ``(N, C, H_out *
    kh, W_out * kw)`` (pixel ``(i, j)``'s kernel patch at rows ``i * kh ..``, columns ``j * kw
    ..``), so that a ``kh x kw`` convolution of stride ``(kh, kw)`` over it is the deformable
    convolution."""
    op = "DeformableOffsets"
    if data_format != "NCHW" or modulated is not True:  # MindSpore 2.10 accepts only these
        raise argument_error(op, ValueError(
            f"data_format must be 'NCHW' and modulated True, got {data_format!r} and {modulated!r}"))
    if len(x.shape) != 4:
        raise argument_error(op, ValueError(f"x must be 4-d NCHW, got shape {tuple(x.shape)}"))
    n, c, h, w = x.shape
    kh, kw = (int(v) for v in ksize)
    _, _, sh, sw = _four(op, "strides", strides)
    top, bottom, left, right = _four(op, "pads", pads)
    _, _, dh, dw = _four(op, "dilations", dilations)
    dg, k = int(deformable_groups), kh * kw
    ho = (h + top + bottom - dh * (kh - 1) - 1) // sh + 1
    wo = (w + left + right - dw * (kw - 1) - 1) // sw + 1
    if c % dg or tuple(offsets.shape) != (n, 3 * dg * k, ho, wo):
        raise argument_error(op, ValueError(
            "offsets must be (N, 3 * deformable_groups * kh * kw, H_out, W_out) = "
            f"{(n, 3 * dg * k, ho, wo)} and C divisible by deformable_groups, got {tuple(offsets.shape)}"))
    total = _taps(x, offsets, (kh, kw), (sh, sw), (top, left), (dh, dw), (ho, wo), dg, modulated)
    patches = reshape(total, (n, c, kh, kw, ho, wo))
    return reshape(transpose(patches, (0, 1, 4, 2, 5, 3)), (n, c, ho * kh, wo * kw))


DeformableOffsets = class_form("DeformableOffsets", _deformable_offsets, strides=REQUIRED, pads=REQUIRED,
                               ksize=REQUIRED, dilations=(1, 1, 1, 1), data_format="NCHW",
                               deformable_groups=1, modulated=True)


def _inside(yy: Any, xx: Any, h: int, w: int, dtype: Any) -> Any:
    """1 where the corner ``(yy, xx)`` is a pixel of the image, else 0."""
    ok = logical_and(logical_and(greater(yy, -0.5), less(yy, h - 0.5)),
                     logical_and(greater(xx, -0.5), less(xx, w - 0.5)))
    return cast(ok, dtype)

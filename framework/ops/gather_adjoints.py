"""Backward primitives of MindSpore's ``ops.operations._grad_ops`` that are adjoints of a
fixed gather: the forward op reads input elements at positions that follow from shapes and
attributes alone (``StridedSlice``, ``MirrorPad``, nearest-neighbour resizing), so the backward
adds each element of ``dy`` back at the position it was read from. The positions are computed
once with NumPy; the sum is a segment sum, so both modes run it and it has a gradient.

Argument orders are MindSpore 2.10's: ``StridedSliceGrad(masks...)(dy, shapex, begin, end,
strides)``, ``MirrorPadGrad(mode)(dy, paddings)``, ``PadV3Grad(mode, paddings_contiguous)(dy,
paddings)``, ``ResizeNearestNeighborGrad(align_corners, half_pixel_centers)(grads, size)``
(``size``: the forward input's ``(H, W)``) and its ``V2``, ``MaxPoolGradWithArgmax(kernel_size,
strides, pad_mode, data_format)(x, grad, argmax)`` and, a fixed linear map rather than a
gather, ``ResizeLinear1DGrad(coordinate_transformation_mode)(grads, input_x)``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtype as mstype
from ..common.tensor import Tensor
from ._utils import concrete_ints
from .elementwise import add, cast
from .model_zoo_ops import strided_slice
from .nn_ops import matmul
from .segment import unsorted_segment_sum
from .shape_ops import reshape as _reshape
from .shape_ops import transpose as _transpose


def _ints(value: Any, what: str) -> tuple[int, ...]:
    value = concrete_ints(value, what)
    return tuple(int(v) for v in np.ravel(np.asarray(value, dtype=np.int64)))


def _scatter_back(dy: Any, source: np.ndarray, shape: tuple[int, ...]) -> Any:
    """The adjoint of a gather: ``dy``'s element ``k`` added at the flat position
    ``source[k]`` of zeros shaped ``shape``."""
    ids = Tensor(np.ascontiguousarray(source.reshape(-1), dtype=np.int32))
    total = int(np.prod(shape, dtype=np.int64))
    return _reshape(unsorted_segment_sum(_reshape(dy, (-1,)), ids, total), shape)


class StridedSliceGrad:
    """``StridedSliceGrad(begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0,
    shrink_axis_mask=0)(dy, shapex, begin, end, strides)``: zeros shaped ``shapex`` with ``dy``
    added where ``StridedSlice`` (same masks and arguments) reads its elements."""

    def __init__(self, begin_mask: int = 0, end_mask: int = 0, ellipsis_mask: int = 0,
                 new_axis_mask: int = 0, shrink_axis_mask: int = 0) -> None:
        self.masks = dict(begin_mask=int(begin_mask), end_mask=int(end_mask),
                          ellipsis_mask=int(ellipsis_mask), new_axis_mask=int(new_axis_mask),
                          shrink_axis_mask=int(shrink_axis_mask))

    def __call__(self, dy: Any, shapex: Any, begin: Any, end: Any, strides: Any) -> Any:
        shape = _ints(shapex, "StridedSliceGrad: shapex")
        positions = Tensor(np.arange(int(np.prod(shape, dtype=np.int64))).reshape(shape))
        read = strided_slice(positions, begin, end, strides, **self.masks).asnumpy()
        if tuple(read.shape) != tuple(dy.shape):
            raise ValueError(f"StridedSliceGrad: dy has shape {tuple(dy.shape)}, the slice of "
                             f"shape {shape} has {tuple(read.shape)}")
        return _scatter_back(dy, read, shape)


class MirrorPadGrad:
    """``MirrorPadGrad(mode='REFLECT')(dy, paddings)``: ``MirrorPad``'s adjoint, each
    element of ``dy`` added back to the input element it mirrors (``paddings``: an
    ``(rank, 2)`` int Tensor of before/after widths; ``'SYMMETRIC'`` repeats the edge)."""

    def __init__(self, mode: str = "REFLECT") -> None:
        if mode not in ("REFLECT", "SYMMETRIC"):
            raise ValueError(f"MirrorPadGrad: mode must be 'REFLECT' or 'SYMMETRIC', got {mode!r}")
        self.mode = mode

    def __call__(self, dy: Any, paddings: Any) -> Any:
        pads = np.asarray(_ints(paddings, "MirrorPadGrad: paddings")).reshape(-1, 2)
        padded = tuple(dy.shape)
        if pads.shape[0] != len(padded):
            raise ValueError(f"MirrorPadGrad: paddings must be ({len(padded)}, 2), got "
                             f"{tuple(np.shape(paddings))}")
        shape = tuple(int(n - b - a) for n, (b, a) in zip(padded, pads.tolist()))
        edge = 1 if self.mode == "REFLECT" else 0
        if any(n < 1 or b > n - edge or a > n - edge for n, (b, a) in zip(shape, pads.tolist())):
            raise ValueError(f"MirrorPadGrad: paddings {pads.tolist()} are too wide for dy of "
                             f"shape {padded} in mode {self.mode}")
        positions = np.arange(int(np.prod(shape, dtype=np.int64))).reshape(shape)
        source = np.pad(positions, pads.tolist(), mode="reflect" if edge else "symmetric")
        return _scatter_back(dy, source, shape)


def _nearest_sources(out: int, size: int, align_corners: bool, half_pixel: bool = False
                     ) -> np.ndarray:
    """The input index each of ``out`` output positions reads: ``floor(dst * size / out)``,
    with aligned corners ``dst * (size - 1) / (out - 1)`` rounded half away from zero, with
    half-pixel centres ``floor((dst + 0.5) * size / out)``."""
    dst = np.arange(out, dtype=np.float64)
    if half_pixel:
        src = np.floor((dst + 0.5) * (size / out))
    elif align_corners:
        scale = (size - 1) / (out - 1) if out > 1 else 0.0
        src = np.floor(dst * scale + 0.5)
    else:
        src = np.floor(dst * (size / out))
    return np.minimum(src, size - 1).astype(np.int64)


class ResizeNearestNeighborGrad:
    """``ResizeNearestNeighborGrad(align_corners=False, half_pixel_centers=False)(grads,
    size)``: the adjoint of resizing an ``(N, C, H, W)`` input to ``grads``' spatial shape
    with nearest neighbours; ``size`` is ``(H, W)``. ``half_pixel_centers`` is accepted and,
    as in MindSpore 2.10's CPU kernel of this backward (measured: its answers equal those
    without it), does not move the sampled positions."""

    honours_half_pixel = False

    def __init__(self, align_corners: bool = False, half_pixel_centers: bool = False) -> None:
        self.align_corners, self.half_pixel_centers = bool(align_corners), bool(half_pixel_centers)

    def __call__(self, grads: Any, size: Any) -> Any:
        height, width = _ints(size, f"{type(self).__name__}: size")
        shape = tuple(grads.shape)
        if len(shape) != 4:
            raise ValueError(f"{type(self).__name__}: grads must be (N, C, H, W), got {shape}")
        half = self.half_pixel_centers and self.honours_half_pixel
        rows = _nearest_sources(shape[2], height, self.align_corners, half)
        cols = _nearest_sources(shape[3], width, self.align_corners, half)
        source = rows[:, None] * width + cols[None, :]
        planes = _transpose(_reshape(grads, (shape[0] * shape[1], shape[2] * shape[3])), (1, 0))
        ids = Tensor(np.ascontiguousarray(source.reshape(-1), dtype=np.int32))
        summed = unsorted_segment_sum(planes, ids, height * width)
        return _reshape(_transpose(summed, (1, 0)), (shape[0], shape[1], height, width))


class ResizeNearestNeighborV2Grad(ResizeNearestNeighborGrad):
    """``ResizeNearestNeighborV2Grad(align_corners=False, half_pixel_centers=False)(grads,
    size)``: as ``ResizeNearestNeighborGrad`` (``size``: an int32 Tensor ``(H, W)``), with
    ``half_pixel_centers`` sampling ``floor((dst + 0.5) * size / out)``."""

    honours_half_pixel = True


class PadV3Grad:
    """``PadV3Grad(mode='reflect', paddings_contiguous=True)(dy, paddings)``: ``PadV3``'s
    adjoint for the modes ``'reflect'``, ``'edge'`` and ``'circular'``. ``paddings`` pairs
    ``(before, after)`` from the last axis backwards; not contiguous, it lists the befores,
    then the afters. A reflection must be narrower than its axis (MindSpore's kernel gives
    no consistent answer otherwise)."""

    _modes = {"reflect": "reflect", "edge": "edge", "circular": "wrap"}

    def __init__(self, mode: str = "reflect", paddings_contiguous: bool = True) -> None:
        if mode not in self._modes:
            raise ValueError(f"PadV3Grad: mode must be 'reflect', 'edge' or 'circular', got {mode!r}")
        self.mode, self.paddings_contiguous = mode, bool(paddings_contiguous)

    def __call__(self, dy: Any, paddings: Any) -> Any:
        flat = _ints(paddings, "PadV3Grad: paddings")
        padded = tuple(dy.shape)
        if len(flat) % 2 or len(flat) // 2 > len(padded):
            raise ValueError(f"PadV3Grad: paddings {flat} must hold a (before, after) pair for "
                             f"at most {len(padded)} axes")
        half = len(flat) // 2
        pairs = (list(zip(flat[0::2], flat[1::2])) if self.paddings_contiguous
                 else list(zip(flat[:half], flat[half:])))
        widths = [(0, 0)] * (len(padded) - half) + pairs[::-1]
        shape = tuple(int(n - b - a) for n, (b, a) in zip(padded, widths))
        if any(n < 1 for n in shape) or (self.mode == "reflect" and any(
                b >= n or a >= n for n, (b, a) in zip(shape, widths))):
            raise ValueError(f"PadV3Grad: paddings {flat} are too wide for dy of shape {padded} "
                             f"in mode {self.mode!r}")
        positions = np.arange(int(np.prod(shape, dtype=np.int64))).reshape(shape)
        return _scatter_back(dy, np.pad(positions, widths, mode=self._modes[self.mode]), shape)


class MaxPoolGradWithArgmax:
    """``MaxPoolGradWithArgmax(kernel_size=1, strides=1, pad_mode='VALID',
    data_format='NCHW')(x, grad, argmax)``: zeros shaped like ``x`` with each ``grad``
    element added at its window's maximum, ``argmax`` (flat ``h * W + w`` within its
    ``(N, C)`` plane, as the forward gives it). The window attributes are the forward's; the
    positions come from ``argmax`` alone."""

    def __init__(self, kernel_size: Any = 1, strides: Any = 1, pad_mode: str = "VALID",
                 data_format: str = "NCHW") -> None:
        if str(pad_mode).upper() not in ("VALID", "SAME"):
            raise ValueError(f"MaxPoolGradWithArgmax: pad_mode must be 'VALID' or 'SAME', got "
                             f"{pad_mode!r}")
        if data_format != "NCHW":
            raise ValueError(f"MaxPoolGradWithArgmax: data_format must be 'NCHW', got {data_format!r}")
        self.kernel_size, self.strides, self.pad_mode = kernel_size, strides, str(pad_mode).upper()
        self.data_format = data_format

    def __call__(self, x: Any, grad: Any, argmax: Any) -> Any:
        shape, pooled = tuple(x.shape), tuple(grad.shape)
        if len(shape) != 4 or tuple(argmax.shape) != pooled or pooled[:2] != shape[:2]:
            raise ValueError(f"MaxPoolGradWithArgmax: x {shape}, grad {pooled} and argmax "
                             f"{tuple(argmax.shape)} must be (N, C, H, W) with grad's shape for "
                             f"argmax")
        planes, area = shape[0] * shape[1], shape[2] * shape[3]
        offsets = Tensor((np.arange(planes, dtype=np.int32) * area).reshape(planes, 1))
        ids = add(_reshape(cast(argmax, offsets.dtype), (planes, -1)), offsets)
        summed = unsorted_segment_sum(_reshape(grad, (-1,)), _reshape(ids, (-1,)), planes * area)
        return _reshape(summed, shape)


class MaxPoolGradWithArgmaxV2(MaxPoolGradWithArgmax):
    """``MaxPoolGradWithArgmaxV2(kernel_size, strides=None, pads=0, dilation=(1, 1),
    ceil_mode=False, argmax_type=int64)(x, grad, argmax)``: as ``MaxPoolGradWithArgmax``
    (the window attributes are the forward's; the positions come from ``argmax``)."""

    def __init__(self, kernel_size: Any, strides: Any = None, pads: Any = 0,
                 dilation: Any = (1, 1), ceil_mode: bool = False,
                 argmax_type: Any = mstype.int64) -> None:
        if argmax_type not in (mstype.int32, mstype.int64):
            raise ValueError(f"MaxPoolGradWithArgmaxV2: argmax_type must be int32 or int64, got "
                             f"{argmax_type}")
        self.kernel_size, self.strides, self.pads = kernel_size, strides, pads
        self.dilation, self.ceil_mode, self.argmax_type = dilation, bool(ceil_mode), argmax_type


def _linear_weights(out: int, size: int, mode: str) -> np.ndarray:
    """``(out, size)``: how much of each input position each output position reads."""
    dst = np.arange(out, dtype=np.float64)
    if mode == "align_corners":
        src = dst * ((size - 1) / (out - 1)) if out > 1 else np.zeros(out)
    else:  # half_pixel
        src = np.maximum((dst + 0.5) * (size / out) - 0.5, 0.0)
    low = np.minimum(np.floor(src).astype(np.int64), size - 1)
    high = np.minimum(low + 1, size - 1)
    frac = src - low
    weights = np.zeros((out, size))
    np.add.at(weights, (np.arange(out), low), 1.0 - frac)
    np.add.at(weights, (np.arange(out), high), frac)
    return weights


class ResizeLinear1DGrad:
    """``ResizeLinear1DGrad(coordinate_transformation_mode='align_corners')(grads,
    input_x)``: the adjoint of resizing ``input_x``'s last axis linearly to ``grads``'
    length (``'align_corners'``: ends on ends; ``'half_pixel'``: pixel centres, clamped at
    0)."""

    def __init__(self, coordinate_transformation_mode: str = "align_corners") -> None:
        if coordinate_transformation_mode not in ("align_corners", "half_pixel"):
            raise ValueError(f"ResizeLinear1DGrad: coordinate_transformation_mode must be "
                             f"'align_corners' or 'half_pixel', got "
                             f"{coordinate_transformation_mode!r}")
        self.coordinate_transformation_mode = coordinate_transformation_mode

    def __call__(self, grads: Any, input_x: Any) -> Any:
        shape, out = tuple(input_x.shape), tuple(grads.shape)
        if len(shape) != 3 or out[:2] != shape[:2]:
            raise ValueError(f"ResizeLinear1DGrad: grads {out} and input_x {shape} must be "
                             f"(N, C, W) with the same N and C")
        weights = _linear_weights(out[2], shape[2], self.coordinate_transformation_mode)
        flat = _reshape(grads, (out[0] * out[1], out[2]))
        mixed = matmul(flat, cast(Tensor(weights.astype(np.float32)), grads.dtype))
        return _reshape(mixed, shape)


__all__ = ["MaxPoolGradWithArgmax", "MaxPoolGradWithArgmaxV2", "MirrorPadGrad", "PadV3Grad",
           "ResizeLinear1DGrad", "ResizeNearestNeighborGrad", "ResizeNearestNeighborV2Grad",
           "StridedSliceGrad"]

"""Max-pool variants that give their positions, unpooling, fractional pooling and sampling
primitive classes (``P.AdaptiveMaxPool3D()``, ``P.MaxUnpool3D(ksize)``, ``P.FractionalMaxPool``,
``P.GridSampler3D()``, ``P.CropAndResize()`` ...; the 3-d convolutions, average pools and
upsampling are in :mod:`.prim_volume`) over the functional ops: attributes in the
constructor, tensors in the call, in MindSpore 2.10's argument order. No class holds a rule of
its own: graph, gradient and kernels are those of ``window_pool``, ``resample``,
``grid_sampling`` and ``boxes``.

Contracts (``P.X(attrs)(tensors)``):

- ``AdaptiveMaxPool3D()(x, output_size)``: ``(y,
  argmax int32)``, ``output_size`` a constant int tensor of three sizes;
- ``MaxUnpool3D(ksize, strides=0, pads=0, output_shape=(), data_format='NCDHW')(x, argmax)``:
  ``strides`` 0 is ``ksize``; ``output_shape`` empty is the shape the windows give;
- ``FractionalMaxPoolWithFixedKsize(ksize, output_shape, data_format='NCHW')(x, samples)``
  and ``FractionalMaxPool3DWithFixedKsize(..., data_format='NCDHW')``: ``(y, argmax int64)``,
  ``samples`` ``(N, C, 2 or 3)`` in [0, 1) placing the windows;
- ``FractionalMaxPool(pooling_ratio, pseudo_random=False, overlapping=False, ...)(x)``: NHWC
  ``x`` pooled over random window sequences: ``(y, row_sequence, col_sequence)``
  (``framework/ops/fractional_pool.py``; the seeds are accepted, the draws are ours);
- ``GridSampler3D(interpolation_mode='bilinear', padding_mode='zeros', align_corners=False)
  (x, grid)``; ``CropAndResize(method='bilinear', extrapolation_value=0.0)(image, boxes,
  box_index, crop_size)``.
"""

from __future__ import annotations

from typing import Any

from .. import functional as ops
from .._class_form import REQUIRED, class_form
from .._utils import argument_error


def _sizes(value: Any) -> Any:
    """A constant int tensor, list or tuple as a tuple of ints (None stays None)."""
    if value is None:
        return None
    if hasattr(value, "asnumpy"):
        value = value.asnumpy().reshape(-1).tolist()
    if isinstance(value, int):
        return value
    return tuple(int(v) for v in value)


def _layout(op: str, data_format: str, expected: str) -> None:
    if data_format != expected:
        raise argument_error(op, ValueError(f"data_format must be '{expected}' on CPU, got {data_format!r}"))


def _adaptive_max3d(x: Any, output_size: Any) -> Any:
    return ops.adaptive_max_pool3d(x, _sizes(output_size), True)


def _max_unpool3d(x: Any, argmax: Any, *, ksize: Any, strides: Any, pads: Any, output_shape: Any,
                  data_format: str) -> Any:
    _layout("MaxUnpool3D", data_format, "NCDHW")
    stride = ksize if strides in (0, (0, 0, 0), [0, 0, 0]) else strides
    size = tuple(output_shape) if output_shape else None
    return ops.max_unpool3d(x, argmax, ksize, stride, pads, size)


def _fixed_ksize(op: str, fn: str, layout: str) -> Any:
    def call(x: Any, random_samples: Any, *, ksize: Any, output_shape: Any, data_format: str) -> Any:
        _layout(op, data_format, layout)
        return getattr(ops, fn)(x, ksize, _sizes(output_shape), None, True, random_samples)
    call.__name__ = fn
    return call


def _grid_sampler3d(x: Any, grid: Any, *, interpolation_mode: str, padding_mode: str,
                    align_corners: bool) -> Any:
    return ops.grid_sample(x, grid, interpolation_mode, padding_mode, align_corners)


def _crop_and_resize(image: Any, boxes: Any, box_index: Any, crop_size: Any, *, method: str,
                     extrapolation_value: float) -> Any:
    return ops.crop_and_resize(image, boxes, box_index, _sizes(crop_size), method,
                                  extrapolation_value)


def _fractional_max_pool(x: Any, *, pooling_ratio: Any, pseudo_random: bool, overlapping: bool,
                         deterministic: bool, seed: int, seed2: int) -> Any:
    from ..fractional_pool import fractional_max_pool

    if not isinstance(pooling_ratio, list):  # MindSpore refuses a tuple too
        raise argument_error("FractionalMaxPool", TypeError(
            f"pooling_ratio must be a list, got {type(pooling_ratio).__name__}"))
    return fractional_max_pool(x, pooling_ratio, pseudo_random, overlapping)


AdaptiveMaxPool3D = class_form("AdaptiveMaxPool3D", _adaptive_max3d)
MaxUnpool3D = class_form("MaxUnpool3D", _max_unpool3d, ksize=REQUIRED, strides=0, pads=0,
                         output_shape=(), data_format="NCDHW")
FractionalMaxPoolWithFixedKsize = class_form(
    "FractionalMaxPoolWithFixedKsize",
    _fixed_ksize("FractionalMaxPoolWithFixedKsize", "fractional_max_pool2d", "NCHW"),
    ksize=REQUIRED, output_shape=REQUIRED, data_format="NCHW")
FractionalMaxPool3DWithFixedKsize = class_form(
    "FractionalMaxPool3DWithFixedKsize",
    _fixed_ksize("FractionalMaxPool3DWithFixedKsize", "fractional_max_pool3d", "NCDHW"),
    ksize=REQUIRED, output_shape=REQUIRED, data_format="NCDHW")
FractionalMaxPool = class_form("FractionalMaxPool", _fractional_max_pool, pooling_ratio=REQUIRED,
                               pseudo_random=False, overlapping=False, deterministic=False, seed=0,
                               seed2=0)
GridSampler3D = class_form("GridSampler3D", _grid_sampler3d, interpolation_mode="bilinear",
                           padding_mode="zeros", align_corners=False)
CropAndResize = class_form("CropAndResize", _crop_and_resize, method="bilinear",
                           extrapolation_value=0.0)

__all__ = [
    "AdaptiveMaxPool3D", "MaxUnpool3D", "FractionalMaxPoolWithFixedKsize",
    "FractionalMaxPool3DWithFixedKsize", "FractionalMaxPool", "GridSampler3D", "CropAndResize",
]

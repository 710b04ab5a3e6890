"""Primitive classes for boxes, sampling grids and signal windows (``P.BoundingBoxEncode``,
``P.AffineGrid``, ``P.HammingWindow`` ...) composed of elementwise ops, as
MindSpore 2.10's ``mindspore.ops.operations`` spell them.

Contracts (``P.X(attrs)(inputs)``):

- boxes are ``(x1, y1, x2, y2)`` in pixel coordinates: width ``x2 - x1 + 1``, centre
  ``(x1 + x2) / 2``;
- ``BoundingBoxEncode(means=(0.,) * 4, stds=(1.,) * 4)(anchor_box, groundtruth_box)``:
  ``((gx - ax) / aw, (gy - ay) / ah, log(gw / aw), log(gh / ah))``, then ``(d - means) / stds``;
- ``BoundingBoxDecode(max_shape, means, stds, wh_ratio_clip=0.016)(anchor_box, deltas)``:
  ``d = deltas * stds + means``, the size deltas clamped to ``+-|log(wh_ratio_clip)|``; centre
  ``a + d * a_size``, size ``a_size * exp(d)``; corners ``centre -+ (size / 2 - 0.5)``, ``x``
  clipped to ``[0, max_shape[1]]`` and ``y`` to ``[0, max_shape[0]]``;
- ``AffineGrid(align_corners=False)(theta, output_size)``: ``(N, H, W, 2)``, ``theta (N, 2,
  3)`` applied to the normalised ``(x, y, 1)`` of each output pixel (pixel centres, or the
  corners with ``align_corners``);
- ``HammingWindow(periodic=True, alpha=0.54, beta=0.46, dtype=float32)(length)``,
  ``BartlettWindow(periodic=True, dtype)(length)``, ``BlackmanWindow(periodic=True, dtype)(
  length)``: the windows over ``n = 0 .. length - 1`` with ``N = length`` (periodic) or
  ``length - 1``; ``length`` a constant int tensor.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ... import dtype as mstype
from .. import functional as ops
from .._class_form import REQUIRED, class_form


def _tensor(array: np.ndarray) -> Any:
    from ...common.tensor import Tensor

    return Tensor(array)


def _centres(boxes: Any) -> tuple[Any, Any, Any, Any]:
    width = boxes[:, 2] - boxes[:, 0] + 1
    height = boxes[:, 3] - boxes[:, 1] + 1
    return (boxes[:, 0] + boxes[:, 2]) * 0.5, (boxes[:, 1] + boxes[:, 3]) * 0.5, width, height


def _box_encode(anchor_box: Any, groundtruth_box: Any, *, means: Any, stds: Any) -> Any:
    ax, ay, aw, ah = _centres(anchor_box)
    gx, gy, gw, gh = _centres(groundtruth_box)
    deltas = ops.stack(((gx - ax) / aw, (gy - ay) / ah, ops.log(gw / aw), ops.log(gh / ah)), 1)
    mean = _tensor(np.asarray(means, np.float32))
    std = _tensor(np.asarray(stds, np.float32))
    return ops.cast((deltas - mean) / std, anchor_box.dtype)


def _box_decode(anchor_box: Any, deltas: Any, *, max_shape: Any, means: Any, stds: Any,
                wh_ratio_clip: float) -> Any:
    d = deltas * _tensor(np.asarray(stds, np.float32)) + _tensor(np.asarray(means, np.float32))
    limit = abs(math.log(wh_ratio_clip))
    dw, dh = ops.clamp(d[:, 2], -limit, limit), ops.clamp(d[:, 3], -limit, limit)
    ax, ay, aw, ah = _centres(anchor_box)
    cx, cy = ax + d[:, 0] * aw, ay + d[:, 1] * ah
    half_w, half_h = aw * ops.exp(dw) * 0.5 - 0.5, ah * ops.exp(dh) * 0.5 - 0.5
    height, width = float(max_shape[0]), float(max_shape[1])
    corners = (ops.clamp(cx - half_w, 0.0, width), ops.clamp(cy - half_h, 0.0, height),
               ops.clamp(cx + half_w, 0.0, width), ops.clamp(cy + half_h, 0.0, height))
    return ops.cast(ops.stack(corners, 1), anchor_box.dtype)


def _affine_grid(theta: Any, output_size: Any, *, align_corners: bool) -> Any:
    sizes = tuple(int(s) for s in output_size)
    if len(sizes) != 4 or len(theta.shape) != 3 or tuple(theta.shape[1:]) != (2, 3):
        raise ValueError(f"AffineGrid: needs theta (N, 2, 3) and output_size (N, C, H, W), got "
                         f"{tuple(theta.shape)} and {sizes}")
    n, _, height, width = sizes

    def axis(size: int) -> np.ndarray:
        if align_corners:
            return np.linspace(-1.0, 1.0, size) if size > 1 else np.zeros(1)
        return (2 * np.arange(size) + 1) / size - 1

    ys, xs = np.meshgrid(axis(height), axis(width), indexing="ij")
    base = np.stack([xs, ys, np.ones_like(xs)], -1).reshape(1, height * width, 3).astype(np.float32)
    points = ops.broadcast_to(ops.cast(_tensor(base), theta.dtype), (n, height * width, 3))
    return ops.reshape(ops.bmm(points, ops.swapaxes(theta, 1, 2)), (n, height, width, 2))


def _window_steps(who: str, length: Any, periodic: bool) -> tuple[np.ndarray, int]:
    size = int(np.asarray(length.asnumpy() if hasattr(length, "asnumpy") else length).reshape(-1)[0])
    if size < 0:
        raise ValueError(f"{who}: window length must be non-negative, got {size}")
    return np.arange(size, dtype=np.float64), size if periodic else size - 1


def _window(who: str, shape_fn: Any):
    def apply(length: Any, **attrs: Any) -> Any:
        steps, total = _window_steps(who, length, attrs.pop("periodic"))
        dtype = attrs.pop("dtype")
        values = np.ones_like(steps) if steps.size == 1 else shape_fn(steps, total, **attrs)
        return ops.cast(_tensor(values.astype(np.float32)), dtype)

    apply.__name__ = who
    return apply


def _hamming(n: np.ndarray, total: int, *, alpha: float, beta: float) -> np.ndarray:
    return alpha - beta * np.cos(2 * np.pi * n / total)


def _bartlett(n: np.ndarray, total: int) -> np.ndarray:
    return 1 - np.abs(2 * n / total - 1)


def _blackman(n: np.ndarray, total: int) -> np.ndarray:
    return 0.42 - 0.5 * np.cos(2 * np.pi * n / total) + 0.08 * np.cos(4 * np.pi * n / total)


BoundingBoxEncode = class_form("BoundingBoxEncode", _box_encode, means=(0.0, 0.0, 0.0, 0.0),
                               stds=(1.0, 1.0, 1.0, 1.0))
BoundingBoxDecode = class_form("BoundingBoxDecode", _box_decode, max_shape=REQUIRED,
                               means=(0.0, 0.0, 0.0, 0.0), stds=(1.0, 1.0, 1.0, 1.0),
                               wh_ratio_clip=0.016)
AffineGrid = class_form("AffineGrid", _affine_grid, align_corners=False)
HammingWindow = class_form("HammingWindow", _window("HammingWindow", _hamming), periodic=True, alpha=0.54,
                           beta=0.46, dtype=mstype.float32)
BartlettWindow = class_form("BartlettWindow", _window("BartlettWindow", _bartlett), periodic=True,
                            dtype=mstype.float32)
BlackmanWindow = class_form("BlackmanWindow", _window("BlackmanWindow", _blackman), periodic=True,
                            dtype=mstype.float32)

__all__ = ["AffineGrid", "BartlettWindow", "BlackmanWindow", "BoundingBoxDecode", "BoundingBoxEncode",
           "HammingWindow"]

"""Axis-aligned boxes ``(x1, y1, x2, y2)`` in pixel units (a box covers ``x2 - x1 + 1``
columns, MindSpore's convention): overlaps (``iou``), the regression deltas between boxes
(``bounding_box_encode`` / ``bounding_box_decode``) and ``check_valid``. Compositions of
elementwise primitives, so both modes and gradients are theirs."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import dtype as mstype
from ..common.tensor import Tensor
from ._utils import argument_error
from .array_ops import stack
from .elementwise import cast, exp, greater_equal, less_equal, log, maximum, minimum, select
from .math_binary import logical_and
from .math_unary import floor
from .scatter_gather import gather
from .shape_ops import broadcast_to, expand_dims, reshape


def _columns(op: str, name: str, boxes: Any) -> tuple[Any, Any, Any, Any]:
    if len(boxes.shape) != 2 or boxes.shape[1] != 4:
        raise argument_error(op, ValueError(
            f"{name} must be (n, 4) boxes, got shape {tuple(boxes.shape)}"))
    return tuple(boxes[:, i] for i in range(4))  # type: ignore[return-value]


def _stack(columns: list[Any]) -> Any:
    return stack(columns, 1)


def _consts(op: str, name: str, values: Any, like: Any) -> list[Any]:
    array = np.asarray(values, np.float64).reshape(-1)
    if array.size != 4:
        raise argument_error(op, ValueError(f"{name} must be 4 numbers, got {values!r}"))
    return [Tensor(np.asarray(v, like)) for v in array]


def iou(anchor_boxes, gt_boxes, mode="iou"):
    """``out[i, j]``: the overlap of ``gt_boxes[i]`` and ``anchor_boxes[j]`` over their union
    (``'iou'``) or over the ground-truth box's area (``'iof'``)."""
    if mode not in ("iou", "iof"):
        raise argument_error("iou", ValueError(f"mode must be 'iou' or 'iof', got {mode!r}"))
    ax1, ay1, ax2, ay2 = (reshape(c, (1, -1)) for c in _columns("iou", "anchor_boxes", anchor_boxes))
    gx1, gy1, gx2, gy2 = (expand_dims(c, 1) for c in _columns("iou", "gt_boxes", gt_boxes))
    width = maximum(minimum(ax2, gx2) - maximum(ax1, gx1) + 1.0, 0.0)
    height = maximum(minimum(ay2, gy2) - maximum(ay1, gy1) + 1.0, 0.0)
    inter = width * height
    gt_area = (gx2 - gx1 + 1.0) * (gy2 - gy1 + 1.0)
    if mode == "iof":
        return inter / gt_area
    return inter / ((ax2 - ax1 + 1.0) * (ay2 - ay1 + 1.0) + gt_area - inter)


def _centres(op: str, name: str, boxes: Any) -> tuple[Any, Any, Any, Any]:
    x1, y1, x2, y2 = _columns(op, name, boxes)
    return (x1 + x2) * 0.5, (y1 + y2) * 0.5, x2 - x1 + 1.0, y2 - y1 + 1.0


def bounding_box_encode(anchor_box, groundtruth_box, means=(0.0, 0.0, 0.0, 0.0),
                        stds=(1.0, 1.0, 1.0, 1.0)):
    """The deltas ``(dx, dy, dw, dh)`` taking each anchor box to its ground-truth box,
    normalized: ``(delta - means) / stds``."""
    px, py, pw, ph = _centres("bounding_box_encode", "anchor_box", anchor_box)
    gx, gy, gw, gh = _centres("bounding_box_encode", "groundtruth_box", groundtruth_box)
    deltas = [(gx - px) / pw, (gy - py) / ph, log(gw / pw), log(gh / ph)]
    dtype = mstype.to_np(anchor_box.dtype)
    m = _consts("bounding_box_encode", "means", means, dtype)
    s = _consts("bounding_box_encode", "stds", stds, dtype)
    return _stack([(d - a) / b for d, a, b in zip(deltas, m, s)])


def bounding_box_decode(anchor_box, deltas, max_shape, means=(0.0, 0.0, 0.0, 0.0),
                        stds=(1.0, 1.0, 1.0, 1.0), wh_ratio_clip=0.016):
    """The boxes the deltas (``* stds + means``; ``dw``/``dh`` clipped to
    ``|log(wh_ratio_clip)|``) take the anchor boxes to, clipped to ``[0, max_shape[1]]``
    horizontally and ``[0, max_shape[0]]`` vertically."""
    if not isinstance(max_shape, list | tuple) or len(max_shape) != 2:
        raise argument_error("bounding_box_decode", TypeError(
            f"max_shape must be (height, width), got {max_shape!r}"))
    px, py, pw, ph = _centres("bounding_box_decode", "anchor_box", anchor_box)
    dtype = mstype.to_np(anchor_box.dtype)
    m = _consts("bounding_box_decode", "means", means, dtype)
    s = _consts("bounding_box_decode", "stds", stds, dtype)
    columns = _columns("bounding_box_decode", "deltas", deltas)
    dx, dy, dw, dh = (c * b + a for c, a, b in zip(columns, m, s))
    limit = abs(math.log(float(wh_ratio_clip)))
    dw, dh = maximum(minimum(dw, limit), -limit), maximum(minimum(dh, limit), -limit)
    gw, gh = pw * exp(dw), ph * exp(dh)
    gx, gy = px + pw * dx, py + ph * dy
    height, width = float(max_shape[0]), float(max_shape[1])

    def clip(v: Any, top: float) -> Any:
        return maximum(minimum(v, top), 0.0)
    return _stack([clip(gx - gw * 0.5 + 0.5, width), clip(gy - gh * 0.5 + 0.5, height),
                   clip(gx + gw * 0.5 - 0.5, width), clip(gy + gh * 0.5 - 0.5, height)])


def check_valid(bboxes, img_metas):
    """Per box: whether it lies inside the image ``img_metas = (height, width, ratio)``
    (``x1, y1 >= 0``, ``x2 <= width * ratio - 1``, ``y2 <= height * ratio - 1``)."""
    x1, y1, x2, y2 = _columns("check_valid", "bboxes", bboxes)
    if tuple(img_metas.shape) != (3,):
        raise argument_error("check_valid", ValueError(
            f"img_metas must be (height, width, ratio), got shape {tuple(img_metas.shape)}"))
    height, width, ratio = img_metas[0], img_metas[1], img_metas[2]
    inside = logical_and(greater_equal(x1, 0.0), greater_equal(y1, 0.0))
    inside = logical_and(inside, less_equal(x2, width * ratio - 1.0))
    return logical_and(inside, less_equal(y2, height * ratio - 1.0))


def _sample_points(start: Any, end: Any, size: int, extent: int) -> Any:
    """``(num, size)`` sample coordinates spanning each box's ``[start, end]`` (normalized)
    in pixels of an axis of ``extent``; one sample: the box's centre."""
    scale = float(extent - 1)
    if size == 1:
        return expand_dims((start + end) * (0.5 * scale), 1)
    steps = Tensor(np.arange(size, dtype=np.float32).reshape(1, size) / (size - 1))
    return expand_dims(start * scale, 1) + expand_dims((end - start) * scale, 1) * steps


def crop_and_resize(image, boxes, box_indices, crop_size, method="bilinear",
                    extrapolation_value=0.0):
    """Crops of the NHWC ``image`` at ``boxes`` (normalized ``(y1, x1, y2, x2)``, of image
    ``box_indices``), resampled to ``crop_size`` (``'bilinear'`` or ``'nearest'``); samples
    outside the image read ``extrapolation_value``. Float32 ``(num, h, w, C)``."""
    op = "crop_and_resize"
    if method not in ("bilinear", "nearest"):
        raise argument_error(op, ValueError(
            f"method must be 'bilinear' or 'nearest' ('bilinear_v2' is not supported), got {method!r}"))
    if len(image.shape) != 4:
        raise argument_error(op, ValueError(f"image must be NHWC, got shape {tuple(image.shape)}"))
    n, height, width, channels = image.shape
    y1, x1, y2, x2 = _columns(op, "boxes", boxes)
    crop_h, crop_w = (int(v) for v in crop_size)
    num = boxes.shape[0]
    ys = _sample_points(y1, y2, crop_h, height)  # (num, h)
    xs = _sample_points(x1, x2, crop_w, width)  # (num, w)
    ys = broadcast_to(expand_dims(ys, 2), (num, crop_h, crop_w))
    xs = broadcast_to(expand_dims(xs, 1), (num, crop_h, crop_w))
    inside = logical_and(logical_and(greater_equal(ys, 0.0), less_equal(ys, float(height - 1))),
                         logical_and(greater_equal(xs, 0.0), less_equal(xs, float(width - 1))))
    pixels = reshape(cast(image, mstype.float32), (n * height * width, channels))
    base = reshape(cast(box_indices, mstype.int64), (num, 1, 1)) * (height * width)

    def read(row: Any, col: Any) -> Any:
        row = maximum(minimum(row, float(height - 1)), 0.0)
        col = maximum(minimum(col, float(width - 1)), 0.0)
        flat = base + cast(row, mstype.int64) * width + cast(col, mstype.int64)
        return gather(pixels, flat, 0)  # (num, h, w, C)

    if method == "nearest":
        out = read(floor(ys + 0.5), floor(xs + 0.5))
    else:
        top, left = floor(ys), floor(xs)
        dy, dx = expand_dims(ys - top, 3), expand_dims(xs - left, 3)
        upper = read(top, left) + (read(top, left + 1.0) - read(top, left)) * dx
        lower = read(top + 1.0, left) + (read(top + 1.0, left + 1.0) - read(top + 1.0, left)) * dx
        out = upper + (lower - upper) * dy
    fill = Tensor(np.full((1, 1, 1, 1), extrapolation_value, np.float32))
    shape = tuple(out.shape)
    return select(broadcast_to(expand_dims(inside, 3), shape), out, broadcast_to(fill, shape))

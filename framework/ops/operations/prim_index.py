"""Primitive classes for segment reductions, sparse and flat indices, box overlaps and bit
shifts over the functional ops we have, as MindSpore 2.10's
``mindspore.ops.operations`` spell them. Gradients and graph mode are those of the ops each
one applies.

Contracts (``P.X()(inputs)``):

- ``UnsortedSegmentMax()(x, segment_ids, num_segments)`` / ``UnsortedSegmentMin`` /
  ``UnsortedSegmentProd``: per segment ``s < num_segments`` the maximum (minimum, product)
  of the entries of ``x`` whose id is ``s`` (``segment_ids`` covers ``x``'s leading axes); an
  empty segment holds the dtype's lowest (highest) value, resp. 1;
- ``SparseToDense()(indices, values, sparse_shape)``: zeros of ``sparse_shape`` (``values``'
  dtype) with ``values[j]`` at ``indices[j]``;
- ``UnravelIndex()(indices, dims)``: the coordinates of flat ``indices`` in an array of shape
  ``dims`` (a constant), ``(len(dims), N)`` (``(len(dims),)`` for a 0-d index), ``indices``'
  dtype;
- ``IOU(mode='iou')(anchor_boxes, gt_boxes)``: ``(M, N)`` overlaps of ``(x1, y1, x2, y2)``
  boxes in pixel coordinates (a box spans ``x2 - x1 + 1`` by ``y2 - y1 + 1``), over the
  union (``'iou'``) or over the ground-truth box (``'iof'``);
- ``LeftShift()(x1, x2)``: ``x1 * 2**x2`` (wrapping as the integer dtype does);
  ``RightShift()(x, y)``: ``floor(x / 2**y)`` (arithmetic shift); ``PopulationCount()(x)``:
  the set bits of each integer (two's complement), uint8.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import functional as ops
from .._class_form import class_form


def _tensor(array: np.ndarray) -> Any:
    from ...common.tensor import Tensor

    return Tensor(array)


def _limit(dtype: Any, low: bool) -> float:
    np_dtype = np.dtype(dtype.name) if hasattr(dtype, "name") else np.dtype(str(dtype).lower())
    info = np.finfo(np_dtype) if np_dtype.kind == "f" else np.iinfo(np_dtype)
    return info.min if low else info.max


def _segments(who: str, x: Any, segment_ids: Any, num_segments: Any) -> tuple[Any, Any, int]:
    """``x`` as ``(1, N, rest...)`` and a bool mask ``(S, N, 1...)``: entry ``i`` in segment ``s``."""
    count = int(num_segments.asnumpy()) if hasattr(num_segments, "asnumpy") else int(num_segments)
    lead = len(segment_ids.shape)
    if tuple(x.shape[:lead]) != tuple(segment_ids.shape):
        raise ValueError(f"{who}: segment_ids {tuple(segment_ids.shape)} must match the leading axes of "
                         f"input {tuple(x.shape)}")
    rest = tuple(x.shape[lead:])
    data = ops.reshape(x, (1, -1, *rest))
    ids = ops.reshape(ops.cast(segment_ids, ops.dtype(_tensor(np.zeros(1, np.int64)))), (1, -1))
    slots = _tensor(np.arange(count, dtype=np.int64).reshape(count, 1))
    mask = ops.reshape(ops.equal(ids, slots), (count, -1, *([1] * len(rest))))
    return data, mask, count


def _segment_reduce(who: str, reduce: str, fill: Any):
    def apply(x: Any, segment_ids: Any, num_segments: Any) -> Any:
        data, mask, count = _segments(who, x, segment_ids, num_segments)
        shape = (count, data.shape[1], *data.shape[2:])
        filler = ops.fill(x.dtype, shape, fill(x.dtype))
        picked = ops.select(ops.broadcast_to(mask, shape), ops.broadcast_to(data, shape), filler)
        return getattr(picked, reduce)(1)

    apply.__name__ = who
    return apply


def _sparse_to_dense(indices: Any, values: Any, sparse_shape: Any) -> Any:
    from .prim_update import _tensor_scatter_update

    dense = ops.zeros(tuple(int(d) for d in sparse_shape), values.dtype)
    return _tensor_scatter_update(dense, indices, values)


def _unravel_index(indices: Any, dims: Any) -> Any:
    sizes = [int(d) for d in (dims.asnumpy() if hasattr(dims, "asnumpy") else dims)]
    rest, out = indices, []
    for size in reversed(sizes):
        out.append(ops.floor_mod(rest, size))
        rest = ops.floor_div(rest, size)
    return ops.stack(out[::-1], 0)


def _iou(anchor_boxes: Any, gt_boxes: Any, *, mode: str) -> Any:
    if mode not in ("iou", "iof"):
        raise ValueError(f"IOU: mode must be 'iou' or 'iof', got {mode!r}")
    anchors = ops.reshape(anchor_boxes, (1, -1, 4))
    truths = ops.reshape(gt_boxes, (-1, 1, 4))

    def area(box: Any) -> Any:
        return (box[..., 2] - box[..., 0] + 1) * (box[..., 3] - box[..., 1] + 1)

    width = ops.minimum(anchors[..., 2], truths[..., 2]) - ops.maximum(anchors[..., 0], truths[..., 0]) + 1
    height = ops.minimum(anchors[..., 3], truths[..., 3]) - ops.maximum(anchors[..., 1], truths[..., 1]) + 1
    overlap = ops.maximum(width, ops.zeros_like(width)) * ops.maximum(height, ops.zeros_like(height))
    base = area(truths) + area(anchors) - overlap if mode == "iou" else area(truths) + overlap * 0
    return overlap / base


def _powers_of_two(shift: Any) -> Any:
    return ops.pow(ops.fill(shift.dtype, tuple(shift.shape), 2), shift)


def _left_shift(x1: Any, x2: Any) -> Any:
    return x1 * _powers_of_two(x2)


def _right_shift(x: Any, y: Any) -> Any:
    return ops.floor_div(x, _powers_of_two(y))


def _population_count(x: Any) -> Any:
    bits = np.dtype(x.dtype.name if hasattr(x.dtype, "name") else str(x.dtype).lower()).itemsize * 8
    count = ops.zeros(tuple(x.shape), x.dtype)
    rest = x
    for _ in range(bits):  # the lowest bit, then an arithmetic shift (two's complement)
        count = count + ops.bitwise_and(rest, ops.ones_like(rest))
        rest = ops.floor_div(rest, 2)
    return ops.cast(count, _tensor(np.zeros(1, np.uint8)).dtype)


UnsortedSegmentMax = class_form("UnsortedSegmentMax", _segment_reduce(
    "UnsortedSegmentMax", "max", lambda dtype: _limit(dtype, low=True)))
UnsortedSegmentMin = class_form("UnsortedSegmentMin", _segment_reduce(
    "UnsortedSegmentMin", "min", lambda dtype: _limit(dtype, low=False)))
UnsortedSegmentProd = class_form("UnsortedSegmentProd", _segment_reduce(
    "UnsortedSegmentProd", "prod", lambda _: 1))
SparseToDense = class_form("SparseToDense", _sparse_to_dense)
UnravelIndex = class_form("UnravelIndex", _unravel_index)
IOU = class_form("IOU", _iou, mode="iou")
LeftShift = class_form("LeftShift", _left_shift)
RightShift = class_form("RightShift", _right_shift)
PopulationCount = class_form("PopulationCount", _population_count)

__all__ = ["IOU", "LeftShift", "PopulationCount", "RightShift", "SparseToDense", "UnravelIndex",
           "UnsortedSegmentMax", "UnsortedSegmentMin", "UnsortedSegmentProd"]

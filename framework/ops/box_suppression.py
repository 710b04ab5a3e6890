"""Non-maximum suppression classes: ``P.NMSWithMask`` and ``P.NonMaxSuppressionWithOverlaps``.

Greedy suppression in order of decreasing score: a box is kept unless a box kept before it
overlaps it too much; suppressed boxes suppress nothing. As MindSpore's CPU kernels:

- ``NMSWithMask(iou_threshold=0.5)(bboxes)``: ``bboxes`` ``(N, 5)`` rows ``(x1, y1, x2, y2,
  score)``; returns the rows sorted by decreasing score, ``arange(N)`` (int32: the index of
  each in that order) and the keep mask (bool). The overlap is the intersection over the
  union of the areas ``(x2 - x1) * (y2 - y1)``; a box is suppressed when it is above
  ``iou_threshold``. The shapes follow from ``N``: a primitive with a NumPy kernel, no
  gradient. (MindSpore orders equal scores in an order of its sort's own.)
- ``NonMaxSuppressionWithOverlaps()(overlaps, scores, max_output_size, overlap_threshold,
  score_threshold)``: ``overlaps`` ``(N, N)``; the int32 indices of at most
  ``max_output_size`` boxes whose score is above ``score_threshold``, a box suppressed when
  its overlap with a kept one is at least ``overlap_threshold``. Its length depends on the
  values, so it reads them: graph mode runs a function that calls it interpreted (JIT
  Fallback, :mod:`framework.frontend.fallback`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..common.tensor import Tensor
from ..primitive import Primitive, Spec
from ._utils import argument_error


def _greedy(order: np.ndarray, suppresses: Any, limit: int | None = None) -> list[int]:
    """The kept entries of ``order``: ``suppresses(i, kept)`` says whether the kept indices
    ``kept`` (an array) suppress ``i``."""
    kept: list[int] = []
    for i in order:
        if limit is not None and len(kept) >= limit:
            break
        if not kept or not suppresses(int(i), np.asarray(kept)):
            kept.append(int(i))
    return kept


def box_overlaps(boxes: np.ndarray) -> np.ndarray:
    """``(N, N)`` intersection over union of ``(x1, y1, x2, y2)`` rows (areas without +1)."""
    x1, y1, x2, y2 = (boxes[:, i].astype(np.float64) for i in range(4))
    width = np.maximum(np.minimum(x2[:, None], x2[None]) - np.maximum(x1[:, None], x1[None]), 0.0)
    height = np.maximum(np.minimum(y2[:, None], y2[None]) - np.maximum(y1[:, None], y1[None]), 0.0)
    inter = width * height
    area = (x2 - x1) * (y2 - y1)
    union = area[:, None] + area[None] - inter
    return np.where(union > 0, inter / np.where(union > 0, union, 1.0), 0.0)


class NMSWithMask(Primitive):
    """``P.NMSWithMask(iou_threshold=0.5)(bboxes)``: see the module docstring."""

    num_outputs = 3
    differentiable = False

    def __init__(self, iou_threshold: float = 0.5) -> None:
        if not isinstance(iou_threshold, float | int) or isinstance(iou_threshold, bool):
            raise TypeError(f"NMSWithMask: iou_threshold must be a float, got {iou_threshold!r}")
        super().__init__(iou_threshold=float(iou_threshold))

    def infer(self, bboxes: Any) -> tuple[Spec, ...]:
        if len(bboxes.shape) != 2 or bboxes.shape[1] != 5 or np.dtype(bboxes.dtype).kind != "f":
            raise ValueError(f"NMSWithMask: bboxes must be float (N, 5) rows (x1, y1, x2, y2, score), got "
                             f"{np.dtype(bboxes.dtype)} of shape {tuple(bboxes.shape)}")
        n = bboxes.shape[0]
        return (Spec((n, 5), np.dtype(bboxes.dtype)), Spec((n,), np.dtype(np.int32)),
                Spec((n,), np.dtype(np.bool_)))

    def kernel(self, bboxes: np.ndarray) -> tuple[np.ndarray, ...]:
        order = np.argsort(-bboxes[:, 4], kind="stable")
        ranked = bboxes[order]
        iou = box_overlaps(ranked)
        kept = _greedy(np.arange(len(ranked)), lambda i, k: bool((iou[i, k] > self.iou_threshold).any()))
        mask = np.zeros(len(ranked), np.bool_)
        mask[kept] = True
        return ranked.copy(), np.arange(len(ranked), dtype=np.int32), mask


def _host_value(name: str, value: Any) -> np.ndarray:
    if hasattr(value, "asnumpy"):  # a traced tensor raises here: the caller runs interpreted
        return value.asnumpy()
    if isinstance(value, int | float | np.ndarray | np.generic):
        return np.asarray(value)
    raise argument_error("NonMaxSuppressionWithOverlaps", TypeError(
        f"{name} must be a Tensor, got {type(value).__name__}"))


class NonMaxSuppressionWithOverlaps:
    """``P.NonMaxSuppressionWithOverlaps()(overlaps, scores, max_output_size,
    overlap_threshold, score_threshold)``: see the module docstring."""

    def __init__(self) -> None:  # MindSpore's takes no attributes
        pass

    def __call__(self, overlaps: Any, scores: Any, max_output_size: Any, overlap_threshold: Any,
                 score_threshold: Any) -> Any:
        table = _host_value("overlaps", overlaps)
        score = _host_value("scores", scores)
        limit = int(_host_value("max_output_size", max_output_size))
        overlap_limit = float(_host_value("overlap_threshold", overlap_threshold))
        score_limit = float(_host_value("score_threshold", score_threshold))
        n = score.shape[0] if score.ndim == 1 else -1
        if table.ndim != 2 or table.shape != (n, n):
            raise argument_error("NonMaxSuppressionWithOverlaps", ValueError(
                f"overlaps must be (N, N) and scores (N,), got {table.shape} and {score.shape}"))
        if limit < 0:
            raise argument_error("NonMaxSuppressionWithOverlaps", ValueError(
                f"max_output_size must be >= 0, got {limit}"))
        order = [i for i in np.argsort(-score, kind="stable") if score[i] > score_limit]
        kept = _greedy(np.asarray(order, np.int64), lambda i, k: bool((table[i, k] >= overlap_limit).any()),
                       limit)
        return Tensor(np.asarray(kept, np.int32))


def _corner_overlaps(boxes: np.ndarray) -> np.ndarray:
    """``(N, N)`` intersection over union of ``(y1, x1, y2, x2)`` rows, corners in either
    order (0 where a box has no area)."""
    b = boxes.astype(np.float64)
    y1, y2 = np.minimum(b[:, 0], b[:, 2]), np.maximum(b[:, 0], b[:, 2])
    x1, x2 = np.minimum(b[:, 1], b[:, 3]), np.maximum(b[:, 1], b[:, 3])
    return box_overlaps(np.stack([x1, y1, x2, y2], 1))


class CombinedNonMaxSuppression:
    """``P.CombinedNonMaxSuppression(pad_per_class=False, clip_boxes=True)(boxes, scores,
    max_output_size_per_class, max_total_size, iou_threshold, score_threshold)``: per image
    and class, greedy suppression (a box above ``score_threshold`` is dropped when its
    overlap with a kept one is above ``iou_threshold``; at most ``max_output_size_per_class``
    kept), then the kept boxes of all classes by decreasing score, the first ``D`` of them
    (``D`` = ``max_total_size``, or with ``pad_per_class`` at most ``max_output_size_per_class
    * classes``). ``boxes`` ``(B, N, q, 4)`` rows ``(y1, x1, y2, x2)`` (``q`` 1: shared by
    the classes), ``scores`` ``(B, N, classes)``. Returns ``(boxes (B, D, 4), scores (B, D),
    classes (B, D) float32, valid (B,) int32)``, zero-padded, boxes clipped to ``[0, 1]``
    with ``clip_boxes``. ``D`` depends on a value: the inputs are read (graph mode runs the
    function interpreted, JIT Fallback)."""

    def __init__(self, pad_per_class: bool = False, clip_boxes: bool = True) -> None:
        for name, value in (("pad_per_class", pad_per_class), ("clip_boxes", clip_boxes)):
            if not isinstance(value, bool):
                raise argument_error("CombinedNonMaxSuppression", TypeError(
                    f"{name} must be a bool, got {value!r}"))
        self.pad_per_class, self.clip_boxes = pad_per_class, clip_boxes

    def __call__(self, boxes: Any, scores: Any, max_output_size_per_class: Any, max_total_size: Any,
                 iou_threshold: Any, score_threshold: Any) -> tuple[Any, ...]:
        who = "CombinedNonMaxSuppression"
        box, score = _host_value("boxes", boxes), _host_value("scores", scores)
        per_class, total = int(_host_value("max_output_size_per_class", max_output_size_per_class)), \
            int(_host_value("max_total_size", max_total_size))
        iou_limit, score_limit = float(_host_value("iou_threshold", iou_threshold)), \
            float(_host_value("score_threshold", score_threshold))
        if box.ndim != 4 or box.shape[3] != 4 or score.ndim != 3 or box.shape[:2] != score.shape[:2] \
                or box.shape[2] not in (1, score.shape[2]):
            raise argument_error(who, ValueError(
                f"boxes must be (B, N, q, 4) and scores (B, N, classes) with q 1 or classes, got "
                f"{box.shape} and {score.shape}"))
        if per_class < 0 or total < 0 or not 0.0 <= iou_limit <= 1.0:
            raise argument_error(who, ValueError(
                "max_output_size_per_class and max_total_size must be >= 0 and iou_threshold in [0, 1], "
                f"got {per_class}, {total}, {iou_limit}"))
        batch, _, classes = score.shape
        size = min(total, per_class * classes) if self.pad_per_class else total
        out_boxes = np.zeros((batch, size, 4), np.float32)
        out_scores = np.zeros((batch, size), np.float32)
        out_classes = np.zeros((batch, size), np.float32)
        valid = np.zeros(batch, np.int32)
        for b in range(batch):
            found: list[tuple[float, int, np.ndarray]] = []
            for c in range(classes):
                rows = box[b, :, c if box.shape[2] > 1 else 0]
                ranked = np.argsort(-score[b, :, c], kind="stable")
                order = np.asarray([i for i in ranked if score[b, i, c] > score_limit], np.int64)
                iou = _corner_overlaps(rows)
                kept = _greedy(order, lambda i, k, iou=iou: bool((iou[i, k] > iou_limit).any()), per_class)
                found += [(float(score[b, i, c]), c, rows[i]) for i in kept]
            found.sort(key=lambda item: -item[0])
            found = found[:size]
            valid[b] = len(found)
            for j, (s, c, row) in enumerate(found):
                out_boxes[b, j] = np.clip(row, 0.0, 1.0) if self.clip_boxes else row
                out_scores[b, j], out_classes[b, j] = s, c
        return Tensor(out_boxes), Tensor(out_scores), Tensor(out_classes), Tensor(valid)

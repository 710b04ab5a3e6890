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
        from ..tensor import Tensor

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

"""Harness cases (see primitive_cases.py) of the box primitives: ``NMSWithMask``
(ops/box_suppression.py) against a pair-by-pair greedy loop, and ``ROIAlignWeights``
(ops/roi_align.py) against Caffe2's RoIAlign written sample by sample (each sample's four
bilinear weights added to the rows and columns it reads)."""

from __future__ import annotations

import math

import numpy as np

from framework.ops.box_suppression import NMSWithMask
from framework.ops.roi_align import ROIAlignWeights

from .primitive_cases import Case


def _iou(a: np.ndarray, b: np.ndarray) -> float:
    w = max(min(a[2], b[2]) - max(a[0], b[0]), 0.0)
    h = max(min(a[3], b[3]) - max(a[1], b[1]), 0.0)
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - w * h
    return w * h / union if union > 0 else 0.0


def _nms_ref(threshold: float):
    def ref(boxes: np.ndarray):
        ranked = boxes[np.argsort(-boxes[:, 4], kind="stable")]
        keep: list[int] = []
        for i in range(len(ranked)):
            if all(_iou(ranked[i], ranked[k]) <= threshold for k in keep):
                keep.append(i)
        return ranked, np.arange(len(ranked), dtype=np.int32), np.isin(np.arange(len(ranked)), keep)
    return ref


def _boxes(rng: np.random.Generator) -> list[np.ndarray]:
    corner = rng.uniform(0, 10, (7, 2))
    size = rng.uniform(1, 6, (7, 2))
    return [np.concatenate([corner, corner + size, rng.permutation(7)[:, None] / 7 + 0.05], 1)]


def _axis(start: float, length: float, pooled: int, grid: int, size: int) -> np.ndarray:
    if grid == 0:  # an average of no samples: 0 / 0, as MindSpore's kernel
        return np.full((pooled, size), np.nan)
    out = np.zeros((pooled, size))
    step = length / pooled
    for p in range(pooled):
        for g in range(grid):
            pos = start + p * step + (g + 0.5) * step / grid
            if pos < -1 or pos > size:
                continue
            pos = max(pos, 0.0)
            low = int(pos)
            if low >= size - 1:
                out[p, size - 1] += 1.0 / grid
                continue
            out[p, low] += (1 - (pos - low)) / grid
            out[p, low + 1] += (pos - low) / grid
    return out


def _roi_ref(ph: int, pw: int, scale: float, sample_num: int, end_mode: int, h: int, w: int):
    def ref(rois: np.ndarray):
        wy, wx = [], []
        for _, x1, y1, x2, y2 in rois:
            x1, y1, x2, y2 = x1 * scale, y1 * scale, (x2 + end_mode) * scale, (y2 + end_mode) * scale
            rh, rw = max(y2 - y1, 1.0), max(x2 - x1, 1.0)
            gh = sample_num if sample_num > 0 else math.floor(rh / ph)
            gw = sample_num if sample_num > 0 else math.floor(rw / pw)
            wy.append(_axis(y1, rh, ph, gh, h))
            wx.append(_axis(x1, rw, pw, gw, w))
        return np.stack(wy), np.stack(wx)
    return ref


def _rois(rng: np.random.Generator) -> list[np.ndarray]:
    corner = rng.uniform(-2, 8, (5, 2))
    return [np.concatenate([rng.integers(0, 2, (5, 1)), corner, corner + rng.uniform(0.5, 9, (5, 2))], 1)]


BOX_CASES = [
    Case(NMSWithMask(0.3), _boxes, _nms_ref(0.3)),
    Case(NMSWithMask(0.05), _boxes, _nms_ref(0.05)),
    Case(ROIAlignWeights(2, 3, 1.0, 2, 1, 7, 9), _rois, _roi_ref(2, 3, 1.0, 2, 1, 7, 9)),
    Case(ROIAlignWeights(3, 2, 0.5, -1, 0, 6, 5), _rois, _roi_ref(3, 2, 0.5, -1, 0, 6, 5)),
    Case(ROIAlignWeights(2, 2, 0.7, 3, 1, 6, 7), _rois, _roi_ref(2, 2, 0.7, 3, 1, 6, 7)),
]

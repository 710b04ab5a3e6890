"""``mindspore.dataset.vision``'s operations on a batch of images and their one-hot labels
(after ``batch``): ``MixUpBatch``, ``CutMixBatch`` (with :class:`ImageBatchFormat`) and the
Python ``MixUp``. Each mixes an image with another of the batch (a random permutation) by a
weight ``lambda ~ Beta(alpha, alpha)``, the labels by the same weight (CutMix: the share of
the pasted area)."""

from __future__ import annotations

import math
from enum import Enum
from typing import Any

import numpy as np

from ..config import get_seed
from .random_color import probability


class ImageBatchFormat(Enum):
    NHWC = 0
    NCHW = 1


def _alpha(alpha: Any, what: str) -> float:
    if isinstance(alpha, bool) or not isinstance(alpha, int | float) or alpha <= 0:
        raise ValueError(f"{what}: alpha must be a number > 0, got {alpha!r}")
    return float(alpha)


def _batch(images: Any, labels: Any, what: str) -> tuple[np.ndarray, np.ndarray]:
    x, y = np.asarray(images), np.asarray(labels)
    if x.ndim != 4:
        raise RuntimeError(
            f"{what}: images must be a batch N x H x W x C or N x C x H x W, got shape {x.shape}"
        )
    if y.ndim not in (2, 3) or y.shape[0] != x.shape[0]:
        raise RuntimeError(f"{what}: labels must be one-hot, N x classes, got shape {y.shape}")
    return x, y


def _cast(values: np.ndarray, dtype: np.dtype) -> np.ndarray:
    if dtype.kind == "f":
        return values.astype(dtype)
    info = np.iinfo(dtype)
    return np.clip(np.rint(values), info.min, info.max).astype(dtype)


class MixUpBatch:
    """``MixUpBatch(alpha=1.0)``: ``lambda * x + (1 - lambda) * x[perm]``, labels alike
    (float32), images keep their dtype."""

    random = True

    def __init__(self, alpha: float = 1.0) -> None:
        self.alpha = _alpha(alpha, "MixUpBatch")
        self.rng = np.random.default_rng(get_seed())

    def __call__(self, images: Any, labels: Any) -> tuple[np.ndarray, np.ndarray]:
        x, y = _batch(images, labels, "MixUpBatch")
        lam = float(self.rng.beta(self.alpha, self.alpha))
        perm = self.rng.permutation(len(x))
        mixed = lam * x.astype(np.float64) + (1 - lam) * x[perm].astype(np.float64)
        mixed_labels = lam * y.astype(np.float64) + (1 - lam) * y[perm].astype(np.float64)
        return _cast(mixed, x.dtype), mixed_labels.astype(np.float32)


class CutMixBatch:
    """``CutMixBatch(image_batch_format, alpha=1.0, prob=1.0)``: with probability ``prob`` per
    image, a box of area share ``1 - lambda`` pasted from another image of the batch; the
    labels mixed by the pasted share."""

    random = True

    def __init__(self, image_batch_format: ImageBatchFormat, alpha: float = 1.0, prob: float = 1.0) -> None:
        if not isinstance(image_batch_format, ImageBatchFormat):
            raise TypeError(
                f"CutMixBatch: image_batch_format must be a vision.ImageBatchFormat, "
                f"got {image_batch_format!r}"
            )
        self.nchw = image_batch_format is ImageBatchFormat.NCHW
        self.alpha, self.prob = _alpha(alpha, "CutMixBatch"), probability(prob, "CutMixBatch")
        self.rng = np.random.default_rng(get_seed())

    def __call__(self, images: Any, labels: Any) -> tuple[np.ndarray, np.ndarray]:
        x, y = _batch(images, labels, "CutMixBatch")
        view = np.moveaxis(x, 1, -1) if self.nchw else x
        out, out_labels = view.copy(), y.astype(np.float32).copy()
        n, h, w = view.shape[:3]
        perm = self.rng.permutation(n)
        for i in range(n):
            if self.rng.random() >= self.prob:
                continue
            lam = float(self.rng.beta(self.alpha, self.alpha))
            cut_h, cut_w = int(h * math.sqrt(1 - lam)), int(w * math.sqrt(1 - lam))
            cy, cx = int(self.rng.integers(0, h)), int(self.rng.integers(0, w))
            y0, y1 = max(cy - cut_h // 2, 0), min(cy + cut_h // 2, h)
            x0, x1 = max(cx - cut_w // 2, 0), min(cx + cut_w // 2, w)
            out[i, y0:y1, x0:x1] = view[perm[i], y0:y1, x0:x1]
            share = (y1 - y0) * (x1 - x0) / float(h * w)
            out_labels[i] = (1 - share) * y[i] + share * y[perm[i]]
        return (np.ascontiguousarray(np.moveaxis(out, -1, 1)) if self.nchw else out), out_labels


class MixUp:
    """``MixUp(batch_size, alpha, is_single=True)``: the Python form of MixUp: one weight per
    batch, each image mixed with another of the batch (a random permutation), float64 results."""

    random = True

    def __init__(self, batch_size: int, alpha: float, is_single: bool = True) -> None:
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise ValueError(f"MixUp: batch_size must be an int >= 1, got {batch_size!r}")
        self.batch_size, self.alpha, self.is_single = batch_size, _alpha(alpha, "MixUp"), bool(is_single)
        self.rng = np.random.default_rng(get_seed())

    def __call__(self, images: Any, labels: Any) -> tuple[np.ndarray, np.ndarray]:
        x, y = _batch(images, labels, "MixUp")
        lam = float(self.rng.beta(self.alpha, self.alpha))
        perm = self.rng.permutation(len(x))
        return (
            lam * x.astype(np.float64) + (1 - lam) * x[perm].astype(np.float64),
            lam * y.astype(np.float64) + (1 - lam) * y[perm].astype(np.float64),
        )

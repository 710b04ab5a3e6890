"""``mindspore.dataset.vision``'s random colour operations: each draws its factor (or
whether to apply) per image from the pipeline's generator, then applies the deterministic
operation of :mod:`framework.dataset.vision.color` with it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..ops_base import SampleOp
from . import color
from .hsv import AdjustHue


def probability(prob: Any, what: str) -> float:
    if isinstance(prob, bool) or not isinstance(prob, int | float) or not 0.0 <= prob <= 1.0:
        raise ValueError(f"{what}: prob must be a number in [0, 1], got {prob!r}")
    return float(prob)


def value_range(
    value: Any, what: str, name: str, around: float | None = 1.0, low: float = 0.0
) -> tuple[float, float]:
    """``(min, max)`` from a pair, or from one number ``v``: ``[max(low, around - v), around + v]``
    (``around=None``: ``[-v, v]``)."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        if value < 0:
            raise ValueError(f"{what}: {name} must not be negative, got {value!r}")
        pair = (-value, value) if around is None else (max(low, around - value), around + value)
    elif isinstance(value, list | tuple) and len(value) == 2:
        pair = (float(value[0]), float(value[1]))
    else:
        raise TypeError(f"{what}: {name} must be a number or (min, max), got {value!r}")
    if pair[0] > pair[1] or (around is not None and pair[0] < low):
        raise ValueError(f"{what}: {name} must be (min, max) with {low} <= min <= max, got {value!r}")
    return float(pair[0]), float(pair[1])


class _RandomApply(SampleOp):
    """Apply ``self.op`` with probability ``self.prob``."""

    random = True
    op: SampleOp
    prob: float

    def sample(self, x: np.ndarray, rng: Any) -> np.ndarray:
        return self.op.sample(x) if rng.random() < self.prob else x.copy()


class RandomAdjustSharpness(_RandomApply):
    """``RandomAdjustSharpness(degree, prob=0.5)``: ``AdjustSharpness(degree)`` with probability ``prob``."""

    def __init__(self, degree: float, prob: float = 0.5) -> None:
        self.op, self.prob = color.AdjustSharpness(degree), probability(prob, "RandomAdjustSharpness")


class RandomAutoContrast(_RandomApply):
    """``RandomAutoContrast(cutoff=0.0, ignore=None, prob=0.5)``."""

    def __init__(self, cutoff: float = 0.0, ignore: Any = None, prob: float = 0.5) -> None:
        self.op, self.prob = color.AutoContrast(cutoff, ignore), probability(prob, "RandomAutoContrast")


class RandomEqualize(_RandomApply):
    """``RandomEqualize(prob=0.5)``."""

    def __init__(self, prob: float = 0.5) -> None:
        self.op, self.prob = color.Equalize(), probability(prob, "RandomEqualize")


class RandomInvert(_RandomApply):
    """``RandomInvert(prob=0.5)``."""

    def __init__(self, prob: float = 0.5) -> None:
        self.op, self.prob = color.Invert(), probability(prob, "RandomInvert")


class _RandomFactor(SampleOp):
    """An operation built per image from a factor drawn uniformly in ``self.range``."""

    random = True
    range: tuple[float, float]

    def make(self, factor: float) -> SampleOp:
        raise NotImplementedError

    def sample(self, x: np.ndarray, rng: Any) -> np.ndarray:
        return self.make(float(rng.uniform(*self.range))).sample(x)


class RandomColor(_RandomFactor):
    """``RandomColor(degrees=(0.1, 1.9))``: saturation by a factor drawn in ``degrees``."""

    def __init__(self, degrees: Sequence[float] = (0.1, 1.9)) -> None:
        self.range = value_range(degrees, "RandomColor", "degrees")

    def make(self, factor: float) -> SampleOp:
        return color.AdjustSaturation(factor)


class RandomSharpness(_RandomFactor):
    """``RandomSharpness(degrees=(0.1, 1.9))``: sharpness by a factor drawn in ``degrees``."""

    def __init__(self, degrees: Sequence[float] = (0.1, 1.9)) -> None:
        self.range = value_range(degrees, "RandomSharpness", "degrees")

    def make(self, factor: float) -> SampleOp:
        return color.AdjustSharpness(factor)


class RandomPosterize(SampleOp):
    """``RandomPosterize(bits=(8, 8))``: ``Posterize`` with an int drawn in ``[min, max]``."""

    random = True

    def __init__(self, bits: int | Sequence[int] = (8, 8)) -> None:
        low, high = (bits, bits) if isinstance(bits, int) else tuple(bits)
        if not 1 <= low <= high <= 8:
            raise ValueError(f"RandomPosterize: bits must be in [1, 8] (min <= max), got {bits!r}")
        self.range = (int(low), int(high))

    def sample(self, x: np.ndarray, rng: Any) -> np.ndarray:
        return color.Posterize(int(rng.integers(self.range[0], self.range[1] + 1))).sample(x)


class RandomSolarize(SampleOp):
    """``RandomSolarize(threshold=(0, 255))``: values in a sub-range of ``[min, max]`` (its two
    ends drawn uniformly) inverted."""

    random = True

    def __init__(self, threshold: Sequence[int] = (0, 255)) -> None:
        low, high = tuple(threshold)
        if not 0 <= low <= high <= 255:
            raise ValueError(f"RandomSolarize: threshold must be (min, max) in [0, 255], got {threshold!r}")
        self.range = (int(low), int(high))

    def sample(self, x: np.ndarray, rng: Any) -> np.ndarray:
        ends = sorted(int(v) for v in rng.integers(self.range[0], self.range[1] + 1, size=2))
        return color.Solarize(tuple(ends)).sample(x)


class RandomColorAdjust(SampleOp):
    """``RandomColorAdjust(brightness=(1, 1), contrast=(1, 1), saturation=(1, 1), hue=(0, 0))``:
    each factor drawn uniformly, applied in a random order."""

    random = True

    def __init__(
        self, brightness: Any = (1, 1), contrast: Any = (1, 1), saturation: Any = (1, 1), hue: Any = (0, 0)
    ) -> None:
        what = "RandomColorAdjust"
        self.ranges = [
            (color.AdjustBrightness, value_range(brightness, what, "brightness")),
            (color.AdjustContrast, value_range(contrast, what, "contrast")),
            (color.AdjustSaturation, value_range(saturation, what, "saturation")),
            (AdjustHue, value_range(hue, what, "hue", around=None)),
        ]
        low, high = self.ranges[3][1]
        if not -0.5 <= low <= high <= 0.5:
            raise ValueError(f"RandomColorAdjust: hue must be in [-0.5, 0.5], got {hue!r}")

    def sample(self, x: np.ndarray, rng: Any) -> np.ndarray:
        for i in rng.permutation(4):
            make, (low, high) = self.ranges[int(i)]
            neutral = 0.0 if make is AdjustHue else 1.0
            if low == high == neutral:
                continue
            x = make(float(rng.uniform(low, high))).sample(x)
        return x


# AlexNet's PCA of ImageNet's RGB pixels (Krizhevsky et al. 2012), as MindSpore uses them
_EIGVAL = np.array([0.2175, 0.0188, 0.0045])
_EIGVEC = np.array([[-0.5675, 0.7192, 0.4009], [-0.5808, -0.0045, -0.8140], [-0.5836, -0.6948, 0.4203]])


class RandomLighting(SampleOp):
    """``RandomLighting(alpha=0.05)``: AlexNet's PCA lighting noise: ``eigvec @ (a * eigval)``
    with ``a ~ N(0, alpha)`` per channel, times 255, added to every pixel."""

    random = True

    def __init__(self, alpha: float = 0.05) -> None:
        if isinstance(alpha, bool) or not isinstance(alpha, int | float) or alpha < 0:
            raise ValueError(f"RandomLighting: alpha must be a number >= 0, got {alpha!r}")
        self.alpha = float(alpha)

    def sample(self, x: np.ndarray, rng: Any) -> np.ndarray:
        if x.ndim != 3 or x.shape[2] != 3:
            raise RuntimeError(f"RandomLighting: expected an H x W x 3 image, got shape {x.shape}")
        shift = _EIGVEC @ (rng.normal(0.0, self.alpha, 3) * _EIGVAL) * 255.0
        return color.saturate(x.astype(np.float64) + shift, x.dtype)

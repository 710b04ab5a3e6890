"""``mindspore.dataset.vision``'s random geometric operations: vertical flip, resized crop
(``RandomResizedCrop``, and ``RandomCropDecodeResize`` on encoded images), ``RandomResize``,
``RandomRotation``, ``RandomAffine``, ``RandomPerspective``, ``RandomErasing`` and ``CutOut``.
Parameters are drawn per image from the pipeline's generator as MindSpore's documentation
describes (the crop search of Inception: area in ``scale``, log-uniform aspect in ``ratio``,
``max_attempts`` tries, then a centre crop)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..ops_base import SampleOp
from .basic_ops import Resize
from .geometry import Affine, Perspective, Rotate, image, size_pair
from .image_io import decode_array
from .random_color import probability, value_range
from .warp import Inter, resize_image


class RandomVerticalFlip(SampleOp):
    """``RandomVerticalFlip(prob=0.5)``."""

    random = True

    def __init__(self, prob: float = 0.5) -> None:
        self.prob = probability(prob, "RandomVerticalFlip")

    def sample(self, x: np.ndarray, rng: Any) -> np.ndarray:
        return np.ascontiguousarray(x[::-1]) if rng.random() < self.prob else x.copy()


def crop_box(
    h: int, w: int, scale: tuple[float, float], ratio: tuple[float, float], attempts: int, rng: Any
) -> tuple[int, int, int, int]:
    """``(top, left, height, width)`` of a random crop (Inception's search)."""
    area = h * w
    log_ratio = (math.log(ratio[0]), math.log(ratio[1]))
    for _ in range(attempts):
        target = area * rng.uniform(*scale)
        aspect = math.exp(rng.uniform(*log_ratio))
        cw, ch = int(round(math.sqrt(target * aspect))), int(round(math.sqrt(target / aspect)))
        if 0 < cw <= w and 0 < ch <= h:
            return int(rng.integers(0, h - ch + 1)), int(rng.integers(0, w - cw + 1)), ch, cw
    in_ratio = w / h
    if in_ratio < ratio[0]:
        cw, ch = w, int(round(w / ratio[0]))
    elif in_ratio > ratio[1]:
        ch, cw = h, int(round(h * ratio[1]))
    else:
        ch, cw = h, w
    return (h - ch) // 2, (w - cw) // 2, ch, cw


class RandomResizedCrop(SampleOp):
    """``RandomResizedCrop(size, scale=(0.08, 1.0), ratio=(3/4, 4/3), interpolation=Inter.BILINEAR,
    max_attempts=10)``."""

    random = True

    def __init__(
        self,
        size: int | Sequence[int],
        scale: Sequence[float] = (0.08, 1.0),
        ratio: Sequence[float] = (3.0 / 4.0, 4.0 / 3.0),
        interpolation: Inter = Inter.BILINEAR,
        max_attempts: int = 10,
    ) -> None:
        what = type(self).__name__
        self.size = size_pair(size, what)
        self.scale, self.ratio = tuple(scale), tuple(ratio)
        if len(self.scale) != 2 or not 0 <= self.scale[0] <= self.scale[1]:
            raise ValueError(f"{what}: scale must be (min, max) with 0 <= min <= max, got {scale!r}")
        if len(self.ratio) != 2 or not 0 < self.ratio[0] <= self.ratio[1]:
            raise ValueError(f"{what}: ratio must be (min, max) with 0 < min <= max, got {ratio!r}")
        if isinstance(max_attempts, bool) or not isinstance(max_attempts, int) or max_attempts < 1:
            raise ValueError(f"{what}: max_attempts must be an int >= 1, got {max_attempts!r}")
        self.inter, self.attempts = Inter(interpolation), max_attempts

    def sample(self, x: np.ndarray, rng: Any) -> np.ndarray:
        x = image(x, type(self).__name__)
        top, left, h, w = crop_box(x.shape[0], x.shape[1], self.scale, self.ratio, self.attempts, rng)
        return resize_image(np.ascontiguousarray(x[top : top + h, left : left + w]), *self.size, self.inter)


class RandomCropDecodeResize(RandomResizedCrop):
    """``RandomCropDecodeResize(size, scale, ratio, interpolation, max_attempts)``: ``Decode``,
    then :class:`RandomResizedCrop`."""

    def sample(self, x: np.ndarray, rng: Any) -> np.ndarray:
        return super().sample(decode_array(x, "RandomCropDecodeResize"), rng)


class RandomResize(SampleOp):
    """``RandomResize(size)``: ``Resize`` with an interpolation drawn among bilinear, nearest,
    bicubic and area."""

    random = True
    MODES = (Inter.BILINEAR, Inter.NEAREST, Inter.BICUBIC, Inter.AREA)

    def __init__(self, size: int | Sequence[int]) -> None:

        self.size = size
        self.ops = [Resize(size, mode) for mode in self.MODES]

    def sample(self, x: np.ndarray, rng: Any) -> np.ndarray:
        return self.ops[int(rng.integers(len(self.ops)))].apply_batch(x[np.newaxis])[0]


class RandomRotation(SampleOp):
    """``RandomRotation(degrees, resample=Inter.NEAREST, expand=False, center=None, fill_value=0)``:
    ``Rotate`` by an angle drawn in ``degrees`` (a number ``d``: ``[-d, d]``)."""

    random = True

    def __init__(
        self,
        degrees: float | Sequence[float],
        resample: Inter = Inter.NEAREST,
        expand: bool = False,
        center: Sequence[float] | None = None,
        fill_value: Any = 0,
    ) -> None:
        self.range = value_range(degrees, "RandomRotation", "degrees", around=None)
        self.args = (Inter(resample), bool(expand), center, fill_value)

    def sample(self, x: np.ndarray, rng: Any) -> np.ndarray:
        return Rotate(float(rng.uniform(*self.range)), *self.args).sample(x)


class RandomAffine(SampleOp):
    """``RandomAffine(degrees, translate=None, scale=None, shear=None, resample=Inter.NEAREST,
    fill_value=0)``: ``Affine`` with each parameter drawn in its range (translate as fractions
    of the width and height)."""

    random = True

    def __init__(
        self,
        degrees: float | Sequence[float],
        translate: Sequence[float] | None = None,
        scale: Sequence[float] | None = None,
        shear: float | Sequence[float] | None = None,
        resample: Inter = Inter.NEAREST,
        fill_value: Any = 0,
    ) -> None:
        self.degrees = value_range(degrees, "RandomAffine", "degrees", around=None)
        t = tuple(translate) if translate is not None else (0.0, 0.0, 0.0, 0.0)
        self.translate = t + (0.0, 0.0) if len(t) == 2 else t
        if len(self.translate) != 4 or any(not -1 <= v <= 1 for v in self.translate):
            raise ValueError(f"RandomAffine: translate must be 2 or 4 numbers in [-1, 1], got {translate!r}")
        self.scale = tuple(scale) if scale is not None else (1.0, 1.0)
        if shear is None:
            self.shear = (0.0, 0.0, 0.0, 0.0)
        elif isinstance(shear, int | float):
            self.shear = (-float(shear), float(shear), 0.0, 0.0)
        else:
            s = tuple(float(v) for v in shear)
            self.shear = s + (0.0, 0.0) if len(s) == 2 else s
        self.inter, self.fill = Inter(resample), fill_value

    def sample(self, x: np.ndarray, rng: Any) -> np.ndarray:
        tx = float(rng.uniform(self.translate[0], self.translate[1]))
        ty = float(rng.uniform(self.translate[2], self.translate[3]))
        op = Affine(
            float(rng.uniform(*self.degrees)),
            [tx, ty],
            float(rng.uniform(*self.scale)),
            [float(rng.uniform(*self.shear[:2])), float(rng.uniform(*self.shear[2:]))],
            self.inter,
            self.fill,
        )
        return op.sample(x)


class RandomPerspective(SampleOp):
    """``RandomPerspective(distortion_scale=0.5, prob=0.5, interpolation=Inter.BICUBIC)``: each
    corner moved inwards by up to ``distortion_scale`` of half the size, with probability ``prob``."""

    random = True

    def __init__(
        self, distortion_scale: float = 0.5, prob: float = 0.5, interpolation: Inter = Inter.BICUBIC
    ) -> None:
        self.scale = probability(distortion_scale, "RandomPerspective")
        self.prob, self.inter = probability(prob, "RandomPerspective"), Inter(interpolation)

    def sample(self, x: np.ndarray, rng: Any) -> np.ndarray:
        if rng.random() >= self.prob:
            return x.copy()
        h, w = x.shape[:2]
        dx, dy = int(self.scale * w / 2), int(self.scale * h / 2)
        start = [[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]]
        end = [
            [int(rng.integers(0, dx + 1)), int(rng.integers(0, dy + 1))],
            [w - 1 - int(rng.integers(0, dx + 1)), int(rng.integers(0, dy + 1))],
            [w - 1 - int(rng.integers(0, dx + 1)), h - 1 - int(rng.integers(0, dy + 1))],
            [int(rng.integers(0, dx + 1)), h - 1 - int(rng.integers(0, dy + 1))],
        ]
        inter = self.inter if self.inter in (Inter.NEAREST, Inter.BILINEAR) else Inter.BILINEAR
        return Perspective(start, end, inter).sample(x)


class RandomErasing(SampleOp):
    """``RandomErasing(prob=0.5, scale=(0.02, 0.33), ratio=(0.3, 3.3), value=0, inplace=False,
    max_attempts=10)``: on a ``C x H x W`` float image, a random rectangle set to ``value``
    (``"random"``: standard normal noise)."""

    random = True

    def __init__(
        self,
        prob: float = 0.5,
        scale: Sequence[float] = (0.02, 0.33),
        ratio: Sequence[float] = (0.3, 3.3),
        value: Any = 0,
        inplace: bool = False,
        max_attempts: int = 10,
    ) -> None:
        self.prob, self.scale, self.ratio = probability(prob, "RandomErasing"), tuple(scale), tuple(ratio)
        self.value, self.inplace, self.attempts = value, bool(inplace), int(max_attempts)

    def sample(self, x: np.ndarray, rng: Any) -> np.ndarray:
        if x.ndim != 3:
            raise RuntimeError(f"RandomErasing: expected a C x H x W image, got shape {x.shape}")
        out = x if self.inplace else x.copy()
        if rng.random() >= self.prob:
            return out
        c, h, w = x.shape
        for _ in range(self.attempts):
            area = h * w * rng.uniform(*self.scale)
            aspect = math.exp(rng.uniform(math.log(self.ratio[0]), math.log(self.ratio[1])))
            eh, ew = int(round(math.sqrt(area * aspect))), int(round(math.sqrt(area / aspect)))
            if eh < h and ew < w:
                top, left = int(rng.integers(0, h - eh + 1)), int(rng.integers(0, w - ew + 1))
                fill = (
                    rng.standard_normal((c, eh, ew))
                    if self.value == "random"
                    else np.asarray(self.value, np.float64).reshape(-1, 1, 1)
                )
                out[:, top : top + eh, left : left + ew] = fill
                return out
        return out


class CutOut(SampleOp):
    """``CutOut(length, num_patches=1, is_hwc=True)``: ``num_patches`` squares of side
    ``length`` (clipped at the border), centred at uniform positions, set to 0."""

    random = True

    def __init__(self, length: int, num_patches: int = 1, is_hwc: bool = True) -> None:
        if isinstance(length, bool) or not isinstance(length, int) or length < 1:
            raise ValueError(f"CutOut: length must be an int >= 1, got {length!r}")
        if isinstance(num_patches, bool) or not isinstance(num_patches, int) or num_patches < 1:
            raise ValueError(f"CutOut: num_patches must be an int >= 1, got {num_patches!r}")
        self.length, self.patches, self.is_hwc = length, num_patches, bool(is_hwc)

    def sample(self, x: np.ndarray, rng: Any) -> np.ndarray:
        out = x.copy()
        view = out if self.is_hwc else np.moveaxis(out, 0, -1)
        h, w = view.shape[:2]
        for _ in range(self.patches):
            cy, cx = int(rng.integers(0, h)), int(rng.integers(0, w))
            top, left = max(cy - self.length // 2, 0), max(cx - self.length // 2, 0)
            view[top : min(top + self.length, h), left : min(left + self.length, w)] = 0
        return out

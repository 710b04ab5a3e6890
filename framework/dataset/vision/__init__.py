"""``mindspore.dataset.vision``: image operations, vectorized over many samples.

Images are ``H x W`` or ``H x W x C`` (MnistDataset gives ``28 x 28 x 1`` uint8), so a batch
is ``N x H x W [x C]``; after :class:`HWC2CHW` they are ``C x H x W``. Each operation is a
:class:`~framework.dataset.ops_base.DataOp`: ``op(image)`` works on one image and the
pipeline applies ``op.apply_batch`` to whole arrays. Random operations draw from the
generator the pipeline gives them (seeded per epoch and batch), so epochs are reproducible.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum
from typing import Any

import numpy as np

from datasets.transforms import Rescale as _Rescale
from datasets.transforms import bilinear_resize, hwc2chw, normalize

from ..ops_base import DataOp


class Inter(Enum):
    """Interpolation modes; only ``LINEAR``/``BILINEAR`` are implemented."""

    LINEAR = 0
    BILINEAR = 0
    NEAREST = 1
    BICUBIC = 2
    AREA = 3
    PILCUBIC = 4
    ANTIALIAS = 5


class Border(Enum):
    """Padding modes of :class:`Pad` and :class:`RandomCrop`."""

    CONSTANT = "constant"
    EDGE = "edge"
    REFLECT = "reflect"
    SYMMETRIC = "symmetric"


def _pair(size: int | Sequence[int], what: str) -> tuple[int, int]:
    sizes = (size, size) if isinstance(size, int | np.integer) else tuple(size)
    if len(sizes) != 2 or not all(isinstance(s, int | np.integer) and s > 0 for s in sizes):
        raise ValueError(f"{what}: size must be a positive int or (height, width), got {size!r}")
    return int(sizes[0]), int(sizes[1])


def _padding(padding: int | Sequence[int], what: str) -> tuple[int, int, int, int]:
    """MindSpore's padding: int (all sides), (left/right, top/bottom) or (left, top, right, bottom)."""
    p = (padding,) if isinstance(padding, int | np.integer) else tuple(padding)
    if len(p) == 1:
        p = p * 4
    elif len(p) == 2:
        p = (p[0], p[1], p[0], p[1])
    if len(p) != 4 or not all(isinstance(v, int | np.integer) and v >= 0 for v in p):
        raise ValueError(f"{what}: padding must be ints >= 0 (1, 2 or 4 of them), got {padding!r}")
    return tuple(int(v) for v in p)  # type: ignore[return-value]


def _image_batch(x: np.ndarray, what: str) -> np.ndarray:
    if x.ndim not in (3, 4):
        raise ValueError(f"{what}: expected an H x W or H x W x C image, got shape {x.shape[1:]}")
    return x


def _pad(x: np.ndarray, pad: tuple[int, int, int, int], fill: Any, mode: Border) -> np.ndarray:
    left, top, right, bottom = pad
    widths = [(0, 0), (top, bottom), (left, right)] + [(0, 0)] * (x.ndim - 3)
    if mode is Border.CONSTANT:
        return np.pad(x, widths, mode="constant", constant_values=fill)
    return np.pad(x, widths, mode=mode.value)


class Resize(DataOp):
    """``Resize(size, interpolation=Inter.LINEAR)``: bilinear; an int size is the shorter side."""

    def __init__(self, size: int | Sequence[int], interpolation: Inter = Inter.LINEAR) -> None:
        if interpolation not in (Inter.LINEAR, Inter.BILINEAR):
            raise ValueError(f"Resize: only Inter.LINEAR is implemented, got {interpolation}")
        self.size = (int(size),) if isinstance(size, int | np.integer) else _pair(size, "Resize")

    def apply_batch(self, x: np.ndarray, rng: Any = None) -> np.ndarray:
        x = _image_batch(x, "Resize")
        h, w = x.shape[1:3]
        if len(self.size) == 2:
            out_h, out_w = self.size
        else:
            s = self.size[0]
            out_h, out_w = (s, int(w * s / h)) if h <= w else (int(h * s / w), s)
        return bilinear_resize(x, out_h, out_w, 1)

    def __repr__(self) -> str:
        return f"Resize({list(self.size)})"


class Rescale(DataOp):
    """``Rescale(rescale, shift)``: ``x * rescale + shift`` as float32."""

    def __init__(self, rescale: float, shift: float) -> None:
        self._op = _Rescale(rescale, shift)

    def apply_batch(self, x: np.ndarray, rng: Any = None) -> np.ndarray:
        return self._op(x)

    def __repr__(self) -> str:
        return f"Rescale({self._op.rescale}, {self._op.shift})"


class Normalize(DataOp):
    """``Normalize(mean, std, is_hwc=True)``: ``(x - mean) / std`` per channel, float32."""

    def __init__(self, mean: Sequence[float], std: Sequence[float], is_hwc: bool = True) -> None:
        self.mean = np.atleast_1d(np.asarray(mean, dtype=np.float64))
        self.std = np.atleast_1d(np.asarray(std, dtype=np.float64))
        if self.mean.ndim != 1 or self.mean.shape != self.std.shape:
            raise ValueError(f"Normalize: mean {mean!r} and std {std!r} must be lists of the same length")
        if np.any(self.std <= 0):
            raise ValueError(f"Normalize: std must be positive, got {std!r}")
        self.is_hwc = bool(is_hwc)

    def apply_batch(self, x: np.ndarray, rng: Any = None) -> np.ndarray:
        x = _image_batch(x, "Normalize")
        axis = None if x.ndim == 3 else 3 if self.is_hwc else 1  # H x W samples: no channel axis
        try:
            return normalize(x, self.mean, self.std, axis)
        except ValueError as error:
            raise ValueError(str(error).replace("normalize:", "Normalize:")) from None

    def __repr__(self) -> str:
        return f"Normalize({self.mean.tolist()}, {self.std.tolist()})"


class HWC2CHW(DataOp):
    """``H x W x C`` -> ``C x H x W`` (an ``H x W`` image gets a channel axis: ``1 x H x W``)."""

    def apply_batch(self, x: np.ndarray, rng: Any = None) -> np.ndarray:
        return hwc2chw(_image_batch(x, "HWC2CHW"))


class ToTensor(DataOp):
    """``ToTensor(output_type=np.float32)``: HWC image -> CHW, divided by 255."""

    def __init__(self, output_type: Any = np.float32) -> None:
        from ...dtype import to_np

        self.dtype = to_np(output_type)

    def apply_batch(self, x: np.ndarray, rng: Any = None) -> np.ndarray:
        chw = HWC2CHW().apply_batch(x)
        return np.divide(chw, 255.0, dtype=np.float32).astype(self.dtype, copy=False)


class Pad(DataOp):
    """``Pad(padding, fill_value=0, padding_mode=Border.CONSTANT)``."""

    def __init__(self, padding: int | Sequence[int], fill_value: int = 0,
                 padding_mode: Border = Border.CONSTANT) -> None:
        self.padding = _padding(padding, "Pad")
        self.fill_value, self.padding_mode = fill_value, Border(padding_mode)

    def apply_batch(self, x: np.ndarray, rng: Any = None) -> np.ndarray:
        return _pad(_image_batch(x, "Pad"), self.padding, self.fill_value, self.padding_mode)


class CenterCrop(DataOp):
    """``CenterCrop(size)``: the centre ``size`` region (zero-padded first when the image is smaller)."""

    def __init__(self, size: int | Sequence[int]) -> None:
        self.size = _pair(size, "CenterCrop")

    def apply_batch(self, x: np.ndarray, rng: Any = None) -> np.ndarray:
        x = _image_batch(x, "CenterCrop")
        h, w = x.shape[1:3]
        ch, cw = self.size
        if ch > h or cw > w:
            ph, pw = max(ch - h, 0), max(cw - w, 0)
            x = _pad(x, (pw // 2, ph // 2, pw - pw // 2, ph - ph // 2), 0, Border.CONSTANT)
            h, w = x.shape[1:3]
        top, left = int(round((h - ch) / 2.0)), int(round((w - cw) / 2.0))
        return np.ascontiguousarray(x[:, top:top + ch, left:left + cw])


class RandomCrop(DataOp):
    """``RandomCrop(size, padding=None, pad_if_needed=False, fill_value=0, padding_mode=Border.CONSTANT)``:
    pad, then crop ``size`` at a uniformly drawn position (one per image)."""

    random = True

    def __init__(self, size: int | Sequence[int], padding: int | Sequence[int] | None = None,
                 pad_if_needed: bool = False, fill_value: int = 0,
                 padding_mode: Border = Border.CONSTANT) -> None:
        self.size = _pair(size, "RandomCrop")
        self.padding = _padding(padding, "RandomCrop") if padding is not None else (0, 0, 0, 0)
        self.pad_if_needed, self.fill_value = bool(pad_if_needed), fill_value
        self.padding_mode = Border(padding_mode)

    def apply_batch(self, x: np.ndarray, rng: np.random.Generator | None = None) -> np.ndarray:
        x = _image_batch(x, "RandomCrop")
        if any(self.padding):
            x = _pad(x, self.padding, self.fill_value, self.padding_mode)
        ch, cw = self.size
        h, w = x.shape[1:3]
        if self.pad_if_needed and (h < ch or w < cw):
            ph, pw = max(ch - h, 0), max(cw - w, 0)
            x = _pad(x, (pw, ph, pw, ph), self.fill_value, self.padding_mode)
            h, w = x.shape[1:3]
        if h < ch or w < cw:
            raise ValueError(f"RandomCrop: crop size {self.size} is larger than the (padded) image "
                             f"{(h, w)}; pass pad_if_needed=True or a smaller size")
        rng = rng if rng is not None else np.random.default_rng()
        n = len(x)
        tops = rng.integers(0, h - ch + 1, size=n)
        lefts = rng.integers(0, w - cw + 1, size=n)
        rows = (tops[:, None] + np.arange(ch))[:, :, None]
        cols = (lefts[:, None] + np.arange(cw))[:, None, :]
        return x[np.arange(n)[:, None, None], rows, cols]


class RandomHorizontalFlip(DataOp):
    """``RandomHorizontalFlip(prob=0.5)``: mirror each image left-right with probability ``prob``."""

    random = True

    def __init__(self, prob: float = 0.5) -> None:
        if not 0.0 <= float(prob) <= 1.0:
            raise ValueError(f"RandomHorizontalFlip: prob must be in [0, 1], got {prob!r}")
        self.prob = float(prob)

    def apply_batch(self, x: np.ndarray, rng: np.random.Generator | None = None) -> np.ndarray:
        x = _image_batch(x, "RandomHorizontalFlip")
        rng = rng if rng is not None else np.random.default_rng()
        flip = rng.random(len(x)) < self.prob
        out = x.copy()
        out[flip] = x[flip][:, :, ::-1]
        return out


__all__ = ["Border", "CenterCrop", "HWC2CHW", "Inter", "Normalize", "Pad", "RandomCrop",
           "RandomHorizontalFlip", "Rescale", "Resize", "ToTensor"]

from framework import absent_names as _absent_names  # noqa: E402

# an absent MindSpore name: one line naming it, the coverage table and the closest name
__getattr__ = _absent_names.module_getattr("dataset.vision", __name__)

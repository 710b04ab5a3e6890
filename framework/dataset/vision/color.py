"""``mindspore.dataset.vision``'s colour operations on one ``H x W x C`` image (uint8 RGB
unless said otherwise): brightness, contrast, saturation, gamma, sharpness, auto-contrast,
equalize, invert, posterize, solarize, colour conversions, ``LinearTransformation`` and
``ToType`` (hue and HSV: :mod:`framework.dataset.vision.hsv`).

MindSpore computes these as OpenCV and PIL do: blends with a degenerate image (black, the
grey mean, the grey image, a smoothed image), results rounded half to even and saturated
to the input's dtype range.
"""

from __future__ import annotations

from enum import Enum
from typing import Any

import numpy as np

from ...dtype import to_np
from ..ops_base import SampleOp


def rgb_image(x: np.ndarray, what: str) -> np.ndarray:
    if x.ndim != 3 or x.shape[2] != 3:
        raise RuntimeError(f"{what}: expected an H x W x 3 RGB image, got shape {x.shape}")
    return x


def saturate(values: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """``values`` rounded half to even and clipped to ``dtype`` (floats: unchanged)."""
    if np.dtype(dtype).kind == "f":
        return values.astype(dtype)
    info = np.iinfo(dtype)
    return np.clip(np.rint(values), info.min, info.max).astype(dtype)


def gray(x: np.ndarray) -> np.ndarray:
    """OpenCV's RGB -> grey: ``0.299 R + 0.587 G + 0.114 B`` (as float)."""
    return x[..., 0] * 0.299 + x[..., 1] * 0.587 + x[..., 2] * 0.114


def blend(x: np.ndarray, degenerate: Any, factor: float) -> np.ndarray:
    return saturate(degenerate + (x.astype(np.float64) - degenerate) * factor, x.dtype)


def factor_value(value: Any, what: str, name: str, low: float = 0.0, high: float = float("inf")) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
        raise ValueError(f"{what}: {name} must be a number in [{low}, {high}], got {value!r}")
    return float(value)


class AdjustBrightness(SampleOp):
    """``AdjustBrightness(brightness_factor)``: ``image * factor``."""

    def __init__(self, brightness_factor: float) -> None:
        self.factor = factor_value(brightness_factor, "AdjustBrightness", "brightness_factor")

    def sample(self, x: np.ndarray, rng: Any = None) -> np.ndarray:
        return blend(rgb_image(x, "AdjustBrightness"), 0.0, self.factor)


class AdjustContrast(SampleOp):
    """``AdjustContrast(contrast_factor)``: blend with the mean grey level (rounded)."""

    def __init__(self, contrast_factor: float) -> None:
        self.factor = factor_value(contrast_factor, "AdjustContrast", "contrast_factor")

    def sample(self, x: np.ndarray, rng: Any = None) -> np.ndarray:
        x = rgb_image(x, "AdjustContrast")
        mean = float(np.mean(saturate(gray(x.astype(np.float64)), x.dtype)))
        return blend(x, float(np.rint(mean)) if x.dtype.kind != "f" else mean, self.factor)


class AdjustSaturation(SampleOp):
    """``AdjustSaturation(saturation_factor)``: blend with the grey image."""

    def __init__(self, saturation_factor: float) -> None:
        self.factor = factor_value(saturation_factor, "AdjustSaturation", "saturation_factor")

    def sample(self, x: np.ndarray, rng: Any = None) -> np.ndarray:
        x = rgb_image(x, "AdjustSaturation")
        grey = saturate(gray(x.astype(np.float64)), x.dtype).astype(np.float64)[..., None]
        return blend(x, grey, self.factor)


class AdjustSharpness(SampleOp):
    """``AdjustSharpness(sharpness_factor)``: blend with the image smoothed by PIL's 3 x 3
    kernel (``[[1, 1, 1], [1, 5, 1], [1, 1, 1]] / 13``); border pixels stay as they are."""

    def __init__(self, sharpness_factor: float) -> None:
        self.factor = factor_value(sharpness_factor, "AdjustSharpness", "sharpness_factor")

    def sample(self, x: np.ndarray, rng: Any = None) -> np.ndarray:
        if x.ndim not in (2, 3):
            raise RuntimeError(f"AdjustSharpness: expected an H x W [x C] image, got shape {x.shape}")
        f = x.astype(np.float64)
        if f.shape[0] < 3 or f.shape[1] < 3:
            return x.copy()
        smooth = f.copy()
        inner = (
            sum(
                f[1 + dy : f.shape[0] - 1 + dy, 1 + dx : f.shape[1] - 1 + dx]
                for dy in (-1, 0, 1)
                for dx in (-1, 0, 1)
            )
            + 4 * f[1:-1, 1:-1]
        )
        smooth[1:-1, 1:-1] = np.rint(inner / 13.0) if x.dtype.kind != "f" else inner / 13.0
        return blend(x, smooth, self.factor)


class AdjustGamma(SampleOp):
    """``AdjustGamma(gamma, gain=1)``: ``gain * (x / 255) ** gamma * 255`` on uint8 (MindSpore
    rounds some values up: within one grey level), ``(gain * x) ** gamma`` clipped to [0, 1]
    on floats."""

    def __init__(self, gamma: float, gain: float = 1) -> None:
        self.gamma = factor_value(gamma, "AdjustGamma", "gamma")
        if isinstance(gain, bool) or not isinstance(gain, int | float):
            raise TypeError(f"AdjustGamma: gain must be a number, got {gain!r}")
        self.gain = float(gain)

    def sample(self, x: np.ndarray, rng: Any = None) -> np.ndarray:
        if x.dtype.kind == "f":  # MindSpore: (gain * x) ** gamma, clipped to [0, 1]
            return np.clip((self.gain * x.astype(np.float64)) ** self.gamma, 0, 1).astype(x.dtype)
        top = 255.0 if x.dtype == np.uint8 else float(np.iinfo(x.dtype).max)
        return saturate(self.gain * (x.astype(np.float64) / top) ** self.gamma * top, x.dtype)


class AutoContrast(SampleOp):
    """``AutoContrast(cutoff=0.0, ignore=None)``: each channel stretched to [0, 255] after
    cutting ``cutoff`` percent of pixels at each end (pixel values in ``ignore`` not counted)."""

    def __init__(self, cutoff: float = 0.0, ignore: int | list[int] | None = None) -> None:
        self.cutoff = factor_value(cutoff, "AutoContrast", "cutoff", 0.0, 49.999)
        self.ignore = [] if ignore is None else [ignore] if isinstance(ignore, int) else list(ignore)

    def _channel(self, c: np.ndarray) -> np.ndarray:
        hist = np.bincount(c.reshape(-1), minlength=256).astype(np.int64)
        for v in self.ignore:
            hist[v] = 0
        if self.cutoff:
            cut = int(hist.sum() * self.cutoff / 100)
            low_cum, high_cum = np.cumsum(hist), np.cumsum(hist[::-1])[::-1]
            hist = np.where(low_cum <= cut, 0, hist)
            hist = np.where(high_cum <= cut, 0, hist)
        nonzero = np.nonzero(hist)[0]
        if len(nonzero) == 0 or nonzero[0] >= nonzero[-1]:
            return c.copy()
        lo, hi = nonzero[0], nonzero[-1]
        scale = np.float32(255.0 / (hi - lo))  # float32 as MindSpore: 254 may map to 254
        offset = np.float32(-lo * scale)
        lut = np.clip((np.arange(256, dtype=np.float32) * scale + offset).astype(np.int64), 0, 255)
        return lut[c].astype(np.uint8)

    def sample(self, x: np.ndarray, rng: Any = None) -> np.ndarray:
        if x.dtype != np.uint8:
            raise RuntimeError(f"AutoContrast: expected a uint8 image, got {x.dtype}")
        if x.ndim == 2:
            return self._channel(x)
        return np.stack([self._channel(x[..., k]) for k in range(x.shape[2])], axis=-1)


class Equalize(SampleOp):
    """``Equalize()``: each channel's histogram equalized (OpenCV's ``equalizeHist``: the
    cumulative count above the lowest level, scaled to [0, 255] and rounded)."""

    @staticmethod
    def _channel(c: np.ndarray) -> np.ndarray:
        hist = np.bincount(c.reshape(-1), minlength=256)
        first = int(np.argmax(hist > 0))
        total = int(hist.sum())
        if hist[first] == total:
            return np.full_like(c, first)
        scale = np.float32(255.0 / (total - hist[first]))  # OpenCV scales in float32
        lut = (np.cumsum(hist) - hist[first]).astype(np.float32) * scale
        lut = np.where(np.arange(256) <= first, 0, np.rint(lut))
        return np.clip(lut, 0, 255).astype(np.uint8)[c]

    def sample(self, x: np.ndarray, rng: Any = None) -> np.ndarray:
        if x.dtype != np.uint8:
            raise RuntimeError(f"Equalize: expected a uint8 image, got {x.dtype}")
        if x.ndim == 2:
            return self._channel(x)
        return np.stack([self._channel(x[..., k]) for k in range(x.shape[2])], axis=-1)


class Invert(SampleOp):
    """``Invert()``: ``255 - image``."""

    def sample(self, x: np.ndarray, rng: Any = None) -> np.ndarray:
        return (255 - x.astype(np.int64)).clip(0, 255).astype(x.dtype) if x.dtype.kind != "f" else 255.0 - x


class Posterize(SampleOp):
    """``Posterize(bits)``: keep the ``bits`` high bits of each value."""

    def __init__(self, bits: int) -> None:
        if isinstance(bits, bool) or not isinstance(bits, int) or not 0 <= bits <= 8:
            raise ValueError(f"Posterize: bits must be an int in [0, 8], got {bits!r}")
        self.bits = bits

    def sample(self, x: np.ndarray, rng: Any = None) -> np.ndarray:
        if x.dtype != np.uint8:
            raise RuntimeError(f"Posterize: expected a uint8 image, got {x.dtype}")
        return x & np.uint8((0xFF << (8 - self.bits)) & 0xFF)


class Solarize(SampleOp):
    """``Solarize(threshold)``: values in ``[min, max]`` (a number: ``[threshold, 255]``) inverted."""

    def __init__(self, threshold: float | tuple[float, float]) -> None:
        low, high = (threshold, 255) if isinstance(threshold, int | float) else tuple(threshold)
        if not 0 <= low <= high <= 255:
            raise ValueError(f"Solarize: threshold must be in [0, 255] (min <= max), got {threshold!r}")
        self.low, self.high = low, high

    def sample(self, x: np.ndarray, rng: Any = None) -> np.ndarray:
        inside = (x >= self.low) & (x <= self.high)
        return np.where(inside, 255 - x.astype(np.int64), x).astype(x.dtype)


class ConvertMode(Enum):
    COLOR_BGR2BGRA = 0
    COLOR_BGRA2BGR = 1
    COLOR_BGR2RGBA = 2
    COLOR_RGBA2BGR = 3
    COLOR_BGR2RGB = 4
    COLOR_BGRA2RGBA = 5
    COLOR_BGR2GRAY = 6
    COLOR_RGB2GRAY = 7
    COLOR_GRAY2BGR = 8
    COLOR_GRAY2BGRA = 9
    COLOR_BGRA2GRAY = 10
    COLOR_RGBA2GRAY = 11


def _alpha(x: np.ndarray) -> np.ndarray:
    top = 255 if x.dtype.kind in "iu" else 1.0
    return np.concatenate([x, np.full(x.shape[:2] + (1,), top, x.dtype)], axis=2)


class ConvertColor(SampleOp):
    """``ConvertColor(convert_mode)``: OpenCV's channel conversions (:class:`ConvertMode`)."""

    def __init__(self, convert_mode: ConvertMode) -> None:
        if not isinstance(convert_mode, ConvertMode):
            raise TypeError(f"ConvertColor: convert_mode must be a vision.ConvertMode, got {convert_mode!r}")
        self.mode = convert_mode

    def sample(self, x: np.ndarray, rng: Any = None) -> np.ndarray:
        name = self.mode.name[6:]
        source, target = name.split("2")
        channels = x.shape[2] if x.ndim == 3 else 1
        # MindSpore reads 3 or 4 channels for any colour source (an alpha channel it lacks is opaque)
        if (source == "GRAY") != (channels == 1) or channels not in (1, 3, 4):
            raise RuntimeError(f"ConvertColor: {self.mode.name} cannot convert an image of shape {x.shape}")
        if source == "GRAY":
            g = x.reshape(x.shape[0], x.shape[1], 1)
            rgb = np.concatenate([g, g, g], axis=2)
            return _alpha(rgb) if name.endswith("BGRA") else rgb
        if name.endswith("GRAY"):
            rgb = x[..., :3] if source.startswith("RGB") else x[..., 2::-1]
            return saturate(gray(rgb.astype(np.float64)), x.dtype)
        swap = source[:3] != target[:3]
        out = x[..., 2::-1] if swap else x[..., :3]
        if not target.endswith("A"):
            return np.ascontiguousarray(out)
        if channels == 4:
            return np.ascontiguousarray(np.concatenate([out, x[..., 3:]], axis=2))
        return _alpha(out)


class LinearTransformation(SampleOp):
    """``LinearTransformation(transformation_matrix, mean_vector)``: the flattened image minus
    ``mean_vector``, times the matrix, reshaped back."""

    def __init__(self, transformation_matrix: Any, mean_vector: Any) -> None:
        self.matrix = np.asarray(transformation_matrix)
        self.mean = np.asarray(mean_vector)
        if self.matrix.ndim != 2 or self.matrix.shape[0] != self.matrix.shape[1]:
            raise ValueError(f"LinearTransformation: the matrix must be square, got {self.matrix.shape}")
        if self.mean.shape != (self.matrix.shape[0],):
            raise ValueError(f"LinearTransformation: mean_vector must hold {self.matrix.shape[0]} values")

    def sample(self, x: np.ndarray, rng: Any = None) -> np.ndarray:
        flat = x.reshape(1, -1)
        if flat.shape[1] != self.matrix.shape[0]:
            raise ValueError(
                f"LinearTransformation: the image has {flat.shape[1]} values, the matrix "
                f"{self.matrix.shape[0]}"
            )
        return np.dot(flat - self.mean, self.matrix).reshape(x.shape)


class ToType(SampleOp):
    """``ToType(data_type)``: the image cast to ``data_type``."""

    def __init__(self, data_type: Any) -> None:
        self.dtype = to_np(data_type)

    def sample(self, x: np.ndarray, rng: Any = None) -> np.ndarray:
        return x.astype(self.dtype)

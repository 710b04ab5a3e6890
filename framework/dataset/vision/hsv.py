"""``mindspore.dataset.vision``'s HSV operations: ``AdjustHue`` (on uint8 images through
OpenCV's 8-bit full-range HSV, as MindSpore computes it), ``RgbToHsv`` and ``HsvToRgb``
(``colorsys`` per pixel, as MindSpore runs it)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ops_base import SampleOp
from .color import factor_value, rgb_image, saturate


def rgb_to_hsv_array(x: np.ndarray) -> np.ndarray:
    """RGB in [0, 1] (last axis) to HSV in [0, 1], as ``colorsys`` does, vectorized."""
    r, g, b = x[..., 0], x[..., 1], x[..., 2]
    high, low = x.max(axis=-1), x.min(axis=-1)
    span = high - low
    with np.errstate(invalid="ignore", divide="ignore"):
        s = np.where(high > 0, span / np.where(high > 0, high, 1), 0.0)
        rc, gc, bc = ((high - c) / np.where(span > 0, span, 1) for c in (r, g, b))
    h = np.where(r == high, bc - gc, np.where(g == high, 2.0 + rc - bc, 4.0 + gc - rc))
    h = np.where(span > 0, (h / 6.0) % 1.0, 0.0)
    return np.stack([h, s, high], axis=-1)


def colorsys_rgb_to_hsv(x: np.ndarray) -> np.ndarray:
    """``colorsys.rgb_to_hsv`` per pixel as MindSpore runs it (NumPy 1 scalars): float32
    images keep float32 arithmetic until a Python float enters (the hue offsets and the
    final ``/ 6``), integer images divide in float64; the result is float64."""
    work = x.dtype if x.dtype.kind == "f" else np.float64
    r, g, b = (x[..., k].astype(work) for k in range(3))
    high, low = np.maximum(np.maximum(r, g), b), np.minimum(np.minimum(r, g), b)
    span = high - low
    flat = span == 0
    safe_span = np.where(flat, 1, span).astype(work)
    with np.errstate(invalid="ignore", divide="ignore"):
        s = np.where(flat, 0, span / np.where(high == 0, 1, high).astype(work))
        rc, gc, bc = ((high - c) / safe_span for c in (r, g, b))
    h = np.where(
        r == high,
        (bc - gc).astype(np.float64),
        np.where(g == high, 2.0 + rc.astype(np.float64) - bc, 4.0 + gc.astype(np.float64) - rc),
    )
    h = np.where(flat, 0.0, (h / 6.0) % 1.0)
    return np.stack([h, s.astype(np.float64), high.astype(np.float64)], axis=-1)


def hsv_to_rgb_array(x: np.ndarray) -> np.ndarray:
    """HSV in [0, 1] to RGB in [0, 1], as ``colorsys`` does, vectorized."""
    h, s, v = x[..., 0], x[..., 1], x[..., 2]
    i = np.floor(h * 6.0)
    f = h * 6.0 - i
    p, q, t = v * (1.0 - s), v * (1.0 - s * f), v * (1.0 - s * (1.0 - f))
    i = i.astype(int) % 6
    choices = [(v, t, p), (q, v, p), (p, v, t), (p, q, v), (t, p, v), (v, p, q)]
    out = [np.choose(i, [c[k] for c in choices]) for k in range(3)]
    rgb = np.stack(out, axis=-1)
    return np.where((s == 0)[..., None], v[..., None], rgb)


def _rgb_to_hsv_u8(x: np.ndarray, hrange: int) -> np.ndarray:
    """OpenCV's 8-bit ``RGB2HSV`` (hue in [0, ``hrange``)), in its 12-bit fixed point."""
    r, g, b = (x[..., k].astype(np.int64) for k in range(3))
    v = np.maximum(np.maximum(r, g), b)
    diff = v - np.minimum(np.minimum(r, g), b)
    with np.errstate(divide="ignore"):
        sdiv = np.where(v > 0, np.rint((255 << 12) / np.maximum(v, 1)), 0).astype(np.int64)
        hdiv = np.where(diff > 0, np.rint((hrange << 12) / (6.0 * np.maximum(diff, 1))), 0).astype(np.int64)
    s = (diff * sdiv + (1 << 11)) >> 12
    h = np.where(v == r, g - b, np.where(v == g, b - r + 2 * diff, r - g + 4 * diff))
    h = (h * hdiv + (1 << 11)) >> 12
    h = np.where(h < 0, h + hrange, h)
    return np.stack([h, s, v], axis=-1).clip(0, 255).astype(np.uint8)


_SECTORS = np.array([[1, 3, 0], [1, 0, 2], [3, 0, 1], [0, 2, 1], [0, 1, 3], [2, 1, 0]])


def _hsv_to_rgb_u8(hsv: np.ndarray, hrange: int) -> np.ndarray:
    """OpenCV's 8-bit ``HSV2RGB``: float32 sector arithmetic, rounded back."""
    f32 = np.float32
    h = hsv[..., 0].astype(f32) * f32(6.0 / hrange)
    s = hsv[..., 1].astype(f32) * f32(1.0 / 255.0)
    v = hsv[..., 2].astype(f32) * f32(1.0 / 255.0)
    h = np.where(h >= 6, h - 6, h)
    sector = np.floor(h).astype(int)
    frac = h - sector
    tab = np.stack(
        [v, v * (f32(1) - s), v * (f32(1) - s * frac), v * (f32(1) - s * (f32(1) - frac))], axis=-1
    )
    idx = _SECTORS[sector]  # (b, g, r) picks of the table
    bgr = np.take_along_axis(tab, idx, axis=-1)
    bgr = np.where((s == 0)[..., None], v[..., None], bgr)
    rgb = bgr[..., ::-1] * f32(255.0)
    return np.clip(np.rint(rgb), 0, 255).astype(np.uint8)


HUE_RANGE = 256  # OpenCV's _FULL conversions


class AdjustHue(SampleOp):
    """``AdjustHue(hue_factor)``: hue rotated by ``hue_factor`` turns (in [-0.5, 0.5]). For
    uint8 images as MindSpore computes it: OpenCV's 8-bit full-range HSV, the hue byte
    shifted by ``int(hue_factor * 255)`` modulo 256; float images in exact HSV."""

    def __init__(self, hue_factor: float) -> None:
        self.factor = factor_value(hue_factor, "AdjustHue", "hue_factor", -0.5, 0.5)

    def sample(self, x: np.ndarray, rng: Any = None) -> np.ndarray:
        x = rgb_image(x, "AdjustHue")
        if x.dtype == np.uint8:
            hsv = _rgb_to_hsv_u8(x, HUE_RANGE)
            hsv[..., 0] = ((hsv[..., 0].astype(np.int64) + int(self.factor * 255)) % 256).astype(np.uint8)
            return _hsv_to_rgb_u8(hsv, HUE_RANGE)
        top = 255.0 if x.dtype.kind != "f" else 1.0
        hsv = rgb_to_hsv_array(x.astype(np.float64) / top)
        hsv[..., 0] = (hsv[..., 0] + self.factor) % 1.0
        return saturate(hsv_to_rgb_array(hsv) * top, x.dtype)


class RgbToHsv(SampleOp):
    """``RgbToHsv(is_hwc=False)``: RGB (in [0, 1] for floats) to HSV in [0, 1], float64."""

    def __init__(self, is_hwc: bool = False) -> None:
        self.is_hwc = bool(is_hwc)

    def sample(self, x: np.ndarray, rng: Any = None) -> np.ndarray:
        hwc = x if self.is_hwc else np.moveaxis(x, 0, -1)
        if hwc.ndim != 3 or hwc.shape[-1] != 3:
            raise TypeError(f"RgbToHsv: expected a 3-channel image, got shape {x.shape}")
        out = colorsys_rgb_to_hsv(hwc)  # uint8 input: V stays in [0, 255]
        return out if self.is_hwc else np.moveaxis(out, -1, 0)


class HsvToRgb(SampleOp):
    """``HsvToRgb(is_hwc=False)``: HSV in [0, 1] to RGB in [0, 1], float64."""

    def __init__(self, is_hwc: bool = False) -> None:
        self.is_hwc = bool(is_hwc)

    def sample(self, x: np.ndarray, rng: Any = None) -> np.ndarray:
        hwc = x if self.is_hwc else np.moveaxis(x, 0, -1)
        if hwc.ndim != 3 or hwc.shape[-1] != 3:
            raise TypeError(f"HsvToRgb: expected a 3-channel image, got shape {x.shape}")
        out = hsv_to_rgb_array(hwc.astype(np.float64))
        return out if self.is_hwc else np.moveaxis(out, -1, 0)

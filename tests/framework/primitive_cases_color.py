"""Harness cases (see primitive_cases.py) of the colour adjustments (ops/color_adjust.py):
references pixel by pixel through the standard library's ``colorsys`` (HSV in [0, 1))."""

from __future__ import annotations

import colorsys

import numpy as np

from framework.ops.color_adjust import AdjustHue, AdjustSaturation

from .primitive_cases import Case


def _per_pixel(image: np.ndarray, change) -> np.ndarray:
    out = np.empty_like(image)
    for index in np.ndindex(image.shape[:-1]):
        h, s, v = colorsys.rgb_to_hsv(*image[index])
        out[index] = colorsys.hsv_to_rgb(*change(h, s, v))
    return out


def _hue_ref(image: np.ndarray, delta: np.ndarray) -> np.ndarray:
    return _per_pixel(image, lambda h, s, v: ((h + float(delta)) % 1.0, s, v))


def _saturation_ref(image: np.ndarray, scale: np.ndarray) -> np.ndarray:
    return _per_pixel(image, lambda h, s, v: (h, min(max(s * float(scale), 0.0), 1.0), v))


def _pixels(factor: float):
    def make(rng: np.random.Generator) -> list[np.ndarray]:
        image = rng.uniform(0, 1, (2, 3, 4, 3))
        image[0, 0, :2] = [[0.3, 0.3, 0.3], [0.0, 0.0, 0.0]]  # grey and black: hue 0
        return [image, np.array(factor)]
    return make


COLOR_CASES = [
    Case(AdjustHue(), _pixels(0.3), _hue_ref),
    Case(AdjustHue(), _pixels(-0.85), _hue_ref),
    Case(AdjustSaturation(), _pixels(0.6), _saturation_ref),
    Case(AdjustSaturation(), _pixels(2.5), _saturation_ref),
]
